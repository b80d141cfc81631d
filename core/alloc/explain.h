/*
 * explain.h - why claims do not fit on a node, in upstream's terms, from the reference
 * allocator's own decisions (its explain mode).
 *
 * dra_explain runs the reference allocator (alloc.h) on the node and keeps its outcome. When the
 * outcome is Unsatisfiable it reads the call's own state (the pools the call gathered, the node's
 * devices in search order, the requests, the claims' constraints) and names the first reason,
 * checking every request the way the search checks a device for it, with the allocator's own
 * functions, against an empty attempt (nothing else picked in this call):
 *
 *   per request, in claim order (for firstAvailable: every subrequest must fail; the reason
 *   names the first), the devices the node's pools offer go through these checks in order and
 *   the reason is the first check after which fewer devices are left than the request needs:
 *     class selector #i, request selector #i, per-device node selection (isSelectable, step by
 *     step: dra__device_selectable_why), a feature gate that is off and withholds the devices
 *     (a table: DRAPartitionableDevices for devices consuming counters and for slices with
 *     shared counters or per-device node selection, DRADeviceBindingConditions for devices with
 *     binding conditions, DRADeviceCompatibilityGroups from 1.37 for devices declaring
 *     compatibilityGroups and devices sharing a counter set with an allocated device that
 *     declares them), a resource pool that is incomplete or invalid, already allocated
 *     (AllocatedDevices), consumable capacity (capacityFits), compatibility groups (with
 *     DRADeviceCompatibilityGroups on: no group in common with the devices allocated from the
 *     device's counter set), with DRASharedConsumableCapacity on the request-driven (valueFrom)
 *     counters as the search resolves them first (an amount the counter's requestPolicy does
 *     not allow or cannot represent; amounts overdrawing what the live allocations' snapshots
 *     left, with the amount asked and what is left), counters (the counters left in the device's
 *     counter set), taints (an untolerated NoSchedule / NoExecute taint); allocationMode All: a
 *     device of its set that fails one of the checks after the selectors;
 *   then each constraint of a claim: matchAttribute (no value held by enough of each request's
 *   devices; "the largest group has 3 of 4"), distinctAttribute (fewer distinct values than
 *   devices needed);
 *   then requests that must take different devices needing more together than can serve them;
 *   else every request fits on its own and no combination satisfies the claims together (the
 *   search's allocateOne count).
 * Every reason is a necessary condition the allocator's checks imply (a device failing a check
 * alone fails it in any attempt), so it holds wherever it is given; dra_explain_verify checks
 * that against the allocator and the brute-force enumerator.
 *
 * Fatal and NodeFailure outcomes are explained by the allocator's own message. Allocated: the
 * devices. The reason is one line (dra_why_t.text): nodes with equal text are one group.
 *
 * Large clusters: the explainer indexes the model's slices by node name once and lets each call
 * read only the pools relevant to the node (the fast allocator's per-node view, dra__alloc_set_view):
 * the same decisions (dra_explain_verify compares them with a call over the whole model), in
 * O(slices of the node's pools) per node instead of O(all slices).
 *
 * Renderers (dra_why_*): the reasons' text is made in one place; the placement engine's
 * summary-based reasons (engine.h, dra_engine_why) use the same functions, so runs and
 * `drabench explain` word a reason alike.
 *
 * Ownership: the explainer borrows the model, the state and the CEL cache (they must outlive
 * it) and owns a reference allocator and its index. dra_why_t is a plain value (text copied;
 * class_name points into the model). Errors: DRA_OK, DRA_EINVAL, DRA_ENOMEM (dra_explain
 * returns DRA_OK whenever the allocator reached a decision). Cost: one reference allocate call
 * plus, when unsatisfiable, one selector evaluation per (device, request) and a pass per
 * constraint (O(devices^2) for matchAttribute value groups). No I/O. Single-threaded.
 */
#ifndef DRA_ALLOC_EXPLAIN_H
#define DRA_ALLOC_EXPLAIN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "alloc/alloc.h"

#define DRA_WHY_TEXT_MAX 480

