// Issue 19, the append row "cost per pair 10k -> 100k <= 1.6x": would a cache-friendly
// layout meet it where free_tree's treap does not? Not a benchmark and not a backend: a
// B+tree of the same maximal free blocks, built only as far as the append workload needs
// (scalar int64, earliest fit from a window's begin to forever, reserve, release), run beside
// free_tree on the same requests with every answer compared. docs/performance.md ("A B+tree
// layout, measured") has the figures and what they decide.
//
// The layout: leaves of up to L blocks (begins and free capacities in two arrays), inner
// nodes of up to F children that keep, per child, its first begin, its minimum and maximum
// free capacity and its run summaries at free_tree's thresholds (the same three numbers per
// threshold as detail::run_summary, stored threshold by threshold, so a search reads one
// row). The search is free_tree's, child by child instead of node by node: a child judged by
// its low/high against the amount where they settle it, skipped by its runs at the largest
// threshold at most the amount where they show no long enough run, and otherwise entered. A
// skipped child leaves its threshold run open at its end as a lower bound on where the run at
// the amount starts; that bound is made exact, by one descent along the child's right edge,
// only when a run from it would be long enough. Nodes split when full; they are never merged,
// and one left without blocks is removed. Two shapes are measured: L = 32, F = 16, the
// fastest of those tried, and L = 128, F = 4, with far less summary memory above the leaves.
//
//   btree_layout_probe <N> [R = 20]
//
// Builds free_tree and each B+tree to N live reservations (amount uniform in [1, 128] of 128
// units, duration uniform in [1, 3600] s, in milliseconds: the profile of append/free_tree/N)
// and makes the next max(N / 100, 32) earliest fit + reserve pairs on copies; it compares
// every answer and the blocks, undoes the batch (releases in reverse order) and compares the
// blocks again: any difference is reported and exits 1. It times that batch as
// availability_bench's append row does, each time on a fresh copy of the built structure, 7
// runs of R batches, and prints the median nanoseconds per pair; then the same for the
// searches alone, each timed by itself; and what each B+tree did per call.

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <limits>
#include <memory>
#include <optional>
#include <random>
#include <string_view>
#include <vector>

#include <leasehold/availability/free_tree.hpp>

#include "probe_arguments.hpp"

namespace {

using tick = std::int64_t;
using units = std::int64_t;
constexpr tick second = 1000;
constexpr units total = 128;
constexpr tick forever = leasehold::forever<tick>;

// A time that is no block's begin: "no run open" in a search, "none" in a summary.
constexpr tick no_time = std::numeric_limits<tick>::min();

constexpr std::size_t max_levels = 32;

// The runs at one threshold of a child's blocks, as detail::run_summary: where the first block
// below the threshold begins (forever if none: the child is one run), where the run that
// reaches the child's end begins (no_time if its last block is below), and the longest run
// closed on both sides by blocks below it.
struct runs {
  tick lead;
  tick trail;
  tick best;
};

// Leaves of up to LeafCapacity blocks, inner nodes of up to Fanout children.
template <std::size_t LeafCapacity, std::size_t Fanout>
class btree_profile {
  static constexpr std::size_t leaf_capacity = LeafCapacity;
  static constexpr std::size_t inner_capacity = Fanout;

 public:
  struct leaf {
    std::size_t size = 0;
    std::array<tick, LeafCapacity> begin;
    std::array<units, LeafCapacity> free;
  };

  struct inner {
    std::size_t size = 0;
    bool above_leaves = true;
    std::array<void*, Fanout> child;
    std::array<tick, Fanout> first;
    std::array<units, Fanout> low;
    std::array<units, Fanout> high;
    std::array<std::array<runs, Fanout>, max_levels> at_level;  // [level][child]
  };

  btree_profile() {
    // free_tree's 32 geometric thresholds, each distinct value once, in ascending order.
    for (std::size_t j = 0; j < 32; ++j) {
      const units value = leasehold::detail::run_threshold(total, j, 32);
      if (levels_ == 0 || thresholds_[levels_ - 1] != value) thresholds_[levels_++] = value;
    }
    auto only = std::make_unique<leaf>();
    only->size = 1;
    only->begin[0] = 0;
    only->free[0] = total;
    root_ = new inner;
    root_->size = 1;
    root_->child[0] = only.release();
    refresh_entry(root_, 0, 0, levels_);
  }
  btree_profile(const btree_profile& other)
      : root_(clone(other.root_)),
        height_(other.height_),
        blocks_(other.blocks_),
        levels_(other.levels_),
        thresholds_(other.thresholds_) {}
  btree_profile& operator=(const btree_profile& other) {
    if (this != &other) {
      inner* copy = clone(other.root_);
      destroy(root_);
      root_ = copy;
      height_ = other.height_;
      blocks_ = other.blocks_;
      levels_ = other.levels_;
      thresholds_ = other.thresholds_;
    }
    return *this;
  }
  ~btree_profile() { destroy(root_); }

