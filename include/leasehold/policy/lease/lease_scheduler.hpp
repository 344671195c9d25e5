#pragma once

/// \file
/// policy::lease::lease_scheduler: Haizea's lease scheduler over a cluster::slot_table
/// (described below).

// policy::lease::lease_scheduler: Haizea's lease scheduler (Sotomayor, Keahey & Foster,
// "Combining Batch Execution and Leasing Using Virtual Machines", §3.1-3.3) over a
// cluster::slot_table<A>.
//
//  - Advance reservations (§3.2) are admitted at once or rejected: viable when n nodes can
//    hold the lease over [start, start + duration), counting the capacity held by
//    preemptible best-effort leases; nodes that need no preemption are chosen first, and the
//    best-effort leases in the way are preempted.
//  - Preemption (§3.1): a running lease is suspended so that its suspension (m / H_w) ends
//    exactly when the reservation starts; its remainder is requeued by its original submit
//    time and later resumes (m / H_r), on other nodes after migrating its image instance and
//    memory state ((s_I + m) / B). Without suspension the lease is cancelled and requeued, its
//    work lost (NOVM-NOSR). A lease booked but not yet begun is simply unscheduled.
//  - Best-effort leases (§3.2) are served FIFO by submit time (or in the order of a
//    user's queue_order, queue_order.hpp) with the configured backfilling. A lease that can be
//    suspended starts as soon as n nodes are free for a minimum run, on the nodes free longest
//    (nodes where it needs no suspension first), and is suspended before whatever blocks it;
//    otherwise it needs its whole duration.
//  - A lease whose real duration ends early frees the rest of its booking at once, and the
//    schedule is re-evaluated: waiting reservations are unscheduled and the queue is planned
//    again, so later leases move forward.
//  - Among nodes the paper's rules consider equal, the lowest ids are taken, or those a
//    user's node_choice (node_choice.hpp) prefers.
//  - Events of §3.3 reach a lease_observer.
//
// The parts, one idea per header of detail/: lease_book.hpp is the state object (the table,
// the records, the queue, the events, the clock) and its journaled changes; the components
// take it by reference and are made per call: reservation_admission.hpp (admission and
// preemption), best_effort_planning.hpp (the queue, re-planning), event_clock.hpp (the
// events due by the caller's time), lease_checks.hpp (what a lease may be) and lease_times.hpp
// (the VM time model of vm_time_model.hpp under the configuration); transactions.hpp runs
// each public call with the strong guarantee.
//
// The scheduler never owns a clock: the caller passes the current time to submit(),
// withdraw(), release() and advance_to(), and asks next_event_time() when to call again.
// In simulation the lease's real duration tells when it ends; an embedding scheduler
// leaves real_duration at 0 and calls release() instead.

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <map>
#include <optional>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "leasehold/availability/concept.hpp"
#include "leasehold/availability/free_list.hpp"
#include "leasehold/cluster/slot_table.hpp"
#include "leasehold/core/capacity.hpp"
#include "leasehold/core/detail/checks.hpp"
#include "leasehold/core/detail/describe.hpp"
#include "leasehold/core/error.hpp"
#include "leasehold/core/time.hpp"
#include "leasehold/policy/lease/config.hpp"
#include "leasehold/policy/lease/detail/best_effort_planning.hpp"
#include "leasehold/policy/lease/detail/event_clock.hpp"
#include "leasehold/policy/lease/detail/lease_book.hpp"
#include "leasehold/policy/lease/detail/lease_checks.hpp"
#include "leasehold/policy/lease/detail/reservation_admission.hpp"
#include "leasehold/policy/lease/detail/transactions.hpp"
#include "leasehold/policy/lease/lease_errors.hpp"
#include "leasehold/policy/lease/lease_record.hpp"
#include "leasehold/policy/lease/lease_terms.hpp"
#include "leasehold/policy/lease/node_choice.hpp"
#include "leasehold/policy/lease/observer.hpp"
#include "leasehold/policy/lease/preparation.hpp"
#include "leasehold/policy/lease/queue_order.hpp"
#include "leasehold/policy/lease/scheduler_state.hpp"
#include "leasehold/policy/lease/vm_time_model.hpp"

