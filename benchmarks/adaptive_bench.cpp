// Adaptive scheduler throughput (Netto & Buyya): requests placed per second by FIFO with
// conservative backfilling and by Missing-Deadline-First, on every exact scalar backend, with
// the naive reference as the baseline. Each iteration submits one seeded stream of Table 1-like
// requests (R_max up to 128, moldable from 80 %, a fifth preemptive with Sp = (10, 10 %, true))
// to a fresh 128-resource cluster.

#include <benchmark/benchmark.h>

#include <cstdint>
#include <random>
#include <vector>

#include <leasehold/availability/free_list.hpp>
#include <leasehold/availability/reference.hpp>
#include <leasehold/policy/adaptive/scheduler.hpp>

namespace adaptive = leasehold::policy::adaptive;

namespace {

std::vector<adaptive::adaptive_request<>> stream(std::size_t count) {
  std::mt19937_64 rng(42);
  const auto pick = [&rng](std::int64_t lo, std::int64_t hi) {
    return std::uniform_int_distribution<std::int64_t>(lo, hi)(rng);
  };
  std::vector<adaptive::adaptive_request<>> requests;
  std::int64_t now = 0;
  for (std::size_t i = 0; i < count; ++i) {
    now += pick(0, 600);
    adaptive::adaptive_request<> r;
    r.id = i;
    r.submit = now;
    r.r_max = std::int64_t{1} << pick(0, 7);
    r.r_min = r.r_max > 10 ? (r.r_max * 80 + 99) / 100 : r.r_max;
    const std::int64_t t_min = 60 * pick(1, 240);
    r.f_mol = adaptive::linear_moldability<>(r.r_min, r.r_max, t_min);
    if (t_min >= 3600 && pick(0, 4) == 0)
      r.split = {.pieces = 10, .interval_percent = 10, .moldable = true};
    r.deadline = now + 5 * t_min + (pick(0, 4) == 0 ? 0 : 3 * 86'400);
    requests.push_back(std::move(r));
  }
  return requests;
}

template <class Backend>
void bm_submit(benchmark::State& state, adaptive::strategy order) {
  const auto requests = stream(static_cast<std::size_t>(state.range(0)));
  std::size_t accepted = 0;
  for (auto _ : state) {
    adaptive::scheduler<Backend> s(Backend(128), {.order = order});
    for (const auto& r : requests) accepted += s.submit(r, r.submit).accepted ? 1u : 0u;
    benchmark::DoNotOptimize(accepted);
  }
  state.SetItemsProcessed(static_cast<std::int64_t>(state.iterations()) * state.range(0));
}

template <class Backend>
void bm_fifo(benchmark::State& state) {
  bm_submit<Backend>(state, adaptive::strategy::fifo);
}
template <class Backend>
void bm_mdf(benchmark::State& state) {
  bm_submit<Backend>(state, adaptive::strategy::missing_deadline_first);
}

using free_list_t = leasehold::free_list<std::int64_t, std::int64_t>;
using reference_t = leasehold::reference<std::int64_t, std::int64_t>;

}  // namespace

BENCHMARK_TEMPLATE(bm_fifo, free_list_t)->Arg(250)->Arg(1000)->Unit(benchmark::kMillisecond);
BENCHMARK_TEMPLATE(bm_fifo, reference_t)->Arg(250)->Arg(1000)->Unit(benchmark::kMillisecond);
BENCHMARK_TEMPLATE(bm_mdf, free_list_t)->Arg(250)->Arg(1000)->Unit(benchmark::kMillisecond);
BENCHMARK_TEMPLATE(bm_mdf, reference_t)->Arg(250)->Arg(1000)->Unit(benchmark::kMillisecond);

BENCHMARK_MAIN();
