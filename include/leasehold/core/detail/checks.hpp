#pragma once

// Argument checks shared by every layer (backends, the slot table, policies, workload
// readers), so that the same bad call gets the same error type and the same message from all
// of them. They speak only the core vocabulary, which is why they live in core/ and not in a
// backend's private folder. Each check runs before any mutation, which is half of the strong
// guarantee (the other half is allocating before mutating).

#include <algorithm>
#include <optional>
#include <sstream>
#include <string>
#include <utility>

#include "leasehold/core/capacity.hpp"
#include "leasehold/core/detail/checked_arithmetic.hpp"
#include "leasehold/core/detail/describe.hpp"
#include "leasehold/core/error.hpp"
#include "leasehold/core/request.hpp"
#include "leasehold/core/time.hpp"

namespace leasehold::detail {

template <capacity_value C>
void check_total(const C& total) {
  if (!is_positive(total))
    throw invalid_request(describe("total capacity ", total, " must be positive"));
}

// A backend's constructor arguments: a positive total, and an origin that leaves time to book
// (every backend checks the same two, with its own name in the message).
template <capacity_value C, time_value T>
void check_profile(const char* backend, const C& total, T origin) {
  check_total(total);
  if (origin == forever<T>)
    throw invalid_request(describe(backend, ": origin ", origin, " leaves no time"));
}

template <time_value T>
void check_span(const char* operation, interval<T> span, T origin) {
  if (span.end < span.begin)
    throw invalid_request(describe(operation, ' ', span, ": end before begin"));
  if (span.end == span.begin) throw invalid_request(describe(operation, ' ', span, ": empty span"));
  if (span.begin < origin)
    throw invalid_request(describe(operation, ' ', span, ": begins before the origin ", origin));
}

// A dynamic_resources amount must have as many components as the total it is measured
// against; the operators only assert that, so it is checked here, where user input enters.
// Nothing to check (and no code) for a scalar or a resources<N, V>.
template <capacity_value C>
void check_components(const char* operation, const char* what, const C& amount, const C& total) {
  if constexpr (is_dynamic_resources<C>::value) {
    if (amount.size() != total.size())
      throw invalid_request(describe(operation, " of ", what, ' ', amount, ": has ", amount.size(),
                                     " components, the total ", total, " has ", total.size()));
  }
}

template <capacity_value C>
void check_amount(const char* operation, const C& amount, const C& total) {
  check_components(operation, "amount", amount, total);
  if (!is_positive(amount))
    throw invalid_request(describe(operation, " of amount ", amount, ": amount must be positive"));
  if (!fits(amount, total))
    throw invalid_request(
        describe(operation, " of amount ", amount, ": exceeds the total capacity ", total));
}

// The starts a request allows once its window is clamped to the origin: [first, last].
template <time_value T>
struct start_range {
  T first;
  T last;
  [[nodiscard]] constexpr bool empty() const noexcept { return last < first; }
};

// Validates a request and returns the range of starts it allows on a profile with this
// origin. Throws invalid_request for malformed requests, naming `operation`; an empty range
// (the window closes before the origin plus the duration) is a valid request that simply has
// no answer.
template <time_value T, capacity_value C>
[[nodiscard]] start_range<T> check_request(const request<T, C>& r, const C& total, T origin,
                                           const char* operation = "earliest_fit") {
  if (r.duration <= 0)
    throw invalid_request(describe(operation, ' ', r, ": duration must be positive"));
  check_amount(operation, r.amount, total);
  if (r.window.end < r.window.begin)
    throw invalid_request(describe(operation, ' ', r, ": window ends before it begins"));
  const std::optional<T> earliest_end = checked_add(r.window.begin, r.duration);
  if (!earliest_end)
    throw invalid_request(
        describe(operation, ' ', r, ": window begin + duration overflows the time type"));
  if (*earliest_end > r.window.end)
    throw invalid_request(describe(operation, ' ', r, ": window is shorter than the duration"));
  // window.end - duration >= window.begin here, so it cannot overflow.
  return {std::max(r.window.begin, origin), static_cast<T>(r.window.end - r.duration)};
}

template <time_value T>
void check_advance(T to, T origin) {
  if (to < origin)
    throw invalid_request(describe("advance_to(", to, "): before the origin ", origin));
  if (to == forever<T>)
    throw invalid_request(describe("advance_to(", to, "): would leave no time before forever"));
}

template <time_value T>
void check_time(const char* operation, T t, T origin) {
  if (t < origin)
    throw invalid_request(describe(operation, '(', t, "): before the origin ", origin));
}

}  // namespace leasehold::detail
