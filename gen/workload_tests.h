/*
 * workload_tests.h - internals of workload.c that tests call (HdrHistogram's hdr_tests.h idea):
 * not part of the generator's API, included only by workload.c and gen/tests.
 */
#ifndef DRA_GEN_WORKLOAD_TESTS_H
#define DRA_GEN_WORKLOAD_TESTS_H

#include "gen/rng.h"
#include "gen/workload.h"

/* One draw from d with r: the constant a, exponential with mean a, or uniform in [a, b). */
double dra_dist_draw(const dra_dist_t *d, dra_rng_t *r);

#endif /* DRA_GEN_WORKLOAD_TESTS_H */
