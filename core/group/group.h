/*
 * group.h - the PodGroup scheduling cycle (KEP-4671), topology-aware placement (KEP-5732) and
 * PodGroup-level ResourceClaims (KEP-5729): one decision for a whole group of pods, as the
 * kube-scheduler's workload scheduling cycle takes it (../shared/docs/WORKLOADS.md, sections 2-4;
 * every choice upstream leaves open is listed in core/group/README.md).
 *
 * The cycle, for one PodGroup and its pending members:
 *  1. Members in order: priority (higher first), then the caller's order (the time the scheduler
 *     first saw each pod). One snapshot: the state as it is when the cycle starts.
 *  2. Placements. Without topology-aware scheduling (or without a topology key) one placement,
 *     all nodes. With TopologyAwareWorkloadScheduling and a key: one placement per distinct
 *     value of that node label (nodes without the label are in none), in byte order of the
 *     values; when members are already bound, only the placement holding all their nodes.
 *  3. Per placement, the default algorithm: each member in order gets the ordinary per-pod
 *     placement restricted to the placement's nodes (the engine's policies: first-fit, random,
 *     best-fit, spread; node resources checked first) and, when a node takes it, is assumed
 *     (committed) before the next member is tried; no backtracking. A member's group claims
 *     (spec.resourceClaims entries it references) are allocated together with its own claims by
 *     the first member that needs them and shared by the later ones, which may only use nodes the
 *     allocation's node selector admits. Feasible: the scheduled members (bound ones count)
 *     reach minCount (gang, with GangScheduling on) or one (basic). A gang stops trying as soon
 *     as minCount can no longer be reached (PlacementFeasible; the decision is the same).
 *     Everything assumed is undone after each placement.
 *  4. Choice: no feasible placement - unschedulable; one - it; several - the highest score:
 *     NodeResourcesFit (MostAllocated over cpu and memory, weight 1 each, requests with the
 *     scheduler's non-zero defaults, nodes' status.allocatable) plus PodGroupPodsCount
 *     (scheduled members, normalized to 0..100 by the largest count), weight 1 each. Ties: the
 *     first placement in value order (upstream draws at random).
 *  5. The chosen placement's assignment is applied again (committed) and kept; the members that
 *     did not fit stay pending. A cycle that placed no member is unschedulable even when bound
 *     members already reach minCount (the framework requires one scheduled pod).
 * A gang with fewer members (pending + bound) than minCount is not tried at all (PreEnqueue:
 * DRA_GROUP_WAITING). A member whose claims are wrong (Fatal) stops the cycle: DRA_GROUP_ERROR,
 * everything undone.
 *
 * Two implementations decide identically:
 *  - dra_group_cycle_reference: the literal algorithm; every member tried on every node of every
 *    placement through the host's exact answer (the caller's allocator, brute force).
 *  - the fast path (group_fast.c, dra_group_cycle_fast): per-domain summaries maintained from
 *    the engine's index reject a domain, or the whole group, without trying its nodes, and
 *    domains are evaluated best bound first so most are never tried.
 *
 * The host. The cycle does not place a claim itself: the caller's host answers "allocate these
 * claims of member m on node n" exactly (the allocator, or the engine's answer on one node) and
 * commits / releases what the cycle assumes, so the allocation state, the engine's summaries and
 * the node resources stay right. Claims of a member in an answer: the group claims of `need`
 * (bit k = group claim k) in index order, then the member's own claims.
 *
 * Ownership: the context (dra_group_ctx_t) owns scratch space sized at creation (no malloc in a
 * cycle once made); results (member arrays, allocations) go into the caller's arena. The
 * topology (dra_group_topo_t) borrows the model's label strings. Errors: DRA_OK or DRA_ENOMEM /
 * DRA_EINVAL / an error the host returned; a decision (any outcome) is DRA_OK. Cost: reference -
 * O(placements * members * nodes of a placement) host answers; fast - see group_fast.c.
 * Single-threaded.
 */
#ifndef DRA_GROUP_H
#define DRA_GROUP_H

#include <stdbool.h>
#include <stdint.h>

#include "alloc/alloc.h"
#include "base/arena.h"
#include "base/err.h"
#include "engine/engine.h"
#include "model/model.h"

#define DRA_GROUP_NONE UINT32_MAX
#define DRA_GROUP_MAX_GCLAIMS 4 /* MaxPodGroupResourceClaims */
#define DRA_GROUP_MAX_MEMBERS 4096

/* The scheduler's non-zero defaults for scoring a pod that requests no cpu / memory
 * (schedutil.DefaultMilliCPURequest, DefaultMemoryRequest). */
