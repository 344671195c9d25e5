#pragma once

/// \file
/// Reading a Standard Workload Format log from a file, plain (`.swf`) or gzip-compressed
/// (`.swf.gz`), with errors that name the file and the line.
///
/// Needs Boost.Iostreams and zlib at link time (through input_file.hpp): link the CMake target
/// `leasehold::iostreams`.
///
/// Strict by default: the first malformed line is a file_error "PATH: line N: reason". Under
/// swf::on_error::skip (the lenient mode for real archive logs) malformed lines are dropped,
/// but never silently: swf_file::skipped() counts them and the first few are kept with their
/// line number and reason, so a program can print what it left out.

#include <cstddef>
#include <filesystem>
#include <sstream>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "leasehold/core/file_error.hpp"
#include "leasehold/sim/workload/input_file.hpp"
#include "leasehold/sim/workload/swf.hpp"

namespace leasehold::workload {

/// A malformed line dropped under swf::on_error::skip.
struct skipped_line {
  std::size_t line;    ///< 1-based line number in the decompressed text
  std::string reason;  ///< the parse error, without the "line N: " prefix
};

/// An SWF log read from a file, with what the lenient mode left out.
struct swf_file {
  std::filesystem::path path;          ///< the file as the caller named it
  swf::log log;                        ///< header and records; log.skipped counts dropped lines
  std::vector<skipped_line> examples;  ///< the first dropped lines (at most max_examples)

  static constexpr std::size_t max_examples = 5;  ///< How many dropped lines are kept.

  /// How many malformed lines were dropped (0 under swf::on_error::stop).
  [[nodiscard]] std::size_t skipped() const noexcept { return log.skipped; }

  /// One sentence for the user, empty when nothing was skipped, e.g.
  /// "3 malformed line(s) of log.swf skipped (first: line 7: expected 18 fields, found 2: ...)".
  [[nodiscard]] std::string skipped_summary() const {
    if (log.skipped == 0) return {};
    std::ostringstream out;
    out << log.skipped << " malformed line(s) of " << path.string() << " skipped";
    if (!examples.empty())
      out << " (first: line " << examples.front().line << ": " << examples.front().reason << ')';
    return out.str();
  }
};

namespace detail {

/// parse_error's message without its "line N: " prefix (file_error puts the path before it).
inline std::string reason_of(const swf::parse_error& e) {
  std::string_view text = e.what();
  const std::string prefix = "line " + std::to_string(e.line()) + ": ";
  if (e.line() != 0 && text.substr(0, prefix.size()) == prefix) text.remove_prefix(prefix.size());
  return std::string(text);
}

}  // namespace detail

/// Reads the SWF log at `path` (gzip-compressed or plain, told apart by content). Throws
/// file_error naming the path when the file is missing, unreadable or corrupt, and, under
/// swf::on_error::stop (the default), naming the path and line of the first malformed line.
/// `options.on_skipped`, when set, is still called for each skipped line.
[[nodiscard]] inline swf_file read_swf_file(const std::filesystem::path& path,
                                            swf::read_options options = {}) {
  swf_file result{.path = path, .log = {}, .examples = {}};
  std::istringstream in(read_text_file(path));
  auto user_callback = std::move(options.on_skipped);
  options.on_skipped = [&result, &user_callback](const swf::parse_error& e) {
    if (result.examples.size() < swf_file::max_examples)
      result.examples.push_back({e.line(), detail::reason_of(e)});
    if (user_callback) user_callback(e);
  };
  try {
    result.log = swf::read(in, options);
  } catch (const swf::parse_error& e) {
    throw file_error(path, e.line(), detail::reason_of(e));
  }
  return result;
}

/// The same with only the error policy chosen.
[[nodiscard]] inline swf_file read_swf_file(const std::filesystem::path& path,
                                            swf::on_error policy) {
  return read_swf_file(path, swf::read_options{.policy = policy});
}

}  // namespace leasehold::workload
