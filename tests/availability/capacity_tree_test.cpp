// capacity_tree specifics beyond the shared conformance suite: the shape of the hierarchy for a
// drawn profile (Schneider & Linnert Fig. 2, middle), Fig. 4's search, splitting and
// re-merging, canonicity (one profile, one tree), advance_to's merges, value semantics, and a
// randomised differential run with deeper hierarchies than the shared one draws.

#include <doctest/doctest.h>

#include <cstdint>
#include <limits>
#include <optional>
#include <random>
#include <utility>
#include <vector>

#include <leasehold/availability/capacity_tree.hpp>
#include <leasehold/availability/reference.hpp>

#include "availability/differential.hpp"

namespace capacity_tree_test {

using namespace leasehold;

namespace {

using tree = capacity_tree<std::int64_t, std::int64_t>;
using entry = tree::hierarchy_entry;
using entries = std::vector<entry>;
constexpr std::int64_t never_ends = forever<std::int64_t>;

// The profile drawn in docs/backends.md, total 10 (one character = 2 ticks):
//
//   free
//     10 |               #####          #####...
//      8 |#####          #####          #####...
//      7 |#####          #####     ##########...
//      6 |##########     #####     ##########...
//      3 |##########     ####################...
//        +----+----+----+----+----+----+----+---> time
//        0    10   20   30   40   50   60   70
//
// [0, 10) 8, [10, 20) 6, [20, 30) 0, [30, 40) 10, [40, 50) 3, [50, 60) 7, [60, forever) 10.
tree drawn_profile() {
  tree profile(10);
  profile.reserve({0, 10}, 2);
  profile.reserve({10, 20}, 4);
  profile.reserve({20, 30}, 10);
  profile.reserve({40, 50}, 7);
  profile.reserve({50, 60}, 3);
  return profile;
}

const entries drawn_hierarchy{
    {1, {0, 20}, 6, 6},            // at least 6 free over [0, 20)
    {2, {0, 10}, 8, 2},            //   2 more over [0, 10)
    {1, {30, never_ends}, 3, 3},   // at least 3 free from 30 on
    {2, {30, 40}, 10, 7},          //   7 more over [30, 40)
    {2, {50, never_ends}, 7, 4},   //   4 more from 50 on
    {3, {60, never_ends}, 10, 3},  //     3 more from 60 on
};

}  // namespace

TEST_CASE("capacity_tree: the hierarchy of a drawn profile") {
  const tree profile = drawn_profile();
  CHECK(profile.hierarchy() == drawn_hierarchy);
  CHECK(profile.block_count() == 6);  // one fewer than the time-exclusive list's 7 blocks
  CHECK(profile.free_blocks().size() == 7);
  CHECK(profile.free_at(5) == 8);
  CHECK(profile.free_at(25) == 0);
  CHECK(profile.free_at(45) == 3);
  CHECK(profile.free_at(never_ends) == 10);
  CHECK(profile.min_free({5, 15}) == 6);
  CHECK(profile.min_free({35, 55}) == 3);
  CHECK(profile.min_free({55, 1000}) == 7);
  CHECK(profile.min_free({19, 31}) == 0);
  profile.validate();
}

TEST_CASE("capacity_tree: Fig. 4 picks a long enough block, then descends for capacity") {
  const tree profile = drawn_profile();
  // [0, 20) is too short for 25: pruned with its sub list. [30, forever) is long enough but
  // has 3; of its children [30, 40) is too short, [50, forever) adds 4: 7 >= 5.
  CHECK(profile.earliest_fit({5, 25}) == 50);
  CHECK(profile.earliest_fit({7, 10}) == 0);             // [0, 20) then its child [0, 10): 6 + 2
  CHECK(profile.earliest_fit({7, 11}) == 50);            // [0, 10) is too short: backtrack
  CHECK(profile.earliest_fit({9, 10}) == 30);            // 3 + 7 in [30, 40)
  CHECK(profile.earliest_fit({9, 11}) == 60);            // 3 + 4 + 3
  CHECK(profile.earliest_fit({4, 15, {5, 100}}) == 5);   // the window clips [0, 20) to 15
  CHECK(profile.earliest_fit({4, 16, {5, 100}}) == 50);  // 30 would need [40, 46): 3
  CHECK(profile.earliest_fit({1, 11, {25, 100}}) == 30);
  CHECK(profile.earliest_fit({10, 5, {0, 64}}) == 30);
  CHECK(profile.earliest_fit({10, 5, {31, 64}}) == 31);  // [31, 40) is 9 long
  CHECK(profile.earliest_fit({10, 5, {36, 64}}) == std::nullopt);
  CHECK(profile.earliest_fit({10, 5, {36, 65}}) == 60);
}

TEST_CASE("capacity_tree: release re-merges the hierarchy, reserve splits it again") {
  tree profile = drawn_profile();
  profile.release({20, 30}, 10);  // [20, 30) is free again: the two top-level blocks join
  CHECK(profile.hierarchy() == entries{
                                   {1, {0, never_ends}, 3, 3},
                                   {2, {0, 40}, 6, 3},
                                   {3, {0, 10}, 8, 2},
                                   {3, {20, 40}, 10, 4},
                                   {2, {50, never_ends}, 7, 4},
                                   {3, {60, never_ends}, 10, 3},
                               });
  profile.validate();
  profile.reserve({20, 30}, 10);
  CHECK(profile.hierarchy() == drawn_hierarchy);
  profile.validate();
}

TEST_CASE("capacity_tree: a reservation below a block's capacity cuts the block") {
  tree profile(10);
  profile.reserve({0, 100}, 4);  // [0, 100) 6, then 10
  profile.reserve({10, 20}, 1);  // [10, 20) 5
  profile.reserve({70, 80}, 2);  // [70, 80) 4
  CHECK(profile.hierarchy() == entries{
                                   {1, {0, never_ends}, 4, 4},
                                   {2, {0, 70}, 5, 1},
                                   {3, {0, 10}, 6, 1},
                                   {3, {20, 70}, 6, 1},
                                   {2, {80, never_ends}, 6, 2},
                                   {3, {100, never_ends}, 10, 4},
                               });
  profile.reserve({40, 50}, 6);  // nothing left in [40, 50): the top-level block splits
  CHECK(profile.hierarchy() == entries{
                                   {1, {0, 40}, 5, 5},
                                   {2, {0, 10}, 6, 1},
                                   {2, {20, 40}, 6, 1},
                                   {1, {50, never_ends}, 4, 4},
                                   {2, {50, 70}, 6, 2},
                                   {2, {80, never_ends}, 6, 2},
                                   {3, {100, never_ends}, 10, 4},
                               });
  profile.validate();
  profile.release({40, 50}, 6);
  profile.release({70, 80}, 2);
  profile.release({10, 20}, 1);
  CHECK(profile.hierarchy() == entries{{1, {0, never_ends}, 6, 6}, {2, {100, never_ends}, 10, 4}});
  profile.release({0, 100}, 4);
  CHECK(profile.hierarchy() == entries{{1, {0, never_ends}, 10, 10}});
  CHECK(profile.block_count() == 1);
  profile.validate();
}

TEST_CASE("capacity_tree: one free profile, one tree, whatever the operations") {
  tree other(10);
  other.reserve({0, 20}, 2);
  other.reserve({10, 20}, 2);
  other.reserve({20, 30}, 10);
  other.reserve({40, 60}, 3);
  other.reserve({40, 50}, 4);
  other.reserve({70, 90}, 5);
  other.release({70, 90}, 5);
  CHECK(other.hierarchy() == drawn_hierarchy);

  // Random detours that return to the same profile end in the same tree.
  std::mt19937_64 rng(11);
  std::uniform_int_distribution<std::int64_t> when(0, 120), length(1, 40), units(1, 10);
  for (int round = 0; round < 300; ++round) {
    std::vector<std::pair<interval<std::int64_t>, std::int64_t>> detour;
    for (int i = 0; i < 6; ++i) {
      const std::int64_t begin = when(rng);
      const interval<std::int64_t> span{begin, begin + length(rng)};
      const std::int64_t c = units(rng);
      if (c > other.min_free(span)) continue;
      other.reserve(span, c);
      detour.emplace_back(span, c);
    }
    other.validate();
    while (!detour.empty()) {  // released in another order than booked
      const std::size_t i = static_cast<std::size_t>(rng() % detour.size());
      other.release(detour[i].first, detour[i].second);
      detour.erase(detour.begin() + static_cast<std::ptrdiff_t>(i));
    }
    REQUIRE(other.hierarchy() == drawn_hierarchy);
  }
  other.validate();
}

TEST_CASE("capacity_tree: advance_to drops blocks and merges the ones left without a floor") {
  tree profile = drawn_profile();
  profile.advance_to(5);
  CHECK(profile.hierarchy() == entries{{1, {5, 20}, 6, 6},
                                       {2, {5, 10}, 8, 2},
                                       {1, {30, never_ends}, 3, 3},
                                       {2, {30, 40}, 10, 7},
                                       {2, {50, never_ends}, 7, 4},
                                       {3, {60, never_ends}, 10, 3}});
  profile.advance_to(45);
  CHECK(profile.hierarchy() == entries{{1, {45, never_ends}, 3, 3},
                                       {2, {50, never_ends}, 7, 4},
                                       {3, {60, never_ends}, 10, 3}});
  profile.validate();
  SUBCASE("a block whose only floor is gone merges into its child") {
    profile.advance_to(55);
    CHECK(profile.hierarchy() ==
          entries{{1, {55, never_ends}, 7, 7}, {2, {60, never_ends}, 10, 3}});
    profile.validate();
  }
  SUBCASE("two merges in one step") {
    profile.advance_to(60);
    CHECK(profile.hierarchy() == entries{{1, {60, never_ends}, 10, 10}});
    CHECK(profile.block_count() == 1);
    profile.validate();
  }
  SUBCASE("advancing into nothing free keeps the root's floor") {
    tree full(4);
    full.reserve({0, 10}, 4);
    full.reserve({20, 30}, 1);
    full.advance_to(5);
    CHECK(full.hierarchy() ==
          entries{{1, {10, never_ends}, 3, 3}, {2, {10, 20}, 4, 1}, {2, {30, never_ends}, 4, 1}});
    CHECK(full.free_blocks().front() == free_block<std::int64_t, std::int64_t>{{5, 10}, 0});
    full.validate();
  }
}

TEST_CASE("capacity_tree: rejected calls leave the tree exactly as it was") {
  tree profile = drawn_profile();
  CHECK_THROWS_WITH_AS(profile.reserve({55, 65}, 8), "reserve 8 over [55, 65): only 7 free at 55",
                       insufficient_capacity);
  CHECK_THROWS_WITH_AS(profile.reserve({0, 40}, 1), "reserve 1 over [0, 40): only 0 free at 20",
                       insufficient_capacity);
  CHECK_THROWS_WITH_AS(profile.release({15, 45}, 5), "release 5 over [15, 45): only 4 booked at 15",
                       invalid_release);
  CHECK_THROWS_AS(profile.release({0, 5}, 3), invalid_release);
  CHECK_THROWS_AS(profile.reserve({30, 20}, 1), invalid_request);
  CHECK_THROWS_AS(profile.advance_to(-1), invalid_request);
  CHECK(profile.hierarchy() == drawn_hierarchy);
  profile.validate();
}

TEST_CASE("capacity_tree: copies are deep, moves keep the tree") {
  tree original = drawn_profile();
  tree copy = original;
  copy.release({20, 30}, 10);
  CHECK(original.hierarchy() == drawn_hierarchy);
  CHECK(copy.free_at(25) == 10);
  copy.validate();
  original.validate();
  tree moved = std::move(copy);
  CHECK(moved.free_at(25) == 10);
  moved.validate();
  tree assigned(1);
  assigned = original;
  CHECK(assigned.hierarchy() == drawn_hierarchy);
  assigned = std::move(moved);
  CHECK(assigned.free_at(25) == 10);
  assigned.validate();
}

TEST_CASE("capacity_tree: a deep staircase needs no recursion") {
  // Each step frees one more unit than the last: a chain of 20,000 nested blocks.
  constexpr std::int64_t steps = 20'000;
  tree profile(steps + 1);
  for (std::int64_t i = 0; i < steps; ++i) profile.reserve({i * 2, i * 2 + 2}, i + 1);
  CHECK(profile.block_count() == steps + 1);
  CHECK(profile.free_at(0) == steps);
  CHECK(profile.free_at(steps * 2 - 1) == 1);
  // Fig. 4 descends the whole chain, finds every block too short, and backtracks to the top.
  CHECK(profile.earliest_fit({steps, 3}) == steps * 2);
  CHECK(profile.earliest_fit({2, 3}) == 0);
  CHECK(profile.earliest_fit({2, steps * 2 - 1}) == steps * 2);
  tree copy = profile;
  profile.validate();
  profile.advance_to(steps);
  CHECK(profile.free_at(steps) == steps / 2);
  profile.validate();
  CHECK(copy.free_blocks().size() == static_cast<std::size_t>(steps + 1));
}

// The shared differential run keeps at most 64 bookings on a total of 64; this one builds
// deeper and wider hierarchies: many small amounts on a large total, and long bookings.
TEST_CASE("capacity_tree: randomised differential test with deep hierarchies") {
  using T = std::int64_t;
  using C = std::int64_t;
  const std::size_t ops = leasehold::testing::random_ops_per_seed(5'000);
  for (std::uint64_t seed = 501; seed <= 504; ++seed) {
    CAPTURE(seed);
    leasehold::testing::differential_config<T, C> config{
        .total = C{1000}, .time_span = 3000, .max_duration = 1000, .max_live = 120};
    config.draw_amount = [](std::mt19937_64& rng) {
      std::uniform_int_distribution<int> pick(0, 19), small(1, 12), any(1, 1000);
      return static_cast<C>(pick(rng) == 0 ? any(rng) : small(rng));
    };
    CHECK(leasehold::testing::run_differential(seed, ops, tree(config.total, T{-50}),
                                               reference<T, C>(config.total, T{-50}), config) == 0);
  }
}

TEST_CASE("capacity_tree: an unsigned capacity works like a signed one") {
  using T = std::int64_t;
  using C = unsigned;
  const std::size_t ops = leasehold::testing::random_ops_per_seed(4'000);
  for (std::uint64_t seed = 601; seed <= 602; ++seed) {
    CAPTURE(seed);
    leasehold::testing::differential_config<T, C> config{.total = C{40}};
    config.draw_amount = [](std::mt19937_64& rng) {
      return static_cast<C>(std::uniform_int_distribution<unsigned>(1, 40)(rng));
    };
    CHECK(leasehold::testing::run_differential(seed, ops, capacity_tree<T, C>(config.total),
                                               reference<T, C>(config.total), config) == 0);
  }
}

}  // namespace capacity_tree_test
