#pragma once

/// \file
/// dispatcher<T>: the Coaster Service's "fast dispatching algorithm" (Hategan, Wozniak &
/// Maheshwari, "Coasters", §4.5, after the allocation steps): it "iterates through the available
/// workers and for each worker selects the largest possible job that can fit in the remaining
/// run-time for the worker" — the greedy rule for the unbounded knapsack, a worker being a
/// knapsack whose size is the time left in its block. Jobs that fit no worker wait. And, "as
/// opposed to the standard knapsack problem", the knapsacks may shrink: a block that has run
/// out of work is released early (release_idle()).
///
/// The dispatcher knows walltimes (the user's upper bounds), never real run times: a job is put on
/// a worker only when its walltime fits the worker's remaining time, so it cannot be killed by its
/// block's end. The caller reports completions with complete(). It owns no clock: every call
/// takes the caller's `now`.
///
/// Costs: submit O(log q) for q queued jobs; dispatch O(b + w log q) for b blocks and w free
/// workers; complete O(1) expected plus a scan of the block list (tens of blocks at most, the
/// site's block limit); capacity_left O(b + workers), never the queue, since a planning round
/// asks it every time.

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <iterator>
#include <map>
#include <optional>
#include <unordered_map>
#include <utility>
#include <vector>

#include "leasehold/availability/journal.hpp"
#include "leasehold/core/detail/checks.hpp"
#include "leasehold/core/error.hpp"
#include "leasehold/core/time.hpp"

namespace leasehold::policy::pilot {

/// The dispatcher's knobs.
template <time_value T = std::int64_t>
struct dispatch_config {
  /// How long a block must have been without work before it is released early; it damps the
  /// effect of transients in the submission pattern, as the Coaster Service's shutdown delay does.
  /// Zero releases a block the moment nothing queued fits it. Not negative.
  T idle_release_delay = 60;
};

/// A job of the many-task workload: one worker (core), at most `walltime` ticks.
template <time_value T = std::int64_t>
struct pilot_job {
  /// The job's identifier.
  std::uint64_t id = 0;
  /// Its walltime: the user's upper bound on its run time.
  T walltime{};

  /// Equal when id and walltime are equal.
  friend bool operator==(const pilot_job&, const pilot_job&) = default;
};

/// A block as the dispatcher sees it: `workers` workers usable over `usable`.
template <time_value T = std::int64_t>
struct worker_block {
  /// The block's identifier.
  std::uint64_t id = 0;
  /// When its workers may take jobs.
  interval<T> usable{};
  /// How many workers it has.
  std::int64_t workers = 0;

  /// Equal when every field is equal.
  friend bool operator==(const worker_block&, const worker_block&) = default;
};

/// A job put on a worker: it may run on worker `worker` of block `block` from `start` for at most
/// `walltime`, and start + walltime <= the block's end.
template <time_value T = std::int64_t>
struct assignment {
  /// The job.
  std::uint64_t job = 0;
  /// Its walltime.
  T walltime{};
  /// The block it runs in.
  std::uint64_t block = 0;
  /// The worker of that block, from 0.
  std::size_t worker = 0;
  /// When it starts.
  T start{};

  /// Equal when every field is equal.
  friend bool operator==(const assignment&, const assignment&) = default;
};

/// The Coaster Service's fast dispatching (§4.5): queued jobs go to free workers, each worker
/// taking the largest job that fits its block's remaining time (see the file's description).
template <time_value T = std::int64_t>
class dispatcher {
 public:
  /// The time type.
  using time_type = T;
  /// A queued job.
  using job_type = pilot_job<T>;
  /// A job put on a worker.
  using assignment_type = assignment<T>;
  /// A block of workers.
  using block_type = worker_block<T>;
  /// Queued jobs by walltime; equal walltimes keep submission order.
  using queue_type = std::multimap<T, std::uint64_t>;

  /// A dispatcher with no jobs and no blocks; throws invalid_request for a negative
  /// idle_release_delay.
  explicit dispatcher(const dispatch_config<T>& config = {}) : config_(config) {
    if (config_.idle_release_delay < T{0})
      throw invalid_request(detail::describe("dispatch_config: idle_release_delay ",
                                             config_.idle_release_delay, " must not be negative"));
  }

  /// Its configuration.
  [[nodiscard]] const dispatch_config<T>& config() const noexcept { return config_; }

  /// Registers, at `now`, a block whose workers may run jobs during `block.usable` (the batch
  /// system's placement, after any worker start-up; it may lie in the future). Throws
  /// invalid_request for an empty span, no workers, or an id already in use; nothing changes then.
  void add_block(const block_type& block, T now) {
    if (block.usable.empty())
      throw invalid_request(
          detail::describe("add_block ", block.id, ": usable span ", block.usable, " is empty"));
    if (block.workers < 1)
      throw invalid_request(detail::describe("add_block ", block.id, ": workers ", block.workers,
                                             " must be at least 1"));
    if (find_block(block.id) != blocks_.end())
      throw invalid_request(detail::describe("add_block ", block.id, ": id already in use"));
    block_state state{.block = block,
                      .running = std::vector<std::optional<std::uint64_t>>(
                          static_cast<std::size_t>(block.workers)),
                      .busy = 0,
                      .idle_since = now};
    blocks_.push_back(std::move(state));
  }

