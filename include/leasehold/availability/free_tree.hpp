#pragma once

/// \file
/// free_tree<T, C>: the time-exclusive free blocks of Schneider & Linnert (§5, Fig. 2 left) —
/// the same maximal blocks as free_list — kept in a treap keyed by begin, where every node
/// also summarises its subtree: the smallest begin and the element-wise minimum and maximum
/// free capacity. About one node in 16, a summary node, also keeps, for a few capacity
/// thresholds, a run_summary (detail/run_summary.hpp) of its subtree's maximal runs of blocks
/// whose free capacity reaches the threshold.
///
/// The parts, each in a detail header of its own, with what it maintains and why:
/// - detail/free_tree_algorithms.hpp: the treap apart from the container (split, merge, insert,
///   erase, the descents and in-order seeks, and the refresh of the nodes a change marked);
/// - detail/interval_summary.hpp: every node's first begin, low and high, and the span folds
///   that read them (reserve's and release's checks, min_free);
/// - detail/lazy_shift.hpp: a change to a whole subtree as one pending shift;
/// - detail/run_levels.hpp: the run summaries at the thresholds, on the summary nodes;
/// - detail/fit_corners.hpp: the fit corners of resources<N, V>;
/// - detail/free_tree_seekers.hpp: how each search judges a block and a subtree;
/// - detail/summary_mode.hpp: whether the run summaries and fit corners are kept, decided in
///   the updates from what the searches report.
/// free_tree owns the nodes (two pools), checks arguments, keeps the strong guarantee, and
/// composes the parts.
///
/// Why the run summaries: on a deep schedule a request meets hundreds of runs with enough
/// capacity that are too short before the first long enough one, so
/// jumping from run to run in O(log n) each is not enough. The thresholds form a geometric
/// series from the total down to 1/128 of it (32 of them for a scalar, about 1.17 apart, in
/// whole units, each distinct value kept once); a request for c uses the largest threshold
/// theta <= c. Every time span with c free lies inside a run at theta, so earliest_fit walks
/// to the first stretch at least d long, judging blocks by c itself and a subtree by its
/// low/high where they settle it, and by its theta-runs only where c is mixed (skipping every
/// such subtree whose runs are all shorter). It looks for c inside the stretch with O(log n)
/// jumps ("next block that fits c", "next block that does not"), and only if c has no long
/// enough span there moves on to the next stretch. Judging blocks by c keeps a block
/// between theta and c from making a run that fails at c, which deep schedules made common. A
/// scalar search with no summaries to read is that walk alone, which is then exact. For
/// resources<N, V> the default is no thresholds (see detail::default_run_levels for the
/// measurement behind that). Instead, for 2 to 4 components, the summary nodes (one in
/// fit_corners' spacing, 8, rather than 16) keep fit corners
/// (detail/fit_corners.hpp), upper bounds on its subtree's free vectors by the order of their
/// components, by length band, and over neighbouring pairs, that say where no run of blocks
/// fitting c can be d long; earliest_fit is then one walk judged by c that passes such subtrees
/// (corner_seeker). They are summaries like the run summaries: kept only in the maintained
/// mode below, reviewed by the same rule, allocated with the summary node, and computed for
/// a gap child from its blocks.
///
/// Costs, with n blocks, k blocks in a span and m the long stretches tried: free_at O(log n),
/// min_free O(log n), reserve and release O(log n + k) node updates, earliest_fit
/// O((m + jumps) log n). A node update recomputes the run summaries of only its subtree's mixed
/// thresholds, those in (low, high]: at the others every block of the subtree reaches the
/// threshold or none does, and the summary follows from the subtree's first begin
/// (run_levels::runs_at). A leaf (about a third of a treap's nodes) has no mixed threshold, and a
/// small subtree spans few. Of those, a node whose subtree kept its shape recomputes only the
/// thresholds that some block of the call crossed, between its old and new free capacity
/// (free_tree_algorithms::values_changed), and of those only the ones where a child's summary
/// came out different or its own block crossed: each recompute tells its parent which of its
/// summaries changed, so a change whose effect dies out on the way up stops there, and where
/// only the trail of a right child's summary changed (appending at the end of the schedule) the
/// node follows that trail without reading its left (recompute_marked_node).
/// Walking: blocks_from and blocks_in O(log n) to start and O(1) amortised a block
/// (detail/treap_cursor.hpp), next_change O(log n); set_total O(n) (see there).
///
/// Why only a sparse subset of nodes keeps them: 32 summaries are 768 bytes, and on
/// every node they made a tree of ~850 bytes a block, 78 MB at 100,000 blocks, whose searches
/// and updates waited on memory. The summary nodes hold the upper half of the priorities, so by
/// heap order they are the top of the treap, and every subtree below a node without summaries
/// is a gap of about 16 consecutive blocks between two summary nodes. A search falls back on
/// low/high there and otherwise walks the gap; refreshing a summary node computes a gap child's
/// summaries in one pass over its blocks (run_levels::scan_gap). Which nodes they are is fixed at
/// creation, from a hash of the key (run_levels::keeps_runs), so updates never allocate beyond the
/// nodes they create, and the undo of a reserve or release gets back exactly the summary blocks it
/// needs. A node is 80 bytes (72 before `pending`) plus 768 / 16 on average (docs/performance.md,
/// "Run summaries on a sparse subset of nodes").
///
/// Why the run summaries are kept only while searches prune with them: a reserve or
/// release changes every block of its span, and keeping the summaries means visiting and
/// recomputing each of them, O(k) with k blocks in the span. On an online workload of short
/// windows (the churn benchmark) the searches hardly ever skip a subtree by its summaries
/// (0.07 skips a search at N = 1,000, none at 10,000, where every request is below the lowest
/// threshold), so that upkeep was three quarters of the time. Without summaries to keep, a
/// change to a whole subtree is a lazy shift: low, high and the node's own free move by the
/// amount and `pending` remembers to move the subtree below, so an update is O(log n)
/// whatever its span. Searches read through the pending shifts (the offsets of seek) and never
/// write them. Which of the two modes the tree is in follows from what searches report (see
/// detail/summary_mode.hpp): every review_period updates, the summaries are dropped when the
/// searches since the last review pruned with them less than once in four, and rebuilt (O(n), once)
/// when searches without them walked four or more runs on average, as appending at the end of a
/// deep schedule does (about 40 a search at N = 100,000). A tree that is only searched keeps its
/// mode; one only updated for a whole review period drops the summaries, which nothing read,
/// and is reviewed again as soon as searches come back (min_searches of them), not a period
/// later. Answers never depend on the mode, only their cost does.
///
/// The third template parameter is the number of thresholds per capacity component (0 turns
/// the run pruning off, which the benchmarks compare: a scalar then walks, a vector with fit
/// corners walks with them, another vector jumps).
///
/// compact() lays a long-lived tree out afresh, as a copy is (its nodes in descent order in one
/// chunk): O(n), and only when its owner calls it.

