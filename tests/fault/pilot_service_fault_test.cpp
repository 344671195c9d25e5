// Allocation-failure sweep over the pilot service (Coasters): every submit, plan, dispatch,
// complete, release_idle, retire_expired and take_finished of a random many-task workload runs
// with its k-th allocation failing, for every k, until it succeeds. After every failed attempt
// the service's whole observable state (block records, the dispatcher's queue, blocks and
// workers, the counts) and the borrowed cluster, block for block, must be exactly as before. On
// a cluster that rolls back in place (free_list) and on one restored from a copy
// (capacity_tree). At the end the run must equal one without failures.

#include <cstdint>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include <leasehold/availability/capacity_tree.hpp>
#include <leasehold/availability/free_list.hpp>
#include <leasehold/policy/pilot/pilot_service.hpp>

#include "fault/allocation_failure.hpp"

namespace pilot_service_fault_test {

using namespace leasehold;
using namespace leasehold::policy::pilot;
namespace fault = leasehold::testing::fault;

namespace {

using T = std::int64_t;

template <class B>
std::string state_of(const pilot_service<B>& s, const B& cluster) {
  std::ostringstream out;
  out << "rounds " << s.rounds() << " finished " << s.finished_count() << '\n';
  for (const block_record<T>& r : s.history())
    out << r.id << ' ' << r.round << ' ' << r.workers << ' ' << r.walltime << ' ' << r.requested_at
        << ' ' << r.booked << ' ' << r.jobs_planned << ' '
        << (r.released_at ? *r.released_at : T{-1}) << '\n';
  const dispatcher<T>& d = s.job_dispatcher();
  out << "queued " << d.queued_count() << ' ' << d.queued_walltime() << " running "
      << d.running_count() << '\n';
  for (const auto& [walltime, id] : d.queue()) out << id << ':' << walltime << ' ';
  out << '\n';
  for (const auto& [walltime, count] : d.queued_by_walltime())
    out << walltime << 'x' << count << ' ';
  out << '\n';
  for (const worker_block<T>& b : d.blocks()) {
    out << b.id << ' ' << b.usable << ' ' << b.workers << ':';
    for (std::size_t w = 0; w < static_cast<std::size_t>(b.workers); ++w) {
      const auto job = d.running_on(b.id, w);
      out << ' ' << (job ? static_cast<std::int64_t>(*job) : -1);
    }
    out << '\n';
  }
  for (const auto& block : cluster.free_blocks()) out << block.span << ' ' << block.free << '\n';
  return out.str();
}

// A seeded many-task run: jobs arrive in bursts, run for part of their walltime; every step
// plans, dispatches, completes, releases and retires; every third step takes what ended.
// Returns how many blocks were released early and how many were taken.
template <class B, class Call>
std::pair<std::size_t, std::size_t> drive(pilot_service<B>& s, std::uint64_t seed, int steps,
                                          Call call) {
  std::size_t released = 0;
  std::size_t taken = 0;
  std::mt19937_64 rng(seed);
  const auto uniform = [&rng](T lo, T hi) { return std::uniform_int_distribution<T>(lo, hi)(rng); };
  std::vector<std::pair<T, std::uint64_t>> ends;  // running jobs: (end, id)
  std::uint64_t next_job = 0;
  T now = 0;
  for (int step = 0; step < steps; ++step) {
    now += uniform(1, 15);
    const T burst = step % 4 == 0 ? uniform(1, 5) : uniform(0, 1);
    for (T k = 0; k < burst; ++k) {
      const pilot_job<T> job{.id = next_job++, .walltime = uniform(5, 60)};
      call([&s, job] { s.submit(job); });
    }
    std::vector<std::pair<T, std::uint64_t>> still;
    for (const auto& [end, id] : ends) {
      if (end <= now)
        call([&s, id = id, now] { s.complete(id, now); });
      else
        still.emplace_back(end, id);
    }
    ends = std::move(still);
    call([&s, now] { (void)s.plan(now); });
    std::vector<assignment<T>> started;
    call([&s, &started, now] { started = s.dispatch(now); });  // a move: no allocation
    for (const assignment<T>& a : started)
      ends.emplace_back(a.start + std::max<T>(1, a.walltime * uniform(3, 10) / 10), a.job);
    call([&s, &released, now] { released += s.release_idle(now).size(); });
    call([&s, now] { (void)s.retire_expired(now); });
    if (step % 3 == 2) call([&s, &taken] { taken += s.take_finished().size(); });
  }
  return {released, taken};
}

pilot_config<T> site() {
  return {.blocks = {.allocation_step_size = 0.5,
                     .max_blocks = 4,
                     .low_overallocation = 3.0,
                     .high_overallocation = 1.5,
                     .overallocation_decay = 50.0,
                     .spread = 0.5,
                     .cores_per_node = 2,
                     .max_walltime = 400},
          .dispatch = {.idle_release_delay = 5},
          .worker_startup = 2,
          .batch_latency = 3};
}

template <class B>
void sweep_run() {
  constexpr int steps = 30;
  B plain_cluster(16);
  plain_cluster.reserve({20, 90}, 10);  // another user's reservation
  pilot_service<B> plain(plain_cluster, site());
  const auto [released, taken] = drive(plain, 5, steps, [](auto f) { f(); });

  B cluster(16);
  cluster.reserve({20, 90}, 10);
  pilot_service<B> s(cluster, site());
  std::size_t calls = 0;
  std::size_t failures = 0;
  drive(s, 5, steps, [&](auto f) {
    ++calls;
    failures += fault::sweep_unchanged(f, [&] { return state_of(s, cluster); }).failures;
  });
  CHECK(state_of(s, cluster) == state_of(plain, plain_cluster));
  // The run must have gone through every kind of call that changes blocks.
  CHECK(plain.rounds() > 3);
  CHECK(released > 0);
  CHECK(taken > released);  // retired blocks too
  CHECK(failures > calls);
  MESSAGE(calls << " calls, " << failures << " injected allocation failures, " << plain.rounds()
                << " rounds, " << released << " blocks released, " << taken << " taken");
}

}  // namespace

TEST_CASE_TEMPLATE("fault: the pilot service gives the strong guarantee under bad_alloc", B,
                   free_list<T, T>, capacity_tree<T, T>) {
  sweep_run<B>();
}

}  // namespace pilot_service_fault_test
