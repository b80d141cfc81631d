/*
 * alloc.h - the DRA allocator core: release profiles and feature switches, the allocation state
 * (what is already allocated in the cluster), the reference allocator (the literal upstream
 * depth-first search of DRA-SEMANTICS.md §2), and a brute-force enumerator that proves
 * "unsatisfiable" on tiny instances. The invariant checker lives in invariants.h.
 *
 * Semantics follow DRA-SEMANTICS.md and RELEASES.md for a release profile (1.34, 1.35, 1.36,
 * 1.37, 1.38-pre; default 1.37) and per-feature switches named like upstream's feature gates,
 * with each release's defaults and locks. Known upstream bugs are fixed by default and
 * reproduced with `upstream_bugs` in the releases that still have them (core/alloc/README.md
 * lists every decision and the upstream commit each profile follows).
 *
 * Objects:
 *  - dra_alloc_features_t: a plain value (release, gate bits, upstream_bugs), set up with
 *    dra_alloc_features_init and dra_alloc_features_set ("DRAAdminAccess=false").
 *  - dra_alloc_state_t (opaque): exclusive allocations, shares of multi-allocatable devices,
 *    aggregated consumed capacity per device. Built from the model's allocated claims, changed
 *    with commit/release; dra_alloc_state_digest is order independent, so release after commit
 *    restores the exact digest.
 *  - dra_allocator_t (opaque): the reference allocator over (model, features, state, CEL cache).
 *    dra_alloc_allocate answers one Allocate(node, claims) call: ALLOCATED (one dra_allocation_t
 *    per claim in the model's representation, owned by out_arena), UNSATISFIABLE, NODE_FAILURE
 *    (upstream's ErrFailedAllocationOnNode) or FATAL, with a message like upstream's.
 *
 * Ownership: the allocator borrows the model, the state and the CEL cache (they must outlive
 * it) and never mutates the model or the state (commit results yourself). Results are written
 * into the caller's out_arena and reference model strings. Per-call scratch memory lives in
 * arenas owned by the allocator and reset after every call, so no malloc runs inside allocate
 * once those arenas have warmed up (the CEL cache compiles an expression on first use).
 *
 * Errors: functions return DRA_OK or a negative DRA_E* code; dra_alloc_allocate returns DRA_OK
 * whenever it reached a decision (including UNSATISFIABLE / NODE_FAILURE / FATAL, see
 * out->kind) and DRA_ENOMEM / DRA_EINVAL only when it could not.
 *
 * Cost: exponential in the worst case, like upstream (the search enumerates combinations when no
 * solution exists); options.max_steps bounds it (FATAL "filter operation aborted").
 * Thread safety: an allocator is single-threaded; a state may be read by many allocators at once
 * while nobody commits.
 */
#ifndef DRA_ALLOC_H
#define DRA_ALLOC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/arena.h"
#include "base/err.h"
#include "cel/cel.h"
#include "model/model.h"

/* ---- limits (DRA-SEMANTICS §1.6) ------------------------------------------------------------ */

#define DRA_ALLOC_MAX_RESULTS 32   /* AllocationResultsMaxSize: devices per claim */
#define DRA_ALLOC_MAX_REQUESTS 32  /* DeviceRequestsMaxSize */
#define DRA_ALLOC_MAX_SUBREQUESTS 8
#define DRA_ALLOC_MAX_CONSTRAINTS 32

/* ---- release profiles and features ----------------------------------------------------------- */

/* Release profiles, ordered: a later release compares greater. 1.38-pre is not a release: it
 * follows kubernetes/kubernetes master at the commit dra_alloc_release_source names; summaries
 * print it with what it follows (dra_alloc_release_label), result files and options say
 * "1.38-pre". */
typedef enum dra_release {
    DRA_RELEASE_1_34 = 134,
    DRA_RELEASE_1_35 = 135,
    DRA_RELEASE_1_36 = 136,
    DRA_RELEASE_1_37 = 137,
    DRA_RELEASE_1_38_PRE = 138,
} dra_release_t;
#define DRA_RELEASE_DEFAULT DRA_RELEASE_1_37
#define DRA_RELEASE_FIRST DRA_RELEASE_1_34
#define DRA_RELEASE_LAST DRA_RELEASE_1_38_PRE
#define DRA_RELEASE_COUNT 5

