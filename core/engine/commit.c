/*
 * commit.c - commit and release: results into the allocation state, the rows they name found
 * by model row or device ID, availability and summaries updated through summary.c, the node's
 * score through index.c, with the loads of cold lines started first.
 *
 * Ownership: writes the state the engine borrows (dra__alloc_state_commit_rows / _release_rows)
 * and the engine's own per-row and per-node arrays; the allocations are the caller's (read only).
 * Errors: DRA_EINVAL (no engine, a NULL list of n > 0, an unknown plan); the state's error for an
 * allocation it refuses (the first one is returned, the others are still applied), which leaves
 * that allocation's rows untouched; DRA_ENOMEM at set-up (rows by device ID).
 * Cost: per result O(1) to find its row (model row, else one hash lookup of the device ID), then
 * summary.c's update of the row (O(signatures of the row) plus the rows a counter change flips)
 * and O(log nodes) per signature tree touched; a share result also O(capacities) (summary.c).
 * No allocation.
 *
 * Release records (engine.h): dra_engine_commit_pod_rec keeps, in a record the caller holds (its
 * memory), the state's row and the table row of every exclusive result as the commit resolved
 * them, the results' count, the node and the plan; dra_engine_release_record undoes exactly
 * that from the record: the state's exclusive counts by row (dra__alloc_state_release_excl,
 * which tells the allocator's row mirror the same rows), each row's availability and summaries,
 * the node's score and resources. It reads no allocation, no device ID and no row mapping: its
 * loads are the record and what the rows name. Cost: the commit O(results) more; the release
 * O(rows) plus summary.c's update of each row. A pod whose results the record cannot hold is
 * committed without one (released by its allocations as before).
 *
 * A record also keeps one share of a multi-allocatable device under DRAConsumableCapacity (its
 * row after the exclusive ones in the first line, the rest in the second): which of the device's
 * live shares the commit added (the state's reference of its text's cell and the text's
 * fingerprint) and per consumedCapacity entry the state's name id, the engine's capacity and the
 * amount, all of it as the commit computed it in passing (dra__alloc_state_commit_share fills
 * the state's part, dra__cap_share the capacity each entry names): the record costs the commit
 * its stores, no second pass over the consumed list. Its release finds the share by reference
 * among the device's few live shares and takes those amounts off the state's aggregates and the
 * engine's (dra__alloc_state_release_rec, dra__cap_unshare): no share ID's text compared or
 * hashed, no result read. The state and the
 * engine end exactly as the release by allocations leaves them (a share with the same text in
 * another cell is the same state: the digest hashes texts).
 */
#include "engine/engine_impl.h"

#include <stdlib.h>
#include <string.h>

/* ---- rows by device ID -------------------------------------------------------------------- */

int dra__rows_index_build(dra_engine_t *e)
{
    /* at most 80% full, any size: the start slot is the hash scaled to it */
    uint32_t n = e->t->nrows + e->t->nrows / 4 + 16;
    e->hslots = dra_mem_calloc(n, sizeof *e->hslots);
    if (!e->hslots)
        return DRA_ENOMEM;
    e->nhslots = n;
    const dra_model_t *m = e->t->model;
    uint32_t *first = dra_mem_malloc(((size_t)m->nslices + 1) * sizeof *first);
    if (!first)
        return DRA_ENOMEM;
    e->nord = dra_model_device_rows(m, first);
    e->ord_row = dra_mem_malloc(((size_t)e->nord + 1) * sizeof *e->ord_row);
    if (!e->ord_row) {
        dra_mem_free(first);
        return DRA_ENOMEM;
    }
    for (uint32_t i = 0; i < e->nord; i++)
        e->ord_row[i] = NONE;
    /* each row's hash, kept while the table is filled: a slot of another ID is passed over on
     * its hash, without comparing strings (set-up only) */
    uint64_t *rh = dra_mem_malloc(((size_t)e->t->nrows + 1) * sizeof *rh);
    if (!rh) {
        dra_mem_free(first);
        return DRA_ENOMEM;
    }
    for (uint32_t r = 0; r < e->t->nrows; r++) {
        uint32_t si = e->t->slice[r];
        uint32_t ord = first[si] + (uint32_t)(e->t->dev[r] - m->slices[si]->devices);
        DRA_ASSERT_INTERNAL(ord < e->nord);
        bool dup = false;
        uint64_t h = dra__key_hash(dra__row_driver(e, r), dra__row_pool(e, r),
                                   dra__row_device(e, r));
        rh[r] = h;
        uint32_t i = dra__hslot_start(h, n);
        for (; e->hslots[i]; i = i + 1 == n ? 0 : i + 1) {
            uint32_t o = e->hslots[i] - 1;
            if (rh[o] == h && !strcmp(dra__row_device(e, o), dra__row_device(e, r)) &&
                !strcmp(dra__row_pool(e, o), dra__row_pool(e, r)) &&
                !strcmp(dra__row_driver(e, o), dra__row_driver(e, r))) {
                dup = true; /* results name both rows: the string lookup finds every one */
                uint32_t so = e->t->slice[o];
                e->ord_row[first[so] + (uint32_t)(e->t->dev[o] - m->slices[so]->devices)] = NONE;
            }
        }
        e->hslots[i] = r + 1;
        if (ord < e->nord)
            e->ord_row[ord] = dup ? NONE : r;
    }
    dra_mem_free(rh);
    e->slice_row0 = first; /* kept: direct answers number their results' rows with it */
    e->slice_index_ok = true;
    for (uint32_t i = 0; i < m->nslices && e->slice_index_ok; i++)
        e->slice_index_ok = m->slices[i]->index == i;
    return DRA_OK;
}

