// io::save_scheduler / load_scheduler: a lease scheduler checkpointed in the middle of a
// simulation and restored continues bit for bit: the restored run's final state and its
// metrics equal those of the run that never stopped. Corrupted checkpoints (a lease's state
// changed, an event dropped, a booking that no longer matches the table) are rejected.

#include <doctest/doctest.h>

#include <algorithm>
#include <cstdint>
#include <random>
#include <string>
#include <variant>
#include <vector>

#include <leasehold/io/lease_checkpoint.hpp>
#include <leasehold/policy/lease/lease_scheduler.hpp>
#include <leasehold/sim/metrics.hpp>

#include "io/corrupted_text.hpp"

#include "policy/lease/random_leases.hpp"

namespace lease_checkpoint_test {

using namespace leasehold;
using namespace leasehold::policy::lease;

namespace {

using T = std::int64_t;
using scheduler = lease_scheduler<>;
using table = cluster::slot_table<free_list<T, node_resources>>;

// Some best-effort leases withdrawn, a quarter of the leases with images.
std::vector<lease_terms<T>> workload(std::uint64_t seed, std::size_t count) {
  return leasehold::testing::random_leases<T>(
      seed, count, {.max_nodes = 5, .withdraw_one_in = 10, .image_one_in = 4});
}

// sim::simulate_leases as a resumable loop: inputs in (time, insertion) order, the
// scheduler's own events first when earlier. step() does one call; returns false when done.
struct driver {
  struct input {
    T at;
    const lease_terms<T>* submit;  // or a withdrawal of `id`
    std::uint64_t id;
  };
  std::vector<input> inputs;
  std::size_t next = 0;

  explicit driver(const std::vector<lease_terms<T>>& leases) {
    for (const auto& l : leases) inputs.push_back({l.submit, &l, l.id});
    for (const auto& l : leases)
      if (l.withdraw) inputs.push_back({std::max(*l.withdraw, l.submit), nullptr, l.id});
    std::ranges::stable_sort(inputs, [](const input& a, const input& b) { return a.at < b.at; });
  }

