/*
 * test_engine_release.c - a release does the work of the commit it takes back, no more: on a
 * partitionable device's counter set, the rows a release refreshes, the rows whose availability
 * it flips, the counter-list entries its cuts move over and the signature leaves it sets are
 * exactly the commit's, by record and by allocations alike, and none is a sibling row whose fit
 * did not change (counted by the engine's debug counters, engine_tests.h; a build without them
 * skips).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "engine/engine_tests.h"
#include "engine_fx.h"

#define CLASS(name, drv)                                                                           \
    "apiVersion: resource.k8s.io/v1\nkind: DeviceClass\nmetadata: {name: " name "}\n"              \
    "spec: {selectors: [{cel: {expression: 'device.driver == \"" drv "\"'}}]}\n---\n"
#define DEVICE(name, kind, amount)                                                                 \
    "  - {name: " name ", attributes: {kind: {string: " kind "}},\n"                               \
    "     consumesCounters: [{counterSet: set, counters: {mem: {value: " amount "}}}]}\n"
#define PICK(name, kind)                                                                           \
    CLAIM(name, "{requests: [{name: r, exactly: {deviceClassName: a, count: 1, selectors:"         \
                " [{cel: {expression: 'device.attributes[\"drv\"].kind == \"" kind "\"'}}]}}]}")

/* 16Gi of counters on n1: big (12Gi), mid-0 / mid-1 (8Gi), small-0..3 (2Gi); n2 has a plain
 * device. Committing big leaves 4Gi: big goes in use, and only the mids stop fitting. */
static const char k_release[] = NODE("n1") NODE("n2") CLASS(
    "a",
    "drv") "apiVersion: resource.k8s.io/v1\nkind: ResourceSlice\nmetadata: {name: counters}\n"
           "spec:\n  driver: drv\n  pool: {name: p, generation: 1, resourceSliceCount: 2}\n"
           "  nodeName: n1\n  sharedCounters: [{name: set, counters: {mem: {value: 16Gi}}}]\n---\n"
           "apiVersion: resource.k8s.io/v1\nkind: ResourceSlice\nmetadata: {name: devices}\n"
           "spec:\n  driver: drv\n  pool: {name: p, generation: 1, resourceSliceCount: 2}\n"
           "  nodeName: n1\n  devices:\n" DEVICE("big", "big", "12Gi") DEVICE("mid-0", "mid", "8Gi")
               DEVICE("mid-1", "mid", "8Gi") DEVICE("small-0", "small", "2Gi")
                   DEVICE("small-1", "small", "2Gi") DEVICE("small-2", "small", "2Gi")
                       DEVICE("small-3", "small",
                              "2Gi") "---\n"
                                     "apiVersion: resource.k8s.io/v1\nkind: "
                                     "ResourceSlice\nmetadata: {name: s2}\n"
                                     "spec:\n  driver: drv\n  pool: {name: s2, generation: 1, "
                                     "resourceSliceCount: 1}\n"
                                     "  nodeName: n2\n  devices: [{name: g, attributes: {kind: "
                                     "{string: small}}}]\n---\n" PICK("big", "big")
                                         PICK("mid", "mid") PICK("small", "small")
                                             PICK("plain", "plain")
                                                 CLAIM("any", "{requests: [{name: r, exactly: "
                                                              "{deviceClassName: a, count: 1}}]}");

static bool skipped; /* the build does not count: exit 77 (ctest: skipped) */

static dra_engine_work_t work(const fx_t *x)
{
    dra_engine_work_t w;
    CHECK(dra_engine_work(x->e, &w));
    return w;
}

static dra_engine_work_t minus(dra_engine_work_t a, dra_engine_work_t b)
{
    return (dra_engine_work_t){a.rows_refreshed - b.rows_refreshed, a.rows_flipped - b.rows_flipped,
                               a.cut_moves - b.cut_moves, a.leaves_set - b.leaves_set};
}

