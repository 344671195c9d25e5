// policy/lease/vm_time_model.hpp worked by hand with the paper's values (§4.3): suspension and
// resumption at 50 MB/s, migration over a 10 MB/s network, 5 % slowdown inside a VM, 20 s of
// boot and shutdown; and the options that change them.

#include <doctest/doctest.h>

#include <cstdint>

#include <leasehold/policy/lease/vm_time_model.hpp>

namespace vm_time_model_test {

using namespace leasehold::policy::lease;
using T = std::int64_t;

namespace {

lease_terms<T> one_gb_lease(std::int64_t nodes = 1) {
  lease_terms<T> t;
  t.id = 1;
  t.nodes = nodes;
  t.per_node = {1, 1024, 0, 0};
  t.duration = 3600;
  return t;
}

}  // namespace

TEST_CASE("vm time model: suspension, resumption and migration with the paper's rates") {
  const scheduler_config<T> c;
  lease_terms<T> t = one_gb_lease();
  CHECK(suspend_time(c, t) == 21);  // 1024 MB / 50 MB/s = 20.48 s, rounded up
  CHECK(resume_time(c, t) == 21);
  CHECK(migration_time(c, t) == 103);  // 1024 MB / 10 MB/s = 102.4 s
  t.image = disk_image{"img", 600};
  CHECK(migration_time(c, t) == 163);  // (600 + 1024) MB / 10 MB/s = 162.4 s
  scheduler_config<T> fixed = c;
  fixed.suspend_time_fixed = 4;
  fixed.resume_time_fixed = 36;
  CHECK(suspend_time(fixed, t) == 4);
  CHECK(resume_time(fixed, t) == 36);
}

TEST_CASE("vm time model: work inside a VM takes 5 % longer, and back") {
  const scheduler_config<T> c;
  CHECK(time_for(c, T{1000}) == 1050);
  CHECK(time_for(c, T{10}) == 11);  // 10.5 s rounded up
  CHECK(work_of(c, T{1050}) == 1000);
  CHECK(work_of(c, T{11}) == 10);  // 10.47 s of work rounded down
  const auto outside = scheduler_config<T>::novm_sr();
  CHECK(time_for(outside, T{1000}) == 1000);
  CHECK(work_of(outside, T{1000}) == 1000);
  scheduler_config<T> fast = c;
  fast.runtime_slowdown_percent = 0;
  CHECK(time_for(fast, T{1000}) == 1000);
}

TEST_CASE("vm time model: boot and shutdown once per lease, or per VM") {
  scheduler_config<T> c;
  c.overhead_per_vm = false;
  CHECK(overhead(c, one_gb_lease(3)) == 20);
  c.overhead_per_vm = true;
  CHECK(overhead(c, one_gb_lease(3)) == 60);
  CHECK(overhead(scheduler_config<T>::novm_nosr(), one_gb_lease(3)) == 0);
}

TEST_CASE("vm time model: stretched advance reservations, rounded down or up") {
  scheduler_config<T> c;
  CHECK(reservation_time_for(c, T{10728}) == 10728);  // not stretched by default
  c.stretch_reservations = true;
  CHECK(reservation_time_for(c, T{10728}) == 11264);  // 11,264.4 rounded down
  c.stretch_rounds_up = true;
  CHECK(reservation_time_for(c, T{10728}) == 11265);  // Haizea's paper-era rounding
  CHECK(reservation_time_for(scheduler_config<T>::novm_sr().with_haizea_choices(), T{10728}) ==
        10728);  // outside VMs nothing is slowed down
}

}  // namespace vm_time_model_test
