#pragma once

// What a lease may be, checked in one place for both ways a lease enters the scheduler:
//
//  - check_terms: the terms submit() accepts (a lease with malformed terms is refused before
//    anything changes);
//  - check_record: a lease record import_state() accepts, that is one the scheduler itself
//    could have made: terms it would have accepted when the lease was submitted, a clock no
//    earlier than any time in the record, work done plus work remaining equal to the lease's
//    work, a history of segments in time order each within itself, a current segment whose
//    booking, phases and finish follow from the terms, the remaining work and the
//    configuration as the planner and the admission of reservations compute them.
//
// Both throw invalid_lease naming the lease and the member at fault (field()), so that a saved
// state edited by hand, or corrupted where no checksum can see, is refused rather than loaded
// as a scheduler that fails later (a queued lease wider than a node stalls every call).

#include <cstddef>
#include <cstdint>
#include <limits>
#include <type_traits>
#include <vector>

#include "leasehold/core/capacity.hpp"
#include "leasehold/core/detail/checked_arithmetic.hpp"
#include "leasehold/core/detail/describe.hpp"
#include "leasehold/core/time.hpp"
#include "leasehold/policy/lease/detail/book_component.hpp"
#include "leasehold/policy/lease/detail/lease_book.hpp"
#include "leasehold/policy/lease/lease_errors.hpp"
#include "leasehold/policy/lease/lease_record.hpp"

namespace leasehold::policy::lease::detail {

// A component over a lease book (lease_book.hpp), which it only reads: the table (node count
// and capacity), the configuration, the preparation step, the clock and the live ids.
template <class Book>
class book_component<Book>::lease_checks : public book_component<Book> {
 public:
  using book_component::book_component;

  // The terms of a lease submitted at `now` (submit()); a duplicate id is refused too.
  void check_terms(const terms_type& t, time_type now) const {
    if (book_.leases().contains(t.id))
      throw invalid_lease(leasehold::detail::describe("lease ", t.id, " (", t.kind,
                                                      "): a lease with this id was already "
                                                      "submitted"),
                          "terms.id");
    check_lease_terms(t, now);
  }

  // The terms alone, as at a submit() at `now`.
  void check_lease_terms(const terms_type& t, time_type now) const {
    using leasehold::detail::describe;
    auto fail = [&](const char* field, const auto&... parts) {
      throw invalid_lease(describe("lease ", t.id, " (", t.kind, "): ", parts...), field);
    };
    if (t.nodes <= 0) fail("terms.nodes", "asks for ", t.nodes, " nodes; it needs at least one");
    if (static_cast<std::uint64_t>(t.nodes) > book_.table().node_count())
      fail("terms.nodes", "asks for ", t.nodes, " nodes but the cluster has ",
           book_.table().node_count());
    if (t.duration <= 0) fail("terms.duration", "duration ", t.duration, " must be positive");
    // time_for multiplies by (100 + slowdown %); keep that and now + twice the span in range.
    if (t.duration > std::numeric_limits<time_type>::max() / 200 - times().overhead(t) ||
        !leasehold::detail::checked_add(
            now, static_cast<time_type>(2 * (t.duration + times().overhead(t)))))
      fail("terms.duration", "duration ", t.duration, " overflows the time type");
    if (t.real_duration < 0 || t.real_duration > t.duration)
      fail("terms.real_duration", "real duration ", t.real_duration, " outside [0, duration ",
           t.duration, "]");
    if (!is_positive(t.per_node))
      fail("terms.per_node", "per-node resources ", t.per_node, " must be positive");
    if (!fits(times().booked_vector(t), book_.table().per_node_total()))
      fail("terms.per_node", "per-node resources ", times().booked_vector(t), " exceed a node's ",
           book_.table().per_node_total());
    if (t.submit > now)
      fail("terms.submit", "submitted at ", t.submit, ", after the current time ", now);
    if (t.image && t.image->size_mb < 0)
      fail("terms.image", "image size ", t.image->size_mb, " is negative");
    if (t.hold_in_queue && t.kind != lease_kind::best_effort)
      fail("terms.hold_in_queue", "only a best-effort lease can be held in the queue");
    if constexpr (Book::template prep_offers<preparation_feature::check_terms>) {
      try {
        book_.preparation().check_terms(t);
      } catch (const error& e) {
        fail("terms.image", e.what());
      }
    }
    const time_type span = static_cast<time_type>(t.duration + times().overhead(t));
    if (t.kind != lease_kind::best_effort && book_.config().reservation_overhead_inside &&
        times().reservation_time_for(t.duration) <= times().overhead(t))
      fail("terms.duration", "duration ", t.duration, " leaves no run before its shutdown (",
           times().overhead(t), " s, inside the reservation)");
    if (t.kind == lease_kind::advance_reservation) {
      if (!t.start && !t.start_window)
        fail("terms.start", "an advance reservation needs a start or a start window");
      if (t.start && *t.start < now)
        fail("terms.start", "start ", *t.start, " is in the past (the current time is ", now, ")");
      if (t.start_window) {
        if (t.start_window->end < t.start_window->begin)
          fail("terms.start_window", "start window ", *t.start_window, " ends before it begins");
        if (t.start_window->end < now)
          fail("terms.start_window", "start window ", *t.start_window,
               " is in the past (the current time is ", now, ")");
      }
      const time_type latest = t.start ? *t.start : t.start_window->end;
      if (!leasehold::detail::checked_add(latest, span))
        fail(t.start ? "terms.start" : "terms.start_window", "start ", latest,
             " + duration overflows the time type");
    }
  }

