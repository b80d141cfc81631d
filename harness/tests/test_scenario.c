/* test_scenario.c - scenario loader: built-ins load and build, errors carry file:line:col,
 * unknown fields are rejected, determinism of the built model. */
#include <stdlib.h>
#include <string.h>

#include "alloc/alloc.h"
#include "check.h"
#include "scenario.h"

static int load_text(dra_scenario_t *s, const char *text, dra_diag_t *d)
{
    return dra_scenario_load(s, text, strlen(text), "t.yaml", d);
}

static const char base[] = "apiVersion: drabench.dev/v1alpha1\n"
                           "kind: Scenario\n"
                           "metadata: {name: t}\n"
                           "spec:\n"
                           "  seed: 7\n"
                           "  cluster:\n"
                           "    nodes:\n"
                           "    - {profile: dgx-h100, count: 2}\n"
                           "  workload:\n"
                           "    mode: fill\n"
                           "    count: 10\n"
                           "    mix:\n"
                           "    - {shape: gpu-1, weight: 1}\n";

static void test_builtins_load_and_build(void)
{
    const char *names[32];
    size_t n = dra_scenario_builtins(names, 32);
    CHECK(n >= 8);
    const char *want[] = {"default.yaml", "sched-perf-500.yaml", "fleet-5k.yaml", "fleet-50k.yaml",
                          "nvl72-training.yaml", "mig-inference.yaml", "unsat-storm.yaml",
                          "gpu-sharing.yaml", "nvl72-gangs.yaml", "superpod-gangs.yaml"};
    for (size_t w = 0; w < DRA_ARRAY_LEN(want); w++) {
        bool found = false;
        for (size_t i = 0; i < n && i < 32; i++)
            found |= strcmp(names[i], want[w]) == 0;
        CHECK_MSG(found, "built-in %s missing", want[w]);
    }
    for (size_t i = 0; i < n && i < 32; i++) {
        dra_scenario_t s;
        dra_diag_t d;
        char nm[64];
        snprintf(nm, sizeof nm, "%.*s", (int)(strlen(names[i]) - 5), names[i]);
        int rc = dra_scenario_load_named(&s, nm, &d);
        CHECK_MSG(rc == DRA_OK, "%s: %s", nm, d.msg);
        CHECK_MSG(rc != DRA_OK || dra_scenario_check(&s), "%s: dra_scenario_check", nm);
        if (rc == DRA_OK && strcmp(nm, "fleet-50k") != 0) { /* fleet-50k: measured by the scale test */
            dra_model_t m;
            dra_model_init(&m);
            dra_scenario_built_t b;
            rc = dra_scenario_build(&s, &m, s.seed, &b, &d);
            CHECK_MSG(rc == DRA_OK, "%s build: %s", nm, d.msg);
            if (rc == DRA_OK) {
                CHECK(m.nnodes > 0 && m.ntemplates >= 1);
                for (uint32_t k = 0; k < s.nmix; k++)
                    CHECK(b.templates[k] != NULL);
                dra_workload_t w;
                CHECK_OK(dra_workload_init(&w, &b.workload, s.seed, NULL));
                dra_wl_event_t ev;
                CHECK_EQ_I64(dra_workload_next(&w, &ev), 1);
                dra_workload_fini(&w);
                dra_scenario_built_fini(&b);
            }
            dra_model_fini(&m);
        }
        if (rc == DRA_OK)
            CHECK(s.name && strcmp(s.name, nm) == 0);
        dra_scenario_fini(&s);
    }
    dra_scenario_t s;
    dra_diag_t d;
    CHECK_OK(dra_scenario_load_named(&s, "sched-perf-500", &d));
    CHECK_EQ_I64(s.ngroups, 1);
    CHECK_EQ_I64(s.groups[0].count, 500);
    CHECK_EQ_I64(s.groups[0].params.devices, 10);
    CHECK_EQ_I64(s.count, 5000);
    CHECK_EQ_I64(s.mode, DRA_WL_FILL);
    dra_scenario_fini(&s);
    CHECK_EQ_I64(dra_scenario_load_named(&s, "no-such-scenario", &d), DRA_ENOTFOUND);
    CHECK(strstr(d.msg, "no-such-scenario") != NULL);
}

