/*
 * invariants.c - the allocation oracle of invariants.h. Checks the final result sets directly,
 * sharing only the per-device rules (selectors, node matching, taints, capacity arithmetic,
 * pool gathering) with the allocator, never its search state.
 */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "alloc/alloc_impl.h"
#include "alloc/invariants.h"

static const char *nz(const char *s)
{
    return s ? s : "";
}

static void violation(dra_inv_report_t *r, const char *fmt, ...) DRA_PRINTF(2, 3);
static void violation(dra_inv_report_t *r, const char *fmt, ...)
{
    if (r->nkept < DRA_INV_KEEP) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(r->first[r->nkept], sizeof r->first[0], fmt, ap);
        va_end(ap);
        r->nkept++;
    }
    r->nviolations++;
}

#define DRA_INV_GROUP_MAX 256 /* group lists compared per counter set (devices of a pool) */

typedef struct ires {
    const dra_result_t *r;
    const dra_device_t *d;
    const dra__gpool_t *pool;
    const dra_request_t *req;
    const dra_exact_request_t *body;
    uint32_t claim;
} ires_t;

static const dra_device_t *find_device(const dra__gpools_t *gp, const dra_result_t *r,
                                       const dra__gpool_t **pool)
{
    for (uint32_t p = 0; p < gp->n; p++) {
        const dra__gpool_t *gpl = &gp->pools[p];
        if (strcmp(gpl->driver, nz(r->driver)) || strcmp(gpl->name, nz(r->pool)))
            continue;
        for (uint32_t s = 0; s < gpl->nslices; s++)
            for (uint32_t d = 0; d < gpl->slices[s]->ndevices; d++)
                if (strcmp(nz(gpl->slices[s]->devices[d].name), nz(r->device)) == 0) {
                    *pool = gpl;
                    return &gpl->slices[s]->devices[d];
                }
    }
    return NULL;
}

static bool in_scope(const dra_constraint_t *c, const ires_t *x)
{
    if (c->nrequests == 0)
        return true;
    for (uint32_t i = 0; i < c->nrequests; i++)
        if (strcmp(nz(c->requests[i]), nz(x->req->name)) == 0 ||
            strcmp(nz(c->requests[i]), nz(x->r->request)) == 0)
            return true;
    return false;
}

/* One check: the inputs, the pools of the node, the results resolved so far, the report. */
typedef struct ictx {
    const dra_model_t *m;
    dra__beh_t b;
    const dra_alloc_state_t *before;
    dra_cel_cache_t *cel;
    const dra_node_t *node;
    dra_claim_t *const *claims;
    dra__gpools_t gp;
    dra_arena_t scratch;
    ires_t *xs; /* every result resolved to its device and request, claim by claim */
    uint32_t nx;
    dra_inv_report_t *out;
    char err[512];
} ictx_t;

/* The request (or subrequest) a result names: x->req and x->body; false (a violation) when none. */
static bool resolve_request(ictx_t *x, const dra_claim_t *cl, ires_t *e)
{
    const dra_result_t *r = e->r;
    const char *slash = strchr(nz(r->request), '/');
    size_t plen = slash ? (size_t)(slash - r->request) : strlen(nz(r->request));
    for (uint32_t q = 0; q < cl->nrequests && !e->req; q++)
        if (strlen(nz(cl->requests[q].name)) == plen &&
            strncmp(cl->requests[q].name, r->request, plen) == 0)
            e->req = &cl->requests[q];
    if (e->req && slash) {
        for (uint32_t s = 0; s < e->req->nfirst_available; s++)
            if (strcmp(nz(e->req->first_available[s].name), slash + 1) == 0)
                e->body = &e->req->first_available[s];
    } else if (e->req && !e->req->nfirst_available) {
        e->body = e->req->exactly;
    }
    if (!e->body) {
        violation(x->out, "claim %s: result names unknown request %s", nz(cl->name), nz(r->request));
        return false;
    }
    return true;
}

/* The rules of one device for its request: selectable, adminAccess as asked, taints tolerated,
 * counters only with partitionable devices, not allocated already, capacity and shareID. */
