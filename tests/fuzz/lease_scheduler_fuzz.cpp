// libFuzzer harness: the lease scheduler fed a byte-encoded stream of leases (best-effort,
// advance reservations with a start or a window, immediate; sometimes malformed), withdrawals,
// releases and clock advances, in one of several configurations, on a small cluster over a
// short horizon (a few nodes of 2 CPUs, leases of minutes), so that advance reservations
// preempt running leases, suspended leases resume or migrate and leases end early in most
// inputs. A call rejected with invalid_lease must leave the scheduler exactly as it was (its
// clock, lease records, queue, next event and free blocks);
// validate() (the slot table matches the bookings, queue and states agree) runs where the
// input asks for it, after the last call and after the run to the end; and some inputs save a
// checkpoint, restore it and save it again, identically (a text already restored identically
// earlier in the process is not restored again). The costly checks (validate, the checkpoint
// text) are not made after every call. With the coverage and ASan settings below (and in
// lease_scheduler_coverage.txt), that keeps the harness above 1,000 inputs per CPU second.

#include <array>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <optional>
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

// What a refused call must leave as it was: the clock, every lease record, the queue, the
// next event and every node's free blocks (and the aggregate's). Compared directly, not as
// checkpoint text, which would cost more than the rest of the harness.
struct snapshot {
  T now{};
  std::map<std::uint64_t, lease_record<T>> leases;
  std::vector<std::uint64_t> queue;
  std::optional<T> next_event;
  std::vector<std::vector<free_block<T, node_resources>>> blocks;

  explicit snapshot(const scheduler& s)
      : now(s.now()), leases(s.leases()), queue(s.queue()), next_event(s.next_event_time()) {
    for (std::size_t node = 0; node < s.table().node_count(); ++node)
      blocks.push_back(s.table().node(node).free_blocks());
    blocks.push_back(s.table().aggregate().free_blocks());
  }
  friend bool operator==(const snapshot&, const snapshot&) = default;
};

// Whether this checkpoint text was loaded and saved again before in this process (then it came
// back identical, or the process would have stopped). Most inputs that ask for the round trip are
// mutations that end in a state an earlier input reached, and loading costs more than the rest of
// an input. The texts are remembered as 64-bit hashes (two distinct texts of a run sharing one:
// below one chance in 10^10) in a table allocated once, direct-mapped: a text whose slot another
// took is simply loaded again. No allocation per input, so libFuzzer sees no growing heap (which
// it would take for a leak and run the input again to check). An input that fails here fails the
// same way when replayed alone.
bool round_tripped_before(const std::string& text) {
  static std::array<std::size_t, std::size_t{1} << 16> seen{};
  const std::size_t hash = std::hash<std::string>{}(text);
  std::size_t& slot = seen[hash % seen.size()];
  if (slot == hash && hash != 0) return true;
  slot = hash;
  return false;
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
  const std::uint8_t choices = in.byte();
  if (choices % 2 == 0) c.migrate = migration::none;
  // Haizea's choices (slide-back re-planning and the rest), of its later or its paper-era code.
  if (choices / 2 % 2 == 0)
    c = c.with_haizea(choices / 8 % 2 == 0 ? haizea_preset::hpdc08 : haizea_preset::tests);
  if (choices / 4 % 2 == 0) c.preempt = preemption_set::minimal;
  return c;
}

}  // namespace

