#pragma once

/// \file
/// bookings<A>: bookings with identity over any availability backend. A profile only counts
/// capacity, so it cannot tell a release of what some booking holds from a legal one, and an
/// embedding scheduler ends up keeping its own map of what it booked. This layer keeps that map
/// once, for every backend: book(span, amount) returns a booking_id, and release, shrink and
/// find take one. A release of an id that is not live is refused (invalid_release) instead of
/// quietly giving back capacity that another booking holds.
///
/// bookings<A> is itself an availability: every query is forwarded to the profile, and the plain
/// reserve / release stay available as anonymous bookings (capacity held without an id), so a
/// policy written against the concept runs on it unchanged.
///
/// Two more things an embedder needs live here because they are about bookings, not about free
/// capacity: a plan end (a horizon no booking and no search may cross, as a planner's base time
/// plus duration), and a ledger that can be walked in id order and compared.
///
/// The ledger is a Boost.Intrusive tree of nodes from a pool, by id, for the handle calls
/// (ids only grow, so a new booking goes in at the end without a search), and a sorted index
/// of (end, id) keys in chunks (detail/end_index.hpp), so that advance_to forgets the bookings
/// that ended in O(log n + forgotten) rather than by scanning every live one, so that the
/// latest end (what a plan end must not cut) is at hand, and so that next_end finds where the
/// next booking ends. The ends are kept in chunks rather than in a second tree through the
/// nodes because a tree insert waits on memory at most of its steps, which made that index the
/// largest cost the ledger added to a booking. There is no index by begin: where bookings
/// begin follows from the profile and the ends (see next_end).
///
/// Costs, with n live bookings: book, release, shrink O(log n) plus the backend's call; find
/// and next_end O(log n); advance_to the backend's plus O(log n) per booking forgotten.
///
/// Every mutating call gives the strong guarantee: the ledger node is allocated before the
/// profile changes, and the ledger changes only after the profile did.

#include <algorithm>
#include <boost/intrusive/set.hpp>
#include <compare>
#include <cstddef>
#include <cstdint>
#include <iterator>
#include <optional>
#include <ostream>
#include <type_traits>
#include <utility>

#include "leasehold/availability/concept.hpp"
#include "leasehold/availability/detail/end_index.hpp"
#include "leasehold/availability/detail/node_pool.hpp"
#include "leasehold/availability/detail/profile_types.hpp"
#include "leasehold/availability/latest_fit.hpp"
#include "leasehold/availability/walk.hpp"
#include "leasehold/core/capacity.hpp"
#include "leasehold/core/detail/checked_arithmetic.hpp"
#include "leasehold/core/detail/checks.hpp"
#include "leasehold/core/detail/swap_members.hpp"
#include "leasehold/core/error.hpp"
#include "leasehold/core/request.hpp"
#include "leasehold/core/time.hpp"

namespace leasehold {

/// The handle of one booking. Ids count up from 1 in the order bookings are made and are never
/// reused by a ledger; 0 is never a booking.
struct booking_id {
  /// The number itself (0: no booking).
  std::uint64_t value = 0;

  /// Ids compare as their numbers: a later booking has a greater id.
  friend constexpr bool operator==(booking_id, booking_id) = default;
  /// Ordered as their numbers, so the order of the bookings' making.
  friend constexpr auto operator<=>(booking_id, booking_id) = default;
  /// Writes `booking #n`.
  friend std::ostream& operator<<(std::ostream& out, booking_id id) {
    return out << "booking #" << id.value;
  }
};

/// One live booking: `amount` held over `span`. A booking made before the profile's origin moved
/// past its begin keeps the span it was made with; it holds capacity from origin() on.
template <time_value T, capacity_value C>
struct booking {
  /// Its handle.
  booking_id id;
  /// The span it was made with.
  interval<T> span;
  /// What it holds throughout its span.
  C amount;

