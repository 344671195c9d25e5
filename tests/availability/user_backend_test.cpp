// A backend written the way a user of the library would write one: only the public vocabulary
// (interval, request, free_block, fits, elementwise_min, is_positive, the error types), none of
// leasehold's detail helpers, and none of the optional refinements. It must plug into every
// layer through the availability concept alone: the randomised differential test against
// reference (scalar and vector), latest_fit, the slot table, the lease scheduler and its
// simulation, the adaptive scheduler, image staging's repository link, the pilot-job service
// and the checkpoints. Each layer's check repeats a hand-computed case of that layer's own test.

#include <doctest/doctest.h>

#include <algorithm>
#include <cstdint>
#include <iterator>
#include <limits>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include <leasehold/cluster/slot_table.hpp>
#include <leasehold/io/checkpoint.hpp>
#include <leasehold/leasehold.hpp>
#include <leasehold/policy/adaptive/scheduler.hpp>
#include <leasehold/policy/lease/lease_scheduler.hpp>
#include <leasehold/policy/pilot/pilot_service.hpp>
#include <leasehold/policy/staging/repository_link.hpp>
#include <leasehold/sim/lease_simulation.hpp>

#include "availability/differential.hpp"

namespace user_backend_test {

using namespace leasehold;

namespace {

// Free capacity as a step function: steps_[t] is what is free from t until the next key.
// Adjacent steps always differ, so free_blocks() is the map itself. O(n) per query.
template <capacity_value C>
class step_map {
 public:
  using time_type = std::int64_t;
  using capacity_type = C;

  explicit step_map(C total, std::int64_t origin = 0) : total_(total) {
    if (!is_positive(total)) throw invalid_request("step_map: the total must be positive");
    steps_.emplace(origin, total);
  }

  [[nodiscard]] C total() const { return total_; }
  [[nodiscard]] std::int64_t origin() const { return steps_.begin()->first; }

  [[nodiscard]] C free_at(std::int64_t t) const {
    if (t < origin()) throw invalid_request("step_map::free_at: before the origin");
    return std::prev(steps_.upper_bound(t))->second;
  }

  [[nodiscard]] C min_free(interval<std::int64_t> span) const {
    check_span(span);
    C lowest = total_;
    for (auto it = step_at(span.begin); it != steps_.end() && it->first < span.end; ++it)
      lowest = elementwise_min(lowest, it->second);
    return lowest;
  }

  // A fit begins at the window's (clamped) begin or where free capacity changes.
  [[nodiscard]] std::optional<std::int64_t> earliest_fit(const request<std::int64_t, C>& r) const {
    if (r.duration <= 0 || !is_positive(r.amount) || !fits(r.amount, total_) ||
        r.window.end < r.window.begin || r.window.begin > forever<std::int64_t> - r.duration ||
        r.window.begin + r.duration > r.window.end)
      throw invalid_request("step_map::earliest_fit: malformed request");
    const std::int64_t first = std::max(r.window.begin, origin());
    const std::int64_t last = r.window.end - r.duration;
    std::vector<std::int64_t> candidates{first};
    for (const auto& [at, free] : steps_)
      if (at > first) candidates.push_back(at);
    for (const std::int64_t s : candidates) {
      if (s > last) break;
      if (fits(r.amount, min_free({s, s + r.duration}))) return s;
    }
    return std::nullopt;
  }

  void reserve(interval<std::int64_t> span, C amount) {
    check_span(span);
    check_amount(amount);
    if (!fits(amount, min_free(span)))
      throw insufficient_capacity("step_map::reserve: not free over the span");
    change(span, [&amount](C& free) { free -= amount; });
  }

  void release(interval<std::int64_t> span, C amount) {
    check_span(span);
    check_amount(amount);
    for (auto it = step_at(span.begin); it != steps_.end() && it->first < span.end; ++it)
      if (!fits(amount, total_ - it->second))
        throw invalid_release("step_map::release: more than is booked");
    change(span, [&amount](C& free) { free += amount; });
  }

  void advance_to(std::int64_t t) {
    if (t < origin() || t == forever<std::int64_t>)
      throw invalid_request("step_map::advance_to: before the origin, or forever");
    const C free = free_at(t);
    steps_.erase(steps_.begin(), steps_.upper_bound(t));
    steps_.emplace(t, free);
  }

  [[nodiscard]] std::vector<free_block<std::int64_t, C>> free_blocks() const {
    std::vector<free_block<std::int64_t, C>> blocks;
    for (auto it = steps_.begin(); it != steps_.end(); ++it) {
      const auto next = std::next(it);
      blocks.push_back(
          {{it->first, next == steps_.end() ? forever<std::int64_t> : next->first}, it->second});
    }
    return blocks;
  }

