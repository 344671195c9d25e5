// policy/staging/staging_state.hpp: a transfer's deadline is its earliest user's start and it
// is protected while an advance reservation waits for it; the counts and holds compare by
// value; a fresh state holds nothing and numbers transfers from 1; and a staging step's state
// survives export_state -> import_state on a small staged scenario, while import_state refuses
// a state whose caches and use counters disagree.

#include <doctest/doctest.h>

#include <cstdint>
#include <string>
#include <vector>

#include <leasehold/policy/lease/lease_scheduler.hpp>
#include <leasehold/policy/staging/image_staging.hpp>
#include <leasehold/policy/staging/staging_state.hpp>

namespace staging_state_test {

using namespace leasehold;
using namespace leasehold::policy::staging;
namespace pl = leasehold::policy::lease;
using T = std::int64_t;

namespace {

using transfer = image_transfer<T>;

// An image for nodes 0 and 1, waited for by leases 7 (at 300) and 8 (at 250).
transfer two_users(bool second_protected) {
  transfer tr;
  tr.id = 1;
  tr.image = "A";
  tr.size_mb = 1000;
  tr.span = {0, 100};
  tr.nodes = {0, 1};
  tr.users[{7, 0}] = {300, false};
  tr.users[{8, 1}] = {250, second_protected};
  return tr;
}

// image_staging_state asks of its Link only a time type; free_list has no default constructor.
struct any_link {
  using time_type = std::int32_t;
};

// Two nodes of {1 CPU, 1 GB, 10 GB disk}, no VMs: a 1000 MB image takes 100 s on 10 MB/s.
using staged = pl::lease_scheduler<free_list<T, node_resources>, image_staging<>>;

staged staged_pair() {
  staging_config sc;
  sc.bandwidth_mb_s = 10.0;
  image_staging<> step(2, sc);
  step.add_image({"A", 1000});
  return staged(staged::table_type(2, node_resources{1, 1024, 10000, 10}),
                pl::scheduler_config<T>::novm_nosr(), std::move(step));
}

// The parts of a state that have operator==, and the caches' keys and references.
void check_same(const image_staging_state<free_list<T, T>>& a,
                const image_staging_state<free_list<T, T>>& b) {
  CHECK(a.now == b.now);
  CHECK(a.link.free_blocks() == b.link.free_blocks());
  CHECK(a.images == b.images);
  CHECK(a.transfers == b.transfers);
  CHECK(a.finished == b.finished);
  CHECK(a.incoming == b.incoming);
  CHECK(a.holds == b.holds);
  CHECK(a.stats == b.stats);
  CHECK(a.cache_clocks == b.cache_clocks);
  CHECK(a.next_transfer_id == b.next_transfer_id);
  CHECK(a.next_order == b.next_order);
  CHECK(a.tentative.size() == b.tentative.size());
  REQUIRE(a.caches.size() == b.caches.size());
  for (std::size_t node = 0; node < a.caches.size(); ++node) {
    REQUIRE(a.caches[node].size() == b.caches[node].size());
    for (auto i = a.caches[node].begin(), j = b.caches[node].begin(); i != a.caches[node].end();
         ++i, ++j) {
      CHECK(i->first == j->first);
      CHECK(i->second.arrival == j->second.arrival);
      CHECK(i->second.references == j->second.references);
    }
  }
}

}  // namespace

TEST_CASE("staging_state: a transfer's deadline is its earliest user's start") {
  const transfer tr = two_users(false);
  CHECK(tr.deadline() == 250);
  CHECK(!tr.is_protected());
  CHECK(two_users(true).is_protected());
  // No users: nothing waits, so it may end any time before forever.
  transfer unused = tr;
  unused.users.clear();
  CHECK(unused.deadline() == forever<T>);
  CHECK(!unused.is_protected());
}

TEST_CASE("staging_state: transfers, counts and holds compare by every field") {
  const transfer tr = two_users(false);
  CHECK(tr == two_users(false));
  CHECK(tr != two_users(true));
  transfer moved = tr;
  moved.span = {10, 110};
  CHECK(moved != tr);
  moved = tr;
  moved.announced = true;
  CHECK(moved != tr);
  CHECK(transfer::user{5, true} == transfer::user{5, true});
  CHECK(transfer::user{5, true} != transfer::user{5, false});

  staging_stats counted;
  CHECK(counted == staging_stats{0, 0, 0, 0, 0, 0});
  counted.mb_delivered = 2000;
  CHECK(counted != staging_stats{});

  const staging_hold<T> hold{3, 100, "A", {0, 1}, 1, 1, 0};
  CHECK(hold == staging_hold<T>{3, 100, "A", {0, 1}, 1, 1, 0});
  CHECK(hold != staging_hold<T>{3, 100, "A", {0}, 1, 1, 0});
  CHECK(hold != staging_hold<T>{3, 100, "A#3", {0, 1}, 1, 1, 0});
}

TEST_CASE("staging_state: a fresh state holds nothing and numbers transfers from 1") {
  const image_staging_state<any_link> fresh;
  CHECK(fresh.config.bandwidth_mb_s == staging_config{}.bandwidth_mb_s);
  CHECK(fresh.now == 0);
  CHECK(fresh.caches.empty());
  CHECK(fresh.cache_clocks.empty());
  CHECK(fresh.images.empty());
  CHECK(fresh.transfers.empty());
  CHECK(fresh.finished.empty());
  CHECK(fresh.incoming.empty());
  CHECK(fresh.holds.empty());
  CHECK(fresh.stats == staging_stats{});
  CHECK(fresh.next_transfer_id == 1);
  CHECK(fresh.next_order == std::uint64_t{1} << 62);
  CHECK(fresh.tentative.empty());
  // What a new staging step exports: its nodes' empty caches, and the link at 10 MB/s in kB/s
  // (1 MB = 1024 kB).
  const auto exported = image_staging<>(3).export_state();
  CHECK(exported.caches.size() == 3);
  CHECK(exported.cache_clocks == std::vector<std::uint64_t>{0, 0, 0});
  CHECK(exported.link.total() == 10240);
  CHECK(exported.next_transfer_id == fresh.next_transfer_id);
}

TEST_CASE("staging_state: export_state then import_state gives the same staging step") {
  auto s = staged_pair();
  pl::lease_terms<T> t;
  t.id = 1;
  t.per_node = {1, 1024, 0, 0};
  t.duration = 50;
  t.real_duration = 50;
  t.image = pl::disk_image{"A", 1000};
  REQUIRE(s.submit(t, 0).outcome == pl::admission::queued);
  const auto state = s.preparation_step().export_state();
  // One transfer to node 0 over [0, 100), for lease 1, which starts when it ends.
  REQUIRE(state.transfers.size() == 1);
  const transfer& tr = state.transfers.front();
  CHECK(tr.id == 1);
  CHECK(tr.span == interval<T>{0, 100});
  CHECK(tr.nodes == std::vector<std::size_t>{0});
  CHECK(tr.deadline() == 100);
  CHECK(!tr.is_protected());
  REQUIRE(state.holds.size() == 1);
  CHECK(state.holds.front().lease == 1);
  CHECK(state.holds.front().refs == std::vector<std::size_t>{0});
  CHECK(state.next_transfer_id == 2);
  CHECK(state.images.at("A") == 1000);

  const auto restored = image_staging<>::import_state(state);
  check_same(restored.export_state(), state);
  CHECK(restored.transfers().at(1) == tr);
}

TEST_CASE("staging_state: import_state refuses caches without their use counters") {
  auto state = image_staging<>(2).export_state();
  state.cache_clocks.pop_back();
  CHECK_THROWS_WITH_AS((void)image_staging<>::import_state(state),
                       "image staging state: 2 caches but 1 use counters", invalid_request);
}

}  // namespace staging_state_test
