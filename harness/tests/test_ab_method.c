/*
 * test_ab_method.c - the method of `drabench ab` (harness/analyze/ab.h). The noise floor: its
 * centre is the
 * A/A rounds' median (a bias between the two slots of a round stays in it), its spread is drawn
 * from every round of the scenario, so one disturbed A/A process does not set the floor of a
 * sitting. The rounds of a budget: the minimum, then cheapest first up to the rounds the bar
 * needs, then three quarters of the rest in equal numbers and the last quarter in equal time.
 * The extension (--extend): its trigger (the floor above the threshold, blind to the A/B change)
 * and its rounds under a budget.
 * The mechanics, not the rates (scripts/ab-campaign measures those).
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
    /* 1500 / 108.5 s a pass: 13 rounds of every scenario in equal numbers, the first included */
    CHECK_MSG(fit == 14, "fit %zu", fit);
    /* the minimum (8 more rounds of every scenario, 868 s) leaves 632 s; cheapest first up to
     * 32 rounds: the seven cheap ones 23 more (241.5 s), fleet-5k 23 more (322 s), and
     * fleet-50k none (68.5 s left): 9 rounds, 7 + 3 at the ratio (equal numbers gave it 8 + 3
     * and fleet-5k 10 + 3) */
    CHECK_MSG(nab[7] == 24 && naa[7] == 8, "fleet-5k %zu + %zu", nab[7], naa[7]);
    CHECK_MSG(nab[8] == 7 && naa[8] == 3, "fleet-50k %zu + %zu", nab[8], naa[8]);
    /* the 68.5 s left: no pass of the suite; a quarter in equal time, 1.9 s a scenario:
     * mig-inference 1 more (33 rounds: 25 + 8), gpu-sharing 6 more (38: 29 + 9) */
    CHECK_MSG(nab[2] == 25 && naa[2] == 8, "mig-inference %zu + %zu", nab[2], naa[2]);
    CHECK_MSG(nab[4] == 29 && naa[4] == 9, "gpu-sharing %zu + %zu", nab[4], naa[4]);
    for (size_t i = 0; i < 8; i++) /* the ratio 3:1, every scenario but the dearest at the need */
        CHECK(nab[i] >= 24 && naa[i] >= 8 && nab[i] <= 200);
    /* the same suite pinned on a quieter machine (a round of fleet-5k 3 s, fleet-50k 17.4 s):
     * every scenario past the need, the cheap ones far past it */
    double quiet[] = {0.30, 0.13, 1.22, 0.47, 0.27, 0.15, 1.09, 3.0, 17.4};
    dra_ab_budget_split(quiet, 9, 1500, 30, 10, nab, naa, &fit);
    for (size_t i = 0; i < 9; i++)
        CHECK_MSG(nab[i] + naa[i] > DRA_AB_NEED_ROUNDS, "%zu: %zu + %zu", i, nab[i], naa[i]);
    CHECK(nab[8] < nab[7] && nab[7] < nab[2] && nab[2] < nab[4]);
    /* ties in cost are served in suite order, and a budget that reaches the need of only some:
     * the cheapest first, the last of equal cost left short */
    double tie[] = {10, 10, 10};
    dra_ab_budget_split(tie, 3, 8 * 30 + 23 * 10 * 2 + 50, 30, 10, nab, naa, &fit);
    CHECK_MSG(nab[0] + naa[0] == 32 && nab[1] + naa[1] == 32, "%zu %zu", nab[0], nab[1]);
    CHECK_MSG(nab[2] + naa[2] == 14, "%zu + %zu", nab[2], naa[2]);
    /* the cap: 200 A/B, A/A in the ratio */
    double cheap[] = {0.001};
    dra_ab_budget_split(cheap, 1, 100, 30, 10, nab, naa, &fit);
    CHECK(nab[0] == 200 && naa[0] == 67);
    /* nothing left: the minimum, 6 + 3 */
    dra_ab_budget_split(cost, 9, -5, 30, 10, nab, naa, &fit);
    CHECK(fit == 1 && nab[0] == 6 && naa[0] == 3 && nab[8] == 6 && naa[8] == 3);
}

/* A scenario of nd A/B rounds exp(d[i] + shift) and ne A/A rounds exp(e[j]), each list given
 * `times` times over (more rounds of the same sitting), analyzed. */
