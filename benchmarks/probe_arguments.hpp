#pragma once

// Command-line counts for the probes (cache_probe, btree_layout_probe): strict, so that a
// typo is refused with the value named rather than read as a smaller number.

#include <charconv>
#include <cstddef>
#include <cstring>
#include <optional>
#include <system_error>

namespace leasehold_probes {

// A whole number above 0, and nothing after it; nullopt otherwise.
inline std::optional<std::size_t> parse_count(const char* text) {
  std::size_t value = 0;
  const char* end = text + std::strlen(text);
  const auto [rest, error] = std::from_chars(text, end, value);
  if (error != std::errc{} || rest != end || value == 0) return std::nullopt;
  return value;
}

}  // namespace leasehold_probes
