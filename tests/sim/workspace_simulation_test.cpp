// sim::run_workspaces: the template cache on ASAP workspaces (Overhead Matters §4.2.2), and bad
// input. Images of 100 MB on a 10 MB/s link: 10 s each when alone. (The staging strategies on
// advance reservations are tested as preparation steps of the lease scheduler in
// naive_staging_test.cpp; the deployer's decisions one call at a time in
// tests/policy/staging/workspace_deployer_test.cpp.)

#include <doctest/doctest.h>

#include <cstdint>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include <leasehold/sim/workspace_simulation.hpp>

namespace workspace_simulation_test {

using namespace leasehold;
using namespace leasehold::policy::staging;
using leasehold::sim::run_workspaces;
using leasehold::sim::workspace_report;

namespace {

using T = std::int64_t;
const std::map<std::string, std::int64_t> images{{"A", 100}, {"B", 100}};

workspace<T> asap(std::uint64_t id, T submit, T duration = 5, std::string image = "A") {
  return {id, submit, duration, 1, std::move(image)};
}

workspace_report<T> run(const std::vector<workspace<T>>& ws, std::int64_t cache = 0,
                        double copy = 0.0) {
  workspace_config c;
  c.nodes = 2;
  c.vms_per_node = 2;
  c.bandwidth_mb_s = 10.0;
  c.cache_mb = cache;
  c.local_copy_mb_s = copy;
  return run_workspaces(ws, images, c);
}

}  // namespace

TEST_CASE("workspaces: a template cache with hits and misses and a redundant transfer avoided") {
  // One 100 MB cache per node, local copy at 10 MB/s (10 s). ASAP workspaces of 1 node.
  // W1 at 0: miss, transfer [0, 10) + copy: ready at 20 (deploy time 20); node 0.
  // W2 at 1: node 0 (holds A, arriving) has a free slot: waits for that transfer, ready 20;
  //   a redundant transfer avoided, not counted as hit or miss.
  // W3 at 30: hit on node 0, copy only: ready at 40 (deploy time 10).
  const auto r = run({asap(1, 0), asap(2, 1), asap(3, 30)}, 100, 10.0);
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
  const auto none = run({asap(1, 0), asap(2, 1), asap(3, 30)});
  CHECK(none.summary.cache_hits + none.summary.redundant_avoided == 0);
  CHECK(none.summary.mb_transferred == doctest::Approx(300.0));
  CHECK(none.workspaces[0].ready == doctest::Approx(19.0));
  CHECK(none.workspaces[1].ready == doctest::Approx(20.0));
  CHECK(none.summary.mean_deploy_time == doctest::Approx((19.0 + 19.0 + 10.0) / 3.0));
  CHECK(none.summary.makespan == doctest::Approx(45.0));
  CHECK(none.workspaces[2].nodes == std::vector<std::size_t>{0});
}

TEST_CASE("workspaces: an instance sent past a full cache holds no reference on its node") {
  // One node of 3 slots, a cache of one image (100 MB), no copy time.
  // W1 (A, 10 s) at 0: miss, A cached. W2 (B, 50 s) at 0: A is in use, B cannot be cached:
  //   sent straight to the working space (a miss). Both share the link: done at 20.
  //   W1 runs [20, 30), W2 [20, 70).
  // W3 (B, 50 s) at 40: A unused, evicted; B cached: [40, 50), runs [50, 100).
  // W2's end at 70 must leave W3's reference on B alone (until this split, it released it,
  // and W3's end at 100 then failed).
  workspace_config c;
  c.nodes = 1;
  c.vms_per_node = 3;
  c.bandwidth_mb_s = 10.0;
  c.cache_mb = 100;
  const auto r =
      run_workspaces<T>({asap(1, 0, 10), asap(2, 0, 50, "B"), asap(3, 40, 50, "B")}, images, c);
  CHECK(r.summary.cache_misses == 3);
  CHECK(r.summary.cache_hits == 0);
  CHECK(r.summary.deployments == 3);
  CHECK(r.summary.mean_deploy_time == doctest::Approx((20.0 + 20.0 + 10.0) / 3.0));
  CHECK(r.summary.mb_transferred == doctest::Approx(300.0));
  CHECK(r.workspaces[0].end == doctest::Approx(30.0));
  CHECK(r.workspaces[1].end == doctest::Approx(70.0));
  CHECK(r.workspaces[2].begin == doctest::Approx(50.0));
  CHECK(r.workspaces[2].end == doctest::Approx(100.0));
  CHECK(r.summary.makespan == doctest::Approx(100.0));
}

TEST_CASE("workspaces: bad input") {
  workspace_config c;
  workspace<T> unknown = asap(1, 0);
  unknown.image = "nope";
  CHECK_THROWS_WITH_AS((void)run_workspaces<T>({unknown}, images, c),
                       "workspace 1: image nope is unknown", unknown_image);
  c.cache_mb = 50;
  CHECK_THROWS_WITH_AS((void)run_workspaces<T>({asap(1, 0)}, images, c),
                       "workspace_deployer: image A (100 MB) is larger than the cache (50 MB)",
                       invalid_request);
  c.cache_mb = 0;
  c.bandwidth_mb_s = 0.0;
  CHECK_THROWS_WITH_AS((void)run_workspaces<T>({asap(1, 0)}, images, c),
                       doctest::Contains("bandwidth 0 MB/s"), invalid_request);
  c.bandwidth_mb_s = 10.0;
  CHECK_THROWS_WITH_AS((void)run_workspaces<T>({asap(1, 0, 0)}, images, c),
                       "workspace 1: duration 0 must be positive", invalid_request);
  workspace<T> wide = asap(1, 0);
  wide.nodes = 9;
  CHECK_THROWS_WITH_AS((void)run_workspaces<T>({wide}, images, c),
                       "workspace 1: 9 nodes on a cluster of 8", invalid_request);
  CHECK_THROWS_WITH_AS((void)run_workspaces<T>({asap(4, 0), asap(4, 100)}, images, c),
                       "run_workspaces: workspace id 4 appears twice", invalid_request);
}

}  // namespace workspace_simulation_test
