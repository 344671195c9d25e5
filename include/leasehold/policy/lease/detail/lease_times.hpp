#pragma once

// The lease scheduler's VM time model (Sotomayor, Keahey & Foster §3.1, §4.3): the free
// functions of vm_time_model.hpp under one scheduler's configuration, and what follows from
// them for a lease's bookings (what it books per node, how long a reservation holds its nodes,
// when a booked segment really ends). A component of its own so that admission, planning and
// the clock ask one place, and so that it can be tested on a configuration alone: it reads the
// configuration and a node's capacity, nothing else of the scheduler.

#include <algorithm>
#include <optional>

#include "leasehold/core/capacity.hpp"
#include "leasehold/policy/lease/config.hpp"
#include "leasehold/policy/lease/lease_record.hpp"
#include "leasehold/policy/lease/lease_terms.hpp"
#include "leasehold/policy/lease/vm_time_model.hpp"

namespace leasehold::policy::lease::detail {

template <class T, class C>
class lease_times {
 public:
  using time_type = T;
  using capacity_type = C;
  using config_type = scheduler_config<T>;
  using terms_type = lease_terms<T, C>;
  using record_type = lease_record<T, C>;
  using segment_type = segment<T, C>;

  // `config` is read where it lives (it must outlive this object); `node_total` is one node's
  // whole capacity, which says whether the nodes have a disk to book (models_disk()).
  lease_times(const config_type& config, const C& node_total) noexcept
      : config_(&config), node_total_(node_total) {}

  [[nodiscard]] T suspend_time(const terms_type& t) const {
    return lease::suspend_time(*config_, t);
  }
  [[nodiscard]] T resume_time(const terms_type& t) const { return lease::resume_time(*config_, t); }
  [[nodiscard]] T migration_time(const terms_type& t) const {
    return lease::migration_time(*config_, t);
  }
  [[nodiscard]] T time_for(T work) const { return lease::time_for(*config_, work); }
  [[nodiscard]] T work_of(T elapsed) const { return lease::work_of(*config_, elapsed); }
  [[nodiscard]] T overhead(const terms_type& t) const { return lease::overhead(*config_, t); }
  // What a segment booked to end in a suspension keeps after its run: the suspension, or the
  // shutdown if that is longer, so that a lease whose work ends in the run still shuts down
  // inside its booking (and a run cut short never holds all of the lease's remaining work).
  // With shutdown_after_early_end off (Haizea's choice) a lease ending early frees its nodes
  // at once: the suspension alone, as Haizea books it.
  [[nodiscard]] T suspension_tail(const terms_type& t) const {
    const T shutdown = config_->shutdown_after_early_end ? overhead(t) : T{0};
    return std::max(suspend_time(t), shutdown);
  }
  [[nodiscard]] T reservation_time_for(T work) const {
    return lease::reservation_time_for(*config_, work);
  }
  // Wall-clock time `work` seconds of the lease take: slowed down in VMs for best effort (and
  // for reservations with stretch_reservations).
  [[nodiscard]] T wall_time(const record_type& l, T work) const {
    return l.is_best_effort() ? time_for(work) : reservation_time_for(work);
  }
  // How long an advance reservation or immediate lease holds its nodes: its (stretched)
  // duration, plus its shutdown unless that falls inside (reservation_overhead_inside).
  [[nodiscard]] T reservation_length(const terms_type& t) const {
    const T held = reservation_time_for(t.duration);
    return config_->reservation_overhead_inside ? held : static_cast<T>(held + overhead(t));
  }

  [[nodiscard]] bool may_suspend(const terms_type& t) const {
    return t.kind == lease_kind::best_effort && t.preemptible &&
           config_->suspend == suspension::all;
  }
  // The resource vector a lease books per node: its own, plus room for its memory state
  // when it may be suspended (§3.2).
  [[nodiscard]] C booked_vector(const terms_type& t) const {
    C v = t.per_node;
    if (may_suspend(t) && config_->reserve_disk_for_memory_state && models_disk())
      v[*config_->layout.disk] += t.per_node[config_->layout.memory];
    return v;
  }
  // Whether the nodes have a disk to book: a disk component in the layout, with capacity. A
  // cluster whose disk component is 0 (Haizea's sites of CPU and memory only) models none, so
  // nothing is booked on it for memory state or migrations.
  [[nodiscard]] bool models_disk() const {
    return config_->layout.disk && node_total_[*config_->layout.disk] > 0;
  }
  // What a transfer_first migration holds on each destination node: disk for the image
  // instance and the memory state (s_I + m MB), or nothing when the nodes have no disk.
  [[nodiscard]] std::optional<C> transfer_vector(const terms_type& t) const {
    if (!models_disk()) return std::nullopt;
    C v{};
    v[*config_->layout.disk] = static_cast<typename C::value_type>(
        t.per_node[config_->layout.memory] + (t.image ? t.image->size_mb : 0));
    if (!is_positive(v)) return std::nullopt;
    return v;
  }
  // suspend_thresholds_per_state (Haizea's paper-era code): how long a window that ends in a
  // suspension must exceed for a lease that starts afresh after `preparation` seconds of
  // image preparation, or that resumes.
  [[nodiscard]] T suspend_threshold(const terms_type& t, bool resumes, T preparation) const {
    const T suspend = suspend_time(t);
    if (!resumes) return static_cast<T>(2 * (overhead(t) + preparation + suspend));
    if (config_->migrate == migration::allowed)
      return static_cast<T>(2 * (migration_time(t) + 2 * suspend));
    return static_cast<T>(2 * 2 * suspend);
  }

  // When the segment really ends, and whether the lease ends with it. Best-effort work is
  // slowed down inside VMs; an advance reservation holds wall-clock time.
  void settle_finish(const record_type& l, segment_type& seg) const {
    const auto real_end = static_cast<T>(seg.run.begin + wall_time(l, l.remaining_real));
    // A lease that ends before its maximum shuts down first, unless Haizea's choice frees its
    // nodes at once (shutdown_after_early_end off).
    const T shutdown =
        real_end < seg.run.end && !config_->shutdown_after_early_end ? 0 : overhead(l.terms);
    if (!seg.suspends) {
      seg.completes = true;
      seg.finish =
          std::min(static_cast<T>(std::min(real_end, seg.run.end) + shutdown), seg.booked.end);
    } else if (real_end <= seg.run.end) {
      seg.completes = true;
      seg.finish = std::min(static_cast<T>(real_end + shutdown), seg.booked.end);
    } else {
      seg.completes = false;
      seg.finish = seg.booked.end;
    }
  }

 private:
  const config_type* config_;
  C node_total_;
};

}  // namespace leasehold::policy::lease::detail
