// The compiled shim behind include/leasehold/c/leasehold.h. Each handle holds a std::variant
// over the shipped backends, so a backend is chosen by name at run time while every call
// below is the header-only template, unchanged. A profile handle holds bookings<A> over its
// backend (availability/bookings.hpp), so that bookings with identity, the plan end, copies and
// equality are the library's; the plain reserve / release are its anonymous bookings. A profile
// of several named resources is the same handle over dynamic_resources (its names beside it), so
// every call works on both: the scalar calls take and give one int64_t, the _v calls an array
// of one value per resource. Every entry point runs inside guarded(), which turns each
// leasehold::error subclass (and std::bad_alloc) into a status and copies the message into the
// handle's fixed buffer: storing it cannot allocate, so reporting an out-of-memory failure
// cannot itself fail. Nothing here searches or walks a profile itself: each call is one call of
// the library.

#include "leasehold/c/leasehold.h"

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <exception>
#include <iterator>
#include <new>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>
#include <variant>
#include <vector>

#include "leasehold/availability/bookings.hpp"
#include "leasehold/availability/capacity_tree.hpp"
#include "leasehold/availability/free_list.hpp"
#include "leasehold/availability/free_tree.hpp"
#include "leasehold/availability/reference.hpp"
#include "leasehold/availability/slotted_ring.hpp"
#include "leasehold/availability/walk.hpp"
#include "leasehold/cluster/slot_table.hpp"
#include "leasehold/core/detail/describe.hpp"
#include "leasehold/core/dynamic_resources.hpp"
#include "leasehold/core/error.hpp"
#include "leasehold/core/resource_names.hpp"