static void check_device(ictx_t *x, const dra_claim_t *cl, const ires_t *e)
{
    const dra__beh_t *b = &x->b;
    const dra_result_t *r = e->r;
    const dra_device_class_t *cls = dra_model_find_class(x->m, nz(e->body->class_name));
    bool match = false;
    if (dra__device_selectable(x->m, b, x->cel, &x->scratch, x->node, cl, cls, e->body, e->d, &match,
                              NULL, x->err, sizeof x->err) ||
        !match || !cls)
        violation(x->out, "claim %s: device %s is not selectable for request %s", nz(cl->name),
                  nz(r->device), nz(r->request));
    /* skipNodeOperations (node_ops.c): the device's slice's list, verbatim (selectable() above
     * already refuses a device the node cannot skip operations for) */
    const dra_slice_t *sl = e->d->slice;
    uint32_t want = sl && b->ono ? sl->nskip_node_ops : 0;
    bool same = r->nskip_node_ops == want;
    for (uint32_t i = 0; same && i < want; i++)
        same = r->skip_node_ops[i] && sl->skip_node_ops[i] &&
               strcmp(r->skip_node_ops[i], sl->skip_node_ops[i]) == 0;
    if (!same)
        violation(x->out, "claim %s: result %s has %u skipNodeOperations, its slice %u%s",
                  nz(cl->name), nz(r->device), r->nskip_node_ops, want,
                  r->nskip_node_ops == want ? " (different values)" : "");
    bool admin = e->body->admin_access && !strchr(nz(r->request), '/');
    if (admin != r->admin_access)
        violation(x->out, "claim %s: result %s adminAccess %d, request asks %d", nz(cl->name),
                  nz(r->device), r->admin_access, admin);
    if (b->taints && dra__taint_blocks(e->d, e->body->tolerations, e->body->ntolerations))
        violation(x->out, "claim %s: device %s has an untolerated taint", nz(cl->name), nz(r->device));
    if (!b->pd && e->d->nconsumes)
        violation(x->out, "claim %s: device %s consumes counters with partitionable devices off",
                  nz(cl->name), nz(r->device));
    bool multi = b->cc && e->d->allow_multiple_allocations;
    if (!admin && !multi &&
        dra_alloc_state_exclusive(x->before, nz(r->driver), nz(r->pool), nz(r->device)) > 0)
        violation(x->out, "claim %s: device %s is already allocated", nz(cl->name), nz(r->device));
    bool shared_before =
        dra_alloc_state_shares(x->before, nz(r->driver), nz(r->pool), nz(r->device)) > 0 ||
        dra__alloc_state_has_capacity(x->before, nz(r->driver), nz(r->pool), nz(r->device));
    if (!admin && !multi && b->share_blocks_excl && shared_before)
        violation(x->out, "claim %s: device %s is exclusively allocated while it has a live share",
                  nz(cl->name), nz(r->device));
    if (b->cg_skip && e->d->nconsumes && !(multi && shared_before) && b->pd) {
        for (uint32_t c = 0; c < e->d->nconsumes; c++)
            if (e->d->consumes[c].ngroups)
                violation(x->out, "claim %s: device %s declares compatibility groups, which are "
                                  "not enforced with DRADeviceCompatibilityGroups off (such a "
                                  "device is skipped)",
                          nz(cl->name), nz(r->device));
    }
    if (b->cc) {
        dra__capmode_t cm = dra__capmode(b);
        int fits = dra__cap_fits_m(&cm, e->body, e->d, NULL, NULL, x->err, sizeof x->err);
        if (fits != 1)
            violation(x->out, "claim %s: device %s cannot hold the requested capacity",
                      nz(cl->name), nz(r->device));
        if (multi != (r->share_id != NULL))
            violation(x->out, "claim %s: device %s shareID presence is wrong", nz(cl->name),
                      nz(r->device));
    }
}

/* Every result of claim c resolved into x->xs and checked device by device; *node_local: some
 * device is local to the node (its node selector must be metadata.name). */
static void check_results(ictx_t *x, uint32_t c, const dra_allocation_t *al, bool *node_local)
{
    const dra_claim_t *cl = x->claims[c];
    if (al->nresults > DRA_ALLOC_MAX_RESULTS)
        violation(x->out, "claim %s: %u results exceed the limit of 32", nz(cl->name), al->nresults);
    for (uint32_t i = 0; i < al->nresults; i++) {
        const dra_result_t *r = &al->results[i];
        ires_t *e = &x->xs[x->nx];
        *e = (ires_t){0}; /* a slot left by a result that failed to resolve is reused */
        e->r = r;
        e->claim = c;
        e->d = find_device(&x->gp, r, &e->pool);
        if (!e->d) {
            violation(x->out, "claim %s: device %s/%s/%s is not available on node %s", nz(cl->name),
                      nz(r->driver), nz(r->pool), nz(r->device), nz(x->node->name));
            continue;
        }
        if (e->pool->incomplete && x->b.strict_pools)
            violation(x->out, "claim %s: device %s comes from incomplete pool", nz(cl->name),
                      nz(r->device));
        if (!resolve_request(x, cl, e))
            continue;
        x->nx++;
        check_device(x, cl, e);
        const dra_slice_t *sl = e->d->slice;
        const char *nn = sl->per_device_node_selection ? e->d->node_name : sl->node_name;
        if ((nn && nn[0]) || (x->b.binds_to_node && e->d->binds_to_node))
            *node_local = true;
    }
}

