#pragma once

/// \file
/// capacity_tree<T, C>: the capacity-hierarchical free list of Schneider & Linnert (§5, Fig. 2
/// middle). "Each item spans the whole time span where at least the given capacity is free.
/// During this time span, there may be other sub time spans with more capacity available;
/// these time spans are managed as sub lists of the longer block."
///
/// Representation. A virtual root covers [origin, forever) at free capacity 0. Every other node
/// is a block: a maximal time span on which more than its parent's capacity is free, holding
/// `gain` = c_f, the capacity it adds above its parent (so the capacity free throughout the
/// node is the sum of the gains on its path, as Fig. 4 accumulates c_found). Its children,
/// ordered by time in a Boost.Intrusive set, are the maximal sub-spans with still more free.
/// Siblings never touch (a point of the parent's own level lies between any two), and every
/// node but the root has at least one such point (its "floor"). These rules make the tree
/// canonical: one free profile has exactly one tree, whatever operations produced it, and
/// validate() checks them. The floors of all nodes, in time order, are exactly the blocks of
/// the time-exclusive list, so the tree never has more nodes than free_list has blocks.
///
/// Costs, with depth h (at most the number of distinct free capacities), n nodes, and k nodes
/// inside a span:
///  - free_at, min_free: O(h log n): the deepest node containing the span holds the answer.
///  - earliest_fit: Fig. 4, a depth-first search in time order that prunes every node whose
///    span is shorter than the duration and stops at the first node with enough capacity.
///  - reserve / release: O(h log n + k log n) for the rebuild around the span (below), plus,
///    when a reservation cuts a block below its capacity, moving that block's children that lie
///    after the reservation under a new node (O(m log n) for m such children). Subtrees that
///    lie wholly inside the span move as one piece: their gains are relative, so they need no
///    change at all.
///  - advance_to: O(h log n + dropped nodes).
///  - set_total: see there; it changes only the top of the hierarchy.
/// Node memory comes from a pool (detail::node_pool), as in free_list.

#include <algorithm>
#include <boost/intrusive/set.hpp>
#include <cstddef>
#include <cstdint>
#include <iterator>
#include <limits>
#include <optional>
#include <ostream>
#include <utility>
#include <vector>

#include "leasehold/availability/detail/node_pool.hpp"
#include "leasehold/availability/detail/profile_types.hpp"
#include "leasehold/availability/detail/resize.hpp"
#include "leasehold/core/detail/checks.hpp"
#include "leasehold/core/detail/swap_members.hpp"
#include "leasehold/core/error.hpp"

namespace leasehold {

/// The capacity-hierarchical free list (Schneider & Linnert §5, Fig. 4) over a scalar
/// capacity: a model of leasehold::availability whose earliest_fit prunes blocks too short for
/// the duration; see the file's description for the representation and every cost.
template <time_value T = std::int64_t, capacity_value C = std::int64_t>
class capacity_tree : public detail::profile_types<T, C> {
 public:
  /// A profile of `total` capacity, all of it free from `origin` to forever. Throws
  /// invalid_request for a total that is not positive or an origin that leaves no time to book.
  explicit capacity_tree(C total, T origin = 0) : total_(total), root_(plant(total, origin)) {}

  /// A deep copy: the same blocks, in memory of its own (strong guarantee: a copy that cannot
  /// allocate throws std::bad_alloc and leaves nothing behind).
  capacity_tree(const capacity_tree& other) : total_(other.total_) {
    try {
      copy_from(other);
    } catch (...) {
      clear();
      throw;
    }
  }

  /// The moved-from tree may only be destroyed or assigned to.
  capacity_tree(capacity_tree&& other) noexcept : total_(other.total_) { swap(other); }

  /// Copy and move assignment in one (copy and swap): a copy that throws leaves *this
  /// unchanged.
  capacity_tree& operator=(capacity_tree other) noexcept {
    swap(other);
    return *this;
  }

  ~capacity_tree() { clear(); }

  /// Exchanges the two profiles' contents; O(1), never throws.
  void swap(capacity_tree& other) noexcept {
    detail::swap_members(*this, other, &capacity_tree::total_, &capacity_tree::pool_,
                         &capacity_tree::root_, &capacity_tree::scratch_);
  }

  /// The total capacity, what is free where nothing is booked.
  [[nodiscard]] C total() const noexcept { return total_; }
  /// The earliest time the profile holds; advance_to moves it forward.
  [[nodiscard]] T origin() const noexcept { return root_->begin; }

