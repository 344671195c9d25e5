#pragma once

// The knobs of the Haizea lease scheduler (Sotomayor, Keahey & Foster, §3 and §4.4), as one
// plain aggregate with the paper's values as defaults, plus the three configurations of
// Table 1 this library reproduces (VM-MULT and VM-REUSE-* need image staging).

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <optional>
#include <ostream>

#include "leasehold/core/time.hpp"
#include "leasehold/policy/lease/lease_terms.hpp"

namespace leasehold::policy::lease {

// How far the best-effort queue may look ahead (§3.2, after Lifka and Mu'alem & Feitelson):
// `off` is strict FIFO (nothing passes a waiting head, which gets no reservation);
// `aggressive` gives only the first lease that cannot start now a future reservation and lets
// any later lease start now if it fits; `conservative` gives every waiting lease a
// reservation; `intermediate(n)` gives the first n.
struct backfilling {
  enum class mode { off, aggressive, conservative, intermediate };
  mode kind = mode::aggressive;
  std::size_t reservations = 1;  // used by intermediate

  [[nodiscard]] static constexpr backfilling off() noexcept { return {mode::off, 0}; }
  [[nodiscard]] static constexpr backfilling aggressive() noexcept { return {mode::aggressive, 1}; }
  [[nodiscard]] static constexpr backfilling conservative() noexcept {
    return {mode::conservative, std::numeric_limits<std::size_t>::max()};
  }
  [[nodiscard]] static constexpr backfilling intermediate(std::size_t n) noexcept {
    return {mode::intermediate, n};
  }

  // How many queued leases may hold a future reservation at once.
  [[nodiscard]] constexpr std::size_t max_reservations() const noexcept {
    switch (kind) {
      case mode::off:
        return 0;
      case mode::aggressive:
        return 1;
      case mode::conservative:
        return std::numeric_limits<std::size_t>::max();
      case mode::intermediate:
        return reservations;
    }
    return 0;
  }

  friend constexpr bool operator==(const backfilling&, const backfilling&) = default;
};

inline std::ostream& operator<<(std::ostream& out, const backfilling& b) {
  switch (b.kind) {
    case backfilling::mode::off:
      return out << "off";
    case backfilling::mode::aggressive:
      return out << "aggressive";
    case backfilling::mode::conservative:
      return out << "conservative";
    case backfilling::mode::intermediate:
      return out << "intermediate(" << b.reservations << ')';
  }
  return out << "?";
}

// none: a preempted lease is cancelled and requeued, its work lost (NOVM-NOSR, §4.4).
// all: every preemptible lease can be suspended and resumed (§3.1).
enum class suspension { none, all };

// allowed: a suspended lease may resume on other nodes, after its disk image instance and
// memory state are transferred, (s_I + m) / B seconds (§3.1). none: only on its own nodes.
enum class migration { none, allowed };

// What the scheduler plans again after anything changes (a lease arrives, ends, is preempted).
// whole_queue: every best-effort lease booked for a future start is unscheduled and the queue
// is planned again, in order, on any nodes (our reading of §3.2's re-evaluation).
// slide_back: every booking stays; when a lease ends early, the best-effort leases booked to
// begin later on the nodes it freed move earlier on their own nodes, in the order of their
// starts, and only the unbooked queue is planned (what Haizea's code does).
enum class replanning { whole_queue, slide_back };

// How a migration's transfer of the image instance and memory state ((s_I + m) / B, §3.1)
// is booked. with_resume: on the destination nodes just before the resume, with the lease's
// whole resource vector (so the destination must be free for the transfer too).
// transfer_first: as Haizea does, the transfer starts as soon as the migration is decided,
// holding only the destination's disk (s_I + m MB) while whatever runs there runs on; the
// resume begins once the transfer is over and the destination is free. The network is not
// booked in either (the paper's non-blocking switch).
enum class migration_step { with_resume, transfer_first };

// Which best-effort leases an advance reservation preempts on a node that lacks room for it
// (docs/leases.md, "Preemption"). all_overlapping: every preemptible best-effort lease booked
// on that node over any part of the reservation. minimal: the fewest of those that make room on
// every such node, then those losing the least run time, then the smallest ids. On nodes of
// one CPU, where every lease in the way fills the node, both preempt the same leases.
enum class preemption_set { all_overlapping, minimal };

template <time_value T = std::int64_t>
struct scheduler_config {
  backfilling backfill = backfilling::aggressive();
  suspension suspend = suspension::all;
  migration migrate = migration::allowed;
  double suspend_rate_mb_s = 50.0;  // H_w (§4.3, after Fallenbeck et al.)
  double resume_rate_mb_s = 50.0;   // H_r
  double network_mb_s = 10.0;       // B: 100 Mb/s Ethernet, conservatively 10 MB/s (§4.3)
  bool in_vms = true;               // leases run in VMs: slowdown and boot/shutdown apply
  std::int64_t runtime_slowdown_percent = 5;  // inside a VM a computation takes 5 % longer
  T boot_shutdown = 20;                       // boot + shutdown of a VM, s (§4.3)
  // The shortest run worth starting before a suspension; nullopt: the suspend + resume
  // time it costs, so that a lease never spends more time in overhead than it gains.
  std::optional<T> minimum_run;
  // §3.2: a preemptible lease's VMs also take m MB of the node's disk, to hold the memory
  // state file should they be suspended.
  bool reserve_disk_for_memory_state = true;
  // Which components of the resource vector are memory and disk (lease_terms.hpp); Haizea's
  // vector by default. The scheduler checks them against its vector's size.
  resource_layout layout{};
  // Every public call gives the strong guarantee: if it throws (std::bad_alloc included), the
  // scheduler is unchanged and the observer has heard nothing of it. An undo log records each
  // change a call makes, so it costs in proportion to what the call changes (within 10 % on
  // the 30-day Haizea run, docs/performance.md), plus a copy of a Preparation that has state;
  // a simulation that treats running out of memory as fatal may turn it off, keeping the
  // basic guarantee (no leak, but a failed call may leave the schedule inconsistent).
  bool strong_guarantee = true;
  // A lease that is done, rejected or withdrawn leaves the scheduler when the call that
  // finished it returns: take_finished() hands it out once, leases() holds the live leases
  // only, and lease(id) of a retired id throws invalid_lease. Memory then depends on the live
  // leases only, which an embedding service running for months needs (docs/leases.md). Off by
  // default: simulations and tests that read every record after the run keep doing so.
  bool retire_finished = false;
  replanning replan = replanning::whole_queue;
  migration_step migration_booking = migration_step::with_resume;
  preemption_set preempt = preemption_set::all_overlapping;

