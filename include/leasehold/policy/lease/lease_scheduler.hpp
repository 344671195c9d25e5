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
// The parts, one idea per header of detail/: lease_book.hpp (the state and the bookkeeping
// of bookings), reservation_admission.hpp, best_effort_planning.hpp, event_clock.hpp and
// transactions.hpp (the strong guarantee); vm_time_model.hpp has the VM time model.
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
class lease_scheduler : private detail::lease_layers<A, Preparation, QueueOrder, NodeChoice> {
  using base = detail::lease_layers<A, Preparation, QueueOrder, NodeChoice>;

 public:
  using typename base::table_type;
  using typename base::time_type;
  /// The per-node resource vector: Haizea's node_resources, or any resources<N, V> (GPUs,
  /// licences) with config().layout naming its memory and disk components.
  using typename base::capacity_type;
  using typename base::config_type;
  using typename base::node_choice_type;
  using typename base::preparation_type;
  using typename base::queue_order_type;
  using typename base::record_type;
  using typename base::segment_type;
  using typename base::terms_type;

  /// A scheduler over `table` with the given configuration, preparation step, queue order and
  /// node choice. Throws invalid_request for a configuration out of range or a preparation step
  /// that knows a different number of nodes than the table.
  explicit lease_scheduler(table_type table, config_type config = {}, Preparation prep = {},
                           QueueOrder order = {}, NodeChoice choice = {})
      : base(std::move(table), check_config(config), std::move(prep), std::move(order),
             std::move(choice)) {
    if constexpr (base::template prep_offers<preparation_feature::node_count>) {
      if (prep_.node_count() != table_.node_count())
        throw invalid_request(leasehold::detail::describe(
            "lease_scheduler: the preparation step knows ", prep_.node_count(),
            " nodes but the slot table has ", table_.node_count()));
    }
  }

  /// Sets the observer told of every change (nullptr: none); the scheduler does not own it.
  void set_observer(lease_observer<time_type>* observer) noexcept { observer_ = observer; }

  /// The slot table with every booking, read-only.
  [[nodiscard]] const table_type& table() const noexcept { return table_; }
  /// Its configuration.
  [[nodiscard]] const config_type& config() const noexcept { return config_; }
  /// The preparation step (image staging: its caches, transfers and counts).
  [[nodiscard]] const Preparation& preparation_step() const noexcept { return prep_; }
  /// The queue order and the node choice this scheduler was built with.
  [[nodiscard]] const QueueOrder& order_policy() const noexcept { return order_; }
  /// The node choice.
  [[nodiscard]] const NodeChoice& node_policy() const noexcept { return choice_; }
  /// The scheduler's clock: the latest time advanced to.
  [[nodiscard]] time_type now() const noexcept { return now_; }
  /// Every lease submitted so far; with config().retire_finished, the live ones only (queued,
  /// scheduled or running), finished ones having gone to take_finished().
  [[nodiscard]] const std::map<std::uint64_t, record_type>& leases() const noexcept {
    return leases_;
  }
  /// The record of lease `id`; throws invalid_lease for an id it does not hold.
  [[nodiscard]] const record_type& lease(std::uint64_t id) const {
    const auto it = leases_.find(id);
    if (it == leases_.end()) {
      if (config_.retire_finished)
        throw invalid_lease(leasehold::detail::describe(
            "lease ", id,
            ": unknown lease (never submitted, or finished and retired: see take_finished())"));
      throw invalid_lease(leasehold::detail::describe("lease ", id, ": unknown lease"));
    }
    return it->second;
  }
  /// With config().retire_finished: the leases that finished (done, rejected or withdrawn)
  /// since the last call, in the order they finished, each handed out once. Empty otherwise.
  [[nodiscard]] std::vector<record_type> take_finished() noexcept {
    std::vector<record_type> taken;
    taken.swap(finished_);
    return taken;
  }
  /// How many finished leases wait for take_finished().
  [[nodiscard]] std::size_t finished_count() const noexcept { return finished_.size(); }
  /// How many leases wait in the queue.
  [[nodiscard]] std::size_t queue_size() const noexcept { return queue_.size(); }
  /// Ids of the queued leases in the order they are served at now(): FIFO (submit time, then
  /// id) by default, else by the queue order's keys, equal keys FIFO.
  [[nodiscard]] std::vector<std::uint64_t> queue() const { return served_order(); }

  /// The earliest time at which a booked segment begins or ends, or an image transfer starts or
  /// ends (with a preparation step that announces transfers), if any.
  [[nodiscard]] std::optional<time_type> next_event_time() const {
    std::optional<time_type> next = this->next_transfer_event();
    if (!events_.empty() && (!next || std::get<0>(*events_.begin()) < *next))
      next = std::get<0>(*events_.begin());
    return next;
  }

  /// Processes every segment begin and end up to `now` in time order (ends before begins at
  /// the same time), re-evaluating the schedule after each instant.
  void advance_to(time_type now) {
    if (!in_call_) return outermost([&] { advance_to(now); });
    check_now("advance_to", now);
    run_events_until(now);
  }