  /// Equal when id, span and amount are equal.
  friend constexpr bool operator==(const booking&, const booking&) = default;
  /// Writes `booking #n [b, e) amount a`.
  friend std::ostream& operator<<(std::ostream& out, const booking& b) {
    return out << b.id << ' ' << b.span << " amount " << b.amount;
  }
};

/// A ledger over an availability profile: every booking gets an id (booking_id) to
/// release or shrink it by, an optional plan end bounds bookings and searches, and every
/// mutating call gives the strong guarantee. Costs are the profile's plus O(log b) for b live
/// bookings.
template <availability A>
class bookings : public detail::profile_types<typename A::time_type, typename A::capacity_type> {
  using T = typename A::time_type;
  using C = typename A::capacity_type;

 public:
  /// The availability profile the ledger keeps.
  using profile_type = A;
  /// What the ledger lists.
  using booking_type = booking<T, C>;

 private:
  struct by_id_hook_tag;
  using link_mode = boost::intrusive::link_mode<boost::intrusive::normal_link>;

  struct node : booking_type,
                boost::intrusive::set_base_hook<boost::intrusive::tag<by_id_hook_tag>, link_mode,
                                                boost::intrusive::optimize_size<true>> {
    explicit node(const booking_type& b) : booking_type(b) {}
  };

  struct id_of {
    using type = std::uint64_t;
    type operator()(const node& n) const noexcept { return n.id.value; }
  };
  /// The index by end's key: ordered by end, ties by id, so that every booking has its own.
  using end_key = typename detail::end_index<T>::key;
  [[nodiscard]] static end_key end_of(const booking_type& b) noexcept {
    return {b.span.end, b.id.value};
  }

  using by_id_set = boost::intrusive::set<
      node,
      boost::intrusive::base_hook<boost::intrusive::set_base_hook<
          boost::intrusive::tag<by_id_hook_tag>, link_mode, boost::intrusive::optimize_size<true>>>,
      boost::intrusive::key_of_value<id_of>, boost::intrusive::constant_time_size<true>>;

 public:
  /// Walks the live bookings in id order; yields const booking_type&.
  class const_iterator {
   public:
    using iterator_category = std::forward_iterator_tag;  ///< A forward iterator.
    using value_type = booking_type;                      ///< What it yields.
    using difference_type = std::ptrdiff_t;               ///< As for any forward iterator.
    using pointer = const booking_type*;                  ///< operator->'s result.
    using reference = const booking_type&;                ///< operator*'s result.

    /// A singular iterator, only to be assigned to.
    const_iterator() = default;
    /// The booking it points at.
    reference operator*() const noexcept { return *at_; }
    /// The booking it points at.
    pointer operator->() const noexcept { return &*at_; }
    /// To the live booking of the next greater id.
    const_iterator& operator++() noexcept {
      ++at_;
      return *this;
    }
    /// To the next live booking; returns the iterator as it was.
    const_iterator operator++(int) noexcept {
      const_iterator before = *this;
      ++at_;
      return before;
    }
    /// Equal when they point at the same booking of the same ledger.
    friend bool operator==(const const_iterator&, const const_iterator&) = default;

   private:
    friend class bookings;
    explicit const_iterator(typename by_id_set::const_iterator at) : at_(at) {}
    typename by_id_set::const_iterator at_{};
  };

  /// The live bookings in id order, as a view over the ledger (invalidated by any mutating call).
  class live_view {
   public:
    /// The live booking of the smallest id.
    [[nodiscard]] const_iterator begin() const noexcept { return const_iterator(ids_->begin()); }
    /// Past the live booking of the greatest id.
    [[nodiscard]] const_iterator end() const noexcept { return const_iterator(ids_->end()); }
    /// The number of live bookings.
    [[nodiscard]] std::size_t size() const noexcept { return ids_->size(); }
    /// True when no booking is live.
    [[nodiscard]] bool empty() const noexcept { return ids_->empty(); }

   private:
    friend class bookings;
    explicit live_view(const by_id_set& ids) : ids_(&ids) {}
    const by_id_set* ids_;
  };

