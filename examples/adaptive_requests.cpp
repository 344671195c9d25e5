// Adaptive requests: a reproduction of Netto & Buyya, "Impact of Adaptive Resource Allocation
// Requests in Utility Cluster Computing Environments", §4 (Figs. 4-7).
//
// The SDSC SP2 log (128 processors) is cut into 15-day slices; jobs shorter than a minute are
// removed; every job becomes Req(R_min, R_max, f_mol, D, B, Sp) per Table 1 (R_max = requested
// processors, T_min = run time). The load is raised by compressing submission times within a
// slice (+x % load: every gap from the slice start divided by 1 + x). Each slice runs with four
// request types (rigid, preemptive, moldable, both) under FIFO with conservative backfilling
// and under Missing-Deadline-First, and reports, per load, the profit gain, the completion-time
// reduction and the rejection reduction against FIFO with rigid requests (Figs. 4-6), the
// reshaping of moldable requests (Figs. 8-9), and the profit gain of MDF with preemptive
// requests at +50 % load as the incentive for preemptive requests grows from 0 to 40 % (Fig. 7).
//
// Reads --trace (default LEASEHOLD_SHARED_DIR/traces/SDSC-SP2-1998-4.2-cln.swf.gz; plain or
// gzip-compressed, decompressed in-process); a missing, truncated or corrupt trace is an error,
// and malformed lines are skipped and reported. --synthetic runs a documented synthetic workload
// instead (see synthetic_slice). Writes adaptive_requests.csv and adaptive_requests.svg into --out
// (default: the current directory; created if missing).
//
//   adaptive_requests                 # 2 slices, loads 0/25/50 %: a few seconds
//   adaptive_requests --full          # all 49 slices, loads 0..50 % by 10 (minutes)
//   adaptive_requests --slices 8 --first 4 --loads 0,50 --seed 7 --out /tmp
//
// On a cluster (docs/sweeps.md): a run of the sweep is one slice at one load (run index
// slice x loads + load); `--shard I/N` (or a Slurm job array's SLURM_ARRAY_TASK_ID/_MIN/_COUNT)
// runs the runs whose index is I modulo N and writes their per-slice results exactly to
// --shard-dir/shard-I-of-N.txt; `--merge DIR` takes the trimmed means over the slices of every
// shard and writes the tables, CSV and SVG byte for byte as one process running the whole sweep.
// Trimmed means cannot be merged, so shards never write them: they write the per-slice gains
// the means are taken over.

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iomanip>
#include <iostream>
#include <map>
#include <numeric>
#include <optional>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

#include <leasehold/availability/free_list.hpp>
#include <leasehold/io/job_outcomes.hpp>
#include <leasehold/io/svg_plot.hpp>
#include <leasehold/policy/adaptive/scheduler.hpp>
#include <leasehold/sim/workload/adaptive_terms.hpp>
#include <leasehold/sim/workload/random.hpp>
#include <leasehold/sim/workload/swf.hpp>
#include <leasehold/sim/workload/swf_file.hpp>
#include <leasehold/version.hpp>

#include "cli.hpp"
#include "progress.hpp"
#include "sweep.hpp"

namespace adaptive = leasehold::policy::adaptive;
using seconds = std::int64_t;

