// Randomised runs of the adaptive scheduler on every exact scalar backend and both strategies.
// After every submission the schedule must satisfy, for every accepted request:
//  - no over-commitment: rebuilding the profile from the placements in an independent
//    reference<> never over-books and gives the scheduler's profile block for block;
//  - completion by the deadline, start no earlier than the submission;
//  - sub-requests in time order, never overlapping, at most N, each cut at a multiple of I %;
//  - exactly the work of the chosen shapes: every piece lasts slice_duration(f_mol(R), from,
//    to) > 0, the pieces cover 0..100 % once, R is allowed, one R for all pieces when !M;
//  - a request that has started never changes, and once accepted it stays accepted.
// LEASEHOLD_RANDOM_OPS scales the number of requests per run (default 150).

#include <doctest/doctest.h>

#include <algorithm>
#include <cstdint>
#include <map>
#include <random>

#include <leasehold/policy/adaptive/scheduler.hpp>

#include "availability/backends.hpp"
#include "availability/differential.hpp"
#include "policy/adaptive/random_request.hpp"

namespace invariants_test {

using namespace leasehold;
namespace adaptive = leasehold::policy::adaptive;
using leasehold::testing::random_request;

namespace {

template <class B>
void check_schedule(
    const adaptive::scheduler<B>& s,
    std::map<std::uint64_t, adaptive::placement<typename B::time_type, typename B::capacity_type>>&
        started) {
  using T = typename B::time_type;
  using C = typename B::capacity_type;
  reference<T, C> rebuilt(s.profile().total(), s.profile().origin());
  std::size_t accepted = 0;
  s.for_each_accepted([&](const auto& record) {
    ++accepted;
    const auto& req = record.request;
    const auto& where = record.where;
    INFO("request " << req.id << " placed " << where);
    REQUIRE_FALSE(where.pieces.empty());
    CHECK(where.completion() <= req.deadline);
    CHECK(where.start() >= req.submit);
    CHECK(where.pieces.size() <= req.split.pieces);
    CHECK(where.pieces.front().from_percent == 0);
    CHECK(where.pieces.back().to_percent == 100);
    for (std::size_t i = 0; i < where.pieces.size(); ++i) {
      const auto& piece = where.pieces[i];
      CHECK(piece.resource_count >= req.r_min);
      CHECK(piece.resource_count <= req.r_max);
      if (req.allowed) CHECK(req.allowed(piece.resource_count));
      if (!req.split.moldable) CHECK(piece.resource_count == where.pieces.front().resource_count);
      const T length = adaptive::slice_duration(req.f_mol(piece.resource_count), piece.from_percent,
                                                piece.to_percent);
      CHECK(length > T{});
      CHECK(piece.span.end - piece.span.begin == length);
      if (piece.to_percent != 100) CHECK(piece.to_percent % req.split.interval_percent == 0);
      if (i > 0) {
        CHECK(where.pieces[i - 1].span.end <= piece.span.begin);
        CHECK(where.pieces[i - 1].to_percent == piece.from_percent);
      }
      // Rebuild the future part: reserve throws insufficient_capacity on over-commitment.
      const T from = std::max(piece.span.begin, rebuilt.origin());
      if (from < piece.span.end)
        CHECK_NOTHROW(rebuilt.reserve({from, piece.span.end}, piece.resource_count));
    }
    if (where.start() <= s.now()) {
      const auto [it, fresh] = started.try_emplace(req.id, where);
      if (!fresh) CHECK(it->second == where);  // running requests never move
    }
  });
  CHECK(accepted == s.metrics().accepted);
  CHECK(started.size() <= accepted);
  CHECK(leasehold::testing::blocks_of(rebuilt) == leasehold::testing::blocks_of(s.profile()));
}

template <class B>
void random_run(adaptive::strategy order, std::uint64_t seed, std::size_t requests) {
  using T = typename B::time_type;
  using C = typename B::capacity_type;
  std::mt19937_64 rng(seed);
  const C cluster = C(16);
  adaptive::scheduler<B> s(B(cluster, T{0}), {.order = order});
  std::map<std::uint64_t, adaptive::placement<T, C>> started;
  T now{0};
  std::size_t rejected = 0;
  for (std::size_t i = 0; i < requests; ++i) {
    now = T(now + std::uniform_int_distribution<int>(0, 12)(rng));
    const auto req = random_request<T, C>(rng, i, now, cluster);
    INFO("seed " << seed << ", request " << i << " at " << now);
    const auto d = s.submit(req, now);
    if (!d.accepted) ++rejected;
    if (d.accepted) CHECK(d.where.completion() <= req.deadline);
    check_schedule(s, started);
  }
  const auto m = s.metrics();
  CHECK(m.submitted == requests);
  CHECK(m.rejected == rejected);
  CHECK(m.accepted + m.rejected == requests);
  // Sanity of the run itself: the load is high enough to reject and to accept.
  CHECK(m.accepted > requests / 4);
  CHECK(m.rejected > 0);
  CHECK(m.profit > 0.0);
}

}  // namespace

TEST_CASE_TEMPLATE("adaptive scheduler: randomised runs keep every invariant", B,
                   LEASEHOLD_EXACT_SCALAR_BACKENDS) {
  const std::size_t requests = leasehold::testing::random_ops_per_seed(150);
  for (const std::uint64_t seed : {11u, 12u, 13u}) {
    random_run<B>(adaptive::strategy::fifo, seed, requests);
    random_run<B>(adaptive::strategy::missing_deadline_first, seed, requests);
  }
}

TEST_CASE("adaptive scheduler: MDF and FIFO see the same requests, MDF reschedules some") {
  // Both strategies on the same seeded stream; MDF must have adopted a new order at least once
  // (otherwise the rescheduling path went untested).
  std::mt19937_64 rng(5);
  adaptive::scheduler<> fifo(std::int64_t{16}, {.order = adaptive::strategy::fifo});
  adaptive::scheduler<> mdf(std::int64_t{16},
                            {.order = adaptive::strategy::missing_deadline_first});
  std::int64_t now = 0;
  for (std::uint64_t i = 0; i < 200; ++i) {
    now += std::uniform_int_distribution<int>(0, 8)(rng);
    const auto req = random_request<std::int64_t, std::int64_t>(rng, i, now, 16);
    (void)fifo.submit(req, now);
    (void)mdf.submit(req, now);
  }
  CHECK(mdf.metrics().reschedules > 0);
  CHECK(fifo.metrics().reschedules == 0);
  MESSAGE("FIFO rejected " << fifo.metrics().rejected << ", MDF " << mdf.metrics().rejected
                           << " of 200");
}

}  // namespace invariants_test
