/*
 * runner_groups.c - PodGroup arrivals of `drabench run` (runner_groups.h).
 */
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define XXH_INLINE_ALL
#include <xxhash.h>

#include "result.h"
#include "runner.h"
#include "runner_groups.h"
#include "schema.h"

#define NONE DRA_GROUP_NONE
#define BACKOFF_INITIAL_S 1.0 /* podInitialBackoffSeconds */
#define BACKOFF_MAX_S 10.0    /* podMaxBackoffSeconds */

/* One group mix entry. */
typedef struct rg_entry {
    uint32_t mix;
    const char *name;       /* the shape name: histograms and metrics */
    uint32_t pods;
    bool gang;
    uint32_t min_count;
    uint32_t topo;          /* index into g->topos, NONE without a key */
    uint32_t ngcl;
    dra_claim_t *gcl[DRA_GROUP_MAX_GCLAIMS];
    dra_claim_t *own;
    dra_claim_t *full[DRA_GROUP_MAX_GCLAIMS + 1]; /* group claims, then the pod's own */
    uint32_t plan_own, plan_full;
    int64_t cpu, mem;
    /* the fast cycle: per-domain bounds of the entry's pods (its topology's domains, or all
     * nodes as one), kept on every commit and release through the groups' engine; certain: the
     * engine's answers for both plans are certain where its summaries reject a node */
    dra_group_sums_t *sums;
    bool certain;
    /* per repetition */
    uint64_t cycles, outcome[DRA_GROUP_OUTCOMES], shortk[DRA_SHORT_COUNT];
    uint64_t waited, still_waiting, retries, pods_placed;
    uint64_t pods_short[2];  /* pods a cycle left unplaced: unsatisfiable, fatal */
    char pods_why[2][DRA_DIAG_MSG_MAX]; /* the first such cycle's words, per kind */
    double wait_sum, wait_max;
    char reason[DRA_SHORT_COUNT][DRA_DIAG_MSG_MAX];
    /* all measured repetitions (the summary) */
    uint64_t t_cycles, t_outcome[DRA_GROUP_OUTCOMES];
    double t_wait_sum;
    uint64_t t_waited;
} rg_entry_t;

/* A group instance: one arrival. */
typedef struct rg_inst {
    uint64_t pod;        /* the workload's id */
    uint32_t entry;
    bool live;           /* pods placed (departs later) */
    bool waiting;        /* in the queue */
    double arrival, lifetime, next_try;
    uint32_t attempts, placed;
    dra_arena_t *arena;
    /* per pod: an arena of its own for its allocations (the engine resets the arena it answers
     * into when a node does not take the pod, so the pods of a group cannot share one) */
    dra_arena_t *marena;
    uint32_t nmarena;
    dra_group_member_res_t *mres; /* per pod: where and what (placed ones) */
    dra_allocation_t *galloc[DRA_GROUP_MAX_GCLAIMS];
    uint32_t next_free;
} rg_inst_t;

/* Domain occupancy of one topology key. */
typedef struct rg_topo {
    dra_group_topo_t *t;
    uint32_t *gpu_dom;     /* per GPU row: its domain */
    uint32_t *gpu_row;     /* model device rows of the GPUs on nodes with the key */
    const dra_device_t **gpu_dev;
    uint32_t ngpus;
    uint32_t *dom_total, *dom_used;
    json_t *samples;
    double sum[4];         /* full, partial, idle, stranded over the samples */
    uint32_t nsamples;
    double last[4];
} rg_topo_t;

struct dra_rgroups {
    dra_model_t *m;
    dra_alloc_features_t f;
    rg_entry_t *entries;
    uint32_t nentries;
    uint32_t *entry_of; /* per mix entry: its group entry, NONE */
    uint32_t nmix;
    rg_topo_t *topos;
    uint32_t ntopos;
    dra_group_ctx_t *ctx, *ctx2;
    rg_inst_t *insts;
    uint32_t ninsts, cap_insts, free_head;
    uint32_t *inst_of;   /* per workload pod id: instance, NONE */
    uint64_t cap_inst_of;
    uint32_t *queue;
    uint32_t nqueue, cap_queue;
    int64_t *nz_cpu, *nz_mem; /* per node: requested with the non-zero defaults */
    dra_group_member_t *members;
    dra_arena_t cmp_arena;
    dra_arena_t *cmp_marena; /* the compared literal cycle's per-pod arenas */
    uint32_t max_pods;
    dra_rg_counts_t counts;
    dra_engine_t *eng;   /* the repetition's engine (dra_rgroups_engine) */
};

static uint32_t u32max(uint32_t a, uint32_t b)
{
    return a > b ? a : b;
}

/* ---- set-up -------------------------------------------------------------------------------- */

static const char *attr_type(const dra_device_t *d)
{
    for (uint32_t i = 0; i < d->nattrs; i++) {
        const char *n = d->attrs[i].name;
        const char *slash = n ? strrchr(n, '/') : NULL;
        if (n && strcmp(slash ? slash + 1 : n, "type") == 0 &&
            d->attrs[i].kind == DRA_ATTR_STRING)
            return d->attrs[i].v.s;
    }
    return NULL;
}

static int topo_setup(rg_topo_t *rt, const dra_model_t *m)
{
    const dra_group_topo_t *t = rt->t;
    uint32_t nrows = dra_model_device_rows(m, NULL), row = 0, k = 0;
    rt->gpu_dom = malloc((nrows ? nrows : 1) * sizeof *rt->gpu_dom);
    rt->gpu_row = malloc((nrows ? nrows : 1) * sizeof *rt->gpu_row);
    rt->gpu_dev = malloc((nrows ? nrows : 1) * sizeof *rt->gpu_dev);
    rt->dom_total = calloc(t->ndomains ? t->ndomains : 1, sizeof *rt->dom_total);
    rt->dom_used = calloc(t->ndomains ? t->ndomains : 1, sizeof *rt->dom_used);
    rt->samples = json_array();
    if (!rt->gpu_dom || !rt->gpu_row || !rt->gpu_dev || !rt->dom_total || !rt->dom_used ||
        !rt->samples)
        return DRA_ENOMEM;
    /* node index by name, for slices scoped by nodeName */
    for (uint32_t s = 0; s < m->nslices; s++) {
        const dra_slice_t *sl = m->slices[s];
        uint32_t node = NONE;
        if (sl->node_name)
            for (uint32_t n = 0; n < m->nnodes && node == NONE; n++)
                if (m->nodes[n]->name && strcmp(m->nodes[n]->name, sl->node_name) == 0)
                    node = n;
        for (uint32_t d = 0; d < sl->ndevices; d++, row++) {
            const char *ty = attr_type(&sl->devices[d]);
            if (node == NONE || !ty || (strcmp(ty, "gpu") && strcmp(ty, "amdgpu")))
                continue;
            uint32_t dom = t->dom[node];
            if (dom == NONE)
                continue;
            rt->gpu_dom[k] = dom;
            rt->gpu_row[k] = row;
            rt->gpu_dev[k] = &sl->devices[d];
            rt->dom_total[dom]++;
            k++;
        }
    }
    rt->ngpus = k;
    return DRA_OK;
}

static int gate_error(const dra_scenario_t *s, const dra_scenario_mix_t *mx, uint32_t i,
                      const char *what, const char *gate, const dra_alloc_features_t *f,
                      dra_diag_t *diag)
{
    return dra_diag_set(diag, DRA_EINVAL, s->file, mx->group.line, mx->group.column,
                        "spec.workload.mix[%u].group: %s needs %s, which is off in release %s "
                        "(spec.features {%s: true} or run --feature %s=true)",
                        i, what, gate, dra_alloc_release_name((dra_release_t)f->release), gate, gate);
}

