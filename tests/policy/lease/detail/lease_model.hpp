#pragma once

// A brute-force model of the lease scheduler, written from docs/leases.md alone and sharing no
// code with include/leasehold/policy/lease/: every node is one CPU, and its occupancy is an
// array with one entry per second (the id of the lease booked there, or 0). The rules are the
// document's, applied literally and by exhaustive search, so that a disagreement with
// lease_scheduler points at one of the two (or at the document).
//
// Scope: leases of 1 CPU per node (so a node holds one lease at a time), images predeployed,
// Haizea's defaults elsewhere (whole-queue re-planning, migration booked with the resume);
// best-effort leases with early ends, withdrawals, releases and holds; advance reservations
// with a start or a window of starts; immediate leases; backfilling off / aggressive /
// intermediate / conservative; suspension none or all; migration none or allowed (a
// suspended lease migrates only when that makes it resume strictly sooner); in VMs or not
// (slowdown, boot + shutdown). Where docs/leases.md was not precise enough to write this, it
// was made so ("Choices where the paper is silent"), after checking that lease_scheduler's
// behaviour is sensible.

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <map>
#include <optional>
#include <stdexcept>
#include <string>
#include <tuple>
#include <vector>

#include <leasehold/core/lease_terms.hpp>
#include <leasehold/core/time.hpp>

namespace leasehold::test::lease_model {

using T = std::int64_t;
using terms = lease_terms<T>;

enum class backfill_mode { off, aggressive, conservative, intermediate };

struct model_config {
  backfill_mode backfill = backfill_mode::aggressive;
  std::size_t reservations = 1;  // how many leases may hold a reservation under intermediate
  bool suspend = false;          // suspension::all (else none: preempted leases are cancelled)
  bool migrate = false;          // migration::allowed
  // Rates in MB/s (H_w, H_r, B); times are memory / rate rounded up.
  std::int64_t suspend_rate = 50;
  std::int64_t resume_rate = 50;
  std::int64_t network_rate = 10;
  // The document's rule: a suspended lease migrates when that resumes it strictly sooner.
  // false: when the migration's segment (transfer included) begins strictly sooner, the rule
  // lease_scheduler follows until it is brought in line with the document; the randomised
  // test uses it only to tell that known difference from any other.
  bool migrate_when_resumed_sooner = true;
  // In VMs: best-effort work takes (100 + slowdown) % as long, and boot + shutdown is booked
  // after a lease's last run.
  bool in_vms = false;
  std::int64_t slowdown_percent = 5;
  T boot_shutdown = 20;
};

enum class state { queued, scheduled, running, done, rejected, withdrawn };
enum class outcome { completed, suspended, cancelled, released };

// One segment as it happened: its nodes, from its begin to its real end, its run, the work done.
struct segment {
  std::vector<std::size_t> nodes;
  interval<T> span;
  interval<T> run;
  T work = 0;
  outcome how = outcome::completed;
  friend bool operator==(const segment&, const segment&) = default;
};

struct result {
  state st = state::queued;
  std::optional<T> first_start;
  std::optional<T> end;
  std::vector<segment> history;
  std::size_t suspensions = 0;
  std::size_t migrations = 0;
  std::size_t cancellations = 0;
  friend bool operator==(const result&, const result&) = default;
};

// What a user or execution manager calls at `at`: a withdrawal, or a release (the lease's
// work is done).
struct call {
  T at = 0;
  std::uint64_t id = 0;
  bool release = false;
};

struct scenario {
  std::size_t nodes = 1;
  model_config config;
  std::vector<terms> leases;  // in submission order (submit times non-decreasing)
  std::vector<call> calls;    // in time order
};

namespace detail {

inline T ceil_div(std::int64_t mb, std::int64_t rate) {
  return mb <= 0 ? 0 : (mb + rate - 1) / rate;
}

class model {
 public:
  model(std::size_t nodes, const model_config& config, T horizon)
      : config_(config),
        horizon_(horizon),
        occupancy_(nodes, std::vector<std::uint64_t>(static_cast<std::size_t>(horizon), 0)) {}

  void submit(const terms& t) {
    advance_to(t.submit);
    lease& l = leases_[t.id];
    l.t = t;
    l.remaining_max = t.duration;
    l.remaining_real = t.real_duration > 0 ? t.real_duration : t.duration;
    if (t.kind == lease_kind::best_effort) {
      l.st = state::queued;
    } else {
      admit_reservation(l);
    }
    reevaluate();
  }

