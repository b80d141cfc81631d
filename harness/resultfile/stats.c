/*
 * stats.c - median, confidence interval of a quantile, Mann-Whitney U test, geometric mean.
 *
 * The procedures follow benchstat (golang.org/x/perf benchmath.AssumeNothing) and the library it
 * calls (github.com/aclements/go-moremath/stats: QuantileCI, MannWhitneyUTest), so `drabench
 * compare` prints the numbers benchstat would; this is an independent implementation:
 *
 *   Quantile CI: the count of samples below the population q-quantile is Binomial(n, q). For
 *   n <= 30 grow a band of counts outward from the (lower) mode, always adding the more probable
 *   neighbour (the left one on equal probability), until its mass reaches the confidence; for
 *   larger n take the central band of the normal approximation with continuity correction and
 *   keep the one-shorter, left-biased band if it still reaches the confidence. Band [l, r) of
 *   counts maps to the order statistics x_(l) .. x_(r); orders outside 1..n are infinite.
 *   Binomial coefficients are computed as benchstat does (exact integers up to n = 20, then
 *   exp(lgamma...)), because the left/right choice compares probabilities for equality.
 *
 *   U test: U for the first sample counts pairs it wins plus half the ties. Exact p-values come
 *   from the permutation distribution of U conditional on the tie pattern, computed by dynamic
 *   programming over the groups of tied values in rank order: state (j = first-sample values
 *   placed so far, 2U so far), weight = number of arrangements; placing r of a group's t values
 *   from the first sample multiplies by C(t, r) and adds r * (2 * (second-sample values below) +
 *   (t - r)) to 2U. Only states with 2U <= 2 * Usmall are kept. Without ties this is the classic
 *   Mann-Whitney distribution; with ties it is the Klotz / Cheung-Klotz distribution benchstat uses.
 */
#include "stats.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define STACK_N 64
#define SQRT2 1.41421356237309504880
#define SQRT_2PI 2.50662827463100050242

static int cmp_double(const void *pa, const void *pb)
{
    double a = *(const double *)pa, b = *(const double *)pb;
    return (a > b) - (a < b);
}

static bool has_nan(const double *x, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (isnan(x[i]))
            return true;
    return false;
}

/* Sorted copy of x into stack (n <= STACK_N) or a malloc'ed buffer; NULL on allocation failure.
 * Free with release(). */
static double *sorted_copy(const double *x, size_t n, double *stack)
{
    double *s = stack;
    if (n > STACK_N) {
        s = malloc(n * sizeof *s);
        if (!s)
            return NULL;
    }
    memcpy(s, x, n * sizeof *s);
    qsort(s, n, sizeof *s, cmp_double);
    return s;
}

static void release(double *s, const double *stack)
{
    if (s != stack)
        free(s);
}

static double median_sorted(const double *s, size_t n)
{
    return (n & 1) ? s[n / 2] : (s[n / 2 - 1] + s[n / 2]) / 2.0;
}

/* Hyndman-Fan 8, written as go-moremath's Sample.Quantile so results agree bit for bit. */
static double quantile_sorted(const double *s, size_t n, double q)
{
    if (q <= 0)
        return s[0];
    if (q >= 1)
        return s[n - 1];
    double h = 1 / 3.0 + q * ((double)n + 1 / 3.0);
    double kf;
    double frac = modf(h, &kf);
    if (kf <= 0)
        return s[0];
    if (kf >= (double)n)
        return s[n - 1];
    size_t k = (size_t)kf;
    return s[k - 1] + frac * (s[k] - s[k - 1]);
}

double dra_stats_median(const double *x, size_t n)
{
    double stack[STACK_N];
    if (n == 0 || has_nan(x, n))
        return NAN;
    double *s = sorted_copy(x, n, stack);
    if (!s)
        return NAN;
    double m = median_sorted(s, n);
    release(s, stack);
    return m;
}

