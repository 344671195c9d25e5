// leasehold's drop-in for Flux's multi-type planner (flux-sched's
// resource/planner/c/planner_multi.h): one planner_t per resource type, planned together. Same
// names and signatures as Flux's; C linkage in a C++ header (reduce_span takes a `bool &`).
#ifndef LEASEHOLD_FLUX_PLANNER_MULTI_H
#define LEASEHOLD_FLUX_PLANNER_MULTI_H

#include "planner.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct planner_multi_t planner_multi_t;

planner_multi_t* planner_multi_new(int64_t base_time, uint64_t duration,
                                   const uint64_t* resource_totals, const char** resource_types,
                                   size_t len);
planner_multi_t* planner_multi_empty();
planner_multi_t* planner_multi_copy(planner_multi_t* mp);
void planner_multi_assign(planner_multi_t* lhs, planner_multi_t* rhs);

int64_t planner_multi_base_time(planner_multi_t* ctx);
int64_t planner_multi_duration(planner_multi_t* ctx);
size_t planner_multi_resources_len(planner_multi_t* ctx);
const char* planner_multi_resource_type_at(planner_multi_t* ctx, unsigned int i);
const uint64_t* planner_multi_resource_totals(planner_multi_t* ctx);
int64_t planner_multi_resource_total_at(planner_multi_t* ctx, unsigned int i);
int64_t planner_multi_resource_total_by_type(planner_multi_t* ctx, const char* resource_type);

int planner_multi_reset(planner_multi_t* ctx, int64_t base_time, uint64_t duration);
void planner_multi_destroy(planner_multi_t** ctx_p);

// The planner of the i-th resource type: a planner_t the planner_* calls accept.
planner_t* planner_multi_planner_at(planner_multi_t* ctx, unsigned int i);

// The earliest scheduled point of the first type's planner at or after on_or_after where every
// type's request is free for `duration`; then the next one.
int64_t planner_multi_avail_time_first(planner_multi_t* ctx, int64_t on_or_after, uint64_t duration,
                                       const uint64_t* resource_requests, size_t len);
int64_t planner_multi_avail_time_next(planner_multi_t* ctx);

int64_t planner_multi_avail_resources_at(planner_multi_t* ctx, int64_t at, unsigned int i);
int planner_multi_avail_resources_array_at(planner_multi_t* ctx, int64_t at,
                                           int64_t* resource_counts, size_t len);
int planner_multi_avail_during(planner_multi_t* ctx, int64_t at, uint64_t duration,
                               const uint64_t* resource_requests, size_t len);
int planner_multi_avail_resources_array_during(planner_multi_t* ctx, int64_t at, uint64_t duration,
                                               int64_t* resource_counts, size_t len);

// Multi-type spans: ids count up from 0; each holds one span in every type's planner.
int64_t planner_multi_add_span(planner_multi_t* ctx, int64_t start_time, uint64_t duration,
                               const uint64_t* resource_requests, size_t len);
int planner_multi_rem_span(planner_multi_t* ctx, int64_t span_id);
int planner_multi_reduce_span(planner_multi_t* ctx, int64_t span_id, const uint64_t* reduced_totals,
                              const char** resource_types, size_t len, bool& removed);
int64_t planner_multi_span_planned_at(planner_multi_t* ctx, int64_t span_id, unsigned int i);

int64_t planner_multi_span_first(planner_multi_t* ctx);
int64_t planner_multi_span_next(planner_multi_t* ctx);
size_t planner_multi_span_size(planner_multi_t* ctx);

bool planner_multis_equal(planner_multi_t* lhs, planner_multi_t* rhs);

// New totals by type name: unknown types are added, missing ones dropped, the order follows
// resource_types.
int planner_multi_update(planner_multi_t* ctx, const uint64_t* resource_totals,
                         const char** resource_types, size_t len);

#ifdef __cplusplus
}
#endif

#endif  // LEASEHOLD_FLUX_PLANNER_MULTI_H
