/*
 * test_runner.c - the runner as a library: a small steady-state scenario written to a temporary
 * file is run with full invariants; decision digests are equal across repetitions and runs with
 * one seed and differ with another; the injected fault is caught (exit status 3); sampled
 * invariants are seeded; the result document passes the schema checker, survives a write and
 * read back, and its histograms rebuild exactly from their buckets; release records are taken
 * under steady arrivals and never by a fill's commits; a check pass leaves every timed pass the
 * state, free lists and PodGroup bookkeeping it would start from without it.
 */
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "check.h"
#include "result.h"
#include "rload.h"
#include "runner.h"
#include "runner_tests.h"
#include "schema.h"

static const char scenario_yaml[] =
    "apiVersion: drabench.dev/v1alpha1\n"
    "kind: Scenario\n"
    "metadata: {name: runner-small}\n"
    "spec:\n"
    "  seed: 7\n"
    "  release: \"1.36\"\n"
    "  cluster:\n"
    "    nodes:\n"
    "    - {profile: dgx-h100, count: 3, name: dgx}\n"
    "    - {profile: a100-mig-dynamic, count: 1, name: mig}\n"
    "  workload:\n"
    "    mode: steady\n"
    "    count: 160\n"
    "    rate: 100\n"
    "    lifetime: {distribution: exponential, mean: 0.3}\n"
    "    mix:\n"
    "    - {shape: gpu-1, weight: 4}\n"
    "    - {shape: gpu-n, count: 2, weight: 1}\n"
    "    - {shape: mig-1g.5gb, weight: 2}\n"
    "    - {shape: shared, share: 2, weight: 1}\n"
    "  placement: first-fit\n"
    "  run: {warmup: 20, repetitions: 2, invariants: all}\n";

static char path[64];

/* Write yaml to a new temporary file named into out (64 bytes), ending in .yaml as the scenario
 * loader wants. */
static void write_yaml(const char *yaml, char *out)
{
    snprintf(out, 64, "/tmp/drabench-runner-XXXXXX");
    int fd = mkstemp(out);
    CHECK(fd >= 0);
    if (fd < 0)
        return;
    size_t len = strlen(yaml);
    CHECK(write(fd, yaml, len) == (ssize_t)len);
    close(fd);
    char p2[64];
    size_t n = strlen(out);
    CHECK(n + 6 <= sizeof p2);
    memcpy(p2, out, n);
    memcpy(p2 + n, ".yaml", 6);
    CHECK(rename(out, p2) == 0);
    memcpy(out, p2, sizeof p2);
}

static void write_scenario(void)
{
    write_yaml(scenario_yaml, path);
}

static int run_with(dra_runner_opts_t *o, dra_run_t *r)
{
    o->scenario = path;
    dra_diag_t d;
    dra_diag_clear(&d);
    int rc = dra_runner_run(o, r, &d);
    if (rc)
        fprintf(stderr, "runner: %s\n", d.msg);
    return rc;
}

/* Default options with n repetitions (the scenario: the test's file, run_with). */
static void opts_repeat(dra_runner_opts_t *o, uint32_t n)
{
    dra_runner_opts_init(o);
    o->has_repeat = true;
    o->repeat = n;
}

static uint64_t first_digest;

static void test_full_invariants_and_digests(void)
{
    dra_runner_opts_t o;
    opts_repeat(&o, 3);
    dra_run_t r;
    CHECK_OK(run_with(&o, &r));
    CHECK(r.complete);
    CHECK(!r.interrupted);
    CHECK_EQ_U64(r.reps_done, 3);
    CHECK_EQ_U64(r.pods, 3 * 160);
    CHECK(r.allocated > 0);
    CHECK(r.inv_checked > 0);
    CHECK_EQ_U64(r.inv_violations, 0);
    CHECK_EQ_I64(dra_run_exit_status(&r), 0);
    CHECK(r.digests_equal);
    /* every repetition records the same digest */
    const json_t *reps = json_object_get(r.json, "repetitions");
    CHECK_EQ_U64(json_array_size(reps), 3);
    const char *d0 = json_string_value(json_object_get(json_array_get(reps, 0), "digest"));
    for (size_t i = 1; i < json_array_size(reps); i++)
        CHECK_STREQ(d0, json_string_value(json_object_get(json_array_get(reps, i), "digest")));
    CHECK_STREQ(d0, json_string_value(json_object_get(r.json, "digest")));
    first_digest = r.digest;
    /* latency histograms: pods of every repetition are in all/pod/any */
    uint64_t pods_hist = 0;
    for (uint32_t i = 0; i < r.nhists; i++)
        if (r.hist_names[i] && strcmp(r.hist_names[i], "all/pod/any") == 0)
            pods_hist = (uint64_t)dra_hist_count(&r.hists[i]);
    CHECK_EQ_U64(pods_hist, r.pods);
    dra_diag_t d;
    dra_diag_clear(&d);
    CHECK_MSG(dra_result_check(r.json, &d) == DRA_OK, "%s", d.msg);
    dra_run_fini(&r);
}

