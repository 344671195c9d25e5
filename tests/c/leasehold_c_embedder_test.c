/* C99 test of the embedder calls of the C API (include/leasehold/c/leasehold.h): bookings with
 * identity, copies and equality, the plan end, walking the blocks, a change of total and
 * profiles of several named resources. Compiled as C with -std=c99 -pedantic -Werror.
 * Expectations are hand-computed; every failed call is checked to return its status and leave
 * the profile as it was (its blocks, and its bookings where it has any). */
#include "c_check.h"

#define MAX_BOOKINGS 8

typedef struct ledger {
  size_t count;
  leasehold_booking bookings[MAX_BOOKINGS];
} ledger;

static ledger ledger_of(leasehold_profile* p) {
  ledger l;
  memset(&l, 0, sizeof l);
  CHECK(leasehold_profile_bookings(p, l.bookings, MAX_BOOKINGS, &l.count) == LEASEHOLD_OK);
  return l;
}

/* A profile of 10 units from 0 of the named backend (slots of 10 over [0, 400) for the ring). */
static leasehold_profile* make(const char* backend) {
  leasehold_backend_options ring = {10, 40};
  leasehold_profile* p = NULL;
  CHECK(leasehold_profile_create(backend, 10, 0,
                                 strcmp(backend, "slotted_ring") == 0 ? &ring : NULL,
                                 &p) == LEASEHOLD_OK);
  return p;
}

/* Everything a failed call must leave alone, read through the _v calls so that it serves
 * scalar and multi-resource profiles alike. */
#define STATE_BLOCKS 16
typedef struct state {
  size_t resources;
  int64_t totals[LEASEHOLD_MAX_RESOURCES];
  size_t blocks;
  leasehold_span spans[STATE_BLOCKS];
  int64_t free[STATE_BLOCKS * LEASEHOLD_MAX_RESOURCES];
  size_t bookings;
  leasehold_booking list[MAX_BOOKINGS];
  int64_t amounts[MAX_BOOKINGS * LEASEHOLD_MAX_RESOURCES];
  uint64_t next_id;
  int64_t has_end; /* int64_t rather than int: no padding for memcmp to read */
  int64_t end;
} state;

static state state_of(leasehold_profile* p) {
  state s;
  int has_end = 0;
  memset(&s, 0, sizeof s);
  s.resources = leasehold_profile_resource_count(p);
  CHECK(leasehold_profile_total_v(p, s.totals, s.resources) == LEASEHOLD_OK);
  CHECK(leasehold_profile_free_blocks_v(p, s.spans, s.free, s.resources, STATE_BLOCKS, &s.blocks) ==
        LEASEHOLD_OK);
  CHECK(leasehold_profile_bookings_v(p, s.list, s.amounts, s.resources, MAX_BOOKINGS,
                                     &s.bookings) == LEASEHOLD_OK);
  CHECK(leasehold_profile_next_booking_id(p, &s.next_id) == LEASEHOLD_OK);
  CHECK(leasehold_profile_plan_end(p, &has_end, &s.end) == LEASEHOLD_OK);
  s.has_end = has_end;
  return s;
}

static int same_state(const state* a, const state* b) { return memcmp(a, b, sizeof *a) == 0; }

#define CHECK_UNCHANGED(p, before)       \
  do {                                   \
    state now_ = state_of(p);            \
    CHECK(same_state(&(before), &now_)); \
  } while (0)

/* Book 4 over [0, 20) (#1) and 6 over [10, 30) (#2), and nothing over [40, 60) (#3); then
 * shrink, release and find them by id. Times are multiples of 10, the ring's slot width. */
