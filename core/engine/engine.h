/*
 * engine.h - placement in the core: compiled claim signatures, per-node summaries, a
 * candidate-node index, and one call that places a pod's claims on a node by policy with the
 * exact per-node allocator (core/alloc/fast.h) run on candidate nodes only.
 *
 * Signatures. Every distinct (device class, request selectors) of a request or firstAvailable
 * subrequest compiles once to two bitsets over the device table's rows (core/table/table.h):
 *   match: the class selectors and the request selectors are all true (no error);
 *   error: some selector would fail with a CEL runtime error (or the device has an attribute of
 *          an unsupported kind, which fails every selector), kept apart: never folded into false.
 * Each selector is lowered to column predicates (dra_lower_compile / dra_lower_eval, kernels
 * picked at run time) where it lowers, else evaluated by the interpreter row by row.
 *
 * Summaries, per signature and model node: the number of matching rows in the node's range that are
 * available, whether the range holds an error row, and the same two facts for the shared
 * (network-attached) range. Available = free (not exclusively allocated, or multi-allocatable) and,
 * for partitionable devices (DRAPartitionableDevices on), every counter it consumes has that much
 * left in its counter set (consumption of exclusively allocated devices is tracked per counter on
 * commit and release, so what is left is never underestimated) and, with 1.37's compatibility
 * groups in force (enforced, or the version-skew skip), the groups of the devices in use of each of
 * its counter sets admit it (a check that only narrows as devices join; counters.c); a
 * multi-allocatable device (DRAConsumableCapacity) is not held to its counters, which the search
 * skips while it has capacity in use. A request for k devices can only be satisfied on a node whose available matching devices
 * in its range plus the shared range number at least k: the exact search only ever picks free
 * devices that pass every selector and fit their counters, from the node's own slices or from
 * shared slices. A request in the scope of a matchAttribute constraint (scalar attribute columns)
 * uses the largest number of available matching devices of the node that share one value of the
 * attribute instead (e.g. an NVLink clique or a PCIe root; devices without the attribute cannot
 * join), plus the shared ones that have it. A request that asks for consumable capacity
 * (DRAConsumableCapacity), or one without capacity requests whose selectors match a
 * multi-allocatable device with capacities (it consumes the defaults), uses a capacity
 * signature, per (selectors, capacity requests): a row
 * counts only while the request's capacity fits what the device's shares left (dra__cap_fits against
 * the state's aggregated consumption, re-read when a result of the row is committed or released;
 * the search's own capacity check adds the shares of the same call, so it can only reject more).
 * Each is a NECESSARY condition; taints, other constraints and node selectors of shared slices can
 * only reject more. So skipping a node that fails it cannot change a decision, provided the exact
 * allocator would have answered Unsatisfiable there (and not NodeFailure or Fatal): nodes where
 * that is not certain are "hazard" nodes and always go to the exact allocator (see below).
 * Summaries are updated on dra_engine_commit / dra_engine_release: O(devices in the result *
 * signatures) plus one state lookup per capacity of a multi-allocatable device in the result (with
 * capacity signatures) plus O(log nodes) per changed count, plus, for a partitionable device, a
 * re-check of the devices sharing its counter sets and, for matchAttribute summaries, of the node's
 * value groups.
 *
 * allocationMode All (DRA-SEMANTICS 2.8): the request's set is every selectable device the node
 * sees (its range plus shared slices that select it), fixed before the search; each must then be
 * allocated, so the request fails when one of them is exclusively allocated or consumes a
 * counter with too little left (multi-allocatable devices are never counted so: their counters
 * are not checked while they have capacity in use), and when the set is empty. The All
 * signature of a request without adminAccess therefore admits node n only when no matching row
 * of n's range is such a "blocked" row (counted per node, blk) and at least one available
 * matching row is in n's range or the shared range. A row counts as a certain
 * member of the set only when nothing else can leave it out: no binding conditions with the
 * feature off, and with DRAConsumableCapacity a capacity that passes the static check of a
 * request without capacity (the snapshot's check also subtracts capacity in use: rows with
 * capacities do not count); a request that asks for capacity has no blocked rows. Shared rows are
 * never blocked rows (a shared slice may not select the node). Beside an All request (exactly,
 * without adminAccess or capacity), the other requests of the pod cannot take a device of its
 * set (the All request fails on a device already taken, and takes its set): their signatures
 * drop the certain non-multi-allocatable members of the All set from the node ranges ("excl"
 * signatures; their error rows include the All signature's). So "All of class a, plus one more
 * of class a" is rejected on every node without an exact call. adminAccess All has no condition.
 * Claims where All could end in Fatal for reasons the summaries do not see stay brute force: a
 * constraint in the claim (a violated constraint is Fatal under All), a claim whose requests
 * could take more than 32 devices (the All set counted as the node's matching rows plus the
 * shared ones), and every plan with an All request in a cluster with a pool that an All request
 * might find incomplete from some node (NodeFailure up front; Fatal in the snapshot): a pool is
 * safe when it is not a hazard pool, its slices all name one node or are all for all nodes, and
 * (1.34, without the completeness re-check) GatherPools skips none of them by itself (with
 * DRAPartitionableDevices off it skips slices with counter sets or per-device node selection).
 *
 * Hazard nodes (always candidates): a node whose candidate rows hold an error row of one of the
 * claim's signatures (errors must surface where upstream's search reaches them); a node that
 * sees a pool that may be invalid, incomplete or of mixed generations (duplicate device names,
 * duplicate counter sets, consumption of an unknown counter set, slice count mismatch; 1.38-pre
 * with DRADeviceCompatibilityGroups off: a slice with a device declaring groups, which pool
 * gathering drops), or whose node-selector evaluation fails. Claims the index cannot reason about are placed by brute force
 * (the exact allocator on node after node, i.e. dra_engine_place_reference with the engine's
 * allocator): a request with an unknown mode (allocationMode All: above), a count outside 1..32, a
 * missing class, an empty or uncompilable selector, a feature-gated field with its gate off, an
 * empty constraint, more than 32 devices in all, a request of several devices (or All) whose
 * signature matches a multi-allocatable device under DRAConsumableCapacity in the permutation
 * profiles (1.34, 1.35: one device may serve such a request several times, so the count is no
 * bound), and every claim when model node names repeat.
 *
 * Candidate-node index: per signature a max segment tree over model nodes of the free matching
 * count (hazard nodes hold INT32_MAX). A request admits node n when one of its alternatives (the
 * request itself, or any firstAvailable subrequest) has count(n) + shared >= k; a claim set
 * admits n when every request does; the first admitting node at or after a position is found by
 * leapfrogging the requests' segment trees, O(requests * log nodes) per step.
 *
 * Policies (the decision is the same as the brute-force reference placement computes):
 *  - first-fit: the first node in model node order on which the exact allocator returns
 *    Allocated (or Fatal, which ends the search with that outcome);
 *  - random: first-fit in cyclic node order starting at a node drawn uniformly (the caller draws
 *    `start` once per pod from its seeded stream): nodes start, start+1, ..., N-1, 0, ...,
 *    start-1. Not uniform over the feasible nodes (a node after a long run of full nodes is
 *    chosen more often), but exact, index-served and the rotation kube-scheduler uses;
 *  - best-fit / spread: the feasible node with the most / the fewest devices in use (the score:
 *    results committed on the node through the engine), ties by node order. Nodes are walked by
 *    score bucket (descending / ascending), in node order within a bucket; the first admitted node
 *    where the exact allocator succeeds is the answer. A Fatal anywhere ends the brute force with
 *    Fatal, so a claim with a hazard node, or a cluster where some node selector has several terms
 *    (results from such slices are Fatal when built), is placed by brute force under these two.
 * With no node allocating: NodeFailure when every node answered NodeFailure, else Unsatisfiable
 * (skipped nodes are Unsatisfiable by construction). A claim set no node admits is rejected
 * without any exact call.
 *
 * Direct answers (direct.c): on a candidate node, a plan of one claim with one ExactCount request
 * (or firstAvailable over such subrequests), with no constraint or one matchAttribute, with
 * two one-device requests under one matchAttribute, or with several ExactCount requests whose
 * candidates never meet (each with no constraint or a matchAttribute of its own, at most one
 * over devices with counters), is answered from the engine's own columns -
 * the signature's match bitset, the request's static eligibility bitset and the availability
 * bitset over the node's range of table rows, a word at a time, counters as per-counter columns
 * - instead of calling the exact allocator; with DRAConsumableCapacity one ExactCount request
 * (of one device in the permutation profiles 1.34, 1.35) may also take shares of
 * multi-allocatable devices (where the request fits
 * the capacity their shares left; consumedCapacity and shareIDs derived as the allocator
 * derives them). direct_multi.c answers the same way a pod of several claims, a claim with an
 * allocationMode All request (its whole set on the node, every member allocatable in set
 * order), shares over several requests of one claim or under a matchAttribute, and requests
 * with one candidate list (the same template twice), when the requests' candidates never meet
 * otherwise. The devices are the ones the allocator returns
 * (direct.c and direct_multi.c state why), the result is built as it builds it. Nodes where that cannot be shown
 * (hazards, slice order differing from the profile's, shared rows of the signature, counters
 * over capacity, picks among partitionable devices that interfere, a counter set whose devices
 * in use both have and lack compatibility groups) go to the allocator, and so do plans over
 * capacities with fractional ranges; devices of counter sets with compatibility groups (1.37,
 * enforced or skipped) are answered with the groups of the devices in use (kept in the
 * availability bit and the summaries: a device the groups refuse is not available) and of the
 * devices picked in the call (served "direct-groups"); a request with derived attributes, or with a capacity request some matching device
 * would fail the call on (1.37's missing capacity, 1.38-pre's unrepresentable request), makes
 * the plan brute force (plan.c); out->served says which decided. DRA_DEBUG >= 3 builds and opts.verify_direct compare every direct
 * answer with the allocator's. dra_engine_needs_allocator names the nodes the allocator may
 * still see (so its per-node layouts are built for those only).
 *
 * Node resources (the kube-scheduler's NodeResourcesFit): a plan may carry the pod's cpu and
 * memory requests (dra_engine_plan_resources; 0 = no request, the default, which skips the
 * check entirely, so plans without requests place exactly as before). A node fits when its
 * status.allocatable (m->nodes[i]->alloc_cpu / alloc_memory, read at set-up; cpu rounded up to
 * millicores, memory to bytes) minus the requests of the pods committed on it through
 * dra_engine_commit_pod is at least the request. A node that declares no allocatable for a
 * resource is unlimited in it. The check runs before devices, in every path (index, brute
 * force, reference placement): a node that does not fit is skipped like an Unsatisfiable node
 * (no exact call). dra_engine_commit / dra_engine_release do not touch resource usage.
 * Set-up fails with DRA_EINVAL (diag names the node) on an allocatable that is not a
 * non-negative quantity of at most 2^63-1 units.
 *
 * Ownership: the engine borrows the model, the table, the state (which it mutates in commit and
 * release: commit and release results through the engine so the summaries stay exact), the CEL
 * cache and the allocator; all must outlive it. The model and the table change under it only
 * through a slice update followed by dra_engine_update_slice (below). Claims passed to dra_engine_plan are borrowed.
 * Results are written into the caller's out_arena (reset when nothing was placed), a direct
 * answer placed with dra_engine_place_slot into the caller's result slot; a direct
 * answer's strings, configs and node selector are the model's and the engine's (valid while
 * the engine lives; shared by the pods of a plan or a node: read only).
 * Errors: DRA_OK or a negative DRA_E* code (DRA_ENOMEM, DRA_EINVAL; DRA_EINTERNAL when a
 * verified direct answer differs, with the difference in out->msg); placement returns DRA_OK
 * whenever it reached a decision (see out->kind). Cost: set-up O(rows * signatures) plus one
 * selector evaluation pass per selector; placement O(requests * log nodes) per admitted node
 * plus a direct answer (O(words of the node's range), one arena allocation; none into a caller's
 * result slot: dra_engine_place_slot) or an exact call;
 * no malloc in place / commit / release once planned (release records are the caller's memory).
 * Thread safety: single-threaded.
 */
