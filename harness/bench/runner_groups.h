/*
 * runner_groups.h - PodGroup arrivals in `drabench run` (scenario mix entries with `group`): the
 * group cycle of core/group/group.h on the runner's placement engine, the scheduler's queue for
 * groups that do not fit, and what a run measures about them.
 *
 * Arrivals. An arrival of a group entry is one PodGroup of `pods` pods; each pod has the entry's
 * claim (from its shape or template) and references the entry's group claims, which the group's
 * first placed pod allocates and every later one shares. The cycle runs on the placement engine:
 * by default the fast cycle (dra_group_cycle_fast: the engine's index and per-domain summaries);
 * --allocator reference: the literal cycle (dra_group_cycle_reference) with the reference
 * allocator answering on every node; --allocator both: the fast cycle decides and, on the first
 * both_prefix arrivals, the literal cycle runs before it on the engine's exact per-node answers
 * (every placement, every pod, every node; undone), and a different decision is a violation -
 * the exactness of those per-node answers against the reference allocator is what the single
 * pods' comparison and the engine's own checks cover. The group departs as
 * one (its pods share one lifetime).
 *
 * The queue (steady mode). A group that does not fit (nothing placed, or some pods left over by a
 * partial placement) waits, as the kube-scheduler's queue keeps an unschedulable PodGroup: it is
 * retried at the first pod departure (the cluster event that may free room; upstream's queueing
 * hint for an assigned pod's deletion) once its backoff has expired - 1 s of workload time after
 * the first failure, doubling per failure up to 10 s (podInitialBackoffSeconds,
 * podMaxBackoffSeconds) - in the order the groups first arrived, each at most once per departure.
 * Its waiting time (workload seconds from arrival to the cycle that placed it) is measured; groups
 * still waiting when the workload ends are counted as such. In fill mode nothing departs: a group
 * that does not fit counts as a misfit (stopAfter) and is not retried.
 *
 * Measurements (per repetition): histogram `<entry>/cycle/<allocated|unsatisfiable|any>` (the
 * whole group decision, timed); each placed pod's node_search / allocate / commit / pod and its
 * release, as single pods have them; per entry the cycles by outcome (placed, partial,
 * unschedulable, waiting, error) and what was short; the queue; and, for each topology key of the
 * scenario's groups, its domains (values of the key) fully used, partly used and idle and the GPUs
 * stranded in partly used domains, sampled with the fragmentation samples (results/README.md).
 * The groups' claims and timed work count in the run's throughput and rejections as the single
 * pods' do (dra_rg_counts_t below; runner.h, "Outcome accounting").
 *
 * Ownership: the groups object owns its instances, arenas and histograms' counters; the runner
 * lends the engine, the model and the hooks per call. Errors: DRA_ENOMEM, DRA_EINVAL (a group
 * entry whose gates are off, with the entry's file:line:col in diag), the engine's errors.
 * Not thread-safe.
 */
#ifndef DRA_RUNNER_GROUPS_H
#define DRA_RUNNER_GROUPS_H

#include <stdbool.h>
#include <stdint.h>

#include "alloc/alloc.h"
#include "alloc/fast.h"
#include "engine/engine.h"
#include "gen/workload.h"
#include "group/group.h"
#include "scenario.h"

typedef struct dra_rgroups dra_rgroups_t;

/* What the runner lends a call: where per-pod latencies, decisions and violations go. */
typedef struct dra_rg_hooks {
    void *ctx;
    bool measuring;
    /* a latency into the runner's histogram <shape>/<phase>/<outcome> (runner.h phases) */
    void (*rec)(void *ctx, uint32_t shape, int phase, int outcome, int64_t ns);
    /* one decision into the decision digest (pod: the workload's id of the group) */
    void (*decision)(void *ctx, uint64_t pod, const void *bytes, size_t n);
    /* a violation of the run (pod, claim, node, message) */
    void (*violation)(void *ctx, uint64_t pod, const char *claim, const char *node,
                      const char *msg);
    /* the invariant checker on one placed pod's allocations (whether to check: the runner's
     * sampling); returns violations found */
    void (*check)(void *ctx, uint64_t pod, uint32_t node, dra_claim_t *const *claims,
                  dra_allocation_t *const *a, uint32_t n);
    /* the planted slowdown (runner.h test hooks), NULL for none: a timed region of kind
     * (DRA_RG_CYCLE, DRA_RG_RELEASE) of mix entry `mix` opened at t0 and read t1 after its work;
     * returns the reading that closes it (t1, or later when it spun) */
    int64_t (*plant)(void *ctx, uint32_t mix, int kind, int64_t t0, int64_t t1);
} dra_rg_hooks_t;

