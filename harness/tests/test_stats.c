/*
 * test_stats.c - unit tests for harness/resultfile/stats.{h,c} against hand-computed tables (the arithmetic
 * is in the comments) and against values benchstat / go-moremath document for the same inputs.
 */
#include <math.h>
#include <stdlib.h>

#include "check.h"
#include "stats.h"

static void test_descriptive(void)
{
    double x[] = {5, 1, 4, 2, 3};
    double copy[] = {5, 1, 4, 2, 3};
    CHECK_NEAR(dra_stats_median(x, 5), 3, 0);
    for (int i = 0; i < 5; i++) /* input not reordered */
        CHECK(x[i] == copy[i]);
    CHECK_NEAR(dra_stats_median(x, 4), 3, 0); /* {5,1,4,2} sorted 1 2 4 5: (2+4)/2 */
    CHECK_NEAR(dra_stats_median(x, 1), 5, 0);
    CHECK(isnan(dra_stats_median(x, 0)));
    double withnan[] = {1, NAN, 2};
    CHECK(isnan(dra_stats_median(withnan, 3)));

    /* mean 3; squared deviations 4+4+1+1+0 = 10; sample variance 10/4 = 2.5 */
    CHECK_NEAR(dra_stats_mean(x, 5), 3, 0);
    CHECK_NEAR(dra_stats_stddev(x, 5), sqrt(2.5), 1e-15);
    CHECK(isnan(dra_stats_stddev(x, 1)));
    CHECK(isnan(dra_stats_mean(x, 0)));

    /* geomean {1, 4, 16} = (64)^(1/3) = 4; zeros omitted; negative -> NaN */
    double g[] = {1, 0, 4, 16};
    CHECK_NEAR(dra_stats_geomean(g, 4), 4, 1e-12);
    double gneg[] = {1, -4};
    CHECK(isnan(dra_stats_geomean(gneg, 2)));
    double gzero[] = {0, 0};
    CHECK(isnan(dra_stats_geomean(gzero, 2)));

    /* Quantile, Hyndman-Fan 8: h = 1/3 + q (n + 1/3). For 1..5 and q = 0.25: h = 1/3 + 0.25*16/3
     * = 5/3, so x_(1) + 2/3 (x_(2) - x_(1)) = 1.6667. q = 0.9: h = 1/3 + 4.8 = 5.1333 >= n -> 5. */
    double s[] = {3, 5, 1, 4, 2};
    CHECK_NEAR(dra_stats_quantile(s, 5, 0.25), 5.0 / 3.0, 1e-12);
    CHECK_NEAR(dra_stats_quantile(s, 5, 0.5), 3, 1e-12);
    CHECK_NEAR(dra_stats_quantile(s, 5, 0.9), 5, 0);
    CHECK_NEAR(dra_stats_quantile(s, 5, 0), 1, 0);
    CHECK_NEAR(dra_stats_quantile(s, 5, 1), 5, 0);
    CHECK(isnan(dra_stats_quantile(s, 0, 0.5)));

    /* Larger than the on-stack copy (64): median of 0..99 is 49.5. */
    double big[100];
    for (int i = 0; i < 100; i++)
        big[i] = 99 - i;
    CHECK_NEAR(dra_stats_median(big, 100), 49.5, 0);
    CHECK(big[0] == 99 && big[99] == 0);
}

static void seq(double *x, int n) /* 1..n, deliberately shuffled */
{
    for (int i = 0; i < n; i++)
        x[i] = (double)(((i * 7) % n) + 1);
}

