#pragma once

/// \file
/// policy::staging::workspace_deployer: the decisions of Sotomayor, Keahey & Foster, "Overhead
/// Matters: A Model for Virtual Resource Management" (§4.2.2, §5.3) for ASAP virtual
/// workspaces on a small cluster (nodes with a few VM slots each) whose nodes keep image
/// templates in a cache: which nodes a workspace gets, and how each of its images reaches its
/// node. It owns no clock and no link: the caller (sim::run_workspaces in
/// sim/workspace_simulation.hpp, or an embedding scheduler) tells it what happened and when,
/// starts the transfers it asks for on whatever link it models, and tells it when each one
/// is delivered. (Advance-reservation workspaces and the staging strategies JIT / Aggressive /
/// Hybrid are the lease scheduler's preparation steps: naive_staging.hpp and image_staging.hpp.)
///
///  - Workspaces wait in FIFO order for n nodes with a free slot, as the paper's SGE
///    dispatcher did; the head of the queue blocks those behind it. Among the nodes with a
///    free slot, those holding the image in their cache come first, then the less busy node
///    (fewer VMs running: instances spread over the nodes), then the lower index.
///  - With a cache (§4.2.2), a node keeps image templates (LFU or LRU, reference counted by the
///    workspaces using them): a hit costs only the local copy of the template, a miss the
///    transfer and the copy; a second instance of a template still arriving on a node waits
///    for that transfer (a redundant transfer avoided, counted neither as hit nor miss). When
///    templates in use leave no room, the instance is transferred straight to the node's
///    working space (counted as a miss). Without a cache every instance is transferred
///    straight to the node's working space.
///
/// Deployment time (§5.2-5.3) is, per image deployed, from the decision to deploy it on the
/// node to the moment the instance is ready there. Times are doubles because a link shared
/// as processor sharing (shared_link.hpp) delivers between ticks; every call takes its time
/// from the caller.

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <deque>
#include <limits>
#include <map>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "leasehold/core/detail/checks.hpp"
#include "leasehold/core/error.hpp"
#include "leasehold/core/time.hpp"
#include "leasehold/policy/staging/config.hpp"
#include "leasehold/policy/staging/image_cache.hpp"

namespace leasehold::policy::staging {

/// An ASAP virtual workspace: `nodes` VMs of `image` for `duration`, submitted at `submit`.
template <time_value T = std::int64_t>
struct workspace {
  /// Its identifier.
  std::uint64_t id = 0;
  /// When it is submitted.
  T submit{};
  /// How long it runs once ready.
  T duration{};
  /// How many VMs (slots), one image each.
  std::size_t nodes = 1;
  /// The image its VMs boot from.
  std::string image;
};

/// The testbed. `bandwidth_mb_s` is the repository link's rate, read by whoever models the
/// link (sim::run_workspaces); the deployer itself only asks for transfers.
struct workspace_config {
  std::size_t nodes = 8;         ///< §5: eight nodes for VM deployment
  std::size_t vms_per_node = 2;  ///< §5: "at most 2 VMs to be deployed to a single physical node"
  double bandwidth_mb_s = 12.5;  ///< 100 Mb/s switched Ethernet
  std::int64_t cache_mb = 0;     ///< per node; 0: no cache
  /// How unreferenced templates are evicted.
  eviction_policy eviction = eviction_policy::lfu;
  double local_copy_mb_s = 0.0;  ///< template -> instance copy on a node with a cache; 0: free
};

/// What a workspace_deployer counted over a run.
struct workspace_summary {
  std::size_t accepted = 0;  ///< workspaces dispatched
  /// Images found in a node's cache.
  std::size_t cache_hits = 0;
  /// Images that needed a transfer.
  std::size_t cache_misses = 0;
  /// Transfers saved by sending an image once for several VMs of a node.
  std::size_t redundant_avoided = 0;
  std::size_t deployments = 0;  ///< hits + misses (+ transfers without a cache)
  /// Mean time from dispatch to ready over the deployments.
  double mean_deploy_time = 0.0;
  /// MB sent by the repository.
  double mb_transferred = 0.0;
  double makespan = 0.0;  ///< the latest end reported to the deployer
};

/// A transfer the caller must start now: `size_mb` of `image` from the repository to `node`.
/// Report its delivery with workspace_deployer::delivered(id, at).
struct workspace_transfer {
  /// The transfer's id, for delivered().
  std::uint64_t id = 0;
  /// The image to send.
  std::string image;
  /// Its size, MB.
  std::int64_t size_mb = 0;
  /// The destination node.
  std::size_t node = 0;
};

/// A workspace all of whose images are ready on its nodes, at `at` (the latest of them): it
/// can run from then.
struct workspace_ready {
  /// The workspace.
  std::uint64_t workspace = 0;
  /// When it is ready.
  double at = 0.0;
};

/// A workspace leaving the queue and the nodes it got.
struct dispatched_workspace {
  /// The workspace.
  std::uint64_t workspace = 0;
  std::vector<std::size_t> nodes;  ///< ascending
};

/// What one dispatch decided, each list in the order it happened.
struct workspace_dispatch_outcome {
  std::vector<dispatched_workspace> dispatched;  ///< the workspaces leaving the queue
  std::vector<workspace_transfer> transfers;     ///< to start now
  std::vector<workspace_ready> ready;            ///< ready without waiting for a transfer (hits)
};

/// The deployment decisions of Overhead Matters §4.2.2 for ASAP workspaces on nodes with VM
/// slots and template caches: which nodes a workspace gets and which transfers its images
/// need (see the file's description); the caller owns the clock and the link.
template <time_value T = std::int64_t>
class workspace_deployer {
 public:
  /// A workspace request.
  using workspace_type = workspace<T>;