/* The node selector selects the node, and is metadata.name for a node-local allocation (§2.14). */
static void check_node_selector(ictx_t *x, const dra_claim_t *cl, const dra_allocation_t *al,
                                bool node_local)
{
    if (al->node_selector) {
        bool ok = false;
        if (dra__node_matches(x->node, NULL, false, al->node_selector, &ok, x->err, sizeof x->err) ||
            !ok)
            violation(x->out, "claim %s: node selector does not select node %s", nz(cl->name),
                      nz(x->node->name));
    }
    if (node_local) {
        const dra_node_selector_t *s = al->node_selector;
        if (!s || s->nterms != 1 || s->terms[0].nfields != 1 || s->terms[0].nexprs != 0)
            violation(x->out, "claim %s: node-local device but node selector is not metadata.name",
                      nz(cl->name));
    }
}

/* The selectable devices of the node whose static capacity fits an All request. */
static int64_t all_devices(ictx_t *x, const dra_claim_t *cl, const dra_exact_request_t *body)
{
    int64_t want = 0;
    const dra_device_class_t *cls = dra_model_find_class(x->m, nz(body->class_name));
    for (uint32_t p = 0; p < x->gp.n; p++)
        for (uint32_t s = 0; s < x->gp.pools[p].nslices; s++)
            for (uint32_t d = 0; d < x->gp.pools[p].slices[s]->ndevices; d++) {
                const dra_device_t *dev = &x->gp.pools[p].slices[s]->devices[d];
                bool mt = false;
                dra__capmode_t cm = dra__capmode(&x->b);
                if (dra__device_selectable(x->m, &x->b, x->cel, &x->scratch, x->node, cl, cls, body,
                                          dev, &mt, NULL, x->err, sizeof x->err) == DRA_OK &&
                    mt &&
                    (!x->b.cc ||
                     dra__cap_fits_m(&cm, body, dev, NULL, NULL, x->err, sizeof x->err) == 1))
                    want++;
            }
    return want;
}

/* Each request of claim c answered by one alternative with exactly its count (All: every
 * selectable device, at least one). */
static void check_counts(ictx_t *x, uint32_t c)
{
    const dra_claim_t *cl = x->claims[c];
    for (uint32_t q = 0; q < cl->nrequests; q++) {
        const dra_request_t *req = &cl->requests[q];
        const dra_exact_request_t *body = NULL;
        int64_t got = 0;
        bool mixed = false;
        for (uint32_t i = 0; i < x->nx; i++) {
            if (x->xs[i].claim != c || x->xs[i].req != req)
                continue;
            if (body && body != x->xs[i].body)
                mixed = true;
            body = x->xs[i].body;
            got++;
        }
        if (mixed)
            violation(x->out, "claim %s, request %s: results from two alternatives", nz(cl->name),
                      nz(req->name));
        if (!body) {
            violation(x->out, "claim %s, request %s: no devices", nz(cl->name), nz(req->name));
            continue;
        }
        if (body->mode == DRA_MODE_EXACT_COUNT) {
            int64_t want = body->has_count ? body->count : 1;
            if (got != want)
                violation(x->out, "claim %s, request %s: %lld devices, want %lld", nz(cl->name),
                          nz(req->name), (long long)got, (long long)want);
        } else if (body->mode == DRA_MODE_ALL) {
            int64_t want = all_devices(x, cl, body);
            if (got != want || got == 0)
                violation(x->out, "claim %s, request %s: All got %lld of %lld devices", nz(cl->name),
                          nz(req->name), (long long)got, (long long)want);
        }
    }
}

/* The attribute constraint q compares for result e: its request's derived attribute of that
 * name (DRADerivedAttributes) or its device's. NULL when absent or not evaluable (a violation:
 * the allocator would have failed the call). */
static const dra_attr_t *result_attr(ictx_t *x, const ires_t *e, uint32_t q)
{
    const dra_attr_t *at = NULL;
    int rc = dra__constraint_attr(x->m, &x->b, x->cel, &x->scratch, e->body, q, e->d, &at, x->err,
                                  sizeof x->err);
    if (rc == DRA_EFATAL)
        violation(x->out, "result %s: %s", nz(e->r->device), x->err);
    return rc == DRA_OK ? at : NULL;
}