#ifndef DRA_ENGINE_H
#define DRA_ENGINE_H

#include <stdbool.h>
#include <stdint.h>

#include "alloc/alloc.h"
#include "alloc/fast.h"
#include "base/arena.h"
#include "base/err.h"
#include "cel/cel.h"
#include "model/model.h"
#include "table/table.h"

#define DRA_ENGINE_NONE UINT32_MAX

typedef enum dra_engine_policy {
    DRA_ENGINE_FIRST_FIT = 0,
    DRA_ENGINE_BEST_FIT,
    DRA_ENGINE_SPREAD,
    DRA_ENGINE_RANDOM,
} dra_engine_policy_t;

/* How a placement was served. */
typedef enum dra_engine_path {
    DRA_ENGINE_PATH_INDEX = 0, /* candidates from the index, exact allocator on those */
    DRA_ENGINE_PATH_REJECT,    /* no node admitted (devices or node resources): no exact call */
    DRA_ENGINE_PATH_BRUTE,     /* brute force (claim the index cannot reason about) */
    DRA_ENGINE_PATH_COUNT
} dra_engine_path_t;

/* Which exact answer decided a placement on the chosen node: the engine's own columns (direct
 * answers, below) or the exact allocator, by the path that decided its call (fast.h). NONE when
 * no node decided (unsatisfiable or node failure everywhere, or rejected by the summaries). */
