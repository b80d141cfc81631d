/*
 * fast.c - the fast allocator (fast.h): the reference allocator's search (the one in
 * search_impl.h, compiled here with this file's hooks, so decisions, messages, shareIDs and
 * allocateOne counts agree; the steps both share, from claim preprocessing to allocateDevice, and
 * the results are in claims.c) over indexes that outlive a call:
 *  - GatherPools and the slot layout of a node are computed on the node's first call from the
 *    slices bucketed for it (its nodeName bucket, the slices with selectors / allNodes /
 *    per-device selection, and every slice of the pools those touch, in model order, so the
 *    gathering sees exactly what it would see over the whole model) and reused afterwards; the
 *    layout is kept per slice (first slot, first row), the search's slots built from it per call
 *    as dra__acall_layout builds the reference's;
 *  - selectability (class + request selectors) is cached per (class, request selector texts)
 *    and device row for the allocator's lifetime; errors are cached as errors and re-evaluated
 *    for their message only when the search reaches them; per-device node selection stays a
 *    per-call check;
 *  - allocation state is looked up per device only when the search reaches the device;
 *  - pruning: a request that needs k more devices fails at once when fewer than k candidates
 *    are left ahead of the search position (enabled only when it cannot change the outcome:
 *    no upstream-bug leaks, no multi-allocatable device on the node (once because pruned
 *    attempts drew shareIDs from a stream; they are derived now, the exclusion is kept), no
 *    step budget, no invalid pool, no CEL error in the skipped region).
 */
#include <limits.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define XXH_INLINE_ALL
#include <xxhash.h>

#include "alloc/alloc_impl.h"
#include "alloc/fast.h"
#include "alloc/fast_tests.h"
#include "base/bitset.h"
#include "base/intern.h"




/* Persistent selector cache of one (class, request selectors) combination: per device row
 * 0 unknown, 1 no match, 2 match, 3 error (re-evaluated for its message), two bits each
 * (sig_val / sig_set). */
typedef struct fsig {
    const dra_device_class_t *cls;
    const char **sel; /* copies of the request selector expressions */
    uint32_t nsel;
    uint64_t hash;
    uint8_t *val;
    struct fsig *next;
    /* dra_fast_seed_selectors' last complete seeding of val (its row map and bitsets, row
     * count): the same call again changes nothing and returns at once. Cleared when rows are
     * forgotten (dra_fast_invalidate_slice). */
    const void *seed_map, *seed_match, *seed_err;
    uint32_t seed_n;
    uint32_t bucket; /* saved entries (dra_fast_save): the table bucket it was in */
} fsig_t;
enum { SIG_UNKNOWN = 0, SIG_NO = 1, SIG_YES = 2, SIG_ERR = 3 };

static inline unsigned sig_val(const uint8_t *v, uint32_t row)
{
    return (v[row >> 2] >> ((row & 3) * 2)) & 3u;
}

static inline void sig_set(uint8_t *v, uint32_t row, unsigned x)
{
    unsigned sh = (row & 3) * 2;
    v[row >> 2] = (uint8_t)((v[row >> 2] & ~(3u << sh)) | (x << sh));
}
enum { MIR_VALID = 1, MIR_EXCL = 2, MIR_INUSE = 4, MIR_CAP = 8, MIR_SHARE = 16 };

/* A device row's ID (8 bytes a row): its slice, which gives its device (the name) and its pool's
 * bypool bucket (a->slice_pb), whose keys are the driver and pool names (the row is the index in
 * a->devpool). */
typedef struct fdev {
    uint32_t slice; /* index in m->slices (its device: row - slice_row[slice]) */
    uint32_t next;  /* the next row + 1 in the hash chain of a->devs, 0 = none */
} fdev_t;

/* Everything about a node that does not depend on the state or the claims. */
typedef struct fnode {
    const dra_node_t *key;
    const char *name; /* copies, checked on every hit (the key pointer may be reused) */
    const char **lk, **lv;
    uint32_t nlabels;
    int gather_rc;
    const char *gather_err;
    dra__gpools_t gp;
    /* the slot layout without per-device data: a slot is device d of slice s of pool p, its
     * number slice_base[p][s] + d, its row slice_row[p][s] + d (the search's per-call slots
     * are built from these, build_slots) */
    uint32_t nslots, nscopes, maxcaps;
    bool has_multi; /* a multi-allocatable device (shareIDs) */
    bool has_pdns;  /* a slice with per-device node selection */
    bool has_groups; /* a device of the pools declares compatibility groups (1.37) */
    uint32_t **slice_base;
    uint32_t **slice_row;
    struct fcnt *cnt; /* counters as columns, built on first need */
    struct fnode *next;
} fnode_t;

/* Counters as columns (DRAPartitionableDevices, DRA-SEMANTICS §2.10), per node, built on the
 * first fast-path call that meets a device consuming counters (or by dra_fast_prepare): one
 * entry per (counter scope, counter set, counter) with its available amount (the last
 * definition wins, as in the search's scope table); per consumer (a device of the scopes' pools
 * consuming counters) its consumption as items (entry, amount) summed per entry, counters the
 * scope does not define left out (they limit nothing); and the remaining amount per entry once
 * the devices in use are subtracted, recomputed when a commit / release touched one of the
 * node's pools (bucket versions).
 * Memory (the bulk is the items: a MIG placement consumes ~9 counters): an item is one 32-bit
 * word, an entry in its low ent_bits bits and the index of its amount in the node's dictionary
 * of distinct amounts (amts; 16 on a fleet-5k MIG node) above them. A consumer's items are a
 * profile shared by every consumer with the same items relative to its lowest entry (the same
 * placement on another GPU of the node: its counter set's entries are numbered alike), the
 * entry of an item being the consumer's base plus the item's. The device and pool of a
 * consumer are found from its row (a->devpool). A node whose relative entries and distinct
 * amounts do not fit one word together (never in practice: 2^32 combinations) gets no columns
 * (usable false): its calls that meet a consumer go to the search. */
typedef struct fcnt {
    uint32_t nent, nscopes;
    dra__aq_t *rem;      /* per entry: remaining amount */
    uint32_t *scope_neg; /* per scope: entries with a negative remaining amount */
    uint32_t *ent_scope;
    uint32_t ncons;
    uint32_t *cons_prof, *cons_base; /* per consumer: its profile, its lowest entry */
    uint32_t *prof_off; /* per profile: [prof_off[p], prof_off[p + 1]) into item */
    uint32_t nprof;
    uint32_t *item; /* entry - base | amount index << ent_bits */
    uint32_t ent_bits, ent_mask;
    dra__aq_t *amts; /* distinct amounts */
    uint32_t namts;
    bool usable;
    uint32_t *cons_row; /* (a consumer's scope is its pool, or its slice in 1.34: fp_scan) */
    uint32_t *slot_cons; /* per slot: its consumer index, UINT32_MAX for none */
    uint8_t *cons_inuse; /* per consumer: in use when rem was last brought up to date */
    uint32_t *pools; /* per pool of the node: its number (a->pver; UINT32_MAX: none), and the
                      * version rem was built at */
    uint32_t *ver;
    uint32_t npools;
    bool fresh;
} fcnt_t;

/* string -> list of slice indices */
typedef struct fbucket {
    const char *key1, *key2;
    uint32_t *idx;
    uint32_t n, cap;
    uint32_t id;  /* bypool: index in a->pbk and a->pver (the pool number) */
    struct fbucket *next;
} fbucket_t;

struct dra_fast {
    dra_fast_hints_t hints; /* first (dra_fast_hints): for dra_fast_hint_row (hints_sync) */
    dra__acall_t c; /* model, behaviour, scratch and the per-call state shared with reference.c */
    dra_alloc_features_t f;
    const dra_alloc_state_t *st;
    dra_cel_cache_t *cel;
    dra_alloc_options_t opts;
    dra_arena_t celscratch, perm;
    bool prune_on, paths_on;
    uint32_t cnt_word_bits; /* bits of a packed counter item (32; less only in tests) */

    /* persistent indexes */
    uint32_t nrows;
    uint32_t *slice_row;      /* per model slice: first device row */
    fbucket_t **byname; /* node name -> slices with that nodeName */
    fbucket_t **bypool; /* (driver, pool) -> all its slices */
    size_t bmask;
    uint32_t *general; /* slices to test against every node */
    uint32_t ngeneral;
    uint32_t *pool_of; /* per model slice: its bypool bucket's first slice (pool key) */
    fnode_t **nodes;
    size_t nmask, nnodes;
    fsig_t **sigs;
    size_t sigmask;
    uint8_t *mark; /* per model slice, scratch for node gathering */
    /* row mirror of the state: MIR_VALID set = MIR_EXCL / MIR_INUSE are current; the state's
     * watcher clears a row whenever a commit / release names its device */
    uint8_t *mir;
    /* per row: consumable capacity fits a request without capacity requests and nothing else
     * consumed (0 unknown, 1 yes, 2 no): depends on the device only */
    uint8_t *capfit0;
    uint32_t *devs;     /* hash (driver, pool, device) -> first row + 1 of the chain, 0 = none */
    uint64_t *dupid;    /* per row: another row has the same (driver, pool, device) */
    struct fdev *devpool; /* per row */
    uint32_t *slice_pb;   /* per slice: its pool's number (index in pbk and pver) */
    fbucket_t **pbk;    /* the bypool buckets, numbered */
    /* per pool number: bumped by every commit / release naming a device of the pool (the
     * node's counter columns are rebuilt when one of their pools' changed). A commit or
     * release finds its row's pool number in the row word (DRA_FAST_WORD_*) the allocator
     * keeps in the row's state entry (a line the state's commit / release reads anyway) when
     * the state's rows are its own, else through devpool and slice_pb: no line a row of its
     * own; the versions of a few thousand pools stay in the second level */
    uint32_t *pver;
    uint32_t npbk;
    size_t dmask;
    bool watching;
    /* the end of the model-wide indexes in perm (build_indexes): everything after it (node
     * layouts, counter columns, selector caches) depends on the calls made, dra_fast_reset
     * drops it */
    dra_arena_mark_t built;
    /* the selector caches dra_fast_save copied (their own arena), put back by dra_fast_reset */
    dra_arena_t saved;
    fsig_t *sv;
    uint32_t nsv;
    bool has_saved;

    /* per call, besides c (c.sel only with per-device node selection) */
    const fnode_t *fn;
    /* a fast-path call's slots, its picks (fp_pick writes d, pool and row; the rest stays zero) */
    dra__slot_t rslots[DRA_ALLOC_MAX_RESULTS + 1];
    bool prune;
};
_Static_assert(offsetof(struct dra_fast, hints) == 0,
               "dra_fast_hints reads the hints at the address");

static const char *nz(const char *s)
{
    return s ? s : "";
}

/* ---- construction ---------------------------------------------------------------------------- */

/* ---- persistent indexes ---------------------------------------------------------------------- */

static uint64_t str_hash(const char *x, uint64_t seed)
{
    x = x ? x : "";
    return dra_hash64_seed(x, strlen(x), seed);
}

static bool str_eq(const char *x, const char *y)
{
    return strcmp(x ? x : "", y ? y : "") == 0;
}

static size_t pow2_at_least(size_t n)
{
    size_t k = 16;
    while (k < n)
        k <<= 1;
    return k;
}

static fbucket_t *bucket_get(dra_fast_t *a, fbucket_t **tab, const char *k1, const char *k2,
                             bool add)
{
    size_t h = (size_t)(str_hash(k1, 1) ^ (str_hash(k2, 2) * 31)) & a->bmask;
    for (fbucket_t *e = tab[h]; e; e = e->next)
        if (str_eq(e->key1, k1) && str_eq(e->key2, k2))
            return e;
    if (!add)
        return NULL;
    fbucket_t *e = dra_arena_calloc(&a->perm, 1, sizeof *e, 8);
    if (!e)
        return NULL;
    e->key1 = k1;
    e->key2 = k2;
    e->next = tab[h];
    tab[h] = e;
    return e;
}

static int bucket_push(dra_fast_t *a, fbucket_t *e, uint32_t v)
{
    if (e->n == e->cap) {
        uint32_t nc = e->cap ? e->cap * 2 : 4;
        uint32_t *ni = dra_arena_realloc(&a->perm, e->idx, e->cap * sizeof *ni, nc * sizeof *ni, 4);
        if (!ni)
            return DRA_ENOMEM;
        e->idx = ni;
        e->cap = nc;
    }
    e->idx[e->n++] = v;
    return DRA_OK;
}

static uint64_t dev_hash(const char *drv, const char *pool, const char *dev)
{
    return str_hash(dev, str_hash(pool, str_hash(drv, 7)));
}

static size_t ptr_hash(const void *p)
{
    uint64_t x = (uint64_t)(uintptr_t)p * 0x9e3779b97f4a7c15ULL;
    return (size_t)(x ^ (x >> 29) ^ (x >> 41));
}

/* The slice's position in the model: its index field, checked (a slice not added through
 * dra_model_add_slice is looked for). */
static uint32_t slice_index(const dra_fast_t *a, const dra_slice_t *sl)
{
    const dra_model_t *m = a->c.m;
    if (sl->index < m->nslices && m->slices[sl->index] == sl)
        return sl->index;
    uint32_t i = 0;
    while (i < m->nslices && m->slices[i] != sl)
        i++;
    return i;
}

/* The name (its slice from a->devpool) and the pool number and bucket (a->slice_pb) of device
 * row `row`. O(1). */
static const char *row_name(const dra_fast_t *a, uint32_t row)
{
    uint32_t si = a->devpool[row].slice;
    return nz(a->c.m->slices[si]->devices[row - a->slice_row[si]].name);
}

static uint32_t row_pb(const dra_fast_t *a, uint32_t row)
{
    return a->slice_pb[a->devpool[row].slice];
}

static fbucket_t *row_pool(const dra_fast_t *a, uint32_t row)
{
    return a->pbk[row_pb(a, row)];
}