  /// The capacity free at t. Throws invalid_request for t before the origin. O(h log n).
  [[nodiscard]] C free_at(T t) const {
    detail::check_time("free_at", t, origin());
    // Nothing ends after forever: the instant forever itself reads as the last block.
    const T at = t == forever<T> ? static_cast<T>(t - 1) : t;
    return deepest_containing({at, static_cast<T>(at + 1)}).level;
  }

  /// The span lies in its deepest containing node and in none of that node's children, so it
  /// meets one of the node's floors: the node's capacity is the minimum.
  [[nodiscard]] C min_free(interval<T> span) const {
    detail::check_span("min_free", span, origin());
    return deepest_containing(span).level;
  }

  /// Schneider & Linnert, Fig. 4: select a block whose span is long enough (d_j <= d_f),
  /// descend into its sub list collecting capacity (c_found += c_f') until it is enough, and
  /// backtrack when a branch has no block long enough. Children are visited in time order and
  /// the spans are clipped to the window, so the first node found gives the earliest start.
  [[nodiscard]] std::optional<T> earliest_fit(const request<T, C>& r) const {
    const auto starts = detail::check_request(r, total_, origin());
    if (starts.empty()) return std::nullopt;
    const node* n = root_;
    C level{};
    auto it = first_child_ending_after(n, starts.first);
    while (true) {
      if (it == n->children.end() || it->begin > starts.last) {
        if (n == root_) return std::nullopt;
        const node* done = n;  // backtrack: the next sibling of the exhausted branch
        n = n->parent;
        level = static_cast<C>(level - done->gain);
        it = std::next(n->children.iterator_to(*done));
        continue;
      }
      const T start = std::max(it->begin, starts.first);
      // start <= starts.last = window.end - duration, so start + duration cannot overflow.
      if (start > starts.last || static_cast<T>(start + r.duration) > it->end) {
        ++it;  // too short for the job: neither it nor any block inside it can hold it
        continue;
      }
      const C found = static_cast<C>(level + it->gain);
      if (r.amount <= found) return start;
      n = &*it;
      level = found;
      it = first_child_ending_after(n, starts.first);
    }
  }

  /// The mirror of earliest_fit: children visited in reverse time order, spans clipped to the
  /// window, so the first node found reaches latest and its latest start is the clipped end
  /// minus the duration. Reverse pre-order meets ends in non-increasing order: a node's
  /// descendants end by its end, and after every earlier sibling's.
  [[nodiscard]] std::optional<T> latest_fit(const request<T, C>& r) const {
    const auto starts = detail::check_request(r, total_, origin(), "latest_fit");
    if (starts.empty()) return std::nullopt;
    // Compared without differences, which could overflow T: a clipped end is at least
    // shortest_end (<= the window's end) before the duration is taken from it.
    const T window_end = static_cast<T>(starts.last + r.duration);
    const T shortest_end = static_cast<T>(starts.first + r.duration);
    const node* n = root_;
    C level{};
    auto next = n->children.lower_bound(window_end);  // past the last child that begins in time
    while (true) {
      if (next == n->children.begin()) {
        if (n == root_) return std::nullopt;
        const node* done = n;  // backtrack: the sibling before the exhausted branch
        n = n->parent;
        level = static_cast<C>(level - done->gain);
        next = n->children.iterator_to(*done);
        continue;
      }
      const node& child = *std::prev(next);
      const T end = std::min(child.end, window_end);
      if (end < shortest_end) {  // it, and every earlier sibling, ends too soon
        next = n->children.begin();
        continue;
      }
      const T start = static_cast<T>(end - r.duration);
      if (start < child.begin) {
        --next;  // too short for the job: neither it nor any block inside it can hold it
        continue;
      }
      const C found = static_cast<C>(level + child.gain);
      if (r.amount <= found) return start;
      n = &child;
      level = found;
      next = n->children.lower_bound(window_end);
    }
  }

  /// Books `amount` over `span`. Throws invalid_request for an empty span, one beginning before
  /// the origin, or an amount not positive or above the total; insufficient_capacity when
  /// `amount` is not free throughout (naming the first time it is not). Strong guarantee. O(h log n
  /// + k log n), see the file's description.
  void reserve(interval<T> span, C amount) {
    detail::check_span("reserve", span, origin());
    detail::check_amount("reserve", amount, total_);
    const located deepest = deepest_containing(span);
    if (deepest.level < amount) {
      const located_point short_of = first_point(
          span, [amount](C free) { return free < amount; },
          [amount](C inside) { return !(inside < amount); });
      throw insufficient_capacity(detail::describe("reserve ", amount, " over ", span, ": only ",
                                                   short_of.free, " free at ", short_of.at));
    }
    // The deepest node whose capacity stays at or below the new minimum keeps its span and
    // capacity; only the child of it that holds the span changes (see rebuild()).
    const C new_min = static_cast<C>(deepest.level - amount);
    node* keep = deepest.n;
    C keep_level = deepest.level;
    while (keep_level > new_min) {
      keep_level = static_cast<C>(keep_level - keep->gain);
      keep = keep->parent;
    }
    rebuild(span, static_cast<C>(-amount), keep, keep_level);
  }

