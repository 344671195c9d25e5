// policy/lease/lease_terms.hpp: the lease vocabulary under the lease scheduler's names is
// core's, the same entities (tests/static/lease_vocabulary.cpp checks the types at compile
// time; here the objects pass between the two spellings), and terms written with the policy
// names are what lease_scheduler::submit takes, refused with invalid_lease when impossible.

#include <doctest/doctest.h>

#include <cstdint>
#include <string>

#include <leasehold/policy/lease/lease_scheduler.hpp>
#include <leasehold/policy/lease/lease_terms.hpp>

namespace policy_lease_terms_test {

namespace pl = leasehold::policy::lease;

namespace {

// Two nodes of Haizea's vector; no VMs and no suspension, so a lease runs exactly its terms.
pl::lease_scheduler<> two_nodes() {
  using table = pl::lease_scheduler<>::table_type;
  return pl::lease_scheduler<>(table(2, pl::node_resources{2, 4096, 10000, 100}),
                               pl::scheduler_config<std::int64_t>::novm_nosr());
}

// Core's own function, called with objects spelt with the policy names.
std::int64_t memory_asked(const leasehold::lease_terms<>& t) {
  return t.nodes * t.per_node[leasehold::node_component::memory_mb];
}

}  // namespace

TEST_CASE("policy lease_terms: the policy names hold core's objects") {
  pl::lease_terms<> t;
  t.nodes = 3;
  t.per_node[pl::memory_mb] = 512;
  t.kind = pl::lease_kind::immediate;
  t.image = pl::disk_image{"sl4", 600};
  CHECK(memory_asked(t) == 1536);
  const leasehold::lease_terms<>& core = t;
  CHECK(core.kind == leasehold::lease_kind::immediate);
  CHECK(core.image == leasehold::disk_image{"sl4", 600});
  CHECK(pl::resource_layout{} == leasehold::resource_layout{pl::memory_mb, pl::disk_mb});
  CHECK(pl::node_resources{}[pl::cpu] == 0);
  CHECK(pl::network_mbps == leasehold::node_component::network_mbps);
}

TEST_CASE("policy lease_terms: an advance reservation submitted in the policy's words") {
  auto s = two_nodes();
  pl::lease_terms<> ar;
  ar.id = 1;
  ar.kind = pl::lease_kind::advance_reservation;
  ar.start = 100;
  ar.nodes = 2;
  ar.per_node = {1, 1024, 0, 0};
  ar.duration = 50;
  ar.real_duration = 50;
  ar.preemptible = false;
  const auto result = s.submit(ar, 0);
  CHECK(result.outcome == pl::admission::accepted);
  const auto& record = s.lease(1);
  CHECK(record.terms == ar);
  REQUIRE(record.current.has_value());
  CHECK(record.current->booked == leasehold::interval<std::int64_t>{100, 150});
  CHECK(record.current->nodes == std::vector<std::size_t>{0, 1});

  // No nodes: refused naming the field and the value, and nothing is booked.
  pl::lease_terms<> none = ar;
  none.id = 2;
  none.nodes = 0;
  const auto before = s.export_state();
  try {
    (void)s.submit(none, 0);
    FAIL("a lease of no nodes was taken");
  } catch (const pl::invalid_lease& e) {
    CHECK(std::string(e.field()) == "terms.nodes");
    CHECK(std::string(e.what()).find("0 nodes") != std::string::npos);
  }
  CHECK(s.leases().size() == 1);
  CHECK(s.export_state().leases.size() == before.leases.size());
  CHECK(s.table().node(0).free_at(120) == pl::node_resources{1, 3072, 10000, 100});
}

}  // namespace policy_lease_terms_test
