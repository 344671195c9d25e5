// Runs one Haizea Lease Workload Format document (XML: sim/workload/haizea_lwf.hpp) through the
// lease scheduler and prints what happened to every lease: when it started, each stretch it
// ran on which nodes, suspensions, migrations, its end. This is how a scenario written for
// Haizea (its own tests/*.lwf, or a hand-made one) is replayed lease for lease here: the
// cluster comes from the document's <site>, the scheduler's choices from the options, which
// default to the configuration of the paper (Sotomayor, Keahey & Foster, HPDC'08, §4.3).
//
//   haizea_lwf scenario.lwf                         the paper's VM configuration
//   haizea_lwf scenario.lwf --suspend-rate 32 --resume-rate 32 --haizea-choices
//   haizea_lwf scenario.lwf --images reuse --per-job jobs.csv
//   haizea_lwf scenario.lwf --haizea-preset tests --suspend-time 4 --resume-time 36
//   haizea_lwf workload.lwf --inject injection.lwf
//   haizea_lwf scenario.lwf --gantt schedule.svg      the schedule drawn as a Gantt chart
//
// Mapping of a Haizea configuration file onto the options (only these are modelled):
//   [scheduling] backfilling, suspension, migration      --backfilling, --config, --no-migration
//   [scheduling] suspend-rate / resume-rate (MB/s)        --suspend-rate / --resume-rate
//   lease-preparation: unmanaged | imagetransfer           --images none | transfer
//   [deploy-imagetransfer] diskimage-reuse: image-caches  --images reuse
//   imagetransfer-bandwidth (Mbit/s) / 8                   --image-mb-s
//   diskimage-cache-size (MB)                              --cache-mb
//   override-suspend-time / override-resume-time (s)       --suspend-time / --resume-time
//   [tracefile] injectionfile                              --inject
// With --images transfer or reuse the image transfers are printed after the leases.
//
// Exit codes: 0 after a run, 1 when the document cannot be read or scheduled (the message
// names the path and, for XML errors, the line), 2 for a bad command line.

#include <algorithm>
#include <cstdint>
#include <exception>
#include <filesystem>
#include <fstream>
#include <iomanip>
#include <iostream>
#include <map>
#include <optional>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include <leasehold/io/batsim_jobs.hpp>
#include <leasehold/io/gantt_recorder.hpp>
#include <leasehold/io/job_outcomes.hpp>
#include <leasehold/policy/lease/lease_scheduler.hpp>
#include <leasehold/policy/staging/image_staging.hpp>
#include <leasehold/sim/lease_simulation.hpp>
#include <leasehold/sim/metrics.hpp>
#include <leasehold/sim/workload/haizea_lwf.hpp>
#include <leasehold/version.hpp>

#include "cli.hpp"

namespace lh = leasehold;
namespace lease = leasehold::policy::lease;
namespace staging = leasehold::policy::staging;
using T = std::int64_t;