static void test_bookings(const char* backend) {
  leasehold_profile* p = make(backend);
  uint64_t id = 99;
  uint64_t next = 0;
  int64_t free = -1;
  int removed = -1;
  int found = -1;
  size_t count = 99;
  leasehold_booking b = {77, 77, 77, 77};
  leasehold_booking buffer[4];
  state before;
  ledger l;

  if (p == NULL) return;
  CHECK(leasehold_profile_next_booking_id(p, &next) == LEASEHOLD_OK && next == 1);
  CHECK(leasehold_profile_booking_count(p, &count) == LEASEHOLD_OK && count == 0);
  CHECK(leasehold_profile_book(p, 0, 20, 4, &id) == LEASEHOLD_OK && id == 1);
  CHECK(leasehold_profile_book(p, 10, 30, 6, &id) == LEASEHOLD_OK && id == 2);
  CHECK(leasehold_profile_book(p, 40, 60, 0, &id) == LEASEHOLD_OK && id == 3);
  CHECK(leasehold_profile_free_at(p, 0, &free) == LEASEHOLD_OK && free == 6);
  CHECK(leasehold_profile_free_at(p, 10, &free) == LEASEHOLD_OK && free == 0);
  CHECK(leasehold_profile_free_at(p, 20, &free) == LEASEHOLD_OK && free == 4);
  CHECK(leasehold_profile_free_at(p, 50, &free) == LEASEHOLD_OK && free == 10);
  CHECK(leasehold_profile_booking_count(p, &count) == LEASEHOLD_OK && count == 3);
  CHECK(leasehold_profile_next_booking_id(p, &next) == LEASEHOLD_OK && next == 4);

  /* Find: a live id, then ids that are not (out untouched). */
  CHECK(leasehold_profile_find_booking(p, 2, &b, &found) == LEASEHOLD_OK && found == 1);
  CHECK(b.id == 2 && b.begin == 10 && b.end == 30 && b.amount == 6);
  b.id = 77;
  CHECK(leasehold_profile_find_booking(p, 99, &b, &found) == LEASEHOLD_OK && found == 0);
  CHECK(leasehold_profile_find_booking(p, 0, &b, &found) == LEASEHOLD_OK && found == 0);
  CHECK(b.id == 77);

  /* The buffer protocol: the size first, a short buffer untouched, then the bookings. */
  CHECK(leasehold_profile_bookings(p, NULL, 0, &count) == LEASEHOLD_BUFFER_TOO_SMALL && count == 3);
  CHECK_CONTAINS(leasehold_profile_message(p), "bookings: 3 bookings do not fit in a buffer of 0");
  buffer[0].id = 55;
  CHECK(leasehold_profile_bookings(p, buffer, 2, &count) == LEASEHOLD_BUFFER_TOO_SMALL &&
        count == 3);
  CHECK(buffer[0].id == 55);
  CHECK(leasehold_profile_bookings(p, buffer, 4, &count) == LEASEHOLD_OK && count == 3);
  CHECK(buffer[0].id == 1 && buffer[0].begin == 0 && buffer[0].end == 20 && buffer[0].amount == 4);
  CHECK(buffer[1].id == 2 && buffer[1].begin == 10 && buffer[1].end == 30 && buffer[1].amount == 6);
  CHECK(buffer[2].id == 3 && buffer[2].begin == 40 && buffer[2].end == 60 && buffer[2].amount == 0);

  /* Bad calls: each returns its status and changes nothing (no id used either). */
  before = state_of(p);
  id = 99;
  CHECK(leasehold_profile_book(p, 10, 20, 1, &id) == LEASEHOLD_INSUFFICIENT_CAPACITY && id == 99);
  CHECK_CONTAINS(leasehold_profile_message(p), "[10, 20)");
  CHECK(leasehold_profile_book(p, 0, 20, -1, &id) == LEASEHOLD_INVALID_REQUEST && id == 99);
  CHECK_CONTAINS(leasehold_profile_message(p), "-1");
  CHECK(leasehold_profile_book(p, 40, 50, 11, &id) == LEASEHOLD_INVALID_REQUEST && id == 99);
  CHECK_CONTAINS(leasehold_profile_message(p), "11");
  CHECK(leasehold_profile_book(p, 50, 40, 1, &id) == LEASEHOLD_INVALID_REQUEST && id == 99);
  CHECK_CONTAINS(leasehold_profile_message(p), "[50, 40)");
  CHECK(leasehold_profile_book(p, 40, 50, 1, NULL) == LEASEHOLD_NULL_ARGUMENT);
  CHECK(leasehold_profile_book(NULL, 40, 50, 1, &id) == LEASEHOLD_NULL_ARGUMENT);
  CHECK(leasehold_profile_release_booking(p, 99) == LEASEHOLD_INVALID_RELEASE);
  CHECK_CONTAINS(leasehold_profile_message(p), "booking #99");
  CHECK(leasehold_profile_release_booking(p, 0) == LEASEHOLD_INVALID_RELEASE);
  CHECK(leasehold_profile_release_booking(NULL, 1) == LEASEHOLD_NULL_ARGUMENT);
  CHECK(leasehold_profile_shrink_booking(p, 2, 7, &removed) == LEASEHOLD_INVALID_RELEASE);
  CHECK_CONTAINS(leasehold_profile_message(p), "holds only 6");
  CHECK(leasehold_profile_shrink_booking(p, 2, -1, &removed) == LEASEHOLD_INVALID_RELEASE);
  CHECK(leasehold_profile_shrink_booking(p, 99, 1, &removed) == LEASEHOLD_INVALID_RELEASE);
  CHECK(leasehold_profile_shrink_booking(p, 2, 1, NULL) == LEASEHOLD_NULL_ARGUMENT);
  CHECK(leasehold_profile_find_booking(p, 2, NULL, &found) == LEASEHOLD_NULL_ARGUMENT);
  CHECK(leasehold_profile_find_booking(p, 2, &b, NULL) == LEASEHOLD_NULL_ARGUMENT);
  CHECK(leasehold_profile_bookings(p, NULL, 4, &count) == LEASEHOLD_NULL_ARGUMENT);
  CHECK(leasehold_profile_bookings(p, buffer, 4, NULL) == LEASEHOLD_NULL_ARGUMENT);
  CHECK(leasehold_profile_booking_count(p, NULL) == LEASEHOLD_NULL_ARGUMENT);
  CHECK(leasehold_profile_booking_count(NULL, &count) == LEASEHOLD_NULL_ARGUMENT);
  CHECK(leasehold_profile_next_booking_id(p, NULL) == LEASEHOLD_NULL_ARGUMENT);
  /* An anonymous release is the profile's to judge: only 4 are booked over [0, 10). */
  CHECK(leasehold_profile_release(p, 0, 30, 5) == LEASEHOLD_INVALID_RELEASE);
  CHECK_UNCHANGED(p, before);

  /* Shrink #2 by 2 (4 left), then by the rest: gone. */
  CHECK(leasehold_profile_shrink_booking(p, 2, 2, &removed) == LEASEHOLD_OK && removed == 0);
  CHECK(leasehold_profile_free_at(p, 20, &free) == LEASEHOLD_OK && free == 6);
  CHECK(leasehold_profile_find_booking(p, 2, &b, &found) == LEASEHOLD_OK && found == 1 &&
        b.amount == 4);
  CHECK(leasehold_profile_shrink_booking(p, 2, 0, &removed) == LEASEHOLD_OK && removed == 0);
  CHECK(leasehold_profile_shrink_booking(p, 2, 4, &removed) == LEASEHOLD_OK && removed == 1);
  CHECK(leasehold_profile_find_booking(p, 2, &b, &found) == LEASEHOLD_OK && found == 0);
  CHECK(leasehold_profile_free_at(p, 20, &free) == LEASEHOLD_OK && free == 10);
  before = state_of(p);
  CHECK(leasehold_profile_release_booking(p, 2) == LEASEHOLD_INVALID_RELEASE);
  CHECK_CONTAINS(leasehold_profile_message(p), "booking #2");
  CHECK_UNCHANGED(p, before);

  /* Release #1: 10 free over [0, 20) again; a second release is refused. */
  CHECK(leasehold_profile_release_booking(p, 1) == LEASEHOLD_OK);
  CHECK(leasehold_profile_free_at(p, 0, &free) == LEASEHOLD_OK && free == 10);
  CHECK(leasehold_profile_release_booking(p, 1) == LEASEHOLD_INVALID_RELEASE);

  /* Anonymous bookings hold capacity but no id. */
  CHECK(leasehold_profile_reserve(p, 0, 10, 3) == LEASEHOLD_OK);
  CHECK(leasehold_profile_booking_count(p, &count) == LEASEHOLD_OK && count == 1);
  CHECK(leasehold_profile_next_booking_id(p, &next) == LEASEHOLD_OK && next == 4);

  /* advance forgets #3, which ends at 60; #4 over [50, 90) spans 60 and stays. */
  CHECK(leasehold_profile_book(p, 50, 90, 2, &id) == LEASEHOLD_OK && id == 4);
  CHECK(leasehold_profile_advance(p, 60) == LEASEHOLD_OK);
  l = ledger_of(p);
  CHECK(l.count == 1 && l.bookings[0].id == 4 && l.bookings[0].begin == 50);
  CHECK(leasehold_profile_free_at(p, 60, &free) == LEASEHOLD_OK && free == 8);
  CHECK(leasehold_profile_release_booking(p, 3) == LEASEHOLD_INVALID_RELEASE);
  CHECK(leasehold_profile_release_booking(p, 4) == LEASEHOLD_OK);
  CHECK(leasehold_profile_free_at(p, 60, &free) == LEASEHOLD_OK && free == 10);
  leasehold_profile_destroy(p);
}

