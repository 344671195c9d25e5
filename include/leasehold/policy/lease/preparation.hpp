#pragma once

/// \file
/// Preparation (disk-image transfer) as a pluggable step of the lease scheduler. Haizea
/// schedules preparation as its own reservation before the VMs start (§3.2; Overhead Matters):
/// the scheduler asks, per node, when the lease's image could be there, and once it has chosen
/// nodes and a start, asks the preparation step to book what it needs. The image-staging
/// policies (EDF transfers, caches) implement this; images_predeployed is the trivial one
/// used by NOVM-* and VM-PREDEPLOY (§4.4), where every image is already on every node.

#include <concepts>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>

#include "leasehold/core/time.hpp"
#include "leasehold/policy/lease/lease_terms.hpp"

namespace leasehold::policy::lease {

/// Requirements, and why:
///  - ready_at(terms, node, now): the earliest time the lease could start on `node` as far as
///    its image is concerned; a lower bound the slot table honours per node.
///  - prepare(terms, nodes, start, now): book the transfers for a lease placed on `nodes` from
///    `start` (must succeed when start >= ready_at for every node).
///  - cancel(id, now): forget what prepare booked for a lease that is unscheduled.
///   valid:   images_predeployed
///   invalid: int
/// C is the lease's per-node resource vector (node_resources unless the cluster has another).
template <class P, class T, class C = node_resources>
concept preparation = time_value<T> && vector_capacity<C> &&
    requires(P& p, const P& cp, const lease_terms<T, C>& terms, std::size_t node, T now,
             std::span<const std::size_t> nodes, T start) {
  { cp.ready_at(terms, node, now) } -> std::same_as<T>;
  {p.prepare(terms, nodes, start, now)};
  {p.cancel(terms.id, now)};
};

/// Optional refinements; the scheduler uses each one a preparation offers (and behaves as
/// before without them, so images_predeployed schedules exactly as it always did):
///  - check_terms(terms): throws a leasehold::error for terms it cannot serve (an unknown
///    image); the scheduler turns it into invalid_lease before changing anything.
///  - prepare(terms, nodes, booked, now) with `booked` the whole interval<T> the lease holds,
///    preferred over the start-only form (a private image copy can be freed at its end).
///  - reservation_rank(terms, node, start, now) -> std::optional<int> and
///    can_prepare(terms, nodes, start, now) -> bool (the concept reservation_preparation):
///    advance reservations are viable only if their preparation can finish by their start
///    (Haizea §3.2), and nodes with a smaller rank (0: the image will be there without a new
///    transfer) are preferred after nodes that need no preemption; nullopt: the node cannot
///    take the image at all.
///  - next_transfer_event() -> std::optional<T>, take_transfer_events(now) -> a range of
///    {P::transfer_change change; transfer_notice<T> notice;} with transfer_change's started,
///    withdrawn and finished (the concept transfer_reporting_preparation): the preparation
///    step's transfers, announced to the observer as they start and end; the scheduler's
///    next_event_time() includes them. An announcement made at a transfer's first instant is
///    withdrawn if a later call at that instant moves or drops the transfer.
/// Resumed segments (after a suspension, or a migration that moves the image instance with
/// the memory state, §3.1) need no preparation: the scheduler neither asks ready_at for them
/// nor calls prepare.
template <class P, class T, class C = node_resources>
concept reservation_preparation = preparation<P, T, C> &&
    requires(const P& cp, const lease_terms<T, C>& terms, std::size_t node, T now,
             std::span<const std::size_t> nodes, T start) {
  { cp.reservation_rank(terms, node, start, now) } -> std::same_as<std::optional<int>>;
  { cp.can_prepare(terms, nodes, start, now) } -> std::same_as<bool>;
};

/// Every image is already on every node: nothing to transfer, nothing to wait for.
struct images_predeployed {
  /// Lets the scheduler skip the per-node ready times altogether.
  static constexpr bool always_ready = true;

  /// Every image is there now.
  template <time_value T, vector_capacity C>
  [[nodiscard]] T ready_at(const lease_terms<T, C>& /*terms*/, std::size_t /*node*/, T now) const {
    return now;
  }
  /// Nothing to prepare.
  template <time_value T, vector_capacity C>
  void prepare(const lease_terms<T, C>& /*terms*/, std::span<const std::size_t> /*nodes*/,
               T /*start*/, T /*now*/) {}
  /// Nothing to cancel.
  template <time_value T>
  void cancel(std::uint64_t /*id*/, T /*now*/) {}
};

static_assert(preparation<images_predeployed, std::int64_t>,
              "images_predeployed must model preparation");

template <class P, class T, class C = node_resources>
concept transfer_reporting_preparation = preparation<P, T, C> &&
    requires(P& p, const P& cp, T now) {
  { cp.next_transfer_event() } -> std::same_as<std::optional<T>>;
  {p.take_transfer_events(now)};
};

/// transactional_preparation: a preparation step with state that takes back the changes of a
/// failed call itself:
///  - begin_transaction(): from now on changes are recorded (may throw; nothing has changed);
///  - commit_transaction() noexcept: the call succeeded;
///  - rollback_transaction() noexcept: every change since begin_transaction() is undone.
/// Why: the lease scheduler gives each public call the strong guarantee; a step without these is
/// copied whole before each call, which costs what the step holds (its history) instead of what
/// the call changes.
///   valid:   staging::image_staging<>
///   invalid: images_predeployed (it has no state to take back)
template <class P>
concept transactional_preparation = requires(P& p) {
  p.begin_transaction();
  { p.commit_transaction() }
  noexcept;
  { p.rollback_transaction() }
  noexcept;
};

}  // namespace leasehold::policy::lease
