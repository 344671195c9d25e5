#pragma once

/// \file
/// block_planner<T>: one round of the Coasters worker-block allocation algorithm (Hategan,
/// Wozniak & Maheshwari, "Coasters", §4.5). Given the walltimes of the queued jobs that no
/// existing block covers and the number of blocks already active, it decides how many multi-node
/// Worker Blocks to request, how wide (workers) and how long (walltime) each is, and which jobs
/// each is meant for. It is a pure function of its inputs: placing the blocks into a batch
/// cluster is pilot_service's job, running jobs on them is the dispatcher's.
///
/// The paper's steps, as implemented by plan() and by the public member named for each:
///
///  1. "Sort the jobs according to their walltimes" — ascending, stably (ties keep submission
///     order), so that consecutive jobs, which end up in the same block, have similar walltimes.
///  2. "Determine the number of Worker Blocks ... by multiplying ... allocationStepSize by the
///     number of free Worker Block slots" (site limit minus active blocks): blocks_this_round().
///     The product is rounded up, as the Coasters service does, so that a free slot and a
///     positive step size always give at least one block.
///  3. "Compute the overallocation of each job": overallocation(t) = f(t) =
///     (O_l - O_h) e^(-t/beta) + O_h, and overallocated_walltime(t) = t * f(t).
///  4. "Sum up all the over-allocated walltimes to get the total CPU time required."
///  5. "Partition the total CPU time required in a number of blocks equal to the number of Worker
///     Blocks used in this round ... based on a spread parameter": partition(). Block i of n gets
///     S_i = (T / n) (1 + spread (2 i / (n - 1) - 1)), so spread 0 gives n equal blocks and
///     spread 1 a linear ramp from 0 (the minimum possible size) to 2 T / n (the maximum the sum
///     allows); every spread keeps sum S_i = T. One block gets all of T.
///  6. "Adjust the partitioned block size to fit the specified worker granularity as well as the
///     over-allocated job walltimes." Blocks are filled in order, smallest target first, from the
///     sorted jobs:
///       a. block i's jobs are the next jobs whose over-allocated walltimes add up to at most S_i
///          (at least one job; the round's last block takes all remaining jobs);
///       b. its walltime h_i is the longest over-allocated walltime among them, rounded up to a
///          whole tick and capped at the site's maximum walltime: block_walltime();
///       c. its width w_i is max(S_i, their sum) / h_i workers, rounded up to whole allocation
///          units (nodes_per_unit * cores_per_node workers), at least one unit and at most
///          max_nodes: block_width();
///       d. the block covers the next jobs (from the first of step a) that fit it: walltime at most
///          h_i, and over-allocated walltimes (each capped at h_i) adding up to at most w_i * h_i.
///          Rounding w_i up usually lets a block cover a few more jobs than step a gave it.
///     Rounds stop early when every job is covered (no empty blocks are requested); jobs left
///     uncovered after the round's last block wait for the next round.
///
/// Each round is O(n log n) in the number of jobs given (the sort), which is why the paper runs
/// it periodically rather than per submitted job; O(n) when they come sorted by walltime, as
/// pilot_service gives them, with one exp per distinct walltime.

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <numeric>
#include <span>
#include <utility>
#include <vector>

#include "leasehold/core/detail/checks.hpp"
#include "leasehold/core/error.hpp"
#include "leasehold/core/time.hpp"
#include "leasehold/policy/pilot/block_config.hpp"

namespace leasehold::policy::pilot {

/// A block the planner wants requested from the batch system.
template <time_value T = std::int64_t>
struct planned_block {
  std::int64_t workers = 0;  ///< w_i: a multiple of block_config::granularity()
  T walltime{};              ///< h_i
  double target_size = 0;    ///< S_i from step 5, in worker-ticks
  /// The block covers block_plan::order[first_job, first_job + job_count).
  std::size_t first_job = 0;
  /// How many jobs it covers.
  std::size_t job_count = 0;

  /// The block's width in nodes.
  [[nodiscard]] std::int64_t nodes(std::int64_t cores_per_node) const noexcept {
    return workers / cores_per_node;
  }

