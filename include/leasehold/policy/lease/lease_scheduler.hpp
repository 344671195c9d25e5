#pragma once

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
// The scheduler never owns a clock: the caller passes the current time to submit(),
// withdraw(), release() and advance_to(), and asks next_event_time() when to call again.
// In simulation the lease's real duration tells when it ends; an embedding scheduler
// leaves real_duration at 0 and calls release() instead.

#include <algorithm>
#include <cmath>
#include <concepts>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <map>
#include <optional>
#include <set>
#include <span>
#include <string>
#include <string_view>
#include <tuple>
#include <type_traits>
#include <utility>
#include <variant>
#include <vector>

#include "leasehold/availability/concept.hpp"
#include "leasehold/availability/detail/checks.hpp"
#include "leasehold/availability/free_list.hpp"
#include "leasehold/cluster/slot_table.hpp"
#include "leasehold/core/capacity.hpp"
#include "leasehold/core/error.hpp"
#include "leasehold/core/time.hpp"
#include "leasehold/policy/lease/config.hpp"
#include "leasehold/policy/lease/detail/deferred_events.hpp"
#include "leasehold/policy/lease/detail/undo_log.hpp"
#include "leasehold/policy/lease/lease_record.hpp"
#include "leasehold/policy/lease/lease_terms.hpp"
#include "leasehold/policy/lease/node_choice.hpp"
#include "leasehold/policy/lease/observer.hpp"
#include "leasehold/policy/lease/preparation.hpp"
#include "leasehold/policy/lease/queue_order.hpp"
#include "leasehold/policy/lease/vm_time_model.hpp"

namespace leasehold::io::detail {
struct scheduler_access;  // io/lease_checkpoint.hpp: saves and restores the private state
}  // namespace leasehold::io::detail

namespace leasehold::policy::lease {

// A lease the scheduler refuses to consider at all: malformed terms, a duplicate id, time
// running backwards. Nothing changes when it is thrown.
struct invalid_lease : invalid_request {
  using invalid_request::invalid_request;
};

enum class admission {
  accepted,  // an advance reservation or immediate lease is booked
  queued,    // a best-effort lease is in the queue (it may already have been started)
  rejected,  // the lease will never run; the reason says why
};

struct submit_result {
  admission outcome = admission::queued;
  std::string reason;
};

// QueueOrder (queue_order.hpp) and NodeChoice (node_choice.hpp) are the customisation points
// of best-effort queue order and node choice; the defaults are Haizea's.
template <availability A = free_list<std::int64_t, node_resources>,
          class Preparation = images_predeployed, class QueueOrder = fifo_order,
          class NodeChoice = lowest_node_id>
requires vector_capacity<typename A::capacity_type> &&
    preparation<Preparation, typename A::time_type, typename A::capacity_type> &&
    queue_order<QueueOrder, typename A::time_type, typename A::capacity_type> &&
    node_choice<NodeChoice, cluster::slot_table<A>>
class lease_scheduler {
 public:
  using time_type = typename A::time_type;
  using table_type = cluster::slot_table<A>;
  // The per-node resource vector: Haizea's node_resources, or any resources<N, V> (GPUs,
  // licences) with config().layout naming its memory and disk components.
  using capacity_type = typename A::capacity_type;
  using terms_type = lease_terms<time_type, capacity_type>;
  using record_type = lease_record<time_type, capacity_type>;
  using config_type = scheduler_config<time_type>;
  using segment_type = segment<time_type, capacity_type>;
  using preparation_type = Preparation;
  using queue_order_type = QueueOrder;
  using node_choice_type = NodeChoice;

  explicit lease_scheduler(table_type table, config_type config = {}, Preparation prep = {},
                           QueueOrder order = {}, NodeChoice choice = {})
      : table_(std::move(table)),
        config_(check_config(config)),
        prep_(std::move(prep)),
        order_(std::move(order)),
        choice_(std::move(choice)),
        now_(table_.origin()),
        on_node_(table_.node_count()) {
    if constexpr (requires { prep_.node_count(); }) {
      if (prep_.node_count() != table_.node_count())
        throw invalid_request(leasehold::detail::describe(
            "lease_scheduler: the preparation step knows ", prep_.node_count(),
            " nodes but the slot table has ", table_.node_count()));
    }
  }

  void set_observer(lease_observer<time_type>* observer) noexcept { observer_ = observer; }

  [[nodiscard]] const table_type& table() const noexcept { return table_; }
  [[nodiscard]] const config_type& config() const noexcept { return config_; }
  // The preparation step (image staging: its caches, transfers and counts).
  [[nodiscard]] const Preparation& preparation_step() const noexcept { return prep_; }
  // The queue order and the node choice this scheduler was built with.
  [[nodiscard]] const QueueOrder& order_policy() const noexcept { return order_; }
  [[nodiscard]] const NodeChoice& node_policy() const noexcept { return choice_; }
  [[nodiscard]] time_type now() const noexcept { return now_; }
  // Every lease submitted so far; with config().retire_finished, the live ones only (queued,
  // scheduled or running), finished ones having gone to take_finished().
  [[nodiscard]] const std::map<std::uint64_t, record_type>& leases() const noexcept {
    return leases_;
  }
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
  // With config().retire_finished: the leases that finished (done, rejected or withdrawn)
  // since the last call, in the order they finished, each handed out once. Empty otherwise.
  [[nodiscard]] std::vector<record_type> take_finished() noexcept {
    std::vector<record_type> taken;
    taken.swap(finished_);
    return taken;
  }
  // How many finished leases wait for take_finished().
  [[nodiscard]] std::size_t finished_count() const noexcept { return finished_.size(); }
  [[nodiscard]] std::size_t queue_size() const noexcept { return queue_.size(); }
  // Ids of the queued leases in the order they are served at now(): FIFO (submit time, then
  // id) by default, else by the queue order's keys, equal keys FIFO.
  [[nodiscard]] std::vector<std::uint64_t> queue() const { return served_order(); }

  // The earliest time at which a booked segment begins or ends, if any.
  [[nodiscard]] std::optional<time_type> next_event_time() const {
    if (events_.empty()) return std::nullopt;
    return std::get<0>(*events_.begin());
  }

