// Pilot jobs: a many-task workload run through Coasters worker blocks (Hategan, Wozniak &
// Maheshwari, "Coasters", §4.5) on a batch cluster that other users also book, against the same
// jobs each submitted to the batch system as its own request.
//
// The workload follows the paper's modFTDock run (§5.3): independent single-core jobs whose run
// times are close to normal with the mode at 15 s, on 20 nodes x 4 cores. By default 10,000
// jobs so that the example runs in a moment; `--jobs 100000` is the paper's size. Everything is
// seeded (`--seed`), so a run is reproducible to the digit. `--help` lists the knobs.
//
// The batch cluster is a free_list of cores. Other users' reservations arrive at random and are
// booked first; then both runs start at t = 0 on their own copy of that cluster:
//  - pilot: a pilot_service plans blocks every `--plan-interval` s; each block is booked at its
//    earliest fit no sooner than `--batch-latency` s after the request and spends
//    `--worker-startup` s starting its workers; the dispatcher gives every free worker the largest
//    queued job that fits its block's remaining time;
//  - direct: each job is a 1-core batch request for worker-startup + walltime, booked at its
//    earliest fit no sooner than batch-latency s after submission, at most `--queue-limit` of them
//    waiting at a time (the site's per-user limit); a job's unused booked time is given back when
//    it ends.
// The event loop is a small deterministic one of this file's own (time, then sequence number).

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <iomanip>
#include <iostream>
#include <limits>
#include <optional>
#include <queue>
#include <random>
#include <sstream>
#include <string>
#include <string_view>
#include <tuple>
#include <vector>

#include <leasehold/leasehold.hpp>
#include <leasehold/policy/pilot/pilot_service.hpp>

#include "cli.hpp"
#include "progress.hpp"

namespace {

using leasehold::free_list;
using leasehold::interval;
using leasehold::request;
using time_type = std::int64_t;
using cluster_type = free_list<time_type, std::int64_t>;

struct options {
  std::int64_t jobs = 10'000;
  std::uint32_t seed = 42;
  std::int64_t nodes = 20;
  std::int64_t cores_per_node = 4;
  double mean_runtime = 15.0;       // s, the mode of the paper's Fig. 7
  double runtime_sd = 5.0;          // s
  double estimate_factor = 1.25;    // walltime = ceil(runtime * factor)
  time_type background_gap = 2400;  // mean s between other users' reservations; 0: none
  time_type batch_latency = 30;     // s from a batch request to its earliest start
  time_type worker_startup = 10;    // s of batch prologue / worker start-up per batch job
  std::int64_t queue_limit = 100;   // waiting batch jobs per user (direct submission)
  time_type plan_interval = 10;     // s between the Coaster Service's planning rounds
  time_type coverage_horizon = leasehold::forever<time_type>;  // see pilot_config
  leasehold::policy::pilot::block_config<time_type> blocks{};
};

struct job {
  time_type runtime;
  time_type walltime;
};

struct background_reservation {
  interval<time_type> span;
  std::int64_t cores;
};

// ---- a deterministic event queue ------------------------------------------------------------

enum class event_kind { plan_tick, job_end, block_ready, job_start };

struct event {
  time_type at;
  std::uint64_t sequence;
  event_kind kind;
  std::uint64_t id;
  friend bool operator>(const event& a, const event& b) {
    return std::tie(a.at, a.sequence) > std::tie(b.at, b.sequence);
  }
};

class event_queue {
 public:
  void push(time_type at, event_kind kind, std::uint64_t id = 0) {
    events_.push({at, next_++, kind, id});
  }
  [[nodiscard]] bool empty() const { return events_.empty(); }
  event pop() {
    event e = events_.top();
    events_.pop();
    return e;
  }

