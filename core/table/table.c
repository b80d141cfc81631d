/*
 * table.c - building, checking, hashing and querying the device table; see table.h.
 *
 * Build, in order:
 *  1. Nodes: the model's Node objects get indexes 0..m->nnodes-1; names only slices mention are
 *     appended sorted by name.
 *  2. Pools: distinct (driver, pool name) pairs, sorted; the rank is the pool index.
 *  3. Slices are sorted by (node group — node index, shared last —, pool, slice name, model
 *     index) and their devices laid out in that order: this gives the node ranges and the
 *     upstream search order inside each range.
 *  4. Attribute / capacity columns are created in order of first appearance in row order, then
 *     filled; every version text is parsed once and ranked; each capacity column picks its scale.
 *  5. The build-time string dictionary (an intern table in a scratch arena) is copied into the
 *     table's arena as plain arrays plus an open-addressing index, so the finished table owns no
 *     heap memory and needs no free.
 * Temporaries live in a scratch arena released before returning.
 */
#include "table.h"

#include <stdlib.h>
#include <string.h>

#include "base/bitset.h"
#include "base/intern.h"
#include "base/quantity.h"

#define XXH_INLINE_ALL
#include <xxhash.h>

typedef struct slice_key {
    uint32_t group; /* node index, or nnodes for the shared range */
    uint32_t pool;
    const char *name;
    uint32_t idx; /* model slice index */
} slice_key_t;

typedef struct pool_key {
    const char *driver, *name;
    uint32_t slice;
} pool_key_t;

/* Dictionary ids by string address: models built by the generator share their strings
 * (driver, product names, versions), and the model does not change while the table is built,
 * so an address seen once always maps to the same id. Direct-mapped, power of two. */
#define PTR_CACHE 4096

typedef struct builder {
    const dra_model_t *m;
    dra_arena_t *a;   /* the table's arena */
    dra_arena_t tmp;  /* scratch */
    dra_intern_t dict; /* strings; bytes in the table arena */
    dra_table_t *t;
    dra_diag_t *diag;
    const char **pc_ptr; /* PTR_CACHE entries (scratch arena) */
    uint32_t *pc_id;
    uint32_t attr_maxlen; /* the longest attribute's values (attr_columns) */
    uint64_t attr_ninst;  /* attribute instances of every row (attr_columns) */
} builder_t;

static const char *nz(const char *s)
{
    return s ? s : "";
}

static size_t pc_slot(const char *s)
{
    uintptr_t u = (uintptr_t)s;
    return (size_t)((u ^ (u >> 12) ^ (u >> 24)) & (PTR_CACHE - 1));
}

static int dict_put(builder_t *b, const char *s, uint32_t *id)
{
    s = nz(s);
    size_t slot = pc_slot(s);
    if (b->pc_ptr[slot] == s) {
        *id = b->pc_id[slot];
        return DRA_OK;
    }
    int rc = dra_intern_put(&b->dict, s, strlen(s), id);
    if (rc == DRA_OK) {
        b->pc_ptr[slot] = s;
        b->pc_id[slot] = *id;
    }
    return rc;
}

/* Id of a string already put (0 if absent), through the same cache. */
static uint32_t dict_find(builder_t *b, const char *s)
{
    s = nz(s);
    size_t slot = pc_slot(s);
    if (b->pc_ptr[slot] == s)
        return b->pc_id[slot];
    uint32_t id = dra_intern_find(&b->dict, s, strlen(s));
    if (id) {
        b->pc_ptr[slot] = s;
        b->pc_id[slot] = id;
    }
    return id;
}

static void *col_alloc(builder_t *b, size_t n, size_t sz)
{
    void *p = dra_arena_calloc(b->a, n ? n : 1, sz, DRA_TABLE_ALIGN);
    if (p && n)
        b->t->bytes += n * sz;
    return p;
}

static uint64_t *bits_alloc(builder_t *b)
{
    return col_alloc(b, dra_bitset_words(b->t->nrows_padded), sizeof(uint64_t));
}

static bool is_local(const dra_slice_t *s)
{
    return s->node_name && s->node_name[0] && !s->per_device_node_selection;
}

static int cmp_str_ptr(const void *x, const void *y)
{
    return strcmp(*(const char *const *)x, *(const char *const *)y);
}

static int cmp_pool_key(const void *x, const void *y)
{
    const pool_key_t *a = x, *b = y;
    int c = strcmp(a->driver, b->driver);
    if (!c)
        c = strcmp(a->name, b->name);
    if (!c)
        c = (a->slice > b->slice) - (a->slice < b->slice);
    return c;
}

static int cmp_slice_key(const void *x, const void *y)
{
    const slice_key_t *a = x, *b = y;
    if (a->group != b->group)
        return a->group < b->group ? -1 : 1;
    if (a->pool != b->pool)
        return a->pool < b->pool ? -1 : 1;
    int c = strcmp(a->name, b->name);
    if (c)
        return c;
    return (a->idx > b->idx) - (a->idx < b->idx);
}

typedef struct ver_ent {
    dra_semver_t v;
    uint32_t sid; /* string id */
} ver_ent_t;

static int cmp_ver(const void *x, const void *y)
{
    const ver_ent_t *a = x, *b = y;
    int c = dra_semver_cmp(&a->v, &b->v);
    if (!c)
        c = (a->sid > b->sid) - (a->sid < b->sid);
    return c;
}

/* ---- step 1-3: nodes, pools, rows ----------------------------------------------------------- */

/* Step 1: the nodes, the model's in order then the names only local slices give, sorted; sets
 * *node_of_out to the node of each dictionary id (DRA_TABLE_NONE for names of no node). */
static int rows_nodes(builder_t *b, uint32_t **node_of_out)
{
    const dra_model_t *m = b->m;
    dra_table_t *t = b->t;
    int rc;
    uint32_t nnames = m->nnodes;
    for (uint32_t i = 0; i < m->nslices; i++)
        if (is_local(m->slices[i]))
            nnames++;
    uint32_t *name_ids = dra_arena_calloc(&b->tmp, nnames + 1, sizeof(uint32_t), 8);
    if (!name_ids)
        return DRA_ENOMEM;
    for (uint32_t i = 0; i < m->nnodes; i++)
        if ((rc = dict_put(b, m->nodes[i]->name, &name_ids[i])) != DRA_OK)
            return rc;
    for (uint32_t i = 0, k = m->nnodes; i < m->nslices; i++)
        if (is_local(m->slices[i]))
            if ((rc = dict_put(b, m->slices[i]->node_name, &name_ids[k++])) != DRA_OK)
                return rc;
    uint32_t nids = b->dict.count + 1;
    /* in the table's arena: kept as the table's node-by-name index (dra_table_node_index) */
    uint32_t *node_of = dra_arena_alloc(b->a, (size_t)nids * sizeof(uint32_t), 8);
    const char **extra = dra_arena_calloc(&b->tmp, nnames + 1, sizeof(char *), 8);
    if (!node_of || !extra)
        return DRA_ENOMEM;
    for (uint32_t i = 0; i < nids; i++)
        node_of[i] = DRA_TABLE_NONE;
    for (uint32_t i = 0; i < m->nnodes; i++)
        if (node_of[name_ids[i]] == DRA_TABLE_NONE)
            node_of[name_ids[i]] = i;
    uint32_t nextra = 0;
    for (uint32_t k = m->nnodes; k < nnames; k++) {
        if (node_of[name_ids[k]] == DRA_TABLE_NONE) {
            node_of[name_ids[k]] = DRA_TABLE_NONE - 1; /* seen */
            extra[nextra++] = dra_intern_str(&b->dict, name_ids[k]);
        }
    }
    qsort(extra, nextra, sizeof *extra, cmp_str_ptr);
    t->nnodes = m->nnodes + nextra;
    t->nodes = dra_arena_calloc(b->a, t->nnodes ? t->nnodes : 1, sizeof *t->nodes, 8);
    if (!t->nodes)
        return DRA_ENOMEM;
    for (uint32_t i = 0; i < m->nnodes; i++) {
        t->nodes[i].name = dra_intern_str(&b->dict, name_ids[i]);
        t->nodes[i].name_id = name_ids[i];
    }
    for (uint32_t i = 0; i < nextra; i++) {
        uint32_t id = dra_intern_find(&b->dict, extra[i], strlen(extra[i]));
        node_of[id] = m->nnodes + i;
        t->nodes[m->nnodes + i].name = dra_intern_str(&b->dict, id);
        t->nodes[m->nnodes + i].name_id = id;
    }
    t->node_by_str = node_of;
    t->nnode_by_str = nids;
    *node_of_out = node_of;
    return DRA_OK;
}

/* Step 2: the pools, one per (driver, pool name) in sorted order; sets *pool_of_out to the pool
 * of each slice. */
static int rows_pools(builder_t *b, uint32_t **pool_of_out)
{
    const dra_model_t *m = b->m;
    dra_table_t *t = b->t;
    int rc;
    pool_key_t *pk = dra_arena_calloc(&b->tmp, m->nslices + 1, sizeof *pk, 8);
    uint32_t *pool_of_slice = dra_arena_calloc(&b->tmp, m->nslices + 1, sizeof(uint32_t), 8);
    if (!pk || !pool_of_slice)
        return DRA_ENOMEM;
    for (uint32_t i = 0; i < m->nslices; i++) {
        pk[i].driver = nz(m->slices[i]->driver);
        pk[i].name = nz(m->slices[i]->pool_name);
        pk[i].slice = i;
    }
    qsort(pk, m->nslices, sizeof *pk, cmp_pool_key);
    t->pools = dra_arena_calloc(b->a, m->nslices + 1, sizeof *t->pools, 8);
    if (!t->pools)
        return DRA_ENOMEM;
    for (uint32_t i = 0; i < m->nslices; i++) {
        if (i == 0 || strcmp(pk[i].driver, pk[i - 1].driver) != 0 ||
            strcmp(pk[i].name, pk[i - 1].name) != 0) {
            dra_table_pool_t *p = &t->pools[t->npools++];
            if ((rc = dict_put(b, pk[i].driver, &p->driver_id)) != DRA_OK ||
                (rc = dict_put(b, pk[i].name, &p->name_id)) != DRA_OK)
                return rc;
            p->driver = dra_intern_str(&b->dict, p->driver_id);
            p->name = dra_intern_str(&b->dict, p->name_id);
        }
        pool_of_slice[pk[i].slice] = t->npools - 1;
    }
    *pool_of_out = pool_of_slice;
    return DRA_OK;
}

