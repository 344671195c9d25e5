// sim/workload/ar_generator.hpp with a fixed seed: the paper's rho, delta, nu and advance
// notice are met within the tolerances stated in each check, and the same seed gives the same
// workload.

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

namespace ar_generator_test {

using namespace leasehold;

TEST_CASE("ar generator: the paper's rho, delta, nu and advance notice") {
  for (const double rho : {0.05, 0.30}) {
    for (const auto nu : {workload::small_leases, workload::large_leases}) {
      const workload::ar_injection_config config{.rho = rho, .delta = 3600, .nu = nu};
      CAPTURE(rho);
      CAPTURE(nu.lo);
      const auto leases = workload::generate_ar_injections(config, 11);
      std::int64_t node_seconds = 0;
      for (const auto& l : leases) {
        node_seconds += l.duration * l.nodes;
        CHECK(l.duration >= 1800);
        CHECK(l.duration <= 5400);
        CHECK(l.nodes >= nu.lo);
        CHECK(l.nodes <= nu.hi);
        CHECK(l.start >= 0);
        CHECK((l.start - l.arrival == 86'400 || l.arrival == 0));
      }
      // Drawn until the target is reached: over it by less than one lease.
      const double target = rho * 144.0 * 2'590'930.0;
      CHECK(static_cast<double>(node_seconds) >= target);
      CHECK(static_cast<double>(node_seconds) < target + 5400.0 * static_cast<double>(nu.hi));
      CHECK(std::is_sorted(leases.begin(), leases.end(),
                           [](const auto& a, const auto& b) { return a.arrival < b.arrival; }));
      // Mean node count within 5 % of the range's middle; the last start within 2 i of
      // the 30 days (the intervals average i).
      double nodes = 0;
      std::int64_t last_start = 0;
      for (const auto& l : leases) {
        nodes += static_cast<double>(l.nodes);
        last_start = std::max(last_start, l.start);
      }
      CHECK(nodes / static_cast<double>(leases.size()) ==
            doctest::Approx(static_cast<double>(nu.lo + nu.hi) / 2.0).epsilon(0.05));
      const auto i = 30 * 86'400 / static_cast<std::int64_t>(leases.size());
      CHECK(std::abs(last_start - (30 * 86'400 - i)) < 2 * i + 3600 * 30);
    }
  }
  SUBCASE("the same seed gives the same workload; another seed another") {
    const auto a = workload::generate_ar_injections({}, 5);
    CHECK(a == workload::generate_ar_injections({}, 5));
    CHECK_FALSE(a == workload::generate_ar_injections({}, 6));
    // [10%/2H/medium]: 0.1 x 144 x 2,590,930 / (7200 x 36.5) = 142 leases expected (the
    // published file has 141); within 10 %.
    CHECK(a.size() >= 128);
    CHECK(a.size() <= 156);
    // Pinned: a change of the algorithm shows here.
    CHECK(a[1].duration == a[1].real_duration);
  }
  SUBCASE("bad parameters") {
    CHECK_THROWS_AS((void)workload::generate_ar_injections({.rho = 0}, 1), invalid_request);
    CHECK_THROWS_AS((void)workload::generate_ar_injections({.nu = {30, 20}}, 1), invalid_request);
  }
}

}  // namespace ar_generator_test
