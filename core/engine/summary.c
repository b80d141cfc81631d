/*
 * summary.c - per-row availability (free, counters fit, All-blocked) and each signature's
 * per-node summaries (counts, matchAttribute groups, capacity fit, blocked counts), kept exact
 * as rows change in commit and release (engine.h explains why each is a necessary condition),
 * and their recomputation for tests (dra_engine_check).
 *
 * Ownership: the per-row and per-node arrays (and the row records' use, failing entries and
 * signatures, e->rs) are the engine's. Errors: DRA_ENOMEM at set-up;
 * dra_engine_check returns false with the first difference in its message. Cost: a row's change
 * O(signatures matching it) plus, for a counter change, the entries between the counter's old
 * and new remainder (its cut moves over them) and the rows whose fit they flip; a share
 * O(capacities * capacity signatures); dra_engine_check O(rows * signatures), tests only.
 */
#include "engine/engine_impl.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- summaries ---------------------------------------------------------------------------- */

/* Certainly not allocatable by a request without adminAccess (and so, when in an All request's
 * set, that request fails): exclusively allocated, or a counter it consumes has too little left.
 * Never a multi-allocatable device (its counters are not checked while it has capacity in use,
 * and its shares are not exclusive allocations). */
bool dra__row_blocked(const dra_engine_t *e, uint32_t r)
{
    if (!dra_bit_get(e->amem, r) || dra__row_multi(e, r))
        return false;
    return e->rs[r].use > 0 || !dra__row_fits(e, r);
}

static int32_t group_max(const sig_t *s, uint32_t n)
{
    int32_t m = 0;
    for (uint32_t g = s->gfirst[n]; g < s->gfirst[n + 1]; g++)
        m = s->gcnt[g] > m ? s->gcnt[g] : m;
    return m;
}

static bool has_attr(const dra_engine_t *e, const sig_t *s, uint32_t r)
{
    return dra_table_attr_code(&e->t->attrs[s->attr], r) != 0;
}

void dra__sig_count(dra_engine_t *e, sig_t *s)
{
    memset(s->cnt, 0, (size_t)e->nnodes * sizeof *s->cnt);
    if (s->attr != NONE)
        memset(s->gcnt, 0, (size_t)s->gfirst[e->nnodes] * sizeof *s->gcnt);
    memset(s->herr, 0, e->nnodes);
    if (s->all)
        memset(s->blk, 0, (size_t)e->nnodes * sizeof *s->blk);
    s->shcnt = 0;
    s->sherr = false;
    s->shany = false;
    for (uint32_t r = 0; r < e->t->nrows; r++) {
        bool mt = dra_bit_get(s->match, r), er = dra_bit_get(s->err, r);
        if (!mt && !er)
            continue;
        uint32_t n = dra__row_node(e, r);
        bool shared = r >= e->t->shared_begin;
        s->shany |= shared;
        if (er) {
            if (shared)
                s->sherr = true;
            else if (n != NONE)
                s->herr[n] = 1;
        }
        if (mt && s->all && !s->noblk && !shared && n != NONE && dra_bit_get(e->bk, r))
            s->blk[n]++;
        if (mt && dra_bit_get(e->avb, r) && (!s->capbody || dra_bit_get(s->cfit, r))) {
            if (s->attr != NONE) {
                if (shared && has_attr(e, s, r))
                    s->shcnt++;
                else if (!shared && s->grp[r] != GRP_NONE)
                    s->gcnt[s->gfirst[n] + s->grp[r]]++;
            } else if (shared) {
                s->shcnt++;
            } else if (n != NONE) {
                s->cnt[n]++;
            }
        }
    }
    if (s->attr != NONE)
        for (uint32_t i = 0; i < e->nnodes; i++)
            s->cnt[i] = group_max(s, i);
    s->any_err = s->sherr;
    for (uint32_t n = 0; n < e->nnodes && !s->any_err; n++)
        s->any_err = s->herr[n];
}

/* sig_row_delta of a row of model node n (NONE only for a shared row, shared). Out of line: the
 * case dra__row_flip does not count in line. */
void dra__sig_row_delta_at(dra_engine_t *e, sig_t *s, uint32_t r, uint32_t n, bool shared,
                           int delta)
{
    if (s->attr != NONE) {
        if (shared) {
            if (has_attr(e, s, r))
                s->shcnt += delta;
        } else if (s->grp[r] != GRP_NONE) {
            /* cnt[n] is the largest group's count: a group that grows is compared with it, and
             * only a group that was the largest and shrinks makes the node's groups be read */
            int32_t *g = &s->gcnt[s->gfirst[n] + s->grp[r]], old = *g;
            *g += delta;
            int32_t m = delta > 0 ? (*g > s->cnt[n] ? *g : s->cnt[n])
                                  : (old < s->cnt[n] ? s->cnt[n] : group_max(s, n));
            if (m != s->cnt[n]) {
                s->cnt[n] = m;
                dra__tree_touch(e, s, n);
            }
        }
    } else if (shared) {
        s->shcnt += delta;
    } else {
        s->cnt[n] += delta;
        dra__tree_touch(e, s, n);
    }
}