static void test_median_ci(void)
{
    double x[100];
    dra_stats_ci_t ci;

    /*
     * n = 6, c = 0.95. Binomial(6, 1/2) x 64: k = 0..6 -> 1 6 15 20 15 6 1.
     * Start at mode x = ceil(7/2) - 1 = 3: mass 20, band [3,4).
     * neighbours 15 | 15 equal -> left:  35, [2,4)
     *            6  | 15       -> right: 50, [2,5)
     *            6  | 6  equal -> left:  56, [1,5)   (56/64 = 0.875 < 0.95)
     *            1  | 6        -> right: 62, [1,6)   (62/64 = 0.96875 >= 0.95)
     * CI = x_(1) .. x_(6): the whole sample, confidence 0.96875.
     */
    seq(x, 6);
    CHECK_OK(dra_stats_median_ci(x, 6, 0.95, &ci));
    CHECK_EQ_I64(ci.lo_order, 1);
    CHECK_EQ_I64(ci.hi_order, 6);
    CHECK(ci.finite);
    CHECK_NEAR(ci.lo, 1, 0);
    CHECK_NEAR(ci.hi, 6, 0);
    CHECK_NEAR(ci.center, 3.5, 0);
    CHECK_NEAR(ci.confidence, 0.96875, 1e-15);
    CHECK(!ci.ambiguous);

    /*
     * n = 5, c = 0.95. x 32: 1 5 10 10 5 1. Start x = ceil(3) - 1 = 2: 10, [2,3) (right neighbour
     * is also 10: ambiguous). 5|10 right: 20 [2,4); 5|5 left: 25 [1,4); 1|5 right: 30 [1,5)
     * (0.9375); 1|1 left: 31 [0,5) = 0.96875. Order 0 -> lo = -inf: benchstat prints "±∞".
     */
    CHECK_OK(dra_stats_median_ci(x, 5, 0.95, &ci));
    CHECK_EQ_I64(ci.lo_order, 0);
    CHECK_EQ_I64(ci.hi_order, 5);
    CHECK(!ci.finite);
    CHECK(isinf(ci.lo) && ci.lo < 0);
    CHECK_NEAR(ci.hi, 5, 0);
    CHECK_NEAR(ci.confidence, 0.96875, 1e-15);
    CHECK_EQ_I64(dra_stats_median_ci_min_samples(0.95), 6); /* "need >= 6 samples" */

    /*
     * n = 10, c = 0.95. x 1024: 1 10 45 120 210 252 210 120 45 10 1. Start x = ceil(5.5)-1 = 5:
     * 252 [5,6); 210|210 left 462 [4,6); 120|210 right 672 [4,7); 120|120 left 792 [3,7);
     * 45|120 right 912 [3,8); 45|45 left 957 [2,8) (0.9346); 10|45 right 1002 [2,9) = 0.978515625.
     * CI = x_(2) .. x_(9); last choice 10 vs 45 was not a tie -> not ambiguous.
     */
    seq(x, 10);
    CHECK_OK(dra_stats_median_ci(x, 10, 0.95, &ci));
    CHECK_EQ_I64(ci.lo_order, 2);
    CHECK_EQ_I64(ci.hi_order, 9);
    CHECK_NEAR(ci.lo, 2, 0);
    CHECK_NEAR(ci.hi, 9, 0);
    CHECK_NEAR(ci.center, 5.5, 0);
    CHECK_NEAR(ci.confidence, 1002.0 / 1024.0, 1e-15);
    CHECK(!ci.ambiguous);

    /* go-moremath's table for n = 4 and 5 (QuantileCI tests): confidence just above the mode's
     * mass is left-biased; c = 1 gives the full band [0, n+1). n=4 x16: 1 4 6 4 1. */
    CHECK_OK(dra_stats_median_ci(x, 4, 0.375, &ci)); /* exactly the mode: 6/16 */
    CHECK(ci.lo_order == 2 && ci.hi_order == 3 && !ci.ambiguous);
    CHECK_NEAR(ci.confidence, 0.375, 1e-15);
    CHECK_OK(dra_stats_median_ci(x, 4, 0.3750001, &ci)); /* 4|4 equal -> left: [1,3) 10/16 */
    CHECK(ci.lo_order == 1 && ci.hi_order == 3 && ci.ambiguous);
    CHECK_NEAR(ci.confidence, 0.625, 1e-15);
    CHECK_OK(dra_stats_median_ci(x, 4, 1.0, &ci));
    CHECK(ci.lo_order == 0 && ci.hi_order == 5 && ci.confidence == 1);
    CHECK_OK(dra_stats_median_ci(x, 5, 0.3125001, &ci)); /* x32: 10 + right 10 = [2,4) */
    CHECK(ci.lo_order == 2 && ci.hi_order == 4 && !ci.ambiguous);
    CHECK_OK(dra_stats_median_ci(x, 5, 0.99 - 0.03125, &ci)); /* trims the right-most count */
    CHECK(ci.lo_order == 0 && ci.hi_order == 5 && ci.ambiguous);
    CHECK_NEAR(ci.confidence, 1 - 0.03125, 1e-15);
    /* Other quantiles: n = 4, q = 0.25, tiny c: mode ceil(5/4)-1 = 1, PMF(1) = 4 (3/4)^3 (1/4)
     * = 0.421875 -> [1,2). Quantile 0 -> [0,1) with confidence 1. */
    CHECK_OK(dra_stats_quantile_ci(x, 4, 0.25, 0.001, &ci));
    CHECK(ci.lo_order == 1 && ci.hi_order == 2);
    CHECK_NEAR(ci.confidence, 0.421875, 1e-15);
    CHECK_OK(dra_stats_quantile_ci(x, 4, 0.0, 0.95, &ci));
    CHECK(ci.lo_order == 0 && ci.hi_order == 1 && ci.confidence == 1);

    /* n = 1: one value, no interval at any useful confidence. */
    double one = 42;
    CHECK_OK(dra_stats_median_ci(&one, 1, 0.95, &ci));
    CHECK(!ci.finite);
    CHECK_NEAR(ci.center, 42, 0);
    CHECK(ci.lo_order == 0 && ci.hi_order == 2);

    /*
     * n = 100 (normal approximation, n > 30): mu = 50, sigma = 5, z(0.025) = -1.959964:
     * l1 = 40.2002, r1 = 59.7998 -> l = floor(39.7002) + 1 = 40, r = ceil(59.2998) + 1 = 61;
     * confidence Phi((60.5-50)/5) - Phi((39.5-50)/5) = Phi(2.1) - Phi(-2.1) = 0.964271.
     * Left-biased r = 60: Phi(1.9) - Phi(-2.1) = 0.971283 - 0.017864 = 0.953419 >= 0.95 and
     * smaller -> taken, ambiguous. CI = x_(40) .. x_(60).
     */
    seq(x, 100);
    CHECK_OK(dra_stats_median_ci(x, 100, 0.95, &ci));
    CHECK_EQ_I64(ci.lo_order, 40);
    CHECK_EQ_I64(ci.hi_order, 60);
    CHECK_NEAR(ci.lo, 40, 0);
    CHECK_NEAR(ci.hi, 60, 0);
    CHECK_NEAR(ci.confidence, 0.953419, 2e-6);
    CHECK(ci.ambiguous);
    CHECK_NEAR(ci.center, 50.5, 0);

    /*
     * n = 31: mu = 15.5, sigma = sqrt(7.75) = 2.783882; l1 = 15.5 - 1.959964*2.783882 = 10.0437,
     * r1 = 20.9563 -> l = floor(9.5437)+1 = 10, r = ceil(20.4563)+1 = 22; confidence
     * Phi(6/2.783882) - Phi(-6/2.783882) = 1 - 2*Phi(-2.155264) = 1 - 2*0.0155706 = 0.968859;
     * biased r = 21 gives Phi(1.796053) - Phi(-2.155264) = 0.963757 - 0.015571 = 0.948186 < 0.95
     * -> not taken.
     */
    seq(x, 31);
    CHECK_OK(dra_stats_median_ci(x, 31, 0.95, &ci));
    CHECK_EQ_I64(ci.lo_order, 10);
    CHECK_EQ_I64(ci.hi_order, 22);
    CHECK_NEAR(ci.confidence, 0.968859, 2e-6);
    CHECK(!ci.ambiguous);

    /* Errors. */
    CHECK_EQ_I64(dra_stats_median_ci(x, 0, 0.95, &ci), DRA_EINVAL);
    CHECK_EQ_I64(dra_stats_median_ci(x, 5, 0.0, &ci), DRA_EINVAL);
    CHECK_EQ_I64(dra_stats_median_ci(x, 5, 1.5, &ci), DRA_EINVAL);
    CHECK_EQ_I64(dra_stats_median_ci(x, 5, NAN, &ci), DRA_EINVAL);
    CHECK_EQ_I64(dra_stats_quantile_ci(x, 5, 1.5, 0.95, &ci), DRA_EINVAL);
    double nanx[] = {1, 2, NAN};
    CHECK_EQ_I64(dra_stats_median_ci(nanx, 3, 0.95, &ci), DRA_EINVAL);
}

