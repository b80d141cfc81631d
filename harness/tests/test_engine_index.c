/* test_engine_index.c - the engine's candidate-node index (core/engine/index.c: a max tree per
 * signature) on clusters of 40, 200 and 4,500 nodes (trees of 6, 8 and 13 levels, partly
 * filled at the top). Nodes hold 0 to 3 devices, a few hold 4, so requests
 * of one, two and four devices find their first node near, after runs of full nodes, or
 * nowhere (a count no node has is rejected without an answer). Pods are placed under every
 * policy (first-fit from node 0, random from a drawn node: the index climbs from there;
 * best-fit and spread on the two small clusters)
 * into a ring of slots whose occupant is released first, so releases land anywhere; every
 * placement is compared with the brute-force reference placement (node and devices, ties
 * included: the reference takes the first node in order) and dra_engine_check recomputes
 * every leaf and inner entry of the trees from the state after each batch of steps. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "alloc/alloc.h"
#include "check.h"
#include "engine_fx.h"

#define SLOTS 48

/* Devices on node i: a spread of 0 to 3 by a hash of i, 4 on every 97th node. */
static uint32_t devices_on(uint32_t i)
{
    if (i % 97 == 5)
        return 4;
    uint32_t h = i * 2654435761u;
    return (h >> 13) % 4;
}

static char *cluster_yaml(uint32_t nodes)
{
    size_t cap = 4096 + (size_t)nodes * 700, len = 0;
    char *y = malloc(cap);
    if (!y)
        return NULL;
    len += (size_t)snprintf(
        y + len, cap - len,
        "apiVersion: resource.k8s.io/v1\nkind: DeviceClass\nmetadata: {name: a}\n"
        "spec: {selectors: [{cel: {expression: 'device.driver == \"drv\"'}}]}\n---\n"
        CLAIM("one", "{requests: [{name: r, exactly: {deviceClassName: a, count: 1}}]}")
        CLAIM("two", "{requests: [{name: r, exactly: {deviceClassName: a, count: 2}}]}")
        CLAIM("four", "{requests: [{name: r, exactly: {deviceClassName: a, count: 4}}]}")
        CLAIM("five", "{requests: [{name: r, exactly: {deviceClassName: a, count: 5}}]}")
        CLAIM("prio", "{requests: [{name: r, firstAvailable: [{name: big, deviceClassName: a,"
                      " count: 3}, {name: small, deviceClassName: a, count: 1}]}]}")
        CLAIM("both", "{requests: [{name: a, exactly: {deviceClassName: a, count: 1}},"
                      " {name: b, exactly: {deviceClassName: a, count: 2}}]}")
        CLAIM("all", "{requests: [{name: r, exactly: {deviceClassName: a,"
                     " allocationMode: All}}]}"));
    for (uint32_t i = 0; i < nodes; i++) {
        len += (size_t)snprintf(y + len, cap - len,
                                "apiVersion: v1\nkind: Node\nmetadata: {name: n%u}\n---\n", i);
        uint32_t k = devices_on(i);
        if (!k)
            continue;
        len += (size_t)snprintf(y + len, cap - len,
                                "apiVersion: resource.k8s.io/v1\nkind: ResourceSlice\n"
                                "metadata: {name: s%u}\nspec:\n  driver: drv\n"
                                "  pool: {name: p%u, generation: 1, resourceSliceCount: 1}\n"
                                "  nodeName: n%u\n  devices: [",
                                i, i, i);
        for (uint32_t d = 0; d < k; d++)
            len += (size_t)snprintf(y + len, cap - len, "%s{name: d%u}", d ? ", " : "", d);
        len += (size_t)snprintf(y + len, cap - len, "]\n---\n");
    }
    return y;
}

typedef struct slot {
    dra_arena_t a;
    dra_engine_result_t r;
    bool live;
} slot_t;

/* x over a generated cluster of `nodes` nodes under 1.36; false (a check failed) if not. */
static bool open_cluster(fx_t *x, uint32_t nodes)
{
    char *y = cluster_yaml(nodes);
    CHECK(y != NULL);
    if (!y)
        return false;
    bool ok = fx_open(x, y, DRA_RELEASE_1_36, NULL);
    free(y);
    return ok;
}