static void test_same_seed_same_digest_other_seed_differs(void)
{
    dra_runner_opts_t o;
    opts_repeat(&o, 1);
    o.has_warmup = true;
    o.warmup = 0;
    dra_run_t r;
    CHECK_OK(run_with(&o, &r));
    CHECK_EQ_U64(r.digest, first_digest); /* warm-up does not change decisions */
    dra_run_fini(&r);
    o.has_seed = true;
    o.seed = 8;
    CHECK_OK(run_with(&o, &r));
    CHECK(r.digest != first_digest);
    CHECK_STREQ(json_string_value(json_object_get(json_object_get(r.json, "run"), "seed")), "8");
    dra_run_fini(&r);
}

static void test_policies_differ_and_are_valid(void)
{
    static const char *const pols[] = {"best-fit", "spread", "random"};
    uint64_t dig[3];
    for (int i = 0; i < 3; i++) {
        dra_runner_opts_t o;
        opts_repeat(&o, 1);
        o.has_policy = true;
        CHECK(dra_runner_parse_policy(pols[i], &o.policy));
        dra_run_t r;
        CHECK_OK(run_with(&o, &r));
        CHECK_EQ_U64(r.inv_violations, 0);
        CHECK(r.allocated > 0);
        CHECK_STREQ(json_string_value(json_object_get(json_object_get(r.json, "run"), "policy")),
                    pols[i]);
        dig[i] = r.digest;
        dra_run_fini(&r);
    }
    CHECK(dig[0] != first_digest); /* best-fit packs differently from first-fit */
    CHECK(dig[1] != dig[0]);
    CHECK(dig[2] != dig[0]);
}

/* What a repetition decided and did, without its timings: the decision digest, the outcomes,
 * the exact counters (search: allocate_one, candidates, CEL evaluations, pools, what served each
 * decision), the placement paths, the claims and pods counted, the fragmentation samples and the
 * invariant checks (not the repetition's index). */
static char *rep_exact(const json_t *rep)
{
    json_t *x = json_object();
    static const char *const keys[] = {"digest", "outcomes", "search", "fragmentation",
                                       "invariants", "pods", "claims"};
    for (size_t i = 0; i < sizeof keys / sizeof keys[0]; i++) {
        json_t *v = json_object_get(rep, keys[i]);
        if (v)
            json_object_set(x, keys[i], v);
    }
    const json_t *w = json_object_get(rep, "work");
    const char *k;
    json_t *v;
    json_object_foreach((json_t *)w, k, v)
        if (!strstr(k, "_ns"))
            json_object_set(x, k, v);
    /* the values that count rather than time: placement paths, exact counters */
    json_object_foreach((json_t *)json_object_get(rep, "values"), k, v)
        if (!strncmp(k, "placement.", 10) || !strncmp(k, "search.", 7) ||
            !strncmp(k, "outcomes.", 9) || !strncmp(k, "fragmentation.", 14))
            json_object_set(x, k, v);
    char *out = json_dumps(x, JSON_SORT_KEYS | JSON_COMPACT);
    json_decref(x);
    return out;
}

/* Three repetitions of a run with options o (what names it in messages) on the engine reset to
 * its image between repetitions (the default) and on an engine built anew for each
 * (DRA_TEST_REBUILD_ENGINE): each completes, places pods and finds no violation, and every
 * repetition decides and counts exactly (rep_exact) what the same repetition of the other does
 * and what the first one did. */
