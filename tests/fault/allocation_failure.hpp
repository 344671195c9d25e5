#pragma once

// Allocation-failure injection for the fault tests. This executable replaces the global
// operator new (allocation_failure.cpp) with one that counts allocations and, once armed, throws
// std::bad_alloc at the k-th. sweep() runs one call with k = 1, 2, ... until it succeeds, and
// after every failed attempt checks that the structure is exactly as before: the strong
// guarantee of DESIGN.md ("if it throws, the structure is unchanged"). LeakSanitizer (the
// asan-ubsan preset) checks that nothing allocated by a failed attempt is leaked.
//
// The replacement affects the whole binary, so these tests live in their own executable
// (tests/fault/), never in the main suite.

#include <doctest/doctest.h>

#include <cstddef>
#include <new>
#include <stdexcept>
#include <string>
#include <utility>

namespace leasehold::testing::fault {

// Makes the `k`-th allocation from now on throw std::bad_alloc (k >= 1); with `persistent`,
// that one and every later one until disarm() (memory stays exhausted, so a rollback that
// allocates fails too).
void fail_allocation_after(std::size_t k, bool persistent = false) noexcept;
void disarm() noexcept;
// Allocations made since the process started (armed or not).
[[nodiscard]] std::size_t allocations() noexcept;

// Disarms on scope exit, so that a failing check never leaves the injector armed.
struct armed_scope {
  armed_scope(std::size_t k, bool persistent) noexcept { fail_allocation_after(k, persistent); }
  armed_scope(const armed_scope&) = delete;
  armed_scope& operator=(const armed_scope&) = delete;
  ~armed_scope() { disarm(); }
};

struct sweep_result {
  std::size_t failures = 0;  // attempts that threw bad_alloc (= allocations of the call)
  bool succeeded = false;    // the last attempt returned or threw something else
};

// Runs `call` with the k-th allocation failing, for k = 1, 2, ..., until an attempt makes no
// failing allocation. After every std::bad_alloc, `unchanged()` must hold (it runs disarmed).
// Every k is tried twice: once failing only the k-th allocation, once failing it and all
// later ones. Exceptions other than bad_alloc end the sweep and are rethrown: the caller
// decides whether the call was meant to throw. `limit` bounds the attempts of one call.
template <class Call, class Unchanged>
sweep_result sweep(Call&& call, Unchanged&& unchanged, std::size_t limit = 100000) {
  sweep_result result;
  for (std::size_t k = 1; k <= limit; ++k) {
    for (const bool persistent : {true, false}) {
      try {
        armed_scope armed(k, persistent);
        call();
        result.succeeded = true;
        return result;
      } catch (const std::bad_alloc&) {
        ++result.failures;
      }
      unchanged();
    }
  }
  FAIL("sweep: the call still allocates after " << limit << " attempts");
  return result;
}

// sweep() with the usual check: `state()` (a checkpoint's text, or any value with ==) must be
// what it was before the call after every failed attempt. The first difference fails the test
// and ends the sweep (later attempts would only repeat it).
template <class Call, class State>
sweep_result sweep_unchanged(Call&& call, State&& state, std::size_t limit = 100000) {
  const auto before = state();
  return sweep(
      std::forward<Call>(call),
      [&] {
        const bool unchanged = state() == before;
        CHECK(unchanged);
        if (!unchanged) throw std::logic_error("stop: state changed");
      },
      limit);
}

}  // namespace leasehold::testing::fault
