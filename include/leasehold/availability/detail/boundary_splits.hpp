#pragma once

// Cutting a time-exclusive block structure (free_list, free_tree) at both ends of a span, so
// that a change over the span touches whole blocks. Each end that falls inside a block rather
// than on a block's begin needs one new node; the structure reserves exactly what those ends
// need before anything is cut, so that the cuts and the change after them cannot throw (the
// backends' nothrow_rollback rests on it: undoing a call splits exactly where the call merged,
// and so needs exactly what the merges gave back).

#include <array>
#include <cstddef>
#include <span>

#include "leasehold/core/time.hpp"

namespace leasehold::detail {

// `begin_of_block_at(t)` is the begin of the block in force at t; `reserve(ends)` is given
// the ends that fall inside a block (none, one or both, in time order) and takes from its
// pools what splitting them needs; `split_at(t)` then makes t a block begin.
template <time_value T, class BeginOfBlockAt, class Reserve, class SplitAt>
void split_span_ends(interval<T> span, BeginOfBlockAt begin_of_block_at, Reserve reserve,
                     SplitAt split_at) {
  std::array<T, 2> inside{};
  std::size_t count = 0;
  if (begin_of_block_at(span.begin) != span.begin) inside[count++] = span.begin;
  if (span.end != forever<T> && begin_of_block_at(span.end) != span.end) inside[count++] = span.end;
  const std::span<const T> ends(inside.data(), count);
  reserve(ends);
  for (const T t : ends) split_at(t);
}

}  // namespace leasehold::detail
