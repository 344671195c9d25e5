// leasehold.hpp, the umbrella header: included alone, it is enough to plan with. A short
// end-to-end use, hand-computed: book a reservation on a free_list, ask for the earliest and
// the latest start of the next request, walk the profile, grow it, refuse an overbooking
// without changing anything, and fit a two-component request on the reference backend.

#include <doctest/doctest.h>

#include <cstdint>
#include <string>
#include <vector>

#include <leasehold/leasehold.hpp>

namespace leasehold_test {

using namespace leasehold;

TEST_CASE("leasehold.hpp: plan on a free_list through the umbrella header alone") {
  CHECK(std::string(version_string).size() >= 5);
  free_list<> cluster(8);
  // 5 of 8 nodes for 10 ticks fit at once; book them.
  const auto first = cluster.earliest_fit({5, 10});
  REQUIRE(first == 0);
  cluster.reserve({*first, *first + 10}, 5);
  // 4 nodes for 5 ticks: only 3 are free until 10.
  CHECK(cluster.earliest_fit({4, 5}) == 10);
  // As late as possible inside [0, 30): from 25; 3 nodes fit beside the booking.
  CHECK(latest_fit(cluster, request<std::int64_t, std::int64_t>{4, 5, {0, 30}}) == 25);
  CHECK(cluster.earliest_fit({3, 5}) == 0);
  CHECK(next_change(cluster, 4) == 10);
  const std::vector<free_block<std::int64_t, std::int64_t>> expected{
      {{0, 10}, 3}, {{10, forever<std::int64_t>}, 8}};
  CHECK(cluster.free_blocks() == expected);

  // 4 more nodes over [5, 15) would need 9 at [5, 10): refused, naming the span, nothing booked.
  try {
    cluster.reserve({5, 15}, 4);
    FAIL("an overbooking was accepted");
  } catch (const error& e) {
    CHECK(dynamic_cast<const insufficient_capacity*>(&e) != nullptr);
    CHECK(std::string(e.what()).find("[5, 15)") != std::string::npos);
  }
  CHECK(cluster.free_blocks() == expected);

  // Two more nodes: the booking stays, every block gains 2.
  set_total(cluster, std::int64_t{10});
  CHECK(cluster.free_at(0) == 5);
  CHECK(cluster.earliest_fit({4, 5}) == 0);
}

TEST_CASE("leasehold.hpp: a two-component request on the reference backend") {
  using cpus_and_gb = resources<2, std::int64_t>;
  reference<std::int64_t, cpus_and_gb> node(cpus_and_gb{16, 64});
  node.reserve({0, 100}, cpus_and_gb{8, 60});
  // 4 CPUs fit beside the booking, 8 GB do not: it starts when the booking ends.
  CHECK(node.earliest_fit({cpus_and_gb{4, 8}, 50}) == 100);
  CHECK(node.earliest_fit({cpus_and_gb{4, 4}, 50}) == 0);
  CHECK(node.min_free({50, 150}) == cpus_and_gb{8, 4});
}

}  // namespace leasehold_test
