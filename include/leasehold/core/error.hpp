#pragma once

/// \file
/// The error hierarchy. Every exception leasehold throws for bad input derives from
/// leasehold::error, so a caller can catch one type; the subclasses tell apart a malformed
/// call (invalid_request) from a well-formed one the schedule cannot satisfy
/// (insufficient_capacity, invalid_release, out_of_horizon). Every message names the
/// offending values, and every mutating call that throws leaves its structure unchanged.

#include <stdexcept>
#include <string>

namespace leasehold {

struct error : std::runtime_error {
  using std::runtime_error::runtime_error;
};

/// Non-positive duration or amount, an amount above the total, a window shorter than the
/// duration, a reversed or empty span, a span that begins before the origin, or arithmetic
/// that would overflow the time type.
struct invalid_request : error {
  using error::error;
};

/// reserve() over a span where the amount is not free throughout.
struct insufficient_capacity : error {
  using error::error;
};

/// release() of more than is booked somewhere in the span.
struct invalid_release : error {
  using error::error;
};

/// A fixed-horizon backend (slotted_ring) asked about time it does not hold.
struct out_of_horizon : error {
  using error::error;
};

/// validate() found a broken internal invariant: a bug in leasehold, never bad input.
struct invariant_violation : error {
  using error::error;
};

}  // namespace leasehold
