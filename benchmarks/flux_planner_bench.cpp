// The Flux planner drop-in (bindings/flux_planner) against the backend it translates to, on the
// append workload of availability_bench: 128 units (per type), amounts uniform in [1, 128],
// durations uniform in [1, 3600] s in milliseconds, every search from the base time.
//
//   flux_append/drop_in/<N>          planner_avail_time_first + planner_add_span
//   flux_append/free_tree/<N>        free_tree<int64, int64>: earliest_fit + reserve
//   flux_append_vec4/drop_in/<N>     planner_multi_avail_time_first + planner_multi_add_span,
//                                    four types
//   flux_append_vec4/free_tree/<N>   free_tree<int64, resources<4>>, the drop-in's joint
//                                    profile: earliest_fit + reserve
//
// "At N": built to N spans outside the timer (once per row and N); each iteration times the
// next max(N / 100, 32) pairs on a fresh copy (copied with the timer paused). items/s = pairs
// per second. The translation's cost is the drop_in row against the free_tree row.
//
// The .../steady rows time the same pairs without the copies: one structure built to N, then
// 20 batches appended in a row (so N grows by a fifth at 10,000, by two thirds at 1,000), as a
// scheduler appends. A batch on a fresh copy starts with caches that hold what the copy last
// wrote, and a drop-in copy writes its booking ledger besides the profile: the copy rows
// measure that too.

#include <benchmark/benchmark.h>

#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>
#include <map>
#include <memory>
#include <random>
#include <stdexcept>
#include <vector>

#include <leasehold/leasehold.hpp>

#include "planner.h"
#include "planner_multi.h"