#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <utility>
#include <vector>

#include "leasehold/availability/detail/block_view.hpp"
#include "leasehold/availability/detail/boundary_splits.hpp"
#include "leasehold/availability/detail/fit_corners.hpp"
#include "leasehold/availability/detail/free_tree_algorithms.hpp"
#include "leasehold/availability/detail/free_tree_seekers.hpp"
#include "leasehold/availability/detail/interval_summary.hpp"
#include "leasehold/availability/detail/lazy_shift.hpp"
#include "leasehold/availability/detail/node_pool.hpp"
#include "leasehold/availability/detail/profile_types.hpp"
#include "leasehold/availability/detail/resize.hpp"
#include "leasehold/availability/detail/run_levels.hpp"
#include "leasehold/availability/detail/summary_mode.hpp"
#include "leasehold/availability/detail/treap_cursor.hpp"
#include "leasehold/core/detail/checks.hpp"
#include "leasehold/core/detail/swap_members.hpp"
#include "leasehold/core/error.hpp"

namespace leasehold {

/// The free blocks of free_list in an augmented treap whose subtree summaries prune
/// earliest_fit to near-logarithmic time on deep schedules: a model of
/// leasehold::availability; see the file's description for the summaries and every cost.
///
/// Thread safety, as for the standard containers: const calls on one object may run
/// concurrently with each other; a mutating call needs the object to itself. (earliest_fit
/// reports what it met to the mode review through relaxed atomics: detail/summary_mode.hpp.)
template <time_value T = std::int64_t, capacity_value C = std::int64_t,
          std::size_t LevelsPerComponent = detail::default_run_levels<C>>
class free_tree : public detail::profile_types<T, C> {
  struct node;
  // The parts (see the file's description): the treap's algorithms, the interval summaries and
  // lazy shifts every node keeps, the run summaries and fit corners of the maintained mode, the
  // searches that read them, and the mode switch.
  using tree = detail::free_tree_algorithms<node, T, C>;
  using intervals = detail::interval_summary<T, C>;
  using lazy = detail::lazy_shift<C>;
  using seekers = detail::free_tree_seekers<node, T, C>;
  using corners_type = detail::fit_corners<T, C>;
  /// Whether summary nodes keep fit corners (detail/fit_corners.hpp): resources<N, V>, N <= 4.
  static constexpr bool joint = corners_type::enabled;
  using levels_type = detail::run_levels<T, C, LevelsPerComponent, joint>;
  using runs_block = typename levels_type::runs_block;
  using level_set = typename levels_type::level_set;
  using level_changes = typename levels_type::changes;
  using length_type = typename levels_type::length_type;
  /// What a summary node keeps beside its node, in the summaries' pool: the run summaries and
  /// the fit corners (either may be empty).
  struct summary_block : runs_block {
    [[no_unique_address]] corners_type corners{};
  };
  /// Whether the tree has summaries that updates keep and searches prune with.
  static constexpr bool keeps_summaries = levels_type::level_count > 0 || joint;
  using mode_type = detail::summary_mode<T, keeps_summaries, joint>;
  /// What a span fold finds (detail/interval_summary.hpp): the blocks at its ends and the fold.
  using survey_type = typename intervals::template span_survey<node>;
  using block_cursor = detail::treap_cursor<node, T, C>;
  using blocks_view = detail::block_view<T, C, block_cursor>;

 public:
  /// A profile of `total` capacity, all of it free from `origin` to forever. Throws
  /// invalid_request for a total that is not positive or an origin that leaves no time to book.
  explicit free_tree(C total, T origin = 0) : total_(total) {
    detail::check_profile("free_tree", total, origin);
    derive_from_total();
    root_ = make_node(origin, total);
    count_ = 1;
  }

  /// A deep copy: the same blocks, in memory of its own (strong guarantee: a copy that cannot
  /// allocate throws std::bad_alloc and leaves nothing behind).
  free_tree(const free_tree& other) : total_(other.total_), parts_(other.parts_) {
    pool_.reserve_nodes(other.count_);  // the only steps that can throw
    summaries_.reserve_nodes(other.summaries_.live());
    auto copy = [this](const node& n) noexcept {  // from the nodes just reserved
      node* made = pool_.create(n);
      if (n.runs != nullptr) made->runs = summaries_.create(*n.runs);
      return made;
    };
    root_ = tree::clone(other.root_, copy);
    count_ = other.count_;
  }

  /// Takes other's blocks without copying them; other may then only be destroyed or assigned to.
  free_tree(free_tree&& other) noexcept
      : total_(other.total_),
        parts_(other.parts_),
        pool_(std::move(other.pool_)),
        summaries_(std::move(other.summaries_)),
        root_(std::exchange(other.root_, nullptr)),
        count_(std::exchange(other.count_, 0)) {}

  /// Copy and move assignment in one (copy and swap): a copy that throws leaves *this
  /// unchanged.
  free_tree& operator=(free_tree other) noexcept {
    swap(other);
    return *this;
  }

  ~free_tree() { destroy(root_); }

  /// Exchanges the two profiles' contents; O(1), never throws.
  void swap(free_tree& other) noexcept {
    detail::swap_members(*this, other, &free_tree::total_, &free_tree::parts_, &free_tree::pool_,
                         &free_tree::summaries_, &free_tree::root_, &free_tree::count_);
  }

  /// Exchanges the two profiles' contents; O(1), never throws.
  friend void swap(free_tree& a, free_tree& b) noexcept { a.swap(b); }

