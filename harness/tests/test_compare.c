/*
 * test_compare.c - the result loader, the comparison table's use of the statistics, the gate's
 * exit codes and the Markdown golden output.
 *
 * Result files are built in memory (jansson) with chosen samples, so every expected figure below
 * can be checked by hand; the golden test reads the fixtures in corpora/golden/compare/.
 * DRA_UPDATE_GOLDEN=1 rewrites the golden file instead of comparing.
 */
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "cli.h"
#include "compare.h"
#include "rload.h"

/* One scenario, one metric (plus optional second metric), samples given. */
typedef struct {
    const char *scenario, *shash, *seed, *digest;
    const char *metric, *unit, *better;
    bool exact;
    const double *x;
    size_t n;
    long long violations;
} spec_t;

static char *make_json(const spec_t *s)
{
    json_t *reps = json_array();
    for (size_t i = 0; i < s->n; i++) {
        json_t *vals = json_object();
        json_object_set_new(vals, s->metric, json_real(s->x[i]));
        json_array_append_new(reps, json_pack("{s:I, s:o, s:{s:I, s:I}, s:s}", "index",
                                              (json_int_t)i, "values", vals, "invariants",
                                              "checked", (json_int_t)10, "violations",
                                              (json_int_t)(i == 0 ? s->violations : 0), "digest",
                                              s->digest));
    }
    json_t *mets = json_object();
    json_object_set_new(mets, s->metric,
                        json_pack("{s:s, s:s, s:b}", "unit", s->unit, "better", s->better, "exact",
                                  s->exact));
    json_t *root = json_pack(
        "{s:s, s:s, s:{s:s, s:s}, s:{s:s}, s:{s:s, s:s, s:s, s:s, s:s, s:{s:b}}, s:o, s:o, "
        "s:{s:I, s:I, s:[]}, s:s}",
        "schema", "drabench-result/v1", "status", "complete", "tool", "git", "test",
        "build_type", "Release", "host", "hostname", "h", "run", "scenario", s->scenario,
        "scenario_hash", s->shash, "seed", s->seed, "release", "1.35", "policy", "first-fit",
        "features", "DRAAdminAccess", 1, "repetitions", reps, "metrics", mets, "invariants",
        "checked", (json_int_t)(10 * s->n), "violations", (json_int_t)s->violations, "first",
        "digest", s->digest);
    char *txt = json_dumps(root, JSON_SORT_KEYS);
    json_decref(root);
    return txt;
}

static void load(const spec_t *s, dra_rload_result_t *r)
{
    char *txt = make_json(s);
    CHECK(txt != NULL);
    dra_diag_t d;
    dra_diag_clear(&d);
    int rc = dra_rload_buf(txt, strlen(txt), s->scenario, r, &d);
    CHECK_MSG(rc == DRA_OK, "%s", d.msg);
    free(txt);
}

static spec_t spec(const char *metric, const char *better, const double *x, size_t n)
{
    spec_t s = {.scenario = "default", .shash = "00000000000000aa", .seed = "42",
                .digest = "0123456789abcdef", .metric = metric, .unit = "ns", .better = better,
                .x = x, .n = n};
    return s;
}

/* Compare one base spec with one new spec; the loaded results stay alive until fin(). */
static dra_rload_result_t g_ra, g_rb;

static int run2(const spec_t *a, const spec_t *b, const dra_compare_opts_t *o,
                dra_compare_report_t *rep)
{
    load(a, &g_ra);
    load(b, &g_rb);
    int rc = dra_compare_run(&g_ra, 1, &g_rb, 1, o, rep);
    return rc == DRA_OK ? rep->exit_status : -1;
}

static void fin(dra_compare_report_t *rep)
{
    dra_compare_fini(rep);
    dra_rload_fini(&g_ra);
    dra_rload_fini(&g_rb);
}

/* Exact two-sided Mann-Whitney p by enumerating every split of the pooled ranks (no ties):
 * an independent check of what the table prints. */
static double brute_p(const double *a, size_t na, const double *b, size_t nb)
{
    double pool[32];
    size_t n = na + nb;
    memcpy(pool, a, na * sizeof *a);
    memcpy(pool + na, b, nb * sizeof *b);
    double u_obs = 0;
    for (size_t i = 0; i < na; i++)
        for (size_t j = 0; j < nb; j++)
            u_obs += a[i] > b[j] ? 1 : a[i] == b[j] ? 0.5 : 0;
    double mirror = (double)(na * nb) - u_obs, us = u_obs < mirror ? u_obs : mirror;
    long total = 0, le = 0;
    for (unsigned mask = 0; mask < (1u << n); mask++) {
        if ((size_t)__builtin_popcount(mask) != na)
            continue;
        double u = 0;
        for (size_t i = 0; i < n; i++)
            if (mask & (1u << i))
                for (size_t j = 0; j < n; j++)
                    if (!(mask & (1u << j)))
                        u += pool[i] > pool[j] ? 1 : pool[i] == pool[j] ? 0.5 : 0;
        total++;
        le += u <= us;
    }
    double p = 2.0 * (double)le / (double)total;
    return p > 1 ? 1 : p;
}

