// The service loop of docs/leases.md ("Embedding the scheduler in a service"), compiled and
// run: keep this file and the snippet in the doc identical between the markers.

#include <doctest/doctest.h>

#include <cstdint>
#include <deque>
#include <span>
#include <vector>

#include <leasehold/policy/lease/lease_scheduler.hpp>

namespace embedding_example_test {

namespace {

// --- begin docs/leases.md snippet ---
namespace lease = leasehold::policy::lease;
using T = std::int64_t;

// The execution manager hears what to enact: start VMs, stop them.
struct enactor : lease::lease_observer<T> {
  std::vector<std::uint64_t> started, stopped;
  void on_ready(std::uint64_t id, T, std::span<const std::size_t>) override {
    started.push_back(id);
  }
  void on_ended(std::uint64_t id, T) override { stopped.push_back(id); }
};

struct arrival {
  T at;
  lease::lease_terms<T> terms;
};

// One service: requests arrive in `inbox` (in time order); finished leases go to `archive`.
void serve(std::deque<arrival> inbox, std::vector<lease::lease_record<T>>& archive,
           enactor& manager) {
  auto config = lease::scheduler_config<T>::novm_nosr();
  config.retire_finished = true;  // memory follows the live leases, not the history
  lease::lease_scheduler<> scheduler(
      leasehold::cluster::slot_table<leasehold::free_list<T, lease::node_resources>>(
          4, lease::node_resources{1, 1024, 10'000, 10}),
      config);
  scheduler.set_observer(&manager);
  while (true) {
    const std::optional<T> wake = scheduler.next_event_time();  // the scheduler's own timer
    if (inbox.empty() && !wake) break;
    if (!inbox.empty() && (!wake || inbox.front().at <= *wake)) {
      (void)scheduler.submit(inbox.front().terms, inbox.front().at);
      inbox.pop_front();
    } else {
      scheduler.advance_to(*wake);  // a real service sleeps until then (or a new request)
    }
    for (auto& finished : scheduler.take_finished()) archive.push_back(std::move(finished));
  }
}
// --- end docs/leases.md snippet ---

lease::lease_terms<T> best_effort(std::uint64_t id, T submit, std::int64_t nodes, T duration) {
  lease::lease_terms<T> t;
  t.id = id;
  t.submit = submit;
  t.nodes = nodes;
  t.duration = duration;
  return t;
}

}  // namespace

TEST_CASE("docs/leases.md: the embedding service loop") {
  // Lease 1 takes 3 of the 4 nodes over [0, 100); lease 2 needs 2 nodes, so it waits until
  // 100 and runs [100, 150); lease 3 needs 1 node and fits beside lease 1 at 10: [10, 40).
  std::deque<arrival> inbox{{0, best_effort(1, 0, 3, 100)},
                            {5, best_effort(2, 5, 2, 50)},
                            {10, best_effort(3, 10, 1, 30)}};
  std::vector<lease::lease_record<T>> archive;
  enactor manager;
  serve(inbox, archive, manager);
  REQUIRE(archive.size() == 3);
  CHECK(archive[0].terms.id == 3);
  CHECK(archive[0].end == T{40});
  CHECK(archive[1].terms.id == 1);
  CHECK(archive[1].end == T{100});
  CHECK(archive[2].terms.id == 2);
  CHECK(archive[2].first_start == T{100});
  CHECK(archive[2].end == T{150});
  CHECK(manager.started == std::vector<std::uint64_t>{1, 3, 2});
  CHECK(manager.stopped == std::vector<std::uint64_t>{3, 1, 2});
}

}  // namespace embedding_example_test
