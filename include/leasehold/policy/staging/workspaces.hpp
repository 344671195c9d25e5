#pragma once

// policy::staging::run_workspaces: the deployment of ASAP virtual workspaces of Sotomayor,
// Keahey & Foster, "Overhead Matters: A Model for Virtual Resource Management" (§4.2.2, §5.3),
// as a discrete-event simulation of a small cluster (nodes with a few VM slots each), an image
// repository behind one link, and per-node image template caches: the cache-size experiment.
// (Advance-reservation workspaces and the staging strategies JIT / Aggressive / Hybrid are the
// lease scheduler's preparation steps: naive_staging.hpp and image_staging.hpp.)
//
//  - Workspaces wait in FIFO order for n nodes with a free slot (as the paper's SGE
//    dispatcher did); their transfers then start at once and share the link as processor
//    sharing (shared_link).
//  - With a cache (§4.2.2), a node keeps image templates (LFU or LRU, reference counted by the
//    workspaces using them): a hit costs only the local copy of the template, a miss the
//    transfer and the copy; a second instance of a template still arriving on a node waits
//    for that transfer (a redundant transfer avoided, counted neither as hit nor miss).
//    Without a cache every instance is transferred straight to the node's working space.
//
// Deployment time (§5.2-5.3) is, per image deployed, from the decision to deploy it on the
// node to the moment the instance is ready there.

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <map>
#include <optional>
#include <queue>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "leasehold/core/detail/checks.hpp"
#include "leasehold/core/error.hpp"
#include "leasehold/core/time.hpp"
#include "leasehold/policy/staging/config.hpp"
#include "leasehold/policy/staging/image_cache.hpp"
#include "leasehold/policy/staging/naive_staging.hpp"
#include "leasehold/policy/staging/shared_link.hpp"

namespace leasehold::policy::staging {

template <time_value T = std::int64_t>
struct workspace {
  std::uint64_t id = 0;
  T submit{};
  T duration{};
  std::size_t nodes = 1;
  std::string image;
};

struct workspace_config {
  std::size_t nodes = 8;         // §5: eight nodes for VM deployment
  std::size_t vms_per_node = 2;  // §5: "at most 2 VMs to be deployed to a single physical node"
  double bandwidth_mb_s = 12.5;  // 100 Mb/s switched Ethernet
  std::int64_t cache_mb = 0;     // per node; 0: no cache
  eviction_policy eviction = eviction_policy::lfu;
  double local_copy_mb_s = 0.0;  // template -> instance copy on a node with a cache; 0: free
};

template <time_value T = std::int64_t>
struct workspace_result {
  std::uint64_t id = 0;
  bool accepted = false;
  std::vector<std::size_t> nodes;
  double dispatched = 0.0;  // when its nodes were chosen
  double ready = 0.0;       // when the last of its images was ready
  double begin = 0.0;       // when it ran: when it was ready
  double end = 0.0;
};

struct workspace_summary {
  std::size_t accepted = 0;
  std::size_t cache_hits = 0;
  std::size_t cache_misses = 0;
  std::size_t redundant_avoided = 0;
  std::size_t deployments = 0;  // hits + misses (+ transfers without a cache)
  double mean_deploy_time = 0.0;
  double mb_transferred = 0.0;
  double makespan = 0.0;
};

template <time_value T = std::int64_t>
struct workspace_report {
  std::vector<workspace_result<T>> workspaces;  // in input order
  workspace_summary summary;
};

namespace detail {

template <time_value T>
class workspace_simulation {
 public:
  workspace_simulation(const std::vector<workspace<T>>& input,
                       const std::map<std::string, std::int64_t>& images, const workspace_config& c)
      : input_(input),
        images_(images),
        c_(c),
        shared_((check(input, images, c), c.bandwidth_mb_s)),
        free_slots_(c.nodes, c.vms_per_node) {
    if (c.cache_mb > 0) caches_.assign(c.nodes, image_cache<T>(c.cache_mb, c.eviction));
    report_.workspaces.resize(input.size());
  }

  workspace_report<T> run() {
    for (std::size_t i = 0; i < input_.size(); ++i)
      push(static_cast<double>(input_[i].submit), submit_event, i);
    while (true) {
      const auto ps = shared_.next_completion();
      if (events_.empty() && !ps) break;
      const double t_event =
          events_.empty() ? std::numeric_limits<double>::infinity() : std::get<0>(events_.top());
      if (ps && *ps <= t_event) {
        for (const auto& [id, at] : shared_.advance_to(*ps)) delivered(id, at);
        continue;
      }
      for (const auto& [id, at] : shared_.advance_to(t_event)) delivered(id, at);
      const auto [at, seq, what, index] = events_.top();
      events_.pop();
      (void)seq;
      now_ = at;
      switch (what) {
        case submit_event:
          on_submit(index);
          break;
        case end_event:
          on_end(index);
          break;
      }
      dispatch();
    }
    summarise();
    return std::move(report_);
  }

