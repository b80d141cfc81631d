/*
 * summary.c - per-row availability (free, counters fit, All-blocked) and each signature's
 * per-node summaries (counts, matchAttribute groups, capacity fit, blocked counts), kept exact
 * as rows change in commit and release (engine.h explains why each is a necessary condition),
 * and their recomputation for tests (dra_engine_check).
 */
#include "engine/engine_impl.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- summaries ---------------------------------------------------------------------------- */

static bool row_free(const dra_engine_t *e, uint32_t r)
{
    return e->use[r] == 0 || (e->t->flags[r] & DRA_ROW_MULTI_ALLOC);
}

/* Every counter the device consumes has that much left (a device whose consumption does not fit
 * the remaining counters cannot be allocated; consumption is counted for exclusively allocated
 * devices only, so the remaining counters are never underestimated). */
bool dra__row_fits(const dra_engine_t *e, uint32_t r)
{
    for (uint32_t i = dra__ent_b(e, r), end = dra__ent_e(e, r); i < end; i++)
        if (dra__ent_amt(e, i) > e->crem[dra__ent_ctr(e, r, i)])
            return false;
    return true;
}

bool dra__row_multi(const dra_engine_t *e, uint32_t r)
{
    return e->beh.cc && (e->t->flags[r] & DRA_ROW_MULTI_ALLOC);
}

/* A multi-allocatable device skips the counter check while it has capacity in use (DRA-SEMANTICS
 * 2.6 step 4): it stays available whatever its counters say. */
bool dra__row_avail(const dra_engine_t *e, uint32_t r)
{
    return row_free(e, r) && (dra__row_multi(e, r) || dra__row_fits(e, r));
}

/* Certainly not allocatable by a request without adminAccess (and so, when in an All request's
 * set, that request fails): exclusively allocated, or a counter it consumes has too little left.
 * Never a multi-allocatable device (its counters are not checked while it has capacity in use,
 * and its shares are not exclusive allocations). */