/* Row r (matching s) starts (delta 1) or stops (-1) counting for s. */
static void sig_row_delta(dra_engine_t *e, sig_t *s, uint32_t r, int delta)
{
    bool shared = r >= e->t->shared_begin;
    uint32_t n = dra__rs_node(&e->rs[r]); /* dra__row_node, in the row's record */
    if (!shared && n == NONE)
        return;
    dra__sig_row_delta_at(e, s, r, n, shared, delta);
}

/* Whether the request of capacity signature s fits row r's capacity left by its shares: for a
 * row with shares' capacity, its profile's limits (what dra__cap_fits computes: every capacity's
 * consumption plus the shares' within the capacity, no request naming a missing capacity, no
 * policy violated), else the static check. */
bool dra__cap_fits_row(const dra_engine_t *e, const sig_t *s, uint32_t r)
{
    if (s->clim && e->cx_off[r] != NONE) {
        uint32_t p = e->cxp[r];
        if (!s->cok[p])
            return false;
        const dra__aq_t *x = e->cx + e->cx_off[r], *lim = s->clim + e->cxp_off[p];
        for (uint32_t c = 0, n = e->cxp_off[p + 1] - e->cxp_off[p]; c < n; c++)
            if (x[c] > lim[c])
                return false;
        return true;
    }
    const dra__aq_t *x = e->cx_off && e->cx_off[r] != NONE ? e->cx + e->cx_off[r] : NULL;
    return dra__eng_cap_fits(e, s->capbody, e->t->dev[r], x) == 1;
}

/* The k-th valueFrom name among device d's counter consumptions (NULL past the last): with
 * DRASharedConsumableCapacity a request may name a capacity through it that the device does not
 * publish (dra__scc_device_maps), so two devices whose capacities agree but whose valueFrom
 * names differ can differ in fit (an alloc fuzzer finding: two such devices in one profile left
 * a device's fit at its profile's). */
static const char *value_from_at(const dra_device_t *d, uint32_t k)
{
    for (uint32_t c = 0; c < d->nconsumes; c++)
        for (uint32_t i = 0; i < d->consumes[c].ncounters; i++)
            if (d->consumes[c].counters[i].value_from && k-- == 0)
                return d->consumes[c].counters[i].value_from;
    return NULL;
}

/* Two devices with the same capacities for a request: names, values and request policies, the
 * driver (1.38-pre matches a request's qualified capacity name against it) and the valueFrom
 * names of their counter consumptions, in order (value_from_at). */
static bool caps_same(const dra_device_t *a, const dra_device_t *b)
{
    for (uint32_t k = 0;; k++) {
        const char *x = value_from_at(a, k), *y = value_from_at(b, k);
        if (!x || !y) {
            if (x || y)
                return false;
            break;
        }
        if (strcmp(x, y))
            return false;
    }
    const char *da = a->slice ? a->slice->driver : NULL, *db = b->slice ? b->slice->driver : NULL;
    if (a->ncaps != b->ncaps || strcmp(dra__nz(da), dra__nz(db)))
        return false;
    for (uint32_t c = 0; c < a->ncaps; c++) {
        const dra_capacity_t *x = &a->caps[c], *y = &b->caps[c];
        if (x->policy != y->policy || x->value.lo != y->value.lo || x->value.hi != y->value.hi ||
            x->value.exp != y->value.exp || x->value.neg != y->value.neg ||
            x->value.format != y->value.format || strcmp(dra__nz(x->name), dra__nz(y->name)))
            return false;
    }
    return true;
}

static uint64_t caps_hash(const dra_device_t *d)
{
    uint64_t h = 0x9e3779b97f4a7c15ULL * (d->ncaps + 1);
    for (uint32_t c = 0; c < d->ncaps; c++) {
        const dra_capacity_t *x = &d->caps[c];
        h = (h ^ dra_hash64(dra__nz(x->name), strlen(dra__nz(x->name)))) * 0xff51afd7ed558ccdULL;
        h = (h ^ x->value.lo ^ ((uint64_t)x->value.hi << 17) ^ (uint64_t)(uintptr_t)x->policy) *
            0xff51afd7ed558ccdULL;
    }
    const char *v;
    for (uint32_t k = 0; (v = value_from_at(d, k)) != NULL; k++)
        h = (h ^ dra_hash64(v, strlen(v))) * 0xff51afd7ed558ccdULL;
    return h;
}