int dra_rgroups_new(const dra_scenario_t *s, const dra_scenario_built_t *b, dra_model_t *m,
                    const dra_alloc_features_t *f, dra_claim_t *const *own, dra_rgroups_t **out,
                    dra_diag_t *diag)
{
    *out = NULL;
    uint32_t n = 0;
    for (uint32_t i = 0; i < s->nmix; i++)
        n += s->mix[i].group.pods > 0;
    if (n == 0)
        return DRA_OK;
    for (uint32_t i = 0; i < s->nmix; i++) {
        const dra_scenario_mix_t *mx = &s->mix[i];
        if (!mx->group.pods)
            continue;
        if (!dra_alloc_gate_on(f, DRA_GATE_GENERIC_WORKLOAD))
            return gate_error(s, mx, i, "a PodGroup", "GenericWorkload", f, diag);
        if (mx->group.gang && !dra_alloc_gang_on(f))
            return gate_error(s, mx, i, "policy gang", "GangScheduling", f, diag);
        if (mx->group.topology_key && !dra_alloc_gate_on(f, DRA_GATE_TOPOLOGY_AWARE_WORKLOAD))
            return gate_error(s, mx, i, "topologyKey", "TopologyAwareWorkloadScheduling", f, diag);
        if (mx->group.nclaims && !dra_alloc_gate_on(f, DRA_GATE_WORKLOAD_RESOURCE_CLAIMS))
            return gate_error(s, mx, i, "group claims", "DRAWorkloadResourceClaims", f, diag);
    }
    dra_rgroups_t *g = calloc(1, sizeof *g);
    if (!g)
        return DRA_ENOMEM;
    *out = g;
    g->m = m;
    g->f = *f;
    g->nmix = s->nmix;
    dra_arena_init(&g->cmp_arena, 0);
    g->entries = calloc(n, sizeof *g->entries);
    g->entry_of = malloc(s->nmix * sizeof *g->entry_of);
    g->topos = calloc(n, sizeof *g->topos);
    g->nz_cpu = calloc(m->nnodes ? m->nnodes : 1, sizeof *g->nz_cpu);
    g->nz_mem = calloc(m->nnodes ? m->nnodes : 1, sizeof *g->nz_mem);
    if (!g->entries || !g->entry_of || !g->topos || !g->nz_cpu || !g->nz_mem)
        return DRA_ENOMEM;
    g->free_head = NONE;
    for (uint32_t i = 0; i < s->nmix; i++) {
        const dra_scenario_mix_t *mx = &s->mix[i];
        g->entry_of[i] = NONE;
        if (!mx->group.pods)
            continue;
        rg_entry_t *e = &g->entries[g->nentries];
        g->entry_of[i] = g->nentries++;
        e->mix = i;
        e->name = b->templates[i]->name; /* the shape's name, as the runner's histograms */
        e->pods = mx->group.pods;
        e->gang = mx->group.gang;
        e->min_count = mx->group.min_count;
        e->own = own[i];
        e->cpu = mx->cpu_milli;
        e->mem = mx->memory_bytes;
        e->topo = NONE;
        g->max_pods = u32max(g->max_pods, e->pods);
        if (mx->group.topology_key) {
            for (uint32_t t = 0; t < g->ntopos && e->topo == NONE; t++)
                if (strcmp(g->topos[t].t->key, mx->group.topology_key) == 0)
                    e->topo = t;
            if (e->topo == NONE) {
                rg_topo_t *rt = &g->topos[g->ntopos];
                int rc = dra_group_topo_new(m, dra_model_str(m, mx->group.topology_key), &rt->t);
                if (!rc)
                    rc = topo_setup(rt, m);
                if (rc)
                    return rc;
                e->topo = g->ntopos++;
            }
        }
        e->ngcl = mx->group.nclaims;
        for (uint32_t k = 0; k < e->ngcl; k++) {
            const dra_claim_t *t = b->gtemplates[i * DRA_GROUP_MAX_GCLAIMS + k];
            char nm[256];
            snprintf(nm, sizeof nm, "group-%u-%s", i, mx->group.claims[k].name);
            int rc = dra_shape_instantiate(m, t, nm, &e->gcl[k]);
            if (rc)
                return rc;
            e->full[k] = e->gcl[k];
        }
        e->full[e->ngcl] = e->own;
    }
    int rc = dra_group_ctx_new(m->nnodes, g->max_pods, &g->ctx);
    if (!rc)
        rc = dra_group_ctx_new(m->nnodes, g->max_pods, &g->ctx2);
    for (uint32_t i = 0; !rc && i < g->nentries; i++) {
        rg_entry_t *e = &g->entries[i];
        rc = dra_group_sums_new(e->topo != NONE ? g->topos[e->topo].t : NULL, m->nnodes, &e->sums);
    }
    g->members = calloc(g->max_pods ? g->max_pods : 1, sizeof *g->members);
    g->cmp_marena = malloc((g->max_pods ? g->max_pods : 1) * sizeof *g->cmp_marena);
    if (!rc && (!g->members || !g->cmp_marena))
        rc = DRA_ENOMEM;
    for (uint32_t k = 0; !rc && k < g->max_pods; k++)
        dra_arena_init(&g->cmp_marena[k], 8 << 10);
    return rc;
}

void dra_rgroups_free(dra_rgroups_t *g)
{
    if (!g)
        return;
    for (uint32_t i = 0; i < g->ninsts; i++)
        if (g->insts[i].arena) {
            dra_arena_fini(g->insts[i].arena);
            free(g->insts[i].arena);
            for (uint32_t k = 0; k < g->insts[i].nmarena; k++)
                dra_arena_fini(&g->insts[i].marena[k]);
            free(g->insts[i].marena);
        }
    for (uint32_t k = 0; g->cmp_marena && k < g->max_pods; k++)
        dra_arena_fini(&g->cmp_marena[k]);
    free(g->cmp_marena);
    free(g->insts);
    free(g->inst_of);
    free(g->queue);
    for (uint32_t t = 0; t < g->ntopos; t++) {
        rg_topo_t *rt = &g->topos[t];
        dra_group_topo_free(rt->t);
        free(rt->gpu_dom);
        free(rt->gpu_row);
        free(rt->gpu_dev);
        free(rt->dom_total);
        free(rt->dom_used);
        json_decref(rt->samples);
    }
    free(g->topos);
    for (uint32_t i = 0; g->entries && i < g->nentries; i++)
        dra_group_sums_free(g->entries[i].sums);
    free(g->entries);
    free(g->entry_of);
    free(g->nz_cpu);
    free(g->nz_mem);
    free(g->members);
    dra_group_ctx_free(g->ctx);
    dra_group_ctx_free(g->ctx2);
    dra_arena_fini(&g->cmp_arena);
    free(g);
}

bool dra_rgroups_is_group(const dra_rgroups_t *g, uint32_t mix)
{
    return g && mix < g->nmix && g->entry_of[mix] != NONE;
}

bool dra_rgroups_owns(const dra_rgroups_t *g, uint64_t pod)
{
    return g && pod < g->cap_inst_of && g->inst_of[pod] != NONE;
}

/* Node n's bounds and scoring resources into every entry's sums (after any change on n). */
static void refresh_node(dra_rgroups_t *g, uint32_t n)
{
    if (!g->eng)
        return;
    int64_t r[4];
    dra_engine_node_resources(g->eng, n, r);
    r[2] = g->nz_cpu[n];
    r[3] = g->nz_mem[n];
    for (uint32_t i = 0; i < g->nentries; i++) {
        rg_entry_t *e = &g->entries[i];
        dra_group_sums_set_bound(e->sums, n, dra_engine_fit_bound(g->eng, e->plan_own, n));
        dra_group_sums_set_res(e->sums, n, r);
    }
}

void dra_rgroups_refresh(dra_rgroups_t *g)
{
    for (uint32_t n = 0; g && n < g->m->nnodes; n++)
        refresh_node(g, n);
}

int dra_rgroups_engine(dra_rgroups_t *g, dra_engine_t *e, const uint32_t *own_plan)
{
    g->eng = e;
    for (uint32_t i = 0; i < g->nentries; i++) {
        rg_entry_t *en = &g->entries[i];
        en->plan_own = own_plan[en->mix];
        en->plan_full = en->plan_own;
        if (en->ngcl) {
            int rc = dra_engine_plan(e, en->full, en->ngcl + 1, &en->plan_full);
            if (!rc)
                rc = dra_engine_plan_resources(e, en->plan_full, en->cpu, en->mem);
            if (rc)
                return rc;
        }
        en->certain = dra_engine_plan_certain(e, en->plan_own) &&
                      dra_engine_plan_certain(e, en->plan_full);
    }
    dra_rgroups_refresh(g);
    return DRA_OK;
}