namespace leasehold::policy::lease {

/// What submit() did with a lease.
enum class admission {
  accepted,  ///< an advance reservation or immediate lease is booked
  queued,    ///< a best-effort lease is in the queue (it may already have been started)
  rejected,  ///< the lease will never run; the reason says why
};

/// The answer to submit().
struct submit_result {
  /// Accepted, queued or rejected.
  admission outcome = admission::queued;
  /// Why it was rejected (empty otherwise).
  std::string reason;
};

/// QueueOrder (queue_order.hpp) and NodeChoice (node_choice.hpp) are the customisation points
/// of best-effort queue order and node choice; the defaults are Haizea's.
template <availability A = free_list<std::int64_t, node_resources>,
          class Preparation = images_predeployed, class QueueOrder = fifo_order,
          class NodeChoice = lowest_node_id>
requires fixed_vector_capacity<typename A::capacity_type> &&
    preparation<Preparation, typename A::time_type, typename A::capacity_type> &&
    queue_order<QueueOrder, typename A::time_type, typename A::capacity_type> &&
    node_choice<NodeChoice, cluster::slot_table<A>>
class lease_scheduler {
  // The state object; the components below take it by reference.
  using book_type = detail::lease_book<A, Preparation, QueueOrder, NodeChoice>;

 public:
  /// The slot table the leases are booked in.
  using table_type = typename book_type::table_type;
  /// The time type.
  using time_type = typename book_type::time_type;
  /// The per-node resource vector: Haizea's node_resources, or any resources<N, V> (GPUs,
  /// licences) with config().layout naming its memory and disk components.
  using capacity_type = typename book_type::capacity_type;
  /// The configuration.
  using config_type = typename book_type::config_type;
  /// The node choice.
  using node_choice_type = NodeChoice;
  /// The preparation step.
  using preparation_type = Preparation;
  /// The queue order.
  using queue_order_type = QueueOrder;
  /// A lease's record.
  using record_type = typename book_type::record_type;
  /// A booked segment.
  using segment_type = typename book_type::segment_type;
  /// A lease's terms.
  using terms_type = typename book_type::terms_type;

  /// A scheduler over `table` with the given configuration, preparation step, queue order and
  /// node choice. Throws invalid_request for a configuration out of range or a preparation step
  /// that knows a different number of nodes than the table.
  explicit lease_scheduler(table_type table, config_type config = {}, Preparation prep = {},
                           QueueOrder order = {}, NodeChoice choice = {})
      : book_(std::move(table), check_config(config), std::move(prep), std::move(order),
              std::move(choice)) {
    if constexpr (book_type::template prep_offers<preparation_feature::node_count>) {
      if (book_.preparation().node_count() != book_.table().node_count())
        throw invalid_request(leasehold::detail::describe(
            "lease_scheduler: the preparation step knows ", book_.preparation().node_count(),
            " nodes but the slot table has ", book_.table().node_count()));
    }
  }

  /// Sets the observer told of every change (nullptr: none); the scheduler does not own it.
  void set_observer(lease_observer<time_type>* observer) noexcept { book_.set_observer(observer); }

  /// The slot table with every booking, read-only.
  [[nodiscard]] const table_type& table() const noexcept { return book_.table(); }
  /// Its configuration.
  [[nodiscard]] const config_type& config() const noexcept { return book_.config(); }
  /// The preparation step (image staging: its caches, transfers and counts).
  [[nodiscard]] const Preparation& preparation_step() const noexcept { return book_.preparation(); }
  /// The queue order and the node choice this scheduler was built with.
  [[nodiscard]] const QueueOrder& order_policy() const noexcept { return book_.order(); }
  /// The node choice.
  [[nodiscard]] const NodeChoice& node_policy() const noexcept { return book_.choice(); }
  /// The scheduler's clock: the latest time advanced to.
  [[nodiscard]] time_type now() const noexcept { return book_.now(); }
  /// Every lease submitted so far; with config().retire_finished, the live ones only (queued,
  /// scheduled or running), finished ones having gone to take_finished().
  [[nodiscard]] const std::map<std::uint64_t, record_type>& leases() const noexcept {
    return book_.leases();
  }
  /// The record of lease `id`; throws invalid_lease for an id it does not hold.
  [[nodiscard]] const record_type& lease(std::uint64_t id) const {
    const auto it = book_.leases().find(id);
    if (it == book_.leases().end()) {
      if (book_.config().retire_finished)
        throw invalid_lease(leasehold::detail::describe(
            "lease ", id,
            ": unknown lease (never submitted, or finished and retired: see take_finished())"));
      throw invalid_lease(leasehold::detail::describe("lease ", id, ": unknown lease"));
    }
    return it->second;
  }
  /// With config().retire_finished: the leases that finished (done, rejected or withdrawn)
  /// since the last call, in the order they finished, each handed out once. Empty otherwise.
  [[nodiscard]] std::vector<record_type> take_finished() noexcept { return book_.take_finished(); }
  /// How many finished leases wait for take_finished().
  [[nodiscard]] std::size_t finished_count() const noexcept { return book_.finished().size(); }
  /// How many leases wait in the queue.
  [[nodiscard]] std::size_t queue_size() const noexcept { return book_.queue().size(); }
  /// Ids of the queued leases in the order they are served at now(): FIFO (submit time, then
  /// id) by default, else by the queue order's keys, equal keys FIFO.
  [[nodiscard]] std::vector<std::uint64_t> queue() const {
    return detail::best_effort_planning<const book_type>(book_).served_order();
  }

