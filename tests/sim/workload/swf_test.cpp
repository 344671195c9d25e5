// The SWF reader: hand-written logs, every kind of malformed line, round trips, a fuzz of
// random garbage, and the exact counts and headers of the shared Parallel Workloads
// Archive traces.

#include <doctest/doctest.h>

#include <cstdint>
#include <fstream>
#include <sstream>
#include <string>

#include <leasehold/sim/workload/random.hpp>
#include <leasehold/sim/workload/swf.hpp>

#include "sim/workload/shared_data.hpp"

namespace swf_test {

using namespace leasehold;

namespace {

swf::log read_text(const std::string& text, swf::on_error policy = swf::on_error::stop) {
  std::istringstream in(text);
  return swf::read(in, policy);
}

std::string write_text(const swf::log& log) {
  std::ostringstream out;
  swf::write(out, log);
  return out.str();
}

// The parse_error a text raises under on_error::stop, with its line.
std::pair<std::size_t, std::string> error_of(const std::string& text,
                                             const swf::read_options& options = {}) {
  std::istringstream in(text);
  try {
    (void)swf::read(in, options);
  } catch (const swf::parse_error& e) {
    return {e.line(), e.what()};
  }
  return {0, ""};
}

const std::string small_log =
    "; Version: 2.2\n"
    "; UnixStartTime: 956700003\n"
    "; TimeZoneString: US/Pacific\n"
    "; MaxNodes: 184  ( 6,  171,   7)\n"
    "; MaxProcs: 1152\n"
    "; Note: THIS IS A CLEANED VERSION OF THE LOG!\n"
    ";       The filters used to produce it were\n"
    ";         job<=8 (8 jobs removed)\n"
    ";\n"
    "13 0 22 43 32 0.03 -1 4 64800 -1 1 96 -1 -1 3 -1 -1 -1\n"
    "\n"
    "  729\t144375 3046 -1 -1 -1 -1 16 57600 -1 5 87 -1 -1 4 -1 -1 -1  \r\n"
    "730 144375 0 0 8 -1 2.6 1 0 -1 0 1 2 3 4 5 729 60";  // no final newline

}  // namespace

TEST_CASE("swf: reads header keys, comments and the 18 fields") {
  const auto log = read_text(small_log);
  CHECK(log.head.unix_start_time == 956700003);
  CHECK(log.head.time_zone == "US/Pacific");
  CHECK(log.head.max_nodes == 184);
  CHECK(log.head.max_procs == 1152);
  CHECK_FALSE(log.head.max_records.has_value());
  REQUIRE(log.head.comments.size() == 9);
  CHECK(log.head.comments.front() == "Version: 2.2");
  CHECK(log.head.comments[6] == "The filters used to produce it were");
  CHECK(log.head.comments.back().empty());
  REQUIRE(log.head.notes.size() == 1);
  CHECK(log.head.notes[0] ==
        "THIS IS A CLEANED VERSION OF THE LOG!\nThe filters used to produce it were\n"
        "job<=8 (8 jobs removed)");
  CHECK(log.skipped == 0);
  REQUIRE(log.records.size() == 3);

  const auto& first = log.records[0];
  CHECK(first.job == 13);
  CHECK(first.submit == 0);
  CHECK(first.wait == 22);
  CHECK(first.run_time == 43);
  CHECK(first.allocated_procs == 32);
  CHECK(first.avg_cpu_time == doctest::Approx(0.03));
  CHECK(first.used_memory == -1);
  CHECK(first.requested_procs == 4);
  CHECK(first.requested_time == 64800);
  CHECK(first.status == swf::status_completed);
  CHECK(first.user == 96);
  CHECK(first.queue == 3);
  CHECK(first.think_time == -1);

  // Quirks of real logs are data: run time -1 with status 5 (cancelled while waiting).
  CHECK(log.records[1].run_time == -1);
  CHECK(log.records[1].avg_cpu_time == -1.0);
  CHECK(log.records[1].status == swf::status_cancelled);

  // A fraction in an integer field rounds (2.6 -> 3); requested time 0 is kept.
  const auto& last = log.records[2];
  CHECK(last.used_memory == 3);
  CHECK(last.requested_time == 0);
  CHECK(last.group == 2);
  CHECK(last.preceding_job == 729);
  CHECK(last.think_time == 60);
}

TEST_CASE("swf: malformed lines name the line and the offending text") {
  const std::string good = "1 0 0 10 1 -1 -1 1 60 -1 1 1 1 1 1 1 -1 -1\n";

  SUBCASE("wrong field count") {
    const auto [line, message] = error_of("; c\n" + good + "2 5 0 10 1 -1 -1 1 60 -1 1 1 1\n");
    CHECK(line == 3);
    CHECK(message == "line 3: expected 18 fields, found 13: '2 5 0 10 1 -1 -1 1 60 -1 1 1 1'");
  }
  SUBCASE("too many fields") {
    const auto [line, message] = error_of(good + "2 5 0 10 1 -1 -1 1 60 -1 1 1 1 1 1 1 -1 -1 7\n");
    CHECK(line == 2);
    CHECK(message.find("found 19") != std::string::npos);
  }
  SUBCASE("non-numeric field") {
    const auto [line, message] = error_of(good + "2 5 0 1O 1 -1 -1 1 60 -1 1 1 1 1 1 1 -1 -1\n");
    CHECK(line == 2);
    CHECK(message.find("field 4 '1O' is not a number") != std::string::npos);
  }
  SUBCASE("non-numeric average CPU time") {
    const auto [line, message] = error_of(good + "2 5 0 10 1 nan -1 1 60 -1 1 1 1 1 1 1 -1 -1\n");
    CHECK(line == 2);
    CHECK(message.find("field 6 'nan' is not a number") != std::string::npos);
  }
  SUBCASE("a number beyond int64") {
    const auto [line, message] =
        error_of(good + "2 99999999999999999999 0 10 1 -1 -1 1 60 -1 1 1 1 1 1 1 -1 -1\n");
    CHECK(line == 2);
    CHECK(message.find("field 2 '99999999999999999999'") != std::string::npos);
  }
  SUBCASE("negative submit time") {
    const auto [line, message] = error_of("3 -1 0 10 1 -1 -1 1 60 -1 1 1 1 1 1 1 -1 -1\n");
    CHECK(line == 1);
    CHECK(message.find("negative submit time -1") != std::string::npos);
  }
  SUBCASE("negative processor counts other than -1 (unknown)") {
    const auto [line, message] = error_of(good + "2 5 0 10 1 -1 -1 -4 60 -1 1 1 1 1 1 1 -1 -1\n");
    CHECK(line == 2);
    CHECK(message.find("negative processor count -4 requested (field 8)") != std::string::npos);
    const auto [line5, message5] = error_of("1 0 0 10 -2 -1 -1 1 60 -1 1 1 1 1 1 1 -1 -1\n");
    CHECK(line5 == 1);
    CHECK(message5.find("negative processor count -2 allocated (field 5)") != std::string::npos);
    // -1 (unknown) in both fields is data, as in the archive's logs.
    CHECK(read_text("1 0 0 10 -1 -1 -1 -1 60 -1 1 1 1 1 1 1 -1 -1\n").records.size() == 1);
  }
  SUBCASE("bytes a terminal would act on are escaped when the line is quoted") {
    const auto [line, message] = error_of(good + "2 \x1b[2J\x7f\xff\t5\n");
    CHECK(line == 2);
    CHECK(message == "line 2: expected 18 fields, found 3: '2 \\x1b[2J\\x7f\\xff\\t5'");
  }
  SUBCASE("submit times out of order") {
    const auto [line, message] =
        error_of("1 50 0 10 1 -1 -1 1 60 -1 1 1 1 1 1 1 -1 -1\n" +
                 std::string("2 49 0 10 1 -1 -1 1 60 -1 1 1 1 1 1 1 -1 -1\n"));
    CHECK(line == 2);
    CHECK(message.find("submit time 49 is before the previous 50") != std::string::npos);
  }
  SUBCASE("fractions rejected on request") {
    const auto [line, message] = error_of(good + "2 5 0 10.5 1 -1 -1 1 60 -1 1 1 1 1 1 1 -1 -1\n",
                                          {.fractions = swf::fraction_policy::reject});
    CHECK(line == 2);
    CHECK(message.find("field 4 '10.5' is not an integer") != std::string::npos);
    // An integral value written with a fraction is still an integer.
    std::istringstream in("2 5 0 10.0 1 -1 -1 1 6e1 -1 1 1 1 1 1 1 -1 -1\n");
    const auto log = swf::read(in, {.fractions = swf::fraction_policy::reject});
    CHECK(log.records.at(0).run_time == 10);
    CHECK(log.records.at(0).requested_time == 60);
  }
  SUBCASE("a known header key with a bad value") {
    const auto [line, message] = error_of("; MaxProcs: many\n" + good);
    CHECK(line == 1);
    CHECK(message == "line 1: header MaxProcs is not an integer: '; MaxProcs: many'");
  }
}

TEST_CASE("swf: on_error::skip drops and counts malformed lines") {
  const std::string text =
      "; MaxProcs: x\n"
      "1 10 0 10 1 -1 -1 1 60 -1 1 1 1 1 1 1 -1 -1\n"
      "garbage\n"
      "2 5 0 10 1 -1 -1 1 60 -1 1 1 1 1 1 1 -1 -1\n"  // before the previous submit
      "3 10 0 10 1 -1 -1 1 60 -1 1 1 1 1 1 1 -1 -1\n"
      "4 -7 0 10 1 -1 -1 1 60 -1 1 1 1 1 1 1 -1 -1\n";
  const auto log = read_text(text, swf::on_error::skip);
  CHECK(log.skipped == 4);
  REQUIRE(log.records.size() == 2);
  CHECK(log.records[0].job == 1);
  CHECK(log.records[1].job == 3);
  CHECK_FALSE(log.head.max_procs.has_value());
  CHECK_THROWS_AS(read_text(text), swf::parse_error);
  CHECK_THROWS_AS(read_text(text), workload::parse_error);
  CHECK_THROWS_AS(read_text(text), leasehold::error);
}

TEST_CASE("swf: write then read gives the same log") {
  SUBCASE("a log read from text") {
    const auto log = read_text(small_log);
    const auto again = read_text(write_text(log));
    CHECK(again == log);
  }
  SUBCASE("a header built in code") {
    swf::log log;
    log.head.max_procs = 128;
    log.head.max_nodes = 128;
    log.head.unix_start_time = 893466664;
    log.head.time_zone = "US/Pacific";
    log.head.notes = {"two\nlines"};
    log.records.push_back({1, 0, 5, 100, 8, 97.25, -1, 8, 3600, -1, 1, 7, 2, -1, 1, -1, -1, -1});
    log.records.push_back({2, 30, -1, -1, -1, 1e-3, 2048, 16, 60, 512, 5, 8, 2, 4, 3, 1, 1, 30});
    const auto again = read_text(write_text(log));
    CHECK(again.head.max_procs == 128);
    CHECK(again.head.max_nodes == 128);
    CHECK(again.head.unix_start_time == 893466664);
    CHECK(again.head.time_zone == "US/Pacific");
    CHECK(again.head.notes == log.head.notes);
    CHECK(again.records == log.records);
    // Written once more, the text is stable.
    CHECK(write_text(again) == write_text(read_text(write_text(again))));
  }
  SUBCASE("random records with every field exercised") {
    workload::rng random(2024);
    swf::log log;
    std::int64_t submit = 0;
    for (int i = 0; i < 500; ++i) {
      submit += random.uniform_int(0, 1000);
      const auto any = [&] { return random.uniform_int(-1, 1'000'000'000); };
      log.records.push_back({i, submit, any(), any(), any(), static_cast<double>(any()) / 8.0,
                             any(), any(), any(), any(), random.uniform_int(0, 5), any(), any(),
                             any(), any(), any(), any(), any()});
    }
    CHECK(read_text(write_text(log)).records == log.records);
  }
}

TEST_CASE("swf: random garbage never crashes and always names its line") {
  // 2,000 lines of random bytes from a small alphabet (digits, signs, dots, blanks, ';',
  // letters), each appended to a valid line: every outcome is a clean read or a
  // parse_error with that line's number.
  workload::rng random(7);
  const std::string alphabet = "0123456789 \t-+.;eE:xX\r\n\v";
  const std::string valid = "1 0 0 10 1 -1 -1 1 60 -1 1 1 1 1 1 1 -1 -1\n";
  std::size_t errors = 0;
  for (int trial = 0; trial < 2000; ++trial) {
    std::string garbage;
    const auto length = random.uniform_int(0, 60);
    for (std::int64_t i = 0; i < length; ++i)
      garbage.push_back(alphabet[static_cast<std::size_t>(
          random.uniform_int(0, static_cast<std::int64_t>(alphabet.size()) - 1))]);
    const std::string text = valid + garbage;
    std::istringstream in(text);
    try {
      const auto log = swf::read(in);
      CHECK(log.records.size() >= 1);
    } catch (const swf::parse_error& e) {
      ++errors;
      CHECK(e.line() >= 2);
      CHECK(std::string(e.what()).rfind("line " + std::to_string(e.line()) + ": ", 0) == 0);
    }
    std::istringstream again(text);
    const auto skipped = swf::read(again, swf::on_error::skip);
    CHECK(skipped.records.size() >= 1);
  }
  CHECK(errors > 1000);  // most garbage is malformed
}

TEST_CASE("swf: the shared Parallel Workloads Archive traces") {
  struct expected {
    const char* file;
    std::size_t records;
    std::int64_t max_nodes, max_procs, unix_start_time;
  };
  const expected traces[] = {
      {"traces/SDSC-BLUE-2000-4.2-cln.swf.gz", 243'306, 144, 1152, 956700003},
      {"traces/SDSC-SP2-1998-4.2-cln.swf.gz", 59'715, 128, 128, 893466664},
      {"traces/SDSC-DS-2004-2.1-cln.swf.gz", 96'069, 184, 1664, 1078605840},
  };
  for (const auto& trace : traces) {
    CAPTURE(trace.file);
    const auto text = test::gunzip(test::shared_path(trace.file));
    if (!text) {
      LEASEHOLD_SKIP_TEST(test::shared_path(trace.file) << " is absent");
      continue;
    }
    std::istringstream in(*text);
    const auto log = swf::read(in);
    CHECK(log.skipped == 0);
    CHECK(log.records.size() == trace.records);
    CHECK(log.head.max_records == static_cast<std::int64_t>(trace.records));
    CHECK(log.head.max_nodes == trace.max_nodes);
    CHECK(log.head.max_procs == trace.max_procs);
    CHECK(log.head.unix_start_time == trace.unix_start_time);
    CHECK(log.head.time_zone == "US/Pacific");
    CHECK_FALSE(log.head.notes.empty());
    if (std::string_view(trace.file).find("SP2") != std::string_view::npos)
      CHECK(read_text(write_text(log)) == log);  // a whole real log round-trips
    if (std::string_view(trace.file).find("BLUE") != std::string_view::npos) {
      // The README's quirks: about 10k run times of -1, about 23k above the request.
      std::size_t unknown_run = 0, overrun = 0;
      for (const auto& r : log.records) {
        unknown_run += r.run_time == -1;
        overrun += r.requested_time >= 0 && r.run_time > r.requested_time;
      }
      CHECK(unknown_run > 9'000);
      CHECK(unknown_run < 11'000);
      CHECK(overrun > 20'000);
      CHECK(overrun < 26'000);
      CHECK(log.records.front().job == 9);
      CHECK(log.records.front().submit == 430593);
    }
  }
}

TEST_CASE("swf: the Haizea paper's 30-day Blue Horizon extract") {
  const auto path = test::shared_path("haizea-workloads/blue-30days.swf");
  std::ifstream in(path);
  if (!in) {
    LEASEHOLD_SKIP_TEST(path << " is absent");
    return;
  }
  const auto log = swf::read(in);
  CHECK(log.records.size() == 5'545);
  CHECK(log.head.comments.empty());
  CHECK(log.records.front().submit == 0);
  CHECK(log.records.back().job == 8735);
  CHECK(log.records.back().submit == 2590930);
}

}  // namespace swf_test
