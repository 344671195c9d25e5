#pragma once

/// \file
/// sim::run_workspaces: the cache-size experiment of Sotomayor, Keahey & Foster, "Overhead
/// Matters" (§5.3, Table 3) as a discrete-event simulation of its testbed: ASAP workspaces
/// on nodes with a few VM slots, one image repository behind one link, per-node template
/// caches. The decisions (FIFO dispatch, caches, redundant transfers avoided, the counts) are
/// policy::staging::workspace_deployer's; the link is policy::staging::shared_link (processor
/// sharing, as the paper's transfers shared the repository's Ethernet link); this file only
/// keeps the clock and the order of events.
///
/// The events are a workspace's submission and its end, on sim::event_queue over double time
/// (ends fall between ticks because the link delivers between ticks); ties come out in push
/// order. Transfer completions are not queued: the link knows when its next one falls, and
/// it moves whenever another transfer starts, so the loop asks it each round and delivers
/// whatever completes no later than the next queued event first.

#include <cstddef>
#include <cstdint>
#include <limits>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "leasehold/core/detail/describe.hpp"
#include "leasehold/core/error.hpp"
#include "leasehold/core/time.hpp"
#include "leasehold/policy/staging/shared_link.hpp"
#include "leasehold/policy/staging/workspace_deployer.hpp"
#include "leasehold/sim/event_queue.hpp"

namespace leasehold::sim {

/// What became of one workspace request in the simulation.
template <time_value T = std::int64_t>
struct workspace_result {
  std::uint64_t id = 0;            ///< the request's id
  bool accepted = false;           ///< whether it got nodes at all
  std::vector<std::size_t> nodes;  ///< the nodes it ran on (empty if refused)
  double dispatched = 0.0;         ///< when its nodes were chosen (its submission if never)
  double ready = 0.0;              ///< when the last of its images was ready
  double begin = 0.0;              ///< when it ran: when it was ready
  double end = 0.0;                ///< when it finished
};

/// Every workspace's result and the deployer's summary of the run.
template <time_value T = std::int64_t>
struct workspace_report {
  std::vector<workspace_result<T>> workspaces;  ///< in input order
  policy::staging::workspace_summary summary;   ///< the staging totals of the run
};

namespace detail {

template <time_value T>
class workspace_simulation {
 public:
  workspace_simulation(const std::vector<policy::staging::workspace<T>>& input,
                       const std::map<std::string, std::int64_t>& images,
                       const policy::staging::workspace_config& config)
      : input_(input), deployer_(images, config), link_((check(), config.bandwidth_mb_s)) {
    report_.workspaces.resize(input.size());
  }

  workspace_report<T> run() {
    for (std::size_t i = 0; i < input_.size(); ++i)
      events_.push(static_cast<double>(input_[i].submit), {event::submitted, i});
    while (true) {
      const auto completion = link_.next_completion();
      if (events_.empty() && !completion) break;
      const double next_event =
          events_.empty() ? std::numeric_limits<double>::infinity() : events_.top().at;
      if (completion && *completion <= next_event) {
        deliver(link_.advance_to(*completion));
        continue;
      }
      deliver(link_.advance_to(next_event));
      const auto e = events_.pop();
      const policy::staging::workspace<T>& w = input_[e.payload.index];
      if (e.payload.what == event::submitted) {
        report_.workspaces[e.payload.index].id = w.id;
        report_.workspaces[e.payload.index].dispatched = e.at;
        deployer_.submit(w);
      } else {
        deployer_.ended(w.id, e.at);
      }
      dispatched(deployer_.dispatch(e.at), e.at);
    }
    report_.summary = deployer_.summary();
    return std::move(report_);
  }

 private:
  struct event {
    enum kind { submitted, ended } what;
    std::size_t index;  // into the input
  };

  /// Bad input is refused before anything runs: the deployer's constructor checked the
  /// configuration and the images; here each workspace and the ids, which name workspaces to
  /// the deployer and so must be distinct. The link checks the bandwidth.
  void check() {
    for (std::size_t i = 0; i < input_.size(); ++i) {
      deployer_.check(input_[i]);
      if (!index_.emplace(input_[i].id, i).second)
        throw invalid_request(leasehold::detail::describe("run_workspaces: workspace id ",
                                                          input_[i].id, " appears twice"));
    }
  }

  void dispatched(const policy::staging::workspace_dispatch_outcome& out, double at) {
    for (const auto& d : out.dispatched) {
      workspace_result<T>& r = report_.workspaces[index_.at(d.workspace)];
      r.accepted = true;
      r.dispatched = at;
      r.nodes = d.nodes;
    }
    for (const auto& t : out.transfers) link_.start(t.id, static_cast<double>(t.size_mb));
    started(out.ready);
  }

  void deliver(const std::vector<std::pair<std::uint64_t, double>>& done) {
    for (const auto& [transfer, at] : done) started(deployer_.delivered(transfer, at));
  }

  /// Workspaces whose images are all ready run from then for their duration.
  void started(const std::vector<policy::staging::workspace_ready>& ready) {
    for (const auto& w : ready) {
      const std::size_t i = index_.at(w.workspace);
      workspace_result<T>& r = report_.workspaces[i];
      r.ready = w.at;
      r.begin = w.at;
      r.end = w.at + static_cast<double>(input_[i].duration);
      events_.push(r.end, {event::ended, i});
    }
  }

  const std::vector<policy::staging::workspace<T>>& input_;
  std::map<std::uint64_t, std::size_t> index_;  ///< workspace id -> input position
  policy::staging::workspace_deployer<T> deployer_;
  policy::staging::shared_link link_;
  event_queue<double, event> events_;
  workspace_report<T> report_;
};

}  // namespace detail

/// Runs the workspaces (any order) with the given image sizes (MB) and configuration. Throws,
/// before simulating anything: unknown_image for a workspace naming an image not in
/// `images`; invalid_request for an image larger than the cache, a non-positive size or
/// bandwidth, a workspace with no nodes or more than the cluster has, a non-positive
/// duration, two workspaces with the same id.
template <time_value T>
[[nodiscard]] workspace_report<T> run_workspaces(
    const std::vector<policy::staging::workspace<T>>& workspaces,
    const std::map<std::string, std::int64_t>& images,
    const policy::staging::workspace_config& config) {
  return detail::workspace_simulation<T>(workspaces, images, config).run();
}

}  // namespace leasehold::sim
