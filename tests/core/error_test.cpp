// core/error.hpp: every error is a leasehold::error (one catch clause serves a caller) and a
// std::runtime_error carrying its message; the kinds are distinct types.

#include <doctest/doctest.h>

#include <stdexcept>
#include <string>
#include <type_traits>

#include <leasehold/core/error.hpp>

namespace error_test {

using namespace leasehold;

template <class E>
void check_kind() {
  static_assert(std::is_base_of_v<error, E>);
  static_assert(std::is_base_of_v<std::runtime_error, E>);
  try {
    throw E("the value 7 is out of range");
  } catch (const error& e) {
    CHECK(std::string(e.what()) == "the value 7 is out of range");
  }
}

TEST_CASE("error: every kind is a leasehold::error with its message") {
  check_kind<invalid_request>();
  check_kind<insufficient_capacity>();
  check_kind<invalid_release>();
  check_kind<out_of_horizon>();
  check_kind<invariant_violation>();
  static_assert(!std::is_base_of_v<invalid_request, insufficient_capacity>);
  static_assert(!std::is_base_of_v<invalid_release, invalid_request>);
  CHECK_THROWS_AS(throw insufficient_capacity("x"), insufficient_capacity);
}

}  // namespace error_test