/* A plan end of 100 on a profile with 2 booked over [0, 50). */
static void test_plan_end(const char* backend) {
  leasehold_profile* p = make(backend);
  uint64_t id = 0;
  int has_end = -1;
  int64_t end = 0;
  int found = -1;
  int64_t start = -1;
  state before;

  if (p == NULL) return;
  CHECK(leasehold_profile_plan_end(p, &has_end, &end) == LEASEHOLD_OK);
  CHECK(has_end == 0 && end == LEASEHOLD_TIME_MAX);
  CHECK(leasehold_profile_book(p, 0, 50, 2, &id) == LEASEHOLD_OK && id == 1);

  /* Refused: a booking ends after 40; 0 is not after the origin. */
  before = state_of(p);
  CHECK(leasehold_profile_set_plan_end(p, 1, 40) == LEASEHOLD_INVALID_REQUEST);
  CHECK_CONTAINS(leasehold_profile_message(p), "set_plan_end(40)");
  CHECK(leasehold_profile_set_plan_end(p, 1, 0) == LEASEHOLD_INVALID_REQUEST);
  CHECK_CONTAINS(leasehold_profile_message(p), "origin");
  CHECK(leasehold_profile_set_plan_end(NULL, 1, 100) == LEASEHOLD_NULL_ARGUMENT);
  CHECK(leasehold_profile_plan_end(p, NULL, &end) == LEASEHOLD_NULL_ARGUMENT);
  CHECK(leasehold_profile_plan_end(p, &has_end, NULL) == LEASEHOLD_NULL_ARGUMENT);
  CHECK(leasehold_profile_plan_end(NULL, &has_end, &end) == LEASEHOLD_NULL_ARGUMENT);
  CHECK(leasehold_profile_plan_end(p, &has_end, &end) == LEASEHOLD_OK && has_end == 0);
  CHECK_UNCHANGED(p, before);

  CHECK(leasehold_profile_set_plan_end(p, 1, 100) == LEASEHOLD_OK);
  CHECK(leasehold_profile_plan_end(p, &has_end, &end) == LEASEHOLD_OK);
  CHECK(has_end == 1 && end == 100);

  /* Nothing may cross 100. */
  before = state_of(p);
  CHECK(leasehold_profile_book(p, 90, 110, 1, &id) == LEASEHOLD_INVALID_REQUEST);
  CHECK_CONTAINS(leasehold_profile_message(p), "plan end 100");
  CHECK(leasehold_profile_reserve(p, 90, 110, 1) == LEASEHOLD_INVALID_REQUEST);
  CHECK_CONTAINS(leasehold_profile_message(p), "plan end 100");
  CHECK_UNCHANGED(p, before);
  CHECK(leasehold_profile_book(p, 90, 100, 1, &id) == LEASEHOLD_OK && id == 2);
  CHECK(leasehold_profile_release_booking(p, 2) == LEASEHOLD_OK);

  /* Searches answer within it: all 10 from 50, 50 long fits [50, 100), 51 long does not, and
   * a window shorter than the duration is no answer rather than an error. */
  CHECK(leasehold_profile_earliest_fit(p, 10, 50, 0, LEASEHOLD_TIME_MAX, &found, &start) ==
        LEASEHOLD_OK);
  CHECK(found == 1 && start == 50);
  CHECK(leasehold_profile_earliest_fit(p, 10, 51, 0, LEASEHOLD_TIME_MAX, &found, &start) ==
        LEASEHOLD_OK);
  CHECK(found == 0);
  CHECK(leasehold_profile_earliest_fit(p, 1, 200, 0, LEASEHOLD_TIME_MAX, &found, &start) ==
        LEASEHOLD_OK);
  CHECK(found == 0);
  CHECK(leasehold_profile_earliest_fit(p, 11, 5, 0, LEASEHOLD_TIME_MAX, &found, &start) ==
        LEASEHOLD_INVALID_REQUEST);
  CHECK(leasehold_profile_earliest_fit(p, 1, 0, 0, LEASEHOLD_TIME_MAX, &found, &start) ==
        LEASEHOLD_INVALID_REQUEST);

  /* Removed: the same search fits at 50 again; a short window still answers found = 0. */
  CHECK(leasehold_profile_set_plan_end(p, 0, 0) == LEASEHOLD_OK);
  CHECK(leasehold_profile_plan_end(p, &has_end, &end) == LEASEHOLD_OK && has_end == 0);
  CHECK(leasehold_profile_earliest_fit(p, 10, 51, 0, LEASEHOLD_TIME_MAX, &found, &start) ==
        LEASEHOLD_OK);
  CHECK(found == 1 && start == 50);
  CHECK(leasehold_profile_earliest_fit(p, 1, 20, 0, 10, &found, &start) == LEASEHOLD_OK);
  CHECK(found == 0);
  leasehold_profile_destroy(p);
}

/* Copies are deep; assignment replaces everything, the backend included; equality compares
 * backend, blocks, bookings, next id and plan end. */
