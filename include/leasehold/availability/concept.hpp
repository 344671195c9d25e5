#pragma once

/// \file
/// The availability concept: the one question every policy in leasehold asks, "when is the
/// earliest time c units are free for d time units inside this window?", plus the calls that
/// book and release capacity. Policies are templates over this concept, never over a concrete
/// backend, so every policy runs on every backend.

#include <concepts>
#include <cstddef>
#include <optional>
#include <ranges>
#include <utility>

#include "leasehold/core/capacity.hpp"
#include "leasehold/core/free_block.hpp"
#include "leasehold/core/request.hpp"
#include "leasehold/core/time.hpp"

namespace leasehold {

/// Requirements, and why each exists:
///  - time_type / capacity_type: the tick type and what is counted; every other member is
///    spelled in them, so a policy can be written once for any backend.
///  - total(): c_r, the capacity of the resource; requests above it are malformed.
///  - origin(): the present as far as the profile is concerned; nothing before it is kept,
///    which is what keeps an online schedule from growing without bound.
///  - free_at(t), min_free(span): point and range queries, used by policies that check
///    a placement they already have in mind (element-wise minimum for vectors).
///  - earliest_fit(r): the smallest feasible start for a request, or nullopt.
///  - reserve(span, c) / release(span, c): book and give back; release is the exact inverse.
///  - advance_to(t): move the origin forward and forget the past.
///  - free_blocks(): the whole profile as maximal blocks in time order, so that two backends
///    can be compared answer for answer (the conformance suite does exactly that); a forward
///    range whose elements are free_block<time_type, capacity_type>.
///  - block_count(): the size of the structure, for benchmarks and memory accounting.
///
///   valid:   free_list<std::int64_t, int>, reference<int, resources<4>>
///   invalid: int (no members), std::map<long, int> (no earliest_fit)
template <class A>
concept availability =
    requires(A& a, const A& ca, typename A::time_type t, interval<typename A::time_type> span,
             typename A::capacity_type c,
             const request<typename A::time_type, typename A::capacity_type>& r) {
  requires time_value<typename A::time_type>;
  requires capacity_value<typename A::capacity_type>;
  { ca.total() } -> std::same_as<typename A::capacity_type>;
  { ca.origin() } -> std::same_as<typename A::time_type>;
  { ca.free_at(t) } -> std::same_as<typename A::capacity_type>;
  { ca.min_free(span) } -> std::same_as<typename A::capacity_type>;
  { ca.earliest_fit(r) } -> std::same_as<std::optional<typename A::time_type>>;
  {a.reserve(span, c)};
  {a.release(span, c)};
  {a.advance_to(t)};
  { ca.free_blocks() } -> std::ranges::forward_range;
  requires std::same_as<std::ranges::range_value_t<decltype(ca.free_blocks())>,
                        free_block<typename A::time_type, typename A::capacity_type>>;
  { ca.block_count() } -> std::convertible_to<std::size_t>;
};

// Optional refinements. The library never requires them; where a backend has one, the layers
// above use it, and each use is spelled with the concept below so that a user-written
// backend can see exactly what it opts into.

/// nothrow_rollback_availability: the backend declares `static constexpr bool nothrow_rollback
/// = true` when
///  - advance_to(t) throws only from its argument check, before changing anything, and
///  - undoing a reserve or release that just succeeded (the inverse call on the same span and
///    amount) cannot throw, so undoing a sequence of calls in reverse order cannot throw either:
///    each inverse finds the profile exactly as the call it undoes left it.
/// Why: a caller that changes several profiles, or one profile several times, in one call of
/// its own (cluster::slot_table, the adaptive scheduler) keeps the strong guarantee by undoing
/// what it did, in place, instead of working on a copy of every profile it touches.
///   valid:   free_list<>, free_tree<>, reference<>, slotted_ring<>
///   invalid: capacity_tree<> (re-splitting its hierarchy on an undo may allocate)
template <class A>
concept nothrow_rollback_availability = availability<A> && requires {
  requires A::nothrow_rollback;
};

/// latest_fit_availability: `latest_fit(r)` answers the mirror question, the LATEST feasible
/// start s of r (window.begin <= s, s + duration <= window.end, amount free over
/// [s, s + duration)), or nullopt. A window that reaches forever asks for the latest start
/// before forever; a slotted backend answers inside its horizon, slot-aligned. Why: image
/// transfers are placed "as close as possible to the deadline" (Sotomayor, Keahey & Foster,
/// Haizea §3.2; Overhead Matters' EDF as late as possible). leasehold::latest_fit(a, r)
/// (availability/latest_fit.hpp) answers it for every availability, from free_blocks() when the
/// backend has no faster member.
///   valid:   free_list<>, reference<>, slotted_ring<>, capacity_tree<>, free_tree<>
template <class A>
concept latest_fit_availability = availability<A> &&
    requires(const A& a, const request<typename A::time_type, typename A::capacity_type>& r) {
  { a.latest_fit(r) } -> std::same_as<std::optional<typename A::time_type>>;
};

/// validating_availability: `validate()` checks the structure's own invariants and throws
/// invariant_violation naming the first one broken. Why: the slot table, the lease scheduler
/// and the checkpoint reader call it after restoring or in their own validate(), so that a
/// corrupted profile is reported where it is found.
template <class A>
concept validating_availability = availability<A> && requires(const A& a) {
  a.validate();
};

/// bounded_availability: `horizon()` is the span [origin, end) the backend holds; time at or
/// past its end is out_of_horizon. Why: a fixed book-ahead (slotted_ring) answers only inside
/// it, and a checkpoint restored into such a backend is compared over the horizon only.
template <class A>
concept bounded_availability = availability<A> && requires(const A& a) {
  { a.horizon() } -> std::same_as<interval<typename A::time_type>>;
};

/// measured_availability: `memory_usage()` is the bytes the structure holds (nodes, pools,
/// arrays). Why: benchmarks report bytes per live reservation for every backend that tells.
template <class A>
concept measured_availability = availability<A> && requires(const A& a) {
  { a.memory_usage() } -> std::convertible_to<std::size_t>;
};

/// walkable_availability: the profile can be read from a time on, in place, without the copy
/// free_blocks() makes:
///  - blocks_from(t): the maximal free blocks from t onwards in time order, the first clipped to
///    begin at t, the last ending at forever (at the horizon's end for a bounded backend);
///  - blocks_in(span): the same clipped to span (the first begins at span.begin, the last ends
///    at span.end);
///  - next_change(t): the end of the block in force at t, the first time after t at which the
///    free capacity differs, or nullopt when that block lasts for ever (or to the horizon's end).
/// Both ranges are forward ranges of free_block<time_type, capacity_type>, lazy views over the
/// structure that any mutating call invalidates. Arguments are checked as free_at and min_free
/// check theirs. Why: a scheduler that asks "when does something change next?" or looks at the
/// next few blocks from now asks it thousands of times on a deep profile, and a copy of the
/// whole profile per question costs O(n) each. leasehold::blocks_from, blocks_in and
/// next_change (availability/walk.hpp) answer it for every availability, from free_blocks()
/// when the backend has no members.
///   valid:   free_list<>, free_tree<>, reference<>, slotted_ring<>
///   invalid: capacity_tree<> (answered from free_blocks() by walk.hpp)
template <class A>
concept walkable_availability = availability<A> &&
    requires(const A& a, typename A::time_type t, interval<typename A::time_type> span) {
  { a.blocks_from(t) } -> std::ranges::forward_range;
  { a.blocks_in(span) } -> std::ranges::forward_range;
  { a.next_change(t) } -> std::same_as<std::optional<typename A::time_type>>;
  requires std::same_as<std::ranges::range_value_t<decltype(a.blocks_from(t))>,
                        free_block<typename A::time_type, typename A::capacity_type>>;
  requires std::same_as<std::ranges::range_value_t<decltype(a.blocks_in(span))>,
                        free_block<typename A::time_type, typename A::capacity_type>>;
};

/// resizable_availability: `set_total(c)` changes the capacity of the resource in place: the
/// amount booked at every time stays as it is, so every block's free capacity moves by
/// c - total(), and total() becomes c. A c that is no valid total throws invalid_request; a c
/// below what is booked somewhere throws insufficient_capacity naming the earliest such time,
/// the amount booked there and c; either way nothing changes. Why: a node drained for
/// maintenance, or a licence pool that grows, changes a live profile's capacity, and rebuilding
/// the profile from its bookings would need the bookings, which the profile does not keep.
/// leasehold::set_total(a, c) (availability/set_total.hpp) calls it.
///   valid:   free_list<>, free_tree<>, capacity_tree<>, slotted_ring<>, reference<>
///   invalid: a backend without set_total (the user backend of the tests)
template <class A>
concept resizable_availability = availability<A> &&
    requires(A& a, const typename A::capacity_type& c) {
  a.set_total(c);
};

/// The element type of free_blocks(): what the conformance tests and checkpoints compare.
template <availability A>
using free_block_of = std::ranges::range_value_t<decltype(std::declval<const A&>().free_blocks())>;

}  // namespace leasehold
