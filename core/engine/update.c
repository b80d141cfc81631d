/*
 * update.c - a republished slice re-evaluated on its rows only (dra_engine_update_slice,
 * engine.h).
 *
 * Order of the work, each step reading what the steps before it wrote:
 *  1. refuse what is not incremental (slice->changed: counter consumption, multi-allocation;
 *     capacities of multi-allocatable rows read by capacity signatures), before any change;
 *  2. All-set membership (amem) of the rows (binding flags and capacities may have changed);
 *  3. signatures in creation order: a signature that owns its bitsets (plain ones, by the
 *     interpreter on each row, selectors in order stopping at the first false or error; "excl"
 *     ones from their plain base and their All signature, as sig_variant derives them) rewrites
 *     the rows' match and error bits; capacity signatures re-check their fit bits; the others
 *     share their base's bitsets; the per-row masks of signatures 0..31 follow;
 *  4. blocked bits (All) of the rows;
 *  5. per signature: the node's matchAttribute groups (recomputed over the node's range as
 *     sig_get_group builds them), then the node's counts / error flag / blocked count from its
 *     range (or, for a shared slice, the shared-range facts), the leaf of the segment tree;
 *  6. plans: error nodes, hazard flags; recompilation where the indexed decision may change;
 *  7. direct answers' static eligibility over the rows (direct.c), and the allocator's caches.
 * Availability (avb) does not change: it depends on the state, the multi-allocation flag and
 * the counters, none of which an accepted update changes.
 *
 * Ownership: the update's scratch is the engine's upd_arena. Errors: DRA_EUNSUPPORTED with diag
 * (step 1: not incremental, build a new engine; nothing changed), DRA_EINVAL (unknown slice),
 * DRA_ENOMEM. Cost: O(rows of the slice * signatures) plus the node's groups and tree leaves and
 * the plans step 6 recompiles; not timed as placement (the run times it as slice-update).
 */
#include <stdlib.h>
#include <string.h>

#include "engine/engine_impl.h"

/* Some request of the plan's claims asks for capacity. */
static bool plan_asks_capacity(const plan_t *p)
{
    for (uint32_t c = 0; c < p->nclaims; c++)
        for (uint32_t ri = 0; ri < p->claims[c]->nrequests; ri++) {
            const dra_request_t *r = &p->claims[c]->requests[ri];
            if (r->exactly && r->exactly->ncap_requests)
                return true;
            for (uint32_t s = 0; s < r->nfirst_available; s++)
                if (r->first_available[s].ncap_requests)
                    return true;
        }
    return false;
}

/* Selectors of (cls, body) on device d: *mt all true, *er the first non-true one failed. */
static int eval_row(dra_engine_t *e, const sig_t *s, const dra_device_t *d, bool *mt, bool *er)
{
    uint32_t nsel = s->cls->nselectors + s->body->nselectors;
    *mt = true;
    *er = false;
    if (nsel)
        for (uint32_t a = 0; a < d->nattrs; a++)
            if (d->attrs[a].kind == DRA_ATTR_NONE) { /* fails every selector */
                *mt = false;
                *er = true;
                return DRA_OK;
            }
    for (uint32_t i = 0; i < nsel && *mt; i++) {
        const char *src = i < s->cls->nselectors ? s->cls->selectors[i].cel
                                                 : s->body->selectors[i - s->cls->nselectors].cel;
        const dra_cel_prog_t *prog = NULL;
        dra_diag_t d2;
        dra_diag_clear(&d2);
        int rc = dra_cel_cache_get(e->cel, dra__nz(src), &prog, &d2);
        if (rc)
            return rc == DRA_ENOMEM ? rc : DRA_EINTERNAL; /* compiled when the signature was */
        bool m = false;
        dra_diag_clear(&d2);
        rc = dra_cel_eval_device(prog, e->m, d, &e->scratch, &m, &d2);
        dra_arena_reset(&e->scratch);
        e->upd_evals++;
        if (rc == DRA_ENOMEM)
            return rc;
        if (rc) {
            *er = true;
            *mt = false;
        } else if (!m) {
            *mt = false;
        }
    }
    return DRA_OK;
}

