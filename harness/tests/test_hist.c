/*
 * test_hist.c - unit tests for harness/hist.{h,c}: layout, accuracy against exact order
 * statistics on known distributions, merge, clamping, bucket dump round trip and .hgrm output
 * (parsed back, and compared with a golden text produced by HdrHistogram_c's
 * hdr_percentiles_print for the same values).
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "check.h"
#include "hist.h"
#include "result.h"

/* splitmix64: fixed-seed generator so every run sees the same samples. */
static uint64_t rng_state;
static uint64_t rng_next(void)
{
    uint64_t z = (rng_state += UINT64_C(0x9E3779B97F4A7C15));
    z = (z ^ (z >> 30)) * UINT64_C(0xBF58476D1CE4E5B9);
    z = (z ^ (z >> 27)) * UINT64_C(0x94D049BB133111EB);
    return z ^ (z >> 31);
}
static double rng_unit(void) /* (0, 1] */
{
    return ((double)(rng_next() >> 11) + 1.0) / 9007199254740992.0;
}

static int cmp_i64(const void *a, const void *b)
{
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    return (x > y) - (x < y);
}

enum { DIST_UNIFORM, DIST_EXP, DIST_CONST, DIST_BIMODAL, DIST_COUNT };
static const char *dist_name[] = {"uniform", "exponential", "constant", "bimodal"};

static void fill(int dist, int64_t *x, size_t n)
{
    rng_state = 12345 + (uint64_t)dist;
    for (size_t i = 0; i < n; i++) {
        switch (dist) {
        case DIST_UNIFORM: /* 1 .. 1e6 */
            x[i] = 1 + (int64_t)(rng_next() % 1000000);
            break;
        case DIST_EXP: /* mean 50 us, at least 1 ns */
            x[i] = 1 + (int64_t)(-log(rng_unit()) * 50000.0);
            break;
        case DIST_CONST:
            x[i] = 123457;
            break;
        default: /* 80 % around 2 us, 20 % around 40 ms */
            x[i] = (rng_next() % 5 != 0) ? 2000 + (int64_t)(rng_next() % 500)
                                         : 40000000 + (int64_t)(rng_next() % 9000000);
            break;
        }
    }
}