namespace {

using time_type = std::int64_t;
using capacity_type = std::int64_t;
// The capacity of a profile of several named resources (leasehold_profile_create_multi).
constexpr std::size_t max_resources = 8;
using multi_capacity = leasehold::dynamic_resources<std::int64_t, max_resources>;
static_assert(max_resources == LEASEHOLD_MAX_RESOURCES);

template <class A>
using ledger = leasehold::bookings<A>;

// Alternatives 0-4 are backend_names[i]'s scalar profile; 5-8 the backends that take
// dynamic_resources (capacity_tree does not), in multi_alternative's order.
using profile_variant = std::variant<ledger<leasehold::free_list<time_type, capacity_type>>,
                                     ledger<leasehold::free_tree<time_type, capacity_type>>,
                                     ledger<leasehold::capacity_tree<time_type, capacity_type>>,
                                     ledger<leasehold::reference<time_type, capacity_type>>,
                                     ledger<leasehold::slotted_ring<time_type, capacity_type>>,
                                     ledger<leasehold::free_list<time_type, multi_capacity>>,
                                     ledger<leasehold::free_tree<time_type, multi_capacity>>,
                                     ledger<leasehold::reference<time_type, multi_capacity>>,
                                     ledger<leasehold::slotted_ring<time_type, multi_capacity>>>;
// leasehold_profile_assign swaps a copy in: that is the strong guarantee only if moves cannot
// throw.
static_assert(std::is_nothrow_move_constructible_v<profile_variant> &&
              std::is_nothrow_move_assignable_v<profile_variant>);

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
  std::memmove(buffer, text, n);
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
// The variant alternative of each backend's multi-resource profile; 0 where there is none.
constexpr std::size_t multi_alternative[] = {5, 6, 0, 7, 8};

// The index of a backend name in backend_names (and in both variants), or nullopt.
std::optional<std::size_t> backend_index(const char* name) noexcept {
  for (std::size_t i = 0; i < std::size(backend_names); ++i)
    if (std::string_view(name) == backend_names[i]) return i;
  return std::nullopt;
}

template <class A>
constexpr bool is_ring = false;
template <class C>
constexpr bool is_ring<leasehold::slotted_ring<time_type, C>> = true;

template <class A>
A make_profile(const typename A::capacity_type& total, time_type origin,
               const leasehold_backend_options* options) {
  if constexpr (is_ring<A>) {
    if (options == nullptr)
      throw leasehold::invalid_request(
          "slotted_ring: needs leasehold_backend_options with a slot width and a slot count");
    return A(total, options->slot_width, options->slot_count, origin);
  } else {
    return A(total, origin);
  }
}

// Builds alternative `alternative` of the variant in place, over a total of its capacity type.
template <class Total, std::size_t I = 0>
profile_variant make_profile_variant(std::size_t alternative, const Total& total, time_type origin,
                                     const leasehold_backend_options* options) {
  if constexpr (I < std::variant_size_v<profile_variant>) {
    using A = typename std::variant_alternative_t<I, profile_variant>::profile_type;
    if constexpr (std::is_same_v<typename A::capacity_type, Total>) {
      if (alternative == I)
        return profile_variant(std::in_place_index<I>, make_profile<A>(total, origin, options));
    }
    return make_profile_variant<Total, I + 1>(alternative, total, origin, options);
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
  // The resource names of a profile made by leasehold_profile_create_multi; none for a scalar
  // profile (one unnamed resource).
  std::optional<leasehold::resource_names> names;
  // Written by calls that take a const handle too (copy, equal): a message is not state.
  mutable char message[message_size];
};

struct leasehold_slot_table {
  table_variant table;
  const char* backend;
  mutable char message[message_size];
};

namespace {

// Checks a handle and an output pointer before anything else runs.
template <class Handle, class... Out>
leasehold_status check_pointers(const Handle* handle, Out*... out) noexcept {
  if (handle == nullptr) return LEASEHOLD_NULL_ARGUMENT;
  if (((out == nullptr) || ...)) {
    store_message(handle->message, "a required output pointer is null");
    return LEASEHOLD_NULL_ARGUMENT;
  }
  return LEASEHOLD_OK;
}

// An array argument of n values (or of a buffer's capacity) must not be null unless empty.
leasehold_status check_array(const leasehold_profile* profile, const void* array, std::size_t n,
                             const char* call, const char* what) noexcept {
  if (profile == nullptr) return LEASEHOLD_NULL_ARGUMENT;
  if (array != nullptr || n == 0) return LEASEHOLD_OK;
  char text[message_size];
  std::snprintf(text, sizeof text, "%s: %s is null but %zu values are asked for", call, what, n);
  store_message(profile->message, text);
  return LEASEHOLD_NULL_ARGUMENT;
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

// ---- Values in and out: one int64_t (scalar calls) or one per resource (_v calls) ----------

template <class C>
constexpr bool is_scalar = std::is_same_v<C, capacity_type>;

template <class C>
std::size_t count_of(const C& total) noexcept {
  if constexpr (is_scalar<C>)
    return 1;
  else
    return total.size();
}

// " {cores, memory_mb}" for a profile with names, "" for a scalar one.
std::string schema_of(const leasehold_profile& profile) {
  return profile.names ? leasehold::detail::describe(" ", *profile.names) : std::string();
}

// A scalar call answers for a profile of one resource only; a profile of several is asked
// through the _v call.
template <class C>
void require_scalar(const C& total, const leasehold_profile& profile, const char* call) {
  if (count_of(total) != 1)
    throw leasehold::invalid_request(
        leasehold::detail::describe(call, ": the profile has ", count_of(total), " resources",
                                    schema_of(profile), ": use leasehold_profile_", call, "_v"));
}

// A _v call's array must hold one value per resource.
template <class C>
void require_count(const C& total, std::size_t n, const leasehold_profile& profile,
                   const char* call) {
  if (n != count_of(total))
    throw leasehold::invalid_request(leasehold::detail::describe(
        call, ": ", n, " values for a profile of ", count_of(total),
        count_of(total) == 1 ? " resource" : " resources", schema_of(profile)));
}

template <class C>
C from_scalar(int64_t value, const C& total, const leasehold_profile& profile, const char* call) {
  require_scalar(total, profile, call);
  if constexpr (is_scalar<C>)
    return value;
  else
    return C{value};
}

template <class C>
int64_t to_scalar(const C& value) noexcept {
  if constexpr (is_scalar<C>)
    return value;
  else
    return value.component(0);
}

template <class C>
C from_values(const int64_t* values, std::size_t n, const C& total,
              const leasehold_profile& profile, const char* call) {
  require_count(total, n, profile, call);
  if constexpr (is_scalar<C>)
    return values[0];
  else
    return C::from(std::span<const int64_t>(values, n));
}

// Writes n values (n is the profile's count, checked by the caller).
template <class C>
void to_values(const C& value, int64_t* out, std::size_t n) noexcept {
  if constexpr (is_scalar<C>) {
    (void)n;
    out[0] = value;
  } else {
    for (std::size_t i = 0; i < n; ++i) out[i] = value.component(i);
  }
}

// Copies a forward range into a caller's buffer by the free_blocks protocol: *count receives
// its length, and write(i, element) runs for each only when capacity holds them all.
template <class Range, class Write>
leasehold_status copy_out(Range&& range, std::size_t capacity, std::size_t* count, Write write) {
  std::size_t n = 0;
  for (auto it = std::ranges::begin(range); it != std::ranges::end(range); ++it) ++n;
  *count = n;
  if (capacity < n) return LEASEHOLD_BUFFER_TOO_SMALL;
  std::size_t i = 0;
  for (const auto& element : range) write(i++, element);
  return LEASEHOLD_OK;
}

// The buffer calls' frame: the checks, guarded(f) where f returns OK or BUFFER_TOO_SMALL, and
// the sentence for a buffer too small ("free_blocks: 4 blocks do not fit in a buffer of 0").
template <class F>
leasehold_status buffered(leasehold_profile* profile, const char* call, const char* noun,
                          std::size_t capacity, std::size_t* count, F&& f) {
  if (const auto s = check_pointers(profile, count); s != LEASEHOLD_OK) return s;
  leasehold_status result = LEASEHOLD_OK;
  const leasehold_status s = guarded(profile->message, [&] { result = f(); });
  if (s != LEASEHOLD_OK) return s;
  if (result == LEASEHOLD_BUFFER_TOO_SMALL) {
    char text[message_size];
    std::snprintf(text, sizeof text, "%s: %zu %s do not fit in a buffer of %zu", call, *count, noun,
                  capacity);
    store_message(profile->message, text);
  }
  return result;
}

template <class B>
leasehold_booking to_c(const B& b) noexcept {
  return {b.id.value, b.span.begin, b.span.end, to_scalar(b.amount)};
}

// A copy of a profile's state in a new handle (the message is not copied).
leasehold_profile* copy_of(const leasehold_profile& source) {
  return new leasehold_profile{source.profile, source.backend, source.names, ""};
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
                                    backend_names[*index], std::nullopt, ""};
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
  return std::visit(
      [](const auto& a) -> int64_t { return count_of(a.total()) == 1 ? to_scalar(a.total()) : -1; },
      profile->profile);
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
          return a.earliest_fit({from_scalar(amount, a.total(), *profile, "earliest_fit"),
                                 duration,
                                 {window_begin, window_end}});
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
    std::visit(
        [&](auto& a) {
          a.reserve({begin, end}, from_scalar(amount, a.total(), *profile, "reserve"));
        },
        profile->profile);
  });
}

leasehold_status leasehold_profile_release(leasehold_profile* profile, int64_t begin, int64_t end,
                                           int64_t amount) {
  if (const auto s = check_pointers(profile); s != LEASEHOLD_OK) return s;
  return guarded(profile->message, [&] {
    std::visit(
        [&](auto& a) {
          a.release({begin, end}, from_scalar(amount, a.total(), *profile, "release"));
        },
        profile->profile);
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
    *free = std::visit(
        [&](const auto& a) {
          require_scalar(a.total(), *profile, "free_at");
          return to_scalar(a.free_at(t));
        },
        profile->profile);
  });
}

leasehold_status leasehold_profile_min_free(leasehold_profile* profile, int64_t begin, int64_t end,
                                            int64_t* free) {
  if (const auto s = check_pointers(profile, free); s != LEASEHOLD_OK) return s;
  return guarded(profile->message, [&] {
    *free = std::visit(
        [&](const auto& a) {
          require_scalar(a.total(), *profile, "min_free");
          return to_scalar(a.min_free({begin, end}));
        },
        profile->profile);
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
          // A copy is laid out afresh (that is what the backend's compact() does too), and the
          // assignment from it is copy-and-swap: on bad_alloc the profile is unchanged.
          using L = std::decay_t<decltype(a)>;
          if constexpr (requires(typename L::profile_type & raw) { raw.compact(); }) a = L(a);
        },
        profile->profile);
  });
}

