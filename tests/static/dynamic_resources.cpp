// Compile-only: dynamic_resources is a capacity, every backend that takes resources<N, V>
// takes it and models availability with it, and capacity_tree still refuses a vector.
// Compiling this file is passing.

#include <cstdint>
#include <type_traits>

#include <leasehold/cluster/slot_table.hpp>
#include <leasehold/leasehold.hpp>
#include <leasehold/policy/lease/lease_scheduler.hpp>

namespace {

using namespace leasehold;
using dyn = dynamic_resources<>;

static_assert(capacity_value<dyn>);
static_assert(capacity_value<dynamic_resources<int, 3>>);
static_assert(vector_capacity<dyn> && !scalar_capacity<dyn>);
static_assert(!fixed_vector_capacity<dyn>, "its count is not part of its type");
static_assert(fixed_vector_capacity<resources<4, std::int64_t>>);
static_assert(std::is_trivially_copyable_v<dyn>, "backends store and copy one per block");
static_assert(std::is_nothrow_default_constructible_v<dyn>);
static_assert(sizeof(dyn) == 8 * sizeof(std::int64_t) + alignof(std::int64_t));

// A value of no components is nothing, in constant expressions too.
static_assert(dyn{}.size() == 0 && is_zero(dyn{}));

static_assert(availability<free_list<std::int64_t, dyn>>);
static_assert(availability<free_list<int, dynamic_resources<int, 4>>>);
static_assert(availability<free_tree<std::int64_t, dyn>>);
static_assert(availability<free_tree<std::int64_t, dyn, 4>>, "run pruning on");
static_assert(availability<reference<std::int64_t, dyn>>);
static_assert(availability<slotted_ring<std::int64_t, dyn>>);
static_assert(!availability<capacity_tree<std::int64_t, dyn>>);

static_assert(nothrow_rollback_availability<free_list<std::int64_t, dyn>> &&
              nothrow_rollback_availability<free_tree<std::int64_t, dyn>> &&
              nothrow_rollback_availability<reference<std::int64_t, dyn>> &&
              nothrow_rollback_availability<slotted_ring<std::int64_t, dyn>>);
static_assert(latest_fit_availability<free_list<std::int64_t, dyn>> &&
              latest_fit_availability<free_tree<std::int64_t, dyn>>);

static_assert(availability<reference<std::int64_t, dyn>> &&
              std::same_as<cluster::slot_table<free_list<std::int64_t, dyn>>::capacity_type, dyn>);

// The lease scheduler reads components by index fixed at compile time (its resource_layout):
// it asks for fixed_vector_capacity, so naming it over dynamic_resources is simply false.
template <class A>
concept schedules_leases = requires {
  typename policy::lease::lease_scheduler<A>;
};
static_assert(schedules_leases<free_list<std::int64_t, node_resources>>);
static_assert(!schedules_leases<free_list<std::int64_t, dyn>>);

}  // namespace
