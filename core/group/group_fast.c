/*
 * group_fast.c - the fast PodGroup cycle (group.h, dra_group_cycle_fast) and the per-domain
 * summaries it reads. The member search and the default algorithm are group.c's with the
 * host's index (fast = true); what differs is which placements are evaluated:
 *  - rejected by summaries: a placement whose domain's bound (the sum over its nodes of the
 *    engine's upper bound on members that fit) is below what minCount needs cannot be feasible;
 *    when no domain is left the group is unschedulable without any node being asked;
 *  - best first: for an all-or-nothing group (minCount = bound + pending members) a feasible
 *    placement schedules every member, so its PodGroupPodsCount part is 100 and its
 *    NodeResourcesFit part is MostAllocated over the domain's summed resources plus every
 *    member's requests - both known before evaluation. Candidates are evaluated by that score,
 *    highest first, ties by candidate order (the reference's tie rule); the first feasible one is
 *    the reference's choice and is kept as evaluated.
 * Both need the summaries to be certain (spec.certain): no skipped placement could have ended
 * the reference's cycle with Fatal.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "group/group_impl.h"

struct dra_group_sums {
    const dra_group_topo_t *t; /* NULL: one domain of all nodes */
    uint32_t nnodes, nd;
    uint32_t *nb;        /* per node: its bound */
    int64_t (*nr)[4];    /* per node: its resources (allocatable cpu, memory, requested ...) */
    uint64_t *dsum;      /* per domain: the sum of its finite bounds */
    uint32_t *dinf;      /* per domain: its unbounded nodes */
    uint64_t (*dres)[4]; /* per domain: the sums of the positive resource values */
    uint8_t *dsat;       /* per domain: a sum went past 2^64 once (its score is then summed
                            from the nodes) */
    uint32_t ndecl;      /* nodes (in a domain) declaring a positive allocatable cpu or memory:
                            none - every placement's NodeResourcesFit score is 0 */
};

static uint32_t dom_of(const dra_group_sums_t *s, uint32_t n)
{
    return s->t ? s->t->dom[n] : 0;
}

int dra_group_sums_new(const dra_group_topo_t *t, uint32_t nnodes, dra_group_sums_t **out)
{
    *out = NULL;
    if (t && t->nnodes != nnodes)
        return DRA_EINVAL;
    dra_group_sums_t *s = calloc(1, sizeof *s);
    if (!s)
        return DRA_ENOMEM;
    s->t = t;
    s->nnodes = nnodes;
    s->nd = t ? t->ndomains : 1;
    size_t nn = nnodes ? nnodes : 1, nd = s->nd ? s->nd : 1;
    s->nb = calloc(nn, sizeof *s->nb);
    s->nr = malloc(nn * sizeof *s->nr);
    s->dsum = calloc(nd, sizeof *s->dsum);
    s->dinf = calloc(nd, sizeof *s->dinf);
    s->dres = calloc(nd, sizeof *s->dres);
    s->dsat = calloc(nd, 1);
    if (!s->nb || !s->nr || !s->dsum || !s->dinf || !s->dres || !s->dsat) {
        dra_group_sums_free(s);
        return DRA_ENOMEM;
    }
    for (uint32_t i = 0; i < nnodes; i++) {
        s->nr[i][0] = s->nr[i][1] = -1;
        s->nr[i][2] = s->nr[i][3] = 0;
    }
    *out = s;
    return DRA_OK;
}

void dra_group_sums_free(dra_group_sums_t *s)
{
    if (!s)
        return;
    free(s->nb);
    free(s->nr);
    free(s->dsum);
    free(s->dinf);
    free(s->dres);
    free(s->dsat);
    free(s);
}

void dra_group_sums_set_bound(dra_group_sums_t *s, uint32_t node, uint32_t bound)
{
    if (node >= s->nnodes)
        return;
    uint32_t d = dom_of(s, node), old = s->nb[node];
    s->nb[node] = bound;
    if (d == DRA_GROUP_NONE || old == bound)
        return;
    if (old == DRA_GROUP_UNBOUNDED)
        s->dinf[d]--;
    else
        s->dsum[d] -= old;
    if (bound == DRA_GROUP_UNBOUNDED)
        s->dinf[d]++;
    else
        s->dsum[d] += bound;
}

void dra_group_sums_set_res(dra_group_sums_t *s, uint32_t node, const int64_t res[4])
{
    if (node >= s->nnodes)
        return;
    uint32_t d = dom_of(s, node);
    if (d != DRA_GROUP_NONE)
        s->ndecl += (uint32_t)(res[0] > 0 || res[1] > 0) -
                    (uint32_t)(s->nr[node][0] > 0 || s->nr[node][1] > 0);
    for (int x = 0; x < 4; x++) {
        int64_t old = s->nr[node][x], v = res[x];
        s->nr[node][x] = v;
        if (d == DRA_GROUP_NONE || old == v)
            continue;
        if (old > 0)
            s->dres[d][x] -= (uint64_t)old;
        if (v > 0) {
            if (s->dres[d][x] > UINT64_MAX - (uint64_t)v)
                s->dsat[d] = 1;
            s->dres[d][x] += (uint64_t)v;
        }
    }
}

