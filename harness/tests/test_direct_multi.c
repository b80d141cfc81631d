/* test_direct_multi.c - the engine's CLAIMS direct answers (core/engine/direct_multi.c) against
 * the reference allocator, on small models read from YAML, under every release profile:
 * allocationMode All (alone, beside a request of another class, in a pod with another claim;
 * members in use, out of counters, tainted; dedicated devices with capacities in the set or
 * not), pods of several claims (the same template twice among them), and shares of
 * multi-allocatable devices over two requests of one claim. Every placement is compared with the
 * brute-force reference placement (the reference allocator, node after node) under every policy,
 * and every direct answer with the fast allocator's on the same node (verify_direct); commits and
 * releases are followed by dra_engine_check. The tests also pin which path served (the new
 * direct-all / direct-claims / direct-requests, or the allocator where the answer is left to it). */
#include <stdlib.h>
#include <string.h>

#include "alloc/alloc.h"
#include "check.h"
#include "engine_fx.h"

/* The plan of the named claims (a pod's claims, in order), separated by commas. */
static uint32_t plan(fx_t *x, const char *names)
{
    dra_claim_t *cs[4];
    uint32_t n = 0;
    char buf[128];
    snprintf(buf, sizeof buf, "%s", names);
    for (char *sp = NULL, *tok = strtok_r(buf, ",", &sp); tok && n < 4;
         tok = strtok_r(NULL, ",", &sp)) {
        cs[n] = dra_model_find_claim(&x->m, NULL, tok);
        CHECK_MSG(cs[n] != NULL, "claim %s", tok);
        if (!cs[n])
            return 0;
        n++;
    }
    uint32_t p = 0;
    CHECK_OK(dra_engine_plan(x->e, cs, n, &p));
    return p;
}

/* Place with the engine and with the reference placement; they must agree on outcome, node,
 * allocations, devices, requests, shareIDs, consumed capacity and configs (FX_CMP_FULL). */
static dra_engine_result_t place_into(fx_t *x, uint32_t p, dra_engine_policy_t pol,
                                      uint32_t start, dra_arena_t *into)
{
    return fx_place_vs_reference_cmp(x, p, pol, start, into, FX_CMP_FULL);
}

static dra_engine_result_t place(fx_t *x, uint32_t p, dra_engine_policy_t pol)
{
    return place_into(x, p, pol, 0, &x->out);
}

static void every_policy(fx_t *x, const uint32_t *ps, size_t n)
{
    static const dra_engine_policy_t pols[] = {DRA_ENGINE_FIRST_FIT, DRA_ENGINE_BEST_FIT,
                                               DRA_ENGINE_SPREAD, DRA_ENGINE_RANDOM};
    for (size_t i = 0; i < n; i++)
        for (size_t k = 0; k < sizeof pols / sizeof pols[0]; k++)
            for (uint32_t start = 0; start < (pols[k] == DRA_ENGINE_RANDOM ? 3u : 1u); start++)
                (void)place_into(x, ps[i], pols[k], start, &x->out);
}

/* The devices of a placement, "d1,d2|d3" (claims separated by '|'). */
static const char *devices_of(const dra_engine_result_t *r, char *buf, size_t len)
{
    buf[0] = 0;
    size_t at = 0;
    for (uint32_t i = 0; r->kind == DRA_OUTCOME_ALLOCATED && i < r->n; i++)
        for (uint32_t j = 0; j < r->allocations[i]->nresults; j++)
            at += (size_t)snprintf(buf + at, at < len ? len - at : 0, "%s%s",
                                   !at ? ""
                                   : j ? ","
                                       : "|",
                                   r->allocations[i]->results[j].device);
    return buf;
}

#define CLASS(name, drv)                                                                           \
    "apiVersion: resource.k8s.io/v1\nkind: DeviceClass\nmetadata: {name: " name "}\n"             \
    "spec: {selectors: [{cel: {expression: 'device.driver == \"" drv "\"'}}],"                    \
    " config: [{opaque: {driver: " drv ", parameters: {from: " name "}}}]}\n---\n"
