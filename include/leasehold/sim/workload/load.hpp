#pragma once

/// \file
/// Load scaling: the papers raise a workload's load by submitting the same jobs faster
/// (Netto & Buyya §4.2: "increased frequency of submissions of 50 %"). scale_load divides
/// every submit time's distance from the first submit by `factor` (factor 1.5 = 50 % more
/// submissions per unit of time), rounding to the nearest tick. Everything tied to the
/// submit time moves with it: an advance reservation keeps its advance notice, a
/// withdrawal keeps its patience (withdraw - submit).

#include <cmath>
#include <cstdint>
#include <span>
#include <vector>

#include "leasehold/core/detail/checks.hpp"
#include "leasehold/core/lease_terms.hpp"
#include "leasehold/sim/workload/swf.hpp"

namespace leasehold::workload {

namespace detail {

inline void check_factor(double factor) {
  if (!(factor > 0) || !std::isfinite(factor))
    throw invalid_request(
        leasehold::detail::describe("scale_load factor ", factor, " must be positive"));
}

/// origin + (t - origin) / factor, to the nearest integer (one correctly rounded division
/// and std::llround: identical everywhere).
template <class T>
T scaled(T t, T origin, double factor) {
  return static_cast<T>(origin +
                        static_cast<T>(std::llround(static_cast<double>(t - origin) / factor)));
}

}  // namespace detail

/// Divides every submit time's distance from the earliest submit by `factor` (rounded to the
/// nearest tick), so factor 2 packs the same leases into half the time: twice the load.
/// Requested starts, start windows and withdrawal times move with their lease's submit.
/// Throws invalid_request for a factor that is not positive and finite. O(n).
template <time_value T>
void scale_load(std::span<lease_terms<T>> leases, double factor) {
  detail::check_factor(factor);
  if (leases.empty()) return;
  T origin = leases.front().submit;
  for (const auto& lease : leases) origin = std::min(origin, lease.submit);
  for (auto& lease : leases) {
    const T submit = detail::scaled(lease.submit, origin, factor);
    const T shift = submit - lease.submit;
    lease.submit = submit;
    if (lease.start) *lease.start += shift;
    if (lease.start_window) {
      lease.start_window->begin += shift;
      lease.start_window->end += shift;
    }
    if (lease.withdraw) *lease.withdraw += shift;
  }
}

/// The same over a vector of leases.
template <time_value T>
void scale_load(std::vector<lease_terms<T>>& leases, double factor) {
  scale_load(std::span<lease_terms<T>>(leases), factor);
}

/// The same for an SWF log (submit order is preserved since scaling is monotone).
inline void scale_load(swf::log& log, double factor) {
  detail::check_factor(factor);
  if (log.records.empty()) return;
  const std::int64_t origin = log.records.front().submit;
  for (auto& job : log.records) job.submit = detail::scaled(job.submit, origin, factor);
}

}  // namespace leasehold::workload
