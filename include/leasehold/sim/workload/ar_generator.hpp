#pragma once

/// \file
/// Advance-reservation injections as in the Haizea paper (Sotomayor, Keahey & Foster,
/// HPDC'08, §4.2), parameterised by
///   rho   - the AR leases' aggregate node-time as a share of nodes x the time the last
///           best-effort request is submitted (the "total CPU hours" of the run);
///   delta - the mean duration; each duration is uniform in delta +/- 30 min;
///   nu    - the node range: small 1-24, medium 25-48, large 49-72, uniform;
///   H     - the advance notice, exactly 24 h (requests near time 0 arrive at 0 with less).
/// Leases are drawn until their node-time reaches rho of the total (so the realised share
/// is rho plus at most one lease, as in the published files); their number n divided into
/// the 30 days gives the mean interval i, and the requested starts are spaced by intervals
/// uniform in (i - 1 h, i + 1 h) from time 0. Arrival = max(0, start - H).
///
/// Two points where the paper is silent and the published files show what its generator
/// did: when i < 1 h the intervals may be negative, so starts (and arrivals) are not
/// monotone; we keep that, and sort the result by arrival (stable). Starts the published
/// files put before 0 (four leases) are clamped to 0 here.

#include <algorithm>
#include <cstdint>
#include <vector>

#include "leasehold/core/detail/checks.hpp"
#include "leasehold/sim/workload/haizea_injection.hpp"
#include "leasehold/sim/workload/random.hpp"

namespace leasehold::workload {

/// A range of node counts, drawn uniformly.
struct node_range {
  std::int64_t lo = 1;   ///< the fewest nodes
  std::int64_t hi = 24;  ///< the most nodes
};

/// The paper's three size classes.
inline constexpr node_range small_leases{1, 24};    ///< 1-24 nodes
inline constexpr node_range medium_leases{25, 48};  ///< 25-48 nodes
inline constexpr node_range large_leases{49, 72};   ///< 49-72 nodes

/// The parameters of the paper's AR injections (see the file's description); the defaults are
/// the paper's medium leases of 2 h at rho 10 % on its 144-node cluster.
struct ar_injection_config {
  double rho = 0.10;                       ///< share of nodes x trace_end
  std::int64_t delta = 2 * 3600;           ///< mean duration, s
  std::int64_t duration_spread = 1800;     ///< durations uniform in delta +/- this
  node_range nu = medium_leases;           ///< the node range of every lease
  std::int64_t nodes = 144;                ///< cluster size
  std::int64_t trace_end = 2'590'930;      ///< last best-effort submit (blue-30days.swf)
  std::int64_t span = 30 * 86'400;         ///< divided by n for the mean interval i
  std::int64_t interval_spread = 3600;     ///< intervals uniform in (i - this, i + this)
  std::int64_t advance_notice = 86'400;    ///< H
  std::int64_t cpus_per_node = 1;          ///< what each lease's VM asks per node
  std::int64_t memory_per_node_mb = 1024;  ///< memory per node, MB
};

namespace detail {
inline void check(const ar_injection_config& c) {
  if (!(c.rho > 0 && c.rho <= 1) || c.delta <= c.duration_spread || c.duration_spread < 0 ||
      c.nu.lo < 1 || c.nu.hi < c.nu.lo || c.nodes < c.nu.hi || c.trace_end <= 0 || c.span <= 0 ||
      c.interval_spread < 0 || c.advance_notice < 0)
    throw invalid_request(leasehold::detail::describe(
        "ar_injection_config: rho ", c.rho, ", delta ", c.delta, " +/- ", c.duration_spread,
        ", nu [", c.nu.lo, ", ", c.nu.hi, "], nodes ", c.nodes, ", trace_end ", c.trace_end,
        ", span ", c.span,
        ": out of range (0 < rho <= 1, delta > spread, 1 <= lo <= hi <= nodes)"));
}
}  // namespace detail

/// Draws one AR injection file for `config` from `seed` (the same seed gives the same file on
/// every platform), sorted by arrival. Throws invalid_request for parameters out of range (0 <
/// rho <= 1, delta > its spread, 1 <= nu.lo <= nu.hi <= nodes, positive trace end and span).
[[nodiscard]] inline std::vector<haizea::injection> generate_ar_injections(
    const ar_injection_config& config, std::uint64_t seed) {
  detail::check(config);
  rng random(seed);
  // rho x nodes x trace_end, one correctly rounded product: identical everywhere.
  const auto target =
      static_cast<std::int64_t>(config.rho * static_cast<double>(config.nodes * config.trace_end));
  std::vector<haizea::injection> leases;
  std::int64_t node_seconds = 0;
  while (node_seconds < target) {
    haizea::injection lease;
    lease.duration = random.uniform_int(config.delta - config.duration_spread,
                                        config.delta + config.duration_spread);
    lease.real_duration = lease.duration;
    lease.nodes = random.uniform_int(config.nu.lo, config.nu.hi);
    lease.cpus = config.cpus_per_node;
    lease.memory_mb = config.memory_per_node_mb;
    node_seconds += lease.duration * lease.nodes;
    leases.push_back(lease);
  }
  const std::int64_t n = static_cast<std::int64_t>(leases.size());
  const std::int64_t interval = config.span / n;
  std::int64_t start = 0;
  for (std::size_t k = 0; k < leases.size(); ++k) {
    if (k > 0)
      // The open range (i - 1 h, i + 1 h) in whole seconds.
      start += random.uniform_int(interval - config.interval_spread + 1,
                                  interval + config.interval_spread - 1);
    leases[k].start = std::max<std::int64_t>(start, 0);
    leases[k].arrival = std::max<std::int64_t>(leases[k].start - config.advance_notice, 0);
  }
  std::stable_sort(leases.begin(), leases.end(),
                   [](const auto& a, const auto& b) { return a.arrival < b.arrival; });
  return leases;
}

}  // namespace leasehold::workload
