// Pilot service (Coasters) over a long run: the cost of one round of the service's loop
// (submit what arrived, complete what ended, plan, dispatch, release idle blocks, retire
// expired ones) after N and after 10 N jobs have come and gone. A service that takes the ended
// blocks (take_finished) must cost the same per round and hold the same blocks either way
// (counters `history`, `blocks`, `queued`, `running`); one that never takes keeps every block
// in history().

#include <benchmark/benchmark.h>

#include <cstdint>
#include <functional>
#include <queue>
#include <random>
#include <utility>
#include <vector>

#include <leasehold/availability/free_list.hpp>
#include <leasehold/policy/pilot/pilot_service.hpp>

namespace pilot = leasehold::policy::pilot;

namespace {

using T = std::int64_t;
using cluster_t = leasehold::free_list<T, T>;

// A 256-core cluster of 8-core nodes; jobs arrive about one per 10 s round, each running for
// half to all of a walltime between 1 and 30 minutes.
class many_task_run {
 public:
  explicit many_task_run(bool take)
      : cluster_(256),
        service_(cluster_, {.blocks = {.max_blocks = 20, .cores_per_node = 8},
                            .dispatch = {.idle_release_delay = 60}}),
        take_(take) {}

  // One round of the service's loop, 10 s after the last.
  void round() {
    now_ += 10;
    const auto arrivals = std::poisson_distribution<int>(1.0)(rng_);
    for (int k = 0; k < arrivals; ++k)
      service_.submit({.id = next_job_++, .walltime = uniform(60, 1'800)});
    while (!ends_.empty() && ends_.top().first <= now_) {
      service_.complete(ends_.top().second, now_);
      ends_.pop();
    }
    benchmark::DoNotOptimize(service_.plan(now_));
    for (const pilot::assignment<T>& a : service_.dispatch(now_))
      ends_.emplace(a.start + a.walltime * uniform(5, 10) / 10, a.job);
    benchmark::DoNotOptimize(service_.release_idle(now_));
    benchmark::DoNotOptimize(service_.retire_expired(now_));
    if (take_) taken_ += service_.take_finished().size();
  }

  [[nodiscard]] std::uint64_t jobs() const noexcept { return next_job_; }
  [[nodiscard]] const pilot::pilot_service<cluster_t>& service() const noexcept { return service_; }
  [[nodiscard]] std::size_t taken() const noexcept { return taken_; }

 private:
  T uniform(T lo, T hi) { return std::uniform_int_distribution<T>(lo, hi)(rng_); }

  cluster_t cluster_;
  pilot::pilot_service<cluster_t> service_;
  bool take_;
  std::mt19937_64 rng_{7};
  T now_ = 0;
  std::uint64_t next_job_ = 0;
  std::size_t taken_ = 0;
  using end_type = std::pair<T, std::uint64_t>;
  std::priority_queue<end_type, std::vector<end_type>, std::greater<>> ends_;
};

// Args: {jobs submitted before the timed rounds, take_finished every round (1) or never (0)}.
void bm_round_after_finished(benchmark::State& state) {
  many_task_run run(state.range(1) != 0);
  while (run.jobs() < static_cast<std::uint64_t>(state.range(0))) run.round();
  for (auto _ : state) run.round();
  const auto& d = run.service().job_dispatcher();
  state.counters["history"] = static_cast<double>(run.service().history().size());
  state.counters["blocks"] = static_cast<double>(d.block_count());
  state.counters["queued"] = static_cast<double>(d.queued_count());
  state.counters["running"] = static_cast<double>(d.running_count());
  state.counters["taken"] = static_cast<double>(run.taken());
  state.SetItemsProcessed(state.iterations());
}

}  // namespace

BENCHMARK(bm_round_after_finished)
    ->Args({20'000, 1})
    ->Args({200'000, 1})
    ->Args({20'000, 0})
    ->Args({200'000, 0})
    ->Iterations(5'000)
    ->Unit(benchmark::kMicrosecond);

BENCHMARK_MAIN();