  /// Gives back `amount` over `span`, the reverse of reserve. Throws invalid_request as reserve
  /// does; invalid_release when more than is booked would come back somewhere (the free
  /// capacity would exceed the total). Strong guarantee. O(h log n + k log n), see the file's
  /// description.
  void release(interval<T> span, C amount) {
    detail::check_span("release", span, origin());
    detail::check_amount("release", amount, total_);
    const C most = static_cast<C>(total_ - amount);
    const located_point over = first_point(
        span, [most](C free) { return free > most; }, [](C) { return false; });
    if (over.found)
      throw invalid_release(detail::describe("release ", amount, " over ", span, ": only ",
                                             total_ - over.free, " booked at ", over.at));
    // The deepest node containing the span has a floor inside it, which rises; its parent has
    // every floor outside the span and keeps its span and capacity.
    const located deepest = deepest_containing(span);
    node* keep = deepest.n;
    C keep_level = deepest.level;
    if (keep != root_) {
      keep_level = static_cast<C>(keep_level - keep->gain);
      keep = keep->parent;
    }
    rebuild(span, amount, keep, keep_level);
  }

  /// Forgets everything before t. Blocks that end by t are dropped; blocks that span t now
  /// begin at t, and a block left without a floor of its own is merged into its only child,
  /// which keeps the tree canonical.
  void advance_to(T t) {
    detail::check_advance(t, origin());
    node* n = root_;
    while (true) {
      while (!n->children.empty() && n->children.begin()->end <= t)
        dispose_subtree(&*n->children.begin());
      n->begin = std::max(n->begin, t);  // the first of its siblings: order is kept
      if (n->children.empty()) return;
      node* first = &*n->children.begin();
      if (n != root_ && n->children.size() == 1 && first->begin <= t && first->end == n->end) {
        // n has no floor left: its only child takes its place.
        node* parent = n->parent;
        n->children.erase(n->children.iterator_to(*first));
        parent->children.erase(parent->children.iterator_to(*n));
        first->gain = static_cast<C>(first->gain + n->gain);
        first->parent = parent;
        parent->children.insert_unique(*first);
        pool_.destroy(n);
        n = first;
        continue;
      }
      if (first->begin >= t) return;
      n = first;
    }
  }

  /// Every maximal free block from the origin on, in time order, as a vector (a copy): O(n).
  [[nodiscard]] std::vector<free_block<T, C>> free_blocks() const {
    std::vector<free_block<T, C>> blocks;
    blocks.reserve(pool_.live());
    walk_floors(
        {origin(), forever<T>}, [](C) { return false; },
        [&blocks](T at, C free) {
          if (!blocks.empty()) blocks.back().span.end = at;
          blocks.push_back({{at, forever<T>}, free});
          return false;
        });
    return blocks;
  }

  /// Changes the capacity of the resource, keeping what is booked at every time
  /// (resizable_availability). Only the top of the hierarchy changes, since gains are relative
  /// to the parent: every free capacity moves by new_total - total(), which is the gain of the
  /// top-level blocks. Growing: a single top-level block spanning everything gains the
  /// difference; otherwise the root's floors (nothing free) rise, so a new block over
  /// [origin, forever) takes the old top level as its children (the one allocation, made
  /// first). Shrinking (checked first: O(h log n + floors before the earliest overbooked one)):
  /// every point then has at least the difference free, so one block spans everything, and it
  /// loses the difference, dissolving into its children if nothing is left of it. O(h log n)
  /// besides the check and the O(m log n) move of the m top-level blocks.
  void set_total(C new_total) {
    detail::check_new_total(new_total);
    if (new_total < total_) {
      const C short_by = static_cast<C>(total_ - new_total);
      const located_point over = first_point(
          {origin(), forever<T>}, [short_by](C free) { return free < short_by; },
          [short_by](C inside) { return !(inside < short_by); });
      if (over.found)
        detail::throw_overbooked(over.at, static_cast<C>(total_ - over.free), new_total);
      node* top = &*root_->children.begin();  // spans [origin, forever): see above
      top->gain = static_cast<C>(top->gain - short_by);
      if (is_zero(top->gain)) {
        root_->children.erase(root_->children.iterator_to(*top));
        move_children(top, root_);
        pool_.destroy(top);
      }
    } else if (total_ < new_total) {
      const C grown_by = static_cast<C>(new_total - total_);
      auto& top_level = root_->children;
      if (top_level.size() == 1 && top_level.begin()->begin == origin() &&
          top_level.begin()->end == forever<T>) {
        top_level.begin()->gain = static_cast<C>(top_level.begin()->gain + grown_by);
      } else {
        node* top = pool_.create(origin(), forever<T>, grown_by, root_);  // may throw: first
        move_children(root_, top);
        top_level.insert_unique(*top);
      }
    }
    total_ = new_total;
  }

