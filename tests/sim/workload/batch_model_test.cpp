// sim/workload/batch_model.hpp with a fixed seed: close to the Blue Horizon 30-day extract
// within the tolerances stated in each check.

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

namespace batch_model_test {

using namespace leasehold;

TEST_CASE("batch model: close to the Blue Horizon 30-day extract") {
  const auto log = workload::generate_batch({}, 1);
  REQUIRE(log.records.size() == 5'545);
  std::size_t short_requests = 0, small = 0, cancelled = 0, powers = 0;
  for (const auto& job : log.records) {
    short_requests += job.requested_time <= 3600;
    small += job.requested_procs <= 4;
    cancelled += job.status == swf::status_cancelled;
    powers += (job.requested_procs & (job.requested_procs - 1)) == 0;
    CHECK(job.submit >= 0);
    CHECK(job.submit < 30 * 86'400);
    CHECK(job.requested_procs >= 1);
    CHECK(job.requested_procs <= 144);
    CHECK((job.run_time == -1 || (job.run_time >= 1 && job.run_time <= job.requested_time)));
  }
  const auto share = [](std::size_t count) { return static_cast<double>(count) / 5'545.0; };
  // The extract: 66.71 % <= 1 h, 61.15 % <= 4 nodes, 7.88 % cancelled, 91.0 % powers of
  // two (the paper prints 66.85 % and 64.09 %). Tolerance: 2 percentage points.
  CHECK(std::abs(share(short_requests) - 0.6671) < 0.02);
  CHECK(std::abs(share(small) - 0.6115) < 0.02);
  CHECK(std::abs(share(cancelled) - 0.0788) < 0.02);
  CHECK(std::abs(share(powers) - 0.910) < 0.02);
  CHECK(std::is_sorted(log.records.begin(), log.records.end(),
                       [](const auto& a, const auto& b) { return a.submit < b.submit; }));
  // It reads back as SWF and converts like a real log.
  std::ostringstream out;
  swf::write(out, log);
  std::istringstream in(out.str());
  CHECK(swf::read(in).records == log.records);
  CHECK(workload::to_best_effort(log.records).size() == log.records.size());
  CHECK(workload::generate_batch({}, 1) == log);
}

}  // namespace batch_model_test
