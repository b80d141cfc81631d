/*
 * group.c - the literal PodGroup cycle (group.h): topology placements, the default algorithm per
 * placement on the host's exact answers, placement scoring and the choice.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "alloc/alloc_impl.h"
#include "group/group_impl.h"

/* ---- names ------------------------------------------------------------------------------------ */

const char *dra_group_outcome_name(dra_group_outcome_t o)
{
    static const char *const n[DRA_GROUP_OUTCOMES] = {"placed", "partial", "unschedulable",
                                                      "waiting", "error"};
    return (unsigned)o < DRA_GROUP_OUTCOMES ? n[o] : "?";
}

const char *dra_group_short_name(dra_group_short_t s)
{
    static const char *const n[DRA_SHORT_COUNT] = {"none",    "capacity", "domain",
                                                   "no-domain", "split",  "members",
                                                   "fatal",   "no-new-pod"};
    return (unsigned)s < DRA_SHORT_COUNT ? n[s] : "?";
}

int64_t dra_group_most_allocated(int64_t requested, int64_t allocatable)
{
    if (allocatable <= 0)
        return 0;
    if (requested > allocatable)
        requested = allocatable;
    if (requested < 0)
        requested = 0;
    /* requested * 100 / allocatable without overflow for quantities up to 2^63 */
    return (int64_t)((__extension__(unsigned __int128)requested * 100u) / (uint64_t)allocatable);
}

/* ---- topology ------------------------------------------------------------------------------- */

typedef struct topo_ent {
    const char *v;
    uint32_t node;
} topo_ent_t;

static int cmp_ent(const void *x, const void *y)
{
    const topo_ent_t *a = x, *b = y;
    int c = strcmp(a->v, b->v);
    return c ? c : (a->node < b->node ? -1 : a->node > b->node);
}

void dra_group_topo_free(dra_group_topo_t *t)
{
    if (!t)
        return;
    free(t->values);
    free(t->first);
    free(t->nodes);
    free(t->dom);
    free(t);
}

int dra_group_topo_new(const dra_model_t *m, const char *key, dra_group_topo_t **out)
{
    *out = NULL;
    if (!m || !key)
        return DRA_EINVAL;
    dra_group_topo_t *t = calloc(1, sizeof *t);
    uint32_t n = m->nnodes;
    topo_ent_t *e = malloc((n ? n : 1) * sizeof *e);
    if (!t || !e) {
        free(t);
        free(e);
        return DRA_ENOMEM;
    }
    t->key = key;
    t->nnodes = n;
    t->dom = malloc((n ? n : 1) * sizeof *t->dom);
    t->nodes = malloc((n ? n : 1) * sizeof *t->nodes);
    if (!t->dom || !t->nodes) {
        free(e);
        dra_group_topo_free(t);
        return DRA_ENOMEM;
    }
    uint32_t k = 0;
    for (uint32_t i = 0; i < n; i++) {
        t->dom[i] = DRA_GROUP_NONE;
        const char *v = dra_node_label(m->nodes[i], key);
        if (v)
            e[k++] = (topo_ent_t){v, i};
    }
    qsort(e, k, sizeof *e, cmp_ent);
    uint32_t nd = 0;
    for (uint32_t i = 0; i < k; i++)
        nd += i == 0 || strcmp(e[i].v, e[i - 1].v) != 0;
    t->values = malloc((nd ? nd : 1) * sizeof *t->values);
    t->first = malloc((nd + 1) * sizeof *t->first);
    if (!t->values || !t->first) {
        free(e);
        dra_group_topo_free(t);
        return DRA_ENOMEM;
    }
    t->contiguous = true;
    uint32_t d = DRA_GROUP_NONE;
    for (uint32_t i = 0; i < k; i++) {
        if (i == 0 || strcmp(e[i].v, e[i - 1].v) != 0) {
            d = d == DRA_GROUP_NONE ? 0 : d + 1;
            t->values[d] = e[i].v;
            t->first[d] = i;
        } else if (e[i].node != e[i - 1].node + 1) {
            t->contiguous = false;
        }
        t->nodes[i] = e[i].node;
        t->dom[e[i].node] = d;
    }
    t->first[nd] = k;
    t->ndomains = nd;
    free(e);
    *out = t;
    return DRA_OK;
}

uint32_t dra_group_topo_find(const dra_group_topo_t *t, const char *v)
{
    uint32_t lo = 0, hi = t->ndomains;
    while (lo < hi) {
        uint32_t mid = lo + (hi - lo) / 2;
        int c = strcmp(t->values[mid], v);
        if (c == 0)
            return mid;
        if (c < 0)
            lo = mid + 1;
        else
            hi = mid;
    }
    return DRA_GROUP_NONE;
}