static void run_cluster(uint32_t nodes, uint32_t steps, uint64_t seed)
{
    fx_t x;
    if (!open_cluster(&x, nodes))
        return;
    CHECK_EQ_U64(x.m.nnodes, nodes);
    static const char *const names[] = {"one", "two", "four", "prio", "both", "one", "two"};
    uint32_t plans[7];
    for (uint32_t i = 0; i < 7; i++)
        plans[i] = fx_plan(&x, names[i]);
    uint32_t five = fx_plan(&x, "five");
    static const dra_engine_policy_t pols[] = {DRA_ENGINE_FIRST_FIT, DRA_ENGINE_RANDOM,
                                               DRA_ENGINE_FIRST_FIT, DRA_ENGINE_BEST_FIT,
                                               DRA_ENGINE_SPREAD, DRA_ENGINE_RANDOM};
    slot_t *sl = calloc(SLOTS, sizeof *sl);
    CHECK(sl != NULL);
    if (!sl) {
        fx_fini(&x);
        return;
    }
    for (uint32_t i = 0; i < SLOTS; i++)
        dra_arena_init(&sl[i].a, 0);
    uint64_t rng = seed;
    uint32_t allocated = 0, unsat = 0, far = 0;
    for (uint32_t step = 0; step < steps; step++) {
        rng = rng * 6364136223846793005u + 1442695040888963407u;
        uint32_t r = (uint32_t)(rng >> 33);
        slot_t *s = &sl[r % SLOTS];
        if (s->live) { /* the slot's pod departs first: releases land anywhere in the cluster */
            CHECK_OK(dra_engine_release(x.e, s->r.node, s->r.allocations, s->r.n));
            s->live = false;
        }
        /* best-fit and spread (their reference looks at every node) on the small clusters */
        dra_engine_policy_t pol = pols[(r >> 8) % (nodes > 1000 ? 3 : 6)];
        uint32_t start = pol == DRA_ENGINE_RANDOM ? (r >> 12) % nodes : 0;
        uint32_t p = plans[(r >> 20) % 7];
        dra_engine_result_t res = fx_place_vs_reference(&x, p, pol, start, &s->a);
        if (res.kind == DRA_OUTCOME_ALLOCATED) {
            CHECK_OK(dra_engine_commit(x.e, res.node, res.allocations, res.n));
            s->r = res;
            s->live = true;
            allocated++;
            far += res.node >= 256;
        } else {
            unsat++;
        }
        if (step % 64 == 63) {
            check_summaries(&x);
            /* no node has five devices: rejected by the index, no answer looked at */
            dra_engine_result_t f = fx_place_vs_reference(&x, five, DRA_ENGINE_RANDOM, r % nodes, &x.out);
            CHECK_EQ_U64(f.kind, DRA_OUTCOME_UNSATISFIABLE);
            CHECK_EQ_U64(f.exact_calls + f.direct_calls, 0);
        }
    }
    check_summaries(&x);
    /* the run reached what it is for: placements, and on the large cluster nodes past the first
     * line of every level */
    CHECK(allocated > steps / 2);
    if (nodes > 4096)
        CHECK(far > 0);
    for (uint32_t i = 0; i < SLOTS; i++) {
        if (sl[i].live)
            CHECK_OK(dra_engine_release(x.e, sl[i].r.node, sl[i].r.allocations, sl[i].r.n));
        dra_arena_fini(&sl[i].a);
    }
    check_summaries(&x);
    (void)unsat;
    free(sl);
    fx_fini(&x);
}

/* Every node full but a few far apart: first-fit descends to each in turn, random climbs to the
 * next one after its start (wrapping to the first), and a node freed behind the start is found
 * after the wrap. */
