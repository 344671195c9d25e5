/** \file
 * The C API of leasehold (library leasehold_c, pkg-config module leasehold_c).
 *
 * leasehold C API: a small C99 surface over the header-only C++ library, for schedulers and
 * plugins written in C. Two opaque handles: an availability profile of one scalar resource
 * (any backend, chosen by name) and a slot table of identical nodes (Haizea's slot table,
 * Sotomayor, Keahey & Foster, §3.2). Time and capacity are int64_t.
 *
 * Errors: every call returns a leasehold_status. LEASEHOLD_OK is 0; any other value means
 * nothing changed, and leasehold_profile_message / leasehold_slot_table_message give the
 * C++ library's sentence for the last failed call on that handle (it names the values, as
 * "reserve [120, 80): end before begin"). Creation failures, which have no handle yet, are
 * described by leasehold_create_message (per thread). No C++ exception crosses this boundary,
 * std::bad_alloc included (it becomes LEASEHOLD_OUT_OF_MEMORY). */
#ifndef LEASEHOLD_C_LEASEHOLD_H
#define LEASEHOLD_C_LEASEHOLD_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/** Window ends meaning "no bound", as the C++ request's default window. */
#define LEASEHOLD_TIME_MIN INT64_MIN /**< A window that begins at the origin. */
#define LEASEHOLD_TIME_MAX INT64_MAX /**< A window with no end: forever. */

/** The most resources a profile made by leasehold_profile_create_multi holds. */
#define LEASEHOLD_MAX_RESOURCES 8

/** What every call of the API returns: LEASEHOLD_OK, or why nothing changed. */
typedef enum leasehold_status {
  LEASEHOLD_OK = 0, /**< The call succeeded. */
  /** A malformed call: non-positive duration or amount, amount above the total, a reversed or
   * empty span, a span or time before the origin, a node id out of range (leasehold::
   * invalid_request). */
  LEASEHOLD_INVALID_REQUEST = 1,
  /** reserve over a span where the amount is not free throughout. */
  LEASEHOLD_INSUFFICIENT_CAPACITY = 2,
  /** release of more than is booked somewhere in the span. */
  LEASEHOLD_INVALID_RELEASE = 3,
  /** slotted_ring asked about time beyond its horizon. */
  LEASEHOLD_OUT_OF_HORIZON = 4,
  /** An allocation failed; the structure is unchanged. */
  LEASEHOLD_OUT_OF_MEMORY = 5,
  /** A backend name the library does not know. */
  LEASEHOLD_UNKNOWN_BACKEND = 6,
  /** A null pointer where a handle or an output was required. */
  LEASEHOLD_NULL_ARGUMENT = 7,
  /** The caller's buffer is smaller than the answer; the needed size was written. */
  LEASEHOLD_BUFFER_TOO_SMALL = 8,
  /** Anything else the library threw (a bug in leasehold, never bad input). */
  LEASEHOLD_INTERNAL_ERROR = 9
} leasehold_status;

/** A short English name of a status ("insufficient capacity"); never null. */
const char* leasehold_status_name(leasehold_status status);

/** The message of the last failed leasehold_*_create call on this thread ("" if none). */
const char* leasehold_create_message(void);

/** Constructor arguments that only some backends take: slotted_ring needs a slot width and a
 * slot count (a fixed book-ahead horizon of slot_width * slot_count from the origin). Pass
 * NULL for the other backends. */
typedef struct leasehold_backend_options {
  int64_t slot_width; /**< The length of one slot, in ticks (positive). */
  size_t slot_count;  /**< The number of slots of the ring (positive). */
} leasehold_backend_options;

/** One maximal block of the profile: `free` units over [begin, end). */
typedef struct leasehold_free_block {
  int64_t begin; /**< The block's first instant. */
  int64_t end;   /**< The first instant after the block (LEASEHOLD_TIME_MAX: forever). */
  int64_t free;  /**< The capacity free throughout the block. */
} leasehold_free_block;

/** A span of time [begin, end): the blocks of the _v calls, whose free values are apart. */
typedef struct leasehold_span {
  int64_t begin; /**< The span's first instant. */
  int64_t end;   /**< The first instant after the span. */
} leasehold_span;

/* ---- Availability profile ------------------------------------------------------------ */