static void test_init_layout(void)
{
    dra_hist_t h;
    CHECK_EQ_I64(dra_hist_init(&h, 0, 100, 3), DRA_EINVAL);
    CHECK(h.counts == NULL);
    CHECK_EQ_I64(dra_hist_init(&h, 10, 19, 3), DRA_EINVAL);
    CHECK_EQ_I64(dra_hist_init(&h, 1, 100, 0), DRA_EINVAL);
    CHECK_EQ_I64(dra_hist_init(&h, 1, 100, 6), DRA_EINVAL);
    CHECK_EQ_I64(dra_hist_init(&h, 1, INT64_MAX, 3), DRA_EINVAL);
    dra_hist_fini(&h); /* safe on a failed init */

    /* 1 ns .. 1 h at 3 digits: 2048 sub-buckets, 32 buckets, 33*1024 counters (PERF-ANCHORS §4.1). */
    CHECK_OK(dra_hist_init(&h, DRA_HIST_LOWEST, DRA_HIST_HIGHEST, DRA_HIST_SIGFIGS));
    CHECK_EQ_I64(h.sub_bucket_count, 2048);
    CHECK_EQ_I64(h.bucket_count, 32);
    CHECK_EQ_I64(h.counts_len, 33792);
    CHECK_EQ_U64(dra_hist_memory_size(&h), sizeof(dra_hist_t) + 270336);
    /* Bucket 0 has unit width; 2048..4095 width 2; 1e6 lies in width-512 buckets. */
    CHECK_EQ_I64(dra_hist_lowest_equivalent(&h, 2047), 2047);
    CHECK_EQ_I64(dra_hist_highest_equivalent(&h, 2047), 2047);
    CHECK_EQ_I64(dra_hist_lowest_equivalent(&h, 2049), 2048);
    CHECK_EQ_I64(dra_hist_highest_equivalent(&h, 2049), 2049);
    CHECK_EQ_I64(dra_hist_lowest_equivalent(&h, 1000000), 999936);
    CHECK_EQ_I64(dra_hist_highest_equivalent(&h, 1000000), 1000447);
    int64_t lo = 0, hi = 0;
    CHECK_OK(dra_hist_bucket_range(&h, h.counts_len - 1, &lo, &hi));
    CHECK(hi >= DRA_HIST_HIGHEST);
    CHECK_EQ_I64(dra_hist_bucket_range(&h, h.counts_len, &lo, &hi), DRA_EINVAL);
    CHECK_EQ_I64(dra_hist_bucket_range(&h, -1, &lo, &hi), DRA_EINVAL);
    dra_hist_fini(&h);
    CHECK(h.counts == NULL);

    /* Other digit counts (HdrHistogram's configuration for the same range). */
    static const struct { int sig; int32_t sub, buckets; } want[] = {
        {1, 32, 38}, {2, 256, 35}, {4, 32768, 28}, {5, 262144, 25}};
    for (size_t i = 0; i < DRA_ARRAY_LEN(want); i++) {
        CHECK_OK(dra_hist_init(&h, 1, DRA_HIST_HIGHEST, want[i].sig));
        CHECK_EQ_I64(h.sub_bucket_count, want[i].sub);
        CHECK_EQ_I64(h.bucket_count, want[i].buckets);
        CHECK_EQ_I64(h.counts_len, (want[i].buckets + 1) * want[i].sub / 2);
        dra_hist_fini(&h);
    }
    /* lowest > 1: unit of 512 ns (floor(log2(1000)) = 9). */
    CHECK_OK(dra_hist_init(&h, 1000, DRA_HIST_HIGHEST, 3));
    CHECK_EQ_I64(h.unit_magnitude, 9);
    CHECK_EQ_I64(dra_hist_lowest_equivalent(&h, 1000), 512);
    CHECK_EQ_I64(dra_hist_highest_equivalent(&h, 1000), 1023);
    dra_hist_fini(&h);
}

/* Every percentile within 10^-sigfigs (relative) of the exact order statistic x_(k),
 * k = max(1, (int64)(p/100 * n + 0.5)) on the sorted samples; and never below it for p > 0. */
static void check_accuracy(int dist, int sig, const int64_t *sorted, size_t n, bool sweep)
{
    dra_hist_t h;
    CHECK_OK(dra_hist_init(&h, 1, DRA_HIST_HIGHEST, sig));
    if (!h.counts)
        return;
    for (size_t i = 0; i < n; i++)
        dra_hist_record(&h, sorted[(i * 7919) % n]); /* recording order does not matter */
    double tol = pow(10.0, -sig);
    static const double key[] = {0, 0.1, 1, 10, 25, 50, 75, 90, 95, 99, 99.9, 99.99, 99.999, 100};
    size_t steps = sweep ? 401 : DRA_ARRAY_LEN(key);
    int bad = 0;
    for (size_t s = 0; s < steps; s++) {
        double p = sweep ? (double)s * 0.25 : key[s];
        int64_t k = (int64_t)(p / 100.0 * (double)n + 0.5);
        if (k < 1)
            k = 1;
        int64_t exact = sorted[k - 1];
        int64_t got = dra_hist_percentile(&h, p);
        double err = fabs((double)got - (double)exact);
        bool ok = err <= tol * (double)exact && (p == 0.0 || got >= exact);
        if (!ok && bad++ < 5)
            fprintf(stderr, "  %s sig=%d p=%g: got %lld, exact %lld\n", dist_name[dist], sig, p,
                    (long long)got, (long long)exact);
    }
    CHECK_EQ_I64(bad, 0);

    /* min / max / mean / stddev against the exact figures. */
    double sum = 0, sumsq = 0;
    for (size_t i = 0; i < n; i++) {
        sum += (double)sorted[i];
        sumsq += (double)sorted[i] * (double)sorted[i];
    }
    double mean = sum / (double)n;
    double var = 0;
    for (size_t i = 0; i < n; i++)
        var += ((double)sorted[i] - mean) * ((double)sorted[i] - mean);
    double sd = sqrt(var / (double)n);
    int64_t mn = dra_hist_min(&h), mx = dra_hist_max(&h);
    CHECK(mn <= sorted[0] && (double)(sorted[0] - mn) <= tol * (double)sorted[0]);
    CHECK(mx >= sorted[n - 1] && (double)(mx - sorted[n - 1]) <= tol * (double)sorted[n - 1]);
    CHECK_NEAR(dra_hist_mean(&h), mean, tol * mean);
    /* Each sample moves by at most tol * x_i, so sd moves by at most tol * rms(x). */
    CHECK_NEAR(dra_hist_stddev(&h), sd, tol * sqrt(sumsq / (double)n) + 1e-9);
    CHECK_EQ_I64(dra_hist_count(&h), (int64_t)n);
    CHECK_EQ_I64(dra_hist_out_of_range(&h), 0);
    dra_hist_fini(&h);
}