typedef enum dra_engine_served {
    DRA_SERVED_NONE = 0,
    DRA_SERVED_DIRECT_FIRST,    /* one ExactCount request: the first k eligible rows */
    DRA_SERVED_DIRECT_MATCH,    /* the same in one matchAttribute group */
    DRA_SERVED_DIRECT_COUNTERS, /* the first over partitionable devices (counter columns) */
    DRA_SERVED_DIRECT_SHARES,   /* the first k with shares of multi-allocatable devices
                                   (DRAConsumableCapacity: capacity left, derived shareIDs) */
    DRA_SERVED_DIRECT_GROUPS,   /* the same over counter sets with compatibility groups (1.37:
                                   the groups of the devices in use and of the picks) */
    DRA_SERVED_DIRECT_ALL,      /* a claim with allocationMode All: every device of its set
                                   (core/engine/direct_multi.c) */
    DRA_SERVED_DIRECT_CLAIMS,   /* several claims of one pod, each request answered alone */
    DRA_SERVED_DIRECT_REQUESTS, /* several requests of one claim with shares among them */
    DRA_SERVED_SEARCH,          /* the fast allocator's depth-first search */
    DRA_SERVED_FAST_FIRST,      /* the fast allocator's paths (dra_fast_path_t) */
    DRA_SERVED_FAST_MATCH,
    DRA_SERVED_FAST_COUNTERS,
    DRA_SERVED_FAST_UNSAT,
    DRA_SERVED_REFERENCE,       /* the reference allocator */
    DRA_SERVED_COUNT
} dra_engine_served_t;
/* "none", "direct-first", "direct-match", "direct-counters", "direct-shares", "direct-groups",
 * "direct-all", "direct-claims", "direct-requests", "search", "fast-first", "fast-match",
 * "fast-counters", "fast-unsat", "reference". */
const char *dra_engine_served_name(dra_engine_served_t s);

typedef struct dra_engine dra_engine_t;