/* ---- the host: the engine (its answers, or the reference allocator on one node) ------------ */

typedef struct rhost {
    dra_rgroups_t *g;
    const rg_entry_t *e;
    const dra_rg_env_t *env;
    bool literal;         /* the reference allocator answers */
    dra_arena_t *marena;  /* per pod: where its answers go */
    bool keep;            /* a release keeps the pod's answers (the compare reads them after) */
} rhost_t;

static uint32_t plan_of(const rhost_t *h, uint32_t need)
{
    return need ? h->e->plan_full : h->e->plan_own;
}

/* NodeResourcesFit's filter (engine.h, node resources): the node's allocatable minus what is
 * committed on it must hold the pod's requests. */
static bool res_fit(const rhost_t *h, uint32_t node)
{
    if (!h->e->cpu && !h->e->mem)
        return true;
    int64_t r[4];
    dra_engine_node_resources(h->env->eng, node, r);
    if (h->e->cpu && r[0] >= 0 && r[2] + h->e->cpu > r[0])
        return false;
    if (h->e->mem && r[1] >= 0 && r[3] + h->e->mem > r[1])
        return false;
    return true;
}

static int h_answer(void *ctx, uint32_t member, uint32_t need, uint32_t node, dra_arena_t *unused,
                    dra_alloc_outcome_t *out)
{
    rhost_t *h = ctx;
    dra_arena_t *arena = &h->marena[member];
    (void)unused;
    memset(out, 0, sizeof *out);
    out->kind = DRA_OUTCOME_UNSATISFIABLE;
    if (need && need != (1u << h->e->ngcl) - 1)
        return DRA_EINVAL; /* the entry's pods reference every group claim */
    if (!res_fit(h, node))
        return DRA_OK;
    if (h->literal) {
        uint32_t n = need ? h->e->ngcl + 1 : 1;
        dra_claim_t *const *claims = need ? h->e->full : &h->e->own;
        return dra_anyalloc_allocate(h->env->ref, h->env->m->nodes[node], claims, n, arena, out);
    }
    dra_engine_result_t r;
    int rc = dra_engine_answer_on(h->env->eng, plan_of(h, need), node, arena, &r);
    if (rc)
        return rc;
    out->kind = r.kind;
    out->allocations = r.allocations;
    out->n = r.n;
    out->stats = r.stats;
    memcpy(out->msg, r.msg, sizeof out->msg);
    return DRA_OK;
}

static int h_commit(void *ctx, uint32_t member, uint32_t need, uint32_t node,
                    dra_allocation_t *const *a, uint32_t n)
{
    rhost_t *h = ctx;
    (void)member;
    int rc = dra_engine_commit_pod(h->env->eng, plan_of(h, need), node, a, n);
    dra_rgroups_note_pod(h->g, node, h->e->cpu, h->e->mem, 1);
    return rc;
}

static int h_release(void *ctx, uint32_t member, uint32_t need, uint32_t node,
                     dra_allocation_t *const *a, uint32_t n)
{
    rhost_t *h = ctx;
    int rc = dra_engine_release_pod(h->env->eng, plan_of(h, need), node, a, n);
    dra_rgroups_note_pod(h->g, node, h->e->cpu, h->e->mem, -1);
    if (!h->keep)
        dra_arena_reset(&h->marena[member]); /* its allocations are gone */
    return rc;
}

static uint32_t h_next(void *ctx, uint32_t member, uint32_t need, uint32_t from)
{
    rhost_t *h = ctx;
    (void)member;
    uint32_t n = dra_engine_next_admitted(h->env->eng, plan_of(h, need), from);
    return n == DRA_ENGINE_NONE ? NONE : n;
}

/* All nodes (no topology): the engine's placement, which decides as the search over every node
 * does (engine.h). */
static int h_place(void *ctx, uint32_t member, uint32_t need, uint32_t start, dra_arena_t *unused,
                   dra_alloc_outcome_t *out, uint32_t *node)
{
    rhost_t *h = ctx;
    (void)unused;
    if (need && need != (1u << h->e->ngcl) - 1)
        return DRA_EINVAL;
    dra_engine_result_t r;
    int rc = dra_engine_place(h->env->eng, plan_of(h, need), h->env->policy, start,
                              &h->marena[member], &r);
    if (rc)
        return rc;
    memset(out, 0, sizeof *out);
    out->kind = r.kind;
    out->allocations = r.allocations;
    out->n = r.n;
    out->stats = r.stats;
    memcpy(out->msg, r.msg, sizeof out->msg);
    *node = r.kind == DRA_OUTCOME_ALLOCATED || r.kind == DRA_OUTCOME_FATAL ? r.node : NONE;
    return DRA_OK;
}

static uint32_t h_score(void *ctx, uint32_t node)
{
    return dra_engine_score(((rhost_t *)ctx)->env->eng, node);
}

static void h_res(void *ctx, uint32_t node, int64_t out[4])
{
    rhost_t *h = ctx;
    int64_t r[4];
    dra_engine_node_resources(h->env->eng, node, r);
    out[0] = r[0];
    out[1] = r[1];
    out[2] = h->g->nz_cpu[node];
    out[3] = h->g->nz_mem[node];
}

void dra_rgroups_note_pod(dra_rgroups_t *g, uint32_t node, int64_t cpu_milli, int64_t memory,
                          int sign)
{
    if (!g || node >= g->m->nnodes)
        return;
    int64_t c = cpu_milli > 0 ? cpu_milli : DRA_GROUP_NONZERO_CPU_MILLI;
    int64_t mm = memory > 0 ? memory : DRA_GROUP_NONZERO_MEMORY;
    g->nz_cpu[node] += sign * c;
    g->nz_mem[node] += sign * mm;
    refresh_node(g, node);
}

/* ---- instances and the queue ----------------------------------------------------------------- */

static uint32_t inst_get(dra_rgroups_t *g)
{
    if (g->free_head != NONE) {
        uint32_t i = g->free_head;
        g->free_head = g->insts[i].next_free;
        return i;
    }
    if (g->ninsts == g->cap_insts) {
        uint32_t nc = g->cap_insts ? g->cap_insts * 2 : 64;
        rg_inst_t *v = realloc(g->insts, nc * sizeof *v);
        if (!v)
            return NONE;
        memset(v + g->cap_insts, 0, (nc - g->cap_insts) * sizeof *v);
        g->insts = v;
        g->cap_insts = nc;
    }
    rg_inst_t *in = &g->insts[g->ninsts];
    in->arena = malloc(sizeof *in->arena);
    in->marena = malloc(g->max_pods * sizeof *in->marena);
    if (!in->arena || !in->marena) {
        free(in->arena);
        free(in->marena);
        in->arena = NULL;
        in->marena = NULL;
        return NONE;
    }
    dra_arena_init(in->arena, 16 << 10);
    for (uint32_t k = 0; k < g->max_pods; k++)
        dra_arena_init(&in->marena[k], 8 << 10);
    in->nmarena = g->max_pods;
    return g->ninsts++;
}

static void inst_put(dra_rgroups_t *g, uint32_t i)
{
    rg_inst_t *in = &g->insts[i];
    dra_arena_t *a = in->arena, *ma = in->marena;
    uint32_t nma = in->nmarena;
    dra_arena_reset(a);
    for (uint32_t k = 0; k < nma; k++)
        dra_arena_reset(&ma[k]);
    memset(in, 0, sizeof *in);
    in->arena = a;
    in->marena = ma;
    in->nmarena = nma;
    in->next_free = g->free_head;
    g->free_head = i;
}