/* The row word of model row vr + 1 (1 <= vr <= a->nrows, a->c.rows): see DRA_FAST_WORD_DUP. */
static inline uint32_t row_word(const dra_fast_t *a, uint32_t vr)
{
    return dra__state_word(dra__alloc_state_hints(a->st), vr);
}

/* What row_word is for row `row` (0-based), from the allocator's own indexes. */
static uint32_t row_word_of(const dra_fast_t *a, uint32_t row)
{
    return row_pb(a, row) | (dra_bit_get(a->dupid, row) ? DRA_FAST_WORD_DUP : 0);
}

static int build_indexes(dra_fast_t *a)
{
    const dra_model_t *m = a->c.m;
    dra_arena_t *ar = &a->perm;
    uint32_t ns = m->nslices;
    a->slice_row = dra_arena_calloc(ar, ns + 1, sizeof(uint32_t), 4);
    a->pool_of = dra_arena_calloc(ar, ns + 1, sizeof(uint32_t), 4);
    a->mark = dra_arena_calloc(ar, ns + 1, 1, 1);
    a->bmask = pow2_at_least((size_t)ns) - 1;
    a->byname = dra_arena_calloc(ar, a->bmask + 1, sizeof(void *), 8);
    a->bypool = dra_arena_calloc(ar, a->bmask + 1, sizeof(void *), 8);
    a->general = dra_arena_calloc(ar, ns + 1, sizeof(uint32_t), 4);
    a->pbk = dra_arena_calloc(ar, ns + 1, sizeof(void *), 8);
    a->nmask = pow2_at_least((size_t)m->nnodes * 2) - 1;
    a->nodes = dra_arena_calloc(ar, a->nmask + 1, sizeof(void *), 8);
    a->sigmask = 63;
    a->sigs = dra_arena_calloc(ar, a->sigmask + 1, sizeof(void *), 8);
    if (!a->slice_row || !a->pool_of || !a->mark || !a->byname ||
        !a->bypool || !a->general || !a->nodes || !a->sigs || !a->pbk)
        return DRA_ENOMEM;
    uint32_t rows = 0;
    /* each slice's pool bucket id, for the device pass below (no second lookup by name) */
    uint32_t *sb = dra_arena_alloc(ar, ((size_t)ns + 1) * sizeof *sb, 4);
    if (!sb)
        return DRA_ENOMEM;
    for (uint32_t i = 0; i < ns; i++) {
        const dra_slice_t *sl = m->slices[i];
        a->slice_row[i] = rows;
        rows += sl->ndevices;
        fbucket_t *pb = bucket_get(a, a->bypool, nz(sl->driver), nz(sl->pool_name), true);
        if (!pb || bucket_push(a, pb, i))
            return DRA_ENOMEM;
        if (pb->n == 1) { /* a new pool */
            pb->id = a->npbk;
            a->pbk[a->npbk++] = pb;
        }
        sb[i] = pb->id;
        a->pool_of[i] = pb->idx[0];
        /* the relevance rules of dra__gather_pools, as a superset */
        if (!a->c.b.pd && (sl->per_device_node_selection || sl->ncounter_sets > 0))
            continue;
        if (a->c.b.pd && a->c.b.counter_slices_always && sl->ncounter_sets > 0) {
            a->general[a->ngeneral++] = i;
        } else if (sl->node_name && sl->node_name[0]) {
            fbucket_t *nb = bucket_get(a, a->byname, sl->node_name, NULL, true);
            if (!nb || bucket_push(a, nb, i))
                return DRA_ENOMEM;
        } else if (sl->all_nodes || sl->node_selector || sl->per_device_node_selection) {
            a->general[a->ngeneral++] = i;
        }
    }
    a->nrows = rows;
    a->mir = dra_arena_calloc(ar, rows + 1, 1, 64);
    a->capfit0 = dra_arena_calloc(ar, rows + 1, 1, 64);
    if (!a->capfit0)
        return DRA_ENOMEM;
    a->dmask = pow2_at_least((size_t)rows / 2 + 1) - 1; /* chains of two on average: string
                                                          * lookups are the rare path */
    a->devs = dra_arena_calloc(ar, a->dmask + 1, sizeof(uint32_t), 4);
    a->devpool = dra_arena_calloc(ar, rows + 1, sizeof(fdev_t), 8);
    a->slice_pb = dra_arena_calloc(ar, ns + 1, sizeof(uint32_t), 4);
    a->pver = dra_arena_calloc(ar, a->npbk + 1, sizeof(uint32_t), 64);
    a->dupid = dra_arena_calloc(ar, dra_bitset_words((size_t)rows + 1), sizeof(uint64_t), 8);
    if (!a->mir || !a->devs || !a->devpool || !a->dupid || !a->slice_pb || !a->pver)
        return DRA_ENOMEM;
    /* the device-ID hash chains: a slice's rows in chunks whose chain heads, then the heads'
     * rows, are prefetched first (each a cache miss in tables of a million entries); the
     * (driver, pool) part of dev_hash is the slice's, hashed once */
    size_t hs[64];
    for (uint32_t i = 0; i < ns; i++) {
        const dra_slice_t *sl = m->slices[i];
        fbucket_t *pb = sl->ndevices ? a->pbk[sb[i]] : NULL; /* the slice's pool bucket */
        uint64_t seed = sl->ndevices ? str_hash(pb->key2, str_hash(pb->key1, 7)) : 0;
        for (uint32_t d = 0; d < sl->ndevices; d++) {
            if (d % 64 == 0) {
                uint32_t end = sl->ndevices - d < 64 ? sl->ndevices : d + 64;
                for (uint32_t k = d; k < end; k++) {
                    hs[k - d] = (size_t)str_hash(sl->devices[k].name, seed) & a->dmask;
                    __builtin_prefetch(&a->devs[hs[k - d]]);
                }
                for (uint32_t k = d; k < end; k++) { /* then the heads' rows (hints only) */
                    uint32_t o = a->devs[hs[k - d]];
                    if (o)
                        __builtin_prefetch(&a->devpool[o - 1]);
                }
            }
            const uint32_t row = a->slice_row[i] + d;
            fdev_t *e = &a->devpool[row];
            e->slice = i;
            a->slice_pb[i] = pb->id;
            const char *dn = nz(sl->devices[d].name);
            size_t h = hs[d % 64]; /* dev_hash(pb->key1, pb->key2, dn) & a->dmask */
            for (uint32_t o = a->devs[h]; o; o = a->devpool[o - 1].next) {
                /* a pool's number is unique to its (driver, pool) names, so comparing numbers
                 * first leaves the name, three dependent loads away, to rows of the same pool */
                if (row_pb(a, o - 1) == pb->id && str_eq(row_name(a, o - 1), dn)) {
                    dra_bit_set(a->dupid, o - 1);
                    dra_bit_set(a->dupid, row);
                }
            }
            e->next = a->devs[h];
            a->devs[h] = row + 1;
        }
    }
    return a->npbk <= DRA_FAST_WORD_POOL ? DRA_OK : DRA_ENOMEM; /* numbers fit the row word */
}

/* The row words (DRA_FAST_WORD_DUP) in the state's entries, when the state's rows are ours:
 * the same for every allocator over the model, so another one's are overwritten with the same
 * values. O(rows), a store a row's entry (untimed set-up, as the state's own registration). */
static void write_row_words(const dra_fast_t *a)
{
    if (a->c.rows)
        for (uint32_t o = 0; o < a->nrows; o++)
            dra__alloc_state_set_word(a->st, o + 1, row_word_of(a, o));
}

bool dra_fast_row_words_ok(const dra_fast_t *a)
{
    if (!a->c.rows)
        return true;
    if (dra__alloc_state_hints(a->st)->nrows != a->nrows)
        return false;
    for (uint32_t o = 0; o < a->nrows; o++)
        if (row_word(a, o + 1) != row_word_of(a, o) || row_pb(a, o) >= a->npbk)
            return false;
    return true;
}

/* State watcher: forget the mirrored state of every row a commit / release names. A result
 * carrying its row (dra_result_t.row, our own numbering) names exactly that row when the row is
 * that device and no other row has the same device ID; else every row of the ID is found by
 * the strings. */
/* The rows-only form of on_state_change for model row vr + 1 of a repeated ID (every row of the
 * ID, by the row's own strings) or, without a row of ours, every row (never reached by the
 * engine, which releases by rows only over the state's model: correct, and slow). */
static void forget_rows_only(dra_fast_t *a, uint32_t vr)
{
    if (!vr || vr > a->nrows) {
        for (uint32_t o = 0; o < a->nrows; o++) {
            a->mir[o] = 0;
            a->pver[row_pb(a, o)]++;
        }
        return;
    }
    const fbucket_t *vb = row_pool(a, vr - 1);
    const char *dn = row_name(a, vr - 1);
    size_t h = (size_t)dev_hash(nz(vb->key1), nz(vb->key2), nz(dn)) & a->dmask;
    for (uint32_t o = a->devs[h]; o; o = a->devpool[o - 1].next) {
        const fbucket_t *pb = row_pool(a, o - 1);
        if (str_eq(row_name(a, o - 1), dn) && str_eq(pb->key2, vb->key2) &&
            str_eq(pb->key1, vb->key1)) {
            a->mir[o - 1] = 0;
            a->pver[pb->id]++;
        }
    }
}

/* What dra_fast_shortcuts answers, from the switches and the call options. */
static bool shortcuts_now(const dra_fast_t *a)
{
    return a->paths_on && a->prune_on && !a->c.max_steps && !a->c.b.bugs;
}

/* The hint view (dra_fast_hint_row) of the row mirror's columns as they are now: after they are
 * made, and whenever c.rows is set; and dra_fast_shortcuts's flag (also at each switch). */
static void hints_sync(dra_fast_t *a)
{
    a->hints.mir = a->mir;
    a->hints.pver = a->pver;
    a->hints.st = dra__alloc_state_hints(a->st);
    a->hints.nrows = a->c.rows ? a->nrows : 0;
    a->hints.shortcuts = shortcuts_now(a);
}

bool dra_fast_hints_ok(const dra_fast_t *a)
{
    const dra_fast_hints_t *h = dra_fast_hints(a);
    return h->mir == a->mir && h->pver == a->pver && h->st == dra__alloc_state_hints(a->st) &&
           h->nrows == (a->c.rows ? a->nrows : 0) && h->shortcuts == shortcuts_now(a);
}

void dra_fast_prefetch_pool(const dra_fast_t *a, uint32_t row)
{
    if (a && a->c.rows && row && row <= a->nrows)
        __builtin_prefetch(&a->pver[row_word(a, row) & DRA_FAST_WORD_POOL], 1);
}

DRA_NOINLINE static void on_state_change_from(dra_fast_t *a, const dra_allocation_t *al,
                                              const uint32_t *rows, uint32_t n, uint32_t i);

static void on_state_change(void *ctx, const dra_allocation_t *al, const uint32_t *rows,
                            uint32_t n)
{
    dra_fast_t *a = ctx;
    uint32_t i = 0;
    /* the rows the state resolved, each the only row of its ID (every commit and release of
     * the engine's): in this loop, which needs none of the rest's registers */
    if (rows && a->c.rows)
        for (; i < n; i++) {
            uint32_t vr = rows[i], w;
            /* the row's pool number and repeated-ID bit from its state entry, which the
             * state's commit / release has just read (no line of ours but the mirror's and
             * the pool's version) */
            if (!vr || vr > a->nrows || ((w = row_word(a, vr)) & DRA_FAST_WORD_DUP))
                break;
            a->mir[vr - 1] = 0;
            a->pver[w]++;
        }
    if (i < n)
        on_state_change_from(a, al, rows, n, i);
}

/* on_state_change from result i on. */
DRA_NOINLINE static void on_state_change_from(dra_fast_t *a, const dra_allocation_t *al,
                                              const uint32_t *rows, uint32_t n, uint32_t i)
{
    for (; i < n; i++) {
        /* the state's resolved row is the device's (our numbering when we share its model) */
        uint32_t vr = rows && a->c.rows ? rows[i] : 0;
        if (vr && vr <= a->nrows && !dra_bit_get(a->dupid, vr - 1)) {
            a->mir[vr - 1] = 0;
            a->pver[row_pb(a, vr - 1)]++;
            continue;
        }
        if (!al) { /* rows only (a release by rows): the row's own ID names the others */
            forget_rows_only(a, vr);
            continue;
        }
        const dra_result_t *r = &al->results[i];
        if (r->row && r->row <= a->nrows && !dra_bit_get(a->dupid, r->row - 1)) {
            const fbucket_t *pb = row_pool(a, r->row - 1);
            const char *dn = row_name(a, r->row - 1);
            if (dn == r->device ||
                (str_eq(dn, r->device) && str_eq(pb->key2, r->pool) && str_eq(pb->key1, r->driver))) {
                a->mir[r->row - 1] = 0;
                a->pver[pb->id]++;
                continue;
            }
        }
        size_t h = (size_t)dev_hash(nz(r->driver), nz(r->pool), nz(r->device)) & a->dmask;
        for (uint32_t o = a->devs[h]; o; o = a->devpool[o - 1].next) {
            const fbucket_t *pb = row_pool(a, o - 1);
            if (str_eq(row_name(a, o - 1), r->device) && str_eq(pb->key2, r->pool) &&
                str_eq(pb->key1, r->driver)) {
                a->mir[o - 1] = 0;
                a->pver[pb->id]++; /* the pool's counter columns must be brought up to date */
            }
        }
    }
}

