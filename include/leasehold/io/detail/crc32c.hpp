#pragma once

// CRC-32C (Castagnoli), the checksum of leasehold's checkpoints: the CRC with the
// polynomial 0x1EDC6F41, reflected (0x82F63B78 in the table below), initial value and final
// xor 0xFFFFFFFF. It is the CRC of iSCSI, ext4 and SCTP (RFC 3720 §B.4), so any tool that
// checks one of those can check a checkpoint; the standard check value is
// crc32c("123456789") = 0xE3069283.
//
// Table-driven, one byte at a time: checkpoints are read once per restart, and a few hundred
// kilobytes at a byte per step cost far less than parsing them. Written here rather than
// taken from a library so that the io layer needs nothing beyond nlohmann/json.

#include <array>
#include <cstddef>
#include <cstdint>
#include <string_view>

namespace leasehold::io::detail {

// table[b] is the CRC of the single byte b with a zero register: bit by bit, shifting right
// (the reflected form) and xoring the polynomial whenever a one falls out.
inline constexpr std::array<std::uint32_t, 256> crc32c_table = [] {
  std::array<std::uint32_t, 256> table{};
  for (std::uint32_t b = 0; b < 256; ++b) {
    std::uint32_t crc = b;
    for (int bit = 0; bit < 8; ++bit) crc = (crc >> 1) ^ ((crc & 1U) != 0 ? 0x82F63B78U : 0U);
    table[b] = crc;
  }
  return table;
}();

// Continues a CRC-32C over `bytes`: start with crc32c_update(0, first part), then pass the
// result with the next part; the CRC of the concatenation comes out.
[[nodiscard]] constexpr std::uint32_t crc32c_update(std::uint32_t crc,
                                                    std::string_view bytes) noexcept {
  crc = ~crc;
  for (const char c : bytes)
    crc = (crc >> 8) ^ crc32c_table[(crc ^ static_cast<unsigned char>(c)) & 0xFFU];
  return ~crc;
}

[[nodiscard]] constexpr std::uint32_t crc32c(std::string_view bytes) noexcept {
  return crc32c_update(0, bytes);
}

static_assert(crc32c("123456789") == 0xE3069283U, "CRC-32C check value (RFC 3720)");

}  // namespace leasehold::io::detail
