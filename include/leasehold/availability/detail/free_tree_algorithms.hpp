#pragma once

// free_tree_algorithms<Node, T, C>: the treap of free_tree, apart from the container that owns
// its nodes (as Boost.Intrusive's bstree_algorithms is apart from its containers): linking and
// unlinking nodes (split, merge, insert, erase), the descents that find a block by time, the
// in-order seeks that pass whole subtrees, and the pass that brings the subtree summaries up to
// date. Nothing here allocates or frees: nodes come in made, and go out through a callback.
//
// What it maintains: search order by `begin` and heap order by `priority` (a parent's is at
// least its children's), which keeps the expected depth about 2 ln n whatever the order of the
// updates. Restructuring pushes pending shifts down first (lazy_shift.hpp), so a node never
// moves under an ancestor that owes it something it does not owe its new neighbours. A change
// only marks the nodes whose subtree changed (`stale`, and with them their ancestors); refresh
// then recomputes each marked node once, children first, so an update pays for the union of its
// paths rather than for every path separately.
//
// Node requirements: `begin`, `first` (T), `free`, `pending` (C), `priority` (ordered),
// `stale` (std::uint8_t), `left` and `right` (Node*).

#include <algorithm>
#include <cstddef>
#include <cstdint>

#include "leasehold/availability/detail/lazy_shift.hpp"
#include "leasehold/core/capacity.hpp"
#include "leasehold/core/time.hpp"

namespace leasehold::detail {

template <class Node, time_value T, capacity_value C>
struct free_tree_algorithms {
  using shift = lazy_shift<C>;

  /// What made a node stale, for refresh. `values_changed`: its subtree holds the same blocks,
  /// up to splits and merges of equal neighbours, and some of their free capacities changed; a
  /// split or merge of equal neighbours moves no run's start or stop at any threshold, so only
  /// the run summaries whose threshold lies between a changed block's old and new free capacity
  /// can change. `shape_changed`: the subtree itself was rebuilt (a split, merge or rotation), or
  /// its first begin moved; every summary is recomputed.
  /// `values_here`, with values_changed: a block whose free capacity changed is the node's own
  /// (apply), or was its child and has just been merged away (erase), so that no child below
  /// can tell which runs it moved.
  static constexpr std::uint8_t values_changed = 1;
  static constexpr std::uint8_t shape_changed = 2;
  static constexpr std::uint8_t values_here = 4;

  /// split: keys < key to `less`, the rest to `rest`.
  static void split(Node* n, T key, Node*& less, Node*& rest) noexcept {
    if (n == nullptr) {
      less = rest = nullptr;
      return;
    }
    shift::push_down(n);
    if (n->begin < key) {
      split(n->right, key, n->right, rest);
      less = n;
    } else {
      split(n->left, key, less, n->left);
      rest = n;
    }
    n->stale |= shape_changed;
  }

  /// Every key of a precedes every key of b.
  [[nodiscard]] static Node* merge(Node* a, Node* b) noexcept {
    if (a == nullptr) return b;
    if (b == nullptr) return a;
    if (a->priority > b->priority) {
      shift::push_down(a);
      a->right = merge(a->right, b);
      a->stale |= shape_changed;
      return a;
    }
    shift::push_down(b);
    b->left = merge(a, b->left);
    b->stale |= shape_changed;
    return b;
  }

  /// x's key is not in the tree yet. Only ever a block split off its left neighbour with the
  /// same free capacity, so x's ancestors keep their runs (values_changed), except one whose
  /// subtree x now begins: its neighbour lies outside.
  [[nodiscard]] static Node* insert(Node* n, Node* x) noexcept {
    if (n == nullptr) return x;
    shift::push_down(n);  // x's free is true: no ancestor of its place may owe it a shift
    if (x->priority > n->priority) {
      split(n, x->begin, x->left, x->right);
      x->stale |= shape_changed;
      return x;
    }
    n->stale |= x->begin < n->first ? shape_changed : values_changed;
    if (x->begin < n->begin)
      n->left = insert(n->left, x);
    else
      n->right = insert(n->right, x);
    return n;
  }

  /// insert(insert(n, x), y) for x->begin < y->begin, in one descent while both go the same way
  /// (for a short span, most of the way). `below` is set to the root of the smallest subtree
  /// holding both: every node above it is on the shared path, its shift pushed down and marked
  /// stale, so a shift_span over [x, y) may start there.
  [[nodiscard]] static Node* insert_both(Node* n, Node* x, Node* y, Node*& below) noexcept {
    if (n == nullptr || x->priority > n->priority || y->priority > n->priority)
      return below = insert(insert(n, x), y);
    shift::push_down(n);
    n->stale |= x->begin < n->first ? shape_changed : values_changed;  // y->begin > x->begin
    const bool x_left = x->begin < n->begin;
    if (x_left != (y->begin < n->begin)) {  // they part here
      n->left = insert(n->left, x);
      n->right = insert(n->right, y);
      below = n;
    } else if (x_left) {
      n->left = insert_both(n->left, x, y, below);
    } else {
      n->right = insert_both(n->right, x, y, below);
    }
    return n;
  }