/* Mirrored state bits of a row (MIR_EXCL, MIR_INUSE), looked up after a change. */
static uint8_t mirror(dra_fast_t *a, uint32_t row, const char *driver, const char *pool,
                      const char *device)
{
    uint8_t v = a->mir[row];
    if (DRA_LIKELY(v & MIR_VALID))
        return v;
    v = MIR_VALID;
    /* rows are the state's own numbering when it was made for our model (a->c.rows) */
    unsigned f = dra_alloc_state_row_flags(a->st, a->c.rows ? row : UINT32_MAX, driver, pool,
                                           device);
    if (f & DRA_STATE_EXCL)
        v |= MIR_EXCL;
    if (f & DRA_STATE_IN_USE)
        v |= MIR_INUSE;
    if (a->c.b.cc && (f & DRA_STATE_CAP))
        v |= MIR_CAP;
    if (a->c.b.cc && (f & DRA_STATE_SHARE))
        v |= MIR_SHARE;
    a->mir[row] = v;
    return v;
}

static int slot_ready_cb(void *self, dra__slot_t *st);

static bool in_use(void *self, const dra__gpool_t *p, const dra_slice_t *sl, uint32_t d)
{
    dra_fast_t *a = self;
    return mirror(a, a->slice_row[slice_index(a, sl)] + d, p->driver, p->name, sl->devices[d].name) &
           MIR_INUSE;
}

int dra_fast_new(const dra_model_t *m, const dra_alloc_features_t *f,
                 const dra_alloc_state_t *state, dra_cel_cache_t *cel,
                 const dra_alloc_options_t *opts, dra_fast_t **out)
{
    if (!m || !f || !state || !cel || !out)
        return DRA_EINVAL;
    dra_fast_t *a = calloc(1, sizeof *a);
    if (!a)
        return DRA_ENOMEM;
    a->f = *f;
    a->st = state;
    a->cel = cel;
    if (opts)
        a->opts = *opts;
    dra__acall_init(&a->c, m, f, &a->opts);
    a->c.cel = cel; /* derived attributes' programs */
    a->c.state = state; /* shareIDs unique among the state's shares */
    a->prune_on = true;
    a->paths_on = true;
    a->cnt_word_bits = 32;
    a->c.in_use = in_use;
    a->c.slot_ready = slot_ready_cb;
    a->c.rows = dra_alloc_state_model(state) == m;
    a->c.self = a;
    dra_arena_init(&a->celscratch, 64 * 1024);
    dra_arena_init(&a->perm, 256 * 1024);
    dra_arena_init(&a->saved, 64 * 1024);
    if (build_indexes(a) || dra__alloc_state_watch(state, on_state_change, a)) {
        dra_fast_free(a);
        return DRA_ENOMEM;
    }
    write_row_words(a);
    a->built = dra_arena_mark(&a->perm);
    a->watching = true;
    hints_sync(a);
    *out = a;
    return DRA_OK;
}

int dra_fast_save(dra_fast_t *a)
{
    if (!a)
        return DRA_EINVAL;
    a->has_saved = false;
    a->nsv = 0;
    dra_arena_reset(&a->saved);
    uint32_t n = 0;
    for (size_t h = 0; h <= a->sigmask; h++)
        for (const fsig_t *e = a->sigs[h]; e; e = e->next)
            n++;
    a->sv = dra_arena_calloc(&a->saved, n + 1, sizeof *a->sv, 8);
    if (!a->sv)
        return DRA_ENOMEM;
    for (size_t h = 0; h <= a->sigmask; h++)
        for (const fsig_t *e = a->sigs[h]; e; e = e->next) {
            fsig_t *sv = &a->sv[a->nsv++];
            *sv = *e;
            sv->next = NULL;
            sv->bucket = (uint32_t)h;
            sv->sel = dra_arena_calloc(&a->saved, e->nsel + 1, sizeof(char *), 8);
            sv->val = dra_arena_alloc(&a->saved, a->nrows / 4 + 1, 64);
            if (!sv->sel || !sv->val)
                return DRA_ENOMEM;
            memcpy(sv->val, e->val, a->nrows / 4 + 1);
            for (uint32_t i = 0; i < e->nsel; i++)
                if (!(sv->sel[i] = dra_arena_strdup(&a->saved, e->sel[i])))
                    return DRA_ENOMEM;
        }
    a->has_saved = true;
    return DRA_OK;
}

void dra_fast_reset(dra_fast_t *a)
{
    if (!a)
        return;
    const dra_model_t *m = a->c.m;
    /* what build_indexes made and does not change afterwards is kept: the slice rows, the
     * node-name and pool buckets (their slice lists), the general slices, the device-ID hash
     * chains and per-row pool entries; the rest is put back as build_indexes left it */
    dra_arena_reset_to(&a->perm, a->built);
    memset(a->nodes, 0, (a->nmask + 1) * sizeof *a->nodes);
    a->nnodes = 0;
    memset(a->sigs, 0, (a->sigmask + 1) * sizeof *a->sigs);
    /* the saved selector caches, each in its bucket in the order it was in (the last first) */
    for (uint32_t i = a->has_saved ? a->nsv : 0; i-- > 0;) {
        const fsig_t *sv = &a->sv[i];
        fsig_t *e = dra_arena_alloc(&a->perm, sizeof *e, 8);
        uint8_t *val = dra_arena_alloc(&a->perm, a->nrows / 4 + 1, 64);
        if (!e || !val) { /* out of memory: the caches start empty, as on a new allocator */
            memset(a->sigs, 0, (a->sigmask + 1) * sizeof *a->sigs);
            break;
        }
        *e = *sv;
        memcpy(val, sv->val, a->nrows / 4 + 1);
        e->val = val;
        e->next = a->sigs[sv->bucket];
        a->sigs[sv->bucket] = e;
    }
    memset(a->mark, 0, (size_t)m->nslices + 1);
    memset(a->mir, 0, (size_t)a->nrows + 1);
    memset(a->capfit0, 0, (size_t)a->nrows + 1);
    memset(a->pver, 0, ((size_t)a->npbk + 1) * sizeof *a->pver);
    /* the per-call state as dra_fast_new set it up, its arenas' chunks kept for reuse */
    dra_arena_t scratch = a->c.scratch;
    memset(&a->c, 0, sizeof a->c);
    dra__acall_init(&a->c, m, &a->f, &a->opts);
    dra_arena_fini(&a->c.scratch);
    a->c.scratch = scratch;
    dra__acall_reset_scratch(&a->c);
    a->c.cel = a->cel;
    a->c.state = a->st;
    a->c.in_use = in_use;
    a->c.slot_ready = slot_ready_cb;
    a->c.rows = dra_alloc_state_model(a->st) == m;
    a->c.self = a;
    hints_sync(a);
    DRA_ASSERT_EXPENSIVE(dra_fast_row_words_ok(a)); /* the model's: kept since dra_fast_new */
    dra_arena_reset(&a->celscratch);
    a->fn = NULL;
    a->prune = false;
    memset(a->rslots, 0, sizeof a->rslots);
}

void dra_fast_free(dra_fast_t *a)
{
    if (!a)
        return;
    if (a->watching)
        dra__alloc_state_unwatch(a->st, on_state_change, a);
    dra_arena_fini(&a->c.scratch);
    dra_arena_fini(&a->celscratch);
    dra_arena_fini(&a->perm);
    dra_arena_fini(&a->saved);
    free(a);
}

void dra_fast_set_pruning(dra_fast_t *a, bool on)
{
    if (a) {
        a->prune_on = on;
        a->hints.shortcuts = shortcuts_now(a);
    }
}

void dra_fast_set_paths(dra_fast_t *a, bool on)
{
    if (a) {
        a->paths_on = on;
        a->hints.shortcuts = shortcuts_now(a);
    }
}

void dra_fast_set_counter_word_bits(dra_fast_t *a, uint32_t bits)
{
    if (a)
        a->cnt_word_bits = bits < 2 ? 2 : bits > 32 ? 32 : bits;
}

const char *dra_fast_path_name(dra_fast_path_t p)
{
    static const char *const names[DRA_FAST_PATH_COUNT] = {"search", "first", "match", "counters",
                                                           "unsat"};
    return (unsigned)p < DRA_FAST_PATH_COUNT ? names[p] : "?";
}

static int cmp_u32(const void *x, const void *y)
{
    uint32_t p = *(const uint32_t *)x, q = *(const uint32_t *)y;
    return p < q ? -1 : p > q;
}

static bool node_same(const fnode_t *fn, const dra_node_t *node)
{
    if (fn->key != node || !str_eq(fn->name, node->name) || fn->nlabels != node->nlabels)
        return false;
    for (uint32_t i = 0; i < fn->nlabels; i++)
        if (!str_eq(fn->lk[i], node->labels[i].key) || !str_eq(fn->lv[i], node->labels[i].value))
            return false;
    return true;
}

static int build_node_slots(dra_fast_t *a, fnode_t *fn);

/* n slice pointers copied into ar (NULL for none). */
static int slices_keep(dra_arena_t *ar, const dra_slice_t **src, uint32_t n,
                       const dra_slice_t ***out)
{
    *out = NULL;
    if (!n)
        return DRA_OK;
    const dra_slice_t **d = dra_arena_alloc(ar, n * sizeof *d, 8);
    if (!d)
        return DRA_ENOMEM;
    memcpy(d, src, n * sizeof *d);
    *out = d;
    return DRA_OK;
}

/* The gathered pools src (in scratch) copied into ar: the pools and their slice lists at their
 * exact sizes, without the gathering's hash sets and grown arrays. */
static int gpools_keep(dra_arena_t *ar, const dra__gpools_t *src, dra__gpools_t *dst)
{
    *dst = *src;
    dst->pools = dra_arena_alloc(ar, (src->n ? src->n : 1) * sizeof *dst->pools, 8);
    if (!dst->pools)
        return DRA_ENOMEM;
    for (uint32_t p = 0; p < src->n; p++) {
        const dra__gpool_t *s = &src->pools[p];
        dra__gpool_t *d = &dst->pools[p];
        *d = *s;
        if (slices_keep(ar, s->slices, s->nslices, &d->slices) ||
            slices_keep(ar, s->other, s->nother, &d->other) ||
            slices_keep(ar, s->counter_slices, s->ncounter_slices, &d->counter_slices) ||
            (s->invalid_reason && !(d->invalid_reason = dra_arena_strdup(ar, s->invalid_reason))))
            return DRA_ENOMEM;
    }
    return DRA_OK;
}

/* The node's gathered pools and slot layout, built on first use. NULL: out of memory. */
static fnode_t *node_get(dra_fast_t *a, const dra_node_t *node)
{
    size_t h = ptr_hash(node) & a->nmask;
    fnode_t **pp = &a->nodes[h];
    for (fnode_t *e = *pp; e; pp = &e->next, e = e->next)
        if (e->key == node) {
            if (node_same(e, node))
                return e;
            *pp = e->next; /* the pointer now names another node: forget the old entry */
            break;
        }
    dra_arena_t *ar = &a->perm;
    fnode_t *fn = dra_arena_calloc(ar, 1, sizeof *fn, 8);
    if (!fn)
        return NULL;
    fn->key = node;
    fn->name = node->name ? dra_arena_strdup(ar, node->name) : NULL;
    fn->nlabels = node->nlabels;
    fn->lk = dra_arena_calloc(ar, node->nlabels + 1, sizeof(char *), 8);
    fn->lv = dra_arena_calloc(ar, node->nlabels + 1, sizeof(char *), 8);
    if (!fn->lk || !fn->lv || (node->name && !fn->name))
        return NULL;
    for (uint32_t i = 0; i < node->nlabels; i++) {
        fn->lk[i] = node->labels[i].key ? dra_arena_strdup(ar, node->labels[i].key) : NULL;
        fn->lv[i] = node->labels[i].value ? dra_arena_strdup(ar, node->labels[i].value) : NULL;
    }
    /* the slices that may be relevant, plus every slice of their pools, in model order */
    const fbucket_t *nb = node->name ? bucket_get(a, a->byname, node->name, NULL, false) : NULL;
    uint32_t cap = (nb ? nb->n : 0) + a->ngeneral;
    uint32_t *idx = dra_arena_calloc(&a->c.scratch, cap + 1, sizeof(uint32_t), 4);
    if (!idx)
        return NULL;
    uint32_t n = 0;
    for (uint32_t i = 0; nb && i < nb->n; i++)
        idx[n++] = nb->idx[i];
    for (uint32_t i = 0; i < a->ngeneral; i++)
        idx[n++] = a->general[i];
    uint32_t total = 0;
    for (uint32_t i = 0; i < n; i++) {
        const dra_slice_t *sl = a->c.m->slices[a->pool_of[idx[i]]];
        uint32_t first = a->pool_of[idx[i]];
        if (a->mark[first] & 2)
            continue;
        a->mark[first] |= 2;
        const fbucket_t *pb = bucket_get(a, a->bypool, nz(sl->driver), nz(sl->pool_name), false);
        total += pb ? pb->n : 0;
    }
    uint32_t *all = dra_arena_calloc(&a->c.scratch, total + 1, sizeof(uint32_t), 4);
    const dra_slice_t **sp = dra_arena_calloc(&a->c.scratch, total + 1, sizeof(void *), 8);
    if (!all || !sp)
        return NULL;
    uint32_t k = 0;
    for (uint32_t i = 0; i < n; i++) {
        uint32_t first = a->pool_of[idx[i]];
        if (!(a->mark[first] & 2))
            continue;
        a->mark[first] &= (uint8_t)~2u;
        const dra_slice_t *sl = a->c.m->slices[first];
        const fbucket_t *pb = bucket_get(a, a->bypool, nz(sl->driver), nz(sl->pool_name), false);
        for (uint32_t j = 0; pb && j < pb->n; j++)
            all[k++] = pb->idx[j];
    }
    qsort(all, k, sizeof *all, cmp_u32);
    for (uint32_t i = 0; i < k; i++)
        sp[i] = a->c.m->slices[all[i]];
    dra_model_t fm = *a->c.m; /* the same model restricted to those slices (read-only view) */
    fm.slices = (dra_slice_t **)(void *)sp;
    fm.nslices = k;
    fm.cap_slices = k;
    char err[DRA_DIAG_MSG_MAX];
    err[0] = 0;
    /* gathered in scratch (its hash sets and grown arrays are garbage afterwards), kept compact */
    dra__gpools_t tmp;
    fn->gather_rc = dra__gather_pools(&fm, &a->c.b, node, &a->c.scratch, &tmp, err, sizeof err);
    if (fn->gather_rc == DRA_ENOMEM || (!fn->gather_rc && gpools_keep(ar, &tmp, &fn->gp)))
        return NULL;
    if (fn->gather_rc) {
        fn->gather_err = dra_arena_strdup(ar, err);
        if (!fn->gather_err)
            return NULL;
    } else if (build_node_slots(a, fn)) {
        return NULL;
    }
    fn->next = a->nodes[h];
    a->nodes[h] = fn;
    a->nnodes++;
    return fn;
}

