#pragma once

/// \file
/// The optional capabilities of a preparation step, each a named concept, and a way for a step
/// to declare the ones it means to offer. The lease scheduler uses a capability only through
/// offers<P, T, C>(feature). Why declared, not only detected: a member that is misspelt, or
/// has a parameter of the wrong type, makes a detection probe quietly false, and the scheduler
/// then behaves as if the step did not have it (a lead time never honoured, a staging step
/// copied per call instead of journaled). A step that declares `features` gets a compile error
/// naming each declared capability its members do not provide (check_declared_features), and
/// the scheduler uses exactly what it declared. A step that declares nothing is detected, as
/// before, so user-written steps keep working unchanged.

#include <array>
#include <concepts>
#include <cstddef>
#include <cstdint>
#include <span>
#include <utility>

#include "leasehold/core/time.hpp"
#include "leasehold/policy/lease/lease_terms.hpp"
#include "leasehold/policy/lease/preparation.hpp"

namespace leasehold::policy::lease {

/// check_terms(terms): throws a leasehold::error for terms the step cannot serve (an unknown
/// image); the scheduler turns it into invalid_lease before changing anything.
///   valid:   staging::image_staging<>, staging::naive_staging<>
///   invalid: images_predeployed
template <class P, class T, class C = node_resources>
concept checking_preparation = requires(const P& cp, const lease_terms<T, C>& terms) {
  cp.check_terms(terms);
};

/// prepare(terms, nodes, booked, now) with `booked` the whole interval the lease holds,
/// preferred over the start-only form (a private image copy can be freed at its end).
///   valid:   staging::image_staging<>
///   invalid: staging::naive_staging<> (start only)
template <class P, class T, class C = node_resources>
concept interval_preparation = requires(P& p, const lease_terms<T, C>& terms,
                                        std::span<const std::size_t> nodes, interval<T> booked,
                                        T now) {
  p.prepare(terms, nodes, booked, now);
};

/// `P::always_ready` is true: every lease's image is on every node now, so the scheduler skips
/// the per-node ready times altogether.
///   valid:   images_predeployed
///   invalid: staging::image_staging<>
template <class P>
concept always_ready_preparation = requires {
  requires P::always_ready;
};

/// lead_time(terms, now) -> T: how long a best-effort lease starting as soon as possible waits
/// for its preparation at most; the scheduler treats such a lease as starting now rather than
/// as a future reservation.
///   valid:   staging::image_staging<>
///   invalid: images_predeployed
template <class P, class T, class C = node_resources>
concept lead_time_preparation = requires(const P& cp, const lease_terms<T, C>& terms, T now) {
  { cp.lead_time(terms, now) } -> std::same_as<T>;
};

/// node_count(): the nodes the step was made for; the scheduler refuses a step made for
/// another cluster than its slot table's.
///   valid:   staging::image_staging<>, staging::naive_staging<>
///   invalid: images_predeployed
template <class P>
concept sized_preparation = requires(const P& cp) {
  { cp.node_count() } -> std::convertible_to<std::size_t>;
};

/// take_finished_transfers(): hands out the work that has finished and forgets it; a scheduler
/// that retires finished leases (scheduler_config::retire_finished) calls it after each call,
/// so that the step's memory follows the live leases too.
///   valid:   staging::image_staging<>
///   invalid: images_predeployed
template <class P>
concept history_taking_preparation = requires(P& p) {
  p.take_finished_transfers();
};

/// The optional capabilities, one bit each. A step declares those it offers as
/// `static constexpr preparation_features features = ...;`.
enum class preparation_feature : std::uint32_t {
  always_ready = 1u << 0,      ///< always_ready_preparation
  check_terms = 1u << 1,       ///< checking_preparation
  interval_prepare = 1u << 2,  ///< interval_preparation
  lead_time = 1u << 3,         ///< lead_time_preparation
  node_count = 1u << 4,        ///< sized_preparation
  reservations = 1u << 5,      ///< reservation_preparation
  transfer_events = 1u << 6,   ///< transfer_reporting_preparation
  transactions = 1u << 7,      ///< transactional_preparation
  take_finished = 1u << 8,     ///< history_taking_preparation
};

/// The number of preparation_feature enumerators (bits 0 to preparation_feature_count - 1).
inline constexpr std::uint32_t preparation_feature_count = 9;

/// A set of preparation_feature bits.
struct preparation_features {
  std::uint32_t bits = 0;  ///< one bit per preparation_feature

