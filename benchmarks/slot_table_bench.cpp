// Gang earliest fit on cluster::slot_table at cluster scale (issue 19; docs/performance.md has
// the figures and the commands).
//
//   gang_earliest_fit/<backend>/<W>   earliest_fit of the same 64 gang requests of the mix
//                          below (one iteration asks all 64; items are requests) on a table
//                          of W nodes that holds 100 live leases per node (nothing is booked
//                          by the benchmark)
//   gang_fit_book/<backend>/<W>       earliest_fit, reserve the answer, release it again: the
//                          same table and requests, plus what keeping the table (and any
//                          index over its nodes) up to date costs
//   gang_cold_fit/<backend>/<W>       the same 64 requests, each asked as the first of its
//                          request type: the table forgets its per-class bounds before every
//                          request, outside the timing (items are requests). The table is
//                          asked all 64 once before timing, so what it keeps for every class
//                          (if anything) is as a table in use would have it.
//
// The mix, one draw per lease: gang size 2^k nodes, k = 0..8 (1 to 256 nodes) with weights
// 40, 15, 10, 8, 7, 6, 5, 5, 4 (many serial jobs, a tail of wide ones, as in parallel
// workload logs); per-node amount 8, 16 or 32 of a node's 32 cores (40 %, 20 %, 40 %);
// duration log-uniform between 10 minutes and 4 hours, in seconds. The table is filled by
// booking each lease of the mix on n random distinct nodes at the earliest start those n
// nodes share from time 0, until the nodes hold 100 leases each on average. Filling on fixed
// random node sets, rather than by the gang search itself, leaves holes of every size on
// every node (what a real schedule with releases and early ends looks like) and does not
// depend on the algorithm under test. Queries ask from time 0 to forever: small gangs
// backfill into holes, wide ones go near the end of the booked horizon.

#include <benchmark/benchmark.h>

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <map>
#include <memory>
#include <optional>
#include <random>
#include <unordered_set>
#include <vector>

#include <leasehold/availability/free_list.hpp>
#include <leasehold/availability/free_tree.hpp>
#include <leasehold/cluster/slot_table.hpp>

namespace lh = leasehold;
using T = std::int64_t;

