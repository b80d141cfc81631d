/*
 * runner.c - the benchmark runner; see runner.h for the algorithm and the timed-region rules.
 *
 * Memory plan (why nothing allocates inside a timed region):
 *  - every pod's allocation results live in a slot taken from a free list before the clock
 *    starts: a direct answer in the slot's result memory (dra_engine_place_slot: no arena
 *    allocation, and a slot that held the same shape writes only the devices), the exact
 *    allocator's in the slot's arena; new slot arenas get their first chunk and result memory
 *    is touched before first use; placement (node
 *    choice by policy and the exact allocation) is one engine call (core/engine/engine.h) whose
 *    index and summaries are allocated at set-up and updated in commit / release;
 *  - the allocation state registers every device of the model when it is made (an entry per
 *    device row; only devices the model does not have would be added later);
 *  - histograms are allocated for every (shape, phase, outcome) slot that can be recorded;
 *  - the pod -> slot and claim -> slot maps grow before the clock starts.
 * The allocator's own scratch arenas warm up during the warm-up pods (alloc.h).
 */
#include "runner.h"

#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <malloc.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>

#include "alloc/explain.h"
#include "alloc/fast.h"
#include "alloc/invariants.h"
#include "engine/engine.h"
#include "extres/extres.h"
#include "base/intern.h"
#include "escape.h"
#include "files.h"
#include "manifest.h"
#include "reasons.h"
#include "cel/cel.h"
#include "gen/rng.h"
#include "hostinfo.h"
#include "result.h"
#include "runner_groups.h"
#include "runner_tests.h"
#include "stats.h"
#include "table/table.h"
#include "textpages.h"
#include "datapages.h"
#include "clockstep.h"

#define XXH_INLINE_ALL
#include <xxhash.h>

#define NONE UINT32_MAX
/* Random stream of the invariant sampler (gen/rng.h owns ids below 64). */
#define STREAM_INV_SAMPLE UINT64_C(0x52554e53414d50)
/* Random stream of the device health events (spec.workload.deviceTaints). */
#define STREAM_HEALTH UINT64_C(0x4845414c5448)

void (*dra_runner_timed_hook)(int event) = NULL;

static const char *const phase_names[DRA_PHASE_COUNT] = {"node_search", "allocate", "commit",
                                                         "release", "pod", "cycle"};
static const char *const hout_names[DRA_HOUT_COUNT] = {"allocated", "unsatisfiable", "any"};

/* Which (phase, outcome) histograms exist. */
static bool hist_used(int phase, int out)
{
    switch (phase) {
    case DRA_PHASE_NODE_SEARCH:
        return out != DRA_HOUT_ANY;
    case DRA_PHASE_ALLOCATE:
    case DRA_PHASE_COMMIT:
        return out == DRA_HOUT_ALLOCATED;
    case DRA_PHASE_RELEASE:
        return out == DRA_HOUT_ANY;
    default:
        return true;
    }
}

static inline int64_t now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

static int cmp_i64(const void *a, const void *b)
{
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    return (x > y) - (x < y);
}

/* What a latency of nothing measures: the median of 1,001 back-to-back pairs of readings (after
 * 100 warm-up readings). Every recorded latency includes it once. */
static int64_t timer_overhead_ns(void)
{
    enum { N = 1001 };
    int64_t d[N];
    for (int i = 0; i < 100; i++)
        (void)now_ns();
    for (int i = 0; i < N; i++) {
        int64_t t0 = now_ns();
        int64_t t1 = now_ns();
        d[i] = t1 - t0;
    }
    qsort(d, N, sizeof d[0], cmp_i64);
    return d[N / 2] > 0 ? d[N / 2] : 0;
}

/* The test hook of the timed passes' starting state (runner_tests.h). */
void (*dra_runner_pass_hook)(uint32_t rep, uint64_t digest) = NULL;

static inline void hook(int event)
{
    if (DRA_UNLIKELY(dra_runner_timed_hook != NULL))
        dra_runner_timed_hook(event);
}

/* ---- options -------------------------------------------------------------------------------- */

void dra_runner_opts_init(dra_runner_opts_t *o)
{
    memset(o, 0, sizeof *o);
}

const char *dra_look_ahead_name(dra_look_ahead_t l)
{
    return l == DRA_LOOK_AHEAD_UNTIMED ? "untimed"
           : l == DRA_LOOK_AHEAD_OFF   ? "off"
           : l == DRA_LOOK_AHEAD_ALONE ? "alone"
                                       : "timed";
}

bool dra_look_ahead_parse(const char *s, dra_look_ahead_t *out)
{
    for (dra_look_ahead_t l = DRA_LOOK_AHEAD_TIMED; l <= DRA_LOOK_AHEAD_ALONE; l++)
        if (strcmp(s, dra_look_ahead_name(l)) == 0) {
            *out = l;
            return true;
        }
    return false;
}

static int env_u64(const char *name, uint64_t *out, dra_diag_t *diag)
{
    const char *v = getenv(name);
    if (!v || !*v)
        return DRA_OK;
    unsigned long long x;
    if (!dra_io_parse_u64(v, &x))
        return dra_diag_set(diag, DRA_EINVAL, NULL, 0, 0, "%s: not a number: '%s'", name, v);
    *out = x;
    return DRA_OK;
}

int dra_runner_opts_from_env(dra_runner_opts_t *o, dra_diag_t *diag)
{
    const char *rb = getenv("DRA_TEST_REBUILD_ENGINE");
    o->rebuild_engine = rb && *rb && strcmp(rb, "0") != 0;
    int rc = env_u64("DRA_TEST_INJECT_FAULT", &o->inject_fault, diag);
    if (rc == DRA_OK)
        rc = env_u64("DRA_TEST_DELAY_NS", &o->test_delay_ns, diag);
    const char *v = getenv("DRA_TEST_SLOWDOWN_PCT");
    if (rc == DRA_OK && v && *v) {
        char *end;
        double x = strtod(v, &end);
        /* at most 100: code twice as slow is the largest slowdown the campaigns and tests
         * plant (the debt would pay any P) */
        if (end == v || *end || !(x > 0 && x <= 100))
            return dra_diag_set(
                diag, DRA_EINVAL, NULL, 0, 0,
                "DRA_TEST_SLOWDOWN_PCT: expected a percentage in (0, 100], got '%s'", v);
        o->test_slowdown_pct = x;
    }
    return rc;
}

bool dra_runner_parse_policy(const char *s, dra_placement_t *out)
{
    static const char *const names[] = {"first-fit", "best-fit", "spread", "random"};
    for (int i = 0; i < 4; i++)
        if (strcmp(s, names[i]) == 0) {
            *out = (dra_placement_t)i;
            return true;
        }
    return false;
}

bool dra_runner_parse_rate(const char *s, double *p)
{
    double x;
    if (!dra_io_parse_double(s, &x) || !(x > 0 && x <= 1)) /* decimal only (files.h) */
        return false;
    *p = x;
    return true;
}

bool dra_runner_parse_inv(const char *s, dra_inv_mode_t *mode, double *p, bool *has_p,
                          bool *deprecated)
{
    *deprecated = false;
    *has_p = false;
    for (int m = DRA_INV_ALL; m <= DRA_INV_OFF; m++)
        if (strcmp(s, dra_inv_mode_name((dra_inv_mode_t)m)) == 0) {
            *mode = (dra_inv_mode_t)m;
            return true;
        }
    if (strcmp(s, "full") == 0) {
        *mode = DRA_INV_ALL;
        *deprecated = true;
        return true;
    }
    if (strncmp(s, "sample=", 7) == 0 && dra_runner_parse_rate(s + 7, p)) {
        *mode = DRA_INV_SAMPLED;
        *has_p = *deprecated = true;
        return true;
    }
    return false;
}

const char *dra_inv_mode_name(dra_inv_mode_t m)
{
    static const char *const n[] = {"all", "sampled", "off"};
    return (unsigned)m <= DRA_INV_OFF ? n[m] : "?";
}

/* ---- run context ---------------------------------------------------------------------------- */

typedef struct slot {
    dra_arena_t *arena;   /* the exact allocator's answers */
    dra_engine_slot_t es; /* the engine's direct answers, built in place pod after pod */
    dra_allocation_t **allocs;
    uint32_t n;
    uint32_t node;
    uint32_t ndev;       /* results counted in the node's score */
    uint32_t shape;      /* mix entry (its plan carries the cpu / memory requests) */
    uint32_t next_free;  /* free list link */
    bool live;
    uint16_t mem_lines; /* lines of es.mem its last placement took (dra_engine_slot_used; 0:
                         * none known, all of es.mem): what slot_mem_touch warms */
} slot_t;

typedef struct frag_cons {
    uint32_t set;    /* counter set id (1-based) */
    uint32_t slices; /* memory slices consumed */
} frag_cons_t;

typedef struct frag_dev {
    const dra_device_t *dev;
    uint32_t node;   /* NONE for shared devices */
    uint32_t domain; /* NVLink domain id (0 none) */
    uint32_t cons_off, ncons;
    bool gpu;        /* a full accelerator */
} frag_dev_t;

typedef struct frag_values {
    double idle_gpus_unusable, stranded_mig_fraction, partial_nvlink_domains;
} frag_values_t;

typedef struct ctx {
    const dra_runner_opts_t *o;
    dra_diag_t *diag;
    dra_scenario_t scn;
    bool scn_loaded;
    dra_model_t model;
    bool model_init;
    dra_scenario_built_t built;
    bool built_init;
    dra_alloc_features_t feat;
    dra_placement_t policy;
    dra_inv_mode_t inv;
    double inv_p;
    uint64_t seed;
    uint32_t nreps;
    uint64_t warmup;
    dra_claim_t **claims; /* per mix entry; NULL: its pods are unschedulable everywhere */
    char (*unsched)[DRA_WHY_TEXT_MAX]; /* per mix entry: why, when claims[i] is NULL (extended
                                          resources; the words of alloc and explain) */
    dra_why_kind_t *unsched_kind;      /* per mix entry: that reason's kind */
    dra_scenario_claim_t *xclaims;     /* per mix entry: the extended-resource claim's mappings */
    bool *unsched_fatal;               /* per mix entry: that reason is a PreBind failure */
    const char **shape_names;
    uint32_t nshapes;
    dra_arena_t table_arena;
    dra_table_t *table;
    int64_t build_ns, table_build_ns;
    dra_alloc_state_t *state;
    uint64_t empty_digest;
    dra_cel_cache_t *cel;
    dra_anyalloc_t alloc; /* reference or fast (alloc/fast.h) */
    dra_alloc_kind_t akind;
    const char *cluster_paths[1]; /* --cluster */
    /* reasons of outcomes other than allocated, per repetition (reason_t) */
    struct reason *reasons;
    uint32_t nreasons, cap_reasons;
    dra_arena_t *explain;
    dra_explainer_t *why;                  /* per-node reasons (reasons.h), made on first use */
    const dra_scenario_mix_t *reason_mix;  /* the mix entry being explained (its requests) */
    /* placement: the engine (index + fast allocator), or the brute-force reference placement
     * (--allocator reference); --allocator both: the engine, checked against the reference
     * placement with the reference allocator on the first both_prefix arrivals */
    dra_engine_t *eng;
    bool eng_saved; /* the engine's image is saved: the next repetition resets it (engine_reuse) */
    bool alloc_saved; /* the fast allocator's seeded selector caches are saved (engine_reuse) */
    uint32_t *lay, nlay, cap_lay; /* the nodes given per-node layouts (engine_layouts) */
#if DRA_DEBUG >= 2
    uint64_t eng_digest; /* dra_engine_plans_digest of the engine as built (checked on reuse) */
#endif
    uint32_t *plan; /* per mix entry */
    bool ref_place, both;
    dra_anyalloc_t cmp;
    bool cmp_init;
    dra_arena_t *cmp_arena;
    uint64_t both_left;
    uint64_t both_gleft; /* PodGroup arrivals still compared */
    bool halt; /* a decision differed: stop at the next pod boundary */
    /* nodes */
    uint32_t nnodes;
    dra_rng_t r_place, r_sample;
    /* slots */
    slot_t *slots;
    uint32_t nslots, cap_slots, free_head;
    /* per slot (cap_slots, 64-aligned): the engine's release record of its pod's commit, in
     * the caller's memory so that its line is warmed with the slot before each pod (a commit
     * writes no cold line of its own) and dense so that the release look-ahead reaches it from
     * the slot number alone, on few pages */
    dra_engine_rec_t *recs;
    /* per slot (cap_slots bits, with recs): set while the slot holds a live pod whose commit
     * kept its record in the slot's entry of recs (else the pod is released by its
     * allocations): the one place that says so (slot_recd), read by the release and by the
     * release look-ahead from the slot number without a load of the slot's line (40 lines for
     * 20,000 slots: they stay cached, where a departure's slot line is cold until a look-ahead
     * starts it) */
    uint64_t *recbits;
    dra_look_ahead_t look; /* where the release look-ahead runs (o->look_ahead) */
    /* live slots whose pod kept no release record (their bit in recbits clear, or no
     * recbits): counted where a slot turns live (slot_pop), its bit is set (after the timed
     * commit) and it is put back (slot_put). While 0, the release look-ahead needs no third
     * departure (only a pod without a record has a stage for it) */
    uint32_t live_norec;
    size_t slot_bytes; /* a slot's result memory (dra_engine_slot_bytes; 0: none) */
    uint32_t *shape_free; /* per shape: free slots its pods left (slot_pop), NONE ends */
    dra_arena_t *spare;
    dra_arena_t frag_arena;
    uint32_t *pod_slot;
    uint64_t cap_pod;
    uint32_t *claim_slot, *claim_refs;
    uint64_t cap_claim;
    /* histograms: one repetition */
    dra_hist_t *rh;
    uint32_t nhists;
    /* per repetition counters */
    bool measuring;
    uint32_t rep;
    uint64_t pods, claims_n, outc[4], busy_ns, ok_allocs, checked, violations;
    int64_t preemptions; /* involuntary context switches in the measured loop; -1 unknown */
    /* outcome accounting (runner.h): allocated claims and the timed work on them (node search,
     * commit, release), rejected claims and theirs (node search), placed pods (allocated or
     * joining a shared claim) and theirs */
    uint64_t ok_claims, rej_claims, placed_pods, ok_ns, rej_ns, placed_ns;
    /* PodGroups: the group cycles' share of the counters above (runner_groups.h) */
    dra_rg_counts_t gcounts;
    /* the check pass (runner.h step 6): on while it runs; pod_hash[pod] is the pod's decision
     * hash in the timed pass (pods below hash_cap); chk_dig the check pass's digest */
    bool checking;
    uint32_t *pod_hash;
    uint64_t hash_cap;
    uint64_t chk_mismatch, check_ns;
    XXH3_state_t *chk_dig;
    /* the invariant checker's memory, its first chunks taken in the set-up with checks on or off
     * (dra_inv_scratch_init), so the check pass allocates nothing (issue 22) */
    dra_inv_scratch_t inv_scratch;
    bool inv_scratch_init;
    /* test hooks (runner.h): the planted slowdown as a fraction, its debt (ns) per (shape,
     * region kind) and the shortest spin it plants (one clock reading's cost) */
    double slow_frac;
    double *plant_debt; /* (nshapes + 1) x RK_COUNT */
    double plant_min_ns;
    uint64_t paths[DRA_ENGINE_PATH_COUNT]; /* how the engine served each placement */
    uint64_t served[DRA_SERVED_COUNT];     /* what decided on the chosen node */
    uint64_t rec_commits, rec_releases;    /* commits with a release record, timed releases
                                            * by one */
    dra_alloc_stats_t st;
    XXH3_state_t *dig;
    XXH3_state_t *wl_dig;
    bool hash_workload;
    /* per-pod decision records of the first measured repetition (run JSON `decisions`) */
    bool rec_on;
    XXH3_state_t *rec_dig;
    uint32_t *rec_hash;  /* decision hash per pod (0 = no decision) */
    uint8_t *rec_shape;  /* mix entry per pod */
    uint64_t rec_cap, rec_n;
    /* fragmentation */
    frag_dev_t *fdev;
    uint32_t nfdev;
    uint8_t *frag_inuse; /* per device row: in use at the last sample (bit 0; bit 1: frag_step's
                          * mark of a candidate row) */
    /* the last sample's figures per node (in use, idle full GPUs), counter set (memory slices
     * in use) and NVLink domain (devices, devices in use), kept from sample to sample
     * (frag_step) */
    uint32_t *frag_used, *frag_idle, *frag_set_used, *frag_dom_tot, *frag_dom_used;
    uint32_t *frag_live;  /* the rows in use at the last sample */
    uint32_t *frag_cand;  /* frag_step's scratch: rows that may have changed, their answers */
    uint8_t *frag_now;
    uint32_t nfrag_live, cap_frag_live, cap_frag_cand;
    bool frag_known; /* the figures above are those of the last sample of this repetition */
    frag_cons_t *fcons;
    uint32_t nfcons;
    uint32_t *set_total; /* memory slices per counter set */
    uint32_t nsets, ndomains;
    uint32_t *common; /* mix entries that count as common shapes */
    uint32_t ncommon;
    json_t *frag_samples;
    double frag_sum[3];
    uint32_t frag_n;
    /* device health events (spec.workload.deviceTaints): per model node its candidate devices
     * (table rows) in hc[hc_off[n], hc_off[n + 1]), the nodes that have any, the events that
     * still hold (slice, device, the arrival that ends them, the device's taints before), the
     * buffers a republication is built in, and the histogram slot of the update phase */
    bool health;
    dra_rng_t r_health;
    uint32_t *hc_off, *hc, *hnodes, nhnodes;
    struct hev {
        uint32_t slice, dev;
        uint64_t off_at;
        const dra_taint_t *saved;
        uint32_t nsaved;
    } *hev;
    uint32_t nhev, cap_hev;
    dra_device_t *hdevs;
    dra_taint_t *htaints;
    uint32_t upd_hist;
    uint64_t updates;
    /* PodGroup arrivals (scenario mix entries with `group`; NULL without) */
    dra_rgroups_t *groups;
    /* output */
    dra_run_t *run;
    json_t *reps;
    json_t *first;
    int err;
    dra_datapages_t dp; /* the first timed pass's data pages (dp_set), recorded in the file */
    bool dp_set;
    int64_t dp_ns;      /* time in dra_datapages_apply, every timed pass (untimed work) */
} ctx_t;

static size_t hidx(const ctx_t *c, uint32_t shape, int phase, int out)
{
    (void)c;
    return ((size_t)shape * DRA_PHASE_COUNT + (size_t)phase) * DRA_HOUT_COUNT + (size_t)out;
}

/* Record v in histogram h, whose counters are allocated on its first value: a run sizes its
 * histograms to what it records (256 mix entries and 10 pods allocated 1.1 GB eagerly, one
 * 256 KiB histogram per entry, phase and outcome, twice). Called after the pod's timers have
 * stopped, so the one allocation per histogram and run is never inside a timed interval; a
 * failed one is remembered in c->err (the repetition then fails with it). */
static void rec1(ctx_t *c, dra_hist_t *h, int64_t v)
{
    if (DRA_UNLIKELY(!h->counts)) {
        int rc = dra_hist_init(h, DRA_HIST_LOWEST, DRA_HIST_HIGHEST, DRA_HIST_SIGFIGS);
        if (rc != DRA_OK) {
            if (c->err == DRA_OK)
                c->err = rc;
            return;
        }
    }
    dra_hist_record(h, v);
}

static inline void rec(ctx_t *c, uint32_t shape, int phase, int out, int64_t v)
{
    rec1(c, &c->rh[hidx(c, shape, phase, out)], v);
    rec1(c, &c->rh[hidx(c, c->nshapes, phase, out)], v);
}

/* ---- test hooks: the planted slowdown ------------------------------------------------------ */

/* The timed regions a planted slowdown stretches (RK_CYCLE: a PodGroup's placement attempt). */
enum { RK_SEARCH = 0, RK_COMMIT, RK_RELEASE, RK_JOIN, RK_CYCLE, RK_COUNT };

/* n iterations of an empty loop the compiler keeps (no clock read, no memory traffic). */
static inline void spin(uint64_t n)
{
    for (uint64_t i = 0; i < n; i++)
        __asm__ __volatile__("" ::: "memory");
}

/* The planted slowdown (DRA_TEST_SLOWDOWN_PCT = 100 f) is a debt per (shape, region kind): every
 * region adds f x its own time (as measured, at most PLANT_CLIP_NS: a region another program
 * preempted is not the code's work), and a region whose debt has reached one clock reading's
 * cost spins on the clock until that much more time has passed; what it spun, overshoot
 * included up to PLANT_OVERSHOOT_NS past what was due, is paid off the debt. So over any run the
 * planted time is f x the regions' own time within one reading, whatever the regions' lengths,
 * and the error never accumulates. A spin another program preempted is not paid in full: its
 * overshoot of milliseconds is the machine's, as a preempted region's time is, and paid would
 * leave the debt that far below zero, so that the regions after it (the next repetition's, in
 * a short run) planted nothing until it was made up. Spinning on the clock, not a calibrated
 * count: counts fitted on long spins planted about 5% for a planted 10% on nvl72-gangs' regions
 * of 130-180 ns (a spin of 15-20 ns cost 6-10 ns there: its iterations overlap the region's last
 * instructions), and a model of each region's mean took a thousand regions to settle. */
#define PLANT_CLIP_NS 1000000.0
/* The overshoot of a spin paid off the debt at most: a few clock readings */
#define PLANT_OVERSHOOT_NS 1000.0

/* Spin until the clock reads at least `until`; returns that reading (at least one is taken). */
static inline int64_t spin_until(int64_t until)
{
    int64_t t;
    do {
        spin(4);
        t = now_ns();
    } while (t < until);
    return t;
}

double dra_runner_plant_due(double *debt, double f, double took, double min_ns)
{
    double t = took > 0 ? took : 0;
    *debt += f * (t < PLANT_CLIP_NS ? t : PLANT_CLIP_NS);
    return *debt >= min_ns ? *debt : 0;
}

void dra_runner_plant_paid(double *debt, double due, double spun)
{
    double cap = due + PLANT_OVERSHOOT_NS;
    *debt -= spun < cap ? spun : cap;
}

/* The clock reading that ends a timed region of `kind` for a pod of `shape` begun at t0, t1 the
 * reading taken after its work: t1 itself, or later when the planted slowdown spins. */
static inline int64_t plant(ctx_t *c, uint32_t shape, int kind, int64_t t0, int64_t t1)
{
    if (DRA_LIKELY(c->slow_frac <= 0) || c->checking)
        return t1;
    shape = shape < c->nshapes ? shape : c->nshapes;
    double *debt = &c->plant_debt[(size_t)shape * RK_COUNT + (size_t)kind];
    double due = dra_runner_plant_due(debt, c->slow_frac, (double)(t1 - t0), c->plant_min_ns);
    if (!(due > 0))
        return t1;
    int64_t t = spin_until(t1 + (int64_t)due);
    dra_runner_plant_paid(debt, due, (double)(t - t1));
    return t;
}

/* ---- slots ---------------------------------------------------------------------------------- */

/* A slot arena's chunk, and the bytes of it touched before each pod: the results of all but
 * the largest pods. */
#define ARENA_CHUNK      (16 * 1024)
#define ARENA_WARM_BYTES 4096

static dra_arena_t *arena_new_warm(void)
{
    dra_arena_t *a = malloc(sizeof *a);
    if (!a)
        return NULL;
    dra_arena_init(a, ARENA_CHUNK);
    /* take the first chunk now, not in a timed region, and touch the part a pod's results
     * use first (as slot_get does for a reused slot): malloc leaves fresh pages unmapped, and
     * the first write to one would be a page fault inside the timed allocate (about one pod
     * in ten on a run without warm-up) */
    void *p = dra_arena_alloc(a, ARENA_WARM_BYTES, 64);
    if (p)
        memset(p, 0, ARENA_WARM_BYTES);
    dra_arena_reset(a);
    if (!p) {
        dra_arena_fini(a);
        free(a);
        return NULL;
    }
    return a;
}

/* Touch the part of a slot arena a pod's results use first (outside the timed regions), as a
 * new arena is touched when it is made: so a reused slot is as warm as a new one, and every
 * repetition alike (before, the first repetition, which made most of its slots, ran 25% faster
 * per pod on sched-perf-500 than the ones that reused them cold: pod p50 261 vs 330 ns). */
static void arena_touch(dra_arena_t *a)
{
    void *p = dra_arena_alloc(a, ARENA_WARM_BYTES, 64);
    if (p)
        memset(p, 0, ARENA_WARM_BYTES);
    dra_arena_reset(a);
}

/* Slots made at once when none is free: their mallocs and first page faults (kernel entries,
 * which leave the caches and predictors colder for the next timed region) come in batches, not
 * before every pod of the repetition that makes them. */
