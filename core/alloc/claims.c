/*
 * claims.c - the steps of an Allocate call that the reference and the fast allocator share (see
 * alloc_impl.h, dra__acall_t): claim preprocessing, the result node selector, result construction,
 * the slot layout and the outcome of a call (the search itself is search_impl.h).
 */
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "alloc/alloc_impl.h"
#include "base/intern.h"

#define XXH_INLINE_ALL
#include <xxhash.h>
#if defined(__SSE2__) && defined(__x86_64__)
#include <emmintrin.h>
#endif

static const char *nz(const char *s)
{
    return s ? s : "";
}

static const char *cref(const dra_claim_t *c, char *buf)
{
    return dra__claim_ref(c, buf, 300);
}

int dra__acall_fatal(dra__acall_t *ac, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(ac->err, sizeof ac->err, fmt, ap);
    va_end(ap);
    return R_FATAL;
}

/* ---- counters (DRA-SEMANTICS §2.10) ---------------------------------------------------------- */

static uint64_t cent_hash(const char *set, const char *name)
{
    return XXH3_64bits(set, strlen(set)) * 0x9E3779B97F4A7C15ull ^ XXH3_64bits(name, strlen(name));
}

/* Rebuild the scope's hash index with room for twice its entries. */
static int scope_index(dra__acall_t *ac, dra__scope_t *sc)
{
    uint32_t nc = sc->icap ? sc->icap : 64;
    while (nc < 2 * sc->n + 2)
        nc *= 2;
    uint32_t *ni = dra_arena_alloc(&ac->scratch, nc * sizeof *ni, 4);
    if (!ni)
        return DRA_ENOMEM;
    memset(ni, 0xff, nc * sizeof *ni);
    for (uint32_t i = 0; i < sc->n; i++) {
        uint32_t j = (uint32_t)sc->e[i].h & (nc - 1);
        while (ni[j] != UINT32_MAX)
            j = (j + 1) & (nc - 1);
        ni[j] = i;
    }
    sc->idx = ni;
    sc->icap = nc;
    return DRA_OK;
}

static dra__cent_t *centry(dra__acall_t *ac, dra__scope_t *sc, const char *set, const char *name, bool add)
{
    uint64_t h = cent_hash(set, name);
    uint32_t j = 0;
    if (sc->icap) {
        for (j = (uint32_t)h & (sc->icap - 1); sc->idx[j] != UINT32_MAX; j = (j + 1) & (sc->icap - 1)) {
            dra__cent_t *e = &sc->e[sc->idx[j]];
            if (e->h == h && (e->name == name || strcmp(e->name, name) == 0) &&
                (e->set == set || strcmp(e->set, set) == 0))
                return e;
        }
    }
    if (!add)
        return NULL;
    if (sc->n == sc->cap) {
        uint32_t nc = sc->cap ? sc->cap * 2 : 16;
        dra__cent_t *ne = dra_arena_realloc(&ac->scratch, sc->e, sc->cap * sizeof *ne, nc * sizeof *ne, 16);
        if (!ne)
            return NULL;
        sc->e = ne;
        sc->cap = nc;
    }
    dra__cent_t *e = &sc->e[sc->n++];
    memset(e, 0, sizeof *e);
    e->set = set;
    e->name = name;
    e->h = h;
    if (2 * sc->n + 2 > sc->icap) {
        if (scope_index(ac, sc) != DRA_OK)
            return NULL;
    } else {
        sc->idx[j] = sc->n - 1; /* j: the empty slot the probe stopped at */
    }
    return e;
}

static void subtract_allocated(dra__acall_t *ac, dra__scope_t *sc, const dra__gpool_t *p,
                               const dra_slice_t *sl)
{
    for (uint32_t d = 0; d < sl->ndevices; d++) {
        const dra_device_t *dev = &sl->devices[d];
        if (!dev->nconsumes || !ac->in_use(ac->self, p, sl, d))
            continue;
        for (uint32_t c = 0; c < dev->nconsumes; c++)
            for (uint32_t k = 0; k < dev->consumes[c].ncounters; k++) {
                dra__cent_t *e = centry(ac, sc, nz(dev->consumes[c].counter_set),
                                   nz(dev->consumes[c].counters[k].name), false);
                if (e && e->has_avail)
                    e->avail -= dra__aq_from(&dev->consumes[c].counters[k].value);
            }
    }
}

struct scc_live_ctx {
    dra__acall_t *ac;
    dra__scope_t *sc;
};

/* A counter set withheld by a live allocation whose charge cannot be established (sharedcap.c):
 * kept once in the scope's list. */
static void scc_live_withhold(void *ctx, const char *set, const char *device, const char *why)
{
    struct scc_live_ctx *x = ctx;
    dra__scope_t *sc = x->sc;
    for (uint32_t i = 0; i < sc->nwh; i++)
        if (!strcmp(sc->wh[i].set, set))
            return;
    if (sc->nwh == sc->whcap) {
        uint32_t nc = sc->whcap ? sc->whcap * 2 : 4;
        struct wheld *nw = dra_arena_realloc(&x->ac->scratch, sc->wh, sc->whcap * sizeof *nw,
                                             nc * sizeof *nw, 8);
        if (!nw) {
            sc->wh_nomem = true;
            return;
        }
        sc->wh = nw;
        sc->whcap = nc;
    }
    sc->wh[sc->nwh++] = (struct wheld){set, device, why};
}

/* What a live allocation draws from a counter the pool defines (one it does not define, as a
 * snapshot's removed counter set, draws from nothing). */
static void scc_live_charge(void *ctx, const char *set, const char *name, dra__aq_t v)
{
    struct scc_live_ctx *x = ctx;
    dra__cent_t *e = centry(x->ac, x->sc, set, name, false);
    if (e && e->has_avail)
        e->avail -= v;
}

static int scope_ready(dra__acall_t *ac, dra__slot_t *st)
{
    dra__scope_t *sc = &ac->scopes[st->scope];
    if (sc->ready)
        return DRA_OK;
    const dra__gpool_t *p = &ac->gp.pools[st->pool];
    if (ac->b.pool_counters) {
        for (uint32_t i = 0; i < p->ncounter_slices; i++) {
            const dra_slice_t *s = p->counter_slices[i];
            for (uint32_t j = 0; j < s->ncounter_sets; j++)
                for (uint32_t k = 0; k < s->counter_sets[j].ncounters; k++) {
                    dra__cent_t *e = centry(ac, sc, nz(s->counter_sets[j].name),
                                       nz(s->counter_sets[j].counters[k].name), true);
                    if (!e)
                        return DRA_ENOMEM;
                    e->has_avail = true;
                    e->avail = dra__aq_from(&s->counter_sets[j].counters[k].value);
                }
        }
        if (ac->b.scc) { /* KEP-5941: the live allocations' snapshots (sharedcap.c) */
            const dra__scc_ledger_t *l = NULL;
            if (ac->state)
                (void)dra__alloc_state_scc(ac->state, &l);
            struct scc_live_ctx x = {ac, sc};
            dra__scc_live(l, p, scc_live_charge, scc_live_withhold, &x);
            if (sc->wh_nomem)
                return DRA_ENOMEM;
        } else {
            for (uint32_t i = 0; i < p->nslices; i++)
                subtract_allocated(ac, sc, p, p->slices[i]);
            for (uint32_t i = 0; i < p->nother; i++)
                subtract_allocated(ac, sc, p, p->other[i]);
        }
    } else {
        const dra_slice_t *s = st->d->slice;
        for (uint32_t j = 0; j < s->ncounter_sets; j++)
            for (uint32_t k = 0; k < s->counter_sets[j].ncounters; k++) {
                dra__cent_t *e = centry(ac, sc, nz(s->counter_sets[j].name),
                                   nz(s->counter_sets[j].counters[k].name), true);
                if (!e)
                    return DRA_ENOMEM;
                e->has_avail = true;
                e->avail = dra__aq_from(&s->counter_sets[j].counters[k].value);
            }
        subtract_allocated(ac, sc, p, s);
    }
    sc->ready = true;
    return DRA_OK;
}

void dra__acall_counters_apply(dra__acall_t *ac, dra__slot_t *st, int sign)
{
    dra__scope_t *sc = &ac->scopes[st->scope];
    const dra_device_t *d = st->d;
    for (uint32_t c = 0; c < d->nconsumes; c++)
        for (uint32_t k = 0; k < d->consumes[c].ncounters; k++) {
            dra__cent_t *e = centry(ac, sc, nz(d->consumes[c].counter_set), nz(d->consumes[c].counters[k].name),
                               true);
            if (e) /* out of memory here only loses precision of a failing call */
                e->consumed += sign * dra__aq_from(&d->consumes[c].counters[k].value);
        }
}

/* 1 reserved, 0 does not fit, <0 error */
int dra__acall_counters_reserve(dra__acall_t *ac, dra__slot_t *st)
{
    int ready = scope_ready(ac, st);
    if (ready)
        return ready == DRA_EFATAL ? R_FATAL : R_NOMEM;
    dra__acall_counters_apply(ac, st, +1);
    dra__scope_t *sc = &ac->scopes[st->scope];
    for (uint32_t i = 0; i < sc->n; i++)
        if (sc->e[i].has_avail && sc->e[i].avail < sc->e[i].consumed) {
            dra__acall_counters_apply(ac, st, -1);
            return 0;
        }
    return 1;
}