  /// One block of the hierarchy as hierarchy() lists it.
  struct hierarchy_entry {
    std::size_t depth;  ///< 1 for the blocks of the top-level list
    interval<T> span;   ///< The block's time span.
    C free;  ///< the capacity free throughout the span: the sum of the gains down to here
    C gain;  ///< c_f: what the block adds above its parent

    /// Equal when every field is equal.
    friend constexpr bool operator==(const hierarchy_entry&, const hierarchy_entry&) = default;
    /// Writes `{depth d, [b, e), free f, gain g}`.
    friend std::ostream& operator<<(std::ostream& out, const hierarchy_entry& e) {
      return out << "{depth " << e.depth << ", " << e.span << ", free " << e.free << ", gain "
                 << e.gain << '}';
    }
  };

  /// The blocks in depth-first time order (a parent before its children): the tree itself,
  /// for tests, drawings and debugging.
  [[nodiscard]] std::vector<hierarchy_entry> hierarchy() const {
    std::vector<hierarchy_entry> entries;
    entries.reserve(block_count());
    const node* n = root_;
    std::size_t depth = 0;
    C level{};
    auto it = n->children.begin();
    while (true) {
      if (it == n->children.end()) {
        if (n == root_) return entries;
        const node* done = n;
        n = n->parent;
        --depth;
        level = static_cast<C>(level - done->gain);
        it = std::next(n->children.iterator_to(*done));
        continue;
      }
      n = &*it;
      ++depth;
      level = static_cast<C>(level + n->gain);
      entries.push_back({depth, {n->begin, n->end}, level, n->gain});
      it = n->children.begin();
    }
  }

  /// The number of blocks (tree nodes) besides the virtual root: the size of the structure.
  [[nodiscard]] std::size_t block_count() const noexcept { return pool_.live() - 1; }

  /// Bytes held by the structure, pool slack included.
  [[nodiscard]] std::size_t memory_usage() const noexcept {
    return sizeof(*this) + pool_.capacity() * pool_.node_size() +
           scratch_.items.capacity() * sizeof(item) + scratch_.dissolved.capacity() * sizeof(part) +
           scratch_.frames.capacity() * sizeof(frame) + scratch_.stack.capacity() * sizeof(open);
  }

  /// Checks that the tree is the canonical capacity hierarchy of its own profile: every block
  /// adds capacity above its parent, lies inside it, has a floor of its own, and is separated
  /// from its siblings by a floor of the parent; the root spans [origin, forever) at 0.
  void validate() const {
    if (root_ == nullptr) throw invariant_violation("capacity_tree: no root");
    if (root_->parent != nullptr || root_->end != forever<T> || root_->gain != C{})
      throw invariant_violation("capacity_tree: the root is not [origin, forever) at 0");
    std::size_t count = 1;
    const node* n = root_;
    C level{};
    auto it = n->children.begin();
    while (true) {
      if (it == n->children.end()) {
        if (n == root_) break;
        const node* done = n;
        n = n->parent;
        level = static_cast<C>(level - done->gain);
        it = std::next(n->children.iterator_to(*done));
        continue;
      }
      const node& child = *it;
      ++count;
      const auto where = [&child] {
        return detail::describe(" at [", child.begin, ", ", child.end, ")");
      };
      if (child.parent != n)
        throw invariant_violation("capacity_tree: wrong parent link" + where());
      if (!(child.begin < child.end))
        throw invariant_violation("capacity_tree: empty block" + where());
      if (child.begin < n->begin || child.end > n->end)
        throw invariant_violation("capacity_tree: block outside its parent" + where());
      if (!(C{} < child.gain))
        throw invariant_violation("capacity_tree: block adds no capacity" + where());
      if (it != n->children.begin() && !(std::prev(it)->end < child.begin))
        throw invariant_violation("capacity_tree: siblings touch, should be merged" + where());
      const C child_level = static_cast<C>(level + child.gain);
      if (child_level > total_)
        throw invariant_violation("capacity_tree: more than the total free" + where());
      if (child.children.size() == 1 && child.children.begin()->begin == child.begin &&
          child.children.begin()->end == child.end)
        throw invariant_violation("capacity_tree: block without a floor of its own" + where());
      n = &child;
      level = child_level;
      it = n->children.begin();
    }
    if (count != pool_.live())
      throw invariant_violation("capacity_tree: pool and tree disagree on the node count");
  }