/* ---- commit and release ------------------------------------------------------------------- */

/* A result changes every row of its device: found in O(1) through the model row the state
 * resolved it to (vrow, checked by the state: 0 when not known) or its row hint when that row is
 * the device, in both cases when it is the only row with its ID; else through the strings. */
/* Result res changes row r: its use and availability and, for a share (DRAConsumableCapacity) of
 * a device whose shares' capacity the engine keeps, that capacity (as the state adds it; the
 * capacity each consumed entry names goes to e->rec_cidx, for a release record). */
static DRA_ALWAYS_INLINE void apply_to_row(dra_engine_t *e, uint32_t r, const dra_result_t *res,
                                           int delta)
{
    dra__direct_note_share(e, r, res);
    dra__apply_row_in(e, r, delta);
    if (res->share_id && e->beh.cc && e->cx_off && e->cx_off[r] != NONE)
        dra__cap_share(e, r, res, delta, e->rec_cidx, DRA_ENGINE_REC_CAPS);
}

/* apply_result for a result whose state row does not name its table row: by its row hint, else
 * by its device ID's strings. */
DRA_NOINLINE static void apply_result_by_id(dra_engine_t *e, const dra_result_t *res, int delta)
{
    const char *drv = dra__nz(res->driver), *pool = dra__nz(res->pool), *dev = dra__nz(res->device);
    if (res->row && res->row <= e->nord) {
        uint32_t r = e->ord_row[res->row - 1];
        if (r != NONE &&
            (e->t->dev[r]->name == res->device ||
             (!strcmp(dra__row_device(e, r), dev) && !strcmp(dra__row_pool(e, r), pool) &&
              !strcmp(dra__row_driver(e, r), drv)))) {
            apply_to_row(e, r, res, delta);
            return;
        }
    }
    uint64_t h = dra__key_hash(drv, pool, dev);
    for (uint32_t i = dra__hslot_start(h, e->nhslots); e->hslots[i];
         i = i + 1 == e->nhslots ? 0 : i + 1) {
        uint32_t r = e->hslots[i] - 1;
        if (strcmp(dra__row_device(e, r), dev) || strcmp(dra__row_pool(e, r), pool) ||
            strcmp(dra__row_driver(e, r), drv))
            continue;
        apply_to_row(e, r, res, delta);
    }
}

/* In line at commit and release: the row the state resolved (every result of the engine's own
 * model) without a call of its own; the lookups by ID out of line. */
static DRA_ALWAYS_INLINE void apply_result(dra_engine_t *e, const dra_result_t *res, uint32_t vrow,
                                           int delta)
{
    if (res->admin_access) /* the state skips adminAccess results */
        return;
    if (vrow && vrow <= e->nord && e->ord_row[vrow - 1] != NONE) {
        uint32_t r = e->ord_row[vrow - 1];
        apply_to_row(e, r, res, delta);
        return;
    }
    apply_result_by_id(e, res, delta);
}

/* The table row a result's row hint names (unchecked: for prefetching only), or NONE. */
static uint32_t hint_row(const dra_engine_t *e, const dra_result_t *res)
{
    return res->row && res->row <= e->nord ? e->ord_row[res->row - 1] : NONE;
}

/* Rows of one counter set whose per-row columns prefetch_counters starts (a bound on the hint's
 * own cost: a GPU's MIG placements are 25 rows). */
#define PREFETCH_SET_ROWS 64

/* Start the lines a counter charge of table row r reads: its first set's remainders and records,
 * and its set's consuming rows' fit counts, use, signature masks and availability bits (a
 * partitionable device's siblings, whose fit the charge may flip). A commit onto a device
 * untouched for a while finds them cold, and reaches them one dependent load after another.
 * Hints only. */
static void prefetch_counters(const dra_engine_t *e, uint32_t r)
{
    DRA_HINT_KEEP(); /* hints only: core/compiler.h */
    /* the row record's bit (the commit reads the record anyway), not rc_pat's line */
    if (!e->nfail_on || !dra__rs_ctr(&e->rs[r]))
        return;
    uint32_t b, n, lo, hi;
    bool memo = false;
    if (e->rc_span && e->rc_span[4 * r + 1] > e->rc_span[4 * r]) {
        /* a set kept by masks: its counters and rows from the row's own rc_span line, which
         * the charge reads anyway (the set's columns, ctr_set, set_ctr0 and set_rspan, were
         * three dependent cold loads here; warm only while a release's look-ahead had read
         * them for the device just freed) */
        const uint32_t *sp = &e->rc_span[4 * r];
        b = sp[0];
        n = sp[1] - sp[0];
        memo = e->fmemo && sp[2];
        lo = r - (sp[3] & 0xff);
        hi = lo + (sp[3] >> 8 & 0xff);
    } else {
        uint32_t st = e->ctr_set[e->rc_base[r]];
        b = e->set_ctr0[st];
        n = e->set_nctr[st];
        /* per-set columns that stay cached: the list of its rows, srows, is read by nothing
         * else at a commit and would be a cold load here */
        lo = e->set_rspan[2 * st];
        hi = e->set_rspan[2 * st + 1];
        if (!e->sr_n[st])
            hi = lo - 1; /* no rows: none started below */
    }
    if (e->cl_v64) { /* 8 bytes a remainder's copy, what the charge moves (counters.c) */
        for (uint32_t c = b; c < b + n; c += 8)
            __builtin_prefetch(&e->crem64[c], 1);
        __builtin_prefetch(&e->crem64[b + n - 1], 1);
    } else {
        for (uint32_t c = b; c < b + n; c += 4) /* 16 bytes a remainder */
            __builtin_prefetch(&e->crem[c], 1);
        __builtin_prefetch(&e->crem[b + n - 1], 1);
    }
    if (memo) { /* a memo class's set: the set's kept rows, no counter record (counters.c) */
        __builtin_prefetch(&e->set_m[b], 1);
    } else {
        __builtin_prefetch(&e->ctrs[b], 1); /* 8 bytes a record */
        __builtin_prefetch(&e->ctrs[b + n - 1], 1);
    }
    /* the set's rows from its first to its last */
    if (hi < lo || hi - lo >= PREFETCH_SET_ROWS)
        return;
    for (uint32_t q = lo; q <= hi; q += 4) /* 16 bytes a row record */
        __builtin_prefetch(&e->rs[q], 1);
    __builtin_prefetch(&e->rs[hi], 1);
    __builtin_prefetch(&e->avb[lo >> 6], 1);
    __builtin_prefetch(&e->avb[hi >> 6], 1);
}

