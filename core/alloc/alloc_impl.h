/*
 * alloc_impl.h - internals shared by the reference and fast allocators, the brute-force enumerator
 * and the invariant checker (not a public header): exact quantity arithmetic, node selector
 * matching, taint toleration, the consumable-capacity policy arithmetic, attribute value sets,
 * pool gathering, per-device selectability, and the per-call state and steps both allocators
 * share (dra__acall_t, claims.c).
 *
 * Quantities are handled as signed 128-bit integers in nano units (dra__aq_t). Kubernetes rounds
 * every parsed Quantity up to 1n, so sums and comparisons are exact; values beyond +-2^120 nano
 * saturate (they exceed every real capacity by far and still compare correctly against
 * realistic values).
 */
#ifndef DRA_ALLOC_IMPL_H
#define DRA_ALLOC_IMPL_H

#include <stdbool.h>
#include <stdint.h>

#include "alloc/alloc.h"
#include "alloc/state_hints.h"
#include "base/arena.h"
#include "base/bitset.h"

__extension__ typedef __int128 dra__aq_t;
__extension__ typedef unsigned __int128 dra__uaq_t;

#define DRA_AQ_SAT (((dra__aq_t)1) << 120)

/* The exact value of q in nano units, saturated at DRA_AQ_SAT in magnitude (a remainder below 1n
 * rounded away from zero to 1n, as Kubernetes does). dra__aq_from_any is the general conversion;
 * dra__aq_from takes a magnitude below 2^64 with an exponent from -9 to 10 (every quantity a
 * manifest or the generator writes in practice: "10Gi", "500m", "1") with one 64 x 64-bit multiply
 * inline, the same value: the product is exact below 2^128 and capped as the general path caps
 * it (test_alloc_units.c test_aq_from checks both against a digit-at-a-time conversion).
 * Commit and release of a share convert every consumedCapacity quantity this way. O(1). */
dra__aq_t dra__aq_from_any(const dra_quantity_t *q);
static inline dra__aq_t dra__aq_from(const dra_quantity_t *q)
{
    static const uint64_t p10[20] = {1ULL, 10ULL, 100ULL, 1000ULL, 10000ULL, 100000ULL,
                                     1000000ULL, 10000000ULL, 100000000ULL, 1000000000ULL,
                                     10000000000ULL, 100000000000ULL, 1000000000000ULL,
                                     10000000000000ULL, 100000000000000ULL,
                                     1000000000000000ULL, 10000000000000000ULL,
                                     100000000000000000ULL, 1000000000000000000ULL,
                                     10000000000000000000ULL};
    uint32_t e = (uint32_t)q->exp + 9u;
    if (q->hi || e >= 20u)
        return dra__aq_from_any(q);
    dra__uaq_t m = (dra__uaq_t)q->lo * p10[e];
    if (m > (dra__uaq_t)DRA_AQ_SAT)
        m = (dra__uaq_t)DRA_AQ_SAT;
    return q->neg ? -(dra__aq_t)m : (dra__aq_t)m;
}
/* A Quantity with value v (nano units); format copied from like (may be NULL). */
void dra__aq_to(dra__aq_t v, const dra_quantity_t *like, dra_quantity_t *out);
/* Quantity.Value(): rounded up to an integer number of units. */
dra__aq_t dra__aq_ceil_units(dra__aq_t v);
#define DRA_AQ_UNIT ((dra__aq_t)1000000000)

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
    /* 1.37 features (RELEASES.md §2) */
    bool cg;            /* DRADeviceCompatibilityGroups enforced (experimental variant) */
    bool cg_skip;       /* 1.37 with groups not enforced: a device declaring groups, or joining a
                           counter set an allocated device with groups draws from, is skipped */
    bool cg_drop;       /* 1.38-pre with groups not enforced: GatherPools drops every slice with
                           a device declaring groups, which leaves its pool incomplete */
    bool count_strict;  /* 1.38-pre (#141118): at the pool's newest generation, slices that
                           disagree on resourceSliceCount, or more slices than declared, make the
                           pool invalid (an obsolete such generation is ignored) */
    bool ono;           /* DRAOptionalNodeOperations (1.37+): a device of a slice with
                           skipNodeOperations is selectable on a node that declares the feature,
                           and its results copy the list; with the gate off it is selectable
                           nowhere (core/alloc/node_ops.c) */
    bool scc;           /* DRASharedConsumableCapacity in effect (sharedcap.c): valueFrom
                           counters charged per allocation, consumedCounters snapshots written
                           in results and charged for live allocations */
    bool derived;       /* DRADerivedAttributes: derived attributes evaluated for constraints */
    bool derived_fatal; /* 1.37+ with the gate off: a request with derivedAttributes is fatal */
    bool fractional;    /* DRAFractionalCapacityRange: milli-unit range arithmetic (useMilli) */
    /* behaviour that changed with a release, whatever the gates */
    bool cap_missing_fatal; /* a capacity request naming a capacity the device lacks is fatal
                               ("checking capacity for device"); no profile sets it: every
                               release skips the device (1.37's table, 3c6bdf290c3a) */
    bool cap_unrepr_fatal;  /* 1.37+ (#140442): a request the range arithmetic cannot represent,
                               or a negative consumed capacity, is fatal */
    bool cap_qualified;     /* 1.38-pre (#142202): capacity names match with or without the
                               driver's domain, the fully qualified one preferred */
    bool share_blocks_excl; /* a live share of a device blocks an exclusive allocation of it
                               (#140798, 1.38-pre; fixed by default before, BUG(19)) */
    bool config_all_nil;    /* 1.37+: a claim config covering every request gets requests=nil */
    bool cel_err_device;    /* 1.37+: "selector #N on device D: CEL runtime error" */
    /* upstream defects reproduced: bugs, and only in releases that still have them
     * (core/alloc/README.md, "Upstream bugs: every decision") */
    bool bugs;          /* upstream_bugs was asked for (fast paths stand aside) */
    bool bug_rollback;  /* BUG(1), BUG(2): <= 1.36 */
    bool bug_distinct;  /* BUG(3): <= 1.36 */
    bool bug_isect;     /* BUG(4): <= 1.36 */
    bool bug_pool_name; /* BUG(5): <= 1.36 */
    bool bug_config_dup; /* BUG(6): 1.36 only */
    bool bug_all_cap;   /* BUG(8): <= 1.36 */
    bool bug_all_fatal; /* BUG(9): <= 1.37 */
    bool bug_range;     /* BUG(10): Value() arithmetic where milli arithmetic is not used */
    bool bug_persisted_share; /* BUG(12): <= 1.36 */
} dra__beh_t;

void dra__beh_init(dra__beh_t *b, const dra_alloc_features_t *f);

/* ---- node selection ----------------------------------------------------------------------- */

/* NodeMatches(node, nodeName, allNodes, selector). DRA_EINVAL with a message in err for a
 * selector that cannot be parsed (unknown operator, Gt/Lt with a bad value). */
DRA_NODISCARD int dra__node_matches(const dra_node_t *node, const char *node_name, bool all_nodes,
                                   const dra_node_selector_t *sel, bool *match, char *err,
                                   size_t errlen);
