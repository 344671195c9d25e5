#pragma once

/// \file
/// dynamic_resources<V, MaxN>: a resource vector whose number of components is chosen at run
/// time, for schedulers that learn their resource types (cores, memory, GPUs, licences) from
/// configuration. It is what resources<N, V> is with N known only when the value is built: up to
/// MaxN components held inline, so a value is trivially copyable and never allocates (a
/// backend stores one per block and copies them around). The names of the components live
/// apart, in resource_names (core/resource_names.hpp), for the same reason.
///
/// Why the components past size() are kept at zero: every operator can then run over all MaxN
/// components, a loop of fixed length the compiler unrolls, instead of a loop of run-time
/// length, and == compares whole arrays. Nothing but the constructors and the live components
/// (operator[], begin, end) writes them, so the invariant holds by construction.
///
/// Why a value of no components is "nothing": generic code (the backends, the slot table) spells
/// zero as C{}, and for a vector whose count is chosen at run time C{} cannot know the count.
/// dynamic_resources() therefore has no components and acts as zero of any count in +, -,
/// elementwise_min, elementwise_max and fits (its components are all zero): C{} + x is x.
/// == still compares the count, so C{} == dynamic_resources(3) is false; is_zero is true for
/// both. Mixing two values of different non-zero counts is a programming error: the operators
/// assert it, and the argument checks every backend runs on user input (check_amount) throw
/// invalid_request naming both counts before anything changes.
///
/// Beware the braces: dynamic_resources<>{4} is one component of 4 (the list), and
/// dynamic_resources<>(4) is four components of 0 (the count), as with std::vector.

#include <algorithm>
#include <array>
#include <cassert>
#include <concepts>
#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <ostream>
#include <span>
#include <type_traits>

#include "leasehold/core/detail/describe.hpp"
#include "leasehold/core/error.hpp"

namespace leasehold {

/// A resource vector of 1 to MaxN components whose count is chosen at run time, held inline
/// (trivially copyable, never allocates); a value of no components is "nothing", zero of any
/// count. See the file's description for the rules of mixing counts.
template <class V = std::int64_t, std::size_t MaxN = 8>
class dynamic_resources {
  static_assert(std::integral<V> && !std::same_as<V, bool>,
                "dynamic_resources<V, MaxN> needs an integral component type V (not bool)");
  static_assert(MaxN > 0 && MaxN <= 255,
                "dynamic_resources<V, MaxN> holds between 1 and 255 components (MaxN)");

  /// The count is as wide as a component: it costs no more room than a byte would (the value is
  /// padded to V's alignment anyway), and it is written whole, never as one byte of a word that
  /// a copy then reads back (a store-forwarding stall on every copy of a freshly summed value).
  using count_type = std::make_unsigned_t<V>;

 public:
  using value_type = V;                          ///< The type of one component.
  static constexpr std::size_t max_size = MaxN;  ///< The most components a value can hold.

  /// No components: "nothing", zero of any count (see the top of this file).
  constexpr dynamic_resources() noexcept = default;

  /// `count` components of zero; throws invalid_request unless 1 <= count <= MaxN.
  explicit constexpr dynamic_resources(std::size_t count) : count_(checked_count(count)) {}

  /// The listed components, in order; throws invalid_request for none or more than MaxN.
  constexpr dynamic_resources(std::initializer_list<V> components)
      : dynamic_resources(components.size()) {
    std::ranges::copy(components, values_.begin());
  }

  /// The components of a span (a configuration read at run time); same limits.
  [[nodiscard]] static constexpr dynamic_resources from(std::span<const V> components) {
    dynamic_resources result(components.size());
    std::ranges::copy(components, result.values_.begin());
    return result;
  }

  /// The number of components (0 for "nothing").
  [[nodiscard]] constexpr std::size_t size() const noexcept { return count_; }
  /// True for "nothing", the value of no components.
  [[nodiscard]] constexpr bool empty() const noexcept { return count_ == 0; }

  /// Component i; i < size() is asserted, not checked in release builds.
  [[nodiscard]] constexpr V& operator[](std::size_t i) noexcept {
    assert(i < count_ && "dynamic_resources: component index past size()");
    return values_[i];
  }
  /// Component i; i < size() is asserted, not checked in release builds.
  [[nodiscard]] constexpr const V& operator[](std::size_t i) const noexcept {
    assert(i < count_ && "dynamic_resources: component index past size()");
    return values_[i];
  }

  /// Component i for any i < max_size: zero past size(). For code that loops over all MaxN
  /// (detail::capacity_components) without a branch per component.
  [[nodiscard]] constexpr V component(std::size_t i) const noexcept {
    assert(i < MaxN && "dynamic_resources: component index past max_size");
    return values_[i];
  }

  /// The live components only.
  [[nodiscard]] constexpr V* begin() noexcept { return values_.data(); }
  /// Past the last live component.
  [[nodiscard]] constexpr V* end() noexcept { return values_.data() + count_; }
  /// The first live component.
  [[nodiscard]] constexpr const V* begin() const noexcept { return values_.data(); }
  /// Past the last live component.
  [[nodiscard]] constexpr const V* end() const noexcept { return values_.data() + count_; }

