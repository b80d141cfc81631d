/*
 * direct.c - exact per-node answers from the engine's own columns.
 *
 * A plan of one claim with one ExactCount request for k devices (no subrequests, no admin
 * access, no capacity requests), with no constraint or one matchAttribute constraint on that
 * request, is answered on a node without calling the exact allocator: the devices are read off
 * the signature's match bitset, the plan's static eligibility bitset and the engine's
 * availability bitset over the node's range of table rows, a word at a time.
 *
 * Why the answer is the exact allocator's. The fast allocator's scan (core/alloc/fast.c, "exact
 * per-node fast paths") proves that for such a call the search returns the greedy path - at
 * every level the first device, in search order, that passes every check given the devices
 * picked before - when that path reaches k devices; when it does not, the call is unsatisfiable
 * if no check depended on the picks, and with matchAttribute only, the answer is the first
 * group of equal values (ordered by its first member) with k eligible members, its first k.
 * The same facts are read here from other columns:
 *  - search order: a node's range of table rows follows the upstream order (pools by (driver,
 *    pool), then slices, then devices; table.h). A node is answered directly only when its slice
 *    order is the profile's (model order unless the profile sorts slices by name), when no
 *    binding-condition pool is moved last, and when none of the plan's signature rows lie in
 *    the shared range (so the node's own range is every candidate);
 *  - the checks of allocateDevice: the selectors are the signature's match bitset (errors: a node
 *    with an error row of the signature is a hazard for the plan and never answered here);
 *    exclusivity, and for k = 1 the counters, are the engine's availability bit (free, and every
 *    counter the device consumes has that much left; engine.c); the static checks (binding
 *    conditions with their gate off, partitionable devices with theirs off, the static capacity
 *    check of a request without capacity, taints against the request's tolerations) are the
 *    plan's eligibility bitset, computed once; for k >= 2 picks over partitionable devices, the
 *    counters are re-checked with the consumption of the devices picked before;
 *  - what would make the allocator leave the scan is excluded up front: multi-allocatable
 *    devices under DRAConsumableCapacity (shareIDs) and devices with binding conditions with the
 *    gate on make a plan never direct; a share recorded on a device that is not multi-allocatable
 *    turns direct answers off; upstream-bug mode, a step budget, the allocator's shortcuts off or
 *    the reference allocator turn them off; counter consumption is exact only when no counter is
 *    over its capacity (a pool with one is refused by the allocator as a whole: e->nneg), and per
 *    pool (release 1.35 and later);
 *  - a greedy path that fails for k >= 2 with a partitionable device among the eligible rows
 *    (the picks matter) goes to the allocator; a matchAttribute column holding versions (the
 *    table merges versions of equal precedence, the allocator compares texts) is never direct.
 * The result is built as the allocator builds it (core/alloc/claims.c): one result per device
 * (request name, driver, pool, device, its model row, the request's tolerations, the device's
 * binding conditions when the gate is on), the class's configs then the claim's that name the
 * request or none, and the node selector of a node-local slice (metadata.name In [node]).
 * Verification: with DRA_DEBUG >= 3 or opts.verify_direct, every direct answer is compared with
 * the allocator's on the same node (engine.c, try_node); a difference is DRA_EINTERNAL.
 *
 * Cost: set-up O(rows); a plan O(rows / 64 + rows of its signature); an answer O(words of the
 * node's range + eligible rows looked at), one arena allocation for the result.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "engine/engine_impl.h"

#define NONE DRA_ENGINE_NONE

/* ---- set-up ---------------------------------------------------------------------------------- */

/* The model row of table row r (dra_result_t.row - 1). */
static uint32_t model_row(const dra_engine_t *e, uint32_t r)
{
    const dra_device_t *d = e->t->dev[r];
    return e->slice_row0[e->t->slice[r]] + d->index;
}

