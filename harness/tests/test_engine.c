/* test_engine.c - the placement engine (core/engine/engine.h) on small models read from YAML:
 * free-matching summaries and the node index follow commit and release; a claim no node admits
 * is rejected without an exact call; the summary admits a node where the exact allocator fails
 * (matchAttribute) and placement moves on; a CEL runtime error on a node without matching
 * devices still surfaces where the reference placement reaches it; an invalid pool is a hazard
 * node (NodeFailure as the reference); counters of partitionable devices shrink the summaries;
 * pods' cpu / memory requests against the nodes' allocatable decide the node; allocationMode
 * All skips nodes where a device of its set is in use or out of counters, and the requests
 * beside it skip nodes whose only devices are in its set; a request for consumable capacity
 * skips nodes whose multi-allocatable devices have too little capacity left; direct answers
 * (core/engine/direct.c: first k, matchAttribute groups, counters) serve the shapes they claim,
 * leave the rest to the allocator, and equal its answers (verify_direct is on throughout);
 * shares of multi-allocatable devices (direct-shares: capacity left, policy rounding, derived
 * shareIDs equal to the allocators') and the cases that path leaves to the allocator.
 * Every decision is compared with the brute-force reference placement, under every policy. */
#include <stdlib.h>
#include <string.h>

#include "alloc/alloc.h"
#include "alloc/fast.h"
#include "alloc/fast_tests.h"
#include "check.h"
#include "engine/engine_tests.h"
#include "engine_fx.h"

/* The engine's placement, checked against the reference placement's (engine_fx.h). */
static dra_engine_result_t place_into(fx_t *x, uint32_t p, dra_engine_policy_t pol,
                                      uint32_t start, dra_arena_t *into)
{
    return fx_place_vs_reference(x, p, pol, start, into);
}

static dra_engine_result_t place(fx_t *x, uint32_t p, dra_engine_policy_t pol, uint32_t start)
{
    return place_into(x, p, pol, start, &x->out);
}

#define CLASS(name, drv)                                                                           \
    "apiVersion: resource.k8s.io/v1\nkind: DeviceClass\nmetadata: {name: " name "}\n"             \
    "spec: {selectors: [{cel: {expression: 'device.driver == \"" drv "\"'}}]}\n---\n"
#define SLICE(name, node, devices)                                                                 \
    "apiVersion: resource.k8s.io/v1\nkind: ResourceSlice\nmetadata: {name: " name "}\n"           \
    "spec:\n  driver: drv\n  pool: {name: " name ", generation: 1, resourceSliceCount: 1}\n"       \
    "  nodeName: " node "\n  devices: " devices "\n---\n"
#define DEV(n, model) "{name: " n ", attributes: {model: {string: " model "}}}"
/* Pool p on n1 in two slices: "counters" holds the counter set `set` with mem = total, "devices"
 * lists the devices given after the macro (block items "  - {...}\n", then "---\n"). */
#define COUNTER_POOL_N1(total)                                                                     \
    "apiVersion: resource.k8s.io/v1\nkind: ResourceSlice\nmetadata: {name: counters}\n"           \
    "spec:\n  driver: drv\n  pool: {name: p, generation: 1, resourceSliceCount: 2}\n"             \
    "  nodeName: n1\n  sharedCounters: [{name: set, counters: {mem: {value: " total "}}}]\n---\n" \
    "apiVersion: resource.k8s.io/v1\nkind: ResourceSlice\nmetadata: {name: devices}\n"            \
    "spec:\n  driver: drv\n  pool: {name: p, generation: 1, resourceSliceCount: 2}\n"             \
    "  nodeName: n1\n  devices:\n"

static const char k_three[] =
    NODE("n1") NODE("n2") NODE("n3") CLASS("a", "drv")
    SLICE("s1", "n1", "[" DEV("d1", "x") ", " DEV("d2", "y") "]")
    SLICE("s2", "n2", "[" DEV("d1", "x") ", " DEV("d2", "x") "]")
    SLICE("s3", "n3", "[" DEV("d1", "x") ", " DEV("d2", "x") ", " DEV("d3", "x") "]")
    CLAIM("one", "{requests: [{name: r, exactly: {deviceClassName: a, count: 1}}]}")
    CLAIM("two", "{requests: [{name: r, exactly: {deviceClassName: a, count: 2}}]}")
    CLAIM("four", "{requests: [{name: r, exactly: {deviceClassName: a, count: 4}}]}")
    CLAIM("same", "{requests: [{name: r, exactly: {deviceClassName: a, count: 2}}],"
                  " constraints: [{matchAttribute: drv/model}]}")
    CLAIM("pair", "{requests: [{name: a, exactly: {deviceClassName: a, count: 1}},"
                  " {name: b, exactly: {deviceClassName: a, count: 1}}],"
                  " constraints: [{matchAttribute: drv/model}]}")
    CLAIM("prio", "{requests: [{name: r, firstAvailable: [{name: big, deviceClassName: a, count: 3},"
                  " {name: small, deviceClassName: a, count: 1}]}]}");

static void test_summaries_follow_commit_and_release(void)
{
    fx_t x;
    if (!fx_open(&x, k_three, DRA_RELEASE_1_36, NULL))
        return;
    uint32_t two = fx_plan(&x, "two"), four = fx_plan(&x, "four");
    CHECK(dra_engine_plan_indexed(x.e, two));
    for (uint32_t n = 0; n < 3; n++)
        CHECK(dra_engine_admits(x.e, two, n));
    dra_arena_t keep;
    dra_arena_init(&keep, 0);
    dra_engine_result_t r = place_into(&x, two, DRA_ENGINE_FIRST_FIT, 0, &keep);
    CHECK_EQ_U64(r.kind, DRA_OUTCOME_ALLOCATED);
    CHECK_EQ_U64(r.node, 0);
    CHECK_EQ_U64(r.exact_calls + r.direct_calls, 1);
    CHECK_EQ_U64(r.path, DRA_ENGINE_PATH_INDEX);
    CHECK_OK(dra_engine_commit(x.e, r.node, r.allocations, r.n));
    CHECK_EQ_U64(dra_engine_score(x.e, 0), 2);
    CHECK(!dra_engine_admits(x.e, two, 0)); /* n1 is full */
    check_summaries(&x);
    /* the next pod goes straight to n2: one exact call */
    dra_engine_result_t r2 = place(&x, two, DRA_ENGINE_FIRST_FIT, 0);
    CHECK_EQ_U64(r2.node, 1);
    CHECK_EQ_U64(r2.exact_calls + r2.direct_calls, 1);
    /* four devices: no node has them, rejected without an exact call */
    dra_engine_result_t r4 = place(&x, four, DRA_ENGINE_FIRST_FIT, 0);
    CHECK_EQ_U64(r4.kind, DRA_OUTCOME_UNSATISFIABLE);
    CHECK_EQ_U64(r4.exact_calls + r4.direct_calls, 0);
    CHECK_EQ_U64(r4.path, DRA_ENGINE_PATH_REJECT);
    /* release restores n1 */
    CHECK_OK(dra_engine_release(x.e, r.node, r.allocations, r.n));
    CHECK(dra_engine_admits(x.e, two, 0));
    CHECK_EQ_U64(dra_engine_score(x.e, 0), 0);
    check_summaries(&x);
    dra_arena_fini(&keep);
    fx_fini(&x);
}

static void test_summary_admits_exact_fails(void)
{
    fx_t x;
    if (!fx_open(&x, k_three, DRA_RELEASE_1_36, NULL))
        return;
    /* two requests of one device each under one matchAttribute: each request alone finds a
     * group of one value on n1 (x or y), so the summaries admit n1, but no value serves both:
     * the exact allocator fails there and the engine moves on to n2 */
    uint32_t pair = fx_plan(&x, "pair");
    CHECK(dra_engine_admits(x.e, pair, 0));
    dra_engine_result_t r = place(&x, pair, DRA_ENGINE_FIRST_FIT, 0);
    CHECK_EQ_U64(r.kind, DRA_OUTCOME_ALLOCATED);
    CHECK_EQ_U64(r.node, 1);
    CHECK_EQ_U64(r.exact_calls + r.direct_calls, 2);
    /* one request of two devices under the constraint: the largest one-value group on n1 has 1
     * device, n1 is not a candidate (the matchAttribute summary) */
    uint32_t same = fx_plan(&x, "same");
    CHECK(!dra_engine_admits(x.e, same, 0));
    CHECK(dra_engine_admits(x.e, same, 1));
    r = place(&x, same, DRA_ENGINE_FIRST_FIT, 0);
    CHECK_EQ_U64(r.node, 1);
    CHECK_EQ_U64(r.exact_calls + r.direct_calls, 1);
    fx_fini(&x);
}

/* Every policy, a sequence of placements with commits: engine == reference each time. */
static void test_policies_match_reference(void)
{
    static const dra_engine_policy_t pols[] = {DRA_ENGINE_FIRST_FIT, DRA_ENGINE_BEST_FIT,
                                               DRA_ENGINE_SPREAD, DRA_ENGINE_RANDOM};
    for (size_t pi = 0; pi < sizeof pols / sizeof pols[0]; pi++) {
        fx_t x;
        if (!fx_open(&x, k_three, DRA_RELEASE_1_36, NULL))
            return;
        uint32_t ps[5] = {fx_plan(&x, "one"), fx_plan(&x, "two"), fx_plan(&x, "same"),
                          fx_plan(&x, "prio"), fx_plan(&x, "pair")};
        for (uint32_t i = 0; i < 15; i++) {
            dra_engine_result_t r = place(&x, ps[i % 5], pols[pi], (i * 2) % 3);
            if (r.kind == DRA_OUTCOME_ALLOCATED) {
                CHECK_OK(dra_engine_commit(x.e, r.node, r.allocations, r.n));
                if (i % 3 == 2)
                    CHECK_OK(dra_engine_release(x.e, r.node, r.allocations, r.n));
            }
            check_summaries(&x);
        }
        fx_fini(&x);
    }
}

/* n1 has no device with the attribute the selector reads as a bool (false there), n2's devices
 * lack it (a runtime error), n3 has it true. First-fit: n1 Unsatisfiable, n2 Fatal. The count
 * summary of n2 is 0, but its error rows make it a candidate. */
static const char k_celerr[] =
    NODE("n1") NODE("n2") NODE("n3") CLASS("a", "drv")
    SLICE("s1", "n1", "[{name: d1, attributes: {ok: {bool: false}}}]")
    SLICE("s2", "n2", "[{name: d1}]")
    SLICE("s3", "n3", "[{name: d1, attributes: {ok: {bool: true}}}]")
    CLAIM("c", "{requests: [{name: r, exactly: {deviceClassName: a, count: 1, selectors:"
               " [{cel: {expression: 'device.attributes[\"drv\"].ok'}}]}}]}");

static void test_cel_error_surfaces(void)
{
    fx_t x;
    if (!fx_open(&x, k_celerr, DRA_RELEASE_1_36, NULL))
        return;
    uint32_t c = fx_plan(&x, "c");
    CHECK(dra_engine_plan_indexed(x.e, c));
    CHECK(!dra_engine_admits(x.e, c, 0));
    CHECK(dra_engine_admits(x.e, c, 1)); /* error rows: always a candidate */
    CHECK(dra_engine_admits(x.e, c, 2));
    dra_engine_result_t r = place(&x, c, DRA_ENGINE_FIRST_FIT, 0);
    CHECK_EQ_U64(r.kind, DRA_OUTCOME_FATAL);
    CHECK_EQ_U64(r.node, 1);
    CHECK(strstr(r.msg, "CEL runtime error") != NULL);
    /* random from n3: n3 allocates before n2 is reached */
    r = place(&x, c, DRA_ENGINE_RANDOM, 2);
    CHECK_EQ_U64(r.kind, DRA_OUTCOME_ALLOCATED);
    CHECK_EQ_U64(r.node, 2);
    /* best-fit / spread: a possible Fatal anywhere means brute force */
    r = place(&x, c, DRA_ENGINE_BEST_FIT, 0);
    CHECK_EQ_U64(r.kind, DRA_OUTCOME_FATAL);
    CHECK_EQ_U64(r.path, DRA_ENGINE_PATH_BRUTE);
    fx_fini(&x);
}

/* n2's pool has a duplicate device name: invalid (1.35+: NodeFailure when nothing fits there). */
static const char k_invalid[] =
    NODE("n1") NODE("n2") CLASS("a", "drv")
    SLICE("s1", "n1", "[{name: d1}]")
    SLICE("s2", "n2", "[{name: d1}, {name: d1}]")
    CLAIM("two", "{requests: [{name: r, exactly: {deviceClassName: a, count: 2}}]}");

static const char k_invalid_only[] =
    NODE("n2") CLASS("a", "drv")
    SLICE("s2", "n2", "[{name: d1}, {name: d1}]")
    CLAIM("two", "{requests: [{name: r, exactly: {deviceClassName: a, count: 2}}]}");

static void test_invalid_pool_is_a_hazard(void)
{
    static const dra_release_t rels[] = {DRA_RELEASE_1_34, DRA_RELEASE_1_35, DRA_RELEASE_1_36};
    for (size_t i = 0; i < 3; i++) {
        fx_t x;
        if (!fx_open(&x, k_invalid, rels[i], NULL))
            return;
        dra_engine_info_t info;
        dra_engine_get_info(x.e, &info);
        CHECK_EQ_U64(info.nhazard, 1);
        uint32_t two = fx_plan(&x, "two");
        CHECK(!dra_engine_admits(x.e, two, 0));
        CHECK(dra_engine_admits(x.e, two, 1));
        for (int pol = 0; pol < 4; pol++)
            place(&x, two, (dra_engine_policy_t)pol, 1);
        fx_fini(&x);
        if (!fx_open(&x, k_invalid_only, rels[i], NULL))
            return;
        two = fx_plan(&x, "two");
        dra_engine_result_t r = place(&x, two, DRA_ENGINE_FIRST_FIT, 0);
        CHECK_EQ_U64(r.kind, rels[i] == DRA_RELEASE_1_34 ? DRA_OUTCOME_FATAL : DRA_OUTCOME_NODE_FAILURE);
        CHECK_EQ_U64(r.exact_calls + r.direct_calls, 1);
        fx_fini(&x);
    }
}

/* Partitionable devices: 8Gi of counters, big-1 / big-2 (6Gi each), small (2Gi). */
static const char k_counters[] =
    NODE("n1") NODE("n2") CLASS("a", "drv")
    COUNTER_POOL_N1("8Gi")
    "  - {name: big-1, attributes: {big: {bool: true}},\n"
    "     consumesCounters: [{counterSet: set, counters: {mem: {value: 6Gi}}}]}\n"
    "  - {name: big-2, attributes: {big: {bool: true}},\n"
    "     consumesCounters: [{counterSet: set, counters: {mem: {value: 6Gi}}}]}\n"
    "  - {name: small, consumesCounters: [{counterSet: set, counters: {mem: {value: 2Gi}}}]}\n---\n"
    SLICE("s2", "n2", "[{name: big-9, attributes: {big: {bool: true}}}]")
    CLAIM("big", "{requests: [{name: r, exactly: {deviceClassName: a, count: 1, selectors:"
                 " [{cel: {expression: 'has(device.attributes[\"drv\"].big)'}}]}}]}");

static void test_counters_shrink_summaries(void)
{
    fx_t x;
    if (!fx_open(&x, k_counters, DRA_RELEASE_1_36, "DRAPartitionableDevices=true"))
        return;
    uint32_t big = fx_plan(&x, "big");
    CHECK(dra_engine_admits(x.e, big, 0));
    dra_arena_t keep;
    dra_arena_init(&keep, 0);
    dra_engine_result_t r = place_into(&x, big, DRA_ENGINE_FIRST_FIT, 0, &keep);
    CHECK_EQ_U64(r.kind, DRA_OUTCOME_ALLOCATED);
    CHECK_EQ_U64(r.node, 0);
    if (r.kind != DRA_OUTCOME_ALLOCATED) {
        dra_arena_fini(&keep);
        fx_fini(&x);
        return;
    }
    CHECK_OK(dra_engine_commit(x.e, r.node, r.allocations, r.n));
    /* big-2 is free but 6Gi + 6Gi > 8Gi: n1 no longer admits, n2 gets the next one directly */
    CHECK(!dra_engine_admits(x.e, big, 0));
    check_summaries(&x);
    dra_engine_result_t r2 = place(&x, big, DRA_ENGINE_FIRST_FIT, 0);
    CHECK_EQ_U64(r2.node, 1);
    CHECK_EQ_U64(r2.exact_calls + r2.direct_calls, 1);
    CHECK_OK(dra_engine_release(x.e, r.node, r.allocations, r.n));
    CHECK(dra_engine_admits(x.e, big, 0));
    check_summaries(&x);
    dra_arena_fini(&keep);
    fx_fini(&x);
}

/* Node resources (NodeResourcesFit before devices): n1 {cpu 2, memory 4Gi}, n2 {cpu 4, no
 * memory: unlimited}, n3 {cpu 3, memory 16Gi}; pods of one device with cpu 1500m and memory
 * 3Gi. First-fit skips n1 once its cpu is used although a device is free there, release frees
 * it; a plan without requests ignores cpu; every step under every policy equals the reference
 * placement. */
#define RNODE(n, alc) "apiVersion: v1\nkind: Node\nmetadata: {name: " n "}\nstatus: {allocatable: " alc "}\n---\n"
static const char k_res[] =
    RNODE("n1", "{cpu: '2', memory: 4Gi}") RNODE("n2", "{cpu: 4}")
    RNODE("n3", "{cpu: 3000m, memory: 16Gi}") CLASS("a", "drv")
    SLICE("s1", "n1", "[" DEV("d1", "x") ", " DEV("d2", "y") "]")
    SLICE("s2", "n2", "[" DEV("d1", "x") ", " DEV("d2", "x") "]")
    SLICE("s3", "n3", "[" DEV("d1", "x") ", " DEV("d2", "x") ", " DEV("d3", "x") "]")
    CLAIM("one", "{requests: [{name: r, exactly: {deviceClassName: a, count: 1}}]}");

static void all_policies_agree(fx_t *x, uint32_t p)
{
    static const dra_engine_policy_t pols[] = {DRA_ENGINE_FIRST_FIT, DRA_ENGINE_BEST_FIT,
                                               DRA_ENGINE_SPREAD, DRA_ENGINE_RANDOM};
    for (size_t i = 0; i < sizeof pols / sizeof pols[0]; i++)
        for (uint32_t start = 0; start < (pols[i] == DRA_ENGINE_RANDOM ? 3u : 1u); start++)
            (void)place(x, p, pols[i], start);
}

