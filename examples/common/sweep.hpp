// Helpers for splitting an example's sweep over processes (not part of the library): the
// `--shard I/N` option (also taken from a Slurm job array's environment) and the exact text
// form of the numbers a shard hands to the merge step.
#pragma once

#include <charconv>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <iostream>
#include <optional>
#include <sstream>
#include <string>
#include <system_error>

#include <CLI/CLI.hpp>

namespace examples {

// One share of a sweep: runs whose index is `index` modulo `count`. Chosen by the run's
// index alone, so that the same run lands in the same shard whatever the thread count.
struct shard {
  std::size_t index = 0;
  std::size_t count = 1;
  [[nodiscard]] bool owns(std::size_t run) const { return run % count == index; }
};

// Parses "I/N" with 0 <= I < N. Returns an empty string on success, else the reason.
inline std::string parse_shard(const std::string& text, shard& out) {
  const auto slash = text.find('/');
  auto number = [](const std::string& digits, std::size_t& value) {
    if (digits.empty()) return false;
    const auto* end = digits.data() + digits.size();
    const auto [ptr, ec] = std::from_chars(digits.data(), end, value);
    return ec == std::errc{} && ptr == end;
  };
  shard s;
  if (slash == std::string::npos || !number(text.substr(0, slash), s.index) ||
      !number(text.substr(slash + 1), s.count))
    return "Value " + text + " is not of the form I/N (two non-negative integers)";
  if (s.count == 0 || s.index >= s.count) return "Value " + text + " needs 0 <= I < N";
  out = s;
  return {};
}

// A CLI11 validator for --shard: the message quotes the value.
inline CLI::Validator shard_form() {
  return CLI::Validator(
      [](std::string& input) {
        shard ignored;
        return parse_shard(input, ignored);
      },
      "I/N");
}

// The shard of a Slurm job array task (sbatch --array=A-B): SLURM_ARRAY_TASK_ID minus
// SLURM_ARRAY_TASK_MIN out of SLURM_ARRAY_TASK_COUNT, so that --array=1-3 works like 0-2.
// Returns std::nullopt when not in a job array; exits the program with 2 (as a bad option
// does) when the variables make no shard, naming them and their values.
inline std::optional<shard> slurm_array_shard() {
  const char* id = std::getenv("SLURM_ARRAY_TASK_ID");
  const char* count = std::getenv("SLURM_ARRAY_TASK_COUNT");
  if (id == nullptr || count == nullptr) return std::nullopt;
  const char* min = std::getenv("SLURM_ARRAY_TASK_MIN");
  const std::string described = std::string("SLURM_ARRAY_TASK_ID=") + id +
                                " SLURM_ARRAY_TASK_MIN=" + (min ? min : "(unset)") +
                                " SLURM_ARRAY_TASK_COUNT=" + count;
  std::size_t task = 0;
  std::size_t first = 0;
  shard s;
  const std::string id_text = id;
  const std::string min_text = min ? min : "0";
  const auto parsed = [](const std::string& digits, std::size_t& value) {
    const auto* end = digits.data() + digits.size();
    const auto [ptr, ec] = std::from_chars(digits.data(), end, value);
    return !digits.empty() && ec == std::errc{} && ptr == end;
  };
  if (!parsed(id_text, task) || !parsed(min_text, first) || task < first ||
      !parse_shard(std::to_string(task - first) + "/" + count, s).empty()) {
    std::cerr << "error: the Slurm job array makes no shard I/N with 0 <= I < N: " << described
              << '\n';
    std::exit(2);
  }
  return s;
}

// Doubles are handed from a shard to the merge step as hexadecimal floating point, which
// reads back to the same bits (the merged tables must equal a single process's byte for byte).
inline std::string exact(double value) {
  char buffer[64];
  std::snprintf(buffer, sizeof buffer, "%a", value);
  return buffer;
}

inline bool read_exact(const std::string& text, double& value) {
  if (text.empty()) return false;
  char* end = nullptr;
  value = std::strtod(text.c_str(), &end);
  return end == text.c_str() + text.size();
}

}  // namespace examples