  void withdraw(std::uint64_t id, T at) {
    advance_to(at);
    lease& l = leases_.at(id);
    if (l.r.first_start || (l.st != state::queued && l.st != state::scheduled)) return;
    if (l.st == state::scheduled) unbook(l);
    l.st = state::withdrawn;
    l.r.end = now_;
    reevaluate();
  }

  // The execution manager's release: a running lease's work is done now; the rest of its
  // booking is freed. Refused (nothing changes) for a lease that is not running.
  void release(std::uint64_t id, T at) {
    advance_to(at);
    lease& l = leases_.at(id);
    if (l.st != state::running) return;
    const booking& b = l.b;
    l.r.history.push_back({b.nodes,
                           {b.begin, now_},
                           {b.run_begin, std::clamp(now_, b.run_begin, b.run_end)},
                           l.remaining_real,
                           outcome::released});
    free_from(l, now_);
    l.remaining_real = l.remaining_max = 0;
    l.st = state::done;
    l.r.end = now_;
    reevaluate();
  }

  // Every event up to `to`, instant by instant: ends first, then begins, then re-evaluation.
  void advance_to(T to) {
    while (true) {
      std::optional<T> next;
      for (auto& [id, l] : leases_) {
        std::optional<T> due;
        if (l.st == state::running) due = finish(l);
        if (l.st == state::scheduled) due = l.b.begin;
        if (due && (!next || *due < *next)) next = due;
      }
      if (!next || *next > to) break;
      now_ = *next;
      for (auto& [id, l] : leases_)
        if (l.st == state::running && finish(l) == now_) end_segment(l);
      for (auto& [id, l] : leases_)
        if (l.st == state::scheduled && l.b.begin == now_) begin_segment(l);
      reevaluate();
    }
    now_ = std::max(now_, to);
  }

  void run_out() { advance_to(horizon_); }

  [[nodiscard]] std::map<std::uint64_t, result> results() const {
    std::map<std::uint64_t, result> out;
    for (const auto& [id, l] : leases_) {
      result r = l.r;
      r.st = l.st;
      out[id] = r;
    }
    return out;
  }

 private:
  // A booked segment: [begin, run_begin) migration then resume, the run, then
  // [run_end, end) suspension (or nothing when the lease completes).
  struct booking {
    std::vector<std::size_t> nodes;
    T begin = 0, run_begin = 0, run_end = 0, end = 0;
    bool suspends = false;
    bool migrates = false;
  };
  struct lease {
    terms t;
    state st = state::queued;
    T remaining_max = 0, remaining_real = 0;
    booking b;
    std::vector<std::size_t> suspended_on;
    result r;
  };

  // When the lease's real work would end if it runs in this booking from its run's begin.
  [[nodiscard]] T real_run_end(const lease& l) const {
    return l.b.run_begin + time_for(l, l.remaining_real);
  }
  // When the segment really ends: early when the lease's real work runs out in its run (it
  // then shuts down, in VMs).
  [[nodiscard]] T finish(const lease& l) const {
    const T real_end = real_run_end(l);
    if (real_end > l.b.run_end) return l.b.end;
    // A segment booked to end in a suspension whose work ends in its run shuts down instead,
    // inside its booking: it keeps the longer of the suspension and the shutdown after its run.
    if (real_end + overhead() > l.b.end)
      throw std::logic_error("lease model: the shutdown does not fit in the booking");
    return real_end + overhead();
  }

