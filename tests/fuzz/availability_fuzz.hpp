#pragma once

// The availability fuzz harness, shared by one executable per backend: the input bytes are an
// operation sequence (earliest_fit, reserve, release, advance_to, free_at, min_free, with
// in-range and edge-of-type arguments) applied to the backend and to reference side by side.
// Every answer and every exception type must agree, validate() must pass after every call,
// and the free blocks must agree at the end. A mismatch aborts: libFuzzer saves the input.
//
// The reference harness checks reference itself against a per-tick array over a bounded
// stretch of time, the most literal model of the semantics there is.
//
// For slotted_ring every time is slot-aligned and the oracle's answers are cut at the ring's
// horizon, as DESIGN.md's rule 5 states.

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <limits>
#include <optional>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include <leasehold/leasehold.hpp>

#include "availability/outcome.hpp"
#include "fuzz/fuzz_input.hpp"

namespace leasehold::fuzzing {

[[noreturn]] inline void mismatch(const std::string& what) {
  std::fprintf(stderr, "leasehold fuzz mismatch: %s\n", what.c_str());
  std::abort();
}

using testing::blocks_of;
using testing::expected_blocks;
using testing::outcome;

// testing::outcome_of, except that an exception which is not a leasehold::error is a finding
// at once (a bug in the backend or the oracle), not an outcome the two may share.
template <class F>
outcome outcome_of(F&& call) {
  const outcome o = testing::outcome_of(std::forward<F>(call));
  if (o == outcome::other) mismatch("a call threw something other than a leasehold::error");
  return o;
}

template <class A>
void validated(const A& a, const char* after) {
  try {
    a.validate();
  } catch (const invariant_violation& e) {
    mismatch(std::string("validate() after ") + after + ": " + e.what());
  }
}

template <capacity_value C>
C draw_amount(fuzz_input& in, const C& total) {
  if constexpr (scalar_capacity<C>) {
    return in.edgy(static_cast<C>(in.in(1, static_cast<std::int64_t>(total))));
  } else {
    C c{};
    for (std::size_t i = 0; i < C::size(); ++i)
      c[i] = static_cast<typename C::value_type>(in.in(0, static_cast<std::int64_t>(total[i])));
    if (in.byte() % 16 == 0) c[0] = -c[0];  // malformed on purpose
    return c;
  }
}

// Runs the byte-encoded operation sequence on `a` and on `oracle` (the same profile).
// `step` is the time granularity (the slot width for slotted_ring, else 1).
template <class A, class Oracle>
void check_blocks(const A& a, const Oracle& oracle, const char* what) {
  const auto have = blocks_of(a);
  const auto want = expected_blocks(oracle, a);
  if (have == want) return;
  std::ostringstream out;
  out << what << "\n  backend:";
  for (const auto& b : have) out << ' ' << b;
  out << "\n  oracle: ";
  for (const auto& b : want) out << ' ' << b;
  mismatch(out.str());
}

// a + b, saturated at the ends of T (the harness must not overflow while making bad input).
template <class T>
T saturated(T a, std::int64_t b) {
  T result{};
  if (!__builtin_add_overflow(a, b, &result)) return result;
  return b > 0 ? std::numeric_limits<T>::max() : std::numeric_limits<T>::min();
}

template <class A, class Oracle>
void run_against(fuzz_input& in, A& a, Oracle& oracle, typename A::time_type step) {
  using T = typename A::time_type;
  using C = typename A::capacity_type;
  constexpr bool ring = requires { a.horizon(); };
  const C total = a.total();
  auto time_at = [&](std::int64_t offset) { return saturated(a.origin(), offset * step); };
  auto describe_op = [](const char* op, auto... parts) {
    std::ostringstream out;
    out << op;
    ((out << ' ' << parts), ...);
    return out.str();
  };
  // A ring books whole slots (DESIGN.md rule 5), so the oracle gets the span rounded outward,
  // as a ring would round it. Malformed or out-of-horizon spans stay as they are: both refuse.
  auto as_booked = [&](interval<T> span) {
    if constexpr (ring) {
      if (span.begin >= a.origin() && span.begin < span.end && span.end <= a.horizon().end) {
        const T begin_offset = span.begin - a.origin();  // < slots * step: small
        const T end_offset = span.end - a.origin();
        span.begin = a.origin() + begin_offset / step * step;
        span.end = a.origin() + (end_offset + step - 1) / step * step;
      }
    }
    return span;
  };
  // LEASEHOLD_FUZZ_TRACE=1 prints every call, to turn a saved finding into a unit test.
  static const bool trace = std::getenv("LEASEHOLD_FUZZ_TRACE") != nullptr;
  // Formats only when tracing: the fuzzer runs every call through here.
  auto traced = [&](const char* op, const auto&... parts) {
    if (trace) std::fprintf(stderr, "  %s\n", describe_op(op, parts...).c_str());
  };
  traced("origin", a.origin(), "total", total, "step", step);
  for (int ops = 0; ops < 400 && !in.empty(); ++ops) {
    switch (in.byte() % 7) {
      case 0: {  // earliest_fit
        request<T, C> r{draw_amount(in, total), static_cast<T>(step * in.in(1, 64))};
        r.duration = in.edgy(r.duration);
        if (in.byte() % 2 == 0) {
          const T begin = in.edgy(time_at(in.in(-4, 200)));
          r.window = {begin, in.edgy(saturated(begin, step * in.in(0, 300)))};
        }
        std::optional<T> got, want;
        const outcome have = outcome_of([&] { got = a.earliest_fit(r); });
        traced("earliest_fit", r, "->", int(have), got.value_or(-1));
        outcome expect = outcome_of([&] { (void)oracle.earliest_fit(r); });
        if (expect == outcome::ok) {
          request<T, C> asked = r;
          bool none = false;
          if constexpr (ring) {
            const T end = a.horizon().end;
            if (asked.window.end > end) asked.window.end = end;
            const T first = std::max(asked.window.begin, a.origin());
            none = asked.window.end < first || asked.window.end - first < asked.duration;
          }
          if (!none) want = oracle.earliest_fit(asked);
        }
        if (have != expect || got != want)
          mismatch(describe_op("earliest_fit", r, "backend", int(have), got.value_or(-1), "oracle",
                               int(expect), want.value_or(-1)));
        if (got && in.byte() % 2 == 0) {
          const interval<T> span{*got, saturated(*got, r.duration)};
          traced("reserve", span, r.amount);
          a.reserve(span, r.amount);
          oracle.reserve(as_booked(span), r.amount);
          validated(a, "reserve after earliest_fit");
        }
        break;
      }
      case 1:
      case 2: {  // reserve or release, possibly colliding or malformed
        const bool reserve = in.byte() % 2 == 0;
        const T begin = in.edgy(time_at(in.in(-2, 250)));
        const interval<T> span{begin, in.edgy(saturated(begin, step * in.in(0, 40)))};
        const C amount = draw_amount(in, total);
        const auto before = blocks_of(a);
        outcome have, expect;
        bool beyond = false;
        if constexpr (ring)
          beyond = span.end > a.horizon().end && span.begin < span.end && span.begin >= a.origin();
        if (reserve) {
          have = outcome_of([&] { a.reserve(span, amount); });
          expect = beyond ? outcome::out_of_horizon
                          : outcome_of([&] { oracle.reserve(as_booked(span), amount); });
        } else {
          have = outcome_of([&] { a.release(span, amount); });
          expect = beyond ? outcome::out_of_horizon
                          : outcome_of([&] { oracle.release(as_booked(span), amount); });
        }
        traced(reserve ? "reserve" : "release", span, amount, "->", int(have));
        // A ring checks the amount before the horizon; an invalid amount wins either way.
        if (beyond && have == outcome::invalid_request) {
          expect = have;
        }
        if (have != expect)
          mismatch(describe_op(reserve ? "reserve" : "release", span, amount, "backend", int(have),
                               "oracle", int(expect)));
        if (have != outcome::ok && blocks_of(a) != before)
          mismatch(describe_op("a failed call changed the profile", span));
        validated(a, reserve ? "reserve" : "release");
        break;
      }
      case 3: {  // advance_to
        const T to = in.byte() % 16 == 0 ? in.edgy(a.origin()) : time_at(in.in(-1, 20));
        const outcome have = outcome_of([&] { a.advance_to(to); });
        traced("advance_to", to, "->", int(have), "origin", a.origin());
        // A ring's origin moves to the start of the slot holding `to` (DESIGN.md rule 5).
        const outcome expect =
            outcome_of([&] { oracle.advance_to(ring && have == outcome::ok ? a.origin() : to); });
        if (have != expect) {
          // A ring whose horizon end would overflow refuses what an unbounded profile accepts.
          if (!(ring && have == outcome::invalid_request && expect == outcome::ok))
            mismatch(describe_op("advance_to", to, "backend", int(have), "oracle", int(expect)));
          return;  // the two profiles now differ in origin: stop here
        }
        validated(a, "advance_to");
        break;
      }
      case 4: {  // free_at
        const T t = in.edgy(time_at(in.in(-2, 300)));
        C got{}, want{};
        const outcome have = outcome_of([&] { got = a.free_at(t); });
        outcome expect = outcome_of([&] { want = oracle.free_at(t); });
        if constexpr (ring)
          if (expect == outcome::ok && t >= a.horizon().end) expect = outcome::out_of_horizon;
        if (have != expect || (have == outcome::ok && !(got == want)))
          mismatch(
              describe_op("free_at", t, "backend", int(have), got, "oracle", int(expect), want));
        break;
      }
      case 5: {  // min_free
        const T begin = in.edgy(time_at(in.in(-2, 250)));
        const interval<T> span{begin, in.edgy(saturated(begin, step * in.in(0, 60)))};
        C got{}, want{};
        const outcome have = outcome_of([&] { got = a.min_free(span); });
        outcome expect = outcome_of([&] { want = oracle.min_free(span); });
        if constexpr (ring)
          if (expect == outcome::ok && span.end > a.horizon().end) expect = outcome::out_of_horizon;
        if (have != expect || (have == outcome::ok && !(got == want)))
          mismatch(describe_op("min_free", span, "backend", int(have), got, "oracle", int(expect),
                               want));
        break;
      }
      default:
        check_blocks(a, oracle, "free_blocks differ");
    }
  }
  check_blocks(a, oracle, "free_blocks differ at the end");
}

// The whole harness of an exact backend (free_list, free_tree, capacity_tree; one executable
// each, all built from exact_backend_fuzz.cpp): the first byte picks a scalar capacity (even:
// Backend<std::int64_t, std::int64_t>) or a resources<4> vector (odd: Backend<std::int64_t,
// vector4>). A backend that takes scalars only (capacity_tree) reads the byte and stays
// scalar, so an input means the same operations for every backend.
using vector4 = resources<4, std::int64_t>;

template <template <class, class> class Backend>
int fuzz_exact_backend(const std::uint8_t* data, std::size_t size) {
  constexpr bool takes_vectors = availability<Backend<std::int64_t, vector4>>;
  fuzz_input in(data, size);
  const bool vector = in.byte() % 2 == 1;
  const auto origin = in.in(-100, 100);
  if (!takes_vectors || !vector) {
    const auto total = in.in(1, 12);
    Backend<std::int64_t, std::int64_t> a(total, origin);
    reference<std::int64_t, std::int64_t> oracle(total, origin);
    run_against(in, a, oracle, std::int64_t{1});
  } else if constexpr (takes_vectors) {
    const vector4 total{{in.in(1, 8), in.in(0, 4096), in.in(0, 100), in.in(0, 10)}};
    Backend<std::int64_t, vector4> a(total, origin);
    reference<std::int64_t, vector4> oracle(total, origin);
    run_against(in, a, oracle, std::int64_t{1});
  }
  return 0;
}

}  // namespace leasehold::fuzzing