/* ---- context -------------------------------------------------------------------------------- */

int dra_group_ctx_new(uint32_t nnodes, uint32_t max_members, dra_group_ctx_t **out)
{
    *out = NULL;
    if (max_members > DRA_GROUP_MAX_MEMBERS)
        return DRA_EINVAL;
    dra_group_ctx_t *c = calloc(1, sizeof *c);
    if (!c)
        return DRA_ENOMEM;
    c->nnodes = nnodes;
    c->max_members = max_members;
    size_t nn = nnodes ? nnodes : 1, mm = max_members ? max_members : 1;
    c->all = malloc(nn * sizeof *c->all);
    c->walk = malloc(nn * sizeof *c->walk);
    c->wscore = malloc(nn * sizeof *c->wscore);
    c->order = malloc(mm * sizeof *c->order);
    c->pres = malloc(mm * sizeof *c->pres);
    c->undo = malloc(mm * sizeof *c->undo);
    c->cand_ev = malloc((nn + 1) * sizeof *c->cand_ev);
    c->skip = malloc(nn + 1);
    if (!c->all || !c->walk || !c->wscore || !c->order || !c->pres || !c->undo || !c->cand_ev ||
        !c->skip) {
        dra_group_ctx_free(c);
        return DRA_ENOMEM;
    }
    for (uint32_t i = 0; i < nnodes; i++)
        c->all[i] = i;
    dra_arena_init(&c->scratch, 0);
    *out = c;
    return DRA_OK;
}

void dra_group_ctx_free(dra_group_ctx_t *c)
{
    if (!c)
        return;
    free(c->all);
    free(c->walk);
    free(c->wscore);
    free(c->order);
    free(c->pres);
    free(c->undo);
    free(c->cand_ev);
    free(c->skip);
    dra_arena_fini(&c->scratch);
    free(c);
}

/* ---- shared pieces (group_impl.h) ------------------------------------------------------------ */

/* Members in scheduling order: priority descending, then the caller's order (stable). */
void dra__group_order(dra_group_ctx_t *c, const dra_group_spec_t *g)
{
    uint32_t k = 0;
    for (uint32_t i = 0; i < g->nmembers; i++)
        if (g->members[i].bound_node == DRA_GROUP_NONE)
            c->order[k++] = i;
    c->npending = k;
    /* insertion sort: groups are small and mostly of one priority (already ordered) */
    for (uint32_t i = 1; i < k; i++) {
        uint32_t x = c->order[i];
        int64_t px = g->members[x].priority;
        uint32_t j = i;
        while (j > 0 && g->members[c->order[j - 1]].priority < px) {
            c->order[j] = c->order[j - 1];
            j--;
        }
        c->order[j] = x;
    }
}

bool dra__group_selector_admits(const dra_allocation_t *a, const dra_node_t *node)
{
    if (!a || !a->node_selector)
        return true; /* usable on every node */
    bool match = false;
    char err[128];
    if (dra__node_matches(node, NULL, false, a->node_selector, &match, err, sizeof err))
        return false; /* a selector that does not parse admits no node */
    return match;
}

/* The group claims member i still needs allocated (its references not allocated yet). */
uint32_t dra__group_need(const dra_group_ctx_t *c, const dra_group_spec_t *g, uint32_t i)
{
    uint32_t need = 0;
    for (uint32_t k = 0; k < g->ngclaims; k++)
        if ((g->members[i].gclaims >> k & 1u) && !c->gc[k])
            need |= 1u << k;
    return need;
}

/* Whether every allocated group claim member i references admits node n. */
bool dra__group_node_ok(const dra_group_ctx_t *c, const dra_group_spec_t *g,
                        const dra_group_host_t *h, uint32_t i, uint32_t n)
{
    for (uint32_t k = 0; k < g->ngclaims; k++)
        if ((g->members[i].gclaims >> k & 1u) && c->gc[k] &&
            !dra__group_selector_admits(c->gc[k], h->m->nodes[n]))
            return false;
    return true;
}

