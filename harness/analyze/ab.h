/*
 * ab.h - the statistics and the report of an interleaved A/B sitting (`drabench ab`): two
 * builds of drabench timed on the same scenarios in alternating fresh processes. The processes
 * are run by the command (harness/cli/cmd_ab.c); this module holds what they measured and judges
 * it.
 *
 * Method (../shared/docs/MEASUREMENT.md, README "What the gate trusts"): a round is one process
 * of each side on one scenario, in an order drawn at random per round; each process gives one
 * sample per metric: its best repetition (other programs only add time; or, as chosen, the
 * median of its repetitions). A process is one draw of the layout, frequency and neighbours a
 * user's next run gets; repetitions inside it are not independent samples of that. A/A
 * rounds - build A on both sides - are interleaved among the A/B rounds of the same sitting.
 * Per scenario and metric:
 *  - d_i = ln(B_i / A_i) per A/B round; the ratio is exp(median d) with a percentile-bootstrap
 *    interval of that median (s->resamples resamples from s->seed), and the two-sided
 *    Wilcoxon signed-rank test on d gives p (stats.h);
 *  - the noise floor: how far an A/A comparison of as many rounds as there are A/B rounds
 *    strays in this sitting (bias between the two slots of a round included): the bootstrap
 *    interval of the median of that many draws, and its bound farthest from 0, drawn from the
 *    A/A rounds' log-ratios e_j (the process counted as B drawn at random) together with the
 *    A/B ones re-centred at the A/A median (d_i - median d + median e): the centre (slot bias)
 *    is the A/A rounds', the spread is measured on every round (from 3 A/A rounds alone the
 *    interval is about their range, and one disturbed process set the floor). A change
 *    smaller than it is not a finding;
 *  - verdict: REGRESSION when p < alpha, the interval excludes 1, the change is in the bad
 *    direction of the metric and |ln ratio| exceeds both ln(1 + threshold) and the noise floor;
 *    IMPROVED likewise in the good direction; WORSE / BETTER when significant but within the
 *    threshold or below the floor (the note says which); NO CHANGE when not significant;
 *    INCONCLUSIVE with fewer than DRA_AB_MIN_ROUNDS A/B rounds (the signed-rank test cannot
 *    reach 0.05 with 5) or fewer than DRA_AB_MIN_AA A/A rounds, or when the builds define the
 *    timings differently (their result files' timing versions differ, rload.h).
 * Extension (`--extend X`, off by default): after the planned rounds, a scenario where a gated
 * metric's floor is above the threshold - the only case where the floor, not the threshold,
 * decides whether a significant change is a regression - gets up to X times its rounds more
 * (A/B and A/A in its ratio, drawn from the same generator, so --seed reproduces them) and is
 * judged again over all its rounds; the trigger reads the floor alone (dra_ab_extend_trigger).
 * A scenario that is not extended is judged exactly as without the option.
 * The status of the sitting is compare's (exitcode.h): 3 when a process reported a correctness
 * failure (set by the command), else 1 on any regression, else 5 on anything inconclusive, else
 * 0. The command sets 2 (usage, a process refusing its options) and 4 (environment) itself.
 *
 * Ownership: a dra_ab_session_t owns everything it points to (its arena); strings given to it
 * are copied. Errors: DRA_OK, DRA_ENOMEM, DRA_EINVAL (a scenario or metric index out of range).
 * Cost: dra_ab_analyze is O(scenarios x metrics x resamples x rounds log rounds); the writers
 * are linear. No global state; not thread-safe.
 */
#ifndef DRA_AB_H
#define DRA_AB_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "base/arena.h"
#include "base/err.h"

#define DRA_AB_SCHEMA "drabench-ab/v1"
/* Fewest A/B rounds the signed-rank test can judge at alpha 0.05 (2 / 2^6 = 0.031), and fewest
 * A/A rounds for a noise floor. */
