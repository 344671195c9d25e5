#include "leasehold/availability/detail/end_index.hpp"

#include <doctest/doctest.h>

#include <cstdint>
#include <iterator>
#include <optional>
#include <random>
#include <set>
#include <utility>
#include <vector>

namespace end_index_test {

namespace {

using index = leasehold::detail::end_index<std::int64_t>;
using key = index::key;

std::vector<key> keys_of(const index& ends) {
  std::vector<key> result;
  ends.for_each([&](const key& k) { result.push_back(k); });
  return result;
}

void add(index& ends, std::set<key>& model, key k) {
  const index::room room = ends.make_room(k);
  ends.insert(k, room);
  model.insert(k);
}

// The index against a std::set of the same keys: order, ends, first and last.
void check_against(const index& ends, const std::set<key>& model) {
  REQUIRE(ends.valid());
  REQUIRE(ends.size() == model.size());
  CHECK(keys_of(ends) == std::vector<key>(model.begin(), model.end()));
  if (model.empty()) return;
  CHECK(ends.front() == *model.begin());
  CHECK(ends.back() == *model.rbegin());
}

}  // namespace

TEST_CASE("end_index: answers the first end at or after a time, by hand") {
  index ends;
  std::set<key> model;
  CHECK(ends.empty());
  CHECK(ends.first_at_or_after(0) == std::nullopt);
  add(ends, model, {30, 1});
  add(ends, model, {10, 2});
  add(ends, model, {30, 3});
  add(ends, model, {20, 4});
  check_against(ends, model);
  CHECK(ends.first_at_or_after(-5) == key{10, 2});
  CHECK(ends.first_at_or_after(10) == key{10, 2});
  CHECK(ends.first_at_or_after(11) == key{20, 4});
  CHECK(ends.first_at_or_after(21) == key{30, 1});  // ties by id
  CHECK(ends.first_at_or_after(31) == std::nullopt);
  ends.erase({30, 1});
  model.erase({30, 1});
  check_against(ends, model);
  CHECK(ends.first_at_or_after(21) == key{30, 3});
}

// Thousands of keys fill, split and join many chunks; every answer stays the set's.
TEST_CASE("end_index: random inserts and erases agree with a set") {
  std::mt19937_64 rng(41);
  index ends;
  std::set<key> model;
  std::uniform_int_distribution<std::int64_t> time(0, 5000);
  std::uint64_t next_id = 1;
  for (int step = 0; step < 20000; ++step) {
    CAPTURE(step);
    // Grow to about 3,000 keys, then shrink to none, then grow again.
    const bool grow = step < 6000 || (step >= 12000 && step < 16000);
    if (grow || model.empty()) {
      add(ends, model, {time(rng), next_id++});
    } else {
      auto it = model.lower_bound({time(rng), 0});
      if (it == model.end()) it = model.begin();
      ends.erase(*it);
      model.erase(it);
    }
    if (step % 500 == 0) check_against(ends, model);
    const std::int64_t t = time(rng);
    const auto expected = model.lower_bound({t, 0});
    REQUIRE(ends.first_at_or_after(t) ==
            (expected == model.end() ? std::nullopt : std::optional<key>(*expected)));
  }
  check_against(ends, model);
  const index copy(ends);
  check_against(copy, model);
  index moved(std::move(ends));
  check_against(moved, model);
  moved.clear();
  CHECK(moved.empty());
  CHECK(moved.valid());
}

// make_room alone (the caller's next step threw) changes no key, even where it splits a chunk.
TEST_CASE("end_index: make_room without the insert leaves the keys as they were") {
  index ends;
  std::set<key> model;
  ends.make_room({5, 1});  // the first chunk, still empty
  check_against(ends, model);
  CHECK(ends.first_at_or_after(0) == std::nullopt);
  for (std::uint64_t id = 1; id <= 64; ++id) add(ends, model, {static_cast<std::int64_t>(id), id});
  ends.make_room({100, 65});  // a full chunk splits
  check_against(ends, model);
  add(ends, model, {0, 66});
  check_against(ends, model);
}

}  // namespace end_index_test
