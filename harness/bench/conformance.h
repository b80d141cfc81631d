/*
 * conformance.h - the AllocationTest case runner behind `drabench alloc --test` (DESIGN §6;
 * format in corpora/conformance/README.md), the manifest loading it shares with
 * `drabench alloc`, and the differential pair behind `drabench alloc --allocator both`.
 *
 * A case is one file: the objects (DeviceClasses, ResourceSlices, claims, templates, Nodes,
 * DeviceTaintRules) plus one AllocationTest document. dra_conf_run_case runs it in steps:
 *  1. load: read the file, parse it, find the one AllocationTest document and check it against
 *     the strict case schema (an unknown key or a wrong shape makes the case invalid);
 *  2. objects: read the file's objects and spec.include's files (an expected outcome Invalid
 *     passes when loading rejects them with spec.expect.errorContains);
 *  3. features: spec.release, spec.upstreamBugs, spec.features over the caller's features; the
 *     DeviceTaintRules patched into the devices when their gate is on;
 *  4. claims: spec.node and spec.claims resolved (templates instantiated);
 *  5. state: spec.allocated committed, the search budget (spec.maxSteps, else the caller's);
 *  6. allocate: one allocate call of the chosen allocator (timed); with `both` the fast allocator
 *     without and with pruning must decide identically (and, unpruned, with the same number of
 *     allocateOne calls), and so must the placement engine's answer on the case's node (its
 *     direct answer where it has one, core/engine/direct.c; skipped when the reference ran out
 *     of its budget or the node is not one of the case's Node objects);
 *  7. expect: outcome, errorContains, allocations, nodeSelector, config, the invariant checker
 *     (expect.invariantViolations), commit + release restoring the state digest,
 *     stats.allocateOneInvocations (an upper bound for the fast allocator);
 * and prints one line on `out`: "PASS name" (with verbose, the outcome, allocateOne calls and
 * time) or "FAIL name (path): reason".
 *
 * Ownership: everything a case builds is freed before dra_conf_run_case returns; paths and
 * options are borrowed. Errors: a case that cannot be read, parsed, or whose objects are invalid
 * (unless it expects Invalid) is DRA_CONF_INVALID, as is running out of memory. Cost: one parse
 * of the file and of its includes plus one allocate call (three with `both`); the allocate call
 * is bounded by the search budget. Not meant for concurrent use.
 */
#ifndef DRA_CONFORMANCE_H
#define DRA_CONFORMANCE_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "alloc/alloc.h"
#include "alloc/fast.h"
#include "manifest.h"
#include "taintrule.h"

/* Default search budget of the reference allocator in `alloc` (allocateOne calls per allocate
 * call; about 0.3 s in a release build): beyond it the outcome is Fatal "filter operation
 * aborted", the deterministic stand-in for the scheduler's Filter timeout. */
#define DRA_CONF_DEFAULT_MAX_STEPS 1000000u

typedef struct dra_conf_opts {
    dra_alloc_features_t f; /* release, gates, upstream bugs (a case's spec may override) */
    dra_alloc_kind_t kind;  /* the allocator whose decision is checked */
    bool both;              /* also the fast allocator, without and with pruning (differential) */
    bool max_steps_set;     /* max_steps given (else the default budget by kind) */
    uint64_t max_steps;     /* budget per allocate call, 0 = unlimited */
    bool verbose;           /* PASS lines carry outcome, allocateOne calls and time */
    /* with both: counts the cases the placement engine answered on their node from its own
     * columns (direct answers; every case's engine answer is compared); NULL: not counted */
    uint32_t *engine_direct;
    /* explain (core/alloc/explain.h) on the case's node and on every Node of the case:
     * dra_explain_verify must agree with the allocator on each (a disagreement fails the case),
     * and an unsatisfiable case must get a reason on its node; counts the nodes checked and, of
     * those, the nodes whose reason is the search's fallback ("no combination ...") */
    bool explain;
    uint32_t *explain_nodes, *explain_fallback;
} dra_conf_opts_t;

/* The budget of an allocate call by allocator kind: max_steps when set, else
 * DRA_CONF_DEFAULT_MAX_STEPS for the reference and none for the fast allocator (a budget turns
 * its pruning off, fast.h). */
uint64_t dra_conf_budget(const dra_conf_opts_t *o, dra_alloc_kind_t kind);

enum { DRA_CONF_PASS = 0, DRA_CONF_FAIL = 1, DRA_CONF_INVALID = 2 };

/* Run the case in file path and print its PASS/FAIL line on out. Returns DRA_CONF_PASS,
 * DRA_CONF_FAIL or DRA_CONF_INVALID. */
DRA_NODISCARD int dra_conf_run_case(const char *path, const dra_conf_opts_t *o, FILE *out);

/* Read one manifest file ("-" = stdin) into m and its DeviceTaintRules into rules; a YAML error
 * both readers see is reported once in errs. Does not imply nodes (dra_model_imply_nodes after
 * the last file). Returns DRA_OK or the first error (details in errs). */
DRA_NODISCARD int dra_conf_read_manifest(dra_model_t *m, dra_taint_rules_t *rules, const char *path,
                                         dra_diag_list_t *errs);

