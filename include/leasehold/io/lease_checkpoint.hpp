#pragma once

/// \file
/// Checkpoints of the lease scheduler (policy::lease::lease_scheduler): its configuration, its
/// clock, its slot table, every lease record (terms, state, remaining work, current segment,
/// the history of segments), the best-effort queue, the leases holding future reservations,
/// the pending events and the leases booked on each node. A restored scheduler answers every
/// query identically and continues a simulation bit for bit (tests/io/lease_checkpoint_test.cpp
/// resumes a simulation from a mid-run checkpoint to identical metrics).
///
/// Image staging's state is stored with it ("preparation", io/staging_checkpoint.hpp) and
/// restored on load. Not stored: the observer (set it again after loading), the queue order
/// and node choice (code), and any other preparation step, which the caller passes in restored
/// (images_predeployed has no state).
///
/// load_scheduler is strict like load_profile (the checksum first), and it also checks the
/// restored state against itself before returning it: every record as the scheduler would have
/// made it (import_state, policy/lease/detail/lease_checks.hpp; a record at fault is named by
/// its path, down to the member), then validate() (every booking matches the slot table; queue
/// and states agree; events and reservations name booked leases).

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <tuple>
#include <type_traits>
#include <utility>
#include <vector>

#include "leasehold/io/checkpoint.hpp"
#include "leasehold/io/detail/checkpoint_enum_names.hpp"
#include "leasehold/io/detail/fields.hpp"
#include "leasehold/io/json.hpp"
#include "leasehold/io/staging_checkpoint.hpp"
#include "leasehold/policy/lease/lease_scheduler.hpp"

