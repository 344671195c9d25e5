// One 30-day Haizea run (Sotomayor, Keahey & Foster §4): the 5,545 best-effort leases of the
// Blue Horizon extract plus the [20%/3H/medium] advance reservations on 144 nodes, through
// the lease scheduler and the simulator, per configuration and slot-table backend. Reads
// ../shared/haizea-workloads when present, else generated workloads of the same shape.

#include <benchmark/benchmark.h>

#include <cstdint>
#include <filesystem>
#include <fstream>
#include <vector>

#include <leasehold/availability/reference.hpp>
#include <leasehold/policy/lease/lease_scheduler.hpp>
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

// Args: {with ARs, configuration 0 NOVM-NOSR / 1 NOVM-SR / 2 VM-PREDEPLOY}.
BENCHMARK_TEMPLATE(bm_haizea_30_days, lh::free_list<T, lease::node_resources>)
    ->Args({0, 0})
    ->Args({1, 0})
    ->Args({1, 1})
    ->Args({1, 2})
    ->Unit(benchmark::kMillisecond);
BENCHMARK_TEMPLATE(bm_haizea_30_days, lh::reference<T, lease::node_resources>)
    ->Args({1, 2})
    ->Unit(benchmark::kMillisecond)
    ->Iterations(1);

}  // namespace

BENCHMARK_MAIN();
