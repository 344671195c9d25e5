#pragma once

/// \file
/// slotted_ring<T, C>: the slotted-time schedule of Schneider & Linnert §4 (after Burchard).
/// Time is cut into slots of a fixed width dt; the book-ahead horizon [origin, origin +
/// slots * dt) is an array of per-slot free capacity, used as a ring buffer so that moving the
/// origin forward recycles the slots that fall behind as fresh, fully free slots at the far end
/// without moving memory.
///
/// "If a reservation starts or ends within a time slot, the resource usage is counted for the
/// whole time slot" (§4): every span is rounded outward to [floor(b/dt)*dt, ceil(e/dt)*dt). That
/// is the internal fragmentation the paper measures; release rounds identically, so reserve then
/// release is exact. earliest_fit only answers slot-aligned starts.
///
/// Costs, with S slots, k slots in a span, dt the slot width: free_at O(1); min_free, reserve
/// and release O(k); earliest_fit O(slots scanned) as the slotted scan of §4 does (it cannot
/// skip an idle stretch without looking at every slot in it); advance_to O(min(slots moved,
/// S)); set_total O(S); blocks_from, blocks_in and next_change O(slots walked). Memory is S
/// capacities whatever the load; block_count() is S, the size of the array.

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <optional>
#include <type_traits>
#include <vector>

#include "leasehold/availability/detail/block_view.hpp"
#include "leasehold/availability/detail/profile_types.hpp"
#include "leasehold/availability/detail/resize.hpp"
#include "leasehold/core/detail/checked_arithmetic.hpp"
#include "leasehold/core/detail/checks.hpp"
#include "leasehold/core/error.hpp"

namespace leasehold {

/// Slotted time over a fixed book-ahead horizon in a ring buffer (Schneider & Linnert §4):
/// spans are rounded outward to whole slots, and time past the horizon throws out_of_horizon.
/// A model of leasehold::availability; see the file's description for every cost.
template <time_value T = std::int64_t, capacity_value C = std::int64_t>
class slotted_ring : public detail::profile_types<T, C> {
 public:
  /// Throws invalid_request for a non-positive total or slot width, no slots, an origin that
  /// is not a multiple of dt, or a horizon origin + slots * dt that does not fit in T.
  slotted_ring(C total, T dt, std::size_t slots, T origin = 0)
      : total_(total), dt_(dt), origin_(origin) {
    detail::check_total(total);
    if (dt <= 0)
      throw invalid_request(detail::describe("slotted_ring: slot width ", dt, " must be positive"));
    if (slots == 0) throw invalid_request("slotted_ring: needs at least one slot");
    if (origin % dt != 0)
      throw invalid_request(detail::describe("slotted_ring: origin ", origin,
                                             " is not a multiple of the slot width ", dt));
    if (!horizon_end_for(origin, slots))
      throw invalid_request(detail::describe("slotted_ring: origin ", origin, " + ", slots,
                                             " slots of width ", dt, " overflows the time type"));
    free_.assign(slots, total);
  }

  /// Nothing allocates after construction: advance_to throws only from its argument checks,
  /// and undoing a reserve or release that just succeeded never throws.
  static constexpr bool nothrow_rollback = true;

  /// The total capacity, what is free where nothing is booked.
  [[nodiscard]] C total() const noexcept { return total_; }
  /// The earliest time the profile holds; advance_to moves it forward.
  [[nodiscard]] T origin() const noexcept { return origin_; }
  /// dt, the width of one slot.
  [[nodiscard]] T slot_width() const noexcept { return dt_; }
  /// S, the number of slots of the ring: the horizon is S x dt from the origin.
  [[nodiscard]] std::size_t slot_count() const noexcept { return free_.size(); }
  /// The book-ahead horizon: the only time the ring holds.
  [[nodiscard]] interval<T> horizon() const noexcept { return {origin_, horizon_end()}; }

