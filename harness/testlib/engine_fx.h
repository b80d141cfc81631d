/*
 * engine_fx.h - tests of the placement engine (core/engine/engine.h): the fixture they share, a
 * small model read from YAML (model_yaml.h) with its table, allocation state, CEL cache, a fast
 * and a reference allocator, and an engine over the fast one that compares every direct answer
 * with the fast allocator's on the same node (verify_direct); the manifest text macros NODE and
 * CLAIM. Header-only; include check.h first.
 *
 * fx_init_gate checks every step (a failure fails the calling test) and sets ok only when the
 * engine was built; fx_fini frees whatever fx_init_gate made, whether or not it got that far;
 * fx_open is the two for a test that stops when the fixture could not be built.
 * out is for the engine's answers, out2 for the reference placement's, tarena holds the table.
 */
#ifndef DRA_ENGINE_FX_H
#define DRA_ENGINE_FX_H

#include <string.h>

#include "alloc/alloc.h"
#include "engine/engine.h"
#include "manifest.h"
#include "model_yaml.h"
#include "table/table.h"

typedef struct fx {
    dra_model_t m;
    dra_alloc_features_t f;
    dra_alloc_state_t *st;
    dra_cel_cache_t *cel;
    dra_anyalloc_t fast, ref;
    dra_arena_t tarena, out, out2;
    dra_table_t *t;
    dra_engine_t *e;
    bool ok;
} fx_t;

/* The fixture over yaml under release rel with one "Gate=bool" switch set (gate may be NULL). */
static inline void fx_init_gate(fx_t *x, const char *yaml, dra_release_t rel, const char *gate)
{
    memset(x, 0, sizeof *x);
    dra_model_init(&x->m);
    dra_arena_init(&x->out, 0);
    dra_arena_init(&x->out2, 0);
    dra_arena_init(&x->tarena, 0);
    int rc = model_yaml_read(&x->m, yaml);
    CHECK_OK(rc);
    if (rc)
        return;
    dra_alloc_features_init(&x->f, rel);
    if (gate)
        CHECK_OK(dra_alloc_features_set(&x->f, gate, NULL));
    dra_diag_t d;
    dra_diag_clear(&d);
    dra_alloc_options_t o = {0, 7};
    CHECK_OK(dra_table_build(&x->m, &x->tarena, &x->t, &d));
    CHECK_OK(dra_alloc_state_new(&x->m, &x->f, &x->st));
    CHECK_OK(dra_cel_cache_new(&x->cel));
    CHECK_OK(dra_anyalloc_new(DRA_ALLOC_FAST, &x->m, &x->f, x->st, x->cel, &o, &x->fast));
    CHECK_OK(dra_anyalloc_new(DRA_ALLOC_REFERENCE, &x->m, &x->f, x->st, x->cel, &o, &x->ref));
    /* every direct answer is compared with the fast allocator's on the same node */
    dra_engine_opts_t eo = {.verify_direct = true};
    rc = dra_engine_new(&x->m, x->t, &x->f, x->st, x->cel, &x->fast, &eo, &x->e, &d);
    CHECK_MSG(rc == DRA_OK, "%s", d.msg);
    x->ok = rc == DRA_OK;
}

/* The engine's plan of the model's claim called name (a missing claim or a plan that fails fails
 * the calling test and gives plan 0). */
static inline uint32_t fx_plan(fx_t *x, const char *name)
{
    dra_claim_t *c = dra_model_find_claim(&x->m, NULL, name);
    CHECK_MSG(c != NULL, "claim %s", name);
    uint32_t p = 0;
    if (c)
        CHECK_OK(dra_engine_plan(x->e, &c, 1, &p));
    return p;
}

static inline void fx_fini(fx_t *x)
{
    dra_engine_free(x->e);
    dra_anyalloc_free(&x->fast);
    dra_anyalloc_free(&x->ref);
    if (x->cel)
        dra_cel_cache_free(x->cel);
    if (x->st)
        dra_alloc_state_free(x->st);
    dra_arena_fini(&x->out);
    dra_arena_fini(&x->out2);
    dra_arena_fini(&x->tarena);
    dra_model_fini(&x->m);
}

/* fx_init_gate, and fx_fini at once when it failed: true when the fixture is ready (the caller
 * ends it with fx_fini), false when it is not (nothing left to free; the failure is checked). */
static inline bool fx_open(fx_t *x, const char *yaml, dra_release_t rel, const char *gate)
{
    fx_init_gate(x, yaml, rel, gate);
    if (!x->ok)
        fx_fini(x);
    return x->ok;
}

static inline const char *node_name(const fx_t *x, uint32_t n)
{
    return n < x->m.nnodes ? x->m.nodes[n]->name : "-";
}