/* KEP-5941 (sharedcap.c, rule 3): the request-driven amounts pa of the slot's device (one per
 * valueFrom counter, in consumes / counter order) added to (sign +1) or taken from (-1) what the
 * call consumes. */
void dra__acall_scc_apply(dra__acall_t *ac, dra__slot_t *st, const dra__aq_t *pa, int sign)
{
    dra__scope_t *sc = &ac->scopes[st->scope];
    const dra_device_t *d = st->d;
    uint32_t n = 0;
    for (uint32_t c = 0; pa && c < d->nconsumes; c++)
        for (uint32_t k = 0; k < d->consumes[c].ncounters; k++) {
            if (!d->consumes[c].counters[k].value_from)
                continue;
            dra__cent_t *e = centry(ac, sc, nz(d->consumes[c].counter_set),
                                    nz(d->consumes[c].counters[k].name), true);
            if (e)
                e->consumed += sign * pa[n];
            n++;
        }
}

const struct wheld *dra__acall_scc_withheld(dra__acall_t *ac, dra__slot_t *st, int *rc)
{
    *rc = scope_ready(ac, st);
    if (*rc)
        return NULL;
    const dra__scope_t *sc = &ac->scopes[st->scope];
    for (uint32_t i = 0; i < sc->nwh; i++)
        if (dra__device_draws_from(st->d, sc->wh[i].set))
            return &sc->wh[i];
    return NULL;
}

/* Reserve the amounts pa: 1 reserved, 0 some counter of the scope is overdrawn, < 0 error. */
int dra__acall_scc_reserve(dra__acall_t *ac, dra__slot_t *st, const dra__aq_t *pa)
{
    int ready = scope_ready(ac, st);
    if (ready)
        return ready == DRA_EFATAL ? R_FATAL : R_NOMEM;
    dra__acall_scc_apply(ac, st, pa, +1);
    dra__scope_t *sc = &ac->scopes[st->scope];
    for (uint32_t i = 0; i < sc->n; i++)
        if (sc->e[i].has_avail && sc->e[i].avail < sc->e[i].consumed) {
            dra__acall_scc_apply(ac, st, pa, -1);
            return 0;
        }
    return 1;
}

/* ---- compatibility groups (DRADeviceCompatibilityGroups, RELEASES.md §2) ---------------------- *
 *
 * Devices drawing from one counter set may be allocated together only when the intersection of
 * their group lists is non-empty; a device without groups only goes with devices without groups;
 * counter sets are never compared with each other. The rule covers the devices already allocated
 * (the baseline, their groups read from the slices as upstream's compatibilityGroupsBaselineForPool
 * does at d9009869e0e8) and those picked in this call (a rolling intersection per counter set,
 * undone on backtrack). With the gate off from 1.37 on, a device that declares groups, or one
 * that would join a counter set an allocated device with groups draws from, is skipped instead
 * (upstream's version-skew rule). Both run where the counters are checked, before them. */

dra__cgent_t *dra__cg_entry(dra__acall_t *ac, dra__cglist_t *l, const char *set, bool add)
{
    for (uint32_t i = 0; i < l->n; i++)
        if (strcmp(l->e[i].set, set) == 0)
            return &l->e[i];
    if (!add)
        return NULL;
    if (l->n == l->cap) {
        uint32_t nc = l->cap ? l->cap * 2 : 4;
        dra__cgent_t *ne =
            dra_arena_realloc(&ac->scratch, l->e, l->cap * sizeof *ne, nc * sizeof *ne, 8);
        if (!ne)
            return NULL;
        l->e = ne;
        l->cap = nc;
    }
    dra__cgent_t *e = &l->e[l->n++];
    memset(e, 0, sizeof *e);
    e->set = set;
    return e;
}

static int cg_baseline_slice(dra__acall_t *ac, dra__cglist_t *l, const dra__gpool_t *p,
                             const dra_slice_t *sl)
{
    for (uint32_t d = 0; d < sl->ndevices; d++) {
        const dra_device_t *dev = &sl->devices[d];
        if (!dev->nconsumes || !ac->in_use(ac->self, p, sl, d))
            continue;
        for (uint32_t c = 0; c < dev->nconsumes; c++) {
            dra__cgent_t *e = dra__cg_entry(ac, l, nz(dev->consumes[c].counter_set), true);
            if (!e)
                return DRA_ENOMEM;
            dra__cg_fold(&e->st, &dev->consumes[c]);
        }
    }
    return DRA_OK;
}

int dra__cg_baseline(dra__acall_t *ac, dra__cglist_t *l, const dra__gpool_t *p)
{
    for (uint32_t i = 0; i < p->nslices; i++)
        if (cg_baseline_slice(ac, l, p, p->slices[i]))
            return DRA_ENOMEM;
    for (uint32_t i = 0; i < p->nother; i++)
        if (cg_baseline_slice(ac, l, p, p->other[i]))
            return DRA_ENOMEM;
    return DRA_OK;
}

/* The groups of the allocated devices of the slot's pool (computed once per call and pool). */
static int cg_ready(dra__acall_t *ac, dra__slot_t *st)
{
    dra__scope_t *sc = &ac->scopes[st->scope];
    if (sc->cg_ready)
        return DRA_OK;
    if (dra__cg_baseline(ac, &sc->cg, &ac->gp.pools[st->pool]))
        return DRA_ENOMEM;
    sc->cg_ready = true;
    return DRA_OK;
}

static int cg_push(dra__acall_t *ac, dra__cgstate_t *at)
{
    if (ac->ncgu == ac->capcgu) {
        uint32_t nc = ac->capcgu ? ac->capcgu * 2 : 16;
        struct cgundo *nu = dra_arena_realloc(&ac->scratch, ac->cgu, ac->capcgu * sizeof *nu,
                                              nc * sizeof *nu, 8);
        if (!nu)
            return DRA_ENOMEM;
        ac->cgu = nu;
        ac->capcgu = nc;
    }
    ac->cgu[ac->ncgu].at = at;
    ac->cgu[ac->ncgu].prev = *at;
    ac->ncgu++;
    return DRA_OK;
}

void dra__acall_cg_undo(dra__acall_t *ac, uint32_t n)
{
    while (n-- && ac->ncgu) {
        ac->ncgu--;
        *ac->cgu[ac->ncgu].at = ac->cgu[ac->ncgu].prev;
    }
}

int dra__acall_cg_place(dra__acall_t *ac, dra__slot_t *st, uint32_t *pushed)
{
    *pushed = 0;
    if (!ac->gp.any_groups) /* every device without groups: they all go together */
        return R_OK;
    if (cg_ready(ac, st))
        return R_NOMEM;
    dra__scope_t *sc = &ac->scopes[st->scope];
    const dra_device_t *d = st->d;
    for (uint32_t c = 0; c < d->nconsumes; c++) {
        dra__cgent_t *e = dra__cg_entry(ac, &sc->cg, nz(d->consumes[c].counter_set), true);
        if (!e)
            return R_NOMEM;
        if (!dra__cg_admits(&e->st, &d->consumes[c])) {
            dra__acall_cg_undo(ac, *pushed);
            *pushed = 0;
            return R_FAIL;
        }
        if (cg_push(ac, &e->st))
            return R_NOMEM;
        (*pushed)++;
        dra__cg_fold(&e->st, &d->consumes[c]);
    }
    return R_OK;
}

const char *dra__acall_cg_refusing_set(dra__acall_t *ac, const dra__slot_t *st)
{
    dra__scope_t *sc = &ac->scopes[st->scope];
    const dra_device_t *d = st->d;
    for (uint32_t c = 0; c < d->nconsumes; c++) {
        const char *set = nz(d->consumes[c].counter_set);
        const dra__cgent_t *e = dra__cg_entry(ac, &sc->cg, set, false);
        if (e && !dra__cg_admits(&e->st, &d->consumes[c]))
            return set;
    }
    return NULL;
}

int dra__acall_cg_skip(dra__acall_t *ac, dra__slot_t *st)
{
    const dra_device_t *d = st->d;
    if (!ac->gp.any_groups) /* no device of the node's pools declares groups */
        return 0;
    for (uint32_t c = 0; c < d->nconsumes; c++)
        if (d->consumes[c].ngroups)
            return 1; /* the device declares groups the allocator does not enforce */
    if (cg_ready(ac, st))
        return R_NOMEM;
    dra__scope_t *sc = &ac->scopes[st->scope];
    for (uint32_t c = 0; c < d->nconsumes; c++)
        for (uint32_t i = 0; i < sc->cg.n; i++)
            if (strcmp(sc->cg.e[i].set, nz(d->consumes[c].counter_set)) == 0 &&
                sc->cg.e[i].st.grouped)
                return 1; /* an allocated device on this counter set declared groups (any of
                             them: not the fold's first one) */
    return 0;
}

