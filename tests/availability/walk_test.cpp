// Walking the profile from a time on (availability/walk.hpp, walkable_availability): blocks_from,
// blocks_in and next_change on every backend, by hand on a small profile, against bad input,
// and against reference after random operations; the generic fallback on a backend without
// the members; and free_tree's cursor when its bounded stack overflows.

#include <doctest/doctest.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <iterator>
#include <optional>
#include <random>
#include <ranges>
#include <vector>

#include <leasehold/availability/detail/treap_cursor.hpp>

#include "availability/backends.hpp"
#include "availability/outcome.hpp"

namespace walk_test {

using namespace leasehold;
using leasehold::testing::blocks_of;

namespace {

template <class Range>
auto collect(Range&& range) {
  std::vector<std::ranges::range_value_t<Range>> out;
  for (const auto& block : range) out.push_back(block);
  return out;
}

template <class B>
using blocks_t = std::vector<free_block<typename B::time_type, typename B::capacity_type>>;

template <class B>
typename B::capacity_type amount(std::int64_t n) {
  return static_cast<typename B::capacity_type>(n);
}

// 10 units; 4 booked over [10, 20) and 8 over [30, 40): free is 10 on [0, 10), 6 on [10, 20),
// 10 on [20, 30), 2 on [30, 40), 10 from 40 on.
template <class B>
B small_profile() {
  B profile(amount<B>(10));
  profile.reserve({10, 20}, amount<B>(4));
  profile.reserve({30, 40}, amount<B>(8));
  return profile;
}

// The walk of a profile straight from free_blocks(): what every answer must equal.
template <class A>
blocks_t<A> expected_in(const A& profile, interval<typename A::time_type> clip) {
  blocks_t<A> out;
  for (const auto& b : profile.free_blocks()) {
    if (b.span.end <= clip.begin || b.span.begin >= clip.end) continue;
    out.push_back({{std::max(b.span.begin, clip.begin), std::min(b.span.end, clip.end)}, b.free});
  }
  return out;
}

// A backend with nothing but the availability members: a reference behind a wall, so that the
// free functions must fall back on free_blocks().
template <class T, class C>
class plain_backend {
 public:
  using time_type = T;
  using capacity_type = C;
  explicit plain_backend(C total, T origin = 0) : inner_(total, origin) {}
  [[nodiscard]] C total() const { return inner_.total(); }
  [[nodiscard]] T origin() const { return inner_.origin(); }
  [[nodiscard]] C free_at(T t) const { return inner_.free_at(t); }
  [[nodiscard]] C min_free(interval<T> span) const { return inner_.min_free(span); }
  [[nodiscard]] std::optional<T> earliest_fit(const request<T, C>& r) const {
    return inner_.earliest_fit(r);
  }
  void reserve(interval<T> span, C amount) { inner_.reserve(span, amount); }
  void release(interval<T> span, C amount) { inner_.release(span, amount); }
  void advance_to(T t) { inner_.advance_to(t); }
  [[nodiscard]] std::vector<free_block<T, C>> free_blocks() const { return inner_.free_blocks(); }
  [[nodiscard]] std::size_t block_count() const { return inner_.block_count(); }

