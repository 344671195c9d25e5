// The event clock (detail/event_clock.hpp) driven on a hand-built book: every segment end and
// begin due by the caller's time, ends first, the schedule re-evaluated after each instant.
// One node of 2 CPUs; leases of one CPU that cannot be suspended; times derived by hand.

#include <doctest/doctest.h>

#include <cstdint>
#include <set>

#include <leasehold/policy/lease/detail/best_effort_planning.hpp>
#include <leasehold/policy/lease/detail/event_clock.hpp>

#include "policy/lease/detail/small_book.hpp"

namespace event_clock_test {

using namespace leasehold::test::small_book_test_names;

TEST_CASE("event_clock: ends before begins at one instant, then the queue is planned again") {
  sb::book b = sb::make(1, sb::config(suspension::none));
  for (const auto& t : {best_effort(1, 0, 1, 100), best_effort(2, 0, 1, 100),
                        best_effort(3, 0, 1, 50), best_effort(4, 0, 1, 20)})
    sb::add_queued(b, t);
  // 1 and 2 run [0, 100), 3 is booked for [100, 150), 4 waits (best_effort_planning_test).
  policy::lease::detail::best_effort_planning<sb::book>(b).reevaluate();
  policy::lease::detail::event_clock<sb::book> clock(b);
  clock.run_events_until(99);
  CHECK(b.now() == 99);
  CHECK(b.lease(1).state == lease_state::running);
  // At 100: 1 and 2 end, then 3 begins; re-planning starts 4 beside 3, [100, 120).
  clock.run_events_until(100);
  CHECK(b.now() == 100);
  CHECK(b.lease(1).state == lease_state::done);
  CHECK(b.lease(1).end == T{100});
  CHECK(b.lease(1).history.size() == 1);
  CHECK(b.lease(1).history[0].outcome == segment_outcome::completed);
  CHECK(b.lease(2).state == lease_state::done);
  CHECK(b.lease(3).state == lease_state::running);
  CHECK(b.lease(3).first_start == T{100});
  CHECK(b.reserved().empty());  // given back when 3 began
  CHECK(b.lease(4).state == lease_state::running);
  CHECK(b.lease(4).current->booked == interval<T>{100, 120});
  CHECK(b.events() == std::set<sb::book::event>{{120, sb::book::finish_order, 4},
                                                {150, sb::book::finish_order, 3}});
  clock.run_events_until(1000);
  CHECK(b.lease(4).end == T{120});
  CHECK(b.lease(3).end == T{150});
  CHECK(b.events().empty());
  CHECK(b.now() == 1000);
  CHECK_NOTHROW(b.validate());
}

}  // namespace event_clock_test