typedef struct dra_engine_opts {
    /* Optional monotonic clock used to time the call (direct answer or exact allocator) that
     * produced the result (out->alloc_ns, in this clock's units: ns, or ticks the caller
     * converts); NULL = not timed. */
    int64_t (*clock_ns)(void);
    /* Compare every direct answer with the exact allocator's on the same node (tests; always on
     * in DRA_DEBUG >= 3 builds): a difference makes dra_engine_place return DRA_EINTERNAL with
     * the difference in out->msg. Costs an allocator call per direct answer. */
    bool verify_direct;
} dra_engine_opts_t;

/* Build the engine over model m (its nodes are the placement targets, m->nodes order), its table
 * t, features f, the allocation state, the CEL cache and the exact allocator alloc (normally
 * the fast one). Reads the state's current allocations. diag gets a message on failure. */
DRA_NODISCARD int dra_engine_new(const dra_model_t *m, const dra_table_t *t,
                                 const dra_alloc_features_t *f, dra_alloc_state_t *state,
                                 dra_cel_cache_t *cel, dra_anyalloc_t *alloc,
                                 const dra_engine_opts_t *opts, dra_engine_t **out,
                                 dra_diag_t *diag);
void dra_engine_free(dra_engine_t *e);

/* Reuse between runs (the runner's repetitions). dra_engine_save keeps an image of everything
 * placements, commits and releases change - the rows' use, availability and counter columns,
 * the signatures' counts and index trees, scores and buckets, node resources in use, the score
 * trees, the placement counters - as they are now (call it after the plans and
 * dra_engine_prepare_policy, with the state as every run starts from it). dra_engine_reset puts
 * them back, so the next run starts from exactly what a new engine with the same plans gives,
 * without building the tables, counters, signatures and plans again; then, with the fast
 * allocator, it seeds the allocator the engine borrows with the signatures' selector answers as
 * dra_engine_plan did (the caller may have replaced it by a new one of the same kind and
 * options in between: its per-node layouts are the caller's, dra_engine_needs_allocator). The
 * caller releases every result committed through the engine first (the state back to what it
 * was at the save). Errors: DRA_ENOMEM (save); DRA_EINVAL (reset) when nothing was saved, or the
 * engine changed in a way the image does not cover since the save - a plan or signature or
 * score tree compiled, a slice update, a different number of allocations in the state, a record
 * held - in which case nothing was changed and the caller builds a new engine. Cost: a copy of
 * the image (O(rows + nodes * signatures)), no work per device, no CEL; not for timed regions
 * (the save allocates). A second save replaces the image. */
DRA_NODISCARD int dra_engine_save(dra_engine_t *e);
DRA_NODISCARD int dra_engine_reset(dra_engine_t *e);

/* dra_alloc_state_rows_in_use of the state the engine borrows, from the engine's per-row use
 * counts (results committed through it, adminAccess aside, as the state counts them) instead
 * of a lookup of every row's state entry: out[row] = 1 when model row `row`'s device is in use,
 * for rows 0..n-1 (n at most the model's device count). A row whose device ID another row
 * repeats, and every row in the profiles where the state does not count shares as in use
 * (upstream bugs before 1.36), is asked of the state. O(rows), one load per row. */
void dra_engine_rows_in_use(const dra_engine_t *e, uint8_t *out, uint32_t n);
/* The same answer for a list of rows: out[i] for model row rows[i], from the engine's use
 * counts. false (out partly written) when a row is not answered by them - a row past the
 * engine's, a row whose device ID another row repeats (committing either puts both in use), the
 * profiles where the state answers - so the caller asks dra_engine_rows_in_use instead. O(n). */
bool dra_engine_rows_in_use_at(const dra_engine_t *e, const uint32_t *rows, uint32_t n,
                               uint8_t *out);

/* Compile a pod's claims once (untimed set-up); *plan is the id for dra_engine_place. The claims
 * array is copied, the claims borrowed. */
DRA_NODISCARD int dra_engine_plan(dra_engine_t *e, dra_claim_t *const *claims, uint32_t n,
                                  uint32_t *plan);
/* Set the pod's cpu (millicores) and memory (bytes) requests of a plan; 0 = no request.
 * DRA_EINVAL on a negative value or an unknown plan. O(1). */
DRA_NODISCARD int dra_engine_plan_resources(dra_engine_t *e, uint32_t plan, int64_t cpu_milli,
                                            int64_t memory_bytes);
/* Quantity text ("500m", "2Gi", "1.5") in units of 10^scale, rounded up like kube's
 * MilliValue (scale -3) / Value (scale 0). DRA_EINVAL when it does not parse, is negative, or
 * does not fit int64 units. */
DRA_NODISCARD int dra_engine_quantity_units(const char *s, int32_t scale, int64_t *out);
/* How many nodes lack the plan's cpu / memory request now (for a reason text). O(nodes). */
void dra_engine_res_short(const dra_engine_t *e, uint32_t plan, uint32_t *cpu, uint32_t *memory);
/* Node resources: out = {cpu allocatable (milli), memory allocatable (bytes), cpu used, memory
 * used}; allocatable -1 = unlimited. */
void dra_engine_node_resources(const dra_engine_t *e, uint32_t node, int64_t out[4]);
/* Whether a plan is served by the index (false: brute force). */
bool dra_engine_plan_indexed(const dra_engine_t *e, uint32_t plan);

