// Reproduces Table 1 of Sotomayor, Keahey & Foster, "Combining Batch Execution and Leasing
// Using Virtual Machines" (HPDC'08): NOVM-NOSR, NOVM-SR, VM-PREDEPLOY, and with image staging
// (policy::staging) VM-MULT, VM-REUSE-UNIFORM and VM-REUSE-SKEWED, on [10%/3H/medium],
// [20%/3H/medium], [30%/3H/medium]. The staging rows assign every request one of 37 images of
// 4 GB (§4.2: uniform, or skewed 7 x 10 % + 30 x 1 %) with the workload generator's
// assign_images, seeded by --seed; each node caches 20 GB (D_p), LRU, multicast transfers.
//
// Inputs: ../shared/haizea-workloads/ (the paper's 30-day Blue Horizon extract and its 72
// AR injection files) when present; otherwise a generated batch workload and generated AR
// injections with the paper's parameters (§4.2). The cluster is the paper's (§4.3): 144
// nodes of 1 CPU, 1 GB memory, 20 GB working disk, 10 MB/s; suspend/resume at 50 MB/s; in
// VMs 5 % slowdown and 20 s boot + shutdown; aggressive backfilling.
//
// Usage: haizea_experiment [--all] [--generated] [--jobs N] [--csv FILE] [--seed N]
//                          [--days D] [--configs NAME,NAME...] [--no-timing]
//                          [--piggyback join_multicast|same_node] [--image-mb-s R]
//                          [--haizea-preset hpdc08|tests | --haizea-choices]
//                          [--migration-mb-s R]
//                          [--shard I/N [--shard-dir DIR] | --merge DIR]
//   --all        run all 72 workloads (with a progress bar on a terminal), not just three
//   --generated  ignore ../shared and generate the workloads (without it, a missing
//                ../shared/haizea-workloads is an error)
//   --jobs N     simulations in parallel (default 2)
//   --csv FILE   where to write one line per run (default haizea_experiment.csv)
//   --rho R,...  only these columns of Table 1 (AR share in %, of 10, 20, 30)
//   --svg FILE   also draw Table 1, ours beside the paper's, as an SVG figure (io/svg_plot)
//   --gantt FILE.svg  draw the schedule of a single run (one --configs, one --rho) as a Gantt
//                chart (io/gantt_chart)
//   --days D     only the first D days of the trace (best-effort submissions and AR starts):
//                a quick smoke run; the baseline is then that shorter run's
//   --configs    only these configurations (comma-separated names)
//   --piggyback  join_multicast (default; §3.2 and Haizea): a best-effort lease's nodes join a
//                multicast of its image not yet started; same_node: only a transfer already
//                bound for that node (the figures before the option)
//   --image-mb-s R  the repository link for images, MB/s (default the paper's 10)
//   --haizea-preset  Haizea's own choices as its code made them (scheduler_config::
//                with_haizea): hpdc08, the code behind the paper's runs (its no-AR baseline
//                ends at the paper's 2,674,265 s), or tests, the later code behind Haizea's
//                test scenarios; --haizea-choices is the same as --haizea-preset tests
//   --migration-mb-s R  the link migrations use, MB/s (default the paper's 10; 12.5, Haizea's
//                100 Mbit/s, with --haizea-preset hpdc08)
//   --shard I/N  run only the runs whose index is I modulo N (run 0 is the no-AR baseline)
//                and write their raw results to --shard-dir/shard-I-of-N.txt; in a Slurm job
//                array, taken from SLURM_ARRAY_TASK_ID/_MIN/_COUNT (docs/sweeps.md)
//   --merge DIR  run nothing: print the tables and write the CSV from DIR's shard files, byte
//                for byte what one process running the whole sweep prints and writes
//   --no-timing  leave the wall times (run_seconds, the total) out, so outputs compare
//
// The baseline is an ordinary run of the sweep (run 0, in shard 0): a shard writes only raw
// metrics, and relative times are computed by whoever prints the tables (one process, or
// --merge), so no shard needs the baseline and no run is done twice.

#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <filesystem>
#include <fstream>
#include <iomanip>
#include <iostream>
#include <map>
#include <mutex>
#include <optional>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include <leasehold/io/gantt_recorder.hpp>
#include <leasehold/io/job_outcomes.hpp>
#include <leasehold/io/svg_plot.hpp>
#include <leasehold/policy/lease/lease_scheduler.hpp>
#include <leasehold/policy/staging/image_staging.hpp>
#include <leasehold/sim/lease_simulation.hpp>
#include <leasehold/sim/metrics.hpp>
#include <leasehold/sim/workload/ar_generator.hpp>
#include <leasehold/sim/workload/batch_model.hpp>
#include <leasehold/sim/workload/haizea_injection.hpp>
#include <leasehold/sim/workload/images.hpp>
#include <leasehold/sim/workload/swf.hpp>
#include <leasehold/sim/workload/swf_leases.hpp>
#include <leasehold/version.hpp>

#include "cli.hpp"
#include "progress.hpp"
#include "sweep.hpp"

namespace lh = leasehold;
namespace lease = leasehold::policy::lease;
namespace staging = leasehold::policy::staging;
using T = std::int64_t;