static void test_accuracy(void)
{
    enum { N = 100000 };
    int64_t *x = malloc(N * sizeof *x);
    CHECK(x != NULL);
    if (!x)
        return;
    for (int d = 0; d < DIST_COUNT; d++) {
        fill(d, x, N);
        qsort(x, N, sizeof *x, cmp_i64);
        for (int sig = 1; sig <= 5; sig++)
            check_accuracy(d, sig, x, N, sig <= 4); /* 5 digits: 3.4M counters, key percentiles only */
    }
    /* Small samples, where rounding of the rank matters most. */
    for (size_t n = 1; n <= 12; n++) {
        fill(DIST_EXP, x, n);
        qsort(x, n, sizeof *x, cmp_i64);
        check_accuracy(DIST_EXP, 3, x, n, true);
    }
    free(x);
}

static bool same_counts(const dra_hist_t *a, const dra_hist_t *b)
{
    return a->counts_len == b->counts_len && a->total_count == b->total_count &&
           a->out_of_range == b->out_of_range &&
           memcmp(a->counts, b->counts, (size_t)a->counts_len * sizeof *a->counts) == 0;
}

static void test_merge(void)
{
    enum { N = 20000 };
    static int64_t xa[N], xb[N];
    fill(DIST_EXP, xa, N);
    fill(DIST_BIMODAL, xb, N);
    dra_hist_t a, b, both, other;
    CHECK_OK(dra_hist_init(&a, 1, DRA_HIST_HIGHEST, 3));
    CHECK_OK(dra_hist_init(&b, 1, DRA_HIST_HIGHEST, 3));
    CHECK_OK(dra_hist_init(&both, 1, DRA_HIST_HIGHEST, 3));
    for (size_t i = 0; i < N; i++) {
        dra_hist_record(&a, xa[i]);
        dra_hist_record(&both, xa[i]);
        dra_hist_record(&b, xb[i]);
        dra_hist_record(&both, xb[i]);
    }
    dra_hist_record(&b, 0); /* an out-of-range value travels with the merge */
    dra_hist_record(&both, 0);
    CHECK_OK(dra_hist_merge(&a, &b));
    CHECK(same_counts(&a, &both));
    CHECK_EQ_I64(a.total_count, 2 * N + 1);
    CHECK_EQ_I64(a.out_of_range, 1);
    CHECK_EQ_I64(dra_hist_percentile(&a, 99.0), dra_hist_percentile(&both, 99.0));

    /* Different configuration: refused, destination unchanged. */
    CHECK_OK(dra_hist_init(&other, 1, DRA_HIST_HIGHEST, 2));
    dra_hist_record(&other, 5);
    CHECK_EQ_I64(dra_hist_merge(&a, &other), DRA_EINVAL);
    CHECK(same_counts(&a, &both));
    dra_hist_fini(&other);
    CHECK_OK(dra_hist_init(&other, 1, 60000000000, 3));
    CHECK_EQ_I64(dra_hist_merge(&a, &other), DRA_EINVAL);
    dra_hist_fini(&other);

    dra_hist_reset(&a);
    CHECK_EQ_I64(a.total_count, 0);
    CHECK_EQ_I64(a.out_of_range, 0);
    CHECK_EQ_I64(dra_hist_max(&a), 0);
    CHECK_EQ_I64(dra_hist_percentile(&a, 50), 0);
    dra_hist_iter_t it;
    dra_hist_iter_init(&it, &a);
    CHECK(!dra_hist_iter_next(&it)); /* every bucket is empty again */
    dra_hist_fini(&a);
    dra_hist_fini(&b);
    dra_hist_fini(&both);
}