#define SLICE(name, node, drv, devices)                                                            \
    "apiVersion: resource.k8s.io/v1\nkind: ResourceSlice\nmetadata: {name: " name "}\n"           \
    "spec:\n  driver: " drv "\n  pool: {name: " name ", generation: 1, resourceSliceCount: 1}\n"  \
    "  nodeName: " node "\n  devices: " devices "\n---\n"
#define GDEV(n, m) "{name: " n ", attributes: {model: {string: " m "}}}"
#define ONE(cls) "{requests: [{name: r, exactly: {deviceClassName: " cls ", count: 1}}]}"

/* n1: GPUs a0 (x), a1 (y), a channel; n2: GPUs b0, b1 (x), two channels; n3: GPU c0 (x),
 * tainted, no channel; n4: a GPU d0 (y), no channel. */
static const char k_claims[] =
    NODE("n1") NODE("n2") NODE("n3") NODE("n4") CLASS("gpu", "g") CLASS("ch", "c")
    SLICE("g1", "n1", "g", "[" GDEV("a0", "x") ", " GDEV("a1", "y") "]")
    SLICE("c1", "n1", "c", "[{name: ch0}]")
    SLICE("g2", "n2", "g", "[" GDEV("b0", "x") ", " GDEV("b1", "x") "]")
    SLICE("c2", "n2", "c", "[{name: ch0}, {name: ch1}]")
    SLICE("g3", "n3", "g", "[{name: c0, attributes: {model: {string: x}},"
                           " taints: [{key: k, effect: NoSchedule}]}]")
    SLICE("g4", "n4", "g", "[" GDEV("d0", "y") "]")
    CLAIM("gpu1", ONE("gpu"))
    CLAIM("chan", ONE("ch"))
    CLAIM("gpu2", "{requests: [{name: r, exactly: {deviceClassName: gpu, count: 2}}],"
                  " config: [{opaque: {driver: g, parameters: {mine: 1}}}]}")
    CLAIM("gpu2x", "{requests: [{name: r, exactly: {deviceClassName: gpu, count: 2}}],"
                   " constraints: [{matchAttribute: g/model}]}")
    CLAIM("allg", "{requests: [{name: all, exactly: {deviceClassName: gpu, allocationMode: All}}]}")
    CLAIM("allx", "{requests: [{name: all, exactly: {deviceClassName: gpu, allocationMode: All,"
                  " selectors: [{cel: {expression: 'device.attributes[\"g\"].model == \"x\"'}}]}}]}")
    CLAIM("allgch", "{requests: [{name: all, exactly: {deviceClassName: gpu, allocationMode: All}},"
                    " {name: ch, exactly: {deviceClassName: ch, count: 1}}],"
                    " config: [{requests: [ch], opaque: {driver: c, parameters: {mine: 2}}}]}")
    CLAIM("challg", "{requests: [{name: ch, exactly: {deviceClassName: ch, count: 2}},"
                    " {name: all, exactly: {deviceClassName: gpu, allocationMode: All}}]}")
    CLAIM("alltol", "{requests: [{name: all, exactly: {deviceClassName: gpu, allocationMode: All,"
                    " tolerations: [{key: k, operator: Exists}]}}]}");

