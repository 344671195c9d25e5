// core/free_block.hpp: a block compares by span and free amount, and prints both.

#include <doctest/doctest.h>

#include <cstdint>
#include <sstream>

#include <leasehold/core/free_block.hpp>

namespace free_block_test {

using namespace leasehold;
using T = std::int64_t;

TEST_CASE("free_block: compared by span and amount, printed with both") {
  const free_block<T, T> b{{2, 5}, 7};
  CHECK(b == free_block<T, T>{{2, 5}, 7});
  CHECK(b != free_block<T, T>{{2, 6}, 7});
  CHECK(b != free_block<T, T>{{2, 5}, 6});
  std::ostringstream out;
  out << b;
  CHECK(out.str().find("free 7") != std::string::npos);
  CHECK(out.str().find('2') != std::string::npos);
  CHECK(out.str().find('5') != std::string::npos);
}

}  // namespace free_block_test