/* Every instance free again (a pass's end): the free list rebuilt in index order, so every pass
 * takes the instances - and their arenas' memory - in the same order, whatever the passes before
 * it did (as the runner's release_all rebuilds its slots' free list). Left as the releases made
 * it, the order was the history's: a check pass (runner.h step 6) between two timed passes
 * permuted it once more, and the next timed pass's groups ran on other instances' memory than
 * with the checks off (harness.test_runner: test_check_pass_leaves_the_timed_pass_alone). */
static void free_list_reset(dra_rgroups_t *g)
{
    g->free_head = NONE;
    for (uint32_t i = g->ninsts; i-- > 0;) {
        g->insts[i].next_free = g->free_head;
        g->free_head = i;
    }
}

static int map_inst(dra_rgroups_t *g, uint64_t pod, uint32_t inst)
{
    if (pod >= g->cap_inst_of) {
        uint64_t nc = g->cap_inst_of ? g->cap_inst_of : 1024;
        while (nc <= pod)
            nc *= 2;
        uint32_t *v = realloc(g->inst_of, nc * sizeof *v);
        if (!v)
            return DRA_ENOMEM;
        for (uint64_t k = g->cap_inst_of; k < nc; k++)
            v[k] = NONE;
        g->inst_of = v;
        g->cap_inst_of = nc;
    }
    g->inst_of[pod] = inst;
    return DRA_OK;
}

static int queue_push(dra_rgroups_t *g, uint32_t inst)
{
    if (g->nqueue == g->cap_queue) {
        uint32_t nc = g->cap_queue ? g->cap_queue * 2 : 64;
        uint32_t *v = realloc(g->queue, nc * sizeof *v);
        if (!v)
            return DRA_ENOMEM;
        g->queue = v;
        g->cap_queue = nc;
    }
    g->queue[g->nqueue++] = inst;
    g->insts[inst].waiting = true;
    return DRA_OK;
}

/* ---- timed regions ----------------------------------------------------------------------------- */

/* The groups' timed regions, one pair of clock reads per kind in these two functions only: a
 * cycle (DRA_RG_CYCLE: the whole search and commit of one placement attempt) and a member's
 * release (DRA_RG_RELEASE). What must run inside every region of a kind goes here: the runner's
 * planted slowdown (h->plant, runner.h test hooks) after the closing read, which it may move
 * later. timed is false, and h may be NULL, for the untimed releases at a repetition's end
 * (nothing planted). */
typedef struct rg_region {
    int64_t t0; /* the opening clock read */
} rg_region_t;

static inline void rg_begin(const dra_rg_env_t *env, rg_region_t *rg)
{
    rg->t0 = env->clock_ns();
}

/* The closing clock read of the region rg_begin opened. */
static inline int64_t rg_end(const dra_rg_env_t *env, const dra_rg_hooks_t *h, uint32_t mix,
                             int kind, bool timed, const rg_region_t *rg)
{
    int64_t t1 = env->clock_ns();
    if (timed && h && h->plant)
        t1 = h->plant(h->ctx, mix, kind, rg->t0, t1);
    return t1;
}

/* ---- one cycle ------------------------------------------------------------------------------- */

static void digest_result(const dra_rgroups_t *g, const dra_rg_hooks_t *h, uint64_t pod,
                          const dra_group_result_t *r, uint32_t npods)
{
    XXH3_state_t st;
    XXH3_64bits_reset(&st);
    uint32_t hdr[2] = {(uint32_t)r->outcome, r->domain};
    XXH3_64bits_update(&st, hdr, sizeof hdr);
    for (uint32_t i = 0; i < npods; i++) {
        const dra_group_member_res_t *mr = &r->members[i];
        if (mr->kind != DRA_OUTCOME_ALLOCATED || mr->node >= g->m->nnodes)
            continue;
        const char *nn = g->m->nodes[mr->node]->name;
        XXH3_64bits_update(&st, nn ? nn : "", nn ? strlen(nn) + 1 : 1);
        for (uint32_t k = 0; k < mr->nallocs; k++)
            for (uint32_t j = 0; mr->allocs[k] && j < mr->allocs[k]->nresults; j++) {
                const char *d = mr->allocs[k]->results[j].device;
                const char *p = mr->allocs[k]->results[j].pool;
                XXH3_64bits_update(&st, p ? p : "", p ? strlen(p) + 1 : 1);
                XXH3_64bits_update(&st, d ? d : "", d ? strlen(d) + 1 : 1);
            }
    }
    uint64_t d = XXH3_64bits_digest(&st);
    h->decision(h->ctx, pod, &d, sizeof d);
}

/* The invariant checker on each pod placed by the cycle (released, checked against the rest of
 * the state, committed again: untimed). */
static int check_members(dra_rgroups_t *g, const dra_rg_env_t *env, const dra_rg_hooks_t *h,
                         const rhost_t *hs, uint64_t pod, const dra_group_result_t *r,
                         uint32_t npods)
{
    for (uint32_t i = 0; i < npods; i++) {
        const dra_group_member_res_t *mr = &r->members[i];
        if (mr->kind != DRA_OUTCOME_ALLOCATED || !mr->allocs || g->members[i].bound_node != NONE)
            continue;
        dra_claim_t *const *claims = mr->need ? hs->e->full : &hs->e->own;
        int rc = dra_engine_release_pod(env->eng, plan_of(hs, mr->need), mr->node, mr->allocs,
                                        mr->nallocs);
        h->check(h->ctx, pod, mr->node, claims, mr->allocs, mr->nallocs);
        int rc2 = dra_engine_commit_pod(env->eng, plan_of(hs, mr->need), mr->node, mr->allocs,
                                        mr->nallocs);
        if (rc || rc2)
            return rc ? rc : rc2;
    }
    return DRA_OK;
}

#if DRA_DEBUG >= 2
/* Debug builds: the entry's sums against every node's bound and resources from scratch; the
 * bounds go to *bounds (malloc'd, for check_fit after the cycle). */
static int check_sums(dra_rgroups_t *g, const rg_entry_t *e, uint32_t **bounds)
{
    uint32_t nn = g->m->nnodes;
    uint32_t *b = malloc((nn ? nn : 1) * sizeof *b);
    int64_t(*r)[4] = malloc((nn ? nn : 1) * sizeof *r);
    if (!b || !r) {
        free(b);
        free(r);
        return DRA_ENOMEM;
    }
    for (uint32_t n = 0; n < nn; n++) {
        b[n] = dra_engine_fit_bound(g->eng, e->plan_own, n);
        dra_engine_node_resources(g->eng, n, r[n]);
        r[n][2] = g->nz_cpu[n];
        r[n][3] = g->nz_mem[n];
    }
    char why[160];
    bool ok = dra_group_sums_check(e->sums, b, (const int64_t(*)[4])r, why, sizeof why);
    free(r);
    if (!ok) {
        free(b);
        fprintf(stderr, "drabench: group summaries of %s out of date: %s\n", e->name, why);
        return DRA_EINTERNAL;
    }
    *bounds = b;
    return DRA_OK;
}

/* Debug builds: the bounds are sound - no node took more of a cycle's new members than its
 * dra_engine_fit_bound before the cycle (each member takes its own claim's devices there, a
 * first member its group claims too). The fast cycle trusts the bounds, so an under-estimate
 * shows on the literal cycle (run --allocator both), which places without them. */
static int check_fit(dra_rgroups_t *g, const rg_entry_t *e, const dra_group_result_t *r,
                     const uint32_t *bounds, const char *which)
{
    int rc = DRA_OK;
    for (uint32_t i = 0; i < e->pods && rc == DRA_OK; i++) {
        const dra_group_member_res_t *mi = &r->members[i];
        if (mi->kind != DRA_OUTCOME_ALLOCATED || g->members[i].bound_node != NONE)
            continue;
        uint32_t on = 0;
        for (uint32_t j = 0; j < e->pods; j++)
            on += r->members[j].kind == DRA_OUTCOME_ALLOCATED &&
                  g->members[j].bound_node == NONE && r->members[j].node == mi->node;
        if (on > bounds[mi->node]) {
            fprintf(stderr, "drabench: group bound of %s under-estimated: the %s cycle placed %u "
                    "members on node %s, dra_engine_fit_bound said %u\n", e->name, which, on,
                    g->m->nodes[mi->node]->name, bounds[mi->node]);
            rc = DRA_EINTERNAL;
        }
    }
    return rc;
}
#endif

