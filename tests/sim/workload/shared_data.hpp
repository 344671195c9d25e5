#pragma once

// Access to the real traces in ../shared for the workload tests. The data is optional:
// a user's checkout has none, so every caller skips with LEASEHOLD_SKIP_TEST when a file is
// missing. The .gz traces are decompressed in-process by workload::read_text_file.

#include <filesystem>
#include <optional>
#include <string>

#include <leasehold/sim/workload/input_file.hpp>

#ifndef LEASEHOLD_SHARED_DIR
#define LEASEHOLD_SHARED_DIR ""
#endif

// Reports the running test case as skipped, with the reason: doctest 2.4 cannot skip a case
// once it runs, so the line is printed and ctest marks the test skipped by matching it
// (tests/CMakeLists.txt sets SKIP_REGULAR_EXPRESSION to "leasehold-skip:"), instead of
// counting a test that checked nothing as passed. The caller returns (or continues) after it.
#define LEASEHOLD_SKIP_TEST(reason) MESSAGE("leasehold-skip: " << reason)

namespace leasehold::test {

inline std::filesystem::path shared_path(const std::string& relative) {
  return std::filesystem::path(LEASEHOLD_SHARED_DIR) / relative;
}

// The whole decompressed content of a gzip file, or nullopt when the file is missing. A file
// that is there but corrupt is an error (file_error), not a skip.
inline std::optional<std::string> gunzip(const std::filesystem::path& file) {
  if (!std::filesystem::exists(file)) return std::nullopt;
  return workload::read_text_file(file);
}

}  // namespace leasehold::test
