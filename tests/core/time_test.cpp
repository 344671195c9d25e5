// Half-open intervals and overflow-checked time arithmetic.

#include <doctest/doctest.h>

#include <cstdint>
#include <limits>

#include <leasehold/core/detail/checked_arithmetic.hpp>
#include <leasehold/core/request.hpp>
#include <leasehold/core/time.hpp>

namespace time_test {

using namespace leasehold;

TEST_CASE("interval: half-open spans") {
  constexpr interval<int> span{10, 20};
  static_assert(span.contains(10) && !span.contains(20));
  CHECK(span.overlaps({19, 30}));
  CHECK_FALSE(span.overlaps({20, 30}));
  CHECK(interval<int>{5, 5}.empty());
  CHECK(interval<int>{6, 5}.empty());
  CHECK(interval{std::int64_t{1}, std::int64_t{2}} == interval<std::int64_t>{1, 2});
}

TEST_CASE("checked arithmetic reports overflow instead of wrapping") {
  constexpr auto max = std::numeric_limits<std::int64_t>::max();
  constexpr auto min = std::numeric_limits<std::int64_t>::min();
  CHECK(detail::checked_add<std::int64_t>(max - 5, 5) == max);
  CHECK_FALSE(detail::checked_add<std::int64_t>(max - 5, 6).has_value());
  CHECK_FALSE(detail::checked_sub<std::int64_t>(min, 1).has_value());
  CHECK(detail::checked_sub<int>(0, 5) == -5);
}

TEST_CASE("request: the default window runs from the origin to forever") {
  const request<> r{.amount = 4, .duration = 60};
  CHECK(r.window.begin == std::numeric_limits<std::int64_t>::min());
  CHECK(r.window.end == forever<std::int64_t>);
}

}  // namespace time_test