/* Assume member i on node n with outcome o (need's group claims first): commit and record. */
int dra__group_assume(dra_group_ctx_t *c, const dra_group_spec_t *g, const dra_group_host_t *h,
                      uint32_t i, uint32_t need, uint32_t n, const dra_alloc_outcome_t *o)
{
    int64_t t0 = g->clock_ns ? g->clock_ns() : 0;
    int rc = h->commit(h->ctx, i, need, n, o->allocations, o->n);
    int64_t t1 = g->clock_ns ? g->clock_ns() : 0;
    if (rc)
        return rc;
    uint32_t j = 0;
    for (uint32_t k = 0; k < g->ngclaims; k++)
        if (need >> k & 1u)
            c->gc[k] = o->allocations[j++];
    dra_group_member_res_t *r = &c->pres[i];
    r->node = n;
    r->kind = DRA_OUTCOME_ALLOCATED;
    r->need = need;
    r->allocs = o->allocations;
    r->nallocs = o->n;
    r->commit_ns = t1 - t0;
    c->undo[c->nundo++] = i;
    return DRA_OK;
}

/* Undo every assumption of the current evaluation, newest first. */
int dra__group_undo_all(dra_group_ctx_t *c, const dra_group_spec_t *g, const dra_group_host_t *h)
{
    int first = DRA_OK;
    while (c->nundo) {
        uint32_t i = c->undo[--c->nundo];
        dra_group_member_res_t *r = &c->pres[i];
        int rc = h->release(h->ctx, i, r->need, r->node, r->allocs, r->nallocs);
        if (rc && !first)
            first = rc;
        for (uint32_t k = 0; k < g->ngclaims; k++)
            if (r->need >> k & 1u)
                c->gc[k] = NULL;
    }
    return first;
}

/* NodeResourcesFit's placement score: MostAllocated over cpu and memory summed over the
 * placement's nodes, requested = the nodes' requested plus the members scheduled in it. */
int64_t dra__group_nrf(const dra_group_spec_t *g, const dra_group_host_t *h, const uint32_t *nodes,
                       uint32_t nn, const dra_group_member_res_t *pres, const uint32_t *order,
                       uint32_t npending)
{
    int64_t alloc[2] = {0, 0}, req[2] = {0, 0};
    for (uint32_t k = 0; k < nn; k++) {
        int64_t r[4];
        h->node_res(h->ctx, nodes[k], r);
        for (int x = 0; x < 2; x++) {
            if (r[x] > 0)
                alloc[x] = dra__sat_add(alloc[x], r[x]);
            if (r[2 + x] > 0)
                req[x] = dra__sat_add(req[x], r[2 + x]);
        }
    }
    for (uint32_t k = 0; k < npending; k++) {
        const dra_group_member_t *mb = &g->members[order[k]];
        if (pres[order[k]].kind != DRA_OUTCOME_ALLOCATED)
            continue;
        req[0] = dra__sat_add(req[0], mb->cpu_milli > 0 ? mb->cpu_milli
                                                        : DRA_GROUP_NONZERO_CPU_MILLI);
        req[1] = dra__sat_add(req[1], mb->memory_bytes > 0 ? mb->memory_bytes
                                                           : DRA_GROUP_NONZERO_MEMORY);
    }
    return dra__group_nrf_of(alloc, req);
}

int64_t dra__group_nrf_of(const int64_t alloc[2], const int64_t req[2])
{
    int64_t sum = 0, weights = 0;
    for (int x = 0; x < 2; x++)
        if (alloc[x] > 0) {
            sum += dra_group_most_allocated(req[x], alloc[x]);
            weights++;
        }
    return weights ? sum / weights : 0;
}

/* Placements: their node lists (topology) or all nodes. Bound members restrict them to the
 * domain holding all their nodes. Sets c->cand (domains or one "all nodes" entry). Returns the
 * short kind when there is no candidate. */
dra_group_short_t dra__group_candidates(dra_group_ctx_t *c, const dra_group_spec_t *g)
{
    c->ncand = 0;
    c->single_domain = DRA_GROUP_NONE;
    if (!g->tas || !g->topo) {
        c->ncand = 1;
        return DRA_SHORT_NONE;
    }
    const dra_group_topo_t *t = g->topo;
    if (t->ndomains == 0)
        return DRA_SHORT_NO_DOMAIN;
    uint32_t d = DRA_GROUP_NONE;
    for (uint32_t i = 0; i < g->nmembers; i++) {
        uint32_t b = g->members[i].bound_node;
        if (b == DRA_GROUP_NONE)
            continue;
        uint32_t bd = b < t->nnodes ? t->dom[b] : DRA_GROUP_NONE;
        if (bd == DRA_GROUP_NONE || (d != DRA_GROUP_NONE && bd != d))
            return DRA_SHORT_SPLIT;
        d = bd;
    }
    if (d != DRA_GROUP_NONE) {
        c->single_domain = d;
        c->ncand = 1;
    } else {
        c->ncand = t->ndomains;
    }
    return DRA_SHORT_NONE;
}