  [[nodiscard]] std::size_t block_count() const { return steps_.size(); }

 private:
  using step_iterator = typename std::map<std::int64_t, C>::const_iterator;

  [[nodiscard]] step_iterator step_at(std::int64_t t) const {
    return std::prev(steps_.upper_bound(t));
  }

  void check_span(interval<std::int64_t> span) const {
    if (span.end <= span.begin || span.begin < origin())
      throw invalid_request("step_map: empty or reversed span, or one before the origin");
  }

  void check_amount(const C& amount) const {
    if (!is_positive(amount) || !fits(amount, total_))
      throw invalid_request("step_map: amount not positive or above the total");
  }

  // Copies the map, changes the copy and swaps it in: the strong guarantee the simple way.
  template <class Change>
  void change(interval<std::int64_t> span, Change apply) {
    std::map<std::int64_t, C> steps = steps_;
    const auto split = [&steps](std::int64_t t) {
      steps.emplace(t, std::prev(steps.upper_bound(t))->second);
    };
    split(span.begin);
    if (span.end != forever<std::int64_t>) split(span.end);
    for (auto it = steps.find(span.begin); it != steps.end() && it->first < span.end; ++it)
      apply(it->second);
    for (const std::int64_t t : {span.begin, span.end}) {
      const auto it = steps.find(t);
      if (it != steps.end() && it != steps.begin() && std::prev(it)->second == it->second)
        steps.erase(it);
    }
    steps_.swap(steps);
  }

