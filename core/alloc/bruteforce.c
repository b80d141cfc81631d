/*
 * bruteforce.c - exhaustive satisfiability check for tiny instances (alloc.h). Enumerates, per
 * claim and request, every alternative and every device set of the right size among the
 * request's selectable devices, and checks each complete assignment against all rules at once.
 * No incremental pruning and no search order: only "does some assignment exist".
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "alloc/alloc_impl.h"

#define BF_MAXDEV 64
#define BF_MAXREQ 16
#define BF_MAXBODY (BF_MAXREQ * DRA_ALLOC_MAX_SUBREQUESTS)

typedef struct bf_use {
    uint32_t dev;  /* index into cand devices */
    uint32_t claim;
    bool admin;
    const dra_exact_request_t *body;
    const dra_request_t *req;
} bf_use_t;

typedef struct bf {
    const dra_model_t *m;
    dra__beh_t b;
    const dra_alloc_state_t *st;
    dra_cel_cache_t *cel;
    const dra_node_t *node;
    dra_claim_t *const *claims;
    uint32_t n;
    dra__gpools_t gp;
    const dra_device_t *dev[BF_MAXDEV];
    uint32_t devpool[BF_MAXDEV];
    bool dexcl[BF_MAXDEV]; /* already exclusively allocated in the state (looked up once) */
    bool dshared[BF_MAXDEV]; /* a live share or aggregated capacity in the state */
    uint32_t ndev;
    bf_use_t uses[DRA_ALLOC_MAX_RESULTS * 4];
    uint32_t nuses;
    uint64_t budget, count;
    /* candidate devices per request body: selectability does not depend on the partial
     * assignment, so it is computed once per body, not at every node of the recursion */
    const dra_exact_request_t *cbody[BF_MAXBODY];
    uint8_t ccand[BF_MAXBODY][BF_MAXDEV];
    uint32_t cncand[BF_MAXBODY];
    uint32_t nbody;
    bool found, too_big, error;
    dra_arena_t scratch;
    char msg[DRA_DIAG_MSG_MAX];
} bf_t;

static const char *nz(const char *s)
{
    return s ? s : "";
}

static bool selectable(bf_t *x, const dra_claim_t *c, const dra_exact_request_t *body, uint32_t di)
{
    const dra_device_class_t *cls = dra_model_find_class(x->m, nz(body->class_name));
    bool mt = false;
    if (!cls) {
        x->error = true;
        snprintf(x->msg, sizeof x->msg, "class %s not found", nz(body->class_name));
        return false;
    }
    if (dra__device_selectable(x->m, &x->b, x->cel, &x->scratch, x->node, c, cls, body, x->dev[di],
                              &mt, NULL, x->msg, sizeof x->msg)) {
        x->error = true;
        return false;
    }
    if (x->b.cc) {
        dra__capmode_t cm = dra__capmode(&x->b);
        int fits = dra__cap_fits_m(&cm, body, x->dev[di], NULL, NULL, x->msg, sizeof x->msg);
        if ((fits == DRA__CAP_MISSING && x->b.cap_missing_fatal) || fits == DRA__CAP_UNREPR) {
            x->error = true; /* the allocator fails the call where it meets such a device */
            return false;
        }
        if (fits != 1)
            return false; /* can never fit, even alone (the All set is static, PR #140769) */
    }
    uint32_t npa = x->b.scc ? dra__scc_nvalue_from(x->dev[di]) : 0;
    if (mt && npa) { /* KEP-5941 (sharedcap.c): the request-driven amounts of this use */
        dra__aq_t pa[64];
        if (npa > 64) {
            x->error = true;
            snprintf(x->msg, sizeof x->msg, "device %s: too many valueFrom counters",
                     nz(x->dev[di]->name));
            return false;
        }
        int fit = dra__scc_amounts(&x->b, &x->gp.pools[x->devpool[di]], body, x->dev[di], pa,
                                   x->msg, sizeof x->msg);
        if (fit < 0) {
            x->error = true; /* the allocator fails the call where it meets such a device */
            return false;
        }
        /* an amount the counter's requestPolicy does not allow: counter_ok_scc rejects the use
         * (the All set keeps the device, as upstream's: its allocation then fails) */
    }
    return mt;
}

