// The adaptive scheduler's hand-computed cases (Netto & Buyya, Algorithm 1 and §3.3) on every
// exact scalar backend: a moldable request taking fewer resources to finish earlier, a split
// request filling two gaps, Missing-Deadline-First saving a deadline FIFO would miss without
// breaking an accepted one, a rejection when no shape meets the deadline, the metrics, bad
// input rejected with nothing changed, and completed requests handed out once by
// take_finished() while metrics() and the duplicate-id check still count them.

#include <doctest/doctest.h>

#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

#include <leasehold/policy/adaptive/scheduler.hpp>

#include "availability/backends.hpp"
#include "availability/differential.hpp"

namespace scheduler_test {

using namespace leasehold;
namespace adaptive = leasehold::policy::adaptive;
using leasehold::testing::blocks_of;

namespace {

template <class B>
using request_of = adaptive::adaptive_request<typename B::time_type, typename B::capacity_type>;
template <class B>
using piece_of = adaptive::sub_request<typename B::time_type, typename B::capacity_type>;

template <class B>
request_of<B> rigid_request(std::uint64_t id, int submit, int resources, int duration,
                            int deadline) {
  using T = typename B::time_type;
  using C = typename B::capacity_type;
  return adaptive::rigid<T, C>(id, T(submit), C(resources), T(duration), T(deadline));
}

template <class B>
adaptive::scheduler<B> make(int total, adaptive::strategy order,
                            std::vector<std::pair<interval<int>, int>> bookings = {}) {
  using T = typename B::time_type;
  using C = typename B::capacity_type;
  B profile(C(total), T{0});
  for (const auto& [span, amount] : bookings)
    profile.reserve({T(span.begin), T(span.end)}, C(amount));
  return adaptive::scheduler<B>(std::move(profile), {.order = order});
}

}  // namespace

TEST_CASE_TEMPLATE(
    "adaptive scheduler: a moldable request takes fewer resources to finish "
    "earlier",
    B, LEASEHOLD_EXACT_SCALAR_BACKENDS) {
  using T = typename B::time_type;
  using C = typename B::capacity_type;
  // 10 resources, 4 of them busy over [0, 100). R in 5..10 with Table 1's line through
  // (10, 50) and (5, 100): f(10) = 50, f(9) = 60, f(8) = 70, f(7) = 80, f(6) = 90, f(5) = 100.
  // R = 7..10 must wait for 100 (completions 150..180); R = 6 starts at 0 and completes at 90,
  // R = 5 at 100: Algorithm 1 keeps R = 6.
  for (auto order : {adaptive::strategy::fifo, adaptive::strategy::missing_deadline_first}) {
    auto s = make<B>(10, order, {{{0, 100}, 4}});
    request_of<B> r;
    r.id = 1;
    r.r_min = C(5);
    r.r_max = C(10);
    r.f_mol = adaptive::linear_moldability<T, C>(C(5), C(10), T(50));
    r.deadline = T(1000);
    const auto d = s.submit(r, T{0});
    REQUIRE(d.accepted);
    CHECK(d.where == adaptive::placement<T, C>{{piece_of<B>{{T(0), T(90)}, C(6), 0, 100}}});
    const auto m = s.metrics();
    CHECK(m.moldable_accepted == 1);
    CHECK(m.reshaped == 1);
    CHECK(m.mean_modification == doctest::Approx(0.8));  // (10 - 6) / (10 - 5)
    CHECK(m.mean_response == doctest::Approx(90.0));

    // The same request, rigid at R_max, completes at 150.
    auto rigid = r;
    rigid.id = 2;
    rigid.r_min = C(10);
    auto s2 = make<B>(10, order, {{{0, 100}, 4}});
    CHECK(s2.submit(rigid, T{0}).where.completion() == T(150));
  }
}

TEST_CASE_TEMPLATE("adaptive scheduler: a split request fills two gaps", B,
                   LEASEHOLD_EXACT_SCALAR_BACKENDS) {
  using T = typename B::time_type;
  using C = typename B::capacity_type;
  // 4 resources, full over [10, 20) and [30, 60): gaps of 10 at 0 and at 20. A rigid request
  // of 4 x 20 waits for 60 and completes at 80; split in halves (Sp = (2, 50 %, false)) it
  // runs [0, 10) and [20, 30) and completes at 30.
  const std::vector<std::pair<interval<int>, int>> busy{{{10, 20}, 4}, {{30, 60}, 4}};
  auto r = rigid_request<B>(1, 0, 4, 20, 1000);
  {
    auto s = make<B>(4, adaptive::strategy::fifo, busy);
    CHECK(s.submit(r, T{0}).where ==
          adaptive::placement<T, C>{{piece_of<B>{{T(60), T(80)}, C(4), 0, 100}}});
  }
  r.split = {.pieces = 2, .interval_percent = 50, .moldable = false};
  auto s = make<B>(4, adaptive::strategy::fifo, busy);
  const auto d = s.submit(r, T{0});
  REQUIRE(d.accepted);
  CHECK(d.where == adaptive::placement<T, C>{{piece_of<B>{{T(0), T(10)}, C(4), 0, 50},
                                              piece_of<B>{{T(20), T(30)}, C(4), 50, 100}}});
  CHECK(s.metrics().split == 1);
  CHECK(s.metrics().mean_pieces == doctest::Approx(2.0));

  SUBCASE("split points at 25 %: the first gap takes two quarters, the second the rest") {
    r.split = {.pieces = 4, .interval_percent = 25, .moldable = false};
    auto s4 = make<B>(4, adaptive::strategy::fifo, busy);
    CHECK(s4.submit(r, T{0}).where ==
          adaptive::placement<T, C>{{piece_of<B>{{T(0), T(10)}, C(4), 0, 50},
                                     piece_of<B>{{T(20), T(30)}, C(4), 50, 100}}});
  }
  SUBCASE("split points at 40 %: only 8 ticks fit in each gap, so a third piece is needed") {
    // Slices of 20 ticks at 40 / 80 / 100 %: 8, 8, 4. [0, 8), [20, 28), then [60, 64).
    r.split = {.pieces = 3, .interval_percent = 40, .moldable = false};
    auto s3 = make<B>(4, adaptive::strategy::fifo, busy);
    CHECK(s3.submit(r, T{0}).where ==
          adaptive::placement<T, C>{{piece_of<B>{{T(0), T(8)}, C(4), 0, 40},
                                     piece_of<B>{{T(20), T(28)}, C(4), 40, 80},
                                     piece_of<B>{{T(60), T(64)}, C(4), 80, 100}}});
  }
  SUBCASE("moldable pieces: M lets the second piece use another R") {
    // 4 resources; [10, 20) full; [20, 40) has 2 free. 0..50 % on 4 resources in [0, 10); the
    // second half on 2 resources takes f(2) / 2 = 20 ticks: [20, 40) instead of waiting for 40.
    auto s_m = make<B>(4, adaptive::strategy::fifo, {{{10, 20}, 4}, {{20, 40}, 2}});
    auto m = r;
    m.r_min = C(2);
    m.f_mol = adaptive::constant_work<T, C>{80};  // f(4) = 20, f(3) = 27, f(2) = 40
    m.split = {.pieces = 2, .interval_percent = 50, .moldable = true};
    CHECK(s_m.submit(m, T{0}).where ==
          adaptive::placement<T, C>{{piece_of<B>{{T(0), T(10)}, C(4), 0, 50},
                                     piece_of<B>{{T(20), T(40)}, C(2), 50, 100}}});
  }
}

TEST_CASE_TEMPLATE("adaptive scheduler: Missing-Deadline-First saves a deadline FIFO misses", B,
                   LEASEHOLD_EXACT_SCALAR_BACKENDS) {
  using T = typename B::time_type;
  using C = typename B::capacity_type;
  using placement_type = adaptive::placement<T, C>;
  // One resource. A (10 ticks) arrives at 0 and runs [0, 10). B (50 ticks, deadline 1000)
  // arrives at 1 and waits for [10, 60). C (10 ticks, deadline 30) arrives at 2.
  const auto a = rigid_request<B>(1, 0, 1, 10, 100);
  const auto b = rigid_request<B>(2, 1, 1, 50, 1000);
  const auto c = rigid_request<B>(3, 2, 1, 10, 30);

  SUBCASE("FIFO: the next hole after B is [60, 70), past C's deadline") {
    auto s = make<B>(1, adaptive::strategy::fifo);
    CHECK(s.submit(a, T(0)).accepted);
    CHECK(s.submit(b, T(1)).accepted);
    s.advance_to(T(2));  // a rejection at 2 is compared with the profile as of 2
    const auto before = blocks_of(s.profile());
    const auto d = s.submit(c, T(2));
    CHECK_FALSE(d.accepted);
    CHECK(d.reason.find("deadline 30") != std::string::npos);
    CHECK(blocks_of(s.profile()) == before);
    CHECK(s.metrics().rejected == 1);
  }
  SUBCASE("MDF: slack(C) = 30 - 2 - 10 = 18 < slack(B) = 1000 - 2 - 50 = 948; C goes first") {
    auto s = make<B>(1, adaptive::strategy::missing_deadline_first);
    CHECK(s.submit(a, T(0)).accepted);
    CHECK(s.submit(b, T(1)).accepted);
    CHECK(s.waiting() == 1);
    const auto d = s.submit(c, T(2));
    REQUIRE(d.accepted);
    CHECK(d.where == placement_type{{piece_of<B>{{T(10), T(20)}, C(1), 0, 100}}});
    CHECK(*s.find(2) == placement_type{{piece_of<B>{{T(20), T(70)}, C(1), 0, 100}}});
    CHECK(*s.find(1) == placement_type{{piece_of<B>{{T(0), T(10)}, C(1), 0, 100}}});
    const auto m = s.metrics();
    CHECK(m.accepted == 3);
    CHECK(m.rejected == 0);
    CHECK(m.reschedules == 1);
    CHECK(m.mean_response == doctest::Approx((10.0 + 69.0 + 18.0) / 3.0));
  }
  SUBCASE("MDF never breaks an accepted deadline: with B due at 65 the new order is refused") {
    auto s = make<B>(1, adaptive::strategy::missing_deadline_first);
    auto tight_b = rigid_request<B>(2, 1, 1, 50, 65);
    CHECK(s.submit(a, T(0)).accepted);
    CHECK(s.submit(tight_b, T(1)).accepted);
    s.advance_to(T(2));
    const auto before = blocks_of(s.profile());
    CHECK_FALSE(s.submit(c, T(2)).accepted);
    CHECK(*s.find(2) == placement_type{{piece_of<B>{{T(10), T(60)}, C(1), 0, 100}}});
    CHECK(blocks_of(s.profile()) == before);
    CHECK(s.metrics().reschedules == 0);
  }
  SUBCASE("MDF never moves a running request") {
    // At 12, A is done and B has started (at 10): C can only go after B, at [60, 70).
    auto s = make<B>(1, adaptive::strategy::missing_deadline_first);
    CHECK(s.submit(a, T(0)).accepted);
    CHECK(s.submit(b, T(1)).accepted);
    auto late_c = rigid_request<B>(3, 12, 1, 10, 100);
    const auto d = s.submit(late_c, T(12));
    REQUIRE(d.accepted);
    CHECK(d.where.start() == T(60));
    CHECK(*s.find(2) == placement_type{{piece_of<B>{{T(10), T(60)}, C(1), 0, 100}}});
  }
}

TEST_CASE_TEMPLATE("adaptive scheduler: rejected when no shape meets the deadline", B,
                   LEASEHOLD_EXACT_SCALAR_BACKENDS) {
  using T = typename B::time_type;
  using C = typename B::capacity_type;
  // 10 resources, 8 busy over [0, 100). R in 4..8 with f(8) = 40 .. f(4) = 80: every shape
  // needs at least 4 resources, only 2 are free before 100, so the earliest completion is
  // 100 + 40 = 140 > D = 90 (and a 4-wide start at 0 is impossible).
  for (auto order : {adaptive::strategy::fifo, adaptive::strategy::missing_deadline_first}) {
    auto s = make<B>(10, order, {{{0, 100}, 8}});
    request_of<B> r;
    r.id = 9;
    r.r_min = C(4);
    r.r_max = C(8);
    r.f_mol = adaptive::linear_moldability<T, C>(C(4), C(8), T(40));
    r.deadline = T(90);
    r.split = {.pieces = 10, .interval_percent = 10, .moldable = true};
    const auto before = blocks_of(s.profile());
    const auto d = s.submit(r, T{0});
    CHECK_FALSE(d.accepted);
    CHECK(d.where.pieces.empty());
    CHECK(blocks_of(s.profile()) == before);
    CHECK(s.find(9) == nullptr);
    CHECK(s.metrics().rejected == 1);
    CHECK(s.metrics().profit == 0.0);
    // With the deadline at 140 it is accepted, at R_max from 100.
    r.id = 10;
    r.deadline = T(140);
    CHECK(s.submit(r, T{0}).where.completion() == T(140));
  }
}

TEST_CASE_TEMPLATE("adaptive scheduler: bad input is rejected and changes nothing", B,
                   LEASEHOLD_EXACT_SCALAR_BACKENDS) {
  using T = typename B::time_type;
  using C = typename B::capacity_type;
  for (auto order : {adaptive::strategy::fifo, adaptive::strategy::missing_deadline_first}) {
    auto s = make<B>(8, order);
    REQUIRE(s.submit(rigid_request<B>(1, 0, 2, 50, 1000), T(0)).accepted);
    REQUIRE(s.submit(rigid_request<B>(2, 5, 8, 50, 1000), T(5)).accepted);
    const auto blocks = blocks_of(s.profile());
    const auto placed = *s.find(2);
    const auto check_unchanged = [&] {
      CHECK(blocks_of(s.profile()) == blocks);
      CHECK(*s.find(2) == placed);
      CHECK(s.now() == T(5));
      CHECK(s.metrics().submitted == 2);
      CHECK(s.waiting() == 1);
    };
    auto good = rigid_request<B>(3, 6, 4, 10, 1000);
    const auto rejects = [&](request_of<B> bad, T now, const char* mention) {
      CHECK_THROWS_WITH_AS(s.submit(bad, now), doctest::Contains(mention), invalid_request);
      check_unchanged();
    };
    auto bad = good;
    bad.r_min = C(5);
    rejects(bad, T(6), "R_min 5 exceeds R_max 4");
    bad = good;
    bad.r_max = C(9);
    rejects(bad, T(6), "R_max 9 exceeds the cluster's 8");
    bad = good;
    bad.f_mol = [](C) { return T(0); };
    rejects(bad, T(6), "f_mol(4) = 0");
    bad = good;
    bad.split.pieces = 0;
    rejects(bad, T(6), "N = 0");
    bad = good;
    bad.id = 2;
    rejects(bad, T(6), "duplicate id");
    rejects(good, T(4), "before the current time 5");
    bad = good;
    bad.submit = T(7);
    rejects(bad, T(6), "submitted at 7");
    CHECK_THROWS_AS(s.advance_to(T(3)), invalid_request);
    check_unchanged();
    // Still usable afterwards.
    CHECK(s.submit(good, T(6)).accepted);
  }
}

TEST_CASE_TEMPLATE("adaptive scheduler: a throwing pricing function changes nothing", B,
                   LEASEHOLD_EXACT_SCALAR_BACKENDS) {
  using T = typename B::time_type;
  using C = typename B::capacity_type;
  using placement_type = adaptive::placement<T, C>;
  // The MDF case above: C (id 3) arriving at 2 moves B from [10, 60) to [20, 70). Here the
  // user's pricing function throws when it prices C, after the profile was rebooked: the
  // exception must reach the caller with the old schedule, clock and counters intact, and C
  // must still be new (a second submit with a working price is accepted as in the case above).
  bool refuse = true;
  for (auto order : {adaptive::strategy::fifo, adaptive::strategy::missing_deadline_first}) {
    CAPTURE(order);
    adaptive::scheduler<B> s(B(C(1), T{0}),
                             {.order = order,
                              .price = [&refuse](const adaptive::adaptive_request<T, C>& req,
                                                 const adaptive::placement<T, C>& where) {
                                if (refuse && req.id == 3)
                                  throw std::runtime_error("pricing service unavailable");
                                return adaptive::algorithm2{}(req, where);
                              }});
    refuse = true;
    CHECK(s.submit(rigid_request<B>(1, 0, 1, 10, 100), T(0)).accepted);
    CHECK(s.submit(rigid_request<B>(2, 1, 1, 50, 1000), T(1)).accepted);
    const auto before = blocks_of(s.profile());
    const auto m = s.metrics();
    const auto c = rigid_request<B>(3, 2, 1, 10, order == adaptive::strategy::fifo ? 100 : 30);
    CHECK_THROWS_WITH_AS(s.submit(c, T(2)), "pricing service unavailable", std::runtime_error);
    CHECK(blocks_of(s.profile()) == before);
    CHECK(s.now() == T(1));
    CHECK(s.waiting() == 1);
    CHECK(s.find(3) == nullptr);
    CHECK(*s.find(2) == placement_type{{piece_of<B>{{T(10), T(60)}, C(1), 0, 100}}});
    CHECK(s.metrics().submitted == m.submitted);
    CHECK(s.metrics().reschedules == 0);
    refuse = false;
    const auto d = s.submit(c, T(2));
    REQUIRE(d.accepted);
    if (order == adaptive::strategy::missing_deadline_first) {
      CHECK(d.where == placement_type{{piece_of<B>{{T(10), T(20)}, C(1), 0, 100}}});
      CHECK(*s.find(2) == placement_type{{piece_of<B>{{T(20), T(70)}, C(1), 0, 100}}});
    } else {
      CHECK(d.where == placement_type{{piece_of<B>{{T(60), T(70)}, C(1), 0, 100}}});
    }
    CHECK(s.metrics().submitted == m.submitted + 1);
  }
}

TEST_CASE_TEMPLATE("adaptive scheduler: take_finished hands out completed requests once", B,
                   LEASEHOLD_EXACT_SCALAR_BACKENDS) {
  using T = typename B::time_type;
  // 4 resources; ids 1, 2, 3 and 5 rigid, each 2 wide: 1 on [0, 10), 2 on [0, 20), 3 on
  // [10, 30) after 1, 5 on [20, 40) after 2. At 25, 1 and 2 have completed, 3 and 5 run.
  for (auto order : {adaptive::strategy::fifo, adaptive::strategy::missing_deadline_first}) {
    auto s = make<B>(4, order);
    REQUIRE(s.submit(rigid_request<B>(1, 0, 2, 10, 1000), T(0)).accepted);
    REQUIRE(s.submit(rigid_request<B>(2, 0, 2, 20, 1000), T(0)).accepted);
    REQUIRE(s.submit(rigid_request<B>(3, 0, 2, 20, 1000), T(0)).accepted);
    REQUIRE(s.submit(rigid_request<B>(5, 0, 2, 20, 1000), T(0)).accepted);
    CHECK(s.find(3)->start() == T(10));
    CHECK(s.find(5)->start() == T(20));
    CHECK(s.take_finished().empty());  // nothing has completed at 0
    s.advance_to(T(25));
    const auto before = s.metrics();
    CHECK(s.held() == 4);
    const auto taken = s.take_finished();
    REQUIRE(taken.size() == 2);
    CHECK(taken[0].request.id == 1);
    CHECK(taken[0].where.completion() == T(10));
    CHECK(taken[1].request.id == 2);
    CHECK(taken[1].where.completion() == T(20));
    CHECK(s.take_finished().empty());  // once only
    CHECK(s.held() == 2);
    CHECK(s.find(1) == nullptr);
    CHECK(s.find(3) != nullptr);
    std::vector<std::uint64_t> visited;
    s.for_each_accepted([&visited](const auto& record) { visited.push_back(record.request.id); });
    CHECK(visited == std::vector<std::uint64_t>{3, 5});
    // metrics() still counts the taken ones, at the placements they had.
    const auto after = s.metrics();
    CHECK(after.accepted == 4);
    CHECK(after.submitted == before.submitted);
    CHECK(after.profit == doctest::Approx(before.profit));
    CHECK(after.mean_response == doctest::Approx(before.mean_response));
    CHECK(after.mean_response == doctest::Approx((10.0 + 20.0 + 30.0 + 40.0) / 4));
    // Their ids stay taken: 4 joins the ranges {1..3} and {5}; 0 and 6 are new.
    for (const std::uint64_t id : {1U, 2U, 3U, 5U})
      CHECK_THROWS_WITH_AS(s.submit(rigid_request<B>(id, 25, 1, 5, 1000), T(25)),
                           doctest::Contains("duplicate id"), invalid_request);
    CHECK(s.submit(rigid_request<B>(4, 25, 1, 5, 1000), T(25)).accepted);
    CHECK_THROWS_AS(s.submit(rigid_request<B>(4, 25, 1, 5, 1000), T(25)), invalid_request);
    CHECK(s.submit(rigid_request<B>(0, 25, 1, 5, 1000), T(25)).accepted);
    CHECK(s.submit(rigid_request<B>(6, 25, 1, 5, 1000), T(25)).accepted);
    CHECK(s.metrics().accepted == 7);
  }
}

TEST_CASE_TEMPLATE("adaptive scheduler: take_finished changes nothing when pricing throws", B,
                   LEASEHOLD_EXACT_SCALAR_BACKENDS) {
  using T = typename B::time_type;
  using C = typename B::capacity_type;
  bool refuse = false;
  adaptive::scheduler<B> s(B(C(2), T{0}),
                           {.price = [&refuse](const adaptive::adaptive_request<T, C>& req,
                                               const adaptive::placement<T, C>& where) {
                             if (refuse) throw std::runtime_error("pricing service unavailable");
                             return adaptive::algorithm2{}(req, where);
                           }});
  REQUIRE(s.submit(rigid_request<B>(1, 0, 1, 10, 100), T(0)).accepted);
  REQUIRE(s.submit(rigid_request<B>(2, 0, 1, 30, 100), T(0)).accepted);
  s.advance_to(T(15));
  refuse = true;
  CHECK_THROWS_AS((void)s.take_finished(), std::runtime_error);
  CHECK(s.held() == 2);
  CHECK(s.find(1) != nullptr);
  refuse = false;
  CHECK(s.take_finished().size() == 1);
  CHECK(s.metrics().accepted == 2);
}

TEST_CASE("adaptive scheduler: an empty pricing function is refused") {
  CHECK_THROWS_AS(adaptive::scheduler<>(std::int64_t{4}, {.price = nullptr}), invalid_request);
}

TEST_CASE_TEMPLATE("adaptive scheduler: allowed R and Algorithm 1's tie-break", B,
                   LEASEHOLD_EXACT_SCALAR_BACKENDS) {
  using T = typename B::time_type;
  using C = typename B::capacity_type;
  // 16 resources, 8 busy over [0, 100). R in 3..16 restricted to powers of two, constant work
  // 1600: R = 16 runs 100 (from 100, completes 200), R = 8 runs 200 (from 0, completes 200),
  // R = 4 runs 400. 16 and 8 tie at 200; Algorithm 1 meets R = 8 first (event time 0) and keeps
  // it (strict >), so the request runs on 8 from 0.
  auto s = make<B>(16, adaptive::strategy::fifo, {{{0, 100}, 8}});
  request_of<B> r;
  r.id = 4;
  r.r_min = C(3);
  r.r_max = C(16);
  r.f_mol = adaptive::constant_work<T, C>{1600};
  r.allowed = adaptive::powers_of_two{};
  const auto d = s.submit(r, T{0});
  REQUIRE(d.accepted);
  CHECK(d.where == adaptive::placement<T, C>{{piece_of<B>{{T(0), T(200)}, C(8), 0, 100}}});
  const auto m = s.metrics();
  CHECK(m.reshaped == 1);
  CHECK(m.mean_modification == doctest::Approx(8.0 / 12.0));  // (16 - 8) / (16 - 4)
  // With 9 busy, R = 8 no longer fits at 0; R = 4 would complete at 400, R = 16 at 200.
  auto s2 = make<B>(16, adaptive::strategy::fifo, {{{0, 100}, 9}});
  CHECK(s2.submit(r, T{0}).where ==
        adaptive::placement<T, C>{{piece_of<B>{{T(100), T(200)}, C(16), 0, 100}}});
}

}  // namespace scheduler_test
