/* test_taintrule.c - DeviceTaintRule reader, selection (driver, pool, device, class, CEL) and
 * application to the model's devices. */
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "manifest.h"
#include "taintrule.h"

static const char k_objects[] =
    "apiVersion: resource.k8s.io/v1\n"
    "kind: DeviceClass\n"
    "metadata: {name: numa-1}\n"
    "spec:\n"
    "  selectors:\n"
    "  - cel: {expression: 'device.attributes[\"driver-a\"].numa == 1'}\n"
    "---\n"
    "apiVersion: resource.k8s.io/v1\n"
    "kind: ResourceSlice\n"
    "metadata: {name: s1}\n"
    "spec:\n"
    "  driver: driver-a\n"
    "  pool: {name: pool-1, generation: 1, resourceSliceCount: 1}\n"
    "  nodeName: node-1\n"
    "  devices:\n"
    "  - name: dev-0\n"
    "    attributes: {numa: {int: 0}}\n"
    "    taints: [{key: pre, effect: NoSchedule}]\n"
    "  - {name: dev-1, attributes: {numa: {int: 1}}}\n"
    "---\n"
    "apiVersion: resource.k8s.io/v1\n"
    "kind: ResourceSlice\n"
    "metadata: {name: s2}\n"
    "spec:\n"
    "  driver: driver-b\n"
    "  pool: {name: pool-1, generation: 1, resourceSliceCount: 1}\n"
    "  nodeName: node-1\n"
    "  devices:\n"
    "  - {name: dev-0, attributes: {numa: {int: 1}}}\n";

typedef struct fx {
    dra_model_t m;
    dra_taint_rules_t r;
    dra_diag_list_t errs;
    dra_cel_cache_t *cel;
} fx_t;

static int fx_load(fx_t *f, const char *rules)
{
    dra_model_init(&f->m);
    dra_taint_rules_init(&f->r);
    dra_diag_list_init(&f->errs);
    f->cel = NULL;
    if (dra_cel_cache_new(&f->cel) != DRA_OK)
        return DRA_ENOMEM;
    int rc = dra_manifest_read_buffer(&f->m, "objs.yaml", k_objects, strlen(k_objects), &f->errs);
    if (rc != DRA_OK)
        return rc;
    /* the manifest reader must skip the rules; the rule reader the other kinds */
    rc = dra_manifest_read_buffer(&f->m, "rules.yaml", rules, strlen(rules), &f->errs);
    if (rc != DRA_OK)
        return rc;
    return dra_taint_rules_read_buffer(&f->r, &f->m, "rules.yaml", rules, strlen(rules), &f->errs);
}

static void fx_fini(fx_t *f)
{
    dra_cel_cache_free(f->cel);
    dra_taint_rules_fini(&f->r);
    dra_diag_list_fini(&f->errs);
    dra_model_fini(&f->m);
}

static const dra_device_t *dev(const fx_t *f, uint32_t slice, uint32_t i)
{
    return &f->m.slices[slice]->devices[i];
}

static bool has_err(const dra_diag_list_t *l, const char *needle)
{
    for (size_t i = 0; i < l->count; i++)
        if (strstr(l->items[i].msg, needle))
            return true;
    return false;
}

