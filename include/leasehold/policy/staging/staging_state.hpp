#pragma once

/// \file
/// Image staging's state as plain values: the transfers it books, its counts, and everything
/// image_staging::export_state() hands out and image_staging::import_state() rebuilds a
/// staging step from (lease checkpoints save it with the scheduler: io/lease_checkpoint.hpp).

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <map>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "leasehold/core/time.hpp"
#include "leasehold/policy/lease/observer.hpp"
#include "leasehold/policy/staging/config.hpp"
#include "leasehold/policy/staging/image_cache.hpp"

namespace leasehold::policy::staging {

/// One booked transfer of an image from the repository to one or more nodes.
template <time_value T = std::int64_t>
struct image_transfer {
  /// A lease that waits for the transfer.
  struct user {
    /// The lease's start: the image must be there by then.
    T start{};
    /// The lease cannot be preempted (an advance reservation).
    bool protected_ = false;

    /// Equal when both fields are equal.
    friend bool operator==(const user&, const user&) = default;
  };
  /// The transfer's id, from 1 in booking order.
  std::uint64_t id = 0;
  /// The image sent.
  std::string image;
  /// Its size, MB.
  std::int64_t size_mb = 0;
  /// When the link is booked for it.
  interval<T> span{};
  std::vector<std::size_t> nodes;  ///< destinations
  bool deadline_driven = false;    ///< EDF-placed (an advance reservation's); moves until it starts
  /// Announced to the lease observer as started (take_transfer_events).
  bool announced = false;
  std::map<std::pair<std::uint64_t, std::size_t>, user> users;  ///< (lease, node) it serves

  /// The earliest start among its users: the transfer must end by then.
  [[nodiscard]] T deadline() const {
    T d = forever<T>;
    for (const auto& [key, u] : users) d = std::min(d, u.start);
    return d;
  }
  /// True when an advance reservation waits for it, so it may not move.
  [[nodiscard]] bool is_protected() const {
    return std::ranges::any_of(users, [](const auto& kv) { return kv.second.protected_; });
  }

  /// Equal when every field is equal.
  friend bool operator==(const image_transfer&, const image_transfer&) = default;
};

/// What image staging counted over a run.
struct staging_stats {
  std::size_t cache_hits = 0;       ///< a lease found its image complete on the node
  std::size_t cache_misses = 0;     ///< a transfer was booked for it
  std::size_t piggybacks = 0;       ///< it used an image still arriving for another lease
  std::size_t transfers = 0;        ///< transfers that started (a multicast counts once)
  std::int64_t mb_transferred = 0;  ///< MB sent by the repository
  std::int64_t mb_delivered = 0;    ///< MB written to node caches (per destination)

  /// Equal when every count is equal.
  friend bool operator==(const staging_stats&, const staging_stats&) = default;
};

/// What prepare booked for one lease: the images it holds a reference to on which nodes, and
/// how it found them (counted once the lease has begun).
template <time_value T = std::int64_t>
struct staging_hold {
  /// The lease.
  std::uint64_t lease = 0;
  T start{};                      ///< the lease's start
  std::string key;                ///< the image's cache key (its id, or a private copy's)
  std::vector<std::size_t> refs;  ///< nodes where the lease holds a reference to `key`
  /// Nodes where the image was already cached.
  std::size_t hits = 0;
  /// Nodes that needed a transfer of their own.
  std::size_t misses = 0;
  /// Nodes that used an image still arriving for another lease.
  std::size_t piggybacks = 0;

  /// Equal when every field is equal.
  friend bool operator==(const staging_hold&, const staging_hold&) = default;
};

/// Everything an image_staging<Link> holds, by value. The link's profile is in kB/s (its
/// total is the bandwidth); caches are given by their entries and their use counters.
template <class Link>
struct image_staging_state {
  /// The link profile's time type.
  using time_type = typename Link::time_type;

  /// The staging configuration.
  staging_config config;
  /// The staging step's clock.
  time_type now{};
  Link link;  ///< the repository link's profile
  std::vector<std::map<std::string, cache_entry<time_type>>> caches;  ///< per node, by key
  std::vector<std::uint64_t> cache_clocks;           ///< per node: the LRU stamp counter
  std::map<std::string, std::int64_t> images;        ///< known images: id -> MB
  std::vector<image_transfer<time_type>> transfers;  ///< booked, not over, by id
  std::vector<image_transfer<time_type>> finished;   ///< over, in the order they ended
  /// (node, cache key, transfer id): images on their way to a node, and through which transfer.
  std::vector<std::tuple<std::size_t, std::string, std::uint64_t>> incoming;
  std::vector<staging_hold<time_type>> holds;  ///< by lease id
  staging_stats stats;                         ///< counts of transfers over and leases ended
  /// The id the next transfer gets.
  std::uint64_t next_transfer_id = 1;
  /// The EDF order of the next new transfer: after every transfer id (image_staging's).
  std::uint64_t next_order = std::uint64_t{1} << 62;
  /// Transfers announced at their first instant, as announced (take_transfer_events).
  std::vector<lease::transfer_notice<time_type>> tentative;
};

}  // namespace leasehold::policy::staging