/* Candidate k's placement. */
void dra__group_cand(const dra_group_ctx_t *c, const dra_group_spec_t *g, uint32_t k,
                     dra__group_pl_t *pl)
{
    if (!g->tas || !g->topo) {
        *pl = (dra__group_pl_t){c->all, c->nnodes, 0, DRA_GROUP_NONE, true, true};
        return;
    }
    uint32_t d = c->single_domain != DRA_GROUP_NONE ? c->single_domain : k;
    const dra_group_topo_t *t = g->topo;
    const uint32_t *nodes = t->nodes + t->first[d];
    uint32_t nn = t->first[d + 1] - t->first[d];
    bool range = nn > 0 && nodes[nn - 1] - nodes[0] == nn - 1; /* ascending within a domain */
    *pl = (dra__group_pl_t){nodes, nn, nn ? nodes[0] : 0, d, range, false};
}

/* ---- one member on a placement ------------------------------------------------------------ */

/* The search of one member over a placement's nodes, in the policy's order: list order
 * (first-fit), cyclic from the member's start (random), or every node scored (best-fit / spread,
 * the chosen node answered once more). The literal search asks the host on every node; the fast
 * one skips the nodes the member's plan does not admit (host->next: certainly Unsatisfiable
 * there, so the same node wins and a NodeFailure everywhere is still one everywhere). */
typedef struct msearch {
    dra_group_ctx_t *c;
    const dra_group_spec_t *g;
    const dra_group_host_t *h;
    uint32_t i, need;
    bool best, most;
    dra_arena_t *arena;
    uint32_t nf, pick, pick_score;
    bool done;                 /* a first-fit / random answer or a Fatal: res and node are it */
    dra_alloc_outcome_t *res;
    uint32_t node;
    char nfmsg[DRA_DIAG_MSG_MAX];
} msearch_t;

static int visit(msearch_t *m, uint32_t n)
{
    dra_group_ctx_t *c = m->c;
    if (!dra__group_node_ok(c, m->g, m->h, m->i, n)) /* a group claim's devices are not usable */
        return DRA_OK;
    dra_alloc_outcome_t o;
    dra_arena_mark_t mk = dra_arena_mark(m->arena);
    c->stats.answers++;
    int rc = m->h->answer(m->h->ctx, m->i, m->need, n, m->arena, &o);
    if (rc)
        return rc;
    if (o.kind == DRA_OUTCOME_FATAL || (o.kind == DRA_OUTCOME_ALLOCATED && !m->best)) {
        *m->res = o;
        m->node = n;
        m->done = true;
        return DRA_OK;
    }
    if (o.kind == DRA_OUTCOME_NODE_FAILURE) {
        if (!m->nf)
            memcpy(m->nfmsg, o.msg, sizeof m->nfmsg);
        m->nf++;
    }
    if (o.kind == DRA_OUTCOME_ALLOCATED) {
        uint32_t sc = m->h->score(m->h->ctx, n);
        if (m->pick == DRA_GROUP_NONE || (m->most ? sc > m->pick_score : sc < m->pick_score)) {
            m->pick = n;
            m->pick_score = sc;
        }
    }
    dra_arena_reset_to(m->arena, mk);
    return DRA_OK;
}

/* Positions [a, b) of the placement. */
static int visit_span(msearch_t *m, const dra__group_pl_t *pl, bool fast, uint32_t a, uint32_t b)
{
    const dra_group_host_t *h = m->h;
    int rc = DRA_OK;
    if (!fast || !h->next) {
        for (uint32_t k = a; k < b && !m->done && !rc; k++)
            rc = visit(m, pl->nodes[k]);
        return rc;
    }
    if (pl->range) { /* nodes lo + k: leapfrog over the admitted ones */
        uint32_t end = pl->lo + b;
        for (uint32_t n = h->next(h->ctx, m->i, m->need, pl->lo + a);
             n != DRA_GROUP_NONE && n < end && !m->done && !rc;
             n = n + 1 < end ? h->next(h->ctx, m->i, m->need, n + 1) : DRA_GROUP_NONE)
            rc = visit(m, n);
        return rc;
    }
    for (uint32_t k = a; k < b && !m->done && !rc; k++) {
        uint32_t n = pl->nodes[k];
        if (h->next(h->ctx, m->i, m->need, n) == n)
            rc = visit(m, n);
    }
    return rc;
}

/* Whether an allocated group claim member i references restricts its nodes. */
static bool restricted(const dra_group_ctx_t *c, const dra_group_spec_t *g, uint32_t i)
{
    for (uint32_t k = 0; k < g->ngclaims; k++)
        if ((g->members[i].gclaims >> k & 1u) && c->gc[k] && c->gc[k]->node_selector)
            return true;
    return false;
}