/* Results whose lines prefetch_results starts loading (a bound on the hint's own cost). */
#define PREFETCH_MAX 32

/* Start the loads a commit or release makes on lines that are likely cold (a release comes long
 * after its commit): per result the state's entry, the fast allocator's mirror and the engine's
 * row mapping, then the engine's per-row columns, so they are in flight together instead of one
 * after another. Hints only: nothing is changed. One pass over the results (their row hints
 * kept in hrow), then, for a commit, one over the hints for the counters' lines: the row
 * mapping each reads was started for every result before the first is read. */
static DRA_ALWAYS_INLINE void prefetch_results(const dra_engine_t *e, uint32_t node,
                                               dra_allocation_t *const *a, uint32_t n, bool commit,
                                               const plan_t *p)
{
    DRA_HINT_KEEP(); /* hints only: core/compiler.h */
    if (!e->state_own)
        return;
    if (node < e->nnodes) { /* the node's score, resources and hazard flag */
        __builtin_prefetch(&e->score[node], 1);
        if (!p || p->cpu_m) /* a pod's resources that are 0 are not added (pod_commit_release) */
            __builtin_prefetch(&e->cpu_used[node], 1);
        if (!p || p->mem_b)
            __builtin_prefetch(&e->mem_used[node], 1);
        if (e->nhazard) /* else no leaf reads it (dra__leaf_value) */
            __builtin_prefetch(&e->hz[node]);
    }
    /* the state's and the fast allocator's lines in line (no call a row) */
    const dra__state_hints_t *sth = dra__alloc_state_hints(e->state);
    const dra_fast_hints_t *fh =
        e->alloc->kind == DRA_ALLOC_FAST && e->alloc->fast ? dra_fast_hints(e->alloc->fast) : NULL;
    uint32_t hrow[PREFETCH_MAX], k = 0, t = 0; /* t: results seen, k: their hints */
    for (uint32_t i = 0; i < n && t < PREFETCH_MAX; i++) {
        if (!a[i])
            continue;
        const dra_result_t *res = a[i]->results;
        for (uint32_t j = 0, nr = a[i]->nresults; j < nr && t < PREFETCH_MAX; j++, t++) {
            uint32_t row = res[j].row;
            if (!row || row > e->nord)
                continue;
            hrow[k++] = row;
            __builtin_prefetch(&e->ord_row[row - 1]);
            dra__state_hint_row(sth, row);
            if (res[j].share_id) /* a share's entry: its shares and capacities, a line apart */
                dra__state_hint_rest(sth, row);
            /* a commit also starts the next device's entry: packing policies commit it next
             * (its hot part, 16 bytes, is often in the line of this one's, not always) */
            if (commit)
                dra__state_hint_row(sth, row + 1);
            if (fh)
                dra_fast_hint_row(fh, row);
        }
    }
    if (!commit)
        return;
    for (uint32_t i = 0; i < k; i++) {
        uint32_t r = e->ord_row[hrow[i] - 1];
        if (r != NONE)
            prefetch_counters(e, r);
    }
}

/* Keep result res, resolved by the state to vrow (model row + 1, 0: unknown), in record rc:
 * false when the record cannot hold it (rc is then dropped). An adminAccess result is not kept:
 * the state skips it but the allocator's row mirror forgets its row on every release, which a
 * record of the state's rows would not repeat. */
static bool record_share(dra_engine_t *e, dra__rec_t *rc, uint32_t vrow, uint32_t row,
                         uint32_t nconsumed, const dra__state_share_t *sh);

/* sh: what the state's commit computed for the allocation's share
 * (dra__alloc_state_commit_share), read for a share result only. */
static bool record_result(dra_engine_t *e, dra__rec_t *rc, const dra_result_t *res,
                          uint32_t vrow, const dra__state_share_t *sh)
{
    if (res->admin_access || !vrow || vrow > e->nord || e->ord_row[vrow - 1] == NONE)
        return false;
    uint32_t row = e->ord_row[vrow - 1];
    if (res->share_id && e->beh.cc)
        return record_share(e, rc, vrow, row, res->nconsumed, sh);
    /* beside a share, the rows stay in the first line (the share is the second) */
    if (e->rec_n == (e->rec_ns ? DRA__REC_LINE_ROWS - 1 : DRA_ENGINE_REC_ROWS))
        return false;
    rc->rows[e->rec_n].srow = vrow;
    rc->rows[e->rec_n++].row = row;
    rc->sigs |= e->rs[row].sigs; /* read by the commit just now: for the release's look-ahead */
    if (dra__rs_ctr(&e->rs[row]))
        e->rec_ctr = DRA_ENGINE_REC_CTR;
    return true;
}

