// The staging strategies of Overhead Matters (§4.2.1) as preparation steps of the lease
// scheduler: JIT and Aggressive (naive_staging) and Hybrid (image_staging, transfers placed
// as early as possible by deadline), on hand-computed bursts, driven by sim::simulate_leases;
// then bad input.
//
// One node with two CPUs (two VM slots, as in §5); advance reservations of one node and 50 s,
// with 100 MB images on a 10 MB/s link: 10 s per transfer when alone. These are the cases of
// the former run_workspaces tests; their numbers are unchanged (every completion there fell
// on a whole second) except where a case says so.

#include <doctest/doctest.h>

#include <cstdint>
#include <string>
#include <vector>

#include <leasehold/policy/lease/lease_scheduler.hpp>
#include <leasehold/policy/staging/image_staging.hpp>
#include <leasehold/policy/staging/naive_staging.hpp>
#include <leasehold/sim/lease_simulation.hpp>

namespace naive_staging_test {

using namespace leasehold;
using namespace leasehold::policy::lease;
using namespace leasehold::policy::staging;

namespace {

using T = std::int64_t;
using backend = free_list<T, node_resources>;
using naive_scheduler = lease_scheduler<backend, naive_staging<T>>;
using hybrid_scheduler = lease_scheduler<backend, image_staging<>>;

scheduler_config<T> test_config() {
  scheduler_config<T> c;
  c.in_vms = false;
  c.suspend = suspension::none;
  c.migrate = migration::none;
  return c;
}

cluster::slot_table<backend> one_node(std::size_t nodes = 1) {
  return cluster::slot_table<backend>(nodes, node_resources{2, 4096, 0, 0});
}

lease_terms<T> reservation(std::uint64_t id, T submit, T start, const std::string& image = "A") {
  lease_terms<T> t;
  t.id = id;
  t.submit = submit;
  t.kind = lease_kind::advance_reservation;
  t.start = start;
  t.nodes = 1;
  t.per_node = {1, 1024, 0, 0};
  t.duration = 50;
  t.real_duration = 50;
  t.preemptible = false;
  t.image = disk_image{image, 100};
  return t;
}

// Runs the leases with JIT or Aggressive; returns each lease's ready time, in input order.
std::vector<T> run_naive(const std::vector<lease_terms<T>>& leases, staging_strategy s) {
  naive_scheduler scheduler(one_node(), test_config(),
                            naive_staging<T>(1, {.bandwidth_mb_s = 10.0, .strategy = s}));
  (void)sim::simulate_leases(scheduler, leases);
  std::vector<T> ready;
  for (const auto& l : leases) {
    CHECK(scheduler.lease(l.id).state == lease_state::done);
    ready.push_back(scheduler.preparation_step().ready(l.id).value());
  }
  return ready;
}

// Hybrid: image_staging with private copies, one unicast per node, EDF as early as possible.
hybrid_scheduler make_hybrid() {
  staging_config c;
  c.bandwidth_mb_s = 10.0;
  c.cache_mb = 1000;
  c.reuse = false;
  c.mechanism = transfer_mechanism::unicast;
  c.deadline_transfers = deadline_placement::as_early_as_possible;
  image_staging<> staging(1, c);
  staging.add_image({"A", 100});
  staging.add_image({"B", 100});
  return hybrid_scheduler(one_node(), test_config(), std::move(staging));
}

// Client satisfaction (§5.1): time got over time asked, [max(start, ready), start + 50).
double satisfaction(T start, T ready) {
  return static_cast<double>(start + 50 - std::max(start, ready)) / 50.0;
}

}  // namespace

TEST_CASE("staging strategies: a burst where JIT misses its deadlines and Hybrid does not") {
  // Two reservations start at 100 on the node, both submitted at 0.
  const std::vector<lease_terms<T>> burst{reservation(1, 0, 100), reservation(2, 0, 100)};
  // JIT starts both transfers at 100 - 10 = 90 (the estimate n x s / B of one node each);
  // sharing the link they end at 110: each client gets [110, 150) of [100, 150): 40 / 50.
  const auto jit = run_naive(burst, staging_strategy::jit);
  CHECK(jit == std::vector<T>{110, 110});
  CHECK(satisfaction(100, jit[0]) == doctest::Approx(0.8));
  // Aggressive starts both at acceptance (0); sharing, they end at 20, long before 100.
  CHECK(run_naive(burst, staging_strategy::aggressive) == std::vector<T>{20, 20});
  // Hybrid books the link: [0, 10) and [10, 20).
  auto hybrid = make_hybrid();
  (void)sim::simulate_leases(hybrid, burst);
  CHECK(hybrid.preparation_step().ready(1) == T{10});
  CHECK(hybrid.preparation_step().ready(2) == T{20});
  CHECK(hybrid.preparation_step().stats().mb_transferred == 200);
}

TEST_CASE(
    "staging strategies: Aggressive lets a loose deadline slow a tight one, Hybrid orders them") {
  // W1 starts at 1000 (loose), W2 at 12 (tight); both submitted at 0.
  const std::vector<lease_terms<T>> ws{reservation(1, 0, 1000), reservation(2, 0, 12)};
  // Aggressive: both transfers from 0, sharing: both end at 20. W2 gets [20, 62): 42 / 50.
  const auto aggressive = run_naive(ws, staging_strategy::aggressive);
  CHECK(aggressive == std::vector<T>{20, 20});
  CHECK(satisfaction(12, aggressive[1]) == doctest::Approx(0.84));
  CHECK(satisfaction(1000, aggressive[0]) == doctest::Approx(1.0));
  // JIT: W2 alone over [2, 12), W1 alone over [990, 1000): both fully satisfied.
  CHECK(run_naive(ws, staging_strategy::jit) == std::vector<T>{1000, 12});
  // Hybrid: W2's deadline first, [0, 10); W1 next, [10, 20).
  auto hybrid = make_hybrid();
  (void)sim::simulate_leases(hybrid, ws);
  CHECK(hybrid.preparation_step().ready(2) == T{10});
  CHECK(hybrid.preparation_step().ready(1) == T{20});
}

TEST_CASE("staging strategies: Hybrid rejects what cannot be staged in time; JIT admits it late") {
  // W1 at 12 (image A), W2 at 15 (image B). Hybrid: W1's transfer (deadline 12) takes
  // [0, 10); W2's would need [10, 20) and miss 15: the scheduler rejects W2.
  const std::vector<lease_terms<T>> ws{reservation(1, 0, 12), reservation(2, 0, 15, "B")};
  auto hybrid = make_hybrid();
  (void)sim::simulate_leases(hybrid, ws);
  CHECK(hybrid.lease(1).state == lease_state::done);
  CHECK(hybrid.lease(2).state == lease_state::rejected);
  CHECK(hybrid.preparation_step().ready(1) == T{10});
  // The naive strategies admit by the node alone. JIT: W1 from 2 (alone until 5: 70 MB left),
  // W2 from 5; sharing, W1 ends at 5 + 70 x 2 / 10 = 19, W2 then has 30 MB left: 22. Both late.
  CHECK(run_naive(ws, staging_strategy::jit) == std::vector<T>{19, 22});
}

TEST_CASE("staging strategies: completions between ticks are rounded up") {
  // Aggressive, three reservations submitted at 0, 1 and 2 (far starts). At 1 W1 has 90 MB
  // left; at 2 W1 85, W2 95; then three share 10 MB/s: W1 ends at 2 + 85 x 3 / 10 = 27.5;
  // W2 and W3 have 10 and 15 MB left, W2 ends at 27.5 + 2 = 29.5, W3 at 29.5 + 0.5 = 30.
  // W1 and W2 arrive between ticks and count from 28 and 30 (a double-time simulator would
  // say 27.5 and 29.5).
  const std::vector<lease_terms<T>> ws{reservation(1, 0, 500), reservation(2, 1, 500),
                                       reservation(3, 2, 600)};
  naive_scheduler scheduler(
      one_node(), test_config(),
      naive_staging<T>(1, {.bandwidth_mb_s = 10.0, .strategy = staging_strategy::aggressive}));
  (void)sim::simulate_leases(scheduler, ws);
  const auto& staging = scheduler.preparation_step();
  CHECK(staging.ready(1) == T{28});
  CHECK(staging.ready(2) == T{30});
  CHECK(staging.ready(3) == T{30});
  CHECK(staging.transfers().size() == 3);
}

TEST_CASE("staging strategies: a lease unscheduled before its JIT transfer starts drops it") {
  naive_staging<T> staging(2, {.bandwidth_mb_s = 10.0, .strategy = staging_strategy::jit});
  const auto w = reservation(1, 0, 100);
  const std::vector<std::size_t> nodes{0, 1};
  staging.prepare(w, nodes, 100, 0);
  // Two nodes: the estimate is 2 x 100 / 10 = 20 s, both transfers from 80, sharing: 100.
  CHECK(staging.ready(1) == T{100});
  CHECK(staging.transfers().size() == 2);
  staging.cancel(1, 50);
  CHECK(staging.transfers().empty());
  CHECK(staging.ready(1) == T{0});  // prepared at 0, nothing kept
  CHECK(staging.ready(7) == std::nullopt);
}

TEST_CASE("staging strategies: bad input changes nothing") {
  using leasehold::invalid_request;
  CHECK_THROWS_WITH_AS(naive_staging<T>(0), "naive_staging: a cluster needs at least one node",
                       invalid_request);
  CHECK_THROWS_WITH_AS(naive_staging<T>(1, {.bandwidth_mb_s = 0.0}),
                       "naive_staging: bandwidth 0 MB/s must be a positive number",
                       invalid_request);
  CHECK_THROWS_AS(naive_staging<T>(1, {.strategy = staging_strategy::hybrid}), invalid_request);
  naive_staging<T> staging(1, {.bandwidth_mb_s = 10.0, .strategy = staging_strategy::aggressive});
  const std::vector<std::size_t> node0{0};
  const std::vector<std::size_t> node3{3};
  CHECK_THROWS_WITH_AS(staging.prepare(reservation(1, 0, 100), node3, 100, 0),
                       "naive_staging prepare: node 3 out of range (1 nodes)", invalid_request);
  auto bad = reservation(1, 0, 100);
  bad.image->size_mb = -5;
  CHECK_THROWS_WITH_AS(staging.prepare(bad, node0, 100, 0),
                       "naive_staging: lease 1: image A has size -5 MB; sizes must be positive",
                       invalid_request);
  CHECK(staging.transfers().empty());
  staging.prepare(reservation(1, 0, 100), node0, 100, 10);
  CHECK_THROWS_WITH_AS(staging.prepare(reservation(1, 0, 100), node0, 100, 10),
                       "naive_staging prepare: lease 1 is already prepared", invalid_request);
  CHECK_THROWS_WITH_AS(staging.prepare(reservation(2, 0, 100), node0, 100, 5),
                       "naive_staging prepare at 5: time went backwards (it is at 10)",
                       invalid_request);
  CHECK(staging.transfers().size() == 1);
  CHECK(staging.ready(1) == T{20});
  // A scheduler built on more nodes than the staging knows is refused.
  CHECK_THROWS_AS(naive_scheduler(one_node(2), test_config(), naive_staging<T>(1)),
                  invalid_request);
}

}  // namespace naive_staging_test
