#pragma once

// run_levels<T, C, LevelsPerComponent>: free_tree's run summaries (run_summary.hpp) at a
// geometric series of capacity thresholds per component, kept on a sparse subset of the nodes.
// This part owns the thresholds (derived from the total) and knows how a node's summaries
// follow from its children's; the tree decides when they are kept (summary_mode.hpp) and which
// node keeps them (keeps_runs), and its seekers read them (free_tree_seekers.hpp).
//
// What it maintains, on a summary node: for every threshold that is mixed in its subtree (in
// (low, high] of its component), the run summary of the subtree's blocks at that threshold. At
// a level that every block reaches, or none, the summary follows from `first` alone (runs_from),
// so nothing is stored for it; a leaf has no mixed level. A node without summaries sits in a
// gap of about summary_spacing consecutive blocks between summary nodes, whose summaries are
// computed in one pass over its blocks when needed (scan_gap).
//
// Why thresholds: a request for c uses the largest threshold at most c, and every span with c
// free lies inside a run at that threshold, so a subtree whose runs there are all shorter than
// the duration holds no answer. Why sparse: 32 summaries are 768 bytes, on every node a tree of
// ~850 bytes a block whose searches and updates waited on memory.
//
// Node requirements: `begin`, `first` (T), `free`, `low`, `high`, `pending` (C), `left`,
// `right` (Node*), `runs` (std::array<run_summary<T>, level_count>*, nullptr on a node without
// summaries). The summaries are read only while no shift is pending (lazy_shift.hpp).

#include <algorithm>
#include <array>
#include <bit>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <utility>
#include <vector>

#include "leasehold/availability/detail/fit_corners.hpp"
#include "leasehold/availability/detail/free_tree_algorithms.hpp"
#include "leasehold/availability/detail/run_summary.hpp"
#include "leasehold/core/capacity.hpp"
#include "leasehold/core/free_block.hpp"
#include "leasehold/core/time.hpp"

namespace leasehold::detail {

// SummaryNodesForCorners: the tree keeps fit corners (fit_corners.hpp) on the same summary
// nodes, one in fit_corners' spacing, so summary nodes exist even without thresholds.
template <time_value T, capacity_value C, std::size_t LevelsPerComponent,
          bool SummaryNodesForCorners = false>
class run_levels {
 public:
  using components = capacity_components<C>;
  using component_type = typename components::value_type;
  using runs_type = run_summary<T>;
  using length_type = typename runs_type::length_type;
  static constexpr std::size_t level_count = components::count * LevelsPerComponent;
  static_assert(LevelsPerComponent <= 64, "free_tree: at most 64 thresholds per component");
  using runs_block = std::array<runs_type, level_count>;
  /// Per component, a range [first, second) of levels.
  using level_ranges = std::array<std::pair<std::size_t, std::size_t>, components::count>;
  /// A set of levels: per component i, bit j stands for level i * LevelsPerComponent + j.
  using level_set = std::array<std::uint64_t, components::count>;

  /// About one node in summary_spacing keeps run summaries (see keeps_runs): 768 bytes of them
  /// for a scalar's 32 levels, so a node averages 80 + 768 / 16 = 128 bytes rather than 848.
  /// A denser spacing searched a little faster but cost well over the memory budget per block
  /// once the pools' slack is counted; a sparser one searched slower (docs/performance.md).
  /// With fit corners the spacing is theirs (fit_corners<T, C>::spacing).
  static constexpr std::uint64_t summary_spacing =
      SummaryNodesForCorners ? fit_corners<T, C>::spacing : 16;
  /// Summary nodes take the upper half of the priorities, so by heap order they are the top of
  /// the treap and every subtree rooted at another node is a gap between two of them.
  static constexpr std::uint32_t summary_priority = std::uint32_t{1} << 31;

  /// Whether a node created at `begin` keeps run summaries: about one in summary_spacing,
  /// chosen by a hash of the key. A hash of the key rather than a coin: the inverse of a reserve
  /// or release splits exactly where it merged, so it needs exactly the summary blocks the
  /// merges freed (nothrow_rollback).
  [[nodiscard]] static bool keeps_runs(T begin) noexcept {
    if constexpr (level_count == 0 && !SummaryNodesForCorners) {
      return false;
    } else {
      auto x = static_cast<std::uint64_t>(begin);  // splitmix64's finaliser
      x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ULL;
      x = (x ^ (x >> 27)) * 0x94D049BB133111EBULL;
      x ^= x >> 31;
      return x % summary_spacing == 0;
    }
  }

