// core/file_error.hpp: a file error names the path and, when there is one, the line, before the
// reason, and keeps both for the caller.

#include <doctest/doctest.h>

#include <filesystem>
#include <string>

#include <leasehold/core/file_error.hpp>

namespace file_error_test {

using namespace leasehold;

TEST_CASE("file_error: path, line and reason in the message") {
  const file_error at_line("traces/log.swf", 12, "7 fields, 18 expected");
  CHECK(std::string(at_line.what()) == "traces/log.swf: line 12: 7 fields, 18 expected");
  CHECK(at_line.path() == std::filesystem::path("traces/log.swf"));
  CHECK(at_line.line() == 12);
  const file_error whole("out/runs.csv", 0, "cannot be written");
  CHECK(std::string(whole.what()) == "out/runs.csv: cannot be written");
  CHECK(whole.line() == 0);
  CHECK_THROWS_AS(throw file_error("a", 1, "b"), error);
}

}  // namespace file_error_test
