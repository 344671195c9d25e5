#pragma once

/// \file
/// cluster::slot_table<A>: Haizea's slot table (Sotomayor, Keahey & Foster, §3.2). W identical
/// nodes, each an availability profile A over the node's resource vector, plus an aggregate
/// profile (the sum over nodes) that rejects a gang quickly: if n x per_node is not free in
/// the sum, no n nodes can hold it either.
///
/// A gang request asks for n distinct nodes that each fit the per-node vector over the same
/// [s, s + d). earliest_fit finds the smallest such s and, among the nodes free then, picks n
/// by a node-preference key (Haizea prefers nodes that need no preemption, then nodes holding
/// the image). reserve / release take the placement and give the strong guarantee: every
/// node is checked before any is changed, and a failure part-way is rolled back.
///
/// Costs, with W nodes: earliest_fit is one aggregate earliest_fit plus, per round, one
/// earliest_fit for each node whose cached lower bound (detail/node_bounds.hpp) is below the
/// n-th smallest fit found so far, visited in order of that bound, O(log W) each; a round
/// either answers or moves the candidate start to a later block boundary, so a request rarely
/// needs more than a few rounds. The first query of a request class builds the class's bounds
/// from per-node run records (detail/run_records.hpp, scalar capacities): one short lookup per
/// node, O(W) in all, rather than one earliest_fit per node. earliest_fit_by_scan, the same
/// answer without the cache, asks all W nodes in every round.

#include <algorithm>
#include <bit>
#include <concepts>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <optional>
#include <span>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "leasehold/availability/concept.hpp"
#include "leasehold/availability/journal.hpp"
#include "leasehold/availability/walk.hpp"
#include "leasehold/cluster/detail/node_bounds.hpp"
#include "leasehold/cluster/detail/run_records.hpp"
#include "leasehold/cluster/placement.hpp"
#include "leasehold/core/capacity.hpp"
#include "leasehold/core/detail/checked_arithmetic.hpp"
#include "leasehold/core/detail/checks.hpp"
#include "leasehold/core/error.hpp"
#include "leasehold/core/time.hpp"

namespace leasehold::cluster {

namespace detail {

/// amount x n, component-wise; the caller has checked that it cannot overflow.
template <scalar_capacity C>
[[nodiscard]] constexpr C scaled(C amount, std::size_t n) noexcept {
  return static_cast<C>(amount * static_cast<C>(n));
}
template <vector_capacity C>
[[nodiscard]] constexpr C scaled(C amount, std::size_t n) noexcept {
  using V = typename C::value_type;
  for (V& v : amount) v = static_cast<V>(v * static_cast<V>(n));
  return amount;
}

/// amount x n, or nullopt if a component overflows.
template <scalar_capacity C>
[[nodiscard]] constexpr std::optional<C> checked_scaled(C amount, std::size_t n) noexcept {
  C result{};
  if (__builtin_mul_overflow(amount, n, &result)) return std::nullopt;
  return result;
}
template <vector_capacity C>
[[nodiscard]] constexpr std::optional<C> checked_scaled(C amount, std::size_t n) noexcept {
  for (auto& v : amount)
    if (__builtin_mul_overflow(v, n, &v)) return std::nullopt;
  return amount;
}

/// With a backend that rolls back in place (nothrow_rollback_availability, availability/
/// concept.hpp) the slot table's journal undoes a call's bookings in place on failure; for any
/// other backend the journal saves a copy of each profile before the call changes it, which
/// costs a copy per call but keeps the strong guarantee whatever the backend.
template <class A>
inline constexpr bool nothrow_rollback = nothrow_rollback_availability<A>;

}  // namespace detail

/// Every node may start at once: the default per-node lower bound on the start. Any other
/// Ready is a callable ready(node) -> time_type.
struct ready_now {};

/// W identical nodes, each an availability profile A, with gang earliest_fit, reserve and
/// release over distinct nodes (Haizea's slot table; see the file's description for costs).
/// Every mutating call gives the strong guarantee. Node ids are 0..W-1.
template <availability A>
class slot_table {
 public:
  using time_type = typename A::time_type;                      ///< A's time type.
  using capacity_type = typename A::capacity_type;              ///< A node's capacity.
  using node_type = A;                                          ///< One node's profile.
  using request_type = gang_request<time_type, capacity_type>;  ///< What earliest_fit takes.
  using placement_type = placement<time_type, capacity_type>;   ///< What it answers.

