/*
 * compare.h - A/B comparison of drabench result files and the regression gate
 * (`drabench compare BASE... -- NEW...`).
 *
 * Purpose: pool the repetitions of every result file of one side per scenario (each repetition
 * is one sample of each metric in its `values`), then per scenario and metric: the median with a
 * 95% distribution-free confidence interval, the change of the medians in percent, and the
 * two-sided Mann-Whitney U test (alpha 0.05) - benchstat's "assume nothing" model (stats.h);
 * per metric a geometric-mean row over the scenarios both sides measured. Deterministic
 * metrics (catalogue `exact`) are compared without statistics: any difference of the medians is
 * significant (benchstat's assume=exact).
 *
 * Correctness checks, reported prominently:
 *  - decision digest changes: two files (of different sides, or of one side) whose inputs are
 *    equal - scenario hash, seed, release profile, feature gates, upstream-bug mode, policy and
 *    workload count -
 *    but whose decision digests differ, or a repetition whose digest differs from its file's:
 *    the same inputs produced different allocations;
 *  - invariant violations in any file (either side);
 *  - scenarios present on one side only (informational).
 *
 * Gate (exit status, STYLE §3.4): a row is a regression when its change is significant, in the
 * bad direction of the metric (`better` higher|lower; informational metrics never gate),
 * larger than its threshold (--threshold for all metrics, default 5%, or a gate file's rules)
 * and, for timing rows where both sides have finite confidence intervals of the median (n >= 6),
 * those intervals do not overlap (many metrics are tested at once: the U test alone at alpha
 * 0.05 fires on noise somewhere in most comparisons); otherwise it is "worse".
 * What the gate does not gate, and what it refuses:
 *  - noise floor: a latency (unit ns) whose medians differ by less than max(100 ns, the timer's
 *    resolution, one step of its readings and 1 ns (run.method.timer_step_ns), two histogram
 *    buckets at that value) is "~ (noise)", never a regression;
 *  - size: a latency percentile pXX of a shape (latency.* of placed pods, rejection.* of
 *    rejected ones) is gated only when every repetition had at least max(100, 10 / (1 - q))
 *    such pods of that shape (p50, p90: 100, p99: 1000, p999: 10000); `.max` never;
 *  - inconclusive: a gated timing row whose U test cannot reach alpha with the samples it has
 *    (fewer than 4 per side at 0.05) is "inconclusive", never "~";
 *  - hosts: timing rows of files with different host fingerprints (hostinfo.h) are not compared
 *    (inconclusive) unless exact_only, which drops them on purpose; exact rows, digests and
 *    invariants still are;
 *  - inputs: files of one scenario whose inputs differ (scenario hash, --count, seed, release
 *    profile and gates, policy, allocator) are "not comparable" (exit 2) unless the dimension
 *    is named in `across`; then decision changes are information (per shape: outcome counts
 *    and, from the files' per-pod `decisions`, the pods whose outcome, node or devices
 *    changed; per PodGroup mix entry the group outcomes: policy, cycles by outcome, queue
 *    waits), exact metrics do not gate, nor do the aggregates over every shape (throughput.*,
 *    latency.pod.*, rejection.pod.*: they move with the mix of claims that fit); the per-shape
 *    latencies of placed pods gate, and a "fit and speed" summary per scenario says apart
 *    whether more claims fit and whether the allocator got slower;
 *  - timing definitions: files of different timing versions (rload.h) are refused as files of
 *    different hosts are;
 *  - a significant timing change smaller than a median's confidence interval is flagged (³);
 *  - interrupted files are excluded; a file with no repetitions or no values is invalid
 *    (exit 2); a scenario with a complete base file and no complete new file fails the gate.
 * dra_compare_run sets report->exit_status: 2 when report->nerrors (not comparable or invalid),
 * else 3 (DRA_EXIT_CORRECTNESS) when any invariant was violated or a digest changed (unless
 * allow_digest_change), else 1 when any row regressed or a scenario went missing, else 5
 * (DRA_EXIT_INCONCLUSIVE) when a gated row was inconclusive or refused, else 0.
 *
 * Gate file (YAML or JSON; see dra_compare_gate_parse):
 *     default: 5%                      # metrics no rule names; "off" = report only
 *     alpha: 0.05                      # optional significance level
 *     noise_floor: 100ns               # optional: latency changes below it are noise (ns, us, ms; <= 3600000ms)
 *     metrics:                         # first matching rule wins; shell patterns (fnmatch)
 *       throughput.claims_per_s: 5%
 *       "latency.pod.*": 10%
 *       search.cel_evaluations: 0%     # deterministic: any increase fails
 *       "latency.*.p999": off
 *       table.bytes_per_device: {threshold: 1%, better: lower}
 *
 * Ownership: a dra_compare_report_t owns everything it points to (its arena) except the loaded
 * results, which must outlive it (rows point at their scenario and metric names).
 * Errors: DRA_OK, DRA_ENOMEM, DRA_EINVAL (bad options), DRA_EPARSE / DRA_EVALIDATE (gate file).
 * Cost: O(scenarios x metrics x samples log samples); the exact U test is O(n^3) for n <= 50.
 * Thread-safety: none needed; no global state.
 */