bool dra__ns_req_equal(const dra_ns_req_t *a, const dra_ns_req_t *b);

/* ---- taints ------------------------------------------------------------------------------- */

bool dra__toleration_tolerates(const dra_toleration_t *t, const dra_taint_t *taint);
/* Some NoSchedule/NoExecute taint of the device is not tolerated. */
bool dra__taint_blocks(const dra_device_t *d, const dra_toleration_t *tols, uint32_t ntols);
/* The first such taint, or NULL (dra__taint_blocks is this != NULL). */
const dra_taint_t *dra__taint_blocking(const dra_device_t *d, const dra_toleration_t *tols,
                                       uint32_t ntols);

/* ---- consumable capacity (DRA-SEMANTICS §2.11) -------------------------------------------- */

/* How a profile does the arithmetic (dra__capmode from the behaviour): BUG(10) Value()
 * arithmetic, DRAFractionalCapacityRange's milli ranges, 1.37's fatal unrepresentable
 * requests and 1.38-pre's qualified capacity names. */
typedef struct dra_capmode {
    bool bug_range, fractional, unrepr_fatal, qualified;
    bool scc; /* DRASharedConsumableCapacity on: a request naming a valueFrom capacity of the
                 device is not a missing capacity (sharedcap.c) */
} dra__capmode_t;
struct dra_beh;
dra__capmode_t dra__capmode(const struct dra_beh *b);
#define DRA__CAP_MISSING (-1) /* the request names a capacity the device lacks */
#define DRA__CAP_UNREPR (-2)  /* 1.37+: not representable / negative; err says which */
#define DRA__CAP_STACK 32     /* capacities per device (API limit with attributes) */
/* The amount a request consumes of one capacity (r NULL = not requested): DRA_OK with *out, or
 * DRA__CAP_UNREPR with the reason in err. */
int dra__cap_consumed_m(const dra__capmode_t *m, const dra_cap_request_t *r,
                        const dra_capacity_t *cap, dra__aq_t *out, char *err, size_t errlen);
bool dra__cap_violates_m(const dra__capmode_t *m, dra__aq_t c, const dra_request_policy_t *p);
/* capacityFits: 1 fits, 0 does not, DRA__CAP_MISSING, DRA__CAP_UNREPR (err filled).
 * existing[i] / allocating[i] are per device capacity index (NULL = zero). */
DRA_NODISCARD int dra__cap_fits_m(const dra__capmode_t *m, const dra_exact_request_t *req,
                                  const dra_device_t *d, const dra__aq_t *existing,
                                  const dra__aq_t *allocating, char *err, size_t errlen);
/* The request entry for device capacity cap_name (d gives the driver for qualified names). */
const dra_cap_request_t *dra__cap_request_for(const dra_exact_request_t *req, const dra_device_t *d,
                                             const char *cap_name, bool qualified);
/* The same with 1.36's arithmetic (names as written, no milli ranges; bugs = BUG(10)):
 * dra__cap_fits returns 1, 0 or -1 (missing). */
dra__aq_t dra__cap_consumed(const dra_cap_request_t *r, const dra_capacity_t *cap, bool bugs);
bool dra__cap_violates(dra__aq_t c, const dra_request_policy_t *p, bool bugs);
const dra_cap_request_t *dra__cap_find_request(const dra_exact_request_t *req, const char *name);
int dra__cap_fits(const dra_exact_request_t *req, const dra_device_t *d, const dra__aq_t *existing,
                 const dra__aq_t *allocating, bool bugs);

/* ---- attribute values as sets (list-type attributes) -------------------------------------- */

typedef struct dra_aval {
    uint8_t base; /* DRA_ATTR_INT / BOOL / STRING / VERSION */
    int64_t i;
    const char *s;
} dra__aval_t;
#define DRA_AVAL_MAX 64
/* Values of an attribute as a set of one base kind; returns the count (0 = no value). */
uint32_t dra__attr_values(const dra_attr_t *a, dra__aval_t *out, uint32_t max);
bool dra__aval_eq(const dra__aval_t *a, const dra__aval_t *b);
/* Scalar equality as upstream's matchAttribute (same scalar kind and value). */
bool dra__attr_scalar_eq(const dra_attr_t *a, const dra_attr_t *b);
bool dra__attr_is_scalar(const dra_attr_t *a);

/* The attribute a constraint on qname compares for device d picked for request body: the
 * request's derived attribute of that name when derived attributes are on (evaluated, the value
 * in scratch), else the device's own. DRA_OK with *out (NULL: none), DRA_EFATAL with the message
 * in err ("compile derived attribute ..." / "evaluate derived attribute ... failed"), DRA_ENOMEM.
 * For the oracles (the allocators keep the values per call, claims.c). */
DRA_NODISCARD int dra__constraint_attr(const dra_model_t *m, const dra__beh_t *b,
                                      dra_cel_cache_t *cel, dra_arena_t *scratch,
                                      const dra_exact_request_t *body, uint32_t qname,
                                      const dra_device_t *d, const dra_attr_t **out, char *err,
                                      size_t errlen);

/* Compatibility groups of a final set (RELEASES.md §2) as upstream decides them: the first nbase
 * of the n group lists on one counter set are the devices allocated before (folded into the
 * rolling intersection unchecked, in slice order, as compatibilityGroupsBaselineForPool does),
 * and each later list must be admitted by the intersection so far. With a consistent baseline
 * that is "all without groups, or all with groups sharing one"; an allocated set that already
 * breaks the rule (slices changed under it) is judged by its fold, not rejected as a whole. */
bool dra__cg_lists_ok(const dra_consumes_t *const *lists, uint32_t nbase, uint32_t n);

/* ---- pools -------------------------------------------------------------------------------- */

typedef struct dra_gpool { /* the counts together: 72 bytes, kept per node by the fast allocator */
    const char *driver, *name;
    int64_t generation;
    const char *invalid_reason;
    const dra_slice_t **slices; /* device slices targeting the node (sorted by name in 1.36+) */
    const dra_slice_t **other; /* device slices of the pool not targeting the node */
    const dra_slice_t **counter_slices; /* sharedCounters slices (1.35+) */
    uint32_t nslices, nother, ncounter_slices;
    bool incomplete, invalid, has_binding;
} dra__gpool_t;

typedef struct dra_gpools {
    dra__gpool_t *pools;
    uint32_t n;
    bool any_invalid;
    bool any_groups; /* 1.37: a device of the pools declares compatibilityGroups */
} dra__gpools_t;

/* Whether a device declares compatibility groups on one of its counter consumptions. */
static inline bool dra__device_has_groups(const dra_device_t *d)
{
    for (uint32_t c = 0; c < d->nconsumes; c++)
        if (d->consumes[c].ngroups)
            return true;
    return false;
}
/* Whether a device of the slice declares compatibility groups (the slice 1.38-pre drops with
 * the gate off: upstream's sliceUsesCompatibilityGroups). O(devices). */
bool dra__slice_has_groups(const dra_slice_t *s);
/* KEP-5941 (sharedcap.c): whether counters / a slice use valueFrom or a counter requestPolicy;
 * whether a device has a valueFrom counter. */
