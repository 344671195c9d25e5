// workload::read_text_file: plain and gzip-compressed files read in-process and told apart by their
// content; a missing file, a directory, a truncated or corrupt gzip file is a file_error that
// names the path.

#include <doctest/doctest.h>

#include <string>

#include <leasehold/sim/workload/input_file.hpp>

#include "io/temp_files.hpp"

namespace input_file_test {

using namespace leasehold;

namespace {

// Enough lines that the deflate stream spans several blocks' worth of input.
std::string sample_text() {
  std::string text;
  for (int i = 1; i <= 5000; ++i) text += std::to_string(i) + " 0 1 2 3\n";
  return text;
}

// The error's message, and checks that it is a file_error on `path` (line 0).
std::string error_of(const std::filesystem::path& path) {
  try {
    (void)workload::read_text_file(path);
  } catch (const file_error& e) {
    CHECK(e.path() == path);
    CHECK(e.line() == 0);
    return e.what();
  }
  FAIL("no file_error for " << path);
  return {};
}

}  // namespace

TEST_CASE("input_file: plain and gzip files read the same, whatever their name") {
  const test::scratch_directory dir;
  const std::string text = sample_text();
  const std::string packed = test::gzip(text);
  CHECK(workload::is_gzip(packed));
  CHECK_FALSE(workload::is_gzip(text));
  CHECK(workload::read_text_file(dir.write("log.swf", text)) == text);
  CHECK(workload::read_text_file(dir.write("log.swf.gz", packed)) == text);
  // The name does not decide: compressed data without the suffix is still decompressed, and a
  // plain file named .gz is read as it is.
  CHECK(workload::read_text_file(dir.write("compressed.swf", packed)) == text);
  CHECK(workload::read_text_file(dir.write("plain.swf.gz", text)) == text);
  // RFC 1952 allows several members in one file; they are concatenated, as gzip -dc does.
  CHECK(workload::read_text_file(dir.write("two.gz", packed + test::gzip("tail\n"))) ==
        text + "tail\n");
  CHECK(workload::read_text_file(dir.write("empty.swf", "")).empty());
}

TEST_CASE("input_file: a missing file or a directory is an error naming the path") {
  const test::scratch_directory dir;
  const auto missing = dir.path() / "no-such-trace.swf.gz";
  CHECK(error_of(missing) == missing.string() + ": no such file");
  CHECK(error_of(dir.path()) == dir.path().string() + ": not a regular file");
}

TEST_CASE("input_file: a truncated gzip file is an error naming the path") {
  const test::scratch_directory dir;
  const std::string packed = test::gzip(sample_text());
  REQUIRE(packed.size() > 100);
  SUBCASE("cut inside the header") {
    const auto file = dir.write("cut.gz", packed.substr(0, 5));
    CHECK(error_of(file) == file.string() + ": bad gzip header");
  }
  SUBCASE("cut inside the compressed data") {
    const auto file = dir.write("cut.gz", packed.substr(0, packed.size() / 2));
    CHECK(error_of(file) ==
          file.string() + ": truncated gzip file (the compressed data ends early)");
  }
  SUBCASE("cut inside the trailer (CRC-32 and length)") {
    const auto file = dir.write("cut.gz", packed.substr(0, packed.size() - 3));
    CHECK(error_of(file) == file.string() + ": truncated gzip file (the trailer is missing)");
  }
}

TEST_CASE("input_file: corrupt gzip data is an error naming the path") {
  const test::scratch_directory dir;
  std::string packed = test::gzip(sample_text());
  SUBCASE("a wrong CRC-32 in the trailer") {
    packed[packed.size() - 8] = static_cast<char>(packed[packed.size() - 8] ^ 0x01);
    const auto file = dir.write("crc.gz", packed);
    CHECK(error_of(file) == file.string() + ": gzip CRC-32 mismatch (the data is corrupt)");
  }
  SUBCASE("an unknown compression method in the header") {
    packed[2] = 7;  // CM: only 8 (deflate) is defined
    const auto file = dir.write("method.gz", packed);
    CHECK(error_of(file).starts_with(file.string() + ": "));
  }
  SUBCASE("garbage after a valid header") {
    for (std::size_t i = 10; i < 40; ++i) packed[i] = static_cast<char>(0xff);
    const auto file = dir.write("garbage.gz", packed);
    CHECK(error_of(file) == file.string() + ": corrupt gzip data (zlib cannot inflate it)");
  }
}

}  // namespace input_file_test