  /// A profile of `total` capacity, all of it free from `origin` to forever. Throws
  /// invalid_request for a total that is not positive or an origin that leaves no time to book.
  explicit bookings(A profile) : profile_(std::move(profile)) {}

  ~bookings() { clear_ledger(); }

  // The ledger is copied before the profile (profile_ is declared last), so that the profile,
  // which the copy's next search and booking read, is what the caches hold last: copying a
  // planner to try something on it is the common use of a copy.
  /// A deep copy: the same blocks, in memory of its own (strong guarantee: a copy that cannot
  /// allocate throws std::bad_alloc and leaves nothing behind).
  bookings(const bookings& other)
      : ends_(other.ends_),
        next_id_(other.next_id_),
        plan_end_(other.plan_end_),
        profile_(copy_ledger(other)) {
    if constexpr (!std::is_trivially_destructible_v<node>) copy_nodes(other);
  }

  /// Takes other's blocks without copying them; other may then only be destroyed or assigned to.
  bookings(bookings&& other) noexcept
      : pool_(std::move(other.pool_)),
        by_id_(std::move(other.by_id_)),
        ends_(std::move(other.ends_)),
        next_id_(other.next_id_),
        plan_end_(other.plan_end_),
        profile_(std::move(other.profile_)) {}

  /// Copy and move assignment in one (copy and swap): a copy that throws leaves *this
  /// unchanged.
  bookings& operator=(bookings other) noexcept {
    swap(other);
    return *this;
  }

  /// Exchanges the two profiles' contents; O(1), never throws.
  void swap(bookings& other) noexcept {
    detail::swap_members(*this, other, &bookings::profile_, &bookings::pool_, &bookings::by_id_,
                         &bookings::ends_, &bookings::next_id_, &bookings::plan_end_);
  }
  /// Exchanges the two profiles' contents; O(1), never throws.
  friend void swap(bookings& a, bookings& b) noexcept { a.swap(b); }

  /// The profile, read-only: every change goes through the ledger, so that they agree.
  [[nodiscard]] const A& profile() const noexcept { return profile_; }

  // ---- Bookings with identity -------------------------------------------------------------

  /// Books `amount` over `span` and returns the new booking's id. An amount of zero is a
  /// booking that holds nothing (a planner may record a span of no resources); it still gets
  /// an id. Throws as reserve() does: invalid_request for a malformed span or amount (negative,
  /// above the total, or crossing the plan end), insufficient_capacity where it is not free.
  booking_id book(interval<T> span, const C& amount) {
    check_booking("book", span, amount);
    pool_.reserve_nodes(1);  // before the profile changes: from here on nothing else allocates
    const auto room = ends_.make_room({span.end, next_id_});
    if (!is_zero(amount)) profile_.reserve(span, amount);
    const booking_id id{next_id_};
    insert(*pool_.create(booking_type{id, span, amount}), room);
    ++next_id_;
    return id;
  }

  /// Gives back everything the booking holds and forgets it. An id that is not a live booking
  /// is refused with invalid_release, and nothing changes.
  void release(booking_id id) {
    node& n = live_node("release", id);
    give_back(n, n.amount);
    erase(n);
  }

  /// Gives back `by` of the booking's amount over its whole span (a partial release). When
  /// nothing is left the booking is gone, and the call returns true. `by` must be at least zero
  /// and at most the booking's amount (component by component), else invalid_release.
  bool shrink(booking_id id, const C& by) {
    node& n = live_node("shrink", id);
    if (!is_nonnegative(by) || !fits(by, n.amount))
      throw invalid_release(
          detail::describe("shrink(", id, ") by ", by, ": the booking holds only ", n.amount));
    if (by == n.amount) {
      give_back(n, n.amount);
      erase(n);
      return true;
    }
    if (!is_zero(by)) {
      give_back(n, by);
      n.amount -= by;
    }
    return false;
  }

