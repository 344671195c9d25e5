#pragma once

/// \file
/// JSON (RFC 8259) for leasehold's checkpoints, read and written with nlohmann/json (Debian
/// nlohmann-json3-dev). This header adds what checkpoints need on top of it:
///  - strictness: nlohmann's parser already refuses trailing commas, comments, NaN, leading
///    zeros, control characters in strings, invalid UTF-8 and text after the document; here
///    duplicate member names (nlohmann would keep one silently) and nesting deeper than
///    max_depth are refused too. Syntax errors are a format_error naming the line and column;
///    the others name the value by its path ("$.leases[3].state");
///  - exact numbers: every number keeps its text (nlohmann's SAX interface hands over the text
///    of floating-point numbers, and integers print back exactly), so an integer is converted
///    with a range check against the type asked for, and a double written by json_writer
///    (nlohmann's shortest round-trip form) reads back bit for bit;
///  - typed access with paths: json_value's `as_integer<I>`, as_double, at, only_members, ...
///    fail with a format_error naming the value, which is what the user of a corrupted
///    checkpoint needs to read.
/// Objects keep their member order, read and written (nlohmann::ordered_json).

#include <charconv>
#include <cmath>
#include <concepts>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <system_error>
#include <type_traits>
#include <utility>
#include <variant>
#include <vector>

#include <nlohmann/json.hpp>

#include "leasehold/core/error.hpp"

namespace leasehold::io {

/// Malformed or unexpected input. line() and column() are 1-based positions in the document,
/// or 0 when the problem is found after parsing (a value of the wrong type); the message then
/// names the value by its path, e.g. "$.leases[3].state".
struct format_error : error {
  /// `message`, prefixed with "line L, column C: " when line is not 0.
  format_error(std::size_t line, std::size_t column, const std::string& message)
      : error(line == 0 ? message
                        : "line " + std::to_string(line) + ", column " + std::to_string(column) +
                              ": " + message),
        line_(line),
        column_(column) {}

  /// 1-based line of a syntax error, 0 for a problem found after parsing.
  [[nodiscard]] std::size_t line() const noexcept { return line_; }
  /// 1-based column of a syntax error, 0 for a problem found after parsing.
  [[nodiscard]] std::size_t column() const noexcept { return column_; }

 private:
  std::size_t line_;
  std::size_t column_;
};

class json_value;

/// A parsed value and the path it was found at, for error messages.
class json_value {
 public:
  /// The JSON types.
  enum class kind { null, boolean, number, string, array, object };
  /// An object's member: its name and value, in document order.
  using member = std::pair<std::string, json_value>;

  /// null, at path "$".
  json_value() = default;

  /// Which JSON type the value is.
  [[nodiscard]] kind type() const noexcept { return static_cast<kind>(data_.index()); }
  /// Where the value is in its document, as "$.leases[3].state".
  [[nodiscard]] const std::string& path() const noexcept { return path_; }
  /// True for null.
  [[nodiscard]] bool is_null() const noexcept { return type() == kind::null; }
  /// The boolean; format_error naming the path for any other type.

  [[nodiscard]] bool as_bool() const {
    expect(kind::boolean, "a boolean");
    return std::get<bool>(data_);
  }

  /// An integer of type I, exactly: no fraction, no exponent, within I's range.
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

  /// A finite double, exactly as written (the text is converted once); format_error for
  /// another type or a value outside double's range.
  [[nodiscard]] double as_double() const {
    expect(kind::number, "a number");
    const std::string& text = std::get<number_text>(data_).text;
    double value = 0.0;
    const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
    if (ec != std::errc{} || end != text.data() + text.size() || !std::isfinite(value))
      fail("number " + text + " is out of range for a double");
    return value;
  }

  /// The string (UTF-8, escapes decoded); format_error for another type.
  [[nodiscard]] const std::string& as_string() const {
    expect(kind::string, "a string");
    return std::get<std::string>(data_);
  }

  /// The elements in order; format_error for another type.
  [[nodiscard]] const std::vector<json_value>& as_array() const {
    expect(kind::array, "an array");
    return std::get<array_type>(data_);
  }

