/*
 * reference.c - the reference allocator: upstream's Allocate (DRA-SEMANTICS §2.4-2.16) written
 * literally, one device check at a time, so it can be trusted as an oracle.
 *
 * One call: gather pools for the node, lay the node's devices out as "slots" (pool order, slice
 * order, device order), preprocess claims (fatal checks, All sets, the 32-device minimum,
 * constraints), run the depth-first search allocateOne, then build the results. The steps the
 * fast allocator shares (preprocessing, constraints, counters, allocateDevice, results) are in
 * claims.c; this file keeps the slot layout, selectability and the search. All per-call memory
 * comes from the scratch arena, reset at the start of the next call.
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
    dra_acall_t c; /* model, behaviour, scratch and the per-call state shared with fast.c */
    dra_alloc_features_t f;
    const dra_alloc_state_t *st;
    dra_cel_cache_t *cel;
    dra_alloc_options_t opts;
    dra_arena_t celscratch;
};

static const char *nz(const char *s)
{
    return s ? s : "";
}

/* ---- construction ---------------------------------------------------------------------------- */

static bool in_use(void *self, const dra_gpool_t *p, const dra_slice_t *sl, uint32_t d)
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
    a->c.m = m;
    a->f = *f;
    dra_beh_init(&a->c.b, f);
    a->st = state;
    a->cel = cel;
    if (opts)
        a->opts = *opts;
    a->c.rng = a->opts.share_seed ^ 0x6a09e667f3bcc909ULL;
    dra_arena_init(&a->c.scratch, 256 * 1024);
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

void dra_alloc_next_share_id(dra_allocator_t *a, char buf[37])
{
    dra_acall_share_id(&a->c, buf);
}

/* ---- errors ---------------------------------------------------------------------------------- */

static const char *cref(const dra_claim_t *c, char *buf)
{
    return dra_claim_ref(c, buf, 300);
}

/* ---- slots and state ------------------------------------------------------------------------- */

static int build_slots(dra_allocator_t *a)
{
    dra_arena_t *ar = &a->c.scratch;
    uint32_t n = 0;
    for (uint32_t p = 0; p < a->c.gp.n; p++)
        for (uint32_t s = 0; s < a->c.gp.pools[p].nslices; s++)
            n += a->c.gp.pools[p].slices[s]->ndevices;
    a->c.nslots = n;
    a->c.slots = dra_arena_calloc(ar, n ? n : 1, sizeof(slot_t), 16);
    a->c.slice_base = dra_arena_calloc(ar, a->c.gp.n ? a->c.gp.n : 1, sizeof(uint32_t *), 8);
    a->c.claim_words = (uint32_t)dra_bitset_words(a->c.nclaims ? a->c.nclaims : 1);
    uint64_t *tk = dra_arena_calloc(ar, (size_t)(n ? n : 1) * a->c.claim_words, 8, 8);
    if (!a->c.slots || !a->c.slice_base || !tk)
        return DRA_ENOMEM;
    /* counter scopes: per pool (1.35+; BUG(5): per pool name) or per slice (1.34) */
    uint32_t nsc = 0;
    if (!a->c.b.pool_counters)
        for (uint32_t p = 0; p < a->c.gp.n; p++)
            nsc += a->c.gp.pools[p].nslices;
    else
        nsc = a->c.gp.n;
    a->c.nscopes = nsc;
    a->c.scopes = dra_arena_calloc(ar, nsc ? nsc : 1, sizeof(scope_t), 16);
    if (!a->c.scopes)
        return DRA_ENOMEM;
    uint32_t k = 0, sk = 0;
    a->c.maxcaps = 0;
    for (uint32_t p = 0; p < a->c.gp.n; p++) {
        const dra_gpool_t *pool = &a->c.gp.pools[p];
        a->c.slice_base[p] = dra_arena_calloc(ar, pool->nslices ? pool->nslices : 1, sizeof(uint32_t), 4);
        if (!a->c.slice_base[p])
            return DRA_ENOMEM;
        uint32_t pscope = p;
        if (a->c.b.pool_counters && a->c.b.bugs) {
            for (uint32_t q = 0; q < p; q++)
                if (strcmp(a->c.gp.pools[q].name, pool->name) == 0) {
                    pscope = q;
                    break;
                }
        }
        for (uint32_t s = 0; s < pool->nslices; s++) {
            const dra_slice_t *sl = pool->slices[s];
            a->c.slice_base[p][s] = k;
            uint32_t scope = a->c.b.pool_counters ? pscope : sk++;
            for (uint32_t d = 0; d < sl->ndevices; d++, k++) {
                slot_t *st = &a->c.slots[k];
                const dra_device_t *dev = &sl->devices[d];
                st->d = dev;
                st->pool = p;
                st->scope = scope;
                st->taken = tk + (size_t)k * a->c.claim_words;
                st->excl = dra_alloc_state_exclusive(a->st, pool->driver, pool->name, dev->name) > 0;
                st->persist_cap = dra_alloc_state_has_capacity(a->st, pool->driver, pool->name, dev->name);
                st->persist_share = dra_alloc_state_shares(a->st, pool->driver, pool->name, dev->name) > 0;
                if (dev->ncaps > a->c.maxcaps)
                    a->c.maxcaps = dev->ncaps;
                if (st->persist_cap) {
                    st->existing = dra_arena_calloc(ar, dev->ncaps ? dev->ncaps : 1, sizeof(dra_aq_t), 16);
                    if (!st->existing)
                        return DRA_ENOMEM;
                    for (uint32_t c = 0; c < dev->ncaps; c++) {
                        dra_aq_t v = 0;
                        if (dra_alloc_state_cap_aq(a->st, pool->driver, pool->name, dev->name,
                                                   dev->caps[c].name, &v))
                            st->existing[c] = v;
                    }
                }
            }
        }
    }
    return DRA_OK;
}

