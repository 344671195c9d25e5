#pragma once

/// \file
/// policy::staging::naive_staging: the two naive staging strategies of Sotomayor, Keahey &
/// Foster, "Overhead Matters" (§4.2.1), as the preparation step of
/// policy::lease::lease_scheduler. The third strategy, Hybrid, books the link and is
/// image_staging with deadline_placement::as_early_as_possible (see staging_strategy).
///
///  - JIT starts a lease's transfers their estimated duration before its start; the estimate
///    (§3.2) uses the image size and the number of nodes: n x s_I / B, rounded up to a tick.
///  - Aggressive starts them when the lease is prepared (accepted).
///  - Best-effort leases (no start) have their transfers started when they are prepared, with
///    either strategy (Overhead Matters' ASAP workspaces).
///
/// Neither strategy looks at the link before accepting: ready_at answers `now` and the
/// scheduler admits by node capacity alone. Every instance is sent to its node (no template
/// cache); transfers share the link as processor sharing (shared_link), so transfers that
/// overlap take longer than estimated and a client may get less than the time it asked for
/// (client satisfaction, §5.1). ready(lease) says when the last of a lease's images arrives.
///
/// The policy never owns a clock: every call carries the caller's current time, which may
/// not go backwards. Times are integer ticks; a transfer under sharing may complete between
/// two ticks, and its image counts as there from the next whole tick (rounded up).

#include <algorithm>
#include <array>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <map>
#include <optional>
#include <ostream>
#include <span>
#include <string>
#include <vector>

#include "leasehold/core/detail/describe.hpp"
#include "leasehold/core/detail/enum_name.hpp"
#include "leasehold/core/error.hpp"
#include "leasehold/core/time.hpp"
#include "leasehold/policy/lease/lease_terms.hpp"
#include "leasehold/policy/lease/preparation.hpp"
#include "leasehold/policy/lease/preparation_features.hpp"
#include "leasehold/policy/staging/shared_link.hpp"

namespace leasehold::policy::staging {

/// The staging strategies of Overhead Matters §4.2.1. jit and aggressive are naive_staging;
/// hybrid is image_staging with {.reuse = false, .mechanism = transfer_mechanism::unicast,
/// .deadline_transfers = deadline_placement::as_early_as_possible}.
enum class staging_strategy { jit, aggressive, hybrid };

/// Writes "JIT", "Aggressive" or "Hybrid".
inline std::ostream& operator<<(std::ostream& out, staging_strategy s) {
  return leasehold::detail::write_enum_name(out, s, std::array{"JIT", "Aggressive", "Hybrid"});
}

/// The knobs of naive_staging.
struct naive_staging_config {
  double bandwidth_mb_s = 12.5;  ///< B: 100 Mb/s switched Ethernet, Overhead Matters §5
  staging_strategy strategy = staging_strategy::jit;  ///< jit or aggressive
};

/// JIT and Aggressive staging of Overhead Matters §4.2.1 as a preparation step: transfers start
/// at fixed times and share the link (shared_link), so bursts make them late (see the file's
/// description).
template <time_value T = std::int64_t>
class naive_staging {
 public:
  /// The lease scheduler's optional capabilities this step offers (preparation_features.hpp).
  static constexpr lease::preparation_features features =
      lease::preparation_feature::check_terms | lease::preparation_feature::node_count;
  /// The time type.
  using time_type = T;
  /// The lease terms it prepares.
  using terms_type = lease::lease_terms<T>;

  /// One image sent to one node.
  struct transfer {
    /// The lease it is for.
    std::uint64_t lease = 0;
    /// The destination node.
    std::size_t node = 0;
    /// The image's size, MB.
    std::int64_t size_mb = 0;
    /// When it starts on the link.
    T release{};
    /// When it has arrived (rounded up to a tick), given the transfers known now.
    T arrival{};
  };

  /// Staging for `nodes` nodes. Throws invalid_request for zero nodes, a bandwidth that is not
  /// a positive finite number, or the hybrid strategy (which books the link: image_staging).
  naive_staging(std::size_t nodes, naive_staging_config config = {}, T origin = 0)
      : config_(check(nodes, config)), nodes_(nodes), now_(origin) {}

  /// Its configuration.
  [[nodiscard]] const naive_staging_config& config() const noexcept { return config_; }
  /// The number of nodes it stages to.
  [[nodiscard]] std::size_t node_count() const noexcept { return nodes_; }

  /// Throws invalid_request for an image whose size is not positive.
  void check_terms(const terms_type& t) const {
    if (t.image && t.image->size_mb <= 0)
      throw invalid_request(leasehold::detail::describe("naive_staging: lease ", t.id, ": image ",
                                                        t.image->id, " has size ", t.image->size_mb,
                                                        " MB; sizes must be positive"));
  }

  /// The naive strategies do not plan the link: as far as they know, the image can be there now.
  [[nodiscard]] T ready_at(const terms_type& /*terms*/, std::size_t node, T now) const {
    check_node("ready_at", node);
    return now;
  }

