#pragma once

/// \file
/// sim::simulate_leases: the discrete-event simulation of Haizea §4.1. Lease submissions (and
/// withdrawals of leases their users cancel while waiting) are events in a time-ordered queue;
/// the scheduler's own events (segment begins and ends, premature ends) are asked for with
/// next_event_time(). At one instant the scheduler's events come first, then submissions in
/// workload order: the run is deterministic.

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <optional>
#include <type_traits>
#include <variant>
#include <vector>

#include "leasehold/core/lease_terms.hpp"
#include "leasehold/core/time.hpp"
#include "leasehold/sim/event_queue.hpp"

namespace leasehold::sim {

/// A user taking back a lease that has not started by `at` (SWF status 5 jobs). Leases whose
/// terms carry `withdraw` get one automatically.
template <time_value T = std::int64_t>
struct withdrawal {
  std::uint64_t id = 0;  ///< the lease withdrawn
  T at{};                ///< when
};

/// What a simulation run did, for reports and tests.
template <time_value T = std::int64_t>
struct simulation_stats {
  std::size_t submitted = 0;  ///< leases submitted to the scheduler
  std::size_t withdrawn = 0;  ///< withdrawals that took effect (the lease had not started)
  std::size_t steps = 0;      ///< calls into the scheduler
  T last_event{};             ///< the time of the last event handled
};

namespace detail {
/// A lease the scheduler has already finished and forgotten (scheduler_config::retire_finished):
/// withdrawing it is a no-op, as for any lease that has started.
template <class Scheduler>
[[nodiscard]] bool retired(const Scheduler& scheduler, std::uint64_t id) {
  if constexpr (requires { scheduler.config().retire_finished; })
    return scheduler.config().retire_finished && !scheduler.leases().contains(id);
  else
    return false;
}
}  // namespace detail

/// With retire_finished on, finished leases leave the scheduler during the run: take them in
/// `after_step` (scheduler.take_finished()), which sees every call.
/// Runs `leases` (any order; sorted here by submit time, stably) through `scheduler` until
/// nothing is left to happen. `after_step`, if given, is called after every call into the
/// scheduler with the time reached: tests check invariants there.
template <class Scheduler, time_value T = typename Scheduler::time_type,
          class Terms = typename Scheduler::terms_type>
simulation_stats<T> simulate_leases(
    Scheduler& scheduler, const std::vector<Terms>& leases,
    const std::vector<withdrawal<T>>& withdrawals = {},
    const std::type_identity_t<std::function<void(T)>>& after_step = {}) {
  using input = std::variant<const Terms*, withdrawal<T>>;
  event_queue<T, input> inputs;
  std::vector<const Terms*> ordered;
  ordered.reserve(leases.size());
  for (const auto& l : leases) ordered.push_back(&l);
  std::ranges::stable_sort(ordered, [](auto* a, auto* b) { return a->submit < b->submit; });
  for (auto* l : ordered) inputs.push(l->submit, l);
  for (auto* l : ordered)
    if (l->withdraw)
      inputs.push(std::max(*l->withdraw, l->submit),
                  withdrawal<T>{l->id, std::max(*l->withdraw, l->submit)});
  for (const auto& w : withdrawals) inputs.push(w.at, w);

  simulation_stats<T> stats;
  auto step = [&](T at) {
    ++stats.steps;
    stats.last_event = at;
    if (after_step) after_step(at);
  };
  while (true) {
    const std::optional<T> internal = scheduler.next_event_time();
    if (inputs.empty() && !internal) break;
    if (internal && (inputs.empty() || *internal < inputs.top().at)) {
      scheduler.advance_to(*internal);
      step(*internal);
      continue;
    }
    auto e = inputs.pop();
    if (const auto* terms = std::get_if<0>(&e.payload)) {
      (void)scheduler.submit(**terms, e.at);
      ++stats.submitted;
    } else {
      const auto& w = std::get<1>(e.payload);
      if (detail::retired(scheduler, w.id)) {
        scheduler.advance_to(e.at);  // as withdraw() would: the lease is over, nothing to take
      } else if (scheduler.withdraw(w.id, e.at)) {
        ++stats.withdrawn;
      }
    }
    step(e.at);
  }
  return stats;
}

}  // namespace leasehold::sim
