// Flux's planner_multi.h over the drop-in's planner_t: one planner per resource type, as in
// Flux, so that planner_multi_planner_at hands out a planner every planner_* call accepts and
// planner_multi_update can add, drop and reorder types while spans are live. The joint search
// (first_point_fit) asks each type's ledger for its earliest fit and jumps to the latest.
#include "planner_multi.h"

#include <algorithm>
#include <cerrno>
#include <cstdint>
#include <limits>
#include <map>
#include <memory>
#include <new>
#include <set>
#include <string>
#include <string_view>
#include <unordered_set>
#include <utility>
#include <vector>

#include "planner_state.hpp"

namespace flux = leasehold::flux;
using flux::count;
using flux::tick;

struct planner_multi_t {
  struct resource {
    std::string type;
    std::uint64_t total = 0;  // as the multi-planner was told; planner_update_total on the
                              // per-type planner does not change it (as in Flux)
    std::unique_ptr<planner_t> planner;
  };

  std::vector<resource> resources;
  std::vector<std::uint64_t> totals;  // what planner_multi_resource_totals points at
  // The last planner_multi_avail_time_first request; counts by type name, so that
  // planner_multi_update's reordering does not lose them.
  tick on_or_after = 0;
  std::uint64_t duration = 0;
  std::map<std::string, std::uint64_t> counts;
  // Multi-type span id -> the per-type span ids (-1 where that type's span is gone).
  std::map<std::uint64_t, std::vector<std::int64_t>> spans;
  std::uint64_t span_counter = 0;
  std::optional<std::uint64_t> span_cursor;

  planner_multi_t() = default;
  planner_multi_t(const planner_multi_t& other)
      : totals(other.totals),
        on_or_after(other.on_or_after),
        duration(other.duration),
        counts(other.counts),
        spans(other.spans),
        span_counter(other.span_counter) {
    resources.reserve(other.resources.size());
    for (const resource& r : other.resources)
      resources.push_back({r.type, r.total, std::make_unique<planner_t>(*r.planner)});
  }
  planner_multi_t& operator=(const planner_multi_t& other) {
    if (this != &other) {
      planner_multi_t copy(other);
      std::swap(resources, copy.resources);
      std::swap(totals, copy.totals);
      on_or_after = copy.on_or_after;
      duration = copy.duration;
      std::swap(counts, copy.counts);
      std::swap(spans, copy.spans);
      span_counter = copy.span_counter;
      span_cursor.reset();
    }
    return *this;
  }
  planner_multi_t(planner_multi_t&&) = delete;
  planner_multi_t& operator=(planner_multi_t&&) = delete;
  ~planner_multi_t() = default;

  [[nodiscard]] std::size_t size() const noexcept { return resources.size(); }
  [[nodiscard]] planner_t* at(std::size_t i) const { return resources[i].planner.get(); }
  [[nodiscard]] std::size_t index_of(std::string_view type) const {
    const auto found = std::find_if(resources.begin(), resources.end(),
                                    [&](const resource& r) { return r.type == type; });
    return static_cast<std::size_t>(found - resources.begin());
  }
};

namespace {

constexpr auto int64_max = static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max());

int fail(int error) {
  errno = error;
  return -1;
}

// The joint requests of types 1..n-1, or nullopt when one asks more than its planner's total:
// planner_avail_during refuses that (ERANGE) at every time, so nothing can fit.
std::optional<std::vector<flux::joint_request>> joint_requests(const planner_multi_t& m,
                                                               std::uint64_t duration,
                                                               auto&& amount_of) {
  std::vector<flux::joint_request> others;
  others.reserve(m.size());
  for (std::size_t i = 1; i < m.size(); ++i) {
    const auto amount = static_cast<count>(amount_of(i));
    if (amount > m.at(i)->total) return std::nullopt;
    others.push_back({m.at(i), duration, amount});
  }
  return others;
}

int64_t search(planner_t& lead, std::optional<std::vector<flux::joint_request>> others) {
  if (!others) {
    lead.cursor = flux::cursor_kind::exhausted;
    return fail(ENOENT);
  }
  const std::optional<tick> found = flux::next_point_fit(lead, *others);
  return found ? *found : fail(ENOENT);
}

}  // namespace

