// The workloads of availability_bench's append and earliest_fit rows on free_tree, as a plain
// program to run under a cache simulator (docs/performance.md, "Cache misses per query"). It
// builds the append profile of N live reservations (128 units; amount uniform in [1, 128],
// duration uniform in [1, 3600] s, windows from 0 to forever, time in milliseconds), then
// makes Q calls inside measured_calls(), the only function the simulator is told to count
// (callgrind --toggle-collect).
//
// Under callgrind started with --instr-atstart=no, the cache simulation starts only
// 10 Q calls of the counted kind before the counted ones (CALLGRIND_START_INSTRUMENTATION),
// which keeps 1,000,000 reservations to minutes: for append, the last 10 Q pairs of the build;
// for earliest_fit, 10 Q searches after it. Those warm the simulated caches with what the
// counted calls use most, as a long run would. Without valgrind's headers the marker
// compiles to nothing.
//
//   cache_probe <append|earliest_fit> <N> [Q = 1000]
//
// append: Q more find-and-book pairs from the origin, as in append/free_tree/N.
// earliest_fit: Q searches alone, windows beginning anywhere in the booked time line, as in
// earliest_fit/free_tree/N.

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <optional>
#include <random>
#include <string_view>
#include <vector>

#include <leasehold/availability/free_tree.hpp>

#include "probe_arguments.hpp"

#if __has_include(<valgrind/callgrind.h>)
#include <valgrind/callgrind.h>
#else
#define CALLGRIND_START_INSTRUMENTATION
#endif

namespace {

using tick = std::int64_t;
using units = std::int64_t;
using profile_type = leasehold::free_tree<tick, units>;
using request_type = profile_type::request_type;
constexpr tick second = 1000;
constexpr tick hour = 3600 * second;
constexpr units total = 128;

// Makes the calls: the warm-up batch directly, the counted one through measured_calls().
std::size_t calls(profile_type& profile, const std::vector<request_type>& requests, bool book) {
  std::size_t found = 0;
  for (const request_type& r : requests) {
    const std::optional<tick> start = profile.earliest_fit(r);
    if (!start) continue;
    ++found;
    if (book) profile.reserve({*start, *start + r.duration}, r.amount);
  }
  return found;
}

// Kept out of line, under this name, for callgrind's --toggle-collect.
[[gnu::noinline]] std::size_t measured_calls(profile_type& profile,
                                             const std::vector<request_type>& requests, bool book) {
  return calls(profile, requests, book);
}

}  // namespace

int main(int argc, char** argv) {
  const std::string_view usage = "usage: cache_probe <append|earliest_fit> <N> [Q = 1000]";
  if (argc < 3 || argc > 4) {
    std::fprintf(stderr, "%s\n", usage.data());
    return 2;
  }
  const std::string_view mode = argv[1];
  const std::optional<std::size_t> live = leasehold_probes::parse_count(argv[2]);
  const std::optional<std::size_t> queries =
      argc == 4 ? leasehold_probes::parse_count(argv[3]) : 1000;
  if (mode != "append" && mode != "earliest_fit") {
    std::fprintf(stderr, "cache_probe: unknown workload '%s'\n%s\n", argv[1], usage.data());
    return 2;
  }
  if (!live || !queries) {
    std::fprintf(stderr, "cache_probe: '%s' is not a whole number above 0\n%s\n",
                 !live ? argv[2] : argv[3], usage.data());
    return 2;
  }

  std::mt19937_64 random(20240601);
  std::uniform_int_distribution<units> amount(1, total);
  std::uniform_int_distribution<tick> seconds(1, 3600);
  auto next_append = [&] {
    request_type r;
    r.amount = amount(random);
    r.duration = seconds(random) * second;
    r.window = {0, leasehold::forever<tick>};
    return r;
  };
  const std::size_t warm_up = 10 * *queries;
  const bool book = mode == "append";
  profile_type profile(total);
  tick extent = 0;
  for (std::size_t i = 0; i < *live; ++i) {
    if (book && i + std::min(warm_up, *live) == *live) CALLGRIND_START_INSTRUMENTATION;
    const request_type r = next_append();
    const tick start = *profile.earliest_fit(r);
    profile.reserve({start, start + r.duration}, r.amount);
    extent = std::max(extent, start + r.duration);
  }

  std::mt19937_64 other(9);
  std::uniform_int_distribution<tick> begin(0, extent - 1);
  std::uniform_int_distribution<tick> slack(0, 4 * hour);
  auto batch = [&](std::size_t count) {
    std::vector<request_type> requests(count);
    for (request_type& r : requests) {
      if (mode == "append") {
        r = next_append();
      } else {
        r.amount = amount(other);
        r.duration = seconds(other) * second;
        r.window.begin = begin(other);
        r.window.end = r.window.begin + r.duration + slack(other);
      }
    }
    return requests;
  };
  const std::vector<request_type> counted = batch(*queries);
  if (!book) {
    const std::vector<request_type> warm_up_searches = batch(warm_up);
    CALLGRIND_START_INSTRUMENTATION;
    (void)calls(profile, warm_up_searches, false);
  }
  const std::size_t blocks = profile.block_count();
  const std::size_t found = measured_calls(profile, counted, book);
  std::printf("%s N=%zu blocks=%zu height=%zu calls=%zu found=%zu bytes_per_block=%.0f\n", argv[1],
              *live, blocks, profile.height(), *queries, found,
              static_cast<double>(profile.memory_usage()) / static_cast<double>(blocks));
  return 0;
}