  /// Puts back a booking that was released, with its own id, span and amount: the inverse of
  /// release(id), for a caller that undoes its own changes in reverse (a journal). The id must
  /// have been handed out by this ledger (below next_id()) and not be live. Throws as book().
  void restore(const booking_type& b) {
    if (b.id.value == 0 || b.id.value >= next_id_ || by_id_.find(b.id.value) != by_id_.end())
      throw invalid_request(
          detail::describe("restore(", b.id, "): not a released booking of this ledger"));
    check_booking("restore", b.span, b.amount);
    pool_.reserve_nodes(1);
    const auto room = ends_.make_room(end_of(b));
    if (!is_zero(b.amount)) profile_.reserve(b.span, b.amount);
    insert(*pool_.create(b), room);
  }

  /// The live booking with this id, or nullptr.
  [[nodiscard]] const booking_type* find(booking_id id) const noexcept {
    const auto it = by_id_.find(id.value);
    return it == by_id_.end() ? nullptr : &*it;
  }
  /// True when `id` is a live booking. O(log b) for b live bookings.
  [[nodiscard]] bool contains(booking_id id) const noexcept { return find(id) != nullptr; }

  /// Live bookings.
  [[nodiscard]] std::size_t size() const noexcept { return by_id_.size(); }
  /// True when no booking is live.
  [[nodiscard]] bool empty() const noexcept { return by_id_.empty(); }
  /// The live bookings in id order, as a view (invalidated by any mutating call).
  [[nodiscard]] live_view live() const noexcept { return live_view(by_id_); }
  /// The live booking of the smallest id.
  [[nodiscard]] const_iterator begin() const noexcept { return const_iterator(by_id_.begin()); }
  /// Past the live booking of the greatest id.
  [[nodiscard]] const_iterator end() const noexcept { return const_iterator(by_id_.end()); }

  /// The earliest time at or after t where a live booking ends, or nullopt when none does.
  /// With the profile's next_change it gives the times where bookings begin or end, for a
  /// planner that offers those as candidate starts (as Flux's does), including the edges that
  /// the profile's merged blocks do not show: where one booking ends as another of the same
  /// amount begins. When only bookings hold capacity, every time where a booking of a positive
  /// amount begins is a time where the free capacity changes, or where another booking ends.
  /// O(log n).
  [[nodiscard]] std::optional<T> next_end(T t) const {
    const std::optional<end_key> e = ends_.first_at_or_after(t);
    if (!e) return std::nullopt;
    return e->first;
  }

  /// The id the next book() returns.
  [[nodiscard]] booking_id next_id() const noexcept { return booking_id{next_id_}; }

  /// Releases every live booking (anonymous reserves stay) and keeps counting ids from where
  /// they were.
  void clear() {
    // On a copy, for every backend: a release can fail even where undoing one cannot (an
    // anonymous release(span, c) may have given back what a booking holds), and the bookings
    // released before it must then stay booked.
    A after = profile_;
    for (const node& n : by_id_)
      if (!is_zero(n.amount)) after.release(held_span(n), n.amount);
    profile_ = std::move(after);
    clear_ledger();
  }

  // ---- The plan end -------------------------------------------------------------------------

  /// A horizon that no booking and no search may cross: book() refuses spans that end after it,
  /// and earliest_fit / latest_fit only answer starts whose span ends by it. None by default.
  [[nodiscard]] std::optional<T> plan_end() const noexcept { return plan_end_; }

  /// Refused with invalid_request, and nothing changes, when a live booking ends after the new
  /// end, or when the end is not after the origin.
  void set_plan_end(std::optional<T> end) {
    if (end) {
      if (!(*end > profile_.origin()))
        throw invalid_request(detail::describe("set_plan_end(", *end,
                                               "): must be after the origin ", profile_.origin()));
      if (!ends_.empty() && ends_.back().first > *end) {
        const node& last = *by_id_.find(ends_.back().second);
        throw invalid_request(detail::describe("set_plan_end(", *end, "): ", last.id, " over ",
                                               last.span, " ends after it"));
      }
    }
    plan_end_ = end;
  }