/** An availability profile (opaque): the free capacity of one resource, or of several named
 * ones, over time, with a ledger of its bookings; made by leasehold_profile_create or
 * leasehold_profile_create_multi, freed by leasehold_profile_destroy. A handle may be used by
 * one thread at a time; distinct handles are independent. */
typedef struct leasehold_profile leasehold_profile;

/** backend: "free_list", "free_tree", "capacity_tree", "reference" or "slotted_ring". A
 * profile of `total` units, all free from `origin` on. On failure *out is set to NULL. */
leasehold_status leasehold_profile_create(const char* backend, int64_t total, int64_t origin,
                                          const leasehold_backend_options* options,
                                          leasehold_profile** out);
/** Frees the profile; NULL is ignored. */
void leasehold_profile_destroy(leasehold_profile* profile);

/** The message of the last failed call on this handle ("" if none, or for a NULL handle). */
const char* leasehold_profile_message(const leasehold_profile* profile);
/** The backend name the profile was created with. */
const char* leasehold_profile_backend(const leasehold_profile* profile);

/** The total capacity: a plain accessor, the handle must not be NULL (it has no status to
 * report one). -1 for a profile of several resources (see leasehold_profile_total_v). */
int64_t leasehold_profile_total(const leasehold_profile* profile);
/** The origin, the earliest time the profile holds (moved by leasehold_profile_advance); the
 * handle must not be NULL. */
int64_t leasehold_profile_origin(const leasehold_profile* profile);

/** The earliest start s in [window_begin, window_end - duration] with `amount` free over
 * [s, s + duration), the window's end clamped to the plan end if one is set. *found is 1 and
 * *start is s, or *found is 0 when no start fits, a window too short for the duration
 * included. INVALID_REQUEST for a non-positive duration or amount, an amount above the total,
 * or a window that ends before it begins. */
leasehold_status leasehold_profile_earliest_fit(leasehold_profile* profile, int64_t amount,
                                                int64_t duration, int64_t window_begin,
                                                int64_t window_end, int* found, int64_t* start);
/** Books `amount` over [begin, end) as an anonymous booking (no id). INVALID_REQUEST for a
 * non-positive amount, one above the total, a reversed or empty span, one beginning before the
 * origin or ending after the plan end; INSUFFICIENT_CAPACITY when the amount is not free
 * throughout (the message names the first time it is not); OUT_OF_HORIZON past a ring's
 * horizon. */
leasehold_status leasehold_profile_reserve(leasehold_profile* profile, int64_t begin, int64_t end,
                                           int64_t amount);
/** Gives back `amount` over [begin, end), the reverse of leasehold_profile_reserve.
 * INVALID_RELEASE when more than is booked would be given back somewhere in the span (the
 * free capacity would exceed the total); the other errors as reserve's. */
leasehold_status leasehold_profile_release(leasehold_profile* profile, int64_t begin, int64_t end,
                                           int64_t amount);
/** Moves the origin forward to t and forgets the past: blocks and bookings that end by t are
 * dropped. INVALID_REQUEST for t before the origin or at LEASEHOLD_TIME_MAX. */
leasehold_status leasehold_profile_advance(leasehold_profile* profile, int64_t t);
/** *free receives the capacity free at time t. INVALID_REQUEST for t before the origin;
 * OUT_OF_HORIZON at or past a ring's horizon. */
leasehold_status leasehold_profile_free_at(leasehold_profile* profile, int64_t t, int64_t* free);
/** *free receives the least capacity free at any time of [begin, end), the most a booking of
 * that span could take. INVALID_REQUEST for a reversed or empty span or one beginning before
 * the origin. */
leasehold_status leasehold_profile_min_free(leasehold_profile* profile, int64_t begin, int64_t end,
                                            int64_t* free);
/** The profile as maximal blocks in time order. *count receives the number of blocks; the
 * blocks are copied when capacity >= *count, else LEASEHOLD_BUFFER_TOO_SMALL is returned and
 * nothing is copied (call with blocks = NULL, capacity = 0 to ask for the size). */
leasehold_status leasehold_profile_free_blocks(leasehold_profile* profile,
                                               leasehold_free_block* blocks, size_t capacity,
                                               size_t* count);

