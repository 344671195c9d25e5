#pragma once

// A request to book capacity: the job j of Schneider & Linnert §2 with its amount c_j,
// duration d_j and booking interval [t_book-start, t_book-end).

#include <cstdint>
#include <limits>
#include <ostream>

#include "leasehold/core/capacity.hpp"
#include "leasehold/core/time.hpp"

namespace leasehold {

// Book `amount` for `duration` starting at some s with window.begin <= s and
// s + duration <= window.end. The default window is "from the profile's origin to
// forever": its begin is the smallest T, which earliest_fit clamps to origin().
template <time_value T = std::int64_t, capacity_value C = std::int64_t>
struct request {
  C amount{};
  T duration{};
  interval<T> window{std::numeric_limits<T>::min(), std::numeric_limits<T>::max()};

  friend constexpr bool operator==(const request&, const request&) = default;

  friend std::ostream& operator<<(std::ostream& out, const request& r) {
    return out << "request{amount " << r.amount << ", duration " << r.duration << ", window "
               << r.window << '}';
  }
};

}  // namespace leasehold