 private:
  struct node;

  struct begin_of {
    using type = T;
    const T& operator()(const node& n) const noexcept { return n.begin; }
  };

  struct node : boost::intrusive::set_base_hook<
                    boost::intrusive::optimize_size<true>,
                    boost::intrusive::link_mode<boost::intrusive::normal_link>> {
    node(T b, T e, C g, node* p) noexcept : begin(b), end(e), gain(g), parent(p) {}
    T begin;
    T end;
    C gain;  // c_f: free capacity above the parent's, throughout [begin, end)
    node* parent;
    // Declared inside node, where the hook base is known: the set nests node in itself.
    using child_set = boost::intrusive::set<node, boost::intrusive::key_of_value<begin_of>,
                                            boost::intrusive::constant_time_size<true>>;
    child_set children;  // ordered by begin, pairwise separated
  };

  using child_set = typename node::child_set;

  using child_iterator = typename child_set::iterator;
  using const_child_iterator = typename child_set::const_iterator;

  struct located {
    node* n;
    C level;
  };

  struct located_point {
    bool found;
    T at;
    C free;
  };

  /// The first child of n that ends after t (holds t or lies after it).
  template <class Node>
  [[nodiscard]] static auto first_child_ending_after(Node* n, T t) {
    if (t <= n->begin) return n->children.begin();  // the common case in a search: no lookup
    auto it = n->children.upper_bound(t);
    if (it != n->children.begin() && std::prev(it)->end > t) --it;
    return it;
  }

  /// The first child of n that ends at or after t (holds t, touches it from the left, or lies
  /// after it).
  [[nodiscard]] static child_iterator first_child_reaching(node* n, T t) {
    auto it = n->children.upper_bound(t);
    if (it != n->children.begin() && std::prev(it)->end >= t) --it;
    return it;
  }

  /// The deepest node whose span contains the whole span, with its capacity.
  [[nodiscard]] located deepest_containing(interval<T> span) const {
    node* n = root_;
    C level{};
    while (true) {
      auto it = n->children.upper_bound(span.begin);
      if (it == n->children.begin()) break;
      --it;
      if (it->end < span.end || it->end <= span.begin) break;
      n = &*it;
      level = static_cast<C>(level + n->gain);
    }
    return {n, level};
  }

  /// Visits the floors of the profile inside span in time order, as (begin, free) pairs,
  /// skipping every subtree whose capacity satisfies `skip` (nothing inside it is wanted);
  /// stops when `visit` returns true.
  template <class Skip, class Visit>
  void walk_floors(interval<T> span, Skip skip, Visit visit) const {
    const node* n = root_;
    C level{};
    T cursor = span.begin;
    auto it = first_child_ending_after(n, cursor);
    while (cursor < span.end) {
      if (it == n->children.end() || it->begin >= span.end) {
        if (cursor < std::min(n->end, span.end) && visit(cursor, level)) return;
        if (n == root_) return;
        cursor = n->end;
        const node* done = n;
        n = n->parent;
        level = static_cast<C>(level - done->gain);
        it = std::next(n->children.iterator_to(*done));
        continue;
      }
      if (cursor < it->begin) {
        if (visit(cursor, level)) return;
        cursor = it->begin;
      }
      const C inside = static_cast<C>(level + it->gain);
      if (skip(inside)) {
        cursor = it->end;
        ++it;
        continue;
      }
      n = &*it;
      level = inside;
      it = first_child_ending_after(n, cursor);
    }
  }

  /// The first point of span whose free capacity is `wanted`, for error messages and the
  /// release check; `skip` tells from a subtree's capacity that nothing in it is wanted.
  template <class Wanted, class Skip>
  [[nodiscard]] located_point first_point(interval<T> span, Wanted wanted, Skip skip) const {
    located_point result{false, span.begin, C{}};
    walk_floors(span, skip, [&](T at, C free) {
      if (!wanted(free)) return false;
      result = {true, at, free};
      return true;
    });
    return result;
  }

