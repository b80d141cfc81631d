/*
 * test_probe.c - the statistics and parsing helpers of harness/bench/probe.h (hand-computed
 * values in the comments), and one tiny measurement: every number positive, sizes in order.
 */
#include <math.h>
#include <stdlib.h>

#include "check.h"
#include "probe.h"

static void test_summarize(void)
{
    /* odd count: sorted 1 2 3 5 9, median 3; p90 nearest rank ceil(4.5) = 5th = 9 */
    int64_t odd[] = {9, 1, 5, 3, 2};
    dra_probe_dist_t d;
    dra_probe_summarize(odd, 5, &d);
    CHECK_NEAR(d.p50, 3, 0);
    CHECK_NEAR(d.p90, 9, 0);
    CHECK_NEAR(d.min, 1, 0);
    CHECK_NEAR(d.max, 9, 0);
    CHECK_EQ_U64(d.n, 5);
    CHECK(odd[0] == 1 && odd[4] == 9); /* sorted in place */
    /* even count: sorted 10 20 30 41, median (20 + 30) / 2 = 25; p90 ceil(3.6) = 4th = 41 */
    int64_t even[] = {41, 10, 30, 20};
    dra_probe_summarize(even, 4, &d);
    CHECK_NEAR(d.p50, 25, 0);
    CHECK_NEAR(d.p90, 41, 0);
    /* two values: median their mean, 1.5 */
    int64_t two[] = {2, 1};
    dra_probe_summarize(two, 2, &d);
    CHECK_NEAR(d.p50, 1.5, 0);
    /* one value */
    int64_t one[] = {7};
    dra_probe_summarize(one, 1, &d);
    CHECK_NEAR(d.p50, 7, 0);
    CHECK_NEAR(d.p90, 7, 0);
    /* ten values 1..10: p90 is the 9th, 9; twenty: the 18th */
    int64_t ten[10], twenty[20];
    for (int i = 0; i < 10; i++)
        ten[i] = 10 - i;
    for (int i = 0; i < 20; i++)
        twenty[i] = i + 1;
    dra_probe_summarize(ten, 10, &d);
    CHECK_NEAR(d.p90, 9, 0);
    CHECK_NEAR(d.p50, 5.5, 0);
    dra_probe_summarize(twenty, 20, &d);
    CHECK_NEAR(d.p90, 18, 0);
    dra_probe_summarize(NULL, 0, &d);
    CHECK(isnan(d.p50) && isnan(d.p90) && d.n == 0);
}

static void test_slope(void)
{
    /* exact lines: y = 3 + 12.5 k over the probe's K; y = -2 x; a constant */
    double k[DRA_PROBE_NHINT], y[DRA_PROBE_NHINT], z[DRA_PROBE_NHINT], c[DRA_PROBE_NHINT];
    for (int i = 0; i < DRA_PROBE_NHINT; i++) {
        k[i] = dra_probe_hint_counts[i];
        y[i] = 3 + 12.5 * k[i];
        z[i] = -2 * k[i];
        c[i] = 40;
    }
    CHECK_NEAR(dra_probe_slope(k, y, DRA_PROBE_NHINT), 12.5, 1e-12);
    CHECK_NEAR(dra_probe_slope(k, z, DRA_PROBE_NHINT), -2, 1e-12);
    CHECK_NEAR(dra_probe_slope(k, c, DRA_PROBE_NHINT), 0, 1e-12);
    /* not a line: (0,0) (1,1) (2,0) (3,3): mx 1.5, my 1; sxy = (-1.5)(-1) + (-0.5)(0) +
     * (0.5)(-1) + (1.5)(2) = 1.5 - 0.5 + 3 = 4; sxx = 2.25 + 0.25 + 0.25 + 2.25 = 5 -> 0.8 */
    double x4[] = {0, 1, 2, 3}, y4[] = {0, 1, 0, 3};
    CHECK_NEAR(dra_probe_slope(x4, y4, 4), 0.8, 1e-12);
    /* two points: the line through them */
    double x2[] = {4, 8}, y2[] = {10, 30};
    CHECK_NEAR(dra_probe_slope(x2, y2, 2), 5, 1e-12);
    CHECK(isnan(dra_probe_slope(x2, y2, 1)));
    double same[] = {3, 3, 3};
    CHECK(isnan(dra_probe_slope(same, y4, 3)));
    double withnan[] = {1, NAN, 2};
    CHECK(isnan(dra_probe_slope(x4, withnan, 3)));
}

