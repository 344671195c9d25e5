#pragma once

/// \file
/// leasehold::journal: the strong guarantee ("if it throws, the structure is unchanged") for a
/// call that makes many changes, built once. While a transaction is open, every change made
/// through the journal records how to take it back; commit() forgets the records, rollback()
/// undoes them newest first, in place. A call then costs what it changes, whatever the object
/// holds: the alternative, copying the object before each call, costs what it has accumulated.
///
/// The protocol of every change, so that undoing never throws and never allocates:
///   1. the record is allocated and room is made for it (this may throw: nothing has changed);
///   2. the change is made (it must have the strong guarantee on its own);
///   3. the record is appended (cannot throw: the room is there).
/// A record keeps what it needs to undo its change without the heap: the old value moved out
/// (assign), a copy taken before the change (save, save_entry), where an element was added
/// (emplace), a container node extracted whole (erase), or the inverse booking on a
/// nothrow_rollback_availability, which each such backend makes without throwing once every
/// later change is undone. A backend without that property (capacity_tree) cannot be undone in
/// place: its first booking after begin() or after the latest mark() saves a copy of the
/// profile, put back whole on rollback. The profile forgets its past (advance_to), so the copy
/// costs what it holds now, not its history.
///
/// Savepoints: mark() names the present point of the open transaction and rollback_to(mark)
/// undoes the changes made since, leaving the transaction open: a call that tries something and
/// takes it back (a reschedule that does not fit) reuses the records it already has. Marks nest:
/// rolling back to an older mark undoes the newer ones' changes too.
///
/// When no transaction is open the changes are made directly and nothing is recorded, so one
/// code path serves callers that want the guarantee and callers that turned it off.
///
/// Records point into the object whose members they change: that object must not be moved or
/// copied while its transaction is open. A copied journal is a new, closed one.

#include <algorithm>
#include <cstddef>
#include <iterator>
#include <memory>
#include <new>
#include <optional>
#include <type_traits>
#include <utility>
#include <vector>

#include "leasehold/availability/concept.hpp"
#include "leasehold/core/error.hpp"
#include "leasehold/core/time.hpp"

namespace leasehold {

/// A record of the changes made in one transaction, to take them back newest first (see the
/// file's description for the protocol).
class journal {
 public:
  /// A closed journal with nothing recorded.
  journal() = default;
  /// A copy is a new, closed journal: records belong to the object they were made for.
  journal(const journal& /*other*/) noexcept {}
  /// Closes this journal and forgets its records (as a copy, it takes none of `other`'s).
  journal& operator=(const journal& other) noexcept {
    if (this != &other) reset();
    return *this;
  }
  /// Takes the records along (only while no transaction is open, see the file's description).
  journal(journal&&) noexcept = default;
  /// As the move constructor.
  journal& operator=(journal&&) noexcept = default;
  ~journal() = default;

  /// Whether a transaction is open.
  [[nodiscard]] bool active() const noexcept { return active_; }
  /// The number of changes recorded in the open transaction.
  [[nodiscard]] std::size_t size() const noexcept { return records_.size(); }

  /// Opens a transaction. Throws invariant_violation if one is already open (transactions do
  /// not nest: a call made from inside another joins the outer one by not opening its own).
  void begin() {
    if (active_) throw invariant_violation("journal: a transaction is already open");
    records_.clear();
    active_ = true;
  }
  /// A savepoint: the point of the open transaction reached so far, for rollback_to(). Throws
  /// invariant_violation when no transaction is open (then nothing is recorded to go back to).
  [[nodiscard]] std::size_t mark() {
    if (!active_) throw invariant_violation("journal: mark() needs an open transaction");
    floor_ = records_.size();
    return floor_;
  }
  /// Undoes the changes recorded after `savepoint` (from mark()), newest first; the transaction
  /// stays open and the changes made before it stay. A savepoint beyond the records (one whose
  /// changes an older rollback_to already undid) undoes nothing.
  void rollback_to(std::size_t savepoint) noexcept {
    for (std::size_t k = records_.size(); k > savepoint; --k) {
      records_[k - 1].undo();
      records_.pop_back();
    }
    floor_ = std::min(floor_, records_.size());
    if (snapshot_of_ != nullptr && snapshot_at_ >= records_.size()) snapshot_of_ = nullptr;
  }
  /// The transaction succeeded: forget how to undo it.
  void commit() noexcept { reset(); }
  /// Runs `body()` as one transaction: opened, committed when it returns, rolled back when it
  /// throws (the exception goes on). Returns what it returns. The usual shape of a public
  /// mutating call that keeps the strong guarantee with this journal.
  template <class Body>
  decltype(auto) transaction(Body&& body) {
    begin();
    try {
      if constexpr (std::is_void_v<std::invoke_result_t<Body&&>>) {
        std::forward<Body>(body)();
        commit();
      } else {
        decltype(auto) result = std::forward<Body>(body)();
        commit();
        return result;
      }
    } catch (...) {
      rollback();
      throw;
    }
  }
  /// Undoes every change of the open transaction, newest first, and closes it.
  void rollback() noexcept {
    for (std::size_t k = records_.size(); k > 0; --k) records_[k - 1].undo();
    reset();
  }

