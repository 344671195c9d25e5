/* C99 test of the C API (include/leasehold/c/leasehold.h), compiled as C with -std=c99
 * -pedantic -Werror. Expectations are hand-computed; every failed call is checked to leave
 * the profile's blocks unchanged. */
#include "c_check.h"

/* One profile of 10 units from time 0; the slotted ring uses slots of 10 over [0, 400). */
static void test_profile(const char* backend) {
  leasehold_backend_options ring = {10, 40};
  leasehold_profile* p = NULL;
  int found = -1;
  int64_t start = -1;
  int64_t free = -1;
  int is_ring = strcmp(backend, "slotted_ring") == 0;
  int64_t horizon_end = is_ring ? 400 : LEASEHOLD_TIME_MAX;
  snapshot before;
  snapshot after;
  size_t count = 0;

  CHECK(leasehold_profile_create(backend, 10, 0, is_ring ? &ring : NULL, &p) == LEASEHOLD_OK);
  if (p == NULL) return;
  CHECK(strcmp(leasehold_profile_backend(p), backend) == 0);
  CHECK(leasehold_profile_total(p) == 10);
  CHECK(leasehold_profile_origin(p) == 0);
  CHECK(strcmp(leasehold_profile_message(p), "") == 0);

  /* 6 booked over [0, 10): 4 free there, 10 after. */
  CHECK(leasehold_profile_reserve(p, 0, 10, 6) == LEASEHOLD_OK);
  CHECK(leasehold_profile_free_at(p, 5, &free) == LEASEHOLD_OK && free == 4);
  CHECK(leasehold_profile_free_at(p, 10, &free) == LEASEHOLD_OK && free == 10);
  CHECK(leasehold_profile_earliest_fit(p, 4, 5, LEASEHOLD_TIME_MIN, LEASEHOLD_TIME_MAX, &found,
                                       &start) == LEASEHOLD_OK);
  CHECK(found == 1 && start == 0);
  CHECK(leasehold_profile_earliest_fit(p, 5, 5, 0, LEASEHOLD_TIME_MAX, &found, &start) ==
        LEASEHOLD_OK);
  CHECK(found == 1 && start == 10);

  /* All 10 booked over [20, 30): a 15-long run of 5 must wait until 30. */
  CHECK(leasehold_profile_reserve(p, 20, 30, 10) == LEASEHOLD_OK);
  CHECK(leasehold_profile_earliest_fit(p, 5, 15, 0, LEASEHOLD_TIME_MAX, &found, &start) ==
        LEASEHOLD_OK);
  CHECK(found == 1 && start == 30);
  CHECK(leasehold_profile_min_free(p, 0, 40, &free) == LEASEHOLD_OK && free == 0);
  /* A window that ends before 30 + 15 has no fit. */
  CHECK(leasehold_profile_earliest_fit(p, 5, 15, 0, 40, &found, &start) == LEASEHOLD_OK);
  CHECK(found == 0);

  /* Blocks: [0,10) 4, [10,20) 10, [20,30) 0, [30, end) 10; the size query first. */
  CHECK(leasehold_profile_free_blocks(p, NULL, 0, &count) == LEASEHOLD_BUFFER_TOO_SMALL);
  CHECK(count == 4);
  CHECK_CONTAINS(leasehold_profile_message(p), "4 blocks do not fit in a buffer of 0");
  before = take(p);
  CHECK(before.count == 4);
  CHECK(before.blocks[0].begin == 0 && before.blocks[0].end == 10 && before.blocks[0].free == 4);
  CHECK(before.blocks[1].begin == 10 && before.blocks[1].end == 20 && before.blocks[1].free == 10);
  CHECK(before.blocks[2].begin == 20 && before.blocks[2].end == 30 && before.blocks[2].free == 0);
  CHECK(before.blocks[3].begin == 30 && before.blocks[3].end == horizon_end &&
        before.blocks[3].free == 10);

  /* Errors: each names the values, returns its code, and changes nothing. */
  CHECK(leasehold_profile_reserve(p, 0, 10, 5) == LEASEHOLD_INSUFFICIENT_CAPACITY);
  CHECK_CONTAINS(leasehold_profile_message(p), "[0, 10)");
  after = take(p);
  CHECK(same(&before, &after));

  CHECK(leasehold_profile_release(p, 0, 20, 6) == LEASEHOLD_INVALID_RELEASE);
  CHECK_CONTAINS(leasehold_profile_message(p), "[0, 20)");
  after = take(p);
  CHECK(same(&before, &after));

  CHECK(leasehold_profile_reserve(p, 120, 80, 1) == LEASEHOLD_INVALID_REQUEST);
  CHECK_CONTAINS(leasehold_profile_message(p), "[120, 80)");
  after = take(p);
  CHECK(same(&before, &after));

  CHECK(leasehold_profile_earliest_fit(p, 11, 5, 0, LEASEHOLD_TIME_MAX, &found, &start) ==
        LEASEHOLD_INVALID_REQUEST);
  CHECK_CONTAINS(leasehold_profile_message(p), "11");

  CHECK(leasehold_profile_free_at(p, 5, NULL) == LEASEHOLD_NULL_ARGUMENT);
  CHECK_CONTAINS(leasehold_profile_message(p), "null");

  if (is_ring) {
    CHECK(leasehold_profile_free_at(p, 400, &free) == LEASEHOLD_OUT_OF_HORIZON);
    CHECK_CONTAINS(leasehold_profile_message(p), "free_at(400)");
  }

  /* Release and advance: back to 10 free from 10 on. */
  CHECK(leasehold_profile_release(p, 20, 30, 10) == LEASEHOLD_OK);
  CHECK(leasehold_profile_advance(p, 10) == LEASEHOLD_OK);
  CHECK(leasehold_profile_origin(p) == 10);
  CHECK(leasehold_profile_advance(p, 5) == LEASEHOLD_INVALID_REQUEST);
  CHECK(leasehold_profile_origin(p) == 10);
  after = take(p);
  CHECK(after.count == 1 && after.blocks[0].begin == 10 && after.blocks[0].free == 10);

  leasehold_profile_destroy(p);
}

