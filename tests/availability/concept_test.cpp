// availability/concept.hpp: each requirement of the availability concept is needed (a backend
// assembled from one part per requirement models it, and misses it when any one part is left
// out or answers in the wrong type), each optional refinement is opted into only by its member
// spelt and typed as documented, and the shipped backends keep at run time what the
// refinements they claim promise. tests/static/availability_concept.cpp checks which shipped
// and hand-written types model which concept; this file does not repeat it.

#include <doctest/doctest.h>

#include <concepts>
#include <cstdint>
#include <optional>
#include <ranges>
#include <string>
#include <tuple>
#include <type_traits>
#include <utility>
#include <vector>

#include <leasehold/leasehold.hpp>

namespace availability_concept_test {

using namespace leasehold;

namespace {

// ---- a backend by parts, one part per requirement (declared only: never called) ----------

using T = std::int64_t;
using C = int;
using span_t = interval<T>;

struct types {
  using time_type = T;
  using capacity_type = C;
};
struct has_total {
  C total() const;
};
struct has_origin {
  T origin() const;
};
struct has_free_at {
  C free_at(T) const;
};
struct has_min_free {
  C min_free(span_t) const;
};
struct has_earliest_fit {
  std::optional<T> earliest_fit(const request<T, C>&) const;
};
struct has_reserve {
  void reserve(span_t, C);
};
struct has_release {
  void release(span_t, C);
};
struct has_advance_to {
  void advance_to(T);
};
struct has_free_blocks {
  std::vector<free_block<T, C>> free_blocks() const;
};
struct has_block_count {
  std::size_t block_count() const;
};

template <class... Parts>
struct backend : Parts... {};

template <class Tuple>
struct as_backend;
template <class... Parts>
struct as_backend<std::tuple<Parts...>> {
  using type = backend<Parts...>;
};

// The complete backend with part Old replaced by the parts With (none: Old is left out).
template <class Old, class... With>
struct swap_part {
  template <class Part>
  using one = std::conditional_t<std::same_as<Part, Old>, std::tuple<With...>, std::tuple<Part>>;
  template <class... Parts>
  using of = typename as_backend<decltype(std::tuple_cat(std::declval<one<Parts>>()...))>::type;
  using type = of<types, has_total, has_origin, has_free_at, has_min_free, has_earliest_fit,
                  has_reserve, has_release, has_advance_to, has_free_blocks, has_block_count>;
};
template <class Old, class... With>
using swapped = typename swap_part<Old, With...>::type;
using complete = swapped<void>;
template <class... Extra>
using complete_with = backend<complete, Extra...>;

template <class... Parts>
constexpr bool each_needed = (!availability<swapped<Parts>> && ...);

static_assert(availability<complete>);
static_assert(
    each_needed<types, has_total, has_origin, has_free_at, has_min_free, has_earliest_fit,
                has_reserve, has_release, has_advance_to, has_free_blocks, has_block_count>);

// Present but answering in the wrong type.
struct total_as_long {
  long total() const;
};
struct origin_as_int {
  int origin() const;
};
struct count_as_text {
  std::string block_count() const;
};
struct min_free_mutating {
  C min_free(span_t);  // not const: a const profile cannot answer it
};
struct unsigned_time {
  using time_type = unsigned;
  using capacity_type = C;
};
static_assert(!availability<swapped<has_total, total_as_long>>);
static_assert(!availability<swapped<has_origin, origin_as_int>>);
static_assert(!availability<swapped<has_block_count, count_as_text>>);
static_assert(!availability<swapped<has_min_free, min_free_mutating>>);
static_assert(!availability<swapped<types, unsigned_time>>);

// ---- the refinements: opted into by the member as documented, and only on a backend -------

template <bool Claim>
struct rollback_claim {
  static constexpr bool nothrow_rollback = Claim;
};
struct has_latest_fit {
  std::optional<T> latest_fit(const request<T, C>&) const;
};
struct latest_fit_as_bool {
  bool latest_fit(const request<T, C>&) const;
};
struct has_validate {
  void validate() const;
};
struct has_horizon {
  span_t horizon() const;
};
struct horizon_of_int {
  interval<int> horizon() const;
};
struct has_memory_usage {
  std::size_t memory_usage() const;
};
struct has_set_total {
  void set_total(const C&);
};

static_assert(nothrow_rollback_availability<complete_with<rollback_claim<true>>>);
static_assert(!nothrow_rollback_availability<complete_with<rollback_claim<false>>>);
static_assert(!nothrow_rollback_availability<complete>);
static_assert(latest_fit_availability<complete_with<has_latest_fit>>);
static_assert(!latest_fit_availability<complete_with<latest_fit_as_bool>>);
static_assert(validating_availability<complete_with<has_validate>>);
static_assert(bounded_availability<complete_with<has_horizon>>);
static_assert(!bounded_availability<complete_with<horizon_of_int>>);
static_assert(measured_availability<complete_with<has_memory_usage>>);
static_assert(resizable_availability<complete_with<has_set_total>>);
static_assert(!resizable_availability<complete>);
// A refinement's member on something that is no backend opts into nothing.
static_assert(!latest_fit_availability<backend<has_latest_fit>>);
static_assert(!validating_availability<swapped<has_reserve, has_validate>>);
static_assert(!resizable_availability<swapped<has_release, has_set_total>>);
static_assert(std::same_as<free_block_of<complete>, free_block<T, C>>);

// ---- the shipped backends at run time ------------------------------------------------------

// 10 units with 4 booked over [2, 5); a slotted ring of 64 one-tick slots.
template <class A>
A booked_profile() {
  A a = [] {
    if constexpr (bounded_availability<A>)
      return A(10, 1, 64);
    else
      return A(10);
  }();
  a.reserve({2, 5}, 4);
  return a;
}

// A range's blocks, kept (free_blocks() may answer a fresh copy each call).
template <class R>
auto kept(const R& blocks) {
  return std::vector<std::ranges::range_value_t<R>>(std::ranges::begin(blocks),
                                                    std::ranges::end(blocks));
}

template <class A>
void check_promises(bool claims_rollback, bool claims_walk) {
  using block = free_block<typename A::time_type, typename A::capacity_type>;
  CHECK(nothrow_rollback_availability<A> == claims_rollback);
  CHECK(walkable_availability<A> == claims_walk);
  A a = booked_profile<A>();
  const T end = [&] {
    if constexpr (bounded_availability<A>)
      return a.horizon().end;
    else
      return forever<T>;
  }();
  if constexpr (bounded_availability<A>) CHECK(a.horizon() == span_t{0, 64});
  // The base concept: 8 units for 3 ticks fit from 5, once the booking is over.
  CHECK(a.earliest_fit({8, 3}) == 5);
  CHECK(a.min_free({0, 10}) == 6);
  const auto before = kept(a.free_blocks());
  CHECK(before == std::vector<block>{{{0, 2}, 10}, {{2, 5}, 6}, {{5, end}, 10}});
  if constexpr (latest_fit_availability<A>) CHECK(a.latest_fit({8, 3, {0, 20}}) == 17);
  if constexpr (validating_availability<A>) CHECK_NOTHROW(a.validate());
  if constexpr (measured_availability<A>) CHECK(a.memory_usage() > 0);
  if constexpr (nothrow_rollback_availability<A>) {
    // The inverse call undoes a reserve exactly, and a bad advance_to changes nothing.
    a.reserve({4, 8}, 3);
    a.release({4, 8}, 3);
    CHECK_THROWS_WITH_AS(a.advance_to(-1), "advance_to(-1): before the origin 0", invalid_request);
    CHECK(kept(a.free_blocks()) == before);
  }
  if constexpr (walkable_availability<A>) {
    // From 3: the booked block clipped to begin at 3, then the rest up to the end.
    CHECK(kept(a.blocks_from(3)) == std::vector<block>{{{3, 5}, 6}, {{5, end}, 10}});
    CHECK(kept(a.blocks_in({1, 4})) == std::vector<block>{{{1, 2}, 10}, {{2, 4}, 6}});
    CHECK(a.next_change(3) == 5);
    CHECK(a.next_change(6) == std::nullopt);
  }
  if constexpr (resizable_availability<A>) {
    // 4 are booked over [2, 5): a total of 3 is refused naming 2, 4 and 3, and changes nothing.
    CHECK_THROWS_WITH_AS(a.set_total(3), "set_total(3): 4 booked at 2 does not fit the new total 3",
                         insufficient_capacity);
    CHECK(a.total() == 10);
    a.set_total(12);
    CHECK(a.free_at(3) == 8);
    CHECK(a.free_at(6) == 12);
  }
}

}  // namespace

TEST_CASE("availability concept: the shipped backends keep what their refinements promise") {
  // nothrow_rollback and walking in place, as concept.hpp documents them per backend.
  SUBCASE("free_list") { check_promises<free_list<>>(true, true); }
  SUBCASE("free_tree") { check_promises<free_tree<>>(true, true); }
  SUBCASE("reference") { check_promises<reference<>>(true, true); }
  SUBCASE("slotted_ring") { check_promises<slotted_ring<>>(true, true); }
  SUBCASE("capacity_tree") { check_promises<capacity_tree<>>(false, false); }
}

}  // namespace availability_concept_test
