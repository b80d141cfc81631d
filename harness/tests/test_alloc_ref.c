/* test_alloc_ref.c - the reference allocator on small models read from YAML: allocation state
 * commit/release digests, each candidate check through a minimal instance (counters, taints,
 * consumable capacity, matchAttribute / distinctAttribute with and without the upstream-bug
 * switch), the invariant checker on hand-made faulty allocations (one per violation kind), and
 * brute-force verdicts on tiny instances. */
#include <stdlib.h>
#include <string.h>

#include "alloc/alloc.h"
#include "alloc/fast.h"
#include "alloc/invariants.h"
#include "check.h"
#include "manifest.h"
#include "model_yaml.h"

/* ---- fixture ----------------------------------------------------------------------------- */

typedef struct fx {
    dra_model_t m;
    dra_alloc_features_t f;
    dra_alloc_state_t *st;
    dra_cel_cache_t *cel;
    dra_allocator_t *al;
    dra_arena_t out;
    const dra_node_t *node;
    bool ok;
} fx_t;

/* gates: "Gate=bool" strings, NULL-terminated (may be NULL) */
static void fx_init_rel(fx_t *x, const char *yaml, const char *const *gates, bool bugs,
                        dra_release_t rel)
{
    memset(x, 0, sizeof *x);
    dra_model_init(&x->m);
    dra_arena_init(&x->out, 0);
    int rc = model_yaml_read(&x->m, yaml);
    CHECK_OK(rc);
    dra_alloc_features_init(&x->f, rel);
    for (size_t i = 0; gates && gates[i]; i++)
        CHECK_OK(dra_alloc_features_set(&x->f, gates[i], NULL));
    x->f.upstream_bugs = bugs;
    CHECK_OK(dra_alloc_state_new(&x->m, &x->f, &x->st));
    CHECK_OK(dra_cel_cache_new(&x->cel));
    dra_alloc_options_t o = {.max_steps = 0, .share_seed = 7};
    CHECK_OK(dra_alloc_new(&x->m, &x->f, x->st, x->cel, &o, &x->al));
    x->node = dra_model_find_node(&x->m, "node-1");
    CHECK(x->node != NULL);
    x->ok = rc == DRA_OK && x->st && x->cel && x->al && x->node;
}

static void fx_init(fx_t *x, const char *yaml, const char *const *gates, bool bugs)
{
    fx_init_rel(x, yaml, gates, bugs, DRA_RELEASE_1_36);
}

static void fx_fini(fx_t *x)
{
    dra_alloc_free(x->al);
    dra_cel_cache_free(x->cel);
    dra_alloc_state_free(x->st);
    dra_arena_fini(&x->out);
    dra_model_fini(&x->m);
}

static dra_claim_t *claim(fx_t *x, const char *name)
{
    dra_claim_t *c = dra_model_find_claim(&x->m, NULL, name);
    CHECK_MSG(c != NULL, "claim %s", name);
    return c;
}

/* Allocate the named claims (NULL-terminated) together on node-1. */
static dra_outcome_t alloc_claims(fx_t *x, const char *const *names, dra_alloc_outcome_t *out)
{
    dra_claim_t *cs[8];
    uint32_t n = 0;
    for (; names[n] && n < 8; n++)
        if (!(cs[n] = claim(x, names[n])))
            return DRA_OUTCOME_FATAL;
    memset(out, 0, sizeof *out);
    int rc = dra_alloc_allocate(x->al, x->node, cs, n, &x->out, out);
    CHECK_OK(rc);
    if (out->kind == DRA_OUTCOME_ALLOCATED) {
        /* every allocation of this file must satisfy the oracle unless a test says otherwise */
        dra_inv_report_t rep;
        CHECK_OK(dra_inv_check(&x->m, &x->f, x->st, x->cel, x->node, cs, out->allocations, n, &rep));
    }
    return out->kind;
}

static dra_outcome_t alloc1(fx_t *x, const char *name, dra_alloc_outcome_t *out)
{
    const char *names[2] = {name, NULL};
    return alloc_claims(x, names, out);
}

static const char *dev_of(const dra_alloc_outcome_t *o, uint32_t claim_i, uint32_t res_i)
{
    if (o->kind != DRA_OUTCOME_ALLOCATED || claim_i >= o->n ||
        res_i >= o->allocations[claim_i]->nresults)
        return "(none)";
    return o->allocations[claim_i]->results[res_i].device;
}

static uint32_t violations(fx_t *x, const char *const *names, dra_allocation_t *const *allocs,
                           const char *needle)
{
    dra_claim_t *cs[8];
    uint32_t n = 0;
    for (; names[n] && n < 8; n++)
        cs[n] = claim(x, names[n]);
    dra_inv_report_t rep;
    memset(&rep, 0, sizeof rep);
    CHECK_OK(dra_inv_check(&x->m, &x->f, x->st, x->cel, x->node, cs, allocs, n, &rep));
    bool found = !needle;
    for (uint32_t i = 0; i < rep.nkept && !found; i++)
        found = strstr(rep.first[i], needle) != NULL;
    CHECK_MSG(found, "no violation mentions \"%s\" (%u violations%s%s)", needle ? needle : "",
              rep.nviolations, rep.nkept ? ", first: " : "", rep.nkept ? rep.first[0] : "");
    return rep.nviolations;
}

static const char *qfmt(const dra_quantity_t *q, char *b, size_t n)
{
    dra_quantity_format(q, b, n);
    return b;
}

static int qcmp(const dra_quantity_t *q, const char *s)
{
    dra_quantity_t v;
    CHECK_OK(dra_quantity_parse(s, strlen(s), &v, NULL));
    return dra_quantity_cmp(q, &v);
}

#define NODE "apiVersion: v1\nkind: Node\nmetadata: {name: node-1, labels: {zone: a}}\n---\n"
#define CLASS(name, drv)                                                                           \
    "apiVersion: resource.k8s.io/v1\nkind: DeviceClass\nmetadata: {name: " name "}\n"             \
    "spec: {selectors: [{cel: {expression: 'device.driver == \"" drv "\"'}}]}\n---\n"
#define CLAIM(name, body)                                                                          \
    "apiVersion: resource.k8s.io/v1\nkind: ResourceClaim\nmetadata: {name: " name "}\n"           \
    "spec: {devices: " body "}\n---\n"
/* Pool p on node-1 in two slices: "counters" holds the counter set `set` with mem = total,
 * "devices" lists the devices given after the macro (block items "  - {...}\n", then "---\n"). */
