// The C++ side of benchmarks/python/earliest_fit_pairs.py: the same deterministic workload
// (same LCG, same draws) of earliest_fit + reserve pairs on free_tree at 1k and 10k live
// reservations, so that the Python figure minus this one is the per-call binding overhead.

#include <benchmark/benchmark.h>

#include <cstdint>
#include <leasehold/availability/free_tree.hpp>
#include <limits>
#include <optional>
#include <tuple>
#include <vector>

namespace {

using profile = leasehold::free_tree<std::int64_t, std::int64_t>;

// Knuth's MMIX LCG, as the Python benchmark's `lcg`.
struct lcg {
  std::uint64_t state;
  std::int64_t next(std::int64_t bound) {
    state = state * 6364136223846793005ULL + 1442695040888963407ULL;
    return static_cast<std::int64_t>((state >> 33) % static_cast<std::uint64_t>(bound));
  }
};

struct draw {
  std::int64_t amount, duration, begin;
};

draw next_draw(lcg& rng, std::int64_t live) {
  const std::int64_t amount = 1 + rng.next(32);
  const std::int64_t duration = 10 + rng.next(90);
  const std::int64_t begin = rng.next(live);
  return {amount, duration, begin};
}

void pair(profile& p, const draw& d) {
  const auto start =
      p.earliest_fit({d.amount, d.duration, {d.begin, std::numeric_limits<std::int64_t>::max()}});
  p.reserve({*start, *start + d.duration}, d.amount);
}

void bm_pairs(benchmark::State& state) {
  constexpr std::size_t pairs = 1000;
  const auto live = static_cast<std::int64_t>(state.range(0));
  lcg rng{42};
  profile base(64);
  for (std::int64_t i = 0; i < live; ++i) pair(base, next_draw(rng, live));
  std::vector<draw> requests;
  for (std::size_t i = 0; i < pairs; ++i) requests.push_back(next_draw(rng, live));
  // The copy is made and destroyed outside the timer, as the Python side's deepcopy is.
  std::optional<profile> p;
  for (auto _ : state) {
    state.PauseTiming();
    p.reset();
    p.emplace(base);
    state.ResumeTiming();
    for (const draw& d : requests) pair(*p, d);
    benchmark::DoNotOptimize(p->block_count());
  }
  state.SetItemsProcessed(state.iterations() * static_cast<std::int64_t>(pairs));
}

}  // namespace

BENCHMARK(bm_pairs)->Arg(1'000)->Arg(10'000)->Unit(benchmark::kMicrosecond);

BENCHMARK_MAIN();
