/*
 * state_results.h - one-result allocations for the state tests (test_state_rows.c,
 * test_fast_words.c): a result of driver "drv", request "r", naming a pool, a device and the
 * model row (dra_result_t.row numbering), and its commit or release as a one-result allocation.
 * Test code only; the strings are the caller's (static literals in these tests).
 */
#ifndef DRA_ALLOC_TESTS_STATE_RESULTS_H
#define DRA_ALLOC_TESTS_STATE_RESULTS_H

#include <stdbool.h>
#include <string.h>

#include "alloc/alloc.h"

static inline dra_result_t res(const char *pool, const char *dev, uint32_t row)
{
    dra_result_t r;
    memset(&r, 0, sizeof r);
    r.request = "r";
    r.driver = "drv";
    r.pool = pool;
    r.device = dev;
    r.row = row;
    return r;
}

/* Commit (rel false) or release (rel true) r alone: the state's return code. */
static inline int commit1(dra_alloc_state_t *s, dra_result_t r, bool rel)
{
    dra_allocation_t a;
    memset(&a, 0, sizeof a);
    a.results = &r;
    a.nresults = 1;
    return rel ? dra_alloc_state_release(s, &a) : dra_alloc_state_commit(s, &a);
}

#endif
