#pragma once

// lazy_shift<C>: free_tree's deferred change of a whole subtree's free capacities. A node's
// `pending` says that every node below it is `pending` more than it says (and its ancestors'
// pending adds to that), so a reserve or release over a span of k blocks moves the subtrees that
// hang wholly inside the span in O(1) each, O(log n) in all, rather than visiting the k blocks.
//
// What it maintains: the true free capacity of a node is its stored `free` plus the sum of its
// ancestors' `pending` (the node's own `pending` is owed to its children only); the same holds
// for the node's subtree summaries `low` and `high`, which move with the subtree. Readers add the
// shifts on their way down (shifted) and never write; anything that restructures or descends
// below a node to change it first hands the node's pending to its children (push_down).
//
// Why it is safe: a pending shift is a difference of two free capacities, within [-total,
// total], so a stored value stays within [-total, 2 total] (see shift_span); `allowed` says
// whether the component type holds that. Why it is not always on: the run summaries and fit
// corners (run_levels.hpp, fit_corners.hpp) depend on every block's value, which a shift
// applied as one number cannot move, so a tree keeps its shifts only while it keeps no such
// summaries (summary_mode.hpp decides which).
//
// Node requirements: `begin` (T), `free`, `low`, `high` and `pending` (C), `left` and `right`
// (Node*).

#include <cstddef>
#include <limits>
#include <type_traits>

#include "leasehold/availability/detail/run_summary.hpp"
#include "leasehold/core/capacity.hpp"
#include "leasehold/core/time.hpp"

namespace leasehold::detail {

template <capacity_value C>
struct lazy_shift {
  using components = capacity_components<C>;
  using component_type = typename components::value_type;

  /// value + shift, spelled out per component: resources' operator+ did not always inline on the
  /// hot paths, where its call cost more than the sum.
  [[nodiscard]] static C shifted(const C& value, const C& shift) noexcept {
    if constexpr (components::count == 1) {
      return static_cast<C>(value + shift);
    } else if constexpr (!fixed_vector_capacity<C>) {
      return value + shift;  // dynamic_resources: a fixed-length loop already
    } else {
      C sum = value;
      for (std::size_t i = 0; i < components::count; ++i)
        sum.values[i] = static_cast<component_type>(sum.values[i] + shift.values[i]);
      return sum;
    }
  }

  /// shift == 0, per component (resources' defaulted == was a memcmp call where it did not
  /// inline).
  [[nodiscard]] static bool is_unshifted(const C& shift) noexcept {
    bool zero = true;
    for (std::size_t i = 0; i < components::count; ++i)
      zero = zero && components::get(shift, i) == component_type{};
    return zero;
  }

  /// Whether shifts may be left pending under `total`: every stored value stays within [-total,
  /// 2 total], which a signed component holds if total is at most half its maximum; otherwise
  /// updates stay block by block.
  [[nodiscard]] static bool allowed(const C& total) noexcept {
    bool ok = std::is_signed_v<component_type>;
    for (std::size_t i = 0; i < components::count; ++i)
      ok = ok && components::get(total, i) <= std::numeric_limits<component_type>::max() / 2;
    return ok;
  }

  /// Moves n's whole subtree by delta: its own free, its summary, and what it owes below. delta
  /// by value: as a reference it could alias n's fields (push_down passes a pending), and the
  /// compiler reloaded it after every store.
  template <class Node>
  static void shift_subtree(Node* n, const C delta) noexcept {
    n->free = shifted(n->free, delta);
    n->low = shifted(n->low, delta);
    n->high = shifted(n->high, delta);
    n->pending = shifted(n->pending, delta);
  }

  /// Hands n's pending shift to its children, before anything restructures or descends below n
  /// to change it.
  template <class Node>
  static void push_down(Node* n) noexcept {
    if (is_unshifted(n->pending)) return;
    if (n->left != nullptr) shift_subtree(n->left, n->pending);
    if (n->right != nullptr) shift_subtree(n->right, n->pending);
    n->pending = C{};
  }

  /// Adds delta to every block that begins in span, as pending shifts: a subtree wholly inside
  /// the span takes it as pending (its summary moves with it), so only the nodes on the paths to
  /// the span's two ends are visited, O(log n). Both ends are block begins (or span.end is
  /// forever): the descent goes to the node where the two paths part, then down each path,
  /// shifting the subtrees that hang inside the span. It follows keys only, because splits just
  /// made may have left `first` and the summaries on these paths stale; `on_path(node*)` is
  /// called for every node on the paths before it is read below (it must push_down, and the
  /// caller marks the node's summary for recomputing).
  ///
  /// Why the values stay in range: a descent through a node pushes its pending down, so a
  /// node's pending plus its ancestors' is the shift applied to its subtree since something
  /// last descended through it, a difference of two free capacities, within [-total, total].
  /// `from`: the root, or a node whose ancestors all lie outside the span and owe nothing.
  template <class Node, time_value T, class OnPath>
  static void shift_span(interval<T> span, const C& delta, Node* from, OnPath on_path) noexcept {
    Node* n = from;
    while (n->begin < span.begin || n->begin >= span.end) {  // span.begin is a key: no null
      on_path(n);
      n = n->begin < span.begin ? n->right : n->left;
    }
    on_path(n);
    n->free = shifted(n->free, delta);
    for (Node* m = n->left; m != nullptr;) {  // the path to span.begin
      on_path(m);
      if (m->begin < span.begin) {
        m = m->right;
        continue;
      }
      m->free = shifted(m->free, delta);
      if (m->right != nullptr) shift_subtree(m->right, delta);
      if (m->begin == span.begin) break;  // all of its left subtree begins before the span
      m = m->left;
    }
    if (n->right == nullptr) return;
    if (span.end == forever<T>) {
      shift_subtree(n->right, delta);
      return;
    }
    for (Node* m = n->right; m != nullptr;) {  // the path to span.end
      on_path(m);
      if (m->begin >= span.end) {
        if (m->begin == span.end) {  // all of its left subtree begins inside the span
          if (m->left != nullptr) shift_subtree(m->left, delta);
          break;
        }
        m = m->left;
        continue;
      }
      m->free = shifted(m->free, delta);
      if (m->left != nullptr) shift_subtree(m->left, delta);
      m = m->right;
    }
  }
};

}  // namespace leasehold::detail
