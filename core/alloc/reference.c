/*
 * reference.c - the reference allocator: upstream's Allocate (DRA-SEMANTICS §2.4-2.16) written
 * literally, one device check at a time, so it can be trusted as an oracle.
 *
 * One call: gather pools for the node, lay the node's devices out as "slots" (pool order, slice
 * order, device order), preprocess claims (fatal checks, All sets, the 32-device minimum,
 * constraints), run the depth-first search allocateOne, then build the results. The steps the
 * fast allocator shares (preprocessing, constraints, counters, allocateDevice, slot layout,
 * results) are in claims.c, and the search itself is the one in search_impl.h, compiled here with
 * the reference's hooks: every device's state looked up when the slots are built, selectability
 * evaluated and cached per call, no pruning. Its independence as an oracle comes from
 * invariants.c (every decision checked against the rules) and bruteforce.c (exhaustive proof of
 * unsatisfiability), not from a second copy of the search. All per-call memory comes from the
 * scratch arena, reset at the start of the next call.
 *
 * Upstream defects are reproduced only when beh.bugs is set; every such place is marked BUG(n)
 * with the number used in README.md.
 */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "alloc/alloc_impl.h"
#include "base/bitset.h"

struct dra_allocator {
    dra__acall_t c; /* model, behaviour, scratch and the per-call state shared with fast.c */
    const dra_model_t *model; /* the model given at construction (c.m may be a view of it) */
    dra_alloc_features_t f;
    const dra_alloc_state_t *st;
    dra_cel_cache_t *cel;
    dra_alloc_options_t opts;
    dra_arena_t celscratch;
};

/* ---- construction ---------------------------------------------------------------------------- */

static bool in_use(void *self, const dra__gpool_t *p, const dra_slice_t *sl, uint32_t d)
{
    const dra_allocator_t *a = self;
    return dra_alloc_state_in_use(a->st, p->driver, p->name, sl->devices[d].name);
}

int dra_alloc_new(const dra_model_t *m, const dra_alloc_features_t *f,
                  const dra_alloc_state_t *state, dra_cel_cache_t *cel,
                  const dra_alloc_options_t *opts, dra_allocator_t **out)
{
    if (!m || !f || !state || !cel || !out)
        return DRA_EINVAL;
    dra_allocator_t *a = calloc(1, sizeof *a);
    if (!a)
        return DRA_ENOMEM;
    a->f = *f;
    a->st = state;
    a->cel = cel;
    if (opts)
        a->opts = *opts;
    dra__acall_init(&a->c, m, f, &a->opts);
    a->c.cel = cel; /* derived attributes' programs */
    a->model = m;
    a->c.state = state; /* shareIDs unique among the state's shares */
    a->c.in_use = in_use;
    a->c.self = a;
    dra_arena_init(&a->celscratch, 64 * 1024);
    *out = a;
    return DRA_OK;
}

void dra_alloc_free(dra_allocator_t *a)
{
    if (!a)
        return;
    dra_arena_fini(&a->c.scratch);
    dra_arena_fini(&a->celscratch);
    free(a);
}

/* ---- slots and state ------------------------------------------------------------------------- */

/* The node's slots with every device's state looked up (the search's hook search_ready has
 * nothing left to do). */
static int build_slots(dra_allocator_t *a)
{
    dra__acall_t *c = &a->c;
    dra_arena_t *ar = &c->scratch;
    if (dra__acall_layout(&c->b, &c->gp, ar, &c->slots, &c->nslots, &c->slice_base, &c->nscopes,
                         &c->maxcaps))
        return DRA_ENOMEM;
    uint32_t n = c->nslots;
    c->claim_words = (uint32_t)dra_bitset_words(c->nclaims ? c->nclaims : 1);
    uint64_t *tk = dra_arena_calloc(ar, (size_t)(n ? n : 1) * c->claim_words, 8, 8);
    c->scopes = dra_arena_calloc(ar, c->nscopes ? c->nscopes : 1, sizeof(dra__scope_t), 16);
    if (!tk || !c->scopes)
        return DRA_ENOMEM;
    for (uint32_t k = 0; k < n; k++) {
        dra__slot_t *st = &c->slots[k];
        const dra__gpool_t *pool = &c->gp.pools[st->pool];
        const dra_device_t *dev = st->d;
        st->taken = tk + (size_t)k * c->claim_words;
        st->excl = dra_alloc_state_exclusive(a->st, pool->driver, pool->name, dev->name) > 0;
        st->persist_cap = dra__alloc_state_has_capacity(a->st, pool->driver, pool->name, dev->name);
        st->persist_share = dra_alloc_state_shares(a->st, pool->driver, pool->name, dev->name) > 0;
        if (st->persist_cap) {
            st->existing = dra_arena_calloc(ar, dev->ncaps ? dev->ncaps : 1, sizeof(dra__aq_t), 16);
            if (!st->existing)
                return DRA_ENOMEM;
            for (uint32_t cap = 0; cap < dev->ncaps; cap++) {
                dra__aq_t v = 0;
                if (dra__alloc_state_cap_aq(a->st, pool->driver, pool->name, dev->name,
                                           dev->caps[cap].name, &v))
                    st->existing[cap] = v;
            }
        }
    }
    return DRA_OK;
}