/* Feature gates the allocator reads (upstream names in dra_alloc_gate_name). */
typedef enum dra_gate {
    DRA_GATE_ADMIN_ACCESS = 0,         /* DRAAdminAccess */
    DRA_GATE_PRIORITIZED_LIST,         /* DRAPrioritizedList */
    DRA_GATE_PARTITIONABLE_DEVICES,    /* DRAPartitionableDevices */
    DRA_GATE_DEVICE_TAINTS,            /* DRADeviceTaints */
    DRA_GATE_DEVICE_BINDING_CONDITIONS, /* DRADeviceBindingConditions */
    DRA_GATE_RESOURCE_CLAIM_DEVICE_STATUS, /* DRAResourceClaimDeviceStatus */
    DRA_GATE_CONSUMABLE_CAPACITY,      /* DRAConsumableCapacity (also distinctAttribute) */
    DRA_GATE_LIST_TYPE_ATTRIBUTES,     /* DRAListTypeAttributes */
    DRA_GATE_EXTENDED_RESOURCE,        /* DRAExtendedResource (not read by the allocator) */
    DRA_GATE_DEVICE_TAINT_RULES,       /* DRADeviceTaintRules (not read by the allocator) */
    DRA_GATE_DEVICE_COMPATIBILITY_GROUPS, /* DRADeviceCompatibilityGroups (1.37+, KEP-5963) */
    DRA_GATE_DERIVED_ATTRIBUTES,       /* DRADerivedAttributes (1.37+, KEP-6080) */
    DRA_GATE_FRACTIONAL_CAPACITY_RANGE, /* DRAFractionalCapacityRange (1.37+) */
    DRA_GATE_WORKLOAD_RESOURCE_CLAIMS, /* DRAWorkloadResourceClaims (1.36+; PodGroup-level claims,
                                          not read by the allocator) */
    /* Workload-aware scheduling (WORKLOADS.md; read by the group cycle, core/group/group.h, not
     * by the allocator). In drabench they exist from release 1.36 (scheduling.k8s.io/v1alpha2):
     * the 1.35 v1alpha1 Workload API is not modelled. */
    DRA_GATE_GENERIC_WORKLOAD,         /* GenericWorkload: PodGroup objects, the group cycle */
    DRA_GATE_GANG_SCHEDULING,          /* GangScheduling (1.36 only; merged into GenericWorkload
                                          in 1.37): the gang policy's minCount */
    DRA_GATE_TOPOLOGY_AWARE_WORKLOAD,  /* TopologyAwareWorkloadScheduling */
    DRA_GATE_OPTIONAL_NODE_OPERATIONS, /* DRAOptionalNodeOperations (1.37+, KEP-5945): slices'
                                          skipNodeOperations (core/alloc/node_ops.c) */
    DRA_GATE_SHARED_CONSUMABLE_CAPACITY, /* DRASharedConsumableCapacity (1.38-pre alpha, KEP-5941;
                                            core/alloc/sharedcap.c) */
    DRA_GATE_COUNT
} dra_gate_t;

/* Upstream allocator variants (DRA-SEMANTICS §2.1, §3.2): the first whose supported feature set
 * covers the enabled features runs. It decides permutation vs combination search (with the
 * release), bindsToNode and binding-condition pool ordering, list-attribute constraints. */
typedef enum dra_variant {
    DRA_VARIANT_STABLE = 0,
    DRA_VARIANT_INCUBATING,
    DRA_VARIANT_EXPERIMENTAL,
} dra_variant_t;

typedef struct dra_alloc_features {
    uint16_t release;   /* dra_release_t */
    uint32_t gates;     /* bit (1u << dra_gate_t) set = enabled */
    bool upstream_bugs; /* reproduce the upstream defects listed in core/alloc/README.md */
} dra_alloc_features_t;

/* Defaults of a release (gate stages of DRA-SEMANTICS §3.1 and RELEASES.md §1), upstream_bugs
 * off. */
void dra_alloc_features_init(dra_alloc_features_t *f, dra_release_t release);
/* Parse "1.34" ... "1.37" (also "v1.37", "1.37.2") and "1.38-pre" (also "v1.38-pre");
 * DRA_EINVAL with a message otherwise ("1.38" says that 1.38 is not released). */
DRA_NODISCARD int dra_alloc_release_parse(const char *s, dra_release_t *out, dra_diag_t *diag);
/* A known release profile (one of the enum values). */
bool dra_alloc_release_valid(int release);
/* "1.34" ... "1.37", "1.38-pre"; "?" for a value that is no profile. Static storage. */
const char *dra_alloc_release_name(dra_release_t release);
/* The name as summaries print it: the name, and for 1.38-pre what it follows ("1.38-pre, master
 * at 0c8a1b073dc3 + #141118"), since it is no release. Static storage. */