  /// `images`: each image's size in MB. Throws invalid_request for a cluster without nodes or
  /// slots, a negative or non-finite local copy rate, an image of non-positive size or larger
  /// than the cache.
  workspace_deployer(std::map<std::string, std::int64_t> images, const workspace_config& config)
      : images_((check_config(images, config), std::move(images))),
        config_(config),
        free_slots_(config.nodes, config.vms_per_node) {
    if (config.cache_mb > 0)
      caches_.assign(config.nodes, image_cache<T>(config.cache_mb, config.eviction));
  }

  /// Throws, naming the workspace, what submit() would: unknown_image for an image not given
  /// to the constructor; invalid_request for no nodes, more nodes than the cluster has, or a
  /// non-positive duration.
  void check(const workspace_type& w) const {
    using leasehold::detail::describe;
    if (!images_.contains(w.image))
      throw unknown_image(describe("workspace ", w.id, ": image ", w.image, " is unknown"));
    if (w.nodes == 0 || w.nodes > config_.nodes)
      throw invalid_request(
          describe("workspace ", w.id, ": ", w.nodes, " nodes on a cluster of ", config_.nodes));
    if (w.duration <= 0)
      throw invalid_request(
          describe("workspace ", w.id, ": duration ", w.duration, " must be positive"));
  }

  /// Queues a workspace (FIFO) until dispatch() finds it nodes. Throws as check() does, and
  /// invalid_request for an id already queued or running; nothing is queued then.
  void submit(const workspace_type& w) {
    check(w);
    const bool queued = std::ranges::any_of(queue_, [&](const auto& q) { return q.id == w.id; });
    if (queued || running_.contains(w.id))
      throw invalid_request(leasehold::detail::describe("workspace_deployer::submit: workspace ",
                                                        w.id, " is already ",
                                                        queued ? "queued" : "running"));
    queue_.push_back(w);
  }

  /// Dispatches, at `at`, the queued workspaces in FIFO order while the head finds n nodes with
  /// a free slot. Throws invalid_request for a time that is not a finite number, changing
  /// nothing.
  workspace_dispatch_outcome dispatch(double at) {
    check_time("dispatch", at);
    workspace_dispatch_outcome out;
    while (!queue_.empty()) {
      const workspace_type& w = queue_.front();
      std::vector<std::tuple<int, std::size_t, std::size_t>> candidates;  // cached?, busy, node
      for (std::size_t node = 0; node < config_.nodes; ++node)
        if (free_slots_[node] > 0)
          candidates.emplace_back(has_image(node, w.image) ? 0 : 1,
                                  config_.vms_per_node - free_slots_[node], node);
      if (candidates.size() < w.nodes) break;
      std::ranges::sort(candidates);
      running r;
      r.w = w;
      for (std::size_t k = 0; k < w.nodes; ++k) r.nodes.push_back(std::get<2>(candidates[k]));
      std::ranges::sort(r.nodes);
      r.pending = w.nodes;
      queue_.pop_front();
      ++summary_.accepted;
      for (std::size_t node : r.nodes) --free_slots_[node];
      const std::uint64_t id = r.w.id;
      running& placed = running_.emplace(id, std::move(r)).first->second;
      out.dispatched.push_back({id, placed.nodes});
      for (std::size_t node : placed.nodes) deploy(placed, node, at, out);
    }
    return out;
  }

