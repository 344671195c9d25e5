// The availability backends over dynamic_resources: randomised operation sequences checked
// against reference<T, resources<N>> of the same N, through an oracle that converts at the
// boundary, so a dynamic_resources profile must answer exactly as the compile-time vector does
// (and as the scalar does, with N = 1). Then the refusals: an amount whose count is not the
// total's is invalid_request on every backend, and changes nothing.

#include <doctest/doctest.h>

#include <array>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <random>
#include <vector>

#include "availability/backends.hpp"
#include "availability/differential.hpp"

namespace dynamic_resources_conformance_test {

using namespace leasehold;
using dyn = dynamic_resources<>;
using T = std::int64_t;

using list_dyn = free_list<T, dyn>;
using tree_dyn = free_tree<T, dyn>;
using tree_dyn_pruning = free_tree<T, dyn, 4>;  // run summaries over the live components too

}  // namespace dynamic_resources_conformance_test

TYPE_TO_STRING(dynamic_resources_conformance_test::list_dyn);
TYPE_TO_STRING(dynamic_resources_conformance_test::tree_dyn);
TYPE_TO_STRING(dynamic_resources_conformance_test::tree_dyn_pruning);

namespace dynamic_resources_conformance_test {

namespace {

template <std::size_t N>
resources<N, std::int64_t> to_fixed(const dyn& d) {
  if (d.size() != N)  // as the dynamic backends refuse it (check_amount), before anything else
    throw invalid_request(detail::describe("oracle: amount ", d, " has ", d.size(),
                                           " components, the total has ", N));
  resources<N, std::int64_t> r;
  for (std::size_t i = 0; i < N; ++i) r[i] = d[i];
  return r;
}

template <std::size_t N>
dyn to_dynamic(const resources<N, std::int64_t>& r) {
  return dyn::from(std::span<const std::int64_t>(r.values));
}

// reference<T, resources<N>> seen through dynamic_resources, itself an availability: the
// oracle run_differential compares the backends with.
template <std::size_t N>
class converting_oracle : public detail::profile_types<T, dyn> {
 public:
  using fixed = resources<N, std::int64_t>;

  explicit converting_oracle(const dyn& total, T origin = 0) : inner_(to_fixed<N>(total), origin) {}

  [[nodiscard]] dyn total() const { return to_dynamic(inner_.total()); }
  [[nodiscard]] std::size_t block_count() const { return inner_.block_count(); }
  [[nodiscard]] T origin() const { return inner_.origin(); }
  [[nodiscard]] dyn free_at(T t) const { return to_dynamic(inner_.free_at(t)); }
  [[nodiscard]] dyn min_free(interval<T> span) const { return to_dynamic(inner_.min_free(span)); }
  [[nodiscard]] std::optional<T> earliest_fit(const request<T, dyn>& r) const {
    return inner_.earliest_fit(convert(r));
  }
  [[nodiscard]] std::optional<T> latest_fit(const request<T, dyn>& r) const {
    return inner_.latest_fit(convert(r));
  }
  void reserve(interval<T> span, const dyn& amount) { inner_.reserve(span, to_fixed<N>(amount)); }
  void release(interval<T> span, const dyn& amount) { inner_.release(span, to_fixed<N>(amount)); }
  void advance_to(T t) { inner_.advance_to(t); }
  [[nodiscard]] std::vector<free_block<T, dyn>> free_blocks() const {
    std::vector<free_block<T, dyn>> blocks;
    for (const auto& b : inner_.free_blocks()) blocks.push_back({b.span, to_dynamic(b.free)});
    return blocks;
  }

