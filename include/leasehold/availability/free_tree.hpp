#pragma once

/// \file
/// free_tree<T, C>: the time-exclusive free blocks of Schneider & Linnert (§5, Fig. 2 left) —
/// the same maximal blocks as free_list — kept in a treap keyed by begin, where every node
/// also summarises its subtree: the smallest begin and the element-wise minimum and maximum
/// free capacity. About one node in 16, a summary node, also keeps, for a few capacity
/// thresholds, a run_summary (detail/run_summary.hpp) of its subtree's maximal runs of blocks
/// whose free capacity reaches the threshold.
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
/// threshold or none does, and the summary follows from the subtree's first begin (runs_at). A
/// leaf (about a third of a treap's nodes) has no mixed threshold, and a small subtree spans few.
/// Of those, a node whose subtree kept its shape recomputes only the thresholds that some block
/// of the call crossed, between its old and new free capacity (values_changed): about 14 of
/// its 23 mixed ones on the append benchmark at 100,000; the others cannot have changed.
/// Walking: blocks_from and blocks_in O(log n) to start and O(1) amortised a block
/// (detail/treap_cursor.hpp), next_change O(log n); set_total O(n) (see there).
///
/// Why only a sparse subset of nodes keeps them: 32 summaries are 768 bytes, and on
/// every node they made a tree of ~850 bytes a block, 78 MB at 100,000 blocks, whose searches
/// and updates waited on memory. The summary nodes hold the upper half of the priorities, so by
/// heap order they are the top of the treap, and every subtree below a node without summaries
/// is a gap of about 16 consecutive blocks between two summary nodes. A search falls back on
/// low/high there and otherwise walks the gap; refreshing a summary node computes a gap child's
/// summaries in one pass over its blocks (scan_gap). Which nodes they are is fixed at creation,
/// from a hash of the key (keeps_runs), so updates never allocate beyond the nodes they create,
/// and the undo of a reserve or release gets back exactly the summary blocks it needs. A node
/// is 80 bytes (72 before `pending`) plus 768 / 16 on average (docs/performance.md, "Run summaries
/// on a sparse subset of nodes").
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
/// review_mode): every review_period updates, the summaries are dropped when the searches since
/// the last review pruned with them less than once in four, and rebuilt (O(n), once) when
/// searches without them walked four or more runs on average, as appending at the end of a deep
/// schedule does (about 40 a search at N = 100,000). A tree that is only searched keeps its
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
#include <atomic>
#include <bit>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <optional>
#include <span>
#include <type_traits>
#include <utility>
#include <vector>

#include "leasehold/availability/detail/block_view.hpp"
#include "leasehold/availability/detail/boundary_splits.hpp"
#include "leasehold/availability/detail/fit_corners.hpp"
#include "leasehold/availability/detail/node_pool.hpp"
#include "leasehold/availability/detail/profile_types.hpp"
#include "leasehold/availability/detail/resize.hpp"
#include "leasehold/availability/detail/run_summary.hpp"
#include "leasehold/availability/detail/treap_cursor.hpp"
#include "leasehold/core/detail/checks.hpp"
#include "leasehold/core/error.hpp"

namespace leasehold {

/// The free blocks of free_list in an augmented treap whose subtree summaries prune
/// earliest_fit to near-logarithmic time on deep schedules: a model of
/// leasehold::availability; see the file's description for the summaries and every cost.
template <time_value T = std::int64_t, capacity_value C = std::int64_t,
          std::size_t LevelsPerComponent = detail::default_run_levels<C>>
class free_tree : public detail::profile_types<T, C> {
  using components = detail::capacity_components<C>;
  using component_type = typename components::value_type;
  using runs_type = detail::run_summary<T>;
  using length_type = typename runs_type::length_type;
  static constexpr std::size_t level_count = components::count * LevelsPerComponent;
  static_assert(LevelsPerComponent <= 64, "free_tree: at most 64 thresholds per component");
  using runs_block = std::array<runs_type, level_count>;
  /// About one node in summary_spacing keeps run summaries (see keeps_runs): 768 bytes of them
  /// for a scalar's 32 levels, so a node averages 80 + 768 / 16 = 128 bytes rather than 848.
  /// A denser spacing searched a little faster but cost well over the memory budget per block
  /// once the pools' slack is counted; a sparser one searched slower (docs/performance.md).
  using corners_type = detail::fit_corners<T, C>;
  /// Whether summary nodes keep fit corners (detail/fit_corners.hpp): resources<N, V>, N <= 4.
  static constexpr bool joint = corners_type::enabled;
  /// What a summary node keeps beside its node: the run summaries and the fit corners (either
  /// may be empty).
  struct summary_block : runs_block {
    [[no_unique_address]] corners_type corners{};
  };
  static constexpr std::uint64_t summary_spacing = joint ? corners_type::spacing : 16;
  static constexpr std::uint32_t summary_priority = std::uint32_t{1} << 31;
  /// Whether the tree has summaries that updates keep and searches prune with (see review_mode).
  static constexpr bool keeps_summaries = level_count > 0 || joint;

 public:
  /// A profile of `total` capacity, all of it free from `origin` to forever. Throws
  /// invalid_request for a total that is not positive or an origin that leaves no time to book.
  explicit free_tree(C total, T origin = 0) : total_(total) {
    detail::check_profile("free_tree", total, origin);
    derive_from_total();
    review_.maintained = keeps_summaries;
    root_ = make_node(origin, total);
    count_ = 1;
  }

  /// A deep copy: the same blocks, in memory of its own (strong guarantee: a copy that cannot
  /// allocate throws std::bad_alloc and leaves nothing behind).
  free_tree(const free_tree& other)
      : total_(other.total_),
        thresholds_(other.thresholds_),
        level_ranks_(other.level_ranks_),
        levels_used_(other.levels_used_),
        corner_scale_(other.corner_scale_),
        random_(other.random_),
        review_(other.review_) {
    pool_.reserve_nodes(other.count_);  // the only steps that can throw
    summaries_.reserve_nodes(other.summaries_.live());
    root_ = clone(other.root_);
    count_ = other.count_;
  }

  /// Takes other's blocks without copying them; other may then only be destroyed or assigned to.
  free_tree(free_tree&& other) noexcept
      : total_(other.total_),
        thresholds_(other.thresholds_),
        level_ranks_(other.level_ranks_),
        levels_used_(other.levels_used_),
        corner_scale_(other.corner_scale_),
        random_(other.random_),
        review_(other.review_),
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
    using std::swap;
    swap(total_, other.total_);
    swap(thresholds_, other.thresholds_);
    swap(level_ranks_, other.level_ranks_);
    swap(levels_used_, other.levels_used_);
    swap(corner_scale_, other.corner_scale_);
    swap(random_, other.random_);
    swap(review_, other.review_);
    pool_.swap(other.pool_);
    summaries_.swap(other.summaries_);
    swap(root_, other.root_);
    swap(count_, other.count_);
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

  /// The least capacity free at any time of span, the most a booking over it could take.
  /// Throws invalid_request for an empty span or one beginning before the origin. O(log n).
  [[nodiscard]] C min_free(interval<T> span) const {
    detail::check_span("min_free", span, origin());
    return survey_min(span).folded;
  }

