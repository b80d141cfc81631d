/* test_fit_bound.c - the engine's bounds for groups of pods are sound on the built-in scenarios.
 *
 * The PodGroup cycle's fast path (core/group/group_fast.c) rejects a topology domain, or a whole
 * group, without an exact call when the summed dra_engine_fit_bound of the domain's nodes is
 * below what the group needs, and trusts dra_engine_plan_certain to know that no member can end
 * in Fatal or NodeFailure there. Both are safe only if the bound never under-estimates. This test
 * checks exactly that, by saturation: for every mix entry's claim (the per-pod claim of a group
 * entry is its members' plan) and a sample of nodes, from a state reached by placing a prefix of
 * the scenario's own workload (with its departures), pods of the plan are placed on that one node
 * one after another (the engine's exact answer there, committed with the plan's node resources)
 * until one fails; the number that fit must not exceed the bound taken before the first one.
 * Where the plan is certain and the bound finite, every answer must be Allocated or
 * Unsatisfiable. Everything placed is released again: the state digest and the engine's
 * summaries (dra_engine_check) must come back.
 *
 * Scenarios: the two PodGroup scenarios (a bound per NVLink tray with a clique matchAttribute, per
 * DGX node, MIG counters), and the device shapes the bound reasons about differently: matchAttribute
 * cliques (nvl72-training), partitionable counters (mig-inference, mig-vgpu with 1.37's
 * compatibility groups), shares of multi-allocatable GPUs (gpu-sharing: unbounded, skipped), plain
 * counts (default), each under 1.36, 1.37 and 1.38-pre. The figures printed per scenario (bounds
 * checked, how many were reached exactly, unbounded) say how much the check covered.
 * DRA_FIT_BOUND_NODES=N overrides the node sample per plan and checkpoint (default 24). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "alloc/alloc.h"
#include "alloc/fast.h"
#include "check.h"
#include "engine/engine.h"
#include "gen/shapes.h"
#include "gen/workload.h"
#include "scenario.h"
#include "table/table.h"

/* A placed pod of the fill (its allocations live in its own arena until it departs). */
typedef struct fpod {
    dra_arena_t arena;
    dra_allocation_t **allocs;
    uint32_t n, node, plan;
    bool live, arena_init;
} fpod_t;

typedef struct tally {
    uint64_t checked, exact, unbounded, zero, placed;
} tally_t;

static uint32_t env_nodes(void)
{
    const char *s = getenv("DRA_FIT_BOUND_NODES");
    unsigned long v = s && *s ? strtoul(s, NULL, 10) : 0;
    return v ? (uint32_t)v : 16;
}

/* Saturation stops here (no bound of these scenarios comes near it). */
#define MAXK 128

/* Saturate node n with pods of plan p (cpu / memory: the plan's requests): how many fit, at
 * most MAXK. Each placement is committed through the engine, its allocations in arenas[k] (an
 * answer resets its arena when nothing is placed); all are released again before returning. */
static uint32_t saturate(dra_engine_t *e, const dra_model_t *m, uint32_t p, int64_t cpu,
                         int64_t mem, uint32_t n, uint32_t bound, bool certain, const char *what,
                         dra_arena_t *arenas)
{
    dra_allocation_t **placed[MAXK];
    uint32_t np[MAXK];
    uint32_t k = 0;
    for (;;) {
        dra_arena_t *arena = &arenas[k];
        dra_arena_reset(arena);
        int64_t r[4];
        dra_engine_node_resources(e, n, r);
        if ((cpu > 0 && r[0] >= 0 && r[0] - r[2] < cpu) ||
            (mem > 0 && r[1] >= 0 && r[1] - r[3] < mem))
            break; /* NodeResourcesFit: the engine's placement skips the node */
        dra_engine_result_t out;
        int rc = dra_engine_answer_on(e, p, n, arena, &out);
        CHECK_OK(rc);
        if (rc)
            break;
        if (certain && bound != DRA_ENGINE_UNBOUNDED)
            CHECK_MSG(out.kind == DRA_OUTCOME_ALLOCATED || out.kind == DRA_OUTCOME_UNSATISFIABLE,
                      "%s node %s: a certain plan with a finite bound (%u) answered %s: %s", what,
                      m->nodes[n]->name, bound, dra_outcome_name(out.kind), out.msg);
        if (out.kind != DRA_OUTCOME_ALLOCATED)
            break;
        CHECK_OK(dra_engine_commit_pod(e, p, n, out.allocations, out.n));
        placed[k] = out.allocations;
        np[k] = out.n;
        if (++k == MAXK || k > bound)
            break;
    }
    uint32_t fit = k;
    while (k-- > 0)
        CHECK_OK(dra_engine_release_pod(e, p, n, placed[k], np[k]));
    return fit;
}