leasehold_status leasehold_profile_free_blocks(leasehold_profile* profile,
                                               leasehold_free_block* blocks, size_t capacity,
                                               size_t* count) {
  if (const auto s = check_array(profile, blocks, capacity, "free_blocks", "the buffer");
      s != LEASEHOLD_OK)
    return s;
  return buffered(profile, "free_blocks", "blocks", capacity, count, [&] {
    return std::visit(
        [&](const auto& a) {
          require_scalar(a.total(), *profile, "free_blocks");
          return copy_out(a.free_blocks(), capacity, count, [&](std::size_t i, const auto& b) {
            blocks[i] = {b.span.begin, b.span.end, to_scalar(b.free)};
          });
        },
        profile->profile);
  });
}

// ---- Bookings with identity -------------------------------------------------------------

leasehold_status leasehold_profile_book(leasehold_profile* profile, int64_t begin, int64_t end,
                                        int64_t amount, uint64_t* id) {
  if (const auto s = check_pointers(profile, id); s != LEASEHOLD_OK) return s;
  return guarded(profile->message, [&] {
    *id = std::visit(
        [&](auto& a) {
          return a.book({begin, end}, from_scalar(amount, a.total(), *profile, "book")).value;
        },
        profile->profile);
  });
}

leasehold_status leasehold_profile_release_booking(leasehold_profile* profile, uint64_t id) {
  if (const auto s = check_pointers(profile); s != LEASEHOLD_OK) return s;
  return guarded(profile->message, [&] {
    std::visit([&](auto& a) { a.release(leasehold::booking_id{id}); }, profile->profile);
  });
}