  [[nodiscard]] T suspend_time(const lease& l) const {
    return ceil_div(l.t.per_node[node_component::memory_mb], config_.suspend_rate);
  }
  [[nodiscard]] T resume_time(const lease& l) const {
    return ceil_div(l.t.per_node[node_component::memory_mb], config_.resume_rate);
  }
  [[nodiscard]] T migration_time(const lease& l) const {
    const std::int64_t image = l.t.image ? l.t.image->size_mb : 0;
    return ceil_div(image + l.t.per_node[node_component::memory_mb], config_.network_rate);
  }
  // Wall-clock time of `work` seconds of the lease's work; advance reservations hold
  // wall-clock time.
  [[nodiscard]] T time_for(const lease& l, T work) const {
    if (!config_.in_vms || l.t.kind != lease_kind::best_effort) return work;
    return (work * (100 + config_.slowdown_percent) + 99) / 100;
  }
  // Work done in `elapsed` seconds of running, rounded down.
  [[nodiscard]] T work_of(const lease& l, T elapsed) const {
    if (!config_.in_vms || l.t.kind != lease_kind::best_effort) return elapsed;
    return elapsed * 100 / (100 + config_.slowdown_percent);
  }
  [[nodiscard]] T overhead() const { return config_.in_vms ? config_.boot_shutdown : 0; }
  // What a segment booked to end in a suspension keeps after its run.
  [[nodiscard]] T tail(const lease& l) const { return std::max(suspend_time(l), overhead()); }
  // Whether a running lease's run is over: its work is done (it is shutting down) or it is
  // suspending.
  [[nodiscard]] bool run_over(const lease& l) const {
    return l.st == state::running && now_ >= std::min(real_run_end(l), l.b.run_end);
  }
  [[nodiscard]] bool may_suspend(const lease& l) const {
    return config_.suspend && l.t.preemptible && l.t.kind == lease_kind::best_effort;
  }

  std::uint64_t& cell(std::size_t node, T t) {
    if (t < 0 || t >= horizon_) throw std::logic_error("lease model: horizon too short");
    return occupancy_[node][static_cast<std::size_t>(t)];
  }
  [[nodiscard]] std::uint64_t at(std::size_t node, T t) const {
    if (t >= horizon_) return 0;
    return occupancy_[node][static_cast<std::size_t>(t)];
  }
  [[nodiscard]] bool free_over(std::size_t node, T from, T to) const {
    for (T t = from; t < to; ++t)
      if (at(node, t) != 0) return false;
    return true;
  }
  // The first occupied second at or after `from` (the horizon if none).
  [[nodiscard]] T free_until(std::size_t node, T from) const {
    T t = from;
    while (t < horizon_ && at(node, t) == 0) ++t;
    return t;
  }

  void book(lease& l, const booking& b) {
    for (std::size_t n : b.nodes)
      for (T t = b.begin; t < b.end; ++t) {
        if (cell(n, t) != 0) throw std::logic_error("lease model: double booking");
        cell(n, t) = l.t.id;
      }
    l.b = b;
  }
  // Frees the lease's booking from `from` on.
  void free_from(lease& l, T from) {
    for (std::size_t n : l.b.nodes)
      for (T t = std::max(from, l.b.begin); t < l.b.end; ++t) cell(n, t) = 0;
  }
  void unbook(lease& l) {
    free_from(l, l.b.begin);
    l.st = state::queued;
  }

  void begin_segment(lease& l) {
    l.st = state::running;
    if (!l.r.first_start) l.r.first_start = l.b.begin;
    if (l.b.migrates) ++l.r.migrations;
  }

  void end_segment(lease& l) {
    const booking& b = l.b;
    const T real_end = real_run_end(l);
    if (real_end <= b.run_end) {  // the work is done (at its maximum or early)
      const T finished = finish(l);
      l.r.history.push_back({b.nodes,
                             {b.begin, finished},
                             {b.run_begin, real_end},
                             l.remaining_real,
                             outcome::completed});
      free_from(l, finished);
      l.remaining_real = l.remaining_max = 0;
      l.st = state::done;
      l.r.end = finished;
      l.suspended_on.clear();
      return;
    }
    // Suspended: the work of the run is credited, the remainder requeued.
    const T work = work_of(l, b.run_end - b.run_begin);
    l.r.history.push_back(
        {b.nodes, {b.begin, b.end}, {b.run_begin, b.run_end}, work, outcome::suspended});
    l.remaining_max -= work;
    l.remaining_real -= work;
    l.suspended_on = b.nodes;
    ++l.r.suspensions;
    l.st = state::queued;
  }

  // Cancelled at once, its work in this segment lost, and requeued (NOVM-NOSR, or too
  // little time left to suspend).
  void cancel(lease& l) {
    const booking& b = l.b;
    // The run as far as it went: empty, at its planned begin, if cancelled while migrating
    // or resuming.
    const T run_end = std::clamp(now_, b.run_begin, b.run_end);
    l.r.history.push_back(
        {b.nodes, {b.begin, now_}, {b.run_begin, run_end}, 0, outcome::cancelled});
    free_from(l, now_);
    ++l.r.cancellations;
    l.st = state::queued;
  }

