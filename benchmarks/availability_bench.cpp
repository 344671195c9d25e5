// Benchmarks of every availability backend on the same seeded workloads (docs/performance.md
// has the figures, the machine and the commands).
//
//   append/<backend>/<N>   earliest_fit + reserve pairs at N live reservations on 128 units,
//                          every window from 0 to forever (the planner's worst case: the
//                          search starts at the origin and the profile only grows); also
//                          free_tree's threshold variants (free_tree_16, free_tree_0), N =
//                          1,000,000, and resources<4> of {128, 128, 128, 128} (the *_vec4 rows,
//                          and *_dyn4 for dynamic_resources<units, 8> with four components)
//   append_build/<backend>/<N>   one pass from an empty profile to N append reservations
//   churn/<backend>/<N>    an online steady state of about N live reservations: time advances,
//                          the past is dropped with advance_to, jobs that end early release
//                          the rest of their booking, arrivals book inside a window; also
//                          resources<4> of 3 N units each (the *_vec4 rows), and the same
//                          four components as a dynamic_resources<units, 8> (the *_dyn4 rows)
//   earliest_fit/<backend>/<N>   the search alone on the append profile at N, with windows
//                          that begin anywhere in the booked time line (nothing is booked)
//   free_at/<backend>/<N>, min_free/<backend>/<N>   queries at N live reservations
//   walk/<backend>/<N>     the next walk_length blocks from a random time of the append
//                          profile at N, through leasehold::blocks_from (a lazy view for the
//                          backends that model walkable_availability, a copy of free_blocks()
//                          for the others); items/s = blocks visited per second
//   walk_copy/<backend>/<N>   the same walk found in a copy of free_blocks(), as a caller
//                          without blocks_from does it: the baseline of the walk rows
//   next_change/<backend>/<N>   leasehold::next_change at random times of that profile
//
// Each backend is ONE line in register_all() at the bottom. A backend is described by a
// factory (`unbounded<B>` for the exact backends, `slotted<Slots>` for the ring) that builds
// it for a given book-ahead, which only the ring needs.
//
// Time is in milliseconds so that the finest ring has whole-tick slots; every duration is a
// whole number of seconds, so the exact backends see the same profile they would in seconds.
//
// Bytes per live reservation come from counting every heap allocation of this binary (the
// replaced global operator new / delete below), which works for every backend alike.

#include <benchmark/benchmark.h>

#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <functional>
#include <initializer_list>
#include <limits>
#include <map>
#include <memory>
#include <new>
#include <optional>
#include <queue>
#include <random>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include <leasehold/leasehold.hpp>

// ---- Counting allocator -------------------------------------------------------------------
// Every allocation carries a header with its size, so that unsized delete can subtract it.
// Single-threaded benchmark: a plain counter is enough.

namespace {
constexpr std::size_t allocation_header = alignof(std::max_align_t);
std::int64_t live_heap_bytes = 0;

void* counted_allocate(std::size_t size) {
  void* raw = std::malloc(size + allocation_header);
  if (raw == nullptr) return nullptr;
  *static_cast<std::size_t*>(raw) = size;
  live_heap_bytes += static_cast<std::int64_t>(size);
  return static_cast<char*>(raw) + allocation_header;
}

void counted_free(void* p) noexcept {
  if (p == nullptr) return;
  void* raw = static_cast<char*>(p) - allocation_header;
  live_heap_bytes -= static_cast<std::int64_t>(*static_cast<std::size_t*>(raw));
  std::free(raw);
}

void* counted_allocate_or_throw(std::size_t size) {
  if (void* p = counted_allocate(size)) return p;
  throw std::bad_alloc();
}
}  // namespace

void* operator new(std::size_t size) { return counted_allocate_or_throw(size); }
void* operator new[](std::size_t size) { return counted_allocate_or_throw(size); }
void* operator new(std::size_t size, const std::nothrow_t&) noexcept {
  return counted_allocate(size);
}
void* operator new[](std::size_t size, const std::nothrow_t&) noexcept {
  return counted_allocate(size);
}
void operator delete(void* p) noexcept { counted_free(p); }
void operator delete[](void* p) noexcept { counted_free(p); }
void operator delete(void* p, std::size_t) noexcept { counted_free(p); }
void operator delete[](void* p, std::size_t) noexcept { counted_free(p); }
void operator delete(void* p, const std::nothrow_t&) noexcept { counted_free(p); }
void operator delete[](void* p, const std::nothrow_t&) noexcept { counted_free(p); }