/* distinctAttribute: result i's value (at) repeats on no earlier result of the claim in scope. */
static void check_distinct(ictx_t *x, uint32_t c, const dra_constraint_t *cn, uint32_t k,
                           uint32_t q, const char *an, uint32_t i, const dra_attr_t *at)
{
    const dra_claim_t *cl = x->claims[c];
    dra__aval_t v[DRA_AVAL_MAX], w[DRA_AVAL_MAX];
    for (uint32_t j = 0; j < i; j++) {
        const ires_t *o = &x->xs[j];
        if (o->claim != c || !in_scope(cn, o))
            continue;
        const dra_attr_t *oa = result_attr(x, o, q);
        if (!oa)
            continue;
        bool same;
        if (x->b.lists) {
            uint32_t nv = dra__attr_values(at, v, DRA_AVAL_MAX);
            uint32_t nw = dra__attr_values(oa, w, DRA_AVAL_MAX);
            same = false;
            for (uint32_t x1 = 0; x1 < nv && !same; x1++)
                for (uint32_t x2 = 0; x2 < nw && !same; x2++)
                    same = dra__aval_eq(&v[x1], &w[x2]);
        } else {
            same = dra__attr_scalar_eq(at, oa);
        }
        if (same)
            violation(x->out, "claim %s, constraint #%u: %s repeats on %s and %s", nz(cl->name), k,
                      an, nz(o->r->device), nz(x->xs[i].r->device));
    }
}

/* matchAttribute / distinctAttribute of claim c over its final set (list-type attributes as
 * sets when enabled). */
static void check_constraints(ictx_t *x, uint32_t c)
{
    const dra_claim_t *cl = x->claims[c];
    for (uint32_t k = 0; k < cl->nconstraints; k++) {
        const dra_constraint_t *cn = &cl->constraints[k];
        const char *an = cn->match_attribute ? cn->match_attribute : cn->distinct_attribute;
        if (!an)
            continue;
        uint32_t q = dra_intern_find(&x->m->intern, an, strlen(an));
        const dra_attr_t *first = NULL;
        dra__aval_t isect[DRA_AVAL_MAX], v[DRA_AVAL_MAX];
        uint32_t ni = 0;
        for (uint32_t i = 0; i < x->nx; i++) {
            const ires_t *e = &x->xs[i];
            if (e->claim != c || !in_scope(cn, e))
                continue;
            const dra_attr_t *at = result_attr(x, e, q);
            if (!at) {
                violation(x->out, "claim %s, constraint #%u: device %s lacks %s", nz(cl->name), k,
                          nz(e->r->device), an);
                continue;
            }
            if (!cn->match_attribute) {
                check_distinct(x, c, cn, k, q, an, i, at);
                continue;
            }
            if (x->b.lists) {
                uint32_t nv = dra__attr_values(at, v, DRA_AVAL_MAX);
                if (!first) {
                    memcpy(isect, v, nv * sizeof v[0]);
                    ni = nv;
                } else {
                    uint32_t kk = 0;
                    for (uint32_t x1 = 0; x1 < ni; x1++)
                        for (uint32_t x2 = 0; x2 < nv; x2++)
                            if (dra__aval_eq(&isect[x1], &v[x2])) {
                                isect[kk++] = isect[x1];
                                break;
                            }
                    ni = kk;
                    if (!ni)
                        violation(x->out, "claim %s, constraint #%u: no common value of %s",
                                  nz(cl->name), k, an);
                }
            } else if (first && (!dra__attr_is_scalar(at) || !dra__attr_scalar_eq(at, first))) {
                violation(x->out, "claim %s, constraint #%u: %s differs on %s", nz(cl->name), k, an,
                          nz(e->r->device));
            }
            if (!first)
                first = at;
        }
    }
}

/* No device twice in the call unless multi-allocatable, or adminAccess in another claim. */
static void check_exclusive(ictx_t *x)
{
    const ires_t *xs = x->xs;
    for (uint32_t i = 0; i < x->nx; i++) {
        for (uint32_t j = 0; j < i; j++) {
            if (xs[i].d != xs[j].d)
                continue;
            bool multi = x->b.cc && xs[i].d->allow_multiple_allocations;
            if (multi)
                continue; /* shares; <= 1.35 even twice within one request */
            bool ok = xs[i].claim != xs[j].claim && xs[i].r->admin_access;
            if (!ok)
                violation(x->out, "device %s allocated twice (claims %s and %s)",
                          nz(xs[i].r->device), nz(x->claims[xs[j].claim]->name),
                          nz(x->claims[xs[i].claim]->name));
        }
    }
}