static void test_clamp(void)
{
    dra_hist_t h;
    CHECK_OK(dra_hist_init(&h, 1, DRA_HIST_HIGHEST, 3));
    dra_hist_record(&h, 0);
    dra_hist_record(&h, -42);
    dra_hist_record(&h, INT64_MIN);
    CHECK_EQ_I64(h.out_of_range, 3);
    CHECK_EQ_I64(h.total_count, 3);
    CHECK_EQ_I64(dra_hist_min(&h), 1); /* clamped to lowest */
    CHECK_EQ_I64(dra_hist_max(&h), 1);
    dra_hist_record(&h, DRA_HIST_HIGHEST); /* the bound itself is in range */
    CHECK_EQ_I64(h.out_of_range, 3);
    dra_hist_record(&h, DRA_HIST_HIGHEST + 1);
    dra_hist_record_n(&h, INT64_MAX, 5);
    CHECK_EQ_I64(h.out_of_range, 9);
    CHECK_EQ_I64(h.total_count, 10);
    CHECK_EQ_I64(dra_hist_max(&h), dra_hist_highest_equivalent(&h, DRA_HIST_HIGHEST));
    CHECK(dra_hist_max(&h) >= DRA_HIST_HIGHEST);
    CHECK_EQ_I64(dra_hist_percentile(&h, 100), dra_hist_max(&h));
    CHECK_EQ_I64(dra_hist_percentile(&h, 30), 1);
    CHECK_EQ_I64(dra_hist_percentile(&h, 0), 1);
    /* Out-of-range p is clamped. */
    CHECK_EQ_I64(dra_hist_percentile(&h, -5), 1);
    CHECK_EQ_I64(dra_hist_percentile(&h, 250), dra_hist_max(&h));
    /* 1 ns .. 1 h: 1 h itself is exact to 3 digits. */
    CHECK(llabs(dra_hist_max(&h) - DRA_HIST_HIGHEST) <= DRA_HIST_HIGHEST / 1000);
    dra_hist_fini(&h);

    /* lowest = 1000: 999 clamps up, record_n counts n clamps. */
    CHECK_OK(dra_hist_init(&h, 1000, 1000000, 3));
    dra_hist_record_n(&h, 999, 4);
    dra_hist_record_n(&h, 1000, 2);
    CHECK_EQ_I64(h.out_of_range, 4);
    CHECK_EQ_I64(h.counts[dra_hist__index(&h, 1000)], 6);
    dra_hist_fini(&h);
}

static int write_hgrm_string(const dra_hist_t *h, double scale, int ticks, char *buf, size_t len)
{
    FILE *f = tmpfile();
    if (!f)
        return -1;
    int rc = dra_hist_write_hgrm(h, f, scale, ticks);
    size_t n = 0;
    if (rc == 0) {
        rewind(f);
        n = fread(buf, 1, len - 1, f);
    }
    buf[n] = '\0';
    fclose(f);
    return rc;
}

