/* test_workload.c - the workload's distributions (workload_tests.h) and arrival streams. */
#include <math.h>
#include <stdint.h>
#include <string.h>

#include "check.h"
#include "gen/rng.h"
#include "gen/workload.h"
#include "gen/workload_tests.h"

static void test_dist_const(void)
{
    dra_rng_t r;
    dra_rng_seed(&r, 1, 0);
    dra_dist_t d = {DRA_DIST_CONST, 2.5, 0};
    for (int i = 0; i < 100; i++)
        CHECK(dra_dist_draw(&d, &r) == 2.5);
}

static void test_dist_uniform(void)
{
    dra_rng_t r;
    dra_rng_seed(&r, 7, 0);
    dra_dist_t d = {DRA_DIST_UNIFORM, 10, 20};
    double sum = 0, lo = INFINITY, hi = -INFINITY;
    const int n = 100000;
    for (int i = 0; i < n; i++) {
        double x = dra_dist_draw(&d, &r);
        sum += x;
        lo = x < lo ? x : lo;
        hi = x > hi ? x : hi;
    }
    CHECK(lo >= 10 && hi < 20);
    CHECK(lo < 10.01 && hi > 19.99);
    CHECK_MSG(fabs(sum / n - 15) < 0.05, "mean %.4f", sum / n);
}

static void test_dist_exp(void)
{
    dra_rng_t r;
    dra_rng_seed(&r, 42, 0);
    dra_dist_t d = {DRA_DIST_EXP, 3, 0};
    double sum = 0;
    const int n = 200000;
    int above = 0;
    for (int i = 0; i < n; i++) {
        double x = dra_dist_draw(&d, &r);
        CHECK(x >= 0 && isfinite(x));
        sum += x;
        above += x > 3;
    }
    CHECK_MSG(fabs(sum / n - 3) < 0.05, "mean %.4f", sum / n);
    /* P(X > mean) = 1/e */
    CHECK_MSG(fabs((double)above / n - exp(-1)) < 0.01, "P(X > mean) %.4f", (double)above / n);
}

static void test_dist_deterministic(void)
{
    dra_rng_t a, b;
    dra_rng_seed(&a, 99, 3);
    dra_rng_seed(&b, 99, 3);
    dra_dist_t d = {DRA_DIST_EXP, 0.5, 0};
    for (int i = 0; i < 1000; i++)
        CHECK(dra_dist_draw(&d, &a) == dra_dist_draw(&d, &b));
}

int main(void)
{
    RUN(test_dist_const);
    RUN(test_dist_uniform);
    RUN(test_dist_exp);
    RUN(test_dist_deterministic);
    return check_summary();
}
