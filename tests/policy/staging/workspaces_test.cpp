// policy::staging::run_workspaces: the template cache on ASAP workspaces (Overhead Matters
// §4.2.2), and bad input. Images of 100 MB on a 10 MB/s link: 10 s each when alone. (The
// staging strategies on advance reservations are tested as preparation steps of the lease
// scheduler in naive_staging_test.cpp, on the cases that used to be here.)

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

workspace<T> asap(std::uint64_t id, T submit, T duration = 5) {
  return {id, submit, duration, 1, "A"};
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
}

TEST_CASE("workspaces: bad input") {
  workspace_config c;
  workspace<T> unknown = asap(1, 0);
  unknown.image = "nope";
  CHECK_THROWS_AS((void)run_workspaces<T>({unknown}, images, c), unknown_image);
  c.cache_mb = 50;
  CHECK_THROWS_WITH_AS((void)run_workspaces<T>({asap(1, 0)}, images, c),
                       "run_workspaces: image A (100 MB) is larger than the cache (50 MB)",
                       invalid_request);
  c.cache_mb = 0;
  c.bandwidth_mb_s = 0.0;
  CHECK_THROWS_AS((void)run_workspaces<T>({asap(1, 0)}, images, c), invalid_request);
  c.bandwidth_mb_s = 10.0;
  CHECK_THROWS_WITH_AS((void)run_workspaces<T>({asap(1, 0, 0)}, images, c),
                       "workspace 1: duration 0 must be positive", invalid_request);
  workspace<T> wide = asap(1, 0);
  wide.nodes = 9;
  CHECK_THROWS_AS((void)run_workspaces<T>({wide}, images, c), invalid_request);
}