/** Bytes the profile holds (nodes, pools and arrays, unused room included), as the C++
 * backend's memory_usage(). */
leasehold_status leasehold_profile_memory_usage(leasehold_profile* profile, size_t* bytes);
/** Lays a free_tree profile out afresh, as a copy is: every node in one block of memory in the
 * order a search meets them, the pools' unused room given back. A tree that lived through many
 * reserves and releases has its nodes wherever its pools had room; its searches run faster
 * after this, the more so the larger the tree (docs/performance.md, "A tree laid out afresh"). O(n)
 * time and room for a second copy while it runs, so call it when a pause suits you; nothing else
 * does. On LEASEHOLD_OUT_OF_MEMORY the profile is unchanged. The other backends have no such
 * layout to renew: for them it does nothing and returns LEASEHOLD_OK. */
leasehold_status leasehold_profile_compact(leasehold_profile* profile);

/* ---- Bookings with identity ---------------------------------------------------------------
 * A profile keeps a ledger of the bookings it made (leasehold::bookings): book returns an id,
 * and release_booking / shrink_booking / find_booking take one. Ids count up from 1 in the order
 * bookings are made and are never reused; 0 is never a booking. leasehold_profile_reserve and
 * leasehold_profile_release stay as anonymous bookings (capacity held without an id; a release
 * checked by the profile alone). leasehold_profile_advance forgets the bookings that end by the
 * new origin. */

/** One live booking: `amount` held over [begin, end). A booking made before the origin moved
 * past its begin keeps the span it was made with (it holds capacity from the origin on). */
typedef struct leasehold_booking {
  uint64_t id;    /**< Its id, from 1 up in the order bookings were made. */
  int64_t begin;  /**< The first instant of the span it was made with. */
  int64_t end;    /**< The first instant after that span. */
  int64_t amount; /**< What it holds (the first resource's, for a profile of several). */
} leasehold_booking;

/** Books `amount` over [begin, end) and writes the new booking's id to *id. An amount of 0 holds
 * nothing and still gets an id. Errors as leasehold_profile_reserve (INVALID_REQUEST for a
 * negative amount, one above the total, a bad span or a span past the plan end;
 * INSUFFICIENT_CAPACITY where it is not free); nothing changes and no id is used. */
leasehold_status leasehold_profile_book(leasehold_profile* profile, int64_t begin, int64_t end,
                                        int64_t amount, uint64_t* id);
/** Gives back everything booking `id` holds and forgets it. INVALID_RELEASE, nothing changed,
 * when id is not a live booking (never made, released, shrunk to nothing or forgotten by
 * leasehold_profile_advance). */
leasehold_status leasehold_profile_release_booking(leasehold_profile* profile, uint64_t id);
/** Gives back `by` of booking id's amount over its whole span (a partial release). *removed is
 * 1 when nothing was left and the booking is gone, else 0. INVALID_RELEASE for an id that is not
 * live or a `by` below 0 or above the booking's amount; nothing changes. */
leasehold_status leasehold_profile_shrink_booking(leasehold_profile* profile, uint64_t id,
                                                  int64_t by, int* removed);
/** *found is 1 and *out the booking when id is live; *found is 0 (and *out untouched) when not. */
leasehold_status leasehold_profile_find_booking(leasehold_profile* profile, uint64_t id,
                                                leasehold_booking* out, int* found);
/** The live bookings in id order, with the buffer protocol of leasehold_profile_free_blocks:
 * *count receives their number; they are copied when capacity >= *count, else
 * BUFFER_TOO_SMALL and nothing is copied (bookings = NULL, capacity = 0 asks for the size). */
leasehold_status leasehold_profile_bookings(leasehold_profile* profile, leasehold_booking* bookings,
                                            size_t capacity, size_t* count);
/** *count receives the number of live bookings. */
leasehold_status leasehold_profile_booking_count(leasehold_profile* profile, size_t* count);
/** *id receives the id the next leasehold_profile_book returns. */
leasehold_status leasehold_profile_next_booking_id(leasehold_profile* profile, uint64_t* id);

/* ---- Copies and equality ------------------------------------------------------------------ */

/** A deep copy (backend, blocks, bookings, next id, plan end) as a new handle in *out, which
 * the caller destroys. NULL_ARGUMENT for a null source or out; OUT_OF_MEMORY; on failure *out
 * is NULL (when out is not) and leasehold_create_message says why. */