 private:
  enum kind : int { end_event = 1, submit_event = 3 };
  struct deployment {
    std::size_t workspace;
    std::size_t node;
    double decided;
    bool counted;  // a hit or a miss (not a redundant transfer avoided)
  };
  struct transfer {
    std::string image;
    std::int64_t size_mb = 0;
    std::size_t node = 0;
    bool cached = false;              // lands in the node's cache (else straight to an instance)
    std::optional<double> done;       // when it completed
    std::vector<deployment> waiting;  // deployments that need it
  };

  static const workspace_config& check(const std::vector<workspace<T>>& input,
                                       const std::map<std::string, std::int64_t>& images,
                                       const workspace_config& c) {
    using leasehold::detail::describe;
    if (c.nodes == 0 || c.vms_per_node == 0)
      throw invalid_request(describe("run_workspaces: ", c.nodes, " nodes x ", c.vms_per_node,
                                     " VM slots; both must be positive"));
    if (!std::isfinite(c.local_copy_mb_s) || c.local_copy_mb_s < 0.0)
      throw invalid_request(describe("run_workspaces: local copy rate ", c.local_copy_mb_s,
                                     " MB/s must be non-negative"));
    for (const auto& [id, size] : images) {
      if (size <= 0)
        throw invalid_request(describe("run_workspaces: image ", id, " has size ", size, " MB"));
      if (c.cache_mb > 0 && size > c.cache_mb)
        throw invalid_request(describe("run_workspaces: image ", id, " (", size,
                                       " MB) is larger than the cache (", c.cache_mb, " MB)"));
    }
    for (const auto& w : input) {
      if (!images.contains(w.image))
        throw unknown_image(describe("workspace ", w.id, ": image ", w.image, " is unknown"));
      if (w.nodes == 0 || w.nodes > c.nodes)
        throw invalid_request(
            describe("workspace ", w.id, ": ", w.nodes, " nodes on a cluster of ", c.nodes));
      if (w.duration <= 0)
        throw invalid_request(
            describe("workspace ", w.id, ": duration ", w.duration, " must be positive"));
    }
    return c;
  }

  void push(double at, kind k, std::size_t index) { events_.emplace(at, seq_++, k, index); }

  [[nodiscard]] double copy_time(std::int64_t size_mb) const {
    return c_.local_copy_mb_s > 0.0 ? static_cast<double>(size_mb) / c_.local_copy_mb_s : 0.0;
  }
  [[nodiscard]] bool has_image(std::size_t node, const std::string& image) const {
    return !caches_.empty() && caches_[node].find(image) != nullptr;
  }

  void on_submit(std::size_t i) {
    const workspace<T>& w = input_[i];
    workspace_result<T>& r = report_.workspaces[i];
    r.id = w.id;
    r.dispatched = now_;
    queue_.push_back(i);
  }

  // ---- deployments -----------------------------------------------------------------------

  // Deploys workspace i's image on `node`: a cache hit, a wait for a transfer already coming
  // (redundant transfer avoided), or a new transfer.
  void deploy(std::size_t i, std::size_t node, bool needs_transfer) {
    const workspace<T>& w = input_[i];
    const std::int64_t size = images_.at(w.image);
    if (!needs_transfer && !caches_.empty()) {
      caches_[node].acquire(w.image);
      const auto in = incoming_.find({node, w.image});
      if (in != incoming_.end()) {
        ++report_.summary.redundant_avoided;
        transfers_.at(in->second).waiting.push_back({i, node, now_, false});
      } else {
        ++report_.summary.cache_hits;
        node_ready(i, node, now_ + copy_time(size), now_, true);
      }
      return;
    }
    const std::size_t id = transfers_.size();
    transfer tr;
    tr.image = w.image;
    tr.size_mb = size;
    tr.node = node;
    tr.cached = !caches_.empty();
    tr.waiting.push_back({i, node, now_, true});
    if (tr.cached) {
      ++report_.summary.cache_misses;
      for (const auto& victim : caches_[node].insert(w.image, w.image, size, T{0}))
        incoming_.erase({node, victim});
      caches_[node].acquire(w.image);
      incoming_[{node, w.image}] = id;
    }
    report_.summary.mb_transferred += static_cast<double>(size);
    transfers_.push_back(std::move(tr));
    shared_.start(id, static_cast<double>(size));
  }

  void delivered(std::size_t id, double at) {
    transfer& tr = transfers_.at(id);
    if (tr.done) return;
    tr.done = at;
    if (tr.cached) incoming_.erase({tr.node, tr.image});
    const double copy = tr.cached ? copy_time(tr.size_mb) : 0.0;
    for (const auto& dep : tr.waiting)
      node_ready(dep.workspace, dep.node, at + copy, dep.decided, dep.counted);
  }