namespace {

using tick = std::int64_t;
constexpr std::int64_t total = 128;
constexpr std::size_t types = 4;

struct append_request {
  std::array<std::int64_t, types> amount;
  tick duration;
};

std::size_t batch_of(std::size_t live) { return std::max<std::size_t>(live / 100, 32); }

// Drawn once, before any timer: enough for the largest N and its batches.
const std::vector<append_request>& requests() {
  static const std::vector<append_request> pool = [] {
    std::mt19937_64 random(20240601);
    std::uniform_int_distribution<std::int64_t> amount(1, total);
    std::uniform_int_distribution<tick> seconds(1, 3600);
    std::vector<append_request> result(10'000 + 100'000);
    for (append_request& r : result) {
      for (auto& a : r.amount) a = amount(random);
      r.duration = seconds(random) * 1000;
    }
    return result;
  }();
  return pool;
}

// ---- The drop-in ------------------------------------------------------------------------------

struct single {
  using handle = planner_t;
  static handle* make() { return planner_new(0, INT64_MAX, total, "core"); }
  static handle* copy(handle* p) { return planner_copy(p); }
  static void destroy(handle* p) { planner_destroy(&p); }
  static bool pair(handle* p, const append_request& r) {
    const auto d = static_cast<std::uint64_t>(r.duration);
    const auto amount = static_cast<std::uint64_t>(r.amount[0]);
    const std::int64_t at = planner_avail_time_first(p, 0, d, amount);
    benchmark::DoNotOptimize(at);
    return at != -1 && planner_add_span(p, at, d, amount) != -1;
  }
};

struct multi {
  using handle = planner_multi_t;
  static handle* make() {
    const std::uint64_t totals[types] = {total, total, total, total};
    const char* names[types] = {"core", "gpu", "memory", "node"};
    return planner_multi_new(0, INT64_MAX, totals, names, types);
  }
  static handle* copy(handle* m) { return planner_multi_copy(m); }
  static void destroy(handle* m) { planner_multi_destroy(&m); }
  static bool pair(handle* m, const append_request& r) {
    const auto d = static_cast<std::uint64_t>(r.duration);
    std::array<std::uint64_t, types> amount{};
    for (std::size_t i = 0; i < types; ++i) amount[i] = static_cast<std::uint64_t>(r.amount[i]);
    const std::int64_t at = planner_multi_avail_time_first(m, 0, d, amount.data(), types);
    benchmark::DoNotOptimize(at);
    return at != -1 && planner_multi_add_span(m, at, d, amount.data(), types) != -1;
  }
};

template <class Api>
typename Api::handle* drop_in_snapshot(std::size_t live) {
  static std::map<std::size_t, typename Api::handle*> cache;  // kept for the process
  if (auto found = cache.find(live); found != cache.end()) return found->second;
  typename Api::handle* p = Api::make();
  for (std::size_t i = 0; i < live; ++i)
    if (!Api::pair(p, requests()[i])) throw std::logic_error("the drop-in refused an append");
  return cache.emplace(live, p).first->second;
}

template <class Api>
void bm_drop_in(benchmark::State& state) {
  const auto live = static_cast<std::size_t>(state.range(0));
  typename Api::handle* snapshot = drop_in_snapshot<Api>(live);
  // The first iteration's copy of a multi-planner builds its joint profile in the timed batch
  // (a copy does not carry it); every later one too, as the benchmark copies afresh. So the
  // multi rows warm a copy up with one search before the timer runs again.
  for (auto _ : state) {
    state.PauseTiming();
    typename Api::handle* p = Api::copy(snapshot);
    if constexpr (std::is_same_v<Api, multi>) {
      const std::uint64_t one[types] = {1, 1, 1, 1};
      benchmark::DoNotOptimize(planner_multi_avail_time_first(p, 0, 1, one, types));
    }
    state.ResumeTiming();
    for (std::size_t i = 0; i < batch_of(live); ++i)
      if (!Api::pair(p, requests()[live + i])) state.SkipWithError("refused an append");
    state.PauseTiming();
    Api::destroy(p);
    state.ResumeTiming();
  }
  state.SetItemsProcessed(state.iterations() * static_cast<std::int64_t>(batch_of(live)));
}

// ---- The backend ------------------------------------------------------------------------------

using vec4 = leasehold::resources<types, std::int64_t>;
using scalar_tree = leasehold::free_tree<tick, std::int64_t>;
using vector_tree = leasehold::free_tree<tick, vec4>;

template <class Tree>
typename Tree::capacity_type amount_of(const append_request& r) {
  if constexpr (std::is_same_v<Tree, scalar_tree>)
    return r.amount[0];
  else
    return vec4{r.amount[0], r.amount[1], r.amount[2], r.amount[3]};
}

template <class Tree>
bool backend_pair(Tree& tree, const append_request& r) {
  const auto at =
      tree.earliest_fit({amount_of<Tree>(r), r.duration, {0, leasehold::forever<tick>}});
  benchmark::DoNotOptimize(at);
  if (!at) return false;
  tree.reserve({*at, *at + r.duration}, amount_of<Tree>(r));
  return true;
}

template <class Tree>
const Tree& backend_snapshot(std::size_t live) {
  static std::map<std::size_t, std::unique_ptr<Tree>> cache;
  if (auto found = cache.find(live); found != cache.end()) return *found->second;
  typename Tree::capacity_type capacity{};
  if constexpr (std::is_same_v<Tree, scalar_tree>)
    capacity = total;
  else
    capacity = vec4{total, total, total, total};
  auto tree = std::make_unique<Tree>(capacity);
  for (std::size_t i = 0; i < live; ++i) backend_pair(*tree, requests()[i]);
  return *cache.emplace(live, std::move(tree)).first->second;
}

template <class Tree>
void bm_backend(benchmark::State& state) {
  const auto live = static_cast<std::size_t>(state.range(0));
  const Tree& snapshot = backend_snapshot<Tree>(live);
  Tree tree = snapshot;
  for (auto _ : state) {
    state.PauseTiming();
    tree = snapshot;
    state.ResumeTiming();
    for (std::size_t i = 0; i < batch_of(live); ++i)
      if (!backend_pair(tree, requests()[live + i])) state.SkipWithError("no fit");
    benchmark::ClobberMemory();
  }
  state.SetItemsProcessed(state.iterations() * static_cast<std::int64_t>(batch_of(live)));
}

// The steady rows: no copies, 20 batches in a row on one structure.
constexpr int steady_batches = 20;

template <class Api>
void bm_drop_in_steady(benchmark::State& state) {
  const auto live = static_cast<std::size_t>(state.range(0));
  typename Api::handle* p = Api::copy(drop_in_snapshot<Api>(live));
  if constexpr (std::is_same_v<Api, multi>) {
    const std::uint64_t one[types] = {1, 1, 1, 1};
    benchmark::DoNotOptimize(planner_multi_avail_time_first(p, 0, 1, one, types));
  }
  std::size_t next = live;
  for (auto _ : state)
    for (std::size_t i = 0; i < batch_of(live); ++i)
      if (!Api::pair(p, requests()[next++])) state.SkipWithError("refused an append");
  Api::destroy(p);
  state.SetItemsProcessed(state.iterations() * static_cast<std::int64_t>(batch_of(live)));
}

template <class Tree>
void bm_backend_steady(benchmark::State& state) {
  const auto live = static_cast<std::size_t>(state.range(0));
  Tree tree = backend_snapshot<Tree>(live);
  std::size_t next = live;
  for (auto _ : state) {
    for (std::size_t i = 0; i < batch_of(live); ++i)
      if (!backend_pair(tree, requests()[next++])) state.SkipWithError("no fit");
    benchmark::ClobberMemory();
  }
  state.SetItemsProcessed(state.iterations() * static_cast<std::int64_t>(batch_of(live)));
}

BENCHMARK(bm_drop_in<single>)->Name("flux_append/drop_in")->Arg(1000)->Arg(10000);
BENCHMARK(bm_backend<scalar_tree>)->Name("flux_append/free_tree")->Arg(1000)->Arg(10000);
BENCHMARK(bm_drop_in<multi>)->Name("flux_append_vec4/drop_in")->Arg(1000)->Arg(10000);
BENCHMARK(bm_backend<vector_tree>)->Name("flux_append_vec4/free_tree")->Arg(1000)->Arg(10000);
BENCHMARK(bm_drop_in_steady<single>)
    ->Name("flux_append/drop_in/steady")
    ->Arg(1000)
    ->Arg(10000)
    ->Iterations(steady_batches);
BENCHMARK(bm_backend_steady<scalar_tree>)
    ->Name("flux_append/free_tree/steady")
    ->Arg(1000)
    ->Arg(10000)
    ->Iterations(steady_batches);
BENCHMARK(bm_drop_in_steady<multi>)
    ->Name("flux_append_vec4/drop_in/steady")
    ->Arg(1000)
    ->Arg(10000)
    ->Iterations(steady_batches);
BENCHMARK(bm_backend_steady<vector_tree>)
    ->Name("flux_append_vec4/free_tree/steady")
    ->Arg(1000)
    ->Arg(10000)
    ->Iterations(steady_batches);

}  // namespace

BENCHMARK_MAIN();