/* Step 3a: the slices in row order (node, pool, name; shared slices after the nodes) in *sk_out,
 * and the row columns allocated for their devices. */
static int rows_slice_order(builder_t *b, const uint32_t *node_of, const uint32_t *pool_of_slice,
                            slice_key_t **sk_out)
{
    const dra_model_t *m = b->m;
    dra_table_t *t = b->t;
    slice_key_t *sk = dra_arena_calloc(&b->tmp, m->nslices + 1, sizeof *sk, 8);
    if (!sk)
        return DRA_ENOMEM;
    uint64_t nrows = 0;
    for (uint32_t i = 0; i < m->nslices; i++) {
        const dra_slice_t *s = m->slices[i];
        sk[i].group = t->nnodes;
        if (is_local(s))
            sk[i].group = node_of[dict_find(b, s->node_name)];
        sk[i].pool = pool_of_slice[i];
        sk[i].name = nz(s->name);
        sk[i].idx = i;
        nrows += s->ndevices;
    }
    if (nrows > (uint64_t)INT32_MAX - DRA_TABLE_PAD)
        return dra_diag_set(b->diag, DRA_ELIMIT, NULL, 0, 0, "device table: %llu devices",
                            (unsigned long long)nrows);
    qsort(sk, m->nslices, sizeof *sk, cmp_slice_key);
    t->nrows = (uint32_t)nrows;
    t->nrows_padded = (t->nrows + DRA_TABLE_PAD - 1) / DRA_TABLE_PAD * DRA_TABLE_PAD;
    size_t np = t->nrows_padded;
    t->node = col_alloc(b, np, sizeof(uint32_t));
    t->pool = col_alloc(b, np, sizeof(uint32_t));
    t->driver = col_alloc(b, np, sizeof(uint32_t));
    t->name = col_alloc(b, np, sizeof(uint32_t));
    t->slice = col_alloc(b, np, sizeof(uint32_t));
    t->dev = col_alloc(b, np, sizeof(dra_device_t *));
    t->flags = col_alloc(b, np, sizeof(uint8_t));
    if (!t->node || !t->pool || !t->driver || !t->name || !t->slice || !t->dev || !t->flags)
        return DRA_ENOMEM;
    *sk_out = sk;
    return DRA_OK;
}

/* The row flags of device dev on node (DRA_TABLE_NONE: a shared device). */
static uint8_t row_flags(const dra_device_t *dev, uint32_t node)
{
    uint8_t f = 0;
    if (dev->allow_multiple_allocations)
        f |= DRA_ROW_MULTI_ALLOC;
    if (dev->ntaints)
        f |= DRA_ROW_TAINTED;
    if (dev->nconsumes)
        f |= DRA_ROW_CONSUMES;
    if (dev->nbinding_conditions || dev->nbinding_failure_conditions || dev->binds_to_node)
        f |= DRA_ROW_BINDING;
    if (node == DRA_TABLE_NONE)
        f |= DRA_ROW_SHARED;
    return f;
}

/* Step 3b: fills the rows slice by slice in sk's order, the nodes' row ranges, the shared range
 * and the padding rows. */
static int rows_fill(builder_t *b, const slice_key_t *sk)
{
    const dra_model_t *m = b->m;
    dra_table_t *t = b->t;
    int rc;
    uint32_t r = 0, g = 0;
    t->slice_first = dra_arena_calloc(b->a, (size_t)m->nslices + 1, sizeof(uint32_t), 8);
    if (!t->slice_first)
        return DRA_ENOMEM;
    for (uint32_t k = 0; k < m->nslices; k++) {
        const dra_slice_t *s = m->slices[sk[k].idx];
        t->slice_first[sk[k].idx] = r;
        while (g < sk[k].group && g < t->nnodes) { /* close the ranges of earlier nodes */
            t->nodes[g].end = r;
            if (++g < t->nnodes)
                t->nodes[g].begin = r;
        }
        uint32_t drv_id, node = sk[k].group < t->nnodes ? sk[k].group : DRA_TABLE_NONE;
        if ((rc = dict_put(b, s->driver, &drv_id)) != DRA_OK)
            return rc;
        for (uint32_t d = 0; d < s->ndevices; d++, r++) {
            const dra_device_t *dev = &s->devices[d];
            t->node[r] = node;
            t->pool[r] = sk[k].pool;
            t->driver[r] = drv_id;
            if ((rc = dict_put(b, dev->name, &t->name[r])) != DRA_OK)
                return rc;
            t->slice[r] = sk[k].idx;
            t->dev[r] = dev;
            t->flags[r] = row_flags(dev, node);
        }
    }
    while (g < t->nnodes) {
        t->nodes[g].end = r;
        if (++g < t->nnodes)
            t->nodes[g].begin = r;
    }
    /* nodes before the first local slice start at 0 (calloc); shared range after the nodes */
    t->shared_begin = t->nnodes ? t->nodes[t->nnodes - 1].end : 0;
    for (uint32_t i = 0; t->nnodes && i < t->nnodes; i++)
        if (t->nodes[i].end < t->nodes[i].begin)
            t->nodes[i].end = t->nodes[i].begin;
    for (; r < t->nrows_padded; r++) {
        t->node[r] = DRA_TABLE_NONE;
        t->pool[r] = DRA_TABLE_NONE;
        t->flags[r] = DRA_ROW_PAD;
    }
    return DRA_OK;
}

static int build_rows(builder_t *b)
{
    int rc;
    uint32_t *node_of = NULL, *pool_of_slice = NULL;
    slice_key_t *sk = NULL;
    if ((rc = rows_nodes(b, &node_of)) != DRA_OK ||
        (rc = rows_pools(b, &pool_of_slice)) != DRA_OK ||
        (rc = rows_slice_order(b, node_of, pool_of_slice, &sk)) != DRA_OK)
        return rc;
    return rows_fill(b, sk);
}

/* ---- step 4: attribute and capacity columns ------------------------------------------------- */

static bool is_version_kind(uint8_t k)
{
    return k == DRA_ATTR_VERSION || k == DRA_ATTR_VERSIONS;
}

static int build_versions(builder_t *b, uint32_t **rank_of_sid, uint8_t **bad_sid)
{
    dra_table_t *t = b->t;
    /* every version text interned and parsed in one pass, in row order (as interning them all
     * first and then parsing each new id in row order did): seen[] grows with the ids */
    uint32_t nids = b->dict.count + 1, nseen = nids + 64;
    uint8_t *seen = dra_arena_calloc(&b->tmp, nseen, 1, 8);
    ver_ent_t *ents = NULL;
    uint32_t nents = 0, cap = 0;
    if (!seen)
        return DRA_ENOMEM;
    for (uint32_t r = 0; r < t->nrows; r++) {
        const dra_device_t *d = t->dev[r];
        for (uint32_t i = 0; i < d->nattrs; i++) {
            const dra_attr_t *at = &d->attrs[i];
            if (!is_version_kind(at->kind))
                continue;
            uint32_t n = at->kind == DRA_ATTR_VERSION ? 1 : at->count;
            for (uint32_t j = 0; j < n; j++) {
                uint32_t sid;
                int rc = dict_put(b, at->kind == DRA_ATTR_VERSION ? at->v.s : at->v.strs[j], &sid);
                if (rc != DRA_OK)
                    return rc;
                if (sid >= nseen) {
                    uint32_t ns = 2 * sid + 64;
                    uint8_t *sn = dra_arena_realloc(&b->tmp, seen, nseen, ns, 8);
                    if (!sn)
                        return DRA_ENOMEM;
                    memset(sn + nseen, 0, ns - nseen);
                    seen = sn;
                    nseen = ns;
                }
                if (seen[sid])
                    continue;
                const char *stable = dra_intern_str(&b->dict, sid);
                dra_semver_t v;
                if (dra_semver_parse(stable, strlen(stable), false, &v, NULL) != DRA_OK) {
                    seen[sid] = 2; /* bad */
                    continue;
                }
                seen[sid] = 1;
                if (nents == cap) {
                    uint32_t ncap = cap ? cap * 2 : 64;
                    ver_ent_t *ne = dra_arena_realloc(&b->tmp, ents, cap * sizeof *ents,
                                                      ncap * sizeof *ents, 8);
                    if (!ne)
                        return DRA_ENOMEM;
                    ents = ne;
                    cap = ncap;
                }
                ents[nents].v = v;
                ents[nents].sid = sid;
                nents++;
            }
        }
    }
    nids = b->dict.count + 1;
    uint32_t *rank = dra_arena_calloc(&b->tmp, nids, sizeof(uint32_t), 8);
    if (!rank)
        return DRA_ENOMEM;
    if (nents)
        qsort(ents, nents, sizeof *ents, cmp_ver);
    t->vers = dra_arena_calloc(b->a, nents + 1, sizeof *t->vers, 8);
    if (!t->vers)
        return DRA_ENOMEM;
    for (uint32_t i = 0; i < nents; i++) {
        if (i == 0 || dra_semver_cmp(&ents[i - 1].v, &ents[i].v) != 0)
            t->vers[t->nvers++] = ents[i].v;
        rank[ents[i].sid] = t->nvers;
    }
    *rank_of_sid = rank;
    *bad_sid = seen;
    return DRA_OK;
}

/* ---- dictionaries ---------------------------------------------------------------------------- */

/* One dictionary entry while building: (column, kind, value), for capacities also the model
 * quantity (inexact values are told apart by representation). Codes are provisional (order of
 * first appearance) until dhash_finish sorts each column and renumbers. The first pass over the
 * devices records each value's entry index; the second writes the entries' final codes. */
typedef struct dent {
    int64_t val;
    const dra_quantity_t *q;   /* key: inexact capacity value (by representation), else NULL */
    const dra_quantity_t *rep; /* capacities: a quantity with this value (not part of the key) */
    uint32_t col, code;
    uint8_t kind;
} dent_t;

