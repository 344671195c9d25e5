#pragma once

// free_tree_seekers<Node, T, C>: the in-order seeks of free_tree's searches, as seekers for
// free_tree_algorithms::seek (may_hit / skip / visit), and latest_fit's backward walk. Each says
// how one kind of search judges a block and a whole subtree: by the interval summaries (low,
// high: interval_summary.hpp) where they settle it, by the stored run summaries
// (run_levels.hpp) or fit corners (fit_corners.hpp) where the amount is mixed, and by walking in
// otherwise. They only read the tree; the pending shifts they are handed (lazy_shift.hpp) are
// applied to every value they compare.
//
// Node requirements: those of free_tree_algorithms and interval_summary, plus `runs` (a pointer
// to an array of run_summary<T>, or nullptr) and `corners` (fit_corners<T, C>).

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <optional>

#include "leasehold/availability/detail/fit_corners.hpp"
#include "leasehold/availability/detail/lazy_shift.hpp"
#include "leasehold/availability/detail/run_summary.hpp"
#include "leasehold/core/capacity.hpp"
#include "leasehold/core/time.hpp"

namespace leasehold::detail {

template <class Node, time_value T, capacity_value C>
struct free_tree_seekers {
  using lazy = lazy_shift<C>;
  using components = capacity_components<C>;
  using component_type = typename components::value_type;
  using runs_type = run_summary<T>;
  using length_type = typename runs_type::length_type;
  using corners_type = fit_corners<T, C>;

  /// A seek that looks for the first node satisfying `hit`, or beginning at or after `limit`
  /// (where the caller stops caring), and may skip any subtree for which `may_hit` is false.
  /// may_hit must hold for every subtree holding a hit; it need not be exact (for vectors the
  /// element-wise maximum only says that each component fits somewhere, so the limit is what
  /// keeps such a seek from wandering far past the stretch it is about). Both take the node and
  /// the shift its ancestors still owe it (the sum of their pending): its true free is
  /// lazy::shifted(n.free, shift), and likewise low and high.
  template <class MayHit, class Hit>
  struct node_seeker {
    MayHit may_hit_fn;
    Hit hit_fn;
    T limit;
    [[nodiscard]] bool may_hit(const Node& n, const C& shift) const { return may_hit_fn(n, shift); }
    void skip(const Node&, const C&) const noexcept {}
    [[nodiscard]] bool visit(const Node& n, const C& shift) const {
      return n.begin >= limit || hit_fn(n, shift);
    }
  };
  template <class MayHit, class Hit>
  [[nodiscard]] static node_seeker<MayHit, Hit> seeker_for(MayHit may_hit, Hit hit, T limit) {
    return {may_hit, hit, limit};
  }

  /// A seek for the first stretch, from `clamp` on, that may hold `amount` for `length`: the
  /// stretch between two blocks known to fall short of the amount, found as a maximal run at one
  /// threshold (at most the amount) wherever only a stored run summary speaks for a subtree.
  /// Blocks, and subtrees that all fit the amount or where no block can, are judged by the
  /// amount itself, so a block between the threshold and the amount ends a stretch rather than
  /// extending a run that the caller would then search in vain: on the append benchmark those
  /// near misses made the slowest tenth of the searches over half of their time at 100,000.
  /// Every stretch it returns still holds every window that fits (a summary's runs at the
  /// threshold only ever make a stretch longer than the amount's own), so the caller's search
  /// inside it keeps the answer exact. `open` is the start of the stretch in progress while
  /// folding left to right. `prunes` counts the subtrees skipped by their stored summaries
  /// (summary_mode weighs them). Without `use_summaries` (a search with no summaries to read:
  /// free_tree::fit_within's walk) every mixed subtree is walked, so every stretch it returns fits
  /// throughout, and `closes` counts the stretches it closed too short. Such a walk may owe
  /// shifts (the lazy mode) and applies them; the summaries are read only while maintained,
  /// when no shift is pending.
  struct run_seeker {
    std::size_t level;
    T clamp;
    length_type length;
    std::size_t component;     // level / per_component
    component_type threshold;  // the level's threshold, at most the amount's component
    C amount;
    T last;  // the latest start the caller takes: a stretch that opens later is of no use
    // Whether the stored run summaries may speak for a subtree where the amount is mixed;
    // without them every such subtree is walked, and every stretch found fits throughout.
    bool use_summaries;
    T open = runs_type::none;
    bool passed = false;  // stopped at `last` with no stretch open: there is none to find
    interval<T> found{};
    std::uint64_t prunes = 0;
    std::uint64_t closes = 0;  // stretches closed too short: what run-to-run jumps would be

