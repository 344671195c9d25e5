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
#include <variant>
#include <vector>

#include <boost/container/small_vector.hpp>
#include <leasehold/core/capacity.hpp>
#include <leasehold/core/dynamic_resources.hpp>

#include "planner_state.hpp"

namespace flux = leasehold::flux;
using flux::tick;
using flux::units;

namespace {

// Per-call lists sized by the number of types, in place up to a few types: a multi-type span
// or search allocates nothing of its own but the span's map entry.
using span_ids = boost::container::small_vector<std::int64_t, 4>;
using type_amounts = boost::container::small_vector<units, 8>;
using joint_list = boost::container::small_vector<flux::joint_request, 8>;

// Every type's free capacity as one vector profile, so that the joint search is one
// earliest_fit over all types instead of a walk that jumps from type to type. It is derived
// from the per-type ledgers (which stay the record of the spans): the multi-planner's own calls
// keep it current, and any other change to a type's planner (through planner_multi_planner_at)
// makes it stale, to be rebuilt at the next search. One unit beyond each type's total is held
// over the whole time line, as in the per-type profiles.
// A vector of n components, all zero: resources<N> has its size in the type, a
// dynamic_resources takes it at run time.
template <class C>
C zero_of(std::size_t n) {
  if constexpr (std::is_constructible_v<C, std::size_t> && !std::is_aggregate_v<C>)
    return C(n);
  else
    return C{};
}

template <class C>
struct joint_profile {
  using capacity = C;
  // resources<N> (two to four types) is searched with the tree's fit corners, which need no
  // thresholds: run summaries there would be upkeep that no search reads (free_tree's default
  // for vectors, none). A run-time vector has no fit corners, and 16 thresholds a component:
  // without them a search after removals walks the holes they leave block by block.
  static constexpr std::size_t levels = leasehold::fixed_vector_capacity<C> ? 0 : 16;
  leasehold::free_tree<tick, capacity, levels> profile;