  /// advance_to throws only from its argument check, and undoing a reserve or release that
  /// just succeeded never throws (see change_over): cluster::slot_table rolls back in place.
  static constexpr bool nothrow_rollback = true;

  /// The total capacity, what is free where nothing is booked.
  [[nodiscard]] C total() const noexcept { return total_; }
  /// The earliest time the profile holds; advance_to moves it forward.
  [[nodiscard]] T origin() const noexcept { return root_->first; }

  /// The capacity free at t. Throws invalid_request for t before the origin. O(log n).
  [[nodiscard]] C free_at(T t) const {
    detail::check_time("free_at", t, origin());
    return free_in_force(t);
  }

  /// The earliest start s with r.amount free throughout [s, s + r.duration) inside r.window,
  /// or nullopt when there is none. Throws invalid_request for a malformed request (see
  /// leasehold::request). O((m + jumps) log n), see the file's description.
  [[nodiscard]] std::optional<T> earliest_fit(const request<T, C>& r) const {
    const auto starts = detail::check_request(r, total_, origin());
    if (starts.empty()) return std::nullopt;
    parts_.mode.report().searches.add(1);
    if constexpr (joint) {
      if (parts_.mode.maintained()) return corner_fit(r, starts.first, starts.last);
    }
    const std::optional<std::size_t> level = parts_.levels.level_for(r.amount);
    if (!level || !parts_.mode.maintained()) {
      std::uint64_t jumps = 0;
      const auto start = fit_within(r, {starts.first, forever<T>}, starts.last, jumps, true);
      // What summaries at `level`, or fit corners, might have saved.
      if (level || joint) parts_.mode.report().level_jumps.add(jumps);
      return start;
    }
    T from = starts.first;
    std::uint64_t prunes = 0;
    std::uint64_t jumps = 0;  // not reported: only the searches without summaries count them
    std::optional<T> start;
    while (true) {
      const std::optional<interval<T>> run = long_run(*level, r.amount, from, starts.last,
                                                      static_cast<length_type>(r.duration), prunes);
      if (!run || run->begin > starts.last) break;
      if ((start = fit_within(r, *run, starts.last, jumps, false))) break;
      if (run->end == forever<T>) break;
      from = run->end;
    }
    parts_.mode.report().prunes.add(prunes);
    return start;
  }

  /// The mirror of earliest_fit, without the run summaries: blocks are walked back from the
  /// window's end in reverse order of the treap, and a subtree is passed in one step when its
  /// element-wise minimum fits the amount (every block in it extends the run) or its maximum
  /// does not (every block in it stops the run). So the walk visits the blocks whose free
  /// capacity is mixed around the amount near the answer, and the paths to them.
  [[nodiscard]] std::optional<T> latest_fit(const request<T, C>& r) const {
    const auto starts = detail::check_request(r, total_, origin(), "latest_fit");
    if (starts.empty()) return std::nullopt;
    // Compared without differences, which could overflow T: run_end >= shortest_end (<= the
    // window's end) holds whenever the duration is taken from it.
    typename seekers::backward_walk walk{r.amount, r.duration,
                                         static_cast<T>(starts.last + r.duration),
                                         static_cast<T>(starts.first + r.duration)};
    walk.visit(root_, C{});
    return walk.found;
  }

  /// The least capacity free at any time of span, the most a booking over it could take.
  /// Throws invalid_request for an empty span or one beginning before the origin. O(log n).
  [[nodiscard]] C min_free(interval<T> span) const {
    detail::check_span("min_free", span, origin());
    return survey_min(span).folded;
  }

  /// Books `amount` over `span`. Throws invalid_request for an empty span, one beginning before
  /// the origin, or an amount not positive or above the total; insufficient_capacity when
  /// `amount` is not free throughout (naming the first time it is not). Strong guarantee. O(log n +
  /// k) node updates.
  void reserve(interval<T> span, C amount) {
    detail::check_span("reserve", span, origin());
    detail::check_amount("reserve", amount, total_);
    // One descent checks the span and finds its ends for the splits; only a call that fails
    // seeks the first block short of the amount, for the message.
    const survey_type looked = survey_min(span);
    if (!fits(amount, looked.folded)) {
      auto too_little = seekers::seeker_for(
          [&amount](const node& n, const C& shift) {
            return !fits(amount, lazy::shifted(n.low, shift));
          },
          [&amount](const node& n, const C& shift) {
            return !fits(amount, lazy::shifted(n.free, shift));
          },
          span.end);
      const node* n = first_in(span, looked.ends[0].first, too_little);
      throw insufficient_capacity(detail::describe("reserve ", amount, " over ", span, ": only ",
                                                   free_in_force(n->begin), " free at ",
                                                   std::max(n->begin, span.begin)));
    }
    change_over(
        span, C{} - amount, [&amount](C& free) noexcept { free -= amount; }, looked);
    note_update(span);
  }

  /// Gives back `amount` over `span`, the reverse of reserve. Throws invalid_request as reserve
  /// does; invalid_release when more than is booked would come back somewhere (the free
  /// capacity would exceed the total). Strong guarantee. O(log n + k) node updates.
  void release(interval<T> span, C amount) {
    detail::check_span("release", span, origin());
    detail::check_amount("release", amount, total_);
    const C room = total_ - amount;  // a block can take the release iff its free fits in this
    const survey_type looked = survey_max(span);
    if (!fits(looked.folded, room)) {
      auto too_much = seekers::seeker_for(
          [&room](const node& n, const C& shift) {
            return !fits(lazy::shifted(n.high, shift), room);
          },
          [&room](const node& n, const C& shift) {
            return !fits(lazy::shifted(n.free, shift), room);
          },
          span.end);
      const node* n = first_in(span, looked.ends[0].first, too_much);
      throw invalid_release(detail::describe("release ", amount, " over ", span, ": only ",
                                             total_ - free_in_force(n->begin), " booked at ",
                                             std::max(n->begin, span.begin)));
    }
    change_over(
        span, amount, [&amount](C& free) noexcept { free += amount; }, looked);
    note_update(span);
  }