#define CHECK_WORK_EQ(a, b, what)                                                                  \
    CHECK_MSG((a).rows_refreshed == (b).rows_refreshed && (a).rows_flipped == (b).rows_flipped &&  \
                  (a).cut_moves == (b).cut_moves && (a).leaves_set == (b).leaves_set,              \
              "%s: refreshed %llu / %llu, flipped %llu / %llu, cut moves %llu / %llu, leaves "     \
              "%llu / %llu",                                                                       \
              what, (unsigned long long)(a).rows_refreshed,                                        \
              (unsigned long long)(b).rows_refreshed, (unsigned long long)(a).rows_flipped,        \
              (unsigned long long)(b).rows_flipped, (unsigned long long)(a).cut_moves,             \
              (unsigned long long)(b).cut_moves, (unsigned long long)(a).leaves_set,               \
              (unsigned long long)(b).leaves_set)

/* Place plan p (the engine's answer, committed below by the caller), on n1. */
static dra_engine_result_t place_n1(fx_t *x, uint32_t p, dra_arena_t *into, const char *want)
{
    dra_engine_result_t r;
    dra_arena_reset(into);
    CHECK_OK(dra_engine_place(x->e, p, DRA_ENGINE_FIRST_FIT, 0, into, &r));
    CHECK_EQ_U64(r.kind, DRA_OUTCOME_ALLOCATED);
    CHECK_EQ_U64(r.node, 0);
    CHECK(r.n == 1 && r.allocations[0]->nresults == 1 &&
          strcmp(r.allocations[0]->results[0].device, want) == 0);
    return r;
}

static void test_release_does_the_commits_work(void)
{
    fx_t x;
    if (!fx_open(&x, k_release, DRA_RELEASE_1_36, "DRAPartitionableDevices=true"))
        return;
    dra_engine_work_t w0;
    if (!dra_engine_work(x.e, &w0)) {
        fprintf(stderr,
                "test_engine_release: this build does not count the engine's work (DRA_DEBUG 0)\n");
        fx_fini(&x);
        skipped = true;
        return;
    }
    uint32_t big = fx_plan(&x, "big"), mid = fx_plan(&x, "mid"), small = fx_plan(&x, "small");
    (void)fx_plan(&x, "any");
    dra_arena_t ka, kb;
    dra_arena_init(&ka, 0);
    dra_arena_init(&kb, 0);

    /* big: its own row and the two mids flip (12Gi + 8Gi > 16Gi), the smalls keep fitting */
    dra_engine_result_t a = place_n1(&x, big, &ka, "big");
    if (a.kind != DRA_OUTCOME_ALLOCATED)
        goto out;
    dra_engine_rec_t h = {0};
    w0 = work(&x);
    CHECK_OK(dra_engine_commit_pod_rec(x.e, big, a.node, a.allocations, a.n, &h));
    CHECK(dra_engine_rec_held(&h));
    dra_engine_work_t c = minus(work(&x), w0);
    CHECK_EQ_U64(c.rows_flipped, 3);
    /* the entries whose fit changed: big's own and the two mids' (cut from 16Gi to 4Gi) */
    CHECK_EQ_U64(c.cut_moves, 3);
    /* each refresh is the result's row or a row an entry's move changed: no sibling rescan */
    CHECK(c.rows_refreshed <= 1 + c.cut_moves);
    CHECK(c.leaves_set > 0);
    check_summaries(&x);
    /* the check recomputes each counter's remainder from the rows in use: one the engine holds
     * 1 off (either way) is found, and put back it passes again */
    /* first by a multiple of every amount's power of two (the 64-bit copies stay the
     * remainders, counters.c), then by 1 (back to the exact amounts) */
    const int64_t bys[2] = {-((int64_t)1 << 62), (int64_t)1 << 62};
    for (int i = 0; i < 2; i++) {
        char why[256] = "";
        int64_t by = bys[i];
        CHECK(dra_engine_test_nudge_counter(x.e, 0, by));
        CHECK(!dra_engine_check(x.e, why, sizeof why));
        CHECK_MSG(strstr(why, "counter 0") != NULL, "%s", why);
        CHECK(dra_engine_test_nudge_counter(x.e, 0, -by));
        check_summaries(&x);
    }
    for (int by = -1; by <= 1; by += 2) {
        char why[256] = "";
        CHECK(dra_engine_test_nudge_counter(x.e, 0, by));
        CHECK(!dra_engine_check(x.e, why, sizeof why));
        CHECK_MSG(strstr(why, "counter 0") != NULL, "%s", why);
        CHECK(dra_engine_test_nudge_counter(x.e, 0, -by));
        check_summaries(&x);
    }
    CHECK(!dra_engine_test_nudge_counter(x.e, 1000000, 1));

    w0 = work(&x);
    CHECK_OK(dra_engine_release_record(x.e, &h));
    dra_engine_work_t r = minus(work(&x), w0);
    CHECK_WORK_EQ(r, c, "release by record against its commit");
    check_summaries(&x);

    /* the same by allocations, and with another pod in use on the set (a small: the cut stops
     * at 2Gi more, the same three entries change) */
    dra_engine_result_t b = place_n1(&x, small, &kb, "small-0");
    if (b.kind != DRA_OUTCOME_ALLOCATED)
        goto out;
    CHECK_OK(dra_engine_commit_pod(x.e, small, b.node, b.allocations, b.n));
    a = place_n1(&x, big, &ka, "big");
    if (a.kind != DRA_OUTCOME_ALLOCATED)
        goto out;
    w0 = work(&x);
    CHECK_OK(dra_engine_commit_pod(x.e, big, a.node, a.allocations, a.n));
    c = minus(work(&x), w0);
    CHECK_EQ_U64(c.rows_flipped, 3);
    CHECK(c.rows_refreshed <= 1 + c.cut_moves);
    w0 = work(&x);
    CHECK_OK(dra_engine_release_pod(x.e, big, a.node, a.allocations, a.n));
    r = minus(work(&x), w0);
    CHECK_WORK_EQ(r, c, "release by allocations against its commit");
    check_summaries(&x);

    /* a mid with a record: 8Gi + 2Gi in use leaves 6Gi, so big (12Gi) stops fitting with its
     * entry, and the other mid (8Gi) too */
    a = place_n1(&x, mid, &ka, "mid-0");
    if (a.kind != DRA_OUTCOME_ALLOCATED)
        goto out;
    w0 = work(&x);
    CHECK_OK(dra_engine_commit_pod_rec(x.e, mid, a.node, a.allocations, a.n, &h));
    CHECK(dra_engine_rec_held(&h));
    c = minus(work(&x), w0);
    CHECK_EQ_U64(c.rows_flipped, 3);
    CHECK(c.rows_refreshed <= 1 + c.cut_moves);
    w0 = work(&x);
    CHECK_OK(dra_engine_release_record(x.e, &h));
    r = minus(work(&x), w0);
    CHECK_WORK_EQ(r, c, "release by record of a mid");
    CHECK_OK(dra_engine_release_pod(x.e, small, b.node, b.allocations, b.n));
    check_summaries(&x);
out:
    dra_arena_fini(&ka);
    dra_arena_fini(&kb);
    fx_fini(&x);
}