static void test_copy_assign_equal(const char* backend, const char* other_backend) {
  leasehold_profile* p = make(backend);
  leasehold_profile* q = NULL;
  leasehold_profile* r = make(other_backend);
  leasehold_profile* none = (leasehold_profile*)&failures; /* must be reset to NULL */
  uint64_t id = 0;
  int equal = -1;
  size_t count = 0;
  state before;

  if (p == NULL || r == NULL) return;
  CHECK(leasehold_profile_book(p, 0, 10, 4, &id) == LEASEHOLD_OK && id == 1);
  CHECK(leasehold_profile_reserve(p, 20, 30, 1) == LEASEHOLD_OK);
  CHECK(leasehold_profile_set_plan_end(p, 1, 300) == LEASEHOLD_OK);
  CHECK(leasehold_profile_copy(p, &q) == LEASEHOLD_OK && q != NULL);
  if (q == NULL) return;
  CHECK(strcmp(leasehold_profile_backend(q), backend) == 0);
  CHECK(leasehold_profile_equal(p, q, &equal) == LEASEHOLD_OK && equal == 1);

  /* The copy is deep: booking on it leaves p alone. */
  CHECK(leasehold_profile_book(q, 40, 50, 1, &id) == LEASEHOLD_OK && id == 2);
  CHECK(leasehold_profile_booking_count(p, &count) == LEASEHOLD_OK && count == 1);
  CHECK(leasehold_profile_equal(p, q, &equal) == LEASEHOLD_OK && equal == 0);
  /* Same blocks and bookings again, but the next id differs: not equal. */
  CHECK(leasehold_profile_release_booking(q, 2) == LEASEHOLD_OK);
  CHECK(leasehold_profile_equal(q, p, &equal) == LEASEHOLD_OK && equal == 0);
  /* Assignment makes them equal; a different plan end makes them differ. */
  CHECK(leasehold_profile_assign(q, p) == LEASEHOLD_OK);
  CHECK(leasehold_profile_equal(p, q, &equal) == LEASEHOLD_OK && equal == 1);
  CHECK(leasehold_profile_set_plan_end(q, 1, 200) == LEASEHOLD_OK);
  CHECK(leasehold_profile_equal(p, q, &equal) == LEASEHOLD_OK && equal == 0);
  CHECK(leasehold_profile_assign(q, q) == LEASEHOLD_OK);

  /* Another backend: never equal, not even both empty; assignment takes the backend along. */
  CHECK(leasehold_profile_equal(p, r, &equal) == LEASEHOLD_OK && equal == 0);
  CHECK(leasehold_profile_assign(r, p) == LEASEHOLD_OK);
  CHECK(strcmp(leasehold_profile_backend(r), backend) == 0);
  CHECK(leasehold_profile_equal(r, p, &equal) == LEASEHOLD_OK && equal == 1);

  /* Bad calls. */
  before = state_of(p);
  CHECK(leasehold_profile_copy(NULL, &none) == LEASEHOLD_NULL_ARGUMENT && none == NULL);
  CHECK_CONTAINS(leasehold_create_message(), "null");
  CHECK(leasehold_profile_copy(p, NULL) == LEASEHOLD_NULL_ARGUMENT);
  CHECK(leasehold_profile_assign(p, NULL) == LEASEHOLD_NULL_ARGUMENT);
  CHECK_CONTAINS(leasehold_profile_message(p), "null");
  CHECK(leasehold_profile_assign(NULL, p) == LEASEHOLD_NULL_ARGUMENT);
  equal = -1;
  CHECK(leasehold_profile_equal(NULL, p, &equal) == LEASEHOLD_NULL_ARGUMENT && equal == -1);
  CHECK(leasehold_profile_equal(p, NULL, &equal) == LEASEHOLD_NULL_ARGUMENT && equal == -1);
  CHECK(leasehold_profile_equal(p, q, NULL) == LEASEHOLD_NULL_ARGUMENT);
  CHECK_UNCHANGED(p, before);
  leasehold_profile_destroy(p);
  leasehold_profile_destroy(q);
  leasehold_profile_destroy(r);
}

/* 4 booked over [10, 20) and all 10 over [20, 40): blocks [0, 10) 10, [10, 20) 6, [20, 40) 0,
 * [40, end) 10, where end is forever, or 400 for the ring. */
static void test_walk_and_total(const char* backend) {
  leasehold_profile* p = make(backend);
  int is_ring = strcmp(backend, "slotted_ring") == 0;
  int found = -1;
  int64_t next = -1;
  int64_t free = -1;
  size_t count = 99;
  leasehold_free_block blocks[4];
  state before;

  if (p == NULL) return;
  CHECK(leasehold_profile_reserve(p, 10, 20, 4) == LEASEHOLD_OK);
  CHECK(leasehold_profile_reserve(p, 20, 40, 10) == LEASEHOLD_OK);

  /* next_change: the end of the block in force at t. */
  CHECK(leasehold_profile_next_change(p, 0, &found, &next) == LEASEHOLD_OK);
  CHECK(found == 1 && next == 10);
  CHECK(leasehold_profile_next_change(p, 15, &found, &next) == LEASEHOLD_OK);
  CHECK(found == 1 && next == 20);
  CHECK(leasehold_profile_next_change(p, 25, &found, &next) == LEASEHOLD_OK);
  CHECK(found == 1 && next == 40);
  next = -1;
  CHECK(leasehold_profile_next_change(p, 40, &found, &next) == LEASEHOLD_OK);
  CHECK(found == 0 && next == -1);

  /* blocks_in: the blocks meeting [5, 30), clipped to it. */
  CHECK(leasehold_profile_blocks_in(p, 5, 30, NULL, 0, &count) == LEASEHOLD_BUFFER_TOO_SMALL);
  CHECK(count == 3);
  CHECK_CONTAINS(leasehold_profile_message(p), "blocks_in: 3 blocks do not fit in a buffer of 0");
  blocks[0].begin = 77;
  CHECK(leasehold_profile_blocks_in(p, 5, 30, blocks, 2, &count) == LEASEHOLD_BUFFER_TOO_SMALL);
  CHECK(count == 3 && blocks[0].begin == 77);
  CHECK(leasehold_profile_blocks_in(p, 5, 30, blocks, 4, &count) == LEASEHOLD_OK && count == 3);
  CHECK(blocks[0].begin == 5 && blocks[0].end == 10 && blocks[0].free == 10);
  CHECK(blocks[1].begin == 10 && blocks[1].end == 20 && blocks[1].free == 6);
  CHECK(blocks[2].begin == 20 && blocks[2].end == 30 && blocks[2].free == 0);
  CHECK(leasehold_profile_blocks_in(p, 40, 50, blocks, 4, &count) == LEASEHOLD_OK && count == 1);
  CHECK(blocks[0].begin == 40 && blocks[0].end == 50 && blocks[0].free == 10);

  /* Bad calls change nothing. */
  before = state_of(p);
  found = -1;
  CHECK(leasehold_profile_next_change(p, -1, &found, &next) == LEASEHOLD_INVALID_REQUEST);
  CHECK(found == -1);
  CHECK_CONTAINS(leasehold_profile_message(p), "-1");
  CHECK(leasehold_profile_next_change(p, 0, NULL, &next) == LEASEHOLD_NULL_ARGUMENT);
  CHECK(leasehold_profile_next_change(p, 0, &found, NULL) == LEASEHOLD_NULL_ARGUMENT);
  CHECK(leasehold_profile_next_change(NULL, 0, &found, &next) == LEASEHOLD_NULL_ARGUMENT);
  CHECK(leasehold_profile_blocks_in(p, 30, 20, blocks, 4, &count) == LEASEHOLD_INVALID_REQUEST);
  CHECK_CONTAINS(leasehold_profile_message(p), "[30, 20)");
  CHECK(leasehold_profile_blocks_in(p, 10, 10, blocks, 4, &count) == LEASEHOLD_INVALID_REQUEST);
  CHECK(leasehold_profile_blocks_in(p, -10, 10, blocks, 4, &count) == LEASEHOLD_INVALID_REQUEST);
  CHECK(leasehold_profile_blocks_in(p, 0, 10, NULL, 4, &count) == LEASEHOLD_NULL_ARGUMENT);
  CHECK(leasehold_profile_blocks_in(p, 0, 10, blocks, 4, NULL) == LEASEHOLD_NULL_ARGUMENT);
  CHECK(leasehold_profile_blocks_in(NULL, 0, 10, blocks, 4, &count) == LEASEHOLD_NULL_ARGUMENT);
  if (is_ring) {
    CHECK(leasehold_profile_next_change(p, 400, &found, &next) == LEASEHOLD_OUT_OF_HORIZON);
    CHECK(leasehold_profile_blocks_in(p, 0, 410, blocks, 4, &count) == LEASEHOLD_OUT_OF_HORIZON);
  }

  /* set_total: refused below what is booked (10 over [20, 40)), naming the time. */
  CHECK(leasehold_profile_set_total(p, 9) == LEASEHOLD_INSUFFICIENT_CAPACITY);
  CHECK_CONTAINS(leasehold_profile_message(p), "set_total(9)");
  CHECK_CONTAINS(leasehold_profile_message(p), "at 20");
  CHECK(leasehold_profile_set_total(p, 0) == LEASEHOLD_INVALID_REQUEST);
  CHECK(leasehold_profile_set_total(NULL, 12) == LEASEHOLD_NULL_ARGUMENT);
  CHECK(leasehold_profile_total(p) == 10);
  CHECK_UNCHANGED(p, before);

  /* Growing to 12 keeps what is booked: 2 more free everywhere. */
  CHECK(leasehold_profile_set_total(p, 12) == LEASEHOLD_OK);
  CHECK(leasehold_profile_total(p) == 12);
  CHECK(leasehold_profile_free_at(p, 0, &free) == LEASEHOLD_OK && free == 12);
  CHECK(leasehold_profile_free_at(p, 15, &free) == LEASEHOLD_OK && free == 8);
  CHECK(leasehold_profile_free_at(p, 25, &free) == LEASEHOLD_OK && free == 2);
  CHECK(leasehold_profile_set_total(p, 10) == LEASEHOLD_OK);
  CHECK_UNCHANGED(p, before);
  leasehold_profile_destroy(p);
}