static int member_search(dra_group_ctx_t *c, const dra_group_spec_t *g, const dra_group_host_t *h,
                         uint32_t i, const dra__group_pl_t *pl, bool fast, dra_arena_t *arena,
                         dra_alloc_outcome_t *res, uint32_t *node_out, uint32_t *need_out)
{
    uint32_t need = dra__group_need(c, g, i), nn = pl->nn;
    *need_out = need;
    *node_out = DRA_GROUP_NONE;
    uint32_t start = g->node_policy == DRA_ENGINE_RANDOM ? dra_group_start(g->members[i].rnd, nn) : 0;
    if (fast && h->place && pl->all && !restricted(c, g, i)) {
        /* every node: the host's own placement decides as the literal search would */
        c->stats.answers++;
        return h->place(h->ctx, i, need, start, arena, res, node_out);
    }
    msearch_t m = {c, g, h, i, need, false, false, arena, 0, DRA_GROUP_NONE, 0, false, res,
                   DRA_GROUP_NONE, ""};
    m.best = g->node_policy == DRA_ENGINE_BEST_FIT || g->node_policy == DRA_ENGINE_SPREAD;
    m.most = g->node_policy == DRA_ENGINE_BEST_FIT;
    int rc = visit_span(&m, pl, fast, start, nn);
    if (!rc && start && !m.done)
        rc = visit_span(&m, pl, fast, 0, start);
    if (rc)
        return rc;
    if (m.done) {
        *node_out = m.node;
        return DRA_OK;
    }
    if (m.best && m.pick != DRA_GROUP_NONE) {
        /* the chosen node once more, into the arena (same state: same devices) */
        c->stats.answers++;
        if ((rc = h->answer(h->ctx, i, need, m.pick, arena, res)))
            return rc;
        if (res->kind != DRA_OUTCOME_ALLOCATED)
            return DRA_EINTERNAL;
        *node_out = m.pick;
        return DRA_OK;
    }
    memset(res, 0, sizeof *res);
    res->kind = nn && m.nf == nn ? DRA_OUTCOME_NODE_FAILURE : DRA_OUTCOME_UNSATISFIABLE;
    if (res->kind == DRA_OUTCOME_NODE_FAILURE)
        memcpy(res->msg, m.nfmsg, sizeof res->msg);
    return DRA_OK;
}

/* The default algorithm on one placement: members in order, each assumed when it fits. Fills
 * c->pres for the pending members and the evaluation summary ev. Assumptions stay (the caller
 * undoes them or keeps them). */
int dra__group_default(dra_group_ctx_t *c, const dra_group_spec_t *g, const dra_group_host_t *h,
                       const dra__group_pl_t *pl, bool fast, dra_arena_t *arena,
                       dra__group_eval_t *ev)
{
    memset(ev, 0, sizeof *ev);
    ev->first_fail = DRA_GROUP_NONE;
    ev->domain = pl->domain;
    uint32_t scheduled = c->nbound, remaining = c->npending;
    for (uint32_t k = 0; k < c->npending; k++) {
        uint32_t i = c->order[k];
        c->pres[i] = (dra_group_member_res_t){DRA_GROUP_NONE, DRA_OUTCOME_UNSATISFIABLE, 0, NULL, 0, 0, 0};
    }
    c->stats.placements++;
    for (uint32_t k = 0; k < c->npending; k++) {
        /* PlacementFeasible: stop when minCount can no longer be reached */
        if (scheduled + remaining < c->min_count)
            break;
        uint32_t i = c->order[k];
        dra_alloc_outcome_t o;
        uint32_t node, need;
        int64_t t0 = g->clock_ns ? g->clock_ns() : 0;
        int rc = member_search(c, g, h, i, pl, fast, arena, &o, &node, &need);
        int64_t t1 = g->clock_ns ? g->clock_ns() : 0;
        if (rc)
            return rc;
        remaining--;
        if (o.kind == DRA_OUTCOME_FATAL) {
            c->pres[i].kind = DRA_OUTCOME_FATAL;
            ev->fatal = true;
            ev->first_fail = i;
            snprintf(ev->msg, sizeof ev->msg, "%.159s", o.msg); /* sizeof ev->msg - 1 */
            return DRA_OK;
        }
        if (o.kind != DRA_OUTCOME_ALLOCATED) {
            c->pres[i].kind = o.kind;
            if (ev->first_fail == DRA_GROUP_NONE) {
                ev->first_fail = i;
                ev->first_kind = o.kind;
                snprintf(ev->msg, sizeof ev->msg, "%.159s", o.msg); /* sizeof ev->msg - 1 */
            }
            continue;
        }
        if ((rc = dra__group_assume(c, g, h, i, need, node, &o)))
            return rc;
        c->pres[i].search_ns = t1 - t0;
        c->stats.assumed++;
        scheduled++;
        ev->placed++;
    }
    ev->scheduled = scheduled;
    ev->feasible = scheduled >= c->min_count;
    ev->evaluated = true;
    return DRA_OK;
}

