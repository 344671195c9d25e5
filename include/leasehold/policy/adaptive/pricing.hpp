#pragma once

/// \file
/// The provider's price for an allocation, P = omega(Req, T_s, Duration, R) of Netto & Buyya
/// §3.2. A pricing function here sees the request and its whole placement: for a single piece
/// that is exactly (T_s, Duration, R); for a split or per-piece moldable request it also sees
/// every piece, which omega's four arguments cannot describe. Any callable with the signature of
/// pricing_function can replace the default, algorithm2.

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <functional>

#include "leasehold/policy/adaptive/placement.hpp"
#include "leasehold/policy/adaptive/request.hpp"

namespace leasehold::policy::adaptive {

/// omega: the price of a request placed as `where`, as the scheduler asks it on acceptance
/// (and again after a rescheduling).
template <time_value T = std::int64_t, scalar_capacity C = std::int64_t>
using pricing_function =
    std::function<double(const adaptive_request<T, C>&, const placement<T, C>&)>;

/// T^min of Table 1: the execution time on the most resources the request allows (R_max, or
/// the largest allowed R below it). Throws invalid_request when no R is allowed.
template <time_value T, scalar_capacity C>
[[nodiscard]] T fastest_time(const adaptive_request<T, C>& req) {
  for (C r = req.r_max; r >= req.r_min && r > C{}; --r)
    if (!req.allowed || req.allowed(r)) return req.f_mol(r);
  throw invalid_request(leasehold::detail::describe("request ", req.id, ": no allowed R in [",
                                                    req.r_min, ", ", req.r_max, "]"));
}

/// Algorithm 2 of Netto & Buyya (§4.1):
///   T_c = T_s + Duration
///   PercentageBeforeDeadline = (T_c - T^min) / (D - T^min)
///   P = Duration * R
///   P = P - floor(PercentageBeforeDeadline * P * 0.6)
///   P = P * PriceProfile
///   if Req is preemptive: P = P - P * incentive
/// T^min and D are durations from the submission there, so the position is taken between the
/// earliest possible completion (submit + T^min) and the deadline, clamped to [0, 1]: a request
/// completing as early as it could pays in full, one completing at its deadline 40 % of it.
/// Duration * R is the booked work (summed over the pieces) priced at `price_per_resource_tick`
/// (Table 1: 1 $ per machine hour, with ticks in seconds). The result never exceeds the
/// request's budget B: the budget is "the maximum amount of money the user is willing to spend"
/// (§3.1), and Table 1's moldability line can give intermediate shapes slightly more work than
/// R_max x T^min.
struct algorithm2 {
  double incentive = 0.0;      ///< discount for preemptive requests (Fig. 7: 0..0.4)
  double max_reduction = 0.6;  ///< "up to 60 % of the original budget"
  /// The price of one resource for one tick: 1 $ per machine hour with ticks in seconds.
  double price_per_resource_tick = 1.0 / 3600;  // 1 $ per machine hour, ticks in seconds

  /// Algorithm 2's price of `req` placed as `where`.
  template <time_value T, scalar_capacity C>
  [[nodiscard]] double operator()(const adaptive_request<T, C>& req,
                                  const placement<T, C>& where) const {
    const double earliest =
        static_cast<double>(req.submit) + static_cast<double>(fastest_time(req));
    const double completion = static_cast<double>(where.completion());
    const double deadline = static_cast<double>(req.deadline);
    double position = 0.0;
    if (deadline > earliest)
      position = std::clamp((completion - earliest) / (deadline - earliest), 0.0, 1.0);
    double price = static_cast<double>(where.work()) * price_per_resource_tick;
    price -= std::floor(position * price * max_reduction);
    price *= req.price_profile;
    if (req.preemptive()) price -= price * incentive;
    return std::min(price, req.budget);
  }
};

}  // namespace leasehold::policy::adaptive