leasehold_status leasehold_profile_copy(const leasehold_profile* source, leasehold_profile** out);
/** Makes *target a deep copy of *source (its backend too). Strong: on failure (OUT_OF_MEMORY,
 * NULL_ARGUMENT) target is unchanged. Assigning a handle to itself does nothing. */
leasehold_status leasehold_profile_assign(leasehold_profile* target,
                                          const leasehold_profile* source);
/** *equal is 1 when a and b have the same backend, total, origin, blocks, live bookings, next
 * booking id and plan end, else 0. NULL_ARGUMENT for a null pointer (the message goes to a,
 * or to b when a is null). */
leasehold_status leasehold_profile_equal(const leasehold_profile* a, const leasehold_profile* b,
                                         int* equal);

/* ---- The plan end -------------------------------------------------------------------------
 * A horizon no booking and no search may cross (a planner's base time plus its duration):
 * book and reserve refuse spans that end after it, and leasehold_profile_earliest_fit only
 * answers starts whose span ends by it (its window's end is clamped to the plan end). None by
 * default. */

/** has_end 0 removes the plan end; else it becomes `end`. INVALID_REQUEST, nothing changed, when
 * end is not after the origin or a live booking ends after it. */
leasehold_status leasehold_profile_set_plan_end(leasehold_profile* profile, int has_end,
                                                int64_t end);
/** *has_end is 1 and *end the plan end, or *has_end is 0 and *end LEASEHOLD_TIME_MAX. */
leasehold_status leasehold_profile_plan_end(leasehold_profile* profile, int* has_end, int64_t* end);

/* ---- Walking the profile and changing its total --------------------------------------------- */

/** The first time after t at which the free capacity differs from that at t (the end of the
 * block in force at t): *found is 1 and *next that time, or *found is 0 when it never changes
 * (on slotted_ring: before the horizon's end). INVALID_REQUEST for t before the origin;
 * OUT_OF_HORIZON for t at or past a ring's horizon. */
leasehold_status leasehold_profile_next_change(leasehold_profile* profile, int64_t t, int* found,
                                               int64_t* next);
/** The maximal blocks that meet [begin, end), in time order, clipped to it, with the buffer
 * protocol of leasehold_profile_free_blocks. O(log n + k) for k blocks on free_list, free_tree
 * and reference, which walk in place; capacity_tree and slotted_ring have no such walk and copy
 * their blocks (O(n)). INVALID_REQUEST for a reversed or empty span or one beginning before the
 * origin; OUT_OF_HORIZON for an end past a ring's horizon. */
leasehold_status leasehold_profile_blocks_in(leasehold_profile* profile, int64_t begin, int64_t end,
                                             leasehold_free_block* blocks, size_t capacity,
                                             size_t* count);
/** Changes the total to `total`: the amount booked at every time stays, so every free value
 * moves by the difference (bookings kept). INSUFFICIENT_CAPACITY, nothing changed, when more
 * than `total` is booked somewhere (the message names the earliest such time);
 * INVALID_REQUEST for a total that is not positive. */
leasehold_status leasehold_profile_set_total(leasehold_profile* profile, int64_t total);

/* ---- Several named resources ---------------------------------------------------------------
 * A profile of `count` resources (cores, memory, GPUs, licences) whose names are chosen at run
 * time: every amount is a vector of one value per resource, booked and searched component by
 * component (a reservation fits where every resource has room). It is the same handle as a
 * scalar profile and takes every call above; the calls that take or give one int64_t amount
 * answer INVALID_REQUEST on a profile of more than one resource (the message names the _v call
 * to use). The _v calls take the same arguments with an amount as an array of n values, in
 * the order of the names, where n must be the profile's resource count (INVALID_REQUEST naming
 * both counts if not; NULL_ARGUMENT for a null array); on a scalar profile they take n = 1.
 * Every other error is the scalar call's, a value too large in any one resource included. */