double dra_stats_quantile(const double *x, size_t n, double q)
{
    double stack[STACK_N];
    if (n == 0 || isnan(q) || has_nan(x, n))
        return NAN;
    double *s = sorted_copy(x, n, stack);
    if (!s)
        return NAN;
    double v = quantile_sorted(s, n, q);
    release(s, stack);
    return v;
}

double dra_stats_mean(const double *x, size_t n)
{
    if (n == 0)
        return NAN;
    double sum = 0;
    for (size_t i = 0; i < n; i++)
        sum += x[i];
    return sum / (double)n;
}

double dra_stats_stddev(const double *x, size_t n)
{
    if (n < 2)
        return NAN;
    double mean = dra_stats_mean(x, n), acc = 0;
    for (size_t i = 0; i < n; i++)
        acc += (x[i] - mean) * (x[i] - mean);
    return sqrt(acc / (double)(n - 1));
}

double dra_stats_geomean(const double *x, size_t n)
{
    double acc = 0;
    size_t used = 0;
    for (size_t i = 0; i < n; i++) {
        if (isnan(x[i]) || x[i] < 0)
            return NAN;
        if (x[i] == 0)
            continue;
        acc += log(x[i]);
        used++;
    }
    return used ? exp(acc / (double)used) : NAN;
}

/* ---- binomial order statistics -------------------------------------------------------------- */

/* C(n, k) as go-moremath's mathx.Choose computes it (the rounding matters for equal-probability
 * comparisons): exact for n <= 20, exp(lgamma(n+1) - lgamma(k+1) - lgamma(n-k+1)) above. */
static double choose_bs(int n, int k)
{
    if (k == 0 || k == n)
        return 1;
    if (k < 0 || n < k)
        return 0;
    if (n <= 20) {
        int64_t num = 1, den = 1;
        for (int64_t i = n - (k - 1); i <= n; i++)
            num *= i;
        for (int64_t i = 2; i <= k; i++)
            den *= i;
        return (double)(num / den);
    }
    return exp(lgamma((double)(n + 1)) - lgamma((double)(k + 1)) - lgamma((double)(n - k + 1)));
}

static double binom_pmf(int n, double p, int k)
{
    if (k < 0 || k > n)
        return 0;
    return choose_bs(n, k) * pow(p, (double)k) * pow(1 - p, (double)(n - k));
}

static double norm_cdf(double x, double mu, double sigma)
{
    return erfc(-(x - mu) / (sigma * SQRT2)) / 2;
}

/* Inverse standard normal CDF: P. J. Acklam's rational approximation refined by one Halley step
 * (relative error ~1e-15), the method go-moremath uses. */
static double norm_inv_std(double p)
{
    static const double a[] = {-3.969683028665376e+01, 2.209460984245205e+02,
                               -2.759285104469687e+02, 1.383577518672690e+02,
                               -3.066479806614716e+01, 2.506628277459239e+00};
    static const double b[] = {-5.447609879822406e+01, 1.615858368580409e+02,
                               -1.556989798598866e+02, 6.680131188771972e+01,
                               -1.328068155288572e+01};
    static const double c[] = {-7.784894002430293e-03, -3.223964580411365e-01,
                               -2.400758277161838e+00, -2.549732539343734e+00,
                               4.374664141464968e+00, 2.938163982698783e+00};
    static const double d[] = {7.784695709041462e-03, 3.224671290700398e-01,
                               2.445134137142996e+00, 3.754408661907416e+00};
    const double plow = 0.02425, phigh = 1 - plow;
    double x;
    if (p <= 0)
        return -INFINITY;
    if (p >= 1)
        return INFINITY;
    if (p < plow || p > phigh) {
        double q = sqrt(-2 * log(p < plow ? p : 1 - p));
        x = (((((c[0] * q + c[1]) * q + c[2]) * q + c[3]) * q + c[4]) * q + c[5]) /
            ((((d[0] * q + d[1]) * q + d[2]) * q + d[3]) * q + 1);
        if (p > phigh)
            x = -x;
    } else {
        double q = p - 0.5, r = q * q;
        x = (((((a[0] * r + a[1]) * r + a[2]) * r + a[3]) * r + a[4]) * r + a[5]) * q /
            (((((b[0] * r + b[1]) * r + b[2]) * r + b[3]) * r + b[4]) * r + 1);
    }
    double e = 0.5 * erfc(-x / SQRT2) - p;
    double u = e * SQRT_2PI * exp(x * x / 2);
    return x - u / (1 + x * u / 2);
}

