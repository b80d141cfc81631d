/* test_policy.c - hand-computed picks, fragmentation and small replays for every policy. */
#include <string.h>

#include "check.h"
#include "policy/policy.h"

static dra_pol_pod_t share(uint32_t milli, int64_t cpu)
{
    dra_pol_pod_t p = {cpu, 0, 1, milli, 0};
    return p;
}

static dra_pol_pod_t whole(uint32_t n, int64_t cpu)
{
    dra_pol_pod_t p = {cpu, 0, n, 1000, 0};
    return p;
}

/* Fragmentation of one node, by hand: classes X (share 500, cpu 1000, 3 pods) and Y (CPU-only,
 * 1 pod). Node lefts [300, 1000]: X fits (one GPU >= 500), strands the 300; Y strands all 1300.
 * (3 * 300 + 1 * 1300) / 4 = 550 milli. */
static void test_frag_by_hand(void)
{
    dra_pol_class_t cls[2] = {{share(500, 1000), 3}, {{1000, 0, 0, 0, 0}, 1}};
    dra_pol_node_spec_t ns[1] = {{8000, 1000, 2, 0}};
    dra_pol_t p;
    CHECK_OK(dra_pol_init(&p, DRA_POL_FGD, ns, 1, cls, 2, 1));
    CHECK_EQ_I64(p.frag_total, 1 * 2000); /* empty: only Y strands its 2000 */
    dra_pol_pod_t pod = share(700, 0);
    uint32_t g[1] = {0};
    CHECK_OK(dra_pol_place(&p, 0, &pod, g));
    CHECK_EQ_I64(p.frag_total, 3 * 300 + 1300);
    CHECK_EQ_I64(p.frag_total, dra_pol_frag_of(&p, &p.nodes[0]));
    CHECK_EQ_U64(p.class_total, 4);
    CHECK_EQ_I64(dra_pol_idle_milli(&p), 1300);
    /* cpu left below X's request: X lacks cpu (Q4), strands everything */
    dra_pol_pod_t cpu = {7500, 0, 0, 0, 0};
    CHECK_OK(dra_pol_place(&p, 0, &cpu, NULL));
    CHECK_EQ_I64(p.frag_total, 3 * 1300 + 1300);
    /* does not fit: rejected, nothing changed */
    dra_pol_pod_t big = share(400, 0);
    CHECK(dra_pol_place(&p, 0, &big, g) == DRA_EINVAL);
    CHECK_EQ_I64(p.frag_total, 3 * 1300 + 1300);
    dra_pol_fini(&p);
}

/* The state of the per-policy pick test: N0 8 empty GPUs; N1 4 GPUs with a 600 share on gpu1
 * ([1000, 400, 1000, 1000]); N2 2 GPUs with a whole GPU on gpu0 ([0, 1000]). cpu 64000 each. */
static void setup(dra_pol_t *p, dra_pol_kind_t k)
{
    dra_pol_node_spec_t ns[3] = {
        {64000, 1000000, 8, 0}, {64000, 1000000, 4, 0}, {64000, 1000000, 2, 0}};
    dra_pol_class_t cls[1] = {{share(500, 1000), 1}};
    CHECK_OK(dra_pol_init(p, k, ns, 3, cls, 1, 7));
    dra_pol_pod_t s600 = share(600, 0), w1 = whole(1, 0);
    uint32_t g1[1] = {1}, g0[1] = {0};
    CHECK_OK(dra_pol_place(p, 1, &s600, g1));
    CHECK_OK(dra_pol_place(p, 2, &w1, g0));
}

/* Pod: a 300 share with cpu 32000. Expected (node, gpu) per policy, computed by hand:
 *  first-fit: N0, gpu0 (least free milli that fits, first index).
 *  spread: N0 (no GPU in use).
 *  dot-product: 100 * (1 - (0.5 * 0.25 + gpu_left / 8000 * 300 / 8000) / 2) = 91, 92, 93 -> N2.
 *  best-fit: 100 * (1 - (0.125 + (gpu_left - 300) / 16000)) = 39, 68, 83 -> N2.
 *  gpu-clustering: N0 25 (idle node), N1 75 + 25 * 4600 / 8000 = 89, N2 21 -> N1, gpu1 (400).
 *  gpu-packing: N0 33 - 8 = 25, N1 100 - 40 / 10 = 96 (shared GPU), N2 50 - 1 = 49 -> N1, gpu1.
 *  fgd (class: 500 share): N0 50 (nothing stranded before or after), N1 on gpu1 leaves
 *  [1000, 100, 1000, 1000]: stranded 400 -> 100, sigmoid(0.3) -> 57; N2 50 -> N1, gpu1. */