  /// Queues a job. Throws invalid_request for a non-positive walltime or an id already queued or
  /// running; nothing changes then.
  void submit(const job_type& job) {
    if (job.walltime <= T{0})
      throw invalid_request(detail::describe("submit job ", job.id, ": walltime ", job.walltime,
                                             " must be positive"));
    if (jobs_.contains(job.id))
      throw invalid_request(
          detail::describe("submit job ", job.id, ": id already queued or running"));
    journal_.transaction([&] {
      const auto position = journal_.emplace(queue_, job.walltime, job.id);
      journal_.save_entry(queued_counts_, job.walltime);
      ++queued_counts_[job.walltime];
      journal_.save_entry(jobs_, job.id);  // absent: a rollback erases it
      jobs_.emplace(job.id, job_state{.walltime = job.walltime, .queued_at = position});
      journal_.assign(queued_walltime_, queued_walltime_ + static_cast<double>(job.walltime));
    });
  }

  /// The greedy rule: every free worker of every block usable at `now`, in block order then
  /// worker order, takes the largest queued job whose walltime fits the time left in its block
  /// (the earliest submitted among equals). Returns what started.
  std::vector<assignment_type> dispatch(T now) {
    std::vector<assignment_type> started;
    for (block_state& state : blocks_) {
      if (queue_.empty()) break;
      if (!state.block.usable.contains(now)) continue;
      const T left = state.block.usable.end - now;
      if (queue_.begin()->first > left) continue;  // not even the shortest job fits
      for (std::size_t w = 0; w < state.running.size(); ++w) {
        if (state.running[w]) continue;
        auto fit = queue_.upper_bound(left);
        if (fit == queue_.begin()) break;
        fit = queue_.lower_bound(std::prev(fit)->first);  // first submitted of the largest
        const std::uint64_t id = fit->second;
        const T walltime = fit->first;
        if (started.size() == started.capacity()) started.reserve(2 * started.size() + 8);
        job_state& job = jobs_.at(id);
        queue_.erase(fit);
        if (const auto counted = queued_counts_.find(walltime); --counted->second == 0)
          queued_counts_.erase(counted);
        queued_walltime_ -= static_cast<double>(walltime);
        job.queued_at.reset();
        job.block = state.block.id;
        job.worker = w;
        job.start = now;
        state.running[w] = id;
        ++state.busy;
        started.push_back(
            {.job = id, .walltime = walltime, .block = state.block.id, .worker = w, .start = now});
      }
    }
    return started;
  }

  /// A running job ended at `now`: its worker is free again. Throws invalid_request if the job
  /// is not running or `now` is before its start; nothing changes then.
  void complete(std::uint64_t job_id, T now) {
    const auto found = jobs_.find(job_id);
    if (found == jobs_.end() || found->second.queued_at)
      throw invalid_request(detail::describe("complete job ", job_id, ": not running"));
    job_state& job = found->second;
    if (now < job.start)
      throw invalid_request(
          detail::describe("complete job ", job_id, " at ", now, ": before its start ", job.start));
    block_state& state = *find_block(job.block);
    state.running[job.worker].reset();
    if (--state.busy == 0) state.idle_since = now;
    jobs_.erase(found);
  }

  /// Early release (§4.5: "terminating the Worker Block jobs early if it turns out that the
  /// workload is lower than expected"). A block is released when none of its workers runs a job,
  /// it has been so for at least idle_release_delay, and no queued job's walltime fits the time
  /// it has left. Blocks the batch system has not started yet are released (cancelled) by the
  /// same rule. Returns the released blocks; the caller gives their time back to the cluster.
  /// Strong guarantee.
  std::vector<block_type> release_idle(T now) {
    std::vector<block_type> released = idle_blocks(now);
    std::erase_if(blocks_, [&](const block_state& state) { return idle(state, now); });
    return released;
  }

  /// The blocks release_idle(now) would release, in id order, without releasing them: a
  /// caller that gives their time back first can release them last.
  [[nodiscard]] std::vector<block_type> idle_blocks(T now) const {
    std::vector<block_type> blocks;
    for (const block_state& state : blocks_)
      if (idle(state, now)) blocks.push_back(state.block);
    return blocks;
  }

  /// Forgets blocks whose usable span has ended by `now` and that run nothing (a job that
  /// outlives its walltime keeps its block until complete()). Returns them. Strong guarantee.
  std::vector<block_type> retire_expired(T now) {
    const auto expired = [now](const block_state& state) {
      return state.busy == 0 && state.block.usable.end <= now;
    };
    std::vector<block_type> retired;
    for (const block_state& state : blocks_)
      if (expired(state)) retired.push_back(state.block);
    std::erase_if(blocks_, expired);
    return retired;
  }

