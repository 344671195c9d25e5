// policy::staging::image_staging plugged into the lease scheduler (Haizea §3.1-§3.2):
// hand-computed transfers, caches and node choice, randomised invariants, and bad input.
//
// Unless a case says otherwise: 4 nodes of {1 CPU, 1024 MB, 10000 MB disk, 10 MB/s}; leases
// ask {1 CPU, 1024 MB} per node and do not run in VMs (no slowdown, no boot or shutdown);
// the link is 10 MB/s, so a 1000 MB image takes 100 s; each node caches 3000 MB.

#include <doctest/doctest.h>

#include <cstdint>
#include <string>
#include <vector>

#include <leasehold/policy/lease/lease_scheduler.hpp>
#include <leasehold/policy/staging/image_staging.hpp>
#include <leasehold/sim/lease_simulation.hpp>
#include <leasehold/sim/workload/random.hpp>

namespace image_staging_test {

using namespace leasehold;
using namespace leasehold::policy::lease;
using namespace leasehold::policy::staging;

namespace {

using T = std::int64_t;
using node_table = cluster::slot_table<free_list<T, node_resources>>;
using staged_scheduler = lease_scheduler<free_list<T, node_resources>, image_staging<>>;
using nodes = std::vector<std::size_t>;

scheduler_config<T> test_config() {
  scheduler_config<T> c;
  c.in_vms = false;
  c.suspend = suspension::none;
  c.migrate = migration::none;
  return c;
}

image_staging<> make_staging(std::size_t count = 4, staging_config sc = {}) {
  sc.bandwidth_mb_s = 10.0;
  if (sc.cache_mb == staging_config{}.cache_mb) sc.cache_mb = 3000;
  image_staging<> staging(count, sc);
  for (const char* id : {"A", "B", "C", "D", "E"}) staging.add_image({id, 1000});
  return staging;
}

staged_scheduler make_scheduler(staging_config sc = {}, std::size_t count = 4) {
  return staged_scheduler(node_table(count, node_resources{1, 1024, 10000, 10}), test_config(),
                          make_staging(count, sc));
}

lease_terms<T> best_effort(std::uint64_t id, T submit, std::int64_t n, T duration,
                           const std::string& image) {
  lease_terms<T> t;
  t.id = id;
  t.submit = submit;
  t.kind = lease_kind::best_effort;
  t.nodes = n;
  t.per_node = {1, 1024, 0, 0};
  t.duration = duration;
  t.real_duration = duration;
  t.image = disk_image{image, 1000};
  return t;
}

lease_terms<T> reservation(std::uint64_t id, T submit, T start, std::int64_t n, T duration,
                           const std::string& image) {
  lease_terms<T> t = best_effort(id, submit, n, duration, image);
  t.kind = lease_kind::advance_reservation;
  t.start = start;
  t.preemptible = false;
  return t;
}

// The transfers booked now, as (span, destinations), by id.
std::vector<std::pair<interval<T>, nodes>> booked(const staged_scheduler& s) {
  std::vector<std::pair<interval<T>, nodes>> result;
  for (const auto& [id, tr] : s.preparation_step().transfers())
    result.emplace_back(tr.span, tr.nodes);
  return result;
}

void check(const staged_scheduler& s) {
  s.validate();
  s.preparation_step().validate();
}

void run_to_end(staged_scheduler& s) {
  while (s.next_event_time()) {
    s.advance_to(*s.next_event_time());
    check(s);
  }
}

}  // namespace

TEST_CASE("image_staging: an advance reservation's multicast ends exactly at its start") {
  auto s = make_scheduler();
  // AR 1 at 1000 on 2 nodes: nothing cached, so one multicast of A to nodes 0 and 1 (lowest
  // ids, all equal otherwise), as late as possible: [1000 - 100, 1000).
  CHECK(s.submit(reservation(1, 0, 1000, 2, 500, "A"), 0).outcome == admission::accepted);
  check(s);
  CHECK(booked(s) == std::vector<std::pair<interval<T>, nodes>>{{{900, 1000}, nodes{0, 1}}});
  const auto& tr = s.preparation_step().transfers().begin()->second;
  CHECK(tr.deadline_driven);
  CHECK(tr.deadline() == 1000);
  CHECK(s.preparation_step().cache(0).find("A")->arrival == 1000);
  CHECK(s.preparation_step().cache(2).find("A") == nullptr);
  run_to_end(s);
  CHECK(s.lease(1).history.at(0).span == interval<T>{1000, 1500});
  const auto stats = s.preparation_step().stats();
  CHECK(stats.cache_misses == 2);
  CHECK(stats.transfers == 1);
  CHECK(stats.mb_transferred == 1000);  // a multicast leaves the repository once
  CHECK(stats.mb_delivered == 2000);
}

TEST_CASE("image_staging: unicast sends one transfer per node back to back") {
  staging_config sc;
  sc.mechanism = transfer_mechanism::unicast;
  auto s = make_scheduler(sc);
  // Two transfers of 100 s ending by 1000: the later placed first as late as possible.
  CHECK(s.submit(reservation(1, 0, 1000, 2, 500, "A"), 0).outcome == admission::accepted);
  check(s);
  const auto b = booked(s);
  REQUIRE(b.size() == 2);
  CHECK(((b[0].first == interval<T>{800, 900} && b[1].first == interval<T>{900, 1000}) ||
         (b[0].first == interval<T>{900, 1000} && b[1].first == interval<T>{800, 900})));
  CHECK(b[0].second.size() == 1);
  CHECK(b[1].second.size() == 1);
}

TEST_CASE("image_staging: advance reservations' transfers stack as late as possible (EDF)") {
  auto s = make_scheduler();
  // AR 1: node 0 over [1000, 1100), image A: transfer [900, 1000).
  // AR 2 (at 10): [1050, 1150) needs a node free then: node 0 is taken, nodes 1-3 equal, so
  //   node 1; image B must end by 1050: placed first (latest deadline) at [950, 1050), which
  //   pushes A's transfer back to end right where B's begins: [850, 950).
  CHECK(s.submit(reservation(1, 0, 1000, 1, 100, "A"), 0).outcome == admission::accepted);
  CHECK(booked(s) == std::vector<std::pair<interval<T>, nodes>>{{{900, 1000}, nodes{0}}});
  CHECK(s.submit(reservation(2, 10, 1050, 1, 100, "B"), 10).outcome == admission::accepted);
  check(s);
  CHECK(booked(s) == std::vector<std::pair<interval<T>, nodes>>{{{850, 950}, nodes{0}},
                                                                {{950, 1050}, nodes{1}}});
  // AR 3 (at 20): [1000, 1100) on node 2 with image C, deadline 1000. Latest deadline first:
  //   B [950, 1050); then the deadline-1000 transfers, the newer first: C [850, 950), A
  //   [750, 850). Every transfer still ends by its deadline.
  CHECK(s.submit(reservation(3, 20, 1000, 1, 100, "C"), 20).outcome == admission::accepted);
  check(s);
  CHECK(booked(s) == std::vector<std::pair<interval<T>, nodes>>{
                         {{750, 850}, nodes{0}}, {{950, 1050}, nodes{1}}, {{850, 950}, nodes{2}}});
  CHECK(s.preparation_step().cache(0).find("A")->arrival == 850);
  // AR 4 (at 800, while A's transfer runs): [900, 1000) with image D needs 100 s of link
  //   ending by 900; [750, 850) is under way and C, B fill [850, 1050): not viable. Nothing
  //   changes.
  s.advance_to(800);
  const auto before = booked(s);
  const auto r = s.submit(reservation(4, 800, 900, 1, 100, "D"), 800);
  CHECK(r.outcome == admission::rejected);
  CHECK(r.reason == "its image D (1000 MB) cannot reach 1 nodes by its start 900");
  CHECK(booked(s) == before);
  check(s);
  run_to_end(s);
  for (std::uint64_t id : {1u, 2u, 3u}) CHECK(s.lease(id).state == lease_state::done);
}

TEST_CASE("image_staging: a best-effort lease reusing a cached image starts without a transfer") {
  auto s = make_scheduler();
  // BE 1 at 0, image A: the earliest transfer slot is [0, 100), so it runs [100, 200) on
  // node 0 (all nodes are ready at 100; lowest id).
  (void)s.submit(best_effort(1, 0, 1, 100, "A"), 0);
  check(s);
  CHECK(booked(s) == std::vector<std::pair<interval<T>, nodes>>{{{0, 100}, nodes{0}}});
  run_to_end(s);
  CHECK(s.lease(1).history.at(0).span == interval<T>{100, 200});
  // BE 2 at 300, image A: node 0 holds it (unreferenced since 200, still cached), so node 0
  // is ready at once while the others would wait 100 s: it starts at 300, no transfer.
  (void)s.submit(best_effort(2, 300, 1, 50, "A"), 300);
  check(s);
  CHECK(booked(s).empty());
  run_to_end(s);
  CHECK(s.lease(2).history.at(0).span == interval<T>{300, 350});
  CHECK(s.lease(2).history.at(0).nodes == nodes{0});
  const auto stats = s.preparation_step().stats();
  CHECK(stats.cache_hits == 1);
  CHECK(stats.cache_misses == 1);
  CHECK(stats.transfers == 1);
  CHECK(s.preparation_step().finished_transfers().size() == 1);
}

TEST_CASE("image_staging: without reuse (VM-MULT) every lease gets its own transfer") {
  auto s = make_scheduler(staging_config::vm_mult());
  (void)s.submit(best_effort(1, 0, 1, 100, "A"), 0);
  run_to_end(s);
  CHECK(s.preparation_step().cache(0).entries().empty());  // discarded at the lease's end
  // BE 2 at 300: nothing cached, a new transfer [300, 400), run [400, 450).
  (void)s.submit(best_effort(2, 300, 1, 50, "A"), 300);
  run_to_end(s);
  CHECK(s.lease(2).history.at(0).span == interval<T>{400, 450});
  CHECK(s.preparation_step().stats().transfers == 2);
  CHECK(s.preparation_step().stats().cache_hits == 0);
}

TEST_CASE("image_staging: a lease planned again keeps its private copy (VM-MULT)") {
  // Without reuse a lease's copy is its own. When the lease is unbooked before it begins
  // (the queue planned again at an event, or slide-back re-planning) and booked again at the
  // same instant, it adopts the copy that already arrived instead of fetching its image anew.
  auto s = make_scheduler(staging_config::vm_mult(), 2);
  // All at 0 on 2 nodes:
  // BE 1 (2 nodes x 1000 s, B): transfer [0, 100), runs [100, 1100) on nodes 0 and 1.
  // BE 2 (2 nodes x 50 s, A): the nodes are busy until 1100: the future reservation, its
  //   multicast in the link's earliest slot [100, 200), booked [1100, 1150).
  (void)s.submit(best_effort(1, 0, 2, 1000, "B"), 0);
  (void)s.submit(best_effort(2, 0, 2, 50, "A"), 0);
  CHECK(booked(s) == std::vector<std::pair<interval<T>, nodes>>{{{0, 100}, nodes{0, 1}},
                                                                {{100, 200}, nodes{0, 1}}});
  CHECK(s.lease(2).current->booked == interval<T>{1100, 1150});
  // At 500 BE 3 (1 node x 10 s, C) arrives: the queue is planned again; BE 2 is unbooked and
  // booked again at [1100, 1150), with the copies that arrived at 200 (no new transfer). BE 3
  // cannot start before 1100 and the one reservation is BE 2's: it waits.
  s.advance_to(500);
  (void)s.submit(best_effort(3, 500, 1, 10, "C"), 500);
  check(s);
  CHECK(booked(s).empty());
  CHECK(s.lease(2).current->booked == interval<T>{1100, 1150});
  CHECK(s.preparation_step().cache(0).find("A@lease-2")->references == 1);
  // At 1100 BE 1 ends and BE 2 begins; BE 3 is planned: node 0 is free at 1150, its transfer
  // takes [1100, 1200), so it runs [1200, 1210) on node 0.
  run_to_end(s);
  CHECK(s.lease(2).history.at(0).span == interval<T>{1100, 1150});
  CHECK(s.lease(3).history.at(0).span == interval<T>{1200, 1210});
  CHECK(s.lease(3).history.at(0).nodes == nodes{0});
  const auto stats = s.preparation_step().stats();
  CHECK(stats.transfers == 3);     // B, A and C once each
  CHECK(stats.cache_misses == 3);  // BE 1 on nodes 0 and 1, BE 3 on node 0
  CHECK(stats.cache_hits == 2);    // BE 2 found its own copies on nodes 0 and 1
  for (std::size_t node = 0; node < 2; ++node)
    CHECK(s.preparation_step().cache(node).entries().empty());  // discarded at the ends
}

TEST_CASE("image_staging: a private copy left behind on a node the lease leaves is dropped") {
  auto s = make_scheduler(staging_config::vm_mult(), 2);
  // All at 0 on 2 nodes:
  // BE 1 (1 node x 1000 s, B): transfer [0, 100), runs [100, 1100) on node 0.
  // BE 2 (1 node x 1000 s requested, 200 s real, C): transfer [100, 200), booked [200, 1200)
  //   on node 1; it really ends at 400.
  // BE 3 (1 node x 50 s, A): node 0 is free at 1100, node 1 at 1200: the future reservation
  //   on node 0 at 1100, its transfer in the link's earliest slot [200, 300).
  (void)s.submit(best_effort(1, 0, 1, 1000, "B"), 0);
  auto be2 = best_effort(2, 0, 1, 1000, "C");
  be2.real_duration = 200;
  (void)s.submit(be2, 0);
  (void)s.submit(best_effort(3, 0, 1, 50, "A"), 0);
  CHECK(s.lease(3).current->booked == interval<T>{1100, 1150});
  CHECK(s.lease(3).current->nodes == nodes{0});
  // At 400 BE 2 ends early and the queue is planned again: BE 3's copy on node 0 (arrived at
  // 300) makes node 0 ready now, but node 0 is busy until 1100; node 1 is free and a new
  // transfer [400, 500) gets the image there: [500, 550) on node 1. The copy left on node 0
  // is dropped.
  s.advance_to(400);
  check(s);
  CHECK(s.lease(3).current->booked == interval<T>{500, 550});
  CHECK(s.lease(3).current->nodes == nodes{1});
  CHECK(s.preparation_step().cache(0).find("A@lease-3") == nullptr);
  run_to_end(s);
  CHECK(s.lease(3).history.at(0).span == interval<T>{500, 550});
  CHECK(s.preparation_step().stats().transfers == 4);  // B, C, A to node 0, A to node 1
  for (std::size_t node = 0; node < 2; ++node)
    CHECK(s.preparation_step().cache(node).entries().empty());
}

TEST_CASE("image_staging: a lease piggybacks on a transfer booked for another") {
  auto config = test_config();
  config.backfill = backfilling::conservative();  // every queued lease is planned at once
  staged_scheduler s(node_table(4, node_resources{1, 1024, 10000, 10}), config, make_staging());
  // AR 1 on nodes 0, 1 over [1000, 1100), image A: multicast [900, 1000).
  // BE 2 at 0, 1 node x 50, image A: on nodes 0 and 1, A arrives at 1000 through AR 1's
  //   multicast (a lease rides along with a booked transfer rather than booking a second one
  //   to the same node); nodes 2 and 3 need a new transfer, earliest [0, 100).
  //   It runs [100, 150) on node 2.
  CHECK(s.submit(reservation(1, 0, 1000, 2, 100, "A"), 0).outcome == admission::accepted);
  (void)s.submit(best_effort(2, 0, 1, 50, "A"), 0);
  check(s);
  CHECK(booked(s) == std::vector<std::pair<interval<T>, nodes>>{{{900, 1000}, nodes{0, 1}},
                                                                {{0, 100}, nodes{2}}});
  // BE 3 at 0, 1 node x 50, image A: on node 2, A arrives at 100 through BE 2's transfer and
  //   the node is free from 150; node 3 needs a new transfer, earliest [100, 200). It is
  //   planned at 150 on node 2, riding along with BE 2's transfer: no new transfer.
  (void)s.submit(best_effort(3, 0, 1, 50, "A"), 0);
  check(s);
  CHECK(booked(s).size() == 2);
  CHECK(s.lease(3).current->booked == interval<T>{150, 200});
  CHECK(s.lease(3).current->nodes == nodes{2});
  for (const auto& [id, tr] : s.preparation_step().transfers())
    if (tr.nodes == nodes{2}) CHECK(tr.users.size() == 2);
  CHECK(s.preparation_step().cache(2).find("A")->references == 2);
  run_to_end(s);
  CHECK(s.lease(2).history.at(0).span == interval<T>{100, 150});
  CHECK(s.lease(3).history.at(0).span == interval<T>{150, 200});
  CHECK(s.lease(3).history.at(0).nodes == nodes{2});
  const auto stats = s.preparation_step().stats();
  // BE 3 waits only for an image arriving through a transfer, so it is booked as starting
  // now (not as a future reservation that re-evaluation would plan again): a piggyback.
  CHECK(stats.piggybacks == 1);
  CHECK(stats.cache_hits == 0);
  CHECK(stats.cache_misses == 3);  // AR 1 on nodes 0 and 1, BE 2 on node 2
  CHECK(stats.transfers == 2);
}

TEST_CASE("image_staging: joining a scheduled multicast (VM-MULT, Haizea's piggybacking)") {
  // §3.2: the image "can be made available on the node ... by piggybacking on a scheduled
  // multicast". Without reuse every lease gets its own copy, but one multicast not yet
  // started can carry the copies of several leases to as many nodes as they need.
  for (const auto mode : {piggybacking::join_multicast, piggybacking::same_node}) {
    CAPTURE(mode);
    auto sc = staging_config::vm_mult();
    sc.piggyback = mode;
    auto s = make_scheduler(sc);
    // All at 0, 1 node each:
    // BE 1 (image B, 500 s): the link's earliest slot is [0, 100); it runs [100, 600) on
    //   node 0.
    // BE 2 (image A, 50 s): next slot [100, 200); node 0 is busy, so [200, 250) on node 1.
    (void)s.submit(best_effort(1, 0, 1, 500, "B"), 0);
    (void)s.submit(best_effort(2, 0, 1, 50, "A"), 0);
    // BE 3 (image A, 50 s):
    //  - join_multicast: BE 2's multicast [100, 200) has not started and carries A, so every
    //    node without A is ready at 200 (a new transfer would end at 300); node 1 is taken
    //    then, node 2 is free: [200, 250) on node 2, which joins the multicast.
    //  - same_node: no node has A@lease-3 on its way, so a new transfer [200, 300); at 300
    //    nodes 1-3 are free and node 1 is the lowest: [300, 350) on node 1.
    (void)s.submit(best_effort(3, 0, 1, 50, "A"), 0);
    check(s);
    if (mode == piggybacking::join_multicast) {
      CHECK(booked(s) == std::vector<std::pair<interval<T>, nodes>>{{{0, 100}, nodes{0}},
                                                                    {{100, 200}, nodes{1, 2}}});
      CHECK(s.lease(3).current->booked == interval<T>{200, 250});
      CHECK(s.lease(3).current->nodes == nodes{2});
      // Each lease's own copy: A@lease-2 on node 1, A@lease-3 on node 2, both arriving at 200.
      CHECK(s.preparation_step().cache(2).find("A@lease-3")->arrival == 200);
      CHECK(s.preparation_step().cache(1).find("A@lease-2")->arrival == 200);
    } else {
      CHECK(booked(s) == std::vector<std::pair<interval<T>, nodes>>{
                             {{0, 100}, nodes{0}}, {{100, 200}, nodes{1}}, {{200, 300}, nodes{1}}});
      CHECK(s.lease(3).current->booked == interval<T>{300, 350});
      CHECK(s.lease(3).current->nodes == nodes{1});
    }
    run_to_end(s);
    CHECK(s.lease(2).history.at(0).span == interval<T>{200, 250});
    const auto stats = s.preparation_step().stats();
    if (mode == piggybacking::join_multicast) {
      CHECK(s.lease(3).history.at(0).span == interval<T>{200, 250});
      CHECK(stats.transfers == 2);
      CHECK(stats.cache_misses == 2);  // BE 1 on node 0, BE 2 on node 1
      CHECK(stats.piggybacks == 1);    // BE 3 on node 2
      CHECK(stats.mb_transferred == 2000);
      CHECK(stats.mb_delivered == 3000);  // B to node 0, A to nodes 1 and 2
    } else {
      CHECK(s.lease(3).history.at(0).span == interval<T>{300, 350});
      CHECK(stats.transfers == 3);
      CHECK(stats.cache_misses == 3);
      CHECK(stats.piggybacks == 0);
    }
    for (std::size_t node = 0; node < 4; ++node)
      CHECK(s.preparation_step().cache(node).entries().empty());  // private copies discarded
  }
}

TEST_CASE("image_staging: a lease leaving a shared multicast takes only its own copy off it") {
  // Without reuse, two leases' private copies can reach one node through one multicast.
  auto sc = staging_config::vm_mult();
  sc.piggyback = piggybacking::join_multicast;
  auto s = make_scheduler(sc, 2);
  // All at 0, 1 node each, on 2 nodes:
  // BE 1 (B, 500 s): transfer [0, 100), runs [100, 600) on node 0.
  // BE 2 (A, 50 s): transfer [100, 200), runs [200, 250) on node 1.
  // BE 3 (A, 50 s): joining BE 2's multicast, both nodes are ready at 200 (a new transfer
  //   would end at 300); node 0 is busy until 600 and node 1 until 250: [250, 300) on node 1,
  //   a start no later than a new transfer's end, so booked for good. Node 1 already is a
  //   destination: the multicast now carries A@lease-2 and A@lease-3 to it.
  (void)s.submit(best_effort(1, 0, 1, 500, "B"), 0);
  (void)s.submit(best_effort(2, 0, 1, 50, "A"), 0);
  (void)s.submit(best_effort(3, 0, 1, 50, "A"), 0);
  check(s);
  CHECK(booked(s) ==
        std::vector<std::pair<interval<T>, nodes>>{{{0, 100}, nodes{0}}, {{100, 200}, nodes{1}}});
  CHECK(s.lease(3).current->booked == interval<T>{250, 300});
  CHECK(s.lease(3).current->nodes == nodes{1});
  CHECK(s.preparation_step().cache(1).used_mb() == 2000);
  // BE 3 is withdrawn at 50, before the multicast starts: its copy no longer goes to node 1
  // (its 1000 MB are free again), but BE 2's still does, so node 1 stays a destination.
  CHECK(s.withdraw(3, 50));
  check(s);
  CHECK(booked(s) ==
        std::vector<std::pair<interval<T>, nodes>>{{{0, 100}, nodes{0}}, {{100, 200}, nodes{1}}});
  CHECK(s.preparation_step().cache(1).used_mb() == 1000);
  CHECK(s.preparation_step().cache(1).find("A@lease-3") == nullptr);
  for (const auto& [id, tr] : s.preparation_step().transfers())
    if (tr.image == "A") CHECK(tr.users.size() == 1);
  run_to_end(s);
  CHECK(s.lease(2).history.at(0).span == interval<T>{200, 250});
  CHECK(s.lease(2).history.at(0).nodes == nodes{1});
  CHECK(s.preparation_step().stats().transfers == 2);
  CHECK(s.preparation_step().stats().mb_delivered == 2000);
}

TEST_CASE("image_staging: transfers under way and advance reservations' are not joined") {
  auto sc = staging_config::vm_reuse();
  sc.piggyback = piggybacking::join_multicast;
  auto s = make_scheduler(sc);
  // AR 1 on nodes 0, 1 over [1000, 1100), image A: multicast [900, 1000), deadline-driven.
  // BE 2 at 0 (1 node x 50, A): nodes 0 and 1 get A at 1000 through AR 1's multicast; nodes 2
  //   and 3 cannot join it (EDF may still move it), so a new transfer [0, 100): [100, 150) on
  //   node 2.
  CHECK(s.submit(reservation(1, 0, 1000, 2, 100, "A"), 0).outcome == admission::accepted);
  (void)s.submit(best_effort(2, 0, 1, 50, "A"), 0);
  CHECK(booked(s) == std::vector<std::pair<interval<T>, nodes>>{{{900, 1000}, nodes{0, 1}},
                                                                {{0, 100}, nodes{2}}});
  // BE 3 at 50 (2 nodes x 50, A): BE 2's multicast has been under way since 0, too late to
  //   take another destination. Node 2 gets A at 100 (free from 150), node 3 needs a new
  //   transfer in the link's earliest slot, [100, 200): it starts at 200 on nodes 2 and 3.
  //   (Had BE 2's multicast been joinable, node 3 would have been ready at 100 and the lease
  //   would have started at 150.)
  s.advance_to(50);
  (void)s.submit(best_effort(3, 50, 2, 50, "A"), 50);
  check(s);
  CHECK(booked(s) == std::vector<std::pair<interval<T>, nodes>>{
                         {{900, 1000}, nodes{0, 1}}, {{0, 100}, nodes{2}}, {{100, 200}, nodes{3}}});
  CHECK(s.lease(3).current->booked == interval<T>{200, 250});
  CHECK(s.lease(3).current->nodes == nodes{2, 3});
  run_to_end(s);
  CHECK(s.lease(3).history.at(0).span == interval<T>{200, 250});
  CHECK(s.preparation_step().stats().transfers == 3);
}

TEST_CASE("image_staging: advance reservations prefer nodes holding the image") {
  auto s = make_scheduler();
  // BE 1 (image B, 500 s): transfer [0, 100), runs [100, 600) on node 0.
  // BE 2 (image A, 50 s): the next transfer slot is [100, 200); node 0 is busy until 600, so
  //   it runs [200, 250) on node 1, which then caches A.
  (void)s.submit(best_effort(1, 0, 1, 500, "B"), 0);
  (void)s.submit(best_effort(2, 0, 1, 50, "A"), 0);
  run_to_end(s);
  CHECK(s.lease(1).history.at(0).span == interval<T>{100, 600});
  CHECK(s.lease(2).history.at(0).span == interval<T>{200, 250});
  CHECK(s.lease(2).history.at(0).nodes == nodes{1});
  // AR 3 for image A on 1 node at 2000: every node is free then; node 1 holds A (rank 0),
  // so it is chosen over node 0 (lower id) and no transfer is booked.
  CHECK(s.submit(reservation(3, 700, 2000, 1, 100, "A"), 700).outcome == admission::accepted);
  CHECK(booked(s).empty());
  run_to_end(s);
  CHECK(s.lease(3).history.at(0).nodes == nodes{1});
  CHECK(s.preparation_step().stats().cache_hits == 1);
}

TEST_CASE(
    "image_staging: a reservation viable only by reusing images gets the nodes holding them") {
  // Haizea §3.2's exception to "nodes needing no preemption first".
  staging_config sc;
  sc.cache_mb = 10000;
  image_staging<> staging(4, sc);
  staging.add_image({"A", 1000});
  staging.add_image({"big", 9000});
  staging.add_image({"C", 1000});
  staged_scheduler s(node_table(4, node_resources{1, 1024, 10000, 10}), test_config(),
                     std::move(staging));
  // BE 1 at 0: A to node 0 over [0, 100), then it runs [100, 5100) there.
  (void)s.submit(best_effort(1, 0, 1, 5000, "A"), 0);
  // AR 2 at 200 for [1200, 1300) with a 9000 MB image (900 s): node 1 (node 0 is busy, the
  //   rest equal), transfer [300, 1200).
  auto big = reservation(2, 200, 1200, 1, 100, "big");
  big.image = disk_image{"big", 9000};
  CHECK(s.submit(big, 200).outcome == admission::accepted);
  CHECK(booked(s) == std::vector<std::pair<interval<T>, nodes>>{{{300, 1200}, nodes{1}}});
  // AR 3 at 210 for [1200, 1300) with image A. Nodes 2 and 3 need no preemption but need A,
  //   and the link is free only over [210, 300), too short for 100 s: not viable there.
  //   Node 0 holds A: with it the lease is viable, so it gets node 0, and BE 1 (which cannot
  //   be suspended in this configuration) is cancelled and requeued.
  CHECK(s.submit(reservation(3, 210, 1200, 1, 100, "A"), 210).outcome == admission::accepted);
  check(s);
  CHECK(s.lease(3).current->nodes == nodes{0});
  CHECK(s.lease(1).cancellations == 1);
  CHECK(booked(s).size() == 1);
  // Without image A on node 0 nothing would have worked: an AR for image C is refused.
  CHECK(s.submit(reservation(4, 220, 1200, 1, 100, "C"), 220).outcome == admission::rejected);
  check(s);
}

TEST_CASE("image_staging: the disk is never over-committed (randomised)") {
  // 6 nodes with room for 2 images each, 5 images, a mix of best-effort leases and ARs,
  // multicast and unicast, LRU and LFU, with and without reuse, piggybacking on the same node
  // only or joining multicasts: after every step the slot table, the caches, the transfers and
  // the link agree, and no cache holds more than 2000 MB.
  for (int variant = 0; variant < 6; ++variant) {
    CAPTURE(variant);
    staging_config sc;
    sc.cache_mb = 2000;
    sc.mechanism = variant % 2 == 0 || variant >= 4 ? transfer_mechanism::multicast
                                                    : transfer_mechanism::unicast;
    sc.eviction = variant < 2 || variant >= 4 ? eviction_policy::lru : eviction_policy::lfu;
    sc.reuse = variant != 3 && variant != 5;
    sc.piggyback = variant >= 4 ? piggybacking::join_multicast : piggybacking::same_node;
    if (variant == 2) sc.deadline_transfers = deadline_placement::as_early_as_possible;
    auto config = test_config();
    config.suspend = variant == 1 || variant == 5 ? suspension::all : suspension::none;
    staged_scheduler s(node_table(6, node_resources{1, 1024, 10000, 10}), config,
                       make_staging(6, sc));
    workload::rng random(static_cast<std::uint64_t>(77 + variant));
    std::vector<lease_terms<T>> leases;
    const char* images[] = {"A", "B", "C", "D", "E"};
    T submit = 0;
    for (std::uint64_t id = 1; id <= 120; ++id) {
      submit += static_cast<T>(random.uniform_int(0, 60));
      const std::string image = images[static_cast<std::size_t>(random.uniform_int(0, 4))];
      const auto n = static_cast<std::int64_t>(random.uniform_int(1, 4));
      const auto duration = static_cast<T>(random.uniform_int(20, 400));
      if (random.uniform_int(0, 3) == 0)
        leases.push_back(reservation(
            id, submit, submit + static_cast<T>(random.uniform_int(0, 900)), n, duration, image));
      else
        leases.push_back(best_effort(id, submit, n, duration, image));
    }
    std::size_t steps = 0;
    sim::simulate_leases(s, leases, {}, [&](T) {
      ++steps;
      check(s);
      for (std::size_t node = 0; node < 6; ++node)
        CHECK(s.preparation_step().cache(node).used_mb() <= 2000);
    });
    CHECK(steps > 120);
    std::size_t done = 0;
    for (const auto& [id, l] : s.leases()) done += l.state == lease_state::done ? 1 : 0;
    CHECK(done > 60);
    const auto stats = s.preparation_step().stats();
    CHECK(stats.cache_hits + stats.cache_misses + stats.piggybacks > 0);
    for (std::size_t node = 0; node < 6; ++node)
      for (const auto& [key, e] : s.preparation_step().cache(node).entries())
        CHECK(e.references == 0);  // every lease is over
  }
}

TEST_CASE("image_staging: bad input gets a clear error and changes nothing") {
  SUBCASE("an unknown image") {
    auto s = make_scheduler();
    auto l = best_effort(1, 0, 1, 100, "nope");
    CHECK_THROWS_WITH_AS((void)s.submit(l, 0),
                         "lease 1 (best-effort): image nope is unknown to the image repository",
                         invalid_lease);
    CHECK(s.leases().empty());
    CHECK(s.queue_size() == 0);
  }
  SUBCASE("an image whose size differs from the repository's") {
    auto s = make_scheduler();
    auto l = best_effort(1, 0, 1, 100, "A");
    l.image->size_mb = 2000;
    CHECK_THROWS_AS((void)s.submit(l, 0), invalid_lease);
    CHECK(s.leases().empty());
  }
  SUBCASE("an image larger than a node's cache") {
    image_staging<> staging(4, staging_config{.cache_mb = 3000});
    CHECK_THROWS_WITH_AS(staging.add_image({"huge", 3001}),
                         "image_staging add_image huge: 3001 MB is larger than a node's cache "
                         "(3000 MB)",
                         invalid_request);
    CHECK_THROWS_AS(staging.add_image({"", 10}), invalid_request);
    CHECK_THROWS_AS(staging.add_image({"zero", 0}), invalid_request);
    staging.add_image({"A", 1000});
    CHECK_THROWS_AS(staging.add_image({"A", 999}), invalid_request);
    auto l = best_effort(1, 0, 1, 100, "huge");
    l.image->size_mb = 3001;
    CHECK_THROWS_AS(staging.check_terms(l), unknown_image);
  }
  SUBCASE("zero bandwidth") {
    CHECK_THROWS_AS(image_staging<>(4, staging_config{.bandwidth_mb_s = 0.0}), invalid_request);
  }
  SUBCASE("a staging step for another cluster size") {
    CHECK_THROWS_AS(staged_scheduler(node_table(4, node_resources{1, 1024, 10000, 10}),
                                     test_config(), make_staging(3)),
                    invalid_request);
    CHECK_THROWS_AS(image_staging<>(0), invalid_request);
  }
  SUBCASE("nodes out of range") {
    auto staging = make_staging();
    auto l = best_effort(1, 0, 1, 100, "A");
    CHECK_THROWS_AS((void)staging.ready_at(l, 4, 0), invalid_request);
    const std::vector<std::size_t> bad{7};
    CHECK_THROWS_AS(staging.prepare(l, bad, T{100}, T{0}), invalid_request);
    CHECK(staging.transfers().empty());
  }
}

namespace {

// Records the transfer and start events an embedding service would enact, as text.
struct transfer_log final : lease_observer<T> {
  std::vector<std::string> lines;