  /// W nodes of `per_node_total` each, all profiles starting at `origin`.
  slot_table(std::size_t node_count, capacity_type per_node_total,
             time_type origin = 0) requires std::constructible_from<A, capacity_type, time_type>
      : slot_table(node_count, per_node_total,
                   [origin](capacity_type total) { return A(total, origin); }) {}

  /// The same, for backends with other constructor arguments (slotted_ring's dt and slot
  /// count): make(total) builds one profile of that total capacity; it is called once per node
  /// and once for the aggregate, with W x per_node_total.
  template <class Make>
  requires std::same_as<std::invoke_result_t<Make&, capacity_type>, A> slot_table(
      std::size_t node_count, capacity_type per_node_total, Make make)
      : per_node_total_(per_node_total),
        aggregate_(make(checked_aggregate_total(node_count, per_node_total))),
        records_(node_count) {
    nodes_.reserve(node_count);
    for (std::size_t i = 0; i < node_count; ++i) nodes_.push_back(make(per_node_total));
    for (const A& node : nodes_)
      if (node.origin() != aggregate_.origin() || !(node.total() == per_node_total))
        throw invalid_request(leasehold::detail::describe(
            "slot_table: make(total) built a node with total ", node.total(), " and origin ",
            node.origin(), "; expected ", per_node_total, " and ", aggregate_.origin()));
  }

  /// W, the number of nodes.
  [[nodiscard]] std::size_t node_count() const noexcept { return nodes_.size(); }
  /// The capacity of one node.
  [[nodiscard]] capacity_type per_node_total() const noexcept { return per_node_total_; }
  /// The capacity of the whole table, W x per_node_total().
  [[nodiscard]] capacity_type total() const { return aggregate_.total(); }
  /// The origin every node shares.
  [[nodiscard]] time_type origin() const { return aggregate_.origin(); }
  /// Node i's profile, read-only; throws invalid_request for i >= node_count().
  [[nodiscard]] const A& node(std::size_t i) const {
    check_node("node", i);
    return nodes_[i];
  }
  /// The sum of every node's profile, which rejects a gang before any node is asked.
  [[nodiscard]] const A& aggregate() const noexcept { return aggregate_; }

