// What the two node-based time-exclusive backends, free_list (Schneider & Linnert §5) and
// free_tree, share beyond the conformance suite: one node per maximal free block, the value
// semantics of a node structure, node reuse through the pool (capacity_tree's pool too), and
// advance_to freeing the past. Written once over the backends (the cases used to be copied
// per backend).

#include <doctest/doctest.h>

#include <cstdint>
#include <utility>

#include <leasehold/availability/capacity_tree.hpp>
#include <leasehold/availability/free_list.hpp>
#include <leasehold/availability/free_tree.hpp>

#include "availability/backends.hpp"

namespace block_backends_test {

using namespace leasehold;

namespace {
// Scalar int capacities, as the churn case always used.
using int_free_list = free_list<std::int64_t, int>;
using int_free_tree = free_tree<std::int64_t, int>;
using int_capacity_tree = capacity_tree<std::int64_t, int>;
}  // namespace

TEST_CASE_TEMPLATE("block backends: one node per maximal free block", B, free_list<>, free_tree<>) {
  B profile(100);
  CHECK(profile.block_count() == 1);
  profile.reserve({10, 20}, 5);
  CHECK(profile.block_count() == 3);
  profile.reserve({20, 30}, 5);  // extends the same block: [10, 30) 95
  CHECK(profile.block_count() == 3);
  CHECK(profile.block_count() == profile.free_blocks().size());
  profile.validate();
}

TEST_CASE_TEMPLATE("block backends: copies are deep and independent", B, free_list<>, free_tree<>) {
  B original(10);
  original.reserve({0, 10}, 3);
  B copy = original;
  copy.reserve({5, 15}, 2);
  CHECK(original.free_at(12) == 10);
  CHECK(copy.free_at(12) == 8);
  copy.validate();
  original.validate();

  SUBCASE("copy assignment replaces the whole profile") {
    original = copy;
    CHECK(original.free_blocks() == copy.free_blocks());
    original.validate();
    copy.reserve({20, 30}, 1);
    CHECK(original.free_at(25) == 10);
  }
  SUBCASE("moves keep the blocks") {
    const auto blocks = copy.free_blocks();
    B moved = std::move(copy);
    CHECK(moved.free_blocks() == blocks);
    moved.validate();
    B assigned(1);
    assigned = std::move(moved);
    CHECK(assigned.free_blocks() == blocks);
    assigned.validate();
    CHECK(assigned.total() == 10);
  }
  SUBCASE("swap exchanges everything") {
    B other(3, 50);
    other.swap(copy);
    CHECK(copy.total() == 3);
    CHECK(copy.origin() == 50);
    CHECK(other.free_at(12) == 8);
    other.validate();
    copy.validate();
  }
}

// capacity_tree pools its nodes too (and keeps scratch space for its rebuilds), so it shares
// this case: the memory is taken after one release-and-rebook cycle, when that space exists.
TEST_CASE_TEMPLATE("pooled backends: released nodes are reused, so churn does not grow memory", B,
                   int_free_list, int_free_tree, int_capacity_tree) {
  B profile(64);
  for (int i = 0; i < 200; ++i) profile.reserve({i * 10, i * 10 + 5}, 1 + i % 7);
  for (int i = 0; i < 200; ++i) profile.release({i * 10, i * 10 + 5}, 1 + i % 7);
  for (int i = 0; i < 200; ++i) profile.reserve({i * 10, i * 10 + 5}, 1 + i % 7);
  const std::size_t after_build = profile.memory_usage();
  for (int round = 0; round < 50; ++round) {
    for (int i = 0; i < 200; ++i) profile.release({i * 10, i * 10 + 5}, 1 + i % 7);
    for (int i = 0; i < 200; ++i) profile.reserve({i * 10, i * 10 + 5}, 1 + i % 7);
  }
  CHECK(profile.memory_usage() == after_build);
  profile.validate();
}

TEST_CASE_TEMPLATE("block backends: advance_to drops nodes that lie in the past", B, free_list<>,
                   free_tree<>) {
  B profile(8);
  for (int i = 0; i < 100; ++i) profile.reserve({i * 2, i * 2 + 1}, 8);
  CHECK(profile.block_count() == 200);
  profile.advance_to(101);  // inside the free gap [100, 102)
  CHECK(profile.origin() == 101);
  CHECK(profile.block_count() == 99);
  CHECK(profile.free_blocks().front() == free_block<std::int64_t, std::int64_t>{{101, 102}, 8});
  profile.validate();
  profile.advance_to(150);  // inside a booked block: it is cut at 150
  CHECK(profile.free_blocks().front() == free_block<std::int64_t, std::int64_t>{{150, 151}, 0});
  profile.validate();
}

}  // namespace block_backends_test