/* The plain signature with the selectors of s (the base an "excl" signature was derived from). */
static uint32_t plain_of(const dra_engine_t *e, const sig_t *s, uint32_t before)
{
    for (uint32_t j = 0; j < before; j++) {
        const sig_t *p = &e->sigs[j];
        if (p->cls == s->cls && p->attr == NONE && !p->all && p->excl == NONE && !p->capbody &&
            dra__same_selectors(p->body, s->body))
            return j;
    }
    return NONE;
}

/* Regroup node n's range for matchAttribute signature s (as sig_get_group groups). May move the
 * group offsets of later nodes when n has more groups than before. */
static int regroup(dra_engine_t *e, sig_t *s, uint32_t n)
{
    uint32_t tn = e->tnode[n];
    if (tn == NONE)
        return DRA_OK;
    uint32_t here = dra__group_node(e, s, tn);
    uint32_t had = s->gfirst[n + 1] - s->gfirst[n];
    if (here <= had)
        return DRA_OK; /* fewer groups: the node's extra slots stay empty */
    uint32_t grow = here - had, total = s->gfirst[e->nnodes];
    int32_t *g = dra_arena_alloc(&e->arena, ((size_t)total + grow + 1) * sizeof *g, 8);
    if (!g)
        return DRA_ENOMEM;
    uint32_t cut = s->gfirst[n + 1];
    memcpy(g, s->gcnt, (size_t)cut * sizeof *g);
    memset(g + cut, 0, (size_t)grow * sizeof *g);
    memcpy(g + cut + grow, s->gcnt + cut, ((size_t)total - cut) * sizeof *g);
    s->gcnt = g;
    for (uint32_t m = n + 1; m <= e->nnodes; m++)
        s->gfirst[m] += grow;
    return DRA_OK;
}

static bool counted(const dra_engine_t *e, const sig_t *s, uint32_t r)
{
    return dra_bit_get(s->match, r) && dra_bit_get(e->avb, r) &&
           (!s->capbody || dra_bit_get(s->cfit, r));
}

/* Node n's summary of s from its range. */
static void recount_node(dra_engine_t *e, sig_t *s, uint32_t n)
{
    const dra_table_t *t = e->t;
    uint32_t tn = e->tnode[n];
    bool had_err = s->herr[n];
    s->cnt[n] = 0;
    s->herr[n] = 0;
    if (s->all)
        s->blk[n] = 0;
    if (s->attr != NONE)
        for (uint32_t g = s->gfirst[n]; g < s->gfirst[n + 1]; g++)
            s->gcnt[g] = 0;
    for (uint32_t r = tn == NONE ? 0 : t->nodes[tn].begin; tn != NONE && r < t->nodes[tn].end;
         r++) {
        if (dra__row_node(e, r) != n)
            continue;
        bool mt = dra_bit_get(s->match, r);
        if (dra_bit_get(s->err, r))
            s->herr[n] = 1;
        if (mt && s->all && !s->noblk && dra_bit_get(e->bk, r))
            s->blk[n]++;
        if (!counted(e, s, r))
            continue;
        if (s->attr == NONE)
            s->cnt[n]++;
        else if (s->grp[r] != GRP_NONE)
            s->gcnt[s->gfirst[n] + s->grp[r]]++;
    }
    if (s->attr != NONE)
        for (uint32_t g = s->gfirst[n]; g < s->gfirst[n + 1]; g++)
            s->cnt[n] = s->gcnt[g] > s->cnt[n] ? s->gcnt[g] : s->cnt[n];
    if (s->herr[n])
        s->any_err = true;
    else if (had_err) {
        s->any_err = s->sherr;
        for (uint32_t m = 0; m < e->nnodes && !s->any_err; m++)
            s->any_err = s->herr[m];
    }
    dra__tree_set(e, s, n);
}

/* The shared-range facts of s. */
static void recount_shared(dra_engine_t *e, sig_t *s)
{
    const dra_table_t *t = e->t;
    s->shcnt = 0;
    s->sherr = false;
    s->shany = false;
    for (uint32_t r = t->shared_begin; r < t->nrows; r++) {
        bool mt = dra_bit_get(s->match, r), er = dra_bit_get(s->err, r);
        s->shany |= mt || er;
        s->sherr |= er;
        if (counted(e, s, r) &&
            (s->attr == NONE || dra_table_attr_code(&t->attrs[s->attr], r) != 0))
            s->shcnt++;
    }
    s->any_err = s->sherr;
    for (uint32_t m = 0; m < e->nnodes && !s->any_err; m++)
        s->any_err = s->herr[m];
}

