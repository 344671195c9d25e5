// io::json_reader / json_writer: exact numbers, escapes, and strict rejection of everything
// RFC 8259 does not allow, each with the line and column of the problem (nlohmann/json's
// parser) or the path of the value (duplicate members, nesting).

#include <doctest/doctest.h>

#include <cstdint>
#include <limits>
#include <string>

#include <leasehold/io/json.hpp>

namespace json_test {

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
  // The line and column of the first problem; the wording is nlohmann/json's.
  CHECK(error_of("") ==
        "line 1, column 1: syntax error while parsing value - unexpected end of input; expected "
        "'[', '{', or a literal");
  CHECK(error_of("[1, 2,]") ==
        "line 1, column 7: syntax error while parsing value - unexpected ']'; expected '[', '{', "
        "or a literal");
  CHECK(error_of("{\n  \"a\": 01\n}") ==
        "line 2, column 9: syntax error while parsing object - unexpected number literal; "
        "expected '}'");
  CHECK(error_of("\"open") ==
        "line 1, column 6: syntax error while parsing value - invalid string: missing closing "
        "quote; last read: '\"open'");
  CHECK(error_of("\"a\x01\"")
            .starts_with("line 1, column 3: syntax error while parsing value - "
                         "invalid string: control character U+0001"));
  CHECK(error_of("[1] [2]") ==
        "line 1, column 5: syntax error while parsing value - unexpected '['; expected end of "
        "input");
  CHECK(error_of("NaN") ==
        "line 1, column 1: syntax error while parsing value - invalid literal; last read: 'N'");
  CHECK(
      error_of("[1.]").starts_with("line 1, column 4: syntax error while parsing value - "
                                   "invalid number; expected digit after '.'"));
  CHECK(
      error_of("\"\\x\"").starts_with("line 1, column 3: syntax error while parsing value - "
                                      "invalid string: forbidden character after backslash"));
  CHECK(error_of("\"\\ud800\"")
            .starts_with("line 1, column 8: syntax error while parsing value - "
                         "invalid string: surrogate U+D800..U+DBFF"));
  CHECK(error_of("{\"a\" 1}") ==
        "line 1, column 6: syntax error while parsing object separator - unexpected number "
        "literal; expected ':'");
  CHECK(error_of("[\"\xff\"]")
            .starts_with("line 1, column 3: syntax error while parsing value "
                         "- invalid string: ill-formed UTF-8 byte"));
  // What nlohmann/json would accept, refused here by path: a member given twice (nlohmann
  // keeps one silently), and nesting deeper than max_depth.
  CHECK(error_of("{\"x\": {\"a\": 1, \"a\": 2}}") == "at $.x: duplicate member \"a\"");
  std::string deep_path = "$";
  for (int i = 0; i < 64; ++i) deep_path += "[0]";
  CHECK(error_of(std::string(100, '[') + std::string(100, ']')) ==
        "at " + deep_path + ": nesting deeper than 64 levels");
}

TEST_CASE("json: the writer refuses what JSON cannot hold and misuse") {
  json_writer bad_utf8;
  bad_utf8.begin_array().value(std::string("\xff")).end_array();
  CHECK_THROWS_AS((void)bad_utf8.str(), leasehold::invalid_request);
  json_writer nan;
  nan.begin_array();
  CHECK_THROWS_WITH_AS(nan.value(std::numeric_limits<double>::quiet_NaN()),
                       "json_writer: cannot write a non-finite number", leasehold::invalid_request);
  json_writer twice;
  twice.begin_object().member("a", 1);
  CHECK_THROWS_WITH_AS(twice.key("a"), "json_writer: member \"a\" written twice",
                       leasehold::invariant_violation);
  json_writer unclosed;
  unclosed.begin_object();
  CHECK_THROWS_AS((void)unclosed.str(), leasehold::invariant_violation);
}

TEST_CASE("json: documents of the earlier hand-written writer still read") {
  // Its layout: arrays of scalars on one line with ", ", shortest doubles without ".0".
  const json_value doc = json_reader::parse(
      "{\n  \"format\": \"leasehold-checkpoint\",\n  \"nodes\": [0, 1, 2],\n  \"rate\": 2,\n"
      "  \"nested\": {\"k\": [1.5, -3]}\n}");
  CHECK(doc.at("nodes").as_array(3)[2].as_integer<int>() == 2);
  CHECK(doc.at("rate").as_double() == 2.0);
  CHECK(doc.at("nested").at("k").as_array(2)[0].as_double() == 1.5);
  CHECK(doc.at("nested").at("k").path() == "$.nested.k");
  CHECK(doc.at("nested").at("k").as_array(2)[1].path() == "$.nested.k[1]");
}

TEST_CASE("json: only_members rejects unknown members by path") {
  const json_value doc = json_reader::parse(R"({"outer": {"known": 1, "extra": 2}})");
  CHECK_THROWS_WITH_AS(doc.at("outer").only_members({"known"}),
                       "at $.outer: unexpected member \"extra\"", format_error);
}

}  // namespace json_test
