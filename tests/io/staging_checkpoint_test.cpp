// io/staging_checkpoint.hpp through the lease checkpoint: a scheduler with image staging,
// checkpointed in the middle of a run, restores its staging step from the checkpoint (caches,
// transfers, link, holds, counts) and continues exactly as the run that never stopped.
// Corrupted staging state is rejected with the place it is wrong.

#include <doctest/doctest.h>

#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

#include <leasehold/io/lease_checkpoint.hpp>
#include <leasehold/policy/lease/lease_scheduler.hpp>
#include <leasehold/policy/staging/image_staging.hpp>

#include "io/corrupted_text.hpp"

#include "policy/lease/random_leases.hpp"

namespace staging_checkpoint_test {

using namespace leasehold;
using namespace leasehold::policy::lease;
using namespace leasehold::policy::staging;

namespace {

using T = std::int64_t;
using staged = lease_scheduler<free_list<T, node_resources>, image_staging<>>;
using table = cluster::slot_table<free_list<T, node_resources>>;

staged make_scheduler(staging_config sc) {
  sc.bandwidth_mb_s = 10.0;
  sc.cache_mb = 1500;  // two 600 MB images per node: eviction happens
  image_staging<> staging(5, sc);
  for (int i = 0; i < 3; ++i) staging.add_image({"img-" + std::to_string(i), 600});
  return staged(table(5, node_resources{1, 1024, 40960, 10}), scheduler_config<T>::vm_predeploy(),
                std::move(staging));
}

// Every lease needs an image; a few are advance reservations.
std::vector<lease_terms<T>> workload() {
  return leasehold::testing::random_leases<T>(
      41, 120, {.max_gap = 200, .max_nodes = 3, .min_duration = 100, .image_one_in = 1});
}

// Submits leases[from, to) in order (each at its submit time).
void submit(staged& s, const std::vector<lease_terms<T>>& leases, std::size_t from,
            std::size_t to) {
  for (std::size_t i = from; i < to; ++i) (void)s.submit(leases[i], leases[i].submit);
}

// Submits leases from `from` on until a transfer is booked and not over; returns how many
// leases have been submitted.
std::size_t submit_until_in_flight(staged& s, const std::vector<lease_terms<T>>& leases,
                                   std::size_t from) {
  std::size_t i = from;
  while (i < leases.size() && s.preparation_step().transfers().empty()) {
    (void)s.submit(leases[i], leases[i].submit);
    ++i;
  }
  REQUIRE(!s.preparation_step().transfers().empty());
  return i;
}

void finish(staged& s) {
  while (const auto next = s.next_event_time()) s.advance_to(*next);
}

std::string error_of(const std::string& text) {
  return leasehold::testing::format_error_of([&] { (void)io::load_scheduler<staged>(text); });
}

using leasehold::testing::replaced;

}  // namespace

TEST_CASE("staging checkpoint: a restored staging step continues bit for bit") {
  std::vector<staging_config> configs;
  for (const auto mode : {piggybacking::same_node, piggybacking::join_multicast})
    for (auto sc : {staging_config::vm_reuse(), staging_config::vm_mult()}) {
      sc.piggyback = mode;
      configs.push_back(sc);
    }
  for (const auto& sc : configs) {
    CAPTURE(sc.piggyback);
    CAPTURE(sc.reuse);
    const auto leases = workload();
    staged whole = make_scheduler(sc);
    submit(whole, leases, 0, leases.size());
    finish(whole);

    staged first = make_scheduler(sc);
    submit(first, leases, 0, leases.size() / 2);
    const std::size_t stop = submit_until_in_flight(first, leases, leases.size() / 2);
    const std::string checkpoint = io::save_scheduler(first);
    CHECK(checkpoint.find("\"preparation\": {") != std::string::npos);
    staged restored = io::load_scheduler<staged>(checkpoint);
    CHECK(io::save_scheduler(restored) == checkpoint);
    restored.validate();
    restored.preparation_step().validate();
    CHECK(restored.preparation_step().export_state().transfers ==
          first.preparation_step().export_state().transfers);
    submit(restored, leases, stop, leases.size());
    finish(restored);
    CHECK(io::save_scheduler(restored) == io::save_scheduler(whole));
    CHECK(restored.preparation_step().stats() == whole.preparation_step().stats());
    CHECK(restored.preparation_step().finished_transfers() ==
          whole.preparation_step().finished_transfers());
  }
}

TEST_CASE("staging checkpoint: corrupted staging state is rejected where it is wrong") {
  const auto leases = workload();
  staged s = make_scheduler(staging_config::vm_reuse());
  submit(s, leases, 0, 40);
  const std::string good = io::save_scheduler(s);
  REQUIRE(error_of(good) == "no error");
  CHECK(error_of(replaced(good, "\"eviction\": \"lru\"", "\"eviction\": \"mru\""))
            .starts_with("at $.preparation.config.eviction: unknown value \"mru\""));
  CHECK(error_of(replaced(good, "\"kind\": \"image_staging\"", "\"kind\": \"tape\""))
            .starts_with("at $.preparation.kind: a preparation step of kind \"tape\""));
  // A cache that holds more than its capacity.
  CHECK(error_of(replaced(good, "\"cache_mb\": 1500", "\"cache_mb\": 700"))
            .find("image_cache restore") != std::string::npos);
  // The checkpoint holds the staging step: passing one as well is ambiguous.
  CHECK_THROWS_WITH_AS((void)io::load_scheduler<staged>(good, io::construct_profile{},
                                                        make_scheduler({}).preparation_step()),
                       doctest::Contains("pass none to restore it"), io::format_error);
}

TEST_CASE("image staging state: states that contradict themselves are refused") {
  const auto leases = workload();
  staged s = make_scheduler(staging_config::vm_reuse());
  submit(s, leases, 0, 40);
  (void)submit_until_in_flight(s, leases, 40);
  const auto good = s.preparation_step().export_state();
  CHECK_NOTHROW((void)image_staging<>::import_state(good));
  const auto refused = [](image_staging<>::state_type state) {
    try {
      (void)image_staging<>::import_state(std::move(state));
    } catch (const invalid_request& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };

  // An image reference count that no lease's hold explains.
  auto state = good;
  auto cached = std::find_if(state.caches.begin(), state.caches.end(),
                             [](const auto& entries) { return !entries.empty(); });
  REQUIRE(cached != state.caches.end());
  cached->begin()->second.references += 7;
  CHECK(refused(state).starts_with("inconsistent image staging state: image_staging: "));

  // A lease holding an image its node does not cache.
  state = good;
  auto holding = std::find_if(state.holds.begin(), state.holds.end(),
                              [](const auto& h) { return !h.refs.empty(); });
  REQUIRE(holding != state.holds.end());
  holding->key = "img-9";
  CHECK(refused(state).find("hold img-9 on node ") != std::string::npos);

  state = good;
  REQUIRE(!state.transfers.empty());
  state.transfers.push_back(state.transfers.front());
  CHECK(refused(state) == "image staging state: transfer " +
                              std::to_string(good.transfers.front().id) + " appears twice");

  state = good;
  state.incoming.emplace_back(0, "img-9", 999);
  CHECK(refused(state) ==
        "image staging state: image img-9 arriving on node 0 through transfer "
        "999: no such node or transfer");

  state = good;
  state.cache_clocks.pop_back();
  CHECK(refused(state) == "image staging state: 5 caches but 4 use counters");

  // Transfers against the clock: one that has ended but is not over, one over but still to
  // end.
  state = good;
  state.transfers.front().span = {state.now - 20, state.now};
  CHECK(refused(state) ==
        "image staging state: transfer " + std::to_string(good.transfers.front().id) + " over [" +
            std::to_string(good.now - 20) + ", " + std::to_string(good.now) +
            ") has ended by the clock " + std::to_string(good.now) + " but is not over");
  state = good;
  REQUIRE(!state.finished.empty());
  state.finished.front().span.end = state.now + 1;
  CHECK(refused(state).ends_with(" is over but ends after the clock " + std::to_string(good.now)));

  // A transfer the link does not hold.
  state = good;
  state.link = free_list<T, std::int64_t>(10240, state.now);
  CHECK(refused(state).find("is not booked on the link") != std::string::npos);
}

}  // namespace staging_checkpoint_test
