#pragma once

/// \file
/// The knobs of image staging, as one plain aggregate with Haizea's values as defaults
/// (Sotomayor, Keahey & Foster, §3.1-§3.2 and §4.3), plus Table 1's staging configurations.

#include <cstdint>
#include <ostream>
#include <string>

#include "leasehold/core/error.hpp"
#include "leasehold/policy/staging/image_cache.hpp"

namespace leasehold::policy::staging {

/// §3.1: "When transferring a disk image to multiple nodes, we use multicasting and model the
/// transfer time as s_I / B"; unicast sends one copy per node, back to back.
enum class transfer_mechanism { multicast, unicast };

/// Where a deadline-driven transfer (an advance reservation's, deadline = its start) goes
/// among the link's free time:
///  - as_late_as_possible: Haizea's EDF modified "so that transfers take place as close as
///    possible to the deadline, preventing images from unnecessarily consuming disk space"
///    (§3.2);
///  - as_early_as_possible: Overhead Matters' Hybrid (§4.2.1): a transfer may start when the
///    workspace is accepted, transfers are ordered by deadline and use idle network time.
enum class deadline_placement { as_late_as_possible, as_early_as_possible };

/// How a best-effort lease rides on transfers booked for other leases, instead of booking one
/// of its own. §3.2: the scheduler checks "the time when the required disk image can be made
/// available on the node (by using a cached image, by piggybacking on a scheduled multicast,
/// or by scheduling a separate transfer)".
///  - same_node: only where the image is already on its way to that very node (with reuse;
///    without reuse every lease's copy is its own, so never);
///  - join_multicast: besides, any best-effort multicast of the same image that has not
///    started takes the lease's other nodes as further destinations, at no link time: the
///    lease can start on any nodes when it ends (the earliest-ending one). This is what
///    Haizea's paper-era code does with its avoid-redundant-transfers option
///    (scheduler.py, findEarliestStartingTimes: every node may ride on a best-effort
///    transfer of the image not yet started), with or without reuse; docs/staging.md.
///    Advance reservations' deadline-driven transfers are not joined (they move until they
///    start), nor are unicasts (a copy sent to one node reaches no other).
enum class piggybacking { same_node, join_multicast };

/// Writes "multicast" or "unicast".
inline std::ostream& operator<<(std::ostream& out, transfer_mechanism m) {
  return out << (m == transfer_mechanism::multicast ? "multicast" : "unicast");
}
/// Writes the placement's name.
inline std::ostream& operator<<(std::ostream& out, deadline_placement p) {
  return out << (p == deadline_placement::as_late_as_possible ? "as late as possible"
                                                              : "as early as possible");
}
/// Writes the piggybacking rule's name.
inline std::ostream& operator<<(std::ostream& out, piggybacking p) {
  return out << (p == piggybacking::same_node ? "same node" : "join multicast");
}

/// A lease names an image the staging policy was never told about.
struct unknown_image : invalid_request {
  using invalid_request::invalid_request;
};

/// The knobs of image staging, Haizea's values by default (§3.1-§3.2, §4.3).
struct staging_config {
  double bandwidth_mb_s = 10.0;       ///< B: 100 Mb/s Ethernet, conservatively 10 MB/s (§4.3)
  std::int64_t cache_mb = 20 * 1024;  ///< D_p: 20 GB of each node's 40 GB disk (§4.3)
  /// true: images stay cached on the nodes and are reused (VM-REUSE-*); false: every lease
  /// gets its own copy, discarded when the lease ends (VM-MULT, "images are not reused").
  bool reuse = true;
  /// How unreferenced cached images are evicted.
  eviction_policy eviction = eviction_policy::lru;
  /// One transfer to every node of a lease, or one per node.
  transfer_mechanism mechanism = transfer_mechanism::multicast;
  /// Where an advance reservation's transfer goes: as late or as early as the link allows.
  deadline_placement deadline_transfers = deadline_placement::as_late_as_possible;
  piggybacking piggyback = piggybacking::same_node;  ///< for best-effort leases

  /// Table 1 (§4.4): VM-MULT and VM-REUSE-UNIFORM / VM-REUSE-SKEWED (the image lists differ,
  /// not the staging).
  [[nodiscard]] static staging_config vm_mult() {
    staging_config c;
    c.reuse = false;
    return c;
  }
  /// Table 1's VM-REUSE staging: the defaults.
  [[nodiscard]] static staging_config vm_reuse() { return {}; }
};

}  // namespace leasehold::policy::staging
