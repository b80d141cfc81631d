/* test_engine_scenarios.c - every built-in scenario under every placement policy and release
 * profile: the engine's decision equals the brute-force reference placement's (the fast
 * allocator on node after node, whose equality with the reference allocator is tested by
 * harness.fast.* and the conformance cases) for a prefix of the scenario's workload, pod by pod
 * (outcome, node, devices, message), with commits and departures applied through the engine
 * and each answer built in a result slot a departed pod gave back (dra_engine_place_slot);
 * the incremental summaries equal a recomputation from the state at intervals and at the end;
 * releasing everything restores the state digest.
 *
 * Prefix lengths keep each entry near a minute under ASan: brute-force best-fit and spread call
 * the allocator on every node for every pod. The small scenarios run as one ctest entry per
 * group of profiles (1.34-1.36 without an argument, then one entry per later profile, by name),
 * fleet-5k under every profile, fleet-50k first-fit and random under the default profile only
 * (the brute force of best-fit / spread visits all 50,000 nodes, each first visit gathering
 * pools from every slice, and every profile costs an engine set-up over 1.2M rows).
 * DRA_ENGINE_TEST_PODS=N overrides every prefix (longer local runs). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "alloc/alloc.h"
#include "alloc/fast.h"
#include "check.h"
#include "engine/engine.h"
#include "gen/rng.h"
#include "gen/shapes.h"
#include "gen/workload.h"
#include "scen_fx.h"
#include "table/table.h"

typedef struct pod {
    dra_arena_t arena;
    dra_allocation_t **allocs;
    uint32_t n, node, refs, plan;
    uint32_t slot;        /* its result slot (slots below), held until its release */
    dra_engine_rec_t rec; /* release record (odd pods; the caller's memory, held from the
                           * commit to the release), else released by the allocations */
    bool live, arena_init;
} pod_t;

/* Release a placed pod: by its release record when it has one, else by its allocations. */
static int release_pod(dra_engine_t *e, pod_t *p)
{
    bool by_rec = dra_engine_rec_held(&p->rec);
    int rc = by_rec ? dra_engine_release_record(e, &p->rec)
                    : dra_engine_release_pod(e, p->plan, p->node, p->allocs, p->n);
    if (rc == DRA_OK && dra_engine_rec_held(&p->rec)) /* a release takes its record back */
        rc = DRA_EINTERNAL;
    return rc;
}

static uint64_t env_pods(uint64_t dflt)
{
    const char *s = getenv("DRA_ENGINE_TEST_PODS");
    return s && *s ? strtoull(s, NULL, 10) : dflt;
}

static const char *nname(const dra_model_t *m, uint32_t n)
{
    return n < m->nnodes ? m->nodes[n]->name : "-";
}

static bool same(const dra_model_t *m, const dra_engine_result_t *a, const dra_engine_result_t *b,
                 char *why, size_t len)
{
    if (a->kind != b->kind || a->node != b->node) {
        snprintf(why, len, "engine %s on %s, reference %s on %s", dra_outcome_name(a->kind),
                 nname(m, a->node), dra_outcome_name(b->kind), nname(m, b->node));
        return false;
    }
    if (a->kind != DRA_OUTCOME_ALLOCATED) {
        if (a->kind != DRA_OUTCOME_UNSATISFIABLE && strcmp(a->msg, b->msg)) {
            snprintf(why, len, "messages: '%.100s' vs '%.100s'", a->msg, b->msg);
            return false;
        }
        return true;
    }
    for (uint32_t i = 0; i < a->n; i++) {
        if (a->allocations[i]->nresults != b->allocations[i]->nresults) {
            snprintf(why, len, "claim %u: %u vs %u devices", i, a->allocations[i]->nresults,
                     b->allocations[i]->nresults);
            return false;
        }
        for (uint32_t j = 0; j < a->allocations[i]->nresults; j++) {
            const dra_result_t *x = &a->allocations[i]->results[j], *y = &b->allocations[i]->results[j];
            if (strcmp(x->pool, y->pool) || strcmp(x->device, y->device) ||
                strcmp(x->driver, y->driver) || strcmp(x->request, y->request)) {
                snprintf(why, len, "result %u: %.60s/%.60s vs %.60s/%.60s", j, x->pool, x->device,
                         y->pool, y->device);
                return false;
            }
        }
    }
    return true;
}