  // Processes every segment begin and end up to `now` in time order (ends before begins at
  // the same time), re-evaluating the schedule after each instant.
  void advance_to(time_type now) {
    if (!in_call_) return outermost([&] { advance_to(now); });
    check_now("advance_to", now);
    while (!events_.empty() && std::get<0>(*events_.begin()) <= now) {
      const time_type at = std::get<0>(*events_.begin());
      move_clock(at);
      while (!events_.empty() && std::get<0>(*events_.begin()) == at) {
        const auto [time, order, id] = *events_.begin();
        log_.erase(events_, {time, order, id});
        record_type& l = leases_.at(id);
        if (order == begin_order)
          on_segment_begin(l, time);
        else
          on_segment_finish(l, time);
      }
      reevaluate();
    }
    move_clock(now);
  }

  // A new lease arrives at `now` (events due by then are processed first). Advance
  // reservations and immediate leases are admitted or rejected at once; best-effort leases
  // join the queue. Throws invalid_lease for malformed terms, changing nothing.
  submit_result submit(const terms_type& terms, time_type now) {
    if (!in_call_) return outermost([&] { return submit(terms, now); });
    check_now("submit", now);
    check_terms(terms, now);
    advance_to(now);
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

  // The user takes back a lease that has not started yet (a job cancelled while waiting, as
  // in the SWF logs' status 5). Returns false, changing nothing, when the lease has already
  // started (it then runs on) or is over.
  bool withdraw(std::uint64_t id, time_type now) {
    if (!in_call_) return outermost([&] { return withdraw(id, now); });
    check_now("withdraw", now);
    const auto it = leases_.find(id);
    if (it == leases_.end())
      throw invalid_lease(leasehold::detail::describe("withdraw lease ", id, ": unknown lease"));
    advance_to(now);
    record_type& l = it->second;
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

  // The execution manager's "release lease" (§3.3): a running lease's work is done at `now`;
  // the rest of its booking is freed and the schedule re-evaluated. Throws invalid_lease for
  // a lease that is not running.
  void release(std::uint64_t id, time_type now) {
    if (!in_call_) return outermost([&] { release(id, now); });
    check_now("release", now);
    const auto it = leases_.find(id);
    if (it == leases_.end())
      throw invalid_lease(leasehold::detail::describe("release lease ", id, ": unknown lease"));
    advance_to(now);
    record_type& l = it->second;
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

  // Checks the scheduler against its slot table: every node's free capacity at every change
  // point equals its total minus the segments booked on it; queue and states agree. Throws
  // invariant_violation naming the first difference. For tests; O(nodes x bookings).
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

  // The VM time model (vm_time_model.hpp) under this scheduler's configuration.
  [[nodiscard]] time_type suspend_time(const terms_type& t) const {
    return lease::suspend_time(config_, t);
  }
  [[nodiscard]] time_type resume_time(const terms_type& t) const {
    return lease::resume_time(config_, t);
  }
  [[nodiscard]] time_type migration_time(const terms_type& t) const {
    return lease::migration_time(config_, t);
  }
  [[nodiscard]] time_type time_for(time_type work) const { return lease::time_for(config_, work); }
  [[nodiscard]] time_type work_of(time_type elapsed) const {
    return lease::work_of(config_, elapsed);
  }
  [[nodiscard]] time_type overhead(const terms_type& t) const {
    return lease::overhead(config_, t);
  }
  [[nodiscard]] time_type reservation_time_for(time_type work) const {
    return lease::reservation_time_for(config_, work);
  }
  // Wall-clock time `work` seconds of the lease take: slowed down in VMs for best effort (and
  // for reservations with stretch_reservations).
  [[nodiscard]] time_type wall_time(const record_type& l, time_type work) const {
    return l.is_best_effort() ? time_for(work) : reservation_time_for(work);
  }
  // How long an advance reservation or immediate lease holds its nodes: its (stretched)
  // duration, plus its shutdown unless that falls inside (reservation_overhead_inside).
  [[nodiscard]] time_type reservation_length(const terms_type& t) const {
    const time_type held = reservation_time_for(t.duration);
    return config_.reservation_overhead_inside ? held : static_cast<time_type>(held + overhead(t));
  }

 private:
  friend struct io::detail::scheduler_access;

  // ---- the strong guarantee ------------------------------------------------------------------
  //
  // Every public mutating call (submit, withdraw, release, advance_to) runs as a transaction
  // (unless config().strong_guarantee is off): each change it makes to the slot table, the
  // queue, the reservations, the events, the bookings per node and the lease records goes
  // through an undo log (detail/undo_log.hpp) and is taken back, newest first, if the call
  // throws (std::bad_alloc, a Preparation's exception, an internal invariant). Undoing never
  // allocates, so a call costs what it changes, however long the scheduler has run. The slot
  // table's clock is moved only when the call has succeeded (a profile forgets the past for
  // good; until then every query begins at now_, which the table's older origin does not
  // change). Two parts are still saved whole: a Preparation with state (an image-staging
  // step: its caches and transfers) and, for backends that cannot undo a booking in place or
  // that hold a fixed horizon (slotted_ring: a lagging origin would shorten it), the slot
  // table. The observer hears of the call's events only once it has succeeded.
  // tests/fault/ checks the guarantee by failing every allocation of every call in turn.

  using undo_log_type = detail::undo_log<table_type, record_type>;
  // Bookings are undone in place and the table's clock moves at commit (see above).
  static constexpr bool undoes_bookings = undo_log_type::logs_table && !requires(const A& a) {
    a.horizon();
  };
  static constexpr bool saves_preparation = !std::is_empty_v<Preparation>;

  // Every public call enters here once (a call made from inside another, such as submit's
  // advance_to, runs directly): as a transaction when the guarantee is on, and retiring the
  // leases it finished before it returns.
  template <class Body>
  decltype(auto) outermost(Body body) {
    struct leave {
      bool& flag;
      ~leave() { flag = false; }
    } guard{in_call_};
    in_call_ = true;
    retiring_.clear();
    auto whole = [&]() -> decltype(auto) {
      if constexpr (std::is_void_v<decltype(body())>) {
        body();
        retire();
      } else {
        auto result = body();
        retire();
        return result;
      }
    };
    if (config_.strong_guarantee) return transaction(whole);
    return whole();
  }

  // A lease is over; with retire_finished it leaves the live state when the call ends (not at
  // once: the call may still hold a reference to its record).
  void finished(const record_type& l) {
    if (config_.retire_finished) retiring_.push_back(l.terms.id);
  }
  void retire() {
    for (const std::uint64_t id : retiring_) log_.retire(leases_, finished_, id);
    retiring_.clear();
  }

  template <class Body>
  decltype(auto) transaction(Body body) {
    static_assert(std::is_nothrow_move_constructible_v<Preparation> &&
                      std::is_nothrow_move_assignable_v<Preparation>,
                  "lease_scheduler: the Preparation must be nothrow movable, so that a failed "
                  "call can be rolled back");
    // The copies below may throw; nothing has changed yet.
    std::optional<table_type> table;
    if constexpr (!undoes_bookings) table.emplace(table_);
    std::optional<Preparation> prep;
    if constexpr (saves_preparation) prep.emplace(prep_);
    const time_type now = now_;
    detail::deferred_events<time_type> deferred;
    lease_observer<time_type>* const observer = observer_;
    observer_ = &deferred;
    in_transaction_ = true;
    log_.begin();
    const auto restore = [&]() noexcept {
      log_.rollback({table_, queue_, events_, reserved_, on_node_, leases_, finished_});
      if constexpr (!undoes_bookings) {
        using std::swap;
        swap(table_, *table);
      }
      if constexpr (saves_preparation) {
        using std::swap;
        swap(prep_, *prep);
      }
      now_ = now;
    };
    const auto finish = [&] {
      observer_ = observer;
      in_transaction_ = false;
      log_.commit();
    };
    // The table's clock, last: it cannot fail for a nothrow_rollback backend (now_ >= its
    // origin), and would leave the table as it was for any other.
    const auto catch_up = [&] {
      if constexpr (undoes_bookings)
        if (table_.origin() < now_) table_.advance_to(now_);
    };
    try {
      if constexpr (std::is_void_v<decltype(body())>) {
        body();
        catch_up();
        finish();
        if (observer_ != nullptr) deferred.replay(*observer_);
      } else {
        auto result = body();
        catch_up();
        finish();
        if (observer_ != nullptr) deferred.replay(*observer_);
        return result;
      }
    } catch (...) {
      if (in_transaction_) {  // thrown by the call, not by the observer after it succeeded
        restore();
        observer_ = observer;
        in_transaction_ = false;
      }
      throw;
    }
  }

  static constexpr int finish_order = 0;  // ends before begins at the same instant
  static constexpr int begin_order = 1;
  using event = std::tuple<time_type, int, std::uint64_t>;

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

  // The resource vector a lease books per node: its own, plus room for its memory state
  // when it may be suspended (§3.2).
  [[nodiscard]] capacity_type booked_vector(const terms_type& t) const {
    capacity_type v = t.per_node;
    if (may_suspend(t) && config_.reserve_disk_for_memory_state && config_.layout.disk)
      v[*config_.layout.disk] += t.per_node[config_.layout.memory];
    return v;
  }
  [[nodiscard]] bool may_suspend(const terms_type& t) const {
    return t.kind == lease_kind::best_effort && t.preemptible && config_.suspend == suspension::all;
  }

  void check_terms(const terms_type& t, time_type now) const {
    using leasehold::detail::describe;
    auto fail = [&](const auto&... parts) {
      throw invalid_lease(describe("lease ", t.id, " (", t.kind, "): ", parts...));
    };
    if (leases_.contains(t.id)) fail("a lease with this id was already submitted");
    if (t.nodes <= 0) fail("asks for ", t.nodes, " nodes; it needs at least one");
    if (static_cast<std::uint64_t>(t.nodes) > table_.node_count())
      fail("asks for ", t.nodes, " nodes but the cluster has ", table_.node_count());
    if (t.duration <= 0) fail("duration ", t.duration, " must be positive");
    // time_for multiplies by (100 + slowdown %); keep that and now + twice the span in range.
    if (t.duration > std::numeric_limits<time_type>::max() / 200 - overhead(t) ||
        !leasehold::detail::checked_add(now,
                                        static_cast<time_type>(2 * (t.duration + overhead(t)))))
      fail("duration ", t.duration, " overflows the time type");
    if (t.real_duration < 0 || t.real_duration > t.duration)
      fail("real duration ", t.real_duration, " outside [0, duration ", t.duration, "]");
    if (!is_positive(t.per_node)) fail("per-node resources ", t.per_node, " must be positive");
    if (!fits(booked_vector(t), table_.per_node_total()))
      fail("per-node resources ", booked_vector(t), " exceed a node's ", table_.per_node_total());
    if (t.submit > now) fail("submitted at ", t.submit, ", after the current time ", now);
    if (t.image && t.image->size_mb < 0) fail("image size ", t.image->size_mb, " is negative");
    if (t.hold_in_queue && t.kind != lease_kind::best_effort)
      fail("only a best-effort lease can be held in the queue");
    if constexpr (requires { prep_.check_terms(t); }) {
      try {
        prep_.check_terms(t);
      } catch (const error& e) {
        fail(e.what());
      }
    }
    const time_type span = static_cast<time_type>(t.duration + overhead(t));
    if (t.kind != lease_kind::best_effort && config_.reservation_overhead_inside &&
        reservation_time_for(t.duration) <= overhead(t))
      fail("duration ", t.duration, " leaves no run before its shutdown (", overhead(t),
           " s, inside the reservation)");
    if (t.kind == lease_kind::advance_reservation) {
      if (!t.start && !t.start_window)
        fail("an advance reservation needs a start or a start window");
      if (t.start && *t.start < now)
        fail("start ", *t.start, " is in the past (the current time is ", now, ")");
      if (t.start_window) {
        if (t.start_window->end < t.start_window->begin)
          fail("start window ", *t.start_window, " ends before it begins");
        if (t.start_window->end < now)
          fail("start window ", *t.start_window, " is in the past (the current time is ", now, ")");
      }
      const time_type latest = t.start ? *t.start : t.start_window->end;
      if (!leasehold::detail::checked_add(latest, span))
        fail("start ", latest, " + duration overflows the time type");
    }
  }

  // ---- clock and events ------------------------------------------------------------------

  void move_clock(time_type t) {
    if (t <= now_) return;
    now_ = t;
    // Inside a transaction the table catches up when the call succeeds (see transaction()).
    if (!(undoes_bookings && in_transaction_)) table_.advance_to(t);
  }

  void on_segment_begin(record_type& l, time_type at) {
    log_.save(l);
    l.state = lease_state::running;
    log_.erase(reserved_, l.terms.id);
    const segment_type& seg = *l.current;
    if (seg.migrates) ++l.migrations;
    if (!l.first_start) {
      l.first_start = at;
      if (observer_ != nullptr) observer_->on_ready(l.terms.id, at, seg.nodes);
    } else if (observer_ != nullptr) {
      observer_->on_resumed(l.terms.id, at, seg.nodes);
      // The phases before the run (lease_record.hpp): the migration, then the resume.
      const auto resume_begin =
          static_cast<time_type>(seg.booked.begin + (seg.migrates ? migration_time(l.terms) : 0));
      if (seg.migrates)
        observer_->on_migrated(l.terms.id, at, l.suspended_on, seg.nodes,
                               {seg.booked.begin, resume_begin});
      if (seg.resumes) observer_->on_resuming(l.terms.id, seg.nodes, {resume_begin, seg.run.begin});
    }
  }

  void on_segment_finish(record_type& l, time_type at) {
    log_.save(l);
    const segment_type seg = *l.current;
    if (seg.completes) {
      const auto real_end = static_cast<time_type>(seg.run.begin + wall_time(l, l.remaining_real));
      close_segment(l, at, {seg.run.begin, std::min(real_end, seg.run.end)}, l.remaining_real,
                    segment_outcome::completed);
      l.remaining_max = 0;
      l.remaining_real = 0;
      finish_lease(l, at);
      if (at < seg.booked.end) slide_back(seg.nodes);
      return;
    }
    // Suspended (§3.1): the work done is credited and the remainder requeued by its
    // original submit time (§3.2).
    const time_type work = work_of(seg.run.end - seg.run.begin);
    close_segment(l, at, seg.run, work, segment_outcome::suspended);
    l.remaining_max -= work;
    l.remaining_real -= work;
    ++l.suspensions;
    l.suspended_on = seg.nodes;
    enqueue(l);
    if (observer_ != nullptr) observer_->on_suspended(l.terms.id, at);
  }

  // Ends the current segment at `at`: frees what is booked after it, records it.
  void close_segment(record_type& l, time_type at, interval<time_type> run, time_type work,
                     segment_outcome outcome) {
    log_.save(l);
    const segment_type seg = *l.current;
    unbook(l, at);
    l.history.push_back({seg.nodes, {seg.booked.begin, at}, run, work, outcome});
  }

  void finish_lease(record_type& l, time_type at) {
    log_.save(l);
    l.state = lease_state::done;
    l.end = at;
    finished(l);
    if (observer_ != nullptr) observer_->on_ended(l.terms.id, at);
  }

  void enqueue(record_type& l) {
    log_.save(l);
    log_.insert(queue_, {l.terms.submit, l.terms.id});
    l.state = lease_state::queued;
  }

  // ---- booking -----------------------------------------------------------------------------

  void book(record_type& l, segment_type seg) {
    log_.save(l);
    if (seg.transfer) start_migration(l, seg);
    table_reserve({seg.booked, seg.per_node, seg.nodes});
    if (!seg.resumes) {
      // A resumed segment finds its image instance on its nodes (or brings it along when
      // migrating, §3.1): only a fresh start is prepared.
      const std::span<const std::size_t> nodes(seg.nodes);
      if constexpr (requires { prep_.prepare(l.terms, nodes, seg.booked, now_); })
        prep_.prepare(l.terms, nodes, seg.booked, now_);
      else
        prep_.prepare(l.terms, nodes, seg.booked.begin, now_);
    }
    for (std::size_t node : seg.nodes) log_.push(on_node_, node, l.terms.id);
    log_.erase(queue_, {l.terms.submit, l.terms.id});
    log_.insert(events_, {seg.finish, finish_order, l.terms.id});
    if (seg.booked.begin > now_) log_.insert(events_, {seg.booked.begin, begin_order, l.terms.id});
    ++l.generation;
    l.current = std::move(seg);
    if (l.current->booked.begin > now_) {
      l.state = lease_state::scheduled;
    } else {
      on_segment_begin(l, now_);
    }
  }

  // migration_step::transfer_first: the transfer to the segment's nodes starts now, holding
  // their disk, and the memory state is theirs from here on (a later plan resumes it there,
  // or moves it again). It is not undone if the resume is planned again.
  void start_migration(record_type& l, segment_type& seg) {
    const interval<time_type> transfer = *seg.transfer;
    seg.transfer.reset();
    if (const auto disk = transfer_vector(l.terms)) table_reserve({transfer, *disk, seg.nodes});
    const std::vector<std::size_t> from = l.suspended_on;
    l.suspended_on = seg.nodes;
    l.migration_transfer = transfer;
    ++l.migrations;
    if (observer_ != nullptr) observer_->on_migrated(l.terms.id, now_, from, seg.nodes, transfer);
  }

  // Gives back what the current segment holds from `from` on and forgets it.
  void unbook(record_type& l, time_type from) {
    log_.save(l);
    const segment_type& seg = *l.current;
    const interval<time_type> rest{std::max(from, seg.booked.begin), seg.booked.end};
    if (!rest.empty()) table_release({rest, seg.per_node, seg.nodes});
    log_.erase(events_, {seg.finish, finish_order, l.terms.id});
    log_.erase(events_, {seg.booked.begin, begin_order, l.terms.id});
    for (std::size_t node : seg.nodes) log_.erase(on_node_, node, l.terms.id);
    prep_.cancel(l.terms.id, now_);
    log_.erase(reserved_, l.terms.id);
    l.current.reset();
    ++l.generation;
  }

  // Bookings in the slot table, through the undo log when it can take them back in place.
  void table_reserve(const typename table_type::placement_type& p) {
    if constexpr (undoes_bookings)
      log_.reserve(table_, p);
    else
      table_.reserve(p);
  }
  void table_release(const typename table_type::placement_type& p) {
    if constexpr (undoes_bookings)
      log_.release(table_, p);
    else
      table_.release(p);
  }

  // When the segment really ends, and whether the lease ends with it. Best-effort work is
  // slowed down inside VMs; an advance reservation holds wall-clock time.
  void settle_finish(const record_type& l, segment_type& seg) const {
    const auto real_end = static_cast<time_type>(seg.run.begin + wall_time(l, l.remaining_real));
    // A lease that ends before its maximum shuts down first, unless Haizea's choice frees its
    // nodes at once (shutdown_after_early_end off).
    const time_type shutdown =
        real_end < seg.run.end && !config_.shutdown_after_early_end ? 0 : overhead(l.terms);
    if (!seg.suspends) {
      seg.completes = true;
      seg.finish = std::min(static_cast<time_type>(std::min(real_end, seg.run.end) + shutdown),
                            seg.booked.end);
    } else if (real_end <= seg.run.end) {
      seg.completes = true;
      seg.finish = std::min(static_cast<time_type>(real_end + shutdown), seg.booked.end);
    } else {
      seg.completes = false;
      seg.finish = seg.booked.end;
    }
  }

  // ---- advance reservations and immediate leases (§3.2) -------------------------------------

  // Books an advance reservation or immediate lease; returns the rejection reason, or "".
  std::string admit(record_type& l) {
    const terms_type& t = l.terms;
    const auto n = static_cast<std::size_t>(t.nodes);
    const capacity_type v = booked_vector(t);
    const time_type length = reservation_length(t);
    using leasehold::detail::describe;

    std::optional<time_type> start;
    if (t.kind == lease_kind::immediate) {
      start = now_;
    } else if (t.start) {
      start = *t.start;
    } else {
      // A window of starts: the earliest without preemption, else its first instant with it.
      const time_type first = std::max(t.start_window->begin, now_);
      const auto p = table_.earliest_fit(
          {n, v, length, {first, static_cast<time_type>(t.start_window->end + length)}});
      start = p ? p->start() : first;
    }
    const interval<time_type> span{*start, static_cast<time_type>(*start + length)};
    if constexpr (reservation_preparation<Preparation, time_type, capacity_type>) {
      if (t.image) return admit_with_images(l, span);
    }
    std::vector<std::size_t> chosen = table_.nodes_free(span, v);
    if (chosen.size() >= n) {
      keep_preferred(chosen, n, l, span);
    } else if (t.kind == lease_kind::immediate) {
      return describe("only ", chosen.size(), " of ", n, " nodes are free over ", span,
                      " and an immediate lease preempts nothing");
    } else {
      // Nodes that preemption can free, those holding only leases not yet begun first (§3.2:
      // nodes that need no preemption first).
      std::vector<std::tuple<int, node_key_type, std::size_t>> candidates;
      for (std::size_t node = 0; node < table_.node_count(); ++node) {
        if (std::ranges::binary_search(chosen, node)) continue;
        if (const auto rank = preemption_rank(node, span, v))
          candidates.emplace_back(*rank, node_key(node, l, span), node);
      }
      if (chosen.size() + candidates.size() < n)
        return describe("only ", chosen.size() + candidates.size(), " of ", n,
                        " nodes can hold it over ", span, ", even preempting best-effort leases");
      std::ranges::sort(candidates);
      std::vector<std::size_t> preempt_on;
      for (std::size_t i = 0; chosen.size() < n; ++i) {
        chosen.push_back(std::get<2>(candidates[i]));
        preempt_on.push_back(std::get<2>(candidates[i]));
      }
      std::ranges::sort(chosen);
      book_reservation(l, span, std::move(chosen), preempt_on);
      return {};
    }
    book_reservation(l, span, std::move(chosen), {});
    return {};
  }

  // The one booking path of admission, shared by admit() and admit_with_images(): preempts
  // the best-effort leases in the way on `preempt_on` (§3.1, in id order) and books the lease
  // on `nodes` (in increasing order) over `span`.
  void book_reservation(record_type& l, interval<time_type> span, std::vector<std::size_t> nodes,
                        std::span<const std::size_t> preempt_on) {
    std::vector<std::uint64_t> victims;
    for (std::size_t node : preempt_on) {
      for (std::uint64_t id : on_node_[node]) {
        const record_type& other = leases_.at(id);
        if (is_preemptible(other) && other.current->booked.overlaps(span)) victims.push_back(id);
      }
    }
    std::ranges::sort(victims);
    victims.erase(std::unique(victims.begin(), victims.end()), victims.end());
    for (std::uint64_t id : victims) preempt(leases_.at(id), span.begin);
    const time_type run = config_.reservation_overhead_inside
                              ? static_cast<time_type>(span.end - span.begin - overhead(l.terms))
                              : reservation_time_for(l.terms.duration);
    segment_type seg;
    seg.nodes = std::move(nodes);
    seg.per_node = booked_vector(l.terms);
    seg.booked = span;
    seg.run = {span.begin, static_cast<time_type>(span.begin + run)};
    settle_finish(l, seg);
    if (!table_.can_reserve({seg.booked, seg.per_node, seg.nodes}))
      throw invariant_violation(leasehold::detail::describe(
          "lease_scheduler: lease ", l.terms.id, " does not fit after preempting for it"));
    book(l, std::move(seg));
  }

  // admit() for a preparation that stages images (Haizea §3.2): nodes that need no
  // preemption first, then nodes where the image will be without a new transfer; the lease
  // is viable only if its transfers can finish by its start. "The exception to this policy is
  // when a lease will be viable only if images are reused, in which case priority is given to
  // nodes with a reusable copy of the required image."
  std::string admit_with_images(record_type& l, interval<time_type> span) {
    const terms_type& t = l.terms;
    const auto n = static_cast<std::size_t>(t.nodes);
    const capacity_type v = booked_vector(t);
    using leasehold::detail::describe;
    struct candidate {
      int preemption;  // 0: free over the span; 1: only leases not yet begun in the way; 2: running
      int image;       // reservation_rank
      node_key_type key;  // the node choice's
      std::size_t node;
    };
    std::vector<candidate> candidates;
    const std::vector<std::size_t> free = table_.nodes_free(span, v);
    for (std::size_t node : free)
      if (const auto rank = prep_.reservation_rank(t, node, span.begin, now_))
        candidates.push_back({0, *rank, node_key(node, l, span), node});
    bool preemptible_added = false;
    auto add_preemptible = [&] {
      if (preemptible_added || t.kind == lease_kind::immediate) return;
      preemptible_added = true;
      for (std::size_t node = 0; node < table_.node_count(); ++node) {
        if (std::ranges::binary_search(free, node)) continue;
        const auto rank = preemption_rank(node, span, v);
        if (!rank) continue;
        if (const auto image = prep_.reservation_rank(t, node, span.begin, now_))
          candidates.push_back({*rank, *image, node_key(node, l, span), node});
      }
    };
    if (candidates.size() < n) add_preemptible();
    if (candidates.size() < n)
      return describe(
          "only ", candidates.size(), " of ", n, " nodes can hold it and its image over ", span,
          t.kind == lease_kind::immediate ? "" : ", even preempting best-effort leases");
    auto pick = [&](bool images_first) {
      std::ranges::sort(candidates, [images_first](const candidate& a, const candidate& b) {
        const auto ka = images_first ? std::tie(a.image, a.preemption, a.key, a.node)
                                     : std::tie(a.preemption, a.image, a.key, a.node);
        const auto kb = images_first ? std::tie(b.image, b.preemption, b.key, b.node)
                                     : std::tie(b.preemption, b.image, b.key, b.node);
        return ka < kb;
      });
      std::vector<candidate> chosen(candidates.begin(),
                                    candidates.begin() + static_cast<std::ptrdiff_t>(n));
      std::ranges::sort(chosen, {}, &candidate::node);
      return chosen;
    };
    auto viable = [&](const std::vector<candidate>& chosen) {
      std::vector<std::size_t> nodes;
      for (const auto& c : chosen) nodes.push_back(c.node);
      return prep_.can_prepare(t, std::span<const std::size_t>(nodes), span.begin, now_);
    };
    std::vector<candidate> chosen = pick(false);
    if (!viable(chosen)) {
      add_preemptible();  // the exception may need nodes that preemption frees
      chosen = pick(true);
      if (!viable(chosen))
        return describe("its image ", t.image->id, " (", t.image->size_mb, " MB) cannot reach ", n,
                        " nodes by its start ", span.begin);
    }
    std::vector<std::size_t> nodes;
    std::vector<std::size_t> preempt_on;
    for (const auto& c : chosen) {
      nodes.push_back(c.node);
      if (c.preemption != 0) preempt_on.push_back(c.node);
    }
    book_reservation(l, span, std::move(nodes), preempt_on);
    return {};
  }

  [[nodiscard]] static bool is_preemptible(const record_type& l) {
    return l.is_best_effort() && l.terms.preemptible && l.current.has_value();
  }

  // nullopt if even preempting every preemptible lease on `node` leaves too little over
  // `span`; else 1 when only leases not yet begun are in the way, 2 when running ones are.
  // Cut the span where preemptible bookings begin or end; within each piece the free
  // capacity they would leave is min_free plus the bookings that cover the whole piece.
  [[nodiscard]] std::optional<int> preemption_rank(std::size_t node, interval<time_type> span,
                                                   const capacity_type& need) const {
    std::vector<time_type> cuts{span.begin, span.end};
    std::vector<const segment_type*> movable;
    int rank = 1;
    for (std::uint64_t id : on_node_[node]) {
      const record_type& other = leases_.at(id);
      if (!is_preemptible(other) || !other.current->booked.overlaps(span)) continue;
      const segment_type& seg = *other.current;
      movable.push_back(&seg);
      if (seg.booked.begin <= now_) rank = 2;
      if (span.contains(seg.booked.begin)) cuts.push_back(seg.booked.begin);
      if (span.contains(seg.booked.end)) cuts.push_back(seg.booked.end);
    }
    if (movable.empty()) return std::nullopt;
    std::ranges::sort(cuts);
    cuts.erase(std::unique(cuts.begin(), cuts.end()), cuts.end());
    for (std::size_t i = 0; i + 1 < cuts.size(); ++i) {
      const interval<time_type> piece{cuts[i], cuts[i + 1]};
      capacity_type free = table_.node(node).min_free(piece);
      for (const segment_type* seg : movable)
        if (seg->booked.begin <= piece.begin && piece.end <= seg->booked.end) free += seg->per_node;
      if (!fits(need, free)) return std::nullopt;
    }
    return rank;
  }

  // Makes a best-effort lease give up [at, ...) (§3.1): unscheduled if it has not begun;
  // else suspended so that the suspension ends exactly at `at`; else (no suspension, or no
  // time left to suspend) cancelled and requeued with its work lost.
  void preempt(record_type& victim, time_type at) {
    segment_type seg = *victim.current;
    if (seg.booked.begin > now_) {
      unbook(victim, now_);
      enqueue(victim);
      return;
    }
    const auto suspend_begin = static_cast<time_type>(at - suspend_time(victim.terms));
    if (may_suspend(victim.terms) && suspend_begin >= now_ && suspend_begin >= seg.run.begin) {
      log_.save(victim);
      if (at < seg.booked.end) table_release({{at, seg.booked.end}, seg.per_node, seg.nodes});
      log_.erase(events_, {seg.finish, finish_order, victim.terms.id});
      seg.booked.end = at;
      seg.run.end = std::min(seg.run.end, suspend_begin);
      seg.suspends = true;
      settle_finish(victim, seg);
      log_.insert(events_, {seg.finish, finish_order, victim.terms.id});
      ++victim.generation;
      victim.current = seg;
      return;
    }
    const time_type run_end = std::clamp(now_, seg.run.begin, seg.run.end);
    close_segment(victim, now_, {seg.run.begin, run_end}, 0, segment_outcome::cancelled);
    log_.save(victim);
    ++victim.cancellations;
    enqueue(victim);
    if (observer_ != nullptr) observer_->on_requeued(victim.terms.id, now_);
  }

  // ---- best-effort leases (§3.2) -------------------------------------------------------------

  // Unschedules every best-effort lease that holds a reservation but has not begun, then
  // plans the queue again in its order: the schedule after anything changed.
  void reevaluate() {
    if (config_.replan == replanning::whole_queue) {
      for (const std::uint64_t id :
           std::vector<std::uint64_t>(reserved_.begin(), reserved_.end())) {
        record_type& l = leases_.at(id);
        unbook(l, now_);
        enqueue(l);
      }
    }
    const std::size_t limit = config_.backfill.max_reservations();
    std::size_t reservations = reserved_.size();  // kept bookings count (slide_back)
    for (const std::uint64_t id : served_order()) {
      record_type& l = leases_.at(id);
      if (l.terms.hold_in_queue) continue;  // it only waits for its withdrawal (lease_terms)
      const bool may_reserve = reservations < limit;
      if (!may_reserve && !fits(booked_vector(l.terms), table_.aggregate().free_at(now_))) {
        if (config_.backfill.kind == backfilling::mode::off) break;
        continue;  // quick rejection: not even one VM fits anywhere now
      }
      std::optional<segment_type> seg = plan(l, may_reserve);
      if (!seg) {
        if (config_.backfill.kind == backfilling::mode::off) break;
        continue;
      }
      // A lease that waits only for its own image transfer starts "now" as far as
      // backfilling goes (Haizea §3.2: the earliest start of each node counts the time the
      // image needs to get there); only a later start holds a future reservation.
      const time_type lead =
          seg->transfer ? static_cast<time_type>(seg->transfer->end - now_) : preparation_lead(l);
      const bool future = seg->booked.begin > now_ + lead;
      book(l, std::move(*seg));
      if (future) {
        ++reservations;
        log_.insert(reserved_, id);
      }
    }
  }

  // With replanning::slide_back (Haizea's code), a lease that ended early has freed `freed`
  // from now on: the best-effort leases booked to begin later on any of those nodes move as
  // early as their own nodes allow, in the order of their starts. Otherwise nothing: the
  // whole queue is planned again anyway.
  void slide_back(const std::vector<std::size_t>& freed) {
    if (config_.replan != replanning::slide_back) return;
    std::vector<std::pair<time_type, std::uint64_t>> later;
    for (const std::uint64_t id : reserved_) {
      const segment_type& seg = *leases_.at(id).current;
      const bool shares = std::ranges::any_of(
          seg.nodes, [&](std::size_t node) { return std::ranges::binary_search(freed, node); });
      if (shares && seg.booked.begin > now_) later.emplace_back(seg.booked.begin, id);
    }
    std::ranges::sort(later);
    for (const auto& entry : later) slide(leases_.at(entry.second));
  }

  // Moves a booked lease to its earliest start on its own nodes (never later: its own slot is
  // free once it is unbooked), the whole booking shifted alike.
  void slide(record_type& l) {
    const segment_type old = *l.current;
    unbook(l, now_);
    const auto length = static_cast<time_type>(old.booked.end - old.booked.begin);
    const typename table_type::request_type request{
        old.nodes.size(),
        old.per_node,
        length,
        {now_, static_cast<time_type>(old.booked.begin + length)}};
    const auto p = table_.earliest_fit(request, cluster::no_preference{}, [&](std::size_t node) {
      if (!std::ranges::binary_search(old.nodes, node)) return forever<time_type>;
      return old.resumes ? now_ : ready_at(l.terms, node);
    });
    if (!p || p->nodes != old.nodes)
      throw invariant_violation(leasehold::detail::describe(
          "lease_scheduler: lease ", l.terms.id, " lost its own slot while sliding back"));
    const auto shift = static_cast<time_type>(old.booked.begin - p->start());
    segment_type seg = old;
    seg.booked = {static_cast<time_type>(old.booked.begin - shift),
                  static_cast<time_type>(old.booked.end - shift)};
    seg.run = {static_cast<time_type>(old.run.begin - shift),
               static_cast<time_type>(old.run.end - shift)};
    seg.finish = static_cast<time_type>(old.finish - shift);
    const std::uint64_t id = l.terms.id;
    book(l, std::move(seg));
    if (l.state == lease_state::scheduled) log_.insert(reserved_, id);
  }

  // The queue in the order it is served now: FIFO, or by the queue order's keys (asked afresh,
  // so that keys may depend on the time) with FIFO among equal keys.
  [[nodiscard]] std::vector<std::uint64_t> served_order() const {
    std::vector<std::uint64_t> ids;
    ids.reserve(queue_.size());
    if constexpr (std::same_as<QueueOrder, fifo_order>) {
      for (const auto& entry : queue_) ids.push_back(entry.second);
    } else {
      using key_type = queue_key_t<QueueOrder, time_type, capacity_type>;
      std::vector<std::pair<key_type, std::uint64_t>> keyed;
      keyed.reserve(queue_.size());
      for (const auto& entry : queue_) {
        auto key = order_(leases_.at(entry.second), now_);
        detail::check_sort_key("queue order", key, entry.second);
        keyed.emplace_back(std::move(key), entry.second);
      }
      // queue_ is in FIFO order already: a stable sort keeps it among equal keys.
      std::ranges::stable_sort(keyed,
                               [](const auto& a, const auto& b) { return a.first < b.first; });
      for (const auto& entry : keyed) ids.push_back(entry.second);
    }
    return ids;
  }

  // ---- node choice ---------------------------------------------------------------------------

  static constexpr bool chooses_nodes = !std::same_as<NodeChoice, lowest_node_id>;

  using node_key_type =
      std::decay_t<std::invoke_result_t<const NodeChoice&, const node_candidate<table_type>&>>;

  // The node choice's key for putting `l` on `node` over `span`.
  [[nodiscard]] node_key_type node_key(std::size_t node, const record_type& l,
                                       interval<time_type> span) const {
    node_key_type key = choice_(node_candidate<table_type>{table_, node, l, span});
    detail::check_sort_key("node choice", key, l.terms.id);
    return key;
  }

  // Keeps the `n` preferred of `nodes` (given and returned in increasing id order).
  void keep_preferred(std::vector<std::size_t>& nodes, std::size_t n, const record_type& l,
                      interval<time_type> span) const {
    if constexpr (chooses_nodes)
      cluster::keep_preferred(nodes, n, [&](std::size_t node) { return node_key(node, l, span); });
    else
      nodes.resize(n);
  }

  // Where and when a queued lease would run: now only, or at its earliest if it may hold a
  // future reservation.
  std::optional<segment_type> plan(const record_type& l, bool may_reserve) const {
    std::optional<segment_type> best;
    if (!l.suspended_on.empty()) {
      // Resume on its own nodes, or, if allowed, migrate and resume elsewhere when that is
      // strictly earlier.
      // A transfer_first migration still under way: the state is not there before its end,
      // and it does not move again meanwhile.
      std::optional<time_type> arriving;
      if (l.migration_transfer && l.migration_transfer->end > now_)
        arriving = l.migration_transfer->end;
      best = plan_on(l, may_reserve, resume_time(l.terms), &l.suspended_on, false, true, arriving);
      if (config_.migrate == migration::allowed && !arriving &&
          (!best || best->booked.begin > now_)) {
        if (config_.migration_booking == migration_step::with_resume) {
          auto moved =
              plan_on(l, may_reserve,
                      static_cast<time_type>(migration_time(l.terms) + resume_time(l.terms)),
                      nullptr, true, true);
          if (moved && (!best || moved->booked.begin < best->booked.begin)) best = std::move(moved);
        } else {
          auto moved = plan_transfer_first(l, may_reserve);
          if (moved && (!best || moved->run.begin < best->run.begin)) best = std::move(moved);
        }
      }
    } else {
      best = plan_on(l, may_reserve, 0, nullptr, false, false);
    }
    return best;
  }

  // migration_step::transfer_first (Haizea): the image instance and memory state start moving
  // now, holding only the destination's disk; the resume is planned on any nodes from the
  // transfer's end. Nullopt when no nodes can take the transfer's disk now.
  std::optional<segment_type> plan_transfer_first(const record_type& l, bool may_reserve) const {
    const terms_type& t = l.terms;
    const interval<time_type> transfer{now_, static_cast<time_type>(now_ + migration_time(t))};
    auto seg = plan_on(l, may_reserve, resume_time(t), nullptr, false, true, transfer.end);
    if (!seg) return std::nullopt;
    if (const auto disk = transfer_vector(t)) {
      for (std::size_t node : seg->nodes)
        if (!fits(*disk, table_.node(node).min_free(transfer))) return std::nullopt;
    }
    seg->transfer = transfer;
    return seg;
  }
  // What a transfer_first migration holds on each destination node: disk for the image
  // instance and the memory state (s_I + m MB), or nothing without a disk component.
  [[nodiscard]] std::optional<capacity_type> transfer_vector(const terms_type& t) const {
    if (!config_.layout.disk) return std::nullopt;
    capacity_type v{};
    v[*config_.layout.disk] = static_cast<typename capacity_type::value_type>(
        t.per_node[config_.layout.memory] + (t.image ? t.image->size_mb : 0));
    if (!is_positive(v)) return std::nullopt;
    return v;
  }

  std::optional<segment_type> plan_on(const record_type& l, bool may_reserve, time_type lead,
                                      const std::vector<std::size_t>* only, bool migrates,
                                      bool resumes,
                                      std::optional<time_type> not_before = std::nullopt) const {
    const terms_type& t = l.terms;
    const auto n = static_cast<std::size_t>(t.nodes);
    const capacity_type v = booked_vector(t);
    const auto work = time_for(l.remaining_max);
    const auto full = static_cast<time_type>(lead + work + overhead(t));
    time_type needed = full;
    const bool suspendable = may_suspend(t);
    if (suspendable) {
      const time_type minimum_run = config_.minimum_run
                                        ? *config_.minimum_run
                                        : static_cast<time_type>(suspend_time(t) + resume_time(t));
      needed = std::min(full, static_cast<time_type>(lead + std::max<time_type>(minimum_run, 1) +
                                                     suspend_time(t)));
    }
    // A start that waits only for a migration's transfer counts as "now" for backfilling.
    const time_type earliest = not_before.value_or(now_);
    const interval<time_type> window{
        now_, may_reserve ? forever<time_type>
                          : static_cast<time_type>(earliest + (resumes ? 0 : preparation_lead(l)) +
                                                   needed)};
    const typename table_type::request_type request{n, v, needed, window};
    auto allowed = [only](std::size_t node) {
      return only == nullptr || std::ranges::find(*only, node) != only->end();
    };
    std::optional<typename table_type::placement_type> p;
    auto ready = [&](std::size_t node) {
      if (!allowed(node)) return forever<time_type>;
      return std::max(earliest, resumes ? now_ : ready_at(t, node));
    };
    if constexpr (chooses_nodes) {
      auto prefer = [&](std::size_t node, time_type start) {
        return node_key(node, l, {start, static_cast<time_type>(start + full)});
      };
      if (only == nullptr && !not_before && (is_always_ready() || resumes))
        p = table_.earliest_fit(request, prefer);
      else
        p = table_.earliest_fit(request, prefer, ready);
    } else {
      if (only == nullptr && !not_before && (is_always_ready() || resumes))
        p = table_.earliest_fit(request);
      else
        p = table_.earliest_fit(request, cluster::no_preference{}, ready);
    }
    if (!p) return std::nullopt;
    const time_type s = p->start();
    segment_type seg;
    seg.per_node = v;
    seg.migrates = migrates;
    seg.resumes = resumes;
    seg.nodes = p->nodes;
    seg.booked = {s, static_cast<time_type>(s + full)};
    seg.run = {static_cast<time_type>(s + lead), static_cast<time_type>(s + lead + work)};
    if (needed < full) {
      // §3.2: the n nodes free longest from s, preferring those where the lease needs no
      // suspension; the lease runs until the first of them is needed by someone else, less
      // the time to suspend.
      struct candidate {
        time_type until;
        node_key_type key;  // the node choice's, among nodes free equally long
        std::size_t node;
      };
      std::vector<candidate> until;
      for (std::size_t node : table_.nodes_free({s, static_cast<time_type>(s + needed)}, v))
        if (allowed(node) && (is_always_ready() || resumes || ready_at(t, node) <= s))
          until.push_back(
              {table_.free_until(node, s, v, seg.booked.end), node_key(node, l, seg.booked), node});
      std::ranges::sort(until, [](const candidate& a, const candidate& b) {
        if (a.until != b.until) return a.until > b.until;
        return std::tie(a.key, a.node) < std::tie(b.key, b.node);
      });
      seg.nodes.clear();
      time_type end = seg.booked.end;
      for (std::size_t i = 0; i < n; ++i) {
        seg.nodes.push_back(until[i].node);
        end = std::min(end, until[i].until);
      }
      std::ranges::sort(seg.nodes);
      if (end < seg.booked.end) {
        seg.booked.end = end;
        seg.run.end = static_cast<time_type>(end - suspend_time(t));
        seg.suspends = true;
      }
    }
    settle_finish(l, seg);
    return seg;
  }

  [[nodiscard]] static constexpr bool is_always_ready() {
    if constexpr (requires { Preparation::always_ready; })
      return Preparation::always_ready;
    else
      return false;
  }
  // How long a fresh start of the lease must wait for its preparation at most, if it began
  // now (a transfer in the link's earliest slot); 0 without a preparation that says.
  [[nodiscard]] time_type preparation_lead(const record_type& l) const {
    if constexpr (requires { prep_.lead_time(l.terms, now_); }) {
      if (!l.suspended_on.empty()) return 0;
      return prep_.lead_time(l.terms, now_);
    } else {
      return 0;
    }
  }
  [[nodiscard]] time_type ready_at(const terms_type& t, std::size_t node) const {
    return std::max(now_, prep_.ready_at(t, node, now_));
  }

  table_type table_;
  config_type config_;
  Preparation prep_;
  QueueOrder order_;
  NodeChoice choice_;
  time_type now_;
  lease_observer<time_type>* observer_ = nullptr;
  bool in_call_ = false;                 // inside a public call (see outermost())
  bool in_transaction_ = false;          // inside a public call with the guarantee (transaction())
  std::vector<std::uint64_t> retiring_;  // finished in the call in progress
  undo_log_type log_;                    // records the changes of the call in progress
  std::vector<record_type> finished_;    // finished leases not yet taken
  std::map<std::uint64_t, record_type> leases_;
  std::set<std::pair<time_type, std::uint64_t>> queue_;  // (submit, id): FIFO by submit time
  std::set<std::uint64_t> reserved_;  // best-effort leases booked for a future begin
  std::set<event> events_;
  std::vector<std::vector<std::uint64_t>> on_node_;  // leases with a segment on each node
};

}  // namespace leasehold::policy::lease
