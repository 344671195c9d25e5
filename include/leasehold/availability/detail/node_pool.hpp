#pragma once

// A pool of fixed-size nodes for the intrusive backends: memory is taken from the system in
// chunks and recycled through an intrusive free list, so that a reserve that splits a block
// costs no heap allocation in the steady state. Addresses are stable for the life of the pool
// (chunks never move), which intrusive containers require.
//
// Growth is paid in small pieces: chunks grow geometrically only up to
// max_chunk_bytes, are allocated uninitialised (no memset), and their slots are handed out
// from a bump pointer rather than threaded onto the free list up front. So no single create()
// or reserve_nodes() touches more than one bounded chunk, however large the pool already is
// (before, passing 65,536 free_tree nodes made one reserve zero and link ~56 MB). Only a
// reserve_nodes(count) for a large count (a copy of a whole structure) allocates a chunk of
// that size, which the copy pays for anyway.

#include <algorithm>
#include <cstddef>
#include <memory>
#include <new>
#include <utility>
#include <vector>

#include "leasehold/core/detail/swap_members.hpp"

namespace leasehold::detail {

template <class Node>
class node_pool {
 public:
  node_pool() = default;
  node_pool(const node_pool&) = delete;
  node_pool& operator=(const node_pool&) = delete;
  node_pool(node_pool&& other) noexcept { swap(other); }
  node_pool& operator=(node_pool&& other) noexcept {
    node_pool(std::move(other)).swap(*this);
    return *this;
  }
  ~node_pool() = default;  // the owner destroys its live nodes first

  // Constructs a node. Throws std::bad_alloc (and whatever Node's constructor throws),
  // leaving the pool as it was.
  template <class... Args>
  [[nodiscard]] Node* create(Args&&... args) {
    if (at_.free == nullptr) {
      if (at_.bump == at_.bump_end) grow();
      // Thread the next untouched slot onto the list: create() then has one path below.
      at_.bump->next = nullptr;
      at_.free = at_.bump++;
    }
    slot* s = at_.free;
    // The node is built over the link, so the link is read first and put back if the
    // constructor throws (it may have written part of the slot before throwing).
    slot* const next = s->next;
    Node* node = nullptr;
    try {
      node = ::new (static_cast<void*>(s->storage)) Node(std::forward<Args>(args)...);
    } catch (...) {
      s->next = next;
      throw;
    }
    at_.free = next;
    ++at_.live;
    return node;
  }

  void destroy(Node* node) noexcept {
    node->~Node();
    slot* s = ::new (static_cast<void*>(node)) slot;
    s->next = at_.free;
    at_.free = s;
    --at_.live;
  }

  // Makes sure the next `count` create() calls need no system allocation.
  void reserve_nodes(std::size_t count) {
    std::size_t spare = static_cast<std::size_t>(at_.bump_end - at_.bump);
    for (slot* s = at_.free; s != nullptr && spare < count; s = s->next) ++spare;
    if (spare < count) grow(count - spare);
  }

  [[nodiscard]] std::size_t live() const noexcept { return at_.live; }
  [[nodiscard]] std::size_t capacity() const noexcept { return at_.capacity; }
  [[nodiscard]] static constexpr std::size_t node_size() noexcept { return sizeof(slot); }

  void swap(node_pool& other) noexcept {
    swap_members(*this, other, &node_pool::chunks_, &node_pool::at_);
  }

 private:
  union slot {
    slot* next;
    alignas(Node) unsigned char storage[sizeof(Node)];
  };

  // A chunk adds an eighth of the capacity (at least min_chunk_slots, at most max_chunk_bytes),
  // so the slots never handed out stay within an eighth of the capacity plus one smallest
  // chunk. Doubling left up to half of the slots unused, most of a tree's memory at some sizes
  // (docs/performance.md, "Pools grow by an eighth"). The price is more chunks, each one
  // allocation, which measured no slower.
  static constexpr std::size_t growth_divisor = 8;
  static constexpr std::size_t min_chunk_slots = 16;
  static constexpr std::size_t max_chunk_bytes = std::size_t{1} << 20;
  static constexpr std::size_t max_chunk_slots =
      std::max(min_chunk_slots, max_chunk_bytes / sizeof(slot));

  // Adds a chunk with room for at least `at_least` more nodes on top of the untouched slots
  // left in the current one. Strong guarantee: on bad_alloc nothing has changed.
  void grow(std::size_t at_least = 1) {
    const std::size_t left = static_cast<std::size_t>(at_.bump_end - at_.bump);
    const std::size_t count = std::max(
        at_least, std::clamp(at_.capacity / growth_divisor, min_chunk_slots, max_chunk_slots));
    chunks_.reserve(chunks_.size() + 1);  // so that push_back below cannot throw
    // Default-initialised: the slots stay untouched until handed out.
    std::unique_ptr<slot[]> chunk(new slot[count]);
    // The few untouched slots of the old chunk go onto the free list (fewer than
    // max_chunk_slots, or fewer than the `at_least` the caller asked for).
    for (std::size_t i = 0; i < left; ++i) {
      at_.bump->next = at_.free;
      at_.free = at_.bump++;
    }
    at_.bump = chunk.get();
    at_.bump_end = chunk.get() + count;
    chunks_.push_back(std::move(chunk));
    at_.capacity += count;
  }

  // Where the pool stands in its chunks: plain values, so that a move or swap of the pool is
  // the chunk list's and one copy of these.
  struct position {
    slot* free = nullptr;  // the recycled slots, linked through slot::next
    slot* bump = nullptr;  // [bump, bump_end): never handed out yet, not on the free list
    slot* bump_end = nullptr;
    std::size_t live = 0;
    std::size_t capacity = 0;  // slots in all chunks
  };

  std::vector<std::unique_ptr<slot[]>> chunks_;
  position at_;
};

}  // namespace leasehold::detail
