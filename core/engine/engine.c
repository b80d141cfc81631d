/*
 * engine.c - the engine's set-up and teardown (engine.h explains the semantics): the model and
 * table nodes, rows by device ID, hazards, counters, node resources, availability, the All-set
 * membership and the direct answers' per-node facts; introspection.
 *
 * Ownership: dra_engine_new borrows the model, table, state, CEL cache and allocator (engine.h);
 * everything it allocates is freed by dra_engine_free, also on a failed set-up. Errors: DRA_EINVAL
 * with diag naming the node for a bad allocatable, DRA_ENOMEM, the first error of a part's
 * set-up. Cost: O(rows * signatures) plus each part's set-up; not timed.
 */
#include "engine/engine_impl.h"

#include <stdlib.h>
#include <string.h>

#include "base/quantity.h"

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

struct dra__engine_img;
static void img_free(struct dra__engine_img *im);

/* ---- node resources ----------------------------------------------------------------------- */

/* Quantity text -> units of 10^scale, rounded up (kube's MilliValue / Value); -1 when absent. */
static int res_parse(const char *s, int32_t scale, int64_t *out)
{
    *out = -1;
    return s ? dra_engine_quantity_units(s, scale, out) : DRA_OK;
}

static int res_setup(dra_engine_t *e, dra_diag_t *diag)
{
    size_t n = (size_t)e->nnodes + 1;
    e->cpu_cap = dra_mem_calloc(n, sizeof *e->cpu_cap);
    e->mem_cap = dra_mem_calloc(n, sizeof *e->mem_cap);
    e->cpu_used = dra_mem_calloc(n, sizeof *e->cpu_used);
    e->mem_used = dra_mem_calloc(n, sizeof *e->mem_used);
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
                             "non-negative quantity", dra__nz(nd->name), bad,
                             bad[0] == 'c' ? nd->alloc_cpu : nd->alloc_memory);
            return DRA_EINVAL;
        }
    }
    return DRA_OK;
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

/* ---- set-up and teardown ------------------------------------------------------------------ */

/* Whether devices a and b have the same capacities in order: the same values (every field of
 * the quantity) and the same policy (by address). O(capacities). */
static bool same_caps(const dra_device_t *a, const dra_device_t *b)
{
    if (a->ncaps != b->ncaps)
        return false;
    for (uint32_t i = 0; i < a->ncaps; i++) {
        const dra_capacity_t *x = &a->caps[i], *y = &b->caps[i];
        const dra_quantity_t *p = &x->value, *q = &y->value;
        if (x->policy != y->policy || p->lo != q->lo || p->hi != q->hi || p->exp != q->exp ||
            p->dscale != q->dscale || p->neg != q->neg || p->format != q->format ||
            p->flags != q->flags)
            return false;
    }
    return true;
}

