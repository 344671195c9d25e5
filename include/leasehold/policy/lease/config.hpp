#pragma once

/// \file
/// scheduler_config: the knobs of the Haizea lease scheduler and Table 1's configurations
/// (described below).

// The knobs of the Haizea lease scheduler (Sotomayor, Keahey & Foster, §3 and §4.4), as one
// plain aggregate with the paper's values as defaults, plus the three configurations of
// Table 1 this library reproduces (VM-MULT and VM-REUSE-* need image staging).

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <optional>
#include <ostream>

#include "leasehold/core/detail/describe.hpp"
#include "leasehold/core/error.hpp"
#include "leasehold/core/time.hpp"
#include "leasehold/policy/lease/lease_terms.hpp"

namespace leasehold::policy::lease {

/// How far the best-effort queue may look ahead (§3.2, after Lifka and Mu'alem & Feitelson):
/// `off` is strict FIFO (nothing passes a waiting head, which gets no reservation);
/// `aggressive` gives only the first lease that cannot start now a future reservation and lets
/// any later lease start now if it fits; `conservative` gives every waiting lease a
/// reservation; `intermediate(n)` gives the first n.
struct backfilling {
  /// The four rules (see backfilling).
  enum class mode { off, aggressive, conservative, intermediate };
  /// Which rule.
  mode kind = mode::aggressive;
  std::size_t reservations = 1;  ///< used by intermediate

  /// Strict FIFO.
  [[nodiscard]] static constexpr backfilling off() noexcept { return {mode::off, 0}; }
  /// Only the first lease that cannot start now gets a reservation (Haizea's default).
  [[nodiscard]] static constexpr backfilling aggressive() noexcept { return {mode::aggressive, 1}; }
  /// Every waiting lease gets a reservation.
  [[nodiscard]] static constexpr backfilling conservative() noexcept {
    return {mode::conservative, std::numeric_limits<std::size_t>::max()};
  }
  /// The first n waiting leases get a reservation.
  [[nodiscard]] static constexpr backfilling intermediate(std::size_t n) noexcept {
    return {mode::intermediate, n};
  }

  /// How many queued leases may hold a future reservation at once.
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