  // §3.2 as the document states it: viable when n nodes can hold [start, start + duration)
  // counting best-effort leases as free; nodes needing no preemption first, then nodes holding
  // only leases not yet begun, then nodes with running leases, ties by id.
  void admit_reservation(lease& l) {
    const T length = l.t.duration + overhead();
    // An immediate lease starts now and preempts nothing; a window of starts takes its
    // earliest start (from now, up to and including the window's end) at which n nodes are
    // free, else its first start from now, preempting.
    const bool preempts = l.t.kind != lease_kind::immediate;
    T start = now_;
    if (l.t.start) start = *l.t.start;
    if (l.t.start_window) {
      start = std::max(l.t.start_window->begin, now_);
      for (T s = start; s <= l.t.start_window->end; ++s) {
        std::size_t free = 0;
        for (std::size_t n = 0; n < occupancy_.size(); ++n) free += free_over(n, s, s + length);
        if (free >= static_cast<std::size_t>(l.t.nodes)) {
          start = s;
          break;
        }
      }
    }
    const T end = start + length;
    std::vector<std::pair<int, std::size_t>> ranked;
    for (std::size_t n = 0; n < occupancy_.size(); ++n) {
      int rank = 0;
      bool viable = true;
      for (T t = start; t < end && viable; ++t) {
        const std::uint64_t id = at(n, t);
        if (id == 0) continue;
        const lease& other = leases_.at(id);
        if (!preempts || other.t.kind != lease_kind::best_effort || !other.t.preemptible ||
            run_over(other))
          viable = false;
        else
          rank = std::max(rank, other.st == state::running ? 2 : 1);
      }
      if (viable) ranked.emplace_back(rank, n);
    }
    if (ranked.size() < static_cast<std::size_t>(l.t.nodes)) {
      l.st = state::rejected;
      return;
    }
    std::sort(ranked.begin(), ranked.end());
    std::vector<std::size_t> chosen;
    for (std::size_t i = 0; i < static_cast<std::size_t>(l.t.nodes); ++i)
      chosen.push_back(ranked[i].second);
    std::sort(chosen.begin(), chosen.end());
    // Preempt every best-effort lease in the way, in id order.
    std::vector<std::uint64_t> in_way;
    for (std::size_t n : chosen)
      for (T t = start; t < end; ++t)
        if (const std::uint64_t id = at(n, t); id != 0) in_way.push_back(id);
    std::sort(in_way.begin(), in_way.end());
    in_way.erase(std::unique(in_way.begin(), in_way.end()), in_way.end());
    for (std::uint64_t id : in_way) preempt(leases_.at(id), start);
    booking b;
    b.nodes = chosen;
    b.begin = b.run_begin = start;
    b.run_end = start + l.t.duration;
    b.end = end;
    book(l, b);
    l.st = state::scheduled;
    if (start == now_) begin_segment(l);
  }

  // §3.1: not begun, unscheduled; running, suspended to end exactly at `start`, or cancelled.
  void preempt(lease& l, T start) {
    if (l.st == state::scheduled) {
      unbook(l);
      return;
    }
    if (run_over(l)) throw std::logic_error("lease model: preempting a lease whose run is over");
    const T run_end = start - tail(l);
    if (!may_suspend(l) || run_end < std::max(now_, l.b.run_begin)) {
      cancel(l);
      return;
    }
    free_from(l, start);
    l.b.run_end = run_end;
    l.b.end = start;
    l.b.suspends = true;
  }