  /// Equal when every field is equal.
  friend bool operator==(const planned_block&, const planned_block&) = default;
};

/// Everything one round decided, step by step, so that tests and logs can follow it.
template <time_value T = std::int64_t>
struct block_plan {
  std::vector<std::size_t> order;  ///< step 1: indices into the walltimes given, ascending walltime
  std::size_t block_count = 0;     ///< step 2: blocks this round may use
  double total_size = 0;           ///< step 4: sum of over-allocated walltimes, worker-ticks
  std::vector<double> target_sizes;      ///< step 5: S_0 .. S_{block_count - 1}
  std::vector<planned_block<T>> blocks;  ///< step 6: at most block_count
  std::size_t covered = 0;  ///< order[0, covered) are covered by blocks; order[covered, end) wait

  /// Jobs no block of this round covers: they wait for a later round.
  [[nodiscard]] std::size_t uncovered() const noexcept { return order.size() - covered; }
};

/// One round of the Coasters block allocation (§4.5): a pure function from the uncovered jobs'
/// walltimes and the active block count to the blocks to request (see the file's description).
template <time_value T = std::int64_t>
class block_planner {
 public:
  /// The time type.
  using time_type = T;
  /// Its configuration.
  using config_type = block_config<T>;

  /// Throws invalid_request (naming the field and value) for a configuration out of range.
  explicit block_planner(const config_type& config = {}) : config_(config) { validate(config_); }

  /// The configuration it plans with.
  [[nodiscard]] const config_type& config() const noexcept { return config_; }

  /// Step 2: ceil(allocation_step_size * (max_blocks - active_blocks)), 0 when no slot is free.
  [[nodiscard]] std::size_t blocks_this_round(std::size_t active_blocks) const noexcept {
    if (active_blocks >= config_.max_blocks) return 0;
    const auto free_slots = static_cast<double>(config_.max_blocks - active_blocks);
    const double product = config_.allocation_step_size * free_slots;
    // 0.1 * 30 is 3.0000000000000004 in binary floating point; a product within rounding error
    // of a whole number is that number, not the next one up.
    const double nearest = std::round(product);
    const double blocks =
        std::abs(product - nearest) <= 1e-9 * std::max(1.0, product) ? nearest : std::ceil(product);
    // step <= 1, so blocks <= free_slots; the min guards against rounding of the product.
    return std::min(static_cast<std::size_t>(blocks), config_.max_blocks - active_blocks);
  }

  /// Step 3: f(t) = (O_l - O_h) e^(-t/beta) + O_h. O_l is f at t = 0 (the paper calls it the
  /// overallocation of 1-second jobs; with beta >> 1 s the two agree closely); f -> O_h as t grows.
  [[nodiscard]] double overallocation(T walltime) const noexcept {
    const double t = static_cast<double>(walltime);
    return (config_.low_overallocation - config_.high_overallocation) *
               std::exp(-t / config_.overallocation_decay) +
           config_.high_overallocation;
  }

  /// Step 3: the block time a job of this walltime asks for, t * f(t), in ticks (not rounded).
  [[nodiscard]] double overallocated_walltime(T walltime) const noexcept {
    return static_cast<double>(walltime) * overallocation(walltime);
  }

  /// Step 5: the target sizes S_0 .. S_{blocks - 1} (worker-ticks) of a round's blocks.
  [[nodiscard]] std::vector<double> partition(double total, std::size_t blocks) const {
    std::vector<double> sizes(blocks, 0.0);
    if (blocks == 0) return sizes;
    const double mean = total / static_cast<double>(blocks);
    if (blocks == 1) {
      sizes[0] = total;
      return sizes;
    }
    const auto last = static_cast<double>(blocks - 1);
    for (std::size_t i = 0; i < blocks; ++i) {
      const double ramp = 2.0 * static_cast<double>(i) / last - 1.0;  // -1 .. +1
      sizes[i] = mean * (1.0 + config_.spread * ramp);
    }
    return sizes;
  }

  /// Step 6b: a block's walltime from the longest over-allocated walltime of its jobs.
  [[nodiscard]] T block_walltime(double longest_overallocated) const noexcept {
    const double ticks = std::ceil(longest_overallocated);
    if (!(ticks < static_cast<double>(config_.max_walltime))) return config_.max_walltime;
    return std::max(T{1}, static_cast<T>(ticks));
  }

