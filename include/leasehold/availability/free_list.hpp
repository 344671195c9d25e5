#pragma once

/// \file
/// free_list<T, C>: the time-exclusive list of free blocks of Schneider & Linnert (§5, Fig. 2
/// left). The time line from the origin to forever is cut into maximal blocks, each with one
/// free capacity; no two neighbours have the same capacity. Blocks are kept in a
/// Boost.Intrusive red-black tree keyed by their begin, so the block in force at t is found in
/// O(log n); the blocks themselves come from a node pool, not one heap allocation each.
///
/// Costs, with n blocks and k blocks touched: free_at O(log n); min_free, reserve and release
/// O(log n + k); earliest_fit O(log n + scanned blocks), scanning as Fig. 3 does; blocks_from
/// and blocks_in O(log n) to start and O(1) a block; next_change O(log n); set_total O(n).

#include <algorithm>
#include <boost/intrusive/set.hpp>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <utility>
#include <vector>

#include "leasehold/availability/detail/block_walks.hpp"
#include "leasehold/availability/detail/boundary_splits.hpp"
#include "leasehold/availability/detail/node_pool.hpp"
#include "leasehold/availability/detail/resize.hpp"
#include "leasehold/core/detail/checks.hpp"
#include "leasehold/core/detail/swap_members.hpp"
#include "leasehold/core/error.hpp"

namespace leasehold {

/// The time-exclusive list of free blocks (Schneider & Linnert §5): a model of
/// leasehold::availability with O(log n + k) updates; see the file's description for every cost.
template <time_value T = std::int64_t, capacity_value C = std::int64_t>
class free_list : public detail::block_walks<free_list<T, C>, T, C> {
 public:
  /// A profile of `total` capacity, all of it free from `origin` to forever. Throws
  /// invalid_request for a total that is not positive or an origin that leaves no time to book.
  explicit free_list(C total, T origin = 0) : total_(total) {
    detail::check_profile("free_list", total, origin);
    blocks_.insert_before(blocks_.end(), *pool_.create(origin, total));
  }

  ~free_list() { clear(); }

  /// A deep copy: the same blocks, in memory of its own (strong guarantee: a copy that cannot
  /// allocate throws std::bad_alloc and leaves nothing behind).
  free_list(const free_list& other) : total_(other.total_) {
    pool_.reserve_nodes(other.blocks_.size());  // the only step that can throw
    for (const node& n : other.blocks_) blocks_.push_back(*pool_.create(n.begin, n.free));
  }

  /// Takes other's blocks without copying them; other may then only be destroyed or assigned to.
  free_list(free_list&& other) noexcept
      : total_(other.total_), pool_(std::move(other.pool_)), blocks_(std::move(other.blocks_)) {}

  /// Copy and move assignment in one (copy and swap): a copy that throws leaves *this
  /// unchanged.
  free_list& operator=(free_list other) noexcept {
    swap(other);
    return *this;
  }

  /// Exchanges the two profiles' contents; O(1), never throws.
  void swap(free_list& other) noexcept {
    detail::swap_members(*this, other, &free_list::total_, &free_list::pool_, &free_list::blocks_);
  }

  /// advance_to throws only from its argument check, and undoing a reserve or release that
  /// just succeeded never throws (see change_over): cluster::slot_table rolls back in place.
  static constexpr bool nothrow_rollback = true;

  /// The total capacity, what is free where nothing is booked.
  [[nodiscard]] C total() const noexcept { return total_; }
  /// The earliest time the profile holds; advance_to moves it forward.
  [[nodiscard]] T origin() const noexcept { return blocks_.begin()->begin; }

  /// The capacity free at t. Throws invalid_request for t before the origin. O(log n).
  [[nodiscard]] C free_at(T t) const {
    detail::check_time("free_at", t, origin());
    return block_at(t)->free;
  }

  /// The least capacity free at any time of span, the most a booking over it could take.
  /// Throws invalid_request for an empty span or one beginning before the origin. O(log n + k).
  [[nodiscard]] C min_free(interval<T> span) const {
    detail::check_span("min_free", span, origin());
    C lowest = total_;
    for (auto it = block_at(span.begin); it != blocks_.end() && it->begin < span.end; ++it)
      lowest = elementwise_min(lowest, it->free);
    return lowest;
  }