/* ---- the reference cycle --------------------------------------------------------------------- */

int dra__group_begin(dra_group_ctx_t *c, const dra_group_spec_t *g, dra_arena_t *arena,
                     dra_group_result_t *out)
{
    memset(out, 0, sizeof *out);
    out->domain = out->best_domain = out->short_member = DRA_GROUP_NONE;
    out->score = -1;
    if (g->nmembers > c->max_members || g->ngclaims > DRA_GROUP_MAX_GCLAIMS ||
        (g->topo && g->topo->nnodes != c->nnodes) || (g->nmembers && !g->members))
        return DRA_EINVAL;
    out->members = dra_arena_calloc(arena, g->nmembers ? g->nmembers : 1, sizeof *out->members, 8);
    if (!out->members)
        return DRA_ENOMEM;
    memset(&c->stats, 0, sizeof c->stats);
    memcpy(c->gc, g->gclaim_alloc, sizeof c->gc);
    memcpy(out->gclaim_alloc, g->gclaim_alloc, sizeof out->gclaim_alloc);
    c->nundo = 0;
    dra__group_order(c, g);
    c->nbound = g->nmembers - c->npending;
    c->min_count = g->policy == DRA_GROUP_GANG && g->gang_gate ? g->min_count : 1;
    if (c->min_count == 0)
        c->min_count = 1;
    out->min_count = c->min_count;
    out->pending = c->npending;
    out->bound = c->nbound;
    for (uint32_t i = 0; i < g->nmembers; i++) {
        out->members[i].node = g->members[i].bound_node;
        out->members[i].kind = g->members[i].bound_node != DRA_GROUP_NONE
                                   ? DRA_OUTCOME_ALLOCATED
                                   : DRA_OUTCOME_UNSATISFIABLE;
    }
    return DRA_OK;
}

/* A kept placement: the members' results copied out, the outcome and its words. */
void dra__group_keep(dra_group_ctx_t *c, dra_group_result_t *out, const dra__group_eval_t *ev)
{
    out->stats = c->stats;
    for (uint32_t k = 0; k < c->npending; k++) {
        uint32_t i = c->order[k];
        out->members[i] = c->pres[i];
    }
    memcpy(out->gclaim_alloc, c->gc, sizeof out->gclaim_alloc);
    out->placed = ev->placed;
    out->outcome = ev->placed == c->npending ? DRA_GROUP_PLACED : DRA_GROUP_PARTIAL;
    if (out->outcome == DRA_GROUP_PARTIAL) {
        out->short_member = ev->first_fail;
        snprintf(out->reason, sizeof out->reason,
                 "%u of %u pending pods placed (%u scheduled, minCount %u); the others wait",
                 ev->placed, c->npending, ev->scheduled, c->min_count);
    }
    c->nundo = 0; /* kept: nothing to undo */
}

/* Words for an unschedulable cycle (no placement kept). */
void dra__group_fail(dra_group_ctx_t *c, const dra_group_spec_t *g, dra_group_result_t *out,
                     dra_group_short_t sk, const dra__group_eval_t *best, uint32_t best_domain)
{
    out->outcome = sk == DRA_SHORT_FATAL ? DRA_GROUP_ERROR
                   : sk == DRA_SHORT_MEMBERS ? DRA_GROUP_WAITING
                                             : DRA_GROUP_UNSCHEDULABLE;
    out->short_kind = sk;
    out->stats = c->stats;
    out->best_domain = best_domain;
    out->best_count = best ? best->scheduled : c->nbound;
    if (best && best->first_fail != DRA_GROUP_NONE) {
        out->short_member = best->first_fail;
        out->members[best->first_fail].kind = best->fatal ? DRA_OUTCOME_FATAL : best->first_kind;
    }
    const char *key = g->topo ? g->topo->key : "";
    uint32_t total = c->npending + c->nbound;
    switch (sk) {
    case DRA_SHORT_MEMBERS:
        snprintf(out->reason, sizeof out->reason,
                 "waiting for minCount pods: %u of %u exist (PreEnqueue)", total, c->min_count);
        break;
    case DRA_SHORT_NO_DOMAIN:
        snprintf(out->reason, sizeof out->reason, "no node carries the topology key %s", key);
        break;
    case DRA_SHORT_SPLIT:
        snprintf(out->reason, sizeof out->reason,
                 "bound pods are not all on nodes of one value of the topology key %s", key);
        break;
    case DRA_SHORT_FATAL:
        snprintf(out->reason, sizeof out->reason, "pod %u: %s", best ? best->first_fail : 0,
                 best ? best->msg : "");
        break;
    case DRA_SHORT_NONE_NEW:
        snprintf(out->reason, sizeof out->reason,
                 "no pending pod fits (%u bound pods already reach minCount %u)", c->nbound,
                 c->min_count);
        break;
    case DRA_SHORT_DOMAIN:
        if (best_domain != DRA_GROUP_NONE)
            snprintf(out->reason, sizeof out->reason,
                     "no value of %s holds minCount %u pods: at most %u fit (%s=%s)", key,
                     c->min_count, out->best_count, key, g->topo->values[best_domain]);
        else
            snprintf(out->reason, sizeof out->reason,
                     "no value of %s holds minCount %u pods", key, c->min_count);
        break;
    default:
        snprintf(out->reason, sizeof out->reason, "minCount %u not reached: %u pods fit",
                 c->min_count, out->best_count);
        break;
    }
}

