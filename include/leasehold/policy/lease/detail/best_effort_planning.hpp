#pragma once

// Best-effort leases (Sotomayor, Keahey & Foster §3.2): the queue served in its order (FIFO
// by submit time, or a user's queue_order) with the configured backfilling, each lease
// planned at its earliest start:
//
//  - a lease that can be suspended starts as soon as n nodes are free for a minimum run, on
//    the nodes free longest (those where it needs no suspension first), and is suspended
//    before whatever blocks it; otherwise it needs its whole duration;
//  - a suspended lease resumes on its own nodes, or migrates when its run then begins strictly
//    earlier (booked with the resume, or, as Haizea does, transferred first: config.hpp);
//  - after anything changes the schedule is re-evaluated: waiting reservations are
//    unscheduled and the queue planned again (replanning::whole_queue), or, as in Haizea's
//    code, the leases booked after one that ended early slide back on its nodes
//    (replanning::slide_back).

#include <algorithm>
#include <concepts>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <tuple>
#include <utility>
#include <vector>

#include "leasehold/core/detail/describe.hpp"
#include "leasehold/core/error.hpp"
#include "leasehold/policy/lease/detail/book_component.hpp"
#include "leasehold/policy/lease/detail/reservation_admission.hpp"
#include "leasehold/policy/lease/queue_order.hpp"

namespace leasehold::policy::lease::detail {

// A component over a lease book (lease_book.hpp): it reads the queue, the reservations, the
// table and the preparation step, and books and unbooks through the book's changes.
template <class Book>
class book_component<Book>::best_effort_planning : public book_component<Book> {
 public:
  using book_component::book_component;

  // Unschedules every best-effort lease that holds a reservation but has not begun, then
  // plans the queue again in its order: the schedule after anything changed.
  void reevaluate() {
    if (book_.config().replan == replanning::whole_queue) {
      for (const std::uint64_t id :
           std::vector<std::uint64_t>(book_.reserved().begin(), book_.reserved().end())) {
        if (book_.lease(id).state != lease_state::scheduled)
          continue;  // running, holding its reservation
        record_type& l = book_.edit(id);
        book_.unbook(l, book_.now());
        book_.enqueue(l);
      }
    }
    const std::size_t limit = book_.config().backfill.max_reservations();
    std::size_t reservations = book_.reserved().size();  // kept bookings count (slide_back)
    for (const std::uint64_t id : served_order()) {
      const record_type& l = book_.lease(id);
      if (l.terms.hold_in_queue) continue;  // it only waits for its withdrawal (lease_terms)
      const bool may_reserve = reservations < limit;
      if (!may_reserve &&
          !fits(times().booked_vector(l.terms), book_.table().aggregate().free_at(book_.now()))) {
        if (book_.config().backfill.kind == backfilling::mode::off) break;
        continue;  // quick rejection: not even one VM fits anywhere now
      }
      std::optional<segment_type> seg = plan(l, may_reserve);
      if (!seg) {
        if (book_.config().backfill.kind == backfilling::mode::off) break;
        continue;
      }
      // A lease that waits only for its own image transfer starts "now" as far as
      // backfilling goes (Haizea §3.2: the earliest start of each node counts the time the
      // image needs to get there); only a later start holds a future reservation.
      const time_type lead = seg->transfer
                                 ? static_cast<time_type>(seg->transfer->end - book_.now())
                                 : preparation_lead(l);
      const bool future = seg->booked.begin > book_.now() + lead;
      book_.book(book_.edit(id), std::move(*seg));
      if (future) {
        ++reservations;
        book_.hold_reservation(id);
      }
    }
  }

  // With replanning::slide_back (Haizea's code), a lease that ended early has freed `freed`
  // from now on: the best-effort leases booked to begin later on any of those nodes move as
  // early as their own nodes allow, in the order of their starts. Otherwise nothing: the
  // whole queue is planned again anyway.
  void slide_back(const std::vector<std::size_t>& freed) {
    if (book_.config().replan != replanning::slide_back) return;
    std::vector<std::pair<time_type, std::uint64_t>> later;
    for (const std::uint64_t id : book_.reserved()) {
      const segment_type& seg = *book_.lease(id).current;
      const bool shares = std::ranges::any_of(
          seg.nodes, [&](std::size_t node) { return std::ranges::binary_search(freed, node); });
      if (shares && seg.booked.begin > book_.now()) later.emplace_back(seg.booked.begin, id);
    }
    std::ranges::sort(later);
    for (const auto& entry : later) slide(book_.edit(entry.second));
  }