static void test_sizes(void)
{
    uint64_t v = 0;
    CHECK(dra_probe_parse_size("32K", &v) && v == 32768);
    CHECK(dra_probe_parse_size("1m", &v) && v == 1048576);
    CHECK(dra_probe_parse_size("2GiB", &v) && v == (uint64_t)2 << 30);
    CHECK(dra_probe_parse_size("4096", &v) && v == 4096);
    CHECK(dra_probe_parse_size("64G", &v) && v == (uint64_t)64 << 30);
    CHECK(!dra_probe_parse_size("65G", &v));
    CHECK(!dra_probe_parse_size("", &v));
    CHECK(!dra_probe_parse_size("K", &v));
    CHECK(!dra_probe_parse_size("-1K", &v));
    CHECK(!dra_probe_parse_size("1.5M", &v));
    CHECK(!dra_probe_parse_size("1T", &v));
    CHECK(!dra_probe_parse_size("1Mx", &v));
    CHECK(!dra_probe_parse_size("99999999999999999999999", &v));

    uint64_t out[DRA_PROBE_MAX_SIZES];
    size_t n = 0;
    char why[256];
    CHECK_EQ_I64(
        dra_probe_parse_sizes("1M,32K,1M,4096", out, DRA_PROBE_MAX_SIZES, &n, why, sizeof why),
        DRA_OK);
    CHECK_EQ_U64(n, 3);
    CHECK(out[0] == 4096 && out[1] == 32768 && out[2] == 1048576);
    CHECK_EQ_I64(dra_probe_parse_sizes("32K,12Q", out, DRA_PROBE_MAX_SIZES, &n, why, sizeof why),
                 DRA_EINVAL);
    CHECK(strstr(why, "'12Q' is not a size") != NULL);
    CHECK_EQ_I64(dra_probe_parse_sizes("32K,,1M", out, DRA_PROBE_MAX_SIZES, &n, why, sizeof why),
                 DRA_EINVAL);
    CHECK(strstr(why, "empty item") != NULL);
    CHECK_EQ_I64(dra_probe_parse_sizes("1K", out, DRA_PROBE_MAX_SIZES, &n, why, sizeof why),
                 DRA_EINVAL);
    CHECK(strstr(why, "'1K' is below 4K") != NULL);
    CHECK_EQ_I64(dra_probe_parse_sizes("5000", out, DRA_PROBE_MAX_SIZES, &n, why, sizeof why),
                 DRA_EINVAL);
    CHECK(strstr(why, "'5000' is not a multiple of 64") != NULL);
    CHECK_EQ_I64(dra_probe_parse_sizes("4K,8K,16K", out, 2, &n, why, sizeof why), DRA_EINVAL);
    CHECK(strstr(why, "more than 2 sizes") != NULL);

    char b[32];
    CHECK(strcmp(dra_probe_fmt_size(32768, b, sizeof b), "32 KiB") == 0);
    CHECK(strcmp(dra_probe_fmt_size((uint64_t)256 << 20, b, sizeof b), "256 MiB") == 0);
    CHECK(strcmp(dra_probe_fmt_size(3 << 29, b, sizeof b), "1.5 GiB") == 0);
    CHECK(strcmp(dra_probe_fmt_size(100, b, sizeof b), "100 B") == 0);
}

/* The grain: 4 KiB when the far touch saved less than half the miss, twice the far distance
 * when it saved more, 0 when a miss is too small to tell or an input is missing. */
static void test_xlat_grain(void)
{
    const uint64_t M = 1 << 20;
    /* the benchmark VM's figures: a read 1 MiB away saved nothing */
    CHECK_EQ_U64(dra_probe_xlat_grain(141, 400, 411, M, 10), 4096);
    /* it saved the miss: 2 MiB pages */
    CHECK_EQ_U64(dra_probe_xlat_grain(141, 150, 411, M, 10), 2 * M);
    /* the boundary: exactly half saved is a save (far - near > miss / 2 is 4 KiB) */
    CHECK_EQ_U64(dra_probe_xlat_grain(100, 150, 200, M, 1), 2 * M);
    CHECK_EQ_U64(dra_probe_xlat_grain(100, 151, 200, M, 1), 4096);
    /* a smaller far distance (a buffer under 2 MiB) bounds the grain by its double */
    CHECK_EQ_U64(dra_probe_xlat_grain(100, 100, 300, 256 << 10, 1), 512 << 10);
    /* a miss under 25 ns, or under two clock steps, tells nothing */
    CHECK_EQ_U64(dra_probe_xlat_grain(100, 120, 124, M, 1), 0);
    CHECK_EQ_U64(dra_probe_xlat_grain(100, 120, 125, M, 1), 4096);
    CHECK_EQ_U64(dra_probe_xlat_grain(100, 140, 139, M, 20), 0);
    CHECK_EQ_U64(dra_probe_xlat_grain(100, 140, 140, M, 20), 4096);
    /* none faster than near: nothing to tell */
    CHECK_EQ_U64(dra_probe_xlat_grain(200, 100, 100, M, 1), 0);
    /* missing inputs, a far distance under 8 KiB or not a power of two */
    CHECK_EQ_U64(dra_probe_xlat_grain(NAN, 400, 411, M, 10), 0);
    CHECK_EQ_U64(dra_probe_xlat_grain(141, NAN, 411, M, 10), 0);
    CHECK_EQ_U64(dra_probe_xlat_grain(141, 400, INFINITY, M, 10), 0);
    CHECK_EQ_U64(dra_probe_xlat_grain(141, 400, 411, 4096, 10), 0);
    CHECK_EQ_U64(dra_probe_xlat_grain(141, 400, 411, 0, 10), 0);
    CHECK_EQ_U64(dra_probe_xlat_grain(141, 400, 411, 3 << 12, 10), 0);
}