  // A lease record as this scheduler, at its clock, could hold it (see the top of the file).
  void check_record(const record_type& l) const {
    using leasehold::detail::describe;
    const terms_type& t = l.terms;
    const time_type now = book_.now();
    auto fail = [&](const char* field, const auto&... parts) {
      throw invalid_lease(describe("lease ", t.id, ": ", parts...), field);
    };
    // Terms submit() accepted: at the submit time at the latest (the call may have come
    // later, and the terms' times are checked against it), and before the clock.
    check_lease_terms(t, t.submit);
    if (t.submit > now) fail("terms.submit", "submitted at ", t.submit, ", after the clock ", now);

    // The lifecycle: booked states have a segment; a lease that ran has a first start; only a
    // lease that is over has an end (a rejected one never got one), and only a rejected one
    // a reason.
    const bool booked = l.state == lease_state::scheduled || l.state == lease_state::running;
    if (booked != l.current.has_value())
      fail("current", "it is ", l.state, " but ", booked ? "has no segment" : "has a segment");
    const bool ran = !l.history.empty() || l.state == lease_state::running;
    if (ran != l.first_start.has_value())
      fail("first_start",
           ran ? "it has run but has no first start" : "it never ran but has a first start");
    const bool ended = l.state == lease_state::done || l.state == lease_state::withdrawn;
    if (ended != l.end.has_value())
      fail("end", "it is ", l.state, " but ", ended ? "has no end" : "has an end");
    if ((l.state == lease_state::rejected) == l.rejection.empty())
      fail("rejection", "it is ", l.state, " but ",
           l.rejection.empty() ? "has no rejection reason" : "has a rejection reason");
    if (l.state == lease_state::rejected && l.is_best_effort())
      fail("state", "a best-effort lease is queued, never rejected");
    if (l.state == lease_state::withdrawn && l.first_start)
      fail("state", "it was withdrawn but had started (only a lease that never ran can be)");
    if (l.first_start && (*l.first_start < t.submit || *l.first_start > now))
      fail("first_start", "first start ", *l.first_start, " outside [submit ", t.submit, ", clock ",
           now, "]");
    if (l.end && (*l.end < l.first_start.value_or(t.submit) || *l.end > now))
      fail("end", "end ", *l.end, " outside [", l.first_start ? "first start " : "submit ",
           l.first_start.value_or(t.submit), ", clock ", now, "]");

    // Work: what the history credits plus what remains is the lease's work (the maximum
    // duration and the real one); a lease that is done has none left and was credited all of
    // its real work.
    const time_type real_total = t.real_duration > 0 ? t.real_duration : t.duration;
    if (l.remaining_max < 0 || l.remaining_max > t.duration)
      fail("remaining_max", "remaining work ", l.remaining_max, " outside [0, duration ",
           t.duration, "]");
    if (l.remaining_real < 0 || l.remaining_real > l.remaining_max)
      fail("remaining_real", "remaining real work ", l.remaining_real, " outside [0, ",
           l.remaining_max, "] (the remaining maximum)");
    time_type credited = 0;
    for (std::size_t i = 0; i < l.history.size(); ++i) {
      const time_type work = l.history[i].work;
      if (work < 0 || work > real_total - credited)
        fail("history", "segment ", i, " of its history credits ", work,
             " work, more than its real work ", real_total, " leaves (or negative)");
      credited = static_cast<time_type>(credited + work);
    }
    if (l.state == lease_state::done) {
      if (l.remaining_max != 0 || l.remaining_real != 0)
        fail(l.remaining_max != 0 ? "remaining_max" : "remaining_real", "it is done but has ",
             l.remaining_max, " (maximum) and ", l.remaining_real, " (real) work left");
      if (credited != real_total)
        fail("history", "it is done but its history credits ", credited, " of its real work ",
             real_total);
    } else {
      if (l.remaining_max != t.duration - credited)
        fail("remaining_max", "remaining work ", l.remaining_max, " but its history credits ",
             credited, " of its duration ", t.duration);
      if (l.remaining_real != real_total - credited)
        fail("remaining_real", "remaining real work ", l.remaining_real,
             " but its history credits ", credited, " of its real work ", real_total);
    }

    // The history: segments in time order, after the submit, each within itself, on
    // t.nodes nodes; only the last may complete the lease, and the lease is done exactly
    // when one did.
    time_type previous_end = t.submit;
    std::size_t suspended = 0;
    std::size_t cancelled = 0;
    for (std::size_t i = 0; i < l.history.size(); ++i) {
      const segment_record<time_type>& h = l.history[i];
      check_nodes(l, h.nodes, "history");
      if (h.span.end < h.span.begin)
        fail("history", "segment ", i, " of its history spans ", h.span,
             ", which ends before it begins");
      if (h.run.end < h.run.begin || h.run.begin < h.span.begin)
        fail("history", "segment ", i, " of its history runs over ", h.run, ", not from within ",
             h.span);
      if (h.span.begin < previous_end)
        fail("history", "segment ", i, " of its history begins at ", h.span.begin, ", before ",
             i == 0 ? "the lease's submit time " : "the previous segment's end ", previous_end);
      if (i == 0 && l.first_start && h.span.begin != *l.first_start)
        fail("first_start", "first start ", *l.first_start, " but its first segment begins at ",
             h.span.begin);
      const bool last = i + 1 == l.history.size();
      switch (h.outcome) {
        case segment_outcome::completed:
        case segment_outcome::released:
          if (!last || l.state != lease_state::done)
            fail("history", "segment ", i, " of its history ended the lease, but ",
                 last ? "the lease is not done" : "more segments follow");
          break;
        case segment_outcome::suspended:
          ++suspended;
          if (!times().may_suspend(t))
            fail("history", "segment ", i,
                 " of its history was suspended, which this lease "
                 "cannot be");
          if (const auto ran_for = length(h.run.begin, h.run.end);
              ran_for > static_cast<unsigned_time>(times().time_for(t.duration)) ||
              h.work != times().work_of(static_cast<time_type>(ran_for)))
            fail("history", "segment ", i, " of its history ran ", h.run, " but credits ", h.work,
                 " work");
          break;
        case segment_outcome::cancelled:
          ++cancelled;
          if (!l.is_best_effort() || h.work != 0)
            fail("history", "segment ", i, " of its history was cancelled with ", h.work,
                 " work credited (a cancelled best-effort lease loses its work)");
          break;
      }
      previous_end = h.span.end;
    }
    if (previous_end > now)
      fail("history", "its history ends at ", previous_end, ", after the clock ", now);
    if (l.state == lease_state::done &&
        (l.history.empty() || l.history.back().outcome == segment_outcome::suspended ||
         l.history.back().outcome == segment_outcome::cancelled))
      fail("history", "it is done but no segment of its history ended it");
    if (l.suspensions != suspended)
      fail("suspensions", l.suspensions, " suspensions but its history has ", suspended);
    if (l.cancellations != cancelled)
      fail("cancellations", l.cancellations, " cancellations but its history has ", cancelled);
    // Where its memory state lies: set by its first suspension, kept after.
    if (suspended > 0) check_nodes(l, l.suspended_on, "suspended_on");
    if ((suspended > 0) == l.suspended_on.empty())
      fail("suspended_on", suspended > 0 ? "it was suspended but its memory state is nowhere"
                                         : "it was never suspended but has a memory state");
    if (l.migration_transfer &&
        (suspended == 0 || l.migration_transfer->end < l.migration_transfer->begin ||
         l.migration_transfer->begin > now))
      fail("migration_transfer", "a migration transfer over ", *l.migration_transfer,
           " for a lease ", suspended == 0 ? "never suspended" : "", " at the clock ", now);

    if (l.current) check_segment(l, *l.current, previous_end);
  }

