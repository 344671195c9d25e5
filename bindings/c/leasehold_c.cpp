// The compiled shim behind include/leasehold/c/leasehold.h. Each handle holds a std::variant
// over the shipped backends, so a backend is chosen by name at run time while every call
// below is the header-only template, unchanged. Every entry point runs inside guarded(),
// which turns each leasehold::error subclass (and std::bad_alloc) into a status and copies
// the message into the handle's fixed buffer: storing it cannot allocate, so reporting an
// out-of-memory failure cannot itself fail.

#include "leasehold/c/leasehold.h"

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <exception>
#include <new>
#include <optional>
#include <string_view>
#include <variant>
#include <vector>

#include "leasehold/availability/capacity_tree.hpp"
#include "leasehold/availability/free_list.hpp"
#include "leasehold/availability/free_tree.hpp"
#include "leasehold/availability/reference.hpp"
#include "leasehold/availability/slotted_ring.hpp"
#include "leasehold/cluster/slot_table.hpp"
#include "leasehold/core/error.hpp"

namespace {

using time_type = std::int64_t;
using capacity_type = std::int64_t;

using profile_variant = std::variant<leasehold::free_list<time_type, capacity_type>,
                                     leasehold::free_tree<time_type, capacity_type>,
                                     leasehold::capacity_tree<time_type, capacity_type>,
                                     leasehold::reference<time_type, capacity_type>,
                                     leasehold::slotted_ring<time_type, capacity_type>>;

template <class A>
using table_of = leasehold::cluster::slot_table<A>;

using table_variant = std::variant<table_of<leasehold::free_list<time_type, capacity_type>>,
                                   table_of<leasehold::free_tree<time_type, capacity_type>>,
                                   table_of<leasehold::capacity_tree<time_type, capacity_type>>,
                                   table_of<leasehold::reference<time_type, capacity_type>>,
                                   table_of<leasehold::slotted_ring<time_type, capacity_type>>>;

constexpr std::size_t message_size = 512;

// Copies text into a fixed buffer, truncating; never allocates.
void store_message(char (&buffer)[message_size], const char* text) noexcept {
  const std::size_t n = std::min(std::strlen(text), message_size - 1);
  std::memcpy(buffer, text, n);
  buffer[n] = '\0';
}

thread_local char create_message[message_size] = "";

// Runs f, mapping whatever it throws to a status and a message. The order of the catch
// clauses matters: the subclasses before leasehold::error.
template <class F>
leasehold_status guarded(char (&message)[message_size], F&& f) noexcept {
  try {
    f();
    return LEASEHOLD_OK;
  } catch (const leasehold::insufficient_capacity& e) {
    store_message(message, e.what());
    return LEASEHOLD_INSUFFICIENT_CAPACITY;
  } catch (const leasehold::invalid_release& e) {
    store_message(message, e.what());
    return LEASEHOLD_INVALID_RELEASE;
  } catch (const leasehold::out_of_horizon& e) {
    store_message(message, e.what());
    return LEASEHOLD_OUT_OF_HORIZON;
  } catch (const leasehold::invalid_request& e) {
    store_message(message, e.what());
    return LEASEHOLD_INVALID_REQUEST;
  } catch (const leasehold::error& e) {
    store_message(message, e.what());
    return LEASEHOLD_INTERNAL_ERROR;
  } catch (const std::bad_alloc&) {
    store_message(message, "out of memory");
    return LEASEHOLD_OUT_OF_MEMORY;
  } catch (const std::exception& e) {
    store_message(message, e.what());
    return LEASEHOLD_INTERNAL_ERROR;
  } catch (...) {
    store_message(message, "unknown exception");
    return LEASEHOLD_INTERNAL_ERROR;
  }
}

constexpr const char* backend_names[] = {"free_list", "free_tree", "capacity_tree", "reference",
                                         "slotted_ring"};

// The index of a backend name in backend_names (and in both variants), or nullopt.
std::optional<std::size_t> backend_index(const char* name) noexcept {
  for (std::size_t i = 0; i < std::size(backend_names); ++i)
    if (std::string_view(name) == backend_names[i]) return i;
  return std::nullopt;
}

template <class A>
A make_profile(capacity_type total, time_type origin, const leasehold_backend_options*) {
  return A(total, origin);
}
template <>
leasehold::slotted_ring<time_type, capacity_type> make_profile(
    capacity_type total, time_type origin, const leasehold_backend_options* options) {
  if (options == nullptr)
    throw leasehold::invalid_request(
        "slotted_ring: needs leasehold_backend_options with a slot width and a slot count");
  return {total, options->slot_width, options->slot_count, origin};
}

// Builds alternative I of the variant in place.
template <std::size_t I = 0>
profile_variant make_profile_variant(std::size_t index, capacity_type total, time_type origin,
                                     const leasehold_backend_options* options) {
  if constexpr (I < std::variant_size_v<profile_variant>) {
    using A = std::variant_alternative_t<I, profile_variant>;
    if (index == I)
      return profile_variant(std::in_place_index<I>, make_profile<A>(total, origin, options));
    return make_profile_variant<I + 1>(index, total, origin, options);
  } else {
    throw leasehold::invalid_request("unknown backend");
  }
}

template <std::size_t I = 0>
table_variant make_table_variant(std::size_t index, std::size_t nodes, capacity_type per_node,
                                 time_type origin, const leasehold_backend_options* options) {
  if constexpr (I < std::variant_size_v<table_variant>) {
    using table = std::variant_alternative_t<I, table_variant>;
    using A = typename table::node_type;
    if (index == I)
      return table_variant(std::in_place_index<I>, nodes, per_node,
                           [origin, options](capacity_type total) {
                             return make_profile<A>(total, origin, options);
                           });
    return make_table_variant<I + 1>(index, nodes, per_node, origin, options);
  } else {
    throw leasehold::invalid_request("unknown backend");
  }
}

template <class A>
leasehold_status copy_blocks(const A& profile, leasehold_free_block* blocks, std::size_t capacity,
                             std::size_t* count) {
  std::size_t n = 0;
  for (const auto& block : profile.free_blocks()) {
    (void)block;
    ++n;
  }
  *count = n;
  if (capacity < n) return LEASEHOLD_BUFFER_TOO_SMALL;
  std::size_t i = 0;
  for (const auto& block : profile.free_blocks())
    blocks[i++] = {block.span.begin, block.span.end, block.free};
  return LEASEHOLD_OK;
}

}  // namespace