  // What searches and updates did since reset_counts(), for the probe's report.
  struct work_counts {
    std::size_t leaves_searched = 0;
    std::size_t inner_searched = 0;
    std::size_t levels_refreshed = 0;  // entry levels recomputed: one leaf or one row each
  };
  [[nodiscard]] const work_counts& counts() const { return counts_; }
  void reset_counts() { counts_ = {}; }

  [[nodiscard]] std::size_t block_count() const { return blocks_; }
  [[nodiscard]] std::size_t height() const { return height_; }
  [[nodiscard]] std::size_t memory_usage() const { return sizeof(*this) + bytes(root_); }

  // The earliest start at or after window_begin with `amount` free for `duration`.
  [[nodiscard]] tick earliest_fit(units amount, tick duration, tick window_begin = 0) const {
    search s{.amount = amount, .duration = duration, .window_begin = window_begin};
    for (std::size_t level = 0; level < levels_ && thresholds_[level] <= amount; ++level) {
      s.level = level;
      s.has_level = true;
    }
    return search_inner(root_, forever, s);  // the last block is free forever: always found
  }

  void reserve(tick begin, tick end, units amount) { change(begin, end, -amount); }
  void release(tick begin, tick end, units amount) { change(begin, end, amount); }

  // Every block in time order, for the comparison with free_tree.
  void blocks(std::vector<std::pair<tick, units>>& out) const { collect(root_, out); }

 private:
  struct search {
    units amount;
    tick duration;
    tick window_begin;
    std::size_t level = 0;   // the largest threshold at most the amount,
    bool has_level = false;  // if there is one
    tick open = no_time;
    // While set, `open` is only where the threshold run left open by this skipped child
    // begins, a lower bound on where the run at the amount begins.
    const void* lower_bound_from = nullptr;
    bool lower_bound_leaf = false;
    tick lower_bound_child_end = 0;
  };

  struct step {
    inner* node;
    std::size_t index;
  };

  // ---- the search --------------------------------------------------------------------------

  // A run open from s.open reaches `end`: long enough, once its start is exact?
  bool long_enough(search& s, tick end) const {
    if (end != forever && end - s.open < s.duration) return false;
    if (s.lower_bound_from == nullptr) return true;
    const tick trail = trail_at(s.lower_bound_from, s.lower_bound_leaf, s.amount);
    s.open = std::max(trail == no_time ? s.lower_bound_child_end : trail, s.window_begin);
    s.lower_bound_from = nullptr;
    return end == forever || end - s.open >= s.duration;
  }

  void close(search& s) const {
    s.open = no_time;
    s.lower_bound_from = nullptr;
  }

  tick search_leaf(const leaf* l, tick end, search& s) const {
    ++counts_.leaves_searched;
    for (std::size_t j = 0; j < l->size; ++j) {
      const tick block_end = j + 1 < l->size ? l->begin[j + 1] : end;
      if (block_end <= s.window_begin) continue;
      if (l->free[j] < s.amount) {
        close(s);
        continue;
      }
      if (s.open == no_time) s.open = std::max(l->begin[j], s.window_begin);
      if (long_enough(s, block_end)) return s.open;
    }
    return no_time;
  }

