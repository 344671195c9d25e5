/* Builds against the installed header and library: a free_tree profile of 10 units with 6
 * booked over [0, 10) fits 5 units for 5 ticks first at 10. */
#include <leasehold/c/leasehold.h>
#include <stdio.h>

int main(void) {
  leasehold_profile* p = NULL;
  int found = 0;
  int64_t start = -1;
  if (leasehold_profile_create("free_tree", 10, 0, NULL, &p) != LEASEHOLD_OK) return 1;
  if (leasehold_profile_reserve(p, 0, 10, 6) != LEASEHOLD_OK) return 1;
  if (leasehold_profile_earliest_fit(p, 5, 5, 0, LEASEHOLD_TIME_MAX, &found, &start) !=
      LEASEHOLD_OK)
    return 1;
  leasehold_profile_destroy(p);
  printf("earliest fit at %lld\n", (long long)start);
  return found == 1 && start == 10 ? 0 : 1;
}