/* The persistent selector cache of (class, request selectors). NULL: out of memory. */
static fsig_t *sig_get(dra_fast_t *a, const dra_device_class_t *cls, const dra_exact_request_t *req)
{
    uint64_t hv = (uint64_t)(uintptr_t)cls * 0x9e3779b97f4a7c15ULL;
    for (uint32_t i = 0; i < req->nselectors; i++)
        hv = str_hash(req->selectors[i].cel, hv + i);
    size_t h = (size_t)hv & a->sigmask;
    for (fsig_t *e = a->sigs[h]; e; e = e->next) {
        if (e->hash != hv || e->cls != cls || e->nsel != req->nselectors)
            continue;
        uint32_t i = 0;
        while (i < e->nsel && str_eq(e->sel[i], req->selectors[i].cel))
            i++;
        if (i == e->nsel)
            return e;
    }
    dra_arena_t *ar = &a->perm;
    fsig_t *e = dra_arena_calloc(ar, 1, sizeof *e, 8);
    if (!e)
        return NULL;
    e->cls = cls;
    e->hash = hv;
    e->nsel = req->nselectors;
    e->sel = dra_arena_calloc(ar, e->nsel + 1, sizeof(char *), 8);
    e->val = dra_arena_calloc(ar, a->nrows / 4 + 1, 1, 64);
    if (!e->sel || !e->val)
        return NULL;
    for (uint32_t i = 0; i < e->nsel; i++)
        if (!(e->sel[i] = dra_arena_strdup(ar, nz(req->selectors[i].cel))))
            return NULL;
    e->next = a->sigs[h];
    a->sigs[h] = e;
    return e;
}

/* ---- slots and state ------------------------------------------------------------------------- */

/* The state-independent layout of the node's slots, kept in perm: per pool and slice the first
 * slot and the first device row; the slot count, the counter scope count and the most
 * capacities of a device, as dra__acall_layout computes them. Nothing per device: 8 bytes per
 * slice. */
static int build_node_slots(dra_fast_t *a, fnode_t *fn)
{
    const dra__gpools_t *gp = &fn->gp;
    dra_arena_t *ar = &a->perm;
    fn->slice_base = dra_arena_alloc(ar, (gp->n ? gp->n : 1) * sizeof(uint32_t *), 8);
    fn->slice_row = dra_arena_alloc(ar, (gp->n ? gp->n : 1) * sizeof(uint32_t *), 8);
    if (!fn->slice_base || !fn->slice_row)
        return DRA_ENOMEM;
    uint32_t k = 0, nsc = 0, mc = 0;
    for (uint32_t p = 0; p < gp->n; p++) {
        const dra__gpool_t *pool = &gp->pools[p];
        uint32_t ns = pool->nslices ? pool->nslices : 1;
        uint32_t *base = dra_arena_calloc(ar, ns, sizeof(uint32_t), 4);
        uint32_t *row = dra_arena_calloc(ar, ns, sizeof(uint32_t), 4);
        if (!base || !row)
            return DRA_ENOMEM;
        fn->slice_base[p] = base;
        fn->slice_row[p] = row;
        /* counter scopes: per pool (1.35+) or per slice (1.34), as dra__acall_layout */
        nsc += a->c.b.pool_counters ? 1 : pool->nslices;
        for (uint32_t s = 0; s < pool->nslices; s++) {
            const dra_slice_t *sl = pool->slices[s];
            base[s] = k;
            row[s] = a->slice_row[slice_index(a, sl)];
            k += sl->ndevices;
            fn->has_pdns |= sl->per_device_node_selection && sl->ndevices > 0;
            for (uint32_t d = 0; d < sl->ndevices; d++) {
                const dra_device_t *dev = &sl->devices[d];
                fn->has_multi |= dev->allow_multiple_allocations;
                fn->has_groups |= dra__device_has_groups(dev);
                if (dev->ncaps > mc)
                    mc = dev->ncaps;
            }
        }
        for (uint32_t s = 0; s < pool->nother; s++) /* allocated peers there count too */
            for (uint32_t d = 0; d < pool->other[s]->ndevices; d++)
                fn->has_groups |= dra__device_has_groups(&pool->other[s]->devices[d]);
    }
    fn->nslots = k;
    fn->nscopes = nsc;
    fn->maxcaps = mc;
    return DRA_OK;
}

/* Per call (the search): the node's slots, every dynamic field empty, in scratch (what
 * dra__acall_layout builds, plus each device's row and per-device node selection). */
static int build_slots(dra_fast_t *a)
{
    dra_arena_t *ar = &a->c.scratch;
    const fnode_t *fn = a->fn;
    const dra__gpools_t *gp = &fn->gp;
    uint32_t n = fn->nslots;
    a->c.nslots = n;
    a->c.slice_base = fn->slice_base;
    a->c.maxcaps = fn->maxcaps;
    dra__slot_t *slots = dra_arena_alloc(ar, (n ? n : 1) * sizeof(dra__slot_t), 16);
    uint32_t w = (uint32_t)dra_bitset_words(a->c.nclaims ? a->c.nclaims : 1);
    a->c.claim_words = w;
    uint64_t *tk = dra_arena_calloc(ar, (size_t)(n ? n : 1) * w, 8, 8);
    a->c.nscopes = fn->nscopes;
    a->c.scopes = dra_arena_calloc(ar, fn->nscopes ? fn->nscopes : 1, sizeof(dra__scope_t), 16);
    if (!slots || !tk || !a->c.scopes)
        return DRA_ENOMEM;
    a->c.slots = slots;
    const bool pool_counters = a->c.b.pool_counters;
    uint32_t sk = 0;
    for (uint32_t p = 0; p < gp->n; p++) {
        const dra__gpool_t *pool = &gp->pools[p];
        const uint32_t pscope = dra__pool_scope(&a->c.b, gp, p);
        for (uint32_t s = 0; s < pool->nslices; s++) {
            const dra_slice_t *sl = pool->slices[s];
            const uint32_t scope = pool_counters ? pscope : sk++;
            const uint32_t row0 = fn->slice_row[p][s];
            const bool pdns = sl->per_device_node_selection;
            dra__slot_t *st = &slots[fn->slice_base[p][s]];
            uint64_t *t = tk + (size_t)fn->slice_base[p][s] * w;
            for (uint32_t d = 0; d < sl->ndevices; d++, st++, t += w)
                *st = (dra__slot_t){.d = &sl->devices[d], .pool = p, .taken = t, .scope = scope,
                                    .row = row0 + d, .pdns = pdns};
        }
    }
    return DRA_OK;
}

/* The state of a slot's device, looked up the first time the search needs it in this call. */
static int slot_ready(dra_fast_t *a, dra__slot_t *st)
{
    if (DRA_LIKELY(st->ready))
        return DRA_OK;
    st->ready = true;
    const dra__gpool_t *pool = &a->c.gp.pools[st->pool];
    const dra_device_t *dev = st->d;
    uint8_t v = mirror(a, st->row, pool->driver, pool->name, dev->name);
    st->excl = (v & MIR_EXCL) != 0;
    if (!a->c.b.cc)
        return DRA_OK; /* capacity and shares are read only with DRAConsumableCapacity */
    st->persist_cap = (v & MIR_CAP) != 0;
    st->persist_share = (v & MIR_SHARE) != 0;
    if (st->persist_cap) {
        st->existing = dra_arena_calloc(&a->c.scratch, dev->ncaps ? dev->ncaps : 1, sizeof(dra__aq_t), 16);
        if (!st->existing)
            return DRA_ENOMEM;
        for (uint32_t c = 0; c < dev->ncaps; c++) {
            dra__aq_t q = 0;
            if (dra__alloc_state_cap_aq(a->st, pool->driver, pool->name, dev->name,
                                       dev->caps[c].name, &q))
                st->existing[c] = q;
        }
    }
    return DRA_OK;
}

static int slot_ready_cb(void *self, dra__slot_t *st)
{
    return slot_ready(self, st);
}

/* ---- selectability --------------------------------------------------------------------------- */

static int selectable(dra_fast_t *a, uint32_t slot, uint32_t rqi, uint32_t ci, bool *match)
{
    const dra__slot_t *st = &a->c.slots[slot];
    if (dra__slot_binding_blocked(&a->c, st)) {
        *match = false;
        return DRA_OK;
    }
    const dra__rq_t *rq = &a->c.rqs[rqi];
    int8_t *cache = NULL;
    bool pv = false;
    if (st->pdns) {
        cache = &a->c.sel[(size_t)slot * a->c.nrqs + rqi];
        if (*cache >= 0) {
            *match = *cache;
            return DRA_OK;
        }
    } else {
        pv = true;
        unsigned v = sig_val(rq->sig->val, st->row);
        if (v == SIG_YES || v == SIG_NO) {
            *match = v == SIG_YES;
            return DRA_OK;
        }
    }
    int rc = dra__acall_eval_selectable(&a->c, a->cel, &a->celscratch, st, rqi, ci, match);
    if (rc == R_NOMEM)
        return R_NOMEM;
    if (rc) {
        if (pv)
            sig_set(rq->sig->val, st->row, SIG_ERR);
        return R_FATAL;
    }
    if (pv)
        sig_set(rq->sig->val, st->row, *match ? SIG_YES : SIG_NO);
    else
        *cache = *match ? 1 : 0;
    return DRA_OK;
}

/* ---- the search's hooks (search_impl.h) ------------------------------------------------------ */

/* Pruning: are at least `need` candidates (free, selectable; an over-estimate of what the
 * search below can use) left from `start`? 1 yes or undecided (a CEL error lies ahead: the
 * search must reach it as the reference does), R_FAIL (0) no, <0 out of memory. */
static int enough_left(dra_fast_t *a, uint32_t ci, uint32_t rqi, bool admin, dra__sloc_t start,
                       int64_t need)
{
    const dra__rq_t *rq = &a->c.rqs[rqi];
    const uint8_t *sigv = rq->sig->val;
    int64_t have = 0;
    /* matchAttribute constraints (scalar mode) already holding a value admit only devices with
     * that value (cons_add rejects the others) */
    const dra__cons_t *fixed[DRA_ALLOC_MAX_CONSTRAINTS];
    uint32_t nfixed = 0;
    const dra__cl_t *cl = &a->c.cls[ci];
    for (uint32_t i = 0; !a->c.b.lists && i < cl->ncons && nfixed < DRA_ALLOC_MAX_CONSTRAINTS; i++) {
        const dra__cons_t *c = &cl->cons[i];
        if (!c->distinct && c->n > 0 && c->ref && c->qname &&
            (c->c->nrequests == 0 || rq->in_scope[i]))
            fixed[nfixed++] = c;
    }
    for (uint32_t p = start.p; p < a->c.gp.n; p++) {
        const dra__gpool_t *pool = &a->c.gp.pools[p];
        if ((pool->incomplete && a->c.b.strict_pools) || pool->invalid)
            continue;
        uint32_t s0 = p == start.p ? start.s : 0;
        if (s0 >= pool->nslices)
            continue;
        uint32_t lo = a->c.slice_base[p][s0] + ((p == start.p && s0 == start.s) ? start.d : 0);
        uint32_t hi = a->c.slice_base[p][pool->nslices - 1] + pool->slices[pool->nslices - 1]->ndevices;
        for (uint32_t slot = lo; slot < hi; slot++) {
            dra__slot_t *st = &a->c.slots[slot];
            if (!st->pdns && sig_val(sigv, st->row) == SIG_NO)
                continue;
            if (admin && dra__slot_taken_by(st, ci))
                continue;
            if (slot_ready(a, st))
                return R_NOMEM;
            if (!admin && (st->excl || st->ntaken > 0))
                continue;
            /* per-device node selection too (its per-call cache): a CEL error there is as
             * much the search's to report as anywhere */
            bool m;
            int rc = selectable(a, slot, rqi, ci, &m);
            if (rc == R_NOMEM)
                return rc;
            if (rc)
                return 1; /* an error ahead: let the search report it where it meets it */
            if (!m)
                continue;
            bool ok = true;
            for (uint32_t i = 0; i < nfixed && ok; i++) {
                const dra_attr_t *at = dra_device_attr(st->d, fixed[i]->qname);
                ok = at && dra__attr_is_scalar(at) && dra__attr_scalar_eq(at, fixed[i]->ref);
            }
            if (!ok)
                continue;
            if (++have >= need)
                return 1;
        }
    }
    return R_FAIL;
}

static inline bool search_skip(dra_fast_t *a, const dra__slot_t *st, const dra__rq_t *rq)
{
    (void)a;
    return !st->pdns && sig_val(rq->sig->val, st->row) == SIG_NO;
}

static inline int search_ready(dra_fast_t *a, dra__slot_t *st)
{
    return slot_ready(a, st);
}

static inline int search_selectable(dra_fast_t *a, uint32_t slot, uint32_t rqi, uint32_t ci,
                                    bool *match)
{
    return selectable(a, slot, rqi, ci, match);
}

