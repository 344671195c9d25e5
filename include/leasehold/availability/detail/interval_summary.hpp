#pragma once

// interval_summary<T, C>: what every node of free_tree says about its subtree, and the span
// folds that read it. A node keeps the smallest begin (`first`) and the element-wise minimum
// and maximum free capacity (`low`, `high`) of its subtree, itself included, in the units of
// its own stored values (its ancestors' pending shifts apply to them as to its `free`; see
// lazy_shift.hpp).
//
// Why these three: `first` bounds a subtree in time without walking to its leftmost node, and
// low and high settle a whole subtree for any amount c in one comparison each — every block
// fits c when low does, none when high does not (for a scalar exactly; for a vector high only
// says each component fits somewhere, so it is an upper bound) — which is what lets a reserve
// check its span, min_free answer, and every seek pass subtrees in O(log n) rather than O(k).
// join() recomputes them from the children's in O(1); a node whose children changed is joined
// again, children first (free_tree_algorithms::refresh).
//
// Node requirements: `begin` (T), `free`, `low`, `high`, `pending` (C), `first` (T), `left` and
// `right` (Node*).

#include <array>
#include <utility>

#include "leasehold/availability/detail/lazy_shift.hpp"
#include "leasehold/core/capacity.hpp"
#include "leasehold/core/time.hpp"

namespace leasehold::detail {

template <time_value T, capacity_value C>
struct interval_summary {
  using shift = lazy_shift<C>;

  /// n's first, low and high from its children's and its own block; its pending applies to the
  /// children's values.
  template <class Node>
  static void join(Node* n) noexcept {
    const Node* l = n->left;
    const Node* r = n->right;
    n->first = l != nullptr ? l->first : n->begin;
    // In locals, stored once: a store through n could alias the children as far as the
    // compiler knows, which made it reload them after every step.
    const C pending = n->pending;
    C low = n->free;
    C high = n->free;
    for (const Node* child : {l, r}) {
      if (child == nullptr) continue;
      low = elementwise_min(low, shift::shifted(child->low, pending));
      high = elementwise_max(high, shift::shifted(child->high, pending));
    }
    n->low = low;
    n->high = high;
  }

  /// A block and its true free capacity (its stored one plus what its ancestors owe it).
  template <class Node>
  using block_lookup = std::pair<const Node*, C>;

  /// What a span fold finds: the blocks in force at both ends (for a span that runs forever, the
  /// last block instead) and the fold over every block that meets the span.
  template <class Node>
  struct span_survey {
    std::array<block_lookup<Node>, 2> ends;
    C folded;
  };

  /// `combine` folded over the free capacities of every block that meets `span` (`field`: the
  /// subtree summary, low or high, that folds a whole subtree), and the blocks at its ends, from
  /// one descent: the paths to the two ends share every node down to where they part, which for
  /// a short span is most of them. `neutral` leaves any free capacity as it is under `combine`
  /// (total for a minimum, zero for a maximum). Shifts: whether pending shifts may be owed.
  template <bool Shifts, class Node, class Combine>
  [[nodiscard]] static span_survey<Node> survey(const Node* root, interval<T> span, C Node::*field,
                                                Combine combine, const C& neutral) {
    const T a = span.begin;
    const T b = span.end;
    const auto below_of = [](const C& owed, const Node* n) {
      return Shifts ? shift::shifted(owed, n->pending) : C{};
    };
    // The last node at or before each end on its path, and the shift its ancestors owe it.
    struct passed {
      const Node* at = nullptr;
      C owed{};
    };
    passed at_a;
    passed at_b;
    C inside = neutral;  // over the blocks that begin in (a, b)
    const auto take = [&inside, &combine](const C& value) { inside = combine(inside, value); };
    const Node* n = root;
    C owed{};
    while (n != nullptr && (b < n->begin || n->begin <= a)) {  // both ends on one side of n
      const C below = below_of(owed, n);
      if (n->begin <= a) at_a = {n, owed};
      n = n->begin <= a ? n->right : n->left;
      owed = below;
    }
    at_b = at_a;
    if (n != nullptr) {  // a < n->begin <= b: the paths part at n
      const C below = below_of(owed, n);
      at_b = {n, owed};
      // Towards a: a node after a counts with its right subtree (all before n), then the walk
      // goes left; a node at or before a is the candidate for a, and the walk goes right.
      C at = below;
      for (const Node* m = n->left; m != nullptr;) {
        const C inner = below_of(at, m);
        if (m->begin > a) take(shift::shifted(m->free, at));
        if (m->begin >= a && m->right != nullptr) take(shift::shifted(m->right->*field, inner));
        if (m->begin <= a) at_a = {m, at};
        if (m->begin == a) break;
        m = m->begin < a ? m->right : m->left;
        at = inner;
      }
      // Towards b, mirrored: a node before b counts with its left subtree (all after n).
      if (n->begin < b) {
        take(shift::shifted(n->free, owed));
        at = below;
        for (const Node* m = n->right; m != nullptr;) {
          const C inner = below_of(at, m);
          if (m->begin < b) take(shift::shifted(m->free, at));
          if (m->begin <= b && m->left != nullptr) take(shift::shifted(m->left->*field, inner));
          if (m->begin <= b) at_b = {m, at};
          if (m->begin == b) break;
          m = m->begin < b ? m->right : m->left;
          at = inner;
        }
      }
    }
    const C free_at_a = shift::shifted(at_a.at->free, at_a.owed);
    return {{block_lookup<Node>{at_a.at, free_at_a},
             block_lookup<Node>{at_b.at, shift::shifted(at_b.at->free, at_b.owed)}},
            combine(inside, free_at_a)};
  }
};

}  // namespace leasehold::detail
