/*
 * counters.c - the counters of partitionable devices (DRAPartitionableDevices): counter sets
 * by (driver, pool, name), what is left of each counter, each row's consumption as a shared
 * pattern of entries, each set's consuming rows, each set shape's entries per counter by
 * amount between two bounds (each entry's row an offset from the set's first consuming row),
 * each counter's record (its cut in that list: the end of the prefix its remainder fits, and its
 * set's first consuming row: what a charge reads per counter besides the remainder) and each
 * row's entries that do not fit (set-up; then the charges: dra__counters_charge moves the cuts
 * of a row going in or out of use and reports the rows whose fit changed, which summary.c
 * refreshes; a set kept by masks of a memo class, sets of one shape and the same capacities,
 * looks the rows that fail up by its rows charged instead, keeping no cuts); 1.37's compatibility
 * groups: per counter set with groups the fold of its devices in use, per row whether that
 * refuses it (kept on every row that goes in or out of use, through summary.c).
 *
 * Ownership: every array is the engine's (freed by dra_engine_free; the groups' columns live in
 * the engine arena). Errors: DRA_ENOMEM only (a pool whose counters do not validate is a hazard,
 * hazard.c, not an error). Cost: set-up O(rows * counter entries + sets * entries log entries +
 * grouped entries * members of their set), once; a charge O(the row's entries + list entries
 * its cuts move over), of a memo class's set O(the row's entries + rows whose fit changed; a
 * memo miss O(the set's counters x log entries on a counter)); a grouped row in or out of use
 * O(members of its sets, and their records when the set's state changes).
 */
#include "engine/engine_impl.h"
#include "engine/engine_tests.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- counters ----------------------------------------------------------------------------- */

typedef struct setkey {
    const char *driver, *pool;
    const dra_counter_set_t *def;
} setkey_t;

