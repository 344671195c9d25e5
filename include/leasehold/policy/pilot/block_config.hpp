#pragma once

/// \file
/// The knobs of the Coasters worker-block allocator (Hategan, Wozniak & Maheshwari, "Coasters:
/// uniform resource provisioning and access for clouds and grids", §4.5), with the defaults of
/// the Coasters service itself (the Java CoG Kit `Settings` class), so that a planner built
/// from `block_config<>{}` behaves like an unconfigured Coaster Service.
///
/// Units: time is in the ticks of T (seconds in the examples); sizes ("CPU time") are
/// worker-ticks; a worker is one core, the unit one pilot job runs on.

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <limits>

#include "leasehold/core/detail/checks.hpp"
#include "leasehold/core/error.hpp"
#include "leasehold/core/time.hpp"

namespace leasehold::policy::pilot {

/// The knobs of the Coasters block allocation (§4.5), Coasters' defaults unless said
/// otherwise; block_planner checks them and throws invalid_request for values out of range.
template <time_value T = std::int64_t>
struct block_config {
  /// allocationStepSize: the fraction of the free block slots used in one planning round
  /// (§4.5 step 2). Small values keep slots for future load ("Worker Blocks should be allocated
  /// conservatively"). Must be in (0, 1]. Coasters default 0.1.
  double allocation_step_size = 0.1;

  /// The site's limit on worker blocks submitted and not yet finished ("slots"; §4.5, the
  /// first constraint: "a limited number of jobs that can be submitted to the queuing system").
  /// At least 1. Coasters default 20.
  std::size_t max_blocks = 20;

  /// O_l, O_h and beta of f(t) = (O_l - O_h) e^(-t/beta) + O_h (§4.5 step 3): a job of walltime
  /// t asks for t * f(t) of block time. O_h >= 1, or a block could be shorter than the job it is
  /// sized for; O_l >= O_h, because the paper's reason for the curve is that overallocation
  /// "is more important for short jobs ... and almost irrelevant for long jobs" (a rising curve
  /// contradicts it, so it is rejected rather than silently accepted). beta > 0, in ticks.
  /// Coasters defaults: O_l = 10, O_h = 1, overallocationDecayFactor = 1/1000 per second,
  /// i.e. beta = 1000 s (the implementation multiplies t by the factor; the paper divides by beta).
  double low_overallocation = 10.0;
  /// O_h: the overallocation factor for long jobs.
  double high_overallocation = 1.0;
  /// beta: the walltime, in ticks, over which the overallocation decays from O_l to O_h.
  double overallocation_decay = 1000.0;

  /// spread (§4.5 step 5): 0 gives equal block sizes in a round; 1 spreads them linearly from the
  /// smallest to the largest size the sum allows (0 to twice the mean). Must be in [0, 1].
  /// Coasters default 0.9.
  double spread = 0.9;

  /// Worker granularity (§4.5, second constraint): nodes are allocated nodes_per_unit at a time
  /// (nodeGranularity) and each node runs cores_per_node workers (workersPerNode), so block widths
  /// are multiples of nodes_per_unit * cores_per_node workers. Both at least 1. Coasters
  /// defaults 1 and 1.
  std::int64_t nodes_per_unit = 1;
  /// workersPerNode: workers (cores) on each node.
  std::int64_t cores_per_node = 1;

  /// The largest block, in nodes (maxNodes); at least nodes_per_unit. Coasters default: no limit.
  std::int64_t max_nodes = std::numeric_limits<std::int64_t>::max();

  /// The site's maximum walltime for one batch job (maxtime): no block is longer, and a job
  /// longer than this can never run. Positive. Coasters default: no limit.
  T max_walltime = forever<T>;

  /// Workers per allocation unit: the granularity of block widths (step 6).
  [[nodiscard]] constexpr std::int64_t granularity() const noexcept {
    return nodes_per_unit * cores_per_node;
  }

  /// The widest block in workers: whole units within max_nodes (saturating, so that the default
  /// "no limit" stays a multiple of the granularity instead of overflowing).
  [[nodiscard]] constexpr std::int64_t max_workers() const noexcept {
    const std::int64_t g = granularity();
    const std::int64_t units = max_nodes / nodes_per_unit;
    const std::int64_t most_units = std::numeric_limits<std::int64_t>::max() / g;
    return (units < most_units ? units : most_units) * g;
  }
};

/// Throws leasehold::invalid_request, naming the field and its value, when a knob is out of its
/// documented range. A configuration is an argument like any other, so a bad one is a malformed
/// call (DESIGN.md's invalid_request), not a separate error family.
template <time_value T>
void validate(const block_config<T>& config) {
  using detail::describe;
  const auto reject = [](const auto&... parts) {
    throw invalid_request(describe("block_config: ", parts...));
  };
  // Negated comparisons also reject NaN.
  if (!(config.allocation_step_size > 0.0 && config.allocation_step_size <= 1.0))
    reject("allocation_step_size ", config.allocation_step_size, " must be in (0, 1]");
  if (config.max_blocks == 0) reject("max_blocks 0 must be at least 1");
  if (!std::isfinite(config.high_overallocation) || !(config.high_overallocation >= 1.0))
    reject("high_overallocation ", config.high_overallocation,
           " must be finite and at least 1 (a block shorter than its job is useless)");
  if (!std::isfinite(config.low_overallocation) ||
      !(config.low_overallocation >= config.high_overallocation))
    reject("low_overallocation ", config.low_overallocation,
           " must be finite and at least high_overallocation ", config.high_overallocation,
           " (overallocation decays with walltime, Coasters §4.5 step 3)");
  if (!std::isfinite(config.overallocation_decay) || !(config.overallocation_decay > 0.0))
    reject("overallocation_decay ", config.overallocation_decay, " must be finite and positive");
  if (!(config.spread >= 0.0 && config.spread <= 1.0))
    reject("spread ", config.spread, " must be in [0, 1]");
  if (config.nodes_per_unit < 1)
    reject("nodes_per_unit ", config.nodes_per_unit, " must be at least 1");
  if (config.cores_per_node < 1)
    reject("cores_per_node ", config.cores_per_node, " must be at least 1");
  if (config.nodes_per_unit > std::numeric_limits<std::int64_t>::max() / config.cores_per_node)
    reject("nodes_per_unit ", config.nodes_per_unit, " * cores_per_node ", config.cores_per_node,
           " overflows");
  if (config.max_nodes < config.nodes_per_unit)
    reject("max_nodes ", config.max_nodes, " must be at least nodes_per_unit ",
           config.nodes_per_unit);
  if (config.max_walltime <= T{0})
    reject("max_walltime ", config.max_walltime, " must be positive");
}

}  // namespace leasehold::policy::pilot