  // ---- the changes -------------------------------------------------------------------------

  /// Makes `change()` (which must have the strong guarantee) and, in a transaction, records
  /// `undo` (noexcept; it runs on rollback after every later change has been undone).
  template <class Change, class Undo>
  decltype(auto) apply(Change&& change, Undo undo) {
    static_assert(std::is_nothrow_invocable_v<Undo&>, "journal: an undo must be noexcept");
    if (!active_) return std::forward<Change>(change)();
    auto record = make_record(std::move(undo));
    if constexpr (std::is_void_v<decltype(std::forward<Change>(change)())>) {
      std::forward<Change>(change)();
      records_.push_back(std::move(record));
    } else {
      decltype(auto) result = std::forward<Change>(change)();
      records_.push_back(std::move(record));
      return result;
    }
  }

  /// Replaces `object` by `value`; the old value is moved into the record, not copied.
  template <class T, class U>
  void assign(T& object, U&& value) {
    static_assert(std::is_nothrow_move_constructible_v<T> && std::is_nothrow_move_assignable_v<T>,
                  "journal::assign needs a noexcept move");
    if (!active_) {
      object = std::forward<U>(value);
      return;
    }
    T replacement(std::forward<U>(value));
    auto record = make_record(undo_assign<T>{&object, std::nullopt});
    record.template get<undo_assign<T>>().old.emplace(std::move(object));
    object = std::move(replacement);
    records_.push_back(std::move(record));
  }

  /// Saves a copy of `object` before the caller changes it; rollback moves the copy back.
  template <class T>
  void save(T& object) {
    static_assert(std::is_nothrow_move_assignable_v<T>, "journal::save needs a noexcept move");
    if (!active_) return;
    auto record = make_record(undo_assign<T>{&object, std::optional<T>(object)});
    records_.push_back(std::move(record));
  }

  /// Saves the entry of `key` in an associative container (map or set) before the caller
  /// changes, adds or erases it: rollback puts the saved entry back (or erases the key when it
  /// was absent). The copy is made into a node of its own, so putting it back allocates nothing.
  template <class Map>
  void save_entry(Map& map, const typename Map::key_type& key) {
    if (!active_) return;
    typename Map::node_type saved;
    if (const auto it = map.find(key); it != map.end()) {
      Map holder;
      holder.insert(*it);
      saved = holder.extract(holder.begin());
    }
    auto record = make_record(undo_entry<Map>{&map, key, std::move(saved)});
    records_.push_back(std::move(record));
  }

  /// Erases `it` from an associative container; the node is kept whole in the record and put
  /// back on rollback. Returns the iterator after it.
  template <class Map>
  typename Map::iterator erase(Map& map, typename Map::iterator it) {
    if (!active_) return map.erase(it);
    auto record = make_record(undo_erase<Map>{&map, {}});
    const auto next = std::next(it);
    record.template get<undo_erase<Map>>().node = map.extract(it);
    records_.push_back(std::move(record));
    return next;
  }
  /// Erases `key` if present; as erase(map, it).
  template <class Map>
  void erase_key(Map& map, const typename Map::key_type& key) {
    if (const auto it = map.find(key); it != map.end()) (void)erase(map, it);
  }

