// The lease scheduler embedded for years: the whole SDSC Blue Horizon log (about 2.5 years,
// 144 nodes of 8 processors) runs through one lease_scheduler with retire_finished on, the
// way a long-running service would use it. Finished leases are taken as they come
// (take_finished() after every call) and summarised per simulated month; the program prints,
// per month of 30 days, the leases submitted and finished, the live leases, the CPU time the
// month took and the process's resident memory (current and peak).
//
//   blue_horizon_embedding [--trace FILE.swf[.gz]]   (default
//   ../shared/traces/SDSC-BLUE-2000-4.2-cln.swf.gz)
//
// Figures in docs/performance.md. Reads the log, plain or gzip-compressed, in-process
// (sim/workload/swf_file.hpp). A missing, truncated or corrupt log is an error naming it (exit 1);
// malformed lines are skipped and reported; a command-line error exits 2.

#include <sys/resource.h>

#include <algorithm>
#include <array>
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>
#include <leasehold/policy/lease/lease_scheduler.hpp>
#include <leasehold/sim/lease_simulation.hpp>
#include <leasehold/sim/metrics.hpp>
#include <leasehold/sim/workload/swf.hpp>
#include <leasehold/sim/workload/swf_file.hpp>
#include <leasehold/sim/workload/swf_leases.hpp>

#include "cli.hpp"

namespace lh = leasehold;
namespace lease = leasehold::policy::lease;
using T = std::int64_t;

namespace {

double cpu_seconds() {
  rusage usage{};
  getrusage(RUSAGE_SELF, &usage);
  auto seconds = [](const timeval& t) {
    return static_cast<double>(t.tv_sec) + static_cast<double>(t.tv_usec) / 1e6;
  };
  return seconds(usage.ru_utime) + seconds(usage.ru_stime);
}
double peak_rss_mb() {
  rusage usage{};
  getrusage(RUSAGE_SELF, &usage);
  return static_cast<double>(usage.ru_maxrss) / 1024.0;  // ru_maxrss is in KiB on Linux
}
double current_rss_mb() {
  std::ifstream statm("/proc/self/statm");
  long pages = 0;
  long resident = 0;
  statm >> pages >> resident;
  return static_cast<double>(resident) * 4096.0 / (1024.0 * 1024.0);
}

}  // namespace

int main(int argc, char** argv) {
  std::string file = std::string(LEASEHOLD_SHARED_DIR) + "/traces/SDSC-BLUE-2000-4.2-cln.swf.gz";
  CLI::App app("The whole SDSC Blue Horizon log through one embedded lease scheduler");
  app.add_option("--trace", file, "SWF log (plain or gzip-compressed)")->capture_default_str();
  if (const auto code = examples::parse(app, argc, argv)) return *code;
  if (!examples::check_input(file)) return 1;
  std::vector<lease::lease_terms<T>> leases;
  try {
    const auto trace = lh::workload::read_swf_file(file, lh::swf::on_error::skip);
    if (trace.skipped() > 0) std::cerr << "note: " << trace.skipped_summary() << '\n';
    lh::workload::swf_conversion options;
    options.procs_per_node = 8;  // Blue Horizon: 144 nodes of 8 processors
    options.max_nodes = 144;
    leases = lh::workload::to_best_effort<T>(trace.log.records, options);
  } catch (const lh::file_error& e) {
    std::cerr << "error: " << e.what() << '\n';
    return 1;
  }
  if (leases.empty()) {
    std::cerr << "error: " << file << " holds no jobs this example can run (an empty log)\n";
    return 1;
  }
  std::cout << leases.size() << " leases from " << file << "\n";

  auto config = lease::scheduler_config<T>::novm_nosr();
  config.retire_finished = true;  // the strong guarantee stays on (the default)
  lease::lease_scheduler<> scheduler(
      lh::cluster::slot_table<lh::free_list<T, lease::node_resources>>(
          144, lease::node_resources{1, 1024, 20 * 1024, 10}),
      config);

  constexpr T month = 30 * 24 * 3600;
  const T origin = leases.empty() ? 0 : leases.front().submit;
  struct month_row {
    std::size_t finished = 0, done = 0, withdrawn = 0, rejected = 0;
    double wait = 0;  // summed over done best-effort leases
  };
  month_row row;
  std::size_t submitted_before = 0;
  std::size_t current = 0;
  double cpu_mark = cpu_seconds();
  std::cout << "| month | submitted | finished | live | queue | mean wait (h) | CPU (s) | RSS (MB) "
               "| peak RSS (MB) |\n|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n";
  auto print_month = [&](std::size_t submitted) {
    const double cpu = cpu_seconds();
    std::printf("| %zu | %zu | %zu | %zu | %zu | %.1f | %.2f | %.1f | %.1f |\n", current + 1,
                submitted - submitted_before, row.finished, scheduler.leases().size(),
                scheduler.queue_size(),
                row.done > 0 ? row.wait / static_cast<double>(row.done) / 3600.0 : 0.0,
                cpu - cpu_mark, current_rss_mb(), peak_rss_mb());
    std::fflush(stdout);
    cpu_mark = cpu;
    submitted_before = submitted;
    row = {};
  };
  std::vector<T> submits;
  for (const auto& l : leases) submits.push_back(l.submit);
  std::ranges::sort(submits);
  std::size_t next_submit = 0;
  auto submitted_before_time = [&](T t) {
    while (next_submit < submits.size() && submits[next_submit] < t) ++next_submit;
    return next_submit;
  };
  std::size_t total_finished = 0;
  lh::sim::lease_metrics_accumulator<T> metrics;  // the paper's metrics, fed as leases finish
  // The simulator's after_step: the service loop's "take the finished leases" step.
  const auto stats = lh::sim::simulate_leases(scheduler, leases, {}, [&](T at) {
    while (at >= origin + static_cast<T>(current + 1) * month) {
      print_month(submitted_before_time(origin + static_cast<T>(current + 1) * month));
      ++current;
    }
    for (auto& l : scheduler.take_finished()) {
      ++row.finished;
      ++total_finished;
      metrics.add(l);
      if (l.state == lease::lease_state::done && l.first_start) {
        ++row.done;
        row.wait += static_cast<double>(*l.first_start - l.terms.submit);
      }
    }
  });
  print_month(stats.submitted);
  std::cout << stats.submitted << " submitted, " << stats.withdrawn << " withdrawn, "
            << total_finished << " finished, " << scheduler.leases().size() << " still live; CPU "
            << cpu_seconds() << " s, peak RSS " << peak_rss_mb() << " MB\n";
  const auto m = metrics.result(144, origin);
  std::cout << "all-best-effort " << m.all_best_effort << " s, mean wait " << m.mean_wait
            << " s, mean bounded slowdown " << m.mean_bounded_slowdown << ", utilisation "
            << m.utilisation << "\n";
}