static void test_read_fields(void)
{
    fx_t f;
    CHECK_OK(fx_load(&f,
                     "apiVersion: resource.k8s.io/v1alpha3\n"
                     "kind: DeviceTaintRule\n"
                     "metadata: {name: r1}\n"
                     "spec:\n"
                     "  deviceSelector:\n"
                     "    deviceClassName: numa-1\n"
                     "    driver: driver-a\n"
                     "    pool: pool-1\n"
                     "    device: dev-1\n"
                     "    selectors: [{cel: {expression: 'device.driver != \"\"'}}]\n"
                     "  taint: {key: k, value: v, effect: NoExecute, timeAdded: '2026-01-01T00:00:00Z'}\n"
                     "---\n"
                     "apiVersion: v1\n"
                     "kind: List\n"
                     "items:\n"
                     "- apiVersion: resource.k8s.io/v1beta2\n"
                     "  kind: DeviceTaintRule\n"
                     "  metadata: {name: r2}\n"
                     "  spec: {taint: {key: k2, effect: None}}\n"));
    CHECK_EQ_I64(f.r.n, 2);
    CHECK_EQ_I64(f.m.nskipped, 2); /* the manifest reader skipped r1 and r2 */
    if (f.r.n == 2) {
        const dra_taint_rule_t *r = &f.r.items[0];
        CHECK_STREQ(r->name, "r1");
        CHECK_STREQ(r->class_name, "numa-1");
        CHECK_STREQ(r->driver, "driver-a");
        CHECK_STREQ(r->pool, "pool-1");
        CHECK_STREQ(r->device, "dev-1");
        CHECK_EQ_I64(r->nselectors, 1);
        CHECK_STREQ(r->taint.key, "k");
        CHECK_STREQ(r->taint.value, "v");
        CHECK_EQ_I64(r->taint.effect, DRA_EFFECT_NO_EXECUTE);
        CHECK_STREQ(r->taint.time_added, "2026-01-01T00:00:00Z");
        CHECK_EQ_I64(r->pos.line, 1);
        r = &f.r.items[1];
        CHECK_STREQ(r->name, "r2");
        CHECK(!r->driver && !r->pool && !r->device && !r->class_name && !r->nselectors);
        CHECK_EQ_I64(r->taint.effect, DRA_EFFECT_NONE);
        CHECK_STREQ(r->taint.effect_raw, "None");
    }
    fx_fini(&f);
}

static void test_read_errors(void)
{
    fx_t f;
    int rc = fx_load(&f, "apiVersion: resource.k8s.io/v1\n"
                         "kind: DeviceTaintRule\n"
                         "metadata: {name: bad}\n"
                         "spec:\n"
                         "  deviceSelector: {drivr: x}\n"
                         "  taint: {value: v}\n"
                         "---\n"
                         "apiVersion: resource.k8s.io/v1\n"
                         "kind: DeviceTaintRule\n"
                         "metadata: {name: notaint}\n"
                         "spec: {deviceSelector: {driver: 3}}\n"
                         "---\n"
                         "apiVersion: resource.k8s.io/v1\n"
                         "kind: DeviceTaintRule\n"
                         "metadata: {name: good}\n"
                         "spec: {taint: {key: k, effect: NoSchedule}}\n");
    CHECK_EQ_I64(rc, DRA_EVALIDATE);
    CHECK(has_err(&f.errs, "DeviceTaintRule/bad: spec.deviceSelector.drivr: unknown field"));
    CHECK(has_err(&f.errs, "DeviceTaintRule/bad: spec.taint.key: required field missing"));
    CHECK(has_err(&f.errs, "DeviceTaintRule/bad: spec.taint.effect: required field missing"));
    CHECK(has_err(&f.errs, "DeviceTaintRule/notaint: spec.deviceSelector.driver: expected a string"));
    CHECK(has_err(&f.errs, "DeviceTaintRule/notaint: spec.taint: required map missing"));
    CHECK_EQ_I64(f.r.n, 1); /* only the valid rule is kept */
    if (f.r.n == 1)
        CHECK_STREQ(f.r.items[0].name, "good");
    fx_fini(&f);

    /* a YAML syntax error is a parse error */
    fx_t g;
    dra_model_init(&g.m);
    dra_taint_rules_init(&g.r);
    dra_diag_list_init(&g.errs);
    const char *bad = "kind: DeviceTaintRule\nspec: {taint: [\n";
    CHECK_EQ_I64(dra_taint_rules_read_buffer(&g.r, &g.m, "b.yaml", bad, strlen(bad), &g.errs),
                 DRA_EPARSE);
    dra_taint_rules_fini(&g.r);
    dra_diag_list_fini(&g.errs);
    dra_model_fini(&g.m);
}

