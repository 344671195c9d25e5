#pragma once

// What every backend's set_total(new_total) shares (availability/concept.hpp,
// resizable_availability): the argument check, the refusal naming the earliest time where the
// bookings do not fit, and the arithmetic that keeps each time's booked amount. Element-wise
// for resources<N, V>, and through componentwise so that small scalar types do not widen.

#include <functional>

#include "leasehold/core/capacity.hpp"
#include "leasehold/core/detail/describe.hpp"
#include "leasehold/core/error.hpp"
#include "leasehold/core/time.hpp"

namespace leasehold::detail {

// A valid total, as at construction.
template <capacity_value C>
void check_new_total(const C& new_total) {
  if (!is_positive(new_total))
    throw invalid_request(
        describe("set_total(", new_total, "): total capacity ", new_total, " must be positive"));
}

// total - free: what is booked where `free` is free.
template <capacity_value C>
[[nodiscard]] constexpr C booked_under(const C& total, const C& free) noexcept {
  return componentwise(total, free, std::minus<>{});
}

// The free capacity of a block whose bookings stay when the total changes: new_total - booked.
// The caller has checked that the booked amount fits the new total, so nothing wraps.
template <capacity_value C>
[[nodiscard]] constexpr C rebased(const C& free, const C& old_total, const C& new_total) noexcept {
  return componentwise(new_total, booked_under(old_total, free), std::minus<>{});
}

// Whether a block with `free` free under `old_total` keeps its bookings under `new_total`.
template <capacity_value C>
[[nodiscard]] constexpr bool fits_new_total(const C& free, const C& old_total,
                                            const C& new_total) noexcept {
  return fits(booked_under(old_total, free), new_total);
}

template <time_value T, capacity_value C>
[[noreturn]] void throw_overbooked(T at, const C& booked, const C& new_total) {
  throw insufficient_capacity(describe("set_total(", new_total, "): ", booked, " booked at ", at,
                                       " does not fit the new total ", new_total));
}

// The whole of set_total for a backend whose blocks are elements of one range, each with its
// begin and its free capacity as members (`begin`, `free`: member pointers): every block is
// checked before the first change, so that the change, which cannot throw, happens whole or
// not at all.
template <class Blocks, class Begin, class Free, capacity_value C>
void rebase_blocks(Blocks& blocks, Begin begin, Free free, C& total, const C& new_total) {
  check_new_total(new_total);
  for (const auto& b : blocks)
    if (!fits_new_total(b.*free, total, new_total))
      throw_overbooked(b.*begin, booked_under(total, b.*free), new_total);
  for (auto& b : blocks) b.*free = rebased(b.*free, total, new_total);
  total = new_total;
}

}  // namespace leasehold::detail
