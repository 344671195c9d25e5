#pragma once

// What the checkpoint tests share to corrupt a document and read the error it gets.

#include <doctest/doctest.h>

#include <string>

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

// `text` with the first `from` replaced by `to` (which must be there).
inline std::string replaced(std::string text, const std::string& from, const std::string& to) {
  const auto at = text.find(from);
  REQUIRE(at != std::string::npos);
  return text.replace(at, from.size(), to);
}

}  // namespace leasehold::testing
