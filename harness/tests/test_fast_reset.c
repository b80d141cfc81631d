/* test_fast_reset.c - dra_fast_reset puts the fast allocator back as dra_fast_new left it: on a
 * built-in scenario's cluster, a pass of placements (the workload's first arrivals, each on the
 * first node that takes it, committed to the state; then everything released) made by an
 * allocator that was used and reset decides exactly as the first pass did and counts the same
 * stats (allocateOne calls, CEL evaluations, candidates, pools, paths), and so does a new
 * allocator. A pass made again without the reset counts less (its caches are warm): the
 * comparison sees what a reset that left something behind would change. dra_fast_save's
 * caches come back with every reset, and no longer after a slice's rows were forgotten. The
 * row hints' view (dra_fast_hints) names the mirror's columns after dra_fast_new and every
 * reset, and its shortcuts flag (dra_fast_shortcuts, in line) follows the pruning and path
 * switches. Scenarios with
 * partitionable devices (mig-inference, mig-vgpu: counter columns), shared consumable
 * capacity (gpu-sharing: shares, capacity fits) and plain GPUs (default). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "alloc/alloc.h"
#include "alloc/fast.h"
#include "alloc/fast_tests.h"
#include "check.h"
#include "gen/shapes.h"
#include "gen/workload.h"
#include "scen_fx.h"
#include "xxhash.h"

typedef struct pass {
    uint64_t digest; /* outcome kind, node and every result (device, shareID) of every pod */
    dra_alloc_stats_t st; /* summed over every call (path: sum of the paths' numbers) */
    uint64_t calls, allocated;
} pass_t;

typedef struct world {
    scen_fx_t x; /* the scenario, its model and workload */
    dra_alloc_features_t f;
    dra_alloc_state_t *st;
    dra_cel_cache_t *cel;
    dra_claim_t **claims;
    uint64_t empty;
} world_t;

/* The scenario's cluster under the default release with the scenario's gates (each must exist
 * there), an empty state, a CEL cache and every shape's claim. */
static bool world_init(world_t *w, const char *name)
{
    memset(w, 0, sizeof *w);
    if (!scen_fx_load(&w->x, name))
        return false;
    scen_fx_features(&w->x, DRA_RELEASE_DEFAULT, false, &w->f);
    w->st = scen_fx_state(&w->x, &w->f, &w->empty);
    CHECK_OK(dra_cel_cache_new(&w->cel));
    w->claims = calloc(w->x.scn.nmix + 1, sizeof *w->claims);
    for (uint32_t i = 0; w->claims && i < w->x.scn.nmix; i++)
        w->claims[i] = scen_fx_claim(&w->x, i, &w->f);
    return w->st && w->cel && w->claims;
}

static void world_fini(world_t *w)
{
    free(w->claims);
    if (w->cel)
        dra_cel_cache_free(w->cel);
    if (w->st)
        dra_alloc_state_free(w->st);
    scen_fx_fini(&w->x);
}

static void hash_str(XXH3_state_t *h, const char *s)
{
    XXH3_64bits_update(h, s ? s : "", s ? strlen(s) + 1 : 1);
}

/* The first npods arrivals of the workload, each tried on the nodes in order until one takes
 * it (committed), then everything released: the state is empty again. */
