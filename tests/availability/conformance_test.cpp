// The conformance suite: DESIGN.md's semantics of the availability concept, checked the same
// way for every backend. Hand-written cases first, then the randomised differential test
// against reference<T, C>.

#include <doctest/doctest.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <optional>
#include <random>
#include <vector>

#include "availability/backends.hpp"
#include "availability/differential.hpp"

namespace conformance_test {

using namespace leasehold;
using leasehold::testing::blocks_of;

namespace {

template <class B>
using blocks_t = std::vector<typename B::block_type>;

template <class B>
typename B::capacity_type amount(std::int64_t n) {
  return static_cast<typename B::capacity_type>(n);
}

}  // namespace

TEST_CASE_TEMPLATE("availability: an empty profile is one block of the total", B,
                   LEASEHOLD_EXACT_SCALAR_BACKENDS) {
  using T = typename B::time_type;
  const B profile(amount<B>(128), T{100});
  CHECK(profile.total() == 128);
  CHECK(profile.origin() == 100);
  CHECK(blocks_of(profile) == blocks_t<B>{{{100, forever<T>}, amount<B>(128)}});
  CHECK(profile.free_at(100) == 128);
  CHECK(profile.free_at(forever<T> - 1) == 128);
  CHECK(profile.min_free({100, 1'000'000}) == 128);
  CHECK(profile.earliest_fit({amount<B>(128), T{50}}) == T{100});
  CHECK(profile.earliest_fit({amount<B>(1), T{50}, {T{0}, T{200}}}) == T{100});
  CHECK(profile.earliest_fit({amount<B>(1), T{50}, {T{500}, T{550}}}) == T{500});
}

TEST_CASE_TEMPLATE("availability: latest_fit is the latest feasible start", B,
                   LEASEHOLD_EXACT_SCALAR_BACKENDS) {
  using T = typename B::time_type;
  using C = typename B::capacity_type;
  // 10 units; 4 booked over [10, 20) and 8 over [30, 40): free is 10 on [0, 10), 6 on
  // [10, 20), 10 on [20, 30), 2 on [30, 40), 10 from 40 on.
  B profile(amount<B>(10));
  profile.reserve({10, 20}, amount<B>(4));
  profile.reserve({30, 40}, amount<B>(8));
  const auto latest = [&](std::int64_t c, std::int64_t d, std::int64_t begin, std::int64_t end) {
    return leasehold::latest_fit(profile, request<T, C>{amount<B>(c), T(d), {T(begin), T(end)}});
  };
  CHECK(latest(6, 10, 0, 40) == T{20});         // [30, 40) blocks: the run [0, 30) ends at 30
  CHECK(latest(7, 10, 0, 40) == T{20});         // runs [0, 10) and [20, 30): the later one
  CHECK(latest(7, 11, 0, 40) == std::nullopt);  // no run of 7 is 11 long before 40
  CHECK(latest(7, 10, 0, 25) == T{0});          // [20, 25) is too short; back to [0, 10)
  CHECK(latest(1, 5, 0, 100) == T{95});         // free at the window's end
  CHECK(latest(10, 5, 5, 12) == T{5});          // the window's begin bounds it: s in [5, 7]
  CHECK(latest(3, 5, 0, 40) == T{25});          // 2 free on [30, 40) is too little for 3 ...
  CHECK(latest(2, 5, 0, 40) == T{35});          // ... and enough for 2
  // Before the origin the window is clamped, as for earliest_fit.
  profile.advance_to(T{22});
  CHECK(latest(7, 8, 0, 30) == T{22});
  CHECK(latest(7, 9, 0, 30) == std::nullopt);
  // Malformed requests are refused with the call named, and change nothing.
  const auto before = blocks_of(profile);
  CHECK_THROWS_WITH_AS(latest(1, 0, 0, 100), doctest::Contains("latest_fit"), invalid_request);
  CHECK_THROWS_AS(latest(1, 50, 100, 120), invalid_request);  // window shorter than duration
  CHECK_THROWS_AS(latest(11, 5, 0, 100), invalid_request);    // more than the total
  CHECK(blocks_of(profile) == before);
}

TEST_CASE_TEMPLATE("availability: reserve lowers free capacity exactly over the span", B,
                   LEASEHOLD_EXACT_SCALAR_BACKENDS) {
  using T = typename B::time_type;
  B profile(amount<B>(10));
  profile.reserve({10, 20}, amount<B>(4));
  CHECK(blocks_of(profile) == blocks_t<B>{{{0, 10}, amount<B>(10)},
                                          {{10, 20}, amount<B>(6)},
                                          {{20, forever<T>}, amount<B>(10)}});
  CHECK(profile.free_at(9) == 10);
  CHECK(profile.free_at(10) == 6);
  CHECK(profile.free_at(19) == 6);
  CHECK(profile.free_at(20) == 10);
  CHECK(profile.min_free({0, 10}) == 10);
  CHECK(profile.min_free({0, 11}) == 6);
  CHECK(profile.min_free({19, 30}) == 6);
  CHECK(profile.min_free({20, 30}) == 10);

  SUBCASE("release is the exact inverse and merges the blocks back") {
    profile.release({10, 20}, amount<B>(4));
    CHECK(blocks_of(profile) == blocks_t<B>{{{0, forever<T>}, amount<B>(10)}});
  }
  SUBCASE("a partial release splits the booked block") {
    profile.release({12, 15}, amount<B>(4));
    CHECK(blocks_of(profile) == blocks_t<B>{{{0, 10}, amount<B>(10)},
                                            {{10, 12}, amount<B>(6)},
                                            {{12, 15}, amount<B>(10)},
                                            {{15, 20}, amount<B>(6)},
                                            {{20, forever<T>}, amount<B>(10)}});
  }
  SUBCASE("an overlapping reserve merges equal neighbours") {
    profile.reserve({0, 10}, amount<B>(4));
    CHECK(blocks_of(profile) ==
          blocks_t<B>{{{0, 20}, amount<B>(6)}, {{20, forever<T>}, amount<B>(10)}});
  }
  SUBCASE("a booking to forever") {
    profile.reserve({30, forever<T>}, amount<B>(10));
    CHECK(blocks_of(profile) == blocks_t<B>{{{0, 10}, amount<B>(10)},
                                            {{10, 20}, amount<B>(6)},
                                            {{20, 30}, amount<B>(10)},
                                            {{30, forever<T>}, amount<B>(0)}});
    CHECK(profile.earliest_fit({amount<B>(6), T{30}}) == T{0});
    CHECK(profile.earliest_fit({amount<B>(1), T{31}}) == std::nullopt);
    CHECK(profile.earliest_fit({amount<B>(7), T{10}}) == T{0});
    CHECK(profile.earliest_fit({amount<B>(7), T{11}}) == std::nullopt);
  }
}

// Schneider & Linnert §5: "two adjacent blocks which have more capacity left than
// requested, but can only serve the job together in the time dimension".
TEST_CASE_TEMPLATE("availability: two adjacent blocks that only together fit", B,
                   LEASEHOLD_EXACT_SCALAR_BACKENDS) {
  using T = typename B::time_type;
  B profile(amount<B>(10));
  profile.reserve({0, 10}, amount<B>(2));    // [0, 10) 8 free
  profile.reserve({10, 20}, amount<B>(4));   // [10, 20) 6 free
  profile.reserve({20, 30}, amount<B>(10));  // [20, 30) full
  REQUIRE(blocks_of(profile).size() == 4);
  CHECK(profile.earliest_fit({amount<B>(5), T{15}}) == T{0});   // needs both blocks
  CHECK(profile.earliest_fit({amount<B>(5), T{20}}) == T{0});   // exactly both blocks
  CHECK(profile.earliest_fit({amount<B>(5), T{21}}) == T{30});  // the full block cuts it
  CHECK(profile.earliest_fit({amount<B>(7), T{15}}) == T{30});  // [10, 20) is a blocker
  CHECK(profile.earliest_fit({amount<B>(7), T{10}}) == T{0});   // [0, 10) alone suffices
  CHECK(profile.earliest_fit({amount<B>(5), T{15}, {T{5}, T{45}}}) == T{5});
  CHECK(profile.earliest_fit({amount<B>(5), T{16}, {T{5}, T{45}}}) == std::nullopt);
  CHECK(profile.earliest_fit({amount<B>(5), T{16}, {T{5}, T{46}}}) == T{30});
}

TEST_CASE_TEMPLATE("availability: windows", B, LEASEHOLD_EXACT_SCALAR_BACKENDS) {
  using T = typename B::time_type;
  B profile(amount<B>(8), T{50});
  profile.reserve({60, 70}, amount<B>(8));
  SUBCASE("a window before the origin is clamped to it") {
    CHECK(profile.earliest_fit({amount<B>(1), T{10}, {T{0}, T{100}}}) == T{50});
    CHECK(profile.earliest_fit({amount<B>(1), T{11}, {T{0}, T{100}}}) == T{70});
  }
  SUBCASE("a window that closes before a fit is nullopt") {
    CHECK(profile.earliest_fit({amount<B>(1), T{11}, {T{55}, T{80}}}) == std::nullopt);
    CHECK(profile.earliest_fit({amount<B>(1), T{11}, {T{55}, T{81}}}) == T{70});
  }
  SUBCASE("a window that ends at or before the origin is nullopt, not an error") {
    CHECK(profile.earliest_fit({amount<B>(1), T{10}, {T{0}, T{50}}}) == std::nullopt);
    CHECK(profile.earliest_fit({amount<B>(1), T{10}, {T{0}, T{20}}}) == std::nullopt);
  }
  SUBCASE("a window shorter than the duration is an invalid request") {
    CHECK_THROWS_AS((void)profile.earliest_fit({amount<B>(1), T{10}, {T{100}, T{105}}}),
                    invalid_request);
    CHECK_THROWS_AS((void)profile.earliest_fit({amount<B>(1), T{10}, {T{100}, T{90}}}),
                    invalid_request);
  }
  SUBCASE("a window ending exactly at forever") {
    CHECK(profile.earliest_fit({amount<B>(8), forever<T> - T{70}}) == T{70});
    CHECK(profile.earliest_fit({amount<B>(8), forever<T> - T{69}}) == std::nullopt);
  }
}

TEST_CASE_TEMPLATE("availability: a request equal to the total", B,
                   LEASEHOLD_EXACT_SCALAR_BACKENDS) {
  using T = typename B::time_type;
  B profile(amount<B>(16));
  CHECK(profile.earliest_fit({amount<B>(16), T{5}}) == T{0});
  profile.reserve({3, 4}, amount<B>(1));
  CHECK(profile.earliest_fit({amount<B>(16), T{5}}) == T{4});
  CHECK(profile.earliest_fit({amount<B>(16), T{3}}) == T{0});
  CHECK(profile.earliest_fit({amount<B>(15), T{50}}) == T{0});
}

TEST_CASE_TEMPLATE("availability: back-to-back bookings merge into one full block", B,
                   LEASEHOLD_EXACT_SCALAR_BACKENDS) {
  using T = typename B::time_type;
  B profile(amount<B>(4));
  profile.reserve({0, 10}, amount<B>(4));
  profile.reserve({10, 20}, amount<B>(4));
  CHECK(blocks_of(profile) ==
        blocks_t<B>{{{0, 20}, amount<B>(0)}, {{20, forever<T>}, amount<B>(4)}});
  CHECK(profile.earliest_fit({amount<B>(1), T{1}}) == T{20});
  profile.reserve({20, 30}, amount<B>(2));
  profile.reserve({20, 30}, amount<B>(2));
  CHECK(profile.earliest_fit({amount<B>(1), T{1}}) == T{30});
  profile.release({10, 20}, amount<B>(4));
  CHECK(profile.earliest_fit({amount<B>(4), T{10}}) == T{10});
  CHECK(profile.earliest_fit({amount<B>(4), T{11}}) == T{30});
}

TEST_CASE_TEMPLATE("availability: reserve then release restores identical free_blocks", B,
                   LEASEHOLD_EXACT_SCALAR_BACKENDS) {
  using T = typename B::time_type;
  B profile(amount<B>(32));
  std::mt19937_64 rng(7);
  std::uniform_int_distribution<int> when(0, 500), length(1, 80), units(1, 32);
  for (int i = 0; i < 40; ++i) {
    const T begin = static_cast<T>(when(rng));
    const interval<T> span{begin, static_cast<T>(begin + length(rng))};
    const auto c = amount<B>(units(rng));
    if (fits(c, profile.min_free(span))) profile.reserve(span, c);
  }
  const auto before = blocks_of(profile);
  for (int i = 0; i < 200; ++i) {
    const T begin = static_cast<T>(when(rng));
    const interval<T> span{begin, static_cast<T>(begin + length(rng))};
    const auto c = amount<B>(units(rng));
    if (!fits(c, profile.min_free(span))) continue;
    profile.reserve(span, c);
    profile.release(span, c);
    REQUIRE(blocks_of(profile) == before);
  }
}

// The optional members every exact backend has, or is given by walk.hpp and set_total.hpp
// (walk_test.cpp and set_total_test.cpp test them in depth): walking from the origin is
// free_blocks(), and a total raised and lowered again leaves the profile as it was.
TEST_CASE_TEMPLATE("availability: walking and set_total agree with free_blocks", B,
                   LEASEHOLD_EXACT_SCALAR_BACKENDS) {
  using T = typename B::time_type;
  B profile(amount<B>(32));
  std::mt19937_64 rng(11);
  std::uniform_int_distribution<int> when(0, 500), length(1, 80), units(1, 32);
  for (int i = 0; i < 60; ++i) {
    const T begin = static_cast<T>(when(rng));
    const interval<T> span{begin, static_cast<T>(begin + length(rng))};
    const auto c = amount<B>(units(rng));
    if (fits(c, profile.min_free(span))) profile.reserve(span, c);
  }
  const auto before = blocks_of(profile);
  blocks_t<B> walked;
  for (const auto& block : leasehold::blocks_from(profile, profile.origin()))
    walked.push_back(block);
  CHECK(walked == before);
  for (const auto& block : before)
    CHECK(leasehold::next_change(profile, block.span.begin) ==
          (block.span.end == forever<T> ? std::nullopt : std::optional<T>(block.span.end)));
  leasehold::set_total(profile, amount<B>(40));
  CHECK(profile.free_at(before.front().span.begin) == before.front().free + 8);
  leasehold::set_total(profile, amount<B>(32));
  profile.validate();
  CHECK(blocks_of(profile) == before);
}

TEST_CASE_TEMPLATE("availability: advance_to forgets the past and cuts bookings at t", B,
                   LEASEHOLD_EXACT_SCALAR_BACKENDS) {
  using T = typename B::time_type;
  B profile(amount<B>(10));
  profile.reserve({0, 10}, amount<B>(3));
  profile.reserve({10, 30}, amount<B>(5));
  profile.advance_to(15);
  CHECK(profile.origin() == 15);
  CHECK(blocks_of(profile) ==
        blocks_t<B>{{{15, 30}, amount<B>(5)}, {{30, forever<T>}, amount<B>(10)}});
  CHECK(profile.earliest_fit({amount<B>(6), T{5}, {T{0}, forever<T>}}) == T{30});
  CHECK_THROWS_AS(profile.release({10, 30}, amount<B>(5)), invalid_request);
  profile.release({15, 30}, amount<B>(5));  // the part that is still held
  CHECK(blocks_of(profile) == blocks_t<B>{{{15, forever<T>}, amount<B>(10)}});
  profile.advance_to(15);  // advancing to the origin changes nothing
  CHECK(profile.origin() == 15);
  profile.advance_to(1000);  // past everything booked
  CHECK(blocks_of(profile) == blocks_t<B>{{{1000, forever<T>}, amount<B>(10)}});
}

TEST_CASE_TEMPLATE("availability: vector capacities fit component by component", B,
                   LEASEHOLD_EXACT_VECTOR_BACKENDS) {
  using T = typename B::time_type;
  using C = leasehold::testing::vector4;
  B profile(C{8, 8192, 100, 10});
  profile.reserve({0, 100}, C{4, 7000, 0, 0});
  profile.reserve({50, 150}, C{0, 0, 0, 10});
  CHECK(profile.free_at(60) == C{4, 1192, 100, 0});
  CHECK(profile.min_free({0, 200}) == C{4, 1192, 100, 0});
  CHECK(profile.earliest_fit({C{4, 1000, 0, 0}, T{10}}) == T{0});
  CHECK(profile.earliest_fit({C{4, 2000, 0, 0}, T{10}}) == T{100});
  CHECK(profile.earliest_fit({C{1, 0, 0, 1}, T{10}}) == T{0});
  CHECK(profile.earliest_fit({C{1, 0, 0, 1}, T{60}}) == T{150});
  CHECK_THROWS_AS(profile.reserve({40, 60}, C{0, 1, 0, 1}), insufficient_capacity);
  CHECK_THROWS_AS(profile.reserve({0, 10}, C{0, 0, 0, 0}), invalid_request);
  CHECK_THROWS_AS(profile.reserve({0, 10}, C{1, -1, 0, 0}), invalid_request);
  CHECK_THROWS_AS(profile.reserve({0, 10}, C{9, 0, 0, 0}), invalid_request);
  CHECK_THROWS_AS(profile.release({0, 10}, C{0, 0, 0, 1}), invalid_release);
}

TEST_CASE_TEMPLATE("availability: randomised differential test against reference (scalar)", B,
                   LEASEHOLD_EXACT_SCALAR_BACKENDS) {
  using T = typename B::time_type;
  using C = typename B::capacity_type;
  leasehold::testing::differential_config<T, C> config{.total = C{64}};
  config.draw_amount = [](std::mt19937_64& rng) {
    // Small amounts most of the time, the whole total now and then.
    std::uniform_int_distribution<int> pick(0, 9), small(1, 16), any(1, 64);
    const int p = pick(rng);
    return static_cast<C>(p == 0 ? 64 : p < 6 ? small(rng) : any(rng));
  };
  const std::size_t ops = leasehold::testing::random_ops_per_seed(12'500);
  for (std::uint64_t seed = 1; seed <= 8; ++seed) {
    CAPTURE(seed);
    CHECK(leasehold::testing::run_differential(seed, ops, B(config.total, T{0}),
                                               reference<T, C>(config.total, T{0}), config) == 0);
  }
}

TEST_CASE_TEMPLATE("availability: randomised differential test against reference (vector)", B,
                   LEASEHOLD_EXACT_VECTOR_BACKENDS) {
  using T = typename B::time_type;
  using C = leasehold::testing::vector4;
  leasehold::testing::differential_config<T, C> config{.total = C{8, 64, 4, 16}};
  config.draw_amount = [](std::mt19937_64& rng) {
    std::uniform_int_distribution<std::int64_t> cpu(0, 8), memory(0, 64), disk(0, 4), net(0, 16);
    C c{cpu(rng) / 2, memory(rng) / 4, disk(rng) / 2, net(rng) / 4};
    if (c == C{}) c[0] = 1;
    return c;
  };
  const std::size_t ops = leasehold::testing::random_ops_per_seed(6'250);
  for (std::uint64_t seed = 101; seed <= 104; ++seed) {
    CAPTURE(seed);
    CHECK(leasehold::testing::run_differential(seed, ops, B(config.total, T{0}),
                                               reference<T, C>(config.total, T{0}), config) == 0);
  }
}

// slotted_ring rounds to slots, so it is compared with reference fed the same rounded inputs
// (DESIGN.md, semantics 5): spans rounded outward to whole slots, requests turned into the
// slot-aligned request the ring answers, the window clamped to the ring's horizon. With dt = 1
// nothing is rounded and only the horizon differs, so the ring must agree exactly.
namespace {

template <class C>
C draw_scalar(std::mt19937_64& rng) {
  std::uniform_int_distribution<int> pick(0, 9), small(1, 16), any(1, 64);
  const int p = pick(rng);
  return static_cast<C>(p == 0 ? 64 : p < 6 ? small(rng) : any(rng));
}

leasehold::testing::vector4 draw_vector(std::mt19937_64& rng) {
  std::uniform_int_distribution<std::int64_t> cpu(0, 8), memory(0, 64), disk(0, 4), net(0, 16);
  leasehold::testing::vector4 c{cpu(rng) / 2, memory(rng) / 4, disk(rng) / 2, net(rng) / 4};
  if (c == leasehold::testing::vector4{}) c[0] = 1;
  return c;
}

template <class T, class C>
std::size_t run_slotted(std::uint64_t seed, std::size_t ops, C total, T dt, T origin,
                        C (*draw)(std::mt19937_64&)) {
  leasehold::testing::differential_config<T, C> config{.total = total};
  config.draw_amount = draw;
  if (dt == 1) {  // a shorter horizon keeps the per-slot scans of a dt = 1 ring quick
    config.time_span = 600;
    config.max_duration = 100;
  }
  const std::size_t slots =
      static_cast<std::size_t>((config.time_span + config.max_duration + dt) / dt + 3);
  leasehold::testing::round_to_slots(config, dt, slots);
  return leasehold::testing::run_differential(seed, ops,
                                              slotted_ring<T, C>(total, dt, slots, origin),
                                              reference<T, C>(total, origin), config);
}

}  // namespace

TEST_CASE_TEMPLATE("slotted_ring: randomised differential test, dt = 1 agrees exactly", T,
                   std::int64_t, int) {
  const std::size_t ops = leasehold::testing::random_ops_per_seed(12'500);
  for (std::uint64_t seed = 201; seed <= 208; ++seed) {
    CAPTURE(seed);
    CHECK(run_slotted<T, T>(seed, ops, T{64}, T{1}, T{-300}, &draw_scalar<T>) == 0);
  }
}

TEST_CASE_TEMPLATE("slotted_ring: randomised differential test, dt > 1 against rounded input", T,
                   std::int64_t, int) {
  const std::size_t ops = leasehold::testing::random_ops_per_seed(12'500);
  for (std::uint64_t seed = 301; seed <= 308; ++seed) {
    CAPTURE(seed);
    const T dt = static_cast<T>(seed % 2 == 0 ? 7 : 30);
    CHECK(run_slotted<T, T>(seed, ops, T{64}, dt, static_cast<T>(-10 * dt), &draw_scalar<T>) == 0);
  }
}

TEST_CASE("slotted_ring: randomised differential test with vector capacities") {
  using C = leasehold::testing::vector4;
  const std::size_t ops = leasehold::testing::random_ops_per_seed(6'250);
  for (std::uint64_t seed = 401; seed <= 408; ++seed) {
    CAPTURE(seed);
    const std::int64_t dt = seed % 2 == 0 ? 1 : 9;
    CHECK(run_slotted<std::int64_t, C>(seed, ops, C{8, 64, 4, 16}, dt, 18, &draw_vector) == 0);
  }
}

}  // namespace conformance_test
