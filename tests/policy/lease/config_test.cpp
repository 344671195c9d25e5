// policy/lease/config.hpp: Table 1's three configurations (§4.4) as named constructors, the
// backfilling rules and how many reservations each allows, and how the options print (the
// examples' summaries and the checkpoints' error messages quote them). What the Haizea presets
// set is haizea_presets_test.cpp's.

#include <doctest/doctest.h>

#include <cstdint>
#include <limits>
#include <sstream>
#include <string>

#include <leasehold/policy/lease/config.hpp>

namespace config_test {

using namespace leasehold::policy::lease;
using T = std::int64_t;

namespace {

template <class V>
std::string printed(const V& v) {
  std::ostringstream out;
  out << v;
  return out.str();
}

}  // namespace

TEST_CASE("scheduler_config: Table 1's configurations") {
  const auto predeploy = scheduler_config<T>::vm_predeploy();
  CHECK(predeploy.in_vms);
  CHECK(predeploy.suspend == suspension::all);
  CHECK(predeploy.migrate == migration::allowed);
  CHECK(predeploy.runtime_slowdown_percent == 5);
  CHECK(predeploy.boot_shutdown == 20);
  CHECK(predeploy.suspend_rate_mb_s == 50.0);
  CHECK(predeploy.network_mb_s == 10.0);
  CHECK(predeploy.backfill == backfilling::aggressive());
  CHECK(predeploy.strong_guarantee);
  CHECK(!predeploy.retire_finished);
  CHECK(predeploy.preempt == preemption_set::all_overlapping);

  const auto sr = scheduler_config<T>::novm_sr();
  CHECK(!sr.in_vms);
  CHECK(sr.suspend == suspension::all);
  CHECK(sr.migrate == migration::allowed);

  const auto nosr = scheduler_config<T>::novm_nosr();
  CHECK(!nosr.in_vms);
  CHECK(nosr.suspend == suspension::none);
  CHECK(nosr.migrate == migration::none);
}

TEST_CASE("backfilling: how many queued leases may hold a future reservation") {
  CHECK(backfilling::off().max_reservations() == 0);
  CHECK(backfilling::aggressive().max_reservations() == 1);
  CHECK(backfilling::intermediate(3).max_reservations() == 3);
  CHECK(backfilling::conservative().max_reservations() == std::numeric_limits<std::size_t>::max());
  CHECK(backfilling::intermediate(1) != backfilling::aggressive());
  CHECK(backfilling::intermediate(2) == backfilling::intermediate(2));
}

TEST_CASE("scheduler_config: the options print as the command lines name them") {
  CHECK(printed(backfilling::off()) == "off");
  CHECK(printed(backfilling::aggressive()) == "aggressive");
  CHECK(printed(backfilling::conservative()) == "conservative");
  CHECK(printed(backfilling::intermediate(4)) == "intermediate(4)");
  CHECK(printed(haizea_preset::hpdc08) == "hpdc08");
  CHECK(printed(haizea_preset::tests) == "tests");
  CHECK(printed(static_cast<haizea_preset>(7)) == "haizea_preset(7)");
}

}  // namespace config_test