  /// The placement with the smallest start, or nullopt when no n nodes are free together for
  /// the duration inside the window. Among the nodes free at that start, the n with the
  /// smallest preference(node) are chosen (ties by node id), or preference(node, start) when it
  /// takes the start too (a key that depends on when, such as the node's free capacity then);
  /// ready(node), when given, is a per-node lower bound on the start (e.g. when an image can
  /// arrive).
  ///
  /// The search visits nodes in order of a cached lower bound on their earliest fit (see
  /// detail/node_bounds.hpp) and stops as soon as no node left can change the answer, so a
  /// query touches the nodes that can host the request early rather than all W. The cache is
  /// refreshed during the search, so earliest_fit must not run concurrently with any other
  /// call on the same table. The answer is exactly earliest_fit_by_scan's.
  template <class Preference = no_preference, class Ready = ready_now>
  [[nodiscard]] std::optional<placement_type> earliest_fit(const request_type& r,
                                                           Preference preference = {},
                                                           Ready ready = {}) const {
    const gang_query q = check_gang(r);
    if (q.starts.empty()) return std::nullopt;
    bounds_type& bounds = bounds_for(r);
    std::vector<time_type> smallest;  // max-heap of the n smallest per-node fits of a round
    smallest.reserve(r.nodes);
    // The per-node fits a round asked for, by node: the last round's are the fits from the
    // answer's start, which the search for the free nodes then need not ask again.
    std::vector<std::pair<std::size_t, std::optional<time_type>>> asked;
    time_type candidate = q.starts.first;
    while (true) {
      // Quick rejection and a jump: the sum over nodes must hold n x per_node.
      const auto aggregate_start = aggregate_fit_from(q, candidate);
      if (!aggregate_start) return std::nullopt;
      candidate = *aggregate_start;
      // The n-th smallest per-node fit from the candidate, as in earliest_fit_by_scan, but
      // asking nodes in increasing order of their bound: once n fits are known, a node whose
      // bound is not below the n-th smallest of them cannot lower it.
      smallest.clear();
      asked.clear();
      typename bounds_type::by_bound walk(bounds);
      std::size_t i = 0;
      time_type bound{};
      while (walk.next(i, bound)) {
        if (smallest.size() == r.nodes && std::max(bound, candidate) >= smallest.front()) break;
        if (bounds.stale(i)) {
          const time_type fresh = refined_fit(bounds, i);
          bounds.clear_stale(i);
          if (fresh > bound) {
            bounds.set(i, fresh);
            walk.push_node(i);
            continue;
          }
        }
        const auto fit = node_fit_from(q, i, candidate, ready);
        asked.emplace_back(i, fit);
        if (!fit) continue;
        if (smallest.size() < r.nodes) {
          smallest.push_back(*fit);
          std::ranges::push_heap(smallest);
        } else if (*fit < smallest.front()) {
          std::ranges::pop_heap(smallest);
          smallest.back() = *fit;
          std::ranges::push_heap(smallest);
        }
      }
      if (smallest.size() < r.nodes) return std::nullopt;
      // Any start that n nodes share is at least the n-th smallest per-node earliest start.
      if (smallest.front() == candidate) break;
      candidate = smallest.front();
    }
    // The nodes free at the start all have a bound at most the start; without a preference
    // the n of lowest id are the answer, so the walk stops there. It visits nodes in
    // increasing id, so the last round's fits (from this same start), sorted by node, are
    // looked up by one forward pass.
    constexpr bool prefers = !std::same_as<Preference, no_preference>;
    std::ranges::sort(asked, {}, &std::pair<std::size_t, std::optional<time_type>>::first);
    auto known = asked.cbegin();
    std::vector<std::size_t> free_nodes;
    bounds.for_each_at_most(candidate, [&](std::size_t node) {
      while (known != asked.cend() && known->first < node) ++known;
      const auto fit = known != asked.cend() && known->first == node
                           ? known->second
                           : node_fit_from(q, node, candidate, ready);
      if (fit && *fit == candidate) free_nodes.push_back(node);
      return prefers || free_nodes.size() < r.nodes;
    });
    return place(std::move(free_nodes), r, preference, candidate);
  }

  /// The same answer as earliest_fit, found by asking every node in every round: one aggregate
  /// earliest_fit, then one earliest_fit per node, and a round either answers or moves the
  /// candidate start to the n-th smallest per-node fit. It keeps no cache, so it may run
  /// concurrently with other const calls; it is also the oracle of the tests.
  template <class Preference = no_preference, class Ready = ready_now>
  [[nodiscard]] std::optional<placement_type> earliest_fit_by_scan(const request_type& r,
                                                                   Preference preference = {},
                                                                   Ready ready = {}) const {
    const gang_query q = check_gang(r);
    std::vector<std::optional<time_type>> fits_from(nodes_.size());
    const std::optional<time_type> start = scan_rounds(q, ready, fits_from);
    if (!start) return std::nullopt;
    std::vector<std::size_t> free_nodes;
    for (std::size_t i = 0; i < nodes_.size(); ++i)
      if (fits_from[i] && *fits_from[i] == *start) free_nodes.push_back(i);
    return place(std::move(free_nodes), r, preference, *start);
  }

  /// The nodes on which `amount` is free throughout `span`, in increasing id order.
  [[nodiscard]] std::vector<std::size_t> nodes_free(interval<time_type> span,
                                                    capacity_type amount) const {
    leasehold::detail::check_span("nodes_free", span, origin());
    leasehold::detail::check_amount("nodes_free", amount, per_node_total_);
    std::vector<std::size_t> result;
    if (!fits(amount, aggregate_.min_free(span))) return result;  // quick rejection
    for (std::size_t i = 0; i < nodes_.size(); ++i)
      if (fits(amount, nodes_[i].min_free(span))) result.push_back(i);
    return result;
  }

