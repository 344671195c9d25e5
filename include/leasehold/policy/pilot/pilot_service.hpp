#pragma once

/// \file
/// pilot_service<Backend>: a Coaster Service (Hategan, Wozniak & Maheshwari, "Coasters", §4.3,
/// §4.5) over a batch cluster kept as an availability profile. Jobs are queued with submit();
/// plan() runs one round of the block allocation (block_planner) for the jobs the active blocks
/// cannot cover and books each new block into the cluster at its earliest fit, as a batch
/// scheduler with advance reservations would; dispatch() hands jobs to free workers (dispatcher);
/// release_idle() gives the unused rest of idle blocks back to the cluster.
///
/// The cluster's capacity counts workers (cores); a block of w workers books w units for its
/// worker start-up time plus its walltime. The capacity type must therefore be a scalar.
/// Like every leasehold policy it owns no clock: the caller (a simulator, or the embedding
/// service's periodic planning loop) passes `now`.
///
/// Every mutating call gives the strong guarantee: its changes (bookings in the cluster, the
/// dispatcher's blocks, the block records) go through a leasehold::journal and are undone in
/// place if it throws. A block that has ended (released early, or retired once its booking ran
/// out) is kept in history() until take_finished() hands it out, so that a service that takes
/// them keeps memory and the cost of a call in proportion to its live blocks.

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <optional>
#include <utility>
#include <vector>

#include "leasehold/availability/concept.hpp"
#include "leasehold/availability/free_list.hpp"
#include "leasehold/availability/journal.hpp"
#include "leasehold/core/capacity.hpp"
#include "leasehold/core/detail/checks.hpp"
#include "leasehold/core/error.hpp"
#include "leasehold/core/request.hpp"
#include "leasehold/core/time.hpp"
#include "leasehold/policy/pilot/block_config.hpp"
#include "leasehold/policy/pilot/block_planner.hpp"
#include "leasehold/policy/pilot/dispatcher.hpp"

namespace leasehold::policy::pilot {

/// The knobs of a pilot_service: the planner's, the dispatcher's, and the batch system's
/// delays. The constructor throws invalid_request for values out of range.
template <time_value T = std::int64_t>
struct pilot_config {
  /// The block allocation's knobs.
  block_config<T> blocks{};
  /// The dispatcher's knobs.
  dispatch_config<T> dispatch{};
  /// Ticks between a block's start and its workers taking jobs (batch prologue, worker start-up
  /// and connection back to the service). Booked as part of the block. Not negative.
  T worker_startup = 0;
  /// The earliest a block can start after it is requested (the batch scheduler's minimum
  /// queueing delay). Not negative.
  T batch_latency = 0;
  /// Beyond the paper: only block time within [now, now + coverage_horizon) counts as covering
  /// queued jobs. The Coaster Service counts all of a block's size, however late the batch system
  /// will start it; a planning-based cluster knows the start, so blocks booked far ahead need not
  /// stop the service from asking for blocks that fit holes sooner. forever<T> (the default) is
  /// the paper's behaviour. Positive.
  T coverage_horizon = forever<T>;
};

/// One block over its life, for reports: what was asked, where the cluster put it, how it ended.
template <time_value T = std::int64_t>
struct block_record {
  /// The block's id: its index in pilot_service::history() until take_finished() is called.
  std::uint64_t id = 0;
  std::size_t round = 0;  ///< the plan() call that requested it (0-based)
  /// Its width in workers.
  std::int64_t workers = 0;
  /// Its width in nodes.
  std::int64_t nodes = 0;
  T walltime{};          ///< h from the planner
  T requested_at{};      ///< `now` of that plan() call
  interval<T> booked{};  ///< reserved in the cluster: [start, start + worker_startup + walltime)
  /// How many queued jobs the planner meant it for.
  std::size_t jobs_planned = 0;
  std::optional<T> released_at;  ///< set when released early

  /// When it ends: its release if released early, else the end of its booking.
  [[nodiscard]] T end() const noexcept { return released_at.value_or(booked.end); }