 private:
  static request<T, fixed> convert(const request<T, dyn>& r) {
    return {to_fixed<N>(r.amount), r.duration, r.window};
  }
  reference<T, fixed> inner_;
};

// Totals and amounts of N components, drawn as the vector conformance tests draw them.
template <std::size_t N>
dyn total_of() {
  constexpr std::array<std::int64_t, 4> components{8, 64, 4, 16};
  if constexpr (N == 1) return dyn{64};
  return dyn::from(std::span<const std::int64_t>(components.data(), N));
}

template <std::size_t N>
dyn draw(std::mt19937_64& rng) {
  if constexpr (N == 1) {
    std::uniform_int_distribution<int> pick(0, 9), small(1, 16), any(1, 64);
    const int p = pick(rng);
    return dyn{p == 0 ? 64 : p < 6 ? small(rng) : any(rng)};
  } else {
    std::uniform_int_distribution<std::int64_t> cpu(0, 8), memory(0, 64), disk(0, 4), net(0, 16);
    const std::array<std::int64_t, 4> all{cpu(rng) / 2, memory(rng) / 4, disk(rng) / 2,
                                          net(rng) / 4};
    dyn c = dyn::from(std::span<const std::int64_t>(all.data(), N));
    if (is_zero(c)) c[0] = 1;
    return c;
  }
}

template <std::size_t N, class B>
void run_exact(std::uint64_t first_seed) {
  leasehold::testing::differential_config<T, dyn> config{.total = total_of<N>()};
  config.draw_amount = &draw<N>;
  const std::size_t ops = leasehold::testing::random_ops_per_seed(3'000);
  for (std::uint64_t seed = first_seed; seed < first_seed + 3; ++seed) {
    CAPTURE(N);
    CAPTURE(seed);
    CHECK(leasehold::testing::run_differential(seed, ops, B(config.total, T{0}),
                                               converting_oracle<N>(config.total, T{0}),
                                               config) == 0);
  }
}

template <std::size_t N>
void run_slotted(std::uint64_t first_seed) {
  const std::size_t ops = leasehold::testing::random_ops_per_seed(3'000);
  for (std::uint64_t seed = first_seed; seed < first_seed + 4; ++seed) {
    CAPTURE(N);
    CAPTURE(seed);
    leasehold::testing::differential_config<T, dyn> config{.total = total_of<N>()};
    config.draw_amount = &draw<N>;
    const T dt = seed % 2 == 0 ? 1 : 9;
    if (dt == 1) {  // a shorter horizon keeps the per-slot scans of a dt = 1 ring quick
      config.time_span = 600;
      config.max_duration = 100;
    }
    const std::size_t slots =
        static_cast<std::size_t>((config.time_span + config.max_duration + dt) / dt + 3);
    leasehold::testing::round_to_slots(config, dt, slots);
    const T origin = 18 * dt;
    CHECK(leasehold::testing::run_differential(
              seed, ops, slotted_ring<T, dyn>(config.total, dt, slots, origin),
              converting_oracle<N>(config.total, origin), config) == 0);
  }
}

static_assert(availability<converting_oracle<4>>);

}  // namespace

TEST_CASE_TEMPLATE("dynamic_resources: randomised differential test against reference", B, list_dyn,
                   tree_dyn, tree_dyn_pruning) {
  run_exact<1, B>(501);
  run_exact<3, B>(511);
  run_exact<4, B>(521);
}

TEST_CASE("dynamic_resources: slotted_ring against reference on slot-rounded input") {
  run_slotted<1>(601);
  run_slotted<3>(611);
  run_slotted<4>(621);
}

TEST_CASE_TEMPLATE("dynamic_resources: a hand-computed profile, as resources<4> gives it", B,
                   list_dyn, tree_dyn, tree_dyn_pruning) {
  B profile(dyn{8, 8192, 100, 10});
  profile.reserve({0, 100}, dyn{4, 7000, 0, 0});
  profile.reserve({50, 150}, dyn{0, 0, 0, 10});
  CHECK(profile.free_at(60) == dyn{4, 1192, 100, 0});
  CHECK(profile.min_free({0, 200}) == dyn{4, 1192, 100, 0});
  CHECK(profile.earliest_fit({dyn{4, 1000, 0, 0}, T{10}}) == T{0});
  CHECK(profile.earliest_fit({dyn{4, 2000, 0, 0}, T{10}}) == T{100});
  CHECK(profile.earliest_fit({dyn{1, 0, 0, 1}, T{60}}) == T{150});
  CHECK(latest_fit(profile, request<T, dyn>{dyn{1, 0, 0, 1}, T{10}, {0, 100}}) == T{40});
  CHECK(profile.free_blocks() ==
        std::vector<free_block<T, dyn>>{{{0, 50}, dyn{4, 1192, 100, 10}},
                                        {{50, 100}, dyn{4, 1192, 100, 0}},
                                        {{100, 150}, dyn{8, 8192, 100, 0}},
                                        {{150, forever<T>}, dyn{8, 8192, 100, 10}}});
  profile.advance_to(120);
  CHECK(profile.free_blocks() ==
        std::vector<free_block<T, dyn>>{{{120, 150}, dyn{8, 8192, 100, 0}},
                                        {{150, forever<T>}, dyn{8, 8192, 100, 10}}});
  CHECK_THROWS_AS(profile.reserve({120, 130}, dyn{0, 0, 0, 1}), insufficient_capacity);
  CHECK_THROWS_AS(profile.release({150, 160}, dyn{0, 0, 0, 1}), invalid_release);
  profile.validate();
}

TEST_CASE("dynamic_resources: an amount of another count is refused on every backend") {
  const dyn total{8, 64, 4, 16};
  const dyn three{1, 1, 1};
  const auto check_backend = [&](auto profile) {
    profile.reserve({0, 10}, dyn{1, 2, 3, 4});
    const auto before = profile.free_blocks();
    CHECK_THROWS_WITH_AS(profile.reserve({0, 10}, three),
                         "reserve of amount {1, 1, 1}: has 3 components, the total {8, 64, 4, 16} "
                         "has 4",
                         invalid_request);
    CHECK_THROWS_WITH_AS(profile.release({0, 10}, three),
                         "release of amount {1, 1, 1}: has 3 components, the total {8, 64, 4, 16} "
                         "has 4",
                         invalid_request);
    CHECK_THROWS_WITH_AS((void)profile.earliest_fit({three, T{5}}),
                         doctest::Contains("earliest_fit of amount {1, 1, 1}: has 3 components"),
                         invalid_request);
    CHECK_THROWS_WITH_AS((void)latest_fit(profile, request<T, dyn>{three, T{5}, {0, 100}}),
                         doctest::Contains("latest_fit of amount {1, 1, 1}: has 3 components"),
                         invalid_request);
    CHECK_THROWS_WITH_AS(profile.reserve({0, 10}, dyn{}),
                         doctest::Contains("has 0 components, the total {8, 64, 4, 16} has 4"),
                         invalid_request);
    CHECK_THROWS_AS(profile.reserve({0, 10}, dyn{1, 1, 1, 1, 1}), invalid_request);
    CHECK(profile.free_blocks() == before);
    profile.validate();
  };
  check_backend(list_dyn(total));
  check_backend(tree_dyn(total));
  check_backend(tree_dyn_pruning(total));
  check_backend(reference<T, dyn>(total));
  check_backend(slotted_ring<T, dyn>(total, 5, 40));
}

}  // namespace dynamic_resources_conformance_test
