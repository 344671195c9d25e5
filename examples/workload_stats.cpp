// Shows the batch workload model next to the Haizea paper's 30-day Blue Horizon extract:
// the summary statistics docs/workloads.md compares (requests of at most one hour, at most
// four nodes, cancelled while waiting, power-of-two sizes, means, offered work).

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <stdexcept>
#include <string>

#include <leasehold/sim/workload/batch_model.hpp>
#include <leasehold/sim/workload/swf.hpp>
#include <leasehold/sim/workload/swf_file.hpp>

#include "cli.hpp"

namespace {

void print_summary(const char* name, const leasehold::swf::log& log) {
  double jobs = 0, hour = 0, small = 0, cancelled = 0, powers = 0, requested = 0, nodes = 0,
         run = 0, work = 0;
  for (const auto& job : log.records) {
    jobs += 1;
    hour += job.requested_time <= 3600;
    small += job.requested_procs <= 4;
    cancelled += job.status == leasehold::swf::status_cancelled && job.run_time < 0;
    powers += (job.requested_procs & (job.requested_procs - 1)) == 0;
    requested += static_cast<double>(job.requested_time);
    nodes += static_cast<double>(job.requested_procs);
    if (job.run_time >= 0) {
      run += static_cast<double>(job.run_time);
      work += static_cast<double>(job.run_time) * static_cast<double>(job.requested_procs);
    }
  }
  std::printf(
      "%-16s jobs %5.0f  <=1h %5.2f%%  <=4 nodes %5.2f%%  cancelled %4.2f%%  pow2 %5.2f%%  "
      "mean request %6.0f s  mean nodes %5.2f  mean run %5.0f s  work/(144 x 30 d) %5.1f%%\n",
      name, jobs, 100 * hour / jobs, 100 * small / jobs, 100 * cancelled / jobs,
      100 * powers / jobs, requested / jobs, nodes / jobs, run / (jobs - cancelled),
      100 * work / (144.0 * 30 * 86'400));
}

}  // namespace

int main(int argc, char** argv) {
  std::string trace = LEASEHOLD_SHARED_DIR "/haizea-workloads/blue-30days.swf";
  bool generated = false;
  CLI::App app{"Summary statistics of an SWF log beside the batch workload model's (seeds 1-5)."};
  app.option_defaults()->always_capture_default();
  app.add_option("--trace", trace, "the SWF log to summarise (plain or gzip-compressed)");
  app.add_flag("--generated", generated, "the model only, no log")->excludes("--trace");
  if (const auto code = examples::parse(app, argc, argv)) return *code;

  if (!generated) {
    if (!examples::check_input(trace)) {
      std::cerr << "(pass --trace FILE, or --generated for the model only)\n";
      return 1;
    }
    try {
      // Strict: a summary of a log with lines left out would be a summary of another log.
      const auto log = leasehold::workload::read_swf_file(trace);
      if (log.log.records.empty()) {
        std::cerr << "error: " << trace << " holds no jobs (an empty log has no statistics)\n";
        return 1;
      }
      print_summary(std::filesystem::path(trace).filename().string().c_str(), log.log);
    } catch (const leasehold::file_error& e) {
      std::cerr << "error: " << e.what() << '\n';
      return 1;
    }
  }
  for (std::uint64_t seed = 1; seed <= 5; ++seed) {
    char name[32];
    std::snprintf(name, sizeof name, "model, seed %llu", static_cast<unsigned long long>(seed));
    print_summary(name, leasehold::workload::generate_batch({}, seed));
  }
}