#define COUNTER_POOL(total)                                                                        \
    "apiVersion: resource.k8s.io/v1\nkind: ResourceSlice\nmetadata: {name: counters}\n"           \
    "spec:\n  driver: driver-a\n  pool: {name: p, generation: 1, resourceSliceCount: 2}\n"        \
    "  nodeName: node-1\n  sharedCounters: [{name: set, counters: {mem: {value: " total "}}}]\n"   \
    "---\n"                                                                                        \
    "apiVersion: resource.k8s.io/v1\nkind: ResourceSlice\nmetadata: {name: devices}\n"            \
    "spec:\n  driver: driver-a\n  pool: {name: p, generation: 1, resourceSliceCount: 2}\n"        \
    "  nodeName: node-1\n  devices:\n"

/* ---- state ------------------------------------------------------------------------------- */

static const char k_state[] =
    NODE CLASS("class-a", "driver-a")
    "apiVersion: resource.k8s.io/v1\nkind: ResourceSlice\nmetadata: {name: s}\n"
    "spec:\n  driver: driver-a\n  pool: {name: pool-1, generation: 1, resourceSliceCount: 1}\n"
    "  nodeName: node-1\n  devices:\n"
    "  - {name: d-1}\n  - {name: d-2}\n"
    "  - name: shared\n    allowMultipleAllocations: true\n"
    "    capacity: {mem: {value: 8Gi}}\n---\n"
    CLAIM("c1", "{requests: [{name: r, exactly: {deviceClassName: class-a, count: 2,"
                " selectors: [{cel: {expression: 'device.allowMultipleAllocations == false'}}]}}]}")
    CLAIM("c2", "{requests: [{name: r, exactly: {deviceClassName: class-a, count: 1,"
                " capacity: {requests: {mem: 3Gi}}}}]}")
    CLAIM("c3", "{requests: [{name: r, exactly: {deviceClassName: class-a, count: 1,"
                " capacity: {requests: {mem: 3Gi}}}}]}");

static const char *share_of(const dra_alloc_outcome_t *o, uint32_t claim_i)
{
    if (o->kind != DRA_OUTCOME_ALLOCATED || claim_i >= o->n || !o->allocations[claim_i]->nresults ||
        !o->allocations[claim_i]->results[0].share_id)
        return "(none)";
    return o->allocations[claim_i]->results[0].share_id;
}

/* ShareIDs are derived (claim, result index, device, seed), not drawn from a stream: the same
 * decision gets the same ID whatever was asked before and whichever allocator answers; attempts
 * start at the device's live share count and skip IDs live on the device (unique among live
 * shares, also for the same claim twice in one call); with no share live, the first again. */
static void test_share_ids_derived(void)
{
    static const char *const cc[] = {"DRAConsumableCapacity=true", NULL};
    fx_t x;
    fx_init(&x, k_state, cc, false);
    if (!x.ok) {
        fx_fini(&x);
        return;
    }
    char a[40], b[40];
    dra_alloc_outcome_t o, keep1, keep2;
    CHECK_EQ_I64(alloc1(&x, "c2", &o), DRA_OUTCOME_ALLOCATED);
    snprintf(a, sizeof a, "%s", share_of(&o, 0));
    CHECK(strlen(a) == 36 && a[14] == '4'); /* UUID v4 text */
    /* asked again (a stream would have moved on), after another call, by a fast allocator
     * with and without pruning: the same ID */
    CHECK_EQ_I64(alloc1(&x, "c2", &o), DRA_OUTCOME_ALLOCATED);
    CHECK_STREQ(share_of(&o, 0), a);
    CHECK_EQ_I64(alloc1(&x, "c1", &o), DRA_OUTCOME_ALLOCATED);
    CHECK_EQ_I64(alloc1(&x, "c2", &o), DRA_OUTCOME_ALLOCATED);
    CHECK_STREQ(share_of(&o, 0), a);
    dra_alloc_options_t fo = {.share_seed = 7};
    dra_fast_t *fa = NULL;
    CHECK_OK(dra_fast_new(&x.m, &x.f, x.st, x.cel, &fo, &fa));
    dra_claim_t *c2 = claim(&x, "c2"), *c3 = claim(&x, "c3");
    if (fa && c2 && c3) {
        dra_fast_set_pruning(fa, false);
        CHECK_OK(dra_fast_allocate(fa, x.node, &c3, 1, &x.out, &o));
        CHECK(strcmp(share_of(&o, 0), a) != 0); /* another claim, another ID */
        dra_fast_set_pruning(fa, true);
        CHECK_OK(dra_fast_allocate(fa, x.node, &c2, 1, &x.out, &o));
        CHECK_STREQ(share_of(&o, 0), a);
    }
    /* another seed, another ID */
    dra_alloc_options_t o8 = {.share_seed = 8};
    dra_allocator_t *al8 = NULL;
    CHECK_OK(dra_alloc_new(&x.m, &x.f, x.st, x.cel, &o8, &al8));
    if (al8 && c2) {
        CHECK_OK(dra_alloc_allocate(al8, x.node, &c2, 1, &x.out, &o));
        CHECK(o.kind == DRA_OUTCOME_ALLOCATED && strcmp(share_of(&o, 0), a) != 0);
    }
    dra_alloc_free(al8);
    /* the same claim with its share live: the next attempt, unique; and again */
    dra_arena_t k1, k2;
    dra_arena_init(&k1, 0);
    dra_arena_init(&k2, 0);
    if (c2) {
        CHECK_OK(dra_alloc_allocate(x.al, x.node, &c2, 1, &k1, &keep1));
        CHECK_OK(dra_alloc_state_commit(x.st, keep1.allocations[0]));
        CHECK_EQ_I64(alloc1(&x, "c2", &o), DRA_OUTCOME_ALLOCATED);
        snprintf(b, sizeof b, "%s", share_of(&o, 0));
        CHECK(strcmp(b, a) != 0);
        if (fa) { /* the fast allocator reads the same state: the same attempt */
            CHECK_OK(dra_fast_allocate(fa, x.node, &c2, 1, &x.out, &o));
            CHECK_STREQ(share_of(&o, 0), b);
        }
        CHECK_OK(dra_alloc_allocate(x.al, x.node, &c2, 1, &k2, &keep2));
        CHECK_STREQ(share_of(&keep2, 0), b);
        CHECK_OK(dra_alloc_state_commit(x.st, keep2.allocations[0]));
        CHECK_EQ_I64(dra_alloc_state_shares(x.st, "driver-a", "pool-1", "shared"), 2);
        CHECK(dra_alloc_state_has_share(x.st, "driver-a", "pool-1", "shared", a));
        CHECK(dra_alloc_state_has_share(x.st, "driver-a", "pool-1", "shared", b));
        /* the same by row (2: d-1, d-2, shared), by the strings when the row is another
         * device's or unknown */
        for (uint32_t row = 0; row < 4; row++) {
            uint32_t rw = row == 3 ? UINT32_MAX : row;
            CHECK(dra_alloc_state_row_has_share(x.st, rw, "driver-a", "pool-1", "shared", a));
            CHECK(!dra_alloc_state_row_has_share(x.st, rw, "driver-a", "pool-1", "shared", "x"));
            CHECK(!dra_alloc_state_row_has_share(x.st, rw, "driver-a", "pool-1", "d-1", a));
        }
        /* with the first share released one share is live: attempts start at 1, whose ID is
         * live, so a third one */
        CHECK_OK(dra_alloc_state_release(x.st, keep1.allocations[0]));
        CHECK_EQ_I64(alloc1(&x, "c2", &o), DRA_OUTCOME_ALLOCATED);
        CHECK(strcmp(share_of(&o, 0), a) != 0 && strcmp(share_of(&o, 0), b) != 0 &&
              strcmp(share_of(&o, 0), "(none)") != 0);
        /* none live: the first attempt again */
        CHECK_OK(dra_alloc_state_release(x.st, keep2.allocations[0]));
        CHECK_EQ_I64(alloc1(&x, "c2", &o), DRA_OUTCOME_ALLOCATED);
        CHECK_STREQ(share_of(&o, 0), a);
        /* the same claim twice in one call: two shares of the device, two IDs */
        const char *twice[] = {"c2", "c2", NULL};
        CHECK_EQ_I64(alloc_claims(&x, twice, &o), DRA_OUTCOME_ALLOCATED);
        CHECK_STREQ(share_of(&o, 0), a);
        CHECK(o.n == 2 && strcmp(share_of(&o, 1), b) == 0);
    }
    dra_fast_free(fa);
    dra_arena_fini(&k1);
    dra_arena_fini(&k2);
    fx_fini(&x);
}