struct leasehold_profile {
  profile_variant profile;
  const char* backend;
  char message[message_size];
};

struct leasehold_slot_table {
  table_variant table;
  const char* backend;
  char message[message_size];
};

namespace {

// Checks a handle and an output pointer before anything else runs.
template <class Handle, class... Out>
leasehold_status check_pointers(Handle* handle, Out*... out) noexcept {
  if (handle == nullptr) return LEASEHOLD_NULL_ARGUMENT;
  if (((out == nullptr) || ...)) {
    store_message(handle->message, "a required output pointer is null");
    return LEASEHOLD_NULL_ARGUMENT;
  }
  return LEASEHOLD_OK;
}

template <class Handle>
leasehold_status create_checks(const char* backend, Handle** out,
                               std::optional<std::size_t>& index) noexcept {
  if (out == nullptr) {
    store_message(create_message, "create: the output handle pointer is null");
    return LEASEHOLD_NULL_ARGUMENT;
  }
  *out = nullptr;
  if (backend == nullptr) {
    store_message(create_message, "create: the backend name is null");
    return LEASEHOLD_NULL_ARGUMENT;
  }
  index = backend_index(backend);
  if (!index) {
    // The name is the caller's string: cut it so the sentence stays in the buffer.
    char text[message_size];
    std::snprintf(text, sizeof text,
                  "unknown backend \"%.200s\": expected free_list, free_tree, capacity_tree, "
                  "reference or slotted_ring",
                  backend);
    store_message(create_message, text);
    return LEASEHOLD_UNKNOWN_BACKEND;
  }
  return LEASEHOLD_OK;
}

}  // namespace

