#pragma once

// What a Gantt chart (gantt_chart.hpp) of a lease scheduler's run is made of. The segments
// come from the lease records' histories (lease_record.hpp: each stretch a lease ran, on which
// nodes, how it ended); what the records do not keep — where a migration came from and when
// its transfer ran, the image transfers of the preparation step — is heard as it happens by a
// gantt_recorder, the scheduler's observer (observer.hpp) during the run:
//
//   io::gantt_recorder<> recorder;
//   scheduler.set_observer(&recorder);
//   sim::simulate_leases(scheduler, leases);
//   const io::gantt_chart chart = io::gantt_chart_of(scheduler.leases(), nodes, recorder);
//   write io::to_svg(chart) to a file
//
// The chart holds the segments that have ended (a lease still running or scheduled shows the
// stretches it has finished), so draw it after the run; with scheduler_config::retire_finished
// the finished leases have left the scheduler, and their bars with them.

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <map>
#include <span>
#include <vector>

#include "leasehold/core/time.hpp"
#include "leasehold/io/gantt_chart.hpp"
#include "leasehold/policy/lease/lease_record.hpp"
#include "leasehold/policy/lease/observer.hpp"

namespace leasehold::io {

/// Listens to a lease scheduler for what its lease records do not keep: migrations (from which
/// nodes, over which transfer) and image transfers. Transfers withdrawn at the instant they
/// were announced (their lease planned again) are forgotten.
template <time_value T = std::int64_t>
class gantt_recorder : public policy::lease::lease_observer<T> {
 public:
  /// A migration as the scheduler announced it (lease_observer::on_migrated).
  struct migration {
    std::uint64_t lease = 0;        ///< the lease's id
    std::vector<std::size_t> from;  ///< the nodes it was suspended on
    std::vector<std::size_t> to;    ///< the nodes it resumes on
    interval<T> transfer{};         ///< the transfer of its image and memory state
  };

  void on_migrated(std::uint64_t id, T /*at*/, std::span<const std::size_t> from,
                   std::span<const std::size_t> to, interval<T> transfer) override {
    migrations_.push_back(
        {id, std::vector<std::size_t>(from.begin(), from.end()), {to.begin(), to.end()}, transfer});
  }
  void on_transfer_started(const policy::lease::transfer_notice<T>& transfer) override {
    transfers_.insert_or_assign(transfer.transfer, transfer);
  }
  void on_transfer_withdrawn(const policy::lease::transfer_notice<T>& transfer) override {
    transfers_.erase(transfer.transfer);
  }
  void on_transfer_finished(const policy::lease::transfer_notice<T>& transfer) override {
    transfers_.insert_or_assign(transfer.transfer, transfer);
  }

  /// Every migration heard, in the order heard.
  [[nodiscard]] const std::vector<migration>& migrations() const noexcept { return migrations_; }
  /// The transfers that have started, by the preparation step's id.
  [[nodiscard]] const std::map<std::uint64_t, policy::lease::transfer_notice<T>>& transfers()
      const noexcept {
    return transfers_;
  }

 private:
  std::vector<migration> migrations_;
  std::map<std::uint64_t, policy::lease::transfer_notice<T>> transfers_;
};

/// The chart of a run: a segment for every stretch in the histories of `leases` (a lease
/// scheduler's leases(): pairs of id and lease_record, in id order), the migrations and
/// transfers `recorder` heard, on `nodes` rows. `seconds_per_tick` converts the scheduler's
/// time unit to the chart's seconds (1 when the scheduler counts seconds). The title, the
/// subtitle and the notes are left to the caller.
template <class Leases, time_value T>
[[nodiscard]] gantt_chart gantt_chart_of(const Leases& leases, std::size_t nodes,
                                         const gantt_recorder<T>& recorder,
                                         double seconds_per_tick = 1) {
  const auto s = [seconds_per_tick](T t) { return static_cast<double>(t) * seconds_per_tick; };
  gantt_chart chart;
  chart.nodes = nodes;
  for (const auto& [id, record] : leases)
    for (const auto& stretch : record.history) {
      using policy::lease::segment_outcome;
      // A segment cancelled before it computed has an empty run: kept inside the span.
      const double begin = s(stretch.span.begin);
      const double end = std::max(begin, s(stretch.span.end));
      const double run_begin = std::clamp(s(stretch.run.begin), begin, end);
      chart.segments.push_back(
          {.lease = id,
           .kind = record.terms.kind,
           .nodes = stretch.nodes,
           .begin = begin,
           .end = end,
           .run_begin = run_begin,
           .run_end = std::clamp(s(stretch.run.end), run_begin, end),
           .ending = stretch.outcome == segment_outcome::suspended   ? gantt_ending::suspended
                     : stretch.outcome == segment_outcome::cancelled ? gantt_ending::cancelled
                                                                     : gantt_ending::completed});
    }
  for (const auto& m : recorder.migrations())
    chart.migrations.push_back({m.lease, m.from, m.to, s(m.transfer.begin), s(m.transfer.end)});
  for (const auto& [id, t] : recorder.transfers())
    chart.transfers.push_back({t.image, t.size_mb, t.nodes, s(t.span.begin), s(t.span.end)});
  return chart;
}

}  // namespace leasehold::io
