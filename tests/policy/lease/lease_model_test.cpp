// The lease model (detail/lease_model.hpp, written from docs/leases.md) against lease_scheduler
// on small random scenarios, lease for lease, one feature set at a time: the simplest first, so
// that a disagreement shows in the smallest feature set that has it.

#include <doctest/doctest.h>

#include <cstdint>
#include <random>

#include "policy/lease/detail/lease_model_check.hpp"

namespace lease_model_test {

using namespace leasehold::test::lease_model;

namespace {

// Every scenario must agree, or differ only by the known difference (lease_model_check.hpp,
// verdict), which is counted and reported.
void agree_on(std::uint64_t seed, int scenarios, const features& f) {
  std::mt19937_64 rng(seed);
  auto draw = [&rng](std::int64_t lo, std::int64_t hi) {
    return std::uniform_int_distribution<std::int64_t>(lo, hi)(rng);
  };
  int migration_rule = 0;
  for (int i = 0; i < scenarios; ++i) {
    const scenario s = random_scenario(draw, f);
    const verdict v = compare(s);
    INFO("scenario ", i, " of seed ", seed);
    REQUIRE_MESSAGE(v.agrees(), v.difference.value_or(""));
    if (v.difference && v.known_migration_rule) ++migration_rule;
  }
  if (migration_rule > 0)
    MESSAGE("of ", scenarios, " scenarios (seed ", seed, "), ", migration_rule,
            " differ only by the migration rule");
}

constexpr features nothing_but_best_effort{.reservations = false,
                                           .withdrawals = true,
                                           .early_ends = true,
                                           .suspension = false,
                                           .migration = false,
                                           .vms = false,
                                           .immediate = false,
                                           .windows = false};

}  // namespace

TEST_CASE("lease model: best-effort leases, no suspension, every backfilling") {
  agree_on(1, 1500, nothing_but_best_effort);
}

TEST_CASE("lease model: advance reservations and immediate leases, no suspension") {
  features f = nothing_but_best_effort;
  f.reservations = f.immediate = f.windows = true;
  agree_on(2, 2000, f);
}

TEST_CASE("lease model: suspend / resume without migration") {
  features f = nothing_but_best_effort;
  f.reservations = f.immediate = f.windows = f.suspension = true;
  agree_on(3, 2000, f);
}

TEST_CASE("lease model: in VMs (slowdown, boot + shutdown)") {
  features f = nothing_but_best_effort;
  f.reservations = f.immediate = f.windows = f.suspension = f.vms = true;
  agree_on(4, 2000, f);
}

// lease_scheduler migrates a suspended lease when the migration's segment begins sooner, the
// document when it resumes sooner; scenarios that differ only there are counted, not failed,
// until the scheduler follows the document.
TEST_CASE("lease model: every feature, migration included") {
  agree_on(5, 2000, features{});
  agree_on(6, 2000, features{.always_migrate = true, .reservation_one_in = 2});
}

}  // namespace lease_model_test