#define DHASH_MEMO 32

typedef struct dhash {
    dent_t *ents;
    uint32_t n, cap;
    uint32_t *slots; /* entry index + 1, open addressing, power of two */
    uint32_t nslots;
    uint32_t *ncol;  /* entries per column */
    uint32_t *memo;  /* per column DHASH_MEMO slots: entry index + 1 of a recent value */
    uint32_t ncols;
    bool caps;   /* capacity dictionaries: sort by exact value */
} dhash_t;

static uint64_t mix64(uint64_t x)
{
    x ^= x >> 33;
    x *= 0xff51afd7ed558ccdull;
    x ^= x >> 33;
    x *= 0xc4ceb9fe1a85ec53ull;
    return x ^ (x >> 33);
}

static inline bool same_repr(const dra_quantity_t *a, const dra_quantity_t *b)
{
    if (!a || !b)
        return a == b;
    return a->lo == b->lo && a->hi == b->hi && a->exp == b->exp && a->neg == b->neg;
}

static uint64_t dent_hash(uint32_t col, uint8_t kind, int64_t val, const dra_quantity_t *q)
{
    uint64_t h = mix64(((uint64_t)col << 8 | kind) ^ mix64((uint64_t)val));
    if (q)
        h = mix64(h ^ q->lo ^ mix64(q->hi ^ (uint64_t)(uint32_t)q->exp << 1 ^ (uint64_t)q->neg));
    return h;
}

static inline bool dent_eq(const dent_t *e, uint32_t col, uint8_t kind, int64_t val,
                    const dra_quantity_t *q)
{
    return e->col == col && e->kind == kind && e->val == val && same_repr(e->q, q);
}

static int dhash_init(builder_t *b, dhash_t *h, uint32_t ncols)
{
    memset(h, 0, sizeof *h);
    h->ncols = ncols;
    h->cap = 256;
    h->nslots = 512;
    h->ents = dra_arena_alloc(&b->tmp, h->cap * sizeof *h->ents, 8);
    h->slots = dra_arena_calloc(&b->tmp, h->nslots, sizeof *h->slots, 8);
    h->ncol = dra_arena_calloc(&b->tmp, ncols + 1, sizeof *h->ncol, 8);
    h->memo = dra_arena_calloc(&b->tmp, ((size_t)ncols + 1) * DHASH_MEMO, sizeof *h->memo, 8);
    return h->ents && h->slots && h->ncol && h->memo ? DRA_OK : DRA_ENOMEM;
}

static int dhash_grow(builder_t *b, dhash_t *h)
{
    uint32_t ns = h->nslots * 2;
    uint32_t *slots = dra_arena_calloc(&b->tmp, ns, sizeof *slots, 8);
    if (!slots)
        return DRA_ENOMEM;
    for (uint32_t e = 0; e < h->n; e++) {
        const dent_t *en = &h->ents[e];
        uint32_t i = (uint32_t)dent_hash(en->col, en->kind, en->val, en->q) & (ns - 1);
        while (slots[i])
            i = (i + 1) & (ns - 1);
        slots[i] = e + 1;
    }
    h->slots = slots;
    h->nslots = ns;
    return DRA_OK;
}

/* Entry index of (col, kind, val, q): found, or added. The memo probe is inline (it answers
 * nearly every call: most columns hold a few values); the table probe is not. */
static DRA_NOINLINE int dhash_put_slow(builder_t *b, dhash_t *h, uint32_t col, uint8_t kind,
                                       int64_t val, const dra_quantity_t *q,
                                       const dra_quantity_t *rep, uint32_t *memo, uint32_t *ent)
{
    uint32_t mask = h->nslots - 1;
    uint32_t i = (uint32_t)dent_hash(col, kind, val, q) & mask;
    for (uint32_t e; (e = h->slots[i]) != 0; i = (i + 1) & mask) {
        if (dent_eq(&h->ents[e - 1], col, kind, val, q)) {
            *memo = e;
            *ent = e - 1;
            return DRA_OK;
        }
    }
    if (h->n == h->cap) {
        dent_t *ne = dra_arena_realloc(&b->tmp, h->ents, (size_t)h->cap * sizeof *ne,
                                       (size_t)h->cap * 2 * sizeof *ne, 8);
        if (!ne)
            return DRA_ENOMEM;
        h->ents = ne;
        h->cap *= 2;
    }
    h->ents[h->n] = (dent_t){
        .val = val, .q = q, .rep = rep, .col = col, .code = ++h->ncol[col], .kind = kind};
    h->slots[i] = ++h->n;
    *memo = h->n;
    *ent = h->n - 1;
    if ((uint64_t)h->n * 2 > h->nslots)
        return dhash_grow(b, h);
    return DRA_OK;
}

static inline int dhash_put(builder_t *b, dhash_t *h, uint32_t col, uint8_t kind, int64_t val,
                            const dra_quantity_t *q, const dra_quantity_t *rep, uint32_t *ent)
{
    uint32_t *memo = &h->memo[(size_t)col * DHASH_MEMO +
                              (((uint64_t)val * 0x9e3779b97f4a7c15ull) >> 59 ^ kind) %
                                  DHASH_MEMO];
    if (*memo && dent_eq(&h->ents[*memo - 1], col, kind, val, q)) {
        *ent = *memo - 1;
        return DRA_OK;
    }
    return dhash_put_slow(b, h, col, kind, val, q, rep, memo, ent);
}

static int cmp_dent(const void *x, const void *y)
{
    const dent_t *a = *(const dent_t *const *)x, *b = *(const dent_t *const *)y;
    if (a->col != b->col)
        return a->col < b->col ? -1 : 1;
    if (a->rep && b->rep) { /* capacities: value, then exact before inexact, representation */
        bool ax = a->kind == 0, bx = b->kind == 0;
        int c = ax && bx ? (a->val > b->val) - (a->val < b->val)
                         : dra_quantity_cmp(a->rep, b->rep);
        if (c)
            return c;
        if (ax != bx)
            return ax ? -1 : 1;
        if (ax)
            return 0; /* one entry per exact value */
        if (a->q->exp != b->q->exp)
            return a->q->exp < b->q->exp ? -1 : 1;
        if (a->q->hi != b->q->hi)
            return a->q->hi < b->q->hi ? -1 : 1;
        return (a->q->lo > b->q->lo) - (a->q->lo < b->q->lo);
    }
    if (a->kind != b->kind)
        return a->kind < b->kind ? -1 : 1;
    return (a->val > b->val) - (a->val < b->val);
}

/* Sort every column's entries and renumber their codes 1..ncol[col] in that order. */
static int dhash_finish(builder_t *b, dhash_t *h)
{
    const dent_t **order = dra_arena_alloc(&b->tmp, ((size_t)h->n + 1) * sizeof *order, 8);
    if (!order)
        return DRA_ENOMEM;
    for (uint32_t e = 0; e < h->n; e++)
        order[e] = &h->ents[e];
    qsort(order, h->n, sizeof *order, cmp_dent);
    for (uint32_t e = 0, k = 0; e < h->n; e++) {
        k = e > 0 && order[e - 1]->col == order[e]->col ? k + 1 : 1;
        ((dent_t *)order[e])->code = k;
    }
    return DRA_OK;
}

static uint8_t code_width(uint32_t ndict)
{
    return ndict <= UINT8_MAX ? 1 : ndict <= UINT16_MAX ? 2 : 4;
}

/* Distinct lists per column: open addressing over (column, kind, content hash); slots hold
 * (column, list index + 1). Contents are compared element by element. */
typedef struct lhash {
    uint32_t *col, *idx;
    uint8_t *kind;
    uint64_t *hv;
    uint32_t n, nslots;
} lhash_t;

static int lhash_grow(builder_t *b, lhash_t *lh)
{
    uint32_t ns = lh->nslots ? lh->nslots * 2 : 64;
    lhash_t nh = {.nslots = ns, .n = lh->n};
    nh.col = dra_arena_calloc(&b->tmp, ns, sizeof *nh.col, 8);
    nh.idx = dra_arena_calloc(&b->tmp, ns, sizeof *nh.idx, 8);
    nh.kind = dra_arena_calloc(&b->tmp, ns, 1, 8);
    nh.hv = dra_arena_calloc(&b->tmp, ns, sizeof *nh.hv, 8);
    if (!nh.col || !nh.idx || !nh.kind || !nh.hv)
        return DRA_ENOMEM;
    for (uint32_t i = 0; i < lh->nslots; i++) {
        if (!lh->idx[i])
            continue;
        uint32_t j = (uint32_t)lh->hv[i] & (ns - 1);
        while (nh.idx[j])
            j = (j + 1) & (ns - 1);
        nh.col[j] = lh->col[i];
        nh.idx[j] = lh->idx[i];
        nh.kind[j] = lh->kind[i];
        nh.hv[j] = lh->hv[i];
    }
    *lh = nh;
    return DRA_OK;
}

/* List index of elems[0..len) of kind k in column c: found, or appended. */
static int list_index(builder_t *b, lhash_t *lh, uint32_t c, uint8_t k, const int64_t *elems,
                      uint32_t len, uint32_t *out)
{
    dra_table_attr_t *col = &b->t->attrs[c];
    if (!lh->nslots && lhash_grow(b, lh) != DRA_OK)
        return DRA_ENOMEM;
    uint64_t hv = mix64(((uint64_t)c << 8 | k) ^ XXH3_64bits(elems, (size_t)len * sizeof *elems));
    uint32_t mask = lh->nslots - 1, i = (uint32_t)hv & mask;
    for (; lh->idx[i]; i = (i + 1) & mask) {
        if (lh->hv[i] != hv || lh->col[i] != c || lh->kind[i] != k)
            continue;
        const dra_table_list_t *l = &col->lists[lh->idx[i]];
        if (l->len == len &&
            (len == 0 || !memcmp(&col->lvals[l->off], elems, len * sizeof *elems))) {
            *out = lh->idx[i];
            return DRA_OK;
        }
    }
    dra_table_list_t *l = &col->lists[col->nlists];
    l->off = col->nlvals;
    l->len = len;
    if (len)
        memcpy(&col->lvals[col->nlvals], elems, len * sizeof *elems);
    col->nlvals += len;
    lh->col[i] = c;
    lh->idx[i] = col->nlists++;
    lh->kind[i] = k;
    lh->hv[i] = hv;
    *out = lh->idx[i];
    if (++lh->n * 2 > lh->nslots)
        return lhash_grow(b, lh);
    return DRA_OK;
}

