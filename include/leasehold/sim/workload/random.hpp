#pragma once

// The random source of every workload generator. The same seed must give the same
// workload on every compiler, standard library and CPU, so nothing here comes from
// <random>'s distributions (their algorithms are implementation-defined) and nothing
// draws through floating-point transcendental functions (libm results and FMA contraction
// differ between platforms): every draw is integer arithmetic on the output of
// xoshiro256** (Blackman & Vigna), seeded through splitmix64.

#include <array>
#include <cstdint>
#include <limits>
#include <span>
#include <stdexcept>
#include <string>

#include "leasehold/core/error.hpp"

namespace leasehold::workload {

// splitmix64 (Steele, Lea & Flood): spreads one 64-bit seed over xoshiro's state, so
// nearby seeds give unrelated streams.
[[nodiscard]] constexpr std::uint64_t splitmix64(std::uint64_t& state) noexcept {
  std::uint64_t z = (state += 0x9e3779b97f4a7c15ULL);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}

// A seeded generator with the integer distributions the workload models need. It models
// std::uniform_random_bit_generator, but use its own members for identical output.
class rng {
 public:
  using result_type = std::uint64_t;

  explicit constexpr rng(std::uint64_t seed) noexcept {
    for (auto& word : state_) word = splitmix64(seed);
  }

  static constexpr result_type min() noexcept { return 0; }
  static constexpr result_type max() noexcept { return std::numeric_limits<result_type>::max(); }

  // xoshiro256**.
  constexpr result_type operator()() noexcept {
    const std::uint64_t result = rotl(state_[1] * 5, 7) * 9;
    const std::uint64_t t = state_[1] << 17;
    state_[2] ^= state_[0];
    state_[3] ^= state_[1];
    state_[1] ^= state_[2];
    state_[0] ^= state_[3];
    state_[2] ^= t;
    state_[3] = rotl(state_[3], 45);
    return result;
  }

  // Uniform over [0, bound) without modulo bias (Lemire's multiply-and-reject); bound > 0.
  constexpr std::uint64_t below(std::uint64_t bound) noexcept {
    auto [high, low] = multiply((*this)(), bound);
    if (low < bound) {
      const std::uint64_t threshold = (0 - bound) % bound;
      while (low < threshold) {
        const auto again = multiply((*this)(), bound);
        high = again.high;
        low = again.low;
      }
    }
    return high;
  }

  // Uniform over the closed range [lo, hi]; throws invalid_request when hi < lo.
  constexpr std::int64_t uniform_int(std::int64_t lo, std::int64_t hi) {
    if (hi < lo)
      throw invalid_request("uniform_int over [" + std::to_string(lo) + ", " + std::to_string(hi) +
                            "]: empty range");
    const auto span = static_cast<std::uint64_t>(hi) - static_cast<std::uint64_t>(lo);
    if (span == std::numeric_limits<std::uint64_t>::max())
      return static_cast<std::int64_t>((*this)());
    return static_cast<std::int64_t>(static_cast<std::uint64_t>(lo) + below(span + 1));
  }

  // True with probability numerator / denominator (exact, integer).
  constexpr bool chance(std::uint64_t numerator, std::uint64_t denominator) {
    if (denominator == 0 || numerator > denominator)
      throw invalid_request("chance " + std::to_string(numerator) + "/" +
                            std::to_string(denominator) + ": not a probability");
    return below(denominator) < numerator;
  }

  // An index drawn with probability proportional to its integer weight.
  std::size_t pick(std::span<const std::uint64_t> weights) {
    std::uint64_t total = 0;
    for (const auto w : weights) {
      if (w > std::numeric_limits<std::uint64_t>::max() - total)
        throw invalid_request("pick: the weights overflow 64 bits");
      total += w;
    }
    if (total == 0) throw invalid_request("pick: the weights sum to zero");
    auto draw = below(total);
    for (std::size_t i = 0; i < weights.size(); ++i) {
      if (draw < weights[i]) return i;
      draw -= weights[i];
    }
    return weights.size() - 1;  // unreachable
  }

  // Log-uniform over [lo, hi] (lo >= 1): the range is cut into geometric bins of ratio
  // 17/16 computed in integers, a bin is drawn with probability proportional to its share
  // of log(hi / lo) (approximated by equal shares for full bins and by the width share for
  // the last, partial one), then a value uniformly inside the bin. Exact and portable; the
  // density is log-uniform to within the 6 % bin ratio.
  std::int64_t log_uniform_int(std::int64_t lo, std::int64_t hi) {
    if (lo < 1 || hi < lo)
      throw invalid_request("log_uniform_int over [" + std::to_string(lo) + ", " +
                            std::to_string(hi) + "]: needs 1 <= lo <= hi");
    // Count the full bins and the width of the partial last one without storing edges.
    std::uint64_t full = 0;
    std::int64_t edge = lo;
    for (;;) {
      const std::int64_t next = next_edge(edge);
      if (next > hi) break;
      ++full;
      edge = next;
    }
    const std::int64_t last_width = hi - edge + 1;          // values in the partial bin
    const std::int64_t last_full = next_edge(edge) - edge;  // its width if it were full
    // Weights in units of 1/last_full of a full bin.
    const std::uint64_t unit = static_cast<std::uint64_t>(last_full);
    const std::uint64_t draw = below(full * unit + static_cast<std::uint64_t>(last_width));
    std::uint64_t bin = draw / unit;
    std::int64_t begin = lo;
    for (std::uint64_t i = 0; i < bin; ++i) begin = next_edge(begin);
    const std::int64_t end = bin < full ? next_edge(begin) - 1 : hi;
    return uniform_int(begin, end);
  }

 private:
  struct wide {
    std::uint64_t high, low;
  };
  // The full 128-bit product in portable arithmetic (no __int128 under -Wpedantic, MSVC).
  static constexpr wide multiply(std::uint64_t a, std::uint64_t b) noexcept {
    const std::uint64_t a_lo = a & 0xffffffffULL, a_hi = a >> 32;
    const std::uint64_t b_lo = b & 0xffffffffULL, b_hi = b >> 32;
    const std::uint64_t lo_lo = a_lo * b_lo, hi_lo = a_hi * b_lo;
    const std::uint64_t lo_hi = a_lo * b_hi, hi_hi = a_hi * b_hi;
    const std::uint64_t cross = (lo_lo >> 32) + (hi_lo & 0xffffffffULL) + lo_hi;
    return {hi_hi + (hi_lo >> 32) + (cross >> 32), (cross << 32) | (lo_lo & 0xffffffffULL)};
  }
  static constexpr std::uint64_t rotl(std::uint64_t x, int k) noexcept {
    return (x << k) | (x >> (64 - k));
  }
  static constexpr std::int64_t next_edge(std::int64_t edge) noexcept {
    const std::int64_t grown = edge / 16 * 17 + edge % 16 * 17 / 16;
    return grown > edge ? grown : edge + 1;
  }

  std::array<std::uint64_t, 4> state_{};
};

}  // namespace leasehold::workload
