/*
 * alloc_impl.h - internals shared by the reference allocator, the brute-force enumerator and the
 * invariant checker (not a public header): exact quantity arithmetic, node selector matching,
 * taint toleration, the consumable-capacity policy arithmetic, attribute value sets, pool
 * gathering and per-device selectability.
 *
 * Quantities are handled as signed 128-bit integers in nano units (dra_aq_t). Kubernetes rounds
 * every parsed Quantity up to 1n, so sums and comparisons are exact; values beyond +-2^120 nano
 * saturate (they exceed every real capacity by far and still compare correctly against
 * realistic values).
 */
#ifndef DRA_ALLOC_IMPL_H
#define DRA_ALLOC_IMPL_H

#include <stdbool.h>
#include <stdint.h>

#include "alloc/alloc.h"

__extension__ typedef __int128 dra_aq_t;
__extension__ typedef unsigned __int128 dra_uaq_t;

#define DRA_AQ_SAT (((dra_aq_t)1) << 120)

dra_aq_t dra_aq_from(const dra_quantity_t *q);
/* A Quantity with value v (nano units); format copied from like (may be NULL). */
void dra_aq_to(dra_aq_t v, const dra_quantity_t *like, dra_quantity_t *out);
/* Quantity.Value(): rounded up to an integer number of units. */
dra_aq_t dra_aq_ceil_units(dra_aq_t v);
#define DRA_AQ_UNIT ((dra_aq_t)1000000000)

/* ---- behaviour derived from the features -------------------------------------------------- */

typedef struct dra_beh {
    dra_release_t release;
    dra_variant_t variant;
    bool admin, prio, pd, taints, binding, cc, lists; /* effective allocator feature flags */
    bool combos;        /* 1.36+ incubating/experimental: combinations instead of permutations */
    bool sort_slices;   /* 1.36+: slices sorted by name, binding-condition pools last */
    bool bc_last;
    bool binds_to_node; /* 1.36+ (not stable) */
    bool strict_pools;  /* 1.35+: incomplete/invalid pools skipped, completeness re-check */
    bool pool_counters; /* 1.35+: counters in sharedCounters slices of the pool; 1.34: per slice */
    bool counter_slices_always; /* stable variant: sharedCounters slices gathered for every node */
    bool bugs;
} dra_beh_t;

void dra_beh_init(dra_beh_t *b, const dra_alloc_features_t *f);

/* ---- node selection ----------------------------------------------------------------------- */

/* NodeMatches(node, nodeName, allNodes, selector). DRA_EINVAL with a message in err for a
 * selector that cannot be parsed (unknown operator, Gt/Lt with a bad value). */
int dra_node_matches(const dra_node_t *node, const char *node_name, bool all_nodes,
                     const dra_node_selector_t *sel, bool *match, char *err, size_t errlen);
bool dra_ns_req_equal(const dra_ns_req_t *a, const dra_ns_req_t *b);

/* ---- taints ------------------------------------------------------------------------------- */

bool dra_toleration_tolerates(const dra_toleration_t *t, const dra_taint_t *taint);
/* Some NoSchedule/NoExecute taint of the device is not tolerated. */
bool dra_taint_blocks(const dra_device_t *d, const dra_toleration_t *tols, uint32_t ntols);

/* ---- consumable capacity (DRA-SEMANTICS §2.11) -------------------------------------------- */

/* The amount a request consumes of one capacity (r NULL = not requested). */
dra_aq_t dra_cap_consumed(const dra_cap_request_t *r, const dra_capacity_t *cap, bool bugs);
bool dra_cap_violates(dra_aq_t c, const dra_request_policy_t *p, bool bugs);
const dra_cap_request_t *dra_cap_find_request(const dra_exact_request_t *req, const char *name);
/* capacityFits: 1 fits, 0 does not, -1 the request names a capacity the device lacks.
 * existing[i] / allocating[i] are per device capacity index (NULL = zero). */
int dra_cap_fits(const dra_exact_request_t *req, const dra_device_t *d, const dra_aq_t *existing,
                 const dra_aq_t *allocating, bool bugs);

/* ---- attribute values as sets (list-type attributes) -------------------------------------- */