  /// Starts (aggressive, best-effort) or schedules (JIT) one transfer per node. Throws
  /// invalid_request, changing nothing, for a node out of range, a lease already prepared, a
  /// time before the last call, or bad terms.
  void prepare(const terms_type& t, std::span<const std::size_t> nodes, T start, T now) {
    using leasehold::detail::describe;
    check_now("prepare", now);
    check_terms(t);
    for (std::size_t node : nodes) check_node("prepare", node);
    if (prepared_.contains(t.id))
      throw invalid_request(
          describe("naive_staging prepare: lease ", t.id, " is already prepared"));
    now_ = now;
    prepared_at_[t.id] = now;
    done_.erase(t.id);
    auto& mine = prepared_[t.id];
    if (!t.image) return;
    T release = now;
    if (config_.strategy == staging_strategy::jit && t.kind != lease::lease_kind::best_effort) {
      // §3.2: the estimated preparation overhead is n x s_I / B.
      const double estimate = static_cast<double>(nodes.size()) *
                              static_cast<double>(t.image->size_mb) / config_.bandwidth_mb_s;
      release = std::max(now, static_cast<T>(start - static_cast<T>(std::ceil(estimate))));
    }
    for (std::size_t node : nodes) {
      mine.push_back(transfers_.size());
      transfers_.push_back({t.id, node, t.image->size_mb, release, release});
    }
    project();
  }

  /// The lease no longer needs its images (it ended or was unscheduled): transfers that have
  /// not started by `now` are dropped; a transfer under way cannot be taken back and runs to
  /// its end (it keeps sharing the link). Throws invalid_request for a time before the last call.
  void cancel(std::uint64_t id, T now) {
    check_now("cancel", now);
    now_ = now;
    const auto it = prepared_.find(id);
    if (it == prepared_.end()) return;
    std::vector<std::size_t> kept;
    for (std::size_t k : it->second)
      if (transfers_[k].release <= now) kept.push_back(k);
    const bool dropped = kept.size() != it->second.size();
    std::erase_if(transfers_,
                  [&](const transfer& tr) { return tr.lease == id && tr.release > now; });
    done_[id] = std::move(kept);
    prepared_.erase(it);
    if (dropped) reindex();
    project();
  }

  /// When the last image of the lease's latest preparation arrives (or is projected to, given
  /// the transfers known now; final once it is <= the last call's time); the time it was
  /// prepared if it needed none; nullopt for a lease never prepared.
  [[nodiscard]] std::optional<T> ready(std::uint64_t id) const {
    const std::vector<std::size_t>* mine = nullptr;
    if (const auto it = prepared_.find(id); it != prepared_.end())
      mine = &it->second;
    else if (const auto d = done_.find(id); d != done_.end())
      mine = &d->second;
    if (mine == nullptr) return std::nullopt;
    T last = prepared_at_.at(id);
    for (std::size_t k : *mine) last = std::max(last, transfers_[k].arrival);
    return last;
  }

  /// Every transfer kept (started, or still to start), in the order they were prepared.
  [[nodiscard]] const std::vector<transfer>& transfers() const noexcept { return transfers_; }

 private:
  static const naive_staging_config& check(std::size_t nodes, const naive_staging_config& c) {
    using leasehold::detail::describe;
    if (nodes == 0) throw invalid_request("naive_staging: a cluster needs at least one node");
    if (!std::isfinite(c.bandwidth_mb_s) || c.bandwidth_mb_s <= 0.0)
      throw invalid_request(describe("naive_staging: bandwidth ", c.bandwidth_mb_s,
                                     " MB/s must be a positive number"));
    if (c.strategy == staging_strategy::hybrid)
      throw invalid_request(
          "naive_staging: Hybrid books the link; use image_staging with "
          "deadline_placement::as_early_as_possible");
    return c;
  }
  void check_node(const char* operation, std::size_t node) const {
    if (node >= nodes_)
      throw invalid_request(leasehold::detail::describe(
          "naive_staging ", operation, ": node ", node, " out of range (", nodes_, " nodes)"));
  }
  void check_now(const char* operation, T now) const {
    if (now < now_)
      throw invalid_request(leasehold::detail::describe(
          "naive_staging ", operation, " at ", now, ": time went backwards (it is at ", now_, ")"));
  }

  /// Transfer indices moved when dropped ones were erased: rebuild the per-lease lists.
  void reindex() {
    for (auto& [id, list] : prepared_) list.clear();
    for (auto& [id, list] : done_) list.clear();
    for (std::size_t k = 0; k < transfers_.size(); ++k) {
      const std::uint64_t lease = transfers_[k].lease;
      if (const auto it = prepared_.find(lease); it != prepared_.end())
        it->second.push_back(k);
      else
        done_[lease].push_back(k);
    }
  }

  /// Replays the known transfers on a processor-sharing link from their releases: a pure
  /// function of what is known, so a later preparation can only change arrivals after its own
  /// time (it adds transfers released no earlier than that).
  void project() {
    std::vector<std::size_t> order(transfers_.size());
    for (std::size_t k = 0; k < order.size(); ++k) order[k] = k;
    std::ranges::stable_sort(order, {}, [&](std::size_t k) { return transfers_[k].release; });
    if (order.empty()) return;
    shared_link link(config_.bandwidth_mb_s, static_cast<double>(transfers_[order[0]].release));
    auto arrived = [&](const auto& done) {
      for (const auto& [k, at] : done) transfers_[k].arrival = static_cast<T>(std::ceil(at - 1e-9));
    };
    for (std::size_t k : order) {
      arrived(link.advance_to(static_cast<double>(transfers_[k].release)));
      link.start(k, static_cast<double>(transfers_[k].size_mb));
    }
    while (const auto next = link.next_completion()) arrived(link.advance_to(*next));
  }

  naive_staging_config config_;
  std::size_t nodes_;
  T now_;
  std::vector<transfer> transfers_;
  std::map<std::uint64_t, std::vector<std::size_t>> prepared_;  ///< lease -> its transfers
  std::map<std::uint64_t, std::vector<std::size_t>> done_;      ///< cancelled leases' kept ones
  std::map<std::uint64_t, T> prepared_at_;
};

static_assert(lease::preparation<naive_staging<>, std::int64_t>,
              "naive_staging must model leasehold::policy::lease::preparation");

}  // namespace leasehold::policy::staging
