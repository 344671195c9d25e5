// Allocation-failure sweep over cluster::slot_table on every backend: gang earliest_fit,
// reserve, release and advance_to, each with its k-th allocation failing for every k until it
// succeeds. slot_table::reserve changes node after node and rolls back on failure, so the
// rollback itself must not be able to fail: after every failed attempt every node profile and
// the aggregate must be exactly as before, and validate() must pass.

#include <cstdint>
#include <optional>
#include <random>
#include <vector>

#include <leasehold/cluster/slot_table.hpp>
#include <leasehold/leasehold.hpp>

#include "availability/backends.hpp"
#include "fault/allocation_failure.hpp"

using namespace leasehold;
namespace fault = leasehold::testing::fault;

namespace {

template <class A>
std::vector<std::vector<typename A::block_type>> profile_of(const cluster::slot_table<A>& table) {
  std::vector<std::vector<typename A::block_type>> all;
  const auto aggregate = table.aggregate().free_blocks();
  all.emplace_back(aggregate.begin(), aggregate.end());
  for (std::size_t i = 0; i < table.node_count(); ++i) {
    const auto blocks = table.node(i).free_blocks();
    all.emplace_back(blocks.begin(), blocks.end());
  }
  return all;
}

template <class A, class Call>
bool swept(cluster::slot_table<A>& table, Call&& call, std::size_t& failures) {
  const auto before = profile_of(table);
  const auto unchanged = [&] {
    table.validate();
    CHECK(profile_of(table) == before);
  };
  try {
    failures += fault::sweep(call, unchanged).failures;
    return true;
  } catch (const leasehold::error&) {
    unchanged();
    return false;
  }
}

template <class A, class Make>
void sweep_table(Make make, typename A::capacity_type per_node, std::int64_t step,
                 std::uint64_t seed) {
  using T = typename A::time_type;
  using C = typename A::capacity_type;
  using table_type = cluster::slot_table<A>;
  table_type table(5, per_node, make);
  std::mt19937_64 rng(seed);
  auto uniform = [&rng](std::int64_t lo, std::int64_t hi) {
    return std::uniform_int_distribution<std::int64_t>(lo, hi)(rng);
  };
  auto part_of = [&](std::int64_t parts) {
    C c = per_node;
    if constexpr (scalar_capacity<C>)
      c = static_cast<C>(std::max<std::int64_t>(1, per_node * uniform(1, parts) / parts));
    else
      for (auto& v : c) v = v * uniform(1, parts) / parts;
    return c;
  };
  std::vector<typename table_type::placement_type> live;
  std::size_t failures = 0;
  for (int op = 0; op < 200; ++op) {
    const std::int64_t kind = uniform(0, 99);
    if (kind < 45) {
      const typename table_type::request_type r{static_cast<std::size_t>(uniform(1, 5)), part_of(3),
                                                static_cast<T>(step * uniform(1, 6))};
      std::optional<typename table_type::placement_type> p;
      swept(
          table, [&] { p = table.earliest_fit(r); }, failures);
      if (!p || p->span.end > table.origin() + 300 * step) continue;
      if (swept(
              table, [&] { table.reserve(*p); }, failures))
        live.push_back(*p);
    } else if (kind < 75) {
      if (live.empty()) continue;
      const auto i =
          static_cast<std::size_t>(uniform(0, static_cast<std::int64_t>(live.size()) - 1));
      const auto p = live[i];
      live.erase(live.begin() + static_cast<std::ptrdiff_t>(i));
      REQUIRE(swept(
          table, [&] { table.release(p); }, failures));
    } else if (kind < 90) {  // a colliding reserve on some nodes: rejected or booked whole
      typename table_type::placement_type p;
      const auto begin = static_cast<T>(table.origin() + step * uniform(0, 200));
      p.span = {begin, static_cast<T>(begin + step * uniform(1, 5))};
      p.per_node = part_of(2);
      for (std::size_t n = 0; n < 5; ++n)
        if (uniform(0, 1) == 1) p.nodes.push_back(n);
      if (p.nodes.empty()) p.nodes.push_back(0);
      if (swept(
              table, [&] { table.reserve(p); }, failures))
        live.push_back(p);
    } else {
      const auto to = static_cast<T>(table.origin() + step * uniform(0, 4));
      REQUIRE(swept(
          table, [&] { table.advance_to(to); }, failures));
      const T origin = table.origin();
      std::erase_if(live, [origin](const auto& p) { return p.span.end <= origin; });
      for (auto& p : live) p.span.begin = std::max(p.span.begin, origin);
    }
  }
  table.validate();
  CHECK(failures > 0);
}

}  // namespace

TEST_CASE_TEMPLATE("fault: slot_table gives the strong guarantee under bad_alloc (vector)", A,
                   LEASEHOLD_EXACT_VECTOR_BACKENDS) {
  using T = typename A::time_type;
  using C = typename A::capacity_type;
  for (std::uint64_t seed : {11u, 12u, 13u})
    sweep_table<A>([](C total) { return A(total, T{0}); }, C{{4, 4096, 100, 10}}, 1, seed);
}

TEST_CASE_TEMPLATE("fault: slot_table gives the strong guarantee under bad_alloc (scalar)", A,
                   LEASEHOLD_EXACT_SCALAR_BACKENDS) {
  using T = typename A::time_type;
  using C = typename A::capacity_type;
  for (std::uint64_t seed : {21u, 22u, 23u})
    sweep_table<A>([](C total) { return A(total, T{0}); }, C{4}, 1, seed);
}

TEST_CASE("fault: slot_table over slotted_ring gives the strong guarantee under bad_alloc") {
  using A = slotted_ring<std::int64_t, leasehold::testing::vector4>;
  sweep_table<A>([](leasehold::testing::vector4 total) { return A(total, 5, 400, 0); },
                 leasehold::testing::vector4{{4, 4096, 100, 10}}, 5, 31);
}