typedef enum dra_why_kind {
    DRA_WHY_FITS = 0,           /* Allocated */
    DRA_WHY_FATAL,              /* the allocator's Fatal message */
    DRA_WHY_NODE_FAILURE,       /* the allocator's NodeFailure message */
    DRA_WHY_NO_DEVICES,         /* the node's pools offer too few devices at all */
    DRA_WHY_CLASS_SELECTOR,     /* class selector #selector leaves too few */
    DRA_WHY_SELECTOR,           /* request selector #selector leaves too few */
    DRA_WHY_SELECTORS,          /* class and request selectors together (engine summaries) */
    DRA_WHY_NODE_SELECTION,     /* per-device node selection */
    DRA_WHY_GATE,               /* a feature gate that is off withholds matching devices */
    DRA_WHY_POOL,               /* matching devices only in incomplete / invalid pools */
    DRA_WHY_BUSY,               /* matching devices allocated already */
    DRA_WHY_CAPACITY,           /* consumable capacity does not fit */
    DRA_WHY_COMPAT,             /* compatibility groups: no group in common with the devices
                                   allocated from the counter set (DRADeviceCompatibilityGroups) */
    DRA_WHY_COUNTERS,           /* counters of partitionable devices exhausted */
    DRA_WHY_TAINT,              /* untolerated taints */
    DRA_WHY_ALL,                /* allocationMode All: a device of the set is not allocatable */
    DRA_WHY_MATCH_ATTRIBUTE,    /* matchAttribute: no value held by enough devices */
    DRA_WHY_DISTINCT_ATTRIBUTE, /* distinctAttribute: too few distinct values */
    DRA_WHY_TOGETHER,           /* requests needing different devices need more than there are */
    DRA_WHY_SEARCH,             /* each fits alone, no combination fits together */
    DRA_WHY_NODE_RESOURCES,     /* NodeResourcesFit: the node lacks the pod's cpu, memory, pods or
                                   extended resources (placement, core/extres) */
    DRA_WHY_UNEXAMINED,         /* placement: not examined (a limit on exact explanations) */
    DRA_WHY_NODE_FILTER,        /* the scheduler's node filters reject the node before the claims
                                   are tried: NodeUnschedulable, NodeAffinity, TaintToleration
                                   (core/extres; a claim of the pod allocated for other nodes is
                                   NODE_SELECTION) */
    DRA_WHY_COUNT
} dra_why_kind_t;

/* Stable keys: "fits", "fatal", "node-failure", "no-devices", "class-selector", "selector",
 * "selectors", "node-selection", "gate", "pool", "allocated", "capacity",
 * "compatibility-groups", "counters", "taint", "all", "match-attribute", "distinct-attribute",
 * "together", "search", "node-resources", "unexamined", "node-filter". */
const char *dra_why_kind_name(dra_why_kind_t k);

typedef struct dra_why {
    dra_outcome_t outcome;  /* the reference allocator's outcome on the node */
    dra_why_kind_t kind;
    uint32_t claim;         /* index of the claim the reason is about, UINT32_MAX: none */
    char request[96];       /* "gpu" or "gpu/h100" ("" when the reason is about no request) */
    const char *class_name; /* the request's device class (model string), NULL */
    uint32_t selector;      /* CLASS_SELECTOR, SELECTOR: the selector's number */
    int gate;               /* GATE: the dra_gate_t that is off, else -1 */
    uint32_t need;          /* devices the request (or requests) need */
    uint32_t left;          /* devices left after the check that decided */
    uint64_t steps;         /* allocateOne calls of the allocator's call */
    char text[DRA_WHY_TEXT_MAX]; /* the reason, one line (nodes with equal text are a group) */
} dra_why_t;

typedef struct dra_explainer dra_explainer_t;

/* An explainer over model m with features f and the allocation state (the claims already
 * allocated); opts as for dra_alloc_new (max_steps bounds each call: Fatal beyond). */
DRA_NODISCARD int dra_explainer_new(const dra_model_t *m, const dra_alloc_features_t *f,
                                    const dra_alloc_state_t *state, dra_cel_cache_t *cel,
                                    const dra_alloc_options_t *opts, dra_explainer_t **out);
void dra_explainer_free(dra_explainer_t *x);

/* The reference allocator's outcome of claims on node, and why (see the top of this file).
 * The allocations of an Allocated outcome are not kept (out->text names the devices). */