static inline int search_prune(dra_fast_t *a, uint32_t ci, uint32_t rqi, bool admin,
                               dra__sloc_t start, int64_t need)
{
    if (!a->prune || need < 2)
        return 1;
    return enough_left(a, ci, rqi, admin, start, need);
}

/* The request's persistent selector cache. */
static inline int search_request_ready(dra_fast_t *a, dra__rq_t *rq)
{
    rq->sig = sig_get(a, rq->cls, rq->body);
    return rq->sig ? DRA_OK : R_NOMEM;
}

#define SEARCH_SELF dra_fast_t
#include "alloc/search_impl.h"

/* ---- exact per-node fast paths ----------------------------------------------------------------
 *
 * Why they return what the search returns. For one claim with one request (ExactCount k, no
 * subrequests, no admin access) the search is: level j scans the node's devices in search order
 * from just after the previous pick (combinations; permutations rescan from the start, skipping
 * the devices already picked) and descends into the first device allocateDevice accepts; it
 * backtracks only when a level finds nothing. Its first leaf is therefore the greedy path: at
 * every level, the first device passing every check given the devices picked so far. When the
 * greedy path reaches k devices the search returns exactly it, with allocateOne = k + 3 (one call
 * per level, then the next request, then the next claim), having evaluated selectors on exactly
 * the devices the greedy scan looked at, in the same order, so a CEL error is met at the same
 * device. Permutations take the same path: every check only gets stricter as devices are picked
 * (a matchAttribute holds a value, a distinctAttribute excludes one more value, counters and
 * capacity shrink), so a device rejected before a pick is rejected after it too.
 * When the greedy path stops short the search backtracks, and the call goes to the search,
 * except when no check depended on the picks (no constraint in scope, no counters met): then
 * every level sees the same eligible set and fewer than k eligible devices is unsatisfiable.
 * That answer skips the search's failing subtrees, like the pruning, so it is taken only where
 * the pruning is allowed (dra_fast_allocate) and changes only the allocateOne count.
 * A CEL error, a device the scan does not judge itself (multi-allocatable under consumable
 * capacity: shareIDs; persisted aggregated capacity), or a step budget below k + 3 sends the
 * call to the search, from scratch (the selector cache keeps what the scan evaluated). */

enum { FP_FALLBACK = 2 };

/* The request's capacity fits the device on its own (no shares), in the profile's arithmetic. */
static bool fast_cap_fits(const dra__acall_t *ac, const dra_exact_request_t *body,
                          const dra_device_t *d)
{
    dra__capmode_t m = dra__capmode(&ac->b);
    char why[8];
    return dra__cap_fits_m(&m, body, d, NULL, NULL, why, sizeof why) == 1;
}

/* The claim shapes the fast paths serve, judged before preprocessing. */
static bool fp_shape(const dra_fast_t *a, dra_claim_t *const *claims, uint32_t n)
{
    if (!a->paths_on || n != 1 || a->c.b.bugs || a->fn->has_pdns || a->c.gp.any_invalid)
        return false;
    /* DRASharedConsumableCapacity on: request-driven counters and snapshots (sharedcap.c) are
     * the search's (claims.c) */
    if (a->c.b.scc)
        return false;
    /* 1.37's features: derived attributes, capacity requests whose checks may be fatal or use
     * another arithmetic: the search (compatibility groups: fp_scan, for one device) */
    if (dra__claims_need_search(&a->c.b, claims, n, true))
        return false;
    const dra_claim_t *c = claims[0];
    if (c->nrequests != 1 || (c->nconstraints && a->c.b.lists))
        return false;
    const dra_request_t *r = &c->requests[0];
    return !r->nfirst_available && r->exactly && r->exactly->mode == DRA_MODE_EXACT_COUNT &&
           !r->exactly->admin_access;
}

/* Add device d to every constraint of the claim (dra__acall_allocate_device's order); on a
 * rejection undo the ones added. 1 added, 0 rejected, R_NOMEM. */
static int fp_constraints_add(dra__acall_t *ac, dra__cl_t *cl, const dra__rq_t *rq, const dra_device_t *d)
{
    for (uint32_t i = 0; i < cl->ncons; i++) {
        int rc = dra__acons_add(ac, &cl->cons[i], rq, i, d);
        if (rc < 0) {
            for (uint32_t e = 0; e < i; e++)
                dra__acons_remove(ac, &cl->cons[e], rq, e);
            return rc == R_FATAL ? R_FATAL : R_NOMEM;
        }
        if (!rc) {
            for (uint32_t e = 0; e < i; e++)
                dra__acons_remove(ac, &cl->cons[e], rq, e);
            return 0;
        }
    }
    return 1;
}

/* Device d (row, pool p) picked for rq: the claim's next result, its slot the next of the call's
 * result slots (the only slots of a fast-path call). */
static void fp_pick(dra_fast_t *a, dra__cl_t *cl, const dra__rq_t *rq, const dra_device_t *d,
                    uint32_t p, uint32_t row, bool charged)
{
    uint32_t i = cl->nres++;
    dra__slot_t *st = &a->rslots[i]; /* its other fields stay zero (results read d, pool, row) */
    st->d = d;
    st->pool = p;
    st->row = row;
    dra__res_t *r = &cl->res[i];
    memset(r, 0, sizeof *r);
    r->slot = i;
    r->rq = rq->key;
    r->charged = charged;
}

/* selectable() for the fast paths (no per-device node selection on their nodes): the device's
 * row in the request's selector cache, else evaluated and cached. */
static int fp_selectable(dra_fast_t *a, const dra_device_t *d, uint32_t row, uint32_t rqi,
                         bool *match)
{
    if ((!a->c.b.binding && d->nbinding_conditions > 0) ||
        dra__dev_ops_blocked(&a->c.b, a->c.node, d)) { /* dra__slot_binding_blocked */
        *match = false;
        return DRA_OK;
    }
    uint8_t *pv = a->c.rqs[rqi].sig->val;
    unsigned v = sig_val(pv, row);
    if (v == SIG_YES || v == SIG_NO) {
        *match = v == SIG_YES;
        return DRA_OK;
    }
    const dra__slot_t st = {.d = d, .row = row};
    int rc = dra__acall_eval_selectable(&a->c, a->cel, &a->celscratch, &st, rqi, 0, match);
    if (rc == R_NOMEM)
        return R_NOMEM;
    if (rc) {
        sig_set(pv, row, SIG_ERR);
        return R_FATAL;
    }
    sig_set(pv, row, *match ? SIG_YES : SIG_NO);
    return DRA_OK;
}

/* ---- counters as columns ------------------------------------------------------------------ */

typedef struct fkey {
    uint32_t scope;
    const char *set, *name;
    uint64_t h;
} fkey_t;

static uint64_t fkey_hash(uint32_t scope, const char *set, const char *name)
{
    return str_hash(name, str_hash(set, 0x51ed27 + scope));
}

/* Entry index of (scope, set, name) in the open-addressed table tab (cap a power of two);
 * adds it when add, else UINT32_MAX when absent. */
static uint32_t fkey_find(fkey_t *keys, uint32_t *nkeys, uint32_t *tab, uint32_t cap,
                          uint32_t scope, const char *set, const char *name, bool add)
{
    uint64_t h = fkey_hash(scope, set, name);
    uint32_t j = (uint32_t)h & (cap - 1);
    for (; tab[j] != UINT32_MAX; j = (j + 1) & (cap - 1)) {
        const fkey_t *k = &keys[tab[j]];
        if (k->h == h && k->scope == scope && strcmp(k->set, set) == 0 && strcmp(k->name, name) == 0)
            return tab[j];
    }
    if (!add)
        return UINT32_MAX;
    keys[*nkeys] = (fkey_t){scope, set, name, h};
    tab[j] = (*nkeys)++;
    return tab[j];
}

/* Bits needed for values 0..n-1 (at least 1). */
static uint32_t bits_for(uint32_t n)
{
    uint32_t b = 1;
    while (b < 32 && (n - 1) >> b)
        b++;
    return b;
}

/* Index of amount q in the dictionary amts (open addressing in tab, cap a power of two), added
 * when absent. */
static uint32_t amt_index(dra__aq_t *amts, uint32_t *namts, uint32_t *tab, uint32_t cap, dra__aq_t q)
{
    dra__uaq_t u = (dra__uaq_t)q;
    uint64_t h = ((uint64_t)u ^ (uint64_t)(u >> 64) * 0x9e3779b97f4a7c15ULL) * 0xff51afd7ed558ccdULL;
    uint32_t j = (uint32_t)(h >> 32) & (cap - 1);
    for (; tab[j] != UINT32_MAX; j = (j + 1) & (cap - 1))
        if (amts[tab[j]] == q)
            return tab[j];
    amts[*namts] = q;
    tab[j] = (*namts)++;
    return tab[j];
}

