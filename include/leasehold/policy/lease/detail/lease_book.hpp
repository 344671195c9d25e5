#pragma once

// The lease scheduler's state object: the slot table, the lease records, the queue, the
// pending segment events, the backfilling reservations, the leases on each node and the
// clock, with the preparation step, the queue order and the node choice it was built with.
//
// The decisions are components that take a book by reference (lease_scheduler.hpp makes
// them per call; book_component.hpp is what they share): reservation_admission.hpp,
// best_effort_planning.hpp, event_clock.hpp, lease_checks.hpp; the VM time model under the
// configuration is lease_times.hpp (times()). They read the book through its const accessors and
// change it only through the changes below, each of which is recorded in the journal
// (lease_journal.hpp over availability/journal.hpp), so that a failed call can be rolled back
// (transactions.hpp, the one class that opens, commits and rolls back a call), and tells its
// observer events to whichever observer the call has installed.
//
// A lease's segment is booked in the slot table, listed on its nodes, queued for its begin
// and finish events and handed to the preparation step (book()); unbooking takes all of that
// back. A component that changes a lease record's own fields asks for it with edit(), which
// saves the record before its first change in the call.

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <span>
#include <string>
#include <tuple>
#include <type_traits>
#include <utility>
#include <vector>

#include "leasehold/availability/concept.hpp"
#include "leasehold/cluster/placement.hpp"
#include "leasehold/cluster/slot_table.hpp"
#include "leasehold/core/capacity.hpp"
#include "leasehold/core/detail/describe.hpp"
#include "leasehold/core/error.hpp"
#include "leasehold/core/time.hpp"
#include "leasehold/policy/lease/config.hpp"
#include "leasehold/policy/lease/detail/lease_journal.hpp"
#include "leasehold/policy/lease/detail/lease_times.hpp"
#include "leasehold/policy/lease/lease_record.hpp"
#include "leasehold/policy/lease/lease_terms.hpp"
#include "leasehold/policy/lease/node_choice.hpp"
#include "leasehold/policy/lease/observer.hpp"
#include "leasehold/policy/lease/preparation.hpp"
#include "leasehold/policy/lease/preparation_features.hpp"
#include "leasehold/policy/lease/queue_order.hpp"
#include "leasehold/policy/lease/scheduler_state.hpp"

namespace leasehold::policy::lease::detail {

template <class Book>
class transactions;

template <class A, class Preparation, class QueueOrder, class NodeChoice>
class lease_book {
 public:
  using time_type = typename A::time_type;
  using table_type = cluster::slot_table<A>;
  using capacity_type = typename A::capacity_type;
  using terms_type = lease_terms<time_type, capacity_type>;
  using record_type = lease_record<time_type, capacity_type>;
  using config_type = scheduler_config<time_type>;
  using segment_type = segment<time_type, capacity_type>;
  using preparation_type = Preparation;
  using queue_order_type = QueueOrder;
  using node_choice_type = NodeChoice;
  using times_type = lease_times<time_type, capacity_type>;
  using state_type = scheduler_state<A>;

  using journal_type = detail::lease_journal<table_type, record_type>;
  // Whether bookings are undone in place, the table's clock moving at commit
  // (transactions.hpp); otherwise a call saves the table whole.
  static constexpr bool undoes_bookings = journal_type::logs_table && !requires(const A& a) {
    a.horizon();
  };
  // Whether the preparation step offers an optional capability (preparation_features.hpp):
  // as it declares, checked against its members, or as detected when it declares nothing.
  template <preparation_feature F>
  static constexpr bool prep_offers =
      check_declared_features<Preparation, time_type, capacity_type>::value&&
          offers<Preparation, time_type, capacity_type>(F);
  // A preparation step with state is copied before each call unless it journals its own
  // changes (transactional_preparation).
  static constexpr bool journals_preparation = prep_offers<preparation_feature::transactions>;
  static constexpr bool saves_preparation = !std::is_empty_v<Preparation> && !journals_preparation;

  static constexpr int finish_order = segment_finish_event;  // ends before begins (same instant)
  static constexpr int begin_order = segment_begin_event;
  using event = std::tuple<time_type, int, std::uint64_t>;

  static constexpr bool chooses_nodes = !std::same_as<NodeChoice, lowest_node_id>;
  using node_key_type =
      std::decay_t<std::invoke_result_t<const NodeChoice&, const node_candidate<table_type>&>>;

