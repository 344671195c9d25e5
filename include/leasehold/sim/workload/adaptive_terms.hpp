#pragma once

/// \file
/// Adaptive resource allocation requests (Netto & Buyya, "Adaptive Resource Allocation
/// Requests", §3.1): Req(R_min, R_max, f_mol, D, B, Sp), and the decoration of a plain
/// workload with them as in the paper's Table 1:
///   R_min  = 80 % of R_max (rounded up); requests of up to 10 resources stay rigid
///            (R_min = R_max);
///   T_max  = T_min * R_max / R_min (rounded up), T_min being the request's duration;
///   f_mol  = k - c * R, linear between (R_max, T_min) and (R_min, T_max):
///            c = (T_max - T_min) / (R_max - R_min), k = T_min + R_max * c (c = 0, k = T_min
///            when rigid);
///   Sp     = (N, I, M) = (10, 10 %, true) for 20 % of the requests of at least one hour
///            ("requests less than 1 hour were not split"); the others are not preemptive;
///   price profile 1 for 80 % of the requests, 3 for 20 %;
///   B      = R_max * T_min (machine hours) * profile * 1 $ per machine hour;
///   D      = submit + T_min * DeadlineFactor (+ three days for profile 1), factor 5.
/// The paper's text says "60 %" where its Table 1 says 20 % preemptive; we follow the table
/// (preemptive_permille is a knob). The formulas that are the request's own (f_mol and
/// T_max: policy::adaptive::linear_moldability; Sp: policy::adaptive::split_spec) are the
/// policy layer's, written once there; request() hands the draws to policy::adaptive.

#include <algorithm>
#include <cstdint>
#include <optional>
#include <span>
#include <vector>

#include "leasehold/core/detail/checks.hpp"
#include "leasehold/core/lease_terms.hpp"
#include "leasehold/policy/adaptive/request.hpp"
#include "leasehold/sim/workload/random.hpp"

namespace leasehold::workload {

/// Sp = (N, I, M): the policy's split_spec (at most N parts, at multiples of I % of the
/// duration, each part moldable on its own when M).
using split_terms = policy::adaptive::split_spec;

/// One workload request decorated with the paper's adaptive terms (see the file's
/// description); request() gives the policy's adaptive_request.
template <time_value T = std::int64_t>
struct adaptive_terms {
  std::uint64_t id = 0;  ///< the lease's id
  T submit{};            ///< its submit time
  ///@{
  /// Resources: at least r_min, at most r_max.
  std::int64_t r_min = 1, r_max = 1;
  ///@}
  T t_min{};              ///< duration on r_max resources
  T t_max{};              ///< duration on r_min resources
  double c = 0;           ///< f_mol(R) = k - c * R (informative; duration_for computes exactly)
  double k = 0;           ///< f_mol(R) = k - c * R
  T deadline{};           ///< absolute: the request must finish by then
  double budget = 0;      ///< B: what the user pays at most
  int price_profile = 1;  ///< 1 or 3, the price multiplier of Table 1
  std::optional<split_terms> split;  ///< nullopt: not preemptive

  /// True when the request may run on fewer resources than r_max (r_min < r_max).
  [[nodiscard]] bool moldable() const noexcept { return r_min < r_max; }

  /// Table 1's f_mol: the line through (R_max, T_min) and (R_min, T_max).
  [[nodiscard]] policy::adaptive::linear_moldability<T> f_mol() const {
    return policy::adaptive::linear_moldability<T>(r_min, r_max, t_min);
  }

  /// f_mol(r) rounded up to a whole tick; r is clamped to [r_min, r_max].
  [[nodiscard]] T duration_for(std::int64_t r) const {
    return f_mol()(std::clamp(r, r_min, r_max));
  }

  /// The request the policy schedules: Req(R_min, R_max, f_mol, D, B, Sp) with these draws.
  [[nodiscard]] policy::adaptive::adaptive_request<T> request() const {
    policy::adaptive::adaptive_request<T> r;
    r.id = id;
    r.submit = submit;
    r.r_min = r_min;
    r.r_max = r_max;
    r.f_mol = f_mol();
    r.deadline = deadline;
    r.budget = budget;
    if (split) r.split = *split;
    r.price_profile = price_profile;
    return r;
  }

