#pragma once

/// \file
/// reference<T, C>: the brute-force oracle. The profile is a sorted vector of change points
/// (time, free capacity from that time on); every operation is the most direct reading of
/// DESIGN.md's semantics, with no cleverness to get wrong. The conformance suite checks every
/// other backend against it, answer for answer. Slow by design: O(n) updates, and
/// earliest_fit tries every candidate start in turn.

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <vector>

#include "leasehold/availability/detail/block_walks.hpp"
#include "leasehold/availability/detail/resize.hpp"
#include "leasehold/core/detail/checks.hpp"
#include "leasehold/core/error.hpp"

namespace leasehold {

/// The brute-force oracle every backend is tested against: a sorted vector of change points,
/// O(n) updates, and an earliest_fit that tries every candidate start. For tests, not for use.
template <time_value T = std::int64_t, capacity_value C = std::int64_t>
class reference : public detail::block_walks<reference<T, C>, T, C> {
 public:
  /// A profile of `total` capacity, all of it free from `origin` to forever. Throws
  /// invalid_request for a total that is not positive or an origin that leaves no time to book.
  explicit reference(C total, T origin = 0) : total_(total), points_{{origin, total}} {
    detail::check_profile("reference", total, origin);
  }

  /// advance_to throws only from its argument check, and undoing a reserve or release that
  /// just succeeded never throws (see add_over): cluster::slot_table rolls back in place.
  static constexpr bool nothrow_rollback = true;

  /// The total capacity, what is free where nothing is booked.
  [[nodiscard]] C total() const noexcept { return total_; }
  /// The earliest time the profile holds; advance_to moves it forward.
  [[nodiscard]] T origin() const noexcept { return points_.front().at; }

  /// The capacity free at t. Throws invalid_request for t before the origin.
  [[nodiscard]] C free_at(T t) const {
    detail::check_time("free_at", t, origin());
    return points_[index_of(t)].free;
  }

  /// The least capacity free at any time of span, the most a booking over it could take.
  /// Throws invalid_request for an empty span or one beginning before the origin. O(n).
  [[nodiscard]] C min_free(interval<T> span) const {
    detail::check_span("min_free", span, origin());
    C lowest = total_;
    for (std::size_t i = index_of(span.begin); i < points_.size() && points_[i].at < span.end; ++i)
      lowest = elementwise_min(lowest, points_[i].free);
    return lowest;
  }

  /// Tries every candidate start in time order: the clamped window begin, then every change
  /// point after it (a fit can only begin where the free capacity rises, or at the window).
  [[nodiscard]] std::optional<T> earliest_fit(const request<T, C>& r) const {
    const auto starts = detail::check_request(r, total_, origin());
    std::vector<T> candidates{starts.first};
    for (const point& p : points_)
      if (p.at > starts.first) candidates.push_back(p.at);
    for (T s : candidates) {
      if (s > starts.last) break;
      if (fits(r.amount, min_free({s, static_cast<T>(s + r.duration)}))) return s;
    }
    return std::nullopt;
  }

  /// The mirror image, by brute force: a latest fit ends at the clamped window end or where the
  /// free capacity drops, so every such end is tried, latest first.
  [[nodiscard]] std::optional<T> latest_fit(const request<T, C>& r) const {
    const auto starts = detail::check_request(r, total_, origin(), "latest_fit");
    if (starts.empty()) return std::nullopt;
    std::vector<T> candidates{starts.last};
    for (const point& p : points_) {
      const std::optional<T> s = detail::checked_sub(p.at, r.duration);
      if (s && *s >= starts.first && *s < starts.last) candidates.push_back(*s);
    }
    std::ranges::sort(candidates, std::greater<>{});
    for (T s : candidates)
      if (fits(r.amount, min_free({s, static_cast<T>(s + r.duration)}))) return s;
    return std::nullopt;
  }

  /// Books `amount` over `span`. Throws invalid_request for an empty span, one beginning before
  /// the origin, or an amount not positive or above the total; insufficient_capacity when
  /// `amount` is not free throughout (naming the first time it is not). Strong guarantee. O(n).
  void reserve(interval<T> span, C amount) {
    detail::check_span("reserve", span, origin());
    detail::check_amount("reserve", amount, total_);
    for (std::size_t i = index_of(span.begin); i < points_.size() && points_[i].at < span.end; ++i)
      if (!fits(amount, points_[i].free))
        throw insufficient_capacity(detail::describe("reserve ", amount, " over ", span, ": only ",
                                                     points_[i].free, " free at ",
                                                     std::max(points_[i].at, span.begin)));
    add_over(span, [&](C& free) { free -= amount; });
  }