static void test_regression_ci_and_u(void)
{
    /* base 10..60, new 70..120 (ns, lower is better): medians 35 and 95; n = 6, so the 95% CI
     * of the median is [x(1), x(6)] (confidence 1 - 2/64 = 0.969; [x(2), x(5)] has only 0.781);
     * U = 0 for the faster side, p = 2 / C(12,6) = 2/924. */
    const double a[] = {10, 20, 30, 40, 50, 60}, b[] = {70, 80, 90, 100, 110, 120};
    spec_t sa = spec("latency.pod.p50", "lower", a, 6), sb = spec("latency.pod.p50", "lower", b, 6);
    dra_compare_opts_t o;
    dra_compare_opts_init(&o);
    o.noise_floor_ns = 0; /* hand-made samples of tens of ns: the floor is tested in gate.sh */
    dra_compare_report_t rep;
    CHECK_EQ_I64(run2(&sa, &sb, &o, &rep), DRA_EXIT_REGRESSION);
    CHECK_EQ_I64(rep.nrows, 1);
    const dra_compare_row_t *r = &rep.rows[0];
    CHECK_NEAR(r->base.median, 35, 1e-12);
    CHECK_NEAR(r->cur.median, 95, 1e-12);
    CHECK_NEAR(r->base.lo, 10, 0);
    CHECK_NEAR(r->base.hi, 60, 0);
    CHECK_NEAR(r->cur.lo, 70, 0);
    CHECK_NEAR(r->cur.hi, 120, 0);
    CHECK(r->base.ci_finite && r->cur.ci_finite);
    CHECK_NEAR(r->delta, 95.0 / 35.0 - 1.0, 1e-12);
    CHECK_NEAR(r->p, 2.0 / 924.0, 1e-12);
    CHECK_NEAR(r->p, brute_p(a, 6, b, 6), 1e-12);
    CHECK(r->significant);
    CHECK_EQ_I64(r->verdict, DRA_CMP_REGRESSION);
    CHECK_EQ_I64(rep.nregressions, 1);
    /* geomean of one row is that row */
    CHECK_EQ_I64(rep.ngeo, 1);
    CHECK_NEAR(rep.geo[0].delta, r->delta, 1e-12);
    fin(&rep);

    /* the same change for a higher-is-better metric is an improvement */
    sa.better = sb.better = "higher";
    CHECK_EQ_I64(run2(&sa, &sb, &o, &rep), DRA_EXIT_OK);
    CHECK_EQ_I64(rep.rows[0].verdict, DRA_CMP_IMPROVED);
    CHECK_EQ_I64(rep.nimproved, 1);
    fin(&rep);
    /* and the reverse direction is a regression again */
    CHECK_EQ_I64(run2(&sb, &sa, &o, &rep), DRA_EXIT_REGRESSION);
    CHECK_NEAR(rep.rows[0].delta, 35.0 / 95.0 - 1.0, 1e-12);
    fin(&rep);
}

static void test_noise_not_significant(void)
{
    /* interleaved samples: U = 15 of 36, p = 2 P(U <= 15) by enumeration, far above 0.05 */
    const double a[] = {1, 3, 5, 7, 9, 11}, b[] = {2, 4, 6, 8, 10, 12};
    spec_t sa = spec("latency.pod.p50", "lower", a, 6), sb = spec("latency.pod.p50", "lower", b, 6);
    dra_compare_opts_t o;
    dra_compare_opts_init(&o);
    o.noise_floor_ns = 0; /* hand-made samples of tens of ns: the floor is tested in gate.sh */
    o.threshold = 0; /* even a zero threshold does not gate noise */
    dra_compare_report_t rep;
    CHECK_EQ_I64(run2(&sa, &sb, &o, &rep), DRA_EXIT_OK);
    const dra_compare_row_t *r = &rep.rows[0];
    double p = brute_p(a, 6, b, 6);
    CHECK(p > 0.5);
    CHECK_NEAR(r->p, p, 1e-12);
    CHECK(!r->significant);
    CHECK_EQ_I64(r->verdict, DRA_CMP_NOCHANGE);
    CHECK_NEAR(r->delta, 7.0 / 6.0 - 1.0, 1e-12); /* medians 6 and 7 */
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    CHECK_OK(dra_compare_write_text(&rep, f));
    fclose(f);
    CHECK(strstr(buf, "~ (p=") != NULL);
    CHECK(strstr(buf, "gate: PASS (exit 0)") != NULL);
    free(buf);
    fin(&rep);
}

static void test_threshold(void)
{
    /* +3% and significant (p = 2/924): within 5% is "worse", beyond 2% a regression */
    const double a[] = {1000, 1001, 1002, 1003, 1004, 1005};
    const double b[] = {1030, 1031, 1032, 1033, 1034, 1035};
    spec_t sa = spec("latency.pod.p99", "lower", a, 6), sb = spec("latency.pod.p99", "lower", b, 6);
    dra_compare_opts_t o;
    dra_compare_opts_init(&o);
    o.noise_floor_ns = 0; /* hand-made samples of tens of ns: the floor is tested in gate.sh */
    dra_compare_report_t rep;
    CHECK_EQ_I64(run2(&sa, &sb, &o, &rep), DRA_EXIT_OK);
    CHECK_EQ_I64(rep.rows[0].verdict, DRA_CMP_WORSE);
    CHECK_NEAR(rep.rows[0].delta, 1032.5 / 1002.5 - 1, 1e-12);
    fin(&rep);
    CHECK(dra_compare_parse_threshold("2%", &o.threshold));
    CHECK_EQ_I64(run2(&sa, &sb, &o, &rep), DRA_EXIT_REGRESSION);
    CHECK_EQ_I64(rep.rows[0].verdict, DRA_CMP_REGRESSION);
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    dra_compare_write_gate_lines(&rep, f);
    fclose(f);
    /* units read as prose: "1.032 µs", not "1.032µ sec" */
    CHECK_MSG(strstr(buf, "expected latency.pod.p99 of default to be lower: got 1.032 µs, "
                          "want <= 1.023 µs (base 1.002 µs + 2%") != NULL,
              "%s", buf);
    free(buf);
    fin(&rep);
    /* off: reported as changed, never gates */
    CHECK(dra_compare_parse_threshold("off", &o.threshold));
    CHECK_EQ_I64(run2(&sa, &sb, &o, &rep), DRA_EXIT_OK);
    CHECK_EQ_I64(rep.rows[0].verdict, DRA_CMP_CHANGED);
    fin(&rep);
    /* informational metric */
    sa.better = sb.better = "none";
    dra_compare_opts_init(&o);
    o.noise_floor_ns = 0; /* hand-made samples of tens of ns: the floor is tested in gate.sh */
    CHECK_EQ_I64(run2(&sa, &sb, &o, &rep), DRA_EXIT_OK);
    CHECK_EQ_I64(rep.rows[0].verdict, DRA_CMP_CHANGED);
    fin(&rep);
}

