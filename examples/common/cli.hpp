// Helpers shared by the examples (not part of the library): one way to parse a command line
// with CLI11 and to write output files that are really written.
#pragma once

#include <cmath>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <optional>
#include <string>
#include <system_error>

#include <CLI/CLI.hpp>

namespace examples {

// Parses the command line. Returns std::nullopt when the program should run, otherwise the
// exit code: 0 after --help, 2 for any parse or validation error (CLI11 gives different codes
// per error kind; the examples promise one, 2, as getopt-style tools do). CLI11 prints the
// help or the error (which quotes the bad value) itself.
inline std::optional<int> parse(CLI::App& app, int argc, char** argv) {
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    return app.exit(e) == 0 ? 0 : 2;
  }
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
