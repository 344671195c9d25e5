// policy::lease::lease_scheduler over a resource vector that is not Haizea's: five components
// (CPUs, GPUs, memory MB, disk MB, network MB/s), with resource_layout naming memory and disk
// so that suspension, resume and the memory-state disk booking still find them (§3.1-3.2).
// Expected schedules derived in the comments.

#include <doctest/doctest.h>

#include <cstdint>
#include <string>
#include <vector>

#include <leasehold/io/lease_checkpoint.hpp>
#include <leasehold/policy/lease/lease_scheduler.hpp>

namespace resource_vector_test {

using namespace leasehold;
using namespace leasehold::policy::lease;

namespace {

using T = std::int64_t;
using gpu_node = resources<5, std::int64_t>;
// The user's names for the components.
enum component : std::size_t { cpus = 0, gpus = 1, memory = 2, disk = 3, network = 4 };
using backend = free_list<T, gpu_node>;
using gpu_table = cluster::slot_table<backend>;
using gpu_scheduler = lease_scheduler<backend>;

scheduler_config<T> gpu_config(suspension s) {
  scheduler_config<T> c;
  c.suspend = s;
  c.migrate = migration::none;
  c.in_vms = false;
  c.suspend_rate_mb_s = 102.4;  // 1024 MB suspend in 10 s
  c.resume_rate_mb_s = 51.2;    // and resume in 20 s
  c.layout = {.memory = memory, .disk = disk};
  return c;
}

lease_terms<T, gpu_node> job(std::uint64_t id, T submit, gpu_node per_node, T duration) {
  lease_terms<T, gpu_node> t;
  t.id = id;
  t.submit = submit;
  t.kind = lease_kind::best_effort;
  t.per_node = per_node;
  t.duration = duration;
  t.real_duration = duration;
  return t;
}

void run_to_end(gpu_scheduler& s) {
  while (s.next_event_time()) {
    s.advance_to(*s.next_event_time());
    s.validate();
  }
}

std::vector<std::size_t> nodes_of(const gpu_scheduler& s, std::uint64_t id) {
  return s.lease(id).history.at(0).nodes;
}

}  // namespace

TEST_CASE("resource vector: GPUs are a capacity like any other") {
  // Two nodes of {4 CPUs, 2 GPUs, 8192 MB, 100000 MB, 100}. L1, L2, L3 each want both GPUs
  // of a node for 100 s; L4 wants CPUs only. L1 takes node 0 and L2 node 1 at 0; L3 waits
  // for GPUs and holds the reservation on node 0 from 100; L4 fits beside L1 on node 0 now.
  gpu_scheduler s(gpu_table(2, gpu_node{4, 2, 8192, 100000, 100}), gpu_config(suspension::none));
  const gpu_node two_gpus{1, 2, 1024, 0, 0};
  for (std::uint64_t id = 1; id <= 3; ++id) (void)s.submit(job(id, 0, two_gpus, 100), 0);
  (void)s.submit(job(4, 0, gpu_node{2, 0, 1024, 0, 0}, 100), 0);
  s.validate();
  CHECK(s.lease(3).state == lease_state::scheduled);
  CHECK(s.lease(4).state == lease_state::running);
  run_to_end(s);
  CHECK(nodes_of(s, 1) == std::vector<std::size_t>{0});
  CHECK(nodes_of(s, 2) == std::vector<std::size_t>{1});
  CHECK(nodes_of(s, 4) == std::vector<std::size_t>{0});
  CHECK(s.lease(3).history.at(0).span == interval<T>{100, 200});
  CHECK(nodes_of(s, 3) == std::vector<std::size_t>{0});
}

TEST_CASE("resource vector: suspension reads memory and books disk where the layout says") {
  // One node of {4, 2, 8192, 100000, 100}. X wants both GPUs for 1000 s and runs from 0; its
  // booking holds 1024 MB more disk (component 3) for its memory state (component 2). An AR
  // for one GPU over [500, 600) suspends it: 1024 MB at 102.4 MB/s is 10 s, so X runs
  // [0, 490) and suspends [490, 500); it resumes at 600 (20 s) and runs [620, 1130).
  gpu_scheduler s(gpu_table(1, gpu_node{4, 2, 8192, 100000, 100}), gpu_config(suspension::all));
  (void)s.submit(job(1, 0, gpu_node{1, 2, 1024, 0, 0}, 1000), 0);
  REQUIRE(s.lease(1).current.has_value());
  CHECK(s.lease(1).current->per_node == gpu_node{1, 2, 1024, 1024, 0});
  auto ar = job(2, 100, gpu_node{1, 1, 1024, 0, 0}, 100);
  ar.kind = lease_kind::advance_reservation;
  ar.start = 500;
  ar.preemptible = false;
  CHECK(s.submit(ar, 100).outcome == admission::accepted);
  run_to_end(s);
  const auto& x = s.lease(1).history;
  REQUIRE(x.size() == 2);
  CHECK(x[0].span == interval<T>{0, 500});
  CHECK(x[0].run == interval<T>{0, 490});
  CHECK(x[1].span == interval<T>{600, 1130});
  CHECK(x[1].run == interval<T>{620, 1130});
  CHECK(s.lease(2).history.at(0).span == interval<T>{500, 600});
}

TEST_CASE("resource vector: a node too small for the memory-state file rejects the lease") {
  // 1024 MB of memory state does not fit a 512 MB disk (component 3) once the lease may be
  // suspended; without suspension it does.
  gpu_scheduler suspending(gpu_table(1, gpu_node{4, 2, 8192, 512, 100}),
                           gpu_config(suspension::all));
  CHECK_THROWS_WITH_AS(suspending.submit(job(1, 0, gpu_node{1, 1, 1024, 0, 0}, 100), 0),
                       "lease 1 (best-effort): per-node resources {1, 1, 1024, 1024, 0} exceed a "
                       "node's {4, 2, 8192, 512, 100}",
                       invalid_lease);
  CHECK(suspending.leases().empty());
  gpu_scheduler plain(gpu_table(1, gpu_node{4, 2, 8192, 512, 100}), gpu_config(suspension::none));
  CHECK(plain.submit(job(1, 0, gpu_node{1, 1, 1024, 0, 0}, 100), 0).outcome == admission::queued);
  CHECK(plain.lease(1).state == lease_state::running);
}

TEST_CASE("resource vector: a layout outside the vector is refused") {
  auto c = gpu_config(suspension::all);
  c.layout.memory = 7;
  CHECK_THROWS_WITH_AS(gpu_scheduler(gpu_table(1, gpu_node{4, 2, 8192, 512, 100}), c),
                       "scheduler_config: layout.memory is component 7 but the resource vector "
                       "has 5",
                       invalid_request);
  c = gpu_config(suspension::all);
  c.layout.disk = 5;
  CHECK_THROWS_WITH_AS(gpu_scheduler(gpu_table(1, gpu_node{4, 2, 8192, 512, 100}), c),
                       "scheduler_config: layout.disk is component 5 but the resource vector has 5",
                       invalid_request);
  // No disk component: nothing is booked for the memory state.
  c = gpu_config(suspension::all);
  c.layout.disk = std::nullopt;
  gpu_scheduler no_disk(gpu_table(1, gpu_node{4, 2, 8192, 512, 100}), c);
  (void)no_disk.submit(job(1, 0, gpu_node{1, 1, 1024, 0, 0}, 100), 0);
  CHECK(no_disk.lease(1).current->per_node == gpu_node{1, 1, 1024, 0, 0});
}

TEST_CASE("resource vector: a checkpoint round-trips the vector and the layout") {
  gpu_scheduler s(gpu_table(2, gpu_node{4, 2, 8192, 100000, 100}), gpu_config(suspension::all));
  const gpu_node two_gpus{1, 2, 1024, 0, 0};
  for (std::uint64_t id = 1; id <= 3; ++id) (void)s.submit(job(id, 0, two_gpus, 100), 0);
  const std::string saved = io::save_scheduler(s);
  CHECK(saved.find("\"layout\"") != std::string::npos);
  gpu_scheduler restored = io::load_scheduler<gpu_scheduler>(saved);
  CHECK(io::save_scheduler(restored) == saved);
  CHECK(restored.config().layout == resource_layout{memory, disk});
  run_to_end(restored);
  CHECK(restored.lease(3).history.at(0).span == interval<T>{100, 200});
}

}  // namespace resource_vector_test