  /// The earliest time at which a booked segment begins or ends, or an image transfer starts or
  /// ends (with a preparation step that announces transfers), if any.
  [[nodiscard]] std::optional<time_type> next_event_time() const {
    std::optional<time_type> next =
        detail::event_clock<const book_type>(book_).next_transfer_event();
    const auto& events = book_.events();
    if (!events.empty() && (!next || std::get<0>(*events.begin()) < *next))
      next = std::get<0>(*events.begin());
    return next;
  }

  /// Processes every segment begin and end up to `now` in time order (ends before begins at
  /// the same time), re-evaluating the schedule after each instant.
  void advance_to(time_type now) {
    if (!in_call_) return outermost([&] { advance_to(now); });
    check_now("advance_to", now);
    clock().run_events_until(now);
  }

  /// A new lease arrives at `now` (events due by then are processed first). Advance
  /// reservations and immediate leases are admitted or rejected at once; best-effort leases
  /// join the queue. Throws invalid_lease for malformed terms, changing nothing.
  submit_result submit(const terms_type& terms, time_type now) {
    if (!in_call_) return outermost([&] { return submit(terms, now); });
    check_now("submit", now);
    detail::lease_checks<book_type>(book_).check_terms(terms, now);
    clock().run_events_until(now);
    record_type& l = book_.add_lease(terms.id, record_type{});
    l.terms = terms;
    l.remaining_max = terms.duration;
    l.remaining_real = terms.real_duration > 0 ? terms.real_duration : terms.duration;
    submit_result result;
    switch (terms.kind) {
      case lease_kind::best_effort:
        book_.enqueue(l);
        result.outcome = admission::queued;
        break;
      case lease_kind::advance_reservation:
      case lease_kind::immediate:
        result.reason = detail::reservation_admission<book_type>(book_).admit(l);
        result.outcome = result.reason.empty() ? admission::accepted : admission::rejected;
        if (!result.reason.empty()) {
          record_type& rejected = book_.edit(terms.id);
          rejected.state = lease_state::rejected;
          rejected.rejection = result.reason;
          book_.finished(rejected);
          if (book_.observer() != nullptr)
            book_.observer()->on_rejected(terms.id, book_.now(), result.reason);
        }
        break;
    }
    planning().reevaluate();
    return result;
  }

  /// The user takes back a lease that has not started yet (a job cancelled while waiting, as
  /// in the SWF logs' status 5). Returns false, changing nothing, when the lease has already
  /// started (it then runs on) or is over.
  bool withdraw(std::uint64_t id, time_type now) {
    if (!in_call_) return outermost([&] { return withdraw(id, now); });
    const record_type& found = lease_at("withdraw", id, now);
    if (found.first_start ||
        (found.state != lease_state::queued && found.state != lease_state::scheduled))
      return false;
    record_type& l = book_.edit(id);
    if (l.state == lease_state::scheduled) book_.unbook(l, book_.now());
    book_.dequeue(l);
    l.state = lease_state::withdrawn;
    l.end = book_.now();
    book_.finished(l);
    planning().reevaluate();
    return true;
  }

  /// The execution manager's "release lease" (§3.3): a running lease's work is done at `now`;
  /// the rest of its booking is freed and the schedule re-evaluated. Throws invalid_lease for
  /// a lease that is not running.
  void release(std::uint64_t id, time_type now) {
    if (!in_call_) return outermost([&] { release(id, now); });
    if (const record_type& found = lease_at("release", id, now);
        found.state != lease_state::running)
      throw invalid_lease(leasehold::detail::describe("release lease ", id, ": it is ", found.state,
                                                      ", not running"));
    record_type& l = book_.edit(id);
    const segment_type seg = *l.current;
    const time_type at = book_.now();
    const time_type run_end = std::clamp(at, seg.run.begin, seg.run.end);
    book_.close_segment(l, at, {seg.run.begin, run_end}, l.remaining_real,
                        segment_outcome::released);
    l.remaining_max = 0;
    l.remaining_real = 0;
    book_.finish_lease(l, at);
    if (at < seg.booked.end) planning().slide_back(seg.nodes);
    planning().reevaluate();
  }

