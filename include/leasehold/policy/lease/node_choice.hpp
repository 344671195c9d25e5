#pragma once

/// \file
/// Which nodes the lease scheduler picks among those that can host a lease, as a customisation
/// point. Haizea's own rules come first and stay (Sotomayor, Keahey & Foster §3.2): an advance
/// reservation prefers nodes that need no preemption, then nodes holding its image; a
/// suspendable best-effort lease takes the nodes free longest. Among the nodes those rules
/// consider equal, Haizea takes the lowest ids; a node choice replaces that last tie-break, so
/// a user can pack leases onto busy nodes, spread them, or keep GPU nodes for those that need
/// them, without touching the scheduler.
///
/// A node choice is a callable that gives each candidate node a key; smaller keys are
/// preferred, equal keys by node id (so a constant key is Haizea's choice).

#include <concepts>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <type_traits>

#include "leasehold/core/time.hpp"
#include "leasehold/policy/lease/lease_record.hpp"

namespace leasehold::policy::lease {

/// What a node choice is told about one candidate: the slot table (to read the node's free
/// capacity), the node, the lease and the span it would hold there.
template <class Table>
struct node_candidate {
  /// The slot table's time type.
  using time_type = typename Table::time_type;
  /// The slot table's capacity type.
  using capacity_type = typename Table::capacity_type;
  /// The slot table, to read the node's profile.
  const Table& table;
  /// The candidate node.
  std::size_t node;
  /// The lease to place.
  const lease_record<time_type, capacity_type>& lease;
  /// The span it would hold on the node.
  interval<time_type> span;
};

/// Requirements, and why:
///  - choice(candidate) -> K, callable on a const choice: asked for every candidate node of a
///    placement, it must not change state while the scheduler compares nodes;
///  - K totally ordered: candidates are sorted by it.
///   valid:   lowest_node_id; [](const auto& c) { return
///   c.table.node(c.node).free_at(c.span.begin)[0]; } invalid: [](std::size_t node) { return node;
///   } (it is given a node_candidate, not an id)
template <class N, class Table>
concept node_choice = std::copy_constructible<N> &&
    requires(const N& n, const node_candidate<Table>& c) {
  { n(c) } -> std::totally_ordered;
};

/// Haizea's choice: no preference beyond the paper's rules, lowest node ids first. The
/// default; the scheduler recognises it and skips ranking altogether.
struct lowest_node_id {
  /// The same key, 0, for every node.
  template <class Table>
  [[nodiscard]] constexpr int operator()(
      const node_candidate<Table>& /*candidate*/) const noexcept {
    return 0;
  }
};

/// A node choice chosen at run time (or a Python callable through the bindings).
template <class Table>
struct node_choice_function {
  /// The key: smaller keys are chosen first.
  std::function<double(const node_candidate<Table>&)> key;

  /// key(candidate); 0 for an empty key (no preference).
  [[nodiscard]] double operator()(const node_candidate<Table>& candidate) const {
    if (!key) return 0.0;  // an empty function: lowest ids
    return key(candidate);
  }
};

}  // namespace leasehold::policy::lease