static void test_claims_and_all(dra_release_t rel)
{
    fx_t x;
    if (!fx_open(&x, k_claims, rel, NULL))
        return;
    char buf[128];
    uint32_t pod = plan(&x, "gpu2,chan"), podm = plan(&x, "gpu2x,chan"),
             pod3 = plan(&x, "chan,gpu1,chan"), allg = plan(&x, "allg"), allx = plan(&x, "allx"),
             allgch = plan(&x, "allgch"), challg = plan(&x, "challg"),
             allpod = plan(&x, "allg,chan"), meet = plan(&x, "gpu1,allg"),
             alltol = plan(&x, "alltol"), gpu1 = plan(&x, "gpu1");
    const uint32_t ps[] = {pod, podm, pod3, allg, allx, allgch, challg, allpod, meet, alltol, gpu1};
    const size_t nps = sizeof ps / sizeof ps[0];
    every_policy(&x, ps, nps);

    /* several claims: the first node with two GPUs and a channel, one allocation per claim */
    dra_engine_result_t r = place(&x, pod, DRA_ENGINE_FIRST_FIT);
    CHECK_EQ_U64(r.served, DRA_SERVED_DIRECT_CLAIMS);
    CHECK_EQ_U64(r.exact_calls, 0);
    CHECK_EQ_U64(r.n, 2);
    CHECK_STREQ(devices_of(&r, buf, sizeof buf), "a0,a1|ch0");
    if (r.kind == DRA_OUTCOME_ALLOCATED && r.n == 2) /* the class's config, then the claim's */
        CHECK_EQ_U64(r.allocations[0]->nconfigs, 2);
    /* the two GPUs of one model: n2 (n1's differ), its first channel */
    r = place(&x, podm, DRA_ENGINE_FIRST_FIT);
    CHECK_EQ_U64(r.served, DRA_SERVED_DIRECT_CLAIMS);
    CHECK_STREQ(devices_of(&r, buf, sizeof buf), "b0,b1|ch0");
    /* a claim of the same template twice: one channel each, n2 */
    r = place(&x, pod3, DRA_ENGINE_FIRST_FIT);
    CHECK_EQ_U64(r.served, DRA_SERVED_DIRECT_CLAIMS);
    CHECK_STREQ(devices_of(&r, buf, sizeof buf), "ch0|b0|ch1");
    /* All: every GPU of n1 */
    r = place(&x, allg, DRA_ENGINE_FIRST_FIT);
    CHECK_EQ_U64(r.served, DRA_SERVED_DIRECT_ALL);
    CHECK_EQ_U64(r.exact_calls, 0);
    CHECK_STREQ(devices_of(&r, buf, sizeof buf), "a0,a1");
    /* All of the x GPUs: a0 on n1 */
    r = place(&x, allx, DRA_ENGINE_FIRST_FIT);
    CHECK_EQ_U64(r.served, DRA_SERVED_DIRECT_ALL);
    CHECK_STREQ(devices_of(&r, buf, sizeof buf), "a0");
    r = place(&x, allgch, DRA_ENGINE_FIRST_FIT);
    CHECK_EQ_U64(r.served, DRA_SERVED_DIRECT_ALL);
    CHECK_STREQ(devices_of(&r, buf, sizeof buf), "a0,a1,ch0");
    if (r.kind == DRA_OUTCOME_ALLOCATED) /* both classes' configs, then the claim's */
        CHECK_EQ_U64(r.allocations[0]->nconfigs, 3);
    /* two channels first: n2 */
    r = place(&x, challg, DRA_ENGINE_FIRST_FIT);
    CHECK_EQ_U64(r.served, DRA_SERVED_DIRECT_ALL);
    CHECK_STREQ(devices_of(&r, buf, sizeof buf), "ch0,ch1,b0,b1");
    r = place(&x, allpod, DRA_ENGINE_FIRST_FIT);
    CHECK_EQ_U64(r.served, DRA_SERVED_DIRECT_ALL);
    CHECK_STREQ(devices_of(&r, buf, sizeof buf), "a0,a1|ch0");
    /* a GPU claim beside an All claim of its class: their candidates meet, the allocator */
    r = place(&x, meet, DRA_ENGINE_FIRST_FIT);
    CHECK_EQ_U64(r.direct_calls, 0);
    /* tolerating the taint: every node is in the running, spread picks the least used */
    r = place(&x, alltol, DRA_ENGINE_SPREAD);
    CHECK_EQ_U64(r.served, DRA_SERVED_DIRECT_ALL);

    /* fill n1 and n2 step by step: All fails where a member is in use, the pods move on */
    enum { HELD = 4 };
    dra_arena_t keep[HELD];
    dra_engine_result_t held[HELD];
    const uint32_t fill[HELD] = {gpu1, gpu1, pod3, gpu1};
    uint32_t nh = 0;
    for (uint32_t i = 0; i < HELD; i++) {
        dra_arena_init(&keep[nh], 0);
        held[nh] = place_into(&x, fill[i], DRA_ENGINE_FIRST_FIT, 0, &keep[nh]);
        if (held[nh].kind != DRA_OUTCOME_ALLOCATED) {
            dra_arena_fini(&keep[nh]);
            continue;
        }
        CHECK_OK(dra_engine_commit(x.e, held[nh].node, held[nh].allocations, held[nh].n));
        nh++;
        check_summaries(&x);
        every_policy(&x, ps, nps);
    }
    CHECK_EQ_U64(nh, 4);
    /* a0, a1, b0 and n2's channels are taken: All of the GPUs on n3, or on n4 where the taint
     * counts (DRADeviceTaints) */
    r = place(&x, allg, DRA_ENGINE_FIRST_FIT);
    CHECK_EQ_U64(r.kind, DRA_OUTCOME_ALLOCATED);
    CHECK_EQ_U64(r.served, DRA_SERVED_DIRECT_ALL);
    CHECK_STREQ(devices_of(&r, buf, sizeof buf),
                dra_alloc_gate_on(&x.f, DRA_GATE_DEVICE_TAINTS) ? "d0" : "c0");
    r = place(&x, pod, DRA_ENGINE_FIRST_FIT);
    CHECK_EQ_U64(r.kind, DRA_OUTCOME_UNSATISFIABLE);
    while (nh-- > 0) {
        CHECK_OK(dra_engine_release(x.e, held[nh].node, held[nh].allocations, held[nh].n));
        check_summaries(&x);
        every_policy(&x, ps, nps);
        dra_arena_fini(&keep[nh]);
    }
    fx_fini(&x);
}