typedef struct world {
    scen_fx_t x; /* the scenario, its model and workload */
    dra_claim_t **claims;
    dra_arena_t tarena;
    dra_table_t *t;
    bool ok;
} world_t;

static bool world_init(world_t *w, const char *name)
{
    memset(w, 0, sizeof *w);
    dra_arena_init(&w->tarena, 0);
    if (!scen_fx_load(&w->x, name))
        return false;
    dra_diag_t d;
    dra_diag_clear(&d);
    w->claims = calloc(w->x.scn.nmix + 1, sizeof *w->claims); /* per release: rig_init */
    CHECK_OK(dra_table_build(&w->x.m, &w->tarena, &w->t, &d));
    w->ok = true;
    return true;
}

static void world_fini(world_t *w)
{
    free(w->claims);
    dra_arena_fini(&w->tarena);
    scen_fx_fini(&w->x);
}

typedef struct rig {
    dra_alloc_features_t f;
    dra_alloc_state_t *st;
    dra_cel_cache_t *cel;
    dra_anyalloc_t fa, ba;
    dra_engine_t *e;
    uint32_t *plans;
    uint64_t empty;
} rig_t;

/* A gate turned off over the scenario's own features (NULL: none). */
static const char *g_gate_off;

/* One release: state, allocators (the engine's and the brute force's) and engine shared by the
 * policies run on it one after the other (each ends with everything released). */
static bool rig_init(rig_t *g, world_t *w, dra_release_t rel)
{
    memset(g, 0, sizeof *g);
    /* a 1.37 scenario under an older profile: its new gates do not exist */
    scen_fx_features(&w->x, rel, true, &g->f);
    if (g_gate_off)
        CHECK_OK(dra_alloc_features_set_gate(&g->f, g_gate_off, false, NULL));
    dra_alloc_options_t ao = {0, w->x.scn.seed};
    dra_diag_t d;
    dra_diag_clear(&d);
    g->st = scen_fx_state(&w->x, &g->f, &g->empty);
    CHECK_OK(dra_cel_cache_new(&g->cel));
    CHECK_OK(dra_anyalloc_new(DRA_ALLOC_FAST, &w->x.m, &g->f, g->st, g->cel, &ao, &g->fa));
    CHECK_OK(dra_anyalloc_new(DRA_ALLOC_FAST, &w->x.m, &g->f, g->st, g->cel, &ao, &g->ba));
    CHECK_OK(dra_engine_new(&w->x.m, w->t, &g->f, g->st, g->cel, &g->fa, NULL, &g->e, &d));
    g->plans = calloc(w->x.scn.nmix + 1, sizeof *g->plans);
    for (uint32_t i = 0; g->e && i < w->x.scn.nmix; i++) {
        /* the shape's claim under this release (an extended-resource pod's depends on the
         * DRAExtendedResource gate; without a claim its pods are unschedulable: no plan) */
        w->claims[i] = scen_fx_claim(&w->x, i, &g->f);
        g->plans[i] = UINT32_MAX;
        if (w->claims[i])
            CHECK_OK(dra_engine_plan(g->e, &w->claims[i], 1, &g->plans[i]));
    }
    return g->e != NULL;
}

static void rig_fini(rig_t *g)
{
    free(g->plans);
    dra_engine_free(g->e);
    dra_anyalloc_free(&g->fa);
    dra_anyalloc_free(&g->ba);
    if (g->cel)
        dra_cel_cache_free(g->cel);
    if (g->st)
        dra_alloc_state_free(g->st);
}