  /// The capacity free at t. Throws invalid_request for t before the origin; out_of_horizon past
  /// the horizon. O(1).
  [[nodiscard]] C free_at(T t) const {
    detail::check_time("free_at", t, origin_);
    if (t >= horizon_end())
      throw out_of_horizon(
          detail::describe("free_at(", t, "): beyond the horizon ", horizon(), " of the ring"));
    return free_[ring_index(slot_of(t))];
  }

  /// The least capacity free at any time of span, the most a booking over it could take.
  /// Throws invalid_request for an empty span or one beginning before the origin. O(k) for k slots.
  [[nodiscard]] C min_free(interval<T> span) const {
    detail::check_span("min_free", span, origin_);
    const slot_range slots = slots_in_horizon("min_free", span);
    C lowest = total_;
    for (std::size_t k = slots.first; k < slots.last; ++k)
      lowest = elementwise_min(lowest, free_[ring_index(k)]);
    return lowest;
  }

  /// The slotted scan of §4: walk the slots from the earliest admissible start, counting how
  /// many consecutive slots have the amount free, and restart after any slot that has not.
  /// Starts are slot-aligned; the booking covers ceil(duration / dt) slots; the horizon end
  /// bounds the window (a window ending at forever means "up to the horizon").
  [[nodiscard]] std::optional<T> earliest_fit(const request<T, C>& r) const {
    const auto slots = aligned_starts(r, "earliest_fit");
    if (!slots) return std::nullopt;
    const auto [first_slot, last_slot, needed] = *slots;
    std::size_t candidate = first_slot;
    std::size_t run = 0;
    for (std::size_t k = first_slot; candidate <= last_slot && k < free_.size(); ++k) {
      if (!fits(r.amount, free_[ring_index(k)])) {
        run = 0;
        candidate = k + 1;
        continue;
      }
      if (++run == needed) return slot_begin(candidate);
    }
    return std::nullopt;
  }

  /// The mirror of earliest_fit: the latest slot-aligned start s with s + duration inside the
  /// window and every slot s covers inside the horizon with enough free, found walking back from
  /// the last slot such a start can cover. O(slots scanned).
  [[nodiscard]] std::optional<T> latest_fit(const request<T, C>& r) const {
    const auto slots = aligned_starts(r, "latest_fit");
    if (!slots) return std::nullopt;
    const auto [first_slot, last_slot, needed] = *slots;
    // A start in last_slot ends within the horizon (both are slot-aligned), so its slots exist.
    std::size_t run = 0;  // fitting slots from k on
    for (std::size_t k = last_slot + needed; k-- > first_slot;) {
      if (!fits(r.amount, free_[ring_index(k)])) {
        run = 0;
        continue;
      }
      if (++run >= needed && k <= last_slot) return slot_begin(k);
    }
    return std::nullopt;
  }

  /// Books `amount` over `span`. Throws invalid_request for an empty span, one beginning before
  /// the origin, or an amount not positive or above the total; out_of_horizon past the horizon;
  /// insufficient_capacity when `amount` is not free throughout (naming the first time it is not).
  /// Strong guarantee. O(k) for k slots.
  void reserve(interval<T> span, C amount) {
    detail::check_span("reserve", span, origin_);
    detail::check_amount("reserve", amount, total_);
    const slot_range slots = slots_in_horizon("reserve", span);
    for (std::size_t k = slots.first; k < slots.last; ++k) {
      const C& free = free_[ring_index(k)];
      if (!fits(amount, free))
        throw insufficient_capacity(detail::describe("reserve ", amount, " over ", span, " (slots ",
                                                     rounded(slots), "): only ", free,
                                                     " free in slot ", slot_span(k)));
    }
    for (std::size_t k = slots.first; k < slots.last; ++k) free_[ring_index(k)] -= amount;
  }

