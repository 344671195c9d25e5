#pragma once

/// \file
/// The image repository's outgoing link as an availability over bandwidth (Sotomayor, Keahey
/// & Foster, §3.2: "the slot table includes the image repository, so that the bandwidth
/// required for image transfers from the repository to nodes can be accounted for").
///
/// Capacity is the link's bandwidth in kB/s (1 MB = 1024 kB, the papers' image sizes), an
/// integer so that every availability backend compares block boundaries exactly. A transfer
/// of s_I MB uses the whole link for ceil(s_I / B) seconds (§3.1): a multicast reaches every
/// destination node in that time, a unicast is one such transfer per node. Overhead Matters
/// (§4.2.1, Hybrid) likewise books a resource slot on the link for each transfer.

#include <cmath>
#include <concepts>
#include <cstdint>
#include <limits>
#include <optional>
#include <utility>

#include "leasehold/availability/concept.hpp"
#include "leasehold/availability/free_list.hpp"
#include "leasehold/availability/latest_fit.hpp"
#include "leasehold/core/detail/checks.hpp"
#include "leasehold/core/error.hpp"
#include "leasehold/core/request.hpp"
#include "leasehold/core/time.hpp"

namespace leasehold::policy::staging {

/// A profile that can be a repository link's: an availability of whole KB/s (std::int64_t).
template <class A>
concept link_profile = availability<A> && std::same_as<typename A::capacity_type, std::int64_t>;

/// The image repository's outgoing link as an availability profile over bandwidth in kB/s:
/// a transfer books the whole link (see the file's description).
template <link_profile A = free_list<std::int64_t, std::int64_t>>
class repository_link {
 public:
  /// The profile's time type.
  using time_type = typename A::time_type;
  /// The availability profile over kB/s.
  using profile_type = A;

  /// A link of `bandwidth_mb_s` MB/s. Throws invalid_request for a bandwidth that is not a
  /// positive finite number of at least 1 kB/s.
  explicit repository_link(double bandwidth_mb_s, time_type origin = 0)
      : bandwidth_kb_s_(checked_bandwidth(bandwidth_mb_s)), profile_(bandwidth_kb_s_, origin) {}

  /// A link of `bandwidth_mb_s` MB/s whose bookings are those of `profile` (as profile() gave
  /// it: restoring a saved link). Throws invalid_request when the profile's total is not the
  /// bandwidth in kB/s, or the profile holds part of the link rather than all of it.
  repository_link(double bandwidth_mb_s, A profile)
      : bandwidth_kb_s_(checked_bandwidth(bandwidth_mb_s)), profile_(std::move(profile)) {
    if (profile_.total() != bandwidth_kb_s_)
      throw invalid_request(
          leasehold::detail::describe("repository_link: the profile's total ", profile_.total(),
                                      " kB/s is not the bandwidth ", bandwidth_kb_s_, " kB/s"));
    for (const auto& block : profile_.free_blocks())
      if (block.free != 0 && block.free != bandwidth_kb_s_)
        throw invalid_request(leasehold::detail::describe("repository_link: ", block.free,
                                                          " kB/s free over ", block.span,
                                                          ": a transfer holds the whole link"));
  }

  /// The bandwidth, kB/s (the profile's total).
  [[nodiscard]] std::int64_t bandwidth_kb_s() const noexcept { return bandwidth_kb_s_; }
  /// The bandwidth, MB/s.
  [[nodiscard]] double bandwidth_mb_s() const noexcept {
    return static_cast<double>(bandwidth_kb_s_) / 1024.0;
  }
  /// The profile, read-only.
  [[nodiscard]] const A& profile() const noexcept { return profile_; }
  /// The profile's origin.
  [[nodiscard]] time_type origin() const { return profile_.origin(); }

  /// Seconds, rounded up, to move `size_mb` over the whole link.
  [[nodiscard]] time_type transfer_time(std::int64_t size_mb) const {
    if (size_mb <= 0)
      throw invalid_request(leasehold::detail::describe("repository_link: transfer of ", size_mb,
                                                        " MB; an image size must be positive"));
    if (size_mb > std::numeric_limits<std::int64_t>::max() / 1024)
      throw invalid_request(
          leasehold::detail::describe("repository_link: transfer of ", size_mb, " MB overflows"));
    const std::int64_t kb = size_mb * 1024;
    return static_cast<time_type>((kb + bandwidth_kb_s_ - 1) / bandwidth_kb_s_);
  }

  /// The earliest [s, s + duration) with the whole link free, s >= from, ending by `deadline`.
  [[nodiscard]] std::optional<interval<time_type>> earliest(
      time_type duration, time_type from, time_type deadline = forever<time_type>) const {
    const time_type first = std::max(from, profile_.origin());
    if (deadline < first || deadline - first < duration) return std::nullopt;
    const auto s = profile_.earliest_fit({bandwidth_kb_s_, duration, {first, deadline}});
    if (!s) return std::nullopt;
    return interval<time_type>{*s, static_cast<time_type>(*s + duration)};
  }

  /// The latest such span: EDF transfers "as close as possible to the deadline" (§3.2).
  [[nodiscard]] std::optional<interval<time_type>> latest(time_type duration, time_type from,
                                                          time_type deadline) const {
    const time_type first = std::max(from, profile_.origin());
    if (deadline < first || deadline - first < duration) return std::nullopt;
    const auto s = leasehold::latest_fit(profile_, {bandwidth_kb_s_, duration, {first, deadline}});
    if (!s) return std::nullopt;
    return interval<time_type>{*s, static_cast<time_type>(*s + duration)};
  }

  /// True when the whole link is free over span.
  [[nodiscard]] bool is_free(interval<time_type> span) const {
    return profile_.min_free(span) == bandwidth_kb_s_;
  }

  /// Books the whole link over span; throws insufficient_capacity (changing nothing) when any
  /// of it is taken.
  void book(interval<time_type> span) { profile_.reserve(span, bandwidth_kb_s_); }
  /// Gives the whole link back over span, the reverse of book; invalid_release (changing
  /// nothing) when it was not booked throughout.
  void release(interval<time_type> span) { profile_.release(span, bandwidth_kb_s_); }
  /// Moves the profile's origin forward to t; a t not after the origin does nothing.
  void advance_to(time_type t) {
    if (t > profile_.origin()) profile_.advance_to(t);
  }

 private:
  static std::int64_t checked_bandwidth(double mb_s) {
    if (!std::isfinite(mb_s) || mb_s * 1024.0 < 1.0 || mb_s * 1024.0 > 1e15)
      throw invalid_request(
          leasehold::detail::describe("repository_link: bandwidth ", mb_s,
                                      " MB/s must be a positive number (at least 1 kB/s)"));
    return static_cast<std::int64_t>(std::llround(mb_s * 1024.0));
  }

  std::int64_t bandwidth_kb_s_;
  A profile_;
};

}  // namespace leasehold::policy::staging
