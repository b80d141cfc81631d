/* test_cluster.c - cluster generator: counts, slice splitting, determinism, sharing, limits. */
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "gen/cluster.h"
#include "gen/rng.h"

static dra_gen_group_t group(dra_gen_profile_t p, uint32_t count)
{
    dra_gen_group_t g;
    memset(&g, 0, sizeof g);
    g.profile = p;
    g.count = count;
    dra_gen_params_default(p, &g.params);
    return g;
}

static int build(dra_model_t *m, const dra_gen_group_t *g, uint32_t n, uint64_t seed, dra_gen_cluster_stats_t *st)
{
    dra_gen_cluster_spec_t spec = {g, n};
    dra_diag_t d;
    dra_model_init(m);
    int rc = dra_gen_cluster_build(m, &spec, seed, st, &d);
    if (rc)
        fprintf(stderr, "build: %s\n", d.msg);
    return rc;
}

static const dra_attr_t *attr(dra_model_t *m, const dra_device_t *d, const char *driver, const char *name)
{
    return dra_device_attr(d, dra_model_qname(m, driver, name));
}

static void test_rng_streams(void)
{
    dra_rng_t a, b, c;
    dra_rng_seed(&a, 42, 1);
    dra_rng_seed(&b, 42, 1);
    dra_rng_seed(&c, 42, 2);
    int same = 0, diff = 0;
    for (int i = 0; i < 100; i++) {
        uint64_t x = dra_rng_next(&a), y = dra_rng_next(&b), z = dra_rng_next(&c);
        same += x == y;
        diff += x != z;
    }
    CHECK_EQ_I64(same, 100);
    CHECK_EQ_I64(diff, 100);
    /* below: in range and roughly uniform */
    int hist[10] = {0};
    for (int i = 0; i < 100000; i++) {
        uint64_t v = dra_rng_below(&a, 10);
        CHECK(v < 10);
        hist[v]++;
    }
    for (int i = 0; i < 10; i++)
        CHECK(hist[i] > 9500 && hist[i] < 10500);
    double s = 0;
    for (int i = 0; i < 100000; i++)
        s += dra_rng_exp(&a, 2.0);
    CHECK_NEAR(s / 100000, 2.0, 0.05);
}

static void test_dgx(void)
{
    dra_model_t m;
    dra_gen_group_t g = group(DRA_GEN_DGX_H100, 3);
    dra_gen_cluster_stats_t st;
    CHECK_OK(build(&m, &g, 1, 7, &st));
    CHECK_EQ_I64(m.nnodes, 3);
    CHECK_EQ_I64(st.gpus, 24);
    CHECK_EQ_I64(m.nslices, 6); /* gpu + dra.net per node */
    CHECK_EQ_I64(m.ndevices, 48);
    CHECK_STREQ(m.nodes[0]->name, "dgx-h100-0");
    CHECK(dra_model_find_class(&m, "gpu.nvidia.com") != NULL);
    CHECK(dra_model_find_class(&m, "dranet.net") != NULL);
    const dra_slice_t *gs = m.slices[0], *ns = m.slices[1];
    CHECK_STREQ(gs->driver, "gpu.nvidia.com");
    CHECK_STREQ(ns->driver, "dra.net");
    CHECK_STREQ(gs->pool_name, "dgx-h100-0");
    CHECK_STREQ(gs->node_name, "dgx-h100-0");
    CHECK_EQ_I64(gs->slice_count, 1);
    /* NIC i shares its pcieRoot with GPU i, and no other GPU */
    for (uint32_t i = 0; i < 8; i++) {
        const dra_attr_t *gr = attr(&m, &gs->devices[i], "gpu.nvidia.com", "resource.kubernetes.io/pcieRoot");
        const dra_attr_t *nr = attr(&m, &ns->devices[i], "dra.net", "resource.kubernetes.io/pcieRoot");
        CHECK(gr && nr && strcmp(gr->v.s, nr->v.s) == 0);
        for (uint32_t j = 0; j < 8; j++) {
            const dra_attr_t *o = attr(&m, &gs->devices[j], "gpu.nvidia.com", "resource.kubernetes.io/pcieRoot");
            CHECK(j == i || strcmp(o->v.s, nr->v.s) != 0);
        }
    }
    /* one NVLink domain per node: every GPU has the same cliqueID */
    const dra_attr_t *c0 = attr(&m, &gs->devices[0], "gpu.nvidia.com", "cliqueID");
    CHECK(c0 && c0->kind == DRA_ATTR_STRING);
    for (uint32_t i = 1; i < 8; i++)
        CHECK_STREQ(attr(&m, &gs->devices[i], "gpu.nvidia.com", "cliqueID")->v.s, c0->v.s);
    /* nodes of a group share attribute arrays, not device structs */
    CHECK(m.slices[2]->devices[0].attrs == gs->devices[0].attrs);
    CHECK(m.slices[2]->devices != gs->devices);
    CHECK(m.slices[2]->devices[0].slice == m.slices[2]);
    CHECK(strcmp(m.slices[0]->name, m.slices[2]->name) != 0);
    dra_model_fini(&m);
}