static void test_node_resources(void)
{
    fx_t x;
    if (!fx_open(&x, k_res, DRA_RELEASE_1_36, NULL))
        return;
    int64_t u;
    CHECK_OK(dra_engine_quantity_units("1.5", -3, &u));
    CHECK_EQ_U64(u, 1500);
    CHECK_OK(dra_engine_quantity_units("100m", 0, &u)); /* rounded up */
    CHECK_EQ_U64(u, 1);
    CHECK_OK(dra_engine_quantity_units("3Gi", 0, &u));
    CHECK_EQ_U64(u, 3ull << 30);
    CHECK(dra_engine_quantity_units("-1", 0, &u) != DRA_OK);
    CHECK(dra_engine_quantity_units("2x", 0, &u) != DRA_OK);
    int64_t nr[4];
    dra_engine_node_resources(x.e, 1, nr);
    CHECK(nr[0] == 4000 && nr[1] == -1 && nr[2] == 0 && nr[3] == 0);

    dra_claim_t *one = dra_model_find_claim(&x.m, NULL, "one");
    uint32_t pod, bare, mem, cpu8;
    CHECK_OK(dra_engine_plan(x.e, &one, 1, &pod));
    CHECK_OK(dra_engine_plan(x.e, &one, 1, &bare));
    CHECK_OK(dra_engine_plan(x.e, &one, 1, &mem));
    CHECK_OK(dra_engine_plan(x.e, &one, 1, &cpu8));
    CHECK_OK(dra_engine_plan_resources(x.e, pod, 1500, INT64_C(3) << 30));
    CHECK_OK(dra_engine_plan_resources(x.e, mem, 0, INT64_C(100) << 30));
    CHECK_OK(dra_engine_plan_resources(x.e, cpu8, 8000, 0));
    CHECK(dra_engine_plan_resources(x.e, pod, -1, 0) == DRA_EINVAL);

    /* memory 100Gi: only n2 (no memory declared) */
    dra_engine_result_t r = place(&x, mem, DRA_ENGINE_FIRST_FIT, 0);
    CHECK_EQ_U64(r.kind, DRA_OUTCOME_ALLOCATED);
    CHECK_EQ_U64(r.node, 1);
    CHECK_EQ_U64(r.exact_calls + r.direct_calls, 1);
    all_policies_agree(&x, mem);
    /* 8 cpu: no node, rejected without an exact call; all three short of cpu */
    r = place(&x, cpu8, DRA_ENGINE_FIRST_FIT, 0);
    CHECK_EQ_U64(r.kind, DRA_OUTCOME_UNSATISFIABLE);
    CHECK_EQ_U64(r.exact_calls + r.direct_calls, 0);
    uint32_t sc, sm;
    dra_engine_res_short(x.e, cpu8, &sc, &sm);
    CHECK(sc == 3 && sm == 0);
    all_policies_agree(&x, cpu8);

    /* first-fit sequence: n1, n2, n2, n3, n3, then nothing (cpu), n1 after a release */
    static const uint32_t want[] = {0, 1, 1, 2, 2};
    dra_arena_t keep[5];
    dra_engine_result_t placed[5];
    for (int i = 0; i < 5; i++) {
        dra_arena_init(&keep[i], 0);
        all_policies_agree(&x, pod);
        placed[i] = place_into(&x, pod, DRA_ENGINE_FIRST_FIT, 0, &keep[i]);
        CHECK_EQ_U64(placed[i].kind, DRA_OUTCOME_ALLOCATED);
        CHECK_EQ_U64(placed[i].node, want[i]);
        CHECK_OK(dra_engine_commit_pod(x.e, pod, placed[i].node, placed[i].allocations,
                                       placed[i].n));
        check_summaries(&x);
    }
    /* pod 2 skipped n1 (cpu 500m left) although d2 is free there: one exact call */
    dra_engine_node_resources(x.e, 0, nr);
    CHECK(nr[0] == 2000 && nr[1] == (INT64_C(4) << 30) && nr[2] == 1500 && nr[3] == (INT64_C(3) << 30));
    CHECK(dra_engine_admits(x.e, pod, 0)); /* the device summary still admits n1 */
    r = place(&x, pod, DRA_ENGINE_FIRST_FIT, 0);
    CHECK_EQ_U64(r.kind, DRA_OUTCOME_UNSATISFIABLE);
    CHECK_EQ_U64(r.exact_calls + r.direct_calls, 0);
    all_policies_agree(&x, pod);
    dra_engine_res_short(x.e, pod, &sc, &sm);
    CHECK_EQ_U64(sc, 3); /* 500m, 1000m, 0 left */
    CHECK_EQ_U64(sm, 1); /* n1: 1Gi left; n2 unlimited; n3 10Gi left */
    /* a plan without requests ignores cpu: n1's free device */
    r = place(&x, bare, DRA_ENGINE_FIRST_FIT, 0);
    CHECK_EQ_U64(r.node, 0);
    /* release the first pod: n1 fits again */
    CHECK_OK(dra_engine_release_pod(x.e, pod, placed[0].node, placed[0].allocations, placed[0].n));
    dra_engine_node_resources(x.e, 0, nr);
    CHECK(nr[2] == 0 && nr[3] == 0);
    r = place(&x, pod, DRA_ENGINE_FIRST_FIT, 0);
    CHECK_EQ_U64(r.kind, DRA_OUTCOME_ALLOCATED);
    CHECK_EQ_U64(r.node, 0);
    all_policies_agree(&x, pod);
    check_summaries(&x);
    for (int i = 0; i < 5; i++)
        dra_arena_fini(&keep[i]);

    /* an allocatable that is not a quantity: set-up fails naming the node */
    x.m.nodes[2]->alloc_memory = "lots";
    dra_engine_t *e2 = NULL;
    dra_diag_t d;
    dra_diag_clear(&d);
    CHECK(dra_engine_new(&x.m, x.t, &x.f, x.st, x.cel, &x.fast, NULL, &e2, &d) == DRA_EINVAL);
    CHECK(e2 == NULL);
    CHECK(strstr(d.msg, "n3") && strstr(d.msg, "memory") && strstr(d.msg, "lots"));
    fx_fini(&x);
}

/* allocationMode All (DRA-SEMANTICS 2.8): the request takes every selectable device the node
 * sees and fails when one of them is in use or does not fit its counters, or when there is none.
 * n1 {d1 x, d2 x}, n2 {d1 x, d2 y}, n3 {d1 x}. */
static const char k_all[] =
    NODE("n1") NODE("n2") NODE("n3") CLASS("a", "drv")
    SLICE("s1", "n1", "[" DEV("d1", "x") ", " DEV("d2", "x") "]")
    SLICE("s2", "n2", "[" DEV("d1", "x") ", " DEV("d2", "y") "]")
    SLICE("s3", "n3", "[" DEV("d1", "x") "]")
    CLAIM("one", "{requests: [{name: r, exactly: {deviceClassName: a, count: 1}}]}")
    CLAIM("all", "{requests: [{name: r, exactly: {deviceClassName: a, allocationMode: All}}]}")
    CLAIM("allplus", "{requests: [{name: all, exactly: {deviceClassName: a, allocationMode: All}},"
                     " {name: more, exactly: {deviceClassName: a, count: 1}}]}")
    CLAIM("allx", "{requests: [{name: all, exactly: {deviceClassName: a, allocationMode: All,"
                  " selectors: [{cel: {expression: 'device.attributes[\"drv\"].model == \"x\"'}}]}},"
                  " {name: more, exactly: {deviceClassName: a, count: 1}}]}")
    CLAIM("prio", "{requests: [{name: r, firstAvailable: [{name: every, deviceClassName: a,"
                  " allocationMode: All}, {name: single, deviceClassName: a, count: 1}]}]}")
    CLAIM("admin", "{requests: [{name: r, exactly: {deviceClassName: a, allocationMode: All,"
                   " adminAccess: true}}]}")
    CLAIM("pair", "{requests: [{name: r, exactly: {deviceClassName: a, allocationMode: All}}],"
                  " constraints: [{matchAttribute: drv/model}]}");

static void every_policy(fx_t *x, const uint32_t *ps, size_t n)
{
    for (size_t i = 0; i < n; i++)
        all_policies_agree(x, ps[i]);
}

static void test_all_mode_partially_used_nodes(void)
{
    fx_t x;
    if (!fx_open(&x, k_all, DRA_RELEASE_1_36, NULL))
        return;
    uint32_t one = fx_plan(&x, "one"), all = fx_plan(&x, "all"), allplus = fx_plan(&x, "allplus"),
             allx = fx_plan(&x, "allx"), prio = fx_plan(&x, "prio"), admin = fx_plan(&x, "admin"),
             pair = fx_plan(&x, "pair");
    const uint32_t ps[] = {one, all, allplus, allx, prio, admin, pair};
    CHECK(dra_engine_plan_indexed(x.e, all));
    CHECK(dra_engine_plan_indexed(x.e, allplus));
    CHECK(dra_engine_plan_indexed(x.e, allx));
    CHECK(dra_engine_plan_indexed(x.e, prio));
    CHECK(dra_engine_plan_indexed(x.e, admin));
    CHECK(!dra_engine_plan_indexed(x.e, pair)); /* a constraint violation would be Fatal */
    for (uint32_t n = 0; n < 3; n++)
        CHECK(dra_engine_admits(x.e, all, n));
    every_policy(&x, ps, sizeof ps / sizeof ps[0]);
    /* All of class a plus one more of it: the All set holds every device of the class, nothing
     * is left for the second request on any node: rejected without an exact call */
    dra_engine_result_t r = place(&x, allplus, DRA_ENGINE_FIRST_FIT, 0);
    CHECK_EQ_U64(r.kind, DRA_OUTCOME_UNSATISFIABLE);
    CHECK_EQ_U64(r.exact_calls + r.direct_calls, 0);
    CHECK_EQ_U64(r.path, DRA_ENGINE_PATH_REJECT);
    /* All of the x devices plus one more: only n2 has a device outside the All set */
    CHECK(!dra_engine_admits(x.e, allx, 0));
    CHECK(dra_engine_admits(x.e, allx, 1));
    CHECK(!dra_engine_admits(x.e, allx, 2));
    r = place(&x, allx, DRA_ENGINE_FIRST_FIT, 0);
    CHECK_EQ_U64(r.kind, DRA_OUTCOME_ALLOCATED);
    CHECK_EQ_U64(r.node, 1);
    CHECK_EQ_U64(r.exact_calls + r.direct_calls, 1);

    /* one device of n1 in use: All cannot succeed there */
    dra_arena_t keep[2];
    dra_arena_init(&keep[0], 0);
    dra_arena_init(&keep[1], 0);
    dra_engine_result_t u = place_into(&x, one, DRA_ENGINE_FIRST_FIT, 0, &keep[0]);
    CHECK_EQ_U64(u.node, 0);
    CHECK_OK(dra_engine_commit(x.e, u.node, u.allocations, u.n));
    check_summaries(&x);
    CHECK(!dra_engine_admits(x.e, all, 0));
    CHECK(dra_engine_admits(x.e, all, 1));
    CHECK(dra_engine_admits(x.e, admin, 0)); /* adminAccess takes allocated devices */
    CHECK(dra_engine_admits(x.e, prio, 0));  /* the fallback alternative fits on n1 */
    r = place(&x, all, DRA_ENGINE_FIRST_FIT, 0);
    CHECK_EQ_U64(r.kind, DRA_OUTCOME_ALLOCATED);
    CHECK_EQ_U64(r.node, 1);
    CHECK_EQ_U64(r.exact_calls + r.direct_calls, 1);
    r = place(&x, prio, DRA_ENGINE_FIRST_FIT, 0);
    CHECK_EQ_U64(r.node, 0);
    r = place(&x, admin, DRA_ENGINE_FIRST_FIT, 0);
    CHECK_EQ_U64(r.kind, DRA_OUTCOME_ALLOCATED);
    CHECK_EQ_U64(r.node, 0);
    every_policy(&x, ps, sizeof ps / sizeof ps[0]);
    /* All on n2 too: n3 is the only candidate */
    dra_engine_result_t v = place_into(&x, all, DRA_ENGINE_FIRST_FIT, 0, &keep[1]);
    CHECK_EQ_U64(v.node, 1);
    CHECK_OK(dra_engine_commit(x.e, v.node, v.allocations, v.n));
    check_summaries(&x);
    CHECK(!dra_engine_admits(x.e, all, 1));
    CHECK(!dra_engine_admits(x.e, allx, 1));
    r = place(&x, all, DRA_ENGINE_BEST_FIT, 0);
    CHECK_EQ_U64(r.node, 2);
    CHECK_EQ_U64(r.exact_calls + r.direct_calls, 1);
    every_policy(&x, ps, sizeof ps / sizeof ps[0]);
    /* release: n1 admits again */
    CHECK_OK(dra_engine_release(x.e, u.node, u.allocations, u.n));
    CHECK(dra_engine_admits(x.e, all, 0));
    check_summaries(&x);
    every_policy(&x, ps, sizeof ps / sizeof ps[0]);
    CHECK_OK(dra_engine_release(x.e, v.node, v.allocations, v.n));
    check_summaries(&x);
    dra_arena_fini(&keep[0]);
    dra_arena_fini(&keep[1]);
    fx_fini(&x);
}

/* Partitionable devices on n1: 8Gi of counters, wide (6Gi) and narrow (4Gi); n2 has a plain
 * narrow device. With wide in use, narrow is free but does not fit its counters: All of the
 * narrow devices cannot succeed on n1. */
static const char k_all_counters[] =
    NODE("n1") NODE("n2") CLASS("a", "drv")
    COUNTER_POOL_N1("8Gi")
    "  - {name: wide, attributes: {model: {string: w}},\n"
    "     consumesCounters: [{counterSet: set, counters: {mem: {value: 6Gi}}}]}\n"
    "  - {name: narrow, attributes: {model: {string: n}},\n"
    "     consumesCounters: [{counterSet: set, counters: {mem: {value: 4Gi}}}]}\n---\n"
    SLICE("s2", "n2", "[" DEV("narrow", "n") "]")
    CLAIM("wide", "{requests: [{name: r, exactly: {deviceClassName: a, count: 1, selectors:"
                  " [{cel: {expression: 'device.attributes[\"drv\"].model == \"w\"'}}]}}]}")
    CLAIM("narrow", "{requests: [{name: r, exactly: {deviceClassName: a, allocationMode: All,"
                    " selectors: [{cel: {expression: 'device.attributes[\"drv\"].model == \"n\"'}}]}}]}");

static void test_all_mode_counters(void)
{
    fx_t x;
    if (!fx_open(&x, k_all_counters, DRA_RELEASE_1_36, "DRAPartitionableDevices=true"))
        return;
    uint32_t wide = fx_plan(&x, "wide"), narrow = fx_plan(&x, "narrow");
    const uint32_t ps[] = {wide, narrow};
    CHECK(dra_engine_plan_indexed(x.e, narrow));
    CHECK(dra_engine_admits(x.e, narrow, 0));
    every_policy(&x, ps, 2);
    dra_arena_t keep;
    dra_arena_init(&keep, 0);
    dra_engine_result_t w = place_into(&x, wide, DRA_ENGINE_FIRST_FIT, 0, &keep);
    CHECK_EQ_U64(w.kind, DRA_OUTCOME_ALLOCATED);
    CHECK_EQ_U64(w.node, 0);
    if (w.kind == DRA_OUTCOME_ALLOCATED) {
        CHECK_OK(dra_engine_commit(x.e, w.node, w.allocations, w.n));
        check_summaries(&x);
        CHECK(!dra_engine_admits(x.e, narrow, 0));
        dra_engine_result_t r = place(&x, narrow, DRA_ENGINE_FIRST_FIT, 0);
        CHECK_EQ_U64(r.node, 1);
        CHECK_EQ_U64(r.exact_calls + r.direct_calls, 1);
        every_policy(&x, ps, 2);
        CHECK_OK(dra_engine_release(x.e, w.node, w.allocations, w.n));
        CHECK(dra_engine_admits(x.e, narrow, 0));
        check_summaries(&x);
    }
    dra_arena_fini(&keep);
    fx_fini(&x);
}

/* A pool whose two slices are on two nodes is incomplete from each of them before 1.35: an All
 * request fails there up front (NodeFailure; Fatal in the snapshot), whatever the summaries say.
 * Plans with an All request stay brute force in such a cluster, and decide as the reference. */
static const char k_all_split[] =
    NODE("n1") NODE("n2") NODE("n3") CLASS("a", "drv")
    "apiVersion: resource.k8s.io/v1\nkind: ResourceSlice\nmetadata: {name: half-1}\n"
    "spec:\n  driver: drv\n  pool: {name: split, generation: 1, resourceSliceCount: 2}\n"
    "  nodeName: n1\n  devices: [{name: d1}]\n---\n"
    "apiVersion: resource.k8s.io/v1\nkind: ResourceSlice\nmetadata: {name: half-2}\n"
    "spec:\n  driver: drv\n  pool: {name: split, generation: 1, resourceSliceCount: 2}\n"
    "  nodeName: n2\n  devices: [{name: d2}]\n---\n"
    SLICE("s3", "n3", "[{name: d1}]")
    CLAIM("one", "{requests: [{name: r, exactly: {deviceClassName: a, count: 1}}]}")
    CLAIM("all", "{requests: [{name: r, exactly: {deviceClassName: a, allocationMode: All}}]}");

static void test_all_mode_split_pool(void)
{
    static const dra_release_t rels[] = {DRA_RELEASE_1_34, DRA_RELEASE_1_35, DRA_RELEASE_1_36};
    for (size_t i = 0; i < 3; i++) {
        fx_t x;
        if (!fx_open(&x, k_all_split, rels[i], NULL))
            return;
        uint32_t one = fx_plan(&x, "one"), all = fx_plan(&x, "all");
        CHECK(dra_engine_plan_indexed(x.e, one));
        CHECK(!dra_engine_plan_indexed(x.e, all));
        const uint32_t ps[] = {one, all};
        every_policy(&x, ps, 2);
        dra_engine_result_t r = place(&x, all, DRA_ENGINE_FIRST_FIT, 0);
        if (rels[i] == DRA_RELEASE_1_34)
            CHECK(r.kind != DRA_OUTCOME_ALLOCATED || r.node == 2);
        fx_fini(&x);
    }
}

/* Each node's pool in the 1.35 layout (a sharedCounters slice and a devices slice, both naming
 * the node) with DRAPartitionableDevices off: GatherPools skips the counter slice, so in 1.34 (no
 * completeness re-check) the pool is incomplete wherever its devices are gathered and an All
 * request fails there up front (NodeFailure), whatever the summaries say; from 1.35 on the
 * re-check counts both slices and the pool is complete. (alloc fuzzer finding: the engine
 * rejected the node whose All set was in use and answered Unsatisfiable, the reference
 * NodeFailure "... is currently being updated".) */
#define CSPOOL(n)                                                                                  \
    "apiVersion: resource.k8s.io/v1\nkind: ResourceSlice\nmetadata: {name: " n "-counters}\n"     \
    "spec:\n  driver: drv\n  pool: {name: " n ", generation: 1, resourceSliceCount: 2}\n"          \
    "  nodeName: " n "\n  sharedCounters: [{name: set, counters: {mem: {value: 8Gi}}}]\n---\n"    \
    "apiVersion: resource.k8s.io/v1\nkind: ResourceSlice\nmetadata: {name: " n "-devices}\n"      \
    "spec:\n  driver: drv\n  pool: {name: " n ", generation: 1, resourceSliceCount: 2}\n"          \
    "  nodeName: " n "\n  devices: [{name: d1}, {name: d2}]\n---\n"
static const char k_all_counter_slice[] =
    NODE("n1") NODE("n2") CLASS("a", "drv") CSPOOL("n1") CSPOOL("n2")
    CLAIM("one", "{requests: [{name: r, exactly: {deviceClassName: a, count: 1}}]}")
    CLAIM("all", "{requests: [{name: r, exactly: {deviceClassName: a, allocationMode: All}}]}")
    CLAIM("admin", "{requests: [{name: r, exactly: {deviceClassName: a, allocationMode: All,"
                   " adminAccess: true}}]}")
    CLAIM("prio", "{requests: [{name: r, firstAvailable: [{name: big, deviceClassName: a,"
                  " count: 1}, {name: small, deviceClassName: a, allocationMode: All}]}]}");

/* The same with the pool network-attached: both slices for all nodes, beside local devices. */
#define CSNET(name, extra)                                                                         \
    "apiVersion: resource.k8s.io/v1\nkind: ResourceSlice\nmetadata: {name: " name "}\n"           \
    "spec:\n  driver: drv\n  pool: {name: net, generation: 1, resourceSliceCount: 2}\n"            \
    "  allNodes: true\n" extra "---\n"