static void run_one(world_t *w, rig_t *g, const char *name, dra_release_t rel,
                    dra_engine_policy_t pol, uint64_t npods)
{
    dra_engine_t *e = g->e;
    dra_anyalloc_t *ba = &g->ba;
    uint32_t *plans = g->plans;
    dra_alloc_state_t *st = g->st;
    uint64_t empty = g->empty;
    dra_diag_t d;
    dra_diag_clear(&d);
    dra_workload_spec_t spec = w->x.built.workload;
    if (spec.count > npods)
        spec.count = npods;
    dra_workload_t wl;
    CHECK_OK(dra_workload_init(&wl, &spec, w->x.scn.seed, &d));
    dra_rng_t rng;
    dra_rng_seed(&rng, w->x.scn.seed, DRA_STREAM_PLACEMENT);
    pod_t *pods = calloc(spec.count + 1, sizeof *pods);
    uint64_t nrec = 0;
    uint32_t *claim_pod = NULL;
    uint64_t nclaim_pod = 0;
    dra_arena_t refa;
    dra_arena_init(&refa, 0);
    /* result slots as the runner keeps them: taken at arrival, given back at release, so a
     * slot holds one pod's answer after another (dra_engine_place_slot's templates) */
    size_t sbytes = e ? dra_engine_slot_bytes(e) : 0;
    dra_engine_slot_t *slots = calloc(spec.count + 1, sizeof *slots);
    uint32_t *sfree = calloc(spec.count + 1, sizeof *sfree), nsfree = 0, nslots = 0;
    dra_wl_event_t ev;
    uint64_t arrivals = 0, mismatches = 0;
    char why[512] = "";
    /* the MIG scenarios (counters of partitionable devices) are checked after every commit
     * and release under first-fit in releases 1.36 and 1.37 (1.37: compatibility groups), the
     * others (and other policies and releases) every 16 arrivals */
    bool every = strncmp(name, "mig-", 4) == 0 && pol == DRA_ENGINE_FIRST_FIT &&
                 (rel == DRA_RELEASE_1_36 || rel == DRA_RELEASE_1_37);
    while (e && dra_workload_next(&wl, &ev) > 0 && mismatches == 0) {
        if (ev.kind != DRA_WL_ARRIVE) {
            if (ev.pod >= spec.count || !pods[ev.pod].live)
                continue;
            pod_t *p = &pods[ev.pod];
            p->live = false;
            pod_t *owner = p->allocs ? p : NULL;
            if (!owner && ev.claim != UINT64_MAX && ev.claim < nclaim_pod &&
                claim_pod[ev.claim] != UINT32_MAX)
                owner = &pods[claim_pod[ev.claim]];
            if (owner && --owner->refs == 0) {
                CHECK_OK(release_pod(e, owner));
                /* partitionable devices: a release refunds counters, and every sibling row
                 * whose fit that flips must be refreshed; checked after every one */
                if (every)
                    CHECK_MSG(dra_engine_check(e, why, sizeof why), "%s release of pod %llu: %s",
                              name, (unsigned long long)(owner - pods), why);
                owner->allocs = NULL;
                sfree[nsfree++] = owner->slot;
                if (ev.claim != UINT64_MAX && ev.claim < nclaim_pod)
                    claim_pod[ev.claim] = UINT32_MAX;
            }
            continue;
        }
        arrivals++;
        pod_t *p = &pods[ev.pod];
        if (ev.claim != UINT64_MAX) {
            if (ev.claim >= nclaim_pod) {
                uint64_t nn = (ev.claim + 1) * 2;
                claim_pod = realloc(claim_pod, nn * sizeof *claim_pod);
                for (uint64_t i = nclaim_pod; i < nn; i++)
                    claim_pod[i] = UINT32_MAX;
                nclaim_pod = nn;
            }
            if (claim_pod[ev.claim] != UINT32_MAX) {
                pods[claim_pod[ev.claim]].refs++;
                p->live = true;
                dra_workload_report(&wl, ev.pod, true);
                continue;
            }
        }
        if (plans[ev.shape] == UINT32_MAX) { /* unschedulable everywhere (runner.c too) */
            dra_workload_report(&wl, ev.pod, false);
            continue;
        }
        uint32_t start = pol == DRA_ENGINE_RANDOM && w->x.m.nnodes
                             ? (uint32_t)dra_rng_below(&rng, w->x.m.nnodes) : 0;
        dra_arena_init(&p->arena, 0);
        p->arena_init = true;
        dra_arena_reset(&refa);
        dra_engine_result_t a, b;
        if (!nsfree) {
            slots[nslots] = (dra_engine_slot_t){
                .mem = sbytes ? aligned_alloc(64, (sbytes + 63) & ~(size_t)63) : NULL,
                .cap = sbytes};
            sfree[nsfree++] = nslots++;
        }
        p->slot = sfree[--nsfree];
        CHECK_OK(dra_engine_place_slot(e, plans[ev.shape], pol, start, &slots[p->slot], &p->arena,
                                       &a));
        CHECK_OK(dra_engine_place_reference(e, ba, plans[ev.shape], pol, start, &refa, &b));
        if (!same(&w->x.m, &a, &b, why, sizeof why)) {
            mismatches++;
            CHECK_MSG(false, "%s release %d policy %d pod %llu (%s): %s", name, (int)rel, (int)pol,
                      (unsigned long long)ev.pod, w->claims[ev.shape]->name, why);
        }
        bool ok = a.kind == DRA_OUTCOME_ALLOCATED;
        if (ok) {
            /* odd pods keep a release record (released by it), even ones do not:
             * both releases, interleaved, must leave the same summaries and state */
            p->plan = plans[ev.shape];
            if (ev.pod & 1)
                CHECK_OK(dra_engine_commit_pod_rec(e, p->plan, a.node, a.allocations, a.n,
                                                   &p->rec));
            else
                CHECK_OK(dra_engine_commit_pod(e, p->plan, a.node, a.allocations, a.n));
            nrec += dra_engine_rec_held(&p->rec);
            p->allocs = a.allocations;
            p->n = a.n;
            p->node = a.node;
            p->refs = 1;
            p->live = true;
            if (ev.claim != UINT64_MAX)
                claim_pod[ev.claim] = (uint32_t)ev.pod;
        } else {
            sfree[nsfree++] = p->slot;
        }
        dra_workload_report(&wl, ev.pod, ok);
        if (arrivals % 16 == 0 || (every && ok)) {
            CHECK_MSG(dra_engine_check(e, why, sizeof why), "%s pod %llu: %s", name,
                      (unsigned long long)ev.pod, why);
        }
    }
    for (uint64_t i = 0; i < spec.count; i++)
        if (pods[i].allocs) {
            CHECK_OK(release_pod(e, &pods[i]));
            pods[i].allocs = NULL;
        }
    if (e) {
        CHECK_MSG(dra_engine_check(e, why, sizeof why), "%s at the end: %s", name, why);
        CHECK_EQ_U64(dra_alloc_state_digest(st), empty);
        CHECK_EQ_U64(dra_engine_records_held(e), 0);
        dra_engine_info_t info;
        dra_engine_get_info(e, &info);
        fprintf(stderr,
                "%-15s %s %-9s %3llu arrivals (engine totals: index %llu, reject %llu, brute "
                "%llu); %u signatures (%u lowered, %u interpreted selectors), %u hazard nodes; "
                "%llu released by record\n",
                name, dra_alloc_release_name(rel),
                pol == DRA_ENGINE_FIRST_FIT  ? "first-fit"
                : pol == DRA_ENGINE_BEST_FIT ? "best-fit"
                : pol == DRA_ENGINE_SPREAD   ? "spread"
                                             : "random",
                (unsigned long long)arrivals, (unsigned long long)info.placements[0],
                (unsigned long long)info.placements[1], (unsigned long long)info.placements[2],
                info.nsigs, info.nlowered, info.ninterpreted, info.nhazard,
                (unsigned long long)nrec);
    }
    for (uint64_t i = 0; i < spec.count; i++)
        if (pods[i].arena_init)
            dra_arena_fini(&pods[i].arena);
    for (uint32_t i = 0; i < nslots; i++)
        free(slots[i].mem);
    free(slots);
    free(sfree);
    free(pods);
    free(claim_pod);
    dra_arena_fini(&refa);
    dra_workload_fini(&wl);
}

