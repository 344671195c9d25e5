#pragma once

// A class-independent index over the nodes of a cluster::slot_table with a scalar capacity:
// per node and per amount level 2^j, the node's record runs, from which the earliest fit of
// any request class (2^j, d) from the origin is read without asking the node's profile.
//
// Why records: a node's earliest fit of (a, d) from the origin is the start of the first
// maximal run of time in which at least a is free that lasts at least d (a later start inside
// the same run is never earlier, and a run shorter than d holds no fit). A run that is not
// longer than every earlier run is never that first run for any d, so only the records
// matter: their lengths grow, and on an unbounded profile the last one is the fully free
// tail, so a node has few of them (about the logarithm of its run count for random lengths).
// With them, the bounds of a class the table has never seen cost one short lookup per node
// instead of one earliest_fit per node.
//
// A node's records are recomputed only when a search needs the node exactly (refresh); in
// between they stay lower bounds: a booking only makes fits later, a release over [a, b)
// makes no fit of duration d earlier than a - d (kept as the earliest release since the
// refresh), and advancing the origin of an unbounded profile only removes starts. A bounded
// profile gains time at its horizon, where a node that fitted nothing may now fit, so advancing
// one forgets the records.

#include <algorithm>
#include <bit>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <type_traits>
#include <vector>

#include "leasehold/core/capacity.hpp"
#include "leasehold/core/time.hpp"

namespace leasehold::cluster::detail {

template <time_value T, scalar_capacity C>
class run_records {
 public:
  // "Never": no run at this level is long enough (a bounded profile's horizon is too short).
  static constexpr T never = std::numeric_limits<T>::max();
  // The records kept per node and level: the first per_level - 1 and the last (the longest);
  // when more exist, a lookup between the two is only a lower bound.
  static constexpr std::size_t per_level = 8;

  // What a lookup gives: a lower bound on the node's earliest fit from the origin, and whether
  // it is the fit itself.
  struct answer {
    T bound;
    bool exact;
  };

  explicit run_records(std::size_t nodes)
      : nodes_(nodes), dirty_(nodes, 0), released_(nodes, never) {}

  // Amount levels are kept only once a class of that amount is asked for: a capacity type of
  // 64 bits has 63 levels, most never used.
  [[nodiscard]] bool has_level(unsigned j) const noexcept {
    return std::ranges::find(used_, j) != used_.end();
  }
  void add_level(unsigned j) {
    used_.reserve(used_.size() + 1);
    level built;
    built.runs.resize(nodes_ * per_level);
    built.count.assign(nodes_, unknown);
    built.truncated.assign(nodes_, 0);
    levels_.push_back(std::move(built));
    used_.push_back(j);
  }

  // The earliest start of a run of at least 2^j free lasting at least d on the node, as known
  // from its records (see the file's description for when that is exact).
  [[nodiscard]] answer lookup(std::size_t node, unsigned j, T d, T origin) const noexcept {
    const level& l = levels_[index_of(j)];
    const unsigned char count = l.count[node];
    if (count == unknown) return {origin, false};
    const run* runs = &l.runs[node * per_level];
    answer a{never, true};
    for (std::size_t k = 0; k < count; ++k) {
      if (!lasts(runs[k], d)) continue;
      if (k == per_level - 1 && l.truncated[node] != 0)
        a = {runs[k - 1].end, false};  // the first long enough run is at or after this end
      else
        a = {runs[k].begin, true};
      break;
    }
    if (dirty_[node] == 0) return a;
    a.exact = false;
    if (released_[node] != never) {
      T lowest{};
      if (__builtin_sub_overflow(released_[node], d, &lowest) || lowest < origin) lowest = origin;
      a.bound = std::min(a.bound, lowest);
    }
    if (a.bound != never) a.bound = std::max(a.bound, origin);
    return a;
  }