static int fcnt_build(dra_fast_t *a, fnode_t *fn)
{
    const bool pool_mode = a->c.b.pool_counters;
    const dra__gpools_t *gp = &fn->gp;
    dra_arena_t *sc = &a->c.scratch, *ar = &a->perm;
    /* upper bounds: counters defined, consumers and their items */
    uint32_t ndef = 0, ncons = 0, nitems = 0;
    for (uint32_t p = 0; p < gp->n; p++) {
        const dra__gpool_t *pool = &gp->pools[p];
        for (int pass = 0; pass < 3; pass++) {
            const dra_slice_t *const *sls = pass == 0 ? pool->slices
                                            : pass == 1 ? pool->other : pool->counter_slices;
            uint32_t nsl = pass == 0 ? pool->nslices : pass == 1 ? pool->nother : pool->ncounter_slices;
            for (uint32_t i = 0; i < nsl; i++) {
                const dra_slice_t *sl = sls[i];
                for (uint32_t j = 0; j < sl->ncounter_sets; j++)
                    ndef += sl->counter_sets[j].ncounters;
                for (uint32_t d = 0; pass < 2 && d < sl->ndevices; d++) {
                    const dra_device_t *dev = &sl->devices[d];
                    if (!dev->nconsumes)
                        continue;
                    ncons++;
                    for (uint32_t c = 0; c < dev->nconsumes; c++)
                        nitems += dev->consumes[c].ncounters;
                }
            }
        }
    }
    fcnt_t *fc = dra_arena_calloc(ar, 1, sizeof *fc, 16);
    uint32_t cap = (uint32_t)pow2_at_least((size_t)ndef * 2 + 2);
    uint32_t acap = (uint32_t)pow2_at_least((size_t)nitems * 2 + 2);
    fkey_t *keys = dra_arena_alloc(sc, (ndef + 1) * sizeof *keys, 8);
    uint32_t *tab = dra_arena_alloc(sc, cap * sizeof *tab, 4);
    dra__aq_t *avail = dra_arena_alloc(sc, (ndef + 1) * sizeof *avail, 16);
    /* the items as (entry, amount) first, in scratch; packed once the sizes are known */
    uint32_t *ient = dra_arena_alloc(sc, (nitems + 1) * sizeof *ient, 4);
    dra__aq_t *iamt = dra_arena_alloc(sc, (nitems + 1) * sizeof *iamt, 16);
    dra__aq_t *amts = dra_arena_alloc(sc, (nitems + 1) * sizeof *amts, 16);
    uint32_t *atab = dra_arena_alloc(sc, acap * sizeof *atab, 4);
    if (!fc || !keys || !tab || !avail || !ient || !iamt || !amts || !atab)
        return DRA_ENOMEM;
    memset(tab, 0xff, cap * sizeof *tab);
    memset(atab, 0xff, acap * sizeof *atab);
    uint32_t nkeys = 0;
    /* definitions, in the order the search's scope table is filled; a counter scope is the pool
     * (1.35+) or the slice, numbered over the node's pools as dra__acall_layout numbers them */
    for (uint32_t p = 0, sk = 0; p < gp->n; p++) {
        const dra__gpool_t *pool = &gp->pools[p];
        const dra_slice_t *const *sls = pool_mode ? pool->counter_slices : pool->slices;
        uint32_t nsl = pool_mode ? pool->ncounter_slices : pool->nslices;
        for (uint32_t i = 0; i < nsl; i++) {
            const dra_slice_t *sl = sls[i];
            uint32_t scope = pool_mode ? p : sk + i;
            if (!pool_mode && !sl->ndevices)
                continue; /* a slice without devices: no slot, no scope anybody reserves in */
            for (uint32_t j = 0; j < sl->ncounter_sets; j++)
                for (uint32_t k = 0; k < sl->counter_sets[j].ncounters; k++) {
                    uint32_t e = fkey_find(keys, &nkeys, tab, cap, scope, nz(sl->counter_sets[j].name),
                                           nz(sl->counter_sets[j].counters[k].name), true);
                    avail[e] = dra__aq_from(&sl->counter_sets[j].counters[k].value);
                }
        }
        sk += pool->nslices;
    }
    fc->nent = nkeys;
    fc->nscopes = fn->nscopes;
    fc->rem = dra_arena_alloc(ar, (nkeys + 1) * sizeof(dra__aq_t), 16);
    fc->scope_neg = dra_arena_calloc(ar, fn->nscopes + 1, sizeof(uint32_t), 4);
    fc->ent_scope = dra_arena_calloc(ar, nkeys + 1, sizeof(uint32_t), 4);
    uint32_t *ioff = dra_arena_calloc(sc, ncons + 1, sizeof(uint32_t), 4);
    fc->cons_row = dra_arena_calloc(ar, ncons + 1, sizeof(uint32_t), 4);
    fc->slot_cons = dra_arena_alloc(ar, (fn->nslots + 1) * sizeof(uint32_t), 4);
    fc->cons_inuse = dra_arena_calloc(ar, ncons + 1, 1, 1);
    fc->pools = dra_arena_calloc(ar, gp->n + 1, sizeof(uint32_t), 4);
    fc->ver = dra_arena_calloc(ar, gp->n + 1, sizeof(uint32_t), 4);
    if (!fc->rem || !fc->scope_neg || !fc->ent_scope || !ioff || !fc->cons_row ||
        !fc->slot_cons || !fc->cons_inuse || !fc->pools || !fc->ver)
        return DRA_ENOMEM;
    memcpy(fc->rem, avail, nkeys * sizeof *avail); /* nothing in use yet: see fcnt_get */
    for (uint32_t e = 0; e < nkeys; e++)
        fc->ent_scope[e] = keys[e].scope;
    memset(fc->slot_cons, 0xff, (fn->nslots + 1) * sizeof(uint32_t));
    fc->npools = gp->n;
    for (uint32_t p = 0; p < gp->n; p++) {
        const fbucket_t *pb = bucket_get(a, a->bypool, gp->pools[p].driver, gp->pools[p].name,
                                         false);
        fc->pools[p] = pb ? pb->id : UINT32_MAX;
    }
    /* consumers: the node's slots (in a scope of their own pool / slice), then the pool's other
     * slices (pool mode only: the search subtracts what they use from the pool's counters) */
    uint32_t nc = 0, ni = 0;
    for (uint32_t p = 0, sk = 0; p < gp->n; p++) {
        const dra__gpool_t *pool = &gp->pools[p];
        for (int pass = 0; pass < (pool_mode ? 2 : 1); pass++) {
            const dra_slice_t *const *sls = pass ? pool->other : pool->slices;
            uint32_t nsl = pass ? pool->nother : pool->nslices;
            for (uint32_t i = 0; i < nsl; i++) {
                const dra_slice_t *sl = sls[i];
                uint32_t row0 = a->slice_row[slice_index(a, sl)];
                uint32_t scope = pool_mode ? p : sk + i;
                for (uint32_t d = 0; d < sl->ndevices; d++) {
                    const dra_device_t *dev = &sl->devices[d];
                    if (!dev->nconsumes)
                        continue;
                    if (!pass)
                        fc->slot_cons[fn->slice_base[p][i] + d] = nc;
                    fc->cons_row[nc] = row0 + d;
                    ioff[nc] = ni;
                    for (uint32_t c = 0; c < dev->nconsumes; c++)
                        for (uint32_t k = 0; k < dev->consumes[c].ncounters; k++) {
                            uint32_t e = fkey_find(keys, &nkeys, tab, cap, scope,
                                                   nz(dev->consumes[c].counter_set),
                                                   nz(dev->consumes[c].counters[k].name), false);
                            if (e == UINT32_MAX)
                                continue;
                            dra__aq_t q = dra__aq_from(&dev->consumes[c].counters[k].value);
                            uint32_t x = ioff[nc];
                            while (x < ni && ient[x] != e)
                                x++;
                            if (x == ni) {
                                ient[ni] = e;
                                iamt[ni++] = q;
                            } else {
                                iamt[x] += q;
                            }
                        }
                    nc++;
                }
            }
        }
        sk += pool->nslices;
    }
    ioff[nc] = ni;
    fc->ncons = nc;
    /* the amounts as a dictionary; each consumer's entries relative to its lowest */
    uint32_t namts = 0, maxrel = 0;
    fc->cons_base = dra_arena_alloc(ar, (nc + 1) * sizeof(uint32_t), 4);
    fc->cons_prof = dra_arena_alloc(ar, (nc + 1) * sizeof(uint32_t), 4);
    if (!fc->cons_base || !fc->cons_prof)
        return DRA_ENOMEM;
    for (uint32_t x = 0; x < ni; x++)
        iamt[x] = (dra__aq_t)amt_index(amts, &namts, atab, acap, iamt[x]);
    for (uint32_t i = 0; i < nc; i++) {
        uint32_t lo = UINT32_MAX;
        for (uint32_t x = ioff[i]; x < ioff[i + 1]; x++)
            lo = ient[x] < lo ? ient[x] : lo;
        fc->cons_base[i] = lo == UINT32_MAX ? 0 : lo;
        for (uint32_t x = ioff[i]; x < ioff[i + 1]; x++) {
            ient[x] -= fc->cons_base[i];
            maxrel = ient[x] > maxrel ? ient[x] : maxrel;
        }
    }
    fc->ent_bits = bits_for(maxrel + 1);
    fc->ent_mask = fc->ent_bits < 32 ? (1u << fc->ent_bits) - 1 : UINT32_MAX;
    fc->usable = fc->ent_bits + bits_for(namts ? namts : 1) <= a->cnt_word_bits;
    if (!fc->usable) { /* the columns cannot be used: keep nothing the scan would read */
        fc->ncons = 0;
        fc->fresh = false;
        fn->cnt = fc;
        return DRA_OK;
    }
    /* the items packed, and every consumer's list looked up among the profiles so far (open
     * addressing on a hash of the words; equal lists share one profile) */
    uint32_t *word = dra_arena_alloc(sc, (ni + 1) * sizeof(uint32_t), 4);
    uint32_t *pitem = dra_arena_alloc(sc, (ni + 1) * sizeof(uint32_t), 4);
    uint32_t *poff = dra_arena_alloc(sc, (nc + 2) * sizeof(uint32_t), 4);
    uint32_t pcap = (uint32_t)pow2_at_least((size_t)nc * 2 + 2);
    uint32_t *ptab = dra_arena_alloc(sc, pcap * sizeof(uint32_t), 4);
    if (!word || !pitem || !poff || !ptab)
        return DRA_ENOMEM;
    memset(ptab, 0xff, pcap * sizeof *ptab);
    for (uint32_t x = 0; x < ni; x++)
        word[x] = ient[x] | (uint32_t)iamt[x] << fc->ent_bits;
    uint32_t np = 0, npi = 0;
    poff[0] = 0;
    for (uint32_t i = 0; i < nc; i++) {
        const uint32_t *w = word + ioff[i];
        uint32_t len = ioff[i + 1] - ioff[i];
        uint64_t h = XXH3_64bits(w, (size_t)len * sizeof *w);
        uint32_t j = (uint32_t)h & (pcap - 1);
        for (; ptab[j] != UINT32_MAX; j = (j + 1) & (pcap - 1)) {
            uint32_t q = ptab[j];
            if (poff[q + 1] - poff[q] == len && memcmp(pitem + poff[q], w, (size_t)len * sizeof *w) == 0)
                break;
        }
        if (ptab[j] == UINT32_MAX) {
            memcpy(pitem + npi, w, (size_t)len * sizeof *w);
            npi += len;
            ptab[j] = np;
            poff[++np] = npi;
        }
        fc->cons_prof[i] = ptab[j];
    }
    fc->nprof = np;
    fc->prof_off = dra_arena_alloc(ar, (np + 1) * sizeof(uint32_t), 4);
    fc->item = dra_arena_alloc(ar, (npi + 1) * sizeof(uint32_t), 4);
    fc->amts = dra_arena_alloc(ar, (namts + 1) * sizeof(dra__aq_t), 16);
    if (!fc->prof_off || !fc->item || !fc->amts)
        return DRA_ENOMEM;
    memcpy(fc->prof_off, poff, (np + 1) * sizeof *poff);
    memcpy(fc->item, pitem, npi * sizeof *pitem);
    memcpy(fc->amts, amts, namts * sizeof *amts);
    fc->namts = namts;
    fc->fresh = false;
    fn->cnt = fc;
    return DRA_OK;
}

/* The entry (of a consumer with lowest entry base) and the amount of a packed item. */
static inline uint32_t fc_ent(const fcnt_t *fc, uint32_t base, uint32_t it)
{
    return base + (it & fc->ent_mask);
}
static inline dra__aq_t fc_amt(const fcnt_t *fc, uint32_t it)
{
    return fc->amts[it >> fc->ent_bits];
}

/* The node's counter columns, built on first use and refreshed after the state changed in one
 * of its pools. NULL: out of memory. */
static fcnt_t *fcnt_get(dra_fast_t *a)
{
    fnode_t *fn = (fnode_t *)a->fn;
    if (!fn->cnt && fcnt_build(a, fn))
        return NULL;
    fcnt_t *fc = fn->cnt;
    for (uint32_t p = 0; fc->fresh && p < fc->npools; p++)
        fc->fresh = fc->pools[p] == UINT32_MAX || a->pver[fc->pools[p]] == fc->ver[p];
    if (fc->fresh)
        return fc;
    for (uint32_t p = 0; p < fc->npools; p++)
        fc->ver[p] = fc->pools[p] == UINT32_MAX ? 0 : a->pver[fc->pools[p]];
    /* only the consumers whose in-use bit changed move the remaining amounts (exact sums:
     * subtracting then adding back the same amounts restores the same value) */
    for (uint32_t i = 0; i < fc->ncons; i++) {
        const uint32_t row = fc->cons_row[i];
        uint8_t v = a->mir[row];
        if (!(v & MIR_VALID)) { /* the device's ID only for a lookup */
            const fbucket_t *pb = row_pool(a, row);
            v = mirror(a, row, pb->key1, pb->key2, row_name(a, row));
        }
        uint8_t u = (v & MIR_INUSE) != 0;
        if (u == fc->cons_inuse[i])
            continue;
        fc->cons_inuse[i] = u;
        const uint32_t pf = fc->cons_prof[i], base = fc->cons_base[i];
        for (uint32_t x = fc->prof_off[pf]; x < fc->prof_off[pf + 1]; x++)
            fc->rem[fc_ent(fc, base, fc->item[x])] += u ? -fc_amt(fc, fc->item[x])
                                                         : fc_amt(fc, fc->item[x]);
    }
    memset(fc->scope_neg, 0, fc->nscopes * sizeof(uint32_t));
    for (uint32_t e = 0; e < fc->nent; e++)
        fc->scope_neg[fc->ent_scope[e]] += fc->rem[e] < 0;
    fc->fresh = true;
    return fc;
}

/* The greedy path failed on a request with matchAttribute constraints only (no counters, no
 * distinctAttribute): group the eligible devices by their tuple of constrained values. The
 * search picks a first device in order and then only devices of its group after it; it
 * backtracks to the next first device when the group runs out. So it ends at the first device
 * whose group has k eligible devices from it on, which is that group's first device (an earlier
 * member would have been tried first and succeeded), and returns the group's first k devices;
 * no such group: unsatisfiable. Eligibility is independent of the picks here (the checks other
 * than the constraints do not depend on them), the scan before reached every device (so every
 * selector the search would evaluate was evaluated without error), and a device whose value is
 * not a scalar can only be a first pick (a group of one, useless for k >= 2). Like the pruning,
 * this skips the search's failing subtrees: only with pruning on, allocateOne differs.
 * R_OK with cl->res filled, R_FAIL, FP_FALLBACK (a distinctAttribute, or too many groups). */
static int fp_groups(dra_fast_t *a, dra__cl_t *cl, const dra__rq_t *rq)
{
    dra__acall_t *ac = &a->c;
    const fnode_t *fn = a->fn;
    enum { MAXG = 64 };
    uint32_t qn[DRA_ALLOC_MAX_CONSTRAINTS], nq = 0;
    for (uint32_t i = 0; i < cl->ncons; i++) {
        const dra__cons_t *co = &cl->cons[i];
        if (co->c->nrequests > 0 && !rq->in_scope[i])
            continue;
        if (co->distinct)
            return FP_FALLBACK;
        qn[nq++] = co->qname;
    }
    const dra_device_t *first[MAXG];
    uint32_t cnt[MAXG], ng = 0;
    const dra_exact_request_t *body = rq->body;
    const bool cc = ac->b.cc, taints = ac->b.taints;
    const uint8_t *sigv = rq->sig->val;
    int64_t k = rq->num;
    uint32_t best = UINT32_MAX;
    for (int pass = 0; pass < 2; pass++) {
        for (uint32_t p = 0; p < ac->gp.n; p++) {
            const dra__gpool_t *pool = &ac->gp.pools[p];
            if ((pool->incomplete && ac->b.strict_pools) || pool->invalid)
                continue;
            for (uint32_t s = 0; s < pool->nslices; s++) {
                const dra_slice_t *sl = pool->slices[s];
                const uint32_t row0 = fn->slice_row[p][s];
                for (uint32_t i = 0; i < sl->ndevices; i++) {
                    const uint32_t row = row0 + i;
                    if (sig_val(sigv, row) != SIG_YES || (a->mir[row] & MIR_EXCL))
                        continue; /* mirror bits are current: the scan looked at every device */
                    const dra_device_t *d = &sl->devices[i];
                    if (!ac->b.binding && d->nbinding_conditions > 0)
                        continue;
                    if (dra__dev_ops_blocked(&ac->b, ac->node, d))
                        continue;
                    if (cc && (body->ncap_requests ? !fast_cap_fits(ac, body, d)
                                                   : a->capfit0[row] != 1))
                        continue;
                    if (d->nconsumes > 0 && !ac->b.pd)
                        continue;
                    if (taints && dra__taint_blocks(d, body->tolerations, body->ntolerations))
                        continue;
                    const dra_attr_t *at[DRA_ALLOC_MAX_CONSTRAINTS];
                    bool scalar = true;
                    for (uint32_t c = 0; c < nq && scalar; c++) {
                        at[c] = qn[c] ? dra_device_attr(d, qn[c]) : NULL;
                        scalar = at[c] && dra__attr_is_scalar(at[c]);
                    }
                    if (!scalar)
                        continue; /* missing: never picked; not a scalar: a group of one */
                    uint32_t g = 0;
                    for (; g < ng; g++) {
                        bool same = true;
                        for (uint32_t c = 0; c < nq && same; c++)
                            same = dra__attr_scalar_eq(at[c], dra_device_attr(first[g], qn[c]));
                        if (same)
                            break;
                    }
                    if (pass == 0) {
                        if (g == ng) {
                            if (ng == MAXG)
                                return FP_FALLBACK;
                            first[ng] = d;
                            cnt[ng++] = 0;
                        }
                        cnt[g]++;
                    } else if (g == best) {
                        fp_pick(a, cl, rq, d, p, row, false);
                        if ((int64_t)cl->nres == k) {
                            ac->out->stats.allocate_one = (uint64_t)k + 3;
                            ac->out->stats.path = DRA_FAST_PATH_MATCH;
                            return R_OK;
                        }
                    }
                }
            }
        }
        if (pass == 0) {
            for (uint32_t g = 0; g < ng && best == UINT32_MAX; g++)
                if (cnt[g] >= k)
                    best = g;
            if (best == UINT32_MAX) {
                ac->out->stats.allocate_one = 1;
                ac->out->stats.path = DRA_FAST_PATH_UNSAT;
                return R_FAIL;
            }
            cl->nres = 0;
        }
    }
    return FP_FALLBACK; /* not reached: the group has k members */
}

