#pragma once

// The member types every availability backend of leasehold names (availability/concept.hpp
// requires the first two; io/checkpoint.hpp and the conformance tests use the others). They are
// written once here and inherited, so that a new backend cannot spell one of them differently.

#include "leasehold/core/capacity.hpp"
#include "leasehold/core/free_block.hpp"
#include "leasehold/core/request.hpp"
#include "leasehold/core/time.hpp"

namespace leasehold::detail {

template <time_value T, capacity_value C>
struct profile_types {
  using time_type = T;
  using capacity_type = C;
  using request_type = request<T, C>;
  using block_type = free_block<T, C>;
};

}  // namespace leasehold::detail
