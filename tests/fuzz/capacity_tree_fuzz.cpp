// libFuzzer harness: capacity_tree against reference on a byte-encoded operation sequence, with a
// scalar capacity (first byte even). See availability_fuzz.hpp.

#include <cstddef>
#include <cstdint>

#include "fuzz/availability_fuzz.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace leasehold;
  fuzzing::fuzz_input in(data, size);
  (void)in.byte();  // the capacity kind: capacity_tree is scalar only
  const auto origin = in.in(-100, 100);
  const auto total = in.in(1, 12);
  capacity_tree<std::int64_t, std::int64_t> a(total, origin);
  reference<std::int64_t, std::int64_t> oracle(total, origin);
  fuzzing::run_against(in, a, oracle, std::int64_t{1});
  return 0;
}