/* Capacity of multi-allocatable devices: existing + new within each capacity's value. */
static void check_capacity(ictx_t *x)
{
    const ires_t *xs = x->xs;
    for (uint32_t i = 0; i < x->nx && x->b.cc; i++) {
        const dra_device_t *d = xs[i].d;
        if (!d->allow_multiple_allocations)
            continue;
        bool firsthit = true;
        for (uint32_t j = 0; j < i; j++)
            if (xs[j].d == d)
                firsthit = false;
        if (!firsthit)
            continue;
        for (uint32_t k = 0; k < d->ncaps; k++) {
            dra__aq_t sum = 0, ex = 0;
            dra__alloc_state_cap_aq(x->before, nz(xs[i].r->driver), nz(xs[i].r->pool), nz(d->name),
                                   nz(d->caps[k].name), &ex);
            for (uint32_t j = i; j < x->nx; j++)
                if (xs[j].d == d)
                    for (uint32_t z = 0; z < xs[j].r->nconsumed; z++)
                        if (strcmp(nz(xs[j].r->consumed[z].name), nz(d->caps[k].name)) == 0)
                            sum += dra__aq_from(&xs[j].r->consumed[z].value);
            if (sum > 0 && ex + sum > dra__aq_from(&d->caps[k].value))
                violation(x->out, "device %s: capacity %s over its value", nz(d->name),
                          nz(d->caps[k].name));
        }
    }
}

/* Result j is a further share of a multi-allocatable device (DRAConsumableCapacity): the device
 * was in use before or an earlier result has it. Such a share adds no static counter cost, and
 * the allocators skip its static counter check (claims.c, skip_counters). */
static bool further_share(const ictx_t *x, uint32_t j)
{
    const ires_t *e = &x->xs[j];
    if (!x->b.cc || !e->d->allow_multiple_allocations)
        return false;
    for (uint32_t i = 0; i < j; i++)
        if (x->xs[i].d == e->d)
            return true;
    return dra_alloc_state_in_use(x->before, e->pool->driver, e->pool->name, nz(e->d->name));
}

/* Counter tot of set cs consumed by device dv of the pool: its amount is added to *used when the
 * device was in use before, to *add once per new allocation of it (a multi-allocatable device
 * only for its first share, and only when it was not in use). */
static void counter_use(ictx_t *x, const dra__gpool_t *pool, const dra_device_t *dv,
                        const dra_counter_set_t *cs, const dra_counter_t *tot, dra__aq_t *used,
                        dra__aq_t *add)
{
    for (uint32_t c3 = 0; c3 < dv->nconsumes; c3++) {
        if (strcmp(nz(dv->consumes[c3].counter_set), nz(cs->name)))
            continue;
        for (uint32_t k3 = 0; k3 < dv->consumes[c3].ncounters; k3++) {
            if (strcmp(nz(dv->consumes[c3].counters[k3].name), nz(tot->name)))
                continue;
            dra__aq_t v1 = dra__aq_from(&dv->consumes[c3].counters[k3].value);
            bool was_in_use = dra_alloc_state_in_use(x->before, pool->driver, pool->name, nz(dv->name));
            if (was_in_use)
                *used += v1;
            for (uint32_t j = 0; j < x->nx; j++)
                if (x->xs[j].d == dv && !further_share(x, j))
                    *add += v1;
        }
    }
}

/* DRASharedConsumableCapacity on (sharedcap.c): each counter a result's device consumes - what
 * the live allocations' snapshots drew before, the static counters of each newly used device
 * once (counter_use), and the request-driven amount of every result, recomputed from its
 * request - stays within the counter's value, and no result's device draws from a counter set
 * withheld by the fail-closed rule; every result but an adminAccess one carries a
 * consumedCounters snapshot whose perAllocation is those amounts. */
