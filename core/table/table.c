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

static int build_rows(builder_t *b)
{
    const dra_model_t *m = b->m;
    dra_table_t *t = b->t;
    int rc;
    /* nodes */
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
    uint32_t *node_of = dra_arena_alloc(&b->tmp, (size_t)nids * sizeof(uint32_t), 8);
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

    /* pools */
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

    /* slice order and rows */
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
    uint32_t r = 0, g = 0;
    for (uint32_t k = 0; k < m->nslices; k++) {
        const dra_slice_t *s = m->slices[sk[k].idx];
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
            t->flags[r] = f;
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
    for (; r < np; r++) {
        t->node[r] = DRA_TABLE_NONE;
        t->pool[r] = DRA_TABLE_NONE;
        t->flags[r] = DRA_ROW_PAD;
    }
    return DRA_OK;
}

/* ---- step 4: attribute and capacity columns ------------------------------------------------- */

static bool is_version_kind(uint8_t k)
{
    return k == DRA_ATTR_VERSION || k == DRA_ATTR_VERSIONS;
}

static int build_versions(builder_t *b, uint32_t **rank_of_sid, uint8_t **bad_sid)
{
    dra_table_t *t = b->t;
    int rc;
    /* intern every version text first (ids must be stable before sizing the maps) */
    for (uint32_t r = 0; r < t->nrows; r++) {
        const dra_device_t *d = t->dev[r];
        for (uint32_t i = 0; i < d->nattrs; i++) {
            const dra_attr_t *at = &d->attrs[i];
            uint32_t sid;
            if (at->kind == DRA_ATTR_VERSION) {
                if ((rc = dict_put(b, at->v.s, &sid)) != DRA_OK)
                    return rc;
            } else if (at->kind == DRA_ATTR_VERSIONS) {
                for (uint32_t j = 0; j < at->count; j++)
                    if ((rc = dict_put(b, at->v.strs[j], &sid)) != DRA_OK)
                        return rc;
            }
        }
    }
    uint32_t nids = b->dict.count + 1;
    uint8_t *seen = dra_arena_calloc(&b->tmp, nids, 1, 8);
    uint32_t *rank = dra_arena_calloc(&b->tmp, nids, sizeof(uint32_t), 8);
    ver_ent_t *ents = NULL;
    uint32_t nents = 0, cap = 0;
    if (!seen || !rank)
        return DRA_ENOMEM;
    for (uint32_t r = 0; r < t->nrows; r++) {
        const dra_device_t *d = t->dev[r];
        for (uint32_t i = 0; i < d->nattrs; i++) {
            const dra_attr_t *at = &d->attrs[i];
            if (!is_version_kind(at->kind))
                continue;
            uint32_t n = at->kind == DRA_ATTR_VERSION ? 1 : at->count;
            for (uint32_t j = 0; j < n; j++) {
                const char *s = nz(at->kind == DRA_ATTR_VERSION ? at->v.s : at->v.strs[j]);
                uint32_t sid = dict_find(b, s);
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

static int build_attrs(builder_t *b)
{
    const dra_model_t *m = b->m;
    dra_table_t *t = b->t;
    int rc;
    uint32_t *rank_of_sid;
    uint8_t *ver_state;
    if ((rc = build_versions(b, &rank_of_sid, &ver_state)) != DRA_OK)
        return rc;
    /* string values must be interned before anything indexes by string id */
    for (uint32_t r = 0; r < t->nrows; r++) {
        const dra_device_t *d = t->dev[r];
        for (uint32_t i = 0; i < d->nattrs; i++) {
            const dra_attr_t *at = &d->attrs[i];
            uint32_t sid;
            if (at->kind == DRA_ATTR_STRING) {
                if ((rc = dict_put(b, at->v.s, &sid)) != DRA_OK)
                    return rc;
            } else if (at->kind == DRA_ATTR_STRINGS) {
                for (uint32_t j = 0; j < at->count; j++)
                    if ((rc = dict_put(b, at->v.strs[j], &sid)) != DRA_OK)
                        return rc;
            }
        }
    }
    t->nqname_map = m->intern.count + 1;
    t->attr_by_qname = dra_arena_calloc(b->a, t->nqname_map, sizeof(uint32_t), 8);
    t->cap_by_qname = dra_arena_calloc(b->a, t->nqname_map, sizeof(uint32_t), 8);
    if (!t->attr_by_qname || !t->cap_by_qname)
        return DRA_ENOMEM;
    /* pass 1: columns in order of first appearance, list sizes */
    uint32_t *nlists = NULL, *nlvals = NULL;
    for (int pass = 0; pass < 2; pass++) {
        for (uint32_t r = 0; r < t->nrows; r++) {
            const dra_device_t *d = t->dev[r];
            for (uint32_t i = 0; i < d->nattrs; i++) {
                uint32_t q = d->attrs[i].qname;
                if (q == 0 || q >= t->nqname_map)
                    continue;
                if (pass == 0) {
                    if (!t->attr_by_qname[q])
                        t->attr_by_qname[q] = ++t->nattrs;
                } else if (dra_attr_kind_is_list((dra_attr_kind_t)d->attrs[i].kind)) {
                    nlists[t->attr_by_qname[q] - 1]++;
                    nlvals[t->attr_by_qname[q] - 1] += d->attrs[i].count;
                }
            }
            for (uint32_t i = 0; pass == 0 && i < d->ncaps; i++) {
                uint32_t q = d->caps[i].qname;
                if (q && q < t->nqname_map && !t->cap_by_qname[q])
                    t->cap_by_qname[q] = ++t->ncaps;
            }
        }
        if (pass == 0) {
            nlists = dra_arena_calloc(&b->tmp, t->nattrs + 1, sizeof(uint32_t), 8);
            nlvals = dra_arena_calloc(&b->tmp, t->nattrs + 1, sizeof(uint32_t), 8);
            if (!nlists || !nlvals)
                return DRA_ENOMEM;
        }
    }
    t->attrs = dra_arena_calloc(b->a, t->nattrs + 1, sizeof *t->attrs, 8);
    t->caps = dra_arena_calloc(b->a, t->ncaps + 1, sizeof *t->caps, 8);
    if (!t->attrs || !t->caps)
        return DRA_ENOMEM;
    for (uint32_t q = 1; q < t->nqname_map; q++) {
        if (t->attr_by_qname[q]) {
            dra_table_attr_t *c = &t->attrs[t->attr_by_qname[q] - 1];
            c->qname = q;
            c->name = dra_intern_str(&m->intern, q);
        }
        if (t->cap_by_qname[q]) {
            dra_table_cap_t *c = &t->caps[t->cap_by_qname[q] - 1];
            c->qname = q;
            c->name = dra_intern_str(&m->intern, q);
        }
    }
    /* which columns hold ints (to skip the i64 array otherwise) */
    for (uint32_t r = 0; r < t->nrows; r++) {
        const dra_device_t *d = t->dev[r];
        for (uint32_t i = 0; i < d->nattrs; i++) {
            uint32_t q = d->attrs[i].qname;
            if (q && q < t->nqname_map && d->attrs[i].kind <= DRA_ATTR_VERSIONS)
                t->attrs[t->attr_by_qname[q] - 1].kinds |= 1u << d->attrs[i].kind;
        }
    }
    size_t np = t->nrows_padded;
    for (uint32_t c = 0; c < t->nattrs; c++) {
        dra_table_attr_t *col = &t->attrs[c];
        col->kind = col_alloc(b, np, 1);
        col->id = col_alloc(b, np, sizeof(uint32_t));
        col->present = bits_alloc(b);
        if (col->kinds & (1u << DRA_ATTR_INT))
            if (!(col->i64 = col_alloc(b, np, sizeof(int64_t))))
                return DRA_ENOMEM;
        if (nlists[c]) {
            col->lists = col_alloc(b, nlists[c] + 1, sizeof *col->lists);
            col->lvals = col_alloc(b, nlvals[c] + 1, sizeof *col->lvals);
            if (!col->lists || !col->lvals)
                return DRA_ENOMEM;
            col->nlists = 1; /* index 0 unused */
        }
        if (!col->kind || !col->id || !col->present)
            return DRA_ENOMEM;
    }
    /* pass 2: values */
    for (uint32_t r = 0; r < t->nrows; r++) {
        const dra_device_t *d = t->dev[r];
        for (uint32_t i = 0; i < d->nattrs; i++) {
            const dra_attr_t *at = &d->attrs[i];
            if (at->qname == 0 || at->qname >= t->nqname_map || at->kind > DRA_ATTR_VERSIONS)
                continue;
            dra_table_attr_t *col = &t->attrs[t->attr_by_qname[at->qname] - 1];
            if (dra_bit_get(col->present, r))
                continue; /* duplicate name on one device: the first one wins */
            dra_bit_set(col->present, r);
            col->npresent++;
            col->kind[r] = at->kind;
            switch ((dra_attr_kind_t)at->kind) {
            case DRA_ATTR_NONE:
                break;
            case DRA_ATTR_INT:
                col->i64[r] = at->v.i;
                break;
            case DRA_ATTR_BOOL:
                col->id[r] = at->v.b ? 1u : 0u;
                break;
            case DRA_ATTR_STRING:
                col->id[r] = dict_find(b, at->v.s);
                break;
            case DRA_ATTR_VERSION: {
                uint32_t sid = dict_find(b, at->v.s);
                col->id[r] = rank_of_sid[sid];
                if (ver_state[sid] == 2)
                    t->flags[r] |= DRA_ROW_BAD_VERSION;
                break;
            }
            case DRA_ATTR_INTS:
            case DRA_ATTR_BOOLS:
            case DRA_ATTR_STRINGS:
            case DRA_ATTR_VERSIONS: {
                dra_table_list_t *l = &col->lists[col->nlists];
                l->off = col->nlvals;
                l->len = at->count;
                for (uint32_t j = 0; j < at->count; j++) {
                    int64_t v = 0;
                    if (at->kind == DRA_ATTR_INTS) {
                        v = at->v.ints[j];
                    } else if (at->kind == DRA_ATTR_BOOLS) {
                        v = at->v.bools[j] ? 1 : 0;
                    } else {
                        uint32_t sid = dict_find(b, at->v.strs[j]);
                        if (at->kind == DRA_ATTR_STRINGS) {
                            v = sid;
                        } else {
                            v = rank_of_sid[sid];
                            if (ver_state[sid] == 2)
                                t->flags[r] |= DRA_ROW_BAD_VERSION;
                        }
                    }
                    col->lvals[col->nlvals++] = v;
                }
                col->id[r] = col->nlists++;
                break;
            }
            }
        }
    }
    for (uint32_t r = 0; r < t->nrows; r++)
        if (t->flags[r] & DRA_ROW_BAD_VERSION)
            t->nbad_version_rows++;
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
    for (uint32_t c = 0; c < t->ncaps; c++) {
        dra_table_cap_t *col = &t->caps[c];
        col->units = col_alloc(b, np, sizeof(int64_t));
        col->present = bits_alloc(b);
        col->inexact = bits_alloc(b);
        if (!col->units || !col->present || !col->inexact)
            return DRA_ENOMEM;
    }
    /* scale choice: count exact values per candidate scale */
    uint32_t *exact = dra_arena_calloc(&b->tmp, (size_t)(t->ncaps + 1) * 4, sizeof(uint32_t), 8);
    qmemo_t *memo = dra_arena_calloc(&b->tmp, (size_t)(t->ncaps + 1) * QMEMO_WAYS, sizeof *memo, 8);
    uint8_t *scale_idx = dra_arena_calloc(&b->tmp, t->ncaps + 1, 1, 8);
    if (!exact || !memo || !scale_idx)
        return DRA_ENOMEM;
    for (uint32_t r = 0; r < t->nrows; r++) {
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
        memset(col->present, 0, dra_bitset_words(np) * sizeof(uint64_t));
    }
    for (uint32_t r = 0; r < t->nrows; r++) {
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
            uint32_t si = scale_idx[c];
            const qmemo_t *qm = qmemo_get(&memo[c * QMEMO_WAYS], &d->caps[i].value, scales);
            if (qm->exact & (1u << si)) {
                col->units[r] = qm->units[si];
            } else {
                dra_bit_set(col->inexact, r);
                col->ninexact++;
            }
        }
    }
    for (uint32_t c = 0; c < t->ncaps; c++) {
        dra_table_cap_t *col = &t->caps[c];
        col->inexact_rows = dra_arena_calloc(b->a, col->ninexact + 1, sizeof(uint32_t), 8);
        if (!col->inexact_rows)
            return DRA_ENOMEM;
        uint32_t k = 0;
        for (size_t r = dra_bitset_next(col->inexact, t->nrows, 0); r < t->nrows;
             r = dra_bitset_next(col->inexact, t->nrows, r + 1))
            col->inexact_rows[k++] = (uint32_t)r;
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
    }
    dra_intern_fini(&b.dict);
    dra_arena_fini(&b.tmp);
    if (rc != DRA_OK) {
        if (diag && diag->code == DRA_OK)
            dra_diag_set(diag, rc, NULL, 0, 0, "device table: %s", dra_strerror(rc));
        return rc;
    }
    *out = b.t;
    return DRA_OK;
}

/* ---- lookups -------------------------------------------------------------------------------- */

const dra_table_attr_t *dra_table_attr(const dra_table_t *t, uint32_t qname)
{
    if (!qname || qname >= t->nqname_map || !t->attr_by_qname[qname])
        return NULL;
    return &t->attrs[t->attr_by_qname[qname] - 1];
}

const dra_table_cap_t *dra_table_cap(const dra_table_t *t, uint32_t qname)
{
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
    return id && id <= t->nstrs ? t->strs[id] : NULL;
}

uint32_t dra_table_node_index(const dra_table_t *t, const char *name)
{
    if (!name)
        return DRA_TABLE_NONE;
    uint32_t id = dra_table_str_find(t, name, strlen(name));
    if (!id)
        return DRA_TABLE_NONE;
    for (uint32_t i = 0; i < t->nnodes; i++)
        if (t->nodes[i].name_id == id)
            return i;
    return DRA_TABLE_NONE;
}

void dra_table_version_locate(const dra_table_t *t, const dra_semver_t *v, uint32_t *rank,
                              bool *exact)
{
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
            uint8_t k = col->kind[r];
            h_u64(&st, k);
            switch ((dra_attr_kind_t)k) {
            case DRA_ATTR_NONE: break;
            case DRA_ATTR_INT: h_u64(&st, (uint64_t)col->i64[r]); break;
            case DRA_ATTR_BOOL:
            case DRA_ATTR_VERSION: h_u64(&st, col->id[r]); break;
            case DRA_ATTR_STRING: h_str(&st, dra_table_str(t, col->id[r])); break;
            case DRA_ATTR_INTS:
            case DRA_ATTR_BOOLS:
            case DRA_ATTR_STRINGS:
            case DRA_ATTR_VERSIONS: {
                const dra_table_list_t *l = &col->lists[col->id[r]];
                h_u64(&st, l->len);
                for (uint32_t j = 0; j < l->len; j++) {
                    int64_t v = col->lvals[l->off + j];
                    if (k == DRA_ATTR_STRINGS)
                        h_str(&st, dra_table_str(t, (uint32_t)v));
                    else
                        h_u64(&st, (uint64_t)v);
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
            bool pr = dra_bit_get(col->present, r), ix = dra_bit_get(col->inexact, r);
            h_u64(&st, (uint64_t)pr | (uint64_t)ix << 1);
            if (pr && !ix) {
                h_u64(&st, (uint64_t)col->units[r]);
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

static int check_attr(const dra_table_t *t, const dra_table_attr_t *col, dra_diag_t *diag)
{
    if (!aligned(col->kind) || !aligned(col->id) || !aligned(col->present) ||
        (col->i64 && !aligned(col->i64)))
        FAIL("attribute %s: column not 64-byte aligned", col->name);
    if (!bits_clean(col->present, t->nrows, t->nrows_padded))
        FAIL("attribute %s: present bits beyond the rows", col->name);
    uint32_t npresent = 0, kinds = 0;
    for (uint32_t r = 0; r < t->nrows_padded; r++) {
        uint8_t k = col->kind[r];
        if (r >= t->nrows) {
            if (k != DRA_ATTR_NONE || col->id[r] != 0 || (col->i64 && col->i64[r] != 0))
                FAIL("attribute %s: padding row %u is not neutral", col->name, r);
            continue;
        }
        if ((k != DRA_ATTR_NONE) != dra_bit_get(col->present, r))
            FAIL("attribute %s: row %u kind/present mismatch", col->name, r);
        const dra_attr_t *at = dra_device_attr(t->dev[r], col->qname);
        if ((at != NULL) != (k != DRA_ATTR_NONE) || (at && at->kind != k))
            FAIL("attribute %s: row %u disagrees with the model", col->name, r);
        if (k == DRA_ATTR_NONE) {
            if (col->id[r] != 0 || (col->i64 && col->i64[r] != 0))
                FAIL("attribute %s: absent row %u is not neutral", col->name, r);
            continue;
        }
        npresent++;
        kinds |= 1u << k;
        switch ((dra_attr_kind_t)k) {
        case DRA_ATTR_NONE: break;
        case DRA_ATTR_INT:
            if (!col->i64 || col->i64[r] != at->v.i || col->id[r] != 0)
                FAIL("attribute %s: row %u int value", col->name, r);
            break;
        case DRA_ATTR_BOOL:
            if (col->id[r] != (at->v.b ? 1u : 0u))
                FAIL("attribute %s: row %u bool value", col->name, r);
            break;
        case DRA_ATTR_STRING: {
            const char *s = dra_table_str(t, col->id[r]);
            if (!s || strcmp(s, nz(at->v.s)) != 0)
                FAIL("attribute %s: row %u string id", col->name, r);
            break;
        }
        case DRA_ATTR_VERSION: {
            dra_semver_t v;
            const char *s = nz(at->v.s);
            bool ok = dra_semver_parse(s, strlen(s), false, &v, NULL) == DRA_OK;
            if (!ok) {
                if (col->id[r] != 0 || !(t->flags[r] & DRA_ROW_BAD_VERSION))
                    FAIL("attribute %s: row %u bad version not flagged", col->name, r);
            } else if (col->id[r] == 0 || col->id[r] > t->nvers ||
                       dra_semver_cmp(&t->vers[col->id[r] - 1], &v) != 0) {
                FAIL("attribute %s: row %u version rank %u inconsistent", col->name, r,
                     col->id[r]);
            }
            break;
        }
        case DRA_ATTR_INTS:
        case DRA_ATTR_BOOLS:
        case DRA_ATTR_STRINGS:
        case DRA_ATTR_VERSIONS: {
            if (col->id[r] == 0 || col->id[r] >= col->nlists)
                FAIL("attribute %s: row %u list index", col->name, r);
            const dra_table_list_t *l = &col->lists[col->id[r]];
            if (l->len != at->count || (uint64_t)l->off + l->len > col->nlvals)
                FAIL("attribute %s: row %u list bounds", col->name, r);
            for (uint32_t j = 0; j < l->len; j++) {
                int64_t v = col->lvals[l->off + j];
                bool good = true;
                if (k == DRA_ATTR_INTS)
                    good = v == at->v.ints[j];
                else if (k == DRA_ATTR_BOOLS)
                    good = v == (at->v.bools[j] ? 1 : 0);
                else if (k == DRA_ATTR_STRINGS)
                    good = v > 0 && v <= t->nstrs &&
                           strcmp(t->strs[v], nz(at->v.strs[j])) == 0;
                else
                    good = v >= 0 && v <= t->nvers;
                if (!good)
                    FAIL("attribute %s: row %u list element %u", col->name, r, j);
            }
            break;
        }
        }
    }
    if (npresent != col->npresent || kinds != col->kinds)
        FAIL("attribute %s: counts or kind mask inconsistent", col->name);
    return DRA_OK;
}

static int check_cap(const dra_table_t *t, const dra_table_cap_t *col, dra_diag_t *diag)
{
    if (!aligned(col->units) || !aligned(col->present) || !aligned(col->inexact))
        FAIL("capacity %s: column not 64-byte aligned", col->name);
    if (!bits_clean(col->present, t->nrows, t->nrows_padded) ||
        !bits_clean(col->inexact, t->nrows, t->nrows_padded))
        FAIL("capacity %s: bits beyond the rows", col->name);
    uint32_t npresent = 0, ninexact = 0;
    for (uint32_t r = 0; r < t->nrows_padded; r++) {
        if (r >= t->nrows) {
            if (col->units[r] != 0)
                FAIL("capacity %s: padding row %u is not neutral", col->name, r);
            continue;
        }
        const dra_capacity_t *cap = dra_device_capacity(t->dev[r], col->qname);
        bool pr = dra_bit_get(col->present, r), ix = dra_bit_get(col->inexact, r);
        if ((cap != NULL) != pr || (ix && !pr))
            FAIL("capacity %s: row %u presence disagrees with the model", col->name, r);
        if (!pr) {
            if (col->units[r] != 0)
                FAIL("capacity %s: absent row %u is not neutral", col->name, r);
            continue;
        }
        npresent++;
        int64_t u;
        bool ex = dra_quantity_to_fixed(&cap->value, &u, col->scale);
        if (ex == ix || (ex && u != col->units[r]))
            FAIL("capacity %s: row %u fixed-point value or exactness flag", col->name, r);
        if (ix) {
            if (ninexact >= col->ninexact || col->inexact_rows[ninexact] != r)
                FAIL("capacity %s: inexact row list", col->name);
            ninexact++;
        }
    }
    if (npresent != col->npresent || ninexact != col->ninexact)
        FAIL("capacity %s: counts inconsistent", col->name);
    return DRA_OK;
}

int dra_table_check(const dra_table_t *t, dra_diag_t *diag)
{
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
    for (uint32_t c = 0; c < t->nattrs; c++) {
        if (dra_table_attr(t, t->attrs[c].qname) != &t->attrs[c])
            FAIL("attribute %s: lookup", t->attrs[c].name);
        int rc = check_attr(t, &t->attrs[c], diag);
        if (rc != DRA_OK)
            return rc;
    }
    for (uint32_t c = 0; c < t->ncaps; c++) {
        if (dra_table_cap(t, t->caps[c].qname) != &t->caps[c])
            FAIL("capacity %s: lookup", t->caps[c].name);
        int rc = check_cap(t, &t->caps[c], diag);
        if (rc != DRA_OK)
            return rc;
    }
    return DRA_OK;
}