#define DRA_AB_MIN_ROUNDS 6
#define DRA_AB_MIN_AA     3
/* Defaults of the command (README "What the gate trusts" gives the rates measured with them). */
#define DRA_AB_DEFAULT_ROUNDS    30
#define DRA_AB_DEFAULT_AA        10
#define DRA_AB_DEFAULT_THRESHOLD 0.05
#define DRA_AB_DEFAULT_ALPHA     0.05
#define DRA_AB_DEFAULT_METRIC    "throughput.claims_per_s"
/* The metric a scenario that allocates nothing is judged by instead. */
#define DRA_AB_REJECTION_METRIC "throughput.rejections_per_s"

typedef enum dra_ab_verdict {
    DRA_AB_NOCHANGE = 0,
    DRA_AB_REGRESSION,
    DRA_AB_IMPROVED,
    DRA_AB_WORSE,  /* significant, bad direction, within the threshold or the noise floor */
    DRA_AB_BETTER, /* significant, good direction, within them */
    DRA_AB_INCONCLUSIVE,
} dra_ab_verdict_t;

/* "no change", "regression", "improved", "worse", "better", "inconclusive". */
const char *dra_ab_verdict_name(dra_ab_verdict_t v);

typedef struct dra_ab_round {
    uint32_t index; /* order in the sitting (0-based, over every scenario) */
    bool aa;        /* an A/A round: build A on both sides */
    bool extension; /* run by the extension of the sitting (--extend) */
    bool b_first;   /* the process counted as B ran first */
    double load1;   /* 1-minute load average when the round started; -1 when unknown */
    double *a, *b;  /* per metric of the scenario; NaN when the process had no value */
} dra_ab_round_t;

typedef struct dra_ab_stat {
    size_t n, n_aa;       /* A/B and A/A rounds with both values positive */
    double ratio, lo, hi; /* B / A: exp(median ln(B/A)) and its interval; NaN without rounds */
    double slowdown;      /* B's time against A's, as a fraction: 1/ratio - 1 for a
                              higher-is-better metric (a rate), ratio - 1 for a lower-is-better
                              one (a latency); NaN for informational metrics */
    double p;             /* Wilcoxon signed-rank, two-sided; NaN without rounds */
    double aa_ratio;      /* exp(median of the A/A log-ratios) */
    double aa_lo, aa_hi;  /* interval of the median of n draws from the A/A log-ratios and the
                             A/B ones re-centred at the A/A median (the floor's range) */
    double noise;         /* noise floor as |ln ratio|; NaN without A/A rounds */
    double aa_only_lo, aa_only_hi; /* the same interval from the A/A log-ratios alone */
    double noise_aa_only; /* the floor they would give (before 0.5.1; reported, not used) */
    bool floor_above;     /* the floor decides: the verdict rules reached the comparison with
                             the floor (not inconclusive, a gated metric) and the floor is above
                             the threshold (noise > ln(1 + threshold)), so a change between the
                             two is "worse" or "better", not a regression or an improvement;
                             what `--extend` triggers on (dra_ab_extend_trigger) */
    dra_ab_verdict_t verdict;
    const char *note; /* why: "within the 5% threshold", "fewer than 6 rounds", ... or "" */
} dra_ab_stat_t;

/* The extension of a scenario's rounds (`drabench ab --extend X`, dra_ab_extend_trigger). */
typedef struct dra_ab_extension {
    bool triggered;          /* after the planned rounds a metric's floor was above the threshold */
    size_t metric;           /* the first such metric */
    double floor;            /* its floor then, as |ln ratio| */
    size_t planned_ab, planned_aa; /* the rounds run before it */
    size_t want_ab, want_aa; /* the rounds the cap (--extend) gives */
    size_t ab, aa;           /* the rounds run in it */
    double left_s;           /* the budget's seconds left when it was decided; NaN without one */
    double cost_s;           /* seconds a round of the scenario cost in the planned rounds */
    bool budget_cut;         /* the budget gave fewer rounds than the cap (ab + aa may be 0) */
    dra_ab_stat_t *before;   /* per metric: the statistics of the planned rounds (triggered) */
} dra_ab_extension_t;