/* The dictionary value of an attribute (see dra_table_attr_t.dval); *bad when a version in it
 * does not parse. Lists are deduplicated. */
static int attr_value(builder_t *b, lhash_t *lh, uint32_t c, const dra_attr_t *at,
                      const uint32_t *rank_of_sid, const uint8_t *ver_state, int64_t *elems,
                      int64_t *v, bool *bad)
{
    *v = 0;
    switch ((dra_attr_kind_t)at->kind) {
    case DRA_ATTR_NONE: return DRA_OK;
    case DRA_ATTR_INT: *v = at->v.i; return DRA_OK;
    case DRA_ATTR_BOOL: *v = at->v.b ? 1 : 0; return DRA_OK;
    case DRA_ATTR_STRING: *v = dict_find(b, at->v.s); return DRA_OK;
    case DRA_ATTR_VERSION: {
        uint32_t sid = dict_find(b, at->v.s);
        *v = rank_of_sid[sid];
        *bad = ver_state[sid] == 2;
        return DRA_OK;
    }
    case DRA_ATTR_INTS:
    case DRA_ATTR_BOOLS:
    case DRA_ATTR_STRINGS:
    case DRA_ATTR_VERSIONS:
        for (uint32_t j = 0; j < at->count; j++) {
            if (at->kind == DRA_ATTR_INTS) {
                elems[j] = at->v.ints[j];
            } else if (at->kind == DRA_ATTR_BOOLS) {
                elems[j] = at->v.bools[j] ? 1 : 0;
            } else {
                uint32_t sid = dict_find(b, at->v.strs[j]);
                if (at->kind == DRA_ATTR_STRINGS) {
                    elems[j] = sid;
                } else {
                    elems[j] = rank_of_sid[sid];
                    *bad |= ver_state[sid] == 2;
                }
            }
        }
        uint32_t idx = 0;
        int rc = list_index(b, lh, c, at->kind, elems, at->count, &idx);
        *v = idx;
        return rc;
    }
    return DRA_OK;
}

/* Interns the string values (string ids are stable before anything indexes by them), creates
 * the attribute and capacity columns in order of first appearance with the kinds each holds,
 * and counts the lists (*nlists) and list values (*nlvals) per attribute column, the
 * longest attribute (b->attr_maxlen) and the attribute instances (b->attr_ninst): one pass over
 * the devices' attributes, the counts kept per interned name until the columns exist. */
static int attr_columns(builder_t *b, uint32_t **nlists_out, uint32_t **nlvals_out)
{
    const dra_model_t *m = b->m;
    dra_table_t *t = b->t;
    t->nqname_map = m->intern.count + 1;
    t->attr_by_qname = dra_arena_calloc(b->a, t->nqname_map, sizeof(uint32_t), 8);
    t->cap_by_qname = dra_arena_calloc(b->a, t->nqname_map, sizeof(uint32_t), 8);
    uint32_t *ql = dra_arena_calloc(&b->tmp, t->nqname_map, sizeof(uint32_t), 8);
    uint32_t *qv = dra_arena_calloc(&b->tmp, t->nqname_map, sizeof(uint32_t), 8);
    uint32_t *qk = dra_arena_calloc(&b->tmp, t->nqname_map, sizeof(uint32_t), 8);
    if (!t->attr_by_qname || !t->cap_by_qname || !ql || !qv || !qk)
        return DRA_ENOMEM;
    uint32_t maxlen = 1;
    uint64_t ninst = 0;
    for (uint32_t r = 0; r < t->nrows; r++) {
        const dra_device_t *d = t->dev[r];
        ninst += d->nattrs;
        for (uint32_t i = 0; i < d->nattrs; i++) {
            const dra_attr_t *at = &d->attrs[i];
            /* the string values interned here, in row order (what attr_intern_strings did in
             * a pass of its own: the ids are the same) */
            uint32_t sid;
            int rc = DRA_OK;
            if (at->kind == DRA_ATTR_STRING)
                rc = dict_put(b, at->v.s, &sid);
            for (uint32_t j = 0; at->kind == DRA_ATTR_STRINGS && j < at->count && rc == DRA_OK; j++)
                rc = dict_put(b, at->v.strs[j], &sid);
            if (rc != DRA_OK)
                return rc;
            if (at->count > maxlen)
                maxlen = at->count;
            uint32_t q = at->qname;
            if (q == 0 || q >= t->nqname_map)
                continue;
            if (!t->attr_by_qname[q])
                t->attr_by_qname[q] = ++t->nattrs;
            if (dra_attr_kind_is_list((dra_attr_kind_t)at->kind)) {
                ql[q]++;
                qv[q] += at->count;
            }
            if (at->kind <= DRA_ATTR_VERSIONS)
                qk[q] |= 1u << at->kind;
        }
        for (uint32_t i = 0; i < d->ncaps; i++) {
            uint32_t q = d->caps[i].qname;
            if (q && q < t->nqname_map && !t->cap_by_qname[q])
                t->cap_by_qname[q] = ++t->ncaps;
        }
    }
    b->attr_maxlen = maxlen;
    b->attr_ninst = ninst;
    uint32_t *nlists = dra_arena_calloc(&b->tmp, t->nattrs + 1, sizeof(uint32_t), 8);
    uint32_t *nlvals = dra_arena_calloc(&b->tmp, t->nattrs + 1, sizeof(uint32_t), 8);
    t->attrs = dra_arena_calloc(b->a, t->nattrs + 1, sizeof *t->attrs, 8);
    t->caps = dra_arena_calloc(b->a, t->ncaps + 1, sizeof *t->caps, 8);
    if (!nlists || !nlvals || !t->attrs || !t->caps)
        return DRA_ENOMEM;
    *nlists_out = nlists;
    *nlvals_out = nlvals;
    for (uint32_t q = 1; q < t->nqname_map; q++) {
        if (t->attr_by_qname[q]) {
            uint32_t c = t->attr_by_qname[q] - 1;
            dra_table_attr_t *col = &t->attrs[c];
            col->qname = q;
            col->name = dra_intern_str(&m->intern, q);
            col->kinds = qk[q];
            nlists[c] = ql[q];
            nlvals[c] = qv[q];
        }
        if (t->cap_by_qname[q]) {
            dra_table_cap_t *c = &t->caps[t->cap_by_qname[q] - 1];
            c->qname = q;
            c->name = dra_intern_str(&m->intern, q);
        }
    }
    return DRA_OK;
}

/* Allocates the columns' presence bits, their scratch list storage (upper bounds; distinct lists
 * are copied out at the end) and *elems, room for the longest attribute's elements. */
static int attr_scratch(builder_t *b, const uint32_t *nlists, const uint32_t *nlvals,
                        int64_t **elems_out)
{
    dra_table_t *t = b->t;
    dra_table_list_t **slists = dra_arena_calloc(&b->tmp, t->nattrs + 1, sizeof *slists, 8);
    int64_t **slvals = dra_arena_calloc(&b->tmp, t->nattrs + 1, sizeof *slvals, 8);
    int64_t *elems = dra_arena_calloc(&b->tmp, b->attr_maxlen, sizeof *elems, 8);
    if (!slists || !slvals || !elems)
        return DRA_ENOMEM;
    *elems_out = elems;
    for (uint32_t c = 0; c < t->nattrs; c++) {
        dra_table_attr_t *col = &t->attrs[c];
        col->present = bits_alloc(b);
        if (!col->present)
            return DRA_ENOMEM;
        if (nlists[c]) {
            slists[c] = dra_arena_calloc(&b->tmp, nlists[c] + 1, sizeof **slists, 8);
            slvals[c] = dra_arena_calloc(&b->tmp, nlvals[c] + 1, sizeof **slvals, 8);
            if (!slists[c] || !slvals[c])
                return DRA_ENOMEM;
            col->lists = slists[c];
            col->lvals = slvals[c];
            col->nlists = 1; /* index 0 unused */
        }
    }
    return DRA_OK;
}

/* Pass A: puts each column's distinct values in h (first-wins on a name repeated on one device)
 * and records, per attribute instance in row order, its entry in ents. */
static int attr_distinct(builder_t *b, dhash_t *h, const uint32_t *rank_of_sid,
                         const uint8_t *ver_state, int64_t *elems, uint32_t **ents_out)
{
    dra_table_t *t = b->t;
    lhash_t lh = {0};
    int rc;
    if ((rc = dhash_init(b, h, t->nattrs)) != DRA_OK)
        return rc;
    uint64_t ninst = b->attr_ninst; /* attribute instances: one entry index each */
    uint32_t *ents = dra_arena_alloc(&b->tmp, (size_t)(ninst + 1) * sizeof *ents, 8);
    uint32_t nents = 0;
    if (!ents)
        return DRA_ENOMEM;
    *ents_out = ents;
    for (uint32_t r = 0; r < t->nrows; r++) {
        const dra_device_t *d = t->dev[r];
        for (uint32_t i = 0; i < d->nattrs; i++) {
            const dra_attr_t *at = &d->attrs[i];
            if (at->qname == 0 || at->qname >= t->nqname_map || at->kind > DRA_ATTR_VERSIONS)
                continue;
            uint32_t c = t->attr_by_qname[at->qname] - 1;
            dra_table_attr_t *col = &t->attrs[c];
            if (dra_bit_get(col->present, r))
                continue;
            dra_bit_set(col->present, r);
            col->npresent++;
            int64_t v;
            bool bad = false;
            if ((rc = attr_value(b, &lh, c, at, rank_of_sid, ver_state, elems, &v, &bad)) !=
                DRA_OK)
                return rc;
            if (bad)
                t->flags[r] |= DRA_ROW_BAD_VERSION;
            if ((rc = dhash_put(b, h, c, at->kind, v, NULL, NULL, &ents[nents++])) != DRA_OK)
                return rc;
        }
    }
    return DRA_OK;
}

