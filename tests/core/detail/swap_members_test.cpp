#include "leasehold/core/detail/swap_members.hpp"

#include <doctest/doctest.h>

#include <string>
#include <vector>

namespace swap_members_test {

// A member with a swap() of its own, which counts its calls: swap_members must use it rather
// than std::swap's three moves.
struct counted {
  int value = 0;
  int swaps = 0;
  void swap(counted& other) noexcept {
    std::swap(value, other.value);
    ++swaps;
    ++other.swaps;
  }
};

struct owner {
  int number = 0;
  std::vector<int> list;
  counted own;
  std::string left_alone;

  void swap(owner& other) noexcept {
    leasehold::detail::swap_members(*this, other, &owner::number, &owner::list, &owner::own);
  }
};

TEST_CASE("swap_members: each named member swapped, by its own swap() where it has one") {
  owner a{1, {1, 2}, {10, 0}, "a"};
  owner b{2, {3}, {20, 0}, "b"};
  a.swap(b);
  CHECK(a.number == 2);
  CHECK(b.number == 1);
  CHECK(a.list == std::vector<int>{3});
  CHECK(b.list == std::vector<int>{1, 2});
  CHECK(a.own.value == 20);
  CHECK(b.own.value == 10);
  CHECK(a.own.swaps == 1);  // its swap() ran once, not a move-based std::swap
  CHECK(b.own.swaps == 1);
  CHECK(a.left_alone == "a");  // a member not named stays where it was
  CHECK(b.left_alone == "b");
}

}  // namespace swap_members_test