static void test_gb200_racks(void)
{
    dra_model_t m;
    dra_gen_group_t g = group(DRA_GEN_GB200_NVL72, 36);
    CHECK_OK(build(&m, &g, 1, 1, NULL));
    CHECK_EQ_I64(m.nnodes, 36);
    /* slices per node: gpu + compute-domain */
    CHECK_EQ_I64(m.nslices, 72);
    const char *cl[36];
    for (uint32_t n = 0; n < 36; n++) {
        const dra_slice_t *s = m.slices[2 * n];
        CHECK_EQ_I64(s->ndevices, 4);
        cl[n] = attr(&m, &s->devices[0], "gpu.nvidia.com", "cliqueID")->v.s;
        const dra_slice_t *cd = m.slices[2 * n + 1];
        CHECK_STREQ(cd->driver, "compute-domain.nvidia.com");
        CHECK_STREQ(cd->devices[0].name, "channel-0");
    }
    for (uint32_t n = 1; n < 18; n++)
        CHECK_STREQ(cl[n], cl[0]);
    CHECK(strcmp(cl[18], cl[0]) != 0);
    for (uint32_t n = 19; n < 36; n++)
        CHECK_STREQ(cl[n], cl[18]);
    CHECK(dra_model_find_class(&m, "compute-domain-default-channel.nvidia.com") != NULL);
    dra_model_fini(&m);
}

static void test_mig_dynamic_layouts(void)
{
    dra_model_t m;
    dra_gen_group_t g = group(DRA_GEN_H100_MIG_DYNAMIC, 2);
    CHECK_OK(build(&m, &g, 1, 3, NULL));
    /* 1.35 split: one counters-only slice + 8 device slices per node */
    CHECK_EQ_I64(m.nslices, 18);
    const dra_slice_t *cs = m.slices[0];
    CHECK_EQ_I64(cs->ndevices, 0);
    CHECK_EQ_I64(cs->ncounter_sets, 8);
    CHECK_EQ_I64(cs->slice_count, 9);
    CHECK_STREQ(cs->counter_sets[3].name, "gpu-3-counter-set");
    const dra_slice_t *d0 = m.slices[1];
    CHECK_EQ_I64(d0->ncounter_sets, 0);
    CHECK_EQ_I64(d0->ndevices, 26);
    CHECK(d0->ndevices <= 64);
    CHECK_STREQ(d0->devices[0].name, "gpu-0");
    CHECK_STREQ(d0->devices[1].name, "gpu-0-mig-1g10gb-19-0");
    CHECK_STREQ(d0->devices[25].name, "gpu-0-mig-7g80gb-0-0");
    CHECK_STREQ(d0->devices[1].consumes[0].counter_set, "gpu-0-counter-set");
    CHECK_EQ_I64(m.ndevices, 2 * 8 * 26);
    dra_model_fini(&m);

    /* 1.34 combined layout: counters inside each GPU's slice; A100 has no full-GPU device */
    g = group(DRA_GEN_A100_MIG_DYNAMIC, 1);
    g.params.counter_layout = DRA_GEN_COUNTERS_COMBINED;
    CHECK_OK(build(&m, &g, 1, 3, NULL));
    CHECK_EQ_I64(m.nslices, 8);
    CHECK_EQ_I64(m.slices[0]->ncounter_sets, 1);
    CHECK_EQ_I64(m.slices[0]->ndevices, 25);
    CHECK_EQ_I64(m.slices[0]->slice_count, 8);
    dra_model_fini(&m);
}

/* h100-mig-vgpu: h100-mig-dynamic plus 4 vGPUs per GPU on the same counter set; MIG placements
 * in group "mig", vGPUs in "vgpu", the full GPU in none; the class vgpu.nvidia.com is added. */