/* Dictionaries: sorts each column's entries, gives codes, chooses widths, fills the columns'
 * dictionaries and copies the distinct lists out of scratch. */
static int attr_dicts(builder_t *b, dhash_t *h)
{
    dra_table_t *t = b->t;
    int rc;
    if ((rc = dhash_finish(b, h)) != DRA_OK)
        return rc;
    for (uint32_t c = 0; c < t->nattrs; c++) {
        dra_table_attr_t *col = &t->attrs[c];
        col->ndict = h->ncol[c];
        col->dkind = col_alloc(b, (size_t)col->ndict + 1, 1);
        col->dval = col_alloc(b, (size_t)col->ndict + 1, sizeof(int64_t));
        col->width = code_width(col->ndict);
        col->code = col_alloc(b, t->nrows_padded, col->width);
        if (!col->dkind || !col->dval || !col->code)
            return DRA_ENOMEM;
        if (col->nlists > 1) { /* copy the distinct lists out of scratch */
            dra_table_list_t *l = col_alloc(b, col->nlists, sizeof *l);
            int64_t *lv = col_alloc(b, (size_t)col->nlvals + 1, sizeof *lv);
            if (!l || !lv)
                return DRA_ENOMEM;
            memcpy(l, col->lists, (size_t)col->nlists * sizeof *l);
            memcpy(lv, col->lvals, (size_t)col->nlvals * sizeof *lv);
            col->lists = l;
            col->lvals = lv;
        }
    }
    for (uint32_t e = 0; e < h->n; e++) {
        const dent_t *en = &h->ents[e];
        t->attrs[en->col].dkind[en->code] = en->kind;
        t->attrs[en->col].dval[en->code] = en->val;
    }
    return DRA_OK;
}

/* Pass B: sets the codes, in the order pass A recorded the entries, and counts the rows with a
 * bad version. */
static void attr_codes(builder_t *b, const dhash_t *h, const uint32_t *ents)
{
    dra_table_t *t = b->t;
    size_t np = t->nrows_padded;
    for (uint32_t c = 0; c < t->nattrs; c++)
        memset(t->attrs[c].present, 0, dra_bitset_words(np) * sizeof(uint64_t));
    for (uint32_t r = 0, k = 0; r < t->nrows; r++) {
        const dra_device_t *d = t->dev[r];
        for (uint32_t i = 0; i < d->nattrs; i++) {
            const dra_attr_t *at = &d->attrs[i];
            if (at->qname == 0 || at->qname >= t->nqname_map || at->kind > DRA_ATTR_VERSIONS)
                continue;
            dra_table_attr_t *col = &t->attrs[t->attr_by_qname[at->qname] - 1];
            if (dra_bit_get(col->present, r))
                continue;
            dra_bit_set(col->present, r);
            dra_table_code_set(col->code, col->width, r, h->ents[ents[k++]].code);
        }
    }
    for (uint32_t r = 0; r < t->nrows; r++)
        if (t->flags[r] & DRA_ROW_BAD_VERSION)
            t->nbad_version_rows++;
}

static int build_attrs(builder_t *b)
{
    int rc;
    uint32_t *rank_of_sid, *nlists = NULL, *nlvals = NULL, *ents = NULL;
    uint8_t *ver_state;
    int64_t *elems = NULL;
    dhash_t h;
    if ((rc = build_versions(b, &rank_of_sid, &ver_state)) != DRA_OK ||
        (rc = attr_columns(b, &nlists, &nlvals)) != DRA_OK ||
        (rc = attr_scratch(b, nlists, nlvals, &elems)) != DRA_OK ||
        (rc = attr_distinct(b, &h, rank_of_sid, ver_state, elems, &ents)) != DRA_OK ||
        (rc = attr_dicts(b, &h)) != DRA_OK)
        return rc;
    attr_codes(b, &h, ents);
    return DRA_OK;
}

/* The fixed-point forms of the last quantity seen in a capacity column: devices of one kind
 * repeat the same values, and dra_quantity_to_fixed is 128-bit arithmetic at four scales. */
typedef struct qmemo {
    uint64_t lo, hi;
    int32_t exp;
    int8_t neg;
    uint8_t valid;
    uint8_t exact; /* bit s: representable at scales[s] */
    int64_t units[4];
} qmemo_t;

#define QMEMO_WAYS 16 /* direct-mapped entries per column */

static const qmemo_t *qmemo_get(qmemo_t *col_memo, const dra_quantity_t *q, const int32_t *scales)
{
    uint64_t h = q->lo * 0x9e3779b97f4a7c15ull ^ q->hi ^ (uint64_t)(uint32_t)q->exp * 31u;
    qmemo_t *mc = &col_memo[(h >> 59) & (QMEMO_WAYS - 1)];
    if (mc->valid && mc->lo == q->lo && mc->hi == q->hi && mc->exp == q->exp && mc->neg == q->neg)
        return mc;
    mc->lo = q->lo;
    mc->hi = q->hi;
    mc->exp = q->exp;
    mc->neg = q->neg;
    mc->valid = 1;
    mc->exact = 0;
    for (uint32_t s = 0; s < 4; s++) {
        mc->units[s] = 0;
        if (dra_quantity_to_fixed(q, &mc->units[s], scales[s]))
            mc->exact |= (uint8_t)(1u << s);
    }
    return mc;
}

static int build_caps(builder_t *b)
{
    dra_table_t *t = b->t;
    static const int32_t scales[] = {0, -3, -6, -9};
    size_t np = t->nrows_padded;
    int rc;
    for (uint32_t c = 0; c < t->ncaps; c++) {
        dra_table_cap_t *col = &t->caps[c];
        col->present = bits_alloc(b);
        if (!col->present)
            return DRA_ENOMEM;
    }
    /* scale choice: count exact values per candidate scale */
    uint32_t *exact = dra_arena_calloc(&b->tmp, (size_t)(t->ncaps + 1) * 4, sizeof(uint32_t), 8);
    qmemo_t *memo = dra_arena_calloc(&b->tmp, (size_t)(t->ncaps + 1) * QMEMO_WAYS, sizeof *memo, 8);
    uint8_t *scale_idx = dra_arena_calloc(&b->tmp, t->ncaps + 1, 1, 8);
    if (!exact || !memo || !scale_idx)
        return DRA_ENOMEM;
    uint64_t ninst = 0; /* capacity instances (pass A's entries), counted on the way */
    for (uint32_t r = 0; r < t->nrows; r++) {
        const dra_device_t *d = t->dev[r];
        ninst += d->ncaps;
        for (uint32_t i = 0; i < d->ncaps; i++) {
            uint32_t q = d->caps[i].qname;
            if (!q || q >= t->nqname_map)
                continue;
            uint32_t c = t->cap_by_qname[q] - 1;
            dra_table_cap_t *col = &t->caps[c];
            if (dra_bit_get(col->present, r))
                continue;
            dra_bit_set(col->present, r);
            col->npresent++;
            const qmemo_t *qm = qmemo_get(&memo[c * QMEMO_WAYS], &d->caps[i].value, scales);
            for (uint32_t s = 0; s < 4; s++)
                if (qm->exact & (1u << s))
                    exact[c * 4 + s]++;
        }
    }
    for (uint32_t c = 0; c < t->ncaps; c++) {
        dra_table_cap_t *col = &t->caps[c];
        uint32_t best = 0;
        for (uint32_t s = 0; s < 4; s++) {
            if (exact[c * 4 + s] == col->npresent) {
                best = s;
                break;
            }
            if (exact[c * 4 + s] > exact[c * 4 + best])
                best = s;
        }
        col->scale = scales[best];
        scale_idx[c] = (uint8_t)best;
    }
    /* pass A: distinct values (exact ones by units, inexact ones by representation), the
     * entry of every first capacity of a name on a device recorded in order; pass B: codes */
    dhash_t h;
    if ((rc = dhash_init(b, &h, t->ncaps)) != DRA_OK)
        return rc;
    uint32_t *ents = dra_arena_alloc(&b->tmp, (size_t)(ninst + 1) * sizeof *ents, 8);
    uint32_t nents = 0;
    if (!ents)
        return DRA_ENOMEM;
    for (int pass = 0; pass < 2; pass++) {
        for (uint32_t c = 0; c < t->ncaps; c++)
            memset(t->caps[c].present, 0, dra_bitset_words(np) * sizeof(uint64_t));
        for (uint32_t r = 0, k = 0; r < t->nrows; r++) {
            const dra_device_t *d = t->dev[r];
            for (uint32_t i = 0; i < d->ncaps; i++) {
                uint32_t q = d->caps[i].qname;
                if (!q || q >= t->nqname_map)
                    continue;
                uint32_t c = t->cap_by_qname[q] - 1;
                dra_table_cap_t *col = &t->caps[c];
                if (dra_bit_get(col->present, r))
                    continue;
                dra_bit_set(col->present, r);
                if (pass == 1) {
                    dra_table_code_set(col->code, col->width, r, h.ents[ents[k++]].code);
                    continue;
                }
                uint32_t si = scale_idx[c];
                const dra_quantity_t *qv = &d->caps[i].value;
                const qmemo_t *qm = qmemo_get(&memo[c * QMEMO_WAYS], qv, scales);
                bool ex = (qm->exact & (1u << si)) != 0;
                if ((rc = dhash_put(b, &h, c, ex ? 0 : 1, ex ? qm->units[si] : 0, ex ? NULL : qv,
                                    qv, &ents[nents++])) != DRA_OK)
                    return rc;
                col->ninexact += !ex;
            }
        }
        if (pass == 1)
            break;
        if ((rc = dhash_finish(b, &h)) != DRA_OK)
            return rc;
        for (uint32_t c = 0; c < t->ncaps; c++) {
            dra_table_cap_t *col = &t->caps[c];
            col->ndict = h.ncol[c];
            col->width = code_width(col->ndict);
            col->code = col_alloc(b, np, col->width);
            col->dunits = col_alloc(b, (size_t)col->ndict + 1, sizeof *col->dunits);
            col->dq = col_alloc(b, (size_t)col->ndict + 1, sizeof *col->dq);
            col->dinexact =
                col_alloc(b, dra_bitset_words((size_t)col->ndict + 1), sizeof(uint64_t));
            if (!col->code || !col->dunits || !col->dq || !col->dinexact)
                return DRA_ENOMEM;
        }
        for (uint32_t e = 0; e < h.n; e++) {
            const dent_t *en = &h.ents[e];
            dra_table_cap_t *col = &t->caps[en->col];
            col->dunits[en->code] = en->val;
            col->dq[en->code] = en->rep;
            if (en->kind)
                dra_bit_set(col->dinexact, en->code);
        }
    }
    return DRA_OK;
}

