// Flux's planner.h over leasehold: every call checks its arguments as Flux does (same errno for
// the same input), then asks the planner's ledger. Which leasehold call each translates to is
// tabulated in docs/embedding.md.
#include "planner.h"

#include <cerrno>
#include <cstdint>
#include <limits>
#include <new>
#include <utility>

#include "planner_state.hpp"

namespace flux = leasehold::flux;
using flux::tick;
using flux::units;

// ---- planner_t ------------------------------------------------------------------------------

namespace {

flux::ledger make_ledger(units total, tick base_time, tick plan_end) {
  flux::profile profile(total + 1, base_time);
  profile.reserve({base_time, leasehold::forever<tick>}, 1);  // the unit beyond the total
  flux::ledger ledger(std::move(profile));
  if (plan_end != leasehold::forever<tick>) ledger.set_plan_end(plan_end);
  return ledger;
}

}  // namespace

planner_t::planner_t(tick base_time, tick plan_end, units resource_total, std::string resource_type)
    : total(resource_total),
      type(std::move(resource_type)),
      start(base_time),
      end(plan_end),
      plan(make_ledger(resource_total, base_time, plan_end)) {}

planner_t::planner_t(const planner_t& other)
    : total(other.total),
      type(other.type),
      start(other.start),
      end(other.end),
      plan(other.plan),
      zero_begins(other.zero_begins),
      iter_set(other.iter_set),
      request(other.request),
      deferred(other.deferred) {}

planner_t& planner_t::operator=(const planner_t& other) {
  if (this != &other) {
    planner_t copy(other);
    *this = std::move(copy);  // the implicit move assignment: nothing left to throw
  }
  return *this;
}

void planner_t::reinitialise(tick base_time, tick plan_end) {
  flux::ledger fresh = make_ledger(total, base_time, plan_end);
  plan = std::move(fresh);
  zero_begins.clear();
  deferred.clear();
  start = base_time;
  end = plan_end;
  iter_set = false;
  cursor = flux::cursor_kind::restart;
  span_cursor = 0;
}

units planner_t::free_at(tick t) const { return plan->free_at(t); }

units planner_t::min_free(tick from, tick to) const { return plan->min_free({from, to}); }

std::optional<tick> planner_t::point_at_or_after(tick t) const {
  if (!plan) return std::nullopt;
  if (t <= start) return start;
  std::optional<tick> point = plan->next_change(t - 1);  // t itself, if the capacity changes there
  const auto consider = [&](std::optional<tick> edge) {
    if (edge && (!point || *edge < *point)) point = edge;
  };
  consider(plan->next_end(t));
  if (const auto zero = zero_begins.lower_bound(t); zero != zero_begins.end())
    consider(zero->first);
  return point;
}

void planner_t::settle() {
  std::size_t booked = 0;
  try {
    for (; booked < deferred.size(); ++booked) {
      const flux::deferred_span& span = deferred[booked];
      bool counted = false;
      try {
        if (span.amount == 0) {
          add_zero_begin(span.begin);
          counted = true;
        }
        plan->book({span.begin, span.end}, span.amount);
      } catch (...) {
        if (counted) remove_zero_begin(span.begin);
        throw;
      }
    }
  } catch (...) {
    deferred.erase(deferred.begin(), deferred.begin() + static_cast<std::ptrdiff_t>(booked));
    throw;
  }
  deferred.clear();
}

void planner_t::remove_zero_begin(tick begin) {
  const auto zero = zero_begins.find(begin);
  if (--zero->second == 0) zero_begins.erase(zero);
}

std::optional<tick> planner_t::earliest_during(tick from, std::uint64_t duration,
                                               units amount) const {
  // Past the end nothing fits, and nothing later does either.
  if (from >= end || duration > static_cast<std::uint64_t>(end) - static_cast<std::uint64_t>(from))
    return std::nullopt;
  if (!plan || from < start || amount <= 0) return from;
  if (amount > total) return std::nullopt;
  // The profile's own search, its window ending at the plan end: what the ledger's
  // earliest_fit does after checks that the lines above have made.
  return plan->profile().earliest_fit(leasehold::request<tick, units>{
      .amount = amount, .duration = static_cast<tick>(duration), .window = {from, end}});
}