/* Each selector field alone: which of the three devices (a/dev-0, a/dev-1, b/dev-0) match. */
static void expect_matches_rel(dra_release_t rel, const char *sel, bool a0, bool a1, bool b0)
{
    dra_alloc_features_t feat;
    dra_alloc_features_init(&feat, rel);
    char rules[1024];
    snprintf(rules, sizeof rules,
             "apiVersion: resource.k8s.io/v1alpha3\nkind: DeviceTaintRule\nmetadata: {name: r}\n"
             "spec:\n  deviceSelector: %s\n  taint: {key: k, effect: NoSchedule}\n",
             sel);
    fx_t f;
    CHECK_OK(fx_load(&f, rules));
    CHECK_EQ_I64(f.r.n, 1);
    dra_arena_t scratch;
    dra_arena_init(&scratch, 0);
    const dra_device_t *ds[3] = {dev(&f, 0, 0), dev(&f, 0, 1), dev(&f, 1, 0)};
    bool want[3] = {a0, a1, b0};
    for (int i = 0; i < 3 && f.r.n == 1; i++) {
        bool mt = !want[i];
        dra_diag_t d;
        CHECK_OK(dra_taint_rule_matches(&f.r.items[0], &f.m, f.cel, &feat, &scratch, ds[i], &mt,
                                        &d));
        CHECK_MSG(mt == want[i], "release %s, selector %s, device #%d: match %d",
                  dra_alloc_release_name(rel), sel, i, (int)mt);
    }
    dra_arena_fini(&scratch);
    fx_fini(&f);
}

static void expect_matches(const char *sel, bool a0, bool a1, bool b0)
{
    expect_matches_rel(DRA_RELEASE_1_36, sel, a0, a1, b0);
}

static void test_selection(void)
{
    expect_matches("null", true, true, true);
    expect_matches("{}", true, true, true);
    expect_matches("{driver: driver-a}", true, true, false);
    expect_matches("{pool: pool-1}", true, true, true);
    expect_matches("{pool: pool-2}", false, false, false);
    expect_matches("{device: dev-0}", true, false, true);
    expect_matches("{driver: driver-b, device: dev-0}", false, false, true);
    expect_matches("{deviceClassName: numa-1}", false, true, false); /* driver-a attribute */
    expect_matches("{deviceClassName: no-such-class}", false, false, false);
    expect_matches("{selectors: [{cel: {expression: 'device.driver == \"driver-b\"'}}]}", false,
                   false, true);
    /* all selectors must match */
    expect_matches("{selectors: [{cel: {expression: 'true'}}, {cel: {expression: 'false'}}]}",
                   false, false, false);
    /* a runtime error (missing attribute) is "no match" */
    expect_matches("{selectors: [{cel: {expression: 'device.attributes[\"x\"].y == 1'}}]}", false,
                   false, false);
}

static void test_compile_error(void)
{
    fx_t f;
    CHECK_OK(fx_load(&f, "apiVersion: resource.k8s.io/v1alpha3\nkind: DeviceTaintRule\n"
                         "metadata: {name: broken}\n"
                         "spec:\n  deviceSelector: {selectors: [{cel: {expression: 'device.'}}]}\n"
                         "  taint: {key: k, effect: NoSchedule}\n"));
    dra_diag_t d;
    dra_diag_clear(&d);
    uint32_t hits = 99;
    dra_alloc_features_t feat;
    dra_alloc_features_init(&feat, DRA_RELEASE_1_37);
    CHECK_EQ_I64(dra_taint_rules_apply(&f.r, &f.m, f.cel, &feat, &hits, &d), DRA_ECOMPILE);
    CHECK(strstr(d.msg, "DeviceTaintRule broken: selector #0: CEL compile error") != NULL);
    fx_fini(&f);
}