  // ---- Reserve and release: the local rebuild of §5 ("the allocation is a complex splitting
  // operation within the tree-like structure").
  //
  // `keep` is a node whose span and capacity the change leaves alone, and which contains the
  // span. Only its children that meet [span.begin, span.end] change. Their profile is cut
  // into a time-ordered sequence of items:
  //  - floor:  a stretch of one node's own capacity (split at the span's ends, the part
  //            inside shifted by delta);
  //  - brick:  a whole subtree that lies strictly inside or strictly outside the span, kept
  //            as it is (its neighbours are floors of lower capacity, so it never merges);
  //  - left / right part: the part of a cut node before / after the span, with its children
  //            left in place, so that the far parts of a wide block are not touched.
  // A stack pass (the level-set construction of a Cartesian tree) then rebuilds the canonical
  // hierarchy over the items. Everything that can throw (scratch space, new nodes from the
  // pool) happens before the first change: the strong guarantee.

  enum class item_kind : unsigned char { floor, brick, left_part, right_part };

  struct item {
    item_kind kind;
    T begin;        // floors and right parts
    C level;        // the capacity, after the change
    node* n;        // bricks
    std::size_t p;  // parts: index into scratch_.dissolved
  };

  struct part {
    node* n;       // a node the rebuild takes apart
    node* holder;  // the node that holds its children after the span (n, until n closes)
    T right_from;  // where its right part begins
    bool has_left;
    bool has_right;
    bool open;  // its left part is on the stack
    bool right_done;
    bool used;    // the node object lives on in the new tree
    bool linked;  // still in its old parent's set (a left part whose parent keeps its own)
  };

  struct frame {
    node* n;
    C level;
    child_iterator next;
    T cursor;
    std::size_t p;  // npos for the kept node
  };

  struct open {
    node* n;
    C level;
    std::size_t p;  // a left part's index, or npos
  };

  static constexpr std::size_t npos = std::numeric_limits<std::size_t>::max();

  struct scratch {
    std::vector<item> items;
    std::vector<part> dissolved;
    std::vector<frame> frames;
    std::vector<open> stack;
  };

