#pragma once

// A small strict JSON (RFC 8259) reader and writer for leasehold's checkpoints. Strict: one
// value per document, no trailing commas, no comments, no duplicate keys, no NaN, no leading
// zeros, no control characters in strings, a nesting limit; anything else is a format_error
// naming the line and column. Numbers keep their text, so an integer is converted exactly
// (std::from_chars, with a range check against the type asked for) and a double round-trips
// bit for bit (written with max_digits10 significant digits). Objects keep their key order.
//
// Why not a library: checkpoints need a few hundred lines of JSON, and leasehold stays
// dependency-free beyond Boost (docs/reliability.md).

#include <charconv>
#include <cmath>
#include <concepts>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <memory>
#include <string>
#include <string_view>
#include <system_error>
#include <utility>
#include <variant>
#include <vector>

#include "leasehold/core/error.hpp"

namespace leasehold::io {

// Malformed or unexpected input. line() and column() are 1-based positions in the document,
// or 0 when the problem is found after parsing (a value of the wrong type); the message then
// names the value by its path, e.g. "$.leases[3].state".
struct format_error : error {
  format_error(std::size_t line, std::size_t column, const std::string& message)
      : error(line == 0 ? message
                        : "line " + std::to_string(line) + ", column " + std::to_string(column) +
                              ": " + message),
        line_(line),
        column_(column) {}

  [[nodiscard]] std::size_t line() const noexcept { return line_; }
  [[nodiscard]] std::size_t column() const noexcept { return column_; }

 private:
  std::size_t line_;
  std::size_t column_;
};

class json_value;

// A parsed value and the path it was found at, for error messages.
class json_value {
 public:
  enum class kind { null, boolean, number, string, array, object };
  using member = std::pair<std::string, json_value>;

  json_value() = default;

  [[nodiscard]] kind type() const noexcept { return static_cast<kind>(data_.index()); }
  [[nodiscard]] const std::string& path() const noexcept { return path_; }
  [[nodiscard]] bool is_null() const noexcept { return type() == kind::null; }

  [[nodiscard]] bool as_bool() const {
    expect(kind::boolean, "a boolean");
    return std::get<bool>(data_);
  }

  // An integer of type I, exactly: no fraction, no exponent, within I's range.
  template <std::integral I>
  [[nodiscard]] I as_integer() const {
    expect(kind::number, "an integer");
    const std::string& text = std::get<number_text>(data_).text;
    I value{};
    const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
    if (ec == std::errc::result_out_of_range)
      fail("integer " + text + " is out of range for its type");
    if (ec != std::errc{} || end != text.data() + text.size())
      fail("expected an integer, found " + text);
    return value;
  }

  [[nodiscard]] double as_double() const {
    expect(kind::number, "a number");
    const std::string& text = std::get<number_text>(data_).text;
    double value = 0.0;
    const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
    if (ec != std::errc{} || end != text.data() + text.size() || !std::isfinite(value))
      fail("number " + text + " is out of range for a double");
    return value;
  }

  [[nodiscard]] const std::string& as_string() const {
    expect(kind::string, "a string");
    return std::get<std::string>(data_);
  }

  [[nodiscard]] const std::vector<json_value>& as_array() const {
    expect(kind::array, "an array");
    return std::get<array_type>(data_);
  }

  // An array of exactly `size` elements.
  [[nodiscard]] const std::vector<json_value>& as_array(std::size_t size) const {
    const auto& a = as_array();
    if (a.size() != size)
      fail("expected an array of " + std::to_string(size) + " elements, found " +
           std::to_string(a.size()));
    return a;
  }

  [[nodiscard]] const std::vector<member>& as_object() const {
    expect(kind::object, "an object");
    return std::get<object_type>(data_);
  }

  // The member `key` of an object; format_error if it is missing.
  [[nodiscard]] const json_value& at(std::string_view key) const {
    if (const json_value* v = find(key)) return *v;
    fail("missing member \"" + std::string(key) + "\"");
  }

  [[nodiscard]] const json_value* find(std::string_view key) const {
    for (const member& m : as_object())
      if (m.first == key) return &m.second;
    return nullptr;
  }

