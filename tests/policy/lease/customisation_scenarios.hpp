#pragma once

// Shared by queue_order_test.cpp and node_choice_test.cpp: small clusters, lease builders and
// a driver that runs a scheduler to the end, validating it after every step.
//
// Nodes of {2 CPUs, 2048 MB, 10000 MB disk, 10 MB/s} (or 1 CPU where said); every lease asks
// for {1 CPU, 1024 MB} per node; leases do not run in VMs.

#include <doctest/doctest.h>

#include <cstdint>
#include <vector>

#include <leasehold/policy/lease/lease_scheduler.hpp>

namespace leasehold::test::customisation {

using namespace leasehold::policy::lease;

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

inline lease_terms<T> best_effort(std::uint64_t id, T submit, std::int64_t nodes, T duration) {
  lease_terms<T> t;
  t.id = id;
  t.submit = submit;
  t.kind = lease_kind::best_effort;
  t.nodes = nodes;
  t.per_node = {1, 1024, 0, 0};
  t.duration = duration;
  t.real_duration = duration;
  return t;
}

inline lease_terms<T> reservation(std::uint64_t id, T submit, T start, std::int64_t nodes,
                                  T duration) {
  lease_terms<T> t = best_effort(id, submit, nodes, duration);
  t.kind = lease_kind::advance_reservation;
  t.start = start;
  t.preemptible = false;
  return t;
}

template <class Scheduler>
void run(Scheduler& s, const std::vector<lease_terms<T>>& leases) {
  for (const auto& l : leases) {
    while (s.next_event_time() && *s.next_event_time() < l.submit) {
      s.advance_to(*s.next_event_time());
      s.validate();
    }
    (void)s.submit(l, l.submit);
    s.validate();
  }
  while (s.next_event_time()) {
    s.advance_to(*s.next_event_time());
    s.validate();
  }
}

struct span_on {
  interval<T> span;
  std::vector<std::size_t> nodes;
  friend bool operator==(const span_on&, const span_on&) = default;
};

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