  /// Adds `other` component by component; the counts must be compatible() (asserted). O(MaxN).
  constexpr dynamic_resources& operator+=(const dynamic_resources& other) noexcept {
    assert(compatible(*this, other) && "dynamic_resources: + of different component counts");
    for (std::size_t i = 0; i < MaxN; ++i)
      values_[i] = static_cast<V>(values_[i] + other.values_[i]);
    count_ = std::max(count_, other.count_);
    return *this;
  }
  /// Subtracts `other` component by component; the counts must be compatible() (asserted).
  constexpr dynamic_resources& operator-=(const dynamic_resources& other) noexcept {
    assert(compatible(*this, other) && "dynamic_resources: - of different component counts");
    for (std::size_t i = 0; i < MaxN; ++i)
      values_[i] = static_cast<V>(values_[i] - other.values_[i]);
    count_ = std::max(count_, other.count_);
    return *this;
  }
  /// The component-wise sum (see operator+=).
  [[nodiscard]] friend constexpr dynamic_resources operator+(dynamic_resources a,
                                                             const dynamic_resources& b) noexcept {
    return a += b;
  }
  /// The component-wise difference (see operator-=).
  [[nodiscard]] friend constexpr dynamic_resources operator-(dynamic_resources a,
                                                             const dynamic_resources& b) noexcept {
    return a -= b;
  }

  /// Same count and same live components (the others are zero in both).
  friend constexpr bool operator==(const dynamic_resources&, const dynamic_resources&) = default;

  /// Writes the live components as `{c0, c1, ...}`; "nothing" as `{}`.
  friend std::ostream& operator<<(std::ostream& out, const dynamic_resources& r) {
    out << '{';
    for (std::size_t i = 0; i < r.count_; ++i) out << (i == 0 ? "" : ", ") << +r.values_[i];
    return out << '}';
  }

  /// Whether two values may meet in an operator: the same count, or one of them "nothing".
  [[nodiscard]] static constexpr bool compatible(const dynamic_resources& a,
                                                 const dynamic_resources& b) noexcept {
    return a.count_ == b.count_ || a.count_ == 0 || b.count_ == 0;
  }

  /// op over every component pair, for detail::componentwise (capacity.hpp). op(0, 0) must be 0,
  /// which holds for min, max, + and -: the components past the count stay zero.
  template <class Op>
  [[nodiscard]] static constexpr dynamic_resources combine(const dynamic_resources& a,
                                                           const dynamic_resources& b,
                                                           Op op) noexcept {
    assert(compatible(a, b) && "dynamic_resources: components of different counts combined");
    dynamic_resources result;
    for (std::size_t i = 0; i < MaxN; ++i)
      result.values_[i] = static_cast<V>(op(a.values_[i], b.values_[i]));
    result.count_ = std::max(a.count_, b.count_);
    return result;
  }

  /// Whether pred(a[i], b[i]) holds for every i < MaxN (the components past the counts are
  /// zero on both sides), for fits. Branch-free, so that the fixed-length loop vectorises.
  template <class Pred>
  [[nodiscard]] static constexpr bool every(const dynamic_resources& a, const dynamic_resources& b,
                                            Pred pred) noexcept {
    bool all = true;
    for (std::size_t i = 0; i < MaxN; ++i) all &= pred(a.values_[i], b.values_[i]);
    return all;
  }

 private:
  [[nodiscard]] static constexpr count_type checked_count(std::size_t count) {
    if (count == 0 || count > MaxN)
      throw invalid_request(detail::describe(
          "dynamic_resources: ", count, " components requested, which is not in [1, ", MaxN, "]"));
    return static_cast<count_type>(count);
  }

  std::array<V, MaxN> values_{};  ///< values_[i] == 0 for i >= count_
  count_type count_ = 0;
};

/// Every component of need at most the same component of have.
template <class V, std::size_t MaxN>
[[nodiscard]] constexpr bool fits(const dynamic_resources<V, MaxN>& need,
                                  const dynamic_resources<V, MaxN>& have) noexcept {
  assert((dynamic_resources<V, MaxN>::compatible(need, have)) &&
         "dynamic_resources: fits of different component counts");
  return dynamic_resources<V, MaxN>::every(need, have, [](V n, V h) { return n <= h; });
}

/// A usable amount: components present, none negative, one of them positive.
template <class V, std::size_t MaxN>
[[nodiscard]] constexpr bool is_positive(const dynamic_resources<V, MaxN>& amount) noexcept {
  bool any_positive = false;
  for (const V& v : amount) {
    if (v < V{}) return false;
    any_positive = any_positive || v > V{};
  }
  return any_positive;
}

/// Every live component is at least zero ("nothing" included).
template <class V, std::size_t MaxN>
[[nodiscard]] constexpr bool is_nonnegative(const dynamic_resources<V, MaxN>& amount) noexcept {
  return std::ranges::all_of(amount, [](V v) { return v >= V{}; });
}

/// Every live component zero, whatever the count ("nothing" included).
template <class V, std::size_t MaxN>
[[nodiscard]] constexpr bool is_zero(const dynamic_resources<V, MaxN>& amount) noexcept {
  return std::ranges::all_of(amount, [](V v) { return v == V{}; });
}

}  // namespace leasehold

// The capacity concepts and the generic free functions (elementwise_min, ...) come with the
// type, wherever a user starts including. capacity.hpp includes this header first, so this
// include is the one that is skipped when capacity.hpp is read first.
#include "leasehold/core/capacity.hpp"
