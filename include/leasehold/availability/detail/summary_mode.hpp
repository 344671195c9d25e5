#pragma once

// summary_mode<T, KeepsSummaries, TracksLengths>: which of its two modes a free_tree is in, and
// when it changes. Maintained: the run summaries (run_levels.hpp) and fit corners
// (fit_corners.hpp) are up to date, every update recomputes them over its span, O(k), and
// searches prune with them. Lazy: they are left stale, an update is a lazy shift (lazy_shift.hpp),
// O(log n) whatever its span, and searches walk. Answers never depend on the mode, only their
// cost does.
//
// State apart from decisions: the searches report what they met (search_report, below), the
// updates count themselves (note_update), and the decision is made there, in a mutating call,
// every review_period updates: the summaries are dropped when the searches since the last
// review pruned with them less than once in four (their upkeep is O(k) an update, a prune saves
// a walk), and rebuilt (O(n), once) when searches without them made four or more run-to-run
// jumps each on average. The two thresholds are far apart on the benchmarks: an online
// workload of short windows (churn) prunes about 0.07 times a search and jumps 0.3 times,
// appending at the end of a deep schedule prunes 2 to 6 times and jumps 40 to 50 times. A
// rebuild only follows a review period with summaries off, so it is at most one per two review
// periods even for a workload that keeps flipping. A tree only searched keeps its mode; one
// only updated for a whole period drops the summaries, which nothing read, and is reviewed again
// as soon as min_searches searches came back, not a period later.
//
// With TracksLengths (the fit corners), the updates also pick the base of the corners' length
// bands from the lengths they book and release (length_base).

#include <atomic>
#include <bit>
#include <cstdint>
#include <type_traits>

#include "leasehold/core/time.hpp"

namespace leasehold::detail {

// What the const searches of one free_tree report to the next mode review: how many there were,
// how many subtrees they passed by stored summaries, and how many run-to-run jumps the searches
// without summaries made (what summaries might have saved).
//
// Why const calls write it: only a search sees what the summaries save it, and the mode that
// pays off depends on that (churn and append differ tenfold), so no count the updates keep can
// stand in for it. Why it is safe: the counts only ever choose between two modes that give the
// same answers, so a stale or lost count can only delay a change of mode, never change a
// result; and they are atomics, so the rule of the standard library holds for free_tree too:
// const calls on one object may run concurrently (cluster::slot_table::earliest_fit_by_scan
// searches one backend from several threads), while a mutating call needs the object to itself.
// Relaxed loads and stores rather than read-modify-writes: two concurrent searches may lose one
// count between them, which delays a decision by a little, while a locked add on every search
// would be a shared cache line written by every thread.
class search_tally {
 public:
  search_tally() = default;
  search_tally(const search_tally& other) noexcept : count_(other.count()) {}
  search_tally& operator=(const search_tally& other) noexcept {
    count_.store(other.count(), std::memory_order_relaxed);
    return *this;
  }
  ~search_tally() = default;
  void add(std::uint64_t n) const noexcept {
    if (n != 0) count_.store(count() + n, std::memory_order_relaxed);
  }
  [[nodiscard]] std::uint64_t count() const noexcept {
    return count_.load(std::memory_order_relaxed);
  }
  [[nodiscard]] std::uint64_t take() noexcept {
    const std::uint64_t n = count();
    count_.store(0, std::memory_order_relaxed);
    return n;
  }

 private:
  mutable std::atomic<std::uint64_t> count_{0};
};

struct search_report {
  search_tally searches;     // earliest_fit calls
  search_tally prunes;       // subtrees they skipped by stored summaries
  search_tally level_jumps;  // run-to-run jumps of those that had a level but no summaries
};

template <time_value T, bool KeepsSummaries, bool TracksLengths>
class summary_mode {
 public:
  /// Mode reviews: every review_period reserves and releases, from what the searches since the
  /// last review reported, when at least min_searches were made.
  static constexpr std::uint32_t review_period = 1024;
  static constexpr std::uint64_t min_searches = 64;
  /// The first length base is picked after this many updates, while the tree is small.
  static constexpr std::uint32_t first_length_review = 64;

