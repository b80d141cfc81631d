/*
 * stats.h - comparison statistics for `drabench compare` (benchstat's "assume nothing" model).
 *
 * Purpose: summarize repeated measurements of one benchmark by the median and a distribution-free
 * confidence interval of the median, compare two sets of measurements with the two-sided
 * Mann-Whitney U test, and summarize a column by its geometric mean; the numbers match what
 * golang.org/x/perf/cmd/benchstat prints for the same samples (benchmath.AssumeNothing, which uses
 * github.com/aclements/go-moremath/stats QuantileCI and MannWhitneyUTest). For paired rounds
 * (`drabench ab`): the Wilcoxon signed-rank test and a bootstrap interval of the median.
 *
 * Conventions:
 *   - No function reorders or retains its input: functions that need sorted data sort a private
 *     copy (on the stack for n <= 64, else malloc'ed and freed before returning).
 *   - Functions returning double return NaN for empty input (and when a needed copy cannot be
 *     allocated); functions returning int return DRA_OK or a negative DRA_E* (core/base/err.h):
 *     DRA_EINVAL for empty input, NaN values or out-of-range parameters, DRA_ENOMEM.
 * Cost: median/quantile/CI O(n log n); Mann-Whitney exact p-value O((n1+n2) * n1 * n1*n2) time
 * and O(n1 * n1*n2) memory in the worst case (n1, n2 <= 50: a few ms), else O((n1+n2) log).
 * Thread-safety: no shared state; all functions are reentrant.
 */
#ifndef DRA_STATS_H
#define DRA_STATS_H

#include <stdbool.h>
#include <stddef.h>

#include "base/err.h"

/* benchstat defaults. */
#define DRA_STATS_CONFIDENCE 0.95
#define DRA_STATS_ALPHA 0.05

/* Median: the middle value, or the mean of the two middle values for even n. Copies the input
 * (never reorders it). NaN for n == 0 or if x contains NaN. */
double dra_stats_median(const double *x, size_t n);
/* Quantile q in [0, 1] by Hyndman-Fan definition 8 (what benchstat's Sample.Quantile uses):
 * h = 1/3 + q (n + 1/3), linear interpolation between order statistics x_(floor h) and the next;
 * q <= 0 gives the minimum, q >= 1 the maximum. Copies the input. NaN for n == 0 or NaN data. */
double dra_stats_quantile(const double *x, size_t n, double q);
/* Arithmetic mean; NaN for n == 0. */
double dra_stats_mean(const double *x, size_t n);
/* Sample standard deviation (divides by n - 1); NaN for n < 2. */
double dra_stats_stddev(const double *x, size_t n);
/* Geometric mean exp(mean(log x)). As benchstat's geomean row, zeros are omitted; NaN if any value
 * is negative or NaN, or no value is non-zero. */
double dra_stats_geomean(const double *x, size_t n);

/* A quantile with its confidence interval. */
typedef struct dra_stats_ci {
    double center;     /* the sample quantile (median for dra_stats_median_ci) */
    double lo, hi;     /* bounds: order statistics x_(lo_order), x_(hi_order); -inf / +inf when
                          the order lies outside the sample (sample too small) */
    double confidence; /* actual confidence of [lo, hi], >= the requested one */
    int lo_order;      /* 1-based; 0 means lo = -inf */
    int hi_order;      /* 1-based; n + 1 means hi = +inf */
    bool finite;       /* both bounds finite; false is benchstat's "±∞" */
    bool ambiguous;    /* an interval shifted by one order has the same confidence */
} dra_stats_ci_t;

/*
 * Distribution-free confidence interval of quantile q (0..1) at confidence c (0 < c <= 1; benchstat
 * default 0.95), exactly as go-moremath's QuantileCI: the number of samples below the population
 * quantile is Binomial(n, q); for n <= 30 start at the mode ceil((n+1)q) - 1 and add the larger
 * neighbouring binomial probability (left on ties) until the mass reaches c; for n > 30 use the
 * normal approximation with continuity correction, then try the left-biased interval. The bounds
 * are the order statistics at the ends of that band. Copies the input.
 * Returns DRA_OK (check out->finite), DRA_EINVAL (n == 0, NaN data, q or c out of range) or
 * DRA_ENOMEM.
 */
DRA_NODISCARD int dra_stats_quantile_ci(const double *x, size_t n, double q, double confidence,
                                        dra_stats_ci_t *out);
