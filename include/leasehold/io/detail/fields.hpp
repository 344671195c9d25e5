#pragma once

// The field codecs every checkpoint kind shares: enumerations by name, optional values as
// null, intervals as [begin, end], id lists, capacities, and plain structs as objects whose
// members are listed once. Each checkpoint header names its own enumerations by specialising
// enum_names, and its structs by specialising object_fields: the one list that both the
// writer and the reader follow, so a member's name, its place and its codec are written once.

#include <array>
#include <concepts>
#include <cstddef>
#include <initializer_list>
#include <iterator>
#include <optional>
#include <string>
#include <string_view>
#include <tuple>
#include <type_traits>
#include <vector>

#include "leasehold/core/capacity.hpp"
#include "leasehold/core/time.hpp"
#include "leasehold/io/checkpoint.hpp"
#include "leasehold/io/json.hpp"

namespace leasehold::io::detail {

template <std::size_t N>
using name_array = std::array<std::string_view, N>;

// Specialised by each checkpoint header for its enumerations: `template <> inline constexpr
// name_array<N> enum_names<E>{...}`, the names in enumerator order (each specialisation has its
// own array type; the empty primary only marks an enumeration nobody named).
template <class E>
inline constexpr name_array<0> enum_names{};

template <class E>
[[nodiscard]] std::string_view name_of(E e) {
  static_assert(!enum_names<E>.empty(), "enum_names: no names for this enumeration");
  return enum_names<E>[static_cast<std::size_t>(e)];
}

template <class E>
[[nodiscard]] E read_enum(const json_value& v) {
  static_assert(!enum_names<E>.empty(), "enum_names: no names for this enumeration");
  const std::string& text = v.as_string();
  const auto& names = enum_names<E>;
  for (std::size_t i = 0; i < std::size(names); ++i)
    if (names[i] == text) return static_cast<E>(i);
  std::string known;
  for (std::string_view n : names) known += (known.empty() ? "" : ", ") + std::string(n);
  v.fail("unknown value \"" + text + "\" (expected one of " + known + ")");
}

template <time_value T>
void write_interval(json_writer& w, std::string_view name, const interval<T>& span) {
  w.key(name).begin_array().value(span.begin).value(span.end).end_array();
}

template <time_value T>
[[nodiscard]] interval<T> read_interval(const json_value& v) {
  const auto& pair = v.as_array(2);
  return {pair[0].as_integer<T>(), pair[1].as_integer<T>()};
}

inline void write_id_list(json_writer& w, const auto& ids) {
  w.begin_array();
  for (const auto id : ids) w.value(id);
  w.end_array();
}

inline void write_ids(json_writer& w, std::string_view name, const auto& ids) {
  w.key(name);
  write_id_list(w, ids);
}

template <class I>
[[nodiscard]] std::vector<I> read_ids(const json_value& v) {
  std::vector<I> ids;
  for (const json_value& item : v.as_array()) ids.push_back(item.as_integer<I>());
  return ids;
}

// One member of a struct written as a JSON object: its name in the document and the member.
// `may_be_absent` marks a member that checkpoints written before it existed lack: the reader
// then keeps the struct's default.
template <class Object, class Member>
struct field {
  std::string_view name;
  Member Object::*member;
  bool may_be_absent = false;
};
template <class Object, class Member>
field(std::string_view, Member Object::*) -> field<Object, Member>;
template <class Object, class Member>
field(std::string_view, Member Object::*, bool) -> field<Object, Member>;

inline constexpr bool absent_in_older_checkpoints = true;

// Specialised with `static constexpr std::tuple fields{field{...}, ...}` for each struct
// written as an object, in the document's order.
template <class Object>
struct object_fields;

template <class V>
inline constexpr bool is_optional_v = false;
template <class V>
inline constexpr bool is_optional_v<std::optional<V>> = true;
template <class V>
inline constexpr bool is_interval_v = false;
template <class T>
inline constexpr bool is_interval_v<interval<T>> = true;
template <class V>
inline constexpr bool is_vector_v = false;
template <class V>
inline constexpr bool is_vector_v<std::vector<V>> = true;
template <class V>
concept has_object_fields = requires {
  object_fields<V>::fields;
};
template <class V>
inline constexpr bool is_object_vector_v = false;
template <has_object_fields V>
inline constexpr bool is_object_vector_v<std::vector<V>> = true;

template <class V>
void write_value(json_writer& w, const V& v);
template <class V>
[[nodiscard]] V read_value(const json_value& v);

// Writes the members `fields` (a tuple of field) of o into the open object, in their order.
template <class Object, class Fields>
void write_members(json_writer& w, const Object& o, const Fields& fields) {
  std::apply([&](const auto&... f) { (write_value(w.key(f.name), o.*f.member), ...); }, fields);
}

// Rejects members of v other than those named by `fields` (tuples of field) and `more`.
template <class... Fields>
void only_fields(const json_value& v, std::initializer_list<std::string_view> more,
                 const Fields&... fields) {
  std::vector<std::string_view> names(more);
  (std::apply([&](const auto&... f) { (names.push_back(f.name), ...); }, fields), ...);
  v.only_members(names);
}

// Reads the members `fields` of o from the object v, in their order (so the first bad one is
// the one reported).
template <class Object, class Fields>
void read_members(const json_value& v, Object& o, const Fields& fields) {
  const auto read = [&](const auto& f) {
    using member = std::remove_cvref_t<decltype(o.*f.member)>;
    if (!f.may_be_absent)
      o.*f.member = read_value<member>(v.at(f.name));
    else if (const json_value* m = v.find(f.name))
      o.*f.member = read_value<member>(*m);
  };
  std::apply([&](const auto&... f) { (read(f), ...); }, fields);
}

// The codec each member type gets: an object by its fields, null for an empty optional,
// [begin, end] for an interval, an array for a vector, an enumeration by name, a vector
// capacity as its components, and a plain value otherwise.
template <class V>
void write_value(json_writer& w, const V& v) {
  if constexpr (has_object_fields<V>) {
    w.begin_object();
    write_members(w, v, object_fields<V>::fields);
    w.end_object();
  } else if constexpr (is_optional_v<V>) {
    if (v)
      write_value(w, *v);
    else
      w.null();
  } else if constexpr (is_interval_v<V>) {
    w.begin_array().value(v.begin).value(v.end).end_array();
  } else if constexpr (is_object_vector_v<V>) {
    w.begin_array();
    for (const auto& item : v) write_value(w, item);
    w.end_array();
  } else if constexpr (is_vector_v<V>) {
    write_id_list(w, v);
  } else if constexpr (std::is_enum_v<V>) {
    w.value(name_of(v));
  } else if constexpr (vector_capacity<V>) {
    write_capacity(w, v);
  } else {
    w.value(v);
  }
}

template <class V>
[[nodiscard]] V read_value(const json_value& v) {
  if constexpr (has_object_fields<V>) {
    only_fields(v, {}, object_fields<V>::fields);
    V o{};
    read_members(v, o, object_fields<V>::fields);
    return o;
  } else if constexpr (is_optional_v<V>) {
    if (v.is_null()) return std::nullopt;
    return read_value<typename V::value_type>(v);
  } else if constexpr (is_interval_v<V>) {
    return read_interval<decltype(V::begin)>(v);
  } else if constexpr (is_object_vector_v<V>) {
    V items;
    for (const json_value& item : v.as_array())
      items.push_back(read_value<typename V::value_type>(item));
    return items;
  } else if constexpr (is_vector_v<V>) {
    return read_ids<typename V::value_type>(v);
  } else if constexpr (std::is_enum_v<V>) {
    return read_enum<V>(v);
  } else if constexpr (vector_capacity<V>) {
    return read_capacity<V>(v);
  } else if constexpr (std::same_as<V, bool>) {
    return v.as_bool();
  } else if constexpr (std::same_as<V, std::string>) {
    return v.as_string();
  } else if constexpr (std::floating_point<V>) {
    return v.as_double();
  } else {
    return v.template as_integer<V>();
  }
}

}  // namespace leasehold::io::detail