leasehold_status leasehold_profile_shrink_booking(leasehold_profile* profile, uint64_t id,
                                                  int64_t by, int* removed) {
  if (const auto s = check_pointers(profile, removed); s != LEASEHOLD_OK) return s;
  return guarded(profile->message, [&] {
    const bool gone = std::visit(
        [&](auto& a) {
          return a.shrink(leasehold::booking_id{id},
                          from_scalar(by, a.total(), *profile, "shrink_booking"));
        },
        profile->profile);
    *removed = gone ? 1 : 0;
  });
}

leasehold_status leasehold_profile_find_booking(leasehold_profile* profile, uint64_t id,
                                                leasehold_booking* out, int* found) {
  if (const auto s = check_pointers(profile, out, found); s != LEASEHOLD_OK) return s;
  return guarded(profile->message, [&] {
    std::visit(
        [&](const auto& a) {
          require_scalar(a.total(), *profile, "find_booking");
          const auto* b = a.find(leasehold::booking_id{id});
          if (b != nullptr) *out = to_c(*b);
          *found = b != nullptr ? 1 : 0;
        },
        profile->profile);
  });
}

leasehold_status leasehold_profile_bookings(leasehold_profile* profile, leasehold_booking* bookings,
                                            size_t capacity, size_t* count) {
  if (const auto s = check_array(profile, bookings, capacity, "bookings", "the buffer");
      s != LEASEHOLD_OK)
    return s;
  return buffered(profile, "bookings", "bookings", capacity, count, [&] {
    return std::visit(
        [&](const auto& a) {
          require_scalar(a.total(), *profile, "bookings");
          return copy_out(a.live(), capacity, count,
                          [&](std::size_t i, const auto& b) { bookings[i] = to_c(b); });
        },
        profile->profile);
  });
}

leasehold_status leasehold_profile_booking_count(leasehold_profile* profile, size_t* count) {
  if (const auto s = check_pointers(profile, count); s != LEASEHOLD_OK) return s;
  *count = std::visit([](const auto& a) { return a.size(); }, profile->profile);
  return LEASEHOLD_OK;
}

leasehold_status leasehold_profile_next_booking_id(leasehold_profile* profile, uint64_t* id) {
  if (const auto s = check_pointers(profile, id); s != LEASEHOLD_OK) return s;
  *id = std::visit([](const auto& a) { return a.next_id().value; }, profile->profile);
  return LEASEHOLD_OK;
}

// ---- Copies and equality ------------------------------------------------------------------

