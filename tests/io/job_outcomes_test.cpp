// io::job_outcome_of: leases and adaptive requests as Batsim jobs, on schedules computed by
// hand (the lease schedule is lease_scheduler_test's "back to back" case).

#include <doctest/doctest.h>

#include <cstdint>
#include <vector>

#include <leasehold/io/job_outcomes.hpp>
#include <leasehold/policy/adaptive/scheduler.hpp>
#include <leasehold/policy/lease/lease_scheduler.hpp>

#include "../policy/lease/scenarios.hpp"

namespace job_outcomes_test {

using namespace leasehold;
using leasehold::test::lease_scenarios::best_effort;
using leasehold::test::lease_scenarios::reservation;
using leasehold::test::lease_scenarios::run;
using T = std::int64_t;

TEST_CASE("job_outcomes: leases of a hand-computed schedule") {
  policy::lease::scheduler_config<T> c;
  c.backfill = policy::lease::backfilling::aggressive();
  c.suspend = policy::lease::suspension::none;
  c.in_vms = false;
  policy::lease::lease_scheduler<> s(
      cluster::slot_table<free_list<T, policy::lease::node_resources>>(
          4, policy::lease::node_resources{1, 1024, 10000, 10}),
      c);
  // L1: 4 nodes x 100 from 0. L2: 2 nodes x 50, submitted at 0, runs [100, 150) on nodes 0
  // and 1. L3: 2 nodes x 200, submitted at 5, runs [100, 300) on nodes 2 and 3. AR 4 holds
  // all 4 nodes over [400, 410); AR 5 (1 node over [405, 415)) finds none free: rejected.
  run(s, {best_effort(1, 0, 4, 100), best_effort(2, 0, 2, 50), best_effort(3, 5, 2, 200),
          reservation(4, 6, 400, 4, 10), reservation(5, 7, 405, 1, 10)});
  const io::batsim_job_table table;
  CHECK(table.row(io::job_outcome_of(s.lease(1))) == "1,0,4,100,1,0,100,100,0,100,1,0-3\n");
  CHECK(table.row(io::job_outcome_of(s.lease(2))) == "2,0,2,50,1,100,50,150,100,150,3,0-1\n");
  CHECK(table.row(io::job_outcome_of(s.lease(3))) == "3,5,2,200,1,100,200,300,95,295,1.475,2-3\n");
  // AR 4: waiting 394, turnaround 404, stretch 404 / 10.
  CHECK(table.row(io::job_outcome_of(s.lease(4))) == "4,6,4,10,1,400,10,410,394,404,40.4,0-3\n");
  const io::job_outcome ar = io::job_outcome_of(s.lease(5));
  CHECK_FALSE(ar.success);
  CHECK_FALSE(ar.starting_time);
  CHECK(table.row(ar) == "5,7,1,10,0,,,,,,,\n");
}

TEST_CASE("job_outcomes: an adaptive request, accepted and not") {
  policy::adaptive::adaptive_request<> r;
  r.id = 9;
  r.submit = 10;
  r.r_min = 4;
  r.r_max = 4;
  r.f_mol = [](std::int64_t) { return std::int64_t{60}; };
  // Placed in two pieces, [20, 50) and [70, 100): first start 20, completion 100.
  policy::adaptive::placement<> where;
  where.pieces.push_back(
      {.span = {20, 50}, .resource_count = 4, .from_percent = 0, .to_percent = 50});
  where.pieces.push_back(
      {.span = {70, 100}, .resource_count = 4, .from_percent = 50, .to_percent = 100});
  const io::batsim_job_table table;
  // execution 80, waiting 10, turnaround 90, stretch 90 / 80 = 1.125; processors not named.
  CHECK(table.row(io::job_outcome_of(r, &where)) == "9,10,4,60,1,20,80,100,10,90,1.125,\n");
  CHECK(table.row(io::job_outcome_of(r, static_cast<const policy::adaptive::placement<>*>(
                                            nullptr))) == "9,10,4,60,0,,,,,,,\n");
}

}  // namespace job_outcomes_test
