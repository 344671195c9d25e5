#pragma once

// A maximal stretch of time with the same free capacity: what every availability
// backend's free_blocks() yields, in time order.

#include <ostream>

#include "leasehold/core/capacity.hpp"
#include "leasehold/core/time.hpp"

namespace leasehold {

template <time_value T, capacity_value C>
struct free_block {
  interval<T> span;
  C free;

  friend constexpr bool operator==(const free_block&, const free_block&) = default;

  friend std::ostream& operator<<(std::ostream& out, const free_block& block) {
    return out << block.span << " free " << block.free;
  }
};

}  // namespace leasehold