namespace {

constexpr std::size_t cluster_nodes = 144;
constexpr T paper_baseline = 2'674'265;  // §4.4: NOVM-NOSR without ARs
constexpr std::uint64_t ar_first_id = 1'000'000'000;

struct configuration {
  std::string name;
  lease::scheduler_config<T> config;
  bool vm_image;  // a single 4 GB image, predeployed (§4.4 VM-PREDEPLOY)
  // Image staging (VM-MULT, VM-REUSE-*): the staging knobs and the image list.
  std::optional<staging::staging_config> staged = std::nullopt;
  lh::workload::image_popularity images = lh::workload::image_popularity::single;
};

std::vector<configuration> configurations() {
  using lh::workload::image_popularity;
  const auto vm = lease::scheduler_config<T>::vm_predeploy();
  return {
      {"NOVM-NOSR", lease::scheduler_config<T>::novm_nosr(), false},
      {"NOVM-SR", lease::scheduler_config<T>::novm_sr(), false},
      {"VM-PREDEPLOY", vm, true},
      {"VM-MULT", vm, true, staging::staging_config::vm_mult(), image_popularity::uniform},
      {"VM-REUSE-UNIFORM", vm, true, staging::staging_config::vm_reuse(),
       image_popularity::uniform},
      {"VM-REUSE-SKEWED", vm, true, staging::staging_config::vm_reuse(), image_popularity::skewed}};
}

struct workload_id {
  int rho;    // percent
  int delta;  // hours
  int size;   // 1 small, 2 medium, 3 large
  [[nodiscard]] std::string name() const {
    static const char* sizes[] = {"", "small", "medium", "large"};
    return "[" + std::to_string(rho) + "%/" + std::to_string(delta) + "H/" + sizes[size] + "]";
  }
  [[nodiscard]] std::string file() const {
    static const char* sizes[] = {"", "1small", "2medium", "3large"};
    std::ostringstream out;
    out << "work_" << std::setw(2) << std::setfill('0') << rho << "-dur_" << delta << "h-size_"
        << sizes[size] << ".lwf";
    return out.str();
  }
};

struct outcome {
  std::string workload;
  std::string config;
  int rho = 0;
  lh::sim::lease_metrics metrics;
  staging::staging_stats images;
  double seconds = 0.0;
  std::size_t left_out = 0;             // ARs of the injection file starting before their arrival
  std::vector<std::string> lease_rows;  // --leases: one CSV row per lease
  std::vector<std::string> job_rows;    // --per-job: one row per lease, Batsim's layout
  std::optional<lh::io::gantt_chart> gantt;  // --gantt: the run's schedule
};

// --leases: one row per lease, the file a researcher compares with another simulator's
// (Haizea's own per-lease results). Wait and bounded slowdown as in §4.4.
constexpr const char* lease_header =
    "workload,config,id,kind,submit,first_start,end,nodes,requested_duration,real_duration,"
    "wait,bounded_slowdown,suspensions,migrations,state";

template <class Scheduler>
std::vector<std::string> lease_rows(const Scheduler& scheduler, const std::string& workload,
                                    const std::string& config) {
  std::vector<std::string> rows;
  rows.reserve(scheduler.leases().size());
  for (const auto& [id, l] : scheduler.leases()) {
    std::ostringstream row;
    const char* kind = l.terms.kind == lease::lease_kind::best_effort ? "best_effort"
                       : l.terms.kind == lease::lease_kind::immediate ? "immediate"
                                                                      : "advance_reservation";
    row << workload << ',' << config << ',' << id << ',' << kind << ',' << l.terms.submit << ',';
    if (l.first_start) row << *l.first_start;
    row << ',';
    if (l.end) row << *l.end;
    row << ',' << l.terms.nodes << ',' << l.terms.duration << ',' << l.terms.real_duration << ',';
    if (l.first_start) row << *l.first_start - l.terms.submit;
    row << ',';
    if (l.end) {
      const double run = static_cast<double>(l.terms.real_duration);
      row << std::setprecision(6)
          << static_cast<double>(*l.end - l.terms.submit) / std::max(run, 10.0);
    }
    row << ',' << l.suspensions << ',' << l.migrations << ',' << l.state;
    rows.push_back(row.str());
  }
  return rows;
}

lease::scheduler_config<T> paper_cluster(lease::scheduler_config<T> c) {
  c.backfill = lease::backfilling::aggressive();
  c.suspend_rate_mb_s = 50.0;
  c.resume_rate_mb_s = 50.0;
  c.network_mb_s = 10.0;
  c.runtime_slowdown_percent = 5;
  c.boot_shutdown = 20;
  return c;
}

using node_table = lh::cluster::slot_table<lh::free_list<T, lease::node_resources>>;

node_table paper_table_of_nodes() {
  return node_table(cluster_nodes, lease::node_resources{1, 1024, 20 * 1024, 10});
}

// --per-job: every lease of a run in Batsim's jobs.csv layout (io/batsim_jobs.hpp), then
// the run's context, so that the rows of all runs can share one file.
const lh::io::batsim_job_table per_job_table({"workload_name", "configuration", "seed", "days",
                                              "cancelled", "haizea_choices", "piggyback",
                                              "image_mb_s", "leasehold_version"});

template <class Scheduler>
std::vector<std::string> job_rows(const Scheduler& scheduler,
                                  const std::vector<std::string>& context) {
  std::vector<std::string> rows;
  rows.reserve(scheduler.leases().size());
  for (const auto& entry : scheduler.leases())
    rows.push_back(per_job_table.row(lh::io::job_outcome_of(entry.second), context));
  return rows;
}

// How a run is set up beyond its configuration: Haizea's own choices (--haizea-preset,
// --haizea-choices), the migration link (--migration-mb-s), how best-effort leases share image
// multicasts (--piggyback) and whether per-lease rows are kept (--leases, --per-job).
struct run_options {
  std::optional<lease::haizea_preset> haizea;
  double migration_mb_s = 10.0;  // B, the link migrations use (§4.3: 10 MB/s)
  staging::piggybacking piggyback = staging::piggybacking::join_multicast;
  double image_mb_s = 10.0;  // the repository link's bandwidth for images (§4.3: 10 MB/s)
  bool keep_leases = false;
  bool keep_jobs = false;
  bool keep_gantt = false;
  std::string workload;              // the label of the per-lease rows
  std::vector<std::string> context;  // the context columns of the per-job rows
};

lease::scheduler_config<T> run_config(const configuration& c, const run_options& o) {
  auto config = paper_cluster(c.config);
  config.network_mb_s = o.migration_mb_s;
  return o.haizea ? config.with_haizea(*o.haizea) : config;
}

void simulate(const std::vector<lease::lease_terms<T>>& best_effort,
              const std::vector<lease::lease_terms<T>>& ars, const configuration& c,
              std::uint64_t seed, const run_options& o, outcome& result) {
  std::vector<lease::lease_terms<T>> all = best_effort;
  all.insert(all.end(), ars.begin(), ars.end());
  if (c.vm_image)
    for (auto& l : all) l.image = lease::disk_image{"predeployed.img", 4096};
  lh::io::gantt_recorder<T> recorder;
  const auto keep_gantt = [&](const auto& scheduler) {
    if (o.keep_gantt)
      result.gantt = lh::io::gantt_chart_of(scheduler.leases(), cluster_nodes, recorder);
  };
  if (!c.staged) {
    lease::lease_scheduler<> scheduler(paper_table_of_nodes(), run_config(c, o));
    if (o.keep_gantt) scheduler.set_observer(&recorder);
    lh::sim::simulate_leases(scheduler, all);
    keep_gantt(scheduler);
    result.metrics = lh::sim::measure(scheduler.leases(), cluster_nodes);
    if (o.keep_leases) result.lease_rows = lease_rows(scheduler, o.workload, c.name);
    if (o.keep_jobs) result.job_rows = job_rows(scheduler, o.context);
    return;
  }
  // §4.2: one of 37 images of 4 GB per request (the same list for every staging
  // configuration with the same popularity); §4.3: 20 GB of each node's disk caches images,
  // 10 MB/s.
  const lh::workload::image_assignment assignment{.popularity = c.images, .size_mb = 4096};
  lh::workload::assign_images(all, assignment, seed);
  staging::staging_config sc = *c.staged;
  sc.bandwidth_mb_s = o.image_mb_s;
  sc.piggyback = o.piggyback;
  staging::image_staging<> images(cluster_nodes, sc);
  for (std::size_t i = 0; i < lh::workload::image_weights(assignment).size(); ++i)
    images.add_image({assignment.prefix + std::to_string(i), assignment.size_mb});
  lease::lease_scheduler<lh::free_list<T, lease::node_resources>, staging::image_staging<>>
      scheduler(paper_table_of_nodes(), run_config(c, o), std::move(images));
  if (o.keep_gantt) scheduler.set_observer(&recorder);
  lh::sim::simulate_leases(scheduler, all);
  keep_gantt(scheduler);
  result.metrics = lh::sim::measure(scheduler.leases(), cluster_nodes);
  if (o.keep_leases) result.lease_rows = lease_rows(scheduler, o.workload, c.name);
  if (o.keep_jobs) result.job_rows = job_rows(scheduler, o.context);
  result.images = scheduler.preparation_step().stats();
}

// Table 1 of the paper.
struct paper_row {
  const char* name;
  double relative[3];
  double wait_ks[3];
  double slowdown[3];
};
constexpr paper_row paper_table[] = {
    {"NOVM-NOSR", {3.91, 8.66, 23.93}, {16.91, 23.91, 68.95}, {60.48, 71.80, 296.74}},
    {"NOVM-SR", {-0.76, 0.10, 4.14}, {6.18, 8.14, 14.84}, {31.05, 49.56, 134.91}},
    {"VM-PREDEPLOY", {-0.27, 1.58, 7.19}, {8.05, 12.17, 22.89}, {39.60, 62.45, 133.59}},
    {"VM-MULT", {0.60, 3.95, 12.21}, {15.69, 34.56, 78.83}, {91.94, 203.39, 441.10}},
    {"VM-REUSE-UNIFORM", {0.03, 3.15, 10.74}, {12.31, 25.68, 62.52}, {62.24, 140.42, 338.60}},
    {"VM-REUSE-SKEWED", {-0.36, 2.48, 10.43}, {10.69, 22.85, 58.44}, {50.46, 115.99, 309.67}},
};

// --cancelled: the names of workload::cancelled_policy, for the option's check and the
// conversion alike.
const std::map<std::string, lh::workload::cancelled_policy> cancelled_policies{
    {"queue_until_wait", lh::workload::cancelled_policy::queue_until_wait},
    {"withdraw_at_wait", lh::workload::cancelled_policy::withdraw_at_wait},
    {"run_requested_time", lh::workload::cancelled_policy::run_requested_time},
    {"skip", lh::workload::cancelled_policy::skip}};

// --haizea-preset: the names of scheduler_config::with_haizea's presets; "0" is none (a
// shard or CSV row of a run without Haizea's choices).
const std::map<std::string, lease::haizea_preset> haizea_presets{
    {"hpdc08", lease::haizea_preset::hpdc08}, {"tests", lease::haizea_preset::tests}};

// Haizea's configuration for the paper's runs gave the network as 100 Mbit/s, which its code
// turned into 12.5 MB/s: the migration link of --haizea-preset hpdc08 unless --migration-mb-s
// says otherwise.
constexpr double hpdc08_migration_mb_s = 12.5;

// --piggyback: the names of staging::piggybacking.
const std::map<std::string, staging::piggybacking> piggyback_modes{
    {"join_multicast", staging::piggybacking::join_multicast},
    {"same_node", staging::piggybacking::same_node}};

// What chooses a sweep's runs and their inputs. A shard file records it, so that the merge
// step rebuilds the same list of runs and refuses shards of different sweeps.
struct sweep {
  bool all = false;
  bool generated = false;
  std::uint64_t seed = 2008;
  T days = 0;
  std::vector<std::string> configs;  // empty: all
  // Haizea's own choices: "0" (none), or a preset of scheduler_config::with_haizea
  // (haizea_presets; --haizea-choices is "tests").
  std::string haizea = "0";
  // The link migrations use (scheduler_config::network_mb_s), MB/s.
  double migration_mb_s = 10.0;
  std::string cancelled = "queue_until_wait";  // SWF status-5 jobs (workload::cancelled_policy)
  // Best-effort leases joining image multicasts not yet started (staging::piggybacking):
  // §3.2's "piggybacking on a scheduled multicast", Haizea's avoid-redundant-transfers.
  std::string piggyback = "join_multicast";
  // The repository link for images, MB/s: the paper's 10 (§4.3); Haizea's configuration
  // said 100 Mbit/s, which its code turned into 12.5 MB/s (docs/staging.md).
  double image_mb_s = 10.0;
  std::vector<int> rhos;  // Table 1's AR shares to run; empty: 10, 20, 30

