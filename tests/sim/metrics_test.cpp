// sim::measure: the metrics of Haizea §4.4 on hand-made lease records.

#include <doctest/doctest.h>

#include <cstdint>
#include <map>

#include <leasehold/sim/metrics.hpp>

namespace metrics_test {

using namespace leasehold;
using namespace leasehold::policy::lease;

namespace {
using T = std::int64_t;

lease_record<T> done_lease(std::uint64_t id, T submit, T start, T end, T real) {
  lease_record<T> l;
  l.terms.id = id;
  l.terms.submit = submit;
  l.terms.kind = lease_kind::best_effort;
  l.terms.duration = real;
  l.terms.real_duration = real;
  l.state = lease_state::done;
  l.first_start = start;
  l.end = end;
  l.history.push_back({{0}, {start, end}, {start, end}, real, segment_outcome::completed});
  return l;
}
}  // namespace

TEST_CASE("metrics: wait, bounded slowdown with the 10 s bound, the 5 % discard") {
  std::map<std::uint64_t, lease_record<T>> leases;
  // 20 leases; lease i arrives at 10 i. The first (5 % of 20 = 1) is discarded.
  // Lease 0: waits 1000 (discarded). Leases 1..19: wait 100, run 5 s real (bounded to 10 s):
  // slowdown (100 + 5) / 10 = 10.5.
  leases.emplace(0, done_lease(0, 0, 1000, 1050, 50));
  for (std::uint64_t i = 1; i < 20; ++i) {
    const auto submit = static_cast<T>(10 * i);
    leases.emplace(i, done_lease(i, submit, submit + 100, submit + 105, 5));
  }
  lease_record<T> ar;
  ar.terms.id = 100;
  ar.terms.kind = lease_kind::advance_reservation;
  ar.state = lease_state::rejected;
  leases.emplace(100, ar);
  const auto m = sim::measure(leases, 2);
  CHECK(m.best_effort_completed == 20);
  CHECK(m.best_effort_measured == 19);
  CHECK(m.mean_wait == doctest::Approx(100.0));
  CHECK(m.mean_bounded_slowdown == doctest::Approx(10.5));
  CHECK(m.ar_rejected == 1);
  CHECK(m.ar_accepted == 0);
  // The last best-effort lease to end is lease 0, at 1050.
  CHECK(m.all_best_effort == 1050);
  CHECK(m.relative_to(1000) == doctest::Approx(0.05));
  // Busy node-seconds: 50 + 19 x 5 = 145 on 2 nodes over 1050 s.
  CHECK(m.utilisation == doctest::Approx(145.0 / 2100.0));
  CHECK_THROWS_AS((void)m.relative_to(0), invalid_request);
}

}  // namespace metrics_test
