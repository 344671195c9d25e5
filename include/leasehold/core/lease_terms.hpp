#pragma once

/// \file
/// What a user asks of the Haizea lease scheduler (Sotomayor, Keahey & Foster, "Combining
/// Batch Execution and Leasing Using Virtual Machines", §2): a lease, not a job, is the unit
/// of provisioning. Workload readers and generators (sim/workload) produce these, the lease
/// scheduler (policy/lease) consumes them, io writes them: vocabulary shared by three layers,
/// so it lives in core/ beside `request`, and a workload depends on what a lease is, not on the
/// policy that schedules it. policy/lease/lease_terms.hpp, the include path users know, brings
/// these names into leasehold::policy::lease as well.

#include <array>
#include <concepts>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <ostream>
#include <string>

#include "leasehold/core/capacity.hpp"
#include "leasehold/core/detail/enum_name.hpp"
#include "leasehold/core/time.hpp"

namespace leasehold {

/// The per-node resource vector of Haizea's slot table, the default of every lease type.
/// Any resources<N, V> works (a cluster with GPUs, or with licences): resource_layout names
/// the components the VM model must know.
using node_resources = resources<4, std::int64_t>;

/// Component indices of node_resources. In a namespace of their own, not in `leasehold`:
/// names as common as `cpu` in the root namespace would make a user's own `cpu()` ambiguous
/// under `using namespace leasehold`. The lease policy's users find them as
/// leasehold::policy::lease::cpu (policy/lease/lease_terms.hpp).
namespace node_component {
inline constexpr std::size_t cpu = 0;           ///< CPUs (or CPU share units)
inline constexpr std::size_t memory_mb = 1;     ///< memory, MB
inline constexpr std::size_t disk_mb = 2;       ///< disk, MB
inline constexpr std::size_t network_mbps = 3;  ///< network bandwidth, MB/s
}  // namespace node_component

/// Which components of a node's resource vector the lease model reads (Haizea §3.1-3.2):
/// memory, because suspending, resuming and migrating a VM move its memory (m MB); disk,
/// because a preemptible lease also books room for its memory state file (m MB of disk). A
/// vector without a disk component sets `disk` to nullopt (no room is booked). The other
/// components (CPUs, GPUs, licences, bandwidth) are only capacities to fit.
struct resource_layout {
  std::size_t memory = node_component::memory_mb;  ///< Index of the memory component (MB).
  std::optional<std::size_t> disk =
      node_component::disk_mb;  ///< Index of the disk component (MB), if any.

  /// Equal when both indices are equal.
  friend bool operator==(const resource_layout&, const resource_layout&) = default;
};

namespace detail {
/// What a lease asks per node unless told: Haizea's one CPU and 1 GB; nothing for other vectors.
template <vector_capacity C>
[[nodiscard]] constexpr C default_per_node() noexcept {
  if constexpr (std::same_as<C, node_resources>)
    return node_resources{1, 1024, 0, 0};
  else
    return C{};
}
}  // namespace detail

/// The three kinds of lease of Haizea (Sotomayor et al. §2), which the scheduler admits and
/// plans differently.
enum class lease_kind {
  advance_reservation,  ///< must start at `start` (or inside `start_window`), or be rejected
  best_effort,          ///< queued, runs as soon as resources allow
  immediate,            ///< now or never
};

/// Writes the kind as the paper names it: "advance reservation", "best-effort", "immediate".
inline std::ostream& operator<<(std::ostream& out, lease_kind kind) {
  return detail::write_enum_name(out, kind,
                                 std::array{"advance reservation", "best-effort", "immediate"},
                                 "unknown lease kind");
}

/// The disk image a lease's VMs boot from.
struct disk_image {
  std::string id;            ///< Names the image: leases with the same id share one transfer.
  std::int64_t size_mb = 0;  ///< Its size, which sets the transfer time over the network.

  /// Equal when id and size are equal.
  friend bool operator==(const disk_image&, const disk_image&) = default;
};

/// One lease as the user asks for it: what, how many nodes, how long, when. The scheduler
/// checks the terms on submit and throws invalid_request for impossible ones (no nodes, a
/// duration that is not positive, a real duration above the duration, an advance reservation
/// without a start).
template <time_value T = std::int64_t, vector_capacity C = node_resources>
struct lease_terms {
  using capacity_type = C;  ///< The per-node resource vector.

  std::uint64_t id = 0;  ///< The user's identifier, unique among the leases submitted.
  T submit{};            ///< arrival time
  lease_kind kind = lease_kind::best_effort;  ///< How it is admitted and planned.
  std::optional<T> start;                     ///< advance reservations: the requested start
  std::optional<interval<T>> start_window;    ///< advance reservations: a window of starts instead
  std::int64_t nodes = 1;                     ///< VMs, one per node (gang)
  /// What each of the lease's VMs needs on its node (one CPU and 1 GB by default).
  C per_node = detail::default_per_node<C>();
  T duration{};                     ///< the maximum duration the user asked for
  T real_duration{};                ///< how long it really runs (simulation); <= duration
  bool preemptible = true;          ///< best-effort leases are; advance reservations are not
  std::optional<disk_image> image;  ///< nullopt: images are predeployed
  /// Absolute time at which the user withdraws a best-effort lease that has not started by
  /// then (the Blue Horizon jobs cancelled while waiting: submit + wait, see
  /// docs/workloads.md); nullopt: the user waits as long as it takes.
  std::optional<T> withdraw;
  /// A best-effort lease that only waits: it sits in the queue (queue() lists it) but is never
  /// planned, so it neither starts, nor holds a reservation, nor blocks the head under
  /// backfilling::off; it leaves at `withdraw`. This is how the paper-era Haizea treated the
  /// Blue Horizon jobs cancelled while waiting: none of them ever started
  /// (../shared/haizea-workloads/README.md; workload::cancelled_policy::queue_until_wait).
  bool hold_in_queue = false;

  /// Equal when every term is equal.
  friend bool operator==(const lease_terms&, const lease_terms&) = default;
};

}  // namespace leasehold
