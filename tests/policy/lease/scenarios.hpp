#pragma once

// The lease builders and drivers the lease scheduler's tests share (lease_scheduler_test,
// haizea_choices_test, observer_test and, through customisation_scenarios.hpp,
// queue_order_test and node_choice_test), written once so that "a best-effort lease of n
// nodes" means the same lease in every file.
//
// Every lease asks for Haizea's {1 CPU, 1024 MB} per node; config() is the scheduler
// configuration the hand-computed scenarios derive their times from.

#include <doctest/doctest.h>

#include <cstddef>
#include <cstdint>
#include <optional>
#include <vector>

#include <leasehold/policy/lease/config.hpp>
#include <leasehold/policy/lease/lease_terms.hpp>

namespace leasehold::test::lease_scenarios {

using T = std::int64_t;
using policy::lease::lease_kind;
using policy::lease::lease_terms;

// Leases do not run in VMs (no slowdown, no boot or shutdown); suspending 1024 MB takes
// 1024 / 102.4 = 10 s, resuming 1024 / 51.2 = 20 s, migrating 1024 MB (no image) at
// 10.24 MB/s 100 s, when suspension `s` and migration `m` allow them; backfilling as by
// default.
inline policy::lease::scheduler_config<T> config(
    policy::lease::suspension s = policy::lease::suspension::all,
    policy::lease::migration m = policy::lease::migration::none) {
  policy::lease::scheduler_config<T> c;
  c.suspend = s;
  c.migrate = m;
  c.in_vms = false;
  c.suspend_rate_mb_s = 102.4;
  c.resume_rate_mb_s = 51.2;
  c.network_mb_s = 10.24;
  return c;
}

// A best-effort lease submitted at `submit`; it really runs `real` (its whole `duration`
// unless told).
inline lease_terms<T> best_effort(std::uint64_t id, T submit, std::int64_t nodes, T duration,
                                  std::optional<T> real = std::nullopt) {
  lease_terms<T> t;
  t.id = id;
  t.submit = submit;
  t.kind = lease_kind::best_effort;
  t.nodes = nodes;
  t.per_node = {1, 1024, 0, 0};
  t.duration = duration;
  t.real_duration = real.value_or(duration);
  return t;
}

// An advance reservation of `nodes` nodes for [start, start + duration), not preemptible.
inline lease_terms<T> reservation(std::uint64_t id, T submit, T start, std::int64_t nodes,
                                  T duration) {
  lease_terms<T> t = best_effort(id, submit, nodes, duration);
  t.kind = lease_kind::advance_reservation;
  t.start = start;
  t.preemptible = false;
  return t;
}

// Runs the scheduler's own events until it has none left, checking validate() after each.
template <class Scheduler>
void run_to_end(Scheduler& s) {
  while (s.next_event_time()) {
    s.advance_to(*s.next_event_time());
    s.validate();
  }
}

// Feeds leases in submit order, driving the scheduler's own events in between, then runs it
// to the end; checks validate() after every step.
template <class Scheduler>
void run(Scheduler& s, const std::vector<lease_terms<T>>& leases) {
  for (const auto& l : leases) {
    while (s.next_event_time() && *s.next_event_time() < l.submit) {
      s.advance_to(*s.next_event_time());
      s.validate();
    }
    (void)s.submit(l, l.submit);
    s.validate();
  }
  run_to_end(s);
}

// Where and when a lease segment ran.
struct span_on {
  interval<T> span;
  std::vector<std::size_t> nodes;
  friend bool operator==(const span_on&, const span_on&) = default;
};

// Every segment of a lease: when it began and really ended, and where.
template <class Scheduler>
std::vector<span_on> segments(const Scheduler& s, std::uint64_t id) {
  std::vector<span_on> result;
  for (const auto& seg : s.lease(id).history) result.push_back({seg.span, seg.nodes});
  return result;
}

}  // namespace leasehold::test::lease_scenarios

// What a scenario test names, brought in by one using-directive in its namespace: the
// library's and the lease policy's names, and the builders, drivers and T above.
namespace leasehold::test::lease_scenario_names {
using namespace leasehold;
using namespace leasehold::policy::lease;
using namespace leasehold::test::lease_scenarios;
}  // namespace leasehold::test::lease_scenario_names
