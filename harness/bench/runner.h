/*
 * runner.h - the benchmark runner behind `drabench run` (and tests, nightly): build a scenario's
 * cluster, feed its workload to the allocator core the way the scheduler would, and measure how
 * fast and how right it was.
 *
 * Algorithm, per repetition:
 *  1. A fresh workload stream from the run seed (same seed = same events). The allocation state
 *     is the one of the previous repetition with everything released, so it starts empty; its
 *     digest is checked against the empty digest at the end (a leak is a violation).
 *  2. ARRIVE: the pod's claim (one ResourceClaim per mix entry, instantiated from the shape's
 *     template; shared claims are allocated by their first pod and reused by the next ones) is
 *     placed by one call of the placement engine (core/engine/engine.h: node choice by policy
 *     from per-node summaries and a candidate-node index, then the exact fast allocator on
 *     candidate nodes only); --allocator reference places by brute force instead (the
 *     reference allocator on node after node). Policies: first-fit takes the first feasible
 *     node in model order; best-fit the feasible node with the most allocated devices, spread
 *     the one with the fewest (ties: model order); random is first-fit in cyclic node order from
 *     a start node drawn uniformly, one draw per pod from the placement stream. Then the result
 *     is committed through the engine (state, summaries and index together).
 *     --allocator both places with the engine and, for the first both_prefix arrivals, also
 *     with the brute-force reference placement (untimed); a different decision is a violation
 *     and stops the run.
 *  3. DEPART: the pod's allocations are released (through the engine).
 *  4. Timed regions (CLOCK_MONOTONIC): node search (the whole engine call), the allocate call
 *     that produced the chosen result, commit, release, and the pod (search + commit). The
 *     allocate call lies inside the node search, so its readings are part of the search's time:
 *     it is timed with the CPU's time-stamp counter where there is one (x86; ticks converted to
 *     ns after the region at a rate measured against CLOCK_MONOTONIC once per process, about 20
 *     ns a pair inside the search against 50 for CLOCK_MONOTONIC's), else CLOCK_MONOTONIC. They
 *     contain no malloc (direct answers built in each slot's own result memory, arenas reset
 *     per pod, state entries registered per device row when made, room for a pod's shares
 *     made before its timed regions), no I/O and no logging. Every latency goes into histogram <shape>/<phase>/<outcome>
 *     and into the same histogram of shape "all", after the timers have stopped; a histogram's
 *     counters are allocated with its first value (a run holds only what it records).
 *  5. Every decision (pod, node, devices, outcome) is hashed in order into the decision digest
 *     (XXH3-64); equal seeds give equal digests on every repetition and process. Each pod's own
 *     decision hash is kept (outside the timed regions) for the check pass.
 *  6. Invariant checks (all, or a seeded sample) run in a second, untimed pass over the same
 *     decisions after the timed pass of each measured repetition: the state is empty again, the
 *     same workload is placed once more with the same random streams, every pod's decision is
 *     compared with the timed pass's (a difference is a violation: the placement is not
 *     deterministic) and each allocation is checked against the state before its commit. So the
 *     timed pass is the same work with checks full or off (nothing runs between its pods that
 *     one mode has and the other lacks), and `--invariants off` skips the second pass.
 *
 * Outcome accounting (what throughput means): a claim is allocated or rejected (unsatisfiable,
 * node failure, fatal). Per repetition the runner sums the time spent on allocated claims (their
 * node search, commit and release), on rejected claims (their node search) and on pods joining
 * an allocated shared claim. throughput.claims_per_s = allocated claims / time on them;
 * throughput.rejections_per_s = rejected claims / time on them; throughput.pods_per_s = pods
 * placed (allocated or joined) / time on them. Latency metrics of pods (latency.pod.*,
 * latency.<shape>.*) count placed pods only, rejection.* the rejected ones, so a change that
 * lets more claims fit does not read as a slowdown.
 * PodGroups (runner_groups.h) count the same way: a group cycle that placed members adds the
 * claims it allocated (each placed member's own claim, and the group claims it allocated once)
 * and its timed region (the whole placement: search and commit of every member) to the allocated
 * side, each member's release at the group's departure too; a cycle that placed nothing adds the
 * claims it tried and its region to the rejected side. throughput.group_claims_per_s is the
 * groups' share alone (their claims / their time; the single pods' is the rest: work.* minus
 * work.group_*). Result files of runs with PodGroups say timing_version 3 (rload.h).
 * Repetitions are independent samples: each measured repetition starts on a fresh engine (the
 * allocator rebuilt, the state empty), runs the warm-up pods on it (undone, not recorded), then
 * the measured workload; so the first repetition does not pay for cold caches the others skip,
 * and the exact counters (search.*) are equal in every repetition. The placement engine is built
 * once: the later repetitions reset it to the image saved after its build (dra_engine_reset:
 * what placements change put back, the new allocator seeded as the plans seeded the first), the
 * state a new engine gives, without building its tables, signatures and plans again; the CEL
 * program cache stays with it. A scenario with slice updates (taints) builds the engine and the
 * CEL cache anew for every repetition, as does DRA_TEST_REBUILD_ENGINE=1 (tests compare).
 *
 * Outcomes other than allocated are counted per shape with their reason (`outcome_reasons` of a
 * repetition): the allocator's message for fatal and node-failure outcomes, found by asking the
 * allocator once more, outside the timed regions, for the first pod of each shape and outcome in
 * every measured repetition (the same extra work in each repetition); for unsatisfiable ones
 * a fixed text, prefixed with how many nodes lack the mix entry's cpu / memory requests when
 * any do (`insufficient cpu on 2 node(s); ...`). A mix entry's requests go to the engine's plan
 * (dra_engine_plan_resources) and are charged to the node on commit, freed on release.
 * The first measured repetition also records every pod's decision (mix entry and a 32-bit hash
 * of outcome, node and devices) as the result's `decisions`, for per-pod comparisons.
 * With opts.cluster the scenario's node groups and manifests are replaced by that path's
 * manifests (a real cluster's slices, classes and nodes); the workload stays the scenario's.
 *
 * Test hooks (environment, read by dra_runner_opts_from_env): DRA_TEST_INJECT_FAULT=N corrupts
 * the N-th (1-based) successful pod allocation of each measured repetition (one device is
 * replaced by one already allocated, or a non-existent one) so the invariant checker must
 * catch it; DRA_TEST_DELAY_NS=N spins N ns per claim inside the timed node search;
 * DRA_TEST_SLOWDOWN_PCT=P (0 < P <= 100, decimals allowed) plants a slowdown of P percent: every
 * timed region (node search, commit, release, shared-claim join; a PodGroup's placement cycle
 * and its members' releases) owes P/100 of its own time (at
 * most 1 ms of it, against preemption) to a debt per (pod shape, region kind), and a region whose
 * debt has reached one clock reading's cost spins on the clock, after its work and inside the
 * region, until that much more has passed; what it spun is paid off the debt. So the planted
 * time is P/100 of the regions' own time within one clock reading, for regions of any length
 * (short ones spin every few regions). The fixed delay spins on the clock too. Both are
 * recorded in the result.
 *
 * Ownership: dra_runner_run fills a dra_run_t that owns its JSON pieces and histograms
 * (dra_run_fini). The options' strings are borrowed for the duration of the call.
 * Errors: DRA_OK (also when invariants were violated or the run was interrupted: see the
 * result), DRA_ENOTFOUND / DRA_EPARSE / DRA_EINVAL for a bad scenario or option (diag says
 * which), DRA_ENOMEM, DRA_EIO. Cost: dominated by the allocator. Not thread-safe.
 */