/* A MIG-like GPU: 8 memory slices of 1 each, 8 units of memory, 7 compute; full (everything),
 * 4g at slices 0-3 and 4-7, 2g at 0-1, 2-3, 4-5, 6-7, 1g at each slice (as the MIG profiles of a
 * partitionable GPU: siblings whose fit flips as others go in and out of use); n2 has a second
 * GPU of the same shape (one set shape, two sets). */
/* clang-format off */
#define SLICE(i) "s" #i ": {value: \"1\"}"
#define MIGDEV(name, kind, mem, sm, slices)                                                        \
    "  - {name: " name ", attributes: {kind: {string: " kind "}},\n"                               \
    "     consumesCounters: [{counterSet: gpu, counters: {mem: {value: \"" mem "\"}, sm: {value: " \
    "\"" sm "\"}, " slices "}}]}\n"
#define MIGSLICE(node) MIGSLICE_SM(node, "7")
#define MIGSLICE_SM(node, sm)                                                                      \
    "apiVersion: resource.k8s.io/v1\nkind: ResourceSlice\nmetadata: {name: c-" node "}\n"          \
    "spec:\n  driver: drv\n  pool: {name: p-" node ", generation: 1, resourceSliceCount: 2}\n"     \
    "  nodeName: " node "\n  sharedCounters: [{name: gpu, counters: {mem: {value: 80Gi}, sm: "     \
    "{value: \"" sm "\"}, " SLICE(0) ", " SLICE(1) ", " SLICE(2) ", " SLICE(3) ", " SLICE(4)       \
    ", " SLICE(5) ", " SLICE(6) ", " SLICE(7) "}}]\n---\n"                                         \
    "apiVersion: resource.k8s.io/v1\nkind: ResourceSlice\nmetadata: {name: d-" node "}\n"          \
    "spec:\n  driver: drv\n  pool: {name: p-" node ", generation: 1, resourceSliceCount: 2}\n"     \
    "  nodeName: " node "\n  devices:\n"                                                           \
    MIGDEV("full", "full", "80Gi", "7", SLICE(0) ", " SLICE(1) ", " SLICE(2) ", " SLICE(3) ", "    \
           SLICE(4) ", " SLICE(5) ", " SLICE(6) ", " SLICE(7))                                     \
    MIGDEV("g4-0", "g4", "40Gi", "4", SLICE(0) ", " SLICE(1) ", " SLICE(2) ", " SLICE(3))          \
    MIGDEV("g4-4", "g4", "40Gi", "3", SLICE(4) ", " SLICE(5) ", " SLICE(6) ", " SLICE(7))          \
    MIGDEV("g2-0", "g2", "20Gi", "2", SLICE(0) ", " SLICE(1))                                      \
    MIGDEV("g2-2", "g2", "20Gi", "2", SLICE(2) ", " SLICE(3))                                      \
    MIGDEV("g2-4", "g2", "20Gi", "2", SLICE(4) ", " SLICE(5))                                      \
    MIGDEV("g2-6", "g2", "20Gi", "1", SLICE(6) ", " SLICE(7))                                      \
    MIGDEV("g1-0", "g1", "10Gi", "1", SLICE(0)) MIGDEV("g1-1", "g1", "10Gi", "1", SLICE(1))        \
    MIGDEV("g1-2", "g1", "10Gi", "1", SLICE(2)) MIGDEV("g1-3", "g1", "10Gi", "1", SLICE(3))        \
    MIGDEV("g1-4", "g1", "10Gi", "1", SLICE(4)) MIGDEV("g1-5", "g1", "10Gi", "1", SLICE(5))        \
    MIGDEV("g1-6", "g1", "10Gi", "1", SLICE(6)) MIGDEV("g1-7", "g1", "10Gi", "1", SLICE(7)) "---\n"