#define DRA_GROUP_NONZERO_CPU_MILLI 100
#define DRA_GROUP_NONZERO_MEMORY ((int64_t)200 * 1024 * 1024)

/* ---- topology: the placements of one label key ---------------------------------------------- */

typedef struct dra_group_topo {
    const char *key;       /* the label key (the model's string) */
    uint32_t nnodes;       /* model nodes */
    uint32_t ndomains;     /* distinct values */
    const char **values;   /* per domain, in strcmp order */
    uint32_t *first;       /* domain d's nodes are nodes[first[d] .. first[d + 1]) */
    uint32_t *nodes;       /* model node indexes, in model order within a domain */
    uint32_t *dom;         /* per model node: its domain, DRA_GROUP_NONE without the label */
    bool contiguous;       /* every domain is a run of consecutive model nodes */
} dra_group_topo_t;

/* The placements of label `key` over m's nodes. O(nodes * labels + nodes log nodes). */
DRA_NODISCARD int dra_group_topo_new(const dra_model_t *m, const char *key,
                                     dra_group_topo_t **out);
void dra_group_topo_free(dra_group_topo_t *t);
/* Domain of value v, DRA_GROUP_NONE when no node carries it. O(log domains). */
uint32_t dra_group_topo_find(const dra_group_topo_t *t, const char *v);

/* ---- the cycle's input ------------------------------------------------------------------------ */

typedef enum dra_group_policy { DRA_GROUP_BASIC = 0, DRA_GROUP_GANG } dra_group_policy_t;

typedef struct dra_group_member {
    uint32_t gclaims;      /* group claims the member references (bit k = claim k) */
    uint32_t bound_node;   /* DRA_GROUP_NONE: pending; else bound there (counts as scheduled) */
    int64_t priority;      /* higher first */
    int64_t cpu_milli;     /* requests (0 = none; scoring then uses the non-zero defaults) */
    int64_t memory_bytes;
    uint64_t rnd;          /* random policy: the member's draw (start = rnd mapped to the
                              placement's node count, dra_group_start) */
} dra_group_member_t;

typedef struct dra_group_spec {
    dra_group_policy_t policy;
    uint32_t min_count;          /* gang's minCount (>= 1); ignored for basic */
    bool gang_gate;              /* GangScheduling on (1.36): off, a gang is scheduled as basic */
    bool tas;                    /* TopologyAwareWorkloadScheduling on */
    const dra_group_topo_t *topo;/* the topology key's placements; NULL = no constraint */
    dra_engine_policy_t node_policy;
    uint32_t ngclaims;           /* <= DRA_GROUP_MAX_GCLAIMS */
    /* group claims already allocated when the cycle starts (NULL = not allocated) */
    dra_allocation_t *gclaim_alloc[DRA_GROUP_MAX_GCLAIMS];
    const dra_group_member_t *members;
    uint32_t nmembers;           /* <= DRA_GROUP_MAX_MEMBERS */
    /* optional monotonic clock (ns): each placed member's node search and commit are timed */
    int64_t (*clock_ns)(void);
    /* The fast path only. sums: per-domain upper bounds on the pending members that fit, for
     * the spec's topology (or all nodes), valid when every pending member takes at least what
     * any other does (the same own claims); NULL: none. certain: every member's answers are
     * certain where the host's next() skips a node and none can be Fatal or a NodeFailure on a
     * node whose bound is finite (the engine's dra_engine_plan_certain for each plan), so a
     * domain may be skipped and the evaluation stop at the best placement. */
    const struct dra_group_sums *sums;
    bool certain;
} dra_group_spec_t;