  /// Equal when rule and count are equal.
  friend constexpr bool operator==(const backfilling&, const backfilling&) = default;
};

/// Writes "off", "aggressive", "conservative" or "intermediate(n)".
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

/// none: a preempted lease is cancelled and requeued, its work lost (NOVM-NOSR, §4.4).
/// all: every preemptible lease can be suspended and resumed (§3.1).
enum class suspension { none, all };

/// allowed: a suspended lease may resume on other nodes, after its disk image instance and
/// memory state are transferred, (s_I + m) / B seconds (§3.1). none: only on its own nodes.
enum class migration { none, allowed };

/// What the scheduler plans again after anything changes (a lease arrives, ends, is preempted).
/// whole_queue: every best-effort lease booked for a future start is unscheduled and the queue
/// is planned again, in order, on any nodes (our reading of §3.2's re-evaluation).
/// slide_back: every booking stays; when a lease ends early, the best-effort leases booked to
/// begin later on the nodes it freed move earlier on their own nodes, in the order of their
/// starts, and only the unbooked queue is planned (what Haizea's code does).
enum class replanning { whole_queue, slide_back };

/// How a migration's transfer of the image instance and memory state ((s_I + m) / B, §3.1)
/// is booked. with_resume: on the destination nodes just before the resume, with the lease's
/// whole resource vector (so the destination must be free for the transfer too).
/// transfer_first: as Haizea does, the transfer starts as soon as the migration is decided,
/// holding only the destination's disk (s_I + m MB) while whatever runs there runs on; the
/// resume begins once the transfer is over and the destination is free. The network is not
/// booked in either (the paper's non-blocking switch).
enum class migration_step { with_resume, transfer_first };

/// Which version of Haizea's code scheduler_config::with_haizea() follows, where its code
/// differs from our reading of the paper. hpdc08: the code behind the paper's runs (overhead
/// once per lease, held after an early end; stretched reservations rounded up; a backfilling
/// reservation held until its lease ends). tests: the later code behind Haizea's test
/// scenarios (overhead per VM, nodes freed at once after an early end, shutdown inside an
/// advance reservation; what with_haizea_choices() has always meant).
enum class haizea_preset { hpdc08, tests };

/// Writes "hpdc08" or "tests" (the names --haizea-preset takes).
inline std::ostream& operator<<(std::ostream& out, haizea_preset p) {
  switch (p) {
    case haizea_preset::hpdc08:
      return out << "hpdc08";
    case haizea_preset::tests:
      return out << "tests";
  }
  return out << "haizea_preset(" << static_cast<int>(p) << ')';
}

/// Which best-effort leases an advance reservation preempts on a node that lacks room for it
/// (docs/leases.md, "Preemption"). all_overlapping: every preemptible best-effort lease booked
/// on that node over any part of the reservation. minimal: the fewest of those that make room on
/// every such node, then those losing the least run time, then the smallest ids. On nodes of
/// one CPU, where every lease in the way fills the node, both preempt the same leases.
enum class preemption_set { all_overlapping, minimal };

/// The lease scheduler's knobs, the paper's values by default (VM-PREDEPLOY); the scheduler
/// checks them and throws invalid_request for values out of range.
template <time_value T = std::int64_t>
struct scheduler_config {
  /// Which waiting leases get reservations.
  backfilling backfill = backfilling::aggressive();
  /// Whether preempted leases are suspended or cancelled.
  suspension suspend = suspension::all;
  /// Whether suspended leases may resume on other nodes.
  migration migrate = migration::allowed;
  double suspend_rate_mb_s = 50.0;  ///< H_w (§4.3, after Fallenbeck et al.)
  double resume_rate_mb_s = 50.0;   ///< H_r
  double network_mb_s = 10.0;       ///< B: 100 Mb/s Ethernet, conservatively 10 MB/s (§4.3)
  bool in_vms = true;               ///< leases run in VMs: slowdown and boot/shutdown apply
  std::int64_t runtime_slowdown_percent = 5;  ///< inside a VM a computation takes 5 % longer
  T boot_shutdown = 20;                       ///< boot + shutdown of a VM, s (§4.3)
  /// The shortest run worth starting before a suspension; nullopt: the suspend + resume
  /// time it costs, so that a lease never spends more time in overhead than it gains.
  std::optional<T> minimum_run;
  /// §3.2: a preemptible lease's VMs also take m MB of the node's disk, to hold the memory
  /// state file should they be suspended.
  bool reserve_disk_for_memory_state = true;
  /// Which components of the resource vector are memory and disk (lease_terms.hpp); Haizea's
  /// vector by default. The scheduler checks them against its vector's size. Nodes whose disk
  /// component is 0 (Haizea's sites of CPU and memory only) model no disk: nothing is booked
  /// there for memory state or migration transfers.
  resource_layout layout{};
  /// Every public call gives the strong guarantee: if it throws (std::bad_alloc included), the
  /// scheduler is unchanged and the observer has heard nothing of it. A journal records each
  /// change a call makes, so it costs in proportion to what the call changes
  /// (docs/performance.md); a Preparation with state journals its own changes
  /// (transactional_preparation) or, if it does not, is copied per call. A simulation that
  /// treats running out of memory as fatal may turn it off, keeping the
  /// basic guarantee (no leak, but a failed call may leave the schedule inconsistent).
  bool strong_guarantee = true;
  /// A lease that is done, rejected or withdrawn leaves the scheduler when the call that
  /// finished it returns: take_finished() hands it out once, leases() holds the live leases
  /// only, and lease(id) of a retired id throws invalid_lease. Memory then depends on the live
  /// leases only, which an embedding service running for months needs (docs/leases.md). Off by
  /// default: simulations and tests that read every record after the run keep doing so.
  bool retire_finished = false;
  /// What is planned again after a change.
  replanning replan = replanning::whole_queue;
  /// How a migration's transfer is booked.
  migration_step migration_booking = migration_step::with_resume;
  /// Which leases an advance reservation preempts on a node that lacks room (preemption_set).
  preemption_set preempt = preemption_set::all_overlapping;

