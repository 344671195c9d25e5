// The VM time model under one configuration (detail/lease_times.hpp), on a configuration and
// a node's capacity alone. Every figure derived by hand in the comments.

#include <doctest/doctest.h>

#include <cstdint>
#include <optional>

#include <leasehold/policy/lease/detail/lease_times.hpp>

#include "policy/lease/scenarios.hpp"

namespace lease_times_test {

using namespace leasehold;
using namespace leasehold::policy::lease;
using leasehold::test::lease_scenarios::best_effort;
using leasehold::test::lease_scenarios::reservation;
using T = std::int64_t;
using times = policy::lease::detail::lease_times<T, node_resources>;

namespace {

// In VMs: 5 % slowdown, 20 s boot + shutdown; suspending 1024 MB takes 10 s, resuming 20 s,
// migrating 1024 MB at 8 MB/s 128 s.
scheduler_config<T> vm_config() {
  scheduler_config<T> c;
  c.suspend_rate_mb_s = 102.4;
  c.resume_rate_mb_s = 51.2;
  c.network_mb_s = 8.0;
  return c;
}

}  // namespace

TEST_CASE("lease_times: the VM time model under the configuration") {
  const scheduler_config<T> c = vm_config();
  const times m(c, node_resources{2, 2048, 10000, 10});
  const auto t = best_effort(1, 0, 1, 100);
  CHECK(m.suspend_time(t) == 10);
  CHECK(m.resume_time(t) == 20);
  CHECK(m.migration_time(t) == 128);
  CHECK(m.time_for(100) == 105);  // (100 x 105 + 99) / 100
  CHECK(m.work_of(105) == 100);   // 105 x 100 / 105
  CHECK(m.overhead(t) == 20);
  CHECK(m.reservation_time_for(100) == 100);  // not stretched by default
  // A reservation holds its 100 s and then its 20 s shutdown.
  CHECK(m.reservation_length(reservation(2, 0, 500, 1, 100)) == 120);
  // Suspendable, with a disk: its memory state is booked on disk too.
  CHECK(m.may_suspend(t));
  CHECK(m.booked_vector(t) == node_resources{1, 1024, 1024, 0});
  CHECK(m.transfer_vector(t) == node_resources{0, 0, 1024, 0});
  // suspend_thresholds_per_state: 2 x (20 + 0 + 10) afresh; resuming with migration allowed
  // 2 x (128 + 2 x 10).
  CHECK(m.suspend_threshold(t, false, 0) == 60);
  CHECK(m.suspend_threshold(t, true, 0) == 296);
}

TEST_CASE("lease_times: a node without disk books no memory state and no transfer") {
  const scheduler_config<T> c = vm_config();
  const times m(c, node_resources{2, 2048, 0, 10});
  const auto t = best_effort(1, 0, 1, 100);
  CHECK(!m.models_disk());
  CHECK(m.booked_vector(t) == node_resources{1, 1024, 0, 0});
  CHECK(m.transfer_vector(t) == std::nullopt);
}

TEST_CASE("lease_times: settle_finish ends a segment at its real end plus the shutdown") {
  const scheduler_config<T> c = vm_config();
  const times m(c, node_resources{2, 2048, 10000, 10});
  lease_record<T, node_resources> l;
  l.terms = best_effort(1, 0, 1, 100, 40);
  l.remaining_max = 100;
  l.remaining_real = 40;
  // Booked [0, 125): run [0, 105) and the shutdown. Its real 40 s take 42 s in a VM, so it ends
  // at 42 + 20 = 62 and completes.
  segment<T, node_resources> seg;
  seg.booked = {0, 125};
  seg.run = {0, 105};
  m.settle_finish(l, seg);
  CHECK(seg.completes);
  CHECK(seg.finish == 62);
  // Cut short to suspend at 30 (run [0, 30)): its work does not end in it.
  seg.booked = {0, 40};
  seg.run = {0, 30};
  seg.suspends = true;
  m.settle_finish(l, seg);
  CHECK(!seg.completes);
  CHECK(seg.finish == 40);
}

}  // namespace lease_times_test
