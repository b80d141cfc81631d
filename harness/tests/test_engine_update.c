/* test_engine_update.c - a republished slice (dra_model_slice_update, dra_table_update_slice,
 * dra_engine_update_slice, dra_fast_invalidate_slice) re-evaluated on its rows only:
 *  - after each of several updates in a row (a NoSchedule taint on, attribute changes that flip
 *    a selector and a matchAttribute group - one to a value the table already has, one to a
 *    value new to its dictionary -, the taint off, a shared slice's attribute), the updated
 *    engine's signatures, counts, index leaves, error nodes and direct-answer eligibility equal
 *    those of an engine built from scratch over the changed model (dra_engine_plans_digest), the
 *    table passes dra_table_check, and every plan places as the fresh engine and the
 *    brute-force reference placement do, under every policy (allocationMode All plans, which
 *    are recompiled in place, and a request beside an All request included);
 *  - the update re-derives rows-of-the-slice x signatures (row, signature) pairs, not the table;
 *  - the fast allocator, whose selector cache was seeded before the update, answers every claim
 *    on every node as the reference allocator does afterwards;
 *  - what is not incremental is refused with a reason: another device count, a renamed device,
 *    an attribute new to the table, changed counter consumption. */
#include <stdlib.h>
#include <string.h>

#include "alloc/alloc.h"
#include "alloc/fast.h"
#include "check.h"
#include "engine/engine.h"
#include "manifest.h"
#include "model_yaml.h"
#include "table/table.h"

#define NODE(n) "apiVersion: v1\nkind: Node\nmetadata: {name: " n "}\n---\n"
#define CLASS(name, drv)                                                                           \
    "apiVersion: resource.k8s.io/v1\nkind: DeviceClass\nmetadata: {name: " name "}\n"             \
    "spec: {selectors: [{cel: {expression: 'device.driver == \"" drv "\"'}}]}\n---\n"
#define CLAIM(name, body)                                                                          \
    "apiVersion: resource.k8s.io/v1\nkind: ResourceClaim\nmetadata: {name: " name "}\n"           \
    "spec: {devices: " body "}\n---\n"
#define SLICE(name, node, devices)                                                                 \
    "apiVersion: resource.k8s.io/v1\nkind: ResourceSlice\nmetadata: {name: " name "}\n"           \
    "spec:\n  driver: drv\n  pool: {name: " name ", generation: 1, resourceSliceCount: 1}\n"       \
    "  nodeName: " node "\n  devices: " devices "\n---\n"
#define DEV(n, model) "{name: " n ", attributes: {model: {string: " model "}, idx: {int: 1}}}"

static const char k_model[] =
    NODE("n1") NODE("n2") NODE("n3") CLASS("a", "drv")
    SLICE("s1", "n1", "[" DEV("d0", "x") ", " DEV("d1", "x") ", " DEV("d2", "y") ", " DEV("d3", "y") "]")
    SLICE("s2", "n2", "[" DEV("d0", "x") ", " DEV("d1", "y") ", " DEV("d2", "z") "]")
    SLICE("s3", "n3", "[" DEV("d0", "x") ", " DEV("d1", "x") ", " DEV("d2", "x") "]")
    "apiVersion: resource.k8s.io/v1\nkind: ResourceSlice\nmetadata: {name: net}\n"
    "spec:\n  driver: drv\n  pool: {name: net, generation: 1, resourceSliceCount: 1}\n"
    "  allNodes: true\n  devices: [{name: e0, attributes: {model: {string: q}, idx: {int: 1}}}]\n---\n"
    CLAIM("one", "{requests: [{name: r, exactly: {deviceClassName: a, count: 1}}]}")
    CLAIM("two", "{requests: [{name: r, exactly: {deviceClassName: a, count: 2}}]}")
    CLAIM("x3", "{requests: [{name: r, exactly: {deviceClassName: a, count: 3, selectors:"
                " [{cel: {expression: 'device.attributes[\"drv\"].model == \"x\"'}}]}}]}")
    CLAIM("x1", "{requests: [{name: r, exactly: {deviceClassName: a, count: 1, selectors:"
                " [{cel: {expression: 'device.attributes[\"drv\"].model == \"x\"'}}]}}]}")
    CLAIM("same2", "{requests: [{name: r, exactly: {deviceClassName: a, count: 2}}],"
                   " constraints: [{matchAttribute: drv/model}]}")
    CLAIM("tol", "{requests: [{name: r, exactly: {deviceClassName: a, count: 2, tolerations:"
                 " [{key: health, operator: Exists, effect: NoSchedule}]}}]}")
    CLAIM("q", "{requests: [{name: r, exactly: {deviceClassName: a, count: 1, selectors:"
               " [{cel: {expression: 'device.attributes[\"drv\"].model == \"q\"'}}]}}]}")
    CLAIM("ally", "{requests: [{name: r, exactly: {deviceClassName: a, allocationMode: All,"
                  " selectors: [{cel: {expression: 'device.attributes[\"drv\"].model == \"y\"'}}]}}]}")
    CLAIM("allz", "{requests: [{name: r, exactly: {deviceClassName: a, allocationMode: All,"
                  " selectors: [{cel: {expression: 'device.attributes[\"drv\"].model == \"z\"'}}]}},"
                  " {name: o, exactly: {deviceClassName: a, count: 1}}]}");