  /// Equal when every field is equal.
  friend bool operator==(const block_record&, const block_record&) = default;
};

/// A Coaster Service over a batch cluster kept as a scalar availability profile (see the
/// file's description): submit, plan, dispatch, complete, release_idle.
template <availability Backend = free_list<>>
class pilot_service {
 public:
  /// The cluster's availability profile.
  using backend_type = Backend;
  /// The profile's time type.
  using time_type = typename Backend::time_type;
  /// The profile's (scalar) capacity type, counting workers.
  using capacity_type = typename Backend::capacity_type;
  /// Short for time_type.
  using T = time_type;

  static_assert(
      scalar_capacity<capacity_type>,
      "pilot_service needs a scalar capacity: the cluster profile counts workers (cores)");

  /// The cluster is borrowed, not owned: other users' reservations live in it too. Throws
  /// invalid_request for a bad configuration, or when the cluster cannot hold one allocation unit.
  explicit pilot_service(Backend& cluster, const pilot_config<T>& config = {})
      : cluster_(&cluster),
        config_(config),
        planner_(cluster_limited(config.blocks, cluster.total())),
        dispatcher_(config.dispatch) {
    if (config_.worker_startup < T{0})
      throw invalid_request(detail::describe("pilot_config: worker_startup ",
                                             config_.worker_startup, " must not be negative"));
    if (config_.batch_latency < T{0})
      throw invalid_request(detail::describe("pilot_config: batch_latency ", config_.batch_latency,
                                             " must not be negative"));
    if (config_.coverage_horizon <= T{0})
      throw invalid_request(detail::describe("pilot_config: coverage_horizon ",
                                             config_.coverage_horizon, " must be positive"));
  }

  /// Queues a job. Throws invalid_request for a walltime that is not positive or exceeds the
  /// site's max_walltime (no block could run it), or a duplicate id; nothing changes then.
  void submit(const pilot_job<T>& job) {
    if (job.walltime > planner_.config().max_walltime)
      throw invalid_request(detail::describe("submit job ", job.id, ": walltime ", job.walltime,
                                             " exceeds max_walltime ",
                                             planner_.config().max_walltime));
    dispatcher_.submit(job);
  }

  /// One planning round at `now`: the queued jobs that the active blocks' remaining capacity does
  /// not cover (shortest first, as the Coaster Service moves jobs to existing blocks) go to the
  /// planner, and each planned block is booked into the cluster at its earliest fit no sooner than
  /// now + batch_latency. Returns the new blocks. If anything throws, nothing changes.
  std::vector<block_record<T>> plan(T now) {
    const std::vector<T> uncovered = uncovered_walltimes(now);
    if (uncovered.empty()) return {};
    const block_plan<T> round = planner_.plan(uncovered, dispatcher_.block_count());
    return journal_.transaction([&] { return book_round(round, now); });
  }

  /// Puts queued jobs on free workers (dispatcher::dispatch); returns what started.
  std::vector<assignment<T>> dispatch(T now) { return dispatcher_.dispatch(now); }

  /// A running job ended at `now` (dispatcher::complete; the same errors).
  void complete(std::uint64_t job, T now) { dispatcher_.complete(job, now); }

  /// Releases idle blocks (dispatcher::release_idle) and gives their unused time from `now` on
  /// back to the cluster. Returns their records, with released_at set. They have ended: see
  /// take_finished(). If anything throws, nothing changes.
  std::vector<block_record<T>> release_idle(T now) {
    return journal_.transaction([&] {
      const std::vector<worker_block<T>> idle = dispatcher_.idle_blocks(now);
      std::vector<block_record<T>> released;
      released.reserve(idle.size());
      for (const worker_block<T>& block : idle) {
        block_record<T>& record = *find_record(block.id);
        const interval<T> unused{std::max(now, record.booked.begin), record.booked.end};
        if (!unused.empty())
          journal_.release(*cluster_, unused, static_cast<capacity_type>(record.workers));
        journal_.assign(record.released_at, std::optional<T>(std::max(now, record.booked.begin)));
        journal_.push_back(finished_, block.id);
        released.push_back(record);
      }
      (void)dispatcher_.release_idle(now);  // the same blocks; last, with its own guarantee
      return released;
    });
  }