static void test_small_samples(void)
{
    /* n = 3 per side: the smallest reachable p is 2/C(6,3) = 0.1, never significant, so the
     * gate cannot see: inconclusive (exit 5), never PASS; n = 5: the 95% CI of the median is
     * unbounded (needs 6 samples) */
    const double a[] = {1, 2, 3}, b[] = {10, 20, 30};
    spec_t sa = spec("latency.pod.p50", "lower", a, 3), sb = spec("latency.pod.p50", "lower", b, 3);
    dra_compare_opts_t o;
    dra_compare_opts_init(&o);
    o.noise_floor_ns = 0; /* hand-made samples of tens of ns: the floor is tested in gate.sh */
    dra_compare_report_t rep;
    CHECK_EQ_I64(run2(&sa, &sb, &o, &rep), DRA_EXIT_INCONCLUSIVE);
    CHECK_NEAR(rep.rows[0].p, 0.1, 1e-12);
    CHECK(rep.rows[0].few_samples);
    CHECK_EQ_I64(rep.rows[0].verdict, DRA_CMP_INCONCLUSIVE);
    CHECK_EQ_I64(rep.ninconclusive, 1);
    CHECK(!rep.rows[0].base.ci_finite);
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    CHECK_OK(dra_compare_write_text(&rep, f));
    fclose(f);
    CHECK(strstr(buf, "± ∞ ¹") != NULL);
    CHECK(strstr(buf, "need >= 6 samples for confidence interval at level 0.95") != NULL);
    CHECK(strstr(buf, "need >= 4 samples to detect a difference") != NULL);
    CHECK(strstr(buf, "gate: INCONCLUSIVE (exit 5)") != NULL);
    free(buf);
    fin(&rep);
    /* the same with the gate off for the metric: reported, not gated, so PASS */
    o.threshold = -1;
    CHECK_EQ_I64(run2(&sa, &sb, &o, &rep), DRA_EXIT_OK);
    fin(&rep);
}

static void test_exact_metric(void)
{
    const double a[] = {5000, 5000, 5000}, b[] = {5001, 5001, 5001};
    spec_t sa = spec("search.cel_evaluations", "lower", a, 3);
    spec_t sb = spec("search.cel_evaluations", "lower", b, 3);
    sa.exact = sb.exact = true;
    sa.unit = sb.unit = "count";
    dra_compare_opts_t o;
    dra_compare_opts_init(&o);
    o.noise_floor_ns = 0; /* hand-made samples of tens of ns: the floor is tested in gate.sh */
    dra_compare_report_t rep;
    /* +0.02%: significant (deterministic) but within 5% */
    CHECK_EQ_I64(run2(&sa, &sb, &o, &rep), DRA_EXIT_OK);
    CHECK(rep.rows[0].significant);
    CHECK(isnan(rep.rows[0].p));
    CHECK_EQ_I64(rep.rows[0].verdict, DRA_CMP_WORSE);
    fin(&rep);
    o.threshold = 0;
    CHECK_EQ_I64(run2(&sa, &sb, &o, &rep), DRA_EXIT_REGRESSION);
    fin(&rep);
    CHECK_EQ_I64(run2(&sa, &sa, &o, &rep), DRA_EXIT_OK);
    CHECK_EQ_I64(rep.rows[0].verdict, DRA_CMP_NOCHANGE);
    fin(&rep);
}

static void test_digest_and_violations(void)
{
    const double a[] = {1, 2, 3, 4, 5, 6};
    spec_t sa = spec("latency.pod.p50", "lower", a, 6), sb = sa;
    sb.digest = "fedcba9876543210";
    dra_compare_opts_t o;
    dra_compare_opts_init(&o);
    o.noise_floor_ns = 0; /* hand-made samples of tens of ns: the floor is tested in gate.sh */
    dra_compare_report_t rep;
    CHECK_EQ_I64(run2(&sa, &sb, &o, &rep), DRA_EXIT_CORRECTNESS);
    CHECK_EQ_I64(rep.ndigest, 1);
    CHECK_STREQ(rep.digest[0].where, "base->new");
    fin(&rep);
    o.allow_digest_change = true;
    CHECK_EQ_I64(run2(&sa, &sb, &o, &rep), DRA_EXIT_OK);
    CHECK_EQ_I64(rep.ndigest, 1);
    fin(&rep);
    /* a different seed is a different input: not comparable (exit 2), and with --across seed
     * no digest change */
    o.allow_digest_change = false;
    sb.seed = "43";
    CHECK_EQ_I64(run2(&sa, &sb, &o, &rep), DRA_EXIT_USAGE);
    CHECK_EQ_I64(rep.nerrors, 1);
    CHECK(strstr(rep.errors[0], "(seed 42 vs 43)") != NULL);
    fin(&rep);
    o.across = DRA_ACROSS_SEED;
    CHECK_EQ_I64(run2(&sa, &sb, &o, &rep), DRA_EXIT_OK);
    CHECK_EQ_I64(rep.ndigest, 0);
    fin(&rep);
    o.across = 0;
    /* a violation is a correctness failure even when digest changes are allowed */
    sb = sa;
    sb.violations = 2;
    o.allow_digest_change = true;
    CHECK_EQ_I64(run2(&sa, &sb, &o, &rep), DRA_EXIT_CORRECTNESS);
    CHECK_EQ_I64(rep.nviol, 1);
    CHECK_EQ_I64(rep.viol[0].count, 2);
    CHECK_STREQ(rep.viol[0].side, "new");
    fin(&rep);
}

