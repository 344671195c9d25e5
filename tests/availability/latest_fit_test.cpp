// availability/latest_fit.hpp: leasehold::latest_fit answers from free_blocks() for a backend
// without a latest_fit of its own, worked by hand on a small profile and checked against
// free_list's own member on random profiles and requests; a backend with the member is asked
// directly.

#include <doctest/doctest.h>

#include <cstdint>
#include <limits>
#include <optional>
#include <random>
#include <vector>

#include <leasehold/availability/free_list.hpp>
#include <leasehold/availability/latest_fit.hpp>
#include <leasehold/core/error.hpp>

namespace latest_fit_test {

using namespace leasehold;
using T = std::int64_t;

namespace {

// free_list with its latest_fit hidden: what a user-written backend without the member is.
class without_latest_fit {
 public:
  using time_type = T;
  using capacity_type = T;
  explicit without_latest_fit(T total) : p_(total) {}
  [[nodiscard]] T total() const { return p_.total(); }
  [[nodiscard]] T origin() const { return p_.origin(); }
  [[nodiscard]] T free_at(T t) const { return p_.free_at(t); }
  [[nodiscard]] T min_free(interval<T> span) const { return p_.min_free(span); }
  [[nodiscard]] std::optional<T> earliest_fit(const request<T, T>& r) const {
    return p_.earliest_fit(r);
  }
  void reserve(interval<T> span, T amount) { p_.reserve(span, amount); }
  void release(interval<T> span, T amount) { p_.release(span, amount); }
  void advance_to(T t) { p_.advance_to(t); }
  [[nodiscard]] std::vector<free_block<T, T>> free_blocks() const { return p_.free_blocks(); }
  [[nodiscard]] std::size_t block_count() const { return p_.block_count(); }
  [[nodiscard]] const free_list<T, T>& inner() const { return p_; }

 private:
  free_list<T, T> p_;
};

static_assert(availability<without_latest_fit>);
static_assert(!latest_fit_availability<without_latest_fit>);
static_assert(latest_fit_availability<free_list<T, T>>);

}  // namespace

TEST_CASE("latest_fit: answered from the free blocks, worked by hand") {
  // 10 units; free: [0, 2) 10 | [2, 4) 6 | [4, 5) 3 | [5, 8) 7 | [8, forever) 10
  without_latest_fit p(10);
  p.reserve({2, 5}, 4);
  p.reserve({4, 8}, 3);
  CHECK(latest_fit(p, {6, 2, {0, 6}}) == T{2});  // [2, 4) has 6; later starts meet [4, 5)
  CHECK(latest_fit(p, {7, 3, {0, 8}}) == T{5});  // [5, 8) has exactly 7
  CHECK(latest_fit(p, {8, 3, {0, 8}}) == std::nullopt);
  CHECK(latest_fit(p, {8, 3, {0, 20}}) == T{17});  // as late as the window allows
  CHECK(latest_fit(p, {3, 4, {1, 9}}) == T{5});
  CHECK(latest_fit(p, {1, 1}) == std::numeric_limits<T>::max() - 1);  // the whole time axis
  CHECK_THROWS_AS((void)latest_fit(p, {11, 1}), invalid_request);     // above the total
  CHECK_THROWS_AS((void)latest_fit(p, {1, 0}), invalid_request);      // no duration
}

TEST_CASE("latest_fit: the walk over blocks agrees with free_list's own search") {
  std::mt19937_64 rng(2027);
  const auto uniform = [&rng](T lo, T hi) { return std::uniform_int_distribution<T>(lo, hi)(rng); };
  for (int round = 0; round < 50; ++round) {
    without_latest_fit p(8);
    for (int k = 0; k < 12; ++k) {
      const T begin = uniform(0, 60);
      const interval<T> span{begin, begin + uniform(1, 15)};
      const T amount = uniform(1, 4);
      if (p.min_free(span) >= amount) p.reserve(span, amount);
    }
    for (int q = 0; q < 40; ++q) {
      const T begin = uniform(0, 70);
      const T duration = uniform(1, 12);
      const request<T, T> r{uniform(1, 8), duration, {begin, begin + duration + uniform(0, 30)}};
      CHECK(latest_fit(p, r) == p.inner().latest_fit(r));
    }
  }
}

}  // namespace latest_fit_test