static const char *const k_claims[] = {"one", "two", "x3", "x1", "same2", "tol", "q", "ally", "allz"};
#define NCLAIMS (sizeof k_claims / sizeof k_claims[0])

typedef struct fx {
    dra_model_t m;
    dra_alloc_features_t f;
    dra_alloc_state_t *st;
    dra_cel_cache_t *cel;
    dra_anyalloc_t fast, ref;
    dra_arena_t tarena, out;
    dra_table_t *t;
    dra_engine_t *e;
    uint32_t plan[NCLAIMS];
    bool ok;
} fx_t;

/* An engine (with its own fast allocator) over x's model, table and state. */
static int engine_over(fx_t *x, dra_anyalloc_t *fast, dra_engine_t **e, uint32_t *plans)
{
    dra_alloc_options_t o = {0, 7};
    int rc = dra_anyalloc_new(DRA_ALLOC_FAST, &x->m, &x->f, x->st, x->cel, &o, fast);
    dra_engine_opts_t eo = {.verify_direct = true};
    dra_diag_t d;
    dra_diag_clear(&d);
    if (rc == DRA_OK)
        rc = dra_engine_new(&x->m, x->t, &x->f, x->st, x->cel, fast, &eo, e, &d);
    for (uint32_t i = 0; rc == DRA_OK && i < NCLAIMS; i++) {
        dra_claim_t *c = dra_model_find_claim(&x->m, NULL, k_claims[i]);
        rc = c ? dra_engine_plan(*e, &c, 1, &plans[i]) : DRA_ENOTFOUND;
    }
    return rc;
}

static void fx_init(fx_t *x)
{
    memset(x, 0, sizeof *x);
    dra_model_init(&x->m);
    dra_arena_init(&x->out, 0);
    dra_arena_init(&x->tarena, 0);
    int rc = model_yaml_read(&x->m, k_model);
    CHECK_OK(rc);
    if (rc)
        return;
    dra_alloc_features_init(&x->f, DRA_RELEASE_1_36);
    CHECK_OK(dra_alloc_features_set(&x->f, "DRADeviceTaints=true", NULL));
    dra_diag_t d;
    dra_diag_clear(&d);
    dra_alloc_options_t o = {0, 7};
    CHECK_OK(dra_table_build(&x->m, &x->tarena, &x->t, &d));
    CHECK_OK(dra_alloc_state_new(&x->m, &x->f, &x->st));
    CHECK_OK(dra_cel_cache_new(&x->cel));
    CHECK_OK(dra_anyalloc_new(DRA_ALLOC_REFERENCE, &x->m, &x->f, x->st, x->cel, &o, &x->ref));
    rc = engine_over(x, &x->fast, &x->e, x->plan);
    CHECK_OK(rc);
    x->ok = rc == DRA_OK;
}

static void fx_fini(fx_t *x)
{
    dra_engine_free(x->e);
    dra_anyalloc_free(&x->fast);
    dra_anyalloc_free(&x->ref);
    if (x->cel)
        dra_cel_cache_free(x->cel);
    if (x->st)
        dra_alloc_state_free(x->st);
    dra_arena_fini(&x->out);
    dra_arena_fini(&x->tarena);
    dra_model_fini(&x->m);
}