static void test_pick_by_hand(void)
{
    static const struct {
        dra_pol_kind_t k;
        uint32_t node, gpu;
        int32_t score[3]; /* N0, N1, N2 */
    } want[] = {
        {DRA_POL_FIRST_FIT, 0, 0, {0, 0, 0}},
        {DRA_POL_SPREAD, 0, 0, {0, -1, -1}},
        {DRA_POL_DOT_PRODUCT, 2, 1, {91, 92, 93}},
        {DRA_POL_BEST_FIT, 2, 1, {39, 68, 83}},
        {DRA_POL_GPU_CLUSTERING, 1, 1, {25, 89, 21}},
        {DRA_POL_GPU_PACKING, 1, 1, {25, 96, 49}},
        {DRA_POL_FGD, 1, 1, {50, 57, 50}},
    };
    for (size_t i = 0; i < sizeof want / sizeof want[0]; i++) {
        dra_pol_t p;
        setup(&p, want[i].k);
        dra_pol_pod_t pod = share(300, 32000);
        for (uint32_t n = 0; n < 3; n++) {
            int32_t sc = dra_pol_score(&p, n, &pod);
            CHECK_MSG(sc == want[i].score[n], "%s: node %u scores %d, want %d",
                      dra_pol_kind_name(want[i].k), n, sc, want[i].score[n]);
        }
        uint32_t node = 99, gpus[DRA_POL_MAX_GPUS] = {99};
        CHECK(dra_pol_pick(&p, &pod, NULL, &node, gpus));
        CHECK_MSG(node == want[i].node && gpus[0] == want[i].gpu, "%s: got node %u gpu %u",
                  dra_pol_kind_name(want[i].k), node, gpus[0]);
        /* skip[] excludes the winner: someone else wins (or nobody) */
        uint8_t skip[3] = {0};
        skip[node] = 1;
        uint32_t n2 = 99;
        if (dra_pol_pick(&p, &pod, skip, &n2, gpus))
            CHECK(n2 != node);
        dra_pol_fini(&p);
    }
}

/* random: only feasible nodes, every feasible node reachable, same seed same picks. */
static void test_random(void)
{
    uint32_t seen[3] = {0}, first[64];
    for (int round = 0; round < 2; round++) {
        dra_pol_t p;
        setup(&p, DRA_POL_RANDOM);
        for (int i = 0; i < 64; i++) {
            dra_pol_pod_t pod = share(300, 32000);
            uint32_t node, gpus[DRA_POL_MAX_GPUS];
            CHECK(dra_pol_pick(&p, &pod, NULL, &node, gpus));
            CHECK(node < 3 && p.nodes[node].left[gpus[0]] >= 300);
            if (round == 0) {
                first[i] = node;
                seen[node]++;
            } else {
                CHECK_EQ_U64(first[i], node);
            }
        }
        /* a 4-GPU pod fits N0 only (N1 has 3 free GPUs, N2 one): always N0, GPUs 0..3 */
        dra_pol_pod_t two = whole(4, 0);
        uint32_t node, gpus[DRA_POL_MAX_GPUS];
        CHECK(dra_pol_pick(&p, &two, NULL, &node, gpus));
        CHECK_EQ_U64(node, 0);
        CHECK(gpus[0] == 0 && gpus[1] == 1 && gpus[2] == 2 && gpus[3] == 3);
        dra_pol_fini(&p);
    }
    CHECK(seen[0] && seen[1] && seen[2]);
}

