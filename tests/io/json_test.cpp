// io::json_reader / json_writer: exact numbers, escapes, and strict rejection of everything
// RFC 8259 does not allow, each with the line and column of the problem.

#include <doctest/doctest.h>

#include <cstdint>
#include <limits>
#include <string>

#include <leasehold/io/json.hpp>

using namespace leasehold::io;

namespace {

std::string error_of(const std::string& text) {
  try {
    (void)json_reader::parse(text);
  } catch (const format_error& e) {
    return e.what();
  }
  return "no error";
}

}  // namespace

TEST_CASE("json: integers and doubles read back exactly") {
  json_writer w;
  w.begin_object()
      .member("min", std::numeric_limits<std::int64_t>::min())
      .member("max", std::numeric_limits<std::int64_t>::max())
      .member("id", std::numeric_limits<std::uint64_t>::max())
      .member("tenth", 0.1)
      .member("tiny", 5e-324)
      .member("rate", 102.4)
      .end_object();
  const json_value doc = json_reader::parse(w.str());
  CHECK(doc.at("min").as_integer<std::int64_t>() == std::numeric_limits<std::int64_t>::min());
  CHECK(doc.at("max").as_integer<std::int64_t>() == std::numeric_limits<std::int64_t>::max());
  CHECK(doc.at("id").as_integer<std::uint64_t>() == std::numeric_limits<std::uint64_t>::max());
  CHECK(doc.at("tenth").as_double() == 0.1);
  CHECK(doc.at("tiny").as_double() == 5e-324);
  CHECK(doc.at("rate").as_double() == 102.4);
  // Out of range for the type asked for, or not an integer: named by path.
  CHECK_THROWS_WITH_AS((void)doc.at("max").as_integer<int>(),
                       "at $.max: integer 9223372036854775807 is out of range for its type",
                       format_error);
  CHECK_THROWS_WITH_AS((void)doc.at("rate").as_integer<int>(),
                       "at $.rate: expected an integer, found 102.4", format_error);
  CHECK_THROWS_WITH_AS((void)doc.at("min").as_string(),
                       "at $.min: expected a string, found a number", format_error);
  CHECK_THROWS_WITH_AS((void)doc.at("nothing"), "at $: missing member \"nothing\"", format_error);
}

TEST_CASE("json: strings round-trip with escapes and unicode") {
  json_writer w;
  w.begin_array().value(std::string("a \"quoted\"\\ line\nwith\ttab and \x01")).end_array();
  const json_value doc = json_reader::parse(w.str());
  CHECK(doc.as_array(1)[0].as_string() == "a \"quoted\"\\ line\nwith\ttab and \x01");
  CHECK(json_reader::parse(R"("\u00e9\ud83d\ude00\/")").as_string() == "\xc3\xa9\xf0\x9f\x98\x80/");
}

TEST_CASE("json: malformed documents are rejected with line and column") {
  CHECK(error_of("") == "line 1, column 1: unexpected end of input, expected a value");
  CHECK(error_of("[1, 2,]") == "line 1, column 7: expected a value, found ']'");
  CHECK(error_of("{\n  \"a\": 01\n}") == "line 2, column 9: a number must not have leading zeros");
  CHECK(error_of("{\"a\": 1, \"a\": 2}") == "line 1, column 10: duplicate member \"a\"");
  CHECK(error_of("\"open") == "line 1, column 6: unterminated string");
  CHECK(error_of("\"a\x01\"") == "line 1, column 3: control character in a string");
  CHECK(error_of("[1] [2]") == "line 1, column 5: unexpected text after the document");
  CHECK(error_of("NaN") == "line 1, column 1: expected a value, found 'N'");
  CHECK(error_of("[1.]") == "line 1, column 4: expected digits after the decimal point");
  CHECK(error_of("\"\\x\"") == "line 1, column 3: invalid escape \\'x'");
  CHECK(error_of("\"\\ud800\"") == "line 1, column 8: unpaired high surrogate in \\u escape");
  CHECK(error_of("{\"a\" 1}") == "line 1, column 6: expected ':', found '1'");
  CHECK(error_of(std::string(100, '[') + std::string(100, ']')) ==
        "line 1, column 66: nesting deeper than 64 levels");
}

TEST_CASE("json: only_members rejects unknown members by path") {
  const json_value doc = json_reader::parse(R"({"outer": {"known": 1, "extra": 2}})");
  CHECK_THROWS_WITH_AS(doc.at("outer").only_members({"known"}),
                       "at $.outer: unexpected member \"extra\"", format_error);
}