static pass_t run_pass(world_t *w, dra_fast_t *a, uint64_t npods)
{
    pass_t p;
    memset(&p, 0, sizeof p);
    dra_diag_t d;
    dra_diag_clear(&d);
    dra_workload_spec_t spec = w->x.built.workload;
    if (spec.count > npods)
        spec.count = npods;
    dra_workload_t wl;
    CHECK_OK(dra_workload_init(&wl, &spec, w->x.scn.seed, &d));
    dra_arena_t ar;
    dra_arena_init(&ar, 0);
    dra_allocation_t **held = calloc(spec.count * 4 + 4, sizeof *held);
    uint64_t nheld = 0;
    XXH3_state_t *h = XXH3_createState();
    XXH3_64bits_reset(h);
    dra_wl_event_t ev;
    while (dra_workload_next(&wl, &ev) > 0) {
        if (ev.kind != DRA_WL_ARRIVE)
            continue;
        dra_claim_t *cl[1] = {ev.shape < w->x.scn.nmix ? w->claims[ev.shape] : NULL};
        bool ok = false;
        for (uint32_t n = 0; cl[0] && n < w->x.m.nnodes && !ok; n++) {
            dra_alloc_outcome_t o;
            CHECK_OK(dra_fast_allocate(a, w->x.m.nodes[n], cl, 1, &ar, &o));
            p.calls++;
            p.st.allocate_one += o.stats.allocate_one;
            p.st.cel_evals += o.stats.cel_evals;
            p.st.candidates += o.stats.candidates;
            p.st.pools += o.stats.pools;
            p.st.path += o.stats.path;
            XXH3_64bits_update(h, &o.kind, sizeof o.kind);
            if (o.kind != DRA_OUTCOME_ALLOCATED)
                continue;
            ok = true;
            p.allocated++;
            XXH3_64bits_update(h, &n, sizeof n);
            for (uint32_t k = 0; k < o.n; k++) {
                const dra_allocation_t *al = o.allocations[k];
                for (uint32_t r = 0; r < al->nresults; r++) {
                    hash_str(h, al->results[r].driver);
                    hash_str(h, al->results[r].pool);
                    hash_str(h, al->results[r].device);
                    hash_str(h, al->results[r].share_id);
                }
                CHECK_OK(dra_alloc_state_commit(w->st, al));
                held[nheld++] = o.allocations[k];
            }
        }
        dra_workload_report(&wl, ev.pod, ok);
    }
    for (uint64_t i = nheld; i-- > 0;)
        CHECK_OK(dra_alloc_state_release(w->st, held[i]));
    CHECK_EQ_U64(dra_alloc_state_digest(w->st), w->empty);
    p.digest = XXH3_64bits_digest(h);
    XXH3_freeState(h);
    free(held);
    dra_arena_fini(&ar);
    dra_workload_fini(&wl);
    return p;
}

static bool pass_same(const pass_t *x, const pass_t *y)
{
    return x->digest == y->digest && x->calls == y->calls && x->allocated == y->allocated &&
           x->st.allocate_one == y->st.allocate_one && x->st.cel_evals == y->st.cel_evals &&
           x->st.candidates == y->st.candidates && x->st.pools == y->st.pools &&
           x->st.path == y->st.path;
}

static void show(const char *name, const char *what, const pass_t *p)
{
    fprintf(stderr,
            "%-14s %-13s %llu calls, %llu allocated, digest %016llx: allocateOne %llu, CEL %llu, "
            "candidates %llu, pools %llu\n",
            name, what, (unsigned long long)p->calls, (unsigned long long)p->allocated,
            (unsigned long long)p->digest, (unsigned long long)p->st.allocate_one,
            (unsigned long long)p->st.cel_evals, (unsigned long long)p->st.candidates,
            (unsigned long long)p->st.pools);
}