/* The profiles this process runs (main sets them from its arguments). */
static dra_release_t g_rels[DRA_RELEASE_COUNT] = {DRA_RELEASE_1_34, DRA_RELEASE_1_35,
                                                  DRA_RELEASE_1_36};
static size_t g_nrels = 3;

static void scenario_rels(const char *name, uint64_t pods_ff, uint64_t pods_best, bool best,
                          const dra_release_t *rels, size_t nrels)
{
    world_t w;
    if (!world_init(&w, name) || !w.ok) {
        world_fini(&w);
        return;
    }
    for (size_t r = 0; r < nrels; r++) {
        rig_t g;
        if (rig_init(&g, &w, rels[r]))
            for (int pol = 0; pol < 4; pol++) {
                bool b = pol == DRA_ENGINE_BEST_FIT || pol == DRA_ENGINE_SPREAD;
                if (b && !best)
                    continue;
                run_one(&w, &g, name, rels[r], (dra_engine_policy_t)pol,
                        env_pods(b ? pods_best : pods_ff));
            }
        rig_fini(&g);
    }
    world_fini(&w);
}

static void scenario(const char *name, uint64_t pods_ff, uint64_t pods_best, bool best)
{
    scenario_rels(name, pods_ff, pods_best, best, g_rels, g_nrels);
}

