#pragma once

// A random adaptive request of every kind the scheduler takes (Netto & Buyya §3.1): rigid or
// moldable, with fixed-time, linear, constant-work or non-monotone f_mol, power-of-two shapes,
// preemptive splits, tight or loose deadlines, a higher price profile now and then. Shared by
// the invariant runs and the allocation-failure sweep, so both see the same workload.

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <random>

#include <leasehold/policy/adaptive/request.hpp>

namespace leasehold::testing {

namespace adaptive = ::leasehold::policy::adaptive;

template <class T, class C>
adaptive::adaptive_request<T, C> random_request(std::mt19937_64& rng, std::uint64_t id, T now,
                                                C cluster) {
  const auto pick = [&rng](std::int64_t low, std::int64_t high) {
    return std::uniform_int_distribution<std::int64_t>(low, high)(rng);
  };
  adaptive::adaptive_request<T, C> r;
  r.id = id;
  r.submit = now;
  r.r_max = C(pick(1, cluster));
  r.r_min = C(pick(std::max<std::int64_t>(1, r.r_max / 2), r.r_max));
  const T t_min = T(pick(1, 60));
  switch (pick(0, 3)) {
    case 0:
      r.f_mol = adaptive::fixed_time<T>{t_min};
      break;
    case 1:
      r.f_mol = adaptive::linear_moldability<T, C>(r.r_min, r.r_max, t_min);
      break;
    case 2:
      r.f_mol = adaptive::constant_work<T, C>{static_cast<std::int64_t>(t_min) * r.r_max};
      break;
    default:
      // Not monotone: more resources may run longer. Placement must still be exact.
      r.f_mol = [t_min](C resources) { return T(t_min + (resources % 3) * 7); };
      break;
  }
  if (pick(0, 4) == 0) {
    r.allowed = adaptive::powers_of_two{};
    r.r_min = C(1);
  }
  if (pick(0, 1) == 0) {
    constexpr int intervals[] = {10, 20, 25, 33, 50, 100};
    r.split = {.pieces = static_cast<std::size_t>(pick(2, 6)),
               .interval_percent = intervals[pick(0, 5)],
               .moldable = pick(0, 1) == 0};
    if (pick(0, 5) == 0) r.split.pieces = adaptive::unlimited_pieces;
  }
  r.deadline = T(now + t_min * pick(1, 6) + pick(0, 200));
  r.price_profile = pick(0, 4) == 0 ? 3.0 : 1.0;
  return r;
}

}  // namespace leasehold::testing
