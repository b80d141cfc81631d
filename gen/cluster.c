/* cluster.c - cluster building from node groups, standard DeviceClasses; see cluster.h. */
#include <stdio.h>
#include <string.h>

#include "gen/gen_int.h"

typedef struct std_class {
    const char *name, *cel, *ext;
} std_class_t;

/* Selectors as in the drivers' charts (real-manifests: nvidia helm/deviceclass-*.rendered.yaml,
 * dranet deviceclass.yaml, rocm deviceclass.yaml, k8s-scheduler-perf/deviceclass.yaml, the
 * dra-example-driver chart). */
static const std_class_t std_classes[] = {
    {"gpu.nvidia.com", "device.driver == 'gpu.nvidia.com' && device.attributes['gpu.nvidia.com'].type == 'gpu'",
     "nvidia.com/gpu"},
    {"mig.nvidia.com", "device.driver == 'gpu.nvidia.com' && device.attributes['gpu.nvidia.com'].type == 'mig'",
     NULL},
    /* h100-mig-vgpu (a drabench extension: the chart has no vGPU class) */
    {"vgpu.nvidia.com", "device.driver == 'gpu.nvidia.com' && device.attributes['gpu.nvidia.com'].type == 'vgpu'",
     NULL},
    {"compute-domain-default-channel.nvidia.com",
     "device.driver == 'compute-domain.nvidia.com' && device.attributes['compute-domain.nvidia.com'].type == "
     "'channel' && device.attributes['compute-domain.nvidia.com'].id == 0",
     NULL},
    {"imex.nvidia.com",
     "device.driver == 'gpu.nvidia.com' && device.attributes['gpu.nvidia.com'].type == 'imex-channel'", NULL},
    {"dranet.net", "device.driver == \"dra.net\"", NULL},
    {"gpu.amd.com", "device.driver == 'gpu.amd.com'", NULL},
    {"test-class", "device.driver == \"test-driver.cdi.k8s.io\"", NULL},
    {"gpu.example.com", "device.driver == 'gpu.example.com'", NULL},
};

static const char *const std_class_names[] = {
    "gpu.nvidia.com", "mig.nvidia.com", "vgpu.nvidia.com", "compute-domain-default-channel.nvidia.com", "imex.nvidia.com",
    "dranet.net", "gpu.amd.com", "test-class", "gpu.example.com", NULL};

int dra_gen_add_class(dra_model_t *m, const char *name, const char *cel, const char *ext)
{
    if (dra_model_find_class(m, name))
        return DRA_OK;
    dra_device_class_t *k = dra_model_add_class(m);
    if (!k)
        return DRA_ENOMEM;
    k->name = dra_model_str(m, name);
    k->pos.file = dra_gen__file;
    k->selectors = dra_model_array(m, 1, sizeof *k->selectors);
    if (!k->name || !k->selectors)
        return DRA_ENOMEM;
    k->selectors[0].cel = dra_model_str(m, cel);
    k->selectors[0].pos.file = dra_gen__file;
    k->nselectors = 1;
    if (ext && !(k->extended_resource_name = dra_model_str(m, ext)))
        return DRA_ENOMEM;
    return k->selectors[0].cel ? DRA_OK : DRA_ENOMEM;
}

int dra_gen_add_std_class(dra_model_t *m, const char *name)
{
    for (size_t i = 0; i < DRA_ARRAY_LEN(std_classes); i++)
        if (strcmp(std_classes[i].name, name) == 0)
            return dra_gen_add_class(m, name, std_classes[i].cel, std_classes[i].ext);
    return DRA_ENOTFOUND;
}

static int check_params(const dra_gen_group_t *g, uint32_t gi, dra_diag_t *diag)
{
    const dra_gen_params_t *p = &g->params;
    const char *pn = dra_gen_profile_info(g->profile) ? dra_gen_profile_info(g->profile)->name : NULL;
    if (!pn)
        return dra_diag_set(diag, DRA_EINVAL, NULL, 0, 0, "group %u: unknown profile %d", gi, (int)g->profile);
#define BAD(...) dra_diag_set(diag, DRA_EINVAL, NULL, 0, 0, __VA_ARGS__)
    if (p->gpus < 1 || p->gpus > 64)
        return BAD("group %u (%s): gpus must be 1..64, got %u", gi, pn, p->gpus);
    if (p->nics > p->gpus)
        return BAD("group %u (%s): nics (%u) must not exceed gpus (%u): each NIC shares a GPU's PCIe root", gi,
                   pn, p->nics, p->gpus);
    if (p->devices < 1 || p->devices > 4096)
        return BAD("group %u (%s): devices must be 1..4096, got %u", gi, pn, p->devices);
    if (g->profile == DRA_GEN_SHARED_GPU && p->devices > 128)
        return BAD("group %u (%s): devices must be <= 128 (one slice)", gi, pn);
    if (p->rack_size < 1)
        return BAD("group %u (%s): rackSize must be >= 1", gi, pn);
    if (p->channels < 1 || p->channels > 127)
        return BAD("group %u (%s): channels must be 1..127", gi, pn);
    if (g->profile == DRA_GEN_MI300X && p->gpus > 16)
        return BAD("group %u (%s): gpus must be <= 16", gi, pn);
    if (g->profile == DRA_GEN_NET_POOL && p->scope == DRA_GEN_SCOPE_NODE_SELECTOR &&
        (!p->selector_key || !*p->selector_key || !p->selector_value))
        return BAD("group %u (%s): scope nodeSelector needs selector key and value", gi, pn);
    if (g->profile == DRA_GEN_NET_POOL && p->scope == DRA_GEN_SCOPE_PER_VALUE &&
        (!p->selector_key || !*p->selector_key))
        return BAD("group %u (%s): scope perValue needs selector key (a node label)", gi, pn);
    if (p->rack_label && (!*p->rack_label || p->rack_size < 1))
        return BAD("group %u (%s): rackLabel needs a label key and rackSize >= 1", gi, pn);
    if (g->profile == DRA_GEN_CPU_ONLY || g->profile == DRA_GEN_NET_POOL)
        return DRA_OK;
    if (!p->product_name || !p->memory || !p->driver_version)
        return BAD("group %u (%s): productName, memory and driverVersion must be set", gi, pn);
    dra_quantity_t q;
    dra_diag_t qd;
    if (dra_gen__qty(p->memory, &q, &qd) != DRA_OK)
        return BAD("group %u (%s): memory \"%s\" is not a quantity: %s", gi, pn, p->memory, qd.msg);
#undef BAD
    return DRA_OK;
}