#ifndef DRA_RUNNER_H
#define DRA_RUNNER_H

#include <signal.h>
#include <stdbool.h>
#include <stdint.h>

#include "alloc/alloc.h"
#include "base/err.h"
#include "engine/engine.h"
#include "hist.h"
#include "scenario.h"

/* Phases and outcomes of the latency histograms. */
typedef enum dra_phase {
    DRA_PHASE_NODE_SEARCH = 0,
    DRA_PHASE_ALLOCATE,
    DRA_PHASE_COMMIT,
    DRA_PHASE_RELEASE,
    DRA_PHASE_POD,
    DRA_PHASE_CYCLE, /* a PodGroup's whole scheduling cycle (runner_groups.h) */
    DRA_PHASE_COUNT
} dra_phase_t;

typedef enum dra_houtcome {
    DRA_HOUT_ALLOCATED = 0,
    DRA_HOUT_UNSATISFIABLE,
    DRA_HOUT_ANY,
    DRA_HOUT_COUNT
} dra_houtcome_t;

struct dra_run;

/* Progress callback: called at pod boundaries (outside timed regions), at most every 256 pods,
 * and once at the end of every repetition with rep_done = true. */
typedef void (*dra_runner_progress_fn)(void *ctx, bool warmup, uint32_t rep, uint32_t nreps,
                                       uint64_t pods_done, uint64_t pods_total, bool rep_done,
                                       const struct dra_run *run);

