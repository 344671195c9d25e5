// The lease vocabulary lives in core/lease_terms.hpp (namespace leasehold) and is reachable
// under its policy names through policy/lease/lease_terms.hpp: both spellings must name the
// same entities, so that a workload built with one is submitted with the other.

#include <concepts>
#include <cstdint>

#include <leasehold/core/lease_terms.hpp>
#include <leasehold/policy/lease/lease_terms.hpp>

namespace pl = leasehold::policy::lease;

static_assert(std::same_as<leasehold::lease_terms<>, pl::lease_terms<>>);
static_assert(std::same_as<leasehold::lease_terms<std::int32_t, leasehold::resources<5>>,
                           pl::lease_terms<std::int32_t, leasehold::resources<5>>>);
static_assert(std::same_as<leasehold::lease_kind, pl::lease_kind>);
static_assert(std::same_as<leasehold::disk_image, pl::disk_image>);
static_assert(std::same_as<leasehold::node_resources, pl::node_resources>);
static_assert(std::same_as<leasehold::resource_layout, pl::resource_layout>);
// The component indices keep their values under both names.
static_assert(pl::cpu == leasehold::node_component::cpu && pl::memory_mb == 1 && pl::disk_mb == 2 &&
              pl::network_mbps == 3);
// Class template argument deduction still works through the policy name.
static_assert(std::same_as<decltype(pl::lease_terms{}), leasehold::lease_terms<>>);
