#pragma once

// Shared by queue_order_test.cpp and node_choice_test.cpp: small clusters and the lease
// builders and driver of scenarios.hpp.
//
// Nodes of {2 CPUs, 2048 MB, 10000 MB disk, 10 MB/s} (or 1 CPU where said); every lease asks
// for {1 CPU, 1024 MB} per node; leases do not run in VMs.

#include <doctest/doctest.h>

#include <cstdint>
#include <vector>

#include <leasehold/policy/lease/lease_scheduler.hpp>

#include "policy/lease/scenarios.hpp"

namespace leasehold::test::customisation {

using namespace leasehold::policy::lease;
using lease_scenarios::best_effort;
using lease_scenarios::reservation;
using lease_scenarios::run;
using lease_scenarios::span_on;

using T = std::int64_t;
using backend = free_list<T, node_resources>;
using node_table = cluster::slot_table<backend>;

inline scheduler_config<T> test_config(suspension s = suspension::none) {
  scheduler_config<T> c;
  c.suspend = s;
  c.migrate = migration::none;
  c.in_vms = false;
  return c;
}

template <class Scheduler>
span_on only_segment(const Scheduler& s, std::uint64_t id) {
  const auto& history = s.lease(id).history;
  REQUIRE(history.size() == 1);
  return {history.front().span, history.front().nodes};
}

using nodes = std::vector<std::size_t>;

// Two 1-CPU nodes; L1 holds both over [0, 100); then L2 (300 s), L3 (50 s) and L4 (10 s),
// each on both nodes, arrive at 1, 2 and 3 and must wait.
inline std::vector<lease_terms<T>> contended() {
  return {best_effort(1, 0, 2, 100), best_effort(2, 1, 2, 300), best_effort(3, 2, 2, 50),
          best_effort(4, 3, 2, 10)};
}
inline node_table two_single_cpu_nodes() {
  return node_table(2, node_resources{1, 1024, 10000, 10});
}

}  // namespace leasehold::test::customisation
