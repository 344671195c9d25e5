#pragma once

/// \file
/// Checkpoints of image staging (policy::staging::image_staging): its configuration, its clock,
/// the repository link's bookings, every node's image cache (entries, reference counts, LRU /
/// LFU counters), the known images, the transfers booked and over (with the leases each one
/// serves), the images on their way, what each lease holds, the counts and the announcements
/// made at a transfer's first instant. Written inside a lease scheduler's checkpoint as its
/// "preparation" member (io/lease_checkpoint.hpp), through image_staging's export_state() and
/// import_state(); reading is strict like every checkpoint: each value is checked where it is,
/// and the whole through import_state(), which refuses a state that contradicts itself.

#include <concepts>
#include <cstddef>
#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <tuple>
#include <utility>
#include <vector>

#include "leasehold/io/checkpoint.hpp"
#include "leasehold/io/detail/checkpoint_enum_names.hpp"
#include "leasehold/io/detail/fields.hpp"
#include "leasehold/io/json.hpp"
#include "leasehold/policy/staging/image_staging.hpp"

namespace leasehold::io {

namespace detail {

template <>
struct object_fields<policy::staging::staging_config> {
  using C = policy::staging::staging_config;
  static constexpr std::tuple fields{
      field{"bandwidth_mb_s", &C::bandwidth_mb_s}, field{"cache_mb", &C::cache_mb},
      field{"reuse", &C::reuse}, field{"eviction", &C::eviction}, field{"mechanism", &C::mechanism},
      field{"deadline_transfers", &C::deadline_transfers},
      // Absent from checkpoints written before piggybacking was a choice: same_node, as then.
      field{"piggyback", &C::piggyback, absent_in_older_checkpoints}};
};

template <>
struct object_fields<policy::staging::staging_stats> {
  using S = policy::staging::staging_stats;
  static constexpr std::tuple fields{
      field{"cache_hits", &S::cache_hits},         field{"cache_misses", &S::cache_misses},
      field{"piggybacks", &S::piggybacks},         field{"transfers", &S::transfers},
      field{"mb_transferred", &S::mb_transferred}, field{"mb_delivered", &S::mb_delivered}};
};

template <time_value T>
struct object_fields<policy::lease::transfer_notice<T>> {
  using N = policy::lease::transfer_notice<T>;
  static constexpr std::tuple fields{field{"transfer", &N::transfer}, field{"image", &N::image},
                                     field{"size_mb", &N::size_mb},   field{"nodes", &N::nodes},
                                     field{"span", &N::span},         field{"leases", &N::leases}};
};

template <time_value T>
struct object_fields<policy::staging::staging_hold<T>> {
  using H = policy::staging::staging_hold<T>;
  static constexpr std::tuple fields{field{"lease", &H::lease},
                                     field{"start", &H::start},
                                     field{"key", &H::key},
                                     field{"refs", &H::refs},
                                     field{"hits", &H::hits},
                                     field{"misses", &H::misses},
                                     field{"piggybacks", &H::piggybacks}};
};

/// An image transfer's members but its users, in two parts: the reader checks the first
/// (size and span) before it reads the second.
template <time_value T>
struct transfer_fields {
  using X = policy::staging::image_transfer<T>;
  static constexpr std::tuple what{field{"id", &X::id}, field{"image", &X::image},
                                   field{"size_mb", &X::size_mb}, field{"span", &X::span}};
  static constexpr std::tuple where{field{"nodes", &X::nodes},
                                    field{"deadline_driven", &X::deadline_driven},
                                    field{"announced", &X::announced}};
};

template <time_value T>
void write_transfer(json_writer& w, const policy::staging::image_transfer<T>& tr) {
  w.begin_object();
  write_members(w, tr, transfer_fields<T>::what);
  write_members(w, tr, transfer_fields<T>::where);
  // [lease, node, start, protected] for each (lease, node) it serves.
  w.key("users").begin_array();
  for (const auto& [key, user] : tr.users)
    w.begin_array()
        .value(key.first)
        .value(key.second)
        .value(user.start)
        .value(user.protected_)
        .end_array();
  w.end_array();
  w.end_object();
}

template <time_value T>
[[nodiscard]] policy::staging::image_transfer<T> read_transfer(const json_value& v) {
  only_fields(v, {"users"}, transfer_fields<T>::what, transfer_fields<T>::where);
  policy::staging::image_transfer<T> tr;
  read_members(v, tr, transfer_fields<T>::what);
  if (tr.size_mb <= 0) v.at("size_mb").fail("a transfer's size must be positive");
  if (tr.span.end < tr.span.begin) v.at("span").fail("the span ends before it begins");
  read_members(v, tr, transfer_fields<T>::where);
  for (const json_value& item : v.at("users").as_array()) {
    const auto& user = item.as_array(4);
    const std::pair key{user[0].as_integer<std::uint64_t>(), user[1].as_integer<std::size_t>()};
    if (!tr.users
             .emplace(key,
                      typename policy::staging::image_transfer<T>::user{user[2].as_integer<T>(),
                                                                        user[3].as_bool()})
             .second)
      item.fail("the same lease and node appear twice");
  }
  return tr;
}

}  // namespace detail

/// The body of an image-staging checkpoint (its members, without the envelope).
template <class Link>
void write_staging_body(json_writer& w, const policy::staging::image_staging_state<Link>& state) {
  using T = typename Link::time_type;
  w.member("kind", "image_staging");
  detail::write_value(w.key("config"), state.config);
  w.member("now", state.now);
  w.key("link").begin_object();
  w.member("origin", state.link.origin());
  detail::write_blocks(w, state.link);
  w.end_object();
  w.key("caches").begin_array();
  for (std::size_t node = 0; node < state.caches.size(); ++node) {
    w.begin_object();
    w.member("use_clock", state.cache_clocks[node]);
    // [key, image, size MB, arrival, references, uses, last use] by key.
    w.key("entries").begin_array();
    for (const auto& [key, e] : state.caches[node])
      w.begin_array()
          .value(key)
          .value(e.image)
          .value(e.size_mb)
          .value(e.arrival)
          .value(e.references)
          .value(e.uses)
          .value(e.last_use)
          .end_array();
    w.end_array();
    w.end_object();
  }
  w.end_array();
  w.key("images").begin_array();
  for (const auto& [id, size] : state.images) w.begin_array().value(id).value(size).end_array();
  w.end_array();
  w.key("transfers").begin_array();
  for (const auto& tr : state.transfers) detail::write_transfer<T>(w, tr);
  w.end_array();
  w.key("finished").begin_array();
  for (const auto& tr : state.finished) detail::write_transfer<T>(w, tr);
  w.end_array();
  w.key("incoming").begin_array();
  for (const auto& [node, key, id] : state.incoming)
    w.begin_array().value(node).value(key).value(id).end_array();
  w.end_array();
  detail::write_value(w.key("holds"), state.holds);
  detail::write_value(w.key("stats"), state.stats);
  w.member("next_transfer_id", state.next_transfer_id);
  w.member("next_order", state.next_order);
  detail::write_value(w.key("tentative"), state.tentative);
}

/// Reads what write_staging_body wrote and builds the staging step (import_state); `make`
/// builds the link's profile as load_profile's does.
template <class Staging, class Make = construct_profile>
requires requires(typename Staging::state_type state) {
  typename Staging::link_type::profile_type;
  { Staging::import_state(std::move(state)) } -> std::same_as<Staging>;
}
[[nodiscard]] Staging read_staging_body(const json_value& v, const Make& make = {}) {
  using Link = typename Staging::link_type::profile_type;
  using T = typename Link::time_type;
  using namespace policy::staging;
  v.only_members({"kind", "config", "now", "link", "caches", "images", "transfers", "finished",
                  "incoming", "holds", "stats", "next_transfer_id", "next_order", "tentative"});
  if (v.at("kind").as_string() != "image_staging")
    v.at("kind").fail("a preparation step of kind \"" + v.at("kind").as_string() +
                      "\", expected \"image_staging\"");
  const json_value& cv = v.at("config");
  const auto config = detail::read_value<staging_config>(cv);
  const T now = v.at("now").as_integer<T>();

  // The link: its total is the bandwidth in kB/s, as repository_link rounds it.
  const json_value& lv = v.at("link");
  lv.only_members({"origin", "blocks", "end"});
  const std::int64_t total = detail::building(
      cv, [&] { return typename Staging::link_type(config.bandwidth_mb_s).bandwidth_kb_s(); });
  const T origin = lv.at("origin").as_integer<T>();
  const auto list = detail::read_blocks<T, std::int64_t>(lv, origin, total);
  Link link = detail::building(lv, [&] { return detail::make_profile<Link>(make, total, origin); });
  if (link.origin() != origin)
    lv.at("origin").fail("the backend cannot start at origin " + std::to_string(origin));
  detail::book_blocks(lv.at("blocks"), list, total, [&link](interval<T> span, std::int64_t amount) {
    link.reserve(span, amount);
  });
  if (detail::blocks_of(link) != detail::expected_in(link, list))
    lv.at("blocks").fail("the backend cannot hold this profile exactly (slot rounding)");

  typename Staging::state_type state{.config = config,
                                     .now = now,
                                     .link = std::move(link),
                                     .caches = {},
                                     .cache_clocks = {},
                                     .images = {},
                                     .transfers = {},
                                     .finished = {},
                                     .incoming = {},
                                     .holds = {},
                                     .stats = {},
                                     .next_transfer_id = 1,
                                     .next_order = 1,
                                     .tentative = {}};
  for (const json_value& cache : v.at("caches").as_array()) {
    cache.only_members({"use_clock", "entries"});
    state.cache_clocks.push_back(cache.at("use_clock").as_integer<std::uint64_t>());
    auto& entries = state.caches.emplace_back();
    for (const json_value& item : cache.at("entries").as_array()) {
      const auto& e = item.as_array(7);
      cache_entry<T> entry{e[1].as_string(),
                           e[2].as_integer<std::int64_t>(),
                           e[3].as_integer<T>(),
                           e[4].as_integer<std::size_t>(),
                           e[5].as_integer<std::uint64_t>(),
                           e[6].as_integer<std::uint64_t>()};
      if (!entries.emplace(e[0].as_string(), std::move(entry)).second)
        item.fail("image " + e[0].as_string() + " is cached twice");
    }
  }
  for (const json_value& item : v.at("images").as_array()) {
    const auto& pair = item.as_array(2);
    if (!state.images.emplace(pair[0].as_string(), pair[1].as_integer<std::int64_t>()).second)
      item.fail("image " + pair[0].as_string() + " is known twice");
  }
  for (const json_value& item : v.at("transfers").as_array())
    state.transfers.push_back(detail::read_transfer<T>(item));
  for (const json_value& item : v.at("finished").as_array())
    state.finished.push_back(detail::read_transfer<T>(item));
  for (const json_value& item : v.at("incoming").as_array()) {
    const auto& triple = item.as_array(3);
    state.incoming.emplace_back(triple[0].as_integer<std::size_t>(), triple[1].as_string(),
                                triple[2].as_integer<std::uint64_t>());
  }
  state.holds = detail::read_value<decltype(state.holds)>(v.at("holds"));
  state.stats = detail::read_value<staging_stats>(v.at("stats"));
  state.next_transfer_id = v.at("next_transfer_id").as_integer<std::uint64_t>();
  state.next_order = v.at("next_order").as_integer<std::uint64_t>();
  state.tentative = detail::read_value<decltype(state.tentative)>(v.at("tentative"));
  try {
    return Staging::import_state(std::move(state));
  } catch (const format_error&) {
    throw;
  } catch (const error& e) {
    v.fail(e.what());
  }
}

}  // namespace leasehold::io