static const char k_all_counter_slice_net[] =
    NODE("n1") NODE("n2") CLASS("a", "drv") SLICE("s1", "n1", "[{name: d1}, {name: d2}]")
    SLICE("s2", "n2", "[{name: d1}, {name: d2}]")
    CSNET("net-counters", "  sharedCounters: [{name: set, counters: {mem: {value: 8Gi}}}]\n")
    CSNET("net-devices", "  devices: [{name: n1}]\n")
    CLAIM("one", "{requests: [{name: r, exactly: {deviceClassName: a, count: 1}}]}")
    CLAIM("all", "{requests: [{name: r, exactly: {deviceClassName: a, allocationMode: All}}]}")
    CLAIM("admin", "{requests: [{name: r, exactly: {deviceClassName: a, allocationMode: All,"
                   " adminAccess: true}}]}")
    CLAIM("prio", "{requests: [{name: r, firstAvailable: [{name: big, deviceClassName: a,"
                  " count: 1}, {name: small, deviceClassName: a, allocationMode: All}]}]}");

static void test_all_mode_counter_slice_gate_off(void)
{
    static const dra_release_t rels[] = {DRA_RELEASE_1_34, DRA_RELEASE_1_35, DRA_RELEASE_1_36};
    for (size_t i = 0; i < 6; i++) {
        fx_t x;
        if (!fx_open(&x, i < 3 ? k_all_counter_slice : k_all_counter_slice_net, rels[i % 3],
                     "DRAPartitionableDevices=false"))
            return;
        bool v134 = rels[i % 3] == DRA_RELEASE_1_34;
        uint32_t one = fx_plan(&x, "one"), all = fx_plan(&x, "all"), admin = fx_plan(&x, "admin"),
                 prio = fx_plan(&x, "prio");
        CHECK(dra_engine_plan_indexed(x.e, one));
        /* 1.34: every plan with an All request (adminAccess and a subrequest too) is brute
         * force; the re-check of 1.35 makes the pools complete */
        CHECK(dra_engine_plan_indexed(x.e, all) == !v134);
        CHECK(dra_engine_plan_indexed(x.e, admin) == !v134);
        CHECK(dra_engine_plan_indexed(x.e, prio) == !v134);
        const uint32_t ps[] = {one, all, admin, prio};
        every_policy(&x, ps, 4);
        /* a device of n1 in use (the network one, first in search order, in the second model):
         * the summaries would skip n1 for All (every node with the network one) */
        dra_arena_t keep;
        dra_arena_init(&keep, 0);
        dra_engine_result_t u = place_into(&x, one, DRA_ENGINE_FIRST_FIT, 0, &keep);
        CHECK_EQ_U64(u.kind, DRA_OUTCOME_ALLOCATED);
        CHECK_EQ_U64(u.node, 0);
        if (u.kind == DRA_OUTCOME_ALLOCATED) {
            CHECK_OK(dra_engine_commit(x.e, u.node, u.allocations, u.n));
            check_summaries(&x);
            dra_engine_result_t r = place(&x, all, DRA_ENGINE_FIRST_FIT, 0);
            CHECK_EQ_U64(r.kind, v134 ? DRA_OUTCOME_NODE_FAILURE
                                 : i < 3 ? DRA_OUTCOME_ALLOCATED
                                         : DRA_OUTCOME_UNSATISFIABLE);
            if (v134)
                CHECK(strstr(r.msg, "is currently being updated") != NULL);
            else if (i < 3)
                CHECK_EQ_U64(r.node, 1);
            every_policy(&x, ps, 4);
            CHECK_OK(dra_engine_release(x.e, u.node, u.allocations, u.n));
            check_summaries(&x);
        }
        dra_arena_fini(&keep);
        fx_fini(&x);
    }
}

/* Consumable capacity (DRAConsumableCapacity): n1 and n2 each have one multi-allocatable device
 * with 10Gi of memory; a request for 6Gi fits once per device. After a share of n1's device the
 * capacity left (4Gi) is short: the capacity summary skips n1 (the availability summary alone
 * admits a multi-allocatable device forever); a 3Gi request still fits there. */
#define SHDEV(n) "{name: " n ", allowMultipleAllocations: true, capacity: {memory: {value: 10Gi}}}"
static const char k_cap[] =
    NODE("n1") NODE("n2") CLASS("a", "drv")
    SLICE("s1", "n1", "[" SHDEV("g") "]")
    SLICE("s2", "n2", "[" SHDEV("g") "]")
    CLAIM("six", "{requests: [{name: r, exactly: {deviceClassName: a, count: 1,"
                 " capacity: {requests: {memory: 6Gi}}}}]}")
    CLAIM("three", "{requests: [{name: r, exactly: {deviceClassName: a, count: 1,"
                   " capacity: {requests: {memory: 3Gi}}}}]}")
    CLAIM("plain", "{requests: [{name: r, exactly: {deviceClassName: a, count: 1}}]}");

/* Two multi-allocatable devices of one model on n1; a pair of 6Gi shares of one model. */
#define SHDEVM(n) "{name: " n ", allowMultipleAllocations: true, attributes: {model: {string: x}},"    \
                  " capacity: {memory: {value: 10Gi}}}"
static const char k_cap_pair[] =
    NODE("n1") NODE("n2") CLASS("a", "drv")
    SLICE("s1", "n1", "[" SHDEVM("g1") ", " SHDEVM("g2") "]")
    SLICE("s2", "n2", "[" SHDEVM("g1") ", " SHDEVM("g2") "]")
    CLAIM("six", "{requests: [{name: r, exactly: {deviceClassName: a, count: 1,"
                 " capacity: {requests: {memory: 6Gi}}}}]}")
    CLAIM("pair", "{requests: [{name: r, exactly: {deviceClassName: a, count: 2,"
                  " capacity: {requests: {memory: 6Gi}}}}], constraints: [{matchAttribute: drv/model}]}");

static void test_capacity_summary_groups(void)
{
    fx_t x;
    if (!fx_open(&x, k_cap_pair, DRA_RELEASE_1_36, "DRAConsumableCapacity=true"))
        return;
    uint32_t six = fx_plan(&x, "six"), pair = fx_plan(&x, "pair");
    const uint32_t ps[] = {six, pair};
    CHECK(dra_engine_admits(x.e, pair, 0));
    dra_arena_t keep;
    dra_arena_init(&keep, 0);
    dra_engine_result_t h = place_into(&x, six, DRA_ENGINE_FIRST_FIT, 0, &keep);
    CHECK_EQ_U64(h.node, 0);
    CHECK_OK(dra_engine_commit(x.e, h.node, h.allocations, h.n));
    check_summaries(&x);
    /* one device of the model group keeps 4Gi: the group has one device that fits */
    CHECK(!dra_engine_admits(x.e, pair, 0));
    dra_engine_result_t r = place(&x, pair, DRA_ENGINE_FIRST_FIT, 0);
    CHECK_EQ_U64(r.node, 1);
    CHECK_EQ_U64(r.exact_calls + r.direct_calls, 1);
    every_policy(&x, ps, 2);
    CHECK_OK(dra_engine_release(x.e, h.node, h.allocations, h.n));
    CHECK(dra_engine_admits(x.e, pair, 0));
    check_summaries(&x);
    dra_arena_fini(&keep);
    fx_fini(&x);
}

static void test_capacity_summary(void)
{
    fx_t x;
    if (!fx_open(&x, k_cap, DRA_RELEASE_1_36, "DRAConsumableCapacity=true"))
        return;
    uint32_t six = fx_plan(&x, "six"), three = fx_plan(&x, "three"), plain = fx_plan(&x, "plain");
    const uint32_t ps[] = {six, three, plain};
    CHECK(dra_engine_plan_indexed(x.e, six));
    every_policy(&x, ps, 3);
    dra_arena_t keep[3];
    dra_engine_result_t held[3];
    for (int i = 0; i < 3; i++)
        dra_arena_init(&keep[i], 0);
    held[0] = place_into(&x, six, DRA_ENGINE_FIRST_FIT, 0, &keep[0]);
    CHECK_EQ_U64(held[0].kind, DRA_OUTCOME_ALLOCATED);
    CHECK_EQ_U64(held[0].node, 0);
    CHECK_OK(dra_engine_commit(x.e, held[0].node, held[0].allocations, held[0].n));
    check_summaries(&x);
    CHECK(!dra_engine_admits(x.e, six, 0));
    CHECK(dra_engine_admits(x.e, three, 0));
    dra_engine_result_t r = place(&x, six, DRA_ENGINE_FIRST_FIT, 0);
    CHECK_EQ_U64(r.node, 1);
    CHECK_EQ_U64(r.exact_calls + r.direct_calls, 1);
    every_policy(&x, ps, 3);
    /* n2 too: no node left for 6Gi, rejected without an exact call; 3Gi still fits on n1 */
    held[1] = place_into(&x, six, DRA_ENGINE_FIRST_FIT, 0, &keep[1]);
    CHECK_EQ_U64(held[1].node, 1);
    CHECK_OK(dra_engine_commit(x.e, held[1].node, held[1].allocations, held[1].n));
    r = place(&x, six, DRA_ENGINE_FIRST_FIT, 0);
    CHECK_EQ_U64(r.kind, DRA_OUTCOME_UNSATISFIABLE);
    CHECK_EQ_U64(r.exact_calls + r.direct_calls, 0);
    held[2] = place_into(&x, three, DRA_ENGINE_FIRST_FIT, 0, &keep[2]);
    CHECK_EQ_U64(held[2].node, 0);
    CHECK_OK(dra_engine_commit(x.e, held[2].node, held[2].allocations, held[2].n));
    CHECK(!dra_engine_admits(x.e, three, 0)); /* 1Gi left */
    check_summaries(&x);
    every_policy(&x, ps, 3);
    /* releases give the capacity back */
    CHECK_OK(dra_engine_release(x.e, held[0].node, held[0].allocations, held[0].n));
    CHECK(dra_engine_admits(x.e, three, 0));
    CHECK(dra_engine_admits(x.e, six, 0)); /* the 3Gi share left 7Gi */
    check_summaries(&x);
    every_policy(&x, ps, 3);
    CHECK_OK(dra_engine_release(x.e, held[2].node, held[2].allocations, held[2].n));
    CHECK(dra_engine_admits(x.e, six, 0));
    CHECK(!dra_engine_admits(x.e, six, 1)); /* n2's 6Gi share is still there */
    CHECK_OK(dra_engine_release(x.e, held[1].node, held[1].allocations, held[1].n));
    check_summaries(&x);
    for (int i = 0; i < 3; i++)
        dra_arena_fini(&keep[i]);
    fx_fini(&x);
}

/* A multi-allocatable partitionable device: the search skips its counters while it has capacity
 * in use, so its own consumption (counted once it is in use) must not make it unavailable: the
 * second share goes to the same device. */
static const char k_cap_counters[] =
    NODE("n1") CLASS("a", "drv")
    COUNTER_POOL_N1("8Gi")
    "  - {name: m, allowMultipleAllocations: true, capacity: {memory: {value: 10Gi}},\n"
    "     consumesCounters: [{counterSet: set, counters: {mem: {value: 6Gi}}}]}\n---\n"
    CLAIM("share", "{requests: [{name: r, exactly: {deviceClassName: a, count: 1,"
                   " capacity: {requests: {memory: 3Gi}}}}]}")
    CLAIM("any", "{requests: [{name: r, exactly: {deviceClassName: a, count: 1}}]}");

static void test_multi_allocatable_counters(void)
{
    fx_t x;
    if (!fx_open(&x, k_cap_counters, DRA_RELEASE_1_36, "DRAConsumableCapacity=true"))
        return;
    uint32_t share = fx_plan(&x, "share"), any = fx_plan(&x, "any");
    const uint32_t ps[] = {share, any};
    dra_arena_t keep;
    dra_arena_init(&keep, 0);
    dra_engine_result_t h = place_into(&x, share, DRA_ENGINE_FIRST_FIT, 0, &keep);
    CHECK_EQ_U64(h.kind, DRA_OUTCOME_ALLOCATED);
    if (h.kind == DRA_OUTCOME_ALLOCATED) {
        CHECK_OK(dra_engine_commit(x.e, h.node, h.allocations, h.n));
        check_summaries(&x);
        CHECK(dra_engine_admits(x.e, share, 0));
        dra_engine_result_t r = place(&x, share, DRA_ENGINE_FIRST_FIT, 0);
        CHECK_EQ_U64(r.kind, DRA_OUTCOME_ALLOCATED);
        every_policy(&x, ps, 2);
        CHECK_OK(dra_engine_release(x.e, h.node, h.allocations, h.n));
        check_summaries(&x);
    }
    dra_arena_fini(&keep);
    fx_fini(&x);
}

/* A charge's siblings are refreshed a row at a time (summary.c, refresh_rows:
 * dra__refresh_lean), which reads a sibling's flags only when it is in use or its counters do not fit: there a
 * multi-allocatable sibling stays available under DRAConsumableCapacity (its counters are not
 * checked) and goes unavailable without it, and a sibling in use stays unavailable. Every
 * commit and release of the exclusive siblings, in turn and with the multi-allocatable one
 * shared or not, against the summaries recomputed; the share's placement with x and y in use
 * against the reference's. */
#define KDEV(n, amount, extra)                                                                     \
    "  - {name: " n ", attributes: {kind: {string: " n "}}," extra "\n"                              \
    "     consumesCounters: [{counterSet: set, counters: {mem: {value: " amount "}}}]}\n"
#define KPICK(n)                                                                                   \
    CLAIM(n, "{requests: [{name: r, exactly: {deviceClassName: a, count: 1, selectors:"           \
             " [{cel: {expression: 'device.attributes[\"drv\"].kind == \"" n "\"'}}]}}]}")
#define K_LEAN_SIBLINGS(total)                                                                     \
    NODE("n1") CLASS("a", "drv") COUNTER_POOL_N1(total)                                            \
    KDEV("m", "6Gi", " allowMultipleAllocations: true, capacity: {memory: {value: 10Gi}},")        \
    KDEV("x", "4Gi", "") KDEV("y", "2Gi", "") "---\n" KPICK("x") KPICK("y")                       \
    CLAIM("share", "{requests: [{name: r, exactly: {deviceClassName: a, count: 1,"                 \
                   " capacity: {requests: {memory: 3Gi}}, selectors: [{cel: {expression:"          \
                   " 'device.attributes[\"drv\"].kind == \"m\"'}}]}}]}")
/* 8Gi: x's commit leaves 4Gi, m (free) stops fitting; 12Gi with m shared: 6Gi left, then x's
 * commit leaves 2Gi and m (in use) stops fitting */
static const char k_lean_8[] = K_LEAN_SIBLINGS("8Gi");
static const char k_lean_12[] = K_LEAN_SIBLINGS("12Gi");

static void test_lean_sibling_refresh(void)
{
    static const struct {
        const char *yaml;
        bool cc, shared;
    } cases[] = {{k_lean_8, false, false}, {k_lean_8, true, false}, {k_lean_12, true, true}};
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
        fx_t x;
        if (!fx_open(&x, cases[c].yaml, DRA_RELEASE_1_36,
                     cases[c].cc ? "DRAConsumableCapacity=true" : NULL))
            return;
        dra_arena_t keep[3];
        dra_engine_result_t h[3];
        uint32_t n = 0, plans[3] = {cases[c].cc ? fx_plan(&x, "share") : 0, fx_plan(&x, "x"),
                                    fx_plan(&x, "y")};
        for (uint32_t i = cases[c].shared ? 0 : 1; i < 3; i++) {
            dra_arena_init(&keep[n], 0);
            h[n] = place_into(&x, plans[i], DRA_ENGINE_FIRST_FIT, 0, &keep[n]);
            CHECK_MSG(h[n].kind == DRA_OUTCOME_ALLOCATED, "case %zu plan %u", c, i);
            if (h[n].kind != DRA_OUTCOME_ALLOCATED) {
                dra_arena_fini(&keep[n]);
                continue;
            }
            CHECK_OK(dra_engine_commit(x.e, h[n].node, h[n].allocations, h[n].n));
            check_summaries(&x);
            n++;
        }
        /* m's counters do not fit now: a share still fits it under DRAConsumableCapacity */
        if (cases[c].cc)
            (void)place(&x, plans[0], DRA_ENGINE_FIRST_FIT, 0);
        for (uint32_t i = 0; i < n; i++) { /* released in commit order */
            CHECK_OK(dra_engine_release(x.e, h[i].node, h[i].allocations, h[i].n));
            check_summaries(&x);
            dra_arena_fini(&keep[i]);
        }
        fx_fini(&x);
    }
}

/* ---- direct answers (core/engine/direct.c) ------------------------------------------------------- */

#define TDEV(n, model, extra) "{name: " n ", attributes: {model: {string: " model "}}" extra "}"

static const char k_direct[] =
    NODE("n1") NODE("n2") CLASS("a", "drv")
    SLICE("s1", "n1", "[" TDEV("g0", "x", "") ", " TDEV("g1", "y", "") ", "
                      TDEV("g2", "y", ", taints: [{key: k, effect: NoSchedule}]") ", "
                      TDEV("g3", "y", "") ", " TDEV("g4", "z", "") "]")
    SLICE("s2", "n2", "[" TDEV("h0", "x", "") ", " TDEV("h1", "x", "") "]")
    CLAIM("one", "{requests: [{name: r, exactly: {deviceClassName: a, count: 1}}]}")
    CLAIM("three", "{requests: [{name: r, exactly: {deviceClassName: a, count: 3}}]}")
    CLAIM("same2", "{requests: [{name: r, exactly: {deviceClassName: a, count: 2}}],"
                   " constraints: [{matchAttribute: drv/model}]}")
    CLAIM("same2tol", "{requests: [{name: r, exactly: {deviceClassName: a, count: 2, tolerations:"
                      " [{key: k, operator: Exists, effect: NoSchedule}]}}],"
                      " constraints: [{matchAttribute: drv/model}]}")
    CLAIM("same1", "{requests: [{name: r, exactly: {deviceClassName: a, count: 1}}],"
                   " constraints: [{matchAttribute: drv/model}]}")
    CLAIM("nosuch", "{requests: [{name: r, exactly: {deviceClassName: a, count: 2}}],"
                    " constraints: [{matchAttribute: drv/nosuch}]}")
    CLAIM("pair", "{requests: [{name: a, exactly: {deviceClassName: a, count: 1}},"
                  " {name: b, exactly: {deviceClassName: a, count: 1}}]}")
    CLAIM("pairm", "{requests: [{name: a, exactly: {deviceClassName: a, count: 1}},"
                   " {name: b, exactly: {deviceClassName: a, count: 1}}],"
                   " constraints: [{matchAttribute: drv/model}]}")
    CLAIM("prio", "{requests: [{name: r, firstAvailable: [{name: big, deviceClassName: a, count: 6},"
                  " {name: small, deviceClassName: a, count: 2}]}]}");

/* The devices of a placement, "d1,d2". */
static const char *devices_of(const dra_engine_result_t *r, char *buf, size_t len)
{
    buf[0] = 0;
    size_t at = 0;
    for (uint32_t i = 0; r->kind == DRA_OUTCOME_ALLOCATED && i < r->n; i++)
        for (uint32_t j = 0; j < r->allocations[i]->nresults; j++)
            at += (size_t)snprintf(buf + at, at < len ? len - at : 0, "%s%s", at ? "," : "",
                                   r->allocations[i]->results[j].device);
    return buf;
}