  /// An array of exactly `size` elements.
  [[nodiscard]] const std::vector<json_value>& as_array(std::size_t size) const {
    const auto& a = as_array();
    if (a.size() != size)
      fail("expected an array of " + std::to_string(size) + " elements, found " +
           std::to_string(a.size()));
    return a;
  }

  /// The members in document order; format_error for another type.
  [[nodiscard]] const std::vector<member>& as_object() const {
    expect(kind::object, "an object");
    return std::get<object_type>(data_);
  }

  /// The member `key` of an object; format_error if it is missing.
  [[nodiscard]] const json_value& at(std::string_view key) const {
    if (const json_value* v = find(key)) return *v;
    fail("missing member \"" + std::string(key) + "\"");
  }

  /// The member `key` of an object, or nullptr; format_error if this is not an object. Linear
  /// in the number of members.
  [[nodiscard]] const json_value* find(std::string_view key) const {
    for (const member& m : as_object())
      if (m.first == key) return &m.second;
    return nullptr;
  }

  /// Rejects members other than `allowed`: a checkpoint with unknown fields was written by
  /// something else, and silently ignoring data is how state gets lost.
  void only_members(std::initializer_list<std::string_view> allowed) const {
    only_members(std::span<const std::string_view>(allowed.begin(), allowed.size()));
  }
  /// The same, for a list built at run time.
  void only_members(std::span<const std::string_view> allowed) const {
    for (const member& m : as_object()) {
      bool known = false;
      for (std::string_view a : allowed) known = known || m.first == a;
      if (!known) fail("unexpected member \"" + m.first + "\"");
    }
  }

  /// Throws format_error naming this value's path: "at $.x: what".
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

/// Parses one JSON document with nlohmann/json's SAX parser, building json_values with their
/// paths. Throws format_error: with the line and column of a syntax error; naming the path of
/// a duplicate member or of a value nested deeper than max_depth.
class json_reader {
 public:
  static constexpr std::size_t max_depth = 64;  ///< The deepest nesting accepted.

  /// The document in `text`, which must be one JSON value and nothing else; format_error as
  /// above.
  [[nodiscard]] static json_value parse(std::string_view text) {
    json_reader r(text);
    // strict: the document must be the whole text.
    nlohmann::ordered_json::sax_parse(text.begin(), text.end(), &r,
                                      nlohmann::ordered_json::input_format_t::json, true);
    return std::move(r.root_);
  }

  using json = nlohmann::ordered_json;  ///< The nlohmann type whose SAX interface this is.
  ///@{
  /// nlohmann's SAX events (nlohmann::json_sax), called by the parser, not by users. Each
  /// returns true to go on; problems throw format_error.
  bool null() { return add(json_value{}); }
  bool boolean(bool b) { return add(leaf(b)); }
  bool number_integer(json::number_integer_t i) { return add(number(std::to_string(i))); }
  bool number_unsigned(json::number_unsigned_t u) { return add(number(std::to_string(u))); }
  bool number_float(json::number_float_t, const json::string_t& text) { return add(number(text)); }
  bool string(json::string_t& s) { return add(leaf(std::move(s))); }
  bool binary(json::binary_t&) { return add(json_value{}); }  ///< not produced by JSON text
  bool start_object(std::size_t) { return open(json_value::object_type{}); }
  bool end_object() { return close(); }
  bool start_array(std::size_t) { return open(json_value::array_type{}); }
  bool end_array() { return close(); }
  bool key(json::string_t& name) {
    const json_value& object = *open_.back();
    for (const json_value::member& m : std::get<json_value::object_type>(object.data_))
      if (m.first == name) object.fail("duplicate member \"" + name + "\"");
    key_ = std::move(name);
    return true;
  }
  bool parse_error(std::size_t position, const std::string&, const nlohmann::detail::exception& e) {
    // nlohmann's message reads "[json.exception.parse_error.101] parse error at line 1,
    // column 7: syntax error while parsing value - unexpected ']'; ..."; the position is
    // recomputed here from the byte offset, and the rest kept.
    std::string what = e.what();
    if (const auto colon = what.find(": "); colon != std::string::npos) what.erase(0, colon + 2);
    std::size_t line = 1;
    std::size_t column = 1;
    const std::size_t end = position == 0 ? 0 : std::min(position - 1, text_.size());
    for (std::size_t i = 0; i < end; ++i) {
      if (text_[i] == '\n') {
        ++line;
        column = 1;
      } else {
        ++column;
      }
    }
    throw format_error(line, column, what);
  }
  ///@}