typedef struct dra_engine_result {
    dra_outcome_t kind;
    uint32_t node;                  /* model node index when ALLOCATED / FATAL, else NONE */
    dra_allocation_t **allocations; /* ALLOCATED: one per claim, in out_arena */
    uint32_t n;
    char msg[DRA_DIAG_MSG_MAX];     /* FATAL / NODE_FAILURE message of the deciding call */
    dra_engine_path_t path;
    uint32_t exact_calls;           /* nodes the exact allocator ran on */
    uint32_t direct_calls;          /* nodes answered from the engine's columns (direct answers) */
    dra_engine_served_t served;     /* what decided on out->node */
    int64_t alloc_ns;               /* the call that produced the result (opts clock's units) */
    dra_alloc_stats_t stats;        /* summed over the exact calls */
} dra_engine_result_t;

/* Place the plan's claims by policy (start: the random policy's first node, < node count,
 * ignored by the others). */
DRA_NODISCARD int dra_engine_place(dra_engine_t *e, uint32_t plan, dra_engine_policy_t policy,
                                   uint32_t start, dra_arena_t *out_arena,
                                   dra_engine_result_t *out);

/* A result slot: memory the caller keeps from pod to pod (one per pod in flight), into which
 * dra_engine_place_slot builds a direct answer - the allocation list, the allocation, its
 * results and a share's ID and consumedCapacity - instead of allocating it from an arena. The
 * engine remembers in `tmpl` what the memory holds: placing the same plan's same alternative
 * into the slot again writes only what differs per pod (the devices, their pools and rows, the
 * node selector), not whole results.
 *
 * Ownership: mem is the caller's (freed by the caller; 16-byte aligned); between placements
 * the engine owns its contents, which the caller reads only (a result written by the caller
 * makes the next placement's answer wrong where the template was not rewritten). The results of
 * a placement into a slot stay valid until the next placement into it (and while the engine
 * lives: they name its strings). Set tmpl to 0 when mem is new or changed and before placing
 * into the slot with another engine than the last one (the template names the last one's
 * strings and configs). A direct answer larger than cap, and every answer of the exact allocator,
 * goes to the arena as with dra_engine_place. */
typedef struct dra_engine_slot {
    void *mem;     /* the caller's memory (NULL: none) */
    size_t cap;    /* its size in bytes */
    uint64_t tmpl; /* the engine's: which template mem holds (0: none) */
} dra_engine_slot_t;

/* Bytes of the slot's memory the last dra_engine_place_slot took (from its start; 0 when its
 * answer went to the arena, or no placement into a slot yet): what the next placement of the
 * same template writes again, so a caller that warms the slot's memory before it needs no more
 * lines than these. O(1). */
size_t dra_engine_slot_used(const dra_engine_t *e);

/* Bytes a slot needs to hold every direct answer of the plans compiled so far (0 when no plan
 * has one); an answer's shares count the most capacities of any multi-allocatable device.
 * O(plans x alternatives). */
size_t dra_engine_slot_bytes(const dra_engine_t *e);

/* dra_engine_place with the direct answers built into slot (NULL: dra_engine_place): the same
 * decision, the same results; nothing taken from out_arena when the answer is direct and fits.
 * Cost: dra_engine_place's without the result's arena allocation; with the slot's template,
 * the result writes are the per-pod fields only. */
DRA_NODISCARD int dra_engine_place_slot(dra_engine_t *e, uint32_t plan, dra_engine_policy_t policy,
                                        uint32_t start, dra_engine_slot_t *slot,
                                        dra_arena_t *out_arena, dra_engine_result_t *out);

/* The same decision by brute force: allocator `alloc` (reference or fast, over the engine's
 * state) on node after node in the policy's order (best-fit / spread: every node, then the
 * chosen node once more into out_arena). Scores are the engine's. path is BRUTE. */
DRA_NODISCARD int dra_engine_place_reference(dra_engine_t *e, dra_anyalloc_t *alloc, uint32_t plan,
                                             dra_engine_policy_t policy, uint32_t start,
                                             dra_arena_t *out_arena, dra_engine_result_t *out);

/* The exact answer of a plan on one model node, as placement computes it there: the direct
 * answer where the plan has one on the node, else the engine's allocator (the summaries, the
 * node index and node resources are not consulted). out->kind is the allocator's outcome kind
 * (ALLOCATED, UNSATISFIABLE, NODE_FAILURE or FATAL, with its message); out->served says what
 * answered. For differential tests (`drabench alloc --test --allocator both`). */
DRA_NODISCARD int dra_engine_answer_on(dra_engine_t *e, uint32_t plan, uint32_t node,
                                       dra_arena_t *out_arena, dra_engine_result_t *out);

/* Commit / release a placed pod's allocations on model node `node` into the state and update
 * summaries, index and the node's score (+/- the number of results). Returns the first state
 * error (the remaining allocations are still attempted); summaries follow what the state
 * accepted. */
DRA_NODISCARD int dra_engine_commit(dra_engine_t *e, uint32_t node, dra_allocation_t *const *a,
                                    uint32_t n);
DRA_NODISCARD int dra_engine_release(dra_engine_t *e, uint32_t node, dra_allocation_t *const *a,
                                     uint32_t n);

/* dra_engine_commit / dra_engine_release plus the plan's cpu / memory requests added to /
 * removed from the node's usage (node resources, above). Release with the plan committed. */