namespace {

using tick = std::int64_t;  // milliseconds
using units = std::int64_t;
using request_type = leasehold::request<tick, units>;

constexpr tick second = 1000;
constexpr tick hour = 3600 * second;
constexpr units append_total = 128;

// ---- Backend factories ----------------------------------------------------------------------

// An exact backend: needs nothing but its capacity.
template <class Backend>
struct unbounded {
  using type = Backend;
  static constexpr bool exact = true;
  static type make(typename Backend::capacity_type total, tick /*book_ahead*/) {
    return type(total);
  }
};

// Schneider & Linnert §4: the book-ahead horizon divided into Slots slots of width dt. The
// benchmark sizes the horizon to its workload (see append_book_ahead and churn_book_ahead).
template <std::size_t Slots>
struct slotted {
  using type = leasehold::slotted_ring<tick, units>;
  static constexpr bool exact = false;
  static type make(units total, tick book_ahead) {
    const auto slots = static_cast<tick>(Slots);
    return type(total, (book_ahead + slots - 1) / slots, Slots);
  }
};

// ---- Workloads ------------------------------------------------------------------------------

// The capacity of the append workload: 128 units, or {128, 128, 128, 128} for the vector
// rows (every component of a request uniform in [1, 128] then).
template <class C>
C append_total_of() {
  if constexpr (leasehold::vector_capacity<C>)
    return C{append_total, append_total, append_total, append_total};
  else
    return C{append_total};
}

template <class C>
using append_request = leasehold::request<tick, C>;

// The horizon the ring needs to hold N append reservations. First fit packs these requests
// into about 940 s of time line per reservation (measured: the latest end is 9.58e6 s at N =
// 10,000 and 9.37e7 s at N = 100,000). The ring gets four times that as its book-ahead, so
// that even its coarse slots (every booking rounded out to whole slots) leave room for N
// reservations; where they cannot, the benchmark says so.
// The timed batch after N: 1 % of N, at least 32 pairs.
std::size_t append_batch(std::size_t live) { return std::max<std::size_t>(live / 100, 32); }
// The last reservations of an exact backend's snapshot that its own searches place (see
// append_state): a few review periods of free_tree's.
std::size_t append_warm_up(std::size_t live) { return std::min<std::size_t>(live, 4096); }

tick append_book_ahead(std::size_t live) { return static_cast<tick>(live) * 4 * 940 * second; }

// The largest N of any append row: scalar capacities go to 1,000,000 (free_tree only), the
// vector rows to 100,000.
template <class C>
constexpr std::size_t append_max_live = leasehold::vector_capacity<C> ? 100'000 : 1'000'000;

// The append requests (the item 1): amount uniform in [1, 128] (per component for
// vectors), duration uniform in [1, 3600] s, window from 0 to forever. N requests to build the
// profile, then the timed batches; drawn once, before any byte is counted.
template <class C>
const std::vector<append_request<C>>& append_pool_requests() {
  static const std::vector<append_request<C>> requests = [] {
    std::mt19937_64 random(20240601);
    std::uniform_int_distribution<units> amount(1, append_total);
    std::uniform_int_distribution<tick> seconds(1, 3600);
    const std::size_t count = append_max_live<C> + append_batch(append_max_live<C>) + 1;
    std::vector<append_request<C>> result(count);
    for (append_request<C>& r : result) {
      if constexpr (leasehold::vector_capacity<C>) {
        r.amount = append_total_of<C>();  // four components, for dynamic_resources too
        for (auto& component : r.amount) component = amount(random);
      } else {
        r.amount = amount(random);
      }
      r.duration = seconds(random) * second;  // drawn after the amount: a fixed order
      r.window = {0, leasehold::forever<tick>};
    }
    return result;
  }();
  return requests;
}

// The profile after the first N append pairs, built once per backend and N outside every
// timer, with the heap bytes it holds.
template <class Backend>
struct append_snapshot {
  Backend profile;
  std::size_t live = 0;
  tick extent = 0;  // end of the latest reservation
  std::int64_t heap_bytes = 0;
  std::size_t failures = 0;      // requests that found no room (only a full ring horizon)
  std::size_t next_request = 0;  // the first request the timed batches use
};

// The fastest exact backend at append, for each kind of capacity (docs/performance.md).
template <class C>
using placement_oracle = leasehold::free_tree<tick, C>;

// The starts first fit gives the append requests in order. Exact backends agree on every
// answer (DESIGN.md; the conformance suite checks it), so they all build their snapshots by
// reserving these spans: O(log n) a booking instead of an O(n) search, which turns minutes
// of set-up at N = 100,000 into seconds. The ring rounds to slots and searches for itself.
// The oracle goes only as far as the largest N asked for so far.
template <class C>
const std::vector<tick>& exact_starts(std::size_t count) {
  static placement_oracle<C> profile(append_total_of<C>());
  static std::vector<tick> starts;
  const auto& requests = append_pool_requests<C>();
  if (starts.size() < count) starts.reserve(count);
  while (starts.size() < count) {
    const append_request<C>& r = requests[starts.size()];
    const tick start = *profile.earliest_fit(r);  // an unbounded profile always fits
    profile.reserve({start, start + r.duration}, r.amount);
    starts.push_back(start);
  }
  return starts;
}

template <class Factory>
const append_snapshot<typename Factory::type>& append_state(std::size_t live) {
  using backend = typename Factory::type;
  using C = typename backend::capacity_type;
  static std::map<std::size_t, std::unique_ptr<append_snapshot<backend>>> cache;
  if (auto found = cache.find(live); found != cache.end()) return *found->second;

  const auto& requests = append_pool_requests<C>();
  const std::size_t needed = live + append_batch(live) + 1;
  if constexpr (Factory::exact) (void)exact_starts<C>(needed);  // before the byte count
  const std::int64_t baseline = live_heap_bytes;
  backend profile = Factory::make(append_total_of<C>(), append_book_ahead(live));
  std::size_t failures = 0;
  tick extent = 0;
  std::size_t booked = 0;
  std::size_t i = 0;
  // A ring may reject some requests (its horizon is fixed); it is measured at N only if it
  // books N of the first N + append_batch(N) requests. The last append_warm_up(N) of an exact
  // backend's are placed by its own searches, as on an append workload: a backend that adapts
  // to what its searches meet (free_tree keeps its summaries only while searches use them)
  // starts the timed batches in the state such a workload leaves it in, not in the one that
  // bookings alone leave.
  for (; booked < live && i < live + append_batch(live); ++i) {
    const append_request<C>& r = requests[i];
    std::optional<tick> start;
    if constexpr (Factory::exact) {
      start = exact_starts<C>(needed)[i];
      if (i + append_warm_up(live) >= live && profile.earliest_fit(r) != start)
        throw std::logic_error("an exact backend disagrees with the placement oracle");
    } else {
      start = profile.earliest_fit(r);
    }
    if (start) {
      profile.reserve({*start, *start + r.duration}, r.amount);
      extent = std::max(extent, *start + r.duration);
      ++booked;
    } else {
      ++failures;
    }
  }
  const std::int64_t structure_bytes = live_heap_bytes - baseline;
  // Spot check of the shared placements: this backend's own answer to the next request.
  if constexpr (Factory::exact)
    if (profile.earliest_fit(requests[i]) != exact_starts<C>(needed)[i])
      throw std::logic_error("an exact backend disagrees with the placement oracle");
  auto snapshot = std::make_unique<append_snapshot<backend>>(
      append_snapshot<backend>{.profile = std::move(profile),
                               .live = booked,
                               .extent = extent,
                               .heap_bytes = structure_bytes,
                               .failures = failures,
                               .next_request = i});
  return *cache.emplace(live, std::move(snapshot)).first->second;
}

// ---- append -------------------------------------------------------------------------------

// "At N" means: the structure holds N live reservations (built outside the timer), and the
// timed work is the next append_batch(N) earliest_fit + reserve pairs, run on a fresh copy
// each iteration (the copy is made with the timer paused).
template <class Factory>
void bm_append(benchmark::State& state) {
  using C = typename Factory::type::capacity_type;
  const auto live = static_cast<std::size_t>(state.range(0));
  const auto& snapshot = append_state<Factory>(live);
  if (snapshot.live < live) {
    state.SkipWithError("the ring's horizon cannot hold N of these reservations");
    return;
  }
  const std::size_t batch = append_batch(live);
  const auto& requests = append_pool_requests<C>();
  auto profile = snapshot.profile;
  std::size_t found = 0;
  for (auto _ : state) {
    state.PauseTiming();
    profile = snapshot.profile;
    state.ResumeTiming();
    for (std::size_t i = 0; i < batch; ++i) {
      const append_request<C>& r = requests[snapshot.next_request + i];
      const auto start = profile.earliest_fit(r);
      benchmark::DoNotOptimize(start);
      if (start) {
        profile.reserve({*start, *start + r.duration}, r.amount);
        ++found;
      }
    }
    benchmark::ClobberMemory();
  }
  state.SetItemsProcessed(static_cast<std::int64_t>(state.iterations()) *
                          static_cast<std::int64_t>(batch));
  state.counters["bytes_per_live"] =
      static_cast<double>(snapshot.heap_bytes) / static_cast<double>(snapshot.live);
  state.counters["blocks"] = static_cast<double>(snapshot.profile.block_count());
  state.counters["failures"] = static_cast<double>(snapshot.failures);
  state.counters["found"] = static_cast<double>(found) /
                            (static_cast<double>(state.iterations()) * static_cast<double>(batch));
}

// The whole growth from an empty profile to N reservations, one earliest_fit + reserve pair at
// a time, with the backend's own search (no oracle): the rate is the average over the growth.
// Exact backends only (the ring's horizon would have to be sized for it).
template <class Factory>
void bm_append_build(benchmark::State& state) {
  using C = typename Factory::type::capacity_type;
  const auto live = static_cast<std::size_t>(state.range(0));
  const auto& requests = append_pool_requests<C>();
  std::size_t blocks = 0;
  for (auto _ : state) {
    auto profile = Factory::make(append_total_of<C>(), 0);
    for (std::size_t i = 0; i < live; ++i) {
      const append_request<C>& r = requests[i];
      const tick start = *profile.earliest_fit(r);
      profile.reserve({start, start + r.duration}, r.amount);
    }
    blocks = profile.block_count();
    benchmark::DoNotOptimize(blocks);
  }
  state.SetItemsProcessed(static_cast<std::int64_t>(state.iterations()) *
                          static_cast<std::int64_t>(live));
  state.counters["blocks"] = static_cast<double>(blocks);
}

// ---- queries --------------------------------------------------------------------------------

constexpr std::size_t query_count = 4096;  // a power of two: the loop cycles with a mask

// The search alone, with a window: query_count requests (amount uniform in [1, 128], duration
// uniform in [1, 3600] s) whose window begins anywhere in the booked part of the time line
// and lasts the duration plus up to 4 h, asked in turn of the profile at N, which stays as it
// is. Unlike append's windows from 0, the search starts inside the schedule, so this is what
// a policy probing candidate requests pays (Schneider & Linnert's Fig. 4 skips whole subtrees
// of blocks too short here). `found` is the share of requests that fit.
template <class Factory>
void bm_earliest_fit(benchmark::State& state) {
  const auto live = static_cast<std::size_t>(state.range(0));
  const auto& snapshot = append_state<Factory>(live);
  if (snapshot.live < live) {
    state.SkipWithError("the ring's horizon cannot hold N of these reservations");
    return;
  }
  std::mt19937_64 random(9);
  std::uniform_int_distribution<units> amount(1, append_total);
  std::uniform_int_distribution<tick> seconds(1, 3600);
  std::uniform_int_distribution<tick> begin(0, snapshot.extent - 1);
  std::uniform_int_distribution<tick> slack(0, 4 * hour);
  std::vector<request_type> requests(query_count);
  for (auto& r : requests) {
    r.amount = amount(random);
    r.duration = seconds(random) * second;
    r.window.begin = begin(random);
    r.window.end = r.window.begin + r.duration + slack(random);
  }
  std::size_t i = 0;
  std::size_t found = 0;
  for (auto _ : state) {
    const auto start = snapshot.profile.earliest_fit(requests[i]);
    benchmark::DoNotOptimize(start);
    if (start) ++found;
    i = (i + 1) & (query_count - 1);
  }
  state.SetItemsProcessed(static_cast<std::int64_t>(state.iterations()));
  state.counters["found"] = static_cast<double>(found) / static_cast<double>(state.iterations());
}

// The searches of the append pairs after N (from the origin to forever), with nothing booked,
// on the snapshot as its reserves left it, or laid out afresh by compact() (`Compacted`).
// The append rows book on a fresh copy each iteration, and a copy is laid out afresh too; a
// structure that lives for months never is, unless its owner compacts it. items/s =
// searches per second.
template <class Factory, bool Compacted>
void bm_append_search(benchmark::State& state) {
  using backend = typename Factory::type;
  using C = typename backend::capacity_type;
  const auto live = static_cast<std::size_t>(state.range(0));
  const auto& snapshot = append_state<Factory>(live);
  const auto& requests = append_pool_requests<C>();
  const std::size_t batch = append_batch(live);
  std::optional<backend> compacted;
  if constexpr (Compacted) {
    compacted.emplace(snapshot.profile);
    compacted->compact();
  }
  const backend& profile = Compacted ? *compacted : snapshot.profile;
  std::size_t i = 0;
  for (auto _ : state) {
    benchmark::DoNotOptimize(profile.earliest_fit(requests[snapshot.next_request + i]));
    i = i + 1 == batch ? 0 : i + 1;
  }
  state.SetItemsProcessed(static_cast<std::int64_t>(state.iterations()));
}

template <class Factory>
void bm_free_at(benchmark::State& state) {
  const auto live = static_cast<std::size_t>(state.range(0));
  const auto& snapshot = append_state<Factory>(live);
  if (snapshot.live < live) {
    state.SkipWithError("the ring's horizon cannot hold N of these reservations");
    return;
  }
  std::mt19937_64 random(7);
  std::uniform_int_distribution<tick> at(0, snapshot.extent - 1);
  std::vector<tick> times(query_count);
  for (tick& t : times) t = at(random);
  std::size_t i = 0;
  for (auto _ : state) {
    benchmark::DoNotOptimize(snapshot.profile.free_at(times[i]));
    i = (i + 1) & (query_count - 1);
  }
  state.SetItemsProcessed(static_cast<std::int64_t>(state.iterations()));
}

template <class Factory>
void bm_min_free(benchmark::State& state) {
  const auto live = static_cast<std::size_t>(state.range(0));
  const auto& snapshot = append_state<Factory>(live);
  if (snapshot.live < live) {
    state.SkipWithError("the ring's horizon cannot hold N of these reservations");
    return;
  }
  // Spans of 1 s to 4 h starting anywhere in the booked part of the time line.
  std::mt19937_64 random(8);
  std::uniform_int_distribution<tick> begin(0, snapshot.extent - 4 * hour - 1);
  std::uniform_int_distribution<tick> seconds(1, 4 * 3600);
  std::vector<leasehold::interval<tick>> spans(query_count);
  for (auto& span : spans) {
    span.begin = begin(random);
    span.end = span.begin + seconds(random) * second;
  }
  std::size_t i = 0;
  for (auto _ : state) {
    benchmark::DoNotOptimize(snapshot.profile.min_free(spans[i]));
    i = (i + 1) & (query_count - 1);
  }
  state.SetItemsProcessed(static_cast<std::int64_t>(state.iterations()));
}

// ---- walking the profile ----------------------------------------------------------------

void register_sizes(const std::string& family, const std::string& name,
                    void (*bm)(benchmark::State&), std::initializer_list<std::int64_t> sizes);

// How many blocks a walk visits: "the next few candidate times" of a scheduler.
constexpr std::size_t walk_length = 16;

// Random times in the booked part of the append profile at N (and the block count there).
template <class Factory>
const append_snapshot<typename Factory::type>* walk_state(benchmark::State& state,
                                                          std::vector<tick>& times,
                                                          std::uint64_t seed) {
  const auto live = static_cast<std::size_t>(state.range(0));
  const auto& snapshot = append_state<Factory>(live);
  if (snapshot.live < live) {
    state.SkipWithError("the ring's horizon cannot hold N of these reservations");
    return nullptr;
  }
  std::mt19937_64 random(seed);
  std::uniform_int_distribution<tick> at(0, snapshot.extent - 1);
  times.resize(query_count);
  for (tick& t : times) t = at(random);
  state.counters["blocks"] = static_cast<double>(snapshot.profile.block_count());
  return &snapshot;
}

template <class Factory>
void bm_walk(benchmark::State& state) {
  std::vector<tick> times;
  const auto* snapshot = walk_state<Factory>(state, times, 10);
  if (snapshot == nullptr) return;
  std::size_t i = 0;
  std::size_t visited = 0;
  for (auto _ : state) {
    std::size_t k = 0;
    for (const auto& block : leasehold::blocks_from(snapshot->profile, times[i])) {
      benchmark::DoNotOptimize(block);
      if (++k == walk_length) break;
    }
    visited += k;
    i = (i + 1) & (query_count - 1);
  }
  state.SetItemsProcessed(static_cast<std::int64_t>(visited));
}

template <class Factory>
void bm_walk_copy(benchmark::State& state) {
  std::vector<tick> times;
  const auto* snapshot = walk_state<Factory>(state, times, 10);
  if (snapshot == nullptr) return;
  std::size_t i = 0;
  std::size_t visited = 0;
  for (auto _ : state) {
    const auto blocks = snapshot->profile.free_blocks();
    auto it = std::ranges::upper_bound(blocks, times[i], {},
                                       [](const auto& block) { return block.span.begin; });
    std::size_t k = 0;
    for (--it; it != blocks.end() && k < walk_length; ++it, ++k) benchmark::DoNotOptimize(*it);
    visited += k;
    i = (i + 1) & (query_count - 1);
  }
  state.SetItemsProcessed(static_cast<std::int64_t>(visited));
}

template <class Factory>
void bm_next_change(benchmark::State& state) {
  std::vector<tick> times;
  const auto* snapshot = walk_state<Factory>(state, times, 11);
  if (snapshot == nullptr) return;
  std::size_t i = 0;
  for (auto _ : state) {
    benchmark::DoNotOptimize(leasehold::next_change(snapshot->profile, times[i]));
    i = (i + 1) & (query_count - 1);
  }
  state.SetItemsProcessed(static_cast<std::int64_t>(state.iterations()));
}

// The walk rows of one backend at the given sizes; `with_copy` adds its walk_copy baseline.
template <class Factory>
void register_walk(const std::string& name, std::initializer_list<std::int64_t> sizes,
                   bool with_copy) {
  register_sizes("walk", name, bm_walk<Factory>, sizes);
  if (with_copy) register_sizes("walk_copy", name, bm_walk_copy<Factory>, sizes);
  register_sizes("next_change", name, bm_next_change<Factory>, sizes);
}

// ---- churn ----------------------------------------------------------------------------------

// One arrival of the online workload, drawn once outside the timer and replayed cyclically.
struct arrival {
  tick gap;       // since the previous arrival
  units amount;   // uniform in [1, 128]
  tick duration;  // uniform in [1, 3600] s
  tick notice;    // window begin - arrival: uniform in [0, 24 h]
  tick slack;     // window length - duration: uniform in [0, 3 x duration]
  tick used;      // how long the job really runs: half end early, uniformly inside the booking
  std::array<units, 3> more;  // the other components of the vector rows' amount, likewise
};

// Little's law sizes the workload: a reservation is live from its booking until it ends,
// about 12 h of notice + 0.5 h of run = 45,000 s on average, so N live reservations need an
// arrival every 45,000 / N s; at 128 units only ~100 such reservations would fit, so the
// capacity grows with N (3 N units: about 85% of it is booked at the steady state).
constexpr tick mean_lifetime = 45'000 * second;
// The vector rows: 3 N units in each of the four components.
template <class C>
C churn_total_of(std::size_t live) {
  const auto total = static_cast<units>(3 * live);
  if constexpr (leasehold::vector_capacity<C>)
    return C{total, total, total, total};
  else
    return C{total};
}

template <class C>
C amount_of(const arrival& a) {
  if constexpr (leasehold::vector_capacity<C>)
    return C{a.amount, a.more[0], a.more[1], a.more[2]};
  else
    return C{a.amount};
}
constexpr tick churn_book_ahead = 30 * hour;  // 24 h notice + 4 x 1 h window, with room

constexpr std::size_t arrival_cycle = 1 << 16;

std::vector<arrival> churn_arrivals(std::size_t live) {
  std::mt19937_64 random(20240602 + live);
  std::exponential_distribution<double> gap(static_cast<double>(live) /
                                            static_cast<double>(mean_lifetime));
  std::uniform_int_distribution<units> amount(1, 128);
  std::uniform_int_distribution<tick> seconds(1, 3600);
  std::uniform_int_distribution<tick> notice(0, 24 * hour);
  std::uniform_real_distribution<double> fraction(0.0, 1.0);
  std::bernoulli_distribution ends_early(0.5);
  std::vector<arrival> arrivals(arrival_cycle);
  for (arrival& a : arrivals) {
    a.gap = static_cast<tick>(gap(random));
    a.amount = amount(random);
    a.duration = seconds(random) * second;
    a.notice = notice(random);
    a.slack = static_cast<tick>(fraction(random) * 3.0 * static_cast<double>(a.duration));
    a.used = ends_early(random)
                 ? std::max<tick>(
                       1, static_cast<tick>(fraction(random) * static_cast<double>(a.duration)))
                 : a.duration;
  }
  // From a generator of their own, so that the scalar rows' arrivals stay as they were.
  std::mt19937_64 components(20240603 + live);
  for (arrival& a : arrivals)
    for (units& c : a.more) c = amount(components);
  return arrivals;
}

// The online simulation: a min-heap of booked jobs keyed by when they stop using their
// booking. Every backend call it makes is counted as one operation.
template <class Backend>
class churn_run {
  using capacity = typename Backend::capacity_type;