static void test_state_roundtrip(void)
{
    fx_t x;
    fx_init(&x, k_state, NULL, false);
    if (!x.ok) {
        fx_fini(&x);
        return;
    }
    dra_alloc_outcome_t o1, o2, o3;
    CHECK_EQ_I64(alloc1(&x, "c1", &o1), DRA_OUTCOME_ALLOCATED);
    CHECK_EQ_I64(alloc1(&x, "c2", &o2), DRA_OUTCOME_ALLOCATED);
    if (o1.kind != DRA_OUTCOME_ALLOCATED || o2.kind != DRA_OUTCOME_ALLOCATED) {
        fx_fini(&x);
        return;
    }
    CHECK_STREQ(dev_of(&o2, 0, 0), "shared");
    CHECK(o2.allocations[0]->results[0].share_id != NULL);
    uint64_t d0 = dra_alloc_state_digest(x.st);
    CHECK_EQ_I64(dra_alloc_state_count(x.st), 0);
    CHECK_OK(dra_alloc_state_commit(x.st, o1.allocations[0]));
    uint64_t d1 = dra_alloc_state_digest(x.st);
    CHECK(d1 != d0);
    CHECK_EQ_I64(dra_alloc_state_exclusive(x.st, "driver-a", "pool-1", "d-1"), 1);
    CHECK_EQ_I64(dra_alloc_state_exclusive(x.st, "driver-a", "pool-1", "d-2"), 1);
    CHECK(dra_alloc_state_in_use(x.st, "driver-a", "pool-1", "d-1"));
    CHECK(!dra_alloc_state_in_use(x.st, "driver-a", "pool-1", "shared"));
    CHECK_OK(dra_alloc_state_commit(x.st, o2.allocations[0]));
    uint64_t d12 = dra_alloc_state_digest(x.st);
    CHECK(d12 != d1);
    CHECK_EQ_I64(dra_alloc_state_shares(x.st, "driver-a", "pool-1", "shared"), 1);
    CHECK(dra_alloc_state_has_share(x.st, "driver-a", "pool-1", "shared",
                                    o2.allocations[0]->results[0].share_id));
    CHECK(!dra_alloc_state_has_share(x.st, "driver-a", "pool-1", "shared", "nope"));
    dra_quantity_t agg;
    CHECK(dra_alloc_state_aggregated(x.st, "driver-a", "pool-1", "shared", "mem", &agg));
    CHECK_EQ_I64(qcmp(&agg, "3Gi"), 0);
    CHECK_EQ_I64(dra_alloc_state_count(x.st), 3);
    /* a second share on the same device: aggregated capacity adds up, c3 allocated against it */
    CHECK_EQ_I64(alloc1(&x, "c3", &o3), DRA_OUTCOME_ALLOCATED);
    CHECK_OK(dra_alloc_state_commit(x.st, o3.allocations[0]));
    CHECK(dra_alloc_state_aggregated(x.st, "driver-a", "pool-1", "shared", "mem", &agg));
    CHECK_EQ_I64(qcmp(&agg, "6Gi"), 0);
    /* release in another order than commit: back to the exact earlier digests */
    CHECK_OK(dra_alloc_state_release(x.st, o3.allocations[0]));
    CHECK_EQ_U64(dra_alloc_state_digest(x.st), d12);
    CHECK_OK(dra_alloc_state_release(x.st, o1.allocations[0]));
    uint64_t d2only = dra_alloc_state_digest(x.st);
    CHECK_OK(dra_alloc_state_release(x.st, o2.allocations[0]));
    CHECK_EQ_U64(dra_alloc_state_digest(x.st), d0);
    CHECK_EQ_I64(dra_alloc_state_count(x.st), 0);
    /* order independence: a fresh state holding only c2 has the digest of "c1+c2 minus c1" */
    dra_alloc_state_t *s2 = NULL;
    CHECK_OK(dra_alloc_state_new(&x.m, &x.f, &s2));
    CHECK_OK(dra_alloc_state_commit(s2, o2.allocations[0]));
    CHECK_EQ_U64(dra_alloc_state_digest(s2), d2only);
    dra_alloc_state_free(s2);
    /* releasing what was never committed: ENOTFOUND, state unchanged */
    CHECK_EQ_I64(dra_alloc_state_release(x.st, o1.allocations[0]), DRA_ENOTFOUND);
    CHECK_EQ_U64(dra_alloc_state_digest(x.st), d0);
    /* a double commit is visible (count 2) and one release undoes one commit */
    CHECK_OK(dra_alloc_state_commit(x.st, o1.allocations[0]));
    CHECK_OK(dra_alloc_state_commit(x.st, o1.allocations[0]));
    CHECK_EQ_I64(dra_alloc_state_exclusive(x.st, "driver-a", "pool-1", "d-1"), 2);
    CHECK(dra_alloc_state_digest(x.st) != d1);
    CHECK_OK(dra_alloc_state_release(x.st, o1.allocations[0]));
    CHECK_EQ_U64(dra_alloc_state_digest(x.st), d1);
    CHECK_OK(dra_alloc_state_release(x.st, o1.allocations[0]));
    /* adminAccess results are not recorded */
    dra_result_t r = o1.allocations[0]->results[0];
    r.admin_access = true;
    dra_allocation_t adm = {.results = &r, .nresults = 1};
    CHECK_OK(dra_alloc_state_commit(x.st, &adm));
    CHECK_EQ_I64(dra_alloc_state_count(x.st), 0);
    CHECK_EQ_U64(dra_alloc_state_digest(x.st), d0);
    /* the allocator sees committed state: c1 again needs two free exclusive devices */
    CHECK_OK(dra_alloc_state_commit(x.st, o1.allocations[0]));
    dra_alloc_outcome_t o4;
    CHECK_EQ_I64(alloc1(&x, "c1", &o4), DRA_OUTCOME_UNSATISFIABLE);
    fx_fini(&x);
}

