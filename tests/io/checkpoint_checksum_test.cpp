// io/checkpoint_checksum.hpp and io/detail/crc32c.hpp: CRC-32C against its published check
// value and values computed bit by bit outside leasehold; a checkpoint's checksum covers its
// whole text; a changed byte is refused before anything is read, naming both checksums;
// version-1 checkpoints (without a checksum) still load, and a version-2 one without its
// checksum does not.

#include <doctest/doctest.h>

#include <cstdint>
#include <string>

#include <leasehold/io/checkpoint.hpp>
#include <leasehold/io/checkpoint_checksum.hpp>
#include <leasehold/leasehold.hpp>

#include "io/corrupted_text.hpp"

namespace checkpoint_checksum_test {

using namespace leasehold;

namespace {

using T = std::int64_t;
using profile = free_list<T, T>;

profile small_profile() {
  profile a(4, 100);
  a.reserve({110, 120}, 3);
  return a;
}

std::string error_of(const std::string& text) {
  return leasehold::testing::format_error_of([&] { (void)io::load_profile<profile>(text); });
}

// The profile above as version 1 wrote it: no checksum.
const std::string version_1 =
    "{\n"
    "  \"format\": \"leasehold-checkpoint\",\n"
    "  \"version\": 1,\n"
    "  \"kind\": \"availability\",\n"
    "  \"time_type\": \"int64\",\n"
    "  \"capacity_type\": \"int64\",\n"
    "  \"total\": 4,\n"
    "  \"origin\": 100,\n"
    "  \"blocks\": [\n"
    "    [100, 4],\n"
    "    [110, 1],\n"
    "    [120, 4]\n"
    "  ],\n"
    "  \"end\": 9223372036854775807\n"
    "}";

}  // namespace

TEST_CASE("checkpoint checksum: CRC-32C of known strings") {
  // The check value of CRC-32C (RFC 3720 §B.4; every CRC catalogue lists it).
  CHECK(io::detail::crc32c("123456789") == 0xE3069283U);
  // Computed bit by bit (shift right, xor 0x82F63B78 on a one) outside leasehold.
  CHECK(io::detail::crc32c("") == 0x00000000U);
  CHECK(io::detail::crc32c("a") == 0xC1D04330U);
  // Continuing over parts gives the CRC of the whole.
  CHECK(io::detail::crc32c_update(io::detail::crc32c("1234"), "56789") == 0xE3069283U);
  CHECK(io::detail::hex32(0xE3069283U) == "e3069283");
  CHECK(io::detail::hex32(0x0000ABCDU) == "0000abcd");
}

TEST_CASE("checkpoint checksum: the whole text is covered, the digits read as zeros") {
  const std::string text = io::save_profile(small_profile());
  // The CRC of the document with "crc32c:00000000" in place of the checksum, computed bit by
  // bit outside leasehold (docs/reliability.md shows how).
  CHECK(text.find("\"checksum\": \"crc32c:3d6b6242\",\n") != std::string::npos);
  CHECK(io::checkpoint_checksum(text) == 0x3d6b6242U);
  CHECK(io::verify_checkpoint_checksum(text));
  CHECK(io::seal_checkpoint(text) == text);
  CHECK(io::checkpoint_checksum(leasehold::testing::replaced_unsealed(
            text, "crc32c:3d6b6242", "crc32c:00000000")) == 0x3d6b6242U);
}

TEST_CASE("checkpoint checksum: a changed byte is refused before anything is read") {
  const std::string good = io::save_profile(small_profile());
  // A valid profile, but not the one that was saved: only the checksum can tell.
  const std::string changed = leasehold::testing::replaced_unsealed(good, "[110, 1]", "[110, 3]");
  CHECK(error_of(changed) ==
        "at $.checksum: checksum mismatch: expected crc32c:3d6b6242 (the checksum it carries), "
        "found crc32c:705afde7 (computed from its bytes): corrupted, truncated or edited");
  // Sealed again (a deliberate edit), it loads, as what it now says.
  const auto edited = io::load_profile<profile>(io::seal_checkpoint(changed));
  CHECK(edited.free_at(115) == 3);
  // Malformed JSON with a wrong checksum is refused by the checksum, before the parser.
  CHECK(error_of(leasehold::testing::replaced_unsealed(good, "\"total\"", "\"total"))
            .starts_with("at $.checksum: checksum mismatch: expected crc32c:3d6b6242"));
  // Digits that are not lowercase hex, and a checksum the parse finds but the bytes do not.
  CHECK(
      error_of(leasehold::testing::replaced_unsealed(good, "crc32c:3d6b6242", "crc32c:3D6B6242")) ==
      "at $.checksum: the checksum is not \"crc32c:\" and eight lowercase hex digits");
  CHECK(error_of(leasehold::testing::replaced_unsealed(good, "\"checksum\": ", "\"checksum\":")) ==
        "at $: a checkpoint of version 2 without a checksum in the form \"checksum\": "
        "\"crc32c:<8 hex digits>\"");
  CHECK(error_of(leasehold::testing::replaced_unsealed(good, "\"checksum\"", "\"chepksum\"")) ==
        "at $: a checkpoint of version 2 without a checksum in the form \"checksum\": "
        "\"crc32c:<8 hex digits>\"");
}

TEST_CASE("checkpoint checksum: version 1 (no checksum) is still read") {
  const auto old = io::load_profile<profile>(version_1);
  CHECK(io::detail::blocks_of(old) == io::detail::blocks_of(small_profile()));
  // Saved again it is version 2, sealed.
  CHECK(io::save_profile(old) == io::save_profile(small_profile()));
  // A version-1 document has no checksum member; version 2 must have one.
  CHECK(error_of(leasehold::testing::replaced(io::save_profile(old), "\"version\": 2",
                                              "\"version\": 1")) ==
        "at $.checksum: a checkpoint of version 1 has no checksum");
  CHECK(error_of(leasehold::testing::replaced(version_1, "\"version\": 1", "\"version\": 2")) ==
        "at $: a checkpoint of version 2 without a checksum in the form \"checksum\": "
        "\"crc32c:<8 hex digits>\"");
  // A version-1 document's edits are not caught by a checksum: only by its content checks.
  CHECK(error_of(leasehold::testing::replaced(version_1, "[110, 1]", "[110, 9]")) ==
        "at $.blocks[1][1]: free capacity outside [0, total]");
}

}  // namespace checkpoint_checksum_test
