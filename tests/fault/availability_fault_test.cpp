// Allocation-failure sweep over every availability backend (scalar and vector capacities where
// the backend allows them): a seeded random sequence of reserve / release / advance_to /
// colliding reserve / copy / set_total, each call run with its k-th allocation failing for
// every k until it succeeds. After every failed attempt the profile must be exactly as before
// (same free_blocks(), origin, block_count() and total(), validate() passes); at the end the
// backend must still agree with reference on every block. Const queries run under the same
// sweep: a failed earliest_fit or walk must not leak or change anything either.

#include <cstdint>
#include <optional>
#include <random>
#include <stdexcept>
#include <vector>

#include <leasehold/leasehold.hpp>

#include "availability/backends.hpp"
#include "fault/allocation_failure.hpp"

using namespace leasehold;
namespace fault = leasehold::testing::fault;

namespace {

template <class A>
struct snapshot {
  std::vector<typename A::block_type> blocks;
  typename A::time_type origin;
  std::size_t count;
  typename A::capacity_type total;

  explicit snapshot(const A& a) : origin(a.origin()), count(a.block_count()), total(a.total()) {
    for (const auto& b : a.free_blocks()) blocks.push_back(b);
  }
  void check_same(const A& a) const {
    a.validate();
    CHECK(a.origin() == origin);
    CHECK(a.block_count() == count);
    CHECK(a.total() == total);
    std::vector<typename A::block_type> now;
    for (const auto& b : a.free_blocks()) now.push_back(b);
    CHECK(now == blocks);
  }
};

template <class C>
C amount_of(std::int64_t units, const C& total) {
  if constexpr (scalar_capacity<C>) {
    return static_cast<C>(units);
  } else {
    C c{};
    for (std::size_t i = 0; i < C::size(); ++i)
      c[i] = std::min<typename C::value_type>(
          total[i], static_cast<typename C::value_type>(units * static_cast<std::int64_t>(i + 1)));
    return c;
  }
}

// Runs `call` under the sweep with the unchanged-check of `a`; returns whether it succeeded
// (false: it threw a leasehold::error, after which `a` must also be unchanged).
template <class A, class Call>
bool swept(A& a, Call&& call, std::size_t& failures) {
  const snapshot<A> before(a);
  try {
    failures += fault::sweep(call, [&] { before.check_same(a); }).failures;
    return true;
  } catch (const leasehold::error&) {
    before.check_same(a);
    return false;
  }
}

// `make()` builds an empty profile; every span is drawn slot-aligned (step) so that
// slotted_ring sees the same profile as the reference.
template <class A, class Make>
void sweep_backend(Make make, std::uint64_t seed, std::size_t operations, std::int64_t step) {
  using T = typename A::time_type;
  using C = typename A::capacity_type;
  A a = make();
  const C total = a.total();
  reference<T, C> oracle(total, a.origin());
  std::mt19937_64 rng(seed);
  auto uniform = [&rng](std::int64_t lo, std::int64_t hi) {
    return std::uniform_int_distribution<std::int64_t>(lo, hi)(rng);
  };
  std::int64_t top = 10;
  if constexpr (scalar_capacity<C>) top = static_cast<std::int64_t>(total);
  struct booking {
    interval<T> span;
    C amount;
  };
  std::vector<booking> live;
  std::size_t failures = 0;
  for (std::size_t op = 0; op < operations; ++op) {
    const std::int64_t kind = uniform(0, 99);
    if (kind < 40) {
      const C amount = amount_of(uniform(1, std::max<std::int64_t>(1, top / 2)), total);
      const auto duration = static_cast<T>(step * uniform(1, 8));
      std::optional<T> start;
      swept(
          a,
          [&] {
            start = a.earliest_fit({amount, duration});
          },
          failures);
      if (!start || *start + duration > a.origin() + 400 * step) continue;
      const interval<T> span{*start, static_cast<T>(*start + duration)};
      if (swept(
              a, [&] { a.reserve(span, amount); }, failures)) {
        oracle.reserve(span, amount);
        live.push_back({span, amount});
      }
    } else if (kind < 70) {
      if (live.empty()) continue;
      const auto i =
          static_cast<std::size_t>(uniform(0, static_cast<std::int64_t>(live.size()) - 1));
      const booking b = live[i];
      live.erase(live.begin() + static_cast<std::ptrdiff_t>(i));
      REQUIRE(swept(
          a, [&] { a.release(b.span, b.amount); }, failures));
      oracle.release(b.span, b.amount);
    } else if (kind < 80) {  // may collide: insufficient_capacity must change nothing either
      const auto begin = static_cast<T>(a.origin() + step * uniform(0, 300));
      const interval<T> span{begin, static_cast<T>(begin + step * uniform(1, 6))};
      const C amount = amount_of(uniform(1, top), total);
      if (swept(
              a, [&] { a.reserve(span, amount); }, failures)) {
        oracle.reserve(span, amount);
        live.push_back({span, amount});
      }
    } else if (kind < 85) {
      const auto to = static_cast<T>(a.origin() + step * uniform(0, 5));
      REQUIRE(swept(
          a, [&] { a.advance_to(to); }, failures));
      oracle.advance_to(to);
      std::erase_if(live, [to](const booking& b) { return b.span.end <= to; });
      for (booking& b : live) b.span.begin = std::max(b.span.begin, to);
    } else if (kind < 90) {  // copy construction and copy assignment fail cleanly
      std::optional<A> copy;
      swept(
          a, [&] { copy.emplace(a); }, failures);
      REQUIRE(copy);
      A target = make();
      const snapshot<A> empty(target);
      try {
        failures += fault::sweep([&] { target = a; }, [&] { empty.check_same(target); }).failures;
      } catch (const leasehold::error&) {
        FAIL("copy assignment threw a leasehold::error");
      }
      snapshot<A>(a).check_same(target);
    } else {
      swept(
          a, [&] { (void)a.free_blocks(); }, failures);
      swept(
          a,
          [&] {
            (void)a.min_free({a.origin(), static_cast<T>(a.origin() + 50 * step)});
          },
          failures);
      // A walk from the origin (walk.hpp's copy where the backend has no view) leaks nothing.
      swept(
          a,
          [&] {
            for (const auto& block : leasehold::blocks_from(a, a.origin())) (void)block;
          },
          failures);
      // The total raised and lowered back: capacity_tree's growth allocates its new top block,
      // and a failed attempt must leave the profile and its total as they were.
      const C grown = static_cast<C>(total + total);
      REQUIRE(swept(
          a, [&] { a.set_total(grown); }, failures));
      REQUIRE(a.total() == grown);
      REQUIRE(swept(
          a, [&] { a.set_total(total); }, failures));
      REQUIRE(a.total() == total);
    }
  }
  // The profile is still the reference's (up to a fixed horizon).
  const auto blocks = a.free_blocks();
  std::vector<typename A::block_type> have(blocks.begin(), blocks.end());
  auto want = oracle.free_blocks();
  if constexpr (bounded_availability<A>) {
    const T end = a.horizon().end;
    std::erase_if(want, [end](const auto& b) { return b.span.begin >= end; });
    if (!want.empty() && want.back().span.end > end) want.back().span.end = end;
  }
  CHECK(have == want);
  CHECK(failures > 0);  // the sweep did inject failures
  MESSAGE("seed " << seed << ": " << operations << " operations, " << failures
                  << " injected allocation failures");
}

constexpr std::size_t operations = 300;

}  // namespace

