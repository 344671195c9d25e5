#pragma once

// The lease scheduler's clock (Sotomayor, Keahey & Foster §3.3): the scheduler never owns
// one. The caller says what time it is; every segment begin and end due by then is processed
// in time order (ends before begins at the same instant), and the schedule is re-evaluated
// after each instant, as Haizea's event loop does.
//
//  - a segment that begins starts (or resumes) its lease (lease_book.hpp's begin_segment);
//  - a segment that ends either completes its lease, freeing what it booked beyond its real
//    end, or suspends it (§3.1): the work done is credited and the remainder requeued by its
//    original submit time (§3.2);
//  - an image transfer of the preparation step that starts or ends is announced to the
//    observer at its instant (the scheduler's next event time includes them).
//
// A component over a lease book (lease_book.hpp); after each instant it asks best-effort
// planning (best_effort_planning.hpp) over the same book to re-evaluate the schedule.

#include <algorithm>
#include <optional>
#include <tuple>

#include "leasehold/policy/lease/detail/best_effort_planning.hpp"
#include "leasehold/policy/lease/detail/book_component.hpp"
#include "leasehold/policy/lease/preparation.hpp"

namespace leasehold::policy::lease::detail {

template <class Book>
class book_component<Book>::event_clock : public book_component<Book> {
 public:
  using book_component::book_component;

  // Processes every event due by `now` and moves the clock there. Image transfers that start
  // or end on the way are announced at their own instants.
  void run_events_until(time_type now) {
    while (true) {
      std::optional<time_type> next;
      if (!book_.events().empty()) next = std::get<0>(*book_.events().begin());
      if (const auto transfer = next_transfer_event(); transfer && (!next || *transfer < *next))
        next = transfer;
      if (!next || *next > now) break;
      const time_type at = *next;
      book_.move_clock(at);
      report_transfers(at);
      if (book_.events().empty() || std::get<0>(*book_.events().begin()) != at) continue;
      while (!book_.events().empty() && std::get<0>(*book_.events().begin()) == at) {
        const auto [time, order, id] = book_.take_next_event();
        record_type& l = book_.edit(id);
        if (order == Book::begin_order)
          book_.begin_segment(l, time);
        else
          on_segment_finish(l, time);
      }
      best_effort_planning(book_).reevaluate();
    }
    book_.move_clock(now);
  }

  // Whether the preparation step announces its transfers (preparation.hpp: image staging).
  static constexpr bool reports_transfers =
      Book::template prep_offers<preparation_feature::transfer_events>;

  // When the preparation step's next transfer starts or ends, if it says.
  [[nodiscard]] std::optional<time_type> next_transfer_event() const {
    if constexpr (reports_transfers)
      return book_.preparation().next_transfer_event();
    else
      return std::nullopt;
  }

  // Announces the transfers that have started or ended by `at`, and withdraws announcements
  // of transfers that a call at their first instant moved or dropped.
  void report_transfers(time_type at) {
    if constexpr (reports_transfers) {
      using change = typename preparation_type::transfer_change;
      for (const auto& e : book_.take_transfer_events(at)) {
        lease_observer<time_type>* const observer = book_.observer();
        if (observer == nullptr) continue;
        switch (e.change) {
          case change::started:
            observer->on_transfer_started(e.notice);
            break;
          case change::withdrawn:
            observer->on_transfer_withdrawn(e.notice);
            break;
          case change::finished:
            observer->on_transfer_finished(e.notice);
            break;
        }
      }
    } else {
      (void)at;
    }
  }

 private:
  // `l` is the book's own record (Book::edit).
  void on_segment_finish(record_type& l, time_type at) {
    const auto times = book_.times();
    const segment_type seg = *l.current;
    if (seg.completes) {
      const auto real_end =
          static_cast<time_type>(seg.run.begin + times.wall_time(l, l.remaining_real));
      book_.close_segment(l, at, {seg.run.begin, std::min(real_end, seg.run.end)}, l.remaining_real,
                          segment_outcome::completed);
      l.remaining_max = 0;
      l.remaining_real = 0;
      book_.finish_lease(l, at);
      if (at < seg.booked.end) best_effort_planning(book_).slide_back(seg.nodes);
      return;
    }
    // Suspended (§3.1): the work done is credited and the remainder requeued by its
    // original submit time (§3.2).
    const time_type work = times.work_of(seg.run.end - seg.run.begin);
    book_.close_segment(l, at, seg.run, work, segment_outcome::suspended);
    l.remaining_max -= work;
    l.remaining_real -= work;
    ++l.suspensions;
    l.suspended_on = seg.nodes;
    book_.enqueue(l);
    if (book_.observer() != nullptr) book_.observer()->on_suspended(l.terms.id, at);
  }
};

// The name callers use (book_component.hpp).
template <class Book>
using event_clock = typename book_component<Book>::event_clock;

}  // namespace leasehold::policy::lease::detail