bool dra__counters_shared_cap(const dra_counter_t *c, uint32_t n);
bool dra__slice_uses_shared_cap(const dra_slice_t *s);
bool dra__device_value_from(const dra_device_t *d);

/* GatherPools for a node (DRA-SEMANTICS §2.3 and the 1.34 / 1.35 differences; 1.38-pre with
 * DRADeviceCompatibilityGroups off (b->cg_drop): a slice with a device declaring groups is
 * treated as absent from the cluster, so its pool is incomplete, or not there when it has no
 * other slice). Memory from a. DRA_EFATAL with err filled for a node-selector error. */
DRA_NODISCARD int dra__gather_pools(const dra_model_t *m, const dra__beh_t *b, const dra_node_t *node,
                                   dra_arena_t *a, dra__gpools_t *out, char *err, size_t errlen);

/* Counter set named `name` among the pool's counter slices (1.35+) or in the device's own slice
 * (1.34); NULL when absent. */
const dra_counter_set_t *dra__pool_counter_set(const dra__beh_t *b, const dra__gpool_t *p,
                                              const dra_slice_t *dev_slice, const char *name);

/* ---- per-call state of the reference and the fast allocator --------------------------------
 *
 * Both allocators (reference.c, fast.c) keep the state of one Allocate call in a dra__acall_t and
 * share the steps that do not depend on how devices are searched (claims.c): claim
 * preprocessing (requests and subrequests, feature checks, limits, constraints), the result's
 * node selector and the result construction. Memory comes from scratch, reset per call. */

#define R_OK 1
#define R_FAIL 0
#define R_MAXEXC (-1000) /* errAllocationResultMaxSizeExceeded */
#define R_FATAL (-1001)
#define R_NODE (-1002)
#define R_NOMEM (-1003)

typedef struct slot {
    const dra_device_t *d;
    uint32_t pool;
    bool excl;         /* in AllocatedDevices */
    bool persist_cap;  /* AggregatedCapacity has an entry */
    bool persist_share;
    dra__aq_t *existing; /* per device capacity: aggregated consumed capacity (NULL = none) */
    dra__aq_t *allocating; /* per device capacity, this attempt (NULL until used) */
    uint32_t nallocating;
    uint64_t *taken; /* bitset over claims */
    uint32_t ntaken;
    uint32_t scope;
    uint32_t row;   /* fast: device row over the whole model (selector caches) */
    bool pdns;      /* fast: slice uses per-device node selection: per-call selector cache */
    bool ready;     /* fast: state fields (excl, persist_*, existing) looked up in this call */
} dra__slot_t;

typedef struct cent {
    const char *set, *name;
    uint64_t h; /* hash of (set, name): most lookups differ here, without a strcmp */
    dra__aq_t avail, consumed;
    bool has_avail;
} dra__cent_t;

/* The compatibility groups of the devices placed on one counter set (DRADeviceCompatibilityGroups,
 * RELEASES.md §2): the rolling intersection of their group lists, or "every member declared no
 * groups". A device's list has at most 2 names (API validation), so the intersection has too;
 * a longer list (an invalid object) keeps its first 4. */
#define DRA__CG_MAX 4
typedef struct cgstate {
    bool has;       /* a device is placed on the set */
    bool all_empty; /* every device placed so far declared no groups */
    bool grouped;   /* some device placed so far declared groups (the version-skew skip's test:
                     * upstream keeps a set of the counter sets an allocated device with groups
                     * draws from, whatever the order or the other members) */
    uint8_t n;      /* the intersection (when has && !all_empty) */
    const char *g[DRA__CG_MAX];
} dra__cgstate_t;

/* upstream's admits(): may a device consuming c join a set in state s? */
bool dra__cg_admits(const dra__cgstate_t *s, const dra_consumes_t *c);
/* upstream's add(): fold a device consuming c into state s. */
void dra__cg_fold(dra__cgstate_t *s, const dra_consumes_t *c);

typedef struct cgent {
    const char *set; /* counter set name */
    dra__cgstate_t st;
} dra__cgent_t;

/* The groups per counter set of some devices (in the call's scratch arena). */
typedef struct cglist {
    dra__cgent_t *e;
    uint32_t n, cap;
} dra__cglist_t;

/* Counter entries of one counter scope (a pool from 1.35, a slice in 1.34; DRA-SEMANTICS
 * §2.10), built on first use in a call; with 1.37's compatibility groups also per counter set
 * the groups of the devices placed on it (enforced) or whether an allocated device declared
 * some (the skip while they are not enforced). */
typedef struct scope {
    bool ready;
    dra__cent_t *e;
    uint32_t n, cap;
    uint32_t *idx; /* open addressing on dra__cent_t.h: entry index, UINT32_MAX empty */
    uint32_t icap; /* power of two > 2n, or 0 */
    bool cg_ready;      /* cg holds the allocated devices' groups (the baseline) */
    dra__cglist_t cg;   /* per counter set met */
    /* DRASharedConsumableCapacity (sharedcap.c, the fail-closed rule): the counter sets withheld
     * because a live allocation's charge on them cannot be established (set once each, with
     * the first withholding device and why; in the call's scratch arena) */
    struct wheld {
        const char *set, *device, *why;
    } *wh;
    uint32_t nwh, whcap;
    bool wh_nomem;
} dra__scope_t;

typedef struct rq {
    const dra_exact_request_t *body;
    const dra_request_t *parent;
    bool is_sub;
    const dra_device_class_t *cls;
    int64_t num;
    bool all;
    uint32_t *all_slots;
    uint32_t nall;
    const char *name; /* "req" or "req/sub" */
    uint32_t key;
    bool *in_scope; /* per constraint of the claim */
    struct fsig *sig; /* fast: persistent selector cache of (class, request selectors) */
} dra__rq_t;

typedef struct cons {
    const dra_constraint_t *c;
    uint32_t qname;
    bool distinct;
    uint32_t n;
    const dra_attr_t *ref;
    const dra_attr_t **stk; /* fixed mode: attributes added, LIFO */
    uint32_t nstk, capstk;
    struct {
        const char *req;
        const dra_attr_t *a;
    } *map; /* BUG(3): distinctAttribute keyed by request name */
    uint32_t nmap, capmap;
    dra__aval_t isect[DRA_AVAL_MAX]; /* BUG(4): list intersection, never restored */
    uint32_t nisect;
} dra__cons_t;

typedef struct res {
    uint32_t slot, rq;
    uint32_t cg_undo; /* compatibility-group undo records pushed by this result */
    bool multi, charged;
    char share[37];
    dra__aq_t *consumed; /* per device capacity (multi only) */
    dra__aq_t *pa; /* KEP-5941, gate on: the valueFrom amounts charged (NULL: none) */
} dra__res_t;

typedef struct cl {
    const dra_claim_t *c;
    uint32_t *rq_first; /* per request: index of its rq (first subrequest) */
    uint32_t *nsub;     /* per request: number of subrequests (0 = exactly) */
    uint32_t *selected; /* per request: chosen subrequest */
    dra__res_t res[DRA_ALLOC_MAX_RESULTS + 1];
    uint32_t nres;
    dra__aq_t *consumed_pool; /* (MAX+1) * maxcaps, allocated on the first multi result */
    dra__cons_t *cons;
    uint32_t ncons;
} dra__cl_t;