  /// A new lease arrives at `now` (events due by then are processed first). Advance
  /// reservations and immediate leases are admitted or rejected at once; best-effort leases
  /// join the queue. Throws invalid_lease for malformed terms, changing nothing.
  submit_result submit(const terms_type& terms, time_type now) {
    if (!in_call_) return outermost([&] { return submit(terms, now); });
    check_now("submit", now);
    check_terms(terms, now);
    run_events_until(now);
    record_type& l = log_.add(leases_, terms.id, record_type{});
    l.terms = terms;
    l.remaining_max = terms.duration;
    l.remaining_real = terms.real_duration > 0 ? terms.real_duration : terms.duration;
    submit_result result;
    switch (terms.kind) {
      case lease_kind::best_effort:
        enqueue(l);
        result.outcome = admission::queued;
        break;
      case lease_kind::advance_reservation:
      case lease_kind::immediate:
        result.reason = admit(l);
        result.outcome = result.reason.empty() ? admission::accepted : admission::rejected;
        if (!result.reason.empty()) {
          log_.save(l);
          l.state = lease_state::rejected;
          l.rejection = result.reason;
          finished(l);
          if (observer_ != nullptr) observer_->on_rejected(l.terms.id, now_, result.reason);
        }
        break;
    }
    reevaluate();
    return result;
  }

  /// The user takes back a lease that has not started yet (a job cancelled while waiting, as
  /// in the SWF logs' status 5). Returns false, changing nothing, when the lease has already
  /// started (it then runs on) or is over.
  bool withdraw(std::uint64_t id, time_type now) {
    if (!in_call_) return outermost([&] { return withdraw(id, now); });
    record_type& l = lease_at("withdraw", id, now);
    if (l.first_start || (l.state != lease_state::queued && l.state != lease_state::scheduled))
      return false;
    if (l.state == lease_state::scheduled) unbook(l, now_);
    log_.erase(queue_, {l.terms.submit, l.terms.id});
    log_.save(l);
    l.state = lease_state::withdrawn;
    l.end = now_;
    finished(l);
    reevaluate();
    return true;
  }

  /// The execution manager's "release lease" (§3.3): a running lease's work is done at `now`;
  /// the rest of its booking is freed and the schedule re-evaluated. Throws invalid_lease for
  /// a lease that is not running.
  void release(std::uint64_t id, time_type now) {
    if (!in_call_) return outermost([&] { release(id, now); });
    record_type& l = lease_at("release", id, now);
    if (l.state != lease_state::running)
      throw invalid_lease(
          leasehold::detail::describe("release lease ", id, ": it is ", l.state, ", not running"));
    const segment_type seg = *l.current;
    const time_type run_end = std::clamp(now_, seg.run.begin, seg.run.end);
    close_segment(l, now_, {seg.run.begin, run_end}, l.remaining_real, segment_outcome::released);
    log_.save(l);
    l.remaining_max = 0;
    l.remaining_real = 0;
    finish_lease(l, now_);
    if (now_ < seg.booked.end) slide_back(seg.nodes);
    reevaluate();
  }

  // ---- the state as values (scheduler_state.hpp) ----------------------------------------------

  /// Everything the scheduler holds, by value.
  using state_type = scheduler_state<A>;