/* ---- selectability --------------------------------------------------------------------------- */

static int selectable(dra_allocator_t *a, uint32_t slot, uint32_t rqi, uint32_t ci, bool *match)
{
    int8_t *cache = &a->c.sel[(size_t)slot * a->c.nrqs + rqi];
    const slot_t *st = &a->c.slots[slot];
    if (!a->c.b.binding && st->d->nbinding_conditions > 0) {
        *match = false;
        return DRA_OK;
    }
    if (*cache >= 0) {
        *match = *cache;
        return DRA_OK;
    }
    const rq_t *rq = &a->c.rqs[rqi];
    int rc = dra_device_selectable(a->c.m, &a->c.b, a->cel, &a->celscratch, a->c.node, a->c.cls[ci].c,
                                   rq->cls, rq->body, st->d, match, &a->c.out->stats.cel_evals,
                                   a->c.err, sizeof a->c.err);
    if (rc == DRA_ENOMEM)
        return R_NOMEM;
    if (rc)
        return R_FATAL;
    *cache = *match ? 1 : 0;
    return DRA_OK;
}

/* ---- allocateOne ----------------------------------------------------------------------------- */

typedef struct loc {
    uint32_t p, s, d;
} loc_t;

static int allocate_one(dra_allocator_t *a, uint32_t ci, uint32_t ri, uint32_t si, int64_t di,
                        bool in_sub, loc_t start)
{
    dra_alloc_stats_t *stats = &a->c.out->stats;
    stats->allocate_one++;
    if (a->opts.max_steps && stats->allocate_one > a->opts.max_steps)
        return dra_acall_fatal(&a->c, "filter operation aborted: search budget of %llu steps exhausted",
                     (unsigned long long)a->opts.max_steps);
    const loc_t origin = {0, 0, 0};
    if (ci >= a->c.nclaims)
        return R_OK;
    cl_t *cl = &a->c.cls[ci];
    if (ri >= cl->c->nrequests) {
        int rc = allocate_one(a, ci + 1, 0, 0, 0, false, origin);
        if (rc == R_MAXEXC)
            return R_FAIL;
        return rc;
    }
    if (!in_sub && cl->nsub[ri] > 0) {
        bool all_exceeded = true;
        for (uint32_t sub = 0; sub < cl->nsub[ri]; sub++) {
            int rc = allocate_one(a, ci, ri, sub, di, true, origin);
            if (rc == R_MAXEXC)
                continue;
            all_exceeded = false;
            if (rc < 0)
                return rc;
            if (rc == R_OK) {
                cl->selected[ri] = sub;
                return R_OK;
            }
        }
        return all_exceeded ? R_MAXEXC : R_FAIL;
    }
    uint32_t rqi = cl->rq_first[ri] + (cl->nsub[ri] ? si : 0);
    const rq_t *rq = &a->c.rqs[rqi];
    if (rq->all && rq->nall == 0)
        return R_FAIL;
    if (di >= rq->num)
        return allocate_one(a, ci, ri + 1, 0, 0, false, origin);
    if ((int64_t)cl->nres + rq->num - di > DRA_ALLOC_MAX_RESULTS)
        return R_MAXEXC;
    if (rq->all) {
        uint32_t slot = rq->all_slots[di];
        int rc = dra_acall_allocate_device(&a->c, ci, rqi, slot, true);
        if (rc < 0)
            return rc;
        if (rc != R_OK)
            return R_FAIL;
        rc = allocate_one(a, ci, ri, si, di + 1, in_sub, origin);
        if (rc != R_OK)
            dra_acall_deallocate(&a->c, ci);
        return rc;
    }
    bool admin = rq->body->admin_access && !rq->is_sub;
    if (!a->c.b.combos)
        start = origin;
    for (uint32_t p = start.p; p < a->c.gp.n; p++) {
        const dra_gpool_t *pool = &a->c.gp.pools[p];
        if (pool->invalid && !a->c.b.strict_pools)
            return dra_acall_fatal(&a->c, "pool %s/%s is invalid: %s", pool->driver, pool->name,
                         nz(pool->invalid_reason));
        if ((pool->incomplete && a->c.b.strict_pools) || pool->invalid)
            continue;
        for (uint32_t s = p == start.p ? start.s : 0; s < pool->nslices; s++) {
            const dra_slice_t *sl = pool->slices[s];
            uint32_t base = a->c.slice_base[p][s];
            for (uint32_t d = (p == start.p && s == start.s) ? start.d : 0; d < sl->ndevices; d++) {
                uint32_t slot = base + d;
                slot_t *st = &a->c.slots[slot];
                stats->candidates++;
                if (admin && dra_slot_taken_by(st, ci))
                    continue;
                if (!admin && (st->excl || st->ntaken > 0))
                    continue;
                bool m;
                int rc = selectable(a, slot, rqi, ci, &m);
                if (rc)
                    return rc;
                if (!m)
                    continue;
                if (a->c.b.cc && dra_acall_capacity_fits(&a->c, rq, st) != 1)
                    continue;
                rc = dra_acall_allocate_device(&a->c, ci, rqi, slot, false);
                if (rc < 0)
                    return rc;
                if (rc != R_OK)
                    continue;
                loc_t next = {p, s, d + 1};
                rc = allocate_one(a, ci, ri, si, di + 1, in_sub, next);
                if (rc == R_OK)
                    return R_OK;
                dra_acall_deallocate(&a->c, ci);
                if (rc < 0)
                    return rc;
            }
        }
    }
    return R_FAIL;
}