typedef struct dra_acall {
    const dra_model_t *m;
    dra__beh_t b;
    dra_arena_t scratch;
    const dra_node_t *node;
    uint32_t nclaims;
    dra__gpools_t gp;
    dra__slot_t *slots;
    uint32_t nslots;
    uint32_t **slice_base; /* per pool, per slice: first slot */
    dra__rq_t *rqs;
    uint32_t nrqs;
    int8_t *sel; /* nslots * nrqs: -1 unknown, 0 no, 1 yes (see dra__acall_preprocess) */
    dra__cl_t *cls;
    uint32_t maxcaps;
    uint32_t claim_words;
    dra_alloc_outcome_t *out;
    char err[DRA_DIAG_MSG_MAX];
    dra__scope_t *scopes; /* per counter scope of the node's pools */
    uint32_t nscopes;
    /* the allocator's answer to "is device d of slice sl (pool p) allocated already?" */
    bool (*in_use)(void *self, const dra__gpool_t *p, const dra_slice_t *sl, uint32_t d);
    /* fast: look up a slot's state on first use (NULL: slots are complete when built) */
    int (*slot_ready)(void *self, dra__slot_t *st);
    void *self;
    uint64_t share_seed; /* options.share_seed: shareIDs are derived from it (dra__share_id) */
    const dra_alloc_state_t *state; /* the allocator's state (shareIDs unique among its shares) */
    uint64_t max_steps; /* options.max_steps: allocateOne budget per call (0 = none) */
    /* compatibility groups: undo records of the results placed (previous state of an entry) */
    struct cgundo {
        dra__cgstate_t *at;
        dra__cgstate_t prev;
    } *cgu;
    uint32_t ncgu, capcgu;
    /* derived attributes: the CEL cache (the allocator's) and the values evaluated in this call,
     * per (device, expression) */
    dra_cel_cache_t *cel;
    struct dmemo {
        const dra_device_t *d;
        const char *expr;
        dra_attr_t *attr;
    } *dm;
    uint32_t ndm, capdm; /* open addressing, capdm a power of two (0: empty) */
    bool rows;          /* dra__slot_t.row is the device's model row (dra_model_device_rows): results
                           carry it (dra_result_t.row) */
} dra__acall_t;

/* A position of the search in the node's slot layout: pool, slice of the pool, device. */
typedef struct dra_sloc {
    uint32_t p, s, d;
} dra__sloc_t;

/* The part of an allocator's per-call state both allocators set up alike: the model, the
 * behaviour of the features, the shareIDs' seed, the step budget and the scratch
 * arena (the caller finishes it with dra_arena_fini). */
void dra__acall_init(dra__acall_t *c, const dra_model_t *m, const dra_alloc_features_t *f,
                     const dra_alloc_options_t *opts);

/* Reset the per-call scratch arena and what lives in it (compatibility-group undo records,
 * derived-attribute values). */
static inline void dra__acall_reset_scratch(dra__acall_t *c)
{
    dra_arena_reset(&c->scratch);
    c->cgu = NULL;
    c->ncgu = c->capcgu = 0;
    c->dm = NULL;
    c->ndm = c->capdm = 0;
}

/* The claim's bit in a slot (a device picked by claim ci in this call). */
static inline bool dra__slot_taken_by(const dra__slot_t *s, uint32_t ci)
{
    return dra_bit_get(s->taken, ci);
}
static inline void dra__slot_take(dra__slot_t *s, uint32_t ci)
{
    if (!dra__slot_taken_by(s, ci)) {
        dra_bit_set(s->taken, ci);
        s->ntaken++;
    }
}
static inline void dra__slot_untake(dra__slot_t *s, uint32_t ci)
{
    if (dra__slot_taken_by(s, ci)) {
        dra_bit_clear(s->taken, ci);
        s->ntaken--;
    }
}

/* The request's class, count and selectors checks of one allocator (validateDeviceRequest):
 * called by dra__acall_preprocess for every request and subrequest, in order. */
typedef int (*dra_acall_validate_fn)(void *self, uint32_t ci, uint32_t rqi);

/* R_FATAL with the message in c->err. */
int dra__acall_fatal(dra__acall_t *c, const char *fmt, ...) DRA_PRINTF(2, 3);
/* Requests, subrequests and constraints of c->nclaims claims into c->rqs / c->cls; c->sel sized
 * for nslots * nrqs when need_sel (else one byte), all unknown. DRA_OK, R_FATAL, R_NOMEM, or
 * what validate returns. */
DRA_NODISCARD int dra__acall_preprocess(dra__acall_t *c, dra_claim_t *const *claims, bool need_sel,
                                       dra_acall_validate_fn validate, void *self);
/* Constraints (DRA-SEMANTICS §2.7, BUG(3) and BUG(4)): add device d, picked for rq, to
 * constraint c (index ci_cons of its claim), comparing rq's derived attribute of the name when
 * it has one (DRADerivedAttributes): 1 added, 0 rejected, R_FATAL (a derived attribute's compile
 * or runtime error, message in c->err), other < 0 out of memory; remove undoes the last add of
 * rq. */
DRA_NODISCARD int dra__acons_add(dra__acall_t *c, dra__cons_t *co, const dra__rq_t *rq, uint32_t ci_cons,
                                const dra_device_t *d);
void dra__acons_remove(dra__acall_t *c, dra__cons_t *co, const dra__rq_t *rq, uint32_t ci_cons);
/* Counters (DRA-SEMANTICS §2.10) of the slot's device: apply adds (+1) or removes (-1) its
 * consumption; reserve applies it when every counter of its scope stays within the available
 * amount (1), else leaves the scope unchanged (0); R_NOMEM. */
void dra__acall_counters_apply(dra__acall_t *c, dra__slot_t *st, int sign);
DRA_NODISCARD int dra__acall_counters_reserve(dra__acall_t *c, dra__slot_t *st);
/* The same for the request-driven amounts pa of the slot's device (DRASharedConsumableCapacity:
 * one per valueFrom counter, as dra__scc_amounts gives them; pa NULL: nothing). */
void dra__acall_scc_apply(dra__acall_t *c, dra__slot_t *st, const dra__aq_t *pa, int sign);
DRA_NODISCARD int dra__acall_scc_reserve(dra__acall_t *c, dra__slot_t *st, const dra__aq_t *pa);
/* The withheld counter set (sharedcap.c, the fail-closed rule) the slot's device draws from, or
 * NULL; *rc DRA_OK, or the error building the slot's counter scope (then NULL). */
const struct wheld *dra__acall_scc_withheld(dra__acall_t *c, dra__slot_t *st, int *rc);
/* Compatibility groups of the slot's device (DRADeviceCompatibilityGroups enforced): R_OK when
 * every counter set it consumes admits its groups, with the sets' states updated and *pushed
 * undo records pushed (dra__acall_cg_undo restores them), R_FAIL (nothing changed), R_NOMEM. */