/* Commit (delta 1) or release (-1) allocations a on node; rc, when not NULL (a commit), is
 * filled as the record of this commit, and set to NULL when it cannot be one. p: the pod's plan
 * (NULL: none, no resources of a pod moved). In line in each entry point, with
 * pod_commit_release, prefetch_results and apply_result's common case: delta and commit are
 * constants there, and a one-result commit is one frame (52 + 21 + 18 fewer instructions a
 * sched-perf-500 commit than the calls, scripts/profile). */
static DRA_ALWAYS_INLINE int commit_release(dra_engine_t *e, uint32_t node,
                                            dra_allocation_t *const *a, uint32_t n, int delta,
                                            dra__rec_t **rc, const plan_t *p)
{
    if (!e || (!a && n))
        return DRA_EINVAL;
    prefetch_results(e, node, a, n, delta > 0, p);
    e->td_on = true; /* the leaves the rows move are set once each, below */
    int first = DRA_OK;
    uint32_t ndev = 0;
    for (uint32_t i = 0; i < n; i++) {
        if (!a[i])
            continue;
        ndev += a[i]->nresults;
        uint32_t rowbuf[DRA_ALLOC_STATE_ROWS_MAX];
        uint32_t *rows = a[i]->nresults <= DRA_ALLOC_STATE_ROWS_MAX ? rowbuf : NULL;
        /* a record's share is filled from what the state's commit computes for it */
        dra__state_share_t shbuf, *sh = rc && *rc ? &shbuf : NULL;
        int rc_ = delta > 0 ? dra__alloc_state_commit_share(e->state, a[i], rows, sh)
                            : dra__alloc_state_release_rows(e->state, a[i], rows);
        if (rc_) {
            if (first == DRA_OK)
                first = rc_;
            continue;
        }
        /* the state's rows are numbered over its model: the engine's when they are one */
        bool own = rows && e->state_own;
        if (rc && *rc && !own)
            *rc = NULL;
        for (uint32_t j = 0; j < a[i]->nresults; j++) {
            apply_result(e, &a[i]->results[j], own ? rows[j] : 0, delta);
            if (rc && *rc && !record_result(e, *rc, &a[i]->results[j], rows[j], sh))
                *rc = NULL;
        }
    }
    if (rc && *rc) {
        if (first != DRA_OK || ndev > UINT8_MAX) {
            *rc = NULL;
        } else {
            (*rc)->ndev = (uint8_t)ndev;
            (*rc)->nrows = (uint8_t)e->rec_n;
        }
    }
    /* the node's score first: the score-tree leaves the flush sets take its new key */
    uint32_t was = node < e->nnodes ? e->score[node] : 0;
    if (node < e->nnodes)
        e->score[node] = delta > 0 ? was + ndev : (was > ndev ? was - ndev : 0);
    dra__tree_flush(e);
    if (node < e->nnodes)
        dra__score_moved(e, node, was);
    return first;
}

int dra_engine_commit(dra_engine_t *e, uint32_t node, dra_allocation_t *const *a, uint32_t n)
{
    return commit_release(e, node, a, n, +1, NULL, NULL);
}

int dra_engine_release(dra_engine_t *e, uint32_t node, dra_allocation_t *const *a, uint32_t n)
{
    return commit_release(e, node, a, n, -1, NULL, NULL);
}

void dra_engine_prefetch_release(const dra_engine_t *e, uint32_t node, dra_allocation_t *const *a,
                                 uint32_t n)
{
    if (!e || (!a && n))
        return;
    prefetch_results(e, node, a, n, false, NULL);
    /* a share's consumed capacities and its ID's text, beside the results */
    uint32_t k = 0;
    for (uint32_t i = 0; i < n && k < PREFETCH_MAX; i++)
        for (uint32_t j = 0; a[i] && j < a[i]->nresults && k < PREFETCH_MAX; j++, k++) {
            const dra_result_t *res = &a[i]->results[j];
            if (res->share_id) {
                __builtin_prefetch(res->share_id);
                if (res->nconsumed)
                    __builtin_prefetch(res->consumed);
            }
            uint32_t r = hint_row(e, res);
            if (r != NONE && e->cx_off) {
                __builtin_prefetch(&e->cx_off[r]);
                __builtin_prefetch(&e->t->dev[r]);
            }
        }
}

void dra_engine_prefetch_release_next(const dra_engine_t *e, uint32_t node,
                                      dra_allocation_t *const *a, uint32_t n)
{
    if (!e || (!a && n) || !e->state_own)
        return;
    (void)node; /* the node's signature lines: not hinted (measured slower, core/compiler.h) */
    bool fast = e->alloc->kind == DRA_ALLOC_FAST;
    /* a share's row stays available: what its capacity moves is the fit of the capacity
     * signatures it matches (their fit bits) */
    uint32_t k = 0;
    for (uint32_t i = 0; i < n && k < PREFETCH_MAX; i++)
        for (uint32_t j = 0; a[i] && j < a[i]->nresults && k < PREFETCH_MAX; j++, k++) {
            const dra_result_t *res = &a[i]->results[j];
            uint32_t row = res->row;
            if (!row || row > e->nord)
                continue;
            if (res->share_id)
                dra__alloc_state_prefetch_shares(e->state, row);
            if (fast)
                dra_fast_prefetch_pool(e->alloc->fast, row);
            uint32_t r = e->ord_row[row - 1];
            if (r == NONE || !res->share_id || !e->cx_off || e->cx_off[r] == NONE)
                continue;
            __builtin_prefetch(&e->cx[e->cx_off[r]], 1);
            __builtin_prefetch(&e->cxn[e->cx_off[r]], 1);
            __builtin_prefetch(&e->rowcfit[r], 1);
            const dra_device_t *d = e->t->dev[r];
            if (d && d->ncaps)
                __builtin_prefetch(d->caps);
            if (!dra__row_multi(e, r))
                continue;
            for (uint32_t m = e->rs[r].sigs; m; m &= m - 1)
                if (e->sigs[__builtin_ctz(m)].capbody)
                    __builtin_prefetch(&e->sigs[__builtin_ctz(m)].cfit[r >> 6]);
        }
}

