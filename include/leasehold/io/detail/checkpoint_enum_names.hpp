#pragma once

// The names the checkpointed enums take in a checkpoint, all in one table: a checkpoint of a
// lease scheduler holds its image-staging step's configuration too, and one place for every
// name keeps two documents from spelling one enumerator two ways. fields.hpp writes and reads
// an enum through enum_names<E>.

#include "leasehold/io/detail/fields.hpp"
#include "leasehold/policy/lease/config.hpp"
#include "leasehold/policy/lease/lease_record.hpp"
#include "leasehold/policy/lease/lease_terms.hpp"
#include "leasehold/policy/staging/config.hpp"
#include "leasehold/policy/staging/image_cache.hpp"

namespace leasehold::io::detail {

// Doxygen cannot match a specialisation whose type differs from the primary's: hidden.
/// \cond
template <>
inline constexpr name_array<3> enum_names<policy::lease::lease_kind>{"advance_reservation",
                                                                     "best_effort", "immediate"};
template <>
inline constexpr name_array<2> enum_names<policy::lease::suspension>{"none", "all"};
template <>
inline constexpr name_array<6> enum_names<policy::lease::lease_state>{
    "queued", "scheduled", "running", "done", "rejected", "withdrawn"};
template <>
inline constexpr name_array<2> enum_names<policy::lease::migration>{"none", "allowed"};
template <>
inline constexpr name_array<4> enum_names<policy::lease::segment_outcome>{"completed", "suspended",
                                                                          "cancelled", "released"};
template <>
inline constexpr name_array<2> enum_names<policy::lease::migration_step>{"with_resume",
                                                                         "transfer_first"};
template <>
inline constexpr name_array<4> enum_names<policy::lease::backfilling::mode>{
    "off", "aggressive", "conservative", "intermediate"};
template <>
inline constexpr name_array<2> enum_names<policy::lease::replanning>{"whole_queue", "slide_back"};
template <>
inline constexpr name_array<2> enum_names<policy::lease::preemption_set>{"all_overlapping",
                                                                         "minimal"};
template <>
inline constexpr name_array<2> enum_names<policy::staging::eviction_policy>{"lru", "lfu"};
template <>
inline constexpr name_array<2> enum_names<policy::staging::transfer_mechanism>{"multicast",
                                                                               "unicast"};
template <>
inline constexpr name_array<2> enum_names<policy::staging::deadline_placement>{
    "as_late_as_possible", "as_early_as_possible"};
template <>
inline constexpr name_array<2> enum_names<policy::staging::piggybacking>{"same_node",
                                                                         "join_multicast"};
/// \endcond

}  // namespace leasehold::io::detail