  explicit joint_profile(std::span<const planner_t* const> planners)
      : profile(totals(planners), planners[0]->start) {
    capacity pad = zero_of<C>(planners.size());
    for (std::size_t j = 0; j < planners.size(); ++j) pad[j] = 1;
    profile.reserve({planners[0]->start, leasehold::forever<tick>}, pad);
    for (std::size_t j = 0; j < planners.size(); ++j)
      for (const auto& span : planners[j]->plan->live())
        if (span.amount > 0) profile.reserve(span.span, component(planners.size(), j, span.amount));
  }
  static capacity totals(std::span<const planner_t* const> planners) {
    capacity result = zero_of<C>(planners.size());
    for (std::size_t j = 0; j < planners.size(); ++j) result[j] = planners[j]->total + 1;
    return result;
  }
  static capacity component(std::size_t n, std::size_t j, units amount) {
    capacity result = zero_of<C>(n);
    result[j] = amount;
    return result;
  }
};

// Two to four types in a fixed vector (the common case, and the fastest), up to eight in a
// run-time one; more search type by type.
using dynamic_capacity = leasehold::dynamic_resources<units, 8>;
using joint_variant =
    std::variant<std::monostate, joint_profile<leasehold::resources<2, units>>,
                 joint_profile<leasehold::resources<3, units>>,
                 joint_profile<leasehold::resources<4, units>>, joint_profile<dynamic_capacity>>;

joint_variant make_joint(std::span<const planner_t* const> planners) {
  joint_variant result;
  switch (planners.size()) {
    case 2:
      result.emplace<1>(planners);
      break;
    case 3:
      result.emplace<2>(planners);
      break;
    case 4:
      result.emplace<3>(planners);
      break;
    default:
      result.emplace<4>(planners);
      break;
  }
  return result;
}

}  // namespace

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
  // counts' entry of each resource in order (one entry for a type named twice), so that a search
  // records its request without looking types up by name; rebuilt when the types may have
  // changed (count_slots_stale).
  std::vector<std::uint64_t*> count_slots;
  bool count_slots_stale = true;
  // Multi-type span id -> the per-type span ids (-1 where that type's span is gone).
  std::map<std::uint64_t, span_ids> spans;
  std::uint64_t span_counter = 0;
  std::optional<std::uint64_t> span_cursor;
  // The joint profile and the planners and versions it was built from.
  joint_variant joint;
  std::vector<const planner_t*> joint_planners;
  std::vector<std::uint64_t> joint_versions;
  // Whether every time where the joint profile changes is a scheduled point of the lead (the
  // first type): true when each other type's span has a lead span of the same bounds, as every
  // planner_multi_add_span makes (the lead books first). Then a joint search need not ask the
  // lead's ledger whether a fit after its starting time is a point (joint_point_fit). Checked
  // when the joint profile is built; calls that can break it (a reset, a reduced span) clear it.
  bool joint_edges_lead = false;
  // span_counter at the last planner_multi_reset: older span ids may name the spans made since.
  std::uint64_t reset_mark = 0;

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
    // A current joint profile goes with the copy: rebuilt from the ledgers it would cost a
    // reserve per span, and its first searches would run without run summaries (a free_tree
    // loaded without searches drops them until searches come back).
    if (other.joint_current()) {
      joint = other.joint;
      joint_planners.reserve(size());
      for (std::size_t i = 0; i < size(); ++i) joint_planners.push_back(at(i));
      joint_versions.assign(size(), 0);
      joint_synced();
      joint_edges_lead = other.joint_edges_lead;
    }
    reset_mark = other.reset_mark;
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
      // The copy's joint profile refers to the planners just taken from it.
      std::swap(joint, copy.joint);
      std::swap(joint_planners, copy.joint_planners);
      std::swap(joint_versions, copy.joint_versions);
      joint_edges_lead = copy.joint_edges_lead;
      reset_mark = copy.reset_mark;
      count_slots_stale = true;  // the slots point into the map this one had
    }
    return *this;
  }
  planner_multi_t(planner_multi_t&&) = delete;
  planner_multi_t& operator=(planner_multi_t&&) = delete;
  ~planner_multi_t() = default;

  [[nodiscard]] std::size_t size() const noexcept { return resources.size(); }
  [[nodiscard]] planner_t* at(std::size_t i) const { return resources[i].planner.get(); }
  // The joint profile is worth having for 2 to 8 types sharing their bounds.
  [[nodiscard]] bool joint_applies() const noexcept {
    if (size() < 2 || size() > dynamic_capacity::max_size) return false;
    for (const resource& r : resources)
      if (!r.planner->plan || r.planner->start != at(0)->start || r.planner->end != at(0)->end)
        return false;
    return true;
  }
  [[nodiscard]] bool joint_current() const noexcept {
    if (std::holds_alternative<std::monostate>(joint) || joint_planners.size() != size())
      return false;
    for (std::size_t i = 0; i < size(); ++i)
      if (joint_planners[i] != at(i) || joint_versions[i] != at(i)->version) return false;
    return true;
  }
  void joint_synced() {
    for (std::size_t i = 0; i < size(); ++i) joint_versions[i] = at(i)->version;
  }
  // Books every type's deferred spans (planner_t::settle); false, with errno ENOMEM, when that
  // fails.
  bool settle_all() noexcept {
    try {
      for (const resource& r : resources) r.planner->settle();
      return true;
    } catch (const std::exception&) {
      errno = ENOMEM;
      return false;
    }
  }
  // The joint profile, current, or nullptr where none applies.
  joint_variant* current_joint() {
    if (!joint_applies()) return nullptr;
    if (joint_current()) return &joint;
    try {
      joint = std::monostate{};
      for (const resource& r : resources) r.planner->settle();  // built from the ledgers
      std::vector<const planner_t*> planners;
      for (const resource& r : resources) planners.push_back(r.planner.get());
      joint = make_joint(planners);
      joint_edges_lead = spans_have_lead_spans();
      joint_planners = std::move(planners);
      joint_versions.assign(size(), 0);
      joint_synced();
      return &joint;
    } catch (const std::exception&) {
      joint = std::monostate{};
      return nullptr;  // the search goes type by type
    }
  }
  // Books (sign 1) or releases (sign -1) a multi-type span's amounts in a current joint
  // profile, else leaves the profile to be rebuilt.
  void joint_apply(bool was_current, tick begin, tick end, const type_amounts& amounts, int sign) {
    if (!was_current) return;
    try {
      std::visit(
          [&](auto& jp) {
            if constexpr (!std::is_same_v<std::decay_t<decltype(jp)>, std::monostate>) {
              auto a = zero_of<typename std::decay_t<decltype(jp)>::capacity>(amounts.size());
              for (std::size_t j = 0; j < amounts.size(); ++j) a[j] = amounts[j];
              if (leasehold::is_zero(a)) return;
              if (sign > 0)
                jp.profile.reserve({begin, end}, a);
              else
                jp.profile.release({begin, end}, a);
            }
          },
          joint);
      joint_synced();
    } catch (const std::exception&) {
      joint = std::monostate{};
    }
  }

  // Whether every span of every other type has a lead span of the same bounds (see
  // joint_edges_lead); all types settled. O(n log n) for n spans. Throws std::bad_alloc.
  [[nodiscard]] bool spans_have_lead_spans() const {
    std::vector<leasehold::interval<tick>> lead;
    lead.reserve(at(0)->plan->size());
    for (const auto& span : at(0)->plan->live()) lead.push_back(span.span);
    const auto before = [](const leasehold::interval<tick>& a, const leasehold::interval<tick>& b) {
      return a.begin != b.begin ? a.begin < b.begin : a.end < b.end;
    };
    std::sort(lead.begin(), lead.end(), before);
    for (std::size_t i = 1; i < size(); ++i)
      for (const auto& span : at(i)->plan->live())
        if (!std::binary_search(lead.begin(), lead.end(), span.span, before)) return false;
    return true;
  }

  // count_slots, current. Throws std::bad_alloc.
  const std::vector<std::uint64_t*>& slots() {
    if (count_slots_stale || count_slots.size() != size()) {
      count_slots.clear();
      for (const resource& r : resources) count_slots.push_back(&counts[r.type]);
      count_slots_stale = false;
    }
    return count_slots;
  }

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

