// One 30-day Haizea run (Sotomayor, Keahey & Foster §4): the 5,545 best-effort leases of the
// Blue Horizon extract plus the [20%/3H/medium] advance reservations on 144 nodes, through
// the lease scheduler and the simulator, per configuration and slot-table backend. Reads
// ../shared/haizea-workloads when present, else generated workloads of the same shape.

#include <benchmark/benchmark.h>

#include <algorithm>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <random>
#include <vector>

#include <leasehold/availability/reference.hpp>
#include <leasehold/policy/lease/lease_scheduler.hpp>
#include <leasehold/policy/staging/image_staging.hpp>
#include <leasehold/sim/lease_simulation.hpp>
#include <leasehold/sim/metrics.hpp>
#include <leasehold/sim/workload/ar_generator.hpp>
#include <leasehold/sim/workload/batch_model.hpp>
#include <leasehold/sim/workload/haizea_injection.hpp>
#include <leasehold/sim/workload/swf.hpp>
#include <leasehold/sim/workload/swf_leases.hpp>

namespace lh = leasehold;
namespace lease = leasehold::policy::lease;
using T = std::int64_t;

namespace {

const std::vector<lease::lease_terms<T>>& workload(bool with_ars) {
  static const auto leases = [] {
    const std::filesystem::path data =
        std::filesystem::path(LEASEHOLD_SHARED_DIR) / "haizea-workloads";
    lh::swf::log log;
    std::vector<lh::haizea::injection> ars;
    if (std::filesystem::exists(data / "blue-30days.swf")) {
      std::ifstream in(data / "blue-30days.swf");
      log = lh::swf::read(in);
      std::ifstream ar_in(data / "ar-injections-30days" / "work_20-dur_3h-size_2medium.lwf");
      ars = lh::haizea::read_injections(ar_in).leases;
    } else {
      log = lh::workload::generate_batch(lh::workload::batch_model{}, 2008);
      lh::workload::ar_injection_config c;
      c.rho = 0.20;
      c.delta = 3 * 3600;
      ars = lh::workload::generate_ar_injections(c, 2008);
    }
    auto best_effort = lh::workload::to_best_effort<T>(log.records);
    auto all = best_effort;
    for (auto& l : lh::haizea::to_lease_terms<T>(ars, 1'000'000'000)) all.push_back(l);
    return std::pair{best_effort, all};
  }();
  return with_ars ? leases.second : leases.first;
}

template <class Backend>
void bm_haizea_30_days(benchmark::State& state) {
  const bool with_ars = state.range(0) != 0;
  auto config = state.range(1) == 0   ? lease::scheduler_config<T>::novm_nosr()
                : state.range(1) == 1 ? lease::scheduler_config<T>::novm_sr()
                                      : lease::scheduler_config<T>::vm_predeploy();
  config.network_mb_s = 10.0;
  config.strong_guarantee = state.range(2) != 0;
  const auto& leases = workload(with_ars);
  std::int64_t makespan = 0;
  for (auto _ : state) {
    lease::lease_scheduler<Backend> scheduler(
        lh::cluster::slot_table<Backend>(144, lease::node_resources{1, 1024, 20 * 1024, 10}),
        config);
    lh::sim::simulate_leases(scheduler, leases);
    makespan = lh::sim::measure(scheduler.leases(), 144).all_best_effort;
    benchmark::DoNotOptimize(makespan);
  }
  state.counters["all_best_effort_s"] = static_cast<double>(makespan);
  state.SetItemsProcessed(state.iterations() * static_cast<std::int64_t>(leases.size()));
}

// Args: {with ARs, configuration 0 NOVM-NOSR / 1 NOVM-SR / 2 VM-PREDEPLOY, strong guarantee}.
BENCHMARK_TEMPLATE(bm_haizea_30_days, lh::free_list<T, lease::node_resources>)
    ->Args({0, 0, 1})
    ->Args({1, 0, 1})
    ->Args({1, 1, 1})
    ->Args({1, 2, 1})
    ->Args({0, 0, 0})
    ->Args({1, 0, 0})
    ->Args({1, 1, 0})
    ->Args({1, 2, 0})
    ->Unit(benchmark::kMillisecond);
BENCHMARK_TEMPLATE(bm_haizea_30_days, lh::reference<T, lease::node_resources>)
    ->Args({1, 2, 1})
    ->Unit(benchmark::kMillisecond)
    ->Iterations(1);

// The embedding scenario of issue 14: a service submits leases for a long time without
// restarting. A synthetic stream on 144 nodes under NOVM-SR: best-effort leases of 1-16
// nodes for 10 min - 2 h (real duration 50-100 % of that) arriving every 460 s on average,
// about 50 % of the cluster's capacity, plus an advance reservation of 1-32 nodes for 1-2 h
// every 3 hours, starting 1-6 h after its submission. After `range(0)` submissions (not
// timed), each iteration times one more submit() (which also processes the events due by
// then). With the strong guarantee on, the per-call cost must not grow with the history.
class lease_stream {
 public:
  explicit lease_stream(std::uint64_t seed) : rng_(seed) {}

  lease::lease_terms<T> next() {
    lease::lease_terms<T> t;
    t.id = ++id_;
    if (now_ >= next_ar_) {
      t.submit = next_ar_;
      next_ar_ += 3 * 3600;
      t.kind = lease::lease_kind::advance_reservation;
      t.preemptible = false;
      t.nodes = uniform(1, 32);
      t.duration = uniform(3600, 7200);
      t.start = t.submit + uniform(3600, 6 * 3600);
      t.real_duration = t.duration;
      return t;
    }
    now_ +=
        std::max<T>(1, static_cast<T>(std::exponential_distribution<double>(1.0 / 460.0)(rng_)));
    t.submit = now_;
    t.nodes = uniform(1, 16);
    t.duration = uniform(600, 7200);
    t.real_duration = t.duration * uniform(50, 100) / 100;
    return t;
  }

 private:
  T uniform(T lo, T hi) { return std::uniform_int_distribution<T>(lo, hi)(rng_); }
  std::mt19937_64 rng_;
  std::uint64_t id_ = 0;
  T now_ = 0;
  T next_ar_ = 3 * 3600;
};

void bm_submit_after(benchmark::State& state) {
  const auto history = static_cast<std::size_t>(state.range(0));
  auto config = lease::scheduler_config<T>::novm_sr();
  config.strong_guarantee = state.range(1) != 0;
  lease::lease_scheduler<> scheduler(
      lh::cluster::slot_table<lh::free_list<T, lease::node_resources>>(
          144, lease::node_resources{1, 1024, 20 * 1024, 10}),
      config);
  lease_stream stream(2026);
  T now = 0;
  auto submit_next = [&] {
    const auto terms = stream.next();
    now = std::max(now, terms.submit);
    benchmark::DoNotOptimize(scheduler.submit(terms, now));
  };
  for (std::size_t i = 0; i < history; ++i) submit_next();
  for (auto _ : state) submit_next();
  state.counters["queue"] = static_cast<double>(scheduler.queue_size());
  state.counters["live_leases"] = static_cast<double>(scheduler.leases().size());
  state.SetItemsProcessed(state.iterations());
}
// Args: {submissions before the timed ones, strong guarantee}.
BENCHMARK(bm_submit_after)
    ->Args({1'000, 1})
    ->Args({100'000, 1})
    ->Args({1'000, 0})
    ->Args({100'000, 0})
    ->Iterations(2'000)
    ->Unit(benchmark::kMicrosecond);

// A service with image staging that runs for a long time: 4 nodes of one CPU, one 100 MB
// image sent to each lease's node without reuse (every lease gets its own copy, so every lease
// has a transfer), best-effort leases of one node for 60-240 s arriving every 100 s on average
// (about 40 % of the cluster), finished leases retired. After `range(0)` submissions (not
// timed), each iteration times one more submit(). The per-call cost must depend on the live
// leases and transfers only: with the strong guarantee on it must not grow with the history.
void bm_submit_after_staged(benchmark::State& state) {
  namespace staging = leasehold::policy::staging;
  using backend = lh::free_list<T, lease::node_resources>;
  const auto history = static_cast<std::size_t>(state.range(0));
  lease::scheduler_config<T> config;
  config.in_vms = false;
  config.suspend = lease::suspension::none;
  config.migrate = lease::migration::none;
  config.retire_finished = true;
  config.strong_guarantee = state.range(1) != 0;
  staging::staging_config sc;
  sc.reuse = false;
  sc.cache_mb = 1000;
  staging::image_staging<> step(4, sc);
  step.add_image({"img", 100});
  lease::lease_scheduler<backend, staging::image_staging<>> scheduler(
      lh::cluster::slot_table<backend>(4, lease::node_resources{1, 1024, 10000, 10}), config,
      std::move(step));
  std::mt19937_64 rng(2026);
  std::uint64_t id = 0;
  T now = 0;
  auto submit_next = [&] {
    now += std::max<T>(1, static_cast<T>(std::exponential_distribution<double>(0.01)(rng)));
    lease::lease_terms<T> t;
    t.id = ++id;
    t.submit = now;
    t.nodes = 1;
    t.per_node = {1, 1024, 0, 0};
    t.duration = std::uniform_int_distribution<T>(60, 240)(rng);
    t.real_duration = t.duration;
    t.image = lease::disk_image{"img", 100};
    benchmark::DoNotOptimize(scheduler.submit(t, now));
  };
  for (std::size_t i = 0; i < history; ++i) submit_next();
  for (auto _ : state) submit_next();
  state.counters["queue"] = static_cast<double>(scheduler.queue_size());
  state.counters["live_leases"] = static_cast<double>(scheduler.leases().size());
  state.SetItemsProcessed(state.iterations());
}
// Args: {submissions before the timed ones, strong guarantee}.
BENCHMARK(bm_submit_after_staged)
    ->Args({2'000, 1})
    ->Args({20'000, 1})
    ->Args({2'000, 0})
    ->Args({20'000, 0})
    ->Iterations(2'000)
    ->Unit(benchmark::kMicrosecond);

}  // namespace

BENCHMARK_MAIN();