/** A profile of `count` resources (1..LEASEHOLD_MAX_RESOURCES) named names[0..count) with
 * totals[0..count) units each, all free from origin on. backend: free_list, free_tree,
 * reference or slotted_ring (capacity_tree holds one scalar resource: INVALID_REQUEST).
 * INVALID_REQUEST for a count out of range, an empty name or one given twice (the message
 * names it), or totals negative in any resource or zero in all; NULL_ARGUMENT for a null
 * array or name; UNKNOWN_BACKEND. On failure *out is NULL and leasehold_create_message says
 * why. */
leasehold_status leasehold_profile_create_multi(const char* backend, size_t count,
                                                const char* const* names, const int64_t* totals,
                                                int64_t origin,
                                                const leasehold_backend_options* options,
                                                leasehold_profile** out);
/** The number of resources (1 for a scalar profile): a plain accessor, the handle must not be
 * NULL. */
size_t leasehold_profile_resource_count(const leasehold_profile* profile);
/** The name of resource i ("" for a scalar profile's one resource; NULL for i out of range or a
 * NULL handle). The name lives as long as the profile. */
const char* leasehold_profile_resource_name(const leasehold_profile* profile, size_t i);
/** *index receives the position of the resource called `name`. INVALID_REQUEST for a name the
 * profile does not have (every name, on a scalar profile). */
leasehold_status leasehold_profile_resource_index(leasehold_profile* profile, const char* name,
                                                  size_t* index);

/** total[0..n) receives the total of each resource. */
leasehold_status leasehold_profile_total_v(leasehold_profile* profile, int64_t* total, size_t n);
/** As leasehold_profile_set_total, every resource at once (all or nothing). */
leasehold_status leasehold_profile_set_total_v(leasehold_profile* profile, const int64_t* total,
                                               size_t n);
/** As leasehold_profile_earliest_fit: the earliest start with amount[r] free in every resource r
 * over [s, s + duration). */
leasehold_status leasehold_profile_earliest_fit_v(leasehold_profile* profile, const int64_t* amount,
                                                  size_t n, int64_t duration, int64_t window_begin,
                                                  int64_t window_end, int* found, int64_t* start);
/** As leasehold_profile_reserve / _release: an anonymous booking of amount[0..n). */
leasehold_status leasehold_profile_reserve_v(leasehold_profile* profile, int64_t begin, int64_t end,
                                             const int64_t* amount, size_t n);
/** As leasehold_profile_release: gives back amount[0..n) over [begin, end). */
leasehold_status leasehold_profile_release_v(leasehold_profile* profile, int64_t begin, int64_t end,
                                             const int64_t* amount, size_t n);
/** As leasehold_profile_book: a booking of amount[0..n) (all zero allowed). */
leasehold_status leasehold_profile_book_v(leasehold_profile* profile, int64_t begin, int64_t end,
                                          const int64_t* amount, size_t n, uint64_t* id);
/** As leasehold_profile_shrink_booking: by[r] of each resource r (each between 0 and the
 * booking's amount of it, else INVALID_RELEASE); *removed is 1 when nothing is left. */
leasehold_status leasehold_profile_shrink_booking_v(leasehold_profile* profile, uint64_t id,
                                                    const int64_t* by, size_t n, int* removed);
/** As leasehold_profile_free_at: free[0..n) receives the free capacity of each resource at t. */
leasehold_status leasehold_profile_free_at_v(leasehold_profile* profile, int64_t t, int64_t* free,
                                             size_t n);
/** As leasehold_profile_min_free: free[0..n) receives the least free capacity of each resource
 * over [begin, end) (each resource's least may fall at a different time). */
leasehold_status leasehold_profile_min_free_v(leasehold_profile* profile, int64_t begin,
                                              int64_t end, int64_t* free, size_t n);
/** As leasehold_profile_find_booking, with the booking's amount in amount[0..n) (out->amount is
 * the first resource's). */
leasehold_status leasehold_profile_find_booking_v(leasehold_profile* profile, uint64_t id,
                                                  leasehold_booking* out, int64_t* amount, size_t n,
                                                  int* found);
/** As leasehold_profile_bookings: booking i in bookings[i] and its amount in
 * amounts[i * n .. i * n + n) (amounts holds capacity * n values; bookings[i].amount is the
 * first resource's). */
leasehold_status leasehold_profile_bookings_v(leasehold_profile* profile,
                                              leasehold_booking* bookings, int64_t* amounts,
                                              size_t n, size_t capacity, size_t* count);