/* ---- step 5: dictionary --------------------------------------------------------------------- */

static int finish_dict(builder_t *b)
{
    dra_table_t *t = b->t;
    t->nstrs = b->dict.count;
    t->strs = dra_arena_calloc(b->a, t->nstrs + 1, sizeof(char *), 8);
    t->str_lens = dra_arena_calloc(b->a, t->nstrs + 1, sizeof(uint32_t), 8);
    uint32_t ns = 16;
    while (ns < 2 * (t->nstrs + 1))
        ns *= 2;
    t->nstr_slots = ns;
    t->str_slots = dra_arena_calloc(b->a, ns, sizeof(uint32_t), 8);
    if (!t->strs || !t->str_lens || !t->str_slots)
        return DRA_ENOMEM;
    for (uint32_t id = 1; id <= t->nstrs; id++) {
        t->strs[id] = b->dict.entries[id].str;
        t->str_lens[id] = b->dict.entries[id].len;
        uint32_t i = (uint32_t)dra_hash64(t->strs[id], t->str_lens[id]) & (ns - 1);
        while (t->str_slots[i])
            i = (i + 1) & (ns - 1);
        t->str_slots[i] = id;
    }
    return DRA_OK;
}

int dra_table_build(const dra_model_t *m, dra_arena_t *arena, dra_table_t **out, dra_diag_t *diag)
{
    if (!m || !arena || !out)
        return DRA_EINVAL;
    *out = NULL;
    builder_t b = {.m = m, .a = arena, .diag = diag};
    dra_arena_init(&b.tmp, 0);
    dra_intern_init(&b.dict, arena);
    int rc = DRA_ENOMEM;
    b.pc_ptr = dra_arena_calloc(&b.tmp, PTR_CACHE, sizeof *b.pc_ptr, 8);
    b.pc_id = dra_arena_calloc(&b.tmp, PTR_CACHE, sizeof *b.pc_id, 8);
    b.t = b.pc_ptr && b.pc_id ? dra_arena_calloc(arena, 1, sizeof *b.t, 64) : NULL;
    if (b.t) {
        b.t->model = m;
        rc = build_rows(&b);
        if (rc == DRA_OK)
            rc = build_attrs(&b);
        if (rc == DRA_OK)
            rc = build_caps(&b);
        if (rc == DRA_OK)
            rc = finish_dict(&b);
        for (uint32_t c = 0; rc == DRA_OK && c < b.t->nattrs; c++)
            b.t->attrs[c].nsorted = b.t->attrs[c].ndict;
        for (uint32_t c = 0; rc == DRA_OK && c < b.t->ncaps; c++)
            b.t->caps[c].nsorted = b.t->caps[c].ndict;
    }
    dra_intern_fini(&b.dict);
    dra_arena_fini(&b.tmp);
#if DRA_DEBUG >= 3
    /* debug presets (gcc-debug): every table any test builds is checked against its model */
    if (rc == DRA_OK && dra_table_check(b.t, diag) != DRA_OK)
        rc = DRA_EINTERNAL;
#endif
    if (rc != DRA_OK) {
        if (diag && diag->code == DRA_OK)
            dra_diag_set(diag, rc, NULL, 0, 0, "device table: %s", dra_strerror(rc));
        return rc;
    }
    *out = b.t;
    return DRA_OK;
}

/* ---- lookups -------------------------------------------------------------------------------- */

/* The layout invariants every lookup relies on (cheap; the full list is dra_table_check). */
DRA_UNUSED static bool layout_ok(const dra_table_t *t)
{
    return t && t->model && t->nrows_padded % DRA_TABLE_PAD == 0 && t->nrows <= t->nrows_padded &&
           t->nrows_padded - t->nrows < DRA_TABLE_PAD && t->shared_begin <= t->nrows &&
           (t->nqname_map == 0 || (t->attr_by_qname && t->cap_by_qname));
}

const dra_table_attr_t *dra_table_attr(const dra_table_t *t, uint32_t qname)
{
    DRA_ASSERT_INTERNAL(layout_ok(t));
    if (!qname || qname >= t->nqname_map || !t->attr_by_qname[qname])
        return NULL;
    return &t->attrs[t->attr_by_qname[qname] - 1];
}

const dra_table_cap_t *dra_table_cap(const dra_table_t *t, uint32_t qname)
{
    DRA_ASSERT_INTERNAL(layout_ok(t));
    if (!qname || qname >= t->nqname_map || !t->cap_by_qname[qname])
        return NULL;
    return &t->caps[t->cap_by_qname[qname] - 1];
}

const dra_table_attr_t *dra_table_attr_by_name(const dra_table_t *t, const char *qname, size_t len)
{
    return dra_table_attr(t, dra_intern_find(&t->model->intern, qname, len));
}

const dra_table_cap_t *dra_table_cap_by_name(const dra_table_t *t, const char *qname, size_t len)
{
    return dra_table_cap(t, dra_intern_find(&t->model->intern, qname, len));
}

uint32_t dra_table_str_find(const dra_table_t *t, const char *s, size_t len)
{
    DRA_ASSERT_INTERNAL(t && (s || len == 0));
    DRA_ASSERT_INTERNAL((t->nstr_slots & (t->nstr_slots - 1)) == 0 && t->nstr_slots >= t->nstrs);
    if (!t->nstr_slots)
        return 0;
    uint32_t mask = t->nstr_slots - 1;
    uint32_t i = (uint32_t)dra_hash64(s, len) & mask;
    for (uint32_t id; (id = t->str_slots[i]) != 0; i = (i + 1) & mask)
        if (t->str_lens[id] == len && memcmp(t->strs[id], s, len) == 0)
            return id;
    return 0;
}

const char *dra_table_str(const dra_table_t *t, uint32_t id)
{
    DRA_ASSERT_INTERNAL(t && (t->nstrs == 0 || t->strs));
    return id && id <= t->nstrs ? t->strs[id] : NULL;
}

uint32_t dra_table_node_index(const dra_table_t *t, const char *name)
{
    DRA_ASSERT_INTERNAL(layout_ok(t));
    if (!name)
        return DRA_TABLE_NONE;
    uint32_t id = dra_table_str_find(t, name, strlen(name));
    /* strings the dictionary gained after the build (slice updates) name no node */
    return id && id < t->nnode_by_str ? t->node_by_str[id] : DRA_TABLE_NONE;
}

DRA_UNUSED static bool vers_sorted(const dra_table_t *t)
{
    for (uint32_t i = 1; i < t->nvers; i++)
        if (dra_semver_cmp(&t->vers[i - 1], &t->vers[i]) >= 0)
            return false;
    return true;
}

void dra_table_version_locate(const dra_table_t *t, const dra_semver_t *v, uint32_t *rank,
                              bool *exact)
{
    DRA_ASSERT_INTERNAL(t && v && rank && exact);
    DRA_ASSERT_EXPENSIVE(vers_sorted(t)); /* the binary search needs strictly increasing ranks */
    /* largest k with vers[k-1] <= v */
    uint32_t lo = 0, hi = t->nvers;
    while (lo < hi) {
        uint32_t mid = lo + (hi - lo) / 2;
        if (dra_semver_cmp(&t->vers[mid], v) <= 0)
            lo = mid + 1;
        else
            hi = mid;
    }
    *rank = lo;
    *exact = lo > 0 && dra_semver_cmp(&t->vers[lo - 1], v) == 0;
}

/* ---- digest --------------------------------------------------------------------------------- */

static void h_u64(XXH3_state_t *st, uint64_t v)
{
    XXH3_64bits_update(st, &v, sizeof v);
}

static void h_str(XXH3_state_t *st, const char *s)
{
    s = nz(s);
    size_t n = strlen(s);
    h_u64(st, n);
    XXH3_64bits_update(st, s, n);
}

