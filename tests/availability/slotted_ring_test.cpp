// slotted_ring specifics, hand-computed: outward rounding to slots (Schneider & Linnert §4,
// internal fragmentation), slot-aligned earliest_fit, the ring turning across its wrap-around,
// the horizon, and bad input with the strong guarantee. The randomised comparison with
// reference lives in conformance_test.cpp.

#include <doctest/doctest.h>

#include <cstdint>
#include <limits>
#include <optional>
#include <string>
#include <vector>

#include <leasehold/availability/slotted_ring.hpp>

#include "availability/rejection.hpp"

namespace slotted_ring_test {

using namespace leasehold;
using leasehold::testing::check_rejected;

namespace {

using ring = slotted_ring<std::int64_t, std::int64_t>;
using blocks = std::vector<free_block<std::int64_t, std::int64_t>>;

}  // namespace

TEST_CASE("slotted_ring: a new ring is one free block over its horizon") {
  const ring profile(64, 10, 10, -30);
  CHECK(profile.total() == 64);
  CHECK(profile.origin() == -30);
  CHECK(profile.slot_width() == 10);
  CHECK(profile.slot_count() == 10);
  CHECK(profile.horizon() == interval<std::int64_t>{-30, 70});
  CHECK(profile.free_blocks() == blocks{{{-30, 70}, 64}});
  CHECK(profile.block_count() == 10);  // the size of the array, whatever the load
  CHECK(profile.free_at(69) == 64);
  profile.validate();
}

TEST_CASE("slotted_ring: reservations are rounded outward to whole slots") {
  ring profile(10, 10, 10);      // horizon [0, 100)
  profile.reserve({15, 21}, 3);  // touches slots [10, 20) and [20, 30)
  CHECK(profile.free_blocks() == blocks{{{0, 10}, 10}, {{10, 30}, 7}, {{30, 100}, 10}});
  CHECK(profile.free_at(9) == 10);
  CHECK(profile.free_at(10) == 7);  // before the booking begins, but in its slot
  CHECK(profile.free_at(29) == 7);  // after it ends, but in its slot
  CHECK(profile.free_at(30) == 10);
  CHECK(profile.min_free({0, 10}) == 10);
  CHECK(profile.min_free({9, 11}) == 7);
  CHECK(profile.block_count() == 10);

  SUBCASE("release rounds the same way, so reserve then release is exact") {
    profile.release({15, 21}, 3);
    CHECK(profile.free_blocks() == blocks{{{0, 100}, 10}});
  }
  SUBCASE("a release of any span inside the same slots gives the same result") {
    profile.release({12, 28}, 3);
    CHECK(profile.free_blocks() == blocks{{{0, 100}, 10}});
  }
  SUBCASE("a partial release frees whole slots") {
    profile.release({11, 19}, 3);
    CHECK(profile.free_blocks() == blocks{{{0, 20}, 10}, {{20, 30}, 7}, {{30, 100}, 10}});
  }
  SUBCASE("aligned spans are not widened") {
    profile.reserve({30, 40}, 10);
    CHECK(profile.free_blocks() ==
          blocks{{{0, 10}, 10}, {{10, 30}, 7}, {{30, 40}, 0}, {{40, 100}, 10}});
  }
  profile.validate();
}

TEST_CASE("slotted_ring: rounding with negative times") {
  ring profile(5, 10, 8, -40);     // horizon [-40, 40)
  profile.reserve({-25, -11}, 1);  // floor(-25 / 10) * 10 = -30, ceil(-11 / 10) * 10 = -10
  profile.reserve({-1, 1}, 2);     // [-10, 10)
  CHECK(profile.free_blocks() ==
        blocks{{{-40, -30}, 5}, {{-30, -10}, 4}, {{-10, 10}, 3}, {{10, 40}, 5}});
  CHECK(profile.free_at(-30) == 4);
  CHECK(profile.free_at(-31) == 5);
  CHECK(profile.free_at(9) == 3);
  CHECK(profile.earliest_fit({5, 5, {-39, 40}}) == 10);    // the first fully free aligned slot
  CHECK(profile.earliest_fit({4, 15}) == -40);             // [-40, -20): 5 then 4 free
  CHECK(profile.earliest_fit({4, 15, {-39, 40}}) == -30);  // [-30, -10): 4 free
  profile.validate();
}

TEST_CASE("slotted_ring: earliest_fit answers slot-aligned starts") {
  ring profile(8, 10, 10);                               // horizon [0, 100)
  CHECK(profile.earliest_fit({8, 15, {3, 100}}) == 10);  // first aligned start at or after 3
  CHECK(profile.earliest_fit({8, 15, {0, 100}}) == 0);
  CHECK(profile.earliest_fit({8, 100}) == 0);             // the whole horizon
  CHECK(profile.earliest_fit({8, 101}) == std::nullopt);  // longer than the horizon
  CHECK(profile.earliest_fit({8, 91, {3, forever<std::int64_t>}}) == std::nullopt);
  CHECK(profile.earliest_fit({8, 90, {3, forever<std::int64_t>}}) == 10);
  CHECK(profile.earliest_fit({8, 5, {3, 12}}) == std::nullopt);  // 10 + 5 > 12
  CHECK(profile.earliest_fit({8, 5, {3, 15}}) == 10);

  profile.reserve({20, 30}, 5);               // [20, 30): 3 free
  profile.reserve({50, 51}, 8);               // [50, 60): nothing free
  CHECK(profile.earliest_fit({4, 11}) == 0);  // needs 2 slots: [0, 20)
  CHECK(profile.earliest_fit({4, 20}) == 0);
  CHECK(profile.earliest_fit({4, 21}) == 60);  // 3 slots; [0, 20) and [30, 50) hold only 2
  CHECK(profile.earliest_fit({4, 21, {0, 80}}) == std::nullopt);  // 60 + 21 > 80
  CHECK(profile.earliest_fit({4, 20, {1, 100}}) == 30);           // 10 would need [10, 30)
  CHECK(profile.earliest_fit({3, 50}) == 0);                      // [0, 50)
  CHECK(profile.earliest_fit({1, 50}) == 0);
  CHECK(profile.earliest_fit({1, 51}) == std::nullopt);  // [60, 100) holds only 4 slots
  CHECK(profile.earliest_fit({1, 40, {51, 100}}) == 60);
  CHECK(profile.earliest_fit({1, 35, {61, 100}}) == std::nullopt);  // 70 + 35 > 100
  // A window that begins past the horizon has no start: nullopt, not an exception.
  CHECK(profile.earliest_fit({1, 5, {100, 200}}) == std::nullopt);
  CHECK(profile.earliest_fit({1, 5, {-100, -50}}) == std::nullopt);
  profile.validate();
}

TEST_CASE("slotted_ring: latest_fit answers slot-aligned starts, walking back") {
  using T = std::int64_t;
  ring profile(8, 10, 10);                             // horizon [0, 100)
  CHECK(profile.latest_fit({8, 15, {3, 100}}) == 80);  // [80, 95) in slots 8 and 9
  CHECK(profile.latest_fit({8, 15, {0, 94}}) == 70);   // 80 + 15 > 94
  CHECK(profile.latest_fit({8, 100}) == 0);            // the whole horizon
  CHECK(profile.latest_fit({8, 101}) == std::nullopt);
  CHECK(profile.latest_fit({8, 5, {3, forever<T>}}) == 90);    // the horizon bounds it
  CHECK(profile.latest_fit({8, 5, {3, 12}}) == std::nullopt);  // no aligned start in [3, 7]
  CHECK(profile.latest_fit({8, 5, {3, 15}}) == 10);

  profile.reserve({20, 30}, 5);                                 // [20, 30): 3 free
  profile.reserve({50, 51}, 8);                                 // [50, 60): nothing free
  CHECK(profile.latest_fit({4, 11}) == 80);                     // 2 slots: [80, 100)
  CHECK(profile.latest_fit({4, 21}) == 70);                     // 3 slots: [70, 100)
  CHECK(profile.latest_fit({4, 21, {0, 80}}) == std::nullopt);  // [30, 50), [0, 20): 2 slots
  CHECK(profile.latest_fit({4, 20, {1, 60}}) == 30);            // [40, 60) meets [50, 60)
  CHECK(profile.latest_fit({4, 20, {1, 30}}) == std::nullopt);  // 10 would need [10, 30)
  CHECK(profile.latest_fit({3, 50}) == 0);                      // only [0, 50) is 5 slots
  CHECK(profile.latest_fit({1, 40}) == 60);
  CHECK(profile.latest_fit({1, 41}) == 0);
  CHECK(profile.latest_fit({1, 5, {100, 200}}) == std::nullopt);  // past the horizon
  CHECK(profile.latest_fit({1, 5, {-100, -50}}) == std::nullopt);
  // A malformed request is refused with the call named, and changes nothing.
  const blocks before = profile.free_blocks();
  CHECK_THROWS_WITH_AS((void)profile.latest_fit({1, 0}), doctest::Contains("latest_fit"),
                       invalid_request);
  CHECK_THROWS_AS((void)profile.latest_fit({9, 5}), invalid_request);  // more than the total
  CHECK(profile.free_blocks() == before);
  profile.validate();
}

TEST_CASE("slotted_ring: advance_to turns the ring across its wrap-around") {
  ring profile(4, 10, 5);  // horizon [0, 50), five slots
  profile.reserve({0, 10}, 1);
  profile.reserve({40, 50}, 2);
  const std::size_t memory = profile.memory_usage();

  profile.advance_to(25);  // to the start of the slot holding 25
  CHECK(profile.origin() == 20);
  CHECK(profile.horizon() == interval<std::int64_t>{20, 70});
  // [50, 70) are the recycled slots that held [0, 20): they come back fully free.
  CHECK(profile.free_blocks() == blocks{{{20, 40}, 4}, {{40, 50}, 2}, {{50, 70}, 4}});
  profile.reserve({60, 70}, 4);  // a recycled slot: the array cell that held [10, 20)
  CHECK(profile.free_blocks() ==
        blocks{{{20, 40}, 4}, {{40, 50}, 2}, {{50, 60}, 4}, {{60, 70}, 0}});

  profile.advance_to(49);  // past the end of the array: the ring wraps
  CHECK(profile.origin() == 40);
  CHECK(profile.free_blocks() ==
        blocks{{{40, 50}, 2}, {{50, 60}, 4}, {{60, 70}, 0}, {{70, 90}, 4}});
  CHECK(profile.free_at(85) == 4);
  CHECK(profile.earliest_fit({4, 20}) == 70);
  CHECK(profile.earliest_fit({4, 21}) == std::nullopt);
  profile.release({60, 61}, 4);
  CHECK(profile.free_blocks() == blocks{{{40, 50}, 2}, {{50, 90}, 4}});

  profile.advance_to(40);  // the origin again: nothing changes
  CHECK(profile.free_blocks() == blocks{{{40, 50}, 2}, {{50, 90}, 4}});

  profile.advance_to(1003);  // further than the whole horizon: everything recycled
  CHECK(profile.origin() == 1000);
  CHECK(profile.free_blocks() == blocks{{{1000, 1050}, 4}});
  CHECK(profile.block_count() == 5);
  CHECK(profile.memory_usage() == memory);  // no memory moved or grown
  profile.validate();
}

TEST_CASE("slotted_ring: time beyond the horizon is out_of_horizon") {
  ring profile(10, 10, 5);  // horizon [0, 50)
  profile.reserve({0, 20}, 4);
  check_rejected<out_of_horizon>(
      profile,
      [&] {
        profile.reserve({45, 51}, 1);
      },
      "[45, 51)");
  check_rejected<out_of_horizon>(
      profile,
      [&] {
        profile.reserve({45, forever<std::int64_t>}, 1);
      },
      "horizon [0, 50)");
  check_rejected<out_of_horizon>(
      profile,
      [&] {
        profile.release({0, 60}, 4);
      },
      "horizon [0, 50)");
  check_rejected<out_of_horizon>(
      profile,
      [&] {
        (void)profile.min_free({10, 51});
      },
      "[10, 51)");
  check_rejected<out_of_horizon>(
      profile, [&] { (void)profile.free_at(50); }, "free_at(50)");
  check_rejected<out_of_horizon>(
      profile, [&] { (void)profile.free_at(forever<std::int64_t>); }, "horizon");
  // Malformed input is invalid_request first, wherever it lies.
  check_rejected<invalid_request>(
      profile,
      [&] {
        profile.reserve({-1, 60}, 1);
      },
      "origin 0");
  check_rejected<invalid_request>(
      profile,
      [&] {
        profile.reserve({60, 70}, 0);
      },
      "amount 0");
  check_rejected<invalid_request>(
      profile,
      [&] {
        profile.reserve({70, 60}, 1);
      },
      "end before begin");
  check_rejected<invalid_request>(
      profile, [&] { (void)profile.free_at(-1); }, "free_at(-1)");
  CHECK(profile.min_free({0, 50}) == 6);
  CHECK(profile.free_at(49) == 10);
}

TEST_CASE("slotted_ring: bad reserve, release and advance_to change nothing") {
  ring profile(10, 10, 10, 100);  // horizon [100, 200)
  profile.reserve({100, 150}, 4);
  profile.reserve({125, 175}, 5);  // slots [120, 180)
  check_rejected<insufficient_capacity>(
      profile,
      [&] {
        profile.reserve({141, 160}, 2);
      },
      "only 1 free in slot [140, 150)");
  check_rejected<insufficient_capacity>(
      profile,
      [&] {
        profile.reserve({141, 160}, 2);
      },
      "slots [140, 160)");
  check_rejected<invalid_release>(
      profile,
      [&] {
        profile.release({140, 160}, 6);
      },
      "only 5 booked in slot [150, 160)");
  check_rejected<invalid_release>(
      profile,
      [&] {
        profile.release({175, 185}, 1);
      },
      "only 0 booked in slot [180, 190)");
  check_rejected<invalid_request>(
      profile,
      [&] {
        profile.reserve({150, 160}, 11);
      },
      "total capacity 10");
  check_rejected<invalid_request>(
      profile, [&] { profile.advance_to(99); }, "advance_to(99)");
  check_rejected<invalid_request>(
      profile, [&] { profile.advance_to(forever<std::int64_t>); }, "forever");
  check_rejected<invalid_request>(
      profile,
      [&] {
        (void)profile.earliest_fit({1, 0});
      },
      "duration 0");
  check_rejected<invalid_request>(
      profile,
      [&] {
        (void)profile.earliest_fit({1, 10, {150, 155}});
      },
      "shorter");
}

TEST_CASE("slotted_ring: malformed construction is rejected") {
  using small_ring = slotted_ring<int, int>;
  CHECK_THROWS_WITH_AS(small_ring(0, 10, 5), doctest::Contains("total capacity 0"),
                       invalid_request);
  CHECK_THROWS_WITH_AS(small_ring(8, 0, 5), doctest::Contains("slot width 0"), invalid_request);
  CHECK_THROWS_WITH_AS(small_ring(8, -10, 5), doctest::Contains("slot width -10"), invalid_request);
  CHECK_THROWS_WITH_AS(small_ring(8, 10, 0), doctest::Contains("at least one slot"),
                       invalid_request);
  CHECK_THROWS_WITH_AS(small_ring(8, 10, 5, 15), doctest::Contains("origin 15"), invalid_request);
  CHECK_THROWS_WITH_AS(small_ring(8, 10, 5, -15), doctest::Contains("origin -15"), invalid_request);
  constexpr int max = std::numeric_limits<int>::max();  // 2147483647
  CHECK_THROWS_WITH_AS(small_ring(8, 1000, 1000, 2147000000), doctest::Contains("overflows"),
                       invalid_request);
  CHECK_THROWS_AS(small_ring(8, 1, 1, max), invalid_request);
  CHECK_THROWS_AS(small_ring(8, 1, std::size_t{1} << 40), invalid_request);
  // The horizon may end exactly at the largest time.
  const small_ring at_the_end(8, 1, 7, max - 7);
  CHECK(at_the_end.horizon() == interval<int>{max - 7, max});
  CHECK(at_the_end.earliest_fit({8, 7}) == max - 7);
  CHECK(at_the_end.earliest_fit({8, 7, {0, max}}) == max - 7);
}

TEST_CASE("slotted_ring: advance_to whose new horizon would overflow is rejected") {
  slotted_ring<int, int> profile(8, 1000, 1000);  // horizon [0, 1000000)
  profile.reserve({0, 1000}, 3);
  check_rejected<invalid_request>(
      profile, [&] { profile.advance_to(2147000000); }, "overflows");
  profile.advance_to(2146000000);  // the largest slot-aligned origin that still fits
  CHECK(profile.horizon() == interval<int>{2146000000, 2147000000});
  profile.validate();
}

// The fuzzer's finding of 2026-11-23 (tests/fuzz/corpus/slotted_ring/unaligned-span-at-time-max):
// at the very end of the time type the ring still books whole slots, and reserve then release
// of the same unaligned span restores it.
TEST_CASE("slotted_ring: an unaligned span ending at the largest time books its whole slot") {
  constexpr std::int64_t max = std::numeric_limits<std::int64_t>::max();  // 2^63 - 1 = 7 * k
  slotted_ring<std::int64_t, std::int64_t> profile(4, 7, 1, -28);
  profile.advance_to(max - 1);
  REQUIRE(profile.horizon() == interval<std::int64_t>{max - 7, max});
  profile.reserve({max - 1, max}, 4);
  CHECK(profile.free_blocks() ==
        std::vector<free_block<std::int64_t, std::int64_t>>{{{max - 7, max}, 0}});
  CHECK(profile.free_at(max - 7) == 0);
  profile.release({max - 1, max}, 4);
  CHECK(profile.free_blocks() ==
        std::vector<free_block<std::int64_t, std::int64_t>>{{{max - 7, max}, 4}});
  profile.validate();
}

TEST_CASE("slotted_ring: vector capacities fit component by component per slot") {
  using C = resources<2, std::int64_t>;
  slotted_ring<std::int64_t, C> profile(C{4, 1024}, 60, 24);  // a day of hours, in minutes
  profile.reserve({30, 90}, C{2, 1000});                      // slots [0, 120)
  CHECK(profile.free_at(100) == C{2, 24});
  CHECK(profile.min_free({0, 1440}) == C{2, 24});
  CHECK(profile.earliest_fit({C{1, 100}, 60}) == 120);
  CHECK(profile.earliest_fit({C{2, 24}, 60}) == 0);
  CHECK_THROWS_AS(profile.reserve({0, 60}, C{0, 25}), insufficient_capacity);
  CHECK_THROWS_AS(profile.reserve({0, 60}, C{1, -1}), invalid_request);
  profile.release({61, 62}, C{2, 1000});
  CHECK(profile.free_blocks() ==
        std::vector<free_block<std::int64_t, C>>{{{0, 60}, C{2, 24}}, {{60, 1440}, C{4, 1024}}});
  profile.validate();
}

TEST_CASE("slotted_ring: copies are independent") {
  ring original(10, 5, 4);
  original.reserve({0, 5}, 3);
  ring copy = original;
  copy.advance_to(7);
  copy.reserve({15, 20}, 1);
  CHECK(original.free_blocks() == blocks{{{0, 5}, 7}, {{5, 20}, 10}});
  CHECK(copy.free_blocks() == blocks{{{5, 15}, 10}, {{15, 20}, 9}, {{20, 25}, 10}});
}

}  // namespace slotted_ring_test