/* Node n in (on) or out of plan p's sorted error nodes. */
static int errn_set(plan_t *p, uint32_t n, bool on)
{
    uint32_t i = 0;
    while (i < p->nerrn && p->errn[i] < n)
        i++;
    bool in = i < p->nerrn && p->errn[i] == n;
    if (in == on)
        return DRA_OK;
    if (!on) {
        memmove(p->errn + i, p->errn + i + 1, (p->nerrn - i - 1) * sizeof *p->errn);
        p->nerrn--;
        return DRA_OK;
    }
    uint32_t *v = dra_mem_realloc(p->errn, (p->nerrn + 1) * sizeof *v);
    if (!v)
        return DRA_ENOMEM;
    memmove(v + i + 1, v + i, (p->nerrn - i) * sizeof *v);
    v[i] = n;
    p->errn = v;
    p->nerrn++;
    return DRA_OK;
}

int dra_engine_update_slice(dra_engine_t *e, uint32_t slice, dra_diag_t *diag)
{
    if (!e || slice >= e->m->nslices || !e->t->slice_first)
        return dra_diag_set(diag, DRA_EINVAL, NULL, 0, 0, "engine update: invalid arguments");
    const dra_table_t *t = e->t;
    const dra_slice_t *sl = e->m->slices[slice];
    uint32_t r0 = t->slice_first[slice], r1 = r0 + sl->ndevices;
    if (r1 > t->nrows || (sl->ndevices && t->dev[r0] != &sl->devices[0]))
        return dra_diag_set(diag, DRA_EINVAL, NULL, 0, 0,
                            "engine update: slice %s is not where the device table has it",
                            dra__nz(sl->name));
    e->badattr_ok = false; /* the slice's devices may change their attributes (plan.c) */
    /* 1. what is not incremental */
    if (sl->changed & (DRA_SLICE_CHANGED_CONSUMES | DRA_SLICE_CHANGED_MULTI))
        return dra_diag_set(diag, DRA_EUNSUPPORTED, NULL, 0, 0,
                            "slice %s: counter consumption or allowMultipleAllocations changed "
                            "(not incremental: build a new engine)",
                            dra__nz(sl->name));
    if ((sl->changed & DRA_SLICE_CHANGED_CAPS) && e->cx_off)
        for (uint32_t r = r0; r < r1; r++)
            if (e->cx_off[r] != NONE)
                return dra_diag_set(diag, DRA_EUNSUPPORTED, NULL, 0, 0,
                                    "slice %s: capacities of a multi-allocatable device changed "
                                    "(not incremental: build a new engine)",
                                    dra__nz(sl->name));
    /* a negative capacity default makes the pool a hazard from 1.37 (hazard.c): set-up only */
    for (uint32_t r = r0; e->beh.cap_unrepr_fatal && (sl->changed & DRA_SLICE_CHANGED_CAPS) && r < r1;
         r++)
        for (uint32_t c = 0; c < t->dev[r]->ncaps; c++) {
            const dra_capacity_t *cap = &t->dev[r]->caps[c];
            if (cap->value.neg || (cap->policy && cap->policy->has_default && cap->policy->def.neg))
                return dra_diag_set(diag, DRA_EUNSUPPORTED, NULL, 0, 0,
                                    "slice %s: a negative capacity (not incremental: build a new "
                                    "engine)",
                                    dra__nz(sl->name));
        }
    if (!e->upd_init) {
        dra_arena_init(&e->upd_arena, 4096);
        e->upd_init = true;
    }
    bool shared = r0 >= t->shared_begin;
    uint32_t n = sl->ndevices && !shared ? dra__row_node(e, r0) : NONE;
    /* 2. All-set membership */
    dra_exact_request_t nocap;
    memset(&nocap, 0, sizeof nocap);
    for (uint32_t r = r0; r < r1; r++) {
        const dra_device_t *d = t->dev[r];
        dra_bit_assign(e->amem, r, d && !(!e->beh.binding && (t->flags[r] & DRA_ROW_BINDING)) &&
                                       !(e->beh.cc && d->ncaps > 0 &&
                                         (e->beh.bugs ||
                                          dra__cap_fits(&nocap, d, NULL, NULL, false) != 1)));
    }
    /* 3. signatures' bits */
    int rc = DRA_OK;
    for (uint32_t i = 0; i < e->nsigs && rc == DRA_OK; i++) {
        sig_t *s = &e->sigs[i];
        bool owner = true;
        for (uint32_t j = 0; j < i && owner; j++)
            owner = e->sigs[j].match != s->match;
        if (owner && s->excl == NONE) {
            for (uint32_t r = r0; r < r1 && rc == DRA_OK; r++) {
                bool mt, er;
                rc = eval_row(e, s, t->dev[r], &mt, &er);
                dra_bit_assign(s->match, r, mt);
                dra_bit_assign(s->err, r, er);
            }
        } else if (owner) {
            uint32_t b = plain_of(e, s, i);
            const sig_t *x = &e->sigs[s->excl];
            if (b == NONE)
                return dra_diag_set(diag, DRA_EINTERNAL, NULL, 0, 0,
                                    "engine update: signature %u has no plain base", i);
            const sig_t *base = &e->sigs[b];
            for (uint32_t r = r0; r < r1; r++) {
                bool mt = dra_bit_get(base->match, r);
                if (r < t->shared_begin && dra_bit_get(x->match, r) && dra_bit_get(e->amem, r) &&
                    !dra__row_multi(e, r))
                    mt = false;
                dra_bit_assign(s->match, r, mt);
                dra_bit_assign(s->err, r, dra_bit_get(base->err, r) || dra_bit_get(x->err, r));
            }
        }
        if (s->capbody) {
            for (uint32_t r = r0; r < r1; r++) {
                const dra__aq_t *cx = e->cx_off && e->cx_off[r] != NONE ? e->cx + e->cx_off[r]
                                                                        : NULL;
                dra_bit_assign(s->cfit, r,
                               dra_bit_get(s->match, r) &&
                                   dra__eng_cap_fits(e, s->capbody, t->dev[r], cx) == 1);
            }
            dra__cfit_sync(e, i, r0, r1);
        }
        s->maxset = -1;
        e->upd_rows += r1 - r0;
        if (i < 32)
            for (uint32_t r = r0; r < r1; r++) {
                if (dra_bit_get(s->match, r))
                    e->rs[r].sigs |= 1u << i;
                else
                    e->rs[r].sigs &= ~(1u << i);
            }
    }
    if (rc)
        return dra_diag_set(diag, rc, NULL, 0, 0, "engine update: %s", dra_strerror(rc));
    /* 4. blocked bits (kept from the first All signature on) */
    if (e->nall)
        for (uint32_t r = r0; r < r1; r++)
            dra_bit_assign(e->bk, r,
                           dra_bit_get(e->amem, r) && !dra__row_multi(e, r) &&
                               (e->rs[r].use > 0 || !dra__row_fits(e, r)));
    /* 5. summaries */
    for (uint32_t i = 0; i < e->nsigs; i++) {
        sig_t *s = &e->sigs[i];
        if (shared) {
            recount_shared(e, s);
            continue;
        }
        if (n == NONE)
            continue;
        if (s->attr != NONE && (rc = regroup(e, s, n)))
            return dra_diag_set(diag, rc, NULL, 0, 0, "engine update: %s", dra_strerror(rc));
        recount_node(e, s, n);
    }
    /* 6. plans */
    for (uint32_t pi = 0; pi < e->nplans; pi++) {
        plan_t *p = &e->plans[pi];
        bool redo = false;
        if (!p->indexed) {
            continue; /* brute force stays exact whatever the rows */
        } else if (p->anyall) {
            redo = true; /* the All set's bound (maxset) */
        } else if (e->beh.cc && (e->beh.cap_missing_fatal || e->beh.cap_unrepr_fatal) &&
                   plan_asks_capacity(p)) {
            redo = true; /* a device of the rows may now fail the capacity check (plan.c) */
        } else if (e->beh.cc && !e->beh.combos) {
            for (uint32_t a = 0; a < p->nalts && !redo; a++)
                for (uint32_t r = r0; r < r1 && !redo; r++)
                    redo = dra_bit_get(e->sigs[p->alts[a].sig].match, r) && dra__row_multi(e, r);
        }
        if (redo) {
            if ((rc = dra__plan_recompile(e, pi)))
                return dra_diag_set(diag, rc, NULL, 0, 0, "engine update: %s", dra_strerror(rc));
            continue;
        }
        bool hz = e->nhazard > 0, err_all = false, err_n = false;
        for (uint32_t a = 0; a < p->nalts; a++) {
            const sig_t *s = &e->sigs[p->alts[a].sig];
            hz |= s->any_err;
            err_all |= s->sherr;
            err_n |= n != NONE && s->herr[n];
        }
        p->hazard = hz;
        p->err_all = err_all;
        if (n != NONE && (rc = errn_set(p, n, err_n)))
            return dra_diag_set(diag, rc, NULL, 0, 0, "engine update: %s", dra_strerror(rc));
    }
    /* 7. direct answers, the allocator's caches. A shared slice (a signature's shared rows come
     * or go) or changed binding conditions (a row that made a plan never direct may be gone) can
     * give a plan a direct answer it did not have: those compile every plan's answer again
     * (O(rows) per alternative); otherwise the rows' eligibility is refreshed in place. */
    if (shared || (sl->changed & DRA_SLICE_CHANGED_BINDING)) {
        if (n != NONE && e->direct_on)
            dra__direct_update_rows(e, n, r0, r0); /* the node's facts only */
        for (uint32_t pi = 0; pi < e->nplans; pi++)
            if ((rc = dra__direct_compile(e, &e->plans[pi])))
                return dra_diag_set(diag, rc, NULL, 0, 0, "engine update: %s", dra_strerror(rc));
    } else if ((rc = dra__direct_refresh(e, n, r0, r1))) {
        return dra_diag_set(diag, rc, NULL, 0, 0, "engine update: %s", dra_strerror(rc));
    }
    if (e->alloc && e->alloc->kind == DRA_ALLOC_FAST && e->alloc->fast &&
        (rc = dra_fast_invalidate_slice(e->alloc->fast, slice, n != NONE ? e->m->nodes[n] : NULL)))
        return dra_diag_set(diag, rc, NULL, 0, 0, "engine update: %s", dra_strerror(rc));
    e->nupdates++;
    return DRA_OK;
}