int dra__cap_profiles(dra_engine_t *e)
{
    const dra_table_t *t = e->t;
    uint32_t n = 0;
    for (uint32_t r = 0; r < t->nrows; r++)
        n += e->cx_off[r] != NONE;
    uint32_t hcap = 16;
    while (hcap < 2 * (uint64_t)n + 2)
        hcap *= 2;
    uint32_t *h = dra_mem_calloc(hcap, sizeof *h); /* profile + 1 */
    e->cxp = dra_mem_malloc(((size_t)t->nrows + 1) * sizeof *e->cxp);
    e->cxp_row = dra_mem_malloc(((size_t)n + 1) * sizeof *e->cxp_row);
    e->cxp_off = dra_mem_malloc(((size_t)n + 2) * sizeof *e->cxp_off);
    e->cxn = dra_mem_calloc(1, 1); /* sized below */
    if (!h || !e->cxp || !e->cxp_row || !e->cxp_off || !e->cxn) {
        dra_mem_free(h);
        return DRA_ENOMEM;
    }
    uint32_t off = 0, ncx = 0;
    for (uint32_t r = 0; r < t->nrows; r++) {
        e->cxp[r] = NONE;
        if (e->cx_off[r] == NONE)
            continue;
        const dra_device_t *d = t->dev[r];
        ncx = e->cx_off[r] + d->ncaps;
        uint32_t i = (uint32_t)(caps_hash(d) >> 32) & (hcap - 1), p = NONE;
        for (; h[i]; i = (i + 1) & (hcap - 1))
            if (caps_same(t->dev[e->cxp_row[h[i] - 1]], d)) {
                p = h[i] - 1;
                break;
            }
        if (p == NONE) {
            p = e->ncxp++;
            h[i] = p + 1;
            e->cxp_row[p] = r;
            e->cxp_off[p] = off;
            off += d->ncaps;
        }
        e->cxp[r] = p;
    }
    e->cxp_off[e->ncxp] = off;
    dra_mem_free(h);
    dra_mem_free(e->cxn);
    e->cxn = dra_mem_calloc((size_t)ncx + 1, sizeof *e->cxn);
    if (!e->cxn)
        return DRA_ENOMEM;
    /* the state's contributions behind each aggregate (read once at set-up) */
    for (uint32_t r = 0; r < t->nrows; r++)
        if (e->cx_off[r] != NONE)
            for (uint32_t c = 0; c < t->dev[r]->ncaps; c++)
                e->cxn[e->cx_off[r] + c] = dra__alloc_state_cap_n(
                    e->state, dra__row_driver(e, r), dra__row_pool(e, r), dra__row_device(e, r),
                    t->dev[r]->caps[c].name);
    return DRA_OK;
}

int dra__cap_limits(dra_engine_t *e, sig_t *s)
{
    s->cok = NULL;
    s->clim = NULL;
    if (!e->ncxp)
        return DRA_OK;
    s->cok = dra_arena_alloc(&e->arena, e->ncxp, 8);
    s->clim = dra_arena_alloc(&e->arena, ((size_t)e->cxp_off[e->ncxp] + 1) * sizeof *s->clim, 16);
    if (!s->cok || !s->clim)
        return DRA_ENOMEM;
    for (uint32_t p = 0; p < e->ncxp; p++) {
        const dra_device_t *d = e->t->dev[e->cxp_row[p]];
        dra__aq_t *lim = s->clim + e->cxp_off[p];
        /* in the profile's arithmetic (dra__capmode: 1.37's milli ranges, 1.38-pre's qualified
         * names): not 1 is a request naming a capacity the device lacks, a request the
         * arithmetic cannot represent, a policy violated or more than the capacity alone (no
         * shares can make any of them fit); else each capacity's consumption is representable */
        s->cok[p] = dra__eng_cap_fits(e, s->capbody, d, NULL) == 1;
        dra__capmode_t m = dra__capmode(&e->beh);
        char err[8];
        for (uint32_t c = 0; c < d->ncaps; c++) {
            const dra_capacity_t *cap = &d->caps[c];
            dra__aq_t q = 0;
            if (s->cok[p])
                (void)dra__cap_consumed_m(
                    &m, dra__cap_request_for(s->capbody, d, cap->name, m.qualified), cap, &q, err,
                    sizeof err);
            lim[c] = dra__aq_from(&cap->value) - q;
        }
    }
    return DRA_OK;
}

/* Capacity signature s (matching row r) now fits or not (its cfit bit was `was`): the bit and,
 * for an available row, the node's count in s. */
static inline void cap_sig_set(dra_engine_t *e, sig_t *s, uint32_t r, bool was, bool now)
{
    if (now == was)
        return;
    if (now)
        dra_bit_set(s->cfit, r);
    else
        dra_bit_clear(s->cfit, r);
    if (dra_bit_get(e->avb, r))
        sig_row_delta(e, s, r, now ? 1 : -1);
}

