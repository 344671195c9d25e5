// Must NOT compile: capacity_tree nests its blocks by how much is free, which needs a scalar
// capacity. ctest builds this file and passes only if the compiler stops with capacity_tree's
// static_assert sentence (tests/static/CMakeLists.txt).

#include <cstdint>

#include <leasehold/availability/capacity_tree.hpp>
#include <leasehold/core/capacity.hpp>

void build_a_capacity_tree_over_a_vector() {
  using vector4 = leasehold::resources<4, std::int64_t>;
  const leasehold::capacity_tree<std::int64_t, vector4> tree(vector4{8, 64, 4, 16});
  (void)tree.total();
}
