// libFuzzer harness: a small lease scenario decoded from the bytes (nodes, backfilling,
// suspension and migration, rates, best-effort leases with early ends, advance reservations,
// withdrawals) run through lease_scheduler and through the brute-force lease model written from
// docs/leases.md (tests/policy/lease/detail/lease_model.hpp); every lease's state, start, end
// and segments must agree. A scenario that differs only because the scheduler migrates a
// suspended lease when the migration begins sooner (the document: when it resumes sooner) is
// the known difference the randomised test counts, and is not a finding.

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>

#include "fuzz/fuzz_input.hpp"
#include "policy/lease/detail/lease_model_check.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace leasehold::test::lease_model;
  leasehold::fuzzing::fuzz_input in(data, size);
  const scenario s =
      random_scenario([&in](std::int64_t lo, std::int64_t hi) { return in.in(lo, hi); }, {});
  const verdict v = compare(s);
  if (!v.agrees()) {
    std::fprintf(stderr, "leasehold fuzz finding: the lease model disagrees:\n%s\n",
                 v.difference->c_str());
    std::abort();
  }
  return 0;
}