  tick search_inner(const inner* n, tick end, search& s) const {
    ++counts_.inner_searched;
    std::size_t i = 0;
    while (i + 1 < n->size && n->first[i + 1] <= s.window_begin) ++i;
    for (; i < n->size; ++i) {
      const tick child_end = i + 1 < n->size ? n->first[i + 1] : end;
      if (n->low[i] >= s.amount) {  // every block fits
        if (s.open == no_time) s.open = std::max(n->first[i], s.window_begin);
        if (long_enough(s, child_end)) return s.open;
        continue;
      }
      if (n->high[i] < s.amount) {  // no block fits
        close(s);
        continue;
      }
      if (s.has_level && n->first[i] >= s.window_begin) {
        const runs& r = n->at_level[s.level][i];
        const tick lead_from = s.open != no_time ? s.open : n->first[i];
        if (r.lead != forever && r.best < s.duration && r.lead - lead_from < s.duration &&
            (r.trail == no_time || child_end - r.trail < s.duration)) {
          s.open = r.trail;
          s.lower_bound_from = r.trail == no_time ? nullptr : n->child[i];
          s.lower_bound_leaf = n->above_leaves;
          s.lower_bound_child_end = child_end;
          continue;
        }
      }
      const void* child = n->child[i];
      const tick found = n->above_leaves
                             ? search_leaf(static_cast<const leaf*>(child), child_end, s)
                             : search_inner(static_cast<const inner*>(child), child_end, s);
      if (found != no_time) return found;
    }
    return no_time;
  }

  // Where the run at `amount` that reaches a subtree's end begins; no_time if its last block
  // is below the amount.
  tick trail_at(const void* subtree, bool is_leaf, units amount) const {
    if (is_leaf) {
      const auto* l = static_cast<const leaf*>(subtree);
      for (std::size_t j = l->size; j-- > 0;)
        if (l->free[j] < amount) return j == l->size - 1 ? no_time : l->begin[j + 1];
      return l->begin[0];
    }
    const auto* n = static_cast<const inner*>(subtree);
    for (std::size_t i = n->size; i-- > 0;) {
      if (n->low[i] >= amount) continue;
      const tick after = i == n->size - 1 ? no_time : n->first[i + 1];
      if (n->high[i] < amount) return after;
      const tick trail = trail_at(n->child[i], n->above_leaves, amount);
      return trail == no_time ? after : trail;
    }
    return n->first[0];
  }

  // ---- summaries ---------------------------------------------------------------------------

  static runs leaf_runs(const leaf* l, units threshold) {
    runs r{forever, no_time, 0};
    tick open = no_time;
    for (std::size_t j = 0; j < l->size; ++j) {
      if (l->free[j] >= threshold) {
        if (open == no_time) open = l->begin[j];
        continue;
      }
      if (r.lead == forever)
        r.lead = l->begin[j];
      else if (open != no_time)
        r.best = std::max(r.best, l->begin[j] - open);
      open = no_time;
    }
    r.trail = r.lead == forever ? l->begin[0] : open;
    return r;
  }

  static runs inner_runs(const inner* n, std::size_t level) {
    runs r{forever, no_time, 0};
    tick open = no_time;
    for (std::size_t i = 0; i < n->size; ++i) {
      const runs& c = n->at_level[level][i];
      if (c.lead == forever) {
        if (open == no_time) open = n->first[i];
        continue;
      }
      if (r.lead == forever)
        r.lead = c.lead;
      else
        r.best = std::max(r.best, c.lead - (open != no_time ? open : n->first[i]));
      r.best = std::max(r.best, c.best);
      open = c.trail;
    }
    r.trail = r.lead == forever ? n->first[0] : open;
    return r;
  }

  // Entry i of `parent`: first begin, low, high, and the runs at levels [from, to).
  void refresh_entry(inner* parent, std::size_t i, std::size_t from, std::size_t to) {
    const std::size_t slot = i;
    units low = 0;
    units high = 0;
    tick first = 0;
    if (parent->above_leaves) {
      const auto* l = static_cast<const leaf*>(parent->child[slot]);
      first = l->begin[0];
      low = high = l->free[0];
      for (std::size_t j = 1; j < l->size; ++j) {
        low = std::min(low, l->free[j]);
        high = std::max(high, l->free[j]);
      }
    } else {
      const auto* n = static_cast<const inner*>(parent->child[slot]);
      first = n->first[0];
      low = n->low[0];
      high = n->high[0];
      for (std::size_t j = 1; j < n->size; ++j) {
        low = std::min(low, n->low[j]);
        high = std::max(high, n->high[j]);
      }
    }
    parent->first[slot] = first;
    parent->low[slot] = low;
    parent->high[slot] = high;
    counts_.levels_refreshed += to - from;
    for (std::size_t level = from; level < to; ++level) {
      const units threshold = thresholds_[level];
      runs& r = parent->at_level[level][slot];
      if (threshold <= low)
        r = {forever, first, 0};
      else if (threshold > high)
        r = {first, no_time, 0};
      else if (parent->above_leaves)
        r = leaf_runs(static_cast<const leaf*>(parent->child[slot]), threshold);
      else
        r = inner_runs(static_cast<const inner*>(parent->child[slot]), level);
    }
  }

