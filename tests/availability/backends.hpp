#pragma once

// The backend lists the shared conformance tests run over. A new exact backend is one more
// entry here; slotted_ring has its own instantiations because it rounds to slots.

#include <cstdint>

#include <doctest/doctest.h>

#include <leasehold/leasehold.hpp>

namespace leasehold::testing {
using vector4 = resources<4, std::int64_t>;
}  // namespace leasehold::testing

// Exact backends with a scalar capacity.
#define LEASEHOLD_EXACT_SCALAR_BACKENDS                                                     \
  ::leasehold::reference<std::int64_t, std::int64_t>,                                       \
      ::leasehold::free_list<std::int64_t, std::int64_t>, ::leasehold::free_list<int, int>, \
      ::leasehold::free_tree<std::int64_t, std::int64_t>, ::leasehold::free_tree<int, int>, \
      ::leasehold::free_tree<std::int64_t, std::int64_t, 0>,                                \
      ::leasehold::capacity_tree<std::int64_t, std::int64_t>, ::leasehold::capacity_tree<int, int>

// Exact backends that accept a resources<4, std::int64_t> capacity.
#define LEASEHOLD_EXACT_VECTOR_BACKENDS                                    \
  ::leasehold::reference<std::int64_t, ::leasehold::testing::vector4>,     \
      ::leasehold::free_list<std::int64_t, ::leasehold::testing::vector4>, \
      ::leasehold::free_tree<std::int64_t, ::leasehold::testing::vector4>

// A template test case is named after its type as the compiler prints it, and GCC prints
// free_list<std::int64_t, std::int64_t> either as `free_list<>` or in full depending on what
// else the translation unit names (a unity batch, LEASEHOLD_UNITY_TESTS, holds several test
// files). Spelling these types here keeps ctest's test names the same in every build. Must be
// seen before the first TEST_CASE_TEMPLATE over them: include this header in such a file.
TYPE_TO_STRING(leasehold::free_list<>);
TYPE_TO_STRING(leasehold::free_tree<>);
// No thresholds: the scalar search without run summaries (one exact walk), in every suite.
using free_tree_without_thresholds = leasehold::free_tree<std::int64_t, std::int64_t, 0>;
TYPE_TO_STRING(free_tree_without_thresholds);