static bool in_scope(const dra_constraint_t *cn, const bf_use_t *u)
{
    if (!cn->nrequests)
        return true;
    char full[600];
    snprintf(full, sizeof full, "%s/%s", nz(u->req->name), nz(u->body->name));
    for (uint32_t i = 0; i < cn->nrequests; i++)
        if (strcmp(nz(cn->requests[i]), nz(u->req->name)) == 0 ||
            (u->req->nfirst_available && strcmp(nz(cn->requests[i]), full) == 0))
            return true;
    return false;
}

/* The per-use device rules: exclusivity, counters known to the version, taints, sharing. */
static bool check_uses(const bf_t *x)
{
    const dra__beh_t *b = &x->b;
    for (uint32_t i = 0; i < x->nuses; i++) {
        const bf_use_t *u = &x->uses[i];
        const dra_device_t *d = x->dev[u->dev];
        bool multi = b->cc && d->allow_multiple_allocations;
        if (!u->admin && x->dexcl[u->dev])
            return false;
        if (!u->admin && !multi && b->share_blocks_excl && x->dshared[u->dev])
            return false; /* #140798 */
        if (!b->pd && d->nconsumes)
            return false;
        if (b->cg_skip && !(multi && x->dshared[u->dev]))
            for (uint32_t c = 0; c < d->nconsumes; c++)
                if (d->consumes[c].ngroups)
                    return false; /* groups not enforced: the device is skipped */
        if (b->taints && dra__taint_blocks(d, u->body->tolerations, u->body->ntolerations))
            return false;
        for (uint32_t j = 0; j < i && !multi; j++)
            if (x->uses[j].dev == u->dev && !(x->uses[j].claim != u->claim && u->admin))
                return false;
    }
    return true;
}

/* The attribute q of use u: its request's derived attribute of that name, evaluated (an error
 * makes the instance an error: the allocator fails where it meets it), or its device's. */
static const dra_attr_t *use_attr(const bf_t *cx, const bf_use_t *u, uint32_t q)
{
    bf_t *x = (bf_t *)cx; /* the scratch arena and the error state */
    const dra_attr_t *at = NULL;
    int rc = dra__constraint_attr(x->m, &x->b, x->cel, &x->scratch, u->body, q, x->dev[u->dev],
                                  &at, x->msg, sizeof x->msg);
    if (rc != DRA_OK)
        x->error = true;
    return rc == DRA_OK ? at : NULL;
}

/* A matchAttribute constraint cn (attribute q) over claim c's final set: every device in scope
 * has the attribute and they share one value. */
static bool check_match(const bf_t *x, uint32_t c, const dra_constraint_t *cn, uint32_t q)
{
    const dra__beh_t *b = &x->b;
    dra__aval_t acc[DRA_AVAL_MAX], v[DRA_AVAL_MAX];
    uint32_t nacc = 0;
    bool first = true;
    const dra_attr_t *ref = NULL;
    for (uint32_t i = 0; i < x->nuses; i++) {
        const bf_use_t *u = &x->uses[i];
        if (u->claim != c || !in_scope(cn, u))
            continue;
        const dra_attr_t *at = use_attr(x, u, q);
        if (!at)
            return false;
        if (b->lists) {
            uint32_t nv = dra__attr_values(at, v, DRA_AVAL_MAX);
            if (!nv)
                return false;
            if (first) {
                memcpy(acc, v, nv * sizeof v[0]);
                nacc = nv;
            } else {
                uint32_t kk = 0;
                for (uint32_t a = 0; a < nacc; a++)
                    for (uint32_t z = 0; z < nv; z++)
                        if (dra__aval_eq(&acc[a], &v[z])) {
                            acc[kk++] = acc[a];
                            break;
                        }
                nacc = kk;
                if (!nacc)
                    return false;
            }
        } else if (!first && (!dra__attr_is_scalar(at) || !dra__attr_scalar_eq(at, ref))) {
            return false;
        }
        if (first)
            ref = at;
        first = false;
    }
    return true;
}