const char *dra_alloc_release_label(dra_release_t release);
/* The upstream sources the profile follows, one line (e.g. "kubernetes/kubernetes master at
 * 0c8a1b073dc3 (after v1.38.0-alpha.2) plus #141118 (merged after it)"); static storage. */
const char *dra_alloc_release_source(dra_release_t release);
/* Every profile, oldest first (DRA_RELEASE_COUNT entries). */
extern const dra_release_t dra_alloc_releases[DRA_RELEASE_COUNT];
/* "GATE=true|false" (or "GATE" = true). Unknown gate or value, a gate the release does not have
 * set to true, or a gate locked in the release set away from its locked value: DRA_EINVAL with
 * a message (the last in Kubernetes' words: "cannot set feature gate X to false, feature is
 * locked to true"). */
DRA_NODISCARD int dra_alloc_features_set(dra_alloc_features_t *f, const char *assignment,
                                         dra_diag_t *diag);
DRA_NODISCARD int dra_alloc_features_set_gate(dra_alloc_features_t *f, const char *gate, bool on,
                                              dra_diag_t *diag);
/* What a release says about a gate: whether it exists, its default, whether it is locked to
 * that default. */
typedef struct dra_gate_stage {
    bool exists, def, locked;
    const char *stage; /* "alpha", "beta", "GA" or "-" */
} dra_gate_stage_t;
dra_gate_stage_t dra_alloc_gate_stage(dra_release_t release, dra_gate_t g);
/* The gate by its upstream name; false when unknown. */
bool dra_alloc_gate_lookup(const char *name, dra_gate_t *out);
static inline bool dra_alloc_gate_on(const dra_alloc_features_t *f, dra_gate_t g)
{
    return (f->gates >> g) & 1u;
}
/* Whether the gang policy's minCount applies: GangScheduling in 1.35-1.36, GenericWorkload from
 * 1.37 (GangScheduling merged into it). */
static inline bool dra_alloc_gang_on(const dra_alloc_features_t *f)
{
    return f->release >= DRA_RELEASE_1_37 ? dra_alloc_gate_on(f, DRA_GATE_GENERIC_WORKLOAD)
                                          : dra_alloc_gate_on(f, DRA_GATE_GANG_SCHEDULING);
}
const char *dra_alloc_gate_name(dra_gate_t g);
/* The variant upstream would select for these features. */
dra_variant_t dra_alloc_variant(const dra_alloc_features_t *f);
const char *dra_alloc_variant_name(dra_variant_t v);

/* Node-level rules the pod filters of core/extres share with the allocator: whether toleration
 * t tolerates taint (core/v1 Toleration.ToleratesTaint), and whether node matches the node
 * selector sel (terms ORed, as nodeaffinity.NodeSelector; a malformed selector is DRA_EINVAL
 * with the reason in err, *match false). O(selector). */
bool dra_alloc_tolerates(const dra_toleration_t *t, const dra_taint_t *taint);
DRA_NODISCARD int dra_alloc_node_selector_matches(const dra_node_t *node,
                                                  const dra_node_selector_t *sel, bool *match,
                                                  char *err, size_t errlen);
/* Whether node lists `feature` in status.declaredFeatures (NodeDeclaredFeatures; false for a
 * NULL node). O(declared features). core/alloc/node_ops.c. */
bool dra_alloc_node_declares(const dra_node_t *node, const char *feature);
/* The feature a node declares for DRAOptionalNodeOperations (KEP-5945): the one name the
 * allocator (node_ops.c) and the scheduler filter (core/extres) test. */
#define DRA_NODE_FEATURE_OPTIONAL_NODE_OPERATIONS "DRAOptionalNodeOperations"

/* ---- allocation state ------------------------------------------------------------------------ */

typedef struct dra_alloc_state dra_alloc_state_t;

/* An empty state. The model is borrowed (device lookups for counters); features decide how
 * results are recorded (with DRAConsumableCapacity, a result with a shareID is a share). */
DRA_NODISCARD int dra_alloc_state_new(const dra_model_t *m, const dra_alloc_features_t *f,
                        dra_alloc_state_t **out);
void dra_alloc_state_free(dra_alloc_state_t *s);
/* Commit every claim of the model that has status.allocation (DRA-SEMANTICS §1.7). */
DRA_NODISCARD int dra_alloc_state_add_model_claims(dra_alloc_state_t *s);
/* Record / remove one claim's allocation. adminAccess results are skipped; with
 * DRAConsumableCapacity a result with shareID becomes a share (+ its consumedCapacity),
 * every other result an exclusive allocation (counted, so double commits are visible).
 * release of something never committed: DRA_ENOTFOUND (the state is unchanged). */
