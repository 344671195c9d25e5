#pragma once

// The lease scheduler's clock (Sotomayor, Keahey & Foster §3.3): the scheduler never owns
// one. The caller says what time it is; every segment begin and end due by then is processed
// in time order (ends before begins at the same instant), and the schedule is re-evaluated
// after each instant, as Haizea's event loop does.
//
//  - a segment that begins starts (or resumes) its lease (lease_book.hpp);
//  - a segment that ends either completes its lease, freeing what it booked beyond its real
//    end, or suspends it (§3.1): the work done is credited and the remainder requeued by its
//    original submit time (§3.2);
//  - an image transfer of the preparation step that starts or ends is announced to the
//    observer at its instant (the scheduler's next event time includes them).

#include <algorithm>
#include <optional>
#include <tuple>

#include "leasehold/policy/lease/detail/best_effort_planning.hpp"
#include "leasehold/policy/lease/preparation.hpp"

namespace leasehold::policy::lease::detail {

template <class Base>
class event_clock : public Base {
 public:
  using typename Base::capacity_type;
  using typename Base::record_type;
  using typename Base::segment_type;
  using typename Base::time_type;

 protected:
  using Base::Base;
  using typename Base::preparation_type;

  // Processes every event due by `now` and moves the clock there. Image transfers that start
  // or end on the way are announced at their own instants.
  void run_events_until(time_type now) {
    while (true) {
      std::optional<time_type> next;
      if (!this->events_.empty()) next = std::get<0>(*this->events_.begin());
      if (const auto transfer = next_transfer_event(); transfer && (!next || *transfer < *next))
        next = transfer;
      if (!next || *next > now) break;
      const time_type at = *next;
      move_clock(at);
      report_transfers(at);
      if (this->events_.empty() || std::get<0>(*this->events_.begin()) != at) continue;
      while (!this->events_.empty() && std::get<0>(*this->events_.begin()) == at) {
        const auto [time, order, id] = *this->events_.begin();
        this->log_.erase(this->events_, {time, order, id});
        record_type& l = this->leases_.at(id);
        if (order == Base::begin_order)
          this->on_segment_begin(l, time);
        else
          on_segment_finish(l, time);
      }
      this->reevaluate();
    }
    move_clock(now);
  }

  // Whether the preparation step announces its transfers (preparation.hpp: image staging).
  static constexpr bool reports_transfers =
      Base::template prep_offers<preparation_feature::transfer_events>;

  // When the preparation step's next transfer starts or ends, if it says.
  [[nodiscard]] std::optional<time_type> next_transfer_event() const {
    if constexpr (reports_transfers)
      return this->prep_.next_transfer_event();
    else
      return std::nullopt;
  }

  // Announces the transfers that have started or ended by `at`, and withdraws announcements
  // of transfers that a call at their first instant moved or dropped.
  void report_transfers(time_type at) {
    if constexpr (reports_transfers) {
      using change = typename preparation_type::transfer_change;
      for (const auto& e : this->prep_.take_transfer_events(at)) {
        if (this->observer_ == nullptr) continue;
        switch (e.change) {
          case change::started:
            this->observer_->on_transfer_started(e.notice);
            break;
          case change::withdrawn:
            this->observer_->on_transfer_withdrawn(e.notice);
            break;
          case change::finished:
            this->observer_->on_transfer_finished(e.notice);
            break;
        }
      }
    } else {
      (void)at;
    }
  }

 private:
  void move_clock(time_type t) {
    if (t <= this->now_) return;
    this->now_ = t;
    // Inside a transaction the table catches up when the call succeeds (transactions.hpp).
    if (!(Base::undoes_bookings && this->in_transaction_)) this->table_.advance_to(t);
  }

  void on_segment_finish(record_type& l, time_type at) {
    this->log_.save(l);
    const segment_type seg = *l.current;
    if (seg.completes) {
      const auto real_end =
          static_cast<time_type>(seg.run.begin + this->wall_time(l, l.remaining_real));
      this->close_segment(l, at, {seg.run.begin, std::min(real_end, seg.run.end)}, l.remaining_real,
                          segment_outcome::completed);
      l.remaining_max = 0;
      l.remaining_real = 0;
      this->finish_lease(l, at);
      if (at < seg.booked.end) this->slide_back(seg.nodes);
      return;
    }
    // Suspended (§3.1): the work done is credited and the remainder requeued by its
    // original submit time (§3.2).
    const time_type work = this->work_of(seg.run.end - seg.run.begin);
    this->close_segment(l, at, seg.run, work, segment_outcome::suspended);
    l.remaining_max -= work;
    l.remaining_real -= work;
    ++l.suspensions;
    l.suspended_on = seg.nodes;
    this->enqueue(l);
    if (this->observer_ != nullptr) this->observer_->on_suspended(l.terms.id, at);
  }
};

}  // namespace leasehold::policy::lease::detail