static const char* const resource_names[] = {"cores", "memory_mb", "gpus"};
static const int64_t resource_totals[] = {64, 1024, 4};

static leasehold_profile* make_multi(const char* backend) {
  leasehold_backend_options ring = {10, 40};
  leasehold_profile* p = NULL;
  CHECK(leasehold_profile_create_multi(backend, 3, resource_names, resource_totals, 0,
                                       strcmp(backend, "slotted_ring") == 0 ? &ring : NULL,
                                       &p) == LEASEHOLD_OK);
  return p;
}

static int values_are(const int64_t* v, int64_t a, int64_t b, int64_t c) {
  return v[0] == a && v[1] == b && v[2] == c;
}

/* Three resources {cores 64, memory_mb 1024, gpus 4}; booking #1 holds {32, 512, 4} over
 * [0, 10), an anonymous {64, 0, 0} is held over [10, 20). */
static void test_multi(const char* backend) {
  leasehold_profile* p = make_multi(backend);
  leasehold_profile* q = NULL;
  int is_ring = strcmp(backend, "slotted_ring") == 0;
  int64_t horizon_end = is_ring ? 400 : LEASEHOLD_TIME_MAX;
  int64_t v[3] = {-1, -1, -1};
  int64_t free_values[12];
  int64_t amounts[6];
  int64_t scalar = -1;
  leasehold_span spans[4];
  leasehold_booking b;
  leasehold_booking list[2];
  leasehold_free_block blocks[4];
  uint64_t id = 99;
  size_t index = 99;
  size_t count = 99;
  int found = -1;
  int removed = -1;
  int equal = -1;
  int64_t start = -1;
  const int64_t booked[3] = {32, 512, 4};
  const int64_t cores_only[3] = {64, 0, 0};
  const int64_t one_each[3] = {1, 1, 1};
  const int64_t nothing[3] = {0, 0, 0};
  state before;

  if (p == NULL) return;
  CHECK(leasehold_profile_resource_count(p) == 3);
  CHECK(strcmp(leasehold_profile_resource_name(p, 0), "cores") == 0);
  CHECK(strcmp(leasehold_profile_resource_name(p, 2), "gpus") == 0);
  CHECK(leasehold_profile_resource_name(p, 3) == NULL);
  CHECK(leasehold_profile_resource_name(NULL, 0) == NULL);
  CHECK(leasehold_profile_resource_index(p, "memory_mb", &index) == LEASEHOLD_OK && index == 1);
  CHECK(strcmp(leasehold_profile_backend(p), backend) == 0);
  CHECK(leasehold_profile_total(p) == -1);
  CHECK(leasehold_profile_total_v(p, v, 3) == LEASEHOLD_OK && values_are(v, 64, 1024, 4));

  CHECK(leasehold_profile_book_v(p, 0, 10, booked, 3, &id) == LEASEHOLD_OK && id == 1);
  CHECK(leasehold_profile_reserve_v(p, 10, 20, cores_only, 3) == LEASEHOLD_OK);
  CHECK(leasehold_profile_free_at_v(p, 5, v, 3) == LEASEHOLD_OK && values_are(v, 32, 512, 0));
  CHECK(leasehold_profile_free_at_v(p, 15, v, 3) == LEASEHOLD_OK && values_are(v, 0, 1024, 4));
  CHECK(leasehold_profile_min_free_v(p, 0, 20, v, 3) == LEASEHOLD_OK && values_are(v, 0, 512, 0));
  /* One of each: the GPUs are busy until 10 and the cores until 20. */
  CHECK(leasehold_profile_earliest_fit_v(p, one_each, 3, 5, 0, LEASEHOLD_TIME_MAX, &found,
                                         &start) == LEASEHOLD_OK);
  CHECK(found == 1 && start == 20);
  CHECK(leasehold_profile_earliest_fit_v(p, booked, 3, 5, 0, 20, &found, &start) == LEASEHOLD_OK);
  CHECK(found == 0);
  CHECK(leasehold_profile_next_change(p, 0, &found, &start) == LEASEHOLD_OK);
  CHECK(found == 1 && start == 10);

  /* Blocks: [0, 10) {32, 512, 0}, [10, 20) {0, 1024, 4}, [20, end) {64, 1024, 4}. */
  CHECK(leasehold_profile_free_blocks_v(p, NULL, NULL, 3, 0, &count) == LEASEHOLD_BUFFER_TOO_SMALL);
  CHECK(count == 3);
  CHECK_CONTAINS(leasehold_profile_message(p), "free_blocks_v: 3 blocks do not fit");
  spans[0].begin = 77;
  CHECK(leasehold_profile_free_blocks_v(p, spans, free_values, 3, 2, &count) ==
        LEASEHOLD_BUFFER_TOO_SMALL);
  CHECK(spans[0].begin == 77);
  CHECK(leasehold_profile_free_blocks_v(p, spans, free_values, 3, 4, &count) == LEASEHOLD_OK);
  CHECK(count == 3);
  CHECK(spans[0].begin == 0 && spans[0].end == 10 && values_are(free_values, 32, 512, 0));
  CHECK(spans[1].begin == 10 && spans[1].end == 20 && values_are(free_values + 3, 0, 1024, 4));
  CHECK(spans[2].begin == 20 && spans[2].end == horizon_end &&
        values_are(free_values + 6, 64, 1024, 4));
  CHECK(leasehold_profile_blocks_in_v(p, 5, 15, spans, free_values, 3, 4, &count) == LEASEHOLD_OK);
  CHECK(count == 2);
  CHECK(spans[0].begin == 5 && spans[0].end == 10 && values_are(free_values, 32, 512, 0));
  CHECK(spans[1].begin == 10 && spans[1].end == 15 && values_are(free_values + 3, 0, 1024, 4));

  /* Bookings. */
  CHECK(leasehold_profile_find_booking_v(p, 1, &b, v, 3, &found) == LEASEHOLD_OK && found == 1);
  CHECK(b.id == 1 && b.begin == 0 && b.end == 10 && b.amount == 32 && values_are(v, 32, 512, 4));
  CHECK(leasehold_profile_find_booking_v(p, 2, &b, v, 3, &found) == LEASEHOLD_OK && found == 0);
  CHECK(leasehold_profile_book_v(p, 30, 40, nothing, 3, &id) == LEASEHOLD_OK && id == 2);
  CHECK(leasehold_profile_bookings_v(p, NULL, NULL, 3, 0, &count) == LEASEHOLD_BUFFER_TOO_SMALL);
  CHECK(count == 2);
  CHECK(leasehold_profile_bookings_v(p, list, amounts, 3, 2, &count) == LEASEHOLD_OK);
  CHECK(count == 2 && list[0].id == 1 && list[1].id == 2 && list[1].begin == 30);
  CHECK(values_are(amounts, 32, 512, 4) && values_are(amounts + 3, 0, 0, 0));

  /* Bad calls: wrong counts, null arrays, scalar calls, amounts too large in one resource. */
  before = state_of(p);
  CHECK(leasehold_profile_reserve_v(p, 20, 30, booked, 2) == LEASEHOLD_INVALID_REQUEST);
  CHECK_CONTAINS(leasehold_profile_message(p),
                 "reserve_v: 2 values for a profile of 3 resources {cores, memory_mb, gpus}");
  CHECK(leasehold_profile_reserve_v(p, 20, 30, NULL, 0) == LEASEHOLD_INVALID_REQUEST);
  CHECK(leasehold_profile_reserve_v(p, 20, 30, NULL, 3) == LEASEHOLD_NULL_ARGUMENT);
  CHECK_CONTAINS(leasehold_profile_message(p), "null");
  CHECK(leasehold_profile_release_v(p, 10, 20, booked, 4) == LEASEHOLD_INVALID_REQUEST);
  CHECK(leasehold_profile_book_v(p, 20, 30, booked, 1, &id) == LEASEHOLD_INVALID_REQUEST);
  CHECK(leasehold_profile_book_v(p, 20, 30, booked, 3, NULL) == LEASEHOLD_NULL_ARGUMENT);
  CHECK(leasehold_profile_earliest_fit_v(p, booked, 2, 5, 0, 20, &found, &start) ==
        LEASEHOLD_INVALID_REQUEST);
  CHECK(leasehold_profile_free_at_v(p, 5, v, 2) == LEASEHOLD_INVALID_REQUEST);
  CHECK(leasehold_profile_free_at_v(p, 5, NULL, 3) == LEASEHOLD_NULL_ARGUMENT);
  CHECK(leasehold_profile_min_free_v(p, 0, 20, v, 1) == LEASEHOLD_INVALID_REQUEST);
  CHECK(leasehold_profile_total_v(p, v, 2) == LEASEHOLD_INVALID_REQUEST);
  CHECK(leasehold_profile_set_total_v(p, resource_totals, 2) == LEASEHOLD_INVALID_REQUEST);
  CHECK(leasehold_profile_shrink_booking_v(p, 1, booked, 2, &removed) == LEASEHOLD_INVALID_REQUEST);
  CHECK(leasehold_profile_find_booking_v(p, 1, &b, v, 2, &found) == LEASEHOLD_INVALID_REQUEST);
  CHECK(leasehold_profile_find_booking_v(p, 1, &b, NULL, 3, &found) == LEASEHOLD_NULL_ARGUMENT);
  CHECK(leasehold_profile_bookings_v(p, list, amounts, 2, 2, &count) == LEASEHOLD_INVALID_REQUEST);
  CHECK(leasehold_profile_bookings_v(p, list, NULL, 3, 2, &count) == LEASEHOLD_NULL_ARGUMENT);
  CHECK(leasehold_profile_free_blocks_v(p, spans, free_values, 2, 4, &count) ==
        LEASEHOLD_INVALID_REQUEST);
  CHECK(leasehold_profile_free_blocks_v(p, spans, NULL, 3, 4, &count) == LEASEHOLD_NULL_ARGUMENT);
  CHECK(leasehold_profile_blocks_in_v(p, 5, 15, spans, free_values, 4, 4, &count) ==
        LEASEHOLD_INVALID_REQUEST);
  CHECK(leasehold_profile_blocks_in_v(p, 15, 5, spans, free_values, 3, 4, &count) ==
        LEASEHOLD_INVALID_REQUEST);
  CHECK(leasehold_profile_blocks_in_v(p, 5, 15, NULL, free_values, 3, 4, &count) ==
        LEASEHOLD_NULL_ARGUMENT);
  /* The scalar calls name the _v call to use. */
  CHECK(leasehold_profile_reserve(p, 20, 30, 1) == LEASEHOLD_INVALID_REQUEST);
  CHECK_CONTAINS(leasehold_profile_message(p),
                 "reserve: the profile has 3 resources {cores, memory_mb, gpus}: use "
                 "leasehold_profile_reserve_v");
  CHECK(leasehold_profile_release(p, 10, 20, 1) == LEASEHOLD_INVALID_REQUEST);
  CHECK(leasehold_profile_book(p, 20, 30, 1, &id) == LEASEHOLD_INVALID_REQUEST);
  CHECK_CONTAINS(leasehold_profile_message(p), "use leasehold_profile_book_v");
  CHECK(leasehold_profile_shrink_booking(p, 1, 1, &removed) == LEASEHOLD_INVALID_REQUEST);
  CHECK(leasehold_profile_earliest_fit(p, 1, 5, 0, 20, &found, &start) ==
        LEASEHOLD_INVALID_REQUEST);
  CHECK(leasehold_profile_free_at(p, 5, &scalar) == LEASEHOLD_INVALID_REQUEST);
  CHECK_CONTAINS(leasehold_profile_message(p), "use leasehold_profile_free_at_v");
  CHECK(leasehold_profile_min_free(p, 0, 5, &scalar) == LEASEHOLD_INVALID_REQUEST);
  CHECK(leasehold_profile_set_total(p, 100) == LEASEHOLD_INVALID_REQUEST);
  CHECK(leasehold_profile_find_booking(p, 1, &b, &found) == LEASEHOLD_INVALID_REQUEST);
  CHECK(leasehold_profile_bookings(p, list, 2, &count) == LEASEHOLD_INVALID_REQUEST);
  CHECK(leasehold_profile_free_blocks(p, blocks, 4, &count) == LEASEHOLD_INVALID_REQUEST);
  CHECK(leasehold_profile_blocks_in(p, 0, 5, blocks, 4, &count) == LEASEHOLD_INVALID_REQUEST);
  CHECK_CONTAINS(leasehold_profile_message(p), "use leasehold_profile_blocks_in_v");
  /* Amounts and totals checked in every resource. */
  {
    const int64_t too_many_gpus[3] = {1, 1, 5};
    const int64_t negative[3] = {1, -1, 0};
    const int64_t small_cores[3] = {16, 1024, 4};
    const int64_t by_too_much[3] = {33, 0, 0};
    CHECK(leasehold_profile_book_v(p, 20, 30, too_many_gpus, 3, &id) == LEASEHOLD_INVALID_REQUEST);
    CHECK(leasehold_profile_book_v(p, 20, 30, negative, 3, &id) == LEASEHOLD_INVALID_REQUEST);
    CHECK(leasehold_profile_book_v(p, 0, 10, one_each, 3, &id) == LEASEHOLD_INSUFFICIENT_CAPACITY);
    CHECK(leasehold_profile_release_v(p, 10, 20, booked, 3) == LEASEHOLD_INVALID_RELEASE);
    CHECK(leasehold_profile_shrink_booking_v(p, 1, by_too_much, 3, &removed) ==
          LEASEHOLD_INVALID_RELEASE);
    CHECK(leasehold_profile_shrink_booking_v(p, 9, one_each, 3, &removed) ==
          LEASEHOLD_INVALID_RELEASE);
    CHECK(leasehold_profile_set_total_v(p, small_cores, 3) == LEASEHOLD_INSUFFICIENT_CAPACITY);
    CHECK_CONTAINS(leasehold_profile_message(p), "at 0");
  }
  CHECK(leasehold_profile_resource_index(p, "disk", &index) == LEASEHOLD_INVALID_REQUEST);
  CHECK_CONTAINS(leasehold_profile_message(p), "\"disk\"");
  CHECK(leasehold_profile_resource_index(p, NULL, &index) == LEASEHOLD_NULL_ARGUMENT);
  CHECK(leasehold_profile_resource_index(p, "gpus", NULL) == LEASEHOLD_NULL_ARGUMENT);
  CHECK(index == 1);
  CHECK_UNCHANGED(p, before);
  CHECK(leasehold_profile_total_v(p, v, 3) == LEASEHOLD_OK && values_are(v, 64, 1024, 4));

  /* Shrink #1 by its GPUs, then release it; grow the memory. */
  {
    const int64_t gpus[3] = {0, 0, 4};
    const int64_t more_memory[3] = {64, 2048, 4};
    CHECK(leasehold_profile_shrink_booking_v(p, 1, gpus, 3, &removed) == LEASEHOLD_OK &&
          removed == 0);
    CHECK(leasehold_profile_free_at_v(p, 5, v, 3) == LEASEHOLD_OK && values_are(v, 32, 512, 4));
    CHECK(leasehold_profile_set_total_v(p, more_memory, 3) == LEASEHOLD_OK);
    CHECK(leasehold_profile_free_at_v(p, 5, v, 3) == LEASEHOLD_OK && values_are(v, 32, 1536, 4));
    CHECK(leasehold_profile_release_booking(p, 1) == LEASEHOLD_OK);
    CHECK(leasehold_profile_free_at_v(p, 5, v, 3) == LEASEHOLD_OK && values_are(v, 64, 2048, 4));
    CHECK(leasehold_profile_release_v(p, 10, 20, cores_only, 3) == LEASEHOLD_OK);
  }

  /* Copies keep the names; a profile of other names is not equal. */
  CHECK(leasehold_profile_copy(p, &q) == LEASEHOLD_OK && q != NULL);
  if (q != NULL) {
    leasehold_profile* other = NULL;
    static const char* const other_names[] = {"cores", "memory_mb", "licences"};
    const int64_t totals[3] = {64, 2048, 4};
    leasehold_backend_options ring = {10, 40};
    CHECK(leasehold_profile_equal(p, q, &equal) == LEASEHOLD_OK && equal == 1);
    CHECK(strcmp(leasehold_profile_resource_name(q, 1), "memory_mb") == 0);
    CHECK(leasehold_profile_create_multi(backend, 3, other_names, totals, 0, is_ring ? &ring : NULL,
                                         &other) == LEASEHOLD_OK);
    if (other != NULL) {
      CHECK(leasehold_profile_equal(other, q, &equal) == LEASEHOLD_OK && equal == 0);
      /* Assigning a multi profile to a scalar one makes it multi, names and all. */
      CHECK(leasehold_profile_assign(other, q) == LEASEHOLD_OK);
      CHECK(leasehold_profile_equal(other, q, &equal) == LEASEHOLD_OK && equal == 1);
      CHECK(strcmp(leasehold_profile_resource_name(other, 2), "gpus") == 0);
      leasehold_profile_destroy(other);
    }
    leasehold_profile_destroy(q);
  }
  leasehold_profile_destroy(p);
}