static void test_direct_answers(void)
{
    fx_t x;
    if (!fx_open(&x, k_direct, DRA_RELEASE_1_36, NULL))
        return;
    char buf[128];
    /* first k: g0 on n1, then the untainted ones in order (g2 is tainted) */
    dra_engine_result_t r = place(&x, fx_plan(&x, "one"), DRA_ENGINE_FIRST_FIT, 0);
    CHECK_EQ_U64(r.served, DRA_SERVED_DIRECT_FIRST);
    CHECK_EQ_U64(r.direct_calls, 1);
    CHECK_EQ_U64(r.exact_calls, 0);
    CHECK_STREQ(devices_of(&r, buf, sizeof buf), "g0");
    CHECK_STREQ(r.allocations[0]->results[0].request, "r");
    CHECK(r.allocations[0]->node_selector && r.allocations[0]->node_selector->nterms == 1);
    r = place(&x, fx_plan(&x, "three"), DRA_ENGINE_FIRST_FIT, 0);
    CHECK_EQ_U64(r.served, DRA_SERVED_DIRECT_FIRST);
    CHECK_STREQ(devices_of(&r, buf, sizeof buf), "g0,g1,g3");
    /* matchAttribute: the greedy path (x) stops short, the first group with two untainted
     * members is y: g1, g3; tolerating the taint, g1, g2 */
    r = place(&x, fx_plan(&x, "same2"), DRA_ENGINE_FIRST_FIT, 0);
    CHECK_EQ_U64(r.served, DRA_SERVED_DIRECT_MATCH);
    CHECK_EQ_U64(r.node, 0);
    CHECK_STREQ(devices_of(&r, buf, sizeof buf), "g1,g3");
    r = place(&x, fx_plan(&x, "same2tol"), DRA_ENGINE_FIRST_FIT, 0);
    CHECK_STREQ(devices_of(&r, buf, sizeof buf), "g1,g2");
    r = place(&x, fx_plan(&x, "same1"), DRA_ENGINE_FIRST_FIT, 0);
    CHECK_EQ_U64(r.served, DRA_SERVED_DIRECT_MATCH);
    CHECK_STREQ(devices_of(&r, buf, sizeof buf), "g0");
    /* an attribute nobody has: unsatisfiable everywhere (no node admits it either) */
    r = place(&x, fx_plan(&x, "nosuch"), DRA_ENGINE_FIRST_FIT, 0);
    CHECK_EQ_U64(r.kind, DRA_OUTCOME_UNSATISFIABLE);
    /* two requests of one class without a constraint: one candidate list (direct_multi.c),
     * its first two devices in request order (g2 is tainted) */
    uint32_t pair = fx_plan(&x, "pair");
    r = place(&x, pair, DRA_ENGINE_FIRST_FIT, 0);
    CHECK_EQ_U64(r.served, DRA_SERVED_DIRECT_REQUESTS);
    CHECK_STREQ(devices_of(&r, buf, sizeof buf), "g0,g1");
    /* two requests under one matchAttribute: g0 (x) has no partner, g1 (y) pairs with g3 (g2 is
     * tainted) */
    r = place(&x, fx_plan(&x, "pairm"), DRA_ENGINE_FIRST_FIT, 0);
    CHECK_EQ_U64(r.served, DRA_SERVED_DIRECT_MATCH);
    CHECK_STREQ(devices_of(&r, buf, sizeof buf), "g1,g3");
    if (r.kind == DRA_OUTCOME_ALLOCATED && r.allocations[0]->nresults == 2) {
        CHECK_STREQ(r.allocations[0]->results[0].request, "a");
        CHECK_STREQ(r.allocations[0]->results[1].request, "b");
    }
    /* firstAvailable: six untainted devices nowhere, so the second subrequest, first two */
    r = place(&x, fx_plan(&x, "prio"), DRA_ENGINE_FIRST_FIT, 0);
    CHECK_EQ_U64(r.served, DRA_SERVED_DIRECT_FIRST);
    CHECK_STREQ(devices_of(&r, buf, sizeof buf), "g0,g1");
    if (r.kind == DRA_OUTCOME_ALLOCATED)
        CHECK_STREQ(r.allocations[0]->results[0].request, "r/small");
    /* commits move the answers: with g1 and g3 taken the y group has one member left */
    dra_arena_t keep;
    dra_arena_init(&keep, 0);
    uint32_t same2 = fx_plan(&x, "same2");
    dra_engine_result_t a = place_into(&x, same2, DRA_ENGINE_FIRST_FIT, 0, &keep);
    CHECK_OK(dra_engine_commit(x.e, a.node, a.allocations, a.n));
    r = place(&x, same2, DRA_ENGINE_FIRST_FIT, 0);
    CHECK_EQ_U64(r.node, 1); /* n1 unsatisfiable (no exact call), n2: h0, h1 */
    CHECK_STREQ(devices_of(&r, buf, sizeof buf), "h0,h1");
    CHECK_EQ_U64(r.exact_calls, 0);
    r = place(&x, fx_plan(&x, "three"), DRA_ENGINE_FIRST_FIT, 0);
    CHECK_EQ_U64(r.kind, DRA_OUTCOME_UNSATISFIABLE); /* n1 has g0, g4 left; n2 two */
    CHECK_OK(dra_engine_release(x.e, a.node, a.allocations, a.n));
    check_summaries(&x);
    /* every policy agrees with the reference placement */
    for (int pol = 0; pol <= DRA_ENGINE_RANDOM; pol++)
        for (uint32_t start = 0; start < 2; start++)
            (void)place(&x, same2, (dra_engine_policy_t)pol, start);
    /* with the allocator's shortcuts off, nothing is answered directly */
    dra_fast_set_paths(x.fast.fast, false);
    r = place(&x, fx_plan(&x, "one"), DRA_ENGINE_FIRST_FIT, 0);
    CHECK_EQ_U64(r.served, DRA_SERVED_SEARCH);
    CHECK_EQ_U64(r.direct_calls, 0);
    dra_fast_set_paths(x.fast.fast, true);
    dra_arena_fini(&keep);
    fx_fini(&x);
}

/* Claims of several requests whose candidates never meet (MULTI): GPUs of cliques and channels
 * on n1 and n2, class configs on both classes and a claim config naming one request. */
#define CFGCLASS(name, drv)                                                                        \
    "apiVersion: resource.k8s.io/v1\nkind: DeviceClass\nmetadata: {name: " name "}\n"             \
    "spec: {selectors: [{cel: {expression: 'device.driver == \"" drv "\"'}}],"                    \
    " config: [{opaque: {driver: " drv ", parameters: {from: " name "}}}]}\n---\n"
#define CSLICE(name, node, drv, devices)                                                           \
    "apiVersion: resource.k8s.io/v1\nkind: ResourceSlice\nmetadata: {name: " name "}\n"           \
    "spec:\n  driver: " drv "\n  pool: {name: " name ", generation: 1, resourceSliceCount: 1}\n"  \
    "  nodeName: " node "\n  devices: " devices "\n---\n"
#define GDEV(n, clique) "{name: " n ", attributes: {clique: {string: " clique "}}}"
static const char k_direct_multi[] =
    NODE("n1") NODE("n2") CFGCLASS("gpu", "g") CFGCLASS("ch", "c") CLASS("any", "g")
    CSLICE("g1", "n1", "g", "[" GDEV("a0", "p") ", " GDEV("a1", "q") ", " GDEV("a2", "q") "]")
    CSLICE("c1", "n1", "c", "[{name: ch0}]")
    CSLICE("g2", "n2", "g", "[" GDEV("b0", "p") ", " GDEV("b1", "p") "]")
    CSLICE("c2", "n2", "c", "[{name: ch0}, {name: ch1}]")
    CLAIM("tray", "{requests: [{name: gpus, exactly: {deviceClassName: gpu, count: 2}},"
                  " {name: channel, exactly: {deviceClassName: ch, count: 1}}],"
                  " constraints: [{matchAttribute: g/clique, requests: [gpus]}],"
                  " config: [{requests: [channel], opaque: {driver: c, parameters: {mine: 1}}}]}")
    CLAIM("gpuch", "{requests: [{name: gpu, exactly: {deviceClassName: gpu, count: 1}},"
                   " {name: ch, exactly: {deviceClassName: ch, count: 1}}]}")
    CLAIM("twogpus", "{requests: [{name: x, exactly: {deviceClassName: gpu, count: 1}},"
                     " {name: y, exactly: {deviceClassName: any, count: 1}}]}")
    CLAIM("chgpu", "{requests: [{name: ch, exactly: {deviceClassName: ch, count: 2}},"
                   " {name: gpu, exactly: {deviceClassName: gpu, count: 1}}]}");

static void test_direct_multi(void)
{
    fx_t x;
    if (!fx_open(&x, k_direct_multi, DRA_RELEASE_1_36, NULL))
        return;
    char buf[128];
    uint32_t tray = fx_plan(&x, "tray"), gpuch = fx_plan(&x, "gpuch"),
             twogpus = fx_plan(&x, "twogpus"), chgpu = fx_plan(&x, "chgpu");
    /* the clique request alone: a0 (p) has no partner on n1, a1 and a2 (q) do; then ch0 */
    dra_engine_result_t r = place(&x, tray, DRA_ENGINE_FIRST_FIT, 0);
    CHECK_EQ_U64(r.served, DRA_SERVED_DIRECT_MATCH);
    CHECK_EQ_U64(r.exact_calls, 0);
    CHECK_EQ_U64(r.node, 0);
    CHECK_STREQ(devices_of(&r, buf, sizeof buf), "a1,a2,ch0");
    if (r.kind == DRA_OUTCOME_ALLOCATED && r.allocations[0]->nresults == 3) {
        CHECK_STREQ(r.allocations[0]->results[0].request, "gpus");
        CHECK_STREQ(r.allocations[0]->results[2].request, "channel");
        CHECK_EQ_U64(r.allocations[0]->nconfigs, 3); /* both classes', then the claim's */
    }
    r = place(&x, gpuch, DRA_ENGINE_FIRST_FIT, 0);
    CHECK_EQ_U64(r.served, DRA_SERVED_DIRECT_FIRST);
    CHECK_STREQ(devices_of(&r, buf, sizeof buf), "a0,ch0");
    /* n2 has two channels, n1 one: the channel request decides the node */
    r = place(&x, chgpu, DRA_ENGINE_FIRST_FIT, 0);
    CHECK_EQ_U64(r.served, DRA_SERVED_DIRECT_FIRST);
    CHECK_EQ_U64(r.node, 1);
    CHECK_STREQ(devices_of(&r, buf, sizeof buf), "ch0,ch1,b0");
    /* two requests whose candidates meet (both classes select the GPUs): the allocator */
    r = place(&x, twogpus, DRA_ENGINE_FIRST_FIT, 0);
    CHECK_EQ_U64(r.direct_calls, 0);
    CHECK_EQ_U64(r.kind, DRA_OUTCOME_ALLOCATED);
    /* fill: trays until none fits, each committed; then everything released */
    dra_arena_t keep[4];
    dra_engine_result_t a[4];
    uint32_t n = 0;
    for (; n < 4; n++) {
        dra_arena_init(&keep[n], 0);
        a[n] = place_into(&x, tray, DRA_ENGINE_BEST_FIT, 0, &keep[n]);
        if (a[n].kind != DRA_OUTCOME_ALLOCATED) {
            dra_arena_fini(&keep[n]);
            break;
        }
        CHECK_OK(dra_engine_commit(x.e, a[n].node, a[n].allocations, a[n].n));
        check_summaries(&x);
        const uint32_t ps[] = {tray, gpuch, twogpus, chgpu};
        every_policy(&x, ps, 4);
    }
    CHECK_EQ_U64(n, 2); /* one tray per node: n1 q-q + ch0, n2 p-p + ch0 */
    while (n-- > 0) {
        CHECK_OK(dra_engine_release(x.e, a[n].node, a[n].allocations, a[n].n));
        dra_arena_fini(&keep[n]);
    }
    check_summaries(&x);
    fx_fini(&x);
}

static const char k_direct_counters[] =
    NODE("n1") CLASS("a", "drv")
    COUNTER_POOL_N1("16Gi")
    "  - {name: full, consumesCounters: [{counterSet: set, counters: {mem: {value: 8Gi}}}]}\n"
    "  - {name: half-0, consumesCounters: [{counterSet: set, counters: {mem: {value: 4Gi}}}]}\n"
    "  - {name: half-1, consumesCounters: [{counterSet: set, counters: {mem: {value: 4Gi}}}]}\n"
    "  - {name: quarter, consumesCounters: [{counterSet: set, counters: {mem: {value: 2Gi}}}]}\n---\n"
    CLAIM("one", "{requests: [{name: r, exactly: {deviceClassName: a, count: 1}}]}")
    CLAIM("two", "{requests: [{name: r, exactly: {deviceClassName: a, count: 2}}]}")
    CLAIM("three", "{requests: [{name: r, exactly: {deviceClassName: a, count: 3}}]}")
    CLAIM("four", "{requests: [{name: r, exactly: {deviceClassName: a, count: 4}}]}");

/* ---- reset to the saved image (dra_engine_save / dra_engine_reset) ---- */

#define RR_PODS 12

/* What the engine shows of itself without placing: the plans' digest, the placement counts,
 * every node's score and resources in use, and (debug builds) the work counts; written into
 * buf. */
static const char *engine_face(fx_t *x, char *buf, size_t len)
{
    dra_engine_info_t in;
    dra_engine_get_info(x->e, &in);
    size_t at = (size_t)snprintf(buf, len, "plans %016llx placements %llu/%llu/%llu scores",
                                 (unsigned long long)dra_engine_plans_digest(x->e),
                                 (unsigned long long)in.placements[0],
                                 (unsigned long long)in.placements[1],
                                 (unsigned long long)in.placements[2]);
    for (uint32_t n = 0; n < x->m.nnodes; n++) {
        int64_t r[4];
        dra_engine_node_resources(x->e, n, r);
        at += (size_t)snprintf(buf + at, at < len ? len - at : 0, " %u:%lld/%lld",
                               dra_engine_score(x->e, n), (long long)r[2], (long long)r[3]);
    }
    dra_engine_work_t w;
    if (dra_engine_work(x->e, &w))
        snprintf(buf + at, at < len ? len - at : 0, " work %llu/%llu/%llu/%llu",
                 (unsigned long long)w.rows_refreshed, (unsigned long long)w.rows_flipped,
                 (unsigned long long)w.cut_moves, (unsigned long long)w.leaves_set);
    return buf;
}

/* One round on x's engine: RR_PODS pods of the plans ps in turn under pol, each committed when
 * allocated, the oldest live pod released after every third, the rest at the end; what each
 * placement decided and did (outcome, node, devices, what served it, exact and direct calls,
 * the allocator's counters - CEL evaluations count the selector answers it was not seeded
 * with) and the engine's face at the end, written into log. */
static void reset_round(fx_t *x, const uint32_t *ps, size_t np, dra_engine_policy_t pol,
                        char *log, size_t len)
{
    dra_arena_t ar[RR_PODS];
    bool live[RR_PODS] = {false};
    dra_engine_result_t res[RR_PODS];
    size_t at = 0;
    log[0] = 0;
    for (int i = 0; i < RR_PODS; i++) {
        dra_arena_init(&ar[i], 0);
        res[i] = place_into(x, ps[(size_t)i % np], pol, 0, &ar[i]);
        const dra_engine_result_t *r = &res[i];
        char dev[256];
        at += (size_t)snprintf(log + at, at < len ? len - at : 0,
                               "%d:%s@%s[%s] s%d p%d e%u d%u c%llu a%llu k%llu; ", i,
                               dra_outcome_name(r->kind), node_name(x, r->node),
                               devices_of(r, dev, sizeof dev), (int)r->served, (int)r->path,
                               r->exact_calls, r->direct_calls,
                               (unsigned long long)r->stats.cel_evals,
                               (unsigned long long)r->stats.allocate_one,
                               (unsigned long long)r->stats.candidates);
        if (r->kind == DRA_OUTCOME_ALLOCATED) {
            CHECK_OK(dra_engine_commit(x->e, r->node, r->allocations, r->n));
            live[i] = true;
        }
        if (i % 3 == 2)
            for (int j = 0; j < i; j++)
                if (live[j]) {
                    CHECK_OK(dra_engine_release(x->e, res[j].node, res[j].allocations, res[j].n));
                    live[j] = false;
                    break;
                }
    }
    char face[2048];
    at += (size_t)snprintf(log + at, at < len ? len - at : 0, "full: %s; ",
                           engine_face(x, face, sizeof face));
    /* a result still committed: the image does not describe this state */
    for (int i = 0; i < RR_PODS; i++)
        if (live[i]) {
            CHECK_EQ_I64(dra_engine_reset(x->e), DRA_EINVAL);
            break;
        }
    for (int i = RR_PODS - 1; i >= 0; i--)
        if (live[i])
            CHECK_OK(dra_engine_release(x->e, res[i].node, res[i].allocations, res[i].n));
    for (int i = 0; i < RR_PODS; i++)
        dra_arena_fini(&ar[i]);
    check_summaries(x);
    snprintf(log + at, at < len ? len - at : 0, "end: %s", engine_face(x, face, sizeof face));
}

/* Rounds 2 and 3, each on the engine of round 1 reset to its image beside a new fast allocator
 * (as the runner's repetitions), decide and count what round 1 did on the engine as built, and
 * the engine after each reset shows what it showed as built - also to a second engine built
 * anew, whose round is round 1's too. Refused: a reset with nothing saved, with a result still
 * committed (reset_round), after a plan compiled since the save. */
static void reset_case(const char *yaml, dra_release_t rel, const char *gate,
                       const char *const *names, size_t np)
{
    static const dra_engine_policy_t pols[] = {DRA_ENGINE_FIRST_FIT, DRA_ENGINE_BEST_FIT,
                                               DRA_ENGINE_SPREAD};
    for (size_t k = 0; k < sizeof pols / sizeof pols[0]; k++) {
        fx_t a, b;
        if (!fx_open(&a, yaml, rel, gate))
            return;
        if (!fx_open(&b, yaml, rel, gate)) {
            fx_fini(&a);
            return;
        }
        uint32_t pa[8], pb[8];
        for (size_t i = 0; i < np && i < 8; i++) {
            pa[i] = fx_plan(&a, names[i]);
            pb[i] = fx_plan(&b, names[i]);
        }
        dra_engine_prepare_policy(a.e, pols[k]);
        dra_engine_prepare_policy(b.e, pols[k]);
        static char built[4096], face[4096], first[16384], log[16384], fresh[16384];
        engine_face(&a, built, sizeof built);
        CHECK_EQ_I64(dra_engine_reset(a.e), DRA_EINVAL); /* nothing saved */
        CHECK_OK(dra_engine_save(a.e));
        reset_round(&a, pa, np, pols[k], first, sizeof first);
        for (int round = 2; round <= 3; round++) {
            dra_anyalloc_free(&a.fast);
            dra_alloc_options_t o = {0, 7};
            CHECK_OK(dra_anyalloc_new(DRA_ALLOC_FAST, &a.m, &a.f, a.st, a.cel, &o, &a.fast));
            CHECK_OK(dra_engine_reset(a.e));
            CHECK_MSG(strcmp(engine_face(&a, face, sizeof face), built) == 0,
                      "policy %d, round %d: reset %s, built %s", (int)pols[k], round, face, built);
            check_summaries(&a);
            reset_round(&a, pa, np, pols[k], log, sizeof log);
            CHECK_MSG(strcmp(log, first) == 0, "policy %d, round %d:\n%s\nround 1:\n%s",
                      (int)pols[k], round, log, first);
        }
        reset_round(&b, pb, np, pols[k], fresh, sizeof fresh);
        CHECK_MSG(strcmp(fresh, first) == 0, "policy %d: built anew\n%s\nround 1:\n%s",
                  (int)pols[k], fresh, first);
        uint32_t extra;
        CHECK_OK(dra_engine_plan(a.e, &a.m.claims[0], 1, &extra));
        CHECK_EQ_I64(dra_engine_reset(a.e), DRA_EINVAL); /* a plan the image does not hold */
        fx_fini(&a);
        fx_fini(&b);
    }
}

static const char *const k_reset_direct[] = {"three", "one", "same2", "pairm", "prio", "same2tol",
                                             "nosuch", "pair"};
static const char *const k_reset_counters[] = {"one", "two", "four", "three"};

static void test_reset_equals_fresh(void)
{
    reset_case(k_direct, DRA_RELEASE_1_36, NULL, k_reset_direct, 8);
}