static void test_apply(void)
{
    fx_t f;
    CHECK_OK(fx_load(&f, "apiVersion: resource.k8s.io/v1\nkind: DeviceTaintRule\n"
                         "metadata: {name: a}\n"
                         "spec: {deviceSelector: {driver: driver-a}, taint: {key: ka, effect: NoExecute}}\n"
                         "---\n"
                         "apiVersion: resource.k8s.io/v1\nkind: DeviceTaintRule\n"
                         "metadata: {name: d0}\n"
                         "spec: {deviceSelector: {device: dev-0}, taint: {key: kd, value: x, effect: NoSchedule}}\n"));
    const dra_taint_t *before = dev(&f, 0, 0)->taints;
    uint32_t hits = 0;
    dra_diag_t d;
    dra_alloc_features_t feat;
    dra_alloc_features_init(&feat, DRA_RELEASE_1_37);
    CHECK_OK(dra_taint_rules_apply(&f.r, &f.m, f.cel, &feat, &hits, &d));
    CHECK_EQ_I64(hits, 4); /* a: a/dev-0, a/dev-1; d0: a/dev-0, b/dev-0 */
    const dra_device_t *a0 = dev(&f, 0, 0), *a1 = dev(&f, 0, 1), *b0 = dev(&f, 1, 0);
    CHECK_EQ_I64(a0->ntaints, 3); /* its own taint first, then the rules in order */
    if (a0->ntaints == 3) {
        CHECK_STREQ(a0->taints[0].key, "pre");
        CHECK_STREQ(a0->taints[1].key, "ka");
        CHECK_EQ_I64(a0->taints[1].effect, DRA_EFFECT_NO_EXECUTE);
        CHECK_STREQ(a0->taints[2].key, "kd");
        CHECK_STREQ(a0->taints[2].value, "x");
    }
    CHECK(a0->taints != before); /* a new array; the old one stays intact in the arena */
    CHECK_EQ_I64(before[0].effect, DRA_EFFECT_NO_SCHEDULE);
    CHECK_EQ_I64(a1->ntaints, 1);
    if (a1->ntaints == 1)
        CHECK_STREQ(a1->taints[0].key, "ka");
    CHECK_EQ_I64(b0->ntaints, 1);
    if (b0->ntaints == 1)
        CHECK_STREQ(b0->taints[0].key, "kd");
    fx_fini(&f);
}

static void test_enabled(void)
{
    dra_alloc_features_t f;
    dra_alloc_features_init(&f, DRA_RELEASE_1_36);
    CHECK(!dra_taint_rules_enabled(&f)); /* beta, off by default */
    CHECK_OK(dra_alloc_features_set(&f, "DRADeviceTaintRules=true", NULL));
    CHECK(dra_taint_rules_enabled(&f));
    dra_alloc_features_init(&f, DRA_RELEASE_1_35);
    CHECK(!dra_taint_rules_enabled(&f));
    dra_alloc_features_init(&f, DRA_RELEASE_1_34);
    CHECK(!dra_taint_rules_enabled(&f));
    CHECK_OK(dra_alloc_features_set(&f, "DRADeviceTaints=true", NULL));
    CHECK(dra_taint_rules_enabled(&f)); /* 1.34: part of DRADeviceTaints */
    dra_alloc_features_init(&f, DRA_RELEASE_1_37);
    CHECK(dra_taint_rules_enabled(&f)); /* GA, on by default */
    CHECK_OK(dra_alloc_features_set(&f, "DRADeviceTaintRules=false", NULL));
    CHECK(!dra_taint_rules_enabled(&f));
    dra_alloc_features_init(&f, DRA_RELEASE_1_38_PRE);
    CHECK(dra_taint_rules_enabled(&f));
    dra_diag_t d;
    CHECK_EQ_I64(dra_alloc_features_set(&f, "DRADeviceTaintRules=false", &d), DRA_EINVAL);
    CHECK(strstr(d.msg, "locked to true") != NULL); /* #140256 */
}

/* #141648 (1.38-pre): a rule without deviceSelector selects nothing; `{}` still selects all. */
static void test_nil_selector_by_release(void)
{
    expect_matches_rel(DRA_RELEASE_1_37, "null", true, true, true);
    expect_matches_rel(DRA_RELEASE_1_38_PRE, "null", false, false, false);
    expect_matches_rel(DRA_RELEASE_1_38_PRE, "{}", true, true, true);
    expect_matches_rel(DRA_RELEASE_1_38_PRE, "{driver: driver-a}", true, true, false);
}

int main(void)
{
    RUN(test_read_fields);
    RUN(test_nil_selector_by_release);
    RUN(test_read_errors);
    RUN(test_selection);
    RUN(test_compile_error);
    RUN(test_apply);
    RUN(test_enabled);
    return check_summary();
}