static const char *const *classes_of(dra_gen_profile_t p)
{
    static const char *const nv[] = {"gpu.nvidia.com", "mig.nvidia.com", NULL};
    static const char *const nvv[] = {"gpu.nvidia.com", "mig.nvidia.com", "vgpu.nvidia.com", NULL};
    static const char *const dgx[] = {"gpu.nvidia.com", "mig.nvidia.com", "dranet.net", NULL};
    static const char *const gb[] = {"gpu.nvidia.com", "mig.nvidia.com", "dranet.net",
                                     "compute-domain-default-channel.nvidia.com", NULL};
    static const char *const amd[] = {"gpu.amd.com", NULL};
    static const char *const net[] = {"imex.nvidia.com", NULL};
    static const char *const sp[] = {"test-class", NULL};
    static const char *const ex[] = {"gpu.example.com", NULL};
    static const char *const none[] = {NULL};
    switch (p) {
    case DRA_GEN_DGX_H100:
    case DRA_GEN_DGX_H200:
        return dgx;
    case DRA_GEN_GB200_NVL72:
        return gb;
    case DRA_GEN_A100_MIG_STATIC:
    case DRA_GEN_H100_MIG_STATIC:
    case DRA_GEN_A100_MIG_DYNAMIC:
    case DRA_GEN_H100_MIG_DYNAMIC:
        return nv;
    case DRA_GEN_H100_MIG_VGPU:
        return nvv;
    case DRA_GEN_MI300X:
        return amd;
    case DRA_GEN_NET_POOL:
        return net;
    case DRA_GEN_SCHED_PERF:
        return sp;
    case DRA_GEN_SHARED_GPU:
        return ex;
    default:
        return none;
    }
}

int dra_gen_cluster_build(dra_model_t *m, const dra_gen_cluster_spec_t *spec, uint64_t seed,
                          dra_gen_cluster_stats_t *stats, dra_diag_t *diag)
{
    dra_diag_clear(diag);
    for (uint32_t i = 0; i < spec->ngroups; i++) {
        int rc = check_params(&spec->groups[i], i, diag);
        if (rc)
            return rc;
    }
    dra_gen_ctx_t c;
    memset(&c, 0, sizeof c);
    c.m = m;
    c.diag = diag;
    dra_rng_seed(&c.rng, seed, DRA_STREAM_CLUSTER);
    uint32_t nclasses0 = m->nclasses;
    /* classes first, in catalog order, so the model's class order does not depend on group order */
    for (const char *const *n = std_class_names; *n; n++)
        for (uint32_t i = 0; i < spec->ngroups; i++) {
            bool want = false;
            for (const char *const *k = classes_of(spec->groups[i].profile); *k; k++)
                want |= strcmp(*k, *n) == 0;
            if (want) {
                int rc = dra_gen_add_std_class(m, *n);
                if (rc)
                    return rc;
                break;
            }
        }
    {
        uint64_t a = dra_rng_next(&c.rng), b = dra_rng_next(&c.rng);
        snprintf(c.cluster_uuid, sizeof c.cluster_uuid, "%08x-%04x-%04x-%04x-%012llx", (unsigned)(a >> 32),
                 (unsigned)(a >> 16) & 0xffffu, (unsigned)a & 0xffffu, (unsigned)(b >> 48),
                 (unsigned long long)(b & 0xffffffffffffull));
    }
    for (uint32_t i = 0; i < spec->ngroups; i++) {
        int rc = dra_gen__emit_group(&c, &spec->groups[i], i);
        if (rc) {
            if (diag && diag->code == DRA_OK)
                dra_diag_set(diag, rc, NULL, 0, 0, "group %u: %s", i, dra_strerror(rc));
            return rc;
        }
    }
    c.st.classes = m->nclasses - nclasses0;
    if (stats)
        *stats = c.st;
    return DRA_OK;
}
