// libFuzzer harness: the advance-reservation injection reader (haizea_injection.hpp) on
// arbitrary text, with both error policies: records or a leasehold::error, never a crash or a
// sanitizer report; the records convert to lease terms, and what is written reads back.

#include <cstddef>
#include <cstdint>
#include <sstream>
#include <string>

#include <leasehold/sim/workload/haizea_injection.hpp>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace leasehold;
  const std::string text(reinterpret_cast<const char*>(data), size);
  for (const auto policy : {haizea::on_error::stop, haizea::on_error::skip}) {
    try {
      std::istringstream in(text);
      const auto file = haizea::read_injections(in, policy);
      (void)haizea::to_lease_terms<std::int64_t>(file.leases, 1, {.keep_image = true});
      std::ostringstream out;
      haizea::write_injections(out, file.leases);
      std::istringstream again(out.str());
      if (haizea::read_injections(again).leases.size() != file.leases.size()) __builtin_trap();
    } catch (const error&) {
    }
  }
  return 0;
}