/* ---- counters ---------------------------------------------------------------------------- */

static const char k_counters[] =
    NODE CLASS("class-a", "driver-a")
    COUNTER_POOL("8Gi")
    "  - {name: big-1, consumesCounters: [{counterSet: set, counters: {mem: {value: 6Gi}}}]}\n"
    "  - {name: big-2, consumesCounters: [{counterSet: set, counters: {mem: {value: 6Gi}}}]}\n"
    "  - {name: small, consumesCounters: [{counterSet: set, counters: {mem: {value: 2Gi}}}]}\n---\n"
    CLAIM("two", "{requests: [{name: r, exactly: {deviceClassName: class-a, count: 2}}]}")
    CLAIM("three", "{requests: [{name: r, exactly: {deviceClassName: class-a, count: 3}}]}")
    CLAIM("one", "{requests: [{name: r, exactly: {deviceClassName: class-a, count: 1}}]}");

static void test_counters(void)
{
    fx_t x;
    fx_init(&x, k_counters, NULL, false);
    if (!x.ok) {
        fx_fini(&x);
        return;
    }
    dra_alloc_outcome_t o;
    /* big-1 + big-2 = 12Gi > 8Gi: the search backtracks to big-1 + small */
    CHECK_EQ_I64(alloc1(&x, "two", &o), DRA_OUTCOME_ALLOCATED);
    CHECK_STREQ(dev_of(&o, 0, 0), "big-1");
    CHECK_STREQ(dev_of(&o, 0, 1), "small");
    CHECK_EQ_I64(alloc1(&x, "three", &o), DRA_OUTCOME_UNSATISFIABLE);
    /* with big-1 allocated (6Gi used), a single big device no longer fits, small does */
    CHECK_EQ_I64(alloc1(&x, "two", &o), DRA_OUTCOME_ALLOCATED);
    dra_allocation_t first = *o.allocations[0];
    first.nresults = 1; /* big-1 only */
    CHECK_OK(dra_alloc_state_commit(x.st, &first));
    CHECK_EQ_I64(alloc1(&x, "one", &o), DRA_OUTCOME_ALLOCATED);
    CHECK_STREQ(dev_of(&o, 0, 0), "small");
    CHECK_EQ_I64(alloc1(&x, "two", &o), DRA_OUTCOME_UNSATISFIABLE);
    fx_fini(&x);
    /* without partitionable devices, devices consuming counters are not selectable at all */
    const char *off[] = {"DRAPartitionableDevices=false", NULL};
    fx_init(&x, k_counters, off, false);
    if (x.ok)
        CHECK_EQ_I64(alloc1(&x, "one", &o), DRA_OUTCOME_UNSATISFIABLE);
    fx_fini(&x);
}

/* Counter rollback (upstream bug 1): a tainted device's counters were reserved before the taint
 * check rejected it and never given back. */
static const char k_rollback[] =
    NODE CLASS("class-a", "driver-a")
    COUNTER_POOL("8Gi")
    "  - {name: a, taints: [{key: broken, effect: NoSchedule}],"
    " consumesCounters: [{counterSet: set, counters: {mem: {value: 6Gi}}}]}\n"
    "  - {name: b, consumesCounters: [{counterSet: set, counters: {mem: {value: 4Gi}}}]}\n---\n"
    CLAIM("one", "{requests: [{name: r, exactly: {deviceClassName: class-a, count: 1}}]}");

static void test_counters_rollback_bug_switch(void)
{
    fx_t x;
    dra_alloc_outcome_t o;
    fx_init(&x, k_rollback, NULL, false);
    if (x.ok) {
        CHECK_EQ_I64(alloc1(&x, "one", &o), DRA_OUTCOME_ALLOCATED);
        CHECK_STREQ(dev_of(&o, 0, 0), "b");
    }
    fx_fini(&x);
    fx_init(&x, k_rollback, NULL, true);
    if (x.ok)
        CHECK_EQ_I64(alloc1(&x, "one", &o), DRA_OUTCOME_UNSATISFIABLE); /* 6 + 4 > 8 */
    fx_fini(&x);
}

/* ---- taints ------------------------------------------------------------------------------ */

static const char k_taints[] =
    NODE CLASS("class-a", "driver-a")
    "apiVersion: resource.k8s.io/v1\nkind: ResourceSlice\nmetadata: {name: s}\n"
    "spec:\n  driver: driver-a\n  pool: {name: p, generation: 1, resourceSliceCount: 1}\n"
    "  nodeName: node-1\n  devices:\n"
    "  - {name: t-sched, taints: [{key: k, value: v, effect: NoSchedule}]}\n"
    "  - {name: t-exec, taints: [{key: e, effect: NoExecute}]}\n"
    "  - {name: t-none, taints: [{key: info, effect: None}]}\n---\n"
    CLAIM("one", "{requests: [{name: r, exactly: {deviceClassName: class-a, count: 1}}]}")
    CLAIM("two", "{requests: [{name: r, exactly: {deviceClassName: class-a, count: 2}}]}")
    CLAIM("tol", "{requests: [{name: r, exactly: {deviceClassName: class-a, count: 2,"
                 " tolerations: [{key: k, operator: Equal, value: v, effect: NoSchedule}]}}]}")
    CLAIM("tolall", "{requests: [{name: r, exactly: {deviceClassName: class-a, count: 3,"
                    " tolerations: [{operator: Exists}]}}]}");

static void test_taints(void)
{
    fx_t x;
    dra_alloc_outcome_t o;
    fx_init(&x, k_taints, NULL, false);
    if (x.ok) {
        CHECK_EQ_I64(alloc1(&x, "one", &o), DRA_OUTCOME_ALLOCATED);
        CHECK_STREQ(dev_of(&o, 0, 0), "t-none"); /* effect None does not block */
        CHECK_EQ_I64(alloc1(&x, "two", &o), DRA_OUTCOME_UNSATISFIABLE);
        CHECK_EQ_I64(alloc1(&x, "tol", &o), DRA_OUTCOME_ALLOCATED);
        CHECK_STREQ(dev_of(&o, 0, 0), "t-sched");
        CHECK_STREQ(dev_of(&o, 0, 1), "t-none");
        if (o.kind == DRA_OUTCOME_ALLOCATED) /* the tolerations are copied into the result */
            CHECK_EQ_I64(o.allocations[0]->results[0].ntolerations, 1);
        CHECK_EQ_I64(alloc1(&x, "tolall", &o), DRA_OUTCOME_ALLOCATED);
    }
    fx_fini(&x);
    const char *off[] = {"DRADeviceTaints=false", NULL};
    fx_init(&x, k_taints, off, false);
    if (x.ok) {
        CHECK_EQ_I64(alloc1(&x, "one", &o), DRA_OUTCOME_ALLOCATED);
        CHECK_STREQ(dev_of(&o, 0, 0), "t-sched"); /* taints ignored */
    }
    fx_fini(&x);
}

