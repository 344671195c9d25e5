#pragma once

// block_view<T, C, Cursor>: the lazy range behind the backends' blocks_from and blocks_in
// (availability/walk.hpp). A backend supplies a cursor onto its own structure; the view clips
// the blocks to a span and stops at its end, so that every backend clips the same way.
//
// Cursor requirements: default constructible and copyable (a forward iterator is both);
//  - block(): the maximal block at the cursor, as a free_block<T, C>, unclipped; cheap, since
//    the iterator reads it for every dereference and comparison;
//  - next(): moves to the following block; called only while the block at the cursor ends
//    before forever, so a following block exists.

#include <algorithm>
#include <cstddef>
#include <iterator>
#include <ranges>

#include "leasehold/core/capacity.hpp"
#include "leasehold/core/free_block.hpp"
#include "leasehold/core/time.hpp"

namespace leasehold::detail {

// A view (cheap to copy: a cursor and a span). It derives from view_base rather than
// view_interface, whose members clang 14 checks against the still incomplete class.
template <time_value T, capacity_value C, class Cursor>
class block_view : public std::ranges::view_base {
 public:
  class iterator {
   public:
    using value_type = free_block<T, C>;
    using difference_type = std::ptrdiff_t;
    using iterator_concept = std::forward_iterator_tag;
    // Dereferencing yields a value, which the C++17 categories only allow an input iterator.
    using iterator_category = std::input_iterator_tag;

    iterator() = default;  // the end
    iterator(const Cursor& cursor, interval<T> clip)
        : cursor_(cursor), clip_(clip), done_(!(clip.begin < clip.end)) {}

    [[nodiscard]] value_type operator*() const {
      value_type b = cursor_.block();
      b.span.begin = std::max(b.span.begin, clip_.begin);
      b.span.end = std::min(b.span.end, clip_.end);
      return b;
    }

    iterator& operator++() {
      if (cursor_.block().span.end >= clip_.end)
        done_ = true;
      else
        cursor_.next();
      return *this;
    }
    iterator operator++(int) {
      iterator before = *this;
      ++*this;
      return before;
    }

    // Two iterators of one view are equal when both are done or both stand at the same block.
    [[nodiscard]] friend bool operator==(const iterator& a, const iterator& b) {
      if (a.done_ || b.done_) return a.done_ == b.done_;
      return a.cursor_.block().span.begin == b.cursor_.block().span.begin;
    }

   private:
    Cursor cursor_{};
    interval<T> clip_{};
    bool done_ = true;
  };

  block_view() = default;
  // `first`: a cursor at the block in force at clip.begin.
  block_view(const Cursor& first, interval<T> clip) : first_(first), clip_(clip) {}

  [[nodiscard]] iterator begin() const { return iterator(first_, clip_); }
  [[nodiscard]] iterator end() const { return iterator(); }
  [[nodiscard]] bool empty() const { return begin() == end(); }

 private:
  Cursor first_{};
  interval<T> clip_{};
};

}  // namespace leasehold::detail

// The iterators hold cursors into the backend's structure, not into the view, so they stay
// valid after the view is gone (until the backend changes): a borrowed range.
namespace std::ranges {
template <leasehold::time_value T, leasehold::capacity_value C, class Cursor>
inline constexpr bool enable_borrowed_range<leasehold::detail::block_view<T, C, Cursor>> = true;
}  // namespace std::ranges