/* A distinctAttribute constraint cn (attribute q) over claim c's final set: every device in
 * scope has the attribute and no two share a value. */
static bool check_distinct(const bf_t *x, uint32_t c, const dra_constraint_t *cn, uint32_t q)
{
    const dra__beh_t *b = &x->b;
    dra__aval_t v[DRA_AVAL_MAX], w[DRA_AVAL_MAX];
    for (uint32_t i = 0; i < x->nuses; i++) {
        const bf_use_t *u = &x->uses[i];
        if (u->claim != c || !in_scope(cn, u))
            continue;
        const dra_attr_t *at = use_attr(x, u, q);
        if (!at)
            return false;
        for (uint32_t j = 0; j < i; j++) {
            const bf_use_t *o = &x->uses[j];
            if (o->claim != c || !in_scope(cn, o))
                continue;
            const dra_attr_t *oa = use_attr(x, o, q);
            if (!oa)
                return false;
            if (b->lists) {
                uint32_t nv = dra__attr_values(at, v, DRA_AVAL_MAX),
                         nw = dra__attr_values(oa, w, DRA_AVAL_MAX);
                if (!nv)
                    return false;
                for (uint32_t a = 0; a < nv; a++)
                    for (uint32_t z = 0; z < nw; z++)
                        if (dra__aval_eq(&v[a], &w[z]))
                            return false;
            } else if (!dra__attr_is_scalar(at) || dra__attr_scalar_eq(at, oa)) {
                return false;
            }
        }
    }
    return true;
}

/* The constraints over each claim's final set. */
static bool check_constraints(const bf_t *x)
{
    const dra__beh_t *b = &x->b;
    for (uint32_t c = 0; c < x->n; c++) {
        const dra_claim_t *cl = x->claims[c];
        for (uint32_t k = 0; k < cl->nconstraints; k++) {
            const dra_constraint_t *cn = &cl->constraints[k];
            const char *an = cn->match_attribute ? cn->match_attribute
                                                 : (b->cc ? cn->distinct_attribute : NULL);
            if (!an)
                continue;
            uint32_t q = dra_intern_find(&x->m->intern, an, strlen(an));
            if (cn->match_attribute ? !check_match(x, c, cn, q) : !check_distinct(x, c, cn, q))
                return false;
        }
    }
    return true;
}

/* The capacity of every used device: each consumer within the policy, the sum (with what the
 * state already holds) within the capacity. */
static bool check_capacity(const bf_t *x)
{
    const dra__beh_t *b = &x->b;
    for (uint32_t di = 0; di < x->ndev && b->cc; di++) {
        const dra_device_t *d = x->dev[di];
        const dra__gpool_t *p = &x->gp.pools[x->devpool[di]];
        for (uint32_t k = 0; k < d->ncaps; k++) {
            dra__aq_t total = 0, ex = 0;
            bool any = false;
            for (uint32_t i = 0; i < x->nuses; i++) {
                if (x->uses[i].dev != di)
                    continue;
                any = true;
                dra__capmode_t cm = dra__capmode(b);
                dra__aq_t c = 0;
                char why[8];
                if (dra__cap_consumed_m(&cm,
                                        dra__cap_request_for(x->uses[i].body, d, d->caps[k].name,
                                                             cm.qualified),
                                        &d->caps[k], &c, why, sizeof why) != DRA_OK ||
                    dra__cap_violates_m(&cm, c, d->caps[k].policy))
                    return false;
                /* a dedicated device only ever holds one consumer */
                total = d->allow_multiple_allocations ? total + c : c;
            }
            if (!any)
                continue; /* unused devices: no state lookup */
            dra__alloc_state_cap_aq(x->st, p->driver, p->name, nz(d->name), nz(d->caps[k].name), &ex);
            if (total + ex > dra__aq_from(&d->caps[k].value))
                return false;
        }
    }
    return true;
}

/* How many times the assignment charges device dv of pool p (a shared device once, and not at
 * all when the state already holds it). */