  /// Everything the scheduler holds but its code: config, clock, slot table, lease records,
  /// backfilling reservations and finished leases not yet taken. A copy: O(state).
  [[nodiscard]] state_type export_state() const {
    state_type state{config_, now_, table_, {}, {reserved_.begin(), reserved_.end()}, finished_};
    state.leases.reserve(leases_.size());
    for (const auto& entry : leases_) state.leases.push_back(entry.second);
    return state;
  }

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
        s.check_record(record);
      } catch (const invalid_lease& e) {
        throw invalid_lease_record(describe("scheduler state: ", e.what()), e.field(), finished,
                                   index);
      }
    };
    for (std::size_t i = 0; i < state.leases.size(); ++i) check(state.leases[i], false, i);
    for (std::size_t i = 0; i < state.finished.size(); ++i) check(state.finished[i], true, i);
    for (record_type& record : state.leases) {
      const std::uint64_t id = record.terms.id;
      const auto [it, fresh] = s.leases_.emplace(id, std::move(record));
      if (!fresh) throw invalid_request(describe("scheduler state: lease ", id, " appears twice"));
      const record_type& l = it->second;
      if (l.state == lease_state::queued) s.queue_.insert({l.terms.submit, id});
      for (const auto& e : pending_events(l)) {
        if (std::get<0>(e) < s.now_)
          throw invalid_request(describe("scheduler state: lease ", id, " has an event at ",
                                         std::get<0>(e), ", before the clock ", s.now_));
        s.events_.insert(e);
      }
      if (l.current)
        for (std::size_t node : l.current->nodes) {
          if (node >= s.on_node_.size())
            throw invalid_request(describe("scheduler state: lease ", id, " is booked on node ",
                                           node, " but the table has ", s.on_node_.size()));
          s.on_node_[node].push_back(id);
        }
    }
    for (std::uint64_t id : state.reserved) {
      const auto it = s.leases_.find(id);
      // With reservation_held_until_end a running lease still holds the reservation it began
      // with.
      const bool holds =
          it != s.leases_.end() && it->second.is_best_effort() &&
          (it->second.state == lease_state::scheduled ||
           (it->second.state == lease_state::running && s.config_.reservation_held_until_end));
      if (!holds)
        throw invalid_request(describe("scheduler state: lease ", id,
                                       s.config_.reservation_held_until_end
                                           ? " holds a reservation but is not a scheduled or "
                                             "running best-effort lease"
                                           : " holds a reservation but is not a scheduled "
                                             "best-effort lease"));
      s.reserved_.insert(id);
    }
    s.finished_ = std::move(state.finished);
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
  void validate() const {
    table_.validate();
    for (std::size_t node = 0; node < on_node_.size(); ++node) {
      std::vector<time_type> points{now_};
      for (const auto& block : table_.node(node).free_blocks()) points.push_back(block.span.begin);
      for (std::uint64_t id : on_node_[node]) {
        const segment_type& seg = *leases_.at(id).current;
        points.push_back(std::max(seg.booked.begin, now_));
        points.push_back(seg.booked.end);
      }
      // Migration transfers under way to this node (migration_step::transfer_first).
      std::vector<std::pair<interval<time_type>, capacity_type>> transfers;
      for (const auto& [id, l] : leases_) {
        if (!l.migration_transfer || l.migration_transfer->end <= now_) continue;
        if (std::ranges::find(l.suspended_on, node) == l.suspended_on.end()) continue;
        if (const auto disk = transfer_vector(l.terms)) {
          transfers.emplace_back(*l.migration_transfer, *disk);
          points.push_back(l.migration_transfer->end);
        }
      }
      for (time_type t : points) {
        if (t < now_ || t == forever<time_type>) continue;
        capacity_type expected = table_.per_node_total();
        for (std::uint64_t id : on_node_[node]) {
          const segment_type& seg = *leases_.at(id).current;
          if (seg.booked.contains(t)) expected -= seg.per_node;
        }
        for (const auto& [span, disk] : transfers)
          if (span.contains(t)) expected -= disk;
        if (!is_nonnegative(expected))
          throw invariant_violation(leasehold::detail::describe("lease_scheduler: node ", node,
                                                                " over-committed at ", t));
        if (!(expected == table_.node(node).free_at(t)))
          throw invariant_violation(leasehold::detail::describe(
              "lease_scheduler: node ", node, " has ", table_.node(node).free_at(t), " free at ", t,
              " but its segments leave ", expected));
      }
    }
    for (const auto& [id, l] : leases_) {
      const bool in_queue = queue_.contains({l.terms.submit, id});
      if (in_queue != (l.state == lease_state::queued))
        throw invariant_violation(
            leasehold::detail::describe("lease_scheduler: lease ", id, " is ", l.state, " but ",
                                        in_queue ? "is" : "is not", " in the queue"));
      const bool booked = l.state == lease_state::scheduled || l.state == lease_state::running;
      if (booked != l.current.has_value())
        throw invariant_violation(
            leasehold::detail::describe("lease_scheduler: lease ", id, " is ", l.state, " but ",
                                        booked ? "has no" : "has a", " segment"));
    }
  }

  /// The VM time model (vm_time_model.hpp) under this scheduler's configuration.
  using base::migration_time;
  using base::overhead;
  using base::reservation_length;
  using base::reservation_time_for;
  using base::resume_time;
  using base::suspend_time;
  using base::time_for;
  using base::wall_time;
  using base::work_of;

 private:
  using base::admit;
  using base::begin_order;
  using base::booked_vector;
  using base::check_record;
  using base::check_terms;
  using base::choice_;
  using base::close_segment;
  using base::config_;
  using base::enqueue;
  using base::events_;
  using base::finish_lease;
  using base::finish_order;
  using base::finished;
  using base::finished_;
  using base::in_call_;
  using base::leases_;
  using base::log_;
  using base::may_suspend;
  using base::now_;
  using base::observer_;
  using base::on_node_;
  using base::order_;
  using base::outermost;
  using base::prep_;
  using base::queue_;
  using base::reevaluate;
  using base::reserved_;
  using base::run_events_until;
  using base::served_order;
  using base::slide_back;
  using base::table_;
  using base::transfer_vector;
  using base::unbook;

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
    if (now < now_)
      throw invalid_lease(leasehold::detail::describe(
          operation, " at ", now, ": time went backwards (the scheduler is at ", now_, ")"));
  }
  /// The lease a call on one lease (withdraw, release) acts on, with the clock moved to `now`:
  /// throws invalid_lease, changing nothing, for a time before the clock or an unknown id.
  record_type& lease_at(const char* operation, std::uint64_t id, time_type now) {
    check_now(operation, now);
    const auto it = leases_.find(id);
    if (it == leases_.end())
      throw invalid_lease(leasehold::detail::describe(operation, " lease ", id, ": unknown lease"));
    run_events_until(now);
    return it->second;
  }
};

}  // namespace leasehold::policy::lease