static void test_fields(void)
{
    dra_scenario_t s;
    dra_diag_t d;
    CHECK_OK(load_text(&s, base, &d));
    CHECK_EQ_I64(s.seed, 7);
    CHECK_EQ_I64(s.release, DRA_RELEASE_DEFAULT); /* no spec.release: the newest release */
    CHECK_EQ_I64(s.groups[0].profile, DRA_GEN_DGX_H100);
    CHECK_EQ_I64(s.groups[0].params.gpus, 8);
    CHECK_EQ_I64(s.nmix, 1);
    CHECK_EQ_I64(s.mix[0].shape.kind, DRA_SHAPE_GPU_1);
    CHECK_EQ_I64(s.mix[0].cpu_milli, 0); /* no requests: none */
    CHECK_EQ_I64(s.mix[0].memory_bytes, 0);
    dra_scenario_fini(&s);

    static const char full[] =
        "apiVersion: drabench.dev/v1alpha1\nkind: Scenario\nspec:\n  release: \"1.34\"\n"
        "  features: {DRAPrioritizedList: false}\n"
        "  cluster:\n    nodes:\n"
        "    - {profile: a100-mig-dynamic, count: 3, name: m, params: {gpus: 4, counterLayout: \"1.34\"}}\n"
        "    - profile: net-pool\n      count: 1\n      params: {scope: nodeSelector, selector: {key: a, value: b}}\n"
        "  workload:\n    mode: steady\n    count: 100\n    rate: 10\n"
        "    lifetime: {distribution: uniform, min: 1, max: 3}\n"
        "    mix:\n    - {shape: mig-2g.10gb, weight: 2.5, requests: {cpu: 1.25, memory: 1.5Gi}}\n"
        "    - weight: 1\n      requests: {cpu: 1m}\n      template:\n        name: x\n        requests:\n"
        "        - {name: a, deviceClassName: mig.nvidia.com, count: 2, selectors: [\"true\"]}\n"
        "        constraints:\n        - {matchAttribute: gpu.nvidia.com/parentUUID, requests: [a]}\n"
        "  placement: spread\n  run: {warmup: 5, repetitions: 2, invariants: sampled, sampleRate: 0.5}\n";
    CHECK_OK(load_text(&s, full, &d));
    CHECK_EQ_I64(s.release, 134);
    {
        /* every profile by name, and a release that is none */
        static const char *const rels[] = {"1.34", "1.35", "1.36", "1.37", "1.38-pre"};
        for (size_t i = 0; i < DRA_ARRAY_LEN(rels); i++) {
            char txt[sizeof base + 64];
            const char *at = strstr(base, "spec:\n");
            snprintf(txt, sizeof txt, "%.*sspec:\n  release: \"%s\"\n%s", (int)(at - base), base,
                     rels[i], at + 6);
            dra_scenario_t r;
            CHECK_OK(load_text(&r, txt, &d));
            CHECK_STREQ(dra_alloc_release_name((dra_release_t)r.release), rels[i]);
            dra_scenario_fini(&r);
        }
        char txt[sizeof base + 64];
        const char *at = strstr(base, "spec:\n");
        snprintf(txt, sizeof txt, "%.*sspec:\n  release: \"1.38\"\n%s", (int)(at - base), base,
                 at + 6);
        dra_scenario_t r;
        CHECK_EQ_I64(load_text(&r, txt, &d), DRA_EINVAL);
        CHECK(strstr(d.msg, "spec.release") != NULL && strstr(d.msg, "1.38-pre") != NULL);
    }
    CHECK_EQ_I64(s.nfeatures, 1);
    CHECK(!s.features[0].on);
    CHECK_EQ_I64(s.groups[0].params.gpus, 4);
    CHECK_EQ_I64(s.groups[0].params.counter_layout, DRA_GEN_COUNTERS_COMBINED);
    CHECK_EQ_I64(s.groups[1].params.scope, DRA_GEN_SCOPE_NODE_SELECTOR);
    CHECK_EQ_I64(s.lifetime.kind, DRA_DIST_UNIFORM);
    CHECK_NEAR(s.lifetime.b, 3, 0);
    CHECK_STREQ(s.mix[0].shape.mig_profile, "2g.10gb");
    CHECK_EQ_I64(s.mix[1].shape.kind, DRA_SHAPE_INLINE);
    CHECK_EQ_I64(s.mix[0].cpu_milli, 1250);
    CHECK_EQ_I64(s.mix[0].memory_bytes, INT64_C(3) << 29);
    CHECK_EQ_I64(s.mix[1].cpu_milli, 1);
    CHECK_EQ_I64(s.mix[1].memory_bytes, 0);
    CHECK_EQ_I64(s.placement, DRA_PLACE_SPREAD);
    CHECK_EQ_I64(s.invariants, DRA_INV_SAMPLED);
    dra_model_t m;
    dra_model_init(&m);
    dra_scenario_built_t b;
    CHECK_OK(dra_scenario_build(&s, &m, 3, &b, &d));
    CHECK_EQ_I64(m.nnodes, 3);
    CHECK_EQ_I64(m.ntemplates, 2);
    CHECK_STREQ(b.templates[1]->name, "x");
    CHECK_EQ_I64(b.templates[1]->requests[0].exactly->count, 2);
    CHECK_STREQ(b.templates[1]->constraints[0].match_attribute, "gpu.nvidia.com/parentUUID");
    CHECK_EQ_I64(m.slices[0]->ncounter_sets, 1); /* 1.34 combined layout */
    dra_scenario_built_fini(&b);
    dra_model_fini(&m);
    dra_scenario_fini(&s);
}

/* Replace the first occurrence of `from` in base by `to`, load, and expect an error mentioning
 * `want` at line `line`. */