DRA_NODISCARD int dra_alloc_state_commit(dra_alloc_state_t *s, const dra_allocation_t *a);
DRA_NODISCARD int dra_alloc_state_release(dra_alloc_state_t *s, const dra_allocation_t *a);
/* Room, made now (outside timed work), for the shares of the next commits: at least `texts`
 * free cells for share texts, and every device whose list of live shares an earlier commit left
 * with less than `per_device` free places grown to have them (the state tracks those devices;
 * from then on a commit that leaves a device with less marks it for the next call). So a
 * commit of at most `texts` shares, at most `per_device` of them on one device, with texts of
 * a cell's size (a derived shareID) allocates nothing. DRA_OK, DRA_ENOMEM (what was made
 * stays). O(1) when there is room; else O(cells made + devices marked), and after a commit that
 * marked more devices than the state tracks one at a time, O(devices). */
DRA_NODISCARD int dra_alloc_state_reserve_shares(dra_alloc_state_t *s, uint32_t texts,
                                                 uint32_t per_device);
/* Whether allocation a may serve a pod on node, as the scheduler's DynamicResources Filter checks
 * every allocated claim of the pod before it allocates the others: the allocation's nodeSelector
 * (NULL: every node) must match the node, else the node is unsuitable ("resourceclaim not
 * available on the node"). DRA_OK with *ok; DRA_EINVAL with the reason in err when the selector
 * cannot be evaluated. O(selector). */
DRA_NODISCARD int dra_alloc_available_on(const dra_allocation_t *a, const dra_node_t *node,
                                         bool *ok, char *err, size_t errlen);
/* Order-independent digest of the whole state; equal states have equal digests. */
uint64_t dra_alloc_state_digest(const dra_alloc_state_t *s);
/* Queries by device ID (driver, pool, device). */
uint32_t dra_alloc_state_exclusive(const dra_alloc_state_t *s, const char *driver,
                                   const char *pool, const char *device);
uint32_t dra_alloc_state_shares(const dra_alloc_state_t *s, const char *driver, const char *pool,
                                const char *device);
bool dra_alloc_state_has_share(const dra_alloc_state_t *s, const char *driver, const char *pool,
                               const char *device, const char *share_id);
/* Aggregated consumed capacity of a device (sum of its shares' consumedCapacity) for an interned
 * capacity qname; false when the device has none recorded for that name. */
bool dra_alloc_state_aggregated(const dra_alloc_state_t *s, const char *driver, const char *pool,
                                const char *device, const char *cap_name, dra_quantity_t *out);
/* A device counts as "allocated" for counter bookkeeping (DRA-SEMANTICS §2.10). */
bool dra_alloc_state_in_use(const dra_alloc_state_t *s, const char *driver, const char *pool,
                            const char *device);
/* Number of distinct devices with any record. */
uint32_t dra_alloc_state_count(const dra_alloc_state_t *s);

/* Everything the allocators read about one device, found by its row (0-based, rows as
 * dra_model_device_rows numbers them over the state's model, the numbering of
 * dra_result_t.row) and checked against (driver, pool, device): a mask of DRA_STATE_* bits with
 * the meaning of the string lookups above. O(1) once a commit or an earlier call resolved the
 * row, else one string lookup (a row not of that device is looked up by the strings alone). */
#define DRA_STATE_EXCL 1u   /* dra_alloc_state_exclusive > 0 */
#define DRA_STATE_IN_USE 2u /* dra_alloc_state_in_use */
#define DRA_STATE_CAP 4u    /* dra__alloc_state_has_capacity */
#define DRA_STATE_SHARE 8u  /* dra_alloc_state_shares > 0 */
unsigned dra_alloc_state_row_flags(const dra_alloc_state_t *s, uint32_t row, const char *driver,
                                   const char *pool, const char *device);
/* Whether the device of each model row counts as allocated, for every row at once: out[row] = 1
 * when dra_alloc_state_row_flags would give DRA_STATE_IN_USE for the row and its own device,
 * else 0, for rows 0..n-1 (n at most the model's device count). O(rows), sequential over the
 * state's entries; a string lookup only for a row that repeats an earlier row's device ID. */
void dra_alloc_state_rows_in_use(const dra_alloc_state_t *s, uint8_t *out, uint32_t n);
/* dra_alloc_state_has_share with the device found by its row as above (O(1) once resolved,
 * plus a scan of the device's shares by a fingerprint of the shareID's text, no hash of it). */
bool dra_alloc_state_row_has_share(const dra_alloc_state_t *s, uint32_t row, const char *driver,
                                   const char *pool, const char *device, const char *share_id);
