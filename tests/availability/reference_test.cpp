// reference is the oracle the other backends are checked against, so its own answers are
// checked here by hand, from the definitions in DESIGN.md.

#include <doctest/doctest.h>

#include <cstdint>
#include <vector>

#include <leasehold/availability/reference.hpp>

namespace reference_test {

using namespace leasehold;

TEST_CASE("reference: the profile is the sum of its bookings") {
  reference<> profile(10);
  profile.reserve({0, 100}, 1);
  profile.reserve({50, 150}, 2);
  profile.reserve({75, 80}, 7);
  using block = free_block<std::int64_t, std::int64_t>;
  CHECK(profile.free_blocks() == std::vector<block>{{{0, 50}, 9},
                                                    {{50, 75}, 7},
                                                    {{75, 80}, 0},
                                                    {{80, 100}, 7},
                                                    {{100, 150}, 8},
                                                    {{150, forever<std::int64_t>}, 10}});
  CHECK(profile.block_count() == 6);
  profile.validate();
}

TEST_CASE("reference: earliest_fit is the first start whose whole span fits") {
  reference<> profile(10);
  profile.reserve({0, 100}, 1);
  profile.reserve({50, 150}, 2);
  profile.reserve({75, 80}, 7);
  CHECK(profile.earliest_fit({9, 50}) == 0);
  CHECK(profile.earliest_fit({9, 51}) == 150);
  CHECK(profile.earliest_fit({7, 75}) == 0);
  CHECK(profile.earliest_fit({7, 76}) == 80);
  CHECK(profile.earliest_fit({8, 10}) == 0);
  CHECK(profile.earliest_fit({8, 10, {45, 1000}}) == 100);
  CHECK(profile.earliest_fit({1, 1000, {0, 1079}}) == std::nullopt);
  CHECK(profile.earliest_fit({1, 1000, {0, 1080}}) == 80);
}

}  // namespace reference_test