static void check_mw(const double *a, size_t na, const double *b, size_t nb, double want_u,
                     double want_p, double tol, int line)
{
    double p = -1, u = -1;
    int rc = dra_stats_mann_whitney(a, na, b, nb, &p, &u);
    CHECK_MSG(rc == 0 && fabs(u - want_u) <= 1e-9 && fabs(p - want_p) <= tol,
              "line %d: rc %d U %.17g (want %.17g) p %.17g (want %.17g)", line, rc, u, want_u, p,
              want_p);
}
#define MW(a, b, u, p, tol) check_mw(a, DRA_ARRAY_LEN(a), b, DRA_ARRAY_LEN(b), u, p, tol, __LINE__)

static void test_mann_whitney_exact(void)
{
    /* Fully separated 5 vs 5: U = 0; exactly one of C(10,5) = 252 arrangements has U <= 0, so
     * p = 2 * 1/252 = 0.0079365 (benchstat prints p=0.008). Mirror: U(b) = 25. */
    double lo5[] = {1, 2, 3, 4, 5}, hi5[] = {10, 9, 8, 7, 6};
    MW(lo5, hi5, 0, 2.0 / 252.0, 1e-15);
    MW(hi5, lo5, 25, 2.0 / 252.0, 1e-15);
    CHECK_NEAR(dra_stats_mann_whitney_min_p(5), 2.0 / 252.0, 1e-15);
    CHECK_NEAR(dra_stats_mann_whitney_min_p(4), 2.0 / 70.0, 1e-15);  /* 0.029: n=4 suffices */
    CHECK_NEAR(dra_stats_mann_whitney_min_p(3), 2.0 / 20.0, 1e-15);  /* 0.10: n=3 never does */
    CHECK_NEAR(dra_stats_mann_whitney_min_p(1), 1.0, 0);

    /* Identical samples: U = n*n/2 equals its mirror -> p = 1. */
    MW(lo5, lo5, 12.5, 1.0, 0);

    /*
     * 3 vs 3, a = {1,2,4}, b = {3,5,6}: only 4 > 3 wins, U = 1 (mirror 8, Usmall = 1).
     * Distribution of U over the C(6,3) = 20 arrangements (number of arrangements per U):
     * U: 0 1 2 3 4 5 6 7 8 9 -> 1 1 2 3 3 3 3 2 1 1. P(U <= 1) = 2/20, p = 0.2.
     */
    double a3[] = {4, 1, 2}, b3[] = {6, 3, 5};
    MW(a3, b3, 1, 0.2, 1e-15);
    /* a = {1,3,5}, b = {2,4,6}: wins 3>2, 5>2, 5>4: U = 3; P(U <= 3) = 7/20, p = 0.7. */
    double a3b[] = {1, 3, 5}, b3b[] = {2, 4, 6};
    MW(a3b, b3b, 3, 0.7, 1e-15);

    /* go-moremath's utest_test.go (benchstat's library), no ties:
     * {2,1,3,5} vs {12,11,13,15}: U = 0, p = 2/70; {2,1,3,5} vs {0,4,6,7}: U = 5, p = 34/70. */
    double s1[] = {2, 1, 3, 5}, s2[] = {12, 11, 13, 15}, s3[] = {0, 4, 6, 7};
    MW(s1, s2, 0, 0.028571428571428577, 1e-15);
    MW(s2, s1, 16, 0.028571428571428577, 1e-15);
    MW(s1, s3, 5, 0.48571428571428577, 1e-15);

    /* n = 1: a = {3}, b = {1, 2}: U = 2, mirror 0; P(U1 <= 0) = 1/3 (3 placed first of 3)
     * -> p = 2/3. a = {1}, b = {2}: U = 0, P(U <= 0) = 1/2, p = 1. */
    double one3[] = {3}, b12[] = {1, 2}, one1[] = {1}, one2[] = {2};
    MW(one3, b12, 2, 2.0 / 3.0, 1e-15);
    MW(one1, one2, 0, 1.0, 1e-15);
}

