#pragma once

// The randomised differential test shared by every backend: a seeded sequence of
// interleaved earliest_fit / reserve / release / free_at / min_free / advance_to /
// free_blocks calls, applied to a backend and to reference<T, C> side by side. Every answer,
// and every exception type for the deliberately bad calls, must be identical. On a mismatch
// the failure names the seed and the operation index, so it can be replayed alone.

#include <doctest/doctest.h>

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <functional>
#include <optional>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include <leasehold/leasehold.hpp>

#include "availability/outcome.hpp"

namespace leasehold::testing {

// Operation count per seed; LEASEHOLD_RANDOM_OPS scales it for longer local runs.
inline std::size_t random_ops_per_seed(std::size_t fallback) {
  if (const char* text = std::getenv("LEASEHOLD_RANDOM_OPS")) {
    const long long value = std::atoll(text);
    if (value > 0) return static_cast<std::size_t>(value);
  }
  return fallback;
}

// How a differential run draws its inputs. Times are drawn inside [origin, origin + span),
// amounts by `draw_amount`. `round_span` lets a slotted backend's oracle see its own rounding.
// `round_request` does the same for earliest_fit and latest_fit: given the request and the
// current origin, it returns the request the oracle must answer to give the backend's answer
// (slot-aligned window, duration rounded up to whole slots, window end clamped to a fixed
// horizon), or nullopt when the backend has no admissible start at all, so that its answer
// must be nullopt.
template <class T, class C>
struct differential_config {
  C total;
  T time_span = 2000;
  T max_duration = 200;
  std::size_t max_live = 64;
  std::function<C(std::mt19937_64&)> draw_amount{};
  std::function<interval<T>(interval<T>)> round_span = [](interval<T> s) { return s; };
  std::function<std::optional<request<T, C>>(const request<T, C>&, T)> round_request =
      [](const request<T, C>& r, T) { return std::optional<request<T, C>>(r); };
};

// slotted_ring rounds to slots, so it is compared with reference fed the same rounded inputs
// (DESIGN.md, semantics 5): spans rounded outward to whole slots, requests turned into the
// slot-aligned request the ring answers, the window clamped to the ring's horizon of `slots`
// slots of width dt. With dt = 1 nothing is rounded and only the horizon differs.
template <class T, class C>
void round_to_slots(differential_config<T, C>& config, T dt, std::size_t slots) {
  const auto down = [dt](T t) {
    T remainder = static_cast<T>(t % dt);
    if (remainder < 0) remainder = static_cast<T>(remainder + dt);
    return static_cast<T>(t - remainder);
  };
  const auto up = [dt, down](T t) { return down(t) == t ? t : static_cast<T>(down(t) + dt); };
  const T book_ahead = static_cast<T>(static_cast<T>(slots) * dt);
  config.round_span = [down, up](interval<T> span) {
    return interval<T>{down(span.begin), up(span.end)};
  };
  config.round_request = [down, up, book_ahead](const request<T, C>& r,
                                                T origin) -> std::optional<request<T, C>> {
    const T first = up(std::max(r.window.begin, origin));
    const T end = std::min(r.window.end, static_cast<T>(origin + book_ahead));
    if (end - r.duration < first) return std::nullopt;
    const T last = down(static_cast<T>(end - r.duration));
    if (last < first) return std::nullopt;
    const T rounded = up(r.duration);
    return request<T, C>{r.amount, rounded, {first, static_cast<T>(last + rounded)}};
  };
  // Every random span must lie inside the horizon; the ring's out_of_horizon answers are
  // checked deliberately in the bad-call step of the differential test.
  REQUIRE(config.time_span + config.max_duration + dt <= book_ahead);
}

template <class Backend, class Oracle>
std::size_t run_differential(std::uint64_t seed, std::size_t operations, Backend backend,
                             Oracle oracle,
                             const differential_config<typename Backend::time_type,
                                                       typename Backend::capacity_type>& config) {
  using T = typename Backend::time_type;
  using C = typename Backend::capacity_type;
  std::mt19937_64 rng(seed);
  auto uniform = [&rng](auto low, auto high) {
    return std::uniform_int_distribution<decltype(low)>(low, high)(rng);
  };
  struct booking {
    interval<T> span;
    C amount;
  };
  std::vector<booking> live;
  std::size_t mismatches = 0;

  auto fail = [&](std::size_t op, const std::string& what) {
    ++mismatches;
    std::ostringstream message;
    message << "seed " << seed << ", operation " << op << ": " << what;
    FAIL_CHECK(message.str());
  };
  auto random_time = [&] {
    return static_cast<T>(backend.origin() + uniform(T{0}, config.time_span));
  };
  auto random_span = [&] {
    const T begin = random_time();
    return config.round_span({begin, static_cast<T>(begin + uniform(T{1}, config.max_duration))});
  };

  for (std::size_t op = 0; op < operations && mismatches == 0; ++op) {
    const int kind = uniform(0, 99);
    if (kind < 30) {  // earliest_fit, and book the answer (most of the time)
      request<T, C> r{config.draw_amount(rng), uniform(T{1}, config.max_duration)};
      switch (uniform(0, 3)) {
        case 0:
          break;  // default window: origin to forever
        case 1:
          r.window = {random_time(), forever<T>};
          break;
        default: {
          const T begin = static_cast<T>(random_time() - uniform(T{0}, T{50}));
          r.window = {begin,
                      static_cast<T>(begin + r.duration + uniform(T{0}, 3 * config.max_duration))};
        }
      }
      std::optional<T> expected, got;
      const std::optional<request<T, C>> asked = config.round_request(r, backend.origin());
      const outcome want =
          asked ? outcome_of([&] { expected = oracle.earliest_fit(*asked); }) : outcome::ok;
      const outcome have = outcome_of([&] { got = backend.earliest_fit(r); });
      if (want != have || expected != got) {
        std::ostringstream what;
        what << "earliest_fit " << r << ": reference " << name_of(want) << ' '
             << (expected ? std::to_string(*expected) : "nullopt") << ", backend " << name_of(have)
             << ' ' << (got ? std::to_string(*got) : "nullopt");
        fail(op, what.str());
      } else {
        // The mirror question on the same request, rounded as for earliest_fit (the oracle
        // answers it by brute force).
        std::optional<T> latest_expected, latest_got;
        const outcome latest_want =
            asked ? outcome_of([&] { latest_expected = oracle.latest_fit(*asked); }) : outcome::ok;
        const outcome latest_have =
            outcome_of([&] { latest_got = leasehold::latest_fit(backend, r); });
        if (latest_want != latest_have || latest_expected != latest_got) {
          std::ostringstream what;
          what << "latest_fit " << r << ": reference " << name_of(latest_want) << ' '
               << (latest_expected ? std::to_string(*latest_expected) : "nullopt") << ", backend "
               << name_of(latest_have) << ' '
               << (latest_got ? std::to_string(*latest_got) : "nullopt");
          fail(op, what.str());
        }
      }
      if (mismatches == 0 && got && live.size() < config.max_live && uniform(0, 3) != 0) {
        const interval<T> span = config.round_span({*got, static_cast<T>(*got + r.duration)});
        oracle.reserve(span, r.amount);
        backend.reserve(span, r.amount);
        live.push_back({span, r.amount});
      }
    } else if (kind < 45) {  // release a live booking, whole or in part
      if (live.empty()) continue;
      const std::size_t i = uniform(std::size_t{0}, live.size() - 1);
      booking b = live[i];
      live.erase(live.begin() + static_cast<std::ptrdiff_t>(i));
      oracle.release(b.span, b.amount);
      const outcome have = outcome_of([&] { backend.release(b.span, b.amount); });
      if (have != outcome::ok)
        fail(op, std::string("release of a live booking threw ") + name_of(have));
    } else if (kind < 55) {  // a random reserve that may collide: same outcome required
      const interval<T> span = random_span();
      const C amount = config.draw_amount(rng);
      const auto before = blocks_of(backend);
      const outcome want = outcome_of([&] { oracle.reserve(span, amount); });
      const outcome have = outcome_of([&] { backend.reserve(span, amount); });
      if (want != have) {
        std::ostringstream what;
        what << "reserve " << span << ' ' << amount << ": reference " << name_of(want)
             << ", backend " << name_of(have);
        fail(op, what.str());
      } else if (want == outcome::ok) {
        live.push_back({span, amount});
      } else if (blocks_of(backend) != before) {
        fail(op, "a rejected reserve changed the profile");
      }
    } else if (kind < 60) {  // a random release that is usually invalid
      const interval<T> span = random_span();
      const C amount = config.draw_amount(rng);
      const auto before = blocks_of(backend);
      const outcome want = outcome_of([&] { oracle.release(span, amount); });
      const outcome have = outcome_of([&] { backend.release(span, amount); });
      if (want != have) {
        std::ostringstream what;
        what << "release " << span << ' ' << amount << ": reference " << name_of(want)
             << ", backend " << name_of(have);
        fail(op, what.str());
      } else if (want == outcome::ok) {
        // It was valid after all: undo it on both sides to keep the live list truthful.
        oracle.reserve(span, amount);
        backend.reserve(span, amount);
      } else if (blocks_of(backend) != before) {
        fail(op, "a rejected release changed the profile");
      }
    } else if (kind < 72) {  // free_at
      const T t = random_time();
      if (oracle.free_at(t) != backend.free_at(t)) {
        std::ostringstream what;
        what << "free_at(" << t << "): reference " << oracle.free_at(t) << ", backend "
             << backend.free_at(t);
        fail(op, what.str());
      }
    } else if (kind < 84) {  // min_free
      const interval<T> span = random_span();
      if (oracle.min_free(span) != backend.min_free(span)) {
        std::ostringstream what;
        what << "min_free " << span << ": reference " << oracle.min_free(span) << ", backend "
             << backend.min_free(span);
        fail(op, what.str());
      }
    } else if (kind < 88) {  // advance_to: forget the past, cut bookings that span t
      const T wanted = static_cast<T>(backend.origin() + uniform(T{0}, config.max_duration));
      const T t = config.round_span({wanted, static_cast<T>(wanted + 1)}).begin;
      oracle.advance_to(t);
      backend.advance_to(t);
      std::vector<booking> still_live;
      for (booking b : live) {
        if (b.span.end <= backend.origin()) continue;
        b.span.begin = std::max(b.span.begin, backend.origin());
        still_live.push_back(b);
      }
      live = std::move(still_live);
      if (oracle.origin() != backend.origin()) fail(op, "origins differ after advance_to");
    } else if (kind < 90) {  // bad calls: same exception type, nothing changed
      const auto before = blocks_of(backend);
      const T o = backend.origin();
      const auto check_same = [&](const char* what, auto call_oracle, auto call_backend) {
        const outcome want = outcome_of(call_oracle);
        const outcome have = outcome_of(call_backend);
        if (want != have || have == outcome::ok)
          fail(op,
               std::string(what) + ": reference " + name_of(want) + ", backend " + name_of(have));
      };
      check_same(
          "reserve before origin",
          [&] {
            oracle.reserve({static_cast<T>(o - 1), static_cast<T>(o + 5)}, config.total);
          },
          [&] {
            backend.reserve({static_cast<T>(o - 1), static_cast<T>(o + 5)}, config.total);
          });
      check_same(
          "reserve empty span",
          [&] {
            oracle.reserve({o, o}, config.total);
          },
          [&] {
            backend.reserve({o, o}, config.total);
          });
      check_same(
          "release zero",
          [&] {
            oracle.release({o, static_cast<T>(o + 1)}, C{});
          },
          [&] {
            backend.release({o, static_cast<T>(o + 1)}, C{});
          });
      check_same(
          "earliest_fit zero duration",
          [&] {
            (void)oracle.earliest_fit({config.total, T{0}});
          },
          [&] {
            (void)backend.earliest_fit({config.total, T{0}});
          });
      check_same(
          "advance_to the past", [&] { oracle.advance_to(static_cast<T>(o - 1)); },
          [&] { backend.advance_to(static_cast<T>(o - 1)); });
      // A fixed-horizon backend: time past its horizon is out_of_horizon, never a silent
      // answer, and a begin before the origin stays invalid_request.
      if constexpr (requires { backend.horizon(); }) {
        const T end = backend.horizon().end;
        const auto expect = [&](const char* what, outcome wanted, auto call) {
          const outcome have = outcome_of(call);
          if (have != wanted)
            fail(op, std::string(what) + ": expected " + name_of(wanted) + ", backend " +
                         name_of(have));
        };
        expect("reserve of nothing across the horizon end", outcome::invalid_request, [&] {
          backend.reserve({static_cast<T>(end - 1), static_cast<T>(end + 1)}, C{});
        });
        expect("reserve across the horizon end", outcome::out_of_horizon, [&] {
          backend.reserve({static_cast<T>(end - 1), static_cast<T>(end + 1)}, config.total);
        });
        expect("release past the horizon end", outcome::out_of_horizon, [&] {
          backend.release({end, static_cast<T>(end + 1)}, config.total);
        });
        expect("min_free past the horizon end", outcome::out_of_horizon, [&] {
          (void)backend.min_free({o, static_cast<T>(end + 1)});
        });
        expect("free_at the horizon end", outcome::out_of_horizon,
               [&] { (void)backend.free_at(end); });
        expect("reserve before the origin, past the horizon", outcome::invalid_request, [&] {
          backend.reserve({static_cast<T>(o - 1), static_cast<T>(end + 1)}, config.total);
        });
        std::optional<T> answer = o;
        expect("earliest_fit past the horizon end", outcome::ok, [&] {
          answer = backend.earliest_fit({config.total, T{1}, {end, static_cast<T>(end + 10)}});
        });
        if (answer) fail(op, "earliest_fit past the horizon end answered a start");
      }
      if (blocks_of(backend) != before) fail(op, "a rejected call changed the profile");
    } else {  // the whole profile
      if (expected_blocks(oracle, backend) != blocks_of(backend)) fail(op, "free_blocks differ");
    }
    if constexpr (requires { backend.validate(); }) {
      if (op % 16 == 0) {
        try {
          backend.validate();
        } catch (const invariant_violation& e) {
          fail(op, std::string("validate: ") + e.what());
        }
      }
    }
  }
  if (mismatches == 0 && expected_blocks(oracle, backend) != blocks_of(backend))
    fail(operations, "final free_blocks differ");
  return mismatches;
}

}  // namespace leasehold::testing