static void test_reset_equals_fresh_counters(void)
{
    reset_case(k_direct_counters, DRA_RELEASE_1_36, "DRAPartitionableDevices=true",
               k_reset_counters, 4);
}

static void test_direct_counters(void)
{
    fx_t x;
    if (!fx_open(&x, k_direct_counters, DRA_RELEASE_1_36, "DRAPartitionableDevices=true"))
        return;
    char buf[128];
    uint32_t one = fx_plan(&x, "one"), two = fx_plan(&x, "two"), three = fx_plan(&x, "three"),
             four = fx_plan(&x, "four");
    dra_engine_result_t r = place(&x, one, DRA_ENGINE_FIRST_FIT, 0);
    CHECK_EQ_U64(r.served, DRA_SERVED_DIRECT_COUNTERS);
    CHECK_STREQ(devices_of(&r, buf, sizeof buf), "full");
    /* later picks are judged with the consumption of the earlier ones: 8 + 4 + 4 = 16Gi */
    r = place(&x, three, DRA_ENGINE_FIRST_FIT, 0);
    CHECK_EQ_U64(r.served, DRA_SERVED_DIRECT_COUNTERS);
    CHECK_STREQ(devices_of(&r, buf, sizeof buf), "full,half-0,half-1");
    /* four: the greedy path stops short (quarter does not fit) and the picks mattered: the
     * allocator answers (unsatisfiable: the four need 18Gi) */
    r = place(&x, four, DRA_ENGINE_FIRST_FIT, 0);
    CHECK_EQ_U64(r.kind, DRA_OUTCOME_UNSATISFIABLE);
    CHECK_EQ_U64(r.direct_calls, 0);
    CHECK_EQ_U64(r.exact_calls, 1);
    /* with full committed (8Gi in use) it is skipped and the counters left decide */
    dra_allocation_t al = {0};
    dra_result_t res = {.request = "r", .driver = "drv", .pool = "p", .device = "full"};
    al.results = &res;
    al.nresults = 1;
    dra_allocation_t *alp = &al;
    CHECK_OK(dra_engine_commit(x.e, 0, &alp, 1));
    r = place(&x, one, DRA_ENGINE_FIRST_FIT, 0);
    CHECK_EQ_U64(r.served, DRA_SERVED_DIRECT_COUNTERS);
    CHECK_STREQ(devices_of(&r, buf, sizeof buf), "half-0");
    r = place(&x, two, DRA_ENGINE_FIRST_FIT, 0);
    CHECK_STREQ(devices_of(&r, buf, sizeof buf), "half-0,half-1");
    r = place(&x, three, DRA_ENGINE_FIRST_FIT, 0); /* 4 + 4 + 2 > 8 left: the allocator */
    CHECK_EQ_U64(r.kind, DRA_OUTCOME_UNSATISFIABLE);
    CHECK_EQ_U64(r.direct_calls, 0);
    check_summaries(&x);
    CHECK_OK(dra_engine_release(x.e, 0, &alp, 1));
    check_summaries(&x);
    r = place(&x, two, DRA_ENGINE_FIRST_FIT, 0);
    CHECK_STREQ(devices_of(&r, buf, sizeof buf), "full,half-0");
    fx_fini(&x);
}

/* Release records: a pod committed with a record (the caller's memory) is released by the
 * record alone, exactly as by its allocations. Two pods on one counter set (A: full, B: half-0
 * and half-1); releasing A's record must free full and only full (a record that released B's
 * rows instead would leave full in use and the next "one" would get half-0); the state's digest
 * after both releases is the one before the commits, summaries and node resources follow, a
 * record is taken back once (a copy of it is refused), a held record is not committed into, and
 * a record naming what the engine does not have is refused with nothing changed. The
 * allocator's row mirror learns the released rows too (its exact call on "two" agrees with the
 * reference). */
static void test_release_records(void)
{
    fx_t x;
    fx_init_gate(&x, k_direct_counters, DRA_RELEASE_1_36, "DRAPartitionableDevices=true");
    if (!x.ok) {
        fx_fini(&x);
        return;
    }
    char buf[128];
    uint32_t one = fx_plan(&x, "one"), two = fx_plan(&x, "two");
    CHECK_OK(dra_engine_plan_resources(x.e, one, 1000, 0));
    CHECK_OK(dra_engine_plan_resources(x.e, two, 250, 0));
    uint64_t d0 = dra_alloc_state_digest(x.st);
    dra_arena_t ka, kb;
    dra_arena_init(&ka, 0);
    dra_arena_init(&kb, 0);
    dra_engine_result_t a = place_into(&x, one, DRA_ENGINE_FIRST_FIT, 0, &ka);
    CHECK_STREQ(devices_of(&a, buf, sizeof buf), "full");
    /* the records are the caller's memory (zeroed: not held) */
    dra_engine_rec_t ha = {0}, hb = {0}, none = {0};
    CHECK(!dra_engine_rec_held(&ha) && !dra_engine_rec_held(NULL));
    CHECK(dra_engine_commit_pod_rec(x.e, one, a.node, a.allocations, a.n, NULL) == DRA_EINVAL);
    CHECK_OK(dra_engine_commit_pod_rec(x.e, one, a.node, a.allocations, a.n, &ha));
    CHECK(dra_engine_rec_held(&ha));
    CHECK_EQ_U64(ha.nrows, 1);
    uint64_t da = dra_alloc_state_digest(x.st);
    /* a record held is not a free one: the commit is refused and nothing changes */
    dra_engine_rec_t ha_copy = ha;
    CHECK(dra_engine_commit_pod_rec(x.e, one, a.node, a.allocations, a.n, &ha) == DRA_EINVAL);
    CHECK_EQ_U64(dra_alloc_state_digest(x.st), da);
    CHECK(!memcmp(&ha, &ha_copy, sizeof ha));
    dra_engine_result_t b = place_into(&x, two, DRA_ENGINE_FIRST_FIT, 0, &kb);
    CHECK_STREQ(devices_of(&b, buf, sizeof buf), "half-0,half-1");
    CHECK_OK(dra_engine_commit_pod_rec(x.e, two, b.node, b.allocations, b.n, &hb));
    CHECK(dra_engine_rec_held(&hb));
    CHECK_EQ_U64(hb.nrows, 2);
    CHECK_EQ_U64(dra_engine_records_held(x.e), 2);
    /* a plan that does not exist: the commit fails and keeps no record */
    CHECK(dra_engine_commit_pod_rec(x.e, 999, b.node, b.allocations, b.n, &none) == DRA_EINVAL);
    CHECK(!dra_engine_rec_held(&none));
    CHECK_EQ_U64(dra_engine_records_held(x.e), 2);
    /* records not this engine's (a node, plan or row it does not have) are refused with
     * nothing changed */
    uint64_t db = dra_alloc_state_digest(x.st);
    dra_engine_rec_t bad = hb;
    bad.node = 1000000;
    CHECK(dra_engine_release_record(x.e, &bad) == DRA_EINVAL);
    bad = hb;
    bad.plan = 999;
    CHECK(dra_engine_release_record(x.e, &bad) == DRA_EINVAL);
    bad = hb;
    bad.rows[1].row = UINT32_MAX;
    CHECK(dra_engine_release_record(x.e, &bad) == DRA_EINVAL);
    bad = hb;
    bad.nrows = DRA_ENGINE_REC_ROWS + 1;
    CHECK(dra_engine_release_record(x.e, &bad) == DRA_EINVAL);
    dra_engine_prefetch_record(x.e, &bad, 1); /* a hint: any record, nothing read beyond it */
    dra_engine_prefetch_record(x.e, &bad, 2);
    dra_engine_prefetch_record(x.e, NULL, 0);
    for (unsigned stage = 0; stage < 4; stage++) /* every stage of a held record: hints only */
        dra_engine_prefetch_record(x.e, &hb, stage);
    dra_engine_prefetch_records(x.e, &bad, &hb); /* both stages in one call: hints only */
    dra_engine_prefetch_records(x.e, &hb, &bad);
    dra_engine_prefetch_records(x.e, NULL, NULL);
    dra_engine_prefetch_records(NULL, &hb, &hb);
    /* the look-ahead of a release by allocations, both steps: hints only, any input */
    dra_engine_prefetch_release(x.e, b.node, b.allocations, b.n);
    dra_engine_prefetch_release_next(x.e, b.node, b.allocations, b.n);
    dra_engine_prefetch_release_next(x.e, 1000000, b.allocations, b.n);
    dra_engine_prefetch_release_next(x.e, b.node, NULL, 1);
    dra_engine_prefetch_release_next(NULL, b.node, b.allocations, b.n);
    CHECK_EQ_U64(dra_alloc_state_digest(x.st), db);
    CHECK_EQ_U64(dra_engine_records_held(x.e), 2);
    check_summaries(&x);
    int64_t nr[4];
    dra_engine_node_resources(x.e, 0, nr);
    CHECK_EQ_U64(nr[2], 1250);

    CHECK_OK(dra_engine_release_record(x.e, &ha));
    CHECK(!dra_engine_rec_held(&ha));
    CHECK_EQ_U64(dra_engine_records_held(x.e), 1);
    CHECK(dra_engine_release_record(x.e, &ha) == DRA_EINVAL); /* taken back once */
    CHECK(dra_engine_release_record(x.e, NULL) == DRA_EINVAL);
    /* a copy of the record held before is not a second record: the state refuses it */
    CHECK(dra_engine_release_record(x.e, &ha_copy) == DRA_ENOTFOUND);
    CHECK_EQ_U64(dra_engine_records_held(x.e), 1);
    CHECK_EQ_U64(dra_alloc_state_exclusive(x.st, "drv", "p", "full"), 0);
    CHECK_EQ_U64(dra_alloc_state_exclusive(x.st, "drv", "p", "half-0"), 1);
    CHECK_EQ_U64(dra_alloc_state_exclusive(x.st, "drv", "p", "half-1"), 1);
    CHECK(dra_alloc_state_digest(x.st) != da);
    check_summaries(&x);
    dra_engine_node_resources(x.e, 0, nr);
    CHECK_EQ_U64(nr[2], 250);
    dra_engine_result_t r = place(&x, one, DRA_ENGINE_FIRST_FIT, 0);
    CHECK_STREQ(devices_of(&r, buf, sizeof buf), "full");
    r = place(&x, two, DRA_ENGINE_FIRST_FIT, 0); /* the allocator: full + quarter > 8Gi left */
    CHECK_EQ_U64(r.kind, DRA_OUTCOME_UNSATISFIABLE);
    CHECK_EQ_U64(r.exact_calls, 1);

    CHECK_OK(dra_engine_release_record(x.e, &hb));
    CHECK_EQ_U64(dra_engine_records_held(x.e), 0);
    CHECK_EQ_U64(dra_alloc_state_digest(x.st), d0);
    check_summaries(&x);
    dra_engine_node_resources(x.e, 0, nr);
    CHECK_EQ_U64(nr[2], 0);
    r = place(&x, two, DRA_ENGINE_FIRST_FIT, 0);
    CHECK_STREQ(devices_of(&r, buf, sizeof buf), "full,half-0");

    /* released by its allocations behind the record's back: the record's release finds the
     * rows free, refuses and changes nothing */
    CHECK_OK(dra_engine_commit_pod_rec(x.e, one, a.node, a.allocations, a.n, &ha));
    CHECK(dra_engine_rec_held(&ha));
    CHECK_OK(dra_engine_release_pod(x.e, one, a.node, a.allocations, a.n));
    CHECK(dra_engine_release_record(x.e, &ha) == DRA_ENOTFOUND);
    CHECK(dra_engine_rec_held(&ha)); /* refused: it stays held */
    CHECK_EQ_U64(dra_alloc_state_digest(x.st), d0);
    check_summaries(&x);
    dra_arena_fini(&ka);
    dra_arena_fini(&kb);
    fx_fini(&x);
}

/* Without DRAConsumableCapacity a multi-allocatable device is an ordinary exclusive one: once
 * n1's is committed the next pod goes to n2 (the allocator decides: such plans are never
 * answered directly, the availability bit counts the device free while in use). */
static void test_direct_multi_without_capacity(void)
{
    fx_t x;
    if (!fx_open(&x, k_cap, DRA_RELEASE_1_36, "DRAConsumableCapacity=false"))
        return;
    uint32_t plain = fx_plan(&x, "plain");
    dra_arena_t keep;
    dra_arena_init(&keep, 0);
    dra_engine_result_t a = place_into(&x, plain, DRA_ENGINE_FIRST_FIT, 0, &keep);
    CHECK_EQ_U64(a.node, 0);
    CHECK_EQ_U64(a.direct_calls, 0);
    CHECK_OK(dra_engine_commit(x.e, a.node, a.allocations, a.n));
    dra_engine_result_t b = place(&x, plain, DRA_ENGINE_FIRST_FIT, 0);
    CHECK_EQ_U64(b.node, 1);
    CHECK_OK(dra_engine_release(x.e, a.node, a.allocations, a.n));
    dra_arena_fini(&keep);
    fx_fini(&x);
}

/* ---- direct answers with shares (DRAConsumableCapacity) --------------------------------------- */

#define SHPOL(n) "{name: " n ", allowMultipleAllocations: true, capacity: {memory: {value: 10Gi,"      \
                 " requestPolicy: {default: 1Gi, validRange: {min: 1Gi, step: 1Gi}}}}}"
static const char k_direct_shares[] =
    NODE("n1") NODE("n2") CLASS("a", "drv")
    SLICE("s1", "n1", "[{name: e0, capacity: {memory: {value: 2Gi}}}, " SHPOL("g0") ", " SHPOL("g1") "]")
    SLICE("s2", "n2", "[" SHPOL("h0") "]")
    CLAIM("four", "{requests: [{name: r, exactly: {deviceClassName: a, count: 1,"
                  " capacity: {requests: {memory: 4Gi}}}}]}")
    CLAIM("odd", "{requests: [{name: r, exactly: {deviceClassName: a, count: 1,"
                 " capacity: {requests: {memory: 2500Mi}}}}]}")
    CLAIM("two", "{requests: [{name: r, exactly: {deviceClassName: a, count: 2,"
                 " capacity: {requests: {memory: 2Gi}}}}]}")
    CLAIM("prio", "{requests: [{name: r, firstAvailable: [{name: big, deviceClassName: a, count: 1,"
                  " capacity: {requests: {memory: 11Gi}}}, {name: small, deviceClassName: a,"
                  " count: 1, capacity: {requests: {memory: 3Gi}}}]}]}")
    CLAIM("nocap", "{requests: [{name: r, exactly: {deviceClassName: a, count: 1}}]}")
    CLAIM("nocap2", "{requests: [{name: r, exactly: {deviceClassName: a, count: 2}}]}")
    CLAIM("pairm", "{requests: [{name: a, exactly: {deviceClassName: a, count: 1,"
                   " capacity: {requests: {memory: 1Gi}}}}, {name: b, exactly: {deviceClassName: a,"
                   " count: 1, capacity: {requests: {memory: 1Gi}}}}],"
                   " constraints: [{matchAttribute: drv/model}]}");

static const char *share_id_of(const dra_engine_result_t *r, uint32_t j)
{
    if (r->kind != DRA_OUTCOME_ALLOCATED || !r->n || j >= r->allocations[0]->nresults)
        return "(none)";
    const char *id = r->allocations[0]->results[j].share_id;
    return id ? id : "(none)";
}

/* consumedCapacity "memory" of result j, formatted */
static const char *consumed_of(const dra_engine_result_t *r, uint32_t j, char *buf, size_t len)
{
    snprintf(buf, len, "(none)");
    if (r->kind == DRA_OUTCOME_ALLOCATED && r->n && j < r->allocations[0]->nresults &&
        r->allocations[0]->results[j].nconsumed == 1)
        dra_quantity_format(&r->allocations[0]->results[j].consumed[0].value, buf, len);
    return buf;
}

/* Shares of multi-allocatable devices answered from the engine's columns: the first devices
 * whose capacity left fits (e0, a dedicated device with 2Gi, fits the 2Gi requests only), the
 * consumedCapacity rounded by the device's policy, derived shareIDs equal to the allocator's
 * (verify_direct) and the reference placement's (place_into), shares until a device is used
 * up, a request without capacity requests taking the defaults, releases giving capacity back;
 * plans the path does not serve go to the allocator. */
static void test_direct_shares(void)
{
    fx_t x;
    if (!fx_open(&x, k_direct_shares, DRA_RELEASE_1_36, "DRAConsumableCapacity=true"))
        return;
    char buf[128], id0[40], q[64];
    uint32_t four = fx_plan(&x, "four"), odd = fx_plan(&x, "odd"), two = fx_plan(&x, "two"),
             prio = fx_plan(&x, "prio"), nocap = fx_plan(&x, "nocap"),
             nocap2 = fx_plan(&x, "nocap2"), pairm = fx_plan(&x, "pairm");
    const uint32_t ps[] = {four, odd, two, prio, nocap, nocap2, pairm};
    enum { HELD = 4 };
    dra_arena_t keep[HELD];
    dra_engine_result_t held[HELD];
    for (int i = 0; i < HELD; i++)
        dra_arena_init(&keep[i], 0);
    /* 4Gi: g0 (e0 has 2Gi), a share */
    held[0] = place_into(&x, four, DRA_ENGINE_FIRST_FIT, 0, &keep[0]);
    CHECK_EQ_U64(held[0].served, DRA_SERVED_DIRECT_SHARES);
    CHECK_STREQ(dra_engine_served_name(held[0].served), "direct-shares");
    CHECK_EQ_U64(held[0].exact_calls, 0);
    CHECK_STREQ(devices_of(&held[0], buf, sizeof buf), "g0");
    CHECK_STREQ(consumed_of(&held[0], 0, q, sizeof q), "4Gi");
    snprintf(id0, sizeof id0, "%s", share_id_of(&held[0], 0));
    CHECK(strlen(id0) == 36);
    CHECK_OK(dra_engine_commit(x.e, held[0].node, held[0].allocations, held[0].n));
    check_summaries(&x);
    /* the same claim again: g0 has 6Gi left, a second share with another ID */
    held[1] = place_into(&x, four, DRA_ENGINE_FIRST_FIT, 0, &keep[1]);
    CHECK_EQ_U64(held[1].served, DRA_SERVED_DIRECT_SHARES);
    CHECK_STREQ(devices_of(&held[1], buf, sizeof buf), "g0");
    CHECK(strcmp(share_id_of(&held[1], 0), id0) != 0);
    CHECK_OK(dra_engine_commit(x.e, held[1].node, held[1].allocations, held[1].n));
    /* g0 is used up for 4Gi (2Gi left): g1 */
    held[2] = place_into(&x, four, DRA_ENGINE_FIRST_FIT, 0, &keep[2]);
    CHECK_STREQ(devices_of(&held[2], buf, sizeof buf), "g1");
    CHECK_EQ_U64(held[2].served, DRA_SERVED_DIRECT_SHARES);
    CHECK_OK(dra_engine_commit(x.e, held[2].node, held[2].allocations, held[2].n));
    check_summaries(&x);
    /* 2500Mi rounds up to 3Gi (min 1Gi, step 1Gi): g0 (2Gi left) no, g1 (6Gi) yes */
    held[3] = place_into(&x, odd, DRA_ENGINE_FIRST_FIT, 0, &keep[3]);
    CHECK_STREQ(devices_of(&held[3], buf, sizeof buf), "g1");
    CHECK_STREQ(consumed_of(&held[3], 0, q, sizeof q), "3Gi");
    CHECK_EQ_U64(held[3].served, DRA_SERVED_DIRECT_SHARES);
    CHECK_OK(dra_engine_commit(x.e, held[3].node, held[3].allocations, held[3].n));
    /* two of 2Gi: e0 (dedicated, its 2Gi) and g0 (2Gi left): a share and an exclusive device */
    dra_engine_result_t r = place(&x, two, DRA_ENGINE_FIRST_FIT, 0);
    CHECK_STREQ(devices_of(&r, buf, sizeof buf), "e0,g0");
    CHECK_EQ_U64(r.served, DRA_SERVED_DIRECT_SHARES);
    CHECK_STREQ(share_id_of(&r, 0), "(none)");
    CHECK(strcmp(share_id_of(&r, 1), "(none)") != 0);
    /* firstAvailable: 11Gi fits nowhere, 3Gi on g1 (e0 has 2Gi, g0 2Gi left, g1 3Gi) */
    r = place(&x, prio, DRA_ENGINE_FIRST_FIT, 0);
    CHECK_EQ_U64(r.served, DRA_SERVED_DIRECT_SHARES);
    CHECK_STREQ(devices_of(&r, buf, sizeof buf), "g1");
    if (r.kind == DRA_OUTCOME_ALLOCATED)
        CHECK_STREQ(r.allocations[0]->results[0].request, "r/small");
    /* no capacity requests: the devices' defaults, e0 (no policy) all of its 2Gi, g0 its
     * policy's default 1Gi (of the 2Gi left) */
    r = place(&x, nocap, DRA_ENGINE_FIRST_FIT, 0);
    CHECK_STREQ(devices_of(&r, buf, sizeof buf), "e0");
    CHECK_EQ_U64(r.served, DRA_SERVED_DIRECT_FIRST);
    r = place(&x, nocap2, DRA_ENGINE_FIRST_FIT, 0);
    CHECK_STREQ(devices_of(&r, buf, sizeof buf), "e0,g0");
    CHECK_EQ_U64(r.served, DRA_SERVED_DIRECT_SHARES);
    CHECK_STREQ(consumed_of(&r, 1, q, sizeof q), "1Gi");
    /* a matchAttribute over shares goes to the allocator */
    r = place(&x, pairm, DRA_ENGINE_FIRST_FIT, 0);
    CHECK_EQ_U64(r.direct_calls, 0);
    every_policy(&x, ps, sizeof ps / sizeof ps[0]);
    /* releases give capacity back: with the first share gone g0 takes 4Gi again; one share is
     * live on it, so the attempts start at 1, which is that share's ID: the next one */
    CHECK_OK(dra_engine_release(x.e, held[0].node, held[0].allocations, held[0].n));
    check_summaries(&x);
    r = place(&x, four, DRA_ENGINE_FIRST_FIT, 0);
    CHECK_STREQ(devices_of(&r, buf, sizeof buf), "g0");
    CHECK(strcmp(share_id_of(&r, 0), id0) != 0 &&
          strcmp(share_id_of(&r, 0), share_id_of(&held[1], 0)) != 0);
    CHECK_EQ_U64(r.served, DRA_SERVED_DIRECT_SHARES);
    for (int i = 1; i < HELD; i++)
        CHECK_OK(dra_engine_release(x.e, held[i].node, held[i].allocations, held[i].n));
    check_summaries(&x);
    /* nothing live: the first attempt, the first share's ID again */
    r = place(&x, four, DRA_ENGINE_FIRST_FIT, 0);
    CHECK_STREQ(share_id_of(&r, 0), id0);
    every_policy(&x, ps, sizeof ps / sizeof ps[0]);
    for (int i = 0; i < HELD; i++)
        dra_arena_fini(&keep[i]);
    fx_fini(&x);
}

