// Fit corners (detail/fit_corners.hpp): their classes, boxes, rounding, length bands and
// joins by hand; and free_tree's vector search that passes subtrees by them, against
// reference on deep multi-type profiles (append from the origin, windows with an end,
// latest_fit, releases, advance_to, set_total), with totals that round exactly and ones that
// do not, for two, three and four components.

#include <doctest/doctest.h>

#include <algorithm>
#include <array>
#include <cstdint>
#include <limits>
#include <optional>
#include <random>
#include <set>
#include <utility>
#include <vector>

#include <leasehold/leasehold.hpp>

namespace fit_corners_test {

using namespace leasehold;

namespace {

using vector4 = resources<4, std::int64_t>;
using corners4 = detail::fit_corners<std::int64_t, vector4>;
using q4 = corners4::quantised;

// A deep profile of N-component requests on a free_tree and on reference side by side: every
// answer compared, validate() now and then. Amounts per component uniform in [1, total_i] (at
// most `cap`), durations in [1, 3600].
template <std::size_t N>
struct deep_profile {
  using C = resources<N, std::int64_t>;
  explicit deep_profile(C total_, std::uint64_t seed)
      : total(total_), tree(total_), oracle(total_), rng(seed) {}

  C total;
  free_tree<std::int64_t, C> tree;
  reference<std::int64_t, C> oracle;
  std::mt19937_64 rng;
  std::vector<std::pair<interval<std::int64_t>, C>> live;

  C draw_amount() {
    C amount{};
    for (std::size_t i = 0; i < N; ++i)
      amount[i] = std::uniform_int_distribution<std::int64_t>(1, total[i])(rng);
    return amount;
  }
  std::int64_t draw(std::int64_t low, std::int64_t high) {
    return std::uniform_int_distribution<std::int64_t>(low, high)(rng);
  }

