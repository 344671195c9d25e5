// policy/staging/config.hpp: the paper's staging values (§4.3) by default, Table 1's two
// staging configurations (§4.4), how the options print, and that an unknown image is an
// invalid_request (so one catch clause serves a caller).

#include <doctest/doctest.h>

#include <sstream>
#include <string>
#include <type_traits>

#include <leasehold/policy/staging/config.hpp>

namespace staging_config_test {

using namespace leasehold;
using namespace leasehold::policy::staging;

namespace {

template <class V>
std::string printed(const V& v) {
  std::ostringstream out;
  out << v;
  return out.str();
}

}  // namespace

TEST_CASE("staging_config: the paper's values, VM-REUSE and VM-MULT") {
  const staging_config c;
  CHECK(c.bandwidth_mb_s == 10.0);
  CHECK(c.cache_mb == 20 * 1024);
  CHECK(c.reuse);
  CHECK(c.eviction == eviction_policy::lru);
  CHECK(c.mechanism == transfer_mechanism::multicast);
  CHECK(c.deadline_transfers == deadline_placement::as_late_as_possible);
  CHECK(c.piggyback == piggybacking::same_node);
  CHECK(staging_config::vm_reuse().reuse);
  CHECK(!staging_config::vm_mult().reuse);
  CHECK(staging_config::vm_mult().cache_mb == c.cache_mb);
}

TEST_CASE("staging_config: the options print in words") {
  CHECK(printed(transfer_mechanism::multicast) == "multicast");
  CHECK(printed(transfer_mechanism::unicast) == "unicast");
  CHECK(printed(deadline_placement::as_late_as_possible) == "as late as possible");
  CHECK(printed(piggybacking::same_node) == "same node");
  CHECK(printed(piggybacking::join_multicast) == "join multicast");
  static_assert(std::is_base_of_v<invalid_request, unknown_image>);
}

}  // namespace staging_config_test