static void test_mann_whitney_ties(void)
{
    /*
     * a = {1,2,3,5}, b = {2,2,2,2}. Merged groups (value: a-count + b-count): 1: 1+0, 2: 1+4,
     * 3: 1+0, 5: 1+0 -> tie vector (1,5,1,1). Ranks: 1 -> 1, the five 2s share (2+6)/2 = 4,
     * 3 -> 7, 5 -> 8; R(a) = 1 + 4 + 7 + 8 = 20; U = 20 - 4*5/2 = 10; mirror 16 - 10 = 6.
     * p = 2 P(U <= 6) over the C(8,4) = 70 arrangements. With r_g a-values in group g (size t_g),
     * weight prod C(t_g, r_g), and 2U = sum_g r_g * (2 * (b-values below g) + (t_g - r_g)):
     *   (r1,r2,r3,r4) = (1,3,0,0): 2U = 1*(0+0) + 3*(2*0+2) = 6,            U = 3, weight C(5,3) = 10
     *                   (0,4,0,0): 2U = 0 + 4*(2*1+1) = 12,            U = 6, weight C(5,4) = 5
     *                   (1,2,1,0): 2U = 0 + 2*(0+3) + 1*(2*3+0) = 12,     U = 6, weight 10
     *                   (1,2,0,1): 2U = 0 + 2*(0+3) + 1*(2*4+0) = 14,     U = 7 (> 6)
     *   every other split has U >= 9 (a-values above more of the b's).
     * P(U <= 6) = (10 + 5 + 10) / 70 = 25/70 and p = 50/70 = 0.7142857 (go-moremath's value).
     */
    double s1[] = {2, 1, 3, 5}, s4[] = {2, 2, 2, 2}, s5[] = {1, 1, 1, 1, 1};
    MW(s1, s4, 10, 0.7142857142857143, 1e-12);
    MW(s1, s1, 8, 1.0, 0); /* identical samples with ties: U equals its mirror */
    /*
     * a = {1,2,3,5}, b = {1,1,1,1,1}: tie vector (6,1,1,1), U = 17.5, mirror 2.5. The smallest
     * U the first sample can reach is 4 (four of its values among the 1s: 4 * 0.5 * 2), so
     * P(U <= 2.5) = 0 and benchstat's p is 0 (go-moremath expects 0 here too).
     */
    MW(s1, s5, 17.5, 0.0, 0);

    /* Every value equal: the test is meaningless, benchstat reports p = 1. */
    double c1[] = {7, 7, 7}, c2[] = {7, 7};
    MW(c1, c2, 3, 1.0, 0);

    /* Ties across samples, checked by brute force over all C(7,3) = 35 splits of the pooled
     * values {1,1,2,2,2,3,4}: a = {1,2,2}, b = {1,2,3,4}.
     * U(a) = pairs a>b + ties/2: 1: 0 wins, 0.5 tie with b's 1; each 2: beats b's 1, ties b's 2
     * -> 1.5 each; U = 0.5 + 1.5 + 1.5 = 3.5; mirror 12 - 3.5 = 8.5, Usmall = 3.5. */
    double ta[] = {1, 2, 2}, tb[] = {1, 2, 3, 4};
    double p = 0, u = 0;
    CHECK_OK(dra_stats_mann_whitney(ta, 3, tb, 4, &p, &u));
    CHECK_NEAR(u, 3.5, 0);
    {
        /* Brute force: enumerate every 3-subset of the pooled 7 positions as "a". */
        double pool[] = {1, 1, 2, 2, 2, 3, 4};
        int hits = 0, total = 0;
        for (int m = 0; m < 128; m++) {
            if (__builtin_popcount((unsigned)m) != 3)
                continue;
            double uu = 0;
            for (int i = 0; i < 7; i++)
                for (int j = 0; j < 7; j++)
                    if ((m >> i & 1) && !(m >> j & 1))
                        uu += pool[i] > pool[j] ? 1 : pool[i] == pool[j] ? 0.5 : 0;
            total++;
            hits += uu <= 3.5;
        }
        CHECK_EQ_I64(total, 35);
        CHECK_NEAR(p, 2.0 * hits / 35.0, 1e-12);
    }
}

