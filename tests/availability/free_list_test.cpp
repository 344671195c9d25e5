// free_list specifics beyond the shared conformance suite: one node per block, value
// semantics of an intrusive structure, and node reuse through the pool.

#include <doctest/doctest.h>

#include <cstdint>
#include <utility>

#include <leasehold/availability/free_list.hpp>

using namespace leasehold;

TEST_CASE("free_list: one node per maximal free block") {
  free_list<> profile(100);
  CHECK(profile.block_count() == 1);
  profile.reserve({10, 20}, 5);
  CHECK(profile.block_count() == 3);
  profile.reserve({20, 30}, 5);  // extends the same block: [10, 30) 95
  CHECK(profile.block_count() == 3);
  CHECK(profile.block_count() == profile.free_blocks().size());
  profile.validate();
}

TEST_CASE("free_list: copies are deep and independent") {
  free_list<> original(10);
  original.reserve({0, 10}, 3);
  free_list<> copy = original;
  copy.reserve({5, 15}, 2);
  CHECK(original.free_at(12) == 10);
  CHECK(copy.free_at(12) == 8);
  copy.validate();
  original.validate();

  SUBCASE("copy assignment replaces the whole profile") {
    original = copy;
    CHECK(original.free_blocks() == copy.free_blocks());
    original.validate();
  }
  SUBCASE("moves keep the blocks") {
    const auto blocks = copy.free_blocks();
    free_list<> moved = std::move(copy);
    CHECK(moved.free_blocks() == blocks);
    moved.validate();
    free_list<> assigned(1);
    assigned = std::move(moved);
    CHECK(assigned.free_blocks() == blocks);
    assigned.validate();
  }
}

TEST_CASE("free_list: released nodes are reused, so churn does not grow memory") {
  free_list<std::int64_t, int> profile(64);
  for (int i = 0; i < 200; ++i) profile.reserve({i * 10, i * 10 + 5}, 1 + i % 7);
  const std::size_t after_build = profile.memory_usage();
  for (int round = 0; round < 50; ++round) {
    for (int i = 0; i < 200; ++i) profile.release({i * 10, i * 10 + 5}, 1 + i % 7);
    for (int i = 0; i < 200; ++i) profile.reserve({i * 10, i * 10 + 5}, 1 + i % 7);
  }
  CHECK(profile.memory_usage() == after_build);
  profile.validate();
}

TEST_CASE("free_list: advance_to drops nodes that lie in the past") {
  free_list<> profile(8);
  for (int i = 0; i < 100; ++i) profile.reserve({i * 2, i * 2 + 1}, 8);
  CHECK(profile.block_count() == 200);
  profile.advance_to(101);  // inside the free gap [100, 102)
  CHECK(profile.origin() == 101);
  CHECK(profile.block_count() == 99);
  CHECK(profile.free_blocks().front() == free_block<std::int64_t, std::int64_t>{{101, 102}, 8});
  profile.validate();
}
