// The lease book alone (detail/lease_book.hpp): its changes keep the slot table, the queue,
// the events and the leases on each node in step, without any decision component. Times and
// capacities are derived by hand in the comments (small_book.hpp's cluster and leases).

#include <doctest/doctest.h>

#include <cstdint>
#include <tuple>
#include <vector>

#include <leasehold/policy/lease/detail/lease_book.hpp>

#include "policy/lease/detail/small_book.hpp"

namespace lease_book_test {

using namespace leasehold::test::small_book_test_names;

namespace {

// The segment a best-effort lease of `t` books on node 0 over [begin, begin + duration).
sb::book::segment_type segment_on_node0(const sb::book& b, const sb::record& l, T begin) {
  sb::book::segment_type seg;
  seg.nodes = {0};
  seg.per_node = b.times().booked_vector(l.terms);
  seg.booked = {begin, begin + l.terms.duration};
  seg.run = seg.booked;
  b.times().settle_finish(l, seg);
  return seg;
}

}  // namespace

TEST_CASE("lease_book: booking a segment that begins now runs the lease; unbooking frees all") {
  sb::book b = sb::make(2);
  sb::record& l = sb::add_queued(b, best_effort(1, 0, 1, 100));
  CHECK(b.queue().size() == 1);
  // A suspendable lease books its memory on disk too: {1, 1024, 1024, 0}. Outside VMs its
  // 100 s end at 100, with no shutdown.
  b.book(l, segment_on_node0(b, l, 0));
  CHECK(l.state == lease_state::running);
  CHECK(l.first_start == T{0});
  CHECK(b.queue().empty());
  CHECK(b.events() == std::set<sb::book::event>{{100, sb::book::finish_order, 1}});
  CHECK(b.on_node()[0] == std::vector<std::uint64_t>{1});
  CHECK(b.on_node()[1].empty());
  CHECK(b.table().node(0).free_at(50) == node_resources{1, 1024, 8976, 10});
  CHECK_NOTHROW(b.validate());

  b.unbook(l, 0);
  CHECK(!l.current);
  CHECK(b.events().empty());
  CHECK(b.on_node()[0].empty());
  CHECK(b.table().node(0).free_at(50) == node_resources{2, 2048, 10000, 10});
}

TEST_CASE("lease_book: a segment booked for later is scheduled, with a begin and a finish event") {
  sb::book b = sb::make(1);
  sb::record& l = sb::add_queued(b, best_effort(1, 0, 1, 100));
  b.book(l, segment_on_node0(b, l, 50));
  CHECK(l.state == lease_state::scheduled);
  CHECK(!l.first_start);
  CHECK(b.events() == std::set<sb::book::event>{{50, sb::book::begin_order, 1},
                                                {150, sb::book::finish_order, 1}});
  // The clock reaches the begin: the book hands out the event, the lease begins.
  b.move_clock(50);
  CHECK(b.now() == 50);
  CHECK(b.table().origin() == 50);  // outside a transaction the table moves at once
  const auto [at, order, id] = b.take_next_event();
  CHECK(std::tie(at, order, id) == std::tuple<T, int, std::uint64_t>{50, sb::book::begin_order, 1});
  b.begin_segment(b.edit(1), at);
  CHECK(b.lease(1).state == lease_state::running);
  CHECK(b.lease(1).first_start == T{50});
  CHECK_NOTHROW(b.validate());
}

TEST_CASE("lease_book: export_state and import_records give back the same book") {
  sb::book b = sb::make(2);
  sb::record& l = sb::add_queued(b, best_effort(1, 0, 1, 100));
  b.book(l, segment_on_node0(b, l, 50));
  b.hold_reservation(1);
  sb::add_queued(b, best_effort(2, 0, 2, 100));
  auto state = b.export_state();
  sb::book copy(state.table, state.config, {}, {}, {});
  copy.import_records(state);
  CHECK(copy.leases() == b.leases());
  CHECK(copy.queue() == b.queue());
  CHECK(copy.events() == b.events());
  CHECK(copy.reserved() == b.reserved());
  CHECK(copy.on_node() == b.on_node());
  CHECK_NOTHROW(copy.validate());
}

}  // namespace lease_book_test