static void test_mann_whitney_normal(void)
{
    /* Large samples (normal approximation with tie and continuity correction); expected values
     * from go-moremath's utest_test.go, cross-checked there against R's wilcox.test:
     * l1 = 0,2,..,998 (500), l2 = -41,-39,..,1157 (600), l3 = l2 with l3[i] = l1[i] for i < 30. */
    static double l1[500], l2[600], l3[600];
    for (int i = 0; i < 500; i++)
        l1[i] = i * 2;
    for (int i = 0; i < 600; i++)
        l2[i] = l3[i] = i * 2 - 41;
    for (int i = 0; i < 30; i++)
        l3[i] = l1[i];
    MW(l1, l2, 135250, 0.0049335360814172224, 1e-12);
    MW(l1, l1, 125000, 1.0, 0);
    MW(l1, l3, 134845, 0.0038703814239617884, 1e-12);

    /* Exact limit: 50 vs 50 without ties is still exact; separated -> p = 2/C(100,50). */
    static double a[50], b[50];
    for (int i = 0; i < 50; i++) {
        a[i] = i;
        b[i] = 100 + i;
    }
    double p = 0, u = 0;
    CHECK_OK(dra_stats_mann_whitney(a, 50, b, 50, &p, &u));
    CHECK_NEAR(u, 0, 0);
    CHECK_NEAR(p / dra_stats_mann_whitney_min_p(50), 1.0, 1e-9);
    /* 26 vs 26 with one tie uses the normal approximation (ties exact limit is 25). Separated
     * except one shared value: U = 0.5; z = (0.5 - 338 + 0.5) / sigma, far in the tail. */
    static double c[26], d[26];
    for (int i = 0; i < 26; i++) {
        c[i] = i;
        d[i] = 25 + i; /* shares 25 with c */
    }
    CHECK_OK(dra_stats_mann_whitney(c, 26, d, 26, &p, &u));
    CHECK_NEAR(u, 0.5, 0);
    /* N = 52, tie term t^3 - t = 6: sigma = sqrt(676 * (53 - 6/2652) / 12) = 54.6396;
     * z = -337 / 54.6396 = -6.1677; p = erfc(6.1677/sqrt 2) = 6.93e-10. */
    CHECK(p > 5e-10 && p < 9e-10);
}

