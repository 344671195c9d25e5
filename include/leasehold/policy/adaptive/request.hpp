#pragma once

/// \file
/// The adaptive resource allocation request of Netto & Buyya, "Impact of Adaptive Resource
/// Allocation Requests in Utility Cluster Computing Environments" (§3.1):
///
///   Req(R_min, R_max, f_mol, D, B, Sp)
///
/// R_min..R_max is the range of resource counts the provider may choose from (optionally
/// restricted further, e.g. to powers of two); f_mol : R -> T says how long the application runs
/// on R resources (moldability); D is a hard deadline, B the budget; Sp = (N, I, M) says the
/// execution may be cut into at most N sub-requests at multiples of I % of the execution, each
/// moldable on its own when M holds. A rigid request is R_min = R_max with N = 1.

#include <cstddef>
#include <cstdint>
#include <functional>
#include <limits>
#include <optional>

#include "leasehold/core/capacity.hpp"
#include "leasehold/core/detail/checks.hpp"
#include "leasehold/core/error.hpp"
#include "leasehold/core/time.hpp"

namespace leasehold::policy::adaptive {

/// Sp = (N, I, M), Netto & Buyya §3.1 and Fig. 2.
struct split_spec {
  /// N: at most this many sub-requests; 1 = not preemptive. `unlimited_pieces` is the paper's
  /// N = infinity (the split points then bound the count: 100 / I).
  std::size_t pieces = 1;
  /// I: the execution may be interrupted only at multiples of this percentage of it (1..100).
  int interval_percent = 100;
  /// M: each sub-request may use its own number of resources (and so its own duration).
  bool moldable = false;

  /// Equal when N, I and M are equal.
  friend constexpr bool operator==(const split_spec&, const split_spec&) = default;
};

/// N = infinity for split_spec::pieces: the split points alone bound the count.
inline constexpr std::size_t unlimited_pieces = std::numeric_limits<std::size_t>::max();

/// f_mol for a request that is not moldable: "If the request is not moldable the function
/// f_mol should return a constant value" (§3.1).
template <time_value T = std::int64_t>
struct fixed_time {
  /// The run time, whatever the number of resources.
  T duration;
  /// The duration on any number of resources: `duration`.
  template <class R>
  constexpr T operator()(R /*resources*/) const noexcept {
    return duration;
  }
};

/// f_mol of Table 1: k - c * R, the straight line through (R_max, T_min) and
/// (R_min, T_max = T_min * R_max / R_min). Its two end points use the same work R * T, which is
/// what the paper calls "the amount of work remains constant"; between them the line lies above
/// the hyperbola R * T = const, so intermediate shapes use slightly more work. Times are rounded
/// up to whole ticks so that no shape ever gets less time than the line gives it.
template <time_value T = std::int64_t, scalar_capacity C = std::int64_t>
class linear_moldability {
 public:
  /// The line through (r_max, t_min) and (r_min, T_max = ceil(t_min x r_max / r_min)). Throws
  /// invalid_request for r_min not positive, r_max below r_min, t_min not positive, or a T_max
  /// that overflows the time type.
  linear_moldability(C r_min, C r_max, T t_min) : r_min_(r_min), r_max_(r_max), t_min_(t_min) {
    if (r_min <= C{} || r_max < r_min)
      throw invalid_request(leasehold::detail::describe("linear_moldability: R_min ", r_min,
                                                        " and R_max ", r_max,
                                                        " must satisfy 0 < R_min <= R_max"));
    if (t_min <= T{})
      throw invalid_request(
          leasehold::detail::describe("linear_moldability: T_min ", t_min, " must be positive"));
    // T_max = ceil(T_min * R_max / R_min), computed without overflow or it is an error.
    std::int64_t product = 0;
    if (__builtin_mul_overflow(static_cast<std::int64_t>(t_min), static_cast<std::int64_t>(r_max),
                               &product) ||
        ceil_div(product, static_cast<std::int64_t>(r_min)) >
            static_cast<std::int64_t>(std::numeric_limits<T>::max()))
      throw invalid_request(leasehold::detail::describe(
          "linear_moldability: T_min ", t_min, " * R_max ", r_max, " overflows the time type"));
    t_max_ = static_cast<T>(ceil_div(product, static_cast<std::int64_t>(r_min)));
  }

  /// T_min, the duration on R_max resources.
  [[nodiscard]] T t_min() const noexcept { return t_min_; }
  /// T_max, the duration on R_min resources.
  [[nodiscard]] T t_max() const noexcept { return t_max_; }