static uint32_t counter_charges(const bf_t *x, const dra__gpool_t *p, const dra_device_t *dv)
{
    const dra__beh_t *b = &x->b;
    uint32_t charges = 0;
    for (uint32_t i = 0; i < x->nuses; i++) {
        if (x->dev[x->uses[i].dev] != dv)
            continue;
        bool multi = b->cc && dv->allow_multiple_allocations;
        bool persisted = dra__alloc_state_has_capacity(x->st, p->driver, p->name, nz(dv->name)) ||
                         dra_alloc_state_shares(x->st, p->driver, p->name, nz(dv->name)) > 0;
        if (multi && (charges > 0 || persisted))
            continue;
        charges++;
    }
    return charges;
}

/* DRASharedConsumableCapacity on (sharedcap.c): counter t of set cs of pool p - what the live
 * allocations' snapshots draw, the static counters of each used device once (a further share
 * of a device in use not at all), and the request-driven amount of every use; a used device d
 * drawing from a withheld set (the fail-closed rule) does not fit, whatever the amounts. */
static bool counter_ok_scc(const bf_t *x, const dra_device_t *d, const dra__gpool_t *p,
                           const dra_counter_set_t *cs, uint32_t t)
{
    const dra__scc_ledger_t *l = NULL;
    (void)dra__alloc_state_scc(x->st, &l);
    const char *set = nz(cs->name), *name = nz(cs->counters[t].name);
    char err[8];
    dra__aq_t used = 0;
    if (dra__scc_live_counter(l, p, set, name, &used, NULL) && dra__device_draws_from(d, set))
        return false;
    for (uint32_t di = 0; di < x->ndev; di++) {
        if (&x->gp.pools[x->devpool[di]] != p)
            continue;
        const dra_device_t *dv = x->dev[di];
        uint32_t charges = counter_charges(x, p, dv);
        for (uint32_t c = 0; c < dv->nconsumes; c++)
            for (uint32_t k = 0; k < dv->consumes[c].ncounters; k++) {
                const dra_counter_t *cc = &dv->consumes[c].counters[k];
                bool here = !strcmp(nz(dv->consumes[c].counter_set), set) &&
                            !strcmp(nz(cc->name), name);
                if (!cc->value_from) {
                    if (here)
                        used += dra__aq_from(&cc->value) * charges;
                    continue;
                }
                if (here) {
                    dra__capmode_t m = dra__capmode(&x->b);
                    const dra_counter_t *def = dra__scc_counter_def(&x->b, p, dv, &dv->consumes[c], cc);
                    for (uint32_t i = 0; i < x->nuses; i++) {
                        if (x->uses[i].dev != di)
                            continue;
                        dra__aq_t v = 0;
                        if (dra__scc_amount(&m, x->uses[i].body, dv, cc, def, &v, err, sizeof err) != 1)
                            return false; /* not allowed; a fatal one selectable() reported */
                        used += v;
                    }
                }
            }
    }
    return used <= dra__aq_from(&cs->counters[t].value);
}

/* Counter t of set cs in the scope of device d (its pool p, or its slice in 1.34): what the
 * devices in use and the assignment's charges draw stays within the counter's value. */
static bool counter_ok(const bf_t *x, const dra_device_t *d, const dra__gpool_t *p,
                       const dra_counter_set_t *cs, uint32_t t)
{
    const dra__beh_t *b = &x->b;
    if (b->scc)
        return counter_ok_scc(x, d, p, cs, t);
    dra__aq_t avail = dra__aq_from(&cs->counters[t].value), used = 0;
    const dra_slice_t *const *lists[2] = {p->slices, p->other};
    uint32_t nl[2] = {p->nslices, p->nother};
    for (int L = 0; L < 2; L++)
        for (uint32_t s = 0; s < nl[L]; s++) {
            if (!b->pool_counters && lists[L][s] != d->slice)
                continue;
            for (uint32_t e = 0; e < lists[L][s]->ndevices; e++) {
                const dra_device_t *dv = &lists[L][s]->devices[e];
                bool inuse = dra_alloc_state_in_use(x->st, p->driver, p->name, nz(dv->name));
                uint32_t charges = counter_charges(x, p, dv);
                for (uint32_t c2 = 0; c2 < dv->nconsumes; c2++) {
                    if (strcmp(nz(dv->consumes[c2].counter_set), nz(cs->name)))
                        continue;
                    for (uint32_t k = 0; k < dv->consumes[c2].ncounters; k++) {
                        if (strcmp(nz(dv->consumes[c2].counters[k].name), nz(cs->counters[t].name)))
                            continue;
                        dra__aq_t v1 = dra__aq_from(&dv->consumes[c2].counters[k].value);
                        if (inuse)
                            avail -= v1;
                        used += v1 * charges;
                    }
                }
            }
        }
    return avail >= used;
}