/* The groups' timed region kinds (dra_rg_hooks_t.plant): a cycle's search and commit of one
 * placement attempt, a member's release. */
enum { DRA_RG_CYCLE = 0, DRA_RG_RELEASE = 1 };

/* What the placement runs on (the runner's engine and allocators, per repetition). */
typedef struct dra_rg_env {
    dra_model_t *m;
    dra_engine_t *eng;
    dra_anyalloc_t *ref;        /* the reference allocator: --allocator reference and both */
    bool ref_place;             /* --allocator reference: the literal cycle decides */
    bool compare;               /* --allocator both, within the prefix: literal cycle compared */
    dra_engine_policy_t policy;
    dra_rng_t *r_place;         /* one draw per pod of a cycle (random policy) */
    int64_t (*clock_ns)(void);
} dra_rg_env_t;

/* Per-repetition totals the runner adds to its own (pods submitted, outcomes of pod attempts,
 * claims submitted, timed work), and the groups' share of the throughput (runner.h, "Outcome
 * accounting"), as the single pods' are counted:
 *  - ok_claims: claims a placing cycle (placed, partial) allocated: each member it placed has its
 *    own claim (one, as a single pod's), and the group claims the cycle allocated (the group's
 *    first placed member allocates them, the later ones share them as pods join a shared claim);
 *    placed_pods: the members it placed;
 *  - ok_ns: the timed region of each placing cycle (its whole search and commit, every member's)
 *    and of each member's release at the group's departure - the time spent on those claims;
 *  - rej_claims, rej_ns: a cycle that placed nothing (unschedulable, error) is rejection work:
 *    the claims it tried (its pending members' own claims and the group claims not yet
 *    allocated) and its timed region. A partial cycle's time is the allocated side's (one region
 *    cannot be split): its unplaced members' claims are in no rate, as they are in pods_short.
 *    A waiting cycle (a gang short of minCount, not tried) is in neither, as a single pod
 *    decided without a placement.
 * Only timed regions count: the cycle's and each release's clock reads (run_cycle, release_inst),
 * never the bookkeeping, checks or reference look-ups around them. */
typedef struct dra_rg_counts {
    uint64_t pods, claims, allocated, unsatisfiable, fatal;
    uint64_t busy_ns;
    uint64_t ok_claims, ok_ns, rej_claims, rej_ns, placed_pods;
    /* --allocator both: group cycles compared, the literal reference cycles' time and the
     * deciding cycles' time */
    uint64_t both_cycles, both_ref_ns, both_fast_ns;
} dra_rg_counts_t;

/* Set-up from the scenario (groups built from the mix entries with `group`). *out NULL when the
 * scenario has none. The features decide whether the entries may run: a group entry needs
 * GenericWorkload, a topology key TopologyAwareWorkloadScheduling, group claims
 * DRAWorkloadResourceClaims (DRA_EINVAL naming the entry's position and the gate otherwise).
 * own[mix] are the runner's per-mix-entry claims. */
DRA_NODISCARD int dra_rgroups_new(const dra_scenario_t *s, const dra_scenario_built_t *b,
                                  dra_model_t *m, const dra_alloc_features_t *f,
                                  dra_claim_t *const *own, dra_rgroups_t **out, dra_diag_t *diag);
void dra_rgroups_free(dra_rgroups_t *g);
bool dra_rgroups_is_group(const dra_rgroups_t *g, uint32_t mix); /* g may be NULL */
/* Whether the workload's id `pod` is a group's (its departure is the group's). */
bool dra_rgroups_owns(const dra_rgroups_t *g, uint64_t pod);