static DRA_ALWAYS_INLINE int pod_commit_release(dra_engine_t *e, uint32_t plan, uint32_t node,
                                                dra_allocation_t *const *a, uint32_t n, int delta,
                                                dra__rec_t **rec)
{
    if (!e || plan >= e->nplans)
        return DRA_EINVAL;
    const plan_t *p = &e->plans[plan];
    int rc = commit_release(e, node, a, n, delta, rec, p);
    /* a resource the pod does not request leaves the node's line unwritten (cold at a
     * release) */
    if (node < e->nnodes && p->cpu_m)
        e->cpu_used[node] += delta * p->cpu_m;
    if (node < e->nnodes && p->mem_b)
        e->mem_used[node] += delta * p->mem_b;
    return rc;
}

int dra_engine_commit_pod(dra_engine_t *e, uint32_t plan, uint32_t node,
                          dra_allocation_t *const *a, uint32_t n)
{
    return pod_commit_release(e, plan, node, a, n, +1, NULL);
}

int dra_engine_release_pod(dra_engine_t *e, uint32_t plan, uint32_t node,
                           dra_allocation_t *const *a, uint32_t n)
{
    return pod_commit_release(e, plan, node, a, n, -1, NULL);
}

/* ---- release records ----------------------------------------------------------------------- */

bool dra_engine_rec_held(const dra_engine_rec_t *rec)
{
    return rec && rec->held != 0; /* 1, or with DRA_ENGINE_REC_CTR */
}

uint32_t dra_engine_records_held(const dra_engine_t *e)
{
    return e ? e->rec_held : 0;
}

int dra_engine_commit_pod_rec(dra_engine_t *e, uint32_t plan, uint32_t node,
                              dra_allocation_t *const *a, uint32_t n, dra_engine_rec_t *rec)
{
    if (!rec || rec->held)
        return DRA_EINVAL;
    /* the record is the caller's (the runner's: its slot's, warmed with the slot before the
     * placement), written after the commit's own loads */
    dra__rec_t *r = e && node < e->nnodes ? rec : NULL;
    if (r) {
        e->rec_n = 0;
        e->rec_ns = 0;
        e->rec_ctr = 0;
        r->sigs = 0;
    }
    int rc = pod_commit_release(e, plan, node, a, n, +1, &r);
    if (r && rc == DRA_OK) {
        r->node = node;
        r->plan = plan;
        r->nshares = (uint8_t)e->rec_ns;
        if (e->rec_ns) { /* the share's rows follow the exclusive ones, in the first line */
            r->rows[e->rec_n].srow = e->rec_sh_srow;
            r->rows[e->rec_n].row = e->rec_sh_row;
        }
        r->held = (uint8_t)(1u | e->rec_ctr);
        e->rec_held++;
    }
    return rc;
}

/* Keep the allocation's share result (DRAConsumableCapacity, nconsumed entries) of state row
 * vrow, table row row, in record rc (the second line; its rows are put after the exclusive ones
 * when the commit ends), from what the commit has just computed for it: the state's (sh: which
 * of the device's live shares it added, each consumed entry's name id and amount) and the
 * engine's (e->rec_cidx, from dra__cap_share on this row a moment ago: the capacity each entry
 * named). No second pass over the consumed list, no text read. false when the record cannot
 * hold it (a second share, a sixth exclusive row beside it, more than DRA_ENGINE_REC_CAPS
 * capacities, a name that two capacities match, DRASharedConsumableCapacity: sh->srow is then
 * not vrow). */
static bool record_share(dra_engine_t *e, dra__rec_t *rc, uint32_t vrow, uint32_t row,
                         uint32_t nconsumed, const dra__state_share_t *sh)
{
    if (e->rec_ns || e->rec_n > DRA__REC_LINE_ROWS - 1 || !sh || sh->srow != vrow ||
        sh->ncap > DRA_ENGINE_REC_CAPS || nconsumed != sh->ncap)
        return false;
    dra_engine_rec_share_t *x = &rc->s.share;
    /* apply_to_row's condition: without the row's capacity in the engine, no entry names one */
    bool cx = e->cx_off && e->cx_off[row] != NONE;
    for (uint32_t j = 0; j < DRA_ENGINE_REC_CAPS; j++) {
        uint8_t c = cx && j < nconsumed ? e->rec_cidx[j] : 0xff;
        if (c == 0xfe) /* a name of two capacities */
            return false;
        x->cidx[j] = c;
    }
    x->ref = sh->ref;
    x->fp = sh->fp;
    x->ncap = (uint8_t)sh->ncap;
    for (uint32_t j = 0; j < sh->ncap; j++) {
        x->nid[j] = sh->nid[j];
        memcpy(x->amt[j], &sh->amt[j], sizeof x->amt[j]);
    }
    e->rec_ns = 1;
    e->rec_sh_srow = vrow;
    e->rec_sh_row = row;
    /* the share leaves its row available: what its release can move is the fit of the
     * capacity signatures (the look-ahead's hint; the mask of those is remade when signatures
     * were added) */
    if (e->rec_capmask_n != e->nsigs) {
        e->rec_capmask = 0;
        for (uint32_t i = 0; i < e->nsigs && i < 32; i++)
            if (e->sigs[i].capbody)
                e->rec_capmask |= 1u << i;
        e->rec_capmask_n = e->nsigs;
    }
    rc->sigs |= e->rs[row].sigs & e->rec_capmask;
    if (dra__rs_ctr(&e->rs[row]))
        e->rec_ctr = DRA_ENGINE_REC_CTR;
    return true;
}