static uint32_t slice_of(const fx_t *x, const char *name)
{
    for (uint32_t i = 0; i < x->m.nslices; i++)
        if (!strcmp(x->m.slices[i]->name, name))
            return i;
    CHECK_MSG(false, "no slice %s", name);
    return 0;
}

/* Republish slice si with devs through model, table and engine. */
static int republish(fx_t *x, uint32_t si, const dra_device_t *devs, uint32_t n, dra_diag_t *d)
{
    int rc = dra_model_slice_update(&x->m, si, devs, n, d);
    if (rc == DRA_OK)
        rc = dra_table_update_slice(x->t, &x->tarena, si, d);
    if (rc == DRA_OK)
        rc = dra_engine_update_slice(x->e, si, d);
    return rc;
}

static const char *devs_of(const dra_engine_result_t *r, char *buf, size_t len)
{
    buf[0] = 0;
    size_t at = 0;
    for (uint32_t i = 0; r->kind == DRA_OUTCOME_ALLOCATED && i < r->n; i++)
        for (uint32_t j = 0; j < r->allocations[i]->nresults; j++)
            at += (size_t)snprintf(buf + at, at < len ? len - at : 0, "%s%s/%s", at ? "," : "",
                                   r->allocations[i]->results[j].pool,
                                   r->allocations[i]->results[j].device);
    return buf;
}

/* The updated engine against one built from scratch now, the reference placement and, node by
 * node, the fast allocator against the reference allocator. */
static void compare_fresh(fx_t *x, const char *step)
{
    dra_diag_t d;
    dra_diag_clear(&d);
    CHECK_MSG(dra_table_check(x->t, &d) == DRA_OK, "%s: table: %s", step, d.msg);
    char why[256] = "";
    CHECK_MSG(dra_engine_check(x->e, why, sizeof why), "%s: %s", step, why);
    /* a fresh table too: same logical content */
    dra_arena_t ta2;
    dra_arena_init(&ta2, 0);
    dra_table_t *t2 = NULL;
    CHECK_OK(dra_table_build(&x->m, &ta2, &t2, &d));
    if (t2)
        CHECK_EQ_U64(dra_table_digest(t2), dra_table_digest(x->t));
    dra_anyalloc_t fast2;
    memset(&fast2, 0, sizeof fast2);
    dra_engine_t *e2 = NULL;
    uint32_t p2[NCLAIMS];
    CHECK_OK(engine_over(x, &fast2, &e2, p2));
    if (e2) {
        CHECK_MSG(dra_engine_plans_digest(x->e) == dra_engine_plans_digest(e2),
                  "%s: the updated engine differs from a fresh one", step);
        static const dra_engine_policy_t pols[] = {DRA_ENGINE_FIRST_FIT, DRA_ENGINE_BEST_FIT,
                                                   DRA_ENGINE_SPREAD, DRA_ENGINE_RANDOM};
        dra_arena_t o2, o3;
        dra_arena_init(&o2, 0);
        dra_arena_init(&o3, 0);
        for (uint32_t i = 0; i < NCLAIMS; i++)
            for (size_t k = 0; k < sizeof pols / sizeof pols[0]; k++) {
                dra_engine_result_t a, b, c;
                dra_arena_reset(&x->out);
                dra_arena_reset(&o2);
                dra_arena_reset(&o3);
                CHECK_OK(dra_engine_place(x->e, x->plan[i], pols[k], 1, &x->out, &a));
                CHECK_OK(dra_engine_place(e2, p2[i], pols[k], 1, &o2, &b));
                CHECK_OK(dra_engine_place_reference(x->e, &x->ref, x->plan[i], pols[k], 1, &o3, &c));
                char da[256], db[256], dc[256];
                devs_of(&a, da, sizeof da);
                devs_of(&b, db, sizeof db);
                devs_of(&c, dc, sizeof dc);
                /* best-fit and spread read the scores of the pods committed through the
                 * engine, which the fresh one has none of: compared with the reference only */
                bool scored = pols[k] == DRA_ENGINE_BEST_FIT || pols[k] == DRA_ENGINE_SPREAD;
                CHECK_MSG(a.kind == c.kind && a.node == c.node && !strcmp(da, dc) &&
                              (scored || (a.kind == b.kind && a.node == b.node && !strcmp(da, db))),
                          "%s: claim %s policy %zu: updated %s on %u (%s), fresh %s on %u (%s), "
                          "reference %s on %u (%s)",
                          step, k_claims[i], k, dra_outcome_name(a.kind), a.node, da,
                          dra_outcome_name(b.kind), b.node, db, dra_outcome_name(c.kind), c.node,
                          dc);
            }
        dra_arena_fini(&o2);
        dra_arena_fini(&o3);
    }
    /* the fast allocator (its selector cache seeded before the update) on every node */
    for (uint32_t i = 0; i < NCLAIMS; i++) {
        dra_claim_t *c = dra_model_find_claim(&x->m, NULL, k_claims[i]);
        for (uint32_t n = 0; c && n < x->m.nnodes; n++) {
            dra_alloc_outcome_t fo, ro;
            dra_arena_t a1, a2;
            dra_arena_init(&a1, 0);
            dra_arena_init(&a2, 0);
            CHECK_OK(dra_anyalloc_allocate(&x->fast, x->m.nodes[n], &c, 1, &a1, &fo));
            CHECK_OK(dra_anyalloc_allocate(&x->ref, x->m.nodes[n], &c, 1, &a2, &ro));
            char w[256] = "";
            CHECK_MSG(!dra_alloc_outcome_differs(&fo, &ro, w, sizeof w),
                      "%s: claim %s on %s: fast vs reference: %s", step, k_claims[i],
                      x->m.nodes[n]->name, w);
            dra_arena_fini(&a1);
            dra_arena_fini(&a2);
        }
    }
    dra_engine_free(e2);
    dra_anyalloc_free(&fast2);
    dra_arena_fini(&ta2);
}