typedef struct ci_orders {
    int lo, hi; /* band [lo, hi) of counts = order statistics x_(lo) .. x_(hi) */
    double confidence;
    bool ambiguous;
} ci_orders_t;

static ci_orders_t quantile_ci_orders(int n, double q, double confidence)
{
    ci_orders_t res = {0, n + 1, 1.0, false};
    if (confidence >= 1)
        return res;
    int l, r;
    if (n <= 30) {
        int x = (int)ceil((double)(n + 1) * q) - 1;
        if (q == 0)
            x = 0;
        double accum = binom_pmf(n, q, x);
        l = x;
        r = x + 1;
        double lp = binom_pmf(n, q, l - 1), rp = binom_pmf(n, q, r);
        res.ambiguous = rp == accum;
        while (accum < confidence && (lp > 0 || rp > 0)) {
            res.ambiguous = lp == rp;
            if (lp >= rp) { /* left bias */
                accum += lp;
                l--;
                lp = binom_pmf(n, q, l - 1);
            } else {
                accum += rp;
                r++;
                rp = binom_pmf(n, q, r);
            }
        }
        res.confidence = accum;
    } else {
        double mu = (double)n * q, sigma = sqrt((double)n * q * (1 - q));
        if (sigma == 0) { /* q is 0 or 1: the quantile is the minimum / maximum */
            l = q == 0 ? 0 : n;
            r = l + 1;
            res.confidence = 1;
        } else {
            double alpha = (1 - confidence) / 2;
            double l1 = norm_inv_std(alpha) * sigma + mu;
            double r1 = 2 * mu - l1;
            /* Count k is the normal band [k - 0.5, k + 0.5]: round outward to half-integers. */
            l = (int)floor(floor(l1 - 0.5) + 0.5) + 1;
            r = (int)floor(ceil(r1 - 0.5) + 0.5) + 1;
            res.confidence = norm_cdf((double)r - 0.5, mu, sigma) - norm_cdf((double)l - 0.5, mu, sigma);
            double biased = norm_cdf((double)(r - 1) - 0.5, mu, sigma) -
                            norm_cdf((double)l - 0.5, mu, sigma);
            if (biased >= confidence && biased < res.confidence) {
                res.confidence = biased;
                res.ambiguous = true;
                r--;
            }
            if (l <= 0 && r >= n + 1) {
                res.confidence = 1;
                res.ambiguous = false;
            }
        }
    }
    res.lo = l < 0 ? 0 : l;
    res.hi = r > n + 1 ? n + 1 : r;
    return res;
}

int dra_stats_quantile_ci(const double *x, size_t n, double q, double confidence,
                          dra_stats_ci_t *out)
{
    double stack[STACK_N];
    memset(out, 0, sizeof *out);
    if (n == 0 || n > INT32_MAX - 2 || !(q >= 0 && q <= 1) ||
        !(confidence > 0 && confidence <= 1) || has_nan(x, n))
        return DRA_EINVAL;
    double *s = sorted_copy(x, n, stack);
    if (!s)
        return DRA_ENOMEM;
    ci_orders_t o = quantile_ci_orders((int)n, q, confidence);
    out->center = q == 0.5 ? median_sorted(s, n) : quantile_sorted(s, n, q);
    out->lo = o.lo < 1 ? -INFINITY : s[o.lo - 1];
    out->hi = o.hi > (int)n ? INFINITY : s[o.hi - 1];
    out->confidence = o.confidence;
    out->lo_order = o.lo;
    out->hi_order = o.hi;
    out->finite = o.lo >= 1 && o.hi <= (int)n;
    out->ambiguous = o.ambiguous;
    release(s, stack);
    return DRA_OK;
}