/* ---- the search's hooks (search_impl.h) ------------------------------------------------------ */

static inline bool search_skip(dra_allocator_t *a, const dra__slot_t *st, const dra__rq_t *rq)
{
    (void)a, (void)st, (void)rq;
    return false;
}

static inline int search_ready(dra_allocator_t *a, dra__slot_t *st)
{
    (void)a, (void)st;
    return DRA_OK;
}

/* isSelectable, cached per call in c.sel (per slot and request). */
static inline int search_selectable(dra_allocator_t *a, uint32_t slot, uint32_t rqi, uint32_t ci,
                                    bool *match)
{
    int8_t *cache = &a->c.sel[(size_t)slot * a->c.nrqs + rqi];
    const dra__slot_t *st = &a->c.slots[slot];
    if (dra__slot_binding_blocked(&a->c, st)) {
        *match = false;
        return DRA_OK;
    }
    if (*cache >= 0) {
        *match = *cache;
        return DRA_OK;
    }
    int rc = dra__acall_eval_selectable(&a->c, a->cel, &a->celscratch, st, rqi, ci, match);
    if (rc)
        return rc;
    *cache = *match ? 1 : 0;
    return DRA_OK;
}

static inline int search_prune(dra_allocator_t *a, uint32_t ci, uint32_t rqi, bool admin,
                               dra__sloc_t start, int64_t need)
{
    (void)a, (void)ci, (void)rqi, (void)admin, (void)start, (void)need;
    return 1;
}

static inline int search_request_ready(dra_allocator_t *a, dra__rq_t *rq)
{
    (void)a, (void)rq;
    return DRA_OK;
}

#define SEARCH_SELF dra_allocator_t
#include "alloc/search_impl.h"

/* ---- entry point ----------------------------------------------------------------------------- */

/* The steps of a call before the search: GatherPools, the node's slots. DRA_OK (go on), 1 (a
 * decision: out is Fatal with the message), DRA_ENOMEM. */
static int call_begin(dra_allocator_t *a, const dra_node_t *node, uint32_t n,
                      dra_alloc_outcome_t *out)
{
    memset(out, 0, sizeof *out);
    dra__acall_reset_scratch(&a->c);
    a->c.out = out;
    a->c.node = node;
    a->c.nclaims = n;
    a->c.err[0] = 0;
    int rc = dra__gather_pools(a->c.m, &a->c.b, node, &a->c.scratch, &a->c.gp, a->c.err, sizeof a->c.err);
    if (rc == DRA_ENOMEM)
        return DRA_ENOMEM;
    if (rc) {
        out->kind = DRA_OUTCOME_FATAL;
        snprintf(out->msg, sizeof out->msg, "%s", a->c.err);
        return 1;
    }
    out->stats.pools = a->c.gp.n;
    if (build_slots(a))
        return DRA_ENOMEM;
    return DRA_OK;
}

int dra_alloc_allocate(dra_allocator_t *a, const dra_node_t *node, dra_claim_t *const *claims,
                       uint32_t n, dra_arena_t *out_arena, dra_alloc_outcome_t *out)
{
    if (!a || !node || (!claims && n) || !out_arena || !out)
        return DRA_EINVAL;
    int rc = call_begin(a, node, n, out);
    if (rc)
        return rc < 0 ? rc : DRA_OK;
    return dra__acall_outcome(&a->c, search_run(a, claims, true), out_arena);
}

int dra__alloc_prepare(dra_allocator_t *a, const dra_node_t *node, dra_claim_t *const *claims,
                       uint32_t n, dra_alloc_outcome_t *out)
{
    if (!a || !node || (!claims && n) || !out)
        return DRA_EINVAL;
    int rc = call_begin(a, node, n, out);
    if (rc)
        return rc < 0 ? rc : DRA_OK;
    rc = dra__acall_preprocess(&a->c, claims, true, search_validate_cb, a);
    if (rc == DRA_OK) {
        out->kind = DRA_OUTCOME_UNSATISFIABLE; /* not searched: the caller's claim */
        return DRA_OK;
    }
    return dra__acall_outcome(&a->c, rc, NULL);
}

/* ---- explain mode (explain.c) ---------------------------------------------------------------- */

dra__acall_t *dra__alloc_acall(dra_allocator_t *a)
{
    return &a->c;
}

dra_cel_cache_t *dra__alloc_cel(dra_allocator_t *a)
{
    return a->cel;
}

dra_arena_t *dra__alloc_celscratch(dra_allocator_t *a)
{
    return &a->celscratch;
}

const dra_alloc_state_t *dra__alloc_state(const dra_allocator_t *a)
{
    return a->st;
}

void dra__alloc_set_view(dra_allocator_t *a, const dra_model_t *v)
{
    a->c.m = v ? v : a->model;
}
