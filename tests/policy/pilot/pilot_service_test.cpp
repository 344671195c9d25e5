// pilot_service: blocks are booked into a batch cluster's availability around other users'
// reservations, jobs run on them, idle blocks give their time back, and blocks that ended are
// handed out once by take_finished().

#include <doctest/doctest.h>

#include <cstdint>
#include <vector>

#include "leasehold/availability/free_list.hpp"
#include "leasehold/availability/reference.hpp"
#include "leasehold/policy/pilot/pilot_service.hpp"

#include "availability/backends.hpp"

namespace pilot_service_test {

using namespace leasehold;
using namespace leasehold::policy::pilot;

namespace {
// Four 2-core nodes; f = 2; one block per round.
pilot_config<> small_site() {
  return {.blocks = {.allocation_step_size = 0.5,
                     .max_blocks = 2,
                     .low_overallocation = 2.0,
                     .high_overallocation = 2.0,
                     .spread = 0.0,
                     .cores_per_node = 2},
          .dispatch = {.idle_release_delay = 0}};
}
}  // namespace

TEST_CASE_TEMPLATE(
    "pilot_service: a block waits for room in the cluster, runs jobs, and is "
    "released when idle",
    Backend, free_list<>, reference<>) {
  Backend cluster(8);
  cluster.reserve({0, 100}, 6);  // another user's reservation leaves 2 cores until 100
  pilot_service<Backend> service(cluster, small_site());
  for (std::uint64_t id = 0; id < 4; ++id) service.submit({.id = id, .walltime = 10});

  // T = 4 * 20 = 80, one block: h = 20, w = ceil(80 / 20) = 4 workers = 2 nodes. Four cores are
  // free from 100 on.
  const std::vector<block_record<>> placed = service.plan(0);
  REQUIRE(placed.size() == 1);
  CHECK(placed[0].workers == 4);
  CHECK(placed[0].nodes == 2);
  CHECK(placed[0].walltime == 20);
  CHECK(placed[0].booked == interval<std::int64_t>{100, 120});
  CHECK(placed[0].jobs_planned == 4);
  CHECK(cluster.free_at(100) == 4);
  CHECK(cluster.free_at(50) == 2);

  // The jobs are covered by the block: the next round asks for nothing.
  CHECK(service.plan(1).empty());
  CHECK(service.dispatch(50).empty());  // the block has not started
  const std::vector<assignment<>> started = service.dispatch(100);
  CHECK(started.size() == 4);
  for (const assignment<>& a : started) service.complete(a.job, 105);
  CHECK(service.dispatch(105).empty());

  const std::vector<block_record<>> released = service.release_idle(105);
  REQUIRE(released.size() == 1);
  CHECK(released[0].released_at == std::optional<std::int64_t>(105));
  CHECK(released[0].end() == 105);
  CHECK(cluster.free_at(104) == 4);  // the used part stays booked
  CHECK(cluster.free_at(105) == 8);  // the rest is back
  CHECK(service.history().size() == 1);
  CHECK(service.history()[0].released_at == std::optional<std::int64_t>(105));
}

TEST_CASE("pilot_service: take_finished hands out ended blocks once, in id order") {
  free_list<> cluster(8);
  pilot_config<> config = small_site();
  config.blocks.allocation_step_size = 1.0;  // both free slots in one round
  pilot_service<> service(cluster, config);
  // Two rounds of one job each: block 0 for the 10 s job, [0, 20) (h = 20, one 2-core node);
  // block 1 for a 50 s job, [0, 100).
  service.submit({.id = 1, .walltime = 10});
  REQUIRE(service.plan(0).size() == 1);
  service.submit({.id = 2, .walltime = 50});
  const std::vector<block_record<>> second = service.plan(0);
  REQUIRE(second.size() == 1);
  CHECK(second[0].id == 1);
  CHECK(second[0].booked == interval<std::int64_t>{0, 100});
  REQUIRE(service.dispatch(0).size() == 2);  // job 1 on block 0, job 2 on block 1
  service.complete(1, 10);
  service.complete(2, 40);
  CHECK(service.take_finished().empty());  // nothing has ended yet
  // At 40 block 0's span has ended (at 20): retire_expired forgets it. Block 1 is idle with
  // 60 left and nothing queued: release_idle releases it.
  CHECK(service.retire_expired(40) == 1);
  CHECK(service.release_idle(40).size() == 1);
  CHECK(service.finished_count() == 2);
  CHECK(service.history().size() == 2);  // kept until taken
  CHECK(cluster.free_at(50) == 8);
  const std::vector<block_record<>> taken = service.take_finished();
  REQUIRE(taken.size() == 2);
  CHECK(taken[0].id == 0);
  CHECK(!taken[0].released_at);  // retired: its booking ran out
  CHECK(taken[1].id == 1);
  CHECK(taken[1].released_at == std::optional<std::int64_t>(40));
  CHECK(service.history().empty());
  CHECK(service.finished_count() == 0);
  CHECK(service.take_finished().empty());  // once only
  // Ids go on from where they were.
  service.submit({.id = 3, .walltime = 10});
  const std::vector<block_record<>> third = service.plan(50);
  REQUIRE(third.size() == 1);
  CHECK(third[0].id == 2);
  REQUIRE(service.history().size() == 1);
  CHECK(service.history()[0].id == 2);
}

TEST_CASE("pilot_service: a round plans only the queued jobs the active blocks do not cover") {
  free_list<> cluster(8);
  cluster.reserve({0, 100}, 6);
  pilot_service<free_list<>> service(cluster, small_site());
  for (std::uint64_t id = 0; id < 4; ++id) service.submit({.id = id, .walltime = 10});
  // The first block: 4 workers over [100, 120), 80 worker-ticks (as in the test above).
  REQUIRE(service.plan(0).size() == 1);
  // Six more jobs of 10 and two of 30. The block's 80 ticks cover eight of the ten 10s (the
  // boundary falls inside the jobs of one walltime); the other two 10s and both 30s (longer than
  // the 20 the block has) are planned: T = 2 x (10 + 10 + 30 + 30) = 160, h = 60, w = 4, which
  // covers all four. Four cores are free from 100 on, next to the first block.
  for (std::uint64_t id = 4; id < 10; ++id) service.submit({.id = id, .walltime = 10});
  service.submit({.id = 10, .walltime = 30});
  service.submit({.id = 11, .walltime = 30});
  const std::vector<block_record<>> second = service.plan(1);
  REQUIRE(second.size() == 1);
  CHECK(second[0].jobs_planned == 4);
  CHECK(second[0].walltime == 60);
  CHECK(second[0].workers == 4);
  CHECK(second[0].booked == interval<std::int64_t>{100, 160});
  // Everything is covered now.
  CHECK(service.plan(2).empty());
}

TEST_CASE("pilot_service: worker start-up and batch latency are booked before the workers run") {
  free_list<> cluster(8);
  pilot_config<> config = small_site();
  config.worker_startup = 5;
  config.batch_latency = 30;
  pilot_service<> service(cluster, config);
  service.submit({.id = 1, .walltime = 10});
  const std::vector<block_record<>> placed = service.plan(0);
  REQUIRE(placed.size() == 1);
  // one job: h = 20, width one 2-core node; booked from 30 for 5 + 20
  CHECK(placed[0].booked == interval<std::int64_t>{30, 55});
  CHECK(placed[0].workers == 2);
  CHECK(service.dispatch(30).empty());  // workers still starting
  CHECK(service.dispatch(35).size() == 1);
}

TEST_CASE("pilot_service: blocks are never wider than the cluster") {
  free_list<> cluster(6);  // three 2-core nodes
  pilot_service<> service(cluster, small_site());
  for (std::uint64_t id = 0; id < 100; ++id) service.submit({.id = id, .walltime = 10});
  const std::vector<block_record<>> placed = service.plan(0);
  REQUIRE(placed.size() == 1);
  CHECK(placed[0].workers == 6);
  CHECK(placed[0].jobs_planned == 6);  // 6 workers x 20 s hold six 20 s footprints
  // The next round sees 94 jobs uncovered and a free slot: a second block, after the first.
  const std::vector<block_record<>> more = service.plan(1);
  REQUIRE(more.size() == 1);
  CHECK(more[0].booked.begin == placed[0].booked.end);
  CHECK(service.plan(2).empty());  // both slots taken
}

TEST_CASE("pilot_service: bad configuration and jobs are rejected") {
  free_list<> cluster(8);
  pilot_config<> config = small_site();
  config.blocks.cores_per_node = 16;  // one node is wider than the cluster
  CHECK_THROWS_WITH_AS(pilot_service<>(cluster, config), doctest::Contains("8 workers"),
                       invalid_request);
  config = small_site();
  config.blocks.spread = -1.0;
  CHECK_THROWS_WITH_AS(pilot_service<>(cluster, config), doctest::Contains("spread -1"),
                       invalid_request);
  config = small_site();
  config.worker_startup = -3;
  CHECK_THROWS_WITH_AS(pilot_service<>(cluster, config), doctest::Contains("worker_startup -3"),
                       invalid_request);

  config = small_site();
  config.blocks.max_walltime = 600;
  pilot_service<> service(cluster, config);
  CHECK_THROWS_WITH_AS(service.submit({.id = 3, .walltime = 601}),
                       doctest::Contains("walltime 601 exceeds max_walltime 600"), invalid_request);
  CHECK(service.job_dispatcher().queued_count() == 0);
  CHECK(service.plan(0).empty());
  CHECK(cluster.block_count() == 1);  // untouched
}

TEST_CASE("pilot_service: a coverage horizon ignores block time booked far ahead") {
  // The cluster is busy until 1000; the first block lands there. By the paper's rule (all block
  // time counts) it covers the jobs and the next round asks for nothing; with a 500-tick horizon
  // it covers nothing yet, so the second slot is used too.
  for (const bool with_horizon : {false, true}) {
    CAPTURE(with_horizon);
    free_list<> cluster(8);
    cluster.reserve({0, 1000}, 8);
    pilot_config<> config = small_site();
    if (with_horizon) config.coverage_horizon = 500;
    pilot_service<> service(cluster, config);
    for (std::uint64_t id = 0; id < 4; ++id) service.submit({.id = id, .walltime = 10});
    REQUIRE(service.plan(0).size() == 1);
    CHECK(service.plan(10).size() == (with_horizon ? 1U : 0U));
  }
  free_list<> cluster(8);
  pilot_config<> config = small_site();
  config.coverage_horizon = 0;
  CHECK_THROWS_WITH_AS(pilot_service<>(cluster, config), doctest::Contains("coverage_horizon 0"),
                       invalid_request);
}

}  // namespace pilot_service_test
