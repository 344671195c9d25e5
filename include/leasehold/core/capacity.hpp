#pragma once

/// \file
/// Capacity: the capacity_value concept, the fixed resource vector resources<N, V>, and the
/// free functions every kind of capacity shares (fits, elementwise_min/max, is_positive,
/// is_zero, is_nonnegative).
///
/// Capacity is either one integral quantity (processors, bandwidth units) or a vector of them:
/// resources<N, V>, fixed at compile time (CPU, memory MB, disk MB, network MB/s as in Haizea),
/// or dynamic_resources<V, MaxN>, whose count is chosen at run time (core/dynamic_resources.hpp).
/// The free functions fits, elementwise_min, elementwise_max, is_positive and is_zero are
/// overloaded for all, so that generic code in backends and policies never asks which one it
/// holds.

#include <algorithm>
#include <array>
#include <concepts>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <ostream>
#include <type_traits>

#include "leasehold/core/dynamic_resources.hpp"

namespace leasehold {

namespace detail {
template <class C>
struct is_dynamic_resources : std::false_type {};
template <class V, std::size_t MaxN>
struct is_dynamic_resources<dynamic_resources<V, MaxN>> : std::true_type {};

// a op b component by component for a resources<N, V> or a dynamic_resources<V, MaxN>, or
// a op b for a scalar: the one loop behind +=, -=, elementwise_min and elementwise_max.
template <class C, class Op>
[[nodiscard]] constexpr C componentwise(const C& a, const C& b, Op op) noexcept {
  if constexpr (std::integral<C>) {
    return static_cast<C>(op(a, b));
  } else if constexpr (is_dynamic_resources<C>::value) {
    return C::combine(a, b, op);
  } else {
    C result;
    for (std::size_t i = 0; i < C::size(); ++i)
      result.values[i] = static_cast<typename C::value_type>(op(a.values[i], b.values[i]));
    return result;
  }
}
}  // namespace detail

/// A fixed vector of N resource amounts with element-wise arithmetic. It is an aggregate, so
/// resources<4>{1, 1024, 20480, 100} reads as the list of its components. The arithmetic does
/// not check for overflow or negative results; the backends check amounts before they use them.
template <std::size_t N, class V = std::int64_t>
struct resources {
  static_assert(N > 0, "resources<N, V> needs at least one component");
  static_assert(std::integral<V> && !std::same_as<V, bool>,
                "resources<N, V> needs an integral component type V (not bool)");

  using value_type = V;  ///< The type of one component.

  std::array<V, N> values{};  ///< The components, in the order the user gave them.

  /// N, the number of components (a constant expression).
  [[nodiscard]] static constexpr std::size_t size() noexcept { return N; }
  /// Component i; i < N is not checked.
  [[nodiscard]] constexpr V& operator[](std::size_t i) noexcept { return values[i]; }
  /// Component i; i < N is not checked.
  [[nodiscard]] constexpr const V& operator[](std::size_t i) const noexcept { return values[i]; }
  /// Iterator to the first component.
  [[nodiscard]] constexpr auto begin() noexcept { return values.begin(); }
  /// Iterator past the last component.
  [[nodiscard]] constexpr auto end() noexcept { return values.end(); }
  /// Iterator to the first component.
  [[nodiscard]] constexpr auto begin() const noexcept { return values.begin(); }
  /// Iterator past the last component.
  [[nodiscard]] constexpr auto end() const noexcept { return values.end(); }

  /// Adds `other` component by component.
  constexpr resources& operator+=(const resources& other) noexcept {
    return *this = detail::componentwise(*this, other, std::plus<>{});
  }
  /// Subtracts `other` component by component (the result may be negative).
  constexpr resources& operator-=(const resources& other) noexcept {
    return *this = detail::componentwise(*this, other, std::minus<>{});
  }
  /// The component-wise sum.
  [[nodiscard]] friend constexpr resources operator+(resources a, const resources& b) noexcept {
    return a += b;
  }
  /// The component-wise difference.
  [[nodiscard]] friend constexpr resources operator-(resources a, const resources& b) noexcept {
    return a -= b;
  }
  /// Equal when every component is equal.
  friend constexpr bool operator==(const resources&, const resources&) = default;