/* A tiny run: the numbers are positive and the sizes come back in order. */
static void test_run(void)
{
    dra_probe_opts_t o;
    dra_probe_opts_init(&o, true);
    o.nsizes = 2;
    o.sizes[0] = 4096;
    o.sizes[1] = 64 << 10;
    o.clock_reps = 101;
    o.lat_loads = 1000;
    o.hint_reps = 20;
    o.pause_ns = 1000;
    dra_probe_result_t *r = malloc(sizeof *r);
    CHECK(r != NULL);
    if (!r)
        return;
    dra_diag_t d;
    dra_diag_clear(&d);
    CHECK_EQ_I64(dra_probe_run(&o, r, &d), DRA_OK);
    CHECK_EQ_U64(r->nlat, 2);
    CHECK(r->lat[0].size == 4096 && r->lat[1].size == 65536);
    CHECK(r->lat[0].ns_per_load > 0 && r->lat[1].ns_per_load > 0);
    CHECK(r->clock.p50 >= 0 && r->clock.n == 101);
    CHECK_EQ_U64(r->hint_buffer, 65536);
    for (int i = 0; i < DRA_PROBE_NHINT; i++) {
        CHECK(r->hints[i].k == dra_probe_hint_counts[i]);
        CHECK(r->hints[i].cold.n == 20 && r->hints[i].cold.p90 >= r->hints[i].cold.p50);
    }
    CHECK(isfinite(r->cold_ns_per_line) && isfinite(r->warm_ns_per_line));
    /* the translation rows on the 64 KiB hint buffer: the far touch 32 KiB away, every kind
     * measured hint_reps times, the misses the p50s' differences, a grain 0, 4 KiB or 64 KiB */
    CHECK_EQ_U64(r->xlat.far_bytes, 32 << 10);
    for (int k = 0; k < DRA_PROBE_NXLAT; k++) {
        CHECK(r->xlat.load[k].n == 20 && r->xlat.load[k].p50 > 0);
        CHECK(r->xlat.hint[k].n == 20 && r->xlat.hint[k].p90 >= r->xlat.hint[k].p50);
    }
    CHECK(r->xlat.load_miss_ns ==
          r->xlat.load[DRA_PROBE_XNONE].p50 - r->xlat.load[DRA_PROBE_XNEAR].p50);
    CHECK(r->xlat.hint_miss_ns ==
          r->xlat.hint[DRA_PROBE_XNONE].p50 - r->xlat.hint[DRA_PROBE_XNEAR].p50);
    CHECK(r->xlat.grain == 0 || r->xlat.grain == 4096 || r->xlat.grain == 64 << 10);
    /* a hint buffer of its own; under 16 KiB: no translation rows */
    o.hint_size = 8192;
    CHECK_EQ_I64(dra_probe_run(&o, r, &d), DRA_OK);
    CHECK_EQ_U64(r->hint_buffer, 8192);
    CHECK(r->hint_pages.bytes == 8192 && r->nlat == 2);
    CHECK(r->xlat.far_bytes == 0 && r->xlat.grain == 0 && isnan(r->xlat.load_miss_ns));
    CHECK(r->xlat.load[0].n == 0 && isnan(r->xlat.hint[2].p50));
    o.hint_size = 100;
    CHECK_EQ_I64(dra_probe_run(&o, r, &d), DRA_EINVAL);
    o.hint_size = 0;
    /* options out of range: descending sizes */
    o.sizes[0] = 1 << 20;
    CHECK_EQ_I64(dra_probe_run(&o, r, &d), DRA_EINVAL);
    free(r);
}

int main(void)
{
    RUN(test_summarize);
    RUN(test_slope);
    RUN(test_sizes);
    RUN(test_xlat_grain);
    RUN(test_run);
    return check_summary();
}