static void test_geomean_and_sides(void)
{
    /* two scenarios: medians 35 -> 70 and 350 -> 175: geomean base sqrt(35*350), new
     * sqrt(70*175), delta sqrt(2 * 0.5) - 1 = 0 */
    const double a1[] = {10, 20, 30, 40, 50, 60}, b1[] = {40, 50, 60, 80, 90, 100};
    const double a2[] = {100, 200, 300, 400, 500, 600}, b2[] = {100, 130, 160, 190, 220, 250};
    spec_t s[5] = {spec("latency.pod.p50", "lower", a1, 6), spec("latency.pod.p50", "lower", a2, 6),
                   spec("latency.pod.p50", "lower", b1, 6), spec("latency.pod.p50", "lower", b2, 6),
                   spec("latency.pod.p50", "lower", a1, 6)};
    s[1].scenario = s[3].scenario = "other";
    s[1].shash = s[3].shash = "00000000000000bb";
    s[4].scenario = "lonely";
    dra_rload_result_t base[3], cur[2];
    load(&s[0], &base[0]);
    load(&s[1], &base[1]);
    load(&s[4], &base[2]);
    load(&s[2], &cur[0]);
    load(&s[3], &cur[1]);
    dra_compare_opts_t o;
    dra_compare_opts_init(&o);
    o.noise_floor_ns = 0; /* hand-made samples of tens of ns: the floor is tested in gate.sh */
    dra_compare_report_t rep;
    CHECK_OK(dra_compare_run(base, 3, cur, 2, &o, &rep));
    CHECK_EQ_I64(rep.nrows, 2);
    CHECK_EQ_I64(rep.ngeo, 1);
    CHECK_NEAR(rep.geo[0].base, sqrt(35.0 * 350.0), 1e-9);
    CHECK_NEAR(rep.geo[0].cur, sqrt(70.0 * 175.0), 1e-9);
    CHECK_NEAR(rep.geo[0].delta, 0.0, 1e-12);
    CHECK_EQ_I64(rep.nonly_base, 1);
    CHECK_STREQ(rep.only_base[0], "lonely");
    CHECK_EQ_I64(rep.nonly_new, 0);
    CHECK_EQ_I64(rep.exit_status, DRA_EXIT_REGRESSION); /* "default" doubled */
    fin(&rep);
    for (int i = 0; i < 3; i++)
        dra_rload_fini(&base[i]);
    for (int i = 0; i < 2; i++)
        dra_rload_fini(&cur[i]);
}

static void test_pooled_files(void)
{
    /* two base files of the same scenario pool their repetitions: 3 + 3 = 6 samples, which
     * makes the CI finite and the U test able to reach p = 2/924 */
    const double a1[] = {10, 30, 50}, a2[] = {20, 40, 60}, b[] = {70, 80, 90, 100, 110, 120};
    spec_t s1 = spec("latency.pod.p50", "lower", a1, 3), s2 = spec("latency.pod.p50", "lower", a2, 3),
           s3 = spec("latency.pod.p50", "lower", b, 6);
    dra_rload_result_t base[2], cur;
    load(&s1, &base[0]);
    load(&s2, &base[1]);
    load(&s3, &cur);
    dra_compare_opts_t o;
    dra_compare_opts_init(&o);
    o.noise_floor_ns = 0; /* hand-made samples of tens of ns: the floor is tested in gate.sh */
    dra_compare_report_t rep;
    CHECK_OK(dra_compare_run(base, 2, &cur, 1, &o, &rep));
    CHECK_EQ_I64(rep.rows[0].base.n, 6);
    CHECK_NEAR(rep.rows[0].base.median, 35, 0);
    CHECK_NEAR(rep.rows[0].p, 2.0 / 924.0, 1e-12);
    CHECK_EQ_I64(rep.exit_status, DRA_EXIT_REGRESSION);
    fin(&rep);
    dra_rload_fini(&base[0]);
    dra_rload_fini(&base[1]);
    dra_rload_fini(&cur);
}

static void test_gate_file(void)
{
    const char *yaml = "# gate\n"
                       "default: 10%\n"
                       "alpha: 0.01\n"
                       "metrics:\n"
                       "  latency.pod.p99: 1%\n"
                       "  \"latency.*\": off\n"
                       "  search.cel_evaluations: {threshold: 0%, better: lower}\n";
    dra_compare_gate_t g;
    dra_diag_t d;
    CHECK_OK(dra_compare_gate_parse(yaml, strlen(yaml), "gate.yaml", &g, &d));
    CHECK(g.has_default && g.has_alpha);
    CHECK_NEAR(g.default_threshold, 0.10, 1e-15);
    CHECK_NEAR(g.alpha, 0.01, 1e-15);
    CHECK_EQ_I64(g.nrules, 3);
    CHECK_NEAR(g.rules[0].threshold, 0.01, 1e-15);
    CHECK(g.rules[1].threshold < 0);
    CHECK_EQ_I64(g.rules[2].better, DRA_RLOAD_BETTER_LOWER);

    /* +3%, p = 2/924 < 0.01: p99 gated at 1% fails; p50 is off */
    const double a[] = {1000, 1001, 1002, 1003, 1004, 1005};
    const double b[] = {1030, 1031, 1032, 1033, 1034, 1035};
    spec_t s99a = spec("latency.pod.p99", "lower", a, 6), s99b = spec("latency.pod.p99", "lower", b, 6);
    spec_t s50a = spec("latency.pod.p50", "lower", a, 6), s50b = spec("latency.pod.p50", "lower", b, 6);
    dra_compare_opts_t o;
    dra_compare_opts_init(&o);
    o.noise_floor_ns = 0; /* hand-made samples of tens of ns: the floor is tested in gate.sh */
    o.gate = &g;
    dra_compare_report_t rep;
    CHECK_EQ_I64(run2(&s99a, &s99b, &o, &rep), DRA_EXIT_REGRESSION);
    CHECK_NEAR(rep.alpha, 0.01, 1e-15);
    fin(&rep);
    CHECK_EQ_I64(run2(&s50a, &s50b, &o, &rep), DRA_EXIT_OK);
    CHECK_EQ_I64(rep.rows[0].verdict, DRA_CMP_CHANGED);
    fin(&rep);
    /* throughput: not named, default 10% */
    spec_t ta = spec("throughput.claims_per_s", "higher", b, 6), tb = spec("throughput.claims_per_s", "higher", a, 6);
    CHECK_EQ_I64(run2(&ta, &tb, &o, &rep), DRA_EXIT_OK);
    CHECK_EQ_I64(rep.rows[0].verdict, DRA_CMP_WORSE);
    fin(&rep);
    dra_compare_gate_fini(&g);

    /* JSON works too */
    const char *js = "{\"default\": \"off\", \"metrics\": {\"throughput.*\": 2}}";
    CHECK_OK(dra_compare_gate_parse(js, strlen(js), "gate.json", &g, &d));
    CHECK(g.default_threshold < 0);
    CHECK_NEAR(g.rules[0].threshold, 0.02, 1e-15);
    dra_compare_gate_fini(&g);

    /* errors name file:line:col */
    const char *bad = "default: 5%\nmetrics:\n  latency.pod.p99: fast\n";
    dra_diag_clear(&d);
    CHECK(dra_compare_gate_parse(bad, strlen(bad), "bad.yaml", &g, &d) != DRA_OK);
    CHECK_EQ_I64(d.line, 3);
    CHECK(strstr(d.msg, "latency.pod.p99") != NULL);
    const char *unk = "defualt: 5%\n";
    dra_diag_clear(&d);
    CHECK(dra_compare_gate_parse(unk, strlen(unk), "bad.yaml", &g, &d) != DRA_OK);
    CHECK(strstr(d.msg, "unknown key 'defualt'") != NULL);
}