namespace {

constexpr int per_node_cores = 32;
constexpr std::size_t leases_per_node = 100;
constexpr std::size_t query_count = 64;

struct lease_shape {
  std::size_t nodes;
  int per_node;
  T duration;
};

lease_shape draw(std::mt19937_64& rng) {
  static constexpr double size_weights[] = {40, 15, 10, 8, 7, 6, 5, 5, 4};
  std::discrete_distribution<int> size(std::begin(size_weights), std::end(size_weights));
  std::discrete_distribution<int> amount({40, 20, 40});
  std::uniform_real_distribution<double> log_duration(std::log(600.0), std::log(4.0 * 3600));
  static constexpr int amounts[] = {8, 16, 32};
  return {std::size_t{1} << size(rng), amounts[amount(rng)],
          static_cast<T>(std::exp(log_duration(rng)))};
}

// n distinct nodes out of w, in increasing order (Floyd's sampling).
std::vector<std::size_t> random_nodes(std::mt19937_64& rng, std::size_t w, std::size_t n) {
  std::unordered_set<std::size_t> chosen;
  for (std::size_t j = w - n; j < w; ++j) {
    const std::size_t t = std::uniform_int_distribution<std::size_t>(0, j)(rng);
    if (!chosen.insert(t).second) chosen.insert(j);
  }
  std::vector<std::size_t> nodes(chosen.begin(), chosen.end());
  std::ranges::sort(nodes);
  return nodes;
}

template <class A>
struct fixture {
  lh::cluster::slot_table<A> table;
  std::vector<typename lh::cluster::slot_table<A>::request_type> queries;
};

template <class A>
fixture<A>& cluster_of(std::size_t w) {
  static std::map<std::size_t, std::unique_ptr<fixture<A>>> built;
  auto& slot = built[w];
  if (slot) return *slot;
  std::mt19937_64 rng(19);
  lh::cluster::slot_table<A> table(w, per_node_cores);
  std::size_t booked = 0;
  while (booked < leases_per_node * w) {
    const lease_shape shape = draw(rng);
    const std::vector<std::size_t> nodes = random_nodes(rng, w, shape.nodes);
    // The earliest start these nodes share: raise s to the latest per-node earliest fit until
    // every node fits at s.
    T s = 0;
    while (true) {
      T latest = s;
      for (std::size_t i : nodes)
        latest = std::max(
            latest, *table.node(i).earliest_fit(
                        {shape.per_node, shape.duration, {s, std::numeric_limits<T>::max()}}));
      if (latest == s) break;
      s = latest;
    }
    table.reserve({{s, s + shape.duration}, shape.per_node, nodes});
    booked += shape.nodes;
  }
  std::vector<typename lh::cluster::slot_table<A>::request_type> queries;
  for (std::size_t q = 0; q < query_count; ++q) {
    const lease_shape shape = draw(rng);
    queries.push_back({shape.nodes, shape.per_node, shape.duration});
  }
  slot = std::make_unique<fixture<A>>(fixture<A>{std::move(table), std::move(queries)});
  return *slot;
}

template <class A>
void bm_gang_earliest_fit(benchmark::State& state) {
  auto& f = cluster_of<A>(static_cast<std::size_t>(state.range(0)));
  for (auto _ : state)
    for (const auto& r : f.queries) {
      auto p = f.table.earliest_fit(r);
      benchmark::DoNotOptimize(p);
    }
  state.SetItemsProcessed(
      static_cast<std::int64_t>(state.iterations() * static_cast<std::int64_t>(f.queries.size())));
  std::size_t blocks = 0;
  for (std::size_t i = 0; i < f.table.node_count(); ++i) blocks += f.table.node(i).block_count();
  state.counters["blocks_per_node"] =
      static_cast<double>(blocks) / static_cast<double>(f.table.node_count());
}

template <class A>
void bm_gang_fit_book(benchmark::State& state) {
  auto& f = cluster_of<A>(static_cast<std::size_t>(state.range(0)));
  for (auto _ : state)
    for (const auto& r : f.queries) {
      const auto p = f.table.earliest_fit(r);
      f.table.reserve(*p);
      f.table.release(*p);
    }
  state.SetItemsProcessed(
      static_cast<std::int64_t>(state.iterations() * static_cast<std::int64_t>(f.queries.size())));
}

template <class A>
void bm_gang_cold_fit(benchmark::State& state) {
  auto& f = cluster_of<A>(static_cast<std::size_t>(state.range(0)));
  for (const auto& r : f.queries) {
    auto p = f.table.earliest_fit(r);
    benchmark::DoNotOptimize(p);
  }
  for (auto _ : state)
    for (const auto& r : f.queries) {
      state.PauseTiming();
      f.table.forget_request_classes();
      state.ResumeTiming();
      auto p = f.table.earliest_fit(r);
      benchmark::DoNotOptimize(p);
    }
  state.SetItemsProcessed(
      static_cast<std::int64_t>(state.iterations() * static_cast<std::int64_t>(f.queries.size())));
}

using tree = lh::free_tree<T, int>;
using list = lh::free_list<T, int>;

BENCHMARK_TEMPLATE(bm_gang_earliest_fit, tree)
    ->Name("gang_earliest_fit/free_tree")
    ->Arg(1'000)
    ->Arg(10'000)
    ->Unit(benchmark::kMillisecond);
BENCHMARK_TEMPLATE(bm_gang_earliest_fit, list)
    ->Name("gang_earliest_fit/free_list")
    ->Arg(1'000)
    ->Arg(10'000)
    ->Unit(benchmark::kMillisecond);
BENCHMARK_TEMPLATE(bm_gang_fit_book, tree)
    ->Name("gang_fit_book/free_tree")
    ->Arg(1'000)
    ->Arg(10'000)
    ->Unit(benchmark::kMillisecond);
BENCHMARK_TEMPLATE(bm_gang_cold_fit, tree)
    ->Name("gang_cold_fit/free_tree")
    ->Arg(1'000)
    ->Arg(10'000)
    ->Unit(benchmark::kMillisecond);

}  // namespace

BENCHMARK_MAIN();
