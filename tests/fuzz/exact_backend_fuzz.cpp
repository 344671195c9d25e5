// libFuzzer harness shared by the exact backends: LEASEHOLD_FUZZ_BACKEND (free_list, free_tree
// or capacity_tree, set per executable by CMakeLists.txt) against reference on a byte-encoded
// operation sequence, with a scalar capacity or, where the backend takes one, a resources<4>
// vector. See availability_fuzz.hpp.

#include <cstddef>
#include <cstdint>

#include "fuzz/availability_fuzz.hpp"

#ifndef LEASEHOLD_FUZZ_BACKEND
#error "define LEASEHOLD_FUZZ_BACKEND to the backend template under test (e.g. free_list)"
#endif

namespace {
template <class T, class C>
using backend_under_test = leasehold::LEASEHOLD_FUZZ_BACKEND<T, C>;
}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  return leasehold::fuzzing::fuzz_exact_backend<backend_under_test>(data, size);
}