void dra__cfit_sync(dra_engine_t *e, uint32_t i, uint32_t r0, uint32_t r1)
{
    if (i >= 32)
        return;
    const uint64_t *cf = e->sigs[i].cfit;
    e->capsig_m |= 1u << i;
    for (uint32_t r = r0; r < r1; r++)
        e->rowcfit[r] = (e->rowcfit[r] & ~(1u << i)) | (uint32_t)dra_bit_get(cf, r) << i;
}

/* Whether the request of capacity signature s fits aggregates x of row r (profile p, limits at
 * lo, nc capacities): its profile's flag and one compare per capacity (dra__cap_fits_row's, in
 * line; no early exit: a profile has few capacities). */
static inline bool cap_fits_x(const dra_engine_t *e, const sig_t *s, uint32_t r, uint32_t p,
                              uint32_t lo, uint32_t nc, const dra__aq_t *x)
{
    if (!s->clim)
        return dra__cap_fits_row(e, s, r);
    const dra__aq_t *lim = s->clim + lo;
    bool now = s->cok[p];
    if (nc == 2) /* the common profile (memory and compute): no loop */
        return now & (x[0] <= lim[0]) & (x[1] <= lim[1]);
    for (uint32_t c = 0; c < nc; c++)
        now &= x[c] <= lim[c];
    return now;
}

/* Re-check the capacity signatures row r (a row with shares' capacity, cx) matches after its
 * shares' capacity changed. dir > 0: no aggregate of the row fell (a commit of non-negative
 * quantities), so a signature that did not fit still does not (a fit only compares consumption
 * plus the aggregates with each capacity's value: dra__cap_fits_row, dra__cap_fits_m) and is not
 * re-checked; dir < 0: none rose, a fitting signature still fits; 0: both moved, every signature
 * is re-checked. The first 32 signatures through the row's fit word (rowcfit) and the capacity
 * signatures' mask: the ones to re-check are a mask (the fitting ones, the others or all), so a
 * signature that cannot change is not visited and no signature's fit bit is read; the bits and
 * counts of the ones whose fit flipped are written after, in index order. The others by their
 * match bits. */
static void refresh_cap(dra_engine_t *e, uint32_t r, int dir)
{
    uint32_t p = e->cxp[r], lo = e->cxp_off[p], nc = e->cxp_off[p + 1] - lo;
    const dra__aq_t *x = e->cx + e->cx_off[r];
    uint32_t was = e->rowcfit[r], all = e->rs[r].sigs & e->capsig_m;
    uint32_t todo = dir > 0 ? was : dir < 0 ? all & ~was : all, now = 0;
    for (uint32_t m = todo; m; m &= m - 1) {
        uint32_t i = (uint32_t)__builtin_ctz(m);
        now |= (uint32_t)cap_fits_x(e, &e->sigs[i], r, p, lo, nc, x) << i;
    }
    uint32_t flip = (now ^ was) & todo;
    if (flip) {
        e->rowcfit[r] = was ^ flip;
        for (uint32_t m = flip; m; m &= m - 1) {
            uint32_t i = (uint32_t)__builtin_ctz(m);
            bool f = (now >> i) & 1;
            cap_sig_set(e, &e->sigs[i], r, !f, f);
        }
    }
    for (uint32_t i = 32; i < e->nsigs; i++) {
        sig_t *s = &e->sigs[i];
        if (!s->capbody || !dra_bit_get(s->match, r))
            continue;
        bool w = dra_bit_get(s->cfit, r);
        if (!dir || w == (dir > 0))
            cap_sig_set(e, s, r, w, cap_fits_x(e, s, r, p, lo, nc, x));
    }
}

/* Consumed capacity j of a share names device capacity c: by pointer (a direct answer's result
 * names the device's own string, at c == j when it lists every capacity in the device's order),
 * else by text; q (the interned qualified name of the capacity the pointer named, 0 when none)
 * rules out a capacity with another qualified name without comparing texts (one text has one
 * qualified name on one device). */
static inline bool cap_named(const dra_capacity_t *cap, const char *nm, uint32_t q)
{
    if (cap->name == nm)
        return true;
    if (q && cap->qname && cap->qname != q)
        return false;
    return !strcmp(dra__nz(cap->name), dra__nz(nm));
}

