#pragma once

// The availability concept: the one question every policy in leasehold asks, "when is the
// earliest time c units are free for d time units inside this window?", plus the calls that
// book and release capacity. Policies are templates over this concept, never over a concrete
// backend, so every policy runs on every backend.

#include <concepts>
#include <cstddef>
#include <optional>
#include <ranges>

#include "leasehold/core/capacity.hpp"
#include "leasehold/core/request.hpp"
#include "leasehold/core/time.hpp"

namespace leasehold {

// Requirements, and why each exists:
//  - time_type / capacity_type: the tick type and what is counted; every other member is
//    spelled in them, so a policy can be written once for any backend.
//  - total(): c_r, the capacity of the resource; requests above it are malformed.
//  - origin(): the present as far as the profile is concerned; nothing before it is kept,
//    which is what keeps an online schedule from growing without bound.
//  - free_at(t), min_free(span): point and range queries, used by policies that check
//    a placement they already have in mind (element-wise minimum for vectors).
//  - earliest_fit(r): the smallest feasible start for a request, or nullopt.
//  - reserve(span, c) / release(span, c): book and give back; release is the exact inverse.
//  - advance_to(t): move the origin forward and forget the past.
//  - free_blocks(): the whole profile as maximal blocks in time order, so that two backends
//    can be compared answer for answer (the conformance suite does exactly that).
//  - block_count(): the size of the structure, for benchmarks and memory accounting.
//
//   valid:   free_list<std::int64_t, int>, reference<int, resources<4>>
//   invalid: int (no members), std::map<long, int> (no earliest_fit)
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
  { ca.block_count() } -> std::convertible_to<std::size_t>;
};

// Optional refinement: a backend declares `static constexpr bool nothrow_rollback = true` when
//  - advance_to(t) throws only from its argument check, before changing anything, and
//  - undoing a reserve or release that just succeeded (the inverse call on the same span and
//    amount) cannot throw, so undoing a sequence of calls in reverse order cannot throw either:
//    each inverse finds the profile exactly as the call it undoes left it.
// Why: a caller that changes several profiles, or one profile several times, in one call of
// its own (cluster::slot_table, the adaptive scheduler) keeps the strong guarantee by undoing
// what it did, in place, instead of working on a copy of every profile it touches.
//   valid:   free_list<>, free_tree<>, reference<>
//   invalid: capacity_tree<> (re-splitting its hierarchy on an undo may allocate)
template <class A>
concept nothrow_rollback_availability = availability<A> && requires {
  requires A::nothrow_rollback;
};

}  // namespace leasehold
