/*
 * test_engine_release.c - a release does the work of the commit it takes back, no more: on a
 * partitionable device's counter set, the rows a release refreshes, the rows whose availability
 * it flips, the counter-list entries its cuts move over and the signature leaves it sets are
 * exactly the commit's, by record and by allocations alike, and none is a sibling row whose fit
 * did not change (counted by the engine's debug counters, engine_tests.h; a build without them
 * skips).
 */
#include <stdio.h>
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

int main(void)
{
    RUN(test_release_does_the_commits_work);
    int rc = check_summary();
    return rc == 0 && skipped ? 77 : rc;
}