  /// Forgets every block that ends by t and cuts the one in force at t.
  void advance_to(T t) {
    detail::check_advance(t, origin());
    // Often nothing is dropped (churn advances about as often as a block ends): no split then.
    if (const T kept = tree::block_at(root_, t)->begin; kept != origin()) {
      node* past = nullptr;
      node* rest = nullptr;
      tree::split(root_, kept, past, rest);
      destroy(past);
      root_ = rest;
    }
    // still the smallest key: the order is unchanged; the run summaries hold begins
    tree::set_first_begin(root_, t, parts_.mode.maintained());
    refresh(root_);
  }

  /// Every maximal free block from the origin on, in time order, as a vector (a copy): O(n).
  [[nodiscard]] std::vector<free_block<T, C>> free_blocks() const {
    std::vector<free_block<T, C>> blocks;
    blocks.reserve(count_);
    tree::for_each_in_order(root_, [&blocks](const node& n, const C& shift) {
      if (!blocks.empty()) blocks.back().span.end = n.begin;
      blocks.push_back({{n.begin, forever<T>}, lazy::shifted(n.free, shift)});
    });
    return blocks;
  }

  /// The profile from t on, and within a span, read in place (walkable_availability): views
  /// that yield the true free capacities (pending shifts applied) and never write to the tree;
  /// any mutating call invalidates them.
  [[nodiscard]] auto blocks_from(T t) const {
    detail::check_time("blocks_from", t, origin());
    return blocks_view(block_cursor(root_, t), {t, forever<T>});
  }

  /// The maximal free blocks that meet `span`, clipped to it, in time order. Throws
  /// invalid_request for an empty span or one beginning before the origin.
  [[nodiscard]] auto blocks_in(interval<T> span) const {
    detail::check_span("blocks_in", span, origin());
    return blocks_view(block_cursor(root_, span.begin), span);
  }

  /// The first begin after t: keys only, so no shift is read.
  [[nodiscard]] std::optional<T> next_change(T t) const {
    detail::check_time("next_change", t, origin());
    if (const node* next = tree::first_after(root_, t)) return next->begin;
    return std::nullopt;
  }

  /// Changes the capacity of the resource, keeping what is booked at every time
  /// (resizable_availability). One seek finds the earliest block whose bookings would not fit
  /// (a subtree holds one iff some component of its minimum free is short, which is exact
  /// element-wise too). Then O(n): the thresholds of the run summaries are fractions of the
  /// total, and the bound that makes lazy shifts safe is in terms of the total, so every
  /// pending shift is pushed down, every block moved and every summary recomputed (rebase)
  /// rather than one shift left at the root. Nothing after the check can throw: no node is
  /// made or freed.
  void set_total(C new_total) {
    detail::check_new_total(new_total);
    const C old_total = total_;
    auto overbooked = seekers::seeker_for(
        [&](const node& n, const C& shift) {
          return !detail::fits_new_total(lazy::shifted(n.low, shift), old_total, new_total);
        },
        [&](const node& n, const C& shift) {
          return !detail::fits_new_total(lazy::shifted(n.free, shift), old_total, new_total);
        },
        forever<T>);
    if (const node* n = seek(origin(), overbooked); n != nullptr)
      detail::throw_overbooked(n->begin, detail::booked_under(old_total, free_in_force(n->begin)),
                               new_total);
    total_ = new_total;
    derive_from_total();
    rebase(root_, old_total);
  }

  /// The number of maximal free blocks held, the n of the costs above.
  [[nodiscard]] std::size_t block_count() const noexcept { return count_; }

  /// The longest root-to-leaf path, in nodes: a diagnostic of the treap's balance (about
  /// 2 ln n expected, whatever the order of the updates).
  [[nodiscard]] std::size_t height() const noexcept { return tree::height_of(root_); }

  /// Whether the run summaries are kept up to date now (see detail/summary_mode.hpp): a diagnostic,
  /// for tests and benchmarks; the answers are the same either way.
  [[nodiscard]] bool maintains_run_summaries() const noexcept { return parts_.mode.maintained(); }

  /// Lays the tree out afresh, as a copy is: every node in one block of memory, in the order a
  /// descent meets them (each node before its subtrees), and the pools' slack given back.
  /// The blocks, the answers and the mode stay as they are. A tree that has lived through
  /// many reserves and releases has its nodes wherever its pools had room when each was made,
  /// so its paths cross more cache lines and pages: searches on a compacted tree are faster,
  /// the more so the larger the tree (docs/performance.md, "A tree laid out afresh"). O(n)
  /// time, and room for a second copy while it runs, so it is the owner's to call when a pause
  /// suits it; no other call makes one. Strong guarantee: on bad_alloc the tree is unchanged.
  void compact() { *this = free_tree(*this); }

  /// Bytes held by the structure, pool slack included.
  [[nodiscard]] std::size_t memory_usage() const noexcept {
    return sizeof(*this) + pool_.capacity() * pool_.node_size() +
           summaries_.capacity() * summaries_.node_size();
  }

  /// Checks every invariant — search order, heap order of priorities, block contents, and
  /// every node's summary against one recomputed from its children — and the root's run
  /// summaries against a direct scan of the blocks. Throws invariant_violation naming the
  /// first one broken.
  void validate() const {
    if (root_ == nullptr) throw invariant_violation("free_tree: no blocks");
    if (pool_.live() != count_)
      throw invariant_violation("free_tree: pool and tree disagree on the block count");
    std::size_t seen = 0;
    std::size_t with_runs = 0;
    check_subtree(root_, seen, with_runs);
    if (seen != count_)
      throw invariant_violation(
          detail::describe("free_tree: ", seen, " nodes but block_count ", count_));
    if (summaries_.live() != with_runs)
      throw invariant_violation(detail::describe("free_tree: ", with_runs,
                                                 " nodes keep run summaries but the pool holds ",
                                                 summaries_.live()));
    const std::vector<free_block<T, C>> blocks = free_blocks();
    for (std::size_t i = 0; i < blocks.size(); ++i) {
      const free_block<T, C>& b = blocks[i];
      if (!is_nonnegative(b.free) || !fits(b.free, total_))
        throw invariant_violation(detail::describe("free_tree: free ", b.free, " at ", b.span.begin,
                                                   " outside [0, total]"));
      if (i > 0 && blocks[i - 1].free == b.free)
        throw invariant_violation(detail::describe("free_tree: blocks at ",
                                                   blocks[i - 1].span.begin, " and ", b.span.begin,
                                                   " should be merged"));
    }
    if (!parts_.mode.maintained()) return;  // the stored summaries are not kept: nothing to compare
    parts_.levels.for_each_level([&](std::size_t level) {
      if (parts_.levels.scan(blocks, level) != parts_.levels.runs_at(*root_, level))
        throw invariant_violation(detail::describe("free_tree: root run summary of threshold ",
                                                   parts_.levels.threshold(level),
                                                   " disagrees with a scan"));
    });
  }