static void reset_equals_rebuild(dra_runner_opts_t o, const char *what)
{
    char *per[2][3] = {{0}};
    o.has_repeat = true;
    o.repeat = 3;
    for (int rb = 0; rb < 2; rb++) {
        o.rebuild_engine = rb == 1;
        dra_run_t r;
        dra_diag_t d;
        dra_diag_clear(&d);
        int rc = dra_runner_run(&o, &r, &d);
        CHECK_MSG(rc == DRA_OK, "%s: %s", what, d.msg);
        if (rc)
            continue;
        CHECK(r.complete);
        CHECK_EQ_U64(r.inv_violations, 0);
        CHECK(r.allocated > 0);
        const json_t *reps = json_object_get(r.json, "repetitions");
        CHECK_EQ_U64(json_array_size(reps), 3);
        for (size_t k = 0; k < 3 && k < json_array_size(reps); k++)
            per[rb][k] = rep_exact(json_array_get(reps, k));
        dra_run_fini(&r);
    }
    for (int k = 0; k < 3; k++) {
        CHECK(per[0][k] && per[1][k]);
        if (!per[0][k] || !per[1][k])
            continue;
        CHECK_MSG(strcmp(per[0][k], per[1][k]) == 0, "%s, repetition %d: reset %s, rebuilt %s",
                  what, k + 1, per[0][k], per[1][k]);
        CHECK_MSG(strcmp(per[0][k], per[0][0]) == 0, "%s, repetition %d: %s, first %s", what,
                  k + 1, per[0][k], per[0][0]);
    }
    for (int rb = 0; rb < 2; rb++)
        for (int k = 0; k < 3; k++)
            free(per[rb][k]);
}

/* Repetitions 2..3 on the engine reset to its image (the default) decide and count exactly what
 * they decide and count on an engine built anew for each (DRA_TEST_REBUILD_ENGINE), and what
 * the first one did: under every policy, with the warm-up before each, with MIG counters,
 * shared claims and the check pass (full invariants: the same workload placed again on the
 * same engine). Debug builds also compare the engine's plans' digest after each reset with the
 * one as built and its summaries with a recomputation (runner.c, engine_reuse). */
static void test_engine_reset_equals_rebuild(void)
{
    static const char *const pols[] = {"first-fit", "best-fit", "spread", "random"};
    for (int i = 0; i < 4; i++) {
        dra_runner_opts_t o;
        dra_runner_opts_init(&o);
        o.scenario = path;
        o.has_policy = true;
        CHECK(dra_runner_parse_policy(pols[i], &o.policy));
        reset_equals_rebuild(o, pols[i]);
    }
}

/* The same on built-in scenarios whose repetitions reset the fast allocator (dra_fast_reset,
 * its saved selector caches) and carry fragmentation samples from one to the next: MIG
 * partitions consuming shared counters (mig-inference) and shared consumable capacity
 * (gpu-sharing, also with the reference allocator beside: --allocator both): every
 * repetition's digest, outcomes, exact counters and fragmentation figures (every sample) are
 * the first's, and those of repetitions on an engine and allocator built anew. */
static void test_builtin_reset_equals_rebuild(void)
{
    static const char *const scns[] = {"mig-inference", "gpu-sharing", "gpu-sharing"};
    static const char *const als[] = {"fast", "fast", "both"};
    for (int i = 0; i < 3; i++) {
        dra_runner_opts_t o;
        dra_runner_opts_init(&o);
        o.scenario = scns[i];
        o.allocator = als[i];
        o.has_count = true;
        o.count = 60;
        o.has_warmup = true;
        o.warmup = 10;
        o.has_inv = true;
        bool hp = false, on = false;
        CHECK(dra_runner_parse_inv("off", &o.inv, &o.inv_p, &hp, &on));
        char what[64];
        snprintf(what, sizeof what, "%s %s", scns[i], als[i]);
        reset_equals_rebuild(o, what);
    }
}

static void test_injected_fault_is_caught(void)
{
    dra_runner_opts_t o;
    opts_repeat(&o, 1);
    o.inject_fault = 5;
    dra_run_t r;
    CHECK_OK(run_with(&o, &r));
    CHECK(r.inv_violations > 0);
    CHECK(r.nfirst > 0);
    CHECK(r.nfirst > 0 && r.first[0].node[0] != '\0');
    CHECK(r.nfirst > 0 && strstr(r.first[0].claim, "claim") != NULL);
    CHECK_EQ_I64(dra_run_exit_status(&r), 3);
    const json_t *inv = json_object_get(r.json, "invariants");
    CHECK(json_integer_value(json_object_get(inv, "violations")) > 0);
    CHECK(json_array_size(json_object_get(inv, "first")) > 0);
    dra_run_fini(&r);
    /* with invariants off the fault goes unnoticed (the checker, not luck, caught it) */
    o.has_inv = true;
    bool hp = false, on = false;
    CHECK(dra_runner_parse_inv("off", &o.inv, &o.inv_p, &hp, &on));
    CHECK_OK(run_with(&o, &r));
    CHECK_EQ_U64(r.inv_checked, 0);
    dra_run_fini(&r);
}

