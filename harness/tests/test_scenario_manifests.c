/* test_scenario_manifests.c - generated clusters as manifests: every profile publishes the
 * attribute/capacity names and kinds of the real slice it imitates (read from ../shared through
 * the manifest reader); written manifests validate and read back to the same model digest; same
 * seed, same bytes; another seed, other bytes. */
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "gen/cluster.h"
#include "gen/shapes.h"
#include "manifest.h"
#include "scenario.h"

static char shared_dir[1024];

typedef struct name_kind {
    const char *name;
    int kind; /* dra_attr_kind_t, or -1 for a capacity */
} name_kind_t;

/* Distinct (name, kind) of every device of the model's slices of `driver` whose attribute `type`
 * (when type_val is not NULL) equals type_val. */
static size_t collect(const dra_model_t *m, const char *driver, const char *type_val, name_kind_t *out, size_t max)
{
    size_t n = 0;
    for (uint32_t s = 0; s < m->nslices; s++) {
        const dra_slice_t *sl = m->slices[s];
        if (driver && (!sl->driver || strcmp(sl->driver, driver) != 0))
            continue;
        for (uint32_t d = 0; d < sl->ndevices; d++) {
            const dra_device_t *dv = &sl->devices[d];
            if (type_val) {
                bool ok = false;
                for (uint32_t a = 0; a < dv->nattrs; a++)
                    if (strcmp(dv->attrs[a].name, "type") == 0 && dv->attrs[a].kind == DRA_ATTR_STRING &&
                        strcmp(dv->attrs[a].v.s, type_val) == 0)
                        ok = true;
                if (!ok)
                    continue;
            }
            for (uint32_t a = 0; a < dv->nattrs + dv->ncaps; a++) {
                const char *nm = a < dv->nattrs ? dv->attrs[a].name : dv->caps[a - dv->nattrs].name;
                int kind = a < dv->nattrs ? dv->attrs[a].kind : -1;
                bool seen = false;
                for (size_t i = 0; i < n && !seen; i++)
                    seen = strcmp(out[i].name, nm) == 0 && out[i].kind == kind;
                if (!seen && n < max)
                    out[n++] = (name_kind_t){nm, kind};
            }
        }
    }
    return n;
}

static bool in(const name_kind_t *v, size_t n, const char *name, int kind)
{
    for (size_t i = 0; i < n; i++)
        if (strcmp(v[i].name, name) == 0 && v[i].kind == kind)
            return true;
    return false;
}

static bool is_ext(const char *const *ext, const char *name)
{
    for (; ext && *ext; ext++)
        if (strcmp(*ext, name) == 0)
            return true;
    return false;
}

typedef struct pcase {
    dra_gen_profile_t profile;
    const char *real;      /* relative to ../shared/real-manifests/ */
    const char *driver;
    const char *type;      /* compare only devices with this `type` attribute (NULL: all) */
    const char *omitted[8]; /* attributes of the real file deliberately not published (cloud-specific) */
    bool cpx;
} pcase_t;

