#pragma once

// The index by end of bookings<A>: the (end, id) keys of the live bookings, in order, in
// chunks of up to 64 sorted keys, with the chunks' first keys in one contiguous array. A
// booking's insert or erase is a binary search over that array (a few kilobytes at 10,000
// bookings, which stay in cache) and a move of half a chunk; in a tree of nodes it was a walk
// from the root through nodes scattered over the heap, waiting on memory at most steps, and
// the largest cost a ledger added to a booking.
//
// Strong guarantee in two steps: make_room(k) allocates whatever insert(k) will need (it may
// split a full chunk, which changes no key) and may throw std::bad_alloc; insert(k) right
// after it cannot throw, so a caller can make room, change what may throw, then insert. The
// room it returns is where k goes, so that the insert does not search again.

#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <utility>
#include <vector>

#include "leasehold/core/detail/swap_members.hpp"

namespace leasehold::detail {

template <class T>
class end_index {
 public:
  /// A booking's end and id: ids are unique, so keys are.
  using key = std::pair<T, std::uint64_t>;

  end_index() = default;
  end_index(const end_index& other) : firsts_(other.firsts_), size_(other.size_) {
    chunks_.reserve(other.chunks_.size());
    for (const auto& c : other.chunks_) chunks_.push_back(std::make_unique<chunk>(*c));
  }
  end_index(end_index&& other) noexcept
      : firsts_(std::move(other.firsts_)),
        chunks_(std::move(other.chunks_)),
        size_(std::exchange(other.size_, 0)) {}
  end_index& operator=(end_index other) noexcept {
    swap(other);
    return *this;
  }
  ~end_index() = default;

  void swap(end_index& other) noexcept {
    swap_members(*this, other, &end_index::firsts_, &end_index::chunks_, &end_index::size_);
  }

  [[nodiscard]] std::size_t size() const noexcept { return size_; }
  [[nodiscard]] bool empty() const noexcept { return size_ == 0; }

  /// Where a key goes: valid until the index next changes.
  struct room {
    std::size_t chunk;
  };

  /// Allocates what insert(k) needs: the first chunk, or a split of the full chunk k goes to
  /// (the keys stay as they are). Throws std::bad_alloc and changes nothing then.
  room make_room(const key& k) {
    if (chunks_.empty()) {
      firsts_.reserve(1);
      chunks_.reserve(1);
      auto first = std::make_unique<chunk>();
      firsts_.push_back(k);  // a placeholder while the chunk is empty
      chunks_.push_back(std::move(first));
      return {0};
    }
    const std::size_t c = chunk_of(k);
    if (chunks_[c]->size < chunk_capacity) return {c};
    firsts_.reserve(firsts_.size() + 1);
    chunks_.reserve(chunks_.size() + 1);
    auto upper = std::make_unique<chunk>();
    // Nothing below throws: the upper half moves to the new chunk.
    chunk& full = *chunks_[c];
    constexpr std::size_t half = chunk_capacity / 2;
    std::copy(full.keys.begin() + half, full.keys.end(), upper->keys.begin());
    upper->size = chunk_capacity - half;
    full.size = half;
    const auto at = static_cast<std::ptrdiff_t>(c + 1);
    const bool goes_up = !(k < upper->keys[0]);
    firsts_.insert(firsts_.begin() + at, upper->keys[0]);
    chunks_.insert(chunks_.begin() + at, std::move(upper));
    return {goes_up ? c + 1 : c};
  }

  /// Adds k, which is not in the index, where make_room(k) made room for it (nothing changed
  /// the index since).
  void insert(const key& k, room at_room) noexcept {
    const std::size_t c = at_room.chunk;
    chunk& ch = *chunks_[c];
    key* const end = ch.keys.data() + ch.size;
    key* const at = std::upper_bound(ch.keys.data(), end, k);
    std::move_backward(at, end, end + 1);
    *at = k;
    ++ch.size;
    if (at == ch.keys.data()) firsts_[c] = k;
    ++size_;
  }

