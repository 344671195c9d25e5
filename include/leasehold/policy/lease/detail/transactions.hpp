#pragma once

// The strong guarantee of DESIGN.md ("if it throws, the structure is unchanged") for the lease
// scheduler's public calls: a call's body runs as a transaction over the lease book
// (lease_book.hpp), the one class that may open, commit and roll back the book's journal.
//
// Every change the body makes to the slot table, the queue, the reservations, the events, the
// bookings per node and the lease records is recorded in the book's journal (lease_journal.hpp
// over availability/journal.hpp, the strong guarantee built once for the library) and
// is taken back, newest first, if the call throws (std::bad_alloc, a Preparation's exception,
// an internal invariant). Undoing never allocates, so a call costs what it changes, however
// long the scheduler has run. The slot table's clock is moved only when the call has
// succeeded (a profile forgets the past for good; until then every query begins at the book's
// clock, which the table's older origin does not change). A Preparation with state takes its
// own changes back when it journals them (transactional_preparation: image_staging does,
// through availability/journal.hpp); one that does not is copied whole before the call. The
// slot table is copied whole for backends that cannot undo a booking in place or that hold a
// fixed horizon (slotted_ring: a lagging origin would shorten it). The observer hears of the
// call's events only once it has succeeded (deferred_events.hpp). tests/fault/ checks the
// guarantee by failing every allocation of every call in turn.

#include <optional>
#include <type_traits>
#include <utility>

#include "leasehold/policy/lease/detail/deferred_events.hpp"
#include "leasehold/policy/lease/observer.hpp"

namespace leasehold::policy::lease::detail {

template <class Book>
class transactions {
 public:
  // Runs `body` (which changes `book` only through its changes) as one transaction: either it
  // returns and every change stays, or it throws and `book` is as it was.
  template <class Body>
  static decltype(auto) run(Book& book, Body body) {
    using preparation_type = typename Book::preparation_type;
    using time_type = typename Book::time_type;
    static_assert(std::is_nothrow_move_constructible_v<preparation_type> &&
                      std::is_nothrow_move_assignable_v<preparation_type>,
                  "lease_scheduler: the Preparation must be nothrow movable, so that a failed "
                  "call can be rolled back");
    // The copies below may throw; nothing has changed yet.
    std::optional<typename Book::table_type> table;
    if constexpr (!Book::undoes_bookings) table.emplace(book.table_);
    std::optional<preparation_type> prep;
    if constexpr (Book::saves_preparation) prep.emplace(book.prep_);
    if constexpr (Book::journals_preparation) book.prep_.begin_transaction();
    const time_type now = book.now_;
    detail::deferred_events<time_type> deferred;
    lease_observer<time_type>* const observer = book.observer_;
    book.observer_ = &deferred;
    book.in_transaction_ = true;
    book.log_.begin();
    const auto restore = [&]() noexcept {
      book.log_.rollback();
      if constexpr (!Book::undoes_bookings) {
        using std::swap;
        swap(book.table_, *table);
      }
      if constexpr (Book::saves_preparation) {
        using std::swap;
        swap(book.prep_, *prep);
      }
      if constexpr (Book::journals_preparation) book.prep_.rollback_transaction();
      book.now_ = now;
    };
    const auto finish = [&] {
      if constexpr (Book::journals_preparation) book.prep_.commit_transaction();
      book.observer_ = observer;
      book.in_transaction_ = false;
      book.log_.commit();
    };
    // The table's clock, last: it cannot fail for a nothrow_rollback backend (the clock >= its
    // origin), and would leave the table as it was for any other.
    const auto catch_up = [&] {
      if constexpr (Book::undoes_bookings)
        if (book.table_.origin() < book.now_) book.table_.advance_to(book.now_);
    };
    try {
      if constexpr (std::is_void_v<decltype(body())>) {
        body();
        catch_up();
        finish();
        if (book.observer_ != nullptr) deferred.replay(*book.observer_);
      } else {
        auto result = body();
        catch_up();
        finish();
        if (book.observer_ != nullptr) deferred.replay(*book.observer_);
        return result;
      }
    } catch (...) {
      if (book.in_transaction_) {  // thrown by the call, not by the observer after it succeeded
        restore();
        book.observer_ = observer;
        book.in_transaction_ = false;
      }
      throw;
    }
  }
};

}  // namespace leasehold::policy::lease::detail
