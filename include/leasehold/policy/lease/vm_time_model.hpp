#pragma once

/// \file
/// The VM time model of the lease scheduler (Sotomayor, Keahey & Foster §3.1, §4.3): how long
/// suspending, resuming and migrating a lease's VMs take, and how much longer work takes
/// inside a VM. Free functions of the configuration, so that planning code and tools can ask
/// without a scheduler.

#include <cstdint>

#include "leasehold/core/time.hpp"
#include "leasehold/policy/lease/config.hpp"
#include "leasehold/policy/lease/lease_terms.hpp"

namespace leasehold::policy::lease {

/// Seconds to suspend / resume a VM of the lease's memory (m / H_w, m / H_r, §3.1).
template <time_value T, vector_capacity C>
[[nodiscard]] T suspend_time(const scheduler_config<T>& c, const lease_terms<T, C>& t) {
  if (c.suspend_time_fixed) return *c.suspend_time_fixed;
  return detail::transfer_time<T>(t.per_node[c.layout.memory], c.suspend_rate_mb_s);
}
/// Seconds to resume one of the lease's VMs: m / H_r, or resume_time_fixed when set.
template <time_value T, vector_capacity C>
[[nodiscard]] T resume_time(const scheduler_config<T>& c, const lease_terms<T, C>& t) {
  if (c.resume_time_fixed) return *c.resume_time_fixed;
  return detail::transfer_time<T>(t.per_node[c.layout.memory], c.resume_rate_mb_s);
}
/// Seconds to migrate the lease's image instance and memory state ((s_I + m) / B, §3.1).
template <time_value T, vector_capacity C>
[[nodiscard]] T migration_time(const scheduler_config<T>& c, const lease_terms<T, C>& t) {
  const std::int64_t image = t.image ? t.image->size_mb : 0;
  return detail::transfer_time<T>(image + t.per_node[c.layout.memory], c.network_mb_s);
}
/// Wall-clock time to do `work` seconds of computation: longer inside a VM (§4.3).
template <time_value T>
[[nodiscard]] T time_for(const scheduler_config<T>& c, T work) {
  if (!c.in_vms || c.runtime_slowdown_percent == 0) return work;
  const auto scale = static_cast<T>(100 + c.runtime_slowdown_percent);
  return static_cast<T>((work * scale + 99) / 100);
}
/// Work done in `elapsed` seconds of running: the inverse of time_for, rounded down.
template <time_value T>
[[nodiscard]] T work_of(const scheduler_config<T>& c, T elapsed) {
  if (!c.in_vms || c.runtime_slowdown_percent == 0) return elapsed;
  const auto scale = static_cast<T>(100 + c.runtime_slowdown_percent);
  return static_cast<T>(elapsed * 100 / scale);
}
/// Boot plus shutdown, added after a lease's last run in VMs (§4.3); per VM with
/// overhead_per_vm (Haizea enacts a lease's VMs one after another).
template <time_value T, vector_capacity C>
[[nodiscard]] T overhead(const scheduler_config<T>& c, const lease_terms<T, C>& t) {
  if (!c.in_vms) return T{0};
  return c.overhead_per_vm ? static_cast<T>(c.boot_shutdown * t.nodes) : c.boot_shutdown;
}
/// Wall-clock time an advance reservation's `work` seconds hold: the same unless
/// stretch_reservations (Haizea slows reservations in VMs down too, rounding down, or up with
/// stretch_rounds_up).
template <time_value T>
[[nodiscard]] T reservation_time_for(const scheduler_config<T>& c, T work) {
  if (!c.stretch_reservations || !c.in_vms || c.runtime_slowdown_percent == 0) return work;
  const auto scale = static_cast<T>(100 + c.runtime_slowdown_percent);
  return static_cast<T>((work * scale + (c.stretch_rounds_up ? 99 : 0)) / 100);
}

}  // namespace leasehold::policy::lease
