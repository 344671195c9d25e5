#pragma once

// The field codecs every checkpoint kind shares: enumerations by name, optional integers,
// intervals as [begin, end], id lists. Each checkpoint header names its own enumerations by
// specialising enum_names.

#include <cstddef>
#include <iterator>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "leasehold/core/time.hpp"
#include "leasehold/io/json.hpp"

namespace leasehold::io::detail {

template <class E>
struct enum_names;

template <class E>
[[nodiscard]] std::string_view name_of(E e) {
  return enum_names<E>::names[static_cast<std::size_t>(e)];
}

template <class E>
[[nodiscard]] E read_enum(const json_value& v) {
  const std::string& text = v.as_string();
  const auto& names = enum_names<E>::names;
  for (std::size_t i = 0; i < std::size(names); ++i)
    if (names[i] == text) return static_cast<E>(i);
  std::string known;
  for (std::string_view n : names) known += (known.empty() ? "" : ", ") + std::string(n);
  v.fail("unknown value \"" + text + "\" (expected one of " + known + ")");
}

template <class T>
void write_optional(json_writer& w, std::string_view name, const std::optional<T>& v) {
  w.key(name);
  if (v)
    w.value(*v);
  else
    w.null();
}

template <class T>
[[nodiscard]] std::optional<T> read_optional(const json_value& v) {
  if (v.is_null()) return std::nullopt;
  return v.as_integer<T>();
}

template <time_value T>
void write_interval(json_writer& w, std::string_view name, const interval<T>& span) {
  w.key(name).begin_array(true).value(span.begin).value(span.end).end_array();
}

template <time_value T>
[[nodiscard]] interval<T> read_interval(const json_value& v) {
  const auto& pair = v.as_array(2);
  return {pair[0].as_integer<T>(), pair[1].as_integer<T>()};
}

inline void write_id_list(json_writer& w, const auto& ids) {
  w.begin_array(true);
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

}  // namespace leasehold::io::detail