extern "C" {

const char* leasehold_status_name(leasehold_status status) {
  switch (status) {
    case LEASEHOLD_OK:
      return "ok";
    case LEASEHOLD_INVALID_REQUEST:
      return "invalid request";
    case LEASEHOLD_INSUFFICIENT_CAPACITY:
      return "insufficient capacity";
    case LEASEHOLD_INVALID_RELEASE:
      return "invalid release";
    case LEASEHOLD_OUT_OF_HORIZON:
      return "out of horizon";
    case LEASEHOLD_OUT_OF_MEMORY:
      return "out of memory";
    case LEASEHOLD_UNKNOWN_BACKEND:
      return "unknown backend";
    case LEASEHOLD_NULL_ARGUMENT:
      return "null argument";
    case LEASEHOLD_BUFFER_TOO_SMALL:
      return "buffer too small";
    case LEASEHOLD_INTERNAL_ERROR:
      return "internal error";
  }
  return "unknown status";
}

const char* leasehold_create_message(void) { return create_message; }

leasehold_status leasehold_profile_create(const char* backend, int64_t total, int64_t origin,
                                          const leasehold_backend_options* options,
                                          leasehold_profile** out) {
  std::optional<std::size_t> index;
  if (const leasehold_status s = create_checks(backend, out, index); s != LEASEHOLD_OK) return s;
  leasehold_profile* created = nullptr;
  const leasehold_status s = guarded(create_message, [&] {
    created = new leasehold_profile{make_profile_variant(*index, total, origin, options),
                                    backend_names[*index], ""};
  });
  if (s == LEASEHOLD_OK) {
    create_message[0] = '\0';
    *out = created;
  }
  return s;
}

void leasehold_profile_destroy(leasehold_profile* profile) { delete profile; }

const char* leasehold_profile_message(const leasehold_profile* profile) {
  return profile == nullptr ? "" : profile->message;
}
const char* leasehold_profile_backend(const leasehold_profile* profile) {
  return profile == nullptr ? "" : profile->backend;
}
int64_t leasehold_profile_total(const leasehold_profile* profile) {
  return std::visit([](const auto& a) { return a.total(); }, profile->profile);
}
int64_t leasehold_profile_origin(const leasehold_profile* profile) {
  return std::visit([](const auto& a) { return a.origin(); }, profile->profile);
}

leasehold_status leasehold_profile_earliest_fit(leasehold_profile* profile, int64_t amount,
                                                int64_t duration, int64_t window_begin,
                                                int64_t window_end, int* found, int64_t* start) {
  if (const auto s = check_pointers(profile, found, start); s != LEASEHOLD_OK) return s;
  return guarded(profile->message, [&] {
    const std::optional<time_type> fit = std::visit(
        [&](const auto& a) {
          return a.earliest_fit({amount, duration, {window_begin, window_end}});
        },
        profile->profile);
    *found = fit ? 1 : 0;
    if (fit) *start = *fit;
  });
}

leasehold_status leasehold_profile_reserve(leasehold_profile* profile, int64_t begin, int64_t end,
                                           int64_t amount) {
  if (const auto s = check_pointers(profile); s != LEASEHOLD_OK) return s;
  return guarded(profile->message, [&] {
    std::visit([&](auto& a) { a.reserve({begin, end}, amount); }, profile->profile);
  });
}

leasehold_status leasehold_profile_release(leasehold_profile* profile, int64_t begin, int64_t end,
                                           int64_t amount) {
  if (const auto s = check_pointers(profile); s != LEASEHOLD_OK) return s;
  return guarded(profile->message, [&] {
    std::visit([&](auto& a) { a.release({begin, end}, amount); }, profile->profile);
  });
}

leasehold_status leasehold_profile_advance(leasehold_profile* profile, int64_t t) {
  if (const auto s = check_pointers(profile); s != LEASEHOLD_OK) return s;
  return guarded(profile->message,
                 [&] { std::visit([&](auto& a) { a.advance_to(t); }, profile->profile); });
}

leasehold_status leasehold_profile_free_at(leasehold_profile* profile, int64_t t, int64_t* free) {
  if (const auto s = check_pointers(profile, free); s != LEASEHOLD_OK) return s;
  return guarded(profile->message, [&] {
    *free = std::visit([&](const auto& a) { return a.free_at(t); }, profile->profile);
  });
}

leasehold_status leasehold_profile_min_free(leasehold_profile* profile, int64_t begin, int64_t end,
                                            int64_t* free) {
  if (const auto s = check_pointers(profile, free); s != LEASEHOLD_OK) return s;
  return guarded(profile->message, [&] {
    *free = std::visit([&](const auto& a) { return a.min_free({begin, end}); }, profile->profile);
  });
}

leasehold_status leasehold_profile_memory_usage(leasehold_profile* profile, size_t* bytes) {
  if (const auto s = check_pointers(profile, bytes); s != LEASEHOLD_OK) return s;
  return guarded(profile->message, [&] {
    *bytes = std::visit([](const auto& a) { return a.memory_usage(); }, profile->profile);
  });
}

leasehold_status leasehold_profile_compact(leasehold_profile* profile) {
  if (const auto s = check_pointers(profile); s != LEASEHOLD_OK) return s;
  return guarded(profile->message, [&] {
    std::visit(
        [](auto& a) {
          if constexpr (requires { a.compact(); }) a.compact();
        },
        profile->profile);
  });
}

leasehold_status leasehold_profile_free_blocks(leasehold_profile* profile,
                                               leasehold_free_block* blocks, size_t capacity,
                                               size_t* count) {
  if (const auto s = check_pointers(profile, count); s != LEASEHOLD_OK) return s;
  if (blocks == nullptr && capacity != 0) {
    store_message(profile->message, "free_blocks: a null buffer with a non-zero capacity");
    return LEASEHOLD_NULL_ARGUMENT;
  }
  leasehold_status result = LEASEHOLD_OK;
  const leasehold_status s = guarded(profile->message, [&] {
    result = std::visit([&](const auto& a) { return copy_blocks(a, blocks, capacity, count); },
                        profile->profile);
  });
  if (s != LEASEHOLD_OK) return s;
  if (result == LEASEHOLD_BUFFER_TOO_SMALL) {
    char text[message_size];
    std::snprintf(text, sizeof text, "free_blocks: %zu blocks do not fit in a buffer of %zu",
                  *count, capacity);
    store_message(profile->message, text);
  }
  return result;
}

leasehold_status leasehold_slot_table_create(const char* backend, size_t node_count,
                                             int64_t per_node_total, int64_t origin,
                                             const leasehold_backend_options* options,
                                             leasehold_slot_table** out) {
  std::optional<std::size_t> index;
  if (const leasehold_status s = create_checks(backend, out, index); s != LEASEHOLD_OK) return s;
  leasehold_slot_table* created = nullptr;
  const leasehold_status s = guarded(create_message, [&] {
    created = new leasehold_slot_table{
        make_table_variant(*index, node_count, per_node_total, origin, options),
        backend_names[*index], ""};
  });
  if (s == LEASEHOLD_OK) {
    create_message[0] = '\0';
    *out = created;
  }
  return s;
}

void leasehold_slot_table_destroy(leasehold_slot_table* table) { delete table; }

const char* leasehold_slot_table_message(const leasehold_slot_table* table) {
  return table == nullptr ? "" : table->message;
}
size_t leasehold_slot_table_node_count(const leasehold_slot_table* table) {
  return std::visit([](const auto& t) { return t.node_count(); }, table->table);
}
int64_t leasehold_slot_table_origin(const leasehold_slot_table* table) {
  return std::visit([](const auto& t) { return t.origin(); }, table->table);
}

leasehold_status leasehold_slot_table_earliest_fit(leasehold_slot_table* table, size_t nodes,
                                                   int64_t per_node, int64_t duration,
                                                   int64_t window_begin, int64_t window_end,
                                                   int* found, int64_t* start, size_t* node_ids) {
  if (const auto s = check_pointers(table, found, start); s != LEASEHOLD_OK) return s;
  if (node_ids == nullptr && nodes != 0) {
    store_message(table->message, "slot_table earliest_fit: node_ids is null");
    return LEASEHOLD_NULL_ARGUMENT;
  }
  return guarded(table->message, [&] {
    std::visit(
        [&](const auto& t) {
          const auto fit = t.earliest_fit({nodes, per_node, duration, {window_begin, window_end}});
          *found = fit ? 1 : 0;
          if (!fit) return;
          *start = fit->span.begin;
          std::copy(fit->nodes.begin(), fit->nodes.end(), node_ids);
        },
        table->table);
  });
}

}  // extern "C"