  /// The largest e <= limit such that `amount` is free on `node` throughout [from, e); `from`
  /// itself when it is not free at `from`. Found by galloping then bisecting on min_free, so
  /// it works on every backend.
  [[nodiscard]] time_type free_until(std::size_t node, time_type from, capacity_type amount,
                                     time_type limit) const {
    check_node("free_until", node);
    leasehold::detail::check_time("free_until", from, origin());
    if (limit <= from) return from;
    const A& profile = nodes_[node];
    if (!fits(amount, profile.free_at(from))) return from;
    if (fits(amount, profile.min_free({from, limit}))) return limit;
    time_type good = static_cast<time_type>(from + 1);  // fits over [from, good)
    time_type step = 1;
    time_type bad = limit;  // does not fit over [from, bad)
    while (true) {
      const auto next = leasehold::detail::checked_add(good, step);
      if (!next || *next >= bad) break;
      if (fits(amount, profile.min_free({from, *next}))) {
        good = *next;
        if (step <= std::numeric_limits<time_type>::max() / 2)
          step = static_cast<time_type>(2 * step);
      } else {
        bad = *next;
        break;
      }
    }
    while (bad - good > 1) {
      const time_type middle = static_cast<time_type>(good + (bad - good) / 2);
      if (fits(amount, profile.min_free({from, middle})))
        good = middle;
      else
        bad = middle;
    }
    return good;
  }

  /// True when every node of p is in range, distinct, and has p.per_node free over p.span.
  [[nodiscard]] bool can_reserve(const placement_type& p) const {
    check_placement("can_reserve", p);
    return std::ranges::all_of(
        p.nodes, [&](std::size_t i) { return fits(p.per_node, nodes_[i].min_free(p.span)); });
  }

  /// Books p.per_node on every node of p over p.span. Throws invalid_request for a malformed
  /// placement and insufficient_capacity (naming the node) when a node lacks the capacity;
  /// either way nothing changes.
  void reserve(const placement_type& p) {
    check_placement("reserve", p);
    for (std::size_t i : p.nodes) {
      const capacity_type free = nodes_[i].min_free(p.span);
      if (!fits(p.per_node, free))
        throw insufficient_capacity(leasehold::detail::describe(
            "slot_table reserve ", p, ": node ", i, " has only ", free, " free over ", p.span));
    }
    change_all<true>(p);
    bounds_after_reserve(p.span, p.nodes);
  }

  /// Gives p back. Throws invalid_request for a malformed placement and invalid_release
  /// (naming the node) when some node has less than p.per_node booked over p.span; either way
  /// nothing changes (nodes already released are booked again).
  void release(const placement_type& p) {
    check_placement("release", p);
    try {
      change_all<false>(p);
    } catch (const invalid_release& e) {
      throw invalid_release(leasehold::detail::describe("slot_table release ", p, ": ", e.what()));
    }
    bounds_after_release(p.span, p.nodes);
  }

  /// Undo of a reserve(p) / release(p) that succeeded, for a caller that keeps its own undo
  /// log (policy::lease's transactions): valid only when every change made to the table after
  /// that call has been undone already, so the table is exactly as the call left it. Then, for
  /// a nothrow_rollback backend, the inverse changes need no allocation and cannot fail (the
  /// profiles are as they were right after the call, and a profile's capacity for nodes never
  /// shrinks).
  void undo_reserve(
      interval<time_type> span, const capacity_type& per_node,
      std::span<const std::size_t> nodes) noexcept requires detail::nothrow_rollback<A> {
    change_back<false>(span, per_node, nodes);
  }
  /// Undo of a release(p) that succeeded, under the conditions of undo_reserve.
  void undo_release(
      interval<time_type> span, const capacity_type& per_node,
      std::span<const std::size_t> nodes) noexcept requires detail::nothrow_rollback<A> {
    change_back<true>(span, per_node, nodes);
  }

  /// Moves every profile's origin to t (see availability::advance_to).
  void advance_to(time_type t) {
    leasehold::detail::check_advance(t, origin());
    if constexpr (detail::nothrow_rollback<A>) {
      // The aggregate checks t as every node would (same origin, same kind of profile), so
      // once it has moved no node can refuse.
      aggregate_.advance_to(t);
      for (A& node : nodes_) node.advance_to(t);
    } else {
      A aggregate = aggregate_;
      std::vector<A> nodes = nodes_;
      aggregate.advance_to(t);
      for (A& node : nodes) node.advance_to(t);
      swap_in(aggregate_, aggregate);
      nodes_.swap(nodes);
    }
    // Unbounded profiles keep every bound true (nothing after the new origin changes); a
    // bounded one gains free time at the end of its horizon, where a node that could never fit
    // a shape may now fit it, so its bounds are rebuilt when next asked for.
    if constexpr (bounded_availability<A>) bounds_.clear();
    if constexpr (uses_records) records_.advanced(bounded_availability<A>);
  }