  /// The thresholds of `total`. A small total rounds several thresholds to the same value (32
  /// levels of 128 units give 25 distinct ones): equal thresholds have equal runs, so each value
  /// is kept once, at the rank of its highest level, and every update and search skips the
  /// copies.
  explicit run_levels(const C& total) noexcept {
    for (std::size_t i = 0; i < components::count; ++i) {
      const std::size_t base = i * LevelsPerComponent;
      std::size_t used = 0;
      for (std::size_t j = 0; j < LevelsPerComponent; ++j) {
        const component_type value =
            run_threshold(components::get(total, i), j, LevelsPerComponent);
        if (used == 0 || thresholds_[base + used - 1] != value) ++used;
        thresholds_[base + used - 1] = value;
        level_ranks_[base + used - 1] = static_cast<std::uint8_t>(j);
      }
      levels_used_[i] = static_cast<std::uint8_t>(used);
    }
  }

  [[nodiscard]] component_type threshold(std::size_t level) const noexcept {
    return thresholds_[level];
  }
  [[nodiscard]] static constexpr std::size_t component_of(std::size_t level) noexcept {
    return level / per_component;
  }

  /// The levels in use: for component i, levels i * LevelsPerComponent + [0, levels_used_[i]),
  /// whose thresholds are distinct and increasing.
  template <class Visit>
  void for_each_level(Visit visit) const {
    for (std::size_t i = 0; i < components::count; ++i)
      for (std::size_t j = 0; j < levels_used_[i]; ++j) visit(i * LevelsPerComponent + j);
  }

  /// The largest threshold a request for `amount` can prune with: for every component the
  /// highest threshold at most the amount, and of those the highest level (the most selective
  /// relative to its component's total).
  [[nodiscard]] std::optional<std::size_t> level_for(const C& amount) const noexcept {
    std::optional<std::size_t> chosen;
    std::size_t chosen_rank = 0;
    for (std::size_t i = 0; i < components::count; ++i) {
      for (std::size_t j = levels_used_[i]; j-- > 0;) {
        const std::size_t level = i * LevelsPerComponent + j;
        if (thresholds_[level] <= components::get(amount, i)) {
          if (!chosen || level_ranks_[level] > chosen_rank) {
            chosen = level;
            chosen_rank = level_ranks_[level];
          }
          break;
        }
      }
    }
    return chosen;
  }

  /// The mixed levels of component `component` for a subtree spanning [low, high] in it: the
  /// thresholds, non-decreasing with the level, that lie in (low, high].
  [[nodiscard]] std::pair<std::size_t, std::size_t> mixed_levels(
      std::size_t component, component_type low, component_type high) const noexcept {
    const auto* begin = thresholds_.data() + component * LevelsPerComponent;
    const auto* end = begin + levels_used_[component];
    const auto* from = std::upper_bound(begin, end, low);
    const auto* to = std::upper_bound(from, end, high);
    const auto base = component * LevelsPerComponent;
    return {base + static_cast<std::size_t>(from - begin),
            base + static_cast<std::size_t>(to - begin)};
  }

  /// The free capacities a change had before and after it, element-wise: a block's runs change
  /// only at thresholds in (new, old] or (old, new].
  struct value_hull {
    C lowest{};
    C highest{};
    bool empty = true;
    void take(const C& value) noexcept {
      lowest = empty ? value : elementwise_min(lowest, value);
      highest = empty ? value : elementwise_max(highest, value);
      empty = false;
    }
  };

  /// The levels whose threshold some value in `crossed` passed: all that a change of values can
  /// have changed (free_tree_algorithms::values_changed).
  [[nodiscard]] level_set crossed_levels(const value_hull& crossed) const noexcept {
    level_set changed{};
    if (crossed.empty) return changed;
    for (std::size_t i = 0; i < components::count; ++i)
      changed[i] = bits_of(
          mixed_levels(i, components::get(crossed.lowest, i), components::get(crossed.highest, i)));
    return changed;
  }

  /// Every level (a report that says nothing about which levels changed).
  [[nodiscard]] static constexpr level_set all_levels() noexcept {
    level_set all{};
    for (std::uint64_t& bits : all) bits = ~std::uint64_t{0};
    return all;
  }

  /// Whether s holds no level.
  [[nodiscard]] static constexpr bool is_empty(const level_set& s) noexcept {
    for (const std::uint64_t bits : s)
      if (bits != 0) return false;
    return true;
  }

