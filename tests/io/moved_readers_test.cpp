// io/file_error.hpp, io/input_file.hpp, io/swf_file.hpp: the trace readers moved to
// sim/workload/ (and file_error to core/), and these paths stay so that existing code compiles:
// the old names are the same entities as the new ones (a type is the same type, and the
// functions are brought in by using-declarations, so they are the same functions).

#include <doctest/doctest.h>

#include <filesystem>
#include <string>
#include <type_traits>

#include <leasehold/io/file_error.hpp>
#include <leasehold/io/input_file.hpp>
#include <leasehold/io/swf_file.hpp>

namespace moved_readers_test {

using namespace leasehold;

static_assert(std::is_same_v<io::file_error, file_error>);
static_assert(std::is_same_v<io::swf_file, workload::swf_file>);
static_assert(std::is_same_v<io::skipped_line, workload::skipped_line>);

TEST_CASE("the io names of the moved readers still read") {
  CHECK(io::is_gzip(std::string("\x1f\x8b\x08", 3)));
  CHECK_FALSE(io::is_gzip("1 0 0 1"));
  CHECK_THROWS_AS((void)io::read_text_file(std::filesystem::path("no/such/file.txt")),
                  io::file_error);
  CHECK_THROWS_AS((void)io::read_swf_file(std::filesystem::path("no/such/log.swf")),
                  io::file_error);
}

}  // namespace moved_readers_test