#define SLOT_BATCH 64

/* Result memory for a slot's direct answers (dra_engine_slot_bytes of the plans, 16-aligned),
 * touched now so its first write in a timed placement is no page fault. */
static int slot_mem(ctx_t *c, slot_t *s)
{
    if (!c->slot_bytes)
        return DRA_OK;
    size_t n = (c->slot_bytes + 63) & ~(size_t)63;
    void *m = aligned_alloc(64, n);
    if (!m)
        return DRA_ENOMEM;
    memset(m, 0, n);
    s->es = (dra_engine_slot_t){.mem = m, .cap = n, .tmpl = 0};
    return DRA_OK;
}

/* Touch a reused slot's memory (outside the timed regions, as arena_touch): a line is read and
 * written back, so what the engine's template left there stays. The first line of the slot's
 * release record is the commit's to write: warm, it costs the commit no miss (a record of the
 * engine's own pool was a line the commit found cold); its second line is written by pods of
 * more than 6 rows and by pods with a share (its capacities), warmed when the slot's last pod
 * wrote it. */
static void slot_mem_touch(const ctx_t *c, uint32_t si)
{
    volatile char *rl = (volatile char *)(void *)&c->recs[si];
    rl[0] = rl[0];
    if (c->recs[si].nshares || c->recs[si].nrows > 6)
        rl[64] = rl[64];
    const slot_t *s = &c->slots[si];
    volatile char *m = s->es.mem;
    /* the lines the slot's last answer took (its shape's next pod, which mostly takes the slot,
     * writes the same template's fields there), not all of them: the rest (dra_engine_slot_bytes
     * is the largest plan's answer, 18 lines on fleet-5k against 2-3 for a one-GPU pod) pulled
     * a live pod's untouched lines through the last level before every placement */
    size_t end = s->mem_lines ? (size_t)s->mem_lines * 64 : s->es.cap;
    if (end > s->es.cap)
        end = s->es.cap;
    for (size_t i = 0; m && i < end; i += 64)
        m[i] = m[i];
}

/* Whether slot si's pod kept its release record (its bit in recbits: set by the commit that
 * kept it, cleared when the slot is put back). */
static inline bool slot_recd(const ctx_t *c, uint32_t si)
{
    return c->recbits && (c->recbits[si >> 6] >> (si & 63) & 1);
}

/* Make ctx.recs hold n records: the held ones are copied (a record is plain data the engine
 * keeps no pointer to), the new ones zeroed (not held). Untimed. */
static int recs_grow(ctx_t *c, uint32_t old, uint32_t n)
{
    dra_engine_rec_t *nr = aligned_alloc(64, (size_t)n * sizeof *nr);
    if (!nr)
        return DRA_ENOMEM;
    if (old)
        memcpy(nr, c->recs, (size_t)old * sizeof *nr);
    memset(nr + old, 0, (size_t)(n - old) * sizeof *nr);
    size_t ow = ((size_t)old + 63) / 64, nw = ((size_t)n + 63) / 64;
    uint64_t *nb = calloc(nw ? nw : 1, sizeof *nb);
    if (!nb) {
        free(nr);
        return DRA_ENOMEM;
    }
    if (ow)
        memcpy(nb, c->recbits, ow * sizeof *nb);
    free(c->recs);
    free(c->recbits);
    c->recs = nr;
    c->recbits = nb;
    return DRA_OK;
}

/* A free slot for a pod of `shape`: one a pod of the same shape left (its result memory holds
 * that shape's template, so the placement writes only the devices), else a fresh one, else one
 * another shape left; NONE when none is free. */
static uint32_t slot_pop(ctx_t *c, uint32_t shape)
{
    uint32_t *head = &c->free_head;
    if (c->shape_free && shape < c->nshapes && c->shape_free[shape] != NONE)
        head = &c->shape_free[shape];
    for (uint32_t k = 0; *head == NONE && c->shape_free && k < c->nshapes; k++)
        head = &c->shape_free[k];
    uint32_t i = *head;
    if (i != NONE)
        *head = c->slots[i].next_free;
    return i;
}

static uint32_t slot_get(ctx_t *c, uint32_t shape)
{
    if (!c->shape_free && c->nshapes) {
        c->shape_free = malloc(c->nshapes * sizeof *c->shape_free);
        if (!c->shape_free)
            return NONE;
        for (uint32_t k = 0; k < c->nshapes; k++)
            c->shape_free[k] = NONE;
    }
    uint32_t i = slot_pop(c, shape);
    if (i == NONE) {
        if (!c->nslots) /* the plans are compiled: what their direct answers need */
            c->slot_bytes = c->ref_place ? 0 : dra_engine_slot_bytes(c->eng);
        if (c->cap_slots - c->nslots < SLOT_BATCH) {
            uint32_t nc = c->cap_slots ? c->cap_slots * 2 : 256;
            slot_t *ns = realloc(c->slots, nc * sizeof *ns);
            if (!ns)
                return NONE;
            c->slots = ns;
            if (recs_grow(c, c->cap_slots, nc))
                return NONE;
            c->cap_slots = nc;
        }
        uint32_t first = c->nslots;
        for (uint32_t k = 0; k < SLOT_BATCH; k++) {
            dra_arena_t *a = arena_new_warm();
            if (!a)
                break;
            slot_t *s = &c->slots[c->nslots];
            memset(s, 0, sizeof *s);
            s->arena = a;
            if (slot_mem(c, s)) {
                dra_arena_fini(a);
                free(a);
                break;
            }
            c->nslots++;
        }
        if (c->nslots == first)
            return NONE;
        for (uint32_t j = c->nslots; j-- > first;) { /* taken in the order they were made */
            c->slots[j].next_free = c->free_head;
            c->free_head = j;
        }
        i = slot_pop(c, shape);
    }
    /* room in the allocation state for the pod's shares, made now and not in its timed
     * commit: a cell per share text (a claim's results at most) and two more live shares on
     * any device (a direct answer puts at most one share of a pod on a device) */
    if (dra_alloc_state_reserve_shares(c->state, DRA_ALLOC_MAX_RESULTS, 2)) {
        c->slots[i].next_free = c->free_head;
        c->free_head = i;
        return NONE;
    }
    /* a free slot's record bit is clear (debug builds; slot_put clears it) */
    DRA_ASSERT_INTERNAL(!c->recbits || !(c->recbits[i >> 6] >> (i & 63) & 1));
    c->slots[i].live = true;
    c->live_norec++;
    /* warm what the pod's results use first: the result memory of direct answers, else the
     * arena the allocator's answers take */
    slot_mem_touch(c, i);
    if (!c->slots[i].es.mem)
        arena_touch(c->slots[i].arena);
    return i;
}

static void slot_put(ctx_t *c, uint32_t i)
{
    slot_t *s = &c->slots[i];
    /* a direct answer in the slot's result memory took nothing from the arena: then the reset
     * would only write its chunk's header, a line of its own per live pod */
    if (s->arena->used)
        dra_arena_reset(s->arena);
    s->allocs = NULL;
    s->n = 0;
    if (s->live && !slot_recd(c, i))
        c->live_norec--;
    if (c->recbits)
        c->recbits[i >> 6] &= ~(1ULL << (i & 63));
    s->live = false;
    /* on its shape's list (slot_pop): the shape of its last placed pod */
    uint32_t *head = c->shape_free && s->shape < c->nshapes ? &c->shape_free[s->shape]
                                                             : &c->free_head;
    s->next_free = *head;
    *head = i;
}

static int grow_u32(uint32_t **arr, uint64_t *cap, uint64_t need, uint32_t fill)
{
    if (need <= *cap)
        return DRA_OK;
    uint64_t nc = *cap ? *cap : 1024;
    while (nc < need)
        nc *= 2;
    uint32_t *na = realloc(*arr, nc * sizeof *na);
    if (!na)
        return DRA_ENOMEM;
    for (uint64_t i = *cap; i < nc; i++)
        na[i] = fill;
    *arr = na;
    *cap = nc;
    return DRA_OK;
}

/* ---- decisions digest ----------------------------------------------------------------------- */

static void dig_str(XXH3_state_t *d, const char *s)
{
    s = s ? s : "";
    XXH3_64bits_update(d, s, strlen(s) + 1);
}

static void digest_into(XXH3_state_t *d, const ctx_t *c, const slot_t *s)
{
    if (!s) {
        dig_str(d, "");
        return;
    }
    dig_str(d, c->model.nodes[s->node]->name);
    for (uint32_t i = 0; i < s->n; i++) {
        const dra_allocation_t *a = s->allocs[i];
        for (uint32_t j = 0; a && j < a->nresults; j++) {
            dig_str(d, a->results[j].request);
            dig_str(d, a->results[j].driver);
            dig_str(d, a->results[j].pool);
            dig_str(d, a->results[j].device);
        }
        dig_str(d, "|");
    }
}

static void violation(ctx_t *c, uint64_t pod, const char *claim, const char *node, const char *msg);

/* Hash the decision into the pass's digest and, in a measured pass, the pod's own decision hash
 * (outcome, node, devices): kept by the timed pass (pod_hash; the first repetition's also in
 * the result's `decisions` for per-pod comparisons, --across), compared by the check pass. */
static void digest_decision(ctx_t *c, uint64_t pod, int outcome, const slot_t *s)
{
    uint64_t hdr[2] = {pod, (uint64_t)outcome};
    XXH3_64bits_update(c->dig, hdr, sizeof hdr);
    digest_into(c->dig, c, s);
    if ((!c->measuring && !c->checking) || pod >= c->hash_cap)
        return;
    XXH3_64bits_reset(c->rec_dig);
    XXH3_64bits_update(c->rec_dig, &hdr[1], sizeof hdr[1]);
    digest_into(c->rec_dig, c, s);
    uint32_t h = (uint32_t)XXH3_64bits_digest(c->rec_dig);
    if (c->checking) {
        if (h != c->pod_hash[pod] && c->chk_mismatch++ == 0)
            violation(c, pod, "", s ? c->model.nodes[s->node]->name : "",
                      "the check pass placed this pod differently from the timed pass (the "
                      "placement is not deterministic)");
        return;
    }
    c->pod_hash[pod] = h;
    if (c->rec_on && pod < c->rec_cap)
        c->rec_hash[pod] = h;
}

/* ---- invariants ----------------------------------------------------------------------------- */

static void violation(ctx_t *c, uint64_t pod, const char *claim, const char *node, const char *msg)
{
    c->violations++;
    dra_run_t *r = c->run;
    if (r->nfirst < DRA_RUN_KEEP_VIOLATIONS) {
        dra_run_violation_t *v = &r->first[r->nfirst++];
        v->repetition = c->rep;
        v->pod = pod;
        snprintf(v->claim, sizeof v->claim, "%s", claim ? claim : "");
        snprintf(v->node, sizeof v->node, "%s", node ? node : "");
        snprintf(v->message, sizeof v->message, "%s", msg);
    }
}

static void check_invariants(ctx_t *c, uint64_t pod, uint32_t claim_idx, const slot_t *s)
{
    if (c->inv == DRA_INV_OFF)
        return;
    if (c->inv == DRA_INV_SAMPLED && dra_rng_unit(&c->r_sample) >= c->inv_p)
        return;
    dra_inv_report_t rep;
    memset(&rep, 0, sizeof rep);
    dra_claim_t *claims[1] = {c->claims[claim_idx]};
    const dra_node_t *node = c->model.nodes[s->node];
    int rc = dra_inv_check_in(&c->inv_scratch, &c->model, &c->feat, c->state, c->cel, node,
                              claims, s->allocs, s->n, &rep);
    c->checked++;
    if (rc != DRA_OK) {
        violation(c, pod, claims[0]->name, node->name, "invariant checker failed to run");
        return;
    }
    for (uint32_t i = 0; i < rep.nviolations; i++)
        violation(c, pod, claims[0]->name, node->name,
                  i < rep.nkept ? rep.first[i] : "(further violation)");
}

/* The test hook DRA_TEST_INJECT_FAULT: corrupt one result. */
static void inject_fault(ctx_t *c, slot_t *s)
{
    dra_allocation_t *a = s->n ? s->allocs[0] : NULL;
    if (!a || !a->nresults)
        return;
    dra_result_t *r = &a->results[0];
    for (uint32_t i = 0; i < c->nslots; i++) {
        const slot_t *o = &c->slots[i];
        if (o == s || !o->live || !o->n || !o->allocs[0] || !o->allocs[0]->nresults)
            continue;
        const dra_result_t *x = &o->allocs[0]->results[0];
        if (x->admin_access)
            continue;
        r->driver = x->driver; /* duplicate a device another pod holds */
        r->pool = x->pool;
        r->device = x->device;
        return;
    }
    r->device = "drabench-injected-fault";
}

/* ---- fragmentation -------------------------------------------------------------------------- */

static const char *attr_str(const dra_device_t *d, const char *name)
{
    for (uint32_t i = 0; i < d->nattrs; i++) {
        const dra_attr_t *a = &d->attrs[i];
        const char *slash = strrchr(a->name, '/');
        const char *id = slash ? slash + 1 : a->name;
        if (strcmp(id, name) == 0 && a->kind == DRA_ATTR_STRING)
            return a->v.s;
    }
    return NULL;
}

/* What frag_setup reads of a device: its string attributes "type" and "cliqueID" (the last part
 * of the name, any domain, as attr_str). Attributes of one interned qualified name (qname) share
 * that last part, so it is compared once per name, not once per device (1.2 million devices on
 * fleet-50k): kind[q] 0 not yet seen, 1 neither, 2 "type", 3 "cliqueID". */
typedef struct frag_names {
    uint8_t *kind;
    uint32_t cap;
} frag_names_t;

static int frag_name_kind(frag_names_t *fn, const dra_attr_t *a, uint8_t *out)
{
    uint32_t q = a->qname;
    if (q >= fn->cap) {
        uint32_t nc = fn->cap ? fn->cap : 256;
        while (nc <= q)
            nc *= 2;
        uint8_t *nk = realloc(fn->kind, nc);
        if (!nk)
            return DRA_ENOMEM;
        memset(nk + fn->cap, 0, nc - fn->cap);
        fn->kind = nk;
        fn->cap = nc;
    }
    if (!q || !fn->kind[q]) { /* qname 0: no interned name, compared every time */
        const char *slash = strrchr(a->name, '/');
        const char *id = slash ? slash + 1 : a->name;
        uint8_t k = strcmp(id, "type") == 0 ? 2 : strcmp(id, "cliqueID") == 0 ? 3 : 1;
        if (!q) {
            *out = k;
            return DRA_OK;
        }
        fn->kind[q] = k;
    }
    *out = fn->kind[q];
    return DRA_OK;
}

/* attr_str(d, "type") and attr_str(d, "cliqueID") in one pass over the attributes */
static int frag_type_clique(frag_names_t *fn, const dra_device_t *d, const char **type,
                            const char **clique)
{
    *type = *clique = NULL;
    for (uint32_t i = 0; i < d->nattrs && !(*type && *clique); i++) {
        const dra_attr_t *a = &d->attrs[i];
        if (a->kind != DRA_ATTR_STRING)
            continue;
        uint8_t k;
        int rc = frag_name_kind(fn, a, &k);
        if (rc)
            return rc;
        if (k == 2 && !*type)
            *type = a->v.s;
        else if (k == 3 && !*clique)
            *clique = a->v.s;
    }
    return DRA_OK;
}

static const char *node_label(const dra_node_t *n, const char *key)
{
    for (uint32_t i = 0; i < n->nlabels; i++)
        if (strcmp(n->labels[i].key, key) == 0)
            return n->labels[i].value;
    return NULL;
}

static int frag_setup(ctx_t *c)
{
    dra_model_t *m = &c->model;
    dra_arena_t ka;
    dra_intern_t sets, doms;
    dra_arena_init(&ka, 0);
    dra_intern_init(&sets, &ka);
    dra_intern_init(&doms, &ka);
    int rc = DRA_OK;
    char key[512];
    uint32_t capcons = 0, capsets = 0;
    frag_names_t names = {NULL, 0};
    c->fdev = calloc(m->ndevices ? m->ndevices : 1, sizeof *c->fdev);
    c->frag_inuse = calloc(m->ndevices ? m->ndevices : 1, 1);
    if (!c->fdev || !c->frag_inuse)
        rc = DRA_ENOMEM;
    /* counter sets: memory slices each */
    for (uint32_t si = 0; rc == DRA_OK && si < m->nslices; si++) {
        const dra_slice_t *s = m->slices[si];
        for (uint32_t k = 0; k < s->ncounter_sets; k++) {
            const dra_counter_set_t *cs = &s->counter_sets[k];
            snprintf(key, sizeof key, "%s\x1f%s\x1f%s", s->driver ? s->driver : "",
                     s->pool_name ? s->pool_name : "", cs->name ? cs->name : "");
            uint32_t id;
            if ((rc = dra_intern_put(&sets, key, strlen(key), &id)) != DRA_OK)
                break;
            if (id >= capsets) {
                uint32_t nc = capsets ? capsets * 2 : 64;
                while (nc <= id)
                    nc *= 2;
                uint32_t *nt = realloc(c->set_total, nc * sizeof *nt);
                if (!nt) {
                    rc = DRA_ENOMEM;
                    break;
                }
                memset(nt + capsets, 0, (nc - capsets) * sizeof *nt);
                c->set_total = nt;
                capsets = nc;
            }
            uint32_t n = 0;
            for (uint32_t j = 0; j < cs->ncounters; j++)
                n += strncmp(cs->counters[j].name, "memory-slice-", 13) == 0;
            c->set_total[id] = n;
            if (id > c->nsets)
                c->nsets = id;
        }
    }
    for (uint32_t si = 0; rc == DRA_OK && si < m->nslices; si++) {
        const dra_slice_t *s = m->slices[si];
        uint32_t node = NONE;
        if (s->node_name)
            node = dra_table_node_index(c->table, s->node_name);
        if (node != NONE && node >= c->nnodes)
            node = NONE;
        for (uint32_t di = 0; rc == DRA_OK && di < s->ndevices; di++) {
            const dra_device_t *d = &s->devices[di];
            frag_dev_t *f = &c->fdev[c->nfdev++];
            f->dev = d;
            f->node = node;
            const char *type, *clique;
            if ((rc = frag_type_clique(&names, d, &type, &clique)) != DRA_OK)
                break;
            f->gpu = type && (strcmp(type, "gpu") == 0 || strcmp(type, "amdgpu") == 0);
            if (f->gpu && clique && *clique && node != NONE) {
                const dra_node_t *nd = m->nodes[node];
                const char *scope = node_label(nd, "nvidia.com/gpu.clique");
                snprintf(key, sizeof key, "%s\x1f%s", scope ? scope : nd->name, clique);
                if ((rc = dra_intern_put(&doms, key, strlen(key), &f->domain)) != DRA_OK)
                    break;
                if (f->domain > c->ndomains)
                    c->ndomains = f->domain;
            }
            f->cons_off = c->nfcons;
            for (uint32_t k = 0; k < d->nconsumes; k++) {
                const dra_consumes_t *cs = &d->consumes[k];
                snprintf(key, sizeof key, "%s\x1f%s\x1f%s", s->driver ? s->driver : "",
                         s->pool_name ? s->pool_name : "", cs->counter_set ? cs->counter_set : "");
                uint32_t set = dra_intern_find(&sets, key, strlen(key));
                uint32_t n = 0;
                for (uint32_t j = 0; j < cs->ncounters; j++)
                    n += strncmp(cs->counters[j].name, "memory-slice-", 13) == 0;
                if (!set || !n)
                    continue;
                if (c->nfcons == capcons) {
                    uint32_t nc = capcons ? capcons * 2 : 1024;
                    frag_cons_t *nf = realloc(c->fcons, nc * sizeof *nf);
                    if (!nf) {
                        rc = DRA_ENOMEM;
                        break;
                    }
                    c->fcons = nf;
                    capcons = nc;
                }
                c->fcons[c->nfcons++] = (frag_cons_t){set, n};
            }
            f->ncons = c->nfcons - f->cons_off;
        }
    }
    free(names.kind);
    dra_intern_fini(&sets);
    dra_intern_fini(&doms);
    dra_arena_fini(&ka);
    /* common shapes: mix entries with at least 10% of the weight */
    double total = 0;
    for (uint32_t i = 0; i < c->scn.nmix; i++)
        total += c->scn.mix[i].weight;
    c->common = calloc(c->nshapes ? c->nshapes : 1, sizeof *c->common);
    if (!c->common)
        return DRA_ENOMEM;
    for (uint32_t i = 0; i < c->scn.nmix; i++)
        if (c->scn.mix[i].weight >= 0.1 * total && c->claims[i])
            c->common[c->ncommon++] = i;
    return rc;
}

/* The per-node, counter-set and domain figures of the state (into c->frag_*), from the in-use
 * bit of every row (c->frag_inuse, which this fills), and the list of rows in use. */
static int frag_full(ctx_t *c)
{
    /* fdev is in model device order: i is the device's row (dra_model_device_rows); the in-use
     * bits of every row in one sequential pass over the state */
    if (c->eng) /* the engine's per-row use counts: one load a row */
        dra_engine_rows_in_use(c->eng, c->frag_inuse, c->nfdev);
    else
        dra_alloc_state_rows_in_use(c->state, c->frag_inuse, c->nfdev);
#if DRA_DEBUG >= 2
    if (c->eng) { /* debug builds: the state's own answer is the same */
        uint8_t *st = malloc((size_t)c->nfdev + 1);
        if (!st)
            return DRA_ENOMEM;
        dra_alloc_state_rows_in_use(c->state, st, c->nfdev);
        bool same = c->nfdev == 0 || memcmp(st, c->frag_inuse, c->nfdev) == 0;
        free(st);
        if (!same)
            return dra_diag_set(c->diag, DRA_EINTERNAL, NULL, 0, 0,
                                "fragmentation: the engine's in-use rows differ from the state's");
    }
#endif
    memset(c->frag_used, 0, ((size_t)c->nnodes + 1) * sizeof *c->frag_used);
    memset(c->frag_idle, 0, ((size_t)c->nnodes + 1) * sizeof *c->frag_idle);
    memset(c->frag_set_used, 0, ((size_t)c->nsets + 1) * sizeof *c->frag_set_used);
    memset(c->frag_dom_tot, 0, ((size_t)c->ndomains + 1) * sizeof *c->frag_dom_tot);
    memset(c->frag_dom_used, 0, ((size_t)c->ndomains + 1) * sizeof *c->frag_dom_used);
    c->nfrag_live = 0;
    for (uint32_t i = 0; i < c->nfdev; i++) {
        const frag_dev_t *f = &c->fdev[i];
        bool in_use = c->frag_inuse[i];
        if (f->node != NONE) {
            if (in_use)
                c->frag_used[f->node]++;
            else if (f->gpu)
                c->frag_idle[f->node]++;
        }
        if (f->domain) {
            c->frag_dom_tot[f->domain]++;
            c->frag_dom_used[f->domain] += in_use;
        }
        if (in_use) {
            for (uint32_t k = 0; k < f->ncons; k++)
                c->frag_set_used[c->fcons[f->cons_off + k].set] += c->fcons[f->cons_off + k].slices;
            if (c->nfrag_live == c->cap_frag_live) {
                uint32_t nc = c->cap_frag_live ? 2 * c->cap_frag_live : 1024;
                uint32_t *nl = realloc(c->frag_live, (size_t)nc * sizeof *nl);
                if (!nl)
                    return DRA_ENOMEM;
                c->frag_live = nl;
                c->cap_frag_live = nc;
            }
            c->frag_live[c->nfrag_live++] = i;
        }
    }
    return DRA_OK;
}

/* A candidate row of frag_step (once). */
static int frag_cand(ctx_t *c, uint32_t *n, uint32_t row)
{
    if (c->frag_inuse[row] & 2)
        return DRA_OK;
    if (*n == c->cap_frag_cand) {
        uint32_t nc = c->cap_frag_cand ? 2 * c->cap_frag_cand : 1024;
        uint32_t *nr = realloc(c->frag_cand, (size_t)nc * sizeof *nr);
        uint8_t *nb = nr ? realloc(c->frag_now, nc) : NULL;
        if (nr)
            c->frag_cand = nr;
        if (!nb)
            return DRA_ENOMEM;
        c->frag_now = nb;
        c->cap_frag_cand = nc;
    }
    c->frag_inuse[row] |= 2;
    c->frag_cand[(*n)++] = row;
    return DRA_OK;
}

/* The figures of frag_full brought from the last sample to now by the rows that can have
 * changed: a row's device is taken into use only by a commit of a live slot's results (the
 * pods placed since, or still held), and leaves use only if it was in use at the last sample;
 * the engine's use counts answer for those rows alone. *done false (nothing changed): the
 * figures cannot be carried over - groups (their pods hold no slot), a result without its row,
 * a row the engine's counts do not answer for (a repeated device ID) - and frag_full must
 * run. O(rows in use + live slots' results). */