  C total_;
  std::map<std::int64_t, C> steps_;
};

using scalar_steps = step_map<std::int64_t>;
using vector_steps = step_map<policy::lease::node_resources>;

static_assert(availability<scalar_steps> && availability<vector_steps>);
static_assert(!latest_fit_availability<scalar_steps> &&
              !nothrow_rollback_availability<scalar_steps>);

}  // namespace

TEST_CASE("user backend: agrees with reference on random operation sequences") {
  const std::size_t operations = leasehold::testing::random_ops_per_seed(2000);
  for (const std::uint64_t seed : {1u, 2u}) {
    leasehold::testing::differential_config<std::int64_t, std::int64_t> scalar{.total = 64};
    scalar.draw_amount = [](std::mt19937_64& rng) {
      return std::uniform_int_distribution<std::int64_t>(1, 64)(rng);
    };
    CHECK(leasehold::testing::run_differential(seed, operations, scalar_steps(64),
                                               reference<std::int64_t, std::int64_t>(64),
                                               scalar) == 0);
    using V = policy::lease::node_resources;
    leasehold::testing::differential_config<std::int64_t, V> vector{.total = V{8, 64, 4, 16}};
    vector.draw_amount = [](std::mt19937_64& rng) {
      const auto pick = [&rng](std::int64_t high) {
        return std::uniform_int_distribution<std::int64_t>(0, high)(rng);
      };
      return V{1 + pick(7), pick(64), pick(4), pick(16)};
    };
    CHECK(leasehold::testing::run_differential(seed, operations / 2, vector_steps(V{8, 64, 4, 16}),
                                               reference<std::int64_t, V>(V{8, 64, 4, 16}),
                                               vector) == 0);
  }
}

TEST_CASE("user backend: a slot table of step maps places a gang") {
  // As slot_table_test: 3 nodes of 4 cores; node 0 busy over [0, 100): two nodes for 50 are
  // free at once on 1 and 2; three need node 0 from 100.
  using node = policy::lease::node_resources;
  cluster::slot_table<vector_steps> table(3, node{4, 4096, 0, 0});
  table.reserve({{0, 100}, node{4, 1024, 0, 0}, {0}});
  const auto two =
      table.earliest_fit({.nodes = 2, .per_node = node{2, 1024, 0, 0}, .duration = 50});
  REQUIRE(two);
  CHECK(two->span == interval<std::int64_t>{0, 50});
  CHECK(two->nodes == std::vector<std::size_t>{1, 2});
  const auto three =
      table.earliest_fit({.nodes = 3, .per_node = node{2, 1024, 0, 0}, .duration = 50});
  REQUIRE(three);
  CHECK(three->span.begin == 100);
  table.validate();
}

TEST_CASE("user backend: the lease scheduler and its simulation run on step maps") {
  using namespace leasehold::policy::lease;
  // lease_scheduler_test's "an advance reservation suspends a running lease", on step maps:
  // X (4 nodes x 1000) starts at 0; the AR (2 nodes over [500, 600)) submitted at 100 makes X
  // suspend over [490, 500) (1024 MB at 102.4 MB/s); X resumes at 600 (20 s at 51.2 MB/s) and
  // runs its remaining 510 s to 1130.
  struct ends : lease_observer<std::int64_t> {
    std::map<std::uint64_t, std::int64_t> ended;
    std::size_t suspended = 0;
    void on_suspended(std::uint64_t, std::int64_t) override { ++suspended; }
    void on_ended(std::uint64_t id, std::int64_t at) override { ended[id] = at; }
  } observer;
  scheduler_config<std::int64_t> config;
  config.in_vms = false;
  config.suspend_rate_mb_s = 102.4;
  config.resume_rate_mb_s = 51.2;
  config.network_mb_s = 10.24;
  lease_scheduler<vector_steps> s(
      cluster::slot_table<vector_steps>(4, node_resources{1, 1024, 10000, 10}), config);
  s.set_observer(&observer);
  lease_terms<std::int64_t> x;
  x.id = 1;
  x.nodes = 4;
  x.duration = x.real_duration = 1000;
  lease_terms<std::int64_t> ar;
  ar.id = 2;
  ar.submit = 100;
  ar.kind = lease_kind::advance_reservation;
  ar.start = 500;
  ar.nodes = 2;
  ar.duration = ar.real_duration = 100;
  ar.preemptible = false;
  const auto stats = sim::simulate_leases(s, std::vector{x, ar});
  CHECK(stats.submitted == 2);
  CHECK(observer.suspended == 1);
  CHECK(observer.ended == std::map<std::uint64_t, std::int64_t>{{1, 1130}, {2, 600}});
  s.validate();
}

TEST_CASE("user backend: adaptive requests, image transfers and pilot blocks on step maps") {
  SUBCASE("adaptive scheduler: Missing-Deadline-First reorders a waiting request") {
    namespace adaptive = leasehold::policy::adaptive;
    // As scheduler_test: one resource; C (deadline 30) arriving at 2 goes before B.
    adaptive::scheduler<scalar_steps> s(scalar_steps(1),
                                        {.order = adaptive::strategy::missing_deadline_first});
    CHECK(s.submit(adaptive::rigid<std::int64_t, std::int64_t>(1, 0, 1, 10, 100), 0).accepted);
    CHECK(s.submit(adaptive::rigid<std::int64_t, std::int64_t>(2, 1, 1, 50, 1000), 1).accepted);
    const auto c = s.submit(adaptive::rigid<std::int64_t, std::int64_t>(3, 2, 1, 10, 30), 2);
    REQUIRE(c.accepted);
    CHECK(c.where.start() == 10);
    CHECK(s.find(2)->start() == 20);
  }
  SUBCASE("repository link: a transfer as late as its deadline allows") {
    policy::staging::repository_link<scalar_steps> link(10.0);  // 10 MB/s
    link.book({900, 1000});
    const auto late = link.latest(100, 0, 1000);
    REQUIRE(late);
    CHECK(*late == interval<std::int64_t>{800, 900});
    CHECK(link.earliest(100, 0) == interval<std::int64_t>{0, 100});
  }
  SUBCASE("pilot service: a block waits for room, then books it") {
    using namespace leasehold::policy::pilot;
    scalar_steps cluster(8);
    cluster.reserve({0, 100}, 6);
    pilot_service<scalar_steps> service(cluster, {.blocks = {.allocation_step_size = 0.5,
                                                             .max_blocks = 2,
                                                             .low_overallocation = 2.0,
                                                             .high_overallocation = 2.0,
                                                             .spread = 0.0,
                                                             .cores_per_node = 2},
                                                  .dispatch = {.idle_release_delay = 0}});
    for (std::uint64_t id = 0; id < 4; ++id) service.submit({.id = id, .walltime = 10});
    const auto placed = service.plan(0);
    REQUIRE(placed.size() == 1);
    CHECK(placed[0].booked == interval<std::int64_t>{100, 120});
    CHECK(cluster.free_at(100) == 4);
  }
}

TEST_CASE("user backend: checkpoints save and restore a step map") {
  scalar_steps profile(10, 5);
  profile.reserve({10, 20}, 4);
  profile.reserve({30, forever<std::int64_t>}, 1);
  const std::string text = io::save_profile(profile);
  const auto restored = io::load_profile<scalar_steps>(text);
  CHECK(leasehold::testing::blocks_of(restored) == leasehold::testing::blocks_of(profile));
  // And across backends: the same text restores into a free_list.
  const auto as_list = io::load_profile<free_list<std::int64_t, std::int64_t>>(text);
  CHECK(io::save_profile(as_list) == text);
}

}  // namespace user_backend_test
