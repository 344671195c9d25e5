#pragma once

/// \file
/// The metrics of Haizea §4.4, from the lease records a scheduler keeps:
///  - all-best-effort: from the start of the trace to the end of the last best-effort lease,
///    and that time relative to a baseline run (the paper's NOVM-NOSR without ARs);
///  - wait time t_s - t_a and bounded slowdown (t_e - t_a) / max(t_u, 10 s) of best-effort
///    leases, t_u being the real duration on a dedicated physical node (Feitelson & Rudolph),
///    both discarding the first 5 % of measurements (by arrival) to avoid ramp-up effects;
///  - advance reservations accepted and rejected;
///  - utilisation: node-seconds spent computing over W x all-best-effort.

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <map>
#include <optional>
#include <utility>
#include <vector>

#include "leasehold/core/error.hpp"
#include "leasehold/core/time.hpp"
#include "leasehold/policy/lease/lease_record.hpp"

namespace leasehold::sim {

/// How the metrics are measured (the paper's §4.4 by default).
struct metrics_options {
  double warmup_fraction = 0.05;   ///< §4.4: the first 5 % of measurements are discarded
  double slowdown_bound_s = 10.0;  ///< §4.4, after Feitelson & Rudolph
};

/// The metrics of one run (see the file's description for each definition).
struct lease_metrics {
  std::int64_t all_best_effort = 0;        ///< seconds from trace start to the last best-effort end
  double mean_wait = 0.0;                  ///< seconds
  double mean_bounded_slowdown = 0.0;      ///< over the measured best-effort leases
  std::size_t best_effort_completed = 0;   ///< best-effort leases that finished
  std::size_t best_effort_measured = 0;    ///< after the warm-up discard
  std::size_t best_effort_withdrawn = 0;   ///< withdrawn by their users before starting
  std::size_t best_effort_unfinished = 0;  ///< neither finished nor withdrawn at the end
  std::size_t ar_accepted = 0;             ///< advance reservations admitted
  std::size_t ar_rejected = 0;             ///< advance reservations refused
  std::size_t suspensions = 0;             ///< suspensions, over every lease
  std::size_t migrations = 0;              ///< migrations, over every lease
  std::size_t cancellations = 0;           ///< cancellations, over every lease
  double utilisation = 0.0;                ///< node-seconds computing over nodes x all-best-effort

  /// all-best-effort relative to a baseline, as Table 1 prints it: 0.0391 is 3.91 % longer.
  [[nodiscard]] double relative_to(std::int64_t baseline) const {
    if (baseline <= 0)
      throw invalid_request("lease_metrics::relative_to: the baseline must be positive");
    return static_cast<double>(all_best_effort) / static_cast<double>(baseline) - 1.0;
  }
};

/// The metrics of leases handed in one at a time, as they finish (an embedding service or a
/// simulation with scheduler_config::retire_finished takes them with take_finished()): each
/// record is folded in and dropped. What is kept per best-effort lease is one small sample
/// (arrival, id, wait, slowdown), since the warm-up discard (§4.4) needs them in arrival order.
template <time_value T>
class lease_metrics_accumulator {
 public:
  /// An empty accumulator measuring as `options` says.
  explicit lease_metrics_accumulator(metrics_options options = {}) : options_(options) {}

  /// Folds in one finished (or withdrawn, or unfinished) lease's record. O(1) amortised.
  template <vector_capacity C>
  void add(const policy::lease::lease_record<T, C>& l) {
    using policy::lease::lease_kind;
    using policy::lease::lease_state;
    for (const auto& seg : l.history)
      busy_ +=
          static_cast<double>(seg.run.end - seg.run.begin) * static_cast<double>(seg.nodes.size());
    m_.suspensions += l.suspensions;
    m_.migrations += l.migrations;
    m_.cancellations += l.cancellations;
    if (l.terms.kind == lease_kind::advance_reservation) {
      if (l.state == lease_state::rejected)
        ++m_.ar_rejected;
      else
        ++m_.ar_accepted;
      return;
    }
    if (l.terms.kind != lease_kind::best_effort) return;
    if (l.state == lease_state::withdrawn) {
      ++m_.best_effort_withdrawn;
      return;
    }
    if (l.state != lease_state::done || !l.first_start || !l.end) {
      ++m_.best_effort_unfinished;
      return;
    }
    ++m_.best_effort_completed;
    last_end_ = any_end_ ? std::max(last_end_, *l.end) : *l.end;
    any_end_ = true;
    const double t_u =
        static_cast<double>(l.terms.real_duration > 0 ? l.terms.real_duration : l.terms.duration);
    samples_.push_back(
        {l.terms.submit, l.terms.id, static_cast<double>(*l.first_start - l.terms.submit),
         static_cast<double>(*l.end - l.terms.submit) / std::max(t_u, options_.slowdown_bound_s)});
  }

  /// The metrics of everything added so far.
  [[nodiscard]] lease_metrics result(std::size_t node_count, T trace_start = 0) const {
    lease_metrics m = m_;
    if (any_end_) m.all_best_effort = std::max<std::int64_t>(0, last_end_ - trace_start);
    std::vector<sample> samples = samples_;
    std::ranges::sort(samples, [](const sample& a, const sample& b) {
      return a.arrival != b.arrival ? a.arrival < b.arrival : a.id < b.id;
    });
    const auto skip =
        static_cast<std::size_t>(static_cast<double>(samples.size()) * options_.warmup_fraction);
    double wait = 0.0;
    double slowdown = 0.0;
    for (std::size_t i = skip; i < samples.size(); ++i) {
      wait += samples[i].wait;
      slowdown += samples[i].slowdown;
    }
    m.best_effort_measured = samples.size() - skip;
    if (m.best_effort_measured > 0) {
      m.mean_wait = wait / static_cast<double>(m.best_effort_measured);
      m.mean_bounded_slowdown = slowdown / static_cast<double>(m.best_effort_measured);
    }
    if (m.all_best_effort > 0 && node_count > 0)
      m.utilisation =
          busy_ / (static_cast<double>(node_count) * static_cast<double>(m.all_best_effort));
    return m;
  }

 private:
  struct sample {
    T arrival;
    std::uint64_t id;
    double wait;
    double slowdown;
  };
  metrics_options options_;
  lease_metrics m_;
  bool any_end_ = false;  ///< (not std::optional: GCC's -Wmaybe-uninitialized misfires on it)
  T last_end_{};
  double busy_ = 0.0;
  std::vector<sample> samples_;
};

/// The metrics of a run's lease records on a cluster of node_count nodes whose trace starts at
/// trace_start: every record folded into a lease_metrics_accumulator. O(n log n).
template <time_value T, vector_capacity C>
[[nodiscard]] lease_metrics measure(
    const std::map<std::uint64_t, policy::lease::lease_record<T, C>>& leases,
    std::size_t node_count, T trace_start = 0, const metrics_options& options = {}) {
  lease_metrics_accumulator<T> metrics(options);
  for (const auto& entry : leases) metrics.add(entry.second);
  return metrics.result(node_count, trace_start);
}

}  // namespace leasehold::sim