namespace {

struct options {
  std::string lwf;
  std::string inject;  // a second LWF document whose leases join the first's
  std::string config = "VM";
  bool haizea_choices = false;
  std::string haizea_preset;  // "" none, else a name of haizea_presets
  std::string backfilling = "aggressive";
  bool no_migration = false;
  double suspend_rate = 50.0;
  double resume_rate = 50.0;
  std::optional<T> suspend_time;  // fixed, instead of memory / rate
  std::optional<T> resume_time;
  double migration_mb_s = 10.0;
  T boot_shutdown = 20;
  std::int64_t slowdown_percent = 5;
  std::string images = "none";
  double image_mb_s = 10.0;
  std::int64_t cache_mb = 20 * 1024;
  std::int64_t cpu_divisor = 100;
  std::string per_job;
  std::string gantt;  // --gantt: the schedule as an SVG Gantt chart
  std::string preempt = "all_overlapping";
};

// --haizea-preset: the presets of scheduler_config::with_haizea.
const std::map<std::string, lease::haizea_preset> haizea_presets{
    {"hpdc08", lease::haizea_preset::hpdc08}, {"tests", lease::haizea_preset::tests}};

// A document that cannot be turned into a cluster and leases: the message is printed after
// the path.
struct input_problem {
  std::string message;
};

lease::scheduler_config<T> config_of(const options& o) {
  lease::scheduler_config<T> c = o.config == "NOVM-NOSR" ? lease::scheduler_config<T>::novm_nosr()
                                 : o.config == "NOVM-SR"
                                     ? lease::scheduler_config<T>::novm_sr()
                                     : lease::scheduler_config<T>::vm_predeploy();
  if (o.backfilling == "off")
    c.backfill = lease::backfilling::off();
  else if (o.backfilling == "conservative")
    c.backfill = lease::backfilling::conservative();
  else
    c.backfill = lease::backfilling::aggressive();
  if (o.no_migration) c.migrate = lease::migration::none;
  if (o.preempt == "minimal") c.preempt = lease::preemption_set::minimal;
  c.suspend_rate_mb_s = o.suspend_rate;
  c.resume_rate_mb_s = o.resume_rate;
  c.suspend_time_fixed = o.suspend_time;
  c.resume_time_fixed = o.resume_time;
  c.network_mb_s = o.migration_mb_s;
  c.boot_shutdown = o.boot_shutdown;
  c.runtime_slowdown_percent = o.slowdown_percent;
  return o.haizea_preset.empty() ? c : c.with_haizea(haizea_presets.at(o.haizea_preset));
}

std::string node_list(const std::vector<std::size_t>& nodes) {
  std::string text;
  for (const std::size_t n : nodes) {
    if (!text.empty()) text.push_back(' ');
    text.append(std::to_string(n));  // appended: GCC 12 at -O3 misreads "" + std::string
  }
  return "{" + text + "}";
}

std::string optional_time(const std::optional<T>& t) { return t ? std::to_string(*t) : "-"; }

const char* outcome_name(lease::segment_outcome outcome) {
  switch (outcome) {
    case lease::segment_outcome::completed:
      return "completed";
    case lease::segment_outcome::suspended:
      return "suspended";
    case lease::segment_outcome::cancelled:
      return "cancelled";
    case lease::segment_outcome::released:
      return "released";
  }
  return "?";
}

// The image transfers of a run with image staging, as they ended (the observer hears each
// once it is over; one withdrawn at its first instant is not heard as finished).
class transfer_log : public lh::io::gantt_recorder<T> {
 public:
  void on_transfer_finished(const lease::transfer_notice<T>& transfer) override {
    lh::io::gantt_recorder<T>::on_transfer_finished(transfer);
    finished.push_back(transfer);
  }
  std::vector<lease::transfer_notice<T>> finished;
};

void print_transfers(const std::vector<lease::transfer_notice<T>>& transfers, std::ostream& out) {
  out << "image transfers: " << transfers.size() << '\n';
  for (const auto& t : transfers) {
    std::string leases;
    for (const std::uint64_t id : t.leases) {
      if (!leases.empty()) leases.push_back(' ');
      leases.append(std::to_string(id));
    }
    out << "        [" << t.span.begin << ", " << t.span.end << ") " << t.image << " (" << t.size_mb
        << " MB) to " << node_list(t.nodes) << " for leases {" << leases << "}\n";
  }
}

// One line per lease (file order), then one indented line per stretch it ran.
template <class Scheduler>
void print_schedule(const Scheduler& scheduler, const std::vector<lease::lease_terms<T>>& leases,
                    std::ostream& out) {
  out << std::left << std::setw(6) << "lease" << std::setw(21) << "kind" << std::setw(6) << "nodes"
      << std::setw(9) << "submit" << std::setw(9) << "start" << std::setw(9) << "end"
      << std::setw(10) << "state" << std::setw(12) << "suspensions"
      << "migrations\n";
  for (const auto& terms : leases) {
    const auto& l = scheduler.lease(terms.id);
    std::ostringstream kind;
    kind << l.terms.kind;
    std::ostringstream state;
    state << l.state;
    out << std::setw(6) << l.terms.id << std::setw(21) << kind.str() << std::setw(6)
        << l.terms.nodes << std::setw(9) << l.terms.submit << std::setw(9)
        << optional_time(l.first_start) << std::setw(9) << optional_time(l.end) << std::setw(10)
        << state.str() << std::setw(12) << l.suspensions << l.migrations << '\n';
    if (!l.rejection.empty()) out << "        rejected: " << l.rejection << '\n';
    for (const auto& s : l.history) {
      out << "        [" << s.span.begin << ", " << s.span.end << ") runs [" << s.run.begin << ", "
          << s.run.end << ") on " << node_list(s.nodes) << ", " << outcome_name(s.outcome) << '\n';
    }
  }
}

template <class Scheduler>
int report(const Scheduler& scheduler, const std::string& name,
           const std::vector<lease::lease_terms<T>>& leases, const lh::haizea::lwf_site& shape,
           const options& o, const transfer_log* transfers) {
  std::cout << "leasehold " << lh::version_string << ", workload \"" << name
            << "\": " << leases.size() << " leases on " << shape.nodes << " nodes, " << o.config
            << (o.haizea_preset.empty() ? "" : " with Haizea's choices (" + o.haizea_preset + ")")
            << '\n';
  print_schedule(scheduler, leases, std::cout);
  if (transfers != nullptr) print_transfers(transfers->finished, std::cout);
  if (o.per_job.empty()) return 0;
  std::ofstream out;
  if (!examples::open_output(out, o.per_job)) return 1;
  const lh::io::batsim_job_table table({"workload", "configuration", "leasehold_version"});
  const std::vector<std::string> context{std::filesystem::path(o.lwf).filename().string(), o.config,
                                         std::string(lh::version_string)};
  out << table.header();
  for (const auto& terms : leases)
    out << table.row(lh::io::job_outcome_of(scheduler.lease(terms.id)), context);
  out.flush();
  if (!out) {
    std::cerr << "error: writing " << o.per_job << " failed\n";
    return 1;
  }
  std::cout << "per-job rows in " << o.per_job << '\n';
  return 0;
}

int run(const options& o) {
  if (!examples::check_input(o.lwf)) return 1;  // a directory, say, is named as one
  std::ifstream in(o.lwf);
  if (!in) {
    std::cerr << "error: cannot open " << o.lwf << " for reading\n";
    return 1;
  }
  try {
    const auto workload = lh::haizea::read_lwf(in);
    const lh::haizea::lwf_conversion conversion{.cpu_divisor = o.cpu_divisor};
    const auto shape = lh::haizea::site_of(workload, conversion);
    auto leases = lh::haizea::to_lease_terms<T>(workload, conversion);
    if (!o.inject.empty()) {
      // Haizea's injection file: its leases join the workload's (Haizea numbers leases as it
      // reads them, so the injected ones follow the workload's highest id) and are printed
      // after them. Its <site>, if any, is not used.
      if (!examples::check_input(o.inject)) return 1;
      std::ifstream injected_in(o.inject);
      if (!injected_in) {
        std::cerr << "error: cannot open " << o.inject << " for reading\n";
        return 1;
      }
      std::vector<lease::lease_terms<T>> injected;
      try {
        injected = lh::haizea::to_lease_terms<T>(lh::haizea::read_lwf(injected_in), conversion);
      } catch (const lh::error& e) {
        std::cerr << "error: " << o.inject << ": " << e.what() << '\n';
        return 1;
      }
      std::uint64_t next = 0;
      for (const auto& l : leases) next = std::max(next, l.id);
      for (auto& l : injected) {
        l.id = ++next;
        leases.push_back(l);
      }
    }
    // Checked here too (the scheduler refuses a second submit) so that a bad document fails
    // before any simulation, naming the file.
    std::set<std::uint64_t> ids;
    for (const auto& l : leases)
      if (!ids.insert(l.id).second)
        throw input_problem{"lease id " + std::to_string(l.id) + " is used twice"};

    auto config = config_of(o);
    // Haizea's sites give CPU and memory only: without a disk in the site, a suspended
    // lease's memory state is not charged to a disk that is not modelled.
    if (!shape.has_disk) config.reserve_disk_for_memory_state = false;
    using table = lh::cluster::slot_table<lh::free_list<T, lease::node_resources>>;
    // One observer (the scheduler has one slot) records what the chart and the transfer list
    // need; it listens to every run, whether or not a chart is asked for.
    transfer_log log;
    auto replay = [&](auto& scheduler, bool staged) {
      scheduler.set_observer(&log);
      lh::sim::simulate_leases(scheduler, leases);
      const int code = report(scheduler, workload.name, leases, shape, o, staged ? &log : nullptr);
      if (code != 0 || o.gantt.empty()) return code;
      auto chart = lh::io::gantt_chart_of(scheduler.leases(), shape.nodes, log);
      chart.title = "haizea_lwf: \"" + workload.name + "\"";
      chart.subtitle =
          std::to_string(leases.size()) + " leases on " + std::to_string(shape.nodes) + " nodes, " +
          o.config +
          (o.haizea_preset.empty() ? "" : " with Haizea's choices (" + o.haizea_preset + ")") +
          ", images " + o.images;
      chart.notes = {"input: " + std::filesystem::path(o.lwf).filename().string() +
                     "; time from the workload's start"};
      if (!examples::write_file(o.gantt, lh::io::to_svg(chart))) return 1;
      std::cout << "Gantt chart in " << examples::display_path(o.gantt) << '\n';
      return 0;
    };
    if (o.images == "none") {
      lease::lease_scheduler<> scheduler(table(shape.nodes, shape.per_node), config);
      return replay(scheduler, false);
    }
    staging::staging_config sc = o.images == "reuse" ? staging::staging_config::vm_reuse()
                                                     : staging::staging_config::vm_mult();
    sc.bandwidth_mb_s = o.image_mb_s;
    sc.cache_mb = o.cache_mb;
    staging::image_staging<> images(shape.nodes, sc);
    std::set<std::string> known;
    for (const auto& l : leases)
      if (l.image && known.insert(l.image->id).second) images.add_image(*l.image);
    lease::lease_scheduler<lh::free_list<T, lease::node_resources>, staging::image_staging<>>
        scheduler(table(shape.nodes, shape.per_node), config, std::move(images));
    return replay(scheduler, true);
  } catch (const lh::haizea::lwf_error& e) {
    // what() already starts with "line N: " for XML errors; content errors name the element.
    std::cerr << "error: " << o.lwf << ": " << e.what() << '\n';
  } catch (const input_problem& e) {
    std::cerr << "error: " << o.lwf << ": " << e.message << '\n';
  } catch (const lh::error& e) {
    std::cerr << "error: " << o.lwf << ": " << e.what() << '\n';
  }
  return 1;
}

}  // namespace

