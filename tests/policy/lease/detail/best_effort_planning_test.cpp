// Best-effort planning (detail/best_effort_planning.hpp) driven on a hand-built book: the
// queue served FIFO with aggressive backfilling. One node of 2 CPUs; leases of one CPU that
// cannot be suspended (each needs its whole duration); times derived by hand in the comments.

#include <doctest/doctest.h>

#include <cstdint>
#include <set>
#include <vector>

#include <leasehold/policy/lease/detail/best_effort_planning.hpp>

#include "policy/lease/detail/small_book.hpp"

namespace best_effort_planning_test {

using namespace leasehold::test::small_book_test_names;
using ids = std::vector<std::uint64_t>;

TEST_CASE("best_effort_planning: the queue planned FIFO with aggressive backfilling") {
  sb::book b = sb::make(1, sb::config(suspension::none));
  for (const auto& t : {best_effort(1, 0, 1, 100), best_effort(2, 0, 1, 100),
                        best_effort(3, 0, 1, 50), best_effort(4, 0, 1, 20)})
    sb::add_queued(b, t);
  policy::lease::detail::best_effort_planning<sb::book> planning(b);
  CHECK(planning.served_order() == ids{1, 2, 3, 4});
  planning.reevaluate();
  // 1 and 2 take both CPUs over [0, 100). 3 cannot start now and holds the one future
  // reservation aggressive backfilling gives, [100, 150); 4 does not fit now and waits.
  CHECK(b.lease(1).state == lease_state::running);
  CHECK(b.lease(2).state == lease_state::running);
  CHECK(b.lease(1).current->booked == interval<T>{0, 100});
  CHECK(b.lease(3).state == lease_state::scheduled);
  CHECK(b.lease(3).current->booked == interval<T>{100, 150});
  CHECK(b.reserved() == std::set<std::uint64_t>{3});
  CHECK(b.lease(4).state == lease_state::queued);
  CHECK(planning.served_order() == ids{4});
  CHECK_NOTHROW(b.validate());
}

TEST_CASE("best_effort_planning: plan says where and when without booking") {
  sb::book b = sb::make(1, sb::config(suspension::none));
  sb::add_queued(b, best_effort(1, 0, 1, 100));
  const policy::lease::detail::best_effort_planning<sb::book> planning(b);
  const auto seg = planning.plan(b.lease(1), false);
  REQUIRE(seg);
  CHECK(seg->nodes == std::vector<std::size_t>{0});
  CHECK(seg->booked == interval<T>{0, 100});
  CHECK(seg->finish == 100);
  CHECK(b.lease(1).state == lease_state::queued);  // nothing booked
  CHECK(b.events().empty());
}

}  // namespace best_effort_planning_test