/* One multi-allocatable device with room for 40 shares of 1Gi (two plans: one and two 1Gi
 * shares a claim on one device each) beside a second node's. */
static const char k_share_tags[] =
    NODE("n1") NODE("n2") CLASS("a", "drv")
    SLICE("s1", "n1", "[{name: g0, allowMultipleAllocations: true, capacity: {memory: {value: 40Gi}}}]")
    SLICE("s2", "n2", "[{name: h0, allowMultipleAllocations: true, capacity: {memory: {value: 40Gi}}}]")
    CLAIM("one", "{requests: [{name: r, exactly: {deviceClassName: a, count: 1,"
                 " capacity: {requests: {memory: 1Gi}}}}]}")
    CLAIM("other", "{requests: [{name: r, exactly: {deviceClassName: a, count: 1,"
                   " capacity: {requests: {memory: 1Gi}}}}]}");

/* The shareIDs a direct answer derives skip the attempts its plan's earlier shares still hold
 * on the device by their tags (dra_result_t.share_tag, kept by the state) instead of hashing
 * them: after every placement of a random walk of commits and releases on one device (up to
 * 30 live shares of the same two claims, so most attempts start on a live one) the engine's
 * shareIDs equal the reference allocator's (fx_place_vs_reference compares them). Some commits
 * are of a copy whose tag is cleared (a share as another path keeps it: its attempt is found by
 * its text, not skipped), and a share committed with another plan's text is never taken. */
static void test_direct_share_tags(void)
{
    fx_t x;
    if (!fx_open(&x, k_share_tags, DRA_RELEASE_1_36, "DRAConsumableCapacity=true"))
        return;
    uint32_t plans[2] = {fx_plan(&x, "one"), fx_plan(&x, "other")};
    enum { HELD = 30 };
    dra_arena_t keep[HELD];
    dra_engine_result_t held[HELD];
    dra_result_t copy[HELD];
    dra_allocation_t calloc_[HELD], *cptr[HELD];
    uint32_t nheld = 0, tagged = 0, untagged = 0, skipped_use = 0;
    for (int i = 0; i < HELD; i++)
        dra_arena_init(&keep[i], 0);
    uint32_t lcg = 2024;
    for (int step = 0; step < 600; step++) {
        lcg = lcg * 1103515245u + 12345u;
        bool add = nheld == 0 || (nheld < HELD && ((lcg >> 16) % 8) < 5);
        if (add) {
            uint32_t k = nheld;
            dra_arena_reset(&keep[k]);
            held[k] = place_into(&x, plans[(lcg >> 20) & 1], DRA_ENGINE_FIRST_FIT, 0, &keep[k]);
            CHECK_EQ_U64(held[k].kind, DRA_OUTCOME_ALLOCATED);
            CHECK_EQ_U64(held[k].served, DRA_SERVED_DIRECT_SHARES);
            if (held[k].kind != DRA_OUTCOME_ALLOCATED)
                break;
            const dra_result_t *res = &held[k].allocations[0]->results[0];
            CHECK(res->share_id != NULL);
            skipped_use += res->share_tag && (res->share_tag & 0x7ffu) > nheld;
            if ((lcg >> 24) % 4 == 0) { /* committed as another path keeps it: no tag */
                copy[k] = *res;
                copy[k].share_tag = 0;
                calloc_[k] = *held[k].allocations[0];
                calloc_[k].results = &copy[k];
                cptr[k] = &calloc_[k];
                held[k].allocations = &cptr[k];
                untagged++;
            } else {
                tagged += res->share_tag != 0;
            }
            CHECK_OK(dra_engine_commit(x.e, held[k].node, held[k].allocations, held[k].n));
            nheld++;
        } else {
            uint32_t k = (lcg >> 16) % nheld;
            CHECK_OK(dra_engine_release(x.e, held[k].node, held[k].allocations, held[k].n));
            /* the last held pod into slot k (its allocation list and results move along) */
            if (k != nheld - 1) {
                dra_arena_t t = keep[k];
                keep[k] = keep[nheld - 1];
                keep[nheld - 1] = t;
                held[k] = held[nheld - 1];
                if (held[k].allocations == &cptr[nheld - 1]) {
                    copy[k] = copy[nheld - 1];
                    calloc_[k] = calloc_[nheld - 1];
                    calloc_[k].results = &copy[k];
                    cptr[k] = &calloc_[k];
                    held[k].allocations = &cptr[k];
                }
            }
            nheld--;
        }
        if (step % 50 == 0)
            check_summaries(&x);
    }
    /* the walk went where the tags matter: tagged and untagged live shares, attempts above the
     * live count (an attempt skipped or found live) */
    CHECK(tagged > 50 && untagged > 20 && skipped_use > 20);
    for (uint32_t k = 0; k < nheld; k++)
        CHECK_OK(dra_engine_release(x.e, held[k].node, held[k].allocations, held[k].n));
    check_summaries(&x);
    for (int i = 0; i < HELD; i++)
        dra_arena_fini(&keep[i]);
    fx_fini(&x);
}

/* ---- release records of shares ------------------------------------------------------------- */

/* Multi-allocatable devices with two capacities, each with a request policy: memory 10Gi (1Gi
 * steps) and compute 100 (default 10). n1: one of them and a dedicated device after it; n2: two
 * of them. */
#define SHPOL2(n)                                                                                  \
    "{name: " n ", allowMultipleAllocations: true, capacity: {memory: {value: 10Gi,"               \
    " requestPolicy: {default: 1Gi, validRange: {min: 1Gi, step: 1Gi}}}, compute: {value: '100',"  \
    " requestPolicy: {default: '10', validRange: {min: '1', step: '1'}}}}}"
static const char k_share_records[] =
    NODE("n1") NODE("n2") CLASS("a", "drv")
    SLICE("s1", "n1", "[" SHPOL2("g0") ", {name: e0, capacity: {memory: {value: 2Gi}}}]")
    SLICE("s2", "n2", "[" SHPOL2("g1") ", " SHPOL2("g2") "]")
    CLAIM("m1", "{requests: [{name: r, exactly: {deviceClassName: a, count: 1,"
                " capacity: {requests: {memory: 1Gi, compute: '15'}}}}]}")
    CLAIM("m2", "{requests: [{name: r, exactly: {deviceClassName: a, count: 1,"
                " capacity: {requests: {memory: 2Gi, compute: '20'}}}}]}")
    CLAIM("m3", "{requests: [{name: r, exactly: {deviceClassName: a, count: 1,"
                " capacity: {requests: {memory: 2500Mi}}}}]}")
    CLAIM("two", "{requests: [{name: r, exactly: {deviceClassName: a, count: 2,"
                 " capacity: {requests: {memory: 2Gi}}}}]}");

/* The plan of claim `claim` in fixture x (each claim of k_share_records planned once, in the
 * model's order, when first asked for). */
static uint32_t twin_plan(fx_t *x, const char *claim)
{
    static const char *const names[] = {"m1", "m2", "m3", "two"};
    static struct {
        const fx_t *x;
        uint32_t plan[4];
    } seen[2];
    int f = seen[0].x == x ? 0 : seen[1].x == x ? 1 : !seen[0].x ? 0 : 1;
    if (seen[f].x != x) {
        seen[f].x = x;
        for (int i = 0; i < 4; i++)
            seen[f].plan[i] = fx_plan(x, names[i]);
    }
    for (int i = 0; i < 4; i++)
        if (!strcmp(names[i], claim))
            return seen[f].plan[i];
    CHECK_MSG(false, "claim %s", claim);
    return 0;
}

/* The same pod placed on twin fixtures x and y (same model, same decisions and share IDs). */
static void twin_place(fx_t *x, fx_t *y, const char *claim, uint32_t start, dra_arena_t *kx,
                       dra_arena_t *ky, dra_engine_result_t *rx, dra_engine_result_t *ry)
{
    *rx = place_into(x, twin_plan(x, claim), DRA_ENGINE_FIRST_FIT, start, kx);
    *ry = place_into(y, twin_plan(y, claim), DRA_ENGINE_FIRST_FIT, start, ky);
    CHECK_EQ_U64(rx->kind, DRA_OUTCOME_ALLOCATED);
    CHECK_EQ_U64(ry->kind, DRA_OUTCOME_ALLOCATED);
    if (rx->kind != DRA_OUTCOME_ALLOCATED || ry->kind != DRA_OUTCOME_ALLOCATED)
        return;
    char a[128], b[128];
    CHECK_STREQ(devices_of(rx, a, sizeof a), devices_of(ry, b, sizeof b));
    for (uint32_t j = 0; j < rx->allocations[0]->nresults; j++)
        CHECK_STREQ(share_id_of(rx, j), share_id_of(ry, j));
}

/* Twin fixtures x and y of k_share_records (1.36, DRAConsumableCapacity): false (neither open)
 * when either fails. */
static bool twins_open(fx_t *x, fx_t *y)
{
    if (!fx_open(x, k_share_records, DRA_RELEASE_1_36, "DRAConsumableCapacity=true"))
        return false;
    if (!fx_open(y, k_share_records, DRA_RELEASE_1_36, "DRAConsumableCapacity=true")) {
        fx_fini(x);
        return false;
    }
    return true;
}

/* Both fixtures hold the same state (the digest hashes every device's exclusive count, shares'
 * texts and capacity sums) and their engines' summaries and capacity aggregates equal what
 * their states say. */
static void twins_equal(fx_t *x, fx_t *y)
{
    CHECK_EQ_U64(dra_alloc_state_digest(x->st), dra_alloc_state_digest(y->st));
    check_summaries(x);
    check_summaries(y);
}

/* A share's release record gives back exactly what its commit took: x commits pods with release
 * records and releases them by record, y (its twin) commits and releases the same allocations by
 * the allocations (the path that reads the results); after every step both states are equal
 * (a share released from the wrong device or with a wrong amount changes the digest) and the
 * engines' capacity aggregates and fit bits match their states. Four shares of one device are
 * released in another order than committed; a pod of a dedicated device and a share keeps both;
 * a pod of two shares keeps no record; a released record's copy and a record whose share was
 * released behind its back are refused with nothing changed. */
static void test_share_release_records(void)
{
    fx_t x, y;
    if (!twins_open(&x, &y))
        return;
    enum { N = 4 };
    const char *names[N] = {"m1", "m2", "m3", "m1"};
    dra_arena_t kx[N + 1], ky[N + 1];
    dra_engine_result_t rx[N + 1], ry[N + 1];
    dra_engine_rec_t rec[N + 1];
    memset(rec, 0, sizeof rec);
    for (int i = 0; i <= N; i++) {
        dra_arena_init(&kx[i], 0);
        dra_arena_init(&ky[i], 0);
    }
    char buf[128];
    for (int i = 0; i < N; i++) { /* every share on g0: 1 + 2 + 3 + 1 Gi of its 10Gi */
        uint32_t px = twin_plan(&x, names[i]), py = twin_plan(&y, names[i]);
        twin_place(&x, &y, names[i], 0, &kx[i], &ky[i], &rx[i], &ry[i]);
        CHECK_STREQ(devices_of(&rx[i], buf, sizeof buf), "g0");
        CHECK_OK(dra_engine_commit_pod_rec(x.e, px, rx[i].node, rx[i].allocations, rx[i].n,
                                           &rec[i]));
        CHECK(dra_engine_rec_held(&rec[i]));
        CHECK_EQ_U64(rec[i].nshares, 1);
        CHECK_EQ_U64(rec[i].nrows, 0);
        CHECK_OK(dra_engine_commit_pod(y.e, py, ry[i].node, ry[i].allocations, ry[i].n));
        twins_equal(&x, &y);
    }
    CHECK_EQ_U64(dra_engine_records_held(x.e), N);
    dra_engine_rec_t copy = rec[0];
    /* released in another order than committed: the third, the first, the fourth, the second */
    const int order[N] = {2, 0, 3, 1};
    for (int k = 0; k < N; k++) {
        int i = order[k];
        for (unsigned stage = 0; stage < 3; stage++) /* the look-ahead: hints only */
            dra_engine_prefetch_record(x.e, &rec[i], stage);
        dra_engine_prefetch_records(x.e, &rec[i], &rec[(i + 1) % N]);
        CHECK_OK(dra_engine_release_record(x.e, &rec[i]));
        CHECK(!dra_engine_rec_held(&rec[i]));
        CHECK_OK(dra_engine_release_pod(y.e, twin_plan(&y, names[i]), ry[i].node,
                                        ry[i].allocations, ry[i].n));
        twins_equal(&x, &y);
        /* the capacity given back is placeable again, on both, the same way */
        if (k == 0) {
            dra_engine_result_t a, b;
            twin_place(&x, &y, "m3", 0, &kx[N], &ky[N], &a, &b);
            CHECK_STREQ(devices_of(&a, buf, sizeof buf), "g0");
        }
    }
    CHECK_EQ_U64(dra_engine_records_held(x.e), 0);
    /* a copy of a released record: its share is gone, nothing changes */
    uint64_t d = dra_alloc_state_digest(x.st);
    CHECK(dra_engine_release_record(x.e, &copy) == DRA_ENOTFOUND);
    CHECK_EQ_U64(dra_alloc_state_digest(x.st), d);
    check_summaries(&x);
    /* a share and a dedicated device in one pod (n1: g0 and e0): both kept */
    uint32_t two = twin_plan(&x, "two"), two_y = twin_plan(&y, "two");
    twin_place(&x, &y, "two", 0, &kx[0], &ky[0], &rx[0], &ry[0]);
    CHECK_STREQ(devices_of(&rx[0], buf, sizeof buf), "g0,e0");
    CHECK_OK(dra_engine_commit_pod_rec(x.e, two, rx[0].node, rx[0].allocations, rx[0].n, &rec[0]));
    CHECK_OK(dra_engine_commit_pod(y.e, two_y, ry[0].node, ry[0].allocations, ry[0].n));
    CHECK(dra_engine_rec_held(&rec[0]));
    CHECK_EQ_U64(rec[0].nrows, 1);
    CHECK_EQ_U64(rec[0].nshares, 1);
    twins_equal(&x, &y);
    /* with e0 held, two shares in one pod (n2: g1 and g2): no record, released by its
     * allocations */
    twin_place(&x, &y, "two", 0, &kx[1], &ky[1], &rx[1], &ry[1]);
    CHECK_STREQ(devices_of(&rx[1], buf, sizeof buf), "g1,g2");
    CHECK_OK(dra_engine_commit_pod_rec(x.e, two, rx[1].node, rx[1].allocations, rx[1].n, &rec[1]));
    CHECK(!dra_engine_rec_held(&rec[1]));
    CHECK_OK(dra_engine_commit_pod(y.e, two_y, ry[1].node, ry[1].allocations, ry[1].n));
    twins_equal(&x, &y);
    /* the pod of a share and a dedicated device given back by its record */
    CHECK_OK(dra_engine_release_record(x.e, &rec[0]));
    CHECK_OK(dra_engine_release_pod(y.e, two_y, ry[0].node, ry[0].allocations, ry[0].n));
    twins_equal(&x, &y);
    /* a share released behind its record's back (by its allocations): the record is refused */
    uint32_t m1 = twin_plan(&x, "m1");
    twin_place(&x, &y, "m1", 0, &kx[2], &ky[2], &rx[2], &ry[2]);
    CHECK_OK(dra_engine_commit_pod_rec(x.e, m1, rx[2].node, rx[2].allocations, rx[2].n, &rec[2]));
    CHECK(dra_engine_rec_held(&rec[2]));
    CHECK_OK(dra_engine_release_pod(x.e, m1, rx[2].node, rx[2].allocations, rx[2].n));
    d = dra_alloc_state_digest(x.st);
    CHECK(dra_engine_release_record(x.e, &rec[2]) == DRA_ENOTFOUND);
    CHECK_EQ_U64(dra_alloc_state_digest(x.st), d);
    CHECK_OK(dra_engine_release_pod(x.e, two, rx[1].node, rx[1].allocations, rx[1].n));
    CHECK_OK(dra_engine_release_pod(y.e, two_y, ry[1].node, ry[1].allocations, ry[1].n));
    twins_equal(&x, &y);
    for (int i = 0; i <= N; i++) {
        dra_arena_fini(&kx[i]);
        dra_arena_fini(&ky[i]);
    }
    fx_fini(&x);
    fx_fini(&y);
}

/* Model node `name` of fixture x (UINT32_MAX when none). */
static uint32_t node_of(const fx_t *x, const char *name)
{
    for (uint32_t n = 0; n < x->m.nnodes; n++)
        if (!strcmp(x->m.nodes[n]->name, name))
            return n;
    return UINT32_MAX;
}