void dra__cap_share(dra_engine_t *e, uint32_t r, const dra_result_t *res, int delta,
                    uint8_t *cidx, uint32_t ncidx)
{
    /* the capacities' names from the row's profile's first device: the same list as the
     * row's (caps_same; an update that changes a row's capacities is refused, update.c), and
     * a line every share of the profile reads, where the row's own device is a cold one */
    uint32_t pf = e->cxp ? e->cxp[r] : NONE;
    const dra_device_t *d = e->t->dev[pf != NONE ? e->cxp_row[pf] : r];
    DRA_ASSERT_INTERNAL(d->ncaps == e->t->dev[r]->ncaps);
    dra__aq_t *x = e->cx + e->cx_off[r];
    uint32_t *n = e->cxn + e->cx_off[r];
    bool rose = false, fell = false;
    for (uint32_t j = 0; j < res->nconsumed; j++) {
        const char *nm = res->consumed[j].name;
        uint32_t q = j < d->ncaps && nm && d->caps[j].name == nm ? d->caps[j].qname : 0;
        dra__aq_t v = dra__aq_from(&res->consumed[j].value);
        uint32_t hit = 0xff, nhit = 0; /* the capacities entry j names: the last, how many */
        for (uint32_t c = 0; c < d->ncaps; c++) {
            if (!cap_named(&d->caps[c], nm, q))
                continue;
            hit = c;
            nhit++;
            /* as the state: a release takes back from an aggregate with contributions only,
             * and the last one takes the aggregate away */
            dra__aq_t old = x[c];
            if (delta > 0) {
                n[c]++;
                x[c] += v;
            } else if (n[c] > 0) {
                x[c] = --n[c] ? x[c] - v : 0;
            } else {
                continue;
            }
            rose |= x[c] > old;
            fell |= x[c] < old;
        }
        if (j < ncidx) /* the one capacity entry j names (0xff: none; 0xfe: several) */
            cidx[j] = (uint8_t)(!nhit ? 0xff : nhit > 1 || hit >= 0xfe ? 0xfe : hit);
    }
    if ((rose || fell) && e->ncapsigs)
        refresh_cap(e, r, rose && fell ? 0 : rose ? 1 : -1);
}

void dra__cap_unshare(dra_engine_t *e, uint32_t r, const uint8_t *cidx, const dra__aq_t *amt,
                      uint32_t ncap)
{
    dra__aq_t *x = e->cx + e->cx_off[r];
    uint32_t *n = e->cxn + e->cx_off[r];
    bool rose = false, fell = false;
    for (uint32_t j = 0; j < ncap; j++) {
        uint32_t c = cidx[j];
        if (c == 0xff || n[c] == 0) /* as dra__cap_share's release */
            continue;
        dra__aq_t old = x[c];
        x[c] = --n[c] ? x[c] - amt[j] : 0;
        rose |= x[c] > old;
        fell |= x[c] < old;
    }
    if ((rose || fell) && e->ncapsigs)
        refresh_cap(e, r, rose && fell ? 0 : rose ? 1 : -1);
}

/* Row r changed between blocked and not: adjust the All signatures it matches. */
void dra__row_flip_blocked(dra_engine_t *e, uint32_t r, int delta)
{
    uint32_t n = dra__rs_node(&e->rs[r]); /* dra__row_node */
    if (r >= e->t->shared_begin || n == NONE)
        return;
    for (uint32_t i = 0; i < e->nsigs; i++) {
        sig_t *s = &e->sigs[i];
        if (!s->all || s->noblk || !dra_bit_get(s->match, r))
            continue;
        bool was = s->blk[n] > 0;
        s->blk[n] += delta;
        if (was != (s->blk[n] > 0))
            dra__tree_touch(e, s, n);
    }
}

/* Rows rows[0, n) re-read (availability, All-blocked) and, where that changed, their
 * signatures' counts moved: one call for a charge's flipped rows, not one a row. While
 * dra__refresh_lean applies (its conditions: dra__lean_on), a row at a time through it, with
 * the engine's columns read once for the loop. */
static void refresh_rows(dra_engine_t *e, const uint32_t *rows, uint32_t n)
{
    if (!dra__lean_on(e)) {
        for (uint32_t i = 0; i < n; i++)
            dra__refresh_one(e, rows[i]);
        return;
    }
    const dra__rowst_t *rs = e->rs;
    uint64_t *avb = e->avb;
    const uint8_t *flags = e->t->flags;
    const bool cc = e->beh.cc;
    for (uint32_t i = 0; i < n; i++)
        dra__refresh_lean(e, rows[i], &rs[rows[i]], avb, flags, cc);
}

static void refresh_row(dra_engine_t *e, uint32_t r)
{
    refresh_rows(e, &r, 1);
}

/* Row r went in or out of use: the compatibility-group state of its grouped counter sets
 * (counters.c) and the members whose refusal that changes. O(members of those sets). */
static void groups_moved(dra_engine_t *e, uint32_t r)
{
    for (uint32_t i = e->rcg_off[r]; i < e->rcg_off[r + 1]; i++) {
        uint32_t s = e->rec_set[i];
        if (!dra__cg_set_refresh(e, i))
            continue;
        for (uint32_t j = e->cgm_off[s]; j < e->cgm_off[s + 1]; j++) {
            uint32_t q = e->rec_row[e->cgm[j]];
            if (dra__cg_row_refresh(e, q))
                refresh_row(e, q);
        }
    }
}

