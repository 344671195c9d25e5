// libFuzzer harness: free_tree against reference on a byte-encoded operation sequence, with a
// scalar capacity or a resources<4> vector. See availability_fuzz.hpp.

#include <cstddef>
#include <cstdint>

#include "fuzz/availability_fuzz.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace leasehold;
  return fuzzing::fuzz_exact_backend<free_tree<std::int64_t, std::int64_t>,
                                     free_tree<std::int64_t, fuzzing::vector4>>(data, size);
}
