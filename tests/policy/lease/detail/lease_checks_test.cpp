// What a lease may be (detail/lease_checks.hpp), checked against a hand-built book of two
// nodes of {2 CPUs, 2048 MB, 10000 MB disk, 10 MB/s} (small_book.hpp).

#include <doctest/doctest.h>

#include <string>

#include <leasehold/policy/lease/detail/lease_checks.hpp>
#include <leasehold/policy/lease/lease_errors.hpp>

#include "policy/lease/detail/small_book.hpp"

namespace lease_checks_test {

using namespace leasehold::test::small_book_test_names;

namespace {

// The field an invalid_lease thrown by `check` names ("" if it throws nothing).
template <class Check>
std::string field_of(Check check) {
  try {
    check();
  } catch (const invalid_lease& e) {
    return e.field();
  }
  return "";
}

}  // namespace

TEST_CASE("lease_checks: terms a submit would refuse, naming the member") {
  sb::book b = sb::make(2);
  sb::add_queued(b, best_effort(1, 0, 1, 100));
  const policy::lease::detail::lease_checks<sb::book> checks(b);
  CHECK_NOTHROW(checks.check_terms(best_effort(2, 0, 2, 100), 0));
  CHECK(field_of([&] { checks.check_terms(best_effort(2, 0, 3, 100), 0); }) == "terms.nodes");
  CHECK(field_of([&] { checks.check_terms(best_effort(1, 0, 1, 100), 0); }) == "terms.id");
  CHECK(field_of([&] { checks.check_terms(best_effort(2, 0, 1, 0), 0); }) == "terms.duration");
  CHECK(field_of([&] { checks.check_terms(best_effort(2, 5, 1, 100), 0); }) == "terms.submit");
}

TEST_CASE("lease_checks: a record the book made passes; one whose work does not add up fails") {
  sb::book b = sb::make(2);
  sb::add_queued(b, best_effort(1, 0, 1, 100));
  const policy::lease::detail::lease_checks<sb::book> checks(b);
  CHECK_NOTHROW(checks.check_record(b.lease(1)));
  sb::record tampered = b.lease(1);
  tampered.remaining_max = 50;  // nothing credited in its history
  tampered.remaining_real = 50;
  CHECK(field_of([&] { checks.check_record(tampered); }) == "remaining_max");
}

}  // namespace lease_checks_test
