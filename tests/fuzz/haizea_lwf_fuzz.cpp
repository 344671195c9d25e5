// libFuzzer harness: the XML Lease Workload Format reader (haizea_lwf.hpp) on arbitrary text:
// a workload or a leasehold::error (lwf_error naming the line or element), never a crash or
// a sanitizer report; a workload read converts to lease terms or a clear error.

#include <cstddef>
#include <cstdint>
#include <sstream>
#include <string>

#include <leasehold/sim/workload/haizea_lwf.hpp>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace leasehold;
  const std::string text(reinterpret_cast<const char*>(data), size);
  try {
    std::istringstream in(text);
    const auto workload = haizea::read_lwf(in);
    for (const std::int64_t divisor : {100, 1}) {
      try {
        (void)haizea::to_lease_terms<std::int64_t>(workload, {.cpu_divisor = divisor});
      } catch (const error&) {
      }
    }
  } catch (const error&) {
  }
  return 0;
}