typedef struct dra_aval {
    uint8_t base; /* DRA_ATTR_INT / BOOL / STRING / VERSION */
    int64_t i;
    const char *s;
} dra_aval_t;
#define DRA_AVAL_MAX 64
/* Values of an attribute as a set of one base kind; returns the count (0 = no value). */
uint32_t dra_attr_values(const dra_attr_t *a, dra_aval_t *out, uint32_t max);
bool dra_aval_eq(const dra_aval_t *a, const dra_aval_t *b);
/* Scalar equality as upstream's matchAttribute (same scalar kind and value). */
bool dra_attr_scalar_eq(const dra_attr_t *a, const dra_attr_t *b);
bool dra_attr_is_scalar(const dra_attr_t *a);

/* ---- pools -------------------------------------------------------------------------------- */

typedef struct dra_gpool {
    const char *driver, *name;
    int64_t generation;
    bool incomplete, invalid, has_binding;
    const char *invalid_reason;
    const dra_slice_t **slices; /* device slices targeting the node (sorted by name in 1.36+) */
    uint32_t nslices;
    const dra_slice_t **other; /* device slices of the pool not targeting the node */
    uint32_t nother;
    const dra_slice_t **counter_slices; /* sharedCounters slices (1.35+) */
    uint32_t ncounter_slices;
} dra_gpool_t;

typedef struct dra_gpools {
    dra_gpool_t *pools;
    uint32_t n;
    bool any_invalid;
} dra_gpools_t;

/* GatherPools for a node (DRA-SEMANTICS §2.3 and the 1.34 / 1.35 differences). Memory from a.
 * DRA_EFATAL with err filled for a node-selector error. */
int dra_gather_pools(const dra_model_t *m, const dra_beh_t *b, const dra_node_t *node,
                     dra_arena_t *a, dra_gpools_t *out, char *err, size_t errlen);

/* Counter set named `name` among the pool's counter slices (1.35+) or in the device's own slice
 * (1.34); NULL when absent. */
const dra_counter_set_t *dra_pool_counter_set(const dra_beh_t *b, const dra_gpool_t *p,
                                              const dra_slice_t *dev_slice, const char *name);

/* ---- selectors ---------------------------------------------------------------------------- */

/* Class selectors then request selectors, then per-device node selection (isSelectable, steps
 * 1 and 3-5). DRA_OK with *match, or DRA_EFATAL with the upstream-like message in err. */
int dra_device_selectable(const dra_model_t *m, const dra_beh_t *b, dra_cel_cache_t *cel,
                          dra_arena_t *scratch, const dra_node_t *node, const dra_claim_t *claim,
                          const dra_device_class_t *cls, const dra_exact_request_t *req,
                          const dra_device_t *d, bool *match, uint64_t *nevals, char *err,
                          size_t errlen);

/* ---- state internals ---------------------------------------------------------------------- */

/* AggregatedCapacity of the device has an entry (any share with consumedCapacity). */
bool dra_alloc_state_has_capacity(const dra_alloc_state_t *s, const char *driver,
                                  const char *pool, const char *device);
/* Aggregated consumed capacity by capacity name as written in consumedCapacity (false: none). */
bool dra_alloc_state_cap_aq(const dra_alloc_state_t *s, const char *driver, const char *pool,
                            const char *device, const char *cap_name, dra_aq_t *out);

/* Change watchers: fn(ctx, a) runs at the start of every commit / release of allocation a (its
 * devices may change; the call may still fail). Registering the same (fn, ctx) twice is a
 * no-op; on = false removes it. DRA_ENOMEM when DRA_ALLOC_STATE_MAX_WATCH are registered. The
 * watcher list is not part of the state (digest, queries), hence the const state. */
#define DRA_ALLOC_STATE_MAX_WATCH 8
typedef void (*dra_alloc_state_watch_fn)(void *ctx, const dra_allocation_t *a);
int dra_alloc_state_watch(const dra_alloc_state_t *s, dra_alloc_state_watch_fn fn, void *ctx,
                          bool on);

/* "ns/name" of a claim into buf. */
const char *dra_claim_ref(const dra_claim_t *c, char *buf, size_t len);

#endif /* DRA_ALLOC_IMPL_H */