static void test_sampled_invariants_are_seeded(void)
{
    dra_runner_opts_t o;
    opts_repeat(&o, 1);
    o.has_inv = true;
    bool has_p = false, old_name = true;
    CHECK(dra_runner_parse_inv("sampled", &o.inv, &o.inv_p, &has_p, &old_name));
    CHECK(!has_p && !old_name && o.inv == DRA_INV_SAMPLED);
    CHECK(dra_runner_parse_rate("0.5", &o.inv_p));
    o.has_inv_p = true;
    dra_run_t r;
    CHECK_OK(run_with(&o, &r));
    uint64_t checked = r.inv_checked;
    CHECK(checked > 0 && checked < r.allocated);
    CHECK_STREQ(json_string_value(json_object_get(json_object_get(r.json, "invariants"), "mode")),
                "sampled");
    CHECK(json_number_value(json_object_get(json_object_get(r.json, "run"),
                                            "invariant_sample_rate")) == 0.5);
    dra_run_fini(&r);
    CHECK_OK(run_with(&o, &r));
    CHECK_EQ_U64(r.inv_checked, checked);
    dra_run_fini(&r);
    /* the spelling of earlier releases: the same run, and flagged */
    dra_runner_opts_t o2 = o;
    CHECK(dra_runner_parse_inv("sample=0.5", &o2.inv, &o2.inv_p, &has_p, &old_name));
    CHECK(has_p && old_name && o2.inv == DRA_INV_SAMPLED && o2.inv_p == 0.5);
    CHECK_OK(run_with(&o2, &r));
    CHECK_EQ_U64(r.inv_checked, checked);
    dra_run_fini(&r);
    double p;
    dra_inv_mode_t m;
    CHECK(dra_runner_parse_inv("all", &m, &p, &has_p, &old_name) && m == DRA_INV_ALL && !old_name);
    CHECK(dra_runner_parse_inv("full", &m, &p, &has_p, &old_name) && m == DRA_INV_ALL && old_name);
    CHECK(dra_runner_parse_inv("off", &m, &p, &has_p, &old_name) && m == DRA_INV_OFF);
    CHECK(!dra_runner_parse_inv("sample=0", &m, &p, &has_p, &old_name));
    CHECK(!dra_runner_parse_inv("sample=1.5", &m, &p, &has_p, &old_name));
    CHECK(!dra_runner_parse_inv("some", &m, &p, &has_p, &old_name));
    CHECK(!dra_runner_parse_rate("0", &p) && !dra_runner_parse_rate("1.5", &p) &&
          dra_runner_parse_rate("1", &p));
    CHECK_STREQ(dra_inv_mode_name(DRA_INV_SAMPLED), "sampled");
}

static void test_delay_hook_recorded(void)
{
    dra_runner_opts_t o;
    opts_repeat(&o, 1);
    o.test_delay_ns = 200000; /* 200 us per claim */
    dra_run_t r;
    CHECK_OK(run_with(&o, &r));
    CHECK_EQ_I64(json_integer_value(json_object_get(json_object_get(r.json, "run"), "test_delay_ns")),
                 200000);
    /* every pod that reached the allocator waited at least 200 us */
    for (uint32_t i = 0; i < r.nhists; i++)
        if (r.hist_names[i] && strcmp(r.hist_names[i], "gpu-1/node_search/allocated") == 0)
            CHECK(dra_hist_min(&r.hists[i]) >= 199000);
    dra_run_fini(&r);
}

/* The planted slowdown's debt (DRA_TEST_SLOWDOWN_PCT): regions shorter than a clock reading's
 * worth of slowdown spin every few regions and the planted total stays f x their time within one
 * reading, overshoot paid back; a long region spins its own share at once; a preempted region
 * counts at most 1 ms. */
