// Progress on stderr for the examples' long runs (not part of the library): how many of the
// units of work are done, the time elapsed, and an estimate of the rest.
//
// Nothing is printed for work that ends within the first `quiet` seconds (2 by default), so
// short runs and the tests stay silent. After that, on a terminal, one line redrawn in place
// at most 4 times a second; off a terminal (a batch job's log, a pipe), one line every
// `interval` seconds (5 by default) from a background thread, so that a log shows the run is
// alive even while one long unit of work is under way. The estimate assumes the remaining
// units cost what the finished ones did on average; when units differ in cost in a known way
// (a sweep whose cheap runs come first), the program gives each unit a weight, its expected
// cost relative to the others, and the estimate is elapsed / weight done x weight left.
//
// LEASEHOLD_PROGRESS_SECONDS=S sets the interval (whole seconds, the quiet time becomes
// min(2, S)); 0 prints a line at every unit done and at the end, which the tests use.
#pragma once

#include <unistd.h>

#include <algorithm>
#include <charconv>
#include <chrono>
#include <condition_variable>
#include <cstddef>
#include <cstdio>
#include <cstdlib>
#include <iostream>
#include <mutex>
#include <optional>
#include <sstream>
#include <string>
#include <system_error>
#include <thread>

namespace examples {

// LEASEHOLD_PROGRESS_SECONDS, else 5 s; std::nullopt after printing an error naming the value
// when it is not a whole number of seconds in [0, 86400]. examples::parse checks it before a
// program opens any output, so that a bad value ends the program with exit code 2 having
// written (and truncated) nothing, as a bad option does.
inline std::optional<std::chrono::seconds> progress_interval_from_environment() {
  const char* text = std::getenv("LEASEHOLD_PROGRESS_SECONDS");
  if (text == nullptr) return std::chrono::seconds(5);
  const std::string value = text;
  long long seconds = -1;
  const auto [end, error] = std::from_chars(value.data(), value.data() + value.size(), seconds);
  if (value.empty() || error != std::errc{} || end != value.data() + value.size() || seconds < 0 ||
      seconds > 86'400) {
    std::cerr << "error: LEASEHOLD_PROGRESS_SECONDS=" << value
              << " is not a whole number of seconds in [0, 86400]\n";
    return std::nullopt;
  }
  return std::chrono::seconds(seconds);
}

class progress_meter {
 public:
  using clock = std::chrono::steady_clock;

  // `what` names the units ("haizea_experiment runs"); `total` is how many there are;
  // `total_weight` the sum of their weights (by default each weighs 1).
  progress_meter(std::string what, std::size_t total, std::optional<double> total_weight = {})
      : what_(std::move(what)),
        total_(total),
        total_weight_(total_weight.value_or(static_cast<double>(total))),
        interval_(checked_interval()),
        quiet_(std::min(std::chrono::seconds(2), interval_)),
        started_(clock::now()),
        terminal_(isatty(fileno(stderr)) != 0) {
    if (interval_.count() > 0) ticker_ = std::thread([this] { tick(); });
  }

  progress_meter(const progress_meter&) = delete;
  progress_meter& operator=(const progress_meter&) = delete;

  ~progress_meter() { finish(); }

  // Records `count` more units done, weighing `weight` together (by default 1 each);
  // thread-safe.
  void advance(std::size_t count = 1, std::optional<double> weight = {}) {
    const std::lock_guard lock(mutex_);
    done_ += count;
    done_weight_ += weight.value_or(static_cast<double>(count));
    if (interval_.count() == 0 || (terminal_ && clock::now() - started_ >= quiet_ &&
                                   clock::now() - last_drawn_ >= std::chrono::milliseconds(250)))
      draw();
  }

  // Stops the background line and ends the display (a last line if anything was shown).
  void finish() {
    {
      const std::lock_guard lock(mutex_);
      if (finished_) return;
      finished_ = true;
      if (shown_) {
        if (drawn_done_ != done_) draw();
        if (terminal_) std::cerr << '\n' << std::flush;
      }
    }
    wake_.notify_all();
    if (ticker_.joinable()) ticker_.join();
  }

 private:
  // The environment's interval; a bad value (which examples::parse has normally refused
  // already) ends the program with exit code 2.
  static std::chrono::seconds checked_interval() {
    const auto interval = progress_interval_from_environment();
    if (!interval) std::exit(2);
    return *interval;
  }

  // Off a terminal: a line every interval (after the quiet time) until finish().
  void tick() {
    std::unique_lock lock(mutex_);
    auto next = started_ + std::max(quiet_, interval_);
    while (!finished_) {
      if (wake_.wait_until(lock, next, [this] { return finished_; })) return;
      if (!terminal_ || clock::now() - last_drawn_ >= std::chrono::milliseconds(250)) draw();
      next += interval_;
    }
  }

  // Called with the mutex held.
  void draw() {
    const double elapsed = std::chrono::duration<double>(clock::now() - started_).count();
    std::ostringstream line;
    line << what_ << ": " << done_ << '/' << total_ << ", " << format_seconds(elapsed)
         << " elapsed";
    if (done_ > 0 && done_ < total_ && done_weight_ > 0 && total_weight_ > done_weight_)
      line << ", about " << format_seconds(elapsed / done_weight_ * (total_weight_ - done_weight_))
           << " left";
    if (terminal_)
      std::cerr << '\r' << line.str() << "\x1b[K" << std::flush;
    else
      std::cerr << line.str() << '\n' << std::flush;
    shown_ = true;
    drawn_done_ = done_;
    last_drawn_ = clock::now();
  }

  static std::string format_seconds(double s) {
    char buffer[32];
    const auto whole = static_cast<long long>(s + 0.5);
    if (whole < 60)
      std::snprintf(buffer, sizeof buffer, "%lld s", whole);
    else if (whole < 3600)
      std::snprintf(buffer, sizeof buffer, "%lld min %02lld s", whole / 60, whole % 60);
    else
      std::snprintf(buffer, sizeof buffer, "%lld h %02lld min", whole / 3600, whole / 60 % 60);
    return buffer;
  }

  std::string what_;
  std::size_t total_;
  double total_weight_;
  std::chrono::seconds interval_;
  std::chrono::seconds quiet_;
  clock::time_point started_;
  clock::time_point last_drawn_{};
  bool terminal_;
  std::size_t done_ = 0;
  double done_weight_ = 0;
  std::size_t drawn_done_ = 0;
  bool shown_ = false;
  bool finished_ = false;
  std::mutex mutex_;
  std::condition_variable wake_;
  std::thread ticker_;
};

}  // namespace examples