  /// Transfer `transfer` (from a workspace_dispatch_outcome) is complete at `at`: its image is
  /// ready there after the local copy when it landed in the cache. Returns the workspaces now
  /// ready, in order. Throws invalid_request, changing nothing, for a transfer not in progress or a
  /// time that is not a finite number no earlier than the transfer's start.
  std::vector<workspace_ready> delivered(std::uint64_t transfer, double at) {
    using leasehold::detail::describe;
    check_time("delivered", at);
    const auto it =
        find_or_throw(transfers_, transfer, "delivered: transfer ", " is not in progress");
    if (at < it->second.started)
      throw invalid_request(describe("workspace_deployer::delivered: transfer ", transfer,
                                     " delivered at ", at, ", before its start at ",
                                     it->second.started));
    const in_flight tr = std::move(it->second);
    transfers_.erase(it);
    if (tr.cached) incoming_.erase({tr.node, tr.image});
    const double copy = tr.cached ? copy_time(tr.size_mb) : 0.0;
    std::vector<workspace_ready> ready;
    for (const auto& dep : tr.waiting)
      node_ready(running_.at(dep.workspace), at + copy, dep.decided, dep.counted, ready);
    return ready;
  }

  /// Workspace `workspace` ended at `at`: its slots are free and its templates unreferenced
  /// (call dispatch() next). Throws invalid_request, changing nothing, for a workspace not
  /// running, one whose images are not all ready, or a time that is not a finite number no
  /// earlier than its images were ready.
  void ended(std::uint64_t workspace, double at) {
    using leasehold::detail::describe;
    check_time("ended", at);
    const auto it = find_or_throw(running_, workspace, "ended: workspace ", " is not running");
    const running& r = it->second;
    if (r.pending > 0)
      throw invalid_request(describe("workspace_deployer::ended: workspace ", workspace,
                                     " still waits for ", r.pending, " of its images"));
    if (at < r.ready)
      throw invalid_request(describe("workspace_deployer::ended: workspace ", workspace,
                                     " ended at ", at, ", before it was ready at ", r.ready));
    for (std::size_t node : r.cached_nodes) caches_[node].release(r.w.image);
    for (std::size_t node : r.nodes) ++free_slots_[node];
    summary_.makespan = std::max(summary_.makespan, at);
    running_.erase(it);
  }

  /// The counts so far, mean deploy time computed.
  [[nodiscard]] workspace_summary summary() const {
    workspace_summary s = summary_;
    if (s.deployments > 0) s.mean_deploy_time = deploy_time_ / static_cast<double>(s.deployments);
    return s;
  }
  /// Its configuration.
  [[nodiscard]] const workspace_config& config() const noexcept { return config_; }
  /// Workspaces waiting for slots.
  [[nodiscard]] std::size_t queued() const noexcept { return queue_.size(); }
  /// Workspaces running.
  [[nodiscard]] std::size_t running_count() const noexcept { return running_.size(); }
  /// Transfers asked for and not yet delivered.
  [[nodiscard]] std::size_t transfers_in_progress() const noexcept { return transfers_.size(); }
  /// Free VM slots on `node`; std::out_of_range for a node out of range.
  [[nodiscard]] std::size_t free_slots(std::size_t node) const { return free_slots_.at(node); }
  /// The node's template cache; nullptr without caches.
  [[nodiscard]] const image_cache<T>* cache(std::size_t node) const {
    return caches_.empty() ? nullptr : &caches_.at(node);
  }

 private:
  struct waiting_deployment {
    std::uint64_t workspace;
    std::size_t node;
    double decided;
    bool counted;  // a hit or a miss (not a redundant transfer avoided)
  };
  struct in_flight {
    std::string image;
    std::int64_t size_mb = 0;
    std::size_t node = 0;
    double started = 0.0;
    bool cached = false;  // lands in the node's cache (else straight to an instance)
    std::vector<waiting_deployment> waiting;
  };
  struct running {
    workspace_type w;
    std::vector<std::size_t> nodes;
    std::vector<std::size_t> cached_nodes;  // where it holds a reference on the template
    std::size_t pending = 0;                // images not ready yet
    double ready = -std::numeric_limits<double>::infinity();
  };