static int frag_step(ctx_t *c, bool *done)
{
    *done = false;
    if (!c->eng || c->groups)
        return DRA_OK;
    uint32_t n = 0;
    int rc = DRA_OK;
    for (uint32_t i = 0; rc == DRA_OK && i < c->nfrag_live; i++)
        rc = frag_cand(c, &n, c->frag_live[i]);
    bool ok = true;
    for (uint32_t si = 0; rc == DRA_OK && ok && si < c->nslots; si++) {
        const slot_t *s = &c->slots[si];
        if (!s->live || !s->allocs)
            continue;
        for (uint32_t k = 0; ok && rc == DRA_OK && k < s->n; k++) {
            const dra_allocation_t *al = s->allocs[k];
            for (uint32_t r = 0; al && ok && rc == DRA_OK && r < al->nresults; r++) {
                const dra_result_t *res = &al->results[r];
                uint32_t row = res->row;
                /* the row is trusted for the device it names (dra_result_t.row) */
                ok = row && row <= c->nfdev && res->device &&
                     (c->fdev[row - 1].dev->name == res->device ||
                      (c->fdev[row - 1].dev->name &&
                       strcmp(c->fdev[row - 1].dev->name, res->device) == 0));
                if (ok)
                    rc = frag_cand(c, &n, row - 1);
            }
        }
    }
    if (rc == DRA_OK && ok)
        ok = dra_engine_rows_in_use_at(c->eng, c->frag_cand, n, c->frag_now);
    if (rc != DRA_OK || !ok) {
        for (uint32_t i = 0; i < n; i++) /* the marks off again; nothing else changed */
            c->frag_inuse[c->frag_cand[i]] &= 1;
        return rc;
    }
    if (n > c->cap_frag_live) {
        uint32_t *nl = realloc(c->frag_live, (size_t)n * sizeof *nl);
        if (!nl) {
            for (uint32_t i = 0; i < n; i++)
                c->frag_inuse[c->frag_cand[i]] &= 1;
            return DRA_ENOMEM;
        }
        c->frag_live = nl;
        c->cap_frag_live = n;
    }
    c->nfrag_live = 0;
    for (uint32_t i = 0; i < n; i++) {
        uint32_t row = c->frag_cand[i];
        bool was = c->frag_inuse[row] & 1, now = c->frag_now[i];
        c->frag_inuse[row] = now;
        if (now)
            c->frag_live[c->nfrag_live++] = row;
        if (was == now)
            continue;
        const frag_dev_t *f = &c->fdev[row];
        if (f->node != NONE) {
            c->frag_used[f->node] += now ? 1u : UINT32_MAX;
            if (f->gpu)
                c->frag_idle[f->node] += now ? UINT32_MAX : 1u;
        }
        if (f->domain)
            c->frag_dom_used[f->domain] += now ? 1u : UINT32_MAX;
        for (uint32_t k = 0; k < f->ncons; k++) {
            const frag_cons_t *fc = &c->fcons[f->cons_off + k];
            c->frag_set_used[fc->set] += now ? fc->slices : 0u - fc->slices;
        }
    }
    *done = true;
    return DRA_OK;
}

/* Fragmentation of the current state (never inside a timed region): the first sample of a
 * repetition looks at every row (frag_full), the later ones only at the rows that can have
 * changed since (frag_step); the figures are the same either way. */
static int frag_measure(ctx_t *c, frag_values_t *out)
{
    memset(out, 0, sizeof *out);
    uint32_t nn = c->nnodes;
    int rc = DRA_OK;
    if (!c->frag_used) {
        c->frag_used = calloc((size_t)nn + 1, sizeof *c->frag_used);
        c->frag_idle = calloc((size_t)nn + 1, sizeof *c->frag_idle);
        c->frag_set_used = calloc((size_t)c->nsets + 1, sizeof *c->frag_set_used);
        c->frag_dom_tot = calloc((size_t)c->ndomains + 1, sizeof *c->frag_dom_tot);
        c->frag_dom_used = calloc((size_t)c->ndomains + 1, sizeof *c->frag_dom_used);
        if (!c->frag_used || !c->frag_idle || !c->frag_set_used || !c->frag_dom_tot ||
            !c->frag_dom_used)
            return DRA_ENOMEM;
    }
    bool stepped = false;
    if (c->frag_known && (rc = frag_step(c, &stepped)))
        return rc;
    if (!stepped && (rc = frag_full(c)))
        return rc;
    c->frag_known = true;
#if DRA_DEBUG >= 2
    if (stepped) { /* debug builds: the figures carried over are those of a full pass */
        size_t bn = ((size_t)nn + 1) * sizeof(uint32_t), bs = ((size_t)c->nsets + 1) * 4,
               bd = ((size_t)c->ndomains + 1) * 4;
        uint32_t *u = malloc(bn), *id = malloc(bn), *su = malloc(bs), *du = malloc(bd);
        bool same = u && id && su && du;
        if (same) {
            memcpy(u, c->frag_used, bn);
            memcpy(id, c->frag_idle, bn);
            memcpy(su, c->frag_set_used, bs);
            memcpy(du, c->frag_dom_used, bd);
            rc = frag_full(c);
            same = rc == DRA_OK && !memcmp(u, c->frag_used, bn) &&
                   !memcmp(id, c->frag_idle, bn) && !memcmp(su, c->frag_set_used, bs) &&
                   !memcmp(du, c->frag_dom_used, bd);
        }
        free(u);
        free(id);
        free(su);
        free(du);
        if (rc)
            return rc;
        if (!same)
            return dra_diag_set(c->diag, DRA_EINTERNAL, NULL, 0, 0,
                                "fragmentation: the figures carried from the last sample differ "
                                "from the state's");
    }
#endif
    /* idle GPUs on partly used nodes where no common shape fits */
    for (uint32_t n = 0; n < nn; n++) {
        if (!c->frag_idle[n] || !c->frag_used[n])
            continue;
        bool fits = false;
        for (uint32_t k = 0; k < c->ncommon && !fits; k++) {
            dra_claim_t *cl[1] = {c->claims[c->common[k]]};
            dra_alloc_outcome_t o;
            rc = dra_anyalloc_allocate(&c->alloc, c->model.nodes[n], cl, 1, &c->frag_arena, &o);
            dra_arena_reset(&c->frag_arena);
            if (rc != DRA_OK)
                return rc;
            fits = o.kind == DRA_OUTCOME_ALLOCATED;
        }
        if (!fits)
            out->idle_gpus_unusable += c->frag_idle[n];
    }
    uint64_t tot = 0, stranded = 0;
    for (uint32_t s = 1; s <= c->nsets; s++) {
        uint32_t t = c->set_total[s], u = DRA_MIN(c->frag_set_used[s], t);
        tot += t;
        if (u > 0 && u < t)
            stranded += t - u;
    }
    out->stranded_mig_fraction = tot ? (double)stranded / (double)tot : 0;
    for (uint32_t d = 1; d <= c->ndomains; d++)
        out->partial_nvlink_domains +=
            c->frag_dom_used[d] > 0 && c->frag_dom_used[d] < c->frag_dom_tot[d];
    return DRA_OK;
}

static int frag_sample(ctx_t *c, double t)
{
    frag_values_t v;
    int rc = frag_measure(c, &v);
    if (rc)
        return rc;
    c->frag_sum[0] += v.idle_gpus_unusable;
    c->frag_sum[1] += v.stranded_mig_fraction;
    c->frag_sum[2] += v.partial_nvlink_domains;
    c->frag_n++;
    json_array_append_new(c->frag_samples,
                          json_pack("[f, f, f, f]", t, v.idle_gpus_unusable, v.stranded_mig_fraction,
                                    v.partial_nvlink_domains));
    return c->groups ? dra_rgroups_sample(c->groups, c->state, t) : DRA_OK;
}

/* ---- one pod -------------------------------------------------------------------------------- */

/* ---- outcome reasons ------------------------------------------------------------------------ */

/* Pods of one shape that ended with one outcome other than allocated, and why. */
typedef struct reason {
    uint32_t shape;
    int kind; /* DRA_OUTCOME_* */
    uint64_t count;
    char text[1024];
    dra_node_reasons_t nr; /* unsatisfiable: the dominant per-node reasons (nr.nodes > 0) */
} reason_t;

/* Nodes the explain mode examines per shape and repetition (reasons.h): the others are counted
 * as not examined, so a shape that fails on a huge cluster costs a bounded, repeatable amount. */
#define REASONS_MAX_EXACT 100000

/* Per node: the nodes whose cpu / memory are short are left out (the reason text names them
 * already); every other node gets the explain mode's reason. */
static int node_reason(void *ud, uint32_t node, dra_why_t *w)
{
    const ctx_t *c = ud;
    (void)w;
    if (!c->eng || !c->reason_mix)
        return 0;
    int64_t r[4];
    dra_engine_node_resources(c->eng, node, r);
    const dra_scenario_mix_t *mx = c->reason_mix;
    bool cpu = mx->cpu_milli > 0 && r[0] >= 0 && r[0] - r[2] < mx->cpu_milli;
    bool mem = mx->memory_bytes > 0 && r[1] >= 0 && r[1] - r[3] < mx->memory_bytes;
    return cpu || mem ? -1 : 0;
}

static const char *outcome_key(int kind)
{
    switch (kind) {
    case DRA_OUTCOME_UNSATISFIABLE:
        return "unsatisfiable";
    case DRA_OUTCOME_NODE_FAILURE:
        return "node_failure";
    case DRA_OUTCOME_FATAL:
        return "fatal";
    default:
        return "allocated";
    }
}

/* Why the pod of ev ended with `kind`: for fatal and node-failure outcomes the allocator's
 * message on the first node (model order) that gives that outcome, found by asking the
 * allocator again outside the timed regions, once per shape and outcome in each measured
 * repetition (so every repetition does the same extra work); unsatisfiable needs no search (it
 * names cpu / memory when nodes lack the pod's requests now: dra_engine_res_short). */
static int explain(ctx_t *c, const dra_wl_event_t *ev, int kind, char *out, size_t len,
                   dra_node_reasons_t *nr)
{
    if (ev->shape < c->nshapes && !c->claims[ev->shape]) {
        /* the scheduler's checks reject every node alike (dra_scenario_shape_claim): one group */
        if (!nr || kind != DRA_OUTCOME_UNSATISFIABLE) {
            snprintf(out, len, "every node: %s", c->unsched[ev->shape]);
            return DRA_OK;
        }
        memset(nr, 0, sizeof *nr);
        nr->n = 1;
        nr->nodes = c->nnodes;
        nr->r[0].kind = c->unsched_kind[ev->shape];
        nr->r[0].nodes = c->nnodes;
        snprintf(nr->r[0].text, sizeof nr->r[0].text, "%s", c->unsched[ev->shape]);
        int at = snprintf(out, len, "the scheduler's checks reject every node (before any "
                                    "allocation): ");
        if (at > 0 && (size_t)at < len)
            dra_node_reasons_text(nr, 3, out + at, len - (size_t)at);
        return DRA_OK;
    }
    if (kind == DRA_OUTCOME_UNSATISFIABLE) {
        uint32_t ncpu = 0, nmem = 0;
        if (c->eng && ev->shape < c->nshapes)
            dra_engine_res_short(c->eng, c->plan[ev->shape], &ncpu, &nmem);
        char rs[96] = "";
        if (ncpu && nmem)
            snprintf(rs, sizeof rs, "insufficient cpu on %u node(s), insufficient memory on %u "
                     "node(s); ", ncpu, nmem);
        else if (ncpu || nmem)
            snprintf(rs, sizeof rs, "insufficient %s on %u node(s); ", ncpu ? "cpu" : "memory",
                     ncpu ? ncpu : nmem);
        snprintf(out, len, "%sno %snode can allocate the claim (%u node(s) searched, policy %s)",
                 rs, rs[0] ? "other " : "", c->nnodes, dra_placement_name(c->policy));
        if (!nr)
            return DRA_OK;
        /* the dominant per-node reasons, from the allocator's explain mode (untimed) */
        if (!c->why) {
            dra_alloc_options_t ao = {0};
            int rc = dra_explainer_new(&c->model, &c->feat, c->state, c->cel, &ao, &c->why);
            if (rc)
                return rc;
        }
        dra_claim_t *claims[1] = {c->claims[ev->shape]};
        c->reason_mix = ev->shape < c->scn.nmix ? &c->scn.mix[ev->shape] : NULL;
        int rc = dra_node_reasons(c->why, &c->model, claims, 1, node_reason, c, REASONS_MAX_EXACT,
                                  nr);
        c->reason_mix = NULL;
        if (rc)
            return rc;
        const dra_scenario_claim_t *xc = &c->xclaims[ev->shape];
        for (uint32_t k = 0; xc->nmappings && k < nr->n; k++) /* what its requests serve */
            for (uint32_t q = 0; q < claims[0]->nrequests; q++)
                dra_extres_name_request(xc->mappings, xc->nmappings, claims[0]->requests[q].name,
                                        nr->r[k].text, sizeof nr->r[k].text);
        if (nr->nodes) {
            size_t at = strlen(out);
            if (at + 3 < len) {
                memcpy(out + at, ": ", 3);
                dra_node_reasons_text(nr, 3, out + at + 2, len - at - 2);
            }
        }
        return DRA_OK;
    }
    if (!c->explain && !(c->explain = arena_new_warm()))
        return DRA_ENOMEM;
    dra_claim_t *claims[1] = {c->claims[ev->shape]};
    snprintf(out, len, "%s on every node searched", outcome_key(kind));
    for (uint32_t i = 0; i < c->nnodes; i++) {
        dra_alloc_outcome_t o;
        dra_arena_reset(c->explain);
        int rc = dra_anyalloc_allocate(&c->alloc, c->model.nodes[i], claims, 1, c->explain, &o);
        if (rc != DRA_OK)
            return rc;
        if ((int)o.kind == kind) {
            if (o.msg[0]) { /* cut at a UTF-8 character boundary if it does not fit */
                size_t k = strnlen(o.msg, len - 1);
                while (k > 0 && k < strlen(o.msg) && ((unsigned char)o.msg[k] & 0xC0) == 0x80)
                    k--;
                memcpy(out, o.msg, k);
                out[k] = '\0';
            }
            break;
        }
    }
    dra_arena_reset(c->explain);
    return DRA_OK;
}

/* Count the outcome of a pod that was not placed (outc before arrive in `before`). */
static int note_failure(ctx_t *c, const dra_wl_event_t *ev, const uint64_t before[4])
{
    int kind = -1;
    for (int k = 0; k < 4; k++)
        if (c->outc[k] != before[k])
            kind = k;
    if (kind < 0 || kind == DRA_OUTCOME_ALLOCATED)
        return DRA_OK;
    for (uint32_t i = 0; i < c->nreasons; i++)
        if (c->reasons[i].shape == ev->shape && c->reasons[i].kind == kind) {
            c->reasons[i].count++;
            return DRA_OK;
        }
    if (c->nreasons == c->cap_reasons) {
        uint32_t nc = c->cap_reasons ? 2 * c->cap_reasons : 8;
        reason_t *p = realloc(c->reasons, nc * sizeof *p);
        if (!p)
            return DRA_ENOMEM;
        c->reasons = p;
        c->cap_reasons = nc;
    }
    reason_t *r = &c->reasons[c->nreasons];
    memset(r, 0, sizeof *r);
    r->shape = ev->shape;
    r->kind = kind;
    r->count = 1;
    int rc = explain(c, ev, kind, r->text, sizeof r->text,
                     kind == DRA_OUTCOME_UNSATISFIABLE ? &r->nr : NULL);
    if (rc == DRA_OK)
        c->nreasons++;
    return rc;
}

/* A PodGroup entry's unplaced pods as a reason of the repetition (runner_groups.h). */
static void group_reason(void *ctx, uint32_t mix, int kind, uint64_t count, const char *text)
{
    ctx_t *c = ctx;
    if (c->nreasons == c->cap_reasons) {
        uint32_t nc = c->cap_reasons ? 2 * c->cap_reasons : 8;
        reason_t *p = realloc(c->reasons, nc * sizeof *p);
        if (!p)
            return; /* the reason is lost, not the run */
        c->reasons = p;
        c->cap_reasons = nc;
    }
    reason_t *r = &c->reasons[c->nreasons++];
    memset(r, 0, sizeof *r);
    r->shape = mix;
    r->kind = kind;
    r->count = count;
    snprintf(r->text, sizeof r->text, "%s", text);
}

/* `outcome_reasons` of a repetition: [{shape, outcome, reason, count}] in order of appearance. */
static json_t *reasons_json(const ctx_t *c)
{
    json_t *a = json_array();
    for (uint32_t i = 0; a && i < c->nreasons; i++) {
        const reason_t *r = &c->reasons[i];
        json_t *o = json_object();
        dra_rf_put_str(o, DRA_RF_REASON_SHAPE, c->shape_names[r->shape]);
        dra_rf_put_str(o, DRA_RF_REASON_OUTCOME, outcome_key(r->kind));
        dra_rf_put_str(o, DRA_RF_REASON_REASON, r->text);
        dra_rf_put_int(o, DRA_RF_REASON_COUNT, (int64_t)r->count);
        if (r->kind == DRA_OUTCOME_UNSATISFIABLE && r->nr.nodes) {
            json_t *na = dra_rf_put_arr(o, DRA_RF_REASON_NODE_REASONS);
            for (uint32_t k = 0; na && k < r->nr.n; k++) {
                json_t *x = json_object();
                dra_rf_put_str(x, DRA_RF_NREASON_KIND, dra_why_kind_name(r->nr.r[k].kind));
                dra_rf_put_str(x, DRA_RF_NREASON_REASON, r->nr.r[k].text);
                dra_rf_put_int(x, DRA_RF_NREASON_NODES, r->nr.r[k].nodes);
                json_array_append_new(na, x);
            }
            if (na && r->nr.other_groups) {
                char t[96];
                snprintf(t, sizeof t, "%u other reasons", r->nr.other_groups);
                json_t *x = json_object();
                dra_rf_put_str(x, DRA_RF_NREASON_KIND, "other");
                dra_rf_put_str(x, DRA_RF_NREASON_REASON, t);
                dra_rf_put_int(x, DRA_RF_NREASON_NODES, r->nr.other_nodes);
                json_array_append_new(na, x);
            }
        }
        json_array_append_new(a, o);
    }
    return a;
}

/* ---- placement -------------------------------------------------------------------------------- */

static int64_t clock_fn(void)
{
    return now_ns();
}

/* The allocate call's clock (the engine's dra_engine_opts_t.clock_ns). That region lies inside
 * the node search's, so its two readings are part of the search's (and the pod's) measured
 * time: a pair of CLOCK_MONOTONIC readings inside a region adds about 50 ns to it here, against
 * 20 ns for a pair of time-stamp counter readings, on pods of about 200 ns (sched-perf-500). So
 * where the CPU has a time-stamp counter the answer is timed in its ticks, converted to ns
 * outside the timed regions (answer_ns) at a rate measured against CLOCK_MONOTONIC once per
 * process (tick_rate); elsewhere, or when the rate cannot be measured consistently, with
 * CLOCK_MONOTONIC itself. */
static double ns_per_tick; /* 0: not measured yet; negative: no usable counter */

#if defined(__x86_64__) || defined(__i386__)
#include <x86intrin.h>
static int64_t tick_fn(void)
{
    return (int64_t)__rdtsc();
}

/* ns per tick over about 1 ms: a tick reading bracketed by two clock readings at each end
 * (brackets wider than 400 ns, a preemption, are tried again). 0 when no try succeeded. */
static double tick_rate_once(void)
{
    for (int attempt = 0; attempt < 8; attempt++) {
        int64_t a0 = now_ns();
        uint64_t k0 = __rdtsc();
        int64_t a1 = now_ns();
        while (now_ns() - a1 < 1000000)
            ;
        int64_t b0 = now_ns();
        uint64_t k1 = __rdtsc();
        int64_t b1 = now_ns();
        if (a1 - a0 > 400 || b1 - b0 > 400 || k1 <= k0)
            continue;
        double r = ((double)(b0 + b1) - (double)(a0 + a1)) / 2 / (double)(k1 - k0);
        if (r > 0.01 && r < 100)
            return r;
    }
    return 0;
}
#endif

/* Measure the counter's rate once: two windows that must agree within 0.2% (a counter whose
 * rate follows the CPU's frequency would not be a clock). */
static void tick_rate(void)
{
    if (ns_per_tick != 0)
        return;
    ns_per_tick = -1;
#if defined(__x86_64__) || defined(__i386__)
    double r1 = tick_rate_once(), r2 = tick_rate_once();
    if (r1 > 0 && r2 > 0 && fabs(r1 - r2) <= 0.002 * r1)
        ns_per_tick = (r1 + r2) / 2;
#endif
}

static int64_t (*answer_clock(void))(void)
{
#if defined(__x86_64__) || defined(__i386__)
    if (ns_per_tick > 0)
        return tick_fn;
#endif
    return clock_fn;
}

/* An allocate call's time (its clock's units, answer_clock) in ns. */
static inline int64_t answer_ns(int64_t d)
{
    return ns_per_tick > 0 ? (int64_t)((double)d * ns_per_tick + 0.5) : d;
}

static dra_engine_policy_t engine_policy(dra_placement_t p)
{
    switch (p) {
    case DRA_PLACE_BEST_FIT:
        return DRA_ENGINE_BEST_FIT;
    case DRA_PLACE_SPREAD:
        return DRA_ENGINE_SPREAD;
    case DRA_PLACE_RANDOM:
        return DRA_ENGINE_RANDOM;
    case DRA_PLACE_FIRST_FIT:
        break;
    }
    return DRA_ENGINE_FIRST_FIT;
}

/* Engine and reference placement decided differently: outcome, node, devices, message. */
static bool decision_differs(const ctx_t *c, const dra_engine_result_t *x,
                             const dra_engine_result_t *y, char *why, size_t len)
{
    const char *nx = x->node < c->nnodes ? c->model.nodes[x->node]->name : "-";
    const char *ny = y->node < c->nnodes ? c->model.nodes[y->node]->name : "-";
    if (x->kind != y->kind || x->node != y->node) {
        snprintf(why, len, "engine %s on node %.60s, reference %s on node %.60s",
                 dra_outcome_name(x->kind), nx, dra_outcome_name(y->kind), ny);
        return true;
    }
    if (x->kind != DRA_OUTCOME_ALLOCATED) {
        if (x->kind != DRA_OUTCOME_UNSATISFIABLE && strcmp(x->msg, y->msg) != 0) {
            snprintf(why, len, "messages differ: engine '%.80s', reference '%.80s'", x->msg, y->msg);
            return true;
        }
        return false;
    }
    if (x->n != y->n) {
        snprintf(why, len, "%u allocations, reference %u", x->n, y->n);
        return true;
    }
    for (uint32_t i = 0; i < x->n; i++) {
        const dra_allocation_t *a = x->allocations[i], *b = y->allocations[i];
        uint32_t na = a ? a->nresults : 0, nb = b ? b->nresults : 0;
        if (na != nb) {
            snprintf(why, len, "claim %u: %u devices, reference %u", i, na, nb);
            return true;
        }
        for (uint32_t j = 0; j < na; j++) {
            const dra_result_t *ra = &a->results[j], *rb = &b->results[j];
            if (strcmp(ra->request, rb->request) || strcmp(ra->driver, rb->driver) ||
                strcmp(ra->pool, rb->pool) || strcmp(ra->device, rb->device)) {
                snprintf(why, len, "claim %u result %u: engine %.30s/%.30s/%.30s, reference %.30s/%.30s/%.30s", i,
                         j, ra->driver, ra->pool, ra->device, rb->driver, rb->pool, rb->device);
                return true;
            }
        }
    }
    return false;
}

static void violation(ctx_t *c, uint64_t pod, const char *claim, const char *node, const char *msg);

/* The test hook of --allocator both (runner_tests.h). */
void (*dra_runner_both_hook)(uint64_t pod, dra_engine_result_t *reference) = NULL;

/* --allocator both: the reference placement with the reference allocator on the same state
 * (untimed); a different decision is a violation and stops the run. */