/* Place claim i first-fit with the engine and commit it. */
static void place_commit(fx_t *x, uint32_t i, dra_arena_t *keep)
{
    dra_engine_result_t r;
    CHECK_OK(dra_engine_place(x->e, x->plan[i], DRA_ENGINE_FIRST_FIT, 0, keep, &r));
    if (r.kind == DRA_OUTCOME_ALLOCATED)
        CHECK_OK(dra_engine_commit(x->e, r.node, r.allocations, r.n));
}

static void test_updates_in_a_row(void)
{
    fx_t x;
    fx_init(&x);
    if (!x.ok) {
        fx_fini(&x);
        return;
    }
    dra_arena_t keep;
    dra_arena_init(&keep, 0);
    /* the All plans are indexed (recompiled in place by the updates), the one beside an All
     * request with an "excl" signature */
    CHECK(dra_engine_plan_indexed(x.e, x.plan[7]) && dra_engine_plan_indexed(x.e, x.plan[8]));
    place_commit(&x, 0, &keep); /* one device of n1 in use across the updates */
    compare_fresh(&x, "before");
    uint32_t s1 = slice_of(&x, "s1"), net = slice_of(&x, "net");
    const dra_slice_t *sl = x.m.slices[s1];
    uint32_t nd = sl->ndevices;
    dra_device_t devs[4];
    dra_attr_t attrs[4][2];
    dra_taint_t taint = {.key = "health", .value = "unhealthy", .effect = DRA_EFFECT_NO_SCHEDULE,
                         .effect_raw = "NoSchedule"};
    dra_diag_t d;
    dra_engine_info_t info;
    uint64_t rows0 = 0;
    dra_engine_get_info(x.e, &info);
    rows0 = info.update_rows;
    /* 1. a NoSchedule taint on d1 (a device health event) */
    memcpy(devs, sl->devices, nd * sizeof *devs);
    devs[1].taints = &taint;
    devs[1].ntaints = 1;
    dra_diag_clear(&d);
    CHECK_MSG(republish(&x, s1, devs, nd, &d) == DRA_OK, "%s", d.msg);
    CHECK(x.m.slices[s1]->changed == DRA_SLICE_CHANGED_TAINTS);
    CHECK(x.t->flags[x.t->slice_first[s1] + 1] & DRA_ROW_TAINTED);
    dra_engine_get_info(x.e, &info);
    CHECK_EQ_U64(info.nupdates, 1);
    /* only the slice's rows: its devices times the signatures, far below the table's rows */
    CHECK_EQ_U64(info.update_rows - rows0, (uint64_t)nd * info.nsigs);
    CHECK(info.update_rows - rows0 < (uint64_t)x.t->nrows * info.nsigs);
    compare_fresh(&x, "taint on");
    /* 2. d2 becomes "x" (a value the table has: flips the x selectors and the model groups) and
     * d3 "w" (new to the column's dictionary and to the table's strings) */
    memcpy(devs, x.m.slices[s1]->devices, nd * sizeof *devs);
    for (int k = 2; k < 4; k++) {
        memcpy(attrs[k], devs[k].attrs, 2 * sizeof(dra_attr_t));
        for (int a = 0; a < 2; a++)
            if (!strcmp(attrs[k][a].name, "model"))
                attrs[k][a].v.s = k == 2 ? "x" : "w";
        devs[k].attrs = attrs[k];
    }
    uint32_t nstrs = x.t->nstrs;
    rows0 = info.update_rows;
    dra_diag_clear(&d);
    CHECK_MSG(republish(&x, s1, devs, nd, &d) == DRA_OK, "%s", d.msg);
    CHECK(x.m.slices[s1]->changed == DRA_SLICE_CHANGED_ATTRS);
    CHECK_EQ_U64(x.t->nstrs, nstrs + 1);
    dra_engine_get_info(x.e, &info);
    CHECK_EQ_U64(info.update_rows - rows0, (uint64_t)nd * info.nsigs);
    compare_fresh(&x, "attributes");
    place_commit(&x, 2, &keep); /* x3 now fits on n1: d0 is in use, so n3 */
    compare_fresh(&x, "after a commit");
    /* 3. the taint off again */
    memcpy(devs, x.m.slices[s1]->devices, nd * sizeof *devs);
    devs[1].taints = NULL;
    devs[1].ntaints = 0;
    dra_diag_clear(&d);
    CHECK_MSG(republish(&x, s1, devs, nd, &d) == DRA_OK, "%s", d.msg);
    compare_fresh(&x, "taint off");
    /* 4. the shared (allNodes) slice: its device's model becomes x */
    const dra_slice_t *ns = x.m.slices[net];
    dra_device_t nd1 = ns->devices[0];
    dra_attr_t na[2];
    memcpy(na, nd1.attrs, 2 * sizeof *na);
    for (int a = 0; a < 2; a++)
        if (!strcmp(na[a].name, "model"))
            na[a].v.s = "x";
    nd1.attrs = na;
    dra_diag_clear(&d);
    CHECK_MSG(republish(&x, net, &nd1, 1, &d) == DRA_OK, "%s", d.msg);
    compare_fresh(&x, "shared slice");
    dra_engine_get_info(x.e, &info);
    CHECK_EQ_U64(info.nupdates, 4);
    CHECK(dra_engine_plan_indexed(x.e, x.plan[7]) && dra_engine_plan_indexed(x.e, x.plan[8]));
    dra_arena_fini(&keep);
    fx_fini(&x);
}