  /// Gives back `amount` over `span`, the reverse of reserve. Throws invalid_request as reserve
  /// does; out_of_horizon past the horizon; invalid_release when more than is booked would come
  /// back somewhere (the free capacity would exceed the total). Strong guarantee. O(k) for k slots.
  void release(interval<T> span, C amount) {
    detail::check_span("release", span, origin_);
    detail::check_amount("release", amount, total_);
    const slot_range slots = slots_in_horizon("release", span);
    for (std::size_t k = slots.first; k < slots.last; ++k) {
      const C booked = total_ - free_[ring_index(k)];
      if (!fits(amount, booked))
        throw invalid_release(detail::describe("release ", amount, " over ", span, " (slots ",
                                               rounded(slots), "): only ", booked,
                                               " booked in slot ", slot_span(k)));
    }
    for (std::size_t k = slots.first; k < slots.last; ++k) free_[ring_index(k)] += amount;
  }

  /// Moves the origin to the start of the slot containing t. The slots that fall behind are
  /// reset to the total and become the far end of the horizon: the ring turns, nothing moves.
  void advance_to(T t) {
    detail::check_advance(t, origin_);
    const T new_origin = align_down(t);
    if (!horizon_end_for(new_origin, free_.size()))
      throw invalid_request(detail::describe("advance_to(", t, "): the horizon end ", new_origin,
                                             " + ", free_.size(), " slots of width ", dt_,
                                             " overflows the time type"));
    const std::size_t moved = slot_of(new_origin);
    const std::size_t recycled = std::min(moved, free_.size());
    for (std::size_t k = 0; k < recycled; ++k) free_[ring_index(k)] = total_;
    head_ = (head_ + moved % free_.size()) % free_.size();
    origin_ = new_origin;
  }

  /// Maximal blocks over the horizon, slots of equal free capacity merged.
  [[nodiscard]] std::vector<free_block<T, C>> free_blocks() const {
    std::vector<free_block<T, C>> blocks;
    for (std::size_t k = 0; k < free_.size(); ++k) {
      const C& free = free_[ring_index(k)];
      if (!blocks.empty() && blocks.back().free == free)
        blocks.back().span.end = slot_span(k).end;
      else
        blocks.push_back({slot_span(k), free});
    }
    return blocks;
  }

  /// The horizon from t on, and within a span, read in place (walkable_availability): views
  /// that merge slots of equal free capacity as they go, so a block costs the slots it spans;
  /// the last block ends at the horizon's end. Any mutating call invalidates them.
  [[nodiscard]] auto blocks_from(T t) const {
    detail::check_time("blocks_from", t, origin_);
    check_in_horizon("blocks_from", t);
    return blocks_view(slot_cursor(this, slot_of(t)), {t, horizon_end()});
  }

  /// The maximal free blocks that meet `span`, clipped to it, in time order. Throws
  /// invalid_request for an empty span or one beginning before the origin.
  [[nodiscard]] auto blocks_in(interval<T> span) const {
    detail::check_span("blocks_in", span, origin_);
    if (span.end > horizon_end())
      throw out_of_horizon(detail::describe("blocks_in ", span, ": ends beyond the horizon ",
                                            horizon(), " of the ring"));
    return blocks_view(slot_cursor(this, slot_of(span.begin)), span);
  }

  /// The begin of the first slot after t's with a different free capacity, or nullopt when
  /// every slot to the horizon's end has the same: O(slots scanned).
  [[nodiscard]] std::optional<T> next_change(T t) const {
    detail::check_time("next_change", t, origin_);
    check_in_horizon("next_change", t);
    const std::size_t end = run_end(slot_of(t));
    if (end == free_.size()) return std::nullopt;
    return slot_begin(end);
  }

  /// Changes the capacity of the resource, keeping what is booked in every slot
  /// (resizable_availability): O(slots), the whole ring checked before the first change. Slots
  /// recycled later by advance_to come back at the new total.
  void set_total(C new_total) {
    detail::check_new_total(new_total);
    for (std::size_t k = 0; k < free_.size(); ++k) {
      const C& free = free_[ring_index(k)];
      if (!detail::fits_new_total(free, total_, new_total))
        detail::throw_overbooked(slot_begin(k), detail::booked_under(total_, free), new_total);
    }
    for (C& free : free_) free = detail::rebased(free, total_, new_total);
    total_ = new_total;
  }

