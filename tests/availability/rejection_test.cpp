// Bad input, for every backend: each rejected call throws the documented leasehold::error
// subclass, names the offending values in its message, and leaves the profile exactly as it
// was (the strong guarantee of DESIGN.md).

#include <doctest/doctest.h>

#include <cstdint>
#include <limits>
#include <string>

#include "availability/backends.hpp"
#include "availability/differential.hpp"
#include "availability/rejection.hpp"

namespace rejection_test {

using namespace leasehold;
using leasehold::testing::blocks_of;
using leasehold::testing::check_rejected;

namespace {

// A profile with some structure, so that a half-applied change would show.
template <class B>
B busy_profile() {
  using C = typename B::capacity_type;
  B profile(C{10}, typename B::time_type{100});
  profile.reserve({100, 150}, C{4});
  profile.reserve({120, 200}, C{5});
  profile.reserve({300, 400}, C{10});
  return profile;
}

}  // namespace

TEST_CASE_TEMPLATE("availability: malformed constructor arguments are rejected", B,
                   LEASEHOLD_EXACT_SCALAR_BACKENDS) {
  using C = typename B::capacity_type;
  CHECK_THROWS_AS(B(C{0}), invalid_request);
  CHECK_THROWS_AS(B(C{-3}), invalid_request);
  CHECK_THROWS_WITH_AS(B(C{-3}), doctest::Contains("-3"), invalid_request);
}

TEST_CASE_TEMPLATE("availability: malformed reserve and release change nothing", B,
                   LEASEHOLD_EXACT_SCALAR_BACKENDS) {
  using T = typename B::time_type;
  using C = typename B::capacity_type;
  B profile = busy_profile<B>();

  check_rejected<invalid_request>(
      profile,
      [&] {
        profile.reserve({180, 120}, C{1});
      },
      "[180, 120)");
  check_rejected<invalid_request>(
      profile,
      [&] {
        profile.reserve({180, 180}, C{1});
      },
      "empty");
  check_rejected<invalid_request>(
      profile,
      [&] {
        profile.reserve({90, 110}, C{1});
      },
      "origin 100");
  check_rejected<invalid_request>(
      profile,
      [&] {
        profile.reserve({200, 210}, C{0});
      },
      "amount 0");
  check_rejected<invalid_request>(
      profile,
      [&] {
        profile.reserve({200, 210}, C{-2});
      },
      "amount -2");
  check_rejected<invalid_request>(
      profile,
      [&] {
        profile.reserve({200, 210}, C{11});
      },
      "total capacity 10");
  check_rejected<insufficient_capacity>(
      profile,
      [&] {
        profile.reserve({140, 160}, C{2});
      },
      "only 1 free at 140");
  check_rejected<insufficient_capacity>(
      profile,
      [&] {
        profile.reserve({250, forever<T>}, C{1});
      },
      "only 0 free at 300");

  check_rejected<invalid_request>(
      profile,
      [&] {
        profile.release({130, 125}, C{1});
      },
      "[130, 125)");
  check_rejected<invalid_request>(
      profile,
      [&] {
        profile.release({50, 125}, C{1});
      },
      "origin 100");
  check_rejected<invalid_request>(
      profile,
      [&] {
        profile.release({120, 125}, C{0});
      },
      "amount 0");
  check_rejected<invalid_release>(
      profile,
      [&] {
        profile.release({140, 160}, C{6});
      },
      "only 5 booked at 150");
  check_rejected<invalid_release>(
      profile,
      [&] {
        profile.release({190, 210}, C{1});
      },
      "only 0 booked at 200");
}

TEST_CASE_TEMPLATE("availability: malformed queries and advance_to are rejected", B,
                   LEASEHOLD_EXACT_SCALAR_BACKENDS) {
  using T = typename B::time_type;
  using C = typename B::capacity_type;
  B profile = busy_profile<B>();
  constexpr T max = std::numeric_limits<T>::max();

  check_rejected<invalid_request>(
      profile,
      [&] {
        (void)profile.earliest_fit({C{1}, T{0}});
      },
      "duration 0");
  check_rejected<invalid_request>(
      profile,
      [&] {
        (void)profile.earliest_fit({C{1}, T{-5}});
      },
      "duration -5");
  check_rejected<invalid_request>(
      profile,
      [&] {
        (void)profile.earliest_fit({C{0}, T{5}});
      },
      "amount 0");
  check_rejected<invalid_request>(
      profile,
      [&] {
        (void)profile.earliest_fit({C{12}, T{5}});
      },
      "amount 12");
  check_rejected<invalid_request>(
      profile,
      [&] {
        (void)profile.earliest_fit({C{1}, T{5}, {T{200}, T{150}}});
      },
      "window [200, 150)");
  check_rejected<invalid_request>(
      profile,
      [&] {
        (void)profile.earliest_fit({C{1}, T{60}, {T{200}, T{250}}});
      },
      "shorter than the duration");
  // begin + duration would overflow T: rejected, never wrapped.
  check_rejected<invalid_request>(
      profile,
      [&] {
        (void)profile.earliest_fit({C{1}, T{10}, {static_cast<T>(max - 5), max}});
      },
      "overflows");
  check_rejected<invalid_request>(
      profile,
      [&] {
        (void)profile.earliest_fit({C{1}, max, {T{1}, max}});
      },
      "overflows");

  check_rejected<invalid_request>(
      profile,
      [&] {
        (void)profile.min_free({150, 150});
      },
      "[150, 150)");
  check_rejected<invalid_request>(
      profile,
      [&] {
        (void)profile.min_free({99, 150});
      },
      "origin 100");
  check_rejected<invalid_request>(
      profile, [&] { (void)profile.free_at(99); }, "free_at(99)");
  check_rejected<invalid_request>(
      profile, [&] { profile.advance_to(99); }, "advance_to(99)");
  check_rejected<invalid_request>(
      profile, [&] { profile.advance_to(max); }, "forever");
}

}  // namespace rejection_test
