#pragma once

// Cutting a time-exclusive block structure (free_list, free_tree) at both ends of a span, so
// that a change over the span touches whole blocks. Each end that falls inside a block rather
// than on a block's begin needs one new node; exactly that many are taken from the pool before
// anything is cut, so that the cuts and the change after them cannot throw (the backends'
// nothrow_rollback rests on it: undoing a call splits exactly where the call merged).

#include <cstddef>

#include "leasehold/core/time.hpp"

namespace leasehold::detail {

// `begin_of_block_at(t)` is the begin of the block in force at t; `split_at(t)` makes t a
// block begin, taking its node from `pool`.
template <time_value T, class Pool, class BeginOfBlockAt, class SplitAt>
void split_span_ends(interval<T> span, Pool& pool, BeginOfBlockAt begin_of_block_at,
                     SplitAt split_at) {
  const bool inside_end = span.end != forever<T> && begin_of_block_at(span.end) != span.end;
  const bool inside_begin = begin_of_block_at(span.begin) != span.begin;
  pool.reserve_nodes(static_cast<std::size_t>(inside_begin) + static_cast<std::size_t>(inside_end));
  if (inside_begin) split_at(span.begin);
  if (inside_end) split_at(span.end);
}

}  // namespace leasehold::detail
