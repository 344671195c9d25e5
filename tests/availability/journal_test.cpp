// availability/journal.hpp: each kind of change undone in place, newest first; commit forgets;
// with no transaction open the changes are made and nothing is recorded; a change that throws
// is not recorded; bookings on every nothrow_rollback backend taken back exactly (checked
// against the profile before the transaction, over random sequences), on capacity_tree through
// a saved copy; savepoints undo back to their mark, nested, and keep the transaction open.

#include <doctest/doctest.h>

#include <array>
#include <cstdint>
#include <map>
#include <random>
#include <set>
#include <stdexcept>
#include <string>
#include <vector>

#include <leasehold/availability/capacity_tree.hpp>
#include <leasehold/availability/free_list.hpp>
#include <leasehold/availability/free_tree.hpp>
#include <leasehold/availability/journal.hpp>
#include <leasehold/availability/reference.hpp>

namespace journal_test {

using namespace leasehold;
using T = std::int64_t;

TEST_CASE("journal: with no transaction open, changes are made and nothing is recorded") {
  journal j;
  int x = 1;
  std::vector<int> v;
  std::map<int, std::string> m{{1, "a"}};
  j.assign(x, 2);
  j.save(x);
  j.push_back(v, 7);
  j.save_entry(m, 1);
  j.erase_key(m, 1);
  CHECK(x == 2);
  CHECK(v == std::vector<int>{7});
  CHECK(m.empty());
  CHECK(!j.active());
  CHECK(j.size() == 0);
}

TEST_CASE("journal: rollback undoes every kind of change, newest first") {
  journal j;
  int x = 1;
  std::string s = "old";
  std::vector<int> v{1, 2};
  std::map<int, std::string> m{{1, "a"}, {2, "b"}};
  std::set<int> ids{5, 6};
  j.begin();
  CHECK(j.active());
  j.save(x);
  x = 10;
  j.save(x);  // a second save in one call: the first one wins on rollback
  x = 20;
  j.assign(s, std::string("new"));
  j.push_back(v, 3);
  j.save_entry(m, 1);
  m[1] = "changed";
  j.save_entry(m, 3);  // absent: rollback erases it
  m[3] = "added";
  auto it = m.find(2);
  it = j.erase(m, it);
  CHECK(it == m.find(3));
  j.erase_key(ids, 5);
  j.erase_key(ids, 99);  // absent: nothing to record
  const int applied = j.apply([&] { return x + 1; }, [&x]() noexcept { x = -1; });
  CHECK(applied == 21);
  CHECK(j.size() == 9);
  CHECK(x == 20);
  CHECK(s == "new");
  CHECK(v == std::vector<int>{1, 2, 3});
  CHECK(m == std::map<int, std::string>{{1, "changed"}, {3, "added"}});
  CHECK(ids == std::set<int>{6});
  j.rollback();
  CHECK(!j.active());
  CHECK(j.size() == 0);
  CHECK(x == 1);  // the apply's undo set -1, then the saves restored 10, then 1
  CHECK(s == "old");
  CHECK(v == std::vector<int>{1, 2});
  CHECK(m == std::map<int, std::string>{{1, "a"}, {2, "b"}});
  CHECK(ids == std::set<int>{5, 6});
}

TEST_CASE("journal: commit forgets, and a later rollback takes back only the later changes") {
  journal j;
  int x = 1;
  j.begin();
  j.assign(x, 2);
  j.commit();
  CHECK(!j.active());
  j.begin();
  j.assign(x, 3);
  j.rollback();
  CHECK(x == 2);
}

TEST_CASE(
    "journal: small undos kept in the records and large ones on the heap both survive growth") {
  // A saved int fits inside a record; a saved array of 64 values does not. Hundreds of each,
  // interleaved, make the records' vector grow (and move its records) several times.
  journal j;
  std::vector<int> small(300);
  std::vector<std::array<std::int64_t, 64>> large(300);
  for (std::size_t k = 0; k < small.size(); ++k) {
    small[k] = static_cast<int>(k);
    large[k].fill(static_cast<std::int64_t>(k));
  }
  const auto small_before = small;
  const auto large_before = large;
  j.begin();
  for (std::size_t k = 0; k < small.size(); ++k) {
    j.save(small[k]);
    small[k] = -1;
    j.save(large[k]);
    large[k].fill(-1);
    j.assign(small[k], -2);
  }
  CHECK(j.size() == 900);
  j.rollback();
  CHECK(small == small_before);
  CHECK(large == large_before);
  CHECK_FALSE(j.active());
}

TEST_CASE("journal: a change that throws is not recorded and the transaction stays open") {
  journal j;
  int x = 1;
  j.begin();
  CHECK_THROWS_AS(
      j.apply([]() -> void { throw std::runtime_error("refused"); }, [&x]() noexcept { x = 99; }),
      std::runtime_error);
  CHECK(j.size() == 0);
  CHECK(j.active());
  j.rollback();
  CHECK(x == 1);  // the undo of the refused change never ran
}

TEST_CASE("journal: a transaction does not nest, and a copy is a closed journal") {
  journal j;
  j.begin();
  CHECK_THROWS_AS(j.begin(), invariant_violation);
  CHECK(j.active());  // still the first transaction
  const journal copy = j;
  CHECK(!copy.active());
  CHECK(copy.size() == 0);
  journal assigned;
  assigned.begin();
  assigned = copy;
  CHECK(!assigned.active());
  j.commit();
}

TEST_CASE("journal: rollback_to undoes back to its mark, nested, and the transaction stays open") {
  journal j;
  int x = 1;
  std::vector<int> v;
  std::map<int, std::string> m{{1, "a"}};
  j.begin();
  j.assign(x, 2);
  const std::size_t outer = j.mark();
  CHECK(outer == 1);
  j.push_back(v, 7);
  const std::size_t inner = j.mark();
  j.save_entry(m, 1);
  m[1] = "b";
  j.assign(x, 3);
  j.rollback_to(inner);  // the entry and x = 3 go; 7 stays
  CHECK(x == 2);
  CHECK(m.at(1) == "a");
  CHECK(v == std::vector<int>{7});
  CHECK(j.active());
  CHECK(j.size() == inner);
  j.rollback_to(inner);  // again: nothing left after it
  CHECK(j.size() == inner);
  j.assign(x, 4);
  j.rollback_to(outer);  // the older mark takes the newer one's changes too
  CHECK(x == 2);
  CHECK(v.empty());
  j.rollback_to(inner);  // beyond the records now: nothing to undo
  CHECK(j.size() == outer);
  j.assign(x, 5);
  j.rollback();  // the whole transaction, marks or not
  CHECK(x == 1);
  CHECK(!j.active());
  CHECK_THROWS_AS((void)j.mark(), invariant_violation);  // nothing is recorded outside
}

TEST_CASE("journal: transaction commits what returns and rolls back what throws") {
  journal j;
  int x = 1;
  CHECK(j.transaction([&] {
    j.assign(x, 2);
    return x * 10;
  }) == 20);
  CHECK(!j.active());
  CHECK(x == 2);
  CHECK_THROWS_WITH_AS(j.transaction([&] {
    j.assign(x, 3);
    throw std::runtime_error("refused");
  }),
                       "refused", std::runtime_error);
  CHECK(!j.active());
  CHECK(x == 2);
  j.transaction([&] { j.assign(x, 4); });  // a body returning nothing
  CHECK(x == 4);
}

TEST_CASE("journal: emplace is undone by erasing what it added, equal keys included") {
  journal j;
  std::multimap<int, std::string> queue{{5, "a"}};
  std::set<int> ids{1};
  j.begin();
  const auto second = j.emplace(queue, 5, "b");  // after "a": equal keys keep their order
  CHECK(second->second == "b");
  (void)j.emplace(queue, 3, "c");
  const auto [where, added] = j.emplace(ids, 1);  // present: nothing added, nothing recorded
  CHECK(!added);
  CHECK(*where == 1);
  (void)j.emplace(ids, 2);
  CHECK(j.size() == 3);
  CHECK(queue.size() == 3);
  j.rollback();
  CHECK(queue == std::multimap<int, std::string>{{5, "a"}});
  CHECK(ids == std::set<int>{1});
  (void)j.emplace(ids, 4);  // no transaction: made, not recorded
  CHECK(ids == std::set<int>{1, 4});
}

template <class A>
std::vector<free_block<T, T>> blocks_of(const A& profile) {
  std::vector<free_block<T, T>> blocks;
  for (const auto& b : profile.free_blocks()) blocks.push_back(b);
  return blocks;
}

// Random reserve / release sequences on a backend: a rollback gives back exactly the profile
// as it was when the transaction began, and the changes are made as the plain calls make them.
template <class A>
void check_bookings_roll_back(A profile) {
  std::mt19937_64 rng(17);
  const auto uniform = [&rng](T lo, T hi) { return std::uniform_int_distribution<T>(lo, hi)(rng); };
  std::vector<std::pair<interval<T>, T>> held;
  journal j;
  for (int round = 0; round < 40; ++round) {
    const A before = profile;
    A plain = profile;
    j.begin();
    for (int k = 0; k < 6; ++k) {
      if (!held.empty() && uniform(0, 2) == 0) {
        const auto [span, amount] = held.back();
        held.pop_back();
        j.release(profile, span, amount);
        plain.release(span, amount);
      } else {
        const interval<T> span{uniform(0, 80), 0};
        const interval<T> booked{span.begin, span.begin + uniform(1, 20)};
        const T amount = uniform(1, 4);
        if (profile.min_free(booked) < amount) continue;
        j.reserve(profile, booked, amount);
        plain.reserve(booked, amount);
        held.emplace_back(booked, amount);
      }
    }
    CHECK(blocks_of(profile) == blocks_of(plain));
    if (round % 2 == 0) {
      j.commit();
    } else {
      j.rollback();
      CHECK(blocks_of(profile) == blocks_of(before));
      // The bookings made in this round are gone: rebuild the list from the profile's view.
      held.clear();
      profile = A(profile.total());
      plain = profile;
    }
  }
}

TEST_CASE("journal: bookings roll back in place on every nothrow_rollback backend") {
  check_bookings_roll_back(free_list<T, T>(8));
  check_bookings_roll_back(free_tree<T, T>(8));
  check_bookings_roll_back(reference<T, T>(8));
}

TEST_CASE("journal: bookings on capacity_tree roll back through a saved copy") {
  check_bookings_roll_back(capacity_tree<T, T>(8));
}

// Random bookings with nested savepoints: rollback_to(mark) gives back the profile as it was
// at that mark, whether the backend undoes in place or through a copy.
template <class A>
void check_savepoints(A profile) {
  std::mt19937_64 rng(29);
  const auto uniform = [&rng](T lo, T hi) { return std::uniform_int_distribution<T>(lo, hi)(rng); };
  journal j;
  for (int round = 0; round < 30; ++round) {
    const A before = profile;
    j.begin();
    std::vector<std::pair<std::size_t, A>> marks;  // each mark with the profile it saw
    for (int k = 0; k < 12; ++k) {
      const int what = static_cast<int>(uniform(0, 5));
      if (what == 0) {
        marks.emplace_back(j.mark(), profile);
      } else if (what == 1 && !marks.empty()) {
        const auto pick = static_cast<std::size_t>(uniform(0, T(marks.size()) - 1));
        j.rollback_to(marks[pick].first);
        CHECK(blocks_of(profile) == blocks_of(marks[pick].second));
        marks.erase(marks.begin() + static_cast<std::ptrdiff_t>(pick) + 1,
                    marks.end());  // newer marks are gone
      } else {
        const interval<T> booked{uniform(0, 60), 0};
        const interval<T> span{booked.begin, booked.begin + uniform(1, 15)};
        const T amount = uniform(1, 3);
        if (uniform(0, 2) == 0 && profile.min_free(span) + amount <= profile.total() &&
            blocks_of(A(profile.total())) != blocks_of(profile)) {
          // release only what is booked: check it against a copy first
          A probe = profile;
          try {
            probe.release(span, amount);
          } catch (const leasehold::error&) {
            continue;
          }
          j.release(profile, span, amount);
        } else if (profile.min_free(span) >= amount) {
          j.reserve(profile, span, amount);
        }
      }
    }
    if (round % 3 == 0) {
      j.commit();
    } else {
      j.rollback();
      CHECK(blocks_of(profile) == blocks_of(before));
    }
  }
}

TEST_CASE("journal: savepoints take bookings back to their mark on every backend") {
  check_savepoints(free_list<T, T>(6));
  check_savepoints(free_tree<T, T>(6));
  check_savepoints(reference<T, T>(6));
  check_savepoints(capacity_tree<T, T>(6));
}

}  // namespace journal_test
