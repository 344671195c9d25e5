/* Shared by the C API tests (strict C99): CHECK macros that count failures, and a snapshot of a
 * profile's blocks to check that a failed call changed nothing. */
#ifndef LEASEHOLD_TESTS_C_CHECK_H
#define LEASEHOLD_TESTS_C_CHECK_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "leasehold/c/leasehold.h"

static int failures = 0;

#define CHECK(condition)                                                            \
  do {                                                                              \
    if (!(condition)) {                                                             \
      fprintf(stderr, "%s:%d: CHECK failed: %s\n", __FILE__, __LINE__, #condition); \
      ++failures;                                                                   \
    }                                                                               \
  } while (0)

#define CHECK_CONTAINS(text, part)                                                           \
  do {                                                                                       \
    if (strstr((text), (part)) == NULL) {                                                    \
      fprintf(stderr, "%s:%d: \"%s\" does not contain \"%s\"\n", __FILE__, __LINE__, (text), \
              (part));                                                                       \
      ++failures;                                                                            \
    }                                                                                        \
  } while (0)

#define MAX_BLOCKS 16

typedef struct snapshot {
  size_t count;
  leasehold_free_block blocks[MAX_BLOCKS];
} snapshot;

static inline snapshot take(leasehold_profile* p) {
  snapshot s;
  memset(&s, 0, sizeof s);
  CHECK(leasehold_profile_free_blocks(p, s.blocks, MAX_BLOCKS, &s.count) == LEASEHOLD_OK);
  return s;
}

static inline int same(const snapshot* a, const snapshot* b) {
  size_t i;
  if (a->count != b->count) return 0;
  for (i = 0; i < a->count; ++i)
    if (a->blocks[i].begin != b->blocks[i].begin || a->blocks[i].end != b->blocks[i].end ||
        a->blocks[i].free != b->blocks[i].free)
      return 0;
  return 1;
}

#endif /* LEASEHOLD_TESTS_C_CHECK_H */
