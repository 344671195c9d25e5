// The availability backends side by side at 1,000 to 100,000 live reservations: earliest_fit
// alone, and a churn step (release one booking, find the earliest fit for a new request,
// book it). reference is the naive baseline, run at the smallest size only (it is O(n) per
// update and O(n^2) per search). The requests are random but seeded, so every backend sees
// the same requests (the ring books them rounded); slotted_ring<dt = 1> holds the whole horizon
// with one slot per tick, slotted_ring<dt = 60> rounds to 60-tick slots.
//
//   ./build/release/benchmarks/backends_bench --benchmark_min_time=0.2

#include <benchmark/benchmark.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <random>
#include <vector>

#include <leasehold/leasehold.hpp>

namespace {

using namespace leasehold;

using time_t_ = std::int64_t;
using capacity_t = std::int64_t;

constexpr capacity_t total_capacity = 1024;
constexpr time_t_ max_duration = 1000;

// Around 20 bookings overlap at any instant, so the profile is busy but rarely full.
time_t_ horizon_for(std::size_t live) { return static_cast<time_t_>(live) * 25; }

// slotted_ring<dt> sized to hold the whole benchmark horizon.
template <time_t_ Dt>
struct ring : slotted_ring<time_t_, capacity_t> {
  static constexpr bool sized_by_live = true;
  explicit ring(std::size_t live)
      : slotted_ring(total_capacity, Dt,
                     static_cast<std::size_t>((horizon_for(live) + 6 * max_duration) / Dt + 1)) {}
};

template <class Backend>
Backend make(std::size_t live) {
  if constexpr (requires { Backend::sized_by_live; })
    return Backend(live);
  else
    return Backend(total_capacity);
}

struct booking {
  interval<time_t_> span;
  capacity_t amount;
};

request<time_t_, capacity_t> random_request(std::mt19937_64& rng, time_t_ horizon) {
  std::uniform_int_distribution<time_t_> when(0, horizon), length(1, max_duration);
  std::uniform_int_distribution<capacity_t> units(1, 64);
  const time_t_ begin = when(rng);
  const time_t_ duration = length(rng);
  return {units(rng), duration, {begin, begin + duration + 4 * max_duration}};
}

// Books `live` random reservations, each at the earliest fit of a random request.
template <class Backend>
std::vector<booking> fill(Backend& profile, std::size_t live, std::mt19937_64& rng) {
  std::vector<booking> bookings;
  bookings.reserve(live);
  const time_t_ horizon = horizon_for(live);
  while (bookings.size() < live) {
    const auto r = random_request(rng, horizon);
    if (const auto start = profile.earliest_fit(r)) {
      const interval<time_t_> span{*start, *start + r.duration};
      profile.reserve(span, r.amount);
      bookings.push_back({span, r.amount});
    }
  }
  return bookings;
}

template <class Backend>
void bm_earliest_fit(benchmark::State& state) {
  const auto live = static_cast<std::size_t>(state.range(0));
  Backend profile = make<Backend>(live);
  std::mt19937_64 rng(42);
  fill(profile, live, rng);
  for (auto _ : state) {
    benchmark::DoNotOptimize(profile.earliest_fit(random_request(rng, horizon_for(live))));
  }
  state.SetItemsProcessed(state.iterations());
  state.counters["blocks"] = static_cast<double>(profile.block_count());
  if constexpr (leasehold::measured_availability<Backend>)
    state.counters["bytes_per_booking"] =
        static_cast<double>(profile.memory_usage()) / static_cast<double>(live);
  if constexpr (requires { profile.hierarchy(); }) {
    std::size_t depth = 0;
    for (const auto& block : profile.hierarchy()) depth = std::max(depth, block.depth);
    state.counters["depth"] = static_cast<double>(depth);
  }
}

// One step of an online scheduler: a booking ends early, a new request arrives.
template <class Backend>
void bm_churn(benchmark::State& state) {
  const auto live = static_cast<std::size_t>(state.range(0));
  Backend profile = make<Backend>(live);
  std::mt19937_64 rng(42);
  std::vector<booking> bookings = fill(profile, live, rng);
  std::size_t victim = 0;
  for (auto _ : state) {
    victim = (victim + 7919) % bookings.size();
    profile.release(bookings[victim].span, bookings[victim].amount);
    const auto r = random_request(rng, horizon_for(live));
    const auto start = profile.earliest_fit(r);
    if (start) {
      bookings[victim] = {{*start, *start + r.duration}, r.amount};
    }
    profile.reserve(bookings[victim].span, bookings[victim].amount);  // or book the old one again
  }
  state.SetItemsProcessed(state.iterations());
  state.counters["blocks"] = static_cast<double>(profile.block_count());
}

using reference_backend = reference<time_t_, capacity_t>;
using free_list_backend = free_list<time_t_, capacity_t>;
using capacity_tree_backend = capacity_tree<time_t_, capacity_t>;

}  // namespace

BENCHMARK_TEMPLATE(bm_earliest_fit, reference_backend)->Arg(1'000);
BENCHMARK_TEMPLATE(bm_earliest_fit, free_list_backend)->Arg(1'000)->Arg(10'000)->Arg(100'000);
BENCHMARK_TEMPLATE(bm_earliest_fit, capacity_tree_backend)->Arg(1'000)->Arg(10'000)->Arg(100'000);
BENCHMARK_TEMPLATE(bm_earliest_fit, ring<1>)->Arg(1'000)->Arg(10'000)->Arg(100'000);
BENCHMARK_TEMPLATE(bm_earliest_fit, ring<60>)->Arg(1'000)->Arg(10'000)->Arg(100'000);

BENCHMARK_TEMPLATE(bm_churn, reference_backend)->Arg(1'000);
BENCHMARK_TEMPLATE(bm_churn, free_list_backend)->Arg(1'000)->Arg(10'000)->Arg(100'000);
BENCHMARK_TEMPLATE(bm_churn, capacity_tree_backend)->Arg(1'000)->Arg(10'000)->Arg(100'000);
BENCHMARK_TEMPLATE(bm_churn, ring<1>)->Arg(1'000)->Arg(10'000)->Arg(100'000);
BENCHMARK_TEMPLATE(bm_churn, ring<60>)->Arg(1'000)->Arg(10'000)->Arg(100'000);

BENCHMARK_MAIN();
