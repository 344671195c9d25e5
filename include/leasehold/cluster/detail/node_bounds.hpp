#pragma once

// The index behind cluster::slot_table's gang search: for one request shape (amount, duration),
// a lower bound per node on the node's earliest fit of that shape from the table's origin, in
// a min-tree over node ids.
//
// Why a lower bound is enough, and why it holds for many requests: a node's earliest fit
// f(c, d, from) only grows when `from` grows (fewer starts to choose from), when c grows or
// when d grows (each start needs more). So the earliest fit of the class shape (c_k <= c,
// d_k <= d) from the origin bounds from below every per-node earliest fit the gang search asks
// for a request of that class, whatever its window and ready times. The bound stays true when
// capacity is booked (fits only get later) and when the origin advances on an unbounded
// profile (nothing after the new origin changes); a release can make a node fit earlier, so
// it lowers the bound (see slot_table::release). A bound that is too low is only looser, never
// wrong: a node whose bound was raised by a booking is marked stale and recomputed when a
// search reaches it.

#include <algorithm>
#include <bit>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <type_traits>
#include <utility>
#include <vector>

#include "leasehold/core/capacity.hpp"
#include "leasehold/core/time.hpp"

namespace leasehold::cluster::detail {

// The class of a request: each amount component and the duration rounded down to a power of
// two, so that requests of similar shape share one index (a rounded-down shape still bounds
// the request's fits from below).
template <std::integral V>
[[nodiscard]] constexpr V power_of_two_floor(V v) noexcept {
  if (v <= 0) return v;
  return static_cast<V>(std::bit_floor(static_cast<std::make_unsigned_t<V>>(v)));
}
template <scalar_capacity C>
[[nodiscard]] constexpr C shape_class(C amount) noexcept {
  return power_of_two_floor(amount);
}
template <vector_capacity C>
[[nodiscard]] constexpr C shape_class(C amount) noexcept {
  for (auto& v : amount) v = power_of_two_floor(v);
  return amount;
}

template <time_value T, capacity_value C>
class node_bounds {
 public:
  // "Never": the node cannot fit the shape at all (a bounded profile's horizon is too short).
  static constexpr T never = std::numeric_limits<T>::max();

  node_bounds(C amount, T duration, std::size_t nodes)
      : amount_(amount),
        duration_(duration),
        nodes_(nodes),
        leaves_(std::bit_ceil(std::max<std::size_t>(nodes, 1))),
        tree_(2 * leaves_, never),
        stale_(nodes, 0) {}

  [[nodiscard]] const C& amount() const noexcept { return amount_; }
  [[nodiscard]] T duration() const noexcept { return duration_; }
  [[nodiscard]] std::size_t node_count() const noexcept { return nodes_; }
  [[nodiscard]] T bound(std::size_t node) const noexcept { return tree_[leaves_ + node]; }

  // Sets every node's bound to bound_of(node) at once and the minima above them: O(W).
  template <class BoundOf>
  void assign(BoundOf&& bound_of) {
    for (std::size_t i = 0; i < nodes_; ++i) tree_[leaves_ + i] = bound_of(i);
    for (std::size_t at = leaves_ - 1; at > 0; --at)
      tree_[at] = std::min(tree_[2 * at], tree_[2 * at + 1]);
  }

  // Sets a node's bound and the minima above it: O(log W).
  void set(std::size_t node, T value) noexcept {
    std::size_t at = leaves_ + node;
    tree_[at] = value;
    for (at /= 2; at > 0; at /= 2) tree_[at] = std::min(tree_[2 * at], tree_[2 * at + 1]);
  }

  // A stale bound is a lower bound only, to be recomputed when a search reaches the node:
  // after a booking that may have raised the node's fit, or when it was read from the node's
  // run records while they were out of date (then the records are worth recomputing too).
  [[nodiscard]] bool stale(std::size_t node) const noexcept { return stale_[node] != 0; }
  [[nodiscard]] bool from_old_records(std::size_t node) const noexcept {
    return stale_[node] == old_records;
  }
  void mark_stale(std::size_t node) noexcept {
    if (stale_[node] == 0) stale_[node] = booked;
  }
  void mark_from_old_records(std::size_t node) noexcept { stale_[node] = old_records; }
  void clear_stale(std::size_t node) noexcept { stale_[node] = 0; }