  /// Forgets blocks that ended by `now` (their booking simply runs out in the cluster). They
  /// have ended: see take_finished(). Returns how many. If it throws, nothing changes.
  std::size_t retire_expired(T now) {
    finished_.reserve(finished_.size() + dispatcher_.block_count());
    const std::vector<worker_block<T>> retired = dispatcher_.retire_expired(now);
    for (const worker_block<T>& block : retired) finished_.push_back(block.id);  // room made
    return retired.size();
  }

  /// Hands out the blocks that have ended (released by release_idle(), or retired by
  /// retire_expired()), in id order, and forgets them: history() no longer holds them. Until it
  /// is called they stay in history(), so a caller that never calls it sees every block there,
  /// a block's id its index. Strong guarantee.
  std::vector<block_record<T>> take_finished() {
    std::vector<std::uint64_t> ids = finished_;
    std::sort(ids.begin(), ids.end());
    std::vector<block_record<T>> taken;
    taken.reserve(ids.size());
    for (const std::uint64_t id : ids) taken.push_back(*find_record(id));
    // Nothing below throws: block_record moves without throwing.
    std::erase_if(history_, [&ids](const block_record<T>& record) {
      return std::binary_search(ids.begin(), ids.end(), record.id);
    });
    finished_.clear();
    return taken;
  }

  /// The block planner, read-only.
  [[nodiscard]] const block_planner<T>& planner() const noexcept { return planner_; }
  /// The dispatcher, read-only.
  [[nodiscard]] const dispatcher<T>& job_dispatcher() const noexcept { return dispatcher_; }
  /// Its configuration.
  [[nodiscard]] const pilot_config<T>& config() const noexcept { return config_; }
  /// Every block requested so far and not handed out by take_finished(), in request (id)
  /// order; until take_finished() is first called, a block's id is its index here.
  [[nodiscard]] const std::vector<block_record<T>>& history() const noexcept { return history_; }
  /// How many blocks have ended and wait for take_finished().
  [[nodiscard]] std::size_t finished_count() const noexcept { return finished_.size(); }
  /// How many plan() rounds ran.
  [[nodiscard]] std::size_t rounds() const noexcept { return rounds_; }

 private:
  /// No block can be wider than the cluster: cap max_nodes at the cluster's whole nodes.
  static block_config<T> cluster_limited(block_config<T> blocks, capacity_type total) {
    validate(blocks);
    const auto cluster_nodes = static_cast<std::int64_t>(total) / blocks.cores_per_node;
    if (cluster_nodes < blocks.nodes_per_unit)
      throw invalid_request(detail::describe("pilot_service: the cluster's ", total,
                                             " workers hold fewer than one allocation unit of ",
                                             blocks.nodes_per_unit, " nodes x ",
                                             blocks.cores_per_node, " cores"));
    blocks.max_nodes = std::min(blocks.max_nodes, cluster_nodes);
    return blocks;
  }

  /// plan() after the planning round, inside a transaction: each block booked at its earliest
  /// fit, added to the dispatcher and recorded.
  std::vector<block_record<T>> book_round(const block_plan<T>& round, T now) {
    std::vector<block_record<T>> placed;
    placed.reserve(round.blocks.size());
    for (const planned_block<T>& block : round.blocks) {
      const T duration = config_.worker_startup + block.walltime;
      const request<T, capacity_type> ask{.amount = static_cast<capacity_type>(block.workers),
                                          .duration = duration,
                                          .window = {now + config_.batch_latency, forever<T>}};
      const std::optional<T> start = cluster_->earliest_fit(ask);
      if (!start) continue;  // a bounded backend with no room in its horizon: ask next round
      const interval<T> span{*start, *start + duration};
      journal_.reserve(*cluster_, span, ask.amount);
      placed.push_back({.id = next_block_id_ + placed.size(),
                        .round = rounds_,
                        .workers = block.workers,
                        .nodes = block.workers / planner_.config().cores_per_node,
                        .walltime = block.walltime,
                        .requested_at = now,
                        .booked = span,
                        .jobs_planned = block.job_count,
                        .released_at = std::nullopt});
    }
    for (const block_record<T>& record : placed) {
      journal_.apply(
          [&] {
            dispatcher_.add_block(
                {.id = record.id,
                 .usable = {record.booked.begin + config_.worker_startup, record.booked.end},
                 .workers = record.workers},
                now);
          },
          [this, id = record.id]() noexcept { (void)dispatcher_.withdraw_block(id); });
      journal_.push_back(history_, record);
    }
    journal_.assign(next_block_id_, next_block_id_ + placed.size());
    journal_.assign(rounds_, rounds_ + 1);
    return placed;
  }

