#pragma once

/// \file
/// free_block: a maximal stretch of time with the same free capacity, what every availability
/// backend's free_blocks() yields, in time order.

#include <ostream>

#include "leasehold/core/capacity.hpp"
#include "leasehold/core/time.hpp"

namespace leasehold {

/// A maximal stretch of time with the same free capacity. Consecutive blocks of a
/// backend's free_blocks() touch (one's end is the next one's begin) and differ in `free`.
template <time_value T, capacity_value C>
struct free_block {
  interval<T> span;  ///< When: never empty.
  C free;            ///< How much is free throughout the span.

  /// Equal when span and free capacity are equal.
  friend constexpr bool operator==(const free_block&, const free_block&) = default;

  /// Writes `[begin, end) free amount`.
  friend std::ostream& operator<<(std::ostream& out, const free_block& block) {
    return out << block.span << " free " << block.free;
  }
};

}  // namespace leasehold