  // ---- updates -----------------------------------------------------------------------------

  // The leaf whose blocks cover t, with the path to it from the root.
  leaf* locate(tick t, std::array<step, 64>& path) const {
    inner* n = root_;
    for (std::size_t depth = 0;; ++depth) {
      std::size_t i = 0;
      while (i + 1 < n->size && n->first[i + 1] <= t) ++i;
      path[depth] = {n, i};
      if (n->above_leaves) return static_cast<leaf*>(n->child[i]);
      n = static_cast<inner*>(n->child[i]);
    }
  }

  // Splits the block in force at t there (both halves keep its free capacity, so no run
  // moves and no summary changes, unless the leaf itself has to split).
  void make_boundary(tick t) {
    if (t == forever) return;
    std::array<step, 64> path;
    leaf* l = locate(t, path);
    std::size_t j = 0;
    while (j + 1 < l->size && l->begin[j + 1] <= t) ++j;
    if (l->begin[j] == t) return;
    ++blocks_;
    leaf* right = nullptr;
    if (l->size == leaf_capacity) {
      right = new leaf;
      constexpr std::size_t kept = leaf_capacity / 2;
      right->size = l->size - kept;
      std::copy_n(l->begin.begin() + kept, right->size, right->begin.begin());
      std::copy_n(l->free.begin() + kept, right->size, right->free.begin());
      l->size = kept;
      if (j >= kept) {
        j -= kept;
        l = right;
      }
    }
    for (std::size_t k = l->size; k > j + 1; --k) {
      l->begin[k] = l->begin[k - 1];
      l->free[k] = l->free[k - 1];
    }
    l->begin[j + 1] = t;
    l->free[j + 1] = l->free[j];
    ++l->size;
    if (right != nullptr) add_child(path, height_ - 1, right);
  }

  // Puts `child` right after the child path[depth] leads to, splitting full nodes upwards.
  void add_child(std::array<step, 64>& path, std::size_t depth, void* child) {
    inner* n = path[depth].node;
    const std::size_t at = path[depth].index + 1;
    if (n->size < inner_capacity) {
      place(n, at, child);
      return;  // n holds the same blocks as before: its own entry above is unchanged
    }
    auto* sibling = new inner;
    sibling->above_leaves = n->above_leaves;
    constexpr std::size_t kept = inner_capacity / 2;
    for (std::size_t k = kept; k < n->size; ++k) move_entry(n, k, sibling, k - kept);
    sibling->size = n->size - kept;
    n->size = kept;
    if (at > kept)
      place(sibling, at - kept, child);
    else
      place(n, at, child);
    if (depth == 0) {
      auto* top = new inner;
      top->above_leaves = false;
      top->size = 2;
      top->child[0] = n;
      top->child[1] = sibling;
      refresh_entry(top, 0, 0, levels_);
      refresh_entry(top, 1, 0, levels_);
      root_ = top;
      ++height_;
      return;
    }
    const step& up = path[depth - 1];
    refresh_entry(up.node, up.index, 0, levels_);
    add_child(path, depth - 1, sibling);
  }

  void move_entry(inner* from, std::size_t i, inner* to, std::size_t k) const {
    const auto a = i;
    const auto b = k;
    to->child[b] = from->child[a];
    to->first[b] = from->first[a];
    to->low[b] = from->low[a];
    to->high[b] = from->high[a];
    for (std::size_t level = 0; level < levels_; ++level)
      to->at_level[level][b] = from->at_level[level][a];
  }

  void place(inner* n, std::size_t at, void* child) {
    for (std::size_t k = n->size; k > at; --k) move_entry(n, k - 1, n, k);
    n->child[at] = child;
    ++n->size;
    refresh_entry(n, at, 0, levels_);
    if (at > 0) refresh_entry(n, at - 1, 0, levels_);
  }

  void change(tick begin, tick end, units delta) {
    make_boundary(begin);
    make_boundary(end);
    // The run summaries change only at thresholds the blocks' free capacities crossed.
    crossed_low_ = total;
    crossed_high_ = 0;
    add(root_, begin, end, delta);
    merge_with_left(end);
    merge_with_left(begin);
  }

