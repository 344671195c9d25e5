// The lease scheduler's transactions (detail/transactions.hpp) driven on a hand-built book: a
// body that throws leaves the book exactly as it was; one that returns keeps its changes, and
// the observer hears of them only then.

#include <doctest/doctest.h>

#include <cstddef>
#include <cstdint>
#include <span>
#include <stdexcept>
#include <vector>

#include <leasehold/policy/lease/detail/transactions.hpp>
#include <leasehold/policy/lease/observer.hpp>

#include "policy/lease/detail/small_book.hpp"

namespace transactions_test {

using namespace leasehold::test::small_book_test_names;
using transaction = policy::lease::detail::transactions<sb::book>;

namespace {

struct ready_log final : lease_observer<T> {
  std::vector<std::uint64_t> ready;
  void on_ready(std::uint64_t id, T /*at*/, std::span<const std::size_t> /*nodes*/) override {
    ready.push_back(id);
  }
};

// Books lease 1 on node 0 over [0, 100) and moves the clock to 10.
void book_and_move(sb::book& b) {
  sb::record& l = b.edit(1);
  sb::book::segment_type seg;
  seg.nodes = {0};
  seg.per_node = b.times().booked_vector(l.terms);
  seg.booked = {0, 100};
  seg.run = seg.booked;
  b.times().settle_finish(l, seg);
  b.book(l, seg);
  b.move_clock(10);
}

}  // namespace

TEST_CASE("transactions: a body that throws leaves the book as it was") {
  sb::book b = sb::make(1);
  sb::add_queued(b, best_effort(1, 0, 1, 100));
  ready_log observer;
  b.set_observer(&observer);
  const auto leases = b.leases();
  const auto queue = b.queue();
  CHECK_THROWS_AS(transaction::run(b,
                                   [&] {
                                     book_and_move(b);
                                     CHECK(b.in_transaction());
                                     throw std::runtime_error("the body fails");
                                   }),
                  std::runtime_error);
  CHECK(!b.in_transaction());
  CHECK(b.leases() == leases);
  CHECK(b.queue() == queue);
  CHECK(b.events().empty());
  CHECK(b.on_node()[0].empty());
  CHECK(b.now() == 0);
  CHECK(b.table().node(0).free_at(50) == node_resources{2, 2048, 10000, 10});
  CHECK(observer.ready.empty());  // never heard of the lease starting
  CHECK(b.observer() == &observer);
  CHECK_NOTHROW(b.validate());
}

TEST_CASE("transactions: a body that returns keeps its changes; the table catches up at commit") {
  sb::book b = sb::make(1);
  sb::add_queued(b, best_effort(1, 0, 1, 100));
  ready_log observer;
  b.set_observer(&observer);
  const int result = transaction::run(b, [&] {
    book_and_move(b);
    // A free list undoes bookings in place: its clock waits for the commit.
    CHECK(b.table().origin() == 0);
    CHECK(observer.ready.empty());  // held until the call succeeds
    return 7;
  });
  CHECK(result == 7);
  CHECK(b.table().origin() == 10);
  CHECK(b.lease(1).state == lease_state::running);
  CHECK(observer.ready == std::vector<std::uint64_t>{1});
  CHECK_NOTHROW(b.validate());
}

}  // namespace transactions_test
