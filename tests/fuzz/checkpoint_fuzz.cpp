// libFuzzer harness: the strict JSON reader and the checkpoint loaders on arbitrary bytes.
// Each must return a complete, valid object or throw a leasehold::error (format_error with a
// position or a path); a profile that loads must save back to a document that loads to the
// same blocks.

#include <cstddef>
#include <cstdint>
#include <string_view>

#include <leasehold/io/checkpoint.hpp>
#include <leasehold/io/lease_checkpoint.hpp>
#include <leasehold/leasehold.hpp>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace leasehold;
  using T = std::int64_t;
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  try {
    const auto a = io::load_profile<free_list<T, T>>(text);
    const auto b = io::load_profile<free_tree<T, T>>(io::save_profile(a));
    if (io::save_profile(b) != io::save_profile(a)) __builtin_trap();
  } catch (const error&) {
  }
  try {
    (void)io::load_slot_table<free_list<T, resources<4, T>>>(text);
  } catch (const error&) {
  }
  try {
    (void)io::load_scheduler<policy::lease::lease_scheduler<>>(text);
  } catch (const error&) {
  }
  return 0;
}