/* The exact answer of one node, what a cycle assumes and undoes, and what scoring reads. */
typedef struct dra_group_host {
    void *ctx;
    const dra_model_t *m;        /* nodes (labels, names) */
    /* Member `member` with group claims `need` on model node `node`: the allocator's outcome
     * (ALLOCATED with need's claims then the member's own, FATAL, NODE_FAILURE, UNSATISFIABLE),
     * or UNSATISFIABLE without asking when the node's resources do not fit the member. */
    int (*answer)(void *ctx, uint32_t member, uint32_t need, uint32_t node, dra_arena_t *arena,
                  dra_alloc_outcome_t *out);
    int (*commit)(void *ctx, uint32_t member, uint32_t need, uint32_t node,
                  dra_allocation_t *const *a, uint32_t n);
    int (*release)(void *ctx, uint32_t member, uint32_t need, uint32_t node,
                   dra_allocation_t *const *a, uint32_t n);
    /* best-fit / spread: devices in use on the node (the engine's score) */
    uint32_t (*score)(void *ctx, uint32_t node);
    /* scoring: out = {allocatable cpu (milli), allocatable memory, requested cpu, requested
     * memory} of the node, requested with the non-zero defaults; allocatable < 0 = not declared
     * (counts as 0) */
    void (*node_res)(void *ctx, uint32_t node, int64_t out[4]);
    /* The fast path only (NULL: every node is asked). next: the first node >= from the plan of
     * member `member` with group claims `need` admits (a node it does not admit must answer
     * Unsatisfiable), DRA_GROUP_NONE when none. place: the member placed over all nodes as the
     * literal search over every node decides it (start: the random policy's first node), its
     * outcome in out and the node in *node (DRA_GROUP_NONE when none). */
    uint32_t (*next)(void *ctx, uint32_t member, uint32_t need, uint32_t from);
    int (*place)(void *ctx, uint32_t member, uint32_t need, uint32_t start, dra_arena_t *arena,
                 dra_alloc_outcome_t *out, uint32_t *node);
} dra_group_host_t;

/* ---- the decision ------------------------------------------------------------------------------ */

typedef enum dra_group_outcome {
    DRA_GROUP_PLACED = 0,     /* every pending member placed */
    DRA_GROUP_PARTIAL,        /* feasible, some pending members did not fit (they stay pending) */
    DRA_GROUP_UNSCHEDULABLE,  /* nothing placed */
    DRA_GROUP_WAITING,        /* gang with fewer members than minCount: not tried */
    DRA_GROUP_ERROR,          /* a member's claims are Fatal: nothing placed */
    DRA_GROUP_OUTCOMES
} dra_group_outcome_t;
/* "placed", "partial", "unschedulable", "waiting", "error" */
const char *dra_group_outcome_name(dra_group_outcome_t o);

/* What was short when the group could not be placed. */
typedef enum dra_group_short {
    DRA_SHORT_NONE = 0,
    DRA_SHORT_CAPACITY,   /* too few members fit (no topology constraint) */
    DRA_SHORT_DOMAIN,     /* no domain of the key holds enough members */
    DRA_SHORT_NO_DOMAIN,  /* no node carries the topology key */
    DRA_SHORT_SPLIT,      /* bound members are in several domains (or on nodes without the key) */
    DRA_SHORT_MEMBERS,    /* fewer members than minCount exist (WAITING) */
    DRA_SHORT_FATAL,      /* a member's claims are wrong */
    DRA_SHORT_NONE_NEW,   /* bound members reach minCount but no pending one fits */
    DRA_SHORT_COUNT
} dra_group_short_t;
/* "none", "capacity", "domain", "no-domain", "split", "members", "fatal", "no-new-pod" */
const char *dra_group_short_name(dra_group_short_t s);

typedef struct dra_group_member_res {
    uint32_t node;            /* placed (or bound) there; DRA_GROUP_NONE otherwise */
    dra_outcome_t kind;       /* ALLOCATED when placed in this cycle; else its outcome in the
                                 placement reported (UNSATISFIABLE when not tried) */
    uint32_t need;            /* group claims it allocated (committed with its own claims) */
    dra_allocation_t **allocs;/* what was committed for it: need's claims, then its own */
    uint32_t nallocs;
    int64_t search_ns;        /* spec.clock_ns: its node search in the kept placement */
    int64_t commit_ns;        /* ... and its commit (assume) */
} dra_group_member_res_t;

typedef struct dra_group_stats {
    uint64_t answers;         /* host answers (exact calls) */
    uint64_t placements;      /* placements evaluated with the default algorithm */
    uint64_t rejected;        /* placements (domains) rejected by summaries without a call */
    uint64_t assumed;         /* members assumed (committed) and undone while evaluating */
} dra_group_stats_t;

typedef struct dra_group_result {
    dra_group_outcome_t outcome;
    dra_group_short_t short_kind;
    uint32_t min_count;       /* effective: gang with the gate on: minCount; else 1 */
    uint32_t pending, bound;  /* members to schedule / already bound */
    uint32_t placed;          /* members placed in this cycle */
    uint32_t domain;          /* chosen domain of the topology, DRA_GROUP_NONE without one */
    uint32_t nplacements;     /* candidate placements */
    uint32_t nfeasible;
    int64_t score;            /* chosen placement's total score; -1 when not scored */
    uint32_t short_member;    /* the member whose failure decided, DRA_GROUP_NONE */
    uint32_t best_count;      /* unschedulable: the most members any placement scheduled */
    uint32_t best_domain;     /* ... in this domain (topology), DRA_GROUP_NONE */
    dra_group_member_res_t *members; /* per member in the caller's order (arena) */
    dra_allocation_t *gclaim_alloc[DRA_GROUP_MAX_GCLAIMS]; /* group claims after the cycle */
    char reason[DRA_DIAG_MSG_MAX]; /* not placed / partial: what was short, in words */
    dra_group_stats_t stats;
} dra_group_result_t;

