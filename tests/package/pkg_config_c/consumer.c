/* Built with a plain C compiler and pkg-config alone (no CMake):
 *   cc consumer.c $(pkg-config --cflags --libs leasehold_c)
 * A free_tree profile of 10 units: booking #1 holds 6 over [0, 10), so 5 units for 5 ticks
 * first fit at 10; once #1 is released they fit at 0. */
#include <leasehold/c/leasehold.h>
#include <stdio.h>

int main(void) {
  leasehold_profile* p = NULL;
  uint64_t id = 0;
  int found = 0;
  int64_t busy = -1;
  int64_t idle = -1;
  if (leasehold_profile_create("free_tree", 10, 0, NULL, &p) != LEASEHOLD_OK) return 1;
  if (leasehold_profile_book(p, 0, 10, 6, &id) != LEASEHOLD_OK || id != 1) return 1;
  if (leasehold_profile_earliest_fit(p, 5, 5, 0, LEASEHOLD_TIME_MAX, &found, &busy) !=
          LEASEHOLD_OK ||
      found != 1)
    return 1;
  if (leasehold_profile_release_booking(p, id) != LEASEHOLD_OK) return 1;
  if (leasehold_profile_earliest_fit(p, 5, 5, 0, LEASEHOLD_TIME_MAX, &found, &idle) !=
          LEASEHOLD_OK ||
      found != 1)
    return 1;
  leasehold_profile_destroy(p);
  printf("earliest fit at %lld, then at %lld once booking #1 is released\n", (long long)busy,
         (long long)idle);
  return busy == 10 && idle == 0 ? 0 : 1;
}