namespace {

constexpr std::int64_t cluster_size = 128;  // SDSC SP2
constexpr seconds slice_length = 15 * 86'400;
constexpr seconds day = 86'400;

// One job of a slice as the log gives it (submission from the slice start, R_max, T_min),
// with Table 1's decoration drawn once per job by the workload generator, so every request type,
// strategy and load sees the same draws.
struct job {
  std::uint64_t id;
  seconds submit;
  std::int64_t r_max;
  seconds t_min;
  leasehold::workload::adaptive_terms<> terms{};
};

enum class request_type { rigid, preemptive, moldable, both };
constexpr request_type all_types[] = {request_type::rigid, request_type::preemptive,
                                      request_type::moldable, request_type::both};
const char* name_of(request_type t) {
  switch (t) {
    case request_type::rigid:
      return "rigid";
    case request_type::preemptive:
      return "preemptive";
    case request_type::moldable:
      return "moldable";
    case request_type::both:
      return "preemptive+moldable";
  }
  return "?";
}
const char* name_of(adaptive::strategy s) { return s == adaptive::strategy::fifo ? "FIFO" : "MDF"; }

// The workload generator's Table 1 request (adaptive_terms::request()), for one request type
// at one load. Rigid and preemptive-only requests keep R_min = R_max (their f_mol is then the
// constant T_min); only preemptive and both keep the generator's Sp.
adaptive::adaptive_request<> to_request(const job& j, request_type type, double load) {
  const bool moldable = type == request_type::moldable || type == request_type::both;
  const bool splittable = type == request_type::preemptive || type == request_type::both;
  adaptive::adaptive_request<> r = j.terms.request();
  // +x % load: the submission's offset from the slice start divided by 1 + x (nearest second,
  // as workload::scale_load does); the deadline keeps its distance from the submission.
  r.submit = std::llround(static_cast<double>(j.terms.submit) / (1.0 + load));
  r.deadline = r.submit + (j.terms.deadline - j.terms.submit);
  if (!moldable) r.r_min = r.r_max;
  if (!splittable) r.split = {};
  return r;
}

// Table 1 (workload::make_adaptive): R_min = ceil(80 % R_max), rigid up to 10 resources;
// f_mol the line through (R_max, T_min) and (R_min, T_max); Sp = (10, 10 %, true) for 20 % of
// the requests of at least an hour; price profile 3 for 20 %; D = 5 T_min (+ 3 days for
// profile 1); B = R_max T_min x profile at 1 $ per machine hour; no incentive.
void decorate(std::vector<job>& jobs, std::uint64_t seed) {
  leasehold::workload::rng random(seed);
  const leasehold::workload::adaptive_config table1{};
  for (job& j : jobs)
    j.terms = leasehold::workload::make_adaptive<seconds>(j.id, j.submit, j.r_max, j.t_min, table1,
                                                          random);
}

// The SDSC SP2 log in 15-day slices, jobs under a minute removed. The log is plain or
// gzip-compressed SWF, read in-process; malformed lines are skipped and described in `skipped`.
std::vector<std::vector<job>> trace_slices(const std::string& path, std::string& skipped) {
  std::vector<std::vector<job>> slices;
  const auto trace = leasehold::workload::read_swf_file(path, leasehold::swf::on_error::skip);
  const auto& log = trace.log;
  skipped = trace.skipped_summary();
  if (log.records.empty()) throw std::runtime_error(path + " holds no SWF records");
  const seconds origin = log.records.front().submit;
  for (const auto& rec : log.records) {
    const std::int64_t procs = rec.requested_procs > 0 ? rec.requested_procs : rec.allocated_procs;
    if (rec.run_time < 60 || procs <= 0) continue;
    const auto index = static_cast<std::size_t>((rec.submit - origin) / slice_length);
    if (slices.size() <= index) slices.resize(index + 1);
    slices[index].push_back({static_cast<std::uint64_t>(rec.job),
                             rec.submit - origin - static_cast<seconds>(index) * slice_length,
                             std::min(procs, cluster_size), rec.run_time});
  }
  std::erase_if(slices, [](const auto& s) { return s.empty(); });
  return slices;
}

// The synthetic workload's slices (as many as the SDSC SP2 log's 15-day slices, roughly).
constexpr std::size_t synthetic_slices = 48;

// Without the trace: 250 jobs per 15 days (the paper's 244 +- 68), arrivals uniformly spread
// over the slice, R_max = 2^k with k uniform in 0..7 (SP2 jobs are mostly powers of two), run
// times 60 s x 2^m (m uniform in 0..10, so 1 min .. 17 h) plus up to as much again.
std::vector<job> synthetic_slice(std::uint64_t seed) {
  leasehold::workload::rng random(seed);
  std::vector<job> jobs(250);
  for (std::size_t i = 0; i < jobs.size(); ++i) {
    const seconds base = seconds{60} << random.uniform_int(0, 10);
    jobs[i] = {i + 1, random.uniform_int(0, slice_length - 1),
               std::int64_t{1} << random.uniform_int(0, 7), base + random.uniform_int(0, base)};
  }
  std::ranges::sort(jobs, [](const job& a, const job& b) { return a.submit < b.submit; });
  return jobs;
}

struct outcome {
  double profit = 0;
  double mean_response = 0;
  double rejected = 0;
  adaptive::adaptive_metrics metrics;
  std::vector<adaptive::accepted_request<>> accepted;
  std::vector<leasehold::io::job_outcome> jobs;  // --per-job: every request, in arrival order
};

// --per-job: every request of every run in Batsim's jobs.csv layout (io/batsim_jobs.hpp),
// then what tells the runs apart. Submission and start times count from the slice's start.
const leasehold::io::batsim_job_table per_job_table({"slice", "load_increase_percent", "strategy",
                                                     "request_type", "seed", "source",
                                                     "leasehold_version"});

// The paper's simulation: arrivals in submission order (ties by job id); the scheduler only
// acts on arrivals, and every request runs exactly as placed.
outcome simulate(const std::vector<job>& jobs, request_type type, adaptive::strategy order,
                 double load, bool keep_jobs) {
  std::vector<adaptive::adaptive_request<>> requests;
  requests.reserve(jobs.size());
  for (const job& j : jobs) requests.push_back(to_request(j, type, load));
  std::ranges::stable_sort(requests, [](const auto& a, const auto& b) {
    return a.submit != b.submit ? a.submit < b.submit : a.id < b.id;
  });
  adaptive::scheduler<leasehold::free_list<>> s(cluster_size, {.order = order});
  for (const auto& r : requests) (void)s.submit(r, r.submit);
  outcome o;
  o.metrics = s.metrics();
  o.profit = o.metrics.profit;
  o.mean_response = o.metrics.mean_response;
  o.rejected = static_cast<double>(o.metrics.rejected);
  s.for_each_accepted([&o](const auto& record) { o.accepted.push_back(record); });
  if (keep_jobs) {
    std::map<std::uint64_t, const adaptive::placement<>*> placed;
    for (const auto& a : o.accepted) placed[a.request.id] = &a.where;
    for (const auto& r : requests) {
      const auto it = placed.find(r.id);
      o.jobs.push_back(leasehold::io::job_outcome_of(r, it == placed.end() ? nullptr : it->second));
    }
  }
  return o;
}

double profit_with_incentive(const outcome& o, double incentive) {
  const adaptive::algorithm2 omega{.incentive = incentive};
  double sum = 0;
  for (const auto& a : o.accepted) sum += omega(a.request, a.where);
  return sum;
}

// Mean after discarding the four best and four worst, as the paper does, when there are
// enough values for that to leave some.
double trimmed_mean(std::vector<double> values) {
  if (values.empty()) return 0;
  std::ranges::sort(values);
  std::size_t cut = values.size() >= 16 ? 4 : 0;
  const auto sum = std::accumulate(values.begin() + static_cast<std::ptrdiff_t>(cut),
                                   values.end() - static_cast<std::ptrdiff_t>(cut), 0.0);
  return sum / static_cast<double>(values.size() - 2 * cut);
}

struct series_key {
  request_type type;
  adaptive::strategy order;
  auto operator<=>(const series_key&) const = default;
};

struct point {
  double profit_gain, completion_reduction, rejection_reduction, reshaped_share, modification;
};
constexpr double point::*point_fields[] = {&point::profit_gain, &point::completion_reduction,
                                           &point::rejection_reduction, &point::reshaped_share,
                                           &point::modification};

// The series of the tables, in their order: FIFO, then MDF, each with every request type.
constexpr std::size_t series_count = 8;
series_key series_at(std::size_t k) {
  return {all_types[k % 4],
          k < 4 ? adaptive::strategy::fifo : adaptive::strategy::missing_deadline_first};
}

// One run of the sweep: one slice at one load, i.e. the FIFO rigid baseline and the seven other
// series on the same requests. Its result is what the trimmed means over the slices are taken
// of: every series' gains against the baseline and, at +50 % load, Fig. 7's gain for each
// incentive. A shard hands these on exactly, and the means are taken only when every slice is
// in (a trimmed mean of trimmed means is not the trimmed mean).
struct run_result {
  std::array<point, series_count> points{};
  std::vector<double> incentive_gain;  // at +50 % load only
};

// What chose the sweep and what was printed before its runs. A shard file records it, so the
// merge prints, averages and labels exactly as one process would, and refuses shards of
// another sweep.
struct sweep_description {
  std::size_t slices = 0;  // the slices selected (fewer than --slices when the log ends)
  std::size_t first = 0;
  std::uint64_t seed = 0;
  bool synthetic = false;
  std::vector<double> loads;  // fractions, sorted, +50 % among them
  std::vector<double> incentives;
  std::string source;  // the CSV's source column: "synthetic" or the trace's file name
  std::string said;    // standard output before the runs
  [[nodiscard]] std::size_t runs() const { return slices * loads.size(); }
  [[nodiscard]] std::string subtitle() const {
    return std::to_string(slices) + " slice(s) of 15 days from " +
           (synthetic ? std::string("the synthetic workload") : source) + ", seed " +
           std::to_string(seed);
  }
};

// One SVG with four panels: Figs. 4, 5, 6 (against load) and Fig. 7 (against incentive).
bool write_svg(const std::string& path, const std::vector<double>& loads,
               const std::map<series_key, std::vector<point>>& results,
               const std::vector<double>& incentives, const std::vector<double>& incentive_gain,
               const std::string& subtitle) {
  namespace io = leasehold::io;
  std::vector<double> load_percent;
  for (const double l : loads) load_percent.push_back(100 * l);
  const auto panel_for = [&](const std::string& title, const std::string& y_title,
                             double point::*field) {
    io::plot_panel panel{
        .title = title, .x = {.title = "load increase (%)"}, .y = {.title = y_title}, .series = {}};
    for (auto order : {adaptive::strategy::fifo, adaptive::strategy::missing_deadline_first})
      for (request_type type : all_types) {
        io::plot_series series{
            .name = std::string(name_of(order)) + " " + name_of(type), .x = load_percent, .y = {}};
        for (const point& p : results.at({type, order})) series.y.push_back(p.*field);
        panel.series.push_back(std::move(series));
      }
    return panel;
  };
  std::vector<double> incentive_percent;
  for (const double i : incentives) incentive_percent.push_back(100 * i);
  const io::plot_figure figure{
      .title = "Adaptive resource allocation requests (Netto & Buyya, Figs. 4-7)",
      .subtitle = subtitle,
      .panels =
          {panel_for("Fig. 4: profit gain vs FIFO rigid", "profit gain (%)", &point::profit_gain),
           panel_for("Fig. 5: completion time reduction vs FIFO rigid",
                     "completion time reduction (%)", &point::completion_reduction),
           panel_for("Fig. 6: rejection reduction vs FIFO rigid", "rejection reduction (%)",
                     &point::rejection_reduction),
           {.title = "Fig. 7: MDF preemptive at +50 % load",
            .x = {.title = "incentive for preemptive requests (%)"},
            .y = {.title = "profit gain vs FIFO rigid (%)"},
            .series = {{.name = "MDF preemptive", .x = incentive_percent, .y = incentive_gain}}}},
      .columns = 2,
      .notes = {"FIFO: FIFO with conservative backfilling; MDF: Missing-Deadline-First with "
                "rescheduling; trimmed means over the slices"},
      .panel_width = 600,
      .panel_height = 360};
  return examples::write_file(path, io::to_svg(figure));
}

// ---- Shards and the merge (docs/sweeps.md) ----------------------------------------------

constexpr const char* shard_magic = "leasehold-adaptive_requests-shard 1";

std::string exact_list(const std::vector<double>& values) {
  std::string text = std::to_string(values.size());
  for (const double v : values) text += ' ' + examples::exact(v);
  return text;
}

// A shard's file: the sweep, what was printed before the runs, then one line per run of the
// shard: `run <index>`, the 8 x 5 gains of its point, the count of Fig. 7's gains and those
// gains, every double in hexadecimal (read back to the same bits).
std::string shard_text(const sweep_description& d, const examples::shard& sh,
                       const std::vector<run_result>& results) {
  std::ostringstream out;
  out << examples::shard_file_header(shard_magic, sh) << "sweep " << d.slices << ' ' << d.first
      << ' ' << d.seed << ' ' << d.synthetic << ' ' << d.runs() << "\nloads " << exact_list(d.loads)
      << "\nincentives " << exact_list(d.incentives) << "\nsource " << d.source << '\n';
  out << examples::said_lines(d.said);
  for (std::size_t i = 0; i < results.size(); ++i) {
    if (!sh.owns(i)) continue;
    out << "run " << i;
    for (const point& p : results[i].points)
      for (const auto field : point_fields) out << ' ' << examples::exact(p.*field);
    out << ' ' << exact_list(results[i].incentive_gain) << '\n';
  }
  out << "end\n";  // a file cut short (a killed job) has no end line
  return out.str();
}

// `count` then that many exact doubles.
bool read_exact_list(std::istream& fields, std::vector<double>& values) {
  std::size_t count = 0;
  return static_cast<bool>(fields >> count) && count <= 1000 &&
         examples::read_exact_fields(fields, count, values);
}

// The sweep's lines of the first shard file (sweep, loads, incentives, source), into `d`.
bool parse_sweep_line(const std::string& kind, const std::string& line, sweep_description& d) {
  std::istringstream fields(line);
  std::string word;
  fields >> word;
  if (kind == "sweep") {
    std::size_t runs = 0;
    return fields >> d.slices >> d.first >> d.seed >> d.synthetic >> runs && fields.eof() &&
           d.slices > 0 && d.slices <= 1000 &&
           runs == d.slices * std::max<std::size_t>(d.loads.size(), 1);
  }
  if (kind == "loads")
    return read_exact_list(fields, d.loads) && fields.eof() && !d.loads.empty() &&
           std::ranges::is_sorted(d.loads) && std::ranges::find(d.loads, 0.5) != d.loads.end();
  if (kind == "incentives")
    return read_exact_list(fields, d.incentives) && fields.eof() && !d.incentives.empty();
  d.source = line.substr(word.size() + 1);
  return !d.source.empty();
}

// Reads one shard file's runs into `results`. The first file's sweep becomes `d`; every other
// file must record the same sweep, line for line. Returns false after printing an error naming
// the path and the line.
bool read_shard(const std::filesystem::path& path, const examples::shard& sh, bool first,
                sweep_description& d, std::vector<std::string>& sweep_lines,
                std::vector<run_result>& results, std::vector<bool>& seen) {
  examples::shard_reader in(path, sh);
  if (!in.open(shard_magic, "an adaptive_requests")) return false;
  // The sweep's lines; the loads are parsed first, since the sweep line's run count is
  // checked against them.
  if (!in.sweep_lines({"sweep", "loads", "incentives", "source"}, sweep_lines, first)) return false;
  constexpr std::size_t parse_order[] = {1, 0, 2, 3};
  if (first) {
    for (const std::size_t j : parse_order) {
      const std::string kind = sweep_lines[j].substr(0, sweep_lines[j].find(' '));
      if (!parse_sweep_line(kind, sweep_lines[j], d))  // lines 3 to 6 of the file
        return in.fail_at(j + 3, "malformed " + kind + " line '" + sweep_lines[j] + "'");
    }
    results.assign(d.runs(), run_result{});
    seen.assign(d.runs(), false);
  }
  return in.said_and_runs(d.said, first, seen, [&](std::size_t i, std::istream& fields) {
    run_result r;
    std::vector<double> values;
    if (!examples::read_exact_fields(fields, series_count * std::size(point_fields), values) ||
        !read_exact_list(fields, r.incentive_gain) || !fields.eof())
      return std::string("malformed");
    for (std::size_t v = 0; v < values.size(); ++v)
      r.points[v / std::size(point_fields)].*point_fields[v % std::size(point_fields)] = values[v];
    const std::size_t expected = d.loads[i % d.loads.size()] == 0.5 ? d.incentives.size() : 0;
    if (r.incentive_gain.size() != expected)
      return "run " + std::to_string(i) + " has " + std::to_string(r.incentive_gain.size()) +
             " incentive gains, expected " + std::to_string(expected);
    results[i] = std::move(r);
    return std::string();
  });
}

// The tables (standard output), the CSV and the SVG of the whole sweep from every run's
// result, the same whether the runs were done here or read from shards.
int report(const sweep_description& d, const std::vector<run_result>& runs,
           const std::filesystem::path& dir) {
  const auto& loads = d.loads;
  const auto& incentives = d.incentives;
  // Per series and load, per slice (in slice order): the gains against FIFO rigid on the same
  // slice and load.
  std::map<series_key, std::vector<std::vector<point>>> per_slice;
  std::vector<std::vector<double>> incentive_per_slice(incentives.size());
  for (std::size_t i = 0; i < runs.size(); ++i) {
    const std::size_t li = i % loads.size();
    for (std::size_t k = 0; k < series_count; ++k) {
      auto& rows = per_slice[series_at(k)];
      rows.resize(loads.size());
      rows[li].push_back(runs[i].points[k]);
    }
    for (std::size_t k = 0; k < runs[i].incentive_gain.size(); ++k)
      incentive_per_slice[k].push_back(runs[i].incentive_gain[k]);
  }

  std::map<series_key, std::vector<point>> results;
  for (const auto& [key, rows] : per_slice)
    for (const auto& at_load : rows) {
      const auto mean_of = [&at_load](double point::*field) {
        std::vector<double> v;
        for (const point& p : at_load) v.push_back(p.*field);
        return trimmed_mean(std::move(v));
      };
      results[key].push_back({mean_of(&point::profit_gain), mean_of(&point::completion_reduction),
                              mean_of(&point::rejection_reduction), mean_of(&point::reshaped_share),
                              mean_of(&point::modification)});
    }
  std::vector<double> incentive_gain;
  for (auto& v : incentive_per_slice) incentive_gain.push_back(trimmed_mean(v));
  std::ostringstream csv;
  // Every row says how it was made: the slices, the seed, the input and the library version.
  csv << "strategy,request_type,load_increase_percent,profit_gain_percent,"
         "completion_time_reduction_percent,rejection_reduction_percent,"
         "moldable_reshaped_percent,moldable_modification_percent,slices,first_slice,seed,"
         "source,leasehold_version\n";
  std::ostringstream context_columns;
  context_columns << ',' << d.slices << ',' << d.first << ',' << d.seed << ',' << d.source << ','
                  << leasehold::version_string << '\n';
  const std::string context = context_columns.str();
  std::cout << std::fixed << std::setprecision(1);
  const auto table = [&](const char* title, double point::*field) {
    std::cout << "\n" << title << "\n" << std::left << std::setw(28) << "load increase";
    for (double l : loads) {
      std::ostringstream label;
      label << '+' << static_cast<int>(100 * l) << '%';
      std::cout << std::right << std::setw(8) << label.str();
    }
    std::cout << "\n";
    for (auto order : {adaptive::strategy::fifo, adaptive::strategy::missing_deadline_first})
      for (request_type type : all_types) {
        std::cout << std::left << std::setw(28)
                  << (std::string(name_of(order)) + " " + name_of(type));
        for (const point& p : results.at({type, order}))
          std::cout << std::right << std::setw(8) << p.*field;
        std::cout << "\n";
      }
  };
  table("Profit gain vs FIFO rigid, % (Fig. 4)", &point::profit_gain);
  table("Completion (response) time reduction vs FIFO rigid, % (Fig. 5)",
        &point::completion_reduction);
  table("Rejected requests reduction vs FIFO rigid, % (Fig. 6)", &point::rejection_reduction);
  table("Moldable requests that used fewer than R_max, % (Fig. 8)", &point::reshaped_share);
  table("Mean modification of the reshaped requests, % (Fig. 9)", &point::modification);
  std::cout << "\nMDF preemptive at +50 % load: profit gain vs FIFO rigid by incentive (Fig. 7)\n";
  for (std::size_t k = 0; k < incentives.size(); ++k)
    std::cout << "  incentive " << std::setw(3) << int(100 * incentives[k] + 0.5)
              << " %: " << std::setw(6) << incentive_gain[k] << " %\n";

  for (const auto& [key, points] : results)
    for (std::size_t li = 0; li < loads.size(); ++li)
      csv << name_of(key.order) << ',' << name_of(key.type) << ',' << 100 * loads[li] << ','
          << points[li].profit_gain << ',' << points[li].completion_reduction << ','
          << points[li].rejection_reduction << ',' << points[li].reshaped_share << ','
          << points[li].modification << context;
  for (std::size_t k = 0; k < incentives.size(); ++k)
    csv << "MDF,preemptive incentive " << 100 * incentives[k] << " %,50," << incentive_gain[k]
        << ",,,," << context;
  if (!examples::write_file(dir / "adaptive_requests.csv", csv.str())) return 1;
  if (!write_svg((dir / "adaptive_requests.svg").string(), loads, results, incentives,
                 incentive_gain, d.subtitle()))
    return 1;
  std::cout << "\nwrote " << examples::display_path(dir / "adaptive_requests.csv") << " and "
            << examples::display_path(dir / "adaptive_requests.svg") << "\n";
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  std::size_t slice_count = 2;
  std::size_t first = 0;
  std::vector<double> incentives{0.0, 0.1, 0.2, 0.3, 0.4};
  std::uint64_t seed = 2007;
  std::string out_dir = ".";
  bool synthetic = false;
  bool full = false;
  std::string trace = std::string(LEASEHOLD_SHARED_DIR) + "/traces/SDSC-SP2-1998-4.2-cln.swf.gz";
  std::vector<double> load_percents{0, 25, 50};
  CLI::App app{
      "Netto & Buyya's adaptive resource allocation requests (Figs. 4-9) on the SDSC SP2 log "
      "in 15-day slices."};
  app.option_defaults()->always_capture_default();
  auto* full_option =
      app.add_flag("--full", full,
                   "every slice (the SDSC SP2 log's 49, or 48 synthetic ones), loads 0..50 % by "
                   "10 (unless --slices / --loads say otherwise)");
  auto* slices_option = app.add_option("--slices", slice_count, "number of 15-day slices")
                            ->check(CLI::Range(std::size_t{1}, std::size_t{1000}));
  auto* first_option = app.add_option("--first", first, "index of the first slice")
                           ->check(CLI::Range(std::size_t{0}, std::size_t{1000}));
  auto* loads_option = app.add_option("--loads", load_percents,
                                      "load increases in % (comma-separated; +50 % is "
                                      "always added for Fig. 7)")
                           ->delimiter(',')
                           ->check(examples::finite() & CLI::Range(0.0, 1000.0));
  auto* seed_option =
      app.add_option("--seed", seed, "seed of the request terms (and of the synthetic workload)");
  app.add_option("--out", out_dir, "directory for adaptive_requests.csv and .svg (created)");
  std::string per_job_path;
  auto* per_job_option = app.add_option(
      "--per-job", per_job_path,
      "also write every request of every run in Batsim's jobs.csv layout (job_id, "
      "submission_time, ..., stretch, allocated_resources) to this file, with the "
      "run's slice, load, strategy, request type, seed, source and leasehold_version");
  auto* trace_option =
      app.add_option("--trace", trace, "the SDSC SP2 log, SWF (plain or gzip-compressed)");
  auto* synthetic_option =
      app.add_flag("--synthetic", synthetic,
                   "the documented synthetic workload (250 jobs / 15 days) instead of a trace")
          ->excludes(trace_option);
  examples::shard_options shards;
  shards.add(app, "adaptive_requests_shards",
             "run only the runs (slice, load) whose index slice x loads + load is I modulo N",
             "run nothing: take the trimmed means over the shard files in this directory and "
             "write the tables, CSV and SVG (the sweep is read from the files)",
             {full_option, slices_option, first_option, loads_option, seed_option, per_job_option,
              trace_option, synthetic_option});
  // Per-request rows are written as runs finish, by one process only.
  per_job_option->excludes(shards.shard_option);
  if (const auto code = examples::parse(app, argc, argv)) return *code;
  // The output directory first, so that a bad --out fails before minutes of simulation.
  const std::filesystem::path dir(out_dir);

  if (!shards.merge_dir.empty()) {
    if (!examples::make_directories(dir)) return 1;
    sweep_description d;
    std::vector<std::string> sweep_lines;
    std::vector<run_result> results;
    std::vector<bool> seen;
    if (!examples::read_shards(
            shards.merge_dir, seen, [&](const auto& path, const auto& sh, bool first_shard) {
              return read_shard(path, sh, first_shard, d, sweep_lines, results, seen);
            }))
      return 1;
    std::cout << d.said;
    return report(d, results, dir);
  }

  const std::optional<examples::shard> shard = shards.chosen();

  if (full && slices_option->count() == 0) slice_count = 1000;
  if (full && loads_option->count() == 0) load_percents = {0, 10, 20, 30, 40, 50};
  sweep_description d;
  d.first = first;
  d.seed = seed;
  d.synthetic = synthetic;
  d.incentives = incentives;
  auto& loads = d.loads;
  for (const double percent : load_percents) loads.push_back(percent / 100);
  if (std::ranges::find(loads, 0.5) == loads.end()) loads.push_back(0.5);  // Fig. 7 needs +50 %
  std::ranges::sort(loads);
  loads.erase(std::unique(loads.begin(), loads.end()), loads.end());

  if (!examples::make_directories(shard ? std::filesystem::path(shards.dir) : dir)) return 1;

  // What is printed before the runs is also recorded, for the merge step to print it again.
  std::ostringstream said;
  std::vector<std::vector<job>> slices;
  if (!synthetic) {
    if (!examples::check_input(trace)) {
      std::cerr << "(pass --trace FILE, or --synthetic for the synthetic workload)\n";
      return 1;
    }
    std::string skipped;
    std::vector<std::vector<job>> all;
    try {
      all = trace_slices(trace, skipped);
    } catch (const std::exception& e) {
      std::cerr << "error: " << e.what() << '\n';
      return 1;
    }
    said << "SDSC SP2: " << all.size() << " slices of 15 days";
    std::size_t total = 0;
    for (const auto& s : all) total += s.size();
    said << ", " << total << " jobs of at least a minute\n";
    if (!skipped.empty()) said << "note: " << skipped << '\n';
    if (first >= all.size()) {
      std::cerr << "error: --first " << first << ": the log has " << all.size()
                << " slices, numbered 0 to " << all.size() - 1 << '\n';
      return 2;
    }
    for (std::size_t i = first; i < all.size() && slices.size() < slice_count; ++i)
      slices.push_back(std::move(all[i]));
  } else {
    if (first >= synthetic_slices) {
      std::cerr << "error: --first " << first << ": the synthetic workload has " << synthetic_slices
                << " slices, numbered 0 to " << synthetic_slices - 1 << '\n';
      return 2;
    }
    said << "synthetic workload requested"
         << "; using the synthetic workload (250 jobs / 15 days, 128 processors)\n";
    for (std::size_t i = 0; i < std::min(slice_count, synthetic_slices - first); ++i)
      slices.push_back(synthetic_slice(seed + first + i));
  }
  if (slices.empty()) {
    std::cout << said.str();
    std::cerr << "no slices selected\n";
    return 1;
  }
  // Opened (and truncated) only once every argument is known to be good.
  std::ofstream per_job;
  if (!per_job_path.empty()) {
    if (!examples::open_output(per_job, per_job_path)) return 1;
    per_job << per_job_table.header();
  }
  for (std::size_t i = 0; i < slices.size(); ++i) decorate(slices[i], seed + first + i);
  said << "running " << slices.size() << " slice(s) starting at slice " << first << ", loads";
  for (double l : loads) said << " +" << static_cast<int>(100 * l) << '%';
  said << "\n";
  d.slices = slices.size();
  d.said = said.str();
  d.source =
      synthetic ? std::string("synthetic") : std::filesystem::path(trace).filename().string();
  std::cout << d.said << std::flush;

  // The per-job rows of one run, written and flushed as it finishes.
  const auto write_jobs = [&](const outcome& o, std::size_t slice, double load,
                              adaptive::strategy order, request_type type) {
    if (!per_job.is_open()) return true;
    std::ostringstream load_text;
    load_text << 100 * load;
    const std::vector<std::string> context{
        std::to_string(first + slice), load_text.str(), name_of(order),           name_of(type),
        std::to_string(seed),          d.source,        leasehold::version_string};
    for (const auto& j : o.jobs) per_job << per_job_table.row(j, context);
    per_job.flush();
    if (per_job) return true;
    std::cerr << "error: writing " << per_job_path << " failed\n";
    return false;
  };

  // The runs of the sweep (or of this shard), in index order: slice by slice, load by load.
  std::vector<std::size_t> mine;
  for (std::size_t i = 0; i < d.runs(); ++i)
    if (!shard || shard->owns(i)) mine.push_back(i);
  std::vector<run_result> results(d.runs());
  const bool keep_jobs = per_job.is_open();
  examples::progress_meter meter("adaptive_requests: (slice, load) pairs done", mine.size());
  for (const std::size_t i : mine) {
    const std::size_t si = i / loads.size();
    const std::size_t li = i % loads.size();
    const auto& jobs = slices[si];
    const outcome base =
        simulate(jobs, request_type::rigid, adaptive::strategy::fifo, loads[li], keep_jobs);
    for (std::size_t k = 0; k < series_count; ++k) {
      const auto [type, order] = series_at(k);
      const outcome o = (type == request_type::rigid && order == adaptive::strategy::fifo)
                            ? base
                            : simulate(jobs, type, order, loads[li], keep_jobs);
      if (!write_jobs(o, si, loads[li], order, type)) return 1;
      point& p = results[i].points[k];
      p.profit_gain = base.profit > 0 ? 100 * (o.profit / base.profit - 1) : 0;
      p.completion_reduction =
          base.mean_response > 0 ? 100 * (1 - o.mean_response / base.mean_response) : 0;
      p.rejection_reduction = base.rejected > 0 ? 100 * (1 - o.rejected / base.rejected) : 0;
      p.reshaped_share = 100 * o.metrics.reshaped_share();
      p.modification = 100 * o.metrics.mean_modification;
      // Fig. 7: the schedule does not depend on the price, so the same MDF preemptive run is
      // priced again with each incentive.
      if (loads[li] == 0.5 && type == request_type::preemptive &&
          order == adaptive::strategy::missing_deadline_first)
        for (const double incentive : incentives)
          results[i].incentive_gain.push_back(
              100 * (profit_with_incentive(o, incentive) / base.profit - 1));
    }
    meter.advance();
  }
  meter.finish();
  if (per_job.is_open() && !examples::close_output(per_job, per_job_path)) return 1;

  if (shard) {
    const auto path = examples::shard_path(shards.dir, *shard);
    if (!examples::write_file(path, shard_text(d, *shard, results))) return 1;
    std::cout << "Shard " << shard->index << '/' << shard->count << ": " << mine.size() << " of "
              << d.runs() << " (slice, load) runs; per-slice results in " << path.string()
              << " (build the tables with --merge " << shards.dir << ")\n";
    return 0;
  }
  if (const int code = report(d, results, dir); code != 0) return code;
  if (!per_job_path.empty())
    std::cout << "per-job rows (Batsim's layout) in " << per_job_path << "\n";
}