static bool body_needs_search(const dra__beh_t *b, const dra_exact_request_t *body, bool greedy)
{
    if (body->nderived && (b->derived || b->derived_fatal))
        return true;
    if (body->ncap_requests && b->cc &&
        (b->cap_missing_fatal || b->cap_unrepr_fatal ||
         (greedy && (b->cap_qualified || b->fractional))))
        return true;
    return false;
}

bool dra__claims_need_search(const dra__beh_t *b, dra_claim_t *const *claims, uint32_t n,
                            bool greedy)
{
    for (uint32_t ci = 0; ci < n; ci++)
        for (uint32_t ri = 0; ri < claims[ci]->nrequests; ri++) {
            const dra_request_t *r = &claims[ci]->requests[ri];
            if (r->exactly && body_needs_search(b, r->exactly, greedy))
                return true;
            for (uint32_t s = 0; s < r->nfirst_available; s++)
                if (body_needs_search(b, &r->first_available[s], greedy))
                    return true;
        }
    return false;
}

/* ---- derived attributes (DRADerivedAttributes, RELEASES.md §2) -------------------------------- */

static size_t dm_hash(const dra_device_t *d, const char *expr)
{
    uint64_t x = (uint64_t)(uintptr_t)d * 0x9E3779B97F4A7C15ull ^ (uint64_t)(uintptr_t)expr;
    return (size_t)(x ^ (x >> 29));
}

/* The value of the request's derived attribute da for device d: evaluated once per call and
 * (device, expression), as upstream's derivedAttributesCache. R_OK with *out, R_FATAL (the
 * message in ac->err: "compile derived attribute N failed: ..." / "evaluate derived attribute N
 * on device D failed: ..."), R_NOMEM. */
static int derived_value(dra__acall_t *ac, const dra_derived_attr_t *da, const dra_device_t *d,
                         const dra_attr_t **out)
{
    const char *expr = nz(da->expr);
    if (ac->capdm) {
        for (size_t j = dm_hash(d, expr) & (ac->capdm - 1); ac->dm[j].d;
             j = (j + 1) & (ac->capdm - 1))
            if (ac->dm[j].d == d && (ac->dm[j].expr == expr || strcmp(ac->dm[j].expr, expr) == 0)) {
                *out = ac->dm[j].attr;
                return R_OK;
            }
    }
    const dra_cel_prog_t *prog = NULL;
    dra_diag_t diag;
    dra_diag_clear(&diag);
    int rc = ac->cel ? dra_cel_cache_get_derived(ac->cel, expr, &prog, &diag) : DRA_EINVAL;
    if (rc == DRA_ENOMEM)
        return R_NOMEM;
    if (rc)
        return dra__acall_fatal(ac, "compile derived attribute %s failed: %s", nz(da->name),
                                ac->cel ? diag.msg : "no CEL cache");
    dra_attr_t *at = dra_arena_calloc(&ac->scratch, 1, sizeof *at, 8);
    if (!at)
        return R_NOMEM;
    rc = dra_cel_eval_derived(prog, ac->m, d, &ac->scratch, at, &diag);
    if (rc == DRA_ENOMEM)
        return R_NOMEM;
    if (rc) {
        const dra_slice_t *sl = d->slice;
        return dra__acall_fatal(ac, "evaluate derived attribute %s on device %s/%s/%s failed: %s",
                                nz(da->name), sl ? nz(sl->driver) : "", sl ? nz(sl->pool_name) : "",
                                nz(d->name), diag.msg);
    }
    at->name = da->name;
    at->qname = da->qname;
    if (2 * (ac->ndm + 1) > ac->capdm) { /* grow: rehash into twice the room */
        uint32_t nc = ac->capdm ? ac->capdm * 2 : 64;
        struct dmemo *nm = dra_arena_calloc(&ac->scratch, nc, sizeof *nm, 8);
        if (!nm)
            return R_NOMEM;
        for (uint32_t i = 0; i < ac->capdm; i++)
            if (ac->dm[i].d) {
                size_t j = dm_hash(ac->dm[i].d, ac->dm[i].expr) & (nc - 1);
                while (nm[j].d)
                    j = (j + 1) & (nc - 1);
                nm[j] = ac->dm[i];
            }
        ac->dm = nm;
        ac->capdm = nc;
    }
    size_t j = dm_hash(d, expr) & (ac->capdm - 1);
    while (ac->dm[j].d)
        j = (j + 1) & (ac->capdm - 1);
    ac->dm[j] = (struct dmemo){d, expr, at};
    ac->ndm++;
    *out = at;
    return R_OK;
}

/* The attribute constraint c compares for device d picked for rq: the request's derived
 * attribute of that name when the feature is on (it shadows the driver's attribute), else the
 * device's own (upstream's lookupAttribute). */
static int cons_attr(dra__acall_t *ac, const dra__cons_t *c, const dra__rq_t *rq,
                     const dra_device_t *d, const dra_attr_t **out)
{
    if (ac->b.derived && c->qname)
        for (uint32_t i = 0; i < rq->body->nderived; i++)
            if (rq->body->derived[i].qname == c->qname)
                return derived_value(ac, &rq->body->derived[i], d, out);
    *out = c->qname ? dra_device_attr(d, c->qname) : NULL;
    return R_OK;
}

/* ---- constraints (DRA-SEMANTICS §2.7) -------------------------------------------------------- */

static bool set_intersects(const dra__aval_t *x, uint32_t nx, const dra__aval_t *y, uint32_t ny)
{
    if (!nx || !ny || x[0].base != y[0].base)
        return false;
    for (uint32_t i = 0; i < nx; i++)
        for (uint32_t j = 0; j < ny; j++)
            if (dra__aval_eq(&x[i], &y[j]))
                return true;
    return false;
}

static uint32_t set_intersect_into(dra__aval_t *x, uint32_t nx, const dra__aval_t *y, uint32_t ny)
{
    if (!nx || !ny || x[0].base != y[0].base)
        return nx; /* upstream leaves the set unchanged for different kinds */
    uint32_t k = 0;
    for (uint32_t i = 0; i < nx; i++) {
        bool in = false;
        for (uint32_t j = 0; j < ny && !in; j++)
            in = dra__aval_eq(&x[i], &y[j]);
        if (in)
            x[k++] = x[i];
    }
    return k;
}

static int stk_push(dra__acall_t *ac, dra__cons_t *c, const dra_attr_t *at)
{
    if (c->nstk == c->capstk) {
        uint32_t nc = c->capstk ? c->capstk * 2 : 8;
        const dra_attr_t **ns = dra_arena_realloc(&ac->scratch, (void *)c->stk, c->capstk * sizeof(void *),
                                                  nc * sizeof(void *), 8);
        if (!ns)
            return DRA_ENOMEM;
        c->stk = ns;
        c->capstk = nc;
    }
    c->stk[c->nstk++] = at;
    return DRA_OK;
}

/* 1 added, 0 rejected, <0 out of memory */
int dra__acons_add(dra__acall_t *ac, dra__cons_t *c, const dra__rq_t *rq, uint32_t ci_cons,
                  const dra_device_t *d)
{
    if (c->c->nrequests > 0 && !rq->in_scope[ci_cons])
        return 1;
    const dra_attr_t *at = NULL;
    int arc = cons_attr(ac, c, rq, d, &at);
    if (arc == R_NOMEM)
        return -1;
    if (arc != R_OK)
        return arc; /* R_FATAL */
    if (!at)
        return 0;
    bool bugs = c->distinct ? ac->b.bug_distinct : ac->b.bug_isect;
    dra__aval_t nv[DRA_AVAL_MAX], ov[DRA_AVAL_MAX];
    if (!c->distinct) {
        if (ac->b.lists) {
            uint32_t nn = dra__attr_values(at, nv, DRA_AVAL_MAX);
            if (c->n == 0) {
                if (!nn)
                    return 0;
                memcpy(c->isect, nv, nn * sizeof nv[0]);
                c->nisect = nn;
            } else {
                if (!nn)
                    return 0;
                if (bugs) {
                    if (!set_intersects(c->isect, c->nisect, nv, nn))
                        return 0;
                    c->nisect = set_intersect_into(c->isect, c->nisect, nv, nn);
                } else {
                    /* fixed: intersection over every device currently in the set */
                    uint32_t k = nn;
                    for (uint32_t i = 0; i < c->nstk && k; i++) {
                        uint32_t no = dra__attr_values(c->stk[i], ov, DRA_AVAL_MAX);
                        if (!set_intersects(nv, k, ov, no))
                            return 0;
                        k = set_intersect_into(nv, k, ov, no);
                    }
                    if (!k)
                        return 0;
                }
            }
        } else {
            if (c->n == 0) {
                c->ref = at;
            } else if (!dra__attr_is_scalar(at) || !dra__attr_scalar_eq(at, c->ref)) {
                return 0;
            }
        }
        if (!bugs && stk_push(ac, c, at))
            return -1;
        c->n++;
        return 1;
    }
    /* distinctAttribute */
    const char *key = rq->parent->name;
    if (c->n > 0) {
        uint32_t nold = bugs ? c->nmap : c->nstk;
        if (ac->b.lists) {
            uint32_t nn = dra__attr_values(at, nv, DRA_AVAL_MAX);
            if (!nn)
                return 0;
            for (uint32_t i = 0; i < nold; i++) {
                const dra_attr_t *o = bugs ? c->map[i].a : c->stk[i];
                uint32_t no = dra__attr_values(o, ov, DRA_AVAL_MAX);
                if (no && set_intersects(nv, nn, ov, no))
                    return 0;
            }
        } else {
            for (uint32_t i = 0; i < nold; i++) {
                const dra_attr_t *o = bugs ? c->map[i].a : c->stk[i];
                if (!dra__attr_is_scalar(at))
                    return 0;
                if (dra__attr_scalar_eq(at, o))
                    return 0;
            }
        }
    }
    if (bugs) {
        uint32_t i;
        for (i = 0; i < c->nmap; i++)
            if (strcmp(c->map[i].req, key) == 0)
                break;
        if (i == c->nmap) {
            if (c->nmap == c->capmap) {
                uint32_t nc = c->capmap ? c->capmap * 2 : 8;
                void *nm = dra_arena_realloc(&ac->scratch, c->map, c->capmap * sizeof c->map[0],
                                             nc * sizeof c->map[0], 8);
                if (!nm)
                    return -1;
                c->map = nm;
                c->capmap = nc;
            }
            c->nmap++;
        }
        c->map[i].req = key;
        c->map[i].a = at;
    } else if (stk_push(ac, c, at)) {
        return -1;
    }
    c->n++;
    return 1;
}

