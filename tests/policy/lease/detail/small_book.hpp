#pragma once

// A small lease book (detail/lease_book.hpp) built by hand, for the tests that drive one
// component of the lease scheduler directly (lease_book_test, transactions_test,
// lease_times_test, reservation_admission_test, best_effort_planning_test, event_clock_test,
// lease_checks_test).
//
// Unless a test says otherwise: nodes of {2 CPUs, 2048 MB, 10000 MB disk, 10 MB/s}; every lease
// asks for {1 CPU, 1024 MB} per node (scenarios.hpp); leases do not run in VMs; suspending
// 1024 MB takes 1024 / 102.4 = 10 s, resuming 1024 / 51.2 = 20 s; no migration.

#include <cstddef>
#include <cstdint>

#include <leasehold/availability/free_list.hpp>
#include <leasehold/cluster/slot_table.hpp>
#include <leasehold/policy/lease/config.hpp>
#include <leasehold/policy/lease/detail/lease_book.hpp>
#include <leasehold/policy/lease/node_choice.hpp>
#include <leasehold/policy/lease/preparation.hpp>
#include <leasehold/policy/lease/queue_order.hpp>

#include "policy/lease/scenarios.hpp"

namespace leasehold::test::small_book {

using T = std::int64_t;
using backend = free_list<T, node_resources>;
using book =
    policy::lease::detail::lease_book<backend, policy::lease::images_predeployed,
                                      policy::lease::fifo_order, policy::lease::lowest_node_id>;
using record = book::record_type;
using terms = book::terms_type;

// The scenarios' configuration (scenarios.hpp), migration off.
using lease_scenarios::config;

// `nodes` nodes of {2 CPUs, 2048 MB, 10000 MB disk, 10 MB/s}, the clock at 0.
inline book make(std::size_t nodes, const policy::lease::scheduler_config<T>& c = config()) {
  return book(cluster::slot_table<backend>(nodes, node_resources{2, 2048, 10000, 10}), c, {}, {},
              {});
}

// A new lease's record in the book, as submit() makes it (not yet queued or booked).
inline record& add(book& b, const terms& t) {
  record& l = b.add_lease(t.id, record{});
  l.terms = t;
  l.remaining_max = t.duration;
  l.remaining_real = t.real_duration > 0 ? t.real_duration : t.duration;
  return l;
}

// A new best-effort lease, queued.
inline record& add_queued(book& b, const terms& t) {
  record& l = add(b, t);
  b.enqueue(l);
  return l;
}

}  // namespace leasehold::test::small_book

// What every component test names, brought in by one using-directive in its namespace: the
// scenario tests' names (scenarios.hpp) and sb for this file.
namespace leasehold::test::small_book_test_names {
using namespace leasehold::test::lease_scenario_names;
namespace sb = small_book;
}  // namespace leasehold::test::small_book_test_names