/* Partitionable devices of one pool (counters in a slice of their own, 1.35 and later): All of
 * them fits the counters only while neither is in use; the single one beside takes a part. */
static const char k_all_counters[] =
    NODE("n1") NODE("n2") CLASS("a", "drv") CLASS("ch", "c")
    "apiVersion: resource.k8s.io/v1\nkind: ResourceSlice\nmetadata: {name: counters}\n"
    "spec:\n  driver: drv\n  pool: {name: p, generation: 1, resourceSliceCount: 2}\n"
    "  nodeName: n1\n  sharedCounters: [{name: set, counters: {mem: {value: 8Gi}}}]\n---\n"
    "apiVersion: resource.k8s.io/v1\nkind: ResourceSlice\nmetadata: {name: devices}\n"
    "spec:\n  driver: drv\n  pool: {name: p, generation: 1, resourceSliceCount: 2}\n"
    "  nodeName: n1\n  devices:\n"
    "  - {name: half0, consumesCounters: [{counterSet: set, counters: {mem: {value: 4Gi}}}]}\n"
    "  - {name: half1, consumesCounters: [{counterSet: set, counters: {mem: {value: 4Gi}}}]}\n"
    "  - {name: whole, attributes: {big: {bool: true}},\n"
    "     consumesCounters: [{counterSet: set, counters: {mem: {value: 8Gi}}}]}\n---\n"
    SLICE("s2", "n2", "drv", "[{name: half0}, {name: half1}]")
    SLICE("c1", "n1", "c", "[{name: ch0}]")
    SLICE("c2", "n2", "c", "[{name: ch0}]")
    CLAIM("halves", "{requests: [{name: all, exactly: {deviceClassName: a, allocationMode: All,"
                    " selectors: [{cel: {expression: '!(\"big\" in device.attributes[\"drv\"])'}}]}},"
                    " {name: ch, exactly: {deviceClassName: ch, count: 1}}]}")
    CLAIM("whole", "{requests: [{name: r, exactly: {deviceClassName: a, count: 1,"
                   " selectors: [{cel: {expression: '\"big\" in device.attributes[\"drv\"]'}}]}}]}")
    CLAIM("half", "{requests: [{name: r, exactly: {deviceClassName: a, count: 1}}]}");

