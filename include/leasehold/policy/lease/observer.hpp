#pragma once

// The execution-manager events of Haizea §3.3, as an observer the lease scheduler calls:
// lease ready (resources provisioned), suspended, resumed, ended (released) and rejected
// with a reason, plus requeued (a preempted lease cancelled without suspension, as in
// NOVM-NOSR). Every call carries the simulated or real time at which it happens. A resumed
// segment also announces its phases, so that an embedding service can enact them without
// reading segment records: the migration (from which nodes to which, over which span) and the
// resume proper.

#include <cstddef>
#include <cstdint>
#include <span>
#include <string_view>

#include "leasehold/core/time.hpp"

namespace leasehold::policy::lease {

template <time_value T = std::int64_t>
class lease_observer {
 public:
  lease_observer() = default;
  lease_observer(const lease_observer&) = default;
  lease_observer& operator=(const lease_observer&) = default;
  virtual ~lease_observer() = default;

  // The lease's first segment begins: its VMs are provisioned on `nodes`.
  virtual void on_ready(std::uint64_t /*id*/, T /*at*/, std::span<const std::size_t> /*nodes*/) {}
  // The lease's VMs have finished suspending; its remainder waits in the queue.
  virtual void on_suspended(std::uint64_t /*id*/, T /*at*/) {}
  // A later segment begins on `nodes` (the same ones, or others after a migration).
  virtual void on_resumed(std::uint64_t /*id*/, T /*at*/, std::span<const std::size_t> /*nodes*/) {}
  // A resumed segment that migrates begins at `at`: the lease's memory state and image
  // instance move from `from` (where it was suspended) to `to` over `transfer` (§3.1,
  // (s_I + m) / B); the resume on `to` follows when the transfer ends.
  virtual void on_migrated(std::uint64_t /*id*/, T /*at*/, std::span<const std::size_t> /*from*/,
                           std::span<const std::size_t> /*to*/, interval<T> /*transfer*/) {}
  // The resume proper of a resumed segment, on `nodes` over `span` (m / H_r), announced when
  // the segment begins (with on_resumed); the lease computes again from span.end.
  virtual void on_resuming(std::uint64_t /*id*/, std::span<const std::size_t> /*nodes*/,
                           interval<T> /*span*/) {}
  // The lease is over: its work is done or its maximum duration is used up.
  virtual void on_ended(std::uint64_t /*id*/, T /*at*/) {}
  // The lease will never run.
  virtual void on_rejected(std::uint64_t /*id*/, T /*at*/, std::string_view /*reason*/) {}
  // Preempted without suspension: cancelled, its work lost, and queued again.
  virtual void on_requeued(std::uint64_t /*id*/, T /*at*/) {}
};

}  // namespace leasehold::policy::lease
