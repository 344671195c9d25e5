/* leasehold C API: a small C99 surface over the header-only C++ library, for schedulers and
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

/* Window ends meaning "no bound", as the C++ request's default window. */
#define LEASEHOLD_TIME_MIN INT64_MIN
#define LEASEHOLD_TIME_MAX INT64_MAX

typedef enum leasehold_status {
  LEASEHOLD_OK = 0,
  /* A malformed call: non-positive duration or amount, amount above the total, a reversed or
   * empty span, a span or time before the origin, a node id out of range (leasehold::
   * invalid_request). */
  LEASEHOLD_INVALID_REQUEST = 1,
  /* reserve over a span where the amount is not free throughout. */
  LEASEHOLD_INSUFFICIENT_CAPACITY = 2,
  /* release of more than is booked somewhere in the span. */
  LEASEHOLD_INVALID_RELEASE = 3,
  /* slotted_ring asked about time beyond its horizon. */
  LEASEHOLD_OUT_OF_HORIZON = 4,
  /* An allocation failed; the structure is unchanged. */
  LEASEHOLD_OUT_OF_MEMORY = 5,
  /* A backend name the library does not know. */
  LEASEHOLD_UNKNOWN_BACKEND = 6,
  /* A null pointer where a handle or an output was required. */
  LEASEHOLD_NULL_ARGUMENT = 7,
  /* The caller's buffer is smaller than the answer; the needed size was written. */
  LEASEHOLD_BUFFER_TOO_SMALL = 8,
  /* Anything else the library threw (a bug in leasehold, never bad input). */
  LEASEHOLD_INTERNAL_ERROR = 9
} leasehold_status;

/* A short English name of a status ("insufficient capacity"); never null. */
const char* leasehold_status_name(leasehold_status status);

/* The message of the last failed leasehold_*_create call on this thread ("" if none). */
const char* leasehold_create_message(void);

/* Constructor arguments that only some backends take: slotted_ring needs a slot width and a
 * slot count (a fixed book-ahead horizon of slot_width * slot_count from the origin). Pass
 * NULL for the other backends. */
typedef struct leasehold_backend_options {
  int64_t slot_width;
  size_t slot_count;
} leasehold_backend_options;

/* One maximal block of the profile: `free` units over [begin, end). */
typedef struct leasehold_free_block {
  int64_t begin;
  int64_t end;
  int64_t free;
} leasehold_free_block;

/* ---- Availability profile ------------------------------------------------------------ */

typedef struct leasehold_profile leasehold_profile;

/* backend: "free_list", "free_tree", "capacity_tree", "reference" or "slotted_ring". A
 * profile of `total` units, all free from `origin` on. On failure *out is set to NULL. */
leasehold_status leasehold_profile_create(const char* backend, int64_t total, int64_t origin,
                                          const leasehold_backend_options* options,
                                          leasehold_profile** out);
/* Frees the profile; NULL is ignored. */
void leasehold_profile_destroy(leasehold_profile* profile);

/* The message of the last failed call on this handle ("" if none, or for a NULL handle). */
const char* leasehold_profile_message(const leasehold_profile* profile);
/* The backend name the profile was created with. */
const char* leasehold_profile_backend(const leasehold_profile* profile);

/* Plain accessors: the handle must not be NULL (they have no status to report one). */
int64_t leasehold_profile_total(const leasehold_profile* profile);
int64_t leasehold_profile_origin(const leasehold_profile* profile);

/* The earliest start s in [window_begin, window_end - duration] with `amount` free over
 * [s, s + duration). *found is 1 and *start is s, or *found is 0 when no start fits. */
leasehold_status leasehold_profile_earliest_fit(leasehold_profile* profile, int64_t amount,
                                                int64_t duration, int64_t window_begin,
                                                int64_t window_end, int* found, int64_t* start);
leasehold_status leasehold_profile_reserve(leasehold_profile* profile, int64_t begin, int64_t end,
                                           int64_t amount);
leasehold_status leasehold_profile_release(leasehold_profile* profile, int64_t begin, int64_t end,
                                           int64_t amount);
