/*
 * engine.c - compiled signatures, per-node summaries, the candidate-node index and placement
 * (engine.h explains the semantics and why each summary is a necessary condition).
 */
#include "engine/engine_impl.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "alloc/alloc_impl.h"
#include "base/bitset.h"
#include "base/intern.h"
#include "base/quantity.h"
#include "cel/lower.h"

static const char *nz(const char *s)
{
    return s ? s : "";
}

/* ---- rows by device ID ----------------------------------------------------------------------- */

static uint64_t key_hash(const char *driver, const char *pool, const char *device)
{
    uint64_t h = dra_hash64(driver, strlen(driver));
    h = dra_hash64_seed(pool, strlen(pool), h);
    return dra_hash64_seed(device, strlen(device), h);
}

static const char *row_driver(const dra_engine_t *e, uint32_t r)
{
    return nz(e->t->pools[e->t->pool[r]].driver);
}
static const char *row_pool(const dra_engine_t *e, uint32_t r)
{
    return nz(e->t->pools[e->t->pool[r]].name);
}
static const char *row_device(const dra_engine_t *e, uint32_t r)
{
    return nz(e->t->dev[r]->name);
}

/* The first slot of hash h in a table of n slots (the top 32 bits scaled to n). */
static uint32_t hslot_start(uint64_t h, uint32_t n)
{
    return (uint32_t)(((h >> 32) * (uint64_t)n) >> 32);
}

static int hash_build(dra_engine_t *e)
{
    /* at most 80% full, any size: the start slot is the hash scaled to it */
    uint32_t n = e->t->nrows + e->t->nrows / 4 + 16;
    e->hslots = calloc(n, sizeof *e->hslots);
    if (!e->hslots)
        return DRA_ENOMEM;
    e->nhslots = n;
    const dra_model_t *m = e->t->model;
    uint32_t *first = malloc(((size_t)m->nslices + 1) * sizeof *first);
    if (!first)
        return DRA_ENOMEM;
    e->nord = dra_model_device_rows(m, first);
    e->ord_row = malloc(((size_t)e->nord + 1) * sizeof *e->ord_row);
    if (!e->ord_row) {
        free(first);
        return DRA_ENOMEM;
    }
    for (uint32_t i = 0; i < e->nord; i++)
        e->ord_row[i] = NONE;
    for (uint32_t r = 0; r < e->t->nrows; r++) {
        uint32_t si = e->t->slice[r];
        uint32_t ord = first[si] + (uint32_t)(e->t->dev[r] - m->slices[si]->devices);
        DRA_ASSERT_INTERNAL(ord < e->nord);
        bool dup = false;
        uint64_t h = key_hash(row_driver(e, r), row_pool(e, r), row_device(e, r));
        uint32_t i = hslot_start(h, n);
        for (; e->hslots[i]; i = i + 1 == n ? 0 : i + 1) {
            uint32_t o = e->hslots[i] - 1;
            if (!strcmp(row_device(e, o), row_device(e, r)) && !strcmp(row_pool(e, o), row_pool(e, r)) &&
                !strcmp(row_driver(e, o), row_driver(e, r))) {
                dup = true; /* results name both rows: the string lookup finds every one */
                uint32_t so = e->t->slice[o];
                e->ord_row[first[so] + (uint32_t)(e->t->dev[o] - m->slices[so]->devices)] = NONE;
            }
        }
        e->hslots[i] = r + 1;
        if (ord < e->nord)
            e->ord_row[ord] = dup ? NONE : r;
    }
    e->slice_row0 = first; /* kept: direct answers number their results' rows with it */
    e->slice_index_ok = true;
    for (uint32_t i = 0; i < m->nslices && e->slice_index_ok; i++)
        e->slice_index_ok = m->slices[i]->index == i;
    return DRA_OK;
}

/* ---- the index ------------------------------------------------------------------------------- */

static int32_t leaf_value(const dra_engine_t *e, const sig_t *s, uint32_t n)
{
    if (e->hz[n] || s->herr[n])
        return HAZARD;
    return s->all && s->blk[n] ? -1 : s->cnt[n];
}

void dra__tree_set(dra_engine_t *e, sig_t *s, uint32_t n)
{
    int32_t *t = s->tree;
    uint32_t i = e->P + n;
    t[i] = leaf_value(e, s, n);
    for (i >>= 1; i >= 1; i >>= 1) {
        int32_t v = t[2 * i] > t[2 * i + 1] ? t[2 * i] : t[2 * i + 1];
        if (t[i] == v)
            break;
        t[i] = v;
    }
}

static void tree_build(dra_engine_t *e, sig_t *s)
{
    int32_t *t = s->tree;
    for (uint32_t i = 0; i < e->P; i++)
        t[e->P + i] = i < e->nnodes ? leaf_value(e, s, i) : INT32_MIN;
    for (uint32_t i = e->P - 1; i >= 1; i--)
        t[i] = t[2 * i] > t[2 * i + 1] ? t[2 * i] : t[2 * i + 1];
}

/* First node >= pos whose leaf is >= need, or NONE. */
static uint32_t tree_first(const dra_engine_t *e, const sig_t *s, uint32_t pos, int32_t need)
{
    if (pos >= e->nnodes)
        return NONE;
    const int32_t *t = s->tree;
    uint32_t i = e->P + pos;
    if (t[i] >= need)
        return pos;
    for (;;) {
        if (i == 1)
            return NONE;
        if ((i & 1) == 0 && t[i + 1] >= need) {
            i++;
            break;
        }
        i >>= 1;
    }
    while (i < e->P) {
        i <<= 1;
        if (t[i] < need)
            i++;
    }
    uint32_t r = i - e->P;
    return r < e->nnodes ? r : NONE;
}

/* The need of an alternative on the node's own range (INT32_MIN: always admitted). */
static int32_t alt_need(const dra_engine_t *e, const alt_t *a)
{
    const sig_t *s = &e->sigs[a->sig];
    if (s->sherr)
        return INT32_MIN;
    if (s->all) /* at least one allocatable device, none blocked (leaf -1) */
        return s->shcnt >= 1 ? 0 : 1;
    return a->k - s->shcnt;
}

/* need at or below every leaf: admitted everywhere without a look at the tree */
static bool need_trivial(const sig_t *s, int32_t need)
{
    return s->all ? need == INT32_MIN : need <= 0;
}

static bool req_admits(const dra_engine_t *e, const plan_t *p, const creq_t *rq, uint32_t n)
{
    if (!rq->nalt)
        return true;
    for (uint32_t j = 0; j < rq->nalt; j++) {
        const alt_t *a = &p->alts[rq->alt0 + j];
        if (leaf_value(e, &e->sigs[a->sig], n) >= alt_need(e, a))
            return true;
    }
    return false;
}