/* The model the state was created for (rows are numbered over it). */
const dra_model_t *dra_alloc_state_model(const dra_alloc_state_t *s);

/* Check the state's invariants: the hash table's load and probe sequences, every entry's
 * shares and capacity sums, the row index (an entry's row is its device in the model).
 * false on the first violation. O(entries * log slices); debug builds (DRA_DEBUG >= 3) run it
 * on commit and release, amortized (at operation counts that are powers of two and every
 * 4096th), and tests call it directly. */
bool dra_alloc_state_check(const dra_alloc_state_t *s);

/* ---- the allocator --------------------------------------------------------------------------- */

typedef enum dra_outcome {
    DRA_OUTCOME_ALLOCATED = 0,
    DRA_OUTCOME_UNSATISFIABLE,
    DRA_OUTCOME_NODE_FAILURE,
    DRA_OUTCOME_FATAL,
} dra_outcome_t;
const char *dra_outcome_name(dra_outcome_t o); /* "Allocated", "Unsatisfiable", ... */

typedef struct dra_alloc_stats {
    uint64_t allocate_one;   /* NumAllocateOneInvocations: recursive search calls */
    uint64_t cel_evals;      /* CEL selector evaluations (cache misses of isSelectable) */
    uint64_t candidates;     /* devices looked at by the search loop */
    uint64_t pools;          /* pools gathered for the node */
    uint32_t path;           /* fast allocator: the path that decided the call (dra_fast_path_t,
                                fast.h); 0 = the search (always 0 for the reference) */
} dra_alloc_stats_t;

typedef struct dra_alloc_outcome {
    dra_outcome_t kind;
    dra_allocation_t **allocations; /* ALLOCATED: one per claim, in claim order (out_arena) */
    uint32_t n;
    char msg[DRA_DIAG_MSG_MAX]; /* NODE_FAILURE / FATAL: message like upstream's */
    dra_alloc_stats_t stats;
} dra_alloc_outcome_t;

typedef struct dra_alloc_options {
    uint64_t max_steps;  /* 0 = unlimited; else FATAL "filter operation aborted: ..." after that
                            many allocateOne calls (upstream's Filter timeout, made deterministic) */
    uint64_t share_seed; /* seed of the derived shareIDs: a share's ID is a function of the
                            seed, the claim (namespace, name), the result's index, the device
                            and the state's live shares of it (README, "Other choices") */
} dra_alloc_options_t;

typedef struct dra_allocator dra_allocator_t;

DRA_NODISCARD int dra_alloc_new(const dra_model_t *m, const dra_alloc_features_t *f,
                                const dra_alloc_state_t *state, dra_cel_cache_t *cel,
                                const dra_alloc_options_t *opts, dra_allocator_t **out);
void dra_alloc_free(dra_allocator_t *a);

/* Allocate claims together on node (all-or-nothing). Claims are read, never modified. */
DRA_NODISCARD int dra_alloc_allocate(dra_allocator_t *a, const dra_node_t *node,
                                     dra_claim_t *const *claims, uint32_t n, dra_arena_t *out_arena,
                                     dra_alloc_outcome_t *out);

/* ---- brute force ------------------------------------------------------------------------------ */

typedef enum dra_bf_verdict {
    DRA_BF_SATISFIABLE = 0,
    DRA_BF_UNSATISFIABLE,
    DRA_BF_TOO_BIG, /* over the budget: no verdict */
    DRA_BF_ERROR,   /* the instance is fatal / node failure (validation, CEL error) */
} dra_bf_verdict_t;

typedef struct dra_bf_result {
    dra_bf_verdict_t verdict;
    uint64_t assignments; /* complete assignments examined */
    char msg[DRA_DIAG_MSG_MAX];
} dra_bf_result_t;

/* Decide whether any assignment of devices to the claims' requests (any alternative of each
 * firstAvailable request, any device set of the right size) satisfies every rule at once:
 * selectors, node scope, availability, exclusivity, taints, constraints, counters, capacity
 * and the 32-device limit. It checks complete assignments only (no incremental pruning), so it
 * shares no search code with the reference allocator. Upstream bugs are never reproduced here.
 * budget bounds the number of complete assignments (0 = 1,000,000). */
DRA_NODISCARD int dra_alloc_bruteforce(const dra_model_t *m, const dra_alloc_features_t *f,
                                       const dra_alloc_state_t *state, dra_cel_cache_t *cel,
                                       const dra_node_t *node, dra_claim_t *const *claims,
                                       uint32_t n, uint64_t budget, dra_bf_result_t *out);

#endif /* DRA_ALLOC_H */