/* The state's part of a release by record with a share (the record's rows in srow, the share's
 * after the n exclusive ones): the share by its reference, its amounts from the record. Apart
 * from dra_engine_release_record so that a record of exclusive rows pays none of it. */
DRA_NOINLINE static int release_share_state(dra_engine_t *e, const dra__rec_t *r,
                                            const uint32_t *srow, uint32_t n)
{
    const dra_engine_rec_share_t *x = &r->s.share;
    if (x->ncap > DRA_ENGINE_REC_CAPS)
        return DRA_EINVAL;
    dra__state_share_t sh;
    sh.srow = srow[n];
    sh.ref = x->ref;
    sh.fp = x->fp;
    sh.ncap = x->ncap;
    for (uint32_t j = 0; j < x->ncap; j++) {
        sh.nid[j] = x->nid[j];
        memcpy(&sh.amt[j], x->amt[j], sizeof sh.amt[j]);
    }
    return dra__alloc_state_release_rec(e->state, srow, n, &sh, 1);
}

/* The engine's part of it: apply_to_row of the share, less its note (as for an exclusive row:
 * the commit noted the same share on the same row), and its amounts off the row's capacity
 * aggregates. */
DRA_NOINLINE static void release_share_engine(dra_engine_t *e, uint32_t row,
                                              const dra_engine_rec_share_t *x)
{
    dra__apply_row(e, row, -1);
    if (!e->cx_off || e->cx_off[row] == NONE)
        return;
    dra__aq_t amt[DRA_ENGINE_REC_CAPS];
    for (uint32_t j = 0; j < x->ncap && j < DRA_ENGINE_REC_CAPS; j++)
        memcpy(&amt[j], x->amt[j], sizeof amt[j]);
    dra__cap_unshare(e, row, x->cidx, amt,
                     x->ncap < DRA_ENGINE_REC_CAPS ? x->ncap : DRA_ENGINE_REC_CAPS);
}

int dra_engine_release_record(dra_engine_t *e, dra_engine_rec_t *r)
{
    if (!e || !dra_engine_rec_held(r) || r->node >= e->nnodes || r->plan >= e->nplans ||
        r->nshares > 1 ||
        r->nrows + r->nshares > (r->nshares ? DRA__REC_LINE_ROWS : DRA_ENGINE_REC_ROWS))
        return DRA_EINVAL;
    /* the lines after the record are the caller's look-ahead's to start, a release or two
     * earlier (dra_engine_prefetch_record): started here, they would be in flight too late to
     * matter and cost a tenth of the release's instructions again */
    uint32_t n = r->nrows, ns = r->nshares;
    uint32_t srow[DRA_ENGINE_REC_ROWS] = {0}; /* the state's rows, contiguous */
    for (uint32_t i = 0; i < n + ns; i++) {
        if (r->rows[i].row >= e->t->nrows) /* not this engine's record */
            return DRA_EINVAL;
        srow[i] = r->rows[i].srow;
    }
    int rc = ns ? release_share_state(e, r, srow, n)
                : dra__alloc_state_release_excl(e->state, srow, n);
    if (rc)
        return rc;
    /* what apply_result does for an exclusive result of a known row, less the share note
     * (dra__direct_note_share): the commit that kept the record made it for the same row and
     * an exclusive result (a record keeps no share under DRAConsumableCapacity), and what it
     * clears is only ever set again by the engine's set-up, which clears it again for a row
     * held exclusively; so it would change nothing here, and skipping it leaves the row's flags
     * line unread (cold at a release). The signature leaves the rows move are set once, at the
     * end (dra__tree_flush). */
    e->td_on = true;
    for (uint32_t i = 0; i < n; i++)
        dra__apply_row_in(e, r->rows[i].row, -1);
    if (ns)
        release_share_engine(e, r->rows[n].row, &r->s.share);
    uint32_t node = r->node, was = e->score[node];
    e->score[node] = was > r->ndev ? was - r->ndev : 0; /* before the flush, as above */
    dra__tree_flush(e);
    dra__score_moved(e, node, was);
    const plan_t *p = &e->plans[r->plan];
    if (p->cpu_m) /* else the node's line is left unread (pod_commit_release) */
        e->cpu_used[node] -= p->cpu_m;
    if (p->mem_b)
        e->mem_used[node] -= p->mem_b;
    r->held = 0;
    e->rec_held--;
    return DRA_OK;
}

/* Lines of a node's row records the look-ahead starts at most (each 4 rows; the 8 lines of
 * failing-entry counts and use it started before they were one record, 64 rows a column). */
#define REC_NODE_LINES 8

/* Counters of a set kept by masks whose lines the look-ahead starts by the line, at most (more:
 * those of the row's own entries). */
#define PREFETCH_SET_CTRS 64