  /// Drops the bounds that earliest_fit keeps per request class (and their memory): the next
  /// query of each class builds its class's bounds again. Answers never change. For measuring
  /// the first query of a request type, or to give the memory back after a burst of unusual
  /// requests.
  void forget_request_classes() noexcept { bounds_.clear(); }

  /// Checks that the aggregate equals the sum over nodes everywhere, that every node has the
  /// same origin and total, and each profile's own invariants where it has validate(). Throws
  /// invariant_violation naming the first difference.
  void validate() const {
    if constexpr (validating_availability<A>) {
      aggregate_.validate();
      for (const A& node : nodes_) node.validate();
    }
    // Every time where some profile changes is a boundary of some block.
    std::vector<time_type> points;
    for (const auto& block : aggregate_.free_blocks()) points.push_back(block.span.begin);
    for (const A& node : nodes_) {
      if (node.origin() != aggregate_.origin())
        throw invariant_violation(leasehold::detail::describe(
            "slot_table: a node's origin ", node.origin(), " differs from ", aggregate_.origin()));
      for (const auto& block : node.free_blocks()) points.push_back(block.span.begin);
    }
    std::ranges::sort(points);
    points.erase(std::unique(points.begin(), points.end()), points.end());
    for (time_type t : points) {
      capacity_type sum{};
      for (const A& node : nodes_) sum += node.free_at(t);
      if (!(sum == aggregate_.free_at(t)))
        throw invariant_violation(
            leasehold::detail::describe("slot_table: aggregate free ", aggregate_.free_at(t),
                                        " at ", t, " differs from the sum over nodes ", sum));
    }
    // Every cached bound is at most the node's earliest fit of its shape from the origin.
    for (const bounds_type& bounds : bounds_)
      for (std::size_t i = 0; i < nodes_.size(); ++i) {
        const time_type fit = class_fit(bounds, i);
        if (bounds.bound(i) > fit)
          throw invariant_violation(leasehold::detail::describe(
              "slot_table: node ", i, " has the cached earliest-fit bound ", bounds.bound(i),
              " for ", bounds.amount(), " x ", bounds.duration(), " but fits it from ", fit));
        if constexpr (uses_records) {
          if (const auto level = level_of(bounds); level && records_.has_level(*level)) {
            const auto known = records_.lookup(i, *level, bounds.duration(), origin());
            if (known.bound > fit || (known.exact && known.bound != fit))
              throw invariant_violation(leasehold::detail::describe(
                  "slot_table: node ", i, "'s run records give ", known.bound,
                  known.exact ? " as" : " as a lower bound on", " its earliest fit of ",
                  bounds.amount(), " x ", bounds.duration(), ", which is ", fit));
          }
        }
      }
  }

 private:
  static capacity_type checked_aggregate_total(std::size_t node_count,
                                               capacity_type per_node_total) {
    if (node_count == 0) throw invalid_request("slot_table: a cluster needs at least one node");
    leasehold::detail::check_total(per_node_total);
    const auto sum = detail::checked_scaled(per_node_total, node_count);
    if (!sum)
      throw invalid_request(leasehold::detail::describe(
          "slot_table: ", node_count, " nodes x ", per_node_total, " overflows the capacity type"));
    return *sum;
  }

  void check_node(const char* operation, std::size_t i) const {
    if (i >= nodes_.size())
      throw invalid_request(leasehold::detail::describe(
          operation, ": node ", i, " out of range (the table has ", nodes_.size(), " nodes)"));
  }

  /// A checked gang request and what both earliest_fit searches derive from it once.
  struct gang_query {
    const request_type& r;
    leasehold::detail::start_range<time_type> starts;  // the admissible starts
    capacity_type amount;                              // n x per_node: the aggregate's share
  };

