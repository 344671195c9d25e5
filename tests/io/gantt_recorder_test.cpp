// io::gantt_recorder and gantt_chart_of on the hand-computed migration scenario of
// observer_test.cpp (4 nodes of {1 CPU, 1024 MB}; suspending 1024 MB takes 10 s, resuming
// 20 s, migrating 100 s), and the transfers the recorder keeps: those withdrawn at the
// instant they were announced are forgotten.

#include <doctest/doctest.h>

#include <cstdint>
#include <utility>
#include <vector>

#include <leasehold/io/gantt_recorder.hpp>
#include <leasehold/policy/lease/lease_scheduler.hpp>

#include "policy/lease/scenarios.hpp"

namespace gantt_recorder_test {

using namespace leasehold;
using namespace leasehold::policy::lease;

namespace {

using T = std::int64_t;
using node_table = cluster::slot_table<free_list<T, node_resources>>;

}  // namespace

TEST_CASE("gantt_recorder: segments from the histories, the migration from the observer") {
  // X (lease 1, 2 nodes x 1000) on nodes 0, 1 suspends [490, 500) for the AR (lease 3) over
  // [500, 1500); it migrates to nodes 2, 3 (free from 600, after Y, lease 2): transfer
  // [600, 700), resume [700, 720), run [720, 1230).
  scheduler_config<T> c;
  c.suspend = suspension::all;
  c.migrate = migration::allowed;
  c.in_vms = false;
  c.suspend_rate_mb_s = 102.4;
  c.resume_rate_mb_s = 51.2;
  c.network_mb_s = 10.24;
  lease_scheduler<> s(node_table(4, node_resources{1, 1024, 10000, 10}), c);
  io::gantt_recorder<T> recorder;
  s.set_observer(&recorder);
  using leasehold::test::lease_scenarios::best_effort;
  using leasehold::test::lease_scenarios::reservation;
  (void)s.submit(best_effort(1, 0, 2, 1000), 0);
  (void)s.submit(best_effort(2, 0, 2, 600), 0);
  (void)s.submit(reservation(3, 100, 500, 2, 1000), 100);
  leasehold::test::lease_scenarios::run_to_end(s);

  const io::gantt_chart chart = io::gantt_chart_of(s.leases(), 4, recorder);
  CHECK(chart.nodes == 4);
  REQUIRE(chart.segments.size() == 4);
  const io::gantt_segment& first = chart.segments[0];
  CHECK(first.lease == 1);
  CHECK(first.kind == lease_kind::best_effort);
  CHECK(first.nodes == std::vector<std::size_t>{0, 1});
  CHECK(first.begin == 0);
  CHECK(first.run_end == 490);
  CHECK(first.end == 500);
  CHECK(first.ending == io::gantt_ending::suspended);
  const io::gantt_segment& resumed = chart.segments[1];
  CHECK(resumed.nodes == std::vector<std::size_t>{2, 3});
  CHECK(resumed.begin == 600);
  CHECK(resumed.run_begin == 720);
  CHECK(resumed.end == 1230);
  CHECK(resumed.ending == io::gantt_ending::completed);
  CHECK(chart.segments[2].lease == 2);
  CHECK(chart.segments[3].kind == lease_kind::advance_reservation);
  CHECK(chart.segments[3].begin == 500);
  CHECK(chart.segments[3].end == 1500);
  REQUIRE(chart.migrations.size() == 1);
  CHECK(chart.migrations[0].from == std::vector<std::size_t>{0, 1});
  CHECK(chart.migrations[0].to == std::vector<std::size_t>{2, 3});
  CHECK(chart.migrations[0].begin == 600);
  CHECK(chart.migrations[0].end == 700);
  CHECK(chart.transfers.empty());
  // Minutes instead of seconds.
  CHECK(io::gantt_chart_of(s.leases(), 4, recorder, 60).segments[1].end == 1230 * 60);
}

TEST_CASE("gantt_recorder: a transfer withdrawn when announced is forgotten, a moved one kept") {
  io::gantt_recorder<T> recorder;
  const transfer_notice<T> a{.transfer = 1,
                             .image = "a.img",
                             .size_mb = 1024,
                             .nodes = {0},
                             .span = {10, 110},
                             .leases = {5}};
  transfer_notice<T> b{.transfer = 2,
                       .image = "b.img",
                       .size_mb = 512,
                       .nodes = {1},
                       .span = {10, 60},
                       .leases = {6}};
  recorder.on_transfer_started(a);
  recorder.on_transfer_started(b);
  recorder.on_transfer_withdrawn(a);
  b.nodes = {2};
  recorder.on_transfer_withdrawn(b);
  recorder.on_transfer_started(b);  // planned again, same instant, other node
  recorder.on_transfer_finished(b);
  const io::gantt_chart chart =
      io::gantt_chart_of(std::vector<std::pair<std::uint64_t, lease_record<T>>>{}, 4, recorder);
  REQUIRE(chart.transfers.size() == 1);
  CHECK(chart.transfers[0].image == "b.img");
  CHECK(chart.transfers[0].nodes == std::vector<std::size_t>{2});
  CHECK(chart.transfers[0].begin == 10);
  CHECK(chart.transfers[0].end == 60);
}

}  // namespace gantt_recorder_test