  [[nodiscard]] std::string configs_text() const {
    std::string text;
    for (const auto& c : configs) text += (text.empty() ? "" : ",") + c;
    return text.empty() ? "-" : text;
  }
  [[nodiscard]] bool table_column(int rho) const {
    if (rhos.empty()) return rho == 10 || rho == 20 || rho == 30;
    return std::find(rhos.begin(), rhos.end(), rho) != rhos.end();
  }

  [[nodiscard]] std::vector<workload_id> workloads() const {
    std::vector<workload_id> list;
    for (int rho : {5, 10, 15, 20, 25, 30})
      for (int delta : {1, 2, 3, 4})
        for (int size : {1, 2, 3})
          if (all || (delta == 3 && size == 2 && table_column(rho)))
            list.push_back({rho, delta, size});
    return list;
  }
};

// One run: a (workload, configuration) pair, or the no-AR baseline (workload ==
// workloads.size()), always run 0 so that the run indices, and hence the shards, do not
// depend on anything but the sweep.
struct task {
  std::size_t workload;
  std::size_t config;
};

std::vector<task> tasks_of(const sweep& s, std::size_t workloads,
                           const std::vector<configuration>& configs) {
  std::vector<task> tasks{{workloads, 0}};
  for (std::size_t w = 0; w < workloads; ++w)
    for (std::size_t c = 0; c < configs.size(); ++c)
      if (s.configs.empty() ||
          std::find(s.configs.begin(), s.configs.end(), configs[c].name) != s.configs.end())
        tasks.push_back({w, c});
  return tasks;
}

// A run's expected cost relative to the others, for the progress estimate only. Runs come in
// order of rising AR share and the image staging configurations cost several times the others,
// so "the remaining runs cost what the finished ones did" was 2.4x (Table 1's 217 runs) to 10x
// (the default 19) optimistic early on. Measured on the paper's workloads (release build, 3
// days, one thread): a run's time grows about as rho + 5 (rho the AR share in percent; the
// no-AR baseline as 0 + 5), and VM-MULT, VM-REUSE-UNIFORM and VM-REUSE-SKEWED take about 12, 8
// and 6 times the others. With these weights the estimate stayed within 0.7x-1.5x of the time
// really left, from the first runs on.
double expected_cost(const task& t, const std::vector<workload_id>& workloads,
                     const std::vector<configuration>& configs) {
  const double rho = t.workload < workloads.size() ? workloads[t.workload].rho : 0.0;
  const std::string& name = configs[t.config].name;
  const double staging = name == "VM-MULT"            ? 12.0
                         : name == "VM-REUSE-UNIFORM" ? 8.0
                         : name == "VM-REUSE-SKEWED"  ? 6.0
                                                      : 1.0;
  return (rho + 5.0) * staging;
}

// Counts printed before the runs; a shard records them for the merge's identical output.
struct best_effort_summary {
  std::size_t leases = 0;
  std::size_t withdrawable = 0;
};

void print_best_effort(const sweep& s, const best_effort_summary& b) {
  std::cout << "Best-effort leases: " << b.leases << " ("
            << (s.generated ? "generated" : "blue-30days.swf") << "), " << b.withdrawable
            << (s.cancelled == "queue_until_wait"
                    ? " cancelled while waiting: held in the queue until submit + wait, never "
                      "started"
                    : " withdrawn if not started by submit + wait")
            << (s.haizea != "0" ? "; Haizea's own choices on (" + s.haizea + ")" : std::string())
            << (s.migration_mb_s != 10.0
                    ? "; migrations at " + (std::ostringstream() << s.migration_mb_s).str() +
                          " MB/s"
                    : std::string())
            << (s.piggyback == "same_node" ? "; best-effort leases join no other lease's multicast"
                                           : "")
            << (s.image_mb_s != 10.0 ? "; images at " + std::to_string(s.image_mb_s) + " MB/s"
                                     : std::string())
            << '\n';
}

// A shard's file: its raw per-run results, every number exact (integers, doubles in
// hexadecimal), so that the merge computes the relative times, the tables and the CSV from
// the same bits a single process would have. One token per field, one run per line.
constexpr const char* shard_magic = "leasehold-haizea-shard 1";

std::string shard_text(const sweep& s, const examples::shard& sh, const best_effort_summary& b,
                       const std::vector<task>& tasks, const std::vector<outcome>& results) {
  std::ostringstream out;
  out << examples::shard_file_header(shard_magic, sh) << "sweep " << s.all << ' ' << s.generated
      << ' ' << s.seed << ' ' << s.days << ' ' << s.configs_text() << ' ' << s.haizea << ' '
      << s.cancelled << ' ' << s.piggyback << ' ' << examples::exact(s.image_mb_s) << ' '
      << tasks.size() << ' ' << examples::exact(s.migration_mb_s) << "\nbest_effort " << b.leases
      << ' ' << b.withdrawable << '\n';
  for (std::size_t i = 0; i < tasks.size(); ++i) {
    if (!sh.owns(i)) continue;
    const auto& r = results[i];
    const auto& m = r.metrics;
    const auto& im = r.images;
    out << "run " << i << ' ' << m.all_best_effort << ' ' << examples::exact(m.mean_wait) << ' '
        << examples::exact(m.mean_bounded_slowdown) << ' ' << m.best_effort_completed << ' '
        << m.best_effort_measured << ' ' << m.best_effort_withdrawn << ' '
        << m.best_effort_unfinished << ' ' << m.ar_accepted << ' ' << m.ar_rejected << ' '
        << m.suspensions << ' ' << m.migrations << ' ' << m.cancellations << ' '
        << examples::exact(m.utilisation) << ' ' << im.cache_hits << ' ' << im.cache_misses << ' '
        << im.piggybacks << ' ' << im.transfers << ' ' << im.mb_transferred << ' '
        << im.mb_delivered << ' ' << r.left_out << ' ' << examples::exact(r.seconds) << '\n';
  }
  out << "end\n";  // a file cut short (a killed job) has no end line
  return out.str();
}

// Reads one shard file into `results` (the runs it owns), checking that it belongs to the
// sweep `s` of `expected_runs` runs. Returns false after printing an error naming the path
// and line.
bool read_shard(const std::filesystem::path& path, const examples::shard& sh, sweep& s, bool first,
                std::size_t& expected_runs, best_effort_summary& b, std::vector<outcome>& results,
                std::vector<bool>& seen) {
  examples::shard_reader in(path, sh);
  if (!in.open(shard_magic, "a haizea_experiment")) return false;
  std::string line;
  {
    if (!in.expect(line, "sweep")) return false;
    std::istringstream fields(line);
    std::string word;
    std::string configs;
    sweep here;
    std::size_t runs = 0;
    std::string image_rate;
    std::string migration_rate;
    if (!(fields >> word >> here.all >> here.generated >> here.seed >> here.days >> configs >>
          here.haizea >> here.cancelled >> here.piggyback >> image_rate >> runs) ||
        word != "sweep" || !examples::read_exact(image_rate, here.image_mb_s))
      return in.fail("malformed sweep line '" + line + "'");
    // Shards written before the presets and the migration link: "1" was --haizea-choices,
    // and migrations ran at 10 MB/s.
    if (here.haizea == "1") here.haizea = "tests";
    if (fields >> migration_rate && !examples::read_exact(migration_rate, here.migration_mb_s))
      return in.fail("malformed sweep line '" + line + "'");
    if (here.haizea != "0" && !haizea_presets.contains(here.haizea))
      return in.fail("unknown Haizea preset '" + here.haizea + "'");
    if (!cancelled_policies.contains(here.cancelled))
      return in.fail("unknown cancelled-job policy '" + here.cancelled + "'");
    if (!piggyback_modes.contains(here.piggyback))
      return in.fail("unknown piggybacking '" + here.piggyback + "'");
    if (configs != "-") {
      std::istringstream names(configs);
      for (std::string name; std::getline(names, name, ',');) here.configs.push_back(name);
    }
    if (first) {
      s = here;
      expected_runs = runs;
    } else if (here.all != s.all || here.generated != s.generated || here.seed != s.seed ||
               here.days != s.days || here.configs != s.configs || here.haizea != s.haizea ||
               here.migration_mb_s != s.migration_mb_s || here.cancelled != s.cancelled ||
               here.piggyback != s.piggyback || here.image_mb_s != s.image_mb_s ||
               runs != expected_runs) {
      return in.fail("a different sweep than the first shard's ('" + line + "')");
    }
  }
  {
    if (!in.expect(line, "best_effort")) return false;
    std::istringstream fields(line);
    std::string word;
    if (!(fields >> word >> b.leases >> b.withdrawable) || word != "best_effort")
      return in.fail("malformed best_effort line '" + line + "'");
  }
  if (first) {
    results.assign(expected_runs, outcome{});
    seen.assign(expected_runs, false);
  }
  while (in.next(line)) {
    if (line == "end") return in.at_end();
    std::istringstream fields(line);
    std::string word, wait, slowdown, utilisation, seconds;
    std::size_t i = 0;
    outcome r;
    auto& m = r.metrics;
    auto& im = r.images;
    if (!(fields >> word >> i >> m.all_best_effort >> wait >> slowdown >> m.best_effort_completed >>
          m.best_effort_measured >> m.best_effort_withdrawn >> m.best_effort_unfinished >>
          m.ar_accepted >> m.ar_rejected >> m.suspensions >> m.migrations >> m.cancellations >>
          utilisation >> im.cache_hits >> im.cache_misses >> im.piggybacks >> im.transfers >>
          im.mb_transferred >> im.mb_delivered >> r.left_out >> seconds) ||
        word != "run" || !examples::read_exact(wait, m.mean_wait) ||
        !examples::read_exact(slowdown, m.mean_bounded_slowdown) ||
        !examples::read_exact(utilisation, m.utilisation) ||
        !examples::read_exact(seconds, r.seconds) || !fields.eof())
      return in.fail("malformed run line '" + line + "'");
    if (!in.claim(i, seen)) return false;
    results[i] = r;
  }
  return in.fail("cut short (no end line)");
}

// Names a run's result after its workload and configuration.
void label(outcome& r, const task& t, const std::vector<workload_id>& workloads,
           const std::vector<configuration>& configs) {
  r.config = configs[t.config].name;
  if (t.workload == workloads.size()) {
    r.workload = "no ARs";
  } else {
    r.workload = workloads[t.workload].name();
    r.rho = workloads[t.workload].rho;
  }
}

// The CSV: one row per run. Each row carries what made it (the sweep's seed, days,
// cancelled-job policy and Haizea choices, and the library version), so that a row read on
// its own, or rows of several sweeps pasted together, still say how they were produced.
std::string csv_header(bool timing) {
  return std::string(
             "workload,configuration,all_best_effort_s,relative_to_baseline,mean_wait_s,"
             "mean_bounded_slowdown,best_effort_completed,best_effort_withdrawn,ar_accepted,"
             "ar_rejected,suspensions,migrations,cancellations,utilisation,cache_hits,"
             "cache_misses,piggybacks,transfers,mb_transferred") +
         (timing ? ",run_seconds" : "") +
         ",seed,days,cancelled,haizea_choices,piggyback,image_mb_s,leasehold_version\n";
}

std::string csv_row(const outcome& r, T baseline, const sweep& s, bool timing) {
  const auto& m = r.metrics;
  std::ostringstream row;
  row << '"' << r.workload << "\"," << r.config << ',' << m.all_best_effort << ','
      << m.relative_to(baseline) << ',' << m.mean_wait << ',' << m.mean_bounded_slowdown << ','
      << m.best_effort_completed << ',' << m.best_effort_withdrawn << ',' << m.ar_accepted << ','
      << m.ar_rejected << ',' << m.suspensions << ',' << m.migrations << ',' << m.cancellations
      << ',' << m.utilisation << ',' << r.images.cache_hits << ',' << r.images.cache_misses << ','
      << r.images.piggybacks << ',' << r.images.transfers << ',' << r.images.mb_transferred;
  if (timing) row << ',' << r.seconds;
  row << ',' << s.seed << ',' << s.days << ',' << s.cancelled << ',' << s.haizea << ','
      << s.piggyback << ',' << s.image_mb_s << ',' << lh::version_string << '\n';
  return row.str();
}

// The tables (on standard output) and the CSV of a whole sweep, the same whether its runs
// were done here or read from shards. `csv` is null when the rows were already written as
// the runs finished.
int report(const std::vector<workload_id>& workloads, const std::vector<task>& tasks,
           std::vector<outcome>& results, const std::vector<configuration>& configs, const sweep& s,
           std::ofstream* csv, const std::string& csv_path, bool timing,
           const std::string& svg_path) {
  for (std::size_t i = 0; i < tasks.size(); ++i) label(results[i], tasks[i], workloads, configs);
  // Notes in run order (not in the order threads loaded the files), each once.
  std::string notes;
  for (std::size_t i = 0; i < tasks.size(); ++i) {
    if (results[i].left_out == 0) continue;
    std::ostringstream line;
    line << "  " << results[i].workload << ": " << results[i].left_out
         << " AR(s) starting before their arrival left out\n";
    if (notes.find(line.str()) == std::string::npos) notes += line.str();
  }
  if (!notes.empty()) std::cout << "Notes:\n" << notes;
  const T baseline = results[0].metrics.all_best_effort;
  std::cout << "\nNo-AR NOVM-NOSR baseline: all best-effort leases done at " << baseline
            << " s (paper: " << paper_baseline << " s, " << std::showpos << std::fixed
            << std::setprecision(2)
            << 100.0 * (static_cast<double>(baseline) / paper_baseline - 1.0) << std::noshowpos
            << " %)\n";

  auto find = [&](const std::string& config, int rho) -> const outcome* {
    for (std::size_t i = 1; i < results.size(); ++i)
      if (results[i].config == config && workloads[tasks[i].workload].delta == 3 &&
          workloads[tasks[i].workload].size == 2 && results[i].rho == rho)
        return &results[i];
    return nullptr;
  };
  auto block = [&](const char* title, auto ours, auto theirs) {
    std::cout << '\n'
              << title << "\n  ours (paper)      " << std::setw(22) << "10%" << std::setw(22)
              << "20%" << std::setw(22) << "30%\n";
    for (const auto& row : paper_table) {
      std::cout << "  " << std::left << std::setw(18) << row.name << std::right;
      int k = 0;
      for (int rho : {10, 20, 30}) {
        std::ostringstream cell;
        cell << std::fixed << std::setprecision(2);
        if (const outcome* r = find(row.name, rho))
          cell << ours(*r);
        else
          cell << "-";
        cell << " (" << theirs(row, k++) << ")";
        std::cout << std::setw(22) << cell.str();
      }
      std::cout << '\n';
    }
  };
  block(
      "Time to complete best-effort leases, relative to the no-AR NOVM-NOSR baseline (%)",
      [&](const outcome& r) { return 100.0 * r.metrics.relative_to(baseline); },
      [](const paper_row& p, int k) { return p.relative[k]; });
  block(
      "Average waiting time for best-effort leases (thousands of seconds)",
      [](const outcome& r) { return r.metrics.mean_wait / 1000.0; },
      [](const paper_row& p, int k) { return p.wait_ks[k]; });
  block(
      "Average bounded slowdown", [](const outcome& r) { return r.metrics.mean_bounded_slowdown; },
      [](const paper_row& p, int k) { return p.slowdown[k]; });

  // Cells of up to ~30 characters (five counts): 34 wide, so neighbours never touch.
  std::cout << "\nImage staging (ours): cache hits / misses / piggybacks, transfers, GB sent\n";
  std::cout << "  " << std::setw(18) << "" << std::setw(34) << "10%" << std::setw(34) << "20%"
            << std::setw(34) << "30%" << '\n';
  for (const auto& name : {"VM-MULT", "VM-REUSE-UNIFORM", "VM-REUSE-SKEWED"}) {
    std::cout << "  " << std::left << std::setw(18) << name << std::right;
    for (int rho : {10, 20, 30}) {
      std::ostringstream cell;
      if (const outcome* r = find(name, rho))
        cell << r->images.cache_hits << '/' << r->images.cache_misses << '/' << r->images.piggybacks
             << ", " << r->images.transfers << ", " << r->images.mb_transferred / 1024;
      else
        cell << "-";
      std::cout << std::setw(34) << cell.str();
    }
    std::cout << '\n';
  }

  if (!svg_path.empty()) {
    // Table 1 as a figure: in each panel a point per (configuration, AR share) we ran, at
    // the paper's value (x) and ours (y), with the diagonal where they would be equal; a
    // reader sees at a glance where the reproduction departs from Sotomayor et al., and the
    // figure stays readable when only one column (--rho 10, the demo's) was run.
    namespace io = leasehold::io;
    const auto panel_for = [&](const std::string& title, const std::string& unit, auto ours,
                               auto theirs) {
      io::plot_panel panel{.title = title,
                           .x = {.title = "paper (" + unit + ")"},
                           .y = {.title = "ours (" + unit + ")"},
                           .series = {}};
      double lo = 0.0;
      double hi = 0.0;
      for (const auto& row : paper_table) {
        io::plot_series series{.name = row.name, .x = {}, .y = {}};
        int k = 0;
        for (int rho : {10, 20, 30}) {
          if (const outcome* r = find(row.name, rho)) {
            series.x.push_back(theirs(row, k));
            series.y.push_back(ours(*r));
            lo = std::min({lo, series.x.back(), series.y.back()});
            hi = std::max({hi, series.x.back(), series.y.back()});
          }
          ++k;
        }
        if (!series.x.empty()) panel.series.push_back(std::move(series));
      }
      panel.series.push_back({.name = "ours = paper", .x = {lo, hi}, .y = {lo, hi}});
      return panel;
    };
    const io::plot_figure figure{
        .title = "Sotomayor, Keahey & Foster (HPDC'08), Table 1: ours beside the paper's",
        .subtitle = "workloads [rho/3H/medium] (rho: AR share, --rho); our baseline " +
                    std::to_string(baseline) + " s (paper: " + std::to_string(paper_baseline) +
                    " s)",
        .panels = {panel_for(
                       "Time to complete best-effort leases vs no-AR baseline", "%",
                       [&](const outcome& r) { return 100.0 * r.metrics.relative_to(baseline); },
                       [](const paper_row& p, int k) { return p.relative[k]; }),
                   panel_for(
                       "Average waiting time of best-effort leases", "thousands of s",
                       [](const outcome& r) { return r.metrics.mean_wait / 1000.0; },
                       [](const paper_row& p, int k) { return p.wait_ks[k]; }),
                   panel_for(
                       "Average bounded slowdown of best-effort leases", "ratio",
                       [](const outcome& r) { return r.metrics.mean_bounded_slowdown; },
                       [](const paper_row& p, int k) { return p.slowdown[k]; })},
        .columns = 1,
        .notes = {"paper: Table 1 of Sotomayor, Keahey & Foster; ours: haizea_experiment"},
        .panel_width = 640,
        .panel_height = 340};
    if (!examples::write_file(svg_path, io::to_svg(figure))) return 1;
  }

  if (csv != nullptr) {
    *csv << csv_header(timing);
    for (const auto& r : results) *csv << csv_row(r, baseline, s, timing);
    if (!examples::close_output(*csv, csv_path)) return 1;
  }
  std::cout << '\n' << results.size() << " simulations";
  if (timing) {
    double total = 0.0;
    for (const auto& r : results) total += r.seconds;
    std::cout << ", " << std::setprecision(1) << total << " s of simulation time";
  }
  std::cout << "; results in " << examples::display_path(csv_path) << '\n';
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  sweep s;
  unsigned jobs = 2;
  std::string csv_path = "haizea_experiment.csv";
  bool no_timing = false;
  std::vector<std::string> config_names;
  for (const auto& c : configurations()) config_names.push_back(c.name);
  CLI::App app{
      "Table 1 of Sotomayor, Keahey & Foster (HPDC'08) on the paper's Blue Horizon workload "
      "(or a generated one with --generated)."};
  app.option_defaults()->always_capture_default();
  auto* all_opt = app.add_flag("--all", s.all, "run all 72 workloads, not just three");
  auto* generated_opt =
      app.add_flag("--generated", s.generated, "ignore ../shared and generate the workloads");
  auto* jobs_opt =
      app.add_option("--jobs", jobs, "simulations in parallel")->check(CLI::Range(1U, 1024U));
  app.add_option("--csv", csv_path, "where to write one line per run");
  std::string svg_path;
  app.add_option("--svg", svg_path,
                 "also draw Table 1 (ours beside the paper's) as an SVG figure in this file");
  auto* seed_opt =
      app.add_option("--seed", s.seed, "seed of the generated workloads and image assignments");
  auto* days_opt =
      app.add_option("--days", s.days,
                     "only the first D days of the trace (a quick smoke run; the baseline is then "
                     "that shorter run's); 0: all")
          ->check(CLI::Range(T{0}, T{100'000}));
  auto* configs_opt =
      app.add_option("--configs", s.configs, "only these configurations (comma-separated)")
          ->delimiter(',')
          ->check(CLI::IsMember(config_names));
  bool haizea_choices = false;
  auto* haizea_opt = app.add_flag(
      "--haizea-choices", haizea_choices,
      "the same as --haizea-preset tests (scheduler_config::with_haizea_choices: stretched ARs, "
      "per-VM overhead, slide-back re-planning, migration transfers first, ...)");
  std::string preset_name;
  auto* preset_opt =
      app.add_option("--haizea-preset", preset_name,
                     "make Haizea's own choices as one version of its code did "
                     "(scheduler_config::with_haizea): hpdc08 (the code behind the paper's runs; "
                     "migrations at 12.5 MB/s unless --migration-mb-s) or tests (the later code "
                     "behind Haizea's test scenarios)")
          ->check(CLI::IsMember(haizea_presets))
          ->excludes(haizea_opt);
  std::optional<double> migration_rate;
  auto* migration_rate_opt =
      app.add_option("--migration-mb-s", migration_rate,
                     "the link migrations use, MB/s (scheduler_config::network_mb_s; the paper's "
                     "10, or 12.5 with --haizea-preset hpdc08: Haizea's 100 Mbit/s)")
          ->check(examples::finite() & CLI::Range(0.001, 1e6));
  auto* cancelled_opt =
      app.add_option("--cancelled", s.cancelled,
                     "SWF jobs cancelled while waiting (status 5): queue_until_wait (as Haizea: "
                     "held until submit + wait, never started), withdraw_at_wait, "
                     "run_requested_time or skip")
          ->check(CLI::IsMember(cancelled_policies));
  auto* piggyback_opt =
      app.add_option("--piggyback", s.piggyback,
                     "image transfers for best-effort leases (VM-MULT, VM-REUSE-*): "
                     "join_multicast (§3.2, as Haizea: a lease's nodes join a multicast of its "
                     "image not yet started) or same_node (only a transfer already bound for "
                     "the node; the figures before this option)")
          ->check(CLI::IsMember(piggyback_modes));
  auto* image_rate_opt =
      app.add_option("--image-mb-s", s.image_mb_s,
                     "the repository link's bandwidth for image transfers, MB/s (the paper's 10; "
                     "Haizea's configuration gave 12.5)")
          ->check(examples::finite() & CLI::Range(1.0, 1e6));
  auto* rho_opt =
      app.add_option("--rho", s.rhos,
                     "only these columns of Table 1, by AR share in % (comma-separated; "
                     "default 10,20,30): --rho 10 runs the [10%/3H/medium] rows alone")
          ->delimiter(',')
          ->check(CLI::IsMember({10, 20, 30}));
  std::string leases_path;
  auto* leases_opt = app.add_option("--leases", leases_path,
                                    "also write one CSV row per lease of every run to this file");
  examples::shard_options shards;
  shards.add(
      app, "haizea_shards", "run only runs whose index is I modulo N",
      "run nothing: build the tables and the CSV from the shard files in this directory "
      "(the sweep options are read from them)",
      {all_opt, generated_opt, jobs_opt, seed_opt, days_opt, configs_opt, haizea_opt, preset_opt,
       migration_rate_opt, cancelled_opt, piggyback_opt, image_rate_opt, leases_opt, rho_opt});
  auto* shard_opt = shards.shard_option;
  const std::string& merge_dir = shards.merge_dir;
  const std::string& shard_dir = shards.dir;
  std::string per_job_path;
  auto* per_job_opt = app.add_option(
      "--per-job", per_job_path,
      "also write every lease of every run in Batsim's jobs.csv layout (job_id, "
      "submission_time, ..., stretch, allocated_resources) to this file, with the run's "
      "workload, configuration, seed, days, cancelled, haizea_choices and leasehold_version");
  leases_opt->excludes(shard_opt);
  per_job_opt->excludes(shard_opt)->excludes(shards.merge_option);
  // Shard files record the sweep without the column choice, so a subset of columns is for
  // single-process runs only (the demo's).
  rho_opt->excludes(shard_opt)->excludes(all_opt);
  // --gantt: one run's schedule, so one configuration and one load (AR share) only.
  std::string gantt_path;
  auto* gantt_opt = app.add_option(
      "--gantt", gantt_path,
      "draw the schedule of a single run (one --configs NAME and one --rho R) as a Gantt chart "
      "in this SVG file: nodes against time, a bar per lease segment coloured by kind, "
      "advance reservations outlined, suspensions, migrations and image transfers marked");
  gantt_opt->excludes(shard_opt)->excludes(shards.merge_option)->excludes(all_opt);
  app.add_flag("--no-timing", no_timing,
               "leave the run_seconds column and the total simulation time out (for outputs "
               "that must compare byte for byte)");
  if (const auto code = examples::parse(app, argc, argv)) return *code;
  if (haizea_choices) preset_name = "tests";
  if (!preset_name.empty()) s.haizea = preset_name;
  s.migration_mb_s =
      migration_rate.value_or(preset_name == "hpdc08" ? hpdc08_migration_mb_s : 10.0);
  if (!gantt_path.empty() && (s.configs.size() != 1 || s.rhos.size() != 1)) {
    std::cerr
        << "error: --gantt draws the schedule of one run: pass one configuration (--configs NAME) "
           "and one load (--rho R); this command asks for "
        << (s.configs.empty() ? config_names.size() : s.configs.size()) << " configuration(s) x "
        << (s.rhos.empty() ? 3 : s.rhos.size()) << " load(s)\n";
    return 2;
  }
  // The figures are written after the sweep: their paths are checked (and their directories
  // made) before, so that a bad --svg or --gantt fails at once rather than after hours of runs.
  if (!examples::prepare_output(svg_path) || !examples::prepare_output(gantt_path)) return 1;
  const bool timing = !no_timing;
  const auto configs = configurations();

  if (!merge_dir.empty()) {
    // Every shard 0..N-1 of the directory's N must be present, and every run in one of them;
    // then the sweep the first shard recorded must be one this program knows.
    best_effort_summary b;
    std::size_t runs = 0;
    std::vector<outcome> results;
    std::vector<bool> seen;
    std::string sweep_file;  // the first shard, whose line 3 holds the sweep
    if (!examples::read_shards(
            merge_dir, seen, [&](const auto& path, const auto& sh, bool first_shard) {
              if (first_shard) sweep_file = path.string();
              return read_shard(path, sh, s, first_shard, runs, b, results, seen);
            }))
      return 1;
    for (const auto& name : s.configs)
      if (std::find(config_names.begin(), config_names.end(), name) == config_names.end()) {
        std::cerr << "error: " << sweep_file << ": line 3: unknown configuration " << name << '\n';
        return 1;
      }
    const auto workloads = s.workloads();
    const auto tasks = tasks_of(s, workloads.size(), configs);
    if (tasks.size() != runs) {
      std::cerr << "error: " << sweep_file << ": line 3: " << runs << " runs, but its sweep has "
                << tasks.size() << '\n';
      return 1;
    }
    std::ofstream csv;
    if (!examples::open_output(csv, csv_path)) return 1;
    print_best_effort(s, b);
    return report(workloads, tasks, results, configs, s, &csv, csv_path, timing, svg_path);
  }

  const std::optional<examples::shard> shard = shards.chosen();

  const std::filesystem::path data =
      std::filesystem::path(LEASEHOLD_SHARED_DIR) / "haizea-workloads";
  const bool have_data = !s.generated;
  if (have_data && !std::filesystem::exists(data / "blue-30days.swf")) {
    std::cerr << "error: the paper's workload " << (data / "blue-30days.swf").string()
              << " is not there; pass --generated to run on generated workloads instead\n";
    return 1;
  }
  if (have_data && !examples::check_input((data / "blue-30days.swf").string())) return 1;

  // Best-effort requests: the paper's 5,545 (§4.2), or the workload model's imitation.
  lh::swf::log log;
  if (have_data) {
    std::ifstream in(data / "blue-30days.swf");
    log = lh::swf::read(in);
  } else {
    log = lh::workload::generate_batch(lh::workload::batch_model{}, s.seed);
  }
  lh::workload::swf_conversion conversion;
  conversion.cancelled = cancelled_policies.at(s.cancelled);  // checked by --cancelled
  auto best_effort = lh::workload::to_best_effort<T>(log.records, conversion);
  const T cut = s.days > 0 ? s.days * 86400 : lh::forever<T>;
  std::erase_if(best_effort, [cut](const auto& l) { return l.submit >= cut; });
  T last_submit = 0;
  for (const auto& l : best_effort) last_submit = std::max(last_submit, l.submit);
  const best_effort_summary summary{
      best_effort.size(), static_cast<std::size_t>(
                              std::count_if(best_effort.begin(), best_effort.end(),
                                            [](const auto& l) { return l.withdraw.has_value(); }))};
  print_best_effort(s, summary);

  const auto workloads = s.workloads();
  // With the paper's data every AR injection file must be there: none is replaced by a
  // generated one behind the user's back.
  if (have_data)
    for (const auto& w : workloads)
      if (!examples::check_input((data / "ar-injections-30days" / w.file()).string())) return 1;

  // Opened before the (long) runs so that an unwritable path fails at once.
  std::ofstream csv;
  const std::filesystem::path shard_file =
      shard ? examples::shard_path(shard_dir, *shard) : std::filesystem::path();
  if (shard) {
    if (!examples::make_directories(shard_dir)) return 1;
  } else if (!examples::open_output(csv, csv_path)) {
    return 1;
  }
  std::ofstream leases_csv;
  if (!leases_path.empty() && !examples::open_output(leases_csv, leases_path)) return 1;
  std::ofstream per_job_csv;
  if (!per_job_path.empty() && !examples::open_output(per_job_csv, per_job_path)) return 1;

  auto load_ars = [&](const workload_id& w, std::size_t& left_out) {
    std::vector<lh::haizea::injection> lines;
    if (have_data) {
      std::ifstream in(data / "ar-injections-30days" / w.file());
      lines = lh::haizea::read_injections(in).leases;
    } else {
      lh::workload::ar_injection_config c;
      c.rho = w.rho / 100.0;
      c.delta = w.delta * 3600;
      c.nu = w.size == 1 ? lh::workload::small_leases
                         : (w.size == 2 ? lh::workload::medium_leases : lh::workload::large_leases);
      c.trace_end = last_submit;
      lines = lh::workload::generate_ar_injections(
          c, s.seed + static_cast<std::uint64_t>(100 * w.rho + 10 * w.delta + w.size));
    }
    // Four lines of the published files (in [25%/1H/small] and [30%/1H/small]) start before
    // they arrive, at negative times; the scheduler rejects such terms as malformed, so they
    // are left out here and counted.
    const auto before = lines.size();
    std::erase_if(lines, [](const lh::haizea::injection& l) { return l.start < l.arrival; });
    left_out = before - lines.size();
    std::erase_if(lines, [cut](const lh::haizea::injection& l) { return l.start >= cut; });
    return lh::haizea::to_lease_terms<T>(lines, ar_first_id);
  };

  // Every run of the sweep (or of this shard) on `jobs` threads; results kept in run order so
  // that the output does not depend on the threads.
  const auto tasks = tasks_of(s, workloads.size(), configs);
  std::vector<std::size_t> mine;
  for (std::size_t i = 0; i < tasks.size(); ++i)
    if (!shard || shard->owns(i)) mine.push_back(i);
  std::vector<outcome> results(tasks.size());
  std::atomic<std::size_t> next{0};
  std::mutex output;

  // Without --shard the rows are written in run order as soon as a run and every run before
  // it are done, and flushed: a sweep killed midway leaves every row finished before it, and
  // the files do not depend on the thread count. Run 0, the baseline every relative time
  // needs, is always the first. A write that fails stops the sweep (no new run starts).
  std::size_t written = 0;  // of `mine`
  std::vector<bool> done(mine.size(), false);
  std::atomic<bool> write_failed{false};
  std::string failed_path;
  const auto check_stream = [&](const std::ofstream& out, const std::string& path) {
    if (out.is_open() && !out && failed_path.empty()) {
      failed_path = path;
      write_failed = true;
    }
  };
  const auto write_ready = [&] {  // with `output` held
    while (written < mine.size() && done[written]) {
      outcome& r = results[mine[written]];
      if (!shard) {
        csv << csv_row(r, results[0].metrics.all_best_effort, s, timing) << std::flush;
        check_stream(csv, csv_path);
        for (const auto& row : r.lease_rows) leases_csv << row << '\n';
        if (leases_csv.is_open()) leases_csv.flush();
        check_stream(leases_csv, leases_path);
        for (const auto& row : r.job_rows) per_job_csv << row;
        if (per_job_csv.is_open()) per_job_csv.flush();
        check_stream(per_job_csv, per_job_path);
        r.lease_rows = {};  // written: the sweep need not hold every lease in memory
        r.job_rows = {};
      }
      ++written;
    }
  };
  if (!shard) {
    csv << csv_header(timing);
    if (leases_csv.is_open()) leases_csv << lease_header << '\n';
    if (per_job_csv.is_open()) per_job_csv << per_job_table.header();
  }

  double total_cost = 0;
  for (const std::size_t i : mine) total_cost += expected_cost(tasks[i], workloads, configs);
  examples::progress_meter meter("haizea_experiment: runs done", mine.size(), total_cost);
  std::atomic<bool> run_failed{false};
  std::string run_failure;
  auto worker = [&] {
    while (!write_failed && !run_failed) {
      const std::size_t k = next++;
      if (k >= mine.size()) return;
      const std::size_t i = mine[k];
      const task& t = tasks[i];
      const auto started = std::chrono::steady_clock::now();
      outcome& r = results[i];
      label(r, t, workloads, configs);
      std::ostringstream days;
      days << s.days;
      std::ostringstream image_rate;
      image_rate << s.image_mb_s;
      run_options o{
          .haizea = s.haizea == "0" ? std::nullopt : std::optional(haizea_presets.at(s.haizea)),
          .migration_mb_s = s.migration_mb_s,
          .piggyback = piggyback_modes.at(s.piggyback),
          .image_mb_s = s.image_mb_s,
          .keep_leases = !leases_path.empty(),
          .keep_jobs = !per_job_path.empty(),
          .keep_gantt = !gantt_path.empty() && t.workload != workloads.size(),
          .workload = t.workload == workloads.size() ? "no-AR" : workloads[t.workload].file(),
          .context = {r.workload, r.config, std::to_string(s.seed), days.str(), s.cancelled,
                      s.haizea, s.piggyback, image_rate.str(), lh::version_string}};
      // A run that throws (a library error is a bug here: every input was checked before)
      // stops the sweep and is reported with its run, rather than ending the process from a
      // worker thread.
      try {
        if (t.workload == workloads.size())
          simulate(best_effort, {}, configs[t.config], s.seed, o, r);
        else
          simulate(best_effort, load_ars(workloads[t.workload], r.left_out), configs[t.config],
                   s.seed, o, r);
      } catch (const std::exception& e) {
        const std::lock_guard lock(output);
        if (!run_failed.exchange(true)) run_failure = r.workload + " " + r.config + ": " + e.what();
        return;
      }
      r.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
      const std::lock_guard lock(output);
      done[k] = true;
      write_ready();
      meter.advance(1, expected_cost(t, workloads, configs));
    }
  };
  std::vector<std::thread> threads;
  for (unsigned j = 0; j < std::max(1u, jobs); ++j) threads.emplace_back(worker);
  for (auto& thread : threads) thread.join();
  meter.finish();
  if (run_failed) {
    std::cerr << "error: run " << run_failure << "; the sweep was stopped\n";
    return 1;
  }
  if (write_failed) {
    std::cerr << "error: writing " << failed_path << " failed; the sweep was stopped after "
              << written << " of " << mine.size() << " runs\n";
    return 1;
  }

  if (shard) {
    if (!examples::write_file(shard_file, shard_text(s, *shard, summary, tasks, results))) return 1;
    std::cout << "Shard " << shard->index << '/' << shard->count << ": " << mine.size() << " of "
              << tasks.size() << " runs; raw results in " << shard_file.string()
              << " (build the tables with --merge " << shard_dir << ")\n";
    return 0;
  }
  if (!examples::close_output(csv, csv_path)) return 1;
  if (leases_csv.is_open()) {
    if (!examples::close_output(leases_csv, leases_path)) return 1;
    std::cout << "Per-lease rows in " << leases_path << '\n';
  }
  if (per_job_csv.is_open()) {
    if (!examples::close_output(per_job_csv, per_job_path)) return 1;
    std::cout << "Per-job rows (Batsim's layout) in " << per_job_path << '\n';
  }
  for (outcome& r : results)
    if (r.gantt) {
      r.gantt->title = "haizea_experiment: " + r.config + " on " + r.workload;
      r.gantt->subtitle = std::to_string(r.metrics.ar_accepted) +
                          " advance reservations accepted, " +
                          std::to_string(r.metrics.suspensions) + " suspensions, " +
                          std::to_string(r.metrics.migrations) + " migrations";
      r.gantt->notes = {"seed " + std::to_string(s.seed) +
                        (s.days > 0 ? ", first " + std::to_string(s.days) + " days" : "") +
                        (s.generated ? ", generated workload" : "") +
                        "; time from the trace's start"};
      if (!examples::write_file(gantt_path, lh::io::to_svg(*r.gantt))) return 1;
      std::cout << "Gantt chart in " << examples::display_path(gantt_path) << '\n';
    }
  return report(workloads, tasks, results, configs, s, nullptr, csv_path, timing, svg_path);
}
