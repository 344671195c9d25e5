// scheduler_config::retire_finished: finished leases (done, rejected, withdrawn) leave the
// scheduler when the call that finished them returns, and take_finished() hands each out once.

#include <doctest/doctest.h>

#include <cstdint>
#include <string>
#include <vector>

#include <leasehold/policy/lease/lease_scheduler.hpp>
#include <leasehold/sim/lease_simulation.hpp>
#include <leasehold/sim/metrics.hpp>

namespace lease_retirement_test {

using namespace leasehold;
using namespace leasehold::policy::lease;

namespace {

using T = std::int64_t;

lease_scheduler<> make(bool guarantee) {
  auto config = scheduler_config<T>::novm_nosr();
  config.retire_finished = true;
  config.strong_guarantee = guarantee;
  return lease_scheduler<>(
      cluster::slot_table<free_list<T, node_resources>>(2, node_resources{1, 1024, 10000, 10}),
      config);
}

lease_terms<T> terms(std::uint64_t id, T submit, lease_kind kind, std::int64_t nodes, T duration) {
  lease_terms<T> t;
  t.id = id;
  t.submit = submit;
  t.kind = kind;
  t.nodes = nodes;
  t.duration = duration;
  t.preemptible = kind == lease_kind::best_effort;
  return t;
}

std::vector<std::uint64_t> ids(const std::vector<lease_record<T>>& records) {
  std::vector<std::uint64_t> result;
  for (const auto& r : records) result.push_back(r.terms.id);
  return result;
}

}  // namespace

TEST_CASE("lease_scheduler: finished leases are handed out once and forgotten") {
  for (const bool guarantee : {true, false}) {
    CAPTURE(guarantee);
    auto s = make(guarantee);
    // Lease 1 runs on one node over [0, 100).
    CHECK(s.submit(terms(1, 0, lease_kind::best_effort, 1, 100), 0).outcome == admission::queued);
    CHECK(s.lease(1).state == lease_state::running);
    CHECK(s.take_finished().empty());

    // An immediate lease for both nodes at 10: only one is free, so it is rejected.
    CHECK(s.submit(terms(2, 10, lease_kind::immediate, 2, 50), 10).outcome == admission::rejected);
    CHECK(s.finished_count() == 1);
    auto finished = s.take_finished();
    REQUIRE(ids(finished) == std::vector<std::uint64_t>{2});
    CHECK(finished[0].state == lease_state::rejected);
    CHECK(!finished[0].rejection.empty());
    CHECK(s.take_finished().empty());  // once only
    CHECK(s.leases().size() == 1);
    CHECK_THROWS_AS((void)s.lease(2), invalid_lease);
    try {
      (void)s.lease(2);
    } catch (const error& e) {
      CHECK(std::string(e.what()).find("lease 2: unknown lease") != std::string::npos);
      CHECK(std::string(e.what()).find("take_finished") != std::string::npos);
    }
    CHECK_THROWS_AS(s.release(2, 10), invalid_lease);

    // Lease 3 needs both nodes: it waits for lease 1, and its user withdraws it at 30.
    (void)s.submit(terms(3, 20, lease_kind::best_effort, 2, 40), 20);
    CHECK(s.lease(3).state == lease_state::scheduled);
    CHECK(s.withdraw(3, 30));
    finished = s.take_finished();
    REQUIRE(ids(finished) == std::vector<std::uint64_t>{3});
    CHECK(finished[0].state == lease_state::withdrawn);
    CHECK(finished[0].end == T{30});
    CHECK_THROWS_AS((void)s.withdraw(3, 30), invalid_lease);

    // Lease 1 ends at 100 on its own.
    s.advance_to(150);
    finished = s.take_finished();
    REQUIRE(ids(finished) == std::vector<std::uint64_t>{1});
    CHECK(finished[0].state == lease_state::done);
    CHECK(finished[0].first_start == T{0});
    CHECK(finished[0].end == T{100});
    CHECK(s.leases().empty());
    CHECK(!s.next_event_time());

    // An embedding service releases lease 4 at 250, before its maximum duration.
    (void)s.submit(terms(4, 200, lease_kind::best_effort, 2, 500), 200);
    s.release(4, 250);
    finished = s.take_finished();
    REQUIRE(ids(finished) == std::vector<std::uint64_t>{4});
    CHECK(finished[0].end == T{250});
    CHECK(finished[0].history.size() == 1);
    CHECK(s.leases().empty());
    s.validate();
    // Nothing is booked any more: both nodes are free from now on.
    CHECK(s.table().nodes_free({250, 10'000}, node_resources{1, 1024, 0, 0}).size() == 2);
  }
}

TEST_CASE("lease_scheduler: without retire_finished every record stays") {
  auto config = scheduler_config<T>::novm_nosr();
  lease_scheduler<> s(
      cluster::slot_table<free_list<T, node_resources>>(2, node_resources{1, 1024, 10000, 10}),
      config);
  (void)s.submit(terms(1, 0, lease_kind::best_effort, 1, 100), 0);
  s.advance_to(200);
  CHECK(s.lease(1).state == lease_state::done);
  CHECK(s.take_finished().empty());
  CHECK(s.finished_count() == 0);
}

TEST_CASE("lease_scheduler: metrics taken as leases retire equal metrics taken at the end") {
  // 40 leases on 2 nodes (a queue builds up), one withdrawn while waiting, one immediate
  // lease rejected.
  std::vector<lease_terms<T>> leases;
  for (std::uint64_t i = 1; i <= 40; ++i) {
    auto t = terms(i, static_cast<T>(i * 30), lease_kind::best_effort,
                   1 + static_cast<std::int64_t>(i % 2), static_cast<T>(50 + (i * 37) % 200));
    t.real_duration = t.duration - static_cast<T>(i % 7);
    if (i == 9) t.withdraw = T{300};
    leases.push_back(t);
  }
  leases.push_back(terms(41, 100, lease_kind::immediate, 2, 60));

  lease_scheduler<> keep(
      cluster::slot_table<free_list<T, node_resources>>(2, node_resources{1, 1024, 10000, 10}),
      scheduler_config<T>::novm_nosr());
  (void)sim::simulate_leases(keep, leases);
  const auto at_end = sim::measure(keep.leases(), 2);

  lease_scheduler<> retire = make(true);
  sim::lease_metrics_accumulator<T> streamed;
  std::size_t taken = 0;
  (void)sim::simulate_leases(retire, leases, {}, [&](T) {
    for (const auto& l : retire.take_finished()) {
      streamed.add(l);
      ++taken;
    }
  });
  CHECK(taken == leases.size());
  CHECK(retire.leases().empty());
  const auto m = streamed.result(2);
  CHECK(m.best_effort_completed == 39);
  CHECK(m.best_effort_completed == at_end.best_effort_completed);
  CHECK(m.best_effort_withdrawn == 1);
  CHECK(at_end.best_effort_withdrawn == 1);
  CHECK(m.all_best_effort == at_end.all_best_effort);
  CHECK(m.mean_wait == at_end.mean_wait);
  CHECK(m.mean_bounded_slowdown == at_end.mean_bounded_slowdown);
  CHECK(m.utilisation == at_end.utilisation);
}

}  // namespace lease_retirement_test