/* the picks and claims both fixtures below use */
#define MIG_CLAIMS                                                                                 \
    PICK("full", "full") PICK("g4", "g4") PICK("g2", "g2") PICK("g1", "g1")                        \
    CLAIM("any", "{requests: [{name: r, exactly: {deviceClassName: a, count: 1}}]}")               \
    CLAIM("two", "{requests: [{name: r, exactly: {deviceClassName: a, count: 2, selectors:"        \
                 " [{cel: {expression: 'device.attributes[\"drv\"].kind == \"g1\"'}}]}}]}")

/* in parts (a literal this long exceeds what C17 compilers must support), joined by mig_yaml */
static const char *const k_mig[] = {
    NODE("n1") NODE("n2") CLASS("a", "drv"), MIGSLICE("n1"), MIGSLICE("n2"),
    MIG_CLAIMS};
/* the same, n2's GPU with 3 compute units (one set shape, other capacities: the sets' fit
 * differs with the same rows in use, so a memo of their failing rows by the rows in use
 * (counters.c) must tell them apart) */
static const char *const k_mig_sm3[] = {
    NODE("n1") NODE("n2") CLASS("a", "drv"), MIGSLICE("n1"), MIGSLICE_SM("n2", "3"),
    MIG_CLAIMS};
/* clang-format on */

static char *mig_yaml(const char *const *parts, size_t nparts)
{
    size_t n = 1;
    for (size_t i = 0; i < nparts; i++)
        n += strlen(parts[i]);
    char *y = calloc(n, 1);
    CHECK(y != NULL);
    for (size_t i = 0; y && i < nparts; i++)
        strcat(y, parts[i]);
    return y;
}