static void test_mann_whitney_errors(void)
{
    double a[] = {1, 2}, nanv[] = {1, NAN};
    double p = 7, u = 7;
    CHECK_EQ_I64(dra_stats_mann_whitney(a, 0, a, 2, &p, &u), DRA_EINVAL);
    CHECK_EQ_I64(dra_stats_mann_whitney(a, 2, a, 0, &p, &u), DRA_EINVAL);
    CHECK_EQ_I64(dra_stats_mann_whitney(a, 2, nanv, 2, &p, &u), DRA_EINVAL);
    CHECK(p == 7 && u == 7); /* outputs untouched on error */
    CHECK_OK(dra_stats_mann_whitney(a, 2, a, 2, NULL, NULL));
    /* Inputs are not reordered. */
    double b[] = {3, 1, 2};
    CHECK_OK(dra_stats_mann_whitney(b, 3, a, 2, &p, &u));
    CHECK(b[0] == 3 && b[1] == 1 && b[2] == 2);
}

/* Wilcoxon signed-rank: exact distribution, mid-ranks, zeros, the normal approximation. */
static void test_wilcoxon(void)
{
    double p, w;
    size_t used;
    const double six[] = {0.1, 0.2, 0.3, 0.4, 0.5, 0.6};
    CHECK_OK(dra_stats_wilcoxon(six, 6, &p, &w, &used));
    CHECK_NEAR(p, 2.0 / 64.0, 1e-15); /* every sign positive: the most extreme of 64 patterns */
    CHECK_NEAR(w, 21, 0);
    CHECK(used == 6);
    CHECK_NEAR(dra_stats_wilcoxon_min_p(6), 2.0 / 64.0, 1e-15);
    CHECK(dra_stats_wilcoxon_min_p(5) > 0.05);
    /* ranks 1..4, W+ = 1 + 3 = 4; patterns with W+ <= 4: sums 0,1,2,3,3,4,4 = 7 of 16 */
    const double alt[] = {1, -2, 3, -4};
    CHECK_OK(dra_stats_wilcoxon(alt, 4, &p, &w, NULL));
    CHECK_NEAR(w, 4, 0);
    CHECK_NEAR(p, 2.0 * 7.0 / 16.0, 1e-15);
    /* the same differences scaled or shifted in sign give the mirror statistic, the same p */
    const double neg[] = {-1, 2, -3, 4};
    double p2;
    CHECK_OK(dra_stats_wilcoxon(neg, 4, &p2, &w, NULL));
    CHECK_NEAR(w, 6, 0);
    CHECK_NEAR(p2, p, 1e-15);
    /* zeros are dropped; none left: p = 1 */
    const double zeros[] = {0, 0, 0};
    CHECK_OK(dra_stats_wilcoxon(zeros, 3, &p, &w, &used));
    CHECK_NEAR(p, 1, 0);
    CHECK(used == 0);
    const double z1[] = {0, 0, 2.5};
    CHECK_OK(dra_stats_wilcoxon(z1, 3, &p, &w, &used));
    CHECK(used == 1);
    CHECK_NEAR(p, 1, 0);
    /* ties take mid-ranks: {1, 1, -1} all rank 2, W+ = 4 of 6; doubled sums 0,4,4,4,8,8,8,12:
     * P(W+ <= 2) = 4/8, p = 1 */
    const double tied[] = {1, 1, -1};
    CHECK_OK(dra_stats_wilcoxon(tied, 3, &p, &w, NULL));
    CHECK_NEAR(w, 4, 0);
    CHECK_NEAR(p, 1, 0);
    const double tied2[] = {1, 1, 1, 1, 1, 1, -0.5};
    CHECK_OK(dra_stats_wilcoxon(tied2, 7, &p, &w, NULL));
    CHECK_NEAR(w, 27, 0); /* -0.5 is rank 1; six ties share ranks 2..7 (4.5 each) */
    CHECK_NEAR(p, 2.0 * 2.0 / 128.0,
               1e-15); /* W+ >= 27: all positive (28) or only rank 1 negative */
    /* beyond the exact limit: the normal approximation agrees with a symmetric sample (p = 1) and
     * finds a shift */
    double big[501];
    for (int i = 0; i < 501; i++)
        big[i] = i - 250;
    CHECK_OK(dra_stats_wilcoxon(big, 501, &p, &w, &used));
    CHECK(used == 500);
    CHECK(p > 0.99);
    for (int i = 0; i < 501; i++)
        big[i] = i - 200;
    CHECK_OK(dra_stats_wilcoxon(big, 501, &p, NULL, NULL));
    CHECK(p < 1e-6);
    /* exact and approximate p agree near the limit (400 vs 401 differences, the same shift) */
    double e400[400], e401[401], pe, pa;
    for (int i = 0; i < 400; i++)
        e400[i] = i - 180.5;
    for (int i = 0; i < 401; i++)
        e401[i] = i - 181;
    CHECK_OK(dra_stats_wilcoxon(e400, 400, &pe, NULL, NULL));
    CHECK_OK(dra_stats_wilcoxon(e401, 401, &pa, NULL, NULL));
    CHECK_MSG(fabs(pe - pa) < 0.1 * pe, "exact %g vs normal %g", pe, pa);
    const double nan1[] = {1, NAN};
    CHECK(dra_stats_wilcoxon(nan1, 2, &p, NULL, NULL) == DRA_EINVAL);
    CHECK(dra_stats_wilcoxon(six, 0, &p, NULL, NULL) == DRA_EINVAL);
}