  /// a's levels that b does not hold.
  [[nodiscard]] static constexpr level_set minus(const level_set& a, const level_set& b) noexcept {
    level_set rest{};
    for (std::size_t i = 0; i < components::count; ++i) rest[i] = a[i] & ~b[i];
    return rest;
  }

  /// a with b's levels added.
  static constexpr void unite(level_set& a, const level_set& b) noexcept {
    for (std::size_t i = 0; i < components::count; ++i) a[i] |= b[i];
  }

  /// The levels whose kind in a subtree (every block reaches the threshold, none, or mixed) can
  /// differ between a low and high of (old_low, old_high) and one of (low, high): those whose
  /// threshold lies between the old and the new low, or between the old and the new high.
  [[nodiscard]] level_set kinds_changed(const C& old_low, const C& old_high, const C& low,
                                        const C& high) const noexcept {
    level_set changed{};
    for (std::size_t i = 0; i < components::count; ++i) {
      const auto between = [this, i](component_type a, component_type b) {
        return bits_of(a < b ? mixed_levels(i, a, b) : mixed_levels(i, b, a));
      };
      changed[i] = between(components::get(old_low, i), components::get(low, i)) |
                   between(components::get(old_high, i), components::get(high, i));
    }
    return changed;
  }

  /// The run summary of n's subtree at `level` (a gap's computed from its blocks).
  template <class Node>
  [[nodiscard]] runs_type runs_at(const Node& n, std::size_t level) const noexcept {
    runs_block scratch;  // scan_gap fills the entries runs_from reads
    return runs_from(n, level, *runs_of(&n, scratch));
  }

  /// What a recompute changed: the levels whose stored summary it changed (`any`), and of those
  /// the ones where more than the summary's trail did (`deep`).
  struct changes {
    level_set any{};
    level_set deep{};
  };

  /// n's run summaries at its mixed levels, from its children's; with `only`, just those
  /// levels, which are all that can differ from the stored ones. Returns the levels whose stored
  /// summary it changed (at a level that was not mixed before, the old entry meant nothing, and
  /// it may or may not count). Storing the trivial levels too (so that a join need not test its
  /// children's level kinds) measured much slower on churn (more cache lines written per update).
  template <class Node>
  changes recompute(Node* n, const level_set* only) const noexcept {
    changes changed{};
    if (n->runs == nullptr) return changed;
    const std::optional<level_set> mixed = all_mixed_levels(*n, only);
    if (!mixed) return changed;
    // A child without summaries (a gap) has its own computed once for all levels here.
    runs_block left_scan;  // scan_gap fills the entries runs_from reads
    runs_block right_scan;
    const runs_block* left_runs = runs_of(n->left, left_scan, &*mixed);
    const runs_block* right_runs = runs_of(n->right, right_scan, &*mixed);
    for (std::size_t i = 0; i < components::count; ++i) {
      for (std::uint64_t bits = (*mixed)[i]; bits != 0; bits &= bits - 1) {
        const std::size_t level =
            i * LevelsPerComponent + static_cast<std::size_t>(std::countr_zero(bits));
        const runs_type s = summarise(n, level, left_runs, right_runs);
        runs_type& stored = (*n->runs)[level];
        // Field by field: a copy of the whole made the compiler stage it through the stack.
        const std::uint64_t this_level = bits & (~bits + 1);  // the lowest bit
        if (s.lead != stored.lead || s.best != stored.best) {
          stored.lead = s.lead;
          stored.best = s.best;
          changed.deep[i] |= this_level;
          changed.any[i] |= this_level;
        }
        if (s.trail != stored.trail) {
          stored.trail = s.trail;
          changed.any[i] |= this_level;
        }
      }
    }
    return changed;
  }