 public:
  churn_run(Backend profile, std::size_t live)
      : profile_(std::move(profile)), arrivals_(churn_arrivals(live)) {
    std::vector<job> storage;
    storage.reserve(8 * live + 1024);  // no growth inside the timer or the byte count
    running_ = decltype(running_)(std::greater<>{}, std::move(storage));
  }

  // Handles the next arrival: drops the past, releases what jobs ending early leave unused,
  // then books the arrival if it fits. Returns the number of backend calls.
  std::size_t step() {
    const arrival& a = arrivals_[next_++ & (arrival_cycle - 1)];
    now_ += a.gap;
    profile_.advance_to(now_);
    std::size_t calls = 2;  // advance_to + earliest_fit
    while (!running_.empty() && running_.top().stops <= now_) {
      const job done = running_.top();
      running_.pop();
      if (done.ends > now_) {  // ended early: give back the rest of the booking
        profile_.release({now_, done.ends}, done.amount);
        ++calls;
      }
    }
    const tick begin = now_ + a.notice;
    const leasehold::request<tick, capacity> r{.amount = amount_of<capacity>(a),
                                               .duration = a.duration,
                                               .window = {begin, begin + a.duration + a.slack}};
    const auto start = profile_.earliest_fit(r);
    benchmark::DoNotOptimize(start);
    if (start) {
      profile_.reserve({*start, *start + a.duration}, r.amount);
      running_.push({*start + a.used, *start + a.duration, r.amount});
      ++calls;
      ++accepted_;
    }
    return calls;
  }

