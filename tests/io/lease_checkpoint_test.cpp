// io::save_scheduler / load_scheduler: a lease scheduler checkpointed in the middle of a
// simulation and restored continues bit for bit: the restored run's final state and its
// metrics equal those of the run that never stopped. Corrupted checkpoints (a lease's state
// changed, an event dropped, a booking that no longer matches the table) are rejected; so is
// each record the scheduler could not have made (terms submit() refuses, a time after the
// clock, a reservation off its start, work that does not add up, a reversed history), by the
// path of the member at fault; every bit flip and truncation of a small checkpoint is refused.

#include <doctest/doctest.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <optional>
#include <random>
#include <string>
#include <variant>
#include <vector>

#include <nlohmann/json.hpp>

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

// A small scheduler at time 50 (NOVM-NOSR without backfilling, two nodes of one CPU): lease 1
// runs [0, 100) on node 0; lease 2, on both nodes (50 s asked, 40 real), waits in the queue;
// lease 3, an advance reservation for [200, 210) on one node, is scheduled; lease 4 asked for
// 20 s on node 1 and ended at 10.
scheduler small_scheduler() {
  auto config = scheduler_config<T>::novm_nosr();
  config.backfill = backfilling::off();
  scheduler s(table(2, node_resources{1, 1024, 40960, 10}), config);
  auto lease = [](std::uint64_t id, std::int64_t nodes, T duration, T real) {
    lease_terms<T> t;
    t.id = id;
    t.nodes = nodes;
    t.per_node = node_resources{1, 512, 0, 0};
    t.duration = duration;
    t.real_duration = real;
    return t;
  };
  (void)s.submit(lease(1, 1, 100, 100), 0);
  (void)s.submit(lease(4, 1, 20, 10), 0);
  (void)s.submit(lease(2, 2, 50, 40), 0);
  auto reservation = lease(3, 1, 10, 10);
  reservation.kind = lease_kind::advance_reservation;
  reservation.start = 200;
  reservation.preemptible = false;
  (void)s.submit(reservation, 0);
  s.advance_to(50);
  return s;
}

// `text` edited as JSON by `edit` and sealed again: a deliberate edit, which only the
// loader's checks of the content can refuse.
std::string edited(const std::string& text, auto edit) {
  auto doc = nlohmann::ordered_json::parse(text);
  edit(doc);
  return io::seal_checkpoint(doc.dump(2));
}

// Loads `text` over a scheduler in use: the error it gets, with the scheduler left as it was.
std::string refused(const std::string& text) {
  scheduler target = make_scheduler(scheduler_config<T>::vm_predeploy());
  const auto leases = workload(5, 20);
  driver d(leases);
  for (int i = 0; i < 10; ++i) REQUIRE(d.step(target));
  const std::string before = io::save_scheduler(target);
  const std::string error =
      leasehold::testing::format_error_of([&] { target = io::load_scheduler<scheduler>(text); });
  CHECK(io::save_scheduler(target) == before);
  target.validate();
  return error;
}

}  // namespace