/* Every plan on a sample of nodes (evenly spread, plus the first nodes the plan's summaries
 * admit, where the bound is positive): fit <= bound; the state and summaries come back. */
static void check_bounds(dra_engine_t *e, const dra_model_t *m, dra_alloc_state_t *st,
                         const dra_scenario_t *scn, dra_claim_t *const *claims,
                         const uint32_t *plans, const char *what,
                         dra_arena_t *arenas, tally_t *t)
{
    uint32_t nn = m->nnodes, sample = env_nodes();
    uint64_t before = dra_alloc_state_digest(st);
    for (uint32_t i = 0; i < scn->nmix; i++) {
        uint32_t p = plans[i];
        if (!claims[i])
            continue;
        bool certain = dra_engine_plan_certain(e, p);
        uint32_t stride = nn > sample ? nn / sample : 1;
        uint32_t next = dra_engine_next_admitted(e, p, 0);
        for (uint32_t s = 0; s < 2 * sample && nn; s++) {
            uint32_t n;
            if (s % 2 == 0) {
                n = (s / 2) * stride + (uint32_t)(i % (stride ? stride : 1));
                if (n >= nn)
                    continue;
            } else {
                if (next == DRA_ENGINE_NONE)
                    continue;
                n = next;
                next = next + 1 < nn ? dra_engine_next_admitted(e, p, next + 1) : DRA_ENGINE_NONE;
            }
            uint32_t b = dra_engine_fit_bound(e, p, n);
            if (b == DRA_ENGINE_UNBOUNDED) {
                t->unbounded++;
                continue;
            }
            uint32_t fit = saturate(e, m, p, scn->mix[i].cpu_milli, scn->mix[i].memory_bytes, n,
                                    b, certain, what, arenas);
            CHECK_MSG(fit <= b, "%s: mix entry %s on node %s: %u pods fit, the bound said %u",
                      what, claims[i]->name, m->nodes[n]->name, fit, b);
            t->checked++;
            t->exact += fit == b;
            t->zero += b == 0;
            t->placed += fit;
        }
    }
    char why[256];
    CHECK_MSG(dra_engine_check(e, why, sizeof why), "%s: %s", what, why);
    CHECK_EQ_U64(dra_alloc_state_digest(st), before);
}

/* The scenario under release rel: fill with `npods` arrivals of its workload (first-fit through
 * the engine, departures released), checking the bounds at four points on the way. */
