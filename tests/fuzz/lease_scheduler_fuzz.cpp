// libFuzzer harness: the lease scheduler fed a byte-encoded stream of leases (best-effort,
// advance reservations with a start or a window, immediate; sometimes malformed), withdrawals,
// releases and clock advances, in one of several configurations. After every call validate()
// must pass (the slot table matches the bookings, queue and states agree); a call rejected
// with invalid_lease must leave the scheduler exactly as it was (its checkpoint text is
// unchanged); and now and then a checkpoint is saved, restored and saved again, identically.

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include <leasehold/io/lease_checkpoint.hpp>
#include <leasehold/policy/lease/lease_scheduler.hpp>

#include "fuzz/fuzz_input.hpp"

namespace {

using namespace leasehold;
using namespace leasehold::policy::lease;
using T = std::int64_t;
using scheduler = lease_scheduler<>;

[[noreturn]] void finding(const std::string& what) {
  std::fprintf(stderr, "leasehold fuzz finding: %s\n", what.c_str());
  std::abort();
}

void check(const scheduler& s, const char* after) {
  try {
    s.validate();
  } catch (const invariant_violation& e) {
    finding(std::string("validate() after ") + after + ": " + e.what());
  }
}

scheduler_config<T> config_from(fuzzing::fuzz_input& in) {
  scheduler_config<T> c;
  switch (in.byte() % 4) {
    case 0:
      c = scheduler_config<T>::novm_nosr();
      break;
    case 1:
      c = scheduler_config<T>::novm_sr();
      break;
    default:
      break;
  }
  switch (in.byte() % 4) {
    case 0:
      c.backfill = backfilling::off();
      break;
    case 1:
      c.backfill = backfilling::conservative();
      break;
    case 2:
      c.backfill = backfilling::intermediate(static_cast<std::size_t>(in.in(1, 3)));
      break;
    default:
      break;
  }
  if (in.byte() % 2 == 0) c.migrate = migration::none;
  // Haizea's choices (slide-back re-planning and the rest), of its later or its paper-era code.
  if (const auto b = in.byte(); b % 2 == 0)
    c = c.with_haizea(b % 4 == 0 ? haizea_preset::hpdc08 : haizea_preset::tests);
  return c;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  fuzzing::fuzz_input in(data, size);
  const auto nodes = static_cast<std::size_t>(in.in(1, 6));
  scheduler s(cluster::slot_table<free_list<T, node_resources>>(
                  nodes, node_resources{2, 2048, in.in(0, 8000), 10}),
              config_from(in));
  T now = 0;
  std::uint64_t next_id = 1;
  std::vector<std::uint64_t> ids;
  for (int ops = 0; ops < 120 && !in.empty(); ++ops) {
    now += in.in(0, 300);
    const std::uint8_t op = in.byte() % 8;
    if (op < 4) {  // submit
      lease_terms<T> t;
      t.id =
          in.byte() % 16 == 0 && !ids.empty() ? ids.front() : next_id++;  // sometimes a duplicate
      t.submit = now - in.in(0, 3) * (in.byte() % 8 == 0 ? 1 : 0);
      t.nodes = in.in(0, static_cast<std::int64_t>(nodes) + 1);
      t.per_node = {in.in(0, 2), in.in(0, 2048), in.in(0, 600), in.in(0, 10)};
      t.duration = in.in(-1, 2000);
      t.real_duration = in.in(0, 2000);
      t.preemptible = in.byte() % 4 != 0;
      if (in.byte() % 3 == 0) t.image = disk_image{"img", in.in(-1, 4000)};
      switch (op) {
        case 0:
          t.kind = lease_kind::advance_reservation;
          t.start = now + in.in(-10, 3000);
          t.preemptible = false;
          break;
        case 1:
          t.kind = lease_kind::advance_reservation;
          t.start_window = interval<T>{now + in.in(-10, 1000), now + in.in(-10, 3000)};
          t.preemptible = false;
          break;
        case 2:
          t.kind = in.byte() % 4 == 0 ? lease_kind::immediate : lease_kind::best_effort;
          break;
        default:
          t.kind = lease_kind::best_effort;
          if (in.byte() % 4 == 0) t.withdraw = now + in.in(0, 500);
      }
      const std::string before = io::save_scheduler(s);
      try {
        (void)s.submit(t, now);
        ids.push_back(t.id);
      } catch (const invalid_lease&) {
        if (io::save_scheduler(s) != before) finding("a rejected submit changed the scheduler");
      }
      check(s, "submit");
    } else if (op == 4 && !ids.empty()) {  // withdraw
      const auto id =
          ids[static_cast<std::size_t>(in.in(0, static_cast<std::int64_t>(ids.size()) - 1))];
      (void)s.withdraw(id, now);
      check(s, "withdraw");
    } else if (op == 5 && !ids.empty()) {  // release a lease the execution manager says is done
      const auto id =
          ids[static_cast<std::size_t>(in.in(0, static_cast<std::int64_t>(ids.size()) - 1))];
      const std::string before = io::save_scheduler(s);
      try {
        s.release(id, now);
      } catch (const invalid_lease&) {
        // Not running once the clock reached `now`: the whole call, clock included, is undone.
        if (io::save_scheduler(s) != before) finding("a refused release changed the scheduler");
      }
      check(s, "release");
    } else if (op == 6) {  // the scheduler's own events
      if (const auto next = s.next_event_time(); next && *next >= now) now = *next;
      s.advance_to(now);
      check(s, "advance_to");
    } else {  // checkpoint round trip
      const std::string text = io::save_scheduler(s);
      const scheduler back = io::load_scheduler<scheduler>(text);
      if (io::save_scheduler(back) != text) finding("checkpoint round trip differs");
    }
  }
  // Run to the end: everything booked finishes.
  for (int guard = 0; guard < 100000; ++guard) {
    const auto next = s.next_event_time();
    if (!next) break;
    s.advance_to(std::max(now, *next));
    now = std::max(now, *next);
    check(s, "the final advance_to");
  }
  if (s.next_event_time()) finding("events left after 100000 steps");
  return 0;
}