  void rebuild(interval<T> span, C delta, node* keep, C keep_level) {
    scratch& s = scratch_;
    s.items.clear();
    s.dissolved.clear();
    s.frames.clear();
    s.stack.clear();
    const T lo = span.begin;
    const T hi = span.end;

    // Phase 1: read the affected part of the tree into items. May throw; changes nothing.
    std::size_t new_nodes = 0;
    const auto emit_floors = [&](T from, T to, C level) {
      while (from < to) {
        T cut = to;
        if (from < lo && lo < cut) cut = lo;
        if (from < hi && hi < cut) cut = hi;
        const bool inside = lo <= from && from < hi;
        s.items.push_back({item_kind::floor, from, static_cast<C>(inside ? level + delta : level),
                           nullptr, npos});
        ++new_nodes;
        from = cut;
      }
    };
    const auto meets_span = [lo, hi](const node& x) { return x.end >= lo && x.begin <= hi; };

    auto first = first_child_reaching(keep, lo);
    const T range_begin =
        first != keep->children.end() && meets_span(*first) ? std::min(lo, first->begin) : lo;
    T range_end = hi;
    s.frames.push_back({keep, keep_level, first, range_begin, npos});
    while (!s.frames.empty()) {
      frame& f = s.frames.back();
      if (f.next != f.n->children.end() && meets_span(*f.next)) {
        node* x = &*f.next;
        ++f.next;
        emit_floors(f.cursor, x->begin, f.level);
        f.cursor = x->end;
        if (f.p == npos) range_end = std::max(hi, x->end);
        const C x_level = static_cast<C>(f.level + x->gain);
        if (lo < x->begin && x->end < hi) {
          s.items.push_back({item_kind::brick, x->begin, static_cast<C>(x_level + delta), x, npos});
          continue;
        }
        // x is cut by, or touches, an end of the span: take it apart.
        const std::size_t p = s.dissolved.size();
        auto core = first_child_reaching(x, lo);
        T left_end = lo;
        if (core != x->children.end() && meets_span(*core) && core->begin < lo)
          left_end = core->begin;
        const bool has_left = x->begin < left_end;
        // A left part usually ends up under the same parent as before: if that parent keeps
        // its node object too, x stays in its set, and attach() only updates its gain.
        const bool linked = has_left && (f.p == npos || s.dissolved[f.p].has_left);
        s.dissolved.push_back({x, x, x->end, has_left, false, false, false, false, linked});
        if (has_left) s.items.push_back({item_kind::left_part, x->begin, x_level, nullptr, p});
        s.frames.push_back({x, x_level, core, has_left ? left_end : x->begin, p});
        continue;
      }
      if (f.p == npos) {
        emit_floors(f.cursor, range_end, f.level);
        s.frames.pop_back();
        continue;
      }
      const T right_from = std::min(f.n->end, std::max(hi, f.cursor));
      emit_floors(f.cursor, right_from, f.level);
      if (right_from < f.n->end) {
        part& d = s.dissolved[f.p];
        d.has_right = true;
        d.right_from = right_from;
        s.items.push_back({item_kind::right_part, right_from, f.level, nullptr, f.p});
        ++new_nodes;  // a holder, should the node close before its right part
      }
      s.frames.pop_back();
    }
    s.stack.reserve(s.items.size() + 1);
    pool_.reserve_nodes(new_nodes);

    // Phase 2: nothing below can throw.
    for (const part& d : s.dissolved)
      if (!d.linked) unlink(d.n);
    for (const item& i : s.items)
      if (i.kind == item_kind::brick) unlink(i.n);

    s.stack.push_back({keep, keep_level, npos});
    for (const item& i : s.items) {
      switch (i.kind) {
        case item_kind::floor: {
          const open popped = close_above(i.level, i.begin);
          if (s.stack.back().level == i.level) {
            if (popped.n != nullptr) attach(s.stack.back(), popped);
          } else {
            node* m = pool_.create(popped.n != nullptr ? popped.n->begin : i.begin, i.begin, C{},
                                   nullptr);
            const open created{m, i.level, npos};
            if (popped.n != nullptr) attach(created, popped);
            s.stack.push_back(created);
          }
          break;
        }
        case item_kind::brick:
          s.stack.push_back({i.n, i.level, npos});
          break;
        case item_kind::left_part: {
          part& d = s.dissolved[i.p];
          d.open = true;
          d.used = true;
          s.stack.push_back({d.n, i.level, i.p});
          break;
        }
        case item_kind::right_part: {
          const open popped = close_above(i.level, i.begin);
          part& d = s.dissolved[i.p];
          d.right_done = true;
          open& top = s.stack.back();
          if (top.level == i.level) {
            if (!(d.open && top.n == d.n)) {
              // Another block of the same capacity reaches here: the children after the span
              // join it.
              move_children(d.holder, top.n);
              if (d.holder != d.n) pool_.destroy(d.holder);
            }
            if (popped.n != nullptr) attach(top, popped);
          } else {
            node* h = d.holder;
            h->begin = popped.n != nullptr ? popped.n->begin : i.begin;
            const open resumed{h, i.level, npos};
            if (popped.n != nullptr) attach(resumed, popped);
            s.stack.push_back(resumed);
            if (h == d.n) d.used = true;
          }
          break;
        }
      }
    }
    const open popped = close_above(keep_level, range_end);
    if (popped.n != nullptr) attach(s.stack.back(), popped);
    for (const part& d : s.dissolved)
      if (!d.used) pool_.destroy(d.n);
  }

  /// Closes every open node above `level` at `at`, each inside the one below it; returns the
  /// lowest one closed (still to be attached), or a null entry.
  open close_above(C level, T at) noexcept {
    open popped{nullptr, C{}, npos};
    while (scratch_.stack.back().level > level) {
      open o = scratch_.stack.back();
      scratch_.stack.pop_back();
      o.n->end = at;  // a brick's end is already at
      if (o.p != npos) {
        part& d = scratch_.dissolved[o.p];
        d.open = false;
        if (d.has_right && !d.right_done) {
          // The block closes before its part after the span: the two parts become separate
          // blocks. Whichever part has fewer children moves them to a new node; the other
          // keeps the node object (found from both ends at once, in O(fewer children)).
          const T cut = d.right_from;
          if (fewer_children_before(d.n, cut)) {
            node* left = pool_.create(d.n->begin, at, C{}, nullptr);
            move_children_before(d.n, left, cut);
            if (d.linked) unlink(d.n);  // its begin is about to change
            d.linked = false;
            o = {left, o.level, npos};
            d.used = false;  // d.n now holds the right part, until that is resumed
          } else {
            node* holder = pool_.create(cut, d.n->end, C{}, nullptr);
            move_children(d.n, holder, cut);
            d.holder = holder;
          }
        }
      }
      if (popped.n != nullptr) attach(o, popped);
      popped = o;
    }
    return popped;
  }