  // The plan of a lease from `now_`, on any nodes or on `only` nodes, with `lead` seconds of
  // migration and resume before its run.
  [[nodiscard]] std::optional<booking> plan(const lease& l,
                                            std::optional<std::vector<std::size_t>> only, T lead,
                                            bool migrates) const {
    const auto n = static_cast<std::size_t>(l.t.nodes);
    std::vector<std::size_t> candidates;
    if (only)
      candidates = *only;
    else
      for (std::size_t i = 0; i < occupancy_.size(); ++i) candidates.push_back(i);
    const T full = lead + time_for(l, l.remaining_max) + overhead();
    const bool suspendable = may_suspend(l);
    const T need =
        suspendable ? std::min(full, lead + suspend_time(l) + resume_time(l) + tail(l)) : full;
    for (T s = now_; s + need <= horizon_; ++s) {
      // (minus how long it is free, up to the whole segment; node): free longest first.
      std::vector<std::pair<T, std::size_t>> free;
      for (std::size_t node : candidates)
        if (free_over(node, s, s + need))
          free.emplace_back(suspendable ? -std::min(free_until(node, s), s + full) : 0, node);
      if (free.size() < n) continue;
      std::sort(free.begin(), free.end());
      booking b;
      b.migrates = migrates;
      T until = s + full;
      for (std::size_t i = 0; i < n; ++i) {
        b.nodes.push_back(free[i].second);
        if (suspendable) until = std::min(until, -free[i].first);
      }
      std::sort(b.nodes.begin(), b.nodes.end());
      b.begin = s;
      b.run_begin = s + lead;
      if (!suspendable || until >= s + full) {
        b.end = s + full;
        b.run_end = b.end - overhead();
      } else {
        b.end = until;
        b.run_end = until - tail(l);
        b.suspends = true;
      }
      return b;
    }
    return std::nullopt;
  }

  [[nodiscard]] std::optional<booking> plan_best_effort(const lease& l) const {
    if (l.suspended_on.empty()) return plan(l, std::nullopt, 0, false);
    auto own = plan(l, l.suspended_on, resume_time(l), false);
    if (!own) return own;
    if (config_.migrate) {
      auto moved = plan(l, std::nullopt, migration_time(l) + resume_time(l), true);
      if (!moved) return own;
      const bool sooner = config_.migrate_when_resumed_sooner ? moved->run_begin < own->run_begin
                                                              : moved->begin < own->begin;
      if (moved->nodes != l.suspended_on && sooner) return moved;
    }
    return own;
  }

  // Every reservation not begun is unscheduled and the queue planned again, FIFO.
  void reevaluate() {
    for (auto& [id, l] : leases_)
      if (l.st == state::scheduled && l.t.kind == lease_kind::best_effort) unbook(l);
    std::vector<std::tuple<T, std::uint64_t>> queue;
    for (auto& [id, l] : leases_)
      if (l.st == state::queued && !l.t.hold_in_queue) queue.emplace_back(l.t.submit, id);
    std::sort(queue.begin(), queue.end());
    std::size_t reservations = 0;
    std::size_t max_reservations = queue.size();
    if (config_.backfill == backfill_mode::off) max_reservations = 0;
    if (config_.backfill == backfill_mode::aggressive) max_reservations = 1;
    if (config_.backfill == backfill_mode::intermediate) max_reservations = config_.reservations;
    for (const auto& [submit, id] : queue) {
      lease& l = leases_.at(id);
      const auto b = plan_best_effort(l);
      if (!b) throw std::logic_error("lease model: no plan within the horizon");
      if (b->begin == now_) {
        book(l, *b);
        l.st = state::scheduled;
        begin_segment(l);
      } else if (config_.backfill == backfill_mode::off) {
        break;
      } else if (reservations < max_reservations) {
        ++reservations;
        book(l, *b);
        l.st = state::scheduled;
      }
    }
  }

  model_config config_;
  T horizon_;
  T now_ = 0;
  std::vector<std::vector<std::uint64_t>> occupancy_;
  std::map<std::uint64_t, lease> leases_;
};

}  // namespace detail

// Runs a scenario through the model: submissions and calls in time order (the scheduler's own
// events first at the same instant), then every event to the end.
inline std::map<std::uint64_t, result> run_model(const scenario& s) {
  T horizon = 1;
  for (const auto& t : s.leases)
    horizon = std::max(horizon, (t.start ? *t.start : t.submit)) + t.duration + 8;
  horizon *= 4;
  detail::model m(s.nodes, s.config, horizon);
  std::size_t c = 0;
  const auto make_call = [&m](const call& x) {
    if (x.release)
      m.release(x.id, x.at);
    else
      m.withdraw(x.id, x.at);
  };
  for (const auto& t : s.leases) {
    for (; c < s.calls.size() && s.calls[c].at < t.submit; ++c) make_call(s.calls[c]);
    m.submit(t);
  }
  for (; c < s.calls.size(); ++c) make_call(s.calls[c]);
  m.run_out();
  return m.results();
}

}  // namespace leasehold::test::lease_model
