#pragma once

// The lease scheduler's transactions (the strong guarantee of DESIGN.md: "if it throws, the
// structure is unchanged") as an undo log. Every change a call makes to the scheduler's
// state goes through this class, which records how to take it back; a call that throws
// replays the log backwards. A call therefore costs what it changes, not what the scheduler
// holds: copying the whole state per call made a call O(history).
//
// The protocol of every change, so that undoing never allocates:
//   1. make room for its log entry (this may throw; nothing has changed yet);
//   2. make the change (each change has the strong guarantee on its own);
//   3. append the entry (cannot throw: the room is there).
// Undo entries take nothing from the heap:
//  - a set element erased is kept as its node handle and put back as that node;
//  - a vector element erased is put back at its position (erasing keeps the capacity);
//  - a slot-table booking is undone by the inverse change, which a nothrow_rollback backend
//    makes without allocating once every later change is undone (cluster::slot_table);
//  - a lease record is copied before its first change in the call and moved back;
//  - a retired record (moved to the finished list with its map node) is moved back.

#include <cstddef>
#include <cstdint>
#include <map>
#include <set>
#include <span>
#include <tuple>
#include <unordered_set>
#include <utility>
#include <variant>
#include <vector>

#include "leasehold/core/time.hpp"

// GCC 12 with optimisation and sanitizers reports -Wmaybe-uninitialized inside std::variant's
// move of a std::set node handle (the allocator slot of an empty handle, which it never reads):
// a false positive, silenced for this header only.
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#endif

namespace leasehold::policy::lease::detail {

template <class Table, class Record>
class undo_log {
 public:
  using time_type = typename Table::time_type;
  using capacity_type = typename Table::capacity_type;
  using placement_type = typename Table::placement_type;
  using queue_set = std::set<std::pair<time_type, std::uint64_t>>;
  using event = std::tuple<time_type, int, std::uint64_t>;
  using event_set = std::set<event>;
  using id_set = std::set<std::uint64_t>;
  using lease_map = std::map<std::uint64_t, Record>;
  using node_lists = std::vector<std::vector<std::uint64_t>>;

  // The containers a log changes and restores; the scheduler hands them in per call, so the
  // log holds no pointers into a scheduler that may be moved.
  struct state {
    Table& table;
    queue_set& queue;
    event_set& events;
    id_set& reserved;
    node_lists& on_node;
    lease_map& leases;
    std::vector<Record>& finished;
  };

  // Whether bookings can be undone in place (cluster::slot_table::undo_reserve); otherwise
  // the scheduler copies the table per call and books directly.
  static constexpr bool logs_table =
      requires(Table & t, interval<time_type> span, const capacity_type& c,
               std::span<const std::size_t> nodes) {
    t.undo_reserve(span, c, nodes);
  };

  [[nodiscard]] bool active() const noexcept { return active_; }
  // From now on changes are recorded. Keeps the capacity of earlier calls.
  void begin() noexcept {
    active_ = true;
    entries_.clear();
    nodes_.clear();
    saved_.clear();
    saved_ids_.clear();
  }
  // The call succeeded: forget how to undo it.
  void commit() noexcept {
    active_ = false;
    entries_.clear();
    nodes_.clear();
    saved_.clear();
    saved_ids_.clear();
  }

  // ---- the changes -----------------------------------------------------------------------

  void reserve(Table& table, const placement_type& p) requires logs_table {
    make_room(p.nodes.size());
    table.reserve(p);
    record_booking(kind::table_reserve, p);
  }
  void release(Table& table, const placement_type& p) requires logs_table {
    make_room(p.nodes.size());
    table.release(p);
    record_booking(kind::table_release, p);
  }

  void insert(queue_set& queue, std::pair<time_type, std::uint64_t> key) {
    make_room();
    if (queue.insert(key).second)
      append({.what = kind::queue_insert, .at = key.first, .id = key.second});
  }
  void erase(queue_set& queue, std::pair<time_type, std::uint64_t> key) {
    make_room();
    auto handle = queue.extract(key);
    if (handle) append({.what = kind::queue_erase, .handle = std::move(handle)});
  }
  void insert(event_set& events, const event& e) {
    make_room();
    if (events.insert(e).second)
      append({.what = kind::event_insert,
              .at = std::get<0>(e),
              .order = std::get<1>(e),
              .id = std::get<2>(e)});
  }
  void erase(event_set& events, const event& e) {
    make_room();
    auto handle = events.extract(e);
    if (handle) append({.what = kind::event_erase, .handle = std::move(handle)});
  }
  void insert(id_set& ids, std::uint64_t id) {
    make_room();
    if (ids.insert(id).second) append({.what = kind::reserved_insert, .id = id});
  }
  void erase(id_set& ids, std::uint64_t id) {
    make_room();
    auto handle = ids.extract(id);
    if (handle) append({.what = kind::reserved_erase, .handle = std::move(handle)});
  }
  void push(node_lists& on_node, std::size_t node, std::uint64_t id) {
    make_room();
    on_node[node].push_back(id);
    append({.what = kind::on_node_push, .node = node});
  }
  void erase(node_lists& on_node, std::size_t node, std::uint64_t id) {
    auto& ids = on_node[node];
    for (std::size_t k = 0; k < ids.size(); ++k) {
      if (ids[k] != id) continue;
      make_room();
      ids.erase(ids.begin() + static_cast<std::ptrdiff_t>(k));
      append({.what = kind::on_node_erase, .id = id, .node = node, .position = k});
      return;
    }
  }

