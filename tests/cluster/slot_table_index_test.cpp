// The node index behind cluster::slot_table::earliest_fit (cluster/detail/node_bounds.hpp):
// hand-computed cases for what changes a cached bound (bookings, releases, windows, ready
// times, advance_to on unbounded and bounded profiles), and a seeded randomised run that
// compares every answer with earliest_fit_by_scan, the search without the index, and checks
// the bounds with validate() after every change; and a seeded run of cold classes (many
// request classes, forgotten at random, first asked right after bookings, releases and
// advance_to), whose bounds come from the nodes' run records (cluster/detail/run_records.hpp).

#include <doctest/doctest.h>

#include <cstddef>
#include <cstdint>
#include <limits>
#include <optional>
#include <random>
#include <vector>

#include <leasehold/availability/slotted_ring.hpp>
#include <leasehold/cluster/detail/node_bounds.hpp>
#include <leasehold/cluster/slot_table.hpp>

#include "availability/backends.hpp"

namespace slot_table_index_test {

using namespace leasehold;

namespace {
template <class Table>
std::vector<std::size_t> nodes_of(const std::optional<typename Table::placement_type>& p) {
  REQUIRE(p);
  return p->nodes;
}
}  // namespace

TEST_CASE_TEMPLATE("slot_table index: a booking raises a cached bound, a release lowers it", A,
                   LEASEHOLD_EXACT_SCALAR_BACKENDS) {
  using T = typename A::time_type;
  using C = typename A::capacity_type;
  using Table = cluster::slot_table<A>;
  Table table(3, C{1});
  const typename Table::request_type one{1, C{1}, T{4}};
  // Builds the bounds of class (1, 4): every node fits from 0.
  CHECK(table.earliest_fit(one)->start() == 0);
  table.reserve({{0, 10}, C{1}, {0}});
  table.reserve({{0, 5}, C{1}, {1}});
  table.validate();
  // Nodes 0 and 1 now have stale bounds of 0; node 2 is the only one free at 0.
  CHECK(table.earliest_fit(one) == typename Table::placement_type{{0, 4}, C{1}, {2}});
  table.reserve({{0, 3}, C{1}, {2}});
  table.validate();
  // Node 0 fits from 10, node 1 from 5, node 2 from 3.
  CHECK(table.earliest_fit(one) == typename Table::placement_type{{3, 7}, C{1}, {2}});
  const typename Table::request_type two{2, C{1}, T{4}};
  CHECK(table.earliest_fit(two) == typename Table::placement_type{{5, 9}, C{1}, {1, 2}});
  // Releasing node 0's booking lowers its bound: it fits from 0 again.
  table.release({{0, 10}, C{1}, {0}});
  table.validate();
  CHECK(table.earliest_fit(one) == typename Table::placement_type{{0, 4}, C{1}, {0}});
  CHECK(table.earliest_fit(two) == typename Table::placement_type{{3, 7}, C{1}, {0, 2}});
  CHECK(table.earliest_fit(two) == table.earliest_fit_by_scan(two));
}

TEST_CASE_TEMPLATE("slot_table index: one class serves durations that round down to it", A,
                   LEASEHOLD_EXACT_SCALAR_BACKENDS) {
  using T = typename A::time_type;
  using C = typename A::capacity_type;
  using Table = cluster::slot_table<A>;
  Table table(2, C{1});
  table.reserve({{4, 10}, C{1}, {0}});  // node 0: a hole [0, 4) of length 4
  table.reserve({{0, 6}, C{1}, {1}});   // node 1: free from 6
  // Duration 4 and 5 share the class of duration 4, whose bound for node 0 is 0.
  CHECK(table.earliest_fit({1, C{1}, T{4}})->nodes == std::vector<std::size_t>{0});
  CHECK(table.earliest_fit({1, C{1}, T{4}})->start() == 0);
  CHECK(table.earliest_fit({1, C{1}, T{5}}) == typename Table::placement_type{{6, 11}, C{1}, {1}});
  CHECK(table.earliest_fit({2, C{1}, T{5}}) ==
        typename Table::placement_type{{10, 15}, C{1}, {0, 1}});
  table.validate();
}

TEST_CASE_TEMPLATE("slot_table index: windows and ready times are exact", A,
                   LEASEHOLD_EXACT_SCALAR_BACKENDS) {
  using T = typename A::time_type;
  using C = typename A::capacity_type;
  using Table = cluster::slot_table<A>;
  constexpr T never = std::numeric_limits<T>::max();
  SUBCASE("windows") {
    Table table(2, C{1});
    table.reserve({{2, 8}, C{1}, {0}});
    table.reserve({{5, 9}, C{1}, {1}});
    CHECK(table.earliest_fit({2, C{1}, T{2}, {0, 20}})->start() == 0);
    // From 1, node 0 is free again only from 8 and node 1 from 9.
    CHECK(table.earliest_fit({2, C{1}, T{2}, {1, 20}}) ==
          typename Table::placement_type{{9, 11}, C{1}, {0, 1}});
    CHECK_FALSE(table.earliest_fit({2, C{1}, T{2}, {1, 10}}));
    CHECK(table.earliest_fit({1, C{1}, T{2}, {1, 10}}) ==
          typename Table::placement_type{{1, 3}, C{1}, {1}});
  }
  SUBCASE("ready times") {
    Table table(4, C{1});
    const std::vector<T> ready_at{5, 0, 3, never};
    auto ready = [&](std::size_t node) { return ready_at[node]; };
    // Two nodes are ready together from 3: nodes 1 and 2.
    CHECK(table.earliest_fit({2, C{1}, T{4}}, cluster::no_preference{}, ready) ==
          typename Table::placement_type{{3, 7}, C{1}, {1, 2}});
    // A start by 2 finds only node 1 ready.
    CHECK_FALSE(table.earliest_fit({2, C{1}, T{4}, {0, 6}}, cluster::no_preference{}, ready));
    // Node 3 never becomes ready, so four nodes never fit.
    CHECK_FALSE(table.earliest_fit({4, C{1}, T{4}}, cluster::no_preference{}, ready));
    // From 5, three nodes are ready; the preference keeps the highest ids.
    auto prefer = [](std::size_t node) { return -static_cast<int>(node); };
    CHECK(table.earliest_fit({2, C{1}, T{4}, {5, never}}, prefer, ready) ==
          typename Table::placement_type{{5, 9}, C{1}, {1, 2}});
    CHECK(table.earliest_fit({2, C{1}, T{4}}, prefer, ready) ==
          table.earliest_fit_by_scan({2, C{1}, T{4}}, prefer, ready));
  }
}

TEST_CASE_TEMPLATE("slot_table index: advance_to keeps unbounded bounds true", A,
                   LEASEHOLD_EXACT_SCALAR_BACKENDS) {
  using T = typename A::time_type;
  using C = typename A::capacity_type;
  using Table = cluster::slot_table<A>;
  Table table(2, C{2});
  table.reserve({{0, 10}, C{2}, {0}});
  table.reserve({{0, 20}, C{1}, {1}});
  CHECK(table.earliest_fit({1, C{2}, T{4}}) == typename Table::placement_type{{10, 14}, C{2}, {0}});
  table.advance_to(12);
  table.validate();
  CHECK(table.earliest_fit({1, C{2}, T{4}}) == typename Table::placement_type{{12, 16}, C{2}, {0}});
  CHECK(table.earliest_fit({2, C{2}, T{4}}) ==
        typename Table::placement_type{{20, 24}, C{2}, {0, 1}});
  CHECK(table.earliest_fit({2, C{1}, T{4}}) ==
        typename Table::placement_type{{12, 16}, C{1}, {0, 1}});
}

TEST_CASE("slot_table index: advance_to on a bounded profile forgets the cached bounds") {
  using A = slotted_ring<std::int64_t, int>;
  using Table = cluster::slot_table<A>;
  Table table(2, 1, [](int total) { return A(total, 1, 10); });
  table.reserve({{0, 10}, 1, {0, 1}});
  // Nothing fits inside the horizon [0, 10): the bounds say "never" for both nodes.
  CHECK_FALSE(table.earliest_fit({1, 1, 4}));
  table.validate();
  // The horizon moves to [10, 20), which is free: a kept "never" would hide it.
  table.advance_to(10);
  table.validate();
  CHECK(table.earliest_fit({1, 1, 4}) == Table::placement_type{{10, 14}, 1, {0}});
  CHECK(table.earliest_fit({2, 1, 4}) == table.earliest_fit_by_scan({2, 1, 4}));
}

TEST_CASE("slot_table index: advance_to on a bounded profile forgets the run records") {
  using A = slotted_ring<std::int64_t, int>;
  using Table = cluster::slot_table<A>;
  Table table(2, 1, [](int total) { return A(total, 1, 10); });
  table.reserve({{0, 6}, 1, {0}});  // node 0 free over [6, 10): a run of 4
  table.reserve({{0, 3}, 1, {1}});  // node 1 free over [3, 10): a run of 7
  // The search reads both nodes' runs: no run of 8 inside the horizon [0, 10).
  CHECK(table.earliest_fit({1, 1, 4}) == Table::placement_type{{3, 7}, 1, {1}});
  CHECK_FALSE(table.earliest_fit({1, 1, 8}));
  // The horizon moves to [10, 20), all free: runs that said "no run of 8" are out of date.
  table.advance_to(10);
  table.validate();
  CHECK(table.earliest_fit({1, 1, 8}) == Table::placement_type{{10, 18}, 1, {0}});
  CHECK(table.earliest_fit({2, 1, 8}) == Table::placement_type{{10, 18}, 1, {0, 1}});
}

TEST_CASE("slot_table index: undo_reserve lowers the bounds as a release does") {
  using A = free_list<std::int64_t, int>;
  using Table = cluster::slot_table<A>;
  Table table(2, 1);
  table.reserve({{0, 10}, 1, {1}});
  CHECK(table.earliest_fit({2, 1, 4})->start() == 10);
  table.reserve({{0, 10}, 1, {0}});
  CHECK(table.earliest_fit({1, 1, 4})->start() == 10);
  const std::vector<std::size_t> nodes{0, 1};
  table.undo_reserve({0, 10}, 1, std::span<const std::size_t>(nodes.data(), 1));
  table.validate();
  CHECK(table.earliest_fit({1, 1, 4}) == Table::placement_type{{0, 4}, 1, {0}});
  table.undo_release({0, 10}, 1, std::span<const std::size_t>(nodes.data(), 1));
  table.validate();
  CHECK(table.earliest_fit({1, 1, 4}) == Table::placement_type{{10, 14}, 1, {0}});
}

TEST_CASE("slot_table index: the walk hands out nodes by bound, ties by node id") {
  // Five nodes (a tree of 8 leaves): bounds 3, 0, 0, 5, 0 and node 5.. unused ("never").
  using bounds_type = cluster::detail::node_bounds<std::int64_t, int>;
  bounds_type bounds(4, 8, 5);
  const std::int64_t values[] = {3, 0, 0, 5, 0};
  for (std::size_t i = 0; i < 5; ++i) bounds.set(i, values[i]);
  std::vector<std::size_t> order;
  std::vector<std::int64_t> seen;
  typename bounds_type::by_bound walk(bounds);
  std::size_t node = 0;
  std::int64_t bound = 0;
  while (walk.next(node, bound)) {
    order.push_back(node);
    seen.push_back(bound);
    // Raising node 2 to 4 when it is handed out puts it back between node 0 (3) and node 3 (5).
    if (node == 2 && bound == 0) {
      bounds.set(2, 4);
      walk.push_node(2);
    }
  }
  CHECK(order == std::vector<std::size_t>{1, 2, 4, 0, 2, 3});
  CHECK(seen == std::vector<std::int64_t>{0, 0, 0, 3, 4, 5});
}

TEST_CASE("slot_table index: a walk over equal bounds descends straight to node 0") {
  // 5,000 nodes all free at the origin: every bound is 0. The tree has 8,192 leaves (13
  // levels below the root), so the first node costs the root, 12 inner entries on the left
  // edge and the leaf: 14 entries. Ordering equal bounds by tree index instead opened every
  // all 5,005 inner entries above the 5,000 leaves first.
  using bounds_type = cluster::detail::node_bounds<std::int64_t, int>;
  bounds_type bounds(4, 8, 5'000);
  for (std::size_t i = 0; i < 5'000; ++i) bounds.set(i, 0);
  typename bounds_type::by_bound walk(bounds);
  std::size_t node = 99;
  std::int64_t bound = -1;
  REQUIRE(walk.next(node, bound));
  CHECK(node == 0);
  CHECK(bound == 0);
  CHECK(walk.entries_taken() == 14);
  // Node 1 is the leaf's sibling: one more entry. The rest come in id order.
  REQUIRE(walk.next(node, bound));
  CHECK(node == 1);
  CHECK(walk.entries_taken() == 15);
  for (std::size_t expected = 2; expected < 5'000; ++expected) {
    REQUIRE(walk.next(node, bound));
    CHECK(node == expected);
  }
  CHECK_FALSE(walk.next(node, bound));
}

TEST_CASE_TEMPLATE("slot_table index: randomised answers equal the scan's", A,
                   LEASEHOLD_EXACT_SCALAR_BACKENDS) {
  using T = typename A::time_type;
  using C = typename A::capacity_type;
  using Table = cluster::slot_table<A>;
  constexpr T never = std::numeric_limits<T>::max();
  for (std::uint64_t seed = 1; seed <= 6; ++seed) {
    std::mt19937_64 rng(seed);
    auto uniform = [&](std::int64_t lo, std::int64_t hi) {
      return std::uniform_int_distribution<std::int64_t>(lo, hi)(rng);
    };
    const auto w = static_cast<std::size_t>(uniform(1, 12));
    Table table(w, C{4});
    std::vector<typename Table::placement_type> booked;
    for (int step = 0; step < 150; ++step) {
      const T now = table.origin();
      typename Table::request_type r{
          static_cast<std::size_t>(uniform(1, static_cast<std::int64_t>(w))),
          static_cast<C>(uniform(1, 4)), static_cast<T>(uniform(1, 12))};
      if (uniform(0, 2) == 0) {
        const auto begin = static_cast<T>(now + uniform(0, 20));
        r.window = {begin, uniform(0, 1) == 0
                               ? never
                               : static_cast<T>(begin + r.duration + uniform(0, 30))};
      }
      std::vector<T> ready_at(w);
      for (T& t : ready_at) t = uniform(0, 5) == 0 ? never : static_cast<T>(now + uniform(0, 25));
      auto ready = [&](std::size_t node) { return ready_at[node]; };
      auto prefer = [&](std::size_t node, T start) {
        return static_cast<std::int64_t>((node * 7 + static_cast<std::size_t>(start)) % 5);
      };
      const auto plain = table.earliest_fit(r);
      CHECK(plain == table.earliest_fit_by_scan(r));
      CHECK(table.earliest_fit(r, prefer, ready) == table.earliest_fit_by_scan(r, prefer, ready));
      CHECK(table.earliest_fit(r, cluster::no_preference{}, ready) ==
            table.earliest_fit_by_scan(r, cluster::no_preference{}, ready));
      const auto action = uniform(0, 9);
      if (action < 6 && plain) {
        table.reserve(*plain);
        booked.push_back(*plain);
      } else if (action < 9 && !booked.empty()) {
        const auto k =
            static_cast<std::size_t>(uniform(0, static_cast<std::int64_t>(booked.size()) - 1));
        if (booked[k].span.begin >= table.origin()) table.release(booked[k]);
        booked.erase(booked.begin() + static_cast<std::ptrdiff_t>(k));
      } else {
        table.advance_to(static_cast<T>(now + uniform(0, 6)));
        std::erase_if(booked, [&](const auto& p) { return p.span.begin < table.origin(); });
      }
      table.validate();
    }
  }
}

namespace {
// Cold classes on a table of up to 10 nodes of 16: each step books (at the earliest fit of a
// random gang from a random time, which leaves holes of many lengths), releases or advances,
// forgets the cached classes now and then, and asks requests of many classes (5 amount levels
// x 8 duration levels, more than the table keeps) right after the change, each compared with
// earliest_fit_by_scan; validate() checks every cached bound and run record.
template <class Table>
void cold_classes_match_the_scan(Table& table, std::mt19937_64& rng, bool bounded) {
  using T = typename Table::time_type;
  using C = typename Table::capacity_type;
  auto uniform = [&](std::int64_t lo, std::int64_t hi) {
    return std::uniform_int_distribution<std::int64_t>(lo, hi)(rng);
  };
  const auto w = static_cast<std::int64_t>(table.node_count());
  // A bounded profile's horizon is 256 from the origin: requests stay well inside it.
  const std::int64_t reach = bounded ? 120 : 300;
  auto random_request = [&] {
    typename Table::request_type r{static_cast<std::size_t>(uniform(1, w)),
                                   static_cast<C>(uniform(1, 16)),
                                   static_cast<T>(uniform(1, bounded ? 100 : 200))};
    if (uniform(0, 2) == 0) {
      const auto begin = static_cast<T>(table.origin() + uniform(0, reach));
      r.window = {begin, static_cast<T>(begin + r.duration + uniform(0, 60))};
    }
    return r;
  };
  std::vector<typename Table::placement_type> booked;
  for (int step = 0; step < 120; ++step) {
    const auto action = uniform(0, 9);
    if (action < 6) {
      auto r = random_request();
      r.duration = static_cast<T>(uniform(1, 30));
      const auto begin = static_cast<T>(table.origin() + uniform(0, reach));
      r.window = {
          begin, bounded ? static_cast<T>(begin + r.duration + 20) : std::numeric_limits<T>::max()};
      if (const auto p = table.earliest_fit_by_scan(r)) {
        table.reserve(*p);
        booked.push_back(*p);
      }
    } else if (action < 9 && !booked.empty()) {
      const auto k =
          static_cast<std::size_t>(uniform(0, static_cast<std::int64_t>(booked.size()) - 1));
      if (booked[k].span.begin >= table.origin()) table.release(booked[k]);
      booked.erase(booked.begin() + static_cast<std::ptrdiff_t>(k));
    } else {
      table.advance_to(static_cast<T>(table.origin() + uniform(0, 20)));
      std::erase_if(booked, [&](const auto& p) { return p.span.begin < table.origin(); });
    }
    if (uniform(0, 3) == 0) table.forget_request_classes();
    for (int q = 0; q < 4; ++q) {
      const auto r = random_request();
      CHECK(table.earliest_fit(r) == table.earliest_fit_by_scan(r));
    }
    table.validate();
  }
}
}  // namespace

TEST_CASE_TEMPLATE("slot_table index: cold classes right after changes equal the scan's", A,
                   LEASEHOLD_EXACT_SCALAR_BACKENDS) {
  using C = typename A::capacity_type;
  for (std::uint64_t seed = 1; seed <= 3; ++seed) {
    std::mt19937_64 rng(seed);
    cluster::slot_table<A> table(
        static_cast<std::size_t>(std::uniform_int_distribution<int>(1, 10)(rng)), C{16});
    cold_classes_match_the_scan(table, rng, false);
  }
}

TEST_CASE("slot_table index: cold classes on a bounded profile equal the scan's") {
  using A = slotted_ring<std::int64_t, int>;
  for (std::uint64_t seed = 1; seed <= 3; ++seed) {
    std::mt19937_64 rng(seed);
    cluster::slot_table<A> table(
        static_cast<std::size_t>(std::uniform_int_distribution<int>(1, 10)(rng)), 16,
        [](int total) { return A(total, 1, 256); });
    cold_classes_match_the_scan(table, rng, true);
  }
}

TEST_CASE("slot_table index: a node with more runs than its records keep") {
  // Node 0 has free runs of length 1, 2, ..., 12 (each followed by one busy unit), node 1 is
  // busy until 200: the class of duration 8 finds node 0's run of 8, which the records left
  // out, so its bound is only a lower bound and the search asks the node.
  using A = free_tree<std::int64_t, int>;
  using Table = cluster::slot_table<A>;
  Table table(2, 1);
  std::int64_t t = 0;
  for (std::int64_t length = 1; length <= 12; ++length) {
    table.reserve({{t + length, t + length + 1}, 1, {0}});
    t += length + 1;
  }
  table.reserve({{0, 200}, 1, {1}});
  // Any query builds the records of level 0 (and asks the nodes it reaches).
  CHECK(table.earliest_fit({1, 1, 1}) == Table::placement_type{{0, 1}, 1, {0}});
  table.forget_request_classes();
  // Length 8 starts at 2 + 3 + ... + 8 = 35.
  CHECK(table.earliest_fit({1, 1, 8}) == Table::placement_type{{35, 43}, 1, {0}});
  CHECK(table.earliest_fit({1, 1, 9}) == Table::placement_type{{44, 53}, 1, {0}});
  CHECK(table.earliest_fit({2, 1, 13}) == Table::placement_type{{200, 213}, 1, {0, 1}});
  table.validate();
}

}  // namespace slot_table_index_test
