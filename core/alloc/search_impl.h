/*
 * search_impl.h - the one depth-first search of both allocators (allocateOne, DRA-SEMANTICS §2.5-2.9)
 * and the request validation it needs (validateDeviceRequest, §2.4), written once and compiled
 * into reference.c and fast.c with each allocator's hooks inlined (internal; include it only
 * from those two files, after the hooks).
 *
 * What differs between the allocators is behind five hooks, static inline functions the
 * including file defines before it includes this header (SEARCH_SELF is its allocator type,
 * with the per-call state as member `c`, a dra__acall_t):
 *
 *   bool search_skip(SEARCH_SELF *a, const dra__slot_t *st, const dra__rq_t *rq)
 *       true: the slot's device is known not to be selectable for rq without a state lookup or
 *       an evaluation (no side effect either way). Reference: never; fast: the persistent
 *       selector cache says "no".
 *   int search_ready(SEARCH_SELF *a, dra__slot_t *st)
 *       the slot's state fields (excl, persist_*, existing) are valid afterwards: DRA_OK, or
 *       DRA_ENOMEM. Reference: filled when the slots are built; fast: looked up on first use.
 *   int search_selectable(SEARCH_SELF *a, uint32_t slot, uint32_t rqi, uint32_t ci, bool *match)
 *       isSelectable (binding conditions, class and request selectors, per-device node
 *       selection): DRA_OK with *match, R_FATAL (message in a->c.err), R_NOMEM. Reference:
 *       cached per call; fast: cached per (class, selectors) and device row across calls.
 *   int search_prune(SEARCH_SELF *a, uint32_t ci, uint32_t rqi, bool admin, dra__sloc_t start,
 *                    int64_t need)
 *       before a request's device loop: 1 search, R_FAIL (0) no solution below (fewer than
 *       `need` candidates are left from `start`), < 0 error. Reference: always 1 (no pruning,
 *       README "Measurements" says why); fast: enough_left when pruning is on.
 *   int search_request_ready(SEARCH_SELF *a, dra__rq_t *rq)
 *       the request's class is known (rq->cls): DRA_OK or R_NOMEM. Fast: its selector cache.
 *
 * Defines (static, per including file): search_allocate_one, search_validate_request and
 * search_run (preprocess, then the search from the first claim). Cost: the search is exponential
 * in the worst case, as upstream's; c.max_steps bounds it. No I/O; memory from c.scratch.
 */
#ifndef SEARCH_SELF
#error "define SEARCH_SELF and the search_* hooks before including alloc/search_impl.h"
#endif

#include "alloc/alloc_impl.h"

static const char *search_nz(const char *s)
{
    return s ? s : "";
}

/* allocateOne: device di of request ri (subrequest si when in_sub) of claim ci, searching from
 * start (combinations mode; permutations restart at the origin). R_OK, R_FAIL, R_MAXEXC,
 * R_FATAL, R_NODE, R_NOMEM. */
