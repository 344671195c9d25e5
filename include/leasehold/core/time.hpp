#pragma once

/// \file
/// Time: the time_value concept, the `forever` sentinel and half-open intervals [begin, end).
///
/// Time in leasehold is a signed integral tick count whose unit is the user's (seconds in
/// the examples). Intervals are half-open, [begin, end), so that back-to-back bookings
/// share an end point without overlapping.

#include <concepts>
#include <cstdint>
#include <limits>
#include <ostream>

namespace leasehold {

/// A time value is a signed integral type. Signed, because differences of times (waits,
/// slack before a deadline) are natural to compute and may be negative; integral, because
/// the availability backends compare and merge block boundaries exactly.
///   valid:   std::int64_t, int, long long
///   invalid: double (inexact boundaries), unsigned (differences wrap), bool
template <class T>
concept time_value = std::signed_integral<T> && !std::same_as<T, bool>;

/// The largest representable time stands for "forever": the last free block of an
/// unbounded backend ends there, and a window ending there has no deadline.
template <time_value T>
inline constexpr T forever = std::numeric_limits<T>::max();

/// A half-open span of time [begin, end): `begin` belongs to it, `end` does not. An
/// aggregate, so `{0, 3600}` is the first hour. Nothing checks begin <= end here; the calls
/// that take an interval reject an empty one as an invalid_request.
template <time_value T = std::int64_t>
struct interval {
  T begin{};  ///< The first instant of the span.
  T end{};    ///< The first instant after the span.

  /// True when the span holds no instant (end <= begin).
  [[nodiscard]] constexpr bool empty() const noexcept { return end <= begin; }
  /// True when begin <= t < end.
  [[nodiscard]] constexpr bool contains(T t) const noexcept { return begin <= t && t < end; }
  /// True when the two spans share at least one instant; spans that only touch
  /// ([0, 10) and [10, 20)) do not overlap.
  [[nodiscard]] constexpr bool overlaps(const interval& other) const noexcept {
    return begin < other.end && other.begin < end;
  }

  /// Equal when both ends are equal (two empty spans at different places differ).
  friend constexpr bool operator==(const interval&, const interval&) = default;

  /// Writes `[begin, end)`, the form error messages use.
  friend std::ostream& operator<<(std::ostream& out, const interval& span) {
    return out << '[' << span.begin << ", " << span.end << ')';
  }
};

/// `interval{b, e}` takes its time type from its ends.
template <time_value T>
interval(T, T) -> interval<T>;

}  // namespace leasehold
