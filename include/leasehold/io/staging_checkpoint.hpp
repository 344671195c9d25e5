#pragma once

// Checkpoints of image staging (policy::staging::image_staging): its configuration, its clock,
// the repository link's bookings, every node's image cache (entries, reference counts, LRU /
// LFU counters), the known images, the transfers booked and over (with the leases each one
// serves), the images on their way, what each lease holds, the counts and the announcements
// made at a transfer's first instant. Written inside a lease scheduler's checkpoint as its
// "preparation" member (io/lease_checkpoint.hpp), through image_staging's export_state() and
// import_state(); reading is strict like every checkpoint: each value is checked where it is,
// and the whole through import_state(), which refuses a state that contradicts itself.

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
#include "leasehold/io/detail/fields.hpp"
#include "leasehold/io/json.hpp"
#include "leasehold/policy/staging/image_staging.hpp"

namespace leasehold::io {

namespace detail {

template <>
struct enum_names<policy::staging::eviction_policy> {
  static constexpr std::string_view names[] = {"lru", "lfu"};
};
template <>
struct enum_names<policy::staging::transfer_mechanism> {
  static constexpr std::string_view names[] = {"multicast", "unicast"};
};
template <>
struct enum_names<policy::staging::deadline_placement> {
  static constexpr std::string_view names[] = {"as_late_as_possible", "as_early_as_possible"};
};
template <>
struct enum_names<policy::staging::piggybacking> {
  static constexpr std::string_view names[] = {"same_node", "join_multicast"};
};

template <time_value T>
void write_transfer(json_writer& w, const policy::staging::image_transfer<T>& tr) {
  w.begin_object();
  w.member("id", tr.id);
  w.member("image", tr.image);
  w.member("size_mb", tr.size_mb);
  write_interval(w, "span", tr.span);
  write_ids(w, "nodes", tr.nodes);
  w.member("deadline_driven", tr.deadline_driven);
  w.member("announced", tr.announced);
  // [lease, node, start, protected] for each (lease, node) it serves.
  w.key("users").begin_array();
  for (const auto& [key, user] : tr.users)
    w.begin_array(true)
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
  v.only_members(
      {"id", "image", "size_mb", "span", "nodes", "deadline_driven", "announced", "users"});
  policy::staging::image_transfer<T> tr;
  tr.id = v.at("id").as_integer<std::uint64_t>();
  tr.image = v.at("image").as_string();
  tr.size_mb = v.at("size_mb").as_integer<std::int64_t>();
  tr.span = read_interval<T>(v.at("span"));
  if (tr.size_mb <= 0) v.at("size_mb").fail("a transfer's size must be positive");
  if (tr.span.end < tr.span.begin) v.at("span").fail("the span ends before it begins");
  tr.nodes = read_ids<std::size_t>(v.at("nodes"));
  tr.deadline_driven = v.at("deadline_driven").as_bool();
  tr.announced = v.at("announced").as_bool();
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

template <time_value T>
void write_notice(json_writer& w, const policy::lease::transfer_notice<T>& n) {
  w.begin_object();
  w.member("transfer", n.transfer);
  w.member("image", n.image);
  w.member("size_mb", n.size_mb);
  write_ids(w, "nodes", n.nodes);
  write_interval(w, "span", n.span);
  write_ids(w, "leases", n.leases);
  w.end_object();
}

template <time_value T>
[[nodiscard]] policy::lease::transfer_notice<T> read_notice(const json_value& v) {
  v.only_members({"transfer", "image", "size_mb", "nodes", "span", "leases"});
  policy::lease::transfer_notice<T> n;
  n.transfer = v.at("transfer").as_integer<std::uint64_t>();
  n.image = v.at("image").as_string();
  n.size_mb = v.at("size_mb").as_integer<std::int64_t>();
  n.nodes = read_ids<std::size_t>(v.at("nodes"));
  n.span = read_interval<T>(v.at("span"));
  n.leases = read_ids<std::uint64_t>(v.at("leases"));
  return n;
}

}  // namespace detail

// The body of an image-staging checkpoint (its members, without the envelope).
template <class Link>
void write_staging_body(json_writer& w, const policy::staging::image_staging_state<Link>& state) {
  using T = typename Link::time_type;
  using detail::write_ids;
  w.member("kind", "image_staging");
  const auto& c = state.config;
  w.key("config")
      .begin_object()
      .member("bandwidth_mb_s", c.bandwidth_mb_s)
      .member("cache_mb", c.cache_mb)
      .member("reuse", c.reuse)
      .member("eviction", detail::name_of(c.eviction))
      .member("mechanism", detail::name_of(c.mechanism))
      .member("deadline_transfers", detail::name_of(c.deadline_transfers))
      .member("piggyback", detail::name_of(c.piggyback))
      .end_object();
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
      w.begin_array(true)
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
  for (const auto& [id, size] : state.images) w.begin_array(true).value(id).value(size).end_array();
  w.end_array();
  w.key("transfers").begin_array();
  for (const auto& tr : state.transfers) detail::write_transfer<T>(w, tr);
  w.end_array();
  w.key("finished").begin_array();
  for (const auto& tr : state.finished) detail::write_transfer<T>(w, tr);
  w.end_array();
  w.key("incoming").begin_array();
  for (const auto& [node, key, id] : state.incoming)
    w.begin_array(true).value(node).value(key).value(id).end_array();
  w.end_array();
  w.key("holds").begin_array();
  for (const auto& h : state.holds) {
    w.begin_object();
    w.member("lease", h.lease);
    w.member("start", h.start);
    w.member("key", h.key);
    write_ids(w, "refs", h.refs);
    w.member("hits", h.hits);
    w.member("misses", h.misses);
    w.member("piggybacks", h.piggybacks);
    w.end_object();
  }
  w.end_array();
  const auto& st = state.stats;
  w.key("stats")
      .begin_object()
      .member("cache_hits", st.cache_hits)
      .member("cache_misses", st.cache_misses)
      .member("piggybacks", st.piggybacks)
      .member("transfers", st.transfers)
      .member("mb_transferred", st.mb_transferred)
      .member("mb_delivered", st.mb_delivered)
      .end_object();
  w.member("next_transfer_id", state.next_transfer_id);
  w.member("next_order", state.next_order);
  w.key("tentative").begin_array();
  for (const auto& n : state.tentative) detail::write_notice<T>(w, n);
  w.end_array();
}

// Reads what write_staging_body wrote and builds the staging step (import_state); `make`
// builds the link's profile as load_profile's does.
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
  cv.only_members({"bandwidth_mb_s", "cache_mb", "reuse", "eviction", "mechanism",
                   "deadline_transfers", "piggyback"});
  staging_config config;
  config.bandwidth_mb_s = cv.at("bandwidth_mb_s").as_double();
  config.cache_mb = cv.at("cache_mb").as_integer<std::int64_t>();
  config.reuse = cv.at("reuse").as_bool();
  config.eviction = detail::read_enum<eviction_policy>(cv.at("eviction"));
  config.mechanism = detail::read_enum<transfer_mechanism>(cv.at("mechanism"));
  config.deadline_transfers = detail::read_enum<deadline_placement>(cv.at("deadline_transfers"));
  // Absent from checkpoints written before piggybacking was a choice: same_node, as then.
  config.piggyback = piggybacking::same_node;
  if (const json_value* p = cv.find("piggyback"))
    config.piggyback = detail::read_enum<piggybacking>(*p);
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
  for (const json_value& item : v.at("holds").as_array()) {
    item.only_members({"lease", "start", "key", "refs", "hits", "misses", "piggybacks"});
    state.holds.push_back(
        {item.at("lease").as_integer<std::uint64_t>(), item.at("start").as_integer<T>(),
         item.at("key").as_string(), detail::read_ids<std::size_t>(item.at("refs")),
         item.at("hits").as_integer<std::size_t>(), item.at("misses").as_integer<std::size_t>(),
         item.at("piggybacks").as_integer<std::size_t>()});
  }
  const json_value& sv = v.at("stats");
  sv.only_members(
      {"cache_hits", "cache_misses", "piggybacks", "transfers", "mb_transferred", "mb_delivered"});
  state.stats = {sv.at("cache_hits").as_integer<std::size_t>(),
                 sv.at("cache_misses").as_integer<std::size_t>(),
                 sv.at("piggybacks").as_integer<std::size_t>(),
                 sv.at("transfers").as_integer<std::size_t>(),
                 sv.at("mb_transferred").as_integer<std::int64_t>(),
                 sv.at("mb_delivered").as_integer<std::int64_t>()};
  state.next_transfer_id = v.at("next_transfer_id").as_integer<std::uint64_t>();
  state.next_order = v.at("next_order").as_integer<std::uint64_t>();
  for (const json_value& item : v.at("tentative").as_array())
    state.tentative.push_back(detail::read_notice<T>(item));
  try {
    return Staging::import_state(std::move(state));
  } catch (const format_error&) {
    throw;
  } catch (const error& e) {
    v.fail(e.what());
  }
}

}  // namespace leasehold::io