  // Adds delta to every block beginning in [begin, end), refreshing the entries on the way
  // back up at the thresholds crossed so far.
  void add(inner* n, tick begin, tick end, units delta) {
    std::size_t i = 0;
    while (i + 1 < n->size && n->first[i + 1] <= begin) ++i;
    for (; i < n->size && n->first[i] < end; ++i) {
      void* child = n->child[i];
      if (n->above_leaves) {
        auto* l = static_cast<leaf*>(child);
        for (std::size_t j = 0; j < l->size; ++j) {
          units& free = l->free[j];
          if (l->begin[j] < begin || l->begin[j] >= end) continue;
          const units before = free;
          free += delta;
          crossed_low_ = std::min({crossed_low_, before, free});
          crossed_high_ = std::max({crossed_high_, before, free});
        }
      } else {
        add(static_cast<inner*>(child), begin, end, delta);
      }
      std::size_t from = 0;  // the thresholds in (crossed_low_, crossed_high_]
      while (from < levels_ && thresholds_[from] <= crossed_low_) ++from;
      std::size_t to = from;
      while (to < levels_ && thresholds_[to] <= crossed_high_) ++to;
      refresh_entry(n, i, from, to);
    }
  }

  // Drops the block beginning at t if its left neighbour has the same free capacity. Inside a
  // leaf that moves no run; a leaf's first block changes its first begin, so its entry and
  // every entry above it where it is first are refreshed.
  void merge_with_left(tick t) {
    if (t == forever || t == 0) return;
    std::array<step, 64> path;
    leaf* l = locate(t, path);
    std::size_t j = 0;
    while (j + 1 < l->size && l->begin[j + 1] <= t) ++j;
    units left = 0;
    if (j > 0) {
      left = l->free[j - 1];
    } else {
      std::array<step, 64> before;
      const leaf* previous = locate(t - 1, before);
      left = previous->free[previous->size - 1];
    }
    if (left != l->free[j]) return;
    --blocks_;
    for (std::size_t k = j; k + 1 < l->size; ++k) {
      l->begin[k] = l->begin[k + 1];
      l->free[k] = l->free[k + 1];
    }
    --l->size;
    if (j > 0) return;
    if (l->size == 0) {
      delete l;
      drop_child(path, height_ - 1);
      return;
    }
    refresh_first(path, height_ - 1);
  }

  // Removes the child path[depth] leads to, which no longer holds a block.
  void drop_child(std::array<step, 64>& path, std::size_t depth) {
    const step& at = path[depth];
    inner* n = at.node;
    for (std::size_t k = at.index; k + 1 < n->size; ++k) move_entry(n, k + 1, n, k);
    --n->size;
    if (n->size == 0 && depth > 0) {
      delete n;
      drop_child(path, depth - 1);
      return;
    }
    if (at.index == 0 && depth > 0) refresh_first(path, depth - 1);
  }

  // The subtree path[depth] leads to has a new first begin: its entry, and the entries above
  // while it stays first, are refreshed.
  void refresh_first(std::array<step, 64>& path, std::size_t depth) {
    for (std::size_t d = depth + 1; d-- > 0;) {
      const step& at = path[d];
      refresh_entry(at.node, at.index, 0, levels_);
      if (at.index != 0) return;
    }
  }

  static inner* clone(const inner* n) {
    auto* copy = new inner(*n);
    for (std::size_t i = 0; i < n->size; ++i) {
      const void* child = n->child[i];
      copy->child[i] = n->above_leaves
                           ? static_cast<void*>(new leaf(*static_cast<const leaf*>(child)))
                           : static_cast<void*>(clone(static_cast<const inner*>(child)));
    }
    return copy;
  }

  static void destroy(inner* n) {
    for (std::size_t i = 0; i < n->size; ++i) {
      void* child = n->child[i];
      if (n->above_leaves)
        delete static_cast<leaf*>(child);
      else
        destroy(static_cast<inner*>(child));
    }
    delete n;
  }

  static std::size_t bytes(const inner* n) {
    std::size_t sum = sizeof(inner);
    for (std::size_t i = 0; i < n->size; ++i)
      sum += n->above_leaves ? sizeof(leaf) : bytes(static_cast<const inner*>(n->child[i]));
    return sum;
  }

