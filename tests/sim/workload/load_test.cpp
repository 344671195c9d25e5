// sim/workload/load.hpp: load scaling compresses submissions and keeps notices.

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

namespace load_test {

using namespace leasehold;

TEST_CASE("load scaling compresses submissions and keeps notices") {
  std::vector<lease_terms<>> leases(3);
  leases[0].submit = 100;
  leases[1].submit = 400;
  leases[1].start = 400 + 86'400;
  leases[2].submit = 700;
  leases[2].withdraw = 750;
  workload::scale_load(leases, 1.5);
  CHECK(leases[0].submit == 100);
  CHECK(leases[1].submit == 300);
  CHECK(leases[1].start == 300 + 86'400);
  CHECK(leases[2].submit == 500);
  CHECK(leases[2].withdraw == 550);
  CHECK_THROWS_AS(workload::scale_load(leases, 0.0), invalid_request);

  auto log = workload::generate_batch({.jobs = 100}, 4);
  const auto last = log.records.back().submit - log.records.front().submit;
  workload::scale_load(log, 2.0);
  CHECK(log.records.back().submit - log.records.front().submit == (last + 1) / 2);
}

}  // namespace load_test
