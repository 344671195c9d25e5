// policy::staging::image_cache: reference counts, LRU (Haizea §3.2) and LFU (Overhead
// Matters §4.2.2) eviction of unreferenced images only, and bad input.

#include <doctest/doctest.h>

#include <cstdint>
#include <string>
#include <vector>

#include <leasehold/policy/staging/image_cache.hpp>

namespace image_cache_test {

using namespace leasehold;
using namespace leasehold::policy::staging;

namespace {

using strings = std::vector<std::string>;

// A, B, C of 1000 MB each in a 3000 MB cache; A stays in use. B is used twice early, C once
// later: B is the least recently used unreferenced image, C the least frequently used.
image_cache<> filled(eviction_policy policy) {
  image_cache<> cache(3000, policy);
  CHECK(cache.insert("A", "A", 1000, 0).empty());
  CHECK(cache.insert("B", "B", 1000, 0).empty());
  CHECK(cache.insert("C", "C", 1000, 0).empty());
  cache.acquire("A");
  for (int i = 0; i < 2; ++i) {
    cache.acquire("B");
    cache.release("B");
  }
  cache.acquire("C");
  cache.release("C");
  return cache;
}

}  // namespace

TEST_CASE("image_cache: LRU evicts the least recently used unreferenced image") {
  auto cache = filled(eviction_policy::lru);
  // A is the least recently used of all but is referenced: never evicted. Of B and C, B's
  // last use (its second release) is older than C's.
  CHECK(cache.insert("D", "D", 1000, 50) == strings{"B"});
  CHECK(cache.find("B") == nullptr);
  CHECK(cache.find("A")->references == 1);
  // Room for 2000 MB: C and D are unreferenced; C was used before D was inserted.
  CHECK(cache.insert("E", "E", 2000, 60) == strings{"C", "D"});
  CHECK(cache.used_mb() == 3000);
  cache.validate();
}

TEST_CASE("image_cache: LFU evicts the least frequently used unreferenced image") {
  auto cache = filled(eviction_policy::lfu);
  // Uses: A 1 (referenced), B 2, C 1: C goes.
  CHECK(cache.insert("D", "D", 1000, 50) == strings{"C"});
  // Uses: B 2, D 0: D goes, though B was used less recently.
  CHECK(cache.insert("E", "E", 1000, 60) == strings{"D"});
  CHECK(cache.find("B") != nullptr);
  cache.validate();
}

TEST_CASE("image_cache: images in use are never evicted") {
  image_cache<> cache(2000);
  (void)cache.insert("A", "A", 1000, 0);
  (void)cache.insert("B", "B", 1000, 0);
  cache.acquire("A");
  cache.acquire("B");
  CHECK_FALSE(cache.can_admit(1000));
  CHECK_THROWS_AS((void)cache.insert("C", "C", 1000, 0), insufficient_capacity);
  CHECK(cache.used_mb() == 2000);
  CHECK(cache.find("C") == nullptr);
  cache.release("B");
  CHECK(cache.can_admit(1000));
  CHECK(cache.insert("C", "C", 1000, 0) == strings{"B"});
}

TEST_CASE("image_cache: bad input changes nothing") {
  image_cache<> cache(1000);
  (void)cache.insert("A", "A", 600, 0);
  SUBCASE("an image larger than the whole cache") {
    CHECK_THROWS_WITH_AS((void)cache.insert("big", "big", 1001, 0),
                         "image_cache insert big: 1001 MB is larger than the cache (1000 MB)",
                         invalid_request);
  }
  SUBCASE("a non-positive size") {
    CHECK_THROWS_AS((void)cache.insert("Z", "Z", 0, 0), invalid_request);
  }
  SUBCASE("a key already cached") {
    CHECK_THROWS_AS((void)cache.insert("A", "A", 100, 0), invalid_request);
  }
  SUBCASE("releasing an unreferenced image") {
    CHECK_THROWS_AS(cache.release("A"), invalid_release);
  }
  SUBCASE("an unknown image") { CHECK_THROWS_AS(cache.acquire("nope"), invalid_request); }
  SUBCASE("erasing an image in use") {
    cache.acquire("A");
    CHECK_THROWS_AS(cache.erase("A"), invalid_request);
    CHECK(cache.find("A")->references == 1);
  }
  CHECK(cache.used_mb() == 600);
  CHECK(cache.entries().size() == 1);
  cache.validate();
  CHECK_THROWS_AS(image_cache<>(-1), invalid_request);
}

}  // namespace image_cache_test
