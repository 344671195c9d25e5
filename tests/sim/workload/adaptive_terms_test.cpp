// sim/workload/adaptive_terms.hpp with a fixed seed: Netto & Buyya's Table 1 terms within the
// tolerances stated in each check.

#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <map>
#include <sstream>
#include <vector>

#include <leasehold/sim/workload/adaptive_terms.hpp>
#include <leasehold/sim/workload/ar_generator.hpp>
#include <leasehold/sim/workload/batch_model.hpp>
#include <leasehold/sim/workload/images.hpp>
#include <leasehold/sim/workload/load.hpp>
#include <leasehold/sim/workload/swf_leases.hpp>

namespace adaptive_terms_test {

using namespace leasehold;

TEST_CASE("adaptive terms: Netto & Buyya Table 1") {
  workload::rng random(1);
  const workload::adaptive_config config;
  SUBCASE("a moldable request") {
    const auto t = workload::make_adaptive<std::int64_t>(7, 1000, 100, 3600, config, random);
    CHECK(t.r_max == 100);
    CHECK(t.r_min == 80);
    CHECK(t.t_min == 3600);
    CHECK(t.t_max == 4500);  // 3600 * 100 / 80
    CHECK(t.c == doctest::Approx(45.0));
    CHECK(t.k == doctest::Approx(3600 + 100 * 45.0));
    CHECK(t.duration_for(100) == 3600);
    CHECK(t.duration_for(80) == 4500);
    CHECK(t.duration_for(90) == 4050);
    CHECK(t.duration_for(500) == 3600);
    CHECK(t.duration_for(1) == 4500);
    CHECK(t.budget == doctest::Approx(100.0 * t.price_profile));
    CHECK(t.deadline == 1000 + 5 * 3600 + (t.price_profile == 1 ? 3 * 86'400 : 0));
  }
  SUBCASE("R_min rounds up; small requests are rigid") {
    CHECK(workload::make_adaptive<std::int64_t>(1, 0, 11, 600, config, random).r_min == 9);
    const auto rigid = workload::make_adaptive<std::int64_t>(1, 0, 10, 600, config, random);
    CHECK(rigid.r_min == 10);
    CHECK_FALSE(rigid.moldable());
    CHECK(rigid.c == 0);
    CHECK(rigid.k == 600);
    CHECK_FALSE(rigid.split.has_value());  // under an hour: never split
  }
  SUBCASE("shares: 20 % preemptive among requests >= 1 h, 20 % profile 3 (within 1.5 points)") {
    std::vector<lease_terms<>> leases(20'000);
    for (std::size_t i = 0; i < leases.size(); ++i) {
      leases[i].nodes = 32;
      leases[i].duration = i % 2 == 0 ? 1800 : 7200;
    }
    const auto terms = workload::decorate_adaptive(leases, config, 9);
    int split_long = 0, split_short = 0, profile3 = 0;
    for (const auto& t : terms) {
      (t.t_min >= 3600 ? split_long : split_short) += t.split.has_value();
      profile3 += t.price_profile == 3;
      if (t.split) CHECK(*t.split == workload::split_terms{10, 10, true});
    }
    CHECK(split_short == 0);
    CHECK(split_long / 10'000.0 == doctest::Approx(0.2).epsilon(0.075));
    CHECK(profile3 / 20'000.0 == doctest::Approx(0.2).epsilon(0.075));
    CHECK(terms == workload::decorate_adaptive(leases, config, 9));
  }
  SUBCASE("bad requests") {
    CHECK_THROWS_AS((void)workload::make_adaptive<std::int64_t>(1, 0, 0, 600, config, random),
                    invalid_request);
  }
}

}  // namespace adaptive_terms_test