DRA_NODISCARD int dra_explain(dra_explainer_t *x, const dra_node_t *node,
                              dra_claim_t *const *claims, uint32_t n, dra_why_t *out);

/* dra_explain for claims the caller knows to be Unsatisfiable on node (a placement found no
 * node): the reason without running the allocator's search (GatherPools, the node's devices and
 * the claims' preprocessing are the allocator's; dra__alloc_prepare). A Fatal or NodeFailure
 * those steps reach is the outcome. Never FITS (the search is what would find an allocation):
 * when no check gives a reason, SEARCH. Cost: dra_explain without the search, so never
 * exponential. */
DRA_NODISCARD int dra_explain_unsat(dra_explainer_t *x, const dra_node_t *node,
                                    dra_claim_t *const *claims, uint32_t n, dra_why_t *out);

/* Check an explanation against the allocator (tests, `alloc --test --explain`): the outcome
 * equals a reference call over the whole model (not the node's view) with the same devices or
 * message; the reason's kind agrees with the outcome; an Allocated outcome's devices each pass
 * every check of their request and no reason is found; dra_explain_unsat gives the same reason
 * on an Unsatisfiable outcome; a reason other than SEARCH is confirmed
 * by the brute-force enumerator when it decides within bf_budget complete assignments (0: not
 * asked; skipped with upstream bugs, which it never reproduces). DRA_OK when it agrees,
 * DRA_EINTERNAL with the disagreement in msg, DRA_ENOMEM. why (may be NULL) gets the
 * explanation. */
DRA_NODISCARD int dra_explain_verify(dra_explainer_t *x, const dra_node_t *node,
                                     dra_claim_t *const *claims, uint32_t n, uint64_t bf_budget,
                                     dra_why_t *why, char *msg, size_t len);

/* The node offers no device of the request's class at all (no ResourceSlice, or none of its
 * devices passes the class's selectors): a node of another kind. Summaries list the other
 * reasons first: they say why a node that could serve the claim does not. */
bool dra_why_absent(const dra_why_t *w);

/* ---- renderers: the reason texts, shared with the placement engine --------------------------- */

/* Start a reason: clears w, sets kind, the claim (its name is quoted when nclaims > 1), the
 * request name, class and need. */
void dra_why_begin(dra_why_t *w, dra_why_kind_t kind, const dra_claim_t *claim, uint32_t ci,
                   uint32_t nclaims, const char *request, const char *class_name, uint32_t need);
/* Selectors leave `left` of `before` devices: which (CLASS_SELECTOR, SELECTOR with the
 * selector's number and CEL text; SELECTORS: class and request selectors together, no number). */
void dra_why_selectors(dra_why_t *w, uint32_t selector, const char *cel, uint32_t before,
                       uint32_t left);
/* BUSY: `matching` devices match, `left` are free. */
void dra_why_busy(dra_why_t *w, uint32_t matching, uint32_t left);
/* COUNTERS: of `free_` free matching devices `left` fit the counters left; set / counter name
 * the first exhausted counter seen (may be NULL). */
void dra_why_counters(dra_why_t *w, uint32_t free_, uint32_t left, const char *set,
                      const char *counter);
/* CAPACITY: of `free_` free matching devices `left` have the capacity asked for (what: the
 * request's capacity requests as text, may be NULL). */
void dra_why_capacity(dra_why_t *w, uint32_t free_, uint32_t left, const char *what);
/* MATCH_ATTRIBUTE of one request: the largest group of free matching devices sharing one value
 * of attr has `largest` of `need`; with_attr: how many have the attribute at all. */
void dra_why_match_group(dra_why_t *w, const char *attr, uint32_t free_, uint32_t with_attr,
                         uint32_t largest);
/* NODE_RESOURCES: the node lacks the pod's cpu / memory (placement). */
void dra_why_node_resources(dra_why_t *w, bool cpu, bool memory);
/* A reason of the kube-scheduler's checks of a pod before its claims (NODE_FILTER,
 * NODE_RESOURCES, GATE with gate): w cleared, the kind and upstream's text (core/extres). */
void dra_why_scheduler(dra_why_t *w, dra_why_kind_t kind, int gate, const char *text);

#endif /* DRA_ALLOC_EXPLAIN_H */