  // Rejects members other than `allowed`: a checkpoint with unknown fields was written by
  // something else, and silently ignoring data is how state gets lost.
  void only_members(std::initializer_list<std::string_view> allowed) const {
    for (const member& m : as_object()) {
      bool known = false;
      for (std::string_view a : allowed) known = known || m.first == a;
      if (!known) fail("unexpected member \"" + m.first + "\"");
    }
  }

  // Throws format_error naming this value's path.
  [[noreturn]] void fail(const std::string& what) const {
    throw format_error(0, 0, "at " + path_ + ": " + what);
  }

 private:
  friend class json_reader;
  struct number_text {
    std::string text;
  };
  using array_type = std::vector<json_value>;
  using object_type = std::vector<member>;

  void expect(kind k, const char* what) const {
    static constexpr const char* names[] = {"null",     "a boolean", "a number",
                                            "a string", "an array",  "an object"};
    if (type() != k)
      fail(std::string("expected ") + what + ", found " + names[static_cast<int>(type())]);
  }

  std::variant<std::monostate, bool, number_text, std::string, array_type, object_type> data_;
  std::string path_ = "$";
};

// Parses one JSON document. Throws format_error with the line and column of the first problem.
class json_reader {
 public:
  static constexpr std::size_t max_depth = 64;

  [[nodiscard]] static json_value parse(std::string_view text) {
    json_reader r(text);
    r.skip_space();
    json_value v = r.value("$", 0);
    r.skip_space();
    if (r.pos_ != r.text_.size()) r.fail("unexpected text after the document");
    return v;
  }

 private:
  explicit json_reader(std::string_view text) : text_(text) {}

  [[noreturn]] void fail(const std::string& what) const {
    std::size_t line = 1;
    std::size_t column = 1;
    for (std::size_t i = 0; i < pos_ && i < text_.size(); ++i) {
      if (text_[i] == '\n') {
        ++line;
        column = 1;
      } else {
        ++column;
      }
    }
    throw format_error(line, column, what);
  }

  [[nodiscard]] bool at_end() const noexcept { return pos_ >= text_.size(); }
  [[nodiscard]] char peek() const noexcept { return at_end() ? '\0' : text_[pos_]; }

  void skip_space() noexcept {
    while (!at_end() && (text_[pos_] == ' ' || text_[pos_] == '\t' || text_[pos_] == '\n' ||
                         text_[pos_] == '\r'))
      ++pos_;
  }

  void expect_char(char c) {
    if (at_end()) fail(std::string("unexpected end of input, expected '") + c + "'");
    if (text_[pos_] != c) fail(std::string("expected '") + c + "', found " + describe_here());
    ++pos_;
  }

  [[nodiscard]] std::string describe_here() const {
    if (at_end()) return "the end of input";
    const unsigned char c = static_cast<unsigned char>(text_[pos_]);
    if (c < 0x20 || c >= 0x7f) return "byte " + std::to_string(static_cast<int>(c));
    return std::string("'") + text_[pos_] + "'";
  }

  json_value value(std::string path, std::size_t depth) {
    if (depth > max_depth) fail("nesting deeper than " + std::to_string(max_depth) + " levels");
    json_value v;
    v.path_ = std::move(path);
    if (at_end()) fail("unexpected end of input, expected a value");
    switch (peek()) {
      case '{':
        v.data_ = object(v.path_, depth);
        break;
      case '[':
        v.data_ = array(v.path_, depth);
        break;
      case '"':
        v.data_ = string();
        break;
      case 't':
        literal("true");
        v.data_ = true;
        break;
      case 'f':
        literal("false");
        v.data_ = false;
        break;
      case 'n':
        literal("null");
        break;
      default:
        if (peek() == '-' || (peek() >= '0' && peek() <= '9')) {
          v.data_ = json_value::number_text{number()};
          break;
        }
        fail("expected a value, found " + describe_here());
    }
    return v;
  }

  void literal(std::string_view word) {
    if (text_.substr(pos_, word.size()) != word) fail("expected a value, found " + describe_here());
    pos_ += word.size();
  }

  std::string number() {
    const std::size_t begin = pos_;
    auto digits = [this] {
      const std::size_t from = pos_;
      while (!at_end() && text_[pos_] >= '0' && text_[pos_] <= '9') ++pos_;
      return pos_ - from;
    };
    if (peek() == '-') ++pos_;
    if (peek() == '0') {
      ++pos_;
      if (peek() >= '0' && peek() <= '9') fail("a number must not have leading zeros");
    } else if (digits() == 0) {
      fail("expected digits, found " + describe_here());
    }
    if (peek() == '.') {
      ++pos_;
      if (digits() == 0) fail("expected digits after the decimal point");
    }
    if (peek() == 'e' || peek() == 'E') {
      ++pos_;
      if (peek() == '+' || peek() == '-') ++pos_;
      if (digits() == 0) fail("expected digits in the exponent");
    }
    return std::string(text_.substr(begin, pos_ - begin));
  }

