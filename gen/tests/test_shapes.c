/* test_shapes.c - every claim shape is satisfiable on an empty node of its intended profile with
 * the reference allocator, and the allocation passes the invariant checker; the unsatisfiable
 * shapes of unsat-storm are reported unsatisfiable. Skips (77) only when the allocator library
 * was absent at configure time (DRA_HAVE_ALLOC unset by gen/tests/gen.cmake). */
#include <string.h>

#include "check.h"
#include "gen/cluster.h"
#include "gen/shapes.h"

#ifdef DRA_HAVE_ALLOC
#include "alloc/alloc.h"
#include "alloc/invariants.h"
#include "cel/cel.h"
#include "extres/extres.h"

static dra_outcome_t run_shape(const dra_shape_spec_t *sp, dra_gen_profile_t prof, uint32_t *violations)
{
    dra_model_t m;
    dra_model_init(&m);
    dra_gen_group_t g;
    memset(&g, 0, sizeof g);
    g.profile = prof;
    g.count = 1;
    dra_gen_params_default(prof, &g.params);
    dra_gen_cluster_spec_t spec = {&g, 1};
    dra_diag_t d;
    CHECK_OK(dra_gen_cluster_build(&m, &spec, 1, NULL, &d));
    dra_claim_t *t = NULL, *c = NULL;
    dra_alloc_features_t f;
    dra_alloc_features_init(&f, DRA_RELEASE_1_36);
    CHECK_OK(dra_alloc_features_set_gate(&f, "DRAAdminAccess", true, &d));
    CHECK_OK(dra_alloc_features_set_gate(&f, "DRAPrioritizedList", true, &d));
    CHECK_OK(dra_alloc_features_set_gate(&f, "DRAPartitionableDevices", true, &d));
    CHECK_OK(dra_alloc_features_set_gate(&f, "DRAConsumableCapacity", true, &d));
    if (sp->kind == DRA_SHAPE_EXTENDED) {
        /* a pod shape: the claim the scheduler builds for its container limits */
        dra_pod_t *pod = NULL;
        dra_extres_map_t map;
        dra_pod_req_t req;
        dra_extres_fit_t fit;
        memset(&fit, 0, sizeof fit);
        CHECK_OK(dra_shape_build_pod(&m, sp, &pod, &d));
        CHECK(dra_shape_build(&m, sp, &t, &d) == DRA_EINVAL); /* not a claim template */
        CHECK_OK(dra_extres_map_build(&m, &f, &map));
        CHECK_OK(dra_extres_pod(pod, &m.arena, &req));
        CHECK_OK(dra_extres_fit(&map, &f, pod, pod->name, &req, false, m.nodes[0], NULL, &m.arena,
                                &fit));
        dra_extres_map_free(&map);
        CHECK(fit.fits && fit.claim && fit.claim->nrequests == 1);
        c = t = fit.claim;
    } else {
        CHECK_OK(dra_shape_build(&m, sp, &t, &d));
        CHECK_OK(dra_shape_instantiate(&m, t, "claim-0", &c));
    }
    dra_alloc_state_t *st = NULL;
    dra_cel_cache_t *cel = NULL;
    dra_allocator_t *a = NULL;
    CHECK_OK(dra_alloc_state_new(&m, &f, &st));
    CHECK_OK(dra_cel_cache_new(&cel));
    CHECK_OK(dra_alloc_new(&m, &f, st, cel, NULL, &a));
    dra_arena_t out;
    dra_arena_init(&out, 0);
    dra_alloc_outcome_t oc;
    memset(&oc, 0, sizeof oc);
    dra_claim_t *claims[1] = {c};
    CHECK_OK(dra_alloc_allocate(a, m.nodes[0], claims, 1, &out, &oc));
    *violations = 0;
    if (oc.kind == DRA_OUTCOME_ALLOCATED) {
        dra_inv_report_t rep;
        CHECK_OK(dra_inv_check(&m, &f, st, cel, m.nodes[0], claims, oc.allocations, 1, &rep));
        *violations = rep.nviolations;
        if (rep.nviolations)
            fprintf(stderr, "invariant: %s\n", rep.first[0]);
    } else {
        fprintf(stderr, "%s: %s %s\n", t->name, dra_outcome_name(oc.kind), oc.msg);
    }
    dra_alloc_free(a);
    dra_cel_cache_free(cel);
    dra_alloc_state_free(st);
    dra_arena_fini(&out);
    dra_model_fini(&m);
    return oc.kind;
}

static void test_every_shape_satisfiable(void)
{
    for (int k = 0; k < DRA_SHAPE_NKINDS; k++) {
        if (k == DRA_SHAPE_INLINE)
            continue;
        dra_shape_spec_t sp;
        memset(&sp, 0, sizeof sp);
        sp.kind = (dra_shape_kind_t)k;
        if (k == DRA_SHAPE_GPU_N)
            sp.count = 8;
        uint32_t v = 0;
        dra_outcome_t o = run_shape(&sp, dra_shape_info(sp.kind)->profile, &v);
        CHECK_MSG(o == DRA_OUTCOME_ALLOCATED, "shape %s: %s", dra_shape_info(sp.kind)->name, dra_outcome_name(o));
        CHECK_EQ_I64(v, 0);
    }
    /* every MIG profile of both GPU models on the dynamic profiles, and on one parent */
    for (int pr = DRA_GEN_A100_MIG_DYNAMIC; pr <= DRA_GEN_H100_MIG_DYNAMIC; pr++)
        for (const char *const *n = dra_gen_profile_mig_names((dra_gen_profile_t)pr); *n; n++) {
            dra_shape_spec_t sp = {.kind = DRA_SHAPE_MIG, .mig_profile = *n};
            uint32_t v = 0;
            CHECK_MSG(run_shape(&sp, (dra_gen_profile_t)pr, &v) == DRA_OUTCOME_ALLOCATED, "mig %s", *n);
            CHECK_EQ_I64(v, 0);
        }
    dra_shape_spec_t two = {.kind = DRA_SHAPE_MIG, .mig_profile = "1g.10gb", .count = 7, .same_parent = true};
    uint32_t v = 0;
    CHECK(run_shape(&two, DRA_GEN_H100_MIG_DYNAMIC, &v) == DRA_OUTCOME_ALLOCATED);
    CHECK_EQ_I64(v, 0);
}

static void test_unsat_shapes(void)
{
    uint32_t v;
    dra_shape_spec_t nine = {.kind = DRA_SHAPE_GPU_N, .count = 9};
    CHECK_EQ_I64(run_shape(&nine, DRA_GEN_DGX_H100, &v), DRA_OUTCOME_UNSATISFIABLE);
    dra_shape_spec_t eight = {.kind = DRA_SHAPE_MIG, .mig_profile = "1g.10gb", .count = 8, .same_parent = true};
    CHECK_EQ_I64(run_shape(&eight, DRA_GEN_H100_MIG_DYNAMIC, &v), DRA_OUTCOME_UNSATISFIABLE);
}

int main(void)
{
    RUN(test_every_shape_satisfiable);
    RUN(test_unsat_shapes);
    return check_summary();
}
#else
int main(void)
{
    puts("skipped: the allocator library (core/alloc) was absent at configure time");
    return 77;
}
#endif