/* A node whose range is in the allocator's search order, with nothing the scan cannot judge. */
static bool node_direct(const dra_engine_t *e, uint32_t n)
{
    const dra_table_t *t = e->t;
    uint32_t tn = e->tnode[n];
    if (e->hz[n] || tn == NONE)
        return false;
    for (uint32_t r = t->nodes[tn].begin; r < t->nodes[tn].end; r++) {
        if (e->row_node[r] != n || !t->dev[r])
            return false;
        if (e->beh.bc_last && (t->flags[r] & DRA_ROW_BINDING))
            return false; /* a pool with binding conditions may be moved last */
        if (r > t->nodes[tn].begin && !e->beh.sort_slices && t->pool[r] == t->pool[r - 1] &&
            t->slice[r] < t->slice[r - 1])
            return false; /* slices in model order, the table has them by name */
    }
    return true;
}

int dra__direct_setup(dra_engine_t *e)
{
    const dra_model_t *m = e->m;
    const dra_table_t *t = e->t;
    dra_arena_init(&e->vscratch, 16 * 1024);
    e->dnode = calloc((size_t)e->nnodes + 1, 1);
    e->slice_row0 = calloc((size_t)m->nslices + 1, sizeof *e->slice_row0);
    if (!e->dnode || !e->slice_row0)
        return DRA_ENOMEM;
    (void)dra_model_device_rows(m, e->slice_row0);
    e->direct_on = e->alloc->kind == DRA_ALLOC_FAST && dra_fast_shortcuts(e->alloc->fast) &&
                   !e->beh.bugs && !e->all_brute;
    if (!e->direct_on)
        return DRA_OK;
    for (uint32_t n = 0; n < e->nnodes; n++)
        e->dnode[n] = node_direct(e, n);
    /* a share or consumed capacity recorded on a device that is not multi-allocatable makes the
     * allocator leave its scan for that device: not judged here */
    for (uint32_t r = 0; e->beh.cc && r < t->shared_begin && e->direct_on; r++) {
        const dra_device_t *d = t->dev[r];
        if (!d || (t->flags[r] & DRA_ROW_MULTI_ALLOC))
            continue;
        const dra_table_pool_t *pl = &t->pools[t->pool[r]];
        unsigned f = dra_alloc_state_row_flags(e->state, model_row(e, r), pl->driver ? pl->driver : "",
                                               pl->name ? pl->name : "", d->name ? d->name : "");
        if (f & (DRA_STATE_CAP | DRA_STATE_SHARE))
            e->direct_on = false;
    }
    if (!dra_arena_alloc(&e->vscratch, 1, 1)) /* warm outside timed regions */
        return DRA_ENOMEM;
    dra_arena_reset(&e->vscratch);
    return DRA_OK;
}

void dra__direct_note_share(dra_engine_t *e, uint32_t r, const dra_result_t *res)
{
    if (e->beh.cc && res->share_id && !(e->t->flags[r] & DRA_ROW_MULTI_ALLOC))
        e->direct_on = false;
}

/* ---- plans ----------------------------------------------------------------------------------- */

static bool listed(const char *const *names, uint32_t n, const char *name)
{
    for (uint32_t i = 0; i < n; i++)
        if (strcmp(names[i] ? names[i] : "", name) == 0)
            return true;
    return false;
}

/* The request of a direct plan: one ExactCount request the allocator's validation accepts,
 * without subrequests, admin access or capacity. NULL: not such a claim. */
static const dra_request_t *direct_request(const dra_engine_t *e, const dra_claim_t *c)
{
    if (c->nrequests != 1)
        return NULL;
    const dra_request_t *r = &c->requests[0];
    const dra_exact_request_t *b = r->exactly;
    if (r->nfirst_available || !b || b->mode != DRA_MODE_EXACT_COUNT || b->admin_access ||
        b->has_admin_access || b->has_capacity || b->ncap_requests > 0 || !b->class_name ||
        !dra_model_find_class(e->m, b->class_name))
        return NULL;
    int64_t k = b->has_count ? b->count : 1;
    if (k < 1 || k > DRA_ALLOC_MAX_RESULTS)
        return NULL;
    for (uint32_t i = 0; i < b->nselectors; i++)
        if (!b->selectors[i].cel)
            return NULL;
    return r;
}