/** As leasehold_profile_free_blocks / _blocks_in: block i's span in spans[i] and its free
 * capacity in free[i * n .. i * n + n) (free holds capacity * n values). */
leasehold_status leasehold_profile_free_blocks_v(leasehold_profile* profile, leasehold_span* spans,
                                                 int64_t* free, size_t n, size_t capacity,
                                                 size_t* count);
/** As leasehold_profile_blocks_in, with the spans and free vectors of
 * leasehold_profile_free_blocks_v. */
leasehold_status leasehold_profile_blocks_in_v(leasehold_profile* profile, int64_t begin,
                                               int64_t end, leasehold_span* spans, int64_t* free,
                                               size_t n, size_t capacity, size_t* count);

/* ---- Slot table ---------------------------------------------------------------------- */

/** A slot table (opaque): node_count identical nodes, each an availability profile, for gang
 * bookings of per-node capacity on distinct nodes (Haizea's slot table); made by
 * leasehold_slot_table_create, freed by leasehold_slot_table_destroy. */
typedef struct leasehold_slot_table leasehold_slot_table;

/** node_count identical nodes of per_node_total units each, every node a profile of the
 * named backend. On failure *out is set to NULL. */
leasehold_status leasehold_slot_table_create(const char* backend, size_t node_count,
                                             int64_t per_node_total, int64_t origin,
                                             const leasehold_backend_options* options,
                                             leasehold_slot_table** out);
/** Frees the table; NULL is ignored. */
void leasehold_slot_table_destroy(leasehold_slot_table* table);
/** The message of the last failed call on this handle ("" if none, or for a NULL handle). */
const char* leasehold_slot_table_message(const leasehold_slot_table* table);
/** The number of nodes: a plain accessor, the handle must not be NULL. */
size_t leasehold_slot_table_node_count(const leasehold_slot_table* table);
/** The origin shared by every node; the handle must not be NULL. */
int64_t leasehold_slot_table_origin(const leasehold_slot_table* table);

/** The earliest start of a gang of `nodes` distinct nodes, each with per_node free over
 * [s, s + duration), inside the window. When found, the chosen node ids (smallest ids among
 * the nodes free then) are written to node_ids, which must hold `nodes` entries. */
leasehold_status leasehold_slot_table_earliest_fit(leasehold_slot_table* table, size_t nodes,
                                                   int64_t per_node, int64_t duration,
                                                   int64_t window_begin, int64_t window_end,
                                                   int* found, int64_t* start, size_t* node_ids);
/** Books per_node on each of node_ids[0..nodes) over [begin, end); all or nothing.
 * INVALID_REQUEST for a node id out of range or given twice, or a bad span or amount;
 * INSUFFICIENT_CAPACITY when a node lacks room (nothing is booked on any node). */
leasehold_status leasehold_slot_table_reserve(leasehold_slot_table* table, int64_t begin,
                                              int64_t end, int64_t per_node, const size_t* node_ids,
                                              size_t nodes);
/** Gives back per_node on each of node_ids[0..nodes) over [begin, end), the reverse of
 * leasehold_slot_table_reserve; all or nothing (INVALID_RELEASE when a node would give back more
 * than it holds). */
leasehold_status leasehold_slot_table_release(leasehold_slot_table* table, int64_t begin,
                                              int64_t end, int64_t per_node, const size_t* node_ids,
                                              size_t nodes);
/** Moves every node's origin forward to t, forgetting the past; INVALID_REQUEST for t before
 * the origin. */
leasehold_status leasehold_slot_table_advance(leasehold_slot_table* table, int64_t t);
/** *free receives the capacity free on node `node` at t. INVALID_REQUEST for a node out of
 * range or t before the origin. */
leasehold_status leasehold_slot_table_free_at(leasehold_slot_table* table, size_t node, int64_t t,
                                              int64_t* free);
/** Maximal free blocks of one node, as leasehold_profile_free_blocks. */
leasehold_status leasehold_slot_table_free_blocks(leasehold_slot_table* table, size_t node,
                                                  leasehold_free_block* blocks, size_t capacity,
                                                  size_t* count);

#ifdef __cplusplus
}
#endif

#endif /* LEASEHOLD_C_LEASEHOLD_H */