bool operator==(const planner_t& a, const planner_t& b) {
  if (a.total != b.total || a.type != b.type || a.start != b.start || a.end != b.end ||
      a.iter_set != b.iter_set || a.plan.has_value() != b.plan.has_value() ||
      a.zero_begins != b.zero_begins)
    return false;
  if (a.cursor != b.cursor ||
      (a.cursor == flux::cursor_kind::after && a.last_answer != b.last_answer))
    return false;
  if (a.iter_set && !(a.request == b.request)) return false;
  return !a.plan || *a.plan == *b.plan;
}

namespace leasehold::flux {

int add_span_refusal(const planner_t& p, tick start, std::uint64_t duration,
                     std::uint64_t request) noexcept {
  // Flux checks that the request is free over the span (else EINVAL), then the span's bounds
  // (EINVAL) and a negative amount (ERANGE). An amount above the total is never free, and a
  // negative one always is; what is left to check of the capacity the booking itself refuses.
  const auto amount = static_cast<units>(request);
  if (wrapped_end(start, duration) > p.end) return EINVAL;
  if (start < p.start || duration < 1 || wrapped_end(start, duration - 1) > p.end ||
      amount > p.total)
    return EINVAL;
  if (amount < 0) return ERANGE;
  constexpr auto longest = static_cast<std::uint64_t>(std::numeric_limits<tick>::max());
  if (!p.plan || duration > longest) return EINVAL;
  // A span whose end wraps round: the ledger refuses it as malformed.
  if (wrapped_end(start, duration) <= start) return EINVAL;
  return 0;
}

std::optional<tick> first_point_fit(const planner_t& lead, tick from, std::uint64_t duration,
                                    units amount, std::span<const joint_request> others) {
  // Every step moves `from` forward past times that cannot be the answer: before one type's
  // earliest fit, or between two scheduled points of the lead.
  for (;;) {
    const std::optional<tick> fit = lead.earliest_during(from, duration, amount);
    if (!fit) return std::nullopt;
    bool moved = false;
    for (const joint_request& other : others) {
      const std::optional<tick> other_fit =
          other.planner->earliest_during(*fit, other.duration, other.amount);
      if (!other_fit) return std::nullopt;
      if (*other_fit != *fit) {
        from = *other_fit;
        moved = true;
        break;
      }
    }
    if (moved) continue;
    // Alone, a fit after `from` is where the free capacity rises, which only a span's edge does:
    // a point, without asking the edges.
    if (others.empty() && *fit > from) return fit;
    const std::optional<tick> point = lead.point_at_or_after(*fit);
    if (!point) return std::nullopt;
    if (*point == *fit) return fit;
    from = *point;
  }
}

std::optional<tick> next_point_fit(planner_t& lead, std::span<const joint_request> others) {
  tick from = lead.request.on_or_after;
  switch (lead.cursor) {
    case cursor_kind::exhausted:
      return std::nullopt;
    case cursor_kind::after:
      from = lead.last_answer + 1;
      break;
    case cursor_kind::restart:
      break;
  }
  const std::optional<tick> found =
      first_point_fit(lead, from, lead.request.duration, lead.request.amount, others);
  if (found) {
    lead.cursor = cursor_kind::after;
    lead.last_answer = *found;
  } else {
    lead.cursor = cursor_kind::exhausted;
  }
  return found;
}

}  // namespace leasehold::flux

// ---- The C API ------------------------------------------------------------------------------

namespace {

constexpr auto int64_max = static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max());

int fail(int error) {
  errno = error;
  return -1;
}