  /// Schneider & Linnert, Fig. 3: take the first block with enough capacity, extend the
  /// candidate across adjacent blocks until it is long enough, and restart after the first
  /// block that is too small. Blocks never leave gaps here, so "adjacent" always holds.
  [[nodiscard]] std::optional<T> earliest_fit(const request<T, C>& r) const {
    const auto starts = detail::check_request(r, total_, origin());
    if (starts.empty()) return std::nullopt;
    auto it = block_at(starts.first);
    T candidate = starts.first;
    while (true) {
      while (!fits(r.amount, it->free)) {
        if (++it == blocks_.end()) return std::nullopt;
        candidate = it->begin;
      }
      if (candidate > starts.last) return std::nullopt;
      const T needed_end = static_cast<T>(candidate + r.duration);  // <= window.end
      auto scan = it;
      while (end_of(scan) < needed_end) {
        ++scan;  // end_of(last block) is forever, so scan stays valid
        if (!fits(r.amount, scan->free)) break;
      }
      if (end_of(scan) >= needed_end && fits(r.amount, scan->free)) return candidate;
      it = scan;  // the blocker; the next candidate begins after it
    }
  }

  /// The mirror of Fig. 3, walking back from the window's end: the run of blocks with enough
  /// free that ends latest is extended backwards until it is long enough, and the search
  /// restarts before the first block that is too small. O(blocks walked).
  [[nodiscard]] std::optional<T> latest_fit(const request<T, C>& r) const {
    const auto starts = detail::check_request(r, total_, origin(), "latest_fit");
    if (starts.empty()) return std::nullopt;
    // Compared without differences, which could overflow T: run_end >= starts.first + d
    // (<= the window's end) holds at the top of every turn, so run_end - d cannot.
    const T shortest_end = static_cast<T>(starts.first + r.duration);
    T run_end = static_cast<T>(starts.last + r.duration);  // the window's end
    auto it = block_at(static_cast<T>(run_end - 1));
    while (true) {
      if (fits(r.amount, it->free)) {
        if (it->begin <= run_end - r.duration) return static_cast<T>(run_end - r.duration);
      } else {
        run_end = it->begin;  // the blocker; the next run ends at its begin
      }
      if (run_end < shortest_end || it == blocks_.begin()) return std::nullopt;
      --it;
    }
  }

  /// Books `amount` over `span`. Throws invalid_request for an empty span, one beginning before
  /// the origin, or an amount not positive or above the total; insufficient_capacity when
  /// `amount` is not free throughout (naming the first time it is not). Strong guarantee. O(log n +
  /// k).
  void reserve(interval<T> span, C amount) {
    detail::check_span("reserve", span, origin());
    detail::check_amount("reserve", amount, total_);
    for (auto it = block_at(span.begin); it != blocks_.end() && it->begin < span.end; ++it)
      if (!fits(amount, it->free))
        throw insufficient_capacity(detail::describe("reserve ", amount, " over ", span, ": only ",
                                                     it->free, " free at ",
                                                     std::max(it->begin, span.begin)));
    change_over(span, [&amount](C& free) { free -= amount; });
  }

  /// Gives back `amount` over `span`, the reverse of reserve. Throws invalid_request as reserve
  /// does; invalid_release when more than is booked would come back somewhere (the free
  /// capacity would exceed the total). Strong guarantee. O(log n + k).
  void release(interval<T> span, C amount) {
    detail::check_span("release", span, origin());
    detail::check_amount("release", amount, total_);
    for (auto it = block_at(span.begin); it != blocks_.end() && it->begin < span.end; ++it)
      if (!fits(amount, total_ - it->free))
        throw invalid_release(detail::describe("release ", amount, " over ", span, ": only ",
                                               total_ - it->free, " booked at ",
                                               std::max(it->begin, span.begin)));
    change_over(span, [&amount](C& free) { free += amount; });
  }

  /// Forgets every block that ends by t and cuts the one in force at t, so the structure
  /// only ever holds the future.
  void advance_to(T t) {
    detail::check_advance(t, origin());
    auto keep = mutable_block_at(t);
    blocks_.erase_and_dispose(blocks_.begin(), keep, disposer{&pool_});
    keep->begin = t;  // still the smallest key: the order is unchanged
  }

  /// The first time after t at which the free capacity differs from that at t (the end of
  /// the block in force at t), or nullopt when it never changes. Throws invalid_request for t
  /// before the origin.
  [[nodiscard]] std::optional<T> next_change(T t) const {
    detail::check_time("next_change", t, origin());
    const auto next = blocks_.upper_bound(t);
    if (next == blocks_.end()) return std::nullopt;
    return next->begin;
  }

  /// Changes the capacity of the resource, keeping what is booked at every time
  /// (resizable_availability). Every block moves by the same amount, so neighbours stay
  /// distinct. Checked in full before the first change, which cannot throw.
  void set_total(C new_total) {
    detail::rebase_blocks(blocks_, &node::begin, &node::free, total_, new_total);
  }

  /// The number of maximal free blocks held, the n of the costs above.
  [[nodiscard]] std::size_t block_count() const noexcept { return blocks_.size(); }