  gang_query check_gang(const request_type& r) const {
    if (r.nodes == 0)
      throw invalid_request(leasehold::detail::describe("earliest_fit ", r, ": zero nodes"));
    if (r.nodes > nodes_.size())
      throw invalid_request(leasehold::detail::describe(
          "earliest_fit ", r, ": ", r.nodes, " nodes requested but the table has ", nodes_.size()));
    return {r,
            leasehold::detail::check_request(
                request<time_type, capacity_type>{r.per_node, r.duration, r.window},
                per_node_total_, origin()),
            detail::scaled(r.per_node, r.nodes)};
  }

  /// The two changes change_back makes to a profile.
  static void book(A& profile, interval<time_type> span, const capacity_type& amount) {
    profile.reserve(span, amount);
  }
  static void unbook(A& profile, interval<time_type> span, const capacity_type& amount) {
    profile.release(span, amount);
  }

  /// The inverse change of undo_reserve (Reserve = false) or undo_release (Reserve = true): the
  /// aggregate first and the nodes backwards, as the call being undone changed them in the
  /// opposite order; nothing here can throw on a nothrow_rollback backend (see undo_reserve).
  template <bool Reserve>
  void change_back(interval<time_type> span, const capacity_type& per_node,
                   std::span<const std::size_t> nodes) noexcept {
    constexpr auto change = Reserve ? book : unbook;
    change(aggregate_, span, detail::scaled(per_node, nodes.size()));
    for (std::size_t k = nodes.size(); k > 0; --k) change(nodes_[nodes[k - 1]], span, per_node);
    if constexpr (Reserve)
      bounds_after_reserve(span, nodes);
    else
      bounds_after_release(span, nodes);
  }

  /// earliest_fit_by_scan's rounds: the earliest start that q.r.nodes nodes share, with every
  /// node's earliest fit from it left in fits_from; nullopt when there is none.
  template <class Ready>
  std::optional<time_type> scan_rounds(const gang_query& q, Ready ready,
                                       std::vector<std::optional<time_type>>& fits_from) const {
    if (q.starts.empty()) return std::nullopt;
    time_type candidate = q.starts.first;
    while (true) {
      // Quick rejection and a jump: the sum over nodes must hold n x per_node.
      const auto aggregate_start = aggregate_fit_from(q, candidate);
      if (!aggregate_start) return std::nullopt;
      candidate = *aggregate_start;
      std::size_t finite = 0;
      for (std::size_t i = 0; i < nodes_.size(); ++i) {
        fits_from[i] = node_fit_from(q, i, candidate, ready);
        if (fits_from[i]) ++finite;
      }
      if (finite < q.r.nodes) return std::nullopt;
      // Any start that n nodes share is at least the n-th smallest per-node earliest start.
      std::vector<time_type> earliest;
      earliest.reserve(finite);
      for (const auto& e : fits_from)
        if (e) earliest.push_back(*e);
      const auto nth = earliest.begin() + static_cast<std::ptrdiff_t>(q.r.nodes - 1);
      std::nth_element(earliest.begin(), nth, earliest.end());
      if (*nth == candidate) return candidate;
      candidate = *nth;
    }
  }

  void check_placement(const char* operation, const placement_type& p) const {
    leasehold::detail::check_span(operation, p.span, origin());
    leasehold::detail::check_amount(operation, p.per_node, per_node_total_);
    if (p.nodes.empty())
      throw invalid_request(leasehold::detail::describe(operation, ' ', p, ": no nodes"));
    std::vector<std::size_t> sorted = p.nodes;
    std::ranges::sort(sorted);
    if (sorted.back() >= nodes_.size())
      throw invalid_request(leasehold::detail::describe(operation, ' ', p, ": node ", sorted.back(),
                                                        " out of range (the table has ",
                                                        nodes_.size(), " nodes)"));
    if (const auto twin = std::ranges::adjacent_find(sorted); twin != sorted.end())
      throw invalid_request(
          leasehold::detail::describe(operation, ' ', p, ": node ", *twin, " listed twice"));
  }

