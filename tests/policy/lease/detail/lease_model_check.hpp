#pragma once

// Small random scenarios run through the lease model (lease_model.hpp) and through
// lease_scheduler, compared lease for lease: state, first start, end, every segment (nodes,
// span, run, work, how it ended) and the counts of suspensions, migrations, cancellations.
// Shared by the randomised test and the fuzz harness; the draws come from any
// `draw(lo, hi)` returning a value in [lo, hi], so a seed or a fuzzer's bytes make a scenario.

#include <cstddef>
#include <cstdint>
#include <map>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

#include <leasehold/availability/free_list.hpp>
#include <leasehold/cluster/slot_table.hpp>
#include <leasehold/policy/lease/lease_scheduler.hpp>

#include "policy/lease/detail/lease_model.hpp"

namespace leasehold::test::lease_model {

// Which features a random scenario may use.
struct features {
  bool reservations = true;
  bool withdrawals = true;
  bool early_ends = true;
  bool suspension = true;
  bool migration = true;
  bool vms = true;                      // slowdown and boot + shutdown
  bool immediate = true;                // immediate leases
  bool windows = true;                  // advance reservations with a window of starts
  bool always_migrate = false;          // suspension and migration in every scenario
  std::int64_t reservation_one_in = 4;  // a lease is an advance reservation with this odds
  bool releases = true;  // leases of unknown real duration released by the execution manager
  bool held = true;      // leases held in the queue until withdrawn
  std::int64_t max_nodes = 4;
  std::int64_t max_leases = 6;
};

template <class Draw>
scenario random_scenario(Draw&& draw, const features& f) {
  scenario s;
  s.nodes = static_cast<std::size_t>(draw(1, f.max_nodes));
  switch (draw(0, 3)) {
    case 0:
      s.config.backfill = backfill_mode::off;
      break;
    case 1:
      s.config.backfill = backfill_mode::aggressive;
      break;
    case 2:
      s.config.backfill = backfill_mode::intermediate;
      s.config.reservations = static_cast<std::size_t>(draw(1, 3));
      break;
    default:
      s.config.backfill = backfill_mode::conservative;
  }
  s.config.suspend = f.always_migrate || (f.suspension && draw(0, 1) == 1);
  s.config.migrate = f.always_migrate || (s.config.suspend && f.migration && draw(0, 1) == 1);
  s.config.suspend_rate = draw(10, 40);
  s.config.resume_rate = draw(10, 40);
  s.config.network_rate = draw(10, 40);
  if (f.vms && draw(0, 1) == 1) {
    s.config.in_vms = true;
    constexpr std::int64_t slowdowns[] = {0, 5, 50};
    s.config.slowdown_percent = slowdowns[draw(0, 2)];
    // Suspension times are 1 to 6 s here: shorter and longer shutdowns both occur.
    s.config.boot_shutdown = draw(0, 8);
  }
  const auto count = draw(1, f.max_leases);
  T submit = 0;
  for (std::int64_t i = 0; i < count; ++i) {
    submit += draw(0, 4);
    terms t;
    t.id = static_cast<std::uint64_t>(i + 1);
    t.submit = submit;
    t.nodes = draw(1, static_cast<std::int64_t>(s.nodes));
    t.per_node = {1, draw(10, 60), 0, 0};
    t.duration = draw(1, 12);
    t.real_duration = f.early_ends && draw(0, 2) == 0 ? draw(1, t.duration) : t.duration;
    if (f.reservations && draw(1, f.reservation_one_in) == 1) {
      t.kind = lease_kind::advance_reservation;
      if (f.windows && draw(0, 2) == 0) {
        const T from = submit + draw(-2, 8);
        t.start_window = interval<T>{from, std::max<T>(from + draw(0, 8), submit)};
      } else {
        t.start = submit + draw(0, 12);
      }
      t.preemptible = false;
      t.real_duration = t.duration;
    } else if (f.immediate && draw(0, 7) == 0) {
      t.kind = lease_kind::immediate;
      t.preemptible = false;
      t.real_duration = t.duration;
    } else if (f.withdrawals && draw(0, 4) == 0) {
      s.calls.push_back({submit + draw(0, 8), t.id});
      t.hold_in_queue = f.held && draw(0, 2) == 0;
    } else if (f.releases && draw(0, 5) == 0) {
      t.real_duration = 0;  // unknown: runs to its maximum unless released
      s.calls.push_back({submit + draw(0, 16), t.id, true});
    }
    s.leases.push_back(t);
  }
  std::stable_sort(s.calls.begin(), s.calls.end(),
                   [](const call& a, const call& b) { return a.at < b.at; });
  return s;
}

inline policy::lease::scheduler_config<T> scheduler_config_of(const model_config& m) {
  using namespace policy::lease;
  auto c = m.suspend ? scheduler_config<T>::novm_sr() : scheduler_config<T>::novm_nosr();
  c.backfill = m.backfill == backfill_mode::off          ? backfilling::off()
               : m.backfill == backfill_mode::aggressive ? backfilling::aggressive()
               : m.backfill == backfill_mode::intermediate
                   ? backfilling::intermediate(m.reservations)
                   : backfilling::conservative();
  c.in_vms = m.in_vms;
  c.runtime_slowdown_percent = m.slowdown_percent;
  c.boot_shutdown = m.boot_shutdown;
  c.migrate = m.migrate ? migration::allowed : migration::none;
  c.suspend_rate_mb_s = static_cast<double>(m.suspend_rate);
  c.resume_rate_mb_s = static_cast<double>(m.resume_rate);
  c.network_mb_s = static_cast<double>(m.network_rate);
  return c;
}

// The scheduler's records, in the model's terms.
inline std::map<std::uint64_t, result> run_scheduler(const scenario& s) {
  using namespace policy::lease;
  lease_scheduler<> sched(cluster::slot_table<free_list<T, node_resources>>(
                              s.nodes, node_resources{1, 1'000, 1'000'000, 10}),
                          scheduler_config_of(s.config));
  std::size_t c = 0;
  auto calls_until = [&](auto before) {
    for (; c < s.calls.size() && before(s.calls[c].at); ++c) {
      const call& x = s.calls[c];
      sched.advance_to(x.at);
      if (!x.release) {
        (void)sched.withdraw(x.id, x.at);
      } else if (sched.lease(x.id).state == lease_state::running) {
        sched.release(x.id, x.at);  // a lease not running cannot be released
      }
    }
  };
  for (const auto& t : s.leases) {
    calls_until([&](T at) { return at < t.submit; });
    sched.advance_to(t.submit);
    (void)sched.submit(t, t.submit);
  }
  calls_until([](T) { return true; });
  while (const auto next = sched.next_event_time()) sched.advance_to(*next);
  std::map<std::uint64_t, result> out;
  for (const auto& [id, l] : sched.leases()) {
    result r;
    switch (l.state) {
      case lease_state::queued:
        r.st = state::queued;
        break;
      case lease_state::scheduled:
        r.st = state::scheduled;
        break;
      case lease_state::running:
        r.st = state::running;
        break;
      case lease_state::done:
        r.st = state::done;
        break;
      case lease_state::rejected:
        r.st = state::rejected;
        break;
      case lease_state::withdrawn:
        r.st = state::withdrawn;
        break;
    }
    r.first_start = l.first_start;
    r.end = l.end;
    for (const auto& h : l.history) {
      segment seg{h.nodes, h.span, h.run, h.work, outcome::completed};
      if (h.outcome == segment_outcome::suspended) seg.how = outcome::suspended;
      if (h.outcome == segment_outcome::cancelled) seg.how = outcome::cancelled;
      if (h.outcome == segment_outcome::released) seg.how = outcome::released;
      r.history.push_back(seg);
    }
    r.suspensions = l.suspensions;
    r.migrations = l.migrations;
    r.cancellations = l.cancellations;
    out[id] = r;
  }
  return out;
}

inline const char* name(state s) {
  constexpr const char* names[] = {"queued", "scheduled", "running",
                                   "done",   "rejected",  "withdrawn"};
  return names[static_cast<int>(s)];
}

inline std::string describe(const scenario& s) {
  std::ostringstream out;
  out << s.nodes << " nodes, backfilling "
      << (s.config.backfill == backfill_mode::off            ? "off"
          : s.config.backfill == backfill_mode::aggressive   ? "aggressive"
          : s.config.backfill == backfill_mode::intermediate ? "intermediate"
                                                             : "conservative");
  if (s.config.backfill == backfill_mode::intermediate) out << '(' << s.config.reservations << ')';
  if (s.config.in_vms)
    out << ", in VMs (slowdown " << s.config.slowdown_percent << " %, boot + shutdown "
        << s.config.boot_shutdown << ')';
  out << (s.config.suspend ? ", suspension" : ", no suspension")
      << (s.config.migrate ? ", migration" : "") << ", rates (suspend, resume, network) "
      << s.config.suspend_rate << ' ' << s.config.resume_rate << ' ' << s.config.network_rate
      << " MB/s\n";
  for (const auto& t : s.leases) {
    out << "  lease " << t.id << ": submit " << t.submit << ", "
        << (t.kind == lease_kind::advance_reservation ? "AR"
            : t.kind == lease_kind::immediate         ? "immediate"
                                                      : "best-effort")
        << ", " << t.nodes << " nodes, memory " << t.per_node[node_component::memory_mb] << " MB, duration "
        << t.duration;
    if (t.start) out << ", start " << *t.start;
    if (t.start_window) out << ", starts " << t.start_window->begin << ".." << t.start_window->end;
    if (t.real_duration != t.duration) out << ", real " << t.real_duration;
    if (t.hold_in_queue) out << ", held in the queue";
    out << '\n';
  }
  for (const auto& x : s.calls)
    out << (x.release ? "  release " : "  withdraw ") << x.id << " at " << x.at << '\n';
  return out.str();
}

inline std::string describe(const result& r) {
  std::ostringstream out;
  out << name(r.st) << ", start " << (r.first_start ? std::to_string(*r.first_start) : "-")
      << ", end " << (r.end ? std::to_string(*r.end) : "-") << ", s/m/c " << r.suspensions << '/'
      << r.migrations << '/' << r.cancellations;
  constexpr const char* how[] = {"completed", "suspended", "cancelled", "released"};
  for (const auto& seg : r.history) {
    out << "\n      " << seg.span << " runs " << seg.run << " work " << seg.work << " on {";
    for (std::size_t n : seg.nodes) out << ' ' << n;
    out << " } " << how[static_cast<int>(seg.how)];
  }
  return out.str();
}

// The first lease on which the model's records differ from `actual`, described, or nothing.
inline std::optional<std::string> difference(const scenario& s,
                                             const std::map<std::uint64_t, result>& actual) {
  const auto expected = run_model(s);
  for (const auto& [id, want] : expected) {
    const auto it = actual.find(id);
    if (it != actual.end() && it->second == want) continue;
    std::ostringstream out;
    out << describe(s) << "lease " << id << ":\n  model:     " << describe(want)
        << "\n  scheduler: " << (it == actual.end() ? "missing" : describe(it->second));
    return out.str();
  }
  return std::nullopt;
}

struct verdict {
  std::optional<std::string> difference;  // against the document's rules
  // The scheduler agrees with the model once a suspended lease migrates whenever its
  // migration segment begins sooner (rather than resumes sooner): the known difference.
  bool known_migration_rule = false;
  [[nodiscard]] bool agrees() const { return !difference || known_migration_rule; }
};

inline verdict compare(const scenario& s) {
  const auto actual = run_scheduler(s);
  verdict v;
  v.difference = difference(s, actual);
  if (v.difference && s.config.migrate) {
    scenario code_rule = s;
    code_rule.config.migrate_when_resumed_sooner = false;
    v.known_migration_rule = !difference(code_rule, actual);
  }
  return v;
}

}  // namespace leasehold::test::lease_model
