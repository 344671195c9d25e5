#pragma once

// EDF placement of deadline-driven transfers on the repository link, shared by the Haizea
// preparation step (image_staging) and the Overhead Matters workspace simulation. The
// transfers not yet started are taken off the link and every job is placed again:
//  - as late as possible (Haizea §3.2): by decreasing deadline, each in the latest free slot
//    ending by its deadline, so transfers stack back to back right before their deadlines;
//  - as early as possible (Overhead Matters' Hybrid): by increasing deadline, each in the
//    earliest free slot from now, using idle network time.
// Ties between equal deadlines go by `order` (older first in time).

#include <algorithm>
#include <cstdint>
#include <vector>

#include "leasehold/core/time.hpp"
#include "leasehold/policy/staging/config.hpp"

namespace leasehold::policy::staging::detail {

template <time_value T>
struct edf_job {
  std::uint64_t transfer = 0;  // an existing transfer (placed holds its span), or 0: new
  T duration{};
  T deadline{};
  std::uint64_t order = 0;
  interval<T> placed{};
};

// False, with `link` in an unspecified state (callers place on a copy), when a job does not
// fit before its deadline.
template <class Link, time_value T>
[[nodiscard]] bool place_edf(Link& link, std::vector<edf_job<T>>& jobs, T now,
                             deadline_placement mode) {
  for (const auto& j : jobs)
    if (j.transfer != 0) link.release(j.placed);
  const bool late = mode == deadline_placement::as_late_as_possible;
  std::ranges::sort(jobs, [late](const edf_job<T>& a, const edf_job<T>& b) {
    if (a.deadline != b.deadline) return late ? a.deadline > b.deadline : a.deadline < b.deadline;
    return late ? a.order > b.order : a.order < b.order;
  });
  for (auto& j : jobs) {
    const auto slot = late ? link.latest(j.duration, now, j.deadline)
                           : link.earliest(j.duration, now, j.deadline);
    if (!slot) return false;
    link.book(*slot);
    j.placed = *slot;
  }
  return true;
}

}  // namespace leasehold::policy::staging::detail
