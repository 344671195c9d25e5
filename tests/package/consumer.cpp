// A user's first program, built against the package exactly as a user would build it
// (find_package or add_subdirectory), with -Wall -Wextra -Wpedantic -Werror.

#include <cstdlib>
#include <iostream>

#include <leasehold/leasehold.hpp>

int main() {
  leasehold::free_list<> cluster(128);
  cluster.reserve({0, 3600}, 100);
  const auto start = cluster.earliest_fit({.amount = 64, .duration = 600});
  std::cout << "leasehold " << leasehold::version_string << ": 64 units for 600 s start at "
            << start.value_or(-1) << '\n';
  return start == 3600 ? EXIT_SUCCESS : EXIT_FAILURE;
}