static void test_plant_debt(void)
{
    /* 10,000 regions of 150 ns at 10%, a reading costing 23 ns, every spin overshooting by 7 */
    double debt = 0, spun = 0;
    uint32_t spins = 0;
    for (int i = 0; i < 10000; i++) {
        double due = dra_runner_plant_due(&debt, 0.1, 150, 23);
        if (due > 0) {
            CHECK(due >= 23);
            dra_runner_plant_paid(&debt, due, due + 7);
            spun += due + 7;
            spins++;
        }
    }
    CHECK(fabs(spun - 0.1 * 150 * 10000) <= 23 + 7);
    CHECK(spins > 4000 && spins < 6000); /* 15 ns owed a region: a spin about every second */
    /* a region of 66 us spins its own 6.6 us */
    debt = 0;
    CHECK(dra_runner_plant_due(&debt, 0.1, 66000, 23) == 6600);
    /* below the shortest spin: owed, not spun */
    debt = 0;
    CHECK(dra_runner_plant_due(&debt, 0.1, 100, 23) == 0);
    CHECK(debt == 10);
    /* preempted for 5 ms: counted as 1 ms */
    debt = 0;
    CHECK(dra_runner_plant_due(&debt, 0.1, 5e6, 23) == 1e5);
    /* a negative time (clock stepped) owes nothing */
    debt = 0;
    CHECK(dra_runner_plant_due(&debt, 0.1, -50, 23) == 0 && debt == 0);
    /* a spin preempted for 4 ms pays what was due and 1 us of overshoot, not 4 ms: the next
     * region of 150 ns owes its 15 ns again within a few regions, not after 270,000 of them */
    debt = 0;
    double due = dra_runner_plant_due(&debt, 0.1, 300, 23);
    CHECK(due == 30);
    dra_runner_plant_paid(&debt, due, 4e6);
    CHECK(debt == -1000);
    int regions = 0;
    while (dra_runner_plant_due(&debt, 0.1, 150, 23) == 0 && regions < 1000)
        regions++;
    CHECK(regions < 100);
    /* a spin that stops short (cannot happen on a monotonic clock) pays only what it spun */
    debt = 0;
    dra_runner_plant_paid(&debt, 40, 25);
    CHECK(debt == -25);
}

/* The allocate call's time is taken inside the node search's region (its own clock: the
 * time-stamp counter where there is one, converted to ns by a rate measured at start), so per
 * shape its histogram counts the same pods and its mean stays within the search's: a tick count
 * left unconverted (about 3 ticks a ns) or a wrong rate would put it above. */
static void test_answer_time_within_search(void)
{
    dra_runner_opts_t o;
    opts_repeat(&o, 1);
    dra_run_t r;
    CHECK_OK(run_with(&o, &r));
    const dra_hist_t *search = NULL, *answer = NULL;
    for (uint32_t i = 0; i < r.nhists; i++) {
        if (r.hist_names[i] && strcmp(r.hist_names[i], "all/node_search/allocated") == 0)
            search = &r.hists[i];
        if (r.hist_names[i] && strcmp(r.hist_names[i], "all/allocate/allocated") == 0)
            answer = &r.hists[i];
    }
    CHECK(search && answer);
    if (search && answer) {
        CHECK(dra_hist_count(answer) > 100);
        CHECK_EQ_I64(dra_hist_count(answer), dra_hist_count(search));
        CHECK(dra_hist_min(answer) > 0);
        CHECK_MSG(dra_hist_mean(answer) < dra_hist_mean(search), "allocate mean %.1f ns, node "
                  "search mean %.1f ns", dra_hist_mean(answer), dra_hist_mean(search));
    }
    /* the result file says which clock timed the answer, and the counter's rate with it */
    const json_t *m = json_object_get(json_object_get(r.json, "run"), "method");
    const char *timer = json_string_value(json_object_get(m, "answer_timer"));
    const json_t *rate = json_object_get(m, "answer_tick_hz");
    CHECK(timer != NULL);
    if (timer && strcmp(timer, "tsc") == 0)
        CHECK(json_is_integer(rate) && json_integer_value(rate) > 0);
    else
        CHECK(timer && strcmp(timer, "CLOCK_MONOTONIC") == 0 && rate == NULL);
    dra_run_fini(&r);
}

/* Every field schema.def stores in the loader's structs reads back as the writer wrote it
 * (top level, the first repetition and its first histogram). Returns the fields compared. */
