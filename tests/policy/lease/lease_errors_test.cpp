// policy/lease/lease_errors.hpp: invalid_lease names the field of the terms it refuses, and
// invalid_lease_record also where the record sits in a checkpoint; both are invalid_requests,
// so a caller's one catch clause for leasehold::error still serves.

#include <doctest/doctest.h>

#include <string>
#include <type_traits>

#include <leasehold/policy/lease/lease_errors.hpp>

namespace lease_errors_test {

using namespace leasehold;
using namespace leasehold::policy::lease;

static_assert(std::is_base_of_v<invalid_request, invalid_lease>);
static_assert(std::is_base_of_v<invalid_lease, invalid_lease_record>);
static_assert(std::is_nothrow_copy_constructible_v<invalid_lease>);

TEST_CASE("lease errors: the field, and the record's place") {
  const invalid_lease plain("lease 3: nodes 0 must be positive", "terms.nodes");
  CHECK(std::string(plain.what()) == "lease 3: nodes 0 must be positive");
  CHECK(std::string(plain.field()) == "terms.nodes");
  const invalid_lease_record record("lease 4: submit after the clock", "terms.submit", true, 2);
  CHECK(std::string(record.field()) == "terms.submit");
  CHECK(record.finished());
  CHECK(record.index() == 2);
  try {
    throw invalid_lease_record("x", "terms.duration", false, 0);
  } catch (const error& e) {
    CHECK(std::string(e.what()) == "x");
  }
}

}  // namespace lease_errors_test
