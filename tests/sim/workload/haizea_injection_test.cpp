// Haizea's plain-text AR injection files: parsing, errors, round trip, conversion to
// advance-reservation lease terms, and the 72 files of the paper.

#include <doctest/doctest.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include <leasehold/sim/workload/haizea_injection.hpp>

#include "sim/workload/shared_data.hpp"

namespace haizea_injection_test {

using namespace leasehold;

namespace {
std::string injection_error(const std::string& text) {
  std::istringstream in(text);
  try {
    (void)haizea::read_injections(in);
  } catch (const workload::parse_error& e) {
    return e.what();
  }
  return "";
}
}  // namespace

TEST_CASE("haizea injections: ten fields a line") {
  std::istringstream in(
      "0 0 8425 8425 30 1 1024 0 'NONE.img' 600\n"
      "\n"
      "985 87385 8504 8000 48 2 2048 10 \"my image.img\" 4096\r\n");
  const auto file = haizea::read_injections(in);
  REQUIRE(file.leases.size() == 2);
  CHECK(file.leases[0] == haizea::injection{0, 0, 8425, 8425, 30, 1, 1024, 0, "NONE.img", 600});
  CHECK(file.leases[1] ==
        haizea::injection{985, 87385, 8504, 8000, 48, 2, 2048, 10, "my image.img", 4096});

  const auto leases = haizea::to_lease_terms(file.leases, 100);
  REQUIRE(leases.size() == 2);
  const auto& ar = leases[1];
  CHECK(ar.id == 101);
  CHECK(ar.kind == lease_kind::advance_reservation);
  CHECK_FALSE(ar.preemptible);
  CHECK(ar.submit == 985);
  CHECK(ar.start == 87385);
  CHECK(ar.duration == 8504);
  CHECK(ar.real_duration == 8000);
  CHECK(ar.nodes == 48);
  CHECK(ar.per_node == node_resources{2, 2048, 10, 0});
  CHECK_FALSE(ar.image.has_value());  // placeholders are dropped by default
  const auto kept = haizea::to_lease_terms(file.leases[1], 7, {.keep_image = true});
  CHECK(kept.image == disk_image{"my image.img", 4096});

  std::ostringstream out;
  haizea::write_injections(out, file.leases);
  std::istringstream back(out.str());
  CHECK(haizea::read_injections(back).leases == file.leases);
}

TEST_CASE("haizea injections: malformed lines name the line") {
  CHECK(injection_error("0 0 10 10 1 1 1024 0 'a' 600\n0 5 10 10 1 1 1024 0 'a'\n") ==
        "line 2: expected 10 fields, found 9: '0 5 10 10 1 1 1024 0 'a''");
  CHECK(injection_error("0 0 10 x 1 1 1024 0 'a' 600\n") ==
        "line 1: field 4 (real duration) 'x' is not an integer: '0 0 10 x 1 1 1024 0 'a' 600'");
  CHECK(
      injection_error("0 0 10 10 -3 1 1024 0 'a' 600\n").find("field 5 (nodes) is negative: -3") !=
      std::string::npos);
  CHECK(injection_error("0 0 0 10 1 1 1024 0 'a' 600\n").find("duration must be positive") !=
        std::string::npos);
  CHECK(injection_error("-5 40 10 10 1 1 1024 0 'a' 600\n").find("field 1 (arrival) is negative") !=
        std::string::npos);
  CHECK(injection_error("0 0 10 10 1 1 1024 0 'a 600\n").find("unterminated") != std::string::npos);
  std::istringstream in("0 0 10 10 1 1 1024 0 'a' 600\nbad\n1 1 10 10 1 1 1024 0 'a' 600\n");
  const auto file = haizea::read_injections(in, haizea::on_error::skip);
  CHECK(file.leases.size() == 2);
  CHECK(file.skipped == 1);
}

TEST_CASE("haizea injections: the paper's 72 workloads") {
  const auto folder = test::shared_path("haizea-workloads/ar-injections-30days");
  if (!std::filesystem::is_directory(folder)) {
    LEASEHOLD_SKIP_TEST(folder << " is absent");
    return;
  }
  std::size_t files = 0;
  std::size_t past_starts = 0;
  for (const auto& entry : std::filesystem::directory_iterator(folder)) {
    if (entry.path().extension() != ".lwf") continue;
    ++files;
    CAPTURE(entry.path().filename().string());
    std::ifstream in(entry.path());
    const auto file = haizea::read_injections(in);
    CHECK(file.skipped == 0);
    REQUIRE_FALSE(file.leases.empty());
    // work_RR-dur_Dh-size_S: rho = RR % of 144 nodes x the last best-effort submit
    // (2,590,930 s); durations in D h +/- 30 min; advance notice 24 h except near 0.
    const auto name = entry.path().stem().string();
    const double rho = std::stoi(name.substr(5, 2)) / 100.0;
    const std::int64_t delta = std::stoi(name.substr(12, 1)) * 3600;
    std::int64_t node_seconds = 0;
    for (const auto& l : file.leases) {
      node_seconds += l.duration * l.nodes;
      CHECK(l.duration >= delta - 1800);
      CHECK(l.duration <= delta + 1800);
      CHECK((l.start - l.arrival == 86'400 || l.arrival == 0));
      past_starts += l.start < l.arrival;
    }
    if (name == "work_10-dur_1h-size_1small") {
      CHECK(file.leases.size() == 815);
      std::size_t backwards = 0;
      for (std::size_t i = 1; i < file.leases.size(); ++i)
        backwards += file.leases[i].arrival < file.leases[i - 1].arrival;
      CHECK(backwards == 41);
    }
    const double share = static_cast<double>(node_seconds) / (144.0 * 2'590'930.0);
    CHECK(share == doctest::Approx(rho).epsilon(0.02));
  }
  CHECK(files == 72);
  CHECK(past_starts == 4);  // the published files' quirk, kept as data
}

}  // namespace haizea_injection_test