static void test_roundtrip(void)
{
    enum { N = 50000 };
    static int64_t x[N];
    fill(DIST_BIMODAL, x, N);
    dra_hist_t h, r1, r2;
    CHECK_OK(dra_hist_init(&h, 1, DRA_HIST_HIGHEST, 3));
    CHECK_OK(dra_hist_init(&r1, 1, DRA_HIST_HIGHEST, 3));
    CHECK_OK(dra_hist_init(&r2, 1, DRA_HIST_HIGHEST, 3));
    for (size_t i = 0; i < N; i++)
        dra_hist_record(&h, x[i]);
    dra_hist_record(&h, 0); /* clamped: lands in the bucket of 1 */

    dra_hist_iter_t it;
    dra_hist_iter_init(&it, &h);
    int64_t seen = 0, prev_hi = -1;
    int nonempty = 0;
    while (dra_hist_iter_next(&it)) {
        const dra_hist_bucket_t *b = &it.bucket;
        CHECK(b->count > 0);
        CHECK(b->lo > prev_hi); /* increasing, disjoint ranges */
        CHECK(b->lo <= b->hi);
        CHECK_EQ_I64(dra_hist_lowest_equivalent(&h, b->hi), b->lo);
        prev_hi = b->hi;
        seen += b->count;
        nonempty++;
        CHECK_OK(dra_hist_set_bucket(&r1, b->index, b->count));
        dra_hist_record_n(&r2, b->lo, b->count);
    }
    CHECK(!dra_hist_iter_next(&it)); /* stays exhausted */
    CHECK_EQ_I64(seen, h.total_count);
    CHECK(nonempty > 100);
    r1.out_of_range = h.out_of_range;
    r2.out_of_range = h.out_of_range;
    CHECK(same_counts(&h, &r1));
    CHECK(same_counts(&h, &r2));
    static char a[65536], b[65536];
    CHECK_OK(write_hgrm_string(&h, 1000.0, 5, a, sizeof a));
    CHECK_OK(write_hgrm_string(&r1, 1000.0, 5, b, sizeof b));
    CHECK_STREQ(a, b);
    CHECK_EQ_I64(dra_hist_min(&h), dra_hist_min(&r1));
    CHECK_EQ_I64(dra_hist_max(&h), dra_hist_max(&r2));

    /* set_bucket replaces (not adds) and rejects bad input. */
    CHECK_OK(dra_hist_set_bucket(&r1, it.h->counts_len - 1, 7));
    CHECK_EQ_I64(r1.total_count, h.total_count + 7);
    CHECK_OK(dra_hist_set_bucket(&r1, it.h->counts_len - 1, 0));
    CHECK_EQ_I64(r1.total_count, h.total_count);
    CHECK_EQ_I64(dra_hist_set_bucket(&r1, -1, 1), DRA_EINVAL);
    CHECK_EQ_I64(dra_hist_set_bucket(&r1, r1.counts_len, 1), DRA_EINVAL);
    CHECK_EQ_I64(dra_hist_set_bucket(&r1, 0, -1), DRA_EINVAL);
    dra_hist_fini(&h);
    dra_hist_fini(&r1);
    dra_hist_fini(&r2);
}