/* The label says which rule held a bad change back, and a change smaller than a median's
 * interval is flagged: "+10.38% worse, within 5%" was not within 5%. */
static void test_worse_labels(void)
{
    /* medians +9.7% apart (1035 -> 1135), 8 samples each: significant by the U test (U = 10
     * of 64, p = 0.021), beyond 5%, but the base's interval [700, 1120] overlaps the new one's
     * [1110, 1160] - not gated - and is wider than the change */
    const double a[] = {600, 700, 1020, 1030, 1040, 1050, 1120, 1400};
    const double b[] = {1100, 1110, 1120, 1130, 1140, 1150, 1160, 1170};
    spec_t sa = spec("latency.pod.p50", "lower", a, 8), sb = spec("latency.pod.p50", "lower", b, 8);
    dra_compare_opts_t o;
    dra_compare_opts_init(&o);
    o.noise_floor_ns = 0;
    dra_compare_report_t rep;
    int st = run2(&sa, &sb, &o, &rep);
    CHECK_EQ_I64(st, DRA_EXIT_OK);
    CHECK_EQ_I64(rep.rows[0].verdict, DRA_CMP_WORSE);
    CHECK(rep.rows[0].delta > 0.05);
    CHECK(dra_compare_row_ci_wider(&rep.rows[0]));
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    CHECK_OK(dra_compare_write_text(&rep, f));
    fclose(f);
    CHECK_MSG(strstr(buf, "worse, beyond 5% but not gated: the confidence intervals overlap") !=
                  NULL,
              "%s", buf);
    CHECK_MSG(strstr(buf, "within 5%") == NULL, "%s", buf);
    CHECK_MSG(
        strstr(buf, "³ warning: the confidence interval of a median is wider than the change") !=
            NULL,
        "%s", buf);
    free(buf);
    fin(&rep);
    /* a tight +3%: within 5%, no footnote */
    const double c[] = {1000, 1001, 1002, 1003, 1004, 1005};
    const double e[] = {1030, 1031, 1032, 1033, 1034, 1035};
    spec_t sc = spec("latency.pod.p50", "lower", c, 6), se = spec("latency.pod.p50", "lower", e, 6);
    CHECK_EQ_I64(run2(&sc, &se, &o, &rep), DRA_EXIT_OK);
    CHECK_EQ_I64(rep.rows[0].verdict, DRA_CMP_WORSE);
    CHECK(!dra_compare_row_ci_wider(&rep.rows[0]));
    buf = NULL;
    len = 0;
    f = open_memstream(&buf, &len);
    CHECK_OK(dra_compare_write_text(&rep, f));
    fclose(f);
    CHECK_MSG(strstr(buf, "worse, within 5%") != NULL, "%s", buf);
    CHECK(strstr(buf, "³") == NULL);
    free(buf);
    fin(&rep);
    /* values with units as prose */
    char v[64];
    CHECK_STREQ(dra_compare_fmt_value_unit(6611, "ns", v, sizeof v), "6.611 µs");
    CHECK_STREQ(dra_compare_fmt_value_unit(1234567, "claims/s", v, sizeof v), "1.235M claims/s");
    CHECK_STREQ(dra_compare_fmt_value_unit(1536, "B", v, sizeof v), "1.500 KiB");
    CHECK_STREQ(dra_compare_fmt_value_unit(12, "count", v, sizeof v), "12.00");
}

static void test_parse_threshold(void)
{
    double t;
    CHECK(dra_compare_parse_threshold("5%", &t) && fabs(t - 0.05) < 1e-15);
    CHECK(dra_compare_parse_threshold("0.5%", &t) && fabs(t - 0.005) < 1e-15);
    CHECK(dra_compare_parse_threshold("7", &t) && fabs(t - 0.07) < 1e-15);
    CHECK(dra_compare_parse_threshold("0", &t) && t == 0);
    CHECK(dra_compare_parse_threshold("off", &t) && t < 0);
    CHECK(!dra_compare_parse_threshold("-1%", &t));
    CHECK(!dra_compare_parse_threshold("5%%", &t));
    CHECK(!dra_compare_parse_threshold("abc", &t));
    CHECK(!dra_compare_parse_threshold("", &t));
}

static void test_fmt_value(void)
{
    char b[32];
    CHECK_STREQ(dra_compare_fmt_value(12345, "ns", b, sizeof b), "12.35µ");
    CHECK_STREQ(dra_compare_fmt_value(1.5e9, "ns", b, sizeof b), "1.500");
    CHECK_STREQ(dra_compare_fmt_value(999.96, "claims/s", b, sizeof b), "1000.0");
    CHECK_STREQ(dra_compare_fmt_value(123456, "claims/s", b, sizeof b), "123.5k");
    CHECK_STREQ(dra_compare_fmt_value(1536, "B", b, sizeof b), "1.500Ki");
    CHECK_STREQ(dra_compare_fmt_value(0, "ns", b, sizeof b), "0");
    CHECK_STREQ(dra_compare_display_unit("ns"), "sec");
    CHECK(dra_compare_metric_order("throughput.pods_per_s", "latency.pod.p50") < 0);
    CHECK(dra_compare_metric_order("latency.pod.p999", "latency.pod.max") < 0);
    CHECK(dra_compare_metric_order("latency.pod.p99", "latency.pod.p999") < 0);
    CHECK(dra_compare_metric_order("latency.pod.max", "latency.gpu.p50") < 0);
}