void dra__acons_remove(dra__acall_t *ac, dra__cons_t *c, const dra__rq_t *rq, uint32_t ci_cons)
{
    if (c->c->nrequests > 0 && !rq->in_scope[ci_cons])
        return;
    if (c->distinct ? ac->b.bug_distinct : ac->b.bug_isect) {
        if (c->distinct) {
            for (uint32_t i = 0; i < c->nmap; i++)
                if (strcmp(c->map[i].req, rq->parent->name) == 0) {
                    c->map[i] = c->map[c->nmap - 1];
                    c->nmap--;
                    break;
                }
        }
    } else if (c->nstk) {
        c->nstk--;
    }
    c->n--;
}

/* ---- allocateDevice (DRA-SEMANTICS §2.9) ---------------------------------------------------- */

/* A shareID's hash input: per field its length (8 bytes, little endian) then its bytes, so no
 * two different field lists feed the same bytes; the fields are the namespace, the claim's
 * name, the driver, the pool, the device, then the index and the attempt (4 bytes each, little
 * endian, as one 8-byte field). Built in a stack buffer when it fits (one XXH3 call), else fed
 * to a streaming state: the same bytes, the same hash. Each field's length is taken once. */
static void put_le64(unsigned char *b, uint64_t v)
{
    b[0] = (unsigned char)v;
    b[1] = (unsigned char)(v >> 8);
    b[2] = (unsigned char)(v >> 16);
    b[3] = (unsigned char)(v >> 24);
    b[4] = (unsigned char)(v >> 32);
    b[5] = (unsigned char)(v >> 40);
    b[6] = (unsigned char)(v >> 48);
    b[7] = (unsigned char)(v >> 56);
}

static void sid_field(XXH3_state_t *h, const void *p, size_t n)
{
    unsigned char len[8];
    put_le64(len, n);
    XXH3_128bits_update(h, len, sizeof len);
    if (n)
        XXH3_128bits_update(h, p, n);
}

/* The 16 hex digits of v (lowercase), most significant first, all at once: each nibble spread
 * to a byte, '0' added, and 'a' - '0' - 10 more to the bytes above 9 (two 8-digit halves in
 * 64-bit arithmetic, or one 16-byte vector where SSE2 is there: every x86-64). */
static inline void hex16(char *o, uint64_t v)
{
#if defined(__SSE2__) && defined(__x86_64__)
    __m128i b = _mm_cvtsi64_si128((long long)__builtin_bswap64(v)); /* most significant first */
    const __m128i f = _mm_set1_epi8(0x0f);
    __m128i d = _mm_unpacklo_epi8(_mm_and_si128(_mm_srli_epi16(b, 4), f), _mm_and_si128(b, f));
    __m128i above9 = _mm_and_si128(_mm_cmpgt_epi8(d, _mm_set1_epi8(9)), _mm_set1_epi8('a' - '0' - 10));
    _mm_storeu_si128((__m128i *)(void *)o, _mm_add_epi8(d, _mm_add_epi8(above9, _mm_set1_epi8('0'))));
#else
    for (int h = 0; h < 2; h++) {
        uint64_t x = (uint32_t)(v >> (32 - 32 * h));
        x = ((x & 0xffff0000u) << 16) | (x & 0xffffu);
        x = ((x & 0x0000ff000000ff00ULL) << 8) | (x & 0x000000ff000000ffULL);
        x = ((x & 0x00f000f000f000f0ULL) << 4) | (x & 0x000f000f000f000fULL);
        uint64_t above9 = ((x + 0x0606060606060606ULL) >> 4) & 0x0101010101010101ULL;
        x += 0x3030303030303030ULL + above9 * ('a' - '0' - 10);
        x = __builtin_bswap64(x); /* the most significant digit first in memory */
        memcpy(o + 8 * h, &x, 8);
    }
#endif
}

/* The input's layout once the fields and their lengths are in b (both begins). */
static void sid_layout(dra__sid_t *b, uint64_t seed, uint32_t index)
{
    b->seed = seed;
    b->index = index;
    size_t total = 6 * 8 + 8; /* six length fields, the index and the attempt */
    for (int i = 0; i < 5; i++)
        total += b->n[i];
    b->total = total;
    if (total > DRA__SID_STACK) /* fed to a streaming state at each attempt */
        return;
    unsigned char *o = b->in; /* each field's length and bytes, in one pass */
    for (int i = 0; i < 5; i++) {
        put_le64(o, b->n[i]);
        memcpy(o + 8, b->f[i], b->n[i]);
        o += 8 + b->n[i];
    }
    put_le64(o, 8); /* the attempt's field: its length now, its 8 bytes at each attempt */
}

void dra__share_id_claim(const dra_claim_t *c, const char *f[2], size_t n[2])
{
    f[0] = c && c->namespace_ ? c->namespace_ : "default";
    f[1] = c ? nz(c->name) : "";
    n[0] = strlen(f[0]);
    n[1] = strlen(f[1]);
}

void dra__share_id_begin(dra__sid_t *b, uint64_t seed, const dra_claim_t *c, uint32_t index,
                         const char *driver, const char *pool, const char *device)
{
    const char *f[2];
    size_t n[2];
    dra__share_id_claim(c, f, n);
    dra__share_id_begin_named(b, seed, f, n, index, driver, pool, device);
}

void dra__share_id_begin_named(dra__sid_t *b, uint64_t seed, const char *const f[2],
                               const size_t n[2], uint32_t index, const char *driver,
                               const char *pool, const char *device)
{
    b->f[0] = f[0];
    b->f[1] = f[1];
    b->n[0] = n[0];
    b->n[1] = n[1];
    b->f[2] = nz(driver);
    b->f[3] = nz(pool);
    b->f[4] = nz(device);
    for (int i = 2; i < 5; i++)
        b->n[i] = strlen(b->f[i]);
    sid_layout(b, seed, index);
}

void dra__share_id_attempt(dra__sid_t *b, uint32_t attempt, char buf[37])
{
    uint64_t num = (uint64_t)b->index | (uint64_t)attempt << 32;
    XXH128_hash_t v;
    if (b->total <= DRA__SID_STACK) { /* one hash of the input with this attempt's 8 bytes */
        put_le64(b->in + b->total - 8, num);
        v = XXH3_128bits_withSeed(b->in, b->total, b->seed);
    } else {
        unsigned char nb[8];
        put_le64(nb, num);
        XXH3_state_t h;
        XXH3_INITSTATE(&h);
        XXH3_128bits_reset_withSeed(&h, b->seed);
        for (int i = 0; i < 5; i++)
            sid_field(&h, b->f[i], b->n[i]);
        sid_field(&h, nb, sizeof nb);
        v = XXH3_128bits_digest(&h);
    }
    /* UUID version 4, variant 10: xxxxxxxx-xxxx-4xxx-[89ab]xxx-xxxxxxxxxxxx - the hex digits of
     * high64 with its 13th digit the version, then of low64 with its first the variant */
    uint64_t x = (v.high64 & ~0xf000ULL) | 0x4000ULL;
    uint64_t y = (v.low64 & ~(0xfULL << 60)) | ((8 + ((v.low64 >> 60) & 3)) << 60);
    char hx[16], hy[16];
    hex16(hx, x);
    hex16(hy, y);
    memcpy(buf, hx, 8);
    buf[8] = '-';
    memcpy(buf + 9, hx + 8, 4);
    buf[13] = '-';
    memcpy(buf + 14, hx + 12, 4);
    buf[18] = '-';
    memcpy(buf + 19, hy, 4);
    buf[23] = '-';
    memcpy(buf + 24, hy + 4, 12);
    buf[36] = 0;
}