uint64_t dra_group_sums_bound(const dra_group_sums_t *s, uint32_t d)
{
    if (d >= s->nd)
        return 0;
    return s->dinf[d] ? UINT64_MAX : s->dsum[d];
}

bool dra_group_sums_check(const dra_group_sums_t *s, const uint32_t *bounds,
                          const int64_t (*res)[4], char *why, size_t len)
{
    uint64_t *sum = calloc(s->nd ? s->nd : 1, sizeof *sum);
    uint32_t *inf = calloc(s->nd ? s->nd : 1, sizeof *inf);
    uint64_t(*r)[4] = calloc(s->nd ? s->nd : 1, sizeof *r);
    bool ok = sum && inf && r;
    if (!ok)
        snprintf(why, len, "out of memory");
    for (uint32_t n = 0; ok && n < s->nnodes; n++) {
        if (s->nb[n] != bounds[n] || memcmp(s->nr[n], res[n], sizeof res[n]) != 0) {
            snprintf(why, len, "node %u: bound %u vs %u or resources differ", n, s->nb[n],
                     bounds[n]);
            ok = false;
            break;
        }
        uint32_t d = dom_of(s, n);
        if (d == DRA_GROUP_NONE)
            continue;
        if (bounds[n] == DRA_GROUP_UNBOUNDED)
            inf[d]++;
        else
            sum[d] += bounds[n];
        for (int x = 0; x < 4; x++)
            if (res[n][x] > 0)
                r[d][x] += (uint64_t)res[n][x];
    }
    for (uint32_t d = 0; ok && d < s->nd; d++)
        if (sum[d] != s->dsum[d] || inf[d] != s->dinf[d] ||
            (!s->dsat[d] && memcmp(r[d], s->dres[d], sizeof r[d]) != 0)) {
            snprintf(why, len, "domain %u: bound sum %llu vs %llu (unbounded %u vs %u)", d,
                     (unsigned long long)s->dsum[d], (unsigned long long)sum[d], s->dinf[d],
                     inf[d]);
            ok = false;
        }
    free(sum);
    free(inf);
    free(r);
    return ok;
}

/* ---- the fast cycle ---------------------------------------------------------------------- */

static int64_t sat_sum(uint64_t a, uint64_t b)
{
    uint64_t v = a > UINT64_MAX - b ? UINT64_MAX : a + b;
    return v > (uint64_t)INT64_MAX ? INT64_MAX : (int64_t)v;
}

/* NodeResourcesFit of a placement if every pending member were placed in it: the domain's sums
 * (or its nodes, without sums or when a sum went past 2^64) plus the members' requests (add,
 * already capped at INT64_MAX); as dra__group_nrf sums them (saturating at INT64_MAX). */
static int64_t nrf_all(const dra_group_spec_t *g, const dra_group_host_t *h,
                       const dra__group_pl_t *pl, uint32_t sd, const int64_t add[2])
{
    int64_t alloc[2] = {0, 0}, req[2] = {0, 0};
    if (g->sums && sd != DRA_GROUP_NONE && !g->sums->dsat[sd]) {
        for (int x = 0; x < 2; x++) {
            alloc[x] = sat_sum(g->sums->dres[sd][x], 0);
            req[x] = sat_sum(g->sums->dres[sd][2 + x], (uint64_t)add[x]);
        }
        return dra__group_nrf_of(alloc, req);
    }
    for (uint32_t k = 0; k < pl->nn; k++) {
        int64_t v[4];
        h->node_res(h->ctx, pl->nodes[k], v);
        for (int x = 0; x < 2; x++) {
            if (v[x] > 0)
                alloc[x] = dra__sat_add(alloc[x], v[x]);
            if (v[2 + x] > 0)
                req[x] = dra__sat_add(req[x], v[2 + x]);
        }
    }
    for (int x = 0; x < 2; x++)
        req[x] = dra__sat_add(req[x], add[x]);
    return dra__group_nrf_of(alloc, req);
}