static void test_loader_errors(void)
{
    dra_rload_result_t r;
    dra_diag_t d;
    dra_diag_clear(&d);
    const char *syn = "{\n \"schema\": \"drabench-result/v1\",,\n}";
    CHECK_EQ_I64(dra_rload_buf(syn, strlen(syn), "x.json", &r, &d), DRA_EPARSE);
    CHECK_EQ_I64(d.line, 2);
    CHECK(d.column > 0);
    const char *sch = "{\"schema\": \"other/v2\", \"run\": {\"scenario\": \"a\"}, \"repetitions\": []}";
    CHECK_EQ_I64(dra_rload_buf(sch, strlen(sch), "x.json", &r, &d), DRA_EVALIDATE);
    CHECK(strstr(d.msg, "unsupported schema \"other/v2\"") != NULL);
    const char *typ = "{\"schema\": \"drabench-result/v1\", \"run\": {\"scenario\": \"a\"}, "
                      "\"repetitions\": [{\"values\": {\"m\": 1}}, {\"values\": {\"m\": \"x\"}}]}";
    CHECK_EQ_I64(dra_rload_buf(typ, strlen(typ), "x.json", &r, &d), DRA_EVALIDATE);
    CHECK_MSG(strstr(d.msg, "repetitions[1].values.m: expected a number, got string") != NULL,
              "%s", d.msg);
    const char *dupk = "{\"schema\": \"drabench-result/v1\", \"schema\": \"drabench-result/v1\"}";
    CHECK_EQ_I64(dra_rload_buf(dupk, strlen(dupk), "x.json", &r, &d), DRA_EPARSE);
    const char *norun = "{\"schema\": \"drabench-result/v1\", \"repetitions\": []}";
    CHECK_EQ_I64(dra_rload_buf(norun, strlen(norun), "x.json", &r, &d), DRA_EVALIDATE);
    CHECK(strstr(d.msg, "run: missing") != NULL);
    /* null values are skipped, not errors */
    const char *nul = "{\"schema\": \"drabench-result/v1\", \"run\": {\"scenario\": \"a\"}, "
                      "\"repetitions\": [{\"values\": {\"m\": null, \"k\": 2}}]}";
    CHECK_OK(dra_rload_buf(nul, strlen(nul), "x.json", &r, &d));
    double v;
    CHECK(!dra_rload_value(&r.reps[0], "m", &v));
    CHECK(dra_rload_value(&r.reps[0], "k", &v) && v == 2);
    dra_rload_fini(&r);
    CHECK_EQ_I64(dra_rload_file("corpora/golden/compare/does-not-exist.json", &r, &d), DRA_ENOTFOUND);
}

static void test_golden_markdown(void)
{
    const char *dir = "corpora/golden/compare/";
    const char *bn[] = {"base-default.json", "base-mig-inference.json"};
    const char *nn[] = {"regress-default.json", "regress-mig-inference.json"};
    dra_rload_result_t base[2], cur[2];
    char path[512];
    dra_diag_t d;
    for (int i = 0; i < 2; i++) {
        snprintf(path, sizeof path, "%s%s", dir, bn[i]);
        if (dra_rload_file(path, &base[i], &d) != DRA_OK)
            CHECK_SKIP("fixtures not found (run from the project root)");
        snprintf(path, sizeof path, "%s%s", dir, nn[i]);
        CHECK_OK(dra_rload_file(path, &cur[i], &d));
    }
    dra_compare_opts_t o;
    dra_compare_opts_init(&o);
    o.noise_floor_ns = 0; /* hand-made samples of tens of ns: the floor is tested in gate.sh */
    dra_compare_report_t rep;
    CHECK_OK(dra_compare_run(base, 2, cur, 2, &o, &rep));
    CHECK_EQ_I64(rep.exit_status, DRA_EXIT_REGRESSION);
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    CHECK_OK(dra_compare_write_md(&rep, f));
    fclose(f);
    const char *golden = "corpora/golden/compare/regress.md";
    const char *upd = getenv("DRA_UPDATE_GOLDEN");
    if (upd && *upd) {
        dra_diag_t wd;
        CHECK_OK(dra_io_write_file_atomic(golden, buf, len, &wd));
    } else {
        char *want = NULL;
        size_t wlen = 0;
        CHECK_OK(dra_io_read_file(golden, 1 << 20, &want, &wlen, &d));
        CHECK_MSG(want && wlen == len && memcmp(want, buf, len) == 0,
                  "Markdown differs from %s; got:\n%s", golden, buf);
        free(want);
    }
    free(buf);
    fin(&rep);
    for (int i = 0; i < 2; i++) {
        dra_rload_fini(&base[i]);
        dra_rload_fini(&cur[i]);
    }
}

/* A spec's file with groups.entries in its first repetition (a JSON array text). */
static void load_groups(const spec_t *s, const char *entries, dra_rload_result_t *r)
{
    char *txt = make_json(s);
    json_t *root = json_loads(txt, 0, NULL);
    free(txt);
    CHECK(root != NULL);
    json_t *e = json_loads(entries, JSON_DECODE_ANY, NULL);
    CHECK(e != NULL);
    json_object_set_new(json_array_get(json_object_get(root, "repetitions"), 0), "groups",
                        json_pack("{s:o, s:[]}", "entries", e, "domains"));
    txt = json_dumps(root, JSON_SORT_KEYS);
    json_decref(root);
    dra_diag_t d;
    dra_diag_clear(&d);
    int rc = dra_rload_buf(txt, strlen(txt), s->scenario, r, &d);
    CHECK_MSG(rc == DRA_OK, "%s", d.msg);
    free(txt);
}

static char *report_text(const dra_compare_report_t *rep, int fmt)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    CHECK(f != NULL);
    int rc = fmt == 0 ? dra_compare_write_text(rep, f)
             : fmt == 1 ? dra_compare_write_md(rep, f)
                        : dra_compare_write_json(rep, f);
    CHECK_EQ_I64(rc, DRA_OK);
    fclose(f);
    return buf;
}

/* --across: per PodGroup mix entry, both sides' group outcomes from groups.entries (policy and
 * minCount, cycles by outcome, queue waits) in text, Markdown and JSON; an entry one side lacks
 * shows "-" there; without --across nothing. */
/* Feature gates as inputs: a gate off and a gate the file does not list are the same input (a
 * baseline written before a new gate, off by default, joined the features list), a gate on in
 * one file only is not. */