 private:
  struct node {
    node(T b, C f, std::uint32_t p) noexcept : begin(b), free(f), priority(p) {}
    T begin;  // the block's end is the next block's begin, or forever
    C free;
    // Treap heap order: a parent's is at least its children's. 32 bits, so that it shares a
    // word with `stale` (a node is 80 bytes for 64-bit T and C); the rare equal priorities
    // only make the shape a little less random.
    std::uint32_t priority;
    std::uint8_t stale = 0;  // the summaries below await refresh(): which kinds of change
    node* left = nullptr;
    node* right = nullptr;
    // The interval summary of the subtree rooted here, this node included
    // (detail/interval_summary.hpp).
    T first = begin;  // smallest begin
    C low = free;     // element-wise minimum free capacity
    C high = free;    // element-wise maximum free capacity
    // Not yet applied to the children (detail/lazy_shift.hpp): every node below is `pending`
    // more than it says. Always zero while the summaries are maintained.
    C pending{};
    // Only on a summary node (see run_levels::keeps_runs), else nullptr: room for every
    // threshold, but only the entries of the subtree's mixed thresholds, those in (low, high],
    // are kept up to date; read them through run_levels::runs_at.
    // The subtree's fit corners are there too (resources<N, V>, N <= 4), kept like the run
    // summaries only while they are maintained; a node between summary nodes has none.
    summary_block* runs = nullptr;
  };

  /// What follows from the total (the run summaries' thresholds, how fit corners round), where
  /// the treap's priorities come from, and the mode: all but the nodes, copied as they are.
  struct parts {
    explicit parts(const C& total) : levels(total), corner_scale(total) {}
    levels_type levels;
    typename corners_type::scale corner_scale;
    std::uint64_t random = 0x9E3779B97F4A7C15ULL;
    mode_type mode;
  };

  /// What follows from a new total: the thresholds, the corners' rounding, and whether updates
  /// may leave shifts pending (detail/lazy_shift.hpp).
  void derive_from_total() noexcept {
    parts_.levels = levels_type(total_);
    parts_.corner_scale = typename corners_type::scale(total_);
    parts_.mode.allow_shifts(lazy::allowed(total_));
  }

  /// set_total's pass, children after their parent's shift and before its summary: every
  /// pending shift pushed down (none is left, whatever the new total allows), every block's
  /// free capacity rebased from old_total to total_, every summary recomputed at the new
  /// thresholds (the run summaries too, while they are maintained).
  void rebase(node* n, const C& old_total) noexcept {
    if (n == nullptr) return;
    lazy::push_down(n);
    n->free = detail::rebased(n->free, old_total, total_);
    rebase(n->left, old_total);
    rebase(n->right, old_total);
    recompute(n);
  }

  /// earliest_fit while the fit corners are maintained (no shift is pending): the first start
  /// if one survey says it holds, else one walk from the block in force there.
  [[nodiscard]] std::optional<T> corner_fit(const request<T, C>& r, T first, T last) const {
    const survey_type at_first = survey_min({first, static_cast<T>(first + r.duration)});
    if (fits(r.amount, at_first.folded)) return first;
    typename seekers::corner_seeker stretch{
        {.level = 0,  // no run summaries are read
         .clamp = first,
         .length = static_cast<length_type>(r.duration),
         .component = 0,
         .threshold = {},
         .amount = r.amount,
         .last = last,
         .use_summaries = false},
        parts_.corner_scale.of(r.amount),
        corners_type::band_of(r.duration, parts_.mode.length_base()),
        parts_.corner_scale.exact()};
    const node* hit = tree::template seek<false>(root_, at_first.ends[0].first->begin, stretch);
    parts_.mode.report().prunes.add(stretch.prunes);
    const std::optional<interval<T>> found = stretch.result(hit);
    if (!found || found->begin > last) return std::nullopt;
    return found->begin;
  }

  /// The first stretch from `from` on that may hold `amount` for `length` (see run_seeker),
  /// clamped to begin at `from`, or none if no stretch is open by `last`; the stretch that
  /// reaches forever is always long enough.
  [[nodiscard]] std::optional<interval<T>> long_run(std::size_t level, const C& amount, T from,
                                                    T last, length_type length,
                                                    std::uint64_t& prunes) const {
    typename seekers::run_seeker seeker{.level = level,
                                        .clamp = from,
                                        .length = length,
                                        .component = levels_type::component_of(level),
                                        .threshold = parts_.levels.threshold(level),
                                        .amount = amount,
                                        .last = last,
                                        .use_summaries = true};
    // Only asked while the summaries are maintained: no shift is owed.
    const node* hit = tree::template seek<false>(root_, tree::block_at(root_, from)->begin, seeker);
    prunes += seeker.prunes;
    return seeker.result(hit);
  }

