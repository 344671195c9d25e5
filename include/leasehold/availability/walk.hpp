#pragma once

/// \file
/// Walking the profile from a time on, for every availability: leasehold::blocks_from(a, t),
/// leasehold::blocks_in(a, span) and leasehold::next_change(a, t) (their semantics are those of
/// walkable_availability, availability/concept.hpp). A backend that models
/// walkable_availability answers itself, with lazy views over its structure: free_list and
/// free_tree in O(log n) to start and O(1) (amortised, for free_tree) a block, reference from
/// its vector, slotted_ring over its slots (a block costs the slots it spans). Any other
/// (capacity_tree, a user's backend) is answered here from free_blocks(), a copy of the whole
/// profile per call: O(n), and the blocks come back in a vector that owns them.
///
/// Arguments are checked as free_at and min_free check theirs: a time before the origin, or a
/// reversed or empty span, is invalid_request; on a bounded backend (slotted_ring) time at or
/// past the horizon's end is out_of_horizon. The views a backend returns are invalidated by any
/// mutating call on it.

#include <algorithm>
#include <optional>
#include <vector>

#include "leasehold/availability/concept.hpp"
#include "leasehold/core/detail/checks.hpp"
#include "leasehold/core/error.hpp"
#include "leasehold/core/free_block.hpp"
#include "leasehold/core/time.hpp"

namespace leasehold {

namespace detail {

/// A bounded backend answers only inside its horizon: `t` must lie before its end (a span's
/// end may reach it).
template <availability A>
void check_walk_horizon(const A& profile, const char* operation, typename A::time_type t,
                        bool is_end) {
  if constexpr (bounded_availability<A>) {
    const auto horizon = profile.horizon();
    if (is_end ? t > horizon.end : t >= horizon.end)
      throw out_of_horizon(
          describe(operation, '(', t, "): beyond the horizon ", horizon, " of the profile"));
  }
}

/// free_blocks(), clipped to `clip`: the generic walk.
template <availability A>
[[nodiscard]] std::vector<free_block<typename A::time_type, typename A::capacity_type>>
blocks_clipped(const A& profile, interval<typename A::time_type> clip) {
  std::vector<free_block<typename A::time_type, typename A::capacity_type>> out;
  if (!(clip.begin < clip.end)) return out;
  for (const auto& block : profile.free_blocks()) {
    if (block.span.end <= clip.begin) continue;
    if (block.span.begin >= clip.end) break;
    out.push_back(
        {{std::max(block.span.begin, clip.begin), std::min(block.span.end, clip.end)}, block.free});
  }
  return out;
}

}  // namespace detail

/// The maximal free blocks from t on, in time order, the first beginning at t.
template <availability A>
[[nodiscard]] auto blocks_from(const A& profile, typename A::time_type t) {
  if constexpr (walkable_availability<A>) {
    return profile.blocks_from(t);
  } else {
    detail::check_time("blocks_from", t, profile.origin());
    detail::check_walk_horizon(profile, "blocks_from", t, false);
    return detail::blocks_clipped(profile, {t, forever<typename A::time_type>});
  }
}

/// The maximal free blocks that meet span, in time order, clipped to it.
template <availability A>
[[nodiscard]] auto blocks_in(const A& profile, interval<typename A::time_type> span) {
  if constexpr (walkable_availability<A>) {
    return profile.blocks_in(span);
  } else {
    detail::check_span("blocks_in", span, profile.origin());
    detail::check_walk_horizon(profile, "blocks_in", span.end, true);
    return detail::blocks_clipped(profile, span);
  }
}

/// The first time after t at which the free capacity differs from free_at(t), or nullopt when
/// it never does (on a bounded backend: before the horizon's end).
template <availability A>
[[nodiscard]] std::optional<typename A::time_type> next_change(const A& profile,
                                                               typename A::time_type t) {
  using T = typename A::time_type;
  if constexpr (walkable_availability<A>) {
    return profile.next_change(t);
  } else {
    detail::check_time("next_change", t, profile.origin());
    detail::check_walk_horizon(profile, "next_change", t, false);
    const auto from = detail::blocks_clipped(profile, {t, forever<T>});
    if (from.empty()) return std::nullopt;
    const T end = from.front().span.end;
    if (end == forever<T>) return std::nullopt;
    if constexpr (bounded_availability<A>) {
      if (end == profile.horizon().end) return std::nullopt;
    }
    return end;
  }
}

}  // namespace leasehold
