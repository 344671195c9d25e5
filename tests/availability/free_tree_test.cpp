// free_tree specifics beyond the shared conformance suite: deep trees checked against the
// other exact backends, balance under sequential inserts, validate() after every operation,
// every pruning setting giving the same answers, extreme times, and value semantics; and
// the run summaries kept on a sparse subset of the nodes (issue 19): their memory, their
// copies, and an undo that takes back no more than it gave.

#include <doctest/doctest.h>

#include <climits>
#include <cmath>
#include <cstdint>
#include <optional>
#include <random>
#include <utility>
#include <vector>

#include <leasehold/leasehold.hpp>

#include "availability/backends.hpp"

namespace free_tree_test {

using namespace leasehold;

namespace {

// Books `count` requests of the append workload (scaled to `total`) on every profile
// given, checking that they all answer the same.
template <class First, class... Others>
void append_everywhere(std::size_t count, std::uint64_t seed, std::int64_t total, First& first,
                       Others&... others) {
  std::mt19937_64 rng(seed);
  std::uniform_int_distribution<std::int64_t> amount(1, total), duration(1, 3600);
  for (std::size_t i = 0; i < count; ++i) {
    const request<std::int64_t, std::int64_t> r{amount(rng), duration(rng)};
    const std::optional<std::int64_t> start = first.earliest_fit(r);
    REQUIRE(start.has_value());
    const bool all_agree = ((others.earliest_fit(r) == start) && ...);
    REQUIRE(all_agree);
    first.reserve({*start, *start + r.duration}, r.amount);
    (others.reserve({*start, *start + r.duration}, r.amount), ...);
  }
}

// free_tree chooses its summary nodes by this hash of a block's begin (splitmix64's
// finaliser, one key in 16: keeps_runs). A copy here only steers which keys a test uses;
// the answers are checked against free_list whatever free_tree does with them.
bool keeps_runs_like_free_tree(std::int64_t begin) {
  auto x = static_cast<std::uint64_t>(begin);
  x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ULL;
  x = (x ^ (x >> 27)) * 0x94D049BB133111EBULL;
  x ^= x >> 31;
  return x % 16 == 0;
}

// Online arrivals of short windows near the origin of a large capacity, as the churn
// benchmark asks, on a free_tree and a free_list side by side. Searches there hardly prune
// with run summaries, so within a few thousand arrivals the tree drops them (its lazy mode).
struct near_origin_churn {
  static constexpr std::int64_t total = 3000;
  explicit near_origin_churn(std::mt19937_64& random) : rng(random) {}

  std::mt19937_64& rng;
  free_tree<> tree{total};
  free_list<> list{total};
  std::vector<std::pair<interval<std::int64_t>, std::int64_t>> live;
  std::uniform_int_distribution<std::int64_t> amount{1, 128}, duration{1, 60}, notice{0, 2000};

  // One arrival: its earliest fit compared with free_list's, `ask` asked of the request
  // before it is booked in both where it fits.
  template <class Ask>
  request<> arrive(Ask ask) {
    const std::int64_t begin = tree.origin() + notice(rng);
    const std::int64_t d = duration(rng);
    const request<> r{amount(rng), d, {begin, begin + 3 * d}};
    const auto start = tree.earliest_fit(r);
    REQUIRE(start == list.earliest_fit(r));
    ask(r);
    if (start) {
      tree.reserve({*start, *start + d}, r.amount);
      list.reserve({*start, *start + d}, r.amount);
      live.push_back({{*start, *start + d}, r.amount});
    }
    return r;
  }
  request<> arrive() {
    return arrive([](const request<>&) {});
  }

