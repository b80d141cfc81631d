/*
 * rload.h - load `drabench run` result files (schema drabench-result/v1, results/README.md) for
 * the readers: compare, report, export and baseline.
 *
 * Purpose: turn one result file into a plain, arena-owned struct: build and host facts, run
 * inputs (scenario, hashes, seed, release, policy), every measured repetition with its metric
 * values, histograms (bucket dumps), fragmentation samples, invariant counts and digests, and
 * the metric catalogue. The jansson tree is released before returning (STYLE §2.5).
 *
 * Validation: the file must be JSON (jansson json_loadb with JSON_REJECT_DUPLICATES) whose
 * `schema` is "drabench-result/v1"; then the fields are checked and stored as schema.def
 * describes them (the lenient walk of schema.h): `run.scenario`, `repetitions` and each
 * repetition's `values` are required; every other documented key is optional (absent or null
 * strings read as "", numbers as 0), unknown keys are ignored, but a key that is present with
 * the wrong type, outside its range (counts >= 0) or its allowed values, or a hash or digest
 * that is not 16 lower-case hex digits, is an error. A metric value that is `null` (undefined statistic)
 * is skipped, not an error. Parse errors name file:line:col; semantic errors name the file, the
 * line:col of the field (found by parsing the text again, only on error) and the JSON path
 * ("repetitions[2].values.throughput.claims_per_s: expected a number, got string").
 * Result files are untrusted (they reach gnuplot, HTML, Markdown, benchfmt and terminals): no
 * string may hold a control character (C0, DEL, C1) or a bidi control; names (the NAME fields
 * of schema.def: metric keys, histogram name/shape/phase/outcome, units, seed, release, policy,
 * allocator, tool version/git/build type, kernel, feature gates, ...) are limited to
 * [A-Za-z0-9._/:+=,@%-] and 256 bytes; status is "complete" or "interrupted"; host.date holds
 * RFC 3339 characters only.
 * Histograms: sigfigs 1..5, highest >= 2 * lowest, at most 2^40 samples in one histogram and
 * 2^44 in one file (readers pool counts in int64_t).
 *
 * Ownership: everything a dra_rload_result_t points to (strings included) lives in its arena;
 * dra_rload_fini releases it. Errors: DRA_OK, DRA_ENOTFOUND (no such file), DRA_EIO (unreadable),
 * DRA_ELIMIT (> 1 GiB),
 * DRA_EPARSE (not JSON), DRA_EVALIDATE (wrong schema or types), DRA_ENOMEM; diag says why.
 * Cost: O(file size). Thread-safety: independent results may be loaded concurrently.
 */
#ifndef DRA_RLOAD_H
#define DRA_RLOAD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/arena.h"
#include "base/err.h"

/* The schema this drabench writes and reads (schema.def holds its fields). */
#define DRA_RESULT_SCHEMA "drabench-result/v1"
#define DRA_RLOAD_SCHEMA  DRA_RESULT_SCHEMA
/* What the timing metrics mean (run.method.timing_version; files without it are version 1):
 * 1 - throughput.claims_per_s and pods_per_s divide every submitted claim (pod) by all timed
 *     work, latency.pod.* and latency.<shape>.* are of every pod, allocated or not, and the
 *     invariant checks ran between the timed pods;
 * 2 - throughput counts allocated claims (placed pods) per second of the time spent on them,
 *     rejections have their own rate and rejection.* latencies, latency.* are of placed pods
 *     only, and the checks run in an untimed second pass (runner.h);
 * 3 - as 2, and on a scenario with PodGroups (mix entries with `group`) the group cycles' claims
 *     and timed work count in the throughput and rejections (runner_groups.h, dra_rg_counts_t);
 *     before, throughput.claims_per_s of such a run counted its single pods only. A run without
 *     PodGroups still writes version 2: nothing of its timings changed, and its files compare
 *     with older ones.
 * Timings of different versions are not compared (compare refuses them, as across hosts). */
#define DRA_RESULT_TIMING_VERSION 3
#define DRA_RESULT_TIMING_VERSION_NO_GROUPS 2 /* what a run without PodGroups writes */

/* Direction of a metric (`better` in the catalogue). */
enum {
    DRA_RLOAD_BETTER_NONE = 0, /* informational: never gates */
    DRA_RLOAD_BETTER_HIGHER = 1,
    DRA_RLOAD_BETTER_LOWER = -1,
};

typedef struct dra_rload_metric {
    const char *name;
    const char *unit; /* "" when unknown */
    int better;       /* DRA_RLOAD_BETTER_* */
    bool exact;       /* deterministic (benchstat assume=exact) */
} dra_rload_metric_t;

/* A histogram dump: recording bucket_count[i] at bucket_value[i] rebuilds it exactly. */
typedef struct dra_rload_hist {
    const char *name, *shape, *phase, *outcome;
    int64_t lowest, highest;
    int sigfigs;
    int64_t count, min, max;
    double mean, stddev;
    size_t nbuckets;
    int64_t *bucket_value;
    int64_t *bucket_count;
} dra_rload_hist_t;

/* groups.domains[]: one topology key's domain occupancy (scenarios with PodGroups) */
typedef struct dra_rload_domains {
    const char *key;
    int64_t total, gpus;
    size_t nrows, ncols; /* samples: rows of [t, full, partial, idle, stranded_gpus] */
    double *samples;
} dra_rload_domains_t;