static void check_counters_scc(ictx_t *x)
{
    const dra__beh_t *b = &x->b;
    const dra__scc_ledger_t *l = NULL;
    (void)dra__alloc_state_scc(x->before, &l);
    dra__capmode_t m = dra__capmode(b);
    for (uint32_t i = 0; i < x->nx; i++) {
        const ires_t *e = &x->xs[i];
        /* a further share with no request-driven counter is not checked against the counters
         * (upstream's skipCounterCheck): it draws nothing, so a live state already over a total
         * does not make it a violation; the fail-closed rule below still applies to it */
        bool unchecked = further_share(x, i) && !dra__scc_nvalue_from(e->d);
        for (uint32_t c2 = 0; c2 < e->d->nconsumes; c2++) {
            const dra_consumes_t *cc = &e->d->consumes[c2];
            const dra_counter_set_t *cs = dra__pool_counter_set(b, e->pool, e->d->slice, cc->counter_set);
            for (uint32_t k = 0; cs && k < cc->ncounters; k++) {
                const dra_counter_t *tot = dra__scc_counter_def(b, e->pool, e->d, cc, &cc->counters[k]);
                if (!tot)
                    continue;
                const char *set = nz(cs->name), *name = nz(tot->name);
                dra__aq_t used = 0, add = 0;
                const char *dev = NULL;
                const char *why = dra__scc_live_counter(l, e->pool, set, name, &used, &dev);
                if (why) { /* the fail-closed rule: no result draws from a withheld set */
                    violation(x->out, "pool %s/%s: device %s draws from counter set %s, withheld "
                              "because the charge of live device %s on it cannot be established "
                              "(%s)", e->pool->driver, e->pool->name, nz(e->d->name), set,
                              nz(dev), why);
                    return;
                }
                const dra_slice_t *const *lists[2] = {e->pool->slices, e->pool->other};
                uint32_t nl[2] = {e->pool->nslices, e->pool->nother};
                for (int L = 0; L < 2; L++)
                    for (uint32_t s = 0; s < nl[L]; s++)
                        for (uint32_t d = 0; d < lists[L][s]->ndevices; d++) {
                            dra__aq_t ignored = 0; /* the live use: from the snapshots above */
                            counter_use(x, e->pool, &lists[L][s]->devices[d], cs, tot, &ignored, &add);
                        }
                for (uint32_t j = 0; j < x->nx; j++) {
                    const ires_t *o = &x->xs[j];
                    if (o->pool != e->pool)
                        continue;
                    for (uint32_t c3 = 0; c3 < o->d->nconsumes; c3++)
                        for (uint32_t k3 = 0; k3 < o->d->consumes[c3].ncounters; k3++) {
                            const dra_counter_t *vc = &o->d->consumes[c3].counters[k3];
                            if (!vc->value_from || strcmp(nz(o->d->consumes[c3].counter_set), set) ||
                                strcmp(nz(vc->name), name))
                                continue;
                            dra__aq_t v = 0;
                            char err[DRA_DIAG_MSG_MAX / 2];
                            if (dra__scc_amount(&m, o->body, o->d, vc, tot, &v, err, sizeof err) != 1)
                                violation(x->out, "device %s: counter %s/%s: request-driven amount "
                                          "not allowed: %s", nz(o->d->name), set, name, err);
                            add += v;
                        }
                }
                if (!unchecked && used + add > dra__aq_from(&tot->value))
                    violation(x->out, "pool %s/%s: counter %s/%s over its total", e->pool->driver,
                              e->pool->name, set, name);
            }
        }
    }
}

/* Counters per pool (DRA-SEMANTICS §2.10): the new consumption fits in what the devices in use
 * before left of each counter a result consumes. */
static void check_counters(ictx_t *x)
{
    const dra__beh_t *b = &x->b;
    if (b->scc && b->pd) {
        check_counters_scc(x);
        return;
    }
    for (uint32_t p = 0; p < x->gp.n && b->pd; p++) {
        const dra__gpool_t *pool = &x->gp.pools[p];
        for (uint32_t i = 0; i < x->nx; i++) {
            const ires_t *e = &x->xs[i];
            if (e->pool != pool)
                continue;
            for (uint32_t c2 = 0; c2 < e->d->nconsumes; c2++) {
                const dra_consumes_t *cc = &e->d->consumes[c2];
                const dra_counter_set_t *cs = dra__pool_counter_set(b, pool, e->d->slice, cc->counter_set);
                if (!cs)
                    continue;
                for (uint32_t k = 0; k < cc->ncounters; k++) {
                    const dra_counter_t *tot = NULL;
                    for (uint32_t t = 0; t < cs->ncounters; t++)
                        if (strcmp(nz(cs->counters[t].name), nz(cc->counters[k].name)) == 0)
                            tot = &cs->counters[t];
                    if (!tot)
                        continue;
                    /* existing use: devices of the pool's scope in use */
                    dra__aq_t used = 0, add = 0;
                    const dra_slice_t *const *lists[2] = {pool->slices, pool->other};
                    uint32_t nl[2] = {pool->nslices, pool->nother};
                    for (int L = 0; L < 2; L++)
                        for (uint32_t s = 0; s < nl[L]; s++) {
                            const dra_slice_t *sl = lists[L][s];
                            if (!b->pool_counters && sl != e->d->slice)
                                continue;
                            for (uint32_t d = 0; d < sl->ndevices; d++)
                                counter_use(x, pool, &sl->devices[d], cs, tot, &used, &add);
                        }
                    if (add > 0 && used + add > dra__aq_from(&tot->value))
                        violation(x->out, "pool %s/%s: counter %s/%s over its total", pool->driver,
                                  pool->name, nz(cs->name), nz(tot->name));
                }
            }
        }
    }
}

