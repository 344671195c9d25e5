// The run records behind a new request class's bounds in cluster::slot_table
// (cluster/detail/run_records.hpp): hand-computed records of a node's blocks, lookups that are
// exact and lookups that are only lower bounds (records left out, a booking, a release, a
// moved origin).

#include <doctest/doctest.h>

#include <cstdint>
#include <limits>
#include <vector>

#include <leasehold/cluster/detail/run_records.hpp>
#include <leasehold/core/free_block.hpp>

namespace run_records_test {

using namespace leasehold;
using records = cluster::detail::run_records<std::int64_t, int>;
using block = free_block<std::int64_t, int>;
constexpr std::int64_t forever = std::numeric_limits<std::int64_t>::max();

TEST_CASE("run_records: the first run long enough, per amount level") {
  // Free 4 over [0, 3), 1 over [3, 5), 2 over [5, 12), 0 over [12, 20), 4 from 20 on.
  const std::vector<block> blocks{
      {{0, 3}, 4}, {{3, 5}, 1}, {{5, 12}, 2}, {{12, 20}, 0}, {{20, forever}, 4}};
  records r(1);
  r.add_level(0);  // at least 1 free: runs [0, 12) and [20, forever)
  r.add_level(1);  // at least 2: [0, 3), [5, 12), [20, forever)
  r.add_level(2);  // at least 4: [0, 3), [20, forever)
  // A level not yet computed for the node gives the origin, a lower bound only.
  CHECK(r.lookup(0, 1, 4, 0).bound == 0);
  CHECK_FALSE(r.lookup(0, 1, 4, 0).exact);
  r.refresh(0, blocks);
  CHECK(r.lookup(0, 0, 12, 0).bound == 0);
  CHECK(r.lookup(0, 0, 13, 0).bound == 20);
  CHECK(r.lookup(0, 1, 3, 0).bound == 0);
  CHECK(r.lookup(0, 1, 4, 0).bound == 5);
  CHECK(r.lookup(0, 1, 8, 0).bound == 20);
  CHECK(r.lookup(0, 2, 4, 0).bound == 20);
  CHECK(r.lookup(0, 2, 4, 0).exact);
  CHECK(r.current(0, 2));
}

TEST_CASE("run_records: a bounded profile's short horizon fits nothing") {
  const std::vector<block> blocks{{{0, 4}, 1}, {{4, 6}, 0}, {{6, 9}, 1}};
  records r(1);
  r.add_level(0);
  r.refresh(0, blocks);
  CHECK(r.lookup(0, 0, 4, 0).bound == 0);
  CHECK(r.lookup(0, 0, 5, 0).bound == records::never);
  CHECK(r.lookup(0, 0, 5, 0).exact);
}

TEST_CASE("run_records: records left out give a lower bound between the kept ones") {
  // Runs of length 1, 2, ..., 10 at level 0, each followed by one busy unit: ten records, of
  // which the first seven and the last are kept.
  std::vector<block> blocks;
  std::int64_t t = 0;
  for (std::int64_t length = 1; length <= 10; ++length) {
    blocks.push_back({{t, t + length}, 1});
    blocks.push_back({{t + length, t + length + 1}, 0});
    t += length + 1;
  }
  blocks.push_back({{t, forever}, 0});
  records r(1);
  r.add_level(0);
  r.refresh(0, blocks);
  // Length 7 starts at 0+2+3+4+5+6+7 = 27: the seventh record, kept.
  CHECK(r.lookup(0, 0, 7, 0).bound == 27);
  CHECK(r.lookup(0, 0, 7, 0).exact);
  // Length 8 starts at 35 and 9 at 44, both left out: the bound is the end of the seventh run.
  CHECK(r.lookup(0, 0, 8, 0).bound == 34);
  CHECK_FALSE(r.lookup(0, 0, 8, 0).exact);
  CHECK(r.lookup(0, 0, 10, 0).bound == 34);
  CHECK(r.lookup(0, 0, 11, 0).bound == records::never);
}

TEST_CASE("run_records: bookings, releases and a moved origin leave lower bounds") {
  const std::vector<block> blocks{{{0, 10}, 0}, {{10, forever}, 1}};
  records r(2);
  r.add_level(0);
  r.refresh(0, blocks);
  r.refresh(1, blocks);
  r.booked(0);
  CHECK(r.lookup(0, 0, 4, 0).bound == 10);
  CHECK_FALSE(r.lookup(0, 0, 4, 0).exact);
  CHECK_FALSE(r.current(0, 0));
  // A release from 7 may let a duration 4 start at 3.
  r.released(1, 7);
  CHECK(r.lookup(1, 0, 4, 0).bound == 3);
  CHECK(r.lookup(1, 0, 9, 0).bound == 0);
  CHECK_FALSE(r.lookup(1, 0, 4, 0).exact);
  r.refresh(1, blocks);
  CHECK(r.lookup(1, 0, 4, 0).bound == 10);
  CHECK(r.lookup(1, 0, 4, 0).exact);
  // An unbounded profile's origin moving to 12: the old records, clipped to it.
  r.advanced(false);
  CHECK(r.lookup(1, 0, 4, 12).bound == 12);
  CHECK_FALSE(r.lookup(1, 0, 4, 12).exact);
  // A bounded one's: forgotten.
  r.refresh(1, blocks);
  r.advanced(true);
  CHECK(r.lookup(1, 0, 4, 5).bound == 5);
  CHECK_FALSE(r.lookup(1, 0, 4, 5).exact);
}

}  // namespace run_records_test