#ifndef DRA_COMPARE_H
#define DRA_COMPARE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "base/arena.h"
#include "base/err.h"
#include "rload.h"

#define DRA_COMPARE_DEFAULT_THRESHOLD 0.05
#define DRA_COMPARE_NOISE_FLOOR_NS 100.0
/* Fewest pods of a shape per repetition for any of its latency percentiles to gate. */
#define DRA_COMPARE_MIN_PODS 100

/* Inputs a comparison may cross on purpose (--across). */
enum {
    DRA_ACROSS_RELEASE = 1,   /* release profile, feature gates, upstream-bug mode */
    DRA_ACROSS_POLICY = 2,
    DRA_ACROSS_SEED = 4,
    DRA_ACROSS_COUNT = 8,     /* workload arrivals (--count) */
    DRA_ACROSS_ALLOCATOR = 16,
};
/* "release,policy" -> mask; false on an unknown name. */
bool dra_compare_parse_across(const char *s, unsigned *mask);
#define DRA_COMPARE_SCHEMA "drabench-compare/v1"

/* ---- gate file ------------------------------------------------------------------------------ */

typedef struct dra_compare_gate_rule {
    const char *pattern; /* fnmatch pattern on the metric name */
    double threshold;    /* fraction (0.05 = 5%); negative = off (report only) */
    int better;          /* DRA_RLOAD_BETTER_*, or 2 = keep the catalogue's direction */
} dra_compare_gate_rule_t;

typedef struct dra_compare_gate {
    const char *path;
    bool has_default, has_alpha, has_noise_floor;
    double default_threshold; /* fraction; negative = off */
    double alpha;
    double noise_floor_ns;    /* noise_floor: "100ns", "1us", "0" */
    size_t nrules;
    dra_compare_gate_rule_t *rules;
    dra_arena_t arena;
} dra_compare_gate_t;

#define DRA_GATE_KEEP_BETTER 2

/* Parse "5%", "0.5%", "5" (percent), "0" or "off" into a fraction (off: -1). False on junk or a
 * negative or non-finite value. */
bool dra_compare_parse_threshold(const char *s, double *out);
/* Parse a gate file (YAML or JSON, by content) from memory; errors name file:line:col. */
DRA_NODISCARD int dra_compare_gate_parse(const char *buf, size_t len, const char *name,
                                         dra_compare_gate_t *out, dra_diag_t *diag);
DRA_NODISCARD int dra_compare_gate_load(const char *path, dra_compare_gate_t *out,
                                        dra_diag_t *diag);
void dra_compare_gate_fini(dra_compare_gate_t *g);

/* ---- comparison ----------------------------------------------------------------------------- */

typedef struct dra_compare_opts {
    double alpha;            /* 0 = DRA_STATS_ALPHA (or the gate file's) */
    double confidence;       /* 0 = DRA_STATS_CONFIDENCE */
    double threshold;        /* fraction for every metric when no gate file; negative = off */
    const dra_compare_gate_t *gate;  /* optional; overrides threshold */
    bool allow_digest_change;
    double noise_floor_ns;   /* latency changes below max(this, timer, its step + 1, one
                                bucket) are noise;
                                default DRA_COMPARE_NOISE_FLOOR_NS, 0 = only timer and bucket
                                (a gate file's noise_floor overrides) */
    unsigned across;         /* DRA_ACROSS_* the user compares across on purpose */
    bool exact_only;         /* compare exact metrics, digests and invariants only */
} dra_compare_opts_t;

