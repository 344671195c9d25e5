// dynamic_resources: a resource vector whose count is chosen at run time behaves as
// resources<N, V> does through the same operators and free functions; mismatched counts are
// refused where user input enters.

#include <doctest/doctest.h>

#include <array>
#include <cstdint>
#include <sstream>
#include <type_traits>
#include <vector>

#include <leasehold/leasehold.hpp>

namespace dynamic_resources_test {

using namespace leasehold;
using dyn = dynamic_resources<>;

static_assert(std::is_trivially_copyable_v<dyn>, "backends copy one per block");
static_assert(sizeof(dynamic_resources<std::int32_t, 4>) == 20);
static_assert(dyn::max_size == 8);

template <class C>
std::string text_of(const C& c) {
  std::ostringstream out;
  out << c;
  return out.str();
}

TEST_CASE("dynamic_resources: construction fixes the count") {
  CHECK(dyn{}.size() == 0);
  CHECK(dyn{}.empty());
  CHECK(dyn(3).size() == 3);
  CHECK(dyn(3) == dyn{0, 0, 0});
  CHECK(dyn{4}.size() == 1);  // the list: one component of 4
  CHECK(dyn(4).size() == 4);  // the count: four zeros
  const std::array<std::int64_t, 4> config{8, 8192, 2, 1};
  const dyn from_config = dyn::from(config);
  CHECK(from_config == dyn{8, 8192, 2, 1});
  CHECK(from_config[1] == 8192);
  CHECK(std::vector<std::int64_t>(from_config.begin(), from_config.end()) ==
        std::vector<std::int64_t>{8, 8192, 2, 1});
  CHECK(dyn::from(std::array<std::int64_t, 8>{1, 2, 3, 4, 5, 6, 7, 8}).size() == 8);
}

TEST_CASE("dynamic_resources: counts outside [1, MaxN] are refused, naming the count") {
  CHECK_THROWS_WITH_AS(dyn(0), doctest::Contains("0 components"), invalid_request);
  CHECK_THROWS_WITH_AS(dyn(9), doctest::Contains("9 components requested, which is not in [1, 8]"),
                       invalid_request);
  CHECK_THROWS_WITH_AS((dynamic_resources<int, 2>{1, 2, 3}), doctest::Contains("3 components"),
                       invalid_request);
  const std::vector<std::int64_t> none;
  CHECK_THROWS_AS((void)dyn::from(none), invalid_request);
}

TEST_CASE("dynamic_resources: element-wise arithmetic and extremes") {
  using d3 = dynamic_resources<int, 4>;
  CHECK(d3{1, 2, 3} + d3{10, 20, 30} == d3{11, 22, 33});
  CHECK(d3{10, 20, 30} - d3{1, 2, 3} == d3{9, 18, 27});
  d3 running{5, 5, 5};
  running += d3{1, 2, 3};
  running -= d3{0, 1, 0};
  CHECK(running == d3{6, 6, 8});
  CHECK(elementwise_min(d3{1, 20, 3}, d3{10, 2, 30}) == d3{1, 2, 3});
  CHECK(elementwise_max(d3{1, 20, 3}, d3{10, 2, 30}) == d3{10, 20, 30});
  CHECK(detail::componentwise(d3{1, 2, 3}, d3{4, 5, 6}, std::plus<>{}) == d3{5, 7, 9});
  // == compares the count as well as the live components.
  CHECK(d3{1, 2} != d3{1, 2, 0});
  CHECK(d3{1, 2, 3} != d3{1, 2, 4});
}

TEST_CASE("dynamic_resources: the value of no components is zero of any count") {
  using d = dynamic_resources<int, 4>;
  CHECK(d{} + d{1, 2, 3} == d{1, 2, 3});
  CHECK(d{} - d{1, 2, 3} == d{-1, -2, -3});
  CHECK(d{1, 2, 3} - d{} == d{1, 2, 3});
  CHECK(elementwise_min(d{1, 2, 3}, d{}) == d{0, 0, 0});
  CHECK(elementwise_max(d{}, d{1, 2, 3}) == d{1, 2, 3});
  CHECK(fits(d{}, d{1, 2, 3}));
  CHECK_FALSE(fits(d{1, 0, 0}, d{}));
  CHECK(fits(d{0, 0, 0}, d{}));
  CHECK(is_zero(d{}));
  CHECK(is_zero(d{0, 0, 0}));
  CHECK(d{} != d{0, 0, 0});
}

TEST_CASE("dynamic_resources: fits and the predicates look at every live component") {
  using d = dynamic_resources<>;
  CHECK(fits(d{1, 1024, 0, 0}, d{8, 8192, 100, 10}));
  CHECK(fits(d{8, 8192, 100, 10}, d{8, 8192, 100, 10}));
  CHECK_FALSE(fits(d{1, 9000, 0, 0}, d{8, 8192, 100, 10}));
  CHECK_FALSE(fits(d{0, 0, 0, 11}, d{8, 8192, 100, 10}));
  CHECK(is_positive(d{0, 0, 1}));
  CHECK_FALSE(is_positive(d{0, 0, 0}));
  CHECK_FALSE(is_positive(d{1, -1, 0}));
  CHECK_FALSE(is_positive(d{}));
  CHECK(is_nonnegative(d{0, 3}));
  CHECK_FALSE(is_nonnegative(d{0, -3}));
  CHECK_FALSE(is_zero(d{0, 1}));
}

TEST_CASE("dynamic_resources: printed like resources") {
  CHECK(text_of(dyn{1, 2, 3}) == "{1, 2, 3}");
  CHECK(text_of(dyn{7}) == "{7}");
  CHECK(text_of(dyn{}) == "{}");
  CHECK(text_of(dynamic_resources<std::int8_t, 2>{1, 2}) == "{1, 2}");  // numbers, not chars
}

TEST_CASE("dynamic_resources: a total of no components is refused") {
  using list = free_list<std::int64_t, dyn>;
  using tree = free_tree<std::int64_t, dyn>;
  using ring = slotted_ring<std::int64_t, dyn>;
  CHECK_THROWS_WITH_AS(list(dyn{}), "total capacity {} must be positive", invalid_request);
  CHECK_THROWS_AS(tree(dyn{}), invalid_request);
  CHECK_THROWS_AS(ring(dyn{0, 0}, 1, 4), invalid_request);
}

}  // namespace dynamic_resources_test