static void sitting_n(dra_ab_session_t *s, const double *d, size_t nd, const double *e,
                      size_t ne, double shift, int times)
{
    dra_ab_init(s);
    s->seed = 42;
    const char *metric = "throughput.claims_per_s";
    size_t sc;
    CHECK(dra_ab_add_scenario(s, "x", NULL, 0, &metric, 1, &sc) == DRA_OK);
    CHECK(dra_ab_set_metric(s, sc, 0, metric, "claims/s", DRA_RLOAD_BETTER_HIGHER) == DRA_OK);
    double a = 1e6;
    for (int k = 0; k < times; k++)
        for (size_t i = 0; i < nd || i < ne; i++) {
            if (i < nd) {
                double b = a * exp(d[i] + shift);
                CHECK(dra_ab_add_round(s, sc, false, i & 1, 0, &a, &b) == DRA_OK);
            }
            if (i < ne) {
                double b2 = a * exp(e[i]);
                CHECK(dra_ab_add_round(s, sc, true, i & 1, 0, &a, &b2) == DRA_OK);
            }
        }
    CHECK(dra_ab_analyze(s) == DRA_OK);
}

/* One of mig-vgpu's missed planted 10% (its campaign's log-ratios, 24 + 8 rounds: B slower by
 * 11.1%, p 0.004, "worse" because the sitting's A/A floor was 12.0%): the floor decides, the
 * extension triggers; over twice the rounds (the same spread again) the floor is narrower and the change
 * a regression. The trigger does not move when every A/B round moves alike (a change of any
 * size, or none): it reads the floor alone. */
static const double mv_d[24] = {-0.170, 0.251,  -0.109, 0.061,  -0.096, -0.160, 0.073,  0.053,
                                -0.147, -0.220, 0.017,  -0.115, -0.232, -0.170, -0.130, 0.149,
                                -0.168, 0.038,  -0.073, -0.229, -0.080, -0.087, -0.582, -0.100};
static const double mv_e[8] = {-0.039, -0.020, -0.332, -0.128, 0.148, -0.337, -0.069, 0.135};

static void test_extend_trigger(void)
{
    dra_ab_session_t s;
    sitting_n(&s, mv_d, 24, mv_e, 8, 0, 1);
    const dra_ab_stat_t *st = &s.scen[0].stats[0];
    double lim = log(1.05), floor0 = st->noise;
    CHECK_MSG(st->noise > lim && st->floor_above, "floor %g", st->noise);
    CHECK_MSG(st->p < 0.05 && log(st->ratio) < -lim && -log(st->ratio) < st->noise,
              "ratio %g p %g floor %g", st->ratio, st->p, st->noise);
    CHECK_MSG(st->verdict == DRA_AB_WORSE, "verdict %s", dra_ab_verdict_name(st->verdict));
    CHECK(s.exit_status == 0);
    CHECK(dra_ab_extend_trigger(&s, 0) == 0);
    CHECK(dra_ab_extend_trigger(&s, 1) == SIZE_MAX);
    dra_ab_fini(&s);
    /* the same rounds twice over: the floor of 48 draws is narrower, the change a regression */
    sitting_n(&s, mv_d, 24, mv_e, 8, 0, 2);
    st = &s.scen[0].stats[0];
    CHECK_MSG(st->n == 48 && st->n_aa == 16 && st->noise < floor0, "floor %g", st->noise);
    CHECK_MSG(st->verdict == DRA_AB_REGRESSION, "verdict %s (floor %g)",
              dra_ab_verdict_name(st->verdict), st->noise);
    dra_ab_fini(&s);
    /* every A/B round moved alike (no change, the planted size, twice it): the same floor and
     * trigger, other verdicts */
    const double shift[] = {0.11, -0.11, 0.0};
    dra_ab_verdict_t seen[3];
    for (size_t k = 0; k < 3; k++) {
        sitting_n(&s, mv_d, 24, mv_e, 8, shift[k], 1);
        st = &s.scen[0].stats[0];
        CHECK_MSG(fabs(st->noise - floor0) < 1e-9, "shift %g: floor %g, not %g", shift[k],
                  st->noise, floor0);
        CHECK(dra_ab_extend_trigger(&s, 0) == 0);
        seen[k] = st->verdict;
        dra_ab_fini(&s);
    }
    CHECK(seen[0] == DRA_AB_NOCHANGE && seen[1] == DRA_AB_REGRESSION);
}

/* A floor below the threshold does not trigger (the threshold decides), whatever the verdict;
 * nor do too few rounds (inconclusive) or an informational metric. */
