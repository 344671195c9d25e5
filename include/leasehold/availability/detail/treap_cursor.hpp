#pragma once

// treap_cursor<Node, T, C, Depth>: a block_view cursor (detail/block_view.hpp) over a binary
// search tree of blocks keyed by begin, with lazy shifts and no parent pointers: free_tree's
// treap. It walks in order with a stack of the nodes still to come whose left subtrees come
// first (the nodes passed on the left on the way down), each with the shift its ancestors
// owe it, so the free capacities it yields are the true ones, pending shifts applied, and the
// tree is only read. O(depth) to start, O(1) amortised a step.
//
// Why a bounded stack: the cursor lives in iterators, which must be cheap to copy and must not
// allocate. A treap's depth is about 2 ln n, but not bounded; when the stack is full its
// deepest-first order lets the cursor drop the bottom frame (the latest of the nodes to come)
// and, should the stack run dry, find the rest again by one descent from the root: O(depth)
// once per Depth steps at worst, and never on a tree of ordinary shape.
//
// Node requirements: `begin` (T), `free` and `pending` (C: every node below owes `pending`
// more than it says), `left` and `right` (const Node*-convertible).

#include <algorithm>
#include <array>
#include <cstddef>
#include <functional>

#include "leasehold/core/capacity.hpp"
#include "leasehold/core/free_block.hpp"
#include "leasehold/core/time.hpp"

namespace leasehold::detail {

template <class Node, time_value T, capacity_value C, std::size_t Depth = 32>
class treap_cursor {
  static_assert(Depth > 0, "treap_cursor needs room for one frame");

 public:
  treap_cursor() = default;

  // At the block in force at t (t at or after the first begin of the non-empty tree).
  treap_cursor(const Node* root, T t) : root_(root) {
    const Node* at = nullptr;
    C at_shift{};
    C shift{};
    for (const Node* n = root; n != nullptr;) {
      const C below = plus(shift, n->pending);
      if (n->begin <= t) {
        at = n;
        at_shift = shift;
        n = n->right;
      } else {
        push(n, shift);
        n = n->left;
      }
      shift = below;
    }
    settle_at(at, at_shift);
  }

  [[nodiscard]] free_block<T, C> block() const noexcept { return current_; }

  void next() noexcept {
    const frame f = frames_[--size_];
    push_left_spine(f.n->right, plus(f.shift, f.n->pending));
    settle_at(f.n, f.shift);
  }

 private:
  struct frame {
    const Node* n = nullptr;
    C shift{};  // what n's ancestors owe it
  };

  [[nodiscard]] static C plus(const C& a, const C& b) noexcept {
    return componentwise(a, b, std::plus<>{});
  }

  // n is the block now; the block after it is the top of the stack, found again from the root
  // if frames were dropped.
  void settle_at(const Node* n, const C& shift) noexcept {
    if (size_ == 0 && dropped_) refill_after(n->begin);
    current_ = {{n->begin, size_ > 0 ? frames_[size_ - 1].n->begin : forever<T>},
                plus(n->free, shift)};
  }

  void push(const Node* n, const C& shift) noexcept {
    if (size_ == Depth) {  // drop the bottom: the latest of the nodes to come
      std::move(frames_.begin() + 1, frames_.end(), frames_.begin());
      --size_;
      dropped_ = true;
    }
    frames_[size_++] = {n, shift};
  }

  void push_left_spine(const Node* n, C shift) noexcept {
    for (; n != nullptr; n = n->left) {
      push(n, shift);
      shift = plus(shift, n->pending);
    }
  }

  // The nodes that begin after `after`, stacked as a descent from the root passes them.
  void refill_after(T after) noexcept {
    dropped_ = false;
    C shift{};
    for (const Node* n = root_; n != nullptr;) {
      const C below = plus(shift, n->pending);
      if (n->begin > after) {
        push(n, shift);
        n = n->left;
      } else {
        n = n->right;
      }
      shift = below;
    }
  }

  const Node* root_ = nullptr;
  std::array<frame, Depth> frames_{};
  std::size_t size_ = 0;
  bool dropped_ = false;  // some of the nodes to come are not on the stack
  free_block<T, C> current_{};
};

}  // namespace leasehold::detail