  /// Step 6c: a block's width in workers for a size (worker-ticks) and walltime.
  [[nodiscard]] std::int64_t block_width(double size, T walltime) const noexcept {
    const std::int64_t unit = config_.granularity();
    const std::int64_t most_units = config_.max_workers() / unit;
    const double units =
        std::ceil(size / (static_cast<double>(walltime) * static_cast<double>(unit)));
    if (!(units < static_cast<double>(most_units))) return most_units * unit;
    return std::max<std::int64_t>(1, static_cast<std::int64_t>(units)) * unit;
  }

  /// One round, steps 1-6, for the walltimes of the queued jobs not covered by active blocks.
  /// Throws invalid_request, naming the job's index and walltime, for a walltime that is not
  /// positive or exceeds max_walltime (no block could ever run it).
  [[nodiscard]] block_plan<T> plan(std::span<const T> walltimes, std::size_t active_blocks) const {
    for (std::size_t j = 0; j < walltimes.size(); ++j) {
      if (walltimes[j] <= T{0})
        throw invalid_request(detail::describe("block_planner: job ", j, " walltime ", walltimes[j],
                                               " must be positive"));
      if (walltimes[j] > config_.max_walltime)
        throw invalid_request(detail::describe("block_planner: job ", j, " walltime ", walltimes[j],
                                               " exceeds max_walltime ", config_.max_walltime));
    }

    block_plan<T> result;
    // Step 1.
    result.order.resize(walltimes.size());
    std::iota(result.order.begin(), result.order.end(), std::size_t{0});
    // pilot_service hands the walltimes over sorted already (its queue is ordered by
    // walltime): then the identity is the stable order, and a round need not sort.
    if (!std::is_sorted(walltimes.begin(), walltimes.end()))
      std::stable_sort(result.order.begin(), result.order.end(),
                       [&](std::size_t a, std::size_t b) { return walltimes[a] < walltimes[b]; });
    // Step 2.
    result.block_count = walltimes.empty() ? 0 : blocks_this_round(active_blocks);
    // Steps 3 and 4.
    std::vector<double> overallocated(walltimes.size());
    for (std::size_t k = 0; k < walltimes.size(); ++k) {
      // In walltime order equal walltimes are neighbours: the same value, without another exp.
      const bool same = k > 0 && walltimes[result.order[k]] == walltimes[result.order[k - 1]];
      overallocated[k] =
          same ? overallocated[k - 1] : overallocated_walltime(walltimes[result.order[k]]);
      result.total_size += overallocated[k];
    }
    // Step 5.
    result.target_sizes = partition(result.total_size, result.block_count);
    // Step 6.
    result.blocks.reserve(result.block_count);
    std::size_t cursor = 0;
    for (std::size_t i = 0; i < result.block_count && cursor < walltimes.size(); ++i) {
      const double target = result.target_sizes[i];
      const bool last_block = i + 1 == result.block_count;
      // a. the jobs the target size calls for
      std::size_t end = cursor;
      double chunk = 0;
      double longest = 0;
      do {
        chunk += overallocated[end];
        longest = std::max(longest, overallocated[end]);
        ++end;
      } while (end < walltimes.size() && (last_block || chunk + overallocated[end] <= target));
      // b, c. the block's shape
      const T height = block_walltime(longest);
      const std::int64_t width = block_width(std::max(target, chunk), height);
      // d. the jobs it covers
      const double capacity = static_cast<double>(width) * static_cast<double>(height);
      const auto h = static_cast<double>(height);
      std::size_t covered_end = cursor;
      double used = 0;
      while (covered_end < walltimes.size() && walltimes[result.order[covered_end]] <= height &&
             used + std::min(overallocated[covered_end], h) <= capacity) {
        used += std::min(overallocated[covered_end], h);
        ++covered_end;
      }
      result.blocks.push_back({.workers = width,
                               .walltime = height,
                               .target_size = target,
                               .first_job = cursor,
                               .job_count = covered_end - cursor});
      cursor = covered_end;
    }
    result.covered = cursor;
    return result;
  }

 private:
  config_type config_;
};

}  // namespace leasehold::policy::pilot