  /// Whether the summaries are up to date now (a tree that keeps none is never maintained).
  [[nodiscard]] bool maintained() const noexcept { return maintained_; }
  /// Whether an update may leave shifts pending now: lazy, and the total allows them.
  [[nodiscard]] bool may_owe_shifts() const noexcept { return !maintained_ && shifts_allowed_; }
  /// Whether shifts may ever be pending under the present total (lazy_shift::allowed).
  [[nodiscard]] bool shifts_allowed() const noexcept { return shifts_allowed_; }
  void allow_shifts(bool allowed) noexcept { shifts_allowed_ = allowed; }
  /// The base of the fit corners' length bands (0 until the first pick).
  [[nodiscard]] T length_base() const noexcept { return length_base_; }

  /// Where the searches report; const searches write it (see search_report).
  [[nodiscard]] const search_report& report() const noexcept { return report_; }

  /// Counts one reserve or release over `span` and reviews the mode and the length base when
  /// due. True when every summary must be recomputed now (a rebuild: the summaries were turned
  /// on, or the length base moved while they are kept).
  [[nodiscard]] bool note_update(interval<T> span) noexcept {
    bool rebuild = false;
    if constexpr (TracksLengths) rebuild = note_length(span);
    // Summaries dropped for want of any search are judged again as soon as enough searches
    // came, not a whole period later: a profile loaded in bulk and then searched (the drop-in's
    // joint profile, rebuilt from its ledgers) would otherwise search without them meanwhile.
    if (++updates_ < review_period && !(idle_ && report_.searches.count() >= min_searches))
      return rebuild;
    updates_ = 0;
    const bool turned_on = review();
    return turned_on || (rebuild && maintained_);
  }

 private:
  /// The fit corners sort blocks into length bands at base, 2 base and 4 base (see
  /// fit_corners.hpp); the bands prune best around the durations of the requests, which the
  /// lengths booked and released follow. So the base becomes 2^(w - 2), w the mean bit width of
  /// the lengths updated (so the bands' limits are 2^(w - 2) to 2^(w + 1), around a geometric
  /// mean), after the first first_length_review updates and then at every review when it is off
  /// by a factor of four or more. A workload whose lengths keep their scale sets it once. On the
  /// append workload limits of 2^(w - 3) to 2^w, or four bands, pruned measurably worse.
  bool note_length(interval<T> span) noexcept {
    using unsigned_time = std::make_unsigned_t<T>;
    const auto length = static_cast<unsigned_time>(static_cast<unsigned_time>(span.end) -
                                                   static_cast<unsigned_time>(span.begin));
    length_widths_ += static_cast<std::uint64_t>(std::bit_width(length));
    ++lengths_;
    if (lengths_ != (length_base_ == 0 ? first_length_review : review_period)) return false;
    const std::uint64_t mean_width = length_widths_ / lengths_;
    length_widths_ = 0;
    lengths_ = 0;
    const T base = mean_width <= 3 ? T{1} : static_cast<T>(T{1} << (mean_width - 2));
    const T old = length_base_;
    if (old != 0 && base / 4 < old && old / 4 < base) return false;
    length_base_ = base;
    return maintained_;
  }

  /// The review of the class comment; true when the summaries were just turned on.
  bool review() noexcept {
    const std::uint64_t searches = report_.searches.take();
    const std::uint64_t prunes = report_.prunes.take();
    const std::uint64_t jumps = report_.level_jumps.take();
    if (!KeepsSummaries) return false;
    // No search at all in a whole period: the summaries were upkeep for nothing (a profile kept
    // beside a joint one that answers the searches).
    if (maintained_ && searches == 0) {
      maintained_ = false;
      idle_ = true;
      return false;
    }
    if (searches < min_searches) return false;
    idle_ = false;
    if (maintained_ && prunes * 4 < searches) {
      maintained_ = false;  // the stored summaries go stale from here on; nothing reads them
    } else if (!maintained_ && jumps >= 4 * searches) {
      maintained_ = true;
      return true;
    }
    return false;
  }

  bool maintained_ = KeepsSummaries;  // the summaries are up to date, no shift is pending
  bool shifts_allowed_ = true;        // updates may leave pending shifts when not maintained
  bool idle_ = false;                 // summaries dropped because no search came in a period
  std::uint32_t updates_ = 0;         // reserves and releases since the last review
  search_report report_;
  T length_base_ = 0;                // the fit corners' length bands (note_length)
  std::uint64_t length_widths_ = 0;  // bit widths of the lengths updated since the last pick
  std::uint32_t lengths_ = 0;        // how many
};

}  // namespace leasehold::detail