static void expect_error(const char *from, const char *to, uint32_t line, const char *want)
{
    char buf[4096];
    const char *at = strstr(base, from);
    CHECK(at != NULL);
    if (!at)
        return;
    snprintf(buf, sizeof buf, "%.*s%s%s", (int)(at - base), base, to, at + strlen(from));
    dra_scenario_t s;
    dra_diag_t d;
    int rc = load_text(&s, buf, &d);
    CHECK_MSG(rc != DRA_OK, "expected an error for %s", to);
    CHECK_MSG(d.line == line, "line %u, want %u (%s)", d.line, line, d.msg);
    CHECK(d.column > 0);
    CHECK_MSG(strstr(d.msg, want) != NULL, "message \"%s\" lacks \"%s\"", d.msg, want);
    CHECK(d.file && strcmp(d.file, "t.yaml") == 0);
    dra_scenario_fini(&s);
}

static void test_errors(void)
{
    expect_error("  seed: 7\n", "  seed: 7\n  colour: red\n", 6, "unknown field \"colour\"");
    expect_error("count: 2}", "count: 2, gpus: 4}", 8, "unknown field \"gpus\"");
    expect_error("dgx-h100", "dgx-h1000", 8, "unknown profile \"dgx-h1000\"");
    expect_error("shape: gpu-1", "shape: gpu-2", 13, "unknown shape \"gpu-2\"");
    expect_error("mode: fill", "mode: flll", 10, "unknown value \"flll\"");
    expect_error("count: 10", "count: -1", 11, "spec.workload.count");
    expect_error("count: 10", "count: ten", 11, "spec.workload.count");
    expect_error("mode: fill", "mode: steady", 10, "rate and lifetime");
    expect_error("kind: Scenario", "kind: Scenari", 2, "must be Scenario");
    expect_error("shape: gpu-1", "shape: mig-9g.99gb", 13, "unknown MIG profile");
    expect_error("shape: gpu-1, weight: 1", "shape: gpu-1, weight: 0", 13, "weight");
    expect_error("count: 2}", "count: 2, params: {nics: 9}}", 8, "nics");
    expect_error("count: 2}", "count: 2, params: {migLayout: some}}", 8, "migLayout");
    expect_error("weight: 1}", "weight: 1, requests: {cpu: -1}}", 13, "not a non-negative quantity");
    expect_error("weight: 1}", "weight: 1, requests: {memory: 1Qi}}", 13, "spec.workload.mix[0].requests.memory");
    expect_error("weight: 1}", "weight: 1, requests: {gpu: 1}}", 13, "unknown field \"gpu\"");
    /* YAML syntax errors are reported with their position by the parser */
    dra_scenario_t s;
    dra_diag_t d;
    CHECK(load_text(&s, "apiVersion: [\n", &d) != DRA_OK);
    CHECK(d.line >= 1);
    dra_scenario_fini(&s);
    CHECK(load_text(&s, "", &d) != DRA_OK);
    dra_scenario_fini(&s);
}

static void test_determinism(void)
{
    uint64_t dg[3];
    uint64_t seeds[3] = {5, 5, 6};
    for (int i = 0; i < 3; i++) {
        dra_scenario_t s;
        dra_diag_t d;
        CHECK_OK(dra_scenario_load_named(&s, "default", &d));
        dra_model_t m;
        dra_model_init(&m);
        dra_scenario_built_t b;
        CHECK_OK(dra_scenario_build(&s, &m, seeds[i], &b, &d));
        dg[i] = dra_model_digest(&m);
        dra_scenario_built_fini(&b);
        dra_model_fini(&m);
        dra_scenario_fini(&s);
    }
    CHECK_EQ_U64(dg[0], dg[1]);
    CHECK(dg[0] != dg[2]);
}

/* dra_scenario_check fails on each field a loaded scenario cannot have. */
static void test_check(void)
{
    dra_scenario_t s;
    dra_diag_t d;
    CHECK_OK(dra_scenario_load_named(&s, "default", &d));
    CHECK(dra_scenario_check(&s));
    dra_scenario_t t = s;
    t.release = 133;
    CHECK(!dra_scenario_check(&t));
    t = s;
    t.nmix = 0;
    CHECK(!dra_scenario_check(&t));
    t = s;
    t.repetitions = 0;
    CHECK(!dra_scenario_check(&t));
    t = s;
    t.sample_rate = 1.5;
    CHECK(!dra_scenario_check(&t));
    t = s;
    t.mode = DRA_WL_STEADY;
    t.rate = 0;
    CHECK(!dra_scenario_check(&t));
    double w0 = s.mix[0].weight;
    s.mix[0].weight = -1;
    CHECK(!dra_scenario_check(&s));
    s.mix[0].weight = w0;
    CHECK(dra_scenario_check(&s));
    dra_scenario_fini(&s);
}

int main(void)
{
    RUN(test_check);
    RUN(test_builtins_load_and_build);
    RUN(test_fields);
    RUN(test_errors);
    RUN(test_determinism);
    return check_summary();
}