// The joint requests of types 1..n-1 into `others`, or false when planner_avail_during would
// refuse them at every time: a duration of 0 (after a refused planner_multi_avail_time_first),
// or an amount above the planner's total. (Filled in place: returning the list in an optional
// moved it, which GCC 12 misreads as an overread.)
bool joint_requests(const planner_multi_t& m, std::uint64_t duration, auto&& amount_of,
                    joint_list& others) {
  if (duration < 1 && m.size() > 1) return false;  // planner_avail_during refuses it
  others.reserve(m.size());
  for (std::size_t i = 1; i < m.size(); ++i) {
    const auto amount = static_cast<units>(amount_of(i));
    if (amount > m.at(i)->total) return false;
    others.push_back({m.at(i), duration, amount});
  }
  return true;
}

// The earliest point of `lead` at or after `from` where the joint profile fits every amount.
// Settles the lead (planner_t::settle) before it asks the lead's ledger, and throws what that
// throws. `edges_are_points`: planner_multi_t::joint_edges_lead.
std::optional<tick> joint_point_fit(planner_t& lead, const joint_variant& joint, tick from,
                                    std::uint64_t duration, const flux::joint_request* others,
                                    std::size_t other_count, units lead_amount,
                                    bool edges_are_points) {
  return std::visit(
      [&](const auto& jp) -> std::optional<tick> {
        if constexpr (std::is_same_v<std::decay_t<decltype(jp)>, std::monostate>) {
          return std::nullopt;
        } else {
          auto amount = zero_of<typename std::decay_t<decltype(jp)>::capacity>(other_count + 1);
          amount[0] = std::max<units>(lead_amount, 0);
          for (std::size_t j = 0; j < other_count; ++j)
            amount[j + 1] = std::max<units>(others[j].amount, 0);
          for (;;) {
            if (from >= lead.end ||
                duration > static_cast<std::uint64_t>(lead.end) - static_cast<std::uint64_t>(from))
              return std::nullopt;
            const std::optional<tick> fit =
                jp.profile.earliest_fit({amount, static_cast<tick>(duration), {from, lead.end}});
            if (!fit) return std::nullopt;
            // The base time is a point. A fit after `from` is where some type's free capacity
            // rises (the start before it did not fit): a span edge, which is the lead's point
            // when every edge is.
            if (*fit <= lead.start || (edges_are_points && *fit > from)) return fit;
            lead.settle();
            const std::optional<tick> point = lead.point_at_or_after(*fit);
            if (!point) return std::nullopt;
            if (*point == *fit) return fit;
            from = *point;
          }
        }
      },
      joint);
}

