#pragma once

/// \file
/// Where and how an adaptive request runs: one sub-request per piece of its execution. A piece
/// covers the percentages [from_percent, to_percent) of the execution on `resources`
/// resources; its length is that slice of f_mol(resources) (see slice_duration), so the work a
/// request receives is exactly sum(resources x length) for the shapes it was given. Pieces are
/// in time order and never overlap (Netto & Buyya §3.1: "if a subrequest finishes at time t,
/// the following subrequest must start after t").

#include <cstdint>
#include <ostream>
#include <vector>

#include "leasehold/core/capacity.hpp"
#include "leasehold/core/time.hpp"

namespace leasehold::policy::adaptive {

/// One piece of a placed request: resource_count resources over span, running the part of the
/// request's work from from_percent to to_percent.
template <time_value T = std::int64_t, scalar_capacity C = std::int64_t>
struct sub_request {
  /// When the piece runs.
  interval<T> span;
  /// How many resources it holds.
  C resource_count{};
  /// Where in the request's execution it starts, in percent.
  int from_percent = 0;
  /// Where it ends, in percent.
  int to_percent = 100;

  /// Equal when every field is equal.
  friend constexpr bool operator==(const sub_request&, const sub_request&) = default;

  /// Writes the piece's span, resources and percent range.
  friend std::ostream& operator<<(std::ostream& out, const sub_request& piece) {
    return out << piece.span << " on " << piece.resource_count << " for [" << piece.from_percent
               << "%, " << piece.to_percent << "%)";
  }
};

/// Where and when an accepted request runs: its pieces in time order (one for a request that
/// is not split).
template <time_value T = std::int64_t, scalar_capacity C = std::int64_t>
struct placement {
  std::vector<sub_request<T, C>> pieces;  ///< non-empty for a placed request, in time order

  [[nodiscard]] T start() const { return pieces.front().span.begin; }    ///< T_s
  [[nodiscard]] T completion() const { return pieces.back().span.end; }  ///< T_c

  /// Resource x ticks booked: the area of the rectangles in the Gantt chart.
  [[nodiscard]] std::int64_t work() const {
    std::int64_t sum = 0;
    for (const auto& piece : pieces)
      sum += static_cast<std::int64_t>(piece.resource_count) *
             static_cast<std::int64_t>(piece.span.end - piece.span.begin);
    return sum;
  }

  /// The resources used, weighted by the share of the execution each piece covers.
  [[nodiscard]] double mean_resources() const {
    double sum = 0;
    for (const auto& piece : pieces)
      sum += static_cast<double>(piece.resource_count) * (piece.to_percent - piece.from_percent);
    return sum / 100.0;
  }

  /// Equal when the pieces are equal.
  friend bool operator==(const placement&, const placement&) = default;

  /// Writes every piece.
  friend std::ostream& operator<<(std::ostream& out, const placement& where) {
    out << "placement{";
    for (std::size_t i = 0; i < where.pieces.size(); ++i)
      out << (i == 0 ? "" : "; ") << where.pieces[i];
    return out << '}';
  }
};

/// The length of the slice [from, to) percent of an execution that takes `full` ticks:
/// ceil(full * to / 100) - ceil(full * from / 100). Slices of one execution add up to `full`
/// exactly, so splitting never adds or loses time. Written as q * p + ceil(r * p / 100) with
/// full = 100 q + r, so it cannot overflow T.
template <time_value T>
[[nodiscard]] constexpr T slice_duration(T full, int from_percent, int to_percent) noexcept {
  const auto upto = [full](int percent) -> T {
    const T q = static_cast<T>(full / 100);
    const T r = static_cast<T>(full % 100);
    const T rest = static_cast<T>((r * percent + 99) / 100);
    return static_cast<T>(q * percent + rest);
  };
  return static_cast<T>(upto(to_percent) - upto(from_percent));
}

}  // namespace leasehold::policy::adaptive
