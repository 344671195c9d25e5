#pragma once

// What the checkpoint tests share to corrupt a document and read the error it gets.

#include <doctest/doctest.h>

#include <string>

#include <leasehold/io/checkpoint_checksum.hpp>
#include <leasehold/io/json.hpp>

namespace leasehold::testing {

// The io::format_error message `load()` throws, or "no error".
std::string format_error_of(auto load) {
  try {
    load();
  } catch (const io::format_error& e) {
    return e.what();
  }
  return "no error";
}

// Whether `message` is how a corrupted or truncated checkpoint is refused: by its checksum
// (before anything is parsed), or, when the damage leaves no checksum to check, as malformed
// JSON with its line and column.
inline bool refused_as_corrupt(const std::string& message) {
  return message.starts_with("at $.checksum: ") || message.starts_with("line ");
}

// `text` with the first `from` replaced by `to` (which must be there), as it was written: the
// checksum no longer matches.
inline std::string replaced_unsealed(std::string text, const std::string& from,
                                     const std::string& to) {
  const auto at = text.find(from);
  REQUIRE(at != std::string::npos);
  return text.replace(at, from.size(), to);
}

// The same edit made deliberately: sealed again when the text carries a checksum, so that
// what the loader then refuses is the content, not the checksum.
inline std::string replaced(std::string text, const std::string& from, const std::string& to) {
  std::string edited = replaced_unsealed(std::move(text), from, to);
  if (io::detail::find_checksum(edited) == std::string::npos) return edited;
  return io::seal_checkpoint(std::move(edited));
}

}  // namespace leasehold::testing