int dra_stats_median_ci(const double *x, size_t n, double confidence, dra_stats_ci_t *out)
{
    return dra_stats_quantile_ci(x, n, 0.5, confidence, out);
}

int dra_stats_median_ci_min_samples(double confidence)
{
    if (!(confidence > 0 && confidence <= 1))
        return 0;
    for (int n = 2; n <= 50; n++) {
        ci_orders_t o = quantile_ci_orders(n, 0.5, confidence);
        if (o.lo > 0 && o.hi <= n)
            return n;
    }
    return 0;
}

/* ---- Mann-Whitney U ------------------------------------------------------------------------- */

/* P(U1 <= two_limit / 2) for the first sample of na values, given tie groups t[0..k) in rank
 * order (see the file comment). Returns a negative value on allocation failure. */
static double u_cdf_exact(int na, const int *t, int k, int two_limit)
{
    size_t w = (size_t)two_limit + 1;
    size_t cells = (size_t)(na + 1) * w;
    double *cur = calloc(cells, sizeof *cur), *nxt = calloc(cells, sizeof *nxt);
    if (!cur || !nxt) {
        free(cur);
        free(nxt);
        return -1;
    }
    cur[0] = 1; /* j = 0, 2U = 0 */
    int before = 0; /* values of all groups already placed */
    for (int g = 0; g < k; g++) {
        memset(nxt, 0, cells * sizeof *nxt);
        int jmax = na < before ? na : before;
        for (int j = 0; j <= jmax; j++) {
            const double *row = cur + (size_t)j * w;
            int rmax = t[g] < na - j ? t[g] : na - j;
            for (int r = 0; r <= rmax; r++) {
                /* r first-sample values in this group beat (before - j) second-sample values
                 * placed below and tie with the group's (t - r) second-sample values. */
                int add = r * (2 * (before - j) + (t[g] - r));
                if (add > two_limit)
                    continue;
                double ways = 1;
                for (int i = 1; i <= r; i++) /* C(t, r) exactly for the small t here */
                    ways = ways * (double)(t[g] - r + i) / (double)i;
                double *dst = nxt + (size_t)(j + r) * w + (size_t)add;
                for (int v = 0; v + add <= two_limit; v++)
                    if (row[v] != 0)
                        dst[v] += row[v] * ways;
            }
        }
        double *tmp = cur;
        cur = nxt;
        nxt = tmp;
        before += t[g];
    }
    double hits = 0;
    const double *row = cur + (size_t)na * w;
    for (int v = 0; v <= two_limit; v++)
        hits += row[v];
    free(cur);
    free(nxt);
    /* Divide by the number of arrangements C(before, na), computed multiplicatively. */
    double total = 1;
    for (int i = 1; i <= na; i++)
        total = total * (double)(before - na + i) / (double)i;
    return hits / total;
}