static void scenario_rel(const char *name, dra_release_t rel, uint64_t npods)
{
    dra_diag_t d;
    dra_diag_clear(&d);
    dra_scenario_t scn;
    dra_model_t m;
    dra_scenario_built_t built;
    memset(&built, 0, sizeof built);
    dra_model_init(&m);
    dra_arena_t tarena;
    dra_arena_init(&tarena, 0);
    dra_arena_t *arena = calloc(MAXK, sizeof *arena);
    for (uint32_t i = 0; i < MAXK; i++)
        dra_arena_init(&arena[i], 0);
    int rc = dra_scenario_load_named(&scn, name, &d);
    CHECK_MSG(rc == DRA_OK, "%s: %s", name, d.msg);
    if (rc) {
        dra_model_fini(&m);
        return;
    }
    dra_alloc_features_t f;
    dra_alloc_features_init(&f, rel);
    for (uint32_t i = 0; i < scn.nfeatures; i++) {
        dra_gate_t gt; /* a gate the profile lacks (an older release) is left out, as run does */
        if (dra_alloc_gate_lookup(scn.features[i].name, &gt) && !dra_alloc_gate_stage(rel, gt).exists)
            continue;
        CHECK_OK(dra_alloc_features_set_gate(&f, scn.features[i].name, scn.features[i].on, NULL));
    }
    dra_claim_t **claims = calloc(scn.nmix + 1, sizeof *claims);
    uint32_t *plans = calloc(scn.nmix + 1, sizeof *plans);
    dra_table_t *t = NULL;
    dra_alloc_state_t *st = NULL;
    dra_cel_cache_t *cel = NULL;
    dra_anyalloc_t fa;
    memset(&fa, 0, sizeof fa);
    dra_engine_t *e = NULL;
    rc = dra_scenario_build(&scn, &m, scn.seed, &built, &d);
    CHECK_MSG(rc == DRA_OK, "%s: %s", name, d.msg);
    if (rc == DRA_OK) {
        CHECK_OK(dra_model_imply_nodes(&m));
        /* each shape's claim as run takes it: a template's instance, or the claim the
         * scheduler builds for the extended-resource shape's pod (NULL when no node takes it:
         * no bound to check, its arrivals are skipped) */
        for (uint32_t i = 0; i < scn.nmix; i++) {
            dra_scenario_claim_t sc;
            CHECK_OK(dra_scenario_shape_claim(&built, i, &m, &f, &sc, &d));
            claims[i] = sc.claim;
        }
        CHECK_OK(dra_table_build(&m, &tarena, &t, &d));
        dra_alloc_options_t ao = {0, scn.seed};
        CHECK_OK(dra_alloc_state_new(&m, &f, &st));
        CHECK_OK(dra_alloc_state_add_model_claims(st));
        CHECK_OK(dra_cel_cache_new(&cel));
        CHECK_OK(dra_anyalloc_new(DRA_ALLOC_FAST, &m, &f, st, cel, &ao, &fa));
        CHECK_OK(dra_engine_new(&m, t, &f, st, cel, &fa, NULL, &e, &d));
    }
    for (uint32_t i = 0; e && i < scn.nmix; i++) {
        plans[i] = UINT32_MAX;
        if (!claims[i])
            continue;
        CHECK_OK(dra_engine_plan(e, &claims[i], 1, &plans[i]));
        CHECK_OK(dra_engine_plan_resources(e, plans[i], scn.mix[i].cpu_milli,
                                           scn.mix[i].memory_bytes));
    }
    char what[160];
    snprintf(what, sizeof what, "%s %s", name, dra_alloc_release_name(rel));
    tally_t tl;
    memset(&tl, 0, sizeof tl);
    if (e) {
        uint64_t empty = dra_alloc_state_digest(st);
        dra_workload_spec_t spec = built.workload;
        if (spec.count > npods)
            spec.count = npods;
        dra_workload_t wl;
        CHECK_OK(dra_workload_init(&wl, &spec, scn.seed, &d));
        fpod_t *pods = calloc(spec.count + 1, sizeof *pods);
        dra_wl_event_t ev;
        uint64_t arrivals = 0, every = spec.count / 3 ? spec.count / 3 : 1;
        check_bounds(e, &m, st, &scn, claims, plans, what, arena, &tl);
        while (dra_workload_next(&wl, &ev) > 0) {
            if (ev.kind != DRA_WL_ARRIVE) {
                fpod_t *p = ev.pod < spec.count ? &pods[ev.pod] : NULL;
                if (p && p->live) {
                    CHECK_OK(dra_engine_release_pod(e, p->plan, p->node, p->allocs, p->n));
                    p->live = false;
                }
                continue;
            }
            fpod_t *p = &pods[ev.pod];
            if (!claims[ev.shape]) { /* a shape no node takes: rejected without a placement */
                dra_workload_report(&wl, ev.pod, false);
                continue;
            }
            dra_arena_init(&p->arena, 0);
            p->arena_init = true;
            dra_engine_result_t out;
            CHECK_OK(dra_engine_place(e, plans[ev.shape], DRA_ENGINE_FIRST_FIT, 0, &p->arena, &out));
            bool ok = out.kind == DRA_OUTCOME_ALLOCATED;
            if (ok) {
                CHECK_OK(dra_engine_commit_pod(e, plans[ev.shape], out.node, out.allocations, out.n));
                *p = (fpod_t){p->arena, out.allocations, out.n, out.node, plans[ev.shape], true, true};
            }
            dra_workload_report(&wl, ev.pod, ok);
            if (++arrivals % every == 0)
                check_bounds(e, &m, st, &scn, claims, plans, what, arena, &tl);
        }
        for (uint64_t i = 0; i < spec.count; i++) {
            if (pods[i].live)
                CHECK_OK(dra_engine_release_pod(e, pods[i].plan, pods[i].node, pods[i].allocs,
                                                pods[i].n));
            if (pods[i].arena_init)
                dra_arena_fini(&pods[i].arena);
        }
        CHECK_EQ_U64(dra_alloc_state_digest(st), empty);
        free(pods);
        dra_workload_fini(&wl);
        fprintf(stderr,
                "%-15s %-8s %3llu arrivals: %5llu bounds checked (%llu reached exactly, %llu zero, "
                "%llu pods placed to saturate), %llu unbounded\n",
                name, dra_alloc_release_name(rel), (unsigned long long)arrivals,
                (unsigned long long)tl.checked, (unsigned long long)tl.exact,
                (unsigned long long)tl.zero, (unsigned long long)tl.placed,
                (unsigned long long)tl.unbounded);
    }
    dra_engine_free(e);
    dra_anyalloc_free(&fa);
    if (cel)
        dra_cel_cache_free(cel);
    if (st)
        dra_alloc_state_free(st);
    free(plans);
    free(claims);
    for (uint32_t i = 0; i < MAXK; i++)
        dra_arena_fini(&arena[i]);
    free(arena);
    dra_arena_fini(&tarena);
    dra_scenario_built_fini(&built);
    dra_model_fini(&m);
    dra_scenario_fini(&scn);
}

static const dra_release_t k_rels[] = {DRA_RELEASE_1_36, DRA_RELEASE_1_37, DRA_RELEASE_1_38_PRE};

static void scenario(const char *name, uint64_t npods)
{
    for (size_t r = 0; r < sizeof k_rels / sizeof k_rels[0]; r++)
        scenario_rel(name, k_rels[r], npods);
}

static void test_nvl72_gangs(void) { scenario("nvl72-gangs", 300); }
static void test_superpod_gangs(void) { scenario("superpod-gangs", 300); }
static void test_nvl72_training(void) { scenario("nvl72-training", 60); }
static void test_mig_inference(void) { scenario("mig-inference", 60); }
static void test_mig_vgpu(void) { scenario("mig-vgpu", 60); }
static void test_gpu_sharing(void) { scenario("gpu-sharing", 60); }
static void test_default(void) { scenario("default", 60); }

int main(void)
{
    RUN(test_nvl72_gangs);
    RUN(test_superpod_gangs);
    RUN(test_nvl72_training);
    RUN(test_mig_inference);
    RUN(test_mig_vgpu);
    RUN(test_gpu_sharing);
    RUN(test_default);
    return check_summary();
}
