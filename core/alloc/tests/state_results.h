/*
 * state_results.h - one-result allocations for the state tests (test_state_rows.c,
 * test_fast_words.c): a result of driver "drv", request "r", naming a pool, a device and the
 * model row (dra_result_t.row numbering), and its commit or release as a one-result allocation;
 * and the slices their models are built of. The caller includes check.h first.
 * Test code only; the strings are the caller's (static literals in these tests).
 */
#ifndef DRA_ALLOC_TESTS_STATE_RESULTS_H
#define DRA_ALLOC_TESTS_STATE_RESULTS_H

#include <stdbool.h>
#include <stdio.h>
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

/* Slice "slice-<i>" of driver "drv" on node-1 in pool (copied into m), its ndev devices named
 * dev-<first>, dev-<first + 1>, ...; done (dra_model_slice_done). */
static inline void add_slice(dra_model_t *m, uint32_t i, const char *pool, uint32_t ndev,
                             uint32_t first)
{
    dra_slice_t *s = dra_model_add_slice(m);
    CHECK(s != NULL);
    if (!s)
        return;
    char nm[32];
    snprintf(nm, sizeof nm, "slice-%u", i);
    s->name = dra_model_str(m, nm);
    s->driver = "drv";
    s->pool_name = dra_model_str(m, pool);
    s->node_name = "node-1";
    s->ndevices = ndev;
    s->devices = dra_model_array(m, s->ndevices, sizeof(dra_device_t));
    for (uint32_t d = 0; d < s->ndevices; d++) {
        snprintf(nm, sizeof nm, "dev-%u", first + d);
        s->devices[d].name = dra_model_str(m, nm);
    }
    dra_model_slice_done(m, s);
}

#endif