void dra__share_id(uint64_t seed, const dra_claim_t *c, uint32_t index, const char *driver,
                   const char *pool, const char *device, uint32_t attempt, char buf[37])
{
    dra__sid_t b;
    dra__share_id_begin(&b, seed, c, index, driver, pool, device);
    dra__share_id_attempt(&b, attempt, buf);
}

/* Whether the text is the shareID of another result of this call on the same slot. */
static bool share_taken_in_call(const dra__acall_t *ac, uint32_t slot, const char *id)
{
    for (uint32_t ci = 0; ci < ac->nclaims; ci++) {
        const dra__cl_t *cl = &ac->cls[ci];
        for (uint32_t i = 0; i < cl->nres; i++)
            if (cl->res[i].multi && cl->res[i].slot == slot && !strcmp(cl->res[i].share, id))
                return true;
    }
    return false;
}

void dra__acall_share_id(dra__acall_t *ac, uint32_t ci, uint32_t slot, char buf[37])
{
    const dra__cl_t *cl = &ac->cls[ci];
    const dra__slot_t *st = &ac->slots[slot];
    const dra__gpool_t *p = &ac->gp.pools[st->pool];
    const char *dev = nz(st->d->name);
    bool live = st->persist_share && ac->state;
    uint32_t first = live ? dra_alloc_state_shares(ac->state, nz(p->driver), nz(p->name), dev) : 0;
    dra__sid_t b; /* the hash input built once, each attempt its last 8 bytes */
    dra__share_id_begin(&b, ac->share_seed, cl->c, cl->nres, p->driver, p->name, dev);
    for (uint32_t attempt = first;; attempt++) {
        dra__share_id_attempt(&b, attempt, buf);
        if (!(live && dra_alloc_state_row_has_share(ac->state, ac->rows ? st->row : UINT32_MAX,
                                                    nz(p->driver), nz(p->name), dev, buf)) &&
            !share_taken_in_call(ac, slot, buf))
            return;
    }
}

/* The device ID as upstream prints a DeviceID: driver/pool/device. */
static const char *device_id(const dra__acall_t *ac, const dra__slot_t *st, char *buf, size_t len)
{
    const dra__gpool_t *p = &ac->gp.pools[st->pool];
    snprintf(buf, len, "%s/%s/%s", nz(p->driver), nz(p->name), nz(st->d->name));
    return buf;
}

int dra__acall_capacity_fits(dra__acall_t *ac, uint32_t ci, const dra__rq_t *rq, dra__slot_t *st,
                             const char *verb)
{
    if (ac->slot_ready && ac->slot_ready(ac->self, st))
        return R_NOMEM;
    dra__capmode_t m = dra__capmode(&ac->b);
    char why[DRA_DIAG_MSG_MAX / 2];
    int rc = dra__cap_fits_m(&m, rq->body, st->d, st->existing, st->allocating, why, sizeof why);
    if (rc >= 0)
        return rc;
    if (rc == DRA__CAP_MISSING) {
        if (!ac->b.cap_missing_fatal)
            return 0;
        snprintf(why, sizeof why, "some requested capacity has not been defined");
    }
    char cb[300], db[400];
    return dra__acall_fatal(ac, "claim %s, request %s: %s capacity for device %s: %s",
                            cref(ac->cls[ci].c, cb), nz(rq->body->name), verb,
                            device_id(ac, st, db, sizeof db), why);
}

int dra__acall_allocate_device(dra__acall_t *ac, uint32_t ci, uint32_t rqi, uint32_t slot, bool must)
{
    dra__cl_t *cl = &ac->cls[ci];
    const dra__rq_t *rq = &ac->rqs[rqi];
    dra__slot_t *st = &ac->slots[slot];
    const dra_device_t *d = st->d;
    bool bugs = ac->b.bug_rollback;
    bool multi = ac->b.cc && d->allow_multiple_allocations;
    bool admin = rq->body->admin_access && !rq->is_sub;
    if (ac->slot_ready && ac->slot_ready(ac->self, st))
        return R_NOMEM;
    if (!multi && admin && dra__slot_taken_by(st, ci))
        return R_FAIL;
    if (!admin && (st->excl || st->ntaken > 0))
        return R_FAIL;
    /* #140798 (1.38-pre; BUG(19) before): a live share blocks an exclusive allocation of a device
     * whose slice no longer allows multiple allocations */
    if (!admin && !multi && ac->b.share_blocks_excl && (st->persist_cap || st->persist_share))
        return R_FAIL;
    if (!ac->b.pd && d->nconsumes > 0)
        return R_FAIL;
    bool cap_in_use =
        st->persist_cap || st->nallocating > 0 || (!ac->b.bug_persisted_share && st->persist_share);
    bool skip_counters = multi && cap_in_use;
    bool charged = false;
    uint32_t cgn = 0; /* compatibility-group undo records of this device */
    /* KEP-5941 (sharedcap.c, rules 1 and 3): the request-driven amounts, charged on every
     * allocation, a further share of a device in use too; resolved first, so an unrepresentable
     * request is fatal whatever the counters hold */
    dra__aq_t *pa = NULL;
    uint32_t npa = ac->b.scc ? dra__scc_nvalue_from(d) : 0;
    if (npa) {
        pa = dra_arena_alloc(&ac->scratch, npa * sizeof *pa, 16);
        if (!pa)
            return R_NOMEM;
        char why[DRA_DIAG_MSG_MAX / 2];
        int fit = dra__scc_amounts(&ac->b, &ac->gp.pools[st->pool], rq->body, d, pa, why,
                                   sizeof why);
        if (fit < 0) {
            char cb[300], db[400];
            return dra__acall_fatal(ac, "claim %s, request %s: checking counters for device %s: %s",
                                    cref(cl->c, cb), nz(rq->body->name),
                                    device_id(ac, st, db, sizeof db), why);
        }
        if (!fit)
            return R_FAIL;
    }
    /* the fail-closed rule (sharedcap.c): no device drawing from a withheld counter set, a
     * further share of a device in use neither */
    if (ac->b.scc && d->nconsumes) {
        int rc;
        if (dra__acall_scc_withheld(ac, st, &rc))
            return R_FAIL;
        if (rc)
            return rc == DRA_EFATAL ? R_FATAL : R_NOMEM;
    }
    if (npa) {
        int rc = dra__acall_scc_reserve(ac, st, pa);
        if (rc < 0)
            return rc;
        if (!rc)
            return R_FAIL;
    }
    if (!skip_counters && d->nconsumes > 0) {
        if (ac->b.cg) {
            int rc = dra__acall_cg_place(ac, st, &cgn);
            if (rc != R_OK) {
                dra__acall_scc_apply(ac, st, pa, -1);
                return rc;
            }
        } else if (ac->b.cg_skip) {
            int rc = dra__acall_cg_skip(ac, st);
            if (rc) {
                dra__acall_scc_apply(ac, st, pa, -1);
                return rc < 0 ? rc : R_FAIL;
            }
        }
        int rc = dra__acall_counters_reserve(ac, st);
        if (rc <= 0) {
            dra__acall_cg_undo(ac, cgn);
            dra__acall_scc_apply(ac, st, pa, -1);
        }
        if (rc < 0)
            return rc;
        if (!rc)
            return R_FAIL;
        charged = true;
    }
    if (ac->b.taints && dra__taint_blocks(d, rq->body->tolerations, rq->body->ntolerations)) {
        if (charged && !bugs) /* BUG(1): counters leak */
            dra__acall_counters_apply(ac, st, -1);
        dra__acall_scc_apply(ac, st, pa, -1); /* 1.38-pre only: no BUG(1) there */
        dra__acall_cg_undo(ac, cgn);
        return R_FAIL;
    }
    for (uint32_t i = 0; i < cl->ncons; i++) {
        int rc = dra__acons_add(ac, &cl->cons[i], rq, i, d);
        if (rc < 0) { /* out of memory, or a derived attribute's fatal error */
            for (uint32_t e = 0; e < i; e++)
                dra__acons_remove(ac, &cl->cons[e], rq, e);
            if (charged && !bugs)
                dra__acall_counters_apply(ac, st, -1);
            dra__acall_scc_apply(ac, st, pa, -1);
            dra__acall_cg_undo(ac, cgn);
            return rc == R_FATAL ? R_FATAL : R_NOMEM;
        }
        if (!rc) {
            if (must) {
                char cb[300];
                const dra__gpool_t *p = &ac->gp.pools[st->pool];
                return dra__acall_fatal(ac,
                             "claim %s, request %s: cannot add device %s/%s/%s because a claim "
                             "constraint would not be satisfied",
                             cref(cl->c, cb), nz(rq->body->name), p->driver, p->name, nz(d->name));
            }
            for (uint32_t e = 0; e < i; e++)
                dra__acons_remove(ac, &cl->cons[e], rq, e);
            if (charged && !bugs) /* BUG(1) */
                dra__acall_counters_apply(ac, st, -1);
            dra__acall_scc_apply(ac, st, pa, -1);
            dra__acall_cg_undo(ac, cgn);
            return R_FAIL;
        }
    }
    if (!multi)
        dra__slot_take(st, ci);
    dra__res_t *r = &cl->res[cl->nres];
    memset(r, 0, sizeof *r);
    if (ac->b.cc) {
        int fits = dra__acall_capacity_fits(ac, ci, rq, st, "rechecking");
        if (fits == R_NOMEM)
            return R_NOMEM;
        if (fits != 1) {
            if (!bugs) { /* BUG(2): taken mark, constraints and counters leak */
                if (!multi)
                    dra__slot_untake(st, ci);
                for (uint32_t e = cl->ncons; e-- > 0;)
                    dra__acons_remove(ac, &cl->cons[e], rq, e);
                if (charged)
                    dra__acall_counters_apply(ac, st, -1);
                dra__acall_scc_apply(ac, st, pa, -1);
                dra__acall_cg_undo(ac, cgn);
            }
            return fits == R_FATAL ? R_FATAL : R_FAIL;
        }
        if (multi) {
            r->consumed = dra__acall_consumed(ac, cl);
            if (!r->consumed)
                return R_NOMEM;
            if (d->ncaps && !st->allocating) {
                st->allocating = dra_arena_calloc(&ac->scratch, d->ncaps, sizeof(dra__aq_t), 16);
                if (!st->allocating)
                    return R_NOMEM;
            }
            dra__capmode_t cm = dra__capmode(&ac->b);
            for (uint32_t c = 0; c < d->ncaps; c++) {
                char why[8];
                /* representable: the fit above computed the same amount */
                (void)dra__cap_consumed_m(&cm,
                                          dra__cap_request_for(rq->body, d, d->caps[c].name,
                                                               cm.qualified),
                                          &d->caps[c], &r->consumed[c], why, sizeof why);
                st->allocating[c] += r->consumed[c];
            }
            st->nallocating++;
            dra__acall_share_id(ac, ci, slot, r->share);
        }
    }
    r->slot = slot;
    r->rq = rqi;
    r->multi = multi;
    r->charged = charged;
    r->cg_undo = cgn;
    r->pa = pa;
    cl->nres++;
    return R_OK;
}