  static void collect(const inner* n, std::vector<std::pair<tick, units>>& out) {
    for (std::size_t i = 0; i < n->size; ++i) {
      const void* child = n->child[i];
      if (!n->above_leaves) {
        collect(static_cast<const inner*>(child), out);
        continue;
      }
      const auto* l = static_cast<const leaf*>(child);
      for (std::size_t j = 0; j < l->size; ++j) out.emplace_back(l->begin[j], l->free[j]);
    }
  }

  inner* root_ = nullptr;
  std::size_t height_ = 1;  // levels of inner nodes
  std::size_t blocks_ = 1;
  std::size_t levels_ = 0;
  std::array<units, max_levels> thresholds_{};
  units crossed_low_ = 0;
  units crossed_high_ = 0;
  mutable work_counts counts_;
};

struct append_request {
  units amount;
  tick duration;
};

using tree_type = leasehold::free_tree<tick, units>;

// The probe's B+trees take an amount and a duration where free_tree takes a request.
template <class Profile>
constexpr bool is_btree = !std::is_same_v<Profile, tree_type>;

// Runs the batch [from, from + batch) of earliest fit + reserve pairs on `profile`; the starts
// go to `starts` when it is given, and the time spent in the searches alone is added to
// `searching` when that is given (which costs two clock reads a pair).
template <class Profile>
void run_batch(Profile& profile, const std::vector<append_request>& requests, std::size_t from,
               std::size_t batch, std::vector<tick>* starts,
               std::chrono::steady_clock::duration* searching = nullptr) {
  for (std::size_t i = from; i < from + batch; ++i) {
    const append_request& r = requests[i];
    const auto search_begin = searching != nullptr ? std::chrono::steady_clock::now()
                                                   : std::chrono::steady_clock::time_point{};
    tick start = 0;
    if constexpr (is_btree<Profile>)
      start = profile.earliest_fit(r.amount, r.duration);
    else
      start = *profile.earliest_fit({r.amount, r.duration});
    if (searching != nullptr) *searching += std::chrono::steady_clock::now() - search_begin;
    if constexpr (is_btree<Profile>)
      profile.reserve(start, start + r.duration, r.amount);
    else
      profile.reserve({start, start + r.duration}, r.amount);
    if (starts != nullptr) starts->push_back(start);
  }
}

// The median over 7 runs of the nanoseconds per pair of R timed batches each: the whole pair
// or, with `searches_only`, the searches timed one by one.
template <class Profile>
double ns_per_pair(const Profile& built, const std::vector<append_request>& requests,
                   std::size_t live, std::size_t batch, std::size_t repeats, bool searches_only) {
  std::vector<double> runs;
  Profile copy = built;
  for (std::size_t run = 0; run < 7; ++run) {
    std::chrono::steady_clock::duration spent{};
    for (std::size_t k = 0; k < repeats; ++k) {
      copy = built;
      if (searches_only) {
        run_batch(copy, requests, live, batch, nullptr, &spent);
        continue;
      }
      const auto begin = std::chrono::steady_clock::now();
      run_batch(copy, requests, live, batch, nullptr);
      spent += std::chrono::steady_clock::now() - begin;
    }
    runs.push_back(
        static_cast<double>(std::chrono::duration_cast<std::chrono::nanoseconds>(spent).count()) /
        static_cast<double>(repeats * batch));
  }
  std::ranges::sort(runs);
  return runs[3];
}

// Prints the median nanoseconds per pair, and per search timed one by one.
template <class Profile>
void report_timing(const char* name, const Profile& built,
                   const std::vector<append_request>& requests, std::size_t live, std::size_t batch,
                   std::size_t repeats) {
  const double pair_ns = ns_per_pair(built, requests, live, batch, repeats, false);
  const double search_ns = ns_per_pair(built, requests, live, batch, repeats, true);
  std::printf("  %-12s bytes/block=%.0f ns/pair=%.0f ns/search=%.0f\n", name,
              static_cast<double>(built.memory_usage()) / static_cast<double>(built.block_count()),
              pair_ns, search_ns);
}

// Whether a B+tree holds the same blocks as free_tree.
template <class Btree>
bool same_blocks(const tree_type& tree, const Btree& btree) {
  std::vector<std::pair<tick, units>> btree_blocks;
  btree.blocks(btree_blocks);
  const auto tree_blocks = tree.free_blocks();
  if (tree_blocks.size() != btree_blocks.size()) return false;
  for (std::size_t i = 0; i < tree_blocks.size(); ++i)
    if (tree_blocks[i].span.begin != btree_blocks[i].first ||
        tree_blocks[i].free != btree_blocks[i].second)
      return false;
  return true;
}

// Builds a B+tree of the first N requests and checks it against free_tree (`tree`, built the
// same way, `after_batch`, the same after the next batch, and `tree_starts`, free_tree's
// answers to the first N + batch requests): every answer, the blocks after the batch, and the
// blocks once the batch is undone (released in reverse order). Then reports its timing and
// what it did per call. False if it disagrees.
template <class Btree>
bool report_btree(const char* name, const tree_type& tree, const tree_type& after_batch,
                  const std::vector<tick>& tree_starts, const std::vector<append_request>& requests,
                  std::size_t live, std::size_t batch, std::size_t repeats) {
  Btree btree;
  std::vector<tick> starts;
  run_batch(btree, requests, 0, live, &starts);
  bool agrees = same_blocks(tree, btree);
  {
    Btree copy = btree;
    run_batch(copy, requests, live, batch, &starts);
    agrees = agrees && starts == tree_starts && same_blocks(after_batch, copy);
    for (std::size_t i = batch; i-- > 0 && agrees;) {
      const append_request& r = requests[live + i];
      copy.release(starts[live + i], starts[live + i] + r.duration, r.amount);
    }
    agrees = agrees && same_blocks(tree, copy);
  }
  if (!agrees) {
    std::fprintf(stderr, "btree_layout_probe: the %s disagrees with free_tree (%s)\n", name,
                 starts != tree_starts ? "an earliest fit" : "the blocks");
    return false;
  }
  report_timing(name, btree, requests, live, batch, repeats);
  Btree counted = btree;
  counted.reset_counts();
  run_batch(counted, requests, live, batch, nullptr);
  const auto per_call = [&batch](std::size_t count) {
    return static_cast<double>(count) / static_cast<double>(batch);
  };
  std::printf(
      "  %-12s height=%zu per search: leaves=%.1f inner=%.1f; per reserve: entry levels "
      "refreshed=%.1f\n",
      name, btree.height(), per_call(counted.counts().leaves_searched),
      per_call(counted.counts().inner_searched), per_call(counted.counts().levels_refreshed));
  return true;
}

}  // namespace