  // A new lease record; returns it.
  Record& add(lease_map& leases, std::uint64_t id, Record record) {
    make_room();
    Record& added = leases.emplace(id, std::move(record)).first->second;
    append({.what = kind::lease_insert, .id = id});
    return added;
  }
  // Moves a finished lease's record out of the live map onto `finished`.
  void retire(lease_map& leases, std::vector<Record>& finished, std::uint64_t id) {
    make_room();
    grow(finished);
    auto handle = leases.extract(id);
    if (!handle) return;
    finished.push_back(std::move(handle.mapped()));
    append({.what = kind::lease_retire, .handle = std::move(handle)});
  }

  // Call before changing a lease record: its first change in a call saves a copy.
  void save(const Record& record) {
    if (!active_) return;
    const std::uint64_t id = record.terms.id;
    if (saved_ids_.contains(id)) return;
    grow(saved_);
    Record copy = record;
    saved_ids_.insert(id);
    saved_.emplace_back(id, std::move(copy));
  }

  // Takes back every change of the call, newest first.
  void rollback(state s) noexcept {
    for (std::size_t k = entries_.size(); k > 0; --k) undo(s, entries_[k - 1]);
    for (auto& [id, record] : saved_) {
      const auto it = s.leases.find(id);
      if (it != s.leases.end()) it->second = std::move(record);
    }
    commit();
  }

  // Memory held for logging (entries, node ids, saved records), for the benchmarks.
  [[nodiscard]] std::size_t capacity() const noexcept { return entries_.capacity(); }

 private:
  enum class kind : unsigned char {
    table_reserve,
    table_release,
    queue_insert,
    queue_erase,
    event_insert,
    event_erase,
    reserved_insert,
    reserved_erase,
    on_node_push,
    on_node_erase,
    lease_insert,
    lease_retire,
  };
  using handle_type =
      std::variant<std::monostate, typename queue_set::node_type, typename event_set::node_type,
                   typename id_set::node_type, typename lease_map::node_type>;
  struct entry {
    kind what{};
    time_type at{};
    int order = 0;
    std::uint64_t id = 0;
    std::size_t node = 0;      // on_node ops; table ops: first index into nodes_
    std::size_t position = 0;  // on_node_erase; table ops: node count
    interval<time_type> span{};
    capacity_type per_node{};
    handle_type handle{};
  };

  // Room for one more element, growing geometrically (reserve(size + 1) would reallocate on
  // every call).
  template <class Vector>
  static void grow(Vector& v) {
    if (v.size() == v.capacity()) v.reserve(2 * v.capacity() + 16);
  }

  void make_room(std::size_t node_ids = 0) {
    if (!active_) return;
    if (entries_.size() == entries_.capacity()) entries_.reserve(2 * entries_.capacity() + 64);
    if (nodes_.capacity() - nodes_.size() < node_ids)
      nodes_.reserve(2 * nodes_.capacity() + node_ids + 64);
  }
  void append(entry e) noexcept {
    if (active_) entries_.push_back(std::move(e));
  }
  void record_booking(kind what, const placement_type& p) noexcept {
    if (!active_) return;
    const std::size_t first = nodes_.size();
    nodes_.insert(nodes_.end(), p.nodes.begin(), p.nodes.end());
    append({.what = what,
            .node = first,
            .position = p.nodes.size(),
            .span = p.span,
            .per_node = p.per_node});
  }

  void undo(state& s, entry& e) noexcept {
    const std::span<const std::size_t> booked(nodes_.data() + e.node, e.position);
    switch (e.what) {
      case kind::table_reserve:
        if constexpr (logs_table) s.table.undo_reserve(e.span, e.per_node, booked);
        break;
      case kind::table_release:
        if constexpr (logs_table) s.table.undo_release(e.span, e.per_node, booked);
        break;
      case kind::queue_insert:
        s.queue.erase({e.at, e.id});
        break;
      case kind::queue_erase:
        s.queue.insert(std::move(std::get<typename queue_set::node_type>(e.handle)));
        break;
      case kind::event_insert:
        s.events.erase({e.at, e.order, e.id});
        break;
      case kind::event_erase:
        s.events.insert(std::move(std::get<typename event_set::node_type>(e.handle)));
        break;
      case kind::reserved_insert:
        s.reserved.erase(e.id);
        break;
      case kind::reserved_erase:
        s.reserved.insert(std::move(std::get<typename id_set::node_type>(e.handle)));
        break;
      case kind::on_node_push:
        s.on_node[e.node].pop_back();
        break;
      case kind::on_node_erase: {
        auto& ids = s.on_node[e.node];
        ids.insert(ids.begin() + static_cast<std::ptrdiff_t>(e.position), e.id);
        break;
      }
      case kind::lease_insert:
        s.leases.erase(e.id);
        break;
      case kind::lease_retire: {
        auto& handle = std::get<typename lease_map::node_type>(e.handle);
        handle.mapped() = std::move(s.finished.back());
        s.finished.pop_back();
        s.leases.insert(std::move(handle));
        break;
      }
    }
  }

  bool active_ = false;
  std::vector<entry> entries_;
  std::vector<std::size_t> nodes_;  // the nodes of logged bookings, back to back
  std::vector<std::pair<std::uint64_t, Record>> saved_;
  std::unordered_set<std::uint64_t> saved_ids_;
};

}  // namespace leasehold::policy::lease::detail

#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic pop
#endif