static void test_create_errors(void) {
  leasehold_profile* p = (leasehold_profile*)&failures; /* must be reset to NULL */
  leasehold_backend_options zero_width = {0, 4};
  CHECK(leasehold_profile_create("skip_list", 10, 0, NULL, &p) == LEASEHOLD_UNKNOWN_BACKEND);
  CHECK(p == NULL);
  CHECK_CONTAINS(leasehold_create_message(), "unknown backend \"skip_list\"");
  CHECK(leasehold_profile_create("free_list", 0, 0, NULL, &p) == LEASEHOLD_INVALID_REQUEST);
  CHECK(p == NULL);
  CHECK_CONTAINS(leasehold_create_message(), "0");
  CHECK(leasehold_profile_create("slotted_ring", 10, 0, NULL, &p) == LEASEHOLD_INVALID_REQUEST);
  CHECK_CONTAINS(leasehold_create_message(), "slot width and a slot count");
  CHECK(leasehold_profile_create("slotted_ring", 10, 0, &zero_width, &p) ==
        LEASEHOLD_INVALID_REQUEST);
  CHECK_CONTAINS(leasehold_create_message(), "slot width 0 must be positive");
  CHECK(leasehold_profile_create(NULL, 10, 0, NULL, &p) == LEASEHOLD_NULL_ARGUMENT);
  CHECK(leasehold_profile_create("free_list", 10, 0, NULL, NULL) == LEASEHOLD_NULL_ARGUMENT);
  CHECK(leasehold_profile_reserve(NULL, 0, 1, 1) == LEASEHOLD_NULL_ARGUMENT);
  CHECK(strcmp(leasehold_profile_message(NULL), "") == 0);
  CHECK(strcmp(leasehold_status_name(LEASEHOLD_INSUFFICIENT_CAPACITY), "insufficient capacity") ==
        0);
  leasehold_profile_destroy(NULL);
}

/* Three nodes of 4 units; node 0 fully booked over [0, 10). */
static void test_slot_table(const char* backend) {
  leasehold_backend_options ring = {5, 40};
  leasehold_slot_table* t = NULL;
  int is_ring = strcmp(backend, "slotted_ring") == 0;
  size_t ids[3] = {99, 99, 99};
  size_t node0 = 0;
  size_t bad[2] = {1, 7};
  int found = -1;
  int64_t start = -1;
  int64_t free = -1;
  size_t count = 0;
  leasehold_free_block blocks[4];

  CHECK(leasehold_slot_table_create(backend, 3, 4, 0, is_ring ? &ring : NULL, &t) == LEASEHOLD_OK);
  if (t == NULL) return;
  CHECK(leasehold_slot_table_node_count(t) == 3);
  CHECK(leasehold_slot_table_reserve(t, 0, 10, 4, &node0, 1) == LEASEHOLD_OK);

  /* Two nodes of 3 fit at once, on nodes 1 and 2. */
  CHECK(leasehold_slot_table_earliest_fit(t, 2, 3, 5, 0, LEASEHOLD_TIME_MAX, &found, &start, ids) ==
        LEASEHOLD_OK);
  CHECK(found == 1 && start == 0 && ids[0] == 1 && ids[1] == 2);
  /* Three nodes must wait for node 0 at 10. */
  CHECK(leasehold_slot_table_earliest_fit(t, 3, 3, 5, 0, LEASEHOLD_TIME_MAX, &found, &start, ids) ==
        LEASEHOLD_OK);
  CHECK(found == 1 && start == 10 && ids[0] == 0 && ids[1] == 1 && ids[2] == 2);

  /* A node id out of range: refused, and node 1 is not booked either. */
  CHECK(leasehold_slot_table_reserve(t, 0, 10, 1, bad, 2) == LEASEHOLD_INVALID_REQUEST);
  CHECK_CONTAINS(leasehold_slot_table_message(t), "7");
  CHECK(leasehold_slot_table_free_at(t, 1, 0, &free) == LEASEHOLD_OK && free == 4);
  CHECK(leasehold_slot_table_reserve(t, 0, 10, 1, &node0, 1) == LEASEHOLD_INSUFFICIENT_CAPACITY);
  CHECK(leasehold_slot_table_release(t, 0, 10, 1, ids + 1, 1) == LEASEHOLD_INVALID_RELEASE);
  CHECK(leasehold_slot_table_free_at(t, 3, 0, &free) == LEASEHOLD_INVALID_REQUEST);

  CHECK(leasehold_slot_table_free_blocks(t, 0, blocks, 4, &count) == LEASEHOLD_OK);
  CHECK(count == 2 && blocks[0].begin == 0 && blocks[0].end == 10 && blocks[0].free == 0 &&
        blocks[1].begin == 10 && blocks[1].free == 4);

  CHECK(leasehold_slot_table_release(t, 0, 10, 4, &node0, 1) == LEASEHOLD_OK);
  CHECK(leasehold_slot_table_advance(t, 5) == LEASEHOLD_OK);
  CHECK(leasehold_slot_table_origin(t) == 5);
  CHECK(leasehold_slot_table_free_at(t, 0, 5, &free) == LEASEHOLD_OK && free == 4);
  leasehold_slot_table_destroy(t);
}