  /// key is in the tree; its node is unlinked and handed to `dispose`. Only ever a block equal
  /// to its left neighbour, so the ancestors of its node keep their runs (values_changed),
  /// except one whose subtree it began.
  template <class Dispose>
  [[nodiscard]] static Node* erase(Node* n, T key, Dispose& dispose) noexcept {
    shift::push_down(n);  // before the children move up
    if (n->begin == key) {
      Node* joined = merge(n->left, n->right);
      dispose(n);
      return joined;
    }
    Node*& child = key < n->begin ? n->left : n->right;
    const bool merged_child = child->begin == key;  // its place goes to one of its children
    child = erase(child, key, dispose);
    n->stale |= key == n->first ? shape_changed
                                : (merged_child ? values_changed | values_here : values_changed);
    return n;
  }

  /// The first block now begins at t (still the smallest key): `first` changes along the left
  /// spine, and with it whatever summaries hold begins, which are marked when `mark` says so.
  static void set_first_begin(Node* n, T t, bool mark) noexcept {
    for (;; n = n->left) {
      n->first = t;
      if (mark) n->stale |= shape_changed;
      if (n->left == nullptr) {
        n->begin = t;
        return;
      }
    }
  }

  /// Hands every node of n's subtree to `dispose`, children first.
  template <class Dispose>
  static void destroy(Node* n, Dispose& dispose) noexcept {
    if (n == nullptr) return;
    destroy(n->left, dispose);
    destroy(n->right, dispose);
    dispose(n);
  }

  /// A copy of n's subtree, node for node (so with the same shape): `copy(const Node&)` makes
  /// one node, children unlinked. `copy` by value: a small function object that stays in
  /// registers down the recursion, where a reference was loaded again at every node.
  template <class Copy>
  [[nodiscard]] static Node* clone(const Node* n, Copy copy) noexcept {
    if (n == nullptr) return nullptr;
    Node* made = copy(*n);
    made->left = clone(n->left, copy);
    made->right = clone(n->right, copy);
    return made;
  }

  /// Visits the blocks of n's subtree in time order, each with the shift its ancestors owe it
  /// (`owed` for n).
  template <class Visit>
  static void for_each_in_order(const Node* n, Visit&& visit, C owed = C{}) {
    while (n != nullptr) {
      const C below = shift::shifted(owed, n->pending);
      for_each_in_order(n->left, visit, below);
      visit(*n, owed);
      n = n->right;
      owed = below;
    }
  }

  /// Visits the blocks of n's subtree in time order where no shift is pending in it (the
  /// summaries are maintained), so without the shift arithmetic of for_each_in_order: the walk
  /// over a gap's blocks that the run summaries and the fit corners make.
  template <class Visit>
  static void for_each_unshifted(const Node* n, Visit& visit) noexcept {
    while (n != nullptr) {
      for_each_unshifted(n->left, visit);
      visit(*n);
      n = n->right;
    }
  }

  /// Recomputes every stale node of n's subtree once, children first: `recompute(node*,
  /// std::uint8_t marks, const Report& left, const Report& right)` with the marks that made it
  /// stale and what its children's recomputes returned (Report{} for a child that was not
  /// stale, or none), which clears the mark and returns what its parent is told. So a node can
  /// recompute only what its children say may have changed.
  template <class Report, class Recompute>
  static Report refresh(Node* n, Recompute& recompute) noexcept {
    if (n == nullptr || n->stale == 0) return Report{};
    const Report left = refresh<Report>(n->left, recompute);
    const Report right = refresh<Report>(n->right, recompute);
    return recompute(n, n->stale, left, right);
  }

  /// Applies `change(C& free)` to the blocks that begin inside the span, marking the paths to
  /// them: O(log n + k).
  template <class Change>
  static bool apply(Node* n, interval<T> span, Change& change) noexcept {
    if (n == nullptr) return false;
    bool changed = false;
    if (n->begin < span.begin) {
      changed = apply(n->right, span, change);
    } else if (n->begin >= span.end) {
      changed = apply(n->left, span, change);
    } else {
      change(n->free);
      n->stale |= values_here;
      apply(n->left, span, change);
      apply(n->right, span, change);
      changed = true;
    }
    if (changed) n->stale |= values_changed;
    return changed;
  }

  [[nodiscard]] static std::size_t height_of(const Node* n) noexcept {
    return n == nullptr ? 0 : 1 + std::max(height_of(n->left), height_of(n->right));
  }

