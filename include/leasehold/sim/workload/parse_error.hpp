#pragma once

/// \file
/// The error every workload reader throws for malformed input. Files are read by people
/// who need to fix them, so the error carries the 1-based line number and the message
/// quotes the offending text (truncated to a readable length).

#include <cstddef>
#include <string>
#include <string_view>

#include "leasehold/core/error.hpp"

namespace leasehold::workload {

/// A malformed line or element of a workload file: the base of every reader's parse error.
struct parse_error : error {
  /// line == 0 means the position is not a line (e.g. an XML element found after parsing);
  /// the message then names the element instead.
  parse_error(std::size_t line, const std::string& message)
      : error(line == 0 ? message : "line " + std::to_string(line) + ": " + message), line_(line) {}

  /// 1-based line number of the offending input, or 0 when unknown.
  [[nodiscard]] std::size_t line() const noexcept { return line_; }

 private:
  std::size_t line_;
};

}  // namespace leasehold::workload
