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

typedef struct ires {
    const dra_result_t *r;
    const dra_device_t *d;
    const dra_gpool_t *pool;
    const dra_request_t *req;
    const dra_exact_request_t *body;
    uint32_t claim;
} ires_t;

static const dra_device_t *find_device(const dra_gpools_t *gp, const dra_result_t *r,
                                       const dra_gpool_t **pool)
{
    for (uint32_t p = 0; p < gp->n; p++) {
        const dra_gpool_t *gpl = &gp->pools[p];
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

int dra_inv_check(const dra_model_t *m, const dra_alloc_features_t *f,
                  const dra_alloc_state_t *before, dra_cel_cache_t *cel, const dra_node_t *node,
                  dra_claim_t *const *claims, dra_allocation_t *const *allocs, uint32_t n,
                  dra_inv_report_t *out)
{
    memset(out, 0, sizeof *out);
    dra_beh_t b;
    dra_beh_init(&b, f);
    b.bugs = false;
    dra_arena_t ar, scratch;
    dra_arena_init(&ar, 64 * 1024);
    dra_arena_init(&scratch, 16 * 1024);
    char err[512];
    dra_gpools_t gp;
    int rc = dra_gather_pools(m, &b, node, &ar, &gp, err, sizeof err);
    if (rc == DRA_ENOMEM)
        goto done;
    if (rc) {
        violation(out, "pool gathering failed: %s", err);
        rc = DRA_OK;
        goto done;
    }
    uint32_t total = 0;
    for (uint32_t c = 0; c < n; c++)
        total += allocs[c] ? allocs[c]->nresults : 0;
    ires_t *xs = dra_arena_calloc(&ar, total ? total : 1, sizeof *xs, 8);
    if (!xs) {
        rc = DRA_ENOMEM;
        goto done;
    }
    uint32_t nx = 0;
    for (uint32_t c = 0; c < n; c++) {
        const dra_claim_t *cl = claims[c];
        const dra_allocation_t *al = allocs[c];
        if (!al) {
            violation(out, "claim %s: no allocation", nz(cl->name));
            continue;
        }
        if (al->nresults > DRA_ALLOC_MAX_RESULTS)
            violation(out, "claim %s: %u results exceed the limit of 32", nz(cl->name), al->nresults);
        bool node_local = false;
        for (uint32_t i = 0; i < al->nresults; i++) {
            const dra_result_t *r = &al->results[i];
            ires_t *x = &xs[nx];
            x->r = r;
            x->claim = c;
            x->d = find_device(&gp, r, &x->pool);
            if (!x->d) {
                violation(out, "claim %s: device %s/%s/%s is not available on node %s", nz(cl->name),
                          nz(r->driver), nz(r->pool), nz(r->device), nz(node->name));
                continue;
            }
            if (x->pool->incomplete && b.strict_pools)
                violation(out, "claim %s: device %s comes from incomplete pool", nz(cl->name), nz(r->device));
            /* request / subrequest */
            const char *slash = strchr(nz(r->request), '/');
            size_t plen = slash ? (size_t)(slash - r->request) : strlen(nz(r->request));
            for (uint32_t q = 0; q < cl->nrequests && !x->req; q++)
                if (strlen(nz(cl->requests[q].name)) == plen &&
                    strncmp(cl->requests[q].name, r->request, plen) == 0)
                    x->req = &cl->requests[q];
            if (x->req && slash) {
                for (uint32_t s = 0; s < x->req->nfirst_available; s++)
                    if (strcmp(nz(x->req->first_available[s].name), slash + 1) == 0)
                        x->body = &x->req->first_available[s];
            } else if (x->req && !x->req->nfirst_available) {
                x->body = x->req->exactly;
            }
            if (!x->body) {
                violation(out, "claim %s: result names unknown request %s", nz(cl->name), nz(r->request));
                continue;
            }
            nx++;
            const dra_device_class_t *cls = dra_model_find_class(m, nz(x->body->class_name));
            bool match = false;
            if (dra_device_selectable(m, &b, cel, &scratch, node, cl, cls, x->body, x->d, &match,
                                      NULL, err, sizeof err) ||
                !match || !cls)
                violation(out, "claim %s: device %s is not selectable for request %s", nz(cl->name),
                          nz(r->device), nz(r->request));
            bool admin = x->body->admin_access && !slash;
            if (admin != r->admin_access)
                violation(out, "claim %s: result %s adminAccess %d, request asks %d", nz(cl->name),
                          nz(r->device), r->admin_access, admin);
            if (b.taints && dra_taint_blocks(x->d, x->body->tolerations, x->body->ntolerations))
                violation(out, "claim %s: device %s has an untolerated taint", nz(cl->name), nz(r->device));
            if (!b.pd && x->d->nconsumes)
                violation(out, "claim %s: device %s consumes counters with partitionable devices off",
                          nz(cl->name), nz(r->device));
            bool multi = b.cc && x->d->allow_multiple_allocations;
            if (!admin && !multi &&
                dra_alloc_state_exclusive(before, nz(r->driver), nz(r->pool), nz(r->device)) > 0)
                violation(out, "claim %s: device %s is already allocated", nz(cl->name), nz(r->device));
            if (b.cc) {
                int fits = dra_cap_fits(x->body, x->d, NULL, NULL, false);
                if (fits != 1)
                    violation(out, "claim %s: device %s cannot hold the requested capacity",
                              nz(cl->name), nz(r->device));
                if (multi != (r->share_id != NULL))
                    violation(out, "claim %s: device %s shareID presence is wrong", nz(cl->name), nz(r->device));
            }
            const dra_slice_t *sl = x->d->slice;
            const char *nn = sl->per_device_node_selection ? x->d->node_name : sl->node_name;
            if ((nn && nn[0]) || (b.binds_to_node && x->d->binds_to_node))
                node_local = true;
        }
        /* node selector */
        if (al->node_selector) {
            bool ok = false;
            if (dra_node_matches(node, NULL, false, al->node_selector, &ok, err, sizeof err) || !ok)
                violation(out, "claim %s: node selector does not select node %s", nz(cl->name), nz(node->name));
        }
        if (node_local) {
            const dra_node_selector_t *s = al->node_selector;
            if (!s || s->nterms != 1 || s->terms[0].nfields != 1 || s->terms[0].nexprs != 0)
                violation(out, "claim %s: node-local device but node selector is not metadata.name", nz(cl->name));
        }
        /* counts per request */
        for (uint32_t q = 0; q < cl->nrequests; q++) {
            const dra_request_t *req = &cl->requests[q];
            const dra_exact_request_t *body = NULL;
            int64_t got = 0;
            bool mixed = false;
            for (uint32_t i = 0; i < nx; i++) {
                if (xs[i].claim != c || xs[i].req != req)
                    continue;
                if (body && body != xs[i].body)
                    mixed = true;
                body = xs[i].body;
                got++;
            }
            if (mixed)
                violation(out, "claim %s, request %s: results from two alternatives", nz(cl->name), nz(req->name));
            if (!body) {
                violation(out, "claim %s, request %s: no devices", nz(cl->name), nz(req->name));
                continue;
            }
            if (body->mode == DRA_MODE_EXACT_COUNT) {
                int64_t want = body->has_count ? body->count : 1;
                if (got != want)
                    violation(out, "claim %s, request %s: %lld devices, want %lld", nz(cl->name),
                              nz(req->name), (long long)got, (long long)want);
            } else if (body->mode == DRA_MODE_ALL) {
                int64_t want = 0;
                const dra_device_class_t *cls = dra_model_find_class(m, nz(body->class_name));
                for (uint32_t p = 0; p < gp.n; p++)
                    for (uint32_t s = 0; s < gp.pools[p].nslices; s++)
                        for (uint32_t d = 0; d < gp.pools[p].slices[s]->ndevices; d++) {
                            const dra_device_t *dev = &gp.pools[p].slices[s]->devices[d];
                            bool mt = false;
                            if (dra_device_selectable(m, &b, cel, &scratch, node, cl, cls, body, dev,
                                                      &mt, NULL, err, sizeof err) == DRA_OK &&
                                mt && (!b.cc || dra_cap_fits(body, dev, NULL, NULL, false) == 1))
                                want++;
                        }
                if (got != want || got == 0)
                    violation(out, "claim %s, request %s: All got %lld of %lld devices", nz(cl->name),
                              nz(req->name), (long long)got, (long long)want);
            }
        }
        /* constraints over the final set */
        for (uint32_t k = 0; k < cl->nconstraints; k++) {
            const dra_constraint_t *cn = &cl->constraints[k];
            const char *an = cn->match_attribute ? cn->match_attribute : cn->distinct_attribute;
            if (!an)
                continue;
            uint32_t q = dra_intern_find(&m->intern, an, strlen(an));
            const dra_attr_t *first = NULL;
            dra_aval_t isect[DRA_AVAL_MAX], v[DRA_AVAL_MAX], w[DRA_AVAL_MAX];
            uint32_t ni = 0;
            for (uint32_t i = 0; i < nx; i++) {
                if (xs[i].claim != c || !in_scope(cn, &xs[i]))
                    continue;
                const dra_attr_t *at = q ? dra_device_attr(xs[i].d, q) : NULL;
                if (!at) {
                    violation(out, "claim %s, constraint #%u: device %s lacks %s", nz(cl->name), k,
                              nz(xs[i].r->device), an);
                    continue;
                }
                if (cn->match_attribute) {
                    if (b.lists) {
                        uint32_t nv = dra_attr_values(at, v, DRA_AVAL_MAX);
                        if (!first) {
                            memcpy(isect, v, nv * sizeof v[0]);
                            ni = nv;
                        } else {
                            uint32_t kk = 0;
                            for (uint32_t x1 = 0; x1 < ni; x1++)
                                for (uint32_t x2 = 0; x2 < nv; x2++)
                                    if (dra_aval_eq(&isect[x1], &v[x2])) {
                                        isect[kk++] = isect[x1];
                                        break;
                                    }
                            ni = kk;
                            if (!ni)
                                violation(out, "claim %s, constraint #%u: no common value of %s",
                                          nz(cl->name), k, an);
                        }
                    } else if (first && (!dra_attr_is_scalar(at) || !dra_attr_scalar_eq(at, first))) {
                        violation(out, "claim %s, constraint #%u: %s differs on %s", nz(cl->name), k,
                                  an, nz(xs[i].r->device));
                    }
                    if (!first)
                        first = at;
                } else {
                    for (uint32_t j = 0; j < i; j++) {
                        if (xs[j].claim != c || !in_scope(cn, &xs[j]))
                            continue;
                        const dra_attr_t *o = dra_device_attr(xs[j].d, q);
                        if (!o)
                            continue;
                        bool same;
                        if (b.lists) {
                            uint32_t nv = dra_attr_values(at, v, DRA_AVAL_MAX);
                            uint32_t nw = dra_attr_values(o, w, DRA_AVAL_MAX);
                            same = false;
                            for (uint32_t x1 = 0; x1 < nv && !same; x1++)
                                for (uint32_t x2 = 0; x2 < nw && !same; x2++)
                                    same = dra_aval_eq(&v[x1], &w[x2]);
                        } else {
                            same = dra_attr_scalar_eq(at, o);
                        }
                        if (same)
                            violation(out, "claim %s, constraint #%u: %s repeats on %s and %s",
                                      nz(cl->name), k, an, nz(xs[j].r->device), nz(xs[i].r->device));
                    }
                }
            }
        }
    }
    /* exclusivity across the call */
    for (uint32_t i = 0; i < nx; i++) {
        for (uint32_t j = 0; j < i; j++) {
            if (xs[i].d != xs[j].d)
                continue;
            bool multi = b.cc && xs[i].d->allow_multiple_allocations;
            if (multi)
                continue; /* shares; <= 1.35 even twice within one request */
            bool ok = xs[i].claim != xs[j].claim && xs[i].r->admin_access;
            if (!ok)
                violation(out, "device %s allocated twice (claims %s and %s)", nz(xs[i].r->device),
                          nz(claims[xs[j].claim]->name), nz(claims[xs[i].claim]->name));
        }
    }
    /* capacity of multi-allocatable devices: existing + new <= value */
    for (uint32_t i = 0; i < nx && b.cc; i++) {
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
            dra_aq_t sum = 0, ex = 0;
            dra_alloc_state_cap_aq(before, nz(xs[i].r->driver), nz(xs[i].r->pool), nz(d->name),
                                   nz(d->caps[k].name), &ex);
            for (uint32_t j = i; j < nx; j++)
                if (xs[j].d == d)
                    for (uint32_t z = 0; z < xs[j].r->nconsumed; z++)
                        if (strcmp(nz(xs[j].r->consumed[z].name), nz(d->caps[k].name)) == 0)
                            sum += dra_aq_from(&xs[j].r->consumed[z].value);
            if (sum > 0 && ex + sum > dra_aq_from(&d->caps[k].value))
                violation(out, "device %s: capacity %s over its value", nz(d->name), nz(d->caps[k].name));
        }
    }
    /* counters per pool: new consumption within what is left */
    for (uint32_t p = 0; p < gp.n && b.pd; p++) {
        const dra_gpool_t *pool = &gp.pools[p];
        for (uint32_t i = 0; i < nx; i++) {
            if (xs[i].pool != pool)
                continue;
            for (uint32_t c2 = 0; c2 < xs[i].d->nconsumes; c2++) {
                const dra_consumes_t *cc = &xs[i].d->consumes[c2];
                const dra_counter_set_t *cs = dra_pool_counter_set(&b, pool, xs[i].d->slice, cc->counter_set);
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
                    dra_aq_t used = 0, add = 0;
                    const dra_slice_t *const *lists[2] = {pool->slices, pool->other};
                    uint32_t nl[2] = {pool->nslices, pool->nother};
                    for (int L = 0; L < 2; L++)
                        for (uint32_t s = 0; s < nl[L]; s++) {
                            const dra_slice_t *sl = lists[L][s];
                            if (!b.pool_counters && sl != xs[i].d->slice)
                                continue;
                            for (uint32_t d = 0; d < sl->ndevices; d++) {
                                const dra_device_t *dv = &sl->devices[d];
                                for (uint32_t c3 = 0; c3 < dv->nconsumes; c3++) {
                                    if (strcmp(nz(dv->consumes[c3].counter_set), nz(cs->name)))
                                        continue;
                                    for (uint32_t k3 = 0; k3 < dv->consumes[c3].ncounters; k3++) {
                                        if (strcmp(nz(dv->consumes[c3].counters[k3].name), nz(tot->name)))
                                            continue;
                                        dra_aq_t v1 = dra_aq_from(&dv->consumes[c3].counters[k3].value);
                                        if (dra_alloc_state_in_use(before, pool->driver, pool->name, nz(dv->name)))
                                            used += v1;
                                        for (uint32_t j = 0; j < nx; j++) {
                                            if (xs[j].d != dv)
                                                continue;
                                            bool mj = b.cc && dv->allow_multiple_allocations;
                                            bool first_share = true;
                                            for (uint32_t j2 = 0; j2 < j; j2++)
                                                if (xs[j2].d == dv)
                                                    first_share = false;
                                            if (mj && (!first_share ||
                                                       dra_alloc_state_in_use(before, pool->driver, pool->name, nz(dv->name))))
                                                continue;
                                            add += v1;
                                        }
                                    }
                                }
                            }
                        }
                    if (add > 0 && used + add > dra_aq_from(&tot->value))
                        violation(out, "pool %s/%s: counter %s/%s over its total", pool->driver,
                                  pool->name, nz(cs->name), nz(tot->name));
                }
            }
        }
    }
    rc = DRA_OK;
done:
    dra_arena_fini(&scratch);
    dra_arena_fini(&ar);
    return rc;
}