/* ---- consumable capacity ----------------------------------------------------------------- */

static const char k_capacity[] =
    NODE CLASS("class-a", "driver-a")
    "apiVersion: resource.k8s.io/v1\nkind: ResourceSlice\nmetadata: {name: s}\n"
    "spec:\n  driver: driver-a\n  pool: {name: p, generation: 1, resourceSliceCount: 1}\n"
    "  nodeName: node-1\n  devices:\n"
    "  - name: ranged\n    allowMultipleAllocations: true\n"
    "    capacity: {bw: {value: '4', requestPolicy: {default: '1', validRange: {min: '1', step: '1', max: '4'}}}}\n"
    "  - name: valued\n    allowMultipleAllocations: true\n"
    "    capacity: {mem: {value: 8Gi, requestPolicy: {default: 1Gi, validValues: [1Gi, 4Gi, 8Gi]}}}\n---\n"
    CLAIM("bw", "{requests: [{name: r, exactly: {deviceClassName: class-a, count: 1,"
                " capacity: {requests: {bw: 1500m}}}}]}")
    CLAIM("mem", "{requests: [{name: r, exactly: {deviceClassName: class-a, count: 1,"
                 " capacity: {requests: {mem: 3Gi}}}}]}")
    CLAIM("plain", "{requests: [{name: r, exactly: {deviceClassName: class-a, count: 2}}]}");

static void test_capacity(void)
{
    fx_t x;
    dra_alloc_outcome_t o;
    fx_init(&x, k_capacity, NULL, false);
    if (!x.ok) {
        fx_fini(&x);
        return;
    }
    char b[64];
    /* validRange: 1500m rounds up to 2 on the step grid */
    CHECK_EQ_I64(alloc1(&x, "bw", &o), DRA_OUTCOME_ALLOCATED);
    CHECK_STREQ(dev_of(&o, 0, 0), "ranged");
    if (o.kind == DRA_OUTCOME_ALLOCATED && o.allocations[0]->results[0].nconsumed == 1) {
        CHECK_STREQ(qfmt(&o.allocations[0]->results[0].consumed[0].value, b, sizeof b), "2");
        CHECK_OK(dra_alloc_state_commit(x.st, o.allocations[0]));
    }
    CHECK_EQ_I64(alloc1(&x, "bw", &o), DRA_OUTCOME_ALLOCATED); /* 2 + 2 <= 4 */
    if (o.kind == DRA_OUTCOME_ALLOCATED)
        CHECK_OK(dra_alloc_state_commit(x.st, o.allocations[0]));
    CHECK_EQ_I64(alloc1(&x, "bw", &o), DRA_OUTCOME_UNSATISFIABLE); /* 4 + 2 > 4 */
    /* validValues: 3Gi rounds up to 4Gi; two fit into 8Gi, a third does not */
    for (int i = 0; i < 2; i++) {
        CHECK_EQ_I64(alloc1(&x, "mem", &o), DRA_OUTCOME_ALLOCATED);
        CHECK_STREQ(dev_of(&o, 0, 0), "valued");
        if (o.kind == DRA_OUTCOME_ALLOCATED && o.allocations[0]->results[0].nconsumed == 1) {
            CHECK_STREQ(qfmt(&o.allocations[0]->results[0].consumed[0].value, b, sizeof b), "4Gi");
            CHECK_OK(dra_alloc_state_commit(x.st, o.allocations[0]));
        }
    }
    CHECK_EQ_I64(alloc1(&x, "mem", &o), DRA_OUTCOME_UNSATISFIABLE);
    fx_fini(&x);
    /* without a request the default is consumed: 1 of bw, 1Gi of mem */
    fx_init(&x, k_capacity, NULL, false);
    if (x.ok) {
        CHECK_EQ_I64(alloc1(&x, "plain", &o), DRA_OUTCOME_ALLOCATED);
        if (o.kind == DRA_OUTCOME_ALLOCATED && o.allocations[0]->nresults == 2 &&
            o.allocations[0]->results[1].nconsumed == 1)
            CHECK_STREQ(qfmt(&o.allocations[0]->results[1].consumed[0].value, b, sizeof b), "1Gi");
    }
    fx_fini(&x);
}

/* ---- constraints ------------------------------------------------------------------------- */

static const char k_constraints[] =
    NODE CLASS("class-a", "driver-a")
    "apiVersion: resource.k8s.io/v1\nkind: ResourceSlice\nmetadata: {name: s}\n"
    "spec:\n  driver: driver-a\n  pool: {name: p, generation: 1, resourceSliceCount: 1}\n"
    "  nodeName: node-1\n  devices:\n"
    "  - {name: n0a, attributes: {numa: {int: 0}}}\n"
    "  - {name: n1a, attributes: {numa: {int: 1}}}\n"
    "  - {name: n1b, attributes: {numa: {int: 1}}}\n"
    "  - {name: n0b, attributes: {numa: {int: 0}}}\n"
    "  - {name: nonuma}\n---\n"
    CLAIM("match3", "{requests: [{name: r, exactly: {deviceClassName: class-a, count: 2}}],"
                    " constraints: [{matchAttribute: driver-a/numa}]}")
    CLAIM("match2req", "{requests: [{name: a, exactly: {deviceClassName: class-a, count: 1}},"
                       " {name: b, exactly: {deviceClassName: class-a, count: 1,"
                       " selectors: [{cel: {expression: '\"numa\" in device.attributes[\"driver-a\"] &&"
                       " device.attributes[\"driver-a\"].numa == 1'}}]}}],"
                       " constraints: [{requests: [a, b], matchAttribute: driver-a/numa}]}")
    CLAIM("distinct2", "{requests: [{name: r, exactly: {deviceClassName: class-a, count: 2}}],"
                       " constraints: [{distinctAttribute: driver-a/numa}]}")
    CLAIM("distinct3", "{requests: [{name: r, exactly: {deviceClassName: class-a, count: 3}}],"
                       " constraints: [{distinctAttribute: driver-a/numa}]}");

