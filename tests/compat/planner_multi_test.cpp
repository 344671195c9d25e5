// The Flux multi-type planner drop-in (bindings/flux_planner/include/planner_multi.h): every
// call, every errno, and joint schedules worked out by hand from Flux's documented behaviour.
#include "planner_multi.h"

#include <doctest/doctest.h>

#include <cerrno>
#include <cstdint>
#include <limits>
#include <string>
#include <vector>

namespace planner_multi_test {

template <class F>
std::pair<std::int64_t, int> call(F&& f) {
  errno = 0;
  const auto result = static_cast<std::int64_t>(f());
  return {result, result == -1 ? errno : 0};
}

using answer = std::pair<std::int64_t, int>;
answer ok(std::int64_t value) { return {value, 0}; }
answer error(int e) { return {-1, e}; }

struct multi_ptr {
  planner_multi_t* m;
  explicit multi_ptr(planner_multi_t* q) : m(q) {}
  multi_ptr(const multi_ptr&) = delete;
  multi_ptr& operator=(const multi_ptr&) = delete;
  ~multi_ptr() { planner_multi_destroy(&m); }
  operator planner_multi_t*() const { return m; }
};

const char* core_gpu[] = {"core", "gpu"};

// core 10 and gpu 2 over [0, 100).
planner_multi_t* two_types() {
  const std::uint64_t totals[] = {10, 2};
  planner_multi_t* m = planner_multi_new(0, 100, totals, core_gpu, 2);
  REQUIRE(m != nullptr);
  return m;
}

std::int64_t add(planner_multi_t* m, std::int64_t at, std::uint64_t d, std::uint64_t core,
                 std::uint64_t gpu) {
  const std::uint64_t request[] = {core, gpu};
  return planner_multi_add_span(m, at, d, request, 2);
}

std::int64_t first(planner_multi_t* m, std::int64_t at, std::uint64_t d, std::uint64_t core,
                   std::uint64_t gpu) {
  const std::uint64_t request[] = {core, gpu};
  errno = 0;
  return planner_multi_avail_time_first(m, at, d, request, 2);
}

TEST_CASE("flux planner_multi: construction and getters") {
  multi_ptr m(two_types());
  CHECK(planner_multi_base_time(m) == 0);
  CHECK(planner_multi_duration(m) == 100);
  CHECK(planner_multi_resources_len(m) == 2);
  CHECK(std::string(planner_multi_resource_type_at(m, 1)) == "gpu");
  CHECK(planner_multi_resource_total_at(m, 0) == 10);
  CHECK(planner_multi_resource_total_by_type(m, "gpu") == 2);
  const std::uint64_t* totals = planner_multi_resource_totals(m);
  REQUIRE(totals != nullptr);
  CHECK(totals[0] == 10);
  CHECK(totals[1] == 2);
  CHECK(call([&] { return planner_multi_resource_total_at(m, 2); }) == error(EINVAL));
  CHECK(call([&] { return planner_multi_resource_total_by_type(m, "ssd"); }) == error(EINVAL));
  errno = 0;
  CHECK(planner_multi_resource_type_at(m, 2) == nullptr);
  CHECK(errno == EINVAL);

  SUBCASE("bad arguments") {
    const std::uint64_t totals2[] = {1, std::uint64_t{1} << 63};
    errno = 0;
    CHECK(planner_multi_new(0, 0, totals2, core_gpu, 2) == nullptr);
    CHECK(errno == EINVAL);
    errno = 0;
    CHECK(planner_multi_new(0, 10, nullptr, core_gpu, 2) == nullptr);
    CHECK(errno == EINVAL);
    errno = 0;
    CHECK(planner_multi_new(0, 10, totals2, nullptr, 2) == nullptr);
    CHECK(errno == EINVAL);
    errno = 0;
    CHECK(planner_multi_new(0, 10, totals2, core_gpu, 2) == nullptr);
    CHECK(errno == ERANGE);
  }
  SUBCASE("null and empty multi-planners") {
    CHECK(call([] { return planner_multi_base_time(nullptr); }) == error(EINVAL));
    CHECK(call([] { return planner_multi_duration(nullptr); }) == error(EINVAL));
    CHECK(call([] { return planner_multi_reset(nullptr, 0, 1); }) == error(EINVAL));
    CHECK(call([] { return planner_multi_avail_time_next(nullptr); }) == error(EINVAL));
    CHECK(call([] { return planner_multi_span_first(nullptr); }) == error(EINVAL));
    CHECK(call([] { return planner_multi_span_next(nullptr); }) == error(EINVAL));
    errno = 0;
    CHECK(planner_multi_resources_len(nullptr) == 0);
    CHECK(errno == EINVAL);
    multi_ptr empty(planner_multi_empty());
    CHECK(planner_multi_resources_len(empty) == 0);
    CHECK(planner_multi_span_size(empty) == 0);
    CHECK(call([&] { return planner_multi_avail_time_first(empty, 0, 1, nullptr, 0); }) ==
          error(EINVAL));
    planner_multi_t* none = nullptr;
    planner_multi_destroy(&none);
  }
  SUBCASE("planner_at hands out planners the planner_* calls accept") {
    planner_t* gpu = planner_multi_planner_at(m, 1);
    REQUIRE(gpu != nullptr);
    CHECK(std::string(planner_resource_type(gpu)) == "gpu");
    CHECK(planner_add_span(gpu, 0, 10, 2) == 1);
    CHECK(planner_multi_avail_resources_at(m, 5, 1) == 0);
    errno = 0;
    CHECK(planner_multi_planner_at(m, 2) == nullptr);
    CHECK(errno == EINVAL);
  }
}

TEST_CASE("flux planner_multi: spans") {
  multi_ptr m(two_types());
  CHECK(add(m, 0, 10, 8, 0) == 0);  // multi-type span ids count from 0
  CHECK(add(m, 10, 10, 0, 2) == 1);
  CHECK(planner_multi_span_size(m) == 2);
  CHECK(planner_multi_span_planned_at(m, 0, 0) == 8);
  CHECK(planner_multi_span_planned_at(m, 1, 1) == 2);
  // Every type holds a span of every multi-type span, of nothing where nothing was asked.
  CHECK(planner_span_size(planner_multi_planner_at(m, 1)) == 2);
  CHECK(call([&] { return planner_multi_span_planned_at(m, 7, 0); }) == error(ENOENT));
  CHECK(call([&] { return planner_multi_span_planned_at(m, -1, 0); }) == error(EINVAL));
  CHECK(call([&] { return planner_multi_span_planned_at(m, 0, 2); }) == error(EINVAL));

  SUBCASE("refused spans") {
    CHECK(call([&] { return add(m, 95, 10, 1, 1); }) == error(EINVAL));  // past the end
    CHECK(call([&] { return add(m, 5, 10, 3, 0); }) == error(EINVAL));   // 2 cores free at 5
    const std::uint64_t one[] = {1};
    CHECK(planner_multi_add_span(m, 0, 1, one, 1) == -1);  // one request for two types
    CHECK(planner_multi_span_size(m) == 2);
  }
  SUBCASE("the free capacity, by type and as arrays") {
    std::int64_t free[2] = {-7, -7};
    CHECK(planner_multi_avail_resources_array_at(m, 5, free, 2) == 0);
    CHECK(free[0] == 2);
    CHECK(free[1] == 2);
    CHECK(planner_multi_avail_resources_array_during(m, 0, 20, free, 2) == 0);
    CHECK(free[0] == 2);
    CHECK(free[1] == 0);
    CHECK(call([&] { return planner_multi_avail_resources_array_at(m, 5, free, 1); }) ==
          error(EINVAL));
    CHECK(call([&] { return planner_multi_avail_resources_array_at(m, 101, free, 2); }) ==
          error(ERANGE));
    CHECK(call([&] { return planner_multi_avail_resources_array_during(m, 0, 0, free, 2); }) ==
          error(EINVAL));
    CHECK(planner_multi_avail_resources_at(m, 15, 1) == 0);
    CHECK(call([&] { return planner_multi_avail_resources_at(m, 15, 2); }) == error(EINVAL));
    const std::uint64_t fits[] = {2, 2};
    const std::uint64_t too_many[] = {3, 0};
    CHECK(call([&] { return planner_multi_avail_during(m, 0, 10, fits, 2); }) == ok(0));
    CHECK(call([&] { return planner_multi_avail_during(m, 0, 10, too_many, 2); }) == error(EBUSY));
    CHECK(call([&] { return planner_multi_avail_during(m, 0, 10, fits, 1); }) == error(EINVAL));
  }
  SUBCASE("remove") {
    CHECK(call([&] { return planner_multi_rem_span(m, 0); }) == ok(0));
    CHECK(planner_multi_avail_resources_at(m, 5, 0) == 10);
    CHECK(call([&] { return planner_multi_rem_span(m, 0); }) == error(ENOENT));
    CHECK(call([&] { return planner_multi_rem_span(m, -1); }) == error(EINVAL));
    CHECK(add(m, 0, 1, 1, 1) == 2);
  }
  SUBCASE("reduce by type name") {
    bool removed = true;
    const std::uint64_t some[] = {3};
    const char* core[] = {"core"};
    CHECK(call([&] { return planner_multi_reduce_span(m, 0, some, core, 1, removed); }) == ok(0));
    CHECK_FALSE(removed);
    CHECK(planner_multi_span_planned_at(m, 0, 0) == 5);
    // The gpu span of nothing was not named: reducing it by nothing removed it.
    CHECK(planner_multi_span_planned_at(m, 0, 1) == 0);
    CHECK(planner_span_size(planner_multi_planner_at(m, 1)) == 1);
    const std::uint64_t rest[] = {5, 9};
    const char* core_and_unknown[] = {"core", "ssd"};  // a type not tracked is skipped
    CHECK(call([&] {
            return planner_multi_reduce_span(m, 0, rest, core_and_unknown, 2, removed);
          }) == ok(0));
    CHECK(removed);
    CHECK(planner_multi_span_size(m) == 1);
    CHECK(call([&] { return planner_multi_reduce_span(m, 0, rest, core, 1, removed); }) ==
          error(ENOENT));
    const std::uint64_t too_much[] = {3};
    const char* gpu[] = {"gpu"};
    CHECK(call([&] { return planner_multi_reduce_span(m, 1, too_much, gpu, 1, removed); }) ==
          error(EINVAL));
    CHECK(call([&] { return planner_multi_reduce_span(m, 1, nullptr, gpu, 1, removed); }) ==
          error(EINVAL));
  }
  SUBCASE("iteration in id order") {
    CHECK(add(m, 30, 5, 1, 1) == 2);
    CHECK(planner_multi_rem_span(m, 1) == 0);
    std::vector<std::int64_t> ids;
    for (std::int64_t id = planner_multi_span_first(m); id != -1; id = planner_multi_span_next(m))
      ids.push_back(id);
    CHECK(ids == std::vector<std::int64_t>{0, 2});
    CHECK(errno == ENOENT);
    multi_ptr none(two_types());
    CHECK(call([&] { return planner_multi_span_first(none); }) == error(ENOENT));
  }
}

TEST_CASE("flux planner_multi: the joint earliest start is a point of the first type") {
  multi_ptr m(two_types());
  REQUIRE(add(m, 0, 10, 8, 0) == 0);   // core: 2 free over [0, 10)
  REQUIRE(add(m, 10, 10, 0, 2) == 1);  // gpu: none free over [10, 20)
  // core's points: 0, 10, 20. At 0 too few cores, at 10 no gpu for [10, 15), 20 fits.
  CHECK(first(m, 0, 5, 5, 1) == 20);
  CHECK(call([&] { return planner_multi_avail_time_next(m); }) == error(ENOENT));
  CHECK(first(m, 0, 5, 2, 0) == 0);
  CHECK(planner_multi_avail_time_next(m) == 10);
  CHECK(planner_multi_avail_time_next(m) == 20);
  // The first type's planner iterates the same request.
  CHECK(call([&] { return planner_avail_time_next(planner_multi_planner_at(m, 0)); }) ==
        error(ENOENT));

  SUBCASE("a time where only another type changes is no candidate") {
    multi_ptr n(two_types());
    REQUIRE(planner_add_span(planner_multi_planner_at(n, 1), 0, 7, 2) == 1);  // gpu only
    // core's only point is 0, where no gpu is free; 7 is a point of gpu's planner alone.
    CHECK(call([&] { return first(n, 0, 1, 1, 1); }) == error(ENOENT));
  }
  SUBCASE("bad requests") {
    CHECK(call([&] { return first(m, -1, 1, 1, 1); }) == error(EINVAL));
    CHECK(call([&] { return first(m, 0, 0, 1, 1); }) == error(EINVAL));
    CHECK(call([&] { return first(m, 0, 1, 11, 1); }) == error(ERANGE));
    // More gpus than there are: no time fits.
    CHECK(call([&] { return first(m, 0, 1, 1, 3); }) == error(ENOENT));
    const std::uint64_t one[] = {1};
    CHECK(call([&] { return planner_multi_avail_time_first(m, 0, 1, one, 1); }) == error(EINVAL));
    CHECK(call([&] { return planner_multi_avail_time_first(m, 0, 1, nullptr, 2); }) ==
          error(EINVAL));
  }
  SUBCASE("next needs a first") {
    multi_ptr n(two_types());
    CHECK(call([&] { return planner_multi_avail_time_next(n); }) == error(EINVAL));
  }
}

TEST_CASE("flux planner_multi: five types, and changes made through planner_at") {
  const std::uint64_t totals[] = {4, 4, 4, 4, 4};
  const char* names[] = {"core", "gpu", "memory", "node", "ssd"};
  multi_ptr m(planner_multi_new(0, 100, totals, names, 5));
  const std::uint64_t half[] = {2, 2, 2, 2, 2};
  const std::uint64_t ssd_heavy[] = {0, 0, 0, 0, 3};
  REQUIRE(planner_multi_add_span(m, 0, 10, half, 5) == 0);
  REQUIRE(planner_multi_add_span(m, 10, 10, ssd_heavy, 5) == 1);
  // Points of core: 0, 10, 20. ssd: 2 free over [0, 10), 1 over [10, 20).
  const std::uint64_t want[] = {1, 1, 1, 1, 2};
  CHECK(planner_multi_avail_time_first(m, 0, 5, want, 5) == 0);
  CHECK(planner_multi_avail_time_next(m) == 20);
  CHECK(call([&] { return planner_multi_avail_time_next(m); }) == error(ENOENT));
  // A span booked on the ssd planner alone, over [20, 30): 20 no longer fits, and 30 is no
  // point of core's.
  REQUIRE(planner_add_span(planner_multi_planner_at(m, 4), 20, 10, 3) == 3);
  CHECK(call([&] { return planner_multi_avail_time_first(m, 0, 5, want, 5); }) == ok(0));
  CHECK(call([&] { return planner_multi_avail_time_next(m); }) == error(ENOENT));
  CHECK(planner_rem_span(planner_multi_planner_at(m, 4), 3) == 0);
  CHECK(planner_multi_avail_time_first(m, 1, 5, want, 5) == 20);
}

TEST_CASE("flux planner_multi: copy, assign, equality and reset") {
  multi_ptr m(two_types());
  REQUIRE(add(m, 0, 10, 8, 1) == 0);
  multi_ptr copy(planner_multi_copy(m));
  CHECK(planner_multis_equal(m, copy));
  CHECK(add(copy, 20, 5, 1, 1) == 1);
  CHECK_FALSE(planner_multis_equal(m, copy));
  CHECK(planner_multi_span_size(m) == 1);
  multi_ptr empty(planner_multi_empty());
  CHECK_FALSE(planner_multis_equal(m, empty));
  planner_multi_assign(empty, m);
  CHECK(planner_multis_equal(m, empty));

  CHECK(call([&] { return planner_multi_reset(m, 50, 10); }) == ok(0));
  CHECK(planner_multi_base_time(m) == 50);
  CHECK(planner_multi_duration(m) == 10);
  CHECK(planner_span_size(planner_multi_planner_at(m, 1)) == 0);
  CHECK(call([&] { return planner_multi_reset(m, 0, 0); }) == error(EINVAL));
}

TEST_CASE("flux planner_multi: update adds, drops, reorders and resizes types") {
  multi_ptr m(two_types());
  REQUIRE(add(m, 0, 10, 4, 1) == 0);
  const std::uint64_t totals[] = {3, 6, 12};
  const char* types[] = {"gpu", "memory", "core"};
  CHECK(call([&] { return planner_multi_update(m, totals, types, 3); }) == ok(0));
  REQUIRE(planner_multi_resources_len(m) == 3);
  CHECK(std::string(planner_multi_resource_type_at(m, 0)) == "gpu");
  CHECK(std::string(planner_multi_resource_type_at(m, 1)) == "memory");
  CHECK(std::string(planner_multi_resource_type_at(m, 2)) == "core");
  CHECK(planner_multi_resource_total_by_type(m, "core") == 12);
  CHECK(planner_multi_avail_resources_at(m, 5, 2) == 8);  // core: 12 less the 4 planned
  CHECK(planner_multi_avail_resources_at(m, 5, 0) == 2);  // gpu: 3 less 1
  CHECK(planner_multi_avail_resources_at(m, 5, 1) == 6);  // memory: new, nothing planned

  const std::uint64_t fewer[] = {12};
  const char* core_only[] = {"core"};
  CHECK(call([&] { return planner_multi_update(m, fewer, core_only, 1); }) == ok(0));
  CHECK(planner_multi_resources_len(m) == 1);
  // Below what is planned: refused.
  const std::uint64_t below[] = {3};
  CHECK(call([&] { return planner_multi_update(m, below, core_only, 1); }) == error(EINVAL));
  CHECK(planner_multi_resource_total_by_type(m, "core") == 12);
  const std::uint64_t huge[] = {std::uint64_t{1} << 63};
  CHECK(call([&] { return planner_multi_update(m, huge, core_only, 1); }) == error(ERANGE));
  CHECK(call([&] { return planner_multi_update(m, nullptr, core_only, 1); }) == error(EINVAL));
}

// After the first search, spans go to the joint profile at once and reach each type's planner
// when a call reads it: what planner_at shows is what Flux's per-type planners hold.
TEST_CASE("flux planner_multi: spans booked after a search, read through planner_at") {
  multi_ptr m(two_types());
  CHECK(first(m, 0, 1, 1, 1) == 0);
  CHECK(add(m, 0, 10, 4, 1) == 0);
  CHECK(add(m, 10, 10, 0, 2) == 1);
  CHECK(add(m, 0, 5, 6, 1) == 2);
  CHECK(add(m, 0, 5, 1, 0) == -1);  // core is full over [0, 5): refused, nothing booked
  planner_t* core = planner_multi_planner_at(m, 0);
  planner_t* gpu = planner_multi_planner_at(m, 1);
  CHECK(planner_span_size(core) == 3);
  CHECK(planner_span_size(gpu) == 3);
  // Per-type ids count from 1 in the order the spans were booked.
  CHECK(planner_span_start_time(core, 2) == 10);
  CHECK(planner_span_resource_count(core, 2) == 0);
  CHECK(planner_span_duration(core, 3) == 5);
  CHECK(planner_span_resource_count(core, 3) == 6);
  CHECK(planner_span_resource_count(gpu, 2) == 2);
  CHECK(planner_multi_span_planned_at(m, 1, 1) == 2);
  CHECK(planner_avail_resources_at(core, 0) == 0);
  CHECK(planner_avail_resources_at(core, 5) == 6);
  CHECK(planner_avail_resources_at(gpu, 10) == 0);
  CHECK(planner_avail_resources_at(gpu, 20) == 2);
  // One core and one GPU for 5: [5, 10) has 6 and 1; 5 ends core's third span.
  CHECK(first(m, 0, 5, 1, 1) == 5);
  // The GPU planner's points are 0, 5, 10 and 20 (the span of no cores begins at 10 in core's).
  CHECK(planner_avail_time_first(core, 6, 1, 10) == 10);
  CHECK(planner_avail_time_first(gpu, 11, 1, 1) == 20);
}

// A reduced span can leave the GPU booked where the first type has no span edge: the joint
// profile's earliest fit (10) is then not a candidate, and the search goes on to core's next
// point (30).
TEST_CASE("flux planner_multi: a joint fit where only another type's span ends") {
  multi_ptr m(two_types());
  CHECK(first(m, 0, 1, 1, 1) == 0);
  CHECK(add(m, 0, 10, 4, 2) == 0);
  CHECK(add(m, 0, 30, 1, 0) == 1);
  CHECK(first(m, 0, 5, 1, 1) == 10);  // core ends a span at 10
  const char* core_name[] = {"core"};
  const std::uint64_t four[] = {4};
  bool removed = true;
  CHECK(planner_multi_reduce_span(m, 0, four, core_name, 1, removed) == 0);
  CHECK_FALSE(removed);  // the GPU span stays
  CHECK(planner_span_size(planner_multi_planner_at(m, 0)) == 1);
  CHECK(first(m, 0, 5, 1, 1) == 30);
  CHECK(planner_multi_avail_time_next(m) == -1);
  CHECK(errno == ENOENT);
}

}  // namespace planner_multi_test