/* A scalar profile takes the _v calls with n = 1; a multi profile of one resource takes the
 * scalar calls. */
static void test_one_resource(void) {
  leasehold_profile* p = NULL;
  leasehold_profile* m = NULL;
  static const char* const cores[] = {"cores"};
  const int64_t eight[1] = {8};
  const int64_t three[1] = {3};
  const int64_t two[2] = {2, 2};
  int64_t v[2] = {-1, -1};
  int64_t free = -1;
  size_t index = 99;
  uint64_t id = 0;

  CHECK(leasehold_profile_create("free_tree", 10, 0, NULL, &p) == LEASEHOLD_OK);
  if (p == NULL) return;
  CHECK(leasehold_profile_resource_count(p) == 1);
  CHECK(strcmp(leasehold_profile_resource_name(p, 0), "") == 0);
  CHECK(leasehold_profile_resource_name(p, 1) == NULL);
  CHECK(leasehold_profile_resource_index(p, "cores", &index) == LEASEHOLD_INVALID_REQUEST);
  CHECK_CONTAINS(leasehold_profile_message(p), "no name");
  CHECK(leasehold_profile_reserve_v(p, 0, 10, three, 1) == LEASEHOLD_OK);
  CHECK(leasehold_profile_free_at_v(p, 5, v, 1) == LEASEHOLD_OK && v[0] == 7);
  CHECK(leasehold_profile_book_v(p, 0, 10, three, 1, &id) == LEASEHOLD_OK && id == 1);
  CHECK(leasehold_profile_free_at(p, 5, &free) == LEASEHOLD_OK && free == 4);
  CHECK(leasehold_profile_reserve_v(p, 0, 10, two, 2) == LEASEHOLD_INVALID_REQUEST);
  CHECK_CONTAINS(leasehold_profile_message(p), "2 values for a profile of 1 resource");
  CHECK(leasehold_profile_total_v(p, v, 1) == LEASEHOLD_OK && v[0] == 10);
  leasehold_profile_destroy(p);

  CHECK(leasehold_profile_create_multi("free_list", 1, cores, eight, 0, NULL, &m) == LEASEHOLD_OK);
  if (m == NULL) return;
  CHECK(leasehold_profile_total(m) == 8);
  CHECK(leasehold_profile_reserve(m, 0, 10, 3) == LEASEHOLD_OK);
  CHECK(leasehold_profile_free_at(m, 5, &free) == LEASEHOLD_OK && free == 5);
  CHECK(leasehold_profile_free_at_v(m, 5, v, 1) == LEASEHOLD_OK && v[0] == 5);
  CHECK(leasehold_profile_resource_index(m, "cores", &index) == LEASEHOLD_OK && index == 0);
  leasehold_profile_destroy(m);
}

