/*
 * conformance_tests.h - the test hook of the differential pair (conformance.h), HdrHistogram's
 * hdr_tests.h idea: not part of the API, included only by conformance.c and the tests that force
 * a decision difference to see `alloc --allocator both` report it.
 */
#ifndef DRA_CONFORMANCE_TESTS_H
#define DRA_CONFORMANCE_TESTS_H

#include <stdint.h>

#include "alloc/alloc.h"

/* When set, called by dra_conf_pair_allocate with the number of the decision (1 for the first,
 * as dra_conf_pair_t.decisions counts them) and the fast allocator's outcome, after both allocators ran and before the two are compared; it may
 * change the outcome (which the pair then commits to the fast allocator's state when it is
 * allocated: change only what the comparison sees, such as a device name or the kind). NULL in
 * production; one predictable branch per compared decision, outside the allocate calls' timing. */
extern void (*dra_conf_test_perturb)(uint64_t decision, dra_alloc_outcome_t *fast);

#endif /* DRA_CONFORMANCE_TESTS_H */
