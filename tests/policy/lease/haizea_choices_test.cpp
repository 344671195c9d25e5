// scheduler_config's options for the choices Haizea's own code makes where it differs from
// our reading of the paper (stretched reservations, per-VM overhead, the reservation's
// shutdown inside its window, no shutdown after an early end, fixed suspend / resume times),
// each on a hand-computed case beside the default.
//
// 4 nodes of {1 CPU, 1024 MB, 10000 MB disk, 10 MB/s}; leases ask {1 CPU, 1024 MB} per node.
// In VMs: work takes 5 % longer (rounded up for best effort), boot + shutdown is 20 s.

#include <doctest/doctest.h>

#include <cstdint>
#include <vector>

#include <leasehold/policy/lease/lease_scheduler.hpp>

#include "policy/lease/scenarios.hpp"

namespace haizea_choices_test {

using namespace leasehold;
using namespace leasehold::policy::lease;

namespace {

using leasehold::test::lease_scenarios::best_effort;
using leasehold::test::lease_scenarios::run_to_end;

using T = std::int64_t;
using node_table = cluster::slot_table<free_list<T, node_resources>>;

scheduler_config<T> in_vms() {
  scheduler_config<T> c;
  c.suspend = suspension::none;
  c.migrate = migration::none;
  return c;  // in_vms, 5 % slowdown, 20 s boot + shutdown: the paper's §4.3 values
}

lease_scheduler<> make(const scheduler_config<T>& c, std::size_t nodes = 4) {
  return lease_scheduler<>(node_table(nodes, node_resources{1, 1024, 10000, 10}), c);
}

lease_terms<T> reservation(std::uint64_t id, T start, T duration) {
  lease_terms<T> t = best_effort(id, 0, 1, duration);
  t.kind = lease_kind::advance_reservation;
  t.start = start;
  t.preemptible = false;
  return t;
}

const segment_record<T>& only(const lease_scheduler<>& s, std::uint64_t id) {
  REQUIRE(s.lease(id).history.size() == 1);
  return s.lease(id).history.front();
}

}  // namespace

TEST_CASE("haizea choices: with_haizea_choices turns on what Haizea's code does") {
  const auto c = scheduler_config<T>::vm_predeploy().with_haizea_choices();
  CHECK(c.stretch_reservations);
  CHECK(c.overhead_per_vm);
  CHECK(c.reservation_overhead_inside);
  CHECK_FALSE(c.shutdown_after_early_end);
  CHECK_FALSE(c.suspend_time_fixed.has_value());
  CHECK(c.backfill == scheduler_config<T>::vm_predeploy().backfill);
}

TEST_CASE("haizea choices: a reservation in VMs stretched by the slowdown") {
  // 10,748 s from 100. Default: held as is, run [100, 10848), shutdown to 10868.
  // Stretched: floor(10748 x 1.05) = 11285 s (Haizea's figure), run [100, 11385), to 11405.
  auto plain = make(in_vms());
  (void)plain.submit(reservation(1, 100, 10748), 0);
  run_to_end(plain);
  CHECK(only(plain, 1).span == interval<T>{100, 10868});
  CHECK(only(plain, 1).run == interval<T>{100, 10848});

  auto c = in_vms();
  c.stretch_reservations = true;
  auto stretched = make(c);
  (void)stretched.submit(reservation(1, 100, 10748), 0);
  run_to_end(stretched);
  CHECK(only(stretched, 1).span == interval<T>{100, 11405});
  CHECK(only(stretched, 1).run == interval<T>{100, 11385});
  CHECK(only(stretched, 1).work == 10748);
}

TEST_CASE("haizea choices: boot and shutdown per VM") {
  // 4 nodes x 100 s of work: 105 s in VMs. Default: + 20 s, [0, 125). Per VM: + 4 x 20 s.
  auto plain = make(in_vms());
  (void)plain.submit(best_effort(1, 0, 4, 100, 100), 0);
  run_to_end(plain);
  CHECK(only(plain, 1).span == interval<T>{0, 125});

  auto c = in_vms();
  c.overhead_per_vm = true;
  auto per_vm = make(c);
  (void)per_vm.submit(best_effort(1, 0, 4, 100, 100), 0);
  run_to_end(per_vm);
  CHECK(only(per_vm, 1).span == interval<T>{0, 185});
  CHECK(only(per_vm, 1).run == interval<T>{0, 105});
}

TEST_CASE("haizea choices: a reservation's shutdown inside its window") {
  // 1,000 s from 100. Default: run [100, 1100), shutdown to 1120. Inside: the window ends at
  // 1100 and the run gives up the 20 s: [100, 1080).
  auto c = in_vms();
  c.reservation_overhead_inside = true;
  auto inside = make(c);
  (void)inside.submit(reservation(1, 100, 1000), 0);
  run_to_end(inside);
  CHECK(only(inside, 1).span == interval<T>{100, 1100});
  CHECK(only(inside, 1).run == interval<T>{100, 1080});

  // A reservation no longer than its shutdown has nothing left to run.
  auto refused = make(c);
  CHECK_THROWS_WITH_AS(refused.submit(reservation(2, 100, 20), 0),
                       "lease 2 (advance reservation): duration 20 leaves no run before its "
                       "shutdown (20 s, inside the reservation)",
                       invalid_lease);
  CHECK(refused.leases().empty());
}

TEST_CASE("haizea choices: no shutdown after an early end") {
  // One node. L1 asks 1,000 s but ends after 500 s of work: 525 s in a VM. Default: it shuts
  // down until 545 and L2 (100 s, queued at 0) starts then; Haizea's choice frees the node
  // at 525.
  for (const bool shutdown : {true, false}) {
    CAPTURE(shutdown);
    auto c = in_vms();
    c.shutdown_after_early_end = shutdown;
    auto s = make(c, 1);
    (void)s.submit(best_effort(1, 0, 1, 1000, 500), 0);
    (void)s.submit(best_effort(2, 0, 1, 100, 100), 0);
    run_to_end(s);
    const T end = shutdown ? 545 : 525;
    CHECK(only(s, 1).span == interval<T>{0, end});
    CHECK(only(s, 1).run == interval<T>{0, 525});
    CHECK(*s.lease(2).first_start == end);
  }
  // A lease that uses its whole duration still shuts down: 1,050 + 20.
  auto c = in_vms();
  c.shutdown_after_early_end = false;
  auto s = make(c, 1);
  (void)s.submit(best_effort(1, 0, 1, 1000, 1000), 0);
  run_to_end(s);
  CHECK(only(s, 1).span == interval<T>{0, 1070});
}

TEST_CASE("haizea choices: fixed suspend and resume times") {
  // Not in VMs. X (4 nodes x 1000) from 0; an AR on 2 nodes over [500, 600) suspends it.
  // At the rate (1024 MB at 102.4 / 51.2 MB/s): suspend 10 s, X runs [0, 490), resumes
  // [600, 620) and runs [620, 1130). Fixed 30 s / 40 s: X runs [0, 470), suspends
  // [470, 500), resumes [600, 640) and runs its 530 s left [640, 1170).
  for (const bool fixed : {false, true}) {
    CAPTURE(fixed);
    scheduler_config<T> c;
    c.suspend = suspension::all;
    c.migrate = migration::none;
    c.in_vms = false;
    c.suspend_rate_mb_s = 102.4;
    c.resume_rate_mb_s = 51.2;
    if (fixed) {
      c.suspend_time_fixed = 30;
      c.resume_time_fixed = 40;
    }
    auto s = make(c);
    (void)s.submit(best_effort(1, 0, 4, 1000, 1000), 0);
    auto ar = reservation(2, 500, 100);
    ar.nodes = 2;
    (void)s.submit(ar, 100);
    run_to_end(s);
    const auto& x = s.lease(1).history;
    REQUIRE(x.size() == 2);
    CHECK(x[0].run == interval<T>{0, fixed ? 470 : 490});
    CHECK(x[1].span == interval<T>{600, fixed ? 1170 : 1130});
    CHECK(x[1].run == interval<T>{fixed ? 640 : 620, fixed ? 1170 : 1130});
  }
  scheduler_config<T> bad;
  bad.suspend_time_fixed = -1;
  CHECK_THROWS_WITH_AS(make(bad), "scheduler_config: suspend time -1 is negative", invalid_request);
}

TEST_CASE("haizea choices: re-planning the whole queue or sliding back on freed nodes") {
  // Two nodes, not in VMs. L1 (100 s) runs on node 0 over [0, 100); L2 (asks 100 s, ends
  // after 50) on node 1; L3 (100 s) is the queue head and holds a reservation from 100 on
  // node 0 (both nodes are free then; lowest id). At 50 L2 ends early and frees node 1:
  //  - whole_queue: L3 is unscheduled and planned again: it starts at once on node 1,
  //    [50, 150);
  //  - slide_back (Haizea): L3 keeps its booking; only leases booked after L2 on node 1 would
  //    move, and there are none: L3 runs [100, 200) on node 0.
  for (const replanning mode : {replanning::whole_queue, replanning::slide_back}) {
    CAPTURE(static_cast<int>(mode));
    auto c = in_vms();
    c.in_vms = false;
    c.replan = mode;
    auto s = make(c, 2);
    (void)s.submit(best_effort(1, 0, 1, 100, 100), 0);
    (void)s.submit(best_effort(2, 0, 1, 100, 50), 0);
    (void)s.submit(best_effort(3, 0, 1, 100, 100), 0);
    CHECK(s.lease(3).state == lease_state::scheduled);
    run_to_end(s);
    CHECK(only(s, 2).span == interval<T>{0, 50});
    if (mode == replanning::whole_queue) {
      CHECK(only(s, 3).span == interval<T>{50, 150});
      CHECK(only(s, 3).nodes == std::vector<std::size_t>{1});
    } else {
      CHECK(only(s, 3).span == interval<T>{100, 200});
      CHECK(only(s, 3).nodes == std::vector<std::size_t>{0});
    }
  }
}

TEST_CASE("haizea choices: sliding back moves later bookings earlier on their own nodes") {
  // One node. L1 asks 100 s and ends after 40; L2 (100 s) is booked for [100, 200) and L3
  // (conservative backfilling: every waiting lease holds a reservation) for [200, 300). At 40
  // L2 slides to [40, 140) and then L3, booked after it on the same node, to [140, 240). The
  // same happens by planning the whole queue again.
  for (const replanning mode : {replanning::whole_queue, replanning::slide_back}) {
    CAPTURE(static_cast<int>(mode));
    auto c = in_vms();
    c.in_vms = false;
    c.backfill = backfilling::conservative();
    c.replan = mode;
    auto s = make(c, 1);
    (void)s.submit(best_effort(1, 0, 1, 100, 40), 0);
    (void)s.submit(best_effort(2, 0, 1, 100, 100), 0);
    (void)s.submit(best_effort(3, 0, 1, 100, 100), 0);
    REQUIRE(s.lease(3).current.has_value());
    CHECK(s.lease(3).current->booked == interval<T>{200, 300});
    s.advance_to(40);
    CHECK(s.lease(2).state == lease_state::running);
    REQUIRE(s.lease(3).current.has_value());
    CHECK(s.lease(3).current->booked == interval<T>{140, 240});
    run_to_end(s);
    CHECK(only(s, 2).span == interval<T>{40, 140});
    CHECK(only(s, 3).span == interval<T>{140, 240});
  }
}

TEST_CASE("haizea choices: release() is an early end that slides later bookings back") {
  // One node, slide_back: L1 (unknown real duration: it runs until released) holds
  // [0, 1000); L2 (100 s) is booked for [1000, 1100). Released at 300, L1 frees the node and
  // L2 slides to [300, 400).
  auto c = in_vms();
  c.in_vms = false;
  c.replan = replanning::slide_back;
  auto s = make(c, 1);
  auto l1 = best_effort(1, 0, 1, 1000, 0);
  (void)s.submit(l1, 0);
  (void)s.submit(best_effort(2, 0, 1, 100, 100), 0);
  CHECK(s.lease(2).current->booked == interval<T>{1000, 1100});
  s.release(1, 300);
  CHECK(s.lease(2).state == lease_state::running);
  CHECK(s.lease(2).current->booked == interval<T>{300, 400});
  s.validate();
}

TEST_CASE("haizea choices: a migration's transfer first, on the destination's disk only") {
  // Not in VMs; suspending 1024 MB takes 10 s, resuming 20 s, migrating it 100 s. X (2 nodes
  // x 1000) runs on nodes 0, 1 and Y (2 nodes x 600) on nodes 2, 3; an AR on 2 nodes over
  // [500, 1500) suspends X over [490, 500).
  //  - with_resume: the transfer is booked on nodes 2, 3 with the resume, once Y is gone:
  //    [600, 700) transfer, [700, 720) resume, run [720, 1230).
  //  - transfer_first (Haizea): the transfer starts at 500, when X's suspension ends, holding
  //    1024 MB of disk on nodes 2, 3 beside Y; X resumes when both are done, at 600: resume
  //    [600, 620), run [620, 1130).
  for (const migration_step step : {migration_step::with_resume, migration_step::transfer_first}) {
    CAPTURE(static_cast<int>(step));
    scheduler_config<T> c;
    c.suspend = suspension::all;
    c.migrate = migration::allowed;
    c.migration_booking = step;
    c.in_vms = false;
    c.suspend_rate_mb_s = 102.4;
    c.resume_rate_mb_s = 51.2;
    c.network_mb_s = 10.24;
    auto s = make(c);
    (void)s.submit(best_effort(1, 0, 2, 1000, 1000), 0);
    (void)s.submit(best_effort(2, 0, 2, 600, 600), 0);
    auto ar = reservation(3, 500, 1000);
    ar.nodes = 2;
    (void)s.submit(ar, 100);
    s.advance_to(550);
    if (step == migration_step::transfer_first) {
      REQUIRE(s.lease(1).migration_transfer.has_value());
      CHECK(*s.lease(1).migration_transfer == interval<T>{500, 600});
      CHECK(s.lease(1).suspended_on == std::vector<std::size_t>{2, 3});
      // The transfer holds 1024 MB of disk on nodes 2 and 3 beside Y's booking.
      CHECK(s.table().node(2).free_at(550) == node_resources{0, 0, 10000 - 1024 - 1024, 10});
    }
    run_to_end(s);
    const auto& x = s.lease(1).history;
    REQUIRE(x.size() == 2);
    CHECK(x[1].nodes == std::vector<std::size_t>{2, 3});
    const bool first = step == migration_step::transfer_first;
    CHECK(x[1].span == interval<T>{600, first ? 1130 : 1230});
    CHECK(x[1].run == interval<T>{first ? 620 : 720, first ? 1130 : 1230});
    CHECK(s.lease(1).migrations == 1);
  }
}

}  // namespace haizea_choices_test