 private:
  reference<T, C> inner_;
};

}  // namespace

static_assert(!walkable_availability<plain_backend<std::int64_t, int>>);
static_assert(availability<plain_backend<std::int64_t, int>>);

#define WALK_TEST_SCALAR_BACKENDS \
  LEASEHOLD_EXACT_SCALAR_BACKENDS, plain_backend<std::int64_t, std::int64_t>

TEST_CASE_TEMPLATE("walk: blocks_from, blocks_in and next_change on a small profile", B,
                   WALK_TEST_SCALAR_BACKENDS) {
  using T = typename B::time_type;
  const B profile = small_profile<B>();
  const auto c = [](std::int64_t n) { return amount<B>(n); };
  const T end = forever<T>;

  SUBCASE("blocks_from clips the first block to t and runs to forever") {
    CHECK(collect(blocks_from(profile, T{0})) == blocks_of(profile));
    CHECK(collect(blocks_from(profile, T{15})) ==
          blocks_t<B>{{{15, 20}, c(6)}, {{20, 30}, c(10)}, {{30, 40}, c(2)}, {{40, end}, c(10)}});
    CHECK(collect(blocks_from(profile, T{30})) ==
          blocks_t<B>{{{30, 40}, c(2)}, {{40, end}, c(10)}});
    CHECK(collect(blocks_from(profile, T{39})) ==
          blocks_t<B>{{{39, 40}, c(2)}, {{40, end}, c(10)}});
    CHECK(collect(blocks_from(profile, T{40})) == blocks_t<B>{{{40, end}, c(10)}});
    CHECK(collect(blocks_from(profile, T{1000})) == blocks_t<B>{{{1000, end}, c(10)}});
    CHECK(collect(blocks_from(profile, end)).empty());  // nothing begins at forever
  }

  SUBCASE("blocks_in clips both ends to the span") {
    CHECK(collect(blocks_in(profile, {T{15}, T{35}})) ==
          blocks_t<B>{{{15, 20}, c(6)}, {{20, 30}, c(10)}, {{30, 35}, c(2)}});
    CHECK(collect(blocks_in(profile, {T{12}, T{18}})) == blocks_t<B>{{{12, 18}, c(6)}});
    CHECK(collect(blocks_in(profile, {T{20}, T{30}})) == blocks_t<B>{{{20, 30}, c(10)}});
    CHECK(collect(blocks_in(profile, {T{19}, T{21}})) ==
          blocks_t<B>{{{19, 20}, c(6)}, {{20, 21}, c(10)}});
    CHECK(collect(blocks_in(profile, {T{0}, end})) == blocks_of(profile));
    CHECK(collect(blocks_in(profile, {T{45}, T{46}})) == blocks_t<B>{{{45, 46}, c(10)}});
  }

  SUBCASE("next_change is the end of the block in force") {
    CHECK(next_change(profile, T{0}) == T{10});
    CHECK(next_change(profile, T{9}) == T{10});
    CHECK(next_change(profile, T{10}) == T{20});
    CHECK(next_change(profile, T{15}) == T{20});
    CHECK(next_change(profile, T{39}) == T{40});
    CHECK(next_change(profile, T{40}) == std::nullopt);
    CHECK(next_change(profile, T{1000}) == std::nullopt);
    CHECK(next_change(profile, end) == std::nullopt);
  }
}

TEST_CASE_TEMPLATE("walk: the ranges are multi-pass forward ranges", B,
                   LEASEHOLD_EXACT_SCALAR_BACKENDS) {
  using T = typename B::time_type;
  const B profile = small_profile<B>();
  const auto from = blocks_from(profile, T{15});
  static_assert(std::ranges::forward_range<decltype(from)>);
  CHECK(std::ranges::distance(from) == 4);
  CHECK(std::ranges::distance(from) == 4);  // a second pass sees the same
  auto it = std::ranges::begin(from);
  const auto first = it;
  ++it;
  CHECK((*first).span == interval<T>{15, 20});  // a copy is not advanced by the other
  CHECK((*it).span == interval<T>{20, 30});
  CHECK(it != first);
  CHECK(std::ranges::next(first) == it);
  const auto in = blocks_in(profile, {T{15}, T{35}});
  CHECK(std::ranges::distance(in) == 3);
  CHECK((*std::ranges::find_if(in, [](const auto& b) { return b.free == amount<B>(2); })).span ==
        interval<T>{30, 35});
  // The iterators point into the profile, not into the view: a temporary view's outlive it.
  static_assert(std::ranges::borrowed_range<decltype(blocks_from(profile, T{0}))> ||
                !walkable_availability<B>);
}

TEST_CASE_TEMPLATE("walk: bad arguments throw invalid_request and change nothing", B,
                   WALK_TEST_SCALAR_BACKENDS) {
  using T = typename B::time_type;
  B profile = small_profile<B>();
  profile.advance_to(5);
  const auto before = blocks_of(profile);
  CHECK_THROWS_AS((void)blocks_from(profile, T{4}), invalid_request);
  CHECK_THROWS_WITH_AS((void)blocks_from(profile, T{4}), "blocks_from(4): before the origin 5",
                       invalid_request);
  CHECK_THROWS_AS((void)blocks_in(profile, {T{4}, T{10}}), invalid_request);
  CHECK_THROWS_AS((void)blocks_in(profile, {T{20}, T{10}}), invalid_request);
  CHECK_THROWS_WITH_AS((void)blocks_in(profile, {T{10}, T{10}}), "blocks_in [10, 10): empty span",
                       invalid_request);
  CHECK_THROWS_AS((void)next_change(profile, T{4}), invalid_request);
  CHECK_THROWS_WITH_AS((void)next_change(profile, T{-1}), "next_change(-1): before the origin 5",
                       invalid_request);
  CHECK(blocks_of(profile) == before);
  CHECK(collect(blocks_from(profile, T{5})).front().span == interval<T>{5, 10});
}

TEST_CASE_TEMPLATE("walk: vector capacities", B, LEASEHOLD_EXACT_VECTOR_BACKENDS) {
  using C = leasehold::testing::vector4;
  B profile(C{4, 8, 2, 16});
  profile.reserve({10, 20}, C{1, 0, 0, 4});
  profile.reserve({15, 30}, C{0, 8, 0, 0});
  const auto end = forever<std::int64_t>;
  CHECK(collect(blocks_from(profile, 12)) == blocks_t<B>{{{12, 15}, C{3, 8, 2, 12}},
                                                         {{15, 20}, C{3, 0, 2, 12}},
                                                         {{20, 30}, C{4, 0, 2, 16}},
                                                         {{30, end}, C{4, 8, 2, 16}}});
  CHECK(collect(blocks_in(profile, {16, 25})) ==
        blocks_t<B>{{{16, 20}, C{3, 0, 2, 12}}, {{20, 25}, C{4, 0, 2, 16}}});
  CHECK(next_change(profile, 0) == 10);
  CHECK(next_change(profile, 16) == 20);
  CHECK(next_change(profile, 30) == std::nullopt);
}

TEST_CASE_TEMPLATE("walk: slotted_ring walks its horizon and stops at its end", T, std::int64_t,
                   int) {
  // 10 slots of 10 from 0: the horizon is [0, 100). 4 booked over [10, 20).
  slotted_ring<T, T> ring(T{10}, T{10}, 10);
  ring.reserve({T{12}, T{18}}, T{4});  // rounded out to the slot [10, 20)
  CHECK(collect(blocks_from(ring, T{15})) ==
        blocks_t<slotted_ring<T, T>>{{{15, 20}, T{6}}, {{20, 100}, T{10}}});
  CHECK(collect(blocks_in(ring, {T{5}, T{100}})) ==
        blocks_t<slotted_ring<T, T>>{{{5, 10}, T{10}}, {{10, 20}, T{6}}, {{20, 100}, T{10}}});
  CHECK(next_change(ring, T{0}) == T{10});
  CHECK(next_change(ring, T{15}) == T{20});
  CHECK(next_change(ring, T{25}) == std::nullopt);  // the block reaches the horizon's end
  const auto before = blocks_of(ring);
  CHECK_THROWS_AS((void)blocks_from(ring, T{100}), out_of_horizon);
  CHECK_THROWS_AS((void)blocks_in(ring, {T{50}, T{101}}), out_of_horizon);
  CHECK_THROWS_AS((void)next_change(ring, T{100}), out_of_horizon);
  CHECK_THROWS_AS((void)blocks_from(ring, T{-1}), invalid_request);
  CHECK_THROWS_AS((void)blocks_in(ring, {T{50}, T{50}}), invalid_request);
  CHECK(blocks_of(ring) == before);
}

namespace {

// Random reserves, releases and advances on `profile` and `oracle` alike, then blocks_from,
// blocks_in and next_change at random times, compared with what the oracle's free_blocks()
// says and with the oracle's own members.
template <class B, class DrawAmount>
void check_random_walks(B profile, std::uint64_t seed, DrawAmount draw_amount, std::size_t rounds) {
  using T = typename B::time_type;
  using C = typename B::capacity_type;
  reference<T, C> oracle(profile.total(), profile.origin());
  std::mt19937_64 rng(seed);
  const auto uniform = [&rng](std::int64_t lo, std::int64_t hi) {
    return std::uniform_int_distribution<std::int64_t>(lo, hi)(rng);
  };
  struct booking {
    interval<T> span;
    C amount;
  };
  std::vector<booking> live;
  for (std::size_t round = 0; round < rounds; ++round) {
    for (int op = 0; op < 20; ++op) {
      const std::int64_t kind = uniform(0, 99);
      if (kind < 55) {
        const auto begin = static_cast<T>(profile.origin() + uniform(0, 1500));
        const interval<T> span{begin, static_cast<T>(begin + uniform(1, 200))};
        const C a = draw_amount(rng);
        if (testing::outcome_of([&] { oracle.reserve(span, a); }) == testing::outcome::ok) {
          profile.reserve(span, a);
          live.push_back({span, a});
        }
      } else if (kind < 95) {
        if (live.empty()) continue;
        const auto i =
            static_cast<std::size_t>(uniform(0, static_cast<std::int64_t>(live.size()) - 1));
        profile.release(live[i].span, live[i].amount);
        oracle.release(live[i].span, live[i].amount);
        live.erase(live.begin() + static_cast<std::ptrdiff_t>(i));
      } else {
        const auto to = static_cast<T>(profile.origin() + uniform(0, 20));
        profile.advance_to(to);
        oracle.advance_to(to);
        std::erase_if(live, [to](const booking& b) { return b.span.end <= to; });
        for (booking& b : live) b.span.begin = std::max(b.span.begin, to);
      }
    }
    REQUIRE(blocks_of(profile) == blocks_of(oracle));
    for (int query = 0; query < 10; ++query) {
      const auto t = static_cast<T>(oracle.origin() + uniform(0, 1800));
      const interval<T> span{t, static_cast<T>(t + uniform(1, 400))};
      CAPTURE(t);
      CAPTURE(span);
      const auto want_from = expected_in(oracle, {t, forever<T>});
      CHECK(collect(oracle.blocks_from(t)) == want_from);
      CHECK(collect(blocks_from(profile, t)) == want_from);
      const auto want_in = expected_in(oracle, span);
      CHECK(collect(oracle.blocks_in(span)) == want_in);
      CHECK(collect(blocks_in(profile, span)) == want_in);
      const std::optional<T> want_next = want_from.front().span.end == forever<T>
                                             ? std::nullopt
                                             : std::optional<T>(want_from.front().span.end);
      CHECK(oracle.next_change(t) == want_next);
      CHECK(next_change(profile, t) == want_next);
    }
  }
}

template <class C>
C draw_scalar(std::mt19937_64& rng) {
  return static_cast<C>(std::uniform_int_distribution<int>(1, 24)(rng));
}

leasehold::testing::vector4 draw_vector(std::mt19937_64& rng) {
  std::uniform_int_distribution<std::int64_t> cpu(0, 8), memory(0, 64), disk(0, 4), net(0, 16);
  leasehold::testing::vector4 c{cpu(rng) / 2, memory(rng) / 4, disk(rng) / 2, net(rng) / 4};
  if (c == leasehold::testing::vector4{}) c[0] = 1;
  return c;
}

}  // namespace

TEST_CASE_TEMPLATE("walk: random profiles agree with reference (scalar)", B,
                   WALK_TEST_SCALAR_BACKENDS) {
  using C = typename B::capacity_type;
  for (std::uint64_t seed = 1; seed <= 3; ++seed) {
    CAPTURE(seed);
    check_random_walks(B(C{64}), seed, &draw_scalar<C>, 60);
  }
}

TEST_CASE_TEMPLATE("walk: random profiles agree with reference (vector)", B,
                   LEASEHOLD_EXACT_VECTOR_BACKENDS,
                   plain_backend<std::int64_t, leasehold::testing::vector4>) {
  using C = leasehold::testing::vector4;
  for (std::uint64_t seed = 11; seed <= 13; ++seed) {
    CAPTURE(seed);
    check_random_walks(B(C{8, 64, 4, 16}), seed, &draw_vector, 60);
  }
}

TEST_CASE_TEMPLATE("walk: free_tree walks deep profiles", B, free_tree<>,
                   free_tree_without_thresholds) {
  // Enough blocks for a deep treap, and enough updates and searches for mode reviews; without
  // thresholds the tree keeps shifts pending from the start, which the walk must read through.
  B tree(1000);
  reference<> oracle(1000);
  std::mt19937_64 rng(7);
  std::uniform_int_distribution<std::int64_t> time(0, 200'000), length(1, 50), units(1, 40);
  for (int i = 0; i < 6000; ++i) {
    const std::int64_t begin = time(rng);
    const interval<std::int64_t> span{begin, begin + length(rng)};
    const std::int64_t a = units(rng);
    if (tree.min_free(span) >= a) {
      tree.reserve(span, a);
      oracle.reserve(span, a);
    }
    (void)tree.earliest_fit({a, length(rng)});
  }
  tree.validate();
  CHECK(collect(tree.blocks_from(0)) == blocks_of(oracle));
  for (int i = 0; i < 50; ++i) {
    const std::int64_t t = time(rng);
    CHECK(collect(tree.blocks_in({t, t + 5000})) == expected_in(oracle, {t, t + 5000}));
    CHECK(tree.next_change(t) == oracle.next_change(t));
  }
}

TEST_CASE_TEMPLATE("walk: slotted_ring's views agree with its free_blocks on random profiles", T,
                   std::int64_t, int) {
  for (const T dt : {T{1}, T{7}}) {
    CAPTURE(dt);
    slotted_ring<T, T> ring(T{64}, dt, 300, T{0});
    std::mt19937_64 rng(static_cast<std::uint64_t>(dt));
    const auto uniform = [&rng](std::int64_t lo, std::int64_t hi) {
      return static_cast<T>(std::uniform_int_distribution<std::int64_t>(lo, hi)(rng));
    };
    for (int round = 0; round < 40; ++round) {
      for (int op = 0; op < 10; ++op) {
        const interval<T> horizon = ring.horizon();
        const T begin = uniform(horizon.begin, horizon.end - 2);
        const interval<T> span{begin,
                               std::min(static_cast<T>(begin + uniform(1, 40 * dt)), horizon.end)};
        const T a = uniform(1, 24);
        if (ring.min_free(span) >= a) ring.reserve(span, a);
        if (op == 0) ring.advance_to(static_cast<T>(ring.origin() + uniform(0, 3 * dt)));
      }
      const interval<T> horizon = ring.horizon();
      for (int query = 0; query < 10; ++query) {
        const T t = uniform(horizon.begin, horizon.end - 1);
        const interval<T> span{t, uniform(t + 1, horizon.end)};
        CAPTURE(t);
        CAPTURE(span);
        const auto want_from = expected_in(ring, {t, forever<T>});
        CHECK(collect(ring.blocks_from(t)) == want_from);
        CHECK(collect(ring.blocks_in(span)) == expected_in(ring, span));
        const T end = want_from.front().span.end;
        CHECK(ring.next_change(t) == (end == horizon.end ? std::nullopt : std::optional<T>(end)));
      }
    }
  }
}

namespace {

// A hand-built tree for treap_cursor: keys 1..7 as a perfect tree, with pending shifts.
struct test_node {
  std::int64_t begin;
  std::int64_t free;
  std::int64_t pending = 0;
  const test_node* left = nullptr;
  const test_node* right = nullptr;
};

template <std::size_t Depth>
std::vector<free_block<std::int64_t, std::int64_t>> walk_all(const test_node* root,
                                                             std::int64_t from) {
  detail::treap_cursor<test_node, std::int64_t, std::int64_t, Depth> cursor(root, from);
  std::vector<free_block<std::int64_t, std::int64_t>> out{cursor.block()};
  while (out.back().span.end != forever<std::int64_t>) {
    cursor.next();
    out.push_back(cursor.block());
  }
  return out;
}

}  // namespace

TEST_CASE("walk: treap_cursor applies pending shifts and survives a full stack") {
  // In order 10..70, 40 at the root owing 100 to everything below it, and 20 owing 1000 more
  // to 10 and 30.
  test_node n10{10, 1}, n30{30, 3}, n50{50, 5}, n70{70, 7};
  test_node n20{20, 2, 1000, &n10, &n30};
  test_node n60{60, 6, 0, &n50, &n70};
  test_node n40{40, 4, 100, &n20, &n60};
  // So 20 reads 2 + 100, 10 and 30 read 1 + 1100 and 3 + 1100, and 50, 60 and 70 read +100.
  const std::vector<free_block<std::int64_t, std::int64_t>> want{
      {{10, 20}, 1101},
      {{20, 30}, 102},
      {{30, 40}, 1103},
      {{40, 50}, 4},
      {{50, 60}, 105},
      {{60, 70}, 106},
      {{70, forever<std::int64_t>}, 107}};
  CHECK(walk_all<32>(&n40, 10) == want);
  CHECK(walk_all<1>(&n40, 10) == want);  // every push but the last drops a frame
  CHECK(walk_all<2>(&n40, 10) == want);
  CHECK(walk_all<1>(&n40, 35) ==
        std::vector<free_block<std::int64_t, std::int64_t>>(want.begin() + 2, want.end()));
  CHECK(walk_all<1>(&n40, 65) ==
        std::vector<free_block<std::int64_t, std::int64_t>>(want.begin() + 5, want.end()));
}

}  // namespace walk_test