DRA_NODISCARD int dra__acall_cg_place(dra__acall_t *c, dra__slot_t *st, uint32_t *pushed);
/* The counter set (of st's consumptions, in order) whose state - the allocated devices' groups
 * and those placed in this call - does not admit st's device, NULL when every one admits it
 * (after dra__acall_cg_place said R_FAIL: the set that refused; for explanations). */
const char *dra__acall_cg_refusing_set(dra__acall_t *ac, const dra__slot_t *st);
/* l's entry of counter set `set`; a new one ("no device placed") when add, else NULL. NULL: out
 * of memory (add). */
dra__cgent_t *dra__cg_entry(dra__acall_t *ac, dra__cglist_t *l, const char *set, bool add);
/* Fold the groups of pool p's devices in use (ac->in_use) into l: the baseline. DRA_OK,
 * DRA_ENOMEM. */
DRA_NODISCARD int dra__cg_baseline(dra__acall_t *ac, dra__cglist_t *l, const dra__gpool_t *p);
/* Undo the newest n compatibility-group records. */
void dra__acall_cg_undo(dra__acall_t *c, uint32_t n);
/* The version-skew skip (1.37+, groups not enforced): 1 the device declares groups or would
 * join a counter set an allocated device with groups draws from, 0 no, R_NOMEM. */
DRA_NODISCARD int dra__acall_cg_skip(dra__acall_t *c, dra__slot_t *st);
/* allocateDevice: try slot for request rqi of claim ci (must: a constraint failure is Fatal, as
 * for All). R_OK with the result appended, R_FAIL, R_FATAL, R_NOMEM. */
DRA_NODISCARD int dra__acall_allocate_device(dra__acall_t *c, uint32_t ci, uint32_t rqi,
                                            uint32_t slot, bool must);
/* Consumable capacity of rq (of claim ci) fits the slot's device: 1 yes, 0 no (a missing
 * capacity too, unless cap_missing_fatal), R_FATAL ("claim C, request R: <verb> capacity for
 * device D: ..." in c->err: an unrepresentable request from 1.37), R_NOMEM. */
DRA_NODISCARD int dra__acall_capacity_fits(dra__acall_t *c, uint32_t ci, const dra__rq_t *rq,
                                           dra__slot_t *st, const char *verb);
/* The shareID of a share (DRA-SEMANTICS §2.11), derived, not drawn: XXH3-128 seeded with
 * options.share_seed over the claim's identity (namespace, "default" when absent, and name),
 * the device ID (driver, pool, device), the result's index in the claim's results (its final
 * index: results are appended in order and undone on backtrack) and an attempt number, as a
 * UUID v4 text. Any value is an equally valid outcome (upstream draws a random UUID); derived,
 * it is the same whatever path or history produced the decision (reference, fast allocator,
 * the engine's direct answers). dra__acall_share_id takes attempt n, n + 1, ... (n: the
 * device's live shares in the state, so a claim identity placed on the device again and again,
 * as the runner's one claim per shape is, finds a free ID at once) until the text is neither a
 * live share of the device in the state nor the shareID of another result of this call on the
 * device (the same claim identity placed twice on one device), so two live shares of a device
 * never collide; what the attempts read is the state, equal on every path.
 * O(length of the names) per attempt. */
void dra__share_id(uint64_t seed, const dra_claim_t *c, uint32_t index, const char *driver,
                   const char *pool, const char *device, uint32_t attempt, char buf[37]);
/* dra__share_id's attempts for one (seed, claim, index, driver, pool, device), the hash input
 * built once: dra__share_id_begin takes the fields' lengths and lays out the input (the bytes
 * dra__share_id hashes, the attempt's 8 last), dra__share_id_attempt writes one attempt's 8
 * bytes and hashes: the same text as dra__share_id with that attempt, at the cost of the hash
 * and the text alone (about 200 instructions where dra__share_id takes 520). The fields are
 * borrowed (pointers kept) until the last attempt; no allocation. */
#define DRA__SID_STACK 768 /* the hash input built in the struct up to this size (one XXH3 call) */
typedef struct dra__sid {
    const char *f[5]; /* namespace, claim name, driver, pool, device */
    size_t n[5];      /* their lengths */
    size_t total;     /* hash input bytes; above DRA__SID_STACK, fed to a streaming state */
    uint64_t seed;
    uint32_t index;
    unsigned char in[DRA__SID_STACK];
} dra__sid_t;
void dra__share_id_begin(dra__sid_t *b, uint64_t seed, const dra_claim_t *c, uint32_t index,
                         const char *driver, const char *pool, const char *device);
/* The claim's fields a share ID hashes: f[0] its namespace ("default" without one), f[1] its
 * name ("" without one or without a claim), n[] their lengths. The strings are the claim's. */
void dra__share_id_claim(const dra_claim_t *c, const char *f[2], size_t n[2]);
/* dra__share_id_begin with the claim's namespace and name and their lengths given (f[0], f[1],
 * n[0], n[1]: dra__share_id_claim's),
 * measured once by a caller that derives many IDs for one claim: the same input. */
void dra__share_id_begin_named(dra__sid_t *b, uint64_t seed, const char *const f[2],
                               const size_t n[2], uint32_t index, const char *driver,
                               const char *pool, const char *device);
void dra__share_id_attempt(dra__sid_t *b, uint32_t attempt, char buf[37]);
/* A derivation's tag (dra_result_t.share_tag): gen (dra__alloc_state_share_gen, one per
 * (seed, claim) that derives: an engine plan), the result's index and the attempt, so that two
 * equal tags on one device name the same (seed, claim, index, driver, pool, device, attempt),
 * i.e. the same text. 0 when it does not fit (no gen, an index from 32, an attempt from 2048). */
#define DRA__SHARE_GEN_MAX 0xffffu
#define DRA__SHARE_TAG_ATTEMPTS 0x7ffu
static inline uint32_t dra__share_id_tag(uint32_t gen, uint32_t index, uint32_t attempt)
{
    return gen && gen <= DRA__SHARE_GEN_MAX && index < 32 && attempt <= DRA__SHARE_TAG_ATTEMPTS
               ? gen << 16 | index << 11 | attempt
               : 0;
}
/* The shareID of claim ci's next result (index cls[ci].nres) on slot (see dra__share_id). */
void dra__acall_share_id(dra__acall_t *c, uint32_t ci, uint32_t slot, char buf[37]);
/* Undo the last result of claim ci (constraints, taken mark, capacity, counters). */
void dra__acall_deallocate(dra__acall_t *c, uint32_t ci);
/* The consumed-capacity vector of cl's next result (cl->nres), allocated on first use; NULL on
 * out of memory. */
dra__aq_t *dra__acall_consumed(dra__acall_t *c, dra__cl_t *cl);
/* Allocation results of every claim into c->out (DRA-SEMANTICS §2.14), memory from out. */
DRA_NODISCARD int dra__acall_build_results(dra__acall_t *c, dra_arena_t *out);
/* The outcome of a call from the code its search (or fast path) ended with: R_OK builds the
 * results (memory from out_arena), R_FAIL is Unsatisfiable (NodeFailure when an invalid pool was
 * skipped, 1.35+), R_NODE NodeFailure, anything else Fatal, all with c->err as message. DRA_OK,
 * or DRA_ENOMEM for R_NOMEM. */