int dra_engine_new(const dra_model_t *m, const dra_table_t *t, const dra_alloc_features_t *f,
                   dra_alloc_state_t *state, dra_cel_cache_t *cel, dra_anyalloc_t *alloc,
                   const dra_engine_opts_t *opts, dra_engine_t **out, dra_diag_t *diag)
{
    if (!m || !t || !f || !state || !cel || !alloc || !out)
        return DRA_EINVAL;
    *out = NULL;
    if (m->nnodes > DRA__RS_NODES_MAX) /* the row records' node field (dra__rowst_t) */
        return dra_diag_set(diag, DRA_EUNSUPPORTED, NULL, 0, 0,
                            "engine set-up: %u nodes, more than the engine's %u", m->nnodes,
                            DRA__RS_NODES_MAX);
    dra_engine_t *e = dra_mem_calloc(1, sizeof *e);
    if (!e)
        return DRA_ENOMEM;
    e->m = m;
    e->t = t;
    e->feat = *f;
    dra__beh_init(&e->beh, f);
    e->state = state;
    e->state_own = dra_alloc_state_model(state) == m;
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
    e->tnode = dra_mem_calloc((size_t)e->nnodes + 1, sizeof *e->tnode);
    e->mnode = dra_mem_malloc(((size_t)t->nnodes + 1) * sizeof *e->mnode);
    e->hz = dra_mem_calloc((size_t)e->nnodes + 1, 1);
    e->ahz = dra_mem_calloc((size_t)e->nnodes + 1, 1);
    e->rs = dra_mem_calloc((size_t)t->nrows + 1, sizeof *e->rs);
    e->rowcfit = dra_mem_calloc((size_t)t->nrows + 1, sizeof *e->rowcfit);
    e->score = dra_mem_calloc((size_t)e->nnodes + 1, sizeof *e->score);
    e->tried = dra_mem_calloc((size_t)e->nnodes + 1, sizeof *e->tried);
    if (!e->tnode || !e->mnode || !e->hz || !e->ahz || !e->rs || !e->rowcfit || !e->score ||
        !e->tried)
        goto fail;
    for (uint32_t i = 0; i <= t->nnodes; i++)
        e->mnode[i] = NONE;
    uint32_t maxrange = 0;
    for (uint32_t i = 0; i < e->nnodes; i++) {
        uint32_t tn = dra_table_node_index(t, dra__nz(m->nodes[i]->name));
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
    e->mnode_id = true;
    for (uint32_t i = 0; i < t->nnodes && e->mnode_id; i++)
        e->mnode_id = e->mnode[i] == i;
    /* the row records' model nodes, fixed from here (their counter bits: counters.c) */
    for (uint32_t r = 0; r < t->nrows; r++)
        e->rs[r].nodec = dra__rs_nodec(dra__row_node(e, r), false);
    if ((rc = dra__rows_index_build(e)))
        goto fail;
    /* a state holding no allocation (the runner's every repetition) leaves rs[].use and cx[] zero:
     * the per-row lookups by device ID are skipped (exactly what they would give) */
    bool st_empty = dra_alloc_state_count(state) == 0;
    for (uint32_t r = 0; !st_empty && r < t->nrows; r++) {
        e->rs[r].use = dra_alloc_state_exclusive(state, dra__row_driver(e, r),
                                                 dra__row_pool(e, r), dra__row_device(e, r));
        if (dra__row_multi(e, r)) /* as commit counts them (dra_engine_check) */
            e->rs[r].use += dra_alloc_state_shares(state, dra__row_driver(e, r),
                                                   dra__row_pool(e, r), dra__row_device(e, r));
    }
    if ((rc = dra__hazards(e)) || (rc = dra__counters_setup(e)))
        goto fail;
    if ((rc = res_setup(e, diag))) {
        if (rc == DRA_EINVAL) {
            dra_engine_free(e);
            return rc;
        }
        goto fail;
    }
    e->avb = dra_mem_calloc(dra_bitset_words(t->nrows_padded) + 1, sizeof *e->avb);
    e->amem = dra_mem_calloc(dra_bitset_words(t->nrows_padded) + 1, sizeof *e->amem);
    e->bk = dra_mem_calloc(dra_bitset_words(t->nrows_padded) + 1, sizeof *e->bk);
    rc = DRA_ENOMEM;
    if (!e->avb || !e->amem || !e->bk)
        goto fail;
    /* capacity consumed by the shares of multi-allocatable devices (capacity signatures) */
    size_t ncx = 0;
    for (uint32_t r = 0; e->beh.cc && r < t->nrows; r++)
        if (t->dev[r] && t->dev[r]->ncaps && dra__row_multi(e, r))
            ncx += t->dev[r]->ncaps;
    if (ncx) {
        e->cx_off = dra_mem_malloc(((size_t)t->nrows + 1) * sizeof *e->cx_off);
        e->cx = dra_mem_calloc(ncx, sizeof *e->cx);
        if (!e->cx_off || !e->cx)
            goto fail;
        ncx = 0;
        for (uint32_t r = 0; r < t->nrows; r++) {
            const dra_device_t *d = t->dev[r];
            e->cx_off[r] = NONE;
            if (!d || !d->ncaps || !dra__row_multi(e, r))
                continue;
            e->cx_off[r] = (uint32_t)ncx;
            for (uint32_t c = 0; !st_empty && c < d->ncaps; c++)
                if (!dra__alloc_state_cap_aq(state, dra__row_driver(e, r), dra__row_pool(e, r),
                                             dra__row_device(e, r), d->caps[c].name,
                                             &e->cx[ncx + c]))
                    e->cx[ncx + c] = 0;
            ncx += d->ncaps;
        }
        if ((rc = dra__cap_profiles(e)))
            goto fail;
        rc = DRA_ENOMEM;
    }
    dra_exact_request_t nocap;
    memset(&nocap, 0, sizeof nocap);
    const dra_device_t *fit_dev = NULL; /* the last device whose capacities were checked */
    bool fit_ok = false;
    for (uint32_t r = 0; r < t->nrows; r++) {
        dra_bit_assign(e->avb, r, dra__row_avail(e, r));
        /* the set also requires: no binding conditions unless the feature is on; with
         * DRAConsumableCapacity, the static capacity check of a request without capacity (the
         * snapshot's also subtracts capacity in use: devices with capacities are left out) */
        const dra_device_t *d = t->dev[r];
        bool cap_ok = true;
        if (d && e->beh.cc && d->ncaps > 0) {
            /* the check reads only the capacities' values and policies: a device with the
             * same ones as the last device checked (a node's devices of one kind) has its
             * answer */
            if (e->beh.bugs)
                cap_ok = false;
            else if (fit_dev && same_caps(fit_dev, d))
                cap_ok = fit_ok;
            else {
                cap_ok = dra__cap_fits(&nocap, d, NULL, NULL, false) == 1;
                fit_dev = d;
                fit_ok = cap_ok;
            }
        }
        dra_bit_assign(e->amem, r,
                       d && !(!e->beh.binding && (t->flags[r] & DRA_ROW_BINDING)) && cap_ok);
    }
    if ((rc = dra__direct_setup(e)))
        goto fail;
    rc = DRA_ENOMEM;
    /* buckets: scores up to the largest node range plus the shared range, one overflow bucket */
    uint64_t nb = (uint64_t)maxrange + (t->nrows - t->shared_begin) + 2;
    e->nbuckets = (uint32_t)(nb > 4096 ? 4096 : nb);
    e->W = (e->nnodes + 63) / 64 + 1;
    e->W2 = (e->W + 63) / 64 + 1;
    e->bbits = dra_mem_calloc((size_t)e->nbuckets * e->W, sizeof *e->bbits);
    e->bsum = dra_mem_calloc((size_t)e->nbuckets * e->W2, sizeof *e->bsum);
    e->bcount = dra_mem_calloc(e->nbuckets, sizeof *e->bcount);
    rc = DRA_ENOMEM;
    if (!e->bbits || !e->bsum || !e->bcount)
        goto fail;
    /* the buckets are filled on the first placement that reads them (dra__buckets_sync) */
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
    img_free(e->img);
    if (e->upd_init)
        dra_arena_fini(&e->upd_arena);
    for (uint32_t i = 0; i < e->nplans; i++) {
        dra_mem_free(e->plans[i].claims);
        dra_mem_free(e->plans[i].reqs);
        dra_mem_free(e->plans[i].alts);
        dra_mem_free(e->plans[i].errn);
    }
    dra_mem_free(e->plans);
    dra_mem_free(e->sigs);
    dra_mem_free(e->tnode);
    dra_mem_free(e->mnode);
    dra_mem_free(e->rowcfit);
    dra_mem_free(e->badattr);
    dra_mem_free(e->slice_row0);
    dra_mem_free(e->hz);
    dra_mem_free(e->ahz);
    dra_mem_free(e->rs);
    dra_mem_free(e->avb);
    dra_mem_free(e->nrange);
    dra_mem_free(e->nsel);
    dra_arena_fini(&e->vscratch);
    dra_mem_free(e->amem);
    dra_mem_free(e->bk);
    dra_mem_free(e->cx_off);
    dra_mem_free(e->cx);
    dra_mem_free(e->cxn);
    dra_mem_free(e->cxp);
    dra_mem_free(e->cxp_row);
    dra_mem_free(e->cxp_off);
    dra_mem_free(e->set_ctr0);
    dra_mem_free(e->set_nctr);
    dra_mem_free(e->set_def);
    dra_mem_free(e->set_rspan);
    dra_mem_free(e->crem);
    dra_mem_free(e->ctrs);
    dra_mem_free(e->rc_pat);
    dra_mem_free(e->rc_base);
    dra_mem_free(e->pat_off);
    dra_mem_free(e->pat_nz);
    dra_mem_free(e->pat_d);
    dra_mem_free(e->pat_a);
    dra_mem_free(e->amts);
    dra_mem_free(e->ctr_set);
    dra_mem_free(e->sr_off);
    dra_mem_free(e->sr_n);
    dra_mem_free(e->srows);
    dra_mem_free(e->set_shape);
    dra_mem_free(e->shp_ctr0);
    dra_mem_free(e->cl_off);
    dra_mem_free(e->cl);
    dra_mem_free(e->hslots);
    dra_mem_free(e->ord_row);
    dra_mem_free(e->score);
    dra_mem_free(e->tried);
    for (uint32_t i = 0; i < e->nst; i++)
        dra_mem_free(e->st[i].t);
    dra_mem_free(e->st);
    dra_mem_free(e->hidden);
    dra_mem_free(e->cpu_cap);
    dra_mem_free(e->mem_cap);
    dra_mem_free(e->cpu_used);
    dra_mem_free(e->mem_used);
    dra_mem_free(e->bbits);
    dra_mem_free(e->bsum);
    dra_mem_free(e->bcount);
    dra_arena_fini(&e->arena);
    dra_arena_fini(&e->scratch);
    dra_arena_fini(&e->spare);
    dra_mem_free(e);
}

/* ---- reuse between runs: an image of what placements change -------------------------------- */

typedef struct img_part {
    void *p;  /* the engine's array */
    size_t n; /* its bytes */
} img_part_t;

struct dra__engine_img {
    dra_engine_t e;       /* the engine's own fields at the save (scalars, pointers) */
    uint32_t nstate;      /* allocations in the state at the save */
    img_part_t *parts;
    uint32_t nparts, cap;
    unsigned char *buf;   /* the parts' bytes, one after the other */
    size_t bytes;
};

static int img_add(struct dra__engine_img *im, void *p, size_t n)
{
    if (!p || !n)
        return DRA_OK;
    if (im->nparts == im->cap) {
        uint32_t nc = im->cap ? im->cap * 2 : 64;
        img_part_t *np = dra_mem_realloc(im->parts, nc * sizeof *np);
        if (!np)
            return DRA_ENOMEM;
        im->parts = np;
        im->cap = nc;
    }
    im->parts[im->nparts++] = (img_part_t){p, n};
    im->bytes += n;
    return DRA_OK;
}

/* Every array a placement, commit or release writes (engine_impl.h says what each holds). */
static int img_parts(const dra_engine_t *e, struct dra__engine_img *im)
{
    const dra_table_t *t = e->t;
    size_t rows = (size_t)t->nrows + 1, nodes = (size_t)e->nnodes + 1;
    size_t words = (dra_bitset_words(t->nrows_padded) + 1) * sizeof(uint64_t);
    size_t nw = dra_bitset_words(t->nrows_padded) * sizeof(uint64_t);
    size_t ncx = 0; /* as engine.c and summary.c size cx and cxn */
    for (uint32_t r = 0; e->cx_off && r < t->nrows; r++)
        if (e->cx_off[r] != NONE)
            ncx = e->cx_off[r] + t->dev[r]->ncaps;
    int rc = DRA_OK;
#define ADD(p, n) \
    do { \
        if (rc == DRA_OK) \
            rc = img_add(im, (void *)(p), (n)); \
    } while (0)
    ADD(e->rs, rows * sizeof *e->rs); /* use and failing entries (its other fields too) */
    if (e->capsig_m)
        ADD(e->rowcfit, rows * sizeof *e->rowcfit);
    ADD(e->avb, words);
    ADD(e->bk, words);
    if (ncx) {
        ADD(e->cx, ncx * sizeof *e->cx);
        ADD(e->cxn, (ncx + 1) * sizeof *e->cxn);
    }
    if (e->crem)
        ADD(e->crem, ((size_t)e->nctrs + 1) * sizeof *e->crem);
    if (e->crem64) /* the remainders themselves while cl_v64 (engine arena) */
        ADD(e->crem64, ((size_t)e->nctrs + 1) * sizeof *e->crem64);
    if (e->set_m) /* the kept failing and charged rows of the sets kept by masks (arena) */
        ADD(e->set_m, ((size_t)e->nctrs + 1) * sizeof *e->set_m);
    /* not their memo (e->fmemo): a cache whose every entry holds whatever the state (counters.c) */
    if (e->ctrs) /* the cuts, in the counters' records */
        ADD(e->ctrs, ((size_t)e->nctrs + 1) * sizeof *e->ctrs);
    if (e->cg_row)
        ADD(e->cg_row, rows);
    if (e->cg_on) {
        size_t sets = (size_t)e->nsets + 1, ncnt = 0;
        for (uint32_t i = 0; i < e->nsets; i++)
            ncnt += (size_t)__builtin_popcountll(e->cg_u[i]);
        ADD(e->cg_kind, sets);
        ADD(e->cg_m, sets * sizeof *e->cg_m);
        ADD(e->cg_ng, sets * sizeof *e->cg_ng);
        ADD(e->cg_nn, sets * sizeof *e->cg_nn);
        ADD(e->cg_cnt, (ncnt + 1) * sizeof *e->cg_cnt);
    }
    ADD(e->score, nodes * sizeof *e->score);
    ADD(e->tried, nodes * sizeof *e->tried);
    ADD(e->cpu_used, nodes * sizeof *e->cpu_used);
    ADD(e->mem_used, nodes * sizeof *e->mem_used);
    ADD(e->bbits, (size_t)e->nbuckets * e->W * sizeof *e->bbits);
    ADD(e->bsum, (size_t)e->nbuckets * e->W2 * sizeof *e->bsum);
    ADD(e->bcount, (size_t)e->nbuckets * sizeof *e->bcount);
    ADD(e->sigs, (size_t)e->nsigs * sizeof *e->sigs); /* shcnt, maxset, ... */
    for (uint32_t i = 0; i < e->nsigs; i++) {
        const sig_t *s = &e->sigs[i];
        ADD(s->cnt, nodes * sizeof *s->cnt);
        ADD(s->herr, nodes);
        ADD(s->tree, 2 * (size_t)e->P * sizeof *s->tree);
        if (s->gcnt && s->gfirst)
            ADD(s->gcnt, ((size_t)s->gfirst[e->nnodes] + 1) * sizeof *s->gcnt);
        if (s->blk)
            ADD(s->blk, nodes * sizeof *s->blk);
        if (s->cfit)
            ADD(s->cfit, nw);
    }
    ADD(e->plans, (size_t)e->nplans * sizeof *e->plans);
    ADD(e->st, (size_t)e->nst * sizeof *e->st);
    for (uint32_t i = 0; i < e->nst; i++)
        ADD(e->st[i].t, 2 * (size_t)e->P * sizeof *e->st[i].t);
#undef ADD
    return rc;
}

static void img_free(struct dra__engine_img *im)
{
    if (!im)
        return;
    dra_mem_free(im->parts);
    dra_mem_free(im->buf);
    dra_mem_free(im);
}

int dra_engine_save(dra_engine_t *e)
{
    if (!e)
        return DRA_EINVAL;
    struct dra__engine_img *im = dra_mem_calloc(1, sizeof *im);
    if (!im)
        return DRA_ENOMEM;
    int rc = img_parts(e, im);
    if (rc == DRA_OK && !(im->buf = dra_mem_malloc(im->bytes + 1)))
        rc = DRA_ENOMEM;
    if (rc) {
        img_free(im);
        return rc;
    }
    unsigned char *b = im->buf;
    for (uint32_t i = 0; i < im->nparts; i++) {
        memcpy(b, im->parts[i].p, im->parts[i].n);
        b += im->parts[i].n;
    }
    im->nstate = dra_alloc_state_count(e->state);
    img_free(e->img);
    e->img = NULL;
    im->e = *e;
    e->img = im;
    return DRA_OK;
}

int dra_engine_reset(dra_engine_t *e)
{
    if (!e || !e->img)
        return DRA_EINVAL;
    struct dra__engine_img *im = e->img;
    const dra_engine_t *s = &im->e;
    /* what the image does not cover: new plans, signatures or score trees (arrays grown or
     * moved), slice updates (model rows re-derived), results still committed */
    if (e->sigs != s->sigs || e->nsigs != s->nsigs || e->plans != s->plans ||
        e->nplans != s->nplans || e->st != s->st || e->nst != s->nst ||
        e->nupdates != s->nupdates || e->upd_init != s->upd_init || e->rec_held ||
        dra_alloc_state_count(e->state) != im->nstate)
        return DRA_EINVAL;
    const unsigned char *b = im->buf;
    for (uint32_t i = 0; i < im->nparts; i++) {
        memcpy(im->parts[i].p, b, im->parts[i].n);
        b += im->parts[i].n;
    }
    /* the engine's fields as saved, but the arenas (their chunks are live: scratch arenas are
     * reset as after set-up, the engine's arena holds only set-up data) and what was allocated
     * after the save and is kept for reuse */
    dra_engine_t live = *e;
    *e = *s;
    e->arena = live.arena;
    e->scratch = live.scratch;
    e->spare = live.spare;
    e->vscratch = live.vscratch;
    e->upd_arena = live.upd_arena;
    e->hidden = live.hidden;
    e->img = im;
    dra_arena_reset(&e->scratch);
    dra_arena_reset(&e->spare);
    dra_arena_reset(&e->vscratch);
    /* the allocator's selector caches as dra_engine_plan seeded them (sig_get) */
    if (e->alloc->kind == DRA_ALLOC_FAST && e->alloc->fast)
        for (uint32_t i = 0; i < e->nsigs; i++) {
            const sig_t *g = &e->sigs[i];
            if (g->attr != NONE || g->all || g->excl != NONE || g->capbody)
                continue;
            int rc = dra_fast_seed_selectors(e->alloc->fast, g->cls, g->body, e->nord, e->ord_row,
                                             g->match, g->err);
            if (rc)
                return rc;
        }
    return DRA_OK;
}

/* ---- the state's in-use rows from the engine's columns ------------------------------------- */

bool dra_engine_rows_in_use_at(const dra_engine_t *e, const uint32_t *rows, uint32_t n,
                               uint8_t *out)
{
    if (e->beh.bugs && e->beh.release < DRA_RELEASE_1_36)
        return false; /* the state answers (dra_engine_rows_in_use) */
    for (uint32_t i = 0; i < n; i++) {
        uint32_t row = rows[i];
        if (row >= e->nord || e->ord_row[row] == NONE)
            return false;
        out[i] = e->rs[e->ord_row[row]].use != 0;
    }
    return true;
}

void dra_engine_rows_in_use(const dra_engine_t *e, uint8_t *out, uint32_t n)
{
    /* before PR #139040 (upstream bugs asked for, releases before 1.36) the state counts no
     * share as in use while rs[].use does: the state answers */
    if (e->beh.bugs && e->beh.release < DRA_RELEASE_1_36) {
        dra_alloc_state_rows_in_use(e->state, out, n);
        return;
    }
    /* the rows with an engine row first, in one sequential pass over ord_row: no slice header
     * is read (one cache miss a slice, 50,000 of them on fleet-50k, was most of the cost) */
    uint32_t lim = n < e->nord ? n : e->nord;
    bool rest = lim < n;
    for (uint32_t row = 0; row < lim; row++) {
        uint32_t r = e->ord_row[row];
        if (r != NONE) /* the row is its device ID's only one: its results are counted here */
            out[row] = e->rs[r].use != 0;
        else
            rest = true;
    }
    if (!rest)
        return;
    /* then the others (a repeated device ID, or past the engine's rows): the state answers */
    const dra_model_t *m = e->m;
    uint32_t row = 0;
    for (uint32_t si = 0; si < m->nslices; si++) {
        const dra_slice_t *sl = m->slices[si];
        uint32_t end = row + sl->ndevices;
        if (end > n)
            end = n;
        for (uint32_t di = 0; row < end; di++, row++) {
            if (row < e->nord && e->ord_row[row] != NONE)
                continue; /* done above */
            out[row] = (dra_alloc_state_row_flags(e->state, row, sl->driver, sl->pool_name,
                                                  sl->devices[di].name) &
                        DRA_STATE_IN_USE) != 0;
        }
        if (row >= n)
            return;
    }
}

/* ---- introspection ------------------------------------------------------------------------ */

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
