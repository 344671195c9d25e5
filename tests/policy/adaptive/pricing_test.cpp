// Algorithm 2 of Netto & Buyya: the price at T_min, at the deadline and in between, the price
// profile, the incentive for preemptive requests, the budget cap, and a replaced omega.

#include <doctest/doctest.h>

#include <cstdint>
#include <leasehold/policy/adaptive/pricing.hpp>

namespace pricing_test {

using namespace leasehold;
using namespace leasehold::policy::adaptive;

namespace {
// 4 resources for 10 hours (36,000 s) submitted at 0 with the deadline at 100,000 s: the
// undiscounted price is 4 x 10 machine hours x 1 $ = 40 $.
adaptive_request<> ten_hours_on_four() {
  auto r = rigid<std::int64_t, std::int64_t>(1, 0, 4, 36'000, 100'000);
  return r;
}
placement<> ending_at(std::int64_t completion) {
  return placement<>{{{{completion - 36'000, completion}, 4, 0, 100}}};
}
}  // namespace

TEST_CASE("adaptive pricing: Algorithm 2 at T_min, at the deadline and half way") {
  const algorithm2 omega;
  const auto req = ten_hours_on_four();
  // Completing at submit + T_min: PercentageBeforeDeadline = 0, full price.
  CHECK(omega(req, ending_at(36'000)) == doctest::Approx(40.0));
  // At the deadline: 40 - floor(1 x 40 x 0.6) = 40 - 24 = 16.
  CHECK(omega(req, ending_at(100'000)) == doctest::Approx(16.0));
  // Half way (68,000): 40 - floor(0.5 x 40 x 0.6) = 40 - 12 = 28.
  CHECK(omega(req, ending_at(68'000)) == doctest::Approx(28.0));
  // A quarter of the way (52,000): 40 - floor(6) = 34.
  CHECK(omega(req, ending_at(52'000)) == doctest::Approx(34.0));
  // 0.3 of the way (55,200): 40 - floor(7.2) = 33: the floor of Algorithm 2.
  CHECK(omega(req, ending_at(55'200)) == doctest::Approx(33.0));
}

TEST_CASE("adaptive pricing: price profile, incentive and budget") {
  auto req = ten_hours_on_four();
  req.price_profile = 3;
  const algorithm2 omega;
  CHECK(omega(req, ending_at(36'000)) == doctest::Approx(120.0));
  CHECK(omega(req, ending_at(100'000)) == doctest::Approx(48.0));

  SUBCASE("the incentive applies to preemptive requests only") {
    const algorithm2 discounted{.incentive = 0.25};
    CHECK(discounted(req, ending_at(36'000)) == doctest::Approx(120.0));
    req.split = {.pieces = 10, .interval_percent = 10, .moldable = true};
    CHECK(discounted(req, ending_at(36'000)) == doctest::Approx(90.0));
  }
  SUBCASE("never above the budget") {
    req.budget = 100;
    CHECK(omega(req, ending_at(36'000)) == doctest::Approx(100.0));
    CHECK(omega(req, ending_at(100'000)) == doctest::Approx(48.0));
  }
  SUBCASE("pieces are priced by their summed work and the last completion") {
    req.price_profile = 1;
    const placement<> split{{{{0, 18'000}, 4, 0, 50}, {{50'000, 68'000}, 4, 50, 100}}};
    CHECK(omega(req, split) == doctest::Approx(28.0));
  }
}

TEST_CASE("adaptive pricing: omega is replaceable") {
  const pricing_function<> flat = [](const adaptive_request<>&, const placement<>& where) {
    return static_cast<double>(where.work());
  };
  CHECK(flat(ten_hours_on_four(), ending_at(50'000)) == doctest::Approx(144'000.0));
}

}  // namespace pricing_test