static void test_not_incremental(void)
{
    fx_t x;
    fx_init(&x);
    if (!x.ok) {
        fx_fini(&x);
        return;
    }
    uint32_t s1 = slice_of(&x, "s1");
    const dra_slice_t *sl = x.m.slices[s1];
    uint64_t before = dra_model_digest(&x.m);
    dra_device_t devs[4];
    memcpy(devs, sl->devices, sizeof devs);
    dra_diag_t d;
    /* another device count */
    dra_diag_clear(&d);
    CHECK_EQ_I64(dra_model_slice_update(&x.m, s1, devs, 3, &d), DRA_EINVAL);
    CHECK_MSG(strstr(d.msg, "keep its device count (not incremental") != NULL, "%s", d.msg);
    /* a renamed device */
    devs[2].name = "other";
    dra_diag_clear(&d);
    CHECK_EQ_I64(dra_model_slice_update(&x.m, s1, devs, 4, &d), DRA_EINVAL);
    CHECK_MSG(strstr(d.msg, "devices[2].name: \"other\" replaces \"d2\"") != NULL, "%s", d.msg);
    CHECK_MSG(d.file && !strcmp(d.file, "t.yaml") && d.line > 0, "%s:%u", d.file ? d.file : "-",
              d.line);
    devs[2].name = NULL; /* the same name */
    /* an empty taint key */
    dra_taint_t bad = {.key = "", .effect = DRA_EFFECT_NO_SCHEDULE};
    devs[0].taints = &bad;
    devs[0].ntaints = 1;
    dra_diag_clear(&d);
    CHECK_EQ_I64(dra_model_slice_update(&x.m, s1, devs, 4, &d), DRA_EINVAL);
    CHECK_MSG(strstr(d.msg, "devices[0].taints[0].key: empty") != NULL, "%s", d.msg);
    CHECK_EQ_U64(dra_model_digest(&x.m), before); /* nothing changed */
    devs[0].taints = NULL;
    devs[0].ntaints = 0;
    /* an attribute no device had: the table refuses, unchanged */
    dra_attr_t more[3];
    memcpy(more, devs[0].attrs, 2 * sizeof *more);
    more[2] = (dra_attr_t){.name = "brandnew", .kind = DRA_ATTR_INT, .count = 1, .v.i = 3};
    devs[0].attrs = more;
    devs[0].nattrs = 3;
    uint64_t tdig = dra_table_digest(x.t);
    dra_diag_clear(&d);
    CHECK_OK(dra_model_slice_update(&x.m, s1, devs, 4, &d));
    CHECK_EQ_I64(dra_table_update_slice(x.t, &x.tarena, s1, &d), DRA_EUNSUPPORTED);
    CHECK_MSG(strstr(d.msg, "attribute brandnew is new to the device table") != NULL, "%s", d.msg);
    (void)tdig;
    /* counter consumption: the engine refuses */
    devs[0].attrs = x.m.slices[s1]->devices[0].attrs;
    devs[0].nattrs = 2;
    dra_counter_t ctr = {.name = "mem"};
    dra_consumes_t cons = {.counter_set = "set", .counters = &ctr, .ncounters = 1};
    devs[1].consumes = &cons;
    devs[1].nconsumes = 1;
    dra_diag_clear(&d);
    CHECK_OK(dra_model_slice_update(&x.m, s1, devs, 4, &d));
    CHECK_OK(dra_table_update_slice(x.t, &x.tarena, s1, &d));
    CHECK_EQ_I64(dra_engine_update_slice(x.e, s1, &d), DRA_EUNSUPPORTED);
    CHECK_MSG(strstr(d.msg, "counter consumption or allowMultipleAllocations changed") != NULL,
              "%s", d.msg);
    fx_fini(&x);
}