  // An empty book over `table`, its clock at the table's origin. The configuration is taken as
  // it is (lease_scheduler checks it first).
  lease_book(table_type table, const config_type& config, Preparation prep, QueueOrder order,
             NodeChoice choice)
      : table_(std::move(table)),
        config_(config),
        prep_(std::move(prep)),
        order_(std::move(order)),
        choice_(std::move(choice)),
        now_(table_.origin()),
        on_node_(table_.node_count()) {}

  // ---- reading -------------------------------------------------------------------------------

  [[nodiscard]] const table_type& table() const noexcept { return table_; }
  [[nodiscard]] const config_type& config() const noexcept { return config_; }
  [[nodiscard]] const Preparation& preparation() const noexcept { return prep_; }
  [[nodiscard]] const QueueOrder& order() const noexcept { return order_; }
  [[nodiscard]] const NodeChoice& choice() const noexcept { return choice_; }
  [[nodiscard]] time_type now() const noexcept { return now_; }
  [[nodiscard]] lease_observer<time_type>* observer() const noexcept { return observer_; }
  [[nodiscard]] const std::map<std::uint64_t, record_type>& leases() const noexcept {
    return leases_;
  }
  // The live record of lease `id` (std::out_of_range if there is none: a broken index).
  [[nodiscard]] const record_type& lease(std::uint64_t id) const { return leases_.at(id); }
  // (submit, id): FIFO by submit time.
  [[nodiscard]] const std::set<std::pair<time_type, std::uint64_t>>& queue() const noexcept {
    return queue_;
  }
  // Best-effort leases booked for a future begin (with reservation_held_until_end, also those
  // running the segment they were booked for).
  [[nodiscard]] const std::set<std::uint64_t>& reserved() const noexcept { return reserved_; }
  [[nodiscard]] const std::set<event>& events() const noexcept { return events_; }
  // Leases with a segment on each node.
  [[nodiscard]] const std::vector<std::vector<std::uint64_t>>& on_node() const noexcept {
    return on_node_;
  }
  // Finished leases not yet taken (retire_finished).
  [[nodiscard]] const std::vector<record_type>& finished() const noexcept { return finished_; }
  // Whether a call with the strong guarantee is in progress (transactions.hpp).
  [[nodiscard]] bool in_transaction() const noexcept { return in_transaction_; }

  // The VM time model under this book's configuration (it reads the configuration in place).
  [[nodiscard]] times_type times() const noexcept { return {config_, table_.per_node_total()}; }

  // The node choice's key for putting `l` on `node` over `span`.
  [[nodiscard]] node_key_type node_key(std::size_t node, const record_type& l,
                                       interval<time_type> span) const {
    node_key_type key = choice_(node_candidate<table_type>{table_, node, l, span});
    detail::check_sort_key("node choice", key, l.terms.id);
    return key;
  }

  // ---- the changes, each journaled -----------------------------------------------------------

  // A new lease record; returns it.
  record_type& add_lease(std::uint64_t id, record_type record) {
    return log_.add(leases_, id, std::move(record));
  }
  // Lease `id`'s record, to change its own fields: saved before its first change in the call.
  record_type& edit(std::uint64_t id) {
    record_type& l = leases_.at(id);
    log_.save(l);
    return l;
  }

  void enqueue(record_type& l) {
    log_.save(l);
    log_.insert(queue_, {l.terms.submit, l.terms.id});
    l.state = lease_state::queued;
  }
  // Takes a lease out of the queue (its state is the caller's to set).
  void dequeue(const record_type& l) { log_.erase(queue_, {l.terms.submit, l.terms.id}); }

  // The best-effort lease `id` holds a backfilling reservation.
  void hold_reservation(std::uint64_t id) { log_.insert(reserved_, id); }

  // Takes the earliest pending event out of the events (there must be one).
  event take_next_event() {
    const event e = *events_.begin();
    log_.erase(events_, e);
    return e;
  }

  // Moves the clock forward to `t` (not back). Inside a transaction that undoes bookings in
  // place the table catches up when the call succeeds (transactions.hpp); the transaction
  // restores the clock if the call fails.
  void move_clock(time_type t) {
    if (t <= now_) return;
    now_ = t;
    if (!(undoes_bookings && in_transaction_)) table_.advance_to(t);
  }

  // A lease is over; with retire_finished it leaves the live state when the call ends (not at
  // once: the call may still hold a reference to its record).
  void finished(const record_type& l) {
    if (config_.retire_finished) retiring_.push_back(l.terms.id);
  }
  // The leases finished in this call leave the live state (retire_finished).
  void retire() {
    for (const std::uint64_t id : retiring_) log_.retire(leases_, finished_, id);
    retiring_.clear();
    // The observer has heard of every transfer's end by now (event_clock's report_transfers).
    if constexpr (prep_offers<preparation_feature::take_finished>)
      if (config_.retire_finished) (void)prep_.take_finished_transfers();
  }
  // A call begins: nothing of it is retiring yet.
  void clear_retiring() noexcept { retiring_.clear(); }