static void load_features(const spec_t *s, const char *features, dra_rload_result_t *r)
{
    char *txt = make_json(s);
    CHECK(txt != NULL);
    const char *was = "\"features\": {\"DRAAdminAccess\": true}";
    char *at = strstr(txt, was);
    CHECK_MSG(at != NULL, "%s", txt);
    size_t n = strlen(txt) - strlen(was) + strlen(features) + 1;
    char *t2 = malloc(n);
    CHECK(t2 != NULL);
    snprintf(t2, n, "%.*s%s%s", (int)(at - txt), txt, features, at + strlen(was));
    dra_diag_t d;
    dra_diag_clear(&d);
    CHECK_MSG(dra_rload_buf(t2, strlen(t2), s->scenario, r, &d) == DRA_OK, "%s", d.msg);
    free(t2);
    free(txt);
}

static void test_feature_gates_as_inputs(void)
{
    const double a[] = {1, 2, 3, 4, 5, 6};
    spec_t sa = spec("latency.pod.p50", "lower", a, 6);
    dra_compare_opts_t o;
    dra_compare_opts_init(&o);
    dra_compare_report_t rep;
    load_features(&sa, "\"features\": {\"DRAAdminAccess\": true}", &g_ra);
    load_features(&sa, "\"features\": {\"DRAAdminAccess\": true, \"DRANewGate\": false}",
                  &g_rb);
    CHECK_STREQ(g_ra.features, g_rb.features);
    CHECK_EQ_I64(dra_compare_run(&g_ra, 1, &g_rb, 1, &o, &rep), DRA_OK);
    CHECK_EQ_I64(rep.exit_status, 0);
    fin(&rep);
    load_features(&sa, "\"features\": {\"DRAAdminAccess\": true}", &g_ra);
    load_features(&sa, "\"features\": {\"DRAAdminAccess\": true, \"DRANewGate\": true}",
                  &g_rb);
    CHECK(strcmp(g_ra.features, g_rb.features) != 0);
    CHECK_EQ_I64(dra_compare_run(&g_ra, 1, &g_rb, 1, &o, &rep), DRA_OK);
    CHECK_EQ_I64(rep.exit_status, 2);
    char *t = report_text(&rep, 0);
    CHECK_MSG(strstr(t, "feature gates differ") != NULL, "%s", t);
    free(t);
    fin(&rep);
}

static void test_group_changes(void)
{
    const double a[] = {1, 2, 3, 4, 5, 6};
    spec_t sa = spec("latency.pod.p50", "lower", a, 6), sb = sa;
    sb.seed = "43";
    sb.digest = "fedcba9876543210";
    const char *ga = "[{\"shape\": \"train-8gpu\", \"pods\": 8, \"min_count\": 8, \"policy\": "
                     "\"gang\", \"cycles\": 7, \"placed\": 5, \"partial\": 0, "
                     "\"unschedulable\": 2, \"waiting\": 0, \"error\": 0, \"retries\": 1, "
                     "\"waited\": 1, \"wait_s_mean\": 0.25, \"wait_s_max\": 1.5, "
                     "\"still_waiting\": 1, \"short\": []}]";
    const char *gb = "[{\"shape\": \"train-8gpu\", \"pods\": 8, \"min_count\": 1, \"policy\": "
                     "\"basic\", \"cycles\": 6, \"placed\": 6, \"partial\": 0, "
                     "\"unschedulable\": 0, \"waiting\": 0, \"error\": 0, \"retries\": 0, "
                     "\"waited\": 0, \"wait_s_mean\": 0, \"wait_s_max\": 0, \"still_waiting\": 0, "
                     "\"short\": []}, {\"shape\": \"pair\", \"pods\": 2, \"min_count\": 2, "
                     "\"policy\": \"gang\", \"cycles\": 3, \"placed\": 3, \"partial\": 0, "
                     "\"unschedulable\": 0, \"waiting\": 0, \"error\": 0, \"retries\": 0, "
                     "\"waited\": 0, \"wait_s_mean\": 0, \"wait_s_max\": 0, \"still_waiting\": 0, "
                     "\"short\": []}]";
    load_groups(&sa, ga, &g_ra);
    load_groups(&sb, gb, &g_rb);
    CHECK_EQ_I64(g_ra.reps[0].ngroups, 1);
    CHECK_EQ_I64(g_ra.reps[0].groups[0].still_waiting, 1);
    CHECK(g_ra.reps[0].groups[0].wait_s_max == 1.5);
    CHECK_EQ_I64(g_rb.reps[1].ngroups, 0);
    dra_compare_opts_t o;
    dra_compare_opts_init(&o);
    o.noise_floor_ns = 0;
    dra_compare_report_t rep;
    o.across = DRA_ACROSS_SEED;
    CHECK_EQ_I64(dra_compare_run(&g_ra, 1, &g_rb, 1, &o, &rep), DRA_OK);
    CHECK_EQ_I64(rep.ngroup_changes, 2);
    const dra_compare_group_change_t *c = &rep.group_changes[0];
    CHECK_STREQ(c->scenario, "default");
    CHECK_STREQ(c->shape, "train-8gpu");
    CHECK(c->has_base && c->has_new);
    CHECK_STREQ(c->base.policy, "gang");
    CHECK_STREQ(c->cur.policy, "basic");
    CHECK_EQ_I64(c->base.unschedulable, 2);
    CHECK_EQ_I64(c->cur.placed, 6);
    CHECK(!rep.group_changes[1].has_base && rep.group_changes[1].has_new);
    char *t = report_text(&rep, 0);
    CHECK_MSG(strstr(t, "podgroups across inputs (seed 42 vs 43)") != NULL, "%s", t);
    CHECK_MSG(strstr(t, "  default train-8gpu policy gang (minCount 8) -> basic (minCount 1): "
                        "cycles 7 -> 6 (-1), placed 5 -> 6 (+1), partial 0 -> 0 (+0), "
                        "unschedulable 2 -> 0 (-2), still waiting 1 -> 0 (-1); waited 1 -> 0 "
                        "(-1), wait mean 0.250 -> 0.000 s, max 1.500 -> 0.000 s\n") != NULL,
              "%s", t);
    CHECK_MSG(strstr(t, "  default pair policy - -> gang (minCount 2): cycles - -> 3, placed - -> "
                        "3,") != NULL,
              "%s", t);
    free(t);
    t = report_text(&rep, 1);
    CHECK_MSG(strstr(t, "### PodGroups across inputs (seed 42 vs 43)") != NULL, "%s", t);
    CHECK_MSG(strstr(t, "| default | train-8gpu | gang (minCount 8) -> basic (minCount 1) | "
                        "7 -> 6 (-1) | 5 -> 6 (+1) | 0 -> 0 (+0) | 2 -> 0 (-2) | 1 -> 0 (-1) | "
                        "1 -> 0 (-1) | 0.250 -> 0.000 | 1.500 -> 0.000 |\n") != NULL,
              "%s", t);
    free(t);
    t = report_text(&rep, 2);
    json_t *j = json_loads(t, 0, NULL);
    free(t);
    CHECK(j != NULL);
    json_t *g0 = json_array_get(json_object_get(j, "group_changes"), 0);
    CHECK_STREQ(json_string_value(json_object_get(json_object_get(g0, "base"), "policy")), "gang");
    CHECK_EQ_I64(json_integer_value(json_object_get(json_object_get(g0, "new"), "placed")), 6);
    json_t *g1 = json_array_get(json_object_get(j, "group_changes"), 1);
    CHECK(json_is_null(json_object_get(g1, "base")));
    json_decref(j);
    dra_compare_fini(&rep);
    /* without --across (same inputs): no group table */
    CHECK_EQ_I64(dra_compare_run(&g_ra, 1, &g_ra, 1, &o, &rep), DRA_OK);
    CHECK_EQ_I64(rep.ngroup_changes, 0);
    dra_compare_fini(&rep);
    dra_rload_fini(&g_ra);
    dra_rload_fini(&g_rb);
}