  [[nodiscard]] std::size_t live() const { return running_.size(); }
  [[nodiscard]] std::size_t accepted() const { return accepted_; }
  [[nodiscard]] const Backend& profile() const { return profile_; }

 private:
  struct job {
    tick stops;  // when the job stops using its booking
    tick ends;   // when its booking ends
    capacity amount;
    friend bool operator>(const job& a, const job& b) { return a.stops > b.stops; }
  };

  Backend profile_;
  std::vector<arrival> arrivals_;
  std::priority_queue<job, std::vector<job>, std::greater<>> running_;
  std::size_t next_ = 0;
  std::size_t accepted_ = 0;
  tick now_ = 0;
};

// The steady state of one backend at one N, reached once (the warm-up is long at N =
// 100,000) and continued by every repetition: the state stays steady as it runs on.
template <class Backend>
struct churn_state {
  churn_run<Backend> run;
  std::int64_t heap_bytes;  // held by the profile at the end of the warm-up
  std::size_t live;         // live reservations then
};

template <class Factory>
churn_state<typename Factory::type>& churn_steady_state(std::size_t live) {
  using backend = typename Factory::type;
  static std::map<std::size_t, std::unique_ptr<churn_state<backend>>> cache;
  if (auto found = cache.find(live); found != cache.end()) return *found->second;
  const std::int64_t before_profile = live_heap_bytes;
  backend profile =
      Factory::make(churn_total_of<typename backend::capacity_type>(live), churn_book_ahead);
  const std::int64_t initial_bytes = live_heap_bytes - before_profile;
  churn_run<backend> run(std::move(profile), live);
  // Warm-up: three mean lifetimes' worth of arrivals; the longest booking ends within 29 h
  // of its arrival, about 2.3 N arrivals.
  const std::int64_t before_warm_up = live_heap_bytes;
  for (std::size_t i = 0; i < 3 * live; ++i) run.step();
  const std::int64_t bytes = initial_bytes + (live_heap_bytes - before_warm_up);
  const std::size_t live_now = run.live();
  auto state =
      std::make_unique<churn_state<backend>>(churn_state<backend>{std::move(run), bytes, live_now});
  return *cache.emplace(live, std::move(state)).first->second;
}

template <class Factory>
void bm_churn(benchmark::State& state) {
  auto& steady = churn_steady_state<Factory>(static_cast<std::size_t>(state.range(0)));
  auto& run = steady.run;
  const std::size_t live_before = run.live();
  const std::size_t accepted_before = run.accepted();

  std::size_t calls = 0;
  for (auto _ : state) calls += run.step();

  state.SetItemsProcessed(static_cast<std::int64_t>(calls));
  state.counters["arrivals"] =
      benchmark::Counter(static_cast<double>(state.iterations()), benchmark::Counter::kIsRate);
  state.counters["live"] = static_cast<double>(live_before + run.live()) / 2.0;
  state.counters["accepted"] = static_cast<double>(run.accepted() - accepted_before) /
                               static_cast<double>(state.iterations());
  state.counters["bytes_per_live"] =
      static_cast<double>(steady.heap_bytes) / static_cast<double>(steady.live);
}

// ---- Registration ---------------------------------------------------------------------------

constexpr std::size_t all_sizes[] = {1'000, 10'000, 100'000};

// The churn's capacity grows with N while its 28 h window does not: about 2 N blocks share
// 100,800 s, so a half-hour booking crosses about 0.036 N blocks (3,600 at N = 100,000) and
// the warm-up of 300,000 arrivals would take minutes per backend. The suite stops at 10,000.
constexpr std::size_t churn_max_live = 10'000;

// Registers every benchmark family for one backend, at each N up to max_live (the O(n)
// reference would take hours at 100,000).
template <class Factory>
void register_backend(const std::string& name, std::size_t max_live) {
  for (const std::size_t live : all_sizes) {
    if (live > max_live) continue;
    const auto n = static_cast<std::int64_t>(live);
    benchmark::RegisterBenchmark(("append/" + name).c_str(), bm_append<Factory>)
        ->Arg(n)
        ->Unit(benchmark::kMicrosecond);
    if (live <= churn_max_live)
      benchmark::RegisterBenchmark(("churn/" + name).c_str(), bm_churn<Factory>)
          ->Arg(n)
          ->Unit(benchmark::kMicrosecond);
    benchmark::RegisterBenchmark(("earliest_fit/" + name).c_str(), bm_earliest_fit<Factory>)
        ->Arg(n);
    benchmark::RegisterBenchmark(("free_at/" + name).c_str(), bm_free_at<Factory>)->Arg(n);
    benchmark::RegisterBenchmark(("min_free/" + name).c_str(), bm_min_free<Factory>)->Arg(n);
  }
}

// One workload alone (`bm`, named `family`), at the given sizes: the append rows of free_tree's
// thresholds (its third template parameter), the 1,000,000 row and the vector capacities; the
// churn rows of the vector capacities.
void register_sizes(const std::string& family, const std::string& name,
                    void (*bm)(benchmark::State&), std::initializer_list<std::int64_t> sizes) {
  for (const std::int64_t n : sizes)
    benchmark::RegisterBenchmark((family + "/" + name).c_str(), bm)
        ->Arg(n)
        ->Unit(benchmark::kMicrosecond);
}
template <class Factory>
void register_append(const std::string& name, std::initializer_list<std::int64_t> sizes) {
  register_sizes("append", name, bm_append<Factory>, sizes);
}
template <class Factory>
void register_churn(const std::string& name, std::initializer_list<std::int64_t> sizes) {
  register_sizes("churn", name, bm_churn<Factory>, sizes);
}

// One pass from empty to N (a single iteration: at 1,000,000 it takes seconds).
template <class Factory>
void register_append_build(const std::string& name, std::initializer_list<std::int64_t> sizes) {
  for (const std::int64_t n : sizes)
    benchmark::RegisterBenchmark(("append_build/" + name).c_str(), bm_append_build<Factory>)
        ->Arg(n)
        ->Iterations(1)
        ->Unit(benchmark::kMillisecond);
}

using vector4 = leasehold::resources<4, units>;
// The same four components, counted at run time, in room for eight.
using dynamic4 = leasehold::dynamic_resources<units, 8>;
using dynamic4_in_4 = leasehold::dynamic_resources<units, 4>;

const bool registered = [] {
  register_backend<unbounded<leasehold::reference<tick, units>>>("reference", 10'000);
  register_backend<unbounded<leasehold::free_list<tick, units>>>("free_list", 100'000);
  register_backend<unbounded<leasehold::capacity_tree<tick, units>>>("capacity_tree", 100'000);
  register_backend<unbounded<leasehold::free_tree<tick, units>>>("free_tree", 100'000);
  register_backend<slotted<9'000>>("slotted_ring_9000", 100'000);
  register_backend<slotted<90'000>>("slotted_ring_90000", 100'000);
  register_backend<slotted<900'000>>("slotted_ring_900000", 100'000);

  // free_tree's thresholds per component: 16 (half the default) and 0 (no run-length pruning,
  // plain run-to-run jumps), to show what the pruning buys; and the deepest schedule.
  register_append<unbounded<leasehold::free_tree<tick, units, 16>>>("free_tree_16",
                                                                    {10'000, 100'000});
  register_append<unbounded<leasehold::free_tree<tick, units, 0>>>("free_tree_0",
                                                                   {1'000, 10'000, 100'000});
  register_append<unbounded<leasehold::free_tree<tick, units>>>("free_tree", {1'000'000});
  register_append_build<unbounded<leasehold::free_tree<tick, units>>>("free_tree",
                                                                      {10'000, 100'000, 1'000'000});
  // The layout of a long-lived tree: the append searches on the snapshot as built, and
  // compacted.
  register_sizes("append_search", "free_tree",
                 bm_append_search<unbounded<leasehold::free_tree<tick, units>>, false>,
                 {10'000, 100'000, 1'000'000});
  register_sizes("append_search_compacted", "free_tree",
                 bm_append_search<unbounded<leasehold::free_tree<tick, units>>, true>,
                 {10'000, 100'000, 1'000'000});
  register_append_build<unbounded<leasehold::free_list<tick, units>>>("free_list",
                                                                      {10'000, 100'000});
  // resources<4>: free_tree prunes with its fit corners by default; with 4 thresholds it also
  // keeps run summaries per component.
  register_append<unbounded<leasehold::free_tree<tick, vector4>>>("free_tree_vec4",
                                                                  {1'000, 10'000, 100'000});
  register_append<unbounded<leasehold::free_tree<tick, vector4, 4>>>("free_tree_vec4_4", {10'000});
  register_append<unbounded<leasehold::free_list<tick, vector4>>>("free_list_vec4",
                                                                  {1'000, 10'000, 100'000});
  // resources<4> churn: every component of an amount uniform in [1, 128], 3 N units each.
  register_churn<unbounded<leasehold::free_tree<tick, vector4>>>("free_tree_vec4", {1'000, 10'000});
  register_churn<unbounded<leasehold::free_list<tick, vector4>>>("free_list_vec4", {1'000, 10'000});
  // dynamic_resources<units, 8> with four live components, beside the vec4 rows: what a count
  // chosen at run time costs over one fixed at compile time.
  register_append<unbounded<leasehold::free_tree<tick, dynamic4>>>("free_tree_dyn4", {10'000});
  register_append<unbounded<leasehold::free_list<tick, dynamic4>>>("free_list_dyn4", {10'000});
  register_churn<unbounded<leasehold::free_tree<tick, dynamic4>>>("free_tree_dyn4",
                                                                  {1'000, 10'000});
  register_churn<unbounded<leasehold::free_list<tick, dynamic4>>>("free_list_dyn4",
                                                                  {1'000, 10'000});
  // With room for only four components: a node holds as many bytes as with resources<4>.
  register_append<unbounded<leasehold::free_tree<tick, dynamic4_in_4>>>("free_tree_dyn4_max4",
                                                                        {10'000});
  register_churn<unbounded<leasehold::free_tree<tick, dynamic4_in_4>>>("free_tree_dyn4_max4",
                                                                       {1'000, 10'000});
  // Walking from a time: the views of free_list and free_tree against a copy of free_blocks();
  // capacity_tree has no members, so its rows are walk.hpp's fallback (the copy).
  register_walk<unbounded<leasehold::reference<tick, units>>>("reference", {10'000}, false);
  register_walk<unbounded<leasehold::free_list<tick, units>>>("free_list", {10'000, 100'000}, true);
  register_walk<unbounded<leasehold::free_tree<tick, units>>>("free_tree", {10'000, 100'000}, true);
  register_walk<unbounded<leasehold::capacity_tree<tick, units>>>("capacity_tree", {10'000}, false);
  return true;
}();

}  // namespace

BENCHMARK_MAIN();