static int compare_reference(ctx_t *c, uint64_t pod, uint32_t shape, dra_engine_policy_t pol,
                             uint32_t start, const dra_engine_result_t *res, int64_t engine_ns)
{
    dra_arena_reset(c->cmp_arena);
    dra_engine_result_t ref;
    int64_t a = now_ns();
    int rc = dra_engine_place_reference(c->eng, &c->cmp, c->plan[shape], pol, start, c->cmp_arena,
                                        &ref);
    int64_t b = now_ns();
    if (rc != DRA_OK)
        return dra_diag_set(c->diag, rc, NULL, 0, 0, "reference allocator error: %s",
                            dra_strerror(rc));
    c->run->both_pods++;
    c->run->both_ref_ns += (uint64_t)(b - a);
    c->run->both_engine_ns += (uint64_t)engine_ns;
    if (DRA_UNLIKELY(dra_runner_both_hook != NULL))
        dra_runner_both_hook(pod, &ref);
    char why[512], msg[600];
    if (decision_differs(c, res, &ref, why, sizeof why)) {
        snprintf(msg, sizeof msg, "allocator both: decisions differ: %s", why);
        violation(c, pod, c->claims[shape]->name,
                  res->node < c->nnodes ? c->model.nodes[res->node]->name : "", msg);
        c->halt = true;
    }
    dra_arena_reset(c->cmp_arena);
    return DRA_OK;
}

/* The engine over the current allocator and CEL cache, and the plan of every shape. */
/* Bytes of heap in use (glibc's mallinfo2: small blocks plus mmapped ones). */
static size_t heap_in_use(void)
{
    struct mallinfo2 mi = mallinfo2();
    return mi.uordblks + mi.hblkhd;
}

static size_t growth(size_t before, size_t after)
{
    return after > before ? after - before : 0;
}

/* The allocator's per-node layouts, built here, untimed, not on a node's first visit: for every
 * node the placement of some shape may give to the allocator (the others are answered from the
 * engine's columns, or never reached). */
static int engine_layouts(ctx_t *c, bool reuse)
{
    if (!reuse) { /* the nodes, listed for the repetitions that reset this engine */
        c->nlay = 0;
        for (uint32_t i = 0; i < c->model.nnodes; i++) {
            if (!dra_engine_needs_allocator(c->eng, i))
                continue;
            if (c->nlay == c->cap_lay) {
                uint32_t nc = c->cap_lay ? 2 * c->cap_lay : 256;
                uint32_t *nl = realloc(c->lay, nc * sizeof *nl);
                if (!nl)
                    return DRA_ENOMEM;
                c->lay = nl;
                c->cap_lay = nc;
            }
            c->lay[c->nlay++] = i;
        }
    }
    for (uint32_t k = 0; k < c->nlay; k++) {
        int rc = dra_anyalloc_prepare(&c->alloc, c->model.nodes[c->lay[k]]);
        if (rc)
            return rc;
    }
    return DRA_OK;
}

/* The reference allocator of --allocator both (it shares the CEL cache). */
static int cmp_new(ctx_t *c)
{
    if (!c->both)
        return DRA_OK;
    dra_alloc_options_t ao = {0, c->seed};
    int rc = dra_anyalloc_new(DRA_ALLOC_REFERENCE, &c->model, &c->feat, c->state, c->cel, &ao,
                              &c->cmp);
    c->cmp_init = rc == DRA_OK;
    return rc;
}

static int engine_build(ctx_t *c)
{
    tick_rate();
    dra_engine_opts_t eo = {.clock_ns = answer_clock()};
    bool first = c->run->engine_bytes == 0 && c->run->layout_bytes == 0;
    size_t h0 = heap_in_use();
    int64_t e0 = now_ns();
    int rc = dra_engine_new(&c->model, c->table, &c->feat, c->state, c->cel, &c->alloc, &eo,
                            &c->eng, c->diag);
    if (rc)
        return rc;
    c->plan = calloc(c->nshapes + 1, sizeof *c->plan);
    if (!c->plan)
        return DRA_ENOMEM;
    for (uint32_t i = 0; i < c->nshapes; i++) {
        if (!c->claims[i]) /* unschedulable everywhere: never placed */
            continue;
        if ((rc = dra_engine_plan(c->eng, &c->claims[i], 1, &c->plan[i])))
            return rc;
        const dra_scenario_mix_t *mx = i < c->scn.nmix ? &c->scn.mix[i] : NULL;
        if (mx && (rc = dra_engine_plan_resources(c->eng, c->plan[i], mx->cpu_milli,
                                                  mx->memory_bytes)))
            return rc;
    }
    if (c->groups && (rc = dra_rgroups_engine(c->groups, c->eng, c->plan)))
        return rc;
    dra_engine_prepare_policy(c->eng, engine_policy(c->policy));
    if (first) /* set-up, signatures and plans of the shapes: what an update avoids redoing */
        c->run->engine_build_ns = now_ns() - e0;
    size_t h1 = heap_in_use();
    if ((rc = engine_layouts(c, false)))
        return rc;
    size_t h2 = heap_in_use();
    if (first) { /* the memory figures of the engine and the layouts, measured once */
        c->run->engine_bytes = growth(h0, h1);
        c->run->layout_bytes = growth(h1, h2);
    }
    /* what a repetition changes, saved to be put back for the next one instead of building the
     * engine again (engine_reuse); not when there is no next one, nor with slice updates (they
     * change the model and the table under the engine: every repetition builds anew) */
    c->eng_saved = false;
    if (c->nreps > 1 && c->scn.taints.every == 0 && !c->o->rebuild_engine) {
        if ((rc = dra_engine_save(c->eng)))
            return rc;
        c->eng_saved = true;
#if DRA_DEBUG >= 2
        c->eng_digest = dra_engine_plans_digest(c->eng);
#endif
    }
    return cmp_new(c);
}

static int engine_setup(ctx_t *c)
{
    int rc = engine_build(c);
    if (rc)
        return rc;
    if (c->both) {
        c->cmp_arena = arena_new_warm();
        if (!c->cmp_arena)
            return DRA_ENOMEM;
        c->both_left = c->o->both_prefix ? c->o->both_prefix : DRA_RUNNER_BOTH_PREFIX;
        c->both_gleft = c->o->both_groups ? c->o->both_groups : c->both_left;
    }
    return DRA_OK;
}

static int arrive(ctx_t *c, const dra_wl_event_t *ev, bool *placed)
{
    uint32_t shape = ev->shape;
    bool shared = ev->claim != UINT64_MAX;
    *placed = false;
    if (grow_u32(&c->pod_slot, &c->cap_pod, ev->pod + 1, NONE))
        return DRA_ENOMEM;
    if (shared) {
        uint64_t cap = c->cap_claim;
        if (grow_u32(&c->claim_slot, &cap, ev->claim + 1, NONE))
            return DRA_ENOMEM;
        uint64_t cap2 = c->cap_claim;
        if (grow_u32(&c->claim_refs, &cap2, ev->claim + 1, 0))
            return DRA_ENOMEM;
        c->cap_claim = cap;
    }
    c->pods++;
    if (shared && c->claim_slot[ev->claim] != NONE) {
        /* the shared claim is allocated: the pod joins it on its node */
        hook(1);
        int64_t t0 = now_ns();
        uint32_t s = c->claim_slot[ev->claim];
        c->claim_refs[ev->claim]++;
        c->pod_slot[ev->pod] = s;
        int64_t t1 = plant(c, shape, RK_JOIN, t0, now_ns());
        hook(0);
        if (c->measuring) {
            rec(c, shape, DRA_PHASE_POD, DRA_HOUT_ALLOCATED, t1 - t0);
            rec(c, shape, DRA_PHASE_POD, DRA_HOUT_ANY, t1 - t0);
        }
        c->busy_ns += (uint64_t)(t1 - t0);
        c->placed_pods++;
        c->placed_ns += (uint64_t)(t1 - t0);
        c->outc[DRA_OUTCOME_ALLOCATED]++;
        digest_decision(c, ev->pod, DRA_OUTCOME_ALLOCATED, &c->slots[s]);
        *placed = true;
        return DRA_OK;
    }
    if (!c->claims[shape]) {
        /* no node takes the shape's pods (extended resources nothing backs, or a claim without
         * requests failing at PreBind): decided without a placement */
        hook(1);
        int64_t t0 = now_ns();
        int oc = c->unsched_fatal[shape] ? DRA_OUTCOME_FATAL : DRA_OUTCOME_UNSATISFIABLE;
        int64_t t1 = now_ns();
        hook(0);
        c->outc[oc]++;
        if (c->measuring) {
            rec(c, shape, DRA_PHASE_POD, DRA_HOUT_UNSATISFIABLE, t1 - t0);
            rec(c, shape, DRA_PHASE_POD, DRA_HOUT_ANY, t1 - t0);
        }
        c->busy_ns += (uint64_t)(t1 - t0);
        digest_decision(c, ev->pod, oc, NULL);
        return DRA_OK;
    }
    uint32_t si = slot_get(c, shape);
    if (si == NONE)
        return DRA_ENOMEM;
    slot_t *s = &c->slots[si];
    dra_claim_t *claims[1] = {c->claims[shape]};
    c->claims_n++;
    uint32_t nn = c->nnodes;
    dra_engine_policy_t pol = engine_policy(c->policy);
    uint32_t start = 0;
    if (pol == DRA_ENGINE_RANDOM && nn)
        start = (uint32_t)dra_rng_below(&c->r_place, nn); /* one draw per pod */
    dra_engine_result_t res;

    /* the test hooks' spins (runner.h) come after the work, inside the region */
    uint64_t fixed = c->checking ? 0 : c->o->test_delay_ns;
    hook(1);
    int64_t t0 = now_ns();
    int rc = c->ref_place ? dra_engine_place_reference(c->eng, &c->alloc, c->plan[shape], pol,
                                                       start, s->arena, &res)
                          : dra_engine_place_slot(c->eng, c->plan[shape], pol, start, &s->es,
                                                  s->arena, &res);
    int64_t t1 = plant(c, shape, RK_SEARCH, t0, now_ns());
    if (fixed) {
        /* the fixed delay is a time, not a count: at least test_delay_ns on the clock (an
         * iteration count from a calibration that ran while the core was busy spun 190 us of
         * a planted 200 on a quiet core) */
        t1 = spin_until(t1 + (int64_t)fixed);
    }
    hook(0);
    if (!c->ref_place && s->es.mem) { /* what the slot's next pod of this template writes */
        size_t used = dra_engine_slot_used(c->eng);
        size_t lines = (used + 63) / 64;
        s->mem_lines = used && lines <= UINT16_MAX ? (uint16_t)lines : 0;
    }
    if (rc != DRA_OK) {
        slot_put(c, si);
        return dra_diag_set(c->diag, rc, NULL, 0, 0, "allocator error: %s%s%s", dra_strerror(rc),
                            res.msg[0] ? ": " : "", res.msg);
    }
    c->st.allocate_one += res.stats.allocate_one;
    c->st.cel_evals += res.stats.cel_evals;
    c->st.candidates += res.stats.candidates;
    c->st.pools += res.stats.pools;
    c->paths[res.path]++;
    c->served[res.served]++;
    if (c->both && c->both_left && !c->checking) {
        c->both_left--;
        if ((rc = compare_reference(c, ev->pod, shape, pol, start, &res, t1 - t0)))
            return rc;
    }
    uint32_t best = res.kind == DRA_OUTCOME_ALLOCATED ? res.node : NONE;
    bool fatal = res.kind == DRA_OUTCOME_FATAL;
    dra_allocation_t **best_allocs = res.allocations;
    uint32_t best_n = res.n;
    int64_t best_alloc_ns = answer_ns(res.alloc_ns);

    if (best == NONE) {
        slot_put(c, si);
        int oc = fatal ? DRA_OUTCOME_FATAL : (int)res.kind;
        c->outc[oc]++;
        if (c->measuring) {
            rec(c, shape, DRA_PHASE_NODE_SEARCH, DRA_HOUT_UNSATISFIABLE, t1 - t0);
            rec(c, shape, DRA_PHASE_POD, DRA_HOUT_UNSATISFIABLE, t1 - t0);
            rec(c, shape, DRA_PHASE_POD, DRA_HOUT_ANY, t1 - t0);
        }
        c->busy_ns += (uint64_t)(t1 - t0);
        c->rej_claims++;
        c->rej_ns += (uint64_t)(t1 - t0);
        digest_decision(c, ev->pod, oc, NULL);
        return DRA_OK;
    }

    s->allocs = best_allocs;
    s->n = best_n;
    s->node = best;
    s->shape = shape;
    s->ndev = 0;
    for (uint32_t i = 0; i < best_n; i++)
        s->ndev += best_allocs[i] ? best_allocs[i]->nresults : 0;
    c->ok_allocs++;
    /* the fault is injected in the timed pass and again in the check pass (the same decision
     * there), where the checker must catch it */
    if ((c->measuring || c->checking) && c->o->inject_fault && c->ok_allocs == c->o->inject_fault)
        inject_fault(c, s);
    if (c->checking)
        check_invariants(c, ev->pod, shape, s);

    hook(1);
    int64_t t2 = now_ns();
    /* a release record only where a timed release will take it back (steady arrivals): in a
     * fill the pods never leave, and the record's writes would be the commit's cost alone */
    bool steady = c->built.workload.mode == DRA_WL_STEADY;
    int crc = steady ? dra_engine_commit_pod_rec(c->eng, c->plan[shape], best, best_allocs, best_n,
                                                 &c->recs[si])
                     : dra_engine_commit_pod(c->eng, c->plan[shape], best, best_allocs, best_n);
    /* the line the commit has just written; in a fill no record is ever written (zeroed: not
     * held), and the timed commit makes no call to read it */
    bool recd = steady && dra_engine_rec_held(&c->recs[si]);
    if (recd)
        c->recbits[si >> 6] |= 1ULL << (si & 63);
    int64_t t3 = plant(c, shape, RK_COMMIT, t2, now_ns());
    hook(0);
    if (c->groups) /* the group cycle's placement score reads what pods request per node */
        dra_rgroups_note_pod(c->groups, best, c->scn.mix[shape].cpu_milli,
                             c->scn.mix[shape].memory_bytes, 1);
    if (crc != DRA_OK) {
        char msg[128];
        snprintf(msg, sizeof msg, "commit failed: %s", dra_strerror(crc));
        violation(c, ev->pod, claims[0]->name, c->model.nodes[best]->name, msg);
    }
    c->rec_commits += recd;
    c->live_norec -= recd;
    c->pod_slot[ev->pod] = si;
    if (shared) {
        c->claim_slot[ev->claim] = si;
        c->claim_refs[ev->claim] = 1;
    }
    c->outc[DRA_OUTCOME_ALLOCATED]++;
    if (c->measuring) {
        rec(c, shape, DRA_PHASE_NODE_SEARCH, DRA_HOUT_ALLOCATED, t1 - t0);
        rec(c, shape, DRA_PHASE_ALLOCATE, DRA_HOUT_ALLOCATED, best_alloc_ns);
        rec(c, shape, DRA_PHASE_COMMIT, DRA_HOUT_ALLOCATED, t3 - t2);
        rec(c, shape, DRA_PHASE_POD, DRA_HOUT_ALLOCATED, (t1 - t0) + (t3 - t2));
        rec(c, shape, DRA_PHASE_POD, DRA_HOUT_ANY, (t1 - t0) + (t3 - t2));
    }
    c->busy_ns += (uint64_t)((t1 - t0) + (t3 - t2));
    c->ok_claims++;
    c->ok_ns += (uint64_t)((t1 - t0) + (t3 - t2));
    c->placed_pods++;
    c->placed_ns += (uint64_t)((t1 - t0) + (t3 - t2));
    digest_decision(c, ev->pod, DRA_OUTCOME_ALLOCATED, s);
    *placed = true;
    return DRA_OK;
}

/* Departures after the one being released whose lines that release starts loading: the next
 * two (three when a live pod kept no record) in their order (dra_workload_peek_heap2 and
 * dra_workload_peek_heap order them), and the four entries of the departure heap's third level
 * (entries 3 to 6 of its first 7, DRA_WL_PEEK_HEAP), which hold the later departures new to
 * the first 7 since the release before. Fewer (4 or 3: stage 0 for heap entry 3 only, or for
 * the third departure only) measured no repeatable gain at fleet-5k's defaults
 * (results/performance-log.md, "the release look-ahead's hint levels and depth"). */
_Static_assert(DRA_WL_PEEK_HEAP == 7, "the look-ahead's depth, as measured");
/* Lines of a slot's arena from its allocation list on: the list, the allocations and their
 * results, placed one after another by the placement that filled the slot. */
#define RELEASE_LINES 4

/* The slot a departure peeked at holds: its tag (the runner tags each placed pod's departure
 * with its slot + 1: dra_workload_tag), else (a PodGroup's pod, whose departure the group cycle
 * makes) the pod's entry of pod_slot, a load of its own. NONE when neither names a slot. One
 * compare for a tag in range (tag 0 wraps to UINT32_MAX, never below nslots); the rest apart. */
DRA_NOINLINE static uint32_t peek_slot_other(const ctx_t *c, uint64_t pod, uint32_t tag)
{
    if (tag)
        return NONE;
    return pod < c->cap_pod ? c->pod_slot[pod] : NONE;
}

static inline uint32_t peek_slot(const ctx_t *c, uint64_t pod, uint32_t tag)
{
    uint32_t si = tag - 1;
    return DRA_LIKELY(si < c->nslots) ? si : peek_slot_other(c, pod, tag);
}

/* Stage 0 of heap entry i, when the heap holds it: its slot line (slots) and its release
 * record's first line (recs). */
static DRA_ALWAYS_INLINE void hint_entry(const ctx_t *c, const dra_wl_dep_t *h, uint32_t n,
                                         uint32_t i, bool slots, bool recs)
{
    if (i >= n)
        return;
    uint32_t si = peek_slot(c, h[i].pod, h[i].tag);
    if (si == NONE)
        return;
    if (slots)
        __builtin_prefetch(&c->slots[si]);
    if (recs)
        __builtin_prefetch(&c->recs[si]);
}

/* Stage 0 of the departure heap's third level (entries 3 to 6, those the heap holds). */
static DRA_ALWAYS_INLINE void hint_level3(const ctx_t *c, const dra_wl_dep_t *h, uint32_t n,
                                          bool slots, bool recs)
{
    hint_entry(c, h, n, 3, slots, recs);
    hint_entry(c, h, n, 4, slots, recs);
    hint_entry(c, h, n, 5, slots, recs);
    hint_entry(c, h, n, 6, slots, recs);
}

/* Whether every live pod kept a release record: then a release by record reads no slot line
 * in its timed region (only the runner's untimed slot_put does), and the look-ahead's slot
 * hints can wait for the clock to stop (prefetch_slots). */
static inline bool all_recorded(const ctx_t *c)
{
    return c->recs && !c->live_norec;
}

/* The slot lines of the departures prefetch_releases names (heap entries 3 to 6 and the next
 * one), while all_recorded: the runner's own lines, which only its untimed bookkeeping after a
 * release reads (slot_put: the slot's arena, its free list), hinted after the release's clock
 * has stopped so that the release's latency holds the engine's work and its look-ahead only.
 * Hints only. */
static void prefetch_slots(const ctx_t *c, const dra_workload_t *w)
{
    if (!all_recorded(c))
        return; /* prefetch_releases hinted them: a release by allocations reads its slot */
    const dra_wl_dep_t *h;
    uint32_t ord[3];
    uint32_t n = dra_workload_peek_heap2(w, &h, ord), si;
    hint_level3(c, h, n, true, false);
    if (n > 0 && (si = peek_slot(c, h[0].pod, h[0].tag)) != NONE)
        __builtin_prefetch(&c->slots[si]);
}

/* Start the loads of the next releases: the workload's departure heap says which pods leave
 * next, and each departure's tag which slot each one holds. A release's own prefetch (in the
 * engine) cannot start before the first load of what it releases by (the engine's release
 * record, else the pod's result memory: written at commit or placement long before and evicted
 * since) returns; this starts the chain of loads that leads there a few releases ahead, one
 * step per release so each step finds the line the step before started: the slot line and the
 * release record's first line of each departure the heap's third level holds (entries 3 to 6:
 * the tag gives both addresses); with a release record, stages 2 (signature entries, the
 * allocator's pool entries) and 1 (state entries, row mirror, per-row columns) for the next and
 * second in one call (dra_engine_prefetch_records); without one, the result memory of the
 * third, the engine's release lines of the second (dra_engine_prefetch_release) and what those
 * lines name for the next (dra_engine_prefetch_release_next: a share's state and capacity
 * lines). Hints only: nothing is changed, and a guess the heap gets wrong (a departure not yet
 * in it, a shared claim still held) costs a few loads. It runs inside the release's timed
 * region, first (a release pays for the hints of the ones after it): started before the
 * release's own work rather than after it, its loads (stage 2 reads the lines stage 1 started a
 * release before) and the misses it starts overlap that work instead of standing between it
 * and the clock's second reading, and the release was 14-26 ns faster in every shape at
 * fleet-5k's defaults, its commits as before (results/performance-log.md, the twenty-first
 * stop). While every live pod kept a record, the slot lines are prefetch_slots', after the
 * clock stops. */
static void prefetch_releases(ctx_t *c, const dra_workload_t *w)
{
    const dra_wl_dep_t *h; /* the heap's first entries, read in place */
    uint32_t ord[3];       /* the positions of the next three departures among them */
    /* stage 0 (the record's first line, and the slot line with it: prefetch_slots while
     * every live pod kept a record) of heap entries 3 to 6 only. An entry reaches the heap's second level (1, 2) from the third as a release's pop
     * moves it up a level, so a release before this one started its lines there; the entries
     * new in the first seven since the last release are almost all in the third level (the
     * one the pop moved up from the fourth, a departure pushed that rose there). The second
     * and third departures are in these levels (the third a child of the root or of the
     * second), and the lines of entries 1 and 2 were started again at every release before
     * (about 35 instructions a release for lines already there, fleet-5k at its defaults). A
     * departure pushed straight to the second level (earlier than all but two of the heap's)
     * is not started here: rare, and its own release loads its lines. Unrolled (the common
     * heap holds all seven), each entry's tag tested by one compare (peek_slot).
     *
     * While every live pod kept a record (live_norec 0), the third departure has no stage of
     * its own (only a pod without a record has one: its result memory, below), so the peek
     * looks for the next two only, and their records are taken without the record bit's test
     * (a guess that names a slot without a held record finds it not held in the record's
     * first line, which stage 1 and 2 read anyway). prefetch_slots starts the next
     * departure's slot line once more, a release before slot_put reads it (untimed): started
     * only at the third level, it missed a simulated 1 MiB last level in about half of the
     * releases (callgrind with every hint a load, the untimed slot_put), where the look-ahead
     * used to start it again at every release while the departure was in the second level. */
    if (DRA_LIKELY(all_recorded(c))) {
        uint32_t n = dra_workload_peek_heap2(w, &h, ord);
        hint_level3(c, h, n, false, true); /* the slot lines: prefetch_slots */
        const dra_engine_rec_t *next = NULL, *second = NULL;
        uint32_t si;
        if (n > 0 && (si = peek_slot(c, h[0].pod, h[0].tag)) != NONE)
            next = &c->recs[si];
        if (n > 1 && (si = peek_slot(c, h[ord[1]].pod, h[ord[1]].tag)) != NONE)
            second = &c->recs[si];
        if (next || second) /* stages 2 and 1 in one call */
            dra_engine_prefetch_records(c->eng, next, second);
        return;
    }
    uint32_t n = dra_workload_peek_heap(w, &h, ord);
    hint_level3(c, h, n, true, c->recs != NULL);
    const dra_engine_rec_t *rr[2] = {NULL, NULL}; /* records of the next and second departure */
    for (uint32_t i = 0; i < n && i < 3; i++) {
        uint32_t si = peek_slot(c, h[ord[i]].pod, h[ord[i]].tag);
        if (si == NONE)
            continue;
        /* a live pod with a record (recbits), without a load of its slot's line: the record
         * three steps ahead, its rows' lines two, what they name one. The stage 0 above started
         * the slot and record lines of heap entries 3 to 6 this release, and of entries 1 and 2
         * while they were there, the third's among them, two releases or more before its own
         * release reads them; the entries after the third need not be the next departures
         * after it (the fourth earliest may lie deeper in the heap). Every hint of the
         * look-ahead, here and in the engine's stages, is prefetcht0 (locality 3, into the
         * first level): stage 0's as prefetcht1 (to the second level only, on the Zen 4
         * machine measured) made the release 60-75 ns slower (two sittings; the next stage's
         * loads read their lines), stages 0 and 1's 0-10 ns (two sittings: no gain either),
         * and the engine's hints for the next commit as prefetcht1 made that commit 65 ns
         * slower, as slow as without them (results/performance-log.md, "the release
         * look-ahead's hint levels and depth") */
        if (slot_recd(c, si)) {
            if (i < 2) /* the third's stage 0: the entries above */
                rr[i] = &c->recs[si];
            if (i == 0) /* its slot line, for slot_put (as above) */
                __builtin_prefetch(&c->slots[si]);
            continue;
        }
        const slot_t *s = &c->slots[si];
        if (!s->live || !s->n || !s->allocs)
            continue;
        if (i == 0) {
            dra_engine_prefetch_release_next(c->eng, s->node, s->allocs, s->n);
            continue;
        }
        if (i == 1) {
            dra_engine_prefetch_release(c->eng, s->node, s->allocs, s->n);
            continue;
        }
        const char *p = (const char *)((uintptr_t)s->allocs & ~(uintptr_t)63);
        for (uint32_t l = 0; l < RELEASE_LINES; l++)
            __builtin_prefetch(p + 64 * l);
    }
    if (rr[0] || rr[1]) /* stages 2 and 1 in one call */
        dra_engine_prefetch_records(c->eng, rr[0], rr[1]);
}

