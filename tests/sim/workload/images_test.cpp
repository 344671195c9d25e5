// sim/workload/images.hpp: the paper's image lists (single, uniform over 37, skewed).

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

namespace images_test {

using namespace leasehold;

TEST_CASE("images: single, uniform over 37, skewed 7 x 10 % + 30 x 1 %") {
  std::vector<lease_terms<>> leases(20'000);
  SUBCASE("single") {
    workload::assign_images(leases, {}, 3);
    for (const auto& l : leases) CHECK(l.image == disk_image{"image-0", 4096});
  }
  SUBCASE("uniform: each of 37 within 15 % of 1/37") {
    workload::assign_images(leases, {.popularity = workload::image_popularity::uniform}, 3);
    std::map<std::string, int> counts;
    for (const auto& l : leases) ++counts[l.image->id];
    CHECK(counts.size() == 37);
    for (const auto& [id, count] : counts)
      CHECK(count == doctest::Approx(20'000 / 37.0).epsilon(0.15));
  }
  SUBCASE("skewed: the 7 popular images hold 70 % (within 1.5 points), each rare one about 1 %") {
    workload::assign_images(leases, {.popularity = workload::image_popularity::skewed}, 3);
    std::map<int, int> counts;
    for (const auto& l : leases) ++counts[std::stoi(l.image->id.substr(6))];
    int popular = 0;
    for (int i = 0; i < 7; ++i) popular += counts[i];
    CHECK(popular / 20'000.0 == doctest::Approx(0.70).epsilon(0.02));
    for (int i = 7; i < 37; ++i) CHECK(counts[i] / 20'000.0 == doctest::Approx(0.01).epsilon(0.3));
  }
  SUBCASE("bad assignments") {
    CHECK_THROWS_AS(
        workload::assign_images(leases, {.popularity = workload::image_popularity::weighted}, 1),
        invalid_request);
    CHECK_THROWS_AS(workload::assign_images(leases, {.size_mb = 0}, 1), invalid_request);
  }
}

}  // namespace images_test
