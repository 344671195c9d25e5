// libFuzzer harness: the strict JSON reader and the checkpoint loaders on arbitrary bytes.
// Each must return a complete, valid object or throw a leasehold::error (format_error with a
// position or a path); a profile that loads must save back to a document that loads to the
// same blocks.
//
// Each input is tried twice: as given (a mutation of a version-2 seed is then nearly always
// refused by its checksum, before anything is parsed), and sealed again when it carries a
// checksum (io::seal_checkpoint, as a deliberate edit would be), so that mutations reach the
// loaders' checks of the content. A lease scheduler that loads must also run on: validate(),
// take a new lease and process every event to the end without an error (a record the loader
// let through that the scheduler would never have made is how a restored scheduler gets stuck).

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <optional>
#include <string>
#include <string_view>

#include <leasehold/io/checkpoint.hpp>
#include <leasehold/io/checkpoint_checksum.hpp>
#include <leasehold/io/lease_checkpoint.hpp>
#include <leasehold/leasehold.hpp>

namespace {

using namespace leasehold;
using T = std::int64_t;
using scheduler = policy::lease::lease_scheduler<>;

[[noreturn]] void finding(const std::string& what) {
  std::fprintf(stderr, "leasehold fuzz finding: %s\n", what.c_str());
  std::abort();
}

void load_all(std::string_view text) {
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
  std::optional<scheduler> s;
  try {
    s.emplace(io::load_scheduler<scheduler>(text));
  } catch (const error&) {
    return;
  }
  // It loaded: it must be a scheduler that runs on.
  try {
    s->validate();
    policy::lease::lease_terms<T> next;
    next.id = std::uint64_t{1} << 62;
    next.submit = s->now();
    next.duration = 1;
    try {
      (void)s->submit(next, s->now());
    } catch (const policy::lease::invalid_lease&) {
      // Terms this cluster refuses (a node smaller than one CPU and 1 GB): refused cleanly.
    }
    for (int guard = 0; guard < 100000; ++guard) {
      const auto at = s->next_event_time();
      if (!at) return;
      s->advance_to(*at);
    }
    finding("a restored scheduler has events left after 100000 steps");
  } catch (const std::exception& e) {
    finding(std::string("a restored scheduler cannot run on: ") + e.what());
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  load_all(text);
  std::string sealed;
  try {
    sealed = io::seal_checkpoint(text);
  } catch (const error&) {
    return 0;  // no checksum member to seal
  }
  if (sealed != text) load_all(sealed);
  return 0;
}