int main(int argc, char** argv) {
  options o;
  CLI::App app{
      "Runs one Haizea LWF document (XML, e.g. Haizea's tests/*.lwf) through the lease "
      "scheduler and prints each lease's schedule."};
  app.add_option("lwf", o.lwf, "the LWF document")->required();
  app.add_option("--inject", o.inject,
                 "an injection file (another LWF document) whose leases join the first's, as "
                 "Haizea's injectionfile");
  app.add_option("--config", o.config,
                 "leases in VMs (VM: slowdown and boot/shutdown apply) or not")
      ->check(CLI::IsMember({"NOVM-NOSR", "NOVM-SR", "VM"}))
      ->capture_default_str();
  auto* choices_opt = app.add_flag("--haizea-choices", o.haizea_choices,
                                   "the same as --haizea-preset tests "
                                   "(scheduler_config::with_haizea_choices)");
  app.add_option("--haizea-preset", o.haizea_preset,
                 "make Haizea's own choices as one version of its code did "
                 "(scheduler_config::with_haizea): hpdc08 (the code behind the paper's runs) or "
                 "tests (the later code behind Haizea's test scenarios)")
      ->check(CLI::IsMember(haizea_presets))
      ->excludes(choices_opt);
  app.add_option("--backfilling", o.backfilling, "best-effort backfilling")
      ->check(CLI::IsMember({"off", "aggressive", "conservative"}))
      ->capture_default_str();
  app.add_flag("--no-migration", o.no_migration, "a suspended lease resumes only on its own nodes");
  app.add_option("--preempt", o.preempt,
                 "which best-effort leases an advance reservation preempts on a node lacking "
                 "room: all_overlapping (every one in the way) or minimal (the fewest that make "
                 "room, then least run time lost, then smallest ids)")
      ->check(CLI::IsMember({"all_overlapping", "minimal"}))
      ->capture_default_str();
  app.add_option("--suspend-rate", o.suspend_rate, "MB/s at which a VM's memory is saved")
      ->check(examples::finite() & CLI::Range(0.001, 1e6))
      ->capture_default_str();
  app.add_option("--resume-rate", o.resume_rate, "MB/s at which it is restored")
      ->check(examples::finite() & CLI::Range(0.001, 1e6))
      ->capture_default_str();
  app.add_option("--suspend-time", o.suspend_time,
                 "a fixed time, s, for every suspension instead of memory / rate (Haizea's "
                 "override-suspend-time)")
      ->check(CLI::Range(T{0}, T{86'400}));
  app.add_option("--resume-time", o.resume_time,
                 "a fixed time, s, for every resume instead of memory / rate (Haizea's "
                 "override-resume-time)")
      ->check(CLI::Range(T{0}, T{86'400}));
  app.add_option("--migration-mb-s", o.migration_mb_s,
                 "the link a migration moves the image instance and memory state over, MB/s "
                 "(Haizea's imagetransfer-bandwidth in Mbit/s, / 8)")
      ->check(examples::finite() & CLI::Range(0.001, 1e6))
      ->capture_default_str();
  app.add_option("--boot-shutdown", o.boot_shutdown, "seconds to boot and shut down a VM")
      ->check(CLI::Range(T{0}, T{86'400}))
      ->capture_default_str();
  app.add_option("--slowdown-percent", o.slowdown_percent,
                 "how much longer a computation takes inside a VM")
      ->check(CLI::Range(std::int64_t{0}, std::int64_t{1000}))
      ->capture_default_str();
  app.add_option("--images", o.images,
                 "disk images: none (predeployed, Haizea's 'unmanaged'), transfer (each lease's "
                 "image sent from the repository) or reuse (node caches, Haizea's image-caches)")
      ->check(CLI::IsMember({"none", "transfer", "reuse"}))
      ->capture_default_str();
  app.add_option("--image-mb-s", o.image_mb_s, "the repository link's bandwidth, MB/s")
      ->check(examples::finite() & CLI::Range(0.001, 1e6))
      ->capture_default_str();
  app.add_option("--cache-mb", o.cache_mb, "each node's image cache, MB (with --images reuse)")
      ->check(CLI::Range(std::int64_t{0}, std::int64_t{1} << 40))
      ->capture_default_str();
  app.add_option("--cpu-divisor", o.cpu_divisor,
                 "Haizea counts CPU in percent: amounts are divided by this (1 keeps percent)")
      ->check(CLI::Range(std::int64_t{1}, std::int64_t{1'000'000}))
      ->capture_default_str();
  app.add_option("--per-job", o.per_job,
                 "also write every lease in Batsim's jobs.csv layout to this file");
  app.add_option("--gantt", o.gantt,
                 "also draw the schedule as a Gantt chart (SVG): nodes against time, a bar per "
                 "lease segment coloured by kind, advance reservations outlined, suspensions, "
                 "migrations and image transfers marked");
  if (const auto code = examples::parse(app, argc, argv)) return *code;
  if (o.haizea_choices) o.haizea_preset = "tests";
  // The chart is written after the run: its path is checked (its directories made) before.
  if (!examples::prepare_output(o.gantt)) return 1;
  try {
    return run(o);
  } catch (const std::exception& e) {
    std::cerr << "error: " << o.lwf << ": " << e.what() << '\n';
    return 1;
  }
}
