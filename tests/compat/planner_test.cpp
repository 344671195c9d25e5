// The Flux planner drop-in (bindings/flux_planner/include/planner.h): every call, every errno,
// and schedules worked out by hand from Flux's documented behaviour.
#include "planner.h"

#include <doctest/doctest.h>

#include <cerrno>
#include <cstdint>
#include <limits>
#include <string>
#include <vector>

namespace planner_test {

constexpr std::uint64_t int64_max = std::numeric_limits<std::int64_t>::max();

// -1 and the errno the call left, or the answer and 0.
template <class F>
std::pair<std::int64_t, int> call(F&& f) {
  errno = 0;
  const auto result = static_cast<std::int64_t>(f());
  return {result, result == -1 ? errno : 0};
}

using answer = std::pair<std::int64_t, int>;
answer ok(std::int64_t value) { return {value, 0}; }
answer error(int e) { return {-1, e}; }

// Owns a planner_t for the length of a test.
struct planner_ptr {
  planner_t* p;
  explicit planner_ptr(planner_t* q) : p(q) {}
  planner_ptr(const planner_ptr&) = delete;
  planner_ptr& operator=(const planner_ptr&) = delete;
  ~planner_ptr() { planner_destroy(&p); }
  operator planner_t*() const { return p; }
};

// Total 10 over [0, 100): spans 1 = [0, 20) x 4, 2 = [10, 30) x 3, 3 = [50, 60) x 10. Free:
// [0, 10) 6, [10, 20) 3, [20, 30) 7, [30, 50) 10, [50, 60) 0, [60, 100) 10. Scheduled points:
// 0, 10, 20, 30, 50, 60.
planner_t* sample() {
  planner_t* p = planner_new(0, 100, 10, "core");
  REQUIRE(planner_add_span(p, 0, 20, 4) == 1);
  REQUIRE(planner_add_span(p, 10, 20, 3) == 2);
  REQUIRE(planner_add_span(p, 50, 10, 10) == 3);
  return p;
}

std::vector<std::int64_t> free_profile(planner_t* p, std::int64_t from, std::int64_t to) {
  std::vector<std::int64_t> result;
  for (std::int64_t t = from; t < to; ++t) result.push_back(planner_avail_resources_at(p, t));
  return result;
}

TEST_CASE("flux planner: construction and getters") {
  planner_ptr p(planner_new(10, 100, 8, "core"));
  REQUIRE(p.p != nullptr);
  CHECK(planner_base_time(p) == 10);
  CHECK(planner_duration(p) == 100);
  CHECK(planner_resource_total(p) == 8);
  CHECK(std::string(planner_resource_type(p)) == "core");
  CHECK(planner_span_size(p) == 0);
  CHECK(planner_avail_resources_at(p, 10) == 8);

  SUBCASE("bad arguments") {
    errno = 0;
    CHECK(planner_new(0, 0, 8, "core") == nullptr);
    CHECK(errno == EINVAL);
    errno = 0;
    CHECK(planner_new(0, 10, 8, nullptr) == nullptr);
    CHECK(errno == EINVAL);
    errno = 0;
    CHECK(planner_new(0, 10, int64_max + 1, "core") == nullptr);
    CHECK(errno == ERANGE);
  }
  SUBCASE("a null planner") {
    CHECK(call([] { return planner_base_time(nullptr); }) == error(EINVAL));
    CHECK(call([] { return planner_duration(nullptr); }) == error(EINVAL));
    CHECK(call([] { return planner_resource_total(nullptr); }) == error(EINVAL));
    errno = 0;
    CHECK(planner_resource_type(nullptr) == nullptr);
    CHECK(errno == EINVAL);
    CHECK(call([] { return planner_reset(nullptr, 0, 10); }) == error(EINVAL));
    CHECK(call([] { return planner_update_total(nullptr, 10); }) == error(EINVAL));
    planner_t* none = nullptr;
    planner_destroy(&none);
    planner_destroy(nullptr);
  }
  SUBCASE("a zero total plans spans of nothing") {
    planner_ptr zero(planner_new(0, 10, 0, "gpu"));
    CHECK(planner_avail_resources_at(zero, 0) == 0);
    CHECK(call([&] { return planner_add_span(zero, 0, 5, 0); }) == ok(1));
    CHECK(call([&] { return planner_add_span(zero, 0, 5, 1); }) == error(EINVAL));
    CHECK(call([&] { return planner_avail_time_first(zero, 0, 5, 0); }) == ok(0));
    CHECK(call([&] { return planner_avail_time_next(zero); }) == ok(5));
  }
}

TEST_CASE("flux planner: an empty planner has no plan until a reset") {
  planner_ptr p(planner_new_empty());
  CHECK(planner_base_time(p) == 0);
  CHECK(planner_duration(p) == 0);
  CHECK(planner_resource_total(p) == 0);
  CHECK(std::string(planner_resource_type(p)).empty());
  CHECK(call([&] { return planner_avail_resources_at(p, 0); }) == error(ENOENT));
  CHECK(call([&] { return planner_add_span(p, 0, 1, 0); }) == error(EINVAL));
  CHECK(call([&] { return planner_avail_time_first(p, 0, 1, 0); }) == error(EINVAL));
  CHECK(call([&] { return planner_reset(p, 5, 20); }) == ok(0));
  CHECK(planner_base_time(p) == 5);
  CHECK(planner_duration(p) == 20);
  CHECK(call([&] { return planner_add_span(p, 5, 1, 0); }) == ok(1));
}

TEST_CASE("flux planner: spans and the free capacity") {
  planner_ptr p(sample());
  CHECK(free_profile(p, 0, 70) == [] {
    std::vector<std::int64_t> expected;
    for (const auto& [until, free] :
         std::vector<std::pair<int, int>>{{10, 6}, {20, 3}, {30, 7}, {50, 10}, {60, 0}, {70, 10}})
      while (static_cast<int>(expected.size()) < until) expected.push_back(free);
    return expected;
  }());
  CHECK(planner_span_size(p) == 3);
  CHECK(planner_span_start_time(p, 2) == 10);
  CHECK(planner_span_duration(p, 2) == 20);
  CHECK(planner_span_resource_count(p, 2) == 3);
  CHECK(planner_is_active_span(p, 3));

  SUBCASE("unknown spans") {
    for (const std::int64_t id : {-1, 0, 4}) {
      CHECK(call([&] { return planner_span_start_time(p, id); }) == error(EINVAL));
      CHECK(call([&] { return planner_span_duration(p, id); }) == error(EINVAL));
      CHECK(call([&] { return planner_span_resource_count(p, id); }) == error(EINVAL));
      errno = 0;
      CHECK_FALSE(planner_is_active_span(p, id));
      CHECK(errno == EINVAL);
    }
  }
  SUBCASE("refused spans change nothing") {
    CHECK(call([&] { return planner_add_span(p, 95, 10, 1); }) == error(EINVAL));  // past the end
    CHECK(call([&] { return planner_add_span(p, -5, 3, 1); }) == error(EINVAL));   // before base
    CHECK(call([&] { return planner_add_span(p, 0, 0, 1); }) == error(EINVAL));    // no duration
    CHECK(call([&] { return planner_add_span(p, 5, 10, 4); }) == error(EINVAL));   // 3 free at 10
    CHECK(call([&] { return planner_add_span(p, 70, 1, 11); }) == error(EINVAL));  // above total
    // A request that reads back as negative is out of range.
    CHECK(call([&] { return planner_add_span(p, 70, 1, std::uint64_t{0} - 1); }) == error(ERANGE));
    CHECK(planner_span_size(p) == 3);
    CHECK(call([&] { return planner_add_span(p, 90, 10, 10); }) == ok(4));  // ends at the end
  }
  SUBCASE("remove") {
    CHECK(call([&] { return planner_rem_span(p, 2); }) == ok(0));
    CHECK(planner_avail_resources_at(p, 10) == 6);
    CHECK(planner_avail_resources_at(p, 25) == 10);
    CHECK(call([&] { return planner_rem_span(p, 2); }) == error(EINVAL));
    CHECK(call([&] { return planner_rem_span(nullptr, 1); }) == error(EINVAL));
    CHECK(planner_add_span(p, 0, 1, 1) == 4);  // ids are not reused
  }
  SUBCASE("reduce") {
    bool removed = true;
    CHECK(call([&] { return planner_reduce_span(p, 1, 3, removed); }) == ok(0));
    CHECK_FALSE(removed);
    CHECK(planner_span_resource_count(p, 1) == 1);
    CHECK(planner_avail_resources_at(p, 0) == 9);
    CHECK(call([&] { return planner_reduce_span(p, 1, 0, removed); }) == ok(0));
    CHECK_FALSE(removed);
    CHECK(call([&] { return planner_reduce_span(p, 1, 2, removed); }) == error(EINVAL));
    CHECK(call([&] { return planner_reduce_span(p, 1, -1, removed); }) == error(EINVAL));
    CHECK(call([&] { return planner_reduce_span(p, 1, 1, removed); }) == ok(0));
    CHECK(removed);
    CHECK_FALSE(planner_is_active_span(p, 1));
    CHECK(planner_avail_resources_at(p, 0) == 10);
    CHECK(call([&] { return planner_reduce_span(p, 1, 0, removed); }) == error(EINVAL));
    CHECK_FALSE(removed);
    CHECK(call([&] { return planner_reduce_span(nullptr, 1, 0, removed); }) == error(EINVAL));
    // A span of nothing goes when reduced by nothing.
    const std::int64_t empty = planner_add_span(p, 70, 5, 0);
    CHECK(call([&] { return planner_reduce_span(p, empty, 0, removed); }) == ok(0));
    CHECK(removed);
  }
}

TEST_CASE("flux planner: availability queries") {
  planner_ptr p(sample());
  SUBCASE("planner_avail_resources_at") {
    CHECK(planner_avail_resources_at(p, 15) == 3);
    CHECK(planner_avail_resources_at(p, 100) == 10);  // the end itself is asked about
    CHECK(call([&] { return planner_avail_resources_at(p, 101); }) == error(ERANGE));
    CHECK(call([&] { return planner_avail_resources_at(p, -1); }) == error(ERANGE));
    CHECK(call([] { return planner_avail_resources_at(nullptr, 0); }) == error(EINVAL));
  }
  SUBCASE("planner_avail_resources_during") {
    CHECK(planner_avail_resources_during(p, 0, 30) == 3);
    CHECK(planner_avail_resources_during(p, 20, 30) == 7);
    CHECK(planner_avail_resources_during(p, 20, 31) == 0);
    CHECK(call([&] { return planner_avail_resources_during(p, 0, 101); }) == error(ERANGE));
    CHECK(call([&] { return planner_avail_resources_during(p, 101, 1); }) == error(EINVAL));
    CHECK(call([&] { return planner_avail_resources_during(p, 0, 0); }) == error(EINVAL));
    CHECK(call([&] { return planner_avail_resources_during(p, -5, 5); }) == error(EINVAL));
  }
  SUBCASE("planner_avail_during") {
    CHECK(call([&] { return planner_avail_during(p, 10, 10, 3); }) == ok(0));
    CHECK(call([&] { return planner_avail_during(p, 10, 10, 4); }) == error(EBUSY));
    CHECK(call([&] { return planner_avail_during(p, 0, 10, 11); }) == error(ERANGE));
    CHECK(call([&] { return planner_avail_during(p, 95, 10, 1); }) == error(ERANGE));
    CHECK(call([&] { return planner_avail_during(p, 0, 0, 1); }) == error(EINVAL));
    CHECK(call([] { return planner_avail_during(nullptr, 0, 1, 1); }) == error(EINVAL));
    // Before the base time nothing is planned.
    CHECK(call([&] { return planner_avail_during(p, -10, 5, 10); }) == ok(0));
  }
}

TEST_CASE("flux planner: candidate start times are the scheduled points") {
  planner_ptr p(sample());
  SUBCASE("first, then next, then none") {
    CHECK(call([&] { return planner_avail_time_first(p, 0, 10, 7); }) == ok(20));
    CHECK(call([&] { return planner_avail_time_next(p); }) == ok(30));
    CHECK(call([&] { return planner_avail_time_next(p); }) == ok(60));
    CHECK(call([&] { return planner_avail_time_next(p); }) == error(ENOENT));
    CHECK(call([&] { return planner_avail_time_next(p); }) == error(ENOENT));
  }
  SUBCASE("a time between points is never an answer") {
    CHECK(call([&] { return planner_avail_time_first(p, 0, 5, 6); }) == ok(0));
    // 1 would fit too, but only 10 (3 free) and 20 are points from 1 on.
    CHECK(call([&] { return planner_avail_time_first(p, 1, 5, 6); }) == ok(20));
    // After the last point nothing is a candidate, however free.
    CHECK(call([&] { return planner_avail_time_first(p, 61, 1, 1); }) == error(ENOENT));
  }
  SUBCASE("the end bounds every answer") {
    CHECK(call([&] { return planner_avail_time_first(p, 0, 40, 10); }) == ok(60));
    CHECK(call([&] { return planner_avail_time_first(p, 0, 41, 10); }) == error(ENOENT));
  }
  SUBCASE("bad requests") {
    CHECK(call([&] { return planner_avail_time_first(p, -1, 1, 1); }) == error(EINVAL));
    CHECK(call([&] { return planner_avail_time_first(p, 100, 1, 1); }) == error(EINVAL));
    CHECK(call([&] { return planner_avail_time_first(p, 0, 0, 1); }) == error(EINVAL));
    CHECK(call([&] { return planner_avail_time_first(p, 0, 1, 11); }) == error(ERANGE));
    CHECK(call([] { return planner_avail_time_first(nullptr, 0, 1, 1); }) == error(EINVAL));
    CHECK(call([] { return planner_avail_time_next(nullptr); }) == error(EINVAL));
  }
  SUBCASE("next needs a first, and a new or removed span ends the iteration") {
    CHECK(call([&] { return planner_avail_time_next(p); }) == error(EINVAL));
    CHECK(planner_avail_time_first(p, 0, 10, 7) == 20);
    CHECK(planner_add_span(p, 80, 5, 1) == 4);
    CHECK(call([&] { return planner_avail_time_next(p); }) == error(EINVAL));
    CHECK(planner_avail_time_first(p, 0, 10, 7) == 20);
    CHECK(planner_rem_span(p, 4) == 0);
    CHECK(call([&] { return planner_avail_time_next(p); }) == error(EINVAL));
  }
  SUBCASE("a partial reduction starts the iteration over") {
    CHECK(planner_avail_time_first(p, 0, 10, 7) == 20);
    CHECK(planner_avail_time_next(p) == 30);
    bool removed = false;
    CHECK(planner_reduce_span(p, 2, 1, removed) == 0);  // [10, 20) now has 4 free
    CHECK(call([&] { return planner_avail_time_next(p); }) == ok(20));
  }
}

TEST_CASE("flux planner: a point where the free capacity does not change is a candidate") {
  planner_ptr p(planner_new(0, 100, 10, "core"));
  REQUIRE(planner_add_span(p, 0, 10, 5) == 1);
  REQUIRE(planner_add_span(p, 10, 10, 5) == 2);  // free is 5 all over [0, 20)
  CHECK(planner_avail_time_first(p, 0, 5, 5) == 0);
  CHECK(planner_avail_time_next(p) == 10);
  CHECK(planner_avail_time_next(p) == 20);
  CHECK(call([&] { return planner_avail_time_next(p); }) == error(ENOENT));
}

TEST_CASE("flux planner: the begin of a span of nothing is a candidate, until it goes") {
  planner_ptr p(planner_new(0, 100, 10, "core"));
  REQUIRE(planner_add_span(p, 0, 40, 2) == 1);   // points 0 and 40
  REQUIRE(planner_add_span(p, 15, 10, 0) == 2);  // and 15 and 25, where nothing changes
  CHECK(planner_avail_time_first(p, 1, 5, 8) == 15);
  CHECK(planner_avail_time_next(p) == 25);
  CHECK(planner_avail_time_next(p) == 40);
  CHECK(call([&] { return planner_avail_time_next(p); }) == error(ENOENT));
  REQUIRE(planner_add_span(p, 15, 5, 0) == 3);  // a second begin at 15; its end at 20
  REQUIRE(planner_rem_span(p, 2) == 0);         // 15 stays a point: span 3 begins there
  CHECK(planner_avail_time_first(p, 1, 5, 8) == 15);
  CHECK(planner_avail_time_next(p) == 20);
  CHECK(planner_avail_time_next(p) == 40);
  REQUIRE(planner_rem_span(p, 3) == 0);  // neither 15 nor 20 is a point now
  CHECK(planner_avail_time_first(p, 1, 5, 8) == 40);
}

TEST_CASE("flux planner: span ends and begins where nothing changes are candidates") {
  planner_ptr p(planner_new(0, 100, 10, "core"));
  REQUIRE(planner_add_span(p, 0, 30, 3) == 1);
  REQUIRE(planner_add_span(p, 10, 10, 4) == 2);
  REQUIRE(planner_add_span(p, 20, 20, 4) == 3);  // free: [0, 10) 7, [10, 30) 3, [30, 40) 6
  // 20: span 2 ends as span 3 begins, with the same amount; 30: span 1 ends.
  CHECK(planner_avail_time_first(p, 11, 5, 3) == 20);
  CHECK(planner_avail_time_next(p) == 30);
  CHECK(planner_avail_time_next(p) == 40);
  CHECK(call([&] { return planner_avail_time_next(p); }) == error(ENOENT));
  // A copy has the same points.
  planner_ptr q(planner_copy(p));
  CHECK(planner_avail_time_first(q, 11, 5, 3) == 20);
}

TEST_CASE("flux planner: span iteration in id order") {
  planner_ptr p(sample());
  CHECK(planner_rem_span(p, 2) == 0);
  CHECK(planner_add_span(p, 70, 5, 1) == 4);
  std::vector<std::int64_t> ids;
  for (std::int64_t id = planner_span_first(p); id != -1; id = planner_span_next(p))
    ids.push_back(id);
  CHECK(ids == std::vector<std::int64_t>{1, 3, 4});
  CHECK(errno == EINVAL);
  CHECK(call([&] { return planner_span_next(p); }) == error(EINVAL));
  planner_ptr none(planner_new(0, 10, 1, "core"));
  CHECK(call([&] { return planner_span_first(none); }) == error(EINVAL));
  CHECK(call([] { return planner_span_first(nullptr); }) == error(EINVAL));
  CHECK(call([] { return planner_span_next(nullptr); }) == error(EINVAL));
  errno = 0;
  CHECK(planner_span_size(nullptr) == 0);
  CHECK(errno == EINVAL);
}

TEST_CASE("flux planner: copy, assign, equality and reset") {
  planner_ptr p(sample());
  planner_ptr copy(planner_copy(p));
  CHECK(planners_equal(p, copy));
  CHECK(planner_add_span(copy, 70, 5, 1) == 4);
  CHECK_FALSE(planners_equal(p, copy));
  CHECK(planner_span_size(p) == 3);  // a deep copy
  planner_assign(copy, p);
  CHECK(planners_equal(p, copy));
  CHECK(planner_add_span(copy, 70, 5, 1) == 4);  // the copy counts ids from where p does

  planner_ptr other(planner_new(0, 100, 10, "gpu"));
  planner_ptr fresh(planner_new(0, 100, 10, "core"));
  CHECK_FALSE(planners_equal(other, fresh));
  CHECK(call([&] { return planner_reset(p, 0, 100); }) == ok(0));
  CHECK(planners_equal(p, fresh));
  CHECK(planner_span_size(p) == 0);
  CHECK(planner_add_span(p, 0, 1, 1) == 1);  // ids start over
  CHECK(call([&] { return planner_reset(p, 0, 0); }) == error(EINVAL));
  CHECK(call([&] { return planner_reset(p, 50, 10); }) == ok(0));
  CHECK(planner_base_time(p) == 50);
  CHECK(planner_duration(p) == 10);
  CHECK(call([] { return planner_copy(nullptr) == nullptr ? -1 : 0; }) == error(EINVAL));
}

TEST_CASE("flux planner: a new total") {
  planner_ptr p(sample());
  CHECK(call([&] { return planner_update_total(p, 12); }) == ok(0));
  CHECK(planner_resource_total(p) == 12);
  CHECK(planner_avail_resources_at(p, 15) == 5);
  CHECK(planner_avail_resources_at(p, 55) == 2);
  CHECK(call([&] { return planner_update_total(p, 10); }) == ok(0));
  CHECK(planner_avail_resources_at(p, 55) == 0);
  // Below what is planned at 50: refused, nothing changes (Flux would clamp the free capacity).
  CHECK(call([&] { return planner_update_total(p, 9); }) == error(EINVAL));
  CHECK(planner_resource_total(p) == 10);
  CHECK(call([&] { return planner_update_total(p, int64_max); }) == error(ERANGE));
  CHECK(planner_rem_span(p, 3) == 0);
  CHECK(call([&] { return planner_update_total(p, 7); }) == ok(0));
  CHECK(planner_avail_resources_at(p, 15) == 0);
  CHECK(call([&] { return planner_avail_time_first(p, 0, 1, 8); }) == error(ERANGE));
}

}  // namespace planner_test