static const char *const k_mig_plans[] = {"full", "g4", "g2", "g1", "any", "two"};
#define NMIG (sizeof k_mig_plans / sizeof *k_mig_plans)

/* What the live engine says of every plan on every node (what a placement reads: the index's
 * admission and its fit bound, from the summaries a stale sibling row would leave wrong) equals
 * what an engine built afresh over the same allocation state says. */
static void same_as_fresh(fx_t *x, const uint32_t *plans, const char *step)
{
    dra_engine_t *f = NULL;
    dra_diag_t d;
    dra_diag_clear(&d);
    dra_engine_opts_t eo = {0};
    CHECK_OK(dra_engine_new(&x->m, x->t, &x->f, x->st, x->cel, &x->fast, &eo, &f, &d));
    if (!f)
        return;
    for (uint32_t i = 0; i < NMIG; i++) {
        dra_claim_t *c = dra_model_find_claim(&x->m, NULL, k_mig_plans[i]);
        uint32_t p = 0;
        CHECK_OK(dra_engine_plan(f, &c, 1, &p));
        for (uint32_t n = 0; n < x->m.nnodes; n++) {
            CHECK_MSG(dra_engine_admits(x->e, plans[i], n) == dra_engine_admits(f, p, n),
                      "%s: plan %s on node %u: admission differs from a fresh engine's", step,
                      k_mig_plans[i], n);
            CHECK_MSG(dra_engine_fit_bound(x->e, plans[i], n) == dra_engine_fit_bound(f, p, n),
                      "%s: plan %s on node %u: fit bound %u, a fresh engine's %u", step,
                      k_mig_plans[i], n, dra_engine_fit_bound(x->e, plans[i], n),
                      dra_engine_fit_bound(f, p, n));
        }
    }
    dra_engine_free(f);
}

/* Commits and releases in a scrambled order on two MIG-like GPUs, by record and by allocations,
 * placed first-fit, best-fit and spread: after every step the engine's check passes (with the
 * score trees of both orders, whose keys a commit moves from their leaves' signs, and each masked
 * set's kept failing rows) and every plan's admission and fit bound equal a freshly built
 * engine's (a sibling row whose fit a charge or a refund flipped but the engine left stale fails
 * both). */
