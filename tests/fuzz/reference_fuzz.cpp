// libFuzzer harness: reference (the oracle itself) against a per-tick array over [origin,
// origin + 512), the most literal model of DESIGN.md's semantics: reserve and release
// subtract and add per tick, earliest_fit tries every start in turn. Only in-range, valid
// calls are made; bad input to reference is covered by the other harnesses, which compare
// its exception types against every backend.

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <vector>

#include "fuzz/availability_fuzz.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace leasehold;
  using T = std::int64_t;
  constexpr T horizon = 512;
  fuzzing::fuzz_input in(data, size);
  const T total = in.in(1, 10);
  const T origin = in.in(-50, 50);
  reference<T, T> r(total, origin);
  std::vector<T> ticks(static_cast<std::size_t>(horizon), total);  // tick i is origin + i
  T shift = 0;                                                     // ticks dropped by advance_to
  auto at = [&](T t) -> T& { return ticks[static_cast<std::size_t>(t - origin - shift)]; };
  const auto end_of_model = [&] { return r.origin() + horizon; };  // the model's reach
  for (int ops = 0; ops < 300 && !in.empty(); ++ops) {
    switch (in.byte() % 4) {
      case 0: {  // earliest_fit inside the model
        const T amount = in.in(1, total);
        const T duration = in.in(1, 64);
        const T begin = r.origin() + in.in(0, 200);
        const T end = std::min(end_of_model(), begin + duration + in.in(0, 200));
        if (end - begin < duration) break;
        std::optional<T> want;
        for (T s = begin; s + duration <= end && !want; ++s) {
          bool ok = true;
          for (T t = s; t < s + duration && ok; ++t) ok = at(t) >= amount;
          if (ok) want = s;
        }
        const auto got = r.earliest_fit({amount, duration, {begin, end}});
        if (got != want) fuzzing::mismatch("reference earliest_fit differs from the tick model");
        break;
      }
      case 1: {  // reserve where it fits everywhere, else expect insufficient_capacity
        const T begin = r.origin() + in.in(0, 300);
        const T end = std::min(end_of_model(), begin + in.in(1, 64));
        if (end <= begin) break;
        const T amount = in.in(1, total);
        bool fits_all = true;
        for (T t = begin; t < end; ++t) fits_all = fits_all && at(t) >= amount;
        const auto o = fuzzing::outcome_of([&] { r.reserve({begin, end}, amount); });
        if (o != (fits_all ? fuzzing::outcome::ok : fuzzing::outcome::insufficient_capacity))
          fuzzing::mismatch("reference reserve outcome differs from the tick model");
        if (fits_all)
          for (T t = begin; t < end; ++t) at(t) -= amount;
        break;
      }
      case 2: {  // release where booked, else expect invalid_release
        const T begin = r.origin() + in.in(0, 300);
        const T end = std::min(end_of_model(), begin + in.in(1, 64));
        if (end <= begin) break;
        const T amount = in.in(1, total);
        bool booked = true;
        for (T t = begin; t < end; ++t) booked = booked && total - at(t) >= amount;
        const auto o = fuzzing::outcome_of([&] { r.release({begin, end}, amount); });
        if (o != (booked ? fuzzing::outcome::ok : fuzzing::outcome::invalid_release))
          fuzzing::mismatch("reference release outcome differs from the tick model");
        if (booked)
          for (T t = begin; t < end; ++t) at(t) += amount;
        break;
      }
      default: {  // advance_to by a few ticks
        const T by = in.in(0, 8);
        r.advance_to(r.origin() + by);
        shift += by;
        ticks.erase(ticks.begin(), ticks.begin() + static_cast<std::ptrdiff_t>(by));
        ticks.resize(static_cast<std::size_t>(horizon), total);  // model grows at the end
        break;
      }
    }
    fuzzing::validated(r, "an operation");
    for (T t = r.origin(); t < end_of_model(); ++t)
      if (r.free_at(t) != at(t)) fuzzing::mismatch("reference free_at differs from the tick model");
  }
  return 0;
}
