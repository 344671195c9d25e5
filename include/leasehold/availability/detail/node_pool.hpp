#pragma once

// A pool of fixed-size nodes for the intrusive backends: memory is taken from the system in
// geometrically growing chunks and recycled through an intrusive free list, so that a
// reserve that splits a block costs no heap allocation in the steady state. Addresses are
// stable for the life of the pool (chunks never move), which intrusive containers require.

#include <algorithm>
#include <cstddef>
#include <memory>
#include <new>
#include <utility>
#include <vector>

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
    if (free_ == nullptr) grow();
    slot* s = free_;
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
    free_ = next;
    ++live_;
    return node;
  }

  void destroy(Node* node) noexcept {
    node->~Node();
    slot* s = ::new (static_cast<void*>(node)) slot;
    s->next = free_;
    free_ = s;
    --live_;
  }

  // Makes sure the next `count` create() calls need no system allocation.
  void reserve_nodes(std::size_t count) {
    std::size_t spare = 0;
    for (slot* s = free_; s != nullptr && spare < count; s = s->next) ++spare;
    if (spare < count) grow(count - spare);
  }

  [[nodiscard]] std::size_t live() const noexcept { return live_; }
  [[nodiscard]] std::size_t capacity() const noexcept { return capacity_; }
  [[nodiscard]] static constexpr std::size_t node_size() noexcept { return sizeof(slot); }

  void swap(node_pool& other) noexcept {
    using std::swap;
    swap(chunks_, other.chunks_);
    swap(free_, other.free_);
    swap(live_, other.live_);
    swap(capacity_, other.capacity_);
  }

 private:
  union slot {
    slot* next;
    alignas(Node) unsigned char storage[sizeof(Node)];
  };

  void grow(std::size_t at_least = 1) {
    const std::size_t count = std::max({at_least, capacity_, std::size_t{16}});
    chunks_.reserve(chunks_.size() + 1);  // so that push_back below cannot throw
    auto chunk = std::make_unique<slot[]>(count);
    for (std::size_t i = 0; i < count; ++i) chunk[i].next = i + 1 < count ? &chunk[i + 1] : free_;
    free_ = &chunk[0];
    chunks_.push_back(std::move(chunk));
    capacity_ += count;
  }

  std::vector<std::unique_ptr<slot[]>> chunks_;
  slot* free_ = nullptr;
  std::size_t live_ = 0;
  std::size_t capacity_ = 0;
};

}  // namespace leasehold::detail
