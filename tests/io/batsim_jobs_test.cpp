// io::batsim_job_table: Batsim's jobs.csv columns with Batsim's definitions (execution =
// finish - start, waiting = start - submission, turnaround = finish - submission, stretch =
// turnaround / execution), hand-computed; interval sets; RFC 4180 quoting of context values;
// and inconsistent jobs rejected by name.

#include <doctest/doctest.h>

#include <string>
#include <vector>

#include <leasehold/io/batsim_jobs.hpp>

namespace batsim_jobs_test {

using namespace leasehold;

TEST_CASE("batsim_jobs: the header is Batsim's columns, then the context columns") {
  const io::batsim_job_table table({"workload_name", "seed"});
  CHECK(table.header() ==
        "job_id,submission_time,requested_number_of_resources,requested_time,success,"
        "starting_time,execution_time,finish_time,waiting_time,turnaround_time,stretch,"
        "allocated_resources,workload_name,seed\n");
}

TEST_CASE("batsim_jobs: a finished job's derived columns") {
  const io::batsim_job_table table({"configuration"});
  // Submitted at 100, started at 400, finished at 1000: execution 600, waiting 300,
  // turnaround 900, stretch 900 / 600 = 1.5; machines 0-3 and 7.
  const io::job_outcome job{.job_id = "42",
                            .submission_time = 100,
                            .requested_number_of_resources = 5,
                            .requested_time = 3600,
                            .success = true,
                            .starting_time = 400,
                            .finish_time = 1000,
                            .allocated_resources = {7, 3, 0, 1, 2, 2}};
  const std::vector<std::string> context{"NOVM-SR"};
  CHECK(table.row(job, context) == "42,100,5,3600,1,400,600,1000,300,900,1.5,0-3 7,NOVM-SR\n");
}

TEST_CASE("batsim_jobs: a job that never started leaves its times empty") {
  const io::batsim_job_table table;
  const io::job_outcome rejected{.job_id = "7",
                                 .submission_time = 50,
                                 .requested_number_of_resources = 2,
                                 .requested_time = 60,
                                 .success = false,
                                 .starting_time = std::nullopt,
                                 .finish_time = std::nullopt,
                                 .allocated_resources = {}};
  CHECK(table.row(rejected) == "7,50,2,60,0,,,,,,,\n");
  // Started, not finished (the simulation ended first): waiting known, the rest empty.
  io::job_outcome running = rejected;
  running.starting_time = 80;
  running.allocated_resources = {4};
  CHECK(table.row(running) == "7,50,2,60,0,80,,,30,,,4\n");
  // A job that ran for no time has no stretch.
  io::job_outcome instant = running;
  instant.finish_time = 80;
  instant.success = true;
  CHECK(table.row(instant) == "7,50,2,60,1,80,0,80,30,30,,4\n");
}

TEST_CASE("batsim_jobs: interval sets") {
  CHECK(io::interval_set({}).empty());
  CHECK(io::interval_set({5}) == "5");
  CHECK(io::interval_set({9, 1, 2, 3, 5, 10, 11, 5}) == "1-3 5 9-11");
}

TEST_CASE("batsim_jobs: context values are quoted as RFC 4180 says") {
  const io::batsim_job_table table({"workload_name"});
  const io::job_outcome job{.job_id = "a,b",
                            .submission_time = 0,
                            .requested_number_of_resources = 1,
                            .requested_time = 1,
                            .success = true,
                            .starting_time = 0,
                            .finish_time = 1,
                            .allocated_resources = {0}};
  const std::vector<std::string> context{"say \"hi\""};
  CHECK(table.row(job, context) == "\"a,b\",0,1,1,1,0,1,1,0,1,1,0,\"say \"\"hi\"\"\"\n");
}

TEST_CASE("batsim_jobs: bad tables and inconsistent jobs are errors naming them") {
  CHECK_THROWS_WITH_AS(io::batsim_job_table({"stretch"}),
                       "batsim_job_table: context column \"stretch\" is one of Batsim's own",
                       error);
  CHECK_THROWS_WITH_AS(io::batsim_job_table({"seed", "seed"}),
                       "batsim_job_table: context column \"seed\" given twice", error);
  CHECK_THROWS_WITH_AS(io::batsim_job_table({""}),
                       "batsim_job_table: context column 0 has an empty name", error);

  const io::batsim_job_table table({"seed"});
  io::job_outcome job{.job_id = "3",
                      .submission_time = 100,
                      .requested_number_of_resources = 1,
                      .requested_time = 10,
                      .success = true,
                      .starting_time = 100,
                      .finish_time = 110,
                      .allocated_resources = {}};
  CHECK_THROWS_WITH_AS((void)table.row(job), "job 3: 0 context values for 1 context columns",
                       error);
  const std::vector<std::string> seed{"1"};
  job.starting_time = 90;
  CHECK_THROWS_WITH_AS((void)table.row(job, seed),
                       "job 3: starts at 90, before its submission at 100", error);
  job.starting_time = 120;
  CHECK_THROWS_WITH_AS((void)table.row(job, seed),
                       "job 3: finishes at 110, before its start at 120", error);
  job.starting_time.reset();
  CHECK_THROWS_WITH_AS((void)table.row(job, seed), "job 3: a finish time without a start", error);
  job.finish_time.reset();
  CHECK_THROWS_WITH_AS((void)table.row(job, seed), "job 3: a success without a finish time", error);
  job.success = false;
  job.requested_time = -1;
  CHECK_THROWS_WITH_AS((void)table.row(job, seed), "job 3: negative request (1 resources for -1 s)",
                       error);
}

}  // namespace batsim_jobs_test