  unsigned hex4() {
    unsigned code = 0;
    for (int i = 0; i < 4; ++i) {
      const char c = peek();
      unsigned digit = 0;
      if (c >= '0' && c <= '9')
        digit = static_cast<unsigned>(c - '0');
      else if (c >= 'a' && c <= 'f')
        digit = static_cast<unsigned>(c - 'a' + 10);
      else if (c >= 'A' && c <= 'F')
        digit = static_cast<unsigned>(c - 'A' + 10);
      else
        fail("expected four hex digits after \\u, found " + describe_here());
      code = code * 16 + digit;
      ++pos_;
    }
    return code;
  }

  static void append_utf8(std::string& out, unsigned code) {
    if (code < 0x80) {
      out += static_cast<char>(code);
    } else if (code < 0x800) {
      out += static_cast<char>(0xc0 | (code >> 6));
      out += static_cast<char>(0x80 | (code & 0x3f));
    } else if (code < 0x10000) {
      out += static_cast<char>(0xe0 | (code >> 12));
      out += static_cast<char>(0x80 | ((code >> 6) & 0x3f));
      out += static_cast<char>(0x80 | (code & 0x3f));
    } else {
      out += static_cast<char>(0xf0 | (code >> 18));
      out += static_cast<char>(0x80 | ((code >> 12) & 0x3f));
      out += static_cast<char>(0x80 | ((code >> 6) & 0x3f));
      out += static_cast<char>(0x80 | (code & 0x3f));
    }
  }

  std::string string() {
    expect_char('"');
    std::string out;
    while (true) {
      if (at_end()) fail("unterminated string");
      const char c = text_[pos_];
      if (c == '"') {
        ++pos_;
        return out;
      }
      if (static_cast<unsigned char>(c) < 0x20) fail("control character in a string");
      if (c != '\\') {
        out += c;
        ++pos_;
        continue;
      }
      ++pos_;
      if (at_end()) fail("unterminated escape in a string");
      const char e = text_[pos_++];
      switch (e) {
        case '"':
        case '\\':
        case '/':
          out += e;
          break;
        case 'b':
          out += '\b';
          break;
        case 'f':
          out += '\f';
          break;
        case 'n':
          out += '\n';
          break;
        case 'r':
          out += '\r';
          break;
        case 't':
          out += '\t';
          break;
        case 'u': {
          unsigned code = hex4();
          if (code >= 0xdc00 && code <= 0xdfff) fail("unpaired low surrogate in \\u escape");
          if (code >= 0xd800 && code <= 0xdbff) {
            if (text_.substr(pos_, 2) != "\\u") fail("unpaired high surrogate in \\u escape");
            pos_ += 2;
            const unsigned low = hex4();
            if (low < 0xdc00 || low > 0xdfff) fail("unpaired high surrogate in \\u escape");
            code = 0x10000 + ((code - 0xd800) << 10) + (low - 0xdc00);
          }
          append_utf8(out, code);
          break;
        }
        default:
          --pos_;
          fail("invalid escape \\" + describe_here());
      }
    }
  }

  // `open` item (',' item)* `close`, or `open` `close`: the grammar arrays and objects share
  // (RFC 8259 §4-5); item() reads one element or member at the current position.
  template <class Item>
  void sequence(char open, char close, Item item) {
    expect_char(open);
    skip_space();
    if (peek() == close) {
      ++pos_;
      return;
    }
    while (true) {
      skip_space();
      item();
      skip_space();
      if (peek() != ',') break;
      ++pos_;
    }
    expect_char(close);
  }

  std::vector<json_value> array(const std::string& path, std::size_t depth) {
    std::vector<json_value> items;
    sequence('[', ']', [&] {
      items.push_back(value(path + '[' + std::to_string(items.size()) + ']', depth + 1));
    });
    return items;
  }

