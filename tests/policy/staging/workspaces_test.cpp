// policy::staging::run_workspaces: the staging strategies of Overhead Matters (§4.2.1) on
// hand-computed bursts, the template cache on ASAP workspaces (§4.2.2), and bad input.
// Images of 100 MB on a 10 MB/s link: 10 s each when alone.

#include <doctest/doctest.h>

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include <leasehold/policy/staging/workspaces.hpp>

using namespace leasehold;
using namespace leasehold::policy::staging;

namespace {

using T = std::int64_t;
const std::map<std::string, std::int64_t> images{{"A", 100}, {"B", 100}};

workspace<T> at(std::uint64_t id, T submit, T start, const std::string& image = "A") {
  return {id, submit, start, 50, 1, image};
}
workspace<T> asap(std::uint64_t id, T submit, T duration = 5) {
  return {id, submit, std::nullopt, duration, 1, "A"};
}

workspace_report<T> run(const std::vector<workspace<T>>& ws, staging_strategy s,
                        std::int64_t cache = 0, double copy = 0.0) {
  workspace_config c;
  c.nodes = 2;
  c.vms_per_node = 2;
  c.bandwidth_mb_s = 10.0;
  c.strategy = s;
  c.cache_mb = cache;
  c.local_copy_mb_s = copy;
  return run_workspaces(ws, images, c);
}

}  // namespace

TEST_CASE("workspaces: a burst where JIT misses its deadlines and Hybrid does not") {
  // Two workspaces start at 100 on node 0 (two VM slots, lowest id), both submitted at 0.
  const std::vector<workspace<T>> burst{at(1, 0, 100), at(2, 0, 100)};
  // JIT starts both transfers at 100 - 10 = 90; sharing the link they end at 110: each
  // client gets [110, 150) of [100, 150): 40 / 50.
  const auto jit = run(burst, staging_strategy::jit);
  for (const auto& r : jit.workspaces) {
    CHECK(r.ready == doctest::Approx(110.0));
    CHECK(r.satisfaction == doctest::Approx(0.8));
  }
  CHECK(jit.summary.mean_satisfaction == doctest::Approx(0.8));
  CHECK(jit.summary.fully_satisfied == 0);
  // Hybrid books the link: [0, 10) and [10, 20), both long before 100.
  const auto hybrid = run(burst, staging_strategy::hybrid);
  CHECK(hybrid.workspaces[0].ready == doctest::Approx(10.0));
  CHECK(hybrid.workspaces[1].ready == doctest::Approx(20.0));
  CHECK(hybrid.summary.mean_satisfaction == doctest::Approx(1.0));
  CHECK(hybrid.summary.fully_satisfied == 2);
  CHECK(hybrid.summary.mb_transferred == doctest::Approx(200.0));
}

TEST_CASE("workspaces: Aggressive lets a loose deadline slow a tight one and Hybrid orders them") {
  // W1 starts at 1000 (loose), W2 at 12 (tight); both submitted at 0.
  const std::vector<workspace<T>> ws{at(1, 0, 1000), at(2, 0, 12)};
  // Aggressive: both transfers from 0, sharing: both end at 20. W2 gets [20, 62): 42 / 50.
  const auto aggressive = run(ws, staging_strategy::aggressive);
  CHECK(aggressive.workspaces[1].ready == doctest::Approx(20.0));
  CHECK(aggressive.workspaces[1].satisfaction == doctest::Approx(0.84));
  CHECK(aggressive.workspaces[0].satisfaction == doctest::Approx(1.0));
  // Hybrid: W2's deadline first, [0, 10); W1 next, [10, 20).
  const auto hybrid = run(ws, staging_strategy::hybrid);
  CHECK(hybrid.workspaces[1].ready == doctest::Approx(10.0));
  CHECK(hybrid.workspaces[0].ready == doctest::Approx(20.0));
  CHECK(hybrid.summary.fully_satisfied == 2);
  // JIT: W2 alone over [2, 12), W1 alone over [990, 1000).
  const auto jit = run(ws, staging_strategy::jit);
  CHECK(jit.workspaces[1].ready == doctest::Approx(12.0));
  CHECK(jit.summary.fully_satisfied == 2);
}

