#pragma once

/// \file
/// Everything a lease scheduler holds that is not code, as plain values: what
/// lease_scheduler::export_state() hands out and lease_scheduler::import_state() rebuilds a
/// scheduler from. Checkpoints (io/lease_checkpoint.hpp) go through it, and so can anything
/// else that saves, inspects or moves a scheduler's state; no one reads the scheduler's
/// private members.
///
/// The indexes the scheduler keeps for speed (the queue, the pending events, the leases on
/// each node) are not part of it: they follow from the records and are rebuilt on import.
/// The preparation step, the queue order and the node choice are passed to import_state():
/// they are code, or (image staging) state of their own that must agree with the records.

#include <cstdint>
#include <tuple>
#include <vector>

#include "leasehold/cluster/slot_table.hpp"
#include "leasehold/policy/lease/config.hpp"
#include "leasehold/policy/lease/lease_record.hpp"

namespace leasehold::policy::lease {

/// Everything a lease_scheduler holds, by value (export_state / import_state; io's lease
/// checkpoints save it).
template <class A>
struct scheduler_state {
  /// The slot table.
  using table_type = cluster::slot_table<A>;
  /// Its time type.
  using time_type = typename table_type::time_type;
  /// Its per-node capacity type.
  using capacity_type = typename table_type::capacity_type;
  /// A lease record.
  using record_type = lease_record<time_type, capacity_type>;

  /// The scheduler's configuration.
  scheduler_config<time_type> config;
  time_type now{};  ///< the scheduler's clock; equal to the slot table's origin
  /// The cluster, with every booking.
  table_type table;
  /// Every lease the scheduler knows (with config.retire_finished, the live ones), by id.
  std::vector<record_type> leases;
  /// Best-effort leases holding a booking for a future begin (a backfilling reservation,
  /// counted against backfilling's limit), by id.
  std::vector<std::uint64_t> reserved;
  /// With config.retire_finished: finished leases not yet handed out by take_finished(), in
  /// the order they finished.
  std::vector<record_type> finished;
};

/// A booked segment's pending events, as the scheduler orders them: (time, kind, lease id),
/// ends before begins at the same instant.
inline constexpr int segment_finish_event = 0;
/// The kind of a segment's begin event (after finish events at the same instant).
inline constexpr int segment_begin_event = 1;

/// The events a lease's current segment is waiting for: its finish, and its begin while it is
/// only scheduled. None without a segment.
template <class T, class C>
[[nodiscard]] std::vector<std::tuple<T, int, std::uint64_t>> pending_events(
    const lease_record<T, C>& l) {
  std::vector<std::tuple<T, int, std::uint64_t>> events;
  if (!l.current) return events;
  events.emplace_back(l.current->finish, segment_finish_event, l.terms.id);
  if (l.state == lease_state::scheduled)
    events.emplace_back(l.current->booked.begin, segment_begin_event, l.terms.id);
  return events;
}

}  // namespace leasehold::policy::lease
