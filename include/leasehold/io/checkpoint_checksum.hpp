#pragma once

/// \file
/// The integrity check of leasehold's checkpoints (docs/reliability.md, "The checksum"). A
/// checkpoint of version 2 carries, as its third member, a CRC-32C (detail/crc32c.hpp) of its
/// own text:
///
///   "checksum": "crc32c:e3069283"
///
/// The CRC covers every byte of the document exactly as written, from its opening brace to
/// its closing one, with the eight hex digits of this value taken as eight '0' characters
/// (the writer computes it over the text with "crc32c:00000000" and then fills the digits in;
/// a tool checks it the same way). The member is found in the bytes, before any parsing: the
/// first occurrence of `"checksum": "crc32c:`, followed by eight lowercase hex digits and a
/// quote. Inside a JSON string a quote is always escaped, so that sequence can only be a
/// member name. A checkpoint edited by hand, or reformatted, must be sealed again
/// (seal_checkpoint) to load: that is the point.
///
/// A single flipped bit, a torn write or a truncation changes the CRC (CRC-32C detects every
/// error burst of up to 32 bits), so the loaders refuse it before reading anything; what the
/// CRC cannot see (a deliberate edit that was sealed again) is left to the loaders' checks of
/// the state itself.

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "leasehold/io/detail/crc32c.hpp"
#include "leasehold/io/json.hpp"

namespace leasehold::io {

/// What precedes the eight hex digits of the checksum in a checkpoint's text.
inline constexpr std::string_view checkpoint_checksum_prefix = "\"checksum\": \"crc32c:";

namespace detail {

inline constexpr std::size_t checksum_digits = 8;
inline constexpr std::string_view unsealed_digits = "00000000";

[[nodiscard]] inline std::string hex32(std::uint32_t value) {
  static constexpr char digits[] = "0123456789abcdef";
  std::string text(checksum_digits, '0');
  for (std::size_t i = checksum_digits; i-- > 0; value >>= 4) text[i] = digits[value & 0xFU];
  return text;
}

[[nodiscard]] inline bool is_lower_hex(char c) {
  return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f');
}

/// Where the checksum's digits begin in `text`, or npos when the text has no checksum member.
/// A member that is there but not eight lowercase hex digits and a quote is a format_error.
[[nodiscard]] inline std::size_t find_checksum(std::string_view text) {
  const std::size_t at = text.find(checkpoint_checksum_prefix);
  if (at == std::string_view::npos) return at;
  const std::size_t digits = at + checkpoint_checksum_prefix.size();
  bool ok = digits + checksum_digits < text.size() && text[digits + checksum_digits] == '"';
  for (std::size_t i = 0; ok && i < checksum_digits; ++i) ok = is_lower_hex(text[digits + i]);
  if (!ok)
    throw format_error(0, 0,
                       "at $.checksum: the checksum is not \"crc32c:\" and eight lowercase hex "
                       "digits");
  return digits;
}

/// CRC-32C of `text` with the digits at `digits` taken as zeros.
[[nodiscard]] inline std::uint32_t checksum_over(std::string_view text, std::size_t digits) {
  std::uint32_t crc = crc32c_update(0, text.substr(0, digits));
  crc = crc32c_update(crc, unsealed_digits);
  return crc32c_update(crc, text.substr(digits + checksum_digits));
}

}  // namespace detail

/// The checksum `text` should carry (whatever it carries now). Throws format_error when the
/// text has no checksum member.
[[nodiscard]] inline std::uint32_t checkpoint_checksum(std::string_view text) {
  const std::size_t digits = detail::find_checksum(text);
  if (digits == std::string_view::npos)
    throw format_error(0, 0, "at $: the checkpoint has no checksum member");
  return detail::checksum_over(text, digits);
}

/// `text` with its checksum set to checkpoint_checksum(text): what the save functions return,
/// and how a deliberately edited checkpoint is made loadable again.
[[nodiscard]] inline std::string seal_checkpoint(std::string text) {
  const std::uint32_t crc = checkpoint_checksum(text);
  text.replace(detail::find_checksum(text), detail::checksum_digits, detail::hex32(crc));
  return text;
}

/// Checks the checksum of `text` before anything in it is read: true when it is right, false
/// when the text carries none (a checkpoint of version 1, or not a checkpoint at all); a
/// format_error naming both values when it is wrong.
inline bool verify_checkpoint_checksum(std::string_view text) {
  const std::size_t digits = detail::find_checksum(text);
  if (digits == std::string_view::npos) return false;
  const std::uint32_t found = detail::checksum_over(text, digits);
  const std::string_view stored = text.substr(digits, detail::checksum_digits);
  if (stored != detail::hex32(found))
    throw format_error(0, 0,
                       "at $.checksum: checksum mismatch: expected crc32c:" + std::string(stored) +
                           " (the checksum it carries), found crc32c:" + detail::hex32(found) +
                           " (computed from its bytes): corrupted, truncated or edited");
  return true;
}

}  // namespace leasehold::io