static void test_all_counters(dra_release_t rel)
{
    fx_t x;
    if (!fx_open(&x, k_all_counters, rel, "DRAPartitionableDevices=true"))
        return;
    char buf[128];
    uint32_t halves = plan(&x, "halves"), whole = plan(&x, "whole"), half = plan(&x, "half"),
             pod = plan(&x, "halves,whole");
    const uint32_t ps[] = {halves, whole, half, pod};
    every_policy(&x, ps, 4);
    if (rel < DRA_RELEASE_1_35) { /* counters in a slice of their own: per slice in 1.34 */
        fx_fini(&x);
        return;
    }
    dra_engine_result_t r = place(&x, halves, DRA_ENGINE_FIRST_FIT);
    CHECK_EQ_U64(r.kind, DRA_OUTCOME_ALLOCATED);
    CHECK_EQ_U64(r.node, 0);
    CHECK_STREQ(devices_of(&r, buf, sizeof buf), "half0,half1,ch0");
    CHECK_EQ_U64(r.served, DRA_SERVED_DIRECT_ALL);
    /* the whole device in use: the halves do not fit their counters on n1, All moves to n2 */
    dra_arena_t keep;
    dra_arena_init(&keep, 0);
    dra_engine_result_t w = place_into(&x, whole, DRA_ENGINE_FIRST_FIT, 0, &keep);
    CHECK_EQ_U64(w.kind, DRA_OUTCOME_ALLOCATED);
    if (w.kind == DRA_OUTCOME_ALLOCATED) {
        CHECK_OK(dra_engine_commit(x.e, w.node, w.allocations, w.n));
        check_summaries(&x);
        every_policy(&x, ps, 4);
        r = place(&x, halves, DRA_ENGINE_FIRST_FIT);
        CHECK_EQ_U64(r.node, 1);
        CHECK_OK(dra_engine_release(x.e, w.node, w.allocations, w.n));
        check_summaries(&x);
        every_policy(&x, ps, 4);
    }
    dra_arena_fini(&keep);
    fx_fini(&x);
}

/* Multi-allocatable devices of two drivers (memory shares) and a plain NIC: two requests for
 * shares of one claim, and shares beside a dedicated device. */
#define SH(n) "{name: " n ", allowMultipleAllocations: true, capacity: {memory: {value: 10Gi,"    \
              " requestPolicy: {default: 1Gi, validRange: {min: 1Gi, step: 1Gi}}}}}"
#define SHM(n, m) "{name: " n ", attributes: {model: {string: " m "}}, allowMultipleAllocations:"  \
                  " true, capacity: {memory: {value: 10Gi}}}"
static const char k_shares[] =
    NODE("n1") NODE("n2") CLASS("a", "drv") CLASS("b", "other") CLASS("nic", "n")
    SLICE("s1", "n1", "drv", "[" SH("g0") "]")
    SLICE("o1", "n1", "other", "[" SH("o0") "]")
    SLICE("s2", "n2", "drv", "[" SH("h0") ", " SH("h1") "]")
    SLICE("o2", "n2", "other", "[" SH("p0") "]")
    SLICE("x2", "n2", "n", "[{name: nic0}]")
    CLAIM("ab", "{requests: [{name: x, exactly: {deviceClassName: a, count: 1,"
                " capacity: {requests: {memory: 6Gi}}}}, {name: y, exactly: {deviceClassName: b,"
                " count: 1, capacity: {requests: {memory: 3Gi}}}}]}")
    CLAIM("anic", "{requests: [{name: x, exactly: {deviceClassName: a, count: 1,"
                  " capacity: {requests: {memory: 2Gi}}}}, {name: n, exactly: {deviceClassName: nic,"
                  " count: 1}}]}")
    CLAIM("aa", "{requests: [{name: x, exactly: {deviceClassName: a, count: 1,"
                " capacity: {requests: {memory: 2Gi}}}}, {name: y, exactly: {deviceClassName: a,"
                " count: 1, capacity: {requests: {memory: 2Gi}}}}]}");

