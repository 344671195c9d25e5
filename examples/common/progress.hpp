// Progress on stderr for the examples' long runs (not part of the library): how many of the
// units of work are done, the time elapsed, and an estimate of the rest.
//
// Nothing is printed for work that ends within the first `quiet` seconds (2 by default), so
// short runs and the tests stay silent. After that, on a terminal, one line redrawn in place
// at most 4 times a second; off a terminal (a batch job's log, a pipe), one line every
// `interval` seconds (5 by default) from a background thread, so that a log shows the run is
// alive even while one long unit of work is under way. The estimate assumes the remaining
// units cost what the finished ones did on average.
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
#include <sstream>
#include <string>
#include <system_error>
#include <thread>

namespace examples {

class progress_meter {
 public:
  using clock = std::chrono::steady_clock;

  // `what` names the units ("haizea_experiment runs"); `total` is how many there are.
  progress_meter(std::string what, std::size_t total)
      : what_(std::move(what)),
        total_(total),
        interval_(interval_from_environment()),
        quiet_(std::min(std::chrono::seconds(2), interval_)),
        started_(clock::now()),
        terminal_(isatty(fileno(stderr)) != 0) {
    if (interval_.count() > 0) ticker_ = std::thread([this] { tick(); });
  }

  progress_meter(const progress_meter&) = delete;
  progress_meter& operator=(const progress_meter&) = delete;

  ~progress_meter() { finish(); }

  // Records `count` more units done; thread-safe.
  void advance(std::size_t count = 1) {
    const std::lock_guard lock(mutex_);
    done_ += count;
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
  // LEASEHOLD_PROGRESS_SECONDS, else 5 s. A value that is not a whole number of seconds in
  // [0, 86400] ends the program with exit code 2, naming it, as a bad option does.
  static std::chrono::seconds interval_from_environment() {
    const char* text = std::getenv("LEASEHOLD_PROGRESS_SECONDS");
    if (text == nullptr) return std::chrono::seconds(5);
    const std::string value = text;
    long long seconds = -1;
    const auto [end, error] = std::from_chars(value.data(), value.data() + value.size(), seconds);
    if (value.empty() || error != std::errc{} || end != value.data() + value.size() ||
        seconds < 0 || seconds > 86'400) {
      std::cerr << "error: LEASEHOLD_PROGRESS_SECONDS=" << value
                << " is not a whole number of seconds in [0, 86400]\n";
      std::exit(2);
    }
    return std::chrono::seconds(seconds);
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
    if (done_ > 0 && done_ < total_)
      line << ", about "
           << format_seconds(elapsed / static_cast<double>(done_) *
                             static_cast<double>(total_ - done_))
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
  std::chrono::seconds interval_;
  std::chrono::seconds quiet_;
  clock::time_point started_;
  clock::time_point last_drawn_{};
  bool terminal_;
  std::size_t done_ = 0;
  std::size_t drawn_done_ = 0;
  bool shown_ = false;
  bool finished_ = false;
  std::mutex mutex_;
  std::condition_variable wake_;
  std::thread ticker_;
};

}  // namespace examples
