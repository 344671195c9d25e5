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

static int same_ledger(const ledger* a, const ledger* b) {
  size_t i;
  if (a->count != b->count) return 0;
  for (i = 0; i < a->count; ++i)
    if (a->bookings[i].id != b->bookings[i].id || a->bookings[i].begin != b->bookings[i].begin ||
        a->bookings[i].end != b->bookings[i].end || a->bookings[i].amount != b->bookings[i].amount)
      return 0;
  return 1;
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

/* Everything a failed call must leave alone. */
typedef struct state {
  snapshot blocks;
  ledger bookings;
  uint64_t next_id;
} state;

static state state_of(leasehold_profile* p) {
  state s;
  s.blocks = take(p);
  s.bookings = ledger_of(p);
  CHECK(leasehold_profile_next_booking_id(p, &s.next_id) == LEASEHOLD_OK);
  return s;
}

static int same_state(const state* a, const state* b) {
  return same(&a->blocks, &b->blocks) && same_ledger(&a->bookings, &b->bookings) &&
         a->next_id == b->next_id;
}

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
  CHECK_CONTAINS(leasehold_profile_message(p), "3 do not fit in a buffer of 0");
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

int main(void) {
  static const char* const backends[] = {"free_list", "free_tree", "capacity_tree", "reference",
                                         "slotted_ring"};
  size_t i;
  size_t n = sizeof backends / sizeof backends[0];
  for (i = 0; i < n; ++i) {
    test_bookings(backends[i]);
    test_plan_end(backends[i]);
    test_copy_assign_equal(backends[i], backends[(i + 1) % n]);
  }
  if (failures != 0) {
    fprintf(stderr, "%d checks failed\n", failures);
    return EXIT_FAILURE;
  }
  printf("leasehold C API, embedder calls: all checks passed\n");
  return EXIT_SUCCESS;
}