/* The engine's release of slot si: by its record when recd, else by its allocations. */
static inline int release_engine(ctx_t *c, uint32_t si, bool recd)
{
    const slot_t *s = &c->slots[si];
    return recd ? dra_engine_release_record(c->eng, &c->recs[si])
                : dra_engine_release_pod(c->eng, c->plan[s->shape], s->node, s->allocs, s->n);
}

/* --release-look-ahead alone: the look-ahead (w, when given), *t1 the clock's reading after
 * it, then slot si's release (untimed, as with untimed). Apart, so that the product's timed
 * path stays as it was. */
DRA_NOINLINE static int release_alone(ctx_t *c, uint32_t si, const dra_workload_t *w, int64_t *t1)
{
    if (w)
        prefetch_releases(c, w);
    *t1 = now_ns();
    return release_engine(c, si, slot_recd(c, si));
}

/* Release slot si (untimed when !timed); w, when given, names the departures that follow
 * (prefetch_releases, inside the timed region before the release unless --release-look-ahead
 * put it before the clock's start or nowhere: c->look; then prefetch_slots, untimed). */
static void release_slot(ctx_t *c, uint32_t si, uint32_t shape, uint64_t pod, bool timed,
                         const dra_workload_t *w)
{
    slot_t *s = &c->slots[si];
    int rc = DRA_OK;
    bool recd = slot_recd(c, si);
    /* the record bit says what the slot holds: a held record exactly when set (debug builds) */
    DRA_ASSERT_INTERNAL(!c->recs || recd == dra_engine_rec_held(&c->recs[si]));
    hook(1);
    if (w && c->look == DRA_LOOK_AHEAD_UNTIMED)
        prefetch_releases(c, w);
    int64_t t0 = now_ns(), t1;
    if (DRA_UNLIKELY(c->look == DRA_LOOK_AHEAD_ALONE)) {
        rc = release_alone(c, si, w, &t1);
    } else {
        if (w && c->look == DRA_LOOK_AHEAD_TIMED)
            prefetch_releases(c, w);
        rc = release_engine(c, si, recd);
        t1 = now_ns();
    }
    if (timed)
        t1 = plant(c, shape, RK_RELEASE, t0, t1);
    hook(0);
    if (w && c->look != DRA_LOOK_AHEAD_OFF)
        prefetch_slots(c, w);
    if (c->groups)
        dra_rgroups_note_pod(c->groups, s->node, c->scn.mix[s->shape].cpu_milli,
                             c->scn.mix[s->shape].memory_bytes, -1);
    if (rc != DRA_OK) {
        char msg[128];
        snprintf(msg, sizeof msg, "release failed: %s", dra_strerror(rc));
        violation(c, pod, "", c->model.nodes[s->node]->name, msg);
    }
    if (timed) {
        c->rec_releases += recd;
        if (c->measuring)
            rec(c, shape, DRA_PHASE_RELEASE, DRA_HOUT_ANY, t1 - t0);
        c->busy_ns += (uint64_t)(t1 - t0);
        c->ok_ns += (uint64_t)(t1 - t0); /* release is time spent on an allocated claim */
        c->placed_ns += (uint64_t)(t1 - t0);
    }
    slot_put(c, si);
}

static void depart(ctx_t *c, const dra_wl_event_t *ev, const dra_workload_t *w)
{
    if (ev->pod >= c->cap_pod || c->pod_slot[ev->pod] == NONE)
        return;
    uint32_t si = c->pod_slot[ev->pod];
    c->pod_slot[ev->pod] = NONE;
    if (ev->claim != UINT64_MAX && ev->claim < c->cap_claim) {
        if (--c->claim_refs[ev->claim] > 0)
            return;
        c->claim_slot[ev->claim] = NONE;
    }
    release_slot(c, si, ev->shape, ev->pod, true, w);
}

/* Release everything still allocated (end of a repetition; untimed). The free list is then
 * rebuilt in slot order, so every repetition takes the slots (and their arenas' memory) in the
 * order the first one made them, not in reverse. */
static void release_all(ctx_t *c)
{
    for (uint32_t i = 0; i < c->nslots; i++)
        if (c->slots[i].live)
            release_slot(c, i, 0, UINT64_MAX, false, NULL);
    /* every slot put back: none live, with a record or without (debug builds) */
    DRA_ASSERT_INTERNAL(c->live_norec == 0);
    c->free_head = NONE;
    for (uint32_t k = 0; c->shape_free && k < c->nshapes; k++)
        c->shape_free[k] = NONE;
    for (uint32_t i = c->nslots; i-- > 0;) {
        c->slots[i].next_free = c->free_head;
        c->free_head = i;
    }
    for (uint64_t i = 0; i < c->cap_pod; i++)
        c->pod_slot[i] = NONE;
    for (uint64_t i = 0; i < c->cap_claim; i++) {
        c->claim_slot[i] = NONE;
        c->claim_refs[i] = 0;
    }
}

/* ---- device health events ------------------------------------------------------------------- */

/* The candidates of the health events (scenario.h, deviceTaints) and the buffers a
 * republication is built in, once, untimed. */
static int health_setup(ctx_t *c)
{
    const dra_table_t *t = c->table;
    const dra_model_t *m = &c->model;
    uint32_t nn = c->nnodes < t->nnodes ? c->nnodes : t->nnodes;
    c->hc_off = calloc((size_t)nn + 2, sizeof *c->hc_off);
    c->hc = calloc((size_t)t->nrows + 1, sizeof *c->hc);
    c->hnodes = calloc((size_t)nn + 1, sizeof *c->hnodes);
    if (!c->hc_off || !c->hc || !c->hnodes)
        return DRA_ENOMEM;
    uint32_t k = 0, maxdev = 1, maxtaints = 0;
    for (uint32_t n = 0; n < nn; n++) {
        c->hc_off[n] = k;
        /* table node n is model node n (table.h); its rows are its node-local devices */
        for (int pass = 0; pass < 2 && k == c->hc_off[n]; pass++)
            for (uint32_t r = t->nodes[n].begin; r < t->nodes[n].end; r++) {
                const char *type = attr_str(t->dev[r], "type");
                if (pass || (type && (!strcmp(type, "gpu") || !strcmp(type, "amdgpu"))))
                    c->hc[k++] = r;
            }
        if (k > c->hc_off[n])
            c->hnodes[c->nhnodes++] = n;
    }
    c->hc_off[nn] = k;
    for (uint32_t i = 0; i < m->nslices; i++) {
        const dra_slice_t *s = m->slices[i];
        maxdev = s->ndevices > maxdev ? s->ndevices : maxdev;
        for (uint32_t d = 0; d < s->ndevices; d++)
            maxtaints = s->devices[d].ntaints > maxtaints ? s->devices[d].ntaints : maxtaints;
    }
    const dra_scenario_taints_t *h = &c->scn.taints;
    uint64_t cap = h->hold / h->every + 2;
    c->cap_hev = (uint32_t)(cap > 65536 ? 65536 : cap);
    c->hev = calloc(c->cap_hev, sizeof *c->hev);
    c->hdevs = calloc(maxdev, sizeof *c->hdevs);
    c->htaints = calloc((size_t)maxtaints + 1, sizeof *c->htaints);
    if (!c->hev || !c->hdevs || !c->htaints)
        return DRA_ENOMEM;
    return DRA_OK;
}

static const char *nzs(const char *s)
{
    return s ? s : "";
}

/* Republish model slice si with device di's taints replaced by taints[0..n): the model, the
 * device table and the placement engine (which updates the allocator it borrows) bring only
 * that slice up to date. timed: recorded as the update phase. */
static int republish(ctx_t *c, uint32_t si, uint32_t di, const dra_taint_t *taints, uint32_t n,
                     bool timed)
{
    const dra_slice_t *s = c->model.slices[si];
    memcpy(c->hdevs, s->devices, s->ndevices * sizeof *c->hdevs);
    c->hdevs[di].taints = (dra_taint_t *)(uintptr_t)taints;
    c->hdevs[di].ntaints = n;
    /* the model copies the new taints (array and strings) into its arena and the table may add
     * to its dictionary: room for that is taken now, so the timed update does not malloc */
    size_t need = 1024;
    for (uint32_t i = 0; i < n; i++)
        need += sizeof *taints + 4 * 16 + strlen(nzs(taints[i].key)) +
                strlen(nzs(taints[i].value)) + strlen(nzs(taints[i].effect_raw)) +
                strlen(nzs(taints[i].time_added));
    if (!dra_arena_reserve(&c->model.arena, need) || !dra_arena_reserve(&c->table_arena, 1024))
        return DRA_ENOMEM;
    hook(1);
    int64_t t0 = now_ns();
    int rc = dra_model_slice_update(&c->model, si, c->hdevs, s->ndevices, c->diag);
    if (rc == DRA_OK)
        rc = dra_table_update_slice(c->table, &c->table_arena, si, c->diag);
    if (rc == DRA_OK)
        rc = dra_engine_update_slice(c->eng, si, c->diag);
    int64_t t1 = now_ns();
    hook(0);
    if (rc == DRA_OK && c->groups) /* the group cycle's bounds read the updated devices */
        dra_rgroups_refresh(c->groups);
    if (rc)
        return rc;
    if (timed) {
        c->updates++;
        if (c->measuring)
            rec1(c, &c->rh[c->upd_hist], t1 - t0);
    }
    return DRA_OK;
}

static bool health_holds(const ctx_t *c, uint32_t si, uint32_t di)
{
    for (uint32_t i = 0; i < c->nhev; i++)
        if (c->hev[i].slice == si && c->hev[i].dev == di)
            return true;
    return false;
}

/* After arrival number k (1-based): end the events due now, then start one every `every`. */
static int health_tick(ctx_t *c, uint64_t k)
{
    const dra_scenario_taints_t *h = &c->scn.taints;
    int rc;
    for (uint32_t i = 0; i < c->nhev;) {
        struct hev *ev = &c->hev[i];
        if (ev->off_at != k) {
            i++;
            continue;
        }
        if ((rc = republish(c, ev->slice, ev->dev, ev->saved, ev->nsaved, true)))
            return rc;
        c->hev[i] = c->hev[--c->nhev];
    }
    if (k % h->every || !c->nhnodes || c->nhev == c->cap_hev)
        return DRA_OK;
    uint32_t row = NONE;
    for (int tries = 0; tries < 8 && row == NONE; tries++) {
        uint32_t n = c->hnodes[dra_rng_below(&c->r_health, c->nhnodes)];
        uint32_t r = c->hc[c->hc_off[n] + (uint32_t)dra_rng_below(&c->r_health,
                                                                  c->hc_off[n + 1] - c->hc_off[n])];
        if (!health_holds(c, c->table->slice[r], c->table->dev[r]->index))
            row = r;
    }
    if (row == NONE)
        return DRA_OK;
    uint32_t si = c->table->slice[row];
    const dra_device_t *d = c->table->dev[row];
    struct hev *ev = &c->hev[c->nhev];
    ev->slice = si;
    ev->dev = d->index;
    ev->off_at = k + h->hold;
    ev->saved = d->taints;
    ev->nsaved = d->ntaints;
    if (d->ntaints)
        memcpy(c->htaints, d->taints, d->ntaints * sizeof *c->htaints);
    dra_taint_t *nt = &c->htaints[d->ntaints];
    memset(nt, 0, sizeof *nt);
    nt->key = h->key;
    nt->value = h->value;
    nt->effect = (dra_taint_effect_t)h->effect;
    nt->effect_raw = h->effect_raw;
    if ((rc = republish(c, si, ev->dev, c->htaints, d->ntaints + 1, true)))
        return rc;
    c->nhev++;
    return DRA_OK;
}

/* End of a repetition: every event still holding ends (untimed), so the model is as it was. */
static int health_reset(ctx_t *c)
{
    int rc = DRA_OK;
    while (c->nhev && rc == DRA_OK) {
        struct hev *ev = &c->hev[--c->nhev];
        rc = republish(c, ev->slice, ev->dev, ev->saved, ev->nsaved, false);
    }
    return rc;
}

/* ---- repetitions ---------------------------------------------------------------------------- */

static json_t *metric(const char *unit, const char *better, bool exact)
{
    json_t *m = json_object();
    dra_rf_put_str(m, DRA_RF_METRIC_UNIT, unit);
    dra_rf_put_str(m, DRA_RF_METRIC_BETTER, better);
    dra_rf_put_bool(m, DRA_RF_METRIC_EXACT, exact);
    return m;
}

/* values and metrics are maps (schema.def REP_VALUES, METRICS): the metric name is the key. */
static void add_value(json_t *values, json_t *metrics, const char *name, double v, const char *unit,
                      const char *better, bool exact)
{
    json_object_set_new(values, name, dra_result_real(v));
    if (!json_object_get(metrics, name))
        json_object_set_new(metrics, name, metric(unit, better, exact));
}

static void rg_add_value(void *ctx, const char *name, double v, const char *unit,
                         const char *better, bool exact)
{
    json_t **vm = ctx;
    add_value(vm[0], vm[1], name, v, unit, better, exact);
}

static json_t *metrics_obj(ctx_t *c)
{
    return dra_rf_get(c->run->json, DRA_RF_METRICS);
}

/* count / ns as a rate per second; NaN (written as null: undefined) without any work. */
static double per_s(uint64_t count, uint64_t ns)
{
    return count && ns ? (double)count / ((double)ns / 1e9) : NAN;
}

/* Percentile of a histogram; NaN (null) when it is empty. */
static double pct_or_nan(const dra_hist_t *h, double p)
{
    return dra_hist_count(h) ? (double)dra_hist_percentile(h, p) : NAN;
}

/* The process's involuntary context switches so far (getrusage: times the kernel gave its CPU
 * to another program, or to its own work, before the process was done); -1 when unknown. The
 * runner has one thread, so the process's count is the measuring thread's. A system call: read
 * only outside the timed loop. */
static int64_t involuntary_switches(void)
{
    struct rusage ru;
    return getrusage(RUSAGE_SELF, &ru) == 0 && ru.ru_nivcsw >= 0 ? (int64_t)ru.ru_nivcsw : -1;
}

/* The process's peak resident set in bytes (getrusage; 0 when unknown). */
static size_t peak_rss(void)
{
    struct rusage ru;
    return getrusage(RUSAGE_SELF, &ru) == 0 && ru.ru_maxrss > 0 ? (size_t)ru.ru_maxrss * 1024 : 0;
}

/* Memory per device of the run's structures: the device table, the engine, the allocator's
 * node layouts and model indexes (heap growth while building them, first repetition). */
static double memory_per_device(const dra_run_t *r)
{
    if (!r->devices)
        return 0;
    return r->bytes_per_device +
           (double)(r->engine_bytes + r->layout_bytes + r->alloc_bytes) / (double)r->devices;
}

static int rep_json(ctx_t *c, int64_t wall_ns, frag_values_t fv, const dra_hwc_values_t *hw)
{
    json_t *values = json_object(), *metrics = metrics_obj(c);
    /* throughput (runner.h, "Outcome accounting"): allocated claims per second of the time spent
     * on them, placed pods per second of theirs, rejections per second of theirs */
    add_value(values, metrics, "throughput.claims_per_s", per_s(c->ok_claims, c->ok_ns), "claims/s",
              "higher", false);
    add_value(values, metrics, "throughput.pods_per_s", per_s(c->placed_pods, c->placed_ns),
              "pods/s", "higher", false);
    if (c->rej_claims)
        add_value(values, metrics, "throughput.rejections_per_s", per_s(c->rej_claims, c->rej_ns),
                  "claims/s", "higher", false);
    /* PodGroups: the group cycles' share of throughput.claims_per_s on its own (claims they
     * allocated per second of their placing cycles and members' releases) */
    if (c->groups)
        add_value(values, metrics, "throughput.group_claims_per_s",
                  per_s(c->gcounts.ok_claims, c->gcounts.ok_ns), "claims/s", "higher", false);
    /* latencies: of placed pods (latency.*) and of rejected ones (rejection.*) */
    const dra_hist_t *pod = &c->rh[hidx(c, c->nshapes, DRA_PHASE_POD, DRA_HOUT_ALLOCATED)];
    const dra_hist_t *rej = &c->rh[hidx(c, c->nshapes, DRA_PHASE_POD, DRA_HOUT_UNSATISFIABLE)];
    static const struct {
        const char *sfx;
        double p;
    } pcts[] = {{"p50", 50}, {"p90", 90}, {"p99", 99}, {"p999", 99.9}, {"max", 100}};
    char name[192];
    for (size_t i = 0; i < DRA_ARRAY_LEN(pcts); i++) {
        snprintf(name, sizeof name, "latency.pod.%s", pcts[i].sfx);
        add_value(values, metrics, name, pct_or_nan(pod, pcts[i].p), "ns", "lower", false);
    }
    for (size_t i = 0; dra_hist_count(rej) && i < DRA_ARRAY_LEN(pcts); i++) {
        snprintf(name, sizeof name, "rejection.pod.%s", pcts[i].sfx);
        add_value(values, metrics, name, pct_or_nan(rej, pcts[i].p), "ns", "lower", false);
    }
    for (uint32_t s = 0; s < c->nshapes; s++) {
        static const char *const pre[2] = {"latency", "rejection"};
        for (int k = 0; k < 2; k++) {
            const dra_hist_t *h =
                &c->rh[hidx(c, s, DRA_PHASE_POD, k ? DRA_HOUT_UNSATISFIABLE : DRA_HOUT_ALLOCATED)];
            if (!dra_hist_count(h))
                continue;
            snprintf(name, sizeof name, "%s.%s.p50", pre[k], c->shape_names[s]);
            add_value(values, metrics, name, (double)dra_hist_percentile(h, 50), "ns", "lower",
                      false);
            snprintf(name, sizeof name, "%s.%s.p99", pre[k], c->shape_names[s]);
            add_value(values, metrics, name, (double)dra_hist_percentile(h, 99), "ns", "lower",
                      false);
        }
    }
    add_value(values, metrics, "outcomes.allocated_claims", (double)c->ok_claims, "count", "none",
              true);
    add_value(values, metrics, "outcomes.unsatisfiable", (double)c->outc[DRA_OUTCOME_UNSATISFIABLE],
              "count", "lower", true);
    add_value(values, metrics, "memory.bytes_per_device", memory_per_device(c->run), "B", "lower",
              false);
    add_value(values, metrics, "placement.index", (double)c->paths[0], "count", "none", true);
    add_value(values, metrics, "placement.rejected_by_summaries", (double)c->paths[1], "count",
              "none", true);
    add_value(values, metrics, "placement.brute_force", (double)c->paths[2], "count", "none", true);
    add_value(values, metrics, "table.bytes_per_device", c->run->bytes_per_device, "B", "lower", true);
    add_value(values, metrics, "search.allocate_one_calls", (double)c->st.allocate_one, "count",
              "lower", true);
    add_value(values, metrics, "search.cel_evaluations", (double)c->st.cel_evals, "count", "lower",
              true);
    add_value(values, metrics, "search.candidates", (double)c->st.candidates, "count", "lower", true);
    add_value(values, metrics, "fragmentation.idle_gpus_unusable", fv.idle_gpus_unusable, "GPUs",
              "lower", true);
    add_value(values, metrics, "fragmentation.stranded_mig_fraction", fv.stranded_mig_fraction,
              "fraction", "lower", true);
    add_value(values, metrics, "fragmentation.partial_nvlink_domains", fv.partial_nvlink_domains,
              "count", "lower", true);
    for (uint32_t s = 0; s < c->nshapes; s++) {
        const dra_hist_t *h = &c->rh[hidx(c, s, DRA_PHASE_CYCLE, DRA_HOUT_ANY)];
        if (!h->counts || !dra_hist_count(h))
            continue;
        snprintf(name, sizeof name, "latency.%s.cycle.p50", c->shape_names[s]);
        add_value(values, metrics, name, (double)dra_hist_percentile(h, 50), "ns", "lower", false);
        snprintf(name, sizeof name, "latency.%s.cycle.p99", c->shape_names[s]);
        add_value(values, metrics, name, (double)dra_hist_percentile(h, 99), "ns", "lower", false);
    }
    if (c->groups) {
        json_t *vm[2] = {values, metrics};
        if (dra_rgroups_rep_values(c->groups, vm, rg_add_value))
            return DRA_ENOMEM;
    }
    if (hw && hw->valid) {
        add_value(values, metrics, "hw.instructions", (double)hw->instructions, "count", "lower",
                  false);
        add_value(values, metrics, "hw.cycles", (double)hw->cycles, "count", "lower", false);
    }

    json_t *hists = json_array();
    for (uint32_t s = 0; s <= c->nshapes; s++)
        for (int p = 0; p < DRA_PHASE_COUNT; p++)
            for (int o = 0; o < DRA_HOUT_COUNT; o++) {
                const dra_hist_t *h = &c->rh[hidx(c, s, p, o)];
                if (!h->counts || !dra_hist_count(h))
                    continue;
                json_array_append_new(hists, dra_result_hist_json(h, c->shape_names[s],
                                                                  phase_names[p], hout_names[o]));
            }
    if (c->health && dra_hist_count(&c->rh[c->upd_hist]))
        json_array_append_new(hists, dra_result_hist_json(&c->rh[c->upd_hist], "slice-update",
                                                          "update", "any"));
    json_t *rep = json_object();
    if (!rep || !values || !hists) {
        json_decref(rep);
        json_decref(values);
        json_decref(hists);
        return DRA_ENOMEM;
    }
    dra_rf_put_int(rep, DRA_RF_REP_INDEX, c->rep);
    dra_rf_put_int(rep, DRA_RF_REP_WALL_NS, wall_ns);
    dra_rf_put_int(rep, DRA_RF_REP_BUSY_NS, c->busy_ns);
    dra_rf_put_int(rep, DRA_RF_REP_PODS, (int64_t)c->pods);
    dra_rf_put_int(rep, DRA_RF_REP_CLAIMS, (int64_t)c->claims_n);
    if (c->preemptions >= 0)
        dra_rf_put_int(rep, DRA_RF_REP_PREEMPTIONS, c->preemptions);
    json_t *work = dra_rf_put_obj(rep, DRA_RF_REP_WORK);
    dra_rf_put_int(work, DRA_RF_WORK_ALLOCATED_CLAIMS, (int64_t)c->ok_claims);
    dra_rf_put_int(work, DRA_RF_WORK_ALLOCATED_NS, (int64_t)c->ok_ns);
    dra_rf_put_int(work, DRA_RF_WORK_REJECTED_CLAIMS, (int64_t)c->rej_claims);
    dra_rf_put_int(work, DRA_RF_WORK_REJECTED_NS, (int64_t)c->rej_ns);
    dra_rf_put_int(work, DRA_RF_WORK_PLACED_PODS, (int64_t)c->placed_pods);
    dra_rf_put_int(work, DRA_RF_WORK_PLACED_NS, (int64_t)c->placed_ns);
    dra_rf_put_int(work, DRA_RF_WORK_CHECK_NS, (int64_t)c->check_ns);
    if (c->groups) { /* the group cycles' share of the four above */
        dra_rf_put_int(work, DRA_RF_WORK_GROUP_CLAIMS, (int64_t)c->gcounts.ok_claims);
        dra_rf_put_int(work, DRA_RF_WORK_GROUP_NS, (int64_t)c->gcounts.ok_ns);
        dra_rf_put_int(work, DRA_RF_WORK_GROUP_REJECTED_CLAIMS, (int64_t)c->gcounts.rej_claims);
        dra_rf_put_int(work, DRA_RF_WORK_GROUP_REJECTED_NS, (int64_t)c->gcounts.rej_ns);
    }
    json_t *oc = dra_rf_put_obj(rep, DRA_RF_REP_OUTCOMES);
    dra_rf_put_int(oc, DRA_RF_OUTCOMES_ALLOCATED, (int64_t)c->outc[0]);
    dra_rf_put_int(oc, DRA_RF_OUTCOMES_UNSATISFIABLE, (int64_t)c->outc[1]);
    dra_rf_put_int(oc, DRA_RF_OUTCOMES_NODE_FAILURE, (int64_t)c->outc[2]);
    dra_rf_put_int(oc, DRA_RF_OUTCOMES_FATAL, (int64_t)c->outc[3]);
    dra_rf_put(rep, DRA_RF_REP_VALUES, values);
    dra_rf_put(rep, DRA_RF_REP_HISTOGRAMS, hists);
    json_t *frag = dra_rf_put_obj(rep, DRA_RF_REP_FRAGMENTATION);
    dra_rf_put_num(frag, DRA_RF_FRAG_IDLE_GPUS_UNUSABLE, fv.idle_gpus_unusable);
    dra_rf_put_num(frag, DRA_RF_FRAG_STRANDED_MIG_FRACTION, fv.stranded_mig_fraction);
    dra_rf_put_num(frag, DRA_RF_FRAG_PARTIAL_NVLINK_DOMAINS, fv.partial_nvlink_domains);
    dra_rf_put(frag, DRA_RF_FRAG_SAMPLES, json_incref(c->frag_samples));
    json_t *inv = dra_rf_put_obj(rep, DRA_RF_REP_INVARIANTS);
    dra_rf_put_int(inv, DRA_RF_REPINV_CHECKED, (int64_t)c->checked);
    dra_rf_put_int(inv, DRA_RF_REPINV_VIOLATIONS, (int64_t)c->violations);
    dra_rf_put_hex(rep, DRA_RF_REP_DIGEST, XXH3_64bits_digest(c->dig));
    json_t *search = dra_rf_put_obj(rep, DRA_RF_REP_SEARCH);
    dra_rf_put_int(search, DRA_RF_SEARCH_ALLOCATE_ONE, (int64_t)c->st.allocate_one);
    dra_rf_put_int(search, DRA_RF_SEARCH_CEL_EVALS, (int64_t)c->st.cel_evals);
    dra_rf_put_int(search, DRA_RF_SEARCH_CANDIDATES, (int64_t)c->st.candidates);
    dra_rf_put_int(search, DRA_RF_SEARCH_POOLS, (int64_t)c->st.pools);
    json_t *served = json_object();
    for (int i = 1; served && i < DRA_SERVED_COUNT; i++)
        if (c->served[i])
            json_object_set_new(served, dra_engine_served_name((dra_engine_served_t)i),
                                json_integer((json_int_t)c->served[i]));
    if (!served)
        return DRA_ENOMEM;
    dra_rf_put(search, DRA_RF_SEARCH_SERVED, served);
    if (c->groups) {
        json_t *g = dra_rgroups_rep_json(c->groups);
        if (!g)
            return DRA_ENOMEM;
        dra_rf_put(rep, DRA_RF_REP_GROUPS, g);
    }
    json_array_append_new(c->reps, rep);
    return DRA_OK;
}

