#pragma once

/// \file
/// leasehold::latest_fit(profile, r): the mirror of earliest_fit for any availability, the
/// LATEST start s with window.begin <= s, s + duration <= window.end and r.amount free over
/// [s, s + duration), or nullopt. Image transfers are placed "as close as possible to the
/// deadline" (Sotomayor, Keahey & Foster, Haizea §3.2; Overhead Matters' EDF as late as
/// possible), which is this question. A backend that models latest_fit_availability answers
/// it itself: free_list walks back from the window's end, capacity_tree searches its hierarchy
/// in reverse time order, free_tree walks back passing whole subtrees that all fit or all do
/// not, slotted_ring walks back over its slots (slot-aligned, as its earliest_fit), reference
/// tries every candidate. Any other is answered here from free_blocks(), up to the window's
/// end: O(blocks before it).
///
/// Malformed requests throw invalid_request as earliest_fit does; the window's begin is clamped
/// to the origin.

#include <algorithm>
#include <optional>

#include "leasehold/availability/concept.hpp"
#include "leasehold/core/capacity.hpp"
#include "leasehold/core/detail/checks.hpp"
#include "leasehold/core/request.hpp"
#include "leasehold/core/time.hpp"

namespace leasehold {

namespace detail {

/// The latest fit found by walking free_blocks() in time order: the last run of blocks with
/// enough free that reaches `duration` inside [starts.first, starts.last + duration).
template <availability A>
[[nodiscard]] std::optional<typename A::time_type> latest_fit_from_blocks(
    const A& profile, const request<typename A::time_type, typename A::capacity_type>& r) {
  using T = typename A::time_type;
  const auto starts = check_request(r, profile.total(), profile.origin(), "latest_fit");
  if (starts.empty()) return std::nullopt;
  const T first = starts.first;
  const T last_end = static_cast<T>(starts.last + r.duration);  // = window.end
  std::optional<T> best;
  std::optional<T> run_begin;  // begin of the current run of blocks with enough free
  const auto close_run = [&](T run_end) {
    if (!run_begin) return;
    const T end = std::min(run_end, last_end);
    const T begin = std::max(*run_begin, first);
    // begin + d cannot overflow while begin <= starts.last (starts.last + d is the window end).
    if (begin <= starts.last && begin + r.duration <= end) best = static_cast<T>(end - r.duration);
    run_begin.reset();
  };
  for (const auto& block : profile.free_blocks()) {
    if (block.span.begin >= last_end) break;
    if (fits(r.amount, block.free)) {
      if (!run_begin) run_begin = block.span.begin;
    } else {
      close_run(block.span.begin);
    }
  }
  close_run(last_end);
  return best;
}

}  // namespace detail

/// The latest start of r in its window on any availability profile, or nullopt when none fits:
/// the profile's own latest_fit when it has one (latest_fit_availability), else one walk over
/// its free blocks. Throws invalid_request for a malformed request, as earliest_fit does.
template <availability A>
[[nodiscard]] std::optional<typename A::time_type> latest_fit(
    const A& profile, const request<typename A::time_type, typename A::capacity_type>& r) {
  if constexpr (latest_fit_availability<A>)
    return profile.latest_fit(r);
  else
    return detail::latest_fit_from_blocks(profile, r);
}

}  // namespace leasehold