/* The one matchAttribute constraint on the request (*attr its name, NULL for none); false when
 * the claim has a constraint the direct answers do not serve. */
static bool direct_constraint(const dra_engine_t *e, const dra_claim_t *c, const char *rname,
                              const char **attr)
{
    *attr = NULL;
    if (c->nconstraints && e->beh.lists)
        return false;
    for (uint32_t x = 0; x < c->nconstraints; x++) {
        const dra_constraint_t *cn = &c->constraints[x];
        bool in = cn->nrequests == 0 || listed(cn->requests, cn->nrequests, rname);
        if (cn->match_attribute) {
            if (!in)
                continue;
            if (*attr)
                return false;
            *attr = cn->match_attribute;
        } else if (cn->distinct_attribute && e->beh.cc) {
            if (in)
                return false;
        } else {
            return false; /* an empty constraint: Fatal, not indexed anyway */
        }
    }
    return true;
}

/* Whether the signature has a matching or error row in the shared range. */
static bool sig_shared(const dra_engine_t *e, const sig_t *s)
{
    const dra_table_t *t = e->t;
    for (uint32_t r = t->shared_begin; r < t->nrows; r++)
        if (dra_bit_get(s->match, r) || dra_bit_get(s->err, r))
            return true;
    return false;
}

/* The row's counter entries name one counter each (the allocator sums a device's consumption per
 * counter; the engine checks entries one by one). */
static bool entries_distinct(const dra_engine_t *e, uint32_t r)
{
    for (uint32_t i = e->rc_off[r]; i < e->rc_off[r + 1]; i++)
        for (uint32_t j = e->rc_off[r]; j < i; j++)
            if (e->ent_ctr[i] == e->ent_ctr[j])
                return false;
    return true;
}

/* Static eligibility of the signature's node-range rows for request body b (see the top);
 * false when some row makes the plan never direct. */
static bool fill_ok(dra_engine_t *e, dra__direct_t *d, const sig_t *s,
                    const dra_exact_request_t *b)
{
    const dra_table_t *t = e->t;
    for (uint32_t r = 0; r < t->shared_begin; r++) {
        if (e->row_node[r] == NONE || !dra_bit_get(s->match, r) || dra_bit_get(s->err, r))
            continue;
        const dra_device_t *dv = t->dev[r];
        uint8_t fl = t->flags[r];
        if (e->beh.cc && (fl & DRA_ROW_MULTI_ALLOC))
            return false;
        if (e->beh.binding && (fl & DRA_ROW_BINDING))
            return false;
        if (!e->beh.binding && dv->nbinding_conditions > 0)
            continue;
        if (dv->nconsumes > 0 && !e->beh.pd)
            continue;
        if (e->beh.cc && dra__cap_fits(b, dv, NULL, NULL, false) != 1)
            continue;
        if (e->beh.taints && dra__taint_blocks(dv, b->tolerations, b->ntolerations))
            continue;
        if (dv->nconsumes > 0) {
            if (!e->beh.pool_counters || !e->rc_off || !entries_distinct(e, r))
                return false;
            d->cons = true;
        }
        dra_bit_set(d->ok, r);
    }
    return true;
}

/* The allocation's configs in the allocator's order: the class's (each naming the request),
 * then the claim's that name no request or this one. */
