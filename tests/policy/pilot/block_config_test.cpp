// block_config: the documented defaults, and every knob out of range rejected with an
// invalid_request naming the field and its value.

#include <doctest/doctest.h>

#include <cmath>
#include <cstdint>
#include <limits>
#include <string>

#include "leasehold/policy/pilot/block_config.hpp"
#include "leasehold/policy/pilot/block_planner.hpp"

namespace block_config_test {

using namespace leasehold;
using namespace leasehold::policy::pilot;

namespace {

void check_rejected(const block_config<>& config, const std::string& field,
                    const std::string& value) {
  std::string message;
  try {
    const block_planner<> planner(config);
    FAIL_CHECK("accepted a configuration with a bad " << field);
  } catch (const invalid_request& e) {
    message = e.what();
  }
  CHECK_MESSAGE(message.find(field) != std::string::npos,
                "message '" << message << "' does not name " << field);
  CHECK_MESSAGE(message.find(value) != std::string::npos,
                "message '" << message << "' does not name the value " << value);
}

}  // namespace

TEST_CASE("block_config: defaults are the Coaster Service's") {
  const block_config<> config;
  CHECK(config.allocation_step_size == 0.1);
  CHECK(config.max_blocks == 20);
  CHECK(config.low_overallocation == 10.0);
  CHECK(config.high_overallocation == 1.0);
  CHECK(config.overallocation_decay == 1000.0);
  CHECK(config.spread == 0.9);
  CHECK(config.granularity() == 1);
  CHECK(config.max_walltime == forever<std::int64_t>);
  CHECK_NOTHROW(validate(config));
}

TEST_CASE("block_config: granularity and the widest block") {
  const block_config<> config{.nodes_per_unit = 2, .cores_per_node = 4, .max_nodes = 7};
  CHECK(config.granularity() == 8);
  CHECK(config.max_workers() == 24);  // three whole units of two nodes
  const block_config<> unlimited{.cores_per_node = 4};
  CHECK(unlimited.max_workers() % 4 == 0);  // saturates without overflowing
  CHECK(unlimited.max_workers() > 0);
}

TEST_CASE("block_config: out-of-range knobs are rejected, naming the value") {
  const double nan = std::numeric_limits<double>::quiet_NaN();
  SUBCASE("step size outside (0, 1]") {
    check_rejected({.allocation_step_size = 0.0}, "allocation_step_size", "0");
    check_rejected({.allocation_step_size = 1.5}, "allocation_step_size", "1.5");
    check_rejected({.allocation_step_size = -0.25}, "allocation_step_size", "-0.25");
    check_rejected({.allocation_step_size = nan}, "allocation_step_size", "nan");
    CHECK_NOTHROW(validate(block_config<>{.allocation_step_size = 1.0}));
  }
  SUBCASE("no block slots") { check_rejected({.max_blocks = 0}, "max_blocks", "0"); }
  SUBCASE("negative or too large spread") {
    check_rejected({.spread = -0.5}, "spread", "-0.5");
    check_rejected({.spread = 1.25}, "spread", "1.25");
    check_rejected({.spread = nan}, "spread", "nan");
    CHECK_NOTHROW(validate(block_config<>{.spread = 0.0}));
    CHECK_NOTHROW(validate(block_config<>{.spread = 1.0}));
  }
  SUBCASE("O_l < O_h, O_h < 1, infinities") {
    check_rejected({.low_overallocation = 2.0, .high_overallocation = 3.0}, "low_overallocation",
                   "2");
    check_rejected({.low_overallocation = 5.0, .high_overallocation = 0.5}, "high_overallocation",
                   "0.5");
    check_rejected({.low_overallocation = std::numeric_limits<double>::infinity()},
                   "low_overallocation", "inf");
    CHECK_NOTHROW(validate(block_config<>{.low_overallocation = 1.0, .high_overallocation = 1.0}));
  }
  SUBCASE("decay not positive") {
    check_rejected({.overallocation_decay = 0.0}, "overallocation_decay", "0");
    check_rejected({.overallocation_decay = -10.0}, "overallocation_decay", "-10");
  }
  SUBCASE("zero granularity") {
    check_rejected({.nodes_per_unit = 0}, "nodes_per_unit", "0");
    check_rejected({.cores_per_node = 0}, "cores_per_node", "0");
    check_rejected({.cores_per_node = -4}, "cores_per_node", "-4");
  }
  SUBCASE("max_nodes below one unit, walltime not positive") {
    check_rejected({.nodes_per_unit = 4, .max_nodes = 3}, "max_nodes", "3");
    check_rejected({.max_walltime = 0}, "max_walltime", "0");
    check_rejected({.max_walltime = -60}, "max_walltime", "-60");
  }
}

}  // namespace block_config_test