/* ---- allocateDevice undo -------------------------------------------------------------------- */

void dra__acall_deallocate(dra__acall_t *ac, uint32_t ci)
{
    dra__cl_t *cl = &ac->cls[ci];
    dra__res_t *r = &cl->res[cl->nres - 1];
    dra__slot_t *st = &ac->slots[r->slot];
    const dra__rq_t *rq = &ac->rqs[r->rq];
    for (uint32_t e = cl->ncons; e-- > 0;)
        dra__acons_remove(ac, &cl->cons[e], rq, e);
    dra__slot_untake(st, ci);
    if (r->multi) {
        if (r->consumed)
            for (uint32_t c = 0; c < st->d->ncaps; c++)
                st->allocating[c] -= r->consumed[c];
        st->nallocating--;
        if (r->charged && !ac->b.bug_rollback) /* BUG(1): a multi-allocatable device keeps its counters */
            dra__acall_counters_apply(ac, st, -1);
    } else if (r->charged) {
        dra__acall_counters_apply(ac, st, -1);
    }
    dra__acall_scc_apply(ac, st, r->pa, -1);
    dra__acall_cg_undo(ac, r->cg_undo); /* the newest records: results are undone LIFO */
    cl->nres--;
}

/* ---- results ------------------------------------------------------------------------------- */

dra__aq_t *dra__acall_consumed(dra__acall_t *ac, dra__cl_t *cl)
{
    size_t per = ac->maxcaps ? ac->maxcaps : 1;
    if (!cl->consumed_pool) {
        cl->consumed_pool =
            dra_arena_calloc(&ac->scratch, (DRA_ALLOC_MAX_RESULTS + 1) * per, sizeof(dra__aq_t), 16);
        if (!cl->consumed_pool)
            return NULL;
    }
    return cl->consumed_pool + (size_t)cl->nres * per;
}

static bool name_listed(const char *const *list, uint32_t n, const char *name)
{
    for (uint32_t i = 0; i < n; i++)
        if (strcmp(nz(list[i]), name) == 0)
            return true;
    return false;
}

int dra__acall_preprocess(dra__acall_t *ac, dra_claim_t *const *claims, bool need_sel,
                         dra_acall_validate_fn validate, void *self)
{
    dra_arena_t *ar = &ac->scratch;
    uint32_t nrq = 0;
    for (uint32_t ci = 0; ci < ac->nclaims; ci++)
        for (uint32_t ri = 0; ri < claims[ci]->nrequests; ri++) {
            const dra_request_t *r = &claims[ci]->requests[ri];
            nrq += r->nfirst_available ? r->nfirst_available : 1;
        }
    /* KEP-5941 with the gate on: the allocation state keeps the live snapshots (the states whose
     * charge cannot be established withhold counter sets, sharedcap.c rule 6; nothing fails) */
    if (ac->b.scc && dra__scc_check_pools(&ac->b, ac->state, &ac->gp, ac->err, sizeof ac->err))
        return R_FATAL;
    ac->nrqs = nrq;
    ac->rqs = dra_arena_calloc(ar, nrq ? nrq : 1, sizeof(dra__rq_t), 16);
    ac->cls = dra_arena_calloc(ar, ac->nclaims ? ac->nclaims : 1, sizeof(dra__cl_t), 16);
    size_t nsel = need_sel ? (size_t)ac->nslots * nrq + 1 : 1;
    ac->sel = dra_arena_alloc(ar, nsel, 1);
    if (!ac->rqs || !ac->cls || !ac->sel)
        return R_NOMEM;
    memset(ac->sel, 0xff, nsel);
    uint32_t k = 0;
    char cb[300];
    for (uint32_t ci = 0; ci < ac->nclaims; ci++) {
        dra__cl_t *cl = &ac->cls[ci];
        const dra_claim_t *c = claims[ci];
        cl->c = c;
        cl->rq_first = dra_arena_calloc(ar, c->nrequests + 1, sizeof(uint32_t), 4);
        cl->nsub = dra_arena_calloc(ar, c->nrequests + 1, sizeof(uint32_t), 4);
        cl->selected = dra_arena_calloc(ar, c->nrequests + 1, sizeof(uint32_t), 4);
        cl->consumed_pool = NULL; /* allocated on the first multi-allocatable result */
        cl->ncons = c->nconstraints;
        cl->cons = dra_arena_calloc(ar, c->nconstraints + 1, sizeof(dra__cons_t), 16);
        if (!cl->rq_first || !cl->nsub || !cl->selected || !cl->cons)
            return R_NOMEM;
        int64_t min_claim = 0;
        for (uint32_t ri = 0; ri < c->nrequests; ri++) {
            const dra_request_t *r = &c->requests[ri];
            bool subs = r->nfirst_available > 0;
            if (!ac->b.prio && subs)
                return dra__acall_fatal(ac, "claim %s, request %s: has subrequests, but the DRAPrioritizedList feature is disabled",
                             cref(c, cb), nz(r->name));
            if (!ac->b.cc) {
                if (r->exactly && r->exactly->has_capacity)
                    return dra__acall_fatal(ac, "claim %s, request %s: has capacity requests, but the DRAConsumableCapacity feature is disabled",
                                 cref(c, cb), nz(r->name));
                for (uint32_t s = 0; s < r->nfirst_available; s++)
                    if (r->first_available[s].has_capacity)
                        return dra__acall_fatal(ac, "claim %s, subrequest %s: has capacity requests, but the DRAConsumableCapacity feature is disabled",
                                     cref(c, cb), nz(r->first_available[s].name));
            }
            cl->rq_first[ri] = k;
            cl->nsub[ri] = subs ? r->nfirst_available : 0;
            if (!subs && !r->exactly)
                return dra__acall_fatal(ac, "claim %s, request %s: missing device class name (unsupported request type?)",
                             cref(c, cb), nz(r->name));
            uint32_t nalt = subs ? r->nfirst_available : 1;
            int64_t min_req = INT64_MAX;
            for (uint32_t s = 0; s < nalt; s++, k++) {
                dra__rq_t *rq = &ac->rqs[k];
                rq->key = k;
                rq->parent = r;
                rq->is_sub = subs;
                rq->body = subs ? &r->first_available[s] : r->exactly;
                if (subs) {
                    size_t ln = strlen(nz(r->name)) + strlen(nz(rq->body->name)) + 2;
                    char *nm = dra_arena_alloc(ar, ln, 1);
                    if (!nm)
                        return R_NOMEM;
                    snprintf(nm, ln, "%s/%s", nz(r->name), nz(rq->body->name));
                    rq->name = nm;
                } else {
                    rq->name = nz(r->name);
                }
                rq->in_scope = dra_arena_calloc(ar, c->nconstraints + 1, sizeof(bool), 1);
                if (!rq->in_scope)
                    return R_NOMEM;
                for (uint32_t x = 0; x < c->nconstraints; x++) {
                    const dra_constraint_t *cn = &c->constraints[x];
                    rq->in_scope[x] = name_listed(cn->requests, cn->nrequests, nz(r->name)) ||
                                      (subs && name_listed(cn->requests, cn->nrequests, rq->name));
                }
                int rc = validate(self, ci, k);
                if (rc)
                    return rc;
                if (rq->num < min_req)
                    min_req = rq->num;
            }
            /* #141307: the sum must not wrap (upstream's int did before 1.38-pre and the 1.37
             * patch releases); saturating keeps every oversized claim over the limit */
            min_claim = min_req > 0 && min_claim > INT64_MAX - min_req ? INT64_MAX : min_claim + min_req;
        }
        if (min_claim > DRA_ALLOC_MAX_RESULTS)
            return dra__acall_fatal(ac, "claim %s: number of requested devices %lld exceeds the claim limit of %d",
                         cref(c, cb), (long long)min_claim, DRA_ALLOC_MAX_RESULTS);
        for (uint32_t x = 0; x < c->nconstraints; x++) {
            const dra_constraint_t *cn = &c->constraints[x];
            dra__cons_t *co = &cl->cons[x];
            co->c = cn;
            const char *nm = NULL;
            if (cn->match_attribute) {
                nm = cn->match_attribute;
            } else if (cn->distinct_attribute && ac->b.cc) {
                nm = cn->distinct_attribute;
                co->distinct = true;
            } else {
                return dra__acall_fatal(ac, "claim %s, constraint #%u: empty constraint (unsupported constraint type?)",
                             cref(c, cb), x);
            }
            co->qname = dra_intern_find(&ac->m->intern, nm, strlen(nm));
        }
    }
    return DRA_OK;
}