/* What the runner does with the process's data pages before each timed pass (datapages.h). */
typedef enum dra_data_pages {
    DRA_DATA_PAGES_NONE = 0, /* nothing, nothing recorded (library callers, tests) */
    DRA_DATA_PAGES_4K,       /* left on 4 KiB pages, recorded */
    DRA_DATA_PAGES_2M        /* put on 2 MiB pages where the kernel gives them, recorded */
} dra_data_pages_t;

struct dra_datapages;

/* When the runner starts the loads of the next departures' lines (runner.c, prefetch_releases):
 * a choice of measurement, recorded in run.method.release_look_ahead. TIMED is the product's:
 * the release pays for the hints of those after it. The others exist to measure that price,
 * by difference or alone (drabench run --release-look-ahead); they change no decision. */
typedef enum dra_look_ahead {
    DRA_LOOK_AHEAD_TIMED = 0, /* inside each release's timed region, before the release */
    DRA_LOOK_AHEAD_UNTIMED,   /* just before each release's clock starts: what it costs */
    DRA_LOOK_AHEAD_OFF,       /* never: what it saves */
    DRA_LOOK_AHEAD_ALONE      /* timed in place of the release (which runs after the clock has
                                 stopped): what it costs by itself */
} dra_look_ahead_t;

/* "timed", "untimed", "off" or "alone" (the names of --release-look-ahead and the result
 * file). */
const char *dra_look_ahead_name(dra_look_ahead_t l);
/* The place of one of those names into *out; false (out untouched) for any other string. */
bool dra_look_ahead_parse(const char *s, dra_look_ahead_t *out);

typedef struct dra_runner_opts {
    const char *scenario;        /* built-in name or path; NULL = "default" */
    bool has_seed;
    uint64_t seed;
    bool has_repeat;
    uint32_t repeat;
    bool has_warmup;
    uint64_t warmup;             /* warm-up pods */
    bool has_count;
    uint64_t count;              /* override the workload's number of arrivals */
    bool has_policy;
    dra_placement_t policy;
    bool has_inv;
    dra_inv_mode_t inv;
    bool has_inv_p;
    double inv_p;                /* sample fraction for DRA_INV_SAMPLED (has_inv_p: else the
                                    scenario's spec.run.sampleRate) */
    const char *release;         /* NULL = the scenario's */
    const char *const *features; /* "GATE=bool" overrides, applied after the scenario's */
    uint32_t nfeatures;
    const char *allocator;       /* "fast", "reference" or "both" (NULL = fast) */
    const char *cluster;         /* manifests file or directory that replaces the scenario's
                                    cluster (a real cluster's kubectl dump); NULL = the scenario's */
    uint64_t test_delay_ns;      /* DRA_TEST_DELAY_NS */
    double test_slowdown_pct;    /* DRA_TEST_SLOWDOWN_PCT (0 = off) */
    uint64_t inject_fault;       /* DRA_TEST_INJECT_FAULT (0 = off) */
    bool rebuild_engine;         /* build the placement engine again for every repetition
                                    instead of resetting the first one to its saved image
                                    (DRA_TEST_REBUILD_ENGINE=1; tests compare the two) */
    volatile sig_atomic_t *stop; /* set asynchronously (SIGINT): stop at the next pod boundary */
    uint32_t frag_samples;       /* fragmentation samples per steady repetition (0 = 16) */
    dra_runner_progress_fn progress;
    void *progress_ctx;
    uint64_t both_prefix;        /* --allocator both: arrivals compared (0 = DRA_RUNNER_BOTH_PREFIX) */
    uint64_t both_groups;        /* --allocator both: PodGroup arrivals compared, counted apart
                                    (0 = both_prefix's count) */
    int argc;                    /* recorded in run.argv */
    char **argv;
    const struct dra_textpages *textpages; /* what the process's code got (textpages.h),
                                    recorded in run.method.text_pages*; NULL = not recorded */
    dra_data_pages_t data_pages; /* the large anonymous data before each timed pass
                                    (datapages.h): NONE (0) leaves it as it is and records
                                    nothing; 4K records run.method.data_pages "4K"; 2M puts it on
                                    2 MiB pages and records what it got */
    void (*data_pages_note)(void *ctx, uint32_t rep, const struct dra_datapages *got,
                            int64_t ns); /* told what each timed pass's data got (NULL = no) */
    void *data_pages_ctx;
    dra_look_ahead_t look_ahead; /* the release look-ahead's place (TIMED, 0, by default) */
} dra_runner_opts_t;