  /// Emplaces into a container whose iterators stay valid until their element is erased
  /// (std::map, set, multimap, multiset, list); rollback erases the new element again. Returns
  /// what the container's emplace returns. For an unordered container, whose iterators a
  /// rehash invalidates, use save_entry before the change instead.
  template <class Container, class... Args>
  auto emplace(Container& c, Args&&... args) {
    if (!active_) return c.emplace(std::forward<Args>(args)...);
    auto record = make_record(undo_emplace<Container>{&c, std::nullopt});
    auto result = c.emplace(std::forward<Args>(args)...);
    auto& undo = record.template get<undo_emplace<Container>>();
    if constexpr (requires { result.second; }) {
      if (!result.second) return result;  // nothing was added: nothing to undo
      undo.added = result.first;
    } else {
      undo.added = result;
    }
    records_.push_back(std::move(record));
    return result;
  }

  /// Appends to a vector; rollback removes it again (keeping the capacity).
  template <class Vector, class U>
  void push_back(Vector& v, U&& value) {
    if (!active_) {
      v.push_back(std::forward<U>(value));
      return;
    }
    auto record = make_record(undo_push<Vector>{&v});
    v.push_back(std::forward<U>(value));
    records_.push_back(std::move(record));
  }

  /// Books `amount` over `span`. On a nothrow_rollback backend rollback releases it again, in
  /// place; on any other backend the first booking since begin() or the latest mark() saves a
  /// copy of the profile, put back on rollback (see the file's description).
  template <availability A>
  void reserve(A& profile, interval<typename A::time_type> span,
               const typename A::capacity_type& amount) {
    change_booking(profile, span, amount, true);
  }
  /// Releases `amount` over `span`; rollback books it again (as reserve()).
  template <availability A>
  void release(A& profile, interval<typename A::time_type> span,
               const typename A::capacity_type& amount) {
    change_booking(profile, span, amount, false);
  }

 private:
  // reserve() (booking) or release(): undone by the opposite change in place, or by the copy
  // of the profile saved before the first booking since begin() or the latest mark().
  template <availability A>
  void change_booking(A& profile, interval<typename A::time_type> span,
                      const typename A::capacity_type& amount, bool booking) {
    if constexpr (nothrow_rollback_availability<A>) {
      // Only the undo outlives this call, so only it keeps a copy of the amount (a vector
      // capacity allocates).
      apply([&] { book_or_release(profile, span, amount, booking); },
            [&profile, span, amount, booking]() noexcept {
              book_or_release(profile, span, amount, !booking);
            });
    } else {
      save_profile(profile);
      // A backend's own strong guarantee covers a throw here.
      book_or_release(profile, span, amount, booking);
    }
  }
  template <availability A>
  static void book_or_release(A& profile, interval<typename A::time_type> span,
                              const typename A::capacity_type& amount, bool book) {
    if (book)
      profile.reserve(span, amount);
    else
      profile.release(span, amount);
  }

  // One recorded change: its undo, type-erased. An undo that fits in a few words and moves
  // without throwing (an inverse booking, a saved small value, an extracted map node) is kept
  // inside the record, so recording it allocates nothing beyond the records' own vector (whose
  // room is made before each change); a larger one lives on the heap, allocated before the
  // change like the room.
  class undo_record {
   public:
    template <class Undo>
    static undo_record of(Undo undo) {
      undo_record r;
      if constexpr (fits_inline<Undo>) {
        ::new (static_cast<void*>(r.storage_)) Undo(std::move(undo));
        r.ops_ = &inline_ops<Undo>;
      } else {
        Undo* held = new Undo(std::move(undo));
        ::new (static_cast<void*>(r.storage_)) Undo*(held);
        r.ops_ = &heap_ops<Undo>;
      }
      return r;
    }
    undo_record(undo_record&& other) noexcept : ops_(std::exchange(other.ops_, nullptr)) {
      if (ops_ != nullptr) ops_->relocate(other.storage_, storage_);
    }
    undo_record& operator=(undo_record&&) = delete;
    undo_record(const undo_record&) = delete;
    undo_record& operator=(const undo_record&) = delete;
    ~undo_record() {
      if (ops_ != nullptr) ops_->destroy(storage_);
    }

