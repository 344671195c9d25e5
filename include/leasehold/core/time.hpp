#pragma once

// Time in leasehold is a signed integral tick count whose unit is the user's (seconds in
// the examples). Intervals are half-open, [begin, end), so that back-to-back bookings
// share an end point without overlapping.

#include <concepts>
#include <cstdint>
#include <limits>
#include <ostream>

namespace leasehold {

// A time value is a signed integral type. Signed, because differences of times (waits,
// slack before a deadline) are natural to compute and may be negative; integral, because
// the availability backends compare and merge block boundaries exactly.
//   valid:   std::int64_t, int, long long
//   invalid: double (inexact boundaries), unsigned (differences wrap), bool
template <class T>
concept time_value = std::signed_integral<T> && !std::same_as<T, bool>;

// The largest representable time stands for "forever": the last free block of an
// unbounded backend ends there, and a window ending there has no deadline.
template <time_value T>
inline constexpr T forever = std::numeric_limits<T>::max();

// A half-open span of time [begin, end).
template <time_value T = std::int64_t>
struct interval {
  T begin{};
  T end{};

  [[nodiscard]] constexpr bool empty() const noexcept { return end <= begin; }
  [[nodiscard]] constexpr bool contains(T t) const noexcept { return begin <= t && t < end; }
  [[nodiscard]] constexpr bool overlaps(const interval& other) const noexcept {
    return begin < other.end && other.begin < end;
  }

  friend constexpr bool operator==(const interval&, const interval&) = default;

  friend std::ostream& operator<<(std::ostream& out, const interval& span) {
    return out << '[' << span.begin << ", " << span.end << ')';
  }
};

template <time_value T>
interval(T, T) -> interval<T>;

}  // namespace leasehold
