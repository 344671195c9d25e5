// Scalars and resources<N, V> behave alike through the free functions found by ADL.

#include <doctest/doctest.h>

#include <cstdint>
#include <sstream>

#include <leasehold/core/capacity.hpp>

namespace capacity_test {

using namespace leasehold;

TEST_CASE("capacity: fits compares every component") {
  CHECK(fits(3, 4));
  CHECK(fits(4, 4));
  CHECK_FALSE(fits(5, 4));
  using vm = resources<4, std::int64_t>;
  CHECK(fits(vm{1, 1024, 0, 0}, vm{8, 8192, 100, 10}));
  CHECK_FALSE(fits(vm{1, 9000, 0, 0}, vm{8, 8192, 100, 10}));
  CHECK_FALSE(fits(vm{0, 0, 0, 11}, vm{8, 8192, 100, 10}));
}

TEST_CASE("capacity: element-wise arithmetic and extremes") {
  using r3 = resources<3, int>;
  CHECK(r3{1, 2, 3} + r3{10, 20, 30} == r3{11, 22, 33});
  CHECK(r3{10, 20, 30} - r3{1, 2, 3} == r3{9, 18, 27});
  CHECK(elementwise_min(r3{1, 20, 3}, r3{10, 2, 30}) == r3{1, 2, 3});
  CHECK(elementwise_max(r3{1, 20, 3}, r3{10, 2, 30}) == r3{10, 20, 30});
  CHECK(elementwise_min(4, 7) == 4);
  CHECK(r3{}.size() == 3);
  CHECK(r3{} == r3{0, 0, 0});
}

TEST_CASE("capacity: a usable amount is non-negative and not nothing") {
  using r2 = resources<2, int>;
  CHECK(is_positive(1));
  CHECK_FALSE(is_positive(0));
  CHECK_FALSE(is_positive(-1));
  CHECK(is_positive(r2{0, 1}));
  CHECK_FALSE(is_positive(r2{0, 0}));
  CHECK_FALSE(is_positive(r2{5, -1}));
  CHECK(is_zero(r2{}));
  CHECK(is_nonnegative(r2{0, 3}));
}

TEST_CASE("capacity: resources print as a braced list") {
  std::ostringstream out;
  out << resources<3, std::int64_t>{1, 1024, -1};
  CHECK(out.str() == "{1, 1024, -1}");
}

}  // namespace capacity_test