  /// The size of the structure: the number of slots, fixed at construction whatever the load
  /// (Schneider & Linnert §4: memory depends only on the book-ahead time and dt).
  [[nodiscard]] std::size_t block_count() const noexcept { return free_.size(); }

  /// Bytes held: the object and its array of S capacities, whatever the load.
  [[nodiscard]] std::size_t memory_usage() const noexcept {
    return sizeof(*this) + free_.capacity() * sizeof(C);
  }

  /// Checks the ring's invariants; throws invariant_violation (a bug, never bad input) when
  /// one is broken. O(S).
  void validate() const {
    if (free_.empty()) throw invariant_violation("slotted_ring: no slots");
    if (head_ >= free_.size()) throw invariant_violation("slotted_ring: head outside the ring");
    if (origin_ % dt_ != 0)
      throw invariant_violation(detail::describe("slotted_ring: origin ", origin_, " not aligned"));
    if (!horizon_end_for(origin_, free_.size()))
      throw invariant_violation("slotted_ring: horizon end overflows");
    for (std::size_t k = 0; k < free_.size(); ++k) {
      const C& free = free_[ring_index(k)];
      if (!is_nonnegative(free) || !fits(free, total_))
        throw invariant_violation(detail::describe("slotted_ring: free ", free, " in slot ",
                                                   slot_span(k), " outside [0, total]"));
    }
  }

 private:
  using unsigned_time = std::make_unsigned_t<T>;

  /// The slot after the run of slots with slot k's free capacity, or the slot count.
  [[nodiscard]] std::size_t run_end(std::size_t k) const noexcept {
    const C& free = free_[ring_index(k)];
    std::size_t end = k + 1;
    while (end < free_.size() && free_[ring_index(end)] == free) ++end;
    return end;
  }

  void check_in_horizon(const char* operation, T t) const {
    if (t >= horizon_end())
      throw out_of_horizon(
          detail::describe(operation, '(', t, "): beyond the horizon ", horizon(), " of the ring"));
  }

  /// block_view's cursor: the run of equal slots from slot k on, found once per block
  /// (detail/block_view.hpp). The first block is reported from t's slot rather than from where
  /// its run begins: the view clips it to t anyway.
  class slot_cursor {
   public:
    slot_cursor() = default;
    slot_cursor(const slotted_ring* ring, std::size_t k) : ring_(ring) { settle(k); }
    [[nodiscard]] free_block<T, C> block() const noexcept { return block_; }
    void next() noexcept { settle(end_); }

   private:
    void settle(std::size_t k) noexcept {
      end_ = ring_->run_end(k);
      block_ = {{ring_->slot_begin(k), ring_->slot_begin(end_)},
                ring_->free_[ring_->ring_index(k)]};
    }
    const slotted_ring* ring_ = nullptr;
    std::size_t end_ = 0;
    free_block<T, C> block_{};
  };
  using blocks_view = detail::block_view<T, C, slot_cursor>;

  /// Slots [first, last) counted from the origin.
  struct slot_range {
    std::size_t first;
    std::size_t last;
  };

  /// origin + slots * dt, or nullopt when it does not fit in T. Computed in the unsigned type,
  /// where every difference of two T values is exact.
  [[nodiscard]] std::optional<T> horizon_end_for(T origin, std::size_t slots) const noexcept {
    const auto room = static_cast<std::uintmax_t>(
        static_cast<unsigned_time>(static_cast<unsigned_time>(std::numeric_limits<T>::max()) -
                                   static_cast<unsigned_time>(origin)));
    const auto width = static_cast<std::uintmax_t>(dt_);
    if (static_cast<std::uintmax_t>(slots) > room / width) return std::nullopt;
    return static_cast<T>(static_cast<unsigned_time>(
        static_cast<unsigned_time>(origin) +
        static_cast<unsigned_time>(static_cast<std::uintmax_t>(slots) * width)));
  }

  [[nodiscard]] T horizon_end() const noexcept { return *horizon_end_for(origin_, free_.size()); }