static void test_sparse_free_nodes(void)
{
    enum { N = 4500 };
    fx_t x;
    if (!open_cluster(&x, N))
        return;
    uint32_t one = fx_plan(&x, "one");
    /* fill every device by first-fit; each pod's allocations stay in one arena */
    dra_arena_t keep;
    dra_arena_init(&keep, 0);
    uint32_t total = 0;
    for (uint32_t i = 0; i < N; i++)
        total += devices_on(i);
    dra_engine_result_t *held = calloc(total, sizeof *held);
    CHECK(held != NULL);
    dra_arena_t *ar = calloc(total, sizeof *ar);
    CHECK(ar != NULL);
    if (!held || !ar) {
        free(held);
        free(ar);
        dra_arena_fini(&keep);
        fx_fini(&x);
        return;
    }
    uint32_t last = 0;
    for (uint32_t i = 0; i < total; i++) {
        dra_arena_init(&ar[i], 0);
        dra_engine_result_t r;
        CHECK_OK(dra_engine_place(x.e, one, DRA_ENGINE_FIRST_FIT, 0, &ar[i], &r));
        CHECK_EQ_U64(r.kind, DRA_OUTCOME_ALLOCATED);
        CHECK(r.node >= last); /* first-fit fills in node order */
        last = r.node;
        CHECK_OK(dra_engine_commit(x.e, r.node, r.allocations, r.n));
        held[i] = r;
    }
    check_summaries(&x);
    dra_engine_result_t r = fx_place_vs_reference(&x, one, DRA_ENGINE_FIRST_FIT, 0, &keep);
    CHECK_EQ_U64(r.kind, DRA_OUTCOME_UNSATISFIABLE);
    CHECK_EQ_U64(r.exact_calls + r.direct_calls, 0);
    /* free one device on three nodes far apart (in three different top-level subtrees) */
    uint32_t at[3] = {17, 2390, 4101}; /* the first node with devices from each */
    for (uint32_t k = 0; k < 3; k++)
        while (!devices_on(at[k]))
            at[k]++;
    uint32_t want[3] = {at[2], at[0], at[1]}, freed = 0;
    for (uint32_t i = 0; i < total && freed < 3; i++)
        for (uint32_t k = 0; k < 3; k++)
            if (held[i].node == want[k] && held[i].n) {
                CHECK_OK(dra_engine_release(x.e, held[i].node, held[i].allocations, held[i].n));
                held[i].n = 0;
                want[k] = UINT32_MAX;
                freed++;
                break;
            }
    CHECK_EQ_U64(freed, 3);
    check_summaries(&x);
    r = fx_place_vs_reference(&x, one, DRA_ENGINE_FIRST_FIT, 0, &keep);
    CHECK_EQ_U64(r.node, at[0]);
    r = fx_place_vs_reference(&x, one, DRA_ENGINE_RANDOM, at[0] + 1, &keep);
    CHECK_EQ_U64(r.node, at[1]);
    r = fx_place_vs_reference(&x, one, DRA_ENGINE_RANDOM, at[1] + 1, &keep);
    CHECK_EQ_U64(r.node, at[2]);
    r = fx_place_vs_reference(&x, one, DRA_ENGINE_RANDOM, at[2] + 1, &keep); /* wraps to the first */
    CHECK_EQ_U64(r.node, at[0]);
    r = fx_place_vs_reference(&x, one, DRA_ENGINE_RANDOM, N - 1, &keep);
    CHECK_EQ_U64(r.node, at[0]);
    /* take them back in turn: first-fit moves on to the next, then nothing is left */
    dra_arena_t back[3];
    for (uint32_t k = 0; k < 3; k++) {
        dra_arena_init(&back[k], 0);
        r = fx_place_vs_reference(&x, one, DRA_ENGINE_FIRST_FIT, 0, &back[k]);
        CHECK_EQ_U64(r.node, at[k]);
        if (r.kind == DRA_OUTCOME_ALLOCATED)
            CHECK_OK(dra_engine_commit(x.e, r.node, r.allocations, r.n));
        check_summaries(&x);
    }
    r = fx_place_vs_reference(&x, one, DRA_ENGINE_RANDOM, 3000, &keep);
    CHECK_EQ_U64(r.kind, DRA_OUTCOME_UNSATISFIABLE);
    fx_fini(&x);
    for (uint32_t k = 0; k < 3; k++)
        dra_arena_fini(&back[k]);
    for (uint32_t i = 0; i < total; i++)
        dra_arena_fini(&ar[i]);
    dra_arena_fini(&keep);
    free(ar);
    free(held);
}

/* A signature made from another after that one has score trees (an allocationMode All variant
 * of the plain request's, planned after a best-fit placement built the plain one's tree) has
 * none of its own: dra_engine_check compares each signature's mask of its score trees with the
 * trees, and the trees with the summaries, through commits and releases of both. */
static void test_variant_after_score_tree(void)
{
    fx_t x;
    if (!open_cluster(&x, 40))
        return;
    uint32_t one = fx_plan(&x, "one");
    slot_t sl[4];
    memset(sl, 0, sizeof sl);
    for (uint32_t i = 0; i < 4; i++)
        dra_arena_init(&sl[i].a, 0);
    dra_engine_policy_t pols[] = {DRA_ENGINE_BEST_FIT, DRA_ENGINE_SPREAD};
    for (uint32_t i = 0; i < 2; i++) {
        sl[i].r = fx_place_vs_reference(&x, one, pols[i], 0, &sl[i].a);
        CHECK_EQ_U64(sl[i].r.kind, DRA_OUTCOME_ALLOCATED);
        CHECK_OK(dra_engine_commit(x.e, sl[i].r.node, sl[i].r.allocations, sl[i].r.n));
    }
    check_summaries(&x);
    uint32_t all = fx_plan(&x, "all");
    check_summaries(&x);
    for (uint32_t i = 2; i < 4; i++) {
        sl[i].r = fx_place_vs_reference(&x, all, pols[i - 2], 0, &sl[i].a);
        if (sl[i].r.kind == DRA_OUTCOME_ALLOCATED)
            CHECK_OK(dra_engine_commit(x.e, sl[i].r.node, sl[i].r.allocations, sl[i].r.n));
        check_summaries(&x);
    }
    for (uint32_t i = 0; i < 4; i++) {
        if (sl[i].r.kind == DRA_OUTCOME_ALLOCATED)
            CHECK_OK(dra_engine_release(x.e, sl[i].r.node, sl[i].r.allocations, sl[i].r.n));
        check_summaries(&x);
        dra_arena_fini(&sl[i].a);
    }
    fx_fini(&x);
}

static void test_index_small(void) { run_cluster(40, 400, 1); }
static void test_index_top_full(void) { run_cluster(200, 400, 2); }
static void test_index_three_levels(void) { run_cluster(4500, 300, 3); }

int main(void)
{
    RUN(test_index_small);
    RUN(test_index_top_full);
    RUN(test_index_three_levels);
    RUN(test_sparse_free_nodes);
    RUN(test_variant_after_score_tree);
    return check_summary();
}
