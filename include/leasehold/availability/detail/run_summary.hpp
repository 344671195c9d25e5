#pragma once

// Run summaries for free_tree: for one capacity threshold, what a stretch of consecutive free
// blocks says about its maximal runs of blocks whose free capacity reaches the threshold.
// Two summaries of neighbouring stretches join in O(1), which is what lets a balanced tree
// keep one per subtree and lets earliest_fit skip a whole subtree whose runs are all too
// short (free_tree.hpp explains the search).
//
// Only begins are stored: a stretch never knows where its last block ends (that is the next
// stretch's first begin), so a summary speaks about its runs through the times where they
// start and stop, and lengths are measured only for runs closed on both sides.

#include <cmath>
#include <cstddef>
#include <type_traits>

#include "leasehold/core/capacity.hpp"
#include "leasehold/core/time.hpp"

namespace leasehold::detail {

// Scalar capacities have one component; resources<N, V> has N; dynamic_resources<V, MaxN> is
// seen as all MaxN (the ones past its count are zero in every value derived from the total, so
// a per-component loop over them changes nothing and a threshold there is never reached).
template <class C>
struct capacity_components {
  using value_type = C;
  static constexpr std::size_t count = 1;
  [[nodiscard]] static constexpr C get(const C& c, std::size_t) noexcept { return c; }
};
template <std::size_t N, class V>
struct capacity_components<resources<N, V>> {
  using value_type = V;
  static constexpr std::size_t count = N;
  [[nodiscard]] static constexpr V get(const resources<N, V>& c, std::size_t i) noexcept {
    return c.values[i];
  }
};

template <class V, std::size_t MaxN>
struct capacity_components<dynamic_resources<V, MaxN>> {
  using value_type = V;
  static constexpr std::size_t count = MaxN;
  [[nodiscard]] static constexpr V get(const dynamic_resources<V, MaxN>& c,
                                       std::size_t i) noexcept {
    return c.component(i);
  }
};

template <time_value T>
struct run_summary {
  using length_type = std::make_unsigned_t<T>;  // begins may lie on both sides of zero

  // Stands for "no such time": a block never begins at forever, so it cannot be confused.
  static constexpr T none = forever<T>;

  T lead;            // begin of the first block below the threshold; none if there is none
  T trail;           // begin of the run that reaches the stretch's end; none if the last
                     // block is below the threshold
  length_type best;  // longest run with a block below the threshold on both sides, 0 if none

  [[nodiscard]] constexpr bool full() const noexcept { return lead == none; }

  // One block that begins at `begin`, at or above the threshold or not.
  [[nodiscard]] static constexpr run_summary block(T begin, bool reaches) noexcept {
    return reaches ? run_summary{none, begin, 0} : run_summary{begin, none, 0};
  }

  // The summary of `left` followed by `right`, where right's first block begins at
  // `right_first`. The run that straddles the seam starts at left's trail (or at the seam)
  // and stops at right's lead; it counts towards `best` only if both sides close it.
  [[nodiscard]] static constexpr run_summary join(const run_summary& left, const run_summary& right,
                                                  T right_first) noexcept {
    const T seam_run = left.trail != none ? left.trail : right_first;
    run_summary joined{left.full() ? right.lead : left.lead, right.full() ? seam_run : right.trail,
                       left.best > right.best ? left.best : right.best};
    if (!left.full() && !right.full()) {
      const auto straddling = static_cast<length_type>(static_cast<length_type>(right.lead) -
                                                       static_cast<length_type>(seam_run));
      if (straddling > joined.best) joined.best = straddling;
    }
    return joined;
  }

  friend constexpr bool operator==(const run_summary&, const run_summary&) = default;
};

// The thresholds of one capacity component: `levels` values in geometric progression from
// the component's total down to 1/128 of it (or, with fewer than 8 levels, halving from the
// total), never below 1. Any thresholds give correct answers; closer ones prune better.
template <class V>
[[nodiscard]] V run_threshold(V total, std::size_t level, std::size_t levels) noexcept {
  const std::size_t steps_down = levels - 1 - level;
  const double octaves_per_step = levels >= 8 ? 7.0 / static_cast<double>(levels - 1) : 1.0;
  const double value = std::floor(static_cast<double>(total) *
                                  std::exp2(-octaves_per_step * static_cast<double>(steps_down)));
  return value < 1.0 ? V{1} : value >= static_cast<double>(total) ? total : static_cast<V>(value);
}

// How many thresholds free_tree keeps per capacity component by default. For a scalar, 32: a
// factor of about 1.17 apart from the total down to 1/128 of it (on the append benchmark 16
// leave so many long-enough runs that fail at the request's own amount that the cost grows
// with the depth of the schedule; see docs/performance.md). For a vector, none: pruning on
// one component at a time measured hardly faster than none, since runs long enough in one
// component mostly fail in another (free_tree<T, C, 4> keeps it); free_tree prunes
// resources<N, V> with its fit corners instead (detail/fit_corners.hpp).
template <capacity_value C>
inline constexpr std::size_t default_run_levels = vector_capacity<C> ? 0 : 32;

}  // namespace leasehold::detail
