/*
 * group_impl.h - what the files of the group cycle share (the files of core/group only): the context, the
 * evaluation of one placement, and the steps both implementations take the same way (member
 * order, candidate placements, group-claim bookkeeping, assume / undo, scoring, the words of a
 * failure), so the reference and the fast path differ only in how a member finds its node and
 * which placements are evaluated.
 */
#ifndef DRA_GROUP_IMPL_H
#define DRA_GROUP_IMPL_H

#include <stdbool.h>
#include <stdint.h>

#include "group/group.h"

/* What the default algorithm on one placement found. */
typedef struct dra__group_eval {
    uint32_t scheduled;  /* bound + placed */
    uint32_t placed;     /* pending members placed */
    bool feasible;       /* scheduled >= minCount */
    bool fatal;
    bool evaluated;      /* (fast path) the default algorithm ran on it */
    uint32_t first_fail; /* first pending member that did not fit (NONE) */
    dra_outcome_t first_kind;
    uint32_t domain;
    int64_t nrf;         /* NodeResourcesFit placement score */
    char msg[160];       /* the first failure's allocator message (node failure / fatal) */
} dra__group_eval_t;

struct dra_group_ctx {
    uint32_t nnodes, max_members;
    uint32_t *all;       /* 0 .. nnodes-1: the one placement without topology */
    uint32_t *walk;      /* scratch node lists */
    uint32_t *wscore;
    uint32_t *order;     /* pending members in scheduling order */
    uint32_t npending, nbound, min_count;
    dra_group_member_res_t *pres; /* per member: its result in the current evaluation */
    uint32_t *undo;      /* members assumed, in order */
    uint32_t nundo;
    dra_allocation_t *gc[DRA_GROUP_MAX_GCLAIMS]; /* group claims in the current evaluation */
    uint32_t ncand, single_domain;
    dra__group_eval_t *cand_ev; /* per candidate placement (nnodes + 1 entries) */
    uint8_t *skip;       /* fast path, per candidate: rejected by summaries or evaluated */
    dra_group_stats_t stats;
    dra_arena_t scratch;
    void *fast;          /* the fast path's state (group_fast.c), NULL until used */
};

static inline int64_t dra__sat_add(int64_t a, int64_t b)
{
    return a > INT64_MAX - b ? INT64_MAX : a + b;
}

void dra__group_order(dra_group_ctx_t *c, const dra_group_spec_t *g);
bool dra__group_selector_admits(const dra_allocation_t *a, const dra_node_t *node);
uint32_t dra__group_need(const dra_group_ctx_t *c, const dra_group_spec_t *g, uint32_t i);
bool dra__group_node_ok(const dra_group_ctx_t *c, const dra_group_spec_t *g,
                        const dra_group_host_t *h, uint32_t i, uint32_t n);
int dra__group_assume(dra_group_ctx_t *c, const dra_group_spec_t *g, const dra_group_host_t *h,
                      uint32_t i, uint32_t need, uint32_t n, const dra_alloc_outcome_t *o);
int dra__group_undo_all(dra_group_ctx_t *c, const dra_group_spec_t *g, const dra_group_host_t *h);
int64_t dra__group_nrf(const dra_group_spec_t *g, const dra_group_host_t *h, const uint32_t *nodes,
                       uint32_t nn, const dra_group_member_res_t *pres, const uint32_t *order,
                       uint32_t npending);
/* Total score: NodeResourcesFit + PodGroupPodsCount normalized by the largest count. */
static inline int64_t dra__group_total(const dra__group_eval_t *e, uint32_t max_sched)
{
    return e->nrf + (max_sched ? (int64_t)e->scheduled * 100 / max_sched : 0);
}
dra_group_short_t dra__group_candidates(dra_group_ctx_t *c, const dra_group_spec_t *g);
/* A placement: its nodes (nodes[0 .. nn), ascending; range: they are lo .. lo + nn - 1), its
 * domain (DRA_GROUP_NONE: all nodes, all). */
typedef struct dra__group_pl {
    const uint32_t *nodes;
    uint32_t nn, lo, domain;
    bool range, all;
} dra__group_pl_t;
void dra__group_cand(const dra_group_ctx_t *c, const dra_group_spec_t *g, uint32_t k,
                     dra__group_pl_t *pl);
/* The default algorithm on a placement (fast: nodes the member's plan does not admit skipped,
 * host->place over all nodes). */
int dra__group_default(dra_group_ctx_t *c, const dra_group_spec_t *g, const dra_group_host_t *h,
                       const dra__group_pl_t *pl, bool fast, dra_arena_t *arena,
                       dra__group_eval_t *ev);
bool dra__group_prelude(dra_group_ctx_t *c, const dra_group_spec_t *g, dra_group_result_t *out);
int dra__group_finish(dra_group_ctx_t *c, const dra_group_spec_t *g, const dra_group_host_t *h,
                      dra_group_result_t *out, const dra__group_eval_t *ev);
/* Every candidate evaluated (those skip[k] marks rejected by summaries: infeasible), undone,
 * the choice re-run and kept - the reference's procedure. */
int dra__group_cycle_all(dra_group_ctx_t *c, const dra_group_spec_t *g, const dra_group_host_t *h,
                         dra_arena_t *arena, dra_group_result_t *out, bool fast,
                         const uint8_t *skip);
/* MostAllocated over cpu and memory from summed allocatable and requested (weights 1). */
int64_t dra__group_nrf_of(const int64_t alloc[2], const int64_t req[2]);
int dra__group_begin(dra_group_ctx_t *c, const dra_group_spec_t *g, dra_arena_t *arena,
                     dra_group_result_t *out);
void dra__group_keep(dra_group_ctx_t *c, dra_group_result_t *out, const dra__group_eval_t *ev);
void dra__group_fail(dra_group_ctx_t *c, const dra_group_spec_t *g, dra_group_result_t *out,
                     dra_group_short_t sk, const dra__group_eval_t *best, uint32_t best_domain);

#endif /* DRA_GROUP_IMPL_H */