  /// Writes `{c0, c1, ...}` (8-bit components as numbers, not characters).
  friend std::ostream& operator<<(std::ostream& out, const resources& r) {
    out << '{';
    for (std::size_t i = 0; i < N; ++i) out << (i == 0 ? "" : ", ") << +r.values[i];
    return out << '}';
  }
};

namespace detail {
template <class C>
struct is_resources : std::false_type {};
template <std::size_t N, class V>
struct is_resources<resources<N, V>> : std::true_type {};
}  // namespace detail

/// One integral quantity. bool is excluded: a yes/no resource is capacity 1.
template <class C>
concept scalar_capacity = std::integral<C> && !std::same_as<C, bool>;

/// A resources<N, V> vector, or a dynamic_resources<V, MaxN> whose count is chosen at run time.
/// Generic code that needs the count at compile time (C::size() in a constant expression)
/// asks for fixed_vector_capacity instead.
template <class C>
concept vector_capacity = detail::is_resources<C>::value || detail::is_dynamic_resources<C>::value;

/// A vector whose component count is part of its type: resources<N, V>.
template <class C>
concept fixed_vector_capacity = detail::is_resources<C>::value;

/// What an availability profile counts. Requirements and why:
///  - a scalar integral, a resources<N, V> or a dynamic_resources<V, MaxN>: free capacity must
///    be compared and merged exactly, so floating point is out;
///  - C{} is "nothing", and +, -, == and the free functions below exist for it (a
///    dynamic_resources() has no components and acts as zero of any count for that reason).
///
///   valid:   int, std::int64_t, resources<4, std::int64_t>, dynamic_resources<std::int64_t, 8>
///   invalid: double, bool, std::array<int, 4> (no element-wise operators)
template <class C>
concept capacity_value = scalar_capacity<C> || vector_capacity<C>;

/// fits(need, have): `need` is at most `have` (a scalar).
template <scalar_capacity C>
[[nodiscard]] constexpr bool fits(C need, C have) noexcept {
  return need <= have;
}
/// fits(need, have): every component of `need` is at most the same component of `have`.
template <std::size_t N, class V>
[[nodiscard]] constexpr bool fits(const resources<N, V>& need,
                                  const resources<N, V>& have) noexcept {
  for (std::size_t i = 0; i < N; ++i)
    if (need.values[i] > have.values[i]) return false;
  return true;
}

/// The smaller of the two in each component (for scalars, std::min): the capacity free
/// throughout two stretches of time.
template <capacity_value C>
[[nodiscard]] constexpr C elementwise_min(const C& a, const C& b) noexcept {
  return detail::componentwise(a, b, [](auto x, auto y) { return std::min(x, y); });
}

/// The larger of the two in each component (for scalars, std::max).
template <capacity_value C>
[[nodiscard]] constexpr C elementwise_max(const C& a, const C& b) noexcept {
  return detail::componentwise(a, b, [](auto x, auto y) { return std::max(x, y); });
}

/// A usable amount: greater than zero. Requests and reservations must pass it.
template <scalar_capacity C>
[[nodiscard]] constexpr bool is_positive(C amount) noexcept {
  return amount > C{};
}
/// A usable amount: nothing negative and something positive. Components may be zero (a VM
/// that needs no disk) but not all of them.
template <std::size_t N, class V>
[[nodiscard]] constexpr bool is_positive(const resources<N, V>& amount) noexcept {
  bool any_positive = false;
  for (const V& v : amount.values) {
    if (v < V{}) return false;
    any_positive = any_positive || v > V{};
  }
  return any_positive;
}

/// True when the amount equals C{}, nothing in every component.
template <capacity_value C>
[[nodiscard]] constexpr bool is_zero(const C& amount) noexcept {
  return amount == C{};
}

/// The amount is at least zero.
template <scalar_capacity C>
[[nodiscard]] constexpr bool is_nonnegative(C amount) noexcept {
  return amount >= C{};
}
/// Every component is at least zero.
template <std::size_t N, class V>
[[nodiscard]] constexpr bool is_nonnegative(const resources<N, V>& amount) noexcept {
  for (const V& v : amount.values)
    if (v < V{}) return false;
  return true;
}

}  // namespace leasehold