/* The engine's incremental summaries equal those recomputed from the allocation state. */
static inline void check_summaries(fx_t *x)
{
    char why[256] = "";
    CHECK_MSG(dra_engine_check(x->e, why, sizeof why), "%s", why);
}

/* What fx_place_vs_reference_cmp compares of two placements that allocated, besides the node. */
typedef enum fx_cmp {
    FX_CMP_DEVICES, /* the claims' count, and per result its device, shareID and consumed
                       capacity */
    FX_CMP_FULL,    /* every field dra_alloc_outcome_differs compares (core/alloc/fast.h): per
                       result also its request, adminAccess, consumedCounters, tolerations and
                       binding conditions, and each claim's configs and node selector */
} fx_cmp_t;

/* Place plan p with the engine and with the reference placement (reference allocator) from
 * node `start` under pol; they must agree on outcome, node, what cmp names and (for a failure
 * other than Unsatisfiable) message. A difference fails the calling test, its message naming
 * the plan, policy, start, both answers and what served the engine's. Returns the engine's
 * result, in `into` (reset first). */
static inline dra_engine_result_t fx_place_vs_reference_cmp(fx_t *x, uint32_t p,
                                                            dra_engine_policy_t pol,
                                                            uint32_t start, dra_arena_t *into,
                                                            fx_cmp_t cmp)
{
    dra_engine_result_t a, b;
    dra_arena_reset(into);
    dra_arena_reset(&x->out2);
    CHECK_OK(dra_engine_place(x->e, p, pol, start, into, &a));
    CHECK_OK(dra_engine_place_reference(x->e, &x->ref, p, pol, start, &x->out2, &b));
    CHECK_MSG(a.kind == b.kind && a.node == b.node,
              "plan %u policy %d start %u: engine %s on %s (%s), reference %s on %s", p,
              (int)pol, start, dra_outcome_name(a.kind), node_name(x, a.node),
              dra_engine_served_name(a.served), dra_outcome_name(b.kind), node_name(x, b.node));
    if (a.kind == b.kind && a.kind == DRA_OUTCOME_ALLOCATED && cmp == FX_CMP_FULL) {
        dra_alloc_outcome_t oa = {0}, ob = {0};
        oa.kind = ob.kind = DRA_OUTCOME_ALLOCATED;
        oa.allocations = a.allocations;
        oa.n = a.n;
        ob.allocations = b.allocations;
        ob.n = b.n;
        char why[512];
        CHECK_MSG(!dra_alloc_outcome_differs(&ob, &oa, why, sizeof why),
                  "plan %u policy %d start %u (%s): %s", p, (int)pol, start,
                  dra_engine_served_name(a.served), why);
    } else if (a.kind == b.kind && a.kind == DRA_OUTCOME_ALLOCATED) {
        CHECK_EQ_U64(a.n, b.n);
        for (uint32_t i = 0; i < a.n && i < b.n; i++) {
            CHECK_EQ_U64(a.allocations[i]->nresults, b.allocations[i]->nresults);
            for (uint32_t j = 0; j < a.allocations[i]->nresults && j < b.allocations[i]->nresults; j++) {
                const dra_result_t *ra = &a.allocations[i]->results[j],
                                   *rb = &b.allocations[i]->results[j];
                CHECK_STREQ(ra->device, rb->device);
                /* shareIDs are derived: the same whichever allocator or path answered */
                CHECK_STREQ(ra->share_id ? ra->share_id : "-", rb->share_id ? rb->share_id : "-");
                CHECK_EQ_U64(ra->nconsumed, rb->nconsumed);
                for (uint32_t k = 0; k < ra->nconsumed && k < rb->nconsumed; k++)
                    CHECK(dra_quantity_cmp(&ra->consumed[k].value, &rb->consumed[k].value) == 0);
            }
        }
    }
    if (a.kind == b.kind && a.kind != DRA_OUTCOME_ALLOCATED && a.kind != DRA_OUTCOME_UNSATISFIABLE)
        CHECK_STREQ(a.msg, b.msg);
    return a;
}

/* fx_place_vs_reference_cmp comparing devices, shareIDs and consumed capacity. */
static inline dra_engine_result_t fx_place_vs_reference(fx_t *x, uint32_t p,
                                                        dra_engine_policy_t pol, uint32_t start,
                                                        dra_arena_t *into)
{
    return fx_place_vs_reference_cmp(x, p, pol, start, into, FX_CMP_DEVICES);
}

#define NODE(n) "apiVersion: v1\nkind: Node\nmetadata: {name: " n "}\n---\n"
#define CLAIM(name, body)                                                                          \
    "apiVersion: resource.k8s.io/v1\nkind: ResourceClaim\nmetadata: {name: " name "}\n"           \
    "spec: {devices: " body "}\n---\n"

#endif /* DRA_ENGINE_FX_H */
