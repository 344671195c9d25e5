// policy::staging::repository_link: the repository's link as an availability over
// bandwidth; earliest and latest (as late as possible, Haizea §3.2) slots for a transfer.

#include <doctest/doctest.h>

#include <cstdint>
#include <limits>

#include <leasehold/availability/reference.hpp>
#include <leasehold/policy/staging/repository_link.hpp>

#include "availability/backends.hpp"

namespace repository_link_test {

using namespace leasehold;
using namespace leasehold::policy::staging;

using T = std::int64_t;

TEST_CASE_TEMPLATE("repository_link: transfer times and slots", Backend, free_list<T, T>,
                   reference<T, T>) {
  repository_link<Backend> link(10.0);
  CHECK(link.bandwidth_kb_s() == 10240);
  CHECK(link.transfer_time(1000) == 100);  // 1000 MB at 10 MB/s
  CHECK(link.transfer_time(4096) == 410);  // 409.6 s, rounded up (the paper's 4 GB image)
  link.book({100, 200});
  link.book({300, 350});
  // Earliest 100 s from 0: [0, 100) is free; from 150: the gap [200, 300).
  CHECK(link.earliest(100, 0) == interval<T>{0, 100});
  CHECK(link.earliest(100, 150) == interval<T>{200, 300});
  CHECK(link.earliest(100, 150, 299) == std::nullopt);
  // Latest 100 s ending by 400: [350, 400) is too short, the gap [200, 300) fits.
  CHECK(link.latest(100, 0, 400) == interval<T>{200, 300});
  CHECK(link.latest(50, 0, 400) == interval<T>{350, 400});
  CHECK(link.latest(100, 0, 1000) == interval<T>{900, 1000});
  CHECK(link.latest(100, 250, 400) == std::nullopt);
  CHECK(link.latest(100, 0, 150) == interval<T>{0, 100});
  CHECK(link.latest(100, 50, 150) == std::nullopt);
  CHECK(link.latest(100, 0, 100) == interval<T>{0, 100});
  CHECK_FALSE(link.is_free({150, 160}));
  CHECK(link.is_free({200, 300}));
  CHECK_THROWS_AS(link.book({150, 250}), insufficient_capacity);
  CHECK(link.is_free({200, 250}));
}

TEST_CASE("repository_link: bad input") {
  CHECK_THROWS_WITH_AS(
      repository_link<>(0.0),
      "repository_link: bandwidth 0 MB/s must be a positive number (at least 1 kB/s)",
      invalid_request);
  CHECK_THROWS_AS(repository_link<>(-5.0), invalid_request);
  CHECK_THROWS_AS(repository_link<>(std::numeric_limits<double>::quiet_NaN()), invalid_request);
  const repository_link<> link(12.5);
  CHECK(link.transfer_time(600) == 48);  // Overhead Matters: 600 MB at 100 Mb/s
  CHECK_THROWS_AS((void)link.transfer_time(0), invalid_request);
}

}  // namespace repository_link_test
