// io::to_svg of a gantt_chart: the h:mm clock labels and round time steps hand-computed, one
// `segment` group per segment whatever its nodes (a rectangle per run of consecutive nodes),
// advance reservations outlined, the marks of suspensions, cancellations, migrations and
// transfers counted, and charts that cannot be drawn rejected by name. The documents of the
// examples are checked with a real XML parser and rendered by the example.*.gantt ctests.

#include <doctest/doctest.h>

#include <iterator>
#include <limits>
#include <regex>
#include <string>
#include <vector>

#include <leasehold/io/gantt_chart.hpp>

namespace gantt_chart_test {

using namespace leasehold;

namespace {

std::size_t count(const std::string& text, const std::string& pattern) {
  const std::regex re(pattern);
  return static_cast<std::size_t>(
      std::distance(std::sregex_iterator(text.begin(), text.end(), re), std::sregex_iterator()));
}

std::vector<std::string> all(const std::string& text, const std::string& pattern) {
  std::vector<std::string> found;
  const std::regex re(pattern);
  for (auto it = std::sregex_iterator(text.begin(), text.end(), re); it != std::sregex_iterator();
       ++it)
    found.push_back((*it)[1].str());
  return found;
}

// Four nodes: best-effort lease 1 on {0 1} suspended at 0:30 and resumed on {2 3} after a
// migration; advance reservation 2 on {0 1 3} (two rectangles: 0-1 and 3); immediate lease 3
// on node 2, cancelled; an image transfer to {0 1}.
io::gantt_chart sample() {
  io::gantt_chart c;
  c.title = "sample <chart>";
  c.nodes = 4;
  c.segments = {{.lease = 1,
                 .kind = lease_kind::best_effort,
                 .nodes = {1, 0},
                 .begin = 300,
                 .end = 1800,
                 .run_begin = 300,
                 .run_end = 1750,
                 .ending = io::gantt_ending::suspended},
                {.lease = 1,
                 .kind = lease_kind::best_effort,
                 .nodes = {2, 3},
                 .begin = 5400,
                 .end = 7200,
                 .run_begin = 5500,
                 .run_end = 7200},
                {.lease = 2,
                 .kind = lease_kind::advance_reservation,
                 .nodes = {0, 1, 3},
                 .begin = 1800,
                 .end = 5400,
                 .run_begin = 1800,
                 .run_end = 5400},
                {.lease = 3,
                 .kind = lease_kind::immediate,
                 .nodes = {2},
                 .begin = 0,
                 .end = 3600,
                 .run_begin = 0,
                 .run_end = 3600,
                 .ending = io::gantt_ending::cancelled}};
  c.migrations = {{.lease = 1, .from = {0, 1}, .to = {2, 3}, .begin = 5400, .end = 5450}};
  c.transfers = {{.image = "a&b.img", .size_mb = 1024, .nodes = {0, 1}, .begin = 0, .end = 300}};
  return c;
}

}  // namespace

TEST_CASE("gantt_chart: times read h:mm, hours past a day keep counting") {
  CHECK(io::hours_minutes(0) == "0:00");
  CHECK(io::hours_minutes(5400) == "1:30");
  CHECK(io::hours_minutes(93600) == "26:00");
  CHECK(io::hours_minutes(-900) == "-0:15");
  CHECK(io::hours_minutes(89) == "0:01");  // to the nearest minute
  CHECK(io::hours_minutes(29) == "0:00");
}

TEST_CASE("gantt_chart: time ticks are round steps of clock time around the data") {
  // 2 h in at most 10 steps: 15 minutes (10 minutes would need 12).
  const auto two_hours = io::time_ticks(0, 7200, 10);
  CHECK(two_hours.lo == 0);
  CHECK(two_hours.hi == 7200);
  CHECK(two_hours.values.size() == 9);
  CHECK(two_hours.values[1] == 900);
  // 100 s: a minute, widened to 2 minutes.
  const auto short_run = io::time_ticks(10, 100, 10);
  CHECK(short_run.lo == 0);
  CHECK(short_run.hi == 120);
  // 30 days in 10 steps: 5 days (nice numbers of days: 3 -> 5).
  const auto month = io::time_ticks(0, 30 * 86400, 10);
  CHECK(month.values[1] == 5 * 86400);
  CHECK(month.hi == 30 * 86400);
  CHECK_THROWS_AS((void)io::time_ticks(5, 1), error);
}

TEST_CASE("gantt_chart: a group per segment, ARs outlined, every mark drawn once") {
  const std::string svg = io::to_svg(sample());
  CHECK(count(svg, "<g class=\"segment\"") == 4);
  // A rectangle per run of consecutive nodes: {0 1}, {2 3}, {0 1} + {3}, {2}.
  CHECK(count(svg, "<rect class=\"bar\"") == 5);
  CHECK(count(svg, "<rect class=\"run\"") == 5);
  // The AR's two rectangles are outlined, nothing else is.
  CHECK(count(svg, "class=\"ar-outline\"") == 2);
  CHECK(all(svg, "data-lease=\"(\\d+)\" data-kind=\"advance reservation\"") ==
        std::vector<std::string>{"2"});
  CHECK(count(svg, "class=\"suspension\"") == 1);
  CHECK(count(svg, "class=\"cancellation\"") == 1);
  CHECK(count(svg, "<g class=\"migration\"") == 1);
  CHECK(count(svg, "<g class=\"transfer\"") == 1);
  CHECK(count(svg, "<g class=\"legend-item\"") == 8);
  // 2 h on a 900 px axis: 10 steps at most, 15 minutes each.
  CHECK(all(svg, "<text class=\"tick\"[^>]*>([^<]*)</text>") ==
        std::vector<std::string>{"0:00", "0:15", "0:30", "0:45", "1:00", "1:15", "1:30", "1:45",
                                 "2:00"});
  CHECK(all(svg, "<text class=\"node-label\"[^>]*>([^<]*)</text>") ==
        std::vector<std::string>{"0", "1", "2", "3"});
  // Text is escaped, titles say what a bar is.
  CHECK(svg.find("sample &lt;chart&gt;") != std::string::npos);
  CHECK(svg.find("image a&amp;b.img (1024 MB) to nodes 0-1: 0:00 to 0:05") != std::string::npos);
  CHECK(svg.find("lease 2, advance reservation: 0:30 to 1:30 on nodes 0-1, 3") !=
        std::string::npos);
  CHECK(svg.find("lease 1 migrates from nodes 0-1 to nodes 2-3") != std::string::npos);
}

TEST_CASE("gantt_chart: many nodes get thin rows and a label every few") {
  io::gantt_chart c;
  c.nodes = 144;
  c.segments = {
      {.lease = 7, .nodes = {0, 143}, .begin = 0, .end = 86400, .run_begin = 0, .run_end = 86400}};
  const std::string svg = io::to_svg(c);
  // 480 / 144 = 3.33 px rows: a label every 5 nodes (13 / 3.33 = 3.9 -> 5).
  const auto labels = all(svg, "<text class=\"node-label\"[^>]*>([^<]*)</text>");
  REQUIRE(labels.size() == 29);
  CHECK(labels[1] == "5");
  CHECK(labels.back() == "140");
  CHECK(count(svg, "<rect class=\"bar\"") == 2);  // nodes 0 and 143
  // A day: 3-hour steps.
  CHECK(all(svg, "<text class=\"tick\"[^>]*>([^<]*)</text>")[1] == "3:00");
}

TEST_CASE("gantt_chart: a chart that cannot be drawn is an error naming what is wrong") {
  const auto message = [](const io::gantt_chart& c) {
    try {
      (void)io::to_svg(c);
    } catch (const error& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  io::gantt_chart c = sample();
  c.nodes = 0;
  CHECK(message(c) == "gantt chart \"sample <chart>\": no node to draw");
  c = sample();
  c.segments[2].nodes.push_back(4);
  CHECK(message(c) == "gantt chart: segment 2 (lease 2) is on node 4 of a chart of 4 nodes");
  c = sample();
  c.segments[0].end = 200;
  CHECK(message(c).find("segment 0 (lease 1) spans [300") != std::string::npos);
  c = sample();
  c.segments[1].run_begin = 5000;
  CHECK(message(c).find("segment 1 (lease 1) runs [5000") != std::string::npos);
  c = sample();
  c.migrations[0].to.clear();
  CHECK(message(c) == "gantt chart: the migration of lease 1 has no node");
  c = sample();
  c.transfers[0].end = std::numeric_limits<double>::quiet_NaN();
  CHECK(message(c).find("the transfer of image \"a&b.img\" spans") != std::string::npos);
}

}  // namespace gantt_chart_test
