// policy::lease::queue_order: the best-effort queue served FIFO by default, by a user-side
// shortest-job-first or priority function (each one short type), or by a function chosen at
// run time; a NaN key rejected with nothing changed. Expected schedules derived in comments.

#include <doctest/doctest.h>

#include <cmath>
#include <cstdint>
#include <map>
#include <memory>
#include <vector>

#include "policy/lease/customisation_scenarios.hpp"

namespace queue_order_test {

using namespace leasehold;
using namespace leasehold::policy::lease;
using namespace leasehold::test::customisation;

namespace {

// The user's side: shortest job first is one short type ...
struct shortest_job_first {
  T operator()(const lease_record<T>& lease, T /*now*/) const { return lease.remaining_max; }
};

// ... and so is a priority function (larger priority first; unknown ids get 0).
struct by_priority {
  std::shared_ptr<const std::map<std::uint64_t, int>> priority;
  int operator()(const lease_record<T>& lease, T /*now*/) const {
    const auto it = priority->find(lease.terms.id);
    return it == priority->end() ? 0 : -it->second;
  }
};

}  // namespace

TEST_CASE("queue order: FIFO by default") {
  // Aggressive backfilling: the head holds the one future reservation. L2 is booked for 100
  // and runs [100, 400); L3 then holds the reservation, [400, 450); L4 [450, 460).
  lease_scheduler<> s(two_single_cpu_nodes(), test_config());
  run(s, contended());
  CHECK(only_segment(s, 2) == span_on{{100, 400}, nodes{0, 1}});
  CHECK(only_segment(s, 3) == span_on{{400, 450}, nodes{0, 1}});
  CHECK(only_segment(s, 4) == span_on{{450, 460}, nodes{0, 1}});
}

TEST_CASE("queue order: shortest job first is one user-side type") {
  // At 2 the queue is re-planned shortest first: L3 (50) takes the reservation at 100 and L2
  // loses it; at 3 L4 (10) takes it. So L4 [100, 110), L3 [110, 160), L2 [160, 460).
  lease_scheduler<backend, images_predeployed, shortest_job_first> sjf(two_single_cpu_nodes(),
                                                                       test_config());
  const auto leases = contended();
  for (const auto& l : leases) (void)sjf.submit(l, l.submit);
  // At 3 L4 holds the reservation; the queue behind it is served L3 (50 s), then L2 (300 s).
  CHECK(sjf.lease(4).state == lease_state::scheduled);
  CHECK(sjf.queue() == std::vector<std::uint64_t>{3, 2});
  while (sjf.next_event_time()) {
    sjf.advance_to(*sjf.next_event_time());
    sjf.validate();
  }
  CHECK(only_segment(sjf, 1) == span_on{{0, 100}, nodes{0, 1}});
  CHECK(only_segment(sjf, 4) == span_on{{100, 110}, nodes{0, 1}});
  CHECK(only_segment(sjf, 3) == span_on{{110, 160}, nodes{0, 1}});
  CHECK(only_segment(sjf, 2) == span_on{{160, 460}, nodes{0, 1}});
}

TEST_CASE("queue order: a priority function, equal keys first come first served") {
  // Priorities L2 = 1, L3 = 5, L4 = 3: L3 [100, 150), L4 [150, 160), L2 [160, 460).
  auto priority = std::make_shared<const std::map<std::uint64_t, int>>(
      std::map<std::uint64_t, int>{{2, 1}, {3, 5}, {4, 3}});
  lease_scheduler<backend, images_predeployed, by_priority> s(two_single_cpu_nodes(), test_config(),
                                                              {}, {priority});
  run(s, contended());
  CHECK(only_segment(s, 3) == span_on{{100, 150}, nodes{0, 1}});
  CHECK(only_segment(s, 4) == span_on{{150, 160}, nodes{0, 1}});
  CHECK(only_segment(s, 2) == span_on{{160, 460}, nodes{0, 1}});

  // All equal (every id unknown: key 0): the FIFO schedule.
  lease_scheduler<backend, images_predeployed, by_priority> equal(
      two_single_cpu_nodes(), test_config(), {},
      {std::make_shared<const std::map<std::uint64_t, int>>()});
  run(equal, contended());
  CHECK(only_segment(equal, 2) == span_on{{100, 400}, nodes{0, 1}});
  CHECK(only_segment(equal, 4) == span_on{{450, 460}, nodes{0, 1}});
}

TEST_CASE("queue order: chosen at run time through queue_order_function") {
  lease_scheduler<backend, images_predeployed, queue_order_function<T>> s(
      two_single_cpu_nodes(), test_config(), {},
      {[](const lease_record<T>& l, T) { return static_cast<double>(l.remaining_max); }});
  run(s, contended());
  CHECK(only_segment(s, 4) == span_on{{100, 110}, nodes{0, 1}});
  CHECK(only_segment(s, 2) == span_on{{160, 460}, nodes{0, 1}});
}

TEST_CASE("queue order: a NaN key is an error and the call changes nothing") {
  lease_scheduler<backend, images_predeployed, queue_order_function<T>> s(
      two_single_cpu_nodes(), test_config(), {},
      {[](const lease_record<T>& l, T) { return l.terms.id == 3 ? std::nan("") : 1.0; }});
  (void)s.submit(best_effort(1, 0, 2, 100), 0);
  (void)s.submit(best_effort(2, 1, 2, 300), 1);
  const auto queue_before = s.queue();
  const auto reserved_before = s.lease(2).current;
  CHECK_THROWS_WITH_AS(s.submit(best_effort(3, 2, 2, 50), 2),
                       "queue order: the key for lease 3 is NaN; keys must be ordered numbers",
                       invalid_request);
  CHECK(s.leases().size() == 2);
  CHECK(s.queue() == queue_before);
  REQUIRE(s.lease(2).current.has_value());
  CHECK(s.lease(2).current->booked == reserved_before->booked);
  CHECK(s.now() == 1);
  s.validate();
}

}  // namespace queue_order_test