/* The counters: each pool (or slice in 1.34) separately; every counter of the scope of a used
 * consuming device, as upstream rejects when any of them is overdrawn. */
static bool check_counters(const bf_t *x)
{
    const dra__beh_t *b = &x->b;
    for (uint32_t di = 0; di < x->ndev && b->pd; di++) {
        const dra_device_t *d = x->dev[di];
        if (!d->nconsumes)
            continue;
        const dra__gpool_t *p = &x->gp.pools[x->devpool[di]];
        bool used_here = false;
        for (uint32_t i = 0; i < x->nuses; i++)
            used_here |= x->uses[i].dev == di;
        if (!used_here)
            continue;
        const dra_slice_t *const *srcs = b->pool_counters ? p->counter_slices : &d->slice;
        uint32_t nsrcs = b->pool_counters ? p->ncounter_slices : 1;
        for (uint32_t sc = 0; sc < nsrcs; sc++)
            for (uint32_t c = 0; c < srcs[sc]->ncounter_sets; c++) {
                const dra_counter_set_t *cs = &srcs[sc]->counter_sets[c];
                for (uint32_t t = 0; cs && t < cs->ncounters; t++)
                    if (!counter_ok(x, d, p, cs, t))
                        return false;
            }
    }
    return true;
}

/* Compatibility groups: per pool and counter set a used device consumes, the group lists of the
 * devices in use in the state (the baseline, folded in slice order) admit the used devices one
 * by one (enforced, dra__cg_lists_ok) - an adminAccess use of a device in use too, only a
 * further share of a shared device is exempt; with the gate off from 1.37 on, no used device
 * joins a set an allocated device with groups draws from. */
static bool check_groups(const bf_t *x)
{
    const dra__beh_t *b = &x->b;
    if ((!b->cg && !b->cg_skip) || !b->pd)
        return true;
    const dra_consumes_t *lists[BF_MAXDEV * 2 + 64];
    const uint32_t max = (uint32_t)(sizeof lists / sizeof lists[0]);
    for (uint32_t i = 0; i < x->nuses; i++) {
        const dra_device_t *d = x->dev[x->uses[i].dev];
        const dra__gpool_t *p = &x->gp.pools[x->devpool[x->uses[i].dev]];
        bool multi = b->cc && d->allow_multiple_allocations;
        for (uint32_t c = 0; c < d->nconsumes; c++) {
            const char *set = nz(d->consumes[c].counter_set);
            uint32_t n = 0, grouped_before = 0;
            const dra_slice_t *const *ls[2] = {p->slices, p->other};
            uint32_t nl[2] = {p->nslices, p->nother};
            for (int L = 0; L < 2; L++)
                for (uint32_t s = 0; s < nl[L]; s++)
                    for (uint32_t e = 0; e < ls[L][s]->ndevices; e++) {
                        const dra_device_t *dv = &ls[L][s]->devices[e];
                        if (!dra_alloc_state_in_use(x->st, p->driver, p->name, nz(dv->name)))
                            continue;
                        for (uint32_t c2 = 0; c2 < dv->nconsumes; c2++)
                            if (!strcmp(nz(dv->consumes[c2].counter_set), set) && n < max) {
                                lists[n++] = &dv->consumes[c2];
                                grouped_before += dv->consumes[c2].ngroups > 0;
                            }
                    }
            if (b->cg_skip) {
                if (grouped_before && !(multi && x->dshared[x->uses[i].dev]))
                    return false;
                continue;
            }
            const uint32_t nbase = n;
            for (uint32_t j = 0; j < x->nuses; j++) {
                const dra_device_t *o = x->dev[x->uses[j].dev];
                bool dup = false;
                for (uint32_t j2 = 0; j2 < j && !dup; j2++)
                    dup = x->dev[x->uses[j2].dev] == o;
                /* a further share of a device shared before is in the baseline already and
                 * not checked again (upstream skips it with its counters); any other use of a
                 * device in use before (adminAccess) is checked against the baseline like a
                 * new one (checkAndConsumeCompatibilityGroups has no exception for it) */
                if (dup || x->devpool[x->uses[j].dev] != x->devpool[x->uses[i].dev] ||
                    (b->cc && o->allow_multiple_allocations && x->dshared[x->uses[j].dev]))
                    continue;
                for (uint32_t c2 = 0; c2 < o->nconsumes; c2++)
                    if (!strcmp(nz(o->consumes[c2].counter_set), set) && n < max)
                        lists[n++] = &o->consumes[c2];
            }
            if (!dra__cg_lists_ok(lists, nbase, n))
                return false;
        }
    }
    return true;
}