  // ---- the state as values (scheduler_state.hpp) ----------------------------------------------

  /// Everything the scheduler holds, by value.
  using state_type = scheduler_state<A>;

  /// Everything the scheduler holds but its code: config, clock, slot table, lease records,
  /// backfilling reservations and finished leases not yet taken. A copy: O(state).
  [[nodiscard]] state_type export_state() const { return book_.export_state(); }

  /// A scheduler holding `state` (as export_state() gave it, or built by hand), with the
  /// preparation step, queue order and node choice given; a preparation step with state of
  /// its own (image staging) must be the one the records were booked with. The queue, the
  /// pending events and the leases on each node are rebuilt from the records. Throws
  /// invalid_request naming the first inconsistency: a bad config, a clock that is not the
  /// table's origin, a record this scheduler could not have made (invalid_lease_record, naming
  /// the record and its member: terms submit() would refuse, a time after the clock, work that
  /// does not add up, a history out of order, a segment that does not follow from the terms;
  /// detail/lease_checks.hpp), a duplicate id, a reservation that is not a scheduled
  /// best-effort lease, and whatever validate() finds between the records and the table.
  [[nodiscard]] static lease_scheduler import_state(state_type state, Preparation prep = {},
                                                    QueueOrder order = {}, NodeChoice choice = {}) {
    using leasehold::detail::describe;
    if (state.now != state.table.origin())
      throw invalid_request(describe("scheduler state: the clock ", state.now,
                                     " differs from the slot table's origin ",
                                     state.table.origin()));
    lease_scheduler s(std::move(state.table), state.config, std::move(prep), std::move(order),
                      std::move(choice));
    const auto check = [&s](const record_type& record, bool finished, std::size_t index) {
      try {
        detail::lease_checks<book_type>(s.book_).check_record(record);
      } catch (const invalid_lease& e) {
        throw invalid_lease_record(describe("scheduler state: ", e.what()), e.field(), finished,
                                   index);
      }
    };
    for (std::size_t i = 0; i < state.leases.size(); ++i) check(state.leases[i], false, i);
    for (std::size_t i = 0; i < state.finished.size(); ++i) check(state.finished[i], true, i);
    s.book_.import_records(state);
    try {
      s.validate();
    } catch (const invariant_violation& e) {
      throw invalid_request(describe("inconsistent scheduler state: ", e.what()));
    }
    return s;
  }

  /// Checks the scheduler against its slot table: every node's free capacity at every change
  /// point equals its total minus the segments booked on it; queue and states agree. Throws
  /// invariant_violation naming the first difference. For tests; O(nodes x bookings).
  void validate() const { book_.validate(); }

  /// The VM time model (vm_time_model.hpp) under this scheduler's configuration.
  /// Seconds to migrate the lease's image instance and memory state.
  [[nodiscard]] time_type migration_time(const terms_type& t) const {
    return book_.times().migration_time(t);
  }
  /// Boot plus shutdown, added after a lease's last run in VMs.
  [[nodiscard]] time_type overhead(const terms_type& t) const { return book_.times().overhead(t); }
  /// How long an advance reservation or immediate lease holds its nodes: its (stretched)
  /// duration, plus its shutdown unless that falls inside (reservation_overhead_inside).
  [[nodiscard]] time_type reservation_length(const terms_type& t) const {
    return book_.times().reservation_length(t);
  }
  /// Wall-clock time an advance reservation's `work` seconds hold.
  [[nodiscard]] time_type reservation_time_for(time_type work) const {
    return book_.times().reservation_time_for(work);
  }
  /// Seconds to resume one of the lease's VMs.
  [[nodiscard]] time_type resume_time(const terms_type& t) const {
    return book_.times().resume_time(t);
  }
  /// Seconds to suspend one of the lease's VMs.
  [[nodiscard]] time_type suspend_time(const terms_type& t) const {
    return book_.times().suspend_time(t);
  }
  /// Wall-clock time to do `work` seconds of computation (longer inside a VM).
  [[nodiscard]] time_type time_for(time_type work) const { return book_.times().time_for(work); }
  /// Wall-clock time `work` seconds of the lease take: slowed down in VMs for best effort (and
  /// for reservations with stretch_reservations).
  [[nodiscard]] time_type wall_time(const record_type& l, time_type work) const {
    return book_.times().wall_time(l, work);
  }
  /// Work done in `elapsed` seconds of running: the inverse of time_for, rounded down.
  [[nodiscard]] time_type work_of(time_type elapsed) const {
    return book_.times().work_of(elapsed);
  }