/* memory_usage and compact: 2,000 bookings grow the profile, releasing all but 5 of them
 * leaves 10 blocks, and compact then keeps the blocks and answers while free_tree gives back
 * the room its pools kept (the other backends have nothing to lay out afresh). */
static void test_memory_and_compact(const char* backend) {
  leasehold_profile* p = NULL;
  size_t empty = 0;
  size_t grown = 0;
  size_t shrunk = 0;
  size_t compacted = 0;
  int found = -1;
  int64_t start = -1;
  int64_t i;
  snapshot before;
  snapshot after;

  CHECK(leasehold_profile_create(backend, 10, 0, NULL, &p) == LEASEHOLD_OK);
  if (p == NULL) return;
  CHECK(leasehold_profile_memory_usage(p, &empty) == LEASEHOLD_OK && empty > 0);
  for (i = 0; i < 2000; ++i)
    CHECK(leasehold_profile_reserve(p, 3 * i, 3 * i + 1, 1) == LEASEHOLD_OK);
  CHECK(leasehold_profile_memory_usage(p, &grown) == LEASEHOLD_OK && grown > empty);
  for (i = 5; i < 2000; ++i)
    CHECK(leasehold_profile_release(p, 3 * i, 3 * i + 1, 1) == LEASEHOLD_OK);
  CHECK(leasehold_profile_memory_usage(p, &shrunk) == LEASEHOLD_OK);
  before = take(p);
  CHECK(before.count == 10);

  CHECK(leasehold_profile_compact(p) == LEASEHOLD_OK);
  after = take(p);
  CHECK(same(&before, &after));
  CHECK(leasehold_profile_memory_usage(p, &compacted) == LEASEHOLD_OK);
  if (strcmp(backend, "free_tree") == 0)
    CHECK(compacted * 4 < shrunk);
  else
    CHECK(compacted == shrunk);
  /* [0, 1), [3, 4), ... [12, 13) hold 9 free; 10 free for 5 units first begins at 13. */
  CHECK(leasehold_profile_earliest_fit(p, 10, 5, 0, LEASEHOLD_TIME_MAX, &found, &start) ==
        LEASEHOLD_OK);
  CHECK(found == 1 && start == 13);
  CHECK(leasehold_profile_earliest_fit(p, 10, 2, 0, LEASEHOLD_TIME_MAX, &found, &start) ==
        LEASEHOLD_OK);
  CHECK(found == 1 && start == 1);

  CHECK(leasehold_profile_memory_usage(p, NULL) == LEASEHOLD_NULL_ARGUMENT);
  CHECK_CONTAINS(leasehold_profile_message(p), "null");
  CHECK(leasehold_profile_memory_usage(NULL, &compacted) == LEASEHOLD_NULL_ARGUMENT);
  CHECK(leasehold_profile_compact(NULL) == LEASEHOLD_NULL_ARGUMENT);
  leasehold_profile_destroy(p);
}

int main(void) {
  static const char* const backends[] = {"free_list", "free_tree", "capacity_tree", "reference",
                                         "slotted_ring"};
  size_t i;
  for (i = 0; i < sizeof backends / sizeof backends[0]; ++i) {
    test_profile(backends[i]);
    test_slot_table(backends[i]);
    if (strcmp(backends[i], "slotted_ring") != 0) test_memory_and_compact(backends[i]);
  }
  test_create_errors();
  if (failures != 0) {
    fprintf(stderr, "%d checks failed\n", failures);
    return EXIT_FAILURE;
  }
  printf("leasehold C API: all checks passed\n");
  return EXIT_SUCCESS;
}