/* Run the cycle of instance ix (its placed pods are bound members) at workload time t. */
static int run_cycle(dra_rgroups_t *g, const dra_rg_env_t *env, const dra_rg_hooks_t *h,
                     uint32_t ix, bool *placed_any)
{
    rg_inst_t *in = &g->insts[ix];
    rg_entry_t *e = &g->entries[in->entry];
    *placed_any = false;
    dra_group_spec_t spec;
    memset(&spec, 0, sizeof spec);
    spec.policy = e->gang ? DRA_GROUP_GANG : DRA_GROUP_BASIC;
    spec.min_count = e->min_count;
    spec.gang_gate = dra_alloc_gang_on(&g->f);
    spec.tas = dra_alloc_gate_on(&g->f, DRA_GATE_TOPOLOGY_AWARE_WORKLOAD);
    spec.topo = e->topo != NONE ? g->topos[e->topo].t : NULL;
    spec.node_policy = env->policy;
    spec.ngclaims = e->ngcl;
    memcpy(spec.gclaim_alloc, in->galloc, sizeof spec.gclaim_alloc);
    uint32_t all = (1u << e->ngcl) - 1;
    for (uint32_t i = 0; i < e->pods; i++) {
        dra_group_member_t *mb = &g->members[i];
        mb->gclaims = all;
        mb->bound_node = in->mres[i].kind == DRA_OUTCOME_ALLOCATED ? in->mres[i].node : NONE;
        mb->priority = 0;
        mb->cpu_milli = e->cpu;
        mb->memory_bytes = e->mem;
        mb->rnd = env->policy == DRA_ENGINE_RANDOM ? dra_rng_next(env->r_place) : 0;
    }
    spec.members = g->members;
    spec.nmembers = e->pods;
    spec.clock_ns = env->clock_ns;
    spec.sums = e->sums;
    spec.certain = e->certain;
    rhost_t hs = {g, e, env, env->ref_place, in->marena, false};
    dra_group_host_t host = {&hs, g->m, h_answer, h_commit, h_release, h_score, h_res,
                             h_next, h_place};
    dra_group_result_t r;
    uint64_t pod = in->pod;
    int rc;
    char why[256] = "";
    bool differ = false;
    dra_group_result_t rr;
    if (env->compare) {
        /* the literal cycle on the engine's exact answers first (every node of every
         * placement; untimed), undone, then the fast one, which decides; every decision must
         * be the same */
        rhost_t lit = {g, e, env, false, g->cmp_marena, true};
        dra_group_host_t lh = {&lit, g->m, h_answer, h_commit, h_release, h_score, h_res, NULL,
                               NULL};
        dra_arena_reset(&g->cmp_arena);
        for (uint32_t i = 0; i < e->pods; i++)
            dra_arena_reset(&g->cmp_marena[i]);
        int64_t c0 = env->clock_ns();
        rc = dra_group_cycle_reference(g->ctx2, &spec, &lh, &g->cmp_arena, &rr);
        g->counts.both_ref_ns += (uint64_t)(env->clock_ns() - c0);
        if (rc)
            return rc;
        for (uint32_t i = e->pods; i-- > 0;) {
            const dra_group_member_res_t *mr = &rr.members[i];
            if (mr->kind == DRA_OUTCOME_ALLOCATED && g->members[i].bound_node == NONE &&
                (rc = h_release(&lit, i, mr->need, mr->node, mr->allocs, mr->nallocs)))
                return rc;
        }
    }
#if DRA_DEBUG >= 2
    uint32_t *dbg_bounds = NULL;
    if (!env->ref_place && (rc = check_sums(g, e, &dbg_bounds)))
        return rc;
#endif
    rg_region_t rg;
    rg_begin(env, &rg);
    rc = env->ref_place ? dra_group_cycle_reference(g->ctx, &spec, &host, in->arena, &r)
                        : dra_group_cycle_fast(g->ctx, &spec, &host, in->arena, &r);
    int64_t t0 = rg.t0, t1 = rg_end(env, h, e->mix, DRA_RG_CYCLE, true, &rg);
#if DRA_DEBUG >= 2
    if (dbg_bounds) {
        int frc = rc ? DRA_OK : check_fit(g, e, &r, dbg_bounds, "fast");
        if (!rc && !frc && env->compare)
            frc = check_fit(g, e, &rr, dbg_bounds, "literal");
        free(dbg_bounds);
        if (frc)
            return frc;
    }
#endif
    if (rc)
        return rc;
    if (r.outcome == DRA_GROUP_UNSCHEDULABLE && !env->ref_place &&
        !e->reason[r.short_kind][0]) {
        /* the words the reference would say (it looks at every placement; nothing changed:
         * the fast cycle undid everything), asked once per kind and repetition, untimed */
        if (env->compare) {
            snprintf(r.reason, sizeof r.reason, "%s", rr.reason);
        } else {
            dra_group_result_t wr;
            dra_arena_reset(&g->cmp_arena);
            rhost_t ws = {g, e, env, false, g->cmp_marena, false};
            dra_group_host_t wh = {&ws, g->m, h_answer, h_commit, h_release, h_score, h_res,
                                   NULL, NULL};
            if ((rc = dra_group_cycle_reference(g->ctx2, &spec, &wh, &g->cmp_arena, &wr)))
                return rc;
            if (wr.outcome != r.outcome) { /* a different decision: a violation below */
                differ = true;
                snprintf(why, sizeof why, "outcome %s vs %s (the reference asked for words)",
                         dra_group_outcome_name(r.outcome), dra_group_outcome_name(wr.outcome));
                for (uint32_t i = e->pods; i-- > 0;) {
                    const dra_group_member_res_t *mr = &wr.members[i];
                    if (mr->kind == DRA_OUTCOME_ALLOCATED && g->members[i].bound_node == NONE &&
                        (rc = h_release(&ws, i, mr->need, mr->node, mr->allocs, mr->nallocs)))
                        return rc;
                }
            }
            snprintf(r.reason, sizeof r.reason, "%s", wr.reason);
        }
    }
    if (env->compare) {
        differ = differ || !dra_group_result_equal(&r, &rr, e->pods, why, sizeof why);
        g->counts.both_cycles++;
        g->counts.both_fast_ns += (uint64_t)(t1 - t0);
    }
    g->counts.busy_ns += (uint64_t)(t1 - t0);
    e->cycles++;
    e->outcome[r.outcome]++;
    if (r.short_kind != DRA_SHORT_NONE) {
        e->shortk[r.short_kind]++;
        if (!e->reason[r.short_kind][0])
            snprintf(e->reason[r.short_kind], sizeof e->reason[r.short_kind], "%s", r.reason);
    }
    bool ok = r.outcome == DRA_GROUP_PLACED || r.outcome == DRA_GROUP_PARTIAL;
    /* the throughput's share (dra_rg_counts_t): a placing cycle's claims and time, or a failed
     * one's as rejection work */
    uint32_t gnew = 0; /* group claims this cycle allocated (ok) or tried (rejected) */
    for (uint32_t k = 0; k < e->ngcl; k++)
        gnew += !in->galloc[k] && (!ok || r.gclaim_alloc[k]);
    if (ok) {
        g->counts.ok_claims += r.placed + gnew;
        g->counts.placed_pods += r.placed;
        g->counts.ok_ns += (uint64_t)(t1 - t0);
    } else if (r.outcome != DRA_GROUP_WAITING) {
        g->counts.rej_claims += r.pending + gnew;
        g->counts.rej_ns += (uint64_t)(t1 - t0);
    }
    if (h->measuring) {
        int ho = ok ? DRA_HOUT_ALLOCATED : DRA_HOUT_UNSATISFIABLE;
        h->rec(h->ctx, e->mix, DRA_PHASE_CYCLE, ho, t1 - t0);
        h->rec(h->ctx, e->mix, DRA_PHASE_CYCLE, DRA_HOUT_ANY, t1 - t0);
    }
    uint32_t pending = r.pending;
    g->counts.allocated += r.placed;
    int pk = r.outcome == DRA_GROUP_ERROR ? 1 : 0;
    uint64_t left = r.outcome == DRA_GROUP_ERROR ? pending : pending - r.placed;
    if (r.outcome == DRA_GROUP_ERROR)
        g->counts.fatal += pending;
    else
        g->counts.unsatisfiable += pending - r.placed;
    if (left) {
        e->pods_short[pk] += left;
        if (!e->pods_why[pk][0])
            snprintf(e->pods_why[pk], sizeof e->pods_why[pk], "PodGroup %s (%s): %.*s",
                     dra_group_outcome_name(r.outcome), dra_group_short_name(r.short_kind),
                     (int)(sizeof e->pods_why[pk] - 64), r.reason);
    }
    if (h->measuring) /* pods tried and not placed: the group decision was their attempt */
        for (uint32_t i = 0; i < e->pods; i++)
            if (g->members[i].bound_node == NONE && r.members[i].kind != DRA_OUTCOME_ALLOCATED) {
                h->rec(h->ctx, e->mix, DRA_PHASE_POD, DRA_HOUT_UNSATISFIABLE, t1 - t0);
                h->rec(h->ctx, e->mix, DRA_PHASE_POD, DRA_HOUT_ANY, t1 - t0);
            }
    if (ok) {
        for (uint32_t i = 0; i < e->pods; i++) {
            const dra_group_member_res_t *mr = &r.members[i];
            if (g->members[i].bound_node != NONE || mr->kind != DRA_OUTCOME_ALLOCATED)
                continue;
            in->mres[i] = *mr;
            if (h->measuring) {
                h->rec(h->ctx, e->mix, DRA_PHASE_POD, DRA_HOUT_ALLOCATED, mr->search_ns + mr->commit_ns);
                h->rec(h->ctx, e->mix, DRA_PHASE_POD, DRA_HOUT_ANY, mr->search_ns + mr->commit_ns);
                h->rec(h->ctx, e->mix, DRA_PHASE_NODE_SEARCH, DRA_HOUT_ALLOCATED, mr->search_ns);
                h->rec(h->ctx, e->mix, DRA_PHASE_COMMIT, DRA_HOUT_ALLOCATED, mr->commit_ns);
            }
        }
        memcpy(in->galloc, r.gclaim_alloc, sizeof in->galloc);
        in->placed += r.placed;
        e->pods_placed += r.placed;
        *placed_any = true;
        if ((rc = check_members(g, env, h, &hs, pod, &r, e->pods)))
            return rc;
    }
    digest_result(g, h, pod, &r, e->pods);
    if (differ) {
        char msg[400];
        snprintf(msg, sizeof msg, "group decision differs from the literal reference cycle: %s",
                 why);
        h->violation(h->ctx, pod, e->name, "", msg);
    }
    return DRA_OK;
}