/* Waiting, no pending member, no candidate: the outcomes decided before any placement is
 * evaluated. True when out is final. */
bool dra__group_prelude(dra_group_ctx_t *c, const dra_group_spec_t *g, dra_group_result_t *out)
{
    if (c->npending + c->nbound < c->min_count) {
        dra__group_fail(c, g, out, DRA_SHORT_MEMBERS, NULL, DRA_GROUP_NONE);
        return true;
    }
    if (c->npending == 0) {
        dra__group_fail(c, g, out, DRA_SHORT_NONE_NEW, NULL, DRA_GROUP_NONE);
        return true;
    }
    dra_group_short_t sk = dra__group_candidates(c, g);
    if (sk != DRA_SHORT_NONE) {
        dra__group_fail(c, g, out, sk, NULL, DRA_GROUP_NONE);
        return true;
    }
    out->nplacements = c->ncand;
    return false;
}

/* The chosen placement's evaluation ev (its assumptions in place) kept, or, when it placed no
 * pending member, undone and unschedulable. */
int dra__group_finish(dra_group_ctx_t *c, const dra_group_spec_t *g, const dra_group_host_t *h,
                      dra_group_result_t *out, const dra__group_eval_t *ev)
{
    out->domain = ev->domain;
    if (ev->placed == 0) { /* bound members alone reach minCount: no pod scheduled */
        int urc = dra__group_undo_all(c, g, h);
        if (urc)
            return urc;
        dra__group_fail(c, g, out, DRA_SHORT_NONE_NEW, ev, ev->domain);
        return DRA_OK;
    }
    dra__group_keep(c, out, ev);
    return DRA_OK;
}