extern "C" {

planner_multi_t* planner_multi_new(int64_t base_time, uint64_t duration,
                                   const uint64_t* resource_totals, const char** resource_types,
                                   size_t len) {
  if (duration < 1 || !resource_totals || !resource_types) return errno = EINVAL, nullptr;
  for (size_t i = 0; i < len; ++i) {
    if (resource_totals[i] >= int64_max) return errno = ERANGE, nullptr;
    if (!resource_types[i]) return errno = EINVAL, nullptr;
  }
  try {
    auto m = std::make_unique<planner_multi_t>();
    for (size_t i = 0; i < len; ++i) {
      planner_t* p = planner_new(base_time, duration, resource_totals[i], resource_types[i]);
      if (!p) return nullptr;
      m->resources.push_back({resource_types[i], resource_totals[i], std::unique_ptr<planner_t>(p)});
      m->counts[resource_types[i]] = 0;
    }
    return m.release();
  } catch (const std::bad_alloc&) {
    errno = ENOMEM;
    return nullptr;
  }
}

planner_multi_t* planner_multi_empty() {
  try {
    return new planner_multi_t();
  } catch (const std::bad_alloc&) {
    errno = ENOMEM;
    return nullptr;
  }
}

planner_multi_t* planner_multi_copy(planner_multi_t* mp) {
  if (!mp) return errno = EINVAL, nullptr;
  try {
    return new planner_multi_t(*mp);
  } catch (const std::bad_alloc&) {
    errno = ENOMEM;
    return nullptr;
  }
}

void planner_multi_assign(planner_multi_t* lhs, planner_multi_t* rhs) {
  if (!lhs || !rhs) return;
  try {
    *lhs = *rhs;
  } catch (const std::bad_alloc&) {
    errno = ENOMEM;
  }
}

int64_t planner_multi_base_time(planner_multi_t* ctx) {
  if (!ctx || ctx->size() == 0) return fail(EINVAL);
  return planner_base_time(ctx->at(0));
}

int64_t planner_multi_duration(planner_multi_t* ctx) {
  if (!ctx || ctx->size() == 0) return fail(EINVAL);
  return planner_duration(ctx->at(0));
}

size_t planner_multi_resources_len(planner_multi_t* ctx) {
  if (!ctx) return errno = EINVAL, 0;
  return ctx->size();
}

const char* planner_multi_resource_type_at(planner_multi_t* ctx, unsigned int i) {
  if (!ctx || i >= ctx->size()) return errno = EINVAL, nullptr;
  return ctx->resources[i].type.c_str();
}

const uint64_t* planner_multi_resource_totals(planner_multi_t* ctx) {
  if (!ctx) return errno = EINVAL, nullptr;
  try {
    ctx->totals.clear();
    for (const auto& r : ctx->resources) ctx->totals.push_back(r.total);
  } catch (const std::bad_alloc&) {
    errno = ENOMEM;
    return nullptr;
  }
  return ctx->totals.data();
}

int64_t planner_multi_resource_total_at(planner_multi_t* ctx, unsigned int i) {
  if (!ctx) return -1;
  if (i >= ctx->size()) return fail(EINVAL);
  return static_cast<int64_t>(ctx->resources[i].total);
}

int64_t planner_multi_resource_total_by_type(planner_multi_t* ctx, const char* resource_type) {
  if (!ctx || !resource_type) return -1;
  const std::size_t i = ctx->index_of(resource_type);
  if (i == ctx->size()) return fail(EINVAL);
  return static_cast<int64_t>(ctx->resources[i].total);
}

int planner_multi_reset(planner_multi_t* ctx, int64_t base_time, uint64_t duration) {
  if (!ctx || duration < 1) return fail(EINVAL);
  for (std::size_t i = 0; i < ctx->size(); ++i)
    if (planner_reset(ctx->at(i), base_time, duration) == -1) return -1;
  return 0;
}

void planner_multi_destroy(planner_multi_t** ctx_p) {
  if (ctx_p && *ctx_p) {
    delete *ctx_p;
    *ctx_p = nullptr;
  }
}

planner_t* planner_multi_planner_at(planner_multi_t* ctx, unsigned int i) {
  if (!ctx || i >= ctx->size()) return errno = EINVAL, nullptr;
  return ctx->at(i);
}

int64_t planner_multi_avail_time_first(planner_multi_t* ctx, int64_t on_or_after,
                                       uint64_t duration, const uint64_t* resource_requests,
                                       size_t len) {
  if (!ctx || !resource_requests || ctx->size() < 1 || ctx->size() != len) return fail(EINVAL);
  ctx->on_or_after = on_or_after;
  ctx->duration = duration;
  for (size_t i = 0; i < len; ++i) ctx->counts[ctx->resources[i].type] = resource_requests[i];
  // The first type's planner is searched as planner_avail_time_first would be, and keeps the
  // request for its own planner_avail_time_next.
  planner_t& lead = *ctx->at(0);
  if (on_or_after < lead.start || on_or_after >= lead.end || duration < 1) return fail(EINVAL);
  const auto amount = static_cast<count>(resource_requests[0]);
  if (amount > lead.total) return fail(ERANGE);
  lead.iter_set = true;
  lead.request = {.on_or_after = on_or_after, .duration = duration, .amount = amount};
  lead.restart_iteration();
  return search(lead, joint_requests(*ctx, duration,
                                     [&](std::size_t i) { return resource_requests[i]; }));
}

int64_t planner_multi_avail_time_next(planner_multi_t* ctx) {
  if (!ctx || ctx->size() < 1) return fail(EINVAL);
  planner_t& lead = *ctx->at(0);
  if (!lead.iter_set) return fail(EINVAL);
  if (lead.request.amount > lead.total) return fail(ERANGE);
  return search(lead, joint_requests(*ctx, ctx->duration, [&](std::size_t i) {
                  const auto found = ctx->counts.find(ctx->resources[i].type);
                  return found == ctx->counts.end() ? std::uint64_t{0} : found->second;
                }));
}

int64_t planner_multi_avail_resources_at(planner_multi_t* ctx, int64_t at, unsigned int i) {
  if (!ctx || i >= ctx->size()) return fail(EINVAL);
  return planner_avail_resources_at(ctx->at(i), at);
}

int planner_multi_avail_resources_array_at(planner_multi_t* ctx, int64_t at,
                                           int64_t* resource_counts, size_t len) {
  if (!ctx || !resource_counts || ctx->size() != len) return fail(EINVAL);
  for (std::size_t i = 0; i < len; ++i) {
    const int64_t free = planner_avail_resources_at(ctx->at(i), at);
    if (free == -1) return -1;
    resource_counts[i] = free;
  }
  return 0;
}

int planner_multi_avail_during(planner_multi_t* ctx, int64_t at, uint64_t duration,
                               const uint64_t* resource_requests, size_t len) {
  if (!ctx || !resource_requests || ctx->size() != len) return fail(EINVAL);
  for (std::size_t i = 0; i < len; ++i)
    if (planner_avail_during(ctx->at(i), at, duration, resource_requests[i]) == -1) return -1;
  return 0;
}

int planner_multi_avail_resources_array_during(planner_multi_t* ctx, int64_t at,
                                               uint64_t duration, int64_t* resource_counts,
                                               size_t len) {
  if (!ctx || !resource_counts || ctx->size() < 1 || ctx->size() != len) return fail(EINVAL);
  for (std::size_t i = 0; i < len; ++i) {
    const int64_t free = planner_avail_resources_during(ctx->at(i), at, duration);
    if (free == -1) return -1;
    resource_counts[i] = free;
  }
  return 0;
}

int64_t planner_multi_add_span(planner_multi_t* ctx, int64_t start_time, uint64_t duration,
                               const uint64_t* resource_requests, size_t len) {
  if (!ctx || !resource_requests || len != ctx->size()) return -1;
  const std::uint64_t id = ctx->span_counter;
  try {
    auto [entry, inserted] = ctx->spans.try_emplace(id);
    if (!inserted) return fail(EEXIST);
    entry->second.reserve(len);
  } catch (const std::bad_alloc&) {
    return fail(ENOMEM);
  }
  ++ctx->span_counter;
  std::vector<std::int64_t>& ids = ctx->spans[id];
  for (std::size_t i = 0; i < len; ++i) {
    // A type that refuses leaves the earlier types' spans in place, as Flux does.
    const int64_t span = planner_add_span(ctx->at(i), start_time, duration, resource_requests[i]);
    if (span == -1) {
      ctx->spans.erase(id);
      return -1;
    }
    ids.push_back(span);
  }
  return static_cast<int64_t>(id);
}

int planner_multi_rem_span(planner_multi_t* ctx, int64_t span_id) {
  if (!ctx || span_id < 0) return fail(EINVAL);
  const auto found = ctx->spans.find(static_cast<std::uint64_t>(span_id));
  if (found == ctx->spans.end()) return fail(ENOENT);
  for (std::size_t i = 0; i < found->second.size(); ++i)
    if (found->second[i] != -1 && planner_rem_span(ctx->at(i), found->second[i]) == -1) return -1;
  ctx->spans.erase(found);
  return 0;
}

int planner_multi_reduce_span(planner_multi_t* ctx, int64_t span_id,
                              const uint64_t* reduced_totals, const char** resource_types,
                              size_t len, bool& removed) {
  removed = false;
  if (!ctx || span_id < 0 || !reduced_totals || !resource_types) return fail(EINVAL);
  const auto found = ctx->spans.find(static_cast<std::uint64_t>(span_id));
  if (found == ctx->spans.end()) return fail(ENOENT);
  std::vector<std::int64_t>& ids = found->second;
  // Reduces type i's span; a span already gone is not an error.
  const auto reduce = [&](std::size_t i, std::int64_t by) {
    bool gone = false;
    if (i >= ids.size()) return fail(EINVAL);
    if (planner_reduce_span(ctx->at(i), ids[i], by, gone) == -1 &&
        planner_is_active_span(ctx->at(i), ids[i]))
      return fail(EINVAL);
    if (gone) ids[i] = -1;
    return 0;
  };
  std::set<std::size_t> named;
  for (size_t k = 0; k < len; ++k) {
    if (reduced_totals[k] > int64_max) return fail(ERANGE);
    if (!resource_types[k]) return fail(EINVAL);
    const std::size_t i = ctx->index_of(resource_types[k]);
    if (i >= ctx->size()) continue;  // a type this multi-planner does not track
    if (reduce(i, static_cast<std::int64_t>(reduced_totals[k])) == -1) return -1;
    named.insert(i);
  }
  // The types not named hold spans of nothing (or were partly released before): reducing by 0
  // removes the empty ones.
  for (std::size_t i = 0; i < ctx->size(); ++i)
    if (!named.contains(i) && reduce(i, 0) == -1) return -1;
  if (std::all_of(ids.begin(), ids.end(), [](std::int64_t s) { return s == -1; })) {
    ctx->spans.erase(found);
    removed = true;
  }
  return 0;
}

int64_t planner_multi_span_planned_at(planner_multi_t* ctx, int64_t span_id, unsigned int i) {
  if (!ctx || span_id < 0 || i >= ctx->size()) return fail(EINVAL);
  const auto found = ctx->spans.find(static_cast<std::uint64_t>(span_id));
  if (found == ctx->spans.end()) return fail(ENOENT);
  if (i >= found->second.size()) return fail(EINVAL);
  const std::int64_t span = found->second[i];
  if (span == -1) return 0;
  if (span < 0) return fail(EINVAL);
  return planner_span_resource_count(ctx->at(i), span);
}

int64_t planner_multi_span_first(planner_multi_t* ctx) {
  if (!ctx) return fail(EINVAL);
  if (ctx->spans.empty()) {
    ctx->span_cursor.reset();
    return fail(ENOENT);
  }
  ctx->span_cursor = ctx->spans.begin()->first;
  return static_cast<int64_t>(*ctx->span_cursor);
}

int64_t planner_multi_span_next(planner_multi_t* ctx) {
  if (!ctx) return fail(EINVAL);
  if (!ctx->span_cursor) return fail(ENOENT);
  const auto next = ctx->spans.upper_bound(*ctx->span_cursor);
  if (next == ctx->spans.end()) {
    ctx->span_cursor.reset();
    return fail(ENOENT);
  }
  ctx->span_cursor = next->first;
  return static_cast<int64_t>(next->first);
}

size_t planner_multi_span_size(planner_multi_t* ctx) {
  if (!ctx) return errno = EINVAL, 0;
  return ctx->spans.size();
}

bool planner_multis_equal(planner_multi_t* lhs, planner_multi_t* rhs) {
  if (!lhs || !rhs) return lhs == rhs;
  if (lhs->span_counter != rhs->span_counter || lhs->spans != rhs->spans ||
      lhs->on_or_after != rhs->on_or_after || lhs->duration != rhs->duration ||
      lhs->counts != rhs->counts || lhs->size() != rhs->size())
    return false;
  // By type, whatever the order.
  for (const auto& r : lhs->resources) {
    const std::size_t j = rhs->index_of(r.type);
    if (j == rhs->size() || r.total != rhs->resources[j].total ||
        !(*r.planner == *rhs->resources[j].planner))
      return false;
  }
  return true;
}

int planner_multi_update(planner_multi_t* ctx, const uint64_t* resource_totals,
                         const char** resource_types, size_t len) {
  if (!ctx || !resource_totals || !resource_types) return fail(EINVAL);
  if (ctx->size() == 0) return fail(EINVAL);  // no planner to take the bounds from
  const tick base_time = ctx->at(0)->start;
  const tick duration = ctx->at(0)->end - ctx->at(0)->start;
  if (duration < 0) return fail(EINVAL);
  try {
    std::unordered_set<std::string> named;
    for (size_t i = 0; i < len; ++i) {
      if (resource_totals[i] >= int64_max) return fail(ERANGE);
      if (!resource_types[i]) return fail(EINVAL);
      named.insert(resource_types[i]);
      const std::size_t current = ctx->index_of(resource_types[i]);
      if (current == ctx->size()) {
        planner_t* p = planner_new(base_time, static_cast<std::uint64_t>(duration),
                                   resource_totals[i], resource_types[i]);
        if (!p) return -1;
        planner_multi_t::resource added{resource_types[i], resource_totals[i],
                                        std::unique_ptr<planner_t>(p)};
        ctx->counts[resource_types[i]] = 0;
        const std::size_t at = std::min(i, ctx->size());
        ctx->resources.insert(ctx->resources.begin() + static_cast<std::ptrdiff_t>(at),
                              std::move(added));
      } else {
        // Moved to just before the element now at i (Flux's relocate): at i, or at i - 1 when
        // it came from before i.
        if (current != i && i < ctx->size() + 1) {
          const std::size_t target = current < i ? i - 1 : i;
          auto moved = std::move(ctx->resources[current]);
          ctx->resources.erase(ctx->resources.begin() + static_cast<std::ptrdiff_t>(current));
          ctx->resources.insert(ctx->resources.begin() + static_cast<std::ptrdiff_t>(
                                                             std::min(target, ctx->size())),
                                std::move(moved));
        }
        const std::size_t now = ctx->index_of(resource_types[i]);
        if (planner_update_total(ctx->at(now), resource_totals[i]) != 0) return fail(EINVAL);
        ctx->resources[now].total = resource_totals[i];
      }
    }
    if (!named.empty()) {
      for (auto it = ctx->resources.begin(); it != ctx->resources.end();) {
        if (!named.contains(it->type)) {
          ctx->counts.erase(it->type);
          it = ctx->resources.erase(it);
        } else {
          ++it;
        }
      }
    }
  } catch (const std::bad_alloc&) {
    return fail(ENOMEM);
  }
  return 0;
}

}  // extern "C"