static const pcase_t cases[] = {
    {DRA_GEN_DGX_H100, "dranet/aws_eks_examples/gpu-efa/resourceslice-gpu.yaml", "gpu.nvidia.com", "gpu", {NULL}, false},
    {DRA_GEN_DGX_H200, "dranet/aws_eks_examples/gpu-efa/resourceslice-gpu.yaml", "gpu.nvidia.com", "gpu", {NULL}, false},
    {DRA_GEN_DGX_H100, "dranet/oci_oke_examples/BM.GPU.GB200-v3.4/resourceslice-dranet.yaml", "dra.net", NULL,
     {"oke.dra.net/gpuMemoryFabricId", "oke.dra.net/hpcIslandId", "oke.dra.net/localBlockId",
      "oke.dra.net/networkBlockId", "oke.dra.net/rackId", NULL},
     false},
    {DRA_GEN_GB200_NVL72, "dranet/oci_oke_examples/BM.GPU.GB200-v3.4/resourceslice-gpu.yaml", "gpu.nvidia.com", "gpu",
     {NULL}, false},
    {DRA_GEN_GB200_NVL72, "nvidia-k8s-dra-driver-gpu/resourceslices/compute-domain-node-slices.derived.yaml",
     "compute-domain.nvidia.com", NULL, {NULL}, false},
    {DRA_GEN_A100_MIG_STATIC, "nvidia-k8s-dra-driver-gpu/resourceslices/kubectl-get-resourceslice-static-mig.derived.yaml",
     "gpu.nvidia.com", "mig", {NULL}, false},
    {DRA_GEN_H100_MIG_STATIC, "nvidia-k8s-dra-driver-gpu/resourceslices/kubectl-get-resourceslice-static-mig.derived.yaml",
     "gpu.nvidia.com", "mig", {NULL}, false},
    {DRA_GEN_A100_MIG_DYNAMIC, "nvidia-k8s-dra-driver-gpu/resourceslices/dgx-a100-dynamic-mig-combined.derived.yaml",
     "gpu.nvidia.com", "mig", {NULL}, false},
    {DRA_GEN_H100_MIG_DYNAMIC, "nvidia-k8s-dra-driver-gpu/resourceslices/hgx-h100-dynamic-mig-split.derived.yaml",
     "gpu.nvidia.com", NULL, {NULL}, false},
    {DRA_GEN_MI300X, "rocm-k8s-gpu-dra-driver/mi300x-spx-node.derived.yaml", "gpu.amd.com", NULL, {NULL}, false},
    {DRA_GEN_MI300X, "rocm-k8s-gpu-dra-driver/mi300x-cpx-partitions.derived.yaml", "gpu.amd.com", NULL, {NULL}, true},
    {DRA_GEN_NET_POOL, "nvidia-k8s-dra-driver-gpu/resourceslices/imex-resourceslice.yaml", "gpu.nvidia.com", NULL,
     {NULL}, false},
    {DRA_GEN_SCHED_PERF, "k8s-scheduler-perf/resourceslice-basic-devices.rendered.yaml", "test-driver.cdi.k8s.io",
     NULL, {"resource.k8s.io/pciRoot", NULL}, false},
    {DRA_GEN_SHARED_GPU, "dra-example-driver/gpu-allow-multiple-allocations.derived.yaml", "gpu.example.com", NULL,
     {NULL}, false},
    /* its MIG devices are h100-mig-dynamic's (the vGPUs have no real slice) */
    {DRA_GEN_H100_MIG_VGPU, "nvidia-k8s-dra-driver-gpu/resourceslices/hgx-h100-dynamic-mig-split.derived.yaml",
     "gpu.nvidia.com", "mig", {NULL}, false},
};

static void test_profiles_match_real_slices(void)
{
    for (size_t c = 0; c < DRA_ARRAY_LEN(cases); c++) {
        const pcase_t *pc = &cases[c];
        char path[2048];
        snprintf(path, sizeof path, "%s/real-manifests/%s", shared_dir, pc->real);
        dra_model_t real, gen;
        dra_model_init(&real);
        dra_model_init(&gen);
        dra_diag_list_t errs;
        dra_diag_list_init(&errs);
        int rc = dra_manifest_read_file(&real, path, &errs);
        CHECK_MSG(rc == DRA_OK, "%s: %s", pc->real, errs.count ? errs.items[0].msg : "");
        dra_diag_list_fini(&errs);
        dra_gen_group_t g;
        memset(&g, 0, sizeof g);
        g.profile = pc->profile;
        g.count = 1;
        dra_gen_params_default(pc->profile, &g.params);
        g.params.cpx = pc->cpx;
        dra_gen_cluster_spec_t spec = {&g, 1};
        dra_diag_t d;
        CHECK_OK(dra_gen_cluster_build(&gen, &spec, 1, NULL, &d));
        /* the profile names its source */
        const dra_gen_profile_info_t *info = dra_gen_profile_info(pc->profile);
        CHECK(info->source != NULL);
        name_kind_t rv[128], gv[128];
        size_t nr = collect(&real, pc->driver, pc->type, rv, 128);
        size_t ng = collect(&gen, pc->driver, pc->type, gv, 128);
        CHECK_MSG(nr > 0 && ng > 0, "%s: nothing to compare (%zu real, %zu generated)", pc->real, nr, ng);
        const char *const *ext = dra_gen_profile_extensions(pc->profile);
        for (size_t i = 0; i < nr; i++) {
            bool omitted = false;
            for (const char *const *o = pc->omitted; *o && !omitted; o++)
                omitted = strcmp(*o, rv[i].name) == 0;
            CHECK_MSG(omitted || in(gv, ng, rv[i].name, rv[i].kind), "%s (%s): real %s %s (kind %d) not published",
                      info->name, pc->real, rv[i].kind < 0 ? "capacity" : "attribute", rv[i].name, rv[i].kind);
        }
        for (size_t i = 0; i < ng; i++)
            CHECK_MSG(in(rv, nr, gv[i].name, gv[i].kind) || is_ext(ext, gv[i].name) ||
                          /* static MIG: memorySlice<N> capacities depend on the placements present */
                          strncmp(gv[i].name, "memorySlice", 11) == 0,
                      "%s (%s): generated %s %s (kind %d) not in the real slice", info->name, pc->real,
                      gv[i].kind < 0 ? "capacity" : "attribute", gv[i].name, gv[i].kind);
        dra_model_fini(&real);
        dra_model_fini(&gen);
    }
}