/* dra__apply_row_in of a row that went in or out of use and consumes counters, or with
 * compatibility groups on: the charge, then the rows it flipped and r re-read. */
DRA_NOINLINE void dra__apply_row_charged(dra_engine_t *e, uint32_t r)
{
    /* a row that consumes no counter (rc_pat NONE, or nfail_on not set: its record's bit,
     * dra__rs_ctr) is charged nothing: dra__counters_charge would return 0 at its first test,
     * and the call is left out (most rows: every device that is not partitionable) */
    uint32_t nf = dra__rs_ctr(&e->rs[r]) ? dra__counters_charge(e, r, e->rs[r].use ? 1 : -1) : 0;
    if (e->cg_on) { /* the groups follow the flipped rows, and r follows the groups */
        refresh_rows(e, e->cflip, nf);
        groups_moved(e, r);
        dra__refresh_one(e, r);
        return;
    }
    if (!nf) {
        dra__refresh_one(e, r);
        return;
    }
    /* r after them in the same loop (cflip has a slot beyond a charge's most rows) */
    e->cflip[nf] = r;
    refresh_rows(e, e->cflip, nf + 1);
}

void dra__apply_row(dra_engine_t *e, uint32_t r, int delta)
{
    dra__apply_row_in(e, r, delta);
}

/* ---- checking the summaries (tests) ------------------------------------------------------- */

/* Row r counts for s, recomputed from the state (availability, and the capacity its shares left
 * as the state aggregates it). */
static bool counts_fresh(const dra_engine_t *e, const sig_t *s, uint32_t r)
{
    if (!dra_bit_get(s->match, r) || !dra__row_avail(e, r))
        return false;
    if (!s->capbody)
        return true;
    const dra_device_t *d = e->t->dev[r];
    dra__aq_t x[64];
    bool multi = dra__row_multi(e, r) && d->ncaps <= 64;
    for (uint32_t c = 0; multi && c < d->ncaps; c++)
        if (!dra__alloc_state_cap_aq(e->state, dra__row_driver(e, r), dra__row_pool(e, r),
                                     dra__row_device(e, r), d->caps[c].name, &x[c]))
            x[c] = 0;
    return dra__eng_cap_fits(e, s->capbody, d, multi ? x : NULL) == 1;
}

/* dra_engine_check for a capacity signature: its fit bits and counts recomputed from the state
 * (the largest group of one value for a matchAttribute variant), and its tree. */
/* Signature i's tree whole (dra__max_stale), else false with why. */
static bool check_sig_tree(const dra_engine_t *e, uint32_t i, char *why, size_t len)
{
    const int32_t *t = e->sigs[i].tree;
    uint32_t k = dra__max_stale(t, e->P);
    if (k == 0)
        snprintf(why, len, "signature %u: tree slot 0 is %d, not the rise's stop", i, t[0]);
    else if (k < e->P)
        snprintf(why, len, "signature %u: segment tree node %u stale", i, k);
    return k == e->P;
}

static bool check_cap_sig(const dra_engine_t *e, uint32_t i, char *why, size_t len)
{
    const sig_t *s = &e->sigs[i];
    for (uint32_t r = 0; r < e->t->nrows; r++)
        if (dra_bit_get(s->match, r) && dra_bit_get(e->avb, r) &&
            dra_bit_get(s->cfit, r) != counts_fresh(e, s, r)) {
            snprintf(why, len, "signature %u row %u: capacity fit stale", i, r);
            return false;
        }
    int32_t sh = 0;
    for (uint32_t r = e->t->shared_begin; r < e->t->nrows; r++)
        sh += counts_fresh(e, s, r) && (s->attr == NONE || has_attr(e, s, r));
    if (sh != s->shcnt) {
        snprintf(why, len, "signature %u: %d fitting shared, summary %d", i, sh, s->shcnt);
        return false;
    }
    for (uint32_t n = 0; n < e->nnodes; n++) {
        uint32_t tn = e->tnode[n];
        int32_t c = 0;
        for (uint32_t r = tn == NONE ? 0 : e->t->nodes[tn].begin;
             tn != NONE && r < e->t->nodes[tn].end; r++) {
            if (!counts_fresh(e, s, r) || (s->attr != NONE && s->grp[r] == GRP_NONE))
                continue;
            if (s->attr == NONE) {
                c++;
                continue;
            }
            int32_t g = 0;
            for (uint32_t q = e->t->nodes[tn].begin; q < e->t->nodes[tn].end; q++)
                g += s->grp[q] == s->grp[r] && counts_fresh(e, s, q);
            c = g > c ? g : c;
        }
        if (c != s->cnt[n] || s->tree[e->P + n] != dra__leaf_value(e, s, n)) {
            snprintf(why, len, "signature %u node %u: %d fitting, summary %d", i, n, c, s->cnt[n]);
            return false;
        }
    }
    return check_sig_tree(e, i, why, len);
}

