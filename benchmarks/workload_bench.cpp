// SWF reading speed (records per second): the shared SDSC traces decompressed once in
// setup (in-process, workload::read_text_file) when present, and an in-memory synthetic log (the
// batch model, 100,000 jobs) always. Also the generators.

#include <benchmark/benchmark.h>

#include <filesystem>
#include <sstream>
#include <string>

#include <leasehold/sim/workload/ar_generator.hpp>
#include <leasehold/sim/workload/batch_model.hpp>
#include <leasehold/sim/workload/input_file.hpp>
#include <leasehold/sim/workload/swf.hpp>
#include <leasehold/sim/workload/swf_leases.hpp>

namespace {

std::string gunzip(const std::string& relative) {
  const auto path = std::filesystem::path(LEASEHOLD_SHARED_DIR) / relative;
  if (!std::filesystem::exists(path)) return {};
  return leasehold::workload::read_text_file(path);
}

void read_swf(benchmark::State& state, const std::string& text) {
  if (text.empty()) {
    state.SkipWithError("trace absent from ../shared/traces");
    return;
  }
  std::size_t records = 0;
  for (auto _ : state) {
    std::istringstream in(text);
    auto log = leasehold::swf::read(in);
    records = log.records.size();
    benchmark::DoNotOptimize(log);
  }
  state.SetItemsProcessed(state.iterations() * static_cast<std::int64_t>(records));
  state.counters["records"] = static_cast<double>(records);
}

void bm_read_sdsc_blue(benchmark::State& state) {
  static const std::string text = gunzip("traces/SDSC-BLUE-2000-4.2-cln.swf.gz");
  read_swf(state, text);
}
void bm_read_sdsc_sp2(benchmark::State& state) {
  static const std::string text = gunzip("traces/SDSC-SP2-1998-4.2-cln.swf.gz");
  read_swf(state, text);
}
void bm_read_synthetic(benchmark::State& state) {
  static const std::string text = [] {
    std::ostringstream out;
    leasehold::swf::write(out, leasehold::workload::generate_batch({.jobs = 100'000}, 1));
    return out.str();
  }();
  read_swf(state, text);
}

void bm_to_best_effort(benchmark::State& state) {
  const auto log = leasehold::workload::generate_batch({.jobs = 100'000}, 1);
  for (auto _ : state) benchmark::DoNotOptimize(leasehold::workload::to_best_effort(log.records));
  state.SetItemsProcessed(state.iterations() * static_cast<std::int64_t>(log.records.size()));
}

void bm_generate_batch(benchmark::State& state) {
  std::uint64_t seed = 0;
  for (auto _ : state) benchmark::DoNotOptimize(leasehold::workload::generate_batch({}, ++seed));
  state.SetItemsProcessed(state.iterations() * 5'545);
}

void bm_generate_ar(benchmark::State& state) {
  std::uint64_t seed = 0;
  std::size_t leases = 0;
  for (auto _ : state) {
    auto out = leasehold::workload::generate_ar_injections(
        {.rho = 0.3, .delta = 3600, .nu = leasehold::workload::small_leases}, ++seed);
    leases = out.size();
    benchmark::DoNotOptimize(out);
  }
  state.SetItemsProcessed(state.iterations() * static_cast<std::int64_t>(leases));
}

}  // namespace

BENCHMARK(bm_read_sdsc_blue)->Unit(benchmark::kMillisecond);
BENCHMARK(bm_read_sdsc_sp2)->Unit(benchmark::kMillisecond);
BENCHMARK(bm_read_synthetic)->Unit(benchmark::kMillisecond);
BENCHMARK(bm_to_best_effort)->Unit(benchmark::kMillisecond);
BENCHMARK(bm_generate_batch)->Unit(benchmark::kMillisecond);
BENCHMARK(bm_generate_ar)->Unit(benchmark::kMicrosecond);

BENCHMARK_MAIN();