static void mig_scrambled(const char *const *parts, size_t nparts)
{
    fx_t x;
    char *yaml = mig_yaml(parts, nparts);
    bool ok = yaml && fx_open(&x, yaml, DRA_RELEASE_1_36, "DRAPartitionableDevices=true");
    free(yaml);
    if (!ok)
        return;
    uint32_t plans[NMIG];
    for (uint32_t i = 0; i < NMIG; i++)
        plans[i] = fx_plan(&x, k_mig_plans[i]);
    enum { LIVE = 12 };
    struct {
        dra_arena_t a;
        dra_engine_result_t r;
        dra_engine_rec_t h;
        uint32_t plan;
        bool live;
    } live[LIVE];
    memset(live, 0, sizeof live);
    for (uint32_t i = 0; i < LIVE; i++)
        dra_arena_init(&live[i].a, 0);
    uint64_t rng = 0x9e3779b97f4a7c15ULL;
    uint32_t commits = 0, releases = 0;
    char step[96];
    for (uint32_t it = 0; it < 160; it++) {
        rng = rng * 6364136223846793005ULL + 1442695040888963407ULL;
        uint32_t k = (uint32_t)(rng >> 33) % LIVE;
        if (live[k].live) {
            if (dra_engine_rec_held(&live[k].h))
                CHECK_OK(dra_engine_release_record(x.e, &live[k].h));
            else
                CHECK_OK(dra_engine_release_pod(x.e, live[k].plan, live[k].r.node,
                                                live[k].r.allocations, live[k].r.n));
            live[k].live = false;
            releases++;
            snprintf(step, sizeof step, "step %u: release of slot %u", it, k);
        } else {
            /* small partitions more often than large ones, as the workloads ask */
            uint32_t pick = (uint32_t)(rng >> 45) % 10;
            uint32_t pi = pick < 4   ? 3
                          : pick < 6 ? 2
                          : pick < 7 ? 1
                          : pick < 8 ? 0
                          : pick < 9 ? 4
                                     : 5;
            dra_arena_reset(&live[k].a);
            /* the score trees of both orders are kept from their first placement on */
            dra_engine_policy_t pol = !(it & 2)  ? DRA_ENGINE_FIRST_FIT
                                      : it & 4 ? DRA_ENGINE_SPREAD
                                               : DRA_ENGINE_BEST_FIT;
            CHECK_OK(dra_engine_place(x.e, plans[pi], pol, 0, &live[k].a, &live[k].r));
            snprintf(step, sizeof step, "step %u: commit of %s in slot %u", it, k_mig_plans[pi], k);
            if (live[k].r.kind != DRA_OUTCOME_ALLOCATED) {
                same_as_fresh(&x, plans, step);
                continue;
            }
            live[k].plan = plans[pi];
            memset(&live[k].h, 0, sizeof live[k].h);
            if (it & 1)
                CHECK_OK(dra_engine_commit_pod_rec(x.e, plans[pi], live[k].r.node,
                                                   live[k].r.allocations, live[k].r.n, &live[k].h));
            else
                CHECK_OK(dra_engine_commit_pod(x.e, plans[pi], live[k].r.node,
                                               live[k].r.allocations, live[k].r.n));
            live[k].live = true;
            commits++;
        }
        char why[256] = "";
        CHECK_MSG(dra_engine_check(x.e, why, sizeof why), "%s: %s", step, why);
        same_as_fresh(&x, plans, step);
    }
    /* the sequence reached both directions many times */
    CHECK(commits >= 40 && releases >= 30);
    for (uint32_t i = 0; i < LIVE; i++) {
        if (live[i].live && !dra_engine_rec_held(&live[i].h))
            CHECK_OK(dra_engine_release_pod(x.e, live[i].plan, live[i].r.node,
                                            live[i].r.allocations, live[i].r.n));
        else if (live[i].live)
            CHECK_OK(dra_engine_release_record(x.e, &live[i].h));
        dra_arena_fini(&live[i].a);
    }
    check_summaries(&x);
    same_as_fresh(&x, plans, "all released");
    fx_fini(&x);
}

/* Every row's record keeps whether the row consumes counters (the commit, the release and the
 * release look-ahead read it instead of the row's counter pattern): the check compares it with
 * the pattern for the counter rows and for n2's plain device alike, with a pod in use and after
 * its release; each copy flipped is found, and flipped back the check passes again. */
static void test_row_counter_bits_checked(void)
{
    fx_t x;
    if (!fx_open(&x, k_release, DRA_RELEASE_1_36, "DRAPartitionableDevices=true"))
        return;
    uint32_t big = fx_plan(&x, "big");
    (void)fx_plan(&x, "small");
    uint32_t any = fx_plan(&x, "any");
    dra_arena_t ka;
    dra_arena_init(&ka, 0);
    dra_engine_result_t a = place_n1(&x, big, &ka, "big");
    dra_engine_rec_t h = {0};
    if (a.kind == DRA_OUTCOME_ALLOCATED) {
        CHECK_OK(dra_engine_commit_pod_rec(x.e, big, a.node, a.allocations, a.n, &h));
        CHECK(dra_engine_rec_held(&h) && (h.held & DRA_ENGINE_REC_CTR));
    }
    for (int pass = 0; pass < 2; pass++) {
        uint32_t rows = 0;
        for (uint32_t r = 0; dra_engine_test_flip_row_counters(x.e, r); r++, rows++) {
            char why[256] = "", want[32];
            CHECK(!dra_engine_check(x.e, why, sizeof why));
            snprintf(want, sizeof want, "row %u: consumes", r);
            CHECK_MSG(strstr(why, want) != NULL && strstr(why, "counters") != NULL, "%s", why);
            CHECK(dra_engine_test_flip_row_counters(x.e, r));
            check_summaries(&x);
        }
        CHECK_EQ_U64(rows, 8); /* big, the mids, the smalls and g */
        if (pass == 0 && dra_engine_rec_held(&h))
            CHECK_OK(dra_engine_release_record(x.e, &h));
    }
    CHECK(!dra_engine_test_flip_row_counters(x.e, 1000000));
    /* n2's plain device (the random policy from node 1): a record without the counter bit */
    dra_arena_reset(&ka);
    dra_engine_result_t g;
    CHECK_OK(dra_engine_place(x.e, any, DRA_ENGINE_RANDOM, 1, &ka, &g));
    CHECK(g.kind == DRA_OUTCOME_ALLOCATED && g.node == 1);
    if (g.kind == DRA_OUTCOME_ALLOCATED && g.node == 1) {
        dra_engine_rec_t hg = {0};
        CHECK_OK(dra_engine_commit_pod_rec(x.e, any, g.node, g.allocations, g.n, &hg));
        CHECK(dra_engine_rec_held(&hg) && !(hg.held & DRA_ENGINE_REC_CTR));
        check_summaries(&x);
        CHECK_OK(dra_engine_release_record(x.e, &hg));
        check_summaries(&x);
    }
    dra_arena_fini(&ka);
    fx_fini(&x);
}

