// free_list_vs_slots: Schneider & Linnert's cluster experiment (§7, Fig. 5). A 128-processor
// machine receives a seeded stream of advance reservations in overload; the same stream is
// handed to the slotted ring with the book-ahead cut into 90, 9,000 and 900,000 slots and to
// the exact free-block backends. For each scheduler it prints the reservation success rate
// and the mean runtime per reservation (earliest_fit + reserve), writes them to a CSV, and
// draws success rate against runtime as an SVG like the paper's Fig. 5.
//
// Usage: free_list_vs_slots [--jobs N] [--interarrival S,S,...] [--repetitions R] [--seed X]
//                           [--trace FILE.swf[.gz] | --synthetic] [--csv FILE] [--svg FILE]
//                           [--full]
//                           [--no-timing] [--shard I/N [--shard-dir DIR] | --merge DIR]
// The default is a quick run (2,000 jobs per inter-arrival time, 3 timing repetitions); --full
// is the experiment of docs/performance.md (20,000 jobs, 5 repetitions).
//
// A run of the sweep is one scheduler on one inter-arrival time's stream (run index
// scheduler x inter-arrival times + inter-arrival time, so that the costly 900,000-slot runs
// are spread over the shards); `--shard I/N` (or a Slurm job array's variables) runs those
// whose index is I modulo N and writes their results to --shard-dir/shard-I-of-N.txt, and
// `--merge DIR` builds the table, CSV and SVG from the shard files (docs/sweeps.md). Success
// rates and loads do not depend on the machine, so with --no-timing (no runtime columns; the
// SVG then plots success rate against offered load) the merged outputs equal one process's byte
// for byte; the runtimes, Fig. 5's x-axis, are each measured by the shard that ran them and are
// comparable only between shards on identical, equally loaded nodes.
//
// The workload (docs/performance.md discusses each choice):
//   - sizes and durations: drawn uniformly from the jobs of the SDSC SP2 log (requested
//     processors, requested time) of --trace (default
//     ../shared/traces/SDSC-SP2-1998-4.2-cln.swf.gz; plain or gzip-compressed, read in-process;
//     missing, truncated or corrupt is an error; malformed lines are skipped and reported), or
//     with --synthetic from the library's synthetic batch model (workload::generate_batch,
//     calibrated on SDSC Blue Horizon, capped at 128 nodes).
//   - arrivals: Poisson with the given mean inter-arrival time, in whole seconds.
//   - booking interval (§2): t_book-start = t_arr + an advance notice uniform in [0, 24 h]
//     (advance reservations after Aida & Casanova, as the paper's §7 does);
//     t_book-end = t_book-start + duration x U[1, 4], cut at the maximum book-ahead.
//   - maximum book-ahead (§2) 180 h = 7.5 days: 90 slots of 2 h, 9,000 slots of 72 s,
//     900,000 slots of 0.72 s. Time is in milliseconds so that every slot width is whole.
//   - the first 10 % of jobs warm the schedule up and are left out of the success rate.

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <functional>
#include <iomanip>
#include <iostream>
#include <limits>
#include <numeric>
#include <optional>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

#include <leasehold/io/svg_plot.hpp>
#include <leasehold/leasehold.hpp>
#include <leasehold/sim/workload/batch_model.hpp>
#include <leasehold/sim/workload/random.hpp>
#include <leasehold/sim/workload/swf.hpp>
#include <leasehold/sim/workload/swf_file.hpp>

#include "cli.hpp"
#include "sweep.hpp"

#ifndef LEASEHOLD_SHARED_DIR
#define LEASEHOLD_SHARED_DIR ""
#endif