  /// Gives back `amount` over `span`, the reverse of reserve. Throws invalid_request as reserve
  /// does; invalid_release when more than is booked would come back somewhere (the free
  /// capacity would exceed the total). Strong guarantee. O(n).
  void release(interval<T> span, C amount) {
    detail::check_span("release", span, origin());
    detail::check_amount("release", amount, total_);
    for (std::size_t i = index_of(span.begin); i < points_.size() && points_[i].at < span.end; ++i)
      if (!fits(amount, total_ - points_[i].free))
        throw invalid_release(detail::describe("release ", amount, " over ", span, ": only ",
                                               total_ - points_[i].free, " booked at ",
                                               std::max(points_[i].at, span.begin)));
    add_over(span, [&](C& free) { free += amount; });
  }

  /// Moves the origin forward to t and forgets everything before it. Throws invalid_request
  /// for t before the origin.
  void advance_to(T t) {
    detail::check_advance(t, origin());
    // In place, without allocating: erasing a prefix of trivially copyable points cannot throw.
    points_.erase(points_.begin(), points_.begin() + static_cast<std::ptrdiff_t>(index_of(t)));
    points_.front().at = t;
  }

  /// The first time after t at which the free capacity differs from that at t (the end of
  /// the block in force at t), or nullopt when it never changes. Throws invalid_request for t
  /// before the origin.
  [[nodiscard]] std::optional<T> next_change(T t) const {
    detail::check_time("next_change", t, origin());
    const std::size_t i = index_of(t);
    if (i + 1 == points_.size()) return std::nullopt;
    return points_[i + 1].at;
  }

  /// Keeps what is booked at every point and moves every free amount with the total; the whole
  /// profile is checked before the first change, which cannot throw.
  void set_total(C new_total) {
    detail::rebase_blocks(points_, &point::at, &point::free, total_, new_total);
  }

  /// The number of maximal free blocks held, the n of the costs above.
  [[nodiscard]] std::size_t block_count() const noexcept { return points_.size(); }

  /// Bytes held by the structure, the vector's unused room included.
  [[nodiscard]] std::size_t memory_usage() const noexcept {
    return sizeof(*this) + points_.capacity() * sizeof(point);
  }

  /// The invariants: starts at the origin, strictly increasing, no two equal neighbours,
  /// every free amount between zero and the total.
  void validate() const {
    for (std::size_t i = 0; i < points_.size(); ++i) {
      if (!is_nonnegative(points_[i].free) || !fits(points_[i].free, total_))
        throw invariant_violation(detail::describe("reference: free ", points_[i].free, " at ",
                                                   points_[i].at, " outside [0, total]"));
      if (i > 0 && points_[i - 1].at >= points_[i].at)
        throw invariant_violation("reference: change points out of order");
      if (i > 0 && points_[i - 1].free == points_[i].free)
        throw invariant_violation("reference: two adjacent points with equal free capacity");
    }
  }

 private:
  struct point {
    T at;
    C free;
  };

  /// block_view's cursor: an index into the points (detail/block_view.hpp).
  struct point_cursor {
    const std::vector<point>* points = nullptr;
    std::size_t i = 0;
    [[nodiscard]] free_block<T, C> block() const {
      const auto& p = *points;
      return {{p[i].at, i + 1 < p.size() ? p[i + 1].at : forever<T>}, p[i].free};
    }
    void next() { ++i; }
  };
  // The walks (detail/block_walks.hpp) start from a cursor at t.
  friend detail::block_walks<reference, T, C>;
  [[nodiscard]] point_cursor cursor_at(T t) const { return {&points_, index_of(t)}; }

  /// Index of the change point in force at t (t >= origin).
  [[nodiscard]] std::size_t index_of(T t) const {
    auto it = std::upper_bound(points_.begin(), points_.end(), t,
                               [](T value, const point& p) { return value < p.at; });
    return static_cast<std::size_t>(it - points_.begin()) - 1;
  }

  /// Ensures change points at span.begin and span.end, applies `change` to every point in
  /// the span, then drops points that no longer change anything. Room for the new points is
  /// made first, exactly as many as needed (the only step that can throw); the inverse call
  /// adds points exactly where this one dropped them, so undoing a call that just succeeded
  /// never allocates (nothrow_rollback).
  template <class Change>
  void add_over(interval<T> span, Change change) {
    const auto missing = [this](T t) {
      return t != forever<T> && points_[index_of(t)].at != t ? std::size_t{1} : std::size_t{0};
    };
    points_.reserve(points_.size() + missing(span.begin) + missing(span.end));
    auto split_at = [this](T t) {
      auto it = std::lower_bound(points_.begin(), points_.end(), t,
                                 [](const point& p, T value) { return p.at < value; });
      if (it == points_.end() || it->at != t) points_.insert(it, {t, std::prev(it)->free});
    };
    split_at(span.begin);
    if (span.end != forever<T>) split_at(span.end);
    for (point& p : points_)
      if (span.begin <= p.at && p.at < span.end) change(p.free);
    const auto last = std::unique(points_.begin(), points_.end(),
                                  [](const point& a, const point& b) { return a.free == b.free; });
    points_.erase(last, points_.end());
  }

  C total_;
  std::vector<point> points_;  ///< points_.front().at is the origin
};

}  // namespace leasehold
