#pragma once

// The strong guarantee of DESIGN.md ("if it throws, the structure is unchanged") for the lease
// scheduler's public calls, and the retirement of finished leases at the end of each call.
//
// Every public mutating call (submit, withdraw, release, advance_to) runs as a transaction
// (unless config().strong_guarantee is off): each change it makes to the slot table, the
// queue, the reservations, the events, the bookings per node and the lease records goes
// through an undo log (undo_log.hpp) and is taken back, newest first, if the call
// throws (std::bad_alloc, a Preparation's exception, an internal invariant). Undoing never
// allocates, so a call costs what it changes, however long the scheduler has run. The slot
// table's clock is moved only when the call has succeeded (a profile forgets the past for
// good; until then every query begins at now_, which the table's older origin does not
// change). A Preparation with state takes its own changes back when it journals them
// (transactional_preparation: image_staging does, through availability/journal.hpp); one that
// does not is copied whole before the call. The slot table is copied whole for backends that
// cannot undo a booking in place or that hold a fixed horizon (slotted_ring: a lagging origin
// would shorten it). The observer hears of the call's events only once it has succeeded.
// tests/fault/ checks the guarantee by failing every allocation of every call in turn.

#include <cstdint>
#include <optional>
#include <type_traits>
#include <utility>

#include "leasehold/policy/lease/detail/deferred_events.hpp"
#include "leasehold/policy/lease/detail/event_clock.hpp"
#include "leasehold/policy/lease/observer.hpp"

namespace leasehold::policy::lease::detail {

template <class Base>
class transactions : public Base {
 public:
  using typename Base::table_type;
  using typename Base::time_type;

 protected:
  using Base::Base;
  using typename Base::preparation_type;

  // Every public call enters here once (a call made from inside another, such as submit's
  // advance_to, runs directly): as a transaction when the guarantee is on, and retiring the
  // leases it finished before it returns.
  template <class Body>
  decltype(auto) outermost(Body body) {
    struct leave {
      bool& flag;
      ~leave() { flag = false; }
    } guard{this->in_call_};
    this->in_call_ = true;
    this->retiring_.clear();
    // Transfers starting at the call's final instant are announced (and so fixed) as it ends.
    auto whole = [&]() -> decltype(auto) {
      if constexpr (std::is_void_v<decltype(body())>) {
        body();
        this->report_transfers(this->now_);
        retire();
      } else {
        auto result = body();
        this->report_transfers(this->now_);
        retire();
        return result;
      }
    };
    if (this->config_.strong_guarantee) return transaction(whole);
    return whole();
  }

  void retire() {
    for (const std::uint64_t id : this->retiring_)
      this->log_.retire(this->leases_, this->finished_, id);
    this->retiring_.clear();
    // The observer has heard of every transfer's end by now (report_transfers).
    if constexpr (Base::template prep_offers<preparation_feature::take_finished>)
      if (this->config_.retire_finished) (void)this->prep_.take_finished_transfers();
  }

  template <class Body>
  decltype(auto) transaction(Body body) {
    static_assert(std::is_nothrow_move_constructible_v<preparation_type> &&
                      std::is_nothrow_move_assignable_v<preparation_type>,
                  "lease_scheduler: the Preparation must be nothrow movable, so that a failed "
                  "call can be rolled back");
    // The copies below may throw; nothing has changed yet.
    std::optional<table_type> table;
    if constexpr (!Base::undoes_bookings) table.emplace(this->table_);
    std::optional<preparation_type> prep;
    if constexpr (Base::saves_preparation) prep.emplace(this->prep_);
    if constexpr (Base::journals_preparation) this->prep_.begin_transaction();
    const time_type now = this->now_;
    detail::deferred_events<time_type> deferred;
    lease_observer<time_type>* const observer = this->observer_;
    this->observer_ = &deferred;
    this->in_transaction_ = true;
    this->log_.begin();
    const auto restore = [&]() noexcept {
      this->log_.rollback({this->table_, this->queue_, this->events_, this->reserved_,
                           this->on_node_, this->leases_, this->finished_});
      if constexpr (!Base::undoes_bookings) {
        using std::swap;
        swap(this->table_, *table);
      }
      if constexpr (Base::saves_preparation) {
        using std::swap;
        swap(this->prep_, *prep);
      }
      if constexpr (Base::journals_preparation) this->prep_.rollback_transaction();
      this->now_ = now;
    };
    const auto finish = [&] {
      if constexpr (Base::journals_preparation) this->prep_.commit_transaction();
      this->observer_ = observer;
      this->in_transaction_ = false;
      this->log_.commit();
    };
    // The table's clock, last: it cannot fail for a nothrow_rollback backend (now_ >= its
    // origin), and would leave the table as it was for any other.
    const auto catch_up = [&] {
      if constexpr (Base::undoes_bookings)
        if (this->table_.origin() < this->now_) this->table_.advance_to(this->now_);
    };
    try {
      if constexpr (std::is_void_v<decltype(body())>) {
        body();
        catch_up();
        finish();
        if (this->observer_ != nullptr) deferred.replay(*this->observer_);
      } else {
        auto result = body();
        catch_up();
        finish();
        if (this->observer_ != nullptr) deferred.replay(*this->observer_);
        return result;
      }
    } catch (...) {
      if (this->in_transaction_) {  // thrown by the call, not by the observer after it succeeded
        restore();
        this->observer_ = observer;
        this->in_transaction_ = false;
      }
      throw;
    }
  }
};

// The lease scheduler's layers, each a mixin over the one below it (docs/leases.md): the
// state, the checks of what a lease may be, admission of reservations, best-effort planning, the
// clock, the transactions. A layer takes the layer below as its only parameter, so it names no
// other layer and reaches the lease_book's types and policies (preparation_type, queue_order_type)
// through it.
template <class A, class Preparation, class QueueOrder, class NodeChoice>
using lease_layers = transactions<event_clock<best_effort_planning<
    reservation_admission<lease_checks<lease_book<A, Preparation, QueueOrder, NodeChoice>>>>>>;

}  // namespace leasehold::policy::lease::detail