static int fill_configs(dra_engine_t *e, dra__direct_t *d, const dra_claim_t *c,
                        const dra_device_class_t *cls)
{
    uint32_t n = cls->nconfigs;
    for (uint32_t x = 0; x < c->nconfigs; x++)
        n += c->configs[x].nrequests == 0 ||
             listed(c->configs[x].requests, c->configs[x].nrequests, d->req);
    const char **reqv = dra_arena_alloc(&e->arena, sizeof *reqv, 8);
    d->cfg = dra_arena_calloc(&e->arena, n + 1, sizeof *d->cfg, 8);
    if (!reqv || !d->cfg)
        return DRA_ENOMEM;
    reqv[0] = d->req;
    for (uint32_t x = 0; x < cls->nconfigs; x++) {
        dra_alloc_config_t *cf = &d->cfg[d->ncfg++];
        cf->source = DRA_CONFIG_FROM_CLASS;
        cf->opaque = cls->configs[x].opaque;
        cf->requests = reqv;
        cf->nrequests = 1;
    }
    for (uint32_t x = 0; x < c->nconfigs; x++) {
        const dra_claim_config_t *cc = &c->configs[x];
        if (cc->nrequests && !listed(cc->requests, cc->nrequests, d->req))
            continue;
        dra_alloc_config_t *cf = &d->cfg[d->ncfg++];
        cf->source = DRA_CONFIG_FROM_CLAIM;
        cf->requests = cc->requests;
        cf->nrequests = cc->nrequests;
        cf->opaque = cc->opaque;
    }
    return DRA_OK;
}

int dra__direct_plan(dra_engine_t *e, plan_t *p)
{
    memset(&p->d, 0, sizeof p->d);
    if (!e->direct_on || !p->indexed || p->nclaims != 1 || p->anyall || p->nreqs != 1 ||
        p->nalts != 1)
        return DRA_OK;
    const dra_claim_t *c = p->claims[0];
    const dra_request_t *r = direct_request(e, c);
    const char *rname = r && r->name ? r->name : "";
    const char *attr = NULL;
    if (!r || !direct_constraint(e, c, rname, &attr))
        return DRA_OK;
    dra__direct_t d = {0};
    d.sig = p->alts[0].sig;
    d.body = r->exactly;
    d.k = (uint32_t)(d.body->has_count ? d.body->count : 1);
    d.attr = NONE;
    const sig_t *s = &e->sigs[d.sig];
    if (sig_shared(e, s))
        return DRA_OK;
    if (attr) {
        const dra_table_attr_t *ta = dra_table_attr_by_name(e->t, attr, strlen(attr));
        if (ta) {
            if (ta->kinds & (1u << DRA_ATTR_VERSION))
                return DRA_OK; /* equal precedence is one code, the allocator compares texts */
            d.attr = (uint32_t)(ta - e->t->attrs);
        }
    }
    size_t nw = dra_bitset_words(e->t->nrows_padded);
    d.ok = dra_arena_alloc(&e->arena, nw * sizeof *d.ok + 8, DRA_TABLE_ALIGN);
    if (!d.ok)
        return DRA_ENOMEM;
    memset(d.ok, 0, nw * sizeof *d.ok + 8);
    if (!fill_ok(e, &d, s, d.body))
        return DRA_OK;
    size_t ln = strlen(rname) + 1;
    char *req = dra_arena_alloc(&e->arena, ln, 1);
    if (!req)
        return DRA_ENOMEM;
    memcpy(req, rname, ln);
    d.req = req;
    if (fill_configs(e, &d, c, dra_model_find_class(e->m, d.body->class_name)))
        return DRA_ENOMEM;
    d.kind = attr ? DRA__DIRECT_MATCH : DRA__DIRECT_FIRST;
    p->d = d;
    return DRA_OK;
}

bool dra__direct_applies(const dra_engine_t *e, const plan_t *p, uint32_t n)
{
    return p->d.kind != DRA__DIRECT_NONE && e->direct_on && e->dnode[n] &&
           !e->sigs[p->d.sig].herr[n] && !(p->d.cons && e->nneg) &&
           dra_fast_shortcuts(e->alloc->fast); /* tests may switch them off later */
}

/* ---- answers --------------------------------------------------------------------------------- */

enum { PICKED = 1, FALLBACK = 2 }; /* the pickers' answers besides 0 (unsatisfiable) */