  /// The earliest start s in [run.begin, last] with r.amount free over [s, s + r.duration)
  /// and s + r.duration <= run.end: run-to-run jumps at the request's own amount, counted in
  /// `jumps`. `walk`: a search with no run summaries to guide it, where a scalar's one walk
  /// (below) pays; inside a stretch that the summaries found, the first start nearly always
  /// holds, and the seeks cost less when it does not (the walk there too measured slower on
  /// earliest_fit).
  [[nodiscard]] std::optional<T> fit_within(const request<T, C>& r, interval<T> run, T last,
                                            std::uint64_t& jumps, bool walk) const {
    const C& amount = r.amount;
    if (run.end != forever<T> && static_cast<length_type>(static_cast<length_type>(run.end) -
                                                          static_cast<length_type>(run.begin)) <
                                     static_cast<length_type>(r.duration))
      return std::nullopt;
    // The latest start this run can hold; the seeks stop there rather than look further.
    const T latest =
        run.end == forever<T> ? last : std::min(last, static_cast<T>(run.end - r.duration));
    if (run.begin > latest) return std::nullopt;
    T start = run.begin;
    // Most often the run's first start holds (nearly nine searches in ten on churn): one
    // survey of the span it would book says so, and otherwise gives the block at start.
    const survey_type first = survey_min({start, static_cast<T>(start + r.duration)});
    if (fits(amount, first.folded)) return start;
    if (scalar_capacity<C> && walk) {
      // A scalar's maximum says exactly whether some block of a subtree fits, so one in-order
      // walk judged by the amount alone finds the first stretch that fits, exactly: it passes
      // whole subtrees that all fit or where none can. That beats a seek from the root for
      // every block that stops a run and every block that fits after it, several times over on
      // append without thresholds. A vector's maximum only says that each component fits
      // somewhere, and the walk measured slower there than the seeks below.
      typename seekers::run_seeker stretch{
          .level = 0,  // no summaries are read: no level or threshold either
          .clamp = start,
          .length = static_cast<length_type>(r.duration),
          .component = 0,
          .threshold = {},
          .amount = amount,
          .last = latest,
          .use_summaries = false};
      const node* hit = seek(first.ends[0].first->begin, stretch);
      jumps += stretch.closes;
      const std::optional<interval<T>> found = stretch.result(hit);
      if (!found || found->begin > latest) return std::nullopt;
      return found->begin;
    }
    auto fitting = seekers::seeker_for(
        [&amount](const node& n, const C& shift) {
          return fits(amount, lazy::shifted(n.high, shift));
        },
        [&amount](const node& n, const C& shift) {
          return fits(amount, lazy::shifted(n.free, shift));
        },
        static_cast<T>(latest + 1));
    if (!fits(amount, first.ends[0].second)) {
      const node* next = seek(static_cast<T>(start + 1), fitting);
      if (next == nullptr || next->begin > latest) return std::nullopt;
      start = next->begin;
    }
    while (true) {
      const T needed_end = static_cast<T>(start + r.duration);  // start <= last: no overflow
      auto blocking = seekers::seeker_for(
          [&amount](const node& n, const C& shift) {
            return !fits(amount, lazy::shifted(n.low, shift));
          },
          [&amount](const node& n, const C& shift) {
            return !fits(amount, lazy::shifted(n.free, shift));
          },
          needed_end);
      const node* stop = seek(static_cast<T>(start + 1), blocking);
      if (stop == nullptr || stop->begin >= needed_end) return start;
      ++jumps;
      const node* next = seek(stop->begin, fitting);
      if (next == nullptr || next->begin > latest) return std::nullopt;
      start = next->begin;
    }
  }

  /// The first node with begin >= from that the seeker accepts (free_tree_algorithms::seek).
  /// Only a lazy tree can owe shifts; otherwise the seek is compiled without them.
  template <class Seeker>
  [[nodiscard]] const node* seek(T from, Seeker& seeker) const {
    if (parts_.mode.may_owe_shifts()) return tree::template seek<true>(root_, from, seeker);
    return tree::template seek<false>(root_, from, seeker);
  }

  /// The first block of the span (`in_force`, the one in force at span.begin, or later) that
  /// the seeker accepts, or nullptr.
  template <class Seeker>
  [[nodiscard]] const node* first_in(interval<T> span, const node* in_force, Seeker& seeker) const {
    const node* n = seek(in_force->begin, seeker);
    return n != nullptr && n->begin < span.end ? n : nullptr;
  }

  /// The free capacity of the block in force at t; t >= origin(), pending shifts applied.
  [[nodiscard]] C free_in_force(T t) const noexcept {
    if (!parts_.mode.may_owe_shifts()) return tree::block_at(root_, t)->free;
    const auto d = tree::descend_to(root_, t);
    if (d.at != nullptr) return lazy::shifted(d.at->free, d.at_shift);
    return lazy::shifted(d.before->free, d.before_shift);
  }

  /// The two span folds in use (detail/interval_summary.hpp): the span's minimum free (is there
  /// room?) and its maximum (is there enough booked to give back?), with the blocks at its ends.
  [[nodiscard]] survey_type survey_min(interval<T> span) const {
    return survey(
        span, &node::low, [](const C& x, const C& y) { return elementwise_min(x, y); }, total_);
  }
  [[nodiscard]] survey_type survey_max(interval<T> span) const {
    return survey(
        span, &node::high, [](const C& x, const C& y) { return elementwise_max(x, y); }, C{});
  }
  template <class Combine>
  [[nodiscard]] survey_type survey(interval<T> span, C node::*field, Combine combine,
                                   const C& neutral) const {
    if (parts_.mode.may_owe_shifts())
      return intervals::template survey<true>(root_, span, field, combine, neutral);
    return intervals::template survey<false>(root_, span, field, combine, neutral);
  }

