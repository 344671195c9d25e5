#pragma once

// The mirror image of earliest_fit, for any availability: the latest start s with
// window.begin <= s, s + duration <= window.end and `amount` free over [s, s + duration).
// Haizea's EDF transfers are placed "as close as possible to the deadline" (Sotomayor,
// Keahey & Foster, §3.2), which needs this question; the availability concept only asks
// the earliest one, so it is answered here from free_blocks(), in time order, up to the
// window's end: O(blocks before the deadline).

#include <algorithm>
#include <optional>

#include "leasehold/availability/concept.hpp"
#include "leasehold/core/capacity.hpp"
#include "leasehold/core/time.hpp"

namespace leasehold::detail {

template <availability A>
[[nodiscard]] std::optional<typename A::time_type> latest_fit(
    const A& profile, const typename A::capacity_type& amount, typename A::time_type duration,
    interval<typename A::time_type> window) {
  using T = typename A::time_type;
  const T first = std::max(window.begin, profile.origin());
  if (duration <= 0 || window.end < first || window.end - first < duration) return std::nullopt;
  std::optional<T> best;
  std::optional<T> run_begin;  // begin of the current run of blocks with enough free
  auto close_run = [&](T run_end) {
    if (!run_begin) return;
    const T end = std::min(run_end, window.end);
    const T begin = std::max(*run_begin, first);
    if (end > begin && end - begin >= duration) best = static_cast<T>(end - duration);
    run_begin.reset();
  };
  for (const auto& block : profile.free_blocks()) {
    if (block.span.begin >= window.end) break;
    if (fits(amount, block.free)) {
      if (!run_begin) run_begin = block.span.begin;
      if (block.span.end >= window.end) {
        close_run(block.span.end);
        break;
      }
    } else {
      close_run(block.span.begin);
    }
  }
  close_run(window.end);
  return best;
}

}  // namespace leasehold::detail