  /// Removes k, which is in the index. A chunk left nearly empty joins a neighbour when both
  /// fit in half a chunk, so that chunks stay full enough for the search to stay short.
  void erase(const key& k) noexcept {
    const std::size_t c = chunk_of(k);
    chunk& ch = *chunks_[c];
    key* const end = ch.keys.data() + ch.size;
    key* const at = std::lower_bound(ch.keys.data(), end, k);
    std::move(at + 1, end, at);
    --ch.size;
    --size_;
    if (ch.size == 0) {
      drop(c);
      return;
    }
    firsts_[c] = ch.keys[0];
    if (ch.size >= chunk_capacity / 4) return;
    if (c + 1 < chunks_.size() && ch.size + chunks_[c + 1]->size <= chunk_capacity / 2)
      join(c);
    else if (c > 0 && chunks_[c - 1]->size + ch.size <= chunk_capacity / 2)
      join(c - 1);
  }

  /// The smallest key whose end is at or after t, or nullopt.
  [[nodiscard]] std::optional<key> first_at_or_after(T t) const noexcept {
    if (size_ == 0) return std::nullopt;
    const key probe{t, 0};
    const std::size_t c = chunk_of(probe);
    const chunk& ch = *chunks_[c];
    const key* const end = ch.keys.data() + ch.size;
    const key* const at = std::lower_bound(ch.keys.data(), end, probe);
    if (at != end) return *at;
    if (c + 1 < chunks_.size()) return chunks_[c + 1]->keys[0];
    return std::nullopt;
  }

  /// The smallest and the largest key; the index must not be empty.
  [[nodiscard]] const key& front() const noexcept { return chunks_.front()->keys[0]; }
  [[nodiscard]] const key& back() const noexcept {
    return chunks_.back()->keys[chunks_.back()->size - 1];
  }

  /// Visits every key in order.
  template <class Visit>
  void for_each(Visit&& visit) const {
    for (const auto& c : chunks_)
      for (std::size_t i = 0; i < c->size; ++i) visit(c->keys[i]);
  }

  void clear() noexcept {
    firsts_.clear();
    chunks_.clear();
    size_ = 0;
  }

  /// Bytes held beyond the object itself.
  [[nodiscard]] std::size_t memory_usage() const noexcept {
    return firsts_.capacity() * sizeof(key) + chunks_.capacity() * sizeof(void*) +
           chunks_.size() * sizeof(chunk);
  }

  /// True when the keys are in strictly increasing order, every chunk but a lone one holds
  /// some, the first keys are the chunks' first, and the count adds up.
  [[nodiscard]] bool valid() const noexcept {
    if (firsts_.size() != chunks_.size()) return false;
    std::size_t counted = 0;
    const key* previous = nullptr;
    for (std::size_t c = 0; c < chunks_.size(); ++c) {
      const chunk& ch = *chunks_[c];
      if (ch.size == 0) {
        if (chunks_.size() != 1) return false;
        continue;
      }
      if (ch.size > chunk_capacity || !(firsts_[c] == ch.keys[0])) return false;
      for (std::size_t i = 0; i < ch.size; ++i) {
        if (previous != nullptr && !(*previous < ch.keys[i])) return false;
        previous = &ch.keys[i];
      }
      counted += ch.size;
    }
    return counted == size_;
  }

 private:
  static constexpr std::size_t chunk_capacity = 64;
  struct chunk {
    std::size_t size = 0;
    std::array<key, chunk_capacity> keys;
  };

  /// The chunk k belongs in: the last whose first key is at most k, or the first.
  [[nodiscard]] std::size_t chunk_of(const key& k) const noexcept {
    const auto after = std::upper_bound(firsts_.begin(), firsts_.end(), k);
    return after == firsts_.begin() ? 0 : static_cast<std::size_t>(after - firsts_.begin()) - 1;
  }

  void drop(std::size_t c) noexcept {
    firsts_.erase(firsts_.begin() + static_cast<std::ptrdiff_t>(c));
    chunks_.erase(chunks_.begin() + static_cast<std::ptrdiff_t>(c));
  }

  /// Moves chunk c + 1's keys to the end of chunk c (they fit) and drops c + 1.
  void join(std::size_t c) noexcept {
    chunk& into = *chunks_[c];
    const chunk& from = *chunks_[c + 1];
    std::copy(from.keys.begin(), from.keys.begin() + static_cast<std::ptrdiff_t>(from.size),
              into.keys.begin() + static_cast<std::ptrdiff_t>(into.size));
    into.size += from.size;
    drop(c + 1);
  }

  std::vector<key> firsts_;  ///< firsts_[i] is chunks_[i]'s first key
  std::vector<std::unique_ptr<chunk>> chunks_;
  std::size_t size_ = 0;
};

}  // namespace leasehold::detail