/* The remainder and, when cuts, the record (cut) of each counter row r consumes. */
static DRA_ALWAYS_INLINE void rec_prefetch_entries(const dra_engine_t *e, uint32_t r, bool cuts)
{
    for (uint32_t i = dra__ent_b(e, r), end = dra__ent_e(e, r); i < end; i++) {
        uint32_t c = dra__ent_ctr(e, r, i);
        __builtin_prefetch(e->cl_v64 ? (const void *)&e->crem64[c] : (const void *)&e->crem[c], 1);
        if (cuts)
            __builtin_prefetch(&e->ctrs[c], 1);
    }
}

/* The lines row r's release reads that its row record names: the remainder and record (cut) of
 * each counter it consumes and, for a row of a set kept by masks, the set's failing rows and
 * its other rows (its model node is in its row record). */
/* Forced inline, as rec_prefetch_stage: called a row at a time, it reloaded the engine's columns
 * on each call. */
static DRA_ALWAYS_INLINE void rec_prefetch_counters(const dra_engine_t *e, uint32_t r)
{
    if (!dra__rs_ctr(&e->rs[r])) /* its row record's bit (read here anyway), not rc_pat */
        return;
    /* a set kept by masks: all from the row's rc_span line (stage 1 started it), no pattern
     * entry read: the charge moves the remainders of the set's counters (its own entries',
     * a line or two of the set's: started by the line, not an entry at a time) and, while the
     * set keeps cuts (no memo class, counters.c), reads their records; it reads the set's
     * failing rows (set_m, beside its first counter), and the refund flips the fit of the
     * set's other rows (the device's siblings: a GPU's MIG placements, up to 21 rows before or
     * after it on fleet-5k), whose failing-entry counts and use it reads: the lines of their
     * records from the set's first consuming row to its last. The set's columns (ctr_set,
     * set_rspan) were two dependent cold loads here, which only the next commit onto the
     * device needed warm (prefetch_counters no longer reads them) */
    if (e->rc_span && e->rc_span[4 * r + 1] > e->rc_span[4 * r]) {
        const uint32_t *sp = &e->rc_span[4 * r];
        uint32_t c0 = sp[0], c1 = sp[1];
        bool cuts = !sp[2] || !e->fmemo; /* a memo's set reads no cut */
        if (c1 - c0 > PREFETCH_SET_CTRS) { /* a set of many counters: the row's own */
            rec_prefetch_entries(e, r, cuts);
        } else {
            if (e->cl_v64) { /* 8 bytes a remainder's copy */
                for (uint32_t c = c0; c < c1; c += 8)
                    __builtin_prefetch(&e->crem64[c], 1);
                __builtin_prefetch(&e->crem64[c1 - 1], 1);
            } else {
                for (uint32_t c = c0; c < c1; c += 4) /* 16 bytes a remainder */
                    __builtin_prefetch(&e->crem[c], 1);
                __builtin_prefetch(&e->crem[c1 - 1], 1);
            }
            if (cuts) { /* 8 bytes a record */
                for (uint32_t c = c0; c < c1; c += 8)
                    __builtin_prefetch(&e->ctrs[c], 1);
                __builtin_prefetch(&e->ctrs[c1 - 1], 1);
            }
        }
        __builtin_prefetch(&e->set_m[c0], 1);
        uint32_t lo = r - (sp[3] & 0xff), hi = lo + (sp[3] >> 8 & 0xff); /* under 64 rows */
        if (e->nfail_on)
            for (uint32_t q = lo & ~3u; q <= hi; q += 4) /* four row records a line */
                __builtin_prefetch(&e->rs[q], 1);
        return;
    }
    rec_prefetch_entries(e, r, true);
    /* else the node's first rows: the refund flips the fit of the device's siblings, rows of
     * the same node, whose failing-entry counts and use the cut's move reads (a few lines of
     * their records) */
    uint32_t tn = e->t->node[r];
    if (tn == NONE || !e->nfail_on)
        return;
    uint32_t b = e->t->nodes[tn].begin, end = e->t->nodes[tn].end;
    if (end - b > 64 * REC_NODE_LINES / sizeof *e->rs)
        end = b + 64 * REC_NODE_LINES / (uint32_t)sizeof *e->rs;
    for (uint32_t q = b & ~3u; q < end; q += 4)
        __builtin_prefetch(&e->rs[q], 1);
}

/* Stages 1 and 2 of dra_engine_prefetch_record (e not NULL, stage 1 or 2; fast: the engine's
 * allocator is the fast one).
 * Inline into both callers, so that the two-record call pays one entry: forced (with
 * rec_prefetch_counters inline, gcc -O2 made it a call of its own otherwise). */