/* A share result on device `dev` of k_share_records' pool `pool` with share ID `id` consuming
 * the n entries of c. */
static dra_result_t share_result(const char *pool, const char *dev, const char *id,
                                 dra_consumed_t *c, uint32_t n)
{
    return (dra_result_t){.request = "r", .driver = "drv", .pool = pool, .device = dev,
                          .share_id = id, .consumed = c, .nconsumed = n};
}

/* One consumedCapacity entry: name nm (the caller's own string, not the model's) and quantity
 * q. */
static dra_consumed_t consumed(const char *nm, const char *q)
{
    dra_consumed_t c = {.name = nm};
    dra_diag_t qd;
    dra_diag_clear(&qd);
    CHECK_OK(dra_quantity_parse(q, strlen(q), &c.value, &qd));
    return c;
}

/* Shares as an allocator other than the direct answers may write them, kept in release records
 * from what the commit computed: consumed entries in another order than the device's capacities
 * and named by strings of their own (each found by its text), a name the device lacks (the
 * state aggregates it, the engine keeps none), three entries (no record). x commits with
 * records and releases by them, its twin y commits and releases the same allocations by the
 * allocations; after every step the states' digests are equal and both engines pass their
 * check. Then the comparison itself: a record given back with a wrong amount (another share
 * still live on the device) leaves x's state different from y's though x's engine agrees with
 * its own state, and one given back on a wrong engine row fails x's engine check. */
static void test_share_records_by_name(void)
{
    fx_t x, y;
    if (!twins_open(&x, &y))
        return;
    uint32_t n1 = node_of(&x, "n1"), m1x = fx_plan(&x, "m1"), m1y = fx_plan(&y, "m1");
    CHECK(n1 != UINT32_MAX && n1 == node_of(&y, "n1"));
    char mem[] = "memory", cpu[] = "compute", other[] = "other";
    enum { N = 5 };
    dra_consumed_t c[N][3] = {
        {consumed(cpu, "20"), consumed(mem, "2Gi")},                       /* reversed, by text */
        {consumed(other, "1"), consumed(mem, "1Gi")},                      /* a name g0 lacks */
        {consumed(mem, "1Gi"), consumed(cpu, "5"), consumed(other, "2")}, /* three: no record */
        {consumed(mem, "3Gi"), consumed(cpu, "10")},                       /* its amount planted */
        {consumed(mem, "1Gi")},                                            /* its row planted */
    };
    const uint32_t nc[N] = {2, 2, 3, 2, 1};
    const bool kept[N] = {true, true, false, true, true};
    static const char *const ids[N] = {
        "00000000-0000-4000-8000-0000000000a1", "00000000-0000-4000-8000-0000000000a2",
        "00000000-0000-4000-8000-0000000000a3", "00000000-0000-4000-8000-0000000000a4",
        "00000000-0000-4000-8000-0000000000a5"};
    dra_result_t res[N];
    dra_allocation_t al[N];
    dra_allocation_t *alp[N];
    dra_engine_rec_t rec[N];
    memset(rec, 0, sizeof rec);
    for (int i = 0; i < N; i++) {
        res[i] = share_result("s1", "g0", ids[i], c[i], nc[i]);
        al[i] = (dra_allocation_t){.results = &res[i], .nresults = 1};
        alp[i] = &al[i];
    }
    for (int i = 0; i < 3; i++) {
        CHECK_OK(dra_engine_commit_pod_rec(x.e, m1x, n1, &alp[i], 1, &rec[i]));
        CHECK_OK(dra_engine_commit_pod(y.e, m1y, n1, &alp[i], 1));
        CHECK_MSG(dra_engine_rec_held(&rec[i]) == kept[i], "share %d", i);
        twins_equal(&x, &y);
    }
    CHECK_EQ_U64(rec[0].nshares, 1);
    CHECK_EQ_U64(rec[0].s.share.ncap, 2);
    /* the two entries name the device's two capacities, in the result's order */
    CHECK(rec[0].s.share.cidx[0] < 2 && rec[0].s.share.cidx[1] < 2 &&
          rec[0].s.share.cidx[0] != rec[0].s.share.cidx[1]);
    CHECK_EQ_U64(rec[1].s.share.cidx[0], 0xff); /* `other`: no capacity of g0 */
    CHECK_EQ_U64(rec[1].s.share.cidx[1], rec[0].s.share.cidx[1]);
    /* given back in another order: the second, the unrecorded third, the first */
    CHECK_OK(dra_engine_release_record(x.e, &rec[1]));
    CHECK_OK(dra_engine_release_pod(y.e, m1y, n1, &alp[1], 1));
    twins_equal(&x, &y);
    CHECK_OK(dra_engine_release_pod(x.e, m1x, n1, &alp[2], 1));
    CHECK_OK(dra_engine_release_pod(y.e, m1y, n1, &alp[2], 1));
    twins_equal(&x, &y);
    CHECK_OK(dra_engine_release_record(x.e, &rec[0]));
    CHECK_OK(dra_engine_release_pod(y.e, m1y, n1, &alp[0], 1));
    twins_equal(&x, &y);
    /* a wrong amount: share 0 live beside share 3, whose record gives back 1 nano unit more of
     * its first entry than it took */
    for (int i = 0; i < 4; i += 3) {
        CHECK_OK(dra_engine_commit_pod_rec(x.e, m1x, n1, &alp[i], 1, &rec[i]));
        CHECK_OK(dra_engine_commit_pod(y.e, m1y, n1, &alp[i], 1));
        CHECK(dra_engine_rec_held(&rec[i]));
    }
    twins_equal(&x, &y);
    rec[3].s.share.amt[0][0] += 1;
    CHECK_OK(dra_engine_release_record(x.e, &rec[3]));
    CHECK_OK(dra_engine_release_pod(y.e, m1y, n1, &alp[3], 1));
    CHECK(dra_alloc_state_digest(x.st) != dra_alloc_state_digest(y.st));
    check_summaries(&x); /* the engine took the same wrong amount: only the twin tells */
    /* a wrong engine row: share 4's record names g1 (n2's first device) instead of g0 */
    CHECK_OK(dra_engine_commit_pod_rec(x.e, m1x, n1, &alp[4], 1, &rec[4]));
    CHECK(dra_engine_rec_held(&rec[4]));
    dra_engine_rec_t probe;
    memset(&probe, 0, sizeof probe);
    dra_result_t r1 = share_result("s2", "g1", "00000000-0000-4000-8000-0000000000b1", c[4], 1);
    dra_allocation_t a1 = {.results = &r1, .nresults = 1}, *a1p = &a1;
    CHECK_OK(dra_engine_commit_pod_rec(x.e, m1x, node_of(&x, "n2"), &a1p, 1, &probe));
    CHECK(dra_engine_rec_held(&probe));
    uint32_t g1row = probe.rows[probe.nrows].row;
    CHECK_OK(dra_engine_release_record(x.e, &probe));
    CHECK(g1row != rec[4].rows[rec[4].nrows].row);
    rec[4].rows[rec[4].nrows].row = g1row;
    CHECK_OK(dra_engine_release_record(x.e, &rec[4]));
    char why[256] = "";
    CHECK_MSG(!dra_engine_check(x.e, why, sizeof why), "%s", "a wrong row passed the check");
    fx_fini(&x);
    fx_fini(&y);
}

/* A share committed before the first capacity plan is compiled: the capacity signature reads
 * what it left (commits keep the shares' capacity only once a capacity signature exists), so
 * the 4Gi request skips g0 (2Gi left) for g1, directly and as the allocator does. */
static void test_direct_shares_committed_before_plan(void)
{
    fx_t x;
    fx_init_gate(&x, k_direct_shares, DRA_RELEASE_1_36, "DRAConsumableCapacity=true");
    if (x.ok) {
        dra_consumed_t used = {.name = "memory"};
        dra_diag_t qd;
        dra_diag_clear(&qd);
        CHECK_OK(dra_quantity_parse("8Gi", 3, &used.value, &qd));
        dra_result_t res = {.request = "r", .driver = "drv", .pool = "s1", .device = "g0",
                            .share_id = "00000000-0000-4000-8000-000000000001",
                            .consumed = &used, .nconsumed = 1};
        dra_allocation_t al = {.results = &res, .nresults = 1};
        dra_allocation_t *alp = &al;
        CHECK_OK(dra_engine_commit(x.e, 0, &alp, 1));
        uint32_t four = fx_plan(&x, "four");
        char buf[64];
        dra_engine_result_t r = place(&x, four, DRA_ENGINE_FIRST_FIT, 0);
        CHECK_STREQ(devices_of(&r, buf, sizeof buf), "g1");
        CHECK_EQ_U64(r.served, DRA_SERVED_DIRECT_SHARES);
        check_summaries(&x);
        CHECK_OK(dra_engine_release(x.e, 0, &alp, 1));
        r = place(&x, four, DRA_ENGINE_FIRST_FIT, 0);
        CHECK_STREQ(devices_of(&r, buf, sizeof buf), "g0");
        check_summaries(&x);
    }
    fx_fini(&x);
}

/* Shares the path does not serve: a request of several devices in the 1.35 profile
 * (permutations: it may take a multi-allocatable device twice; placed by brute force), a
 * multi-allocatable device consuming counters (charged on its first share only), and an
 * exclusive allocation of a multi-allocatable device in the state (the availability bit counts
 * it free): the allocator answers, the same. A request of one device in the 1.35 profile is
 * indexed and served (one level: its first candidate in either order). */
static void test_direct_shares_fallbacks(void)
{
    fx_t x;
    fx_init_gate(&x, k_direct_shares, DRA_RELEASE_1_35, "DRAConsumableCapacity=true");
    if (x.ok) {
        uint32_t two = fx_plan(&x, "two"), four = fx_plan(&x, "four"), prio = fx_plan(&x, "prio");
        CHECK(!dra_engine_plan_indexed(x.e, two));
        CHECK(dra_engine_plan_indexed(x.e, four));
        dra_engine_result_t r = place(&x, two, DRA_ENGINE_FIRST_FIT, 0);
        CHECK_EQ_U64(r.kind, DRA_OUTCOME_ALLOCATED);
        CHECK_EQ_U64(r.direct_calls, 0);
        CHECK_EQ_U64(r.path, DRA_ENGINE_PATH_BRUTE);
        r = place(&x, four, DRA_ENGINE_FIRST_FIT, 0);
        CHECK_EQ_U64(r.kind, DRA_OUTCOME_ALLOCATED);
        CHECK_EQ_U64(r.served, DRA_SERVED_DIRECT_SHARES);
        r = place(&x, prio, DRA_ENGINE_FIRST_FIT, 0);
        CHECK_EQ_U64(r.served, DRA_SERVED_DIRECT_SHARES);
        const uint32_t ps[] = {two, four, prio};
        every_policy(&x, ps, 3);
    }
    fx_fini(&x);
    fx_init_gate(&x, k_cap_counters, DRA_RELEASE_1_36, "DRAConsumableCapacity=true");
    if (x.ok) {
        dra_engine_result_t r = place(&x, fx_plan(&x, "share"), DRA_ENGINE_FIRST_FIT, 0);
        CHECK_EQ_U64(r.kind, DRA_OUTCOME_ALLOCATED);
        CHECK_EQ_U64(r.direct_calls, 0);
    }
    fx_fini(&x);
    fx_init_gate(&x, k_direct_shares, DRA_RELEASE_1_36, "DRAConsumableCapacity=true");
    if (x.ok) {
        uint32_t four = fx_plan(&x, "four");
        dra_result_t res = {.request = "r", .driver = "drv", .pool = "s1", .device = "g0"};
        dra_allocation_t al = {.results = &res, .nresults = 1};
        dra_allocation_t *alp = &al;
        CHECK_OK(dra_engine_commit(x.e, 0, &alp, 1)); /* no shareID: exclusive */
        dra_engine_result_t r = place(&x, four, DRA_ENGINE_FIRST_FIT, 0);
        CHECK_EQ_U64(r.direct_calls, 0);
        CHECK_STREQ(r.kind == DRA_OUTCOME_ALLOCATED ? r.allocations[0]->results[0].device : "-",
                    "g1");
        CHECK_OK(dra_engine_release(x.e, 0, &alp, 1));
    }
    fx_fini(&x);
}

/* 1.38-pre matches a request's qualified capacity name ("drv/memory") against the device's
 * bare one (#142202): the capacity signature's limits per capacity profile follow the profile's
 * arithmetic, and a profile is per driver (a device of driver abc with the same capacities comes
 * first in row order and would fail "drv/memory"). With 1.36's name matching the engine found no
 * device where the reference allocates. */
#define SHCAP(n) "{name: " n ", allowMultipleAllocations: true, capacity: {memory: {value: 10Gi}}}"
static const char k_qualified_caps[] =
    NODE("n1") CLASS("a", "drv")
    "apiVersion: resource.k8s.io/v1\nkind: ResourceSlice\nmetadata: {name: o1}\n"
    "spec:\n  driver: abc\n  pool: {name: o1, generation: 1, resourceSliceCount: 1}\n"
    "  nodeName: n1\n  devices: [" SHCAP("o0") "]\n---\n"
    SLICE("s1", "n1", "[" SHCAP("g0") "]")
    CLAIM("qual", "{requests: [{name: r, exactly: {deviceClassName: a, count: 1,"
                  " capacity: {requests: {drv/memory: 4Gi}}}}]}");

static void test_capacity_limits_profile_arithmetic(void)
{
    fx_t x;
    if (!fx_open(&x, k_qualified_caps, DRA_RELEASE_1_38_PRE, "DRAConsumableCapacity=true"))
        return;
    char buf[64], q[64];
    uint32_t qual = fx_plan(&x, "qual");
    CHECK(dra_engine_plan_indexed(x.e, qual));
    enum { HELD = 2 };
    dra_arena_t keep[HELD];
    dra_engine_result_t held[HELD];
    for (int i = 0; i < HELD; i++) {
        dra_arena_init(&keep[i], 0);
        held[i] = place_into(&x, qual, DRA_ENGINE_FIRST_FIT, 0, &keep[i]);
        CHECK_EQ_U64(held[i].kind, DRA_OUTCOME_ALLOCATED);
        CHECK_STREQ(devices_of(&held[i], buf, sizeof buf), "g0");
        CHECK_STREQ(consumed_of(&held[i], 0, q, sizeof q), "4Gi");
        if (held[i].kind == DRA_OUTCOME_ALLOCATED)
            CHECK_OK(dra_engine_commit(x.e, held[i].node, held[i].allocations, held[i].n));
        check_summaries(&x);
    }
    /* 8Gi of g0's 10Gi in use: 4Gi fits nowhere, as for the reference */
    dra_engine_result_t r = place(&x, qual, DRA_ENGINE_FIRST_FIT, 0);
    CHECK_EQ_U64(r.kind, DRA_OUTCOME_UNSATISFIABLE);
    all_policies_agree(&x, qual);
    if (held[0].kind == DRA_OUTCOME_ALLOCATED)
        CHECK_OK(dra_engine_release(x.e, held[0].node, held[0].allocations, held[0].n));
    check_summaries(&x);
    r = place(&x, qual, DRA_ENGINE_FIRST_FIT, 0);
    CHECK_STREQ(devices_of(&r, buf, sizeof buf), "g0");
    all_policies_agree(&x, qual);
    for (int i = 0; i < HELD; i++)
        dra_arena_fini(&keep[i]);
    fx_fini(&x);
}


/* Compatibility groups (1.37, KEP-5963) answered from the engine's columns (direct-groups): on n1
 * GPU g0 has a whole device, a plain slice, two MIG slices (group mig), a vGPU (vgpu) and a
 * device in both groups; x01 draws from g0 (vgpu) and g1 (mig), whose sets are judged
 * separately; n2 has a GPU h0 of its own. Every placement is compared with the reference
 * placement and every direct answer with the allocator's (verify_direct). */
#define CGDEV(n, kind, set, amt, groups)                                                           \
    "  - {name: " n ", attributes: {kind: {string: " kind "}}, consumesCounters: [{counterSet: "   \
    set ", " groups "counters: {mem: {value: " amt "}}}]}\n"
static const char k_direct_groups[] =
    NODE("n1") NODE("n2") CLASS("a", "drv")
    "apiVersion: resource.k8s.io/v1\nkind: ResourceSlice\nmetadata: {name: counters}\n"
    "spec:\n  driver: drv\n  pool: {name: p, generation: 1, resourceSliceCount: 2}\n"
    "  nodeName: n1\n  sharedCounters: [{name: g0, counters: {mem: {value: 8Gi}}},"
    " {name: g1, counters: {mem: {value: 8Gi}}}]\n---\n"
    "apiVersion: resource.k8s.io/v1\nkind: ResourceSlice\nmetadata: {name: devices}\n"
    "spec:\n  driver: drv\n  pool: {name: p, generation: 1, resourceSliceCount: 2}\n"
    "  nodeName: n1\n  devices:\n"
    CGDEV("full0", "full", "g0", "8Gi", "")
    CGDEV("plain0", "plain", "g0", "2Gi", "")
    CGDEV("plain0b", "plain", "g0", "2Gi", "")
    CGDEV("mig0a", "mig", "g0", "2Gi", "compatibilityGroups: [mig], ")
    CGDEV("mig0b", "mig", "g0", "2Gi", "compatibilityGroups: [mig], ")
    CGDEV("vgpu0", "vgpu", "g0", "4Gi", "compatibilityGroups: [vgpu], ")
    CGDEV("both0", "both", "g0", "2Gi", "compatibilityGroups: [mig, vgpu], ")
    "  - {name: x01, attributes: {kind: {string: x}}, consumesCounters: ["
    "{counterSet: g0, compatibilityGroups: [vgpu], counters: {mem: {value: 2Gi}}},"
    " {counterSet: g1, compatibilityGroups: [mig], counters: {mem: {value: 2Gi}}}]}\n"
    CGDEV("mig1a", "mig", "g1", "2Gi", "compatibilityGroups: [mig], ")
    CGDEV("vgpu1", "vgpu", "g1", "4Gi", "compatibilityGroups: [vgpu], ")
    "---\n"
    "apiVersion: resource.k8s.io/v1\nkind: ResourceSlice\nmetadata: {name: counters-q}\n"
    "spec:\n  driver: drv\n  pool: {name: q, generation: 1, resourceSliceCount: 2}\n"
    "  nodeName: n2\n  sharedCounters: [{name: h0, counters: {mem: {value: 8Gi}}}]\n---\n"
    "apiVersion: resource.k8s.io/v1\nkind: ResourceSlice\nmetadata: {name: devices-q}\n"
    "spec:\n  driver: drv\n  pool: {name: q, generation: 1, resourceSliceCount: 2}\n"
    "  nodeName: n2\n  devices:\n"
    CGDEV("plain2", "plain", "h0", "2Gi", "")
    CGDEV("mig2a", "mig", "h0", "2Gi", "compatibilityGroups: [mig], ")
    CGDEV("vgpu2", "vgpu", "h0", "4Gi", "compatibilityGroups: [vgpu], ")
    "---\n";