static void test_shares_two_requests(dra_release_t rel)
{
    fx_t x;
    if (!fx_open(&x, k_shares, rel, "DRAConsumableCapacity=true"))
        return;
    char buf[128];
    dra_engine_result_t r;
    uint32_t ab = plan(&x, "ab"), anic = plan(&x, "anic"), aa = plan(&x, "aa");
    const uint32_t ps[] = {ab, anic, aa};
    every_policy(&x, ps, 3);
    r = place(&x, anic, DRA_ENGINE_FIRST_FIT);
    CHECK_EQ_U64(r.served, DRA_SERVED_DIRECT_REQUESTS);
    CHECK_STREQ(devices_of(&r, buf, sizeof buf), "h0,nic0");
    /* two requests over one class: their candidates meet (one device may take both shares) */
    r = place(&x, aa, DRA_ENGINE_FIRST_FIT);
    CHECK_EQ_U64(r.direct_calls, 0);
    /* shares of ab until g0 is short: 6Gi, then 10Gi - 6Gi < 6Gi, the next on n2 */
    enum { HELD = 4 };
    dra_arena_t keep[HELD];
    dra_engine_result_t held[HELD];
    const char *want[HELD] = {"g0,o0", "h0,p0", "h1,p0", "h0,p0"};
    uint32_t nh = 0;
    for (uint32_t i = 0; i < HELD; i++) {
        dra_arena_init(&keep[nh], 0);
        held[nh] = place_into(&x, ab, DRA_ENGINE_FIRST_FIT, 0, &keep[nh]);
        if (held[nh].kind != DRA_OUTCOME_ALLOCATED) {
            dra_arena_fini(&keep[nh]);
            continue;
        }
        CHECK_EQ_U64(held[nh].served, DRA_SERVED_DIRECT_REQUESTS);
        CHECK_STREQ(devices_of(&held[nh], buf, sizeof buf), want[i]);
        CHECK_OK(dra_engine_commit(x.e, held[nh].node, held[nh].allocations, held[nh].n));
        nh++;
        check_summaries(&x);
        every_policy(&x, ps, 3);
    }
    CHECK_EQ_U64(nh, 3); /* p0's 10Gi took three shares of 3Gi */
    while (nh-- > 0) {
        CHECK_OK(dra_engine_release(x.e, held[nh].node, held[nh].allocations, held[nh].n));
        check_summaries(&x);
        dra_arena_fini(&keep[nh]);
    }
    every_policy(&x, ps, 3);
    fx_fini(&x);
}

/* Shares under a matchAttribute (alone, and on one request of two beside a NIC): two devices of
 * one model with the memory the request asks left on each. */
static const char k_match_shares[] =
    NODE("n1") NODE("n2") CLASS("m", "mdl") CLASS("nic", "n")
    SLICE("m1", "n1", "mdl", "[" SHM("k0", "p") ", " SHM("k1", "q") "]")
    SLICE("m2", "n2", "mdl", "[" SHM("l0", "p") ", " SHM("l1", "q") ", " SHM("l2", "q") "]")
    SLICE("x2", "n2", "n", "[{name: nic0}]")
    CLAIM("same", "{requests: [{name: x, exactly: {deviceClassName: m, count: 2,"
                  " capacity: {requests: {memory: 4Gi}}}}], constraints: [{matchAttribute: mdl/model}]}")
    CLAIM("samenic", "{requests: [{name: x, exactly: {deviceClassName: m, count: 1,"
                     " capacity: {requests: {memory: 6Gi}}}}, {name: n, exactly:"
                     " {deviceClassName: nic, count: 1}}],"
                     " constraints: [{matchAttribute: mdl/model, requests: [x]}]}");