  /// The earliest start s with r.amount free throughout [s, s + r.duration) inside r.window,
  /// or nullopt when there is none. Throws invalid_request for a malformed request (see
  /// leasehold::request). O((m + jumps) log n), see the file's description.
  [[nodiscard]] std::optional<T> earliest_fit(const request<T, C>& r) const {
    const auto starts = detail::check_request(r, total_, origin());
    if (starts.empty()) return std::nullopt;
    review_.searches.add(1);
    if constexpr (joint) {
      if (review_.maintained) return corner_fit(r, starts.first, starts.last);
    }
    const std::optional<std::size_t> level = level_for(r.amount);
    if (!level || !review_.maintained) {
      std::uint64_t jumps = 0;
      const auto start = fit_within(r, {starts.first, forever<T>}, starts.last, jumps, true);
      // What summaries at `level`, or fit corners, might have saved.
      if (level || joint) review_.level_jumps.add(jumps);
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
    review_.prunes.add(prunes);
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
    backward_walk walk{r.amount, r.duration, static_cast<T>(starts.last + r.duration),
                       static_cast<T>(starts.first + r.duration)};
    walk.visit(root_, C{});
    return walk.found;
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
    const span_survey looked = survey_min(span);
    if (!fits(amount, looked.folded)) {
      auto too_little = seeker_for(
          [&amount](const node& n, const C& shift) { return !fits(amount, shifted(n.low, shift)); },
          [&amount](const node& n, const C& shift) {
            return !fits(amount, shifted(n.free, shift));
          },
          span.end);
      const node* n = first_in(span, looked.ends[0].first, too_little);
      throw insufficient_capacity(detail::describe("reserve ", amount, " over ", span, ": only ",
                                                   free_in_force(n->begin), " free at ",
                                                   std::max(n->begin, span.begin)));
    }
    change_over(
        span, C{} - amount, [&amount](C& free) noexcept { free -= amount; }, looked.ends);
    note_update(span);
  }

  /// Gives back `amount` over `span`, the reverse of reserve. Throws invalid_request as reserve
  /// does; invalid_release when more than is booked would come back somewhere (the free
  /// capacity would exceed the total). Strong guarantee. O(log n + k) node updates.
  void release(interval<T> span, C amount) {
    detail::check_span("release", span, origin());
    detail::check_amount("release", amount, total_);
    const C room = total_ - amount;  // a block can take the release iff its free fits in this
    const span_survey looked = survey_max(span);
    if (!fits(looked.folded, room)) {
      auto too_much = seeker_for(
          [&room](const node& n, const C& shift) { return !fits(shifted(n.high, shift), room); },
          [&room](const node& n, const C& shift) { return !fits(shifted(n.free, shift), room); },
          span.end);
      const node* n = first_in(span, looked.ends[0].first, too_much);
      throw invalid_release(detail::describe("release ", amount, " over ", span, ": only ",
                                             total_ - free_in_force(n->begin), " booked at ",
                                             std::max(n->begin, span.begin)));
    }
    change_over(
        span, amount, [&amount](C& free) noexcept { free += amount; }, looked.ends);
    note_update(span);
  }

  /// Forgets every block that ends by t and cuts the one in force at t.
  void advance_to(T t) {
    detail::check_advance(t, origin());
    // Often nothing is dropped (churn advances about as often as a block ends): no split then.
    if (const T kept = block_at(t)->begin; kept != origin()) {
      node* past = nullptr;
      node* rest = nullptr;
      split(root_, kept, past, rest);
      destroy(past);
      root_ = rest;
    }
    set_first_begin(root_, t);  // still the smallest key: the order is unchanged
    refresh(root_);
  }

  /// Every maximal free block from the origin on, in time order, as a vector (a copy): O(n).
  [[nodiscard]] std::vector<free_block<T, C>> free_blocks() const {
    std::vector<free_block<T, C>> blocks;
    blocks.reserve(count_);
    for_each_in_order(root_, [&blocks](const node& n, const C& shift) {
      if (!blocks.empty()) blocks.back().span.end = n.begin;
      blocks.push_back({{n.begin, forever<T>}, shifted(n.free, shift)});
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
    std::optional<T> next;
    for (const node* n = root_; n != nullptr;) {
      if (n->begin > t) {
        next = n->begin;
        n = n->left;
      } else {
        n = n->right;
      }
    }
    return next;
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
    auto overbooked = seeker_for(
        [&](const node& n, const C& shift) {
          return !detail::fits_new_total(shifted(n.low, shift), old_total, new_total);
        },
        [&](const node& n, const C& shift) {
          return !detail::fits_new_total(shifted(n.free, shift), old_total, new_total);
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
  [[nodiscard]] std::size_t height() const noexcept { return height_of(root_); }

  /// Whether the run summaries are kept up to date now (see review_mode): a diagnostic, for
  /// tests and benchmarks; the answers are the same either way.
  [[nodiscard]] bool maintains_run_summaries() const noexcept { return review_.maintained; }

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
    if (!review_.maintained) return;  // the stored summaries are not kept: nothing to compare
    for_each_level([&](std::size_t level) {
      if (scan_runs(blocks, level) != runs_at(*root_, level))
        throw invariant_violation(detail::describe("free_tree: root run summary of threshold ",
                                                   thresholds_[level], " disagrees with a scan"));
    });
  }

 private:
  /// What made a node stale, for refresh(). `values_changed`: its subtree holds the same
  /// blocks, up to splits and merges of equal neighbours, and some of their free capacities
  /// changed. A split or merge of equal neighbours moves no run's start or stop at any
  /// threshold, so only the levels whose threshold lies between a changed block's old and new
  /// free capacity can change (change_over hands them to refresh()). `shape_changed`:
  /// the subtree itself was rebuilt (a treap split, merge or rotation), or its first begin
  /// moved; every level is recomputed.
  static constexpr std::uint8_t values_changed = 1;
  static constexpr std::uint8_t shape_changed = 2;

  struct node {
    node(T b, C f, std::uint32_t p) noexcept : begin(b), free(f), priority(p) {}
    T begin;  // the block's end is the next block's begin, or forever
    C free;
    // Treap heap order: a parent's is at least its children's. 32 bits, so that it shares a
    // word with `stale` (a node is 80 bytes for 64-bit T and C); the rare equal priorities
    // only make the shape a little less random.
    std::uint32_t priority;
    std::uint8_t stale = 0;  // the summary below awaits refresh(): which kinds of change
    node* left = nullptr;
    node* right = nullptr;
    // Summary of the subtree rooted here (this node included).
    T first = begin;  // smallest begin
    C low = free;     // element-wise minimum free capacity
    C high = free;    // element-wise maximum free capacity
    // Not yet applied to the children: every node below is `pending` more than it says (and
    // the ancestors' pending adds to that). Always zero while run summaries are maintained.
    C pending{};
    // Only on a summary node (see keeps_runs), else nullptr: room for every threshold, but
    // only the entries of the subtree's mixed thresholds, those in (low, high], are kept up to
    // date; read them through runs_at().
    // The subtree's fit corners are there too (resources<N, V>, N <= 4), kept like the run
    // summaries only while they are maintained.
    summary_block* runs = nullptr;
  };

  /// What follows from the total: the thresholds of the run summaries and whether updates may
  /// leave shifts pending. A small total rounds several thresholds to the same value (32 levels
  /// of 128 units give 25 distinct ones): equal thresholds have equal runs, so each value is
  /// kept once, at the rank of its highest level, and every update and search skips the copies.
  void derive_from_total() noexcept {
    corner_scale_ = typename corners_type::scale(total_);
    thresholds_ = {};
    level_ranks_ = {};
    review_.shifts_allowed = true;
    for (std::size_t i = 0; i < components::count; ++i) {
      const std::size_t base = i * LevelsPerComponent;
      std::size_t used = 0;
      for (std::size_t j = 0; j < LevelsPerComponent; ++j) {
        const component_type value =
            detail::run_threshold(components::get(total_, i), j, LevelsPerComponent);
        if (used == 0 || thresholds_[base + used - 1] != value) ++used;
        thresholds_[base + used - 1] = value;
        level_ranks_[base + used - 1] = static_cast<std::uint8_t>(j);
      }
      levels_used_[i] = static_cast<std::uint8_t>(used);
      // A pending shift of a subtree stays within [-total, total] and a stored value within
      // [-total, 2 total] (see shift_span), which a signed component holds if total is at
      // most half its maximum; otherwise updates without summaries stay block by block.
      review_.shifts_allowed =
          review_.shifts_allowed && std::is_signed_v<component_type> &&
          components::get(total_, i) <= std::numeric_limits<component_type>::max() / 2;
    }
  }

  /// set_total's pass, children after their parent's shift and before its summary: every
  /// pending shift pushed down (none is left, whatever the new total allows), every block's
  /// free capacity rebased from old_total to total_, every summary recomputed at the new
  /// thresholds (the run summaries too, while they are maintained).
  void rebase(node* n, const C& old_total) noexcept {
    if (n == nullptr) return;
    push_down(n);
    n->free = detail::rebased(n->free, old_total, total_);
    rebase(n->left, old_total);
    rebase(n->right, old_total);
    recompute(n);
  }

  using block_cursor = detail::treap_cursor<node, T, C>;
  using blocks_view = detail::block_view<T, C, block_cursor>;

  /// A seek that looks for the first node satisfying `hit`, or beginning at or after `limit`
  /// (where the caller stops caring), and may skip any subtree for which `may_hit` is false.
  /// may_hit must hold for every subtree holding a hit; it need not be exact (for vectors the
  /// element-wise maximum only says that each component fits somewhere, so the limit is what
  /// keeps such a seek from wandering far past the stretch it is about). Both take the node and
  /// the shift its ancestors still owe it (the sum of their pending): its true free is
  /// shifted(n.free, shift), and likewise low and high.
  template <class MayHit, class Hit>
  struct node_seeker {
    MayHit may_hit_fn;
    Hit hit_fn;
    T limit;
    [[nodiscard]] bool may_hit(const node& n, const C& shift) const { return may_hit_fn(n, shift); }
    void skip(const node&, const C&) const noexcept {}
    [[nodiscard]] bool visit(const node& n, const C& shift) const {
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
  /// (review_mode weighs them). Without `use_summaries` (a search with no summaries to read:
  /// see fit_within's walk) every mixed subtree is walked, so every stretch it returns fits
  /// throughout, and `closes` counts the stretches it closed too short. Such a walk may owe
  /// shifts (the lazy mode) and applies them; the summaries are read only while maintained,
  /// when no shift is pending.
  struct run_seeker {
    std::size_t level;
    T clamp;
    length_type length;
    std::size_t component;     // level / per_component
    component_type threshold;  // thresholds_[level], at most the amount's component
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
    [[nodiscard]] bool may_hit(const node& n, const C& shift) const noexcept {
      if (open == runs_type::none && n.first > last) return true;   // visit stops at its first
      if (fits(amount, shifted(n.low, shift))) return length == 0;  // one open stretch
      if (!fits(amount, shifted(n.high, shift)))  // no block fits: closes at n.first
        return length == 0 || (open != runs_type::none && closes_long_run(open, n.first));
      if (n.runs == nullptr || !use_summaries) return true;  // a gap: a few blocks to look at
      if (components::get(n.low, component) >= threshold) return length == 0;
      const runs_type& r = (*n.runs)[level];  // the threshold is mixed here: stored
      return r.best >= length ||
             (!r.full() && closes_long_run(open != runs_type::none ? open : n.first, r.lead));
    }
    void skip(const node& n, const C& shift) noexcept {
      if (fits(amount, shifted(n.low, shift))) {
        if (open == runs_type::none) open = n.first;
        return;
      }
      if (!fits(amount, shifted(n.high, shift))) {
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
    [[nodiscard]] std::optional<interval<T>> result(const node* hit) const noexcept {
      if (passed) return std::nullopt;
      if (hit != nullptr) return found;
      if (open == runs_type::none) return std::nullopt;
      return interval<T>{std::max(open, clamp), forever<T>};
    }
    [[nodiscard]] bool visit(const node& n, const C& shift) noexcept {
      if (open == runs_type::none && n.begin > last) return passed = true;
      if (fits(amount, shifted(n.free, shift))) {
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
  /// their corners that low and high would have entered (review_mode weighs them).
  struct corner_seeker : run_seeker {
    typename corners_type::quantised need;
    std::size_t band;  // the length band of the duration
    bool exact;        // rounded values compare as the true ones (corner_scale_.exact())

    // A gap (a node without corners) is judged by its high alone.
    [[nodiscard]] bool none_fits(const node& n) const noexcept {
      if (!fits(this->amount, n.high)) return true;
      if (n.runs == nullptr) return false;
      const corners_type& k = n.runs->corners;
      return !k.single_may_fit(need, 0) && !corners_type::reaches(k.last_free, need);
    }
    // Every run that fits inside n's subtree is a single block shorter than the duration, and the
    // subtree holds two blocks or more (n keeps corners).
    [[nodiscard]] bool only_short(const node& n) const noexcept {
      const corners_type& k = n.runs->corners;
      return k.first_end != corners_type::none && !k.pairs.may_fit(need) &&
             !k.single_may_fit(need, band);
    }
    [[nodiscard]] bool may_hit(const node& n, const C&) const noexcept {
      // The corners are one dependent load away (in the summaries' pool), and the children
      // are next if they do not settle n: asked for before the tests on low and high.
      if (n.runs != nullptr) {
        n.runs->corners.prefetch(band);
        detail::prefetch_line(n.left);
        detail::prefetch_line(n.right);
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
    void skip(const node& n, const C&) noexcept {
      if (fits(this->amount, n.low)) {
        if (this->open == runs_type::none) this->open = n.first;
        return;
      }
      if (this->open != runs_type::none) ++this->closes;
      if (fits(this->amount, n.high)) ++this->prunes;  // only the corners passed it
      // A gap is passed only where no block fits (by its high).
      this->open = !none_fits(n) && corners_type::reaches(n.runs->corners.last_free, need)
                       ? n.runs->corners.last_begin
                       : runs_type::none;
    }
  };

  /// earliest_fit while the fit corners are maintained (no shift is pending): the first start
  /// if one survey says it holds, else one walk from the block in force there.
  [[nodiscard]] std::optional<T> corner_fit(const request<T, C>& r, T first, T last) const {
    const span_survey at_first = survey_min({first, static_cast<T>(first + r.duration)});
    if (fits(r.amount, at_first.folded)) return first;
    corner_seeker stretch{{.level = 0,  // no run summaries are read
                           .clamp = first,
                           .length = static_cast<length_type>(r.duration),
                           .component = 0,
                           .threshold = component_type{},
                           .amount = r.amount,
                           .last = last,
                           .use_summaries = false},
                          corner_scale_.of(r.amount),
                          corners_type::band_of(r.duration, review_.length_base),
                          corner_scale_.exact()};
    const node* hit = seek_in<false>(root_, at_first.ends[0].first->begin, stretch, C{});
    review_.prunes.add(stretch.prunes);
    const std::optional<interval<T>> found = stretch.result(hit);
    if (!found || found->begin > last) return std::nullopt;
    return found->begin;
  }

  /// Only asked with thresholds to prune with; the divisor is never 0, so that the instantiation
  /// without thresholds (LevelsPerComponent = 0) compiles without a division by zero.
  static constexpr std::size_t per_component = LevelsPerComponent > 0 ? LevelsPerComponent : 1;

  [[nodiscard]] bool reaches(const C& free, std::size_t level) const noexcept {
    return components::get(free, level / per_component) >= thresholds_[level];
  }

  /// Per component, a range [first, second) of levels.
  using level_ranges = std::array<std::pair<std::size_t, std::size_t>, components::count>;

  /// The run summary of n's subtree at `level`. A level whose threshold every block of the
  /// subtree reaches (low at or above it) has one run from the first block to the end; one that
  /// no block reaches (high below it) has no run at all. Both follow from n.first alone, so
  /// only the mixed levels, threshold in (low, high], are stored in n.runs (recompute() leaves
  /// the other entries as they were, and nothing reads them): a leaf has none. A node without
  /// summaries has its mixed levels computed from its blocks (scan_gap).
  [[nodiscard]] runs_type runs_at(const node& n, std::size_t level) const noexcept {
    runs_block scratch;  // scan_gap fills the entries runs_from reads
    return runs_from(n, level, *runs_of(&n, scratch));
  }

  /// The stored run summaries of a subtree: a summary node's own, or, for a gap (a node without
  /// them), a scan of its blocks into `scratch`; nullptr for no subtree.
  [[nodiscard]] const runs_block* runs_of(const node* n, runs_block& scratch,
                                          const level_ranges* only = nullptr) const noexcept {
    if (n == nullptr) return nullptr;
    if (n->runs != nullptr) return n->runs;
    scan_gap(n, scratch, only);
    return &scratch;
  }

  /// Every component's mixed levels for n's subtree (see mixed_levels), within `only` if
  /// given, or nullopt when no component has one: then nothing stored is read.
  [[nodiscard]] std::optional<level_ranges> all_mixed_levels(
      const node& n, const level_ranges* only = nullptr) const noexcept {
    level_ranges mixed{};
    bool any_mixed = false;
    for (std::size_t i = 0; i < components::count; ++i) {
      mixed[i] = mixed_levels(i, components::get(n.low, i), components::get(n.high, i));
      if (only != nullptr) {
        mixed[i].first = std::max(mixed[i].first, (*only)[i].first);
        mixed[i].second = std::max(mixed[i].first, std::min(mixed[i].second, (*only)[i].second));
      }
      any_mixed = any_mixed || mixed[i].first < mixed[i].second;
    }
    if (!any_mixed) return std::nullopt;
    return mixed;
  }

  /// runs_at with the mixed levels read from `stored` (n's own summaries or a scan of them).
  [[nodiscard]] runs_type runs_from(const node& n, std::size_t level,
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
  void scan_gap(const node* n, runs_block& out, const level_ranges* only = nullptr) const noexcept {
    const std::optional<level_ranges> found = all_mixed_levels(*n, only);
    if (!found) return;  // every level trivial: runs_from reads nothing
    const level_ranges& mixed = *found;
    // Per component, the levels in [from, reached) are reached by the previous block, those in
    // [reached, to) are not.
    std::array<std::size_t, components::count> reached{};
    bool first = true;
    const auto* thresholds = thresholds_.data();
    for_each_in_order(n, [&](const node& b, const C&) {  // maintained: no shift pending
      for (std::size_t i = 0; i < components::count; ++i) {
        const auto [from, to] = mixed[i];
        const component_type value = components::get(b.free, i);
        if (first) {
          std::size_t k = from;
          while (k < to && thresholds[k] <= value) ++k;
          for (std::size_t level = from; level < k; ++level)
            out[level] = runs_type::block(b.begin, true);
          for (std::size_t level = k; level < to; ++level)
            out[level] = runs_type::block(b.begin, false);
          reached[i] = k;
          continue;
        }
        std::size_t k = reached[i];
        for (; k < to && thresholds[k] <= value; ++k) out[k].trail = b.begin;  // runs open
        for (; k > from && thresholds[k - 1] > value; --k) {
          runs_type& r = out[k - 1];  // its run, open since r.trail, stops here
          if (r.full()) {
            r.lead = b.begin;
          } else {
            const auto length = static_cast<length_type>(static_cast<length_type>(b.begin) -
                                                         static_cast<length_type>(r.trail));
            if (length > r.best) r.best = length;
          }
          r.trail = runs_type::none;
        }
        reached[i] = k;
      }
      first = false;
    });
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

  /// The first stretch from `from` on that may hold `amount` for `length` (see run_seeker),
  /// clamped to begin at `from`, or none if no stretch is open by `last`; the stretch that
  /// reaches forever is always long enough.
  [[nodiscard]] std::optional<interval<T>> long_run(std::size_t level, const C& amount, T from,
                                                    T last, length_type length,
                                                    std::uint64_t& prunes) const {
    run_seeker seeker{.level = level,
                      .clamp = from,
                      .length = length,
                      .component = level / per_component,
                      .threshold = thresholds_[level],
                      .amount = amount,
                      .last = last,
                      .use_summaries = true};
    // Only asked while the summaries are maintained: no shift is owed.
    const node* hit = seek_in<false>(root_, block_at(from)->begin, seeker, C{});
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
    const span_survey first = survey_min({start, static_cast<T>(start + r.duration)});
    if (fits(amount, first.folded)) return start;
    if (scalar_capacity<C> && walk) {
      // A scalar's maximum says exactly whether some block of a subtree fits, so one in-order
      // walk judged by the amount alone finds the first stretch that fits, exactly: it passes
      // whole subtrees that all fit or where none can. That beats a seek from the root for
      // every block that stops a run and every block that fits after it, several times over on
      // append without thresholds. A vector's maximum only says that each component fits
      // somewhere, and the walk measured slower there than the seeks below.
      run_seeker stretch{.level = 0,  // no summaries are read: no level or threshold either
                         .clamp = start,
                         .length = static_cast<length_type>(r.duration),
                         .component = 0,
                         .threshold = component_type{},
                         .amount = amount,
                         .last = latest,
                         .use_summaries = false};
      const node* hit = seek(first.ends[0].first->begin, stretch);
      jumps += stretch.closes;
      const std::optional<interval<T>> found = stretch.result(hit);
      if (!found || found->begin > latest) return std::nullopt;
      return found->begin;
    }
    auto fitting = seeker_for(
        [&amount](const node& n, const C& shift) { return fits(amount, shifted(n.high, shift)); },
        [&amount](const node& n, const C& shift) { return fits(amount, shifted(n.free, shift)); },
        static_cast<T>(latest + 1));
    if (!fits(amount, first.ends[0].second)) {
      const node* next = seek(static_cast<T>(start + 1), fitting);
      if (next == nullptr || next->begin > latest) return std::nullopt;
      start = next->begin;
    }
    while (true) {
      const T needed_end = static_cast<T>(start + r.duration);  // start <= last: no overflow
      auto blocking = seeker_for(
          [&amount](const node& n, const C& shift) { return !fits(amount, shifted(n.low, shift)); },
          [&amount](const node& n, const C& shift) {
            return !fits(amount, shifted(n.free, shift));
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

  /// Finds the first node with begin >= from that the seeker's visit accepts, visiting nodes in
  /// time order and skipping whole subtrees that may not hit. Only a lazy tree can owe shifts;
  /// otherwise the seek is compiled without them (no_shift), as fast as before they existed.
  template <class Seeker>
  [[nodiscard]] const node* seek(T from, Seeker& seeker) const {
    if (may_owe_shifts()) return seek_in<true>(root_, from, seeker, C{});
    return seek_in<false>(root_, from, seeker, C{});
  }

  [[nodiscard]] bool may_owe_shifts() const noexcept {
    return !review_.maintained && review_.shifts_allowed;
  }

  static constexpr C no_shift{};

  /// seek in the subtree of n; `shift` is what n's ancestors still owe it (the sum of their
  /// pending), always zero unless Shifts.
  template <bool Shifts, class Seeker>
  [[nodiscard]] static const node* seek_in(const node* n, T from, Seeker& seeker, C shift) {
    while (n != nullptr && n->first < from) {
      if (n->begin < from) {
        if constexpr (Shifts) shift = shifted(shift, n->pending);
        n = n->right;
        continue;
      }
      const C below = Shifts ? shifted(shift, n->pending) : no_shift;
      if (const node* hit = seek_in<Shifts>(n->left, from, seeker, below)) return hit;
      if (seeker.visit(*n, Shifts ? shift : no_shift)) return n;
      return seek_all<Shifts>(n->right, seeker, below);
    }
    return seek_all<Shifts>(n, seeker, shift);
  }

  template <bool Shifts, class Seeker>
  [[nodiscard]] static const node* seek_all(const node* n, Seeker& seeker, C shift) {
    while (n != nullptr) {
      if (!seeker.may_hit(*n, Shifts ? shift : no_shift)) {
        seeker.skip(*n, Shifts ? shift : no_shift);
        return nullptr;
      }
      const C below = Shifts ? shifted(shift, n->pending) : no_shift;
      if (const node* hit = seek_all<Shifts>(n->left, seeker, below)) return hit;
      if (seeker.visit(*n, Shifts ? shift : no_shift)) return n;
      n = n->right;
      shift = below;
    }
    return nullptr;
  }

  /// The first block of the span (`in_force`, the one in force at span.begin, or later) that
  /// the seeker accepts, or nullptr.
  template <class Seeker>
  [[nodiscard]] const node* first_in(interval<T> span, const node* in_force, Seeker& seeker) const {
    const node* n = seek(in_force->begin, seeker);
    return n != nullptr && n->begin < span.end ? n : nullptr;
  }

  /// The free capacity of the block in force at t; t >= origin(): block_at with the shifts.
  [[nodiscard]] C free_in_force(T t) const noexcept { return block_and_free_at(t).second; }

  /// A block and its true free capacity (its stored one plus what its ancestors owe it).
  using block_lookup = std::pair<const node*, C>;

  [[nodiscard]] block_lookup block_and_free_at(T t) const noexcept {
    if (!may_owe_shifts()) {
      const node* found = block_at(t);
      return {found, found->free};
    }
    const descent d = descend_to(t);
    if (d.at != nullptr) return {d.at, shifted(d.at->free, d.at_shift)};
    return {d.before, shifted(d.before->free, d.before_shift)};
  }

  /// What reserve and release check before they change a span, and what the splits need, from
  /// one descent: the blocks in force at both ends (as block_and_free_at; for a span that runs
  /// forever, the last block instead) and `combine` folded over the free capacities of every
  /// block that meets the span (`field`: the subtree summary that folds a whole subtree). The
  /// paths to the two ends share every node down to where the ends part, which for a short span
  /// is most of them. min_free is the fold alone.
  using span_lookup = std::array<block_lookup, 2>;
  struct span_survey {
    span_lookup ends;
    C folded;
  };
  /// The two folds in use: the span's minimum free (is there room?) and its maximum (is there
  /// enough booked to give back?).
  [[nodiscard]] span_survey survey_min(interval<T> span) const {
    return survey(
        span, &node::low, [](const C& x, const C& y) { return elementwise_min(x, y); }, total_);
  }
  [[nodiscard]] span_survey survey_max(interval<T> span) const {
    return survey(
        span, &node::high, [](const C& x, const C& y) { return elementwise_max(x, y); }, C{});
  }
  template <class Combine>
  [[nodiscard]] span_survey survey(interval<T> span, C node::*field, Combine combine,
                                   const C& neutral) const {
    if (may_owe_shifts()) return survey_in<true>(span, field, combine, neutral);
    return survey_in<false>(span, field, combine, neutral);
  }
  /// `neutral` leaves any free capacity as it is under `combine` (total_ for a minimum, zero for
  /// a maximum: true free capacities lie between them).
  template <bool Shifts, class Combine>
  [[nodiscard]] span_survey survey_in(interval<T> span, C node::*field, Combine combine,
                                      const C& neutral) const {
    const T a = span.begin;
    const T b = span.end;
    // The last node at or before each end on its path, and the shift its ancestors owe it.
    struct passed {
      const node* at = nullptr;
      C shift{};
    };
    passed at_a;
    passed at_b;
    C inside = neutral;  // over the blocks that begin in (a, b)
    const auto take = [&inside, &combine](const C& value) { inside = combine(inside, value); };
    const node* n = root_;
    C shift{};
    while (n != nullptr && (b < n->begin || n->begin <= a)) {  // both ends on one side of n
      const C below = Shifts ? shifted(shift, n->pending) : no_shift;
      if (n->begin <= a) at_a = {n, shift};
      n = n->begin <= a ? n->right : n->left;
      shift = below;
    }
    at_b = at_a;
    if (n != nullptr) {  // a < n->begin <= b: the paths part at n
      const C below = Shifts ? shifted(shift, n->pending) : no_shift;
      at_b = {n, shift};
      // Towards a: a node after a counts with its right subtree (all before n), then the walk
      // goes left; a node at or before a is the candidate for a, and the walk goes right.
      C at = below;
      for (const node* m = n->left; m != nullptr;) {
        const C inner = Shifts ? shifted(at, m->pending) : no_shift;
        if (m->begin > a) take(shifted(m->free, at));
        if (m->begin >= a && m->right != nullptr) take(shifted(m->right->*field, inner));
        if (m->begin <= a) at_a = {m, at};
        if (m->begin == a) break;
        m = m->begin < a ? m->right : m->left;
        at = inner;
      }
      // Towards b, mirrored: a node before b counts with its left subtree (all after n).
      if (n->begin < b) {
        take(shifted(n->free, shift));
        at = below;
        for (const node* m = n->right; m != nullptr;) {
          const C inner = Shifts ? shifted(at, m->pending) : no_shift;
          if (m->begin < b) take(shifted(m->free, at));
          if (m->begin <= b && m->left != nullptr) take(shifted(m->left->*field, inner));
          if (m->begin <= b) at_b = {m, at};
          if (m->begin == b) break;
          m = m->begin < b ? m->right : m->left;
          at = inner;
        }
      }
    }
    const C free_at_a = shifted(at_a.at->free, at_a.shift);
    return {{block_lookup{at_a.at, free_at_a},
             block_lookup{at_b.at, shifted(at_b.at->free, at_b.shift)}},
            combine(inside, free_at_a)};
  }

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
    bool visit(const node* n, const C& shift) {
      if (n == nullptr || n->first >= window_end) return false;  // all of it after the window
      if (fits(amount, shifted(n->low, shift))) return extend_to(n->first);
      if (!fits(amount, shifted(n->high, shift))) return stop_at(n->first);
      const C below = shifted(shift, n->pending);
      if (visit(n->right, below)) return true;
      if (n->begin < window_end &&
          (fits(amount, shifted(n->free, shift)) ? extend_to(n->begin) : stop_at(n->begin)))
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

  /// Where a descent towards t ends: the node that begins at t (nullptr if none does), the last
  /// node passed on the right on the way (begin < t), and the shift their ancestors owe each.
  struct descent {
    const node* at = nullptr;
    C at_shift{};
    const node* before = nullptr;
    C before_shift{};
  };
  [[nodiscard]] descent descend_to(T t) const noexcept {
    descent found;
    C shift{};
    for (const node* n = root_; n != nullptr;) {
      if (n->begin == t) {
        found.at = n;
        found.at_shift = shift;
        break;
      }
      const C below = shifted(shift, n->pending);
      if (n->begin < t) {
        found.before = n;
        found.before_shift = shift;
        n = n->right;
      } else {
        n = n->left;
      }
      shift = below;
    }
    return found;
  }

  /// The block in force at t; t >= origin().
  [[nodiscard]] const node* block_at(T t) const noexcept {
    const node* found = nullptr;
    for (const node* n = root_; n != nullptr;) {
      if (n->begin <= t) {
        found = n;
        n = n->right;
      } else {
        n = n->left;
      }
    }
    return found;
  }

  /// Makes span.begin and span.end block boundaries, applies `change` (adding `delta`) to every
  /// block in the span, as a pending shift where no summaries are maintained, then merges each
  /// boundary with its left neighbour where they became equal (interior neighbours change by the
  /// same amount, so they stay distinct). The nodes the splits need, and the summary blocks of
  /// those that keep summaries, are taken from the pools first: from there on nothing can throw.
  /// Exactly those, never more: the inverse call splits exactly where this one merged (returning
  /// nodes and blocks to the pools), so undoing a call that just succeeded never allocates
  /// (nothrow_rollback). `ends`: the blocks in force at span's ends, which the caller looked up
  /// already (survey).
  template <class Change>
  void change_over(interval<T> span, const C& delta, Change change, const span_lookup& ends) {
    // ends[i] for the end t: 0 for span.begin, 1 for span.end. The free capacity in force there
    // is what a new block at t starts with (splitting one end leaves the other's unchanged).
    const auto end_at = [&span](T t) -> std::size_t { return t == span.begin ? 0 : 1; };
    std::array<node*, 2> made{};  // the new blocks at span.begin and span.end, if split
    detail::split_span_ends(
        span, [&ends, &end_at](T t) { return ends[end_at(t)].first->begin; },
        [this](std::span<const T> cuts) {
          pool_.reserve_nodes(cuts.size());
          summaries_.reserve_nodes(
              static_cast<std::size_t>(std::ranges::count_if(cuts, keeps_runs)));
        },
        [this, &ends, &made, &end_at](T t) {
          // Made now (from the pools just reserved: no throw), inserted below, where both ends
          // at once share their descent.
          made[end_at(t)] = make_node(t, ends[end_at(t)].second);
        });
    const bool split_begin = made[0] != nullptr;
    const bool split_end = made[1] != nullptr;
    node* span_below = root_;  // where shift_span may start (see insert_both)
    if (split_begin && split_end)
      root_ = insert_both(root_, made[0], made[1], span_below);
    else if (split_begin || split_end)
      root_ = insert(root_, split_begin ? made[0] : made[1]);
    count_ += static_cast<std::size_t>(split_begin) + static_cast<std::size_t>(split_end);
    value_hull crossed;
    if (may_owe_shifts())
      shift_span(span, delta, split_begin && split_end ? span_below : root_);
    else
      apply(root_, span, change, crossed);
    level_ranges changed_levels{};
    if (review_.maintained && !crossed.empty)  // otherwise no level is recomputed
      for (std::size_t i = 0; i < components::count; ++i)
        changed_levels[i] = mixed_levels(i, components::get(crossed.lowest, i),
                                         components::get(crossed.highest, i));
    // An end just split off a block differs from its other half by the (non-zero) change, so
    // only an end that was a boundary already can merge: a reserve inside free time skips both.
    if (span.end != forever<T> && !split_end) merge_with_left(span.end);
    if (!split_begin) merge_with_left(span.begin);
    refresh(root_, &changed_levels);
  }

  /// t is a block's begin. One descent finds that block and the one before it (the last node
  /// passed on the right, or the rightmost of its left subtree), with their shifts.
  void merge_with_left(T t) noexcept {
    const descent d = descend_to(t);
    const node* n = d.at;
    const C shift = d.at_shift;
    const node* before = d.before;
    C before_shift = d.before_shift;
    if (n->left != nullptr) {
      before_shift = shifted(shift, n->pending);
      before = n->left;
      while (before->right != nullptr) {
        before_shift = shifted(before_shift, before->pending);
        before = before->right;
      }
    }
    if (before == nullptr || shifted(before->free, before_shift) != shifted(n->free, shift)) return;
    root_ = erase(root_, t);
    --count_;
  }

  /// The free capacities a change had before and after it, element-wise (apply records them):
  /// a block's runs change only at thresholds in (new, old] or (old, new].
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

  /// Changes the blocks that begin inside the span, recomputing only the summaries on the
  /// paths to them: O(log n + k). Their free capacities before and after go into `crossed`.
  template <class Change>
  bool apply(node* n, interval<T> span, Change& change, value_hull& crossed) noexcept {
    if (n == nullptr) return false;
    bool changed = false;
    if (n->begin < span.begin) {
      changed = apply(n->right, span, change, crossed);
    } else if (n->begin >= span.end) {
      changed = apply(n->left, span, change, crossed);
    } else {
      crossed.take(n->free);
      change(n->free);
      crossed.take(n->free);
      apply(n->left, span, change, crossed);
      apply(n->right, span, change, crossed);
      changed = true;
    }
    if (changed) n->stale |= values_changed;
    return changed;
  }

  /// apply() as a shift by delta: a subtree wholly inside the span takes it as pending (its
  /// summary moves with it), so only the nodes on the paths to the span's two ends are visited
  /// and recomputed, O(log n). Both ends are block begins by now (or span.end is forever): the
  /// descent goes to the node where the two paths part, then down each path, shifting the
  /// subtrees that hang inside the span. It follows keys only, because the splits just made may
  /// have left `first` and the summaries on these paths stale (refresh() comes after).
  ///
  /// Why the values stay in range: a descent through a node pushes its pending down, so a
  /// node's pending plus its ancestors' is the shift applied to its subtree since something
  /// last descended through it, a difference of two free capacities, within [-total, total];
  /// hence every stored value within [-total, 2 total] (the constructor checks that the
  /// component type holds that).
  /// `from`: the root, or a node whose ancestors all lie outside the span, have no pending shift
  /// and are marked stale already (insert_both's shared path).
  void shift_span(interval<T> span, const C& delta, node* from) noexcept {
    node* n = from;
    while (n->begin < span.begin || n->begin >= span.end) {  // span.begin is a key: no null
      visit_for_shift(n);
      n = n->begin < span.begin ? n->right : n->left;
    }
    visit_for_shift(n);
    n->free = shifted(n->free, delta);
    for (node* m = n->left; m != nullptr;) {  // the path to span.begin
      visit_for_shift(m);
      if (m->begin < span.begin) {
        m = m->right;
        continue;
      }
      m->free = shifted(m->free, delta);
      if (m->right != nullptr) shift_subtree(m->right, delta);
      if (m->begin == span.begin) break;  // all of its left subtree begins before the span
      m = m->left;
    }
    if (n->right == nullptr) return;
    if (span.end == forever<T>) {
      shift_subtree(n->right, delta);
      return;
    }
    for (node* m = n->right; m != nullptr;) {  // the path to span.end
      visit_for_shift(m);
      if (m->begin >= span.end) {
        if (m->begin == span.end) {  // all of its left subtree begins inside the span
          if (m->left != nullptr) shift_subtree(m->left, delta);
          break;
        }
        m = m->left;
        continue;
      }
      m->free = shifted(m->free, delta);
      if (m->left != nullptr) shift_subtree(m->left, delta);
      m = m->right;
    }
  }

  /// A node on a path of shift_span: its pending goes down, its summary will change.
  static void visit_for_shift(node* n) noexcept {
    push_down(n);
    n->stale |= shape_changed;  // (no run summaries are kept while shifts are lazy)
  }

  /// delta by value: as a reference it could alias n's fields (push_down passes a pending), and
  /// the compiler reloaded it after every store.
  static void shift_subtree(node* n, const C delta) noexcept {
    n->free = shifted(n->free, delta);
    n->low = shifted(n->low, delta);
    n->high = shifted(n->high, delta);
    n->pending = shifted(n->pending, delta);
  }

  /// Hands n's pending shift to its children, before anything restructures or descends below n.
  static void push_down(node* n) noexcept {
    if (is_unshifted(n->pending)) return;
    if (n->left != nullptr) shift_subtree(n->left, n->pending);
    if (n->right != nullptr) shift_subtree(n->right, n->pending);
    n->pending = C{};
  }

  [[nodiscard]] node* make_node(T begin, C free) {
    const bool summary = keeps_runs(begin);
    summary_block* runs = summary ? summaries_.create() : nullptr;
    node* n = nullptr;
    try {
      n = pool_.create(
          begin, free,
          summary ? next_priority() | summary_priority : next_priority() & ~summary_priority);
    } catch (...) {
      if (runs != nullptr) summaries_.destroy(runs);
      throw;
    }
    n->runs = runs;
    recompute(n);
    return n;
  }

  /// Whether a node created at `begin` keeps run summaries: about one in summary_spacing,
  /// chosen by a hash of the key. Summary nodes get the upper half of the priorities, so by heap
  /// order they form the top of the treap and every subtree rooted at another node is a gap
  /// between two consecutive summary nodes (about summary_spacing blocks, a geometric tail).
  /// A hash of the key rather than a coin: the inverse of a reserve or release splits exactly
  /// where it merged, so it needs exactly the summary blocks the merges freed (nothrow_rollback).
  [[nodiscard]] static bool keeps_runs(T begin) noexcept {
    if constexpr (level_count == 0 && !joint) {
      return false;
    } else {
      auto x = static_cast<std::uint64_t>(begin);  // splitmix64's finaliser
      x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ULL;
      x = (x ^ (x >> 27)) * 0x94D049BB133111EBULL;
      x ^= x >> 31;
      return x % summary_spacing == 0;
    }
  }

  /// xorshift64*, its high half: a fixed seed, so the tree's shape is reproducible run to run.
  std::uint32_t next_priority() noexcept {
    random_ ^= random_ >> 12;
    random_ ^= random_ << 25;
    random_ ^= random_ >> 27;
    return static_cast<std::uint32_t>((random_ * 0x2545F4914F6CDD1DULL) >> 32);
  }

  /// Structural changes only mark the nodes whose subtree changed (and with them all their
  /// ancestors) stale; one pass then recomputes each of them once, children first, so a
  /// reserve pays for the union of its paths rather than for every path separately.
  /// `changed_levels`: the levels a change_over's blocks crossed (see values_changed); without
  /// them every stale node recomputes all its mixed levels.
  void refresh(node* n, const level_ranges* changed_levels = nullptr) const noexcept {
    if (n == nullptr || n->stale == 0) return;
    refresh(n->left, changed_levels);
    refresh(n->right, changed_levels);
    recompute(n, (n->stale & shape_changed) != 0 ? nullptr : changed_levels);
  }

  /// Recomputes n's summary from its children's; with `only`, the run summaries of just those
  /// levels (per component), which are all that can differ from the stored ones (see
  /// values_changed).
  void recompute(node* n, const level_ranges* only = nullptr) const noexcept {
    const node* l = n->left;
    const node* r = n->right;
    n->stale = 0;
    n->first = l != nullptr ? l->first : n->begin;
    // In locals, stored once: a store through n could alias the children as far as the
    // compiler knows, which made it reload them after every step.
    const C pending = n->pending;
    C low = n->free;
    C high = n->free;
    for (const node* child : {l, r}) {
      if (child == nullptr) continue;
      low = elementwise_min(low, shifted(child->low, pending));
      high = elementwise_max(high, shifted(child->high, pending));
    }
    n->low = low;
    n->high = high;
    if constexpr (joint) {
      if (n->runs != nullptr && review_.maintained) {
        corners_type left_scan;
        corners_type right_scan;
        n->runs->corners = corners_type::join(
            corners_of(l, left_scan), corner_scale_.of(n->free), n->begin,
            corners_of(r, right_scan), r != nullptr ? r->first : n->begin, review_.length_base);
      }
    }
    if (n->runs == nullptr || !review_.maintained) return;
    // Only the mixed levels (see runs_at): none for a leaf, few for a small subtree. Storing
    // the trivial levels too (so that a join need not test its children's level kinds) measured
    // much slower on churn (more cache lines written per update).
    const std::optional<level_ranges> mixed = all_mixed_levels(*n, only);
    if (!mixed) return;
    // A child without summaries (a gap) has its own computed once for all levels here.
    runs_block left_scan;  // scan_gap fills the entries runs_from reads
    runs_block right_scan;
    const runs_block* left_runs = runs_of(l, left_scan, only);
    const runs_block* right_runs = runs_of(r, right_scan, only);
    for (const auto& [from, to] : *mixed)
      for (std::size_t level = from; level < to; ++level)
        (*n->runs)[level] = summarise(n, level, left_runs, right_runs);
  }

  /// The fit corners of a subtree: a summary node's own, or, for a gap, computed from its blocks
  /// in order into `scratch`; nullptr for no subtree.
  [[nodiscard]] const corners_type* corners_of(const node* n,
                                               corners_type& scratch) const noexcept {
    if (n == nullptr) return nullptr;
    if (n->runs != nullptr) return &n->runs->corners;
    bool first = true;
    for_each_in_order(n, [&](const node& b, const C&) {
      const auto q = corner_scale_.of(b.free);
      if (first)
        scratch = corners_type::block(q, b.begin);
      else
        scratch.append(q, b.begin, review_.length_base);
      first = false;
    });
    return &scratch;
  }

  [[nodiscard]] runs_type summarise(const node* n, std::size_t level, const runs_block* left_runs,
                                    const runs_block* right_runs) const noexcept {
    runs_type s = runs_type::block(n->begin, reaches(n->free, level));
    if (n->left != nullptr)
      s = runs_type::join(runs_from(*n->left, level, *left_runs), s, n->begin);
    if (n->right != nullptr)
      s = runs_type::join(s, runs_from(*n->right, level, *right_runs), n->right->first);
    return s;
  }

  /// Treap primitives. split: keys < key to `less`, the rest to `rest`.
  void split(node* n, T key, node*& less, node*& rest) noexcept {
    if (n == nullptr) {
      less = rest = nullptr;
      return;
    }
    push_down(n);
    if (n->begin < key) {
      split(n->right, key, n->right, rest);
      less = n;
    } else {
      split(n->left, key, less, n->left);
      rest = n;
    }
    n->stale |= shape_changed;
  }

  /// Every key of a precedes every key of b.
  node* merge(node* a, node* b) noexcept {
    if (a == nullptr) return b;
    if (b == nullptr) return a;
    if (a->priority > b->priority) {
      push_down(a);
      a->right = merge(a->right, b);
      a->stale |= shape_changed;
      return a;
    }
    push_down(b);
    b->left = merge(a, b->left);
    b->stale |= shape_changed;
    return b;
  }

  /// x's key is not in the tree yet. Only ever a block split off its left neighbour with the
  /// same free capacity (change_over), so x's ancestors keep their runs (values_changed),
  /// except one whose subtree x now begins: its neighbour lies outside.
  node* insert(node* n, node* x) noexcept {
    if (n == nullptr) return x;
    push_down(n);  // x's free is true: no ancestor of its place may owe it a shift
    if (x->priority > n->priority) {
      split(n, x->begin, x->left, x->right);
      x->stale |= shape_changed;
      return x;
    }
    n->stale |= x->begin < n->first ? shape_changed : values_changed;
    if (x->begin < n->begin)
      n->left = insert(n->left, x);
    else
      n->right = insert(n->right, x);
    return n;
  }

  /// insert(insert(n, x), y) for x->begin < y->begin, in one descent while both go the same way
  /// (for a short span, most of the way). `below` is set to the root of the smallest subtree
  /// holding both: every node above it is on the shared path, its shift pushed down and marked
  /// stale, so shift_span over [x, y) may start there.
  node* insert_both(node* n, node* x, node* y, node*& below) noexcept {
    if (n == nullptr || x->priority > n->priority || y->priority > n->priority)
      return below = insert(insert(n, x), y);
    push_down(n);
    n->stale |= x->begin < n->first ? shape_changed : values_changed;  // y->begin > x->begin
    const bool x_left = x->begin < n->begin;
    if (x_left != (y->begin < n->begin)) {  // they part here
      n->left = insert(n->left, x);
      n->right = insert(n->right, y);
      below = n;
    } else if (x_left) {
      n->left = insert_both(n->left, x, y, below);
    } else {
      n->right = insert_both(n->right, x, y, below);
    }
    return n;
  }

  /// key is in the tree. Only ever a block equal to its left neighbour (merge_with_left), so
  /// the ancestors of its node keep their runs (values_changed), except one whose subtree it
  /// began.
  node* erase(node* n, T key) noexcept {
    push_down(n);  // before the children move up
    if (n->begin == key) {
      node* joined = merge(n->left, n->right);
      release_node(n);
      return joined;
    }
    if (key < n->begin)
      n->left = erase(n->left, key);
    else
      n->right = erase(n->right, key);
    n->stale |= key == n->first ? shape_changed : values_changed;
    return n;
  }

  /// The first block now begins at t: `first` changes along the left spine, and so do the run
  /// summaries there (they hold begins), which only need recomputing where they are maintained.
  void set_first_begin(node* n, T t) noexcept {
    for (;; n = n->left) {
      n->first = t;
      if (review_.maintained) n->stale |= shape_changed;
      if (n->left == nullptr) {
        n->begin = t;
        return;
      }
    }
  }

  void destroy(node* n) noexcept {
    if (n == nullptr) return;
    destroy(n->left);
    destroy(n->right);
    release_node(n);
    --count_;
  }

  void release_node(node* n) noexcept {
    if (n->runs != nullptr) summaries_.destroy(n->runs);
    pool_.destroy(n);
  }

  /// Copies a subtree node for node (priorities included, so the copy has the same shape);
  /// the pool holds enough nodes already, so this cannot throw.
  node* clone(const node* n) noexcept {
    if (n == nullptr) return nullptr;
    node* copy = pool_.create(*n);
    if (n->runs != nullptr) copy->runs = summaries_.create(*n->runs);
    copy->left = clone(n->left);
    copy->right = clone(n->right);
    return copy;
  }

  /// Visits the blocks of n's subtree in time order, each with the shift its ancestors owe it
  /// (`shift` for n).
  template <class Visit>
  static void for_each_in_order(const node* n, Visit&& visit, C shift = C{}) {
    while (n != nullptr) {
      const C below = shifted(shift, n->pending);
      for_each_in_order(n->left, visit, below);
      visit(*n, shift);
      n = n->right;
      shift = below;
    }
  }

  /// value + shift, and shift == 0, spelled out per component: resources' operator+ and its
  /// defaulted == (a memcmp call) were a third of churn/free_tree_vec4/1000 where they did not
  /// inline.
  [[nodiscard]] static C shifted(const C& value, const C& shift) noexcept {
    if constexpr (components::count == 1) {
      return static_cast<C>(value + shift);
    } else if constexpr (!fixed_vector_capacity<C>) {
      return value + shift;  // dynamic_resources: a fixed-length loop already
    } else {
      C sum = value;
      for (std::size_t i = 0; i < components::count; ++i)
        sum.values[i] = static_cast<component_type>(sum.values[i] + shift.values[i]);
      return sum;
    }
  }

  [[nodiscard]] static bool is_unshifted(const C& shift) noexcept {
    bool zero = true;
    for (std::size_t i = 0; i < components::count; ++i)
      zero = zero && components::get(shift, i) == component_type{};
    return zero;
  }

  /// validate(): checks the subtree of n and counts its nodes.
  void check_subtree(const node* n, std::size_t& seen, std::size_t& with_runs) const {
    if (n == nullptr) return;
    ++seen;
    if (n->runs != nullptr) ++with_runs;
    if ((n->runs != nullptr) != (n->priority >= summary_priority))
      throw invariant_violation(detail::describe("free_tree: node at ", n->begin,
                                                 " keeps run summaries iff its priority says"));
    if (n->stale != 0)
      throw invariant_violation(detail::describe("free_tree: stale node at ", n->begin));
    if ((review_.maintained || !review_.shifts_allowed) && !is_unshifted(n->pending))
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
    if (n->left != nullptr && !(n->left->first < n->begin && max_begin(n->left) < n->begin))
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
    if (review_.maintained && n->runs != nullptr && !(expected.runs->corners == n->runs->corners))
      throw invariant_violation(detail::describe("free_tree: stale fit corners at ", n->begin));
    if (n->runs == nullptr || !review_.maintained) return;  // nothing stored to check
    for_each_level([&](std::size_t level) {
      if (runs_at(expected, level) != runs_at(*n, level))
        throw invariant_violation(detail::describe("free_tree: stale run summary of threshold ",
                                                   thresholds_[level], " at ", n->begin));
    });
  }

  [[nodiscard]] static std::size_t height_of(const node* n) noexcept {
    return n == nullptr ? 0 : 1 + std::max(height_of(n->left), height_of(n->right));
  }

  [[nodiscard]] static T max_begin(const node* n) noexcept {
    while (n->right != nullptr) n = n->right;
    return n->begin;
  }

  /// The run summary of the whole profile at one threshold, straight from its definition.
  [[nodiscard]] runs_type scan_runs(const std::vector<free_block<T, C>>& blocks,
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

  /// The levels in use: for component i, levels i * LevelsPerComponent + [0, levels_used_[i]),
  /// whose thresholds are distinct and increasing.
  template <class Visit>
  void for_each_level(Visit visit) const {
    for (std::size_t i = 0; i < components::count; ++i)
      for (std::size_t j = 0; j < levels_used_[i]; ++j) visit(i * LevelsPerComponent + j);
  }

  /// Mode reviews (see the top of the file): every review_period reserves and releases, from
  /// what the searches since the last review reported, when at least min_searches were made.
  static constexpr std::uint32_t review_period = 1024;
  static constexpr std::uint64_t min_searches = 64;

  void note_update(interval<T> span) noexcept {
    if constexpr (joint) {
      const auto length =
          static_cast<std::make_unsigned_t<T>>(static_cast<std::make_unsigned_t<T>>(span.end) -
                                               static_cast<std::make_unsigned_t<T>>(span.begin));
      review_.length_widths += static_cast<std::uint64_t>(std::bit_width(length));
      ++review_.lengths;
      // The first base soon, while the tree is small; later ones at the reviews.
      if (review_.lengths == (review_.length_base == 0 ? first_length_review : review_period))
        review_length_base();
    }
    // Summaries dropped for want of any search are judged again as soon as enough searches
    // came, not a whole period later: a profile loaded in bulk and then searched (the drop-in's
    // joint profile, rebuilt from its ledgers) would otherwise search without them meanwhile.
    if (++review_.updates < review_period &&
        !(review_.idle && review_.searches.count() >= min_searches))
      return;
    review_.updates = 0;
    review_mode();
  }

  /// The fit corners sort blocks into length bands at base, 2 base and 4 base (see
  /// detail/fit_corners.hpp); the bands prune best around the durations of the requests, which
  /// the lengths booked and released follow. So the base becomes 2^(w - 2), w the mean bit
  /// width of the lengths updated (so the bands' limits are 2^(w - 2) to 2^(w + 1), around a
  /// geometric mean), after the first first_length_review updates and then at every review when
  /// it is off by a factor of four or more; the corners are then recomputed (O(n), while they
  /// are maintained). A workload whose lengths keep their scale sets it once. On the append
  /// workload limits of 2^(w - 3) to 2^w, or four bands, pruned measurably worse.
  static constexpr std::uint32_t first_length_review = 64;
  void review_length_base() noexcept {
    const std::uint64_t mean_width = review_.length_widths / review_.lengths;
    review_.length_widths = 0;
    review_.lengths = 0;
    const T base = mean_width <= 3 ? T{1} : static_cast<T>(T{1} << (mean_width - 2));
    const T old = review_.length_base;
    if (old != 0 && base / 4 < old && old / 4 < base) return;
    review_.length_base = base;
    if (review_.maintained) rebuild(root_);
  }

  /// Drops the summaries when the searches pruned with them less than once in four (their
  /// upkeep is O(k) an update, a prune saves a walk), rebuilds them when the searches without
  /// them made four or more run-to-run jumps each on average. The two thresholds are far
  /// apart on the benchmarks: churn prunes 0.07 times a search and jumps 0.3 times, append
  /// prunes 2 to 6 times and jumps 40 to 50 times. A rebuild costs O(n) recomputes, and
  /// only follows a review period with summaries off, so it is at most one per 2 review
  /// periods even for a workload that keeps flipping.
  void review_mode() noexcept {
    const std::uint64_t searches = review_.searches.take();
    const std::uint64_t prunes = review_.prunes.take();
    const std::uint64_t jumps = review_.level_jumps.take();
    if (!keeps_summaries) return;
    // No search at all in a whole period: the summaries were upkeep for nothing (a profile kept
    // beside a joint one that answers the searches). Searches that come back and walk far
    // rebuild them (see note_update).
    if (review_.maintained && searches == 0) {
      review_.maintained = false;
      review_.idle = true;
      return;
    }
    if (searches < min_searches) return;
    review_.idle = false;
    if (review_.maintained && prunes * 4 < searches) {
      review_.maintained = false;  // the stored summaries go stale from here on; nothing reads them
    } else if (!review_.maintained && jumps >= 4 * searches) {
      review_.maintained = true;
      rebuild(root_);
    }
  }

  /// Pushes every pending shift down and recomputes every node, summaries included, children
  /// first.
  void rebuild(node* n) noexcept {
    if (n == nullptr) return;
    push_down(n);
    rebuild(n->left);
    rebuild(n->right);
    recompute(n);
  }

  /// A count that const searches add to. Concurrent const calls are allowed
  /// (cluster::slot_table::earliest_fit_by_scan searches one backend from several threads), so
  /// it is atomic; relaxed loads and stores rather than a read-modify-write, because a count
  /// lost between two concurrent searches only delays a decision by a little.
  class search_tally {
   public:
    search_tally() = default;
    search_tally(const search_tally& other) noexcept : count_(other.load()) {}
    search_tally& operator=(const search_tally& other) noexcept {
      count_.store(other.load(), std::memory_order_relaxed);
      return *this;
    }
    ~search_tally() = default;
    void add(std::uint64_t n) const noexcept {
      if (n != 0) count_.store(load() + n, std::memory_order_relaxed);
    }
    [[nodiscard]] std::uint64_t count() const noexcept { return load(); }
    [[nodiscard]] std::uint64_t take() noexcept {
      const std::uint64_t n = load();
      count_.store(0, std::memory_order_relaxed);
      return n;
    }
    void swap(search_tally& other) noexcept {
      const std::uint64_t mine = load();
      count_.store(other.load(), std::memory_order_relaxed);
      other.count_.store(mine, std::memory_order_relaxed);
    }

   private:
    [[nodiscard]] std::uint64_t load() const noexcept {
      return count_.load(std::memory_order_relaxed);
    }
    mutable std::atomic<std::uint64_t> count_{0};
  };

  C total_;
  std::array<component_type, level_count> thresholds_{};  ///< per component, increasing
  std::array<std::uint8_t, level_count> level_ranks_{};   ///< a threshold's highest level index
  std::array<std::uint8_t, components::count> levels_used_{};
  typename corners_type::scale corner_scale_{total_};  ///< how corners round, from the total
  std::uint64_t random_ = 0x9E3779B97F4A7C15ULL;
  /// The tree's mode and what the searches reported since the last review (review_mode).
  struct mode_review {
    bool maintained = false;          // the run summaries are up to date, no shift is pending
    bool shifts_allowed = true;       // updates may leave pending shifts when not maintained
    bool idle = false;                // summaries dropped because no search came in a whole period
    std::uint32_t updates = 0;        // reserves and releases since the last review
    search_tally searches;            // earliest_fit calls
    search_tally prunes;              // subtrees they skipped by stored run summaries
    search_tally level_jumps;         // run-to-run jumps of those that had a level but no summaries
    T length_base = 0;                // the fit corners' length bands (review_length_base)
    std::uint64_t length_widths = 0;  // bit widths of the lengths updated since the last review
    std::uint32_t lengths = 0;        // how many
  };
  mode_review review_;
  detail::node_pool<node> pool_;                ///< declared before root_: outlives the tree
  detail::node_pool<summary_block> summaries_;  ///< the summary nodes' runs, likewise
  node* root_ = nullptr;
  std::size_t count_ = 0;
};

}  // namespace leasehold
