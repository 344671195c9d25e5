// The append workload of issue 5, for free_tree against free_list (and reference at small
// sizes): a 128-unit resource; each request asks for an amount uniform in [1, 128] for a
// duration uniform in [1, 3600], window from the origin to forever; earliest_fit, then
// reserve at the answer. Nothing is ever released, so the schedule only gets deeper.
//
//   bm_append<B>/N        find+book pairs on a profile holding N live reservations: each
//                         timed iteration books 100 fresh requests (N -> N + 100), then,
//                         outside the timing, releases them, which restores the profile
//                         exactly (free blocks are canonical).
//   bm_append_build<B>/N  one pass building the profile from empty to N reservations; the
//                         rate is the average over the whole growth.
//
// free_tree<T, C, 0> is free_tree with the run-length pruning turned off (plain run-to-run
// jumps), to show what the pruning buys; free_tree<T, C, 16> has half the default thresholds. The
// vector variants use resources<4> with every component uniform in [1, 128] out of 128;
// free_tree<T, vector4> prunes nothing by default, free_tree<T, vector4, 4> prunes per component
// with four thresholds each.
//
// Build and run: cmake --preset release && cmake --build --preset release --target
// free_tree_bench && ./build/release/benchmarks/free_tree_bench

#include <benchmark/benchmark.h>

#include <cstddef>
#include <cstdint>
#include <map>
#include <memory>
#include <random>
#include <vector>

#include <leasehold/leasehold.hpp>

namespace {

using namespace leasehold;
using vector4 = resources<4, std::int64_t>;

constexpr std::uint64_t build_seed = 20240501;
constexpr std::uint64_t measure_seed = 777;
constexpr std::size_t batch = 100;
constexpr std::size_t rounds = 50;  // distinct batches cycled through by bm_append

template <class C>
C total_capacity() {
  if constexpr (vector_capacity<C>)
    return C{128, 128, 128, 128};
  else
    return C{128};
}

template <class C>
std::vector<request<std::int64_t, C>> append_requests(std::size_t count, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::uniform_int_distribution<std::int64_t> amount(1, 128), duration(1, 3600);
  std::vector<request<std::int64_t, C>> requests;
  requests.reserve(count);
  for (std::size_t i = 0; i < count; ++i) {
    C c{};
    if constexpr (vector_capacity<C>) {
      for (auto& component : c) component = amount(rng);
    } else {
      c = amount(rng);
    }
    const std::int64_t d = duration(rng);  // drawn after the amount: a fixed order
    requests.push_back({c, d});
  }
  return requests;
}

template <class Backend, class Requests>
void find_and_book(Backend& profile, const Requests& requests, std::size_t first, std::size_t count,
                   std::vector<interval<std::int64_t>>* booked) {
  for (std::size_t i = first; i < first + count; ++i) {
    const auto& r = requests[i];
    const std::optional<std::int64_t> start = profile.earliest_fit(r);
    benchmark::DoNotOptimize(start);
    const interval<std::int64_t> span{*start, *start + r.duration};  // the window is unbounded
    profile.reserve(span, r.amount);
    if (booked != nullptr) booked->push_back(span);
  }
}

// One profile per backend and size, built once and shared by every run of bm_append.
template <class Backend>
Backend& profile_with(std::size_t live) {
  static std::map<std::size_t, std::unique_ptr<Backend>> built;
  std::unique_ptr<Backend>& profile = built[live];
  if (!profile) {
    using C = typename Backend::capacity_type;
    profile = std::make_unique<Backend>(total_capacity<C>());
    const auto requests = append_requests<C>(live, build_seed);
    find_and_book(*profile, requests, 0, live, nullptr);
  }
  return *profile;
}

template <class Backend>
void bm_append(benchmark::State& state) {
  using C = typename Backend::capacity_type;
  const auto live = static_cast<std::size_t>(state.range(0));
  Backend& profile = profile_with<Backend>(live);
  const std::size_t blocks_before = profile.block_count();
  const auto requests = append_requests<C>(batch * rounds, measure_seed);
  std::vector<interval<std::int64_t>> booked;
  booked.reserve(batch);
  std::size_t round = 0;
  for (auto _ : state) {
    find_and_book(profile, requests, round * batch, batch, &booked);
    state.PauseTiming();
    for (std::size_t i = 0; i < batch; ++i)
      profile.release(booked[i], requests[round * batch + i].amount);
    booked.clear();
    round = (round + 1) % rounds;
    state.ResumeTiming();
  }
  if (profile.block_count() != blocks_before) state.SkipWithError("the profile was not restored");
  state.SetItemsProcessed(state.iterations() * static_cast<std::int64_t>(batch));
  state.counters["blocks"] = static_cast<double>(blocks_before);
}

template <class Backend>
void bm_append_build(benchmark::State& state) {
  using C = typename Backend::capacity_type;
  const auto live = static_cast<std::size_t>(state.range(0));
  const auto requests = append_requests<C>(live, build_seed);
  for (auto _ : state) {
    Backend profile(total_capacity<C>());
    find_and_book(profile, requests, 0, live, nullptr);
    benchmark::DoNotOptimize(profile.block_count());
  }
  state.SetItemsProcessed(state.iterations() * static_cast<std::int64_t>(live));
}

using tree = free_tree<std::int64_t, std::int64_t>;
using tree_no_pruning = free_tree<std::int64_t, std::int64_t, 0>;
using tree16 = free_tree<std::int64_t, std::int64_t, 16>;
using tree4_pruned = free_tree<std::int64_t, vector4, 4>;
using list = free_list<std::int64_t, std::int64_t>;
using oracle = reference<std::int64_t, std::int64_t>;
using tree4 = free_tree<std::int64_t, vector4>;
using list4 = free_list<std::int64_t, vector4>;

BENCHMARK_TEMPLATE(bm_append, tree)
    ->Arg(1'000)
    ->Arg(10'000)
    ->Arg(100'000)
    ->Arg(1'000'000)
    ->Unit(benchmark::kMicrosecond);
BENCHMARK_TEMPLATE(bm_append, tree16)->Arg(10'000)->Arg(100'000)->Unit(benchmark::kMicrosecond);
BENCHMARK_TEMPLATE(bm_append, tree_no_pruning)
    ->Arg(1'000)
    ->Arg(10'000)
    ->Arg(100'000)
    ->Unit(benchmark::kMicrosecond);
BENCHMARK_TEMPLATE(bm_append, list)
    ->Arg(1'000)
    ->Arg(10'000)
    ->Arg(100'000)
    ->Unit(benchmark::kMicrosecond);
BENCHMARK_TEMPLATE(bm_append, oracle)->Arg(1'000)->Unit(benchmark::kMicrosecond);
BENCHMARK_TEMPLATE(bm_append, tree4)->Arg(10'000)->Arg(100'000)->Unit(benchmark::kMicrosecond);
BENCHMARK_TEMPLATE(bm_append, tree4_pruned)->Arg(10'000)->Unit(benchmark::kMicrosecond);
BENCHMARK_TEMPLATE(bm_append, list4)->Arg(10'000)->Unit(benchmark::kMicrosecond);

BENCHMARK_TEMPLATE(bm_append_build, tree)
    ->Arg(10'000)
    ->Arg(100'000)
    ->Arg(1'000'000)
    ->Iterations(1)
    ->Unit(benchmark::kMillisecond);
BENCHMARK_TEMPLATE(bm_append_build, list)
    ->Arg(10'000)
    ->Arg(100'000)
    ->Iterations(1)
    ->Unit(benchmark::kMillisecond);

}  // namespace

BENCHMARK_MAIN();