/* ---- preprocessing (DRA-SEMANTICS §2.4) ------------------------------------------------------ */

static int validate_request(dra_allocator_t *a, uint32_t ci, uint32_t rqi)
{
    rq_t *rq = &a->c.rqs[rqi];
    const dra_claim_t *c = a->c.cls[ci].c;
    const dra_exact_request_t *body = rq->body;
    char cb[300];
    for (uint32_t i = 0; i < body->nselectors; i++)
        if (!body->selectors[i].cel)
            return dra_acall_fatal(&a->c, "claim %s, request %s, selector #%u: CEL expression empty (unsupported selector type?)",
                         cref(c, cb), nz(body->name), i);
    if (!a->c.b.admin && body->has_admin_access)
        return dra_acall_fatal(&a->c, "claim %s, request %s: admin access is requested, but the feature is disabled",
                     cref(c, cb), nz(body->name));
    if (!body->class_name || !body->class_name[0])
        return dra_acall_fatal(&a->c, "claim %s, request %s: missing device class name (unsupported request type?)",
                     cref(c, cb), nz(body->name));
    rq->cls = dra_model_find_class(a->c.m, body->class_name);
    if (!rq->cls)
        return dra_acall_fatal(&a->c, "claim %s, request %s: could not retrieve device class %s: deviceclass.resource.k8s.io \"%s\" not found",
                     cref(c, cb), nz(body->name), body->class_name, body->class_name);
    switch (body->mode) {
    case DRA_MODE_EXACT_COUNT:
        rq->num = body->has_count ? body->count : 1;
        return DRA_OK;
    case DRA_MODE_ALL:
        break;
    default:
        return dra_acall_fatal(&a->c, "claim %s, request %s: unsupported count mode %s", cref(c, cb),
                     nz(body->name), nz(body->mode_raw));
    }
    rq->all = true;
    uint32_t cap = 0;
    for (uint32_t p = 0; p < a->c.gp.n; p++) {
        const dra_gpool_t *pool = &a->c.gp.pools[p];
        if (pool->incomplete || pool->invalid) {
            int r = dra_acall_fatal(&a->c, "claim %s, request %s: asks for all devices, but resource pool %s/%s is currently %s",
                          cref(c, cb), nz(body->name), pool->driver, pool->name,
                          pool->incomplete ? "being updated" : "invalid");
            /* PR #141898: per-node failure; the snapshot (BUG 9) made it fatal */
            return a->c.b.bugs ? r : R_NODE;
        }
        for (uint32_t s = 0; s < pool->nslices; s++)
            for (uint32_t d = 0; d < pool->slices[s]->ndevices; d++) {
                uint32_t slot = a->c.slice_base[p][s] + d;
                bool m;
                int rc = selectable(a, slot, rqi, ci, &m);
                if (rc)
                    return rc;
                if (!m)
                    continue;
                if (a->c.b.cc) {
                    const slot_t *st = &a->c.slots[slot];
                    /* PR #140769: static capacity only; the snapshot (BUG 8) subtracted the
                     * capacity already consumed, so All silently took a subset */
                    int fits = dra_cap_fits(body, st->d, a->c.b.bugs ? st->existing : NULL, NULL,
                                            a->c.b.bugs);
                    if (fits != 1)
                        continue;
                }
                if (rq->nall == cap) {
                    uint32_t nc = cap ? cap * 2 : 8;
                    uint32_t *na = dra_arena_realloc(&a->c.scratch, rq->all_slots, cap * sizeof *na,
                                                     nc * sizeof *na, 4);
                    if (!na)
                        return R_NOMEM;
                    rq->all_slots = na;
                    cap = nc;
                }
                rq->all_slots[rq->nall++] = slot;
            }
    }
    rq->num = rq->nall;
    return DRA_OK;
}