  [[nodiscard]] static const Node* last_of(const Node* n) noexcept {
    while (n->right != nullptr) n = n->right;
    return n;
  }

  /// The block in force at t; t at or after the first begin.
  [[nodiscard]] static const Node* block_at(const Node* root, T t) noexcept {
    const Node* found = nullptr;
    for (const Node* n = root; n != nullptr;) {
      if (n->begin <= t) {
        found = n;
        n = n->right;
      } else {
        n = n->left;
      }
    }
    return found;
  }

  /// The first begin after t (keys only, so no shift is read), or nullptr.
  [[nodiscard]] static const Node* first_after(const Node* root, T t) noexcept {
    const Node* next = nullptr;
    for (const Node* n = root; n != nullptr;) {
      if (n->begin > t) {
        next = n;
        n = n->left;
      } else {
        n = n->right;
      }
    }
    return next;
  }

  /// Where a descent towards t ends: the node that begins at t (nullptr if none does), the last
  /// node passed on the right on the way (begin < t), and the shift their ancestors owe each.
  struct descent {
    const Node* at = nullptr;
    C at_shift{};
    const Node* before = nullptr;
    C before_shift{};
  };
  [[nodiscard]] static descent descend_to(const Node* root, T t) noexcept {
    descent found;
    C owed{};
    for (const Node* n = root; n != nullptr;) {
      if (n->begin == t) {
        found.at = n;
        found.at_shift = owed;
        break;
      }
      const C below = shift::shifted(owed, n->pending);
      if (n->begin < t) {
        found.before = n;
        found.before_shift = owed;
        n = n->right;
      } else {
        n = n->left;
      }
      owed = below;
    }
    return found;
  }

  /// The block before the one that begins at t (nullptr for the first), and both blocks' true
  /// free capacities: the descent to t, then the rightmost node of t's left subtree if any.
  struct neighbours {
    const Node* at;
    C at_free;
    const Node* before;
    C before_free;
  };
  [[nodiscard]] static neighbours with_left_neighbour(const Node* root, T t) noexcept {
    const descent d = descend_to(root, t);
    const Node* before = d.before;
    C before_shift = d.before_shift;
    if (d.at->left != nullptr) {
      before_shift = shift::shifted(d.at_shift, d.at->pending);
      before = d.at->left;
      while (before->right != nullptr) {
        before_shift = shift::shifted(before_shift, before->pending);
        before = before->right;
      }
    }
    return {d.at, shift::shifted(d.at->free, d.at_shift), before,
            before == nullptr ? C{} : shift::shifted(before->free, before_shift)};
  }

  /// The first node with begin >= from that the seeker's visit accepts, visiting nodes in time
  /// order and skipping whole subtrees that may not hit. The seeker has `may_hit(node, shift)`
  /// (false only for a subtree holding no hit), `skip(node, shift)` (told of every subtree
  /// passed) and `visit(node, shift)` (true: this one). Shifts: whether pending shifts may be
  /// owed; without them the seek is compiled with none, as fast as before they existed.
  template <bool Shifts, class Seeker>
  [[nodiscard]] static const Node* seek(const Node* root, T from, Seeker& seeker) {
    return seek_in<Shifts>(root, from, seeker, C{});
  }

 private:
  static constexpr C no_shift{};

  // seek in the subtree of n; `owed` is what n's ancestors still owe it (always zero unless
  // Shifts).
  template <bool Shifts, class Seeker>
  [[nodiscard]] static const Node* seek_in(const Node* n, T from, Seeker& seeker, C owed) {
    while (n != nullptr && n->first < from) {
      if (n->begin < from) {
        if constexpr (Shifts) owed = shift::shifted(owed, n->pending);
        n = n->right;
        continue;
      }
      const C below = Shifts ? shift::shifted(owed, n->pending) : no_shift;
      if (const Node* hit = seek_in<Shifts>(n->left, from, seeker, below)) return hit;
      if (seeker.visit(*n, Shifts ? owed : no_shift)) return n;
      return seek_all<Shifts>(n->right, seeker, below);
    }
    return seek_all<Shifts>(n, seeker, owed);
  }

  template <bool Shifts, class Seeker>
  [[nodiscard]] static const Node* seek_all(const Node* n, Seeker& seeker, C owed) {
    while (n != nullptr) {
      if (!seeker.may_hit(*n, Shifts ? owed : no_shift)) {
        seeker.skip(*n, Shifts ? owed : no_shift);
        return nullptr;
      }
      const C below = Shifts ? shift::shifted(owed, n->pending) : no_shift;
      if (const Node* hit = seek_all<Shifts>(n->left, seeker, below)) return hit;
      if (seeker.visit(*n, Shifts ? owed : no_shift)) return n;
      n = n->right;
      owed = below;
    }
    return nullptr;
  }
};

}  // namespace leasehold::detail
