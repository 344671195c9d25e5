#pragma once

/// \file
/// Checkpoints of availability profiles and slot tables: a versioned JSON document
/// (docs/reliability.md describes the format) that an embedding scheduler writes before it
/// stops and reads back after a restart.
///
///  - save_profile(a) works for every backend; load_profile<A>(text) restores into any backend
///    of the same time and capacity types (a free_tree saved, a free_list restored). The
///    restored profile has the same free_blocks(), so it answers every query identically.
///  - save_slot_table / load_slot_table do the same for cluster::slot_table<A>; the aggregate
///    profile is not stored (it is the sum over nodes) but rebuilt.
///  - Every checkpoint carries a CRC-32C of its text (checkpoint_checksum.hpp), which the load
///    functions check before they parse anything; read_* take a parsed document and cannot.
///  - Reading is strict: wrong format, version, kind or types, a missing or unknown member, a
///    profile that is not a maximal block list from the origin, or one the target backend
///    cannot hold exactly (a slotted_ring's slots and horizon) is a format_error naming what
///    is wrong and where. Nothing is half-loaded: the result is built aside and returned only
///    when complete and validate() passes.
///
/// Backends whose constructor takes more than (total, origin) (slotted_ring) are built by a
/// `make(total, origin)` callable the caller passes.

#include <algorithm>
#include <concepts>
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

#include "leasehold/availability/concept.hpp"
#include "leasehold/cluster/slot_table.hpp"
#include "leasehold/core/capacity.hpp"
#include "leasehold/core/error.hpp"
#include "leasehold/core/free_block.hpp"
#include "leasehold/core/time.hpp"
#include "leasehold/io/checkpoint_checksum.hpp"
#include "leasehold/io/json.hpp"

