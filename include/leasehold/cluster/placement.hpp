#pragma once

/// \file
/// The vocabulary of cluster::slot_table: a gang request (n distinct nodes, each with the same
/// per-node resource vector, over the same span) and the placement that answers it. This is
/// the three-dimensional slot table of Sotomayor, Keahey & Foster (Haizea, §3.2): resource
/// usage x nodes x time.

#include <algorithm>
#include <cstddef>
#include <limits>
#include <ostream>
#include <type_traits>
#include <utility>
#include <vector>

#include "leasehold/core/capacity.hpp"
#include "leasehold/core/time.hpp"

namespace leasehold::cluster {

/// Book `per_node` on `nodes` distinct nodes for `duration`, all starting at the same s with
/// window.begin <= s and s + duration <= window.end. The default window is "from the table's
/// origin to forever", as for leasehold::request.
template <time_value T, capacity_value C>
struct gang_request {
  std::size_t nodes = 1;  ///< How many distinct nodes (at least 1).
  C per_node{};           ///< What each node must have free throughout.
  T duration{};           ///< How long, in ticks (positive).
  /// Where the gang must lie: its start s satisfies window.begin <= s and
  /// s + duration <= window.end. Defaults to all time.
  interval<T> window{std::numeric_limits<T>::min(), std::numeric_limits<T>::max()};

  /// Equal when every field is equal.
  friend bool operator==(const gang_request&, const gang_request&) = default;

  /// Writes `gang_request{n nodes x amount, duration d, window [b, e)}`.
  friend std::ostream& operator<<(std::ostream& out, const gang_request& r) {
    return out << "gang_request{" << r.nodes << " nodes x " << r.per_node << ", duration "
               << r.duration << ", window " << r.window << '}';
  }
};

/// Where and when a gang runs: `per_node` booked on every node of `nodes` over `span`.
/// Node ids are distinct and, in placements made by earliest_fit, in increasing order.
template <time_value T, capacity_value C>
struct placement {
  interval<T> span{};              ///< When the gang runs on every node.
  C per_node{};                    ///< What it holds on each node.
  std::vector<std::size_t> nodes;  ///< Which nodes (ids below the table's node_count()).

  /// The gang's start, span.begin.
  [[nodiscard]] T start() const noexcept { return span.begin; }

  /// Equal when span, amount and node list (in order) are equal.
  friend bool operator==(const placement&, const placement&) = default;

  /// Writes `placement{[b, e), amount on nodes [i, j, ...]}`.
  friend std::ostream& operator<<(std::ostream& out, const placement& p) {
    out << "placement{" << p.span << ", " << p.per_node << " on nodes [";
    for (std::size_t i = 0; i < p.nodes.size(); ++i) out << (i == 0 ? "" : ", ") << p.nodes[i];
    return out << "]}";
  }
};

/// The default node preference: none, so earliest_fit picks the lowest node ids.
struct no_preference {
  /// The same key, 0, for every node.
  [[nodiscard]] constexpr int operator()(std::size_t /*node*/) const noexcept { return 0; }
};

/// How nodes are picked among equals, by the slot table's gang placement and by the lease
/// scheduler's node choice alike: keeps the `count` of `candidates` (given in increasing id
/// order, at least `count` of them) with the smallest key(node), asked once per candidate,
/// ties by node id, and leaves them in increasing id order.
template <class Key>
void keep_preferred(std::vector<std::size_t>& candidates, std::size_t count, Key&& key) {
  using key_type = std::decay_t<std::invoke_result_t<Key&, std::size_t>>;
  std::vector<std::pair<key_type, std::size_t>> keyed;
  keyed.reserve(candidates.size());
  for (std::size_t node : candidates) keyed.emplace_back(key(node), node);
  // Stable: equal keys keep the increasing id order they came in.
  std::ranges::stable_sort(keyed, [](const auto& a, const auto& b) { return a.first < b.first; });
  candidates.clear();
  for (std::size_t i = 0; i < count; ++i) candidates.push_back(keyed[i].second);
  std::ranges::sort(candidates);
}

}  // namespace leasehold::cluster