  // A booked segment begins: the lease runs (or resumes, after migrating) from `at`.
  void begin_segment(record_type& l, time_type at) {
    log_.save(l);
    l.state = lease_state::running;
    // A backfilling reservation is given back when its lease begins, or, as the paper-era
    // Haizea does, when the segment ends (unbook()).
    if (!config_.reservation_held_until_end) log_.erase(reserved_, l.terms.id);
    const segment_type& seg = *l.current;
    if (seg.migrates) ++l.migrations;
    if (!l.first_start) {
      l.first_start = at;
      if (observer_ != nullptr) observer_->on_ready(l.terms.id, at, seg.nodes);
    } else if (observer_ != nullptr) {
      observer_->on_resumed(l.terms.id, at, seg.nodes);
      // The phases before the run (lease_record.hpp): the migration, then the resume.
      const auto resume_begin = static_cast<time_type>(
          seg.booked.begin + (seg.migrates ? times().migration_time(l.terms) : 0));
      if (seg.migrates)
        observer_->on_migrated(l.terms.id, at, l.suspended_on, seg.nodes,
                               {seg.booked.begin, resume_begin});
      if (seg.resumes) observer_->on_resuming(l.terms.id, seg.nodes, {resume_begin, seg.run.begin});
    }
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

  void book(record_type& l, segment_type seg) {
    log_.save(l);
    if (seg.transfer) start_migration(l, seg);
    table_reserve({seg.booked, seg.per_node, seg.nodes});
    if (!seg.resumes) {
      // A resumed segment finds its image instance on its nodes (or brings it along when
      // migrating, §3.1): only a fresh start is prepared.
      const std::span<const std::size_t> nodes(seg.nodes);
      if constexpr (prep_offers<preparation_feature::interval_prepare>)
        prep_.prepare(l.terms, nodes, seg.booked, now_);
      else
        prep_.prepare(l.terms, nodes, seg.booked.begin, now_);
    }
    for (std::size_t node : seg.nodes) log_.push(on_node_[node], l.terms.id);
    log_.erase(queue_, {l.terms.submit, l.terms.id});
    log_.insert(events_, {seg.finish, finish_order, l.terms.id});
    if (seg.booked.begin > now_) log_.insert(events_, {seg.booked.begin, begin_order, l.terms.id});
    ++l.generation;
    l.current = std::move(seg);
    if (l.current->booked.begin > now_) {
      l.state = lease_state::scheduled;
    } else {
      begin_segment(l, now_);
    }
  }

  // Gives back what the current segment holds from `from` on and forgets it.
  void unbook(record_type& l, time_type from) {
    log_.save(l);
    const segment_type& seg = *l.current;
    const interval<time_type> rest{std::max(from, seg.booked.begin), seg.booked.end};
    if (!rest.empty()) table_release({rest, seg.per_node, seg.nodes});
    log_.erase(events_, {seg.finish, finish_order, l.terms.id});
    log_.erase(events_, {seg.booked.begin, begin_order, l.terms.id});
    for (std::size_t node : seg.nodes) log_.erase(on_node_[node], l.terms.id);
    prep_.cancel(l.terms.id, now_);
    log_.erase(reserved_, l.terms.id);
    l.current.reset();
    ++l.generation;
  }

  // The current segment, on the same nodes from the same begin, now ends its booking earlier
  // (`shorter`, a suspension before a reservation): what it held after shorter.booked.end is
  // freed and its finish event moves.
  void shorten(record_type& l, segment_type shorter) {
    log_.save(l);
    const segment_type& seg = *l.current;
    if (shorter.booked.end < seg.booked.end)
      table_release({{shorter.booked.end, seg.booked.end}, seg.per_node, seg.nodes});
    log_.erase(events_, {seg.finish, finish_order, l.terms.id});
    log_.insert(events_, {shorter.finish, finish_order, l.terms.id});
    ++l.generation;
    l.current = std::move(shorter);
  }

  // Sets the observer (nullptr: none); a transaction installs its own for the call.
  void set_observer(lease_observer<time_type>* observer) noexcept { observer_ = observer; }

  // Announces the transfers of a preparation step that reports them, up to `at`
  // (transfer_reporting_preparation): its own journal or the transaction's copy covers them.
  auto take_transfer_events(time_type at) requires(
      prep_offers<preparation_feature::transfer_events>) {
    return prep_.take_transfer_events(at);
  }

  // With retire_finished: the finished leases, each handed out once.
  [[nodiscard]] std::vector<record_type> take_finished() noexcept {
    std::vector<record_type> taken;
    taken.swap(finished_);
    return taken;
  }

  // ---- the state as values (scheduler_state.hpp) ---------------------------------------------

  [[nodiscard]] state_type export_state() const {
    state_type state{config_, now_, table_, {}, {reserved_.begin(), reserved_.end()}, finished_};
    state.leases.reserve(leases_.size());
    for (const auto& entry : leases_) state.leases.push_back(entry.second);
    return state;
  }

  // Fills an empty book with `state`'s records (each checked already: lease_checks.hpp) and
  // rebuilds the indexes from them. Throws invalid_request naming the first inconsistency
  // among the records (lease_scheduler::import_state then validates the whole).
  void import_records(state_type& state) {
    using leasehold::detail::describe;
    for (record_type& record : state.leases) {
      const std::uint64_t id = record.terms.id;
      const auto [it, fresh] = leases_.emplace(id, std::move(record));
      if (!fresh) throw invalid_request(describe("scheduler state: lease ", id, " appears twice"));
      const record_type& l = it->second;
      if (l.state == lease_state::queued) queue_.insert({l.terms.submit, id});
      for (const auto& e : pending_events(l)) {
        if (std::get<0>(e) < now_)
          throw invalid_request(describe("scheduler state: lease ", id, " has an event at ",
                                         std::get<0>(e), ", before the clock ", now_));
        events_.insert(e);
      }
      if (l.current)
        for (std::size_t node : l.current->nodes) {
          if (node >= on_node_.size())
            throw invalid_request(describe("scheduler state: lease ", id, " is booked on node ",
                                           node, " but the table has ", on_node_.size()));
          on_node_[node].push_back(id);
        }
    }
    for (std::uint64_t id : state.reserved) {
      const auto it = leases_.find(id);
      // With reservation_held_until_end a running lease still holds the reservation it began
      // with.
      const bool holds =
          it != leases_.end() && it->second.is_best_effort() &&
          (it->second.state == lease_state::scheduled ||
           (it->second.state == lease_state::running && config_.reservation_held_until_end));
      if (!holds)
        throw invalid_request(describe("scheduler state: lease ", id,
                                       config_.reservation_held_until_end
                                           ? " holds a reservation but is not a scheduled or "
                                             "running best-effort lease"
                                           : " holds a reservation but is not a scheduled "
                                             "best-effort lease"));
      reserved_.insert(id);
    }
    finished_ = std::move(state.finished);
  }

  // Checks the book against its slot table: every node's free capacity at every change point
  // equals its total minus the segments booked on it; queue and states agree. Throws
  // invariant_violation naming the first difference. O(nodes x bookings).
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
        if (const auto disk = times().transfer_vector(l.terms)) {
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

 private:
  friend class transactions<lease_book>;

  // migration_step::transfer_first: the transfer to the segment's nodes starts now, holding
  // their disk, and the memory state is theirs from here on (a later plan resumes it there,
  // or moves it again). It is not undone if the resume is planned again.
  void start_migration(record_type& l, segment_type& seg) {
    const interval<time_type> transfer = *seg.transfer;
    seg.transfer.reset();
    if (const auto disk = times().transfer_vector(l.terms))
      table_reserve({transfer, *disk, seg.nodes});
    const std::vector<std::size_t> from = l.suspended_on;
    l.suspended_on = seg.nodes;
    l.migration_transfer = transfer;
    ++l.migrations;
    if (observer_ != nullptr) observer_->on_migrated(l.terms.id, now_, from, seg.nodes, transfer);
  }

  // Bookings in the slot table, through the journal when it can take them back in place.
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

  table_type table_;
  config_type config_;
  Preparation prep_;
  QueueOrder order_;
  NodeChoice choice_;
  time_type now_;
  lease_observer<time_type>* observer_ = nullptr;
  bool in_transaction_ = false;          // inside a public call with the guarantee
  std::vector<std::uint64_t> retiring_;  // finished in the call in progress
  journal_type log_;                     // records the changes of the call in progress
  std::vector<record_type> finished_;    // finished leases not yet taken
  std::map<std::uint64_t, record_type> leases_;
  std::set<std::pair<time_type, std::uint64_t>> queue_;
  std::set<std::uint64_t> reserved_;
  std::set<event> events_;
  std::vector<std::vector<std::uint64_t>> on_node_;
};

}  // namespace leasehold::policy::lease::detail