/* The candidate rows of the node's range: eligible and available, in row order. */
typedef struct scan {
    const uint64_t *ok, *av;
    uint32_t end, w, wend;
    uint64_t bits;
} scan_t;

static void scan_init(scan_t *sc, const dra_engine_t *e, const plan_t *p, uint32_t begin,
                      uint32_t end)
{
    sc->ok = p->d.ok;
    sc->av = e->avb;
    sc->end = end;
    sc->w = begin >> 6;
    sc->wend = end ? ((end - 1) >> 6) + 1 : 0;
    sc->bits = begin < end ? (sc->ok[sc->w] & sc->av[sc->w]) & (~(uint64_t)0 << (begin & 63)) : 0;
    if (begin >= end)
        sc->w = sc->wend;
}

/* The next candidate row, NONE at the end. */
static uint32_t scan_next(scan_t *sc)
{
    while (!sc->bits) {
        if (++sc->w >= sc->wend)
            return NONE;
        sc->bits = sc->ok[sc->w] & sc->av[sc->w];
    }
    uint32_t r = (sc->w << 6) + (uint32_t)__builtin_ctzll(sc->bits);
    sc->bits &= sc->bits - 1;
    return r < sc->end ? r : NONE;
}

/* Row r's consumption fits what is left after the state and the rows picked before. */
static bool fits_after(const dra_engine_t *e, uint32_t r, const uint32_t *pick, uint32_t np)
{
    for (uint32_t i = e->rc_off[r]; i < e->rc_off[r + 1]; i++) {
        uint32_t c = e->ent_ctr[i];
        dra__aq_t used = e->cused[c] + e->amts[e->ent_amt[i]];
        for (uint32_t j = 0; j < np; j++)
            for (uint32_t x = e->rc_off[pick[j]]; x < e->rc_off[pick[j] + 1]; x++)
                if (e->ent_ctr[x] == c)
                    used += e->amts[e->ent_amt[x]];
        if (used > e->ccap[c])
            return false;
    }
    return true;
}

static bool consumes(const dra_engine_t *e, uint32_t r)
{
    return e->rc_off && e->rc_off[r] < e->rc_off[r + 1];
}

/* No constraint: the first k candidates (the greedy path). PICKED, 0 unsatisfiable, FALLBACK. */
static int pick_first(const dra_engine_t *e, const plan_t *p, scan_t *sc, uint32_t *pick,
                      uint32_t *np, uint64_t *looked)
{
    const uint32_t k = p->d.k;
    for (uint32_t r; (r = scan_next(sc)) != NONE;) {
        (*looked)++;
        if (*np && p->d.cons && consumes(e, r) && !fits_after(e, r, pick, *np))
            continue;
        pick[(*np)++] = r;
        if (*np == k)
            return PICKED;
    }
    /* the greedy path stopped short: for k = 1 the search has one level (unsatisfiable); else
     * unsatisfiable unless the picks mattered (counters) */
    return k > 1 && p->d.cons ? FALLBACK : 0;
}

/* Code of row r in the constrained column, and whether its value is a scalar. */
static uint32_t attr_code(const dra_table_attr_t *a, uint32_t r, bool *scalar)
{
    uint32_t code = dra_table_attr_code(a, r);
    uint8_t kind = a->dkind[code];
    *scalar = kind >= DRA_ATTR_INT && kind <= DRA_ATTR_VERSION;
    return code;
}

/* matchAttribute: the greedy path (the first candidate with the attribute sets the value, later
 * ones must equal it), else the first group of equal scalar values, by first member, with k
 * candidates: its first k. PICKED, 0 unsatisfiable, FALLBACK. */