// `others`: the joint requests, or nullptr where joint_requests refused them.
int64_t search(planner_multi_t& m, planner_t& lead, const joint_list* others) {
  if (others == nullptr) {
    lead.cursor = flux::cursor_kind::exhausted;
    return fail(ENOENT);
  }
  // The joint profile answers when every type asks for the lead's duration and some amount.
  bool any = lead.request.amount > 0;
  bool same_duration = true;
  for (const flux::joint_request& r : *others) {
    any = any || r.amount > 0;
    same_duration = same_duration && r.duration == lead.request.duration;
  }
  joint_variant* joint = any && same_duration ? m.current_joint() : nullptr;
  if (!joint) {
    if (!m.settle_all()) return -1;  // the types' own searches read their ledgers
    const std::optional<tick> found = flux::next_point_fit(lead, {others->data(), others->size()});
    return found ? *found : fail(ENOENT);
  }
  tick from = lead.request.on_or_after;
  switch (lead.cursor) {
    case flux::cursor_kind::exhausted:
      return fail(ENOENT);
    case flux::cursor_kind::after:
      from = lead.last_answer + 1;
      break;
    case flux::cursor_kind::restart:
      break;
  }
  std::optional<tick> found;
  try {
    found = joint_point_fit(lead, *joint, from, lead.request.duration, others->data(),
                            others->size(), lead.request.amount, m.joint_edges_lead);
  } catch (const std::exception&) {
    return fail(ENOMEM);  // settling the lead: only an allocation can fail
  }
  if (!found) {
    lead.cursor = flux::cursor_kind::exhausted;
    return fail(ENOENT);
  }
  lead.cursor = flux::cursor_kind::after;
  lead.last_answer = *found;
  return *found;
}