namespace {

using tick = std::int64_t;  // milliseconds
using units = std::int64_t;
using request_type = leasehold::request<tick, units>;

constexpr units processors = 128;
constexpr tick second = 1000;
constexpr tick hour = 3600 * second;
constexpr tick book_ahead = 180 * hour;

struct options {
  std::size_t jobs = 2'000;
  std::vector<tick> interarrival_s = {500, 750, 1'000, 1'500, 2'000};
  std::size_t repetitions = 3;
  std::uint64_t seed = 1998;
  std::string trace = std::string(LEASEHOLD_SHARED_DIR) + "/traces/SDSC-SP2-1998-4.2-cln.swf.gz";
  bool synthetic = false;
  std::string csv = "free_list_vs_slots.csv";
  std::string svg = "free_list_vs_slots.svg";
  bool timing = true;              // --no-timing: leave the runtimes out, so that outputs compare
  examples::shard_options shards;  // --shard I/N, --shard-dir, --merge DIR
};

// ---- Workload -------------------------------------------------------------------------------

struct job_shape {
  units size;
  tick duration;
};

struct job {
  tick arrival;
  request_type request;
};

// Jobs the 128-processor machine could run: the requested processors (else the allocated
// ones) and the requested time (else the run time), both known and positive.
std::vector<job_shape> shapes_of(const leasehold::swf::log& log) {
  std::vector<job_shape> shapes;
  for (const auto& r : log.records) {
    const std::int64_t size = r.requested_procs > 0 ? r.requested_procs : r.allocated_procs;
    const std::int64_t seconds = r.requested_time > 0 ? r.requested_time : r.run_time;
    if (size < 1 || size > processors || seconds < 1) continue;
    shapes.push_back({size, seconds * second});
  }
  return shapes;
}

// The job shapes of --trace (plain or gzip-compressed SWF, read in-process), or of the
// synthetic batch model with --synthetic. A trace that is missing, corrupt, truncated, or holds
// no usable job is an error naming it: a different workload is never substituted silently.
// Malformed lines are skipped (real archive logs have a few) and reported.
std::vector<job_shape> load_shapes(const options& opts, std::string& source) {
  if (!opts.synthetic) {
    if (!examples::check_input(opts.trace))
      throw std::runtime_error("no trace (pass --trace FILE.swf[.gz], or --synthetic)");
    const auto trace =
        leasehold::workload::read_swf_file(opts.trace, leasehold::swf::on_error::skip);
    if (trace.skipped() > 0) std::cerr << "note: " << trace.skipped_summary() << '\n';
    auto shapes = shapes_of(trace.log);
    if (shapes.empty())
      throw std::runtime_error(opts.trace + " holds no job that fits " +
                               std::to_string(processors) + " processors");
    source = std::filesystem::path(opts.trace).filename().string();
    return shapes;
  }
  leasehold::workload::batch_model model;
  model.jobs = 20'000;
  model.max_nodes = processors;
  source = "synthetic batch model (workload::generate_batch)";
  return shapes_of(leasehold::workload::generate_batch(model, opts.seed));
}

// A job stream for one mean inter-arrival time; every scheduler gets the same one.
std::vector<job> make_jobs(const std::vector<job_shape>& shapes, tick mean_gap_s, std::size_t count,
                           std::uint64_t seed) {
  leasehold::workload::rng random(seed);
  std::vector<job> jobs;
  jobs.reserve(count);
  tick now = 0;
  for (std::size_t i = 0; i < count; ++i) {
    // Exponential gaps in whole seconds; the uniform draw avoids log(0).
    const double u = (static_cast<double>(random.below(1u << 30)) + 0.5) / double(1u << 30);
    now += static_cast<tick>(std::llround(-std::log(u) * static_cast<double>(mean_gap_s))) * second;
    const job_shape& shape = shapes[random.below(shapes.size())];
    const tick begin = now + random.uniform_int(0, 24 * 3600) * second;
    // Window length = duration x U[1, 4], to the second, cut at the maximum book-ahead.
    const tick stretch = random.uniform_int(1000, 4000);
    const tick window = std::max(shape.duration, shape.duration / 1000 * stretch);
    const tick end = std::min(begin + window, now + book_ahead);
    jobs.push_back(
        {now, {.amount = shape.size, .duration = shape.duration, .window = {begin, end}}});
  }
  return jobs;
}

// Offered load: requested processor-time over the machine's processor-time in the same span.
double offered_load(const std::vector<job>& jobs) {
  double work = 0;
  for (const job& j : jobs)
    work += static_cast<double>(j.request.amount) * static_cast<double>(j.request.duration);
  const double span = static_cast<double>(jobs.back().arrival - jobs.front().arrival);
  return work / (static_cast<double>(processors) * span);
}

// ---- Schedulers -----------------------------------------------------------------------------

struct outcome {
  std::string scheduler;
  tick interarrival_s = 0;
  double load = 0;
  std::size_t counted = 0;   // jobs after the warm-up
  std::size_t accepted = 0;  // of those
  double reserve_us = 0;     // mean earliest_fit + reserve per job, fastest of the repetitions
  double advance_us = 0;     // mean advance_to per job, fastest of the repetitions
  double reserve_us_median_run = 0;  // median over repetitions of each run's mean
  [[nodiscard]] double success() const {
    return static_cast<double>(accepted) / static_cast<double>(counted);
  }
};

double median(std::vector<double> values) {
  std::sort(values.begin(), values.end());
  const std::size_t n = values.size();
  return n % 2 == 1 ? values[n / 2] : (values[n / 2 - 1] + values[n / 2]) / 2;
}

// Runs one scheduler over the stream `repetitions` times on a fresh profile each time. The
// decisions are deterministic, so the success rate is the same every time. Only the backend
// calls are inside the clock. The machine is shared, so a run's mean can carry a preemption
// of several milliseconds: the runtime reported is the mean over jobs of each job's fastest
// time over the repetitions (a preemption rarely hits the same job twice); the median of the
// runs' plain means goes to the CSV next to it.
template <class Make>
outcome run(const std::string& name, Make make, const std::vector<job>& jobs,
            std::size_t repetitions) {
  using clock = std::chrono::steady_clock;
  outcome result{.scheduler = name};
  const std::size_t warm_up = jobs.size() / 10;
  std::vector<clock::duration> fastest_reserve(jobs.size(), clock::duration::max());
  std::vector<clock::duration> fastest_advance(jobs.size(), clock::duration::max());
  std::vector<double> run_means;
  const auto per_job_us = [&jobs](clock::duration total) {
    return std::chrono::duration<double, std::micro>(total).count() /
           static_cast<double>(jobs.size());
  };
  for (std::size_t rep = 0; rep < repetitions; ++rep) {
    auto profile = make();
    clock::duration reserving{};
    std::size_t accepted = 0;
    for (std::size_t i = 0; i < jobs.size(); ++i) {
      const job& j = jobs[i];
      const auto t0 = clock::now();
      profile.advance_to(j.arrival);
      const auto t1 = clock::now();
      const std::optional<tick> start = profile.earliest_fit(j.request);
      if (start) profile.reserve({*start, *start + j.request.duration}, j.request.amount);
      const auto t2 = clock::now();
      fastest_advance[i] = std::min(fastest_advance[i], t1 - t0);
      fastest_reserve[i] = std::min(fastest_reserve[i], t2 - t1);
      reserving += t2 - t1;
      if (start && i >= warm_up) ++accepted;
    }
    run_means.push_back(per_job_us(reserving));
    result.accepted = accepted;
  }
  result.counted = jobs.size() - warm_up;
  result.reserve_us = per_job_us(
      std::accumulate(fastest_reserve.begin(), fastest_reserve.end(), clock::duration{}));
  result.advance_us = per_job_us(
      std::accumulate(fastest_advance.begin(), fastest_advance.end(), clock::duration{}));
  result.reserve_us_median_run = median(run_means);
  return result;
}

// The slotted ring of §4 with the maximum book-ahead cut into `slots` slots.
auto ring(std::size_t slots) {
  return [slots] {
    return leasehold::slotted_ring<tick, units>(processors, book_ahead / static_cast<tick>(slots),
                                                slots);
  };
}

template <class Backend>
auto exact() {
  return [] { return Backend(processors); };
}

// The schedulers of the sweep, in the order of the table: one run of the sweep is one of them
// on one inter-arrival time's stream.
struct scheduler_entry {
  std::string name;
  std::function<outcome(const std::vector<job>&, std::size_t)> run;
};

template <class Make>
scheduler_entry entry(const std::string& name, Make make) {
  return {name, [name, make](const std::vector<job>& jobs, std::size_t repetitions) {
            return run(name, make, jobs, repetitions);
          }};
}

const std::vector<scheduler_entry>& schedulers() {
  static const std::vector<scheduler_entry> list{
      entry("slotted_ring 90", ring(90)),
      entry("slotted_ring 9,000", ring(9'000)),
      entry("slotted_ring 900,000", ring(900'000)),
      entry("free_list", exact<leasehold::free_list<tick, units>>()),
      entry("capacity_tree", exact<leasehold::capacity_tree<tick, units>>()),
      entry("free_tree", exact<leasehold::free_tree<tick, units>>())};
  return list;
}

// ---- Output ---------------------------------------------------------------------------------

void print_table(const std::vector<outcome>& results, bool timing) {
  std::cout << std::left << std::setw(22) << "scheduler" << std::right << std::setw(8) << "gap s"
            << std::setw(7) << "load" << std::setw(10) << "success";
  if (timing) std::cout << std::setw(14) << "reserve us" << std::setw(14) << "advance us";
  std::cout << '\n';
  for (const outcome& o : results) {
    std::cout << std::left << std::setw(22) << o.scheduler << std::right << std::setw(8)
              << o.interarrival_s << std::setw(7) << std::fixed << std::setprecision(2) << o.load
              << std::setw(9) << std::setprecision(2) << 100 * o.success() << '%';
    if (timing)
      std::cout << std::setw(14) << std::setprecision(3) << o.reserve_us << std::setw(14)
                << o.advance_us;
    std::cout << '\n';
  }
}

bool write_csv(const std::string& path, const std::vector<outcome>& results, bool timing) {
  std::ostringstream out;
  out << "scheduler,interarrival_s,offered_load,jobs_counted,accepted,success_rate"
      << (timing ? ",reserve_us_per_job,advance_us_per_job,reserve_us_median_run" : "") << '\n';
  out << std::setprecision(6);
  for (const outcome& o : results) {
    out << '"' << o.scheduler << "\"," << o.interarrival_s << ',' << o.load << ',' << o.counted
        << ',' << o.accepted << ',' << o.success();
    if (timing) out << ',' << o.reserve_us << ',' << o.advance_us << ',' << o.reserve_us_median_run;
    out << '\n';
  }
  return examples::write_file(path, out.str());
}

// Success rate (y) against the mean runtime per reservation (x, logarithmic), one series per
// scheduler, its points joined in order of inter-arrival time: Fig. 5 of the paper. Without
// timing, against the offered load instead (what does not depend on the machine).
bool write_svg(const std::string& path, const std::vector<outcome>& results,
               const std::string& subtitle, bool timing) {
  leasehold::io::plot_panel panel{
      .title = {},
      .x = timing ? leasehold::io::plot_axis{.title =
                                                 "runtime per reservation, earliest_fit + reserve "
                                                 "(µs)",
                                             .scale = leasehold::io::axis_scale::log10}
                  : leasehold::io::plot_axis{.title = "offered load (requested processor-time / "
                                                      "the machine's)"},
      .y = {.title = "success rate (%)"},
      .series = {}};
  for (const outcome& o : results) {
    if (panel.series.empty() || panel.series.back().name != o.scheduler)
      panel.series.push_back({.name = o.scheduler, .x = {}, .y = {}});
    panel.series.back().x.push_back(timing ? o.reserve_us : o.load);
    panel.series.back().y.push_back(100 * o.success());
  }
  const leasehold::io::plot_figure figure{
      .title = "Schneider & Linnert, Fig. 5: success rate vs " +
               std::string(timing ? "runtime per reservation, " : "offered load, ") +
               std::to_string(processors) + " processors",
      .subtitle = subtitle,
      .panels = {panel},
      .columns = 1,
      .notes = {timing ? "one point per mean inter-arrival time; runtime: mean per job of its "
                         "fastest run"
                       : "one point per mean inter-arrival time (--no-timing: no runtimes)"},
      .panel_width = 900,
      .panel_height = 460};
  return examples::write_file(path, leasehold::io::to_svg(figure));
}

// ---- Shards and the merge (docs/sweeps.md) ----------------------------------------------

// What chose the sweep and what was printed before its runs; a shard file records it.
struct sweep_description {
  std::size_t jobs = 0;
  std::size_t repetitions = 0;
  std::uint64_t seed = 0;
  bool synthetic = false;
  std::vector<tick> interarrival_s;
  std::string source;  // the job shapes' source, for the SVG's subtitle
  std::string said;    // standard output before the runs
  [[nodiscard]] std::size_t runs() const { return interarrival_s.size() * schedulers().size(); }
};

constexpr const char* shard_magic = "leasehold-free_list_vs_slots-shard 1";

// Every number of a run exact (doubles in hexadecimal): the load and the counts, which any
// machine computes alike, and the runtimes this shard measured.
std::string shard_text(const sweep_description& d, const examples::shard& sh,
                       const std::vector<outcome>& results) {
  std::ostringstream out;
  out << examples::shard_file_header(shard_magic, sh) << "sweep " << d.jobs << ' ' << d.repetitions
      << ' ' << d.seed << ' ' << d.synthetic << ' ' << d.runs() << "\ninterarrival "
      << d.interarrival_s.size();
  for (const tick gap : d.interarrival_s) out << ' ' << gap;
  out << "\nsource " << d.source << '\n' << examples::said_lines(d.said);
  for (std::size_t i = 0; i < results.size(); ++i) {
    if (!sh.owns(i)) continue;
    const outcome& o = results[i];
    out << "run " << i << ' ' << examples::exact(o.load) << ' ' << o.counted << ' ' << o.accepted
        << ' ' << examples::exact(o.reserve_us) << ' ' << examples::exact(o.advance_us) << ' '
        << examples::exact(o.reserve_us_median_run) << '\n';
  }
  out << "end\n";  // a file cut short (a killed job) has no end line
  return out.str();
}

// The first shard's sweep lines into `d`; false when one is malformed (its index returned in
// `bad`).
bool parse_sweep(const std::vector<std::string>& lines, sweep_description& d, std::size_t& bad) {
  std::string word;
  std::size_t runs = 0;
  std::size_t count = 0;
  bad = 1;
  std::istringstream gaps(lines[1]);
  if (!(gaps >> word >> count) || count == 0 || count > 100'000) return false;
  d.interarrival_s.assign(count, 0);
  for (tick& gap : d.interarrival_s)
    if (!(gaps >> gap) || gap < 1) return false;
  if (!gaps.eof()) return false;
  bad = 0;
  std::istringstream sweep(lines[0]);
  if (!(sweep >> word >> d.jobs >> d.repetitions >> d.seed >> d.synthetic >> runs) ||
      !sweep.eof() || d.jobs < 10 || d.repetitions < 1 || runs != d.runs())
    return false;
  d.source = lines[2].substr(std::string("source ").size());
  return true;
}

// Reads one shard file's runs into `results`. Returns false after printing an error naming the
// path and the line.
bool read_shard(const std::filesystem::path& path, const examples::shard& sh, bool first,
                sweep_description& d, std::vector<std::string>& sweep_lines,
                std::vector<outcome>& results, std::vector<bool>& seen) {
  examples::shard_reader in(path, sh);
  if (!in.open(shard_magic, "a free_list_vs_slots")) return false;
  if (!in.sweep_lines({"sweep", "interarrival", "source"}, sweep_lines, first)) return false;
  if (first) {
    std::size_t bad = 0;
    if (!parse_sweep(sweep_lines, d, bad))  // the sweep's lines are lines 3 to 5
      return in.fail_at(bad + 3, "malformed sweep line '" + sweep_lines[bad] + "'");
    results.assign(d.runs(), outcome{});
    seen.assign(d.runs(), false);
  }
  return in.said_and_runs(d.said, first, seen, [&](std::size_t i, std::istream& fields) {
    outcome o;
    std::vector<double> load;
    std::vector<double> times;
    if (!examples::read_exact_fields(fields, 1, load) || !(fields >> o.counted >> o.accepted) ||
        !examples::read_exact_fields(fields, 3, times) || !fields.eof() || o.counted == 0 ||
        o.accepted > o.counted)
      return std::string("malformed");
    o.load = load[0];
    o.reserve_us = times[0];
    o.advance_us = times[1];
    o.reserve_us_median_run = times[2];
    results[i] = o;
    return std::string();
  });
}

// The table, the CSV and the SVG of the whole sweep, the same whether its runs were done here
// or read from shards.
int report(const sweep_description& d, std::vector<outcome> results, const options& opts) {
  // Run index scheduler x gaps + gap: in index order the table and the plot read one scheduler
  // at a time, its gaps in the order given.
  const std::size_t gaps = d.interarrival_s.size();
  for (std::size_t i = 0; i < results.size(); ++i) {
    results[i].scheduler = schedulers()[i / gaps].name;
    results[i].interarrival_s = d.interarrival_s[i % gaps];
  }
  print_table(results, opts.timing);
  if (!write_csv(opts.csv, results, opts.timing)) return 1;
  if (!write_svg(opts.svg, results, std::to_string(d.jobs) + " jobs per point from " + d.source,
                 opts.timing))
    return 1;
  std::cout << "\nwrote " << examples::display_path(opts.csv) << " and "
            << examples::display_path(opts.svg) << '\n';
  if (std::any_of(results.begin(), results.end(), [](const outcome& o) { return o.load <= 1; }))
    std::cout << "note: some inter-arrival times do not overload the machine (load <= 1)\n";
  return 0;
}

// ---- Command line ---------------------------------------------------------------------------

// Fills `opts` from the command line; returns the exit code when the program should stop (0
// after --help, 2 for a bad option).
std::optional<int> parse(int argc, char** argv, options& opts) {
  CLI::App app{
      "Schneider & Linnert's Fig. 5: the slotted ring against exact free-block backends on a "
      "128-processor machine in overload."};
  app.option_defaults()->always_capture_default();
  auto* jobs = app.add_option("--jobs", opts.jobs, "advance reservations per inter-arrival time")
                   ->check(CLI::Range(std::size_t{10}, std::size_t{100'000'000}));
  app.add_option("--interarrival", opts.interarrival_s,
                 "mean inter-arrival times in s (comma-separated)")
      ->delimiter(',')
      ->check(CLI::Range(tick{1}, tick{1'000'000'000}));
  auto* repetitions =
      app.add_option("--repetitions", opts.repetitions, "timing runs per job (fastest kept)")
          ->check(CLI::Range(std::size_t{1}, std::size_t{1000}));
  app.add_option("--seed", opts.seed, "workload seed")
      ->check(CLI::Range(std::uint64_t{1}, std::numeric_limits<std::uint64_t>::max()));
  auto* trace =
      app.add_option("--trace", opts.trace, "SWF log for job shapes (plain or gzip-compressed)");
  app.add_flag("--synthetic", opts.synthetic, "job shapes from the synthetic batch model")
      ->excludes(trace);
  app.add_option("--csv", opts.csv, "CSV output (directories created)");
  app.add_option("--svg", opts.svg, "SVG output (directories created)");
  bool full = false;
  auto* full_option =
      app.add_flag("--full", full,
                   "the experiment of docs/performance.md: 20000 jobs, 5 repetitions (unless "
                   "--jobs / --repetitions say otherwise)");
  bool no_timing = false;
  app.add_flag("--no-timing", no_timing,
               "leave the runtimes out of the table and the CSV, and plot success rate against "
               "offered load (outputs that compare byte for byte)");
  opts.shards.add(app, "free_list_vs_slots_shards",
                  "run only the runs (inter-arrival time, scheduler) whose index "
                  "scheduler x inter-arrival times + inter-arrival time is I modulo N",
                  "run nothing: build the table, CSV and SVG from the shard files in this "
                  "directory (the sweep is read from them)",
                  {jobs, app.get_option("--interarrival"), repetitions, app.get_option("--seed"),
                   trace, app.get_option("--synthetic"), full_option});
  if (const auto code = examples::parse(app, argc, argv)) return code;
  opts.timing = !no_timing;
  if (full && jobs->count() == 0) opts.jobs = 20'000;
  if (full && repetitions->count() == 0) opts.repetitions = 5;
  return std::nullopt;
}

}  // namespace

int main(int argc, char** argv) {
  try {
    options opts;
    if (const auto code = parse(argc, argv, opts)) return *code;
    // Outputs first (directories made, paths checked, nothing truncated), so that a bad path
    // fails before the runs rather than after them.
    if (!examples::prepare_output(opts.csv) || !examples::prepare_output(opts.svg)) return 1;
    if (!opts.shards.merge_dir.empty()) {
      sweep_description d;
      std::vector<std::string> sweep_lines;
      std::vector<outcome> results;
      std::vector<bool> seen;
      if (!examples::read_shards(
              opts.shards.merge_dir, seen, [&](const auto& path, const auto& sh, bool first_shard) {
                return read_shard(path, sh, first_shard, d, sweep_lines, results, seen);
              }))
        return 1;
      std::cout << d.said;
      return report(d, std::move(results), opts);
    }

    const std::optional<examples::shard> shard = opts.shards.chosen();
    if (shard && !examples::make_directories(opts.shards.dir)) return 1;

    sweep_description d{.jobs = opts.jobs,
                        .repetitions = opts.repetitions,
                        .seed = opts.seed,
                        .synthetic = opts.synthetic,
                        .interarrival_s = opts.interarrival_s,
                        .source = {},
                        .said = {}};
    const std::vector<job_shape> shapes = load_shapes(opts, d.source);
    std::ostringstream said;
    said << "Schneider & Linnert, Fig. 5: " << processors << " processors, " << opts.jobs
         << " advance reservations per inter-arrival time, sizes and durations from " << d.source
         << ", book-ahead 180 h, each job timed at its fastest of " << opts.repetitions
         << " run(s)\n\n";
    d.said = said.str();
    std::cout << d.said << std::flush;

    // The runs of the sweep (or of this shard) in index order, each inter-arrival time's stream
    // made once, when its first run comes.
    const std::size_t gaps = d.interarrival_s.size();
    std::vector<outcome> results(d.runs());
    std::vector<std::vector<job>> streams(gaps);
    std::vector<double> loads(gaps);
    std::size_t ran = 0;
    for (std::size_t i = 0; i < d.runs(); ++i) {
      if (shard && !shard->owns(i)) continue;
      const std::size_t g = i % gaps;
      if (streams[g].empty()) {
        const tick gap = d.interarrival_s[g];
        streams[g] = make_jobs(shapes, gap, opts.jobs, opts.seed + static_cast<std::uint64_t>(gap));
        loads[g] = offered_load(streams[g]);
      }
      results[i] = schedulers()[i / gaps].run(streams[g], opts.repetitions);
      results[i].load = loads[g];
      ++ran;
    }
    if (shard) {
      const auto path = examples::shard_path(opts.shards.dir, *shard);
      if (!examples::write_file(path, shard_text(d, *shard, results))) return 1;
      std::cout << "Shard " << shard->index << '/' << shard->count << ": " << ran << " of "
                << d.runs() << " runs; results in " << path.string() << " (build the table with "
                << "--merge " << opts.shards.dir << ")\n";
      return 0;
    }
    return report(d, std::move(results), opts);
  } catch (const std::exception& e) {
    std::cerr << "free_list_vs_slots: " << e.what() << '\n';
    return 1;
  }
}