  /// Books (Reserve) or releases p.per_node over p.span on every node of p, then the sum on the
  /// aggregate, as one transaction of the table's journal (availability/journal.hpp): if one
  /// profile refuses, those already changed are changed back (in place on a nothrow_rollback
  /// backend, from the copy saved before their change on any other) and the exception goes on.
  template <bool Reserve>
  void change_all(const placement_type& p) {
    journal_.transaction([&] {
      const auto change = [&](A& profile, const capacity_type& amount) {
        if constexpr (Reserve)
          journal_.reserve(profile, p.span, amount);
        else
          journal_.release(profile, p.span, amount);
      };
      for (std::size_t i : p.nodes) change(nodes_[i], p.per_node);
      change(aggregate_, detail::scaled(p.per_node, p.nodes.size()));
    });
  }

  /// The aggregate's earliest fit of the gang's n x per_node from `candidate`: a start no
  /// placement can precede (quick rejection and a jump, in both searches).
  std::optional<time_type> aggregate_fit_from(const gang_query& q, time_type candidate) const {
    return aggregate_.earliest_fit({q.amount, q.r.duration, {candidate, q.r.window.end}});
  }

  /// Node i's earliest fit of the gang's per_node from `candidate`, no earlier than ready(i)
  /// and starting among the admissible starts: the per-node question both searches ask.
  template <class Ready>
  std::optional<time_type> node_fit_from(const gang_query& q, std::size_t i, time_type candidate,
                                         Ready& ready) const {
    time_type begin = candidate;
    if constexpr (!std::same_as<Ready, ready_now>)
      begin = std::max(begin, static_cast<time_type>(ready(i)));
    if (begin > q.starts.last) return std::nullopt;
    return nodes_[i].earliest_fit({q.r.per_node, q.r.duration, {begin, q.r.window.end}});
  }

  /// The placement of r at `start` on the r.nodes most preferred of `candidates` (ties by id),
  /// in increasing id order.
  template <class Preference>
  static placement_type place(std::vector<std::size_t> candidates, const request_type& r,
                              Preference& preference, time_type start) {
    if constexpr (!std::same_as<Preference, no_preference>) {
      constexpr bool with_start = std::invocable<Preference&, std::size_t, time_type>;
      keep_preferred(candidates, r.nodes, [&](std::size_t i) {
        if constexpr (with_start)
          return preference(i, start);
        else
          return preference(i);
      });
    } else {
      candidates.resize(r.nodes);
    }
    return placement_type{
        {start, static_cast<time_type>(start + r.duration)}, r.per_node, std::move(candidates)};
  }

  using bounds_type = detail::node_bounds<time_type, capacity_type>;

  /// The most request classes whose bounds are kept: each costs W bounds and a min-tree, is
  /// updated by every reserve and release of its nodes, and is built by one earliest_fit per
  /// node when first asked for.
  static constexpr std::size_t max_bound_classes = 32;

  /// The node's earliest fit of the class shape from the origin, or bounds_type::never.
  time_type class_fit(const bounds_type& bounds, std::size_t node) const {
    const auto fit = nodes_[node].earliest_fit(
        {bounds.amount(), bounds.duration(), {origin(), std::numeric_limits<time_type>::max()}});
    return fit ? *fit : bounds_type::never;
  }

  static constexpr bool uses_records = scalar_capacity<capacity_type>;
  using records_type = typename detail::run_records_for<time_type, capacity_type>::type;

  /// The amount level j of a class (its amount is 2^j), for the run records; none for a
  /// class of amount zero or a vector capacity.
  static std::optional<unsigned> level_of(const bounds_type& bounds) noexcept {
    if constexpr (uses_records) {
      if (bounds.amount() > 0)
        return static_cast<unsigned>(
            std::countr_zero(static_cast<std::make_unsigned_t<capacity_type>>(bounds.amount())));
    }
    return std::nullopt;
  }

  /// The node's earliest fit of the class shape, for a bound that is only a lower bound: read
  /// from the node's run records, recomputed first if out of date, when they give it exactly;
  /// otherwise asked of the node.
  time_type refined_fit(const bounds_type& bounds, std::size_t node) const {
    if constexpr (uses_records) {
      const auto level = level_of(bounds);
      if (level && bounds.from_old_records(node)) {
        if (!records_.current(node, *level))
          records_.refresh(node, leasehold::blocks_from(nodes_[node], origin()));
        const auto known = records_.lookup(node, *level, bounds.duration(), origin());
        if (known.exact) return known.bound;
      }
    }
    return class_fit(bounds, node);
  }