TEST_CASE("workspaces: Hybrid rejects what cannot be staged in time") {
  // W2 at 15 needs [0, 10) but W1's transfer (deadline 12) comes first: [0, 10), [10, 20).
  // W2 would miss 15: rejected; W1 keeps its booking.
  const auto r = run({at(1, 0, 12), at(2, 0, 15, "B")}, staging_strategy::hybrid);
  CHECK(r.workspaces[0].accepted);
  CHECK_FALSE(r.workspaces[1].accepted);
  CHECK(r.summary.rejected == 1);
  CHECK(r.workspaces[0].ready == doctest::Approx(10.0));
}

TEST_CASE("workspaces: a template cache with hits and misses and a redundant transfer avoided") {
  // One 100 MB cache per node, local copy at 10 MB/s (10 s). ASAP workspaces of 1 node.
  // W1 at 0: miss, transfer [0, 10) + copy: ready at 20 (deploy time 20); node 0.
  // W2 at 1: node 0 (holds A, arriving) has a free slot: waits for that transfer, ready 20;
  //   a redundant transfer avoided, not counted as hit or miss.
  // W3 at 30: hit on node 0, copy only: ready at 40 (deploy time 10).
  const auto r =
      run({asap(1, 0), asap(2, 1), asap(3, 30)}, staging_strategy::aggressive, 100, 10.0);
  CHECK(r.summary.cache_misses == 1);
  CHECK(r.summary.redundant_avoided == 1);
  CHECK(r.summary.cache_hits == 1);
  CHECK(r.summary.deployments == 2);
  CHECK(r.summary.mean_deploy_time == doctest::Approx(15.0));
  CHECK(r.summary.mb_transferred == doctest::Approx(100.0));
  CHECK(r.workspaces[1].ready == doctest::Approx(20.0));
  CHECK(r.workspaces[2].begin == doctest::Approx(40.0));
  CHECK(r.workspaces[2].end == doctest::Approx(45.0));
  // Without a cache: three transfers; W1 and W2 share the link from 1 to ...: W1 has 90 MB
  // left at 1, W2 100: W1 ends at 1 + 180 / 10 = 19, W2 at 20; W3 alone [30, 40).
  const auto none = run({asap(1, 0), asap(2, 1), asap(3, 30)}, staging_strategy::aggressive);
  CHECK(none.summary.cache_hits + none.summary.redundant_avoided == 0);
  CHECK(none.summary.mb_transferred == doctest::Approx(300.0));
  CHECK(none.workspaces[0].ready == doctest::Approx(19.0));
  CHECK(none.workspaces[1].ready == doctest::Approx(20.0));
  CHECK(none.summary.mean_deploy_time == doctest::Approx((19.0 + 19.0 + 10.0) / 3.0));
}

TEST_CASE("workspaces: bad input") {
  workspace_config c;
  CHECK_THROWS_AS((void)run_workspaces<T>({at(1, 0, 10, "nope")}, images, c), unknown_image);
  c.cache_mb = 50;
  CHECK_THROWS_WITH_AS((void)run_workspaces<T>({at(1, 0, 10)}, images, c),
                       "run_workspaces: image A (100 MB) is larger than the cache (50 MB)",
                       invalid_request);
  c.cache_mb = 0;
  c.bandwidth_mb_s = 0.0;
  CHECK_THROWS_AS((void)run_workspaces<T>({at(1, 0, 10)}, images, c), invalid_request);
  c.bandwidth_mb_s = 10.0;
  CHECK_THROWS_AS((void)run_workspaces<T>({at(1, 10, 5)}, images, c), invalid_request);
  workspace<T> wide = at(1, 0, 10);
  wide.nodes = 9;
  CHECK_THROWS_AS((void)run_workspaces<T>({wide}, images, c), invalid_request);
}