/* Parse an .hgrm text: header, blank line, rows, 3-line footer; check the plotters' expectations. */
static void check_hgrm_parses(const char *text, int64_t total)
{
    const char *p = text;
    CHECK(strncmp(p, "       Value   Percentile   TotalCount 1/(1-Percentile)\n\n", 57) == 0);
    p = strchr(p, '\n');
    p = p ? p + 2 : text + strlen(text);
    double prev_v = -1, prev_p = -1;
    long long prev_c = -1, last_c = -1;
    int rows = 0;
    while (*p && *p != '#') {
        double v, pc, inv;
        long long c;
        char invs[32];
        int got = sscanf(p, "%lf %lf %lld %31s", &v, &pc, &c, invs);
        CHECK_EQ_I64(got, 4);
        if (got != 4)
            return;
        inv = strcmp(invs, "inf") == 0 ? INFINITY : strtod(invs, NULL);
        CHECK(v >= prev_v);  /* values never decrease */
        CHECK(pc > prev_p);  /* percentiles strictly increase */
        CHECK(c >= prev_c);  /* cumulative counts never decrease */
        CHECK(pc >= 0.99 || fabs(inv - 1.0 / (1.0 - pc)) <= 0.01 * inv);
        prev_v = v;
        prev_p = pc;
        prev_c = c;
        last_c = c;
        rows++;
        p = strchr(p, '\n');
        if (!p)
            return;
        p++;
    }
    CHECK(rows >= 2);
    CHECK(prev_p == 1.0); /* last row is 100 % */
    CHECK_EQ_I64(last_c, total);
    CHECK(strncmp(p, "#[Mean    = ", 12) == 0);
    const char *max = strstr(p, "\n#[Max     = ");
    CHECK(max != NULL);
    CHECK(max && strstr(max + 1, "\n#[Buckets = ") != NULL);
    long long tc = -1;
    CHECK(max && sscanf(strstr(max, "Total count    =") + 16, "%lld", &tc) == 1);
    CHECK_EQ_I64(tc, total);
}

static void test_hgrm_parses(void)
{
    static char buf[200000];
    for (int d = 0; d < DIST_COUNT; d++) {
        enum { N = 30000 };
        static int64_t x[N];
        fill(d, x, N);
        dra_hist_t h;
        CHECK_OK(dra_hist_init(&h, 1, DRA_HIST_HIGHEST, 3));
        for (size_t i = 0; i < N; i++)
            dra_hist_record(&h, x[i]);
        for (int ticks = 1; ticks <= 10; ticks += 4) {
            CHECK_OK(write_hgrm_string(&h, 1000.0, ticks, buf, sizeof buf));
            check_hgrm_parses(buf, N);
        }
        dra_hist_fini(&h);
    }
    dra_hist_t h;
    CHECK_OK(dra_hist_init(&h, 1, DRA_HIST_HIGHEST, 3));
    CHECK_EQ_I64(dra_hist_write_hgrm(&h, stdout, 0.0, 5), DRA_EINVAL);
    CHECK_EQ_I64(dra_hist_write_hgrm(&h, stdout, 1.0, 0), DRA_EINVAL);
    dra_hist_fini(&h);
}

/*
 * Golden texts: HdrHistogram_c's hdr_percentiles_print(h, f, ticks, scale, CLASSIC) output for a
 * histogram (1, 3600000000000, 3) fed the same values. Note how 2048 and 2049 share one width-2
 * bucket (reported as 2049), 4097 reports 4099 and 1,000,000 reports 1,000,447.
 */
static const char golden_tiny[] =
    "       Value   Percentile   TotalCount 1/(1-Percentile)\n"
    "\n"
    "       1.000     0.000000            1         1.00\n"
    "       2.000     0.100000            2         1.11\n"
    "       3.000     0.200000            3         1.25\n"
    "     100.000     0.300000            5         1.43\n"
    "    1000.000     0.400000            6         1.67\n"
    "    1500.000     0.500000            7         2.00\n"
    "    2047.000     0.550000            8         2.22\n"
    "    2049.000     0.600000           10         2.50\n"
    "    2049.000     0.650000           10         2.86\n"
    "    2049.000     0.700000           10         3.33\n"
    "    4099.000     0.750000           11         4.00\n"
    "    4099.000     0.775000           11         4.44\n"
    " 1000447.000     0.800000           14         5.00\n"
    " 1000447.000     1.000000           14          inf\n"
    "#[Mean    =   215245.000, StdDeviation   =   409926.737]\n"
    "#[Max     =  1000447.000, Total count    =           14]\n"
    "#[Buckets =           32, SubBuckets     =         2048]\n";

/* Same layout at 2 digits, one value of 1 ns, printed in microseconds with 2 ticks. */
static const char golden_one[] =
    "       Value   Percentile   TotalCount 1/(1-Percentile)\n"
    "\n"
    "        0.00     0.000000            1         1.00\n"
    "        0.00     1.000000            1          inf\n"
    "#[Mean    =        0.001, StdDeviation   =        0.000]\n"
    "#[Max     =        0.001, Total count    =            1]\n"
    "#[Buckets =           35, SubBuckets     =          256]\n";