DRA_NODISCARD int dra_engine_commit_pod(dra_engine_t *e, uint32_t plan, uint32_t node,
                                        dra_allocation_t *const *a, uint32_t n);
DRA_NODISCARD int dra_engine_release_pod(dra_engine_t *e, uint32_t plan, uint32_t node,
                                         dra_allocation_t *const *a, uint32_t n);

/* Release records: a release at the cost of its commit. A commit through
 * dra_engine_commit_pod_rec also keeps, in a record in the caller's memory (one cache line for
 * up to 6 exclusive results when 64-byte aligned, two beyond), what its release needs: the
 * node, the plan, the number of results (the node's score) and, per exclusive result, the
 * state's row and the engine's table row; for a share under DRAConsumableCapacity (one a pod,
 * beside up to 5 exclusive results: the record's second line) also which of its device's live
 * shares it is and the capacity it consumed. dra_engine_release_record takes the pod back from
 * the record, reading neither the allocations nor the state's device index nor the engine's
 * row mapping: its first load is the record, which a caller that knows the next departure
 * starts early (dra_engine_prefetch_record). State, summaries, index, score, node resources and
 * the allocator's row mirror end exactly as dra_engine_release_pod of the same allocations
 * would leave them. The record is the caller's so that the caller can warm its line with the
 * rest of what it keeps per pod before the placement (the runner: one record per result slot,
 * in a dense array of its own): a commit then writes no line of its own that is cold.
 *
 * Ownership: the memory is the caller's; its contents are the engine's (the caller reads only
 * dra_engine_rec_held). Zeroed memory is a record not held. A held record stays valid until
 * the release that takes it back, and for that engine only; the allocations stay the caller's
 * and must not change in between (the record is what the release undoes). A copy of a record is
 * not a second record (a second release of the same pod is refused by the state). Cost: commit
 * and release by record allocate nothing. */
/* Exclusive results a record keeps; a pod with more is committed without one. */
#define DRA_ENGINE_REC_ROWS 14
/* consumedCapacity entries of a share a record keeps; a share with more is not recorded. */
#define DRA_ENGINE_REC_CAPS 2
/* A share (DRAConsumableCapacity) a record keeps: which of its device's live shares the commit
 * added and the capacity it consumed, as the commit resolved them, so its release gives back
 * exactly those amounts without reading the result (its share ID, its consumed list) or
 * comparing any text. */
typedef struct dra_engine_rec_share {
    uint32_t ref, fp; /* the state's share: where its text is and the text's fingerprint */
    uint8_t ncap;     /* the result's consumedCapacity entries, in order */
    uint8_t cidx[DRA_ENGINE_REC_CAPS]; /* each one's capacity in the engine's row, 0xff: none */
    uint8_t pad;
    uint32_t nid[DRA_ENGINE_REC_CAPS];    /* each one's name as the state interned it */
    uint64_t amt[DRA_ENGINE_REC_CAPS][2]; /* each one's amount, nano units (low, high word) */
} dra_engine_rec_share_t;
/* dra_engine_rec_t.held: a row of the record consumes counters (the look-ahead starts the lines
 * that say which, for such a record only). */
#define DRA_ENGINE_REC_CTR 2u
typedef struct dra_engine_rec {
    uint32_t node;   /* the engine's: the model node of the pod */
    uint32_t plan;   /* the plan committed */
    uint8_t nrows;   /* exclusive rows recorded: rows[0 .. nrows) */
    uint8_t held;    /* from the commit that kept it to the release that takes it back: 1, or
                        1 | DRA_ENGINE_REC_CTR when one of its rows consumes counters (for the
                        release look-ahead: commit.c); else 0 */
    uint8_t nshares; /* shares recorded (0 or 1): rows[nrows] is its row, `share` the rest */
    uint8_t ndev;    /* results of the allocations (the node's score moves by them) */
    uint32_t sigs;   /* the rows' signatures (< 32) at the commit: a hint for the look-ahead only */
    union {
        struct {
            uint32_t srow, row; /* the state's row (model row + 1) and the engine's table row */
        } rows[DRA_ENGINE_REC_ROWS];
        struct { /* with a share: up to 6 rows in the first line, the share the second */
            uint64_t rows_line0[6];
            dra_engine_rec_share_t share;
        } s;
    };
} dra_engine_rec_t;

/* Whether rec holds a committed pod (NULL: false). */
bool dra_engine_rec_held(const dra_engine_rec_t *rec);
/* Records held now (committed and not yet released). */
uint32_t dra_engine_records_held(const dra_engine_t *e);

/* dra_engine_commit_pod, and *rec (never NULL) becomes the pod's release record, or a record
 * not held when none was kept: the commit failed (its error is returned), a result is
 * adminAccess, a device is not a row of the engine's model (or its ID repeats in the model), the
 * state has another model, the pod has more than DRA_ENGINE_REC_ROWS exclusive results (or 255
 * results), or it has shares under DRAConsumableCapacity beyond what a record keeps: more than
 * one, one with more than DRA_ENGINE_REC_CAPS consumedCapacity entries (or a name matching two
 * capacities of its device), one beside more than 5 exclusive results, or any under
 * DRASharedConsumableCapacity. Without a record, release with
 * dra_engine_release_pod. DRA_EINVAL also for a rec that is held (its pod not yet released):
 * nothing committed. O(results) on top of the commit; the record is only stored into (a cold
 * record costs the commit no wait). */