static DRA_ALWAYS_INLINE void
rec_prefetch_stage(const dra_engine_t *e, const dra_engine_rec_t *r, unsigned stage, bool fast)
{
    uint32_t node = r->node;
    if (!r->held || node >= e->nnodes)
        return;
    /* the exclusive rows, then the share's (a share record's rows are all in its first line) */
    uint32_t ns = r->nshares ? 1 : 0, n = r->nrows + ns;
    if (n > (ns ? DRA__REC_LINE_ROWS : DRA_ENGINE_REC_ROWS))
        return;
    /* the rows' signatures as the commit found them (a slice update since may have changed
     * them: a hint only). Stage 2 reads them only and-ed with a row's own mask (rs[row].sigs,
     * which holds the engine's signatures only: dra_engine_check), so no mask of the engine's
     * signatures is needed here (one was taken a call, about 8 instructions a release) */
    uint32_t sigs = r->sigs;
    if (stage == 1) {
        if (n > DRA__REC_LINE_ROWS || ns) /* the second line: more rows, or the share */
            __builtin_prefetch((const char *)r + 64);
        if (ns && r->rows[n - 1].row < e->t->nrows) {
            if (e->cx_off)
                __builtin_prefetch(&e->cx_off[r->rows[n - 1].row]);
            __builtin_prefetch(&e->t->dev[r->rows[n - 1].row]);
        }
        __builtin_prefetch(&e->score[node], 1);
        if (r->plan < e->nplans && e->plans[r->plan].cpu_m) /* else not read (the release) */
            __builtin_prefetch(&e->cpu_used[node], 1);
        if (r->plan < e->nplans && e->plans[r->plan].mem_b)
            __builtin_prefetch(&e->mem_used[node], 1);
        for (uint32_t i = 0; i < n; i++) {
            uint32_t row = r->rows[i].row, sr = r->rows[i].srow;
            if (row >= e->t->nrows)
                return;
            dra__state_hint_row(dra__alloc_state_hints(e->state), sr);
            if (ns && i == n - 1) /* the share's: its entry's shares (the hot part has none) */
                dra__state_hint_rest(dra__alloc_state_hints(e->state), sr);
            if (fast)
                dra_fast_hint_row(dra_fast_hints(e->alloc->fast), sr);
            /* not read by the release: by the commit that takes the freed device next (a
             * packing policy's next pod of the shape), which finds its row through it. Into
             * the first level like every hint here: without it (and the device hints below),
             * or started to the second level only (prefetcht1), the release was 20 ns faster
             * and the commit 65-90 ns slower at fleet-5k's defaults (results/performance-log.md,
             * "the release look-ahead's hint levels and depth") */
            if (sr && sr <= e->nord)
                __builtin_prefetch(&e->ord_row[sr - 1]);
            __builtin_prefetch(&e->rs[row], 1); /* use, failing entries, signatures, node */
            __builtin_prefetch(&e->avb[row >> 6], 1);
            if (e->beh.cc) /* else a release by record does not read it (dra__row_multi) */
                __builtin_prefetch(&e->t->flags[row]);
            /* stage 2 reads the row's pattern and first counter only for a row that consumes
             * counters (its row record's bit): started for a record whose commit found one */
            if (r->held & DRA_ENGINE_REC_CTR) {
                __builtin_prefetch(&e->rc_pat[row]);
                __builtin_prefetch(&e->rc_base[row]);
                if (e->rc_span) /* its set's counters, class, rows (a set kept by masks) */
                    __builtin_prefetch(&e->rc_span[4 * row]);
            }
        }
        return;
    }
    for (uint32_t i = 0; i < n; i++) {
        uint32_t row = r->rows[i].row;
        if (row >= e->t->nrows)
            return;
        /* again (stage 1 started it too): started two releases ahead only, the line was gone
         * again at the release for more than half of the rows (callgrind with every hint
         * made a load); started here as well, it stays */
        __builtin_prefetch(&e->rs[row], 1);
        if (fast)
            dra_fast_hint_pool(dra_fast_hints(e->alloc->fast), r->rows[i].srow);
        /* the row's group count in each matchAttribute signature of the record the row
         * matches (its group byte a load here: started at stage 1 as well, per row or per
         * record, the release measured 2-8 ns slower) */
        for (uint32_t m = sigs & e->attrsigs & e->rs[row].sigs; m; m &= m - 1) {
            const sig_t *s = &e->sigs[__builtin_ctz(m)];
            uint32_t g = s->grp[row];
            if (g != GRP_NONE)
                __builtin_prefetch(&s->gcnt[s->gfirst[node] + g], 1);
        }
        rec_prefetch_counters(e, row);
    }
    if (!ns)
        return;
    /* the share (the record's second line, started a step ago): the state's live shares and
     * capacities of its device and its text's cell, the engine's capacity aggregates of the
     * row and the capacity signatures' fit bits */
    uint32_t row = r->rows[n - 1].row;
    dra__alloc_state_prefetch_share(e->state, r->rows[n - 1].srow, r->s.share.ref);
    /* not read by the release: by the next placement on the device (a packing policy's next
     * pod of the shape), whose answer reads the device's capacities and name; the release by
     * allocations read it, the release by record does not */
    __builtin_prefetch(e->t->dev[row]);
    if (!e->cx_off || e->cx_off[row] == NONE)
        return;
    __builtin_prefetch(&e->cx[e->cx_off[row]], 1);
    __builtin_prefetch(&e->cxn[e->cx_off[row]], 1);
    __builtin_prefetch(&e->rowcfit[row], 1);
    for (uint32_t m = sigs & e->rs[row].sigs; m; m &= m - 1)
        __builtin_prefetch(&e->sigs[__builtin_ctz(m)].cfit[row >> 6]);
}

void dra_engine_prefetch_record(const dra_engine_t *e, const dra_engine_rec_t *r,
                                unsigned stage)
{
    if (!e || !r)
        return;
    if (stage == 0) { /* the first line: its count says whether there is a second */
        __builtin_prefetch(r);
        return;
    }
    if (stage > 2)
        return;
    rec_prefetch_stage(e, r, stage, e->alloc->kind == DRA_ALLOC_FAST);
}

void dra_engine_prefetch_records(const dra_engine_t *e, const dra_engine_rec_t *next,
                                 const dra_engine_rec_t *second)
{
    if (!e)
        return;
    bool fast = e->alloc->kind == DRA_ALLOC_FAST;
    if (next)
        rec_prefetch_stage(e, next, 2, fast);
    if (second)
        rec_prefetch_stage(e, second, 1, fast);
}

bool dra_engine_work(const dra_engine_t *e, dra_engine_work_t *w)
{
    memset(w, 0, sizeof *w);
#if DRA_DEBUG
    if (e) {
        *w = e->work;
        return true;
    }
#endif
    (void)e;
    return false;
}