namespace {
template <bool Reserve>
leasehold_status change_table(leasehold_slot_table* table, int64_t begin, int64_t end,
                              int64_t per_node, const size_t* node_ids, size_t nodes) {
  if (const auto s = check_pointers(table); s != LEASEHOLD_OK) return s;
  if (node_ids == nullptr && nodes != 0) {
    store_message(table->message, "slot_table: node_ids is null");
    return LEASEHOLD_NULL_ARGUMENT;
  }
  return guarded(table->message, [&] {
    leasehold::cluster::placement<time_type, capacity_type> p{
        {begin, end}, per_node, std::vector<std::size_t>(node_ids, node_ids + nodes)};
    std::visit(
        [&](auto& t) {
          if constexpr (Reserve)
            t.reserve(p);
          else
            t.release(p);
        },
        table->table);
  });
}
}  // namespace

extern "C" {

leasehold_status leasehold_slot_table_reserve(leasehold_slot_table* table, int64_t begin,
                                              int64_t end, int64_t per_node, const size_t* node_ids,
                                              size_t nodes) {
  return change_table<true>(table, begin, end, per_node, node_ids, nodes);
}

leasehold_status leasehold_slot_table_release(leasehold_slot_table* table, int64_t begin,
                                              int64_t end, int64_t per_node, const size_t* node_ids,
                                              size_t nodes) {
  return change_table<false>(table, begin, end, per_node, node_ids, nodes);
}

leasehold_status leasehold_slot_table_advance(leasehold_slot_table* table, int64_t t) {
  if (const auto s = check_pointers(table); s != LEASEHOLD_OK) return s;
  return guarded(table->message,
                 [&] { std::visit([&](auto& tab) { tab.advance_to(t); }, table->table); });
}

leasehold_status leasehold_slot_table_free_at(leasehold_slot_table* table, size_t node, int64_t t,
                                              int64_t* free) {
  if (const auto s = check_pointers(table, free); s != LEASEHOLD_OK) return s;
  return guarded(table->message, [&] {
    *free = std::visit([&](const auto& tab) { return tab.node(node).free_at(t); }, table->table);
  });
}

leasehold_status leasehold_slot_table_free_blocks(leasehold_slot_table* table, size_t node,
                                                  leasehold_free_block* blocks, size_t capacity,
                                                  size_t* count) {
  if (const auto s = check_pointers(table, count); s != LEASEHOLD_OK) return s;
  if (blocks == nullptr && capacity != 0) {
    store_message(table->message, "free_blocks: a null buffer with a non-zero capacity");
    return LEASEHOLD_NULL_ARGUMENT;
  }
  leasehold_status result = LEASEHOLD_OK;
  const leasehold_status s = guarded(table->message, [&] {
    result = std::visit(
        [&](const auto& tab) { return copy_blocks(tab.node(node), blocks, capacity, count); },
        table->table);
  });
  if (s != LEASEHOLD_OK) return s;
  if (result == LEASEHOLD_BUFFER_TOO_SMALL) {
    char text[message_size];
    std::snprintf(text, sizeof text, "free_blocks: %zu blocks do not fit in a buffer of %zu",
                  *count, capacity);
    store_message(table->message, text);
  }
  return result;
}

}  // extern "C"