  void attach(const open& parent, const open& child) noexcept {
    child.n->gain = static_cast<C>(child.level - parent.level);
    if (child.p != npos && scratch_.dissolved[child.p].linked) {
      if (child.n->parent == parent.n) return;  // already in place
      unlink(child.n);
      scratch_.dissolved[child.p].linked = false;
    }
    child.n->parent = parent.n;
    parent.n->children.insert_unique(*child.n);
  }

  void unlink(node* x) noexcept { x->parent->children.erase(x->parent->children.iterator_to(*x)); }

  /// Whether x has no more children before t than at or after it, counting from both ends.
  [[nodiscard]] static bool fewer_children_before(const node* x, T t) noexcept {
    auto forward = x->children.begin();
    auto backward = x->children.end();
    while (true) {
      if (forward == x->children.end() || !(forward->begin < t)) return true;
      if (backward == x->children.begin() || std::prev(backward)->begin < t) return false;
      ++forward;
      --backward;
    }
  }

  /// Moves the children of `from` that begin before `before` to `to` (same capacity).
  void move_children_before(node* from, node* to, T before) noexcept {
    auto it = from->children.begin();
    while (it != from->children.end() && it->begin < before) {
      node& child = *it;
      it = from->children.erase(it);
      child.parent = to;
      to->children.insert_unique(child);
    }
  }

  /// Moves the children of `from` that begin at or after `from_time` to `to` (same capacity).
  void move_children(node* from, node* to, T from_time = std::numeric_limits<T>::min()) noexcept {
    auto it = from->children.lower_bound(from_time);
    while (it != from->children.end()) {
      node& child = *it;
      it = from->children.erase(it);
      child.parent = to;
      to->children.insert_unique(child);
    }
  }

  /// Destroys x and everything below it, without recursion (the tree may be deep).
  void dispose_subtree(node* x) noexcept {
    if (x->parent != nullptr) unlink(x);
    node* n = x;
    while (true) {
      if (!n->children.empty()) {
        n = &*n->children.begin();
        continue;
      }
      node* parent = n->parent;
      const bool last = n == x;
      if (!last) unlink(n);
      pool_.destroy(n);
      if (last) return;
      n = parent;
    }
  }

  void clear() noexcept {
    if (root_ != nullptr) dispose_subtree(root_);
    root_ = nullptr;
  }

  /// A fresh tree: the root floor at 0 over [origin, forever) holding one block of everything.
  /// Called from the constructor's member initialisers, after pool_ (declared before root_).
  node* plant(C total, T origin) {
    detail::check_profile("capacity_tree", total, origin);
    node* root = pool_.create(origin, forever<T>, C{}, nullptr);
    node* all = pool_.create(origin, forever<T>, total, root);
    root->children.insert_unique(*all);
    return root;
  }

  void copy_from(const capacity_tree& other) {
    const node* from = other.root_;
    root_ = pool_.create(from->begin, from->end, from->gain, nullptr);
    node* to = root_;
    auto it = from->children.begin();
    while (true) {
      if (it != from->children.end()) {
        node* copy = pool_.create(it->begin, it->end, it->gain, to);
        to->children.insert_before(to->children.end(), *copy);
        from = &*it;
        to = copy;
        it = from->children.begin();
        continue;
      }
      if (from == other.root_) return;
      const node* done = from;
      from = from->parent;
      to = to->parent;
      it = std::next(from->children.iterator_to(*done));
    }
  }

  C total_;
  detail::node_pool<node> pool_;  ///< declared first: outlives every node's links
  node* root_ = nullptr;
  scratch scratch_;  ///< reused by every reserve and release, so they rarely allocate
};

namespace detail {
template <class...>
inline constexpr bool always_false = false;
}  // namespace detail

/// A capacity_tree over a vector capacity names a type with no members, so that asking
/// availability<capacity_tree<T, resources<N, V>>> (or dynamic_resources) is simply false;
/// building one fails with the reason.
template <time_value T, capacity_value C>
requires(!scalar_capacity<C>) class capacity_tree<T, C> {
 public:
  /// Refuses, at compile time, a capacity_tree over a vector capacity (the static_assert says
  /// why).
  template <class... Args>
  explicit capacity_tree(Args&&...) {
    static_assert(detail::always_false<Args...>,
                  "capacity_tree<T, C> needs a scalar capacity C: its blocks nest by how much is "
                  "free, which needs capacities ordered on one axis, and a vector (resources<N, "
                  "V> or dynamic_resources<V, MaxN>) is not (use free_list, free_tree or "
                  "slotted_ring for vector capacities)");
  }
};

}  // namespace leasehold
