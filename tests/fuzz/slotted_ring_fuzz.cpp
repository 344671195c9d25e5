// libFuzzer harness: slotted_ring against reference on slot-aligned operations, scalar or
// resources<4> capacity; answers beyond the ring's horizon must be out_of_horizon or nullopt.
// See availability_fuzz.hpp.

#include <cstddef>
#include <cstdint>

#include "fuzz/availability_fuzz.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace leasehold;
  fuzzing::fuzz_input in(data, size);
  const bool vector = in.byte() % 2 == 1;
  const std::int64_t dt = in.in(1, 8);
  const auto slots = static_cast<std::size_t>(in.in(1, 300));
  const std::int64_t origin = dt * in.in(-10, 10);
  if (!vector) {
    const auto total = in.in(1, 12);
    slotted_ring<std::int64_t, std::int64_t> a(total, dt, slots, origin);
    reference<std::int64_t, std::int64_t> oracle(total, origin);
    fuzzing::run_against(in, a, oracle, dt);
  } else {
    using v4 = resources<4, std::int64_t>;
    const v4 total{{in.in(1, 8), in.in(0, 4096), in.in(0, 100), in.in(0, 10)}};
    slotted_ring<std::int64_t, v4> a(total, dt, slots, origin);
    reference<std::int64_t, v4> oracle(total, origin);
    fuzzing::run_against(in, a, oracle, dt);
  }
  return 0;
}
