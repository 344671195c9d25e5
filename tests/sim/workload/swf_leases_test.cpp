// SWF records to best-effort leases with the Haizea authors' rules, every knob, and the
// 30-day Blue Horizon extract rebuilt from the raw log.

#include <doctest/doctest.h>

#include <fstream>
#include <sstream>
#include <vector>

#include <leasehold/sim/workload/swf_leases.hpp>

#include "sim/workload/shared_data.hpp"

namespace swf_leases_test {

using namespace leasehold;

namespace {
swf::record job(std::int64_t number, std::int64_t submit, std::int64_t wait, std::int64_t run,
                std::int64_t procs, std::int64_t requested, std::int64_t status,
                std::int64_t queue = 3) {
  return {number, submit, wait, run, procs, -1.0,  -1, procs, requested,
          -1,     status, 1,    1,   -1,    queue, -1, -1,    -1};
}
}  // namespace

TEST_CASE("swf leases: the Haizea rules") {
  using workload::to_best_effort;
  SUBCASE("an ordinary job") {
    const auto lease = to_best_effort(job(13, 0, 22, 43, 4, 64800, 1));
    REQUIRE(lease);
    CHECK(lease->id == 13);
    CHECK(lease->submit == 0);
    CHECK(lease->kind == lease_kind::best_effort);
    CHECK(lease->preemptible);
    CHECK(lease->nodes == 4);
    CHECK(lease->per_node == node_resources{1, 1024, 0, 0});
    CHECK(lease->duration == 64800);
    CHECK(lease->real_duration == 43);
    CHECK_FALSE(lease->withdraw.has_value());
  }
  SUBCASE("run time 0 reads as 1 s") {
    CHECK(to_best_effort(job(1, 0, 0, 0, 1, 600, 1))->real_duration == 1);
  }
  SUBCASE("run time above the request") {
    const auto r = job(1, 0, 0, 700, 1, 600, 1);
    CHECK(to_best_effort(r)->real_duration == 600);
    const auto extended = to_best_effort(r, {.overrun = workload::overrun_policy::extend_request});
    CHECK(extended->duration == 700);
    CHECK(extended->real_duration == 700);
  }
  SUBCASE("requested time <= 0") {
    workload::conversion_report report;
    CHECK_FALSE(to_best_effort(job(1, 0, 0, 50, 1, 0, 1), {}, &report));
    CHECK(report.unknown_request == 1);
    const auto used =
        to_best_effort(job(1, 0, 0, 50, 1, -1, 1),
                       {.unknown_request = workload::unknown_request_policy::use_run_time});
    CHECK(used->duration == 50);
    CHECK_FALSE(to_best_effort(job(1, 0, 0, 50, 1, 59, 1), {.min_requested_time = 60}));
  }
  SUBCASE("cancelled while waiting") {
    const auto r = job(729, 144375, 3046, -1, 16, 57600, swf::status_cancelled);
    // By default (Haizea's paper-era runs) it waits in the queue until submit + wait and
    // never starts; withdraw_at_wait lets it start like any lease until then.
    const auto held = to_best_effort(r);
    CHECK(held->withdraw == 144375 + 3046);
    CHECK(held->hold_in_queue);
    CHECK(held->real_duration == 57600);
    const auto withdrawn =
        to_best_effort(r, {.cancelled = workload::cancelled_policy::withdraw_at_wait});
    CHECK(withdrawn->withdraw == 144375 + 3046);
    CHECK_FALSE(withdrawn->hold_in_queue);
    CHECK(withdrawn->real_duration == 57600);
    const auto full =
        to_best_effort(r, {.cancelled = workload::cancelled_policy::run_requested_time});
    CHECK_FALSE(full->withdraw.has_value());
    CHECK_FALSE(full->hold_in_queue);
    CHECK(full->real_duration == 57600);
    workload::conversion_report report;
    CHECK_FALSE(to_best_effort(r, {.cancelled = workload::cancelled_policy::skip}, &report));
    CHECK(report.cancelled == 1);
  }
  SUBCASE("unknown run time of a job that was not cancelled") {
    const auto r = job(5, 0, 0, -1, 1, 600, swf::status_failed);
    CHECK(to_best_effort(r)->real_duration == 600);
    CHECK_FALSE(to_best_effort(r)->withdraw.has_value());
    CHECK_FALSE(to_best_effort(r, {.unknown_run = workload::unknown_run_policy::skip}));
  }
  SUBCASE("processors to nodes, rounding up; size limits") {
    CHECK(to_best_effort(job(1, 0, 0, 5, 9, 60, 1), {.procs_per_node = 8})->nodes == 2);
    auto r = job(1, 0, 0, 5, -1, 60, 1);
    r.allocated_procs = 16;
    CHECK(to_best_effort(r, {.procs_per_node = 8})->nodes == 2);
    workload::conversion_report report;
    CHECK_FALSE(to_best_effort(r, {.allocated_when_unrequested = false}, &report));
    CHECK(report.unknown_size == 1);
    CHECK_FALSE(to_best_effort(job(1, 0, 0, 5, 200, 60, 1), {.max_nodes = 144}, &report));
    CHECK(report.too_large == 1);
    CHECK(report.skipped() == 2);
  }
  SUBCASE("impossible settings are rejected") {
    CHECK_THROWS_WITH_AS(to_best_effort(job(1, 0, 0, 5, 9, 60, 1), {.procs_per_node = 0}),
                         "swf_conversion::procs_per_node = 0 must be positive", invalid_request);
  }
}

TEST_CASE("swf leases: the paper's 5,545 best-effort requests") {
  const auto path = test::shared_path("haizea-workloads/blue-30days.swf");
  std::ifstream in(path);
  if (!in) {
    LEASEHOLD_SKIP_TEST(path << " is absent");
    return;
  }
  const auto log = swf::read(in);
  workload::conversion_report report;
  const auto leases = workload::to_best_effort(log.records, {}, &report);
  CHECK(leases.size() == 5'545);
  CHECK(report.skipped() == 0);
  std::size_t withdrawn = 0, short_requests = 0, small = 0;
  for (const auto& l : leases) {
    withdrawn += l.withdraw.has_value();
    short_requests += l.duration <= 3600;
    small += l.nodes <= 4;
    CHECK(l.real_duration <= l.duration);
    CHECK(l.real_duration >= 1);
  }
  CHECK(withdrawn == 437);  // the README's cancelled-while-waiting jobs
  // The paper says 66.85 % and 64.09 %; the published file gives these (docs/workloads.md).
  CHECK(short_requests == 3'699);
  CHECK(small == 3'391);
}

TEST_CASE("swf leases: extract rebuilds the 30-day extract from the raw log") {
  const auto text = test::gunzip(test::shared_path("traces/SDSC-BLUE-2000-4.2-cln.swf.gz"));
  std::ifstream published(test::shared_path("haizea-workloads/blue-30days.swf"));
  if (!text || !published) {
    LEASEHOLD_SKIP_TEST("the Blue Horizon trace or blue-30days.swf is absent");
    return;
  }
  std::istringstream in(*text);
  const auto raw = swf::read(in);
  const auto paper = swf::read(published);
  // The paper's extract starts with job 13 (submitted at 440,070 s in this version).
  const auto extract = workload::extract(raw, {.from = 440'070});
  REQUIRE(extract.records.size() == paper.records.size());
  std::size_t same = 0;
  for (std::size_t i = 0; i < extract.records.size(); ++i) {
    const auto& a = extract.records[i];
    const auto& b = paper.records[i];
    same += a.job == b.job && a.submit == b.submit && a.requested_procs == b.requested_procs &&
            a.requested_time == b.requested_time && a.run_time == b.run_time;
  }
  // The archive's later log version reorders or re-times a handful of jobs.
  CHECK(same >= paper.records.size() - 20);
  MESSAGE("extract agrees with blue-30days.swf on " << same << " of " << paper.records.size()
                                                    << " records");
}

}  // namespace swf_leases_test