int dra_rgroups_arrive(dra_rgroups_t *g, const dra_rg_env_t *env, const dra_rg_hooks_t *h,
                       dra_workload_t *w, const dra_wl_event_t *ev, bool *placed)
{
    *placed = false;
    uint32_t ei = g->entry_of[ev->mix];
    rg_entry_t *e = &g->entries[ei];
    uint32_t ix = inst_get(g);
    if (ix == NONE || map_inst(g, ev->pod, ix))
        return DRA_ENOMEM;
    rg_inst_t *in = &g->insts[ix];
    in->pod = ev->pod;
    in->entry = ei;
    in->arrival = ev->time;
    in->mres = dra_arena_calloc(in->arena, e->pods, sizeof *in->mres, 8);
    if (!in->mres)
        return DRA_ENOMEM;
    for (uint32_t i = 0; i < e->pods; i++) {
        in->mres[i].node = NONE;
        in->mres[i].kind = DRA_OUTCOME_UNSATISFIABLE;
    }
    g->counts.pods += e->pods;
    g->counts.claims += e->pods + e->ngcl;
    bool any;
    int rc = run_cycle(g, env, h, ix, &any);
    if (rc)
        return rc;
    in->attempts = 1;
    bool steady = w->spec.mode == DRA_WL_STEADY;
    if (any)
        in->live = true;
    if (in->placed == e->pods) {
        dra_workload_report(w, ev->pod, true);
        *placed = true;
        return DRA_OK;
    }
    /* pods left: the group waits (steady) - it departs as one once placed */
    if (!steady) {
        dra_workload_report(w, ev->pod, any);
        *placed = any;
        return DRA_OK;
    }
    in->lifetime = dra_workload_report_wait(w, ev->pod);
    if (any) {
        *placed = true;
        if ((rc = dra_workload_depart_at(w, ev->pod, ev->mix, ev->time + in->lifetime)))
            return rc;
    }
    in->next_try = ev->time + BACKOFF_INITIAL_S;
    return queue_push(g, ix);
}

/* Retry the queue at workload time t (a pod departed): every group whose backoff expired, in
 * arrival order, once. */
static int retry(dra_rgroups_t *g, const dra_rg_env_t *env, const dra_rg_hooks_t *h,
                 dra_workload_t *w, double t)
{
    uint32_t keep = 0;
    for (uint32_t q = 0; q < g->nqueue; q++) {
        uint32_t ix = g->queue[q];
        rg_inst_t *in = &g->insts[ix];
        rg_entry_t *e = &g->entries[in->entry];
        if (in->next_try > t) {
            g->queue[keep++] = ix;
            continue;
        }
        bool any;
        e->retries++;
        int rc = run_cycle(g, env, h, ix, &any);
        if (rc)
            return rc;
        in->attempts++;
        if (any && !in->live) {
            in->live = true;
            if ((rc = dra_workload_depart_at(w, in->pod, e->mix, t + in->lifetime)))
                return rc;
        }
        if (in->placed == e->pods) {
            double wait = t - in->arrival;
            e->waited++;
            e->wait_sum += wait;
            if (wait > e->wait_max)
                e->wait_max = wait;
            in->waiting = false;
            continue;
        }
        double back = BACKOFF_INITIAL_S;
        for (uint32_t k = 1; k < in->attempts && back < BACKOFF_MAX_S; k++)
            back *= 2;
        in->next_try = t + (back < BACKOFF_MAX_S ? back : BACKOFF_MAX_S);
        g->queue[keep++] = ix;
    }
    g->nqueue = keep;
    return DRA_OK;
}

static int release_inst(dra_rgroups_t *g, const dra_rg_env_t *env, const dra_rg_hooks_t *h,
                        uint32_t ix, bool timed)
{
    rg_inst_t *in = &g->insts[ix];
    rg_entry_t *e = &g->entries[in->entry];
    rhost_t hs = {g, e, env, false, in->marena, false};
    int first = DRA_OK;
    for (uint32_t i = e->pods; i-- > 0;) {
        dra_group_member_res_t *mr = &in->mres[i];
        if (mr->kind != DRA_OUTCOME_ALLOCATED)
            continue;
        rg_region_t rg;
        rg_begin(env, &rg);
        int rc = h_release(&hs, i, mr->need, mr->node, mr->allocs, mr->nallocs);
        int64_t t0 = rg.t0, t1 = rg_end(env, h, e->mix, DRA_RG_RELEASE, timed, &rg);
        if (rc && !first)
            first = rc;
        if (timed) {
            g->counts.busy_ns += (uint64_t)(t1 - t0);
            g->counts.ok_ns += (uint64_t)(t1 - t0); /* time spent on an allocated claim */
            if (h && h->measuring)
                h->rec(h->ctx, e->mix, DRA_PHASE_RELEASE, DRA_HOUT_ANY, t1 - t0);
        }
    }
    if (in->pod < g->cap_inst_of)
        g->inst_of[in->pod] = NONE;
    inst_put(g, ix);
    return first;
}