 private:
  explicit json_reader(std::string_view text) : text_(text) {}

  template <class V>
  static json_value leaf(V v) {
    json_value value;
    value.data_ = std::move(v);
    return value;
  }
  static json_value number(std::string text) {
    return leaf(json_value::number_text{std::move(text)});
  }

  /// Places `v` in the open array or object (or as the document), naming its path; returns
  /// where it now lives.
  json_value* place(json_value v) {
    if (open_.empty()) {
      root_ = std::move(v);
      return &root_;
    }
    json_value& parent = *open_.back();
    if (auto* array = std::get_if<json_value::array_type>(&parent.data_)) {
      v.path_ = parent.path_ + '[' + std::to_string(array->size()) + ']';
      array->push_back(std::move(v));
      return &array->back();
    }
    auto& object = std::get<json_value::object_type>(parent.data_);
    v.path_ = parent.path_ + '.' + key_;
    object.emplace_back(std::move(key_), std::move(v));
    return &object.back().second;
  }
  bool add(json_value v) {
    (void)place(std::move(v));
    return true;
  }
  template <class Container>
  bool open(Container c) {
    json_value* v = place(leaf(std::move(c)));
    // Checked here, with the path, since nlohmann sets no limit of its own.
    if (open_.size() >= max_depth)
      v->fail("nesting deeper than " + std::to_string(max_depth) + " levels");
    open_.push_back(v);  // stable: its parent grows again only once it is closed
    return true;
  }
  bool close() {
    open_.pop_back();
    return true;
  }

  std::string_view text_;
  json_value root_;
  std::vector<json_value*> open_;
  std::string key_;
};

/// Writes a JSON document: one call per token, as a stream would take them, building an
/// nlohmann::ordered_json. str() lays it out as leasehold's checkpoints always were (two-space
/// indentation, one member or element per line, an array of scalars on one line: "[100, 4]"),
/// so that checkpoints stay readable and diffable and keep their earlier text; every scalar
/// is printed by nlohmann (escapes; doubles in the shortest form that reads back the same). Misuse
/// (a value without a key inside an object, a member written twice, a close that does not match) is
/// an invariant_violation; a string that is not valid UTF-8, or a non-finite double, an
/// invalid_request: JSON cannot hold either faithfully.
class json_writer {
 public:
  using json = nlohmann::ordered_json;  ///< The nlohmann type the document is built in.

  /// Opens an object (as the value of the pending key, inside an array, or as the document).
  json_writer& begin_object() { return open(json::object()); }
  /// Closes the innermost open object; invalid_request if an array is open instead.
  json_writer& end_object() { return close(json::value_t::object); }
  /// The layout follows from the content: an array of scalars is written on one line.
  json_writer& begin_array() { return open(json::array()); }
  /// Deprecated: earlier versions took the layout here; the flag now has no effect.
  [[deprecated("the layout follows from the content: call begin_array()")]] json_writer&
  begin_array(bool /*compact*/) {
    return begin_array();
  }
  /// Closes the innermost open array; invalid_request if an object is open instead.
  json_writer& end_array() { return close(json::value_t::array); }

  /// The next value is the member `name` of the enclosing object.
  json_writer& key(std::string_view name) {
    if (open_.empty() || !open_.back()->is_object() || key_)
      throw invariant_violation("json_writer: key \"" + std::string(name) +
                                "\" outside an object or after another key");
    if (open_.back()->contains(name))
      throw invariant_violation("json_writer: member \"" + std::string(name) + "\" written twice");
    key_ = std::string(name);
    return *this;
  }