/* Whether the complete assignment in x->uses keeps every rule. */
static bool check(bf_t *x)
{
    return check_uses(x) && check_constraints(x) && check_capacity(x) && check_counters(x) &&
           check_groups(x);
}

static void rec(bf_t *x, uint32_t c, uint32_t r);

static void choose(bf_t *x, uint32_t c, uint32_t r, const dra_request_t *req,
                   const dra_exact_request_t *body, const uint32_t *cand, uint32_t ncand,
                   uint32_t from, int64_t left)
{
    if (x->found || x->too_big || x->error)
        return;
    if (left == 0) {
        rec(x, c, r + 1);
        return;
    }
    for (uint32_t i = from; i < ncand && (int64_t)(ncand - i) >= left; i++) {
        bf_use_t *u = &x->uses[x->nuses++];
        u->dev = cand[i];
        u->claim = c;
        u->admin = body->admin_access && !req->nfirst_available;
        u->body = body;
        u->req = req;
        choose(x, c, r, req, body, cand, ncand, i + 1, left - 1);
        x->nuses--;
    }
}

/* The selectable devices of a request body, memoised; false on a selector error. */
static bool candidates(bf_t *x, const dra_claim_t *cl, const dra_exact_request_t *body,
                       uint32_t *cand, uint32_t *ncand)
{
    uint32_t k = 0;
    while (k < x->nbody && x->cbody[k] != body)
        k++;
    if (k == x->nbody) {
        if (k == BF_MAXBODY) { /* cannot happen within BF_MAXREQ; compute without memo */
            *ncand = 0;
            for (uint32_t di = 0; di < x->ndev; di++)
                if (selectable(x, cl, body, di))
                    cand[(*ncand)++] = di;
            return !x->error;
        }
        x->cbody[k] = body;
        x->cncand[k] = 0;
        for (uint32_t di = 0; di < x->ndev; di++)
            if (selectable(x, cl, body, di))
                x->ccand[k][x->cncand[k]++] = (uint8_t)di;
        if (x->error)
            return false;
        x->nbody++;
    }
    *ncand = x->cncand[k];
    for (uint32_t i = 0; i < *ncand; i++)
        cand[i] = x->ccand[k][i];
    return true;
}

