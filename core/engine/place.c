/*
 * place.c - placement by policy: candidate nodes from the index (or every node for brute
 * force), node resources first, then the direct answer or the exact allocator on each; the
 * reference placement, one node's answer, and which nodes the allocator may see.
 *
 * Ownership: results go to the caller's arena; the engine's spare arena holds the answers of
 * nodes tried and not chosen (reset per placement). Errors: DRA_EINVAL (bad plan or node), the
 * allocator's or a direct answer's DRA_ENOMEM, DRA_EINTERNAL (a verified direct answer differs,
 * out->msg says how); a placement that reached a decision is DRA_OK whatever its kind.
 * Cost: the index walk O(requests * log nodes) per admitted node, then per candidate node the
 * direct answer (O(words of the node's range)) or one exact call; no malloc.
 */
#include "engine/engine_impl.h"

#include <string.h>

/* ---- placement ---------------------------------------------------------------------------- */

/* Whether node n has the plan's cpu and memory left (no request, or no allocatable: true). */
static DRA_ALWAYS_INLINE bool res_fits(const dra_engine_t *e, const plan_t *p, uint32_t n)
{
    if (p->cpu_m && e->cpu_cap[n] >= 0 && p->cpu_m > e->cpu_cap[n] - e->cpu_used[n])
        return false;
    if (p->mem_b && e->mem_cap[n] >= 0 && p->mem_b > e->mem_cap[n] - e->mem_used[n])
        return false;
    return true;
}

/* Every field but the message's tail (a placement writes ten lines less than clearing it). */
static void res_init(dra_engine_result_t *out, dra_engine_path_t path)
{
    out->kind = DRA_OUTCOME_UNSATISFIABLE;
    out->node = NONE;
    out->allocations = NULL;
    out->n = 0;
    out->msg[0] = 0;
    out->path = path;
    out->exact_calls = 0;
    out->direct_calls = 0;
    out->served = DRA_SERVED_NONE;
    out->alloc_ns = 0;
    memset(&out->stats, 0, sizeof out->stats);
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
        "none",          "direct-first",  "direct-match",  "direct-counters",
        "direct-shares", "direct-groups", "direct-all",    "direct-claims",
        "direct-requests", "search",      "fast-first",    "fast-match",
        "fast-counters", "fast-unsat",    "reference"};
    return (unsigned)s < DRA_SERVED_COUNT ? names[s] : "?";
}

/* The engine's own answer on node n (direct.c), verified against the allocator when asked.
 * DRA_OK with *decided, DRA__DIRECT_FALLBACK when the allocator must answer, or an error. */