void dra_runner_opts_init(dra_runner_opts_t *o);
/* Read DRA_TEST_INJECT_FAULT, DRA_TEST_DELAY_NS, DRA_TEST_SLOWDOWN_PCT and
 * DRA_TEST_REBUILD_ENGINE (set and not "0": rebuild_engine); DRA_EINVAL for junk values. */
DRA_NODISCARD int dra_runner_opts_from_env(dra_runner_opts_t *o, dra_diag_t *diag);
bool dra_runner_parse_policy(const char *s, dra_placement_t *out);
/* "off", "full" (or "all"), "sample=P" with 0 < P <= 1. */
/* The invariant mode by the names of a scenario's spec.run.invariants: "all", "sampled", "off"
 * (one naming in scenarios and on the command line; the rate is --sample-rate / sampleRate).
 * Also the spellings of older releases, with *deprecated set: "full" (all) and "sample=P"
 * (sampled at P, 0 < P <= 1: *p set and *has_p true). false for anything else. */
bool dra_runner_parse_inv(const char *s, dra_inv_mode_t *mode, double *p, bool *has_p,
                          bool *deprecated);
/* A sample rate: a number in (0, 1]. */
bool dra_runner_parse_rate(const char *s, double *p);
/* "all", "sampled", "off". */
const char *dra_inv_mode_name(dra_inv_mode_t m);

#define DRA_RUN_KEEP_VIOLATIONS 10

typedef struct dra_run_violation {
    uint32_t repetition;
    uint64_t pod;
    char claim[128];
    char node[128];
    char message[256];
} dra_run_violation_t;

/* Per-shape figures over all measured repetitions (for the summary table). */
typedef struct dra_run_shape_summary {
    const char *name;
    uint64_t pods, allocated, unsatisfiable;
    int64_t p50, p99, p999;   /* pod latency of placed pods; 0 when none */
    int64_t rej_p50, rej_p99; /* pod latency of rejected pods (node search); 0 when none */
} dra_run_shape_summary_t;

