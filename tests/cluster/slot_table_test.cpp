// cluster::slot_table over every exact backend: gang earliest fit by hand, node preference,
// per-node ready times, the strong guarantee of reserve / release, malformed input, and a
// seeded randomised run against a brute-force gang oracle with validate() after every change.

#include <doctest/doctest.h>

#include <cstddef>
#include <cstdint>
#include <optional>
#include <random>
#include <vector>

#include <leasehold/cluster/slot_table.hpp>

#include "availability/backends.hpp"
#include "availability/differential.hpp"

namespace slot_table_test {

using namespace leasehold;
using leasehold::testing::vector4;

namespace {

template <class Table>
auto snapshot(const Table& table) {
  using A = typename Table::node_type;
  std::vector<std::vector<typename A::block_type>> all;
  all.push_back(leasehold::testing::blocks_of(table.aggregate()));
  for (std::size_t i = 0; i < table.node_count(); ++i)
    all.push_back(leasehold::testing::blocks_of(table.node(i)));
  return all;
}

// The first start (window begin or any block boundary) at which n nodes fit: the obviously
// correct gang answer.
template <class Table>
std::optional<std::int64_t> brute_force_start(const Table& table,
                                              const typename Table::request_type& r) {
  using T = typename Table::time_type;
  std::vector<T> candidates{std::max(r.window.begin, table.origin())};
  for (std::size_t i = 0; i < table.node_count(); ++i)
    for (const auto& block : table.node(i).free_blocks())
      if (block.span.begin > candidates.front()) candidates.push_back(block.span.begin);
  std::ranges::sort(candidates);
  for (T s : candidates) {
    if (s + r.duration > r.window.end) break;
    std::size_t count = 0;
    for (std::size_t i = 0; i < table.node_count(); ++i)
      if (fits(r.per_node, table.node(i).min_free({s, static_cast<T>(s + r.duration)}))) ++count;
    if (count >= r.nodes) return s;
  }
  return std::nullopt;
}

}  // namespace

TEST_CASE_TEMPLATE("slot_table: gang earliest fit needs n nodes over the same span", A,
                   LEASEHOLD_EXACT_SCALAR_BACKENDS) {
  using T = typename A::time_type;
  using C = typename A::capacity_type;
  cluster::slot_table<A> table(4, C{1});
  // Node 0 busy [0, 100), node 1 busy [50, 150), node 2 busy [0, 30): at 0 nodes 1 and 3 are
  // free (node 1 until 50), at 30 nodes 1, 2 and 3, at 100 nodes 0, 2 and 3, from 150 all four.
  table.reserve({{0, 100}, C{1}, {0}});
  table.reserve({{50, 150}, C{1}, {1}});
  table.reserve({{0, 30}, C{1}, {2}});
  table.validate();

  using request = typename cluster::slot_table<A>::request_type;
  auto at = [&](std::size_t n, T d) { return table.earliest_fit(request{n, C{1}, d}); };
  REQUIRE(at(1, 10));
  CHECK(at(1, 10)->span == interval<T>{0, 10});
  CHECK(at(1, 10)->nodes == std::vector<std::size_t>{1});
  CHECK(at(2, 10)->span == interval<T>{0, 10});
  CHECK(at(2, 10)->nodes == std::vector<std::size_t>{1, 3});
  CHECK(at(3, 10)->span == interval<T>{30, 40});
  CHECK(at(3, 10)->nodes == std::vector<std::size_t>{1, 2, 3});
  // Two nodes for 60 from 0: node 1 stops at 50, so nodes 2 and 3 from 30.
  CHECK(at(2, 60)->span == interval<T>{30, 90});
  CHECK(at(2, 60)->nodes == std::vector<std::size_t>{2, 3});
  // Three nodes for 30: [30, 60) collides with node 1 at 50; at 100 nodes 0, 2 and 3.
  CHECK(at(3, 30)->start() == 100);
  CHECK(at(3, 30)->nodes == std::vector<std::size_t>{0, 2, 3});
  CHECK(at(4, 10)->start() == 150);
  // A window that closes first has no answer.
  CHECK_FALSE(table.earliest_fit(request{4, C{1}, 10, {0, 155}}));
  CHECK(table.earliest_fit(request{4, C{1}, 10, {0, 160}})->start() == 150);
}

TEST_CASE_TEMPLATE("slot_table: node preference and per-node ready times", A,
                   LEASEHOLD_EXACT_SCALAR_BACKENDS) {
  using T = typename A::time_type;
  using C = typename A::capacity_type;
  cluster::slot_table<A> table(5, C{2});
  using request = typename cluster::slot_table<A>::request_type;
  // Prefer odd nodes, then higher ids.
  auto odd_first = [](std::size_t node) {
    return std::pair<int, long>{node % 2 == 1 ? 0 : 1, -static_cast<long>(node)};
  };
  auto p = table.earliest_fit(request{3, C{1}, 10}, odd_first);
  REQUIRE(p);
  CHECK(p->start() == 0);
  CHECK(p->nodes == std::vector<std::size_t>{1, 3, 4});
  // Node i cannot start before 10 * i: three nodes first share a start at 20.
  auto ready = [](std::size_t node) { return static_cast<T>(10 * node); };
  auto q = table.earliest_fit(request{3, C{1}, 10}, cluster::no_preference{}, ready);
  REQUIRE(q);
  CHECK(q->start() == 20);
  CHECK(q->nodes == std::vector<std::size_t>{0, 1, 2});
  // A preference that also takes the start: the node with the least free over [start, start +
  // 10) first (best fit). Node 4 holds 1 unit over [0, 50), node 2 over [0, 5): at 0 node 4
  // and 2 have 1 free and are preferred, ties by id.
  table.reserve({{0, 50}, C{1}, {4}});
  table.reserve({{0, 5}, C{1}, {2}});
  auto tightest = [&](std::size_t node, T start) {
    return table.node(node).min_free({start, static_cast<T>(start + 10)});
  };
  auto r = table.earliest_fit(request{3, C{1}, 10}, tightest);
  REQUIRE(r);
  CHECK(r->start() == 0);
  CHECK(r->nodes == std::vector<std::size_t>{0, 2, 4});
}

TEST_CASE_TEMPLATE("slot_table: vector capacities fit per component", A,
                   LEASEHOLD_EXACT_VECTOR_BACKENDS) {
  using T = typename A::time_type;
  cluster::slot_table<A> table(3, vector4{1, 1024, 40960, 10});
  using request = typename cluster::slot_table<A>::request_type;
  // Node 0's disk is nearly full until 500; node 1's CPU is taken until 200.
  table.reserve({{0, 500}, vector4{0, 0, 40000, 0}, {0}});
  table.reserve({{0, 200}, vector4{1, 512, 0, 0}, {1}});
  const vector4 vm{1, 1024, 2048, 0};
  auto p = table.earliest_fit(request{2, vm, 100});
  REQUIRE(p);
  CHECK(p->span == interval<T>{200, 300});
  CHECK(p->nodes == std::vector<std::size_t>{1, 2});
  CHECK(table.free_until(0, 0, vm, 10000) == 0);
  CHECK(table.free_until(1, 0, vector4{0, 512, 0, 0}, 10000) == 10000);
  CHECK(table.free_until(1, 200, vm, 1000) == 1000);
  table.validate();
}

TEST_CASE_TEMPLATE("slot_table: free_until finds where a node stops fitting", A,
                   LEASEHOLD_EXACT_SCALAR_BACKENDS) {
  using C = typename A::capacity_type;
  cluster::slot_table<A> table(2, C{4});
  table.reserve({{1000, 1500}, C{3}, {0}});
  table.reserve({{77, 78}, C{4}, {1}});
  CHECK(table.free_until(0, 0, C{2}, 5000) == 1000);
  CHECK(table.free_until(0, 0, C{1}, 5000) == 5000);
  CHECK(table.free_until(0, 1000, C{2}, 5000) == 1000);
  CHECK(table.free_until(0, 1500, C{2}, 5000) == 5000);
  CHECK(table.free_until(1, 3, C{1}, 5000) == 77);
  CHECK(table.free_until(1, 0, C{1}, 40) == 40);
  CHECK(table.free_until(1, 0, C{1}, forever<typename A::time_type>) == 77);
}

TEST_CASE_TEMPLATE("slot_table: reserve and release are all or nothing", A,
                   LEASEHOLD_EXACT_SCALAR_BACKENDS) {
  using C = typename A::capacity_type;
  cluster::slot_table<A> table(4, C{2});
  table.reserve({{0, 100}, C{2}, {2}});
  table.reserve({{10, 20}, C{1}, {0, 1}});
  const auto before = snapshot(table);

  // Node 2 is full over [50, 60): nothing may change on nodes 0 and 1 either.
  CHECK_THROWS_WITH_AS(table.reserve({{50, 60}, C{1}, {0, 1, 2}}), doctest::Contains("node 2"),
                       insufficient_capacity);
  CHECK(snapshot(table) == before);
  // Node 3 has nothing booked: releasing on 0, 1 and 3 must restore 0 and 1.
  CHECK_THROWS_AS(table.release({{10, 20}, C{1}, {0, 1, 3}}), invalid_release);
  CHECK(snapshot(table) == before);
  // Malformed placements.
  CHECK_THROWS_WITH_AS(table.reserve({{10, 20}, C{1}, {0, 0}}), doctest::Contains("listed twice"),
                       invalid_request);
  CHECK_THROWS_WITH_AS(table.reserve({{10, 20}, C{1}, {4}}), doctest::Contains("out of range"),
                       invalid_request);
  CHECK_THROWS_WITH_AS(table.reserve({{10, 20}, C{1}, {}}), doctest::Contains("no nodes"),
                       invalid_request);
  CHECK_THROWS_WITH_AS(table.reserve({{20, 10}, C{1}, {0}}), doctest::Contains("end before begin"),
                       invalid_request);
  CHECK_THROWS_WITH_AS(table.reserve({{10, 20}, C{3}, {0}}), doctest::Contains("exceeds"),
                       invalid_request);
  CHECK(snapshot(table) == before);
  // And the successful release restores the empty table.
  table.release({{10, 20}, C{1}, {0, 1}});
  table.release({{0, 100}, C{2}, {2}});
  CHECK(snapshot(table) == snapshot(cluster::slot_table<A>(4, C{2})));
}

TEST_CASE_TEMPLATE("slot_table: malformed gang requests are rejected", A,
                   LEASEHOLD_EXACT_SCALAR_BACKENDS) {
  using C = typename A::capacity_type;
  using request = typename cluster::slot_table<A>::request_type;
  CHECK_THROWS_WITH_AS(cluster::slot_table<A>(0, C{1}), doctest::Contains("at least one node"),
                       invalid_request);
  CHECK_THROWS_AS(cluster::slot_table<A>(3, C{0}), invalid_request);
  cluster::slot_table<A> table(4, C{2});
  CHECK_THROWS_WITH_AS((void)table.earliest_fit(request{0, C{1}, 10}),
                       doctest::Contains("zero nodes"), invalid_request);
  CHECK_THROWS_WITH_AS((void)table.earliest_fit(request{5, C{1}, 10}),
                       doctest::Contains("5 nodes requested but the table has 4"), invalid_request);
  CHECK_THROWS_WITH_AS((void)table.earliest_fit(request{2, C{1}, -5}),
                       doctest::Contains("duration must be positive"), invalid_request);
  CHECK_THROWS_WITH_AS((void)table.earliest_fit(request{2, C{3}, 5}), doctest::Contains("exceeds"),
                       invalid_request);
  CHECK_THROWS_WITH_AS((void)table.node(4), doctest::Contains("node 4 out of range"),
                       invalid_request);
}

TEST_CASE_TEMPLATE("slot_table: random gangs agree with a brute-force oracle", A,
                   LEASEHOLD_EXACT_SCALAR_BACKENDS) {
  using T = typename A::time_type;
  using C = typename A::capacity_type;
  using table_type = cluster::slot_table<A>;
  const std::size_t operations = leasehold::testing::random_ops_per_seed(400);
  for (std::uint64_t seed : {1u, 2u, 3u}) {
    std::mt19937_64 rng(seed);
    auto uniform = [&rng](auto low, auto high) {
      return std::uniform_int_distribution<decltype(low)>(low, high)(rng);
    };
    table_type table(6, C{3});
    std::vector<typename table_type::placement_type> live;
    for (std::size_t op = 0; op < operations; ++op) {
      CAPTURE(seed);
      CAPTURE(op);
      const int kind = uniform(0, 9);
      if (kind < 5) {
        typename table_type::request_type r{uniform(std::size_t{1}, std::size_t{6}),
                                            static_cast<C>(uniform(1, 3)),
                                            static_cast<T>(uniform(1, 60))};
        if (uniform(0, 1) == 1) {
          const T begin = static_cast<T>(table.origin() + uniform(0, 200));
          r.window = {begin, static_cast<T>(begin + r.duration + uniform(0, 150))};
        }
        const auto p = table.earliest_fit(r);
        const auto expected = brute_force_start(table, r);
        REQUIRE(p.has_value() == expected.has_value());
        if (!p) continue;
        CHECK(p->start() == *expected);
        CHECK(p->nodes.size() == r.nodes);
        REQUIRE(table.can_reserve(*p));
        table.reserve(*p);
        live.push_back(*p);
      } else if (kind < 8 && !live.empty()) {
        const std::size_t i = uniform(std::size_t{0}, live.size() - 1);
        auto p = live[i];
        live.erase(live.begin() + static_cast<std::ptrdiff_t>(i));
        if (p.span.end <= table.origin()) continue;
        p.span.begin = std::max(p.span.begin, table.origin());
        table.release(p);
      } else if (kind == 8) {
        table.advance_to(static_cast<T>(table.origin() + uniform(0, 20)));
      } else {
        // A reserve that must fail leaves everything as it was.
        const auto before = snapshot(table);
        const std::size_t node = uniform(std::size_t{0}, std::size_t{5});
        const T begin = static_cast<T>(table.origin() + uniform(0, 100));
        typename table_type::placement_type p{{begin, static_cast<T>(begin + 30)}, C{3}, {node}};
        if (!table.can_reserve(p)) {
          CHECK_THROWS_AS(table.reserve(p), insufficient_capacity);
          CHECK(snapshot(table) == before);
        }
      }
      table.validate();
    }
  }
}

// The same table over dynamic_resources, the count chosen at run time: the hand-computed
// answers of the vector case above, a wrong-count per-node amount refused, and random gangs of
// two-component amounts against the brute-force oracle.
using dynamic_list = free_list<std::int64_t, dynamic_resources<>>;
using dynamic_tree = free_tree<std::int64_t, dynamic_resources<>>;

TEST_CASE_TEMPLATE("slot_table: dynamic_resources fit per component", A, dynamic_list,
                   dynamic_tree) {
  using T = typename A::time_type;
  using dyn = dynamic_resources<>;
  cluster::slot_table<A> table(3, dyn{1, 1024, 40960, 10});
  using request = typename cluster::slot_table<A>::request_type;
  CHECK(table.total() == dyn{3, 3072, 122880, 30});
  table.reserve({{0, 500}, dyn{0, 0, 40000, 0}, {0}});
  table.reserve({{0, 200}, dyn{1, 512, 0, 0}, {1}});
  const dyn vm{1, 1024, 2048, 0};
  auto p = table.earliest_fit(request{2, vm, 100});
  REQUIRE(p);
  CHECK(p->span == interval<T>{200, 300});
  CHECK(p->nodes == std::vector<std::size_t>{1, 2});
  CHECK(table.earliest_fit_by_scan(request{2, vm, 100}) == p);
  CHECK(table.free_until(0, 0, vm, 10000) == 0);
  CHECK(table.free_until(1, 200, vm, 1000) == 1000);
  const auto before = snapshot(table);
  CHECK_THROWS_WITH_AS((void)table.earliest_fit(request{1, dyn{1, 1}, 10}),
                       doctest::Contains("has 2 components, the total {1, 1024, 40960, 10} has 4"),
                       invalid_request);
  CHECK_THROWS_AS(table.reserve({{0, 10}, dyn{1, 1}, {2}}), invalid_request);
  CHECK_THROWS_AS((void)table.nodes_free({0, 10}, dyn{1, 1, 1}), invalid_request);
  CHECK(snapshot(table) == before);
  table.validate();
}

TEST_CASE_TEMPLATE("slot_table: random dynamic_resources gangs agree with a brute-force oracle", A,
                   dynamic_list, dynamic_tree) {
  using T = typename A::time_type;
  using dyn = dynamic_resources<>;
  using table_type = cluster::slot_table<A>;
  const std::size_t operations = leasehold::testing::random_ops_per_seed(300);
  for (std::uint64_t seed : {11u, 12u}) {
    std::mt19937_64 rng(seed);
    auto uniform = [&rng](auto low, auto high) {
      return std::uniform_int_distribution<decltype(low)>(low, high)(rng);
    };
    table_type table(5, dyn{3, 4});
    std::vector<typename table_type::placement_type> live;
    for (std::size_t op = 0; op < operations; ++op) {
      CAPTURE(seed);
      CAPTURE(op);
      const int kind = uniform(0, 9);
      if (kind < 5) {
        dyn amount{uniform(std::int64_t{0}, std::int64_t{3}),
                   uniform(std::int64_t{0}, std::int64_t{4})};
        if (is_zero(amount)) amount[1] = 1;
        typename table_type::request_type r{uniform(std::size_t{1}, std::size_t{5}), amount,
                                            static_cast<T>(uniform(1, 60))};
        const auto p = table.earliest_fit(r);
        const auto expected = brute_force_start(table, r);
        REQUIRE(p.has_value() == expected.has_value());
        if (!p) continue;
        CHECK(p->start() == *expected);
        table.reserve(*p);
        live.push_back(*p);
      } else if (kind < 8 && !live.empty()) {
        const std::size_t i = uniform(std::size_t{0}, live.size() - 1);
        auto p = live[i];
        live.erase(live.begin() + static_cast<std::ptrdiff_t>(i));
        if (p.span.end <= table.origin()) continue;
        p.span.begin = std::max(p.span.begin, table.origin());
        table.release(p);
      } else if (kind == 8) {
        table.advance_to(static_cast<T>(table.origin() + uniform(0, 20)));
      }
      table.validate();
    }
  }
}

}  // namespace slot_table_test