  /// The record of a block in history_, which is in id order.
  [[nodiscard]] block_record<T>* find_record(std::uint64_t id) {
    const auto it = std::lower_bound(
        history_.begin(), history_.end(), id,
        [](const block_record<T>& record, std::uint64_t key) { return record.id < key; });
    return it == history_.end() || it->id != id ? nullptr : &*it;
  }

  /// The walltimes of the queued jobs the active blocks cannot cover: walking the queue from the
  /// shortest job, a job is covered while it fits the longest time any block has left and the
  /// blocks' remaining capacity (within the coverage horizon) holds it and every shorter queued
  /// job.
  [[nodiscard]] std::vector<T> uncovered_walltimes(T now) const {
    const std::optional<T> horizon_end = detail::checked_add(now, config_.coverage_horizon);
    const T until = horizon_end.value_or(forever<T>);
    const double capacity = dispatcher_.capacity_left(now, until);
    const T longest = dispatcher_.longest_left(now, until);
    // The queue as counts per walltime: a round costs O(distinct walltimes + uncovered jobs),
    // not O(queued jobs). Most of a long queue is covered by the blocks already requested,
    // and walking it job by job every round made a run quadratic in its jobs.
    const auto& counts = dispatcher_.queued_by_walltime();
    if (counts.empty()) return {};
    if (dispatcher_.queued_walltime() <= capacity && std::prev(counts.end())->first <= longest)
      return {};
    auto group = counts.begin();
    std::size_t covered_in_group = 0;  // of *group, the shortest jobs first
    double used = 0;
    for (; group != counts.end() && group->first <= longest; ++group) {
      const auto walltime = static_cast<double>(group->first);
      // How many of the group still fit: as many as adding them one by one would admit.
      std::size_t fit = 0;
      if (used + walltime <= capacity) {
        const double room = std::floor((capacity - used) / walltime);
        fit = room >= static_cast<double>(group->second) ? group->second
                                                         : static_cast<std::size_t>(room);
        while (fit > 0 && used + static_cast<double>(fit) * walltime > capacity) --fit;
        while (fit < group->second && used + static_cast<double>(fit + 1) * walltime <= capacity)
          ++fit;
      }
      used += static_cast<double>(fit) * walltime;
      if (fit < group->second) {
        covered_in_group = fit;
        break;
      }
    }
    std::size_t uncovered = 0;
    for (auto rest = group; rest != counts.end(); ++rest) uncovered += rest->second;
    uncovered -= covered_in_group;
    std::vector<T> walltimes;
    walltimes.reserve(uncovered);
    for (; group != counts.end(); ++group, covered_in_group = 0)
      walltimes.insert(walltimes.end(), group->second - covered_in_group, group->first);
    return walltimes;
  }

  Backend* cluster_;
  pilot_config<T> config_;
  block_planner<T> planner_;
  dispatcher<T> dispatcher_;
  std::vector<block_record<T>> history_;  ///< in id order; ended blocks until taken
  std::vector<std::uint64_t> finished_;   ///< ids of ended blocks not yet taken
  journal journal_;                       ///< the open call's changes, undone if it throws
  std::uint64_t next_block_id_ = 0;
  std::size_t rounds_ = 0;
};

}  // namespace leasehold::policy::pilot
