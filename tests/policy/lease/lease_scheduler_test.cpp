// policy::lease::lease_scheduler: hand-computed scenarios on 4 nodes (Haizea §3.1-3.2), with
// the expected begin and end of every lease derived in the comments, and bad input.
//
// Unless a case says otherwise: 4 nodes of {1 CPU, 1024 MB, 10000 MB disk, 10 MB/s}; every
// lease asks for {1 CPU, 1024 MB} per node; leases do not run in VMs (no slowdown, no boot
// or shutdown); suspending 1024 MB takes 1024 / 102.4 = 10 s, resuming 1024 / 51.2 = 20 s,
// migrating 1024 MB (no image) at 10.24 MB/s takes 100 s; the minimum run before a
// suspension is suspend + resume = 30 s.

#include <doctest/doctest.h>

#include <cstdint>
#include <string>
#include <vector>

#include <leasehold/availability/reference.hpp>
#include <leasehold/policy/lease/lease_scheduler.hpp>

#include "policy/lease/scenarios.hpp"

namespace lease_scheduler_test {

using namespace leasehold::test::lease_scenario_names;

namespace {

using node_table = cluster::slot_table<free_list<T, node_resources>>;

scheduler_config<T> test_config(suspension s = suspension::all, migration m = migration::none,
                                backfilling b = backfilling::aggressive()) {
  scheduler_config<T> c = config(s, m);
  c.backfill = b;
  return c;
}

lease_scheduler<> make_scheduler(const scheduler_config<T>& config, std::size_t nodes = 4) {
  return lease_scheduler<>(node_table(nodes, node_resources{1, 1024, 10000, 10}), config);
}

using nodes = std::vector<std::size_t>;

}  // namespace

TEST_CASE("lease_scheduler: best-effort leases back to back") {
  auto s = make_scheduler(test_config(suspension::none));
  // L1: 4 nodes x 100 starts at 0 and ends at 100.
  // L2: 2 nodes x 50, submitted at 0, cannot start; as queue head it is booked for 100, on
  //     nodes 0 and 1 (lowest ids), and ends at 150.
  // L3: 2 nodes x 200, submitted at 5; no second reservation under aggressive backfilling;
  //     at 100, once L2 has begun, it starts on nodes 2 and 3 and ends at 300.
  run(s, {best_effort(1, 0, 4, 100), best_effort(2, 0, 2, 50), best_effort(3, 5, 2, 200)});
  CHECK(segments(s, 1) == std::vector<span_on>{{{0, 100}, nodes{0, 1, 2, 3}}});
  CHECK(segments(s, 2) == std::vector<span_on>{{{100, 150}, nodes{0, 1}}});
  CHECK(segments(s, 3) == std::vector<span_on>{{{100, 300}, nodes{2, 3}}});
  for (std::uint64_t id : {1u, 2u, 3u}) CHECK(s.lease(id).state == lease_state::done);
}

TEST_CASE("lease_scheduler: a best-effort lease is backfilled before a future reservation") {
  auto s = make_scheduler(test_config(suspension::none));
  // A:  AR on 4 nodes over [200, 300).
  // B1: 2 nodes x 150 fits before A: [0, 150) on nodes 0, 1.
  // B2: 4 nodes x 100 cannot finish before 200, so as head it is booked after A: [300, 400).
  // B3: 2 nodes x 180 is backfilled ahead of B2: [0, 180) on nodes 2, 3, done before A.
  // B4: 1 node x 250 fits nowhere before A; once B2 has begun it is the head: [400, 650)
  //     on node 0.
  run(s, {reservation(1, 0, 200, 4, 100), best_effort(2, 0, 2, 150), best_effort(3, 0, 4, 100),
          best_effort(4, 0, 2, 180), best_effort(5, 0, 1, 250)});
  CHECK(segments(s, 1) == std::vector<span_on>{{{200, 300}, nodes{0, 1, 2, 3}}});
  CHECK(segments(s, 2) == std::vector<span_on>{{{0, 150}, nodes{0, 1}}});
  CHECK(segments(s, 3) == std::vector<span_on>{{{300, 400}, nodes{0, 1, 2, 3}}});
  CHECK(segments(s, 4) == std::vector<span_on>{{{0, 180}, nodes{2, 3}}});
  CHECK(segments(s, 5) == std::vector<span_on>{{{400, 650}, nodes{0}}});
}

TEST_CASE("lease_scheduler: an advance reservation suspends a running lease") {
  auto s = make_scheduler(test_config(suspension::all, migration::none));
  // X: 4 nodes x 1000 starts at 0 (nothing blocks it): booked [0, 1000).
  // A: AR submitted at 100 for 2 nodes over [500, 600). Every node holds X, so nodes 0 and 1
  //    (lowest ids) are taken and X is suspended so that its suspension (10 s) ends exactly at
  //    500: X runs [0, 490) (490 s of work) and suspends [490, 500) on all four nodes.
  // At 500 X's remainder (510 s) is requeued; without migration it resumes on its own nodes
  // once all four are free, at 600: resume [600, 620), run [620, 1130).
  run(s, {best_effort(1, 0, 4, 1000), reservation(2, 100, 500, 2, 100)});
  CHECK(segments(s, 2) == std::vector<span_on>{{{500, 600}, nodes{0, 1}}});
  REQUIRE(s.lease(1).history.size() == 2);
  const auto& first = s.lease(1).history[0];
  CHECK(first.span == interval<T>{0, 500});
  CHECK(first.run == interval<T>{0, 490});
  CHECK(first.work == 490);
  CHECK(first.outcome == segment_outcome::suspended);
  const auto& second = s.lease(1).history[1];
  CHECK(second.span == interval<T>{600, 1130});
  CHECK(second.run == interval<T>{620, 1130});
  CHECK(second.work == 510);
  CHECK(second.outcome == segment_outcome::completed);
  CHECK(s.lease(1).suspensions == 1);
  CHECK(s.lease(1).migrations == 0);
  CHECK(s.lease(1).work_done() == 1000);
}

TEST_CASE("lease_scheduler: without suspension a preempted lease is cancelled and requeued") {
  auto s = make_scheduler(test_config(suspension::none));
  // As above, but X cannot be suspended (NOVM-NOSR): when A is admitted at 100, X is
  // cancelled at once, its 100 s of work lost, and requeued. It needs 4 nodes for 1000 s
  // without a break, so it runs again from 600, after A: [600, 1600).
  run(s, {best_effort(1, 0, 4, 1000), reservation(2, 100, 500, 2, 100)});
  CHECK(segments(s, 1) ==
        std::vector<span_on>{{{0, 100}, nodes{0, 1, 2, 3}}, {{600, 1600}, nodes{0, 1, 2, 3}}});
  CHECK(s.lease(1).history[0].outcome == segment_outcome::cancelled);
  CHECK(s.lease(1).history[0].work == 0);
  CHECK(s.lease(1).cancellations == 1);
  CHECK(*s.lease(1).first_start == 0);
  CHECK(*s.lease(1).end == 1600);
}

TEST_CASE("lease_scheduler: a suspended lease migrates when that resumes it sooner") {
  auto s = make_scheduler(test_config(suspension::all, migration::allowed));
  // X: 2 nodes x 1000 from 0 on nodes 0, 1. Y: 2 nodes x 600 from 0 on nodes 2, 3.
  // A: AR submitted at 100 for 2 nodes over [500, 1500). No node is free over that span; all
  //    four hold a running lease, so nodes 0, 1 are taken and X suspends [490, 500).
  // At 500 X (510 s left) could resume on nodes 0, 1 only at 1500; migrating to nodes 2, 3
  // (free from 600, after Y) takes 100 s, then resuming 20 s: booked [600, 1230), running
  // [720, 1230).
  run(s,
      {best_effort(1, 0, 2, 1000), best_effort(2, 0, 2, 600), reservation(3, 100, 500, 2, 1000)});
  CHECK(segments(s, 3) == std::vector<span_on>{{{500, 1500}, nodes{0, 1}}});
  CHECK(segments(s, 2) == std::vector<span_on>{{{0, 600}, nodes{2, 3}}});
  REQUIRE(s.lease(1).history.size() == 2);
  CHECK(s.lease(1).history[0].run == interval<T>{0, 490});
  CHECK(s.lease(1).history[1].span == interval<T>{600, 1230});
  CHECK(s.lease(1).history[1].run == interval<T>{720, 1230});
  CHECK(s.lease(1).history[1].nodes == nodes{2, 3});
  CHECK(s.lease(1).migrations == 1);
  CHECK(s.lease(1).work_done() == 1000);
}

TEST_CASE("lease_scheduler: a suspended lease does not migrate to resume later") {
  // NOVM-SR's rules on 3 nodes of 1 CPU, leases of 100 MB: suspending takes 100 / 50 = 2 s,
  // resuming 100 / 100 = 1 s, migrating 100 / 50 = 2 s; the minimum run is 2 + 1 = 3 s.
  auto config = scheduler_config<T>::novm_sr();
  config.resume_rate_mb_s = 100;
  config.network_mb_s = 50;
  lease_scheduler<> s(node_table(3, node_resources{1, 100, 10000, 10}), config);
  auto small = [](lease_terms<T> t) {
    t.per_node = {1, 100, 0, 0};
    return t;
  };
  // L1 (4 s asked, 2 s real) starts at 0 on node 0. L2 (3 s, 1 s real) starts at 1 on node 1
  // and ends at 2. A, submitted at 1 for [3, 4) on 2 nodes: only node 2 is free, nodes 0 and 1
  // both hold a running lease, so node 0 (lowest id) is taken and L1 suspends [1, 3), having
  // run [0, 1) (1 s of work; 3 s of its maximum and 1 s of its real work left).
  // At 3, L1 resumed in place books node 0 after A: [4, 8), resume [4, 5), run [5, 8), and
  // ends at 6 (its real work). Migrating to node 1 (free since 2) books [3, 9): transfer
  // [3, 5), resume [5, 6), run [6, 9), ending at 7: it begins sooner but its run begins
  // later, so L1 stays.
  run(s, {small(best_effort(1, 0, 1, 4, 2)), small(best_effort(2, 1, 1, 3, 1)),
          small(reservation(3, 1, 3, 2, 1))});
  CHECK(segments(s, 3) == std::vector<span_on>{{{3, 4}, nodes{0, 2}}});
  CHECK(segments(s, 2) == std::vector<span_on>{{{1, 2}, nodes{1}}});
  REQUIRE(s.lease(1).history.size() == 2);
  CHECK(s.lease(1).history[0].span == interval<T>{0, 3});
  CHECK(s.lease(1).history[0].run == interval<T>{0, 1});
  CHECK(s.lease(1).history[0].outcome == segment_outcome::suspended);
  CHECK(s.lease(1).history[1].span == interval<T>{4, 6});
  CHECK(s.lease(1).history[1].run == interval<T>{5, 6});
  CHECK(s.lease(1).history[1].nodes == nodes{0});
  CHECK(s.lease(1).migrations == 0);
  CHECK(*s.lease(1).end == 6);
}

// In VMs (no slowdown, 20 s of boot + shutdown) on one node, A holds [100, 170) from 0. L2
// (200 s) must end in a suspension by 100; its booking keeps the longer of its suspension
// (10 s) and its shutdown (20 s) after its run: run [0, 80). Its work really takes `real`.
TEST_CASE(
    "lease_scheduler: a segment booked to suspend holds the shutdown of a lease ending in it") {
  auto config = test_config();
  config.in_vms = true;
  config.runtime_slowdown_percent = 0;
  config.boot_shutdown = 20;
  SUBCASE("the work ends in the run: the whole shutdown follows, [75, 95)") {
    auto s = make_scheduler(config, 1);
    run(s, {reservation(1, 0, 100, 1, 50), best_effort(2, 0, 1, 200, 75)});
    CHECK(segments(s, 2) == std::vector<span_on>{{{0, 95}, nodes{0}}});
    CHECK(s.lease(2).history[0].run == interval<T>{0, 75});
    CHECK(s.lease(2).suspensions == 0);
  }
  SUBCASE("the work outlasts the run: suspended at 80, resumed after A") {
    // 80 s credited, 5 left: resume [170, 190), run [190, 195), shutdown [195, 215). (A run
    // to 90, the suspension's 10 s before 100, would have ended the work at 85 and cut its
    // shutdown at 100.)
    auto s = make_scheduler(config, 1);
    run(s, {reservation(1, 0, 100, 1, 50), best_effort(2, 0, 1, 200, 85)});
    CHECK(segments(s, 2) == std::vector<span_on>{{{0, 100}, nodes{0}}, {{170, 215}, nodes{0}}});
    CHECK(s.lease(2).history[0].run == interval<T>{0, 80});
    CHECK(s.lease(2).history[1].run == interval<T>{190, 195});
    CHECK(s.lease(2).suspensions == 1);
  }
}

TEST_CASE("lease_scheduler: a premature end pulls later leases forward") {
  auto s = make_scheduler(test_config(suspension::none));
  // L1: 4 nodes, asks for 1000 s but really runs 300: [0, 300).
  // L2: 4 nodes x 100, head of the queue, is booked for 1000; when L1 ends at 300 the
  //     schedule is re-evaluated and L2 starts at once: [300, 400).
  // L3: 2 nodes x 50 waits without a reservation until L2 begins, then is booked right
  //     after it: [400, 450).
  run(s, {best_effort(1, 0, 4, 1000, 300), best_effort(2, 0, 4, 100), best_effort(3, 0, 2, 50)});
  CHECK(segments(s, 1) == std::vector<span_on>{{{0, 300}, nodes{0, 1, 2, 3}}});
  CHECK(segments(s, 2) == std::vector<span_on>{{{300, 400}, nodes{0, 1, 2, 3}}});
  CHECK(segments(s, 3) == std::vector<span_on>{{{400, 450}, nodes{0, 1}}});
}

TEST_CASE("lease_scheduler: backfilling modes give different schedules") {
  // R: 2 nodes x 100 runs [0, 100) on nodes 0, 1.
  // H: 3 nodes x 100 is the head: [100, 200) on nodes 0, 1, 2.
  // S: 4 nodes x 100.
  // L: 1 node x 300.
  const std::vector<lease_terms<T>> leases{best_effort(1, 0, 2, 100), best_effort(2, 0, 3, 100),
                                           best_effort(3, 0, 4, 100), best_effort(4, 0, 1, 300)};
  SUBCASE("aggressive: L starts now on node 3, delaying S") {
    // L fits on node 3 over [0, 300) without touching H, so it starts; S, head once H has
    // begun at 100, waits for node 3: [300, 400).
    auto s =
        make_scheduler(test_config(suspension::none, migration::none, backfilling::aggressive()));
    run(s, leases);
    CHECK(segments(s, 2) == std::vector<span_on>{{{100, 200}, nodes{0, 1, 2}}});
    CHECK(segments(s, 4) == std::vector<span_on>{{{0, 300}, nodes{3}}});
    CHECK(segments(s, 3) == std::vector<span_on>{{{300, 400}, nodes{0, 1, 2, 3}}});
  }
  SUBCASE("conservative: S keeps its reservation and L goes after it") {
    // S is booked for [200, 300); L would overlap it on every node before 300: [300, 600) on
    // node 0.
    auto s =
        make_scheduler(test_config(suspension::none, migration::none, backfilling::conservative()));
    run(s, leases);
    CHECK(segments(s, 2) == std::vector<span_on>{{{100, 200}, nodes{0, 1, 2}}});
    CHECK(segments(s, 3) == std::vector<span_on>{{{200, 300}, nodes{0, 1, 2, 3}}});
    CHECK(segments(s, 4) == std::vector<span_on>{{{300, 600}, nodes{0}}});
  }
  SUBCASE("intermediate(2) behaves as conservative here (two leases wait)") {
    auto s = make_scheduler(
        test_config(suspension::none, migration::none, backfilling::intermediate(2)));
    run(s, leases);
    CHECK(segments(s, 3) == std::vector<span_on>{{{200, 300}, nodes{0, 1, 2, 3}}});
    CHECK(segments(s, 4) == std::vector<span_on>{{{300, 600}, nodes{0}}});
  }
  SUBCASE("off: strict FIFO, nothing passes the waiting head") {
    // H waits without a reservation and blocks S and L; at 100 H starts; S starts when H
    // ends at 200; L at 300 on node 0.
    auto s = make_scheduler(test_config(suspension::none, migration::none, backfilling::off()));
    run(s, leases);
    CHECK(segments(s, 2) == std::vector<span_on>{{{100, 200}, nodes{0, 1, 2}}});
    CHECK(segments(s, 3) == std::vector<span_on>{{{200, 300}, nodes{0, 1, 2, 3}}});
    CHECK(segments(s, 4) == std::vector<span_on>{{{300, 600}, nodes{0}}});
  }
}

TEST_CASE("lease_scheduler: bad input is rejected with a clear error and changes nothing") {
  auto s = make_scheduler(test_config());
  (void)s.submit(best_effort(1, 0, 2, 100), 0);
  s.advance_to(10);
  const auto before_queue = s.queue();
  const auto before_blocks = s.table().node(0).free_blocks();
  auto rejected = [&](const lease_terms<T>& t, const std::string& mention) {
    CHECK_THROWS_WITH_AS((void)s.submit(t, 10), doctest::Contains(mention.c_str()), invalid_lease);
    CHECK(s.leases().size() == 1);
    CHECK(s.queue() == before_queue);
    CHECK(s.table().node(0).free_blocks() == before_blocks);
    s.validate();
  };
  rejected(best_effort(2, 10, 0, 100), "asks for 0 nodes");
  rejected(best_effort(2, 10, 5, 100), "asks for 5 nodes but the cluster has 4");
  rejected(best_effort(2, 10, 1, -5), "duration -5 must be positive");
  rejected(reservation(2, 10, 5, 1, 100), "start 5 is in the past");
  rejected(best_effort(1, 10, 1, 100), "already submitted");
  auto too_big = best_effort(2, 10, 1, 100);
  too_big.per_node = {2, 1024, 0, 0};
  rejected(too_big, "exceed a node's");
  auto real_longer = best_effort(2, 10, 1, 100, 200);
  rejected(real_longer, "real duration 200");
  CHECK_THROWS_WITH_AS((void)s.submit(best_effort(2, 5, 1, 100), 5),
                       doctest::Contains("time went backwards"), invalid_lease);
  CHECK_THROWS_WITH_AS(s.release(99, 10), doctest::Contains("unknown lease"), invalid_lease);
  CHECK_THROWS_AS(lease_scheduler<>(node_table(4, node_resources{1, 1024, 0, 0}),
                                    [] {
                                      auto c = test_config();
                                      c.suspend_rate_mb_s = 0;
                                      return c;
                                    }()),
                  invalid_request);
}

TEST_CASE("lease_scheduler: an AR that cannot be placed is rejected with a reason") {
  auto s = make_scheduler(test_config());
  CHECK(s.submit(reservation(1, 0, 100, 3, 100), 0).outcome == admission::accepted);
  const auto result = s.submit(reservation(2, 0, 150, 2, 100), 0);
  CHECK(result.outcome == admission::rejected);
  CHECK(result.reason.find("only 1 of 2 nodes") != std::string::npos);
  CHECK(s.lease(2).state == lease_state::rejected);
  s.validate();
}

TEST_CASE("lease_scheduler: slot table on the reference backend gives the same schedule") {
  lease_scheduler<reference<T, node_resources>> s(
      cluster::slot_table<reference<T, node_resources>>(4, node_resources{1, 1024, 10000, 10}),
      test_config(suspension::all, migration::none));
  (void)s.submit(best_effort(1, 0, 4, 1000), 0);
  s.advance_to(100);
  (void)s.submit(reservation(2, 100, 500, 2, 100), 100);
  while (s.next_event_time()) s.advance_to(*s.next_event_time());
  CHECK(s.lease(1).history[0].run == interval<T>{0, 490});
  CHECK(*s.lease(1).end == 1130);
}

TEST_CASE("lease_scheduler: a lease held in the queue never starts and leaves when withdrawn") {
  // One node. L1 (100 s) runs [0, 100). L2 (200 s, submitted at 10) is a job its user cancels
  // at 150 while it waits; L3 (30 s) arrives at 20.
  //  - Held (Haizea's paper-era treatment): L2 is never planned, so L3 holds the reservation
  //    and runs [100, 130), even with backfilling off (a held lease is no head); L2 leaves
  //    at 150 without ever starting.
  //  - Not held: L2, first in the queue, runs [100, 300) (it has started by 150, so the
  //    withdrawal fails) and L3 waits until [300, 330).
  for (const backfilling b : {backfilling::aggressive(), backfilling::off()}) {
    CAPTURE(b);
    auto s = make_scheduler(test_config(suspension::none, migration::none, b), 1);
    auto l2 = best_effort(2, 10, 1, 200);
    l2.hold_in_queue = true;
    l2.withdraw = 150;
    (void)s.submit(best_effort(1, 0, 1, 100), 0);
    (void)s.submit(l2, 10);
    (void)s.submit(best_effort(3, 20, 1, 30), 20);
    // Aggressive: L3 holds the reservation; off: no reservations, L3 waits behind L2 in the
    // list but is not blocked by it.
    CHECK(s.queue() == (b == backfilling::off() ? std::vector<std::uint64_t>{2, 3}
                                                : std::vector<std::uint64_t>{2}));
    s.advance_to(140);
    CHECK(segments(s, 3) == std::vector<span_on>{{{100, 130}, nodes{0}}});
    CHECK(s.withdraw(2, 150));
    CHECK(s.lease(2).state == lease_state::withdrawn);
    CHECK_FALSE(s.lease(2).first_start.has_value());
    CHECK(s.queue().empty());
    s.validate();
  }
  auto s = make_scheduler(test_config(suspension::none), 1);
  (void)s.submit(best_effort(1, 0, 1, 100), 0);
  (void)s.submit(best_effort(2, 10, 1, 200), 10);
  (void)s.submit(best_effort(3, 20, 1, 30), 20);
  CHECK_FALSE(s.withdraw(2, 150));
  s.advance_to(400);
  CHECK(segments(s, 2) == std::vector<span_on>{{{100, 300}, nodes{0}}});
  CHECK(segments(s, 3) == std::vector<span_on>{{{300, 330}, nodes{0}}});
}

TEST_CASE("lease_scheduler: only a best-effort lease can be held in the queue") {
  auto s = make_scheduler(test_config());
  auto ar = reservation(1, 0, 100, 1, 50);
  ar.hold_in_queue = true;
  CHECK_THROWS_WITH_AS(
      s.submit(ar, 0),
      "lease 1 (advance reservation): only a best-effort lease can be held in the queue",
      invalid_lease);
  CHECK(s.leases().empty());
}

}  // namespace lease_scheduler_test