int dra_stats_mann_whitney(const double *a, size_t na, const double *b, size_t nb, double *p,
                           double *u)
{
    if (na == 0 || nb == 0 || na > 1000000000 || nb > 1000000000 || has_nan(a, na) ||
        has_nan(b, nb))
        return DRA_EINVAL;
    double stack_a[STACK_N], stack_b[STACK_N];
    double *sa = sorted_copy(a, na, stack_a);
    double *sb = sa ? sorted_copy(b, nb, stack_b) : NULL;
    int *ties = malloc((na + nb) * sizeof *ties);
    int rc = DRA_OK;
    if (!sa || !sb || !ties) {
        rc = DRA_ENOMEM;
        goto out;
    }

    /* Walk the merged order: rank sum of a with mid-ranks for ties, and the tie groups. */
    double r1 = 0;
    int k = 0;
    bool has_ties = false;
    size_t i = 0, j = 0, pos = 0; /* pos = values consumed, so the next rank is pos + 1 */
    while (i < na || j < nb) {
        double v = (j >= nb || (i < na && sa[i] < sb[j])) ? sa[i] : sb[j];
        size_t ca = 0, cb = 0;
        while (i < na && sa[i] == v) {
            i++;
            ca++;
        }
        while (j < nb && sb[j] == v) {
            j++;
            cb++;
        }
        size_t t = ca + cb;
        r1 += (double)ca * ((double)(2 * pos + t + 1) / 2.0); /* mid-rank of ranks pos+1..pos+t */
        ties[k++] = (int)t;
        has_ties |= t > 1;
        pos += t;
    }
    double dna = (double)na, dnb = (double)nb;
    double u1 = r1 - dna * (dna + 1) / 2;
    double u2 = dna * dnb - u1;
    double usmall = u1 < u2 ? u1 : u2;
    double pv;

    if (k == 1) {
        pv = 1; /* every value equal: benchstat reports p = 1 */
    } else if ((!has_ties && na <= 50 && nb <= 50) || (has_ties && na <= 25 && nb <= 25)) {
        if (u1 == u2) {
            pv = 1;
        } else {
            double c = u_cdf_exact((int)na, ties, k, (int)(2 * usmall));
            if (c < 0) {
                rc = DRA_ENOMEM;
                goto out;
            }
            pv = 2 * c;
        }
    } else {
        double tc = 0;
        for (int g = 0; g < k; g++)
            tc += (double)ties[g] * ties[g] * ties[g] - ties[g];
        double nn = dna + dnb;
        double mu = dna * dnb / 2;
        double sigma = sqrt(dna * dnb * ((nn + 1) - tc / (nn * (nn - 1))) / 12);
        if (sigma == 0) {
            pv = 1;
        } else {
            double numer = u1 - mu;
            numer -= (numer > 0) ? 0.5 : (numer < 0) ? -0.5 : 0; /* continuity correction */
            double z = numer / sigma;
            double cdf = norm_cdf(z, 0, 1);
            pv = 2 * (cdf < 1 - cdf ? cdf : 1 - cdf);
        }
    }
    if (pv > 1)
        pv = 1;
    if (p)
        *p = pv;
    if (u)
        *u = u1;
out:
    if (sa)
        release(sa, stack_a);
    if (sb)
        release(sb, stack_b);
    free(ties);
    return rc;
}

double dra_stats_mann_whitney_min_p(size_t n)
{
    if (n == 0)
        return 1;
    /* 2 / C(2n, n): only one of the C(2n, n) arrangements puts all of a below all of b. */
    double c = 1;
    for (size_t i = 1; i <= n; i++)
        c = c * (double)(n + i) / (double)i;
    double pv = 2 / c;
    return pv > 1 ? 1 : pv;
}

/* ---- paired rounds: Wilcoxon signed-rank test, bootstrap interval of the median ------------- */

typedef struct {
    double a; /* |d| */
    bool pos;
} absd_t;

static int cmp_absd(const void *pa, const void *pb)
{
    double a = ((const absd_t *)pa)->a, b = ((const absd_t *)pb)->a;
    return (a > b) - (a < b);
}

#define WILCOXON_EXACT_MAX 400

