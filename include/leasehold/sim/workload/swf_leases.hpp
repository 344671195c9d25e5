#pragma once

/// \file
/// From SWF job records to best-effort lease requests, following the rules the Haizea
/// paper's authors applied to the SDSC Blue Horizon log (Sotomayor, Keahey & Foster,
/// HPDC'08, §4.2, and Haizea's SWF reader; see docs/workloads.md):
///   - nodes = requested processors (field 8) / processors per node, rounded up;
///   - maximum duration = requested time (field 9); records with requested time <= 0 are
///     skipped;
///   - real duration = run time (field 4), 0 read as 1 s, capped at the requested time;
///   - a job cancelled while waiting (run time < 0, status 5) waits in the queue until
///     submit + wait (field 3) and leaves without ever starting, as in runs of the paper-era
///     Haizea on this workload (cancelled_policy::queue_until_wait; the others are options);
///   - one VM per node with 1 CPU and 1024 MB; best-effort leases are preemptible.
/// Every rule is a knob of swf_conversion. extract() reproduces the paper's 30-day queue
/// 1-4 extract from the raw log.

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <vector>

#include "leasehold/core/detail/checks.hpp"
#include "leasehold/core/lease_terms.hpp"
#include "leasehold/sim/workload/swf.hpp"

namespace leasehold::workload {

/// Jobs with run time < 0 and status 5: cancelled by their users while waiting.
enum class cancelled_policy {
  // Queued until submit + wait, never started, then withdrawn (lease_terms::hold_in_queue):
  // what the paper-era Haizea did on the paper's workload (../shared/haizea-workloads).
  queue_until_wait,
  withdraw_at_wait,    ///< may start like any lease; withdrawn at submit + wait if it has not
  run_requested_time,  ///< run for the full requested time (later Haizea versions)
  skip,                ///< leave them out
};

/// Other jobs whose run time is unknown (< 0, status not 5).
enum class unknown_run_policy {
  run_requested_time,  ///< as Haizea: real duration = requested time
  skip,
};

/// Jobs whose run time exceeds the requested time (about 23k in Blue Horizon: the queue
/// limit was enforced late).
enum class overrun_policy {
  cap_at_request,  ///< as Haizea: the real duration is the requested time
  extend_request,  ///< the requested duration becomes the run time
};

/// Jobs with requested time <= 0 (66 in SDSC SP2).
enum class unknown_request_policy {
  skip,          ///< as Haizea
  use_run_time,  ///< request exactly the run time (skipped when that is unknown too)
};

/// How SWF jobs become best-effort leases; the defaults are Haizea's reading of
/// blue-30days.swf (see the policies above for each choice).
struct swf_conversion {
  std::int64_t procs_per_node =
      1;  ///< 1 for blue-30days.swf (already nodes), 8 for raw Blue Horizon
  bool allocated_when_unrequested = true;  ///< requested procs -1: use allocated procs (field 5)
  std::int64_t cpus_per_vm = 1;            ///< what each lease's VM asks per node: CPUs
  std::int64_t memory_per_vm_mb = 1024;    ///< and memory, MB
  /// What a job cancelled while waiting becomes.
  cancelled_policy cancelled = cancelled_policy::queue_until_wait;
  /// What a job whose run time is unknown becomes.
  unknown_run_policy unknown_run = unknown_run_policy::run_requested_time;
  /// What a job that ran past its request becomes.
  overrun_policy overrun = overrun_policy::cap_at_request;
  /// What a job whose requested time is unknown becomes.
  unknown_request_policy unknown_request = unknown_request_policy::skip;
  std::int64_t min_real_duration = 1;   ///< Haizea reads run time 0 as 1 s
  std::int64_t min_requested_time = 1;  ///< Netto & Buyya drop requests under 60 s
  /// Larger requests are skipped (nullopt: keep all).
  std::optional<std::int64_t> max_nodes = std::nullopt;
  bool preemptible = true;  ///< whether the leases may be suspended
};

/// What to_best_effort left out, by reason.
struct conversion_report {
  std::size_t converted = 0;        ///< jobs that became leases
  std::size_t unknown_request = 0;  ///< requested time <= 0 (or below min_requested_time)
  std::size_t unknown_size = 0;     ///< no processor count
  std::size_t too_large = 0;        ///< above max_nodes
  std::size_t cancelled = 0;        ///< cancelled while waiting, under cancelled_policy::skip
  std::size_t unknown_run = 0;      ///< under unknown_run_policy::skip
  /// Every job left out, whatever the reason.
  [[nodiscard]] std::size_t skipped() const noexcept {
    return unknown_request + unknown_size + too_large + cancelled + unknown_run;
  }
};

namespace detail {

inline void check(const swf_conversion& options) {
  const auto positive = [](const char* name, std::int64_t value) {
    if (value <= 0)
      throw invalid_request(
          leasehold::detail::describe("swf_conversion::", name, " = ", value, " must be positive"));
  };
  positive("procs_per_node", options.procs_per_node);
  positive("cpus_per_vm", options.cpus_per_vm);
  positive("memory_per_vm_mb", options.memory_per_vm_mb);
  positive("min_real_duration", options.min_real_duration);
  positive("min_requested_time", options.min_requested_time);
  if (options.max_nodes) positive("max_nodes", *options.max_nodes);
}

}  // namespace detail

/// One record as a best-effort lease, or nullopt when a rule drops it (the report, when
/// given, says why). The lease id is the job number.
template <time_value T = std::int64_t>
[[nodiscard]] std::optional<lease_terms<T>> to_best_effort(const swf::record& job,
                                                           const swf_conversion& options = {},
                                                           conversion_report* report = nullptr) {
  detail::check(options);
  conversion_report local;
  conversion_report& counts = report ? *report : local;

  std::int64_t requested = job.requested_time;
  const bool run_known = job.run_time >= 0;
  if (requested <= 0 && options.unknown_request == unknown_request_policy::use_run_time &&
      run_known)
    requested = std::max(job.run_time, options.min_real_duration);
  if (requested <= 0 || requested < options.min_requested_time) {
    ++counts.unknown_request;
    return std::nullopt;
  }

  std::int64_t procs = job.requested_procs;
  if (procs <= 0 && options.allocated_when_unrequested) procs = job.allocated_procs;
  if (procs <= 0) {
    ++counts.unknown_size;
    return std::nullopt;
  }
  const std::int64_t nodes = (procs + options.procs_per_node - 1) / options.procs_per_node;
  if (options.max_nodes && nodes > *options.max_nodes) {
    ++counts.too_large;
    return std::nullopt;
  }

  lease_terms<T> lease;
  lease.id = static_cast<std::uint64_t>(job.job);
  lease.submit = static_cast<T>(job.submit);
  lease.kind = lease_kind::best_effort;
  lease.nodes = nodes;
  lease.per_node = node_resources{options.cpus_per_vm, options.memory_per_vm_mb, 0, 0};
  lease.preemptible = options.preemptible;

  std::int64_t real = 0;
  if (!run_known) {
    const bool cancelled_waiting = job.status == swf::status_cancelled;
    if (cancelled_waiting && options.cancelled == cancelled_policy::skip) {
      ++counts.cancelled;
      return std::nullopt;
    }
    if (!cancelled_waiting && options.unknown_run == unknown_run_policy::skip) {
      ++counts.unknown_run;
      return std::nullopt;
    }
    real = requested;
    const bool withdraws = options.cancelled == cancelled_policy::withdraw_at_wait ||
                           options.cancelled == cancelled_policy::queue_until_wait;
    if (cancelled_waiting && withdraws && job.wait >= 0) {
      lease.withdraw = static_cast<T>(job.submit + job.wait);
      lease.hold_in_queue = options.cancelled == cancelled_policy::queue_until_wait;
    }
  } else {
    real = std::max(job.run_time, options.min_real_duration);
    if (real > requested) {
      if (options.overrun == overrun_policy::extend_request)
        requested = real;
      else
        real = requested;
    }
  }
  lease.duration = static_cast<T>(requested);
  lease.real_duration = static_cast<T>(real);
  ++counts.converted;
  return lease;
}

/// Every record, in order; dropped records are counted in the report.
template <time_value T = std::int64_t>
[[nodiscard]] std::vector<lease_terms<T>> to_best_effort(std::span<const swf::record> jobs,
                                                         const swf_conversion& options = {},
                                                         conversion_report* report = nullptr) {
  detail::check(options);
  conversion_report local;
  std::vector<lease_terms<T>> leases;
  leases.reserve(jobs.size());
  for (const auto& job : jobs)
    if (auto lease = to_best_effort<T>(job, options, report ? report : &local))
      leases.push_back(std::move(*lease));
  return leases;
}

/// The Haizea authors' selection from a raw log: jobs of the given queues submitted in
/// [from, from + span), submit times shifted so `from` becomes 0, requested processors
/// (field 8) divided by procs_per_node (rounded up) so that field 8 counts nodes.
struct extract_options {
  std::int64_t from = 0;                            ///< absolute submit time of the window's start
  std::int64_t span = 30 * 86'400;                  ///< the paper's 30 days
  std::vector<std::int64_t> queues = {1, 2, 3, 4};  ///< empty: every queue
  std::int64_t procs_per_node = 8;                  ///< Blue Horizon's 8-way SMP nodes
  bool shift_to_zero = true;  ///< submit times relative to `from` (else kept absolute)
};

/// The jobs of `source` that options selects, with their submit times and processor counts
/// rewritten as the options say; the header is kept. Throws invalid_request for a span or
/// procs_per_node that is not positive. O(records).
[[nodiscard]] inline swf::log extract(const swf::log& source, const extract_options& options) {
  if (options.span <= 0 || options.procs_per_node <= 0)
    throw invalid_request(leasehold::detail::describe("extract: span ", options.span,
                                                      " and procs_per_node ",
                                                      options.procs_per_node, " must be positive"));
  swf::log result;
  result.head = source.head;
  for (auto job : source.records) {
    if (job.submit < options.from || job.submit - options.from >= options.span) continue;
    if (!options.queues.empty() &&
        std::find(options.queues.begin(), options.queues.end(), job.queue) == options.queues.end())
      continue;
    if (options.shift_to_zero) job.submit -= options.from;
    if (job.requested_procs > 0)
      job.requested_procs =
          (job.requested_procs + options.procs_per_node - 1) / options.procs_per_node;
    result.records.push_back(job);
  }
  return result;
}

}  // namespace leasehold::workload