  /// A string value (checked for valid UTF-8 when the text is made).
  json_writer& value(std::string_view s) { return put(std::string(s)); }
  /// A string value.
  json_writer& value(const char* s) { return value(std::string_view(s)); }
  /// A string value.
  json_writer& value(const std::string& s) { return value(std::string_view(s)); }
  /// true or false.
  json_writer& value(bool b) { return put(b); }
  /// null.
  json_writer& null() { return put(nullptr); }
  /// An integer, written exactly whatever its width.
  template <std::integral I>
  requires(!std::same_as<I, bool>) json_writer& value(I i) {
    if constexpr (std::is_signed_v<I>)
      return put(static_cast<std::int64_t>(i));
    else
      return put(static_cast<std::uint64_t>(i));
  }
  /// A double in the shortest form that reads back bit for bit; invalid_request for NaN or an
  /// infinity, which JSON cannot hold.
  json_writer& value(double d) {
    if (!std::isfinite(d)) throw invalid_request("json_writer: cannot write a non-finite number");
    return put(d);
  }

  /// key(name).value(v) in one call.
  template <class V>
  json_writer& member(std::string_view name, const V& v) {
    key(name);
    return value(v);
  }

  /// The document's text. Throws invalid_request if a string is not valid UTF-8.
  [[nodiscard]] std::string str() const {
    if (!open_.empty() || !started_)
      throw invariant_violation("json_writer: the document is not complete");
    try {
      std::string out;
      print(root_, 0, out);
      return out;
    } catch (const json::type_error& e) {
      throw invalid_request(std::string("json_writer: a string is not valid UTF-8 (") + e.what() +
                            ")");
    }
  }
  /// The document's text, as str(), and the writer emptied for the next document.
  [[nodiscard]] std::string take() {
    std::string text = str();
    *this = json_writer{};
    return text;
  }

 private:
  /// An array of scalars is written on one line.
  static bool one_line(const json& v) {
    for (const json& element : v)
      if (element.is_structured()) return false;
    return true;
  }
  static void newline(std::size_t depth, std::string& out) {
    out += '\n';
    out.append(2 * depth, ' ');
  }
  static void print(const json& v, std::size_t depth, std::string& out) {
    if (v.is_object()) {
      out += '{';
      bool first = true;
      for (const auto& [name, member] : v.items()) {
        if (!first) out += ',';
        first = false;
        newline(depth + 1, out);
        out += json(name).dump();
        out += ": ";
        print(member, depth + 1, out);
      }
      if (!first) newline(depth, out);
      out += '}';
    } else if (v.is_array() && one_line(v)) {
      out += '[';
      for (std::size_t i = 0; i < v.size(); ++i) {
        if (i > 0) out += ", ";
        print(v[i], depth, out);
      }
      out += ']';
    } else if (v.is_array()) {
      out += '[';
      for (std::size_t i = 0; i < v.size(); ++i) {
        if (i > 0) out += ',';
        newline(depth + 1, out);
        print(v[i], depth + 1, out);
      }
      if (!v.empty()) newline(depth, out);
      out += ']';
    } else {
      out += v.dump();
    }
  }

  /// Where the next value goes: the document, the open array, or the open object's key.
  json* slot() {
    if (open_.empty()) {
      if (started_) throw invariant_violation("json_writer: a second document");
      started_ = true;
      return &root_;
    }
    json& parent = *open_.back();
    if (parent.is_array()) {
      parent.push_back(nullptr);
      return &parent.back();
    }
    if (!key_) throw invariant_violation("json_writer: a value in an object without a key");
    json* member = &parent[*key_];
    key_.reset();
    return member;
  }
  template <class V>
  json_writer& put(V&& v) {
    *slot() = std::forward<V>(v);
    return *this;
  }
  json_writer& open(json container) {
    json* v = slot();
    *v = std::move(container);
    open_.push_back(v);  // stable: its parent grows again only once it is closed
    return *this;
  }
  json_writer& close(json::value_t type) {
    if (open_.empty() || open_.back()->type() != type || key_)
      throw invariant_violation("json_writer: a close that matches no open array or object");
    open_.pop_back();
    return *this;
  }

  json root_;
  std::vector<json*> open_;
  std::optional<std::string> key_;
  bool started_ = false;
};

}  // namespace leasehold::io
