#pragma once

// Overflow-checked arithmetic on time values. A request whose begin + duration does not
// fit in T must be rejected as invalid, never wrap around into a valid-looking answer.

#include <optional>

#include "leasehold/core/time.hpp"

namespace leasehold::detail {

template <time_value T>
[[nodiscard]] constexpr std::optional<T> checked_add(T a, T b) noexcept {
  T sum{};
  if (__builtin_add_overflow(a, b, &sum)) return std::nullopt;
  return sum;
}

template <time_value T>
[[nodiscard]] constexpr std::optional<T> checked_sub(T a, T b) noexcept {
  T difference{};
  if (__builtin_sub_overflow(a, b, &difference)) return std::nullopt;
  return difference;
}

}  // namespace leasehold::detail