 private:
  std::priority_queue<event, std::vector<event>, std::greater<>> events_;
  std::uint64_t next_ = 0;
};

// ---- workload and cluster -------------------------------------------------------------------

std::vector<job> make_jobs(const options& o, std::mt19937_64& random) {
  std::normal_distribution<double> runtime(o.mean_runtime, o.runtime_sd);
  std::vector<job> jobs;
  jobs.reserve(static_cast<std::size_t>(o.jobs));
  for (std::int64_t i = 0; i < o.jobs; ++i) {
    const auto r = static_cast<time_type>(std::clamp(std::round(runtime(random)), 1.0, 60.0));
    const auto w = static_cast<time_type>(std::ceil(static_cast<double>(r) * o.estimate_factor));
    jobs.push_back({r, std::max(r, w)});
  }
  return jobs;
}

// Other users' jobs, booked as reservations before the many-task run starts.
std::vector<background_reservation> make_background(const options& o, time_type horizon,
                                                    std::mt19937_64& random) {
  std::vector<background_reservation> result;
  if (o.background_gap <= 0) return result;
  std::exponential_distribution<double> gap(1.0 / static_cast<double>(o.background_gap));
  std::uniform_int_distribution<std::int64_t> nodes(1, std::max<std::int64_t>(1, o.nodes / 2));
  std::uniform_int_distribution<time_type> duration(600, 3600);
  for (double t = 0; t < static_cast<double>(horizon); t += gap(random)) {
    const auto begin = static_cast<time_type>(t);
    result.push_back({{begin, begin + duration(random)}, nodes(random) * o.cores_per_node});
  }
  return result;
}

cluster_type make_cluster(const options& o, const std::vector<background_reservation>& others) {
  cluster_type cluster(o.nodes * o.cores_per_node);
  for (const background_reservation& r : others) {
    const request<time_type, std::int64_t> ask{
        .amount = r.cores,
        .duration = r.span.end - r.span.begin,
        .window = {r.span.begin, leasehold::forever<time_type>}};
    const time_type start = *cluster.earliest_fit(ask);
    cluster.reserve({start, start + ask.duration}, r.cores);
  }
  return cluster;
}

double background_load(const cluster_type& cluster, time_type until, std::int64_t total) {
  double booked = 0;
  for (const auto& block : cluster.free_blocks()) {
    if (block.span.begin >= until) break;
    const time_type end = std::min(block.span.end, until);
    booked += static_cast<double>(total - block.free) * static_cast<double>(end - block.span.begin);
  }
  return booked / (static_cast<double>(total) * static_cast<double>(until));
}

// ---- the two runs ---------------------------------------------------------------------------

struct outcome {
  time_type makespan = 0;
  double busy = 0;       // core-s running jobs
  double allocated = 0;  // core-s held by batch jobs (blocks, or one per job)
  std::size_t batch_jobs = 0;
  double mean_wait = 0;  // direct: s from submission to job start
  std::size_t rounds = 0;
  std::vector<leasehold::policy::pilot::block_record<time_type>> blocks;
};

outcome run_pilot(const options& o, const std::vector<job>& jobs, cluster_type cluster,
                  examples::progress_meter& meter) {
  namespace pilot = leasehold::policy::pilot;
  pilot::pilot_service<cluster_type> service(cluster, {.blocks = o.blocks,
                                                       .dispatch = {},
                                                       .worker_startup = o.worker_startup,
                                                       .batch_latency = o.batch_latency,
                                                       .coverage_horizon = o.coverage_horizon});
  for (std::size_t i = 0; i < jobs.size(); ++i)
    service.submit({.id = i, .walltime = jobs[i].walltime});

  outcome result;
  event_queue events;
  events.push(0, event_kind::plan_tick);
  std::size_t done = 0;
  const auto dispatch = [&](time_type now) {
    for (const pilot::assignment<time_type>& a : service.dispatch(now))
      events.push(now + jobs[a.job].runtime, event_kind::job_end, a.job);
  };
  while (!events.empty()) {
    const event e = events.pop();
    switch (e.kind) {
      case event_kind::plan_tick:
        for (const auto& block : service.plan(e.at))
          events.push(block.booked.begin + o.worker_startup, event_kind::block_ready, block.id);
        dispatch(e.at);
        service.release_idle(e.at);
        service.retire_expired(e.at);
        if (done < jobs.size()) events.push(e.at + o.plan_interval, event_kind::plan_tick);
        break;
      case event_kind::block_ready:
        dispatch(e.at);
        break;
      case event_kind::job_end:
        service.complete(e.id, e.at);
        meter.advance();
        result.busy += static_cast<double>(jobs[e.id].runtime);
        result.makespan = std::max(result.makespan, e.at);
        if (++done == jobs.size()) {
          // The workload is over: the blocks still held go back once their idle delay passes.
          service.release_idle(e.at + service.config().dispatch.idle_release_delay);
        } else {
          dispatch(e.at);
        }
        break;
      case event_kind::job_start:
        break;
    }
  }
  result.blocks = service.history();
  result.rounds = service.rounds();
  result.batch_jobs = result.blocks.size();
  for (const auto& block : result.blocks)
    result.allocated +=
        static_cast<double>(block.workers) * static_cast<double>(block.end() - block.booked.begin);
  return result;
}

outcome run_direct(const options& o, const std::vector<job>& jobs, cluster_type cluster,
                   examples::progress_meter& meter) {
  outcome result;
  event_queue events;
  std::size_t next = 0;
  double total_wait = 0;
  const auto submit = [&](time_type now) {
    const job& j = jobs[next];
    const request<time_type, std::int64_t> ask{
        .amount = 1,
        .duration = o.worker_startup + j.walltime,
        .window = {now + o.batch_latency, leasehold::forever<time_type>}};
    const time_type start = *cluster.earliest_fit(ask);
    cluster.reserve({start, start + ask.duration}, 1);
    total_wait += static_cast<double>(start - now);
    events.push(start, event_kind::job_start, next);
    ++next;
  };
  while (next < jobs.size() && static_cast<std::int64_t>(next) < o.queue_limit) submit(0);
  while (!events.empty()) {
    const event e = events.pop();
    const job& j = jobs[e.id];
    if (e.kind == event_kind::job_start) {
      events.push(e.at + o.worker_startup + j.runtime, event_kind::job_end, e.id);
      if (next < jobs.size()) submit(e.at);  // a queue slot is free again
    } else {
      // The job ends before its walltime: the batch system frees its core early.
      const time_type booked_end = e.at + (j.walltime - j.runtime);
      if (booked_end > e.at) cluster.release({e.at, booked_end}, 1);
      meter.advance();
      result.busy += static_cast<double>(j.runtime);
      result.allocated += static_cast<double>(o.worker_startup + j.runtime);
      result.makespan = std::max(result.makespan, e.at);
    }
  }
  result.batch_jobs = jobs.size();
  result.mean_wait = total_wait / static_cast<double>(jobs.size());
  return result;
}

// ---- reporting ------------------------------------------------------------------------------

template <class Value>
void print_spread(const char* what, std::vector<Value> values, const char* unit) {
  if (values.empty()) return;
  std::sort(values.begin(), values.end());
  std::cout << "    " << std::left << std::setw(22) << what << std::right << "min "
            << values.front() << ", median " << values[values.size() / 2] << ", max "
            << values.back() << unit << '\n';
}

void report(const char* name, const options& o, const outcome& r, std::size_t job_count) {
  const double cluster_core_s =
      static_cast<double>(o.nodes * o.cores_per_node) * static_cast<double>(r.makespan);
  std::cout << std::fixed << std::setprecision(1) << name << '\n'
            << "    makespan              " << static_cast<double>(r.makespan) / 60.0 << " min\n"
            << "    jobs per second       " << std::setprecision(2)
            << static_cast<double>(job_count) / static_cast<double>(r.makespan) << '\n'
            << "    batch jobs submitted  " << r.batch_jobs << '\n'
            << std::setprecision(1) << "    utilisation of allocated cores "
            << 100.0 * r.busy / r.allocated << " %\n"
            << "    share of the cluster running jobs " << 100.0 * r.busy / cluster_core_s << " %\n"
            << "    wasted allocated time " << (r.allocated - r.busy) / 3600.0 << " core-h of "
            << r.allocated / 3600.0 << " core-h\n";
  if (r.mean_wait > 0) std::cout << "    mean wait in the batch queue " << r.mean_wait << " s\n";
  if (!r.blocks.empty()) {
    std::vector<std::int64_t> workers;
    std::vector<time_type> walltimes;
    std::vector<time_type> waits;
    std::size_t released = 0;
    for (const auto& b : r.blocks) {
      workers.push_back(b.workers);
      walltimes.push_back(b.walltime);
      waits.push_back(b.booked.begin - b.requested_at);
      if (b.released_at) ++released;
    }
    std::cout << "    planning rounds with uncovered jobs: " << r.rounds << '\n';
    print_spread("block width", workers, " workers");
    print_spread("block walltime", walltimes, " s");
    print_spread("block start delay", waits, " s");
    std::cout << "    blocks released early " << released << " of " << r.blocks.size() << '\n';
  }
}

// Fills `o` from the command line; returns the exit code when the program should stop (0 after
// --help, 2 for a bad option). Ranges reject what would make the run meaningless (no jobs, a
// walltime shorter than the run time); the block_config ranges are the ones pilot_service
// checks.
std::optional<int> parse(int argc, char** argv, options& o) {
  o.blocks.cores_per_node = o.cores_per_node;
  o.blocks.max_nodes = 5;  // a quarter of the cluster: see docs/pilot.md for 20
  o.blocks.max_walltime = 4 * 3600;
  constexpr std::int64_t big = std::int64_t{1} << 40;
  CLI::App app{
      "Pilot jobs (Coasters worker blocks) against direct batch submission on a shared "
      "cluster of 20 nodes x 4 cores."};
  app.option_defaults()->always_capture_default();
  app.add_option("--jobs", o.jobs, "many-task jobs (the paper's run is 100000)")
      ->check(CLI::Range(std::int64_t{1}, std::int64_t{100'000'000}));
  app.add_option("--seed", o.seed, "random seed");
  app.add_option("--background-gap", o.background_gap,
                 "mean s between other users' reservations (0 disables them)")
      ->check(CLI::Range(time_type{0}, big));
  app.add_option("--batch-latency", o.batch_latency, "s from a batch request to its earliest start")
      ->check(CLI::Range(time_type{0}, big));
  app.add_option("--worker-startup", o.worker_startup, "s of batch prologue per batch job")
      ->check(CLI::Range(time_type{0}, big));
  app.add_option("--queue-limit", o.queue_limit, "waiting batch jobs per user (direct runs)")
      ->check(CLI::Range(std::int64_t{1}, big));
  app.add_option("--plan-interval", o.plan_interval, "s between planning rounds")
      ->check(CLI::Range(time_type{1}, big));
  app.add_option("--estimate-factor", o.estimate_factor, "walltime = ceil(F x runtime)")
      ->check(examples::finite() & CLI::Range(1.0, 1000.0));
  app.add_option("--spread", o.blocks.spread, "block size spread in a round")
      ->check(examples::finite() & CLI::Range(0.0, 1.0));
  app.add_option("--step", o.blocks.allocation_step_size,
                 "fraction of free block slots used per round, in (0, 1]")
      ->check(examples::finite() & CLI::Range(1e-9, 1.0));
  app.add_option("--max-blocks", o.blocks.max_blocks, "worker blocks submitted at a time")
      ->check(CLI::Range(std::size_t{1}, std::size_t{1'000'000}));
  app.add_option("--low-overallocation", o.blocks.low_overallocation,
                 "O_l, overallocation of short jobs (>= O_h)")
      ->check(examples::finite() & CLI::Range(1.0, 1e6));
  app.add_option("--high-overallocation", o.blocks.high_overallocation,
                 "O_h, overallocation of long jobs")
      ->check(examples::finite() & CLI::Range(1.0, 1e6));
  app.add_option("--decay", o.blocks.overallocation_decay, "beta of the overallocation curve, s")
      ->check(examples::finite() & CLI::Range(1e-9, 1e12));
  app.add_option("--max-walltime", o.blocks.max_walltime, "longest block, s")
      ->check(CLI::Range(time_type{1}, big));
  app.add_option("--max-nodes", o.blocks.max_nodes, "widest block, nodes")
      ->check(CLI::Range(std::int64_t{1}, big));
  app.add_option("--coverage-horizon", o.coverage_horizon,
                 "count only block time within S s as covering queued jobs (default: all, as "
                 "the paper)")
      ->check(CLI::Range(time_type{1}, leasehold::forever<time_type>));
  // O_l >= O_h is pilot_service's rule too, but checked here it is bad usage (exit 2) naming
  // both values, not a failed run.
  app.final_callback([&o] {
    if (o.blocks.low_overallocation < o.blocks.high_overallocation) {
      std::ostringstream message;
      message << "Value " << o.blocks.low_overallocation << " is below --high-overallocation "
              << o.blocks.high_overallocation
              << " (short jobs are overallocated at least as much as long ones: O_l >= O_h)";
      throw CLI::ValidationError("--low-overallocation", message.str());
    }
  });
  return examples::parse(app, argc, argv);
}

}  // namespace