/* A clock that advances in steps (run.method.timer_step_ns, harness/bench/clockstep.h: 10 ns on
 * an AMD Zen) makes one step of a median noise: 150 -> 160 ns is a regression of 6.7% on a
 * clock of 1 ns, and "~" when the files say the readings advance by 10 (floor 10 + 1), on either
 * side; two steps (150 -> 171) are beyond it. The step is read from the file. */
static void test_timer_step_floor(void)
{
    const double a[] = {150, 150, 151, 150, 151, 150}, b[] = {160, 161, 160, 160, 161, 160},
                 c[] = {171, 170, 171, 171, 170, 171};
    spec_t sa = spec("latency.pod.p50", "lower", a, 6), sb = spec("latency.pod.p50", "lower", b, 6),
           sc = spec("latency.pod.p50", "lower", c, 6);
    dra_compare_opts_t o;
    dra_compare_opts_init(&o);
    o.noise_floor_ns = 0;
    dra_compare_report_t rep;
    CHECK_EQ_I64(run2(&sa, &sb, &o, &rep), DRA_EXIT_REGRESSION);
    CHECK_EQ_I64(rep.rows[0].verdict, DRA_CMP_REGRESSION);
    CHECK(!rep.rows[0].below_floor);
    fin(&rep);
    for (int side = 0; side < 2; side++) {
        char *txt = make_json(side ? &sb : &sa);
        json_t *root = json_loads(txt, 0, NULL);
        free(txt);
        CHECK(root != NULL);
        json_object_set_new(json_object_get(root, "run"), "method",
                            json_pack("{s:I}", "timer_step_ns", (json_int_t)10));
        txt = json_dumps(root, JSON_SORT_KEYS);
        json_decref(root);
        dra_rload_result_t *with = side ? &g_rb : &g_ra, *plain = side ? &g_ra : &g_rb;
        dra_diag_t d;
        dra_diag_clear(&d);
        CHECK_OK(dra_rload_buf(txt, strlen(txt), "default", with, &d));
        free(txt);
        load(side ? &sa : &sb, plain);
        CHECK_EQ_I64(with->timer_step_ns, 10);
        CHECK_EQ_I64(plain->timer_step_ns, 0);
        CHECK_EQ_I64(dra_compare_run(&g_ra, 1, &g_rb, 1, &o, &rep), DRA_OK);
        CHECK_EQ_I64(rep.exit_status, DRA_EXIT_OK);
        CHECK_EQ_I64(rep.rows[0].verdict, DRA_CMP_NOCHANGE);
        CHECK(rep.rows[0].below_floor);
        CHECK_NEAR(rep.rows[0].floor_ns, 11, 0);
        fin(&rep);
    }
    /* two steps: beyond the floor, a regression again */
    char *txt = make_json(&sc);
    json_t *root = json_loads(txt, 0, NULL);
    free(txt);
    json_object_set_new(json_object_get(root, "run"), "method",
                        json_pack("{s:I}", "timer_step_ns", (json_int_t)10));
    txt = json_dumps(root, JSON_SORT_KEYS);
    json_decref(root);
    load(&sa, &g_ra);
    dra_diag_t d;
    dra_diag_clear(&d);
    CHECK_OK(dra_rload_buf(txt, strlen(txt), "default", &g_rb, &d));
    free(txt);
    CHECK_EQ_I64(dra_compare_run(&g_ra, 1, &g_rb, 1, &o, &rep), DRA_OK);
    CHECK_EQ_I64(rep.rows[0].verdict, DRA_CMP_REGRESSION);
    CHECK(!rep.rows[0].below_floor);
    fin(&rep);
}

int main(void)
{
    RUN(test_worse_labels);
    RUN(test_regression_ci_and_u);
    RUN(test_noise_not_significant);
    RUN(test_timer_step_floor);
    RUN(test_threshold);
    RUN(test_small_samples);
    RUN(test_exact_metric);
    RUN(test_digest_and_violations);
    RUN(test_geomean_and_sides);
    RUN(test_pooled_files);
    RUN(test_gate_file);
    RUN(test_parse_threshold);
    RUN(test_fmt_value);
    RUN(test_loader_errors);
    RUN(test_golden_markdown);
    RUN(test_group_changes);
    RUN(test_feature_gates_as_inputs);
    return check_summary();
}
