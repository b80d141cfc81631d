/*
 * invariants.h - correctness oracle for allocation results (DRA-SEMANTICS §7.5), used by unit
 * tests, fuzzers, `drabench alloc --test` and the runner.
 *
 * Given the state before an Allocate call and the allocations it returned for claims on a node,
 * it checks, independently of any allocator:
 *  - every result names a device that exists on a complete, valid pool and is selectable for its
 *    request or chosen subrequest (class and request CEL, node scope, binding-condition gate);
 *  - no device twice (across claims and already-allocated ones) unless it is multi-allocatable
 *    or adminAccess allows it; never twice within one claim unless multi-allocatable;
 *  - each request got exactly `count` devices, or for All exactly the selectable devices of the
 *    node (at least one); at most 32 results per claim; each request answered by one alternative;
 *  - matchAttribute / distinctAttribute hold over the final set;
 *  - counters of each pool stay within their totals because of the new allocations;
 *  - consumed capacity (existing + new) within each device's value, policy respected;
 *  - every NoSchedule / NoExecute taint tolerated (DRADeviceTaints on);
 *  - the node selector matches the node and follows DRA-SEMANTICS §2.14.
 *
 * Ownership: nothing retained (dra_inv_check_in: the caller's scratch, left reset); the report
 * is caller-owned. Cost: O(results x devices) plus CEL evaluations through the cache. Not
 * thread-safe (the CEL cache is not).
 */
#ifndef DRA_ALLOC_INVARIANTS_H
#define DRA_ALLOC_INVARIANTS_H

#include <stdint.h>

#include "alloc/alloc.h"

#define DRA_INV_KEEP 4 /* descriptions kept */

typedef struct dra_inv_report {
    uint32_t nviolations;
    uint32_t nkept;
    char first[DRA_INV_KEEP][256]; /* descriptions of the first violations */
} dra_inv_report_t;

/* Check allocs[i] (the allocation of claims[i]) against the state before the call. Returns
 * DRA_OK when the check ran (violations are in the report), DRA_ENOMEM otherwise. */
DRA_NODISCARD int dra_inv_check(const dra_model_t *m, const dra_alloc_features_t *f,
                                const dra_alloc_state_t *before, dra_cel_cache_t *cel,
                                const dra_node_t *node, dra_claim_t *const *claims,
                                dra_allocation_t *const *allocs, uint32_t n, dra_inv_report_t *out);

/* The memory checks work in, kept by a caller that checks many allocations (the runner's check
 * pass): dra_inv_check takes and frees its own per call (a 64 KiB block and more each time);
 * dra_inv_check_in works in these arenas, which it expects reset (as dra_inv_scratch_init and
 * every check leave them; debug builds assert it) and leaves reset, each with its last chunk
 * kept, so a check that fits in those chunks allocates nothing. dra_inv_scratch_init takes their first
 * chunks at once (DRA_ENOMEM: out of memory; dra_inv_scratch_fini is safe either way).
 * Ownership: the caller's; dra_inv_scratch_fini frees the chunks. */
typedef struct dra_inv_scratch {
    dra_arena_t pools; /* the node's pools as the check gathers them */
    dra_arena_t work;  /* selector and constraint evaluations */
} dra_inv_scratch_t;

DRA_NODISCARD int dra_inv_scratch_init(dra_inv_scratch_t *s);
void dra_inv_scratch_fini(dra_inv_scratch_t *s);
/* dra_inv_check in s (above). */
DRA_NODISCARD int dra_inv_check_in(dra_inv_scratch_t *s, const dra_model_t *m,
                                   const dra_alloc_features_t *f, const dra_alloc_state_t *before,
                                   dra_cel_cache_t *cel, const dra_node_t *node,
                                   dra_claim_t *const *claims, dra_allocation_t *const *allocs,
                                   uint32_t n, dra_inv_report_t *out);

#endif /* DRA_ALLOC_INVARIANTS_H */