/* ---- results (DRA-SEMANTICS §2.14) ----------------------------------------------------------- */

static int build_node_selector(dra__acall_t *ac, dra__cl_t *cl, dra_arena_t *out,
                               const dra_node_selector_t **res)
{
    *res = NULL;
    dra_ns_req_t *fields = NULL, *exprs = NULL;
    uint32_t nf = 0, ne = 0, capf = 0, cape = 0;
    for (uint32_t i = 0; i < cl->nres; i++) {
        const dra__slot_t *st = &ac->slots[cl->res[i].slot];
        const dra_device_t *d = st->d;
        const dra_slice_t *sl = d->slice;
        const char *nn;
        const dra_node_selector_t *sel;
        if (sl->per_device_node_selection) {
            nn = d->node_name;
            sel = d->node_selector;
        } else {
            nn = sl->node_name;
            sel = sl->node_selector;
        }
        if ((nn && nn[0]) || (ac->b.binds_to_node && d->binds_to_node)) {
            dra_node_selector_t *ns = dra_arena_calloc(out, 1, sizeof *ns, 8);
            dra_ns_term_t *t = dra_arena_calloc(out, 1, sizeof *t, 8);
            dra_ns_req_t *r = dra_arena_calloc(out, 1, sizeof *r, 8);
            const char **vals = dra_arena_calloc(out, 1, sizeof(char *), 8);
            if (!ns || !t || !r || !vals)
                return R_NOMEM;
            vals[0] = ac->node->name;
            r->key = "metadata.name";
            r->op = DRA_NS_IN;
            r->op_raw = "In";
            r->values = vals;
            r->nvalues = 1;
            t->fields = r;
            t->nfields = 1;
            ns->terms = t;
            ns->nterms = 1;
            *res = ns;
            return DRA_OK;
        }
        if (!sel)
            continue;
        if (sel->nterms > 1) {
            return dra__acall_fatal(ac, "create NodeSelector for claim %s: unsupported ResourceSlice.NodeSelector with %u terms",
                         nz(cl->c->name), sel->nterms);
        }
        if (sel->nterms == 0)
            continue;
        const dra_ns_term_t *t = &sel->terms[0];
        for (int pass = 0; pass < 2; pass++) {
            const dra_ns_req_t *src = pass ? t->exprs : t->fields;
            uint32_t nsrc = pass ? t->nexprs : t->nfields;
            dra_ns_req_t **dst = pass ? &exprs : &fields;
            uint32_t *nd = pass ? &ne : &nf, *capd = pass ? &cape : &capf;
            for (uint32_t j = 0; j < nsrc; j++) {
                bool dup = false;
                for (uint32_t x = 0; x < *nd && !dup; x++)
                    dup = dra__ns_req_equal(&(*dst)[x], &src[j]);
                if (dup)
                    continue;
                if (*nd == *capd) {
                    uint32_t nc = *capd ? *capd * 2 : 4;
                    dra_ns_req_t *nr = dra_arena_realloc(out, *dst, *capd * sizeof **dst, nc * sizeof **dst, 8);
                    if (!nr)
                        return R_NOMEM;
                    *dst = nr;
                    *capd = nc;
                }
                (*dst)[(*nd)++] = src[j];
            }
        }
    }
    if (!nf && !ne)
        return DRA_OK;
    dra_node_selector_t *ns = dra_arena_calloc(out, 1, sizeof *ns, 8);
    dra_ns_term_t *t = dra_arena_calloc(out, 1, sizeof *t, 8);
    if (!ns || !t)
        return R_NOMEM;
    t->fields = fields;
    t->nfields = nf;
    t->exprs = exprs;
    t->nexprs = ne;
    ns->terms = t;
    ns->nterms = 1;
    *res = ns;
    return DRA_OK;
}

/* Whether config cf names every top-level request of the claim, by its name or by the chosen
 * subrequest's "req/sub" (1.37's allocator then stores requests=nil: "applies to all"). */
static bool covers_all(const dra__acall_t *ac, const dra__cl_t *cl, const dra_claim_t *c,
                       const dra_alloc_config_t *cf)
{
    for (uint32_t ri = 0; ri < c->nrequests; ri++) {
        if (name_listed(cf->requests, cf->nrequests, nz(c->requests[ri].name)))
            continue;
        if (!cl->nsub[ri] ||
            !name_listed(cf->requests, cf->nrequests, ac->rqs[cl->rq_first[ri] + cl->selected[ri]].name))
            return false;
    }
    return true;
}