static void rec(bf_t *x, uint32_t c, uint32_t r)
{
    if (x->found || x->too_big || x->error)
        return;
    if (c == x->n) {
        if (++x->count > x->budget) {
            x->too_big = true;
            return;
        }
        if (check(x))
            x->found = true;
        return;
    }
    const dra_claim_t *cl = x->claims[c];
    if (r == cl->nrequests) {
        uint32_t mine = 0;
        for (uint32_t i = 0; i < x->nuses; i++)
            mine += x->uses[i].claim == c;
        if (mine <= DRA_ALLOC_MAX_RESULTS)
            rec(x, c + 1, 0);
        return;
    }
    const dra_request_t *req = &cl->requests[r];
    uint32_t nalt = req->nfirst_available ? req->nfirst_available : 1;
    for (uint32_t a = 0; a < nalt && !x->found; a++) {
        const dra_exact_request_t *body = req->nfirst_available ? &req->first_available[a] : req->exactly;
        if (!body)
            continue;
        uint32_t cand[BF_MAXDEV], ncand = 0;
        if (!candidates(x, cl, body, cand, &ncand))
            return;
        if (body->mode == DRA_MODE_ALL) {
            if (!ncand)
                continue;
            choose(x, c, r, req, body, cand, ncand, 0, ncand);
        } else {
            int64_t cnt = body->has_count ? body->count : 1;
            if (cnt < 0 || cnt > DRA_ALLOC_MAX_RESULTS)
                continue;
            choose(x, c, r, req, body, cand, ncand, 0, cnt);
        }
    }
}

int dra_alloc_bruteforce(const dra_model_t *m, const dra_alloc_features_t *f,
                         const dra_alloc_state_t *state, dra_cel_cache_t *cel,
                         const dra_node_t *node, dra_claim_t *const *claims, uint32_t n,
                         uint64_t budget, dra_bf_result_t *out)
{
    memset(out, 0, sizeof *out);
    bf_t *x = calloc(1, sizeof *x);
    if (!x)
        return DRA_ENOMEM;
    x->m = m;
    dra_alloc_features_t fixed = *f; /* never with upstream bugs */
    fixed.upstream_bugs = false;
    dra__beh_init(&x->b, &fixed);
    x->st = state;
    x->cel = cel;
    x->node = node;
    x->claims = claims;
    x->n = n;
    x->budget = budget ? budget : 1000000;
    dra_arena_init(&x->scratch, 64 * 1024);
    int rc = dra__gather_pools(m, &x->b, node, &x->scratch, &x->gp, x->msg, sizeof x->msg);
    if (rc == DRA_ENOMEM)
        goto done;
    if (rc || dra__scc_check_pools(&x->b, state, &x->gp, x->msg, sizeof x->msg)) {
        out->verdict = DRA_BF_ERROR;
        snprintf(out->msg, sizeof out->msg, "%s", x->msg);
        rc = DRA_OK;
        goto done;
    }
    for (uint32_t p = 0; p < x->gp.n; p++) {
        const dra__gpool_t *gp = &x->gp.pools[p];
        if (gp->invalid || (gp->incomplete && x->b.strict_pools))
            continue;
        for (uint32_t s = 0; s < gp->nslices; s++)
            for (uint32_t d = 0; d < gp->slices[s]->ndevices; d++) {
                if (x->ndev == BF_MAXDEV) {
                    out->verdict = DRA_BF_TOO_BIG;
                    goto done;
                }
                const dra_device_t *dv = &gp->slices[s]->devices[d];
                x->devpool[x->ndev] = p;
                x->dexcl[x->ndev] =
                    dra_alloc_state_exclusive(state, gp->driver, gp->name, nz(dv->name)) != 0;
                x->dshared[x->ndev] =
                    dra_alloc_state_shares(state, gp->driver, gp->name, nz(dv->name)) > 0 ||
                    dra__alloc_state_has_capacity(state, gp->driver, gp->name, nz(dv->name));
                x->dev[x->ndev++] = dv;
            }
    }
    uint32_t nreq = 0;
    for (uint32_t c = 0; c < n; c++)
        nreq += claims[c]->nrequests;
    if (nreq > BF_MAXREQ) {
        out->verdict = DRA_BF_TOO_BIG;
        goto done;
    }
    rec(x, 0, 0);
    out->assignments = x->count;
    if (x->error) {
        out->verdict = DRA_BF_ERROR;
        snprintf(out->msg, sizeof out->msg, "%s", x->msg);
    } else if (x->found) {
        out->verdict = DRA_BF_SATISFIABLE;
    } else if (x->too_big) {
        out->verdict = DRA_BF_TOO_BIG;
    } else {
        out->verdict = DRA_BF_UNSATISFIABLE;
    }
    rc = DRA_OK;
done:
    dra_arena_fini(&x->scratch);
    free(x);
    return rc;
}