int dra_stats_wilcoxon(const double *d, size_t n, double *p, double *wplus, size_t *nused)
{
    if (n == 0 || has_nan(d, n))
        return DRA_EINVAL;
    absd_t *v = malloc(n * sizeof *v);
    if (!v)
        return DRA_ENOMEM;
    size_t m = 0;
    for (size_t i = 0; i < n; i++)
        if (d[i] != 0)
            v[m++] = (absd_t){fabs(d[i]), d[i] > 0};
    if (nused)
        *nused = m;
    if (m == 0) {
        free(v);
        if (p)
            *p = 1;
        if (wplus)
            *wplus = 0;
        return DRA_OK;
    }
    qsort(v, m, sizeof *v, cmp_absd);
    /* doubled mid-ranks (integers), W+ doubled, and the tie correction */
    int *r2 = malloc(m * sizeof *r2);
    if (!r2) {
        free(v);
        return DRA_ENOMEM;
    }
    long long w2 = 0;
    double ties = 0;
    for (size_t i = 0; i < m;) {
        size_t j = i;
        while (j < m && v[j].a == v[i].a)
            j++;
        int rr = (int)(i + 1 + j); /* 2 x the mid-rank of ranks i+1..j */
        for (size_t k = i; k < j; k++) {
            r2[k] = rr;
            if (v[k].pos)
                w2 += rr;
        }
        double t = (double)(j - i);
        ties += t * t * t - t;
        i = j;
    }
    long long total2 = (long long)m * (long long)(m + 1); /* 2 x m(m+1)/2 */
    long long small2 = w2 < total2 - w2 ? w2 : total2 - w2;
    double pv;
    if (m <= WILCOXON_EXACT_MAX) {
        /* number of sign patterns with doubled W+ = s, s in 0..small2 (all 2^m equally likely) */
        double *cnt = calloc((size_t)small2 + 1, sizeof *cnt);
        if (!cnt) {
            free(v);
            free(r2);
            return DRA_ENOMEM;
        }
        cnt[0] = 1;
        for (size_t k = 0; k < m; k++)
            for (long long s = small2; s >= r2[k]; s--)
                cnt[s] += cnt[s - r2[k]];
        double below = 0;
        for (long long s = 0; s <= small2; s++)
            below += cnt[s];
        pv = 2 * below / ldexp(1.0, (int)m);
        free(cnt);
    } else {
        double mu = (double)m * (double)(m + 1) / 4;
        double var = (double)m * (double)(m + 1) * (double)(2 * m + 1) / 24 - ties / 48;
        double z = ((double)small2 / 2 - mu + 0.5) / sqrt(var);
        pv = 2 * norm_cdf(z, 0, 1);
    }
    if (p)
        *p = pv < 1 ? pv : 1;
    if (wplus)
        *wplus = (double)w2 / 2;
    free(v);
    free(r2);
    return DRA_OK;
}

double dra_stats_wilcoxon_min_p(size_t n)
{
    return n >= 1024 ? 0 : fmin(1.0, 2.0 / ldexp(1.0, (int)n));
}

/* SplitMix64 (Steele, Lea, Flood 2014): the bootstrap's resampling stream. */
static uint64_t splitmix64(uint64_t *s)
{
    uint64_t z = (*s += UINT64_C(0x9E3779B97F4A7C15));
    z = (z ^ (z >> 30)) * UINT64_C(0xBF58476D1CE4E5B9);
    z = (z ^ (z >> 27)) * UINT64_C(0x94D049BB133111EB);
    return z ^ (z >> 31);
}

int dra_stats_bootstrap_median_ci(const double *x, size_t n, size_t m, double confidence,
                                  unsigned resamples, unsigned long long seed, double *lo,
                                  double *hi)
{
    if (n == 0 || has_nan(x, n) || !(confidence > 0 && confidence < 1) || resamples < 10)
        return DRA_EINVAL;
    m = m ? m : n;
    double *meds = malloc(resamples * sizeof *meds);
    double *buf = malloc(m * sizeof *buf);
    if (!meds || !buf) {
        free(meds);
        free(buf);
        return DRA_ENOMEM;
    }
    uint64_t st = seed;
    for (unsigned b = 0; b < resamples; b++) {
        for (size_t i = 0; i < m; i++)
            buf[i] = x[splitmix64(&st) % n];
        qsort(buf, m, sizeof *buf, cmp_double);
        meds[b] = median_sorted(buf, m);
    }
    qsort(meds, resamples, sizeof *meds, cmp_double);
    *lo = quantile_sorted(meds, resamples, (1 - confidence) / 2);
    *hi = quantile_sorted(meds, resamples, (1 + confidence) / 2);
    free(meds);
    free(buf);
    return DRA_OK;
}