/* dra_stats_quantile_ci at q = 0.5; out->center is dra_stats_median. */
DRA_NODISCARD int dra_stats_median_ci(const double *x, size_t n, double confidence,
                                      dra_stats_ci_t *out);
/* Smallest n (2..50) whose median CI at this confidence is finite, 0 if none up to 50: the number
 * in benchstat's warning "need >= N samples for confidence interval at level C" (6 for 0.95). */
int dra_stats_median_ci_min_samples(double confidence);

/*
 * Two-sided Mann-Whitney U test of "a and b come from the same distribution", benchstat's method:
 *   *u = U for sample a = #{(i,j): a_i > b_j} + 0.5 #{(i,j): a_i == b_j} (0 .. na*nb).
 *   Exact conditional distribution of U given the tie pattern when na, nb <= 50 without ties or
 *   na, nb <= 25 with ties; p = 1 if U equals its mirror na*nb - U, else 2 P(U <= min(U, na*nb-U)).
 *   Otherwise the normal approximation with tie and continuity correction.
 *   When every value of a and b is the same the test is meaningless; benchstat reports p = 1 and
 *   so does this function (DRA_OK).
 *   Deviation: with asymmetric tie patterns benchstat's 2 P(U <= Usmall) can exceed 1; p is
 *   clamped to 1 (only the printed value changes: such a p is never significant).
 * p or u may be NULL. Returns DRA_OK, DRA_EINVAL (an empty sample or NaN data) or DRA_ENOMEM.
 * Examples: {1..5} vs {6..10}: U = 0, p = 2/252 = 0.0079 (benchstat prints p=0.008); identical
 * samples: p = 1.
 */
DRA_NODISCARD int dra_stats_mann_whitney(const double *a, size_t na, const double *b, size_t nb,
                                         double *p, double *u);

/* Smallest two-sided p the U test can reach with two samples of n values (all of one sample below
 * the other): 2 / C(2n, n). benchstat needs n >= 4 to reach p < 0.05. */
double dra_stats_mann_whitney_min_p(size_t n);

/*
 * Two-sided Wilcoxon signed-rank test of "the paired differences d are symmetric about 0" (the
 * paired test of `drabench ab` on per-round log-ratios):
 *   zero differences are dropped (Wilcoxon's method); the others are ranked by |d| with mid-ranks
 *   for ties; *wplus = the sum of the ranks of the positive differences. The p-value comes from
 *   the exact permutation distribution of W+ given the ranks (every sign pattern equally likely:
 *   dynamic programming over doubled ranks, so mid-ranks are exact too) for up to 400 nonzero
 *   differences, else the normal approximation with tie and continuity correction;
 *   p = min(1, 2 P(W+ <= min(W+, W-))). No nonzero difference: p = 1.
 * p, wplus, nused (nonzero differences) may be NULL. Returns DRA_OK, DRA_EINVAL (n == 0 or NaN
 * data) or DRA_ENOMEM. Cost: O(n^3) time and O(n^2) memory exact. Examples: 6 positive
 * differences of distinct sizes: p = 2/64 = 0.03125; {1, -2, 3, -4}: W+ = 4, p = 0.875.
 */
DRA_NODISCARD int dra_stats_wilcoxon(const double *d, size_t n, double *p, double *wplus,
                                     size_t *nused);
/* Smallest two-sided p the signed-rank test reaches with n nonzero differences: 2 / 2^n (6 are
 * needed for p < 0.05). */
double dra_stats_wilcoxon_min_p(size_t n);

/*
 * Percentile-bootstrap confidence interval of the median of x: `resamples` samples of m values
 * (m = 0: n) drawn from x with replacement (a SplitMix64 stream from seed, so the interval is
 * reproducible), their medians sorted, and the (1 - confidence) / 2 and (1 + confidence) / 2
 * quantiles of those (Hyndman-Fan 8, as dra_stats_quantile). With m != n it is the range of the
 * median of m draws from x's distribution (what `drabench ab` takes as the noise floor of an
 * A/B comparison of m rounds from its A/A rounds). n == 1 gives [x0, x0]. Returns DRA_OK,
 * DRA_EINVAL (n == 0, NaN data, confidence outside (0, 1), resamples < 10) or DRA_ENOMEM.
 * Cost: O(resamples x m log m).
 */
DRA_NODISCARD int dra_stats_bootstrap_median_ci(const double *x, size_t n, size_t m,
                                                double confidence, unsigned resamples,
                                                unsigned long long seed, double *lo, double *hi);

#endif /* DRA_STATS_H */
