#pragma once

/// \file
/// The repository link shared by concurrent transfers as processor sharing: k transfers in
/// progress each get B / k. This is how the naive staging strategies of Overhead Matters
/// (§4.2.1: JIT and Aggressive "naively start the image transfers at fixed times") behave:
/// transfers started close together slow each other down, "they take longer than estimated",
/// and deadlines are missed under bursts (§5.1, Trace II). The Hybrid strategy books the link
/// instead (repository_link), one transfer at a time.
///
/// Times are doubles here: completions under sharing fall between ticks.

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <optional>
#include <utility>
#include <vector>

#include "leasehold/core/detail/checks.hpp"
#include "leasehold/core/error.hpp"

namespace leasehold::policy::staging {

/// The repository link under processor sharing: k concurrent transfers each get B / k (see the
/// file's description). Times are doubles, as a transfer ends between ticks.
class shared_link {
 public:
  /// Throws invalid_request for a bandwidth that is not a positive finite number.
  explicit shared_link(double bandwidth_mb_s, double origin = 0.0)
      : bandwidth_(bandwidth_mb_s), now_(origin) {
    if (!std::isfinite(bandwidth_mb_s) || bandwidth_mb_s <= 0.0)
      throw invalid_request(leasehold::detail::describe("shared_link: bandwidth ", bandwidth_mb_s,
                                                        " MB/s must be a positive number"));
  }

  /// The link's clock.
  [[nodiscard]] double now() const noexcept { return now_; }
  /// How many transfers are in progress.
  [[nodiscard]] std::size_t active() const noexcept { return active_.size(); }
  /// B, MB/s.
  [[nodiscard]] double bandwidth_mb_s() const noexcept { return bandwidth_; }

  /// Starts transfer `id` of `size_mb` at the current time. Throws invalid_request for a
  /// non-positive size.
  void start(std::uint64_t id, double size_mb) {
    if (!(size_mb > 0.0) || !std::isfinite(size_mb))
      throw invalid_request(leasehold::detail::describe("shared_link: transfer ", id, " of ",
                                                        size_mb, " MB; sizes must be positive"));
    active_.push_back({id, size_mb});
  }

  /// When the next transfer in progress completes if nothing else starts; nullopt if idle.
  [[nodiscard]] std::optional<double> next_completion() const {
    if (active_.empty()) return std::nullopt;
    double least = std::numeric_limits<double>::infinity();
    for (const auto& a : active_) least = std::min(least, a.remaining);
    return now_ + least * static_cast<double>(active_.size()) / bandwidth_;
  }

  /// Moves the clock to t (>= now), sharing the bandwidth among the transfers in progress;
  /// returns the transfers completed by then with their completion times, in order.
  std::vector<std::pair<std::uint64_t, double>> advance_to(double t) {
    if (t < now_)
      throw invalid_request(leasehold::detail::describe("shared_link: advance_to(", t,
                                                        ") before the current time ", now_));
    std::vector<std::pair<std::uint64_t, double>> done;
    while (!active_.empty()) {
      const double next = *next_completion();
      const double until = std::min(next, t);
      const double sent = (until - now_) * bandwidth_ / static_cast<double>(active_.size());
      for (auto& a : active_) a.remaining -= sent;
      now_ = until;
      if (next > t) break;
      // Everything within a rounding error of zero completes now.
      const double tolerance = 1e-9 * std::max(1.0, bandwidth_);
      for (auto it = active_.begin(); it != active_.end();) {
        if (it->remaining <= tolerance) {
          done.emplace_back(it->id, now_);
          it = active_.erase(it);
        } else {
          ++it;
        }
      }
    }
    now_ = t;
    return done;
  }

 private:
  struct transfer {
    std::uint64_t id;
    double remaining;  // MB
  };
  double bandwidth_;
  double now_;
  std::vector<transfer> active_;
};

}  // namespace leasehold::policy::staging