static int search_allocate_one(SEARCH_SELF *a, uint32_t ci, uint32_t ri, uint32_t si, int64_t di,
                               bool in_sub, dra__sloc_t start)
{
    dra__acall_t *c = &a->c;
    dra_alloc_stats_t *stats = &c->out->stats;
    stats->allocate_one++;
    if (c->max_steps && stats->allocate_one > c->max_steps)
        return dra__acall_fatal(c, "filter operation aborted: search budget of %llu steps exhausted",
                               (unsigned long long)c->max_steps);
    const dra__sloc_t origin = {0, 0, 0};
    if (ci >= c->nclaims)
        return R_OK;
    dra__cl_t *cl = &c->cls[ci];
    if (ri >= cl->c->nrequests) {
        int rc = search_allocate_one(a, ci + 1, 0, 0, 0, false, origin);
        if (rc == R_MAXEXC)
            return R_FAIL;
        return rc;
    }
    if (!in_sub && cl->nsub[ri] > 0) {
        bool all_exceeded = true;
        for (uint32_t sub = 0; sub < cl->nsub[ri]; sub++) {
            int rc = search_allocate_one(a, ci, ri, sub, di, true, origin);
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
    const dra__rq_t *rq = &c->rqs[rqi];
    if (rq->all && rq->nall == 0)
        return R_FAIL;
    if (di >= rq->num)
        return search_allocate_one(a, ci, ri + 1, 0, 0, false, origin);
    if (rq->num - di > (int64_t)DRA_ALLOC_MAX_RESULTS - (int64_t)cl->nres) /* no overflow (#141307) */
        return R_MAXEXC;
    if (rq->all) {
        uint32_t slot = rq->all_slots[di];
        int rc = dra__acall_allocate_device(c, ci, rqi, slot, true);
        if (rc < 0)
            return rc;
        if (rc != R_OK)
            return R_FAIL;
        rc = search_allocate_one(a, ci, ri, si, di + 1, in_sub, origin);
        if (rc != R_OK)
            dra__acall_deallocate(c, ci);
        return rc;
    }
    bool admin = rq->body->admin_access && !rq->is_sub;
    if (!c->b.combos)
        start = origin;
    int prc = search_prune(a, ci, rqi, admin, start, rq->num - di);
    if (prc <= 0)
        return prc;
    for (uint32_t p = start.p; p < c->gp.n; p++) {
        const dra__gpool_t *pool = &c->gp.pools[p];
        if (pool->invalid && !c->b.strict_pools)
            return dra__acall_fatal(c, "pool %s/%s is invalid: %s", pool->driver, pool->name,
                                   search_nz(pool->invalid_reason));
        if ((pool->incomplete && c->b.strict_pools) || pool->invalid)
            continue;
        for (uint32_t s = p == start.p ? start.s : 0; s < pool->nslices; s++) {
            const dra_slice_t *sl = pool->slices[s];
            uint32_t base = c->slice_base[p][s];
            for (uint32_t d = (p == start.p && s == start.s) ? start.d : 0; d < sl->ndevices; d++) {
                uint32_t slot = base + d;
                dra__slot_t *st = &c->slots[slot];
                stats->candidates++;
                if (search_skip(a, st, rq))
                    continue; /* no side effect in either order: skip before the state lookup */
                if (admin && dra__slot_taken_by(st, ci))
                    continue;
                if (search_ready(a, st))
                    return R_NOMEM;
                if (!admin && (st->excl || st->ntaken > 0))
                    continue;
                bool m;
                int rc = search_selectable(a, slot, rqi, ci, &m);
                if (rc)
                    return rc;
                if (!m)
                    continue;
                if (c->b.cc) {
                    rc = dra__acall_capacity_fits(c, ci, rq, st, "checking");
                    if (rc < 0)
                        return rc;
                    if (rc != 1)
                        continue;
                }
                rc = dra__acall_allocate_device(c, ci, rqi, slot, false);
                if (rc < 0)
                    return rc;
                if (rc != R_OK)
                    continue;
                dra__sloc_t next = {p, s, d + 1};
                rc = search_allocate_one(a, ci, ri, si, di + 1, in_sub, next);
                if (rc == R_OK)
                    return R_OK;
                dra__acall_deallocate(c, ci);
                if (rc < 0)
                    return rc;
            }
        }
    }
    return R_FAIL;
}

/* validateDeviceRequest (DRA-SEMANTICS §2.4) of request rqi of claim ci: selectors present,
 * admin access allowed, class found, count mode; for All, the set of devices it takes (every
 * selectable device of the node whose static capacity fits). DRA_OK, R_FATAL, R_NODE, R_NOMEM. */
static int search_validate_request(SEARCH_SELF *a, uint32_t ci, uint32_t rqi)
{
    dra__acall_t *c = &a->c;
    dra__rq_t *rq = &c->rqs[rqi];
    const dra_claim_t *claim = c->cls[ci].c;
    const dra_exact_request_t *body = rq->body;
    char cb[300];
    /* 1.37+: derived attributes with the gate off are refused, not ignored (version skew) */
    if (c->b.derived_fatal && body->nderived)
        return dra__acall_fatal(c, "claim %s, request %s: cannot handle request with derived attributes, the feature is disabled",
                               dra__claim_ref(claim, cb, sizeof cb), search_nz(body->name));
    for (uint32_t i = 0; i < body->nselectors; i++)
        if (!body->selectors[i].cel)
            return dra__acall_fatal(c, "claim %s, request %s, selector #%u: CEL expression empty (unsupported selector type?)",
                                   dra__claim_ref(claim, cb, sizeof cb), search_nz(body->name), i);
    if (!c->b.admin && body->has_admin_access)
        return dra__acall_fatal(c, "claim %s, request %s: admin access is requested, but the feature is disabled",
                               dra__claim_ref(claim, cb, sizeof cb), search_nz(body->name));
    if (!body->class_name || !body->class_name[0])
        return dra__acall_fatal(c, "claim %s, request %s: missing device class name (unsupported request type?)",
                               dra__claim_ref(claim, cb, sizeof cb), search_nz(body->name));
    rq->cls = dra_model_find_class(c->m, body->class_name);
    if (!rq->cls)
        return dra__acall_fatal(c, "claim %s, request %s: could not retrieve device class %s: deviceclass.resource.k8s.io \"%s\" not found",
                               dra__claim_ref(claim, cb, sizeof cb), search_nz(body->name),
                               body->class_name, body->class_name);
    int rc = search_request_ready(a, rq);
    if (rc)
        return rc;
    switch (body->mode) {
    case DRA_MODE_EXACT_COUNT:
        rq->num = body->has_count ? body->count : 1;
        return DRA_OK;
    case DRA_MODE_ALL:
        break;
    default:
        return dra__acall_fatal(c, "claim %s, request %s: unsupported count mode %s",
                               dra__claim_ref(claim, cb, sizeof cb), search_nz(body->name),
                               search_nz(body->mode_raw));
    }
    rq->all = true;
    uint32_t cap = 0;
    for (uint32_t p = 0; p < c->gp.n; p++) {
        const dra__gpool_t *pool = &c->gp.pools[p];
        if (pool->incomplete || pool->invalid) {
            int r = dra__acall_fatal(c, "claim %s, request %s: asks for all devices, but resource pool %s/%s is currently %s",
                                    dra__claim_ref(claim, cb, sizeof cb), search_nz(body->name),
                                    pool->driver, pool->name,
                                    pool->incomplete ? "being updated" : "invalid");
            /* PR #141898 (1.38-pre): per-node failure; before it (BUG 9) fatal */
            return c->b.bug_all_fatal ? r : R_NODE;
        }
        for (uint32_t s = 0; s < pool->nslices; s++)
            for (uint32_t d = 0; d < pool->slices[s]->ndevices; d++) {
                uint32_t slot = c->slice_base[p][s] + d;
                bool m;
                rc = search_selectable(a, slot, rqi, ci, &m);
                if (rc)
                    return rc;
                if (!m)
                    continue;
                if (c->b.cc) {
                    dra__slot_t *st = &c->slots[slot];
                    if (search_ready(a, st))
                        return R_NOMEM;
                    /* PR #140769: static capacity only; the snapshot (BUG 8) subtracted the
                     * capacity already consumed, so All silently took a subset */
                    dra__capmode_t cm = dra__capmode(&c->b);
                    char why[DRA_DIAG_MSG_MAX / 2];
                    int fits = dra__cap_fits_m(&cm, body, st->d,
                                               c->b.bug_all_cap ? st->existing : NULL, NULL, why,
                                               sizeof why);
                    if (fits == DRA__CAP_MISSING && c->b.cap_missing_fatal)
                        snprintf(why, sizeof why, "some requested capacity has not been defined");
                    else if (fits == DRA__CAP_MISSING)
                        continue;
                    if (fits < 0) /* the All gather names the device without its pool */
                        return dra__acall_fatal(c, "claim %s, request %s: checking capacity for device %s: %s",
                                               dra__claim_ref(claim, cb, sizeof cb),
                                               search_nz(body->name), search_nz(st->d->name), why);
                    if (fits != 1)
                        continue;
                }
                if (rq->nall == cap) {
                    uint32_t nc = cap ? cap * 2 : 8;
                    uint32_t *na = dra_arena_realloc(&c->scratch, rq->all_slots, cap * sizeof *na,
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

static int search_validate_cb(void *self, uint32_t ci, uint32_t rqi)
{
    return search_validate_request(self, ci, rqi);
}

/* Preprocess the claims (c.sel sized per slot and request when need_sel), then allocateOne from
 * the first claim; "allocation max size exceeded" is Fatal. The outcome code for
 * dra__acall_outcome. */
static int search_run(SEARCH_SELF *a, dra_claim_t *const *claims, bool need_sel)
{
    int rc = dra__acall_preprocess(&a->c, claims, need_sel, search_validate_cb, a);
    if (rc != DRA_OK)
        return rc;
    const dra__sloc_t origin = {0, 0, 0};
    rc = search_allocate_one(a, 0, 0, 0, 0, false, origin);
    if (rc == R_MAXEXC)
        rc = dra__acall_fatal(&a->c, "allocation max size exceeded");
    return rc;
}