static void scenario(const char *name, uint64_t npods)
{
    world_t w;
    if (!world_init(&w, name)) {
        world_fini(&w);
        return;
    }
    dra_alloc_options_t ao = {0, w.x.scn.seed};
    dra_fast_t *a = NULL, *b = NULL;
    CHECK_OK(dra_fast_new(&w.x.m, &w.f, w.st, w.cel, &ao, &a));
    /* the engine's row hints name the mirror's columns (the state was made for this model) */
    CHECK(dra_fast_hints_ok(a) && dra_fast_hints(a)->nrows > 0);
    /* the shortcuts flag follows each switch (the engine answers directly only when set) */
    CHECK(dra_fast_shortcuts(a));
    dra_fast_set_paths(a, false);
    CHECK(!dra_fast_shortcuts(a) && dra_fast_hints_ok(a));
    dra_fast_set_paths(a, true);
    CHECK(dra_fast_shortcuts(a) && dra_fast_hints_ok(a));
    dra_fast_set_pruning(a, false);
    CHECK(!dra_fast_shortcuts(a) && dra_fast_hints_ok(a));
    dra_fast_set_pruning(a, true);
    CHECK(dra_fast_shortcuts(a) && dra_fast_hints_ok(a));
    pass_t first = run_pass(&w, a, npods);
    show(name, "new", &first);
    CHECK_MSG(first.allocated > 0, "%s: nothing allocated", name);
    /* without a reset the caches (layouts, selector results, mirror, counter columns) are
     * warm: the stats differ, which is what the comparisons below would see of a reset that
     * kept any of them */
    pass_t warm = run_pass(&w, a, npods);
    show(name, "no reset", &warm);
    CHECK_EQ_U64(warm.digest, first.digest);
    CHECK_MSG(!pass_same(&warm, &first), "%s: a warm allocator counts what a new one does", name);
    dra_fast_reset(a);
    CHECK(dra_fast_hints_ok(a));
    pass_t again = run_pass(&w, a, npods);
    show(name, "reset", &again);
    CHECK_MSG(pass_same(&again, &first), "%s: the reset allocator differs from the new one", name);
    /* twice more: a reset after a reset, and a new allocator beside the reset one */
    dra_fast_reset(a);
    dra_fast_reset(a);
    pass_t twice = run_pass(&w, a, npods);
    CHECK_MSG(pass_same(&twice, &first), "%s: reset twice differs", name);
    CHECK_OK(dra_fast_new(&w.x.m, &w.f, w.st, w.cel, &ao, &b));
    pass_t fresh = run_pass(&w, b, npods);
    show(name, "other new", &fresh);
    CHECK_MSG(pass_same(&fresh, &first), "%s: a second new allocator differs", name);
    /* dra_anyalloc_reset: the fast allocator is reset in place (the same object), the
     * reference one made anew */
    dra_anyalloc_t any = {DRA_ALLOC_FAST, NULL, b};
    CHECK_OK(dra_anyalloc_reset(&any, &w.x.m, &w.f, w.st, w.cel, &ao));
    CHECK(any.fast == b);
    CHECK(dra_fast_hints_ok(any.fast));
    pass_t viaany = run_pass(&w, any.fast, npods);
    CHECK_MSG(pass_same(&viaany, &first), "%s: dra_anyalloc_reset differs", name);
    /* dra_fast_save: the caches as they are (warm) put back by every reset; forgotten with
     * a slice's rows (dra_fast_invalidate_slice), after which a reset starts them empty */
    CHECK_OK(dra_fast_save(a));
    dra_fast_reset(a);
    pass_t saved = run_pass(&w, a, npods);
    show(name, "saved, reset", &saved);
    CHECK_EQ_U64(saved.digest, first.digest);
    CHECK_EQ_U64(saved.st.cel_evals, 0);
    CHECK_EQ_U64(saved.st.candidates, first.st.candidates);
    CHECK_EQ_U64(saved.calls, first.calls);
    dra_fast_reset(a);
    pass_t saved2 = run_pass(&w, a, npods);
    CHECK_MSG(pass_same(&saved2, &saved), "%s: the saved caches differ on the second reset", name);
    CHECK_OK(dra_fast_invalidate_slice(a, 0, NULL));
    dra_fast_reset(a);
    pass_t dropped = run_pass(&w, a, npods);
    CHECK_MSG(pass_same(&dropped, &first), "%s: caches saved before a slice update came back",
              name);
    dra_anyalloc_t ref;
    CHECK_OK(dra_anyalloc_new(DRA_ALLOC_REFERENCE, &w.x.m, &w.f, w.st, w.cel, &ao, &ref));
    CHECK_OK(dra_anyalloc_reset(&ref, &w.x.m, &w.f, w.st, w.cel, &ao));
    CHECK(ref.kind == DRA_ALLOC_REFERENCE && ref.ref != NULL && ref.fast == NULL);
    dra_anyalloc_free(&ref);
    dra_fast_free(a);
    dra_fast_free(b);
    world_fini(&w);
}

static void test_default(void) { scenario("default", 120); }
static void test_mig_inference(void) { scenario("mig-inference", 60); }
static void test_mig_vgpu(void) { scenario("mig-vgpu", 40); }
static void test_gpu_sharing(void) { scenario("gpu-sharing", 120); }

int main(void)
{
    RUN(test_default);
    RUN(test_mig_inference);
    RUN(test_mig_vgpu);
    RUN(test_gpu_sharing);
    return check_summary();
}