// Books what planner_multi deferred in ctx's name (planner_t::settle) before a call reads or
// changes it; false, with errno ENOMEM, when that fails.
bool settled(planner_t* ctx) noexcept {
  if (ctx == nullptr || ctx->deferred.empty()) return true;
  try {
    ctx->settle();
    return true;
  } catch (const std::exception&) {
    errno = ENOMEM;  // only an allocation can fail: the spans fit
    return false;
  }
}

// Flux's avail_during: the span must end by the plan's end; before the base time (and on an
// empty planner) anything fits; else `amount` must be free over the span. 0, or an errno.
int avail_during_errno(const planner_t& p, tick at, std::uint64_t duration, units amount) {
  if (flux::wrapped_end(at, duration) > p.end) return ERANGE;
  if (!p.plan || at < p.start || amount <= 0) return 0;
  const tick finish = flux::wrapped_end(at, duration);
  if (finish <= at) return p.free_at(at) >= amount ? 0 : EBUSY;  // Flux looks at `at` alone
  return p.min_free(at, finish) >= amount ? 0 : EBUSY;
}

const leasehold::booking<tick, units>* find_span(const planner_t& p, std::int64_t span_id) {
  if (!p.plan || span_id <= 0) return nullptr;
  return p.plan->find(leasehold::booking_id{static_cast<std::uint64_t>(span_id)});
}

}  // namespace