/* ---- running a cycle ------------------------------------------------------------------------- */

typedef struct dra_group_ctx dra_group_ctx_t;

/* Scratch for cycles over up to nnodes nodes and max_members members. */
DRA_NODISCARD int dra_group_ctx_new(uint32_t nnodes, uint32_t max_members,
                                    dra_group_ctx_t **out);
void dra_group_ctx_free(dra_group_ctx_t *c);

/* The literal cycle. Results and the kept allocations go into arena; on any outcome but
 * PLACED / PARTIAL nothing stays committed. */
DRA_NODISCARD int dra_group_cycle_reference(dra_group_ctx_t *c, const dra_group_spec_t *g,
                                            const dra_group_host_t *h, dra_arena_t *arena,
                                            dra_group_result_t *out);

/* The fast path: the same decision (outcome, domain, each member's node and allocations) as
 * dra_group_cycle_reference on the same state. Each member's node search asks the host only on
 * nodes its plan admits (host->next; all nodes without a topology: host->place); with sums,
 * domains whose bound is below what minCount needs are rejected without a call and a group no
 * domain can hold is rejected in O(domains); with `certain` and an all-or-nothing group (minCount
 * = every member), candidates are evaluated in order of their score - known before evaluation
 * from the per-domain sums, since a feasible placement then schedules every member - and the
 * first feasible one is kept as it stands (no undo and re-run). Otherwise every candidate the
 * summaries admit is evaluated as the reference does. The result's reason, best_count,
 * nfeasible and score describe what was evaluated (for an unschedulable group the reference's
 * words may name a count the fast path did not look at; the decision is the same). */
DRA_NODISCARD int dra_group_cycle_fast(dra_group_ctx_t *c, const dra_group_spec_t *g,
                                       const dra_group_host_t *h, dra_arena_t *arena,
                                       dra_group_result_t *out);

/* ---- per-domain summaries (group_fast.c) ---------------------------------------------------- */

/* For one topology (or all nodes as one domain) and one kind of member: per node an upper bound
 * on the members that still fit there (the engine's dra_engine_fit_bound) and its resources as
 * scoring reads them (dra_group_host_t.node_res), per domain their sums. The owner keeps them
 * current: after every commit or release on a node (and a slice update), the node's bound and
 * resources are set again. */
typedef struct dra_group_sums dra_group_sums_t;
#define DRA_GROUP_UNBOUNDED UINT32_MAX
/* t NULL: all nnodes nodes are one domain. Bounds start at 0, resources at "not declared". */
DRA_NODISCARD int dra_group_sums_new(const dra_group_topo_t *t, uint32_t nnodes,
                                     dra_group_sums_t **out);
void dra_group_sums_free(dra_group_sums_t *s);
/* O(1). */
void dra_group_sums_set_bound(dra_group_sums_t *s, uint32_t node, uint32_t bound);
void dra_group_sums_set_res(dra_group_sums_t *s, uint32_t node, const int64_t res[4]);
/* Domain d's bound (sum of its nodes', UINT64_MAX when one is unbounded). */
uint64_t dra_group_sums_bound(const dra_group_sums_t *s, uint32_t d);
/* Whether the sums equal the bounds and resources given per node (tests, debug builds): why
 * names the first difference. O(nodes). */
bool dra_group_sums_check(const dra_group_sums_t *s, const uint32_t *bounds,
                          const int64_t (*res)[4], char *why, size_t len);

/* The random policy's first node of a placement of n nodes for a member's draw: rnd mod n (the
 * index in the placement's node list). */
static inline uint32_t dra_group_start(uint64_t rnd, uint32_t n)
{
    return n ? (uint32_t)(rnd % n) : 0;
}

/* MostAllocated score of requested over allocatable, 0..100 (requested capped at allocatable,
 * 0 when allocatable is 0). */
int64_t dra_group_most_allocated(int64_t requested, int64_t allocatable);

/* Decisions equal: outcome, chosen domain, each member's node and outcome, and the devices of
 * every allocation (driver, pool, device, share). why gets the first difference. */
bool dra_group_result_equal(const dra_group_result_t *a, const dra_group_result_t *b,
                            uint32_t nmembers, char *why, size_t len);

#endif /* DRA_GROUP_H */
