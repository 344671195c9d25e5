// The adaptive request of Netto & Buyya §3.1 and Table 1: the moldability functions, the
// allowed-R restriction, and the validation that turns a malformed request into a clear
// leasehold::error naming the offending value.

#include <doctest/doctest.h>

#include <cstdint>
#include <leasehold/policy/adaptive/detail/shapes.hpp>
#include <leasehold/policy/adaptive/request.hpp>

namespace request_test {

using namespace leasehold;
using namespace leasehold::policy::adaptive;

TEST_CASE("adaptive request: Table 1's linear moldability function") {
  // R_max = 10, R_min = 8 (80 %), T_min = 100: T_max = T_min * R_max / R_min = 125,
  // c = (125 - 100) / (10 - 8) = 12.5, k = T_min + R_max * c = 225, f(R) = k - c R.
  const linear_moldability<> f(8, 10, 100);
  CHECK(f.t_min() == 100);
  CHECK(f.t_max() == 125);
  CHECK(f(10) == 100);
  CHECK(f(9) == 113);  // 112.5 rounded up: a shape never gets less time than the line gives
  CHECK(f(8) == 125);
  // The end points use the same work, R_max T_min = R_min T_max.
  CHECK(10 * f(10) == 8 * f(8));

  SUBCASE("T_max rounds up when R_min does not divide T_min R_max") {
    const linear_moldability<> g(3, 4, 10);  // 40 / 3 = 13.3 -> 14
    CHECK(g.t_max() == 14);
    CHECK(g(3) == 14);
  }
  SUBCASE("R_min = R_max: constant") {
    const linear_moldability<> g(6, 6, 42);
    CHECK(g(6) == 42);
  }
  SUBCASE("bad parameters") {
    CHECK_THROWS_WITH_AS(linear_moldability<>(9, 8, 10), doctest::Contains("R_min 9"),
                         invalid_request);
    CHECK_THROWS_WITH_AS(linear_moldability<>(0, 8, 10), doctest::Contains("R_min 0"),
                         invalid_request);
    CHECK_THROWS_WITH_AS(linear_moldability<>(1, 8, -5), doctest::Contains("T_min -5"),
                         invalid_request);
  }
}

TEST_CASE("adaptive request: constant work and powers of two") {
  const constant_work<> f{1000};
  CHECK(f(1) == 1000);
  CHECK(f(3) == 334);
  CHECK(f(8) == 125);
  const powers_of_two pow2;
  CHECK(pow2(1));
  CHECK(pow2(64));
  CHECK_FALSE(pow2(6));
  CHECK_FALSE(pow2(0));
}

TEST_CASE("adaptive request: rigid is R_min = R_max with N = 1") {
  const auto r = rigid<std::int64_t, std::int64_t>(7, 5, 4, 100, 1000);
  CHECK(r.r_min == 4);
  CHECK(r.r_max == 4);
  CHECK(r.f_mol(4) == 100);
  CHECK(r.split.pieces == 1);
  CHECK_FALSE(r.preemptive());
  CHECK_FALSE(r.moldable());
  auto m = r;
  m.r_min = 2;
  CHECK(m.moldable());
  m.allowed = powers_of_two{};
  m.r_max = 3;  // allowed: only 2
  CHECK_FALSE(m.moldable());
}

TEST_CASE("adaptive request: shapes from R_max down to R_min, honouring the allowed set") {
  adaptive_request<> r;
  r.r_min = 3;
  r.r_max = 16;
  r.f_mol = constant_work<>{4800};
  r.allowed = powers_of_two{};
  const auto shapes = policy::adaptive::detail::shapes_of(r, std::int64_t{32});
  REQUIRE(shapes.size() == 3);
  CHECK(shapes[0].resource_count == 16);
  CHECK(shapes[0].duration == 300);
  CHECK(shapes[1].resource_count == 8);
  CHECK(shapes[2].resource_count == 4);
  CHECK(shapes[2].duration == 1200);
}

TEST_CASE("adaptive request: malformed requests name the offending value") {
  using policy::adaptive::detail::shapes_of;
  adaptive_request<> good;
  good.id = 3;
  good.r_min = 4;
  good.r_max = 8;
  good.f_mol = linear_moldability<>(4, 8, 100);
  good.deadline = 10'000;
  const std::int64_t cluster = 16;
  CHECK(shapes_of(good, cluster).size() == 5);

  auto bad = good;
  SUBCASE("R_min > R_max") {
    bad.r_min = 9;
    CHECK_THROWS_WITH_AS((void)shapes_of(bad, cluster),
                         doctest::Contains("R_min 9 exceeds R_max 8"), invalid_request);
  }
  SUBCASE("R_min not positive") {
    bad.r_min = 0;
    CHECK_THROWS_WITH_AS((void)shapes_of(bad, cluster), doctest::Contains("R_min 0"),
                         invalid_request);
  }
  SUBCASE("R_max above the cluster") {
    bad.r_max = 17;
    CHECK_THROWS_WITH_AS((void)shapes_of(bad, cluster),
                         doctest::Contains("R_max 17 exceeds the cluster's 16"), invalid_request);
  }
  SUBCASE("f_mol returning a non-positive time") {
    bad.f_mol = [](std::int64_t r) { return r == 6 ? std::int64_t{0} : std::int64_t{50}; };
    CHECK_THROWS_WITH_AS((void)shapes_of(bad, cluster), doctest::Contains("f_mol(6) = 0"),
                         invalid_request);
    bad.f_mol = [](std::int64_t) { return std::int64_t{-5}; };
    CHECK_THROWS_WITH_AS((void)shapes_of(bad, cluster), doctest::Contains("= -5"), invalid_request);
  }
  SUBCASE("empty f_mol") {
    bad.f_mol = nullptr;
    CHECK_THROWS_WITH_AS((void)shapes_of(bad, cluster), doctest::Contains("f_mol is empty"),
                         invalid_request);
  }
  SUBCASE("N = 0") {
    bad.split.pieces = 0;
    CHECK_THROWS_WITH_AS((void)shapes_of(bad, cluster), doctest::Contains("N = 0"),
                         invalid_request);
  }
  SUBCASE("I outside 1..100") {
    bad.split.interval_percent = 0;
    CHECK_THROWS_WITH_AS((void)shapes_of(bad, cluster), doctest::Contains("I = 0"),
                         invalid_request);
    bad.split.interval_percent = 150;
    CHECK_THROWS_WITH_AS((void)shapes_of(bad, cluster), doctest::Contains("I = 150"),
                         invalid_request);
  }
  SUBCASE("no allowed R") {
    bad.r_min = 5;
    bad.r_max = 7;
    bad.allowed = powers_of_two{};
    CHECK_THROWS_WITH_AS((void)shapes_of(bad, cluster), doctest::Contains("no allowed R in [5, 7]"),
                         invalid_request);
  }
  SUBCASE("deadline not after the submission") {
    bad.submit = 500;
    bad.deadline = 500;
    CHECK_THROWS_WITH_AS((void)shapes_of(bad, cluster), doctest::Contains("deadline 500"),
                         invalid_request);
  }
  SUBCASE("negative budget, non-positive price profile") {
    bad.budget = -1;
    CHECK_THROWS_WITH_AS((void)shapes_of(bad, cluster), doctest::Contains("budget -1"),
                         invalid_request);
    bad.budget = 10;
    bad.price_profile = 0;
    CHECK_THROWS_WITH_AS((void)shapes_of(bad, cluster), doctest::Contains("price profile 0"),
                         invalid_request);
  }
  SUBCASE("the message names the request") {
    bad.r_min = 9;
    CHECK_THROWS_WITH_AS((void)shapes_of(bad, cluster), doctest::Contains("adaptive request 3"),
                         invalid_request);
  }
}

}  // namespace request_test