leasehold_status leasehold_profile_copy(const leasehold_profile* source, leasehold_profile** out) {
  if (out == nullptr) {
    store_message(create_message, "copy: the output handle pointer is null");
    if (source != nullptr) store_message(source->message, create_message);
    return LEASEHOLD_NULL_ARGUMENT;
  }
  *out = nullptr;
  if (source == nullptr) {
    store_message(create_message, "copy: the source handle is null");
    return LEASEHOLD_NULL_ARGUMENT;
  }
  leasehold_profile* created = nullptr;
  const leasehold_status s = guarded(create_message, [&] { created = copy_of(*source); });
  if (s == LEASEHOLD_OK) {
    create_message[0] = '\0';
    *out = created;
  }
  return s;
}

leasehold_status leasehold_profile_assign(leasehold_profile* target,
                                          const leasehold_profile* source) {
  if (target == nullptr) return LEASEHOLD_NULL_ARGUMENT;
  if (source == nullptr) {
    store_message(target->message, "assign: the source handle is null");
    return LEASEHOLD_NULL_ARGUMENT;
  }
  if (target == source) return LEASEHOLD_OK;
  return guarded(target->message, [&] {
    // Both copies first (the only steps that can throw), then swaps that cannot.
    profile_variant profile = source->profile;
    std::optional<leasehold::resource_names> names = source->names;
    target->profile.swap(profile);
    target->names.swap(names);
    target->backend = source->backend;
  });
}

leasehold_status leasehold_profile_equal(const leasehold_profile* a, const leasehold_profile* b,
                                         int* equal) {
  if (a == nullptr) {
    if (b != nullptr) store_message(b->message, "equal: the first handle is null");
    return LEASEHOLD_NULL_ARGUMENT;
  }
  if (b == nullptr || equal == nullptr) {
    store_message(a->message, b == nullptr ? "equal: the second handle is null"
                                           : "a required output pointer is null");
    return LEASEHOLD_NULL_ARGUMENT;
  }
  return guarded(a->message,
                 [&] { *equal = a->names == b->names && a->profile == b->profile ? 1 : 0; });
}

// ---- The plan end -------------------------------------------------------------------------

leasehold_status leasehold_profile_set_plan_end(leasehold_profile* profile, int has_end,
                                                int64_t end) {
  if (const auto s = check_pointers(profile); s != LEASEHOLD_OK) return s;
  return guarded(profile->message, [&] {
    std::visit(
        [&](auto& a) {
          a.set_plan_end(has_end != 0 ? std::optional<time_type>(end) : std::nullopt);
        },
        profile->profile);
  });
}

leasehold_status leasehold_profile_plan_end(leasehold_profile* profile, int* has_end,
                                            int64_t* end) {
  if (const auto s = check_pointers(profile, has_end, end); s != LEASEHOLD_OK) return s;
  const std::optional<time_type> plan_end =
      std::visit([](const auto& a) { return a.plan_end(); }, profile->profile);
  *has_end = plan_end ? 1 : 0;
  *end = plan_end.value_or(LEASEHOLD_TIME_MAX);
  return LEASEHOLD_OK;
}

// ---- Walking and the total ----------------------------------------------------------------

leasehold_status leasehold_profile_next_change(leasehold_profile* profile, int64_t t, int* found,
                                               int64_t* next) {
  if (const auto s = check_pointers(profile, found, next); s != LEASEHOLD_OK) return s;
  return guarded(profile->message, [&] {
    const std::optional<time_type> change =
        std::visit([&](const auto& a) { return leasehold::next_change(a, t); }, profile->profile);
    *found = change ? 1 : 0;
    if (change) *next = *change;
  });
}

leasehold_status leasehold_profile_blocks_in(leasehold_profile* profile, int64_t begin, int64_t end,
                                             leasehold_free_block* blocks, size_t capacity,
                                             size_t* count) {
  if (const auto s = check_array(profile, blocks, capacity, "blocks_in", "the buffer");
      s != LEASEHOLD_OK)
    return s;
  return buffered(profile, "blocks_in", "blocks", capacity, count, [&] {
    return std::visit(
        [&](const auto& a) {
          require_scalar(a.total(), *profile, "blocks_in");
          return copy_out(leasehold::blocks_in(a, {begin, end}), capacity, count,
                          [&](std::size_t i, const auto& b) {
                            blocks[i] = {b.span.begin, b.span.end, to_scalar(b.free)};
                          });
        },
        profile->profile);
  });
}

