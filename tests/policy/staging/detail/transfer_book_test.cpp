// The transfer book on its own: ids and orders, the copies a transfer brings, detaching a copy,
// finishing, taking the finished ones, restoring, and every change taken back by the journal.

#include "leasehold/policy/staging/detail/transfer_book.hpp"

#include <doctest/doctest.h>

#include <cstdint>
#include <string>
#include <tuple>
#include <vector>

#include "leasehold/core/detail/describe.hpp"
#include "leasehold/core/error.hpp"

namespace transfer_book_test {

using book_type = leasehold::policy::staging::detail::transfer_book<std::int64_t>;
using transfer = book_type::transfer_type;
using leasehold::journal;

transfer make(const std::string& image, std::int64_t begin, std::int64_t end,
              std::vector<std::size_t> nodes) {
  transfer tr;
  tr.image = image;
  tr.size_mb = 100;
  tr.span = {begin, end};
  tr.nodes = std::move(nodes);
  return tr;
}

// Without reuse a copy's key names its lease; with reuse it is the image itself.
std::string shared_key(const std::string& image, std::uint64_t /*lease*/) { return image; }

// A book with a multicast (id 1) of "a" to nodes 0 and 1 serving leases 7 and 8, and a unicast
// (id 2) of "b" to node 1 serving lease 9.
book_type two_transfers(journal& j) {
  book_type book;
  auto first = make("a", 10, 20, {0, 1});
  first.users[{7, 0}] = {30, false};
  first.users[{8, 1}] = {40, true};
  CHECK(book.add(j, std::move(first)) == 1);
  auto second = make("b", 20, 30, {1});
  second.users[{9, 1}] = {50, false};
  CHECK(book.add(j, std::move(second)) == 2);
  book.bring(j, 0, "a", 1);
  book.bring(j, 1, "a", 1);
  book.bring(j, 1, "b", 2);
  return book;
}

TEST_CASE("transfer_book: ids count from 1, orders follow every id, copies are found") {
  journal j;
  book_type book = two_transfers(j);
  CHECK(book.next_id() == 3);
  CHECK(book.next_order() == (std::uint64_t{1} << 62));
  book.use_orders(j, 2);
  CHECK(book.next_order() == (std::uint64_t{1} << 62) + 2);
  CHECK(book.bringing(0, "a") == 1u);
  CHECK(book.bringing(1, "b") == 2u);
  CHECK_FALSE(book.bringing(0, "b").has_value());
  using copies = std::vector<book_type::copy_type>;
  CHECK(book.arriving_through(book.at(1)) == copies{{0, "a"}, {1, "a"}});
  CHECK(book.arriving_through(book.at(2)) == copies{{1, "b"}});
}

TEST_CASE("transfer_book: detaching a copy takes its node and users off the transfer") {
  journal j;
  book_type book = two_transfers(j);
  const auto out = book.detach(j, 1, "a", shared_key);
  CHECK(out.transfer == 1);
  REQUIRE(out.users.size() == 1);
  CHECK(out.users.begin()->first == std::pair<std::uint64_t, std::size_t>{8, 1});
  CHECK(book.at(1).nodes == std::vector<std::size_t>{0});
  CHECK(book.at(1).users.size() == 1);
  CHECK_FALSE(book.bringing(1, "a").has_value());
  // Nothing arrives there any more: a second detach finds nothing.
  CHECK(book.detach(j, 1, "a", shared_key).transfer == 0);
}

TEST_CASE("transfer_book: a node another copy still reaches through the transfer stays") {
  journal j;
  book_type book;
  const auto private_key = [](const std::string& image, std::uint64_t lease) {
    return image + "@" + std::to_string(lease);
  };
  auto tr = make("a", 0, 10, {3});
  tr.users[{1, 3}] = {20, false};
  tr.users[{2, 3}] = {20, false};
  const auto id = book.add(j, std::move(tr));
  book.bring(j, 3, "a@1", id);
  book.bring(j, 3, "a@2", id);
  const auto out = book.detach(j, 3, "a@1", private_key);
  CHECK(out.users.size() == 1);
  CHECK(book.at(id).nodes == std::vector<std::size_t>{3});  // a@2 still comes
  CHECK(book.at(id).users.size() == 1);
}

TEST_CASE("transfer_book: finishing moves a transfer to the finished list; taking empties it") {
  journal j;
  book_type book = two_transfers(j);
  using copies = std::vector<book_type::copy_type>;
  CHECK(book.finish(j, 1) == copies{{0, "a"}, {1, "a"}});
  CHECK_FALSE(book.booked().contains(1));
  CHECK_FALSE(book.bringing(0, "a").has_value());
  REQUIRE(book.finished().size() == 1);
  CHECK(book.finished()[0].id == 1);
  std::vector<std::uint64_t> seen;
  book.announce_finished_since(0, [&](const transfer& tr) {
    CHECK_FALSE(tr.announced);  // seen as it was
    seen.push_back(tr.id);
  });
  CHECK(seen == std::vector<std::uint64_t>{1});
  CHECK(book.finished()[0].announced);
  const auto taken = book.take_finished(j);
  CHECK(taken.size() == 1);
  CHECK(book.finished().empty());
}

TEST_CASE("transfer_book: every change of a transaction is taken back") {
  journal j;
  book_type book = two_transfers(j);
  const book_type before = book;
  j.begin();
  (void)book.add(j, make("c", 30, 40, {2}));
  book.bring(j, 2, "c", 3);
  book.use_orders(j, 1);
  book.edit(j, 2).span = {25, 35};
  (void)book.detach(j, 0, "a", shared_key);
  (void)book.finish(j, 1);
  (void)book.take_finished(j);
  book.erase(j, 2);
  j.rollback();
  CHECK(book.booked() == before.booked());
  CHECK(book.incoming() == before.incoming());
  CHECK(book.finished() == before.finished());
  CHECK(book.next_id() == before.next_id());
  CHECK(book.next_order() == before.next_order());
}

TEST_CASE("transfer_book: restore refuses contradictions, naming them") {
  using incoming = std::vector<std::tuple<std::size_t, std::string, std::uint64_t>>;
  const auto fail = [](const auto&... parts) {
    throw leasehold::invalid_request(leasehold::detail::describe(parts...));
  };
  auto one = make("a", 0, 10, {0});
  one.id = 1;
  const auto restored = book_type::restore({one}, {}, incoming{{0, "a", 1}}, 2, 5, 1, fail);
  CHECK(restored.bringing(0, "a") == 1u);
  CHECK(restored.next_order() == 5);
  CHECK_THROWS_WITH_AS(book_type::restore({one}, {}, {}, 1, 5, 1, fail),
                       "transfer 1 is not below the next id 1", leasehold::invalid_request);
  CHECK_THROWS_WITH_AS(book_type::restore({one, one}, {}, {}, 2, 5, 1, fail),
                       "transfer 1 appears twice", leasehold::invalid_request);
  CHECK_THROWS_WITH_AS(book_type::restore({one}, {}, incoming{{1, "a", 1}}, 2, 5, 1, fail),
                       "image a arriving on node 1 through transfer 1: no such node or transfer",
                       leasehold::invalid_request);
  CHECK_THROWS_WITH_AS(
      book_type::restore({one}, {}, incoming{{0, "a", 1}, {0, "a", 1}}, 2, 5, 1, fail),
      "image a arrives on node 0 twice", leasehold::invalid_request);
}

}  // namespace transfer_book_test