static int check_loaded_fields(const json_t *doc, const dra_rload_result_t *r)
{
    int compared = 0;
    for (int f = 0; f < DRA_RF_COUNT; f++) {
        const dra_rfield_t *d = &dra_rfields[f];
        const void *frame = d->frame == DRA_RFR_RES               ? (const void *)r
                            : d->frame == DRA_RFR_REP && r->nreps ? (const void *)&r->reps[0]
                            : d->frame == DRA_RFR_HIST && r->nreps && r->reps[0].nhists
                                ? (const void *)&r->reps[0].hists[0]
                                : NULL;
        if (!frame)
            continue;
        int chain[16], n = 0;
        for (int x = f; x != DRA_RF_ROOT && n < 16; x = dra_rfields[x].parent)
            chain[n++] = x;
        const json_t *v = doc;
        for (int i = n - 1; i >= 0 && v; i--) {
            v = json_object_get(v, dra_rfields[chain[i]].key);
            if (i > 0 && dra_rfields[chain[i]].type == DRA_RT_ARR)
                v = json_array_get(v, 0);
        }
        char p[128];
        dra_rf_path((dra_rf_t)f, p, sizeof p);
        if (!v && d->need == DRA_RN_O)
            continue; /* not written in this run */
        const char *m = (const char *)frame + d->off;
        switch (d->type) {
        case DRA_RT_INT:
            CHECK_MSG(json_is_integer(v), "%s", p);
            CHECK_MSG((d->csize == 8 ? *(const int64_t *)(const void *)m
                                     : *(const int *)(const void *)m) == json_integer_value(v),
                      "%s", p);
            break;
        case DRA_RT_NUM:
        case DRA_RT_NUMN:
            CHECK_MSG(fabs(*(const double *)(const void *)m -
                           (json_is_number(v) ? json_number_value(v) : 0)) <=
                          1e-9 * fabs(json_is_number(v) ? json_number_value(v) : 1),
                      "%s", p);
            break;
        case DRA_RT_BOOL:
            CHECK_MSG(*(const bool *)(const void *)m == json_is_true(v), "%s", p);
            break;
        default:
            CHECK_MSG(json_is_string(v) &&
                          strcmp(*(const char *const *)(const void *)m, json_string_value(v)) == 0,
                      "%s", p);
        }
        compared++;
    }
    return compared;
}

static void test_result_round_trip(void)
{
    dra_runner_opts_t o;
    opts_repeat(&o, 1);
    dra_run_t r;
    CHECK_OK(run_with(&o, &r));
    char out[80];
    snprintf(out, sizeof out, "%s.json", path);
    dra_diag_t d;
    dra_diag_clear(&d);
    CHECK_OK(dra_result_write(r.json, out, &d));
    json_error_t je;
    json_t *back = json_load_file(out, JSON_REJECT_DUPLICATES, &je);
    CHECK(back != NULL);
    if (back) {
        CHECK_MSG(dra_result_check(back, &d) == DRA_OK, "%s", d.msg);
        /* integers and strings survive exactly (floats are written with 15 digits) */
        CHECK(json_equal(json_object_get(back, "run"), json_object_get(r.json, "run")));
        CHECK(json_equal(json_object_get(back, "tool"), json_object_get(r.json, "tool")));
        CHECK(json_equal(json_object_get(back, "invariants"), json_object_get(r.json, "invariants")));
        CHECK_STREQ(json_string_value(json_object_get(back, "digest")),
                    json_string_value(json_object_get(r.json, "digest")));
        /* a histogram rebuilds exactly from its buckets */
        const json_t *hs = json_object_get(json_array_get(json_object_get(back, "repetitions"), 0),
                                           "histograms");
        CHECK(json_array_size(hs) > 0);
        const json_t *h0 = json_array_get(hs, 0);
        dra_hist_t h;
        CHECK_OK(dra_result_hist_from_json(h0, &h, &d));
        CHECK_EQ_I64(dra_hist_count(&h), json_integer_value(json_object_get(h0, "count")));
        CHECK_EQ_I64(dra_hist_percentile(&h, 99), json_integer_value(json_object_get(h0, "p99")));
        CHECK_EQ_I64(dra_hist_max(&h), json_integer_value(json_object_get(h0, "max")));
        dra_hist_fini(&h);
        /* the checker rejects broken documents */
        json_object_set_new(back, "digest", json_string("xyz"));
        CHECK(dra_result_check(back, &d) == DRA_EVALIDATE);
        CHECK(strstr(d.msg, "digest") != NULL);
        json_object_set_new(back, "digest", json_string("0123456789abcdef"));
        json_object_del(json_object_get(back, "cluster"), "table_bytes");
        CHECK(dra_result_check(back, &d) == DRA_EVALIDATE);
        CHECK(strstr(d.msg, "cluster.table_bytes") != NULL);
        json_decref(back);
    }
    /* the reader gets what the writer wrote, field by field (schema.def); the strict check
     * refuses a key the table does not know */
    dra_rload_result_t lr;
    CHECK_MSG(dra_rload_file(out, &lr, &d) == DRA_OK, "%s", d.msg);
    CHECK(check_loaded_fields(r.json, &lr) > 60);
    dra_rload_fini(&lr);
    back = json_load_file(out, JSON_REJECT_DUPLICATES, &je);
    if (back) {
        json_object_set_new(json_object_get(back, "cluster"), "gpus", json_integer(8));
        CHECK(dra_result_check(back, &d) == DRA_EVALIDATE);
        CHECK_MSG(strstr(d.msg, "cluster.gpus: unknown field") != NULL, "%s", d.msg);
        json_decref(back);
    }
    unlink(out);
    dra_run_fini(&r);
}

