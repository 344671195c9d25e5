// Builds against the installed drop-in as a Flux user would: 10 cores over [0, 100), 6 booked
// over [0, 10); 5 cores for 5 ticks are first free at 10, where the span ends.
#include <cstdio>

#include "planner.h"

int main() {
  planner_t* p = planner_new(0, 100, 10, "core");
  if (p == nullptr || planner_add_span(p, 0, 10, 6) != 1) return 1;
  const long long at = planner_avail_time_first(p, 0, 5, 5);
  planner_destroy(&p);
  std::printf("earliest start at %lld\n", at);
  return at == 10 ? 0 : 1;
}
