// leasehold's drop-in for the Flux resource manager's planner (flux-sched's
// resource/planner/c/planner.h): the same functions, with the same names and signatures, so a
// program written against Flux's planner links against libleasehold_flux_planner.a unchanged.
// The semantics are Flux's documented ones; docs/embedding.md says how each call maps onto
// leasehold and where the two differ. C linkage, but a C++ header: the reduce_span calls take
// a `bool &`, as Flux's do.
#ifndef LEASEHOLD_FLUX_PLANNER_H
#define LEASEHOLD_FLUX_PLANNER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

// One resource type planned over [base_time, base_time + duration). Opaque.
typedef struct planner_t planner_t;

// Construction, copy, reset, destruction. NULL / -1 with errno on a bad argument (EINVAL), a
// total above INT64_MAX (ERANGE) or no memory (ENOMEM).
planner_t* planner_new(int64_t base_time, uint64_t duration, uint64_t resource_total,
                       const char* resource_type);
planner_t* planner_new_empty();
planner_t* planner_copy(planner_t* p);
void planner_assign(planner_t* lhs, planner_t* rhs);
int planner_reset(planner_t* ctx, int64_t base_time, uint64_t duration);
void planner_destroy(planner_t** ctx_p);

// Getters: -1 (NULL) with errno EINVAL for a null planner.
int64_t planner_base_time(planner_t* ctx);
int64_t planner_duration(planner_t* ctx);
int64_t planner_resource_total(planner_t* ctx);
const char* planner_resource_type(planner_t* ctx);

// The earliest scheduled point (the base time, or a time where a span begins or ends) at or
// after on_or_after where `request` units are free for `duration`, inside the plan; then the
// next such point after the last answer. -1 with errno EINVAL, ERANGE (request above the total)
// or ENOENT (no such point).
int64_t planner_avail_time_first(planner_t* ctx, int64_t on_or_after, uint64_t duration,
                                 uint64_t request);
int64_t planner_avail_time_next(planner_t* ctx);

// Queries of an arbitrary time span or instant.
int planner_avail_during(planner_t* ctx, int64_t at, uint64_t duration, uint64_t request);
int64_t planner_avail_resources_during(planner_t* ctx, int64_t at, uint64_t duration);
int64_t planner_avail_resources_at(planner_t* ctx, int64_t at);

// Spans: planned resources with an id (counting up from 1 after a reset).
int64_t planner_add_span(planner_t* ctx, int64_t start_time, uint64_t duration, uint64_t request);
int planner_rem_span(planner_t* ctx, int64_t span_id);
int planner_reduce_span(planner_t* ctx, int64_t span_id, int64_t to_remove, bool& removed);

// Span iteration in id order, and the spans' fields. -1 with errno EINVAL at the end or for an
// unknown span.
int64_t planner_span_first(planner_t* ctx);
int64_t planner_span_next(planner_t* ctx);
size_t planner_span_size(planner_t* ctx);
bool planner_is_active_span(planner_t* ctx, int64_t span_id);
int64_t planner_span_start_time(planner_t* ctx, int64_t span_id);
int64_t planner_span_duration(planner_t* ctx, int64_t span_id);
int64_t planner_span_resource_count(planner_t* ctx, int64_t span_id);

// Same bounds, total, type, spans, free capacity and iteration state.
bool planners_equal(planner_t* lhs, planner_t* rhs);

// A new total for the resource type (elasticity).
int planner_update_total(planner_t* ctx, uint64_t resource_total);

#ifdef __cplusplus
}
#endif

#endif  // LEASEHOLD_FLUX_PLANNER_H