/* Moves the origin forward to t and forgets the past. */
leasehold_status leasehold_profile_advance(leasehold_profile* profile, int64_t t);
leasehold_status leasehold_profile_free_at(leasehold_profile* profile, int64_t t, int64_t* free);
leasehold_status leasehold_profile_min_free(leasehold_profile* profile, int64_t begin, int64_t end,
                                            int64_t* free);
/* The profile as maximal blocks in time order. *count receives the number of blocks; the
 * blocks are copied when capacity >= *count, else LEASEHOLD_BUFFER_TOO_SMALL is returned and
 * nothing is copied (call with blocks = NULL, capacity = 0 to ask for the size). */
leasehold_status leasehold_profile_free_blocks(leasehold_profile* profile,
                                               leasehold_free_block* blocks, size_t capacity,
                                               size_t* count);

/* Bytes the profile holds (nodes, pools and arrays, unused room included), as the C++
 * backend's memory_usage(). */
leasehold_status leasehold_profile_memory_usage(leasehold_profile* profile, size_t* bytes);
/* Lays a free_tree profile out afresh, as a copy is: every node in one block of memory in the
 * order a search meets them, the pools' unused room given back. A tree that lived through many
 * reserves and releases has its nodes wherever its pools had room; its searches ran 1.5x faster
 * after this at 100,000 reservations (docs/performance.md, "A tree laid out afresh"). O(n) time
 * and room for a second copy while it runs, so call it when a pause suits you; nothing else
 * does. On LEASEHOLD_OUT_OF_MEMORY the profile is unchanged. The other backends have no such
 * layout to renew: for them it does nothing and returns LEASEHOLD_OK. */
leasehold_status leasehold_profile_compact(leasehold_profile* profile);

/* ---- Slot table ---------------------------------------------------------------------- */

typedef struct leasehold_slot_table leasehold_slot_table;

/* node_count identical nodes of per_node_total units each, every node a profile of the
 * named backend. On failure *out is set to NULL. */
leasehold_status leasehold_slot_table_create(const char* backend, size_t node_count,
                                             int64_t per_node_total, int64_t origin,
                                             const leasehold_backend_options* options,
                                             leasehold_slot_table** out);
void leasehold_slot_table_destroy(leasehold_slot_table* table);
const char* leasehold_slot_table_message(const leasehold_slot_table* table);
/* Plain accessors: the handle must not be NULL. */
size_t leasehold_slot_table_node_count(const leasehold_slot_table* table);
int64_t leasehold_slot_table_origin(const leasehold_slot_table* table);

/* The earliest start of a gang of `nodes` distinct nodes, each with per_node free over
 * [s, s + duration), inside the window. When found, the chosen node ids (smallest ids among
 * the nodes free then) are written to node_ids, which must hold `nodes` entries. */
leasehold_status leasehold_slot_table_earliest_fit(leasehold_slot_table* table, size_t nodes,
                                                   int64_t per_node, int64_t duration,
                                                   int64_t window_begin, int64_t window_end,
                                                   int* found, int64_t* start, size_t* node_ids);
/* Books (gives back) per_node on each of node_ids[0..nodes) over [begin, end); all or
 * nothing. */
leasehold_status leasehold_slot_table_reserve(leasehold_slot_table* table, int64_t begin,
                                              int64_t end, int64_t per_node, const size_t* node_ids,
                                              size_t nodes);
leasehold_status leasehold_slot_table_release(leasehold_slot_table* table, int64_t begin,
                                              int64_t end, int64_t per_node, const size_t* node_ids,
                                              size_t nodes);
leasehold_status leasehold_slot_table_advance(leasehold_slot_table* table, int64_t t);
/* Free capacity of one node at t. */
leasehold_status leasehold_slot_table_free_at(leasehold_slot_table* table, size_t node, int64_t t,
                                              int64_t* free);
/* Maximal free blocks of one node, as leasehold_profile_free_blocks. */
leasehold_status leasehold_slot_table_free_blocks(leasehold_slot_table* table, size_t node,
                                                  leasehold_free_block* blocks, size_t capacity,
                                                  size_t* count);

#ifdef __cplusplus
}
#endif

#endif /* LEASEHOLD_C_LEASEHOLD_H */
