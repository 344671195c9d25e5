// policy::lease::lease_observer: the events an embedding service enacts, in order, on the
// hand-computed suspension and migration scenarios of lease_scheduler_test.cpp (same cluster:
// 4 nodes of {1 CPU, 1024 MB}; suspending 1024 MB takes 10 s, resuming 20 s, migrating 100 s).

#include <doctest/doctest.h>

#include <cstdint>
#include <sstream>
#include <string>
#include <vector>

#include <leasehold/policy/lease/lease_scheduler.hpp>

#include "policy/lease/scenarios.hpp"

namespace observer_test {

using namespace leasehold;
using namespace leasehold::policy::lease;

namespace {

using leasehold::test::lease_scenarios::best_effort;
using leasehold::test::lease_scenarios::reservation;
using leasehold::test::lease_scenarios::run_to_end;

using T = std::int64_t;
using node_table = cluster::slot_table<free_list<T, node_resources>>;

std::string list(std::span<const std::size_t> nodes) {
  std::ostringstream out;
  out << '[';
  for (std::size_t i = 0; i < nodes.size(); ++i) out << (i == 0 ? "" : " ") << nodes[i];
  return out.str() + ']';
}

// Writes every event as one line, so a whole run compares as a list of strings.
struct transcript : lease_observer<T> {
  std::vector<std::string> lines;
  void add(std::ostringstream& out) { lines.push_back(out.str()); }
  void on_ready(std::uint64_t id, T at, std::span<const std::size_t> nodes) override {
    std::ostringstream out;
    out << at << " ready " << id << ' ' << list(nodes);
    add(out);
  }
  void on_suspended(std::uint64_t id, T at) override {
    std::ostringstream out;
    out << at << " suspended " << id;
    add(out);
  }
  void on_resumed(std::uint64_t id, T at, std::span<const std::size_t> nodes) override {
    std::ostringstream out;
    out << at << " resumed " << id << ' ' << list(nodes);
    add(out);
  }
  void on_migrated(std::uint64_t id, T at, std::span<const std::size_t> from,
                   std::span<const std::size_t> to, interval<T> transfer) override {
    std::ostringstream out;
    out << at << " migrated " << id << ' ' << list(from) << " -> " << list(to) << ' ' << transfer;
    add(out);
  }
  void on_resuming(std::uint64_t id, std::span<const std::size_t> nodes,
                   interval<T> span) override {
    std::ostringstream out;
    out << span.begin << " resuming " << id << ' ' << list(nodes) << ' ' << span;
    add(out);
  }
  void on_ended(std::uint64_t id, T at) override {
    std::ostringstream out;
    out << at << " ended " << id;
    add(out);
  }
};

scheduler_config<T> config(migration m) {
  return leasehold::test::lease_scenarios::config(suspension::all, m);
}

std::string interval_text(interval<T> i) {
  std::ostringstream out;
  out << i;
  return out.str();
}

}  // namespace

TEST_CASE("observer: a suspended lease resumes on its own nodes") {
  // X (4 nodes x 1000) runs from 0 and suspends [490, 500) for the AR over [500, 600); it
  // resumes on its own nodes at 600: resume [600, 620), run [620, 1130).
  lease_scheduler<> s(node_table(4, node_resources{1, 1024, 10000, 10}), config(migration::none));
  transcript seen;
  s.set_observer(&seen);
  (void)s.submit(best_effort(1, 0, 4, 1000), 0);
  (void)s.submit(reservation(2, 100, 500, 2, 100), 100);
  run_to_end(s);
  const std::string resume = interval_text({600, 620});
  CHECK(seen.lines == std::vector<std::string>{
                          "0 ready 1 [0 1 2 3]",
                          "500 suspended 1",
                          "500 ready 2 [0 1]",
                          "600 ended 2",
                          "600 resumed 1 [0 1 2 3]",
                          "600 resuming 1 [0 1 2 3] " + resume,
                          "1130 ended 1",
                      });
}

TEST_CASE("observer: a migration is announced with its source, destination and span") {
  // X (2 nodes x 1000) on nodes 0, 1 suspends [490, 500) for the AR over [500, 1500); it
  // migrates to nodes 2, 3 (free from 600, after Y): transfer [600, 700), resume [700, 720),
  // run [720, 1230).
  lease_scheduler<> s(node_table(4, node_resources{1, 1024, 10000, 10}),
                      config(migration::allowed));
  transcript seen;
  s.set_observer(&seen);
  (void)s.submit(best_effort(1, 0, 2, 1000), 0);
  (void)s.submit(best_effort(2, 0, 2, 600), 0);
  (void)s.submit(reservation(3, 100, 500, 2, 1000), 100);
  run_to_end(s);
  CHECK(seen.lines == std::vector<std::string>{
                          "0 ready 1 [0 1]",
                          "0 ready 2 [2 3]",
                          "500 suspended 1",
                          "500 ready 3 [0 1]",
                          "600 ended 2",
                          "600 resumed 1 [2 3]",
                          "600 migrated 1 [0 1] -> [2 3] " + interval_text({600, 700}),
                          "700 resuming 1 [2 3] " + interval_text({700, 720}),
                          "1230 ended 1",
                          "1500 ended 3",
                      });
}

}  // namespace observer_test
