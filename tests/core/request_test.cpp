// core/request.hpp: a request's default window is the whole time axis, requests compare by
// value, and print with every field named (error messages quote them).

#include <doctest/doctest.h>

#include <cstdint>
#include <limits>
#include <sstream>

#include <leasehold/core/capacity.hpp>
#include <leasehold/core/request.hpp>

namespace request_test {

using namespace leasehold;
using T = std::int64_t;

TEST_CASE("request: the default window is the whole time axis") {
  const request<T, T> r{3, 10};
  CHECK(r.amount == 3);
  CHECK(r.duration == 10);
  CHECK(r.window.begin == std::numeric_limits<T>::min());
  CHECK(r.window.end == std::numeric_limits<T>::max());
}

TEST_CASE("request: compared by value and printed with its fields") {
  const request<T, T> a{3, 10, {0, 100}};
  CHECK(a == request<T, T>{3, 10, {0, 100}});
  CHECK(a != request<T, T>{3, 10, {0, 99}});
  CHECK(a != request<T, T>{4, 10, {0, 100}});
  std::ostringstream out;
  out << a;
  CHECK(out.str().find("amount 3") != std::string::npos);
  CHECK(out.str().find("duration 10") != std::string::npos);
  CHECK(out.str().find("window") != std::string::npos);
  const request<T, resources<2, T>> v{{1, 2}, 5};
  CHECK(v.amount == resources<2, T>{1, 2});
}

}  // namespace request_test