static void test_constraints(void)
{
    fx_t x;
    dra_alloc_outcome_t o;
    fx_init(&x, k_constraints, NULL, false);
    if (!x.ok) {
        fx_fini(&x);
        return;
    }
    /* matchAttribute: n0a then n0b (n1a differs; devices without the attribute never match) */
    CHECK_EQ_I64(alloc1(&x, "match3", &o), DRA_OUTCOME_ALLOCATED);
    CHECK_STREQ(dev_of(&o, 0, 0), "n0a");
    CHECK_STREQ(dev_of(&o, 0, 1), "n0b");
    /* across requests: a backtracks from n0a to n1a because b must be numa 1 */
    CHECK_EQ_I64(alloc1(&x, "match2req", &o), DRA_OUTCOME_ALLOCATED);
    CHECK_STREQ(dev_of(&o, 0, 0), "n1a");
    CHECK_STREQ(dev_of(&o, 0, 1), "n1b");
    /* distinctAttribute: two values exist, so 2 devices fit and 3 do not */
    CHECK_EQ_I64(alloc1(&x, "distinct2", &o), DRA_OUTCOME_ALLOCATED);
    CHECK_STREQ(dev_of(&o, 0, 0), "n0a");
    CHECK_STREQ(dev_of(&o, 0, 1), "n1a");
    CHECK_EQ_I64(alloc1(&x, "distinct3", &o), DRA_OUTCOME_UNSATISFIABLE);
    fx_fini(&x);

    /* upstream bug 3: distinctAttribute keyed by request name lets a duplicate through within one
     * request of count >= 3; the invariant checker catches it */
    fx_init(&x, k_constraints, NULL, true);
    if (x.ok) {
        dra_claim_t *c = claim(&x, "distinct3");
        memset(&o, 0, sizeof o);
        CHECK_OK(dra_alloc_allocate(x.al, x.node, &c, 1, &x.out, &o));
        CHECK_EQ_I64(o.kind, DRA_OUTCOME_ALLOCATED);
        if (o.kind == DRA_OUTCOME_ALLOCATED) {
            const char *names[] = {"distinct3", NULL};
            CHECK(violations(&x, names, o.allocations, "repeats") > 0);
        }
    }
    fx_fini(&x);
    /* with DRAConsumableCapacity off, distinctAttribute is dropped by the API: an empty
     * constraint, which is fatal */
    const char *off[] = {"DRAConsumableCapacity=false", NULL};
    fx_init(&x, k_constraints, off, false);
    if (x.ok)
        CHECK_EQ_I64(alloc1(&x, "distinct2", &o), DRA_OUTCOME_FATAL);
    fx_fini(&x);
}

/* ---- invariant checker ------------------------------------------------------------------- */

static const char k_inv[] =
    NODE CLASS("class-a", "driver-a")
    COUNTER_POOL("8Gi")
    "  - {name: d0, attributes: {numa: {int: 0}}}\n"
    "  - {name: d1, attributes: {numa: {int: 0}}}\n"
    "  - {name: d2, attributes: {numa: {int: 1}}}\n"
    "  - {name: tainted, attributes: {numa: {int: 0}}, taints: [{key: k, effect: NoSchedule}]}\n"
    "  - {name: big-1, attributes: {numa: {int: 0}}, consumesCounters: [{counterSet: set, counters: {mem: {value: 6Gi}}}]}\n"
    "  - {name: big-2, attributes: {numa: {int: 0}}, consumesCounters: [{counterSet: set, counters: {mem: {value: 6Gi}}}]}\n"
    "  - name: shared\n    attributes: {numa: {int: 0}}\n    allowMultipleAllocations: true\n"
    "    capacity: {bw: {value: '4'}}\n---\n"
    "apiVersion: resource.k8s.io/v1\nkind: ResourceSlice\nmetadata: {name: other}\n"
    "spec:\n  driver: driver-b\n  pool: {name: q, generation: 1, resourceSliceCount: 1}\n"
    "  nodeName: node-1\n  devices: [{name: b0}]\n---\n"
    CLAIM("pair", "{requests: [{name: r, exactly: {deviceClassName: class-a, count: 2}}],"
                  " constraints: [{matchAttribute: driver-a/numa}]}")
    CLAIM("cap", "{requests: [{name: r, exactly: {deviceClassName: class-a, count: 1,"
                 " capacity: {requests: {bw: '3'}}}}]}")
    CLAIM("two", "{requests: [{name: a, exactly: {deviceClassName: class-a}},"
                 " {name: b, exactly: {deviceClassName: class-a}}]}");

static dra_allocation_t *copy_alloc(fx_t *x, const dra_allocation_t *a)
{
    dra_allocation_t *c = dra_arena_calloc(&x->out, 1, sizeof *c, 8);
    dra_result_t *rs = dra_arena_calloc(&x->out, 40, sizeof *rs, 8);
    if (!c || !rs)
        return NULL;
    *c = *a;
    memcpy(rs, a->results, a->nresults * sizeof *rs);
    c->results = rs;
    return c;
}

