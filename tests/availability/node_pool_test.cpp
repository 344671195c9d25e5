#include "leasehold/availability/detail/node_pool.hpp"

#include <doctest/doctest.h>

#include <cstddef>
#include <set>
#include <vector>

namespace node_pool_test {

namespace {

struct big_node {
  explicit big_node(int v) : value(v) {}
  int value;
  unsigned char payload[1020]{};
};

}  // namespace

// Issue 19: growth is paid in bounded chunks, so once the pool is large one more node never
// brings a chunk as big as the pool (before, capacity doubled: 65,536 -> 131,072 slots in
// one call).
TEST_CASE("node_pool: growth comes in bounded chunks, addresses stay stable") {
  leasehold::detail::node_pool<big_node> pool;
  std::vector<big_node*> nodes;
  std::set<big_node*> distinct;
  constexpr std::size_t chunk_bound = (std::size_t{1} << 20) / sizeof(big_node) + 1;
  for (int i = 0; i < 5000; ++i) {
    const std::size_t before = pool.capacity();
    nodes.push_back(pool.create(i));
    distinct.insert(nodes.back());
    CHECK(pool.capacity() - before <= chunk_bound);
    CHECK(pool.capacity() - pool.live() <= pool.capacity() / 8 + 16);
  }
  CHECK(pool.live() == 5000);
  CHECK(distinct.size() == 5000);
  CHECK(pool.capacity() - pool.live() <= chunk_bound);
  // Each chunk adds about an eighth of the capacity: the slots never handed out stay within
  // an eighth of it (plus the smallest chunk), at every size, not just below the chunk bound.
  CHECK(pool.capacity() - pool.live() <= pool.capacity() / 8 + 16);
  for (int i = 0; i < 5000; ++i) CHECK(nodes[static_cast<std::size_t>(i)]->value == i);
  // Freed slots come back first: no growth while recycling.
  const std::size_t capacity = pool.capacity();
  for (int i = 0; i < 5000; i += 2) pool.destroy(nodes[static_cast<std::size_t>(i)]);
  for (int i = 0; i < 5000; i += 2) nodes[static_cast<std::size_t>(i)] = pool.create(-i);
  CHECK(pool.capacity() == capacity);
  // reserve_nodes counts the untouched slots and the free list; a large request gets room.
  pool.reserve_nodes(3000);
  const std::size_t reserved = pool.capacity();
  CHECK(reserved - pool.live() >= 3000);
  for (int i = 0; i < 3000; ++i) nodes.push_back(pool.create(i));
  CHECK(pool.capacity() == reserved);
  for (big_node* n : nodes) pool.destroy(n);
  CHECK(pool.live() == 0);
}

}  // namespace node_pool_test
