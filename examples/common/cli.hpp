// Helpers shared by the examples (not part of the library): one way to parse a command line
// with CLI11 and to write output files that are really written.
#pragma once

#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <limits>
#include <optional>
#include <string>
#include <string_view>
#include <system_error>

#include <CLI/CLI.hpp>

#include "progress.hpp"

namespace examples {

namespace detail {

// Whole numbers as the examples promise to read them. CLI11 2.1 reads an integer option with
// strtoull / strtoll in base 0 and ignores ERANGE: "-1" in an unsigned option wraps to
// 18446744073709551615, a value past the 64-bit range saturates silently, "010" is octal and
// "0x10" hex. This validator, which runs on the text before CLI11 converts it, accepts an
// optional sign and decimal digits without a leading zero that fit 64 bits (no sign '-' for an
// unsigned option); the narrower range of a smaller type is still CLI11's check. Its
// description is empty, so --help is unchanged.
inline CLI::Validator whole_number(bool is_unsigned) {
  return CLI::Validator(
      [is_unsigned](std::string& input) -> std::string {
        std::string_view digits = input;
        const bool negative = !digits.empty() && digits.front() == '-';
        if (!digits.empty() && (digits.front() == '-' || digits.front() == '+'))
          digits.remove_prefix(1);
        const bool decimal =
            !digits.empty() &&
            std::all_of(digits.begin(), digits.end(), [](char c) { return c >= '0' && c <= '9'; });
        if (!decimal) return "Value " + input + " is not a whole number";
        if (digits.size() > 1 && digits.front() == '0')
          return "Value " + input + " has a leading 0 (write whole numbers in decimal)";
        if (negative && is_unsigned && digits != "0")
          return "Value " + input + " is negative; this option takes a whole number >= 0";
        std::errc error{};
        if (is_unsigned) {
          std::uint64_t value = 0;
          error = std::from_chars(digits.data(), digits.data() + digits.size(), value).ec;
        } else {
          std::int64_t value = 0;
          const std::string_view text = negative ? std::string_view(input) : digits;
          error = std::from_chars(text.data(), text.data() + text.size(), value).ec;
        }
        if (error != std::errc{}) return "Value " + input + " is out of range for a 64-bit integer";
        return {};
      },
      "");
}

// CLI11 splits a delimited list ("--loads 0,25,50") and drops its empty items, so "500,,750"
// would silently run two values. Throws CLI::ValidationError naming the option and the value
// when an argument of a delimited option has an empty item.
inline void check_list_items(CLI::App& app, int argc, char** argv) {
  for (int i = 1; i < argc; ++i) {
    const std::string argument = argv[i];
    if (argument == "--") return;
    if (argument.rfind("--", 0) != 0) continue;
    const auto equals = argument.find('=');
    const std::string name = argument.substr(0, equals);
    const CLI::Option* option = app.get_option_no_throw(name);
    if (option == nullptr || option->get_delimiter() == '\0') continue;
    const char delimiter = option->get_delimiter();
    const auto check = [&](const std::string& value) {
      const std::string twice(2, delimiter);
      if (value.empty() || value.front() == delimiter || value.back() == delimiter ||
          value.find(twice) != std::string::npos)
        throw CLI::ValidationError(name, "Value " + value + " has an empty item (a list is " +
                                             "values separated by single '" + delimiter + "')");
    };
    if (equals != std::string::npos) {
      check(argument.substr(equals + 1));
    } else {
      for (; i + 1 < argc && std::string_view(argv[i + 1]).rfind("--", 0) != 0; ++i)
        check(argv[i + 1]);
    }
  }
}

// At exit: standard output flushed, and exit code 1 with an error when any write to it failed
// (a full disk, `> /dev/full`): otherwise the tables would be lost and the program would still
// report success. Registered once by parse().
inline void check_standard_output_at_exit() {
  std::cout.flush();
  const bool failed = !std::cout || std::fflush(stdout) != 0 || std::ferror(stdout) != 0;
  if (!failed) return;
  std::fputs("error: could not write to standard output (is the disk full?)\n", stderr);
  std::_Exit(1);
}

}  // namespace detail

// Parses the command line. Returns std::nullopt when the program should run, otherwise the
// exit code: 0 after --help, 2 for any parse or validation error (CLI11 gives different codes
// per error kind; the examples promise one, 2, as getopt-style tools do). CLI11 prints the
// help or the error (which quotes the bad value) itself. The one place the examples' common
// checks live, so that every program makes them before it opens any output:
// - integer options take decimal whole numbers that fit (detail::whole_number);
// - a comma-separated list has no empty item (detail::check_list_items);
// - LEASEHOLD_PROGRESS_SECONDS is valid (progress.hpp), else exit 2;
// - a failed write to standard output makes the exit code 1 (checked at exit).
inline std::optional<int> parse(CLI::App& app, int argc, char** argv) {
  static const bool registered = std::atexit(detail::check_standard_output_at_exit) == 0;
  (void)registered;
  for (CLI::Option* option : app.get_options()) {
    if (option->get_type_size_max() == 0) continue;  // a flag
    const std::string type = option->get_type_name();
    const std::string base = type.substr(0, type.find(':'));
    if (base == "INT" || base == "UINT") option->check(detail::whole_number(base == "UINT"));
  }
  try {
    detail::check_list_items(app, argc, argv);
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    return app.exit(e) == 0 ? 0 : 2;
  }
  if (!progress_interval_from_environment()) return 2;
  return std::nullopt;
}

// A validator for floating-point options: rejects NaN and infinities, which CLI::Range lets
// through (every comparison with NaN is false). The message quotes the value.
inline CLI::Validator finite() {
  return CLI::Validator(
      [](std::string& input) -> std::string {
        double value = 0.0;
        if (!CLI::detail::lexical_cast(input, value) || !std::isfinite(value))
          return "Value " + input + " is not a finite number";
        return {};
      },
      "FINITE");
}

// Creates the directories above `path` (if any) so that it can be opened for writing.
// Returns false after printing an error naming the path.
inline bool make_parent_directories(const std::filesystem::path& path) {
  const std::filesystem::path parent = path.parent_path();
  if (parent.empty()) return true;
  std::error_code error;
  std::filesystem::create_directories(parent, error);
  if (error) {
    std::cerr << "error: cannot create directory " << parent.string() << ": " << error.message()
              << '\n';
    return false;
  }
  return true;
}

// Creates a directory and its parents. Returns false after printing an error naming it.
inline bool make_directories(const std::filesystem::path& dir) {
  std::error_code error;
  std::filesystem::create_directories(dir, error);
  if (error || !std::filesystem::is_directory(dir)) {
    std::cerr << "error: cannot create directory " << dir.string() << ": "
              << (error ? error.message() : std::string("not a directory")) << '\n';
    return false;
  }
  return true;
}

// `path` as the programs print it in their last line: relative to the working directory when
// it lies inside it, else as given. So "--csv $PWD/t.csv" (as a batch script writes it) prints
// the same line as "--csv t.csv", and a sweep's output compares byte for byte whichever way
// its paths were spelled.
inline std::string display_path(const std::filesystem::path& path) {
  std::error_code error;
  const std::filesystem::path here = std::filesystem::current_path(error);
  if (error || path.is_relative()) return path.string();
  const std::filesystem::path inside = path.lexically_normal().lexically_relative(here);
  if (inside.empty() || *inside.begin() == "..") return path.string();
  return inside.string();
}

// For an output written only at the end of a long run (a figure, a table): creates the
// directories above `path` and checks, without creating or truncating the file, that it can be
// written there: not a directory, and its directory writable. Returns false after printing
// an error naming the path, so that a program can refuse a bad path before the run rather
// than lose the run's results after it. An empty path (no such output) passes.
inline bool prepare_output(const std::filesystem::path& path) {
  if (path.empty()) return true;
  if (!make_parent_directories(path)) return false;
  std::error_code error;
  if (std::filesystem::is_directory(path, error)) {
    std::cerr << "error: cannot write " << path.string() << ": it is a directory\n";
    return false;
  }
  const std::filesystem::path parent = path.parent_path().empty() ? "." : path.parent_path();
  const bool exists = std::filesystem::exists(path, error);
  if (access(exists ? path.c_str() : parent.c_str(), W_OK) != 0) {
    std::cerr << "error: cannot write " << path.string() << ": "
              << std::generic_category().message(errno) << '\n';
    return false;
  }
  return true;
}

// Opens `path` for writing after creating its parent directories. Returns false after
// printing an error naming the path.
inline bool open_output(std::ofstream& out, const std::filesystem::path& path) {
  if (!make_parent_directories(path)) return false;
  out.open(path);
  if (!out) {
    std::cerr << "error: cannot open " << path.string() << " for writing\n";
    return false;
  }
  return true;
}

// Flushes and closes an output opened by open_output. Returns false after printing an error
// naming the path when any write (or the close) failed, e.g. on a full disk.
inline bool close_output(std::ofstream& out, const std::filesystem::path& path) {
  out.flush();
  const bool written = static_cast<bool>(out);
  out.close();
  if (!written || out.fail()) {
    std::cerr << "error: writing " << path.string() << " failed\n";
    return false;
  }
  return true;
}

// Writes `text` to `path` (creating its directories). Returns false after printing an error
// naming the path.
inline bool write_file(const std::filesystem::path& path, const std::string& text) {
  std::ofstream out;
  if (!open_output(out, path)) return false;
  out << text;
  return close_output(out, path);
}

// Checks that an input file exists and can be opened. Returns false after printing an error
// naming the path.
inline bool check_input(const std::string& path) {
  std::error_code error;
  if (std::filesystem::is_directory(path, error)) {
    std::cerr << "error: input file " << path << " is a directory, not a file\n";
    return false;
  }
  if (!std::filesystem::is_regular_file(path, error)) {
    std::cerr << "error: input file " << path << " does not exist or is not a regular file\n";
    return false;
  }
  if (!std::ifstream(path)) {
    std::cerr << "error: cannot read input file " << path << '\n';
    return false;
  }
  return true;
}

}  // namespace examples