/* Initialise opts with the defaults (alpha 0.05, confidence 0.95, threshold 5%). */
void dra_compare_opts_init(dra_compare_opts_t *o);

typedef enum dra_compare_verdict {
    DRA_CMP_MISSING = 0, /* the metric has no samples on one side */
    DRA_CMP_NOCHANGE,    /* not significant ("~") */
    DRA_CMP_IMPROVED,    /* significant, good direction */
    DRA_CMP_WORSE,       /* significant, bad direction, within the threshold */
    DRA_CMP_REGRESSION,  /* significant, bad direction, beyond the threshold: gates */
    DRA_CMP_CHANGED,     /* significant, informational metric (or gate off, or not gated) */
    DRA_CMP_INCONCLUSIVE, /* gated, but the U test cannot reach alpha with these samples */
    DRA_CMP_REFUSED,     /* timing row of files from different hosts: not compared */
} dra_compare_verdict_t;

/* Name of a verdict: "missing", "no change", "improved", "worse", "regression", "changed",
 * "inconclusive", "refused". */
const char *dra_compare_verdict_name(dra_compare_verdict_t v);

typedef struct dra_compare_side_stat {
    size_t n;
    double median;
    double lo, hi;   /* confidence interval of the median; -inf/+inf when too few samples */
    bool ci_finite;
} dra_compare_side_stat_t;

typedef struct dra_compare_row {
    const char *scenario;
    const char *metric;
    const char *unit;
    int better; /* DRA_RLOAD_BETTER_* after the gate's override */
    bool exact;
    dra_compare_side_stat_t base, cur; /* cur = the new side */
    double delta;     /* cur.median / base.median - 1; +-inf when base is 0, NaN when missing */
    double p;         /* U test p-value; NaN for exact metrics or a missing side */
    bool significant;
    bool few_samples; /* fewer than 4 samples on a side: the U test cannot reach alpha 0.05 */
    double threshold; /* fraction; negative = off */
    bool below_floor; /* latency change smaller than floor_ns: noise */
    double floor_ns;  /* the noise floor applied (ns metrics), else 0 */
    const char *not_gated; /* why a gated metric is reported only ("few pods ..."), or NULL */
    dra_compare_verdict_t verdict;
} dra_compare_row_t;

/* Per scenario and shape, with --across: pod outcomes of the first repetition of each side (from
 * the <shape>/pod/{any,allocated,unsatisfiable} histograms). */
typedef struct dra_compare_shape_change {
    const char *scenario, *shape;
    long long base_pods, base_allocated, base_unsat;
    long long cur_pods, cur_allocated, cur_unsat;
    bool digest_differs; /* the files' decision digests differ */
    /* pods of this shape compared one to one (same arrival, same mix entry) from the files'
     * `decisions`, and how many of them changed outcome, node or devices; -1 when the files
     * have no such records or their arrivals differ */
    long long pods_compared, pods_changed;
} dra_compare_shape_change_t;

/* Per scenario and PodGroup mix entry, with --across: the group outcomes of the first
 * repetition of each side (the files' groups.entries: policy and minCount, cycles placed /
 * partial / unschedulable, queue waits). has_base / has_new: that side's file has the entry
 * (the strings point into the loaded results). */
typedef struct dra_compare_group_change {
    const char *scenario, *shape;
    bool has_base, has_new;
    dra_rload_group_t base, cur;
} dra_compare_group_change_t;

typedef struct dra_compare_geomean {
    const char *metric;
    const char *unit;
    size_t n; /* scenarios included (both medians > 0) */
    double base, cur, delta;
} dra_compare_geomean_t;

typedef struct dra_compare_digest_change {
    const char *scenario;
    const char *seed;
    const char *where; /* "base->new", "base", "new" (within one side) or "repetition" */
    const char *file_a, *digest_a;
    const char *file_b, *digest_b;
} dra_compare_digest_change_t;

typedef struct dra_compare_violation {
    const char *side; /* "base" or "new" */
    const char *file, *scenario;
    long long count;
    const char *first; /* first recorded violation, "" if none */
} dra_compare_violation_t;