/* groups.entries[]: one PodGroup mix entry's group outcomes (scenarios with PodGroups) */
typedef struct dra_rload_group {
    const char *shape, *policy; /* the entry's name; "gang" | "basic" ("" when absent) */
    int64_t pods, min_count, cycles, placed, partial, unschedulable, waiting, error, retries,
        waited, still_waiting;
    double wait_s_mean, wait_s_max; /* workload seconds */
} dra_rload_group_t;

typedef struct dra_rload_rep {
    int64_t index, wall_ns, pods, claims;
    /* times the kernel took the CPU from the run during the measured loop (involuntary context
     * switches); 0 in files that do not record it */
    int64_t preemptions;
    /* work (timing version 2): allocated and rejected claims and the timed work on each; 0 in
     * older files */
    int64_t allocated_claims, allocated_ns, rejected_claims, rejected_ns;
    int64_t allocated, unsatisfiable, node_failure, fatal; /* outcomes */
    size_t nvalues;
    const char **value_names; /* in file order; values[i] belongs to value_names[i] */
    double *values;
    size_t nhists;
    dra_rload_hist_t *hists;
    /* fragmentation.samples: nfrag_rows rows of nfrag_cols numbers (t first) */
    double idle_gpus_unusable, stranded_mig_fraction, partial_nvlink_domains;
    size_t nfrag_rows, nfrag_cols;
    double *frag;
    int64_t inv_checked, inv_violations;
    const char *digest;
    size_t ndomains;
    dra_rload_domains_t *domains; /* groups.domains, NULL without PodGroups */
    size_t ngroups;
    dra_rload_group_t *groups; /* groups.entries, NULL without PodGroups */
} dra_rload_rep_t;

typedef struct dra_rload_result {
    const char *path; /* as given to the loader */
    const char *status;
    /* tool */
    const char *tool_version, *tool_git, *build_type, *compiler, *flags, *sanitize, *kernel;
    bool native;
    /* host */
    const char *hostname, *date, *host_kernel, *cpu_model, *governor;
    int64_t cpus;
    double mhz; /* 0 when null/unknown */
    double load1; /* host.load_avg[0] at the start of the run; -1 when unknown */
    /* run */
    const char *scenario, *scenario_hash, *cluster_hash, *workload_hash, *seed, *seed_hex;
    const char *release, *allocator, *policy, *invariant_mode;
    const char *features; /* canonical "gate=true,..." (sorted, the gates on: one off or not
                           * listed is the same input) for equality checks */
    bool upstream_bugs;
    bool has_test_delay;
    int64_t test_delay_ns;
    double test_slowdown_pct; /* run.test_slowdown_pct; 0 when none */
    int64_t timing_version;   /* run.method.timing_version; 1 when the file does not say */
    const char *release_look_ahead; /* run.method.release_look_ahead (drabench run
                                       --release-look-ahead): where the release look-ahead ran,
                                       "timed" when the file does not say */
    int64_t peak_rss_bytes;   /* memory.peak_rss_bytes; 0 when unknown */
    int64_t warmup, repetitions_planned;
    int64_t workload_count;      /* run.workload_count; 0 when the file does not say */
    int64_t timer_resolution_ns; /* run.method.timer_resolution_ns; 0 when unknown */
    int64_t timer_step_ns;       /* run.method.timer_step_ns: the step the clock's readings
                                    advance by, measured (harness/bench/clockstep.h); 0 when
                                    the file does not say */
    const char *fingerprint;     /* dra_host_fingerprint of the file's host and tool facts (hex),
                                    computed on load whatever host.fingerprint says */
    /* `decisions` (first measured repetition): per pod in arrival order its mix entry (index
     * into dec_shapes) and a 32-bit hash of its outcome, node and devices; dec_pods 0 when the
     * file has none or it does not decode */
    size_t ndec_shapes;
    const char **dec_shapes;
    size_t dec_pods;
    uint8_t *dec_shape;
    uint32_t *dec_hash;
    /* cluster */
    int64_t nodes, slices, devices, arena_high_water_bytes;
    /* measurements */
    size_t nreps;
    dra_rload_rep_t *reps;
    size_t nmetrics;
    dra_rload_metric_t *metrics;
    /* invariants (totals) */
    int64_t inv_checked, inv_violations;
    size_t nfirst;
    const char **first; /* "repetition R pod P claim C node N: message" */
    const char *digest;
    dra_arena_t arena;
} dra_rload_result_t;

/* Read and load a result file. On error *out is left empty (dra_rload_fini is still safe). */
DRA_NODISCARD int dra_rload_file(const char *path, dra_rload_result_t *out, dra_diag_t *diag);
/* The largest result file dra_rload_file reads (DRA_ELIMIT beyond). */
#define DRA_RLOAD_MAX_FILE ((size_t)1 << 30)
/* Load from memory; name is used in messages and as out->path. */
DRA_NODISCARD int dra_rload_buf(const char *buf, size_t len, const char *name,
                                dra_rload_result_t *out, dra_diag_t *diag);
void dra_rload_fini(dra_rload_result_t *r);

/* Catalogue entry of a metric, or NULL when the file does not describe it. */
const dra_rload_metric_t *dra_rload_metric(const dra_rload_result_t *r, const char *name);
/* Value of metric `name` in repetition rep; false when absent (or null in the file). */
bool dra_rload_value(const dra_rload_rep_t *rep, const char *name, double *out);
/* Default direction for a metric the catalogue does not describe: throughput.* higher,
 * latency.* / table.* / search.* lower, anything else informational. */
int dra_rload_default_better(const char *metric);

#endif /* DRA_RLOAD_H */
