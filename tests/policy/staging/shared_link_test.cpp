// policy::staging::shared_link: the link shared as processor sharing (the naive staging
// strategies of Overhead Matters, §4.2.1).

#include <doctest/doctest.h>

#include <cstdint>
#include <utility>
#include <vector>

#include <leasehold/policy/staging/shared_link.hpp>

namespace shared_link_test {

using namespace leasehold;
using namespace leasehold::policy::staging;

TEST_CASE("shared_link: concurrent transfers share the bandwidth") {
  shared_link link(12.5);  // 100 Mb/s
  // Two 600 MB transfers from 0: each gets 6.25 MB/s and both end at 96 s, not 48.
  link.start(1, 600);
  link.start(2, 600);
  CHECK(*link.next_completion() == doctest::Approx(96.0));
  // A third of 300 MB joins at 48 (each has 300 MB left): 3 x 300 MB at 12.5 MB/s: all end at
  // 48 + 72 = 120.
  CHECK(link.advance_to(48.0).empty());
  link.start(3, 300);
  const auto done = link.advance_to(200.0);
  REQUIRE(done.size() == 3);
  for (const auto& [id, at] : done) CHECK(at == doctest::Approx(120.0));
  CHECK(link.active() == 0);
  CHECK_FALSE(link.next_completion());
  // Alone, 600 MB takes 48 s.
  link.start(4, 600);
  const auto alone = link.advance_to(1000.0);
  REQUIRE(alone.size() == 1);
  CHECK(alone[0].second == doctest::Approx(248.0));
}

TEST_CASE("shared_link: bad input") {
  CHECK_THROWS_AS(shared_link(0.0), invalid_request);
  shared_link link(10.0, 100.0);
  CHECK_THROWS_AS(link.start(1, 0.0), invalid_request);
  CHECK_THROWS_AS((void)link.advance_to(50.0), invalid_request);
  CHECK(link.active() == 0);
  CHECK(link.now() == 100.0);
}

}  // namespace shared_link_test