static int build_named(const char *name, uint64_t seed, dra_model_t *m, bool pods)
{
    dra_scenario_t s;
    dra_diag_t d;
    int rc = dra_scenario_load_named(&s, name, &d);
    if (rc)
        return rc;
    dra_scenario_built_t b;
    rc = dra_scenario_build(&s, m, seed, &b, &d);
    if (rc == DRA_OK && pods) {
        /* a few pods from the workload, one of them on a shared claim */
        dra_workload_t w;
        rc = dra_workload_init(&w, &b.workload, seed, &d);
        dra_wl_event_t ev;
        for (int i = 0; rc == DRA_OK && i < 200 && dra_workload_next(&w, &ev) == 1;) {
            if (ev.kind != DRA_WL_ARRIVE)
                continue;
            i++;
            dra_pod_t *p = dra_model_add_pod(m);
            dra_pod_claim_t *pc = dra_model_array(m, 1, sizeof *pc);
            char nm[64];
            snprintf(nm, sizeof nm, "pod-%llu", (unsigned long long)ev.pod);
            p->namespace_ = dra_model_str(m, "default");
            p->name = dra_model_str(m, nm);
            p->replicas = 1;
            pc->name = dra_model_str(m, "claim");
            if (ev.claim != UINT64_MAX) {
                snprintf(nm, sizeof nm, "shared-%llu", (unsigned long long)ev.claim);
                if (ev.new_claim)
                    rc = dra_shape_instantiate(m, b.templates[ev.mix], nm, NULL);
                pc->claim_name = dra_model_str(m, nm);
            } else {
                pc->template_name = b.templates[ev.mix]->name;
            }
            p->claims = pc;
            p->nclaims = 1;
        }
        if (rc == DRA_OK)
            dra_workload_fini(&w);
    }
    dra_scenario_built_fini(&b);
    dra_scenario_fini(&s);
    return rc;
}

static void test_roundtrip_and_determinism(void)
{
    const char *names[] = {"default", "sched-perf-500", "nvl72-training", "unsat-storm"};
    for (size_t k = 0; k < DRA_ARRAY_LEN(names); k++) {
        dra_model_t a, b, c, r;
        dra_model_init(&a);
        dra_model_init(&b);
        dra_model_init(&c);
        dra_model_init(&r);
        CHECK_OK(build_named(names[k], 11, &a, true));
        CHECK_OK(build_named(names[k], 11, &b, true));
        CHECK_OK(build_named(names[k], 12, &c, true));
        dra_sbuf_t sa = {0}, sb = {0}, sc = {0};
        CHECK_OK(dra_manifest_write_yaml_buf(&a, &sa));
        CHECK_OK(dra_manifest_write_yaml_buf(&b, &sb));
        CHECK_OK(dra_manifest_write_yaml_buf(&c, &sc));
        CHECK(sa.len == sb.len && memcmp(sa.p, sb.p, sa.len) == 0);
        CHECK(sa.len != sc.len || memcmp(sa.p, sc.p, sa.len) != 0);
        CHECK_EQ_U64(dra_model_digest(&a), dra_model_digest(&b));
        CHECK(dra_model_digest(&a) != dra_model_digest(&c));
        dra_diag_list_t errs, warns;
        dra_diag_list_init(&errs);
        dra_diag_list_init(&warns);
        int rc = dra_manifest_validate_ex(&a, NULL, &errs, &warns);
        CHECK_MSG(rc == DRA_OK, "%s: generated model invalid: %s", names[k], errs.count ? errs.items[0].msg : "");
        dra_diag_list_fini(&errs);
        dra_diag_list_init(&errs);
        rc = dra_manifest_read_buffer(&r, "gen.yaml", sa.p, sa.len, &errs);
        CHECK_MSG(rc == DRA_OK, "%s: re-read: %s", names[k], errs.count ? errs.items[0].msg : "");
        dra_diag_list_fini(&errs);
        dra_diag_list_init(&errs);
        CHECK_MSG(dra_manifest_validate_ex(&r, NULL, &errs, NULL) == DRA_OK, "%s: re-read invalid: %s", names[k],
                  errs.count ? errs.items[0].msg : "");
        CHECK_EQ_U64(dra_model_digest(&r), dra_model_digest(&a));
        dra_diag_list_fini(&errs);
        dra_diag_list_fini(&warns);
        dra_sbuf_fini(&sa);
        dra_sbuf_fini(&sb);
        dra_sbuf_fini(&sc);
        dra_model_fini(&a);
        dra_model_fini(&b);
        dra_model_fini(&c);
        dra_model_fini(&r);
    }
}

int main(void)
{
    const char *sh = getenv("DRA_SHARED");
    snprintf(shared_dir, sizeof shared_dir, "%s", sh && *sh ? sh : "../shared");
    RUN(test_profiles_match_real_slices);
    RUN(test_roundtrip_and_determinism);
    return check_summary();
}