/* Compatibility groups (DRADeviceCompatibilityGroups enforced): per pool and counter set a
 * result consumes, the groups of the devices in use before (the baseline, folded in slice order
 * as upstream does, even when they already break the rule) admit the results' devices one by
 * one (dra__cg_lists_ok); with the gate off from 1.37 on, no result joins a counter set an
 * allocated device with groups draws from (check_device rejects results that declare groups
 * themselves). */
static void check_groups(ictx_t *x)
{
    const dra__beh_t *b = &x->b;
    if ((!b->cg && !b->cg_skip) || !b->pd)
        return;
    const dra_consumes_t *lists[DRA_INV_GROUP_MAX];
    for (uint32_t i = 0; i < x->nx; i++) {
        const ires_t *e = &x->xs[i];
        for (uint32_t c = 0; c < e->d->nconsumes; c++) {
            const char *set = nz(e->d->consumes[c].counter_set);
            bool seen = false; /* the (pool, set) of an earlier result: checked already */
            for (uint32_t j = 0; j < i && !seen; j++)
                for (uint32_t c2 = 0; c2 < x->xs[j].d->nconsumes && !seen; c2++)
                    seen = x->xs[j].pool == e->pool &&
                           strcmp(nz(x->xs[j].d->consumes[c2].counter_set), set) == 0;
            if (seen)
                continue;
            uint32_t n = 0, nbefore_grouped = 0;
            const dra__gpool_t *p = e->pool;
            const dra_slice_t *const *ls[2] = {p->slices, p->other};
            uint32_t nl[2] = {p->nslices, p->nother};
            for (int L = 0; L < 2; L++)
                for (uint32_t s = 0; s < nl[L]; s++)
                    for (uint32_t d = 0; d < ls[L][s]->ndevices; d++) {
                        const dra_device_t *dv = &ls[L][s]->devices[d];
                        if (!dra_alloc_state_in_use(x->before, p->driver, p->name, nz(dv->name)))
                            continue;
                        for (uint32_t c2 = 0; c2 < dv->nconsumes; c2++)
                            if (strcmp(nz(dv->consumes[c2].counter_set), set) == 0) {
                                if (n < DRA_INV_GROUP_MAX)
                                    lists[n++] = &dv->consumes[c2];
                                nbefore_grouped += dv->consumes[c2].ngroups > 0;
                            }
                    }
            const uint32_t nbase = n;
            for (uint32_t j = i; j < x->nx; j++) {
                const ires_t *o = &x->xs[j];
                bool dup = false;
                for (uint32_t j2 = i; j2 < j && !dup; j2++)
                    dup = x->xs[j2].d == o->d;
                /* a further share of a device shared before is in the baseline already and
                 * not checked again; an adminAccess result on a device in use before is
                 * checked like a new one (upstream's checkAndConsumeCompatibilityGroups) */
                if (dup || o->pool != p ||
                    (b->cc && o->d->allow_multiple_allocations &&
                     dra_alloc_state_in_use(x->before, p->driver, p->name, nz(o->d->name))))
                    continue;
                for (uint32_t c2 = 0; c2 < o->d->nconsumes; c2++)
                    if (strcmp(nz(o->d->consumes[c2].counter_set), set) == 0 &&
                        n < DRA_INV_GROUP_MAX)
                        lists[n++] = &o->d->consumes[c2];
            }
            if (b->cg && !dra__cg_lists_ok(lists, nbase, n))
                violation(x->out, "pool %s/%s: counter set %s: devices with incompatible "
                                  "compatibility groups allocated together",
                          p->driver, p->name, set);
            if (b->cg_skip && nbefore_grouped &&
                !(b->cc && e->d->allow_multiple_allocations &&
                  dra_alloc_state_in_use(x->before, p->driver, p->name, nz(e->d->name))))
                violation(x->out, "pool %s/%s: device %s joins counter set %s, on which an "
                                  "allocated device declares compatibility groups (skipped with "
                                  "DRADeviceCompatibilityGroups off)",
                          p->driver, p->name, nz(e->d->name), set);
        }
    }
}

