#pragma once

/// \file
/// request: what earliest_fit looks for, the job j of Schneider & Linnert §2 with its amount
/// c_j, duration d_j and booking interval [t_book-start, t_book-end).

#include <cstdint>
#include <limits>
#include <ostream>

#include "leasehold/core/capacity.hpp"
#include "leasehold/core/time.hpp"

namespace leasehold {

/// Book `amount` for `duration` starting at some s with window.begin <= s and
/// s + duration <= window.end. The default window is "from the profile's origin to
/// forever": its begin is the smallest T, which earliest_fit clamps to origin().
/// earliest_fit rejects (invalid_request) an amount that is not positive, a duration that is
/// not positive and a window shorter than the duration.
template <time_value T = std::int64_t, capacity_value C = std::int64_t>
struct request {
  C amount{};    ///< How much capacity, throughout the booking.
  T duration{};  ///< How long, in ticks.
  /// Where the booking must lie: its start s satisfies window.begin <= s and
  /// s + duration <= window.end. Defaults to all time.
  interval<T> window{std::numeric_limits<T>::min(), std::numeric_limits<T>::max()};

  /// Equal when amount, duration and window are equal.
  friend constexpr bool operator==(const request&, const request&) = default;

  /// Writes `request{amount A, duration D, window [b, e)}`.
  friend std::ostream& operator<<(std::ostream& out, const request& r) {
    return out << "request{amount " << r.amount << ", duration " << r.duration << ", window "
               << r.window << '}';
  }
};

}  // namespace leasehold
