// Changing a profile's total capacity (availability/set_total.hpp, resizable_availability) on
// every backend: growing and shrinking keep what is booked at every time, a shrink below the
// bookings is refused naming the earliest time and changes nothing, bad totals are
// invalid_request, and random sequences with set_total agree with reference.

#include <doctest/doctest.h>

#include <cstddef>
#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "availability/backends.hpp"
#include "availability/outcome.hpp"

namespace set_total_test {

using namespace leasehold;
using leasehold::testing::blocks_of;

namespace {

template <class B>
using blocks_t = std::vector<typename B::block_type>;

template <class B>
typename B::capacity_type amount(std::int64_t n) {
  return static_cast<typename B::capacity_type>(n);
}

// 10 units; 6 booked over [10, 20) and 8 over [30, 40): free is 10 on [0, 10), 4 on [10, 20),
// 10 on [20, 30), 2 on [30, 40), 10 from 40 on.
template <class B>
B small_profile() {
  B profile(amount<B>(10));
  profile.reserve({10, 20}, amount<B>(6));
  profile.reserve({30, 40}, amount<B>(8));
  return profile;
}

template <class B>
std::string message_of(B& profile, typename B::capacity_type new_total) {
  try {
    leasehold::set_total(profile, new_total);
  } catch (const insufficient_capacity& e) {
    return e.what();
  }
  return "no exception";
}

}  // namespace

TEST_CASE_TEMPLATE("set_total: growing adds to every block and keeps the bookings", B,
                   LEASEHOLD_EXACT_SCALAR_BACKENDS) {
  using T = typename B::time_type;
  const auto c = [](std::int64_t n) { return amount<B>(n); };
  B profile = small_profile<B>();
  leasehold::set_total(profile, c(15));
  profile.validate();
  CHECK(profile.total() == 15);
  CHECK(blocks_of(profile) == blocks_t<B>{{{0, 10}, c(15)},
                                          {{10, 20}, c(9)},
                                          {{20, 30}, c(15)},
                                          {{30, 40}, c(7)},
                                          {{40, forever<T>}, c(15)}});
  // The new capacity is bookable, and the old bookings release exactly.
  CHECK(profile.earliest_fit({c(9), T{5}}) == T{0});
  CHECK(profile.earliest_fit({c(10), T{15}}) == T{40});
  profile.release({10, 20}, c(6));
  profile.release({30, 40}, c(8));
  profile.validate();
  CHECK(blocks_of(profile) == blocks_t<B>{{{0, forever<T>}, c(15)}});
}

TEST_CASE_TEMPLATE("set_total: shrinking down to the bookings", B,
                   LEASEHOLD_EXACT_SCALAR_BACKENDS) {
  using T = typename B::time_type;
  const auto c = [](std::int64_t n) { return amount<B>(n); };
  B profile = small_profile<B>();
  SUBCASE("to more than is booked anywhere") {
    leasehold::set_total(profile, c(9));
    profile.validate();
    CHECK(profile.total() == 9);
    CHECK(blocks_of(profile) == blocks_t<B>{{{0, 10}, c(9)},
                                            {{10, 20}, c(3)},
                                            {{20, 30}, c(9)},
                                            {{30, 40}, c(1)},
                                            {{40, forever<T>}, c(9)}});
  }
  SUBCASE("to exactly the most booked: nothing free there") {
    leasehold::set_total(profile, c(8));
    profile.validate();
    CHECK(blocks_of(profile) == blocks_t<B>{{{0, 10}, c(8)},
                                            {{10, 20}, c(2)},
                                            {{20, 30}, c(8)},
                                            {{30, 40}, c(0)},
                                            {{40, forever<T>}, c(8)}});
    CHECK(profile.earliest_fit({c(3), T{15}}) == T{40});
    // And back up: the hierarchy of capacity_tree regrows its top level.
    leasehold::set_total(profile, c(10));
    profile.validate();
    CHECK(blocks_of(profile) == blocks_of(small_profile<B>()));
  }
  SUBCASE("to the same total: nothing changes") {
    leasehold::set_total(profile, c(10));
    profile.validate();
    CHECK(blocks_of(profile) == blocks_of(small_profile<B>()));
  }
  SUBCASE("a fully booked profile grows and shrinks back") {
    B full(c(4));
    full.reserve({0, forever<T>}, c(4));
    leasehold::set_total(full, c(6));
    full.validate();
    CHECK(blocks_of(full) == blocks_t<B>{{{0, forever<T>}, c(2)}});
    leasehold::set_total(full, c(4));
    full.validate();
    CHECK(blocks_of(full) == blocks_t<B>{{{0, forever<T>}, c(0)}});
    CHECK_THROWS_AS(leasehold::set_total(full, c(3)), insufficient_capacity);
  }
}

TEST_CASE_TEMPLATE("set_total: a shrink below the bookings names the earliest time", B,
                   LEASEHOLD_EXACT_SCALAR_BACKENDS) {
  const auto c = [](std::int64_t n) { return amount<B>(n); };
  B profile = small_profile<B>();
  profile.advance_to(12);
  const auto before = blocks_of(profile);
  // 6 booked from 12 (the origin) and 8 on [30, 40): 7 fails only at 30, 5 at both.
  CHECK(message_of(profile, c(7)) == "set_total(7): 8 booked at 30 does not fit the new total 7");
  CHECK(message_of(profile, c(5)) == "set_total(5): 6 booked at 12 does not fit the new total 5");
  CHECK(blocks_of(profile) == before);
  CHECK(profile.total() == 10);
  profile.validate();
}

TEST_CASE_TEMPLATE("set_total: a total that is no total is invalid_request", B,
                   LEASEHOLD_EXACT_SCALAR_BACKENDS) {
  B profile = small_profile<B>();
  const auto before = blocks_of(profile);
  CHECK_THROWS_WITH_AS(leasehold::set_total(profile, amount<B>(0)),
                       "set_total(0): total capacity 0 must be positive", invalid_request);
  CHECK_THROWS_AS(leasehold::set_total(profile, amount<B>(-3)), invalid_request);
  CHECK(blocks_of(profile) == before);
  CHECK(profile.total() == 10);
}

TEST_CASE_TEMPLATE("set_total: vector capacities change component by component", B,
                   LEASEHOLD_EXACT_VECTOR_BACKENDS) {
  using C = leasehold::testing::vector4;
  const auto end = forever<std::int64_t>;
  B profile(C{4, 8, 2, 16});
  profile.reserve({10, 20}, C{1, 0, 2, 4});
  profile.reserve({30, 40}, C{3, 8, 0, 0});
  // More CPU, less memory and network: memory is fully booked on [30, 40), so 8 still fits.
  leasehold::set_total(profile, C{6, 8, 2, 10});
  profile.validate();
  CHECK(profile.total() == C{6, 8, 2, 10});
  CHECK(blocks_of(profile) == blocks_t<B>{{{0, 10}, C{6, 8, 2, 10}},
                                          {{10, 20}, C{5, 8, 0, 6}},
                                          {{20, 30}, C{6, 8, 2, 10}},
                                          {{30, 40}, C{3, 0, 2, 10}},
                                          {{40, end}, C{6, 8, 2, 10}}});
  const auto before = blocks_of(profile);
  // Memory 7 does not hold the 8 booked on [30, 40); disk 1 does not hold the 2 on [10, 20).
  CHECK_THROWS_WITH_AS(leasehold::set_total(profile, C{6, 7, 2, 10}),
                       "set_total({6, 7, 2, 10}): {3, 8, 0, 0} booked at 30 does not fit the new "
                       "total {6, 7, 2, 10}",
                       insufficient_capacity);
  CHECK_THROWS_WITH_AS(leasehold::set_total(profile, C{6, 7, 1, 10}),
                       "set_total({6, 7, 1, 10}): {1, 0, 2, 4} booked at 10 does not fit the new "
                       "total {6, 7, 1, 10}",
                       insufficient_capacity);
  CHECK_THROWS_AS(leasehold::set_total(profile, C{0, 0, 0, 0}), invalid_request);
  CHECK_THROWS_AS(leasehold::set_total(profile, C{6, -1, 2, 10}), invalid_request);
  CHECK(blocks_of(profile) == before);
  CHECK(profile.total() == C{6, 8, 2, 10});
}

TEST_CASE_TEMPLATE(
    "set_total: slotted_ring keeps each slot's bookings and recycles at the new total", T,
    std::int64_t, int) {
  slotted_ring<T, T> ring(T{10}, T{10}, 10);  // horizon [0, 100)
  ring.reserve({T{10}, T{20}}, T{6});
  ring.reserve({T{30}, T{40}}, T{8});
  CHECK_THROWS_WITH_AS(ring.set_total(T{7}),
                       "set_total(7): 8 booked at 30 does not fit the new total 7",
                       insufficient_capacity);
  leasehold::set_total(ring, T{12});
  ring.validate();
  CHECK(blocks_of(ring) == blocks_t<slotted_ring<T, T>>{{{0, 10}, T{12}},
                                                        {{10, 20}, T{6}},
                                                        {{20, 30}, T{12}},
                                                        {{30, 40}, T{4}},
                                                        {{40, 100}, T{12}}});
  ring.advance_to(T{50});  // five slots come back at the far end, fully free at 12
  CHECK(blocks_of(ring) == blocks_t<slotted_ring<T, T>>{{{50, 150}, T{12}}});
  CHECK_THROWS_AS(ring.set_total(T{0}), invalid_request);
}

namespace {

// Random reserves, releases, advances and set_totals (some refused) on `profile` and a
// reference alike: the same outcomes, the same blocks and totals, and valid structures.
template <class B, class DrawAmount, class DrawTotal>
void check_random_totals(B profile, std::uint64_t seed, DrawAmount draw_amount,
                         DrawTotal draw_total, std::size_t operations) {
  using T = typename B::time_type;
  using C = typename B::capacity_type;
  reference<T, C> oracle(profile.total(), profile.origin());
  std::mt19937_64 rng(seed);
  const auto uniform = [&rng](std::int64_t lo, std::int64_t hi) {
    return std::uniform_int_distribution<std::int64_t>(lo, hi)(rng);
  };
  struct booking {
    interval<T> span;
    C amount;
  };
  std::vector<booking> live;
  for (std::size_t op = 0; op < operations; ++op) {
    CAPTURE(op);
    const std::int64_t kind = uniform(0, 99);
    if (kind < 50) {
      const C a = draw_amount(rng);
      const auto begin = static_cast<T>(profile.origin() + uniform(0, 1500));
      const interval<T> span{begin, static_cast<T>(begin + uniform(1, 200))};
      const auto want = testing::outcome_of([&] { oracle.reserve(span, a); });
      REQUIRE(testing::outcome_of([&] { profile.reserve(span, a); }) == want);
      if (want == testing::outcome::ok) live.push_back({span, a});
    } else if (kind < 80) {
      if (live.empty()) continue;
      const auto i =
          static_cast<std::size_t>(uniform(0, static_cast<std::int64_t>(live.size()) - 1));
      profile.release(live[i].span, live[i].amount);
      oracle.release(live[i].span, live[i].amount);
      live.erase(live.begin() + static_cast<std::ptrdiff_t>(i));
    } else if (kind < 85) {
      const auto to = static_cast<T>(profile.origin() + uniform(0, 20));
      profile.advance_to(to);
      oracle.advance_to(to);
      std::erase_if(live, [to](const booking& b) { return b.span.end <= to; });
      for (booking& b : live) b.span.begin = std::max(b.span.begin, to);
    } else {
      const C new_total = draw_total(rng);
      std::string want_message;
      std::string have_message;
      const auto want = testing::outcome_of([&] {
        try {
          oracle.set_total(new_total);
        } catch (const error& e) {
          want_message = e.what();
          throw;
        }
      });
      const auto before = blocks_of(profile);
      const auto have = testing::outcome_of([&] {
        try {
          leasehold::set_total(profile, new_total);
        } catch (const error& e) {
          have_message = e.what();
          throw;
        }
      });
      REQUIRE(have == want);
      CHECK(have_message == want_message);
      if (have != testing::outcome::ok) CHECK(blocks_of(profile) == before);
    }
    REQUIRE(profile.total() == oracle.total());
    REQUIRE(blocks_of(profile) == blocks_of(oracle));
    if (op % 16 == 0) profile.validate();
    if (op % 8 == 0) {  // searches see the new total too (free_tree: the new thresholds)
      const request<T, C> r{draw_amount(rng), static_cast<T>(uniform(1, 300))};
      std::optional<T> want_fit;
      std::optional<T> have_fit;
      const auto want = testing::outcome_of([&] { want_fit = oracle.earliest_fit(r); });
      REQUIRE(testing::outcome_of([&] { have_fit = profile.earliest_fit(r); }) == want);
      CHECK(have_fit == want_fit);
    }
  }
  profile.validate();
}

template <class C>
C draw_scalar(std::mt19937_64& rng) {
  return static_cast<C>(std::uniform_int_distribution<int>(1, 24)(rng));
}

template <class C>
C draw_scalar_total(std::mt19937_64& rng) {
  return static_cast<C>(std::uniform_int_distribution<int>(16, 96)(rng));
}

leasehold::testing::vector4 draw_vector(std::mt19937_64& rng) {
  std::uniform_int_distribution<std::int64_t> cpu(0, 8), memory(0, 64), disk(0, 4), net(0, 16);
  leasehold::testing::vector4 c{cpu(rng) / 2, memory(rng) / 4, disk(rng) / 2, net(rng) / 4};
  if (c == leasehold::testing::vector4{}) c[0] = 1;
  return c;
}

leasehold::testing::vector4 draw_vector_total(std::mt19937_64& rng) {
  std::uniform_int_distribution<std::int64_t> cpu(4, 12), memory(32, 96), disk(2, 6), net(8, 24);
  return {cpu(rng), memory(rng), disk(rng), net(rng)};
}

}  // namespace

TEST_CASE_TEMPLATE("set_total: random sequences agree with reference (scalar)", B,
                   LEASEHOLD_EXACT_SCALAR_BACKENDS) {
  using C = typename B::capacity_type;
  for (std::uint64_t seed = 1; seed <= 4; ++seed) {
    CAPTURE(seed);
    check_random_totals(B(C{64}), seed, &draw_scalar<C>, &draw_scalar_total<C>, 1500);
  }
}

TEST_CASE_TEMPLATE("set_total: random sequences agree with reference (vector)", B,
                   LEASEHOLD_EXACT_VECTOR_BACKENDS, free_tree<std::int64_t, testing::vector4, 4>) {
  using C = leasehold::testing::vector4;
  for (std::uint64_t seed = 21; seed <= 23; ++seed) {
    CAPTURE(seed);
    check_random_totals(B(C{8, 64, 4, 16}), seed, &draw_vector, &draw_vector_total, 1500);
  }
}

TEST_CASE_TEMPLATE("set_total: free_tree keeps its mode and its summaries right", B, free_tree<>,
                   free_tree_without_thresholds) {
  // Long enough, with searches, for mode reviews to switch the run summaries off and on; every
  // set_total must leave summaries and pending shifts valid for the new total.
  B tree(1000);
  reference<> oracle(1000);
  std::mt19937_64 rng(5);
  std::uniform_int_distribution<std::int64_t> time(0, 100'000), length(1, 200), units(1, 100),
      totals(600, 1400);
  bool seen_lazy = false;
  for (int i = 0; i < 8000; ++i) {
    const std::int64_t begin = time(rng);
    const interval<std::int64_t> span{begin, begin + length(rng)};
    const std::int64_t a = units(rng);
    if (a <= oracle.total() && oracle.min_free(span) >= a) {
      tree.reserve(span, a);
      oracle.reserve(span, a);
    }
    if (a <= oracle.total()) {
      const request<std::int64_t, std::int64_t> r{a, length(rng)};
      CHECK(tree.earliest_fit(r) == oracle.earliest_fit(r));
    }
    seen_lazy = seen_lazy || !tree.maintains_run_summaries();
    if (i % 500 == 499) {
      const std::int64_t t = totals(rng);
      const auto want = testing::outcome_of([&] { oracle.set_total(t); });
      REQUIRE(testing::outcome_of([&] { tree.set_total(t); }) == want);
      tree.validate();
      REQUIRE(blocks_of(tree) == blocks_of(oracle));
    }
  }
  MESSAGE("free_tree left its run summaries at some point: " << seen_lazy);
  tree.validate();
  CHECK(blocks_of(tree) == blocks_of(oracle));
}

static_assert(resizable_availability<free_list<>> && resizable_availability<reference<>>);

}  // namespace set_total_test