static DRA_ALWAYS_INLINE int try_direct(dra_engine_t *e, const plan_t *p, uint32_t n,
                                        dra_arena_t *arena, dra_engine_result_t *out, bool *decided)
{
    int64_t t0 = clk(e);
    int rc = dra__direct_answer(e, p, n, arena, out, decided);
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

/* try_node past the direct answer: the allocator on node n. */
DRA_NOINLINE static int try_exact(dra_engine_t *e, dra_anyalloc_t *alloc, const plan_t *p,
                                  uint32_t n, dra_arena_t *arena, dra_engine_result_t *out,
                                  bool *decided, uint32_t *nf)
{
    dra_alloc_outcome_t o;
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

/* Node n's answer: the engine's own (direct.c) where it applies, else the allocator's. The
 * direct part in line at each caller (the placement's loops: no frame of its own a node). */
static DRA_ALWAYS_INLINE int try_node(dra_engine_t *e, dra_anyalloc_t *alloc, const plan_t *p,
                                      uint32_t n, dra_arena_t *arena, dra_engine_result_t *out,
                                      bool *decided, uint32_t *nf)
{
    if (alloc == e->alloc && dra__direct_applies(e, p, n)) {
        int rc = try_direct(e, p, n, arena, out, decided);
        if (rc != DRA__DIRECT_FALLBACK)
            return rc;
    }
    return try_exact(e, alloc, p, n, arena, out, decided, nf);
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

/* Nodes in order from `from` (inclusive) to `to` (exclusive), admitted ones only when idx. In
 * line with place_order, try_node and try_direct: first-fit's and random's placement is one
 * frame around the index walk and the direct answer. */
static DRA_ALWAYS_INLINE int scan_range(dra_engine_t *e, dra_anyalloc_t *alloc, const plan_t *p,
                                        bool idx, uint32_t from, uint32_t to, dra_arena_t *arena,
                                        dra_engine_result_t *out, bool *decided, uint32_t *nf)
{
    *decided = false;
    uint32_t n = from;
    for (;;) {
        if (idx)
            n = dra__plan_next(e, p, n);
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

static DRA_ALWAYS_INLINE int place_order(dra_engine_t *e, dra_anyalloc_t *alloc, const plan_t *p,
                                         bool idx, uint32_t start, dra_arena_t *arena,
                                         dra_engine_result_t *out)
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
/* Best-fit / spread over the plan's score tree: its candidates in (score, node) order, each
 * admitted one tried until one decides (the order place_buckets walks, without the walk). */
static int place_scored(dra_engine_t *e, const plan_t *p, uint32_t st, dra_arena_t *arena,
                        dra_engine_result_t *out)
{
    uint32_t nf = 0;
    bool decided = false;
    int rc = DRA_OK;
    /* a candidate is hidden only when it did not decide, so the next best is found: the first
     * one decides most placements, which then set no leaf of the tree */
    for (uint32_t n; (n = dra__stree_best(e, st)) != NONE;) {
        if (dra__plan_admits(e, p, n) && res_fits(e, p, n)) {
            if ((rc = try_node(e, e->alloc, p, n, arena, out, &decided, &nf)) || decided)
                break;
        }
        dra__stree_hide(e, st, n);
    }
    dra__stree_unhide(e, st);
    if (!rc && !decided)
        finish_none(e, out, nf);
    return rc;
}

static int place_buckets(dra_engine_t *e, const plan_t *p, bool most, dra_arena_t *arena,
                         dra_engine_result_t *out)
{
    uint32_t nf = 0;
    bool decided = false;
    uint32_t st = dra__plan_stree(e, p, most);
    if (st != NONE)
        return place_scored(e, p, st, arena, out);
    uint32_t last = e->nbuckets - 1;
    for (uint32_t k = 0; k < e->nbuckets && !decided; k++) {
        uint32_t b = most ? last - k : k;
        if (!e->bcount[b])
            continue;
        if (b != last) {
            /* the bucket's admitted nodes in node order: leapfrog the bucket's bitset and the
             * index (dra__plan_next), each jumping to the other's next position */
            for (uint32_t n = dra__bucket_next(e, b, 0); n != NONE;
                 n = dra__bucket_next(e, b, n + 1)) {
                uint32_t m = dra__plan_next(e, p, n);
                while (m != n && m != NONE) {
                    n = dra__bucket_next(e, b, m);
                    if (n == NONE)
                        break;
                    m = dra__plan_next(e, p, n);
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
            for (uint32_t n = dra__bucket_next(e, b, 0); n != NONE;
                 n = dra__bucket_next(e, b, n + 1)) {
                if (e->tried[n] == e->epoch || !dra__plan_admits(e, p, n) || !res_fits(e, p, n))
                    continue;
                if (pick == NONE ||
                    (most ? e->score[n] > e->score[pick] : e->score[n] < e->score[pick]))
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
        rc = (dra__buckets_sync(e),
              place_buckets(e, p, policy == DRA_ENGINE_BEST_FIT, out_arena, out));
    else
        rc = place_order(e, e->alloc, p, true, policy == DRA_ENGINE_RANDOM ? start : 0, out_arena,
                         out);
    if (rc == DRA_OK && out->exact_calls == 0 && out->direct_calls == 0)
        out->path = DRA_ENGINE_PATH_REJECT;
    e->placements[out->path]++;
    return rc;
}

int dra_engine_place_slot(dra_engine_t *e, uint32_t plan, dra_engine_policy_t policy,
                          uint32_t start, dra_engine_slot_t *slot, dra_arena_t *out_arena,
                          dra_engine_result_t *out)
{
    if (!e)
        return DRA_EINVAL;
    /* the direct answer's builders take from the slot (direct.c: dra__direct_take) */
    uint64_t kbase = plan < (1u << 24) ? (uint64_t)1 << 63 | (uint64_t)(e->dgen & 0x7fffffu) << 40 |
                                             (uint64_t)plan << 16
                                       : 0;
    e->pslot = (struct dra__pslot){.s = slot && slot->mem ? slot : NULL, .used = 0,
                                   .kbase = kbase};
    int rc = dra_engine_place(e, plan, policy, start, out_arena, out);
    e->pslot.s = NULL;
    return rc;
}

size_t dra_engine_slot_used(const dra_engine_t *e)
{
    return e ? e->pslot.used : 0;
}

/* ---- which nodes the allocator may see ---------------------------------------------------- */

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
    if (e->opts.verify_direct || DRA_DEBUG >= 3 || (e->nhazard && e->hz[node]))
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
            direct = !e->sigs[al->sig].any_err || !e->sigs[al->sig].herr[node];
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