namespace leasehold::io {

/// The format's name and the version written. A reader accepts the versions it knows, from
/// checkpoint_oldest_version on, and no other: a checkpoint is state, and guessing at the
/// meaning of another version's fields would corrupt it. Version 2 added the checksum
/// (checkpoint_checksum.hpp); version 1, without it, is still read.
inline constexpr std::string_view checkpoint_format = "leasehold-checkpoint";
inline constexpr std::int64_t checkpoint_version = 2;         ///< The version written.
inline constexpr std::int64_t checkpoint_oldest_version = 1;  ///< The oldest version read.

/// Builds a backend with total capacity `total` and origin `origin`: A(total, origin).
struct construct_profile {
  /// A(total, origin).
  template <class A>
  [[nodiscard]] A make(typename A::capacity_type total, typename A::time_type origin) const {
    return A(total, origin);
  }
};

namespace detail {

/// "int64", "int32", ...: the name a checkpoint records for an integral type.
template <std::integral I>
[[nodiscard]] std::string integral_name() {
  return std::string(std::is_signed_v<I> ? "int" : "uint") + std::to_string(8 * sizeof(I));
}

template <capacity_value C>
[[nodiscard]] std::string capacity_name() {
  if constexpr (scalar_capacity<C>)
    return integral_name<C>();
  else if constexpr (leasehold::detail::is_dynamic_resources<C>::value)
    // The count is per value: the arrays say it, and read_blocks checks it against the total.
    return "dynamic_resources<" + integral_name<typename C::value_type>() + "," +
           std::to_string(C::max_size) + ">";
  else
    return "resources<" + std::to_string(C::size()) + "," +
           integral_name<typename C::value_type>() + ">";
}

template <capacity_value C>
void write_capacity(json_writer& w, const C& c) {
  if constexpr (scalar_capacity<C>) {
    w.value(c);
  } else {
    w.begin_array();
    for (const auto& v : c) w.value(v);
    w.end_array();
  }
}

template <capacity_value C>
[[nodiscard]] C read_capacity(const json_value& v) {
  if constexpr (scalar_capacity<C>) {
    return v.as_integer<C>();
  } else if constexpr (leasehold::detail::is_dynamic_resources<C>::value) {
    const auto& items = v.as_array();
    if (items.empty() || items.size() > C::max_size)
      v.fail(std::to_string(items.size()) + " components, expected 1 to " +
             std::to_string(C::max_size));
    C c(items.size());
    for (std::size_t i = 0; i < items.size(); ++i)
      c[i] = items[i].template as_integer<typename C::value_type>();
    return c;
  } else {
    C c{};
    const auto& items = v.as_array(C::size());
    for (std::size_t i = 0; i < C::size(); ++i)
      c[i] = items[i].template as_integer<typename C::value_type>();
    return c;
  }
}

/// The envelope every checkpoint starts with. The checksum is written unsealed (zeros) and
/// filled in by the save functions once the text is complete (sealed_text).
inline void write_header(json_writer& w, std::string_view kind) {
  w.member("format", checkpoint_format);
  w.member("version", checkpoint_version);
  w.member("checksum", "crc32c:" + std::string(unsealed_digits));
  w.member("kind", kind);
}

/// The text of a finished checkpoint, sealed.
[[nodiscard]] inline std::string sealed_text(json_writer& w) { return seal_checkpoint(w.take()); }

/// Parses a checkpoint's text after checking its checksum (before anything else is read). A
/// text without one parses only as an older version: a version-2 document whose checksum is
/// not where the bytes say (reformatted, or the member's name corrupted) is refused.
[[nodiscard]] inline json_value parse_checkpoint(std::string_view text) {
  const bool sealed = verify_checkpoint_checksum(text);
  json_value doc = json_reader::parse(text);
  if (!sealed && doc.type() == json_value::kind::object) {
    const json_value* version = doc.find("version");
    if (version != nullptr && version->type() == json_value::kind::number &&
        version->as_integer<std::int64_t>() >= 2)
      doc.fail("a checkpoint of version " + std::to_string(version->as_integer<std::int64_t>()) +
               " without a checksum in the form \"checksum\": \"crc32c:<8 hex digits>\"");
  }
  return doc;
}

template <time_value T, capacity_value C>
void write_types(json_writer& w) {
  w.member("time_type", integral_name<T>());
  w.member("capacity_type", capacity_name<C>());
}

inline void check_header(const json_value& doc, std::string_view kind) {
  (void)doc.as_object();
  const json_value& format = doc.at("format");
  if (format.as_string() != checkpoint_format)
    format.fail("not a leasehold checkpoint (format \"" + format.as_string() + "\")");
  const json_value& version = doc.at("version");
  if (version.type() != json_value::kind::number) version.fail("expected an integer version");
  const auto v = version.as_integer<std::int64_t>();
  if (v < checkpoint_oldest_version || v > checkpoint_version)
    version.fail("unsupported checkpoint version " + std::to_string(v) +
                 " (this build reads versions " + std::to_string(checkpoint_oldest_version) +
                 " to " + std::to_string(checkpoint_version) + ")");
  // From version 2 on the checksum is part of the envelope (checked, when the text is at
  // hand, by parse_checkpoint); version 1 had none.
  const json_value* checksum = doc.find("checksum");
  if (v >= 2 && checksum == nullptr) doc.fail("missing member \"checksum\"");
  if (v < 2 && checksum != nullptr)
    checksum->fail("a checkpoint of version " + std::to_string(v) + " has no checksum");
  if (checksum != nullptr) {
    const std::string& text = checksum->as_string();
    const std::string_view digits =
        std::string_view(text).substr(std::min<std::size_t>(text.size(), 7));
    if (!text.starts_with("crc32c:") || digits.size() != checksum_digits ||
        !std::ranges::all_of(digits, is_lower_hex))
      checksum->fail("the checksum is not \"crc32c:\" and eight lowercase hex digits");
  }
  const json_value& k = doc.at("kind");
  if (k.as_string() != kind)
    k.fail("a checkpoint of a " + k.as_string() + ", expected a " + std::string(kind));
}

template <time_value T, capacity_value C>
void check_types(const json_value& doc) {
  const json_value& t = doc.at("time_type");
  if (t.as_string() != integral_name<T>())
    t.fail("time type " + t.as_string() + ", expected " + integral_name<T>());
  const json_value& c = doc.at("capacity_type");
  if (c.as_string() != capacity_name<C>())
    c.fail("capacity type " + c.as_string() + ", expected " + capacity_name<C>());
}

/// A profile's blocks as [[begin, free], ...] plus the end of the last one.
template <availability A>
void write_blocks(json_writer& w, const A& a) {
  w.key("blocks").begin_array();
  typename A::time_type end = a.origin();
  for (const auto& block : a.free_blocks()) {
    w.begin_array().value(block.span.begin);
    write_capacity(w, block.free);
    w.end_array();
    end = block.span.end;
  }
  w.end_array();
  w.member("end", end);
}

template <time_value T, capacity_value C>
struct block_list {
  std::vector<free_block<T, C>> blocks;
};

/// Reads and checks a block list: it starts at `origin`, begins strictly increase, neighbours
/// differ (maximal blocks), every free amount lies in [0, total], the end follows the last begin.
template <time_value T, capacity_value C>
[[nodiscard]] block_list<T, C> read_blocks(const json_value& owner, T origin, const C& total) {
  block_list<T, C> list;
  const json_value& blocks = owner.at("blocks");
  const auto& items = blocks.as_array();
  if (items.empty()) blocks.fail("a profile needs at least one block");
  for (const json_value& item : items) {
    const auto& pair = item.as_array(2);
    const T begin = pair[0].as_integer<T>();
    const C free = read_capacity<C>(pair[1]);
    if constexpr (leasehold::detail::is_dynamic_resources<C>::value)
      if (free.size() != total.size())
        pair[1].fail("free capacity of " + std::to_string(free.size()) +
                     " components, the total has " + std::to_string(total.size()));
    if (list.blocks.empty() && begin != origin)
      pair[0].fail("the first block begins at " + std::to_string(begin) + ", not at the origin " +
                   std::to_string(origin));
    if (!list.blocks.empty()) {
      if (!(list.blocks.back().span.begin < begin)) pair[0].fail("blocks are not in time order");
      if (list.blocks.back().free == free)
        item.fail("two neighbouring blocks have the same free capacity (not maximal)");
      list.blocks.back().span.end = begin;
    }
    if (!is_nonnegative(free) || !fits(free, total))
      pair[1].fail("free capacity outside [0, total]");
    list.blocks.push_back({{begin, begin}, free});
  }
  const json_value& end = owner.at("end");
  const T last_end = end.as_integer<T>();
  if (!(list.blocks.back().span.begin < last_end)) end.fail("the last block ends before it begins");
  list.blocks.back().span.end = last_end;
  return list;
}

template <availability A>
[[nodiscard]] std::vector<free_block_of<A>> blocks_of(const A& a) {
  std::vector<free_block_of<A>> blocks;
  for (const auto& b : a.free_blocks()) blocks.push_back(b);
  return blocks;
}

/// The blocks a backend must show after restoring `list`: all of them, or for a fixed horizon
/// the part inside it (a ring's horizon may end before the saved profile does).
template <availability A, time_value T, capacity_value C>
[[nodiscard]] std::vector<free_block<T, C>> expected_in(const A& a, block_list<T, C> list) {
  if constexpr (bounded_availability<A>) {
    const T end = a.horizon().end;
    std::erase_if(list.blocks, [end](const auto& b) { return b.span.begin >= end; });
    if (!list.blocks.empty() && list.blocks.back().span.end > end)
      list.blocks.back().span.end = end;
  }
  return list.blocks;
}

/// Books every block's shortfall against `total` with `book(span, amount)`.
template <time_value T, capacity_value C, class Book>
void book_blocks(const json_value& where, const block_list<T, C>& list, const C& total, Book book) {
  for (const auto& block : list.blocks) {
    if (block.free == total) continue;
    try {
      book(block.span, total - block.free);
    } catch (const error& e) {
      where.fail(std::string("the profile cannot be restored into this backend: ") + e.what());
    }
  }
}

template <class Make, class A>
concept profile_maker = requires(const Make& make, typename A::capacity_type total,
                                 typename A::time_type origin) {
  { make.template make<A>(total, origin) } -> std::same_as<A>;
}
|| requires(const Make& make, typename A::capacity_type total, typename A::time_type origin) {
  { make(total, origin) } -> std::same_as<A>;
};

template <availability A, class Make>
[[nodiscard]] A make_profile(const Make& make, typename A::capacity_type total,
                             typename A::time_type origin) {
  if constexpr (requires { make.template make<A>(total, origin); })
    return make.template make<A>(total, origin);
  else
    return make(total, origin);
}

/// Turns any leasehold::error thrown while building into a format_error naming `where`.
template <class Build>
auto building(const json_value& where, Build build) -> decltype(build()) {
  try {
    return build();
  } catch (const format_error&) {
    throw;
  } catch (const error& e) {
    where.fail(std::string("cannot build the restored state: ") + e.what());
  }
}

}  // namespace detail

// ---- availability profiles --------------------------------------------------------------------

/// Writes profile `a` as one checkpoint object (header, types, total, origin, free blocks)
/// into `w`, as the next value; O(n) for n blocks.
template <availability A>
void write_profile(json_writer& w, const A& a) {
  w.begin_object();
  detail::write_header(w, "availability");
  detail::write_types<typename A::time_type, typename A::capacity_type>(w);
  w.key("total");
  detail::write_capacity(w, a.total());
  w.member("origin", a.origin());
  detail::write_blocks(w, a);
  w.end_object();
}

/// The checkpoint text of profile `a`, with its checksum: what load_profile reads back into an
/// equal profile.
template <availability A>
[[nodiscard]] std::string save_profile(const A& a) {
  json_writer w;
  write_profile(w, a);
  return detail::sealed_text(w);
}

/// Restores the profile a parsed checkpoint holds, building the backend with make (slotted_ring
/// needs its slot width and count). Throws format_error naming the value's path for a wrong
/// header, version, type, member or block list, and for a profile the backend cannot hold
/// exactly (slot rounding); the profile is validated before it is returned.
template <availability A, class Make = construct_profile>
requires detail::profile_maker<Make, A>
[[nodiscard]] A read_profile(const json_value& doc, const Make& make = {}) {
  using T = typename A::time_type;
  using C = typename A::capacity_type;
  detail::check_header(doc, "availability");
  doc.only_members({"format", "version", "checksum", "kind", "time_type", "capacity_type", "total",
                    "origin", "blocks", "end"});
  detail::check_types<T, C>(doc);
  const C total = detail::read_capacity<C>(doc.at("total"));
  if (!is_positive(total)) doc.at("total").fail("total capacity must be positive");
  const T origin = doc.at("origin").as_integer<T>();
  const auto list = detail::read_blocks<T, C>(doc, origin, total);
  A a = detail::building(doc, [&] { return detail::make_profile<A>(make, total, origin); });
  if (a.origin() != origin)
    doc.at("origin").fail("the backend cannot start at origin " + std::to_string(origin) +
                          " (it starts at " + std::to_string(a.origin()) + ")");
  detail::book_blocks(doc.at("blocks"), list, total,
                      [&a](interval<T> span, const C& amount) { a.reserve(span, amount); });
  if (detail::blocks_of(a) != detail::expected_in(a, list))
    doc.at("blocks").fail("the backend cannot hold this profile exactly (slot rounding)");
  if constexpr (validating_availability<A>) a.validate();
  return a;
}

/// Parses `text` and restores the profile it holds (see read_profile).
template <availability A, class Make = construct_profile>
requires detail::profile_maker<Make, A>
[[nodiscard]] A load_profile(std::string_view text, const Make& make = {}) {
  return read_profile<A>(detail::parse_checkpoint(text), make);
}

// ---- slot tables ------------------------------------------------------------------------------

/// Writes a slot table's members (per-node total, origin, every node's free blocks) into the
/// open object of `w`, for checkpoints that embed a table in a larger state.
template <availability A>
void write_slot_table_body(json_writer& w, const cluster::slot_table<A>& table) {
  w.key("per_node_total");
  detail::write_capacity(w, table.per_node_total());
  w.member("origin", table.origin());
  w.key("nodes").begin_array();
  for (std::size_t i = 0; i < table.node_count(); ++i) {
    w.begin_object();
    detail::write_blocks(w, table.node(i));
    w.end_object();
  }
  w.end_array();
}

/// Writes slot table `table` as one checkpoint object into `w`, as the next value.
template <availability A>
void write_slot_table(json_writer& w, const cluster::slot_table<A>& table) {
  w.begin_object();
  detail::write_header(w, "slot_table");
  detail::write_types<typename A::time_type, typename A::capacity_type>(w);
  write_slot_table_body(w, table);
  w.end_object();
}

/// The checkpoint text of a slot table, with its checksum (see load_slot_table).
template <availability A>
[[nodiscard]] std::string save_slot_table(const cluster::slot_table<A>& table) {
  json_writer w;
  write_slot_table(w, table);
  return detail::sealed_text(w);
}

/// Restores the nodes of a slot table from `body` (the members write_slot_table_body wrote).
template <availability A, class Make = construct_profile>
requires detail::profile_maker<Make, A>
[[nodiscard]] cluster::slot_table<A> read_slot_table_body(const json_value& body,
                                                          const Make& make = {}) {
  using T = typename A::time_type;
  using C = typename A::capacity_type;
  const C per_node = detail::read_capacity<C>(body.at("per_node_total"));
  if (!is_positive(per_node)) body.at("per_node_total").fail("per-node total must be positive");
  const T origin = body.at("origin").as_integer<T>();
  const json_value& nodes = body.at("nodes");
  const auto& items = nodes.as_array();
  if (items.empty()) nodes.fail("a slot table needs at least one node");
  std::vector<detail::block_list<T, C>> lists;
  lists.reserve(items.size());
  for (const json_value& node : items) {
    node.only_members({"blocks", "end"});
    lists.push_back(detail::read_blocks<T, C>(node, origin, per_node));
  }
  cluster::slot_table<A> table = detail::building(body, [&] {
    return cluster::slot_table<A>(items.size(), per_node, [&](C total) {
      return detail::make_profile<A>(make, total, origin);
    });
  });
  if (table.origin() != origin)
    body.at("origin").fail("the backend cannot start at origin " + std::to_string(origin));
  for (std::size_t i = 0; i < items.size(); ++i) {
    detail::book_blocks(items[i].at("blocks"), lists[i], per_node,
                        [&table, i](interval<T> span, const C& amount) {
                          table.reserve({span, amount, {i}});
                        });
    if (detail::blocks_of(table.node(i)) != detail::expected_in(table.node(i), lists[i]))
      items[i].at("blocks").fail("the backend cannot hold this profile exactly (slot rounding)");
  }
  table.validate();
  return table;
}

/// Restores the slot table a parsed checkpoint holds; errors as read_profile's.
template <availability A, class Make = construct_profile>
requires detail::profile_maker<Make, A>
[[nodiscard]] cluster::slot_table<A> read_slot_table(const json_value& doc, const Make& make = {}) {
  detail::check_header(doc, "slot_table");
  doc.only_members({"format", "version", "checksum", "kind", "time_type", "capacity_type",
                    "per_node_total", "origin", "nodes"});
  detail::check_types<typename A::time_type, typename A::capacity_type>(doc);
  return read_slot_table_body<A>(doc, make);
}

/// Parses `text` and restores the slot table it holds (see read_slot_table).
template <availability A, class Make = construct_profile>
requires detail::profile_maker<Make, A>
[[nodiscard]] cluster::slot_table<A> load_slot_table(std::string_view text, const Make& make = {}) {
  return read_slot_table<A>(detail::parse_checkpoint(text), make);
}

}  // namespace leasehold::io