/* A small replay: 2 nodes of 2 GPUs, pods share 600, share 600, two whole GPUs. Classes for
 * fragmentation: X = share 600 (2 pods), Y = 2 GPUs (1 pod), total 3.
 *  first-fit, best-fit, gpu-packing, fgd, dot-product, gpu-clustering: both shares on N0
 *    ([400, 400]), the 2-GPU pod on N1 (second share: dot-product 99 on N0 against 98 on N1,
 *    gpu-clustering 75 + 20 = 95 on N0 against 25 + 18 = 43 on N1, fgd 48 against 32):
 *    allocated 3200 / 4000 = 80%; N0 strands all 800 for X and Y: (2 + 1) * 800 / 3 = 800
 *    milli = 20% of all GPU, 100% of idle.
 *  spread: the second share goes to N1, the 2-GPU pod fits nowhere: 1200 / 4000 = 30%;
 *    each node [400, 1000] strands 2 * 400 + 1 * 1400 = 2200 units: 4400 / 3 = 1466.67 milli
 *    = 36.67% of all GPU, 52.38% of the 2800 idle. */
static void test_small_replay(void)
{
    static const struct {
        dra_pol_kind_t k;
        int64_t used;
        int64_t frag_units;
    } want[] = {{DRA_POL_FIRST_FIT, 3200, 2400},   {DRA_POL_BEST_FIT, 3200, 2400},
                {DRA_POL_GPU_PACKING, 3200, 2400}, {DRA_POL_FGD, 3200, 2400},
                {DRA_POL_DOT_PRODUCT, 3200, 2400}, {DRA_POL_GPU_CLUSTERING, 3200, 2400},
                {DRA_POL_SPREAD, 1200, 4400}};
    dra_pol_node_spec_t ns[2] = {{64000, 1000000, 2, 0}, {64000, 1000000, 2, 0}};
    dra_pol_pod_t pods[3] = {share(600, 1000), share(600, 1000), whole(2, 1000)};
    dra_pol_class_t cls[3];
    uint32_t ncls;
    CHECK_OK(dra_pol_typical_classes(pods, 3, cls, &ncls));
    CHECK_EQ_U64(ncls, 2);
    CHECK_EQ_U64(cls[0].count, 2);
    CHECK_EQ_U64(cls[0].pod.gpu_milli, 600);
    for (size_t i = 0; i < sizeof want / sizeof want[0]; i++) {
        dra_pol_t p;
        CHECK_OK(dra_pol_init(&p, want[i].k, ns, 2, cls, ncls, 3));
        for (int k = 0; k < 3; k++) {
            uint32_t node, gpus[DRA_POL_MAX_GPUS];
            if (dra_pol_pick(&p, &pods[k], NULL, &node, gpus))
                CHECK_OK(dra_pol_place(&p, node, &pods[k], gpus));
        }
        CHECK_MSG(p.gpu_milli_used == want[i].used, "%s: used %lld", dra_pol_kind_name(want[i].k),
                  (long long)p.gpu_milli_used);
        CHECK_MSG(p.frag_total == want[i].frag_units, "%s: frag %lld", dra_pol_kind_name(want[i].k),
                  (long long)p.frag_total);
        int64_t scratch = 0;
        for (uint32_t n = 0; n < p.nnodes; n++)
            scratch += dra_pol_frag_of(&p, &p.nodes[n]);
        CHECK_EQ_I64(scratch, p.frag_total); /* incremental = from scratch */
        dra_pol_fini(&p);
    }
}

/* Models: a pod restricted to model 1 only lands on model-1 nodes. */
static void test_models(void)
{
    dra_pol_node_spec_t ns[2] = {{64000, 1000, 2, 0}, {64000, 1000, 2, 1}};
    dra_pol_t p;
    CHECK_OK(dra_pol_init(&p, DRA_POL_FIRST_FIT, ns, 2, NULL, 0, 1));
    dra_pol_pod_t pod = share(500, 0);
    pod.models = 1u << 1;
    uint32_t node, gpus[DRA_POL_MAX_GPUS];
    CHECK(dra_pol_pick(&p, &pod, NULL, &node, gpus));
    CHECK_EQ_U64(node, 1);
    pod.mem_mib = 2000; /* NodeResourcesFit: memory first */
    CHECK(!dra_pol_pick(&p, &pod, NULL, &node, gpus));
    dra_pol_fini(&p);
    dra_pol_kind_t k;
    CHECK(dra_pol_kind_parse("gpu-packing", &k) == DRA_OK && k == DRA_POL_GPU_PACKING);
    CHECK(dra_pol_kind_parse("tetris", &k) == DRA_EINVAL);
}

int main(void)
{
    RUN(test_frag_by_hand);
    RUN(test_pick_by_hand);
    RUN(test_random);
    RUN(test_small_replay);
    RUN(test_models);
    return check_summary();
}