  /// n's run summaries at `levels`, where only the trail of its right child's changed (that
  /// child keeps summaries, and n's stored ones are up to date at every level it mixed before,
  /// as it still does): a join's trail is its right part's where that part is not full, and its
  /// lead and best do not read that trail (run_summary::join), so only n's trail follows, and
  /// neither n's left child (often a gap to scan) nor its own block is read. Adds the levels
  /// whose trail changed to `changed.any`; a level where the child turns out full is
  /// recomputed in full.
  template <class Node>
  void follow_trails(Node* n, const level_set& levels, changes& changed) const noexcept {
    const std::optional<level_set> mixed = all_mixed_levels(*n, &levels);
    if (!mixed) return;  // no level mixed here: nothing stored to follow
    const Node* right = n->right;
    level_set rest{};
    bool any_rest = false;
    for (std::size_t i = 0; i < components::count; ++i) {
      for (std::uint64_t bits = (*mixed)[i]; bits != 0; bits &= bits - 1) {
        const std::size_t level =
            i * LevelsPerComponent + static_cast<std::size_t>(std::countr_zero(bits));
        const std::uint64_t this_level = bits & (~bits + 1);
        const runs_type r = runs_from(*right, level, *right->runs);
        if (r.full()) {
          rest[i] |= this_level;
          any_rest = true;
          continue;
        }
        runs_type& stored = (*n->runs)[level];
        if (stored.trail != r.trail) {
          stored.trail = r.trail;
          changed.any[i] |= this_level;
        }
      }
    }
    if (!any_rest) return;
    const changes more = recompute(n, &rest);
    unite(changed.any, more.any);
    unite(changed.deep, more.deep);
  }

  /// The run summary of a whole profile at one level, straight from its definition (what
  /// validate compares the root's with).
  [[nodiscard]] runs_type scan(const std::vector<free_block<T, C>>& blocks,
                               std::size_t level) const {
    runs_type s{runs_type::none, runs_type::none, 0};
    T open = runs_type::none;
    for (const free_block<T, C>& b : blocks) {
      if (reaches(b.free, level)) {
        if (open == runs_type::none) open = b.span.begin;
        continue;
      }
      if (s.lead == runs_type::none) {
        s.lead = b.span.begin;
      } else if (open != runs_type::none) {
        const auto length = static_cast<length_type>(static_cast<length_type>(b.span.begin) -
                                                     static_cast<length_type>(open));
        s.best = std::max(s.best, length);
      } else {
        // two blocks below the threshold in a row: an empty run between them
      }
      open = runs_type::none;
    }
    s.trail = open;
    return s;
  }

 private:
  /// Only asked with thresholds to prune with; the divisor is never 0, so that the instantiation
  /// without thresholds (LevelsPerComponent = 0) compiles without a division by zero.
  static constexpr std::size_t per_component = LevelsPerComponent > 0 ? LevelsPerComponent : 1;

  [[nodiscard]] bool reaches(const C& free, std::size_t level) const noexcept {
    return components::get(free, level / per_component) >= thresholds_[level];
  }

  /// The levels [from, to) as a set of one component's (global level numbers, as mixed_levels
  /// gives them).
  [[nodiscard]] static constexpr std::uint64_t bits_of(
      std::pair<std::size_t, std::size_t> levels) noexcept {
    const std::size_t from = levels.first % per_component;
    const std::size_t count = levels.second - levels.first;
    if (count == 0) return 0;
    const std::uint64_t ones = count >= 64 ? ~std::uint64_t{0} : (std::uint64_t{1} << count) - 1;
    return ones << from;
  }

  /// The stored run summaries of a subtree: a summary node's own, or, for a gap (a node without
  /// them), a scan of its blocks into `scratch`; nullptr for no subtree.
  template <class Node>
  [[nodiscard]] const runs_block* runs_of(const Node* n, runs_block& scratch,
                                          const level_set* only = nullptr) const noexcept {
    if (n == nullptr) return nullptr;
    if (n->runs != nullptr) return n->runs;
    scan_gap(n, scratch, only);
    return &scratch;
  }

  /// Every component's mixed levels for n's subtree (see mixed_levels), within `only` if
  /// given, or nullopt when no component has one: then nothing stored is read.
  template <class Node>
  [[nodiscard]] std::optional<level_set> all_mixed_levels(
      const Node& n, const level_set* only = nullptr) const noexcept {
    level_set mixed{};
    bool any_mixed = false;
    for (std::size_t i = 0; i < components::count; ++i) {
      mixed[i] = bits_of(mixed_levels(i, components::get(n.low, i), components::get(n.high, i)));
      if (only != nullptr) mixed[i] &= (*only)[i];
      any_mixed = any_mixed || mixed[i] != 0;
    }
    if (!any_mixed) return std::nullopt;
    return mixed;
  }

  /// runs_at with the mixed levels read from `stored` (n's own summaries or a scan of them).
  template <class Node>
  [[nodiscard]] runs_type runs_from(const Node& n, std::size_t level,
                                    const runs_block& stored) const noexcept {
    const std::size_t component = level / per_component;
    if (components::get(n.low, component) >= thresholds_[level])
      return {runs_type::none, n.first, 0};
    if (components::get(n.high, component) < thresholds_[level])
      return {n.first, runs_type::none, 0};
    return stored[level];
  }

