// Placements and the slices of an execution: pieces of one execution add up to it exactly.

#include <doctest/doctest.h>

#include <cstdint>
#include <leasehold/policy/adaptive/placement.hpp>

namespace placement_test {

using namespace leasehold;
using namespace leasehold::policy::adaptive;

TEST_CASE("adaptive placement: slices of an execution add up to it") {
  CHECK(slice_duration<std::int64_t>(100, 0, 100) == 100);
  CHECK(slice_duration<std::int64_t>(100, 0, 10) == 10);
  CHECK(slice_duration<std::int64_t>(100, 30, 50) == 20);
  // 7 ticks cut in thirds of ~33 %: ceil(2.31) = 3, ceil(4.62) - 3 = 2, 7 - 5 = 2.
  CHECK(slice_duration<std::int64_t>(7, 0, 33) == 3);
  CHECK(slice_duration<std::int64_t>(7, 33, 66) == 2);
  CHECK(slice_duration<std::int64_t>(7, 66, 100) == 2);
  for (std::int64_t full : {1, 3, 7, 99, 100, 101, 12345}) {
    std::int64_t sum = 0;
    for (int from = 0; from < 100; from += 10) sum += slice_duration(full, from, from + 10);
    CHECK(sum == full);
  }
  // Large values do not overflow.
  const std::int64_t huge = std::int64_t{1} << 61;
  CHECK(slice_duration(huge, 0, 100) == huge);
  CHECK(slice_duration(huge, 50, 100) == huge / 2);
  CHECK(slice_duration<int>(2'000'000'000, 0, 100) == 2'000'000'000);
}

TEST_CASE("adaptive placement: start, completion, work and mean resources") {
  placement<> p{{{{10, 20}, 4, 0, 50}, {{30, 36}, 6, 50, 100}}};
  CHECK(p.start() == 10);
  CHECK(p.completion() == 36);
  CHECK(p.work() == 4 * 10 + 6 * 6);
  CHECK(p.mean_resources() == doctest::Approx(5.0));
}

}  // namespace placement_test