static int validate_cb(void *self, uint32_t ci, uint32_t rqi)
{
    return validate_request(self, ci, rqi);
}

/* ---- results (DRA-SEMANTICS §2.14) ----------------------------------------------------------- */

/* ---- entry point ----------------------------------------------------------------------------- */

int dra_alloc_allocate(dra_allocator_t *a, const dra_node_t *node, dra_claim_t *const *claims,
                       uint32_t n, dra_arena_t *out_arena, dra_alloc_outcome_t *out)
{
    if (!a || !node || (!claims && n) || !out_arena || !out)
        return DRA_EINVAL;
    memset(out, 0, sizeof *out);
    dra_arena_reset(&a->c.scratch);
    a->c.out = out;
    a->c.node = node;
    a->c.nclaims = n;
    a->c.err[0] = 0;
    int rc = dra_gather_pools(a->c.m, &a->c.b, node, &a->c.scratch, &a->c.gp, a->c.err, sizeof a->c.err);
    if (rc == DRA_ENOMEM)
        return DRA_ENOMEM;
    if (rc) {
        out->kind = DRA_OUTCOME_FATAL;
        snprintf(out->msg, sizeof out->msg, "%s", a->c.err);
        return DRA_OK;
    }
    out->stats.pools = a->c.gp.n;
    if (build_slots(a))
        return DRA_ENOMEM;
    rc = dra_acall_preprocess(&a->c, claims, true, validate_cb, a);
    if (rc == DRA_OK) {
        const loc_t origin = {0, 0, 0};
        rc = allocate_one(a, 0, 0, 0, 0, false, origin);
        if (rc == R_MAXEXC)
            rc = dra_acall_fatal(&a->c, "allocation max size exceeded");
    }
    switch (rc) {
    case R_OK:
        rc = dra_acall_build_results(&a->c, out_arena);
        if (rc == R_NOMEM)
            return DRA_ENOMEM;
        if (rc) {
            out->kind = DRA_OUTCOME_FATAL;
            out->allocations = NULL;
            out->n = 0;
            snprintf(out->msg, sizeof out->msg, "%s", a->c.err);
            return DRA_OK;
        }
        out->kind = DRA_OUTCOME_ALLOCATED;
        return DRA_OK;
    case R_FAIL:
        if (a->c.gp.any_invalid && a->c.b.strict_pools) {
            out->kind = DRA_OUTCOME_NODE_FAILURE;
            snprintf(out->msg, sizeof out->msg, "invalid resource pools were encountered");
        } else {
            out->kind = DRA_OUTCOME_UNSATISFIABLE;
        }
        return DRA_OK;
    case R_NOMEM:
        return DRA_ENOMEM;
    case R_NODE:
        out->kind = DRA_OUTCOME_NODE_FAILURE;
        snprintf(out->msg, sizeof out->msg, "%s", a->c.err);
        return DRA_OK;
    default:
        out->kind = DRA_OUTCOME_FATAL;
        snprintf(out->msg, sizeof out->msg, "%s", a->c.err);
        return DRA_OK;
    }
}
