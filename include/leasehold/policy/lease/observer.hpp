#pragma once

/// \file
/// The execution-manager events of Haizea §3.3, as an observer the lease scheduler calls:
/// lease ready (resources provisioned), suspended, resumed, ended (released) and rejected
/// with a reason, plus requeued (a preempted lease cancelled without suspension, as in
/// NOVM-NOSR). Every call carries the simulated or real time at which it happens. A resumed
/// segment also announces its phases, so that an embedding service can enact them without
/// reading segment records: the migration (from which nodes to which, over which span) and the
/// resume proper. With a preparation step that transfers images (image staging), the observer
/// also hears when each transfer starts and when it has ended.

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "leasehold/core/time.hpp"

namespace leasehold::policy::lease {

/// One transfer of a disk image from the repository to nodes, as the preparation step booked
/// it (Haizea §3.2: image staging as a reservation of its own).
template <time_value T = std::int64_t>
struct transfer_notice {
  std::uint64_t transfer = 0;  ///< the preparation step's id for it
  /// The image sent.
  std::string image;
  /// Its size, MB.
  std::int64_t size_mb = 0;
  std::vector<std::size_t> nodes;     ///< destinations
  interval<T> span{};                 ///< when it uses the link
  std::vector<std::uint64_t> leases;  ///< the leases it serves, in increasing id order

  /// Equal when every field is equal.
  friend bool operator==(const transfer_notice&, const transfer_notice&) = default;
};

/// Hooks the scheduler calls as leases change state (set_observer); every hook does nothing
/// by default, so an observer overrides only those it needs. Hooks run inside the scheduler's
/// call and must not call back into it.
template <time_value T = std::int64_t>
class lease_observer {
 public:
  lease_observer() = default;
  /// Copyable, so that a derived observer can be.
  lease_observer(const lease_observer&) = default;
  /// Copyable, so that a derived observer can be.
  lease_observer& operator=(const lease_observer&) = default;
  virtual ~lease_observer() = default;

  /// The lease's first segment begins: its VMs are provisioned on `nodes`.
  virtual void on_ready(std::uint64_t /*id*/, T /*at*/, std::span<const std::size_t> /*nodes*/) {}
  /// The lease's VMs have finished suspending; its remainder waits in the queue.
  virtual void on_suspended(std::uint64_t /*id*/, T /*at*/) {}
  /// A later segment begins on `nodes` (the same ones, or others after a migration).
  virtual void on_resumed(std::uint64_t /*id*/, T /*at*/, std::span<const std::size_t> /*nodes*/) {}
  /// A resumed segment that migrates begins at `at`: the lease's memory state and image
  /// instance move from `from` (where it was suspended) to `to` over `transfer` (§3.1,
  /// (s_I + m) / B); the resume on `to` follows when the transfer ends.
  virtual void on_migrated(std::uint64_t /*id*/, T /*at*/, std::span<const std::size_t> /*from*/,
                           std::span<const std::size_t> /*to*/, interval<T> /*transfer*/) {}
  /// The resume proper of a resumed segment, on `nodes` over `span` (m / H_r), announced when
  /// the segment begins (with on_resumed); the lease computes again from span.end.
  virtual void on_resuming(std::uint64_t /*id*/, std::span<const std::size_t> /*nodes*/,
                           interval<T> /*span*/) {}
  /// The lease is over: its work is done or its maximum duration is used up.
  virtual void on_ended(std::uint64_t /*id*/, T /*at*/) {}
  /// The lease will never run.
  virtual void on_rejected(std::uint64_t /*id*/, T /*at*/, std::string_view /*reason*/) {}
  /// Preempted without suspension: cancelled, its work lost, and queued again.
  virtual void on_requeued(std::uint64_t /*id*/, T /*at*/) {}
  /// An image transfer starts at transfer.span.begin. A transfer not yet started may still move
  /// or be dropped as leases are planned again, so it is announced only when the scheduler's
  /// clock reaches its start, and is fixed once the clock has passed it.
  virtual void on_transfer_started(const transfer_notice<T>& /*transfer*/) {}
  /// A transfer announced at the current instant was taken back by a later call at the same
  /// instant (its lease was planned again): `transfer` is as it was announced. If it still
  /// starts now, on_transfer_started follows with its new span or nodes.
  virtual void on_transfer_withdrawn(const transfer_notice<T>& /*transfer*/) {}
  /// The transfer has ended at transfer.span.end: the image is on its nodes.
  virtual void on_transfer_finished(const transfer_notice<T>& /*transfer*/) {}
};

}  // namespace leasehold::policy::lease