    template <class Undo>
    [[nodiscard]] Undo& get() noexcept {
      if constexpr (fits_inline<Undo>)
        return *std::launder(reinterpret_cast<Undo*>(storage_));
      else
        return **std::launder(reinterpret_cast<Undo**>(storage_));
    }
    void undo() noexcept { ops_->undo(storage_); }

   private:
    static constexpr std::size_t inline_size = 8 * sizeof(void*);
    template <class Undo>
    static constexpr bool fits_inline =
        sizeof(Undo) <= inline_size &&
        alignof(Undo) <= alignof(std::max_align_t) && std::is_nothrow_move_constructible_v<Undo>;
    struct operations {
      void (*undo)(void*) noexcept;
      void (*relocate)(void* from, void* to) noexcept;  // move-constructs at `to`, ends `from`
      void (*destroy)(void*) noexcept;
    };
    template <class Undo>
    static constexpr operations inline_ops{
        [](void* p) noexcept { (*static_cast<Undo*>(p))(); },
        [](void* from, void* to) noexcept {
          Undo* source = static_cast<Undo*>(from);
          ::new (to) Undo(std::move(*source));
          source->~Undo();
        },
        [](void* p) noexcept { static_cast<Undo*>(p)->~Undo(); }};
    template <class Undo>
    static constexpr operations heap_ops{
        [](void* p) noexcept { (**static_cast<Undo**>(p))(); },
        [](void* from, void* to) noexcept { ::new (to) Undo*(*static_cast<Undo**>(from)); },
        [](void* p) noexcept { delete *static_cast<Undo**>(p); }};

    undo_record() = default;
    const operations* ops_ = nullptr;
    alignas(std::max_align_t) unsigned char storage_[inline_size];
  };

  template <class T>
  struct undo_assign {
    T* object;
    std::optional<T> old;
    void operator()() noexcept { *object = std::move(*old); }
  };
  template <class Map>
  struct undo_entry {
    Map* map;
    typename Map::key_type key;
    typename Map::node_type saved;
    void operator()() noexcept {
      map->erase(key);
      if (!saved.empty()) map->insert(std::move(saved));
    }
  };
  template <class Map>
  struct undo_erase {
    Map* map;
    typename Map::node_type node;
    void operator()() noexcept {
      if (!node.empty()) map->insert(std::move(node));
    }
  };
  template <class Container>
  struct undo_emplace {
    Container* c;
    std::optional<typename Container::iterator> added;
    void operator()() noexcept { c->erase(*added); }
  };
  template <class Vector>
  struct undo_push {
    Vector* v;
    void operator()() noexcept { v->pop_back(); }
  };

  // Step 1 of the protocol: the record exists and there is room to append it.
  template <class Undo>
  undo_record make_record(Undo undo) {
    static_assert(std::is_nothrow_invocable_v<Undo&>, "journal: an undo must be noexcept");
    undo_record r = undo_record::of(std::move(undo));
    reserve_one();
    return r;
  }
  void reserve_one() {
    if (records_.size() == records_.capacity()) records_.reserve(2 * records_.capacity() + 16);
  }
  void reset() noexcept {
    records_.clear();
    active_ = false;
    floor_ = 0;
    snapshot_of_ = nullptr;
  }

  // A profile that cannot undo a booking in place is copied once per savepoint: a copy taken at
  // or after the latest mark restores it for every rollback, to that mark or an older one.
  template <class A>
  void save_profile(A& profile) {
    static_assert(std::is_nothrow_move_assignable_v<A>,
                  "journal: a backend without nothrow_rollback needs a noexcept move assignment");
    if (!active_) return;
    if (snapshot_of_ == &profile && snapshot_at_ >= floor_) return;
    auto record = make_record(undo_assign<A>{&profile, std::optional<A>(profile)});
    snapshot_at_ = records_.size();
    records_.push_back(std::move(record));
    snapshot_of_ = &profile;
  }

  bool active_ = false;
  std::vector<undo_record> records_;
  std::size_t floor_ = 0;              // the latest mark (0: the transaction's start)
  const void* snapshot_of_ = nullptr;  // the profile copied last, if its copy is still recorded
  std::size_t snapshot_at_ = 0;        // and the copy's record
};

}  // namespace leasehold
