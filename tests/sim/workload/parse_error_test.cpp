// sim/workload/parse_error.hpp: a parse error names its line (when known) before the message.

#include <doctest/doctest.h>

#include <string>

#include <leasehold/sim/workload/parse_error.hpp>

namespace parse_error_test {

using namespace leasehold;

TEST_CASE("parse_error: the line before the message") {
  const workload::parse_error at_line(7, "bad number \"x1\"");
  CHECK(std::string(at_line.what()) == "line 7: bad number \"x1\"");
  CHECK(at_line.line() == 7);
  const workload::parse_error anywhere(0, "empty document");
  CHECK(std::string(anywhere.what()) == "empty document");
  CHECK_THROWS_AS(throw workload::parse_error(1, "x"), error);
}

}  // namespace parse_error_test