static void test_shares_match(dra_release_t rel)
{
    fx_t x;
    if (!fx_open(&x, k_match_shares, rel, "DRAConsumableCapacity=true"))
        return;
    char buf[128];
    uint32_t same = plan(&x, "same"), samenic = plan(&x, "samenic");
    const uint32_t ps[] = {same, samenic};
    every_policy(&x, ps, 2);
    if (rel < DRA_RELEASE_1_36) { /* permutations: a request may take one device twice (the
                                     allocator's, compared above) */
        fx_fini(&x);
        return;
    }
    /* two devices of one model: n2's q pair (n1 has one of each), again until their memory is
     * short (4Gi twice fits a 10Gi device, a third time does not) */
    dra_arena_t hold[3];
    dra_engine_result_t hr[3];
    uint32_t nhold = 0;
    for (uint32_t i = 0; i < 3; i++) {
        dra_arena_init(&hold[nhold], 0);
        hr[nhold] = place_into(&x, same, DRA_ENGINE_FIRST_FIT, 0, &hold[nhold]);
        CHECK_EQ_U64(hr[nhold].served, i < 2 ? DRA_SERVED_DIRECT_SHARES : DRA_SERVED_NONE);
        if (hr[nhold].kind != DRA_OUTCOME_ALLOCATED) {
            dra_arena_fini(&hold[nhold]);
            continue;
        }
        CHECK_STREQ(devices_of(&hr[nhold], buf, sizeof buf), "l1,l2");
        CHECK_OK(dra_engine_commit(x.e, hr[nhold].node, hr[nhold].allocations, hr[nhold].n));
        nhold++;
        check_summaries(&x);
        every_policy(&x, ps, 2);
    }
    CHECK_EQ_U64(nhold, 2);
    /* one share of a model's device beside a NIC: n2 (n1 has no NIC), l0 */
    dra_engine_result_t r = place(&x, samenic, DRA_ENGINE_FIRST_FIT);
    CHECK_EQ_U64(r.served, DRA_SERVED_DIRECT_REQUESTS);
    CHECK_STREQ(devices_of(&r, buf, sizeof buf), "l0,nic0");
    while (nhold-- > 0) {
        CHECK_OK(dra_engine_release(x.e, hr[nhold].node, hr[nhold].allocations, hr[nhold].n));
        check_summaries(&x);
        dra_arena_fini(&hold[nhold]);
    }
    every_policy(&x, ps, 2);
    fx_fini(&x);
}

/* Dedicated devices with capacities under DRAConsumableCapacity: the All set takes a device
 * whose capacity holds the request's default consumption and leaves out one whose policy asks
 * for more than it has (the set's static capacity check, repeated by the search's recheck). */
static const char k_all_caps[] =
    NODE("n1") NODE("n2") CLASS("a", "drv")
    SLICE("s1", "n1", "drv", "[{name: d0, capacity: {memory: {value: 10Gi}}},"
                             " {name: d1, capacity: {memory: {value: 4Gi, requestPolicy:"
                             " {default: 6Gi, validRange: {min: 6Gi}}}}},"
                             " {name: d2, capacity: {memory: {value: 8Gi, requestPolicy:"
                             " {default: 2Gi, validRange: {min: 1Gi}}}}}]")
    SLICE("s2", "n2", "drv", "[{name: e0, capacity: {memory: {value: 10Gi}}}]")
    CLAIM("all", "{requests: [{name: all, exactly: {deviceClassName: a, allocationMode: All}}]}")
    CLAIM("one", ONE("a"));

static void test_all_capacities(dra_release_t rel)
{
    fx_t x;
    if (!fx_open(&x, k_all_caps, rel, "DRAConsumableCapacity=true"))
        return;
    char buf[128];
    uint32_t all = plan(&x, "all"), one = plan(&x, "one");
    const uint32_t ps[] = {all, one};
    every_policy(&x, ps, 2);
    dra_engine_result_t r = place(&x, all, DRA_ENGINE_FIRST_FIT);
    CHECK_EQ_U64(r.served, DRA_SERVED_DIRECT_ALL);
    CHECK_STREQ(devices_of(&r, buf, sizeof buf), "d0,d2");
    /* d0 in use (a single device takes the first): All moves to n2 */
    dra_arena_t keep;
    dra_arena_init(&keep, 0);
    dra_engine_result_t u = place_into(&x, one, DRA_ENGINE_FIRST_FIT, 0, &keep);
    if (u.kind == DRA_OUTCOME_ALLOCATED) {
        CHECK_OK(dra_engine_commit(x.e, u.node, u.allocations, u.n));
        check_summaries(&x);
        every_policy(&x, ps, 2);
        r = place(&x, all, DRA_ENGINE_FIRST_FIT);
        CHECK_EQ_U64(r.node, 1);
        CHECK_OK(dra_engine_release(x.e, u.node, u.allocations, u.n));
        check_summaries(&x);
    }
    dra_arena_fini(&keep);
    fx_fini(&x);
}

