// policy/lease/lease_record.hpp: a record's work done is the sum of its segments' work, its
// kind test, value comparison, and the states' names as the examples print them.

#include <doctest/doctest.h>

#include <cstdint>
#include <sstream>
#include <string>

#include <leasehold/policy/lease/lease_record.hpp>

namespace lease_record_test {

using namespace leasehold::policy::lease;
using T = std::int64_t;

TEST_CASE("lease record: work done, kind and comparison") {
  lease_record<T> r;
  r.terms.id = 9;
  r.terms.kind = lease_kind::best_effort;
  CHECK(r.is_best_effort());
  CHECK(r.work_done() == 0);
  // Suspended after 40 units of work, then completed after 60 more.
  r.history.push_back({{0}, {0, 60}, {0, 40}, 40, segment_outcome::suspended});
  r.history.push_back({{1}, {100, 170}, {110, 170}, 60, segment_outcome::completed});
  CHECK(r.work_done() == 100);
  lease_record<T> copy = r;
  CHECK(copy == r);
  copy.history.back().work = 59;
  CHECK(copy != r);
  r.terms.kind = lease_kind::advance_reservation;
  CHECK(!r.is_best_effort());
}

TEST_CASE("lease record: the states print by name") {
  const auto name = [](lease_state s) {
    std::ostringstream out;
    out << s;
    return out.str();
  };
  CHECK(name(lease_state::queued) == "queued");
  CHECK(name(lease_state::scheduled) == "scheduled");
  CHECK(name(lease_state::running) == "running");
  CHECK(name(lease_state::done) == "done");
  CHECK(name(lease_state::rejected) == "rejected");
  CHECK(name(lease_state::withdrawn) == "withdrawn");
}

}  // namespace lease_record_test
