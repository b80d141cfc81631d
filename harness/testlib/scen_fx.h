/*
 * scen_fx.h - tests over a built-in scenario's cluster: the scenario loaded by name and built
 * with its own seed (nodes implied from the slices, as run does), the feature gates it sets under
 * a release profile, an empty allocation state with its digest, and each workload shape's claim
 * under a set of features. Header-only; include check.h first.
 *
 * Every step is checked (a failure fails the calling test). scen_fx_load returns false when the
 * scenario could not be loaded or built, and the caller stops there; scen_fx_fini frees whatever
 * scen_fx_load made, whether or not it got that far (the claims belong to the built scenario).
 * scen_fx_state returns NULL when the state could not be made (the caller frees it otherwise).
 * Cost: the scenario's build, O(devices) for the state.
 */
#ifndef DRA_SCEN_FX_H
#define DRA_SCEN_FX_H

#include <string.h>

#include "alloc/alloc.h"
#include "scenario.h"

typedef struct scen_fx {
    dra_scenario_t scn;
    dra_model_t m;
    dra_scenario_built_t built;
} scen_fx_t;

static inline bool scen_fx_load(scen_fx_t *x, const char *name)
{
    memset(x, 0, sizeof *x);
    dra_diag_t d;
    dra_diag_clear(&d);
    dra_model_init(&x->m);
    int rc = dra_scenario_load_named(&x->scn, name, &d);
    CHECK_MSG(rc == DRA_OK, "%s: %s", name, d.msg);
    if (rc)
        return false;
    rc = dra_scenario_build(&x->scn, &x->m, x->scn.seed, &x->built, &d);
    CHECK_MSG(rc == DRA_OK, "%s: %s", name, d.msg);
    if (rc)
        return false;
    CHECK_OK(dra_model_imply_nodes(&x->m));
    return true;
}

static inline void scen_fx_fini(scen_fx_t *x)
{
    dra_scenario_built_fini(&x->built);
    dra_model_fini(&x->m);
    dra_scenario_fini(&x->scn);
}

/* f: release rel's features with the scenario's gates set. lacking_ok: a gate release rel does
 * not have (a newer scenario under an older profile) is left out, as run does; else setting it
 * fails the test. */
static inline void scen_fx_features(const scen_fx_t *x, dra_release_t rel, bool lacking_ok,
                                    dra_alloc_features_t *f)
{
    dra_alloc_features_init(f, rel);
    for (uint32_t i = 0; i < x->scn.nfeatures; i++) {
        dra_gate_t gt;
        if (lacking_ok && dra_alloc_gate_lookup(x->scn.features[i].name, &gt) &&
            !dra_alloc_gate_stage(rel, gt).exists)
            continue;
        CHECK_OK(dra_alloc_features_set_gate(f, x->scn.features[i].name, x->scn.features[i].on,
                                             NULL));
    }
}

/* A state over the scenario's model with its own claims (none placed) under f, and its digest
 * (*empty), which every test that releases everything again expects back. */
static inline dra_alloc_state_t *scen_fx_state(scen_fx_t *x, const dra_alloc_features_t *f,
                                               uint64_t *empty)
{
    dra_alloc_state_t *st = NULL;
    CHECK_OK(dra_alloc_state_new(&x->m, f, &st));
    if (!st)
        return NULL;
    CHECK_OK(dra_alloc_state_add_model_claims(st));
    *empty = dra_alloc_state_digest(st);
    return st;
}

/* Shape i's claim under f as run takes it: a template's instance, or the claim the scheduler
 * builds for an extended-resource pod (NULL when no node takes that pod). */
static inline dra_claim_t *scen_fx_claim(scen_fx_t *x, uint32_t i, const dra_alloc_features_t *f)
{
    dra_diag_t d;
    dra_diag_clear(&d);
    dra_scenario_claim_t sc;
    memset(&sc, 0, sizeof sc);
    int rc = dra_scenario_shape_claim(&x->built, i, &x->m, f, &sc, &d);
    CHECK_MSG(rc == DRA_OK, "shape %u: %s", i, d.msg);
    return sc.claim;
}

#endif /* DRA_SCEN_FX_H */
