// Which best-effort leases an advance reservation preempts on a node that lacks room for it
// (scheduler_config::preempt): every one in the way (all_overlapping, the default), or a
// minimal set (fewest leases, then least run time lost, then smallest ids). Every time is
// derived by hand in the comments.
//
// Unless a case says otherwise: one node of {2 CPUs, 2048 MB, 10000 MB disk, 10 MB/s}; every
// lease asks for {1 CPU, 1024 MB}; leases do not run in VMs; suspending 1024 MB takes
// 1024 / 102.4 = 10 s, resuming 1024 / 51.2 = 20 s; the minimum run before a suspension is
// suspend + resume = 30 s; no migration.

#include <doctest/doctest.h>

#include <cstdint>
#include <string>
#include <vector>

#include <leasehold/io/lease_checkpoint.hpp>
#include <leasehold/policy/lease/detail/best_effort_planning.hpp>
#include <leasehold/policy/lease/detail/reservation_admission.hpp>
#include <leasehold/policy/lease/lease_scheduler.hpp>

#include "io/corrupted_text.hpp"
#include "policy/lease/detail/small_book.hpp"
#include "policy/lease/scenarios.hpp"

namespace reservation_admission_test {

using namespace leasehold::test::lease_scenario_names;

namespace {

using node_table = cluster::slot_table<free_list<T, node_resources>>;
using nodes = std::vector<std::size_t>;

scheduler_config<T> test_config(preemption_set set, suspension s = suspension::all) {
  scheduler_config<T> c = config(s);
  c.preempt = set;
  return c;
}

lease_scheduler<> make_scheduler(const scheduler_config<T>& config,
                                 node_resources node = {2, 2048, 10000, 10}) {
  return lease_scheduler<>(node_table(1, node), config);
}

lease_terms<T> sized(lease_terms<T> t, std::int64_t cpus) {
  t.per_node = {cpus, 1024 * cpus, 0, 0};
  return t;
}

}  // namespace

// L1 and L2 (1000 s each) run side by side on the node from 0. A, submitted at 100 for one
// CPU over [500, 600), finds no node free.
TEST_CASE("reservation_admission: all_overlapping suspends both leases on a shared node") {
  auto s = make_scheduler(test_config(preemption_set::all_overlapping));
  // Both overlap A, so both run [0, 490) and suspend [490, 500) (490 s credited, 510 left).
  // At 500 both are requeued: A holds one CPU, so L1 (first in the queue) resumes at once on
  // the other: resume [500, 520), run [520, 1030). L2 waits for A's end: resume [600, 620),
  // run [620, 1130).
  run(s,
      {best_effort(1, 0, 1, 1000), best_effort(2, 0, 1, 1000), reservation(3, 100, 500, 1, 100)});
  CHECK(segments(s, 3) == std::vector<span_on>{{{500, 600}, nodes{0}}});
  CHECK(segments(s, 1) == std::vector<span_on>{{{0, 500}, nodes{0}}, {{500, 1030}, nodes{0}}});
  CHECK(segments(s, 2) == std::vector<span_on>{{{0, 500}, nodes{0}}, {{600, 1130}, nodes{0}}});
  CHECK(s.lease(1).suspensions == 1);
  CHECK(s.lease(2).suspensions == 1);
}

TEST_CASE("reservation_admission: minimal suspends one lease on a shared node") {
  auto s = make_scheduler(test_config(preemption_set::minimal));
  // One lease makes room; suspending either loses no run time, so the smaller id goes: L1
  // runs [0, 490), suspends [490, 500) and, the node full with A and L2 until 600, resumes
  // [600, 620) and runs [620, 1130). L2 runs [0, 1000) untouched.
  run(s,
      {best_effort(1, 0, 1, 1000), best_effort(2, 0, 1, 1000), reservation(3, 100, 500, 1, 100)});
  CHECK(segments(s, 3) == std::vector<span_on>{{{500, 600}, nodes{0}}});
  CHECK(segments(s, 1) == std::vector<span_on>{{{0, 500}, nodes{0}}, {{600, 1130}, nodes{0}}});
  CHECK(s.lease(1).history[0].run == interval<T>{0, 490});
  CHECK(segments(s, 2) == std::vector<span_on>{{{0, 1000}, nodes{0}}});
  CHECK(s.lease(2).suspensions == 0);
}

// Without suspension (NOVM-NOSR) a preempted running lease is cancelled, losing the time it
// has run. L1 starts at 0, L2 at 50; A is admitted at 100 for one CPU over [500, 600).
TEST_CASE("reservation_admission: all_overlapping cancels every lease in the way") {
  auto s = make_scheduler(test_config(preemption_set::all_overlapping, suspension::none));
  // Both are cancelled at 100 and requeued. L1 needs 1000 s unbroken on one CPU: A leaves the
  // other free, so it starts again at once, [100, 1100). L2 finds one CPU free only over
  // [100, 500) (400 s), then from 600: [600, 1600).
  run(s,
      {best_effort(1, 0, 1, 1000), best_effort(2, 50, 1, 1000), reservation(3, 100, 500, 1, 100)});
  CHECK(segments(s, 1) == std::vector<span_on>{{{0, 100}, nodes{0}}, {{100, 1100}, nodes{0}}});
  CHECK(segments(s, 2) == std::vector<span_on>{{{50, 100}, nodes{0}}, {{600, 1600}, nodes{0}}});
  CHECK(s.lease(1).cancellations == 1);
  CHECK(s.lease(2).cancellations == 1);
}

TEST_CASE("reservation_admission: minimal cancels the lease that loses least, before id order") {
  auto s = make_scheduler(test_config(preemption_set::minimal, suspension::none));
  // One lease makes room. Cancelling L1 would lose 100 s, L2 50 s: L2 goes, despite its
  // larger id. It is requeued at 100 and, needing 1000 s unbroken, runs [600, 1600). L1 runs
  // [0, 1000) untouched.
  run(s,
      {best_effort(1, 0, 1, 1000), best_effort(2, 50, 1, 1000), reservation(3, 100, 500, 1, 100)});
  CHECK(segments(s, 1) == std::vector<span_on>{{{0, 1000}, nodes{0}}});
  CHECK(segments(s, 2) == std::vector<span_on>{{{50, 100}, nodes{0}}, {{600, 1600}, nodes{0}}});
  CHECK(s.lease(1).cancellations == 0);
}

TEST_CASE("reservation_admission: minimal takes fewest leases before least run time lost") {
  // A node of 4 CPUs. Without suspension: L1 (2 CPUs) from 0, L2 and L3 (1 CPU each) from 50.
  // A, admitted at 100, needs 2 CPUs over [500, 600). Cancelling L1 alone loses 100 s;
  // cancelling L2 and L3 loses 50 + 50 = 100 s too, but takes two leases: L1 goes. Requeued
  // at 100, needing 2 CPUs for 1000 s unbroken, it runs after A, [600, 1600).
  auto s = make_scheduler(test_config(preemption_set::minimal, suspension::none),
                          node_resources{4, 4096, 10000, 10});
  run(s, {sized(best_effort(1, 0, 1, 1000), 2), best_effort(2, 50, 1, 1000),
          best_effort(3, 50, 1, 1000), sized(reservation(4, 100, 500, 1, 100), 2)});
  CHECK(segments(s, 1) == std::vector<span_on>{{{0, 100}, nodes{0}}, {{600, 1600}, nodes{0}}});
  CHECK(segments(s, 2) == std::vector<span_on>{{{50, 1050}, nodes{0}}});
  CHECK(segments(s, 3) == std::vector<span_on>{{{50, 1050}, nodes{0}}});
}

TEST_CASE("reservation_admission: minimal keeps a lease not in the way of the room needed") {
  // A node of 3 CPUs, with suspension. L1 and L2 (1 CPU each) run from 0; L3 (1 CPU, 300 s)
  // is submitted at 0 and runs [0, 300) too. A, admitted at 100, needs 2 CPUs over
  // [200, 400). Over [200, 300) all three hold the node; over [300, 400) L1 and L2 do, and L3
  // has ended. Room over [300, 400) needs one of L1, L2; over [200, 300) two of the three.
  // No lease is needed on its own, and no single one makes room; of the pairs, {L1, L2}
  // suspended lose nothing, as do {L1, L3} and {L2, L3}: the smallest ids, {L1, L2}, go.
  // Each runs [0, 190) and suspends [190, 200). L3 runs [0, 300); once it ends, one CPU is
  // free beside A, and L1 (first in the queue) resumes there: [300, 320), run [320, 1130).
  // L2 resumes when A ends: [400, 420), run [420, 1230).
  auto s = make_scheduler(test_config(preemption_set::minimal), node_resources{3, 3072, 10000, 10});
  run(s, {best_effort(1, 0, 1, 1000), best_effort(2, 0, 1, 1000), best_effort(3, 0, 1, 300),
          sized(reservation(4, 100, 200, 1, 200), 2)});
  CHECK(segments(s, 4) == std::vector<span_on>{{{200, 400}, nodes{0}}});
  CHECK(segments(s, 3) == std::vector<span_on>{{{0, 300}, nodes{0}}});
  CHECK(segments(s, 1) == std::vector<span_on>{{{0, 200}, nodes{0}}, {{300, 1130}, nodes{0}}});
  CHECK(segments(s, 2) == std::vector<span_on>{{{0, 200}, nodes{0}}, {{400, 1230}, nodes{0}}});
}

// In VMs (no slowdown, 20 s of boot + shutdown) on nodes of 1 CPU: a lease of 100 s starting
// at 0 books [0, 120), its run [0, 100) and its shutdown [100, 120). Suspending it takes 10 s
// and what a segment booked to suspend keeps after its run is max(10, 20) = 20 s.
scheduler_config<T> vm_config() {
  scheduler_config<T> c = test_config(preemption_set::all_overlapping);
  c.in_vms = true;
  c.runtime_slowdown_percent = 0;
  c.boot_shutdown = 20;
  return c;
}

lease_scheduler<> vm_scheduler(std::size_t nodes) {
  return lease_scheduler<>(node_table(nodes, node_resources{1, 1024, 10000, 10}), vm_config());
}

TEST_CASE("reservation_admission: a lease shutting down is not preempted") {
  // A, submitted at 105 for [110, 110 + 50 + 20 = 180), would need L1's node while L1 shuts
  // down: its work is done, there is nothing to suspend, and cancelling it would run all of it
  // again (to 300). A is rejected and L1 ends at 120.
  auto s = vm_scheduler(1);
  run(s, {best_effort(1, 0, 1, 100), reservation(2, 105, 110, 1, 50)});
  CHECK(segments(s, 1) == std::vector<span_on>{{{0, 120}, nodes{0}}});
  CHECK(s.lease(1).cancellations == 0);
  CHECK(s.lease(1).end == 120);
  CHECK(s.lease(2).state == lease_state::rejected);
  CHECK(s.lease(2).rejection.find("only 0 of 1 nodes can hold it") != std::string::npos);
}

TEST_CASE("reservation_admission: a reservation passes over a lease shutting down") {
  // Two nodes: L1 (100 s) on node 0, [0, 120); L2 (1000 s) on node 1, [0, 1020). A, submitted
  // at 105 for [115, 185), can preempt only L2. Suspending it would end its run at
  // 115 - 20 = 95, before now: it is cancelled (105 s lost) and requeued. Planned again at
  // 105, it needs 30 s of run (suspend + resume) and 20 s after it free: node 1 is free only
  // [105, 115), node 0 from 120 on for good, so it runs whole there: [120, 1140).
  auto s = vm_scheduler(2);
  run(s, {best_effort(1, 0, 1, 100), best_effort(2, 0, 1, 1000), reservation(3, 105, 115, 1, 50)});
  CHECK(segments(s, 3) == std::vector<span_on>{{{115, 185}, nodes{1}}});
  CHECK(segments(s, 1) == std::vector<span_on>{{{0, 120}, nodes{0}}});
  CHECK(segments(s, 2) == std::vector<span_on>{{{0, 105}, nodes{1}}, {{120, 1140}, nodes{0}}});
  CHECK(s.lease(2).cancellations == 1);
}

TEST_CASE("reservation_admission: a preempted lease keeps its shutdown inside its booking") {
  // A, submitted at 50 for [110, 180), overlaps L1's shutdown [100, 120). L1 is suspended, its
  // booking ending at 110 and its run max(10, 20) = 20 s before: run [0, 90) (90 s credited),
  // suspension [90, 100), where running to 100 would leave a 20 s shutdown 10 s to end by
  // 110. Requeued at 110, it resumes after A: resume [180, 200), run [200, 210), shutdown
  // [210, 230).
  auto s = vm_scheduler(1);
  run(s, {best_effort(1, 0, 1, 100), reservation(2, 50, 110, 1, 50)});
  CHECK(segments(s, 1) == std::vector<span_on>{{{0, 110}, nodes{0}}, {{180, 230}, nodes{0}}});
  CHECK(s.lease(1).history[0].run == interval<T>{0, 90});
  CHECK(s.lease(1).history[0].work == 90);
  CHECK(s.lease(1).history[1].run == interval<T>{200, 210});
  CHECK(s.lease(1).suspensions == 1);
}

TEST_CASE("reservation_admission: a preempt value out of range is refused") {
  auto config = test_config(preemption_set::minimal);
  config.preempt = static_cast<preemption_set>(7);
  CHECK_THROWS_WITH_AS(
      make_scheduler(config),
      doctest::Contains("preempt is 7, neither all_overlapping (0) nor minimal (1)"),
      invalid_request);
}

TEST_CASE("reservation_admission: the preempted set survives a checkpoint") {
  auto s = make_scheduler(test_config(preemption_set::minimal));
  (void)s.submit(best_effort(1, 0, 1, 1000), 0);
  const std::string text = io::save_scheduler(s);
  CHECK(text.find("\"preempt\": \"minimal\"") != std::string::npos);
  CHECK(io::load_scheduler<lease_scheduler<>>(text).config().preempt == preemption_set::minimal);
  // Written before the option existed: all_overlapping, as then.
  const std::string older =
      leasehold::testing::replaced(text, ",\n    \"preempt\": \"minimal\"", "");
  CHECK(io::load_scheduler<lease_scheduler<>>(older).config().preempt ==
        preemption_set::all_overlapping);
  const std::string unknown =
      leasehold::testing::replaced(text, "\"preempt\": \"minimal\"", "\"preempt\": \"fewest\"");
  CHECK_THROWS_WITH_AS((void)io::load_scheduler<lease_scheduler<>>(unknown),
                       doctest::Contains("fewest"), leasehold::error);
}

// The admission alone, on a hand-built book (small_book.hpp: one node, the same leases and
// times as above): L1 and L2 run side by side from 0; at 100, A asks for one CPU over
// [500, 600).
TEST_CASE("reservation_admission: admit, driven directly, suspends both leases in the way") {
  namespace sb = leasehold::test::small_book;
  sb::book b = sb::make(1);
  sb::add_queued(b, best_effort(1, 0, 1, 1000));
  sb::add_queued(b, best_effort(2, 0, 1, 1000));
  policy::lease::detail::best_effort_planning<sb::book>(b).reevaluate();
  REQUIRE(b.lease(1).current->booked == interval<T>{0, 1000});
  REQUIRE(b.lease(2).current->booked == interval<T>{0, 1000});
  b.move_clock(100);
  policy::lease::detail::reservation_admission<sb::book> admission(b);
  CHECK(admission.is_preemptible(b.lease(1)));
  sb::record& a = sb::add(b, reservation(3, 100, 500, 1, 100));
  CHECK(admission.admit(a).empty());
  // Each is cut short to suspend [490, 500) (a 10 s suspension ending at A's start).
  for (const std::uint64_t id : {std::uint64_t{1}, std::uint64_t{2}}) {
    const auto& seg = *b.lease(id).current;
    CHECK(seg.booked == interval<T>{0, 500});
    CHECK(seg.run == interval<T>{0, 490});
    CHECK(seg.suspends);
    CHECK(!seg.completes);
    CHECK(seg.finish == 500);
  }
  CHECK(b.lease(3).state == lease_state::scheduled);
  CHECK(b.lease(3).current->booked == interval<T>{500, 600});
  CHECK(!admission.is_preemptible(b.lease(3)));
  CHECK_NOTHROW(b.validate());
}

}  // namespace reservation_admission_test