  // ---- Haizea's own choices, where its code differs from our reading of the paper --------
  // Each is off by default (the schedules of docs/leases.md); with_haizea_choices() turns on
  // those the paper-era Haizea made (not the fixed times, which its paper runs did not use).
  //
  // An advance reservation in VMs is slowed down like best-effort work: Haizea books a
  // 10,748 s reservation for 11,285 s at 5 % (rounded down, as there).
  bool stretch_reservations = false;
  // Boot + shutdown is charged per VM, as Haizea enacts VMs one after another: a 4-node lease
  // pays 4 x boot_shutdown.
  bool overhead_per_vm = false;
  // An advance reservation's shutdown happens inside its [start, start + duration), which its
  // run gives up, instead of after it.
  bool reservation_overhead_inside = false;
  // A lease whose real duration ends before its maximum still shuts down (boot_shutdown)
  // before its nodes are free; Haizea frees them at once.
  bool shutdown_after_early_end = true;
  // A fixed time for every suspension / resume instead of memory / rate.
  std::optional<T> suspend_time_fixed;
  std::optional<T> resume_time_fixed;

  // Table 1's configurations (§4.4).
  [[nodiscard]] static scheduler_config novm_nosr() {
    scheduler_config c;
    c.suspend = suspension::none;
    c.migrate = migration::none;
    c.in_vms = false;
    return c;
  }
  [[nodiscard]] static scheduler_config novm_sr() {
    scheduler_config c;
    c.in_vms = false;
    return c;
  }
  [[nodiscard]] static scheduler_config vm_predeploy() { return {}; }

  // This configuration with every choice of Haizea's own code (above) made as Haizea made it.
  [[nodiscard]] scheduler_config with_haizea_choices() const {
    scheduler_config c = *this;
    c.stretch_reservations = true;
    c.overhead_per_vm = true;
    c.reservation_overhead_inside = true;
    c.shutdown_after_early_end = false;
    c.replan = replanning::slide_back;
    c.migration_booking = migration_step::transfer_first;
    return c;
  }
};

namespace detail {
// Seconds, rounded up, to move `mb` megabytes at `rate` MB/s.
template <time_value T>
[[nodiscard]] T transfer_time(std::int64_t mb, double rate) {
  if (mb <= 0) return T{0};
  return static_cast<T>(std::ceil(static_cast<double>(mb) / rate));
}
}  // namespace detail

}  // namespace leasehold::policy::lease