  bool step(scheduler& s) {
    const auto internal = s.next_event_time();
    if (next == inputs.size() && !internal) return false;
    if (internal && (next == inputs.size() || *internal < inputs[next].at)) {
      s.advance_to(*internal);
      return true;
    }
    const input& in = inputs[next++];
    if (in.submit != nullptr)
      (void)s.submit(*in.submit, in.at);
    else
      (void)s.withdraw(in.id, in.at);
    return true;
  }
};

scheduler make_scheduler(const scheduler_config<T>& config) {
  return scheduler(table(6, node_resources{1, 1024, 40960, 10}), config);
}

std::string error_of(const std::string& text) {
  return leasehold::testing::format_error_of([&] { (void)io::load_scheduler<scheduler>(text); });
}

using leasehold::testing::replaced;

}  // namespace

TEST_CASE("lease checkpoint: a restored scheduler resumes a simulation bit for bit") {
  auto conservative = scheduler_config<T>::vm_predeploy();
  conservative.backfill = backfilling::conservative();
  for (const auto& config :
       {scheduler_config<T>::vm_predeploy(), scheduler_config<T>::novm_nosr(), conservative}) {
    const auto leases = workload(17, 150);
    // The run that never stops.
    scheduler whole = make_scheduler(config);
    driver d1(leases);
    std::size_t steps = 0;
    while (d1.step(whole)) ++steps;
    REQUIRE(steps > 100);
    // Checkpoints at a third and two thirds of the run, each restored and continued.
    for (const std::size_t stop : {steps / 3, 2 * steps / 3}) {
      CAPTURE(stop);
      scheduler first = make_scheduler(config);
      driver d2(leases);
      for (std::size_t i = 0; i < stop; ++i) REQUIRE(d2.step(first));
      const std::string checkpoint = io::save_scheduler(first);
      scheduler restored = io::load_scheduler<scheduler>(checkpoint);
      CHECK(io::save_scheduler(restored) == checkpoint);
      restored.validate();
      CHECK(restored.queue() == first.queue());
      CHECK(restored.next_event_time() == first.next_event_time());
      while (d2.step(restored)) restored.validate();
      CHECK(io::save_scheduler(restored) == io::save_scheduler(whole));
      const auto a = sim::measure(whole.leases(), 6);
      const auto b = sim::measure(restored.leases(), 6);
      CHECK(a.all_best_effort == b.all_best_effort);
      CHECK(a.mean_wait == b.mean_wait);
      CHECK(a.mean_bounded_slowdown == b.mean_bounded_slowdown);
      CHECK(a.ar_accepted == b.ar_accepted);
      CHECK(a.ar_rejected == b.ar_rejected);
      CHECK(a.suspensions == b.suspensions);
      CHECK(a.migrations == b.migrations);
      CHECK(a.best_effort_withdrawn == b.best_effort_withdrawn);
      CHECK(a.utilisation == b.utilisation);
    }
  }
}

TEST_CASE("lease checkpoint: corrupted or inconsistent checkpoints are rejected") {
  const auto leases = workload(23, 60);
  scheduler s = make_scheduler(scheduler_config<T>::vm_predeploy());
  driver d(leases);
  for (int i = 0; i < 60; ++i) REQUIRE(d.step(s));
  const std::string good = io::save_scheduler(s);
  REQUIRE(good.find("\"state\": \"running\"") != std::string::npos);
  CHECK(error_of(replaced(good, "\"state\": \"running\"", "\"state\": \"sleeping\""))
            .ends_with("unknown value \"sleeping\" (expected one of queued, scheduled, running, "
                       "done, rejected, withdrawn)"));
  // A running lease marked done still holds its booking: the state is inconsistent.
  CHECK(error_of(replaced(good, "\"state\": \"running\"", "\"state\": \"done\""))
            .starts_with("at $: inconsistent scheduler state: lease_scheduler: lease "));
  // A booking changed behind the table's back.
  const auto booked = good.find("\"booked\": [");
  REQUIRE(booked != std::string::npos);
  std::string shifted = good;
  shifted.insert(good.find(',', booked) + 2, "1");
  CHECK(error_of(shifted).find("at $") == 0);
  CHECK(error_of(replaced(good, "\"now\": ", "\"now\": 1")).starts_with("at $.now: the clock "));
  CHECK(error_of(replaced(good, "\"events\": [", "\"events\": [[999999, 0, 424242],"))
            .starts_with("at $.events[0][2]: unknown lease 424242"));
  CHECK(error_of(replaced(good, "\"version\": 2", "\"version\": 0")) ==
        "at $.version: unsupported checkpoint version 0 (this build reads versions 1 to 2)");
  for (std::size_t n = 0; n < good.size(); n += 97) {
    CAPTURE(n);
    CHECK(leasehold::testing::refused_as_corrupt(error_of(good.substr(0, n))));
  }
}

TEST_CASE("lease checkpoint: finished leases not yet taken are saved with the live ones") {
  auto config = scheduler_config<T>::vm_predeploy();
  config.retire_finished = true;
  const auto leases = workload(29, 80);
  scheduler s = make_scheduler(config);
  driver d(leases);
  for (int i = 0; i < 80; ++i) REQUIRE(d.step(s));
  REQUIRE(s.finished_count() > 0);
  const std::string checkpoint = io::save_scheduler(s);
  CHECK(checkpoint.find("\"finished\": [") != std::string::npos);
  scheduler restored = io::load_scheduler<scheduler>(checkpoint);
  CHECK(io::save_scheduler(restored) == checkpoint);
  CHECK(restored.take_finished() == s.take_finished());
  // Without them the member is left out, as checkpoints of earlier versions have it.
  CHECK(io::save_scheduler(restored).find("\"finished\"") == std::string::npos);
}

}  // namespace lease_checkpoint_test