  /// Makes span.begin and span.end block boundaries, applies `change` (adding `delta`) to every
  /// block in the span, as a pending shift where no summaries are maintained, then merges each
  /// boundary with its left neighbour where they became equal (interior neighbours change by the
  /// same amount, so they stay distinct). The nodes the splits need, and the summary blocks of
  /// those that keep summaries, are taken from the pools first: from there on nothing can throw.
  /// Exactly those, never more: the inverse call splits exactly where this one merged (returning
  /// nodes and blocks to the pools), so undoing a call that just succeeded never allocates
  /// (nothrow_rollback). `looked`: the caller's survey of the span, with the blocks in force at
  /// its ends.
  template <class Change>
  void change_over(interval<T> span, const C& delta, Change change, const survey_type& looked) {
    // ends[i] for the end t: 0 for span.begin, 1 for span.end. The free capacity in force there
    // is what a new block at t starts with (splitting one end leaves the other's unchanged).
    const auto end_at = [&span](T t) -> std::size_t { return t == span.begin ? 0 : 1; };
    const auto& ends = looked.ends;
    std::array<node*, 2> made{};  // the new blocks at span.begin and span.end, if split
    detail::split_span_ends(
        span, [&ends, &end_at](T t) { return ends[end_at(t)].first->begin; },
        [this](std::span<const T> cuts) {
          pool_.reserve_nodes(cuts.size());
          summaries_.reserve_nodes(
              static_cast<std::size_t>(std::ranges::count_if(cuts, levels_type::keeps_runs)));
        },
        [this, &ends, &made, &end_at](T t) {
          // Made now (from the pools just reserved: no throw), inserted below, where both ends
          // at once share their descent.
          made[end_at(t)] = make_node(t, ends[end_at(t)].second);
        });
    const bool split_begin = made[0] != nullptr;
    const bool split_end = made[1] != nullptr;
    node* span_below = root_;  // where the shift may start (see insert_both)
    if (split_begin && split_end)
      root_ = tree::insert_both(root_, made[0], made[1], span_below);
    else if (split_begin || split_end)
      root_ = tree::insert(root_, split_begin ? made[0] : made[1]);
    count_ += static_cast<std::size_t>(split_begin) + static_cast<std::size_t>(split_end);
    // The values the blocks crossed bound the run summaries that can have changed.
    typename levels_type::value_hull crossed;
    if (parts_.mode.may_owe_shifts()) {
      lazy::shift_span(span, delta, split_begin && split_end ? span_below : root_,
                       [](node* n) noexcept {
                         lazy::push_down(n);
                         n->stale |= tree::shape_changed;  // no run summaries are kept
                       });
    } else {
      auto change_and_record = [&change, &crossed](C& free) noexcept {
        crossed.take(free);
        change(free);
        crossed.take(free);
      };
      tree::apply(root_, span, change_and_record);
    }
    level_set changed_levels{};
    if (parts_.mode.maintained()) changed_levels = parts_.levels.crossed_levels(crossed);
    // An end just split off a block differs from its other half by the (non-zero) change, so
    // only an end that was a boundary already can merge: a reserve inside free time skips both.
    if (span.end != forever<T> && !split_end) merge_with_left(span.end);
    if (!split_begin) merge_with_left(span.begin);
    refresh(root_, &changed_levels);
  }

  /// Counts a reserve or release for the mode (detail/summary_mode.hpp), which may ask for
  /// every summary to be recomputed.
  void note_update(interval<T> span) noexcept {
    if (parts_.mode.note_update(span)) rebuild(root_);
  }

  /// t is a block's begin: its block is erased when its free equals its left neighbour's.
  void merge_with_left(T t) noexcept {
    const auto found = tree::with_left_neighbour(root_, t);
    if (found.before == nullptr || found.before_free != found.at_free) return;
    auto dispose = [this](node* n) noexcept { release_node(n); };
    root_ = tree::erase(root_, t, dispose);
    --count_;
  }

  [[nodiscard]] node* make_node(T begin, C free) {
    const bool summary = levels_type::keeps_runs(begin);
    summary_block* runs = summary ? summaries_.create() : nullptr;
    node* n = nullptr;
    try {
      const std::uint32_t priority = next_priority();
      n = pool_.create(begin, free,
                       summary ? priority | levels_type::summary_priority
                               : priority & ~levels_type::summary_priority);
    } catch (...) {
      if (runs != nullptr) summaries_.destroy(runs);
      throw;
    }
    n->runs = runs;
    recompute(n);
    return n;
  }

  /// xorshift64*, its high half: a fixed seed, so the tree's shape is reproducible run to run.
  std::uint32_t next_priority() noexcept {
    std::uint64_t& random = parts_.random;
    random ^= random >> 12;
    random ^= random << 25;
    random ^= random >> 27;
    return static_cast<std::uint32_t>((random * 0x2545F4914F6CDD1DULL) >> 32);
  }

  void release_node(node* n) noexcept {
    if (n->runs != nullptr) summaries_.destroy(n->runs);
    pool_.destroy(n);
  }

  void destroy(node* n) noexcept {
    auto dispose = [this](node* m) noexcept {
      release_node(m);
      --count_;
    };
    tree::destroy(n, dispose);
  }

  /// Recomputes every node marked stale, children first (free_tree_algorithms::refresh).
  /// `changed_levels`: the levels a change_over's blocks crossed (see
  /// free_tree_algorithms::values_changed); without them every stale node recomputes all its
  /// mixed levels.
  void refresh(node* n, const level_set* changed_levels = nullptr) noexcept {
    auto recompute_marked = [this, changed_levels](node* m, std::uint8_t marks,
                                                   const level_changes& left,
                                                   const level_changes& right) noexcept {
      return recompute_marked_node(m, marks, left, right, changed_levels);
    };
    tree::template refresh<level_changes>(n, recompute_marked);
  }

  /// refresh's step at a stale node: recomputes it and returns the levels at which the run
  /// summary of its subtree (as its parent reads it, run_levels::runs_at) may have changed
  /// (`any`), and those where more than its trail may have (`deep`). Those are within the
  /// levels the change's blocks crossed (`crossed`) wherever the subtree changed only in
  /// values: its blocks' runs change only at a threshold some block crossed, and a split or
  /// merge of equal neighbours (the only changes of shape inside such a subtree, or at the start
  /// of its right child) moves no run at any threshold.
  /// A summary node whose subtree changed only in values narrows that down: a level can change
  /// only where a child's run summary did, where its own block crossed the threshold, or where
  /// the level's kind changed (its low or high passed the threshold); it recomputes those alone
  /// and tells its parent only those whose summary came out different. So a change whose effect
  /// dies out part of the way up recomputes no run summary above there, and scans no gap below
  /// such a node. Where only the trail of its right child's summary changed, as appending at the
  /// end of the schedule does all the way up the right spine, it follows that trail alone
  /// (run_levels::follow_trails) and reads nothing on its left.
  [[nodiscard]] level_changes recompute_marked_node(node* n, std::uint8_t marks,
                                                    const level_changes& left,
                                                    const level_changes& right,
                                                    const level_set* crossed) const noexcept {
    if (crossed == nullptr) {
      recompute(n);
      return {levels_type::all_levels(), levels_type::all_levels()};
    }
    if ((marks & tree::shape_changed) != 0 || n->runs == nullptr || !parts_.mode.maintained()) {
      recompute(n, (marks & tree::shape_changed) != 0 ? nullptr : crossed);
      return {*crossed, *crossed};
    }
    const C old_low = n->low;
    const C old_high = n->high;
    n->stale = 0;
    intervals::join(n);
    join_corners(n);
    // Most often (higher up) low and high stay as they were: no level changed kind.
    const level_set kinds = old_low == n->low && old_high == n->high
                                ? level_set{}
                                : parts_.levels.kinds_changed(old_low, old_high, n->low, n->high);
    level_set full = kinds;  // the levels to recompute from both children
    levels_type::unite(full, left.any);
    levels_type::unite(full, right.deep);
    if ((marks & tree::values_here) != 0) levels_type::unite(full, *crossed);
    level_set trails{};  // the levels where only the right child's trail changed
    if (n->right != nullptr && n->right->runs != nullptr)
      trails = levels_type::minus(right.any, full);
    else
      levels_type::unite(full, right.any);
    level_changes changed{};
    if (!levels_type::is_empty(full)) changed = parts_.levels.recompute(n, &full);
    if (!levels_type::is_empty(trails)) parts_.levels.follow_trails(n, trails, changed);
    levels_type::unite(changed.any, kinds);
    levels_type::unite(changed.deep, kinds);
    return changed;
  }