  // ---- The availability members, forwarded ------------------------------------------------

  /// The total capacity, what is free where nothing is booked.
  [[nodiscard]] C total() const { return profile_.total(); }
  /// The earliest time the profile holds; advance_to moves it forward.
  [[nodiscard]] T origin() const { return profile_.origin(); }
  /// The capacity free at t. Throws invalid_request for t before the origin.
  [[nodiscard]] C free_at(T t) const { return profile_.free_at(t); }
  /// The least capacity free at any time of span, the most a booking over it could take.
  /// Throws invalid_request for an empty span or one beginning before the origin.
  [[nodiscard]] C min_free(interval<T> span) const { return profile_.min_free(span); }

  /// As the profile's, within the plan end: the window's end is clamped to it. A window too
  /// short for the duration (as given, or once clamped) has no answer, nullopt, where the bare
  /// profile calls it malformed: nothing may be booked past the plan end, and an embedder asking
  /// "anything before the end?" should not have to check the arithmetic first. Other malformed
  /// requests throw invalid_request as the profile's do.
  [[nodiscard]] std::optional<T> earliest_fit(const request<T, C>& r) const {
    const std::optional<request<T, C>> within = within_plan(r, "earliest_fit");
    if (!within) return std::nullopt;
    return profile_.earliest_fit(*within);
  }
  /// The latest start of r that ends by the plan end, as earliest_fit's counterpart (the same
  /// window clamping and errors).
  [[nodiscard]] std::optional<T> latest_fit(const request<T, C>& r) const {
    const std::optional<request<T, C>> within = within_plan(r, "latest_fit");
    if (!within) return std::nullopt;
    return leasehold::latest_fit(profile_, *within);
  }

  /// Anonymous bookings: capacity held without an id, as on the bare profile. release(span, c)
  /// cannot tell what a booking with an id holds from what an anonymous one does, so it is
  /// checked by the profile alone; book() / release(id) are the checked route.
  void reserve(interval<T> span, const C& amount) {
    check_within_plan("reserve", span);
    profile_.reserve(span, amount);
  }
  /// Gives back `amount` over `span`, the reverse of reserve. Throws invalid_request as reserve
  /// does; invalid_release when more than is booked would come back somewhere (the free
  /// capacity would exceed the total). Strong guarantee.
  void release(interval<T> span, const C& amount) { profile_.release(span, amount); }

  /// Moves the origin to t: the profile forgets the past, and bookings that ended by t are
  /// forgotten by the ledger too (their ids stay used). Bookings that span t stay live with
  /// the span they were made with; they hold capacity from t on.
  void advance_to(T t) {
    if (plan_end_ && !(t < *plan_end_))
      throw invalid_request(
          detail::describe("advance_to(", t, "): not before the plan end ", *plan_end_));
    profile_.advance_to(t);           // checks t; throws before changing anything
    const T now = profile_.origin();  // a slotted backend rounds t down to its slot
    while (!ends_.empty() && !(now < ends_.front().first))
      erase(*by_id_.find(ends_.front().second));
  }

  /// Every maximal free block from the origin on, in time order, as a vector (a copy): O(n).
  [[nodiscard]] auto free_blocks() const { return profile_.free_blocks(); }
  /// The number of maximal free blocks held, the n of the costs above.
  [[nodiscard]] std::size_t block_count() const { return profile_.block_count(); }

  /// Walking, as leasehold::blocks_from / blocks_in / next_change on the profile (the backend's
  /// own views where it has them): bookings<A> is a walkable_availability over every backend.
  [[nodiscard]] auto blocks_from(T t) const { return leasehold::blocks_from(profile_, t); }
  /// The maximal free blocks that meet `span`, clipped to it, in time order. Throws
  /// invalid_request for an empty span or one beginning before the origin.
  [[nodiscard]] auto blocks_in(interval<T> span) const {
    return leasehold::blocks_in(profile_, span);
  }
  /// The first time after t at which the free capacity differs from that at t (the end of
  /// the block in force at t), or nullopt when it never changes. Throws invalid_request for t
  /// before the origin.
  [[nodiscard]] std::optional<T> next_change(T t) const {
    return leasehold::next_change(profile_, t);
  }