  /// Equal when every term is equal.
  friend bool operator==(const adaptive_terms&, const adaptive_terms&) = default;
};

/// The knobs of the decoration, Table 1's values by default.
struct adaptive_config {
  std::int64_t r_min_percent = 80;          ///< R_min as a percentage of R_max, rounded up
  std::int64_t rigid_up_to = 10;            ///< R_max <= this: R_min = R_max
  std::uint64_t preemptive_permille = 200;  ///< of the requests long enough to split
  std::int64_t min_split_duration = 3600;   ///< shorter requests are never split
  split_terms split{.pieces = 10, .interval_percent = 10, .moldable = true};  ///< Sp when split
  std::uint64_t profile3_permille = 200;     ///< the rest get profile 1
  std::int64_t deadline_factor = 5;          ///< D = submit + T_min x this (+ profile1_extra)
  std::int64_t profile1_extra = 3 * 86'400;  ///< added to profile 1 deadlines
  double price_per_machine_hour = 1.0;       ///< the price of one resource for one hour, $
};

namespace detail {
inline void check(const adaptive_config& c) {
  if (c.r_min_percent < 1 || c.r_min_percent > 100 || c.preemptive_permille > 1000 ||
      c.profile3_permille > 1000 || c.deadline_factor < 1 || c.profile1_extra < 0 ||
      c.split.pieces < 1 || c.split.interval_percent < 1 || c.split.interval_percent > 100 ||
      !(c.price_per_machine_hour >= 0))
    throw invalid_request(leasehold::detail::describe(
        "adaptive_config: r_min_percent ", c.r_min_percent, ", preemptive_permille ",
        c.preemptive_permille, ", profile3_permille ", c.profile3_permille, ", deadline_factor ",
        c.deadline_factor, ": out of range"));
}
}  // namespace detail

/// Decorates one request (R_max resources for T_min) with draws from `random`.
template <time_value T = std::int64_t>
[[nodiscard]] adaptive_terms<T> make_adaptive(std::uint64_t id, T submit, std::int64_t r_max,
                                              T t_min, const adaptive_config& config, rng& random) {
  detail::check(config);
  if (r_max < 1 || t_min < 1)
    throw invalid_request(leasehold::detail::describe("make_adaptive: request ", id, " with R_max ",
                                                      r_max, " and T_min ", t_min,
                                                      ": both must be positive"));
  adaptive_terms<T> terms;
  terms.id = id;
  terms.submit = submit;
  terms.r_max = r_max;
  terms.r_min = r_max <= config.rigid_up_to
                    ? r_max
                    : std::max<std::int64_t>(1, (r_max * config.r_min_percent + 99) / 100);
  terms.t_min = t_min;
  terms.t_max = terms.f_mol().t_max();
  if (terms.moldable()) {
    terms.c = static_cast<double>(terms.t_max - terms.t_min) /
              static_cast<double>(terms.r_max - terms.r_min);
    terms.k = static_cast<double>(terms.t_min) + static_cast<double>(terms.r_max) * terms.c;
  } else {
    terms.k = static_cast<double>(terms.t_min);
  }
  if (t_min >= config.min_split_duration && random.chance(config.preemptive_permille, 1000))
    terms.split = config.split;
  terms.price_profile = random.chance(config.profile3_permille, 1000) ? 3 : 1;
  terms.budget = static_cast<double>(r_max) * static_cast<double>(t_min) / 3600.0 *
                 terms.price_profile * config.price_per_machine_hour;
  terms.deadline = static_cast<T>(submit + t_min * config.deadline_factor +
                                  (terms.price_profile == 1 ? config.profile1_extra : 0));
  return terms;
}

/// Decorates every lease: R_max = its nodes, T_min = its (maximum) duration.
template <time_value T>
[[nodiscard]] std::vector<adaptive_terms<T>> decorate_adaptive(
    std::span<const lease_terms<T>> leases, const adaptive_config& config, std::uint64_t seed) {
  rng random(seed);
  std::vector<adaptive_terms<T>> terms;
  terms.reserve(leases.size());
  for (const auto& lease : leases)
    terms.push_back(
        make_adaptive<T>(lease.id, lease.submit, lease.nodes, lease.duration, config, random));
  return terms;
}

/// The same over a vector of leases.
template <time_value T>
[[nodiscard]] std::vector<adaptive_terms<T>> decorate_adaptive(
    const std::vector<lease_terms<T>>& leases, const adaptive_config& config, std::uint64_t seed) {
  return decorate_adaptive(std::span<const lease_terms<T>>(leases), config, seed);
}

}  // namespace leasehold::workload
