#pragma once

// Validating a request and listing its shapes, the (R, f_mol(R)) pairs Algorithm 1 tries from
// R_max down to R_min. Everything the scheduler needs from f_mol is computed here, once, before
// anything changes: a request rejected as malformed leaves the scheduler untouched.

#include <cstdint>
#include <limits>
#include <vector>

#include "leasehold/core/detail/checks.hpp"
#include "leasehold/core/error.hpp"
#include "leasehold/policy/adaptive/request.hpp"

namespace leasehold::policy::adaptive::detail {

using leasehold::detail::describe;

template <time_value T, scalar_capacity C>
struct shape {
  C resource_count;
  T duration;  // f_mol(resources)
};

// The shapes of `req` on a cluster of `total` resources, R descending. Throws invalid_request,
// naming the offending value, for R_min <= 0, R_min > R_max, R_max above the cluster, no
// allowed R, an empty f_mol or one returning a non-positive time, N = 0, I outside 1..100, a
// deadline before the submission, a negative or NaN budget, a non-positive price profile.
template <time_value T, scalar_capacity C>
[[nodiscard]] std::vector<shape<T, C>> shapes_of(const adaptive_request<T, C>& req, C total) {
  const auto fail = [&req](const auto&... parts) {
    throw invalid_request(describe("adaptive request ", req.id, ": ", parts...));
  };
  if (req.r_min <= C{}) fail("R_min ", req.r_min, " must be positive");
  if (req.r_min > req.r_max) fail("R_min ", req.r_min, " exceeds R_max ", req.r_max);
  if (req.r_max > total) fail("R_max ", req.r_max, " exceeds the cluster's ", total, " resources");
  if (!req.f_mol) fail("f_mol is empty");
  if (req.split.pieces == 0) fail("N = 0 sub-requests; N must be at least 1");
  if (req.split.interval_percent < 1 || req.split.interval_percent > 100)
    fail("split interval I = ", req.split.interval_percent, " % must be in 1..100");
  if (req.deadline <= req.submit)
    fail("deadline ", req.deadline, " is not after the submission ", req.submit);
  if (!(req.budget >= 0.0)) fail("budget ", req.budget, " must be non-negative");
  if (!(req.price_profile > 0.0)) fail("price profile ", req.price_profile, " must be positive");

  std::vector<shape<T, C>> shapes;
  for (C r = req.r_max; r >= req.r_min; --r) {
    if (req.allowed && !req.allowed(r)) continue;
    const T duration = req.f_mol(r);
    if (duration <= T{}) fail("f_mol(", r, ") = ", duration, " is not a positive time");
    shapes.push_back({r, duration});
  }
  if (shapes.empty()) fail("no allowed R in [", req.r_min, ", ", req.r_max, "]");
  return shapes;
}

}  // namespace leasehold::policy::adaptive::detail