// No allocation or deallocation stacks in ASan's reports: recording them on every allocation was
// a tenth of this harness's time. A report still shows where the bad access happened; replay the
// input with ASAN_OPTIONS=malloc_context_size=30 to see where the memory was allocated and freed.
extern "C" const char* __asan_default_options() { return "malloc_context_size=0"; }

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  fuzzing::fuzz_input in(data, size);
  const auto nodes = static_cast<std::size_t>(in.in(1, 4));
  // Mostly disk enough for every lease's memory state; sometimes too little (refusals).
  const std::int64_t disk = in.byte() % 4 == 0 ? in.in(0, 8000) : 10000;
  scheduler s(
      cluster::slot_table<free_list<T, node_resources>>(nodes, node_resources{2, 2048, disk, 10}),
      config_from(in));
  const bool round_trip = in.byte() % 8 == 0;
  T now = 0;
  std::uint64_t next_id = 1;
  std::vector<std::uint64_t> ids;
  // A call that throws invalid_lease must change nothing.
  const auto unchanged = [&s](const snapshot& before, const char* what) {
    if (!(snapshot(s) == before)) finding(what);
  };
  for (int ops = 0; ops < 40 && !in.empty(); ++ops) {
    now += in.in(0, 60);
    const std::uint8_t op = in.byte() % 8;
    if (op < 4) {  // submit
      lease_terms<T> t;
      t.id =
          in.byte() % 16 == 0 && !ids.empty() ? ids.front() : next_id++;  // sometimes a duplicate
      t.submit = now - in.in(0, 3) * (in.byte() % 8 == 0 ? 1 : 0);
      // Mostly valid terms, sometimes at or past their bounds (refused, changing nothing).
      const bool edge = in.byte() % 8 == 0;
      t.nodes = edge ? in.in(0, static_cast<std::int64_t>(nodes) + 1)
                     : in.in(1, static_cast<std::int64_t>(nodes));
      const std::int64_t cpus = in.byte() % 8 == 0 ? 0 : in.in(1, 2);
      t.per_node = {cpus, in.in(0, 2048), in.in(0, 600), in.in(0, 10)};
      t.duration = edge ? in.in(-1, 400) : in.in(1, 400);
      t.real_duration = edge ? in.in(0, 400) : in.in(0, t.duration);  // 0: runs to its maximum
      t.preemptible = in.byte() % 4 != 0;
      if (in.byte() % 3 == 0) t.image = disk_image{"img", in.in(-1, 4000)};
      switch (op) {
        case 0:
          t.kind = lease_kind::advance_reservation;
          t.start = now + in.in(-10, 600);
          t.preemptible = false;
          break;
        case 1:
          t.kind = lease_kind::advance_reservation;
          t.start_window = interval<T>{now + in.in(-10, 300), now + in.in(-10, 600)};
          t.preemptible = false;
          break;
        case 2:
          t.kind = in.byte() % 4 == 0 ? lease_kind::immediate : lease_kind::best_effort;
          break;
        default:
          t.kind = lease_kind::best_effort;
          if (in.byte() % 4 == 0) t.withdraw = now + in.in(0, 200);
      }
      const snapshot before(s);
      try {
        (void)s.submit(t, now);
        ids.push_back(t.id);
      } catch (const invalid_lease&) {
        unchanged(before, "a rejected submit changed the scheduler");
      }
    } else if (op == 4 && !ids.empty()) {  // withdraw
      const auto id =
          ids[static_cast<std::size_t>(in.in(0, static_cast<std::int64_t>(ids.size()) - 1))];
      (void)s.withdraw(id, now);
    } else if (op == 5 && !ids.empty()) {  // release a lease the execution manager says is done
      const auto id =
          ids[static_cast<std::size_t>(in.in(0, static_cast<std::int64_t>(ids.size()) - 1))];
      const snapshot before(s);
      try {
        s.release(id, now);
      } catch (const invalid_lease&) {
        // Not running once the clock reached `now`: the whole call, clock included, is undone.
        unchanged(before, "a refused release changed the scheduler");
      }
    } else if (op == 6) {  // the scheduler's own events
      if (const auto next = s.next_event_time(); next && *next >= now) now = *next;
      s.advance_to(now);
    } else {  // a check in the middle of the run
      check(s, "the calls so far");
    }
  }
  check(s, "the last call");
  if (round_trip) {  // checkpoint round trip
    const std::string text = io::save_scheduler(s);
    if (round_tripped_before(text)) {
      // save(load(text)) depends on the text alone, and this text already came back identical.
    } else {
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
  }
  if (s.next_event_time()) finding("events left after 100000 steps");
  check(s, "the final advance_to");
  return 0;
}
