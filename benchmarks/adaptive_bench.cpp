// Adaptive scheduler throughput (Netto & Buyya): requests placed per second by FIFO with
// conservative backfilling and by Missing-Deadline-First, on every exact scalar backend, with
// the naive reference as the baseline. Each iteration submits one seeded stream of Table 1-like
// requests (R_max up to 128, moldable from 80 %, a fifth preemptive with Sp = (10, 10 %, true))
// to a fresh 128-resource cluster.
//
// The long-run rows (bm_submit_after_finished) time one submit after N and after 10 N requests
// that have come and gone: a service that takes the finished requests (take_finished) must cost
// the same per call and hold the same requests either way (counters `held`, `waiting`).

#include <benchmark/benchmark.h>

#include <cstdint>
#include <random>
#include <vector>

#include <leasehold/availability/free_list.hpp>
#include <leasehold/availability/reference.hpp>
#include <leasehold/policy/adaptive/scheduler.hpp>

namespace adaptive = leasehold::policy::adaptive;

namespace {

// An endless seeded stream of Table 1-like requests, one every [0, max_gap] s, with deadlines
// 5 T_min after submission, plus `slack` for four in five.
class request_source {
 public:
  request_source(std::int64_t max_gap, std::int64_t slack) : max_gap_(max_gap), slack_(slack) {}

  adaptive::adaptive_request<> next() {
    now_ += pick(0, max_gap_);
    adaptive::adaptive_request<> r;
    r.id = id_++;
    r.submit = now_;
    r.r_max = std::int64_t{1} << pick(0, 7);
    r.r_min = r.r_max > 10 ? (r.r_max * 80 + 99) / 100 : r.r_max;
    const std::int64_t t_min = 60 * pick(1, 240);
    r.f_mol = adaptive::linear_moldability<>(r.r_min, r.r_max, t_min);
    if (t_min >= 3600 && pick(0, 4) == 0)
      r.split = {.pieces = 10, .interval_percent = 10, .moldable = true};
    r.deadline = now_ + 5 * t_min + (pick(0, 4) == 0 ? 0 : slack_);
    return r;
  }

 private:
  std::int64_t pick(std::int64_t lo, std::int64_t hi) {
    return std::uniform_int_distribution<std::int64_t>(lo, hi)(rng_);
  }
  std::int64_t max_gap_;
  std::int64_t slack_;
  std::mt19937_64 rng_{42};
  std::uint64_t id_ = 0;
  std::int64_t now_ = 0;
};

std::vector<adaptive::adaptive_request<>> stream(std::size_t count) {
  request_source source(600, 3 * 86'400);
  std::vector<adaptive::adaptive_request<>> requests;
  for (std::size_t i = 0; i < count; ++i) requests.push_back(source.next());
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

// Args: {requests submitted before the timed ones, take_finished every 64 submits (1) or never
// (0)}. The timed submits take the finished requests on the same schedule.
void bm_submit_after_finished(benchmark::State& state, adaptive::strategy order) {
  const auto history = static_cast<std::size_t>(state.range(0));
  const bool take = state.range(1) != 0;
  adaptive::scheduler<free_list_t> s(free_list_t(128), {.order = order});
  // Arriving slower than stream()'s (a mean gap of 30 min, about what the cluster can run), so
  // that the scheduler reaches a steady state: a short queue, and requests rejected when their
  // deadlines cannot be met.
  request_source source(3'600, 86'400);
  std::size_t submitted = 0;
  std::size_t taken = 0;
  const auto submit_next = [&] {
    const auto r = source.next();
    benchmark::DoNotOptimize(s.submit(r, r.submit));
    if (take && ++submitted % 64 == 0) taken += s.take_finished().size();
  };
  for (std::size_t i = 0; i < history; ++i) submit_next();
  for (auto _ : state) submit_next();
  state.counters["held"] = static_cast<double>(s.held());
  state.counters["waiting"] = static_cast<double>(s.waiting());
  state.counters["profile_blocks"] = static_cast<double>(s.profile().block_count());
  state.counters["taken"] = static_cast<double>(taken);
  state.SetItemsProcessed(state.iterations());
}
void bm_fifo_after_finished(benchmark::State& state) {
  bm_submit_after_finished(state, adaptive::strategy::fifo);
}
void bm_mdf_after_finished(benchmark::State& state) {
  bm_submit_after_finished(state, adaptive::strategy::missing_deadline_first);
}

}  // namespace

BENCHMARK_TEMPLATE(bm_fifo, free_list_t)->Arg(250)->Arg(1000)->Unit(benchmark::kMillisecond);
BENCHMARK_TEMPLATE(bm_fifo, reference_t)->Arg(250)->Arg(1000)->Unit(benchmark::kMillisecond);
BENCHMARK_TEMPLATE(bm_mdf, free_list_t)->Arg(250)->Arg(1000)->Unit(benchmark::kMillisecond);
BENCHMARK_TEMPLATE(bm_mdf, reference_t)->Arg(250)->Arg(1000)->Unit(benchmark::kMillisecond);

namespace {
// The long-run rows: {submissions before the timed ones, take_finished or not}.
void long_run(benchmark::internal::Benchmark* b) {
  for (const std::int64_t take : {1, 0})
    for (const std::int64_t history : {2'000, 20'000}) b->Args({history, take});
  b->Iterations(2'000)->Unit(benchmark::kMicrosecond);
}
}  // namespace
BENCHMARK(bm_fifo_after_finished)->Apply(long_run);
BENCHMARK(bm_mdf_after_finished)->Apply(long_run);

BENCHMARK_MAIN();