leasehold_status leasehold_profile_set_total(leasehold_profile* profile, int64_t total) {
  if (const auto s = check_pointers(profile); s != LEASEHOLD_OK) return s;
  return guarded(profile->message, [&] {
    std::visit([&](auto& a) { a.set_total(from_scalar(total, a.total(), *profile, "set_total")); },
               profile->profile);
  });
}

// ---- Several named resources ----------------------------------------------------------------

leasehold_status leasehold_profile_create_multi(const char* backend, size_t count,
                                                const char* const* names, const int64_t* totals,
                                                int64_t origin,
                                                const leasehold_backend_options* options,
                                                leasehold_profile** out) {
  std::optional<std::size_t> index;
  if (const leasehold_status s = create_checks(backend, out, index); s != LEASEHOLD_OK) return s;
  if (count < 1 || count > max_resources) {
    char text[message_size];
    std::snprintf(text, sizeof text,
                  "create_multi: %zu resources; a profile holds between 1 and %zu", count,
                  max_resources);
    store_message(create_message, text);
    return LEASEHOLD_INVALID_REQUEST;
  }
  if (names == nullptr || totals == nullptr ||
      std::any_of(names, names + count, [](const char* name) { return name == nullptr; })) {
    store_message(create_message, names == nullptr    ? "create_multi: the names array is null"
                                  : totals == nullptr ? "create_multi: the totals array is null"
                                                      : "create_multi: a name is null");
    return LEASEHOLD_NULL_ARGUMENT;
  }
  if (multi_alternative[*index] == 0) {
    char text[message_size];
    std::snprintf(text, sizeof text,
                  "create_multi: %s holds one scalar resource only; use free_list, free_tree, "
                  "reference or slotted_ring",
                  backend_names[*index]);
    store_message(create_message, text);
    return LEASEHOLD_INVALID_REQUEST;
  }
  leasehold_profile* created = nullptr;
  const leasehold_status s = guarded(create_message, [&] {
    leasehold::resource_names schema(std::vector<std::string>(names, names + count));
    const multi_capacity total = multi_capacity::from(std::span<const int64_t>(totals, count));
    created = new leasehold_profile{
        make_profile_variant(multi_alternative[*index], total, origin, options),
        backend_names[*index], std::move(schema), ""};
  });
  if (s == LEASEHOLD_OK) {
    create_message[0] = '\0';
    *out = created;
  }
  return s;
}

size_t leasehold_profile_resource_count(const leasehold_profile* profile) {
  return std::visit([](const auto& a) { return count_of(a.total()); }, profile->profile);
}

const char* leasehold_profile_resource_name(const leasehold_profile* profile, size_t i) {
  if (profile == nullptr) return nullptr;
  if (!profile->names) return i == 0 ? "" : nullptr;
  return i < profile->names->size() ? profile->names->names()[i].c_str() : nullptr;
}

leasehold_status leasehold_profile_resource_index(leasehold_profile* profile, const char* name,
                                                  size_t* index) {
  if (const auto s = check_pointers(profile, name, index); s != LEASEHOLD_OK) return s;
  const std::optional<std::size_t> found =
      profile->names ? profile->names->index_of(name) : std::nullopt;
  if (!found) {
    return guarded(profile->message, [&] {
      throw leasehold::invalid_request(leasehold::detail::describe(
          "resource_index: no resource \"", name, "\" in the profile",
          profile->names ? schema_of(*profile) : std::string(" (its one resource has no name)")));
    });
  }
  *index = *found;
  return LEASEHOLD_OK;
}

leasehold_status leasehold_profile_total_v(leasehold_profile* profile, int64_t* total, size_t n) {
  if (const auto s = check_pointers(profile); s != LEASEHOLD_OK) return s;
  if (const auto s = check_array(profile, total, n, "total_v", "total"); s != LEASEHOLD_OK)
    return s;
  return guarded(profile->message, [&] {
    std::visit(
        [&](const auto& a) {
          require_count(a.total(), n, *profile, "total_v");
          to_values(a.total(), total, n);
        },
        profile->profile);
  });
}

leasehold_status leasehold_profile_set_total_v(leasehold_profile* profile, const int64_t* total,
                                               size_t n) {
  if (const auto s = check_pointers(profile); s != LEASEHOLD_OK) return s;
  if (const auto s = check_array(profile, total, n, "set_total_v", "total"); s != LEASEHOLD_OK)
    return s;
  return guarded(profile->message, [&] {
    std::visit(
        [&](auto& a) { a.set_total(from_values(total, n, a.total(), *profile, "set_total_v")); },
        profile->profile);
  });
}