extern "C" {

planner_t* planner_new(int64_t base_time, uint64_t duration, uint64_t resource_total,
                       const char* resource_type) {
  if (duration < 1 || !resource_type) return errno = EINVAL, nullptr;
  // The profile holds one unit more than the planner (planner_state.hpp).
  if (resource_total >= int64_max) return errno = ERANGE, nullptr;
  try {
    return new planner_t(base_time, flux::wrapped_end(base_time, duration),
                         static_cast<units>(resource_total), resource_type);
  } catch (const std::bad_alloc&) {
    errno = ENOMEM;
  } catch (const std::exception&) {
    errno = EINVAL;  // bounds the profile refuses: an end not after the base time
  }
  return nullptr;
}

planner_t* planner_new_empty() {
  try {
    return new planner_t();
  } catch (const std::bad_alloc&) {
    errno = ENOMEM;
    return nullptr;
  }
}

planner_t* planner_copy(planner_t* p) {
  if (!p) return errno = EINVAL, nullptr;
  try {
    return new planner_t(*p);
  } catch (const std::bad_alloc&) {
    errno = ENOMEM;
    return nullptr;
  }
}

void planner_assign(planner_t* lhs, planner_t* rhs) {
  if (!lhs || !rhs) return;
  const std::uint64_t version = lhs->version;
  try {
    *lhs = *rhs;
    lhs->version = version + 1;
  } catch (const std::bad_alloc&) {
    errno = ENOMEM;
  }
}

int planner_reset(planner_t* ctx, int64_t base_time, uint64_t duration) {
  if (!ctx || duration < 1) return fail(EINVAL);
  try {
    ctx->reinitialise(base_time, flux::wrapped_end(base_time, duration));
    ++ctx->version;
  } catch (const std::bad_alloc&) {
    return fail(ENOMEM);
  } catch (const std::exception&) {
    return fail(EINVAL);
  }
  return 0;
}

void planner_destroy(planner_t** ctx_p) {
  if (ctx_p && *ctx_p) {
    delete *ctx_p;
    *ctx_p = nullptr;
  }
}

int64_t planner_base_time(planner_t* ctx) { return ctx ? ctx->start : fail(EINVAL); }

int64_t planner_duration(planner_t* ctx) { return ctx ? ctx->end - ctx->start : fail(EINVAL); }

int64_t planner_resource_total(planner_t* ctx) { return ctx ? ctx->total : fail(EINVAL); }

const char* planner_resource_type(planner_t* ctx) {
  if (!ctx) return errno = EINVAL, nullptr;
  return ctx->type.c_str();
}

int64_t planner_avail_time_first(planner_t* ctx, int64_t on_or_after, uint64_t duration,
                                 uint64_t request) {
  if (!settled(ctx)) return -1;
  if (!ctx || on_or_after < ctx->start || on_or_after >= ctx->end || duration < 1)
    return fail(EINVAL);
  const auto amount = static_cast<units>(request);
  if (amount > ctx->total) return fail(ERANGE);
  ctx->iter_set = true;
  ctx->request = {.on_or_after = on_or_after, .duration = duration, .amount = amount};
  ctx->restart_iteration();
  const std::optional<tick> found = flux::next_point_fit(*ctx, {});
  return found ? *found : fail(ENOENT);
}

int64_t planner_avail_time_next(planner_t* ctx) {
  if (!settled(ctx)) return -1;
  if (!ctx || !ctx->iter_set) return fail(EINVAL);
  if (ctx->request.amount > ctx->total) return fail(ERANGE);
  const std::optional<tick> found = flux::next_point_fit(*ctx, {});
  return found ? *found : fail(ENOENT);
}

int planner_avail_during(planner_t* ctx, int64_t at, uint64_t duration, uint64_t request) {
  if (!settled(ctx)) return -1;
  if (!ctx || duration < 1) return fail(EINVAL);
  const auto amount = static_cast<units>(request);
  if (amount > ctx->total) return fail(ERANGE);
  const int error = avail_during_errno(*ctx, at, duration, amount);
  return error == 0 ? 0 : fail(error);
}

int64_t planner_avail_resources_during(planner_t* ctx, int64_t at, uint64_t duration) {
  if (!settled(ctx)) return -1;
  if (!ctx || at > ctx->end || duration < 1) return fail(EINVAL);
  const tick finish = flux::wrapped_end(at, duration);
  if (finish > ctx->end) return fail(ERANGE);
  if (!ctx->plan || at < ctx->start) return fail(EINVAL);
  if (finish <= at) return ctx->free_at(at);
  return ctx->min_free(at, finish);
}

int64_t planner_avail_resources_at(planner_t* ctx, int64_t at) {
  if (!settled(ctx)) return -1;
  if (!ctx) return fail(EINVAL);
  if (at > ctx->end || at < ctx->start) return fail(ERANGE);
  if (!ctx->plan) return fail(ENOENT);
  return ctx->free_at(at);
}

int64_t planner_add_span(planner_t* ctx, int64_t start_time, uint64_t duration, uint64_t request) {
  if (!settled(ctx)) return -1;
  if (const int refused = flux::add_span_refusal(*ctx, start_time, duration, request))
    return fail(refused);
  const auto amount = static_cast<units>(request);
  const tick finish = flux::wrapped_end(start_time, duration);
  bool counted = false;  // a span of nothing counted first: nothing throws after the booking
  try {
    if (amount == 0) {
      ctx->add_zero_begin(start_time);
      counted = true;
    }
    const leasehold::booking_id id = ctx->plan->book({start_time, finish}, amount);
    ++ctx->version;
    ctx->iter_set = false;
    ctx->restart_iteration();
    return static_cast<int64_t>(id.value);
  } catch (const std::bad_alloc&) {
    errno = ENOMEM;
  } catch (const std::exception&) {
    errno = EINVAL;
  }
  if (counted) ctx->remove_zero_begin(start_time);
  return -1;
}

int planner_rem_span(planner_t* ctx, int64_t span_id) {
  if (!settled(ctx)) return -1;
  if (!ctx) return fail(EINVAL);
  const auto* span = find_span(*ctx, span_id);
  if (!span) return fail(EINVAL);
  if (span->amount == 0) ctx->remove_zero_begin(span->span.begin);
  ctx->plan->release(span->id);  // a live id: cannot throw
  ++ctx->version;
  ctx->iter_set = false;
  ctx->restart_iteration();
  return 0;
}

int planner_reduce_span(planner_t* ctx, int64_t span_id, int64_t to_remove, bool& removed) {
  removed = false;
  if (!settled(ctx)) return -1;
  if (!ctx) return fail(EINVAL);
  const auto* span = find_span(*ctx, span_id);
  if (!span) return fail(EINVAL);
  if (to_remove == span->amount) {
    removed = true;
    return planner_rem_span(ctx, span_id);
  }
  if (to_remove == 0) return 0;
  if (to_remove < 0 || to_remove > span->amount) return fail(EINVAL);
  ctx->plan->shrink(span->id, to_remove);  // less than the amount: the span stays
  ++ctx->version;
  ctx->restart_iteration();
  return 0;
}

int64_t planner_span_first(planner_t* ctx) {
  if (!settled(ctx)) return -1;
  if (!ctx) return fail(EINVAL);
  if (!ctx->plan || ctx->plan->empty()) {
    ctx->span_cursor = 0;
    return fail(EINVAL);
  }
  ctx->span_cursor = ctx->plan->begin()->id.value;
  return static_cast<int64_t>(ctx->span_cursor);
}

int64_t planner_span_next(planner_t* ctx) {
  if (!settled(ctx)) return -1;
  if (!ctx) return fail(EINVAL);
  if (!ctx->plan || ctx->span_cursor == 0) return fail(EINVAL);
  // The next live id: ids are handed out in order and never reused.
  const std::uint64_t last = ctx->plan->next_id().value;
  for (std::uint64_t id = ctx->span_cursor + 1; id < last; ++id) {
    if (ctx->plan->contains(leasehold::booking_id{id})) {
      ctx->span_cursor = id;
      return static_cast<int64_t>(id);
    }
  }
  ctx->span_cursor = 0;
  return fail(EINVAL);
}

size_t planner_span_size(planner_t* ctx) {
  if (!settled(ctx)) return 0;
  if (!ctx) return errno = EINVAL, 0;
  return ctx->plan ? ctx->plan->size() : 0;
}

bool planner_is_active_span(planner_t* ctx, int64_t span_id) {
  if (!settled(ctx)) return false;
  if (!ctx || !find_span(*ctx, span_id)) return errno = EINVAL, false;
  return true;
}

int64_t planner_span_start_time(planner_t* ctx, int64_t span_id) {
  if (!settled(ctx)) return -1;
  if (!ctx) return fail(EINVAL);
  const auto* span = find_span(*ctx, span_id);
  return span ? span->span.begin : fail(EINVAL);
}

int64_t planner_span_duration(planner_t* ctx, int64_t span_id) {
  if (!settled(ctx)) return -1;
  if (!ctx) return fail(EINVAL);
  const auto* span = find_span(*ctx, span_id);
  return span ? span->span.end - span->span.begin : fail(EINVAL);
}

int64_t planner_span_resource_count(planner_t* ctx, int64_t span_id) {
  if (!settled(ctx)) return -1;
  if (!ctx) return fail(EINVAL);
  const auto* span = find_span(*ctx, span_id);
  return span ? span->amount : fail(EINVAL);
}

bool planners_equal(planner_t* lhs, planner_t* rhs) {
  if (!settled(lhs) || !settled(rhs)) return false;
  if (!lhs || !rhs) return lhs == rhs;
  return *lhs == *rhs;
}

int planner_update_total(planner_t* ctx, uint64_t resource_total) {
  if (!settled(ctx)) return -1;
  if (!ctx) return fail(EINVAL);
  if (resource_total >= int64_max) return fail(ERANGE);
  const auto total = static_cast<units>(resource_total);
  if (total == ctx->total) return 0;
  if (ctx->plan) {
    try {
      ctx->plan->set_total(total + 1);
    } catch (const std::bad_alloc&) {
      return fail(ENOMEM);
    } catch (const std::exception&) {
      return fail(EINVAL);  // below what is planned at some time: refused, nothing changed
    }
  }
  ctx->total = total;
  ++ctx->version;
  return 0;
}

}  // extern "C"