int main(int argc, char** argv) {
  try {
    options o;
    if (const auto code = parse(argc, argv, o)) return *code;
    std::mt19937_64 random(o.seed);
    const std::vector<job> jobs = make_jobs(o, random);
    double work = 0;
    for (const job& j : jobs) work += static_cast<double>(j.runtime);
    const std::int64_t cores = o.nodes * o.cores_per_node;
    // Book other users' work well past the longest run either strategy could need.
    const auto horizon = static_cast<time_type>(4.0 * work / static_cast<double>(cores)) + 86'400;
    const cluster_type cluster = make_cluster(o, make_background(o, horizon, random));

    std::cout << std::fixed << std::setprecision(1) << jobs.size() << " jobs, mean run time "
              << work / static_cast<double>(jobs.size()) << " s, on " << o.nodes << " nodes x "
              << o.cores_per_node << " cores; other users hold "
              << 100.0 * background_load(cluster, horizon, cores)
              << " % of the cluster; the jobs alone need at least "
              << work / static_cast<double>(cores) / 60.0 << " min on all " << cores
              << " cores\n\n";

    // Progress on stderr over both runs' jobs (quiet for the first 2 s): the paper's 100,000
    // jobs take a while.
    examples::progress_meter meter("pilot_jobs: jobs done (pilot run, then direct)",
                                   2 * jobs.size());
    const outcome pilot = run_pilot(o, jobs, cluster, meter);
    report("Coasters pilot jobs (worker blocks + greedy dispatch)", o, pilot, jobs.size());
    std::cout << '\n' << std::flush;
    const outcome direct = run_direct(o, jobs, cluster, meter);
    meter.finish();
    report("Every job submitted as its own batch request", o, direct, jobs.size());
    std::cout << std::setprecision(2) << "\npilot jobs finish "
              << static_cast<double>(direct.makespan) / static_cast<double>(pilot.makespan)
              << " x sooner\n";
    return 0;
  } catch (const std::exception& e) {
    std::cerr << "pilot_jobs: " << e.what() << '\n';
    return 1;
  }
}
