#pragma once
// What a Flux planner_t is in the drop-in: a leasehold ledger (bookings over a free_tree) plus
// the little Flux keeps that leasehold does not: the resource type's name, the plan's bounds,
// where planner_avail_time_next goes on from, and where spans of nothing begin (see
// point_at_or_after).
//
// Private to the library (not installed): planner_multi.cpp needs it to drive its per-type
// planners.
#include <cstdint>
#include <map>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include <leasehold/availability/bookings.hpp>
#include <leasehold/availability/free_tree.hpp>

namespace leasehold::flux {

using tick = std::int64_t;
using units = std::int64_t;
using profile = free_tree<tick, units>;
using ledger = bookings<profile>;

// Flux adds an unsigned duration to a signed time and reads the sum back as signed; the checks
// that compare such a sum with the plan's end do the same, so that they agree on every input.
inline tick wrapped_end(tick at, std::uint64_t duration) noexcept {
  return static_cast<tick>(static_cast<std::uint64_t>(at) + duration);
}

// Where planner_avail_time_next goes on from: the request's on_or_after again (after a call
// that put Flux's tried points back), just after the last answer, or nowhere (no point is left).
enum class cursor_kind { restart, after, exhausted };

// A span that planner_multi has booked in a planner's name but not yet in its ledger: the
// joint profile answers planner_multi's searches, so the other types' ledgers and profiles are
// brought up to date only when a call reads or changes them (planner_t::settle).
struct deferred_span {
  tick begin = 0;
  tick end = 0;
  units amount = 0;
};

struct pending_request {
  tick on_or_after = 0;
  std::uint64_t duration = 0;
  units amount = 0;
  friend bool operator==(const pending_request&, const pending_request&) = default;
};

}  // namespace leasehold::flux

struct planner_t {
  using tick = leasehold::flux::tick;
  using units = leasehold::flux::units;

  units total = 0;
  std::string type;
  tick start = 0;
  tick end = 0;
  // The spans and the free capacity; none for planner_new_empty until a reset. Profiles need a
  // positive total and a Flux planner may have none, so the profile's total is the planner's
  // plus one, and that one unit is held anonymously over the whole time line.
  std::optional<leasehold::flux::ledger> plan;
  // How many spans of amount 0 begin at each time: the one kind of span edge that neither the
  // profile nor the ledger's ends show (point_at_or_after).
  std::map<tick, std::uint32_t> zero_begins;
  // planner_avail_time_first's request and where planner_avail_time_next goes on from.
  bool iter_set = false;
  leasehold::flux::pending_request request;
  leasehold::flux::cursor_kind cursor = leasehold::flux::cursor_kind::restart;
  tick last_answer = 0;
  // The span planner_span_first / planner_span_next answered last (0: none).
  std::uint64_t span_cursor = 0;
  // Counts the changes to the spans, bounds and total: a multi-planner's joint profile is built
  // from its planners' ledgers and is current while none of them has changed behind its back.
  std::uint64_t version = 0;
  // Spans booked by planner_multi and not yet in `plan`, in the order of their ids (the ids
  // after the ledger's next one). Every planner_* call settles them first.
  std::vector<leasehold::flux::deferred_span> deferred;

  planner_t() = default;
  planner_t(tick base_time, tick plan_end, units resource_total, std::string resource_type);
  // A copy goes on iterating from the request's on_or_after, as Flux's copies do.
  planner_t(const planner_t& other);
  planner_t& operator=(const planner_t& other);
  planner_t(planner_t&&) noexcept = default;
  planner_t& operator=(planner_t&&) noexcept = default;
  ~planner_t() = default;

  // Drops every span and starts over on [base_time, plan_end) with the same total.
  void reinitialise(tick base_time, tick plan_end);

  [[nodiscard]] units free_at(tick t) const;
  [[nodiscard]] units min_free(tick from, tick to) const;
  // The first scheduled point (base time or span edge) at or after t. Flux's candidate start
  // times include edges where the free capacity does not change (one span ends as another of
  // the same size begins), which the profile's blocks merge across. Only spans hold capacity
  // here (and the unit beyond the total, from the base time on), so a span of a positive amount
  // begins where the free capacity changes or where another span ends: the edges are the
  // profile's changes, the ledger's ends, and the begins of spans of nothing.
  [[nodiscard]] std::optional<tick> point_at_or_after(tick t) const;
  // The earliest time at or after `from` where planner_avail_during(t, duration, amount) holds:
  // the span ends by the plan's end and `amount` is free over it (anything holds before the
  // base time and on an empty planner, as in Flux).
  [[nodiscard]] std::optional<tick> earliest_during(tick from, std::uint64_t duration,
                                                    units amount) const;

  // Books the deferred spans in order, so that each gets the id it was handed out under. They
  // fit (the joint profile had room for them), so only std::bad_alloc can stop it; the spans
  // booked by then stay booked, the others deferred.
  void settle();
  // The id the next span booked here gets, deferred or not.
  [[nodiscard]] std::uint64_t next_span_id() const noexcept {
    return plan->next_id().value + deferred.size();
  }

  // What Flux's planner does to its tried points after a change: the next
  // planner_avail_time_next starts over from the request's on_or_after.
  void add_zero_begin(tick begin) { ++zero_begins[begin]; }
  void remove_zero_begin(tick begin);
  void restart_iteration() noexcept { cursor = leasehold::flux::cursor_kind::restart; }

  friend bool operator==(const planner_t& a, const planner_t& b);
};

namespace leasehold::flux {

// What planner_add_span(p, start, duration, request) refuses before it looks at the free
// capacity, as its errno (0: nothing). A span it does not refuse is booked unless the capacity
// is not free (EINVAL then).
int add_span_refusal(const planner_t& p, tick start, std::uint64_t duration,
                     std::uint64_t request) noexcept;

// One more resource type that must fit wherever the first one does (planner_multi).
struct joint_request {
  const planner_t* planner;
  std::uint64_t duration;
  units amount;
};

// The earliest scheduled point of `lead` at or after `from` where lead's request fits and every
// joint request holds as planner_avail_during would have it. Jumps between the types' own
// earliest fits, each answered by the ledger.
std::optional<tick> first_point_fit(const planner_t& lead, tick from, std::uint64_t duration,
                                    units amount, std::span<const joint_request> others);

// planner_avail_time_next's search as planner_multi drives it: goes on from lead's cursor,
// and moves the cursor past the answer (or exhausts it).
std::optional<tick> next_point_fit(planner_t& lead, std::span<const joint_request> others);

}  // namespace leasehold::flux