DRA_NODISCARD int dra_engine_commit_pod_rec(dra_engine_t *e, uint32_t plan, uint32_t node,
                                            dra_allocation_t *const *a, uint32_t n,
                                            dra_engine_rec_t *rec);
/* Release the pod committed with record rec and mark it not held. DRA_EINVAL (no engine, a
 * record not held or not this engine's: a node or plan it does not have), DRA_ENOTFOUND (the
 * state no longer holds one of the record's devices, as after a release of the same allocations
 * by another call): nothing changed and the record stays held. O(rows) plus the summaries'
 * update of each row (as dra_engine_release_pod). */
DRA_NODISCARD int dra_engine_release_record(dra_engine_t *e, dra_engine_rec_t *rec);
/* Start loading the lines a later dra_engine_release_record(e, rec) reads, one stage of the
 * chain per call, each stage reading the lines the one before started (a caller that knows the
 * departures to come calls stage 0 for the release three ahead, 1 for two ahead, 2 for the
 * next): stage 0 the record's first line; 1 (reading the record) its second line when it has
 * one, the state's entries, the row mirror and the engine's per-row columns; 2 (reading those)
 * the node's entries in the signatures the rows match, the allocator's pool entries of the
 * rows and each row's use again (stage 1's line is often evicted by then); with a share,
 * stage 1 also its capacities' offset in the engine and its device entry, stage 2 (reading the
 * record's second line) the state's live shares and capacities of its device and its text's
 * cell, the engine's capacity aggregates of the row, the capacity
 * signatures' fit bits and the model device (for the next placement on it). The release starts
 * none of them itself: a caller that does not look ahead pays the loads one after another. A
 * hint: any record is accepted (NULL, one not held, a stage above 2: nothing), nothing changes.
 * O(rows). */
void dra_engine_prefetch_record(const dra_engine_t *e, const dra_engine_rec_t *rec,
                                unsigned stage);
/* Stage 2 of record next and stage 1 of record second in one call (either NULL: skipped), as
 * dra_engine_prefetch_record(e, next, 2) then (e, second, 1): what a look-ahead one and two
 * departures ahead asks per release, for one call's entry. A hint as above. O(rows). */
void dra_engine_prefetch_records(const dra_engine_t *e, const dra_engine_rec_t *next,
                                 const dra_engine_rec_t *second);

/* Start loading the lines a later dra_engine_release / _release_pod of these allocations on
 * model node `node` reads (the state's entries, the fast allocator's row mirror, the engine's
 * per-row columns and the node's entries in the signatures the rows match), so a caller that
 * knows which pod departs next can have them in flight before that release. A hint only:
 * nothing is changed and any input is accepted (NULL engine or list: nothing done). Reads the
 * allocations' results (a caller wanting no wait has loaded or prefetched them) and the
 * engine's row mapping; O(results), at most 32 results. No allocation. */
void dra_engine_prefetch_release(const dra_engine_t *e, uint32_t node, dra_allocation_t *const *a,
                                 uint32_t n);
/* The step after dra_engine_prefetch_release for the same allocations (a release later): reads
 * the lines that one started and starts what they name - the state's live shares and consumed
 * capacities of each device, the engine's capacity aggregates of a shared device and the
 * device's capacities, the allocator's pool entries, and the node's entries in the signatures
 * the rows match. The same contract (a hint; any input accepted; O(results), at most 32). */
void dra_engine_prefetch_release_next(const dra_engine_t *e, uint32_t node,
                                      dra_allocation_t *const *a, uint32_t n);

/* Whether placing the plans compiled so far may call the exact allocator on model node `node`:
 * a plan placed by brute force, a hazard node, a node where some alternative of a plan the
 * direct answers do not serve (or may hand to the allocator: several partitionable devices)
 * has a matching or error row in the node's range or in the shared range, and every node while
 * direct answers are verified. A node for which this is false is never given to the allocator,
 * so its per-node layout need not be built (dra_anyalloc_prepare) - unless a counter set with
 * compatibility groups holds devices in use with and without groups (a state no allocator
 * makes, from the state the engine was given or allocations committed by hand): its answers go
 * to the allocator, which builds the node's layout on that first call. O(plans * alternatives *
 * rows of the node's range). */
bool dra_engine_needs_allocator(const dra_engine_t *e, uint32_t node);

/* Ready the structures a policy reads outside timed regions: best-fit and spread walk score
 * buckets, which commits keep only from the first such placement (or this call) on; the first
 * placement of such a policy fills them otherwise. O(nodes) once. */
void dra_engine_prepare_policy(dra_engine_t *e, dra_engine_policy_t policy);

/* Devices in use on a model node (the best-fit / spread score). */
uint32_t dra_engine_score(const dra_engine_t *e, uint32_t node);

/* ---- bounds for groups of pods (plan.c; the PodGroup cycle, core/group/group.h) ----------- */

#define DRA_ENGINE_UNBOUNDED UINT32_MAX

/* The first model node >= from the plan's summaries admit (engine_admits), NONE when none; a
 * plan placed by brute force admits every node. Node resources are not consulted.
 * O(requests * log nodes) per call (the index's leapfrog). */
uint32_t dra_engine_next_admitted(const dra_engine_t *e, uint32_t plan, uint32_t from);