 private:
  using unsigned_time = std::make_unsigned_t<time_type>;
  // The length of [begin, end) for begin <= end, without overflow.
  [[nodiscard]] static unsigned_time length(time_type begin, time_type end) {
    return static_cast<unsigned_time>(static_cast<unsigned_time>(end) -
                                      static_cast<unsigned_time>(begin));
  }

  // A segment's nodes: t.nodes of the table's, in increasing order.
  void check_nodes(const record_type& l, const std::vector<std::size_t>& nodes,
                   const char* field) const {
    bool ok = nodes.size() == static_cast<std::size_t>(l.terms.nodes);
    for (std::size_t i = 0; ok && i < nodes.size(); ++i)
      ok = nodes[i] < book_.table().node_count() && (i == 0 || nodes[i - 1] < nodes[i]);
    if (!ok)
      throw invalid_lease(
          leasehold::detail::describe("lease ", l.terms.id, ": ", field, " names ", nodes.size(),
                                      " nodes; it needs ", l.terms.nodes, " distinct nodes of the ",
                                      book_.table().node_count(), " in increasing order"),
          field);
  }

  // The booked segment, as the planner (best effort) or the admission (reservations) makes
  // it: [booked.begin, run.begin) migrates and resumes, the run, then a shutdown or a
  // suspension; its finish as settle_finish computes it.
  void check_segment(const record_type& l, const segment_type& seg, time_type previous_end) const {
    using leasehold::detail::describe;
    const terms_type& t = l.terms;
    const time_type now = book_.now();
    auto fail = [&](const char* field, const auto&... parts) {
      throw invalid_lease(describe("lease ", t.id, ": ", parts...), field);
    };
    check_nodes(l, seg.nodes, "current.nodes");
    if (!(seg.per_node == times().booked_vector(t)))
      fail("current.per_node", "its segment books ", seg.per_node, " per node, not ",
           times().booked_vector(t));
    if (seg.transfer)
      fail("current.transfer", "its segment still plans a transfer (booked segments have none)");
    if (!(seg.booked.begin <= seg.run.begin && seg.run.begin <= seg.run.end &&
          seg.run.end <= seg.booked.end))
      fail("current.run", "its segment runs over ", seg.run, ", not inside its booking ",
           seg.booked);
    if (seg.booked.begin < previous_end)
      fail("current.booked", "its segment begins at ", seg.booked.begin, ", before ",
           l.history.empty() ? "its submit time " : "its last segment's end ", previous_end);
    // The clock: a scheduled segment begins later, a running one has begun; neither has
    // finished (its finish event is still to come).
    if (l.state == lease_state::scheduled && seg.booked.begin <= now)
      fail("current.booked", "it is scheduled but its segment begins at ", seg.booked.begin,
           ", not after the clock ", now);
    if (l.state == lease_state::running && seg.booked.begin > now)
      fail("current.booked", "it is running but its segment begins at ", seg.booked.begin,
           ", after the clock ", now);
    if (seg.finish < now || seg.finish < seg.run.begin || seg.finish > seg.booked.end)
      fail("current.finish", "its segment finishes at ", seg.finish, ", outside [",
           std::max(now, seg.run.begin), ", ", seg.booked.end, "]");
    if (l.state == lease_state::running && l.history.empty() && l.first_start &&
        *l.first_start != seg.booked.begin)
      fail("first_start", "first start ", *l.first_start, " but its first segment begins at ",
           seg.booked.begin);
    // The phases: a lease with a memory state resumes (after migrating, if it moves).
    if (seg.resumes == l.suspended_on.empty())
      fail("current.resumes", seg.resumes ? "its segment resumes a lease never suspended"
                                          : "its segment starts afresh a suspended lease");
    if (seg.migrates && !seg.resumes)
      fail("current.migrates", "its segment migrates without resuming");
    const auto lead = static_cast<time_type>((seg.migrates ? times().migration_time(t) : 0) +
                                             (seg.resumes ? times().resume_time(t) : 0));
    if (length(seg.booked.begin, seg.run.begin) != static_cast<unsigned_time>(lead))
      fail("current.run", "its run begins at ", seg.run.begin, ", not ", lead,
           " (migration and resume) after its booking's begin ", seg.booked.begin);
    if (seg.suspends) {
      if (!times().may_suspend(t))
        fail("current.suspends", "its segment suspends a lease that cannot be");
      if (length(seg.run.end, seg.booked.end) < static_cast<unsigned_time>(times().suspend_time(t)))
        fail("current.booked", "its booking ends at ", seg.booked.end,
             ", leaving less than its suspension (", times().suspend_time(t), ") after its run ",
             seg.run);
    } else if (length(seg.run.end, seg.booked.end) !=
               static_cast<unsigned_time>(times().overhead(t))) {
      fail("current.booked", "its booking ends at ", seg.booked.end, ", not its shutdown (",
           times().overhead(t), ") after its run ", seg.run);
    }
    const auto run_length = length(seg.run.begin, seg.run.end);
    if (l.is_best_effort()) {
      // The run is the remaining maximum (slowed down in VMs). A segment cut short to end in a
      // suspension runs until the suspension begins, which may fall where its shutdown would
      // have been: no longer than the run and the shutdown together.
      const auto planned = static_cast<unsigned_time>(times().time_for(l.remaining_max));
      const auto limit =
          static_cast<unsigned_time>(planned + static_cast<unsigned_time>(times().overhead(t)));
      if (seg.suspends ? run_length > limit : run_length != planned)
        fail("current.run", "its segment runs ", seg.run, ", but its remaining work ",
             l.remaining_max, " takes ", planned, seg.suspends ? " (and its shutdown " : "",
             seg.suspends ? describe(times().overhead(t), ")") : std::string());
    } else {
      if (seg.resumes || seg.suspends)
        fail("current.suspends", "a reservation's segment neither resumes nor suspends");
      if (length(seg.booked.begin, seg.booked.end) !=
          static_cast<unsigned_time>(times().reservation_length(t)))
        fail("current.booked", "its booking ", seg.booked, " is not its length ",
             times().reservation_length(t));
      if (t.kind == lease_kind::advance_reservation && t.start && *t.start != seg.booked.begin)
        fail("terms.start", "an advance reservation starting at ", *t.start, " but booked from ",
             seg.booked.begin);
      if (t.start_window && !t.start && !t.start_window->contains(seg.booked.begin) &&
          seg.booked.begin != t.start_window->end)
        fail("terms.start_window", "an advance reservation to start in ", *t.start_window,
             " but booked from ", seg.booked.begin);
    }
    // The finish and whether the lease completes, from the remaining real work.
    if (!leasehold::detail::checked_add(
            seg.run.begin,
            static_cast<time_type>(times().wall_time(l, l.remaining_real) + times().overhead(t))))
      fail("current.run", "its run from ", seg.run.begin, " overflows the time type");
    segment_type settled = seg;
    times().settle_finish(l, settled);
    if (settled.completes != seg.completes)
      fail("current.completes", "its segment ", seg.completes ? "completes" : "does not complete",
           " the lease, but its remaining real work ", l.remaining_real,
           settled.completes ? " ends in it" : " does not end in it");
    if (settled.finish != seg.finish)
      fail("current.finish", "its segment finishes at ", seg.finish,
           ", but its remaining real work ", l.remaining_real, " from its run's begin ",
           seg.run.begin, " makes it ", settled.finish);
  }
};

// The name callers use (book_component.hpp).
template <class Book>
using lease_checks = typename book_component<const Book>::lease_checks;

}  // namespace leasehold::policy::lease::detail