  static std::string describe(const transfer_notice<T>& n) {
    std::string text = n.image + " #" + std::to_string(n.transfer) + " [" +
                       std::to_string(n.span.begin) + ", " + std::to_string(n.span.end) + ") to";
    // Appended piece by piece: GCC 12 at -O3 (the release preset) warns, wrongly, about
    // " " + std::to_string(...) (-Wstringop-overflow inside libstdc++'s operator+).
    for (std::size_t node : n.nodes) text.append(" ").append(std::to_string(node));
    text += " for";
    for (std::uint64_t lease : n.leases) text.append(" ").append(std::to_string(lease));
    return text;
  }
  void on_transfer_started(const transfer_notice<T>& n) override {
    lines.push_back("started " + describe(n));
  }
  void on_transfer_withdrawn(const transfer_notice<T>& n) override {
    lines.push_back("withdrawn " + describe(n));
  }
  void on_transfer_finished(const transfer_notice<T>& n) override {
    lines.push_back("finished " + describe(n));
  }
  void on_ready(std::uint64_t id, T at, std::span<const std::size_t> /*nodes*/) override {
    lines.push_back("ready " + std::to_string(id) + " at " + std::to_string(at));
  }
};

}  // namespace

TEST_CASE("image_staging: the observer hears each transfer start and end at its instant") {
  auto s = make_scheduler();
  transfer_log log;
  s.set_observer(&log);
  // AR 1 at 1000 on 2 nodes: one multicast of A, [900, 1000), as late as possible. The
  // scheduler's next event is the transfer's start, then its end (with the lease's start).
  CHECK(s.submit(reservation(1, 0, 1000, 2, 500, "A"), 0).outcome == admission::accepted);
  CHECK(log.lines.empty());
  CHECK(s.next_event_time() == 900);
  s.advance_to(900);
  CHECK(log.lines == std::vector<std::string>{"started A #1 [900, 1000) to 0 1 for 1"});
  CHECK(s.next_event_time() == 1000);
  s.advance_to(1000);
  CHECK(log.lines == std::vector<std::string>{"started A #1 [900, 1000) to 0 1 for 1",
                                              "finished A #1 [900, 1000) to 0 1 for 1",
                                              "ready 1 at 1000"});
  check(s);
}

TEST_CASE("image_staging: transfers passed over by one call are announced in time order") {
  auto s = make_scheduler();
  transfer_log log;
  s.set_observer(&log);
  CHECK(s.submit(reservation(1, 0, 1000, 1, 500, "A"), 0).outcome == admission::accepted);
  CHECK(s.submit(reservation(2, 0, 2000, 1, 500, "B"), 0).outcome == admission::accepted);
  // One call from 0 to 2500 passes both transfers and both starts.
  s.advance_to(2500);
  CHECK(log.lines ==
        std::vector<std::string>{"started A #1 [900, 1000) to 0 for 1",
                                 "finished A #1 [900, 1000) to 0 for 1", "ready 1 at 1000",
                                 "started B #2 [1900, 2000) to 0 for 2",
                                 "finished B #2 [1900, 2000) to 0 for 2", "ready 2 at 2000"});
  check(s);
}

TEST_CASE("image_staging: an announcement taken back at the same instant is withdrawn") {
  auto s = make_scheduler();
  transfer_log log;
  s.set_observer(&log);
  // Best-effort lease 1 (node 0, 500 s) needs A: the earliest slot [0, 100), so its transfer
  // starts at once and is announced as the call ends.
  CHECK(s.submit(best_effort(1, 0, 1, 500, "A"), 0).outcome == admission::queued);
  CHECK(log.lines == std::vector<std::string>{"started A #1 [0, 100) to 0 for 1"});
  CHECK(s.lease(1).current->booked == interval<T>{100, 600});
  // Still at 0, AR 2 takes all 4 nodes over [300, 800) with image B, multicast as late as
  // possible over [200, 300). Lease 1, not begun, is unscheduled and its transfer, not begun
  // either, released; planned again, lease 1 can start only after the AR, at 800 on node 0,
  // and gets a new transfer in the link's earliest slot, [0, 100) again. The first
  // announcement is withdrawn and the new transfer announced.
  CHECK(s.submit(reservation(2, 0, 300, 4, 500, "B"), 0).outcome == admission::accepted);
  check(s);
  CHECK(booked(s) == std::vector<std::pair<interval<T>, nodes>>{{{200, 300}, nodes{0, 1, 2, 3}},
                                                                {{0, 100}, nodes{0}}});
  CHECK(s.lease(1).current->booked == interval<T>{800, 1300});
  CHECK(log.lines == std::vector<std::string>{"started A #1 [0, 100) to 0 for 1",
                                              "withdrawn A #1 [0, 100) to 0 for 1",
                                              "started A #3 [0, 100) to 0 for 1"});
  run_to_end(s);
  CHECK(log.lines == std::vector<std::string>{
                         "started A #1 [0, 100) to 0 for 1", "withdrawn A #1 [0, 100) to 0 for 1",
                         "started A #3 [0, 100) to 0 for 1", "finished A #3 [0, 100) to 0 for 1",
                         "started B #2 [200, 300) to 0 1 2 3 for 2",
                         "finished B #2 [200, 300) to 0 1 2 3 for 2", "ready 2 at 300",
                         "ready 1 at 800"});
  CHECK(s.preparation_step().stats().transfers == 2);
}

TEST_CASE("image_staging: a lease slid back keeps its place on a shared multicast (VM-REUSE)") {
  // Haizea's slide-back re-planning unbooks a lease and books it again at once, earlier (and
  // whole-queue re-planning unbooks every waiting lease). With shared templates, the
  // multicast the lease had booked may serve another lease too: it must still bring the
  // image to the lease's nodes, not make the lease queue behind it for a new transfer.
  for (const replanning mode : {replanning::slide_back, replanning::whole_queue}) {
    CAPTURE(mode == replanning::slide_back);
    scheduler_config<T> c = test_config();
    c.replan = mode;
    staged_scheduler s(node_table(4, node_resources{1, 1024, 10000, 10}), c,
                       make_staging(4, staging_config::vm_reuse()));
    // All at 0:
    // BE 1 (B, 2 nodes, 600 s, really 150 s): transfer [0, 100) to nodes 0, 1; [100, 700).
    // BE 2 (C, 1 node, 10 s): transfer [100, 200); [200, 210) on node 2.
    // BE 3 (D, 1 node, 10 s): transfer [200, 300); [300, 310) on node 2.
    // BE 4 (A, 4 nodes, 50 s): a multicast [300, 400) to all four; nodes 0 and 1 are busy
    //   until 700: [700, 750).
    // BE 5 (A, 1 node, 10 s): A reaches node 2 at 400 through BE 4's multicast: [400, 410).
    // BE 6 (E, 1 node, 10 s): transfer [400, 500); [500, 510) on node 3 (node 2 is busy
    //   over [400, 410) and the node choice takes the node free for longer before).
    auto be1 = best_effort(1, 0, 2, 600, "B");
    be1.real_duration = 150;
    (void)s.submit(be1, 0);
    (void)s.submit(best_effort(2, 0, 1, 10, "C"), 0);
    (void)s.submit(best_effort(3, 0, 1, 10, "D"), 0);
    (void)s.submit(best_effort(4, 0, 4, 50, "A"), 0);
    (void)s.submit(best_effort(5, 0, 1, 10, "A"), 0);
    (void)s.submit(best_effort(6, 0, 1, 10, "E"), 0);
    check(s);
    CHECK(s.lease(4).current->booked == interval<T>{700, 750});
    CHECK(s.lease(5).current->booked == interval<T>{400, 410});
    CHECK(s.lease(5).current->nodes == nodes{2});
    CHECK(s.lease(6).current->booked == interval<T>{500, 510});
    CHECK(s.lease(6).current->nodes == nodes{3});
    CHECK(booked(s) == std::vector<std::pair<interval<T>, nodes>>{{{0, 100}, nodes{0, 1}},
                                                                  {{100, 200}, nodes{2}},
                                                                  {{200, 300}, nodes{2}},
                                                                  {{300, 400}, nodes{0, 1, 2, 3}},
                                                                  {{400, 500}, nodes{3}}});
    // At 250 BE 1 ends early and BE 4 moves up. BE 4 left the multicast [300, 400) for an
    // instant, while BE 5 still used it on node 2; the multicast still reaches all four nodes,
    // so BE 4 starts when node 2 is free again: [410, 460). (Had the multicast lost nodes 0,
    // 1 and 3, a new transfer would have found the link free only over [500, 600): slide-back
    // gave [600, 650), whole-queue re-planning [500, 550).)
    s.advance_to(250);
    check(s);
    CHECK(s.lease(4).current->booked == interval<T>{410, 460});
    CHECK(booked(s) == std::vector<std::pair<interval<T>, nodes>>{{{200, 300}, nodes{2}},
                                                                  {{300, 400}, nodes{0, 1, 2, 3}},
                                                                  {{400, 500}, nodes{3}}});
    run_to_end(s);
    CHECK(s.lease(4).history.at(0).span == interval<T>{410, 460});
    CHECK(s.preparation_step().stats().transfers == 5);
  }
}

TEST_CASE("image_staging: a shared multicast nobody needs any more is withdrawn whole") {
  // VM-REUSE, all at 0:
  // BE 1 (B, 4 nodes, 100 s): transfer [0, 100) to all four; [100, 200).
  // BE 2 (A, 2 nodes, 100 s): multicast [100, 200) to nodes 0 and 1; [200, 300).
  // BE 3 (A, 1 node, 10 s): A reaches nodes 0 and 1 at 200, where they are busy until 300;
  //   nodes 2 and 3 would need a new transfer [200, 300): a tie at 300, and the node holding
  //   the image wins: [300, 310) on node 0, riding BE 2's multicast.
  auto s = make_scheduler(staging_config::vm_reuse());
  (void)s.submit(best_effort(1, 0, 4, 100, "B"), 0);
  (void)s.submit(best_effort(2, 0, 2, 100, "A"), 0);
  (void)s.submit(best_effort(3, 0, 1, 10, "A"), 0);
  check(s);
  CHECK(booked(s) == std::vector<std::pair<interval<T>, nodes>>{{{0, 100}, nodes{0, 1, 2, 3}},
                                                                {{100, 200}, nodes{0, 1}}});
  CHECK(s.lease(3).current->booked == interval<T>{300, 310});
  CHECK(s.lease(3).current->nodes == nodes{0});
  // BE 2 is withdrawn at 50. BE 3 (a future reservation: it keeps its booking) still needs
  // the multicast on node 0, so the multicast keeps both destinations.
  CHECK(s.withdraw(2, 50));
  check(s);
  CHECK(booked(s) == std::vector<std::pair<interval<T>, nodes>>{{{0, 100}, nodes{0, 1, 2, 3}},
                                                                {{100, 200}, nodes{0, 1}}});
  CHECK(s.lease(3).current->booked == interval<T>{300, 310});
  CHECK(s.preparation_step().cache(1).find("A") != nullptr);
  // BE 3 is withdrawn at 60: nobody needs the multicast any more. It is withdrawn whole and
  // the copies it was bringing leave the caches.
  CHECK(s.withdraw(3, 60));
  check(s);
  CHECK(booked(s) == std::vector<std::pair<interval<T>, nodes>>{{{0, 100}, nodes{0, 1, 2, 3}}});
  for (const std::size_t node : nodes{0, 1, 2, 3})
    CHECK(s.preparation_step().cache(node).find("A") == nullptr);
}

}  // namespace image_staging_test