/* An incomplete pool on n1 (one of its two slices published): every All plan stays with the
 * allocator, whose outcome differs by release (PR #141898), node after node (brute force); a
 * plan of several claims without All is still answered directly on the complete nodes. */
static const char k_all_incomplete[] =
    NODE("n1") NODE("n2") CLASS("gpu", "g") CLASS("ch", "c")
    "apiVersion: resource.k8s.io/v1\nkind: ResourceSlice\nmetadata: {name: half}\n"
    "spec:\n  driver: g\n  pool: {name: p, generation: 1, resourceSliceCount: 2}\n"
    "  nodeName: n1\n  devices: [{name: a0}]\n---\n"
    SLICE("g2", "n2", "g", "[{name: b0}]")
    SLICE("c1", "n1", "c", "[{name: ch0}]")
    SLICE("c2", "n2", "c", "[{name: ch0}]")
    CLAIM("allg", "{requests: [{name: all, exactly: {deviceClassName: gpu, allocationMode: All}}]}")
    CLAIM("gpu1", ONE("gpu"))
    CLAIM("chan", ONE("ch"));

static void test_all_incomplete_pool(dra_release_t rel)
{
    fx_t x;
    if (!fx_open(&x, k_all_incomplete, rel, NULL))
        return;
    uint32_t allpod = plan(&x, "allg,chan"), pod = plan(&x, "gpu1,chan"), allg = plan(&x, "allg");
    const uint32_t ps[] = {allpod, pod, allg};
    every_policy(&x, ps, 3);
    dra_engine_result_t r = place(&x, allpod, DRA_ENGINE_FIRST_FIT);
    CHECK_EQ_U64(r.direct_calls, 0);
    r = place(&x, allg, DRA_ENGINE_FIRST_FIT);
    CHECK_EQ_U64(r.direct_calls, 0);
    r = place(&x, pod, DRA_ENGINE_FIRST_FIT);
    CHECK_EQ_U64(r.kind, DRA_OUTCOME_ALLOCATED);
    /* n1's pool is incomplete: a hazard node, the allocator's (1.34 takes its device, later
     * releases skip the pool: n2, answered directly) */
    CHECK_EQ_U64(r.node, rel == DRA_RELEASE_1_34 ? 0 : 1);
    CHECK_EQ_U64(r.served, rel == DRA_RELEASE_1_34 ? DRA_SERVED_SEARCH : DRA_SERVED_DIRECT_CLAIMS);
    fx_fini(&x);
}

static dra_release_t g_rel;

static void test_shares_match_release(void)
{
    test_shares_match(g_rel);
}

static void test_all_incomplete_pool_release(void)
{
    test_all_incomplete_pool(g_rel);
}

static void test_all_capacities_release(void)
{
    test_all_capacities(g_rel);
}

static void test_claims_and_all_release(void)
{
    test_claims_and_all(g_rel);
}

static void test_all_counters_release(void)
{
    test_all_counters(g_rel);
}

static void test_shares_two_requests_release(void)
{
    test_shares_two_requests(g_rel);
}

int main(void)
{
    for (uint32_t i = 0; i < DRA_RELEASE_COUNT; i++) {
        g_rel = dra_alloc_releases[i];
        int before = check__failed;
        RUN(test_claims_and_all_release);
        RUN(test_all_counters_release);
        RUN(test_shares_two_requests_release);
        RUN(test_all_capacities_release);
        RUN(test_all_incomplete_pool_release);
        RUN(test_shares_match_release);
        if (check__failed > before)
            fprintf(stderr, "  (release %s)\n", dra_alloc_release_name(g_rel));
    }
    return check_summary();
}