/* A new engine (each measured repetition builds one): the groups' plans (their claims with the
 * pods' own), compiled untimed. own_plan[mix] are the runner's plans of the mix entries. */
DRA_NODISCARD int dra_rgroups_engine(dra_rgroups_t *g, dra_engine_t *e, const uint32_t *own_plan);

/* Repetition boundaries: counters and histograms reset; at the end every group still placed is
 * released (untimed) and the queue emptied. */
void dra_rgroups_rep_begin(dra_rgroups_t *g);
DRA_NODISCARD int dra_rgroups_rep_end(dra_rgroups_t *g, const dra_rg_env_t *env);

/* The check pass (runner.h step 6) places the repetition's groups again, untimed: save the
 * repetition's group measurements before it (NULL: out of memory) and put them back after its
 * dra_rgroups_rep_end (which also frees the copy), so the result reports the timed pass. */
void *dra_rgroups_save(const dra_rgroups_t *g);
void dra_rgroups_restore(dra_rgroups_t *g, void *saved);

/* A pod committed to / released from node through the engine outside the groups (the runner's
 * single pods): the scoring's requested cpu / memory (with the non-zero defaults) follows. */
void dra_rgroups_note_pod(dra_rgroups_t *g, uint32_t node, int64_t cpu_milli, int64_t memory,
                          int sign);

/* The engine changed outside commits and releases (a slice update): every node's bounds of the
 * fast cycle's summaries are read again. O(nodes * group entries). */
void dra_rgroups_refresh(dra_rgroups_t *g);

/* An arrival of a group entry (ev->mix); *placed when the group was placed now (any pod). */
DRA_NODISCARD int dra_rgroups_arrive(dra_rgroups_t *g, const dra_rg_env_t *env,
                                     const dra_rg_hooks_t *h, dra_workload_t *w,
                                     const dra_wl_event_t *ev, bool *placed);
/* A departure: true when ev->pod is a group's (then its pods are released, timed, and the queue
 * is retried at ev->time). */
DRA_NODISCARD int dra_rgroups_depart(dra_rgroups_t *g, const dra_rg_env_t *env,
                                     const dra_rg_hooks_t *h, dra_workload_t *w,
                                     const dra_wl_event_t *ev, bool *was_group);

/* The pods of group entries a cycle left unplaced in this repetition, per entry and outcome
 * (unsatisfiable, fatal), with the first such cycle's words ("PodGroup <outcome> (<short>):
 * <reason>"): add(mix, DRA_OUTCOME_*, count, text) once per entry and outcome. */
void dra_rgroups_reasons(const dra_rgroups_t *g, void *ctx,
                         void (*add)(void *ctx, uint32_t mix, int kind, uint64_t count,
                                     const char *text));
/* This repetition's totals. */
void dra_rgroups_counts(const dra_rgroups_t *g, dra_rg_counts_t *out);
/* A digest of the bookkeeping a pass starts from (tests): the instances (how many, what each
 * holds) and the order their free list hands them out - which instance, and so which arenas'
 * memory, each arrival gets - the queue, the pods' map and the per-node requests. Between two
 * passes it depends on neither the passes before nor the check pass (dra_rgroups_rep_end puts
 * the free list in index order). O(instances + pods mapped + nodes). */
uint64_t dra_rgroups_digest(const dra_rgroups_t *g);
/* The repetition's group measurements: metric values via add (name, value, unit, better, exact)
 * and the repetition's `groups` object (results/README.md). */
DRA_NODISCARD int dra_rgroups_rep_values(const dra_rgroups_t *g, void *ctx,
                                         void (*add)(void *ctx, const char *name, double v,
                                                     const char *unit, const char *better,
                                                     bool exact));
void *dra_rgroups_rep_json(const dra_rgroups_t *g); /* json_t *, caller owns */
/* A domain-occupancy sample at workload time t (with the runner's fragmentation samples). */
DRA_NODISCARD int dra_rgroups_sample(dra_rgroups_t *g, const dra_alloc_state_t *st, double t);

/* One line per group entry for the run summary (into buf). */
void dra_rgroups_summary(const dra_rgroups_t *g, char *buf, size_t len);

#endif /* DRA_RUNNER_GROUPS_H */