uint64_t dra_table_digest(const dra_table_t *t)
{
    DRA_ASSERT_INTERNAL(layout_ok(t));
    XXH3_state_t st;
    XXH3_INITSTATE(&st);
    XXH3_64bits_reset(&st);
    h_str(&st, "drabench-table-v1");
    h_u64(&st, t->nrows);
    h_u64(&st, t->nnodes);
    for (uint32_t i = 0; i < t->nnodes; i++) {
        h_str(&st, t->nodes[i].name);
        h_u64(&st, ((uint64_t)t->nodes[i].begin << 32) | t->nodes[i].end);
    }
    h_u64(&st, t->shared_begin);
    h_u64(&st, t->npools);
    for (uint32_t i = 0; i < t->npools; i++) {
        h_str(&st, t->pools[i].driver);
        h_str(&st, t->pools[i].name);
    }
    for (uint32_t r = 0; r < t->nrows; r++) {
        h_u64(&st, ((uint64_t)t->node[r] << 32) | t->pool[r]);
        h_u64(&st, ((uint64_t)t->slice[r] << 32) | t->dev[r]->index);
        h_str(&st, dra_table_str(t, t->driver[r]));
        h_str(&st, dra_table_str(t, t->name[r]));
        h_u64(&st, t->flags[r]);
    }
    h_u64(&st, t->nvers);
    for (uint32_t c = 0; c < t->nattrs; c++) {
        const dra_table_attr_t *col = &t->attrs[c];
        h_str(&st, col->name);
        for (uint32_t r = 0; r < t->nrows; r++) {
            uint8_t k = (uint8_t)dra_table_attr_kind(col, r);
            int64_t v = dra_table_attr_val(col, r);
            h_u64(&st, k);
            switch ((dra_attr_kind_t)k) {
            case DRA_ATTR_NONE: break;
            case DRA_ATTR_INT:
            case DRA_ATTR_BOOL:
            case DRA_ATTR_VERSION: h_u64(&st, (uint64_t)v); break;
            case DRA_ATTR_STRING: h_str(&st, dra_table_str(t, (uint32_t)v)); break;
            case DRA_ATTR_INTS:
            case DRA_ATTR_BOOLS:
            case DRA_ATTR_STRINGS:
            case DRA_ATTR_VERSIONS: {
                const dra_table_list_t *l = &col->lists[v];
                h_u64(&st, l->len);
                for (uint32_t j = 0; j < l->len; j++) {
                    int64_t e = col->lvals[l->off + j];
                    if (k == DRA_ATTR_STRINGS)
                        h_str(&st, dra_table_str(t, (uint32_t)e));
                    else
                        h_u64(&st, (uint64_t)e);
                }
                break;
            }
            }
        }
    }
    for (uint32_t c = 0; c < t->ncaps; c++) {
        const dra_table_cap_t *col = &t->caps[c];
        h_str(&st, col->name);
        h_u64(&st, (uint64_t)(int64_t)col->scale);
        for (uint32_t r = 0; r < t->nrows; r++) {
            uint32_t code = dra_table_cap_code(col, r);
            bool pr = code != 0, ix = pr && dra_bit_get(col->dinexact, code);
            h_u64(&st, (uint64_t)pr | (uint64_t)ix << 1);
            if (pr && !ix) {
                h_u64(&st, (uint64_t)col->dunits[code]);
            } else if (ix) {
                const dra_capacity_t *cap = dra_device_capacity(t->dev[r], col->qname);
                h_u64(&st, cap ? dra_quantity_hash(&cap->value) : 0);
            }
        }
    }
    return XXH3_64bits_digest(&st);
}

/* ---- check ---------------------------------------------------------------------------------- */

#define FAIL(...) return dra_diag_set(diag, DRA_EVALIDATE, NULL, 0, 0, __VA_ARGS__)

static bool aligned(const void *p)
{
    return ((uintptr_t)p & (DRA_TABLE_ALIGN - 1)) == 0;
}

static bool bits_clean(const uint64_t *w, uint32_t nrows, uint32_t npad)
{
    size_t nw = dra_bitset_words(npad);
    for (size_t i = nrows / 64; i < nw; i++) {
        uint64_t keep = i == nrows / 64 && (nrows & 63) ? (((uint64_t)1 << (nrows & 63)) - 1) : 0;
        if (w[i] & ~keep)
            return false;
    }
    return true;
}

/* Dictionary shape shared by attribute and capacity columns: width fits ndict, padding codes
 * are 0, present bit = code != 0, every code <= ndict and every entry used. */
static int check_codes(const dra_table_t *t, const char *what, const char *name, const void *code,
                       uint8_t width, uint32_t ndict, const uint64_t *present, uint32_t npresent,
                       uint64_t *used, dra_diag_t *diag)
{
    if (!aligned(code) || !aligned(present))
        FAIL("%s %s: column not 64-byte aligned", what, name);
    if (width != (ndict <= UINT8_MAX ? 1 : ndict <= UINT16_MAX ? 2 : 4))
        FAIL("%s %s: code width %u for %u entries", what, name, width, ndict);
    if (!bits_clean(present, t->nrows, t->nrows_padded))
        FAIL("%s %s: present bits beyond the rows", what, name);
    uint32_t n = 0;
    for (uint32_t r = 0; r < t->nrows_padded; r++) {
        uint32_t c = dra_table_code_at(code, width, r);
        if (r >= t->nrows) {
            if (c)
                FAIL("%s %s: padding row %u is not neutral", what, name, r);
            continue;
        }
        if (c > ndict)
            FAIL("%s %s: row %u code %u beyond the %u entries", what, name, r, c, ndict);
        if ((c != 0) != dra_bit_get(present, r))
            FAIL("%s %s: row %u code/present mismatch", what, name, r);
        n += c != 0;
        if (c)
            dra_bit_set(used, c);
    }
    if (n != npresent)
        FAIL("%s %s: present count %u, rows %u", what, name, npresent, n);
    for (uint32_t e = 1; e <= ndict && !t->nupdates; e++) /* updates may leave entries unused */
        if (!dra_bit_get(used, e))
            FAIL("%s %s: dictionary entry %u unused", what, name, e);
    return DRA_OK;
}

static int check_attr(const dra_table_t *t, const dra_table_attr_t *col, uint64_t *used,
                      dra_diag_t *diag)
{
    memset(used, 0, dra_bitset_words((size_t)col->ndict + 1) * sizeof *used);
    int rc = check_codes(t, "attribute", col->name, col->code, col->width, col->ndict,
                         col->present, col->npresent, used, diag);
    if (rc != DRA_OK)
        return rc;
    /* dictionary: entry 0 neutral, entries strictly increasing by (kind, value), lists distinct */
    if (col->dkind[0] != DRA_ATTR_NONE || col->dval[0] != 0)
        FAIL("attribute %s: dictionary entry 0 is not neutral", col->name);
    uint32_t kinds = 0;
    for (uint32_t e = 1; e <= col->ndict; e++) {
        uint8_t k = col->dkind[e];
        int64_t v = col->dval[e];
        if (k == DRA_ATTR_NONE || k > DRA_ATTR_VERSIONS)
            FAIL("attribute %s: dictionary entry %u kind %u", col->name, e, k);
        kinds |= 1u << k;
        if (e > 1 && e <= col->nsorted &&
            (col->dkind[e - 1] > k || (col->dkind[e - 1] == k && col->dval[e - 1] >= v)))
            FAIL("attribute %s: dictionary entries %u, %u out of order", col->name, e - 1, e);
        bool ok = true;
        if (k == DRA_ATTR_BOOL)
            ok = v == 0 || v == 1;
        else if (k == DRA_ATTR_STRING)
            ok = v >= 1 && v <= t->nstrs;
        else if (k == DRA_ATTR_VERSION)
            ok = v >= 0 && v <= t->nvers;
        else if (dra_attr_kind_is_list((dra_attr_kind_t)k))
            ok = v >= 1 && v < col->nlists &&
                 (uint64_t)col->lists[v].off + col->lists[v].len <= col->nlvals;
        if (!ok)
            FAIL("attribute %s: dictionary entry %u value %lld", col->name, e, (long long)v);
        for (uint32_t f = 1; ok && dra_attr_kind_is_list((dra_attr_kind_t)k) && f < e; f++) {
            const dra_table_list_t *a = &col->lists[v], *b = &col->lists[col->dval[f]];
            if (col->dkind[f] == k && a->len == b->len &&
                (a->len == 0 ||
                 !memcmp(&col->lvals[a->off], &col->lvals[b->off], a->len * sizeof(int64_t))))
                FAIL("attribute %s: dictionary entries %u, %u hold the same list", col->name, f,
                     e);
        }
    }
    if (kinds != col->kinds)
        FAIL("attribute %s: kind mask inconsistent", col->name);
    /* every row against the model */
    for (uint32_t r = 0; r < t->nrows; r++) {
        uint8_t k = (uint8_t)dra_table_attr_kind(col, r);
        int64_t v = dra_table_attr_val(col, r);
        const dra_attr_t *at = dra_device_attr(t->dev[r], col->qname);
        if ((at != NULL) != (k != DRA_ATTR_NONE) || (at && at->kind != k))
            FAIL("attribute %s: row %u disagrees with the model", col->name, r);
        switch ((dra_attr_kind_t)k) {
        case DRA_ATTR_NONE: break;
        case DRA_ATTR_INT:
            if (v != at->v.i)
                FAIL("attribute %s: row %u int value", col->name, r);
            break;
        case DRA_ATTR_BOOL:
            if (v != (at->v.b ? 1 : 0))
                FAIL("attribute %s: row %u bool value", col->name, r);
            break;
        case DRA_ATTR_STRING: {
            const char *s = dra_table_str(t, (uint32_t)v);
            if (!s || strcmp(s, nz(at->v.s)) != 0)
                FAIL("attribute %s: row %u string id", col->name, r);
            break;
        }
        case DRA_ATTR_VERSION: {
            dra_semver_t sv;
            const char *s = nz(at->v.s);
            bool ok = dra_semver_parse(s, strlen(s), false, &sv, NULL) == DRA_OK;
            if (!ok) {
                if (v != 0 || !(t->flags[r] & DRA_ROW_BAD_VERSION))
                    FAIL("attribute %s: row %u bad version not flagged", col->name, r);
            } else if (v == 0 || dra_semver_cmp(&t->vers[v - 1], &sv) != 0) {
                FAIL("attribute %s: row %u version rank %lld inconsistent", col->name, r,
                     (long long)v);
            }
            break;
        }
        case DRA_ATTR_INTS:
        case DRA_ATTR_BOOLS:
        case DRA_ATTR_STRINGS:
        case DRA_ATTR_VERSIONS: {
            const dra_table_list_t *l = &col->lists[v];
            if (l->len != at->count)
                FAIL("attribute %s: row %u list bounds", col->name, r);
            for (uint32_t j = 0; j < l->len; j++) {
                int64_t x = col->lvals[l->off + j];
                bool good = true;
                if (k == DRA_ATTR_INTS)
                    good = x == at->v.ints[j];
                else if (k == DRA_ATTR_BOOLS)
                    good = x == (at->v.bools[j] ? 1 : 0);
                else if (k == DRA_ATTR_STRINGS)
                    good = x > 0 && x <= t->nstrs && strcmp(t->strs[x], nz(at->v.strs[j])) == 0;
                else
                    good = x >= 0 && x <= t->nvers;
                if (!good)
                    FAIL("attribute %s: row %u list element %u", col->name, r, j);
            }
            break;
        }
        }
    }
    return DRA_OK;
}