static int pick_match(const dra_engine_t *e, const plan_t *p, scan_t *sc, uint32_t begin,
                      uint32_t *pick, uint32_t *np, uint64_t *looked)
{
    const uint32_t k = p->d.k;
    if (p->d.attr == NONE) /* no device has the attribute: nobody can join */
        return k > 1 && p->d.cons ? FALLBACK : 0;
    const dra_table_attr_t *a = &e->t->attrs[p->d.attr];
    uint32_t ref = 0;
    bool ref_scalar = false;
    enum { MAXG = 64 };
    uint32_t gcode[MAXG], gcnt[MAXG], ng = 0;
    bool overflow = false;
    for (uint32_t r; (r = scan_next(sc)) != NONE;) {
        (*looked)++;
        bool scalar;
        uint32_t code = attr_code(a, r, &scalar);
        if (!code)
            continue;
        if (scalar && !overflow) { /* groups, for when the greedy path stops short */
            uint32_t g = 0;
            while (g < ng && gcode[g] != code)
                g++;
            if (g == ng) {
                if (ng == MAXG) {
                    overflow = true;
                } else {
                    gcode[ng] = code;
                    gcnt[ng++] = 0;
                }
            }
            if (g < ng)
                gcnt[g]++;
        }
        if (*np && (!scalar || !ref_scalar || code != ref))
            continue;
        if (*np && p->d.cons && consumes(e, r) && !fits_after(e, r, pick, *np))
            continue;
        if (!*np) {
            ref = code;
            ref_scalar = scalar;
        }
        pick[(*np)++] = r;
        if (*np == k)
            return PICKED;
    }
    if (k == 1)
        return 0;
    if (p->d.cons || overflow)
        return FALLBACK;
    uint32_t best = 0;
    while (best < ng && gcnt[best] < k)
        best++;
    if (best == ng)
        return 0;
    *np = 0;
    scan_init(sc, e, p, begin, sc->end);
    for (uint32_t r; (r = scan_next(sc)) != NONE;) {
        bool scalar;
        if (attr_code(a, r, &scalar) != gcode[best])
            continue;
        pick[(*np)++] = r;
        if (*np == k)
            return PICKED;
    }
    return FALLBACK; /* not reached: the group has k candidates */
}

/* Carve n bytes (16-aligned) from the block. */
static void *carve(char **at, size_t n)
{
    void *x = *at;
    *at += (n + 15) & ~(size_t)15;
    return x;
}

static size_t rnd(size_t n)
{
    return (n + 15) & ~(size_t)15;
}

/* The allocation of the picked rows, as the allocator builds it (see the top). */
static int build(const dra_engine_t *e, const plan_t *p, uint32_t n, const uint32_t *pick,
                 uint32_t np, dra_arena_t *arena, dra_engine_result_t *out)
{
    const dra__direct_t *d = &p->d;
    size_t size = rnd(sizeof(dra_allocation_t *)) + rnd(sizeof(dra_allocation_t)) +
                  rnd(np * sizeof(dra_result_t)) + rnd((d->ncfg + 1) * sizeof(dra_alloc_config_t)) +
                  rnd(sizeof(dra_node_selector_t)) + rnd(sizeof(dra_ns_term_t)) +
                  rnd(sizeof(dra_ns_req_t)) + rnd(sizeof(const char *));
    char *at = dra_arena_alloc(arena, size, 16);
    if (!at)
        return DRA_ENOMEM;
    dra_allocation_t **als = carve(&at, sizeof *als);
    dra_allocation_t *al = carve(&at, sizeof *al);
    dra_result_t *res = carve(&at, np * sizeof *res);
    dra_alloc_config_t *cfg = carve(&at, (d->ncfg + 1) * sizeof *cfg);
    dra_node_selector_t *ns = carve(&at, sizeof *ns);
    dra_ns_term_t *term = carve(&at, sizeof *term);
    dra_ns_req_t *req = carve(&at, sizeof *req);
    const char **vals = carve(&at, sizeof *vals);
    const dra_table_t *t = e->t;
    memset(res, 0, np * sizeof *res);
    for (uint32_t i = 0; i < np; i++) {
        uint32_t r = pick[i];
        const dra_device_t *dv = t->dev[r];
        const dra_table_pool_t *pl = &t->pools[t->pool[r]];
        dra_result_t *o = &res[i];
        o->request = d->req;
        o->driver = pl->driver;
        o->pool = pl->name;
        o->device = dv->name;
        o->row = model_row(e, r) + 1;
        o->tolerations = d->body->tolerations;
        o->ntolerations = d->body->ntolerations;
        if (e->beh.binding) {
            o->binding_conditions = dv->binding_conditions;
            o->nbinding_conditions = dv->nbinding_conditions;
            o->binding_failure_conditions = dv->binding_failure_conditions;
            o->nbinding_failure_conditions = dv->nbinding_failure_conditions;
        }
    }
    memcpy(cfg, d->cfg, d->ncfg * sizeof *cfg);
    vals[0] = e->m->nodes[n]->name;
    *req = (dra_ns_req_t){.key = "metadata.name", .op = DRA_NS_IN, .op_raw = "In",
                          .values = vals, .nvalues = 1};
    *term = (dra_ns_term_t){.fields = req, .nfields = 1};
    memset(ns, 0, sizeof *ns);
    ns->terms = term;
    ns->nterms = 1;
    *al = (dra_allocation_t){.results = res, .nresults = np, .configs = cfg, .nconfigs = d->ncfg,
                             .node_selector = ns};
    als[0] = al;
    out->kind = DRA_OUTCOME_ALLOCATED;
    out->node = n;
    out->allocations = als;
    out->n = 1;
    out->msg[0] = 0;
    return DRA_OK;
}

