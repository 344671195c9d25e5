// Compiled by ctest with nothing but `-std=c++20 -I include`: a header-only library must build
// from its source tree, without CMake having generated anything (version.hpp included).
#include <leasehold/leasehold.hpp>

static_assert(leasehold::version_major >= 0);

int main() {
  leasehold::free_list<> cluster(128);
  cluster.reserve({0, 3600}, 96);
  return cluster.earliest_fit({.amount = 64, .duration = 2700}) == 3600 ? 0 : 1;
}