typedef struct dra_compare_file {
    const char *side;
    const dra_rload_result_t *r;
} dra_compare_file_t;

typedef struct dra_compare_report {
    double alpha, confidence;
    bool allow_digest_change;
    const char *gate_path; /* NULL without a gate file */
    double threshold;      /* the default threshold in force */
    size_t nfiles;
    dra_compare_file_t *files; /* base files first */
    size_t nrows;
    dra_compare_row_t *rows; /* grouped by metric (catalogue order), scenarios in file order */
    size_t ngeo;
    dra_compare_geomean_t *geo;
    size_t ndigest;
    dra_compare_digest_change_t *digest;
    size_t nviol;
    dra_compare_violation_t *viol;
    size_t nonly_base, nonly_new;
    const char **only_base, **only_new;
    size_t nwarn;
    const char **warn; /* human warnings (interrupted files, mixed hosts, few samples) */
    size_t nregressions, nimproved;
    size_t ninconclusive, nrefused;
    size_t nerrors;
    const char **errors;  /* not comparable / invalid input: exit 2 */
    size_t nmissing;
    const char **missing; /* scenarios with a complete base file and no complete new file */
    const char *host_diff; /* "cpu_model 'A' vs 'B', kernel ..." when fingerprints differ, or NULL */
    unsigned across;
    bool exact_only;
    const char *across_diff; /* the inputs that differ across the sides (with across), or NULL */
    size_t nshape_changes;
    dra_compare_shape_change_t *shape_changes;
    size_t ngroup_changes;
    dra_compare_group_change_t *group_changes; /* scenarios with PodGroups, file order */
    int exit_status;
    dra_arena_t arena;
} dra_compare_report_t;

/* Compare base[0..nbase) with cur[0..ncur) (each side >= 1 file). */
DRA_NODISCARD int dra_compare_run(const dra_rload_result_t *base, size_t nbase,
                                  const dra_rload_result_t *cur, size_t ncur,
                                  const dra_compare_opts_t *opts, dra_compare_report_t *out);
void dra_compare_fini(dra_compare_report_t *r);

/* Output formats. Text: benchstat-like tables with box characters; Markdown: the same tables
 * for release reviews; JSON: schema drabench-compare/v1 (keys sorted, NaN/inf as null).
 * Return DRA_OK or DRA_EIO / DRA_ENOMEM. */
DRA_NODISCARD int dra_compare_write_text(const dra_compare_report_t *r, FILE *f);
DRA_NODISCARD int dra_compare_write_md(const dra_compare_report_t *r, FILE *f);
DRA_NODISCARD int dra_compare_write_json(const dra_compare_report_t *r, FILE *f);
/* The gate's verdict lines on f (scheduler_perf style: "expected M of S to be lower: got X,
 * want <= Y"), one per regression, digest change and violation. */
void dra_compare_write_gate_lines(const dra_compare_report_t *r, FILE *f);

/* ---- shared formatting (also used by report) ------------------------------------------------ */

/* Display unit of a metric unit: "ns" -> "sec" (values are scaled to seconds), others as is. */
const char *dra_compare_display_unit(const char *unit);
/* Value in its display unit with an SI prefix and 4 significant digits ("12.35µ", "1.234k",
 * "0"); bytes use binary prefixes ("1.50Ki"). Returns buf. */
const char *dra_compare_fmt_value(double v, const char *unit, char *buf, size_t len);
/* Value with its unit as prose reads it: "6.611 µs" (ns values scaled to seconds), "1.234M
 * claims/s", "1.50 KiB", "12.35k" (counts and fractions without a unit). Returns buf. */
const char *dra_compare_fmt_value_unit(double v, const char *unit, char *buf, size_t len);
/* A significant timing row whose change is smaller than the confidence interval of a median
 * (the tables' footnote ³). */
bool dra_compare_row_ci_wider(const dra_compare_row_t *row);
/* Order of metric names in reports: throughput, pod latency (p50 < p90 < p99 < p999 < max),
 * other latencies, then the rest by name. strcmp-like. */
int dra_compare_metric_order(const char *a, const char *b);

#endif /* DRA_COMPARE_H */