/* 1.37's compatibility groups of the devices in use in one pool, per counter set (the baseline
 * dra__acall_cg_place starts from), built on first use in a call (scratch arena). */
typedef struct fcg {
    bool ready;
    dra__cglist_t l;
} fcg_t;

/* Whether device d of pool p passes 1.37's compatibility-group check on its own (the claim asks
 * for one device: no other pick of the call to meet), as dra__acall_allocate_device decides it:
 * 1 yes, 0 no, R_NOMEM. gs: per pool of the call, NULL until first use. */
static int fp_cg(dra__acall_t *ac, fcg_t **gs, uint32_t p, const dra_device_t *d)
{
    if (!ac->gp.any_groups) /* every device without groups: they all go together */
        return 1;
    if (ac->b.cg_skip && dra__device_has_groups(d))
        return 0; /* declares groups the allocator does not enforce */
    if (!*gs && !(*gs = dra_arena_calloc(&ac->scratch, ac->gp.n, sizeof **gs, 8)))
        return R_NOMEM;
    fcg_t *g = &(*gs)[p];
    if (!g->ready) {
        if (dra__cg_baseline(ac, &g->l, &ac->gp.pools[p]))
            return R_NOMEM;
        g->ready = true;
    }
    for (uint32_t c = 0; c < d->nconsumes; c++) {
        const char *set = d->consumes[c].counter_set ? d->consumes[c].counter_set : "";
        const dra__cgent_t *e = dra__cg_entry(ac, &g->l, set, false);
        if (!e)
            continue;
        if (ac->b.cg_skip ? e->st.grouped : !dra__cg_admits(&e->st, &d->consumes[c]))
            return 0;
    }
    return 1;
}

/* The greedy scan over the node's devices in search order (pool, slice, device: the node's
 * layout, fnode_t). R_OK with cl->res filled, R_FAIL (unsatisfiable, proven), FP_FALLBACK,
 * R_NOMEM. */
static int fp_scan(dra_fast_t *a, fcnt_t **fcp, uint32_t *charged, uint32_t *ncharged_out)
{
    dra__acall_t *ac = &a->c;
    const fnode_t *fn = a->fn;
    fcnt_t *fc = NULL;
    uint32_t ncharged = 0;
    int ret = FP_FALLBACK;
    dra_alloc_stats_t *stats = &ac->out->stats;
    dra__cl_t *cl = &ac->cls[0];
    const dra__rq_t *rq = &ac->rqs[0];
    const int64_t k = rq->num;
    if (rq->all || k < 1 || k > DRA_ALLOC_MAX_RESULTS ||
        (a->c.max_steps && a->c.max_steps < (uint64_t)k + 3)) {
        ret = FP_FALLBACK;
        goto out;
    }
    /* 1.37's compatibility groups (enforced, or the skip while they are not): checked below for
     * a claim of one device; several devices of one call meet each other's groups: the search */
    const bool cg = (ac->b.cg || ac->b.cg_skip) && fn->has_groups;
    if (cg && k != 1) {
        ret = FP_FALLBACK;
        goto out;
    }
    fcg_t *cgs = NULL;
    bool dependent = false; /* some check depends on the devices picked before */
    for (uint32_t i = 0; i < cl->ncons; i++)
        dependent |= cl->cons[i].c->nrequests == 0 || rq->in_scope[i];
    const bool constrained = dependent;
    bool counters = false;
    const dra_exact_request_t *body = rq->body;
    const uint8_t *sigv = rq->sig->val;
    const bool cc = ac->b.cc, pd = ac->b.pd, taints = ac->b.taints;
    const bool pool_counters = ac->b.pool_counters;
    /* the layout is in search order (pool, slice, device), so one pass over it is the search's
     * scan; sk numbers the slices (the counter scopes of 1.34, as fcnt_build numbers them) */
    for (uint32_t p = 0, sk = 0; p < ac->gp.n; sk += ac->gp.pools[p].nslices, p++) {
        const dra__gpool_t *pool = &ac->gp.pools[p];
        if ((pool->incomplete && ac->b.strict_pools) || pool->invalid)
            continue;
        for (uint32_t s = 0; s < pool->nslices; s++) {
            const dra_slice_t *sl = pool->slices[s];
            const uint32_t slot0 = fn->slice_base[p][s], row0 = fn->slice_row[p][s];
            for (uint32_t i = 0; i < sl->ndevices; i++) {
                const uint32_t row = row0 + i;
                stats->candidates++;
                if (sig_val(sigv, row) == SIG_NO)
                    continue;
                const dra_device_t *d = &sl->devices[i];
                uint8_t v = a->mir[row];
                if (!(v & MIR_VALID))
                    v = mirror(a, row, pool->driver, pool->name, d->name);
                if (v & MIR_EXCL)
                    continue;
                bool m;
                int rc = fp_selectable(a, d, row, rq->key, &m);
                if (rc == R_NOMEM) {
                    ret = rc;
                    goto out;
                }
                if (rc) { /* the search reports the error where it meets it */
                    ret = FP_FALLBACK;
                    goto out;
                }
                if (!m)
                    continue;
                if (cc) {
                    /* shares, and (#140798) a live share of a device that no longer allows
                     * them: the search */
                    if (d->allow_multiple_allocations || (v & (MIR_CAP | MIR_SHARE))) {
                        ret = FP_FALLBACK;
                        goto out;
                    }
                    if (body->ncap_requests) {
                        if (!fast_cap_fits(ac, body, d))
                            continue;
                    } else {
                        uint8_t *cf = &a->capfit0[row];
                        if (!*cf) { /* 3: the check fails the call (1.38-pre): the search */
                            dra__capmode_t cm = dra__capmode(&ac->b);
                            char why[8];
                            int fr = dra__cap_fits_m(&cm, body, d, NULL, NULL, why, sizeof why);
                            *cf = fr == 1 ? 1 : fr == 0 ? 2 : 3;
                        }
                        if (*cf == 3) {
                            ret = FP_FALLBACK;
                            goto out;
                        }
                        if (*cf != 1)
                            continue;
                    }
                }
                uint32_t con = UINT32_MAX;
                if (d->nconsumes > 0) {
                    if (!pd)
                        continue;
                    if (cg) { /* before the counters, as allocateDevice checks them */
                        rc = fp_cg(ac, &cgs, p, d);
                        if (rc < 0) {
                            ret = rc;
                            goto out;
                        }
                        if (!rc)
                            continue;
                    }
                    /* counters_reserve: every counter of the scope stays within what is
                     * available after the devices in use and the devices picked so far;
                     * entries already negative make every reservation in their scope fail */
                    counters = true;
                    if (!fc && !(fc = fcnt_get(a))) {
                        ret = R_NOMEM;
                        goto out;
                    }
                    if (!fc->usable) {
                        ret = FP_FALLBACK;
                        goto out;
                    }
                    con = fc->slot_cons[slot0 + i];
                    if (fc->scope_neg[pool_counters ? p : sk + s])
                        continue;
                    bool fits = true;
                    const uint32_t pf = fc->cons_prof[con], base = fc->cons_base[con];
                    for (uint32_t x = fc->prof_off[pf]; x < fc->prof_off[pf + 1] && fits; x++)
                        fits = fc->rem[fc_ent(fc, base, fc->item[x])] - fc_amt(fc, fc->item[x]) >= 0;
                    if (!fits)
                        continue;
                }
                if (taints && dra__taint_blocks(d, body->tolerations, body->ntolerations))
                    continue;
                if (constrained) {
                    rc = fp_constraints_add(ac, cl, rq, d);
                    if (rc < 0) {
                        ret = rc;
                        goto out;
                    }
                    if (!rc)
                        continue;
                }
                if (con != UINT32_MAX) {
                    const uint32_t pf = fc->cons_prof[con], base = fc->cons_base[con];
                    for (uint32_t x = fc->prof_off[pf]; x < fc->prof_off[pf + 1]; x++)
                        fc->rem[fc_ent(fc, base, fc->item[x])] -= fc_amt(fc, fc->item[x]);
                    charged[ncharged++] = con;
                }
                fp_pick(a, cl, rq, d, p, row, con != UINT32_MAX);
                if ((int64_t)cl->nres == k) {
                    stats->allocate_one = (uint64_t)k + 3;
                    stats->path = constrained ? DRA_FAST_PATH_MATCH
                                  : counters  ? DRA_FAST_PATH_COUNTERS
                                              : DRA_FAST_PATH_FIRST;
                    ret = R_OK;
                    goto out;
                }
            }
        }
    }
    /* k == 1: the search has one level, and that level's scan is the one above: nothing
     * passed, so it returns unsatisfiable after one allocateOne call, whatever the checks */
    if (k == 1) {
        stats->allocate_one = 1;
        stats->path = DRA_FAST_PATH_UNSAT;
        ret = R_FAIL;
        goto out;
    }
    if (!a->prune || counters) {
        ret = FP_FALLBACK;
        goto out;
    }
    if (constrained) {
        ret = fp_groups(a, cl, rq);
        goto out;
    }
    stats->allocate_one = 1;
    stats->path = DRA_FAST_PATH_UNSAT;
    ret = R_FAIL;
    goto out;
out:
    *fcp = fc;
    *ncharged_out = ncharged;
    return ret;
}

/* The scan, then the counter columns restored (they hold the state's remaining amounts; the
 * call's own picks live only in the result). */
static int fp_run(dra_fast_t *a)
{
    fcnt_t *fc = NULL;
    uint32_t charged[DRA_ALLOC_MAX_RESULTS + 1], n = 0;
    int rc = fp_scan(a, &fc, charged, &n);
    for (uint32_t i = 0; i < n; i++) {
        const uint32_t pf = fc->cons_prof[charged[i]], base = fc->cons_base[charged[i]];
        for (uint32_t x = fc->prof_off[pf]; x < fc->prof_off[pf + 1]; x++)
            fc->rem[fc_ent(fc, base, fc->item[x])] += fc_amt(fc, fc->item[x]);
    }
    return rc;
}

/* The fast paths for one call: preprocessing, then the scan; the call's slots are only the
 * devices picked (a->rslots, fp_pick). DRA_OK / R_FATAL / R_NODE from preprocessing, R_OK,
 * R_FAIL, FP_FALLBACK, R_NOMEM. */
static int fp_call(dra_fast_t *a, dra_claim_t *const *claims)
{
    const fnode_t *fn = a->fn;
    a->c.nslots = fn->nslots;
    a->c.slots = a->rslots;
    a->c.slice_base = fn->slice_base;
    a->c.maxcaps = fn->maxcaps;
    a->c.nscopes = 0;
    a->c.scopes = NULL;
    int rc = dra__acall_preprocess(&a->c, claims, false, search_validate_cb, a);
    if (rc != DRA_OK)
        return rc;
    return fp_run(a);
}

/* ---- entry point ----------------------------------------------------------------------------- */

int dra_fast_allocate(dra_fast_t *a, const dra_node_t *node, dra_claim_t *const *claims,
                      uint32_t n, dra_arena_t *out_arena, dra_alloc_outcome_t *out)
{
    if (!a || !node || (!claims && n) || !out_arena || !out)
        return DRA_EINVAL;
    out->kind = DRA_OUTCOME_ALLOCATED;
    out->allocations = NULL;
    out->n = 0;
    out->msg[0] = 0; /* not the whole 512-byte buffer: this runs on every call */
    memset(&out->stats, 0, sizeof out->stats);
    dra__acall_reset_scratch(&a->c);
    a->c.out = out;
    a->c.node = node;
    a->c.nclaims = n;
    a->c.err[0] = 0;
    a->fn = node_get(a, node);
    if (!a->fn)
        return DRA_ENOMEM;
    if (a->fn->gather_rc) {
        out->kind = DRA_OUTCOME_FATAL;
        snprintf(out->msg, sizeof out->msg, "%s", a->fn->gather_err);
        return DRA_OK;
    }
    a->c.gp = a->fn->gp;
    /* pruning skips allocateDevice calls of failing subtrees: only where those leave no trace
     * (no leaking upstream bugs, no step budget, no invalid-pool fatal; no multi-allocatable
     * device: kept from when pruned attempts drew shareIDs, which are derived now) */
    a->prune = a->prune_on && !a->c.b.bugs && !(a->c.b.cc && a->fn->has_multi) && !a->c.max_steps &&
               !a->c.b.scc &&
               !a->c.gp.any_invalid && !dra__claims_need_search(&a->c.b, claims, n, false);
    int rc = FP_FALLBACK;
    out->stats.pools = a->c.gp.n;
    if (fp_shape(a, claims, n)) {
        rc = fp_call(a, claims);
        if (rc == FP_FALLBACK) { /* the search, from scratch */
            dra__acall_reset_scratch(&a->c);
            out->stats.allocate_one = 0;
        }
    }
    if (rc == FP_FALLBACK) {
        if (build_slots(a))
            return DRA_ENOMEM;
        rc = search_run(a, claims, a->fn->has_pdns);
    }
    return dra__acall_outcome(&a->c, rc, out_arena);
}

/* ---- an allocator of either kind ------------------------------------------------------------- */