/* Release records only under steady arrivals: there every timed release of a pod committed with
 * a record gives it back; a fill's commits take none (its pods never leave, so a record's writes
 * would be the commit's cost alone). The same cluster and mix in both modes: the fill is the
 * steady scenario with its workload's arrivals made a fill of 40 pods. */
static const char steady_arrivals[] = "    mode: steady\n    count: 160\n    rate: 100\n"
                                      "    lifetime: {distribution: exponential, mean: 0.3}\n";
static const char fill_arrivals[] = "    mode: fill\n    count: 40\n";

static void test_records_only_under_steady_arrivals(void)
{
    dra_runner_opts_t o;
    dra_runner_opts_init(&o);
    dra_run_t r;
    CHECK_OK(run_with(&o, &r));
    CHECK(r.pods_placed > 0);
    CHECK_MSG(r.rec_commits > 0 && r.rec_commits <= r.pods_placed, "steady: %llu records, %llu placed",
              (unsigned long long)r.rec_commits, (unsigned long long)r.pods_placed);
    CHECK(r.rec_releases > 0 && r.rec_releases <= r.rec_commits);
    CHECK_EQ_U64(r.inv_violations, 0);
    dra_run_fini(&r);

    const char *at = strstr(scenario_yaml, steady_arrivals);
    CHECK(at != NULL);
    if (!at)
        return;
    /* the fill's arrivals are shorter than the steady ones: the text fits */
    char fill[sizeof scenario_yaml], fy[64];
    size_t head = (size_t)(at - scenario_yaml), mid = sizeof fill_arrivals - 1;
    const char *tail = at + sizeof steady_arrivals - 1;
    memcpy(fill, scenario_yaml, head);
    memcpy(fill + head, fill_arrivals, mid);
    memcpy(fill + head + mid, tail, strlen(tail) + 1);
    write_yaml(fill, fy);
    dra_runner_opts_init(&o);
    o.scenario = fy;
    dra_diag_t d;
    dra_diag_clear(&d);
    int rc = dra_runner_run(&o, &r, &d);
    CHECK_MSG(rc == DRA_OK, "%s", d.msg);
    if (rc == DRA_OK) {
        CHECK(r.pods_placed > 0);
        CHECK_EQ_U64(r.rec_commits, 0);
        CHECK_EQ_U64(r.rec_releases, 0);
        CHECK_EQ_U64(r.inv_violations, 0);
        dra_run_fini(&r);
    }
    unlink(fy);
}

/* Issue 22, checks that do not move the numbers: every timed pass starts from what it would
 * start from without the check pass (runner_tests.h, dra_runner_pass_hook): the state, the
 * slots' free lists and the PodGroups' bookkeeping - which instance, and so which memory, each
 * group arrival gets. A small steady scenario with gangs, a basic group, groups without
 * topology and single pods (groups wait and leave out of order), four repetitions with
 * invariants off and all: the digests of each repetition's start are equal, and from the
 * second repetition on the same in every repetition. */
#define PASS_REPS 4
static uint64_t pass_digest[PASS_REPS];
static uint32_t pass_seen;

static void note_pass(uint32_t rep, uint64_t digest)
{
    if (rep < PASS_REPS)
        pass_digest[rep] = digest;
    pass_seen++;
}

static void pass_digests(const char *inv, uint64_t out[PASS_REPS])
{
    dra_runner_opts_t o;
    dra_runner_opts_init(&o);
    o.scenario = "harness/tests/data/groups-small.yaml";
    o.has_repeat = true;
    o.repeat = PASS_REPS;
    o.has_count = true;
    o.count = 240;
    o.has_warmup = true;
    o.warmup = 40;
    o.has_inv = true;
    bool hp = false, on = false;
    CHECK(dra_runner_parse_inv(inv, &o.inv, &o.inv_p, &hp, &on));
    memset(pass_digest, 0, sizeof pass_digest);
    pass_seen = 0;
    dra_runner_pass_hook = note_pass;
    dra_run_t r;
    dra_diag_t d;
    dra_diag_clear(&d);
    int rc = dra_runner_run(&o, &r, &d);
    dra_runner_pass_hook = NULL;
    CHECK_MSG(rc == DRA_OK, "%s: %s", inv, d.msg);
    if (rc != DRA_OK)
        return;
    CHECK_EQ_U64(r.reps_done, PASS_REPS);
    CHECK_EQ_U64(pass_seen, PASS_REPS);
    CHECK_EQ_U64(r.inv_violations, 0);
    CHECK(strcmp(inv, "off") == 0 ? r.inv_checked == 0 : r.inv_checked > 0);
    CHECK(r.allocated > 0);
    memcpy(out, pass_digest, sizeof pass_digest);
    dra_run_fini(&r);
}