typedef struct dra_ab_scenario {
    const char *name; /* scenario name or path, as given */
    char **args;      /* its `drabench run` options */
    size_t nargs;
    size_t nmetrics;
    const char **metrics;    /* metric names */
    const char **units;      /* from the result files' catalogue ("" when unknown) */
    int *better;             /* DRA_RLOAD_BETTER_* */
    const char *metric_note; /* why the metrics differ from the defaults, or NULL */
    size_t nrounds, cap_rounds;
    dra_ab_round_t *rounds;
    const char *digest_a, *digest_b; /* decision digests of the first process of each side */
    int64_t timing_a, timing_b;      /* timing versions of the sides' result files (0 unknown) */
    dra_ab_stat_t *stats;            /* per metric, after dra_ab_analyze */
    dra_ab_extension_t ext;          /* zero unless --extend was given and it triggered */
} dra_ab_scenario_t;

typedef struct dra_ab_side {
    const char *exe; /* the executable run */
    const char *rev; /* the git revision it was built from, or NULL */
    const char *git; /* `tool.git` of its result files ("" until known) */
    char **env;      /* VAR=VALUE set for this side's processes only */
    size_t nenv;
    char **args; /* run options of this side's processes only */
    size_t nargs;
} dra_ab_side_t;

typedef struct dra_ab_session {
    dra_ab_side_t a, b;
    size_t nscen;
    dra_ab_scenario_t *scen;
    /* method */
    uint64_t seed;     /* order of the rounds and of each pair, and the bootstraps */
    size_t rounds, aa; /* planned per scenario */
    int pin;           /* CPU every process was pinned to, -1 = none */
    bool no_aslr;
    bool in_place;    /* processes ran the given files (else each a fresh copy of its file) */
    bool sample_best; /* a process's sample: its best repetition (else their median) */
    unsigned pause_ms;
    double max_load; /* wait before a round while the load is at or above it; 0 = never */
    double budget_s; /* 0 = none */
    double extend;   /* --extend: at most this factor of a scenario's rounds more; 0 = off */
    double alpha, confidence, threshold;
    unsigned resamples;
    /* the sitting */
    const char *hostname, *cpu_model;
    int cpus;
    double load_start, load_end;
    double wall_s;
    uint64_t busy_rounds; /* rounds started at or above max_load after waiting */
    size_t nwarn, cap_warn;
    const char **warn;
    int exit_status; /* after dra_ab_analyze (the command may raise it to 2, 3, 4) */
    size_t nregressions, ninconclusive, nimproved;
    dra_arena_t arena;
} dra_ab_session_t;

void dra_ab_init(dra_ab_session_t *s);
void dra_ab_fini(dra_ab_session_t *s);
/* A copy of str in the session (NULL stays NULL); NULL without memory. */
char *dra_ab_strdup(dra_ab_session_t *s, const char *str);
/* A warning line (printf-style), kept in order. */
void dra_ab_warn(dra_ab_session_t *s, const char *fmt, ...) DRA_PRINTF(2, 3);

/* Add a scenario with its run options and metrics; *index receives its number. */
DRA_NODISCARD int dra_ab_add_scenario(dra_ab_session_t *s, const char *name, char *const *args,
                                      size_t nargs, const char *const *metrics, size_t nmetrics,
                                      size_t *index);
/* Set the unit and direction of metric m of scenario sc (from a result file's catalogue). */
DRA_NODISCARD int dra_ab_set_metric(dra_ab_session_t *s, size_t sc, size_t m, const char *name,
                                    const char *unit, int better);
/* Record a round of scenario sc: values a[0..nmetrics), b[0..nmetrics). */
DRA_NODISCARD int dra_ab_add_round(dra_ab_session_t *s, size_t sc, bool aa, bool b_first,
                                   double load1, const double *a, const double *b);

/* Rounds (A/B + A/A, 24 + 8 at the default ratio) that a sitting needs to find a planted 10%
 * in at least 19 of 20 sittings on the built-in scenarios whose processes differ most
 * (mig-inference under load and fleet-5k: README "Timing comparisons by hand"). */
#define DRA_AB_NEED_ROUNDS 32