static int check_cap(const dra_table_t *t, const dra_table_cap_t *col, uint64_t *used,
                     dra_diag_t *diag)
{
    memset(used, 0, dra_bitset_words((size_t)col->ndict + 1) * sizeof *used);
    int rc = check_codes(t, "capacity", col->name, col->code, col->width, col->ndict,
                         col->present, col->npresent, used, diag);
    if (rc != DRA_OK)
        return rc;
    if (col->dunits[0] != 0 || col->dq[0] != NULL || dra_bit_get(col->dinexact, 0) ||
        !bits_clean(col->dinexact, col->ndict + 1, (uint32_t)dra_bitset_words(col->ndict + 1) * 64))
        FAIL("capacity %s: dictionary entry 0 or inexact bits not neutral", col->name);
    for (uint32_t e = 1; e <= col->ndict; e++) {
        bool ix = dra_bit_get(col->dinexact, e);
        int64_t u;
        if (!col->dq[e])
            FAIL("capacity %s: dictionary entry %u has no value", col->name, e);
        bool ex = dra_quantity_to_fixed(col->dq[e], &u, col->scale);
        if (ex == ix || (ex && u != col->dunits[e]) || (ix && col->dunits[e] != 0))
            FAIL("capacity %s: dictionary entry %u fixed-point value or exactness", col->name, e);
        if (e > 1 && e <= col->nsorted) {
            bool px = !dra_bit_get(col->dinexact, e - 1);
            int c = px && ex ? (col->dunits[e - 1] > u) - (col->dunits[e - 1] < u)
                             : dra_quantity_cmp(col->dq[e - 1], col->dq[e]);
            if (c > 0 || (c == 0 && px && ex) || (c == 0 && !px && ex))
                FAIL("capacity %s: dictionary entries %u, %u out of order", col->name, e - 1, e);
        }
    }
    uint32_t ninexact = 0;
    for (uint32_t r = 0; r < t->nrows; r++) {
        uint32_t code = dra_table_cap_code(col, r);
        const dra_capacity_t *cap = dra_device_capacity(t->dev[r], col->qname);
        if ((cap != NULL) != (code != 0))
            FAIL("capacity %s: row %u presence disagrees with the model", col->name, r);
        if (!code)
            continue;
        if (dra_quantity_cmp(&cap->value, col->dq[code]) != 0)
            FAIL("capacity %s: row %u value differs from its dictionary entry", col->name, r);
        if (dra_bit_get(col->dinexact, code)) {
            ninexact++;
            const dra_quantity_t *a = &cap->value, *b = col->dq[code];
            if (a->lo != b->lo || a->hi != b->hi || a->exp != b->exp || a->neg != b->neg)
                FAIL("capacity %s: row %u inexact value written differently from its entry",
                     col->name, r);
        }
    }
    if (ninexact != col->ninexact)
        FAIL("capacity %s: inexact row count inconsistent", col->name);
    return DRA_OK;
}

int dra_table_check(const dra_table_t *t, dra_diag_t *diag)
{
    DRA_ASSERT_INTERNAL(t && t->model);
    const dra_model_t *m = t->model;
    if (t->nrows_padded % DRA_TABLE_PAD || t->nrows_padded < t->nrows ||
        t->nrows_padded - t->nrows >= DRA_TABLE_PAD)
        FAIL("padding: %u rows padded to %u", t->nrows, t->nrows_padded);
    if (t->nrows != m->ndevices)
        FAIL("rows: %u, model devices: %llu", t->nrows, (unsigned long long)m->ndevices);
    if (!aligned(t->node) || !aligned(t->pool) || !aligned(t->driver) || !aligned(t->name) ||
        !aligned(t->slice) || !aligned(t->dev) || !aligned(t->flags))
        FAIL("fixed column not 64-byte aligned");
    /* node ranges: contiguous, in order, covering [0, shared_begin) */
    uint32_t pos = 0;
    for (uint32_t i = 0; i < t->nnodes; i++) {
        const dra_table_node_t *n = &t->nodes[i];
        if (n->begin != pos || n->end < n->begin)
            FAIL("node %u (%s): range [%u, %u) does not continue at %u", i, n->name, n->begin,
                 n->end, pos);
        if (i < m->nnodes && strcmp(nz(n->name), nz(m->nodes[i]->name)) != 0)
            FAIL("node %u: name %s, model node %s", i, n->name, m->nodes[i]->name);
        if (dra_table_str(t, n->name_id) == NULL || strcmp(dra_table_str(t, n->name_id), n->name))
            FAIL("node %u: name id", i);
        uint32_t first = n->name_id < t->nnode_by_str ? t->node_by_str[n->name_id] : DRA_TABLE_NONE;
        if (first > i || t->nodes[first].name_id != n->name_id)
            FAIL("node %u (%s): the node-by-name index gives %u", i, n->name, first);
        for (uint32_t r = n->begin; r < n->end; r++) {
            const dra_slice_t *s = m->slices[t->slice[r]];
            if (t->node[r] != i || !is_local(s) || strcmp(s->node_name, n->name) != 0)
                FAIL("row %u: in the range of node %s but not on it", r, n->name);
        }
        pos = n->end;
    }
    if (pos != t->shared_begin || t->shared_begin > t->nrows)
        FAIL("shared range starts at %u, node ranges end at %u", t->shared_begin, pos);
    for (uint32_t r = 0; r < t->nrows_padded; r++) {
        if (r >= t->nrows) {
            if (t->node[r] != DRA_TABLE_NONE || t->pool[r] != DRA_TABLE_NONE ||
                t->driver[r] || t->name[r] || t->slice[r] || t->dev[r] || t->flags[r] != DRA_ROW_PAD)
                FAIL("padding row %u is not neutral", r);
            continue;
        }
        const dra_device_t *d = t->dev[r];
        if (t->slice[r] >= m->nslices || !d || d->slice != m->slices[t->slice[r]])
            FAIL("row %u: slice index / device pointer", r);
        const dra_slice_t *s = d->slice;
        if (t->pool[r] >= t->npools || strcmp(t->pools[t->pool[r]].driver, nz(s->driver)) ||
            strcmp(t->pools[t->pool[r]].name, nz(s->pool_name)))
            FAIL("row %u: pool index", r);
        if (!dra_table_str(t, t->driver[r]) || strcmp(dra_table_str(t, t->driver[r]), nz(s->driver)) ||
            !dra_table_str(t, t->name[r]) || strcmp(dra_table_str(t, t->name[r]), nz(d->name)))
            FAIL("row %u: driver or name id", r);
        bool shared = r >= t->shared_begin;
        if (shared != (t->node[r] == DRA_TABLE_NONE) || shared != !!(t->flags[r] & DRA_ROW_SHARED) ||
            shared == is_local(s))
            FAIL("row %u: shared range membership", r);
        if (t->flags[r] & DRA_ROW_PAD)
            FAIL("row %u: padding flag on a device", r);
        if (!!(t->flags[r] & DRA_ROW_MULTI_ALLOC) != d->allow_multiple_allocations ||
            !!(t->flags[r] & DRA_ROW_TAINTED) != (d->ntaints > 0) ||
            !!(t->flags[r] & DRA_ROW_CONSUMES) != (d->nconsumes > 0))
            FAIL("row %u: flags", r);
        /* search order inside a range: pool, slice name, device index */
        if (r > 0 && r != t->shared_begin && t->node[r] == t->node[r - 1]) {
            const dra_device_t *p = t->dev[r - 1];
            int c = t->pool[r - 1] < t->pool[r] ? -1 : t->pool[r - 1] > t->pool[r];
            if (!c)
                c = strcmp(nz(p->slice->name), nz(s->name));
            if (!c && p->slice == s)
                c = p->index + 1 == d->index ? -1 : 1;
            if (!c)
                c = t->slice[r - 1] < t->slice[r] ? -1 : 1;
            if (c > 0)
                FAIL("rows %u, %u: out of search order", r - 1, r);
            if (p->slice == s && p->index + 1 != d->index)
                FAIL("rows %u, %u: devices of one slice out of order", r - 1, r);
        }
    }
    for (uint32_t i = 1; i < t->npools; i++) {
        int c = strcmp(t->pools[i - 1].driver, t->pools[i].driver);
        if (!c)
            c = strcmp(t->pools[i - 1].name, t->pools[i].name);
        if (c >= 0)
            FAIL("pools %u, %u: not sorted by (driver, name)", i - 1, i);
    }
    for (uint32_t i = 1; i < t->nvers; i++)
        if (dra_semver_cmp(&t->vers[i - 1], &t->vers[i]) >= 0)
            FAIL("version ranks %u, %u: not strictly increasing", i, i + 1);
    for (uint32_t id = 1; id <= t->nstrs; id++)
        if (dra_table_str_find(t, t->strs[id], t->str_lens[id]) != id)
            FAIL("string dictionary: id %u not found by its text", id);
    uint32_t maxdict = 0;
    for (uint32_t c = 0; c < t->nattrs; c++)
        maxdict = t->attrs[c].ndict > maxdict ? t->attrs[c].ndict : maxdict;
    for (uint32_t c = 0; c < t->ncaps; c++)
        maxdict = t->caps[c].ndict > maxdict ? t->caps[c].ndict : maxdict;
    uint64_t *used = calloc(dra_bitset_words((size_t)maxdict + 1), sizeof *used);
    if (!used)
        return dra_diag_set(diag, DRA_ENOMEM, NULL, 0, 0, "device table check: out of memory");
    int rc = DRA_OK;
    for (uint32_t c = 0; rc == DRA_OK && c < t->nattrs; c++) {
        if (dra_table_attr(t, t->attrs[c].qname) != &t->attrs[c])
            rc = dra_diag_set(diag, DRA_EVALIDATE, NULL, 0, 0, "attribute %s: lookup",
                              t->attrs[c].name);
        else
            rc = check_attr(t, &t->attrs[c], used, diag);
    }
    for (uint32_t c = 0; rc == DRA_OK && c < t->ncaps; c++) {
        if (dra_table_cap(t, t->caps[c].qname) != &t->caps[c])
            rc = dra_diag_set(diag, DRA_EVALIDATE, NULL, 0, 0, "capacity %s: lookup",
                              t->caps[c].name);
        else
            rc = check_cap(t, &t->caps[c], used, diag);
    }
    free(used);
    return rc;
}