  void node_ready(std::size_t i, std::size_t /*node*/, double at, double decided, bool counted) {
    workspace_result<T>& r = report_.workspaces[i];
    r.ready = std::max(r.ready, at);
    if (counted) {
      ++report_.summary.deployments;
      deploy_time_ += at - decided;
    }
    if (--pending_[i] > 0) return;
    r.begin = r.ready;
    r.end = r.ready + static_cast<double>(input_[i].duration);
    push(r.end, end_event, i);
  }

  void on_end(std::size_t i) {
    const workspace<T>& w = input_[i];
    const workspace_result<T>& r = report_.workspaces[i];
    if (!caches_.empty())
      for (std::size_t node : r.nodes) caches_[node].release(w.image);
    for (std::size_t node : r.nodes) ++free_slots_[node];
    report_.summary.makespan = std::max(report_.summary.makespan, now_);
  }

  // ---- ASAP workspaces: FIFO dispatch when n nodes have a free slot ----------------------

  void dispatch() {
    while (!queue_.empty()) {
      const std::size_t i = queue_.front();
      const workspace<T>& w = input_[i];
      std::vector<std::tuple<int, std::size_t, std::size_t>> candidates;  // image, -free, node
      for (std::size_t node = 0; node < c_.nodes; ++node)
        if (free_slots_[node] > 0)
          candidates.emplace_back(has_image(node, w.image) ? 0 : 1,
                                  c_.vms_per_node - free_slots_[node], node);
      if (candidates.size() < w.nodes) return;
      std::ranges::sort(candidates);
      queue_.erase(queue_.begin());
      workspace_result<T>& r = report_.workspaces[i];
      r.accepted = true;
      r.dispatched = now_;
      ++report_.summary.accepted;
      for (std::size_t k = 0; k < w.nodes; ++k) r.nodes.push_back(std::get<2>(candidates[k]));
      std::ranges::sort(r.nodes);
      pending_[i] = w.nodes;
      for (std::size_t node : r.nodes) --free_slots_[node];
      for (std::size_t node : r.nodes) {
        const bool needs = !has_image(node, w.image);
        if (needs && !caches_.empty() && !caches_[node].can_admit(images_.at(w.image))) {
          // No room in the cache: the instance is transferred straight to the working space.
          deploy_uncached(i, node);
          continue;
        }
        deploy(i, node, needs);
      }
    }
  }

  void deploy_uncached(std::size_t i, std::size_t node) {
    const std::int64_t size = images_.at(input_[i].image);
    const std::size_t id = transfers_.size();
    transfer tr;
    tr.image = input_[i].image;
    tr.size_mb = size;
    tr.node = node;
    tr.waiting.push_back({i, node, now_, true});
    transfers_.push_back(std::move(tr));
    ++report_.summary.cache_misses;
    report_.summary.mb_transferred += static_cast<double>(size);
    shared_.start(id, static_cast<double>(size));
  }

  void summarise() {
    workspace_summary& s = report_.summary;
    if (s.deployments > 0) s.mean_deploy_time = deploy_time_ / static_cast<double>(s.deployments);
  }

  const std::vector<workspace<T>>& input_;
  const std::map<std::string, std::int64_t>& images_;
  workspace_config c_;
  shared_link shared_;
  std::vector<std::size_t> free_slots_;  // ASAP workspaces
  std::vector<image_cache<T>> caches_;
  std::map<std::pair<std::size_t, std::string>, std::size_t> incoming_;
  std::vector<transfer> transfers_;
  std::map<std::size_t, std::size_t> pending_;  // workspace -> nodes not ready yet
  std::vector<std::size_t> queue_;
  std::priority_queue<std::tuple<double, std::uint64_t, kind, std::size_t>,
                      std::vector<std::tuple<double, std::uint64_t, kind, std::size_t>>,
                      std::greater<>>
      events_;
  std::uint64_t seq_ = 0;
  double now_ = 0.0;
  double deploy_time_ = 0.0;
  workspace_report<T> report_;
};

}  // namespace detail

// Runs the workspaces (any order) with the given image sizes (MB) and configuration. Throws,
// before simulating anything: unknown_image for a workspace naming an image not in
// `images`; invalid_request for an image larger than the cache, a non-positive size or
// bandwidth, a workspace with no nodes or more than the cluster has, a non-positive
// duration.
template <time_value T>
[[nodiscard]] workspace_report<T> run_workspaces(const std::vector<workspace<T>>& workspaces,
                                                 const std::map<std::string, std::int64_t>& images,
                                                 const workspace_config& config) {
  return detail::workspace_simulation<T>(workspaces, images, config).run();
}

}  // namespace leasehold::policy::staging