leasehold_status leasehold_profile_earliest_fit_v(leasehold_profile* profile, const int64_t* amount,
                                                  size_t n, int64_t duration, int64_t window_begin,
                                                  int64_t window_end, int* found, int64_t* start) {
  if (const auto s = check_pointers(profile, found, start); s != LEASEHOLD_OK) return s;
  if (const auto s = check_array(profile, amount, n, "earliest_fit_v", "amount"); s != LEASEHOLD_OK)
    return s;
  return guarded(profile->message, [&] {
    const std::optional<time_type> fit = std::visit(
        [&](const auto& a) {
          return a.earliest_fit({from_values(amount, n, a.total(), *profile, "earliest_fit_v"),
                                 duration,
                                 {window_begin, window_end}});
        },
        profile->profile);
    *found = fit ? 1 : 0;
    if (fit) *start = *fit;
  });
}

leasehold_status leasehold_profile_reserve_v(leasehold_profile* profile, int64_t begin, int64_t end,
                                             const int64_t* amount, size_t n) {
  if (const auto s = check_pointers(profile); s != LEASEHOLD_OK) return s;
  if (const auto s = check_array(profile, amount, n, "reserve_v", "amount"); s != LEASEHOLD_OK)
    return s;
  return guarded(profile->message, [&] {
    std::visit(
        [&](auto& a) {
          a.reserve({begin, end}, from_values(amount, n, a.total(), *profile, "reserve_v"));
        },
        profile->profile);
  });
}

leasehold_status leasehold_profile_release_v(leasehold_profile* profile, int64_t begin, int64_t end,
                                             const int64_t* amount, size_t n) {
  if (const auto s = check_pointers(profile); s != LEASEHOLD_OK) return s;
  if (const auto s = check_array(profile, amount, n, "release_v", "amount"); s != LEASEHOLD_OK)
    return s;
  return guarded(profile->message, [&] {
    std::visit(
        [&](auto& a) {
          a.release({begin, end}, from_values(amount, n, a.total(), *profile, "release_v"));
        },
        profile->profile);
  });
}

leasehold_status leasehold_profile_book_v(leasehold_profile* profile, int64_t begin, int64_t end,
                                          const int64_t* amount, size_t n, uint64_t* id) {
  if (const auto s = check_pointers(profile, id); s != LEASEHOLD_OK) return s;
  if (const auto s = check_array(profile, amount, n, "book_v", "amount"); s != LEASEHOLD_OK)
    return s;
  return guarded(profile->message, [&] {
    *id = std::visit(
        [&](auto& a) {
          return a.book({begin, end}, from_values(amount, n, a.total(), *profile, "book_v")).value;
        },
        profile->profile);
  });
}

leasehold_status leasehold_profile_shrink_booking_v(leasehold_profile* profile, uint64_t id,
                                                    const int64_t* by, size_t n, int* removed) {
  if (const auto s = check_pointers(profile, removed); s != LEASEHOLD_OK) return s;
  if (const auto s = check_array(profile, by, n, "shrink_booking_v", "by"); s != LEASEHOLD_OK)
    return s;
  return guarded(profile->message, [&] {
    const bool gone = std::visit(
        [&](auto& a) {
          return a.shrink(leasehold::booking_id{id},
                          from_values(by, n, a.total(), *profile, "shrink_booking_v"));
        },
        profile->profile);
    *removed = gone ? 1 : 0;
  });
}

leasehold_status leasehold_profile_free_at_v(leasehold_profile* profile, int64_t t, int64_t* free,
                                             size_t n) {
  if (const auto s = check_pointers(profile); s != LEASEHOLD_OK) return s;
  if (const auto s = check_array(profile, free, n, "free_at_v", "free"); s != LEASEHOLD_OK)
    return s;
  return guarded(profile->message, [&] {
    std::visit(
        [&](const auto& a) {
          require_count(a.total(), n, *profile, "free_at_v");
          to_values(a.free_at(t), free, n);
        },
        profile->profile);
  });
}

