// dispatcher: the greedy largest-fitting-job rule of Coasters §4.5, jobs that fit nowhere
// waiting, early release of idle blocks, bad calls rejected without effect, and a randomised
// invariant run: no job is ever put on a worker whose remaining walltime is too short.

#include <doctest/doctest.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <map>
#include <optional>
#include <random>
#include <set>
#include <utility>
#include <vector>

#include "leasehold/policy/pilot/dispatcher.hpp"

namespace dispatcher_test {

using namespace leasehold;
using namespace leasehold::policy::pilot;

TEST_CASE("dispatcher: each free worker takes the largest job that fits its time left") {
  dispatcher<> d({.idle_release_delay = 0});
  d.add_block({.id = 7, .usable = {0, 100}, .workers = 2}, 0);
  d.submit({.id = 1, .walltime = 30});
  d.submit({.id = 2, .walltime = 80});
  d.submit({.id = 3, .walltime = 120});  // longer than the block: waits
  d.submit({.id = 4, .walltime = 50});
  d.submit({.id = 5, .walltime = 100});  // exactly the 100 left: fits

  std::vector<assignment<>> started = d.dispatch(0);
  REQUIRE(started.size() == 2);
  CHECK(started[0] == assignment<>{.job = 5, .walltime = 100, .block = 7, .worker = 0, .start = 0});
  CHECK(started[1] == assignment<>{.job = 2, .walltime = 80, .block = 7, .worker = 1, .start = 0});
  CHECK(d.queued_count() == 3);
  CHECK(d.running_count() == 2);
  CHECK(d.running_on(7, 0) == std::optional<std::uint64_t>(5));

  // Job 2 ends early at 45: 55 left, so the 50 s job, not the 30 s one.
  d.complete(2, 45);
  started = d.dispatch(45);
  REQUIRE(started.size() == 1);
  CHECK(started[0] == assignment<>{.job = 4, .walltime = 50, .block = 7, .worker = 1, .start = 45});

  // Job 5 ends at 75: 25 left, the 30 s job does not fit; worker 0 stays idle.
  d.complete(5, 75);
  CHECK(d.dispatch(75).empty());
  CHECK(d.queued_count() == 2);
  CHECK(d.running_on(7, 0) == std::nullopt);
}

TEST_CASE("dispatcher: equal walltimes go in submission order; blocks not yet usable wait") {
  dispatcher<> d;
  d.add_block({.id = 1, .usable = {50, 150}, .workers = 1}, 0);
  d.submit({.id = 10, .walltime = 40});
  d.submit({.id = 11, .walltime = 40});
  CHECK(d.dispatch(0).empty());  // the block starts at 50
  const std::vector<assignment<>> started = d.dispatch(50);
  REQUIRE(started.size() == 1);
  CHECK(started[0].job == 10);
  CHECK(d.dispatch(200).empty());  // block over
}

TEST_CASE("dispatcher: idle blocks are released once nothing queued fits them") {
  dispatcher<> d({.idle_release_delay = 10});
  d.add_block({.id = 1, .usable = {0, 100}, .workers = 2}, 0);
  d.add_block({.id = 2, .usable = {0, 1000}, .workers = 1}, 0);
  d.submit({.id = 1, .walltime = 60});
  d.submit({.id = 2, .walltime = 500});
  REQUIRE(d.dispatch(0).size() == 2);  // 60 s on block 1, 500 s on block 2
  d.complete(1, 20);
  // Block 1 is idle from 20, with 80 left; nothing is queued.
  CHECK(d.release_idle(25).empty());  // idle only 5 < 10
  d.submit({.id = 3, .walltime = 70});
  CHECK(d.release_idle(30).empty());  // the 70 s job still fits the 70 left... dispatch it later
  CHECK(d.dispatch(31).empty());      // ...but by 31 only 69 are left
  const std::vector<worker_block<>> released = d.release_idle(31);
  REQUIRE(released.size() == 1);
  CHECK(released[0].id == 1);
  CHECK(d.block_count() == 1);
  // Block 2 is busy: never released while a job runs on it.
  CHECK(d.release_idle(900).empty());
  d.complete(2, 400);
  CHECK(d.dispatch(400).size() == 1);  // the 70 s job
  d.complete(3, 470);
  CHECK(d.release_idle(475).empty());
  CHECK(d.release_idle(480).size() == 1);
  CHECK(d.block_count() == 0);
}

TEST_CASE("dispatcher: a block not yet started is cancelled when no queued job fits it") {
  dispatcher<> d({.idle_release_delay = 0});
  d.add_block({.id = 4, .usable = {500, 600}, .workers = 8}, 0);
  d.submit({.id = 1, .walltime = 50});
  CHECK(d.release_idle(10).empty());
  d.submit({.id = 2, .walltime = 10});
  d.add_block({.id = 5, .usable = {0, 100}, .workers = 2}, 0);
  REQUIRE(d.dispatch(20).size() == 2);
  const std::vector<worker_block<>> released = d.release_idle(20);
  REQUIRE(released.size() == 1);
  CHECK(released[0].id == 4);
}

TEST_CASE("dispatcher: expired blocks are retired") {
  dispatcher<> d;
  d.add_block({.id = 1, .usable = {0, 100}, .workers = 1}, 0);
  d.submit({.id = 1, .walltime = 100});
  REQUIRE(d.dispatch(0).size() == 1);
  CHECK(d.retire_expired(100).empty());  // still runs a job
  d.complete(1, 100);
  CHECK(d.retire_expired(100).size() == 1);
  CHECK(d.block_count() == 0);
}

TEST_CASE("dispatcher: idle_blocks names what release_idle would release, changing nothing") {
  dispatcher<> d({.idle_release_delay = 0});
  d.add_block({.id = 1, .usable = {0, 100}, .workers = 1}, 0);
  d.add_block({.id = 2, .usable = {0, 30}, .workers = 1}, 0);
  d.submit({.id = 1, .walltime = 50});  // fits block 1's 90 left at 10, not block 2's 20
  const std::vector<worker_block<>> idle = d.idle_blocks(10);
  REQUIRE(idle.size() == 1);
  CHECK(idle[0].id == 2);
  CHECK(d.block_count() == 2);
  CHECK(d.release_idle(10) == idle);
  CHECK(d.block_count() == 1);
}

TEST_CASE("dispatcher: withdraw_block forgets a block that runs nothing") {
  dispatcher<> d;
  d.add_block({.id = 1, .usable = {0, 100}, .workers = 1}, 0);
  d.add_block({.id = 2, .usable = {0, 100}, .workers = 1}, 0);
  d.add_block({.id = 3, .usable = {0, 100}, .workers = 1}, 0);
  d.submit({.id = 7, .walltime = 10});
  REQUIRE(d.dispatch(0).size() == 1);  // on block 1
  CHECK_FALSE(d.withdraw_block(1));    // runs job 7
  CHECK_FALSE(d.withdraw_block(9));    // unknown
  CHECK(d.withdraw_block(2));
  CHECK_FALSE(d.withdraw_block(2));  // gone already
  const std::vector<worker_block<>> left = d.blocks();
  REQUIRE(left.size() == 2);
  CHECK(left[0].id == 1);  // the others keep their order
  CHECK(left[1].id == 3);
  CHECK(d.running_on(1, 0) == std::optional<std::uint64_t>(7));
}

TEST_CASE("dispatcher: capacity left and longest time left") {
  dispatcher<> d;
  d.add_block({.id = 1, .usable = {0, 100}, .workers = 2}, 0);
  d.add_block({.id = 2, .usable = {50, 250}, .workers = 1}, 0);
  CHECK(d.capacity_left(0) == doctest::Approx(2 * 100 + 200));
  CHECK(d.longest_left(0) == 200);
  d.submit({.id = 1, .walltime = 40});
  REQUIRE(d.dispatch(10).size() == 1);
  // at 20: block 1 has 2 * 80, block 2 200, less the 30 the job may still use
  CHECK(d.capacity_left(20) == doctest::Approx(160 + 200 - 30));
  CHECK(d.queued_walltime() == 0.0);
}

TEST_CASE("dispatcher: bad calls are rejected, naming the values, and change nothing") {
  dispatcher<> d;
  d.add_block({.id = 1, .usable = {0, 100}, .workers = 1}, 0);
  d.submit({.id = 1, .walltime = 10});
  CHECK_THROWS_WITH_AS(dispatcher<>({.idle_release_delay = -1}),
                       doctest::Contains("idle_release_delay -1"), invalid_request);
  CHECK_THROWS_WITH_AS(d.add_block({.id = 2, .usable = {50, 50}, .workers = 1}, 0),
                       doctest::Contains("[50, 50)"), invalid_request);
  CHECK_THROWS_WITH_AS(d.add_block({.id = 2, .usable = {0, 50}, .workers = 0}, 0),
                       doctest::Contains("workers 0"), invalid_request);
  CHECK_THROWS_WITH_AS(d.add_block({.id = 1, .usable = {0, 50}, .workers = 1}, 0),
                       doctest::Contains("add_block 1"), invalid_request);
  CHECK_THROWS_WITH_AS(d.submit({.id = 2, .walltime = 0}), doctest::Contains("walltime 0"),
                       invalid_request);
  CHECK_THROWS_WITH_AS(d.submit({.id = 1, .walltime = 5}), doctest::Contains("job 1"),
                       invalid_request);
  CHECK_THROWS_WITH_AS(d.complete(1, 5), doctest::Contains("job 1: not running"), invalid_request);
  CHECK_THROWS_WITH_AS(d.complete(99, 5), doctest::Contains("job 99"), invalid_request);
  CHECK(d.block_count() == 1);
  CHECK(d.queued_count() == 1);
  CHECK(d.queued_walltime() == 10.0);
  REQUIRE(d.dispatch(20).size() == 1);
  CHECK_THROWS_WITH_AS(d.complete(1, 19), doctest::Contains("before its start 20"),
                       invalid_request);
  CHECK(d.running_count() == 1);
}

TEST_CASE("dispatcher: randomised, no job on a worker whose time left is too short") {
  // Blocks come and go, jobs of varied walltimes arrive, run for at most their walltime and end.
  // A model of the queue checks that every start is the greedy choice and that no job stays
  // queued while some free usable worker could hold it.
  for (const std::uint32_t seed : {1U, 2U, 3U, 4U, 5U}) {
    CAPTURE(seed);
    std::mt19937 random(seed);
    const auto uniform = [&](std::int64_t low, std::int64_t high) {
      return std::uniform_int_distribution<std::int64_t>(low, high)(random);
    };
    dispatcher<> d({.idle_release_delay = uniform(0, 30)});
    std::multiset<std::pair<std::int64_t, std::uint64_t>> model;  // (walltime, id) queued
    std::map<std::uint64_t, interval<std::int64_t>> blocks;       // usable spans
    std::map<std::uint64_t, std::pair<std::int64_t, std::int64_t>> running;  // id -> end, wall
    std::set<std::pair<std::uint64_t, std::size_t>> busy_workers;
    std::map<std::uint64_t, std::pair<std::uint64_t, std::size_t>> where;
    std::uint64_t next_job = 0;
    std::uint64_t next_block = 0;
    std::size_t starts = 0;
    std::int64_t now = 0;
    for (int step = 0; step < 600; ++step) {
      now += uniform(0, 15);
      if (uniform(0, 9) == 0) {
        const std::int64_t begin = now + uniform(0, 100);
        const interval<std::int64_t> usable{begin, begin + uniform(20, 400)};
        d.add_block({.id = next_block, .usable = usable, .workers = uniform(1, 6)}, now);
        blocks.emplace(next_block++, usable);
      }
      for (std::int64_t k = uniform(0, 4); k > 0; --k) {
        const std::int64_t walltime = uniform(1, 300);
        d.submit({.id = next_job, .walltime = walltime});
        model.emplace(walltime, next_job++);
      }
      // jobs that end by now (at a random time within their walltime)
      for (auto it = running.begin(); it != running.end();) {
        if (it->second.first <= now) {
          d.complete(it->first, it->second.first);
          busy_workers.erase(where.at(it->first));
          it = running.erase(it);
        } else {
          ++it;
        }
      }
      for (const assignment<>& a : d.dispatch(now)) {
        ++starts;
        const interval<std::int64_t> usable = blocks.at(a.block);
        CHECK(a.start == now);
        CHECK(usable.contains(now));
        CHECK(a.start + a.walltime <= usable.end);  // the invariant of the issue
        CHECK(busy_workers.insert({a.block, a.worker}).second);
        // the greedy choice: no queued job is larger and still fits
        const std::int64_t left = usable.end - now;
        const auto larger = model.upper_bound({a.walltime, UINT64_MAX});
        CHECK((larger == model.end() || larger->first > left));
        REQUIRE(model.erase({a.walltime, a.job}) == 1);
        where[a.job] = {a.block, a.worker};
        running[a.job] = {now + uniform(1, a.walltime), a.walltime};
      }
      // after dispatch, a free usable worker has no queued job that fits it
      for (const worker_block<>& b : d.blocks()) {
        if (!b.usable.contains(now)) continue;
        for (std::size_t w = 0; w < static_cast<std::size_t>(b.workers); ++w)
          if (!busy_workers.contains({b.id, w}))
            CHECK((model.empty() || model.begin()->first > b.usable.end - now));
      }
      for (const worker_block<>& b : d.release_idle(now)) {
        for (std::size_t w = 0; w < static_cast<std::size_t>(b.workers); ++w)
          CHECK_FALSE(busy_workers.contains({b.id, w}));
        blocks.erase(b.id);
      }
      for (const worker_block<>& b : d.retire_expired(now)) {
        CHECK(b.usable.end <= now);
        blocks.erase(b.id);
      }
      CHECK(d.queued_count() == model.size());
      CHECK(d.running_count() == running.size());
      // The per-walltime counts are the queue counted.
      std::map<std::int64_t, std::size_t> counted;
      for (const auto& [walltime, id] : model) ++counted[walltime];
      CHECK(d.queued_by_walltime() == counted);
    }
    CHECK(starts > 300);  // the run exercised the rule, not just the queue
  }
}

}  // namespace dispatcher_test
