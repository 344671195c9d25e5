#pragma once

// The lease scheduler's shared state and the bookkeeping every decision goes through
// (lease_scheduler.hpp is the public face; the decisions are in reservation_admission.hpp,
// best_effort_planning.hpp and event_clock.hpp, the transactions in transactions.hpp).
//
// A lease's segment is booked in the slot table, listed on its nodes, queued for its begin
// and finish events and handed to the preparation step; unbooking takes all of that back.
// Every such change goes through the undo log (undo_log.hpp), so that a failed call can be
// rolled back, and its observer events through whichever observer the call has installed.
//
// The layers derived from this class name its members as this->member (static ones as
// base::member): a dependent base's names are not found unqualified, and naming them at the
// point of use keeps each layer from repeating a list of using-declarations of its own.

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <span>
#include <tuple>
#include <type_traits>
#include <utility>
#include <vector>

#include "leasehold/availability/concept.hpp"
#include "leasehold/cluster/placement.hpp"
#include "leasehold/cluster/slot_table.hpp"
#include "leasehold/core/capacity.hpp"
#include "leasehold/core/time.hpp"
#include "leasehold/policy/lease/config.hpp"
#include "leasehold/policy/lease/detail/undo_log.hpp"
#include "leasehold/policy/lease/lease_record.hpp"
#include "leasehold/policy/lease/lease_terms.hpp"
#include "leasehold/policy/lease/node_choice.hpp"
#include "leasehold/policy/lease/observer.hpp"
#include "leasehold/policy/lease/preparation.hpp"
#include "leasehold/policy/lease/preparation_features.hpp"
#include "leasehold/policy/lease/queue_order.hpp"
#include "leasehold/policy/lease/scheduler_state.hpp"
#include "leasehold/policy/lease/vm_time_model.hpp"

namespace leasehold::policy::lease::detail {

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
  // What a segment booked to end in a suspension keeps after its run: the suspension, or the
  // shutdown if that is longer, so that a lease whose work ends in the run still shuts down
  // inside its booking (and a run cut short never holds all of the lease's remaining work).
  // With shutdown_after_early_end off (Haizea's choice) a lease ending early frees its nodes
  // at once: the suspension alone, as Haizea books it.
  [[nodiscard]] time_type suspension_tail(const terms_type& t) const {
    const time_type shutdown = config_.shutdown_after_early_end ? overhead(t) : time_type{0};
    return std::max(suspend_time(t), shutdown);
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

 protected:
  lease_book(table_type table, const config_type& config, Preparation prep, QueueOrder order,
             NodeChoice choice)
      : table_(std::move(table)),
        config_(config),
        prep_(std::move(prep)),
        order_(std::move(order)),
        choice_(std::move(choice)),
        now_(table_.origin()),
        on_node_(table_.node_count()) {}

  using undo_log_type = detail::undo_log<table_type, record_type>;
  // Whether bookings are undone in place, the table's clock moving at commit
  // (transactions.hpp); otherwise a call saves the table whole.
  static constexpr bool undoes_bookings = undo_log_type::logs_table && !requires(const A& a) {
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

  // The resource vector a lease books per node: its own, plus room for its memory state
  // when it may be suspended (§3.2).
  [[nodiscard]] capacity_type booked_vector(const terms_type& t) const {
    capacity_type v = t.per_node;
    if (may_suspend(t) && config_.reserve_disk_for_memory_state && models_disk())
      v[*config_.layout.disk] += t.per_node[config_.layout.memory];
    return v;
  }
  // Whether the nodes have a disk to book: a disk component in the layout, with capacity. A
  // cluster whose disk component is 0 (Haizea's sites of CPU and memory only) models none, so
  // nothing is booked on it for memory state or migrations.
  [[nodiscard]] bool models_disk() const {
    return config_.layout.disk && table_.per_node_total()[*config_.layout.disk] > 0;
  }
  // suspend_thresholds_per_state (Haizea's paper-era code): how long a window that ends in a
  // suspension must exceed for a lease that starts afresh after `preparation` seconds of
  // image preparation, or that resumes.
  [[nodiscard]] time_type suspend_threshold(const terms_type& t, bool resumes,
                                            time_type preparation) const {
    const time_type suspend = suspend_time(t);
    if (!resumes) return static_cast<time_type>(2 * (overhead(t) + preparation + suspend));
    if (config_.migrate == migration::allowed)
      return static_cast<time_type>(2 * (migration_time(t) + 2 * suspend));
    return static_cast<time_type>(2 * 2 * suspend);
  }
  [[nodiscard]] bool may_suspend(const terms_type& t) const {
    return t.kind == lease_kind::best_effort && t.preemptible && config_.suspend == suspension::all;
  }

  // A lease is over; with retire_finished it leaves the live state when the call ends (not at
  // once: the call may still hold a reference to its record).
  void finished(const record_type& l) {
    if (config_.retire_finished) retiring_.push_back(l.terms.id);
  }

  // A booked segment begins: the lease runs (or resumes, after migrating) from `at`.
  void on_segment_begin(record_type& l, time_type at) {
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
      const auto resume_begin =
          static_cast<time_type>(seg.booked.begin + (seg.migrates ? migration_time(l.terms) : 0));
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
      if constexpr (prep_offers<preparation_feature::interval_prepare>)
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

  // ---- node choice ---------------------------------------------------------------------------

  static constexpr bool chooses_nodes = !std::same_as<NodeChoice, lowest_node_id>;

  using node_key_type =
      std::decay_t<std::invoke_result_t<const NodeChoice&, const node_candidate<table_type>&>>;

  // What a transfer_first migration holds on each destination node: disk for the image
  // instance and the memory state (s_I + m MB), or nothing when the nodes have no disk
  // (models_disk()).
  [[nodiscard]] std::optional<capacity_type> transfer_vector(const terms_type& t) const {
    if (!models_disk()) return std::nullopt;
    capacity_type v{};
    v[*config_.layout.disk] = static_cast<typename capacity_type::value_type>(
        t.per_node[config_.layout.memory] + (t.image ? t.image->size_mb : 0));
    if (!is_positive(v)) return std::nullopt;
    return v;
  }

  // The node choice's key for putting `l` on `node` over `span`.
  [[nodiscard]] node_key_type node_key(std::size_t node, const record_type& l,
                                       interval<time_type> span) const {
    node_key_type key = choice_(node_candidate<table_type>{table_, node, l, span});
    detail::check_sort_key("node choice", key, l.terms.id);
    return key;
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
  // Best-effort leases booked for a future begin (with reservation_held_until_end, also those
  // running the segment they were booked for).
  std::set<std::uint64_t> reserved_;
  std::set<event> events_;
  std::vector<std::vector<std::uint64_t>> on_node_;  // leases with a segment on each node
};

}  // namespace leasehold::policy::lease::detail