    // The stretch in progress, or else the subtree's leading run, closed at `end`: long
    // enough?
    [[nodiscard]] bool closes_long_run(T start, T end) const noexcept {
      const T from = std::max(start, clamp);
      return from < end && static_cast<length_type>(static_cast<length_type>(end) -
                                                    static_cast<length_type>(from)) >= length;
    }
    // A subtree all of whose blocks fit extends the stretch; one where none can (some
    // component's maximum is short) ends it at its first block. Otherwise a subtree without
    // summaries is walked (at most a gap's few blocks), and one with them may hold a long
    // stretch only if its runs at the threshold say so: a long run inside, or the stretch
    // that enters closing long at its lead.
    [[nodiscard]] bool may_hit(const Node& n, const C& shift) const noexcept {
      if (open == runs_type::none && n.first > last) return true;  // visit stops at its first
      if (fits(amount, lazy::shifted(n.low, shift))) return length == 0;  // one open stretch
      if (!fits(amount, lazy::shifted(n.high, shift)))  // no block fits: closes at n.first
        return length == 0 || (open != runs_type::none && closes_long_run(open, n.first));
      if (n.runs == nullptr || !use_summaries) return true;  // a gap: a few blocks to look at
      if (components::get(n.low, component) >= threshold) return length == 0;
      const runs_type& r = (*n.runs)[level];  // the threshold is mixed here: stored
      return r.best >= length ||
             (!r.full() && closes_long_run(open != runs_type::none ? open : n.first, r.lead));
    }
    void skip(const Node& n, const C& shift) noexcept {
      if (fits(amount, lazy::shifted(n.low, shift))) {
        if (open == runs_type::none) open = n.first;
        return;
      }
      if (!fits(amount, lazy::shifted(n.high, shift))) {
        if (open != runs_type::none) ++closes;
        open = runs_type::none;
        return;
      }
      // may_hit was false for a summary node: one run at the threshold spans it, or its
      // runs at the threshold say where the last one starts.
      if (components::get(n.low, component) >= threshold) {
        if (open == runs_type::none) open = n.first;
        return;
      }
      const runs_type& r = (*n.runs)[level];
      ++prunes;
      if (!r.full())
        open = r.trail;
      else if (open == runs_type::none)
        open = n.first;
    }
    // What the seek that ended at `hit` (nullptr: it ran off the end) found: the stretch, clamped
    // to begin at `clamp`, or none if it stopped at `last` or ended with no stretch open; a
    // stretch still open at the end reaches forever, which is always long enough.
    [[nodiscard]] std::optional<interval<T>> result(const Node* hit) const noexcept {
      if (passed) return std::nullopt;
      if (hit != nullptr) return found;
      if (open == runs_type::none) return std::nullopt;
      return interval<T>{std::max(open, clamp), forever<T>};
    }
    [[nodiscard]] bool visit(const Node& n, const C& shift) noexcept {
      if (open == runs_type::none && n.begin > last) return passed = true;
      if (fits(amount, lazy::shifted(n.free, shift))) {
        if (open == runs_type::none) open = n.begin;
        return false;
      }
      if (open != runs_type::none && closes_long_run(open, n.begin)) {
        found = {std::max(open, clamp), n.begin};
        return true;
      }
      if (open != runs_type::none) ++closes;
      open = runs_type::none;
      return false;
    }
  };

  /// run_seeker's walk (no run summaries read) for a vector, which passes a subtree by its fit
  /// corners (detail/fit_corners.hpp) where they settle it: when no block in it can fit the
  /// amount (the stretch closes at its first block), and when every run of blocks that fit
  /// inside it is one block shorter than the duration (the stretch in progress ends at its
  /// first block or the one after, and the one that leaves it, if any, starts at its last
  /// block). Exact for the same reason as the scalar walk: the corners never rule out a run that
  /// fits, blocks are judged by the amount itself, and the edge blocks' rounded values decide
  /// only where they are exact (a total of at most 255 per component, or a value below the
  /// amount's rounding); elsewhere the walk goes in. `prunes` counts the subtrees passed by
  /// their corners that low and high would have entered (summary_mode weighs them).
  struct corner_seeker : run_seeker {
    typename corners_type::quantised need;
    std::size_t band;  // the length band of the duration
    bool exact;        // rounded values compare as the true ones (the corner scale's exact())

