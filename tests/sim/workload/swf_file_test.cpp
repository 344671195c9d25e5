// workload::read_swf_file: SWF logs read from plain and gzip files; a malformed line is an error
// naming the path and the line under on_error::stop; under on_error::skip the dropped lines
// are counted and the first few kept with their line numbers and reasons.

#include <doctest/doctest.h>

#include <string>

#include <leasehold/sim/workload/swf_file.hpp>

#include "io/temp_files.hpp"

namespace swf_file_test {

using namespace leasehold;

namespace {

// Two jobs; the header takes lines 1-2, the jobs lines 3 and 4.
const std::string good_log =
    "; MaxProcs: 128\n"
    "; UnixStartTime: 893466664\n"
    "1 0 10 100 4 -1 -1 4 200 -1 1 1 1 1 1 -1 -1 -1\n"
    "2 30 5 50 8 -1 -1 8 60 -1 1 2 1 1 1 -1 -1 -1\n";

// good_log with a garbled line 4 (two fields) and a non-numeric field on line 6.
const std::string garbled_log =
    "; MaxProcs: 128\n"
    "1 0 10 100 4 -1 -1 4 200 -1 1 1 1 1 1 -1 -1 -1\n"
    "2 30 5 50 8 -1 -1 8 60 -1 1 2 1 1 1 -1 -1 -1\n"
    "3 40\n"
    "4 50 5 50 8 -1 -1 8 60 -1 1 2 1 1 1 -1 -1 -1\n"
    "5 60 5 x 8 -1 -1 8 60 -1 1 2 1 1 1 -1 -1 -1\n";

}  // namespace

TEST_CASE("swf_file: a plain .swf and a .swf.gz give the same log") {
  const test::scratch_directory dir;
  const auto plain = workload::read_swf_file(dir.write("log.swf", good_log));
  const auto packed = workload::read_swf_file(dir.write("log.swf.gz", test::gzip(good_log)));
  REQUIRE(plain.log.records.size() == 2);
  CHECK(plain.log.records[1].job == 2);
  CHECK(plain.log.records[1].requested_time == 60);
  CHECK(plain.log.head.max_procs == 128);
  CHECK(plain.log == packed.log);
  CHECK(plain.skipped() == 0);
  CHECK(plain.skipped_summary().empty());
  CHECK(packed.path == dir.path() / "log.swf.gz");
}

TEST_CASE("swf_file: a garbled line is an error naming the path and the line") {
  const test::scratch_directory dir;
  for (const std::string name : {"garbled.swf", "garbled.swf.gz"}) {
    CAPTURE(name);
    const std::string bytes = name.ends_with(".gz") ? test::gzip(garbled_log) : garbled_log;
    const auto file = dir.write(name, bytes);
    try {
      (void)workload::read_swf_file(file);
      FAIL("no error for " << file);
    } catch (const file_error& e) {
      CHECK(e.path() == file);
      CHECK(e.line() == 4);
      CHECK(std::string(e.what()) ==
            file.string() + ": line 4: expected 18 fields, found 2: '3 40'");
    }
  }
}

TEST_CASE("swf_file: lenient mode counts and reports the lines it skips") {
  const test::scratch_directory dir;
  const auto file = dir.write("garbled.swf.gz", test::gzip(garbled_log));
  std::size_t seen = 0;
  const auto result = workload::read_swf_file(
      file, swf::read_options{.policy = swf::on_error::skip,
                              .on_skipped = [&seen](const swf::parse_error&) { ++seen; }});
  CHECK(result.log.records.size() == 3);  // jobs 1, 2 and 4
  CHECK(result.skipped() == 2);
  CHECK(seen == 2);  // the caller's own callback still runs
  REQUIRE(result.examples.size() == 2);
  CHECK(result.examples[0].line == 4);
  CHECK(result.examples[0].reason == "expected 18 fields, found 2: '3 40'");
  CHECK(result.examples[1].line == 6);
  CHECK(result.examples[1].reason.starts_with("field 4 'x' is not"));
  CHECK(result.skipped_summary() ==
        "2 malformed line(s) of " + file.string() +
            " skipped (first: line 4: expected 18 fields, found 2: '3 40')");
}

TEST_CASE("swf_file: at most max_examples skipped lines are kept, all are counted") {
  const test::scratch_directory dir;
  std::string text = good_log;
  for (int i = 0; i < 8; ++i) text += "garbage\n";
  const auto result = workload::read_swf_file(dir.write("many.swf", text), swf::on_error::skip);
  CHECK(result.skipped() == 8);
  CHECK(result.examples.size() == workload::swf_file::max_examples);
  CHECK(result.examples.back().line == 4 + workload::swf_file::max_examples);
}

TEST_CASE("swf_file: missing and truncated files are errors naming the path") {
  const test::scratch_directory dir;
  const auto missing = dir.path() / "absent.swf.gz";
  CHECK_THROWS_WITH_AS((void)workload::read_swf_file(missing),
                       (missing.string() + ": no such file").c_str(), file_error);
  const std::string packed = test::gzip(good_log);
  const auto cut = dir.write("cut.swf.gz", packed.substr(0, packed.size() - 4));
  CHECK_THROWS_WITH_AS((void)workload::read_swf_file(cut, swf::on_error::skip),
                       (cut.string() + ": truncated gzip file (the trailer is missing)").c_str(),
                       file_error);
}

}  // namespace swf_file_test