  /// Changes the total as leasehold::set_total: what is booked at every time stays, bookings
  /// included (none can exceed the new total, since the profile refuses a total below what is
  /// booked anywhere: insufficient_capacity naming the earliest such time, nothing changed).
  void set_total(const C& total) requires resizable_availability<A> { profile_.set_total(total); }

  /// Bytes held: the profile's (where it tells) and the ledger's nodes.
  [[nodiscard]] std::size_t memory_usage() const noexcept requires measured_availability<A> {
    return sizeof(*this) - sizeof(A) + profile_.memory_usage() +
           pool_.capacity() * pool_.node_size() + ends_.memory_usage();
  }

  /// Checks the profile (where it can) and that the ledger agrees with it: ids below next_id(),
  /// non-empty spans inside the plan end, amounts that fit the total, and no booking holding
  /// more than the profile has booked over its span.
  void validate() const {
    if constexpr (validating_availability<A>) profile_.validate();
    if (pool_.live() != by_id_.size())
      throw invariant_violation("bookings: pool and ledger disagree on the booking count");
    if (ends_.size() != by_id_.size() || !ends_.valid())
      throw invariant_violation("bookings: the index by end is out of order or miscounted");
    ends_.for_each([this](const end_key& k) {
      const auto it = by_id_.find(k.second);
      if (it == by_id_.end() || !(end_of(*it) == k))
        throw invariant_violation(detail::describe("bookings: the index by end lists booking #",
                                                   k.second, " ending at ", k.first,
                                                   ", which is not live so"));
    });
    for (const node& n : by_id_) {
      if (n.id.value == 0 || n.id.value >= next_id_)
        throw invariant_violation(detail::describe("bookings: ", n.id, " beyond the next id"));
      if (!(n.span.begin < n.span.end) || !(profile_.origin() < n.span.end))
        throw invariant_violation(detail::describe("bookings: ", n.id, " over ", n.span));
      if (!is_nonnegative(n.amount) || !fits(n.amount, profile_.total()))
        throw invariant_violation(detail::describe("bookings: ", n.id, " amount ", n.amount));
      if (plan_end_ && n.span.end > *plan_end_)
        throw invariant_violation(detail::describe("bookings: ", n.id, " crosses the plan end"));
      if (!is_zero(n.amount) && !fits(n.amount, profile_.total() - profile_.min_free(held_span(n))))
        throw invariant_violation(
            detail::describe("bookings: ", n.id, " holds more than the profile has booked"));
    }
  }

  /// Same profile (total, origin and blocks), same live bookings, same next id and plan end.
  friend bool operator==(const bookings& a, const bookings& b) {
    if (a.next_id_ != b.next_id_ || a.plan_end_ != b.plan_end_ || a.size() != b.size())
      return false;
    if (!(a.profile_.total() == b.profile_.total()) || a.profile_.origin() != b.profile_.origin())
      return false;
    if (!std::ranges::equal(a.live(), b.live())) return false;
    return std::ranges::equal(a.profile_.free_blocks(), b.profile_.free_blocks());
  }

 private:
  void check_booking(const char* operation, interval<T> span, const C& amount) const {
    detail::check_span(operation, span, profile_.origin());
    if (!is_nonnegative(amount))
      throw invalid_request(
          detail::describe(operation, " of amount ", amount, ": amount must not be negative"));
    if (!fits(amount, profile_.total()))
      throw invalid_request(detail::describe(operation, " of amount ", amount,
                                             ": exceeds the total capacity ", profile_.total()));
    check_within_plan(operation, span);
  }