static void test_extend_no_trigger(void)
{
    double d[] = {-0.080, -0.090, -0.078, -0.088, -0.084, -0.089, -0.082, -0.086};
    double e[] = {-0.010, 0.005, 0.002};
    dra_ab_session_t s;
    sitting_n(&s, d, 8, e, 3, 0, 1);
    const dra_ab_stat_t *st = &s.scen[0].stats[0];
    CHECK_MSG(st->noise < log(1.05) && !st->floor_above, "floor %g", st->noise);
    CHECK(st->verdict == DRA_AB_REGRESSION);
    CHECK(dra_ab_extend_trigger(&s, 0) == SIZE_MAX);
    dra_ab_fini(&s);
    sitting_n(&s, d, 8, e, 3, 0.082, 1); /* no change, the same floor */
    CHECK(s.scen[0].stats[0].verdict == DRA_AB_NOCHANGE);
    CHECK(dra_ab_extend_trigger(&s, 0) == SIZE_MAX);
    dra_ab_fini(&s);
    /* 5 A/B rounds: inconclusive before any floor is compared */
    sitting_n(&s, mv_d, 5, mv_e, 8, 0, 1);
    CHECK(s.scen[0].stats[0].verdict == DRA_AB_INCONCLUSIVE);
    CHECK(!s.scen[0].stats[0].floor_above && dra_ab_extend_trigger(&s, 0) == SIZE_MAX);
    dra_ab_fini(&s);
    /* an informational metric is never gated, so its floor decides nothing */
    sitting_n(&s, mv_d, 24, mv_e, 8, 0, 1);
    CHECK(dra_ab_set_metric(&s, 0, 0, NULL, NULL, DRA_RLOAD_BETTER_NONE) == DRA_OK);
    CHECK(dra_ab_analyze(&s) == DRA_OK);
    CHECK(!s.scen[0].stats[0].floor_above && dra_ab_extend_trigger(&s, 0) == SIZE_MAX);
    dra_ab_fini(&s);
}

/* The rounds of an extension: the cap in the ratio, and what a budget leaves of it. */
static void test_extend_rounds(void)
{
    size_t ab, aa;
    bool cut;
    dra_ab_extend_rounds(24, 8, 1, 1.0, -1, &ab, &aa, &cut); /* no budget: doubled */
    CHECK_MSG(ab == 24 && aa == 8 && !cut, "%zu + %zu", ab, aa);
    dra_ab_extend_rounds(24, 8, 0.5, 1.0, -1, &ab, &aa, &cut);
    CHECK_MSG(ab == 12 && aa == 4 && !cut, "%zu + %zu", ab, aa);
    dra_ab_extend_rounds(6, 3, 1, 1.0, -1, &ab, &aa, &cut);
    CHECK_MSG(ab == 6 && aa == 3 && !cut, "%zu + %zu", ab, aa);
    dra_ab_extend_rounds(24, 8, 0, 1.0, -1, &ab, &aa, &cut); /* off */
    CHECK(ab == 0 && aa == 0 && !cut);
    dra_ab_extend_rounds(24, 8, 1, 1.0, 100, &ab, &aa, &cut); /* the budget fits all of it */
    CHECK_MSG(ab == 24 && aa == 8 && !cut, "%zu + %zu", ab, aa);
    dra_ab_extend_rounds(24, 8, 1, 2.0, 21, &ab, &aa, &cut); /* 10 rounds fit, in the ratio */
    CHECK_MSG(ab + aa == 10 && ab == 8 && aa == 2 && cut, "%zu + %zu", ab, aa);
    dra_ab_extend_rounds(24, 8, 1, 2.0, 1.5, &ab, &aa, &cut); /* exhausted: none, and why */
    CHECK_MSG(ab == 0 && aa == 0 && cut, "%zu + %zu", ab, aa);
    dra_ab_extend_rounds(24, 8, 1, 2.0, 0, &ab, &aa, &cut);
    CHECK(ab == 0 && aa == 0 && cut);
    dra_ab_extend_rounds(24, 8, 1, 2.0, 2.5, &ab, &aa, &cut); /* one round: an A/B one */
    CHECK_MSG(ab == 1 && aa == 0 && cut, "%zu + %zu", ab, aa);
}

int main(void)
{
    RUN(test_extend_trigger);
    RUN(test_extend_no_trigger);
    RUN(test_extend_rounds);
    RUN(test_budget_split);
    RUN(test_one_disturbed_aa_round);
    RUN(test_slot_bias_kept);
    RUN(test_aa_passes);
    return check_summary();
}
