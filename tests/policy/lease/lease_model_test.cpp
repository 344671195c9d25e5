// The lease model (detail/lease_model.hpp, written from docs/leases.md) against lease_scheduler
// on small random scenarios, lease for lease, one feature set at a time.

#include <doctest/doctest.h>

#include <cstdint>
#include <random>

#include "policy/lease/detail/lease_model_check.hpp"

namespace lease_model_test {

using namespace leasehold::test::lease_model;

namespace {

void agree_on(std::uint64_t seed, int scenarios, const features& f) {
  std::mt19937_64 rng(seed);
  auto draw = [&rng](std::int64_t lo, std::int64_t hi) {
    return std::uniform_int_distribution<std::int64_t>(lo, hi)(rng);
  };
  for (int i = 0; i < scenarios; ++i) {
    const scenario s = random_scenario(draw, f);
    const auto difference = compare(s);
    INFO("scenario ", i, " of seed ", seed);
    if (difference) FAIL(*difference);
  }
}

}  // namespace

TEST_CASE("lease model: best-effort leases, no suspension, every backfilling") {
  agree_on(1, 1000,
           {.reservations = false,
            .withdrawals = true,
            .early_ends = true,
            .suspension = false,
            .migration = false});
}

TEST_CASE("lease model: advance reservations, no suspension (NOVM-NOSR), every backfilling") {
  agree_on(2, 3000,
           {.reservations = true,
            .withdrawals = true,
            .early_ends = true,
            .suspension = false,
            .migration = false});
}

}  // namespace lease_model_test