/* First node of the plan's error nodes at or after pos, NONE when none. O(log). */
static uint32_t errn_next(const plan_t *p, uint32_t pos)
{
    uint32_t lo = 0, hi = p->nerrn;
    while (lo < hi) {
        uint32_t mid = lo + (hi - lo) / 2;
        if (p->errn[mid] < pos)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo < p->nerrn ? p->errn[lo] : NONE;
}

static bool plan_admits(const dra_engine_t *e, const plan_t *p, uint32_t n)
{
    if (p->err_all || (p->nerrn && errn_next(p, n) == n))
        return true;
    for (uint32_t i = 0; i < p->nreqs; i++)
        if (!req_admits(e, p, &p->reqs[i], n))
            return false;
    return true;
}

/* First node >= pos admitted by request rq, or NONE. */
static uint32_t req_next(const dra_engine_t *e, const plan_t *p, const creq_t *rq, uint32_t pos)
{
    if (pos >= e->nnodes)
        return NONE;
    if (!rq->nalt)
        return pos;
    uint32_t best = NONE;
    for (uint32_t j = 0; j < rq->nalt; j++) {
        const alt_t *a = &p->alts[rq->alt0 + j];
        int32_t need = alt_need(e, a);
        const sig_t *s = &e->sigs[a->sig];
        uint32_t x = need_trivial(s, need) ? pos : tree_first(e, s, pos, need);
        if (x < best)
            best = x;
    }
    return best;
}

/* First node >= pos admitted by every request (leapfrog), or NONE. */
static uint32_t plan_next_all(const dra_engine_t *e, const plan_t *p, uint32_t pos)
{
    for (;;) {
        if (pos >= e->nnodes)
            return NONE;
        uint32_t hi = pos;
        for (uint32_t i = 0; i < p->nreqs; i++) {
            uint32_t x = req_next(e, p, &p->reqs[i], hi);
            if (x == NONE)
                return NONE;
            hi = x;
        }
        if (hi == pos)
            return pos;
        pos = hi;
    }
}

/* First node >= pos the plan admits: every request does, or it is an error node. */
static uint32_t plan_next(const dra_engine_t *e, const plan_t *p, uint32_t pos)
{
    if (p->err_all)
        return pos < e->nnodes ? pos : NONE;
    uint32_t x = plan_next_all(e, p, pos);
    if (p->nerrn) {
        uint32_t y = errn_next(p, pos);
        if (y < x)
            x = y;
    }
    return x;
}

/* ---- summaries ------------------------------------------------------------------------------- */

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
static bool row_avail(const dra_engine_t *e, uint32_t r)
{
    return row_free(e, r) && (dra__row_multi(e, r) || dra__row_fits(e, r));
}

/* Certainly not allocatable by a request without adminAccess (and so, when in an All request's
 * set, that request fails): exclusively allocated, or a counter it consumes has too little left.
 * Never a multi-allocatable device (its counters are not checked while it has capacity in use,
 * and its shares are not exclusive allocations). */
static bool row_blocked(const dra_engine_t *e, uint32_t r)
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

static void sig_count(dra_engine_t *e, sig_t *s)
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

/* The signature being built becomes e->sigs[e->nsigs]: its rows get its bit in their mask
 * (signatures 0..31). Returns its index. O(rows / 64 + its matching rows). */
static uint32_t sig_commit(dra_engine_t *e)
{
    uint32_t si = e->nsigs++;
    if (si < 32) {
        const uint64_t *mt = e->sigs[si].match;
        for (uint32_t w = 0; w < dra_bitset_words(e->t->nrows); w++)
            for (uint64_t b = mt[w]; b; b &= b - 1)
                e->rowsigs[(w << 6) + (uint32_t)__builtin_ctzll(b)] |= 1u << si;
    }
    return si;
}

/* Whether the request of capacity signature s fits row r's capacity left by its shares. */
static bool cap_fits_row(const dra_engine_t *e, const sig_t *s, uint32_t r)
{
    const dra__aq_t *x = e->cx_off && e->cx_off[r] != NONE ? e->cx + e->cx_off[r] : NULL;
    return dra__cap_fits(s->capbody, e->t->dev[r], x, NULL, e->beh.bugs) == 1;
}

/* Re-read the capacity a multi-allocatable row's shares consume (the state's aggregate, as the
 * allocator reads it) and re-check the capacity signatures it matches. */
static void refresh_cap(dra_engine_t *e, uint32_t r)
{
    const dra_device_t *d = e->t->dev[r];
    dra__aq_t *x = e->cx + e->cx_off[r];
    bool changed = false;
    for (uint32_t c = 0; c < d->ncaps; c++) {
        dra__aq_t q = 0;
        if (!dra__alloc_state_cap_aq(e->state, row_driver(e, r), row_pool(e, r), row_device(e, r),
                                    d->caps[c].name, &q))
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
        bool now = cap_fits_row(e, s, r);
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
    bool now = row_avail(e, r);
    if (now != dra_bit_get(e->avb, r)) {
        dra_bit_assign(e->avb, r, now);
        row_flip(e, r, now ? 1 : -1);
    }
    if (e->ncapsigs && e->cx_off[r] != NONE && dra__row_multi(e, r))
        refresh_cap(e, r);
    if (e->nall) { /* bk is kept from the first All signature on */
        bool b = row_blocked(e, r);
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

static void apply_row(dra_engine_t *e, uint32_t r, int delta)
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

/* A result changes every row of its device: found in O(1) through the model row the state
 * resolved it to (vrow, checked by the state: 0 when not known) or its row hint when that row is
 * the device, in both cases when it is the only row with its ID; else through the strings. */
static void apply_result(dra_engine_t *e, const dra_result_t *res, uint32_t vrow, int delta)
{
    if (res->admin_access) /* the state skips adminAccess results */
        return;
    if (vrow && vrow <= e->nord && e->ord_row[vrow - 1] != NONE) {
        uint32_t r = e->ord_row[vrow - 1];
        dra__direct_note_share(e, r, res);
        apply_row(e, r, delta);
        return;
    }
    const char *drv = nz(res->driver), *pool = nz(res->pool), *dev = nz(res->device);
    if (res->row && res->row <= e->nord) {
        uint32_t r = e->ord_row[res->row - 1];
        if (r != NONE && (e->t->dev[r]->name == res->device ||
                          (!strcmp(row_device(e, r), dev) && !strcmp(row_pool(e, r), pool) &&
                           !strcmp(row_driver(e, r), drv)))) {
            dra__direct_note_share(e, r, res);
            apply_row(e, r, delta);
            return;
        }
    }
    uint64_t h = key_hash(drv, pool, dev);
    for (uint32_t i = hslot_start(h, e->nhslots); e->hslots[i];
         i = i + 1 == e->nhslots ? 0 : i + 1) {
        uint32_t r = e->hslots[i] - 1;
        if (strcmp(row_device(e, r), dev) || strcmp(row_pool(e, r), pool) ||
            strcmp(row_driver(e, r), drv))
            continue;
        dra__direct_note_share(e, r, res);
        apply_row(e, r, delta);
    }
}

/* ---- scores and buckets ---------------------------------------------------------------------- */

static uint32_t bucket_of(const dra_engine_t *e, uint32_t score)
{
    return score < e->nbuckets - 1 ? score : e->nbuckets - 1;
}

static void bucket_add(dra_engine_t *e, uint32_t b, uint32_t n, bool on)
{
    uint64_t *w = e->bbits + (size_t)b * e->W;
    uint64_t *sm = e->bsum + (size_t)b * e->W2;
    uint32_t wi = n >> 6;
    if (on) {
        w[wi] |= (uint64_t)1 << (n & 63);
        sm[wi >> 6] |= (uint64_t)1 << (wi & 63);
        e->bcount[b]++;
    } else {
        w[wi] &= ~((uint64_t)1 << (n & 63));
        if (!w[wi])
            sm[wi >> 6] &= ~((uint64_t)1 << (wi & 63));
        e->bcount[b]--;
    }
}

static void score_set(dra_engine_t *e, uint32_t n, uint32_t v)
{
    uint32_t ob = bucket_of(e, e->score[n]), nb = bucket_of(e, v);
    e->score[n] = v;
    if (ob != nb && e->buckets_live) {
        bucket_add(e, ob, n, false);
        bucket_add(e, nb, n, true);
    }
}

/* Put every node in the bucket of its score and keep them there from now on. O(buckets *
 * nodes / 64 + nodes), once. */
static void buckets_sync(dra_engine_t *e)
{
    if (e->buckets_live)
        return;
    memset(e->bbits, 0, (size_t)e->nbuckets * e->W * sizeof *e->bbits);
    memset(e->bsum, 0, (size_t)e->nbuckets * e->W2 * sizeof *e->bsum);
    memset(e->bcount, 0, e->nbuckets * sizeof *e->bcount);
    for (uint32_t i = 0; i < e->nnodes; i++)
        bucket_add(e, bucket_of(e, e->score[i]), i, true);
    e->buckets_live = true;
}

void dra_engine_prepare_policy(dra_engine_t *e, dra_engine_policy_t policy)
{
    if (e && (policy == DRA_ENGINE_BEST_FIT || policy == DRA_ENGINE_SPREAD))
        buckets_sync(e);
}

/* Next node >= from in bucket b, or NONE. */
static uint32_t bucket_next(const dra_engine_t *e, uint32_t b, uint32_t from)
{
    if (from >= e->nnodes)
        return NONE;
    const uint64_t *w = e->bbits + (size_t)b * e->W;
    const uint64_t *sm = e->bsum + (size_t)b * e->W2;
    uint32_t wi = from >> 6;
    uint64_t cur = w[wi] & (~(uint64_t)0 << (from & 63));
    if (cur)
        return (wi << 6) + (uint32_t)__builtin_ctzll(cur);
    wi++;
    while (wi < e->W) {
        uint32_t si = wi >> 6;
        uint64_t sc = sm[si] & (~(uint64_t)0 << (wi & 63));
        if (sc) {
            wi = (si << 6) + (uint32_t)__builtin_ctzll(sc);
            return (wi << 6) + (uint32_t)__builtin_ctzll(w[wi]);
        }
        wi = (si + 1) << 6;
    }
    return NONE;
}

/* ---- signatures ------------------------------------------------------------------------------ */

bool dra__same_selectors(const dra_exact_request_t *a, const dra_exact_request_t *b)
{
    if (a->nselectors != b->nselectors)
        return false;
    for (uint32_t i = 0; i < a->nselectors; i++)
        if (strcmp(nz(a->selectors[i].cel), nz(b->selectors[i].cel)))
            return false;
    return true;
}

/* AND one selector into match, OR its errors into err. */
static int eval_selector(dra_engine_t *e, const char *src, uint64_t *match, uint64_t *err,
                         uint64_t *tm, uint64_t *te)
{
    const dra_table_t *t = e->t;
    const dra_cel_prog_t *prog = NULL;
    dra_diag_t d;
    dra_diag_clear(&d);
    int rc = dra_cel_cache_get(e->cel, src, &prog, &d);
    if (rc == DRA_ENOMEM)
        return rc;
    if (rc)
        return DRA_EUNSUPPORTED; /* compile error: the plan goes to brute force */
    size_t nw = dra_bitset_words(t->nrows_padded);
    dra_lowered_t *l = NULL;
    rc = dra_lower_compile(prog, t, &e->arena, &l);
    if (rc == DRA_OK && (rc = dra_lower_eval(l, t, tm, te)) == DRA_OK) {
        e->nlowered++;
    } else if (rc == DRA_EUNSUPPORTED) {
        e->ninterpreted++;
        memset(tm, 0, nw * sizeof *tm);
        memset(te, 0, nw * sizeof *te);
        for (uint32_t r = 0; r < t->nrows; r++) {
            if (!dra_bit_get(match, r))
                continue; /* already false or an error: no need to evaluate */
            bool mt = false;
            dra_diag_clear(&d);
            int er = dra_cel_eval_device(prog, e->m, t->dev[r], &e->scratch, &mt, &d);
            dra_arena_reset(&e->scratch);
            if (er == DRA_ENOMEM)
                return er;
            if (er)
                dra_bit_set(te, r);
            else if (mt)
                dra_bit_set(tm, r);
        }
    } else {
        return rc;
    }
    /* selectors run in order and stop at the first false or error: this selector's errors count
     * only on rows where every earlier selector was true */
    for (size_t i = 0; i < nw; i++) {
        err[i] |= te[i] & match[i];
        match[i] &= tm[i];
    }
    return DRA_OK;
}

/* Room for one more signature in e->sigs (its address may change). */
static int sig_reserve(dra_engine_t *e)
{
    if (e->nsigs < e->capsigs)
        return DRA_OK;
    uint32_t nc = e->capsigs ? e->capsigs * 2 : 8;
    sig_t *ns = realloc(e->sigs, nc * sizeof *ns);
    if (!ns)
        return DRA_ENOMEM;
    e->sigs = ns;
    e->capsigs = nc;
    return DRA_OK;
}

/* A signature's per-node arrays (counts, error flags, segment tree); NULL members when out of
 * memory, which the caller checks. */
static void sig_node_arrays(dra_engine_t *e, sig_t *s)
{
    s->cnt = dra_arena_alloc(&e->arena, ((size_t)e->nnodes + 1) * sizeof *s->cnt, 8);
    s->herr = dra_arena_alloc(&e->arena, (size_t)e->nnodes + 1, 8);
    s->tree = dra_arena_alloc(&e->arena, 2 * (size_t)e->P * sizeof *s->tree, 64);
}

/* The signature of (class, body), compiled on first use. *out NONE when it cannot be compiled. */
static int sig_get(dra_engine_t *e, const dra_device_class_t *cls, const dra_exact_request_t *body,
                   uint32_t *out)
{
    *out = NONE;
    for (uint32_t i = 0; i < e->nsigs; i++)
        if (e->sigs[i].cls == cls && e->sigs[i].attr == NONE && !e->sigs[i].all &&
            e->sigs[i].excl == NONE && !e->sigs[i].capbody &&
            dra__same_selectors(e->sigs[i].body, body)) {
            *out = i;
            return DRA_OK;
        }
    for (uint32_t i = 0; i < cls->nselectors; i++)
        if (!cls->selectors[i].cel)
            return DRA_OK;
    for (uint32_t i = 0; i < body->nselectors; i++)
        if (!body->selectors[i].cel)
            return DRA_OK;
    const dra_table_t *t = e->t;
    size_t nw = dra_bitset_words(t->nrows_padded);
    uint64_t *match = dra_arena_alloc(&e->arena, nw * 8, DRA_TABLE_ALIGN);
    uint64_t *err = dra_arena_alloc(&e->arena, nw * 8, DRA_TABLE_ALIGN);
    uint64_t *tm = malloc(nw * 8 + 64), *te = malloc(nw * 8 + 64);
    if (!match || !err || !tm || !te) {
        free(tm);
        free(te);
        return DRA_ENOMEM;
    }
    memset(err, 0, nw * 8);
    memset(match, 0, nw * 8);
    for (uint32_t r = 0; r < t->nrows; r++)
        if (t->dev[r])
            dra_bit_set(match, r);
    int rc = DRA_OK;
    uint32_t nsel = cls->nselectors + body->nselectors;
    for (uint32_t i = 0; i < nsel && rc == DRA_OK; i++) {
        const char *src = i < cls->nselectors ? cls->selectors[i].cel
                                              : body->selectors[i - cls->nselectors].cel;
        rc = eval_selector(e, src, match, err, tm, te);
    }
    free(tm);
    free(te);
    if (rc == DRA_EUNSUPPORTED)
        return DRA_OK;
    if (rc)
        return rc;
    if (nsel) {
        /* an attribute of an unsupported kind fails every selector evaluation */
        for (uint32_t r = 0; r < t->nrows; r++) {
            const dra_device_t *d = t->dev[r];
            for (uint32_t a = 0; d && a < d->nattrs; a++)
                if (d->attrs[a].kind == DRA_ATTR_NONE) {
                    dra_bit_set(err, r);
                    dra_bit_clear(match, r);
                    break;
                }
        }
    }
    if (sig_reserve(e))
        return DRA_ENOMEM;
    sig_t *s = &e->sigs[e->nsigs];
    memset(s, 0, sizeof *s);
    s->attr = NONE;
    s->excl = NONE;
    s->maxset = -1;
    s->cls = cls;
    s->body = body;
    s->match = match;
    s->err = err;
    sig_node_arrays(e, s);
    if (!s->cnt || !s->herr || !s->tree)
        return DRA_ENOMEM;
    sig_count(e, s);
    tree_build(e, s);
    *out = sig_commit(e);
    /* the exact allocator reads the same compiled answer instead of evaluating CEL per device */
    if (e->alloc && e->alloc->kind == DRA_ALLOC_FAST && e->alloc->fast)
        return dra_fast_seed_selectors(e->alloc->fast, cls, body, e->nord, e->ord_row, match, err);
    return DRA_OK;
}

/* Same kind and value: the same dictionary code (list columns never get here). */
uint32_t dra__group_node(const dra_engine_t *e, sig_t *s, uint32_t tn)
{
    const dra_table_t *t = e->t;
    const dra_table_attr_t *a = &t->attrs[s->attr];
    uint32_t first_row_of_group[64];
    uint32_t here = 0;
    for (uint32_t r = t->nodes[tn].begin; r < t->nodes[tn].end; r++) {
        s->grp[r] = GRP_NONE;
        if (!dra_bit_get(s->match, r) || dra_table_attr_code(a, r) == 0)
            continue;
        uint32_t g = NONE;
        for (uint32_t j = 0; j < here && g == NONE; j++)
            if (dra_table_attr_same(a, first_row_of_group[j], r))
                g = j;
        if (g == NONE) {
            if (here == 64) { /* too many values on one node: one group for the rest */
                g = here - 1;
            } else {
                first_row_of_group[here] = r;
                g = here++;
            }
        }
        s->grp[r] = (uint8_t)g;
    }
    return here;
}

/* The matchAttribute variant of signature base over table attribute column ai; *out NONE when
 * the column holds list values (intersection semantics: not summarized). */
static int sig_get_group(dra_engine_t *e, uint32_t base, uint32_t ai, uint32_t *out)
{
    *out = NONE;
    for (uint32_t i = 0; i < e->nsigs; i++)
        if (e->sigs[i].attr == ai && e->sigs[i].cls == e->sigs[base].cls &&
            e->sigs[i].excl == e->sigs[base].excl && e->sigs[i].capbody == e->sigs[base].capbody &&
            dra__same_selectors(e->sigs[i].body, e->sigs[base].body)) {
            *out = i;
            return DRA_OK;
        }
    const dra_table_t *t = e->t;
    const dra_table_attr_t *a = &t->attrs[ai];
    for (int k = DRA_ATTR_INTS; k <= DRA_ATTR_VERSIONS; k++)
        if (a->kinds & (1u << k))
            return DRA_OK;
    if (sig_reserve(e))
        return DRA_ENOMEM;
    sig_t *s = &e->sigs[e->nsigs];
    *s = e->sigs[base]; /* shares match / err bitsets */
    s->attr = ai;
    sig_node_arrays(e, s);
    s->grp = dra_arena_alloc(&e->arena, (size_t)t->nrows + 1, 8);
    s->gfirst = dra_arena_alloc(&e->arena, ((size_t)e->nnodes + 1) * sizeof *s->gfirst, 8);
    if (!s->cnt || !s->herr || !s->tree || !s->grp || !s->gfirst)
        return DRA_ENOMEM;
    if (s->capbody) { /* its own fit bits: refresh_cap updates each signature's */
        size_t nw = dra_bitset_words(t->nrows_padded);
        uint64_t *cf = dra_arena_alloc(&e->arena, nw * 8, DRA_TABLE_ALIGN);
        if (!cf)
            return DRA_ENOMEM;
        memcpy(cf, s->cfit, nw * 8);
        s->cfit = cf;
        e->ncapsigs++;
    }
    /* groups: per node, one per distinct value among its matching rows (rows in node order) */
    uint32_t ng = 0;
    for (uint32_t r = 0; r < t->nrows; r++)
        s->grp[r] = GRP_NONE;
    for (uint32_t n = 0; n < e->nnodes; n++) {
        s->gfirst[n] = ng;
        uint32_t tn = e->tnode[n];
        if (tn == NONE)
            continue;
        ng += dra__group_node(e, s, tn);
    }
    s->gfirst[e->nnodes] = ng;
    s->gcnt = dra_arena_alloc(&e->arena, ((size_t)ng + 1) * sizeof *s->gcnt, 8);
    if (!s->gcnt)
        return DRA_ENOMEM;
    sig_count(e, s);
    tree_build(e, s);
    *out = sig_commit(e);
    return DRA_OK;
}

/* Most matching rows (errors aside) one node can see: its range plus the whole shared range, an
 * upper bound on the size of an All request's set on any node. */
static int32_t sig_maxset(dra_engine_t *e, uint32_t si)
{
    sig_t *s = &e->sigs[si];
    if (s->maxset >= 0)
        return s->maxset;
    int32_t sh = 0, best = 0;
    for (uint32_t r = e->t->shared_begin; r < e->t->nrows; r++)
        sh += dra_bit_get(s->match, r);
    for (uint32_t n = 0; n < e->nnodes; n++) {
        uint32_t tn = e->tnode[n];
        int32_t c = 0;
        if (tn != NONE)
            for (uint32_t r = e->t->nodes[tn].begin; r < e->t->nodes[tn].end; r++)
                c += dra_bit_get(s->match, r);
        best = c > best ? c : best;
    }
    s->maxset = best + sh;
    return s->maxset;
}

/* A variant of the plain signature base: the All variant (all, noblk) or, excl != NONE, base
 * minus the certain members of the All signature excl's set (see sig_t). Compiled on first use. */
static int sig_variant(dra_engine_t *e, uint32_t base, bool all, bool noblk, uint32_t excl,
                       uint32_t *out)
{
    for (uint32_t i = 0; i < e->nsigs; i++) {
        const sig_t *s = &e->sigs[i], *b = &e->sigs[base];
        if (s->cls == b->cls && s->attr == NONE && s->all == all && s->noblk == noblk &&
            s->excl == excl && !s->capbody && dra__same_selectors(s->body, b->body)) {
            *out = i;
            return DRA_OK;
        }
    }
    if (sig_reserve(e))
        return DRA_ENOMEM;
    sig_t *s = &e->sigs[e->nsigs];
    *s = e->sigs[base]; /* shares match / err unless excl */
    s->all = all;
    s->noblk = noblk;
    s->excl = excl;
    s->maxset = -1;
    const dra_table_t *t = e->t;
    if (excl != NONE) {
        const sig_t *x = &e->sigs[excl];
        size_t nw = dra_bitset_words(t->nrows_padded);
        uint64_t *match = dra_arena_alloc(&e->arena, nw * 8, DRA_TABLE_ALIGN);
        uint64_t *err = dra_arena_alloc(&e->arena, nw * 8, DRA_TABLE_ALIGN);
        if (!match || !err)
            return DRA_ENOMEM;
        for (size_t i = 0; i < nw; i++) {
            match[i] = s->match[i];
            err[i] = s->err[i] | x->err[i];
        }
        for (uint32_t r = 0; r < t->shared_begin; r++)
            if (dra_bit_get(x->match, r) && dra_bit_get(e->amem, r) && !dra__row_multi(e, r))
                dra_bit_clear(match, r);
        s->match = match;
        s->err = err;
    }
    sig_node_arrays(e, s);
    s->blk = all ? dra_arena_alloc(&e->arena, ((size_t)e->nnodes + 1) * sizeof *s->blk, 8) : NULL;
    if (!s->cnt || !s->herr || !s->tree || (all && !s->blk))
        return DRA_ENOMEM;
    if (all && !e->nall)
        for (uint32_t r = 0; r < t->nrows; r++)
            dra_bit_assign(e->bk, r, row_blocked(e, r));
    sig_count(e, s);
    tree_build(e, s);
    if (all)
        e->nall++;
    *out = sig_commit(e);
    return DRA_OK;
}

static bool same_caps(const dra_exact_request_t *a, const dra_exact_request_t *b)
{
    if (a == b)
        return true;
    if (a->ncap_requests != b->ncap_requests)
        return false;
    for (uint32_t i = 0; i < a->ncap_requests; i++)
        if (strcmp(nz(a->cap_requests[i].name), nz(b->cap_requests[i].name)) ||
            dra__aq_from(&a->cap_requests[i].value) != dra__aq_from(&b->cap_requests[i].value))
            return false;
    return true;
}

/* The capacity variant of the plain signature base for a request body with capacity requests:
 * rows count only while the body's capacity fits (see sig_t). Compiled on first use. */
static int sig_cap(dra_engine_t *e, uint32_t base, const dra_exact_request_t *body, uint32_t *out)
{
    for (uint32_t i = 0; i < e->nsigs; i++) {
        const sig_t *s = &e->sigs[i], *b = &e->sigs[base];
        if (s->cls == b->cls && s->attr == NONE && !s->all && s->excl == NONE && s->capbody &&
            same_caps(s->capbody, body) && dra__same_selectors(s->body, b->body)) {
            *out = i;
            return DRA_OK;
        }
    }
    if (sig_reserve(e))
        return DRA_ENOMEM;
    /* commits keep the shares' capacity (cx) only while a capacity signature exists: the first
     * one re-reads it from the state */
    for (uint32_t r = 0; e->ncapsigs == 0 && r < e->t->nrows; r++)
        if (e->cx_off[r] != NONE && dra__row_multi(e, r))
            refresh_cap(e, r);
    sig_t *s = &e->sigs[e->nsigs];
    *s = e->sigs[base];
    s->capbody = body;
    s->maxset = -1;
    size_t nw = dra_bitset_words(e->t->nrows_padded);
    s->cfit = dra_arena_alloc(&e->arena, nw * 8, DRA_TABLE_ALIGN);
    sig_node_arrays(e, s);
    if (!s->cfit || !s->cnt || !s->herr || !s->tree)
        return DRA_ENOMEM;
    memset(s->cfit, 0, nw * 8);
    for (uint32_t r = 0; r < e->t->nrows; r++)
        if (dra_bit_get(s->match, r) && cap_fits_row(e, s, r))
            dra_bit_set(s->cfit, r);
    sig_count(e, s);
    tree_build(e, s);
    e->ncapsigs++;
    *out = sig_commit(e);
    return DRA_OK;
}

/* ---- plans ----------------------------------------------------------------------------------- */

/* Whether some row the signature matches is a multi-allocatable device with capacities (whose
 * shares' capacity cx keeps). O(rows / 64 + matches). */
static bool sig_matches_shared_caps(const dra_engine_t *e, const sig_t *s)
{
    for (uint32_t w = 0; e->cx_off && w < dra_bitset_words(e->t->nrows); w++)
        for (uint64_t b = s->match[w]; b; b &= b - 1)
            if (e->cx_off[(w << 6) + (uint32_t)__builtin_ctzll(b)] != NONE)
                return true;
    return false;
}

/* Add the alternative (body); false when the plan cannot be indexed. xs: the plain signature of
 * the plan's All request whose set other requests cannot take from (NONE: none). *size: the
 * most devices the alternative can take (k, or the All set's bound). */
static int add_alt(dra_engine_t *e, plan_t *p, const dra_exact_request_t *body, uint32_t xs,
                   bool *ok, int64_t *size)
{
    if (!body || !body->class_name || !body->class_name[0] ||
        (body->mode != DRA_MODE_EXACT_COUNT && body->mode != DRA_MODE_ALL)) {
        *ok = false;
        return DRA_OK;
    }
    bool all = body->mode == DRA_MODE_ALL;
    int64_t k = all ? 1 : body->has_count ? body->count : 1; /* All ignores count */
    if (k < 1 || k > DRA_ALLOC_MAX_RESULTS || (body->has_admin_access && !e->beh.admin) ||
        (body->has_capacity && !e->beh.cc)) {
        *ok = false;
        return DRA_OK;
    }
    const dra_device_class_t *cls = dra_model_find_class(e->m, body->class_name);
    if (!cls) {
        *ok = false;
        return DRA_OK;
    }
    uint32_t si;
    int rc = sig_get(e, cls, body, &si);
    if (rc)
        return rc;
    if (si == NONE) {
        *ok = false;
        return DRA_OK;
    }
    *size = k;
    if (all) {
        *size = sig_maxset(e, si);
        /* adminAccess may take allocated devices: the plain signature without a condition */
        if (!body->admin_access &&
            (rc = sig_variant(e, si, true, body->has_capacity || body->ncap_requests > 0, NONE,
                              &si)))
            return rc;
    } else if (xs != NONE && !body->admin_access) {
        if ((rc = sig_variant(e, si, false, false, xs, &si)))
            return rc;
    } else if (e->beh.cc && e->cx_off && !body->admin_access &&
               (body->ncap_requests > 0 || sig_matches_shared_caps(e, &e->sigs[si]))) {
        /* a request without capacity requests consumes the defaults of a shared device */
        if ((rc = sig_cap(e, si, body, &si)))
            return rc;
    }
    alt_t *na = realloc(p->alts, (p->nalts + 1) * sizeof *na);
    if (!na)
        return DRA_ENOMEM;
    p->alts = na;
    /* adminAccess may take allocated devices: count-only summaries say nothing, no condition */
    na[p->nalts].sig = si;
    na[p->nalts].k = body->admin_access ? INT32_MIN / 2 : (int32_t)k;
    if (all)
        p->anyall = true;
    p->nalts++;
    if (e->sigs[si].any_err)
        p->hazard = true;
    return DRA_OK;
}

/* A matchAttribute constraint in scope of request r: its devices all have the attribute with one
 * value, so the request needs k free matching devices of one value on the node (plus shared
 * ones that have the attribute). The last alternative added (r's) switches to that variant. */
static int match_group(dra_engine_t *e, plan_t *p, const dra_claim_t *cl, const dra_request_t *r)
{
    for (uint32_t x = 0; x < cl->nconstraints; x++) {
        const dra_constraint_t *cn = &cl->constraints[x];
        if (!cn->match_attribute)
            continue;
        bool in = cn->nrequests == 0;
        for (uint32_t j = 0; j < cn->nrequests && !in; j++)
            in = strcmp(nz(cn->requests[j]), nz(r->name)) == 0;
        if (!in)
            continue;
        const dra_table_attr_t *ta =
            dra_table_attr_by_name(e->t, cn->match_attribute, strlen(cn->match_attribute));
        if (!ta)
            continue;
        alt_t *a = &p->alts[p->nalts - 1];
        uint32_t gs;
        int rc = sig_get_group(e, a->sig, (uint32_t)(ta - e->t->attrs), &gs);
        if (rc)
            return rc;
        if (gs != NONE) {
            a->sig = gs;
            return DRA_OK;
        }
    }
    return DRA_OK;
}

/* Whether some row the signature matches is multi-allocatable. O(rows / 64 + matches). */
static bool sig_matches_multi(const dra_engine_t *e, const sig_t *s)
{
    for (uint32_t w = 0; w < dra_bitset_words(e->t->nrows); w++)
        for (uint64_t b = s->match[w]; b; b &= b - 1)
            if (e->t->flags[(w << 6) + (uint32_t)__builtin_ctzll(b)] & DRA_ROW_MULTI_ALLOC)
                return true;
    return false;
}

static int plan_compile(dra_engine_t *e, plan_t *p)
{
    p->indexed = false;
    if (e->all_brute || !p->nclaims)
        return DRA_OK;
    uint32_t nreq = 0;
    for (uint32_t c = 0; c < p->nclaims; c++)
        nreq += p->claims[c]->nrequests;
    p->reqs = calloc(nreq + 1, sizeof *p->reqs);
    if (!p->reqs)
        return DRA_ENOMEM;
    bool ok = true;
    /* an All request (exactly, no adminAccess, no capacity) takes every device of its set: the
     * devices of the other requests of the pod cannot be among them (a taken device fails the
     * All request, and a device the All request took is taken) */
    uint32_t xs = NONE;
    for (uint32_t c = 0; c < p->nclaims && xs == NONE; c++)
        for (uint32_t ri = 0; ri < p->claims[c]->nrequests && xs == NONE; ri++) {
            const dra_exact_request_t *b = p->claims[c]->requests[ri].exactly;
            if (p->claims[c]->requests[ri].nfirst_available || !b || b->mode != DRA_MODE_ALL ||
                b->admin_access || b->has_admin_access || b->has_capacity ||
                b->ncap_requests > 0 || !b->class_name)
                continue;
            const dra_device_class_t *cls = dra_model_find_class(e->m, b->class_name);
            int rc = cls ? sig_get(e, cls, b, &xs) : DRA_OK;
            if (rc)
                return rc;
        }
    for (uint32_t c = 0; c < p->nclaims && ok; c++) {
        const dra_claim_t *cl = p->claims[c];
        if (!cl->nrequests) {
            ok = false;
            break;
        }
        int64_t total = 0, most = 0;
        bool anyall = false;
        for (uint32_t x = 0; x < cl->nconstraints; x++) {
            const dra_constraint_t *cn = &cl->constraints[x];
            if (!cn->match_attribute && !(cn->distinct_attribute && e->beh.cc))
                ok = false;
        }
        for (uint32_t ri = 0; ri < cl->nrequests && ok; ri++) {
            const dra_request_t *r = &cl->requests[ri];
            creq_t *q = &p->reqs[p->nreqs++];
            q->alt0 = p->nalts;
            int64_t minc = INT64_MAX, maxc = 0, size = 0;
            if (r->nfirst_available) {
                if (!e->beh.prio) {
                    ok = false;
                    break;
                }
                for (uint32_t s = 0; s < r->nfirst_available && ok; s++) {
                    const dra_exact_request_t *b = &r->first_available[s];
                    int rc = add_alt(e, p, b, xs, &ok, &size);
                    if (rc)
                        return rc;
                    anyall |= b->mode == DRA_MODE_ALL;
                    int64_t k = b->mode == DRA_MODE_ALL ? 0 : b->has_count ? b->count : 1;
                    minc = k < minc ? k : minc;
                    maxc = size > maxc ? size : maxc;
                }
            } else if (r->exactly) {
                int rc = add_alt(e, p, r->exactly, xs, &ok, &size);
                if (rc)
                    return rc;
                anyall |= r->exactly->mode == DRA_MODE_ALL;
                if (ok && r->exactly->mode != DRA_MODE_ALL && !r->exactly->admin_access &&
                    (rc = match_group(e, p, cl, r)))
                    return rc;
                minc = r->exactly->mode == DRA_MODE_ALL ? 0
                       : r->exactly->has_count ? r->exactly->count : 1;
                maxc = size;
            } else {
                ok = false;
            }
            q->nalt = p->nalts - q->alt0;
            total += minc == INT64_MAX ? 0 : minc;
            most += maxc;
        }
        if (total > DRA_ALLOC_MAX_RESULTS)
            ok = false;
        /* All: a claim constraint violated by a device of the set is Fatal, and a set that would
         * take the claim past the result limit ends the search: neither depends only on the
         * summaries, so such claims stay with brute force */
        if (anyall && (cl->nconstraints || most > DRA_ALLOC_MAX_RESULTS))
            ok = false;
    }
    /* permutations (1.34, 1.35) may pick one multi-allocatable device several times for one
     * request: "k available matching devices" is no necessary condition there */
    for (uint32_t a = 0; ok && e->beh.cc && !e->beh.combos && a < p->nalts; a++)
        ok = !sig_matches_multi(e, &e->sigs[p->alts[a].sig]);
    if (!ok) {
        p->nreqs = 0;
        p->nalts = 0;
        return DRA_OK;
    }
    /* every All request checks every pool the node sees before the search (NodeFailure or Fatal
     * on one that is incomplete from the node): with such nodes, All plans stay brute force */
    if (p->anyall && e->nahz) {
        p->nreqs = 0;
        p->nalts = 0;
        return DRA_OK;
    }
    for (uint32_t i = 0; i < e->nnodes && !p->hazard; i++)
        p->hazard = e->hz[i];
    /* error nodes: a request with an error row there is admitted (its leaf is HAZARD), but the
     * plan must be too, whatever its other requests count; an error row in the shared range
     * makes every node one */
    for (uint32_t a = 0; a < p->nalts; a++)
        p->err_all |= e->sigs[p->alts[a].sig].sherr;
    for (int pass = 0; pass < 2; pass++) {
        uint32_t k = 0;
        for (uint32_t n = 0; n < e->nnodes; n++) {
            bool err = false;
            for (uint32_t a = 0; a < p->nalts && !err; a++)
                err = e->sigs[p->alts[a].sig].herr[n];
            if (err && pass)
                p->errn[k] = n;
            k += err;
        }
        if (!pass) {
            if (!k)
                break;
            p->errn = malloc(k * sizeof *p->errn);
            if (!p->errn)
                return DRA_ENOMEM;
        }
        p->nerrn = k;
    }
    p->indexed = true;
    return DRA_OK;
}

int dra_engine_plan(dra_engine_t *e, dra_claim_t *const *claims, uint32_t n, uint32_t *plan)
{
    if (!e || (!claims && n) || !plan)
        return DRA_EINVAL;
    if (e->nplans == e->capplans) {
        uint32_t nc = e->capplans ? e->capplans * 2 : 8;
        plan_t *np = realloc(e->plans, nc * sizeof *np);
        if (!np)
            return DRA_ENOMEM;
        e->plans = np;
        e->capplans = nc;
    }
    plan_t *p = &e->plans[e->nplans];
    memset(p, 0, sizeof *p);
    p->claims = calloc(n + 1, sizeof *p->claims);
    if (!p->claims)
        return DRA_ENOMEM;
    memcpy(p->claims, claims, n * sizeof *claims);
    p->nclaims = n;
    e->nplans++;
    int rc = plan_compile(e, p);
    if (!rc)
        rc = dra__direct_plan(e, p);
    if (rc)
        return rc;
    *plan = e->nplans - 1;
    return DRA_OK;
}

int dra__plan_recompile(dra_engine_t *e, uint32_t plan)
{
    plan_t *p = &e->plans[plan];
    free(p->reqs);
    free(p->alts);
    free(p->errn);
    dra_claim_t **claims = p->claims;
    uint32_t n = p->nclaims;
    int64_t cpu = p->cpu_m, mem = p->mem_b;
    memset(p, 0, sizeof *p);
    p->claims = claims;
    p->nclaims = n;
    p->cpu_m = cpu;
    p->mem_b = mem;
    int rc = plan_compile(e, p);
    return rc ? rc : dra__direct_plan(e, p);
}

bool dra_engine_plan_indexed(const dra_engine_t *e, uint32_t plan)
{
    return plan < e->nplans && e->plans[plan].indexed;
}

bool dra_engine_admits(const dra_engine_t *e, uint32_t plan, uint32_t node)
{
    if (plan >= e->nplans || node >= e->nnodes)
        return false;
    const plan_t *p = &e->plans[plan];
    return !p->indexed || plan_admits(e, p, node);
}

/* ---- hazard nodes ---------------------------------------------------------------------------- */

static bool same_scope(const dra_slice_t *a, const dra_slice_t *b)
{
    if (a->all_nodes != b->all_nodes || a->node_selector != b->node_selector ||
        a->per_device_node_selection != b->per_device_node_selection)
        return false;
    return strcmp(nz(a->node_name), nz(b->node_name)) == 0;
}

static bool set_has(const dra_counter_set_t *cs, const dra_consumes_t *cc)
{
    for (uint32_t k = 0; k < cc->ncounters; k++) {
        bool found = false;
        for (uint32_t j = 0; j < cs->ncounters && !found; j++)
            found = strcmp(nz(cs->counters[j].name), nz(cc->counters[k].name)) == 0;
        if (!found)
            return false;
    }
    return true;
}

static bool slice_defines(const dra_slice_t *s, const dra_consumes_t *cc)
{
    for (uint32_t j = 0; j < s->ncounter_sets; j++)
        if (strcmp(nz(s->counter_sets[j].name), nz(cc->counter_set)) == 0)
            return set_has(&s->counter_sets[j], cc);
    return false;
}

static int cmp_str(const void *a, const void *b)
{
    return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* A pool (its slices sl[0..n)) that pool gathering might find invalid or incomplete on some node
 * (a superset of the conditions of core/alloc/pools.c). */
static bool pool_suspect(const dra_engine_t *e, const dra_slice_t *const *sl, uint32_t n)
{
    for (uint32_t i = 0; i < n; i++)
        if (sl[i]->generation != sl[0]->generation || sl[i]->slice_count != (int64_t)n)
            return true;
    /* duplicate device names: sort the names, compare neighbours (O(d log d) per pool) */
    size_t nd = 0;
    for (uint32_t i = 0; i < n; i++)
        nd += sl[i]->ndevices;
    const char **names = malloc((nd + 1) * sizeof *names);
    if (!names)
        return true; /* cannot check: treat as a hazard (conservative) */
    nd = 0;
    for (uint32_t i = 0; i < n; i++)
        for (uint32_t d = 0; d < sl[i]->ndevices; d++)
            names[nd++] = nz(sl[i]->devices[d].name);
    qsort((void *)names, nd, sizeof *names, cmp_str);
    bool dup = false;
    for (size_t i = 1; i < nd && !dup; i++)
        dup = strcmp(names[i - 1], names[i]) == 0;
    free(names);
    if (dup)
        return true;
    if (!e->beh.pd) /* counter sets are validated (and gathered) only with the feature on */
        return false;
    for (uint32_t i = 0; i < n; i++)
        for (uint32_t k = 0; k < sl[i]->ncounter_sets; k++)
            for (uint32_t j = 0; j <= i; j++) {
                uint32_t lim = j == i ? k : sl[j]->ncounter_sets;
                for (uint32_t x = 0; x < lim; x++)
                    if (strcmp(nz(sl[i]->counter_sets[k].name), nz(sl[j]->counter_sets[x].name)) == 0)
                        return true;
            }
    for (uint32_t i = 0; i < n; i++)
        for (uint32_t d = 0; d < sl[i]->ndevices; d++) {
            const dra_device_t *dev = &sl[i]->devices[d];
            for (uint32_t c = 0; c < dev->nconsumes; c++) {
                const dra_consumes_t *cc = &dev->consumes[c];
                bool found = false;
                if (e->beh.pool_counters) {
                    for (uint32_t j = 0; j < n && !found; j++)
                        found = (j == i || same_scope(sl[i], sl[j])) && slice_defines(sl[j], cc);
                } else {
                    found = slice_defines(sl[i], cc);
                }
                if (!found)
                    return true;
            }
        }
    return false;
}

/* Whether GatherPools gathers slice s wherever a node sees it at all (DRA-SEMANTICS 2.3,
 * core/alloc/pools.c): without DRAPartitionableDevices a slice with counter sets or with
 * per-device node selection is skipped on every node, whatever it names. */
static bool slice_gathered(const dra_engine_t *e, const dra_slice_t *s)
{
    return e->beh.pd || (!s->per_device_node_selection && s->ncounter_sets == 0);
}

/* Whether every node that gathers some slice of the pool (its slices sl[0..n), not suspect)
 * gathers all of them, so that an allocationMode All request never finds it incomplete there
 * (DRA-SEMANTICS 2.4 step 3: NodeFailure, Fatal in the snapshot). Certain only when every slice
 * names one node, or every one is for all nodes, and GatherPools skips none of them by itself:
 * in 1.34 (no completeness re-check) a pool whose counter-set slice is skipped with
 * DRAPartitionableDevices off is incomplete on its node while its devices' slice is gathered.
 * From 1.35 on the re-check counts every model slice of the generation, so a pool that is not
 * suspect (one generation, its slice count) is complete wherever it is gathered; the shape
 * condition is kept there too (conservative: it only keeps All plans with brute force). */
static bool pool_whole_everywhere(const dra_engine_t *e, const dra_slice_t *const *sl, uint32_t n)
{
    bool one_node = true, all_nodes = true, gathered = true;
    for (uint32_t k = 0; k < n; k++) {
        const dra_slice_t *a = sl[k];
        bool named = a->node_name && a->node_name[0];
        one_node &= named && strcmp(a->node_name, nz(sl[0]->node_name)) == 0;
        all_nodes &= !named && a->all_nodes && !a->node_selector && !a->per_device_node_selection;
        gathered &= slice_gathered(e, a);
    }
    return (one_node || all_nodes) && (gathered || e->beh.strict_pools);
}

static int cmp_slice_pool(const void *a, const void *b)
{
    const dra_slice_t *x = *(const dra_slice_t *const *)a, *y = *(const dra_slice_t *const *)b;
    int c = strcmp(nz(x->driver), nz(y->driver));
    return c ? c : strcmp(nz(x->pool_name), nz(y->pool_name));
}

static void mark_node_name(dra_engine_t *e, const char *name)
{
    for (uint32_t i = 0; i < e->nnodes; i++)
        if (!e->hz[i] && strcmp(nz(e->m->nodes[i]->name), nz(name)) == 0) {
            e->hz[i] = 1;
            e->nhazard++;
        }
}

static void mark_all(dra_engine_t *e)
{
    for (uint32_t i = 0; i < e->nnodes; i++)
        if (!e->hz[i]) {
            e->hz[i] = 1;
            e->nhazard++;
        }
}

static void selector_check(dra_engine_t *e, const char *node_name, bool all_nodes,
                           const dra_node_selector_t *sel, const dra_node_selector_t **seen,
                           uint32_t *nseen)
{
    if (!sel)
        return;
    /* slices of one pool share their selector: evaluate each distinct one once */
    for (uint32_t i = 0; i < *nseen; i++)
        if (seen[i] == sel)
            return;
    if (*nseen < 1024)
        seen[(*nseen)++] = sel;
    if (sel->nterms > 1)
        e->multiterm = true;
    char err[256];
    for (uint32_t i = 0; i < e->nnodes; i++) {
        bool mt;
        if (!e->hz[i] &&
            dra__node_matches(e->m->nodes[i], node_name, all_nodes, sel, &mt, err, sizeof err)) {
            e->hz[i] = 1;
            e->nhazard++;
        }
    }
}

static int hazards(dra_engine_t *e)
{
    const dra_model_t *m = e->m;
    const dra_slice_t **sl = malloc((m->nslices + 1) * sizeof *sl);
    if (!sl)
        return DRA_ENOMEM;
    for (uint32_t i = 0; i < m->nslices; i++)
        sl[i] = m->slices[i];
    qsort((void *)sl, m->nslices, sizeof *sl, cmp_slice_pool);
    for (uint32_t i = 0; i < m->nslices;) {
        uint32_t j = i + 1;
        while (j < m->nslices && cmp_slice_pool(&sl[i], &sl[j]) == 0)
            j++;
        bool suspect = pool_suspect(e, sl + i, j - i);
        if (suspect || !pool_whole_everywhere(e, sl + i, j - i)) {
            bool named = true;
            for (uint32_t k = i; k < j && named; k++)
                named = sl[k]->node_name && sl[k]->node_name[0];
            for (uint32_t k = i; k < j; k++)
                for (uint32_t n = 0; n < e->nnodes; n++)
                    if (!e->ahz[n] &&
                        (!named || strcmp(nz(e->m->nodes[n]->name), sl[k]->node_name) == 0)) {
                        e->ahz[n] = 1;
                        e->nahz++;
                    }
        }
        if (suspect) {
            bool node_scoped = true;
            for (uint32_t k = i; k < j; k++)
                if (!sl[k]->node_name || !sl[k]->node_name[0] || sl[k]->ncounter_sets)
                    node_scoped = false;
            if (node_scoped) {
                for (uint32_t k = i; k < j; k++)
                    mark_node_name(e, sl[k]->node_name);
            } else {
                mark_all(e);
            }
        }
        i = j;
    }
    free(sl);
    const dra_node_selector_t **seen = malloc(1024 * sizeof *seen);
    uint32_t nseen = 0;
    if (!seen)
        return DRA_ENOMEM;
    for (uint32_t i = 0; i < m->nslices && e->nhazard < e->nnodes; i++) {
        const dra_slice_t *s = m->slices[i];
        if (s->node_selector && !(s->node_name && s->node_name[0]))
            selector_check(e, s->node_name, s->all_nodes, s->node_selector, seen, &nseen);
        if (s->per_device_node_selection)
            for (uint32_t d = 0; d < s->ndevices; d++)
                selector_check(e, s->devices[d].node_name, s->devices[d].all_nodes,
                               s->devices[d].node_selector, seen, &nseen);
    }
    free(seen);
    /* multi-term selectors also matter when every node is already a hazard (best-fit / spread) */
    for (uint32_t i = 0; i < m->nslices && !e->multiterm; i++) {
        const dra_slice_t *s = m->slices[i];
        if (s->node_selector && s->node_selector->nterms > 1)
            e->multiterm = true;
        for (uint32_t d = 0; d < s->ndevices; d++)
            if (s->devices[d].node_selector && s->devices[d].node_selector->nterms > 1)
                e->multiterm = true;
    }
    return DRA_OK;
}

/* ---- counters -------------------------------------------------------------------------------- */

typedef struct setkey {
    const char *driver, *pool;
    const dra_counter_set_t *def;
} setkey_t;

static uint64_t set_hash(const char *driver, const char *pool, const char *name)
{
    return key_hash(driver, pool, name);
}

/* Set id of (driver, pool, name), NONE when no slice of the pool defines it. */
static uint32_t set_find(const setkey_t *keys, const uint32_t *slots, uint32_t nslots,
                         const char *driver, const char *pool, const char *name)
{
    uint32_t mask = nslots - 1;
    for (uint32_t i = (uint32_t)set_hash(driver, pool, name) & mask; slots[i]; i = (i + 1) & mask) {
        const setkey_t *k = &keys[slots[i] - 1];
        if (!strcmp(k->def->name ? k->def->name : "", name) && !strcmp(k->pool, pool) &&
            !strcmp(k->driver, driver))
            return slots[i] - 1;
    }
    return NONE;
}

/* Index of amount a in e->amts (added when new): h is an open-addressing hash of indexes + 1
 * with cap slots (a power of two, never more than half full). */
static uint32_t amt_index(dra_engine_t *e, uint32_t *h, uint32_t cap, dra__aq_t a)
{
    uint64_t lo = (uint64_t)a, hi = (uint64_t)((dra__uaq_t)a >> 64);
    uint64_t x = (lo ^ (hi * 0x9e3779b97f4a7c15ULL)) * 0xff51afd7ed558ccdULL;
    uint32_t i = (uint32_t)(x >> 32) & (cap - 1);
    for (; h[i]; i = (i + 1) & (cap - 1))
        if (e->amts[h[i] - 1] == a)
            return h[i] - 1;
    e->amts[e->namts] = a;
    h[i] = ++e->namts;
    return e->namts - 1;
}

/* The counter sets while building: keys[] in set-id order, slots an open-addressing hash of
 * set ids + 1 with nslots slots (a power of two). */
typedef struct setdict {
    setkey_t *keys;
    uint32_t *slots, nslots;
} setdict_t;

/* Collects the sets, the first definition of each (driver, pool, name) (a pool defining a name
 * twice is a hazard pool, see pool_suspect); returns how many counters they hold. */
static uint32_t counters_sets(dra_engine_t *e, setdict_t *sd)
{
    const dra_model_t *m = e->m;
    uint32_t nctr = 0;
    for (uint32_t i = 0; i < m->nslices; i++) {
        const dra_slice_t *s = m->slices[i];
        for (uint32_t j = 0; j < s->ncounter_sets; j++) {
            const char *drv = nz(s->driver), *pool = nz(s->pool_name);
            const char *nm = nz(s->counter_sets[j].name);
            if (set_find(sd->keys, sd->slots, sd->nslots, drv, pool, nm) != NONE)
                continue;
            sd->keys[e->nsets].driver = drv;
            sd->keys[e->nsets].pool = pool;
            sd->keys[e->nsets].def = &s->counter_sets[j];
            uint32_t x = (uint32_t)set_hash(drv, pool, nm) & (sd->nslots - 1);
            while (sd->slots[x])
                x = (x + 1) & (sd->nslots - 1);
            sd->slots[x] = ++e->nsets;
            nctr += s->counter_sets[j].ncounters;
        }
    }
    return nctr;
}

/* Allocates the per-set, per-counter and per-row arrays and fills the counters' capacities. */
static int counters_alloc(dra_engine_t *e, const setdict_t *sd, uint32_t nctr)
{
    const dra_table_t *t = e->t;
    e->nctrs = nctr;
    e->set_ctr0 = calloc(e->nsets + 1, sizeof *e->set_ctr0);
    e->set_nctr = calloc(e->nsets + 1, sizeof *e->set_nctr);
    e->crem = calloc(nctr + 1, sizeof *e->crem);
    e->ctr_set = calloc(nctr + 1, sizeof *e->ctr_set);
    e->rc_pat = malloc(((size_t)t->nrows + 1) * sizeof *e->rc_pat);
    e->rc_base = calloc((size_t)t->nrows + 1, sizeof *e->rc_base);
    e->sr_off = calloc(e->nsets + 1, sizeof *e->sr_off);
    e->sr_n = calloc(e->nsets + 1, sizeof *e->sr_n);
    if (!e->set_ctr0 || !e->set_nctr || !e->crem || !e->ctr_set || !e->rc_pat || !e->rc_base ||
        !e->sr_off || !e->sr_n)
        return DRA_ENOMEM;
    for (uint32_t r = 0; r <= t->nrows; r++)
        e->rc_pat[r] = NONE;
    for (uint32_t i = 0, c = 0; i < e->nsets; i++) {
        e->set_ctr0[i] = c;
        e->set_nctr[i] = sd->keys[i].def->ncounters;
        for (uint32_t k = 0; k < sd->keys[i].def->ncounters; k++) {
            e->ctr_set[c] = i;
            e->crem[c++] = dra__aq_from(&sd->keys[i].def->counters[k].value);
        }
    }
    return DRA_OK;
}

/* Counts (and on the second pass stores, interning amounts in the dictionary ah of acap slots)
 * row r's entries from *nent on; a reference that does not resolve leaves the row without any. */
static void row_entries(dra_engine_t *e, const setdict_t *sd, uint32_t r, bool pass, uint32_t *ah,
                        uint32_t acap, uint32_t *nent, uint32_t *ent_ctr, uint32_t *ent_amt)
{
    const dra_table_t *t = e->t;
    const dra_device_t *d = t->dev[r];
    if (!(t->flags[r] & DRA_ROW_CONSUMES) || !d->nconsumes)
        return;
    uint32_t n = *nent;
    for (uint32_t c = 0; c < d->nconsumes; c++) {
        const dra_consumes_t *cc = &d->consumes[c];
        uint32_t st = set_find(sd->keys, sd->slots, sd->nslots, row_driver(e, r), row_pool(e, r),
                               nz(cc->counter_set));
        if (st == NONE)
            return;
        for (uint32_t k = 0; k < cc->ncounters; k++) {
            uint32_t ci = NONE;
            for (uint32_t x = 0; x < e->set_nctr[st] && ci == NONE; x++)
                if (!strcmp(nz(sd->keys[st].def->counters[x].name), nz(cc->counters[k].name)))
                    ci = e->set_ctr0[st] + x;
            if (ci == NONE)
                return;
            if (pass) {
                ent_ctr[n] = ci;
                ent_amt[n] = amt_index(e, ah, acap, dra__aq_from(&cc->counters[k].value));
            }
            n++;
        }
    }
    *nent = n;
}

/* The pattern of entries [b, end) of the raw arrays (counter offsets from ctr[b], amounts),
 * added to the patterns when new; h is an open-addressing hash of pattern ids + 1 with hcap
 * slots (a power of two, at most half full). NONE: out of memory. */
static uint32_t pattern_of(dra_engine_t *e, uint32_t *h, uint32_t hcap, uint32_t *pcap,
                           const uint32_t *ctr, const uint32_t *amt, uint32_t b, uint32_t end)
{
    uint64_t x = 0x9e3779b97f4a7c15ULL * (end - b + 1);
    for (uint32_t i = b; i < end; i++)
        x = (x ^ ((uint64_t)(ctr[i] - ctr[b]) << 32 | amt[i])) * 0xff51afd7ed558ccdULL;
    uint32_t j = (uint32_t)(x >> 32) & (hcap - 1);
    for (; h[j]; j = (j + 1) & (hcap - 1)) {
        uint32_t p = h[j] - 1, pb = e->pat_off[p];
        if (e->pat_off[p + 1] - pb != end - b)
            continue;
        bool same = true;
        for (uint32_t i = 0; i < end - b && same; i++)
            same = e->pat_d[pb + i] == (int32_t)(ctr[b + i] - ctr[b]) && e->pat_a[pb + i] == amt[b + i];
        if (same)
            return p;
    }
    uint32_t at = e->pat_off[e->npats], need = at + (end - b);
    if (need > *pcap) {
        uint32_t nc = *pcap * 2 > need ? *pcap * 2 : need;
        int32_t *nd = realloc(e->pat_d, (size_t)nc * sizeof *nd);
        if (nd)
            e->pat_d = nd;
        uint32_t *na = realloc(e->pat_a, (size_t)nc * sizeof *na);
        if (na)
            e->pat_a = na;
        if (!nd || !na)
            return NONE;
        *pcap = nc;
    }
    for (uint32_t i = b; i < end; i++) {
        e->pat_d[at + i - b] = (int32_t)(ctr[i] - ctr[b]);
        e->pat_a[at + i - b] = amt[i];
    }
    e->pat_off[++e->npats] = need;
    h[j] = e->npats;
    return e->npats - 1;
}

/* Entries per row: every (set, counter) it consumes, counted, then stored with their amounts
 * interned in e->amts, then folded into shared patterns (rc_pat, rc_base). */
static int counters_entries(dra_engine_t *e, const setdict_t *sd)
{
    const dra_table_t *t = e->t;
    uint32_t *ah = NULL, acap = 0; /* the amounts' dictionary while building */
    uint32_t nent = 0, *off = NULL, *ctr = NULL, *amt = NULL, *ph = NULL;
    int rc = DRA_ENOMEM;
    for (int pass = 0; pass < 2; pass++) {
        nent = 0;
        for (uint32_t r = 0; r < t->nrows; r++) {
            if (pass)
                off[r] = nent;
            row_entries(e, sd, r, pass, ah, acap, &nent, ctr, amt);
        }
        if (pass) {
            off[t->nrows] = nent;
        } else {
            /* the amounts' dictionary: an open-addressing hash of indexes + 1, at most half full */
            acap = 16;
            while (acap < 2 * (uint64_t)nent + 2)
                acap *= 2;
            ah = calloc(acap, sizeof *ah);
            off = calloc((size_t)t->nrows + 1, sizeof *off);
            ctr = calloc(nent + 1, sizeof *ctr);
            amt = calloc(nent + 1, sizeof *amt);
            e->amts = calloc(nent + 1, sizeof *e->amts);
            if (!ah || !off || !ctr || !amt || !e->amts)
                goto out;
        }
    }
    { /* the dictionary was sized for one amount per entry: keep what it holds */
        dra__aq_t *na = realloc(e->amts, ((size_t)e->namts + 1) * sizeof *na);
        if (na)
            e->amts = na;
    }
    /* patterns: at most one per consuming row */
    uint32_t ncons = 0, hcap = 16, pcap = 64;
    for (uint32_t r = 0; r < t->nrows; r++)
        ncons += off[r] < off[r + 1];
    while (hcap < 2 * (uint64_t)ncons + 2)
        hcap *= 2;
    ph = calloc(hcap, sizeof *ph);
    e->pat_off = calloc((size_t)ncons + 2, sizeof *e->pat_off);
    e->pat_d = malloc(pcap * sizeof *e->pat_d);
    e->pat_a = malloc(pcap * sizeof *e->pat_a);
    if (!ph || !e->pat_off || !e->pat_d || !e->pat_a)
        goto out;
    for (uint32_t r = 0; r < t->nrows; r++) {
        if (off[r] == off[r + 1])
            continue;
        uint32_t p = pattern_of(e, ph, hcap, &pcap, ctr, amt, off[r], off[r + 1]);
        if (p == NONE)
            goto out;
        e->rc_pat[r] = p;
        e->rc_base[r] = ctr[off[r]];
    }
    { /* sized for one pattern per consuming row: keep what they hold */
        uint32_t *no = realloc(e->pat_off, ((size_t)e->npats + 1) * sizeof *no);
        if (no)
            e->pat_off = no;
    }
    rc = DRA_OK;
out:
    free(ah);
    free(off);
    free(ctr);
    free(amt);
    free(ph);
    return rc;
}

/* Lists the consuming rows per set (a row listed once per set): counted, then stored. */
static int counters_set_rows(dra_engine_t *e)
{
    const dra_table_t *t = e->t;
    for (int pass = 0; pass < 2; pass++) {
        uint32_t tot = 0;
        if (pass) {
            for (uint32_t i = 0; i < e->nsets; i++) {
                e->sr_off[i] = tot;
                tot += e->sr_n[i];
                e->sr_n[i] = 0;
            }
            e->srows = calloc(tot + 1, sizeof *e->srows);
            if (!e->srows)
                return DRA_ENOMEM;
        }
        for (uint32_t r = 0; r < t->nrows; r++)
            for (uint32_t i = dra__ent_b(e, r); i < dra__ent_e(e, r); i++) {
                uint32_t st = e->ctr_set[dra__ent_ctr(e, r, i)];
                bool dup = false;
                for (uint32_t j = dra__ent_b(e, r); j < i && !dup; j++)
                    dup = e->ctr_set[dra__ent_ctr(e, r, j)] == st;
                if (dup)
                    continue;
                if (pass)
                    e->srows[e->sr_off[st] + e->sr_n[st]] = r;
                e->sr_n[st]++;
            }
    }
    return DRA_OK;
}

/* Adds the consumption of the devices already in use to the counters. */
static void counters_in_use(dra_engine_t *e)
{
    const dra_table_t *t = e->t;
    for (uint32_t r = 0; r < t->nrows; r++)
        if (e->use[r])
            for (uint32_t i = dra__ent_b(e, r); i < dra__ent_e(e, r); i++)
                e->crem[dra__ent_ctr(e, r, i)] -= dra__ent_amt(e, i);
    for (uint32_t c = 0; c < e->nctrs; c++)
        e->nneg += e->crem[c] < 0;
}

static int counters_setup(dra_engine_t *e)
{
    const dra_model_t *m = e->m;
    const dra_table_t *t = e->t;
    if (!e->beh.pd)
        return DRA_OK;
    uint32_t nkeys = 0;
    for (uint32_t i = 0; i < m->nslices; i++)
        nkeys += m->slices[i]->ncounter_sets;
    bool any = false;
    for (uint32_t r = 0; r < t->nrows && !any; r++)
        any = (t->flags[r] & DRA_ROW_CONSUMES) != 0;
    if (!nkeys || !any)
        return DRA_OK;
    setdict_t sd = {.nslots = 16};
    while (sd.nslots < 2 * (uint64_t)nkeys + 16)
        sd.nslots *= 2;
    sd.keys = calloc(nkeys, sizeof *sd.keys);
    sd.slots = calloc(sd.nslots, sizeof *sd.slots);
    int rc = DRA_ENOMEM;
    if (sd.keys && sd.slots && !(rc = counters_alloc(e, &sd, counters_sets(e, &sd))) &&
        !(rc = counters_entries(e, &sd)) && !(rc = counters_set_rows(e)))
        counters_in_use(e);
    free(sd.keys);
    free(sd.slots);
    return rc;
}

/* ---- set-up ---------------------------------------------------------------------------------- */

int dra_engine_quantity_units(const char *s, int32_t scale, int64_t *out)
{
    dra_quantity_t q;
    dra_diag_t d;
    memset(&d, 0, sizeof d);
    if (!s || !out || dra_quantity_parse(s, strlen(s), &q, &d) != DRA_OK || q.neg)
        return DRA_EINVAL;
    /* exact at the unit, else at up to 18 finer digits, rounded up */
    int64_t v, div = 1;
    for (int k = 0; k <= 18; k++, div *= 10) {
        if (dra_quantity_to_fixed(&q, &v, scale - k)) {
            *out = v / div + (v % div != 0);
            return DRA_OK;
        }
        if (k == 18)
            break;
    }
    return DRA_EINVAL;
}

/* ---- node resources -------------------------------------------------------------------------- */

/* Quantity text -> units of 10^scale, rounded up (kube's MilliValue / Value); -1 when absent. */
static int res_parse(const char *s, int32_t scale, int64_t *out)
{
    *out = -1;
    return s ? dra_engine_quantity_units(s, scale, out) : DRA_OK;
}

static int res_setup(dra_engine_t *e, dra_diag_t *diag)
{
    size_t n = (size_t)e->nnodes + 1;
    e->cpu_cap = calloc(n, sizeof *e->cpu_cap);
    e->mem_cap = calloc(n, sizeof *e->mem_cap);
    e->cpu_used = calloc(n, sizeof *e->cpu_used);
    e->mem_used = calloc(n, sizeof *e->mem_used);
    if (!e->cpu_cap || !e->mem_cap || !e->cpu_used || !e->mem_used)
        return DRA_ENOMEM;
    for (uint32_t i = 0; i < e->nnodes; i++) {
        const dra_node_t *nd = e->m->nodes[i];
        const char *bad = NULL;
        if (res_parse(nd->alloc_cpu, -3, &e->cpu_cap[i]) != DRA_OK)
            bad = "cpu";
        else if (res_parse(nd->alloc_memory, 0, &e->mem_cap[i]) != DRA_OK)
            bad = "memory";
        if (bad) {
            if (diag)
                dra_diag_set(diag, DRA_EINVAL, NULL, 0, 0,
                             "engine set-up: node %s: allocatable %s \"%s\" is not a "
                             "non-negative quantity", nz(nd->name), bad,
                             bad[0] == 'c' ? nd->alloc_cpu : nd->alloc_memory);
            return DRA_EINVAL;
        }
    }
    return DRA_OK;
}

/* Whether node n has the plan's cpu and memory left (no request, or no allocatable: true). */
static bool res_fits(const dra_engine_t *e, const plan_t *p, uint32_t n)
{
    if (p->cpu_m && e->cpu_cap[n] >= 0 && p->cpu_m > e->cpu_cap[n] - e->cpu_used[n])
        return false;
    if (p->mem_b && e->mem_cap[n] >= 0 && p->mem_b > e->mem_cap[n] - e->mem_used[n])
        return false;
    return true;
}

int dra_engine_plan_resources(dra_engine_t *e, uint32_t plan, int64_t cpu_milli,
                              int64_t memory_bytes)
{
    if (!e || plan >= e->nplans || cpu_milli < 0 || memory_bytes < 0)
        return DRA_EINVAL;
    e->plans[plan].cpu_m = cpu_milli;
    e->plans[plan].mem_b = memory_bytes;
    return DRA_OK;
}

void dra_engine_res_short(const dra_engine_t *e, uint32_t plan, uint32_t *cpu, uint32_t *memory)
{
    *cpu = *memory = 0;
    if (!e || plan >= e->nplans)
        return;
    const plan_t *p = &e->plans[plan];
    for (uint32_t n = 0; n < e->nnodes; n++) {
        if (p->cpu_m && e->cpu_cap[n] >= 0 && p->cpu_m > e->cpu_cap[n] - e->cpu_used[n])
            (*cpu)++;
        if (p->mem_b && e->mem_cap[n] >= 0 && p->mem_b > e->mem_cap[n] - e->mem_used[n])
            (*memory)++;
    }
}

void dra_engine_node_resources(const dra_engine_t *e, uint32_t node, int64_t out[4])
{
    out[0] = out[1] = -1;
    out[2] = out[3] = 0;
    if (!e || node >= e->nnodes)
        return;
    out[0] = e->cpu_cap[node];
    out[1] = e->mem_cap[node];
    out[2] = e->cpu_used[node];
    out[3] = e->mem_used[node];
}

int dra_engine_new(const dra_model_t *m, const dra_table_t *t, const dra_alloc_features_t *f,
                   dra_alloc_state_t *state, dra_cel_cache_t *cel, dra_anyalloc_t *alloc,
                   const dra_engine_opts_t *opts, dra_engine_t **out, dra_diag_t *diag)
{
    if (!m || !t || !f || !state || !cel || !alloc || !out)
        return DRA_EINVAL;
    *out = NULL;
    dra_engine_t *e = calloc(1, sizeof *e);
    if (!e)
        return DRA_ENOMEM;
    e->m = m;
    e->t = t;
    e->feat = *f;
    dra__beh_init(&e->beh, f);
    e->state = state;
    e->cel = cel;
    e->alloc = alloc;
    if (opts)
        e->opts = *opts;
    dra_arena_init(&e->arena, 0);
    dra_arena_init(&e->scratch, 0);
    dra_arena_init(&e->spare, 16 * 1024);
    e->nnodes = m->nnodes;
    e->P = 1;
    while (e->P < e->nnodes)
        e->P *= 2;
    int rc = DRA_ENOMEM;
    e->tnode = calloc((size_t)e->nnodes + 1, sizeof *e->tnode);
    e->mnode = malloc(((size_t)t->nnodes + 1) * sizeof *e->mnode);
    e->hz = calloc((size_t)e->nnodes + 1, 1);
    e->ahz = calloc((size_t)e->nnodes + 1, 1);
    e->use = calloc((size_t)t->nrows + 1, sizeof *e->use);
    e->rowsigs = calloc((size_t)t->nrows + 1, sizeof *e->rowsigs);
    e->score = calloc((size_t)e->nnodes + 1, sizeof *e->score);
    e->tried = calloc((size_t)e->nnodes + 1, sizeof *e->tried);
    if (!e->tnode || !e->mnode || !e->hz || !e->ahz || !e->use || !e->rowsigs || !e->score ||
        !e->tried)
        goto fail;
    for (uint32_t i = 0; i <= t->nnodes; i++)
        e->mnode[i] = NONE;
    uint32_t maxrange = 0;
    for (uint32_t i = 0; i < e->nnodes; i++) {
        uint32_t tn = dra_table_node_index(t, nz(m->nodes[i]->name));
        e->tnode[i] = tn;
        if (tn == NONE)
            continue;
        const dra_table_node_t *nd = &t->nodes[tn];
        if (e->mnode[tn] != NONE && nd->end > nd->begin)
            e->all_brute = true; /* two model nodes share a name */
        e->mnode[tn] = i;
        if (nd->end - nd->begin > maxrange)
            maxrange = nd->end - nd->begin;
    }
    if ((rc = hash_build(e)))
        goto fail;
    for (uint32_t r = 0; r < t->nrows; r++) {
        e->use[r] = dra_alloc_state_exclusive(state, row_driver(e, r), row_pool(e, r),
                                              row_device(e, r));
        if (dra__row_multi(e, r)) /* as commit counts them (dra_engine_check) */
            e->use[r] += dra_alloc_state_shares(state, row_driver(e, r), row_pool(e, r),
                                                row_device(e, r));
    }
    if ((rc = hazards(e)) || (rc = counters_setup(e)))
        goto fail;
    if ((rc = res_setup(e, diag))) {
        if (rc == DRA_EINVAL) {
            dra_engine_free(e);
            return rc;
        }
        goto fail;
    }
    e->avb = calloc(dra_bitset_words(t->nrows_padded) + 1, sizeof *e->avb);
    e->amem = calloc(dra_bitset_words(t->nrows_padded) + 1, sizeof *e->amem);
    e->bk = calloc(dra_bitset_words(t->nrows_padded) + 1, sizeof *e->bk);
    rc = DRA_ENOMEM;
    if (!e->avb || !e->amem || !e->bk)
        goto fail;
    /* capacity consumed by the shares of multi-allocatable devices (capacity signatures) */
    size_t ncx = 0;
    for (uint32_t r = 0; e->beh.cc && r < t->nrows; r++)
        if (t->dev[r] && t->dev[r]->ncaps && dra__row_multi(e, r))
            ncx += t->dev[r]->ncaps;
    if (ncx) {
        e->cx_off = malloc(((size_t)t->nrows + 1) * sizeof *e->cx_off);
        e->cx = calloc(ncx, sizeof *e->cx);
        if (!e->cx_off || !e->cx)
            goto fail;
        ncx = 0;
        for (uint32_t r = 0; r < t->nrows; r++) {
            const dra_device_t *d = t->dev[r];
            e->cx_off[r] = NONE;
            if (!d || !d->ncaps || !dra__row_multi(e, r))
                continue;
            e->cx_off[r] = (uint32_t)ncx;
            for (uint32_t c = 0; c < d->ncaps; c++)
                if (!dra__alloc_state_cap_aq(state, row_driver(e, r), row_pool(e, r),
                                            row_device(e, r), d->caps[c].name, &e->cx[ncx + c]))
                    e->cx[ncx + c] = 0;
            ncx += d->ncaps;
        }
    }
    dra_exact_request_t nocap;
    memset(&nocap, 0, sizeof nocap);
    for (uint32_t r = 0; r < t->nrows; r++) {
        dra_bit_assign(e->avb, r, row_avail(e, r));
        /* the set also requires: no binding conditions unless the feature is on; with
         * DRAConsumableCapacity, the static capacity check of a request without capacity (the
         * snapshot's also subtracts capacity in use: devices with capacities are left out) */
        const dra_device_t *d = t->dev[r];
        dra_bit_assign(e->amem, r, d && !(!e->beh.binding && (t->flags[r] & DRA_ROW_BINDING)) &&
                     !(e->beh.cc && d->ncaps > 0 &&
                       (e->beh.bugs || dra__cap_fits(&nocap, d, NULL, NULL, false) != 1)));
    }
    if ((rc = dra__direct_setup(e)))
        goto fail;
    rc = DRA_ENOMEM;
    /* buckets: scores up to the largest node range plus the shared range, one overflow bucket */
    uint64_t nb = (uint64_t)maxrange + (t->nrows - t->shared_begin) + 2;
    e->nbuckets = (uint32_t)(nb > 4096 ? 4096 : nb);
    e->W = (e->nnodes + 63) / 64 + 1;
    e->W2 = (e->W + 63) / 64 + 1;
    e->bbits = calloc((size_t)e->nbuckets * e->W, sizeof *e->bbits);
    e->bsum = calloc((size_t)e->nbuckets * e->W2, sizeof *e->bsum);
    e->bcount = calloc(e->nbuckets, sizeof *e->bcount);
    rc = DRA_ENOMEM;
    if (!e->bbits || !e->bsum || !e->bcount)
        goto fail;
    /* the buckets are filled on the first placement that reads them (buckets_sync) */
    /* warm the spare arena outside timed regions */
    if (!dra_arena_alloc(&e->spare, 1, 1))
        goto fail;
    dra_arena_reset(&e->spare);
    *out = e;
    return DRA_OK;
fail:
    if (diag)
        dra_diag_set(diag, rc, NULL, 0, 0, "engine set-up: %s", dra_strerror(rc));
    dra_engine_free(e);
    return rc;
}

void dra_engine_free(dra_engine_t *e)
{
    if (!e)
        return;
    if (e->upd_init)
        dra_arena_fini(&e->upd_arena);
    for (uint32_t i = 0; i < e->nplans; i++) {
        free(e->plans[i].claims);
        free(e->plans[i].reqs);
        free(e->plans[i].alts);
        free(e->plans[i].errn);
    }
    free(e->plans);
    free(e->sigs);
    free(e->tnode);
    free(e->mnode);
    free(e->rowsigs);
    free(e->slice_row0);
    free(e->hz);
    free(e->ahz);
    free(e->use);
    free(e->avb);
    free(e->nrange);
    dra_arena_fini(&e->vscratch);
    free(e->amem);
    free(e->bk);
    free(e->cx_off);
    free(e->cx);
    free(e->set_ctr0);
    free(e->set_nctr);
    free(e->set_def);
    free(e->crem);
    free(e->rc_pat);
    free(e->rc_base);
    free(e->pat_off);
    free(e->pat_d);
    free(e->pat_a);
    free(e->amts);
    free(e->ctr_set);
    free(e->sr_off);
    free(e->sr_n);
    free(e->srows);
    free(e->hslots);
    free(e->ord_row);
    free(e->score);
    free(e->tried);
    free(e->cpu_cap);
    free(e->mem_cap);
    free(e->cpu_used);
    free(e->mem_used);
    free(e->bbits);
    free(e->bsum);
    free(e->bcount);
    dra_arena_fini(&e->arena);
    dra_arena_fini(&e->scratch);
    dra_arena_fini(&e->spare);
    free(e);
}

/* ---- placement ------------------------------------------------------------------------------- */

static void res_init(dra_engine_result_t *out, dra_engine_path_t path)
{
    memset(out, 0, sizeof *out);
    out->kind = DRA_OUTCOME_UNSATISFIABLE;
    out->node = NONE;
    out->path = path;
}

static int64_t clk(const dra_engine_t *e)
{
    return e->opts.clock_ns ? e->opts.clock_ns() : 0;
}

static void add_stats(dra_alloc_stats_t *s, const dra_alloc_stats_t *x)
{
    s->allocate_one += x->allocate_one;
    s->cel_evals += x->cel_evals;
    s->candidates += x->candidates;
    s->pools += x->pools;
}

/* Run alloc on node n. Returns DRA_OK and sets *decided when the node decides (ALLOCATED into
 * arena, or FATAL); otherwise the arena is reset and *nf counts NodeFailure answers. */
static dra_engine_served_t served_by(const dra_anyalloc_t *alloc, uint32_t path)
{
    if (alloc->kind != DRA_ALLOC_FAST)
        return DRA_SERVED_REFERENCE;
    switch (path) {
    case DRA_FAST_PATH_FIRST:
        return DRA_SERVED_FAST_FIRST;
    case DRA_FAST_PATH_MATCH:
        return DRA_SERVED_FAST_MATCH;
    case DRA_FAST_PATH_COUNTERS:
        return DRA_SERVED_FAST_COUNTERS;
    case DRA_FAST_PATH_UNSAT:
        return DRA_SERVED_FAST_UNSAT;
    default:
        return DRA_SERVED_SEARCH;
    }
}

const char *dra_engine_served_name(dra_engine_served_t s)
{
    static const char *const names[DRA_SERVED_COUNT] = {
        "none",       "direct-first", "direct-match",  "direct-counters", "direct-shares",
        "search",     "fast-first",   "fast-match",    "fast-counters",   "fast-unsat",
        "reference"};
    return (unsigned)s < DRA_SERVED_COUNT ? names[s] : "?";
}

/* The engine's own answer on node n (direct.c), verified against the allocator when asked.
 * DRA_OK with *decided, DRA__DIRECT_FALLBACK when the allocator must answer, or an error. */
static int try_direct(dra_engine_t *e, const plan_t *p, uint32_t n, dra_arena_t *arena,
                      dra_engine_result_t *out, bool *decided)
{
    int64_t t0 = clk(e);
    int rc = dra__direct_try(e, p, n, arena, out, decided);
    int64_t t1 = clk(e);
    if (rc)
        return rc;
    out->direct_calls++;
    if (*decided)
        out->alloc_ns = t1 - t0;
    if (e->opts.verify_direct || DRA_DEBUG >= 3)
        rc = dra__direct_verify(e, p, n, *decided, out);
    return rc;
}

static int try_node(dra_engine_t *e, dra_anyalloc_t *alloc, const plan_t *p, uint32_t n,
                    dra_arena_t *arena, dra_engine_result_t *out, bool *decided, uint32_t *nf)
{
    dra_alloc_outcome_t o;
    if (alloc == e->alloc && dra__direct_applies(e, p, n)) {
        int rc = try_direct(e, p, n, arena, out, decided);
        if (rc != DRA__DIRECT_FALLBACK)
            return rc;
    }
    int64_t t0 = clk(e);
    int rc = dra_anyalloc_allocate(alloc, e->m->nodes[n], p->claims, p->nclaims, arena, &o);
    int64_t t1 = clk(e);
    *decided = false;
    if (rc)
        return rc;
    out->exact_calls++;
    add_stats(&out->stats, &o.stats);
    if (o.kind == DRA_OUTCOME_ALLOCATED || o.kind == DRA_OUTCOME_FATAL) {
        out->kind = o.kind;
        out->node = n;
        out->allocations = o.allocations;
        out->n = o.n;
        out->alloc_ns = t1 - t0;
        out->served = served_by(alloc, o.stats.path);
        memcpy(out->msg, o.msg, sizeof out->msg);
        *decided = true;
        return DRA_OK;
    }
    dra_arena_reset(arena);
    if (o.kind == DRA_OUTCOME_NODE_FAILURE) {
        if (!*nf)
            memcpy(out->msg, o.msg, sizeof out->msg);
        (*nf)++;
    }
    return DRA_OK;
}

static void finish_none(const dra_engine_t *e, dra_engine_result_t *out, uint32_t nf)
{
    out->node = NONE;
    out->allocations = NULL;
    out->n = 0;
    if (nf == e->nnodes && e->nnodes > 0) {
        out->kind = DRA_OUTCOME_NODE_FAILURE;
    } else {
        out->kind = DRA_OUTCOME_UNSATISFIABLE;
        out->msg[0] = 0;
    }
}

/* Nodes in order from `from` (inclusive) to `to` (exclusive), admitted ones only when idx. */
static int scan_range(dra_engine_t *e, dra_anyalloc_t *alloc, const plan_t *p, bool idx,
                      uint32_t from, uint32_t to, dra_arena_t *arena, dra_engine_result_t *out,
                      bool *decided, uint32_t *nf)
{
    *decided = false;
    uint32_t n = from;
    for (;;) {
        if (idx)
            n = plan_next(e, p, n);
        if (n == NONE || n >= to)
            return DRA_OK;
        if (!res_fits(e, p, n)) { /* NodeResourcesFit before devices */
            n++;
            continue;
        }
        int rc = try_node(e, alloc, p, n, arena, out, decided, nf);
        if (rc || *decided)
            return rc;
        n++;
    }
}

static int place_order(dra_engine_t *e, dra_anyalloc_t *alloc, const plan_t *p, bool idx,
                       uint32_t start, dra_arena_t *arena, dra_engine_result_t *out)
{
    uint32_t nf = 0;
    bool decided;
    if (start >= e->nnodes)
        start = 0;
    int rc = scan_range(e, alloc, p, idx, start, e->nnodes, arena, out, &decided, &nf);
    if (!rc && !decided && start > 0)
        rc = scan_range(e, alloc, p, idx, 0, start, arena, out, &decided, &nf);
    if (rc)
        return rc;
    if (!decided)
        finish_none(e, out, nf);
    return DRA_OK;
}

/* Best-fit / spread by score bucket over admitted nodes (no hazard: skipped and unadmitted
 * nodes are Unsatisfiable, so the first success in score order is the answer). */
static int place_buckets(dra_engine_t *e, const plan_t *p, bool most, dra_arena_t *arena,
                         dra_engine_result_t *out)
{
    uint32_t nf = 0;
    bool decided = false;
    uint32_t last = e->nbuckets - 1;
    for (uint32_t k = 0; k < e->nbuckets && !decided; k++) {
        uint32_t b = most ? last - k : k;
        if (!e->bcount[b])
            continue;
        if (b != last) {
            /* the bucket's admitted nodes in node order: leapfrog the bucket's bitset and the
             * index (plan_next), each jumping to the other's next position */
            for (uint32_t n = bucket_next(e, b, 0); n != NONE; n = bucket_next(e, b, n + 1)) {
                uint32_t m = plan_next(e, p, n);
                while (m != n && m != NONE) {
                    n = bucket_next(e, b, m);
                    if (n == NONE)
                        break;
                    m = plan_next(e, p, n);
                }
                if (m == NONE || n == NONE)
                    break;
                if (!res_fits(e, p, n))
                    continue;
                int rc = try_node(e, e->alloc, p, n, arena, out, &decided, &nf);
                if (rc)
                    return rc;
                if (decided)
                    break;
            }
            continue;
        }
        /* overflow bucket: exact scores, selection in (score, node) order */
        if (++e->epoch == 0) {
            memset(e->tried, 0, (size_t)e->nnodes * sizeof *e->tried);
            e->epoch = 1;
        }
        for (;;) {
            uint32_t pick = NONE;
            for (uint32_t n = bucket_next(e, b, 0); n != NONE; n = bucket_next(e, b, n + 1)) {
                if (e->tried[n] == e->epoch || !plan_admits(e, p, n) || !res_fits(e, p, n))
                    continue;
                if (pick == NONE || (most ? e->score[n] > e->score[pick] : e->score[n] < e->score[pick]))
                    pick = n;
            }
            if (pick == NONE)
                break;
            e->tried[pick] = e->epoch;
            int rc = try_node(e, e->alloc, p, pick, arena, out, &decided, &nf);
            if (rc)
                return rc;
            if (decided)
                break;
        }
    }
    if (!decided)
        finish_none(e, out, nf);
    return DRA_OK;
}

static int place_brute_best(dra_engine_t *e, dra_anyalloc_t *alloc, const plan_t *p, bool most,
                            dra_arena_t *arena, dra_engine_result_t *out)
{
    uint32_t nf = 0, best = NONE;
    for (uint32_t n = 0; n < e->nnodes; n++) {
        bool decided;
        if (!res_fits(e, p, n))
            continue;
        dra_arena_reset(&e->spare);
        int rc = try_node(e, alloc, p, n, &e->spare, out, &decided, &nf);
        if (rc)
            return rc;
        if (!decided)
            continue;
        if (out->kind == DRA_OUTCOME_FATAL) {
            out->allocations = NULL;
            out->n = 0;
            dra_arena_reset(&e->spare);
            return DRA_OK;
        }
        if (best == NONE || (most ? e->score[n] > e->score[best] : e->score[n] < e->score[best]))
            best = n;
    }
    dra_arena_reset(&e->spare);
    if (best == NONE) {
        finish_none(e, out, nf);
        return DRA_OK;
    }
    /* the chosen node once more, into the caller's arena (same state: same devices) */
    bool decided;
    uint32_t nf2 = 0;
    int rc = try_node(e, alloc, p, best, arena, out, &decided, &nf2);
    if (rc)
        return rc;
    if (!decided)
        return DRA_EINTERNAL;
    return DRA_OK;
}

int dra_engine_answer_on(dra_engine_t *e, uint32_t plan, uint32_t node, dra_arena_t *out_arena,
                         dra_engine_result_t *out)
{
    if (!e || plan >= e->nplans || node >= e->nnodes || !out_arena || !out)
        return DRA_EINVAL;
    res_init(out, DRA_ENGINE_PATH_INDEX);
    e->direct_now = e->direct_on && dra_fast_shortcuts(e->alloc->fast);
    bool decided = false;
    uint32_t nf = 0;
    int rc = try_node(e, e->alloc, &e->plans[plan], node, out_arena, out, &decided, &nf);
    if (rc || decided)
        return rc;
    out->node = NONE;
    out->allocations = NULL;
    out->n = 0;
    out->kind = nf ? DRA_OUTCOME_NODE_FAILURE : DRA_OUTCOME_UNSATISFIABLE;
    if (!nf)
        out->msg[0] = 0;
    return DRA_OK;
}

int dra_engine_place_reference(dra_engine_t *e, dra_anyalloc_t *alloc, uint32_t plan,
                               dra_engine_policy_t policy, uint32_t start,
                               dra_arena_t *out_arena, dra_engine_result_t *out)
{
    if (!e || !alloc || plan >= e->nplans || !out_arena || !out)
        return DRA_EINVAL;
    res_init(out, DRA_ENGINE_PATH_BRUTE);
    const plan_t *p = &e->plans[plan];
    e->direct_now = false; /* the allocator on node after node */
    switch (policy) {
    case DRA_ENGINE_FIRST_FIT:
        return place_order(e, alloc, p, false, 0, out_arena, out);
    case DRA_ENGINE_RANDOM:
        return place_order(e, alloc, p, false, start, out_arena, out);
    case DRA_ENGINE_BEST_FIT:
    case DRA_ENGINE_SPREAD:
        return place_brute_best(e, alloc, p, policy == DRA_ENGINE_BEST_FIT, out_arena, out);
    }
    return DRA_EINVAL;
}

int dra_engine_place(dra_engine_t *e, uint32_t plan, dra_engine_policy_t policy, uint32_t start,
                     dra_arena_t *out_arena, dra_engine_result_t *out)
{
    if (!e || plan >= e->nplans || !out_arena || !out)
        return DRA_EINVAL;
    const plan_t *p = &e->plans[plan];
    e->direct_now = e->direct_on && dra_fast_shortcuts(e->alloc->fast);
    bool best = policy == DRA_ENGINE_BEST_FIT || policy == DRA_ENGINE_SPREAD;
    if (!p->indexed || (best && (p->hazard || e->multiterm))) {
        int rc = dra_engine_place_reference(e, e->alloc, plan, policy, start, out_arena, out);
        e->placements[DRA_ENGINE_PATH_BRUTE]++;
        return rc;
    }
    res_init(out, DRA_ENGINE_PATH_INDEX);
    int rc;
    if (best)
        rc = (buckets_sync(e), place_buckets(e, p, policy == DRA_ENGINE_BEST_FIT, out_arena, out));
    else
        rc = place_order(e, e->alloc, p, true, policy == DRA_ENGINE_RANDOM ? start : 0, out_arena,
                         out);
    if (rc == DRA_OK && out->exact_calls == 0 && out->direct_calls == 0)
        out->path = DRA_ENGINE_PATH_REJECT;
    e->placements[out->path]++;
    return rc;
}

/* ---- commit and release ---------------------------------------------------------------------- */

/* The table row a result's row hint names (unchecked: for prefetching only), or NONE. */
static uint32_t hint_row(const dra_engine_t *e, const dra_result_t *res)
{
    return res->row && res->row <= e->nord ? e->ord_row[res->row - 1] : NONE;
}

/* Results whose lines prefetch_results starts loading (a bound on the hint's own cost). */
#define PREFETCH_MAX 32

/* Start the loads a commit or release makes on lines that are likely cold (a release comes long
 * after its commit): per result the state's entry, the fast allocator's mirror and the engine's
 * row mapping, then the engine's per-row columns, so they are in flight together instead of one
 * after another. Hints only: nothing is changed. */
static void prefetch_results(const dra_engine_t *e, uint32_t node, dra_allocation_t *const *a,
                             uint32_t n, bool commit)
{
    if (dra_alloc_state_model(e->state) != e->m)
        return;
    if (node < e->nnodes) { /* the node's score, resources and hazard flag */
        __builtin_prefetch(&e->score[node], 1);
        __builtin_prefetch(&e->cpu_used[node], 1);
        __builtin_prefetch(&e->mem_used[node], 1);
        __builtin_prefetch(&e->hz[node]);
    }
    uint32_t k = 0;
    for (uint32_t i = 0; i < n && k < PREFETCH_MAX; i++)
        for (uint32_t j = 0; a[i] && j < a[i]->nresults && k < PREFETCH_MAX; j++, k++) {
            uint32_t row = a[i]->results[j].row;
            if (!row || row > e->nord)
                continue;
            __builtin_prefetch(&e->ord_row[row - 1]);
            dra__alloc_state_prefetch(e->state, row);
            /* a commit also starts the next device's entry: packing policies commit it next
             * (a state entry is a line of its own, the engine's per-row columns share lines) */
            if (commit)
                dra__alloc_state_prefetch(e->state, row + 1);
            if (e->alloc->kind == DRA_ALLOC_FAST)
                dra_fast_prefetch_row(e->alloc->fast, row);
        }
    k = 0;
    for (uint32_t i = 0; i < n && k < PREFETCH_MAX; i++)
        for (uint32_t j = 0; a[i] && j < a[i]->nresults && k < PREFETCH_MAX; j++, k++) {
            uint32_t r = hint_row(e, &a[i]->results[j]);
            if (r == NONE)
                continue;
            __builtin_prefetch(&e->use[r], 1);
            __builtin_prefetch(&e->rowsigs[r]);
            __builtin_prefetch(&e->avb[r >> 6], 1);
            __builtin_prefetch(&e->t->node[r]);
            __builtin_prefetch(&e->t->flags[r]);
            if (e->rc_pat)
                __builtin_prefetch(&e->rc_pat[r]);
        }
    if (node >= e->nnodes)
        return;
    /* the node's count, leaf and error flag in every signature the results' rows match */
    uint32_t sigs = 0;
    k = 0;
    for (uint32_t i = 0; i < n && k < PREFETCH_MAX; i++)
        for (uint32_t j = 0; a[i] && j < a[i]->nresults && k < PREFETCH_MAX; j++, k++) {
            uint32_t r = hint_row(e, &a[i]->results[j]);
            if (r != NONE)
                sigs |= e->rowsigs[r];
        }
    for (; sigs; sigs &= sigs - 1) {
        const sig_t *s = &e->sigs[__builtin_ctz(sigs)];
        __builtin_prefetch(&s->cnt[node], 1);
        __builtin_prefetch(&s->tree[e->P + node], 1);
        __builtin_prefetch(&s->herr[node]);
    }
}

static int commit_release(dra_engine_t *e, uint32_t node, dra_allocation_t *const *a, uint32_t n,
                          int delta)
{
    if (!e || (!a && n))
        return DRA_EINVAL;
    prefetch_results(e, node, a, n, delta > 0);
    int first = DRA_OK;
    uint32_t ndev = 0;
    for (uint32_t i = 0; i < n; i++) {
        if (!a[i])
            continue;
        ndev += a[i]->nresults;
        uint32_t rowbuf[DRA_ALLOC_STATE_ROWS_MAX];
        uint32_t *rows = a[i]->nresults <= DRA_ALLOC_STATE_ROWS_MAX ? rowbuf : NULL;
        int rc = delta > 0 ? dra__alloc_state_commit_rows(e->state, a[i], rows)
                           : dra__alloc_state_release_rows(e->state, a[i], rows);
        if (rc) {
            if (first == DRA_OK)
                first = rc;
            continue;
        }
        /* the state's rows are numbered over its model: the engine's when they are one */
        bool own = rows && dra_alloc_state_model(e->state) == e->m;
        for (uint32_t j = 0; j < a[i]->nresults; j++)
            apply_result(e, &a[i]->results[j], own ? rows[j] : 0, delta);
    }
    if (node < e->nnodes) {
        uint32_t s = e->score[node];
        score_set(e, node, delta > 0 ? s + ndev : (s > ndev ? s - ndev : 0));
    }
    return first;
}

int dra_engine_commit(dra_engine_t *e, uint32_t node, dra_allocation_t *const *a, uint32_t n)
{
    return commit_release(e, node, a, n, +1);
}

int dra_engine_release(dra_engine_t *e, uint32_t node, dra_allocation_t *const *a, uint32_t n)
{
    return commit_release(e, node, a, n, -1);
}

static int pod_commit_release(dra_engine_t *e, uint32_t plan, uint32_t node,
                              dra_allocation_t *const *a, uint32_t n, int delta)
{
    if (!e || plan >= e->nplans)
        return DRA_EINVAL;
    int rc = commit_release(e, node, a, n, delta);
    if (node < e->nnodes) {
        const plan_t *p = &e->plans[plan];
        e->cpu_used[node] += delta * p->cpu_m;
        e->mem_used[node] += delta * p->mem_b;
    }
    return rc;
}

int dra_engine_commit_pod(dra_engine_t *e, uint32_t plan, uint32_t node,
                          dra_allocation_t *const *a, uint32_t n)
{
    return pod_commit_release(e, plan, node, a, n, +1);
}

int dra_engine_release_pod(dra_engine_t *e, uint32_t plan, uint32_t node,
                           dra_allocation_t *const *a, uint32_t n)
{
    return pod_commit_release(e, plan, node, a, n, -1);
}

/* Whether signature s has a matching or error row in [begin, end). */
static bool sig_rows_in(const sig_t *s, uint32_t begin, uint32_t end)
{
    for (uint32_t r = begin; r < end; r++)
        if (dra_bit_get(s->match, r) || dra_bit_get(s->err, r))
            return true;
    return false;
}

/* Whether two rows of ok in [begin, end) consume from one counter set. */
static bool rows_share_counter(const dra_engine_t *e, const uint64_t *ok, uint32_t begin,
                               uint32_t end)
{
    for (uint32_t r = begin; r < end; r++) {
        if (!dra_bit_get(ok, r) || !(e->t->flags[r] & DRA_ROW_CONSUMES))
            continue;
        for (uint32_t q = begin; q < r; q++) {
            if (!dra_bit_get(ok, q) || !(e->t->flags[q] & DRA_ROW_CONSUMES))
                continue;
            for (uint32_t i = dra__ent_b(e, r); i < dra__ent_e(e, r); i++)
                for (uint32_t j = dra__ent_b(e, q); j < dra__ent_e(e, q); j++)
                    if (e->ctr_set[dra__ent_ctr(e, r, i)] == e->ctr_set[dra__ent_ctr(e, q, j)])
                        return true;
        }
    }
    return false;
}

bool dra_engine_needs_allocator(const dra_engine_t *e, uint32_t node)
{
    if (!e || node >= e->nnodes)
        return false;
    if (e->opts.verify_direct || DRA_DEBUG >= 3 || e->hz[node])
        return true;
    const dra_table_t *t = e->t;
    uint32_t tn = e->tnode[node];
    uint32_t b = tn == NONE ? 0 : t->nodes[tn].begin, end = tn == NONE ? 0 : t->nodes[tn].end;
    for (uint32_t i = 0; i < e->nplans; i++) {
        const plan_t *p = &e->plans[i];
        if (!p->indexed)
            return true;
        bool direct = p->d.kind != DRA__DIRECT_NONE && e->direct_on && e->nrange[node].direct;
        for (uint32_t a = 0; direct && a < p->d.nalt; a++) {
            const dra__dalt_t *al = &p->d.alt[a];
            direct = !e->sigs[al->sig].herr[node];
            /* several devices among partitionable ones that share a counter: the picks
             * matter, the allocator may have to answer */
            if (direct && p->d.fallible && al->cons && al->k > 1)
                direct = !rows_share_counter(e, al->ok, b, end);
        }
        if (direct)
            continue;
        for (uint32_t a = 0; a < p->nalts; a++) {
            const sig_t *s = &e->sigs[p->alts[a].sig];
            if (s->shany || sig_rows_in(s, b, end))
                return true;
        }
    }
    return false;
}

uint32_t dra_engine_score(const dra_engine_t *e, uint32_t node)
{
    return e && node < e->nnodes ? e->score[node] : 0;
}

/* ---- introspection --------------------------------------------------------------------------- */

void dra_engine_get_info(const dra_engine_t *e, dra_engine_info_t *out)
{
    memset(out, 0, sizeof *out);
    out->nsigs = e->nsigs;
    out->nlowered = e->nlowered;
    out->ninterpreted = e->ninterpreted;
    out->nhazard = e->nhazard;
    out->nupdates = e->nupdates;
    out->update_rows = e->upd_rows;
    out->update_evals = e->upd_evals;
    out->multiterm = e->multiterm;
    memcpy(out->placements, e->placements, sizeof out->placements);
}

/* Row r counts for s, recomputed from the state (availability, and the capacity its shares left
 * as the state aggregates it). */
static bool counts_fresh(const dra_engine_t *e, const sig_t *s, uint32_t r)
{
    if (!dra_bit_get(s->match, r) || !row_avail(e, r))
        return false;
    if (!s->capbody)
        return true;
    const dra_device_t *d = e->t->dev[r];
    dra__aq_t x[64];
    bool multi = dra__row_multi(e, r) && d->ncaps <= 64;
    for (uint32_t c = 0; multi && c < d->ncaps; c++)
        if (!dra__alloc_state_cap_aq(e->state, row_driver(e, r), row_pool(e, r), row_device(e, r),
                                    d->caps[c].name, &x[c]))
            x[c] = 0;
    return dra__cap_fits(s->capbody, d, multi ? x : NULL, NULL, e->beh.bugs) == 1;
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
        if (c != s->cnt[n] || s->tree[e->P + n] != leaf_value(e, s, n)) {
            snprintf(why, len, "signature %u node %u: %d fitting, summary %d", i, n, c, s->cnt[n]);
            return false;
        }
    }
    for (uint32_t k = 1; k < e->P; k++)
        if (s->tree[k] != (s->tree[2 * k] > s->tree[2 * k + 1] ? s->tree[2 * k] : s->tree[2 * k + 1])) {
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
        uint32_t x = dra_alloc_state_exclusive(e->state, row_driver(e, r), row_pool(e, r),
                                               row_device(e, r));
        if (dra__row_multi(e, r))
            x += dra_alloc_state_shares(e->state, row_driver(e, r), row_pool(e, r),
                                        row_device(e, r));
        if (x != e->use[r]) {
            snprintf(why, len, "row %u (%s/%s/%s): %u allocations and shares, engine has %u", r,
                     row_driver(e, r), row_pool(e, r), row_device(e, r), x, e->use[r]);
            return false;
        }
        if (e->nall && dra_bit_get(e->bk, r) != row_blocked(e, r)) {
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
                    c += dra_bit_get(s->match, r) && row_avail(e, r);
            } else if (tn != NONE) {
                /* largest group of one value, by brute force over pairs of rows */
                const dra_table_attr_t *a = &e->t->attrs[s->attr];
                for (uint32_t r = e->t->nodes[tn].begin; r < e->t->nodes[tn].end; r++) {
                    if (s->grp[r] == GRP_NONE || !dra_bit_get(s->match, r) || !row_avail(e, r))
                        continue;
                    int32_t g = 0;
                    for (uint32_t q = e->t->nodes[tn].begin; q < e->t->nodes[tn].end; q++)
                        g += s->grp[q] == s->grp[r] && dra_bit_get(s->match, q) && row_avail(e, q) &&
                             dra_table_attr_code(a, q) != 0;
                    c = g > c ? g : c;
                }
            }
            if (s->all) {
                int32_t b = 0;
                for (uint32_t r = tn == NONE ? 0 : e->t->nodes[tn].begin;
                     tn != NONE && r < e->t->nodes[tn].end; r++)
                    b += !s->noblk && dra_bit_get(s->match, r) && row_blocked(e, r);
                if (b != s->blk[n]) {
                    snprintf(why, len, "signature %u node %u: %d blocked All members, summary %d",
                             i, n, b, s->blk[n]);
                    return false;
                }
            }
            if (c != s->cnt[n] || s->tree[e->P + n] != leaf_value(e, s, n)) {
                snprintf(why, len, "signature %u node %u: %d free matching, summary %d", i, n, c,
                         s->cnt[n]);
                return false;
            }
        }
        for (uint32_t r = e->t->shared_begin; r < e->t->nrows; r++)
            sh += dra_bit_get(s->match, r) && row_avail(e, r) &&
                  (s->attr == NONE || has_attr(e, s, r));
        if (sh != s->shcnt) {
            snprintf(why, len, "signature %u: %d free matching shared, summary %d", i, sh, s->shcnt);
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
        const uint64_t *w = e->bbits + (size_t)bucket_of(e, e->score[n]) * e->W;
        if (!((w[n >> 6] >> (n & 63)) & 1)) {
            snprintf(why, len, "node %u not in the bucket of score %u", n, e->score[n]);
            return false;
        }
    }
    return true;
}
