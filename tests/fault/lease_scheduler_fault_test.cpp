// Allocation-failure sweep over the lease scheduler: every submit, withdraw, release and
// advance_to of a random workload runs with its k-th allocation failing for every k until it
// succeeds. After every failed attempt the scheduler's whole observable state (its checkpoint
// text: configuration, clock, slot table, every lease record, queue, reservations, events,
// bookings per node) must be exactly as before, validate() must pass, and the observer must
// have seen nothing of the failed call. At the end the run must equal one without failures.

#include <cstdint>
#include <random>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include <leasehold/io/lease_checkpoint.hpp>
#include <leasehold/policy/lease/lease_scheduler.hpp>

#include "fault/allocation_failure.hpp"

#include "policy/lease/random_leases.hpp"

using namespace leasehold;
using namespace leasehold::policy::lease;
namespace fault = leasehold::testing::fault;

namespace {

using T = std::int64_t;
using scheduler = lease_scheduler<>;

struct counting_observer : lease_observer<T> {
  std::size_t events = 0;
  void on_ready(std::uint64_t, T, std::span<const std::size_t>) override { ++events; }
  void on_suspended(std::uint64_t, T) override { ++events; }
  void on_resumed(std::uint64_t, T, std::span<const std::size_t>) override { ++events; }
  void on_ended(std::uint64_t, T) override { ++events; }
  void on_rejected(std::uint64_t, T, std::string_view) override { ++events; }
  void on_requeued(std::uint64_t, T) override { ++events; }
};

// Shorter gaps and durations than the simulation tests, an advance reservation in four.
std::vector<lease_terms<T>> workload(std::uint64_t seed, std::size_t count) {
  return leasehold::testing::random_leases<T>(seed, count,
                                              {.max_gap = 100,
                                               .min_duration = 50,
                                               .max_duration = 900,
                                               .reservation_one_in = 4,
                                               .max_notice = 1500});
}

// Drives `s` through the workload; every call goes through `call(s, f)`.
template <class Call>
void drive(scheduler& s, const std::vector<lease_terms<T>>& leases, Call call) {
  std::size_t next = 0;
  std::size_t turn = 0;
  while (true) {
    const auto internal = s.next_event_time();
    if (next == leases.size() && !internal) break;
    ++turn;
    if (internal && (next == leases.size() || *internal < leases[next].submit)) {
      const T at = *internal;
      call([&] { s.advance_to(at); });
      continue;
    }
    const lease_terms<T>& l = leases[next++];
    call([&] { (void)s.submit(l, l.submit); });
    if (turn % 7 == 0) {  // now and then a withdrawal or a release of an earlier lease
      const std::uint64_t id = 1 + (turn * 31) % l.id;
      const T now = l.submit;
      const auto known = s.leases().find(id);  // retired leases are gone
      if (known == s.leases().end())
        continue;
      else if (known->second.state == lease_state::running)
        call([&] { s.release(id, now); });
      else
        call([&] { (void)s.withdraw(id, now); });
    }
  }
}

scheduler make(const scheduler_config<T>& config) {
  return scheduler(cluster::slot_table<free_list<T, node_resources>>(5, {2, 4096, 20000, 10}),
                   config);
}

}  // namespace

TEST_CASE("fault: the lease scheduler gives the strong guarantee under bad_alloc") {
  auto conservative = scheduler_config<T>::vm_predeploy();
  conservative.backfill = backfilling::conservative();
  // Haizea's choices: bookings kept and slid back on early ends (replanning::slide_back).
  const auto haizea = conservative.with_haizea_choices();
  const auto hpdc08 = scheduler_config<T>::vm_predeploy().with_haizea(haizea_preset::hpdc08);
  for (const auto& config : {scheduler_config<T>::vm_predeploy(), scheduler_config<T>::novm_nosr(),
                             conservative, haizea, hpdc08}) {
    const auto leases = workload(41, 14);
    scheduler plain = make(config);
    drive(plain, leases, [](auto f) { f(); });

    scheduler s = make(config);
    counting_observer observer;
    s.set_observer(&observer);
    std::size_t failures = 0;
    std::size_t calls = 0;
    drive(s, leases, [&](auto f) {
      ++calls;
      const std::string before = io::save_scheduler(s);
      const std::size_t seen = observer.events;
      failures += fault::sweep(f, [&] {
                    s.validate();
                    CHECK(observer.events == seen);
                    const bool unchanged = io::save_scheduler(s) == before;
                    CHECK(unchanged);
                    if (!unchanged) throw std::logic_error("stop: state changed");
                  }).failures;
    });
    CHECK(io::save_scheduler(s) == io::save_scheduler(plain));
    CHECK(failures > calls);
    MESSAGE(calls << " scheduler calls, " << failures << " injected allocation failures");
  }
}

// The journal on a long run: the scheduler has a history of hundreds of leases (and the
// journal's buffers have grown and been reused across many calls) before allocations fail.
// Failures are injected into the last calls only (each attempt compares whole checkpoints),
// to keep the test short.
TEST_CASE("fault: the lease scheduler rolls back late in a long run") {
  auto config = scheduler_config<T>::novm_sr();
  config.backfill = backfilling::conservative();
  config.retire_finished = true;  // a failed call must also keep its finished leases
  const auto leases = workload(2024, 200);
  scheduler plain = make(config);
  std::size_t total = 0;
  drive(plain, leases, [&total](auto f) {
    ++total;
    f();
  });

  scheduler s = make(config);
  counting_observer observer;
  s.set_observer(&observer);
  std::size_t calls = 0;
  std::size_t swept = 0;
  std::size_t failures = 0;
  drive(s, leases, [&](auto f) {
    if (++calls + 6 <= total) {
      f();
      return;
    }
    ++swept;
    const std::string before = io::save_scheduler(s);
    const std::size_t seen = observer.events;
    const std::size_t finished = s.finished_count();
    failures += fault::sweep(f, [&] {
                  s.validate();
                  CHECK(observer.events == seen);
                  CHECK(s.finished_count() == finished);
                  const bool unchanged = io::save_scheduler(s) == before;
                  CHECK(unchanged);
                  if (!unchanged) throw std::logic_error("stop: state changed");
                }).failures;
  });
  CHECK(swept == 6);
  CHECK(s.finished_count() == plain.finished_count());
  CHECK(s.finished_count() + s.leases().size() == leases.size());
  CHECK(failures > swept);
  CHECK(io::save_scheduler(s) == io::save_scheduler(plain));
  MESSAGE(calls << " scheduler calls, the last " << swept << " swept with " << failures
                << " injected allocation failures");
}