static void test_mig_vgpu(void)
{
    dra_model_t m;
    dra_gen_group_t g = group(DRA_GEN_H100_MIG_VGPU, 1);
    CHECK_OK(build(&m, &g, 1, 3, NULL));
    CHECK_EQ_I64(m.nslices, 9);
    const dra_slice_t *d0 = m.slices[1];
    CHECK_EQ_I64(d0->ndevices, 30);
    CHECK_STREQ(d0->devices[0].name, "gpu-0");
    CHECK_EQ_I64(d0->devices[0].consumes[0].ngroups, 0);
    CHECK_EQ_I64(d0->devices[1].consumes[0].ngroups, 1);
    CHECK_STREQ(d0->devices[1].consumes[0].groups[0], "mig");
    const dra_device_t *v = &d0->devices[26];
    CHECK_STREQ(v->name, "gpu-0-vgpu-20c-0");
    CHECK_STREQ(v->consumes[0].counter_set, "gpu-0-counter-set");
    CHECK_STREQ(v->consumes[0].groups[0], "vgpu");
    CHECK_EQ_I64(v->consumes[0].ncounters, 1);
    CHECK_STREQ(v->consumes[0].counters[0].name, "memory");
    const dra_attr_t *t = attr(&m, v, "gpu.nvidia.com", "type");
    CHECK(t && strcmp(t->v.s, "vgpu") == 0);
    CHECK(dra_model_find_class(&m, "vgpu.nvidia.com") != NULL);
    CHECK_EQ_I64(m.ndevices, 8 * 30);
    dra_model_fini(&m);
}

static void test_mig_static_and_others(void)
{
    dra_model_t m;
    dra_gen_group_t g[5] = {group(DRA_GEN_A100_MIG_STATIC, 1), group(DRA_GEN_H100_MIG_STATIC, 1),
                            group(DRA_GEN_MI300X, 1), group(DRA_GEN_CPU_ONLY, 2), group(DRA_GEN_NET_POOL, 2)};
    g[0].params.mig_layout = DRA_GEN_MIG_ALL_1G;
    g[1].params.mig_layout = DRA_GEN_MIG_MIXED;
    g[2].params.cpx = true;
    g[4].params.scope = DRA_GEN_SCOPE_NODE_SELECTOR;
    g[4].params.selector_key = "drabench.dev/imex";
    g[4].params.selector_value = "true";
    CHECK_OK(build(&m, g, 5, 9, NULL));
    CHECK_EQ_I64(m.nnodes, 1 + 1 + 1 + 2); /* net pools are not nodes */
    CHECK_EQ_I64(m.slices[0]->ndevices, 56); /* 8 x 7 x 1g.5gb */
    /* mixed: GPU0 all-1g (7), GPU1 half-balanced (4), GPU2 2x3g (2), ... = 7+4+2+7+4+2+7+4 */
    CHECK_EQ_I64(m.slices[1]->ndevices, 37);
    CHECK_EQ_I64(m.slices[2]->ndevices, 64); /* MI300X CPX */
    const dra_slice_t *np = m.slices[3];
    CHECK(np->node_selector != NULL && np->node_name == NULL && !np->all_nodes);
    CHECK_EQ_I64(np->ndevices, 10);
    CHECK(dra_model_find_class(&m, "imex.nvidia.com") != NULL);
    CHECK(dra_model_find_class(&m, "gpu.amd.com") != NULL);
    dra_model_fini(&m);
}

static void test_bad_params(void)
{
    dra_model_t m;
    dra_gen_group_t g = group(DRA_GEN_DGX_H100, 1);
    g.params.nics = 9;
    dra_gen_cluster_spec_t spec = {&g, 1};
    dra_diag_t d;
    dra_model_init(&m);
    CHECK_EQ_I64(dra_gen_cluster_build(&m, &spec, 1, NULL, &d), DRA_EINVAL);
    CHECK(strstr(d.msg, "nics") != NULL);
    g.params.nics = 8;
    g.params.memory = "lots";
    CHECK_EQ_I64(dra_gen_cluster_build(&m, &spec, 1, NULL, &d), DRA_EINVAL);
    CHECK(strstr(d.msg, "memory") != NULL);
    dra_model_fini(&m);
}

static void test_sched_perf_split(void)
{
    dra_model_t m;
    dra_gen_group_t g = group(DRA_GEN_SCHED_PERF, 2);
    g.params.devices = 300;
    CHECK_OK(build(&m, &g, 1, 1, NULL));
    CHECK_EQ_I64(m.nslices, 6); /* 128 + 128 + 44 per node */
    CHECK_EQ_I64(m.slices[0]->ndevices, 128);
    CHECK_EQ_I64(m.slices[2]->ndevices, 44);
    CHECK_EQ_I64(m.slices[2]->slice_count, 3);
    CHECK_STREQ(m.slices[2]->devices[43].name, "instance-299");
    dra_model_fini(&m);
}

int main(void)
{
    RUN(test_rng_streams);
    RUN(test_dgx);
    RUN(test_gb200_racks);
    RUN(test_mig_dynamic_layouts);
    RUN(test_mig_vgpu);
    RUN(test_mig_static_and_others);
    RUN(test_bad_params);
    RUN(test_sched_perf_split);
    return check_summary();
}