int dra_alloc_kind_parse(const char *s, dra_alloc_kind_t *out)
{
    if (s && strcmp(s, "reference") == 0)
        *out = DRA_ALLOC_REFERENCE;
    else if (s && strcmp(s, "fast") == 0)
        *out = DRA_ALLOC_FAST;
    else
        return DRA_EINVAL;
    return DRA_OK;
}

const char *dra_alloc_kind_name(dra_alloc_kind_t k)
{
    return k == DRA_ALLOC_FAST ? "fast" : "reference";
}

int dra_anyalloc_new(dra_alloc_kind_t kind, const dra_model_t *m, const dra_alloc_features_t *f,
                     const dra_alloc_state_t *state, dra_cel_cache_t *cel,
                     const dra_alloc_options_t *opts, dra_anyalloc_t *out)
{
    if (!out)
        return DRA_EINVAL;
    memset(out, 0, sizeof *out);
    out->kind = kind;
    if (kind == DRA_ALLOC_FAST)
        return dra_fast_new(m, f, state, cel, opts, &out->fast);
    return dra_alloc_new(m, f, state, cel, opts, &out->ref);
}

void dra_anyalloc_free(dra_anyalloc_t *a)
{
    if (!a)
        return;
    dra_fast_free(a->fast);
    dra_alloc_free(a->ref);
    a->fast = NULL;
    a->ref = NULL;
}

int dra_anyalloc_reset(dra_anyalloc_t *a, const dra_model_t *m, const dra_alloc_features_t *f,
                       const dra_alloc_state_t *state, dra_cel_cache_t *cel,
                       const dra_alloc_options_t *opts)
{
    if (!a)
        return DRA_EINVAL;
    dra_alloc_options_t o = {0};
    if (opts)
        o = *opts;
    dra_fast_t *fa = a->fast;
    if (a->kind == DRA_ALLOC_FAST && fa && fa->c.m == m && fa->st == state && fa->cel == cel &&
        fa->opts.share_seed == o.share_seed && fa->opts.max_steps == o.max_steps &&
        f && fa->f.release == f->release && fa->f.gates == f->gates &&
        fa->f.upstream_bugs == f->upstream_bugs) {
        dra_fast_reset(fa);
        return DRA_OK;
    }
    dra_alloc_kind_t kind = a->kind;
    dra_anyalloc_free(a);
    return dra_anyalloc_new(kind, m, f, state, cel, opts, a);
}

int dra_anyalloc_allocate(dra_anyalloc_t *a, const dra_node_t *node, dra_claim_t *const *claims,
                          uint32_t n, dra_arena_t *out_arena, dra_alloc_outcome_t *out)
{
    if (!a)
        return DRA_EINVAL;
    if (a->kind == DRA_ALLOC_FAST)
        return dra_fast_allocate(a->fast, node, claims, n, out_arena, out);
    return dra_alloc_allocate(a->ref, node, claims, n, out_arena, out);
}

int dra_fast_prepare(dra_fast_t *a, const dra_node_t *node)
{
    if (!a || !node)
        return DRA_EINVAL;
    dra__acall_reset_scratch(&a->c);
    fnode_t *fn = node_get(a, node);
    if (!fn)
        return DRA_ENOMEM;
    /* the counter columns too, where the fast paths will want them */
    bool consumes = false;
    for (uint32_t p = 0; p < fn->gp.n && !consumes; p++)
        for (uint32_t s = 0; s < fn->gp.pools[p].nslices && !consumes; s++) {
            const dra_slice_t *sl = fn->gp.pools[p].slices[s];
            for (uint32_t d = 0; d < sl->ndevices && !consumes; d++)
                consumes = sl->devices[d].nconsumes > 0;
        }
    if (consumes && a->c.b.pd && !fn->gather_rc && !fn->cnt) {
        a->fn = fn;
        bool ok = fcnt_get(a) != NULL;
        a->fn = NULL;
        dra__acall_reset_scratch(&a->c);
        if (!ok)
            return DRA_ENOMEM;
    }
    return DRA_OK;
}

int dra_fast_seed_selectors(dra_fast_t *a, const dra_device_class_t *cls,
                            const dra_exact_request_t *req, uint32_t nrows,
                            const uint32_t *col_of_row, const uint64_t *match, const uint64_t *err)
{
    if (!a || !cls || !req || (nrows && (!col_of_row || !match || !err)))
        return DRA_EINVAL;
    fsig_t *sg = sig_get(a, cls, req);
    if (!sg)
        return DRA_ENOMEM;
    /* seeded from these very arrays already, and no row forgotten since: every row they map
     * is known (seeded, or evaluated to the same answer), nothing to do */
    if (sg->seed_n == nrows && sg->seed_map == col_of_row && sg->seed_match == match &&
        sg->seed_err == err && nrows)
        return DRA_OK;
    uint32_t n = nrows < a->nrows ? nrows : a->nrows;
    for (uint32_t r = 0; r < n; r++) {
        uint32_t c = col_of_row[r];
        if (c == UINT32_MAX || sig_val(sg->val, r) != SIG_UNKNOWN)
            continue;
        sig_set(sg->val, r, dra_bit_get(err, c) ? SIG_ERR : dra_bit_get(match, c) ? SIG_YES : SIG_NO);
    }
    sg->seed_map = col_of_row;
    sg->seed_match = match;
    sg->seed_err = err;
    sg->seed_n = nrows;
    return DRA_OK;
}

int dra_anyalloc_prepare(dra_anyalloc_t *a, const dra_node_t *node)
{
    if (!a)
        return DRA_EINVAL;
    return a->kind == DRA_ALLOC_FAST ? dra_fast_prepare(a->fast, node) : DRA_OK;
}

/* ---- comparing outcomes ------------------------------------------------------------------------ */

static bool ns_equal(const dra_node_selector_t *x, const dra_node_selector_t *y)
{
    if (!x || !y)
        return x == y;
    if (x->nterms != y->nterms)
        return false;
    for (uint32_t t = 0; t < x->nterms; t++) {
        const dra_ns_term_t *p = &x->terms[t], *q = &y->terms[t];
        if (p->nfields != q->nfields || p->nexprs != q->nexprs)
            return false;
        for (uint32_t i = 0; i < p->nfields; i++)
            if (!dra__ns_req_equal(&p->fields[i], &q->fields[i]))
                return false;
        for (uint32_t i = 0; i < p->nexprs; i++)
            if (!dra__ns_req_equal(&p->exprs[i], &q->exprs[i]))
                return false;
    }
    return true;
}

static bool uses_equal(const dra_counter_set_use_t *x, uint32_t nx, const dra_counter_set_use_t *y,
                       uint32_t ny)
{
    if (nx != ny)
        return false;
    for (uint32_t i = 0; i < nx; i++) {
        if (!str_eq(x[i].counter_set, y[i].counter_set) || x[i].ncounters != y[i].ncounters)
            return false;
        for (uint32_t k = 0; k < x[i].ncounters; k++)
            if (!str_eq(x[i].counters[k].name, y[i].counters[k].name) ||
                dra_quantity_cmp(&x[i].counters[k].value, &y[i].counters[k].value) != 0)
                return false;
    }
    return true;
}

/* Two results' consumedCounters snapshots (DRASharedConsumableCapacity; NULL: none). */
static bool snap_equal(const dra_counter_snapshot_t *x, const dra_counter_snapshot_t *y)
{
    if (!x || !y)
        return x == y;
    return uses_equal(x->per_device, x->nper_device, y->per_device, y->nper_device) &&
           uses_equal(x->per_allocation, x->nper_allocation, y->per_allocation,
                      y->nper_allocation);
}

bool dra_alloc_outcome_differs(const dra_alloc_outcome_t *x, const dra_alloc_outcome_t *y,
                               char *why, size_t len)
{
#define DIFF(...)                                                                                  \
    do {                                                                                           \
        if (why && len)                                                                            \
            snprintf(why, len, __VA_ARGS__);                                                       \
        return true;                                                                               \
    } while (0)
    if (x->kind != y->kind)
        DIFF("outcome %s vs %s (%s | %s)", dra_outcome_name(x->kind), dra_outcome_name(y->kind),
             x->msg, y->msg);
    if (strcmp(x->msg, y->msg) != 0)
        DIFF("message \"%s\" vs \"%s\"", x->msg, y->msg);
    if (x->kind != DRA_OUTCOME_ALLOCATED)
        return false;
    if (x->n != y->n)
        DIFF("%u vs %u allocations", x->n, y->n);
    for (uint32_t c = 0; c < x->n; c++) {
        const dra_allocation_t *p = x->allocations[c], *q = y->allocations[c];
        if (p->nresults != q->nresults)
            DIFF("claim #%u: %u vs %u results", c, p->nresults, q->nresults);
        for (uint32_t i = 0; i < p->nresults; i++) {
            const dra_result_t *r = &p->results[i], *s = &q->results[i];
            if (!str_eq(r->request, s->request) || !str_eq(r->driver, s->driver) ||
                !str_eq(r->pool, s->pool) || !str_eq(r->device, s->device) ||
                r->admin_access != s->admin_access || !str_eq(r->share_id, s->share_id) ||
                (r->share_id == NULL) != (s->share_id == NULL) || r->nconsumed != s->nconsumed ||
                r->ntolerations != s->ntolerations ||
                r->nbinding_conditions != s->nbinding_conditions ||
                r->nskip_node_ops != s->nskip_node_ops)
                DIFF("claim #%u result #%u: %s %s/%s/%s vs %s %s/%s/%s", c, i, nz(r->request),
                     nz(r->driver), nz(r->pool), nz(r->device), nz(s->request), nz(s->driver),
                     nz(s->pool), nz(s->device));
            for (uint32_t k = 0; k < r->nconsumed; k++)
                if (!str_eq(r->consumed[k].name, s->consumed[k].name) ||
                    dra_quantity_cmp(&r->consumed[k].value, &s->consumed[k].value) != 0)
                    DIFF("claim #%u result #%u: consumed capacity %s differs", c, i,
                         nz(r->consumed[k].name));
            if (!snap_equal(p->counters ? p->counters[i] : NULL,
                            q->counters ? q->counters[i] : NULL))
                DIFF("claim #%u result #%u: consumedCounters differ", c, i);
        }
        if (p->nconfigs != q->nconfigs)
            DIFF("claim #%u: %u vs %u configs", c, p->nconfigs, q->nconfigs);
        for (uint32_t i = 0; i < p->nconfigs; i++) {
            const dra_alloc_config_t *r = &p->configs[i], *s = &q->configs[i];
            bool same = r->source == s->source && r->nrequests == s->nrequests &&
                        str_eq(r->opaque.driver, s->opaque.driver) &&
                        str_eq(r->opaque.params_json, s->opaque.params_json);
            for (uint32_t k = 0; same && k < r->nrequests; k++)
                same = str_eq(r->requests[k], s->requests[k]);
            if (!same)
                DIFF("claim #%u: config #%u differs", c, i);
        }
        if (!ns_equal(p->node_selector, q->node_selector))
            DIFF("claim #%u: node selectors differ", c);
    }
    return false;
#undef DIFF
}

/* ---- slice updates ----------------------------------------------------------------------------- */

int dra_fast_invalidate_slice(dra_fast_t *a, uint32_t slice, const dra_node_t *node)
{
    if (!a || slice >= a->c.m->nslices)
        return DRA_EINVAL;
    const dra_slice_t *sl = a->c.m->slices[slice];
    uint32_t row0 = a->slice_row[slice];
    /* selector results and the capacity fit of the slice's devices */
    for (size_t h = 0; h <= a->sigmask; h++)
        for (fsig_t *e = a->sigs[h]; e; e = e->next) {
            for (uint32_t d = 0; d < sl->ndevices && row0 + d < a->nrows; d++)
                sig_set(e->val, row0 + d, SIG_UNKNOWN);
            e->seed_n = 0; /* rows forgotten: a seeding again is not a no-op */
        }
    a->has_saved = false; /* the saved caches hold the slice's old answers */
    for (uint32_t d = 0; a->capfit0 && d < sl->ndevices && row0 + d < a->nrows; d++)
        a->capfit0[row0 + d] = 0;
    /* a layout depends on the devices' capacities (the most of one device), counter consumption
     * (pool validity), binding conditions (pool order) and allowMultipleAllocations, never on
     * attributes or taints: an update of only those (a health event) keeps every layout, where
     * a rebuilt one would leave the old one in perm (memory growing with every event) */
    if (!(sl->changed & (DRA_SLICE_CHANGED_CAPS | DRA_SLICE_CHANGED_CONSUMES |
                         DRA_SLICE_CHANGED_BINDING | DRA_SLICE_CHANGED_MULTI)))
        return DRA_OK;
    /* layouts: only the node's when every slice of the pool is on that node, else every one */
    bool one = node && sl->node_name && node->name && !strcmp(sl->node_name, node->name);
    const fbucket_t *pb = bucket_get(a, a->bypool, nz(sl->driver), nz(sl->pool_name), false);
    for (uint32_t i = 0; one && pb && i < pb->n; i++) {
        const dra_slice_t *o = a->c.m->slices[pb->idx[i]];
        one = o->node_name && !strcmp(o->node_name, node->name);
    }
    if (!one) {
        for (size_t h = 0; h <= a->nmask; h++)
            a->nodes[h] = NULL; /* rebuilt on each node's next call (kept in perm until freed) */
        a->nnodes = 0;
        return DRA_OK;
    }
    fnode_t **pp = &a->nodes[ptr_hash(node) & a->nmask];
    for (fnode_t *e = *pp; e; pp = &e->next, e = e->next)
        if (e->key == node) {
            *pp = e->next;
            a->nnodes--;
            return dra_fast_prepare(a, node); /* rebuilt now, not on the node's next call */
        }
    return DRA_OK;
}

uint64_t dra_fast_share_seed(const dra_fast_t *a)
{
    return a->opts.share_seed;
}
