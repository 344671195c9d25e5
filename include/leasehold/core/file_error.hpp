#pragma once

/// \file
/// The error of every file reader (traces, checkpoints, configurations): a file that is missing,
/// unreadable, corrupt or malformed. A researcher who gets it must be able to find the bytes at
/// fault, so it always names the path and, when the fault is on a line, the 1-based line number. It
/// needs nothing but the standard library, so callers can catch it without linking Boost.Iostreams.

#include <cstddef>
#include <filesystem>
#include <string>

#include "leasehold/core/error.hpp"

namespace leasehold {

/// A file that could not be read as asked: `what()` is "PATH: line N: reason" (or
/// "PATH: reason" when the fault is not on one line).
struct file_error : error {
  /// `line` is 1-based; 0 means the fault is not on one line (a missing or corrupt file).
  file_error(const std::filesystem::path& path, std::size_t line, const std::string& reason)
      : error(path.string() + ": " + (line == 0 ? "" : "line " + std::to_string(line) + ": ") +
              reason),
        path_(path),
        line_(line) {}

  /// The file at fault, as the caller named it.
  [[nodiscard]] const std::filesystem::path& path() const noexcept { return path_; }
  /// The 1-based line at fault, or 0 when the fault is not on one line.
  [[nodiscard]] std::size_t line() const noexcept { return line_; }

 private:
  std::filesystem::path path_;
  std::size_t line_;
};

}  // namespace leasehold