  /// Pushes every pending shift down and recomputes every node, summaries included, children
  /// first: after the summaries are turned on or the corners' length base moved.
  void rebuild(node* n) noexcept {
    if (n == nullptr) return;
    lazy::push_down(n);
    rebuild(n->left);
    rebuild(n->right);
    recompute(n);
  }

  /// n's summaries from its children's: the interval summary always, the fit corners and run
  /// summaries (with `only`, those levels alone) while they are maintained. Const: it writes
  /// only n, which validate() also passes as a scratch node.
  void recompute(node* n, const level_set* only = nullptr) const noexcept {
    n->stale = 0;
    intervals::join(n);
    if (!parts_.mode.maintained()) return;
    if (n->runs == nullptr) return;  // most nodes keep no summaries
    join_corners(n);
    parts_.levels.recompute(n, only);
  }

  /// A summary node's fit corners from its children's, while they are maintained (for
  /// resources<N, V>, N <= 4; nothing otherwise).
  void join_corners(node* n) const noexcept {
    if constexpr (joint) {
      const node* l = n->left;
      const node* r = n->right;
      corners_type left_scan;
      corners_type right_scan;
      n->runs->corners = corners_type::join(
          corners_of(l, left_scan), parts_.corner_scale.of(n->free), n->begin,
          corners_of(r, right_scan), r != nullptr ? r->first : n->begin, parts_.mode.length_base());
    } else {
      (void)n;
    }
  }

  /// The fit corners of a subtree: a summary node's own, or, for a gap between summary nodes,
  /// computed from its blocks in order into `scratch`; nullptr for no subtree.
  [[nodiscard]] const corners_type* corners_of(const node* n,
                                               corners_type& scratch) const noexcept {
    if (n == nullptr) return nullptr;
    if (n->runs != nullptr) return &n->runs->corners;
    bool first = true;
    auto append = [&](const node& b) noexcept {
      const auto q = parts_.corner_scale.of(b.free);
      if (first)
        scratch = corners_type::block(q, b.begin);
      else
        scratch.append(q, b.begin, parts_.mode.length_base());
      first = false;
    };
    tree::for_each_unshifted(n, append);  // kept, like the run summaries: no shift pending
    return &scratch;
  }

  /// validate(): checks the subtree of n and counts its nodes.
  void check_subtree(const node* n, std::size_t& seen, std::size_t& with_runs) const {
    if (n == nullptr) return;
    ++seen;
    if (n->runs != nullptr) ++with_runs;
    if ((n->runs != nullptr) != (n->priority >= levels_type::summary_priority))
      throw invariant_violation(detail::describe("free_tree: node at ", n->begin,
                                                 " keeps run summaries iff its priority says"));
    if (n->stale != 0)
      throw invariant_violation(detail::describe("free_tree: stale node at ", n->begin));
    if (!parts_.mode.may_owe_shifts() && !lazy::is_unshifted(n->pending))
      throw invariant_violation(detail::describe("free_tree: node at ", n->begin,
                                                 " owes its subtree a shift of ", n->pending,
                                                 " where none may be pending"));
    for (const node* child : {n->left, n->right}) {
      if (child == nullptr) continue;
      if (child->priority > n->priority)
        throw invariant_violation(detail::describe("free_tree: node at ", child->begin,
                                                   " outranks its parent at ", n->begin));
      check_subtree(child, seen, with_runs);
    }
    if (n->left != nullptr &&
        !(n->left->first < n->begin && tree::last_of(n->left)->begin < n->begin))
      throw invariant_violation(
          detail::describe("free_tree: left subtree of ", n->begin, " out of order"));
    if (n->right != nullptr && !(n->begin < n->right->first))
      throw invariant_violation(
          detail::describe("free_tree: right subtree of ", n->begin, " out of order"));
    node expected(n->begin, n->free, n->priority);
    expected.left = n->left;
    expected.right = n->right;
    expected.pending = n->pending;
    summary_block expected_runs{};
    if (n->runs != nullptr) expected.runs = &expected_runs;
    recompute(&expected);
    if (expected.first != n->first || expected.low != n->low || expected.high != n->high)
      throw invariant_violation(detail::describe("free_tree: stale summary at ", n->begin));
    if (!parts_.mode.maintained()) return;  // nothing else stored to check
    if (n->runs == nullptr) return;
    if (!(expected.runs->corners == n->runs->corners))
      throw invariant_violation(detail::describe("free_tree: stale fit corners at ", n->begin));
    parts_.levels.for_each_level([&](std::size_t level) {
      if (parts_.levels.runs_at(expected, level) != parts_.levels.runs_at(*n, level))
        throw invariant_violation(detail::describe("free_tree: stale run summary of threshold ",
                                                   parts_.levels.threshold(level), " at ",
                                                   n->begin));
    });
  }

  C total_;
  parts parts_{total_};
  detail::node_pool<node> pool_;                ///< declared before root_: outlives the tree
  detail::node_pool<summary_block> summaries_;  ///< the summary nodes' runs, likewise
  node* root_ = nullptr;
  std::size_t count_ = 0;
};

}  // namespace leasehold