  void check_within_plan(const char* operation, interval<T> span) const {
    if (plan_end_ && span.end > *plan_end_)
      throw invalid_request(
          detail::describe(operation, ' ', span, ": ends after the plan end ", *plan_end_));
  }

  /// The request with its window clamped to the origin and the plan end, or nullopt when no
  /// start is left: a window too short for the duration is a question without an answer, not
  /// a malformed one. A non-positive duration, a bad amount or a reversed window still throw
  /// invalid_request as the profile's earliest_fit does.
  [[nodiscard]] std::optional<request<T, C>> within_plan(const request<T, C>& r,
                                                         const char* operation) const {
    if (r.duration > 0 && !(r.window.end < r.window.begin)) {
      const std::optional<T> earliest_end = detail::checked_add(r.window.begin, r.duration);
      const T end = plan_end_ ? std::min(r.window.end, *plan_end_) : r.window.end;
      if (!earliest_end || *earliest_end > end) {
        detail::check_amount(operation, r.amount, profile_.total());
        return std::nullopt;
      }
    }
    const auto starts = detail::check_request(r, profile_.total(), profile_.origin(), operation);
    if (!plan_end_ || r.window.end <= *plan_end_ || starts.empty()) return r;
    request<T, C> within = r;
    within.window = {starts.first, *plan_end_};
    const std::optional<T> earliest_end = detail::checked_add(starts.first, r.duration);
    if (!earliest_end || *earliest_end > *plan_end_) return std::nullopt;
    return within;
  }

  [[nodiscard]] node& live_node(const char* operation, booking_id id) {
    const auto it = by_id_.find(id.value);
    if (it == by_id_.end())
      throw invalid_release(detail::describe(operation, '(', id, "): no live booking has this id"));
    return *it;
  }

  /// The part of the booking's span the profile still holds: from the origin on.
  [[nodiscard]] interval<T> held_span(const node& n) const noexcept {
    return {std::max(n.span.begin, profile_.origin()), n.span.end};
  }

  void give_back(const node& n, const C& amount) {
    if (!is_zero(amount)) profile_.release(held_span(n), amount);
  }

  // `room`: what ends_.make_room(end_of(n)) returned (the index has not changed since).
  void insert(node& n, typename detail::end_index<T>::room room) noexcept {
    // A new booking's id is the largest: push_back appends it in constant time, where an insert
    // with an end() hint walks the tree's right spine to check the hint (a restored one goes
    // where it belongs).
    if (n.id.value == next_id_)
      by_id_.push_back(n);
    else
      by_id_.insert_unique(n);
    ends_.insert(end_of(n), room);
  }

  void erase(node& n) noexcept {
    ends_.erase(end_of(n));
    by_id_.erase(by_id_.iterator_to(n));
    pool_.destroy(&n);
  }

  // For the copy constructor, before profile_ is copied: copies other's nodes, when they need
  // no destructor (should the profile's copy then throw, the pool frees them without one), and
  // returns the profile to copy.
  const A& copy_ledger(const bookings& other) {
    if constexpr (std::is_trivially_destructible_v<node>) copy_nodes(other);
    return other.profile_;
  }

  // Copies other's nodes into this empty ledger (ends_ is copied already), in id order, each
  // appended at the end of the index by id (push_back), so that the copy compares nothing.
  void copy_nodes(const bookings& other) {
    pool_.reserve_nodes(other.by_id_.size());  // the last step that can throw
    for (const node& n : other.by_id_)
      by_id_.push_back(*pool_.create(static_cast<const booking_type&>(n)));
  }

  void clear_ledger() noexcept {
    ends_.clear();
    by_id_.clear_and_dispose([this](node* n) { pool_.destroy(n); });
  }

  detail::node_pool<node> pool_;  ///< declared before the sets: outlives their links
  by_id_set by_id_;
  detail::end_index<T> ends_;  ///< the live bookings' (end, id), in order
  std::uint64_t next_id_ = 1;
  std::optional<T> plan_end_;
  A profile_;  // last: the copy constructor copies it after the ledger
};

}  // namespace leasehold