int dra_group_cycle_fast(dra_group_ctx_t *c, const dra_group_spec_t *g, const dra_group_host_t *h,
                         dra_arena_t *arena, dra_group_result_t *out)
{
    int rc = dra__group_begin(c, g, arena, out);
    if (rc || dra__group_prelude(c, g, out))
        return rc;
    bool topo = g->tas && g->topo;
    dra_group_spec_t gs = *g;
    if (gs.sums && gs.sums->t != (topo ? g->topo : NULL))
        gs.sums = NULL; /* summaries of another topology say nothing here */
    g = &gs;
    uint32_t need = c->min_count > c->nbound ? c->min_count - c->nbound : 0;
    uint8_t *skip = c->skip;
    memset(skip, 0, c->ncand);
    uint32_t left = c->ncand;
    if (g->sums && g->certain && need > 0) {
        for (uint32_t k = 0; k < c->ncand; k++) {
            uint32_t d = !topo ? 0 : c->single_domain != DRA_GROUP_NONE ? c->single_domain : k;
            skip[k] = dra_group_sums_bound(g->sums, d) < need;
            left -= skip[k];
        }
        if (left == 0) { /* no domain holds the group: nothing asked */
            c->stats.rejected = c->ncand;
            dra__group_fail(c, g, out, topo ? DRA_SHORT_DOMAIN : DRA_SHORT_CAPACITY, NULL,
                            DRA_GROUP_NONE);
            return DRA_OK;
        }
    }
    bool all_or_nothing = c->min_count == c->nbound + c->npending;
    if (!g->certain || !all_or_nothing)
        return dra__group_cycle_all(c, g, h, arena, out, true, g->certain ? skip : NULL);
    /* best first: each candidate's total before evaluation */
    int64_t add[2] = {0, 0};
    for (uint32_t k = 0; k < c->npending; k++) {
        const dra_group_member_t *mb = &g->members[c->order[k]];
        add[0] = dra__sat_add(add[0], mb->cpu_milli > 0 ? mb->cpu_milli
                                                        : DRA_GROUP_NONZERO_CPU_MILLI);
        add[1] = dra__sat_add(add[1], mb->memory_bytes > 0 ? mb->memory_bytes
                                                           : DRA_GROUP_NONZERO_MEMORY);
    }
    /* no node declares allocatable cpu or memory: every score is 0, candidate order decides */
    bool flat = g->sums && g->sums->ndecl == 0;
    for (uint32_t k = 0; k < c->ncand; k++) {
        if (skip[k]) {
            c->stats.rejected++;
            continue;
        }
        if (flat) {
            c->cand_ev[k].nrf = 0;
            continue;
        }
        dra__group_pl_t pl;
        dra__group_cand(c, g, k, &pl);
        c->cand_ev[k].nrf = nrf_all(g, h, &pl, topo ? pl.domain : 0, add);
    }
    uint32_t fail_k = DRA_GROUP_NONE, cursor = 0;
    while (left > 0) {
        uint32_t best = DRA_GROUP_NONE;
        if (flat) {
            while (skip[cursor])
                cursor++;
            best = cursor;
        } else {
            for (uint32_t k = 0; k < c->ncand; k++)
                if (!skip[k] &&
                    (best == DRA_GROUP_NONE || c->cand_ev[k].nrf > c->cand_ev[best].nrf))
                    best = k;
        }
        skip[best] = 1;
        left--;
        dra__group_pl_t pl;
        dra__group_cand(c, g, best, &pl);
        dra__group_eval_t ev;
        dra_arena_mark_t mk = dra_arena_mark(arena);
        rc = dra__group_default(c, g, h, &pl, true, arena, &ev);
        if (!rc && ev.feasible && !ev.fatal) {
            ev.nrf = c->cand_ev[best].nrf;
            out->nfeasible = 1;
            out->score = dra__group_total(&ev, ev.scheduled);
            return dra__group_finish(c, g, h, out, &ev);
        }
        int urc = dra__group_undo_all(c, g, h);
        dra_arena_reset_to(arena, mk);
        if (rc || urc)
            return rc ? rc : urc;
        if (ev.fatal) { /* not with certain summaries; said as the reference says it */
            dra__group_fail(c, g, out, DRA_SHORT_FATAL, &ev, pl.domain);
            return DRA_OK;
        }
        ev.nrf = c->cand_ev[best].nrf;
        if (fail_k == DRA_GROUP_NONE || ev.scheduled > c->cand_ev[fail_k].scheduled ||
            (ev.scheduled == c->cand_ev[fail_k].scheduled && best < fail_k)) {
            c->cand_ev[best] = ev;
            fail_k = best;
        } else {
            c->cand_ev[best] = ev;
        }
    }
    const dra__group_eval_t *bf = fail_k != DRA_GROUP_NONE ? &c->cand_ev[fail_k] : NULL;
    dra__group_fail(c, g, out, topo ? DRA_SHORT_DOMAIN : DRA_SHORT_CAPACITY, bf,
                    bf ? bf->domain : DRA_GROUP_NONE);
    return DRA_OK;
}