DRA_NODISCARD int dra__acall_outcome(dra__acall_t *c, int rc, dra_arena_t *out_arena);
/* The counter scope of gathered pool p when counters are per pool (1.35+): p itself, or with
 * upstream bugs the first pool of the same name (BUG(5)). O(p). */
uint32_t dra__pool_scope(const dra__beh_t *b, const dra__gpools_t *gp, uint32_t p);
/* The slot layout of the pools gp (pool order, slice order, device order), memory from ar:
 * *slots (fields d, pool, scope set, the rest zero), *nslots, *slice_base (per pool, per slice:
 * first slot), *nscopes (counter scopes: per pool from 1.35 (BUG(5): per pool name), per slice
 * in 1.34) and *maxcaps (most capacities of a device). DRA_OK or DRA_ENOMEM. */
DRA_NODISCARD int dra__acall_layout(const dra__beh_t *b, const dra__gpools_t *gp, dra_arena_t *ar,
                                   dra__slot_t **slots, uint32_t *nslots, uint32_t ***slice_base,
                                   uint32_t *nscopes, uint32_t *maxcaps);

/* Claims a fast path must leave to the search (greedy: a fast path's own capacity arithmetic;
 * else pruning): a request with derived attributes (evaluated, or fatal, where the search meets
 * a device), or one with capacity requests when 1.37 / 1.38-pre may find them fatal on a device
 * (greedy also with fractional ranges or qualified capacity names). */
bool dra__claims_need_search(const dra__beh_t *b, dra_claim_t *const *claims, uint32_t n,
                            bool greedy);
/* ---- optional node operations (node_ops.c) ---------------------------------------------------- */

/* "DRAOptionalNodeOperations": the feature name a node declares in status.declaredFeatures. */
extern const char *const dra__ono_feature;
/* Whether node lists `feature` in status.declaredFeatures (false for NULL). */
bool dra__node_declares(const dra_node_t *node, const char *feature);
/* Whether devices of slices with skipNodeOperations may be allocated on node: the allocator's
 * feature on (b->ono) and the node declaring it. */
bool dra__node_ops_usable(const dra__beh_t *b, const dra_node_t *node);
/* Whether d is not selectable on node because its slice lists skipNodeOperations and
 * dra__node_ops_usable says no. */
bool dra__node_ops_blocked(const dra__beh_t *b, const dra_node_t *node, const dra_device_t *d);

/* dra__node_ops_blocked behind an inline test of the slice's list (empty on the common path). */
static inline bool dra__dev_ops_blocked(const dra__beh_t *b, const dra_node_t *node,
                                        const dra_device_t *d)
{
    return DRA_UNLIKELY(d->slice && d->slice->nskip_node_ops) && dra__node_ops_blocked(b, node, d);
}

/* Devices with binding conditions are not selectable while DRADeviceBindingConditions is off,
 * nor devices of a slice with skipNodeOperations where the node cannot skip them (node_ops.c;
 * both before the selectors, and node-dependent only through the second). */
static inline bool dra__slot_binding_blocked(const dra__acall_t *c, const dra__slot_t *st)
{
    return (!c->b.binding && st->d->nbinding_conditions > 0) ||
           dra__dev_ops_blocked(&c->b, c->node, st->d);
}

/* ---- shared consumable capacity (sharedcap.c, KEP-5941, DRASharedConsumableCapacity on) ------ *
 * The rules and the upstream text behind each are in sharedcap.c's header. */

/* Whether capacity names a and b are the same once a name without a domain takes driver drv's
 * (common.c, beside dra__scc_device_maps). */
bool dra__cap_qname_eq(const char *a, const char *b, const char *drv);
/* Whether capacity request name req_name (a request key) names a valueFrom capacity of d
 * (common.c). */
bool dra__scc_device_maps(const dra_device_t *d, const char *req_name);
/* The amount valueFrom counter cc of device d consumes for request body, through counter
 * definition def's requestPolicy (def NULL: a counter of value 0 without policy): 1 fits the
 * policy, 0 does not, DRA__CAP_UNREPR with err filled (fatal: unrepresentable, negative, or the
 * capacity requested both with and without the driver's domain). *out is the amount. */
int dra__scc_amount(const dra__capmode_t *m, const dra_exact_request_t *body,
                    const dra_device_t *d, const dra_counter_t *cc, const dra_counter_t *def,
                    dra__aq_t *out, char *err, size_t errlen);
/* The definition (in the pool's sharedCounters) of counter k of consumption cc of d, or NULL. */
const dra_counter_t *dra__scc_counter_def(const dra__beh_t *b, const dra__gpool_t *p,
                                          const dra_device_t *d, const dra_consumes_t *cc,
                                          const dra_counter_t *k);
/* The number of valueFrom counters of d (the length of dra__scc_amounts' output). */
uint32_t dra__scc_nvalue_from(const dra_device_t *d);
/* Every valueFrom amount of d for body, in consumes / counter order, into out: 1 all fit their
 * policies, 0 some does not, DRA__CAP_UNREPR (err filled). */
int dra__scc_amounts(const dra__beh_t *b, const dra__gpool_t *p, const dra_exact_request_t *body,
                     const dra_device_t *d, dra__aq_t *out, char *err, size_t errlen);

/* The live allocations' charges, kept by the allocation state while the gate is on: one record
 * per non-adminAccess result (its device, shareID, and consumedCounters snapshot or none). */
typedef struct dra__scc_ledger dra__scc_ledger_t;
DRA_NODISCARD int dra__scc_ledger_commit(dra__scc_ledger_t **l, const dra_allocation_t *a);
void dra__scc_ledger_release(dra__scc_ledger_t *l, const dra_allocation_t *a);
void dra__scc_ledger_release_device(dra__scc_ledger_t *l, const char *driver, const char *pool,
                                    const char *device);
void dra__scc_ledger_free(dra__scc_ledger_t *l);
/* Whether the state keeps a ledger (its features have the gate on); *out its ledger (NULL when
 * empty). */
bool dra__alloc_state_scc(const dra_alloc_state_t *s, const dra__scc_ledger_t **out);
typedef void (*dra__scc_charge_fn)(void *ctx, const char *set, const char *counter, dra__aq_t v);
/* A counter set of the pool withheld (sharedcap.c, the fail-closed rule): the charge of live
 * device `device` on it cannot be established, for the reason why (a static text). */
typedef void (*dra__scc_withhold_fn)(void *ctx, const char *set, const char *device,
                                     const char *why);
/* What the live allocations of pool p draw from its counters, told to fn per (set, counter,
 * amount) (several calls may name one counter: they add up), and the counter sets withheld
 * (the four states of sharedcap.c's fail-closed rule), told to wfn (a set may be told more than
 * once; a withholding device's charges are not told). O(records of the ledger squared) for the
 * pool's, plus a scan of the pool's devices per device with a snapshot-less or withholding
 * record. */
void dra__scc_live(const dra__scc_ledger_t *l, const dra__gpool_t *p, dra__scc_charge_fn fn,
                   dra__scc_withhold_fn wfn, void *ctx);