/* Files or directories (walk.h: directories walked for *.yaml, *.yml, *.json) read with
 * dra_conf_read_manifest, then dra_model_imply_nodes. Reads every file even after errors;
 * diagnostics (file names owned by m) in errs. Returns DRA_OK or the first error (DRA_EIO an
 * unreadable directory, DRA_ELIMIT a link loop or depth, a reader's code). */
DRA_NODISCARD int dra_conf_read_paths(dra_model_t *m, dra_taint_rules_t *rules, char *const *paths,
                                      int n, dra_diag_list_t *errs);

/* The claims of one pod (a replica named podname) as the control plane and the scheduler see
 * them, in the pod's order: a named claim (resourceClaimName) is looked up in the pod's
 * namespace; a template claim is the claim status.resourceClaimStatuses names for the entry
 * when it exists, else the claim <podname>-<entry> when it exists already (generated for this
 * pod before: `alloc` writes it, with its allocation), else instantiated from the
 * template under that name. Claims with an allocation go to done[] (they constrain the pod's
 * node, dra_conf_available_on), the others to todo[] (allocated together), at most max each.
 * Returns DRA_OK, DRA_ENOTFOUND (diag names the pod's entry), DRA_ELIMIT (more than max) or
 * DRA_ENOMEM. */
DRA_NODISCARD int dra_conf_pod_claims(dra_model_t *m, const dra_pod_t *pod, const char *podname,
                                      dra_claim_t **todo, uint32_t *ntodo, dra_claim_t **done,
                                      uint32_t *ndone, uint32_t max, dra_diag_t *diag);

/* The scheduler's DynamicResources Filter on a pod's allocated claims: every allocation must be
 * usable on node (dra_alloc_available_on), and with DRAOptionalNodeOperations on in f (NULL: off)
 * an allocation with a skipNodeOperations result needs a node that declares the feature
 * (KEP-5945; *ops then true). DRA_OK with *ok, and when not, *which = the first claim that is
 * not ("resourceclaim not available on the node"); DRA_EINVAL with the reason in err when a
 * selector cannot be evaluated. */
DRA_NODISCARD int dra_conf_available_on(dra_claim_t *const *done, uint32_t n,
                                        const dra_node_t *node, const dra_alloc_features_t *f,
                                        bool *ok, bool *ops, uint32_t *which, char *err,
                                        size_t errlen);

/* ---- the differential pair of `alloc --allocator both` ---------------------------------------
 * The reference allocator on the caller's state and the fast allocator on a state of its own
 * (the same model claims), asked the same claims in the same order; every decision compared with
 * dra_alloc_outcome_differs. The fast allocator runs without a budget (pruning on); when the
 * reference ran into its budget and no budget was given explicitly, that decision is asked again
 * of a fast allocator under the same budget. Allocate calls are timed (CLOCK_MONOTONIC) for the
 * speed ratio. Ownership: the pair owns the fast state and both allocators; model, features,
 * reference state and CEL cache are borrowed and must outlive it. Cost: per decision the
 * reference's search plus the fast allocator's call (a second one after a budget ran out); a
 * second allocation state. */
typedef struct dra_conf_pair {
    dra_anyalloc_t ref;               /* on the caller's state */
    dra_anyalloc_t fast, fast_budget; /* on fast_state; fast_budget made when first needed */
    dra_alloc_state_t *fast_state;
    const dra_model_t *m;
    dra_alloc_features_t f;
    dra_cel_cache_t *cel;
    dra_alloc_options_t ref_opts;
    bool budget_explicit;     /* the fast allocator runs under ref_opts.max_steps too */
    dra_alloc_outcome_t fo;   /* the fast allocator's last decision */
    uint64_t decisions;       /* decisions compared (the last one's number, from 1) */
    uint64_t ref_ns, fast_ns; /* time in allocate calls */
} dra_conf_pair_t;

/* p is cleared first and, on an error, left freed. Errors: DRA_ENOMEM, or what the allocators'
 * constructors return. */
DRA_NODISCARD int dra_conf_pair_new(const dra_model_t *m, const dra_alloc_features_t *f,
                                    dra_alloc_state_t *ref_state, dra_cel_cache_t *cel,
                                    const dra_alloc_options_t *ref_opts, bool budget_explicit,
                                    dra_conf_pair_t *p);
void dra_conf_pair_free(dra_conf_pair_t *p);

/* Both allocators on node for claims; out gets the reference's decision (allocations in arena).
 * *differs is set when the fast allocator decided otherwise, why (may be NULL) says how.
 * Errors: an allocator's error (DRA_ENOMEM, ...). */
DRA_NODISCARD int dra_conf_pair_allocate(dra_conf_pair_t *p, const dra_node_t *node,
                                         dra_claim_t *const *claims, uint32_t n, dra_arena_t *arena,
                                         dra_alloc_outcome_t *out, bool *differs, char *why,
                                         size_t len);

/* Commit the fast allocator's last (allocated) decision to its state; the caller commits the
 * reference's to its own. */
DRA_NODISCARD int dra_conf_pair_commit_fast(dra_conf_pair_t *p);

#endif /* DRA_CONFORMANCE_H */