static void test_invariant_checker(void)
{
    fx_t x;
    fx_init(&x, k_inv, NULL, false);
    if (!x.ok) {
        fx_fini(&x);
        return;
    }
    const char *pair[] = {"pair", NULL}, *cap[] = {"cap", NULL};
    dra_alloc_outcome_t o, oc;
    CHECK_EQ_I64(alloc1(&x, "pair", &o), DRA_OUTCOME_ALLOCATED);
    CHECK_EQ_I64(alloc1(&x, "cap", &oc), DRA_OUTCOME_ALLOCATED);
    if (o.kind != DRA_OUTCOME_ALLOCATED || oc.kind != DRA_OUTCOME_ALLOCATED) {
        fx_fini(&x);
        return;
    }
    CHECK_STREQ(dev_of(&o, 0, 0), "d0");
    CHECK_STREQ(dev_of(&o, 0, 1), "d1");
    CHECK_STREQ(dev_of(&oc, 0, 0), "shared");
    dra_allocation_t *a;
    /* the valid allocations pass */
    CHECK_EQ_I64(violations(&x, pair, o.allocations, NULL), 0);
    CHECK_EQ_I64(violations(&x, cap, oc.allocations, NULL), 0);
    /* unknown device */
    a = copy_alloc(&x, o.allocations[0]);
    a->results[1].device = "nosuch";
    CHECK(violations(&x, pair, &a, "not available on node") > 0);
    /* a device of another driver is not selectable by the class */
    a = copy_alloc(&x, o.allocations[0]);
    a->results[1].driver = "driver-b";
    a->results[1].pool = "q";
    a->results[1].device = "b0";
    CHECK(violations(&x, pair, &a, "not selectable") > 0);
    /* unknown request */
    a = copy_alloc(&x, o.allocations[0]);
    a->results[0].request = "zzz";
    CHECK(violations(&x, pair, &a, "unknown request") > 0);
    /* a result naming an unknown subrequest of request a leaves nothing behind for the next
     * result (request b): a is the request without devices, b is answered */
    const char *two[] = {"two", NULL};
    dra_alloc_outcome_t ot;
    CHECK_EQ_I64(alloc1(&x, "two", &ot), DRA_OUTCOME_ALLOCATED);
    if (ot.kind == DRA_OUTCOME_ALLOCATED) {
        a = copy_alloc(&x, ot.allocations[0]);
        a->results[0].request = "a/x";
        CHECK(violations(&x, two, &a, "claim two, request a: no devices") > 0);
        CHECK_EQ_I64(violations(&x, two, &a, NULL), 2); /* that and "unknown request a/x" */
    }
    /* wrong count */
    a = copy_alloc(&x, o.allocations[0]);
    a->nresults = 1;
    CHECK(violations(&x, pair, &a, "1 devices, want 2") > 0);
    /* the same device twice in one claim */
    a = copy_alloc(&x, o.allocations[0]);
    a->results[1] = a->results[0];
    CHECK(violations(&x, pair, &a, "allocated twice") > 0);
    /* matchAttribute broken: d0 (numa 0) with d2 (numa 1) */
    a = copy_alloc(&x, o.allocations[0]);
    a->results[1].device = "d2";
    CHECK(violations(&x, pair, &a, "differs on") > 0);
    /* untolerated taint */
    a = copy_alloc(&x, o.allocations[0]);
    a->results[1].device = "tainted";
    CHECK(violations(&x, pair, &a, "untolerated taint") > 0);
    /* counters: 6Gi + 6Gi over the 8Gi set */
    a = copy_alloc(&x, o.allocations[0]);
    a->results[0].device = "big-1";
    a->results[1].device = "big-2";
    CHECK(violations(&x, pair, &a, "over its total") > 0);
    /* node selector that does not select the node */
    a = copy_alloc(&x, o.allocations[0]);
    dra_node_selector_t *ns = dra_arena_calloc(&x.out, 1, sizeof *ns, 8);
    dra_ns_term_t *term = dra_arena_calloc(&x.out, 1, sizeof *term, 8);
    dra_ns_req_t *req = dra_arena_calloc(&x.out, 1, sizeof *req, 8);
    const char **vals = dra_arena_calloc(&x.out, 1, sizeof *vals, 8);
    if (ns && term && req && vals) {
        vals[0] = "node-2";
        req->key = "metadata.name";
        req->op = DRA_NS_IN;
        req->op_raw = "In";
        req->values = vals;
        req->nvalues = 1;
        term->fields = req;
        term->nfields = 1;
        ns->terms = term;
        ns->nterms = 1;
        a->node_selector = ns;
        CHECK(violations(&x, pair, &a, "does not select node") > 0);
    }
    /* already allocated in the state before the call */
    CHECK_OK(dra_alloc_state_commit(x.st, o.allocations[0]));
    CHECK(violations(&x, pair, o.allocations, "already allocated") > 0);
    CHECK_OK(dra_alloc_state_release(x.st, o.allocations[0]));
    /* capacity: a share of 3 on top of an existing share of 3 exceeds 4 */
    CHECK_OK(dra_alloc_state_commit(x.st, oc.allocations[0]));
    CHECK(violations(&x, cap, oc.allocations, "over its value") > 0);
    CHECK_OK(dra_alloc_state_release(x.st, oc.allocations[0]));
    /* shareID missing on a multi-allocatable device */
    a = copy_alloc(&x, oc.allocations[0]);
    a->results[0].share_id = NULL;
    CHECK(violations(&x, cap, &a, "shareID presence") > 0);
    /* more than 32 results */
    a = copy_alloc(&x, o.allocations[0]);
    for (uint32_t i = 0; i < 33; i++)
        a->results[i] = o.allocations[0]->results[i % 2];
    a->nresults = 33;
    CHECK(violations(&x, pair, &a, "exceed the limit of 32") > 0);
    /* no allocation at all */
    dra_allocation_t *none = NULL;
    CHECK(violations(&x, pair, &none, "no allocation") > 0);
    fx_fini(&x);
}

/* ---- brute force ------------------------------------------------------------------------- */

static dra_bf_verdict_t bf(fx_t *x, const char *name, uint64_t budget, dra_bf_result_t *r)
{
    dra_claim_t *c = claim(x, name);
    memset(r, 0, sizeof *r);
    CHECK_OK(dra_alloc_bruteforce(&x->m, &x->f, x->st, x->cel, x->node, &c, 1, budget, r));
    return r->verdict;
}

static const char k_bf[] =
    NODE CLASS("class-a", "driver-a")
    "apiVersion: resource.k8s.io/v1\nkind: ResourceSlice\nmetadata: {name: s}\n"
    "spec:\n  driver: driver-a\n  pool: {name: p, generation: 1, resourceSliceCount: 1}\n"
    "  nodeName: node-1\n  devices:\n"
    "  - {name: a, attributes: {numa: {int: 0}}}\n"
    "  - {name: b, attributes: {numa: {int: 1}}}\n"
    "  - {name: c, attributes: {numa: {int: 0}}}\n"
    "  - {name: d, attributes: {numa: {int: 2}}}\n"
    "  - {name: e, attributes: {numa: {int: 0}}}\n"
    "  - {name: f, attributes: {numa: {int: 1}}}\n---\n"
    CLAIM("d3", "{requests: [{name: r, exactly: {deviceClassName: class-a, count: 3}}],"
                " constraints: [{distinctAttribute: driver-a/numa}]}")
    CLAIM("d4", "{requests: [{name: r, exactly: {deviceClassName: class-a, count: 4}}],"
                " constraints: [{distinctAttribute: driver-a/numa}]}")
    CLAIM("m4", "{requests: [{name: r, exactly: {deviceClassName: class-a, count: 4}}],"
                " constraints: [{matchAttribute: driver-a/numa}]}")
    CLAIM("m3", "{requests: [{name: r, exactly: {deviceClassName: class-a, count: 3}}],"
                " constraints: [{matchAttribute: driver-a/numa}]}")
    CLAIM("bad", "{requests: [{name: r, exactly: {deviceClassName: class-a, count: 1,"
                 " selectors: [{cel: {expression: 'device.attributes[\"driver-a\"].missing == 1'}}]}}]}");