/* An upper bound on how many pods of the plan can be placed on `node` one after another from
 * the current state (each commit only takes devices and node resources): per request the sum
 * over its alternatives of (available matching devices of the node, or of each of its
 * matchAttribute value groups) / count, the smallest over the requests, and the node's cpu /
 * memory left over the plan's requests. DRA_ENGINE_UNBOUNDED where the summaries cannot bound
 * it: a plan placed by brute force, a signature matching a multi-allocatable device (shares), a
 * signature with shared (network-attached) rows, All or capacity signatures, a hazard or error
 * node of the plan, node selectors with several terms. 0 implies the plan does not admit the
 * node (for devices or resources). O(requests * alternatives), plus the node's value groups of
 * matchAttribute signatures. */
uint32_t dra_engine_fit_bound(const dra_engine_t *e, uint32_t plan, uint32_t node);

/* Whether every answer of the plan on a node is certain from the summaries where they reject
 * it, and none can be Fatal or a NodeFailure on a node whose dra_engine_fit_bound is finite: the
 * plan is indexed, has no hazard or error node and no node selector has several terms. */
bool dra_engine_plan_certain(const dra_engine_t *e, uint32_t plan);

/* ---- slice updates (update.c) -------------------------------------------------------------- */

/* Model slice `slice` was republished (dra_model_slice_update) and its rows re-encoded
 * (dra_table_update_slice, on the table the engine reads): bring the engine up to date for those
 * rows only. For every compiled signature: the match and error bits of the slice's rows (the
 * interpreter on each row: lowered programs are bound to the dictionaries they were compiled
 * against), its capacity-fit bits, the All-set membership and blocked bits, the per-row
 * signature masks, the node's matchAttribute groups; then the node's counts, error flags and
 * blocked counts in every signature's summary and segment tree (or, for a shared slice, the
 * shared-range facts), each plan's error nodes and hazard flag, and the static eligibility of
 * every direct answer over the rows (a plan whose direct answer no longer holds loses it: the
 * exact allocator answers instead). A plan whose indexed decision may depend on the rows (an All
 * request, or a signature now matching a multi-allocatable device where that matters) is
 * recompiled in place: plan ids stay valid. The allocator the engine borrows forgets its cached
 * selector results for the slice's devices and its layout of the slice's node (fast.h,
 * dra_fast_invalidate_slice).
 * Hazard nodes do not change: an update keeps device names, node scoping and counter
 * consumption. Not incremental (DRA_EUNSUPPORTED with the reason in diag, nothing changed: build
 * a new engine): a change of counter consumption or of allowMultipleAllocations, or of the
 * capacities of a multi-allocatable device while capacity signatures exist. Allocations of the
 * slice's devices stay committed (the state is keyed by device ID); the summaries keep counting
 * them as in use. Errors: DRA_EINVAL, DRA_EUNSUPPORTED, DRA_ENOMEM.
 * Cost: O(rows of the slice * (signatures + selectors evaluated)) + O(signatures * (rows of the
 * node + log nodes)) + O(plans * alternatives * rows of the slice); a node whose number of
 * matchAttribute groups grows also shifts that signature's group offsets (O(nodes)). No malloc
 * once the update scratch has warmed up, except when a plan's error nodes grow or a plan is
 * recompiled. */
DRA_NODISCARD int dra_engine_update_slice(dra_engine_t *e, uint32_t slice, dra_diag_t *diag);

/* ---- introspection for tests ----------------------------------------------------------------- */

typedef struct dra_engine_info {
    uint32_t nsigs;        /* distinct compiled signatures */
    uint32_t nlowered;     /* selectors evaluated through lowered column predicates */
    uint32_t ninterpreted; /* selectors evaluated by the interpreter per row */
    uint32_t nhazard;      /* hazard nodes (pools / node selectors) */
    bool multiterm;        /* some node selector has several terms */
    uint64_t placements[DRA_ENGINE_PATH_COUNT];
    uint32_t nupdates;     /* dra_engine_update_slice calls that succeeded */
    uint64_t update_rows;  /* (row, signature) pairs they re-derived: rows of the slice times
                              the signatures, per update */
    uint64_t update_evals; /* selector evaluations they ran (interpreter, per row) */
} dra_engine_info_t;
void dra_engine_get_info(const dra_engine_t *e, dra_engine_info_t *out);

/* Whether the plan's summaries admit model node `node` (hazard nodes always do). */
bool dra_engine_admits(const dra_engine_t *e, uint32_t plan, uint32_t node);

/* A digest of what each plan's placement reads (tests): per plan its indexed flag, hazard and
 * error nodes, direct-answer kind and eligibility bits, and per alternative the signature's
 * match / error / capacity-fit bits, per-node counts, error flags, blocked counts and index
 * leaves, and shared-range facts. Independent of signature numbering, so an engine brought up to
 * date by dra_engine_update_slice compares with one built from scratch over the same model,
 * table contents and state. O(plans * alternatives * (rows + nodes)). */
uint64_t dra_engine_plans_digest(const dra_engine_t *e);

/* Recompute every summary from the state and compare with the incremental ones; false (with the
 * first difference in why) when they differ. O(rows * signatures). */
bool dra_engine_check(const dra_engine_t *e, char *why, size_t len);

#endif /* DRA_ENGINE_H */