  /// Forgets a block that runs no job, as if it had never been added (a batch system that
  /// cancels a block before it starts; a caller taking back its own add_block). Returns false,
  /// changing nothing, for an unknown block or one that runs a job.
  bool withdraw_block(std::uint64_t id) noexcept {
    const auto found = find_block(id);
    if (found == blocks_.end() || found->busy != 0) return false;
    blocks_.erase(found);
    return true;
  }

  /// Worker-ticks the blocks still offer in [now, until), less what running jobs may still use
  /// (their walltime bounds): the capacity queued jobs can count on.
  [[nodiscard]] double capacity_left(T now, T until = forever<T>) const noexcept {
    double capacity = 0;
    for (const block_state& state : blocks_) {
      const T from = std::max(now, state.block.usable.begin);
      const T to = std::min(until, state.block.usable.end);
      if (from < to)
        capacity += static_cast<double>(state.block.workers) * static_cast<double>(to - from);
    }
    // The running jobs through the blocks' workers, not jobs_: that holds every queued job
    // too, and a planning round would walk the whole queue.
    for (const block_state& state : blocks_)
      for (const std::optional<std::uint64_t>& running : state.running) {
        if (!running) continue;
        const job_state& job = jobs_.find(*running)->second;
        const T end = job.start + job.walltime;
        if (end > now) capacity -= static_cast<double>(end - now);
      }
    return std::max(0.0, capacity);
  }

  /// The most time any block usable before `until` has left after `now` (0 without blocks).
  [[nodiscard]] T longest_left(T now, T until = forever<T>) const noexcept {
    T longest{0};
    for (const block_state& state : blocks_) {
      const T from = std::max(now, state.block.usable.begin);
      if (from < until) longest = std::max(longest, state.block.usable.end - from);
    }
    return longest;
  }

  /// The queued jobs by walltime (equal walltimes in submission order).
  [[nodiscard]] const queue_type& queue() const noexcept { return queue_; }
  /// How many queued jobs have each walltime, shortest first: the queue in O(distinct walltimes)
  /// for a caller that needs only sums over it (pilot_service's coverage walk).
  [[nodiscard]] const std::map<T, std::size_t>& queued_by_walltime() const noexcept {
    return queued_counts_;
  }
  /// How many jobs wait.
  [[nodiscard]] std::size_t queued_count() const noexcept { return queue_.size(); }
  /// The sum of the queued jobs' walltimes.
  [[nodiscard]] double queued_walltime() const noexcept { return queued_walltime_; }
  /// How many jobs run.
  [[nodiscard]] std::size_t running_count() const noexcept { return jobs_.size() - queue_.size(); }
  /// How many blocks it knows (active, not yet retired).
  [[nodiscard]] std::size_t block_count() const noexcept { return blocks_.size(); }

  /// A copy of every block it knows, in id order.
  [[nodiscard]] std::vector<block_type> blocks() const {
    std::vector<block_type> result;
    result.reserve(blocks_.size());
    for (const block_state& state : blocks_) result.push_back(state.block);
    return result;
  }

  /// The job running on a worker, if any (nullopt also for an unknown block or worker).
  [[nodiscard]] std::optional<std::uint64_t> running_on(std::uint64_t block,
                                                        std::size_t worker) const {
    const auto found = find_block(block);
    if (found == blocks_.end() || worker >= found->running.size()) return std::nullopt;
    return found->running[worker];
  }

 private:
  struct block_state {
    block_type block;
    std::vector<std::optional<std::uint64_t>> running;  // per worker
    std::int64_t busy = 0;                              // workers running a job
    T idle_since{};  // when busy last dropped to 0 (when the block was added at first)
  };

  struct job_state {
    T walltime{};
    std::optional<typename queue_type::iterator> queued_at;  // set while queued
    std::uint64_t block = 0;                                 // the rest while running
    std::size_t worker = 0;
    T start{};
  };

  // release_idle's rule for one block.
  [[nodiscard]] bool idle(const block_state& state, T now) const noexcept {
    if (state.busy != 0 || now - state.idle_since < config_.idle_release_delay) return false;
    const T left = state.block.usable.end - std::max(now, state.block.usable.begin);
    return queue_.empty() || queue_.begin()->first > left;
  }

  [[nodiscard]] auto find_block(std::uint64_t id) {
    return std::find_if(blocks_.begin(), blocks_.end(),
                        [id](const block_state& state) { return state.block.id == id; });
  }
  [[nodiscard]] auto find_block(std::uint64_t id) const {
    return std::find_if(blocks_.begin(), blocks_.end(),
                        [id](const block_state& state) { return state.block.id == id; });
  }

  dispatch_config<T> config_;
  std::vector<block_state> blocks_;
  queue_type queue_;
  std::map<T, std::size_t> queued_counts_;  ///< queue_ counted by walltime, no zero counts
  std::unordered_map<std::uint64_t, job_state> jobs_;  ///< queued and running
  double queued_walltime_ = 0;                         ///< a sum of walltimes may exceed T
  journal journal_;  ///< the open call's changes, undone if it throws
};

}  // namespace leasehold::policy::pilot