TEST_CASE("lease checkpoint: a restored scheduler resumes a simulation bit for bit") {
  auto conservative = scheduler_config<T>::vm_predeploy();
  conservative.backfill = backfilling::conservative();
  // hpdc08: running leases hold backfilling reservations (reservation_held_until_end).
  for (const auto& config :
       {scheduler_config<T>::vm_predeploy(), scheduler_config<T>::novm_nosr(), conservative,
        scheduler_config<T>::vm_predeploy().with_haizea(haizea_preset::hpdc08)}) {
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
  const std::string done =
      error_of(replaced(good, "\"state\": \"running\"", "\"state\": \"done\""));
  CHECK(done.starts_with("at $.leases["));
  CHECK(done.ends_with(
      "].current: scheduler state: lease " +
      done.substr(done.find("lease ") + 6, done.rfind(':') - done.find("lease ") - 6) +
      ": it is done but has a segment"));
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

TEST_CASE("lease checkpoint: the small scheduler of the contradiction tests") {
  const scheduler s = small_scheduler();
  REQUIRE(s.lease(1).state == lease_state::running);
  REQUIRE(s.lease(1).current->booked == interval<T>{0, 100});
  REQUIRE(s.lease(1).current->nodes == std::vector<std::size_t>{0});
  REQUIRE(s.lease(2).state == lease_state::queued);
  REQUIRE(s.lease(3).state == lease_state::scheduled);
  REQUIRE(s.lease(3).current->booked == interval<T>{200, 210});
  REQUIRE(s.lease(4).state == lease_state::done);
  REQUIRE(s.lease(4).history.size() == 1);
  REQUIRE(s.lease(4).history[0].span == interval<T>{0, 10});
  const std::string good = io::save_scheduler(s);
  // Edited and sealed without a change, it loads: the edits below are the only difference.
  CHECK(io::save_scheduler(io::load_scheduler<scheduler>(edited(good, [](auto&) {}))) == good);
}

// Each record below is one the scheduler would never have made; loaded, it would stall or
// corrupt the run that continues from it. The leases are in id order: $.leases[0] is lease 1.
TEST_CASE("lease checkpoint: a queued lease wider than a node is refused") {
  const std::string text = edited(io::save_scheduler(small_scheduler()),
                                  [](auto& doc) { doc["leases"][1]["terms"]["per_node"][0] = 2; });
  CHECK(refused(text) ==
        "at $.leases[1].terms.per_node: scheduler state: lease 2 (best-effort): per-node "
        "resources {2, 512, 0, 0} exceed a node's {1, 1024, 40960, 10}");
}

TEST_CASE("lease checkpoint: a lease submitted after the scheduler's clock is refused") {
  const std::string text = edited(io::save_scheduler(small_scheduler()),
                                  [](auto& doc) { doc["leases"][1]["terms"]["submit"] = 60; });
  CHECK(refused(text) ==
        "at $.leases[1].terms.submit: scheduler state: lease 2: submitted at 60, after the clock "
        "50");
}

TEST_CASE("lease checkpoint: an advance reservation booked off its start is refused") {
  const std::string text = edited(io::save_scheduler(small_scheduler()),
                                  [](auto& doc) { doc["leases"][2]["terms"]["start"] = 201; });
  CHECK(refused(text) ==
        "at $.leases[2].terms.start: scheduler state: lease 3: an advance reservation starting "
        "at 201 but booked from 200");
}

TEST_CASE("lease checkpoint: remaining work that does not match the segment is refused") {
  const std::string good = io::save_scheduler(small_scheduler());
  // 30 of lease 1's 100 units left, none done yet: it would end with 30 done.
  CHECK(refused(edited(good, [](auto& doc) { doc["leases"][0]["remaining_real"] = 30; })) ==
        "at $.leases[0].remaining_real: scheduler state: lease 1: remaining real work 30 but its "
        "history credits 0 of its real work 100");
  // The same with its real duration edited to agree: the segment still finishes at 100.
  CHECK(refused(edited(good,
                       [](auto& doc) {
                         doc["leases"][0]["terms"]["real_duration"] = 30;
                         doc["leases"][0]["remaining_real"] = 30;
                       })) ==
        "at $.leases[0].current.finish: scheduler state: lease 1: its segment finishes at 100, "
        "but its remaining real work 30 from its run's begin 0 makes it 30");
  // The maximum likewise, of a queued lease.
  CHECK(refused(edited(good, [](auto& doc) { doc["leases"][1]["remaining_max"] = 45; })) ==
        "at $.leases[1].remaining_max: scheduler state: lease 2: remaining work 45 but its "
        "history credits 0 of its duration 50");
}

TEST_CASE("lease checkpoint: a reversed interval in a lease's history is refused") {
  const std::string good = io::save_scheduler(small_scheduler());
  CHECK(refused(edited(good,
                       [](auto& doc) {
                         doc["leases"][3]["history"][0]["span"] = nlohmann::ordered_json{10, 0};
                       })) ==
        "at $.leases[3].history: scheduler state: lease 4: segment 0 of its history spans "
        "[10, 0), which ends before it begins");
  CHECK(refused(edited(good,
                       [](auto& doc) {
                         doc["leases"][3]["history"][0]["run"] = nlohmann::ordered_json{10, 0};
                       })) ==
        "at $.leases[3].history: scheduler state: lease 4: segment 0 of its history runs over "
        "[10, 0), not from within [0, 10)");
}

TEST_CASE("lease checkpoint: times after the clock and counts that disagree are refused") {
  const std::string good = io::save_scheduler(small_scheduler());
  CHECK(refused(edited(good, [](auto& doc) { doc["leases"][3]["end"] = 60; })) ==
        "at $.leases[3].end: scheduler state: lease 4: end 60 outside [first start 0, clock "
        "50]");
  CHECK(refused(edited(good, [](auto& doc) { doc["leases"][0]["first_start"] = 51; })) ==
        "at $.leases[0].first_start: scheduler state: lease 1: first start 51 outside [submit "
        "0, clock 50]");
  CHECK(refused(edited(good, [](auto& doc) { doc["leases"][3]["history"][0]["work"] = 9; })) ==
        "at $.leases[3].history: scheduler state: lease 4: it is done but its history credits 9 "
        "of its real work 10");
  CHECK(refused(edited(good, [](auto& doc) { doc["leases"][0]["suspensions"] = 1; })) ==
        "at $.leases[0].suspensions: scheduler state: lease 1: 1 suspensions but its history "
        "has 0");
  CHECK(
      refused(edited(good, [](auto& doc) { doc["leases"][2]["current"]["per_node"][1] = 100; })) ==
      "at $.leases[2].current.per_node: scheduler state: lease 3: its segment books {1, 100, 0, "
      "0} per node, not {1, 512, 0, 0}");
}

// Every bit of a small checkpoint flipped, and the checkpoint cut at every byte: each load is
// refused with a leasehold::error or gives the saved state exactly (compared by saving again).
// The checksum makes every one of them a refusal, before anything is parsed.
TEST_CASE("lease checkpoint: every bit flip and truncation of a small checkpoint is refused") {
  const auto began = std::chrono::steady_clock::now();
  const std::string good = io::save_scheduler(small_scheduler());
  const auto outcome = leasehold::testing::corrupt_every_way(good, [&](const std::string& text) {
    return io::save_scheduler(io::load_scheduler<scheduler>(text));
  });
  CHECK(outcome.loaded_differently == 0);
  CHECK(outcome.loaded_identically == 0);
  CHECK(outcome.refused == 9 * good.size());
  CHECK(outcome.refused_by_checksum > 0);
  MESSAGE(good.size(), " bytes: ", 8 * good.size(), " flips and ", good.size(), " truncations, ",
          outcome.refused_by_checksum, " refused by the checksum, ",
          outcome.refused - outcome.refused_by_checksum, " otherwise (malformed, or no checksum); ",
          std::chrono::duration<double>(std::chrono::steady_clock::now() - began).count(), " s");
}

// The same kind of damage sealed again, as a deliberate edit would be (one bit of every byte):
// the checksum cannot see it, and some edits load as another state (an id, a count), but none
// as a scheduler that cannot run on: each that loads validates, takes a new lease and runs
// every event to the end.
TEST_CASE("lease checkpoint: a sealed one-bit edit of any byte is refused or runs on") {
  const auto began = std::chrono::steady_clock::now();
  const std::string good = io::save_scheduler(small_scheduler());
  std::size_t refused = 0;
  std::size_t loaded = 0;
  for (std::size_t byte = 0; byte < good.size(); ++byte) {
    CAPTURE(byte);
    std::string text = good;
    text[byte] = static_cast<char>(text[byte] ^ (1 << (byte % 8)));
    std::optional<scheduler> s;
    try {
      s.emplace(io::load_scheduler<scheduler>(io::seal_checkpoint(text)));
    } catch (const error&) {
      ++refused;
      continue;
    }
    ++loaded;
    CHECK_NOTHROW(s->validate());
    lease_terms<T> next;
    next.id = 99;
    next.submit = s->now();
    next.per_node = node_resources{1, 256, 0, 0};
    next.duration = 5;
    try {
      (void)s->submit(next, s->now());
    } catch (const invalid_lease&) {
      // Terms an edited cluster or configuration refuses: refused cleanly.
    }
    CHECK_NOTHROW([&] {
      while (const auto at = s->next_event_time()) s->advance_to(*at);
    }());
  }
  CHECK(refused + loaded == good.size());
  CHECK(refused > loaded);
  MESSAGE(good.size(), " sealed edits: ", refused, " refused, ", loaded, " loaded and ran on; ",
          std::chrono::duration<double>(std::chrono::steady_clock::now() - began).count(), " s");
}

}  // namespace lease_checkpoint_test
