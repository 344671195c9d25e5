#pragma once

// The backend lists the shared conformance tests run over. A new exact backend is one more
// entry here; slotted_ring has its own instantiations because it rounds to slots.

#include <cstdint>

#include <leasehold/leasehold.hpp>

namespace leasehold::testing {
using vector4 = resources<4, std::int64_t>;
}  // namespace leasehold::testing

// Exact backends with a scalar capacity.
#define LEASEHOLD_EXACT_SCALAR_BACKENDS                                                     \
  ::leasehold::reference<std::int64_t, std::int64_t>,                                       \
      ::leasehold::free_list<std::int64_t, std::int64_t>, ::leasehold::free_list<int, int>, \
      ::leasehold::free_tree<std::int64_t, std::int64_t>, ::leasehold::free_tree<int, int>, \
      ::leasehold::capacity_tree<std::int64_t, std::int64_t>, ::leasehold::capacity_tree<int, int>

// Exact backends that accept a resources<4, std::int64_t> capacity.
#define LEASEHOLD_EXACT_VECTOR_BACKENDS                                    \
  ::leasehold::reference<std::int64_t, ::leasehold::testing::vector4>,     \
      ::leasehold::free_list<std::int64_t, ::leasehold::testing::vector4>, \
      ::leasehold::free_tree<std::int64_t, ::leasehold::testing::vector4>
