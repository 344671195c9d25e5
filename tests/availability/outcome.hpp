#pragma once

// What the two differential harnesses compare, written once: the doctest one
// (differential.hpp: seeded random operations) and the libFuzzer one (fuzz/availability_fuzz.hpp:
// byte-encoded operations) both apply each call to a backend and to reference and require the
// same outcome (the same exception type, or none) and, at the end, the same free blocks.
// No doctest here, so that the fuzz harnesses can include it.

#include <vector>

#include <leasehold/leasehold.hpp>

namespace leasehold::testing {

// Which exception a call threw, as a comparable name.
enum class outcome {
  ok,
  invalid_request,
  insufficient_capacity,
  invalid_release,
  out_of_horizon,
  other
};

inline const char* name_of(outcome o) {
  switch (o) {
    case outcome::ok:
      return "ok";
    case outcome::invalid_request:
      return "invalid_request";
    case outcome::insufficient_capacity:
      return "insufficient_capacity";
    case outcome::invalid_release:
      return "invalid_release";
    case outcome::out_of_horizon:
      return "out_of_horizon";
    case outcome::other:
      return "other exception";
  }
  return "?";
}

template <class F>
outcome outcome_of(F&& call) {
  try {
    call();
    return outcome::ok;
  } catch (const invalid_request&) {
    return outcome::invalid_request;
  } catch (const insufficient_capacity&) {
    return outcome::insufficient_capacity;
  } catch (const invalid_release&) {
    return outcome::invalid_release;
  } catch (const out_of_horizon&) {
    return outcome::out_of_horizon;
  } catch (...) {
    return outcome::other;
  }
}

template <class Backend>
std::vector<free_block_of<Backend>> blocks_of(const Backend& backend) {
  std::vector<free_block_of<Backend>> blocks;
  for (const auto& block : backend.free_blocks()) blocks.push_back(block);
  return blocks;
}

// The oracle's profile as the backend must show it: all of it, or for a fixed-horizon backend
// (one with horizon()) the part inside the horizon, the last block cut at the horizon end.
template <class Oracle, class Backend>
std::vector<typename Oracle::block_type> expected_blocks(const Oracle& oracle,
                                                         const Backend& backend) {
  auto blocks = blocks_of(oracle);
  if constexpr (bounded_availability<Backend>) {
    const auto end = backend.horizon().end;
    std::erase_if(blocks, [end](const auto& block) { return block.span.begin >= end; });
    if (!blocks.empty() && blocks.back().span.end > end) blocks.back().span.end = end;
  }
  return blocks;
}

}  // namespace leasehold::testing
