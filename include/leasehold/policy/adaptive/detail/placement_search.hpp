#pragma once

// Algorithm 1 of Netto & Buyya (§3.3), on any availability profile, extended to preemptive
// requests as the paper describes ("the scheduler split them into subrequests and deal with
// them independently; but ... no subrequest overlap is allowed").
//
// Algorithm 1 walks every scheduling event time et and, at each, tries R from R_max down to
// R_min, keeping the first R that fits at et; over all et it keeps the earliest completion.
// A request's earliest start for a given (R, T) is always an event time (a change of free
// capacity) or the present, so asking the profile's earliest_fit once per shape and keeping
// the earliest completion visits the same candidates. The result is Algorithm 1's whenever
// f_mol does not increase with R (more resources never run longer); for an f_mol that does,
// it is never later. Ties go as in Algorithm 1: the earliest start, then the largest R.
//
// A preemptive request Sp = (N, I, M) is placed as a chain of pieces, greedily: from a cursor
// (the present, then the end of the last piece), find the earliest time any allowed shape can
// run at least one I-slice, and there take the shape that gets furthest through the execution
// without interruption. At every link the alternative "place the whole remainder as one piece
// now" is also computed (Algorithm 1 from the cursor); the chain that completes first wins,
// fewer pieces breaking ties, so splitting is only used when it completes the request earlier.
// With M false every piece uses one R: the chain is run for each allowed R and the earliest
// completion kept. Every piece must complete by the deadline (hard deadlines, §3.3).

#include <cstddef>
#include <optional>
#include <span>
#include <vector>

#include "leasehold/availability/concept.hpp"
#include "leasehold/core/detail/checked_arithmetic.hpp"
#include "leasehold/core/request.hpp"
#include "leasehold/policy/adaptive/detail/shapes.hpp"
#include "leasehold/policy/adaptive/placement.hpp"
#include "leasehold/policy/adaptive/request.hpp"

namespace leasehold::policy::adaptive::detail {

template <availability Backend>
class placement_search {
 public:
  using T = typename Backend::time_type;
  using C = typename Backend::capacity_type;
  using piece_type = sub_request<T, C>;
  using placement_type = placement<T, C>;
  using shape_type = shape<T, C>;

  placement_search(const Backend& profile, std::span<const shape_type> shapes, split_spec split,
                   T now, T deadline)
      : profile_(profile), shapes_(shapes), split_(split), now_(now), deadline_(deadline) {}

  // The earliest-completing placement that meets the deadline, or nullopt.
  [[nodiscard]] std::optional<placement_type> run() const {
    if (split_.pieces <= 1 || split_.interval_percent >= 100) {
      auto whole = whole_from(shapes_, 0, now_);
      if (!whole) return std::nullopt;
      return placement_type{{*whole}};
    }
    if (split_.moldable) return chain(shapes_);
    std::optional<placement_type> best;
    for (std::size_t i = 0; i < shapes_.size(); ++i) {
      auto candidate = chain(shapes_.subspan(i, 1));
      if (candidate && (!best || candidate->completion() < best->completion()))
        best = std::move(candidate);
    }
    return best;
  }

 private:
  // The split point after `percent`: the next multiple of I, or the end of the execution.
  [[nodiscard]] int next_point(int percent) const noexcept {
    const int step = split_.interval_percent;
    const int next = (percent / step + 1) * step;
    return next < 100 ? next : 100;
  }

  // Earliest start >= cursor of `amount` for `duration` completing by the deadline.
  [[nodiscard]] std::optional<T> fit(C amount, T duration, T cursor) const {
    const std::optional<T> latest_start = leasehold::detail::checked_sub(deadline_, duration);
    if (!latest_start || *latest_start < cursor) return std::nullopt;
    return profile_.earliest_fit(request<T, C>{amount, duration, {cursor, deadline_}});
  }

  // Whether `amount` is free over [start, start + duration) and it completes by the deadline.
  [[nodiscard]] bool fits_at(C amount, T start, T duration) const {
    const std::optional<T> latest_start = leasehold::detail::checked_sub(deadline_, duration);
    if (!latest_start || *latest_start < start) return false;
    return fits(amount, profile_.min_free({start, static_cast<T>(start + duration)}));
  }

  // Algorithm 1 for the rest of the execution, [from, 100) %, as one piece starting at or
  // after the cursor.
  [[nodiscard]] std::optional<piece_type> whole_from(std::span<const shape_type> shapes, int from,
                                                     T cursor) const {
    std::optional<piece_type> best;
    for (const shape_type& s : shapes) {
      const T duration = slice_duration(s.duration, from, 100);
      if (duration <= T{}) continue;
      const std::optional<T> start = fit(s.resource_count, duration, cursor);
      if (!start) continue;
      const T completion = static_cast<T>(*start + duration);
      if (!best || completion < best->span.end ||
          (completion == best->span.end && *start < best->span.begin))
        best = piece_type{{*start, completion}, s.resource_count, from, 100};
    }
    return best;
  }

  // The first split point after `from` whose slice on shape s lasts at least one tick.
  [[nodiscard]] int first_nonempty_point(const shape_type& s, int from) const noexcept {
    int to = next_point(from);
    while (to < 100 && slice_duration(s.duration, from, to) <= T{}) to = next_point(to);
    return to;
  }

  // The greedy chain described at the top of this file.
  [[nodiscard]] std::optional<placement_type> chain(std::span<const shape_type> shapes) const {
    std::optional<placement_type> best;
    placement_type prefix;
    int from = 0;
    T cursor = now_;
    std::size_t pieces_left = split_.pieces;
    while (true) {
      if (auto rest = whole_from(shapes, from, cursor)) {
        if (!best || rest->span.end < best->completion()) {
          best = prefix;
          best->pieces.push_back(*rest);
        }
      }
      if (pieces_left <= 1 || from >= 100) break;
      // The earliest time some shape can make progress.
      std::optional<T> earliest;
      for (const shape_type& s : shapes) {
        const int to = first_nonempty_point(s, from);
        if (to >= 100) continue;  // only the whole remainder fits this shape: done above
        const auto start = fit(s.resource_count, slice_duration(s.duration, from, to), cursor);
        if (start && (!earliest || *start < *earliest)) earliest = start;
      }
      if (!earliest) break;
      // There, the shape that runs furthest without interruption (largest R on ties).
      std::optional<piece_type> step;
      for (const shape_type& s : shapes) {
        int reached = from;
        for (int to = next_point(from); to <= 100; to = next_point(to)) {
          const T duration = slice_duration(s.duration, from, to);
          if (duration > T{}) {
            if (!fits_at(s.resource_count, *earliest, duration)) break;
            reached = to;
          }
          if (to == 100) break;
        }
        if (reached > from && (!step || reached > step->to_percent))
          step = piece_type{
              {*earliest, static_cast<T>(*earliest + slice_duration(s.duration, from, reached))},
              s.resource_count,
              from,
              reached};
      }
      if (!step || step->to_percent >= 100) break;  // a whole remainder: already considered
      prefix.pieces.push_back(*step);
      from = step->to_percent;
      cursor = step->span.end;
      --pieces_left;
    }
    return best;
  }

  const Backend& profile_;
  std::span<const shape_type> shapes_;
  split_spec split_;
  T now_;
  T deadline_;
};

}  // namespace leasehold::policy::adaptive::detail