  /// Whether `f` is in the set.
  [[nodiscard]] constexpr bool has(preparation_feature f) const noexcept {
    return (bits & static_cast<std::uint32_t>(f)) != 0;
  }
  /// The set with `f` added.
  friend constexpr preparation_features operator|(preparation_features s,
                                                  preparation_feature f) noexcept {
    return {s.bits | static_cast<std::uint32_t>(f)};
  }
};

/// The set holding `a` and `b`.
constexpr preparation_features operator|(preparation_feature a, preparation_feature b) noexcept {
  return preparation_features{} | a | b;
}

/// Whether P declares its capabilities (a static member `features` of type
/// preparation_features).
template <class P>
concept declares_preparation_features = requires {
  { P::features } -> std::convertible_to<preparation_features>;
};

/// Whether P provides the members of capability `f` (detection, whatever P declares).
template <class P, class T, class C>
[[nodiscard]] constexpr bool provides(preparation_feature f) {
  // One entry per bit of preparation_feature, in the enumerators' order.
  constexpr std::array provided{always_ready_preparation<P>,
                                checking_preparation<P, T, C>,
                                interval_preparation<P, T, C>,
                                lead_time_preparation<P, T, C>,
                                sized_preparation<P>,
                                reservation_preparation<P, T, C>,
                                transfer_reporting_preparation<P, T, C>,
                                transactional_preparation<P>,
                                history_taking_preparation<P>};
  static_assert(provided.size() == preparation_feature_count &&
                    std::uint32_t{1} << (provided.size() - 1) ==
                        static_cast<std::uint32_t>(preparation_feature::take_finished),
                "a new preparation_feature needs its entry here and in preparation_feature_count");
  const auto bit = static_cast<std::uint32_t>(f);
  for (std::size_t i = 0; i < provided.size(); ++i)
    if (bit == (std::uint32_t{1} << i)) return provided[i];
  return false;
}

/// Whether the scheduler uses capability `f` of P: what P declares if it declares, else what
/// it provides.
template <class P, class T, class C>
[[nodiscard]] constexpr bool offers(preparation_feature f) {
  if constexpr (declares_preparation_features<P>)
    return preparation_features{P::features}.has(f);
  else
    return provides<P, T, C>(f);
}

/// Whether every capability P declares is provided by its members (true for a step that
/// declares nothing). The lease scheduler asserts it, one capability at a time, so that the
/// error names what is missing.
template <class P, class T, class C>
[[nodiscard]] constexpr bool declared_as_provided(preparation_feature f) {
  return !offers<P, T, C>(f) || provides<P, T, C>(f);
}

/// The check of one capability F of P's declaration: instantiated for every capability, so
/// that when P declares F without providing its members, the compiler's instantiation trace
/// names F (`declared_capability<preparation_feature::lead_time, P, ...>`), and the
/// enumerator's comment names the concept that lists the members F needs.
template <preparation_feature F, class P, class T, class C>
struct declared_capability {
  static_assert(declared_as_provided<P, T, C>(F),
                "the Preparation declares the capability F of declared_capability<F, P, T, C> but "
                "does not provide its members (see the concept named by F's comment in "
                "preparation_feature)");
  /// Always true: the assertion above did the checking.
  static constexpr bool value = true;
};

/// Compile-time check of a step's declaration, one capability at a time (declared_capability).
/// Instantiated by the lease scheduler for its Preparation.
template <class P, class T, class C>
struct check_declared_features {
  /// Always true: each capability's check asserts on its own.
  static constexpr bool value =
      []<std::uint32_t... Bit>(std::integer_sequence<std::uint32_t, Bit...>) {
    return (declared_capability<static_cast<preparation_feature>(std::uint32_t{1} << Bit), P, T,
                                C>::value &&
            ...);
  }
  (std::make_integer_sequence<std::uint32_t, preparation_feature_count>{});
};

}  // namespace leasehold::policy::lease