int dra__direct_try(dra_engine_t *e, const plan_t *p, uint32_t n, dra_arena_t *arena,
                    dra_engine_result_t *out, bool *decided)
{
    const dra_table_node_t *nd = &e->t->nodes[e->tnode[n]];
    uint32_t pick[DRA_ALLOC_MAX_RESULTS], np = 0;
    uint64_t looked = 0;
    scan_t sc;
    *decided = false;
    scan_init(&sc, e, p, nd->begin, nd->end);
    int rc = p->d.kind == DRA__DIRECT_MATCH
                 ? pick_match(e, p, &sc, nd->begin, pick, &np, &looked)
                 : pick_first(e, p, &sc, pick, &np, &looked);
    out->stats.candidates += looked;
    if (rc == FALLBACK)
        return DRA__DIRECT_FALLBACK;
    if (!rc)
        return DRA_OK; /* unsatisfiable on this node */
    int brc = build(e, p, n, pick, np, arena, out);
    if (brc)
        return brc;
    out->served = p->d.kind == DRA__DIRECT_MATCH ? DRA_SERVED_DIRECT_MATCH
                  : p->d.cons                    ? DRA_SERVED_DIRECT_COUNTERS
                                                 : DRA_SERVED_DIRECT_FIRST;
    *decided = true;
    return DRA_OK;
}

int dra__direct_verify(dra_engine_t *e, const plan_t *p, uint32_t n, bool decided,
                       dra_engine_result_t *out)
{
    dra_alloc_outcome_t o, mine;
    dra_arena_reset(&e->vscratch);
    int rc = dra_anyalloc_allocate(e->alloc, e->m->nodes[n], p->claims, p->nclaims, &e->vscratch,
                                   &o);
    if (rc)
        return rc;
    memset(&mine, 0, sizeof mine);
    mine.kind = decided ? DRA_OUTCOME_ALLOCATED : DRA_OUTCOME_UNSATISFIABLE;
    if (decided) {
        mine.allocations = out->allocations;
        mine.n = out->n;
    }
    char why[DRA_DIAG_MSG_MAX - 96];
    bool differs = dra_alloc_outcome_differs(&o, &mine, why, sizeof why);
    dra_arena_reset(&e->vscratch);
    if (!differs)
        return DRA_OK;
    snprintf(out->msg, sizeof out->msg, "direct answer on node %s differs from the allocator: %s",
             e->m->nodes[n]->name ? e->m->nodes[n]->name : "", why);
    return DRA_EINTERNAL;
}