  // ---- Haizea's own choices, where its code differs from our reading of the paper --------
  // Each is off by default (the schedules of docs/leases.md); with_haizea_choices() turns on
  // those the paper-era Haizea made (not the fixed times, which its paper runs did not use).
  //
  /// An advance reservation in VMs is slowed down like best-effort work: Haizea books a
  /// 10,748 s reservation for 11,285 s at 5 % (rounded down, as there).
  bool stretch_reservations = false;
  /// Boot + shutdown is charged per VM, as Haizea enacts VMs one after another: a 4-node lease
  /// pays 4 x boot_shutdown.
  bool overhead_per_vm = false;
  /// An advance reservation's shutdown happens inside its [start, start + duration), which its
  /// run gives up, instead of after it.
  bool reservation_overhead_inside = false;
  /// A lease whose real duration ends before its maximum still shuts down (boot_shutdown)
  /// before its nodes are free; Haizea frees them at once.
  bool shutdown_after_early_end = true;
  /// A fixed time for every suspension instead of memory / rate.
  std::optional<T> suspend_time_fixed;
  /// A fixed time for every resume instead of memory / rate.
  std::optional<T> resume_time_fixed;
  /// A best-effort lease booked for a future start (a backfilling reservation) counts against
  /// backfill.max_reservations() until its segment ends, not only until it begins: while it
  /// runs, no other queued lease may take a future reservation, and queued leases start only
  /// at an event where they fit at once. The paper-era Haizea's counter drops when the
  /// reserved lease's VMs end (or it is preempted before it begins).
  bool reservation_held_until_end = false;
  /// The paper-era Haizea's suspension thresholds instead of minimum_run, by the lease's state.
  /// A lease is started or resumed where it must be suspended again only if the window (resume,
  /// run and suspension) is longer than 2 x (boot_shutdown + its image's preparation + its
  /// suspension) for a first start, 2 x 2 x its suspension for a resume, or 2 x (its
  /// migration + 2 x its suspension) for a resume when migration is allowed; then a resume also
  /// waits for the migration time on its own nodes. A running lease preempted less than
  /// 2 x (its migration + 2 x its suspension) after its run began is cancelled and requeued,
  /// its work lost, rather than suspended.
  bool suspend_thresholds_per_state = false;
  /// With stretch_reservations, the stretched duration is rounded up (ceil(d x 1.05)), as the
  /// paper-era Haizea's rounding of time deltas does, instead of down.
  bool stretch_rounds_up = false;

  /// NOVM-NOSR of Table 1 (§4.4): neither VMs nor suspension; a preempted lease is cancelled.
  [[nodiscard]] static scheduler_config novm_nosr() {
    scheduler_config c;
    c.suspend = suspension::none;
    c.migrate = migration::none;
    c.in_vms = false;
    return c;
  }
  /// NOVM-SR: suspension and migration without VMs.
  [[nodiscard]] static scheduler_config novm_sr() {
    scheduler_config c;
    c.in_vms = false;
    return c;
  }
  /// VM-PREDEPLOY: the defaults.
  [[nodiscard]] static scheduler_config vm_predeploy() { return {}; }

  /// This configuration with every choice of Haizea's own code (above) made as Haizea made it:
  /// the same as with_haizea(haizea_preset::tests), the later code behind Haizea's test
  /// scenarios.
  [[nodiscard]] scheduler_config with_haizea_choices() const {
    return with_haizea(haizea_preset::tests);
  }

  /// This configuration with Haizea's own choices as one version of its code made them
  /// (haizea_preset above). The rates, the slowdown and the boot + shutdown time are left as
  /// they are: they are the cluster's, not the code's. Throws invalid_request for a value that
  /// names no preset.
  [[nodiscard]] scheduler_config with_haizea(haizea_preset preset) const {
    if (preset != haizea_preset::hpdc08 && preset != haizea_preset::tests)
      throw invalid_request(leasehold::detail::describe("scheduler_config::with_haizea: ", preset,
                                                        " is not a preset (hpdc08 or tests)"));
    scheduler_config c = *this;
    c.stretch_reservations = true;
    c.replan = replanning::slide_back;
    c.migration_booking = migration_step::transfer_first;
    switch (preset) {
      case haizea_preset::tests:
        c.overhead_per_vm = true;
        c.reservation_overhead_inside = true;
        c.shutdown_after_early_end = false;
        break;
      case haizea_preset::hpdc08:
        // The boot + shutdown time is added once per lease to both its requested and its
        // real duration, and to an advance reservation after its stretched duration: once
        // per lease, after the run, held after an early end too.
        c.overhead_per_vm = false;
        c.reservation_overhead_inside = false;
        c.shutdown_after_early_end = true;
        c.stretch_rounds_up = true;
        c.reservation_held_until_end = true;
        c.suspend_thresholds_per_state = true;
        break;
    }
    return c;
  }
};

namespace detail {
/// Seconds, rounded up, to move `mb` megabytes at `rate` MB/s.
template <time_value T>
[[nodiscard]] T transfer_time(std::int64_t mb, double rate) {
  if (mb <= 0) return T{0};
  return static_cast<T>(std::ceil(static_cast<double>(mb) / rate));
}
}  // namespace detail

}  // namespace leasehold::policy::lease