int dra_rgroups_depart(dra_rgroups_t *g, const dra_rg_env_t *env, const dra_rg_hooks_t *h,
                       dra_workload_t *w, const dra_wl_event_t *ev, bool *was_group)
{
    *was_group = false;
    if (!g)
        return DRA_OK;
    if (ev->pod < g->cap_inst_of && g->inst_of[ev->pod] != NONE) {
        uint32_t ix = g->inst_of[ev->pod];
        *was_group = true;
        if (g->insts[ix].waiting) { /* pods of it still wait: they leave with the group */
            uint32_t keep = 0;
            for (uint32_t q = 0; q < g->nqueue; q++)
                if (g->queue[q] != ix)
                    g->queue[keep++] = g->queue[q];
            g->nqueue = keep;
        }
        int rc = release_inst(g, env, h, ix, true);
        if (rc)
            return rc;
    }
    /* a departure (any pod's) is the event that retries the queue */
    return g->nqueue ? retry(g, env, h, w, ev->time) : DRA_OK;
}

void dra_rgroups_rep_begin(dra_rgroups_t *g)
{
    memset(&g->counts, 0, sizeof g->counts);
    for (uint32_t i = 0; i < g->nentries; i++) {
        rg_entry_t *e = &g->entries[i];
        e->cycles = e->waited = e->still_waiting = e->retries = e->pods_placed = 0;
        memset(e->pods_short, 0, sizeof e->pods_short);
        memset(e->pods_why, 0, sizeof e->pods_why);
        e->wait_sum = e->wait_max = 0;
        memset(e->outcome, 0, sizeof e->outcome);
        memset(e->shortk, 0, sizeof e->shortk);
        memset(e->reason, 0, sizeof e->reason);
    }
    for (uint32_t t = 0; t < g->ntopos; t++) {
        rg_topo_t *rt = &g->topos[t];
        json_array_clear(rt->samples);
        memset(rt->sum, 0, sizeof rt->sum);
        memset(rt->last, 0, sizeof rt->last);
        rt->nsamples = 0;
    }
}

int dra_rgroups_rep_end(dra_rgroups_t *g, const dra_rg_env_t *env)
{
    for (uint32_t q = 0; q < g->nqueue; q++)
        g->entries[g->insts[g->queue[q]].entry].still_waiting++;
    g->nqueue = 0;
    int first = DRA_OK;
    for (uint32_t i = 0; i < g->ninsts; i++)
        if (g->insts[i].mres) {
            int rc = release_inst(g, env, NULL, i, false);
            if (rc && !first)
                first = rc;
        }
    free_list_reset(g);
    for (uint32_t i = 0; i < g->nentries; i++) {
        rg_entry_t *e = &g->entries[i];
        e->t_cycles += e->cycles;
        for (int k = 0; k < DRA_GROUP_OUTCOMES; k++)
            e->t_outcome[k] += e->outcome[k];
        e->t_wait_sum += e->wait_sum;
        e->t_waited += e->waited;
    }
    return first;
}

typedef struct rg_saved {
    dra_rg_counts_t counts;
    rg_entry_t entries[]; /* the entries' counters; their plans, sums and claims are the same */
} rg_saved_t;

void *dra_rgroups_save(const dra_rgroups_t *g)
{
    rg_saved_t *sv = malloc(sizeof *sv + (size_t)g->nentries * sizeof sv->entries[0]);
    if (!sv)
        return NULL;
    sv->counts = g->counts;
    if (g->nentries)
        memcpy(sv->entries, g->entries, (size_t)g->nentries * sizeof sv->entries[0]);
    return sv;
}

void dra_rgroups_restore(dra_rgroups_t *g, void *saved)
{
    rg_saved_t *sv = saved;
    if (!sv)
        return;
    g->counts = sv->counts;
    if (g->nentries)
        memcpy(g->entries, sv->entries, (size_t)g->nentries * sizeof sv->entries[0]);
    free(sv);
}

void dra_rgroups_reasons(const dra_rgroups_t *g, void *ctx,
                         void (*add)(void *ctx, uint32_t mix, int kind, uint64_t count,
                                     const char *text))
{
    for (uint32_t i = 0; i < g->nentries; i++)
        for (int k = 0; k < 2; k++)
            if (g->entries[i].pods_short[k])
                add(ctx, g->entries[i].mix, k ? DRA_OUTCOME_FATAL : DRA_OUTCOME_UNSATISFIABLE,
                    g->entries[i].pods_short[k], g->entries[i].pods_why[k]);
}

void dra_rgroups_counts(const dra_rgroups_t *g, dra_rg_counts_t *out)
{
    *out = g->counts;
}

uint64_t dra_rgroups_digest(const dra_rgroups_t *g)
{
    XXH3_state_t st;
    XXH3_64bits_reset(&st);
    uint64_t head[3] = {g->ninsts, g->nqueue, g->cap_inst_of};
    XXH3_64bits_update(&st, head, sizeof head);
    /* the free list in the order inst_get takes it (at most every instance: a cycle ends it) */
    uint32_t k = 0;
    for (uint32_t i = g->free_head; i != NONE && i < g->ninsts && k <= g->ninsts;
         i = g->insts[i].next_free, k++)
        XXH3_64bits_update(&st, &i, sizeof i);
    XXH3_64bits_update(&st, g->queue, (size_t)g->nqueue * sizeof *g->queue);
    for (uint32_t i = 0; i < g->ninsts; i++) {
        const rg_inst_t *in = &g->insts[i];
        uint64_t v[4] = {in->pod, in->entry, (uint64_t)in->live << 1 | in->waiting, in->placed};
        XXH3_64bits_update(&st, v, sizeof v);
    }
    if (g->cap_inst_of)
        XXH3_64bits_update(&st, g->inst_of, (size_t)g->cap_inst_of * sizeof *g->inst_of);
    XXH3_64bits_update(&st, g->nz_cpu, (size_t)g->m->nnodes * sizeof *g->nz_cpu);
    XXH3_64bits_update(&st, g->nz_mem, (size_t)g->m->nnodes * sizeof *g->nz_mem);
    return XXH3_64bits_digest(&st);
}

/* ---- measurements ----------------------------------------------------------------------------- */

int dra_rgroups_sample(dra_rgroups_t *g, const dra_alloc_state_t *st, double t)
{
    for (uint32_t k = 0; k < g->ntopos; k++) {
        rg_topo_t *rt = &g->topos[k];
        uint32_t nd = rt->t->ndomains;
        memset(rt->dom_used, 0, (nd ? nd : 1) * sizeof *rt->dom_used);
        for (uint32_t i = 0; i < rt->ngpus; i++) {
            const dra_device_t *d = rt->gpu_dev[i];
            unsigned fl = dra_alloc_state_row_flags(st, rt->gpu_row[i], d->slice->driver,
                                                    d->slice->pool_name, d->name);
            if (fl & DRA_STATE_IN_USE)
                rt->dom_used[rt->gpu_dom[i]]++;
        }
        double full = 0, part = 0, idle = 0, stranded = 0;
        for (uint32_t d = 0; d < nd; d++) {
            if (!rt->dom_total[d])
                continue;
            if (rt->dom_used[d] == 0)
                idle++;
            else if (rt->dom_used[d] == rt->dom_total[d])
                full++;
            else {
                part++;
                stranded += rt->dom_total[d] - rt->dom_used[d];
            }
        }
        double v[4] = {full, part, idle, stranded};
        json_t *s = json_pack("[f,f,f,f,f]", t, full, part, idle, stranded);
        if (!s || json_array_append_new(rt->samples, s))
            return DRA_ENOMEM;
        for (int x = 0; x < 4; x++) {
            rt->sum[x] += v[x];
            rt->last[x] = v[x];
        }
        rt->nsamples++;
    }
    return DRA_OK;
}

