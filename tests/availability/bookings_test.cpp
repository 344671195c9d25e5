// bookings<A>: bookings with identity over every backend. Hand-computed cases first, then a
// randomised run against a model (reference<T, C> plus a plain map of what was booked), with
// every bad call checked to throw and leave the structure equal to a copy taken before it.

#include <doctest/doctest.h>

#include <cstddef>
#include <cstdint>
#include <map>
#include <optional>
#include <random>
#include <vector>

#include "availability/backends.hpp"

namespace bookings_test {

using namespace leasehold;

namespace {

template <class B>
using ledger = bookings<B>;

template <class B>
typename B::capacity_type amount(std::int64_t n) {
  return static_cast<typename B::capacity_type>(n);
}

template <class L>
std::vector<typename L::block_type> blocks(const L& l) {
  const auto all = l.free_blocks();
  return {all.begin(), all.end()};
}

}  // namespace

TEST_CASE_TEMPLATE("bookings: book, release and shrink by id, hand-computed", B,
                   LEASEHOLD_EXACT_SCALAR_BACKENDS) {
  using T = typename B::time_type;
  ledger<B> l(B(amount<B>(10)));
  CHECK(l.next_id() == booking_id{1});

  const booking_id first = l.book({T{0}, T{10}}, amount<B>(4));
  const booking_id second = l.book({T{5}, T{15}}, amount<B>(3));
  CHECK(first == booking_id{1});
  CHECK(second == booking_id{2});
  CHECK(l.size() == 2);
  CHECK(l.free_at(T{2}) == 6);
  CHECK(l.free_at(T{7}) == 3);
  CHECK(l.free_at(T{12}) == 7);
  REQUIRE(l.find(second) != nullptr);
  CHECK(l.find(second)->span == interval<T>{T{5}, T{15}});
  CHECK(l.find(second)->amount == 3);

  l.release(first);
  CHECK_FALSE(l.contains(first));
  CHECK(l.free_at(T{2}) == 10);
  CHECK(l.free_at(T{7}) == 7);

  // The released id is gone: releasing it again is refused and changes nothing, although
  // the profile alone could give back 3 more at [5, 10) (the other booking's capacity).
  const ledger<B> before = l;
  CHECK_THROWS_AS(l.release(first), invalid_release);
  CHECK_THROWS_AS(l.release(booking_id{99}), invalid_release);
  CHECK(l == before);

  CHECK_FALSE(l.shrink(second, amount<B>(1)));
  CHECK(l.find(second)->amount == 2);
  CHECK(l.free_at(T{7}) == 8);
  CHECK_THROWS_AS((void)l.shrink(second, amount<B>(3)), invalid_release);
  CHECK_THROWS_AS((void)l.shrink(second, amount<B>(-1)), invalid_release);
  CHECK(l.find(second)->amount == 2);
  CHECK_FALSE(l.shrink(second, amount<B>(0)));
  CHECK(l.shrink(second, amount<B>(2)));
  CHECK(l.empty());
  CHECK(blocks(l) == std::vector<typename B::block_type>{{{T{0}, forever<T>}, amount<B>(10)}});
  CHECK(l.next_id() == booking_id{3});
}

TEST_CASE_TEMPLATE("bookings: a booking of nothing has an id and holds nothing", B,
                   LEASEHOLD_EXACT_SCALAR_BACKENDS) {
  using T = typename B::time_type;
  ledger<B> l(B(amount<B>(8)));
  const booking_id id = l.book({T{3}, T{9}}, amount<B>(0));
  CHECK(l.contains(id));
  CHECK(l.block_count() == 1);
  CHECK(l.free_at(T{5}) == 8);
  l.release(id);
  CHECK(l.empty());
  CHECK(l.block_count() == 1);
}

TEST_CASE_TEMPLATE("bookings: bad calls throw and change nothing", B,
                   LEASEHOLD_EXACT_SCALAR_BACKENDS) {
  using T = typename B::time_type;
  ledger<B> l(B(amount<B>(10), T{100}));
  (void)l.book({T{100}, T{200}}, amount<B>(6));
  const ledger<B> before = l;
  CHECK_THROWS_AS(l.book({T{150}, T{160}}, amount<B>(5)), insufficient_capacity);
  CHECK_THROWS_AS(l.book({T{90}, T{160}}, amount<B>(1)), invalid_request);    // before the origin
  CHECK_THROWS_AS(l.book({T{160}, T{150}}, amount<B>(1)), invalid_request);   // reversed
  CHECK_THROWS_AS(l.book({T{150}, T{150}}, amount<B>(1)), invalid_request);   // empty
  CHECK_THROWS_AS(l.book({T{150}, T{160}}, amount<B>(11)), invalid_request);  // above the total
  CHECK_THROWS_AS(l.book({T{150}, T{160}}, amount<B>(-1)), invalid_request);
  CHECK_THROWS_WITH_AS(l.release(booking_id{7}), doctest::Contains("booking #7"), invalid_release);
  CHECK(l == before);
  CHECK(l.next_id() == booking_id{2});
}

TEST_CASE_TEMPLATE("bookings: an anonymous release of a booking's capacity is caught at release", B,
                   LEASEHOLD_EXACT_SCALAR_BACKENDS) {
  using T = typename B::time_type;
  ledger<B> l(B(amount<B>(10)));
  const booking_id id = l.book({T{0}, T{10}}, amount<B>(4));
  l.release({T{0}, T{10}}, amount<B>(4));  // the profile cannot tell; the ledger still holds it
  const ledger<B> before = l;
  CHECK_THROWS_AS(l.release(id), invalid_release);
  CHECK(l == before);
  CHECK_THROWS_AS(l.validate(), invariant_violation);
}

TEST_CASE_TEMPLATE("bookings: clear releases every booking or none", B,
                   LEASEHOLD_EXACT_SCALAR_BACKENDS) {
  using T = typename B::time_type;
  ledger<B> l(B(amount<B>(10)));
  (void)l.book({T{20}, T{30}}, amount<B>(2));
  (void)l.book({T{0}, T{10}}, amount<B>(4));
  l.release({T{0}, T{10}}, amount<B>(4));  // what the second booking holds, given back anonymously
  const ledger<B> before = l;
  // The first booking's release succeeds, the second's is refused: the first stays booked.
  CHECK_THROWS_AS(l.clear(), invalid_release);
  CHECK(l == before);
  CHECK(l.free_at(T{25}) == 8);
}

TEST_CASE_TEMPLATE("bookings: the plan end bounds bookings and searches", B,
                   LEASEHOLD_EXACT_SCALAR_BACKENDS) {
  using T = typename B::time_type;
  ledger<B> l(B(amount<B>(4)));
  l.set_plan_end(T{100});
  CHECK(l.plan_end() == T{100});
  CHECK_THROWS_AS(l.book({T{90}, T{101}}, amount<B>(1)), invalid_request);
  CHECK_THROWS_AS(l.reserve({T{90}, T{101}}, amount<B>(1)), invalid_request);
  const booking_id id = l.book({T{0}, T{60}}, amount<B>(3));

  // Two units are free only from 60; 30 units of time then end at 90, inside the plan.
  CHECK(l.earliest_fit({amount<B>(2), T{30}}) == T{60});
  // 50 would end at 110, past the plan end: no answer rather than a start past it.
  CHECK(l.earliest_fit({amount<B>(2), T{50}}) == std::nullopt);
  CHECK(l.latest_fit({amount<B>(2), T{30}}) == T{70});
  CHECK(l.earliest_fit({amount<B>(1), T{100}}) == T{0});
  CHECK(l.earliest_fit({amount<B>(1), T{101}}) == std::nullopt);
  // A window shorter than the duration has no answer here (the bare profile calls it
  // malformed); a non-positive duration or an amount above the total is still malformed.
  CHECK(l.earliest_fit({amount<B>(1), T{10}, {T{0}, T{5}}}) == std::nullopt);
  CHECK_THROWS_AS((void)l.earliest_fit({amount<B>(1), T{0}}), invalid_request);
  CHECK_THROWS_AS((void)l.earliest_fit({amount<B>(5), T{10}, {T{0}, T{5}}}), invalid_request);

  // The plan end cannot cut a live booking, and must lie after the origin.
  CHECK_THROWS_AS(l.set_plan_end(T{50}), invalid_request);
  CHECK(l.plan_end() == T{100});
  l.set_plan_end(T{60});
  CHECK(l.plan_end() == T{60});
  l.release(id);
  l.set_plan_end(std::nullopt);
  CHECK(l.earliest_fit({amount<B>(4), T{1000}}) == T{0});
  CHECK_THROWS_AS(l.set_plan_end(T{0}), invalid_request);
}

TEST_CASE_TEMPLATE("bookings: advance_to forgets ended bookings and keeps those that span it", B,
                   LEASEHOLD_EXACT_SCALAR_BACKENDS) {
  using T = typename B::time_type;
  ledger<B> l(B(amount<B>(10)));
  const booking_id ended = l.book({T{0}, T{20}}, amount<B>(2));
  const booking_id spanning = l.book({T{10}, T{40}}, amount<B>(3));
  const booking_id later = l.book({T{50}, T{60}}, amount<B>(4));
  l.advance_to(T{20});
  CHECK_FALSE(l.contains(ended));
  CHECK(l.contains(spanning));
  CHECK(l.contains(later));
  CHECK(l.size() == 2);
  l.advance_to(T{30});
  CHECK(l.find(spanning)->span == interval<T>{T{10}, T{40}});  // as booked
  CHECK(l.free_at(T{30}) == 7);
  l.release(spanning);  // gives back [30, 40) only: the profile holds nothing before 30
  CHECK(l.free_at(T{35}) == 10);
  CHECK(blocks(l) == std::vector<typename B::block_type>{{{T{30}, T{50}}, amount<B>(10)},
                                                         {{T{50}, T{60}}, amount<B>(6)},
                                                         {{T{60}, forever<T>}, amount<B>(10)}});
  l.validate();
}

TEST_CASE_TEMPLATE("bookings: copies are deep, compare equal, and assignment replaces", B,
                   LEASEHOLD_EXACT_SCALAR_BACKENDS) {
  using T = typename B::time_type;
  ledger<B> a(B(amount<B>(10)));
  const booking_id id = a.book({T{0}, T{10}}, amount<B>(4));
  ledger<B> b = a;
  CHECK(a == b);
  b.release(id);
  CHECK_FALSE(a == b);
  CHECK(a.contains(id));
  CHECK(a.free_at(T{5}) == 6);
  // Same profile and bookings but a different next id: not equal (a planner's span counter).
  ledger<B> c(B(amount<B>(10)));
  CHECK_FALSE(b == c);
  b = a;
  CHECK(a == b);
  ledger<B> moved = std::move(b);
  CHECK(moved == a);

  // restore() is release's inverse, with the same id.
  const auto kept = *a.find(id);
  a.release(id);
  a.restore(kept);
  CHECK(a == moved);
  CHECK_THROWS_AS(a.restore(kept), invalid_request);  // live already
  CHECK_THROWS_AS(a.restore({booking_id{5}, {T{0}, T{1}}, amount<B>(1)}), invalid_request);

  a.clear();
  CHECK(a.empty());
  CHECK(a.free_at(T{5}) == 10);
  CHECK(a.next_id() == booking_id{2});
}

TEST_CASE_TEMPLATE("bookings: walking and set_total are the profile's, bookings kept", B,
                   LEASEHOLD_EXACT_SCALAR_BACKENDS) {
  using T = typename B::time_type;
  static_assert(walkable_availability<ledger<B>>);
  static_assert(resizable_availability<ledger<B>>);
  ledger<B> l(B(amount<B>(10)));
  const booking_id id = l.book({T{10}, T{20}}, amount<B>(4));
  l.reserve({T{20}, T{40}}, amount<B>(10));
  CHECK(l.next_change(T{0}) == T{10});
  CHECK(l.next_change(T{15}) == T{20});
  CHECK(l.next_change(T{40}) == std::nullopt);
  const auto in = l.blocks_in({T{5}, T{30}});
  CHECK(std::vector<typename B::block_type>(in.begin(), in.end()) ==
        std::vector<typename B::block_type>{{{T{5}, T{10}}, amount<B>(10)},
                                            {{T{10}, T{20}}, amount<B>(6)},
                                            {{T{20}, T{30}}, amount<B>(0)}});
  const auto from = l.blocks_from(T{30});
  CHECK(std::vector<typename B::block_type>(from.begin(), from.end()) ==
        std::vector<typename B::block_type>{{{T{30}, T{40}}, amount<B>(0)},
                                            {{T{40}, forever<T>}, amount<B>(10)}});

  const ledger<B> before = l;
  CHECK_THROWS_AS(l.set_total(amount<B>(9)), insufficient_capacity);
  CHECK_THROWS_AS((void)l.next_change(T{-1}), invalid_request);
  CHECK(l == before);
  l.set_total(amount<B>(12));
  CHECK(l.total() == 12);
  CHECK(l.free_at(T{15}) == 8);
  CHECK(l.find(id)->amount == 4);
  l.release(id);
  CHECK(l.free_at(T{15}) == 12);
}

TEST_CASE_TEMPLATE("bookings: vectors are booked and shrunk component by component", B,
                   LEASEHOLD_EXACT_VECTOR_BACKENDS) {
  using V = leasehold::testing::vector4;
  ledger<B> l(B(V{{8, 1024, 100, 2}}));
  const booking_id id = l.book({0, 10}, V{{2, 512, 0, 1}});
  CHECK(l.free_at(5) == V{{6, 512, 100, 1}});
  CHECK_THROWS_AS((void)l.shrink(id, V{{1, 600, 0, 0}}), invalid_release);
  CHECK_FALSE(l.shrink(id, V{{1, 256, 0, 1}}));
  CHECK(l.find(id)->amount == V{{1, 256, 0, 0}});
  CHECK(l.free_at(5) == V{{7, 768, 100, 2}});
  CHECK(l.shrink(id, V{{1, 256, 0, 0}}));
  CHECK(l.empty());
  const booking_id nothing = l.book({0, 10}, V{});
  CHECK(l.block_count() == 1);
  l.release(nothing);
}

// A seeded run of book / release / shrink / advance_to / earliest_fit, each applied to the
// ledger and to the model; every answer, the blocks and the live bookings must agree, and every
// call made deliberately bad must throw and leave the ledger equal to its copy.
TEST_CASE_TEMPLATE("bookings: next_end finds where the next live booking ends", B,
                   LEASEHOLD_EXACT_SCALAR_BACKENDS) {
  using T = typename B::time_type;
  ledger<B> l(B(amount<B>(10)));
  CHECK(!l.next_end(T{0}));
  const booking_id a = l.book({T{0}, T{20}}, amount<B>(4));
  const booking_id b = l.book({T{10}, T{30}}, amount<B>(0));  // of nothing: it ends too
  l.book({T{5}, T{20}}, amount<B>(3));                        // a second end at 20
  CHECK(l.next_end(T{0}) == T{20});
  CHECK(l.next_end(T{20}) == T{20});  // at or after
  CHECK(l.next_end(T{21}) == T{30});
  CHECK(!l.next_end(T{31}));
  l.release(a);
  CHECK(l.next_end(T{0}) == T{20});  // the other booking ending at 20 is live
  l.release(b);
  CHECK(!l.next_end(T{21}));
  // An anonymous reserve is not a booking: it has no end here.
  l.reserve({T{40}, T{50}}, amount<B>(1));
  CHECK(!l.next_end(T{21}));
  // Bookings forgotten by advance_to no longer end anywhere.
  l.advance_to(T{20});
  CHECK(!l.next_end(T{0}));
}

TEST_CASE_TEMPLATE("bookings: copies of a ledger whose ids are dense or sparse", B,
                   LEASEHOLD_EXACT_SCALAR_BACKENDS) {
  using T = typename B::time_type;
  for (const int kept_every : {1, 3, 150}) {
    CAPTURE(kept_every);
    ledger<B> l(B(amount<B>(1000)));
    std::vector<booking_id> ids;
    for (int i = 0; i < 300; ++i)
      ids.push_back(l.book({T{i % 17}, T{20 + (i * 7) % 50}}, amount<B>(i % 3)));
    for (int i = 0; i < 300; ++i)
      if (i % kept_every != 0) l.release(ids[static_cast<std::size_t>(i)]);
    const ledger<B> copy = l;
    CHECK(copy == l);
    copy.validate();
    CHECK(copy.next_end(T{0}) == l.next_end(T{0}));
    CHECK(copy.next_end(T{40}) == l.next_end(T{40}));
    // The copy's indexes are its own: releasing there leaves the original as it was.
    ledger<B> changed = copy;
    for (const booking_id id : ids)
      if (changed.contains(id)) changed.release(id);
    CHECK(changed.empty());
    CHECK(!changed.next_end(T{0}));
    CHECK(copy == l);
    changed.advance_to(T{30});
    CHECK(l.size() == copy.size());
  }
}

TEST_CASE_TEMPLATE("bookings: a restored booking goes back among later ids", B,
                   LEASEHOLD_EXACT_SCALAR_BACKENDS) {
  using T = typename B::time_type;
  ledger<B> l(B(amount<B>(10)));
  const booking_id a = l.book({T{0}, T{10}}, amount<B>(1));
  l.book({T{0}, T{10}}, amount<B>(2));
  l.book({T{0}, T{10}}, amount<B>(3));
  const booking<T, typename B::capacity_type> kept = *l.find(a);
  l.release(a);
  l.restore(kept);
  std::vector<std::uint64_t> ids;
  for (const auto& b : l.live()) ids.push_back(b.id.value);
  CHECK(ids == std::vector<std::uint64_t>{1, 2, 3});
  CHECK(l.book({T{0}, T{10}}, amount<B>(4)).value == 4);
  l.validate();
}

TEST_CASE_TEMPLATE("bookings: randomised against reference and a map of what was booked", B,
                   LEASEHOLD_EXACT_SCALAR_BACKENDS) {
  using T = typename B::time_type;
  using C = typename B::capacity_type;
  for (std::uint64_t seed = 1; seed <= 6; ++seed) {
    CAPTURE(seed);
    std::mt19937_64 random(seed);
    const auto draw = [&random](std::int64_t lo, std::int64_t hi) {
      return std::uniform_int_distribution<std::int64_t>(lo, hi)(random);
    };
    ledger<B> l(B(C{16}));
    reference<T, C> model(C{16});
    std::map<std::uint64_t, booking<T, C>> booked;
    std::uint64_t next = 1;
    for (int step = 0; step < 400; ++step) {
      CAPTURE(step);
      const T origin = model.origin();
      const int op = static_cast<int>(draw(0, 9));
      if (op <= 3) {
        const T begin = static_cast<T>(origin + draw(0, 300));
        const interval<T> span{begin, static_cast<T>(begin + draw(1, 60))};
        const C want = static_cast<C>(draw(0, 8));
        const bool fits_now = want == 0 || model.min_free(span) >= want;
        if (fits_now) {
          const booking_id id = l.book(span, want);
          CHECK(id.value == next);
          if (want > 0) model.reserve(span, want);
          booked[next] = {id, span, want};
          ++next;
        } else {
          const ledger<B> before = l;
          CHECK_THROWS_AS(l.book(span, want), insufficient_capacity);
          CHECK(l == before);
        }
      } else if (op <= 5 && !booked.empty()) {
        auto it = booked.begin();
        std::advance(it, draw(0, static_cast<std::int64_t>(booked.size()) - 1));
        const booking<T, C> b = it->second;
        const interval<T> held{std::max(b.span.begin, origin), b.span.end};
        if (op == 4) {
          l.release(b.id);
          if (b.amount > 0) model.release(held, b.amount);
          booked.erase(it);
        } else {
          const C by = static_cast<C>(draw(0, b.amount));
          const bool gone = l.shrink(b.id, by);
          CHECK(gone == (by == b.amount));
          if (by > 0) model.release(held, by);
          if (gone)
            booked.erase(it);
          else
            it->second.amount = static_cast<C>(b.amount - by);
        }
      } else if (op == 6) {
        const ledger<B> before = l;
        CHECK_THROWS_AS(l.release(booking_id{next + 5}), invalid_release);
        if (!booked.empty()) {
          const booking<T, C>& b = booked.begin()->second;
          CHECK_THROWS_AS((void)l.shrink(b.id, static_cast<C>(b.amount + 1)), invalid_release);
        }
        CHECK(l == before);
      } else if (op == 7) {
        const T to = static_cast<T>(origin + draw(0, 40));
        l.advance_to(to);
        model.advance_to(to);
        std::erase_if(booked, [to](const auto& entry) { return entry.second.span.end <= to; });
      } else {
        const request<T, C> r{static_cast<C>(draw(1, 16)),
                              static_cast<T>(draw(1, 80)),
                              {static_cast<T>(origin + draw(0, 200)), forever<T>}};
        CHECK(l.earliest_fit(r) == model.earliest_fit(r));
        // next_end against every live booking's end.
        const T t = static_cast<T>(origin + draw(0, 400));
        std::optional<T> end;
        for (const auto& [id, b] : booked)
          if (b.span.end >= t && (!end || b.span.end < *end)) end = b.span.end;
        CHECK(l.next_end(t) == end);
      }
      CHECK(blocks(l) == blocks(model));
      REQUIRE(l.size() == booked.size());
      auto expected = booked.begin();
      for (const booking<T, C>& b : l.live()) CHECK(b == (expected++)->second);
    }
    l.validate();
  }
}

}  // namespace bookings_test