/* ---- comparing engines (tests) ---------------------------------------------------------------- */

static uint64_t mix(uint64_t h, uint64_t v)
{
    h ^= v + 0x9e3779b97f4a7c15ULL + (h << 6) + (h >> 2);
    return h * 0xff51afd7ed558ccdULL;
}

uint64_t dra_engine_plans_digest(const dra_engine_t *e)
{
    const dra_table_t *t = e->t;
    uint64_t h = mix(0, e->nplans);
    for (uint32_t pi = 0; pi < e->nplans; pi++) {
        const plan_t *p = &e->plans[pi];
        h = mix(h, p->indexed);
        if (!p->indexed)
            continue;
        h = mix(mix(mix(h, p->hazard), p->err_all), p->nerrn);
        for (uint32_t i = 0; i < p->nerrn; i++)
            h = mix(h, p->errn[i]);
        h = mix(h, p->d.kind);
        for (uint32_t i = 0; p->d.kind && i < p->d.nalt; i++)
            for (uint32_t r = 0; r < t->nrows; r++)
                h = mix(h, dra_bit_get(p->d.alt[i].ok, r));
        for (uint32_t a = 0; a < p->nalts; a++) {
            const sig_t *s = &e->sigs[p->alts[a].sig];
            h = mix(mix(mix(mix(h, (uint64_t)p->alts[a].k), (uint64_t)s->shcnt), s->sherr),
                    s->shany);
            h = mix(h, s->any_err);
            for (uint32_t r = 0; r < t->nrows; r++)
                h = mix(h, (uint64_t)dra_bit_get(s->match, r) |
                               (uint64_t)dra_bit_get(s->err, r) << 1 |
                               (uint64_t)(s->cfit ? dra_bit_get(s->cfit, r) : 0) << 2);
            for (uint32_t n = 0; n < e->nnodes; n++)
                h = mix(mix(mix(mix(h, (uint64_t)s->cnt[n]), s->herr[n]),
                            s->all ? (uint64_t)s->blk[n] : 0),
                        (uint64_t)s->tree[e->P + n]);
        }
    }
    return h;
}