typedef struct dra_run {
    void *json;           /* json_t *: the complete result document (results/README.md) */
    bool interrupted;
    bool complete;
    uint64_t seed;
    const char *scenario; /* points into json */
    uint64_t nodes, devices;
    uint32_t reps_done;
    uint64_t pods, claims, allocated, unsatisfiable, node_failure, fatal; /* all measured reps */
    /* claims allocated and rejected, and the timed work spent on each (runner.h, "Outcome
     * accounting"), all measured repetitions */
    uint64_t claims_allocated, claims_rejected, allocated_ns, rejected_ns, pods_placed, placed_ns;
    uint64_t wall_ns, check_ns; /* check_ns: wall time of the untimed check passes */
    /* involuntary context switches during the measured loops (another program, or the kernel,
     * took the CPU), in all and the repetitions that had at least one */
    uint64_t preemptions;
    uint32_t reps_preempted;
    /* pooled: allocated claims (placed pods) / the time spent on them; rejected claims / theirs
     * (0 when there are none) */
    double claims_per_s, pods_per_s, rejections_per_s;
    /* per-repetition throughput (the samples compare uses): median, min, max */
    double claims_per_s_median, claims_per_s_min, claims_per_s_max;
    double pods_per_s_median, pods_per_s_min, pods_per_s_max;
    double rejections_per_s_median, rejections_per_s_min, rejections_per_s_max;
    /* PodGroups: the group cycles' share of claims_allocated / allocated_ns and claims_rejected
     * / rejected_ns (runner_groups.h, dra_rg_counts_t), all measured repetitions; their claims
     * per second, pooled and over the repetitions (0 without PodGroups) */
    uint64_t group_claims, group_ns, group_rejected_claims, group_rejected_ns;
    double group_claims_per_s, group_claims_per_s_median, group_claims_per_s_min,
        group_claims_per_s_max;
    int64_t rej_p50, rej_p99; /* latency of rejected pods, all shapes (0 when none) */
    size_t peak_rss_bytes;    /* the process's peak resident set at the end (getrusage) */
    int64_t pod_p50, pod_p99, pod_p999, pod_max;
    uint64_t inv_checked, inv_violations;
    dra_run_violation_t first[DRA_RUN_KEEP_VIOLATIONS];
    uint32_t nfirst;
    uint64_t digest;
    bool digests_equal;   /* every measured repetition had the same digest */
    size_t table_bytes;
    double bytes_per_device;
    /* heap growth while the first repetition built the placement engine with its plans, and
     * while it prepared the allocator's per-node layouts (0 where the C library does not report
     * heap use, e.g. under a sanitizer's allocator) */
    size_t engine_bytes, layout_bytes;
    /* heap growth while the exact allocator built its model-wide indexes (row IDs, slice
     * buckets, the state mirror; the reference allocator keeps none), first repetition */
    size_t alloc_bytes;
    dra_run_shape_summary_t *shapes; /* nshapes + 1 ("all" last) */
    uint32_t nshapes;
    /* merged histograms over the measured repetitions: hists[(shape * DRA_PHASE_COUNT + phase)
     * * DRA_HOUT_COUNT + outcome], shape nshapes = "all"; an unused slot has counts == NULL. */
    dra_hist_t *hists;
    char **hist_names;    /* "<shape>/<phase>/<outcome>" per slot (NULL for unused) */
    uint32_t nhists;
    /* --allocator both: arrivals whose decision was compared with the reference placement, and
     * the time of both (reference untimed in the histograms) */
    uint64_t both_pods, both_ref_ns, both_engine_ns;
    /* --allocator both: PodGroup cycles compared with the literal reference cycle and the time
     * of both */
    uint64_t both_groups, both_group_ref_ns, both_group_fast_ns;
    /* device health events (spec.workload.deviceTaints): slice republications timed in the
     * measured repetitions, the histogram slot of their update phase ("slice-update/update/any",
     * UINT32_MAX without events), and the time the first engine took to build (dra_engine_new
     * with the shapes' plans; what an incremental update saves) */
    uint64_t slice_updates;
    uint32_t update_hist;
    int64_t engine_build_ns;
    /* placements served per engine path (dra_engine_path_t: index, reject, brute), all reps */
    uint64_t paths[3];
    /* placements per what decided on the chosen node (dra_engine_served_t), all reps */
    uint64_t served[DRA_SERVED_COUNT];
    /* release records (engine.h), measured reps: commits that took one and timed releases that
     * gave one back. Only steady arrivals take them (a fill's pods never leave: the record's
     * writes would be its commit's cost alone); a pod whose results a record cannot hold is
     * committed and released without one */
    uint64_t rec_commits, rec_releases;
    /* objects of the cluster manifests the run does not place (it places the scenario's
     * workload): Pods and workloads, and ResourceClaims without status.allocation (allocated
     * ones hold their devices); the caller says so */
    uint32_t ignored_pods, ignored_claims;
    /* scenarios with PodGroups: one line per group entry and topology key (runner_groups.h),
     * malloc'd; NULL without groups */
    char *groups_summary;
} dra_run_t;

/* --allocator both compares this many arrivals (warm-up included) unless told otherwise. */
#define DRA_RUNNER_BOTH_PREFIX 2000

/* Run. On DRA_OK the caller owns *run (dra_run_fini) whatever the outcome. */
DRA_NODISCARD int dra_runner_run(const dra_runner_opts_t *opts, dra_run_t *run, dra_diag_t *diag);
void dra_run_fini(dra_run_t *run);

/* Exit status of a finished run: 3 when any invariant was violated, else 0. */
int dra_run_exit_status(const dra_run_t *run);

#endif /* DRA_RUNNER_H */
