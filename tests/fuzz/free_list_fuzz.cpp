// libFuzzer harness: free_list against reference on a byte-encoded operation sequence, with a
// scalar capacity (first byte even) or a resources<4> vector (odd). See availability_fuzz.hpp.

#include <cstddef>
#include <cstdint>

#include "fuzz/availability_fuzz.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace leasehold;
  fuzzing::fuzz_input in(data, size);
  const bool vector = in.byte() % 2 == 1;
  const auto origin = in.in(-100, 100);
  if (!vector) {
    const auto total = in.in(1, 12);
    free_list<std::int64_t, std::int64_t> a(total, origin);
    reference<std::int64_t, std::int64_t> oracle(total, origin);
    fuzzing::run_against(in, a, oracle, std::int64_t{1});
  } else {
    using v4 = resources<4, std::int64_t>;
    const v4 total{{in.in(1, 8), in.in(0, 4096), in.in(0, 100), in.in(0, 10)}};
    free_list<std::int64_t, v4> a(total, origin);
    reference<std::int64_t, v4> oracle(total, origin);
    fuzzing::run_against(in, a, oracle, std::int64_t{1});
  }
  return 0;
}