 private:
  book_type book_;
  bool in_call_ = false;  // inside a public call (see outermost())

  // The components, over this scheduler's book, for the call in progress.
  detail::event_clock<book_type> clock() noexcept { return detail::event_clock<book_type>(book_); }
  detail::best_effort_planning<book_type> planning() noexcept {
    return detail::best_effort_planning<book_type>(book_);
  }

  // Every public call enters here once (a call made from inside another, such as submit's
  // advance_to, runs directly): as a transaction when the guarantee is on
  // (detail/transactions.hpp), and retiring the leases it finished before it returns.
  template <class Body>
  decltype(auto) outermost(Body body) {
    struct leave {
      bool& flag;
      ~leave() { flag = false; }
    } guard{in_call_};
    in_call_ = true;
    book_.clear_retiring();
    // Transfers starting at the call's final instant are announced (and so fixed) as it ends.
    auto whole = [&]() -> decltype(auto) {
      if constexpr (std::is_void_v<decltype(body())>) {
        body();
        clock().report_transfers(book_.now());
        book_.retire();
      } else {
        auto result = body();
        clock().report_transfers(book_.now());
        book_.retire();
        return result;
      }
    };
    if (book_.config().strong_guarantee) return detail::transactions<book_type>::run(book_, whole);
    return whole();
  }

  static config_type check_config(const config_type& c) {
    auto rate_ok = [](double r) { return std::isfinite(r) && r > 0.0; };
    if (!rate_ok(c.suspend_rate_mb_s) || !rate_ok(c.resume_rate_mb_s) || !rate_ok(c.network_mb_s))
      throw invalid_request(leasehold::detail::describe(
          "scheduler_config: rates must be positive (suspend ", c.suspend_rate_mb_s, ", resume ",
          c.resume_rate_mb_s, ", network ", c.network_mb_s, " MB/s)"));
    if (c.runtime_slowdown_percent < 0 || c.runtime_slowdown_percent > 10000)
      throw invalid_request(leasehold::detail::describe("scheduler_config: runtime slowdown ",
                                                        c.runtime_slowdown_percent,
                                                        " % outside [0, 10000]"));
    if (c.boot_shutdown < 0)
      throw invalid_request(leasehold::detail::describe("scheduler_config: boot + shutdown ",
                                                        c.boot_shutdown, " is negative"));
    if (c.suspend_time_fixed && *c.suspend_time_fixed < 0)
      throw invalid_request(leasehold::detail::describe("scheduler_config: suspend time ",
                                                        *c.suspend_time_fixed, " is negative"));
    if (c.resume_time_fixed && *c.resume_time_fixed < 0)
      throw invalid_request(leasehold::detail::describe("scheduler_config: resume time ",
                                                        *c.resume_time_fixed, " is negative"));
    if (c.minimum_run && *c.minimum_run < 0)
      throw invalid_request(leasehold::detail::describe("scheduler_config: minimum run ",
                                                        *c.minimum_run, " is negative"));
    if (c.preempt != preemption_set::all_overlapping && c.preempt != preemption_set::minimal)
      throw invalid_request(
          leasehold::detail::describe("scheduler_config: preempt is ", static_cast<int>(c.preempt),
                                      ", neither all_overlapping (0) nor minimal (1)"));
    constexpr std::size_t components = capacity_type::size();
    if (c.layout.memory >= components)
      throw invalid_request(leasehold::detail::describe(
          "scheduler_config: layout.memory is component ", c.layout.memory,
          " but the resource vector has ", components));
    if (c.layout.disk && *c.layout.disk >= components)
      throw invalid_request(
          leasehold::detail::describe("scheduler_config: layout.disk is component ", *c.layout.disk,
                                      " but the resource vector has ", components));
    return c;
  }

  void check_now(const char* operation, time_type now) const {
    if (now < book_.now())
      throw invalid_lease(leasehold::detail::describe(
          operation, " at ", now, ": time went backwards (the scheduler is at ", book_.now(), ")"));
  }
  /// The lease a call on one lease (withdraw, release) acts on, with the clock moved to `now`:
  /// throws invalid_lease, changing nothing, for a time before the clock or an unknown id.
  const record_type& lease_at(const char* operation, std::uint64_t id, time_type now) {
    check_now(operation, now);
    if (!book_.leases().contains(id))
      throw invalid_lease(leasehold::detail::describe(operation, " lease ", id, ": unknown lease"));
    clock().run_events_until(now);
    return book_.lease(id);
  }
};

}  // namespace leasehold::policy::lease
