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

#include <cstddef>
#include <type_traits>

#include "leasehold/core/capacity.hpp"
#include "leasehold/core/time.hpp"

namespace leasehold::detail {

// Scalar capacities have one component; resources<N, V> has N.
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

// How many thresholds free_tree keeps per capacity component by default: powers of two up to
// the total, eight of them for a scalar (1/128 .. 1 of the total); four per component for a
// vector, where every node pays for N components.
template <capacity_value C>
inline constexpr std::size_t default_run_levels = vector_capacity<C> ? 4 : 8;

}  // namespace leasehold::detail