int main(int argc, char** argv) {
  const std::string_view usage = "usage: btree_layout_probe <N> [R = 20]";
  if (argc < 2 || argc > 3) {
    std::fprintf(stderr, "btree_layout_probe: takes 1 or 2 arguments, got %d\n%s\n", argc - 1,
                 usage.data());
    return 2;
  }
  const std::optional<std::size_t> live = leasehold_probes::parse_count(argv[1]);
  const std::optional<std::size_t> repeats =
      argc == 3 ? leasehold_probes::parse_count(argv[2]) : std::size_t{20};
  if (!live || !repeats) {
    std::fprintf(stderr, "btree_layout_probe: '%s' is not a whole number above 0\n%s\n",
                 !live ? argv[1] : argv[2], usage.data());
    return 2;
  }
  const std::size_t batch = std::max<std::size_t>(*live / 100, 32);

  // The requests of availability_bench's append rows: the same seed and distributions.
  std::mt19937_64 random(20240601);
  std::uniform_int_distribution<units> amount(1, total);
  std::uniform_int_distribution<tick> seconds(1, 3600);
  std::vector<append_request> requests(*live + batch);
  for (append_request& r : requests) {
    r.amount = amount(random);
    r.duration = seconds(random) * second;
  }

  tree_type tree(total);
  std::vector<tick> tree_starts;
  run_batch(tree, requests, 0, *live, &tree_starts);
  tree_type after_batch = tree;
  run_batch(after_batch, requests, *live, batch, &tree_starts);
  std::printf("N=%zu blocks=%zu batch=%zu\n", *live, tree.block_count(), batch);
  report_timing("free_tree", tree, requests, *live, batch, *repeats);

  // The layout the docs discuss, and one with larger leaves and fewer children: far less
  // summary memory above the leaves, more blocks scanned in each leaf.
  if (!report_btree<btree_profile<32, 16>>("btree 32x16", tree, after_batch, tree_starts, requests,
                                           *live, batch, *repeats) ||
      !report_btree<btree_profile<128, 4>>("btree 128x4", tree, after_batch, tree_starts, requests,
                                           *live, batch, *repeats))
    return 1;
  return 0;
}