static const char golden_empty[] =
    "       Value   Percentile   TotalCount 1/(1-Percentile)\n"
    "\n"
    "       0.000     1.000000            0          inf\n"
    "#[Mean    =        0.000, StdDeviation   =        0.000]\n"
    "#[Max     =        0.000, Total count    =            0]\n"
    "#[Buckets =           32, SubBuckets     =         2048]\n";

static void test_hgrm_golden(void)
{
    static char buf[8192];
    dra_hist_t h;
    CHECK_OK(dra_hist_init(&h, 1, DRA_HIST_HIGHEST, 3));
    CHECK_OK(write_hgrm_string(&h, 1.0, 5, buf, sizeof buf));
    CHECK_STREQ(buf, golden_empty);
    static const int64_t v[] = {1, 2, 3, 5, 100, 1000, 1500, 2047, 2048, 2049, 4097};
    for (size_t i = 0; i < DRA_ARRAY_LEN(v); i++)
        dra_hist_record(&h, v[i]);
    dra_hist_record_n(&h, 1000000, 3);
    CHECK_OK(write_hgrm_string(&h, 1.0, 5, buf, sizeof buf));
    CHECK_STREQ(buf, golden_tiny);
    CHECK_NEAR(dra_hist_mean(&h), 215245.0, 1e-9);
    CHECK_NEAR(dra_hist_stddev(&h), 409926.737, 0.001);
    dra_hist_fini(&h);

    CHECK_OK(dra_hist_init(&h, 1, DRA_HIST_HIGHEST, 2));
    dra_hist_record(&h, 1);
    CHECK_OK(write_hgrm_string(&h, 1000.0, 2, buf, sizeof buf));
    CHECK_STREQ(buf, golden_one);
    dra_hist_fini(&h);
}

/* dra_hist_check: holds after every operation, fails on each broken invariant. */
static void test_check(void)
{
    dra_hist_t h, g;
    memset(&h, 0, sizeof h);
    CHECK(dra_hist_check(&h)); /* zeroed = empty */
    CHECK_OK(dra_hist_init(&h, DRA_HIST_LOWEST, DRA_HIST_HIGHEST, DRA_HIST_SIGFIGS));
    CHECK_OK(dra_hist_init(&g, DRA_HIST_LOWEST, DRA_HIST_HIGHEST, DRA_HIST_SIGFIGS));
    CHECK(dra_hist_check(&h));
    for (int64_t v = 0; v < 100000; v += 7)
        dra_hist_record(&h, v * 997);
    dra_hist_record_n(&g, -5, 3);
    CHECK(dra_hist_check(&h) && dra_hist_check(&g));
    CHECK_OK(dra_hist_merge(&h, &g));
    CHECK(dra_hist_check(&h));
    CHECK_OK(dra_hist_set_bucket(&h, 10, 42));
    CHECK(dra_hist_check(&h));
    /* each invariant broken in turn */
    h.total_count++;
    CHECK(!dra_hist_check(&h));
    h.total_count--;
    h.counts[3] = -1;
    h.total_count -= 1 + 0; /* keep the sum equal: only the sign is wrong */
    CHECK(!dra_hist_check(&h));
    h.total_count += 1;
    h.counts[3] = 0;
    CHECK(dra_hist_check(&h));
    int64_t oor = h.out_of_range;
    h.out_of_range = h.total_count + 1;
    CHECK(!dra_hist_check(&h));
    h.out_of_range = oor;
    h.counts_len--;
    CHECK(!dra_hist_check(&h));
    h.counts_len++;
    h.unit_magnitude++;
    CHECK(!dra_hist_check(&h));
    h.unit_magnitude--;
    CHECK(dra_hist_check(&h));
    dra_hist_reset(&h);
    CHECK(dra_hist_check(&h));
    dra_hist_fini(&h);
    dra_hist_fini(&g);
    CHECK(dra_hist_check(&h));
}