  /// floor(t / dt) * dt, for t at or after the (aligned) origin: never below it, so no overflow.
  [[nodiscard]] T align_down(T t) const noexcept {
    T remainder = static_cast<T>(t % dt_);
    if (remainder < 0) remainder = static_cast<T>(remainder + dt_);
    return static_cast<T>(t - remainder);
  }

  /// The slots a request may start in, first_slot to last_slot (its window clamped to the
  /// origin and to the horizon, less the duration), and how many slots a start covers; nullopt
  /// when no slot-aligned start is admissible. Throws invalid_request for a malformed request,
  /// naming `operation`.
  struct slot_starts {
    std::size_t first_slot;
    std::size_t last_slot;
    std::size_t needed;
  };
  [[nodiscard]] std::optional<slot_starts> aligned_starts(const request<T, C>& r,
                                                          const char* operation) const {
    const auto starts = detail::check_request(r, total_, origin_, operation);
    const std::optional<T> last_in_horizon = detail::checked_sub(horizon_end(), r.duration);
    if (!last_in_horizon) return std::nullopt;
    const T last = std::min(starts.last, *last_in_horizon);
    if (last < starts.first) return std::nullopt;
    // starts.first <= last < horizon end, which is slot-aligned: rounding up cannot overflow.
    std::size_t first_slot = slot_of(starts.first);
    if (slot_begin(first_slot) < starts.first) ++first_slot;
    const std::size_t last_slot = slot_of(last);  // the last admissible aligned start
    if (last_slot < first_slot) return std::nullopt;
    return slot_starts{first_slot, last_slot, slots_for(r.duration)};
  }

  /// Index from the origin of the slot holding t (origin <= t).
  [[nodiscard]] std::size_t slot_of(T t) const noexcept {
    const auto offset = static_cast<unsigned_time>(static_cast<unsigned_time>(t) -
                                                   static_cast<unsigned_time>(origin_));
    return static_cast<std::size_t>(offset / static_cast<unsigned_time>(dt_));
  }

  [[nodiscard]] std::size_t slots_for(T duration) const noexcept {
    return static_cast<std::size_t>(duration / dt_ + (duration % dt_ != 0 ? 1 : 0));
  }

  /// Begin of the k-th slot from the origin (k <= number of slots: the result fits in T).
  [[nodiscard]] T slot_begin(std::size_t k) const noexcept {
    return static_cast<T>(
        static_cast<unsigned_time>(static_cast<unsigned_time>(origin_) +
                                   static_cast<unsigned_time>(static_cast<unsigned_time>(k) *
                                                              static_cast<unsigned_time>(dt_))));
  }

  [[nodiscard]] interval<T> slot_span(std::size_t k) const noexcept {
    return {slot_begin(k), slot_begin(k + 1)};
  }

  [[nodiscard]] interval<T> rounded(slot_range slots) const noexcept {
    return {slot_begin(slots.first), slot_begin(slots.last)};
  }

  [[nodiscard]] std::size_t ring_index(std::size_t k) const noexcept {
    const std::size_t i = head_ + k;
    return i < free_.size() ? i : i - free_.size();
  }

  /// A well-formed span (the shared checks come first, so malformed input is invalid_request
  /// as in every backend) rounded outward to whole slots; out_of_horizon past the horizon.
  [[nodiscard]] slot_range slots_in_horizon(const char* operation, interval<T> span) const {
    if (span.end > horizon_end())
      throw out_of_horizon(detail::describe(operation, ' ', span, ": ends beyond the horizon ",
                                            horizon(), " of the ring"));
    const std::size_t last = slot_of(span.end);
    return {slot_of(span.begin), slot_begin(last) < span.end ? last + 1 : last};
  }

  C total_;
  T dt_;
  T origin_;
  std::size_t head_ = 0;  ///< ring index of the slot that begins at origin_
  std::vector<C> free_;   ///< free capacity per slot, slot k from the origin at ring_index(k)
};

}  // namespace leasehold
