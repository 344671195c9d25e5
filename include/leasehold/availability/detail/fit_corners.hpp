#pragma once

// Fit corners for free_tree over resources<N, V>: for a stretch of free blocks, an upper bound
// on their free vectors that says "no block here can hold c" far more often than the
// element-wise maximum does.
//
// Why: a vector request c fits a block only if every component does, and the element-wise
// maximum of a subtree says only that each component fits somewhere in it, at different
// blocks. On a deep schedule nearly every subtree has some block with much of one component
// free and another with much of the next, so the maximum almost never rules a subtree out and
// a search visits most of the schedule. The corners split the blocks into classes by the order
// of their components (which is largest, which next, ...: N! classes) and keep the element-wise
// maximum of each class. Blocks of one class are large in the same components, so their
// maximum stays close to each of them; a subtree may hold c only if some class's corner holds c.
// Every block lies under its class's corner, so the test never rules out a block that fits.
//
// Two corners join by an element-wise maximum per class (O(N * N!) bytes, no branches), so a
// balanced tree keeps one per node. Components are stored in one byte each, rounded up to a
// step of the total (exact for totals up to 255): a corner only has to stay above its blocks,
// and rounding both sides up keeps every block that fits under a corner that passes.

#include <array>
#include <cstddef>
#include <cstdint>

#include "leasehold/core/capacity.hpp"

namespace leasehold::detail {

// A capacity without corners: scalars (whose maximum is exact already), dynamic_resources (its
// count is known only at run time) and vectors of more than four components (N! classes grow
// too fast to keep on every node).
template <class C>
struct fit_corners {
  static constexpr bool enabled = false;
  struct scale {
    explicit scale(const C&) noexcept {}
  };
  using quantised = std::array<std::uint8_t, 0>;
  friend constexpr bool operator==(const fit_corners&, const fit_corners&) = default;
};

template <std::size_t N, class V>
  requires(N >= 2 && N <= 4)
struct fit_corners<resources<N, V>> {
  static constexpr bool enabled = true;
  static constexpr std::size_t classes = N == 2 ? 2 : N == 3 ? 6 : 24;
  using quantised = std::array<std::uint8_t, N>;

  // The rounding of each component: a step of at least 1, and at least total / 255, so that
  // the total rounds up to a byte.
  class scale {
   public:
    explicit scale(const resources<N, V>& total) noexcept {
      for (std::size_t i = 0; i < N; ++i) {
        const V t = total.values[i];
        const V steps = static_cast<V>(t / 255 + (t % 255 != 0 ? 1 : 0));
        step_[i] = steps > 1 ? steps : V{1};
      }
    }
    // Each component divided by its step, rounded up; monotone, so x <= y component-wise gives
    // of(x) <= of(y). Values in [0, total] (no shift is pending while corners are kept).
    [[nodiscard]] quantised of(const resources<N, V>& value) const noexcept {
      quantised q{};
      for (std::size_t i = 0; i < N; ++i) {
        const V x = value.values[i];
        q[i] = x <= 0 ? std::uint8_t{0}
                      : static_cast<std::uint8_t>(x / step_[i] + (x % step_[i] != 0 ? 1 : 0));
      }
      return q;
    }

   private:
    std::array<V, N> step_{};
  };

  // Per component, per class: the largest rounded value of that component among the class's
  // blocks, 0 for a class without blocks (no request can fit there: each asks for more than 0
  // of some component).
  std::array<std::array<std::uint8_t, classes>, N> bound{};

  // The class of a free vector: the index of the order of its components, largest first (ties
  // to the lower index), among the N! orders (its Lehmer code).
  [[nodiscard]] static std::size_t class_of(const quantised& q) noexcept {
    std::array<std::size_t, N> rank{};  // rank[i]: the place of component i in the order
    for (std::size_t i = 0; i < N; ++i)
      for (std::size_t j = 0; j < N; ++j)
        rank[i] += static_cast<std::size_t>(q[j] > q[i] || (q[j] == q[i] && j < i));
    std::size_t code = 0;
    for (std::size_t i = 0; i + 1 < N; ++i) {
      std::size_t smaller_after = 0;
      for (std::size_t j = i + 1; j < N; ++j)
        smaller_after += static_cast<std::size_t>(rank[j] < rank[i]);
      code = code * (N - i) + smaller_after;
    }
    return code;
  }

  // The corner of one block.
  [[nodiscard]] static fit_corners block(const quantised& q) noexcept {
    fit_corners c;
    const std::size_t k = class_of(q);
    for (std::size_t i = 0; i < N; ++i) c.bound[i][k] = q[i];
    return c;
  }

  // Widens this corner to hold `other`'s blocks too.
  void join(const fit_corners& other) noexcept {
    for (std::size_t i = 0; i < N; ++i)
      for (std::size_t k = 0; k < classes; ++k)
        bound[i][k] = bound[i][k] >= other.bound[i][k] ? bound[i][k] : other.bound[i][k];
  }

  // False only if no block under this corner holds an amount that rounds to `need`.
  [[nodiscard]] bool may_fit(const quantised& need) const noexcept {
    std::array<std::uint8_t, classes> ok{};
    for (std::size_t k = 0; k < classes; ++k)
      ok[k] = static_cast<std::uint8_t>(bound[0][k] >= need[0]);
    for (std::size_t i = 1; i < N; ++i)
      for (std::size_t k = 0; k < classes; ++k)
        ok[k] = static_cast<std::uint8_t>(ok[k] & static_cast<std::uint8_t>(bound[i][k] >= need[i]));
    std::uint8_t any = 0;
    for (std::size_t k = 0; k < classes; ++k) any = static_cast<std::uint8_t>(any | ok[k]);
    return any != 0;
  }

  friend constexpr bool operator==(const fit_corners&, const fit_corners&) = default;
};

}  // namespace leasehold::detail
