// lease_scheduler::export_state / import_state (scheduler_state.hpp): the scheduler's state as
// plain values. A scheduler rebuilt from its exported state in the middle of a run continues
// exactly as the original (same records, same queue, same events); a state that contradicts
// itself or its slot table is refused with an invalid_request naming what is wrong.

#include <doctest/doctest.h>

#include <cstdint>
#include <string>
#include <vector>

#include <leasehold/policy/lease/lease_scheduler.hpp>

#include "policy/lease/random_leases.hpp"

namespace scheduler_state_test {

using namespace leasehold;
using namespace leasehold::policy::lease;

namespace {

using T = std::int64_t;
using scheduler = lease_scheduler<>;
using table = cluster::slot_table<free_list<T, node_resources>>;

table make_table() { return table(6, node_resources{1, 1024, 40960, 10}); }

std::string error_of(scheduler::state_type state) {
  try {
    (void)scheduler::import_state(std::move(state));
  } catch (const invalid_request& e) {
    return e.what();
  }
  return "no error";
}

// The first lease in `state` whose state is `wanted`, or nullptr.
scheduler::record_type* first_in(scheduler::state_type& state, lease_state wanted) {
  for (auto& l : state.leases)
    if (l.state == wanted) return &l;
  return nullptr;
}

}  // namespace

TEST_CASE("scheduler state: a scheduler rebuilt from its exported state continues identically") {
  for (auto config : {scheduler_config<T>::vm_predeploy(), scheduler_config<T>::novm_nosr(),
                      scheduler_config<T>::vm_predeploy().with_haizea_choices(),
                      scheduler_config<T>::vm_predeploy().with_haizea(haizea_preset::hpdc08)}) {
    config.retire_finished = true;
    const auto leases =
        leasehold::testing::random_leases<T>(31, 200, {.max_nodes = 5, .min_duration = 200});
    scheduler original(make_table(), config);
    const std::size_t half = leases.size() / 2;
    for (std::size_t i = 0; i < half; ++i) (void)original.submit(leases[i], leases[i].submit);

    const scheduler::state_type exported = original.export_state();
    CHECK(exported.now == original.now());
    CHECK(exported.leases.size() == original.leases().size());
    CHECK(exported.finished.size() == original.finished_count());
    REQUIRE(!exported.finished.empty());  // retired, not yet taken: they travel too
    scheduler restored = scheduler::import_state(exported);
    restored.validate();
    CHECK(restored.queue() == original.queue());
    CHECK(restored.next_event_time() == original.next_event_time());

    for (std::size_t i = half; i < leases.size(); ++i) {
      const auto a = original.submit(leases[i], leases[i].submit);
      const auto b = restored.submit(leases[i], leases[i].submit);
      CHECK(a.outcome == b.outcome);
    }
    while (const auto next = original.next_event_time()) {
      original.advance_to(*next);
      restored.advance_to(*next);
    }
    CHECK(!restored.next_event_time());
    const auto finished_a = original.take_finished();
    const auto finished_b = restored.take_finished();
    CHECK(finished_a.size() == leases.size());
    CHECK(finished_a == finished_b);
  }
}

TEST_CASE("scheduler state: inconsistent states are refused, naming the problem") {
  const auto leases = leasehold::testing::random_leases<T>(5, 60, {.max_nodes = 5});
  scheduler s(make_table(), scheduler_config<T>::vm_predeploy());
  for (std::size_t i = 0; i < 40; ++i) (void)s.submit(leases[i], leases[i].submit);
  const scheduler::state_type good = s.export_state();
  REQUIRE(error_of(good) == "no error");

  auto state = good;
  state.now += 1;
  CHECK(error_of(state).starts_with("scheduler state: the clock "));

  state = good;
  state.leases.push_back(state.leases.front());
  CHECK(error_of(state) == "scheduler state: lease " +
                               std::to_string(good.leases.front().terms.id) + " appears twice");

  state = good;
  auto* queued = first_in(state, lease_state::queued);
  REQUIRE(queued != nullptr);
  state.reserved.push_back(queued->terms.id);
  CHECK(error_of(state) == "scheduler state: lease " + std::to_string(queued->terms.id) +
                               " holds a reservation but is not a scheduled best-effort lease");

  state = good;
  auto* running = first_in(state, lease_state::running);
  REQUIRE(running != nullptr);
  running->current->nodes.back() = 99;
  CHECK(error_of(state).starts_with("scheduler state: lease " + std::to_string(running->terms.id) +
                                    ": current.nodes names "));
  CHECK(error_of(state).ends_with(" distinct nodes of the 6 in increasing order"));

  // A running lease marked done still holds its booking in the table.
  state = good;
  running = first_in(state, lease_state::running);
  running->state = lease_state::done;
  CHECK(error_of(state) == "scheduler state: lease " + std::to_string(running->terms.id) +
                               ": it is done but has a segment");

  // A booking the table does not hold.
  state = good;
  running = first_in(state, lease_state::running);
  running->current->per_node[0] += 1;
  CHECK(error_of(state).starts_with("scheduler state: lease " + std::to_string(running->terms.id) +
                                    ": its segment books "));
  // A segment moved as a whole, consistent in itself, but not what the table holds.
  state = good;
  auto* scheduled = first_in(state, lease_state::scheduled);
  REQUIRE(scheduled != nullptr);
  REQUIRE(scheduled->is_best_effort());
  for (T* t :
       {&scheduled->current->booked.begin, &scheduled->current->booked.end,
        &scheduled->current->run.begin, &scheduled->current->run.end, &scheduled->current->finish})
    *t += 1;
  CHECK(error_of(state).starts_with("inconsistent scheduler state: lease_scheduler: node "));

  // An event before the clock.
  state = good;
  running = first_in(state, lease_state::running);
  running->current->finish = state.now - 1;
  CHECK(error_of(state).starts_with("scheduler state: lease " + std::to_string(running->terms.id) +
                                    ": its segment finishes at "));

  // A record submit() would have refused: which record, which member.
  state = good;
  auto* waiting = first_in(state, lease_state::queued);
  REQUIRE(waiting != nullptr);
  waiting->terms.per_node[cpu] = 2;
  const auto index = static_cast<std::size_t>(waiting - state.leases.data());
  try {
    (void)scheduler::import_state(state);
    FAIL("imported a lease wider than a node");
  } catch (const invalid_lease_record& e) {
    CHECK(std::string(e.field()) == "terms.per_node");
    CHECK(!e.finished());
    CHECK(e.index() == index);
    CHECK(std::string(e.what()).starts_with("scheduler state: lease " +
                                            std::to_string(waiting->terms.id) +
                                            " (best-effort): "
                                            "per-node resources "));
  }

  // The config is checked as the constructor checks it.
  state = good;
  state.config.network_mb_s = 0;
  CHECK(error_of(state).starts_with("scheduler_config: rates must be positive"));
}

}  // namespace scheduler_state_test
