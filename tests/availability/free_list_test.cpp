// free_list specifics beyond the shared conformance suite (conformance_test.cpp checks it
// against reference on random sequences): one small profile worked by hand through every
// member, the walk views, a change of total, value semantics, and each bad input refused with
// the profile unchanged.

#include <doctest/doctest.h>

#include <cstdint>
#include <iterator>
#include <optional>
#include <vector>

#include <leasehold/availability/free_list.hpp>
#include <leasehold/core/error.hpp>

namespace free_list_test {

using namespace leasehold;

namespace {

using T = std::int64_t;
using profile = free_list<T, T>;
using blocks = std::vector<free_block<T, T>>;

// 10 units from 0; 4 booked over [2, 5), 3 over [4, 8):
//   [0, 2) 10 | [2, 4) 6 | [4, 5) 3 | [5, 8) 7 | [8, forever) 10
profile booked_example() {
  profile p(10);
  p.reserve({2, 5}, 4);
  p.reserve({4, 8}, 3);
  return p;
}

const blocks example_blocks{
    {{0, 2}, 10}, {{2, 4}, 6}, {{4, 5}, 3}, {{5, 8}, 7}, {{8, forever<T>}, 10}};

}  // namespace

TEST_CASE("free_list: a profile worked by hand") {
  const profile p = booked_example();
  p.validate();
  CHECK(p.total() == 10);
  CHECK(p.origin() == 0);
  CHECK(p.free_blocks() == example_blocks);
  CHECK(p.block_count() == 5);
  CHECK(p.free_at(0) == 10);
  CHECK(p.free_at(4) == 3);
  CHECK(p.free_at(7) == 7);
  CHECK(p.free_at(1'000'000) == 10);
  CHECK(p.min_free({3, 6}) == 3);
  CHECK(p.min_free({5, 8}) == 7);
  // 8 units for 2: [0, 2) has 10. For 3: nothing before 8 is long enough.
  CHECK(p.earliest_fit({8, 2}) == T{0});
  CHECK(p.earliest_fit({8, 3}) == T{8});
  // 7 units for 3: [5, 8) has exactly 7.
  CHECK(p.earliest_fit({7, 3}) == T{5});
  // A window that ends before the fit: none.
  CHECK(p.earliest_fit({7, 3, {0, 7}}) == std::nullopt);
  // The latest start of 6 units for 2 ending by 6: [4, 6) and [3, 5) hold only 3; [2, 4) has 6.
  CHECK(p.latest_fit({6, 2, {0, 6}}) == T{2});
  CHECK(p.latest_fit({7, 3, {0, 8}}) == T{5});
  CHECK(p.memory_usage() > 0);
}

TEST_CASE("free_list: release merges blocks back, advance_to forgets the past") {
  profile p = booked_example();
  p.release({2, 5}, 4);
  CHECK(p.free_blocks() == blocks{{{0, 4}, 10}, {{4, 8}, 7}, {{8, forever<T>}, 10}});
  p.advance_to(6);
  CHECK(p.origin() == 6);
  CHECK(p.free_blocks() == blocks{{{6, 8}, 7}, {{8, forever<T>}, 10}});
  p.release({6, 8}, 3);
  CHECK(p.free_blocks() == blocks{{{6, forever<T>}, 10}});
  CHECK(p.block_count() == 1);
  p.validate();
}

TEST_CASE("free_list: walking from a time and over an interval, without a copy") {
  const profile p = booked_example();
  const auto from = p.blocks_from(5);
  CHECK(blocks(from.begin(), from.end()) == blocks{{{5, 8}, 7}, {{8, forever<T>}, 10}});
  // From inside a block: the first block starts at the time asked.
  const auto inside = p.blocks_from(3);
  CHECK(*inside.begin() == free_block<T, T>{{3, 4}, 6});
  const auto in = p.blocks_in({3, 6});
  CHECK(blocks(in.begin(), in.end()) == blocks{{{3, 4}, 6}, {{4, 5}, 3}, {{5, 6}, 7}});
  CHECK(p.next_change(0) == T{2});
  CHECK(p.next_change(4) == T{5});
  CHECK(p.next_change(8) == std::nullopt);
}

TEST_CASE("free_list: a change of total moves every block, refused where bookings exceed it") {
  profile p = booked_example();
  p.set_total(12);
  CHECK(p.total() == 12);
  CHECK(p.free_blocks() ==
        blocks{{{0, 2}, 12}, {{2, 4}, 8}, {{4, 5}, 5}, {{5, 8}, 9}, {{8, forever<T>}, 12}});
  // 7 units are booked over [4, 5): a total of 6 is refused, naming the time.
  const profile before = p;
  CHECK_THROWS_AS(p.set_total(6), insufficient_capacity);
  CHECK(p.free_blocks() == before.free_blocks());
  CHECK(p.total() == 12);
  p.set_total(7);
  CHECK(p.free_at(4) == 0);
}

TEST_CASE("free_list: copies are independent and equal in content") {
  const profile p = booked_example();
  profile copy = p;
  CHECK(copy.free_blocks() == p.free_blocks());
  copy.reserve({0, 2}, 10);
  CHECK(copy.free_at(0) == 0);
  CHECK(p.free_at(0) == 10);
  profile moved = std::move(copy);
  CHECK(moved.free_at(0) == 0);
  profile assigned(1);
  assigned = p;
  CHECK(assigned.free_blocks() == example_blocks);
}

TEST_CASE("free_list: bad input is refused and changes nothing") {
  profile p = booked_example();
  const auto unchanged = [&] {
    CHECK(p.free_blocks() == example_blocks);
    CHECK(p.origin() == 0);
    p.validate();
  };
  CHECK_THROWS_AS(profile(0), invalid_request);                  // a total must be positive
  CHECK_THROWS_AS(p.reserve({4, 6}, 4), insufficient_capacity);  // 3 free over [4, 5)
  unchanged();
  CHECK_THROWS_AS(p.release({0, 3}, 1), invalid_release);  // nothing booked over [0, 2)
  unchanged();
  CHECK_THROWS_AS(p.reserve({5, 5}, 1), invalid_request);  // an empty span
  unchanged();
  CHECK_THROWS_AS(p.reserve({1, 3}, 11), invalid_request);  // above the total
  unchanged();
  CHECK_THROWS_AS(p.reserve({1, 3}, -1), invalid_request);
  unchanged();
  CHECK_THROWS_AS((void)p.earliest_fit({11, 1}), invalid_request);
  CHECK_THROWS_AS((void)p.earliest_fit({1, 0}), invalid_request);
  p.advance_to(1);
  CHECK_THROWS_AS(p.advance_to(0), invalid_request);     // the clock never goes back
  CHECK_THROWS_AS((void)p.free_at(0), invalid_request);  // the past is forgotten
  CHECK(p.origin() == 1);
}

}  // namespace free_list_test
