// block_planner: each step of Coasters §4.5 against values computed by hand.

#include <doctest/doctest.h>

#include <cstddef>
#include <cstdint>
#include <numeric>
#include <vector>

#include "leasehold/policy/pilot/block_planner.hpp"

namespace block_planner_test {

using namespace leasehold;
using namespace leasehold::policy::pilot;

TEST_CASE("block_planner: step 2, blocks per round from the free slots") {
  const block_planner<> coasters;              // step 0.1, 20 slots
  CHECK(coasters.blocks_this_round(0) == 2);   // 0.1 * 20
  CHECK(coasters.blocks_this_round(11) == 1);  // ceil(0.1 * 9)
  CHECK(coasters.blocks_this_round(19) == 1);  // ceil(0.1 * 1)
  CHECK(coasters.blocks_this_round(20) == 0);  // no free slot
  CHECK(coasters.blocks_this_round(25) == 0);
  // 0.1 * 30 is 3.0000000000000004 in doubles; it must still give 3 blocks, not 4.
  CHECK(block_planner<>({.max_blocks = 30}).blocks_this_round(0) == 3);
  CHECK(block_planner<>({.allocation_step_size = 0.5, .max_blocks = 5}).blocks_this_round(0) == 3);
  CHECK(block_planner<>({.allocation_step_size = 1.0, .max_blocks = 7}).blocks_this_round(2) == 5);
}

TEST_CASE("block_planner: step 3, the overallocation curve") {
  const block_planner<> coasters;  // O_l = 10, O_h = 1, beta = 1000 s
  // f(1) = 9 e^(-1/1000) + 1 = 9 * 0.999000499833375 + 1
  CHECK(coasters.overallocation(1) == doctest::Approx(9.991004498500375).epsilon(1e-12));
  CHECK(coasters.overallocation(0) == doctest::Approx(10.0));
  // f(1000) = 9 / e + 1
  CHECK(coasters.overallocation(1000) == doctest::Approx(4.310914970542980).epsilon(1e-12));
  // t -> infinity: f -> O_h exactly once e^(-t/beta) underflows
  CHECK(coasters.overallocation(1'000'000'000) == 1.0);
  CHECK(coasters.overallocation(1'000'000) == doctest::Approx(1.0));
  // a 15 s modFTDock job asks for 15 f(15) = 15 (9 e^(-0.015) + 1) = 147.990 s of block time
  CHECK(coasters.overallocated_walltime(15) == doctest::Approx(147.99011184641).epsilon(1e-10));

  const block_planner<> flat({.low_overallocation = 3.0, .high_overallocation = 3.0});
  CHECK(flat.overallocation(1) == 3.0);
  CHECK(flat.overallocated_walltime(40) == 120.0);

  const block_planner<> fast_decay(
      {.low_overallocation = 5.0, .high_overallocation = 2.0, .overallocation_decay = 1.0});
  // f(1) = 3 e^-1 + 2
  CHECK(fast_decay.overallocation(1) == doctest::Approx(3.103638323514327).epsilon(1e-12));
}

TEST_CASE("block_planner: step 5, partition by spread") {
  SUBCASE("spread 0: equal blocks") {
    const block_planner<> planner({.spread = 0.0});
    CHECK(planner.partition(1200.0, 4) == std::vector<double>{300.0, 300.0, 300.0, 300.0});
  }
  SUBCASE("spread 1: linear from 0 to twice the mean") {
    const block_planner<> planner({.spread = 1.0});
    const std::vector<double> sizes = planner.partition(1200.0, 4);
    REQUIRE(sizes.size() == 4);
    CHECK(sizes[0] == doctest::Approx(0.0));
    CHECK(sizes[1] == doctest::Approx(200.0));
    CHECK(sizes[2] == doctest::Approx(400.0));
    CHECK(sizes[3] == doctest::Approx(600.0));
  }
  SUBCASE("spread 0.5: from half to one and a half times the mean, summing to the total") {
    const block_planner<> planner({.spread = 0.5});
    const std::vector<double> sizes = planner.partition(1200.0, 4);
    CHECK(sizes[0] == doctest::Approx(150.0));
    CHECK(sizes[1] == doctest::Approx(250.0));
    CHECK(sizes[2] == doctest::Approx(350.0));
    CHECK(sizes[3] == doctest::Approx(450.0));
    CHECK(std::accumulate(sizes.begin(), sizes.end(), 0.0) == doctest::Approx(1200.0));
  }
  SUBCASE("one block takes everything; none takes nothing") {
    const block_planner<> planner({.spread = 1.0});
    CHECK(planner.partition(500.0, 1) == std::vector<double>{500.0});
    CHECK(planner.partition(500.0, 0).empty());
  }
}

TEST_CASE("block_planner: step 6, walltime and granularity rounding") {
  const block_planner<> coasters;
  CHECK(coasters.block_walltime(147.99011184641) == 148);  // rounded up to whole ticks
  CHECK(coasters.block_walltime(120.0) == 120);
  CHECK(block_planner<>({.max_walltime = 100}).block_walltime(147.99) == 100);  // site limit

  // 1000 worker-seconds over 100 s is 10 workers ...
  CHECK(block_planner<>().block_width(1000.0, 100) == 10);
  // ... 12 when nodes have 4 cores (whole nodes) ...
  CHECK(block_planner<>({.cores_per_node = 4}).block_width(1000.0, 100) == 12);
  // ... 16 when nodes come in pairs of 4-core nodes ...
  CHECK(block_planner<>({.nodes_per_unit = 2, .cores_per_node = 4}).block_width(1000.0, 100) == 16);
  // ... 8 when a block may have at most 3 nodes (one whole pair) ...
  CHECK(block_planner<>({.nodes_per_unit = 2, .cores_per_node = 4, .max_nodes = 3})
            .block_width(1000.0, 100) == 8);
  // ... and never less than one unit.
  CHECK(block_planner<>({.cores_per_node = 4}).block_width(0.0, 100) == 4);
  CHECK(block_planner<>({.cores_per_node = 4}).block_width(1.0, 100) == 4);
}

namespace {
// Walltimes 10, 10, 20, 30, 40, 50 given out of order; f = 2 everywhere, so the over-allocated
// walltimes are 20, 20, 40, 60, 80, 100 and the total is T = 320. Four slots at step 0.5: two
// blocks.
const std::vector<std::int64_t> six_jobs{30, 10, 50, 20, 10, 40};
block_config<> doubled(double spread, std::int64_t cores_per_node = 1) {
  return {.allocation_step_size = 0.5,
          .max_blocks = 4,
          .low_overallocation = 2.0,
          .high_overallocation = 2.0,
          .spread = spread,
          .cores_per_node = cores_per_node};
}
}  // namespace

TEST_CASE("block_planner: a whole round by hand, spread 0") {
  const block_plan<> plan = block_planner<>(doubled(0.0)).plan(six_jobs, 0);
  // step 1: stable ascending order of the input indices
  CHECK(plan.order == std::vector<std::size_t>{1, 4, 3, 0, 5, 2});
  CHECK(plan.block_count == 2);
  CHECK(plan.total_size == doctest::Approx(320.0));
  CHECK(plan.target_sizes == std::vector<double>{160.0, 160.0});
  REQUIRE(plan.blocks.size() == 2);
  // block 0: 20 + 20 + 40 + 60 = 140 <= 160 (adding 80 would not be); h = 60;
  // w = ceil(160 / 60) = 3; it covers 140 of its 180 and the 40 s job (80 > 60 capped to 60)
  // would need 200 > 180.
  CHECK(plan.blocks[0] ==
        planned_block<>{
            .workers = 3, .walltime = 60, .target_size = 160.0, .first_job = 0, .job_count = 4});
  // block 1, the last, takes the rest: 80 + 100 = 180; h = 100; w = ceil(180 / 100) = 2.
  CHECK(plan.blocks[1] ==
        planned_block<>{
            .workers = 2, .walltime = 100, .target_size = 160.0, .first_job = 4, .job_count = 2});
  CHECK(plan.covered == 6);
  CHECK(plan.uncovered() == 0);
}

TEST_CASE("block_planner: a whole round by hand, spread 1") {
  const block_plan<> plan = block_planner<>(doubled(1.0)).plan(six_jobs, 0);
  CHECK(plan.target_sizes == std::vector<double>{0.0, 320.0});
  REQUIRE(plan.blocks.size() == 2);
  // block 0 has target 0 but takes at least one job: h = 20, one worker.
  CHECK(plan.blocks[0] ==
        planned_block<>{
            .workers = 1, .walltime = 20, .target_size = 0.0, .first_job = 0, .job_count = 1});
  // block 1: 20 + 40 + 60 + 80 + 100 = 300; h = 100; w = ceil(320 / 100) = 4.
  CHECK(plan.blocks[1] ==
        planned_block<>{
            .workers = 4, .walltime = 100, .target_size = 320.0, .first_job = 1, .job_count = 5});
  CHECK(plan.covered == 6);
}

TEST_CASE("block_planner: a whole round by hand, 4-core nodes") {
  const block_plan<> plan = block_planner<>(doubled(0.0, 4)).plan(six_jobs, 0);
  REQUIRE(plan.blocks.size() == 2);
  // block 0: as with one core per node, h = 60, but 3 workers round up to one 4-core node, which
  // covers 4 * 60 = 240: the 40 s job too (140 + 60 = 200), not the 50 s one (260).
  CHECK(plan.blocks[0].workers == 4);
  CHECK(plan.blocks[0].walltime == 60);
  CHECK(plan.blocks[0].job_count == 5);
  // block 1 is left with the 50 s job: h = 100, ceil(160 / 100) = 2 workers -> one node.
  CHECK(plan.blocks[1] ==
        planned_block<>{
            .workers = 4, .walltime = 100, .target_size = 160.0, .first_job = 5, .job_count = 1});
  CHECK(plan.blocks[1].nodes(4) == 1);
}

TEST_CASE("block_planner: rounds stop early, and leave what the blocks cannot hold") {
  SUBCASE("fewer jobs than blocks: no empty blocks") {
    const block_planner<> planner({.allocation_step_size = 1.0, .max_blocks = 5, .spread = 0.0});
    const std::vector<std::int64_t> one{30};
    const block_plan<> plan = planner.plan(one, 0);
    CHECK(plan.block_count == 5);
    CHECK(plan.blocks.size() == 1);
    CHECK(plan.covered == 1);
  }
  SUBCASE("a width limit leaves jobs for the next round") {
    // f = 1, one block of at most 2 workers of 10 s: covers two 10 s jobs of the five.
    const block_planner<> planner({.allocation_step_size = 1.0,
                                   .max_blocks = 1,
                                   .low_overallocation = 1.0,
                                   .high_overallocation = 1.0,
                                   .max_nodes = 2});
    const std::vector<std::int64_t> five(5, 10);
    const block_plan<> plan = planner.plan(five, 0);
    REQUIRE(plan.blocks.size() == 1);
    CHECK(plan.blocks[0].workers == 2);
    CHECK(plan.blocks[0].walltime == 10);
    CHECK(plan.covered == 2);
    CHECK(plan.uncovered() == 3);
  }
  SUBCASE("no free slot: nothing is planned") {
    const block_plan<> plan = block_planner<>().plan(six_jobs, 20);
    CHECK(plan.block_count == 0);
    CHECK(plan.blocks.empty());
    CHECK(plan.uncovered() == 6);
  }
  SUBCASE("no jobs") {
    const block_plan<> plan = block_planner<>().plan(std::vector<std::int64_t>{}, 0);
    CHECK(plan.block_count == 0);
    CHECK(plan.blocks.empty());
  }
}

TEST_CASE("block_planner: every planned block holds the jobs it covers") {
  // The default Coasters curve on a spread of walltimes: each block is at least as long as each
  // of its jobs, a multiple of the granularity, and covers jobs worth at most its size.
  const block_planner<> planner({.allocation_step_size = 0.5, .cores_per_node = 4});
  std::vector<std::int64_t> walltimes;
  for (std::int64_t t = 1; t <= 400; t += 7) walltimes.push_back(t);
  const block_plan<> plan = planner.plan(walltimes, 0);
  CHECK(plan.block_count == 10);
  std::size_t next = 0;
  for (const planned_block<>& block : plan.blocks) {
    CHECK(block.first_job == next);
    CHECK(block.job_count >= 1);
    CHECK(block.workers % 4 == 0);
    double covered = 0;
    for (std::size_t k = block.first_job; k < block.first_job + block.job_count; ++k) {
      const std::int64_t t = walltimes[plan.order[k]];
      CHECK(t <= block.walltime);
      covered += std::min(planner.overallocated_walltime(t), static_cast<double>(block.walltime));
    }
    CHECK(covered <= static_cast<double>(block.workers * block.walltime));
    next += block.job_count;
  }
  CHECK(next == plan.covered);
}

TEST_CASE("block_planner: bad walltimes are rejected, naming the job") {
  const block_planner<> planner({.max_walltime = 3600});
  CHECK_THROWS_WITH_AS(planner.plan(std::vector<std::int64_t>{10, 0}, 0),
                       doctest::Contains("job 1 walltime 0"), invalid_request);
  CHECK_THROWS_WITH_AS(planner.plan(std::vector<std::int64_t>{-5}, 0),
                       doctest::Contains("walltime -5"), invalid_request);
  CHECK_THROWS_WITH_AS(planner.plan(std::vector<std::int64_t>{10, 20, 7200}, 0),
                       doctest::Contains("job 2 walltime 7200 exceeds max_walltime 3600"),
                       invalid_request);
}

}  // namespace block_planner_test