  // Recomputes the node's records of every kept level from its blocks in time order (from the
  // origin), a forward range of free_block.
  template <class Blocks>
  void refresh(std::size_t node, const Blocks& blocks) {
    struct open_run {
      C value{};  // 2^j
      bool open = false;
      T begin{};
      U longest = 0;
      unsigned char count = 0;
      unsigned char truncated = 0;
    };
    std::vector<open_run> open(used_.size());
    for (std::size_t u = 0; u < used_.size(); ++u)
      open[u].value = static_cast<C>(std::uint64_t{1} << used_[u]);
    T last_end{};
    bool first = true;
    auto close = [&](std::size_t u, T end) {
      open_run& o = open[u];
      o.open = false;
      const U length = static_cast<U>(static_cast<U>(end) - static_cast<U>(o.begin));
      if (o.count != 0 && length <= o.longest) return;
      o.longest = length;
      run* runs = &levels_[u].runs[node * per_level];
      if (o.count < per_level) {
        runs[o.count++] = {o.begin, end};
      } else {
        runs[per_level - 1] = {o.begin, end};
        o.truncated = 1;
      }
    };
    for (const auto& block : blocks) {
      const bool joined = !first && block.span.begin == last_end;
      for (std::size_t u = 0; u < used_.size(); ++u) {
        open_run& o = open[u];
        const bool enough = block.free >= o.value;
        if (o.open && (!enough || !joined)) close(u, last_end);
        if (enough && !o.open) {
          o.open = true;
          o.begin = block.span.begin;
        }
      }
      last_end = block.span.end;
      first = false;
    }
    for (std::size_t u = 0; u < used_.size(); ++u) {
      if (open[u].open) close(u, last_end);
      level& l = levels_[u];
      l.count[node] = open[u].count;
      l.truncated[node] = open[u].truncated;
    }
    dirty_[node] = 0;
    released_[node] = never;
  }

  // The node's records of level j are its current ones (a lookup is exact unless records were
  // left out).
  [[nodiscard]] bool current(std::size_t node, unsigned j) const noexcept {
    return dirty_[node] == 0 && levels_[index_of(j)].count[node] != unknown;
  }
  void booked(std::size_t node) noexcept { dirty_[node] = 1; }
  void released(std::size_t node, T begin) noexcept {
    dirty_[node] = 1;
    released_[node] = std::min(released_[node], begin);
  }
  // After the origin moved: on a bounded profile the records are forgotten.
  void advanced(bool bounded) noexcept {
    std::ranges::fill(dirty_, 1);
    if (!bounded) return;
    for (level& l : levels_) std::ranges::fill(l.count, unknown);
    std::ranges::fill(released_, never);
  }

 private:
  using U = std::make_unsigned_t<T>;
  static constexpr unsigned char unknown = 0xFF;

  struct run {
    T begin;
    T end;
  };
  struct level {
    std::vector<run> runs;                 // runs[node * per_level + k]
    std::vector<unsigned char> count;      // records kept per node, or unknown
    std::vector<unsigned char> truncated;  // 1: records were left out before the last one
  };

  // The run holds a start that lasts d: begin + d <= end.
  static bool lasts(const run& r, T d) noexcept {
    return static_cast<U>(static_cast<U>(r.end) - static_cast<U>(r.begin)) >= static_cast<U>(d);
  }

  std::size_t index_of(unsigned j) const noexcept {
    return static_cast<std::size_t>(std::ranges::find(used_, j) - used_.begin());
  }

  std::size_t nodes_;
  std::vector<level> levels_;         // levels_[u]: the records of level used_[u]
  std::vector<unsigned> used_;        // the levels kept, in the order they were added
  std::vector<unsigned char> dirty_;  // 1: changed since the records were computed
  std::vector<T> released_;           // the earliest release begin since then, or never
};

// The records a slot_table of capacity C keeps: run_records for a scalar capacity, nothing for
// a vector one (whose classes are built by asking every node, as a vector amount has no single
// level).
struct no_run_records {
  explicit no_run_records(std::size_t) noexcept {}
};
template <class T, class C>
struct run_records_for {
  using type = no_run_records;
};
template <time_value T, scalar_capacity C>
struct run_records_for<T, C> {
  using type = run_records<T, C>;
};

}  // namespace leasehold::cluster::detail