/* Consumable capacity across an update: two multi-allocatable devices of n1 with 10Gi of memory,
 * "x" and "y"; a 6Gi share of g0 (any model) leaves it short for the "x" claim's 6Gi; then the
 * models swap, so the "x" capacity signature matches g1 (which fits) and not g0. The engine's
 * per-row capacity fit words must follow the signatures' fit bits through the update
 * (dra_engine_check compares them), and the release afterwards re-checks from them. */
#define CAPDEV(n, model)                                                                           \
    "{name: " n ", allowMultipleAllocations: true, attributes: {model: {string: " model "},"      \
    " idx: {int: 1}}, capacity: {memory: {value: 10Gi}}}"
static const char k_cap_model[] =
    NODE("n1") CLASS("a", "drv")
    SLICE("s1", "n1", "[" CAPDEV("g0", "x") ", " CAPDEV("g1", "y") "]")
    CLAIM("any6", "{requests: [{name: r, exactly: {deviceClassName: a, count: 1,"
                  " capacity: {requests: {memory: 6Gi}}}}]}")
    CLAIM("x6", "{requests: [{name: r, exactly: {deviceClassName: a, count: 1, selectors:"
                " [{cel: {expression: 'device.attributes[\"drv\"].model == \"x\"'}}],"
                " capacity: {requests: {memory: 6Gi}}}}]}");