static void test_bruteforce(void)
{
    fx_t x;
    fx_init(&x, k_bf, NULL, false);
    if (!x.ok) {
        fx_fini(&x);
        return;
    }
    dra_bf_result_t r;
    dra_alloc_outcome_t o;
    /* three distinct numa values exist: 3 is satisfiable, 4 is not; matchAttribute: three
     * numa-0 devices but not four. The reference allocator agrees on each. */
    CHECK_EQ_I64(bf(&x, "d3", 0, &r), DRA_BF_SATISFIABLE);
    CHECK_EQ_I64(alloc1(&x, "d3", &o), DRA_OUTCOME_ALLOCATED);
    CHECK_EQ_I64(bf(&x, "d4", 0, &r), DRA_BF_UNSATISFIABLE);
    CHECK_EQ_U64(r.assignments, 15); /* C(6,4) device sets, each examined */
    CHECK_EQ_I64(alloc1(&x, "d4", &o), DRA_OUTCOME_UNSATISFIABLE);
    CHECK_EQ_I64(bf(&x, "m3", 0, &r), DRA_BF_SATISFIABLE);
    CHECK_EQ_I64(alloc1(&x, "m3", &o), DRA_OUTCOME_ALLOCATED);
    CHECK_EQ_I64(bf(&x, "m4", 0, &r), DRA_BF_UNSATISFIABLE);
    CHECK_EQ_I64(alloc1(&x, "m4", &o), DRA_OUTCOME_UNSATISFIABLE);
    /* a budget smaller than the search space gives no verdict */
    CHECK_EQ_I64(bf(&x, "d4", 3, &r), DRA_BF_TOO_BIG);
    /* a CEL runtime error is an error verdict (the allocator: fatal) */
    CHECK_EQ_I64(bf(&x, "bad", 0, &r), DRA_BF_ERROR);
    CHECK(r.msg[0] != 0);
    CHECK_EQ_I64(alloc1(&x, "bad", &o), DRA_OUTCOME_FATAL);
    /* state matters: with a and c taken, matchAttribute over three numa-0 devices fails */
    CHECK_EQ_I64(alloc1(&x, "m3", &o), DRA_OUTCOME_ALLOCATED);
    if (o.kind == DRA_OUTCOME_ALLOCATED) {
        dra_allocation_t two = *o.allocations[0];
        two.nresults = 2;
        CHECK_OK(dra_alloc_state_commit(x.st, &two));
        CHECK_EQ_I64(bf(&x, "m3", 0, &r), DRA_BF_UNSATISFIABLE);
        CHECK_EQ_I64(alloc1(&x, "m3", &o), DRA_OUTCOME_UNSATISFIABLE);
        CHECK_EQ_I64(bf(&x, "d3", 0, &r), DRA_BF_SATISFIABLE); /* e, b, d */
    }
    fx_fini(&x);
}

/* 1.37 with DRADeviceCompatibilityGroups on: m0 (group g0) and m2 (no groups) are allocated
 * from set s0 (mem 4, 2 left), whose baseline is {g0}. An adminAccess request on an allocated
 * device is checked like any other (upstream skips the group and counter checks only for a
 * further share of a shared device): m2 is never admitted, m0 is and charges mem again. */
#define CG_DEV(name, set, groups, mem)                                                             \
    "  - {name: " name ", consumesCounters: [{counterSet: " set ", " groups                        \
    "counters: {mem: {value: '" mem "'}}}]}\n"
#define CG_HELD(name, dev)                                                                         \
    "apiVersion: resource.k8s.io/v1\nkind: ResourceClaim\nmetadata: {name: " name "}\n"           \
    "spec: {devices: {requests: [{name: r, exactly: {deviceClassName: class-a, count: 1}}]}}\n"   \
    "status: {allocation: {devices: {results: [{request: r, driver: driver-a, pool: p, device: " \
    dev "}]}}}\n---\n"

static const char k_bf_cg[] =
    NODE CLASS("class-a", "driver-a")
    "apiVersion: resource.k8s.io/v1\nkind: ResourceSlice\nmetadata: {name: c}\n"
    "spec:\n  driver: driver-a\n  pool: {name: p, generation: 1, resourceSliceCount: 2}\n"
    "  nodeName: node-1\n  sharedCounters:\n"
    "  - {name: s0, counters: {mem: {value: '4'}}}\n"
    "  - {name: s1, counters: {mem: {value: '4'}}}\n---\n"
    "apiVersion: resource.k8s.io/v1\nkind: ResourceSlice\nmetadata: {name: d}\n"
    "spec:\n  driver: driver-a\n  pool: {name: p, generation: 1, resourceSliceCount: 2}\n"
    "  nodeName: node-1\n  devices:\n"
    CG_DEV("m0", "s0", "compatibilityGroups: [g0], ", "1")
    CG_DEV("m1", "s0", "compatibilityGroups: [g0, g1], ", "2")
    CG_DEV("m2", "s0", "", "1")
    CG_DEV("n0", "s1", "", "1")
    "---\n"
    CG_HELD("held-0", "m0") CG_HELD("held-1", "m2")
    CLAIM("adm3", "{requests: [{name: r, exactly: {deviceClassName: class-a, count: 3,"
                  " adminAccess: true}}]}")
    CLAIM("adm2", "{requests: [{name: r, exactly: {deviceClassName: class-a, count: 2,"
                  " adminAccess: true}}]}");

static void test_bruteforce_admin_groups(void)
{
    static const char *const gates[] = {"DRADeviceCompatibilityGroups=true", NULL};
    fx_t x;
    fx_init_rel(&x, k_bf_cg, gates, false, DRA_RELEASE_1_37);
    if (!x.ok) {
        fx_fini(&x);
        return;
    }
    CHECK_OK(dra_alloc_state_add_model_claims(x.st)); /* held-0, held-1 */
    CHECK_EQ_I64(dra_alloc_state_count(x.st), 2);
    dra_bf_result_t r;
    dra_alloc_outcome_t o;
    /* three devices: m2 never, and m0 + m1 need 3 of the 2 mem left (the fuzzer's finding:
     * the brute force exempted m0 and m2 from the group check and found m0, m2, n0) */
    CHECK_EQ_I64(bf(&x, "adm3", 0, &r), DRA_BF_UNSATISFIABLE);
    CHECK_EQ_I64(alloc1(&x, "adm3", &o), DRA_OUTCOME_UNSATISFIABLE);
    /* two: m0 (again) and n0 */
    CHECK_EQ_I64(bf(&x, "adm2", 0, &r), DRA_BF_SATISFIABLE);
    CHECK_EQ_I64(alloc1(&x, "adm2", &o), DRA_OUTCOME_ALLOCATED);
    CHECK_STREQ(dev_of(&o, 0, 0), "m0");
    CHECK_STREQ(dev_of(&o, 0, 1), "n0");
    if (o.kind == DRA_OUTCOME_ALLOCATED && o.allocations[0]->nresults == 2) {
        static const char *const adm2[] = {"adm2", NULL};
        dra_allocation_t *a = copy_alloc(&x, o.allocations[0]);
        CHECK_EQ_U64(violations(&x, adm2, &a, NULL), 0);
        a->results[0].device = "m2"; /* allocated already, but not admitted by {g0} */
        CHECK(violations(&x, adm2, &a, "incompatible compatibility groups") > 0);
    }
    fx_fini(&x);
}

int main(void)
{
    RUN(test_state_roundtrip);
    RUN(test_share_ids_derived);
    RUN(test_counters);
    RUN(test_counters_rollback_bug_switch);
    RUN(test_taints);
    RUN(test_capacity);
    RUN(test_constraints);
    RUN(test_invariant_checker);
    RUN(test_bruteforce);
    RUN(test_bruteforce_admin_groups);
    return check_summary();
}
