// policy/adaptive/metrics.hpp: a run that measured nothing reads all zeros, and both shares
// are 0 rather than a division by zero; the shares are the documented quotients; and one
// small scheduler run fills the counts by hand.

#include <doctest/doctest.h>

#include <cstddef>
#include <cstdint>
#include <tuple>

#include <leasehold/availability/free_list.hpp>
#include <leasehold/policy/adaptive/metrics.hpp>
#include <leasehold/policy/adaptive/scheduler.hpp>

namespace adaptive_metrics_test {

using namespace leasehold::policy::adaptive;

namespace {

// Only the counts the shares are made of.
adaptive_metrics counts(std::size_t submitted, std::size_t rejected, std::size_t moldable,
                        std::size_t reshaped) {
  adaptive_metrics m;
  std::tie(m.submitted, m.rejected, m.moldable_accepted, m.reshaped) =
      std::tuple{submitted, rejected, moldable, reshaped};
  return m;
}

}  // namespace

TEST_CASE("adaptive metrics: nothing measured reads zero, shares included") {
  const adaptive_metrics m;
  CHECK(m.submitted + m.accepted + m.rejected == 0);
  CHECK(m.moldable_accepted + m.reshaped + m.preemptive_accepted + m.split + m.reschedules == 0);
  CHECK(m.profit == 0.0);
  CHECK(m.mean_response == 0.0);
  CHECK(m.mean_modification == 0.0);
  CHECK(m.mean_pieces == 0.0);
  CHECK(m.reshaped_share() == 0.0);
  CHECK(m.rejected_share() == 0.0);
  // Reshaped requests without a moldable one accepted cannot happen in a run, but the share
  // still does not divide by zero.
  const adaptive_metrics odd = counts(0, 0, 0, 3);
  CHECK(odd.reshaped_share() == 0.0);
}

TEST_CASE("adaptive metrics: the shares are reshaped / moldable and rejected / submitted") {
  CHECK(counts(8, 2, 4, 3).reshaped_share() == 0.75);
  CHECK(counts(8, 2, 4, 3).rejected_share() == 0.25);
  CHECK(counts(8, 8, 4, 4).reshaped_share() == 1.0);
  CHECK(counts(8, 8, 4, 4).rejected_share() == 1.0);
}

TEST_CASE("adaptive metrics: one accepted and one rejected rigid request, by hand") {
  using profile = leasehold::free_list<std::int64_t, std::int64_t>;
  scheduler<profile> s(profile(10), {});
  // 4 of 10 resources over [0, 10): completes at 10, a response of 10 ticks.
  CHECK(s.submit(rigid<std::int64_t, std::int64_t>(1, 0, 4, 10, 100), 0).accepted);
  // At 5 it needs 8 for 10 ticks by 15: only 6 are free until 10, and starting at 10 ends at 20.
  CHECK(!s.submit(rigid<std::int64_t, std::int64_t>(2, 5, 8, 10, 15), 5).accepted);
  const adaptive_metrics m = s.metrics();
  CHECK(m.submitted == 2);
  CHECK(m.accepted == 1);
  CHECK(m.rejected == 1);
  CHECK(m.rejected_share() == 0.5);
  CHECK(m.mean_response == 10.0);
  CHECK(m.moldable_accepted == 0);
  CHECK(m.reshaped_share() == 0.0);
  CHECK(m.preemptive_accepted == 0);
  CHECK(m.split == 0);
  CHECK(m.profit > 0.0);
}

}  // namespace adaptive_metrics_test