  /// The bounds of r's class, built when first asked for (evicting the least recently used
  /// class when max_bound_classes are kept): read from the nodes' run records with a scalar
  /// capacity (exact where they are current, lower bounds refined when a search reaches the
  /// node otherwise), asked of every node with a vector one.
  bounds_type& bounds_for(const request_type& r) const {
    const capacity_type amount = detail::shape_class(r.per_node);
    const time_type duration = detail::power_of_two_floor(r.duration);
    ++bounds_clock_;
    for (bounds_type& bounds : bounds_)
      if (bounds.duration() == duration && bounds.amount() == amount) {
        bounds.last_use = bounds_clock_;
        return bounds;
      }
    bounds_type built(amount, duration, nodes_.size());
    if (const auto level = level_of(built)) {
      if constexpr (uses_records) {
        if (!records_.has_level(*level)) records_.add_level(*level);
        built.assign([&](std::size_t i) {
          const auto known = records_.lookup(i, *level, duration, origin());
          if (!known.exact) built.mark_from_old_records(i);
          return known.bound;
        });
      }
    } else {
      built.assign([&](std::size_t i) { return class_fit(built, i); });
    }
    built.last_use = bounds_clock_;
    if (bounds_.size() < max_bound_classes) {
      bounds_.push_back(std::move(built));
      return bounds_.back();
    }
    auto oldest = std::ranges::min_element(bounds_, {}, &bounds_type::last_use);
    *oldest = std::move(built);
    return *oldest;
  }

  /// A booking can only make a node's fits later, so every bound stays true; a node whose
  /// booking overlaps its bound's first fit is marked for recomputation by the next search
  /// that reaches it.
  void bounds_after_reserve(interval<time_type> span,
                            std::span<const std::size_t> nodes) const noexcept {
    if constexpr (uses_records)
      for (std::size_t i : nodes) records_.booked(i);
    for (bounds_type& bounds : bounds_)
      for (std::size_t i : nodes) {
        const time_type bound = bounds.bound(i);
        if (bound == bounds_type::never || span.end <= bound) continue;
        time_type bound_end{};
        if (__builtin_add_overflow(bound, bounds.duration(), &bound_end) || span.begin < bound_end)
          bounds.mark_stale(i);
      }
  }

  /// A release over [a, b) can make a node fit a shape of duration d at a start s only if
  /// [s, s + d) meets [a, b), so s > a - d: the bound drops to max(origin, a - d) at most.
  void bounds_after_release(interval<time_type> span,
                            std::span<const std::size_t> nodes) const noexcept {
    if constexpr (uses_records)
      for (std::size_t i : nodes) records_.released(i, span.begin);
    for (bounds_type& bounds : bounds_) {
      time_type lowest{};
      if (__builtin_sub_overflow(span.begin, bounds.duration(), &lowest) || lowest < origin())
        lowest = origin();
      for (std::size_t i : nodes)
        if (lowest < bounds.bound(i)) {
          bounds.set(i, lowest);
          bounds.mark_stale(i);
        }
    }
  }

  static void swap_in(A& target, A& source) noexcept {
    static_assert(std::is_nothrow_swappable_v<A>,
                  "slot_table<A>: A needs a noexcept swap (or nothrow_rollback) for the strong "
                  "guarantee");
    using std::swap;
    swap(target, source);
  }

  capacity_type per_node_total_;
  A aggregate_;
  std::vector<A> nodes_;
  // Takes back a reserve or release that failed half-way (change_all); closed between calls,
  // and a copied table gets a new one.
  journal journal_;
  // Per request class, a lower bound per node on its earliest fit (detail/node_bounds.hpp);
  // a cache that earliest_fit fills and refreshes, hence mutable.
  mutable std::vector<bounds_type> bounds_;
  mutable std::uint64_t bounds_clock_ = 0;
  // Per node, its record runs per amount level (detail/run_records.hpp), from which a class's
  // bounds are read when first asked for; refreshed during searches, hence mutable.
  mutable records_type records_;
};

}  // namespace leasehold::cluster