    // A node without corners (in a gap between summary nodes) is judged by its high alone.
    [[nodiscard]] bool none_fits(const Node& n) const noexcept {
      if (!fits(this->amount, n.high)) return true;
      if (n.runs == nullptr) return false;
      const corners_type& k = n.runs->corners;
      return !k.single_may_fit(need, 0) && !corners_type::reaches(k.last_free, need);
    }
    // Every run that fits inside n's subtree is a single block shorter than the duration, and the
    // subtree holds two blocks or more (n keeps corners).
    [[nodiscard]] bool only_short(const Node& n) const noexcept {
      const corners_type& k = n.runs->corners;
      return k.first_end != corners_type::none && !k.pairs.may_fit(need) &&
             !k.single_may_fit(need, band);
    }
    [[nodiscard]] bool may_hit(const Node& n, const C&) const noexcept {
      // The corners are one dependent load away (in the summaries' pool), and the children are
      // next if they do not settle n: asked for before the tests on low and high.
      if (n.runs != nullptr) {
        n.runs->corners.prefetch(band);
        prefetch_line(n.left);
        prefetch_line(n.right);
      }
      if (this->open == runs_type::none && n.first > this->last) return true;
      if (fits(this->amount, n.low)) return this->length == 0;
      if (none_fits(n))
        return this->length == 0 ||
               (this->open != runs_type::none && this->closes_long_run(this->open, n.first));
      if (this->length == 0 || n.runs == nullptr || !only_short(n)) return true;
      const corners_type& k = n.runs->corners;
      // The first block may extend the stretch in progress, to where it ends.
      if (this->open != runs_type::none &&
          this->closes_long_run(this->open,
                                corners_type::reaches(k.first_free, need) ? k.first_end : n.first))
        return true;
      // Where the stretch that leaves it starts must be known exactly.
      return !exact && corners_type::reaches(k.last_free, need);
    }
    void skip(const Node& n, const C&) noexcept {
      if (fits(this->amount, n.low)) {
        if (this->open == runs_type::none) this->open = n.first;
        return;
      }
      if (this->open != runs_type::none) ++this->closes;
      if (fits(this->amount, n.high)) ++this->prunes;  // only the corners passed it
      // Skipped with no corners only where no block fits (by its high), so none_fits settles a
      // node without corners before its corners are read.
      this->open = !none_fits(n) && corners_type::reaches(n.runs->corners.last_free, need)
                       ? n.runs->corners.last_begin
                       : runs_type::none;
    }
  };

  /// latest_fit's walk: the run of fitting blocks that ends at run_end (a blocker's begin, or
  /// the window's end) grows backwards until it holds the duration, or run_end falls below
  /// shortest_end and no start is left. Values are read through the pending shifts.
  struct backward_walk {
    C amount;
    T duration;
    T window_end;
    T shortest_end;
    T run_end = window_end;
    std::optional<T> found{};

    // Whether the answer is settled (found, or none left) once n's subtree has been walked;
    // `shift` is what n's ancestors still owe it.
    bool visit(const Node* n, const C& shift) {
      if (n == nullptr || n->first >= window_end) return false;  // all of it after the window
      if (fits(amount, lazy::shifted(n->low, shift))) return extend_to(n->first);
      if (!fits(amount, lazy::shifted(n->high, shift))) return stop_at(n->first);
      const C below = lazy::shifted(shift, n->pending);
      if (visit(n->right, below)) return true;
      if (n->begin < window_end &&
          (fits(amount, lazy::shifted(n->free, shift)) ? extend_to(n->begin) : stop_at(n->begin)))
        return true;
      return visit(n->left, below);
    }
    // The run reaches back to `begin`.
    bool extend_to(T begin) {
      const T start = static_cast<T>(run_end - duration);
      if (begin > start) return false;
      found = start;
      return true;
    }
    // The block that begins at `begin` stops the run: the next run ends there.
    bool stop_at(T begin) {
      run_end = std::min(run_end, begin);
      return run_end < shortest_end;
    }
  };
};

}  // namespace leasehold::detail