TEST_CASE_TEMPLATE("fault: exact scalar backends give the strong guarantee under bad_alloc", A,
                   LEASEHOLD_EXACT_SCALAR_BACKENDS) {
  using T = typename A::time_type;
  using C = typename A::capacity_type;
  for (std::uint64_t seed : {1u, 2u})
    sweep_backend<A>([] { return A(C{10}, T{0}); }, seed, operations, 1);
}

TEST_CASE_TEMPLATE("fault: exact vector backends give the strong guarantee under bad_alloc", A,
                   LEASEHOLD_EXACT_VECTOR_BACKENDS) {
  using T = typename A::time_type;
  using C = typename A::capacity_type;
  sweep_backend<A>([] { return A(C{{10, 20, 30, 40}}, T{0}); }, 3, operations, 1);
}

TEST_CASE_TEMPLATE("fault: slotted_ring gives the strong guarantee under bad_alloc", A,
                   slotted_ring<std::int64_t, std::int64_t>,
                   slotted_ring<std::int64_t, leasehold::testing::vector4>) {
  using T = typename A::time_type;
  using C = typename A::capacity_type;
  C total{};
  if constexpr (scalar_capacity<C>)
    total = 10;
  else
    total = C{{10, 20, 30, 40}};
  sweep_backend<A>([total] { return A(total, T{5}, 512, T{0}); }, 4, operations, 5);
}

// free_tree::compact rebuilds the whole tree in fresh memory: a failure anywhere in that must
// leave the tree as it was, and a success must leave the same blocks.
TEST_CASE("fault: free_tree::compact gives the strong guarantee under bad_alloc") {
  free_tree<> tree(128);
  std::mt19937_64 rng(23);
  std::uniform_int_distribution<std::int64_t> amount(1, 128), duration(1, 50);
  for (int i = 0; i < 400; ++i) {
    const request<> r{amount(rng), duration(rng)};
    const std::int64_t start = *tree.earliest_fit(r);
    tree.reserve({start, start + r.duration}, r.amount);
  }
  const snapshot<free_tree<>> before(tree);
  std::size_t failures = 0;
  REQUIRE(swept(
      tree, [&] { tree.compact(); }, failures));
  before.check_same(tree);
  CHECK(failures > 0);  // the copy allocates: the sweep did inject failures
}
