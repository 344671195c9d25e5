// sim::simulate_leases driving the lease scheduler on random workloads, with the invariants of
// Haizea's model checked after every step: the slot table matches the bookings (no node is
// over-committed), every accepted AR starts exactly at its start, every best-effort lease
// receives exactly its real duration of work (run time = work x slowdown), observer events
// come in time order, and two runs of the same input are identical.

#include <doctest/doctest.h>

#include <cstdint>
#include <random>
#include <span>
#include <string_view>
#include <vector>

#include <leasehold/policy/lease/lease_scheduler.hpp>
#include <leasehold/sim/lease_simulation.hpp>
#include <leasehold/sim/metrics.hpp>

#include "availability/differential.hpp"

#include "policy/lease/random_leases.hpp"

namespace lease_simulation_test {

using namespace leasehold;
using namespace leasehold::policy::lease;

namespace {

using T = std::int64_t;

struct ordered_observer : lease_observer<T> {
  T last = 0;
  std::size_t events = 0;
  std::size_t out_of_order = 0;
  void saw(T at) {
    ++events;
    if (at < last) ++out_of_order;
    last = at;
  }
  void on_ready(std::uint64_t, T at, std::span<const std::size_t>) override { saw(at); }
  void on_suspended(std::uint64_t, T at) override { saw(at); }
  void on_resumed(std::uint64_t, T at, std::span<const std::size_t>) override { saw(at); }
  void on_ended(std::uint64_t, T at) override { saw(at); }
  void on_rejected(std::uint64_t, T at, std::string_view) override { saw(at); }
  void on_requeued(std::uint64_t, T at) override { saw(at); }
};

std::vector<lease_terms<T>> random_workload(std::uint64_t seed, std::size_t count,
                                            std::int64_t nodes) {
  return leasehold::testing::random_leases<T>(seed, count, {.max_nodes = nodes});
}

template <class Scheduler>
void check_run(Scheduler& s, const std::vector<lease_terms<T>>& leases) {
  ordered_observer observer;
  s.set_observer(&observer);
  std::size_t violations = 0;
  sim::simulate_leases(s, leases, {}, [&](T) {
    try {
      s.validate();
    } catch (const invariant_violation& e) {
      if (violations++ == 0) FAIL_CHECK(e.what());
    }
    for (const auto& [id, l] : s.leases())
      if (l.terms.kind == lease_kind::advance_reservation && l.first_start &&
          *l.first_start != *l.terms.start) {
        if (violations++ == 0) FAIL_CHECK("AR " << id << " began at " << *l.first_start);
      }
  });
  CHECK(violations == 0);
  CHECK(observer.out_of_order == 0);
  CHECK(observer.events > 0);
  for (const auto& [id, l] : s.leases()) {
    CAPTURE(id);
    if (l.state == lease_state::rejected) continue;
    REQUIRE(l.state == lease_state::done);
    if (l.terms.kind == lease_kind::advance_reservation) {
      CHECK(l.history.size() == 1);
      CHECK(l.history.front().span.begin == *l.terms.start);
      continue;
    }
    CHECK(l.work_done() == l.terms.real_duration);
    for (const auto& seg : l.history) {
      const T run = seg.run.end - seg.run.begin;
      if (seg.outcome == segment_outcome::completed) CHECK(run == s.time_for(seg.work));
      if (seg.outcome == segment_outcome::suspended) CHECK(seg.work == s.work_of(run));
    }
  }
}

}  // namespace

TEST_CASE("lease simulation: invariants hold on random workloads in every configuration") {
  const std::size_t count = leasehold::testing::random_ops_per_seed(100);
  struct named {
    const char* name;
    scheduler_config<T> config;
  };
  std::vector<named> configs{{"NOVM-NOSR", scheduler_config<T>::novm_nosr()},
                             {"NOVM-SR", scheduler_config<T>::novm_sr()},
                             {"VM-PREDEPLOY", scheduler_config<T>::vm_predeploy()}};
  auto conservative = scheduler_config<T>::vm_predeploy();
  conservative.backfill = backfilling::conservative();
  conservative.migrate = migration::none;
  configs.push_back({"VM conservative, no migration", conservative});
  auto strict = scheduler_config<T>::novm_sr();
  strict.backfill = backfilling::off();
  configs.push_back({"NOVM-SR, no backfilling", strict});
  for (const auto& [name, config] : configs) {
    for (std::uint64_t seed : {11u, 12u}) {
      CAPTURE(name);
      CAPTURE(seed);
      const auto leases = random_workload(seed, count, 6);
      lease_scheduler<> s(
          cluster::slot_table<free_list<T, node_resources>>(6, node_resources{1, 1024, 40960, 10}),
          config);
      check_run(s, leases);
    }
  }
}

TEST_CASE("lease simulation: the same input gives the same run, bit for bit") {
  const auto leases = random_workload(5, 200, 8);
  auto once = [&] {
    lease_scheduler<> s(
        cluster::slot_table<free_list<T, node_resources>>(8, node_resources{1, 1024, 40960, 10}),
        scheduler_config<T>::vm_predeploy());
    sim::simulate_leases(s, leases);
    std::vector<std::tuple<std::uint64_t, T, T, std::size_t>> trace;
    for (const auto& [id, l] : s.leases())
      for (const auto& seg : l.history)
        trace.emplace_back(id, seg.span.begin, seg.span.end, seg.nodes.front());
    return std::pair{trace, sim::measure(s.leases(), 8).all_best_effort};
  };
  CHECK(once() == once());
}

TEST_CASE("lease simulation: withdrawn leases never run") {
  lease_scheduler<> s(
      cluster::slot_table<free_list<T, node_resources>>(2, node_resources{1, 1024, 40960, 10}),
      scheduler_config<T>::novm_nosr());
  lease_terms<T> a;
  a.id = 1;
  a.nodes = 2;
  a.duration = 100;
  a.real_duration = 100;
  lease_terms<T> b = a;
  b.id = 2;
  b.submit = 10;
  // b waits behind a and is withdrawn at 50; a withdrawal of a (already running) is ignored.
  const auto stats = sim::simulate_leases(s, {a, b}, {{2, 50}, {1, 60}});
  CHECK(stats.withdrawn == 1);
  CHECK(s.lease(2).state == lease_state::withdrawn);
  CHECK(s.lease(2).history.empty());
  CHECK(*s.lease(1).end == 100);
  const auto m = sim::measure(s.leases(), 2);
  CHECK(m.best_effort_withdrawn == 1);
  CHECK(m.all_best_effort == 100);
}

}  // namespace lease_simulation_test