  /// The run summaries at the mixed levels of the subtree of n, which keeps none itself (nor,
  /// by heap order, does any node below it): one pass over its blocks in time order. A block
  /// touches only the levels whose threshold lies between its free capacity and the previous
  /// block's, where a run opens or closes; at the others nothing changes. The count of levels
  /// reached is found by stepping from the previous block's over those same levels (a binary
  /// search per block measured as a sixth of the scan's time on append).
  /// With `only`, the pass covers the levels from the lowest to the highest of them (stepping
  /// over the levels between is what keeps it one pass).
  template <class Node>
  void scan_gap(const Node* n, runs_block& out, const level_set* only = nullptr) const noexcept {
    // Without levels (fit corners alone) nothing is read: returning at once also leaves the
    // compiler no access to the empty arrays to warn about (-Warray-bounds at -O3).
    if constexpr (level_count == 0) return;
    // The levels to cover, per component: from the lowest to the highest of `only` (or of
    // every level), unless every block of the gap lies on one side of all of them. A level
    // there that the gap does not mix costs the pass a step at its first block at most, less
    // than the two binary searches that find the gap's own mixed levels.
    level_ranges mixed{};
    bool any = false;
    for (std::size_t i = 0; i < components::count; ++i) {
      const std::size_t base = i * LevelsPerComponent;
      const std::uint64_t bits =
          only != nullptr ? (*only)[i] : bits_of({base, base + levels_used_[i]});
      mixed[i] = {base, base};
      if (bits == 0) continue;
      const std::size_t from = base + static_cast<std::size_t>(std::countr_zero(bits));
      const std::size_t to = base + 64 - static_cast<std::size_t>(std::countl_zero(bits));
      if (components::get(n->high, i) < thresholds_[from] ||
          components::get(n->low, i) >= thresholds_[to - 1])
        continue;  // every block below all of them, or reaching all: runs_from reads nothing
      mixed[i] = {from, to};
      any = true;
    }
    if (!any) return;
    // Per component, the levels in [from, reached) are reached by the previous block, those in
    // [reached, to) are not. It starts as if a block before the first reached every level with
    // its run open since the first begin: the first block then closes, at the first begin, the
    // runs of the levels it does not reach, which leaves exactly a block's summary
    // (run_summary::block) at every level, with no case of its own for the first block.
    std::array<std::size_t, components::count> reached{};
    for (std::size_t i = 0; i < components::count; ++i) {
      for (std::size_t level = mixed[i].first; level < mixed[i].second; ++level)
        out[level] = {runs_type::none, n->first, 0};
      reached[i] = mixed[i].second;
    }
    const auto* thresholds = thresholds_.data();
    auto step = [&](const Node& b) noexcept {
      for (std::size_t i = 0; i < components::count; ++i) {
        const auto [from, to] = mixed[i];
        const component_type value = components::get(b.free, i);
        std::size_t k = reached[i];
        for (; k < to && thresholds[k] <= value; ++k) out[k].trail = b.begin;  // runs open
        for (; k > from && thresholds[k - 1] > value; --k) {
          runs_type& r = out[k - 1];  // its run, open since r.trail, stops here
          const bool full = r.full();
          const auto length = static_cast<length_type>(static_cast<length_type>(b.begin) -
                                                       static_cast<length_type>(r.trail));
          r.best = !full && length > r.best ? length : r.best;
          r.lead = full ? b.begin : r.lead;
          r.trail = runs_type::none;
        }
        reached[i] = k;
      }
    };
    free_tree_algorithms<Node, T, C>::for_each_unshifted(n, step);
  }

  template <class Node>
  [[nodiscard]] runs_type summarise(const Node* n, std::size_t level, const runs_block* left_runs,
                                    const runs_block* right_runs) const noexcept {
    runs_type s = runs_type::block(n->begin, reaches(n->free, level));
    if (n->left != nullptr)
      s = runs_type::join(runs_from(*n->left, level, *left_runs), s, n->begin);
    if (n->right != nullptr)
      s = runs_type::join(s, runs_from(*n->right, level, *right_runs), n->right->first);
    return s;
  }

  std::array<component_type, level_count> thresholds_{};  ///< per component, increasing
  std::array<std::uint8_t, level_count> level_ranks_{};   ///< a threshold's highest level index
  std::array<std::uint8_t, components::count> levels_used_{};
};

}  // namespace leasehold::detail