  // Moves a booked lease (the book's own record, Book::edit) to its earliest start on its own nodes
  // (never later: its own slot is free once it is unbooked), the whole booking shifted alike.
  void slide(record_type& l) {
    const segment_type old = *l.current;
    book_.unbook(l, book_.now());
    const auto length = static_cast<time_type>(old.booked.end - old.booked.begin);
    const typename table_type::request_type request{
        old.nodes.size(),
        old.per_node,
        length,
        {book_.now(), static_cast<time_type>(old.booked.begin + length)}};
    const auto p =
        book_.table().earliest_fit(request, cluster::no_preference{}, [&](std::size_t node) {
          if (!std::ranges::binary_search(old.nodes, node)) return forever<time_type>;
          return old.resumes ? book_.now() : ready_at(l.terms, node);
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
    book_.book(l, std::move(seg));
    if (l.state == lease_state::scheduled || book_.config().reservation_held_until_end)
      book_.hold_reservation(id);
  }

  // The queue in the order it is served now: FIFO, or by the queue order's keys (asked afresh,
  // so that keys may depend on the time) with FIFO among equal keys.
  [[nodiscard]] std::vector<std::uint64_t> served_order() const {
    std::vector<std::uint64_t> ids;
    ids.reserve(book_.queue().size());
    if constexpr (std::same_as<queue_order_type, fifo_order>) {
      for (const auto& entry : book_.queue()) ids.push_back(entry.second);
    } else {
      using key_type = queue_key_t<queue_order_type, time_type, capacity_type>;
      std::vector<std::pair<key_type, std::uint64_t>> keyed;
      keyed.reserve(book_.queue().size());
      for (const auto& entry : book_.queue()) {
        auto key = book_.order()(book_.lease(entry.second), book_.now());
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

  // Where and when a queued lease would run: now only, or at its earliest if it may hold a
  // future reservation.
  std::optional<segment_type> plan(const record_type& l, bool may_reserve) const {
    std::optional<segment_type> best;
    if (!l.suspended_on.empty()) {
      // Resume on its own nodes, or, if allowed, migrate and resume elsewhere when its run
      // (after the transfer and the resume) begins strictly earlier there: a migration that
      // merely books sooner, its transfer included, would make the lease finish later.
      // A transfer_first migration still under way: the state is not there before its end,
      // and it does not move again meanwhile.
      std::optional<time_type> arriving;
      if (l.migration_transfer && l.migration_transfer->end > book_.now())
        arriving = l.migration_transfer->end;
      // With suspend_thresholds_per_state and migration allowed (Haizea's paper-era code), a
      // resume waits for the migration time wherever it happens.
      std::optional<time_type> in_place_from = arriving;
      if (!arriving && book_.config().suspend_thresholds_per_state &&
          book_.config().migrate == migration::allowed)
        in_place_from = static_cast<time_type>(book_.now() + times().migration_time(l.terms));
      best = plan_on(l, may_reserve, times().resume_time(l.terms), &l.suspended_on, false, true,
                     in_place_from);
      if (book_.config().migrate == migration::allowed && !arriving &&
          (!best || best->booked.begin > book_.now())) {
        if (book_.config().migration_booking == migration_step::with_resume) {
          auto moved = plan_on(l, may_reserve,
                               static_cast<time_type>(times().migration_time(l.terms) +
                                                      times().resume_time(l.terms)),
                               nullptr, true, true);
          if (moved && (!best || moved->run.begin < best->run.begin)) best = std::move(moved);
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
    const interval<time_type> transfer{
        book_.now(), static_cast<time_type>(book_.now() + times().migration_time(t))};
    auto seg = plan_on(l, may_reserve, times().resume_time(t), nullptr, false, true, transfer.end);
    if (!seg) return std::nullopt;
    if (const auto disk = times().transfer_vector(t)) {
      for (std::size_t node : seg->nodes)
        if (!fits(*disk, book_.table().node(node).min_free(transfer))) return std::nullopt;
    }
    seg->transfer = transfer;
    return seg;
  }

  std::optional<segment_type> plan_on(const record_type& l, bool may_reserve, time_type lead,
                                      const std::vector<std::size_t>* only, bool migrates,
                                      bool resumes,
                                      std::optional<time_type> not_before = std::nullopt) const {
    const terms_type& t = l.terms;
    const auto n = static_cast<std::size_t>(t.nodes);
    const capacity_type v = times().booked_vector(t);
    const auto work = times().time_for(l.remaining_max);
    const auto full = static_cast<time_type>(lead + work + times().overhead(t));
    time_type needed = full;
    const bool suspendable = times().may_suspend(t);
    const time_type tail = times().suspension_tail(t);
    if (suspendable && book_.config().suspend_thresholds_per_state) {
      // The window, resume and suspension included, must be longer than the threshold.
      const time_type threshold =
          times().suspend_threshold(t, resumes, resumes ? time_type{0} : preparation_lead(l));
      // At least a second of run before what the suspension keeps after it.
      needed = std::min(full, static_cast<time_type>(
                                  std::max(threshold, static_cast<time_type>(lead + tail)) + 1));
    } else if (suspendable) {
      const time_type minimum_run =
          book_.config().minimum_run
              ? *book_.config().minimum_run
              : static_cast<time_type>(times().suspend_time(t) + times().resume_time(t));
      needed =
          std::min(full, static_cast<time_type>(lead + std::max<time_type>(minimum_run, 1) + tail));
    }
    // A start that waits only for a migration's transfer counts as "now" for backfilling.
    const time_type earliest = not_before.value_or(book_.now());
    const interval<time_type> window{
        book_.now(), may_reserve ? forever<time_type>
                                 : static_cast<time_type>(
                                       earliest + (resumes ? 0 : preparation_lead(l)) + needed)};
    const typename table_type::request_type request{n, v, needed, window};
    auto allowed = [only](std::size_t node) {
      return only == nullptr || std::ranges::find(*only, node) != only->end();
    };
    std::optional<typename table_type::placement_type> p;
    auto ready = [&](std::size_t node) {
      if (!allowed(node)) return forever<time_type>;
      return std::max(earliest, resumes ? book_.now() : ready_at(t, node));
    };
    if constexpr (Book::chooses_nodes) {
      auto prefer = [&](std::size_t node, time_type start) {
        return book_.node_key(node, l, {start, static_cast<time_type>(start + full)});
      };
      if (only == nullptr && !not_before && (is_always_ready() || resumes))
        p = book_.table().earliest_fit(request, prefer);
      else
        p = book_.table().earliest_fit(request, prefer, ready);
    } else {
      if (only == nullptr && !not_before && (is_always_ready() || resumes))
        p = book_.table().earliest_fit(request);
      else
        p = book_.table().earliest_fit(request, cluster::no_preference{}, ready);
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
      for (std::size_t node : book_.table().nodes_free({s, static_cast<time_type>(s + needed)}, v))
        if (allowed(node) && (is_always_ready() || resumes || ready_at(t, node) <= s))
          until.push_back({book_.table().free_until(node, s, v, seg.booked.end),
                           book_.node_key(node, l, seg.booked), node});
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
        seg.run.end = static_cast<time_type>(end - tail);
        seg.suspends = true;
      }
    }
    times().settle_finish(l, seg);
    return seg;
  }

  [[nodiscard]] static constexpr bool is_always_ready() {
    return Book::template prep_offers<preparation_feature::always_ready>;
  }
  // How long a fresh start of the lease must wait for its preparation at most, if it began
  // now (a transfer in the link's earliest slot); 0 without a preparation that says.
  [[nodiscard]] time_type preparation_lead(const record_type& l) const {
    if constexpr (Book::template prep_offers<preparation_feature::lead_time>) {
      if (!l.suspended_on.empty()) return 0;
      return book_.preparation().lead_time(l.terms, book_.now());
    } else {
      return 0;
    }
  }
  [[nodiscard]] time_type ready_at(const terms_type& t, std::size_t node) const {
    return std::max(book_.now(), book_.preparation().ready_at(t, node, book_.now()));
  }
};

// The name callers use (book_component.hpp).
template <class Book>
using best_effort_planning = typename book_component<Book>::best_effort_planning;

}  // namespace leasehold::policy::lease::detail