/* dra__scc_live's sum for one counter (set, name) of pool p, into *sum; the reason when set is
 * withheld (*device, when device is not NULL, the first withholding device), else NULL. */
const char *dra__scc_live_counter(const dra__scc_ledger_t *l, const dra__gpool_t *p,
                                  const char *set, const char *name, dra__aq_t *sum,
                                  const char **device);
/* Whether device d draws from counter set `set` (names a counter of it in consumesCounters):
 * the devices a withheld counter set keeps out. */
bool dra__device_draws_from(const dra_device_t *d, const char *set);
/* Before a call decides anything: the allocation state keeps a ledger when the gate is on for
 * the allocator (state.c, whose ledger it reads). DRA_EFATAL with err otherwise. */
DRA_NODISCARD int dra__scc_check_pools(const dra__beh_t *b, const dra_alloc_state_t *st,
                                       const dra__gpools_t *gp, char *err, size_t errlen);
/* The perDevice cost of device d of pool (driver, pool) told to fn: the snapshot of its live
 * allocations when they carry one (returns 1), else its static counters in the slice (0). */
int dra__scc_device_pd(const dra__scc_ledger_t *l, const char *driver, const char *pool,
                       const dra_device_t *d, dra__scc_charge_fn fn, void *ctx);

/* The consumedCounters snapshot of a result on device d of pool p (memory from out): perDevice
 * as dra__scc_device_pd gives it, perAllocation the amounts pa (NULL: none). DRA_OK or
 * DRA_ENOMEM. */
DRA_NODISCARD int dra__scc_snapshot(dra_arena_t *out, const dra__beh_t *b,
                                    const dra__scc_ledger_t *l, const dra__gpool_t *p,
                                    const dra_device_t *d, const dra__aq_t *pa,
                                    const dra_counter_snapshot_t **snap);

/* ---- selectors ---------------------------------------------------------------------------- */

/* Class selectors then request selectors, then per-device node selection (isSelectable, steps
 * 1 and 3-5). DRA_OK with *match, or DRA_EFATAL with the upstream-like message in err. */
DRA_NODISCARD int dra__device_selectable(const dra_model_t *m, const dra__beh_t *b,
                                        dra_cel_cache_t *cel, dra_arena_t *scratch,
                                        const dra_node_t *node, const dra_claim_t *claim,
                                        const dra_device_class_t *cls,
                                        const dra_exact_request_t *req, const dra_device_t *d,
                                        bool *match, uint64_t *nevals, char *err, size_t errlen);

/* Which step of isSelectable said no (dra__device_selectable_why): binding conditions with the
 * feature off, class selector #index, request selector #index, per-device node selection; OK:
 * selectable. */
typedef enum dra__selwhy {
    DRA__SEL_OK = 0,
    DRA__SEL_BINDING,
    DRA__SEL_CLASS,
    DRA__SEL_REQUEST,
    DRA__SEL_NODE,
    DRA__SEL_NODE_OPS, /* skipNodeOperations the node cannot honour (node_ops.c) */
} dra__selwhy_t;
/* dra__device_selectable, telling which step decided (*why, *index: the selector's number for
 * CLASS and REQUEST). dra__device_selectable is this function; the explain mode reads *why. */
DRA_NODISCARD int dra__device_selectable_why(const dra_model_t *m, const dra__beh_t *b,
                                            dra_cel_cache_t *cel, dra_arena_t *scratch,
                                            const dra_node_t *node, const dra_claim_t *claim,
                                            const dra_device_class_t *cls,
                                            const dra_exact_request_t *req, const dra_device_t *d,
                                            dra__selwhy_t *why, uint32_t *index, uint64_t *nevals,
                                            char *err, size_t errlen);

/* isSelectable of the slot's device for request rqi of claim ci, evaluated (no cache): DRA_OK
 * with *match, R_FATAL with the message in c->err, R_NOMEM. Counts CEL evaluations in the
 * outcome's stats; CEL scratch memory from celscratch. Inline: it runs once per evaluation. */
static inline int dra__acall_eval_selectable(dra__acall_t *c, dra_cel_cache_t *cel,
                                            dra_arena_t *celscratch, const dra__slot_t *st,
                                            uint32_t rqi, uint32_t ci, bool *match)
{
    const dra__rq_t *rq = &c->rqs[rqi];
    int rc = dra__device_selectable(c->m, &c->b, cel, celscratch, c->node, c->cls[ci].c, rq->cls,
                                   rq->body, st->d, match, &c->out->stats.cel_evals, c->err,
                                   sizeof c->err);
    if (rc == DRA_ENOMEM)
        return R_NOMEM;
    return rc ? R_FATAL : DRA_OK;
}

/* ---- state internals ---------------------------------------------------------------------- */

/* AggregatedCapacity of the device has an entry (any share with consumedCapacity). */
bool dra__alloc_state_has_capacity(const dra_alloc_state_t *s, const char *driver,
                                  const char *pool, const char *device);
/* Aggregated consumed capacity by capacity name as written in consumedCapacity (false: none). */
bool dra__alloc_state_cap_aq(const dra_alloc_state_t *s, const char *driver, const char *pool,
                            const char *device, const char *cap_name, dra__aq_t *out);
/* The number of shares' consumedCapacity entries behind that aggregate (0: none, the aggregate
 * is absent). */
uint32_t dra__alloc_state_cap_n(const dra_alloc_state_t *s, const char *driver, const char *pool,
                                const char *device, const char *cap_name);

/* Change watchers: fn(ctx, a, rows, n) runs after every commit / release of allocation a (n
 * results) that changed the state (also after a commit that failed half-way, with rows NULL).
 * rows, when not NULL, gives per result the model row + 1 the state resolved its device to
 * (dra_result_t.row numbering over the state's model; checked against the device's strings, so a
 * watcher need not check it again), 0 for a skipped (adminAccess) result or a device the model
 * does not have; a row whose device ID repeats in the model names the first such row. After
 * dra__alloc_state_release_excl, a is NULL and rows names every one of the n devices. Registering the same
 * (fn, ctx) twice is a no-op. DRA_ENOMEM when DRA_ALLOC_STATE_MAX_WATCH are registered. Removing
 * cannot fail (an unknown pair is a no-op). The watcher list is not part of the state (digest,
 * queries), hence the const state. */
#define DRA_ALLOC_STATE_MAX_WATCH 8
typedef void (*dra_alloc_state_watch_fn)(void *ctx, const dra_allocation_t *a,
                                         const uint32_t *rows, uint32_t n);
/* The state's hint view (dra__state_hints_t, dra__state_hint_row) and the watchers' row word
 * (dra__state_word, dra__alloc_state_set_word): alloc/state_hints.h. */
/* Start loading what a release of a share on that entry reads next: its live shares and its
 * consumed capacities (reads the entry: call it a step after dra__state_hint_rest). A
 * hint: no effect on the state. */
void dra__alloc_state_prefetch_shares(const dra_alloc_state_t *s, uint32_t row);
/* Start loading, for writing, the text cell the next share a commit keeps takes (the top of the
 * free cells' stack: a cell a release gave back without touching it). A hint only. O(1). */