/* A dumped histogram read back from a result file: an out_of_range beyond the total count or
 * counts that overflow are rejected (the file is untrusted), a good one passes dra_hist_check. */
static void test_from_json(void)
{
    dra_diag_t d;
    dra_hist_t h;
    json_t *o = json_pack("{s:I, s:I, s:i, s:[[I, I], [I, I]], s:I}", "lowest", (json_int_t)1,
                          "highest", (json_int_t)DRA_HIST_HIGHEST, "sigfigs", 3, "buckets",
                          (json_int_t)100, (json_int_t)5, (json_int_t)2000, (json_int_t)7,
                          "out_of_range", (json_int_t)2);
    CHECK(o != NULL);
    dra_diag_clear(&d);
    CHECK_OK(dra_result_hist_from_json(o, &h, &d));
    CHECK(dra_hist_check(&h) && h.total_count == 12 && h.out_of_range == 2);
    dra_hist_fini(&h);
    json_object_set_new(o, "out_of_range", json_integer(13));
    dra_diag_clear(&d);
    CHECK(dra_result_hist_from_json(o, &h, &d) == DRA_EINVAL);
    CHECK_MSG(strstr(d.msg, "out_of_range 13 outside 0..12") != NULL, "%s", d.msg);
    json_object_set_new(o, "out_of_range", json_integer(0));
    json_array_append_new(json_object_get(o, "buckets"),
                          json_pack("[I, I]", (json_int_t)50, (json_int_t)INT64_MAX));
    dra_diag_clear(&d);
    CHECK(dra_result_hist_from_json(o, &h, &d) == DRA_EINVAL);
    json_decref(o);
}

/* .hgrm file names: one file per histogram (shapes "x/y" and "x_y" shared one), nothing leaves
 * the directory, and the names of ordinary shapes stay as they were. */
static void test_hgrm_file_names(void)
{
    char a[128], b[128];
    CHECK(dra_hist_hgrm_file_name("gpu-1/pod/any", a, sizeof a) &&
          strcmp(a, "gpu-1_pod_any.hgrm") == 0);
    CHECK(dra_hist_hgrm_file_name("all/node_search/unsatisfiable", a, sizeof a) &&
          strcmp(a, "all_node_search_unsatisfiable.hgrm") == 0);
    CHECK(dra_hist_hgrm_file_name("x/y/pod/any", a, sizeof a) &&
          dra_hist_hgrm_file_name("x_y/pod/any", b, sizeof b) && strcmp(a, b) != 0);
    CHECK(strcmp(a, "x%2Fy_pod_any.hgrm") == 0 && strcmp(b, "x%5Fy_pod_any.hgrm") == 0);
    CHECK(dra_hist_hgrm_file_name("x%5Fy/pod/any", a, sizeof a) && strcmp(a, "x%255Fy_pod_any.hgrm") == 0);
    CHECK(dra_hist_hgrm_file_name("../pod/any", a, sizeof a) && strchr(a, '/') == NULL && a[0] != '.');
    CHECK(dra_hist_hgrm_file_name("/pod/any", a, sizeof a) && strcmp(a, "_pod_any.hgrm") == 0);
    CHECK(dra_hist_hgrm_file_name("pod/any", a, sizeof a) == NULL);
    CHECK(dra_hist_hgrm_file_name("gpu-1/pod/any", a, 18) == NULL);
    CHECK(dra_hist_hgrm_file_name("gpu-1/pod/any", a, 19) != NULL);
}

int main(void)
{
    RUN(test_check);
    RUN(test_from_json);
    RUN(test_init_layout);
    RUN(test_accuracy);
    RUN(test_merge);
    RUN(test_clamp);
    RUN(test_roundtrip);
    RUN(test_hgrm_parses);
    RUN(test_hgrm_golden);
    RUN(test_hgrm_file_names);
    return check_summary();
}