static void test_check_pass_leaves_the_timed_pass_alone(void)
{
    uint64_t off[PASS_REPS], all[PASS_REPS];
    memset(off, 0, sizeof off);
    memset(all, 1, sizeof all);
    pass_digests("off", off);
    pass_digests("all", all);
    for (int k = 0; k < PASS_REPS; k++)
        CHECK_MSG(off[k] == all[k], "repetition %d starts from %016llx with invariants off, "
                  "%016llx with all", k + 1, (unsigned long long)off[k],
                  (unsigned long long)all[k]);
    for (int k = 2; k < PASS_REPS; k++)
        CHECK_MSG(off[k] == off[1], "repetition %d starts from %016llx, repetition 2 from %016llx",
                  k + 1, (unsigned long long)off[k], (unsigned long long)off[1]);
}

/* Pods with release records and pods without (an adminAccess monitor keeps none) take the same
 * slots in turn: the look-ahead's record bit per slot follows each slot's pod (debug builds
 * assert at every release that the bit says what the slot holds). */
static void test_record_bits_follow_slots(void)
{
    static const char shared_line[] = "    - {shape: shared, share: 2, weight: 1}\n";
    static const char admin_line[] = "    - {shape: admin-monitor, weight: 2}\n";
    const char *at = strstr(scenario_yaml, shared_line);
    CHECK(at != NULL);
    if (!at)
        return;
    char y[sizeof scenario_yaml + sizeof admin_line], fy[64];
    size_t head = (size_t)(at - scenario_yaml) + sizeof shared_line - 1;
    memcpy(y, scenario_yaml, head);
    memcpy(y + head, admin_line, sizeof admin_line - 1);
    memcpy(y + head + sizeof admin_line - 1, scenario_yaml + head, sizeof scenario_yaml - head);
    write_yaml(y, fy);
    dra_runner_opts_t o;
    dra_runner_opts_init(&o);
    o.scenario = fy;
    dra_run_t r;
    dra_diag_t d;
    dra_diag_clear(&d);
    int rc = dra_runner_run(&o, &r, &d);
    CHECK_MSG(rc == DRA_OK, "%s", d.msg);
    if (rc == DRA_OK) {
        CHECK_MSG(r.rec_commits > 0 && r.rec_commits < r.pods_placed,
                  "mixed: %llu records, %llu placed", (unsigned long long)r.rec_commits,
                  (unsigned long long)r.pods_placed);
        CHECK(r.rec_releases > 0);
        CHECK_EQ_U64(r.inv_violations, 0);
        dra_run_fini(&r);
    }
    unlink(fy);
}

static void test_bad_inputs(void)
{
    dra_runner_opts_t o;
    dra_runner_opts_init(&o);
    o.scenario = "no-such-scenario-anywhere";
    dra_run_t r;
    dra_diag_t d;
    dra_diag_clear(&d);
    CHECK(dra_runner_run(&o, &r, &d) != DRA_OK);
    CHECK(d.msg[0] != '\0');
    dra_runner_opts_init(&o);
    o.scenario = path;
    o.allocator = "quick";
    dra_diag_clear(&d);
    CHECK(dra_runner_run(&o, &r, &d) == DRA_EUNSUPPORTED);
    dra_placement_t p;
    CHECK(!dra_runner_parse_policy("worst-fit", &p));
}

/* With the argument "builtin": test_builtin_reset_equals_rebuild alone (its own ctest entry,
 * harness/tests/runner.cmake: it builds two built-in scenarios' clusters six times). */
int main(int argc, char **argv)
{
    if (argc > 1 && strcmp(argv[1], "builtin") == 0) {
        RUN(test_builtin_reset_equals_rebuild);
        return check_summary();
    }
    write_scenario();
    RUN(test_full_invariants_and_digests);
    RUN(test_same_seed_same_digest_other_seed_differs);
    RUN(test_policies_differ_and_are_valid);
    RUN(test_engine_reset_equals_rebuild);
    RUN(test_injected_fault_is_caught);
    RUN(test_sampled_invariants_are_seeded);
    RUN(test_delay_hook_recorded);
    RUN(test_plant_debt);
    RUN(test_answer_time_within_search);
    RUN(test_result_round_trip);
    RUN(test_records_only_under_steady_arrivals);
    RUN(test_check_pass_leaves_the_timed_pass_alone);
    RUN(test_record_bits_follow_slots);
    RUN(test_bad_inputs);
    unlink(path);
    return check_summary();
}