/* The rounds of a budget (`drabench ab --budget`), from what one A/B round of every scenario
 * cost (cost[i], seconds; the first pass) and the seconds left after it, in three steps:
 *  1. every scenario gets the minimum, DRA_AB_MIN_ROUNDS A/B and DRA_AB_MIN_AA A/A rounds;
 *  2. then, cheapest scenario first, up to DRA_AB_NEED_ROUNDS rounds while the time lasts - so
 *     when the budget cannot give every scenario the rounds the bar needs, the most expensive
 *     one is left short, not all of them (a pass of the nightly suite on the loaded
 *     development machine is 108 s, 84 of them fleet-50k's round: equal numbers gave fleet-5k
 *     10 + 3 rounds, too few for it, where this gives it 24 + 8 and fleet-50k 7 + 3 instead of
 *     8 + 3);
 *  3. what is left: three quarters in equal numbers of rounds (passes of the whole suite), the
 *     last quarter shared in equal time, so a scenario whose round is cheap gets more.
 * Every scenario's count, the first pass's round included, is split in the ratio of R A/B to Q
 * A/A rounds, at least DRA_AB_MIN_ROUNDS A/B and DRA_AB_MIN_AA A/A, at most 200 A/B. nab[i],
 * naa[i] receive the totals; *fit the rounds of every scenario the budget gives in equal numbers
 * (the first pass's included; below the minimum, the minimum runs anyway). Cost O(n^2). */
void dra_ab_budget_split(const double *cost, size_t n, double left, size_t R, size_t Q,
                         size_t *nab, size_t *naa, size_t *fit);

/* The extension (`drabench ab --extend X`): after the planned rounds, a scenario gets more
 * rounds when, for one of its gated metrics, the A/A noise floor is above the threshold - the
 * one case where the floor, not the threshold, decides the verdict (a change between the two
 * is "worse", exit 0; the misses of a planted 10% on mig-vgpu were all such sittings). The
 * trigger looks at the floor alone, never at the A/B change, its p or its verdict: the floor's
 * centre is the A/A rounds' median and its spread the A/A rounds' and the A/B rounds' about
 * their own median, so moving every A/B round by the same factor (a change of any size) leaves
 * it unchanged. Extending on the p-value or on the verdict would be optional stopping (a second
 * look when the first was close), which raises the false-alarm rate above alpha.
 * Returns the index of the first metric of scenario sc (analyzed) whose floor_above is set, or
 * SIZE_MAX. */
size_t dra_ab_extend_trigger(const dra_ab_session_t *s, size_t sc);

/* A/B and A/A rounds of an extension of a scenario that ran ab + aa rounds: ceil(factor x
 * (ab + aa)) rounds in the ratio ab : aa (at least one A/B and, with aa > 0, one A/A round), in
 * *xab and *xaa; with left >= 0 (a budget's seconds left) and cost > 0 (seconds a round), no more
 * than floor(left / cost) of them, kept in the ratio, and *cut says that the budget gave fewer
 * than the cap (possibly none). left < 0: no budget. Cost O(1). */
void dra_ab_extend_rounds(size_t ab, size_t aa, double factor, double cost, double left,
                          size_t *xab, size_t *xaa, bool *cut);
/* Share of the time left after the first pass that `--budget` keeps for the extension when
 * `--extend` is given (the planned rounds get the rest). */
#define DRA_AB_EXTEND_RESERVE 0.2

/* Statistics and verdicts of every scenario and metric; sets exit_status and the counts. */
DRA_NODISCARD int dra_ab_analyze(dra_ab_session_t *s);

/* Reports: a text table (terminal), Markdown (job summaries), JSON (schema drabench-ab/v1:
 * method, sides, host, per scenario the rounds with their samples and per metric the ratio,
 * interval, p, noise floor and verdict; keys sorted). DRA_OK or DRA_EIO / DRA_ENOMEM. */
DRA_NODISCARD int dra_ab_write_text(const dra_ab_session_t *s, FILE *f);
DRA_NODISCARD int dra_ab_write_md(const dra_ab_session_t *s, FILE *f);
DRA_NODISCARD int dra_ab_write_json(const dra_ab_session_t *s, FILE *f);
/* One line per regression, inconclusive row and warning (what stderr gets in CI). */
void dra_ab_write_gate_lines(const dra_ab_session_t *s, FILE *f);

#endif /* DRA_AB_H */