static void test_default(void) { scenario("default", 40, 8, true); }
static void test_sched_perf_500(void) { scenario("sched-perf-500", 60, 8, true); }
static void test_nvl72(void) { scenario("nvl72-training", 40, 8, true); }
static void test_mig_inference(void) { scenario("mig-inference", 30, 4, true); }
static void test_gpu_sharing(void) { scenario("gpu-sharing", 60, 4, true); }
static void test_unsat_storm(void) { scenario("unsat-storm", 30, 6, true); }
static void test_mig_vgpu(void) { scenario("mig-vgpu", 40, 6, true); }
/* mig-vgpu with DRADeviceCompatibilityGroups off (1.37+): 1.37 skips the grouped devices (only
 * whole GPUs are placed), 1.38-pre leaves every node's device slice out of its pool (every pool
 * incomplete, every node a hazard node, nothing placed) */
static void test_mig_vgpu_gate_off(void)
{
    g_gate_off = "DRADeviceCompatibilityGroups";
    scenario("mig-vgpu", 40, 6, true);
    g_gate_off = NULL;
}
static void test_fleet_5k(void) { scenario("fleet-5k", 30, 3, true); }
/* fleet-50k: the default profile only (each profile costs an engine set-up over 1.2M rows,
 * minutes under ASan); the other profiles are covered on the same node profiles by fleet-5k */
static void test_fleet_50k(void)
{
    static const dra_release_t dflt[] = {DRA_RELEASE_DEFAULT};
    scenario_rels("fleet-50k", 8, 0, false, dflt, 1);
}

/* No argument: the small built-in scenarios under 1.34-1.36. A profile name ("1.37",
 * "1.38-pre"): the small scenarios under that profile, and mig-vgpu with its gate off. "fleet-5k": fleet-5k under every profile;
 * "fleet-50k": fleet-50k (separate ctest entries, harness/tests/engine.cmake, so they run in
 * parallel with the rest). */
int main(int argc, char **argv)
{
    dra_release_t one;
    dra_diag_t d;
    if (argc > 1 && strcmp(argv[1], "fleet-5k") == 0) {
        for (size_t i = 0; i < DRA_RELEASE_COUNT; i++)
            g_rels[i] = dra_alloc_releases[i];
        g_nrels = DRA_RELEASE_COUNT;
        RUN(test_fleet_5k);
    } else if (argc > 1 && strcmp(argv[1], "fleet-50k") == 0) {
        RUN(test_fleet_50k);
    } else if (argc > 1 && dra_alloc_release_parse(argv[1], &one, &d) != DRA_OK) {
        fprintf(stderr, "usage: %s [fleet-5k | fleet-50k | RELEASE]: %s\n", argv[0], d.msg);
        return 2;
    } else {
        if (argc > 1) {
            g_rels[0] = one;
            g_nrels = 1;
        }
        RUN(test_default);
        RUN(test_sched_perf_500);
        RUN(test_nvl72);
        RUN(test_mig_inference);
        RUN(test_gpu_sharing);
        RUN(test_unsat_storm);
        RUN(test_mig_vgpu);
        if (g_nrels == 1 && g_rels[0] >= DRA_RELEASE_1_37)
            RUN(test_mig_vgpu_gate_off);
    }
    return check_summary();
}