  // One request: earliest_fit (and latest_fit for a window with an end) compared, then booked
  // at the earliest start where it fits.
  void ask(const request<std::int64_t, C>& r) {
    const std::optional<std::int64_t> start = tree.earliest_fit(r);
    REQUIRE(start == oracle.earliest_fit(r));
    if (r.window.end != forever<std::int64_t>) REQUIRE(tree.latest_fit(r) == oracle.latest_fit(r));
    if (!start) return;
    tree.reserve({*start, *start + r.duration}, r.amount);
    oracle.reserve({*start, *start + r.duration}, r.amount);
    live.push_back({{*start, *start + r.duration}, r.amount});
  }
  void append(std::size_t count) {
    for (std::size_t i = 0; i < count; ++i)
      ask({draw_amount(), draw(1, 3600), {tree.origin(), forever<std::int64_t>}});
  }
  // Windows with an end anywhere in the booked time line.
  void windows(std::size_t count, std::int64_t extent) {
    for (std::size_t i = 0; i < count; ++i) {
      const std::int64_t d = draw(1, 3600);
      const std::int64_t begin = tree.origin() + draw(0, extent);
      ask({draw_amount(), d, {begin, begin + d + draw(0, 20'000)}});
    }
  }
  void release_some(std::size_t count) {
    for (std::size_t i = 0; i < count && !live.empty(); ++i) {
      const std::size_t k = static_cast<std::size_t>(rng() % live.size());
      tree.release(live[k].first, live[k].second);
      oracle.release(live[k].first, live[k].second);
      live.erase(live.begin() + static_cast<std::ptrdiff_t>(k));
    }
  }
  void advance_to(std::int64_t t) {
    tree.advance_to(t);
    oracle.advance_to(t);
    std::erase_if(live, [t](const auto& booking) { return booking.first.end <= t; });
    for (auto& booking : live) booking.first.begin = std::max(booking.first.begin, t);
  }
  void check_blocks() const {
    tree.validate();
    REQUIRE(tree.free_blocks() == oracle.free_blocks());
  }
};

template <std::size_t N>
void exercise(resources<N, std::int64_t> total, std::uint64_t seed) {
  deep_profile<N> p(total, seed);
  p.append(1200);  // deep: the searches from the origin cross it all
  p.check_blocks();
  CHECK(p.tree.maintains_run_summaries());  // no review has dropped the corners
  const std::int64_t extent = p.tree.free_blocks().back().span.begin;
  p.windows(200, extent);
  p.check_blocks();
  p.release_some(300);  // free capacity grows again: runs that fit open in the past
  p.check_blocks();
  p.append(200);
  p.windows(100, extent);
  p.advance_to(p.tree.origin() + extent / 3);
  p.check_blocks();
  p.append(200);
  p.release_some(100);
  p.windows(100, extent);
  p.check_blocks();
}

}  // namespace

TEST_CASE("fit_corners: every order of the components has a class of its own") {
  std::array<std::uint8_t, 4> values{1, 2, 3, 4};
  std::set<std::size_t> seen;
  do {
    const std::size_t k = corners4::class_of(values);
    CHECK(k < corners4::classes);
    seen.insert(k);
  } while (std::next_permutation(values.begin(), values.end()));
  CHECK(seen.size() == 24);
  // Ties go to the lower index: all equal is the order 0 > 1 > 2 > 3, like 4 > 3 > 2 > 1.
  CHECK(corners4::class_of(q4{5, 5, 5, 5}) == corners4::class_of(q4{4, 3, 2, 1}));
}

TEST_CASE("fit_corners: boxes hold every vector below one they took, and rule out mixes") {
  corners4::boxes boxes;
  CHECK_FALSE(boxes.may_fit(q4{1, 0, 0, 0}));  // empty: nothing fits
  boxes.add(q4{100, 10, 10, 10});
  boxes.add(q4{10, 100, 10, 10});
  // The element-wise maximum {100, 100, 10, 10} would hold this; no block does.
  CHECK_FALSE(boxes.may_fit(q4{50, 50, 1, 1}));
  CHECK(boxes.may_fit(q4{100, 10, 10, 10}));
  CHECK(boxes.may_fit(q4{1, 100, 0, 10}));
  CHECK_FALSE(boxes.may_fit(q4{1, 1, 11, 1}));

  std::mt19937_64 rng(5);
  std::uniform_int_distribution<int> byte(0, 255);
  corners4::boxes all;
  std::vector<q4> taken;
  for (int i = 0; i < 500; ++i) {
    q4 q{};
    for (auto& x : q) x = static_cast<std::uint8_t>(byte(rng));
    all.add(q);
    taken.push_back(q);
  }
  corners4::boxes joined;
  joined.join(all);
  CHECK(joined == all);
  for (const q4& q : taken) {
    q4 below = q;
    for (auto& x : below)
      x = static_cast<std::uint8_t>(x - static_cast<std::uint8_t>(x > 0 ? rng() % x : 0));
    CHECK(all.may_fit(q));
    CHECK(all.may_fit(below));
  }
}

TEST_CASE("fit_corners: rounding keeps every fit visible, exactly up to 255") {
  const corners4::scale exact(vector4{128, 255, 1, 200});
  CHECK(exact.exact());
  CHECK(exact.of(vector4{128, 255, 1, 0}) == q4{128, 255, 1, 0});
  const vector4 total{1000, 300'000, 7, 128};
  const corners4::scale rounded(total);
  CHECK_FALSE(rounded.exact());
  CHECK(rounded.of(total) == q4{250, 255, 7, 128});  // steps 4, 1177, 1, 1
  CHECK(rounded.of(vector4{1, 1, 0, 1}) == q4{1, 1, 0, 1});
  std::mt19937_64 rng(6);
  for (int i = 0; i < 2000; ++i) {
    vector4 have{};
    vector4 need{};
    for (std::size_t j = 0; j < 4; ++j) {
      have[j] = std::uniform_int_distribution<std::int64_t>(0, total[j])(rng);
      need[j] = std::uniform_int_distribution<std::int64_t>(0, have[j])(rng);
    }
    CHECK(corners4::reaches(rounded.of(have), rounded.of(need)));
  }
}

TEST_CASE("fit_corners: length bands double from the base") {
  CHECK(corners4::band_of(1'000'000, 0) == 0);  // no base yet: one band
  CHECK(corners4::band_of(99, 100) == 0);
  CHECK(corners4::band_of(100, 100) == 1);
  CHECK(corners4::band_of(199, 100) == 1);
  CHECK(corners4::band_of(200, 100) == 2);
  CHECK(corners4::band_of(399, 100) == 2);
  CHECK(corners4::band_of(400, 100) == 3);
  CHECK(corners4::band_of(799, 100) == 3);
  CHECK(corners4::band_of(800, 100) == 4);
  CHECK(corners4::band_of(forever<std::int64_t>, 100) == corners4::bands - 1);
}

TEST_CASE("fit_corners: a join learns the lengths and neighbours on its seams") {
  // Three blocks: [0, 10) with q1, [10, 25) with q2, then q3 from 25 (its length unknown).
  const q4 q1{9, 1, 5, 5};
  const q4 q2{3, 8, 5, 5};
  const q4 q3{7, 7, 1, 9};
  const corners4 left = corners4::block(q1, 0);
  const corners4 right = corners4::block(q3, 25);
  const corners4 all = corners4::join(&left, q2, 10, &right, 25, 10);  // bands at 10, 20, ...
  CHECK(all.first_free == q1);
  CHECK(all.first_end == 10);
  CHECK(all.last_free == q3);
  CHECK(all.last_begin == 25);
  // [0, 10) is in band 1, [10, 25) in band 1; the last block in none.
  CHECK(all.single_may_fit(q1, 1));
  CHECK(all.single_may_fit(q2, 1));
  CHECK_FALSE(all.single_may_fit(q1, 2));
  CHECK_FALSE(all.single_may_fit(q3, 0));
  // Pairs: min(q1, q2) = {3, 1, 5, 5} and min(q2, q3) = {3, 7, 1, 5}.
  CHECK(all.pairs.may_fit(q4{3, 1, 5, 5}));
  CHECK(all.pairs.may_fit(q4{3, 7, 1, 5}));
  CHECK_FALSE(all.pairs.may_fit(q4{7, 7, 1, 1}));  // q1 and q3 are not neighbours
  const corners4 alone = corners4::join(nullptr, q2, 10, nullptr, 10, 10);
  CHECK(alone == corners4::block(q2, 10));
  CHECK(alone.first_end == corners4::none);
}

TEST_CASE("fit_corners: appending blocks one by one gives what joins give") {
  // How free_tree computes a gap's corners (a subtree below the nodes that keep them): its
  // blocks in order, each appended to the stretch of those before it.
  const q4 q1{9, 1, 5, 5};
  const q4 q2{3, 8, 5, 5};
  const q4 q3{7, 7, 1, 9};
  corners4 scanned = corners4::block(q1, 0);
  scanned.append(q2, 10, 10);
  scanned.append(q3, 25, 10);
  const corners4 left = corners4::block(q1, 0);
  const corners4 right = corners4::block(q3, 25);
  CHECK(scanned == corners4::join(&left, q2, 10, &right, 25, 10));
  // The first append sets where the first block ends; later ones keep it.
  CHECK(scanned.first_end == 10);
  CHECK(scanned.last_begin == 25);
  CHECK(scanned.pairs.may_fit(q4{3, 7, 1, 5}));
  CHECK_FALSE(scanned.single_may_fit(q3, 0));  // the last block's length is unknown
}

TEST_CASE("fit_corners: a block longer than the time type can count is in the top band") {
  // From an origin near the lowest time to a boundary far later: the length exceeds
  // INT64_MAX (the fuzzer found the overflow of begin - last_begin in join).
  constexpr std::int64_t lowest = std::numeric_limits<std::int64_t>::lowest() + 1;
  const q4 q{1, 1, 1, 1};
  const corners4 left = corners4::block(q, lowest);
  const corners4 joined = corners4::join(&left, q, 1'000'000, nullptr, 1'000'000, 100);
  CHECK(joined.single_may_fit(q, corners4::bands - 1));
  CHECK(corners4::length_between(lowest, 1'000'000) == std::numeric_limits<std::int64_t>::max());
  CHECK(corners4::length_between(10, 25) == 15);

  // The same through free_tree, against reference.
  const vector4 total{8, 8, 8, 8};
  free_tree<std::int64_t, vector4> tree(total, lowest);
  reference<std::int64_t, vector4> oracle(total, lowest);
  for (std::int64_t begin : {std::int64_t{-5}, std::int64_t{1'000'000}, lowest + 3}) {
    tree.reserve({begin, begin + 7}, vector4{3, 1, 4, 1});
    oracle.reserve({begin, begin + 7}, vector4{3, 1, 4, 1});
    tree.validate();
    CHECK(tree.free_blocks() == oracle.free_blocks());
    const request<std::int64_t, vector4> r{
        vector4{6, 8, 5, 8}, 10, {lowest, forever<std::int64_t>}};
    CHECK(tree.earliest_fit(r) == oracle.earliest_fit(r));
  }
}

TEST_CASE("free_tree: deep profiles of several resource types answer like reference") {
  SUBCASE("four types of 128, rounded exactly") { exercise<4>({128, 128, 128, 128}, 1); }
  SUBCASE("four types rounded to steps") { exercise<4>({1000, 300'000, 7, 128}, 2); }
  SUBCASE("four types, one of them small") { exercise<4>({3, 64, 64, 64}, 3); }
  SUBCASE("three types") { exercise<3>({64, 64, 64}, 4); }
  SUBCASE("two types") { exercise<2>({32, 128}, 5); }
}

TEST_CASE("free_tree: the fit corners survive a change of total and a copy") {
  deep_profile<4> p({128, 128, 128, 128}, 7);
  p.append(600);
  free_tree<std::int64_t, vector4> copy = p.tree;
  copy.validate();
  p.tree.set_total({256, 200, 128, 1000});  // rounding to steps from here on
  p.oracle.set_total({256, 200, 128, 1000});
  p.total = {256, 200, 128, 1000};
  p.check_blocks();
  p.append(300);
  p.check_blocks();
  p.tree.compact();
  p.append(100);
  p.check_blocks();
  // The copy still answers as the profile did when it was made.
  deep_profile<4> q({128, 128, 128, 128}, 7);
  q.append(600);
  REQUIRE(copy.free_blocks() == q.oracle.free_blocks());
  for (int i = 0; i < 100; ++i) {
    const request<std::int64_t, vector4> r{q.draw_amount(), q.draw(1, 3600)};
    REQUIRE(copy.earliest_fit(r) == q.oracle.earliest_fit(r));
  }
}

}  // namespace fit_corners_test
