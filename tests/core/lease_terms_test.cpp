// core/lease_terms.hpp: Haizea's node vector and its component indices, the layout the lease
// model reads, what a lease asks for by default (one node, one CPU and 1 GB, best-effort,
// preemptible, images predeployed), how the kinds print, and that terms compare by value.

#include <doctest/doctest.h>

#include <concepts>
#include <cstdint>
#include <sstream>
#include <string>

#include <leasehold/core/lease_terms.hpp>

namespace lease_terms_test {

using namespace leasehold;

namespace {

std::string kind_name(lease_kind kind) {
  std::ostringstream out;
  out << kind;
  return out.str();
}

}  // namespace

static_assert(std::same_as<node_resources, resources<4, std::int64_t>>);
static_assert(std::same_as<lease_terms<>::capacity_type, node_resources>);
static_assert(std::same_as<lease_terms<int, resources<2, int>>::capacity_type, resources<2, int>>);

TEST_CASE("lease_terms: the node vector's components and the default layout") {
  CHECK(node_component::cpu == 0);
  CHECK(node_component::memory_mb == 1);
  CHECK(node_component::disk_mb == 2);
  CHECK(node_component::network_mbps == 3);
  const resource_layout layout;
  CHECK(layout.memory == node_component::memory_mb);
  REQUIRE(layout.disk.has_value());
  CHECK(*layout.disk == node_component::disk_mb);
  // A vector without a disk: no room is booked for memory state files.
  const resource_layout diskless{0, std::nullopt};
  CHECK(diskless != layout);
  CHECK(diskless == resource_layout{0, std::nullopt});
  CHECK(layout != resource_layout{1, 3});
}

TEST_CASE("lease_terms: a lease asks for one best-effort node of 1 CPU and 1 GB by default") {
  const lease_terms<> t;
  CHECK(t.id == 0);
  CHECK(t.submit == 0);
  CHECK(t.kind == lease_kind::best_effort);
  CHECK(!t.start);
  CHECK(!t.start_window);
  CHECK(t.nodes == 1);
  CHECK(t.per_node == node_resources{1, 1024, 0, 0});
  CHECK(t.duration == 0);
  CHECK(t.real_duration == 0);
  CHECK(t.preemptible);
  CHECK(!t.image);
  CHECK(!t.withdraw);
  CHECK(!t.hold_in_queue);
  // Any other vector asks for nothing unless told.
  const lease_terms<int, resources<2, int>> gpus;
  CHECK(gpus.per_node == resources<2, int>{0, 0});
  CHECK(gpus.nodes == 1);
}

TEST_CASE("lease_terms: the kinds print as the paper names them") {
  CHECK(kind_name(lease_kind::advance_reservation) == "advance reservation");
  CHECK(kind_name(lease_kind::best_effort) == "best-effort");
  CHECK(kind_name(lease_kind::immediate) == "immediate");
  CHECK(kind_name(static_cast<lease_kind>(7)) == "unknown lease kind");
  CHECK(kind_name(static_cast<lease_kind>(-1)) == "unknown lease kind");
}

TEST_CASE("lease_terms: images and terms compare by every field") {
  const disk_image a{"debian", 1024};
  CHECK(a == disk_image{"debian", 1024});
  CHECK(a != disk_image{"debian", 2048});
  CHECK(a != disk_image{"ubuntu", 1024});

  lease_terms<> ar;
  ar.id = 5;
  ar.kind = lease_kind::advance_reservation;
  ar.start = 600;
  ar.nodes = 2;
  ar.duration = 1800;
  ar.real_duration = 1200;
  ar.preemptible = false;
  ar.image = a;
  lease_terms<> same = ar;
  CHECK(same == ar);
  same.image->size_mb = 512;
  CHECK(same != ar);
  same = ar;
  same.start_window = interval<std::int64_t>{600, 900};
  CHECK(same != ar);
  same = ar;
  same.per_node[node_component::memory_mb] = 2048;
  CHECK(same != ar);
  same = ar;
  same.withdraw = 700;
  CHECK(same != ar);
  same = ar;
  same.hold_in_queue = true;
  CHECK(same != ar);
}

}  // namespace lease_terms_test
