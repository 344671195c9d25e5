#pragma once

// Fit corners for free_tree over resources<N, V>: what a stretch of free blocks says about
// where a vector request (c, d) can start in it, joined in O(1) per node so that a balanced
// tree keeps one on every node and earliest_fit passes whole subtrees.
//
// Why: a vector request c fits a block only if every component does, and the element-wise
// maximum of a subtree says only that each component fits somewhere in it, at different
// blocks, so on a deep schedule it almost never rules a subtree out. And where blocks that fit
// c do lie, on the append workload nearly all of them, before the answer, are single blocks
// shorter than d between blocks that do not fit: a summary that only says "some block here
// fits c" still has the search visit each of them, and their number grows with the depth of
// the schedule. So the summary says three things, each as a set of corners:
//
// - `singles`: for the blocks whose length the stretch knows (all but its last), for each
//   length band, an upper bound on the free vectors of the blocks in that band or above. A run
//   of length d made of one block needs a block of length at least d that fits c, which lies
//   in a band at or above d's.
// - `pairs`: for every two neighbouring blocks of the stretch, an upper bound on their
//   element-wise minimum. A run made of two blocks or more holds such a pair that fits c.
// - the first and the last block (free vector, rounded; where the first ends, where the last
//   begins): a run can cross into or out of the stretch only through them.
//
// So where neither singles (at d's band) nor pairs may hold c, every run of blocks that fit c
// inside the stretch is one block shorter than d, and the search passes the stretch knowing
// only its two edge blocks (free_tree's corner_seeker).
//
// A corner is a set of boxes, one per class of vectors: the class of a vector is the order of
// its components (which is largest, which next, ...: N! classes), and a box keeps the
// element-wise maximum of its class's vectors. Vectors of one class are large in the same
// components, so their maximum stays close to each of them; a corner may hold c only if one of
// its boxes does. Every vector lies under its class's box, so the test never rules out one
// that fits. Components are stored in one byte, rounded up to a step of the total (exact for
// totals up to 255): rounding both the stored value and c up keeps every fit visible. The band
// limits are powers of two times a base that free_tree picks from the lengths it books.
//
// Size: (bands + 1) * N! * N bytes of boxes and 2 N + 2 sizeof(T) of edges, 600 bytes for
// resources<4> with 64-bit times; the search reads the boxes of band 0, of the duration's band
// and of the pairs. Only about one node in `spacing` keeps them: the top of the treap (free_tree's
// summary nodes, which hold the upper half of the priorities), in the pool beside the run
// summaries. Below, a subtree of nodes without corners (a gap of about `spacing` consecutive
// blocks) is walked by the search, judged by low and high, and its corners are computed from
// its blocks in order (append) when its parent's are. On every node they made a tree of about
// 800 bytes a block; the gaps cost a search a few more visits near the answer, and a corner a
// dependent load, which the search hides by asking for the corners and the children of a node
// before it tests its low and high (prefetch).

#include <array>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <type_traits>

#include "leasehold/core/capacity.hpp"
#include "leasehold/core/time.hpp"