  // One live booking, chosen at random, released from both.
  void release_any() {
    const std::size_t i = rng() % live.size();
    tree.release(live[i].first, live[i].second);
    list.release(live[i].first, live[i].second);
    live.erase(live.begin() + static_cast<std::ptrdiff_t>(i));
  }
};

}  // namespace

TEST_CASE("free_tree: a deep tree answers exactly like free_list and reference") {
  free_tree<> tree(128);
  free_list<> list(128);
  append_everywhere(3000, 5, 128, tree, list);
  CHECK(tree.block_count() > 2000);
  CHECK(tree.free_blocks() == list.free_blocks());
  tree.validate();

  reference<> oracle(128);
  for (const auto& b : tree.free_blocks())
    if (b.free != 128) oracle.reserve(b.span, 128 - b.free);
  REQUIRE(oracle.free_blocks() == tree.free_blocks());

  std::mt19937_64 rng(11);
  std::uniform_int_distribution<std::int64_t> amount(1, 128), duration(1, 5000), at(0, 2'000'000);
  for (int i = 0; i < 40; ++i) {
    const std::int64_t begin = at(rng);
    const request<> r{amount(rng), duration(rng), {begin, begin + 20'000}};
    CHECK(tree.earliest_fit(r) == oracle.earliest_fit(r));
    const request<> unbounded{r.amount, r.duration, {begin, forever<std::int64_t>}};
    CHECK(tree.earliest_fit(unbounded) == oracle.earliest_fit(unbounded));
    const interval<std::int64_t> span{begin, begin + r.duration};
    CHECK(tree.min_free(span) == oracle.min_free(span));
    CHECK(tree.free_at(begin) == oracle.free_at(begin));
  }
}

TEST_CASE("free_tree: sequential inserts keep the tree shallow") {
  free_tree<std::int64_t, int> profile(4);
  const int n = 20'000;
  for (int i = 0; i < n; ++i) profile.reserve({i, i + 1}, 1 + i % 3);  // every block new, in order
  CHECK(profile.block_count() == static_cast<std::size_t>(n + 1));
  // A treap's expected depth is about 2 ln n; allow twice that.
  CHECK(profile.height() <= static_cast<std::size_t>(4.0 * std::log(n)));
  profile.validate();
  for (int i = 0; i < n; i += 2) profile.release({i, i + 1}, 1 + i % 3);  // erase in order too
  CHECK(profile.height() <= static_cast<std::size_t>(4.0 * std::log(n)));
  profile.validate();
  CHECK(profile.earliest_fit({4, 1}) == 0);
  CHECK(profile.earliest_fit({4, 2}) == n);
}

TEST_CASE("free_tree: validate holds after every operation of a long random run") {
  free_tree<std::int64_t, std::int64_t> tree(32);
  free_list<std::int64_t, std::int64_t> list(32);
  std::mt19937_64 rng(2024);
  std::uniform_int_distribution<std::int64_t> amount(1, 32), duration(1, 80), at(0, 3000);
  std::vector<std::pair<interval<std::int64_t>, std::int64_t>> live;
  for (int op = 0; op < 4000; ++op) {
    CAPTURE(op);
    const int kind = static_cast<int>(rng() % 10);
    if (kind < 5) {
      const std::int64_t begin = tree.origin() + at(rng);
      const request<> r{amount(rng), duration(rng), {begin, begin + 400}};
      const auto start = tree.earliest_fit(r);
      REQUIRE(start == list.earliest_fit(r));
      if (start) {
        tree.reserve({*start, *start + r.duration}, r.amount);
        list.reserve({*start, *start + r.duration}, r.amount);
        live.push_back({{*start, *start + r.duration}, r.amount});
      }
    } else if (kind < 8 && !live.empty()) {
      const std::size_t i = rng() % live.size();
      tree.release(live[i].first, live[i].second);
      list.release(live[i].first, live[i].second);
      live.erase(live.begin() + static_cast<std::ptrdiff_t>(i));
    } else if (kind == 8) {
      const std::int64_t begin = tree.origin() + at(rng);
      const interval<std::int64_t> span{begin, begin + duration(rng)};
      CHECK(tree.min_free(span) == list.min_free(span));
    } else {
      const std::int64_t t = tree.origin() + static_cast<std::int64_t>(rng() % 40);
      tree.advance_to(t);
      list.advance_to(t);
      std::vector<std::pair<interval<std::int64_t>, std::int64_t>> still_live;
      for (auto booking : live) {
        if (booking.first.end <= t) continue;
        booking.first.begin = std::max(booking.first.begin, t);
        still_live.push_back(booking);
      }
      live = std::move(still_live);
    }
    tree.validate();
    REQUIRE(tree.free_blocks() == list.free_blocks());
  }
}

TEST_CASE("free_tree: every pruning setting gives the same answers") {
  for (const std::int64_t total : {std::int64_t{1}, std::int64_t{7}, std::int64_t{128},
                                   std::int64_t{1000}, std::int64_t{1'000'000'000'000}}) {
    CAPTURE(total);
    free_tree<std::int64_t, std::int64_t, 0> plain(total);
    free_tree<std::int64_t, std::int64_t, 3> coarse(total);
    free_tree<std::int64_t, std::int64_t> standard(total);
    free_tree<std::int64_t, std::int64_t, 40> fine(total);
    append_everywhere(600, static_cast<std::uint64_t>(total), total, standard, plain, coarse, fine);
    plain.validate();
    coarse.validate();
    standard.validate();
    fine.validate();
    CHECK(plain.free_blocks() == fine.free_blocks());
  }
}

TEST_CASE("free_tree: vector capacities prune per component and stay exact") {
  using C = leasehold::testing::vector4;
  const C total{8, 64, 4, 16};
  free_tree<std::int64_t, C> tree(total);       // default: no thresholds for vectors
  free_tree<std::int64_t, C, 4> pruned(total);  // four thresholds per component
  free_list<std::int64_t, C> list(total);
  std::mt19937_64 rng(99);
  for (int op = 0; op < 1500; ++op) {
    CAPTURE(op);
    C amount{static_cast<std::int64_t>(rng() % 9), static_cast<std::int64_t>(rng() % 65),
             static_cast<std::int64_t>(rng() % 5), static_cast<std::int64_t>(rng() % 17)};
    if (amount == C{}) amount[1] = 1;
    const request<std::int64_t, C> r{amount, static_cast<std::int64_t>(1 + rng() % 300)};
    const auto start = tree.earliest_fit(r);
    REQUIRE(start == list.earliest_fit(r));
    REQUIRE(start == pruned.earliest_fit(r));
    tree.reserve({*start, *start + r.duration}, r.amount);
    pruned.reserve({*start, *start + r.duration}, r.amount);
    list.reserve({*start, *start + r.duration}, r.amount);
    if (op % 10 == 0) {
      pruned.validate();
      tree.validate();  // no thresholds: updates leave pending shifts
    }
  }
  CHECK(tree.free_blocks() == list.free_blocks());
  CHECK(pruned.free_blocks() == list.free_blocks());
  tree.validate();
  pruned.validate();
}

TEST_CASE("free_tree: times at the ends of the time type") {
  constexpr int lowest = INT_MIN + 1;
  free_tree<int, int> tree(5, lowest);
  reference<int, int> oracle(5, lowest);
  const std::vector<std::pair<interval<int>, int>> bookings{{{lowest, lowest + 10}, 5},
                                                            {{-100, 100}, 3},
                                                            {{INT_MAX - 100, INT_MAX - 50}, 4},
                                                            {{INT_MAX - 10, INT_MAX}, 5}};
  for (const auto& [span, amount] : bookings) {
    tree.reserve(span, amount);
    oracle.reserve(span, amount);
  }
  tree.validate();
  REQUIRE(tree.free_blocks() == oracle.free_blocks());
  for (const int amount : {1, 2, 3, 4, 5})
    for (const int duration : {1, 10, 200, INT_MAX / 2, INT_MAX - 20}) {
      CAPTURE(amount);
      CAPTURE(duration);
      const request<int, int> r{amount, duration};
      CHECK(tree.earliest_fit(r) == oracle.earliest_fit(r));
    }
  CHECK(tree.min_free({lowest, INT_MAX}) == 0);
  tree.advance_to(0);
  oracle.advance_to(0);
  CHECK(tree.free_blocks() == oracle.free_blocks());
  tree.validate();
}

// Issue 19's memory target, 200 bytes a block, at every size on the way rather than only in
// the steady state: pools that grew by doubling held up to half their slots unused just after
// a doubling (210 bytes per reservation at 10,000 on the append benchmark).
TEST_CASE("free_tree: pool slack keeps memory under 200 bytes a block at every size") {
  free_tree<> tree(128);
  for (std::size_t step = 0; step < 40; ++step) {
    append_everywhere(250, 100 + step, 128, tree);
    const std::size_t blocks = tree.block_count();
    CHECK(tree.memory_usage() < 200 * blocks);
  }
}

// compact() lays the nodes out afresh and changes nothing a caller can see: not the blocks,
// the shape, the mode or the answers; it gives back the pools' slack. In both modes, since
// the lazy one keeps pending shifts in the nodes it copies.
TEST_CASE("free_tree: compact changes the layout and nothing else") {
  std::mt19937_64 rng(32);
  // Compacts `tree` and checks it against what it was, then that it answers as `list` does.
  const auto check_compact = [&rng](free_tree<>& tree, free_list<>& list) {
    const auto blocks = tree.free_blocks();
    const std::size_t height = tree.height();
    const bool maintained = tree.maintains_run_summaries();
    const std::size_t memory = tree.memory_usage();
    tree.compact();
    tree.validate();
    CHECK(tree.free_blocks() == blocks);
    CHECK(tree.height() == height);
    CHECK(tree.maintains_run_summaries() == maintained);
    CHECK(tree.memory_usage() <= memory);
    append_everywhere(200, rng(), tree.total(), tree, list);
    CHECK(tree.free_blocks() == list.free_blocks());
    tree.validate();
  };

  SUBCASE("with run summaries, after appends and releases") {
    free_tree<> tree(128);
    free_list<> list(128);
    append_everywhere(3000, 31, 128, tree, list);
    // Releases leave freed slots in the pools, which compact gives back.
    const std::vector<free_block<std::int64_t, std::int64_t>> booked = list.free_blocks();
    for (int i = 0; i < 300; ++i) {
      const auto& b = booked[rng() % (booked.size() - 1)];
      if (tree.free_at(b.span.begin) != b.free) continue;  // released into already
      const auto release = std::min<std::int64_t>(128 - b.free, 1 + static_cast<int>(rng() % 4));
      if (release <= 0) continue;
      tree.release(b.span, release);
      list.release(b.span, release);
    }
    REQUIRE(tree.maintains_run_summaries());
    check_compact(tree, list);
  }

  SUBCASE("in the lazy mode, with shifts pending in the nodes") {
    near_origin_churn churn(rng);
    for (int op = 0; op < 6000 && churn.tree.maintains_run_summaries(); ++op) {
      churn.arrive();
      if (churn.live.size() > 300) churn.release_any();
    }
    REQUIRE_FALSE(churn.tree.maintains_run_summaries());
    check_compact(churn.tree, churn.list);
  }
}

TEST_CASE("free_tree: run summaries on a sparse subset of nodes stay exact and small") {
  free_tree<> tree(128);
  free_list<> list(128);
  append_everywhere(4000, 17, 128, tree, list);
  tree.validate();
  const std::size_t blocks = tree.block_count();
  REQUIRE(blocks > 2000);
  // About one node in 16 keeps 32 run summaries (768 bytes); the others are 80 bytes: about
  // 128 bytes a block. The pools grow by an eighth, so their slack keeps the whole within issue
  // 19's 200 bytes a block; full summaries everywhere took ~850.
  CHECK(tree.memory_usage() < 200 * blocks);

  SUBCASE("copies, moves and swaps carry the summaries along") {
    const free_tree<> copy(tree);
    copy.validate();
    CHECK(copy.free_blocks() == list.free_blocks());
    free_tree<> assigned(5);
    assigned = copy;
    assigned.validate();
    free_tree<> moved(std::move(assigned));
    moved.validate();
    free_tree<> other(7);
    swap(moved, other);
    other.validate();
    moved.validate();
    CHECK(moved.total() == 7);
    std::mt19937_64 rng(3);
    std::uniform_int_distribution<std::int64_t> amount(1, 128), duration(1, 5000);
    for (int i = 0; i < 200; ++i) {
      const request<> r{amount(rng), duration(rng)};
      REQUIRE(other.earliest_fit(r) == list.earliest_fit(r));
      REQUIRE(copy.earliest_fit(r) == list.earliest_fit(r));
    }
    // The copy is independent: changing the original leaves it as it was.
    const std::int64_t last = tree.free_blocks().back().span.begin;  // free forever after
    tree.reserve({last, last + 10}, 1);
    CHECK(copy.free_blocks() == list.free_blocks());
  }

  SUBCASE("undoing a reserve or release allocates nothing") {
    std::mt19937_64 rng(8);
    std::uniform_int_distribution<std::int64_t> amount(1, 128), duration(1, 3000);
    const std::int64_t horizon = tree.free_blocks().back().span.begin;
    std::uniform_int_distribution<std::int64_t> at(0, horizon);
    for (int i = 0; i < 2000; ++i) {
      const std::int64_t begin = at(rng);
      const request<> r{amount(rng), duration(rng), {begin, begin + 50'000}};
      const auto start = tree.earliest_fit(r);
      if (!start) continue;
      const interval<std::int64_t> span{*start, *start + r.duration};
      tree.reserve(span, r.amount);
      const std::size_t after_reserve = tree.memory_usage();
      tree.release(span, r.amount);  // the inverse: splits exactly where the reserve merged
      REQUIRE(tree.memory_usage() == after_reserve);
    }
    tree.validate();
    CHECK(tree.free_blocks() == list.free_blocks());
  }

  SUBCASE("advance_to drops summary nodes with the blocks it forgets") {
    const std::vector<free_block<std::int64_t, std::int64_t>> all = tree.free_blocks();
    for (const std::size_t i : {all.size() / 4, all.size() / 2, all.size() - 2}) {
      const std::int64_t t = all[i].span.begin + 1;
      tree.advance_to(t);
      list.advance_to(t);
      tree.validate();
      REQUIRE(tree.free_blocks() == list.free_blocks());
      for (const std::int64_t d : {1, 100, 3000})
        for (const std::int64_t c : {1, 40, 128})
          CHECK(tree.earliest_fit({c, d}) == list.earliest_fit({c, d}));
    }
    CHECK(tree.memory_usage() >= sizeof(tree));
  }
}

TEST_CASE("free_tree: blocks that all keep run summaries, or none but the first") {
  for (const bool summary_keys : {true, false}) {
    CAPTURE(summary_keys);
    std::vector<std::int64_t> keys;  // block boundaries the bookings may use
    for (std::int64_t t = 1; keys.size() < 400; ++t)
      if (keeps_runs_like_free_tree(t) == summary_keys) keys.push_back(t);
    free_tree<> tree(16);  // the origin, 0, hashes to 0: always a summary node
    free_list<> list(16);
    std::mt19937_64 rng(summary_keys ? 41 : 42);
    std::uniform_int_distribution<std::size_t> pick(0, keys.size() - 1);
    std::uniform_int_distribution<std::int64_t> amount(1, 16);
    std::vector<std::pair<interval<std::int64_t>, std::int64_t>> live;
    for (int op = 0; op < 1500; ++op) {
      CAPTURE(op);
      if (rng() % 4 != 0 || live.empty()) {
        std::size_t a = pick(rng);
        std::size_t b = pick(rng);
        if (a == b) continue;
        if (a > b) std::swap(a, b);
        const interval<std::int64_t> span{keys[a], keys[b]};
        const std::int64_t c = amount(rng);
        if (list.min_free(span) < c) continue;
        tree.reserve(span, c);
        list.reserve(span, c);
        live.push_back({span, c});
      } else {
        const std::size_t i = rng() % live.size();
        tree.release(live[i].first, live[i].second);
        list.release(live[i].first, live[i].second);
        live.erase(live.begin() + static_cast<std::ptrdiff_t>(i));
      }
      if (op % 50 == 0) tree.validate();
      REQUIRE(tree.free_blocks() == list.free_blocks());
      const request<> r{amount(rng), static_cast<std::int64_t>(1 + rng() % 20'000)};
      REQUIRE(tree.earliest_fit(r) == list.earliest_fit(r));
    }
    tree.validate();
    const free_tree<> copy(tree);
    copy.validate();
    tree.advance_to(keys[keys.size() / 2] + 1);
    list.advance_to(keys[keys.size() / 2] + 1);
    tree.validate();
    CHECK(tree.free_blocks() == list.free_blocks());
  }
}

// The two modes of issue 19's churn work: run summaries kept while searches prune with them,
// dropped for lazy shifts when they do not, rebuilt when searches without them walk far.
TEST_CASE("free_tree: run summaries are dropped and rebuilt as the searches need them") {
  std::mt19937_64 rng(19);
  near_origin_churn churn(rng);
  constexpr std::int64_t total = near_origin_churn::total;
  free_tree<>& tree = churn.tree;
  free_list<>& list = churn.list;
  std::vector<std::pair<interval<std::int64_t>, std::int64_t>>& live = churn.live;
  REQUIRE(tree.maintains_run_summaries());

  int op = 0;
  for (; op < 6000 && tree.maintains_run_summaries(); ++op) {
    CAPTURE(op);
    churn.arrive();
    if (live.size() > 300) churn.release_any();
    if (op % 100 == 0) tree.validate();
  }
  CHECK_FALSE(tree.maintains_run_summaries());
  // Carry on without them for a while: shifts pend, answers and blocks stay exact.
  for (int more = 0; more < 500; ++more, ++op) {
    CAPTURE(op);
    // latest_fit reads through the pending shifts too, over short and long windows.
    const request<> r = churn.arrive([&](const request<>& asked) {
      REQUIRE(tree.latest_fit(asked) == list.latest_fit(asked));
      const request<> wide{asked.amount, asked.duration, {tree.origin(), asked.window.end + 2000}};
      REQUIRE(tree.latest_fit(wide) == list.latest_fit(wide));
    });
    const std::int64_t begin = r.window.begin;
    const std::int64_t d = r.duration;
    churn.release_any();
    if (more % 50 == 0) {
      tree.validate();
      REQUIRE(tree.free_blocks() == list.free_blocks());
      const free_tree<> copy(tree);
      copy.validate();
      CHECK(copy.free_blocks() == list.free_blocks());
    }
    const interval<std::int64_t> span{begin, begin + d};
    REQUIRE(tree.min_free(span) == list.min_free(span));
    REQUIRE(tree.free_at(begin) == list.free_at(begin));
  }
  tree.advance_to(tree.origin() + 100);
  list.advance_to(list.origin() + 100);
  tree.validate();
  REQUIRE(tree.free_blocks() == list.free_blocks());

  // Now requests from the origin to forever that must walk past many short stretches: a comb
  // of 400 teeth, each leaving 50 units free for 5 ticks, with all free for 5 ticks between.
  for (const auto& [span, booked] : live) {
    if (span.end <= tree.origin()) continue;  // forgotten by advance_to
    tree.release({std::max(span.begin, tree.origin()), span.end}, booked);
    list.release({std::max(span.begin, list.origin()), span.end}, booked);
  }
  REQUIRE(tree.block_count() == 1);
  const std::int64_t comb = tree.origin();
  std::vector<std::pair<interval<std::int64_t>, std::int64_t>> teeth;
  for (std::int64_t i = 0; i < 400; ++i) {
    const interval<std::int64_t> gap{comb + 10 * i + 5, comb + 10 * i + 10};
    teeth.push_back({gap, total - 50});
    tree.reserve(gap, total - 50);
    list.reserve(gap, total - 50);
  }
  for (int step = 0; step < 1200 && !tree.maintains_run_summaries(); ++step) {
    CAPTURE(step);
    const request<> r{100, 40};
    const auto start = tree.earliest_fit(r);
    REQUIRE(start == list.earliest_fit(r));
    // One update in each direction on a tooth, the profile unchanged after both.
    const auto& [gap, booked] = teeth[static_cast<std::size_t>(step) % teeth.size()];
    tree.release(gap, booked);
    list.release(gap, booked);
    tree.reserve(gap, booked);
    list.reserve(gap, booked);
  }
  CHECK(tree.maintains_run_summaries());
  tree.validate();  // every summary, rebuilt, checked against its children and a scan
  REQUIRE(tree.free_blocks() == list.free_blocks());
  const request<> r{100, 40};
  CHECK(tree.earliest_fit(r) == list.earliest_fit(r));
}

// A tree that nothing searches (a per-type profile kept beside a joint one) stops keeping
// summaries at its first review, and searches that walk far bring them back soon.
TEST_CASE("free_tree: a tree only updated for a review period drops its run summaries") {
  free_tree<> tree(128);
  free_list<> list(128);
  REQUIRE(tree.maintains_run_summaries());
  // 1,100 teeth of 50 free for 5 ticks, 10 apart, and no search: the review after the 1,024th
  // reserve finds none.
  for (std::int64_t i = 0; i < 1100; ++i) {
    const interval<std::int64_t> tooth{10 * i + 5, 10 * i + 10};
    tree.reserve(tooth, 78);
    list.reserve(tooth, 78);
    if (i == 1022) CHECK(tree.maintains_run_summaries());  // 1,023 updates: not reviewed yet
  }
  CHECK_FALSE(tree.maintains_run_summaries());
  tree.validate();
  CHECK(tree.free_blocks() == list.free_blocks());
  // 100 for 40 ticks fits only after the last tooth, which ends at 10 * 1099 + 10.
  const request<> r{100, 40};
  CHECK(tree.earliest_fit(r) == 11000);
  // Searches that walk past every tooth bring them back at the first update after the 64th,
  // not a review period (1,024 updates) later.
  int searches = 0;
  for (; searches < 1200 && !tree.maintains_run_summaries(); ++searches) {
    CAPTURE(searches);
    REQUIRE(tree.earliest_fit(r) == list.earliest_fit(r));
    const interval<std::int64_t> tooth{10 * (searches % 1100) + 5, 10 * (searches % 1100) + 10};
    tree.release(tooth, 78);
    list.release(tooth, 78);
    tree.reserve(tooth, 78);
    list.reserve(tooth, 78);
  }
  CHECK(tree.maintains_run_summaries());
  CHECK(searches == 63);  // with the search above, 64
  tree.validate();
  CHECK(tree.earliest_fit(r) == 11000);
}

TEST_CASE("free_tree: run summaries stay exact when a changed block merges into its parent") {
  // A refresh recomputes a run summary only where a child reports it changed; a block whose
  // free capacity changed and that then merged into its left neighbour leaves no child to
  // report it, so its parent must recompute what it crossed (values_here). Small totals and a
  // short horizon make such merges common; validate() after every update compares every stored
  // summary with one recomputed from scratch.
  for (const std::int64_t total : {std::int64_t{1}, std::int64_t{3}, std::int64_t{129}}) {
    CAPTURE(total);
    free_tree<> tree(total);
    reference<> oracle(total);
    std::mt19937_64 rng(static_cast<std::uint64_t>(total));
    std::vector<std::pair<interval<std::int64_t>, std::int64_t>> booked;
    for (int op = 0; op < 400; ++op) {
      CAPTURE(op);
      const std::int64_t amount = 1 + static_cast<std::int64_t>(rng() % std::uint64_t(total));
      if (rng() % 3 == 0 && !booked.empty()) {  // give one booking back
        const std::size_t k = rng() % booked.size();
        tree.release(booked[k].first, booked[k].second);
        oracle.release(booked[k].first, booked[k].second);
        booked[k] = booked.back();
        booked.pop_back();
      } else if (rng() % 2 == 0) {  // a search (keeps the summaries in use), then book there
        const request<std::int64_t, std::int64_t> r{amount,
                                                    1 + static_cast<std::int64_t>(rng() % 50)};
        const std::optional<std::int64_t> start = tree.earliest_fit(r);
        REQUIRE(start == oracle.earliest_fit(r));
        booked.push_back({{*start, *start + r.duration}, amount});
        tree.reserve(booked.back().first, amount);
        oracle.reserve(booked.back().first, amount);
      } else {  // anywhere in a short horizon, if it fits
        const auto begin = static_cast<std::int64_t>(rng() % 200);
        const interval<std::int64_t> span{begin, begin + 1 + static_cast<std::int64_t>(rng() % 25)};
        if (oracle.min_free(span) < amount) continue;
        booked.push_back({span, amount});
        tree.reserve(span, amount);
        oracle.reserve(span, amount);
      }
      tree.validate();
      REQUIRE(tree.free_blocks() == oracle.free_blocks());
    }
  }
}

}  // namespace free_tree_test