  // Calls visit(node) for every node whose bound is at most `limit`, in increasing id order,
  // until visit returns false: O(k log(W / k)) for k nodes visited.
  template <class Visit>
  void for_each_at_most(T limit, Visit&& visit) const {
    if (tree_[1] > limit) return;
    std::vector<std::size_t> stack{1};
    while (!stack.empty()) {
      const std::size_t at = stack.back();
      stack.pop_back();
      if (at >= leaves_) {
        if (!visit(at - leaves_)) return;
        continue;
      }
      // Right first so that the left child comes off the stack first.
      if (tree_[2 * at + 1] <= limit) stack.push_back(2 * at + 1);
      if (tree_[2 * at] <= limit) stack.push_back(2 * at);
    }
  }

  // Nodes in increasing order of their bound, ties in increasing id order, as a best-first
  // walk of the tree. The caller may raise the bound of the node it was just given (set) and
  // push it back (push_node); entries of the walk whose minimum has since grown are re-queued.
  //
  // Why ties are broken by the first node id under an entry, not left to the heap: many nodes
  // share a bound (every node free at the origin has the origin as its bound), and a heap that
  // ordered equal keys by tree index, or by nothing, would open every subtree of that minimum
  // level by level, all W - 1 inner entries, before it reached the first leaf. Ordered by
  // (bound, first node below), an entry is opened only when no entry of the same bound lies to
  // its left, so the walk descends to the leftmost node of the smallest bound in log W steps
  // and the k nodes it hands out cost O(k log W) whatever the ties.
  class by_bound {
   public:
    explicit by_bound(const node_bounds& bounds) : bounds_(&bounds) {
      if (bounds.tree_[1] != never) push(1);
    }

    // The next node and its bound, or false when every node left can never fit.
    bool next(std::size_t& node, T& bound) {
      while (!heap_.empty()) {
        std::ranges::pop_heap(heap_, later);
        const entry e = heap_.back();
        heap_.pop_back();
        ++taken_;
        const T now = bounds_->tree_[e.at];
        if (now == never) continue;
        if (now > e.key) {
          push(e.at);
          continue;
        }
        if (e.at >= bounds_->leaves_) {
          node = e.first;
          bound = now;
          return true;
        }
        if (bounds_->tree_[2 * e.at] != never) push(2 * e.at);
        if (bounds_->tree_[2 * e.at + 1] != never) push(2 * e.at + 1);
      }
      return false;
    }

    void push_node(std::size_t node) {
      if (bounds_->bound(node) != never) push(bounds_->leaves_ + node);
    }

    // How many entries the walk has taken off its heap so far (inner ones included): what a
    // walk costs, for the tests.
    [[nodiscard]] std::size_t entries_taken() const noexcept { return taken_; }

   private:
    struct entry {
      T key;              // the subtree's minimum when pushed
      std::size_t first;  // the first node id below the entry
      std::size_t at;     // the entry's index in the tree
    };
    // The heap's order: a max-heap under "later" has the earliest entry on top.
    static bool later(const entry& a, const entry& b) noexcept {
      return a.key != b.key ? a.key > b.key : a.first > b.first;
    }

    void push(std::size_t at) {
      // The leftmost leaf below `at` is at x 2^(levels below it).
      const auto shift = std::bit_width(bounds_->leaves_) - std::bit_width(at);
      heap_.push_back({bounds_->tree_[at], (at << shift) - bounds_->leaves_, at});
      std::ranges::push_heap(heap_, later);
    }

    const node_bounds* bounds_;
    std::vector<entry> heap_;
    std::size_t taken_ = 0;
  };

  std::uint64_t last_use = 0;  // for evicting the least recently used class

 private:
  C amount_;
  T duration_;
  std::size_t nodes_;
  std::size_t leaves_;
  std::vector<T> tree_;  // tree_[leaves_ + i]: node i; tree_[a]: min of its children
  static constexpr unsigned char booked = 1;
  static constexpr unsigned char old_records = 2;
  std::vector<unsigned char> stale_;  // 0: exact; booked or old_records: a lower bound only
};

}  // namespace leasehold::cluster::detail