static const char k_direct_groups_claims[] =
    CLAIM("any1", "{requests: [{name: r, exactly: {deviceClassName: a, count: 1}}]}")
    CLAIM("any2", "{requests: [{name: r, exactly: {deviceClassName: a, count: 2}}]}")
    CLAIM("any3", "{requests: [{name: r, exactly: {deviceClassName: a, count: 3}}]}")
    CLAIM("mig1", "{requests: [{name: r, exactly: {deviceClassName: a, count: 1, selectors: "
                  "[{cel: {expression: 'device.attributes[\"drv\"].kind == \"mig\"'}}]}}]}")
    CLAIM("mig2", "{requests: [{name: r, exactly: {deviceClassName: a, count: 2, selectors: "
                  "[{cel: {expression: 'device.attributes[\"drv\"].kind == \"mig\"'}}]}}]}")
    CLAIM("vgpu1", "{requests: [{name: r, exactly: {deviceClassName: a, count: 1, selectors: "
                   "[{cel: {expression: 'device.attributes[\"drv\"].kind == \"vgpu\"'}}]}}]}")
    CLAIM("vgpu2", "{requests: [{name: r, exactly: {deviceClassName: a, count: 2, selectors: "
                   "[{cel: {expression: 'device.attributes[\"drv\"].kind == \"vgpu\"'}}]}}]}")
    CLAIM("x", "{requests: [{name: r, exactly: {deviceClassName: a, count: 1, selectors: "
               "[{cel: {expression: 'device.attributes[\"drv\"].kind == \"x\"'}}]}}]}")
    CLAIM("prio", "{requests: [{name: r, firstAvailable: [{name: two, deviceClassName: a, count: 2,"
                  " selectors: [{cel: {expression: 'device.attributes[\"drv\"].kind == \"vgpu\"'}}]},"
                  " {name: one, deviceClassName: a, count: 1}]}]}")
    CLAIM("same", "{requests: [{name: r, exactly: {deviceClassName: a, count: 2}}],"
                  " constraints: [{matchAttribute: drv/kind}]}");

typedef struct cgfx {
    fx_t x;
    uint32_t p[10]; /* any1 any2 any3 mig1 mig2 vgpu1 vgpu2 x prio same */
} cgfx_t;

enum { CG_ANY1, CG_ANY2, CG_ANY3, CG_MIG1, CG_MIG2, CG_VGPU1, CG_VGPU2, CG_X, CG_PRIO, CG_SAME,
       CG_NPLANS };

static bool cg_init(cgfx_t *g, dra_release_t rel, const char *gate)
{
    static const char *const names[CG_NPLANS] = {"any1", "any2",  "any3", "mig1", "mig2",
                                                 "vgpu1", "vgpu2", "x",    "prio", "same"};
    static char yaml[sizeof k_direct_groups + sizeof k_direct_groups_claims];
    snprintf(yaml, sizeof yaml, "%s%s", k_direct_groups, k_direct_groups_claims);
    fx_init_gate(&g->x, yaml, rel, gate);
    if (!g->x.ok)
        return false;
    for (int i = 0; i < CG_NPLANS; i++)
        g->p[i] = fx_plan(&g->x, names[i]);
    return true;
}

/* Commit a crafted allocation of the named devices of pool p on node 0 (request r). */
static void cg_commit(fx_t *x, const char *dev, bool release)
{
    dra_allocation_t al = {0};
    dra_result_t res = {.request = "r", .driver = "drv", .pool = "p", .device = dev};
    al.results = &res;
    al.nresults = 1;
    dra_allocation_t *alp = &al;
    if (release)
        CHECK_OK(dra_engine_release(x->e, 0, &alp, 1));
    else
        CHECK_OK(dra_engine_commit(x->e, 0, &alp, 1));
    check_summaries(x);
}

/* The decision and what served it, every plan under every policy against the reference. */
static dra_engine_result_t cg_place(cgfx_t *g, int pl, const char *want, dra_engine_served_t by)
{
    char buf[128];
    dra_engine_result_t r = place(&g->x, g->p[pl], DRA_ENGINE_FIRST_FIT, 0);
    CHECK_MSG(strcmp(devices_of(&r, buf, sizeof buf), want) == 0, "plan %d: %s, want %s", pl, buf,
              want);
    CHECK_MSG(r.served == by, "plan %d: served %s, want %s", pl, dra_engine_served_name(r.served),
              dra_engine_served_name(by));
    return r;
}

static void cg_every_policy(cgfx_t *g)
{
    every_policy(&g->x, g->p, CG_NPLANS);
}

static void test_direct_groups_enforced(void)
{
    static const dra_release_t rels[] = {DRA_RELEASE_1_37, DRA_RELEASE_1_38_PRE};
    for (size_t ri = 0; ri < sizeof rels / sizeof rels[0]; ri++) {
        cgfx_t g;
        if (!cg_init(&g, rels[ri], "DRADeviceCompatibilityGroups=true")) {
            fx_fini(&g.x);
            continue;
        }
        const dra_engine_served_t G = DRA_SERVED_DIRECT_GROUPS;
        cg_every_policy(&g);
        /* nothing in use: the first device of each kind */
        cg_place(&g, CG_ANY1, "full0", G);
        cg_place(&g, CG_MIG1, "mig0a", G);
        cg_place(&g, CG_VGPU1, "vgpu0", G);
        /* picks of one call: full0 (no groups) leaves no room on g0, mig1a starts g1 */
        cg_place(&g, CG_ANY2, "full0,mig1a", G);
        /* two MIG slices share group mig */
        cg_place(&g, CG_MIG2, "mig0a,mig0b", G);
        /* the two vGPUs are on two sets: each set's groups alone */
        cg_place(&g, CG_VGPU2, "vgpu0,vgpu1", G);
        /* three: the greedy path (full0, mig1a) meets vgpu1 refused beside mig1a and stops
         * short: the search backtracks, the allocator answers */
        dra_engine_result_t r = place(&g.x, g.p[CG_ANY3], DRA_ENGINE_FIRST_FIT, 0);
        CHECK_EQ_U64(r.kind, DRA_OUTCOME_ALLOCATED);
        CHECK_EQ_U64(r.direct_calls, 0);
        CHECK_EQ_U64(r.exact_calls, 1);
        /* already allocated peers: a vGPU on g0 refuses the MIG slices and the whole GPU */
        cg_commit(&g.x, "vgpu0", false);
        cg_every_policy(&g);
        cg_place(&g, CG_MIG1, "mig1a", G);
        cg_place(&g, CG_ANY1, "both0", G); /* [mig, vgpu] has vgpu in common */
        cg_place(&g, CG_X, "x01", G);      /* g0: vgpu with vgpu0, g1: empty */
        /* vgpu1 is n1's only vGPU left, vgpu2 n2's: no node has two (the summaries say so) */
        cg_place(&g, CG_VGPU2, "", DRA_SERVED_NONE);
        /* x01 in use: g1 takes MIG only, g0 still vGPU */
        cg_commit(&g.x, "x01", false);
        cg_every_policy(&g);
        cg_place(&g, CG_MIG1, "mig1a", G);
        cg_place(&g, CG_VGPU1, "vgpu2", G);
        cg_place(&g, CG_ANY2, "both0,mig1a", G);
        cg_place(&g, CG_PRIO, "both0", G); /* two vGPUs nowhere: n1 by the subrequest of one */
        /* release: g0 keeps x01's vgpu, then empties */
        cg_commit(&g.x, "vgpu0", true);
        cg_place(&g, CG_ANY1, "vgpu0", G);
        cg_commit(&g.x, "x01", true);
        cg_place(&g, CG_ANY1, "full0", G);
        cg_every_policy(&g);
        /* a mixed set (a device without groups and one with, in use: not a state the allocator
         * makes): the fold's order decides, the allocator answers; plain0 comes first, so g0
         * takes devices without groups only */
        cg_commit(&g.x, "plain0", false);
        cg_commit(&g.x, "mig0a", false);
        r = place(&g.x, g.p[CG_MIG1], DRA_ENGINE_FIRST_FIT, 0);
        CHECK_EQ_U64(r.direct_calls, 0);
        char buf[128];
        CHECK_STREQ(devices_of(&r, buf, sizeof buf), "mig1a");
        cg_every_policy(&g);
        cg_commit(&g.x, "mig0a", true);
        cg_place(&g, CG_MIG1, "mig1a", G); /* g0 without groups now: MIG slices refused */
        cg_place(&g, CG_ANY1, "plain0b", G);
        cg_commit(&g.x, "plain0", true);
        cg_every_policy(&g);
        fx_fini(&g.x);
    }
}

/* With DRADeviceCompatibilityGroups off from 1.37 on (the version-skew skip) a device declaring
 * groups is never allocatable and one without is refused while some device in use on its set
 * has groups; 1.36 does not know the field (the counters alone decide, direct-counters). */
/* Two answers are the same allocation, field by field (strings by text, the engine's configs and
 * node selector by pointer). */
static void check_same_answer(const dra_engine_result_t *a, const dra_engine_result_t *b)
{
    CHECK_EQ_U64(a->kind, b->kind);
    CHECK_EQ_U64(a->node, b->node);
    CHECK_EQ_U64(a->served, b->served);
    CHECK_EQ_U64(a->n, b->n);
    for (uint32_t i = 0; i < a->n && i < b->n; i++) {
        const dra_allocation_t *x = a->allocations[i], *y = b->allocations[i];
        CHECK(x->configs == y->configs && x->nconfigs == y->nconfigs);
        CHECK(x->node_selector == y->node_selector);
        CHECK(x->allocation_timestamp == y->allocation_timestamp);
        CHECK_EQ_U64(x->nresults, y->nresults);
        for (uint32_t j = 0; j < x->nresults && j < y->nresults; j++) {
            const dra_result_t *u = &x->results[j], *v = &y->results[j];
            CHECK_STREQ(u->request, v->request);
            CHECK_STREQ(u->driver, v->driver);
            CHECK_STREQ(u->pool, v->pool);
            CHECK_STREQ(u->device, v->device);
            CHECK_EQ_U64(u->row, v->row);
            CHECK(u->admin_access == v->admin_access);
            CHECK(u->tolerations == v->tolerations && u->ntolerations == v->ntolerations);
            CHECK(u->binding_conditions == v->binding_conditions &&
                  u->nbinding_conditions == v->nbinding_conditions);
            CHECK_STREQ(u->share_id ? u->share_id : "-", v->share_id ? v->share_id : "-");
            CHECK_EQ_U64(u->nconsumed, v->nconsumed);
            for (uint32_t k = 0; k < u->nconsumed && k < v->nconsumed; k++) {
                CHECK_STREQ(u->consumed[k].name, v->consumed[k].name);
                CHECK(dra_quantity_cmp(&u->consumed[k].value, &v->consumed[k].value) == 0);
            }
        }
    }
}

/* Placements into caller-kept result slots (dra_engine_place_slot): every answer equals
 * dra_engine_place's, field by field, while commits and releases move the devices under slots
 * that keep one plan's template (only the devices rewritten) or change plans (a result with a
 * share, then one without, in the same slot); after the first round no direct answer takes
 * anything from the arena; a slot too small for the answer falls back to the arena. */
static void slot_rounds(const char *yaml, const char *gate, const char *const *names, uint32_t np)
{
    fx_t x;
    if (!fx_open(&x, yaml, DRA_RELEASE_1_36, gate))
        return;
    uint32_t plans[8];
    for (uint32_t i = 0; i < np; i++)
        plans[i] = fx_plan(&x, names[i]);
    size_t bytes = dra_engine_slot_bytes(x.e);
    CHECK(bytes > 0);
    enum { SLOTS = 3, HELD = 2 };
    dra_engine_slot_t sl[SLOTS];
    dra_arena_t sa[SLOTS], cmp, keep[HELD];
    dra_engine_result_t held[HELD];
    uint32_t heldp[HELD] = {0};
    bool live[HELD] = {false};
    for (int i = 0; i < SLOTS; i++) {
        sl[i] = (dra_engine_slot_t){.mem = aligned_alloc(64, (bytes + 63) & ~(size_t)63),
                                    .cap = bytes, .tmpl = 0};
        dra_arena_init(&sa[i], 0);
    }
    for (int i = 0; i < HELD; i++)
        dra_arena_init(&keep[i], 0);
    dra_arena_init(&cmp, 0);
    uint64_t direct = 0, templ = 0;
    for (uint32_t it = 0; it < 12 * np; it++) {
        /* a plan per round, in rounds of its own so one slot sees one plan again and again;
         * every fourth round mixed */
        uint32_t round = it / np, pi = round % 4 == 3 ? it % np : round % np, si = it % SLOTS;
        uint64_t before = sl[si].tmpl;
        dra_arena_reset(&sa[si]);
        dra_arena_reset(&cmp);
        dra_engine_result_t a, b;
        CHECK_OK(dra_engine_place_slot(x.e, plans[pi], DRA_ENGINE_FIRST_FIT, 0, &sl[si], &sa[si],
                                       &a));
        CHECK_OK(dra_engine_place(x.e, plans[pi], DRA_ENGINE_FIRST_FIT, 0, &cmp, &b));
        check_same_answer(&a, &b);
        if (a.kind == DRA_OUTCOME_ALLOCATED && a.direct_calls && !a.exact_calls) {
            direct++;
            templ += before != 0 && before == sl[si].tmpl;
            /* no arena allocation: the answer is in the slot */
            CHECK_EQ_U64(sa[si].used, 0);
            CHECK((char *)a.allocations >= (char *)sl[si].mem &&
                  (char *)a.allocations < (char *)sl[si].mem + sl[si].cap);
            /* what it took (dra_engine_slot_used: the lines the runner warms before the
             * slot's next pod) covers the list, each allocation and its results */
            size_t used = dra_engine_slot_used(x.e);
            CHECK(used > 0 && used <= sl[si].cap);
            const char *end = (const char *)sl[si].mem + used;
            CHECK((const char *)(a.allocations + a.n) <= end);
            for (uint32_t k = 0; k < a.n; k++) {
                CHECK((const char *)(a.allocations[k] + 1) <= end);
                CHECK((const char *)(a.allocations[k]->results + a.allocations[k]->nresults) <=
                      end);
            }
        }
        /* every other placement is committed (from the comparison's copy) and released two
         * commits later, so the answers move over the devices */
        if (it % 2 == 0 && b.kind == DRA_OUTCOME_ALLOCATED) {
            uint32_t h = (it / 2) % HELD;
            if (live[h])
                CHECK_OK(dra_engine_release_pod(x.e, heldp[h], held[h].node, held[h].allocations,
                                                held[h].n));
            dra_arena_reset(&keep[h]);
            CHECK_OK(dra_engine_place(x.e, plans[pi], DRA_ENGINE_FIRST_FIT, 0, &keep[h], &held[h]));
            CHECK_OK(dra_engine_commit_pod(x.e, plans[pi], held[h].node, held[h].allocations,
                                           held[h].n));
            heldp[h] = plans[pi];
            live[h] = true;
        }
    }
    CHECK(direct > 4 * np);
    CHECK(templ > 0); /* some placements wrote only the per-pod fields */
    check_summaries(&x);
    /* a slot too small: the arena, the same answer */
    dra_engine_slot_t tiny = {.mem = sl[0].mem, .cap = 32, .tmpl = 0};
    for (uint32_t i = 0; i < np; i++) {
        dra_engine_result_t a, b;
        dra_arena_reset(&sa[0]);
        dra_arena_reset(&cmp);
        CHECK_OK(dra_engine_place_slot(x.e, plans[i], DRA_ENGINE_FIRST_FIT, 0, &tiny, &sa[0], &a));
        CHECK_OK(dra_engine_place(x.e, plans[i], DRA_ENGINE_FIRST_FIT, 0, &cmp, &b));
        check_same_answer(&a, &b);
        if (a.kind == DRA_OUTCOME_ALLOCATED)
            CHECK(sa[0].used > 0);
        CHECK_EQ_U64(dra_engine_slot_used(x.e), 0); /* nothing in the slot */
    }
    for (int i = 0; i < HELD; i++) {
        if (live[i])
            CHECK_OK(dra_engine_release_pod(x.e, heldp[i], held[i].node, held[i].allocations,
                                            held[i].n));
        dra_arena_fini(&keep[i]);
    }
    for (int i = 0; i < SLOTS; i++) {
        free(sl[i].mem);
        dra_arena_fini(&sa[i]);
    }
    dra_arena_fini(&cmp);
    check_summaries(&x);
    fx_fini(&x);
}

static void test_slot_placements(void)
{
    static const char *const plain[] = {"one", "three", "same2", "pairm", "prio", "pair"};
    slot_rounds(k_direct, NULL, plain, 6);
    static const char *const shares[] = {"four", "two", "nocap", "odd", "prio", "pairm"};
    slot_rounds(k_direct_shares, "DRAConsumableCapacity=true", shares, 6);
}

static void test_direct_groups_skip_and_1_36(void)
{
    cgfx_t g;
    if (cg_init(&g, DRA_RELEASE_1_37, NULL)) {
        const dra_engine_served_t G = DRA_SERVED_DIRECT_GROUPS;
        cg_every_policy(&g);
        cg_place(&g, CG_ANY1, "full0", G);
        cg_place(&g, CG_MIG1, "", DRA_SERVED_NONE);
        CHECK(!dra_engine_admits(g.x.e, g.p[CG_MIG1], 0) && !dra_engine_admits(g.x.e, g.p[CG_MIG1], 1));
        /* full0 takes all of g0, the plain slices then do not fit: the search's to undo */
        char buf[128];
        dra_engine_result_t r = place(&g.x, g.p[CG_ANY2], DRA_ENGINE_FIRST_FIT, 0);
        CHECK_STREQ(devices_of(&r, buf, sizeof buf), "plain0,plain0b");
        CHECK_EQ_U64(r.direct_calls, 0);
        cg_place(&g, CG_PRIO, "full0", G);
        /* a device with groups in use (a state from before the skip): g0's devices without
         * groups are refused too */
        cg_commit(&g.x, "mig0a", false);
        cg_every_policy(&g);
        cg_place(&g, CG_ANY1, "plain2", G);
        cg_commit(&g.x, "mig0a", true);
        cg_place(&g, CG_ANY1, "full0", G);
        /* a mixed set (plain0 without groups first in slice order, mig0b with): the skip reads
         * whether any device in use on the set declared groups, not the enforced rule's fold,
         * so plain0b is refused as well and the answer is direct (upstream's
         * groupedCounterSetsForPool; conformance v1.37/040) */
        cg_commit(&g.x, "plain0", false);
        cg_commit(&g.x, "mig0b", false);
        cg_place(&g, CG_ANY1, "plain2", G);
        cg_every_policy(&g);
    }
    fx_fini(&g.x);
    if (cg_init(&g, DRA_RELEASE_1_36, "DRAPartitionableDevices=true")) {
        const dra_engine_served_t C = DRA_SERVED_DIRECT_COUNTERS;
        cg_every_policy(&g);
        cg_place(&g, CG_ANY1, "full0", C);
        cg_commit(&g.x, "vgpu0", false);
        cg_place(&g, CG_MIG1, "mig0a", C); /* groups ignored */
        cg_place(&g, CG_ANY2, "plain0,plain0b", C);
        cg_every_policy(&g);
    }
    fx_fini(&g.x);
}

int main(void)
{
    RUN(test_summaries_follow_commit_and_release);
    RUN(test_summary_admits_exact_fails);
    RUN(test_policies_match_reference);
    RUN(test_cel_error_surfaces);
    RUN(test_invalid_pool_is_a_hazard);
    RUN(test_counters_shrink_summaries);
    RUN(test_node_resources);
    RUN(test_all_mode_partially_used_nodes);
    RUN(test_all_mode_counters);
    RUN(test_all_mode_split_pool);
    RUN(test_all_mode_counter_slice_gate_off);
    RUN(test_capacity_summary);
    RUN(test_capacity_summary_groups);
    RUN(test_multi_allocatable_counters);
    RUN(test_lean_sibling_refresh);
    RUN(test_direct_answers);
    RUN(test_direct_multi);
    RUN(test_direct_counters);
    RUN(test_direct_multi_without_capacity);
    RUN(test_direct_shares);
    RUN(test_direct_share_tags);
    RUN(test_direct_shares_fallbacks);
    RUN(test_direct_shares_committed_before_plan);
    RUN(test_capacity_limits_profile_arithmetic);
    RUN(test_direct_groups_enforced);
    RUN(test_direct_groups_skip_and_1_36);
    RUN(test_release_records);
    RUN(test_share_release_records);
    RUN(test_share_records_by_name);
    RUN(test_slot_placements);
    RUN(test_reset_equals_fresh);
    RUN(test_reset_equals_fresh_counters);
    return check_summary();
}