/* A slice update that makes a signature match a row with counters ("plain" matches nothing
 * until small-3 becomes plain): its row record keeps its counter bit (dra_engine_check), the
 * pod placed there gets a record that says it consumes counters (for the look-ahead), and its
 * release refunds them. */
static void test_update_counter_row_signature(void)
{
    fx_t x;
    if (!fx_open(&x, k_release, DRA_RELEASE_1_36, "DRAPartitionableDevices=true"))
        return;
    uint32_t plain = fx_plan(&x, "plain");
    check_summaries(&x);
    uint32_t si = 0;
    while (si < x.m.nslices && strcmp(x.m.slices[si]->name, "devices"))
        si++;
    CHECK(si < x.m.nslices);
    if (si == x.m.nslices)
        goto out;
    const dra_slice_t *sl = x.m.slices[si];
    uint32_t nd = sl->ndevices;
    dra_device_t devs[8];
    dra_attr_t kind;
    CHECK(nd == 7 && strcmp(sl->devices[6].name, "small-3") == 0 && sl->devices[6].nattrs == 1);
    if (nd != 7 || sl->devices[6].nattrs != 1)
        goto out;
    memcpy(devs, sl->devices, nd * sizeof *devs);
    kind = devs[6].attrs[0];
    kind.v.s = "plain";
    devs[6].attrs = &kind;
    dra_diag_t d;
    dra_diag_clear(&d);
    int rc = dra_model_slice_update(&x.m, si, devs, nd, &d);
    if (rc == DRA_OK)
        rc = dra_table_update_slice(x.t, &x.tarena, si, &d);
    if (rc == DRA_OK)
        rc = dra_engine_update_slice(x.e, si, &d);
    CHECK_MSG(rc == DRA_OK, "%s", d.msg);
    check_summaries(&x);
    dra_engine_result_t a = place_n1(&x, plain, &x.out, "small-3");
    dra_engine_rec_t h = {0};
    if (a.kind == DRA_OUTCOME_ALLOCATED) {
        CHECK_OK(dra_engine_commit_pod_rec(x.e, plain, a.node, a.allocations, a.n, &h));
        CHECK(dra_engine_rec_held(&h) && (h.held & DRA_ENGINE_REC_CTR));
        check_summaries(&x);
        dra_engine_prefetch_records(x.e, &h, &h); /* hints only */
        CHECK_OK(dra_engine_release_record(x.e, &h));
        check_summaries(&x);
    }
out:
    fx_fini(&x);
}

static void test_mig_siblings_never_stale(void)
{
    mig_scrambled(k_mig, sizeof k_mig / sizeof *k_mig);
}

/* The same on two GPUs of one shape whose capacities differ (the check also recomputes every
 * entry of the memo of failing rows, counters.c, and each set's charged rows) */
static void test_mig_siblings_other_capacities(void)
{
    mig_scrambled(k_mig_sm3, sizeof k_mig_sm3 / sizeof *k_mig_sm3);
}

int main(void)
{
    RUN(test_mig_siblings_never_stale);
    RUN(test_mig_siblings_other_capacities);
    RUN(test_release_does_the_commits_work);
    RUN(test_row_counter_bits_checked);
    RUN(test_update_counter_row_signature);
    int rc = check_summary();
    return rc == 0 && skipped ? 77 : rc;
}
