// Allocation-failure sweep over the lease scheduler with image staging: every submit, withdraw
// and advance_to of a random workload whose leases all need images runs with its k-th
// allocation failing for every k until it succeeds. The staging step takes back what a failed
// call changed through its journal (image_staging's transactions), not by being copied: after
// every failed attempt the whole checkpoint (scheduler and staging step: caches, transfers,
// link, holds, counts) must be exactly as before, and at the end the run must equal one without
// failures, with and without reuse of images, and with finished leases and transfers retired.

#include <cstdint>
#include <string>
#include <vector>

#include <leasehold/io/lease_checkpoint.hpp>
#include <leasehold/policy/lease/lease_scheduler.hpp>
#include <leasehold/policy/staging/image_staging.hpp>

#include "fault/allocation_failure.hpp"

#include "policy/lease/random_leases.hpp"

namespace image_staging_fault_test {

using namespace leasehold;
using namespace leasehold::policy::lease;
using namespace leasehold::policy::staging;
namespace fault = leasehold::testing::fault;

namespace {

using T = std::int64_t;
using staged = lease_scheduler<free_list<T, node_resources>, image_staging<>>;
using table = cluster::slot_table<free_list<T, node_resources>>;

static_assert(transactional_preparation<image_staging<>>);

staged make(staging_config sc, scheduler_config<T> config) {
  sc.bandwidth_mb_s = 10.0;
  sc.cache_mb = 1500;  // two 600 MB images per node: eviction happens
  image_staging<> staging(4, sc);
  for (int i = 0; i < 3; ++i) staging.add_image({"img-" + std::to_string(i), 600});
  return staged(table(4, node_resources{1, 1024, 40960, 10}), config, std::move(staging));
}

std::vector<lease_terms<T>> workload(std::uint64_t seed) {
  return leasehold::testing::random_leases<T>(seed, 16,
                                              {.max_gap = 150,
                                               .max_nodes = 3,
                                               .min_duration = 100,
                                               .max_duration = 900,
                                               .reservation_one_in = 4,
                                               .max_notice = 1500,
                                               .image_one_in = 1});
}

template <class Call>
void drive(staged& s, const std::vector<lease_terms<T>>& leases, Call call) {
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
    if (turn % 5 == 0) {
      const std::uint64_t id = 1 + (turn * 31) % l.id;
      const auto known = s.leases().find(id);
      if (known != s.leases().end() && known->second.state != lease_state::running)
        call([&] { (void)s.withdraw(id, l.submit); });
    }
  }
}

}  // namespace

TEST_CASE("fault: image staging takes back a failed call through its journal") {
  auto retiring = scheduler_config<T>::vm_predeploy();
  retiring.retire_finished = true;
  for (const auto& sc : {staging_config::vm_reuse(), staging_config::vm_mult()})
    for (const auto& config : {scheduler_config<T>::vm_predeploy(), retiring}) {
      CAPTURE(sc.reuse);
      CAPTURE(config.retire_finished);
      const auto leases = workload(7);
      staged plain = make(sc, config);
      drive(plain, leases, [](auto f) { f(); });

      staged s = make(sc, config);
      std::size_t calls = 0;
      std::size_t failures = 0;
      drive(s, leases, [&](auto f) {
        ++calls;
        const std::string before = io::save_scheduler(s);
        failures += fault::sweep(f, [&] {
                      CHECK(!s.preparation_step().in_transaction());
                      s.validate();
                      s.preparation_step().validate();
                      const bool unchanged = io::save_scheduler(s) == before;
                      CHECK(unchanged);
                      if (!unchanged) throw std::logic_error("stop: state changed");
                    }).failures;
      });
      CHECK(io::save_scheduler(s) == io::save_scheduler(plain));
      CHECK(s.preparation_step().stats() == plain.preparation_step().stats());
      CHECK(failures > calls);
      if (config.retire_finished) CHECK(s.preparation_step().finished_transfers().empty());
      MESSAGE(calls << " scheduler calls, " << failures << " injected allocation failures");
    }
}

}  // namespace image_staging_fault_test