// planner_multi_add_span while the joint profile is current: when no type refuses the span
// before looking at the capacity, the joint profile books it (refused there exactly when some
// type's capacity is not free: it holds what every type's ledger does), and every type defers
// it (planner_t::deferred) until a call reads that type: the joint profile answers the
// searches. False, with nothing changed, where planner_multi_add_span must go type by type: to
// refuse the span as Flux does, or when an allocation failed.
bool add_deferred(planner_multi_t& m, tick start, std::uint64_t duration, const uint64_t* requests,
                  span_ids& ids) {
  for (std::size_t i = 0; i < m.size(); ++i)
    if (flux::add_span_refusal(*m.at(i), start, duration, requests[i]) != 0) return false;
  try {
    for (std::size_t i = 0; i < m.size(); ++i) {
      std::vector<flux::deferred_span>& deferred = m.at(i)->deferred;
      if (deferred.size() == deferred.capacity())
        deferred.reserve(std::max<std::size_t>(16, 2 * deferred.capacity()));
    }
  } catch (const std::bad_alloc&) {
    return false;
  }
  const leasehold::interval<tick> span{start, flux::wrapped_end(start, duration)};
  const bool booked = std::visit(
      [&](auto& jp) {
        if constexpr (!std::is_same_v<std::decay_t<decltype(jp)>, std::monostate>) {
          auto a = zero_of<typename std::decay_t<decltype(jp)>::capacity>(m.size());
          for (std::size_t j = 0; j < m.size(); ++j) a[j] = static_cast<units>(requests[j]);
          if (leasehold::is_zero(a)) return true;
          try {
            jp.profile.reserve(span, a);
          } catch (const std::exception&) {
            return false;  // no room (or no memory): nothing changed
          }
          return true;
        } else {
          return false;
        }
      },
      m.joint);
  if (!booked) return false;
  // Nothing below throws: room for every deferred span and for the ids was made.
  for (std::size_t i = 0; i < m.size(); ++i) {
    planner_t& p = *m.at(i);
    ids.push_back(static_cast<std::int64_t>(p.next_span_id()));
    p.deferred.push_back({span.begin, span.end, static_cast<units>(requests[i])});
    ++p.version;
    p.iter_set = false;
    p.restart_iteration();
  }
  m.joint_synced();
  return true;
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
      m->resources.push_back(
          {resource_types[i], resource_totals[i], std::unique_ptr<planner_t>(p)});
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
  // Span ids from before the reset stay in the span map and may name spans made since.
  ctx->reset_mark = ctx->span_counter;
  ctx->joint_edges_lead = false;
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

int64_t planner_multi_avail_time_first(planner_multi_t* ctx, int64_t on_or_after, uint64_t duration,
                                       const uint64_t* resource_requests, size_t len) {
  if (!ctx || !resource_requests || ctx->size() < 1 || ctx->size() != len) return fail(EINVAL);
  ctx->on_or_after = on_or_after;
  ctx->duration = duration;
  try {
    const std::vector<std::uint64_t*>& slots = ctx->slots();
    for (size_t i = 0; i < len; ++i) *slots[i] = resource_requests[i];
  } catch (const std::bad_alloc&) {
    return fail(ENOMEM);
  }
  // The first type's planner is searched as planner_avail_time_first would be, and keeps the
  // request for its own planner_avail_time_next.
  planner_t& lead = *ctx->at(0);
  if (on_or_after < lead.start || on_or_after >= lead.end || duration < 1) return fail(EINVAL);
  const auto amount = static_cast<units>(resource_requests[0]);
  if (amount > lead.total) return fail(ERANGE);
  lead.iter_set = true;
  lead.request = {.on_or_after = on_or_after, .duration = duration, .amount = amount};
  lead.restart_iteration();
  joint_list others;
  const bool possible = joint_requests(
      *ctx, duration, [&](std::size_t i) { return resource_requests[i]; }, others);
  return search(*ctx, lead, possible ? &others : nullptr);
}

int64_t planner_multi_avail_time_next(planner_multi_t* ctx) {
  if (!ctx || ctx->size() < 1) return fail(EINVAL);
  planner_t& lead = *ctx->at(0);
  if (!lead.iter_set) return fail(EINVAL);
  if (lead.request.amount > lead.total) return fail(ERANGE);
  joint_list others;
  const bool possible = joint_requests(
      *ctx, ctx->duration,
      [&](std::size_t i) {
        const auto found = ctx->counts.find(ctx->resources[i].type);
        return found == ctx->counts.end() ? std::uint64_t{0} : found->second;
      },
      others);
  return search(*ctx, lead, possible ? &others : nullptr);
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

int planner_multi_avail_resources_array_during(planner_multi_t* ctx, int64_t at, uint64_t duration,
                                               int64_t* resource_counts, size_t len) {
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
  decltype(ctx->spans)::iterator entry;
  try {
    // Ids only grow: the hint appends in constant time.
    const std::size_t before = ctx->spans.size();
    entry = ctx->spans.try_emplace(ctx->spans.end(), id);
    if (ctx->spans.size() == before) return fail(EEXIST);
    entry->second.reserve(len);
  } catch (const std::bad_alloc&) {
    return fail(ENOMEM);
  }
  ++ctx->span_counter;
  const bool was_current = ctx->joint_current();
  span_ids& ids = entry->second;
  if (was_current && add_deferred(*ctx, start_time, duration, resource_requests, ids))
    return static_cast<int64_t>(id);
  for (std::size_t i = 0; i < len; ++i) {
    // A type that refuses leaves the earlier types' spans in place, as Flux does.
    const int64_t span = planner_add_span(ctx->at(i), start_time, duration, resource_requests[i]);
    if (span == -1) {
      ctx->spans.erase(entry);
      return -1;
    }
    ids.push_back(span);
  }
  if (was_current) {
    type_amounts amounts(len);
    for (std::size_t i = 0; i < len; ++i) amounts[i] = static_cast<units>(resource_requests[i]);
    ctx->joint_apply(true, start_time, flux::wrapped_end(start_time, duration), amounts, 1);
  }
  return static_cast<int64_t>(id);
}

int planner_multi_rem_span(planner_multi_t* ctx, int64_t span_id) {
  if (!ctx || span_id < 0) return fail(EINVAL);
  const auto found = ctx->spans.find(static_cast<std::uint64_t>(span_id));
  if (found == ctx->spans.end()) return fail(ENOENT);
  // The joint profile gives back what the per-type spans held, when they share one span (after
  // a reset of the planners, old ids may name spans made since, as in Flux).
  bool was_current = ctx->joint_current();
  // A span from before a reset, or one that some type no longer has, may leave another type's
  // span without its lead span.
  if (static_cast<std::uint64_t>(span_id) < ctx->reset_mark ||
      std::find(found->second.begin(), found->second.end(), -1) != found->second.end())
    ctx->joint_edges_lead = false;
  type_amounts amounts(ctx->size(), 0);
  std::optional<leasehold::interval<tick>> held;
  for (std::size_t i = 0; i < found->second.size(); ++i) {
    const std::int64_t span = found->second[i];
    if (span == -1) continue;
    if (i >= ctx->size()) return fail(EINVAL);  // a type dropped by planner_multi_update
    const tick begin = planner_span_start_time(ctx->at(i), span);
    const leasehold::interval<tick> here{begin, begin + planner_span_duration(ctx->at(i), span)};
    if (held && !(*held == here)) was_current = false;
    held = here;
    amounts[i] = std::max<units>(planner_span_resource_count(ctx->at(i), span), 0);
    if (planner_rem_span(ctx->at(i), span) == -1) return -1;
  }
  const auto [begin, end] = held.value_or(leasehold::interval<tick>{0, 0});
  ctx->spans.erase(found);
  ctx->joint_apply(was_current, begin, end, amounts, -1);
  return 0;
}

int planner_multi_reduce_span(planner_multi_t* ctx, int64_t span_id, const uint64_t* reduced_totals,
                              const char** resource_types, size_t len, bool& removed) {
  removed = false;
  if (!ctx || span_id < 0 || !reduced_totals || !resource_types) return fail(EINVAL);
  const auto found = ctx->spans.find(static_cast<std::uint64_t>(span_id));
  if (found == ctx->spans.end()) return fail(ENOENT);
  span_ids& ids = found->second;
  ctx->joint_edges_lead = false;  // the lead's span may go while the others' stay
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
  if (!lhs->settle_all() || !rhs->settle_all()) return false;
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
  ctx->count_slots_stale = true;              // types may be added, dropped or moved
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
          ctx->resources.insert(
              ctx->resources.begin() + static_cast<std::ptrdiff_t>(std::min(target, ctx->size())),
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