int dra__acall_build_results(dra__acall_t *ac, dra_arena_t *out)
{
    ac->out->allocations = dra_arena_calloc(out, ac->nclaims ? ac->nclaims : 1, sizeof(dra_allocation_t *), 8);
    if (!ac->out->allocations)
        return R_NOMEM;
    for (uint32_t ci = 0; ci < ac->nclaims; ci++) {
        dra__cl_t *cl = &ac->cls[ci];
        const dra_claim_t *c = cl->c;
        dra_allocation_t *al = dra_arena_calloc(out, 1, sizeof *al, 8);
        if (!al)
            return R_NOMEM;
        al->results = dra_arena_calloc(out, cl->nres ? cl->nres : 1, sizeof(dra_result_t), 8);
        if (!al->results)
            return R_NOMEM;
        const dra_counter_snapshot_t **snaps = NULL; /* KEP-5941, gate on (sharedcap.c) */
        const dra__scc_ledger_t *ledger = NULL;
        if (ac->b.scc) {
            snaps = dra_arena_calloc(out, cl->nres ? cl->nres : 1, sizeof *snaps, 8);
            if (!snaps)
                return R_NOMEM;
            if (ac->state)
                (void)dra__alloc_state_scc(ac->state, &ledger);
            al->counters = snaps;
        }
        for (uint32_t i = 0; i < cl->nres; i++) {
            const dra__res_t *r = &cl->res[i];
            const dra__slot_t *st = &ac->slots[r->slot];
            const dra__rq_t *rq = &ac->rqs[r->rq];
            const dra__gpool_t *p = &ac->gp.pools[st->pool];
            dra_result_t *o = &al->results[i];
            o->request = dra_arena_strdup(out, rq->name);
            o->driver = p->driver;
            o->pool = p->name;
            o->device = st->d->name;
            o->row = ac->rows ? st->row + 1 : 0;
            o->admin_access = rq->body->admin_access && !rq->is_sub;
            o->tolerations = rq->body->tolerations;
            o->ntolerations = rq->body->ntolerations;
            if (ac->b.ono && st->d->slice) { /* node_ops.c: the slice's list, verbatim */
                o->skip_node_ops = st->d->slice->skip_node_ops;
                o->nskip_node_ops = st->d->slice->nskip_node_ops;
            }
            if (ac->b.binding) {
                o->binding_conditions = st->d->binding_conditions;
                o->nbinding_conditions = st->d->nbinding_conditions;
                o->binding_failure_conditions = st->d->binding_failure_conditions;
                o->nbinding_failure_conditions = st->d->nbinding_failure_conditions;
            }
            if (r->multi) {
                o->share_id = dra_arena_strdup(out, r->share);
                o->share_tag = 0; /* derived here, not by an engine plan (model.h) */
                if (st->d->ncaps) {
                    o->consumed = dra_arena_calloc(out, st->d->ncaps, sizeof(dra_consumed_t), 8);
                    if (!o->consumed)
                        return R_NOMEM;
                    o->nconsumed = st->d->ncaps;
                    for (uint32_t k = 0; k < st->d->ncaps; k++) {
                        o->consumed[k].name = st->d->caps[k].name;
                        dra__aq_to(r->consumed[k], &st->d->caps[k].value, &o->consumed[k].value);
                    }
                }
            }
            if (snaps && !o->admin_access &&
                dra__scc_snapshot(out, &ac->b, ledger, p, st->d, r->pa, &snaps[i]))
                return R_NOMEM;
            if (!o->request)
                return R_NOMEM;
        }
        al->nresults = cl->nres;
        /* configs: class configs once per class, then claim configs */
        uint32_t maxcfg = c->nconfigs;
        for (uint32_t ri = 0; ri < c->nrequests; ri++) {
            const dra__rq_t *rq = &ac->rqs[cl->rq_first[ri] + (cl->nsub[ri] ? cl->selected[ri] : 0)];
            if (rq->cls)
                maxcfg += rq->cls->nconfigs;
        }
        if (ac->b.bug_config_dup)
            maxcfg += c->nconfigs * c->nrequests;
        al->configs = dra_arena_calloc(out, maxcfg ? maxcfg : 1, sizeof(dra_alloc_config_t), 8);
        if (!al->configs)
            return R_NOMEM;
        struct {
            const dra_device_class_t *cls;
            uint32_t start, end;
        } seen[DRA_ALLOC_MAX_REQUESTS + 1];
        uint32_t nseen = 0;
        for (uint32_t ri = 0; ri < c->nrequests; ri++) {
            const dra__rq_t *rq = &ac->rqs[cl->rq_first[ri] + (cl->nsub[ri] ? cl->selected[ri] : 0)];
            if (!rq->cls)
                continue;
            uint32_t si = 0;
            while (si < nseen && seen[si].cls != rq->cls)
                si++;
            if (si < nseen) {
                for (uint32_t k = seen[si].start; k < seen[si].end; k++) {
                    dra_alloc_config_t *cf = &al->configs[k];
                    const char **nr = dra_arena_calloc(out, cf->nrequests + 1, sizeof(char *), 8);
                    if (!nr)
                        return R_NOMEM;
                    memcpy(nr, cf->requests, cf->nrequests * sizeof(char *));
                    nr[cf->nrequests] = dra_arena_strdup(out, rq->name);
                    cf->requests = nr;
                    cf->nrequests++;
                }
                continue;
            }
            uint32_t first = al->nconfigs;
            for (uint32_t x = 0; x < rq->cls->nconfigs; x++) {
                dra_alloc_config_t *cf = &al->configs[al->nconfigs++];
                cf->source = DRA_CONFIG_FROM_CLASS;
                cf->opaque = rq->cls->configs[x].opaque;
                cf->requests = dra_arena_calloc(out, 1, sizeof(char *), 8);
                if (!cf->requests)
                    return R_NOMEM;
                cf->requests[0] = dra_arena_strdup(out, rq->name);
                cf->nrequests = 1;
            }
            if (nseen <= DRA_ALLOC_MAX_REQUESTS) {
                seen[nseen].cls = rq->cls;
                seen[nseen].start = first;
                seen[nseen].end = al->nconfigs;
                nseen++;
            }
        }
        bool dup_bug = ac->b.bug_config_dup;
        for (uint32_t x = 0; x < c->nconfigs; x++) {
            const dra_claim_config_t *cc = &c->configs[x];
            uint32_t times = 0;
            if (cc->nrequests == 0) {
                times = 1;
            } else {
                for (uint32_t ri = 0; ri < c->nrequests; ri++) {
                    const dra_request_t *r = &c->requests[ri];
                    bool hit = name_listed(cc->requests, cc->nrequests, nz(r->name));
                    if (!hit && cl->nsub[ri]) {
                        const dra__rq_t *rq = &ac->rqs[cl->rq_first[ri] + cl->selected[ri]];
                        hit = name_listed(cc->requests, cc->nrequests, rq->name);
                    }
                    if (hit) {
                        times++;
                        if (!dup_bug) /* BUG(6): 1.36 appended once per matching request */
                            break;
                    }
                }
            }
            for (uint32_t t = 0; t < times; t++) {
                dra_alloc_config_t *cf = &al->configs[al->nconfigs++];
                cf->source = DRA_CONFIG_FROM_CLAIM;
                cf->requests = cc->requests;
                cf->nrequests = cc->nrequests;
                cf->opaque = cc->opaque;
            }
        }
        if (ac->b.config_all_nil) /* 1.37+: a config naming every request applies to all */
            for (uint32_t k = 0; k < al->nconfigs; k++)
                if (al->configs[k].nrequests && covers_all(ac, cl, c, &al->configs[k])) {
                    al->configs[k].requests = NULL;
                    al->configs[k].nrequests = 0;
                }
        int rc = build_node_selector(ac, cl, out, &al->node_selector);
        if (rc)
            return rc;
        ac->out->allocations[ci] = al;
    }
    ac->out->n = ac->nclaims;
    return DRA_OK;
}


/* ---- slot layout and outcome ----------------------------------------------------------------- */

uint32_t dra__pool_scope(const dra__beh_t *b, const dra__gpools_t *gp, uint32_t p)
{
    if (b->pool_counters && b->bug_pool_name) /* BUG(5): counters per pool name */
        for (uint32_t q = 0; q < p; q++)
            if (strcmp(gp->pools[q].name, gp->pools[p].name) == 0)
                return q;
    return p;
}

int dra__acall_layout(const dra__beh_t *b, const dra__gpools_t *gp, dra_arena_t *ar, dra__slot_t **slots,
                     uint32_t *nslots, uint32_t ***slice_base, uint32_t *nscopes, uint32_t *maxcaps)
{
    uint32_t n = 0;
    for (uint32_t p = 0; p < gp->n; p++)
        for (uint32_t s = 0; s < gp->pools[p].nslices; s++)
            n += gp->pools[p].slices[s]->ndevices;
    dra__slot_t *sl_out = dra_arena_calloc(ar, n ? n : 1, sizeof(dra__slot_t), 16);
    uint32_t **base = dra_arena_calloc(ar, gp->n ? gp->n : 1, sizeof(uint32_t *), 8);
    if (!sl_out || !base)
        return DRA_ENOMEM;
    /* counter scopes: per pool (1.35+; BUG(5): per pool name) or per slice (1.34) */
    uint32_t nsc = 0;
    if (!b->pool_counters)
        for (uint32_t p = 0; p < gp->n; p++)
            nsc += gp->pools[p].nslices;
    else
        nsc = gp->n;
    uint32_t k = 0, sk = 0, mc = 0;
    for (uint32_t p = 0; p < gp->n; p++) {
        const dra__gpool_t *pool = &gp->pools[p];
        base[p] = dra_arena_calloc(ar, pool->nslices ? pool->nslices : 1, sizeof(uint32_t), 4);
        if (!base[p])
            return DRA_ENOMEM;
        uint32_t pscope = dra__pool_scope(b, gp, p);
        for (uint32_t s = 0; s < pool->nslices; s++) {
            const dra_slice_t *sl = pool->slices[s];
            base[p][s] = k;
            uint32_t scope = b->pool_counters ? pscope : sk++;
            for (uint32_t d = 0; d < sl->ndevices; d++, k++) {
                dra__slot_t *st = &sl_out[k];
                st->d = &sl->devices[d];
                st->pool = p;
                st->scope = scope;
                if (st->d->ncaps > mc)
                    mc = st->d->ncaps;
            }
        }
    }
    *slots = sl_out;
    *nslots = n;
    *slice_base = base;
    *nscopes = nsc;
    *maxcaps = mc;
    return DRA_OK;
}

int dra__acall_outcome(dra__acall_t *ac, int rc, dra_arena_t *out_arena)
{
    dra_alloc_outcome_t *out = ac->out;
    switch (rc) {
    case R_OK:
        rc = dra__acall_build_results(ac, out_arena);
        if (rc == R_NOMEM)
            return DRA_ENOMEM;
        if (rc) {
            out->kind = DRA_OUTCOME_FATAL;
            out->allocations = NULL;
            out->n = 0;
            snprintf(out->msg, sizeof out->msg, "%s", ac->err);
            return DRA_OK;
        }
        out->kind = DRA_OUTCOME_ALLOCATED;
        return DRA_OK;
    case R_FAIL:
        if (ac->gp.any_invalid && ac->b.strict_pools) {
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
        snprintf(out->msg, sizeof out->msg, "%s", ac->err);
        return DRA_OK;
    default:
        out->kind = DRA_OUTCOME_FATAL;
        snprintf(out->msg, sizeof out->msg, "%s", ac->err);
        return DRA_OK;
    }
}

void dra__acall_init(dra__acall_t *c, const dra_model_t *m, const dra_alloc_features_t *f,
                     const dra_alloc_options_t *opts)
{
    c->m = m;
    dra__beh_init(&c->b, f);
    c->share_seed = opts->share_seed;
    c->max_steps = opts->max_steps;
    dra_arena_init(&c->scratch, 256 * 1024);
}