bool dra__row_blocked(const dra_engine_t *e, uint32_t r)
{
    if (!dra_bit_get(e->amem, r) || dra__row_multi(e, r))
        return false;
    return e->use[r] > 0 || !dra__row_fits(e, r);
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

/* Row r (matching s) starts (delta 1) or stops (-1) counting for s. */
static void sig_row_delta(dra_engine_t *e, sig_t *s, uint32_t r, int delta)
{
    bool shared = r >= e->t->shared_begin;
    uint32_t n = dra__row_node(e, r);
    if (!shared && n == NONE)
        return;
    if (s->attr != NONE) {
        if (shared) {
            if (has_attr(e, s, r))
                s->shcnt += delta;
        } else if (s->grp[r] != GRP_NONE) {
            s->gcnt[s->gfirst[n] + s->grp[r]] += delta;
            int32_t m = group_max(s, n);
            if (m != s->cnt[n]) {
                s->cnt[n] = m;
                dra__tree_set(e, s, n);
            }
        }
    } else if (shared) {
        s->shcnt += delta;
    } else {
        s->cnt[n] += delta;
        dra__tree_set(e, s, n);
    }
}

/* Row r changed between free and not free: adjust every signature it matches. */
static void row_flip(dra_engine_t *e, uint32_t r, int delta)
{
    if (r < e->t->shared_begin && dra__row_node(e, r) == NONE)
        return;
    /* the first 32 signatures through the row's mask (one cache line instead of one per
     * signature), the others by their match bits */
    for (uint32_t m = e->rowsigs[r]; m; m &= m - 1) {
        sig_t *s = &e->sigs[__builtin_ctz(m)];
        if (!s->capbody || dra_bit_get(s->cfit, r))
            sig_row_delta(e, s, r, delta);
    }
    for (uint32_t i = 32; i < e->nsigs; i++) {
        sig_t *s = &e->sigs[i];
        if (dra_bit_get(s->match, r) && (!s->capbody || dra_bit_get(s->cfit, r)))
            sig_row_delta(e, s, r, delta);
    }
}

/* Whether the request of capacity signature s fits row r's capacity left by its shares. */
bool dra__cap_fits_row(const dra_engine_t *e, const sig_t *s, uint32_t r)
{
    const dra__aq_t *x = e->cx_off && e->cx_off[r] != NONE ? e->cx + e->cx_off[r] : NULL;
    return dra__eng_cap_fits(e, s->capbody, e->t->dev[r], x) == 1;
}

/* Re-read the capacity a multi-allocatable row's shares consume (the state's aggregate, as the
 * allocator reads it) and re-check the capacity signatures it matches. */
void dra__refresh_cap(dra_engine_t *e, uint32_t r)
{
    const dra_device_t *d = e->t->dev[r];
    dra__aq_t *x = e->cx + e->cx_off[r];
    bool changed = false;
    for (uint32_t c = 0; c < d->ncaps; c++) {
        dra__aq_t q = 0;
        if (!dra__alloc_state_cap_aq(e->state, dra__row_driver(e, r), dra__row_pool(e, r),
                                     dra__row_device(e, r), d->caps[c].name, &q))
            q = 0;
        changed |= q != x[c];
        x[c] = q;
    }
    if (!changed)
        return;
    for (uint32_t i = 0; i < e->nsigs; i++) {
        sig_t *s = &e->sigs[i];
        if (!s->capbody || !dra_bit_get(s->match, r))
            continue;
        bool now = dra__cap_fits_row(e, s, r);
        if (now == dra_bit_get(s->cfit, r))
            continue;
        if (now)
            dra_bit_set(s->cfit, r);
        else
            dra_bit_clear(s->cfit, r);
        if (dra_bit_get(e->avb, r))
            sig_row_delta(e, s, r, now ? 1 : -1);
    }
}

/* Row r changed between blocked and not: adjust the All signatures it matches. */
static void row_flip_blocked(dra_engine_t *e, uint32_t r, int delta)
{
    uint32_t n = dra__row_node(e, r);
    if (r >= e->t->shared_begin || n == NONE)
        return;
    for (uint32_t i = 0; i < e->nsigs; i++) {
        sig_t *s = &e->sigs[i];
        if (!s->all || s->noblk || !dra_bit_get(s->match, r))
            continue;
        bool was = s->blk[n] > 0;
        s->blk[n] += delta;
        if (was != (s->blk[n] > 0))
            dra__tree_set(e, s, n);
    }
}

static void refresh_row(dra_engine_t *e, uint32_t r)
{
    bool now = dra__row_avail(e, r);
    if (now != dra_bit_get(e->avb, r)) {
        dra_bit_assign(e->avb, r, now);
        row_flip(e, r, now ? 1 : -1);
    }
    if (e->ncapsigs && e->cx_off[r] != NONE && dra__row_multi(e, r))
        dra__refresh_cap(e, r);
    if (e->nall) { /* bk is kept from the first All signature on */
        bool b = dra__row_blocked(e, r);
        if (b != dra_bit_get(e->bk, r)) {
            dra_bit_assign(e->bk, r, b);
            row_flip_blocked(e, r, b ? 1 : -1);
        }
    }
}

/* Row r went in use (delta 1) or out of use (-1): charge or refund its counter consumption and
 * refresh every row consuming the same sets. */
static void charge(dra_engine_t *e, uint32_t r, int delta)
{
    uint32_t b = dra__ent_b(e, r), end = dra__ent_e(e, r);
    if (b == end)
        return;
    for (uint32_t i = b; i < end; i++) {
        uint32_t c = dra__ent_ctr(e, r, i);
        bool was = e->crem[c] < 0;
        e->crem[c] -= delta > 0 ? dra__ent_amt(e, i) : -dra__ent_amt(e, i);
        bool now = e->crem[c] < 0;
        if (was != now)
            e->nneg = now ? e->nneg + 1 : e->nneg - 1;
    }
    for (uint32_t i = b; i < end; i++) {
        uint32_t st = e->ctr_set[dra__ent_ctr(e, r, i)];
        if (i > b && e->ctr_set[dra__ent_ctr(e, r, i - 1)] == st)
            continue;
        /* less left (delta > 0) can only make available rows unavailable (or blocked: a
         * blocked row is not available); more left only unavailable free rows */
        for (uint32_t j = e->sr_off[st]; j < e->sr_off[st] + e->sr_n[st]; j++) {
            uint32_t q = e->srows[j];
            bool a = dra_bit_get(e->avb, q);
            if (delta > 0 ? a : (!a && row_free(e, q)))
                refresh_row(e, q);
        }
    }
}

void dra__apply_row(dra_engine_t *e, uint32_t r, int delta)
{
    uint32_t before = e->use[r];
    if (delta > 0)
        e->use[r]++;
    else if (e->use[r])
        e->use[r]--;
    if ((before == 0) != (e->use[r] == 0))
        charge(e, r, e->use[r] ? 1 : -1);
    refresh_row(e, r);
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
    for (uint32_t k = 1; k < e->P; k++)
        if (s->tree[k] !=
            (s->tree[2 * k] > s->tree[2 * k + 1] ? s->tree[2 * k] : s->tree[2 * k + 1])) {
            snprintf(why, len, "signature %u: segment tree node %u stale", i, k);
            return false;
        }
    return true;
}

bool dra_engine_check(const dra_engine_t *e, char *why, size_t len)
{
    for (uint32_t r = 0; r < e->t->nrows; r++) {
        uint32_t m = 0;
        for (uint32_t i = 0; i < e->nsigs && i < 32; i++)
            m |= (uint32_t)dra_bit_get(e->sigs[i].match, r) << i;
        if (m != e->rowsigs[r]) {
            snprintf(why, len, "row %u: signature mask %#x, match bits %#x", r, e->rowsigs[r], m);
            return false;
        }
    }
    for (uint32_t r = 0; r < e->t->nrows; r++) {
        /* use counts the results committed on the row: exclusive allocations and, with
         * DRAConsumableCapacity, the shares of a multi-allocatable device */
        uint32_t x = dra_alloc_state_exclusive(e->state, dra__row_driver(e, r), dra__row_pool(e, r),
                                               dra__row_device(e, r));
        if (dra__row_multi(e, r))
            x += dra_alloc_state_shares(e->state, dra__row_driver(e, r), dra__row_pool(e, r),
                                        dra__row_device(e, r));
        if (x != e->use[r]) {
            snprintf(why, len, "row %u (%s/%s/%s): %u allocations and shares, engine has %u", r,
                     dra__row_driver(e, r), dra__row_pool(e, r), dra__row_device(e, r), x,
                     e->use[r]);
            return false;
        }
        if (e->nall && dra_bit_get(e->bk, r) != dra__row_blocked(e, r)) {
            snprintf(why, len, "row %u: blocked flag stale", r);
            return false;
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
        for (uint32_t k = 1; k < e->P; k++) {
            int32_t v = s->tree[2 * k] > s->tree[2 * k + 1] ? s->tree[2 * k] : s->tree[2 * k + 1];
            if (s->tree[k] != v) {
                snprintf(why, len, "signature %u: segment tree node %u stale", i, k);
                return false;
            }
        }
    }
    for (uint32_t n = 0; e->buckets_live && n < e->nnodes; n++) {
        const uint64_t *w = e->bbits + (size_t)dra__bucket_of(e, e->score[n]) * e->W;
        if (!((w[n >> 6] >> (n & 63)) & 1)) {
            snprintf(why, len, "node %u not in the bucket of score %u", n, e->score[n]);
            return false;
        }
    }
    return true;
}