  /// R outside [R_min, R_max] follows the same line (the scheduler never asks for such R).
  [[nodiscard]] T operator()(C r) const {
    if (r_max_ == r_min_) return t_min_;
    const auto steps = static_cast<std::int64_t>(r_max_) - static_cast<std::int64_t>(r);
    const auto rise = static_cast<std::int64_t>(t_max_) - static_cast<std::int64_t>(t_min_);
    std::int64_t scaled = 0;
    if (__builtin_mul_overflow(steps, rise, &scaled))
      throw invalid_request(
          leasehold::detail::describe("linear_moldability: the time for R = ", r, " overflows"));
    const std::int64_t extra =
        ceil_div(scaled, static_cast<std::int64_t>(r_max_) - static_cast<std::int64_t>(r_min_));
    return static_cast<T>(static_cast<std::int64_t>(t_min_) + extra);
  }

 private:
  /// Rounds toward +infinity for either sign of the numerator (the denominator is positive).
  static constexpr std::int64_t ceil_div(std::int64_t a, std::int64_t b) noexcept {
    return a / b + ((a % b > 0) ? 1 : 0);
  }
  C r_min_;
  C r_max_;
  T t_min_;
  T t_max_{};
};

/// f_mol with the work exactly constant: T(R) = ceil(W / R), i.e. perfect speed-up.
template <time_value T = std::int64_t, scalar_capacity C = std::int64_t>
struct constant_work {
  std::int64_t work;  ///< resource x ticks
  /// ceil(work / r): the duration on r resources.
  [[nodiscard]] constexpr T operator()(C r) const noexcept {
    const auto per = static_cast<std::int64_t>(r);
    return static_cast<T>(work / per + ((work % per > 0) ? 1 : 0));
  }
};

/// An allowed-R restriction: R = 2^x (Netto & Buyya §3.1, after Cirne & Berman).
struct powers_of_two {
  /// True when r is a positive power of two.
  template <class R>
  [[nodiscard]] constexpr bool operator()(R r) const noexcept {
    return r > R{} && (r & (r - 1)) == R{};
  }
};

/// Req(R_min, R_max, f_mol, D, B, Sp) of Netto & Buyya §3.1: a request that may run on between
/// R_min and R_max resources for f_mol(R) ticks each, be split at interruption points, and must
/// finish by its hard deadline within its budget. The scheduler checks it on submit and
/// rejects malformed ones as invalid_request.
template <time_value T = std::int64_t, scalar_capacity C = std::int64_t>
struct adaptive_request {
  /// The time type.
  using time_type = T;
  /// The resource count type.
  using capacity_type = C;

  /// The user's identifier, unique among the requests submitted.
  std::uint64_t id = 0;
  T submit{};                      ///< arrival; response time is measured from here
  C r_min{1};                      ///< R_min
  C r_max{1};                      ///< R_max
  std::function<T(C)> f_mol;       ///< R -> T, positive for every allowed R
  std::function<bool(C)> allowed;  ///< empty: every R in [R_min, R_max] is allowed
  T deadline = forever<T>;         ///< D, absolute: the request must complete by then
  double budget = std::numeric_limits<double>::infinity();  ///< B: the price never exceeds it
  split_spec split{};                                       ///< Sp
  double price_profile = 1.0;  ///< Table 1's price profile (1 or 3): a price multiplier

  /// Whether the user accepts interruption (N > 1), whether or not the scheduler splits it.
  [[nodiscard]] bool preemptive() const noexcept {
    return split.pieces > 1 && split.interval_percent < 100;
  }
  /// Whether more than one R is allowed.
  [[nodiscard]] bool moldable() const {
    int count = 0;
    for (C r = r_max; r >= r_min && r > C{} && count < 2; --r)
      if (!allowed || allowed(r)) ++count;
    return count > 1;
  }
};

/// A rigid request: R resources for T ticks, not splittable (the special case R_min = R_max,
/// N = 1 of §3.1).
template <time_value T = std::int64_t, scalar_capacity C = std::int64_t>
[[nodiscard]] adaptive_request<T, C> rigid(std::uint64_t id, T submit, C resources, T duration,
                                           T deadline = forever<T>) {
  adaptive_request<T, C> r;
  r.id = id;
  r.submit = submit;
  r.r_min = resources;
  r.r_max = resources;
  r.f_mol = fixed_time<T>{duration};
  r.deadline = deadline;
  return r;
}

}  // namespace leasehold::policy::adaptive