namespace leasehold::detail {

// A hint that the cache line holding p will be read soon (nothing where the compiler has no
// such builtin); p may be null.
inline void prefetch_line([[maybe_unused]] const void* p) noexcept {
#if defined(__GNUC__) || defined(__clang__)
  __builtin_prefetch(p);
#endif
}

// A capacity without corners: scalars (whose maximum is exact already), dynamic_resources (its
// count is known only at run time) and vectors of more than four components (N! classes grow
// too fast to keep on every node).
template <class T, class C>
struct fit_corners {
  static constexpr bool enabled = false;
  static constexpr std::uint64_t spacing = 1;  // unused: no node keeps corners
  struct scale {
    explicit scale(const C&) noexcept {}
  };
  friend constexpr bool operator==(const fit_corners&, const fit_corners&) = default;
};

template <class T, std::size_t N, class V>
requires(N >= 2 && N <= 4) struct fit_corners<T, resources<N, V>> {
  using C = resources<N, V>;
  static constexpr bool enabled = true;
  static constexpr std::size_t classes = N == 2 ? 2 : N == 3 ? 6 : 24;
  // Length bands of `singles`: [0, base), [base, 2 base), [2 base, 4 base), [4 base, 8 base),
  // [8 base, ...). Fewer bands, or ones twice as wide, pruned measurably worse on the append
  // workload; each band is classes * N bytes on every node (docs/performance.md).
  static constexpr std::size_t bands = 5;
  // About one node in `spacing` keeps corners (see Size above). On the append workload one in
  // four searched at about the speed of one in eight with some 85 bytes more a block, and one
  // in sixteen a fifth slower at 10,000 blocks (docs/performance.md).
  static constexpr std::uint64_t spacing = 8;
  using quantised = std::array<std::uint8_t, N>;
  /// "No such time" for the edges: a block never begins at forever.
  static constexpr T none = forever<T>;

  // The rounding of each component: a step of at least 1, and at least total / 255, so that
  // the total rounds up to a byte.
  class scale {
   public:
    explicit scale(const C& total) noexcept {
      for (std::size_t i = 0; i < N; ++i) {
        const V t = total.values[i];
        const V steps = static_cast<V>(t / 255 + (t % 255 != 0 ? 1 : 0));
        step_[i] = steps > 1 ? steps : V{1};
        exact_ = exact_ && step_[i] == 1;
      }
    }
    // Each component divided by its step, rounded up; monotone, so x <= y component-wise gives
    // of(x) <= of(y). Values in [0, total] (no shift is pending while corners are kept).
    [[nodiscard]] quantised of(const C& value) const noexcept {
      quantised q{};
      for (std::size_t i = 0; i < N; ++i) {
        const V x = value.values[i];
        q[i] = x <= 0 ? std::uint8_t{0}
                      : static_cast<std::uint8_t>(x / step_[i] + (x % step_[i] != 0 ? 1 : 0));
      }
      return q;
    }
    // Whether of(x) >= of(c) says exactly that x fits c (every step is 1).
    [[nodiscard]] bool exact() const noexcept { return exact_; }

   private:
    std::array<V, N> step_{};
    bool exact_ = true;
  };

  // One box per class: per component, per class, the largest rounded value of that component
  // among the class's vectors; 0 for a class without any (no request fits there: each asks for
  // more than 0 of some component).
  struct boxes {
    std::array<std::array<std::uint8_t, classes>, N> bound{};

    void add(const quantised& q) noexcept {
      const std::size_t k = class_of(q);
      for (std::size_t i = 0; i < N; ++i)
        if (q[i] > bound[i][k]) bound[i][k] = q[i];
    }
    void join(const boxes& other) noexcept {
      for (std::size_t i = 0; i < N; ++i)
        for (std::size_t k = 0; k < classes; ++k)
          bound[i][k] = bound[i][k] >= other.bound[i][k] ? bound[i][k] : other.bound[i][k];
    }
    // False only if no vector under these boxes reaches `need`.
    [[nodiscard]] bool may_fit(const quantised& need) const noexcept {
      std::array<std::uint8_t, classes> ok{};
      for (std::size_t k = 0; k < classes; ++k)
        ok[k] = static_cast<std::uint8_t>(bound[0][k] >= need[0]);
      for (std::size_t i = 1; i < N; ++i)
        for (std::size_t k = 0; k < classes; ++k)
          ok[k] =
              static_cast<std::uint8_t>(ok[k] & static_cast<std::uint8_t>(bound[i][k] >= need[i]));
      std::uint8_t any = 0;
      for (std::size_t k = 0; k < classes; ++k) any = static_cast<std::uint8_t>(any | ok[k]);
      return any != 0;
    }
    friend constexpr bool operator==(const boxes&, const boxes&) = default;
  };

  std::array<boxes, bands> singles{};
  boxes pairs{};
  quantised first_free{};
  quantised last_free{};
  T first_end = none;   // where the first block ends, none if it is the only one
  T last_begin = none;  // where the last block begins

  // The class of a vector: the index of the order of its components, largest first (ties to
  // the lower index), among the N! orders (its Lehmer code).
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

  [[nodiscard]] static quantised lower(const quantised& a, const quantised& b) noexcept {
    quantised m{};
    for (std::size_t i = 0; i < N; ++i) m[i] = a[i] <= b[i] ? a[i] : b[i];
    return m;
  }

  [[nodiscard]] static bool reaches(const quantised& have, const quantised& need) noexcept {
    for (std::size_t i = 0; i < N; ++i)
      if (have[i] < need[i]) return false;
    return true;
  }

  // The band of a length: how many of base, 2 base, 4 base it reaches (base 0: band 0 only,
  // before free_tree has picked one).
  [[nodiscard]] static std::size_t band_of(T length, T base) noexcept {
    if (base <= 0) return 0;
    std::size_t band = 0;
    for (T rest = length; band + 1 < bands && rest >= base; rest = static_cast<T>(rest / 2)) ++band;
    return band;
  }

  // The stretch of one block (which knows no length yet: it is also the last).
  [[nodiscard]] static fit_corners block(const quantised& q, T begin) noexcept {
    fit_corners c;
    c.first_free = q;
    c.last_free = q;
    c.last_begin = begin;
    return c;
  }

  // b - a for a < b, saturated at T's largest value: a block may be longer than T can count
  // (from an origin near T's lowest value to a boundary far later), and its band is then the
  // top one anyway.
  [[nodiscard]] static T length_between(T a, T b) noexcept {
    if constexpr (std::is_integral_v<T>) {
      using U = std::make_unsigned_t<T>;
      const auto length = static_cast<U>(static_cast<U>(b) - static_cast<U>(a));
      constexpr auto largest = static_cast<U>(std::numeric_limits<T>::max());
      return length > largest ? std::numeric_limits<T>::max() : static_cast<T>(length);
    } else {
      return b - a;
    }
  }

  // The stretch followed by one more block (q, begin): its last block learns its length and
  // its neighbour. How a gap's corners are computed from its blocks in order.
  void append(const quantised& q, T begin, T base) noexcept {
    add_single(last_free, length_between(last_begin, begin), base);
    pairs.add(lower(last_free, q));
    if (first_end == none) first_end = begin;
    last_free = q;
    last_begin = begin;
  }

  // The stretch of `left`, then a block (q, begin), then `right` (either may be absent): the
  // blocks on each seam learn their length and their neighbour there.
  [[nodiscard]] static fit_corners join(const fit_corners* left, const quantised& q, T begin,
                                        const fit_corners* right, T right_first, T base) noexcept {
    fit_corners c = block(q, begin);
    if (left != nullptr) {
      c.singles = left->singles;
      c.pairs = left->pairs;
      c.add_single(left->last_free, length_between(left->last_begin, begin), base);
      c.pairs.add(lower(left->last_free, q));
      c.first_free = left->first_free;
      c.first_end = left->first_end != none ? left->first_end : begin;
    }
    if (right != nullptr) {
      c.add_single(q, length_between(begin, right_first), base);
      c.pairs.add(lower(q, right->first_free));
      for (std::size_t b = 0; b < bands; ++b) c.singles[b].join(right->singles[b]);
      c.pairs.join(right->pairs);
      if (left == nullptr) c.first_end = right_first;
      c.last_free = right->last_free;
      c.last_begin = right->last_begin;
    }
    return c;
  }

  // Whether some block but the last, of a length in band `from_band` or above, may fit `need`.
  [[nodiscard]] bool single_may_fit(const quantised& need, std::size_t from_band) const noexcept {
    return singles[from_band].may_fit(need);
  }

  // Asks for the boxes a search with a duration in `band` reads (singles at 0 and at the band,
  // pairs), ahead of the tests that need them.
  void prefetch(std::size_t band) const noexcept {
    for (const boxes* b : {&singles[0], &singles[band], &pairs}) {
      prefetch_line(b);
      prefetch_line(reinterpret_cast<const char*>(b) + sizeof(boxes) - 1);
    }
  }

  // singles[b] holds the blocks of band b and above, so that a search reads one box set.
  void add_single(const quantised& q, T length, T base) noexcept {
    const std::size_t band = band_of(length, base);
    for (std::size_t b = 0; b <= band; ++b) singles[b].add(q);
  }

  friend constexpr bool operator==(const fit_corners&, const fit_corners&) = default;
};

}  // namespace leasehold::detail