#define REC_MAX_PODS (UINT64_C(1) << 22) /* decision records kept for at most 4 Mi pods */

/* Room for pod's decision record (outside timed regions: the arrays grow here, not in arrive). */
static int rec_reserve(ctx_t *c, uint64_t pod, uint32_t shape)
{
    if (pod >= REC_MAX_PODS || shape > 255)
        return DRA_OK;
    if (pod >= c->rec_cap) {
        uint64_t nc = c->rec_cap ? c->rec_cap : 1024;
        while (nc <= pod)
            nc *= 2;
        uint32_t *h = realloc(c->rec_hash, nc * sizeof *h);
        if (!h)
            return DRA_ENOMEM;
        c->rec_hash = h;
        uint8_t *sh = realloc(c->rec_shape, nc * sizeof *sh);
        if (!sh)
            return DRA_ENOMEM;
        c->rec_shape = sh;
        memset(c->rec_hash + c->rec_cap, 0, (nc - c->rec_cap) * sizeof *h);
        memset(c->rec_shape + c->rec_cap, 0, (nc - c->rec_cap) * sizeof *sh);
        c->rec_cap = nc;
    }
    c->rec_shape[pod] = (uint8_t)shape;
    if (pod + 1 > c->rec_n)
        c->rec_n = pod + 1;
    return DRA_OK;
}

/* `decisions` of the result: {shapes: [mix entry names], pods, records: base64 of 5 bytes per
 * pod in arrival order (mix entry, then the 32-bit decision hash little-endian)}. */