/* Bootstrap interval of the median: reproducible from its seed, inside the data, a point for
 * constant data. */
static void test_bootstrap(void)
{
    double lo, hi, lo2, hi2;
    const double x[] = {9, 1, 5, 3, 7, 2, 8, 4, 6};
    CHECK_OK(dra_stats_bootstrap_median_ci(x, 9, 0, 0.95, 2000, 42, &lo, &hi));
    CHECK(lo >= 1 && lo <= 5 && hi >= 5 && hi <= 9 && lo < hi);
    CHECK_OK(dra_stats_bootstrap_median_ci(x, 9, 0, 0.95, 2000, 42, &lo2, &hi2));
    CHECK(lo == lo2 && hi == hi2);
    CHECK_OK(dra_stats_bootstrap_median_ci(x, 9, 0, 0.5, 2000, 42, &lo2, &hi2));
    CHECK(lo2 >= lo && hi2 <= hi); /* a lower confidence gives an interval inside */
    const double c[] = {3, 3, 3, 3};
    CHECK_OK(dra_stats_bootstrap_median_ci(c, 4, 0, 0.95, 100, 1, &lo, &hi));
    CHECK_NEAR(lo, 3, 0);
    CHECK_NEAR(hi, 3, 0);
    CHECK_OK(dra_stats_bootstrap_median_ci(x, 1, 0, 0.95, 100, 1, &lo, &hi));
    CHECK_NEAR(lo, 9, 0);
    CHECK_NEAR(hi, 9, 0);
    /* a wide sample of 400: the interval narrows around the median */
    double w[400];
    for (int i = 0; i < 400; i++)
        w[i] = (i * 7919) % 400;
    CHECK_OK(dra_stats_bootstrap_median_ci(w, 400, 0, 0.95, 1000, 7, &lo, &hi));
    CHECK(lo > 150 && hi < 250 && lo <= 199.5 && hi >= 199.5);
    /* the median of more draws varies less: m = 36 from the 9 values gives an interval inside */
    CHECK_OK(dra_stats_bootstrap_median_ci(x, 9, 0, 0.95, 2000, 42, &lo, &hi));
    CHECK_OK(dra_stats_bootstrap_median_ci(x, 9, 36, 0.95, 2000, 42, &lo2, &hi2));
    CHECK(lo2 >= lo && hi2 <= hi && hi2 - lo2 < hi - lo);
    CHECK(dra_stats_bootstrap_median_ci(x, 9, 0, 1.0, 100, 1, &lo, &hi) == DRA_EINVAL);
    CHECK(dra_stats_bootstrap_median_ci(x, 9, 0, 0.95, 5, 1, &lo, &hi) == DRA_EINVAL);
    CHECK(dra_stats_bootstrap_median_ci(x, 0, 0, 0.95, 100, 1, &lo, &hi) == DRA_EINVAL);
}

int main(void)
{
    RUN(test_wilcoxon);
    RUN(test_bootstrap);
    RUN(test_descriptive);
    RUN(test_median_ci);
    RUN(test_mann_whitney_exact);
    RUN(test_mann_whitney_ties);
    RUN(test_mann_whitney_normal);
    RUN(test_mann_whitney_errors);
    return check_summary();
}
