#pragma once

// The lease book's changes (lease_book.hpp), each recorded in the one journal of the library
// (availability/journal.hpp) so that a call that throws is taken back, newest first, in place
// (transactions.hpp). This class only names the book's kinds of change in the journal's terms:
//
//  - a set element inserted is erased again; one erased is kept as its node and put back;
//  - a lease id pushed onto a node's list is popped; one erased is put back at its position
//    (erasing keeps the capacity, so putting back does not allocate);
//  - a slot-table booking is undone by the table's inverse change, which a nothrow_rollback
//    backend makes without throwing once every later change is undone (cluster::slot_table);
//  - a lease record is copied before its first change in the call and the copy moved back;
//  - a new record is erased again; a retired one (moved to the finished list with its map
//    node) is moved back.
//
// Outside a transaction every change is made directly and nothing is recorded.

#include <cstddef>
#include <cstdint>
#include <map>
#include <memory>
#include <set>
#include <span>
#include <unordered_set>
#include <utility>
#include <vector>

#include "leasehold/availability/journal.hpp"
#include "leasehold/core/time.hpp"

namespace leasehold::policy::lease::detail {

template <class Table, class Record>
class lease_journal {
 public:
  using time_type = typename Table::time_type;
  using capacity_type = typename Table::capacity_type;
  using placement_type = typename Table::placement_type;
  using lease_map = std::map<std::uint64_t, Record>;

  // Whether bookings can be undone in place (cluster::slot_table::undo_reserve); otherwise
  // the book copies the table per call and books directly.
  static constexpr bool logs_table =
      requires(Table & t, interval<time_type> span, const capacity_type& c,
               std::span<const std::size_t> nodes) {
    t.undo_reserve(span, c, nodes);
  };

  [[nodiscard]] bool active() const noexcept { return journal_.active(); }
  // From now on changes are recorded.
  void begin() {
    saved_ids_.clear();
    journal_.begin();
  }
  // The call succeeded: forget how to undo it.
  void commit() noexcept {
    journal_.commit();
    saved_ids_.clear();
  }
  // Takes back every change of the call, newest first.
  void rollback() noexcept {
    journal_.rollback();
    saved_ids_.clear();
  }

  // ---- the changes -----------------------------------------------------------------------

  void reserve(Table& table, const placement_type& p) requires logs_table {
    if (!journal_.active()) return table.reserve(p);
    journal_.apply([&] { table.reserve(p); },
                   [&table, span = p.span, per_node = p.per_node, nodes = p.nodes]() noexcept {
                     table.undo_reserve(span, per_node, nodes);
                   });
  }
  void release(Table& table, const placement_type& p) requires logs_table {
    if (!journal_.active()) return table.release(p);
    journal_.apply([&] { table.release(p); },
                   [&table, span = p.span, per_node = p.per_node, nodes = p.nodes]() noexcept {
                     table.undo_release(span, per_node, nodes);
                   });
  }

  template <class Set>
  void insert(Set& set, const typename Set::key_type& key) {
    if (set.contains(key)) return;
    journal_.apply([&] { set.insert(key); }, [&set, key]() noexcept { set.erase(key); });
  }
  template <class Set>
  void erase(Set& set, const typename Set::key_type& key) {
    journal_.erase_key(set, key);
  }

  void push(std::vector<std::uint64_t>& ids, std::uint64_t id) { journal_.push_back(ids, id); }
  void erase(std::vector<std::uint64_t>& ids, std::uint64_t id) {
    for (std::size_t k = 0; k < ids.size(); ++k) {
      if (ids[k] != id) continue;
      const auto at = static_cast<std::ptrdiff_t>(k);
      journal_.apply([&] { ids.erase(ids.begin() + at); },
                     [&ids, at, id]() noexcept { ids.insert(ids.begin() + at, id); });
      return;
    }
  }

  // A new lease record; returns it.
  Record& add(lease_map& leases, std::uint64_t id, Record record) {
    return journal_.apply(
        [&]() -> Record& { return leases.emplace(id, std::move(record)).first->second; },
        [&leases, id]() noexcept { leases.erase(id); });
  }
  // Moves a finished lease's record out of the live map onto `finished`.
  void retire(lease_map& leases, std::vector<Record>& finished, std::uint64_t id) {
    const auto it = leases.find(id);
    if (it == leases.end()) return;
    // Room first, so that the move below cannot throw (nor its undo).
    if (finished.size() == finished.capacity()) finished.reserve(2 * finished.capacity() + 16);
    if (!journal_.active()) {
      finished.push_back(std::move(it->second));
      leases.erase(it);
      return;
    }
    // The map node goes into the record, kept whole so that putting it back allocates nothing.
    auto held = std::make_unique<typename lease_map::node_type>();
    typename lease_map::node_type* const node = held.get();
    journal_.apply(
        [&] {
          *node = leases.extract(it);
          finished.push_back(std::move(node->mapped()));
        },
        [&leases, &finished, held = std::move(held)]() noexcept {
          held->mapped() = std::move(finished.back());
          finished.pop_back();
          leases.insert(std::move(*held));
        });
  }

  // Call before changing a lease record: its first change in a call saves a copy.
  void save(Record& record) {
    if (!journal_.active()) return;
    const std::uint64_t id = record.terms.id;
    if (saved_ids_.contains(id)) return;
    journal_.save(record);
    // Should this throw, the record is saved once more by its next change: undone newest
    // first, the older copy still wins.
    saved_ids_.insert(id);
  }

 private:
  journal journal_;
  std::unordered_set<std::uint64_t> saved_ids_;  // records saved in the open transaction
};

}  // namespace leasehold::policy::lease::detail