static json_t *decisions_json(const ctx_t *c)
{
    static const char b64[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    size_t nbytes = (size_t)c->rec_n * 5, outlen = 4 * ((nbytes + 2) / 3);
    char *out = malloc(outlen + 1);
    json_t *shapes = json_array();
    if (!out || !shapes) {
        free(out);
        json_decref(shapes);
        return NULL;
    }
    size_t k = 0;
    uint32_t acc = 0;
    int nacc = 0;
    for (uint64_t p = 0; p < c->rec_n; p++) {
        uint8_t rec[5] = {c->rec_shape[p], (uint8_t)c->rec_hash[p], (uint8_t)(c->rec_hash[p] >> 8),
                          (uint8_t)(c->rec_hash[p] >> 16), (uint8_t)(c->rec_hash[p] >> 24)};
        for (int i = 0; i < 5; i++) {
            acc = (acc << 8) | rec[i];
            if (++nacc == 3) {
                out[k++] = b64[(acc >> 18) & 63];
                out[k++] = b64[(acc >> 12) & 63];
                out[k++] = b64[(acc >> 6) & 63];
                out[k++] = b64[acc & 63];
                acc = 0;
                nacc = 0;
            }
        }
    }
    if (nacc) {
        acc <<= 8 * (3 - nacc);
        out[k++] = b64[(acc >> 18) & 63];
        out[k++] = b64[(acc >> 12) & 63];
        out[k++] = nacc == 2 ? b64[(acc >> 6) & 63] : '=';
        out[k++] = '=';
    }
    out[k] = '\0';
    for (uint32_t i = 0; i < c->nshapes; i++)
        json_array_append_new(shapes, json_string(c->shape_names[i]));
    json_t *o = json_object();
    dra_rf_put(o, DRA_RF_DEC_SHAPES, shapes);
    dra_rf_put_int(o, DRA_RF_DEC_PODS, (int64_t)c->rec_n);
    dra_rf_put_str(o, DRA_RF_DEC_RECORDS, out);
    free(out);
    return o;
}

/* Room for pod's decision hash of a measured pass (outside timed regions). */
static int hash_reserve(ctx_t *c, uint64_t pod)
{
    if (pod < c->hash_cap || pod >= REC_MAX_PODS)
        return DRA_OK;
    uint64_t nc = c->hash_cap ? c->hash_cap : 1024;
    while (nc <= pod)
        nc *= 2;
    uint32_t *h = realloc(c->pod_hash, nc * sizeof *h);
    if (!h)
        return DRA_ENOMEM;
    memset(h + c->hash_cap, 0, (nc - c->hash_cap) * sizeof *h);
    c->pod_hash = h;
    c->hash_cap = nc;
    return DRA_OK;
}

/* The next workload event: false at the end (*rc 0), on an error (*rc < 0) or when the run is
 * to stop (SIGINT, a differing --allocator both decision: *interrupted). */
static bool next_event(ctx_t *c, dra_workload_t *w, dra_wl_event_t *ev, int *rc, bool *interrupted)
{
    if ((c->o->stop && *c->o->stop) || c->halt) {
        *interrupted = true;
        return false;
    }
    *rc = dra_workload_next(w, ev);
    return *rc > 0;
}

/* The counters of a repetition the check pass must leave as the timed pass left them. */
typedef struct tally {
    uint64_t pods, claims_n, outc[4], busy_ns, ok_allocs, updates;
    uint64_t ok_claims, rej_claims, placed_pods, ok_ns, rej_ns, placed_ns;
    uint64_t paths[DRA_ENGINE_PATH_COUNT], served[DRA_SERVED_COUNT];
    uint64_t rec_commits, rec_releases;
    dra_alloc_stats_t st;
} tally_t;

/* Save the repetition's counters into t (save) or put them back from t. */
static void tally_move(ctx_t *c, tally_t *t, bool save)
{
#define TALLY_ONE(f)                                                                               \
    do {                                                                                           \
        if (save)                                                                                  \
            memcpy(&t->f, &c->f, sizeof t->f);                                                     \
        else                                                                                       \
            memcpy(&c->f, &t->f, sizeof t->f);                                                     \
    } while (0)
    TALLY_ONE(pods);
    TALLY_ONE(claims_n);
    TALLY_ONE(outc);
    TALLY_ONE(busy_ns);
    TALLY_ONE(ok_allocs);
    TALLY_ONE(updates);
    TALLY_ONE(ok_claims);
    TALLY_ONE(rej_claims);
    TALLY_ONE(placed_pods);
    TALLY_ONE(ok_ns);
    TALLY_ONE(rej_ns);
    TALLY_ONE(placed_ns);
    TALLY_ONE(paths);
    TALLY_ONE(served);
    TALLY_ONE(rec_commits);
    TALLY_ONE(rec_releases);
    TALLY_ONE(st);
#undef TALLY_ONE
}

static int group_arrive(ctx_t *c, dra_workload_t *w, const dra_wl_event_t *ev, bool *placed);
static int group_depart(ctx_t *c, dra_workload_t *w, const dra_wl_event_t *ev);
static int group_rep_end(ctx_t *c);

/* The check pass of a measured repetition (runner.h step 6), after its timed pass released
 * everything: the same workload with the same random streams is placed again, untimed; every
 * pod's decision is compared with the timed pass's and every allocation (or the seeded sample)
 * is checked against the state before its commit. Counts checks and violations of the
 * repetition; leaves its other counters, its digest and the state as the timed pass left them. */
static int check_pass(ctx_t *c, bool *interrupted)
{
    tally_t saved;
    tally_move(c, &saved, true);
    XXH3_state_t *timed = c->dig;
    c->dig = c->chk_dig;
    XXH3_64bits_reset(c->dig);
    dra_rng_seed(&c->r_place, c->seed, DRA_STREAM_PLACEMENT);
    dra_rng_seed(&c->r_sample, c->seed, STREAM_INV_SAMPLE);
    dra_rng_seed(&c->r_health, c->seed, STREAM_HEALTH);
    c->ok_allocs = 0;
    c->chk_mismatch = 0;
    c->measuring = false;
    c->checking = true;
    int64_t t0 = now_ns();
    /* PodGroups are placed again too (their cycles, untimed, their members checked): the
     * repetition's group measurements are the timed pass's, put back at the end */
    void *gsaved = NULL;
    if (c->groups && !(gsaved = dra_rgroups_save(c->groups)))
        return DRA_ENOMEM;
    dra_workload_t w;
    int rc = dra_workload_init(&w, &c->built.workload, c->seed, c->diag);
    if (rc == DRA_OK) {
        uint64_t arrivals = 0;
        dra_wl_event_t ev;
        while (next_event(c, &w, &ev, &rc, interrupted)) {
            if (ev.kind != DRA_WL_ARRIVE) {
                if (!c->groups || !dra_rgroups_owns(c->groups, ev.pod))
                    depart(c, &ev, &w);
                if (c->groups && (rc = group_depart(c, &w, &ev)))
                    break;
                continue;
            }
            bool placed;
            if ((rc = hash_reserve(c, ev.pod)))
                break;
            if (dra_rgroups_is_group(c->groups, ev.mix)) {
                if ((rc = group_arrive(c, &w, &ev, &placed)))
                    break;
            } else {
                if ((rc = arrive(c, &ev, &placed)))
                    break;
                dra_workload_report(&w, ev.pod, placed);
            }
            arrivals++;
            if (c->health && (rc = health_tick(c, arrivals)))
                break;
        }
        dra_workload_fini(&w);
        rc = rc < 0 ? rc : DRA_OK;
    }
    if (c->health) {
        int hrc = health_reset(c);
        rc = rc ? rc : hrc;
    }
    if (c->groups) {
        int grc = group_rep_end(c);
        dra_rgroups_restore(c->groups, gsaved);
        rc = rc ? rc : grc;
    }
    release_all(c);
    if (dra_alloc_state_digest(c->state) != c->empty_digest)
        violation(c, UINT64_MAX, "", "", "allocation state not empty after the check pass");
    uint64_t dchk = XXH3_64bits_digest(c->dig), dtimed = XXH3_64bits_digest(timed);
    c->dig = timed;
    c->checking = false;
    c->measuring = true;
    if (rc == DRA_OK && !*interrupted && dchk != dtimed && c->chk_mismatch == 0) {
        char msg[160];
        snprintf(msg, sizeof msg,
                 "the check pass's decisions differ from the timed pass's "
                 "(decision digest %016llx vs %016llx)",
                 (unsigned long long)dchk, (unsigned long long)dtimed);
        violation(c, UINT64_MAX, "", "", msg);
    }
    tally_move(c, &saved, false);
    c->check_ns = (uint64_t)(now_ns() - t0);
    return rc;
}

/* Run the workload once. warmup: stop after max_pods arrivals, record nothing. */
/* ---- PodGroup arrivals (runner_groups.h) ---------------------------------------------------- */

static void rg_rec(void *ctx, uint32_t shape, int phase, int outcome, int64_t ns)
{
    rec(ctx, shape, phase, outcome, ns);
}

static void rg_decision(void *ctx, uint64_t pod, const void *bytes, size_t n)
{
    ctx_t *c = ctx;
    uint64_t hdr[1] = {pod};
    XXH3_64bits_update(c->dig, hdr, sizeof hdr);
    XXH3_64bits_update(c->dig, bytes, n);
    if (c->rec_on && !c->checking && pod < c->rec_cap) {
        XXH3_64bits_reset(c->rec_dig);
        XXH3_64bits_update(c->rec_dig, bytes, n);
        c->rec_hash[pod] = (uint32_t)XXH3_64bits_digest(c->rec_dig);
    }
}

static void rg_violation(void *ctx, uint64_t pod, const char *claim, const char *node,
                         const char *msg)
{
    ctx_t *c = ctx;
    violation(c, pod, claim, node, msg);
    c->halt = true; /* a decision differs: stop, as for single pods */
}

static void rg_check(void *ctx, uint64_t pod, uint32_t node, dra_claim_t *const *claims,
                     dra_allocation_t *const *a, uint32_t n)
{
    ctx_t *c = ctx;
    if (c->inv == DRA_INV_OFF || !c->checking) /* the check pass checks, as for single pods */
        return;
    if (c->inv == DRA_INV_SAMPLED && dra_rng_unit(&c->r_sample) >= c->inv_p)
        return;
    dra_inv_report_t rep;
    memset(&rep, 0, sizeof rep);
    const dra_node_t *nd = c->model.nodes[node];
    int rc = dra_inv_check_in(&c->inv_scratch, &c->model, &c->feat, c->state, c->cel, nd,
                              claims, a, n, &rep);
    c->checked++;
    if (rc != DRA_OK) {
        violation(c, pod, claims[0]->name, nd->name, "invariant checker failed to run");
        return;
    }
    for (uint32_t i = 0; i < rep.nviolations; i++)
        violation(c, pod, claims[0]->name, nd->name,
                  i < rep.nkept ? rep.first[i] : "(further violation)");
}

/* The planted slowdown in a group's timed region (runner_groups.h): a cycle owes to its own debt,
 * a member's release to its shape's release debt. */
static int64_t rg_plant(void *ctx, uint32_t mix, int kind, int64_t t0, int64_t t1)
{
    return plant(ctx, mix, kind == DRA_RG_CYCLE ? RK_CYCLE : RK_RELEASE, t0, t1);
}

static void rg_env(ctx_t *c, dra_rg_env_t *env, dra_rg_hooks_t *h, bool compare)
{
    env->m = &c->model;
    env->eng = c->eng;
    env->ref = c->ref_place ? &c->alloc : (c->both ? &c->cmp : NULL);
    env->ref_place = c->ref_place;
    env->compare = compare;
    env->policy = engine_policy(c->policy);
    env->r_place = &c->r_place;
    env->clock_ns = clock_fn;
    h->ctx = c;
    h->measuring = c->measuring;
    h->rec = rg_rec;
    h->decision = rg_decision;
    h->violation = rg_violation;
    h->check = rg_check;
    h->plant = rg_plant;
}

static int group_arrive(ctx_t *c, dra_workload_t *w, const dra_wl_event_t *ev, bool *placed)
{
    dra_rg_env_t env;
    dra_rg_hooks_t h;
    bool compare = c->both && c->both_gleft > 0 && !c->checking;
    if (compare)
        c->both_gleft--;
    rg_env(c, &env, &h, compare);
    return dra_rgroups_arrive(c->groups, &env, &h, w, ev, placed);
}

static int group_depart(ctx_t *c, dra_workload_t *w, const dra_wl_event_t *ev)
{
    dra_rg_env_t env;
    dra_rg_hooks_t h;
    /* retries are compared while PodGroup arrivals still are */
    rg_env(c, &env, &h, c->both && c->both_gleft > 0 && !c->checking);
    bool was;
    return dra_rgroups_depart(c->groups, &env, &h, w, ev, &was);
}

/* A pass's end for the groups: those still placed released (untimed), the queue emptied. */
static int group_rep_end(ctx_t *c)
{
    dra_rg_env_t env;
    dra_rg_hooks_t h;
    rg_env(c, &env, &h, false);
    return dra_rgroups_rep_end(c->groups, &env);
}

/* The digest dra_runner_pass_hook gets: the state, the slots' free lists in the order slot_pop
 * takes them, the groups' bookkeeping. Untimed; O(slots + shapes + the groups' digest). */
static uint64_t pass_start_digest(const ctx_t *c)
{
    XXH3_state_t st;
    XXH3_64bits_reset(&st);
    uint64_t head[3] = {dra_alloc_state_digest(c->state), c->nslots,
                        c->groups ? dra_rgroups_digest(c->groups) : 0};
    XXH3_64bits_update(&st, head, sizeof head);
    for (uint32_t k = 0; k <= c->nshapes; k++) {
        uint32_t i = k < c->nshapes ? (c->shape_free ? c->shape_free[k] : NONE) : c->free_head;
        for (uint32_t n = 0; i != NONE && i < c->nslots && n <= c->nslots;
             i = c->slots[i].next_free, n++)
            XXH3_64bits_update(&st, &i, sizeof i);
        XXH3_64bits_update(&st, &k, sizeof k);
    }
    return XXH3_64bits_digest(&st);
}

static int run_rep(ctx_t *c, bool warmup, uint64_t max_pods, bool *interrupted)
{
    dra_workload_t w;
    int rc = dra_workload_init(&w, &c->built.workload, c->seed, c->diag);
    if (rc)
        return rc;
    c->measuring = !warmup;
    hook(warmup ? DRA_RUNNER_HOOK_WARMUP : DRA_RUNNER_HOOK_REP);
    c->pods = c->claims_n = c->busy_ns = c->ok_allocs = c->checked = c->violations = 0;
    c->ok_claims = c->rej_claims = c->placed_pods = c->ok_ns = c->rej_ns = c->placed_ns = 0;
    c->check_ns = 0;
    memset(c->outc, 0, sizeof c->outc);
    memset(&c->st, 0, sizeof c->st);
    c->nreasons = 0;
    memset(c->paths, 0, sizeof c->paths);
    memset(c->served, 0, sizeof c->served);
    c->rec_commits = c->rec_releases = 0;
    XXH3_64bits_reset(c->dig);
    dra_rng_seed(&c->r_place, c->seed, DRA_STREAM_PLACEMENT);
    dra_rng_seed(&c->r_sample, c->seed, STREAM_INV_SAMPLE);
    dra_rng_seed(&c->r_health, c->seed, STREAM_HEALTH);
    c->updates = 0;
    if (c->groups)
        dra_rgroups_rep_begin(c->groups);
    for (uint32_t i = 0; i < c->nhists; i++)
        if (c->rh[i].counts)
            dra_hist_reset(&c->rh[i]);
    json_decref(c->frag_samples);
    c->frag_samples = json_array();
    memset(c->frag_sum, 0, sizeof c->frag_sum);
    c->frag_n = 0;
    c->frag_known = false; /* the repetition's first sample looks at every row */
    bool steady = c->built.workload.mode == DRA_WL_STEADY;
    uint64_t total = c->built.workload.count;
    if (warmup && max_pods < total)
        total = max_pods;
    uint32_t nsamp = c->o->frag_samples ? c->o->frag_samples : 16;
    uint64_t frag_every = total / nsamp ? total / nsamp : 1;
    uint64_t arrivals = 0;
    if (!warmup && c->o->data_pages != DRA_DATA_PAGES_NONE) {
        /* the data the pass reads on 2 MiB pages (datapages.h), after everything the set-up,
         * the engine's reset and the warm-up mapped; untimed */
        int64_t t0 = now_ns();
        dra_datapages_t dp;
        dra_datapages_apply(c->o->data_pages == DRA_DATA_PAGES_2M, &dp);
        int64_t took = now_ns() - t0;
        c->dp_ns += took;
        if (!c->dp_set) {
            c->dp = dp;
            c->dp_set = true;
        }
        if (c->o->data_pages_note)
            c->o->data_pages_note(c->o->data_pages_ctx, c->rep, &dp, took);
    }
    if (!warmup && DRA_UNLIKELY(dra_runner_pass_hook != NULL))
        dra_runner_pass_hook(c->rep, pass_start_digest(c));
    int64_t sw0 = involuntary_switches(); /* outside the hardware counters' window too */
    dra_hwc_t hwc;
    bool hw = !warmup && dra_hwc_open(&hwc);
    if (hw)
        dra_hwc_start(&hwc);
    int64_t w0 = now_ns();
    dra_wl_event_t ev;
    while (next_event(c, &w, &ev, &rc, interrupted)) {
        if (c->hash_workload && !warmup) {
            uint64_t rec_[5];
            memcpy(&rec_[0], &ev.time, sizeof ev.time);
            rec_[1] = ev.kind;
            rec_[2] = ev.mix;
            rec_[3] = ev.pod;
            rec_[4] = ev.claim;
            XXH3_64bits_update(c->wl_dig, rec_, sizeof rec_);
        }
        if (ev.kind == DRA_WL_ARRIVE) {
            if (warmup && arrivals >= max_pods)
                break;
            bool placed;
            uint64_t before[4];
            memcpy(before, c->outc, sizeof before);
            if (c->rec_on && (rc = rec_reserve(c, ev.pod, ev.shape)))
                break;
            if (!warmup && (rc = hash_reserve(c, ev.pod)))
                break;
            if (dra_rgroups_is_group(c->groups, ev.mix)) {
                /* a PodGroup: its cycle reports to the workload (it may wait in the queue) */
                if ((rc = group_arrive(c, &w, &ev, &placed)))
                    break;
            } else {
                rc = arrive(c, &ev, &placed);
                if (rc)
                    break;
                if (!placed && !warmup && (rc = note_failure(c, &ev, before)))
                    break;
                dra_workload_report(&w, ev.pod, placed);
                if (placed) /* for the release look-ahead (prefetch_releases) */
                    dra_workload_tag(&w, ev.pod, c->pod_slot[ev.pod] + 1);
            }
            arrivals++;
            if (c->health && (rc = health_tick(c, arrivals)))
                break;
            if (!warmup && steady && arrivals % frag_every == 0 && (rc = frag_sample(c, ev.time)))
                break;
            if (c->o->progress && (arrivals & 255) == 0)
                c->o->progress(c->o->progress_ctx, warmup, c->rep, c->nreps, arrivals, total, false,
                               c->run);
        } else {
            if (!c->groups || !dra_rgroups_owns(c->groups, ev.pod))
                depart(c, &ev, &w);
            /* a group's pods leave together; any departure retries the groups that wait */
            if (c->groups && (rc = group_depart(c, &w, &ev)))
                break;
        }
    }
    int64_t w1 = now_ns();
    dra_hwc_values_t hv = {false, 0, 0};
    if (hw) {
        hv = dra_hwc_stop(&hwc);
        dra_hwc_close(&hwc);
    }
    int64_t sw1 = involuntary_switches();
    c->preemptions = sw0 >= 0 && sw1 >= sw0 ? sw1 - sw0 : -1;
    dra_workload_fini(&w);
    if (rc < 0)
        return rc;
    if (c->err) /* a histogram that could not get its counters (rec1) */
        return c->err;
    rc = DRA_OK;
    frag_values_t fv = {0, 0, 0};
    if (!warmup && !*interrupted) {
        if (steady && c->frag_n) {
            fv.idle_gpus_unusable = c->frag_sum[0] / c->frag_n;
            fv.stranded_mig_fraction = c->frag_sum[1] / c->frag_n;
            fv.partial_nvlink_domains = c->frag_sum[2] / c->frag_n;
        } else if (!steady) {
            if ((rc = frag_sample(c, (double)arrivals)))
                return rc;
            fv.idle_gpus_unusable = c->frag_sum[0];
            fv.stranded_mig_fraction = c->frag_sum[1];
            fv.partial_nvlink_domains = c->frag_sum[2];
        }
    }
    if (c->health) {
        int hrc = health_reset(c);
        if (hrc)
            return hrc;
    }
    if (c->groups) {
        dra_rg_counts_t gc;
        dra_rgroups_counts(c->groups, &gc);
        c->pods += gc.pods;
        c->claims_n += gc.claims;
        c->outc[DRA_OUTCOME_ALLOCATED] += gc.allocated;
        c->outc[DRA_OUTCOME_UNSATISFIABLE] += gc.unsatisfiable;
        c->outc[DRA_OUTCOME_FATAL] += gc.fatal;
        c->busy_ns += gc.busy_ns;
        /* the group cycles' claims and timed work count in the throughput beside the single
         * pods' (runner.h, "Outcome accounting"; runner_groups.h, dra_rg_counts_t) */
        c->ok_claims += gc.ok_claims;
        c->ok_ns += gc.ok_ns;
        c->rej_claims += gc.rej_claims;
        c->rej_ns += gc.rej_ns;
        c->placed_pods += gc.placed_pods;
        c->placed_ns += gc.ok_ns;
        c->gcounts = gc;
        c->run->both_groups += gc.both_cycles;
        c->run->both_group_ref_ns += gc.both_ref_ns;
        c->run->both_group_fast_ns += gc.both_fast_ns;
        int grc = group_rep_end(c);
        if (grc)
            return grc;
    }
    release_all(c);
    uint64_t d = dra_alloc_state_digest(c->state);
    if (d != c->empty_digest)
        violation(c, UINT64_MAX, "", "", "allocation state not empty after releasing every pod");
    if (warmup)
        return DRA_OK;
    /* the invariant checks: a second, untimed pass over the same decisions */
    if (!*interrupted && c->inv != DRA_INV_OFF && (rc = check_pass(c, interrupted)))
        return rc;
    uint64_t dg = XXH3_64bits_digest(c->dig);
    if (c->run->reps_done == 0)
        c->run->digest = dg;
    else if (!*interrupted && dg != c->run->digest)
        c->run->digests_equal = false;
    if (*interrupted) {
        c->run->inv_checked += c->checked;
        c->run->inv_violations += c->violations;
        return DRA_OK;
    }
    if ((rc = rep_json(c, w1 - w0, fv, &hv)))
        return rc;
    if (c->groups)
        dra_rgroups_reasons(c->groups, c, group_reason);
    dra_rf_put(json_array_get(c->reps, json_array_size(c->reps) - 1), DRA_RF_REP_OUTCOME_REASONS,
               reasons_json(c));
    /* totals and merged histograms */
    dra_run_t *r = c->run;
    r->reps_done++;
    r->pods += c->pods;
    r->claims += c->claims_n;
    r->allocated += c->outc[0];
    r->unsatisfiable += c->outc[1];
    r->node_failure += c->outc[2];
    r->fatal += c->outc[3];
    r->claims_allocated += c->ok_claims;
    r->claims_rejected += c->rej_claims;
    r->allocated_ns += c->ok_ns;
    r->rejected_ns += c->rej_ns;
    r->pods_placed += c->placed_pods;
    r->placed_ns += c->placed_ns;
    r->check_ns += c->check_ns;
    if (c->groups) {
        r->group_claims += c->gcounts.ok_claims;
        r->group_ns += c->gcounts.ok_ns;
        r->group_rejected_claims += c->gcounts.rej_claims;
        r->group_rejected_ns += c->gcounts.rej_ns;
    }
    for (int i = 0; i < DRA_ENGINE_PATH_COUNT; i++)
        r->paths[i] += c->paths[i];
    for (int i = 0; i < DRA_SERVED_COUNT; i++)
        r->served[i] += c->served[i];
    r->slice_updates += c->updates;
    r->rec_commits += c->rec_commits;
    r->rec_releases += c->rec_releases;
    r->wall_ns += (uint64_t)(w1 - w0);
    if (c->preemptions > 0) {
        r->preemptions += (uint64_t)c->preemptions;
        r->reps_preempted++;
    }
    r->inv_checked += c->checked;
    r->inv_violations += c->violations;
    for (uint32_t i = 0; i < c->nhists; i++) {
        if (!c->rh[i].counts)
            continue; /* never recorded: its merged copy stays empty (and unallocated) too */
        if (!r->hists[i].counts && (rc = dra_hist_init(&r->hists[i], DRA_HIST_LOWEST,
                                                       DRA_HIST_HIGHEST, DRA_HIST_SIGFIGS)))
            return rc;
        if ((rc = dra_hist_merge(&r->hists[i], &c->rh[i])))
            return rc;
    }
    return DRA_OK;
}

/* ---- set-up --------------------------------------------------------------------------------- */

/* The allocators (and the explainer, made again on its next use) freed. */
static void allocs_free(ctx_t *c)
{
    if (c->cmp_init) {
        dra_anyalloc_free(&c->cmp);
        memset(&c->cmp, 0, sizeof c->cmp);
        c->cmp_init = false;
    }
    dra_anyalloc_free(&c->alloc);
    memset(&c->alloc, 0, sizeof c->alloc);
    dra_explainer_free(c->why);
    c->why = NULL;
}

/* The engine of the last repetition put back as it was built (dra_engine_reset: its image of
 * what placements change), beside the allocator put back as it was built (dra_anyalloc_reset)
 * and seeded as the engine's plans seeded it, with its per-node layouts: the state a fresh engine_build gives, without building the
 * engine's tables, counters, signatures and plans again. The CEL program cache is kept (the
 * engine's programs live in it; it caches compiled programs only). DRA_EINVAL: the engine
 * cannot be reset (engine.h), nothing of it changed; the caller builds anew. Untimed. */
static int engine_reuse(ctx_t *c)
{
    /* the slots' result memory: templates written anew, as into a new engine's */
    for (uint32_t i = 0; i < c->nslots; i++)
        c->slots[i].es.tmpl = 0;
    /* the comparison allocator and the explainer made again; the allocator put back as
     * built (dra_anyalloc_reset: the fast allocator keeps its model-wide indexes) */
    dra_anyalloc_t keep = c->alloc;
    memset(&c->alloc, 0, sizeof c->alloc);
    allocs_free(c);
    c->alloc = keep;
    dra_alloc_options_t ao = {0, c->seed};
    const dra_fast_t *was = c->alloc.fast;
    int rc = dra_anyalloc_reset(&c->alloc, &c->model, &c->feat, c->state, c->cel, &ao);
    if (c->alloc.fast != was) /* made anew (it never is for the runner's own allocator) */
        c->alloc_saved = false;
    if (rc == DRA_OK)
        rc = dra_engine_reset(c->eng);
    /* the selector caches as the engine's reset seeded them, put back by every later reset
     * (whose seeding then has nothing to do: 1.2M rows a signature on fleet-50k); out of
     * memory, nothing is saved and the resets seed as before */
    if (rc == DRA_OK && c->alloc.kind == DRA_ALLOC_FAST && c->alloc.fast && !c->alloc_saved)
        c->alloc_saved = dra_fast_save(c->alloc.fast) == DRA_OK;
#if DRA_DEBUG >= 2
    /* debug builds: what the placements read is what the engine as built read, and the
     * summaries agree with a recomputation from the (empty again) state */
    char why[256];
    if (rc == DRA_OK && dra_engine_plans_digest(c->eng) != c->eng_digest)
        return dra_diag_set(c->diag, DRA_EINTERNAL, NULL, 0, 0,
                            "engine reset: the plans' digest differs from the engine as built");
    if (rc == DRA_OK && !dra_engine_check(c->eng, why, sizeof why))
        return dra_diag_set(c->diag, DRA_EINTERNAL, NULL, 0, 0, "engine reset: %s", why);
#endif
    if (rc == DRA_OK)
        rc = engine_layouts(c, true);
    if (rc == DRA_OK)
        rc = cmp_new(c);
    return rc;
}

/* A fresh engine: every measured repetition starts from the same state and its exact counters
 * (search.*) are the same in every repetition. Where the engine can be reset to its saved image
 * (engine_reuse), it is, and the allocator is put back as built (per-node layouts, counter
 * columns and state mirror dropped; the selector caches as the engine's seeding left them) with
 * the same CEL program cache; else the allocator, the CEL program cache and the engine are all
 * built again. harness.test_runner's reset-against-rebuild tests and harness.test_fast_reset
 * check that the two give the same. Untimed. */
static int engine_fresh(ctx_t *c)
{
    if (c->eng && c->eng_saved) {
        int rc = engine_reuse(c);
        if (rc != DRA_EINVAL)
            return rc;
    }
    /* the placement engine borrows the allocator and the CEL cache: it is rebuilt with them
     * (its summaries start from the state, which is empty again between repetitions) */
    bool had_engine = c->eng != NULL;
    c->eng_saved = false;
    c->alloc_saved = false; /* a new allocator below */
    dra_engine_free(c->eng);
    c->eng = NULL;
    /* the slots' result memory holds the old engine's templates (its strings and configs) */
    for (uint32_t i = 0; i < c->nslots; i++)
        c->slots[i].es.tmpl = 0;
    free(c->plan);
    c->plan = NULL;
    /* the explainer holds the CEL cache freed below: made again on its next use */
    allocs_free(c);
    if (c->cel)
        dra_cel_cache_free(c->cel);
    c->cel = NULL;
    int rc = dra_cel_cache_new(&c->cel);
    if (rc)
        return rc;
    dra_alloc_options_t ao = {0, c->seed};
    size_t h0 = heap_in_use();
    rc = dra_anyalloc_new(c->akind, &c->model, &c->feat, c->state, c->cel, &ao, &c->alloc);
    if (rc == DRA_OK && !c->run->alloc_bytes) /* the allocator's model-wide indexes, once */
        c->run->alloc_bytes = growth(h0, heap_in_use());
    if (rc == DRA_OK && had_engine)
        rc = engine_build(c);
    return rc;
}

/* One measured repetition as an independent sample: fresh engine, the warm-up (if any) on it,
 * then the measured run. Violations found in the warm-up are not recorded (as before). */
static int run_measured(ctx_t *c, uint32_t r, bool *intr)
{
    int rc = r == 0 ? DRA_OK : engine_fresh(c);
    if (rc == DRA_OK && c->warmup) {
        uint32_t keep = c->run->nfirst;
        c->rep = r;
        rc = run_rep(c, true, c->warmup, intr);
        c->run->nfirst = keep;
    }
    c->violations = 0;
    if (rc == DRA_OK && !*intr) {
        c->rep = r;
        c->hash_workload = r == 0;
        c->rec_on = r == 0 && c->rec_dig != NULL;
        rc = run_rep(c, false, 0, intr);
        c->rec_on = false;
        if (rc == DRA_OK && r == 0 && !*intr && c->rec_dig) {
            json_t *d = decisions_json(c);
            if (!d)
                return DRA_ENOMEM;
            dra_rf_put(c->run->json, DRA_RF_DECISIONS, d);
        }
    }
    return rc;
}

static int setup(ctx_t *c)
{
    const dra_runner_opts_t *o = c->o;
    dra_diag_t *diag = c->diag;
    const char *name = o->scenario ? o->scenario : "default";
    int rc = dra_scenario_load_named(&c->scn, name, diag);
    if (rc)
        return rc;
    c->scn_loaded = true;
    if (o->cluster) {
        /* the workload of the scenario against a real cluster: its slices, classes and nodes */
        c->cluster_paths[0] = o->cluster;
        c->scn.ngroups = 0;
        c->scn.manifests = c->cluster_paths;
        c->scn.nmanifests = 1;
    }
    c->seed = o->has_seed ? o->seed : c->scn.seed;
    c->policy = o->has_policy ? o->policy : c->scn.placement;
    c->inv = c->scn.invariants;
    c->inv_p = c->inv == DRA_INV_SAMPLED ? c->scn.sample_rate : (c->inv == DRA_INV_ALL ? 1 : 0);
    if (o->has_inv)
        c->inv = o->inv;
    if (c->inv == DRA_INV_SAMPLED)
        c->inv_p = o->has_inv_p ? o->inv_p : c->scn.sample_rate;
    else
        c->inv_p = c->inv == DRA_INV_ALL ? 1 : 0;
    c->nreps = o->has_repeat ? o->repeat : (c->scn.repetitions ? c->scn.repetitions : 1);
    c->warmup = o->has_warmup ? o->warmup : c->scn.warmup;
    dra_alloc_kind_t akind = DRA_ALLOC_FAST;
    c->both = o->allocator && strcmp(o->allocator, "both") == 0;
    if (o->allocator && !c->both && dra_alloc_kind_parse(o->allocator, &akind))
        return dra_diag_set(diag, DRA_EUNSUPPORTED, NULL, 0, 0,
                            "allocator '%s' is not available (fast, reference or both)",
                            o->allocator);
    c->ref_place = akind == DRA_ALLOC_REFERENCE;

    /* features: release profile, scenario gates, command-line overrides */
    dra_release_t rel = (dra_release_t)c->scn.release;
    if (o->release && (rc = dra_alloc_release_parse(o->release, &rel, diag)))
        return rc;
    dra_alloc_features_init(&c->feat, rel);
    for (uint32_t i = 0; i < c->scn.nfeatures; i++) {
        /* --release naming an older release than the scenario's: a scenario gate that release
         * does not have is left out (its API fields do not exist there either), with a note */
        dra_gate_t g;
        if (o->release && rel != (dra_release_t)c->scn.release &&
            dra_alloc_gate_lookup(c->scn.features[i].name, &g) &&
            !dra_alloc_gate_stage(rel, g).exists) {
            fprintf(stderr, "drabench: run: scenario feature gate %s left out: release %s has none\n",
                    c->scn.features[i].name, dra_alloc_release_name(rel));
            continue;
        }
        if ((rc = dra_alloc_features_set_gate(&c->feat, c->scn.features[i].name,
                                              c->scn.features[i].on, diag)))
            return rc;
    }
    for (uint32_t i = 0; i < o->nfeatures; i++)
        if ((rc = dra_alloc_features_set(&c->feat, o->features[i], diag)))
            return rc;

    /* cluster and claims */
    dra_model_init(&c->model);
    c->model_init = true;
    int64_t b0 = now_ns();
    rc = dra_scenario_build(&c->scn, &c->model, c->seed, &c->built, diag);
    c->built_init = rc == DRA_OK;
    if (rc)
        return rc;
    if (o->has_count)
        c->built.workload.count = o->count;
    if (c->scn.nmanifests) {
        dra_diag_list_t errs;
        dra_diag_list_init(&errs);
        rc = dra_scenario_read_manifests(&c->scn, &c->model, &errs);
        if (rc == DRA_EVALIDATE && errs.count)
            dra_diag_set(diag, DRA_EVALIDATE, errs.items[0].file, errs.items[0].line,
                         errs.items[0].column, "%s (drabench validate --cluster lists every "
                         "error of the manifests)", errs.items[0].msg);
        else if (rc && errs.count)
            *diag = errs.items[0];
        dra_diag_list_fini(&errs);
        if (rc)
            return rc;
    }
    if ((rc = dra_model_imply_nodes(&c->model)))
        return rc;
    /* pods and pending claims of the manifests are not the workload: counted for a note */
    c->run->ignored_pods = c->model.npods;
    c->run->ignored_claims = 0;
    for (uint32_t i = 0; i < c->model.nclaims; i++)
        c->run->ignored_claims += c->model.claims[i]->allocation == NULL;
    c->nshapes = c->scn.nmix;
    c->claims = calloc(c->nshapes + 1, sizeof *c->claims);
    c->unsched = calloc(c->nshapes + 1, sizeof *c->unsched);
    c->unsched_fatal = calloc(c->nshapes + 1, sizeof *c->unsched_fatal);
    c->unsched_kind = calloc(c->nshapes + 1, sizeof *c->unsched_kind);
    c->xclaims = calloc(c->nshapes + 1, sizeof *c->xclaims);
    c->shape_names = calloc(c->nshapes + 1, sizeof *c->shape_names);
    if (!c->claims || !c->unsched || !c->unsched_fatal || !c->unsched_kind || !c->xclaims ||
        !c->shape_names)
        return DRA_ENOMEM;
    for (uint32_t i = 0; i < c->nshapes; i++) {
        dra_scenario_claim_t sc;
        if ((rc = dra_scenario_shape_claim(&c->built, i, &c->model, &c->feat, &sc, diag)))
            return rc;
        c->claims[i] = sc.claim;
        snprintf(c->unsched[i], sizeof c->unsched[i], "%s", sc.unschedulable);
        c->unsched_fatal[i] = sc.fatal;
        c->unsched_kind[i] = sc.unsched_kind;
        c->xclaims[i] = sc;
        c->shape_names[i] = dra_scenario_shape_name(&c->built, i);
    }
    c->shape_names[c->nshapes] = "all";
    if ((rc = dra_rgroups_new(&c->scn, &c->built, &c->model, &c->feat, c->claims, &c->groups,
                              diag)))
        return rc;
    c->build_ns = now_ns() - b0;

    /* device table (memory figure) */
    dra_arena_init(&c->table_arena, 0);
    int64_t t0 = now_ns();
    if ((rc = dra_table_build(&c->model, &c->table_arena, &c->table, diag)))
        return rc;
    c->table_build_ns = now_ns() - t0;

    /* allocator */
    c->nnodes = c->model.nnodes;
    if ((rc = dra_alloc_state_new(&c->model, &c->feat, &c->state)))
        return rc;
    if ((rc = dra_alloc_state_add_model_claims(c->state)))
        return rc;
    c->empty_digest = dra_alloc_state_digest(c->state);
    c->akind = akind;
    if ((rc = engine_fresh(c)))
        return rc;

    if ((rc = engine_setup(c)))
        return rc;
    c->free_head = NONE;
    dra_arena_init(&c->frag_arena, 64 * 1024);

    /* histograms */
    c->nhists = (uint32_t)hidx(c, c->nshapes + 1, 0, 0);
    c->health = c->scn.taints.every > 0;
    c->upd_hist = c->health ? c->nhists++ : NONE; /* slice-update/update/any */
    c->run->update_hist = c->upd_hist;
    c->rh = calloc(c->nhists, sizeof *c->rh);
    c->run->hists = calloc(c->nhists, sizeof *c->run->hists);
    c->run->hist_names = calloc(c->nhists, sizeof *c->run->hist_names);
    c->run->nhists = c->nhists;
    if (!c->rh || !c->run->hists || !c->run->hist_names)
        return DRA_ENOMEM;
    for (uint32_t s = 0; s <= c->nshapes; s++)
        for (int p = 0; p < DRA_PHASE_COUNT; p++)
            for (int oc = 0; oc < DRA_HOUT_COUNT; oc++) {
                if (!hist_used(p, oc))
                    continue;
                size_t i = hidx(c, s, p, oc); /* counters allocated on the first value (rec1) */
                char nm[256];
                snprintf(nm, sizeof nm, "%s/%s/%s", c->shape_names[s], phase_names[p], hout_names[oc]);
                c->run->hist_names[i] = strdup(nm);
                if (!c->run->hist_names[i])
                    return DRA_ENOMEM;
            }
    if (c->health) {
        uint32_t i = c->upd_hist;
        if (!(c->run->hist_names[i] = strdup("slice-update/update/any")))
            return DRA_ENOMEM;
        if ((rc = health_setup(c)))
            return rc;
    }
    c->dig = XXH3_createState();
    c->wl_dig = XXH3_createState();
    c->rec_dig = XXH3_createState();
    c->chk_dig = XXH3_createState();
    if (!c->dig || !c->wl_dig || !c->rec_dig || !c->chk_dig)
        return DRA_ENOMEM;
    /* in every mode, so the heap the timed passes run on does not depend on it */
    c->inv_scratch_init = true;
    if (dra_inv_scratch_init(&c->inv_scratch))
        return DRA_ENOMEM;
    /* the planted slowdown's debts (runner.h) and its shortest spin */
    if (o->test_slowdown_pct > 0) {
        c->slow_frac = o->test_slowdown_pct / 100.0;
        c->plant_debt = calloc(((size_t)c->nshapes + 1) * RK_COUNT, sizeof *c->plant_debt);
        if (!c->plant_debt)
            return DRA_ENOMEM;
        int64_t ov = timer_overhead_ns();
        c->plant_min_ns = ov > 1 ? (double)ov : 1;
    }
    XXH3_64bits_reset(c->wl_dig);
    return frag_setup(c);
}

/* ---- the result document -------------------------------------------------------------------- */

static json_t *features_json(const dra_alloc_features_t *f)
{
    json_t *o = json_object();
    for (int g = 0; g < DRA_GATE_COUNT; g++)
        json_object_set_new(o, dra_alloc_gate_name((dra_gate_t)g),
                            json_boolean(dra_alloc_gate_on(f, (dra_gate_t)g)));
    return o;
}

static json_t *doc_begin(ctx_t *c, const dra_hostinfo_t *host)
{
    const dra_runner_opts_t *o = c->o;
    char seed_dec[24], inv[32], rel[16];
    snprintf(seed_dec, sizeof seed_dec, "%llu", (unsigned long long)c->seed);
    snprintf(inv, sizeof inv, "%s", dra_inv_mode_name(c->inv));
    snprintf(rel, sizeof rel, "%s", dra_alloc_release_name((dra_release_t)c->feat.release));
    struct timespec res;
    clock_getres(CLOCK_MONOTONIC, &res);
    json_t *doc = json_object(), *run = json_object(), *cluster = json_object();
    if (!doc || !run || !cluster) {
        json_decref(doc);
        json_decref(run);
        json_decref(cluster);
        return NULL;
    }
    dra_rf_put_str(run, DRA_RF_RUN_SCENARIO,
                   c->scn.name ? c->scn.name : (o->scenario ? o->scenario : "default"));
    dra_rf_put_hex(run, DRA_RF_RUN_SCENARIO_HASH, c->scn.hash);
    dra_rf_put_hex(run, DRA_RF_RUN_CLUSTER_HASH, dra_model_digest(&c->model));
    dra_rf_put_str(run, DRA_RF_RUN_SEED, seed_dec);
    dra_rf_put_hex(run, DRA_RF_RUN_SEED_HEX, c->seed);
    dra_rf_put_str(run, DRA_RF_RUN_RELEASE, rel);
    dra_rf_put(run, DRA_RF_RUN_FEATURES, features_json(&c->feat));
    dra_rf_put_bool(run, DRA_RF_RUN_UPSTREAM_BUGS, c->feat.upstream_bugs);
    dra_rf_put_str(run, DRA_RF_RUN_ALLOCATOR,
                   c->both ? "both" : dra_alloc_kind_name(c->alloc.kind));
    dra_rf_put_str(run, DRA_RF_RUN_POLICY, dra_placement_name(c->policy));
    dra_rf_put_str(run, DRA_RF_RUN_INVARIANT_MODE, inv);
    if (c->inv == DRA_INV_SAMPLED)
        dra_rf_put_num(run, DRA_RF_RUN_INVARIANT_SAMPLE_RATE, c->inv_p);
    json_t *method = dra_rf_put_obj(run, DRA_RF_RUN_METHOD);
    dra_rf_put_int(method, DRA_RF_METHOD_WARMUP, (int64_t)c->warmup);
    dra_rf_put_int(method, DRA_RF_METHOD_REPETITIONS, (int64_t)c->nreps);
    dra_rf_put_str(method, DRA_RF_METHOD_TIMER, "CLOCK_MONOTONIC");
    dra_rf_put_int(method, DRA_RF_METHOD_TIMER_RESOLUTION_NS,
                   (int64_t)res.tv_sec * 1000000000 + res.tv_nsec);
    dra_rf_put_int(method, DRA_RF_METHOD_TIMER_OVERHEAD_NS, timer_overhead_ns());
    /* what clock_getres does not say: the step the readings advance by (clockstep.h; 10 ns on
     * an AMD Zen's time-stamp counter), measured; absent when the pairs could not tell */
    uint32_t step = dra_clock_step_measure(now_ns);
    if (step)
        dra_rf_put_int(method, DRA_RF_METHOD_TIMER_STEP_NS, (int64_t)step);
    /* the clock of the allocate call inside the node search (answer_clock): the time-stamp
     * counter at its measured rate (ticks a second), or CLOCK_MONOTONIC; absent when no
     * engine was built */
    if (ns_per_tick != 0)
        dra_rf_put_str(method, DRA_RF_METHOD_ANSWER_TIMER,
                       ns_per_tick > 0 ? "tsc" : "CLOCK_MONOTONIC");
    if (ns_per_tick > 0)
        dra_rf_put_int(method, DRA_RF_METHOD_ANSWER_TICK_HZ, (int64_t)(1e9 / ns_per_tick + 0.5));
#if defined(__x86_64__) || defined(__i386__)
    uint32_t tstep = ns_per_tick > 0 ? dra_clock_step_measure(tick_fn) : 0;
    if (tstep) /* the counter's step, in ns (at least 1) */
        dra_rf_put_int(method, DRA_RF_METHOD_ANSWER_STEP_NS,
                       (int64_t)fmax(1, (double)tstep * ns_per_tick + 0.5));
#endif
    dra_rf_put_int(method, DRA_RF_METHOD_HIST_SIGFIGS, DRA_HIST_SIGFIGS);
    dra_rf_put_str(method, DRA_RF_METHOD_INTERLEAVING, "sequential");
    dra_rf_put_int(method, DRA_RF_METHOD_TIMING_VERSION,
                   c->groups ? DRA_RESULT_TIMING_VERSION : DRA_RESULT_TIMING_VERSION_NO_GROUPS);
    dra_rf_put_str(method, DRA_RF_METHOD_CHECKS,
                   c->inv == DRA_INV_OFF ? "off" : "untimed second pass");
    dra_rf_put_str(method, DRA_RF_METHOD_RELEASE_LOOK_AHEAD, dra_look_ahead_name(c->look));
    if (o->textpages) {
        dra_rf_put_str(method, DRA_RF_METHOD_TEXT_PAGES, dra_textpages_name(o->textpages));
        dra_rf_put_int(method, DRA_RF_METHOD_TEXT_PAGES_BYTES, (int64_t)o->textpages->bytes);
        if (!o->textpages->huge)
            dra_rf_put_str(method, DRA_RF_METHOD_TEXT_PAGES_REASON, o->textpages->reason);
    }
    json_t *argv = dra_rf_put_arr(run, DRA_RF_RUN_ARGV);
    for (int i = 0; argv && i < o->argc; i++)
        json_array_append_new(argv, dra_esc_path_json(o->argv[i])); /* lossless (escape.h) */
    if (c->scn.file)
        dra_rf_put_path(run, DRA_RF_RUN_SCENARIO_FILE, c->scn.file);
    if (o->cluster)
        dra_rf_put_path(run, DRA_RF_RUN_CLUSTER_FILE, o->cluster);
    dra_rf_put_str(run, DRA_RF_RUN_WORKLOAD_MODE,
                   c->built.workload.mode == DRA_WL_STEADY ? "steady" : "fill");
    dra_rf_put_int(run, DRA_RF_RUN_WORKLOAD_COUNT, (int64_t)c->built.workload.count);
    if (o->test_delay_ns)
        dra_rf_put_int(run, DRA_RF_RUN_TEST_DELAY_NS, (int64_t)o->test_delay_ns);
    if (o->test_slowdown_pct > 0)
        dra_rf_put_num(run, DRA_RF_RUN_TEST_SLOWDOWN_PCT, o->test_slowdown_pct);
    if (o->inject_fault)
        dra_rf_put_int(run, DRA_RF_RUN_TEST_INJECT_FAULT, (int64_t)o->inject_fault);
    size_t high = c->model.arena.high_water + c->table_arena.high_water;
    double bpd = c->model.ndevices ? (double)c->table->bytes / (double)c->model.ndevices : 0;
    c->run->bytes_per_device = bpd;
    c->run->table_bytes = c->table->bytes;
    dra_rf_put_int(cluster, DRA_RF_CLUSTER_NODES, (int64_t)c->model.nnodes);
    dra_rf_put_int(cluster, DRA_RF_CLUSTER_SLICES, (int64_t)c->model.nslices);
    dra_rf_put_int(cluster, DRA_RF_CLUSTER_DEVICES, (int64_t)c->model.ndevices);
    dra_rf_put_int(cluster, DRA_RF_CLUSTER_POOLS, (int64_t)c->table->npools);
    dra_rf_put_int(cluster, DRA_RF_CLUSTER_BUILD_NS, (int64_t)c->build_ns);
    dra_rf_put_int(cluster, DRA_RF_CLUSTER_TABLE_BUILD_NS, (int64_t)c->table_build_ns);
    dra_rf_put_int(cluster, DRA_RF_CLUSTER_ENGINE_BUILD_NS, (int64_t)c->run->engine_build_ns);
    dra_rf_put_int(cluster, DRA_RF_CLUSTER_TABLE_BYTES, (int64_t)c->table->bytes);
    dra_rf_put_num(cluster, DRA_RF_CLUSTER_BYTES_PER_DEVICE, bpd);
    dra_rf_put_int(cluster, DRA_RF_CLUSTER_ARENA_HIGH_WATER, (int64_t)high);
    dra_rf_put_str(doc, DRA_RF_SCHEMA, DRA_RESULT_SCHEMA);
    dra_rf_put_str(doc, DRA_RF_STATUS, "complete");
    dra_rf_put(doc, DRA_RF_TOOL, dra_result_tool_json());
    dra_rf_put(doc, DRA_RF_HOST, dra_result_host_json(host));
    dra_rf_put(doc, DRA_RF_RUN, run);
    dra_rf_put(doc, DRA_RF_CLUSTER, cluster);
    dra_rf_put(doc, DRA_RF_METRICS, json_object());
    dra_rf_put(doc, DRA_RF_REPETITIONS, json_array());
    return doc;
}

/* Median, min and max of one per-repetition value. */
static void rep_spread(const json_t *reps, const char *metric, double *med, double *lo, double *hi)
{
    size_t n = json_array_size(reps), k = 0;
    double *x = malloc((n ? n : 1) * sizeof *x);
    *med = *lo = *hi = 0;
    if (!x)
        return;
    for (size_t i = 0; i < n; i++) {
        const json_t *v = json_object_get(dra_rf_get(json_array_get(reps, i), DRA_RF_REP_VALUES),
                                          metric);
        if (json_is_number(v))
            x[k++] = json_number_value(v);
    }
    if (k) {
        *med = dra_stats_median(x, k);
        *lo = *hi = x[0];
        for (size_t i = 1; i < k; i++) {
            *lo = x[i] < *lo ? x[i] : *lo;
            *hi = x[i] > *hi ? x[i] : *hi;
        }
    }
    free(x);
}

/* Both definitions of throughput, named, with the spread of the repetitions: top-level
 * `throughput` of the result file and the run summary. */
static void throughput_spread(ctx_t *c)
{
    dra_run_t *r = c->run;
    rep_spread(c->reps, "throughput.claims_per_s", &r->claims_per_s_median, &r->claims_per_s_min,
               &r->claims_per_s_max);
    rep_spread(c->reps, "throughput.pods_per_s", &r->pods_per_s_median, &r->pods_per_s_min,
               &r->pods_per_s_max);
    rep_spread(c->reps, "throughput.rejections_per_s", &r->rejections_per_s_median,
               &r->rejections_per_s_min, &r->rejections_per_s_max);
    json_t *t = dra_rf_put_obj(r->json, DRA_RF_THROUGHPUT);
    json_t *cl = dra_rf_put_obj(t, DRA_RF_TP_CLAIMS), *po = dra_rf_put_obj(t, DRA_RF_TP_PODS);
    json_t *rj = dra_rf_put_obj(t, DRA_RF_TP_REJECTIONS);
    /* NaN (no allocated claim, no rejection) is written as null (dra_rf_put_num) */
    dra_rf_put_num(cl, DRA_RF_TP_CLAIMS_POOLED, r->claims_per_s);
    dra_rf_put_num(cl, DRA_RF_TP_CLAIMS_MEDIAN, r->claims_per_s_median);
    dra_rf_put_num(cl, DRA_RF_TP_CLAIMS_MIN, r->claims_per_s_min);
    dra_rf_put_num(cl, DRA_RF_TP_CLAIMS_MAX, r->claims_per_s_max);
    dra_rf_put_num(po, DRA_RF_TP_PODS_POOLED, r->pods_per_s);
    dra_rf_put_num(po, DRA_RF_TP_PODS_MEDIAN, r->pods_per_s_median);
    dra_rf_put_num(po, DRA_RF_TP_PODS_MIN, r->pods_per_s_min);
    dra_rf_put_num(po, DRA_RF_TP_PODS_MAX, r->pods_per_s_max);
    dra_rf_put_num(rj, DRA_RF_TP_REJ_POOLED, r->rejections_per_s);
    dra_rf_put_num(rj, DRA_RF_TP_REJ_MEDIAN, r->rejections_per_s_median);
    dra_rf_put_num(rj, DRA_RF_TP_REJ_MIN, r->rejections_per_s_min);
    dra_rf_put_num(rj, DRA_RF_TP_REJ_MAX, r->rejections_per_s_max);
    if (c->groups) {
        rep_spread(c->reps, "throughput.group_claims_per_s", &r->group_claims_per_s_median,
                   &r->group_claims_per_s_min, &r->group_claims_per_s_max);
        json_t *gr = dra_rf_put_obj(t, DRA_RF_TP_GROUP_CLAIMS);
        dra_rf_put_num(gr, DRA_RF_TP_GROUP_POOLED, r->group_claims_per_s);
        dra_rf_put_num(gr, DRA_RF_TP_GROUP_MEDIAN, r->group_claims_per_s_median);
        dra_rf_put_num(gr, DRA_RF_TP_GROUP_MIN, r->group_claims_per_s_min);
        dra_rf_put_num(gr, DRA_RF_TP_GROUP_MAX, r->group_claims_per_s_max);
    }
}

/* The summary's memory and placement lines as result-file objects (schema.def MEMORY,
 * PLACEMENT): bytes per device of each structure and the peak resident set; placements per
 * engine path and per what decided on the chosen node, all measured repetitions. */
static void memory_placement_json(ctx_t *c)
{
    dra_run_t *r = c->run;
    double nd = r->devices ? (double)r->devices : 1;
    json_t *m = dra_rf_put_obj(r->json, DRA_RF_MEMORY);
    dra_rf_put_num(m, DRA_RF_MEM_TABLE, r->bytes_per_device);
    dra_rf_put_num(m, DRA_RF_MEM_ENGINE, (double)r->engine_bytes / nd);
    dra_rf_put_num(m, DRA_RF_MEM_LAYOUTS, (double)r->layout_bytes / nd);
    dra_rf_put_num(m, DRA_RF_MEM_INDEXES, (double)r->alloc_bytes / nd);
    dra_rf_put_num(m, DRA_RF_MEM_TOTAL, memory_per_device(r));
    dra_rf_put_int(m, DRA_RF_MEM_PEAK_RSS, (int64_t)r->peak_rss_bytes);
    json_t *p = dra_rf_put_obj(r->json, DRA_RF_PLACEMENT);
    dra_rf_put_int(p, DRA_RF_PLACE_INDEX, (int64_t)r->paths[0]);
    dra_rf_put_int(p, DRA_RF_PLACE_REJECTED, (int64_t)r->paths[1]);
    dra_rf_put_int(p, DRA_RF_PLACE_BRUTE, (int64_t)r->paths[2]);
    json_t *served = json_object();
    for (int i = 1; served && i < DRA_SERVED_COUNT; i++)
        if (r->served[i])
            json_object_set_new(served, dra_engine_served_name((dra_engine_served_t)i),
                                json_integer((json_int_t)r->served[i]));
    dra_rf_put(p, DRA_RF_PLACE_SERVED, served ? served : json_object());
}

static void summarize(ctx_t *c)
{
    dra_run_t *r = c->run;
    /* pooled: over all measured repetitions (runner.h, "Outcome accounting") */
    r->claims_per_s = per_s(r->claims_allocated, r->allocated_ns);
    r->pods_per_s = per_s(r->pods_placed, r->placed_ns);
    r->rejections_per_s = per_s(r->claims_rejected, r->rejected_ns);
    r->group_claims_per_s = c->groups ? per_s(r->group_claims, r->group_ns) : 0;
    r->peak_rss_bytes = peak_rss();
    throughput_spread(c);
    memory_placement_json(c);
    const dra_hist_t *pod = &r->hists[hidx(c, c->nshapes, DRA_PHASE_POD, DRA_HOUT_ALLOCATED)];
    r->pod_p50 = dra_hist_percentile(pod, 50);
    r->pod_p99 = dra_hist_percentile(pod, 99);
    r->pod_p999 = dra_hist_percentile(pod, 99.9);
    r->pod_max = dra_hist_max(pod);
    const dra_hist_t *rej = &r->hists[hidx(c, c->nshapes, DRA_PHASE_POD, DRA_HOUT_UNSATISFIABLE)];
    r->rej_p50 = dra_hist_percentile(rej, 50);
    r->rej_p99 = dra_hist_percentile(rej, 99);
    if (c->groups) {
        char buf[4096];
        dra_rgroups_summary(c->groups, buf, sizeof buf);
        r->groups_summary = strdup(buf);
    }
    r->nshapes = c->nshapes;
    r->shapes = calloc(c->nshapes + 1, sizeof *r->shapes);
    if (!r->shapes)
        return;
    for (uint32_t s = 0; s <= c->nshapes; s++) {
        dra_run_shape_summary_t *x = &r->shapes[s];
        const dra_hist_t *any = &r->hists[hidx(c, s, DRA_PHASE_POD, DRA_HOUT_ANY)];
        x->name = s < c->nshapes ? strdup(c->shape_names[s]) : strdup("all");
        x->pods = (uint64_t)dra_hist_count(any);
        x->allocated = (uint64_t)dra_hist_count(&r->hists[hidx(c, s, DRA_PHASE_POD, DRA_HOUT_ALLOCATED)]);
        x->unsatisfiable =
            (uint64_t)dra_hist_count(&r->hists[hidx(c, s, DRA_PHASE_POD, DRA_HOUT_UNSATISFIABLE)]);
        const dra_hist_t *ok = &r->hists[hidx(c, s, DRA_PHASE_POD, DRA_HOUT_ALLOCATED)];
        const dra_hist_t *no = &r->hists[hidx(c, s, DRA_PHASE_POD, DRA_HOUT_UNSATISFIABLE)];
        x->p50 = dra_hist_percentile(ok, 50);
        x->p99 = dra_hist_percentile(ok, 99);
        x->p999 = dra_hist_percentile(ok, 99.9);
        x->rej_p50 = dra_hist_percentile(no, 50);
        x->rej_p99 = dra_hist_percentile(no, 99);
    }
}

/* `warnings`: a shape whose every pod was unsatisfiable (in every repetition), unless its mix
 * entry says `expect: unsatisfiable`, with the dominant per-node reason of the first
 * repetition. Written only when there is one. */
static void doc_warnings(ctx_t *c)
{
    dra_run_t *r = c->run;
    json_t *warn = NULL;
    const json_t *rs = dra_rf_get(json_array_get(c->reps, 0), DRA_RF_REP_OUTCOME_REASONS);
    for (uint32_t s = 0; r->shapes && s < c->nshapes; s++) {
        const dra_run_shape_summary_t *x = &r->shapes[s];
        if (!x->pods || x->unsatisfiable != x->pods ||
            (s < c->scn.nmix && c->scn.mix[s].expect_unsat))
            continue;
        const char *why = "";
        size_t i;
        const json_t *e;
        json_array_foreach(rs, i, e)
        {
            const char *sh = json_string_value(dra_rf_get(e, DRA_RF_REASON_SHAPE));
            const char *oc = json_string_value(dra_rf_get(e, DRA_RF_REASON_OUTCOME));
            if (!sh || !oc || strcmp(sh, c->shape_names[s]) || strcmp(oc, "unsatisfiable"))
                continue;
            const json_t *nr = json_array_get(dra_rf_get(e, DRA_RF_REASON_NODE_REASONS), 0);
            why = json_string_value(dra_rf_get(nr ? nr : e, nr ? DRA_RF_NREASON_REASON
                                                               : DRA_RF_REASON_REASON));
            break;
        }
        char a[32], t[DRA_WHY_TEXT_MAX + 256];
        snprintf(t, sizeof t, "shape %s: all %s pods unsatisfiable%s%s", c->shape_names[s],
                 dra_thousands(x->pods / (r->reps_done ? r->reps_done : 1), a, sizeof a),
                 r->reps_done > 1 ? " in each repetition" : "", why && why[0] ? ": " : "");
        size_t at = strlen(t);
        if (why && at + 1 < sizeof t)
            snprintf(t + at, sizeof t - at, "%s", why);
        if (!warn && !(warn = dra_rf_put_arr(r->json, DRA_RF_WARNINGS)))
            return;
        json_array_append_new(warn, json_string(t));
    }
}

static void doc_finish(ctx_t *c)
{
    json_t *doc = c->run->json, *run = dra_rf_get(doc, DRA_RF_RUN);
    doc_warnings(c);
    dra_rf_put_str(doc, DRA_RF_STATUS, c->run->interrupted ? "interrupted" : "complete");
    char mode[32];
    snprintf(mode, sizeof mode, "%s",
             json_string_value(dra_rf_get(run, DRA_RF_RUN_INVARIANT_MODE)));
    json_t *inv = dra_rf_put_obj(doc, DRA_RF_INVARIANTS);
    dra_rf_put_str(inv, DRA_RF_INV_MODE, mode);
    dra_rf_put_int(inv, DRA_RF_INV_CHECKED, (int64_t)c->run->inv_checked);
    dra_rf_put_int(inv, DRA_RF_INV_VIOLATIONS, (int64_t)c->run->inv_violations);
    json_t *first = dra_rf_put_arr(inv, DRA_RF_INV_FIRST);
    for (uint32_t i = 0; first && i < c->run->nfirst; i++) {
        const dra_run_violation_t *v = &c->run->first[i];
        json_t *o = json_object();
        dra_rf_put_int(o, DRA_RF_FIRST_REPETITION, (int64_t)v->repetition);
        dra_rf_put_int(o, DRA_RF_FIRST_POD, v->pod == UINT64_MAX ? -1 : (int64_t)v->pod);
        dra_rf_put_str(o, DRA_RF_FIRST_CLAIM, v->claim);
        dra_rf_put_str(o, DRA_RF_FIRST_NODE, v->node);
        dra_rf_put_str(o, DRA_RF_FIRST_MESSAGE, v->message);
        json_array_append_new(first, o);
    }
    dra_rf_put_hex(doc, DRA_RF_DIGEST, c->run->digest);
    dra_rf_put_hex(run, DRA_RF_RUN_WORKLOAD_HASH, XXH3_64bits_digest(c->wl_dig));
    dra_rf_put_bool(doc, DRA_RF_DIGESTS_EQUAL, c->run->digests_equal);
    if (c->dp_set) { /* the first timed pass's data pages (datapages.h) */
        json_t *method = dra_rf_get(run, DRA_RF_RUN_METHOD);
        dra_rf_put_str(method, DRA_RF_METHOD_DATA_PAGES, dra_datapages_name(&c->dp));
        dra_rf_put_int(method, DRA_RF_METHOD_DATA_PAGES_BYTES, (int64_t)c->dp.bytes);
        dra_rf_put_int(method, DRA_RF_METHOD_DATA_PAGES_RESIDENT, (int64_t)c->dp.resident);
        dra_rf_put_int(method, DRA_RF_METHOD_DATA_PAGES_NS, c->dp_ns);
        if (c->dp.hook) { /* the allocation hook's blocks (hugemem.h) */
            dra_rf_put_int(method, DRA_RF_METHOD_DATA_PAGES_HOOK_BYTES, (int64_t)c->dp.hook_served);
            dra_rf_put_int(method, DRA_RF_METHOD_DATA_PAGES_HOOK_HUGE, (int64_t)c->dp.hook_huge);
        }
        if (!c->dp.huge)
            dra_rf_put_str(method, DRA_RF_METHOD_DATA_PAGES_REASON, c->dp.reason);
    }
    c->run->scenario = json_string_value(dra_rf_get(run, DRA_RF_RUN_SCENARIO));
}

static void ctx_fini(ctx_t *c)
{
    free(c->lay);
    dra_rgroups_free(c->groups);
    dra_anyalloc_free(&c->alloc);
    if (c->cel)
        dra_cel_cache_free(c->cel);
    if (c->state)
        dra_alloc_state_free(c->state);
    for (uint32_t i = 0; i < c->nslots; i++) {
        dra_arena_fini(c->slots[i].arena);
        free(c->slots[i].arena);
        free(c->slots[i].es.mem);
    }
    free(c->slots);
    free(c->recs);
    free(c->recbits);
    free(c->shape_free);
    free(c->hc_off);
    free(c->hc);
    free(c->hnodes);
    free(c->hev);
    free(c->hdevs);
    free(c->htaints);
    if (c->spare) {
        dra_arena_fini(c->spare);
        free(c->spare);
    }
    dra_arena_fini(&c->frag_arena);
    free(c->pod_slot);
    free(c->claim_slot);
    free(c->claim_refs);
    dra_engine_free(c->eng);
    free(c->plan);
    if (c->cmp_init)
        dra_anyalloc_free(&c->cmp);
    if (c->cmp_arena) {
        dra_arena_fini(c->cmp_arena);
        free(c->cmp_arena);
    }
    for (uint32_t i = 0; c->rh && i < c->nhists; i++)
        dra_hist_fini(&c->rh[i]);
    free(c->rh);
    if (c->dig)
        XXH3_freeState(c->dig);
    if (c->wl_dig)
        XXH3_freeState(c->wl_dig);
    if (c->rec_dig)
        XXH3_freeState(c->rec_dig);
    if (c->chk_dig)
        XXH3_freeState(c->chk_dig);
    if (c->inv_scratch_init)
        dra_inv_scratch_fini(&c->inv_scratch);
    free(c->pod_hash);
    free(c->plant_debt);
    free(c->rec_hash);
    free(c->rec_shape);
    free(c->reasons);
    dra_explainer_free(c->why);
    if (c->explain) {
        dra_arena_fini(c->explain);
        free(c->explain);
    }
    free(c->fdev);
    free(c->frag_inuse);
    free(c->frag_used);
    free(c->frag_idle);
    free(c->frag_set_used);
    free(c->frag_dom_tot);
    free(c->frag_dom_used);
    free(c->frag_live);
    free(c->frag_cand);
    free(c->frag_now);
    free(c->fcons);
    free(c->set_total);
    free(c->common);
    json_decref(c->frag_samples);
    free(c->claims);
    free(c->unsched);
    free(c->unsched_fatal);
    free(c->unsched_kind);
    free(c->xclaims);
    free(c->shape_names);
    dra_arena_fini(&c->table_arena);
    if (c->built_init)
        dra_scenario_built_fini(&c->built);
    if (c->model_init)
        dra_model_fini(&c->model);
    if (c->scn_loaded)
        dra_scenario_fini(&c->scn);
}

int dra_runner_run(const dra_runner_opts_t *o, dra_run_t *run, dra_diag_t *diag)
{
    memset(run, 0, sizeof *run);
    run->update_hist = UINT32_MAX;
    run->digests_equal = true;
    ctx_t *c = calloc(1, sizeof *c);
    if (!c)
        return DRA_ENOMEM;
    c->o = o;
    c->look = o->look_ahead;
    c->diag = diag;
    c->run = run;
    dra_hostinfo_t host;
    dra_hostinfo_collect(&host);
    int rc = setup(c);
    if (rc == DRA_OK) {
        run->seed = c->seed;
        run->nodes = c->model.nnodes;
        run->devices = c->model.ndevices;
        run->json = doc_begin(c, &host);
        if (!run->json)
            rc = DRA_ENOMEM;
        else
            dra_result_set_fingerprint(run->json);
    }
    if (rc == DRA_OK) {
        c->reps = dra_rf_get(run->json, DRA_RF_REPETITIONS);
        bool intr = false;
        for (uint32_t r = 0; rc == DRA_OK && r < c->nreps && !intr; r++) {
            rc = run_measured(c, r, &intr);
            if (rc == DRA_OK && !intr && o->progress)
                o->progress(o->progress_ctx, false, r, c->nreps, c->pods, c->built.workload.count,
                            true, run);
        }
        run->interrupted = intr;
        run->complete = !intr && rc == DRA_OK;
        if (rc == DRA_OK) {
            summarize(c);
            doc_finish(c);
        }
    }
    if (rc != DRA_OK) {
        if (diag && diag->code == DRA_OK)
            dra_diag_set(diag, rc, NULL, 0, 0, "%s", dra_strerror(rc));
        dra_diag_detach(diag); /* its file name may live in the model or scenario freed here */
        ctx_fini(c);
        free(c);
        dra_run_fini(run);
        return rc;
    }
    ctx_fini(c);
    free(c);
    return DRA_OK;
}

void dra_run_fini(dra_run_t *run)
{
    json_decref((json_t *)run->json);
    for (uint32_t i = 0; run->hists && i < run->nhists; i++)
        dra_hist_fini(&run->hists[i]);
    free(run->hists);
    for (uint32_t i = 0; run->hist_names && i < run->nhists; i++)
        free(run->hist_names[i]);
    free(run->hist_names);
    for (uint32_t i = 0; run->shapes && i <= run->nshapes; i++)
        free((char *)run->shapes[i].name);
    free(run->shapes);
    free(run->groups_summary);
    memset(run, 0, sizeof *run);
}

int dra_run_exit_status(const dra_run_t *run)
{
    return run->inv_violations ? 3 : 0;
}
