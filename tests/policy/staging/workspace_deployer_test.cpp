// policy::staging::workspace_deployer driven by hand, one call at a time, as a simulator or an
// embedding scheduler would: the test plays the link and says when each transfer is
// delivered. Images of 100 MB; local copies at 10 MB/s (10 s) where a case says so.

#include <doctest/doctest.h>

#include <cmath>
#include <cstdint>
#include <limits>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include <leasehold/policy/staging/workspace_deployer.hpp>

namespace workspace_deployer_test {

using namespace leasehold;
using namespace leasehold::policy::staging;

namespace {

using T = std::int64_t;
using deployer = workspace_deployer<T>;
const std::map<std::string, std::int64_t> images{{"A", 100}, {"B", 100}, {"C", 100}};

workspace<T> asap(std::uint64_t id, std::string image = "A", std::size_t nodes = 1) {
  return {id, 0, 5, nodes, std::move(image)};
}

workspace_config testbed(std::size_t nodes, std::size_t slots, std::int64_t cache,
                         double copy = 0.0) {
  workspace_config c;
  c.nodes = nodes;
  c.vms_per_node = slots;
  c.cache_mb = cache;
  c.local_copy_mb_s = copy;
  return c;
}

std::size_t references(const deployer& d, std::size_t node, const std::string& image) {
  const auto* e = d.cache(node)->find(image);
  REQUIRE(e != nullptr);
  return e->references;
}

}  // namespace

TEST_CASE("workspace_deployer: a miss, then a hit on the cached template") {
  deployer d(images, testbed(2, 2, 100, 10.0));
  d.submit(asap(1));
  // Both nodes free, neither holds A: the lower index. A miss: one transfer into node 0's cache.
  auto out = d.dispatch(0.0);
  REQUIRE(out.dispatched.size() == 1);
  CHECK(out.dispatched[0].workspace == 1);
  CHECK(out.dispatched[0].nodes == std::vector<std::size_t>{0});
  REQUIRE(out.transfers.size() == 1);
  CHECK(out.transfers[0].image == "A");
  CHECK(out.transfers[0].size_mb == 100);
  CHECK(out.transfers[0].node == 0);
  CHECK(out.ready.empty());
  CHECK(d.free_slots(0) == 1);
  CHECK(references(d, 0, "A") == 1);
  // Delivered at 10; the local copy takes 10 s: ready at 20, deploy time 20.
  const auto ready = d.delivered(out.transfers[0].id, 10.0);
  REQUIRE(ready.size() == 1);
  CHECK(ready[0].workspace == 1);
  CHECK(ready[0].at == 20.0);
  // W2 at 12: node 0 holds A, so it comes first; a hit, ready after the copy at 22, no transfer.
  d.submit(asap(2));
  out = d.dispatch(12.0);
  CHECK(out.dispatched[0].nodes == std::vector<std::size_t>{0});
  CHECK(out.transfers.empty());
  REQUIRE(out.ready.size() == 1);
  CHECK(out.ready[0].workspace == 2);
  CHECK(out.ready[0].at == 22.0);
  CHECK(references(d, 0, "A") == 2);
  d.ended(1, 25.0);
  d.ended(2, 27.0);
  CHECK(references(d, 0, "A") == 0);  // unreferenced, still cached
  CHECK(d.free_slots(0) == 2);
  const auto s = d.summary();
  CHECK(s.accepted == 2);
  CHECK(s.cache_misses == 1);
  CHECK(s.cache_hits == 1);
  CHECK(s.redundant_avoided == 0);
  CHECK(s.deployments == 2);
  CHECK(s.mean_deploy_time == 15.0);  // (20 + 10) / 2
  CHECK(s.mb_transferred == 100.0);
  CHECK(s.makespan == 27.0);
  CHECK(d.running_count() == 0);
}

TEST_CASE("workspace_deployer: a second instance waits for the template already coming") {
  deployer d(images, testbed(2, 2, 100, 10.0));
  d.submit(asap(1));
  const auto first = d.dispatch(0.0);
  // W2 at 1: node 0 holds A (arriving) and has a free slot: no second transfer.
  d.submit(asap(2));
  const auto second = d.dispatch(1.0);
  CHECK(second.dispatched[0].nodes == std::vector<std::size_t>{0});
  CHECK(second.transfers.empty());
  CHECK(second.ready.empty());
  CHECK(d.transfers_in_progress() == 1);
  CHECK(d.summary().redundant_avoided == 1);
  // Both ready when the one transfer lands (10) and is copied (20), in the order they waited.
  const auto ready = d.delivered(first.transfers[0].id, 10.0);
  REQUIRE(ready.size() == 2);
  CHECK(ready[0].workspace == 1);
  CHECK(ready[1].workspace == 2);
  CHECK(ready[1].at == 20.0);
  // The avoided transfer is neither a hit nor a miss, and not a deployment.
  const auto s = d.summary();
  CHECK(s.cache_misses == 1);
  CHECK(s.cache_hits == 0);
  CHECK(s.deployments == 1);
  CHECK(s.mean_deploy_time == 20.0);
  CHECK(s.mb_transferred == 100.0);
}

TEST_CASE("workspace_deployer: eviction of an unreferenced template, LFU or LRU") {
  // One node, one slot, a cache of two images, free copies. A is used twice, B once, B last:
  // C then evicts B under LFU (fewer uses) and A under LRU (least recently used).
  for (const auto policy : {eviction_policy::lfu, eviction_policy::lru}) {
    CAPTURE(policy);
    auto c = testbed(1, 1, 200);
    c.eviction = policy;
    deployer d(images, c);
    double t = 0.0;
    std::uint64_t id = 0;
    for (const std::string image : {"A", "A", "B"}) {
      d.submit(asap(++id, image));
      const auto out = d.dispatch(t);
      for (const auto& tr : out.transfers) CHECK(d.delivered(tr.id, t + 10.0).size() == 1);
      t += 10.0;
      d.ended(id, t);
    }
    CHECK(d.cache(0)->used_mb() == 200);
    d.submit(asap(++id, "C"));
    const auto out = d.dispatch(t);
    REQUIRE(out.transfers.size() == 1);
    CHECK(out.transfers[0].image == "C");
    const bool lfu = policy == eviction_policy::lfu;
    CHECK((d.cache(0)->find("A") == nullptr) == !lfu);
    CHECK((d.cache(0)->find("B") == nullptr) == lfu);
    CHECK(references(d, 0, "C") == 1);
    CHECK(d.summary().cache_misses == 3);
    CHECK(d.summary().cache_hits == 1);
  }
}

TEST_CASE("workspace_deployer: FIFO, the head of the queue blocks those behind it") {
  deployer d(images, testbed(2, 1, 0));
  d.submit(asap(1));
  const auto first = d.dispatch(0.0);
  CHECK(first.dispatched[0].nodes == std::vector<std::size_t>{0});
  // W2 needs both nodes; W3 would fit on node 1 but waits behind W2 (the paper's SGE).
  d.submit(asap(2, "A", 2));
  d.submit(asap(3));
  CHECK(d.dispatch(1.0).dispatched.empty());
  CHECK(d.queued() == 2);
  CHECK(d.free_slots(1) == 1);
  CHECK(d.delivered(first.transfers[0].id, 10.0).size() == 1);
  d.ended(1, 15.0);
  const auto next = d.dispatch(15.0);
  REQUIRE(next.dispatched.size() == 1);
  CHECK(next.dispatched[0].workspace == 2);
  CHECK(next.dispatched[0].nodes == std::vector<std::size_t>{0, 1});
  CHECK(next.transfers.size() == 2);  // no cache: one transfer per node
  CHECK(d.queued() == 1);
  CHECK(d.summary().cache_misses == 0);  // without a cache nothing is a miss
  CHECK(d.summary().mb_transferred == 300.0);
}

TEST_CASE("workspace_deployer: nodes holding the image first, then the less busy, then the lower") {
  deployer d(images, testbed(3, 2, 200));
  d.submit(asap(1));
  auto out = d.dispatch(0.0);
  CHECK(d.delivered(out.transfers[0].id, 10.0).size() == 1);
  d.ended(1, 10.0);  // node 0 keeps A, unreferenced; all slots free again
  d.submit(asap(2, "B"));
  CHECK(d.dispatch(10.0).dispatched[0].nodes == std::vector<std::size_t>{0});  // lower index
  d.submit(asap(3, "A"));
  out = d.dispatch(11.0);
  CHECK(out.dispatched[0].nodes == std::vector<std::size_t>{0});  // holds A, though busier
  CHECK(out.ready.size() == 1);                                   // a hit
  d.submit(asap(4, "B"));
  CHECK(d.dispatch(12.0).dispatched[0].nodes == std::vector<std::size_t>{1});  // node 0 full
  d.submit(asap(5, "A"));
  CHECK(d.dispatch(13.0).dispatched[0].nodes == std::vector<std::size_t>{2});  // 2 idle, 1 busy
}

TEST_CASE("workspace_deployer: an instance sent past a full cache holds no reference") {
  // One node of 3 slots, a cache of one image. W1 holds A; W2's B cannot be cached: it goes
  // straight to the working space (a miss, no copy). W3 later caches B; W2's end leaves W3's
  // reference alone.
  deployer d(images, testbed(1, 3, 100, 10.0));
  d.submit(asap(1));
  const auto a = d.dispatch(0.0);
  d.submit(asap(2, "B"));
  const auto b = d.dispatch(0.0);
  REQUIRE(b.transfers.size() == 1);
  CHECK(d.cache(0)->find("B") == nullptr);
  CHECK(d.summary().cache_misses == 2);
  CHECK(d.delivered(a.transfers[0].id, 20.0)[0].at == 30.0);  // copied from the cache
  CHECK(d.delivered(b.transfers[0].id, 20.0)[0].at == 20.0);  // straight: no copy
  d.ended(1, 35.0);
  d.submit(asap(3, "B"));
  const auto c = d.dispatch(40.0);  // evicts A, caches B
  CHECK(d.cache(0)->find("A") == nullptr);
  CHECK(references(d, 0, "B") == 1);
  d.ended(2, 70.0);
  CHECK(references(d, 0, "B") == 1);
  CHECK(d.delivered(c.transfers[0].id, 50.0)[0].at == 60.0);
  d.ended(3, 100.0);
  CHECK(references(d, 0, "B") == 0);
}

TEST_CASE("workspace_deployer: bad configuration or images") {
  CHECK_THROWS_WITH_AS(deployer(images, testbed(0, 2, 0)),
                       "workspace_deployer: 0 nodes x 2 VM slots; both must be positive",
                       invalid_request);
  CHECK_THROWS_WITH_AS(deployer(images, testbed(2, 0, 0)),
                       "workspace_deployer: 2 nodes x 0 VM slots; both must be positive",
                       invalid_request);
  CHECK_THROWS_WITH_AS(deployer(images, testbed(2, 2, 0, -1.0)),
                       "workspace_deployer: local copy rate -1 MB/s must be non-negative",
                       invalid_request);
  CHECK_THROWS_WITH_AS(deployer({{"Z", 0}}, testbed(2, 2, 0)),
                       "workspace_deployer: image Z has size 0 MB", invalid_request);
  CHECK_THROWS_WITH_AS(deployer(images, testbed(2, 2, 50)),
                       "workspace_deployer: image A (100 MB) is larger than the cache (50 MB)",
                       invalid_request);
}

TEST_CASE("workspace_deployer: bad calls change nothing") {
  deployer d(images, testbed(2, 1, 100, 10.0));
  d.submit(asap(1));
  const auto out = d.dispatch(5.0);
  const std::uint64_t transfer = out.transfers[0].id;
  d.submit(asap(2, "B", 2));  // waits: node 0 is taken
  const auto before = d.summary();

  SUBCASE("submit") {
    CHECK_THROWS_WITH_AS(d.submit(asap(3, "nope")), "workspace 3: image nope is unknown",
                         unknown_image);
    CHECK_THROWS_WITH_AS(d.submit(asap(3, "A", 3)), "workspace 3: 3 nodes on a cluster of 2",
                         invalid_request);
    CHECK_THROWS_WITH_AS(d.submit(asap(3, "A", 0)), "workspace 3: 0 nodes on a cluster of 2",
                         invalid_request);
    auto none = asap(3);
    none.duration = 0;
    CHECK_THROWS_WITH_AS(d.submit(none), "workspace 3: duration 0 must be positive",
                         invalid_request);
    CHECK_THROWS_WITH_AS(d.submit(asap(2)),
                         "workspace_deployer::submit: workspace 2 is already queued",
                         invalid_request);
    CHECK_THROWS_WITH_AS(d.submit(asap(1)),
                         "workspace_deployer::submit: workspace 1 is already running",
                         invalid_request);
  }
  SUBCASE("dispatch") {
    CHECK_THROWS_WITH_AS((void)d.dispatch(std::nan("")),
                         doctest::Contains("workspace_deployer::dispatch: time nan"),
                         invalid_request);
    CHECK_THROWS_WITH_AS((void)d.dispatch(std::numeric_limits<double>::infinity()),
                         "workspace_deployer::dispatch: time inf is not a finite number",
                         invalid_request);
  }
  SUBCASE("delivered") {
    CHECK_THROWS_WITH_AS((void)d.delivered(99, 10.0),
                         "workspace_deployer::delivered: transfer 99 is not in progress",
                         invalid_request);
    CHECK_THROWS_WITH_AS(
        (void)d.delivered(transfer, 4.0),
        "workspace_deployer::delivered: transfer 0 delivered at 4, before its start at 5",
        invalid_request);
    CHECK_THROWS_AS((void)d.delivered(transfer, std::nan("")), invalid_request);
  }
  SUBCASE("ended") {
    CHECK_THROWS_WITH_AS(d.ended(2, 10.0), "workspace_deployer::ended: workspace 2 is not running",
                         invalid_request);
    CHECK_THROWS_WITH_AS(d.ended(1, 10.0),
                         "workspace_deployer::ended: workspace 1 still waits for 1 of its images",
                         invalid_request);
    REQUIRE(d.delivered(transfer, 15.0).size() == 1);  // ready at 25 after the copy
    CHECK_THROWS_WITH_AS(
        d.ended(1, 24.0),
        "workspace_deployer::ended: workspace 1 ended at 24, before it was ready at 25",
        invalid_request);
    CHECK(d.running_count() == 1);
    CHECK(references(d, 0, "A") == 1);
    d.ended(1, 30.0);  // and the state still serves a good call
    CHECK(d.dispatch(30.0).dispatched.size() == 1);
    return;
  }
  // Nothing moved: the same queue, transfer, slots, cache and counts.
  CHECK(d.queued() == 1);
  CHECK(d.running_count() == 1);
  CHECK(d.transfers_in_progress() == 1);
  CHECK(d.free_slots(0) == 0);
  CHECK(d.free_slots(1) == 1);
  CHECK(references(d, 0, "A") == 1);
  CHECK(d.summary().cache_misses == before.cache_misses);
  CHECK(d.summary().accepted == before.accepted);
  CHECK(d.summary().mb_transferred == before.mb_transferred);
  CHECK(d.delivered(transfer, 15.0).size() == 1);
}

}  // namespace workspace_deployer_test