  static void check_config(const std::map<std::string, std::int64_t>& images,
                           const workspace_config& c) {
    using leasehold::detail::describe;
    if (c.nodes == 0 || c.vms_per_node == 0)
      throw invalid_request(describe("workspace_deployer: ", c.nodes, " nodes x ", c.vms_per_node,
                                     " VM slots; both must be positive"));
    if (!std::isfinite(c.local_copy_mb_s) || c.local_copy_mb_s < 0.0)
      throw invalid_request(describe("workspace_deployer: local copy rate ", c.local_copy_mb_s,
                                     " MB/s must be non-negative"));
    for (const auto& [id, size] : images) {
      if (size <= 0)
        throw invalid_request(
            describe("workspace_deployer: image ", id, " has size ", size, " MB"));
      if (c.cache_mb > 0 && size > c.cache_mb)
        throw invalid_request(describe("workspace_deployer: image ", id, " (", size,
                                       " MB) is larger than the cache (", c.cache_mb, " MB)"));
    }
  }

  /// The entry of `id` in `map`, or invalid_request "workspace_deployer::<what> <id> <missing>".
  template <class Map>
  static auto find_or_throw(Map& map, std::uint64_t id, const char* what, const char* missing) {
    const auto it = map.find(id);
    if (it == map.end())
      throw invalid_request(leasehold::detail::describe("workspace_deployer::", what, id, missing));
    return it;
  }

  static void check_time(const char* call, double at) {
    if (!std::isfinite(at))
      throw invalid_request(leasehold::detail::describe("workspace_deployer::", call, ": time ", at,
                                                        " is not a finite number"));
  }

  [[nodiscard]] double copy_time(std::int64_t size_mb) const {
    return config_.local_copy_mb_s > 0.0 ? static_cast<double>(size_mb) / config_.local_copy_mb_s
                                         : 0.0;
  }
  [[nodiscard]] bool has_image(std::size_t node, const std::string& image) const {
    return !caches_.empty() && caches_[node].find(image) != nullptr;
  }

  /// Deploys r's image on `node`: a cache hit, a wait for a transfer already coming (redundant
  /// transfer avoided), a transfer into the cache, or a transfer straight to the working space
  /// (no cache, or templates in use leave no room).
  void deploy(running& r, std::size_t node, double at, workspace_dispatch_outcome& out) {
    const std::string& image = r.w.image;
    const std::int64_t size = images_.at(image);
    if (has_image(node, image)) {
      caches_[node].acquire(image);
      r.cached_nodes.push_back(node);
      const auto in = incoming_.find({node, image});
      if (in != incoming_.end()) {
        ++summary_.redundant_avoided;
        transfers_.at(in->second).waiting.push_back({r.w.id, node, at, false});
      } else {
        ++summary_.cache_hits;
        node_ready(r, at + copy_time(size), at, true, out.ready);
      }
      return;
    }
    const bool cached = !caches_.empty() && caches_[node].can_admit(size);
    const std::uint64_t id = next_transfer_++;
    in_flight tr{image, size, node, at, cached, {{r.w.id, node, at, true}}};
    if (!caches_.empty()) ++summary_.cache_misses;
    if (cached) {
      for (const auto& victim : caches_[node].insert(image, image, size, T{0}))
        incoming_.erase({node, victim});
      caches_[node].acquire(image);
      r.cached_nodes.push_back(node);
      incoming_[{node, image}] = id;
    }
    summary_.mb_transferred += static_cast<double>(size);
    transfers_.emplace(id, std::move(tr));
    out.transfers.push_back({id, image, size, node});
  }

  void node_ready(running& r, double at, double decided, bool counted,
                  std::vector<workspace_ready>& ready) {
    r.ready = std::max(r.ready, at);
    if (counted) {
      ++summary_.deployments;
      deploy_time_ += at - decided;
    }
    if (--r.pending == 0) ready.push_back({r.w.id, r.ready});
  }

  std::map<std::string, std::int64_t> images_;
  workspace_config config_;
  std::vector<std::size_t> free_slots_;
  std::vector<image_cache<T>> caches_;
  std::map<std::pair<std::size_t, std::string>, std::uint64_t> incoming_;  ///< to a cache
  std::map<std::uint64_t, in_flight> transfers_;
  std::uint64_t next_transfer_ = 0;
  std::deque<workspace_type> queue_;
  std::map<std::uint64_t, running> running_;
  workspace_summary summary_;
  double deploy_time_ = 0.0;
};

}  // namespace leasehold::policy::staging
