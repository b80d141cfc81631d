/*
 * test_ab_method.c - the method of `drabench ab` (harness/analyze/ab.h). The noise floor: its
 * centre is the
 * A/A rounds' median (a bias between the two slots of a round stays in it), its spread is drawn
 * from every round of the scenario, so one disturbed A/A process does not set the floor of a
 * sitting. The rounds of a budget: three quarters in equal numbers, the last quarter in equal
 * time. The mechanics, not the rates (scripts/ab-campaign measures those).
 */
#include <math.h>
#include <stdlib.h>

#include "ab.h"
#include "check.h"
#include "rload.h"

/* A session of one scenario with 8 A/B rounds (B/A = exp(d[i])) and 3 A/A rounds (exp(e[j])). */
static void sitting(dra_ab_session_t *s, const double *d, size_t nd, const double *e, size_t ne)
{
    dra_ab_init(s);
    s->seed = 42;
    const char *metric = "throughput.claims_per_s";
    size_t sc;
    CHECK(dra_ab_add_scenario(s, "x", NULL, 0, &metric, 1, &sc) == DRA_OK);
    CHECK(dra_ab_set_metric(s, sc, 0, metric, "claims/s", DRA_RLOAD_BETTER_HIGHER) == DRA_OK);
    double a = 1e6;
    for (size_t i = 0; i < nd; i++) {
        double b = a * exp(d[i]);
        CHECK(dra_ab_add_round(s, sc, false, i & 1, 0, &a, &b) == DRA_OK);
        if (i < ne) {
            double b2 = a * exp(e[i]);
            CHECK(dra_ab_add_round(s, sc, true, false, 0, &a, &b2) == DRA_OK);
        }
    }
    CHECK(dra_ab_analyze(s) == DRA_OK);
}

/* The sitting that missed a planted 10% on gpu-sharing: eight A/B rounds 12-22% slower, one
 * A/A round of three at -21% (one slow process). From the A/A rounds alone the floor was about
 * 23% and the change "worse, below the floor"; with the spread of every round it is found. */
static void test_one_disturbed_aa_round(void)
{
    double d[] = {-0.125, -0.173, -0.147, -0.150, -0.219, -0.142, -0.132, -0.151};
    double e[] = {-0.208, -0.009, 0.015};
    dra_ab_session_t s;
    sitting(&s, d, 8, e, 3);
    const dra_ab_stat_t *st = &s.scen[0].stats[0];
    CHECK(st->n == 8 && st->n_aa == 3);
    CHECK_MSG(st->noise_aa_only > 0.18, "A/A-only floor %g", st->noise_aa_only);
    CHECK_MSG(st->noise < 0.10, "floor %g", st->noise);
    CHECK(st->verdict == DRA_AB_REGRESSION);
    CHECK(s.exit_status == 1);
    dra_ab_fini(&s);
}

/* A bias between the slots (every A/A round about 9.5% "slower" on side B) stays in the floor: an
 * A/B change of 8.5% is below it, not a regression. */
static void test_slot_bias_kept(void)
{
    double d[] = {-0.080, -0.090, -0.078, -0.088, -0.084, -0.089, -0.082, -0.086};
    double e[] = {-0.095, -0.098, -0.093};
    dra_ab_session_t s;
    sitting(&s, d, 8, e, 3);
    const dra_ab_stat_t *st = &s.scen[0].stats[0];
    CHECK_MSG(st->noise > 0.085, "floor %g", st->noise);
    CHECK(st->verdict == DRA_AB_WORSE);
    CHECK(s.exit_status == 0);
    dra_ab_fini(&s);
}

/* An A/A sitting that strays as A/A sittings do stays a pass: no change. */
static void test_aa_passes(void)
{
    double d[] = {0.020, -0.031, 0.012, -0.008, 0.041, -0.022, 0.005, -0.015};
    double e[] = {-0.030, 0.010, 0.025};
    dra_ab_session_t s;
    sitting(&s, d, 8, e, 3);
    CHECK(s.scen[0].stats[0].verdict == DRA_AB_NOCHANGE);
    CHECK(s.exit_status == 0);
    dra_ab_fini(&s);
}

/* The nightly suite's pass on the loaded development machine: two fleet scenarios 14 and 84 s a
 * round, the others 0.3-4.2 s; 1,500 s left after the first pass. */
static void test_budget_split(void)
{
    double cost[] = {1.3, 0.9, 1.2, 1.6, 0.3, 1.0, 4.2, 14, 84};
    size_t nab[9], naa[9], fit;
    dra_ab_budget_split(cost, 9, 1500, 30, 10, nab, naa, &fit);
    /* 1125 s / 108.5 s a pass: 10 passes, 11 rounds with the first: 8 + 3 */
    CHECK(fit == 10);
    CHECK(nab[8] == 8 && naa[8] == 3);
    /* fleet-5k: 375 / 9 = 41.7 s more, 2 rounds of 14 s: 13 rounds */
    CHECK(nab[7] + naa[7] == 13);
    /* mig-inference: 41.7 / 1.2 = 34 more: 45 rounds, 34 + 11 */
    CHECK_MSG(nab[2] == 34 && naa[2] == 11, "%zu + %zu", nab[2], naa[2]);
    /* gpu-sharing: 41.7 / 0.3 = 138 more: 149 rounds, 112 + 37 */
    CHECK_MSG(nab[4] + naa[4] == 149 && nab[4] == 112, "%zu + %zu", nab[4], naa[4]);
    for (size_t i = 0; i < 9; i++) /* the ratio 3:1, never below the equal part */
        CHECK(nab[i] >= 8 && naa[i] >= 3 && nab[i] <= 200);
    /* the cap: 200 A/B, A/A in the ratio */
    double cheap[] = {0.001};
    dra_ab_budget_split(cheap, 1, 100, 30, 10, nab, naa, &fit);
    CHECK(nab[0] == 200 && naa[0] == 67);
    /* nothing left: the minimum, 6 + 3 */
    dra_ab_budget_split(cost, 9, -5, 30, 10, nab, naa, &fit);
    CHECK(fit == 0 && nab[0] == 6 && naa[0] == 3 && nab[8] == 6 && naa[8] == 3);
}

int main(void)
{
    RUN(test_budget_split);
    RUN(test_one_disturbed_aa_round);
    RUN(test_slot_bias_kept);
    RUN(test_aa_passes);
    return check_summary();
}
