#pragma once

/// \file
/// The order in which the lease scheduler serves its best-effort queue, as a customisation
/// point. Haizea serves the queue first come, first served (Sotomayor, Keahey & Foster §3.2);
/// a research prototype wants to try shortest-job-first or a priority function without
/// touching the scheduler, and keep backfilling as it is.
///
/// A queue order is a callable that gives each queued lease a key; the scheduler serves the
/// smallest key first, equal keys by submit time and then id (so a constant key is FIFO). It
/// asks for the keys afresh each time it plans the queue, with the current time, so a key may
/// age (a wait-time bonus) and a suspended lease's key may see the work it has left.

#include <cmath>
#include <concepts>
#include <cstdint>
#include <functional>
#include <type_traits>
#include <utility>

#include "leasehold/core/detail/describe.hpp"
#include "leasehold/core/error.hpp"
#include "leasehold/core/time.hpp"
#include "leasehold/policy/lease/lease_record.hpp"

namespace leasehold::policy::lease {

/// Requirements, and why:
///  - order(record, now) -> K, callable on a const order: the scheduler ranks every queued
///    lease when it plans, and must not change the order's state while doing so;
///  - K totally ordered (std::totally_ordered) and copyable: keys are sorted; a NaN key would
///    break the sort, so a floating-point NaN is rejected with an error when it is returned.
///   valid:   fifo_order; [](const lease_record<>& l, std::int64_t) { return l.terms.duration; }
///   invalid: [](const lease_record<>&) { return 0; } (it is not told the time)
/// C is the lease's per-node resource vector (node_resources unless the cluster has another).
template <class Q, class T, class C = node_resources>
concept queue_order = time_value<T> && vector_capacity<C> && std::copy_constructible<Q> &&
    requires(const Q& q, const lease_record<T, C>& l, T now) {
  { q(l, now) } -> std::totally_ordered;
};

/// The key type a queue order Q returns.
template <class Q, class T, class C = node_resources>
using queue_key_t = std::decay_t<std::invoke_result_t<const Q&, const lease_record<T, C>&, T>>;

/// First come, first served (Haizea §3.2): every lease has the same key, so the scheduler's
/// tie-break (submit time, then id) is the whole order. The default; the scheduler recognises
/// it and skips ranking altogether.
struct fifo_order {
  /// The same key, 0, for every lease.
  template <time_value T, vector_capacity C>
  [[nodiscard]] constexpr int operator()(const lease_record<T, C>& /*lease*/,
                                         T /*now*/) const noexcept {
    return 0;
  }
};

/// A queue order chosen at run time (a command-line switch, or a Python callable through the
/// bindings): any callable returning a double, behind std::function.
template <time_value T = std::int64_t, vector_capacity C = node_resources>
struct queue_order_function {
  /// The key: smaller keys are served first, equal keys FIFO.
  std::function<double(const lease_record<T, C>&, T)> key;

  /// key(lease, now); 0 for an empty key (FIFO).
  [[nodiscard]] double operator()(const lease_record<T, C>& lease, T now) const {
    if (!key) return 0.0;  // an empty function: FIFO
    return key(lease, now);
  }
};

static_assert(queue_order<fifo_order, std::int64_t>, "fifo_order must model queue_order");
static_assert(queue_order<queue_order_function<>, std::int64_t>,
              "queue_order_function must model queue_order");

namespace detail {
/// A key the scheduler can sort by; NaN (from a user's floating-point formula) cannot be. `what`
/// names the customisation point ("queue order", "node choice").
template <class K>
void check_sort_key(const char* what, const K& key, std::uint64_t id) {
  if constexpr (std::floating_point<K>) {
    if (std::isnan(key))
      throw invalid_request(leasehold::detail::describe(what, ": the key for lease ", id,
                                                        " is NaN; keys must be ordered numbers"));
  }
}
}  // namespace detail

}  // namespace leasehold::policy::lease