leasehold_status leasehold_profile_min_free_v(leasehold_profile* profile, int64_t begin,
                                              int64_t end, int64_t* free, size_t n) {
  if (const auto s = check_pointers(profile); s != LEASEHOLD_OK) return s;
  if (const auto s = check_array(profile, free, n, "min_free_v", "free"); s != LEASEHOLD_OK)
    return s;
  return guarded(profile->message, [&] {
    std::visit(
        [&](const auto& a) {
          require_count(a.total(), n, *profile, "min_free_v");
          to_values(a.min_free({begin, end}), free, n);
        },
        profile->profile);
  });
}

leasehold_status leasehold_profile_find_booking_v(leasehold_profile* profile, uint64_t id,
                                                  leasehold_booking* out, int64_t* amount, size_t n,
                                                  int* found) {
  if (const auto s = check_pointers(profile, out, found); s != LEASEHOLD_OK) return s;
  if (const auto s = check_array(profile, amount, n, "find_booking_v", "amount"); s != LEASEHOLD_OK)
    return s;
  return guarded(profile->message, [&] {
    std::visit(
        [&](const auto& a) {
          require_count(a.total(), n, *profile, "find_booking_v");
          const auto* b = a.find(leasehold::booking_id{id});
          if (b != nullptr) {
            *out = to_c(*b);
            to_values(b->amount, amount, n);
          }
          *found = b != nullptr ? 1 : 0;
        },
        profile->profile);
  });
}

leasehold_status leasehold_profile_bookings_v(leasehold_profile* profile,
                                              leasehold_booking* bookings, int64_t* amounts,
                                              size_t n, size_t capacity, size_t* count) {
  if (const auto s = check_array(profile, bookings, capacity, "bookings_v", "the buffer");
      s != LEASEHOLD_OK)
    return s;
  if (const auto s = check_array(profile, amounts, capacity, "bookings_v", "amounts");
      s != LEASEHOLD_OK)
    return s;
  return buffered(profile, "bookings_v", "bookings", capacity, count, [&] {
    return std::visit(
        [&](const auto& a) {
          require_count(a.total(), n, *profile, "bookings_v");
          return copy_out(a.live(), capacity, count, [&](std::size_t i, const auto& b) {
            bookings[i] = to_c(b);
            to_values(b.amount, amounts + i * n, n);
          });
        },
        profile->profile);
  });
}

leasehold_status leasehold_profile_free_blocks_v(leasehold_profile* profile, leasehold_span* spans,
                                                 int64_t* free, size_t n, size_t capacity,
                                                 size_t* count) {
  if (const auto s = check_array(profile, spans, capacity, "free_blocks_v", "spans");
      s != LEASEHOLD_OK)
    return s;
  if (const auto s = check_array(profile, free, capacity, "free_blocks_v", "free");
      s != LEASEHOLD_OK)
    return s;
  return buffered(profile, "free_blocks_v", "blocks", capacity, count, [&] {
    return std::visit(
        [&](const auto& a) {
          require_count(a.total(), n, *profile, "free_blocks_v");
          return copy_out(a.free_blocks(), capacity, count, [&](std::size_t i, const auto& b) {
            spans[i] = {b.span.begin, b.span.end};
            to_values(b.free, free + i * n, n);
          });
        },
        profile->profile);
  });
}

leasehold_status leasehold_profile_blocks_in_v(leasehold_profile* profile, int64_t begin,
                                               int64_t end, leasehold_span* spans, int64_t* free,
                                               size_t n, size_t capacity, size_t* count) {
  if (const auto s = check_array(profile, spans, capacity, "blocks_in_v", "spans");
      s != LEASEHOLD_OK)
    return s;
  if (const auto s = check_array(profile, free, capacity, "blocks_in_v", "free"); s != LEASEHOLD_OK)
    return s;
  return buffered(profile, "blocks_in_v", "blocks", capacity, count, [&] {
    return std::visit(
        [&](const auto& a) {
          require_count(a.total(), n, *profile, "blocks_in_v");
          return copy_out(leasehold::blocks_in(a, {begin, end}), capacity, count,
                          [&](std::size_t i, const auto& b) {
                            spans[i] = {b.span.begin, b.span.end};
                            to_values(b.free, free + i * n, n);
                          });
        },
        profile->profile);
  });
}

}  // extern "C"

extern "C" {

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