static uint64_t set_hash(const char *driver, const char *pool, const char *name)
{
    return dra__key_hash(driver, pool, name);
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
            const char *drv = dra__nz(s->driver), *pool = dra__nz(s->pool_name);
            const char *nm = dra__nz(s->counter_sets[j].name);
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
    e->set_ctr0 = dra_mem_calloc(e->nsets + 1, sizeof *e->set_ctr0);
    e->set_nctr = dra_mem_calloc(e->nsets + 1, sizeof *e->set_nctr);
    /* the records from a line's start */
    size_t cb = ((size_t)nctr + 1) * sizeof *e->ctrs;
    e->ctrs = aligned_alloc(64, (cb + 63) & ~(size_t)63);
    e->crem = dra_mem_calloc(nctr + 1, sizeof *e->crem);
    e->ctr_set = dra_mem_calloc(nctr + 1, sizeof *e->ctr_set);
    e->rc_pat = dra_mem_malloc(((size_t)t->nrows + 1) * sizeof *e->rc_pat);
    e->rc_base = dra_mem_calloc((size_t)t->nrows + 1, sizeof *e->rc_base);
    e->sr_off = dra_mem_calloc(e->nsets + 1, sizeof *e->sr_off);
    e->sr_n = dra_mem_calloc(e->nsets + 1, sizeof *e->sr_n);
    e->set_def = dra_mem_calloc(e->nsets + 1, sizeof *e->set_def);
    e->set_rspan = dra_mem_calloc(2 * ((size_t)e->nsets + 1), sizeof *e->set_rspan);
    if (!e->set_ctr0 || !e->set_nctr || !e->ctrs || !e->crem || !e->ctr_set || !e->rc_pat ||
        !e->rc_base || !e->sr_off || !e->sr_n || !e->set_def || !e->set_rspan)
        return DRA_ENOMEM;
    memset(e->ctrs, 0, cb);
    for (uint32_t r = 0; r <= t->nrows; r++)
        e->rc_pat[r] = NONE;
    for (uint32_t i = 0, c = 0; i < e->nsets; i++) {
        e->set_ctr0[i] = c;
        e->set_def[i] = sd->keys[i].def;
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
        uint32_t st = set_find(sd->keys, sd->slots, sd->nslots, dra__row_driver(e, r),
                               dra__row_pool(e, r), dra__nz(cc->counter_set));
        if (st == NONE)
            return;
        for (uint32_t k = 0; k < cc->ncounters; k++) {
            uint32_t ci = NONE;
            for (uint32_t x = 0; x < e->set_nctr[st] && ci == NONE; x++)
                if (!strcmp(dra__nz(sd->keys[st].def->counters[x].name),
                            dra__nz(cc->counters[k].name)))
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
            same = e->pat_d[pb + i] == (int32_t)(ctr[b + i] - ctr[b]) &&
                   e->pat_a[pb + i] == amt[b + i];
        if (same)
            return p;
    }
    uint32_t at = e->pat_off[e->npats], need = at + (end - b);
    if (need > *pcap) {
        uint32_t nc = *pcap * 2 > need ? *pcap * 2 : need;
        int32_t *nd = dra_mem_realloc(e->pat_d, (size_t)nc * sizeof *nd);
        if (nd)
            e->pat_d = nd;
        uint32_t *na = dra_mem_realloc(e->pat_a, (size_t)nc * sizeof *na);
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
    uint32_t nz = at;
    while (nz < need && e->amts[e->pat_a[nz]] != 0)
        nz++;
    e->pat_nz[e->npats] = nz;
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
            ah = dra_mem_calloc(acap, sizeof *ah);
            off = dra_mem_calloc((size_t)t->nrows + 1, sizeof *off);
            ctr = dra_mem_calloc(nent + 1, sizeof *ctr);
            amt = dra_mem_calloc(nent + 1, sizeof *amt);
            e->amts = dra_mem_calloc(nent + 1, sizeof *e->amts);
            if (!ah || !off || !ctr || !amt || !e->amts)
                goto out;
        }
    }
    { /* the dictionary was sized for one amount per entry: keep what it holds, and the
       * bounds of the counters' lists (counters_shapes) after it */
        dra__aq_t *na = dra_mem_realloc(e->amts, ((size_t)e->namts + 3) * sizeof *na);
        if (!na)
            goto out;
        e->amts = na;
        e->amt_lo = e->namts++;
        e->amts[e->amt_lo] = (dra__aq_t)((dra__uaq_t)1 << 127); /* the smallest */
        e->amt_hi = e->namts++;
        e->amts[e->amt_hi] = (dra__aq_t)(((dra__uaq_t)1 << 127) - 1); /* the largest */
    }
    /* patterns: at most one per consuming row */
    uint32_t ncons = 0, hcap = 16, pcap = 64;
    for (uint32_t r = 0; r < t->nrows; r++)
        ncons += off[r] < off[r + 1];
    while (hcap < 2 * (uint64_t)ncons + 2)
        hcap *= 2;
    ph = dra_mem_calloc(hcap, sizeof *ph);
    e->pat_off = dra_mem_calloc((size_t)ncons + 2, sizeof *e->pat_off);
    e->pat_nz = dra_mem_calloc((size_t)ncons + 2, sizeof *e->pat_nz);
    e->pat_d = dra_mem_malloc(pcap * sizeof *e->pat_d);
    e->pat_a = dra_mem_malloc(pcap * sizeof *e->pat_a);
    if (!ph || !e->pat_off || !e->pat_nz || !e->pat_d || !e->pat_a)
        goto out;
    for (uint32_t r = 0; r < t->nrows; r++) {
        if (off[r] == off[r + 1])
            continue;
        /* the entries of non-zero amounts first, in their order, then the zeros (pat_nz): a
         * charge walks only the first (MIG profiles name every memory slice, most with 0) */
        for (uint32_t i = off[r], w = off[r]; i < off[r + 1]; i++)
            if (e->amts[amt[i]] != 0) {
                uint32_t c = ctr[i], a = amt[i];
                memmove(ctr + w + 1, ctr + w, (i - w) * sizeof *ctr);
                memmove(amt + w + 1, amt + w, (i - w) * sizeof *amt);
                ctr[w] = c;
                amt[w++] = a;
            }
        uint32_t p = pattern_of(e, ph, hcap, &pcap, ctr, amt, off[r], off[r + 1]);
        if (p == NONE)
            goto out;
        e->rc_pat[r] = p;
        e->rc_base[r] = ctr[off[r]];
    }
    { /* sized for one pattern per consuming row: keep what they hold */
        uint32_t *no = dra_mem_realloc(e->pat_off, ((size_t)e->npats + 1) * sizeof *no);
        if (no)
            e->pat_off = no;
    }
    rc = DRA_OK;
out:
    dra_mem_free(ah);
    dra_mem_free(off);
    dra_mem_free(ctr);
    dra_mem_free(amt);
    dra_mem_free(ph);
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
            e->srows = dra_mem_calloc(tot + 1, sizeof *e->srows);
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

/* The first consuming row of set st (0 without any): a list entry names its row by the offset
 * from it (rows in table order, so never negative). */
static uint32_t set_row0(const dra_engine_t *e, uint32_t st)
{
    return e->sr_n[st] ? e->srows[e->sr_off[st]] : 0;
}

/* A set's shape: its consuming rows' patterns and bases relative to the set's first counter and
 * their offsets from its first consuming row, in order (the sets of every GPU of one model have
 * one shape). Hash and equality of two sets. */
static uint64_t shape_hash(const dra_engine_t *e, uint32_t st)
{
    uint64_t h = 0x9e3779b97f4a7c15ULL * (e->set_nctr[st] + 1) + e->sr_n[st];
    for (uint32_t j = 0; j < e->sr_n[st]; j++) {
        uint32_t q = e->srows[e->sr_off[st] + j];
        uint64_t v = (uint64_t)e->rc_pat[q] << 32 | (uint32_t)(e->rc_base[q] - e->set_ctr0[st]);
        h = (h ^ v ^ (uint64_t)(q - set_row0(e, st)) << 20) * 0xff51afd7ed558ccdULL;
    }
    return h;
}

static bool shape_same(const dra_engine_t *e, uint32_t a, uint32_t b)
{
    if (e->set_nctr[a] != e->set_nctr[b] || e->sr_n[a] != e->sr_n[b])
        return false;
    for (uint32_t j = 0; j < e->sr_n[a]; j++) {
        uint32_t p = e->srows[e->sr_off[a] + j], q = e->srows[e->sr_off[b] + j];
        if (e->rc_pat[p] != e->rc_pat[q] ||
            e->rc_base[p] - e->set_ctr0[a] != e->rc_base[q] - e->set_ctr0[b] ||
            p - set_row0(e, a) != q - set_row0(e, b))
            return false;
    }
    return true;
}

typedef struct clent {
    dra__aq_t v;
    uint32_t a, k;
} clent_t;

static int cmp_clent(const void *x, const void *y)
{
    const clent_t *a = x, *b = y;
    if (a->v != b->v)
        return a->v < b->v ? -1 : 1;
    return a->k < b->k ? -1 : a->k > b->k;
}

/* The lists' 64-bit copies (cl_v) are the amounts shifted right by e->cl_shift, the
 * most trailing zero bits every amount has (amounts are nano units: "1" is 10^9, a multiple of
 * 2^9, and "80Gi" only fits 64 bits shifted). Sets e->cl_shift from the amounts' dictionary
 * (every list amount is one; the bounds are not) and e->cl_v64 true until amt_v64 finds one
 * whose copy is not exact. */
static void amt_shift(dra_engine_t *e)
{
    uint32_t sh = 64;
    for (uint32_t i = 0; i < e->namts; i++) {
        if (i == e->amt_lo || i == e->amt_hi || !e->amts[i])
            continue;
        dra__uaq_t u = (dra__uaq_t)e->amts[i];
        uint32_t tz = (uint64_t)u ? (uint32_t)__builtin_ctzll((uint64_t)u)
                                  : 64 + (uint32_t)__builtin_ctzll((uint64_t)(u >> 64));
        sh = tz < sh ? tz : sh;
    }
    e->cl_shift = sh > 63 ? 63 : sh;
    e->cl_v64 = true;
}

/* Amount a as a list entry's 64-bit copy: a >> cl_shift when that is exact and strictly between
 * INT64_MIN and INT64_MAX (the bounds' copies), else the nearer of those and e->cl_v64 false
 * (every charge then compares the exact amounts). */
static int64_t amt_v64(dra_engine_t *e, dra__aq_t a)
{
    dra__aq_t v = a >> e->cl_shift;
    if (v > INT64_MIN && v < INT64_MAX && (dra__aq_t)((dra__uaq_t)v << e->cl_shift) == a)
        return (int64_t)v;
    e->cl_v64 = false;
    return a < 0 ? INT64_MIN : INT64_MAX;
}

/* The lists' 64-bit copies (cl_v, engine arena; the bounds' INT64_MIN and INT64_MAX), and
 * e->cl_v64 kept only when every remainder a charge can reach has an exact 64-bit copy strictly
 * between the bounds' copies: each counter's capacity a multiple of 2^cl_shift, and capacity
 * less every positive amount on its list, plus every negative one, within them (a counter's
 * remainder is its capacity less the amounts of the rows in use, each counted once). Then a
 * charge compares copies with no check of its own (counter_moved). O(list entries). DRA_ENOMEM. */
static int counters_v64(dra_engine_t *e, uint32_t nlists)
{
    /* each shape's lists end where its last list's offset says (cl_off has nlists entries) */
    uint32_t n = nlists ? e->cl_off[nlists - 1] : 0;
    e->cl_v = dra_arena_calloc(&e->arena, (size_t)n + 1, sizeof *e->cl_v, 64);
    if (!e->cl_v)
        return DRA_ENOMEM;
    for (uint32_t j = 0; j < n; j++)
        e->cl_v[j] = e->cl[j].amt == e->amt_lo   ? INT64_MIN
                     : e->cl[j].amt == e->amt_hi ? INT64_MAX
                                                 : amt_v64(e, e->amts[e->cl[j].amt]);
    for (uint32_t c = 0; c < e->nctrs && e->cl_v64; c++) {
        uint32_t st = e->ctr_set[c], x = dra__ctr_list(e, c);
        dra__aq_t cap = dra__aq_from(&e->set_def[st]->counters[c - e->set_ctr0[st]].value);
        int64_t cv = amt_v64(e, cap);
        dra__aq_t lo = cv, hi = cv;
        for (uint32_t j = e->cl_off[x] + 1; j + 1 < e->cl_off[x + 1]; j++) {
            if (e->cl_v[j] > 0)
                lo -= e->cl_v[j];
            else
                hi -= e->cl_v[j];
        }
        if (lo <= INT64_MIN || hi >= INT64_MAX)
            e->cl_v64 = false;
    }
    if (!e->cl_v64)
        return DRA_OK;
    /* the amounts' and the remainders' copies (crem64 filled by counters_in_use): every amount
     * a pattern names is on its counter's list, so its copy is exact */
    e->amt64 = dra_arena_calloc(&e->arena, (size_t)e->namts + 1, sizeof *e->amt64, 64);
    e->crem64 = dra_arena_calloc(&e->arena, (size_t)e->nctrs + 1, sizeof *e->crem64, 64);
    if (!e->amt64 || !e->crem64)
        return DRA_ENOMEM;
    for (uint32_t i = 0; i < e->namts; i++)
        e->amt64[i] = i == e->amt_lo || i == e->amt_hi ? 0 : (int64_t)(e->amts[i] >> e->cl_shift);
    return DRA_OK;
}

/* The lists of shape sh (built from its first set st, its lists at cl_off[shp_ctr0[sh] + d]
 * from *n on): per counter of the set, the entries of the consuming rows on it, ascending by
 * amount, between an entry of the smallest amount and one of the largest. DRA_ENOMEM. */
static int shape_lists(dra_engine_t *e, uint32_t sh, uint32_t st, uint32_t *n, uint32_t *cap)
{
    uint32_t c0 = e->set_ctr0[st], nc = e->set_nctr[st], base = e->shp_ctr0[sh];
    uint32_t tot = 0;
    for (uint32_t j = 0; j < e->sr_n[st]; j++) {
        uint32_t q = e->srows[e->sr_off[st] + j];
        for (uint32_t i = dra__ent_b(e, q); i < dra__ent_e(e, q); i++) {
            uint32_t c = dra__ent_ctr(e, q, i);
            tot += c >= c0 && c < c0 + nc;
        }
    }
    uint32_t need = *n + tot + 2 * nc; /* and two bounds a list */
    if (need > *cap) {
        uint32_t ncap = *cap * 2 > need ? *cap * 2 : need;
        dra__clent_t *nl = dra_mem_realloc(e->cl, (size_t)ncap * sizeof *nl);
        if (!nl)
            return DRA_ENOMEM;
        e->cl = nl;
        *cap = ncap;
    }
    clent_t *tmp = dra_mem_malloc(((size_t)tot + 1) * sizeof *tmp);
    if (!tmp)
        return DRA_ENOMEM;
    for (uint32_t d = 0; d < nc; d++) {
        uint32_t m = 0;
        for (uint32_t j = 0; j < e->sr_n[st]; j++) {
            uint32_t q = e->srows[e->sr_off[st] + j];
            for (uint32_t i = dra__ent_b(e, q); i < dra__ent_e(e, q); i++)
                if (dra__ent_ctr(e, q, i) == c0 + d)
                    tmp[m++] = (clent_t){.v = dra__ent_amt(e, i), .a = e->pat_a[i],
                                         .k = q - set_row0(e, st)};
        }
        qsort(tmp, m, sizeof *tmp, cmp_clent);
        e->cl_off[base + d] = *n;
        e->cl[(*n)++] = (dra__clent_t){.amt = e->amt_lo, .k = 0};
        for (uint32_t x = 0; x < m; x++)
            e->cl[(*n)++] = (dra__clent_t){.amt = tmp[x].a, .k = tmp[x].k};
        e->cl[(*n)++] = (dra__clent_t){.amt = e->amt_hi, .k = 0};
    }
    e->cl_off[base + nc] = *n;
    dra_mem_free(tmp);
    return DRA_OK;
}

/* The room of a charge's report (e->cflip, engine arena): the most rows one charge can name,
 * the entries of the lists of the counters a row consumes (each entry a cut moves over names
 * its row at most once), and one slot more (dra__apply_row_charged puts the charged row after them).
 * O(entries of the consuming rows). DRA_ENOMEM. */
static int counters_flip_room(dra_engine_t *e)
{
    uint32_t most = 0;
    for (uint32_t r = 0; r < e->t->nrows; r++) {
        uint64_t n = 0;
        for (uint32_t i = dra__ent_b(e, r); i < dra__ent_e(e, r); i++) {
            uint32_t x = dra__ctr_list(e, dra__ent_ctr(e, r, i));
            n += e->cl_off[x + 1] - e->cl_off[x] - 2;
        }
        if (n > most)
            most = n > UINT32_MAX - 1 ? UINT32_MAX - 1 : (uint32_t)n;
    }
    e->ncflip = most;
    e->cflip = dra_arena_calloc(&e->arena, (size_t)most + 1, sizeof *e->cflip, 64);
    return e->cflip ? DRA_OK : DRA_ENOMEM;
}

/* Set st's capacity of its counter k. */
static dra__aq_t set_cap(const dra_engine_t *e, uint32_t st, uint32_t k)
{
    return dra__aq_from(&e->set_def[st]->counters[k].value);
}

/* The memo classes of the sets kept by masks (ok[st]; engine_impl.h, fmemo): sets of one shape
 * and equal capacities, counter by counter, whose rows lie below bit 63 (a memo entry of all
 * ones is empty), the first DRA__FMEMO_CLS of them; cls[st] the class of set st, NONE for the
 * others (they keep their cuts). The tables from the engine arena, every entry empty.
 * O(sets kept by masks x counters). DRA_ENOMEM. */
static int memo_classes(dra_engine_t *e, const uint8_t *ok, uint32_t *cls)
{
    uint32_t hcap = 16;
    while (hcap < 2 * (uint64_t)e->nsets + 2)
        hcap *= 2;
    uint32_t *h = dra_mem_calloc(hcap, sizeof *h); /* a class's first set + 1 */
    if (!h)
        return DRA_ENOMEM;
    for (uint32_t st = 0; st < e->nsets; st++) {
        cls[st] = NONE;
        if (!ok[st] || e->srows[e->sr_off[st] + e->sr_n[st] - 1] - set_row0(e, st) >= 63 ||
            e->set_nctr[st] >= 1u << 16) /* (a row's bit, span and base in one word: rc_span) */
            continue;
        uint64_t x = 0x9e3779b97f4a7c15ULL * (e->set_shape[st] + 1);
        for (uint32_t k = 0; k < e->set_nctr[st]; k++) {
            dra__uaq_t v = (dra__uaq_t)set_cap(e, st, k);
            x = (x ^ (uint64_t)v ^ (uint64_t)(v >> 64) * 0x9e3779b97f4a7c15ULL) *
                0xff51afd7ed558ccdULL;
        }
        uint32_t i = (uint32_t)(x >> 32) & (hcap - 1);
        for (; h[i]; i = (i + 1) & (hcap - 1)) {
            uint32_t o = h[i] - 1;
            bool same = e->set_shape[o] == e->set_shape[st]; /* the same counters, then */
            for (uint32_t k = 0; k < e->set_nctr[st] && same; k++)
                same = set_cap(e, o, k) == set_cap(e, st, k);
            if (same)
                break;
        }
        if (h[i]) {
            cls[st] = cls[h[i] - 1];
            continue;
        }
        if (e->nfmcls == DRA__FMEMO_CLS)
            continue;
        h[i] = st + 1;
        cls[st] = e->nfmcls++;
    }
    dra_mem_free(h);
    if (!e->nfmcls)
        return DRA_OK;
    size_t n = (size_t)e->nfmcls * DRA__FMEMO_N;
    e->fmemo = dra_arena_calloc(&e->arena, n, sizeof *e->fmemo, 64);
    if (!e->fmemo)
        return DRA_ENOMEM;
    for (size_t i = 0; i < n; i++)
        e->fmemo[i].u = ~(uint64_t)0;
    return DRA_OK;
}

/* The sets kept by masks and the lists' suffix masks (engine_impl.h, set_masked; engine
 * arena), before the rows' fit is counted (counters_in_use, through dra__row_nfail). A set
 * qualifies when every consuming row lies within 64 rows of its first and consumes no other
 * set. O(entries of the consuming rows + list entries). DRA_ENOMEM. */
static int counters_masks(dra_engine_t *e, uint32_t nlists)
{
    dra_arena_t *a = &e->arena;
    uint8_t *ok = dra_arena_calloc(a, (size_t)e->nsets + 1, 1, 8);
    if (!ok)
        return DRA_ENOMEM;
    bool any = false;
    for (uint32_t st = 0; st < e->nsets; st++) {
        bool fit = e->sr_n[st] > 0 && set_row0(e, st) < 0x80000000u; /* row0 has 31 bits */
        for (uint32_t j = 0; j < e->sr_n[st] && fit; j++) {
            uint32_t q = e->srows[e->sr_off[st] + j];
            fit = q - set_row0(e, st) < 64;
            for (uint32_t i = dra__ent_b(e, q); i < dra__ent_e(e, q) && fit; i++)
                fit = e->ctr_set[dra__ent_ctr(e, q, i)] == st;
        }
        ok[st] = fit;
        any |= fit;
    }
    if (!any)
        return DRA_OK;
    /* each shape's lists end where its last list's offset says (cl_off has nlists entries) */
    uint32_t n = nlists ? e->cl_off[nlists - 1] : 0;
    e->cl_suf = dra_arena_calloc(a, (size_t)n + 1, sizeof *e->cl_suf, 64);
    if (!e->cl_suf)
        return DRA_ENOMEM;
    for (uint32_t x = 0; x + 1 < nlists; x++) {
        uint32_t b = e->cl_off[x], end = e->cl_off[x + 1];
        if (end - b < 2)
            continue;
        uint64_t acc = 0; /* the bound at end - 1: no row */
        for (uint32_t j = end - 1; j-- > b + 1;) {
            if (e->cl[j].k < 64)
                acc |= (uint64_t)1 << e->cl[j].k;
            e->cl_suf[j] = acc;
        }
        e->cl_suf[b] = acc;
    }
    /* the runs of equal amounts: an amount decides for its whole run, so a cut that moves a run
     * at a time stops where the entry-by-entry move stops (every stop lies between two runs) */
    e->cl_run = dra_arena_calloc(a, 2 * ((size_t)n + 1), sizeof *e->cl_run, 64);
    if (!e->cl_run)
        return DRA_ENOMEM;
    for (uint32_t x = 0; x + 1 < nlists; x++)
        for (uint32_t j = e->cl_off[x], end = e->cl_off[x + 1]; j < end;) {
            uint32_t k = j + 1;
            while (k < end && e->cl[k].amt == e->cl[j].amt)
                k++;
            for (uint32_t i = j; i < k; i++) {
                e->cl_run[2 * i] = j;
                e->cl_run[2 * i + 1] = k;
            }
            j = k;
        }
    e->rc_span = dra_arena_calloc(a, 4 * ((size_t)e->t->nrows + 1), sizeof *e->rc_span, 64);
    e->set_m = dra_arena_calloc(a, (size_t)e->nctrs + 1, sizeof *e->set_m, 64);
    uint32_t *cls = dra_mem_malloc(((size_t)e->nsets + 1) * sizeof *cls);
    if (!e->rc_span || !e->set_m || !cls || memo_classes(e, ok, cls)) {
        dra_mem_free(cls);
        return DRA_ENOMEM;
    }
    e->set_masked = ok;
    for (uint32_t st = 0; st < e->nsets; st++) {
        if (!ok[st])
            continue;
        uint32_t c0 = e->set_ctr0[st], c1 = c0 + e->set_nctr[st];
        for (uint32_t c = c0; c < c1; c++)
            e->ctrs[c].masked = 1;
        uint32_t last = e->srows[e->sr_off[st] + e->sr_n[st] - 1];
        for (uint32_t j = 0; j < e->sr_n[st]; j++) {
            uint32_t q = e->srows[e->sr_off[st] + j];
            e->rc_span[4 * q] = c0;
            e->rc_span[4 * q + 1] = c1;
            e->rc_span[4 * q + 2] = cls[st] + 1; /* 0: none */
            e->rc_span[4 * q + 3] = (q - set_row0(e, st)) | (last - set_row0(e, st)) << 8 |
                                    (e->rc_base[q] - c0) << 16;
        }
    }
    dra_mem_free(cls);
    return DRA_OK;
}

/* Sets by shape, and each shape's lists of entries per counter (what a change of a counter's
 * remainder can flip, summary.c). O(entries log entries) for the first set of each shape, O(the
 * set's rows) for the others. DRA_ENOMEM. */
static int counters_shapes(dra_engine_t *e)
{
    uint32_t hcap = 16;
    while (hcap < 2 * (uint64_t)e->nsets + 2)
        hcap *= 2;
    uint32_t *h = dra_mem_calloc(hcap, sizeof *h); /* shape id + 1 */
    /* per shape: its first set */
    uint32_t *rep = dra_mem_malloc(((size_t)e->nsets + 1) * sizeof *rep);
    e->set_shape = dra_mem_malloc(((size_t)e->nsets + 1) * sizeof *e->set_shape);
    e->shp_ctr0 = dra_mem_malloc(((size_t)e->nsets + 2) * sizeof *e->shp_ctr0);
    int rc = DRA_ENOMEM;
    if (!h || !rep || !e->set_shape || !e->shp_ctr0)
        goto out;
    uint32_t nlists = 0;
    for (uint32_t st = 0; st < e->nsets; st++) {
        uint64_t x = shape_hash(e, st);
        uint32_t i = (uint32_t)(x >> 32) & (hcap - 1), sh = NONE;
        for (; h[i]; i = (i + 1) & (hcap - 1))
            if (shape_same(e, rep[h[i] - 1], st)) {
                sh = h[i] - 1;
                break;
            }
        if (sh == NONE) {
            sh = e->nshapes++;
            h[i] = sh + 1;
            rep[sh] = st;
            e->shp_ctr0[sh] = nlists;
            nlists += e->set_nctr[st] + 1;
        }
        e->set_shape[st] = sh;
    }
    e->cl_off = dra_mem_malloc(((size_t)nlists + 1) * sizeof *e->cl_off);
    amt_shift(e);
    uint32_t n = 0, cap = 64;
    e->cl = dra_mem_malloc(cap * sizeof *e->cl);
    if (!e->cl_off || !e->cl)
        goto out;
    for (uint32_t sh = 0; sh < e->nshapes; sh++)
        if ((rc = shape_lists(e, sh, rep[sh], &n, &cap)))
            goto out;
    /* each counter's record names its set's first consuming row */
    for (uint32_t st = 0; st < e->nsets; st++) {
        for (uint32_t d = 0; d < e->set_nctr[st]; d++)
            /* 31 bits: no table has 2^31 rows (and counters_masks keeps no set that high) */
            e->ctrs[e->set_ctr0[st] + d].row0 = set_row0(e, st) & 0x7fffffffu;
        e->set_rspan[2 * st] = set_row0(e, st);
        e->set_rspan[2 * st + 1] = e->sr_n[st] ? e->srows[e->sr_off[st] + e->sr_n[st] - 1] : 0;
    }
    if (!(rc = counters_v64(e, nlists)) && !(rc = counters_flip_room(e)))
        rc = counters_masks(e, nlists);
out:
    dra_mem_free(h);
    dra_mem_free(rep);
    return rc;
}

/* ---- charges ------------------------------------------------------------------------------ */

/* remainder_charged on the 64-bit copies (cl_v64): exact, as the amounts and every remainder a
 * charge reaches have exact copies within the bounds' (counters_v64), and a copy has its
 * remainder's sign. O(1). */
static inline int64_t remainder_charged64(dra_engine_t *e, uint32_t c, int64_t amt, int delta,
                                          int64_t *old)
{
    int64_t was = e->crem64[c], now = delta > 0 ? was - amt : was + amt;
    e->crem64[c] = now;
    if ((was < 0) != (now < 0))
        e->nneg = now < 0 ? e->nneg + 1 : e->nneg - 1;
    *old = was;
    return now;
}

/* Counter k's remainder changed to now, down (a commit: less left) or up (a release): every
 * entry on it with an amount between the old and the new remainder (above the lower, at most
 * the higher) changed between fitting and not; a row whose count of such entries (nfail) crosses
 * zero changed its fit, and only those are reported (flip, from *n on). A charge moves every
 * counter it touches one way when its amounts have one sign, so a row's nfail moves one way
 * too and it is reported at most once. The counter's cut (the end of its list's fitting prefix)
 * moves over exactly those entries, down on commit and up on release, so no search: O(entries
 * that change). The list's bounds, entries of the smallest and the largest amounts, stop it
 * without a bound check. The cut and the set's first row are the counter's record (k).
 * Comparisons on the entries' 64-bit copies when every remainder's is exact and strictly between
 * the bounds' copies (e->cl_v64, counters_v64: so the bounds still stop the moves): a > now
 * exactly when a >> s > now >> s for multiples a, now of 2^s; else on the amounts. */
static void counter_moved(dra_engine_t *e, dra__ctr_t *k, dra__aq_t now, int64_t v, bool down,
                          uint32_t *restrict flip, uint32_t *n)
{
    uint32_t j = k->cut, row0 = k->row0, m = *n;
    const dra__clent_t *cl = e->cl;
    const int64_t *cv = e->cl_v;
    dra__rowst_t *restrict rs = e->rs;
#if DRA_DEBUG
    uint32_t j0 = j;
#endif
    if (e->cl_v64) {
        /* v: the remainder's copy (crem64), exact and within the bounds' copies (counters_v64) */
        if (down) {
            for (; cv[j - 1] > v; j--) {
                uint32_t q = row0 + cl[j - 1].k;
                flip[m] = q;
                m += rs[q].nfail++ == 0;
            }
        } else {
            for (; cv[j] <= v; j++) {
                uint32_t q = row0 + cl[j].k;
                flip[m] = q;
                m += --rs[q].nfail == 0;
            }
        }
    } else if (down) {
        for (; e->amts[cl[j - 1].amt] > now; j--) {
            uint32_t q = row0 + cl[j - 1].k;
            flip[m] = q;
            m += rs[q].nfail++ == 0;
        }
    } else {
        for (; e->amts[cl[j].amt] <= now; j++) {
            uint32_t q = row0 + cl[j].k;
            flip[m] = q;
            m += --rs[q].nfail == 0;
        }
    }
#if DRA_DEBUG
    e->work.cut_moves += j > j0 ? j - j0 : j0 - j;
#endif
    k->cut = j;
    *n = m;
}

/* Counter c's remainder after a charge of amt (delta > 0: taken, else given back), its old one
 * in *old, and the count of negative remainders (nneg) kept. O(1). */
static inline dra__aq_t remainder_charged(dra_engine_t *e, uint32_t c, dra__aq_t amt, int delta,
                                          dra__aq_t *old)
{
    dra__aq_t was = e->crem[c], now = delta > 0 ? was - amt : was + amt;
    e->crem[c] = now;
    if ((was < 0) != (now < 0))
        e->nneg = now < 0 ? e->nneg + 1 : e->nneg - 1;
    *old = was;
    return now;
}

/* counter_moved for a set kept by masks: the cut moved, nothing else (the caller compares the
 * masks at the old and the new cut), a run of equal amounts at a time (cl_run: the same stop,
 * every stop lies between two runs). O(runs the cut moves over). */
static uint32_t cut_moved64(const dra_engine_t *e, uint32_t j, int64_t v, bool down)
{
    const int64_t *cv = e->cl_v;
    const uint32_t *run = e->cl_run;
    if (down)
        while (cv[j - 1] > v)
            j = run[2 * (j - 1)];
    else
        while (cv[j] <= v)
            j = run[2 * j + 1];
    return j;
}

/* cut_moved on the amounts (cl_v64 false). */
static uint32_t cut_moved(const dra_engine_t *e, uint32_t j, dra__aq_t now, bool down)
{
    const dra__clent_t *cl = e->cl;
    const uint32_t *run = e->cl_run;
    if (down) {
        while (e->amts[cl[j - 1].amt] > now)
            j = run[2 * (j - 1)];
    } else {
        while (e->amts[cl[j].amt] <= now)
            j = run[2 * j + 1];
    }
    return j;
}

/* The rows of a set kept by masks that fail some counter: the union of its counters' masks at
 * their cuts ([c0, c1): its counters). O(counters of the set). */
static inline uint64_t set_fails(const dra_engine_t *e, uint32_t c0, uint32_t c1)
{
    uint64_t f = 0;
    for (uint32_t c = c0; c < c1; c++)
        f |= e->cl_suf[e->ctrs[c].cut];
    return f;
}

/* The rows of a set kept by masks whose state changed (bits `changed` from its first consuming
 * row row0): each one's nfail bit flipped (DRA__NFAIL_CTR), and appended to e->cflip after the
 * n already there when nfail crossed zero. Returns the new count. In line in both charges.
 * The rows are refreshed by the caller (summary.c, through e->cflip): a refresh here would call
 * the summaries' code (summary.c, index.c) from below them in the engine's layering. */
static DRA_ALWAYS_INLINE uint32_t flip_rows(dra_engine_t *e, uint32_t row0, uint64_t changed,
                                            uint32_t n)
{
    dra__rowst_t *restrict rs = e->rs;
    for (; changed; changed &= changed - 1) {
        uint32_t q = row0 + (uint32_t)__builtin_ctzll(changed), was = rs[q].nfail;
        rs[q].nfail = was ^ DRA__NFAIL_CTR;
        if (!was || was == DRA__NFAIL_CTR)
            e->cflip[n++] = q;
    }
    return n;
}

/* The rows of a set kept by masks that fail some counter, from the remainders (each counter's
 * cut searched for): set_fails without the cuts, for a set of a memo class (which keeps none)
 * and the checks. O(counters of the set x log entries on a counter). */
static uint64_t set_fails_now(const dra_engine_t *e, uint32_t c0, uint32_t c1)
{
    uint64_t f = 0;
    for (uint32_t c = c0; c < c1; c++)
        f |= e->cl_suf[dra__ctr_cut(e, c, dra__crem(e, c))];
    return f;
}

/* The rows of set st (kept by masks) that are charged: in use, with a non-zero amount (a row
 * of zeros is charged nothing, dra__counters_charge), as bits from its first consuming row. */
static uint64_t set_charged(const dra_engine_t *e, uint32_t st)
{
    uint64_t u = 0;
    for (uint32_t j = 0; j < e->sr_n[st]; j++) {
        uint32_t q = e->srows[e->sr_off[st] + j], p = e->rc_pat[q];
        if (e->rs[q].use && e->pat_nz[p] > e->pat_off[p])
            u |= (uint64_t)1 << (q - set_row0(e, st));
    }
    return u;
}

/* The set of counter c0 (kept by masks) has a memo class (its rows' rc_span) in force. */
static uint32_t set_class(const dra_engine_t *e, uint32_t st)
{
    return e->fmemo && e->sr_n[st] ? e->rc_span[4 * set_row0(e, st) + 2] - 1 : NONE;
}

/* The memo's slot of charged rows u in class cls. */
static inline dra__fmemo_t *memo_slot(const dra_engine_t *e, uint32_t cls, uint64_t u)
{
    uint32_t i = (uint32_t)((u * 0x9e3779b97f4a7c15ULL) >> 32) & (DRA__FMEMO_N - 1);
    return &e->fmemo[(size_t)cls * DRA__FMEMO_N + i];
}

/* dra__counters_charge of row r of a set of memo class cls (bit k, counters [c0, c1), entries
 * [b, end)): the remainders moved, then the rows that fail after, looked up by the set's rows
 * charged after (filled from the remainders on a miss), against those before (the set's kept
 * ones): a row whose state changed has its nfail bit flipped (DRA__NFAIL_CTR), and is reported
 * when nfail crossed zero. A release finds the entry its commit filled and flips the rows the
 * commit flipped: no cut, no other counter read. O(entries of the row + rows whose state changed;
 * a miss O(counters of the set x log entries on a counter)). */
static uint32_t charge_memo(dra_engine_t *e, uint32_t r, int delta, uint32_t b, uint32_t end)
{
    /* all from the row's rc_span: its set's counters, class, bit and base (no counter record) */
    const uint32_t *sp = e->rc_span + 4 * (size_t)r;
    uint32_t c0 = sp[0], cls = sp[2] - 1, k = sp[3] & 0xff, base = c0 + (sp[3] >> 16);
    uint32_t row0 = r - k, n = 0;
    const int32_t *d = e->pat_d;
    const uint32_t *a = e->pat_a;
    if (e->cl_v64) {
        /* remainder_charged64 a loop a direction (no select an entry); the count of negative
         * remainders moves when a remainder's sign does */
        const int64_t *a64 = e->amt64;
        int64_t *rem = e->crem64;
        uint32_t nneg = e->nneg;
        if (delta > 0) {
            for (uint32_t i = b; i < end; i++) {
                int64_t *x = &rem[base + (uint32_t)d[i]], was = *x, now = was - a64[a[i]];
                *x = now;
                if ((was ^ now) < 0)
                    nneg = now < 0 ? nneg + 1 : nneg - 1;
            }
        } else {
            for (uint32_t i = b; i < end; i++) {
                int64_t *x = &rem[base + (uint32_t)d[i]], was = *x, now = was + a64[a[i]];
                *x = now;
                if ((was ^ now) < 0)
                    nneg = now < 0 ? nneg + 1 : nneg - 1;
            }
        }
        e->nneg = nneg;
    } else {
        for (uint32_t i = b; i < end; i++) {
            dra__aq_t old;
            (void)remainder_charged(e, base + (uint32_t)d[i], e->amts[a[i]], delta, &old);
        }
    }
    dra__setm_t *sm = &e->set_m[c0];
    uint64_t bit = (uint64_t)1 << k, u = delta > 0 ? sm->um | bit : sm->um & ~bit;
    uint64_t before = sm->fm, after;
    dra__fmemo_t *m = memo_slot(e, cls, u);
    if (m->u == u) {
        after = m->f;
    } else {
        after = set_fails_now(e, c0, sp[1]);
        m->u = u;
        m->f = after;
    }
    DRA_ASSERT_INTERNAL(after == set_fails_now(e, c0, sp[1]));
    DRA_ASSERT_INTERNAL(base == e->rc_base[r] && row0 == e->ctrs[base].row0);
    sm->um = u;
    sm->fm = after;
#if DRA_DEBUG
    e->work.cut_moves += (uint64_t)__builtin_popcountll(before ^ after);
#endif
    return flip_rows(e, row0, before ^ after, n);
}

/* dra__counters_charge of row r of a set kept by masks (entries [b, end)): the rows that fail
 * some counter before (the set's kept union, set_fm), each counter's cut moved, and the rows
 * that fail after: when no cut moved up (a commit of non-negative amounts) those before and the
 * rows that started failing a counter the charge moved (up: the masks at the new cut less those
 * at the old one), else a second pass. A row whose state changed has its nfail bit flipped
 * (DRA__NFAIL_CTR), and is reported when nfail crossed zero. O(entries of the row + list
 * runs the cuts move over + counters of the set when a cut rose + rows whose state changed). */
static uint32_t charge_masked(dra_engine_t *e, uint32_t r, int delta, uint32_t b, uint32_t end)
{
    uint32_t base = e->rc_base[r], row0 = e->ctrs[base].row0, n = 0;
    uint32_t c0 = e->rc_span[4 * r], c1 = e->rc_span[4 * r + 1];
    const int32_t *d = e->pat_d;
    const uint32_t *a = e->pat_a;
    const uint64_t *suf = e->cl_suf;
    uint64_t before = e->set_m[c0].fm, up = 0;
    DRA_ASSERT_INTERNAL(before == set_fails(e, c0, c1));
    bool rose = false;
    /* one loop per arithmetic (cl_v64 holds for the whole charge): no test per counter */
#if DRA_DEBUG
#define CUT_MOVES(j, j0) (e->work.cut_moves += (j) > (j0) ? (j) - (j0) : (j0) - (j))
#else
#define CUT_MOVES(j, j0) ((void)0)
#endif
    if (e->cl_v64) {
        const int64_t *a64 = e->amt64;
        for (uint32_t i = b; i < end; i++) {
            int64_t amt = a64[a[i]];
            uint32_t c = base + (uint32_t)d[i];
            int64_t old, now = remainder_charged64(e, c, amt, delta, &old);
            dra__ctr_t *k = &e->ctrs[c];
            uint32_t j0 = k->cut, j = cut_moved64(e, j0, now, now < old);
            k->cut = j;
            up |= suf[j] & ~suf[j0];
            rose |= j > j0;
            CUT_MOVES(j, j0);
        }
    } else {
        for (uint32_t i = b; i < end; i++) {
            dra__aq_t amt = e->amts[a[i]];
            uint32_t c = base + (uint32_t)d[i];
            dra__aq_t old, now = remainder_charged(e, c, amt, delta, &old);
            dra__ctr_t *k = &e->ctrs[c];
            uint32_t j0 = k->cut, j = cut_moved(e, j0, now, now < old);
            k->cut = j;
            up |= suf[j] & ~suf[j0];
            rose |= j > j0;
            CUT_MOVES(j, j0);
        }
    }
#undef CUT_MOVES
    uint64_t after = rose ? set_fails(e, c0, c1) : before | up;
    e->set_m[c0].fm = after;
    uint64_t bit = (uint64_t)1 << (e->rc_span[4 * r + 3] & 0xff);
    e->set_m[c0].um = delta > 0 ? e->set_m[c0].um | bit : e->set_m[c0].um & ~bit;
    return flip_rows(e, row0, before ^ after, n);
}

uint32_t dra__counters_charge(dra_engine_t *e, uint32_t r, int delta)
{
    /* the entries of non-zero amounts (pat_nz): a zero moves no remainder and no cut */
    uint32_t p = e->rc_pat ? e->rc_pat[r] : NONE;
    if (p == NONE)
        return 0;
    uint32_t b = e->pat_off[p], end = e->pat_nz[p], n = 0;
    if (b == end)
        return 0;
    if (e->fmemo && e->rc_span[4 * r + 2]) /* a set of a memo class */
        return charge_memo(e, r, delta, b, end);
    if (e->ctrs[e->rc_base[r]].masked)
        return charge_masked(e, r, delta, b, end);
    uint32_t base = e->rc_base[r];
    const int32_t *d = e->pat_d;
    const uint32_t *a = e->pat_a;
    for (uint32_t i = b; i < end; i++) {
        uint32_t c = base + (uint32_t)d[i];
        if (e->cl_v64) {
            int64_t amt = e->amt64[a[i]];
            int64_t old, now = remainder_charged64(e, c, amt, delta, &old);
            counter_moved(e, &e->ctrs[c], 0, now, now < old, e->cflip, &n);
        } else {
            dra__aq_t amt = e->amts[a[i]];
            dra__aq_t old, now = remainder_charged(e, c, amt, delta, &old);
            counter_moved(e, &e->ctrs[c], now, 0, now < old, e->cflip, &n);
        }
    }
    DRA_ASSERT_INTERNAL(n <= e->ncflip);
    return n;
}

bool dra_engine_test_nudge_counter(dra_engine_t *e, uint32_t c, int64_t by)
{
    if (!e || !e->crem || c >= e->nctrs)
        return false;
    if (e->fmemo) { /* the memo assumes the remainders the charged rows give: off for good, the
                     * cuts of its sets taken from the remainders before the nudge */
        for (uint32_t i = 0; i < e->nctrs; i++)
            e->ctrs[i].cut = dra__ctr_cut(e, i, dra__crem(e, i));
        e->fmemo = NULL;
    }
    if (e->cl_v64 && !((uint64_t)by & ((1ULL << e->cl_shift) - 1))) {
        e->crem64[c] += by >> e->cl_shift; /* a multiple: the copy stays exact */
        return true;
    }
    if (e->cl_v64) { /* not a multiple: back to the exact amounts, compared from now on */
        for (uint32_t i = 0; i < e->nctrs; i++)
            e->crem[i] = dra__crem(e, i);
        e->cl_v64 = false;
    }
    e->crem[c] += by;
    return true;
}

bool dra_engine_test_flip_row_counters(dra_engine_t *e, uint32_t r)
{
    if (!e || r >= e->t->nrows)
        return false;
    e->rs[r].nodec ^= 1u;
    return true;
}

/* The rows of set st (kept by masks) that fail some counter when rows u (bits from its first
 * consuming row) are the ones charged: its capacities less their amounts, each of its rows'
 * entries compared (dra_engine_check). O(rows of the set x their entries + counters). */
static uint64_t memo_recompute(const dra_engine_t *e, uint32_t st, uint64_t u)
{
    uint32_t c0 = e->set_ctr0[st], nc = e->set_nctr[st], r0 = set_row0(e, st);
    dra__aq_t *left = dra_mem_malloc(((size_t)nc + 1) * sizeof *left);
    if (!left)
        return ~(uint64_t)0; /* no memory: reported as a difference */
    for (uint32_t k = 0; k < nc; k++)
        left[k] = set_cap(e, st, k);
    for (uint32_t j = 0; j < e->sr_n[st]; j++) {
        uint32_t q = e->srows[e->sr_off[st] + j];
        if (u >> (q - r0) & 1)
            for (uint32_t i = dra__ent_b(e, q); i < dra__ent_e(e, q); i++)
                left[dra__ent_ctr(e, q, i) - c0] -= dra__ent_amt(e, i);
    }
    uint64_t f = 0;
    for (uint32_t j = 0; j < e->sr_n[st]; j++) {
        uint32_t q = e->srows[e->sr_off[st] + j];
        for (uint32_t i = dra__ent_b(e, q); i < dra__ent_e(e, q); i++)
            if (dra__ent_amt(e, i) > left[dra__ent_ctr(e, q, i) - c0])
                f |= (uint64_t)1 << (q - r0);
    }
    dra_mem_free(left);
    return f;
}

bool dra__counters_check(const dra_engine_t *e, char *why, size_t len)
{
    if (!e->ctrs || !e->nfail_on)
        return true;
    /* every remainder recomputed: the set's capacity less the entries of the rows in use */
    dra__aq_t *want = dra_mem_malloc(((size_t)e->nctrs + 1) * sizeof *want);
    if (!want) {
        snprintf(why, len, "counters: out of memory for the check");
        return false;
    }
    for (uint32_t st = 0; st < e->nsets; st++)
        for (uint32_t k = 0; k < e->set_nctr[st]; k++)
            want[e->set_ctr0[st] + k] = dra__aq_from(&e->set_def[st]->counters[k].value);
    for (uint32_t r = 0; r < e->t->nrows; r++)
        if (e->rs[r].use)
            for (uint32_t i = dra__ent_b(e, r); i < dra__ent_e(e, r); i++)
                want[dra__ent_ctr(e, r, i)] -= dra__ent_amt(e, i);
    bool ok = true;
    uint32_t neg = 0;
    for (uint32_t c = 0; c < e->nctrs && ok; c++) {
        neg += want[c] < 0;
        if (want[c] != dra__crem(e, c)) {
            snprintf(why, len, "counter %u (set %u): %lld left (low 64 bits), engine has %lld", c,
                     e->ctr_set[c], (long long)want[c], (long long)dra__crem(e, c));
            ok = false;
        } else if (e->ctrs[c].row0 != set_row0(e, e->ctr_set[c])) {
            snprintf(why, len, "counter %u: record names row %u first, its set row %u", c,
                     e->ctrs[c].row0, set_row0(e, e->ctr_set[c]));
            ok = false;
        } else if (set_class(e, e->ctr_set[c]) == NONE && /* a memo's set keeps no cuts */
                   e->ctrs[c].cut != dra__ctr_cut(e, c, dra__crem(e, c))) {
            snprintf(why, len, "counter %u: cut %u, its list fits up to %u", c, e->ctrs[c].cut,
                     dra__ctr_cut(e, c, dra__crem(e, c)));
            ok = false;
        }
    }
    dra_mem_free(want);
    for (uint32_t st = 0; ok && e->set_masked && st < e->nsets; st++) {
        uint32_t c0 = e->set_ctr0[st];
        if (!e->set_masked[st])
            continue;
        uint64_t f = set_fails_now(e, c0, c0 + e->set_nctr[st]), u = set_charged(e, st);
        /* each row's rc_span: what the charge and the look-aheads take the set from */
        uint32_t row0 = set_row0(e, st), last = e->srows[e->sr_off[st] + e->sr_n[st] - 1];
        bool memo = set_class(e, st) != NONE;
        for (uint32_t j = 0; ok && j < e->sr_n[st]; j++) {
            uint32_t q = e->srows[e->sr_off[st] + j];
            const uint32_t *sp = &e->rc_span[4 * (size_t)q];
            if (sp[0] != c0 || sp[1] != c0 + e->set_nctr[st] || (sp[3] & 0xff) != q - row0 ||
                (sp[3] >> 8 & 0xff) != last - row0 ||
                (memo && (sp[3] >> 16) != e->rc_base[q] - c0)) {
                snprintf(why, len, "row %u of set %u: rc_span %u %u %u %#x, the set's counters "
                         "[%u, %u), rows %u to %u, the row's first counter %u", q, st, sp[0],
                         sp[1], sp[2], sp[3], c0, c0 + e->set_nctr[st], row0, last,
                         e->rc_base[q]);
                ok = false;
            }
        }
        if (!ok)
            break;
        if (e->set_m[c0].fm != f) {
            snprintf(why, len, "set %u: kept failing rows %#llx, its counters' %#llx", st,
                     (unsigned long long)e->set_m[c0].fm, (unsigned long long)f);
            ok = false;
        } else if (e->set_m[c0].um != u) {
            snprintf(why, len, "set %u: kept charged rows %#llx, its rows in use %#llx", st,
                     (unsigned long long)e->set_m[c0].um, (unsigned long long)u);
            ok = false;
        }
    }
    /* every entry of the memo: the rows that fail when its rows are charged, recomputed from
     * the capacities of a set of its class (the class's first, by its rows' rc_span) */
    uint32_t seen[DRA__FMEMO_CLS] = {0}; /* 1: the class's first set met */
    for (uint32_t st = 0; ok && e->fmemo && st < e->nsets; st++) {
        uint32_t cl = e->set_masked[st] ? set_class(e, st) : NONE;
        if (cl == NONE || seen[cl]++)
            continue;
        for (uint32_t i = 0; ok && i < DRA__FMEMO_N; i++) {
            const dra__fmemo_t *m = &e->fmemo[(size_t)cl * DRA__FMEMO_N + i];
            if (m->u == ~(uint64_t)0)
                continue;
            uint64_t f = memo_recompute(e, st, m->u);
            if (m->f != f || memo_slot(e, cl, m->u) != m) {
                snprintf(why, len, "memo class %u entry %u: rows %#llx fail %#llx, kept %#llx",
                         cl, i, (unsigned long long)m->u, (unsigned long long)f,
                         (unsigned long long)m->f);
                ok = false;
            }
        }
    }
    if (ok && neg != e->nneg) {
        snprintf(why, len, "counters: %u over capacity, engine counts %u", neg, e->nneg);
        ok = false;
    }
    return ok;
}

/* ---- compatibility groups ------------------------------------------------------------------ */

/* Why the rows' availability may carry the allocator's compatibility-group rule (core/alloc,
 * claims.c, dra__acall_cg_place / dra__acall_cg_skip, RELEASES.md 2). allocateDevice checks it
 * for a device with counter consumption (a multi-allocatable one while it has no capacity in
 * use), before the counters, per consumesCounters entry and per counter set separately, against
 * the set's state: the devices in use of the pool folded in slice order (the baseline, the same
 * devices the engine counts in use: exclusive allocations and shares, rs[r].use) and the devices
 * picked before in the same call. The fold keeps "every device so far declared no groups" from
 * its first device on, else the intersection of the group lists of the devices with groups
 * (a device without groups changes nothing), and admits a device without groups only into an
 * empty or all-without set, one with groups only into an empty set or when it has a group of
 * the intersection. So the state depends on the order only when the in-use devices both have
 * and lack groups (a state the allocator itself never produces: a mixed set, DRA__CG_MIXED);
 * otherwise it is the kind (empty, without, with) and the intersection of the members' masks.
 * Every check only narrows as devices join, so a row the baseline refuses is refused whatever
 * the call picks: a necessary condition for every request without adminAccess, exact for a
 * claim of one device; the direct answers add the picks of the call (direct.c). With the gate
 * off from 1.37 on (the skip), a device declaring groups is refused for good and one without
 * is refused while some device in use on its set declared groups (upstream keeps the set of such
 * counter sets per pool, so a mixed set refuses too: the order plays no part). Where the allocator sees no device with groups on the
 * node it skips the checks; then no set is grouped and the engine refuses nothing either. A
 * device with more than DRA__CG_MAX names in one entry (the fold keeps the first ones) or more
 * than 64 names in the model turn all of this off (cg_on false; such plans are never direct). */

/* Index of group name g among names[0..*n), added when new; NONE when 64 are taken. */
static uint32_t group_bit(const char **names, uint32_t *n, const char *g)
{
    for (uint32_t i = 0; i < *n; i++)
        if (names[i] == g || strcmp(names[i], g) == 0)
            return i;
    if (*n == 64)
        return NONE;
    names[*n] = g;
    return (*n)++;
}

/* The state of set s from its members in use (the baseline's fold, see above). */
static void cg_state(const dra_engine_t *e, uint32_t s, uint8_t *kind, uint64_t *m)
{
    uint32_t ng = 0, nn = 0;
    uint64_t x = ~(uint64_t)0;
    for (uint32_t j = e->cgm_off[s]; j < e->cgm_off[s + 1]; j++) {
        uint32_t q = e->cgm[j];
        if (!e->rs[e->rec_row[q]].use)
            continue;
        if (e->rec_grp[q]) {
            ng++;
            x &= e->rec_mask[q];
        } else {
            nn++;
        }
    }
    *kind = ng && nn ? DRA__CG_MIXED : ng ? DRA__CG_GRP : nn ? DRA__CG_NOGRP : DRA__CG_EMPTY;
    *m = *kind == DRA__CG_GRP ? x : 0;
}

/* Whether a set in state (kind, m) refuses a record (grp, mask) (see above). */
static bool cg_refuses(const dra_engine_t *e, uint8_t kind, uint64_t m, bool grp, uint64_t mask)
{
    if (e->beh.cg_skip) /* some member in use declared groups, whatever the others */
        return kind == DRA__CG_GRP || kind == DRA__CG_MIXED;
    if (kind == DRA__CG_NOGRP)
        return grp;
    if (kind == DRA__CG_GRP)
        return !grp || !(mask & m);
    return false; /* empty admits all; mixed: unknown */
}

bool dra__cg_refused(const dra_engine_t *e, uint32_t r, bool fresh)
{
    if (e->beh.cg_skip && (e->cg_row[r] & DRA__CG_DECL))
        return true;
    for (uint32_t i = e->rcg_off[r]; i < e->rcg_off[r + 1]; i++) {
        uint32_t s = e->rec_set[i];
        uint8_t kind = e->cg_kind[s];
        uint64_t m = e->cg_m[s];
        if (fresh)
            cg_state(e, s, &kind, &m);
        if (cg_refuses(e, kind, m, e->rec_grp[i], e->rec_mask[i]))
            return true;
    }
    return false;
}

/* Set s's state from its counts: the kind, and the groups every member in use with groups has
 * (cg_state's fold, without the members). */
static void cg_state_counted(const dra_engine_t *e, uint32_t s, uint8_t *kind, uint64_t *m)
{
    uint32_t ng = e->cg_ng[s], nn = e->cg_nn[s];
    *kind = ng && nn ? DRA__CG_MIXED : ng ? DRA__CG_GRP : nn ? DRA__CG_NOGRP : DRA__CG_EMPTY;
    *m = 0;
    if (*kind != DRA__CG_GRP)
        return;
    const uint32_t *cnt = e->cg_cnt + e->cg_coff[s];
    uint32_t k = 0;
    for (uint64_t u = e->cg_u[s]; u; u &= u - 1, k++)
        if (cnt[k] == ng)
            *m |= u & -u;
}

/* Record i counted (delta 1) or not (-1) among its set's members in use. */
static void cg_count(dra_engine_t *e, uint32_t i, int delta)
{
    uint32_t s = e->rec_set[i];
    if (!e->rec_grp[i]) {
        e->cg_nn[s] += (uint32_t)delta;
        return;
    }
    e->cg_ng[s] += (uint32_t)delta;
    uint32_t *cnt = e->cg_cnt + e->cg_coff[s];
    for (uint64_t b = e->rec_mask[i]; b; b &= b - 1)
        cnt[__builtin_popcountll(e->cg_u[s] & ((b & -b) - 1))] += (uint32_t)delta;
}

bool dra__cg_set_refresh(dra_engine_t *e, uint32_t i)
{
    uint32_t s = e->rec_set[i];
    cg_count(e, i, e->rs[e->rec_row[i]].use ? 1 : -1);
    uint8_t kind;
    uint64_t m;
    cg_state_counted(e, s, &kind, &m);
    if (kind == e->cg_kind[s] && m == e->cg_m[s])
        return false;
    e->cg_kind[s] = kind;
    e->cg_m[s] = m;
    return true;
}

bool dra__cg_row_refresh(dra_engine_t *e, uint32_t r)
{
    bool now = dra__cg_refused(e, r, false), was = (e->cg_row[r] & DRA__CG_REF) != 0;
    if (now == was)
        return false;
    e->cg_row[r] ^= DRA__CG_REF;
    if (now)
        e->rs[r].nfail++;
    else
        e->rs[r].nfail--;
    return true;
}

bool dra__cg_check(const dra_engine_t *e, char *why, size_t len)
{
    if (!e->cg_on)
        return true;
    for (uint32_t s = 0; s < e->nsets; s++) {
        uint8_t kind, ck;
        uint64_t m, cm;
        cg_state(e, s, &kind, &m);
        cg_state_counted(e, s, &ck, &cm);
        if (kind != ck || m != cm) {
            snprintf(why, len, "counter set %u: compatibility-group counts stale", s);
            return false;
        }
        if (kind != e->cg_kind[s] || m != e->cg_m[s]) {
            snprintf(why, len, "counter set %u: compatibility-group state %u/%#llx, kept %u/%#llx",
                     s, kind, (unsigned long long)m, e->cg_kind[s],
                     (unsigned long long)e->cg_m[s]);
            return false;
        }
    }
    for (uint32_t r = 0; r < e->t->nrows; r++)
        if (dra__cg_refused(e, r, true) != ((e->cg_row[r] & DRA__CG_REF) != 0)) {
            snprintf(why, len, "row %u: compatibility-group refusal stale", r);
            return false;
        }
    return true;
}

/* The records of row r's entries on grouped sets (pass 0 counts them in *n, pass 1 stores them
 * from *n on); false when an entry has more than DRA__CG_MAX names or the model more than 64. */
static bool cg_row_records(dra_engine_t *e, const setdict_t *sd, const uint8_t *grouped,
                           uint32_t r, bool pass, const char **names, uint32_t *nnames,
                           uint32_t *n)
{
    const dra_device_t *d = e->t->dev[r];
    if (!d || !d->nconsumes)
        return true;
    for (uint32_t c = 0; c < d->nconsumes; c++) {
        const dra_consumes_t *cc = &d->consumes[c];
        uint32_t st = set_find(sd->keys, sd->slots, sd->nslots, dra__row_driver(e, r),
                               dra__row_pool(e, r), dra__nz(cc->counter_set));
        if (st == NONE || !grouped[st]) /* unresolved: a hazard pool (hazard.c) */
            continue;
        if (pass) {
            uint64_t mask = 0;
            uint32_t distinct = 0;
            for (uint32_t g = 0; g < cc->ngroups; g++) {
                if (!cc->groups[g])
                    continue;
                uint32_t b = group_bit(names, nnames, cc->groups[g]);
                if (b == NONE)
                    return false;
                distinct += !(mask >> b & 1);
                mask |= (uint64_t)1 << b;
            }
            if (distinct > DRA__CG_MAX)
                return false;
            for (uint32_t i = e->rcg_off[r]; i < *n; i++)
                if (e->rec_set[i] == st)
                    e->cg_row[r] |= DRA__CG_DUP;
            e->rec_set[*n] = st;
            e->rec_row[*n] = r;
            e->rec_mask[*n] = mask;
            e->rec_grp[*n] = cc->ngroups > 0;
        }
        (*n)++;
    }
    return true;
}

/* The compatibility-group columns (see above), before the counters' fit is counted. Nothing when
 * the rule is not in force or no device declares groups; cg_on stays false when a device's
 * groups exceed what the masks hold. Memory from the engine arena. DRA_ENOMEM. */
static int counters_groups(dra_engine_t *e, const setdict_t *sd)
{
    const dra_table_t *t = e->t;
    dra_arena_t *a = &e->arena;
    if (!(e->beh.cg || e->beh.cg_skip))
        return DRA_OK;
    uint8_t *grouped = dra_arena_calloc(a, (size_t)e->nsets + 1, 1, 8);
    if (!grouped)
        return DRA_ENOMEM;
    bool any = false;
    for (uint32_t r = 0; r < t->nrows; r++) {
        const dra_device_t *d = t->dev[r];
        for (uint32_t c = 0; d && c < d->nconsumes; c++) {
            if (!d->consumes[c].ngroups)
                continue;
            uint32_t st = set_find(sd->keys, sd->slots, sd->nslots, dra__row_driver(e, r),
                                   dra__row_pool(e, r), dra__nz(d->consumes[c].counter_set));
            if (st != NONE)
                grouped[st] = any = true;
        }
    }
    if (!any)
        return DRA_OK;
    e->rcg_off = dra_arena_calloc(a, (size_t)t->nrows + 1, sizeof *e->rcg_off, 8);
    e->cg_row = dra_arena_calloc(a, (size_t)t->nrows + 1, 1, 8);
    e->cgm_off = dra_arena_calloc(a, (size_t)e->nsets + 2, sizeof *e->cgm_off, 8);
    e->cg_kind = dra_arena_calloc(a, (size_t)e->nsets + 1, 1, 8);
    e->cg_m = dra_arena_calloc(a, (size_t)e->nsets + 1, sizeof *e->cg_m, 8);
    const char *names[64];
    uint32_t nnames = 0, n = 0;
    if (!e->rcg_off || !e->cg_row || !e->cgm_off || !e->cg_kind || !e->cg_m)
        return DRA_ENOMEM;
    for (uint32_t r = 0; r < t->nrows; r++)
        (void)cg_row_records(e, sd, grouped, r, false, names, &nnames, &n);
    e->rec_set = dra_arena_calloc(a, (size_t)n + 1, sizeof *e->rec_set, 8);
    e->rec_row = dra_arena_calloc(a, (size_t)n + 1, sizeof *e->rec_row, 8);
    e->rec_mask = dra_arena_calloc(a, (size_t)n + 1, sizeof *e->rec_mask, 8);
    e->rec_grp = dra_arena_calloc(a, (size_t)n + 1, 1, 8);
    e->cgm = dra_arena_calloc(a, (size_t)n + 1, sizeof *e->cgm, 8);
    if (!e->rec_set || !e->rec_row || !e->rec_mask || !e->rec_grp || !e->cgm)
        return DRA_ENOMEM;
    n = 0;
    for (uint32_t r = 0; r < t->nrows; r++) {
        e->rcg_off[r] = n;
        if (!cg_row_records(e, sd, grouped, r, true, names, &nnames, &n))
            return DRA_OK; /* cg_on stays false: the masks cannot hold the groups */
        if (t->dev[r] && dra__device_has_groups(t->dev[r]))
            e->cg_row[r] |= DRA__CG_DECL;
    }
    e->rcg_off[t->nrows] = n;
    /* members per set: the records by set, in row order */
    for (uint32_t i = 0; i < n; i++)
        e->cgm_off[e->rec_set[i] + 1]++;
    for (uint32_t s = 0; s < e->nsets; s++)
        e->cgm_off[s + 1] += e->cgm_off[s];
    uint32_t *fill = dra_arena_calloc(a, (size_t)e->nsets + 1, sizeof *fill, 8);
    e->cg_ng = dra_arena_calloc(a, (size_t)e->nsets + 1, sizeof *e->cg_ng, 8);
    e->cg_nn = dra_arena_calloc(a, (size_t)e->nsets + 1, sizeof *e->cg_nn, 8);
    e->cg_u = dra_arena_calloc(a, (size_t)e->nsets + 1, sizeof *e->cg_u, 8);
    e->cg_coff = dra_arena_calloc(a, (size_t)e->nsets + 1, sizeof *e->cg_coff, 8);
    if (!fill || !e->cg_ng || !e->cg_nn || !e->cg_u || !e->cg_coff)
        return DRA_ENOMEM;
    for (uint32_t i = 0; i < n; i++) {
        uint32_t s = e->rec_set[i];
        e->cgm[e->cgm_off[s] + fill[s]++] = i;
        if (e->rec_grp[i])
            e->cg_u[s] |= e->rec_mask[i];
    }
    /* the counts per group of each set's union, then the members in use counted */
    uint32_t ncnt = 0;
    for (uint32_t s = 0; s < e->nsets; s++) {
        e->cg_coff[s] = ncnt;
        ncnt += (uint32_t)__builtin_popcountll(e->cg_u[s]);
    }
    if (!(e->cg_cnt = dra_arena_calloc(a, (size_t)ncnt + 1, sizeof *e->cg_cnt, 8)))
        return DRA_ENOMEM;
    for (uint32_t i = 0; i < n; i++)
        if (e->rs[e->rec_row[i]].use)
            cg_count(e, i, 1);
    for (uint32_t s = 0; s < e->nsets; s++)
        cg_state_counted(e, s, &e->cg_kind[s], &e->cg_m[s]);
    e->cg_on = true;
    for (uint32_t r = 0; r < t->nrows; r++)
        if (dra__cg_refused(e, r, false))
            e->cg_row[r] |= DRA__CG_REF;
    return DRA_OK;
}

/* Adds the consumption of the devices already in use to the counters, then counts each row's
 * entries that no longer fit (and the compatibility-group refusals, counters_groups). */
static int counters_in_use(dra_engine_t *e)
{
    const dra_table_t *t = e->t;
    for (uint32_t r = 0; r < t->nrows; r++)
        if (e->rs[r].use)
            for (uint32_t i = dra__ent_b(e, r); i < dra__ent_e(e, r); i++)
                e->crem[dra__ent_ctr(e, r, i)] -= dra__ent_amt(e, i);
    for (uint32_t c = 0; c < e->nctrs; c++)
        e->nneg += e->crem[c] < 0;
    /* from here on the copies are the remainders (dra__crem) while cl_v64: exact (counters_v64) */
    for (uint32_t c = 0; e->cl_v64 && c < e->nctrs; c++)
        e->crem64[c] = (int64_t)(e->crem[c] >> e->cl_shift);
    e->nfail_on = true;
    for (uint32_t r = 0; r < t->nrows; r++) {
        e->rs[r].nfail = dra__row_nfail(e, r);
        /* the row record's copy of "consumes counters" (dra__rs_ctr), fixed from here */
        e->rs[r].nodec = dra__rs_nodec(dra__rs_node(&e->rs[r]), e->rc_pat[r] != NONE);
    }
    for (uint32_t c = 0; c < e->nctrs; c++)
        e->ctrs[c].cut = dra__ctr_cut(e, c, e->crem[c]);
    for (uint32_t st = 0; e->set_masked && st < e->nsets; st++)
        if (e->set_masked[st])
            e->set_m[e->set_ctr0[st]] = (dra__setm_t){
                set_fails(e, e->set_ctr0[st], e->set_ctr0[st] + e->set_nctr[st]),
                set_charged(e, st)};
    return DRA_OK;
}

int dra__counters_setup(dra_engine_t *e)
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
    sd.keys = dra_mem_calloc(nkeys, sizeof *sd.keys);
    sd.slots = dra_mem_calloc(sd.nslots, sizeof *sd.slots);
    int rc = DRA_ENOMEM;
    if (sd.keys && sd.slots && !(rc = counters_alloc(e, &sd, counters_sets(e, &sd))) &&
        !(rc = counters_entries(e, &sd)) && !(rc = counters_set_rows(e)) &&
        !(rc = counters_shapes(e)) && !(rc = counters_groups(e, &sd)))
        rc = counters_in_use(e);
    dra_mem_free(sd.keys);
    dra_mem_free(sd.slots);
    return rc;
}