#define INV_POOLS_CHUNK (64 * 1024)
#define INV_WORK_CHUNK (16 * 1024)

/* The scratch's arenas, empty (no chunk yet): the one initialisation of both entries. */
static void scratch_arenas(dra_inv_scratch_t *s)
{
    dra_arena_init(&s->pools, INV_POOLS_CHUNK);
    dra_arena_init(&s->work, INV_WORK_CHUNK);
}

int dra_inv_scratch_init(dra_inv_scratch_t *s)
{
    scratch_arenas(s);
    bool ok = dra_arena_alloc(&s->pools, 1, 1) && dra_arena_alloc(&s->work, 1, 1);
    dra_arena_reset(&s->pools);
    dra_arena_reset(&s->work);
    return ok ? DRA_OK : DRA_ENOMEM;
}

void dra_inv_scratch_fini(dra_inv_scratch_t *s)
{
    dra_arena_fini(&s->pools);
    dra_arena_fini(&s->work);
}

int dra_inv_check(const dra_model_t *m, const dra_alloc_features_t *f,
                  const dra_alloc_state_t *before, dra_cel_cache_t *cel, const dra_node_t *node,
                  dra_claim_t *const *claims, dra_allocation_t *const *allocs, uint32_t n,
                  dra_inv_report_t *out)
{
    dra_inv_scratch_t s;
    scratch_arenas(&s); /* its chunks as the check takes them */
    int rc = dra_inv_check_in(&s, m, f, before, cel, node, claims, allocs, n, out);
    dra_inv_scratch_fini(&s);
    return rc;
}

int dra_inv_check_in(dra_inv_scratch_t *s, const dra_model_t *m, const dra_alloc_features_t *f,
                     const dra_alloc_state_t *before, dra_cel_cache_t *cel,
                     const dra_node_t *node, dra_claim_t *const *claims,
                     dra_allocation_t *const *allocs, uint32_t n, dra_inv_report_t *out)
{
    memset(out, 0, sizeof *out);
    ictx_t x = {.m = m, .before = before, .cel = cel, .node = node, .claims = claims, .out = out};
    dra_alloc_features_t fixed = *f; /* never with upstream bugs */
    fixed.upstream_bugs = false;
    dra__beh_init(&x.b, &fixed);
    dra_arena_t *arp = &s->pools;
    /* the scratch arrives reset: initialised so, and every check leaves it so (below) */
    DRA_ASSERT_INTERNAL(arp->used == 0 && s->work.used == 0);
    x.scratch = s->work;
    int rc = dra__gather_pools(m, &x.b, node, arp, &x.gp, x.err, sizeof x.err);
    if (rc == DRA_ENOMEM)
        goto done;
    if (rc) {
        violation(out, "pool gathering failed: %s", x.err);
        rc = DRA_OK;
        goto done;
    }
    if (dra__scc_check_pools(&x.b, before, &x.gp, x.err, sizeof x.err)) {
        violation(out, "allocations returned where the allocator must fail: %s", x.err);
        rc = DRA_OK;
        goto done;
    }
    uint32_t total = 0;
    for (uint32_t c = 0; c < n; c++)
        total += allocs[c] ? allocs[c]->nresults : 0;
    x.xs = dra_arena_calloc(arp, total ? total : 1, sizeof *x.xs, 8);
    if (!x.xs) {
        rc = DRA_ENOMEM;
        goto done;
    }
    for (uint32_t c = 0; c < n; c++) {
        const dra_allocation_t *al = allocs[c];
        if (!al) {
            violation(out, "claim %s: no allocation", nz(claims[c]->name));
            continue;
        }
        bool node_local = false;
        for (uint32_t i = 0; x.b.scc && i < al->nresults; i++) /* sharedcap.c, rule 4 */
            if ((al->counters && al->counters[i]) == (bool)al->results[i].admin_access)
                violation(out, "claim %s: result %u (device %s) %s a consumedCounters snapshot",
                          nz(claims[c]->name), i, nz(al->results[i].device),
                          al->results[i].admin_access ? "has" : "lacks");
        check_results(&x, c, al, &node_local);
        check_node_selector(&x, claims[c], al, node_local);
        check_counts(&x, c);
        check_constraints(&x, c);
    }
    check_exclusive(&x);
    check_capacity(&x);
    check_counters(&x);
    check_groups(&x);
    rc = DRA_OK;
done:
    s->work = x.scratch; /* its chunks as the check grew them */
    dra_arena_reset(&s->work);
    dra_arena_reset(arp);
    return rc;
}