void dra__alloc_state_prefetch_free_cell(const dra_alloc_state_t *s);
/* A new derivation gen for dra__share_id_tag (1, 2, ...; 0 once DRA__SHARE_GEN_MAX are out):
 * unique in this state, so a tag it keeps names one derivation. O(1). */
uint32_t dra__alloc_state_share_gen(dra_alloc_state_t *s);
/* Which of the attempts tag0, tag0 + 1, ..., tag0 + 63 (tags of dra__share_id_tag: one gen and
 * index, consecutive attempts) a live share of the device (row as dra_alloc_state_row_has_share)
 * was committed with: bit j for tag0 + j. Such a share's text is that attempt's shareID (the
 * tag says it was derived from the same inputs), so the attempt is live without hashing it; a
 * share committed without a tag is not seen here. O(shares of the device). */
uint64_t dra__alloc_state_share_tags(const dra_alloc_state_t *s, uint32_t row, const char *driver,
                                     const char *pool, const char *device, uint32_t tag0);
/* Results of one allocation whose rows the watchers are told by the public commit / release
 * (more: rows NULL, they look the rows up themselves); callers passing their own rows buffer
 * size it so. */
#define DRA_ALLOC_STATE_ROWS_MAX 64
/* dra_alloc_state_commit / release that also fill rows (a->nresults entries, or NULL) as the
 * watchers get them. */
DRA_NODISCARD int dra__alloc_state_commit_rows(dra_alloc_state_t *s, const dra_allocation_t *a,
                                              uint32_t *rows);
DRA_NODISCARD int dra__alloc_state_release_rows(dra_alloc_state_t *s, const dra_allocation_t *a,
                                               uint32_t *rows);
/* Release n exclusive allocations by the rows commit gave for them (rows[i]: model row + 1, as
 * dra__alloc_state_commit_rows filled it; a row named k times is released k times), reading no
 * allocation: the release of a caller that kept its committed rows (the engine's release
 * records). All or nothing: DRA_ENOTFOUND (nothing changed, nobody told) when a row is 0, beyond
 * the model, or holds no exclusive allocation; DRA_EINVAL for rows NULL with n > 0. The watchers
 * are told (a NULL, the rows). Cost O(n) plus the watchers'; no allocation. */
DRA_NODISCARD int dra__alloc_state_release_excl(dra_alloc_state_t *s, const uint32_t *rows,
                                               uint32_t n);
/* A share a caller keeps to release it without its allocation (the engine's release records):
 * the state's row of its device (model row + 1), which of the device's live shares it is (ref:
 * where its text is, fp: the text's fingerprint) and, per consumedCapacity entry of its result
 * in order, the name as the state interned it and the amount. */
typedef struct dra__state_share {
    uint32_t srow, ref, fp, ncap;
    uint32_t nid[4];
    dra__aq_t amt[4];
} dra__state_share_t;
/* dra__alloc_state_commit_rows that also fills *sh (never read, only written) with what the
 * commit computes for the allocation's share result (DRAConsumableCapacity), so that a caller
 * can release it later by dra__alloc_state_release_rec: its state row, which of the device's
 * live shares it added (ref, fp) and, per consumedCapacity entry in order, the name's id and the
 * amount. sh->srow is 0 (nothing to keep; release by the allocation) when the allocation has no
 * share or more than one, when the share has more than 4 consumedCapacity entries or its device
 * is not a row of the model, under DRASharedConsumableCapacity, and when the commit fails. Cost:
 * dra__alloc_state_commit_rows' plus a few stores per entry; no second pass, no text copied. */
DRA_NODISCARD int dra__alloc_state_commit_share(dra_alloc_state_t *s, const dra_allocation_t *a,
                                               uint32_t *rows, dra__state_share_t *sh);
/* Release n exclusive allocations by their rows (as dra__alloc_state_release_excl) and nsh
 * shares by what dra__alloc_state_commit_share kept, reading no allocation and comparing no text:
 * each share is found by its ref and fingerprint among its device's live shares, its text's cell
 * given back and each consumedCapacity amount taken off the aggregate of its name, exactly as
 * dra__alloc_state_release_rows of the allocation would. All or nothing: DRA_ENOTFOUND (nothing
 * changed, nobody told) when a row holds no exclusive allocation or a share is not live;
 * DRA_EINVAL for NULL lists with counts or shares under DRASharedConsumableCapacity. The
 * watchers are told once (a NULL, the exclusive rows then the shares' rows). Cost O(n + shares
 * of the devices + their capacities) plus the watchers'; no allocation. */
DRA_NODISCARD int dra__alloc_state_release_rec(dra_alloc_state_t *s, const uint32_t *rows,
                                               uint32_t n, const dra__state_share_t *sh,
                                               uint32_t nsh);
/* Start loading what dra__alloc_state_release_rec reads of a kept share beyond its row's entry:
 * the entry's live shares and capacities (the share's text cell is not read: its index goes
 * back on the free cells' stack; ref is kept for the callers). Reads the entry: call it a step
 * after dra__state_hint_rest. A hint only. */
void dra__alloc_state_prefetch_share(const dra_alloc_state_t *s, uint32_t srow, uint32_t ref);
DRA_NODISCARD int dra__alloc_state_watch(const dra_alloc_state_t *s, dra_alloc_state_watch_fn fn,
                                        void *ctx);
void dra__alloc_state_unwatch(const dra_alloc_state_t *s, dra_alloc_state_watch_fn fn, void *ctx);

/* "ns/name" of a claim into buf. */
const char *dra__claim_ref(const dra_claim_t *c, char *buf, size_t len);

/* ---- the reference allocator's explain mode (explain.c) ------------------------------------ */

/* The per-call state of the reference allocator's last dra_alloc_allocate (slots, requests,
 * claims, pools, counters: valid until its next call), its CEL cache and CEL scratch arena, and
 * its allocation state. */
dra__acall_t *dra__alloc_acall(dra_allocator_t *a);
dra_cel_cache_t *dra__alloc_cel(dra_allocator_t *a);
dra_arena_t *dra__alloc_celscratch(dra_allocator_t *a);
const dra_alloc_state_t *dra__alloc_state(const dra_allocator_t *a);
/* Let the next calls read model view v instead of the model given at construction: v must be
 * the same model restricted to some of its slices (a struct copy with another slice list, as
 * the fast allocator's per-node view), holding every slice of each pool it holds and every
 * slice a call may find relevant; NULL restores the model. */
void dra__alloc_set_view(dra_allocator_t *a, const dra_model_t *v);
/* dra_alloc_allocate up to the search: GatherPools, the node's slots and the claims'
 * preprocessing (validateDeviceRequest, the All sets, limits, constraints). out is Fatal or
 * NodeFailure when those decide, else Unsatisfiable (not searched: the call state is ready for
 * the explain mode). DRA_OK, DRA_EINVAL, DRA_ENOMEM. */
DRA_NODISCARD int dra__alloc_prepare(dra_allocator_t *a, const dra_node_t *node,
                                    dra_claim_t *const *claims, uint32_t n,
                                    dra_alloc_outcome_t *out);

#endif /* DRA_ALLOC_IMPL_H */
