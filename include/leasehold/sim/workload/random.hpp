#pragma once

/// \file
/// The random source of every workload generator. The same seed must give the same
/// workload on every compiler, standard library and CPU, so nothing here comes from
/// `<random>`'s distributions (their algorithms are implementation-defined) and nothing
/// draws through floating-point transcendental functions (libm results and FMA contraction
/// differ between platforms): every draw is integer arithmetic on the output of
/// xoshiro256** (Blackman & Vigna), seeded through splitmix64.

#include <array>
#include <cstdint>
#include <limits>
#include <span>
#include <stdexcept>
#include <string>

#include "leasehold/core/error.hpp"

namespace leasehold::workload {

/// splitmix64 (Steele, Lea & Flood): spreads one 64-bit seed over xoshiro's state, so
/// nearby seeds give unrelated streams.
[[nodiscard]] constexpr std::uint64_t splitmix64(std::uint64_t& state) noexcept {
  std::uint64_t z = (state += 0x9e3779b97f4a7c15ULL);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}

/// A seeded generator with the integer distributions the workload models need. It models
/// std::uniform_random_bit_generator, but use its own members for identical output.
class rng {
 public:
  using result_type = std::uint64_t;  ///< What a draw of operator() is.

  /// The generator seeded through splitmix64: the same seed, the same draws, everywhere.
  explicit constexpr rng(std::uint64_t seed) noexcept {
    for (auto& word : state_) word = splitmix64(seed);
  }

  /// The smallest draw, 0.
  static constexpr result_type min() noexcept { return 0; }
  /// The largest draw, 2^64 - 1.
  static constexpr result_type max() noexcept { return std::numeric_limits<result_type>::max(); }

  /// xoshiro256**.
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

  /// Uniform over [0, bound) without modulo bias (Lemire's multiply-and-reject); bound > 0.
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

  /// Uniform over the closed range [lo, hi]; throws invalid_request when hi < lo.
  constexpr std::int64_t uniform_int(std::int64_t lo, std::int64_t hi) {
    if (hi < lo)
      throw invalid_request("uniform_int over [" + std::to_string(lo) + ", " + std::to_string(hi) +
                            "]: empty range");
    const auto span = static_cast<std::uint64_t>(hi) - static_cast<std::uint64_t>(lo);
    if (span == std::numeric_limits<std::uint64_t>::max())
      return static_cast<std::int64_t>((*this)());
    return static_cast<std::int64_t>(static_cast<std::uint64_t>(lo) + below(span + 1));
  }

  /// True with probability numerator / denominator (exact, integer).
  constexpr bool chance(std::uint64_t numerator, std::uint64_t denominator) {
    if (denominator == 0 || numerator > denominator)
      throw invalid_request("chance " + std::to_string(numerator) + "/" +
                            std::to_string(denominator) + ": not a probability");
    return below(denominator) < numerator;
  }

  /// An index drawn with probability proportional to its integer weight.
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

  /// Log-uniform over [lo, hi] (lo >= 1) in its discrete form, P(x) proportional to 1/x.
  /// The range is cut into octaves [a, 2a) with a = lo * 2^j; an octave is drawn with
  /// weight sum(1/x) over it (exact in 2^-32 units for a < 256; ln 2 above, within 0.1 %),
  /// a value x uniformly in it, and x is kept with probability a / x (so the density is
  /// 1/x) and only if x <= hi; otherwise everything is drawn again. Integer arithmetic
  /// only, so the same on every platform.
  std::int64_t log_uniform_int(std::int64_t lo, std::int64_t hi) {
    if (lo < 1 || hi < lo)
      throw invalid_request("log_uniform_int over [" + std::to_string(lo) + ", " +
                            std::to_string(hi) + "]: needs 1 <= lo <= hi");
    std::array<std::uint64_t, 64> weights{};
    std::size_t octaves = 0;
    const auto top = static_cast<std::uint64_t>(hi);
    for (auto a = static_cast<std::uint64_t>(lo); a <= top && octaves < weights.size(); a *= 2) {
      constexpr std::uint64_t ln2_units = 2'977'044'472ULL;  // 2^32 ln 2
      std::uint64_t weight = 0;
      if (a >= 256) {
        weight = ln2_units;
      } else {
        for (std::uint64_t x = a; x < 2 * a; ++x) weight += (std::uint64_t{1} << 32) / x;
      }
      weights[octaves++] = weight;
      if (a > top / 2) break;
    }
    for (;;) {
      const auto j = pick(std::span<const std::uint64_t>(weights.data(), octaves));
      const std::uint64_t a = static_cast<std::uint64_t>(lo) << j;
      const std::uint64_t x = a + below(a);
      if (x > top) continue;
      if (below(x) < a) return static_cast<std::int64_t>(x);
    }
  }

 private:
  struct wide {
    std::uint64_t high, low;
  };
  /// The full 128-bit product in portable arithmetic (no __int128 under -Wpedantic, MSVC).
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
  std::array<std::uint64_t, 4> state_{};
};

}  // namespace leasehold::workload
