// Allocation-failure sweep over the adaptive scheduler (Netto & Buyya): every submit and
// advance_to of a random workload runs with its k-th allocation failing, for every k, until it
// succeeds. After every failed attempt the scheduler's whole observable state (clock, profile
// block for block, every accepted request and its placement, the waiting queue, the metrics)
// must be exactly as before, and the id must still be free to submit; take_finished() is swept
// too (a failed one keeps every completed request). Both strategies, on a
// backend that rolls back in place (free_list, free_tree) and on one restored from a copy
// (capacity_tree). At the end the run must equal one without failures.

#include <cstdint>
#include <map>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include <leasehold/leasehold.hpp>
#include <leasehold/policy/adaptive/scheduler.hpp>

#include "fault/allocation_failure.hpp"
#include "policy/adaptive/random_request.hpp"

using namespace leasehold;
namespace adaptive = leasehold::policy::adaptive;
namespace fault = leasehold::testing::fault;

namespace {

// Everything a caller can observe of the scheduler, as text (metrics prices every placement
// with the scheduler's pricing function, so it also covers the prices).
template <class B>
std::string state_of(const adaptive::scheduler<B>& s) {
  std::ostringstream out;
  out << "now " << s.now() << " waiting " << s.waiting() << " held " << s.held() << '\n';
  for (const auto& block : s.profile().free_blocks())
    out << block.span << ' ' << block.free << '\n';
  s.for_each_accepted(
      [&out](const auto& record) { out << record.request.id << ' ' << record.where << '\n'; });
  const adaptive::adaptive_metrics m = s.metrics();
  out << m.submitted << ' ' << m.accepted << ' ' << m.rejected << ' ' << m.reschedules << ' '
      << m.profit << ' ' << m.mean_response << ' ' << m.reshaped << ' ' << m.split << '\n';
  return out.str();
}

// Drives `s` through a seeded stream of requests; every call goes through `call(f)`.
template <class B, class Call>
void drive(adaptive::scheduler<B>& s, std::uint64_t seed, std::size_t requests, Call call) {
  using T = typename B::time_type;
  using C = typename B::capacity_type;
  std::mt19937_64 rng(seed);
  T now{0};
  for (std::size_t i = 0; i < requests; ++i) {
    now = T(now + std::uniform_int_distribution<int>(0, 12)(rng));
    const auto req = leasehold::testing::random_request<T, C>(rng, i, now, C(16));
    if (i % 5 == 4) call([&s, now] { s.advance_to(now); });
    if (i % 7 == 6) call([&s] { (void)s.take_finished(); });
    call([&s, &req, now] { (void)s.submit(req, now); });
  }
}

template <class B>
void sweep_run(adaptive::strategy order) {
  using T = typename B::time_type;
  using C = typename B::capacity_type;
  constexpr std::size_t requests = 60;
  adaptive::scheduler<B> plain(B(C(16), T{0}), {.order = order});
  drive(plain, 3, requests, [](auto f) { f(); });

  adaptive::scheduler<B> s(B(C(16), T{0}), {.order = order});
  std::size_t failures = 0;
  std::size_t calls = 0;
  drive(s, 3, requests, [&](auto f) {
    ++calls;
    failures += fault::sweep_unchanged(f, [&s] { return state_of(s); }).failures;
  });
  CHECK(state_of(s) == state_of(plain));
  // The sweep must have gone through MDF's rescheduling, not only through FIFO placement.
  if (order == adaptive::strategy::missing_deadline_first) CHECK(plain.metrics().reschedules > 0);
  CHECK(failures > calls);
  MESSAGE(calls << " calls, " << failures << " injected allocation failures");
}

}  // namespace

TEST_CASE_TEMPLATE("fault: the adaptive scheduler gives the strong guarantee under bad_alloc", B,
                   free_list<std::int64_t, std::int64_t>, free_tree<std::int64_t, std::int64_t>,
                   capacity_tree<std::int64_t, std::int64_t>) {
  sweep_run<B>(adaptive::strategy::fifo);
  sweep_run<B>(adaptive::strategy::missing_deadline_first);
}