static void test_create_multi_errors(void) {
  leasehold_profile* p = (leasehold_profile*)&failures; /* must be reset to NULL */
  static const char* const nine[] = {"a", "b", "c", "d", "e", "f", "g", "h", "i"};
  static const char* const twice[] = {"cores", "cores"};
  static const char* const empty[] = {"cores", ""};
  const char* with_null[2];
  const int64_t totals[9] = {1, 1, 1, 1, 1, 1, 1, 1, 1};
  const int64_t negative_memory[3] = {64, -1, 4};
  with_null[0] = "cores";
  with_null[1] = NULL;

  CHECK(leasehold_profile_create_multi("free_tree", 0, resource_names, resource_totals, 0, NULL,
                                       &p) == LEASEHOLD_INVALID_REQUEST);
  CHECK(p == NULL);
  CHECK_CONTAINS(leasehold_create_message(), "0 resources");
  CHECK(leasehold_profile_create_multi("free_tree", 9, nine, totals, 0, NULL, &p) ==
        LEASEHOLD_INVALID_REQUEST);
  CHECK_CONTAINS(leasehold_create_message(), "9 resources");
  CHECK(leasehold_profile_create_multi("free_tree", 2, twice, totals, 0, NULL, &p) ==
        LEASEHOLD_INVALID_REQUEST);
  CHECK_CONTAINS(leasehold_create_message(), "\"cores\" is given twice");
  CHECK(leasehold_profile_create_multi("free_tree", 2, empty, totals, 0, NULL, &p) ==
        LEASEHOLD_INVALID_REQUEST);
  CHECK_CONTAINS(leasehold_create_message(), "empty");
  CHECK(leasehold_profile_create_multi("free_tree", 3, resource_names, negative_memory, 0, NULL,
                                       &p) == LEASEHOLD_INVALID_REQUEST);
  CHECK(leasehold_profile_create_multi("capacity_tree", 3, resource_names, resource_totals, 0, NULL,
                                       &p) == LEASEHOLD_INVALID_REQUEST);
  CHECK_CONTAINS(leasehold_create_message(), "capacity_tree holds one scalar resource");
  CHECK(leasehold_profile_create_multi("slotted_ring", 3, resource_names, resource_totals, 0, NULL,
                                       &p) == LEASEHOLD_INVALID_REQUEST);
  CHECK(leasehold_profile_create_multi("skip_list", 3, resource_names, resource_totals, 0, NULL,
                                       &p) == LEASEHOLD_UNKNOWN_BACKEND);
  CHECK(leasehold_profile_create_multi("free_tree", 2, with_null, totals, 0, NULL, &p) ==
        LEASEHOLD_NULL_ARGUMENT);
  CHECK(leasehold_profile_create_multi("free_tree", 3, NULL, resource_totals, 0, NULL, &p) ==
        LEASEHOLD_NULL_ARGUMENT);
  CHECK(leasehold_profile_create_multi("free_tree", 3, resource_names, NULL, 0, NULL, &p) ==
        LEASEHOLD_NULL_ARGUMENT);
  CHECK(leasehold_profile_create_multi(NULL, 3, resource_names, resource_totals, 0, NULL, &p) ==
        LEASEHOLD_NULL_ARGUMENT);
  CHECK(leasehold_profile_create_multi("free_tree", 3, resource_names, resource_totals, 0, NULL,
                                       NULL) == LEASEHOLD_NULL_ARGUMENT);
  CHECK(p == NULL);
}

int main(void) {
  static const char* const backends[] = {"free_list", "free_tree", "capacity_tree", "reference",
                                         "slotted_ring"};
  size_t i;
  size_t n = sizeof backends / sizeof backends[0];
  for (i = 0; i < n; ++i) {
    test_bookings(backends[i]);
    test_plan_end(backends[i]);
    test_copy_assign_equal(backends[i], backends[(i + 1) % n]);
    test_walk_and_total(backends[i]);
    if (strcmp(backends[i], "capacity_tree") != 0) test_multi(backends[i]);
  }
  test_one_resource();
  test_create_multi_errors();
  if (failures != 0) {
    fprintf(stderr, "%d checks failed\n", failures);
    return EXIT_FAILURE;
  }
  printf("leasehold C API, embedder calls: all checks passed\n");
  return EXIT_SUCCESS;
}