  std::vector<json_value::member> object(const std::string& path, std::size_t depth) {
    std::vector<json_value::member> members;
    sequence('{', '}', [&] {
      if (peek() != '"') fail("expected a member name, found " + describe_here());
      const std::size_t key_at = pos_;
      std::string key = string();
      for (const auto& m : members)
        if (m.first == key) {
          pos_ = key_at;
          fail("duplicate member \"" + key + "\"");
        }
      skip_space();
      expect_char(':');
      skip_space();
      json_value v = value(path + '.' + key, depth + 1);
      members.emplace_back(std::move(key), std::move(v));
    });
    return members;
  }

  std::string_view text_;
  std::size_t pos_ = 0;
};

// Writes JSON text into a string: one call per token, commas and indentation handled here.
// Arrays of scalars stay on one line; everything else gets one member or element per line.
class json_writer {
 public:
  json_writer& begin_object() { return open('{'); }
  json_writer& end_object() { return close('}'); }
  json_writer& begin_array(bool compact = false) { return open('[', compact); }
  json_writer& end_array() { return close(']'); }

  // The next value is the member `name` of the enclosing object.
  json_writer& key(std::string_view name) {
    separate();
    quote(name);
    out_ += compact_depth_ > 0 ? ":" : ": ";
    after_key_ = true;
    return *this;
  }

  json_writer& value(std::string_view s) {
    separate();
    quote(s);
    return *this;
  }
  json_writer& value(const char* s) { return value(std::string_view(s)); }
  json_writer& value(const std::string& s) { return value(std::string_view(s)); }
  json_writer& value(bool b) {
    separate();
    out_ += b ? "true" : "false";
    return *this;
  }
  json_writer& null() {
    separate();
    out_ += "null";
    return *this;
  }
  template <std::integral I>
  requires(!std::same_as<I, bool>) json_writer& value(I i) {
    separate();
    out_ += std::to_string(i);
    return *this;
  }
  // Shortest text that reads back as the same double (std::to_chars round-trip guarantee).
  json_writer& value(double d) {
    if (!std::isfinite(d)) throw invalid_request("json_writer: cannot write a non-finite number");
    separate();
    char buffer[64];
    const auto result = std::to_chars(buffer, buffer + sizeof buffer, d);
    out_.append(buffer, result.ptr);
    return *this;
  }

  // key(name).value(v) in one call.
  template <class V>
  json_writer& member(std::string_view name, const V& v) {
    key(name);
    return value(v);
  }

  [[nodiscard]] const std::string& str() const noexcept { return out_; }
  [[nodiscard]] std::string take() { return std::move(out_); }

 private:
  json_writer& open(char c, bool compact = false) {
    separate();
    out_ += c;
    first_ = true;
    ++depth_;
    if (compact || compact_depth_ > 0) ++compact_depth_;
    return *this;
  }

  json_writer& close(char c) {
    --depth_;
    if (compact_depth_ == 0 && !first_) newline();
    if (compact_depth_ > 0) --compact_depth_;
    out_ += c;
    first_ = false;
    return *this;
  }

  void separate() {
    if (after_key_) {
      after_key_ = false;
      return;
    }
    if (!first_) out_ += compact_depth_ > 0 ? ", " : ",";
    if (depth_ > 0 && compact_depth_ == 0) newline();
    first_ = false;
  }

  void newline() {
    out_ += '\n';
    out_.append(2 * depth_, ' ');
  }

  void quote(std::string_view s) {
    out_ += '"';
    for (const char c : s) {
      switch (c) {
        case '"':
          out_ += "\\\"";
          break;
        case '\\':
          out_ += "\\\\";
          break;
        case '\n':
          out_ += "\\n";
          break;
        case '\r':
          out_ += "\\r";
          break;
        case '\t':
          out_ += "\\t";
          break;
        default:
          if (static_cast<unsigned char>(c) < 0x20) {
            static constexpr char hex[] = "0123456789abcdef";
            out_ += "\\u00";
            out_ += hex[(static_cast<unsigned char>(c) >> 4) & 0xf];
            out_ += hex[static_cast<unsigned char>(c) & 0xf];
          } else {
            out_ += c;
          }
      }
    }
    out_ += '"';
  }

  std::string out_;
  std::size_t depth_ = 0;
  std::size_t compact_depth_ = 0;
  bool first_ = true;
  bool after_key_ = false;
};

}  // namespace leasehold::io
