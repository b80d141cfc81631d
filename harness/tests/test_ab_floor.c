/*
 * test_ab_floor.c - the noise floor of `drabench ab` (harness/analyze/ab.h): its centre is the
 * A/A rounds' median (a bias between the two slots of a round stays in it), its spread is drawn
 * from every round of the scenario, so one disturbed A/A process does not set the floor of a
 * sitting. The mechanics, not the rates (scripts/ab-campaign measures those).
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

int main(void)
{
    RUN(test_one_disturbed_aa_round);
    RUN(test_slot_bias_kept);
    RUN(test_aa_passes);
    return check_summary();
}