int dra__group_cycle_all(dra_group_ctx_t *c, const dra_group_spec_t *g, const dra_group_host_t *h,
                         dra_arena_t *arena, dra_group_result_t *out, bool fast,
                         const uint8_t *skip)
{
    int rc;
    bool topo = g->tas && g->topo;
    /* every candidate evaluated and undone; what scoring needs kept per candidate */
    uint32_t nfeas = 0, max_sched = 0, fail_k = DRA_GROUP_NONE;
    for (uint32_t k = 0; k < c->ncand; k++) {
        dra__group_pl_t pl;
        dra__group_cand(c, g, k, &pl);
        dra__group_eval_t *ev = &c->cand_ev[k];
        if (skip && skip[k]) { /* the summaries: fewer than minCount fit, nothing to evaluate */
            memset(ev, 0, sizeof *ev);
            ev->first_fail = DRA_GROUP_NONE;
            ev->domain = pl.domain;
            c->stats.rejected++;
            continue;
        }
        dra_arena_mark_t mk = dra_arena_mark(arena);
        rc = dra__group_default(c, g, h, &pl, fast, arena, ev);
        int urc = dra__group_undo_all(c, g, h);
        dra_arena_reset_to(arena, mk);
        if (rc || urc)
            return rc ? rc : urc;
        /* scored on the snapshot without the group's assumptions, as upstream's placements
         * are reverted before scoring */
        ev->nrf = dra__group_nrf(g, h, pl.nodes, pl.nn, c->pres, c->order, c->npending);
        if (ev->fatal) {
            dra__group_fail(c, g, out, DRA_SHORT_FATAL, ev, pl.domain);
            return DRA_OK;
        }
        if (ev->feasible) {
            nfeas++;
            if (ev->scheduled > max_sched)
                max_sched = ev->scheduled;
        } else if (fail_k == DRA_GROUP_NONE || ev->scheduled > c->cand_ev[fail_k].scheduled) {
            fail_k = k;
        }
    }
    out->nfeasible = nfeas;
    if (nfeas == 0) {
        const dra__group_eval_t *bf = fail_k != DRA_GROUP_NONE ? &c->cand_ev[fail_k] : NULL;
        dra__group_fail(c, g, out, topo ? DRA_SHORT_DOMAIN : DRA_SHORT_CAPACITY, bf,
                        bf ? bf->domain : DRA_GROUP_NONE);
        return DRA_OK;
    }
    /* the choice: one feasible placement - it; several - the first with the highest total */
    uint32_t chosen = DRA_GROUP_NONE;
    int64_t chosen_score = -1;
    for (uint32_t k = 0; k < c->ncand; k++) {
        const dra__group_eval_t *ev = &c->cand_ev[k];
        if (!ev->feasible)
            continue;
        int64_t total = dra__group_total(ev, max_sched);
        if (chosen == DRA_GROUP_NONE || total > chosen_score) {
            chosen = k;
            chosen_score = total;
        }
    }
    /* the chosen placement once more, kept (same state: same decisions) */
    dra__group_eval_t want = c->cand_ev[chosen], ev;
    dra__group_pl_t pl;
    dra__group_cand(c, g, chosen, &pl);
    rc = dra__group_default(c, g, h, &pl, fast, arena, &ev);
    if (rc || ev.scheduled != want.scheduled || ev.placed != want.placed) {
        int urc = dra__group_undo_all(c, g, h);
        return rc ? rc : urc ? urc : DRA_EINTERNAL;
    }
    out->score = nfeas > 1 ? chosen_score : -1;
    return dra__group_finish(c, g, h, out, &ev);
}

int dra_group_cycle_reference(dra_group_ctx_t *c, const dra_group_spec_t *g,
                              const dra_group_host_t *h, dra_arena_t *arena,
                              dra_group_result_t *out)
{
    int rc = dra__group_begin(c, g, arena, out);
    if (rc || dra__group_prelude(c, g, out))
        return rc;
    return dra__group_cycle_all(c, g, h, arena, out, false, NULL);
}

/* ---- comparing decisions -------------------------------------------------------------------- */

static bool str_eq(const char *a, const char *b)
{
    return (!a && !b) || (a && b && strcmp(a, b) == 0);
}

static bool alloc_eq(const dra_allocation_t *a, const dra_allocation_t *b)
{
    if (!a || !b)
        return a == b;
    if (a->nresults != b->nresults)
        return false;
    for (uint32_t i = 0; i < a->nresults; i++) {
        const dra_result_t *x = &a->results[i], *y = &b->results[i];
        if (!str_eq(x->request, y->request) || !str_eq(x->driver, y->driver) ||
            !str_eq(x->pool, y->pool) || !str_eq(x->device, y->device) ||
            !str_eq(x->share_id, y->share_id))
            return false;
    }
    return true;
}

bool dra_group_result_equal(const dra_group_result_t *a, const dra_group_result_t *b,
                            uint32_t nmembers, char *why, size_t len)
{
    if (a->outcome != b->outcome) {
        snprintf(why, len, "outcome %s vs %s", dra_group_outcome_name(a->outcome),
                 dra_group_outcome_name(b->outcome));
        return false;
    }
    if (a->domain != b->domain) {
        snprintf(why, len, "placement (domain) %u vs %u", a->domain, b->domain);
        return false;
    }
    for (uint32_t i = 0; i < nmembers; i++) {
        const dra_group_member_res_t *x = &a->members[i], *y = &b->members[i];
        if (x->node != y->node) {
            snprintf(why, len, "pod %u: node %u vs %u", i, x->node, y->node);
            return false;
        }
        bool px = x->kind == DRA_OUTCOME_ALLOCATED, py = y->kind == DRA_OUTCOME_ALLOCATED;
        if (px != py) {
            snprintf(why, len, "pod %u: %s vs %s", i, dra_outcome_name(x->kind),
                     dra_outcome_name(y->kind));
            return false;
        }
        if (x->nallocs != y->nallocs || x->need != y->need) {
            snprintf(why, len, "pod %u: %u vs %u allocations", i, x->nallocs, y->nallocs);
            return false;
        }
        for (uint32_t k = 0; k < x->nallocs; k++)
            if (!alloc_eq(x->allocs[k], y->allocs[k])) {
                snprintf(why, len, "pod %u: allocation %u differs", i, k);
                return false;
            }
    }
    return true;
}