int dra_rgroups_rep_values(const dra_rgroups_t *g, void *ctx,
                           void (*add)(void *ctx, const char *name, double v, const char *unit,
                                       const char *better, bool exact))
{
    char name[256];
    for (uint32_t i = 0; i < g->nentries; i++) {
        const rg_entry_t *e = &g->entries[i];
        static const char *const oc[] = {"placed", "partial", "unschedulable", "waiting", "error"};
        for (int k = 0; k < DRA_GROUP_OUTCOMES; k++) {
            snprintf(name, sizeof name, "groups.%s.%s", e->name, oc[k]);
            add(ctx, name, (double)e->outcome[k], "count", k <= 1 ? "higher" : "lower", true);
        }
        snprintf(name, sizeof name, "groups.%s.wait_s_mean", e->name);
        add(ctx, name, e->waited ? e->wait_sum / (double)e->waited : 0, "s", "lower", true);
        snprintf(name, sizeof name, "groups.%s.still_waiting", e->name);
        add(ctx, name, (double)e->still_waiting, "count", "lower", true);
    }
    for (uint32_t k = 0; k < g->ntopos; k++) {
        const rg_topo_t *rt = &g->topos[k];
        static const char *const nm[] = {"full", "partial", "idle", "stranded_gpus"};
        for (int x = 0; x < 4; x++) {
            snprintf(name, sizeof name, "domains.%s.%s", rt->t->key, nm[x]);
            double v = rt->nsamples ? rt->sum[x] / rt->nsamples : 0;
            add(ctx, name, v, x == 3 ? "GPUs" : "count", x == 0 ? "higher" : x == 2 ? "none" : "lower",
                true);
        }
    }
    return DRA_OK;
}

void *dra_rgroups_rep_json(const dra_rgroups_t *g)
{
    json_t *o = json_object(), *ents = json_array(), *doms = json_array();
    if (!o || !ents || !doms) {
        json_decref(o);
        json_decref(ents);
        json_decref(doms);
        return NULL;
    }
    for (uint32_t i = 0; i < g->nentries; i++) {
        const rg_entry_t *e = &g->entries[i];
        json_t *je = json_object(), *reasons = json_array();
        dra_rf_put_str(je, DRA_RF_GROUPS_ENTRY_SHAPE, e->name);
        dra_rf_put_int(je, DRA_RF_GROUPS_ENTRY_PODS, e->pods);
        dra_rf_put_int(je, DRA_RF_GROUPS_ENTRY_MIN_COUNT, e->gang ? e->min_count : 1);
        dra_rf_put_str(je, DRA_RF_GROUPS_ENTRY_POLICY, e->gang ? "gang" : "basic");
        dra_rf_put_int(je, DRA_RF_GROUPS_ENTRY_CYCLES, (int64_t)e->cycles);
        dra_rf_put_int(je, DRA_RF_GROUPS_ENTRY_PLACED, (int64_t)e->outcome[DRA_GROUP_PLACED]);
        dra_rf_put_int(je, DRA_RF_GROUPS_ENTRY_PARTIAL, (int64_t)e->outcome[DRA_GROUP_PARTIAL]);
        dra_rf_put_int(je, DRA_RF_GROUPS_ENTRY_UNSCHEDULABLE,
                       (int64_t)e->outcome[DRA_GROUP_UNSCHEDULABLE]);
        dra_rf_put_int(je, DRA_RF_GROUPS_ENTRY_WAITING, (int64_t)e->outcome[DRA_GROUP_WAITING]);
        dra_rf_put_int(je, DRA_RF_GROUPS_ENTRY_ERROR, (int64_t)e->outcome[DRA_GROUP_ERROR]);
        dra_rf_put_int(je, DRA_RF_GROUPS_ENTRY_RETRIES, (int64_t)e->retries);
        dra_rf_put_int(je, DRA_RF_GROUPS_ENTRY_WAITED, (int64_t)e->waited);
        dra_rf_put_num(je, DRA_RF_GROUPS_ENTRY_WAIT_S_MEAN,
                       e->waited ? e->wait_sum / (double)e->waited : 0);
        dra_rf_put_num(je, DRA_RF_GROUPS_ENTRY_WAIT_S_MAX, e->wait_max);
        dra_rf_put_int(je, DRA_RF_GROUPS_ENTRY_STILL_WAITING, (int64_t)e->still_waiting);
        for (int k = 1; k < DRA_SHORT_COUNT; k++) {
            if (!e->shortk[k])
                continue;
            json_t *r = json_object();
            dra_rf_put_str(r, DRA_RF_GROUPS_SHORT_SHORT, dra_group_short_name((dra_group_short_t)k));
            dra_rf_put_int(r, DRA_RF_GROUPS_SHORT_COUNT, (int64_t)e->shortk[k]);
            dra_rf_put_str(r, DRA_RF_GROUPS_SHORT_REASON, e->reason[k]);
            json_array_append_new(reasons, r);
        }
        dra_rf_put(je, DRA_RF_GROUPS_ENTRY_SHORT, reasons);
        json_array_append_new(ents, je);
    }
    for (uint32_t k = 0; k < g->ntopos; k++) {
        const rg_topo_t *rt = &g->topos[k];
        json_t *jd = json_object();
        double n = rt->nsamples ? (double)rt->nsamples : 1;
        dra_rf_put_str(jd, DRA_RF_GROUPS_DOMAINS_KEY, rt->t->key);
        dra_rf_put_int(jd, DRA_RF_GROUPS_DOMAINS_TOTAL, rt->t->ndomains);
        dra_rf_put_int(jd, DRA_RF_GROUPS_DOMAINS_GPUS, rt->ngpus);
        dra_rf_put_num(jd, DRA_RF_GROUPS_DOMAINS_FULL, rt->sum[0] / n);
        dra_rf_put_num(jd, DRA_RF_GROUPS_DOMAINS_PARTIAL, rt->sum[1] / n);
        dra_rf_put_num(jd, DRA_RF_GROUPS_DOMAINS_IDLE, rt->sum[2] / n);
        dra_rf_put_num(jd, DRA_RF_GROUPS_DOMAINS_STRANDED, rt->sum[3] / n);
        dra_rf_put(jd, DRA_RF_GROUPS_DOMAINS_SAMPLES, json_incref(rt->samples));
        json_array_append_new(doms, jd);
    }
    dra_rf_put(o, DRA_RF_GROUPS_ENTRIES, ents);
    dra_rf_put(o, DRA_RF_GROUPS_DOMAINS, doms);
    return o;
}

void dra_rgroups_summary(const dra_rgroups_t *g, char *buf, size_t len)
{
    size_t u = 0;
    buf[0] = 0;
    for (uint32_t i = 0; i < g->nentries && u < len; i++) {
        const rg_entry_t *e = &g->entries[i];
        u += (size_t)snprintf(buf + u, len - u,
                              "groups %s (%u pods, %s%s): %llu cycles: %llu placed, %llu partial, "
                              "%llu unschedulable, %llu waiting, %llu error; mean wait %.3f s over "
                              "%llu queued\n",
                              e->name, e->pods, e->gang ? "gang" : "basic",
                              e->topo != NONE ? ", topology" : "",
                              (unsigned long long)e->t_cycles,
                              (unsigned long long)e->t_outcome[0],
                              (unsigned long long)e->t_outcome[1],
                              (unsigned long long)e->t_outcome[2],
                              (unsigned long long)e->t_outcome[3],
                              (unsigned long long)e->t_outcome[4],
                              e->t_waited ? e->t_wait_sum / (double)e->t_waited : 0.0,
                              (unsigned long long)e->t_waited);
    }
    for (uint32_t k = 0; k < g->ntopos && u < len; k++) {
        const rg_topo_t *rt = &g->topos[k];
        u += (size_t)snprintf(buf + u, len - u,
                              "domains %s: %u (%u GPUs); last repetition, mean of samples: %.1f "
                              "full, %.1f partly used, %.1f idle, %.1f GPUs stranded\n",
                              rt->t->key, rt->t->ndomains, rt->ngpus,
                              rt->nsamples ? rt->sum[0] / rt->nsamples : 0,
                              rt->nsamples ? rt->sum[1] / rt->nsamples : 0,
                              rt->nsamples ? rt->sum[2] / rt->nsamples : 0,
                              rt->nsamples ? rt->sum[3] / rt->nsamples : 0);
    }
}