namespace leasehold::io {

namespace detail {

/// The lease structs, member by member in the document's order (fields.hpp writes and reads
/// them from these lists).
template <>
struct object_fields<policy::lease::disk_image> {
  using I = policy::lease::disk_image;
  static constexpr std::tuple fields{field{"id", &I::id}, field{"size_mb", &I::size_mb}};
};

template <time_value T, vector_capacity C>
struct object_fields<policy::lease::lease_terms<T, C>> {
  using L = policy::lease::lease_terms<T, C>;
  static constexpr std::tuple fields{
      field{"id", &L::id}, field{"submit", &L::submit}, field{"kind", &L::kind},
      field{"start", &L::start}, field{"start_window", &L::start_window}, field{"nodes", &L::nodes},
      field{"per_node", &L::per_node}, field{"duration", &L::duration},
      field{"real_duration", &L::real_duration}, field{"preemptible", &L::preemptible},
      field{"image", &L::image}, field{"withdraw", &L::withdraw},
      // Absent in checkpoints written before leases could be held in the queue.
      field{"hold_in_queue", &L::hold_in_queue, absent_in_older_checkpoints}};
};

template <time_value T, vector_capacity C>
struct object_fields<policy::lease::segment<T, C>> {
  using S = policy::lease::segment<T, C>;
  static constexpr std::tuple fields{
      field{"nodes", &S::nodes}, field{"per_node", &S::per_node}, field{"booked", &S::booked},
      field{"run", &S::run},
      // Its phases around the run (docs/leases.md), and when it finishes. Not `transfer`: that
      // is cleared as soon as the segment is booked.
      field{"migrates", &S::migrates}, field{"resumes", &S::resumes},
      field{"suspends", &S::suspends}, field{"completes", &S::completes},
      field{"finish", &S::finish}};
};

template <time_value T>
struct object_fields<policy::lease::segment_record<T>> {
  using H = policy::lease::segment_record<T>;
  static constexpr std::tuple fields{field{"nodes", &H::nodes}, field{"span", &H::span},
                                     field{"run", &H::run}, field{"work", &H::work},
                                     field{"outcome", &H::outcome}};
};

template <time_value T, vector_capacity C>
struct object_fields<policy::lease::lease_record<T, C>> {
  using R = policy::lease::lease_record<T, C>;
  static constexpr std::tuple fields{
      field{"terms", &R::terms}, field{"state", &R::state},
      field{"remaining_max", &R::remaining_max}, field{"remaining_real", &R::remaining_real},
      field{"first_start", &R::first_start}, field{"end", &R::end}, field{"current", &R::current},
      field{"suspended_on", &R::suspended_on},
      // Absent in checkpoints written before migrations could be booked as transfers.
      field{"migration_transfer", &R::migration_transfer, absent_in_older_checkpoints},
      field{"history", &R::history}, field{"suspensions", &R::suspensions},
      field{"migrations", &R::migrations}, field{"cancellations", &R::cancellations},
      field{"rejection", &R::rejection}, field{"generation", &R::generation}};
};

template <>
struct object_fields<policy::lease::backfilling> {
  using B = policy::lease::backfilling;
  static constexpr std::tuple fields{field{"mode", &B::kind},
                                     field{"reservations", &B::reservations}};
};

template <>
struct object_fields<resource_layout> {
  static constexpr std::tuple fields{field{"memory", &resource_layout::memory},
                                     field{"disk", &resource_layout::disk}};
};

template <time_value T>
struct object_fields<policy::lease::scheduler_config<T>> {
  using C = policy::lease::scheduler_config<T>;
  static constexpr bool older = absent_in_older_checkpoints;
  static constexpr std::tuple fields{
      field{"backfill", &C::backfill}, field{"suspend", &C::suspend}, field{"migrate", &C::migrate},
      field{"suspend_rate_mb_s", &C::suspend_rate_mb_s},
      field{"resume_rate_mb_s", &C::resume_rate_mb_s}, field{"network_mb_s", &C::network_mb_s},
      field{"in_vms", &C::in_vms}, field{"runtime_slowdown_percent", &C::runtime_slowdown_percent},
      field{"boot_shutdown", &C::boot_shutdown}, field{"minimum_run", &C::minimum_run},
      field{"reserve_disk_for_memory_state", &C::reserve_disk_for_memory_state},
      field{"strong_guarantee", &C::strong_guarantee},
      // Absent in checkpoints written before finished leases could be retired.
      field{"retire_finished", &C::retire_finished, older},
      // Absent in checkpoints written before any resource vector was allowed: Haizea's layout.
      field{"layout", &C::layout, older},
      // Absent in checkpoints written before Haizea's own choices were options: all off.
      field{"replan", &C::replan, older}, field{"migration_booking", &C::migration_booking, older},
      field{"stretch_reservations", &C::stretch_reservations, older},
      field{"overhead_per_vm", &C::overhead_per_vm, older},
      field{"reservation_overhead_inside", &C::reservation_overhead_inside, older},
      field{"shutdown_after_early_end", &C::shutdown_after_early_end, older},
      field{"suspend_time_fixed", &C::suspend_time_fixed, older},
      field{"resume_time_fixed", &C::resume_time_fixed, older},
      // Absent in checkpoints written before the paper-era Haizea's choices: off.
      field{"reservation_held_until_end", &C::reservation_held_until_end, older},
      field{"stretch_rounds_up", &C::stretch_rounds_up, older},
      field{"suspend_thresholds_per_state", &C::suspend_thresholds_per_state, older},
      // Absent in checkpoints written before the preempted set was an option: all_overlapping.
      field{"preempt", &C::preempt, older}};
};

/// The scheduler's state (policy/lease/scheduler_state.hpp, from export_state()). The queue,
/// the pending events and the leases on each node follow from the records; they are written
/// too, so that a reader can check them, in a canonical order (queue: served order; events:
/// time, kind, id; per node: lease id).
template <class State>
void write_scheduler_state(json_writer& w, const State& state,
                           const std::vector<std::uint64_t>& queue) {
  using T = typename State::time_type;
  write_value(w.key("config"), state.config);
  w.member("now", state.now);
  w.key("table").begin_object();
  write_slot_table_body(w, state.table);
  w.end_object();
  w.key("leases").begin_array();
  for (const auto& record : state.leases) write_value(w, record);
  w.end_array();
  write_ids(w, "queue", queue);
  write_ids(w, "reserved", state.reserved);
  std::vector<std::tuple<T, int, std::uint64_t>> events;
  std::vector<std::vector<std::uint64_t>> on_node(state.table.node_count());
  for (const auto& record : state.leases) {
    for (const auto& e : policy::lease::pending_events(record)) events.push_back(e);
    if (record.current)
      for (std::size_t node : record.current->nodes) on_node[node].push_back(record.terms.id);
  }
  std::ranges::sort(events);
  w.key("events").begin_array();
  for (const auto& [at, order, id] : events)
    w.begin_array().value(at).value(order).value(id).end_array();
  w.end_array();
  w.key("on_node").begin_array();
  for (const auto& ids : on_node) write_id_list(w, ids);
  w.end_array();
  if (!state.finished.empty()) {
    w.key("finished").begin_array();
    for (const auto& record : state.finished) write_value(w, record);
    w.end_array();
  }
}

/// The member of `v` at `path` ("terms.per_node"), or the deepest one of it that is there.
[[nodiscard]] inline const json_value& member_at(const json_value& v, std::string_view path) {
  const json_value* at = &v;
  while (!path.empty() && at->type() == json_value::kind::object) {
    const std::size_t dot = path.find('.');
    const json_value* next = at->find(path.substr(0, dot));
    if (next == nullptr) break;
    at = next;
    path = dot == std::string_view::npos ? std::string_view{} : path.substr(dot + 1);
  }
  return *at;
}

/// Reads the state, checking each part against the document (so that an error names where
/// it is), and builds the scheduler with import_state(), which rebuilds its indexes and
/// checks the records against the slot table.
template <class S, class Make, class Prep>
S read_scheduler_state(const json_value& doc, const Make& make, Prep prep) {
  using T = typename S::time_type;
  using A = typename S::table_type::node_type;
  using policy::lease::lease_state;
  auto config = read_value<policy::lease::scheduler_config<T>>(doc.at("config"));
  const T now = doc.at("now").as_integer<T>();
  const json_value& table_doc = doc.at("table");
  table_doc.only_members({"per_node_total", "origin", "nodes"});
  auto table = read_slot_table_body<A>(table_doc, make);
  if (table.origin() != now)
    doc.at("now").fail("the clock " + std::to_string(now) +
                       " differs from the slot table's origin " + std::to_string(table.origin()));
  const std::size_t node_count = table.node_count();
  typename S::state_type state{config, now, std::move(table), {}, {}, {}};
  std::map<std::uint64_t, const typename S::record_type*> by_id;
  for (const json_value& item : doc.at("leases").as_array())
    state.leases.push_back(read_value<typename S::record_type>(item));
  {
    const auto& items = doc.at("leases").as_array();
    for (std::size_t i = 0; i < state.leases.size(); ++i)
      if (!by_id.emplace(state.leases[i].terms.id, &state.leases[i]).second)
        items[i].fail("lease " + std::to_string(state.leases[i].terms.id) + " appears twice");
  }
  const auto known = [&by_id](const json_value& where,
                              std::uint64_t id) -> const typename S::record_type& {
    const auto it = by_id.find(id);
    if (it == by_id.end()) where.fail("unknown lease " + std::to_string(id));
    return *it->second;
  };
  for (const json_value& item : doc.at("queue").as_array()) {
    const auto& l = known(item, item.as_integer<std::uint64_t>());
    if (l.state != lease_state::queued)
      item.fail("lease " + std::to_string(l.terms.id) + " is in the queue but is not queued");
  }
  for (const json_value& item : doc.at("reserved").as_array()) {
    const auto& l = known(item, item.as_integer<std::uint64_t>());
    const bool running_holds =
        l.state == lease_state::running && state.config.reservation_held_until_end;
    if ((l.state != lease_state::scheduled && !running_holds) || !l.is_best_effort())
      item.fail("lease " + std::to_string(l.terms.id) +
                " holds a reservation but is not a scheduled best-effort lease" +
                (state.config.reservation_held_until_end ? " (or a running one)" : ""));
    state.reserved.push_back(l.terms.id);
  }
  std::set<std::tuple<T, int, std::uint64_t>> events;
  for (const json_value& item : doc.at("events").as_array()) {
    const auto& triple = item.as_array(3);
    const T at = triple[0].as_integer<T>();
    const int order = triple[1].as_integer<int>();
    const auto& l = known(triple[2], triple[2].as_integer<std::uint64_t>());
    const auto expected = policy::lease::pending_events(l);
    if (std::ranges::find(expected, std::tuple{at, order, l.terms.id}) == expected.end())
      item.fail(l.current ? "an event that matches no segment boundary"
                          : "an event for a lease without a segment");
    if (at < now) item.fail("an event in the past");
    events.insert({at, order, l.terms.id});
  }
  const json_value& on_node = doc.at("on_node");
  const auto& per_node = on_node.as_array(node_count);
  for (std::size_t node = 0; node < per_node.size(); ++node)
    for (const json_value& item : per_node[node].as_array()) {
      const auto& l = known(item, item.as_integer<std::uint64_t>());
      if (!l.current || std::ranges::find(l.current->nodes, node) == l.current->nodes.end())
        item.fail("lease " + std::to_string(l.terms.id) + " is not booked on node " +
                  std::to_string(node));
    }
  // Every booked lease must have its events and appear on each of its nodes.
  for (const auto& l : state.leases) {
    for (const auto& e : policy::lease::pending_events(l))
      if (!events.contains(e))
        doc.at("events").fail(
            std::string(std::get<1>(e) == policy::lease::segment_begin_event ? "scheduled lease "
                                                                             : "lease ") +
            std::to_string(l.terms.id) +
            (std::get<1>(e) == policy::lease::segment_begin_event ? " has no begin event"
                                                                  : " has no finish event"));
    if (l.current)
      for (std::size_t node : l.current->nodes)
        if (node >= per_node.size() ||
            std::ranges::count_if(per_node[node].as_array(), [&](const json_value& item) {
              return item.as_integer<std::uint64_t>() == l.terms.id;
            }) != 1)
          on_node.fail("lease " + std::to_string(l.terms.id) + " is missing from node " +
                       std::to_string(node));
  }
  if (const json_value* finished = doc.find("finished"))
    for (const json_value& item : finished->as_array())
      state.finished.push_back(read_value<typename S::record_type>(item));
  const json_value& queue = doc.at("queue");
  S s = [&] {
    try {
      return S::import_state(std::move(state), std::move(prep));
    } catch (const format_error&) {
      throw;
    } catch (const policy::lease::invalid_lease_record& e) {
      // A record the scheduler could not have made: named by its path, down to the member.
      const json_value& records = e.finished() ? doc.at("finished") : doc.at("leases");
      member_at(records.as_array().at(e.index()), e.field()).fail(e.what());
    } catch (const error& e) {
      doc.fail(e.what());
    }
  }();
  if (s.queue() != read_ids<std::uint64_t>(queue))
    queue.fail("the queue is not in the order the scheduler serves it");
  return s;
}

}  // namespace detail

/// The queue order and node choice are code, not state: a restored scheduler gets
/// default-constructed ones (or those of the Scheduler type's defaults).
template <class A, class P, class Q, class N>
void write_scheduler(json_writer& w, const policy::lease::lease_scheduler<A, P, Q, N>& s) {
  w.begin_object();
  detail::write_header(w, "lease_scheduler");
  detail::write_types<typename A::time_type, typename A::capacity_type>(w);
  detail::write_scheduler_state(w, s.export_state(), s.queue());
  if constexpr (requires { s.preparation_step().export_state(); }) {
    w.key("preparation").begin_object();
    write_staging_body(w, s.preparation_step().export_state());
    w.end_object();
  }
  w.end_object();
}

/// The checkpoint text of a lease scheduler's whole state (leases, queue, reservations, the
/// preparation step's state, the clock), with its checksum: what load_scheduler restores.
template <class A, class P, class Q, class N>
[[nodiscard]] std::string save_scheduler(const policy::lease::lease_scheduler<A, P, Q, N>& s) {
  json_writer w;
  write_scheduler(w, s);
  return detail::sealed_text(w);
}

/// Restores a lease_scheduler; `make(total, origin)` builds each node profile (see
/// load_profile). The preparation step: a stateful one that checkpoints itself (image staging)
/// is restored from the checkpoint's "preparation" member, and passing one as well is an error
/// (which of the two would be meant?); any other is `prep`, restored by the caller, or a
/// default-constructed one.
template <class Scheduler, class Make = construct_profile,
          class Prep = typename Scheduler::preparation_type>
[[nodiscard]] Scheduler read_scheduler(
    const json_value& doc, const Make& make = {},
    std::type_identity_t<std::optional<Prep>> prep = std::nullopt) {
  using A = typename Scheduler::table_type::node_type;
  detail::check_header(doc, "lease_scheduler");
  doc.only_members({"format", "version", "checksum", "kind", "time_type", "capacity_type", "config",
                    "now", "table", "leases", "queue", "reserved", "events", "on_node", "finished",
                    "preparation"});
  detail::check_types<typename A::time_type, typename A::capacity_type>(doc);
  const json_value* saved = doc.find("preparation");
  if constexpr (requires(const json_value& v) { read_staging_body<Prep>(v, make); }) {
    if (saved != nullptr) {
      if (prep)
        saved->fail("the checkpoint holds the preparation step's state; pass none to restore it");
      prep.emplace(read_staging_body<Prep>(*saved, make));
    }
  } else if (saved != nullptr) {
    saved->fail("this scheduler's preparation step does not restore from a checkpoint");
  }
  if (!prep) {
    if constexpr (std::default_initializable<Prep>)
      prep.emplace();
    else
      doc.fail("the checkpoint holds no preparation state: pass the preparation step");
  }
  return detail::read_scheduler_state<Scheduler>(doc, make, std::move(*prep));
}

/// Parses `text` and restores the scheduler it holds, with `prep` as its preparation step when
/// the checkpoint holds preparation state. Throws format_error naming the value's path for
/// anything it cannot restore exactly.
template <class Scheduler, class Make = construct_profile,
          class Prep = typename Scheduler::preparation_type>
[[nodiscard]] Scheduler load_scheduler(
    std::string_view text, const Make& make = {},
    std::type_identity_t<std::optional<Prep>> prep = std::nullopt) {
  return read_scheduler<Scheduler>(detail::parse_checkpoint(text), make, std::move(prep));
}

}  // namespace leasehold::io