static void test_capacity_update(void)
{
    dra_model_t m;
    dra_model_init(&m);
    dra_arena_t ta, keep;
    dra_arena_init(&ta, 0);
    dra_arena_init(&keep, 0);
    dra_alloc_features_t f;
    dra_alloc_state_t *st = NULL;
    dra_cel_cache_t *cel = NULL;
    dra_anyalloc_t fast = {0};
    dra_table_t *t = NULL;
    dra_engine_t *e = NULL;
    dra_diag_t d;
    dra_diag_clear(&d);
    char why[256];
    uint32_t any6 = 0, x6 = 0;
    dra_alloc_options_t o = {0, 7};
    dra_engine_opts_t eo = {.verify_direct = true};
    int rc = model_yaml_read(&m, k_cap_model);
    dra_alloc_features_init(&f, DRA_RELEASE_1_36);
    if (rc == DRA_OK)
        rc = dra_alloc_features_set(&f, "DRAConsumableCapacity=true", NULL);
    if (rc == DRA_OK)
        rc = dra_table_build(&m, &ta, &t, &d);
    if (rc == DRA_OK)
        rc = dra_alloc_state_new(&m, &f, &st);
    if (rc == DRA_OK)
        rc = dra_cel_cache_new(&cel);
    if (rc == DRA_OK)
        rc = dra_anyalloc_new(DRA_ALLOC_FAST, &m, &f, st, cel, &o, &fast);
    if (rc == DRA_OK)
        rc = dra_engine_new(&m, t, &f, st, cel, &fast, &eo, &e, &d);
    dra_claim_t *c1 = dra_model_find_claim(&m, NULL, "any6");
    dra_claim_t *c2 = dra_model_find_claim(&m, NULL, "x6");
    if (rc == DRA_OK)
        rc = c1 && c2 ? dra_engine_plan(e, &c1, 1, &any6) : DRA_ENOTFOUND;
    if (rc == DRA_OK)
        rc = dra_engine_plan(e, &c2, 1, &x6);
    CHECK_MSG(rc == DRA_OK, "set-up: %s %s", dra_strerror(rc), d.msg);
    if (rc == DRA_OK) {
        CHECK(dra_engine_plan_indexed(e, x6));
        dra_engine_result_t r;
        CHECK_OK(dra_engine_place(e, any6, DRA_ENGINE_FIRST_FIT, 0, &keep, &r));
        CHECK_EQ_U64(r.kind, DRA_OUTCOME_ALLOCATED);
        bool held = r.kind == DRA_OUTCOME_ALLOCATED;
        if (held)
            CHECK_OK(dra_engine_commit(e, r.node, r.allocations, r.n));
        CHECK_MSG(dra_engine_check(e, why, sizeof why), "after the share: %s", why);
        CHECK(!dra_engine_admits(e, x6, 0)); /* g0 keeps 4Gi */
        uint32_t s1 = 0;
        const dra_slice_t *sl = m.slices[s1];
        dra_device_t devs[2];
        dra_attr_t attrs[2][2];
        memcpy(devs, sl->devices, 2 * sizeof *devs);
        for (uint32_t i = 0; i < 2; i++) { /* the models swap */
            memcpy(attrs[i], devs[i].attrs, devs[i].nattrs * sizeof **attrs);
            devs[i].attrs = attrs[i];
        }
        for (uint32_t k = 0; k < devs[0].nattrs; k++)
            if (!strcmp(attrs[0][k].name, "model")) {
                const char *v = attrs[0][k].v.s;
                attrs[0][k].v.s = attrs[1][k].v.s;
                attrs[1][k].v.s = v;
            }
        dra_diag_clear(&d);
        rc = dra_model_slice_update(&m, s1, devs, 2, &d);
        if (rc == DRA_OK)
            rc = dra_table_update_slice(t, &ta, s1, &d);
        if (rc == DRA_OK)
            rc = dra_engine_update_slice(e, s1, &d);
        CHECK_MSG(rc == DRA_OK, "update: %s", d.msg);
        CHECK_MSG(dra_engine_check(e, why, sizeof why), "after the update: %s", why);
        CHECK(dra_engine_admits(e, x6, 0)); /* g1, now "x", has all of its 10Gi */
        if (held) {
            CHECK_OK(dra_engine_release(e, r.node, r.allocations, r.n));
            CHECK_MSG(dra_engine_check(e, why, sizeof why), "after the release: %s", why);
        }
    }
    dra_engine_free(e);
    dra_anyalloc_free(&fast);
    if (cel)
        dra_cel_cache_free(cel);
    if (st)
        dra_alloc_state_free(st);
    dra_arena_fini(&keep);
    dra_arena_fini(&ta);
    dra_model_fini(&m);
}

int main(void)
{
    RUN(test_updates_in_a_row);
    RUN(test_not_incremental);
    RUN(test_capacity_update);
    return check_summary();
}