  /// Bytes held by the structure, pool slack included.
  [[nodiscard]] std::size_t memory_usage() const noexcept {
    return sizeof(*this) + pool_.capacity() * pool_.node_size();
  }

  /// Checks every invariant; throws invariant_violation naming the first one broken.
  void validate() const {
    if (blocks_.empty()) throw invariant_violation("free_list: no blocks");
    if (pool_.live() != blocks_.size())
      throw invariant_violation("free_list: pool and tree disagree on the block count");
    auto previous = blocks_.end();
    for (auto it = blocks_.begin(); it != blocks_.end(); previous = it++) {
      if (!is_nonnegative(it->free) || !fits(it->free, total_))
        throw invariant_violation(detail::describe("free_list: free ", it->free, " at ", it->begin,
                                                   " outside [0, total]"));
      if (previous != blocks_.end() && !(previous->begin < it->begin))
        throw invariant_violation("free_list: blocks out of order");
      if (previous != blocks_.end() && previous->free == it->free)
        throw invariant_violation(detail::describe("free_list: blocks at ", previous->begin,
                                                   " and ", it->begin, " should be merged"));
    }
  }

 private:
  struct node : boost::intrusive::set_base_hook<
                    boost::intrusive::optimize_size<true>,
                    boost::intrusive::link_mode<boost::intrusive::normal_link>> {
    node(T b, C f) : begin(b), free(f) {}
    T begin;  // the block's end is the next block's begin, or forever
    C free;
  };

  struct begin_of {
    using type = T;
    const T& operator()(const node& n) const noexcept { return n.begin; }
  };

  using block_set = boost::intrusive::set<node, boost::intrusive::key_of_value<begin_of>,
                                          boost::intrusive::constant_time_size<true>>;
  using iterator = typename block_set::iterator;
  using const_iterator = typename block_set::const_iterator;

  struct disposer {
    detail::node_pool<node>* pool;
    void operator()(node* n) const noexcept { pool->destroy(n); }
  };

  /// block_view's cursor: a block of the set (detail/block_view.hpp).
  struct block_cursor {
    const block_set* blocks = nullptr;
    const_iterator at{};
    [[nodiscard]] free_block<T, C> block() const {
      const auto next = std::next(at);
      return {{at->begin, next == blocks->end() ? forever<T> : next->begin}, at->free};
    }
    void next() { ++at; }
  };
  // The walks (detail/block_walks.hpp) start from a cursor at t.
  friend detail::block_walks<free_list, T, C>;
  [[nodiscard]] block_cursor cursor_at(T t) const { return {&blocks_, block_at(t)}; }

  /// The block in force at t; t >= origin().
  [[nodiscard]] const_iterator block_at(T t) const { return std::prev(blocks_.upper_bound(t)); }
  [[nodiscard]] iterator mutable_block_at(T t) { return std::prev(blocks_.upper_bound(t)); }

  [[nodiscard]] T end_of(const_iterator it) const {
    const auto next = std::next(it);
    return next == blocks_.end() ? forever<T> : next->begin;
  }

  /// Makes span.begin and span.end block boundaries, applies `change` to every block in the
  /// span, then merges the two boundaries with their left neighbours where they became equal.
  /// Interior neighbours change by the same amount, so they stay distinct. The split nodes
  /// are reserved before anything changes: from there on nothing can throw. Exactly the nodes
  /// needed are reserved, never more: a merge returns a node to the pool, and the inverse call
  /// needs a split exactly where this one merged, so undoing a call that just succeeded never
  /// allocates (slot_table's rollback relies on that: nothrow_rollback).
  template <class Change>
  void change_over(interval<T> span, Change change) {
    detail::split_span_ends(
        span, [this](T t) { return block_at(t)->begin; },
        [this](std::span<const T> ends) { pool_.reserve_nodes(ends.size()); },
        [this](T t) { split_at(t); });
    for (auto it = blocks_.find(span.begin); it != blocks_.end() && it->begin < span.end; ++it)
      change(it->free);
    if (span.end != forever<T>) merge_with_left(blocks_.find(span.end));
    merge_with_left(blocks_.find(span.begin));
  }

  void split_at(T t) noexcept {
    auto it = mutable_block_at(t);
    if (it->begin == t) return;
    blocks_.insert_before(std::next(it), *pool_.create(t, it->free));
  }

  void merge_with_left(iterator it) noexcept {
    if (it == blocks_.begin() || it == blocks_.end()) return;
    if (std::prev(it)->free == it->free) blocks_.erase_and_dispose(it, disposer{&pool_});
  }

  void clear() noexcept { blocks_.clear_and_dispose(disposer{&pool_}); }

  C total_;
  detail::node_pool<node> pool_;  ///< declared before blocks_: outlives the tree's links
  block_set blocks_;
};

}  // namespace leasehold
