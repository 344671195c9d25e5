// policy::lease::node_choice: Haizea's lowest ids by default, a user-side choice that spreads
// leases or keeps reservations at high ids, applied after the paper's own rules (no
// preemption first, free longest); a NaN key rejected with nothing changed.

#include <doctest/doctest.h>

#include <cmath>
#include <cstdint>
#include <vector>

#include "policy/lease/customisation_scenarios.hpp"

namespace node_choice_test {

using namespace leasehold;
using namespace leasehold::policy::lease;
using namespace leasehold::test::customisation;

namespace {

// A node choice that spreads leases: the node with the most CPUs free over the span first.
struct spread {
  template <class Table>
  T operator()(const node_candidate<Table>& c) const {
    return -c.table.node(c.node).min_free(c.span)[cpu];
  }
};

// A node choice that keeps advance reservations at the high node ids and everything else at
// the low ones (the reverse of Haizea's tie-break for reservations only).
struct reservations_high {
  template <class Table>
  std::int64_t operator()(const node_candidate<Table>& c) const {
    const auto node = static_cast<std::int64_t>(c.node);
    return c.lease.terms.kind == lease_kind::advance_reservation ? -node : node;
  }
};

}  // namespace

TEST_CASE("node choice: lowest ids by default, a user's spread instead") {
  // Four 2-CPU nodes; five 1-node leases of 100 s at 0. Haizea's choice takes the lowest ids
  // wherever a CPU is free: nodes 0, 0, 1, 1, 2. Spreading takes the node with the most CPUs
  // free: 0, 1, 2, 3, then all have one free and the lowest id wins: 0.
  const node_resources node{2, 2048, 10000, 10};
  std::vector<lease_terms<T>> leases;
  for (std::uint64_t id = 1; id <= 5; ++id) leases.push_back(best_effort(id, 0, 1, 100));

  lease_scheduler<> haizea(node_table(4, node), test_config());
  run(haizea, leases);
  lease_scheduler<backend, images_predeployed, fifo_order, spread> spreading(node_table(4, node),
                                                                             test_config());
  run(spreading, leases);
  const std::vector<std::size_t> expect_haizea{0, 0, 1, 1, 2};
  const std::vector<std::size_t> expect_spread{0, 1, 2, 3, 0};
  for (std::uint64_t id = 1; id <= 5; ++id) {
    CAPTURE(id);
    CHECK(only_segment(haizea, id).nodes == nodes{expect_haizea[id - 1]});
    CHECK(only_segment(spreading, id).nodes == nodes{expect_spread[id - 1]});
  }
}

TEST_CASE("node choice: suspendable leases take the nodes free longest, ties by the choice") {
  // With suspension every node is free for ever, so Haizea's "free longest" rule ties and the
  // choice decides: spreading puts the two leases on nodes 0 and 1, Haizea's on node 0 twice.
  const node_resources node{2, 2048, 10000, 10};
  const std::vector<lease_terms<T>> leases{best_effort(1, 0, 1, 100), best_effort(2, 0, 1, 100)};
  lease_scheduler<> haizea(node_table(4, node), test_config(suspension::all));
  run(haizea, leases);
  lease_scheduler<backend, images_predeployed, fifo_order, spread> spreading(
      node_table(4, node), test_config(suspension::all));
  run(spreading, leases);
  CHECK(only_segment(haizea, 2).nodes == nodes{0});
  CHECK(only_segment(spreading, 1).nodes == nodes{0});
  CHECK(only_segment(spreading, 2).nodes == nodes{1});
}

TEST_CASE("node choice: advance reservations, after the paper's no-preemption rule") {
  // L1 (best effort, 1 node) runs on node 0 over [0, 100). An AR for 1 node over [50, 150):
  // every node has a CPU free, so Haizea takes node 0 and spreading node 1.
  const node_resources node{2, 2048, 10000, 10};
  const std::vector<lease_terms<T>> leases{best_effort(1, 0, 1, 100),
                                           reservation(2, 10, 50, 1, 100)};
  lease_scheduler<> haizea(node_table(4, node), test_config());
  run(haizea, leases);
  lease_scheduler<backend, images_predeployed, fifo_order, spread> spreading(node_table(4, node),
                                                                             test_config());
  run(spreading, leases);
  CHECK(only_segment(haizea, 2) == span_on{{50, 150}, nodes{0}});
  CHECK(only_segment(spreading, 2) == span_on{{50, 150}, nodes{1}});

  // Four 1-CPU nodes, L1 running on node 0 and L3 on node 1: a 3-node AR over [50, 150) takes
  // the free nodes 2 and 3 first (no preemption, §3.2), then one of 0 and 1, equal for the
  // paper (both hold a running lease). Haizea preempts L1 on node 0; a choice that keeps
  // reservations at high ids preempts L3 on node 1.
  const node_resources small{1, 1024, 10000, 10};
  const std::vector<lease_terms<T>> crowded{best_effort(1, 0, 1, 100), best_effort(3, 0, 1, 100),
                                            reservation(2, 10, 50, 3, 100)};
  lease_scheduler<> lowest(node_table(4, small), test_config());
  run(lowest, crowded);
  lease_scheduler<backend, images_predeployed, fifo_order, reservations_high> highest(
      node_table(4, small), test_config());
  run(highest, crowded);
  CHECK(only_segment(lowest, 2) == span_on{{50, 150}, nodes{0, 2, 3}});
  CHECK(lowest.lease(1).cancellations == 1);
  CHECK(lowest.lease(3).cancellations == 0);
  CHECK(only_segment(highest, 2) == span_on{{50, 150}, nodes{1, 2, 3}});
  CHECK(highest.lease(1).cancellations == 0);
  CHECK(highest.lease(3).cancellations == 1);
}

TEST_CASE("node choice: a NaN key is an error and the call changes nothing") {
  auto nan_on_two = [](const node_candidate<node_table>& c) {
    return c.node == 2 ? std::nan("") : 0.0;
  };
  lease_scheduler<backend, images_predeployed, fifo_order, node_choice_function<node_table>> s(
      node_table(4, node_resources{1, 1024, 10000, 10}), test_config(), {}, {}, {nan_on_two});
  // Every free node is a candidate, node 2 among them.
  CHECK_THROWS_WITH_AS(s.submit(best_effort(1, 5, 1, 100), 5),
                       "node choice: the key for lease 1 is NaN; keys must be ordered numbers",
                       invalid_request);
  CHECK(s.leases().empty());
  CHECK(s.now() == 0);
  CHECK(s.queue().empty());
  CHECK(s.table().aggregate().free_at(100) == node_resources{4, 4096, 40000, 40});
  s.validate();
}

}  // namespace node_choice_test
