#pragma once

// block_walks<Backend, T, C>: a backend's three reads of its blocks in time order —
// free_blocks(), blocks_from(t) and blocks_in(span) — written once over the block_view cursor
// the backend supplies (block_view.hpp), so that backends that keep their blocks in order
// (free_list, reference) check their arguments, copy and clip the same way. A base of the
// backend (CRTP): the three are the backend's own members, and so are the member types
// (profile_types.hpp), which it brings with it so that the backend names one base.
//
// Backend requirements (it befriends block_walks, so the cursor may be private):
//  - origin(): the earliest time it holds;
//  - block_count(): how many maximal blocks it holds (what free_blocks() reserves);
//  - cursor_at(t): a cursor at the block in force at t, for origin() <= t.

#include <vector>

#include "leasehold/availability/detail/block_view.hpp"
#include "leasehold/availability/detail/profile_types.hpp"
#include "leasehold/core/capacity.hpp"
#include "leasehold/core/detail/checks.hpp"
#include "leasehold/core/free_block.hpp"
#include "leasehold/core/time.hpp"

namespace leasehold::detail {

template <class Backend, time_value T, capacity_value C>
class block_walks : public profile_types<T, C> {
 public:
  /// Every maximal free block from the origin on, in time order, as a vector (a copy): O(n).
  [[nodiscard]] std::vector<free_block<T, C>> free_blocks() const {
    std::vector<free_block<T, C>> blocks;
    blocks.reserve(backend().block_count());
    // The blocks as they are, unclipped: the last one ends at forever.
    for (auto cursor = backend().cursor_at(backend().origin());; cursor.next()) {
      blocks.push_back(cursor.block());
      if (blocks.back().span.end == forever<T>) return blocks;
    }
  }

  /// The profile from t on (walkable_availability): a view that reads the blocks in place,
  /// found once and then read one after the other; any mutating call invalidates it. Throws
  /// invalid_request for t before the origin.
  [[nodiscard]] auto blocks_from(T t) const {
    check_time("blocks_from", t, backend().origin());
    return view(backend().cursor_at(t), {t, forever<T>});
  }

  /// The maximal free blocks that meet `span`, clipped to it, in time order. Throws
  /// invalid_request for an empty span or one beginning before the origin.
  [[nodiscard]] auto blocks_in(interval<T> span) const {
    check_span("blocks_in", span, backend().origin());
    return view(backend().cursor_at(span.begin), span);
  }

 private:
  [[nodiscard]] const Backend& backend() const noexcept {
    return static_cast<const Backend&>(*this);
  }
  template <class Cursor>
  [[nodiscard]] static block_view<T, C, Cursor> view(const Cursor& first, interval<T> clip) {
    return block_view<T, C, Cursor>(first, clip);
  }
};

}  // namespace leasehold::detail