bool dra_engine_check(const dra_engine_t *e, char *why, size_t len)
{
    for (uint32_t r = 0; r < e->t->nrows; r++) {
        uint32_t m = 0;
        for (uint32_t i = 0; i < e->nsigs && i < 32; i++)
            m |= (uint32_t)dra_bit_get(e->sigs[i].match, r) << i;
        if (m != e->rs[r].sigs) {
            snprintf(why, len, "row %u: signature mask %#x, match bits %#x", r, e->rs[r].sigs, m);
            return false;
        }
        uint32_t f = 0, cs = 0;
        for (uint32_t i = 0; i < e->nsigs && i < 32; i++)
            if (e->sigs[i].capbody) {
                cs |= 1u << i;
                f |= (uint32_t)dra_bit_get(e->sigs[i].cfit, r) << i;
            }
        if (cs != e->capsig_m || f != e->rowcfit[r]) {
            snprintf(why, len, "row %u: capacity fit word %#x (signatures %#x), fit bits %#x (%#x)",
                     r, e->rowcfit[r], e->capsig_m, f, cs);
            return false;
        }
    }
    uint32_t am = 0; /* the matchAttribute signatures' mask the release look-ahead walks */
    for (uint32_t i = 0; i < e->nsigs && i < 32; i++)
        am |= (uint32_t)(e->sigs[i].attr != NONE) << i;
    if (am != e->attrsigs) {
        snprintf(why, len, "matchAttribute signature mask %#x, signatures say %#x", e->attrsigs, am);
        return false;
    }
    /* the flags that say a leaf need not read the node's hazard and error lines
     * (dra__leaf_value), and the one that says a row's model node is its table node */
    uint32_t nh = 0;
    for (uint32_t n = 0; n < e->nnodes; n++)
        nh += e->hz[n] != 0;
    if (nh != e->nhazard) {
        snprintf(why, len, "%u hazard nodes, the engine counts %u", nh, e->nhazard);
        return false;
    }
    for (uint32_t i = 0; i < e->nsigs; i++) {
        const sig_t *s = &e->sigs[i];
        bool any = s->sherr;
        for (uint32_t n = 0; n < e->nnodes && !any; n++)
            any = s->herr[n];
        if (any != s->any_err) {
            snprintf(why, len, "signature %u: error rows %s, its flag says %s", i,
                     any ? "present" : "absent", s->any_err ? "present" : "absent");
            return false;
        }
    }
    bool id = true;
    for (uint32_t i = 0; i < e->t->nnodes && id; i++)
        id = e->mnode[i] == i;
    if (id != e->mnode_id) {
        snprintf(why, len, "table nodes %s the model's, the engine says %s", id ? "are" : "are not",
                 e->mnode_id ? "they are" : "not");
        return false;
    }
    if (!dra__cg_check(e, why, len))
        return false;
    if (!dra__counters_check(e, why, len))
        return false;
    for (uint32_t r = 0; r < e->t->nrows; r++) {
        /* use counts the results committed on the row: exclusive allocations and, with
         * DRAConsumableCapacity, the shares of a multi-allocatable device */
        uint32_t x = dra_alloc_state_exclusive(e->state, dra__row_driver(e, r), dra__row_pool(e, r),
                                               dra__row_device(e, r));
        if (dra__row_multi(e, r))
            x += dra_alloc_state_shares(e->state, dra__row_driver(e, r), dra__row_pool(e, r),
                                        dra__row_device(e, r));
        if (x != e->rs[r].use) {
            snprintf(why, len, "row %u (%s/%s/%s): %u allocations and shares, engine has %u", r,
                     dra__row_driver(e, r), dra__row_pool(e, r), dra__row_device(e, r), x,
                     e->rs[r].use);
            return false;
        }
        if (e->rs[r].nfail != (e->nfail_on ? dra__row_nfail(e, r) : 0)) {
            snprintf(why, len, "row %u: %u counter entries do not fit, engine has %u", r,
                     e->nfail_on ? dra__row_nfail(e, r) : 0, e->rs[r].nfail);
            return false;
        }
        if (dra__rs_node(&e->rs[r]) != dra__row_node(e, r)) { /* the record's copy (row_flip) */
            snprintf(why, len, "row %u: model node %u, its record says %u", r, dra__row_node(e, r),
                     dra__rs_node(&e->rs[r]));
            return false;
        }
        /* the record's copy of whether the row consumes counters (dra__rs_ctr: a commit, a
         * release and the look-ahead read it instead of rc_pat) */
        bool ctr = e->nfail_on && e->rc_pat && e->rc_pat[r] != NONE;
        if (dra__rs_ctr(&e->rs[r]) != ctr) {
            snprintf(why, len, "row %u: %s counters, its record says it does%s", r,
                     ctr ? "consumes" : "consumes no", ctr ? " not" : "");
            return false;
        }
        if (dra_bit_get(e->avb, r) != dra__row_avail(e, r)) {
            snprintf(why, len, "row %u: availability bit stale", r);
            return false;
        }
        if (e->nall && dra_bit_get(e->bk, r) != dra__row_blocked(e, r)) {
            snprintf(why, len, "row %u: blocked flag stale", r);
            return false;
        }
    }
    for (uint32_t r = 0; e->cx_off && r < e->t->nrows; r++) {
        const dra_device_t *d = e->t->dev[r];
        for (uint32_t c = 0; e->cx_off[r] != NONE && c < d->ncaps; c++) {
            dra__aq_t q = 0;
            uint32_t n = dra__alloc_state_cap_n(e->state, dra__row_driver(e, r), dra__row_pool(e, r),
                                                dra__row_device(e, r), d->caps[c].name);
            if (!dra__alloc_state_cap_aq(e->state, dra__row_driver(e, r), dra__row_pool(e, r),
                                         dra__row_device(e, r), d->caps[c].name, &q))
                q = 0;
            if (q != e->cx[e->cx_off[r] + c] || n != e->cxn[e->cx_off[r] + c]) {
                snprintf(why, len, "row %u capacity %u: shares' consumption stale", r, c);
                return false;
            }
        }
    }
    for (uint32_t i = 0; i < e->nsigs; i++) {
        const sig_t *s = &e->sigs[i];
        if (s->capbody) {
            if (!check_cap_sig(e, i, why, len))
                return false;
            continue;
        }
        int32_t sh = 0;
        for (uint32_t n = 0; n < e->nnodes; n++) {
            int32_t c = 0;
            uint32_t tn = e->tnode[n];
            if (tn != NONE && s->attr == NONE) {
                for (uint32_t r = e->t->nodes[tn].begin; r < e->t->nodes[tn].end; r++)
                    c += dra_bit_get(s->match, r) && dra__row_avail(e, r);
            } else if (tn != NONE) {
                /* largest group of one value, by brute force over pairs of rows */
                const dra_table_attr_t *a = &e->t->attrs[s->attr];
                for (uint32_t r = e->t->nodes[tn].begin; r < e->t->nodes[tn].end; r++) {
                    if (s->grp[r] == GRP_NONE || !dra_bit_get(s->match, r) || !dra__row_avail(e, r))
                        continue;
                    int32_t g = 0;
                    for (uint32_t q = e->t->nodes[tn].begin; q < e->t->nodes[tn].end; q++)
                        g += s->grp[q] == s->grp[r] && dra_bit_get(s->match, q) &&
                             dra__row_avail(e, q) && dra_table_attr_code(a, q) != 0;
                    c = g > c ? g : c;
                }
            }
            if (s->all) {
                int32_t b = 0;
                for (uint32_t r = tn == NONE ? 0 : e->t->nodes[tn].begin;
                     tn != NONE && r < e->t->nodes[tn].end; r++)
                    b += !s->noblk && dra_bit_get(s->match, r) && dra__row_blocked(e, r);
                if (b != s->blk[n]) {
                    snprintf(why, len, "signature %u node %u: %d blocked All members, summary %d",
                             i, n, b, s->blk[n]);
                    return false;
                }
            }
            if (c != s->cnt[n] || s->tree[e->P + n] != dra__leaf_value(e, s, n)) {
                snprintf(why, len, "signature %u node %u: %d free matching, summary %d", i, n, c,
                         s->cnt[n]);
                return false;
            }
        }
        for (uint32_t r = e->t->shared_begin; r < e->t->nrows; r++)
            sh += dra_bit_get(s->match, r) && dra__row_avail(e, r) &&
                  (s->attr == NONE || has_attr(e, s, r));
        if (sh != s->shcnt) {
            snprintf(why, len, "signature %u: %d free matching shared, summary %d", i, sh,
                     s->shcnt);
            return false;
        }
        if (!check_sig_tree(e, i, why, len))
            return false;
    }
    if (!dra__stree_check(e, why, len))
        return false;
    for (uint32_t n = 0; e->buckets_live && n < e->nnodes; n++) {
        const uint64_t *w = e->bbits + (size_t)dra__bucket_of(e, e->score[n]) * e->W;
        if (!((w[n >> 6] >> (n & 63)) & 1)) {
            snprintf(why, len, "node %u not in the bucket of score %u", n, e->score[n]);
            return false;
        }
    }
    return true;
}
