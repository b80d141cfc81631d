/*
 * profiles.c - node profile catalog and per-group slice emission; see profiles.h.
 *
 * Each group is built in two steps: a prototype (the devices of one node with their attribute,
 * capacity, counter and consumption arrays, built once per group, or once per rack for GB200),
 * then one copy of the dra_device_t structs per node pointing at the shared arrays.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gen/gen_int.h"

/* ---- catalog -------------------------------------------------------------------------------- */

static const dra_gen_profile_info_t profiles[DRA_GEN_NPROFILES] = {
    [DRA_GEN_DGX_H100] = {"dgx-h100", "8x H100 80GB on NVSwitch + 8 ConnectX-7 NICs sharing PCIe roots",
                          "dranet/aws_eks_examples/gpu-efa/resourceslice-gpu.yaml", "gpu.nvidia.com", true},
    [DRA_GEN_DGX_H200] = {"dgx-h200", "8x H200 141GB on NVSwitch + 8 ConnectX-7 NICs sharing PCIe roots",
                          "dranet/aws_eks_examples/gpu-efa/resourceslice-gpu.yaml", "gpu.nvidia.com", true},
    [DRA_GEN_GB200_NVL72] = {"gb200-nvl72", "GB200 tray: 4 GPUs, racks of 18 trays in one NVLink clique, ComputeDomain channels",
                             "dranet/oci_oke_examples/BM.GPU.GB200-v3.4/resourceslice-gpu.yaml", "gpu.nvidia.com", true},
    [DRA_GEN_A100_MIG_STATIC] = {"a100-mig-static", "8x A100-40GB with a fixed MIG layout (all-1g, half-balanced, mixed)",
                                 "nvidia-k8s-dra-driver-gpu/resourceslices/kubectl-get-resourceslice-static-mig.derived.yaml",
                                 "gpu.nvidia.com", true},
    [DRA_GEN_H100_MIG_STATIC] = {"h100-mig-static", "8x H100-80GB with a fixed MIG layout (all-1g, half-balanced, mixed)",
                                 "nvidia-k8s-dra-driver-gpu/resourceslices/kubectl-get-resourceslice-static-mig.derived.yaml",
                                 "gpu.nvidia.com", true},
    [DRA_GEN_A100_MIG_DYNAMIC] = {"a100-mig-dynamic", "8x A100-40GB partitionable: shared counters, 25 MIG placements per GPU",
                                  "nvidia-k8s-dra-driver-gpu/resourceslices/dgx-a100-dynamic-mig-combined.derived.yaml",
                                  "gpu.nvidia.com", true},
    [DRA_GEN_H100_MIG_DYNAMIC] = {"h100-mig-dynamic", "8x H100-80GB partitionable: full GPU + 25 MIG placements per GPU",
                                  "nvidia-k8s-dra-driver-gpu/resourceslices/hgx-h100-dynamic-mig-split.derived.yaml",
                                  "gpu.nvidia.com", true},
    [DRA_GEN_MI300X] = {"mi300x", "8x AMD MI300X as full GPUs (SPX) or 8 CPX partitions each",
                        "rocm-k8s-gpu-dra-driver/mi300x-spx-node.derived.yaml", "gpu.amd.com", true},
    [DRA_GEN_CPU_ONLY] = {"cpu-only", "a Node without DRA devices", NULL, NULL, true},
    [DRA_GEN_NET_POOL] = {"net-pool", "network-attached pool of IMEX channels (allNodes, nodeSelector, or per value of a node label)",
                          "nvidia-k8s-dra-driver-gpu/resourceslices/imex-resourceslice.yaml", "gpu.nvidia.com", false},
    [DRA_GEN_SCHED_PERF] = {"sched-perf", "scheduler_perf test-driver node: N devices model=A100, 1Gi",
                            "k8s-scheduler-perf/resourceslice-basic-devices.rendered.yaml", "test-driver.cdi.k8s.io", true},
    [DRA_GEN_SHARED_GPU] = {"shared-gpu", "dra-example-driver GPUs with allowMultipleAllocations (consumable memory/compute)",
                            "dra-example-driver/gpu-allow-multiple-allocations.derived.yaml", "gpu.example.com", true},
    [DRA_GEN_H100_MIG_VGPU] = {"h100-mig-vgpu",
                               "8x H100-80GB partitionable into MIG or 4 vGPUs per GPU (1.37 compatibilityGroups)",
                               "nvidia-k8s-dra-driver-gpu/resourceslices/hgx-h100-dynamic-mig-split.derived.yaml",
                               "gpu.nvidia.com", true},
};

const dra_gen_profile_info_t *dra_gen_profile_info(dra_gen_profile_t p)
{
    return (unsigned)p < DRA_GEN_NPROFILES ? &profiles[p] : NULL;
}

int dra_gen_profile_find(const char *name, dra_gen_profile_t *out)
{
    for (int i = 0; i < DRA_GEN_NPROFILES; i++)
        if (name && strcmp(profiles[i].name, name) == 0) {
            *out = (dra_gen_profile_t)i;
            return DRA_OK;
        }
    return DRA_ENOTFOUND;
}

static const char *const ext_nvswitch[] = {"cliqueID", NULL};
static const char *const ext_none[] = {NULL};
/* sched-perf follows the createResourceDriver op of scheduler_perf (DRA-SEMANTICS §5.2), which
 * publishes dra.example.com/numa where the rendered file has resource.k8s.io/pciRoot. */
static const char *const ext_sched_perf[] = {"dra.example.com/numa", NULL};

const char *const *dra_gen_profile_extensions(dra_gen_profile_t p)
{
    switch (p) {
    case DRA_GEN_DGX_H100:
    case DRA_GEN_DGX_H200:
    case DRA_GEN_GB200_NVL72:
        return ext_nvswitch;
    case DRA_GEN_SCHED_PERF:
        return ext_sched_perf;
    default:
        return ext_none;
    }
}

/* GPU model facts (values from the real slices named in the catalog). */
typedef struct gpu_model {
    const char *product, *arch, *cc, *cuda, *driver, *memory, *addressing;
} gpu_model_t;

static const gpu_model_t GM_H100 = {"NVIDIA H100 80GB HBM3", "Hopper", "9.0.0", "12.4.0", "550.163.1", "80Gi", "HMM"};
static const gpu_model_t GM_H200 = {"NVIDIA H200", "Hopper", "9.0.0", "12.8.0", "570.124.6", "143771Mi", "HMM"};
static const gpu_model_t GM_GB200 = {"NVIDIA GB200", "Blackwell", "10.0.0", "13.0.0", "580.126.20", "189471Mi", "ATS"};
static const gpu_model_t GM_A100 = {"NVIDIA A100-SXM4-40GB", "Ampere", "8.0.0", "13.0.0", "580.95.5", "40Gi", "HMM"};

void dra_gen_params_default(dra_gen_profile_t p, dra_gen_params_t *o)
{
    memset(o, 0, sizeof *o);
    o->gpus = 8;
    o->devices = 10;
    o->rack_size = 18;
    o->channels = 1;
    o->mig_layout = DRA_GEN_MIG_HALF_BALANCED;
    switch (p) {
    case DRA_GEN_DGX_H100:
        o->nics = 8;
        o->product_name = GM_H100.product, o->memory = GM_H100.memory, o->driver_version = GM_H100.driver;
        break;
    case DRA_GEN_DGX_H200:
        o->nics = 8;
        o->product_name = GM_H200.product, o->memory = GM_H200.memory, o->driver_version = GM_H200.driver;
        break;
    case DRA_GEN_GB200_NVL72:
        o->gpus = 4;
        o->product_name = GM_GB200.product, o->memory = GM_GB200.memory, o->driver_version = GM_GB200.driver;
        break;
    case DRA_GEN_A100_MIG_STATIC:
    case DRA_GEN_A100_MIG_DYNAMIC:
        o->product_name = GM_A100.product, o->memory = GM_A100.memory, o->driver_version = GM_A100.driver;
        break;
    case DRA_GEN_H100_MIG_STATIC:
    case DRA_GEN_H100_MIG_DYNAMIC:
    case DRA_GEN_H100_MIG_VGPU:
        o->product_name = GM_H100.product, o->memory = GM_H100.memory, o->driver_version = GM_H100.driver;
        break;
    case DRA_GEN_MI300X:
        o->product_name = "AMD_Instinct_MI300X_OAM", o->memory = "196592Mi", o->driver_version = "6.12.12";
        break;
    case DRA_GEN_SCHED_PERF:
        o->product_name = "A100", o->memory = "1Gi", o->driver_version = "1.2.3";
        break;
    case DRA_GEN_SHARED_GPU:
        o->devices = 8;
        o->product_name = "LATEST-GPU-MODEL", o->memory = "80Gi", o->driver_version = "1.0.0";
        break;
    default:
        break;
    }
}

/* ---- MIG tables ------------------------------------------------------------------------------ */

typedef struct mig_prof {
    const char *name; /* "1g.10gb" */
    const char *tag;  /* device-name part: "1g10gb", "1g10gb-me" */
    int id, ce, dec, enc, jpeg, ofa, mp;
    const char *mem;
    int nslices;
    int nplace;
    int place[7];
} mig_prof_t;

typedef struct mig_gpu {
    const mig_prof_t *p;
    int np;
    const char *full_mem;
    int ce, dec, enc, jpeg, ofa, mp; /* the full GPU / counter set */
    int small, two, three;           /* table indexes of the 1g, 2g and 3g profiles for layouts */
    bool announce_full;              /* dynamic MIG: the full GPU is a device too (Hopper) */
} mig_gpu_t;

/* A100-SXM4-40GB (values of dgx-a100-dynamic-mig-combined.derived.yaml), sorted by tag. */
static const mig_prof_t a100_profs[] = {
    {"1g.10gb", "1g10gb", 15, 1, 1, 0, 0, 0, 14, "9856Mi", 2, 4, {0, 2, 4, 6}},
    {"1g.5gb", "1g5gb", 19, 1, 0, 0, 0, 0, 14, "4864Mi", 1, 7, {0, 1, 2, 3, 4, 5, 6}},
    {"1g.5gb+me", "1g5gb-me", 20, 1, 1, 0, 1, 1, 14, "4864Mi", 1, 7, {0, 1, 2, 3, 4, 5, 6}},
    {"2g.10gb", "2g10gb", 14, 2, 1, 0, 0, 0, 28, "9856Mi", 2, 3, {0, 2, 4}},
    {"3g.20gb", "3g20gb", 9, 3, 2, 0, 0, 0, 42, "19968Mi", 4, 2, {0, 4}},
    {"4g.20gb", "4g20gb", 5, 4, 2, 0, 0, 0, 56, "19968Mi", 4, 1, {0}},
    {"7g.40gb", "7g40gb", 0, 7, 5, 0, 1, 1, 98, "40192Mi", 8, 1, {0}},
};
/* H100 80GB HBM3 (values of hgx-h100-dynamic-mig-split.derived.yaml), sorted by tag. */
static const mig_prof_t h100_profs[] = {
    {"1g.10gb", "1g10gb", 19, 1, 1, 0, 1, 0, 16, "10Gi", 1, 7, {0, 1, 2, 3, 4, 5, 6}},
    {"1g.10gb+me", "1g10gb-me", 20, 1, 1, 0, 1, 1, 16, "10Gi", 1, 7, {0, 1, 2, 3, 4, 5, 6}},
    {"1g.20gb", "1g20gb", 15, 1, 1, 0, 1, 0, 16, "20Gi", 2, 4, {0, 2, 4, 6}},
    {"2g.20gb", "2g20gb", 14, 2, 2, 0, 2, 0, 32, "20Gi", 2, 3, {0, 2, 4}},
    {"3g.40gb", "3g40gb", 9, 3, 3, 0, 3, 0, 48, "40Gi", 4, 2, {0, 4}},
    {"4g.40gb", "4g40gb", 5, 4, 4, 0, 4, 0, 64, "40Gi", 4, 1, {0}},
    {"7g.80gb", "7g80gb", 0, 8, 7, 0, 7, 1, 112, "80Gi", 8, 1, {0}},
};
static const mig_gpu_t MIG_A100 = {a100_profs, 7, "40192Mi", 7, 5, 0, 1, 1, 98, 1, 3, 4, false};
static const mig_gpu_t MIG_H100 = {h100_profs, 7, "80Gi", 8, 7, 0, 7, 1, 112, 0, 3, 4, true};

static const char *const a100_mig_names[] = {"1g.10gb", "1g.5gb", "1g.5gb+me", "2g.10gb", "3g.20gb",
                                             "4g.20gb", "7g.40gb", NULL};
static const char *const h100_mig_names[] = {"1g.10gb", "1g.10gb+me", "1g.20gb", "2g.20gb", "3g.40gb",
                                             "4g.40gb", "7g.80gb", NULL};

const char *const *dra_gen_profile_mig_names(dra_gen_profile_t p)
{
    switch (p) {
    case DRA_GEN_A100_MIG_STATIC:
    case DRA_GEN_A100_MIG_DYNAMIC:
        return a100_mig_names;
    case DRA_GEN_H100_MIG_STATIC:
    case DRA_GEN_H100_MIG_DYNAMIC:
    case DRA_GEN_H100_MIG_VGPU:
        return h100_mig_names;
    default:
        return NULL;
    }
}

/* ---- small helpers ------------------------------------------------------------------------- */

const char dra_gen__file[] = "<gen>";

const char *dra_gen__fmt(dra_gen_ctx_t *c, const char *fmt, ...)
{
    char buf[512];
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    if (n < 0 || (size_t)n >= sizeof buf) {
        c->err = c->err ? c->err : DRA_EINTERNAL;
        return NULL;
    }
    const char *s = dra_model_strn(c->m, buf, (size_t)n);
    if (!s)
        c->err = c->err ? c->err : DRA_ENOMEM;
    return s;
}

const char *dra_gen__intern(dra_model_t *m, const char *s)
{
    uint32_t id;
    if (dra_intern_put(&m->intern, s, strlen(s), &id) != DRA_OK)
        return NULL;
    return dra_intern_str(&m->intern, id);
}

int dra_gen__qty(const char *s, dra_quantity_t *out, dra_diag_t *diag)
{
    return dra_quantity_parse(s, strlen(s), out, diag);
}

int dra_gen__cqty(dra_gen_ctx_t *c, const char *s, dra_quantity_t *out)
{
    size_t len = strlen(s);
    if (len == 0 || len >= sizeof c->qcache[0].text)
        return dra_gen__qty(s, out, c->diag);
    uint32_t h = 2166136261u; /* FNV-1a */
    for (size_t i = 0; i < len; i++)
        h = (h ^ (unsigned char)s[i]) * 16777619u;
    dra_gen_qcache_t *e = &c->qcache[h % DRA_GEN_QCACHE];
    if (strcmp(e->text, s) == 0) {
        *out = e->q;
        return DRA_OK;
    }
    int rc = dra_quantity_parse(s, len, out, c->diag);
    if (rc == DRA_OK) {
        memcpy(e->text, s, len + 1);
        e->q = *out;
    }
    return rc;
}

static void uuid_str(dra_rng_t *r, const char *prefix, char *buf, size_t len)
{
    uint64_t a = dra_rng_next(r), b = dra_rng_next(r);
    snprintf(buf, len, "%s%08x-%04x-%04x-%04x-%012llx", prefix, (unsigned)(a >> 32),
             (unsigned)(a >> 16) & 0xffffu, (unsigned)a & 0xffffu, (unsigned)(b >> 48),
             (unsigned long long)(b & 0xffffffffffffull));
}

/* ---- device builder --------------------------------------------------------------------------- */

#define AB_MAX 40

typedef struct ab {
    dra_gen_ctx_t *c;
    const char *driver;
    dra_attr_t a[AB_MAX];
    uint32_t na;
    dra_capacity_t k[AB_MAX];
    uint32_t nk;
} ab_t;

static void ab_init(ab_t *b, dra_gen_ctx_t *c, const char *driver)
{
    b->c = c;
    b->driver = driver;
    b->na = b->nk = 0;
}

static dra_attr_t *ab_new(ab_t *b, const char *name, dra_attr_kind_t kind)
{
    if (b->na >= AB_MAX) {
        b->c->err = DRA_EINTERNAL;
        return NULL;
    }
    dra_attr_t *a = &b->a[b->na++];
    memset(a, 0, sizeof *a);
    a->name = dra_gen__intern(b->c->m, name);
    a->qname = dra_model_qname(b->c->m, b->driver, name);
    a->kind = (uint8_t)kind;
    a->count = 1;
    if (!a->name || !a->qname)
        b->c->err = DRA_ENOMEM;
    return a;
}

static void ab_s(ab_t *b, const char *name, const char *v)
{
    dra_attr_t *a = ab_new(b, name, DRA_ATTR_STRING);
    if (a && !(a->v.s = dra_gen__intern(b->c->m, v)))
        b->c->err = DRA_ENOMEM;
}

static void ab_v(ab_t *b, const char *name, const char *v)
{
    dra_attr_t *a = ab_new(b, name, DRA_ATTR_VERSION);
    if (a && !(a->v.s = dra_gen__intern(b->c->m, v)))
        b->c->err = DRA_ENOMEM;
}

static void ab_i(ab_t *b, const char *name, int64_t v)
{
    dra_attr_t *a = ab_new(b, name, DRA_ATTR_INT);
    if (a)
        a->v.i = v;
}

static void ab_b(ab_t *b, const char *name, bool v)
{
    dra_attr_t *a = ab_new(b, name, DRA_ATTR_BOOL);
    if (a)
        a->v.b = v;
}

static void ab_qp(ab_t *b, const char *name, const char *q, const dra_request_policy_t *pol)
{
    if (b->nk >= AB_MAX) {
        b->c->err = DRA_EINTERNAL;
        return;
    }
    dra_capacity_t *k = &b->k[b->nk++];
    memset(k, 0, sizeof *k);
    k->name = dra_gen__intern(b->c->m, name);
    k->qname = dra_model_qname(b->c->m, b->driver, name);
    k->policy = pol;
    if (!k->name || !k->qname)
        b->c->err = DRA_ENOMEM;
    int rc = dra_gen__cqty(b->c, q, &k->value);
    if (rc != DRA_OK && !b->c->err)
        b->c->err = rc;
}

static void ab_q(ab_t *b, const char *name, const char *q)
{
    ab_qp(b, name, q, NULL);
}

static void ab_qi(ab_t *b, const char *name, int v)
{
    char buf[24];
    snprintf(buf, sizeof buf, "%d", v);
    ab_q(b, name, buf);
}

/* Copy the accumulated attributes/capacities into arena arrays and fill d. */
static void ab_done(ab_t *b, dra_device_t *d, const char *name)
{
    dra_model_t *m = b->c->m;
    memset(d, 0, sizeof *d);
    d->name = name;
    d->pos.file = dra_gen__file;
    if (b->na) {
        d->attrs = dra_model_array(m, b->na, sizeof(dra_attr_t));
        if (!d->attrs) {
            b->c->err = DRA_ENOMEM;
            return;
        }
        memcpy(d->attrs, b->a, b->na * sizeof(dra_attr_t));
        d->nattrs = b->na;
    }
    if (b->nk) {
        d->caps = dra_model_array(m, b->nk, sizeof(dra_capacity_t));
        if (!d->caps) {
            b->c->err = DRA_ENOMEM;
            return;
        }
        memcpy(d->caps, b->k, b->nk * sizeof(dra_capacity_t));
        d->ncaps = b->nk;
    }
    b->na = b->nk = 0;
}

/* ---- counters ------------------------------------------------------------------------------- */

typedef struct cb {
    dra_counter_t c[24];
    uint32_t n;
} cb_t;

static void cb_add(dra_gen_ctx_t *c, cb_t *b, const char *name, const char *q)
{
    if (b->n >= DRA_ARRAY_LEN(b->c)) {
        c->err = DRA_EINTERNAL;
        return;
    }
    dra_counter_t *k = &b->c[b->n++];
    *k = (dra_counter_t){0}; /* no valueFrom, no requestPolicy (KEP-5941 fields) */
    k->name = dra_gen__intern(c->m, name);
    if (!k->name)
        c->err = DRA_ENOMEM;
    int rc = dra_gen__cqty(c, q, &k->value);
    if (rc != DRA_OK && !c->err)
        c->err = rc;
}

static void cb_addi(dra_gen_ctx_t *c, cb_t *b, const char *name, int v)
{
    char buf[24];
    snprintf(buf, sizeof buf, "%d", v);
    cb_add(c, b, name, buf);
}

static dra_counter_t *cb_done(dra_gen_ctx_t *c, cb_t *b)
{
    dra_counter_t *out = dra_model_array(c->m, b->n, sizeof *out);
    if (!out) {
        c->err = DRA_ENOMEM;
        return NULL;
    }
    memcpy(out, b->c, b->n * sizeof *out);
    return out;
}

/* MIG counters in the driver's order: copy-engines, decoders, encoders, jpeg-engines, memory,
 * memory-slice-<i>..., multiprocessors, ofa-engines (the real files list them sorted by name). */
static void mig_counters(dra_gen_ctx_t *c, cb_t *b, int ce, int dec, int enc, int jpeg, const char *mem,
                         int first_slice, int nslices, int mp, int ofa)
{
    char nm[32];
    b->n = 0;
    cb_addi(c, b, "copy-engines", ce);
    cb_addi(c, b, "decoders", dec);
    cb_addi(c, b, "encoders", enc);
    cb_addi(c, b, "jpeg-engines", jpeg);
    cb_add(c, b, "memory", mem);
    for (int s = first_slice; s < first_slice + nslices; s++) {
        snprintf(nm, sizeof nm, "memory-slice-%d", s);
        cb_addi(c, b, nm, 1);
    }
    cb_addi(c, b, "multiprocessors", mp);
    cb_addi(c, b, "ofa-engines", ofa);
}

/* ---- prototypes ---------------------------------------------------------------------------- */

#define MAX_PSLICES 40

typedef struct pslice {
    const char *driver;
    dra_device_t *devs;
    uint32_t nd;
    dra_counter_set_t *cs;
    uint32_t ncs;
} pslice_t;

typedef struct proto {
    pslice_t s[MAX_PSLICES];
    uint32_t ns;
    const dra_label_t *labels; /* group labels without the hostname */
    uint32_t nlabels;
    uint32_t gpus; /* physical accelerators per node, for stats */
} proto_t;

static pslice_t *proto_slice(dra_gen_ctx_t *c, proto_t *p, const char *driver, uint32_t ndev)
{
    if (p->ns >= MAX_PSLICES) {
        c->err = DRA_ELIMIT;
        return NULL;
    }
    pslice_t *s = &p->s[p->ns++];
    memset(s, 0, sizeof *s);
    s->driver = dra_gen__intern(c->m, driver);
    s->nd = ndev;
    if (ndev && !(s->devs = dra_model_array(c->m, ndev, sizeof(dra_device_t))))
        c->err = DRA_ENOMEM;
    return s;
}

/* PCI topology of an 8-GPU board: GPU i and NIC i sit under root complex base(i). */
static unsigned pci_root(uint32_t i)
{
    static const unsigned base[8] = {0x15, 0x3d, 0x4d, 0x5d, 0x95, 0xbd, 0xcd, 0xdd};
    return base[i % 8] + 2 * (i / 8);
}

typedef struct gpu_ids {
    char uuid[64];
    char bus[24];
    char root[24];
} gpu_ids_t;

static void gpu_ids(dra_gen_ctx_t *c, uint32_t i, gpu_ids_t *o)
{
    uuid_str(&c->rng, "GPU-", o->uuid, sizeof o->uuid);
    snprintf(o->bus, sizeof o->bus, "0000:%02x:00.0", pci_root(i) + 6);
    snprintf(o->root, sizeof o->root, "pci0000:%02x", pci_root(i));
}

/* Attributes common to NVIDIA GPUs and MIG devices, in the driver's (alphabetical) order up to
 * productName. */
static void nv_common(ab_t *b, const gpu_model_t *gm, const dra_gen_params_t *pp, bool addressing)
{
    if (addressing)
        ab_s(b, "addressingMode", gm->addressing);
    ab_s(b, "architecture", gm->arch);
    ab_s(b, "brand", "Nvidia");
    ab_v(b, "cudaComputeCapability", gm->cc);
    ab_v(b, "cudaDriverVersion", gm->cuda);
    ab_v(b, "driverVersion", pp->driver_version);
}

/* Full GPU device (dgx, gb200, dynamic H100). clique: NULL = no cliqueID attribute. */
static void nv_full_gpu(ab_t *b, const gpu_model_t *gm, const dra_gen_params_t *pp, const gpu_ids_t *ids,
                        const char *clique, bool addressing)
{
    nv_common(b, gm, pp, addressing);
    if (clique)
        ab_s(b, "cliqueID", clique);
    ab_s(b, "productName", pp->product_name);
    ab_s(b, "resource.kubernetes.io/pciBusID", ids->bus);
    ab_s(b, "resource.kubernetes.io/pcieRoot", ids->root);
    ab_s(b, "type", "gpu");
    ab_s(b, "uuid", ids->uuid);
}

static const gpu_model_t *gm_of(dra_gen_profile_t p)
{
    switch (p) {
    case DRA_GEN_DGX_H200:
        return &GM_H200;
    case DRA_GEN_GB200_NVL72:
        return &GM_GB200;
    case DRA_GEN_A100_MIG_STATIC:
    case DRA_GEN_A100_MIG_DYNAMIC:
        return &GM_A100;
    default:
        return &GM_H100;
    }
}

/* dra.net ConnectX NICs (attribute set of the OCI GB200 dranet slice without the oke.* cloud
 * attributes); NIC i shares the PCIe root of GPU i. */
static void build_nics(dra_gen_ctx_t *c, proto_t *p, uint32_t n, uint32_t ngpus, const char *model)
{
    if (!n)
        return;
    pslice_t *s = proto_slice(c, p, "dra.net", n);
    if (!s)
        return;
    ab_t b;
    ab_init(&b, c, "dra.net");
    uint64_t macbase = dra_rng_next(&c->rng);
    for (uint32_t i = 0; i < n; i++) {
        char addr[24], root[24], mac[24], ifn[16];
        unsigned r = pci_root(i);
        snprintf(addr, sizeof addr, "0000:%02x:00.0", r + 4);
        snprintf(root, sizeof root, "pci0000:%02x", r);
        uint64_t mv = (macbase + i) & 0xffffffffffull;
        snprintf(mac, sizeof mac, "b8:%02x:%02x:%02x:%02x:%02x", (unsigned)(mv >> 32) & 0xff,
                 (unsigned)(mv >> 24) & 0xff, (unsigned)(mv >> 16) & 0xff, (unsigned)(mv >> 8) & 0xff,
                 (unsigned)mv & 0xff);
        snprintf(ifn, sizeof ifn, "rdma%u", i);
        ab_s(&b, "dra.net/ifName", ifn);
        ab_s(&b, "dra.net/mac", mac);
        ab_i(&b, "dra.net/mtu", 9000);
        ab_i(&b, "dra.net/numaNode", ngpus ? (int64_t)(i * 2 / (ngpus > 1 ? ngpus : 2)) : 0);
        ab_s(&b, "dra.net/pciAddress", addr);
        ab_s(&b, "dra.net/pciDevice", model);
        ab_s(&b, "dra.net/pciVendor", "Mellanox Technologies");
        ab_b(&b, "dra.net/rdma", true);
        ab_b(&b, "dra.net/sriov", true);
        ab_i(&b, "dra.net/sriovVfs", 0);
        ab_s(&b, "dra.net/state", "up");
        ab_s(&b, "dra.net/type", "device");
        ab_b(&b, "dra.net/virtual", false);
        ab_s(&b, "resource.kubernetes.io/pcieRoot", root);
        ab_done(&b, &s->devs[i], dra_gen__fmt(c, "pci-0000-%02x-00-0", r + 4));
    }
}

static void build_dgx(dra_gen_ctx_t *c, proto_t *p, dra_gen_profile_t prof, const dra_gen_params_t *pp,
                      const char *clique)
{
    const gpu_model_t *gm = gm_of(prof);
    bool gb = prof == DRA_GEN_GB200_NVL72;
    pslice_t *s = proto_slice(c, p, "gpu.nvidia.com", pp->gpus);
    if (!s)
        return;
    ab_t b;
    ab_init(&b, c, "gpu.nvidia.com");
    for (uint32_t i = 0; i < pp->gpus; i++) {
        gpu_ids_t ids;
        gpu_ids(c, i, &ids);
        if (gb) { /* Grace-Blackwell bus layout of the OCI slice: domains 0008, 0009, 0018, 0019 */
            unsigned dom = (i / 2) * 0x10 + 8 + (i % 2);
            snprintf(ids.bus, sizeof ids.bus, "%04x:06:00.0", dom);
            snprintf(ids.root, sizeof ids.root, "pci%04x:00", dom);
        }
        nv_full_gpu(&b, gm, pp, &ids, clique, true);
        ab_q(&b, "memory", pp->memory);
        ab_done(&b, &s->devs[i], dra_gen__fmt(c, "gpu-%u", i));
    }
    p->gpus = pp->gpus;
    build_nics(c, p, pp->nics, pp->gpus, gb ? "CX8 Family [ConnectX-8]" : "MT2910 Family [ConnectX-7]");
    if (gb) { /* compute-domain.nvidia.com node slice: channel-<i> and daemon-0 */
        pslice_t *cd = proto_slice(c, p, "compute-domain.nvidia.com", pp->channels + 1);
        if (!cd)
            return;
        ab_init(&b, c, "compute-domain.nvidia.com");
        for (uint32_t i = 0; i < pp->channels; i++) {
            ab_i(&b, "id", i);
            ab_s(&b, "type", "channel");
            ab_done(&b, &cd->devs[i], dra_gen__fmt(c, "channel-%u", i));
        }
        ab_i(&b, "id", 0);
        ab_s(&b, "type", "daemon");
        ab_done(&b, &cd->devs[pp->channels], dra_gen__intern(c->m, "daemon-0"));
    }
}

/* Layout of one GPU: list of (profile index, placement start). */
static int mig_layout(const mig_gpu_t *mg, dra_gen_mig_layout_t l, uint32_t gpu, int idx[8], int start[8])
{
    if (l == DRA_GEN_MIG_MIXED)
        l = gpu % 3 == 0 ? DRA_GEN_MIG_ALL_1G : gpu % 3 == 1 ? DRA_GEN_MIG_HALF_BALANCED : (dra_gen_mig_layout_t)99;
    int n = 0;
    if (l == DRA_GEN_MIG_ALL_1G) {
        for (int i = 0; i < 7; i++)
            idx[n] = mg->small, start[n++] = i;
    } else if (l == DRA_GEN_MIG_HALF_BALANCED) {
        idx[n] = mg->small, start[n++] = 0;
        idx[n] = mg->small, start[n++] = 1;
        idx[n] = mg->two, start[n++] = 2;
        idx[n] = mg->three, start[n++] = 4;
    } else {
        idx[n] = mg->three, start[n++] = 0;
        idx[n] = mg->three, start[n++] = 4;
    }
    return n;
}

static void build_mig_static(dra_gen_ctx_t *c, proto_t *p, dra_gen_profile_t prof, const dra_gen_params_t *pp)
{
    const mig_gpu_t *mg = prof == DRA_GEN_A100_MIG_STATIC ? &MIG_A100 : &MIG_H100;
    const gpu_model_t *gm = gm_of(prof);
    int idx[8], start[8];
    uint32_t total = 0;
    for (uint32_t g = 0; g < pp->gpus; g++)
        total += (uint32_t)mig_layout(mg, pp->mig_layout, g, idx, start);
    /* <= 128 devices per slice; the static driver publishes one slice per node when it fits */
    uint32_t per = 128, done = 0;
    ab_t b;
    ab_init(&b, c, "gpu.nvidia.com");
    pslice_t *s = NULL;
    for (uint32_t g = 0; g < pp->gpus; g++) {
        gpu_ids_t ids;
        gpu_ids(c, g, &ids);
        int n = mig_layout(mg, pp->mig_layout, g, idx, start);
        for (int k = 0; k < n; k++) {
            if (!s || s->nd == per) {
                uint32_t left = total - done;
                s = proto_slice(c, p, "gpu.nvidia.com", left < per ? left : per);
                if (!s)
                    return;
                s->nd = 0;
            }
            const mig_prof_t *mp = &mg->p[idx[k]];
            char muuid[64], nm[24];
            uuid_str(&c->rng, "MIG-", muuid, sizeof muuid);
            nv_common(&b, gm, pp, false);
            ab_s(&b, "parentUUID", ids.uuid);
            ab_s(&b, "productName", pp->product_name);
            ab_s(&b, "profile", mp->name);
            ab_s(&b, "resource.kubernetes.io/pciBusID", ids.bus);
            ab_s(&b, "resource.kubernetes.io/pcieRoot", ids.root);
            ab_s(&b, "type", "mig");
            ab_s(&b, "uuid", muuid);
            ab_qi(&b, "copyEngines", mp->ce);
            ab_qi(&b, "decoders", mp->dec);
            ab_qi(&b, "encoders", mp->enc);
            ab_qi(&b, "jpegEngines", mp->jpeg);
            ab_q(&b, "memory", mp->mem);
            for (int sl = start[k]; sl < start[k] + mp->nslices; sl++) {
                snprintf(nm, sizeof nm, "memorySlice%d", sl);
                ab_qi(&b, nm, 1);
            }
            ab_qi(&b, "multiprocessors", mp->mp);
            ab_qi(&b, "ofaEngines", mp->ofa);
            ab_done(&b, &s->devs[s->nd++],
                    dra_gen__fmt(c, "gpu-%u-mig-%s-%d-%d", g, mp->tag, mp->id, start[k]));
            done++;
        }
    }
    p->gpus = pp->gpus;
}

#define VGPUS_PER_GPU 4u /* h100-mig-vgpu: H100-20C vGPUs per GPU (80Gi / 20Gi) */

static void build_mig_dynamic(dra_gen_ctx_t *c, proto_t *p, dra_gen_profile_t prof, const dra_gen_params_t *pp)
{
    const mig_gpu_t *mg = prof == DRA_GEN_A100_MIG_DYNAMIC ? &MIG_A100 : &MIG_H100;
    const gpu_model_t *gm = gm_of(prof);
    bool split = pp->counter_layout == DRA_GEN_COUNTERS_SPLIT;
    /* h100-mig-vgpu: vGPUs beside the MIG placements, kept apart by compatibilityGroups */
    bool vgpu = prof == DRA_GEN_H100_MIG_VGPU;
    const char **grp_mig = NULL, **grp_vgpu = NULL;
    if (vgpu) {
        grp_mig = dra_model_array(c->m, 1, sizeof *grp_mig);
        grp_vgpu = dra_model_array(c->m, 1, sizeof *grp_vgpu);
        if (!grp_mig || !grp_vgpu) {
            c->err = DRA_ENOMEM;
            return;
        }
        grp_mig[0] = dra_gen__intern(c->m, "mig");
        grp_vgpu[0] = dra_gen__intern(c->m, "vgpu");
    }
    uint32_t ndev = (mg->announce_full ? 1u : 0u) + (vgpu ? VGPUS_PER_GPU : 0u);
    for (int i = 0; i < mg->np; i++)
        ndev += (uint32_t)mg->p[i].nplace;
    cb_t cb;
    /* counter sets, one per GPU; in the split layout they go first, <= 8 per counters slice */
    dra_counter_set_t *sets = dra_model_array(c->m, pp->gpus, sizeof *sets);
    if (!sets) {
        c->err = DRA_ENOMEM;
        return;
    }
    for (uint32_t g = 0; g < pp->gpus; g++) {
        mig_counters(c, &cb, mg->ce, mg->dec, mg->enc, mg->jpeg, mg->full_mem, 0, 8, mg->mp, mg->ofa);
        sets[g].name = dra_gen__fmt(c, "gpu-%u-counter-set", g);
        sets[g].counters = cb_done(c, &cb);
        sets[g].ncounters = cb.n;
    }
    if (split)
        for (uint32_t g = 0; g < pp->gpus; g += 8) {
            pslice_t *s = proto_slice(c, p, "gpu.nvidia.com", 0);
            if (!s)
                return;
            s->cs = &sets[g];
            s->ncs = pp->gpus - g < 8 ? pp->gpus - g : 8;
        }
    ab_t b;
    ab_init(&b, c, "gpu.nvidia.com");
    for (uint32_t g = 0; g < pp->gpus; g++) {
        gpu_ids_t ids;
        gpu_ids(c, g, &ids);
        pslice_t *s = proto_slice(c, p, "gpu.nvidia.com", ndev);
        if (!s)
            return;
        if (!split) {
            s->cs = &sets[g];
            s->ncs = 1;
        }
        uint32_t d = 0;
        if (mg->announce_full) {
            nv_full_gpu(&b, gm, pp, &ids, NULL, false);
            ab_qi(&b, "copyEngines", mg->ce);
            ab_qi(&b, "decoders", mg->dec);
            ab_qi(&b, "encoders", mg->enc);
            ab_qi(&b, "jpegEngines", mg->jpeg);
            ab_q(&b, "memory", mg->full_mem);
            ab_qi(&b, "multiprocessors", mg->mp);
            ab_qi(&b, "ofaEngines", mg->ofa);
            dra_device_t *dev = &s->devs[d++];
            ab_done(&b, dev, dra_gen__fmt(c, "gpu-%u", g));
            dra_consumes_t *cons = dra_model_array(c->m, 1, sizeof *cons);
            if (!cons) {
                c->err = DRA_ENOMEM;
                return;
            }
            cons->counter_set = sets[g].name;
            cons->counters = sets[g].counters; /* the full GPU consumes the whole set */
            cons->ncounters = sets[g].ncounters;
            dev->consumes = cons;
            dev->nconsumes = 1;
        }
        for (int i = 0; i < mg->np; i++) {
            const mig_prof_t *mp = &mg->p[i];
            for (int k = 0; k < mp->nplace; k++) {
                int st = mp->place[k];
                nv_common(&b, gm, pp, false);
                ab_s(&b, "parentUUID", ids.uuid);
                ab_s(&b, "productName", pp->product_name);
                ab_s(&b, "profile", mp->name);
                ab_s(&b, "resource.kubernetes.io/pciBusID", ids.bus);
                ab_s(&b, "resource.kubernetes.io/pcieRoot", ids.root);
                ab_s(&b, "type", "mig");
                ab_qi(&b, "copyEngines", mp->ce);
                ab_qi(&b, "decoders", mp->dec);
                ab_qi(&b, "encoders", mp->enc);
                ab_qi(&b, "jpegEngines", mp->jpeg);
                ab_q(&b, "memory", mp->mem);
                ab_qi(&b, "multiprocessors", mp->mp);
                ab_qi(&b, "ofaEngines", mp->ofa);
                dra_device_t *dev = &s->devs[d++];
                ab_done(&b, dev, dra_gen__fmt(c, "gpu-%u-mig-%s-%d-%d", g, mp->tag, mp->id, st));
                mig_counters(c, &cb, mp->ce, mp->dec, mp->enc, mp->jpeg, mp->mem, st, mp->nslices, mp->mp,
                             mp->ofa);
                dra_consumes_t *cons = dra_model_array(c->m, 1, sizeof *cons);
                if (!cons) {
                    c->err = DRA_ENOMEM;
                    return;
                }
                cons->counter_set = sets[g].name;
                cons->counters = cb_done(c, &cb);
                cons->ncounters = cb.n;
                if (vgpu) {
                    cons->groups = grp_mig;
                    cons->ngroups = 1;
                }
                dev->consumes = cons;
                dev->nconsumes = 1;
            }
        }
        for (uint32_t v = 0; vgpu && v < VGPUS_PER_GPU; v++) {
            /* a time-sliced vGPU (H100-20C): the MIG devices' attributes, type vgpu, its share
             * of the GPU's memory; the GPU's engines are time-shared, not consumed */
            nv_common(&b, gm, pp, false);
            ab_s(&b, "parentUUID", ids.uuid);
            ab_s(&b, "productName", pp->product_name);
            ab_s(&b, "profile", "H100-20C");
            ab_s(&b, "resource.kubernetes.io/pciBusID", ids.bus);
            ab_s(&b, "resource.kubernetes.io/pcieRoot", ids.root);
            ab_s(&b, "type", "vgpu");
            ab_q(&b, "memory", "20Gi");
            dra_device_t *dev = &s->devs[d++];
            ab_done(&b, dev, dra_gen__fmt(c, "gpu-%u-vgpu-20c-%u", g, v));
            cb.n = 0;
            cb_add(c, &cb, "memory", "20Gi");
            dra_consumes_t *cons = dra_model_array(c->m, 1, sizeof *cons);
            if (!cons) {
                c->err = DRA_ENOMEM;
                return;
            }
            cons->counter_set = sets[g].name;
            cons->counters = cb_done(c, &cb);
            cons->ncounters = cb.n;
            cons->groups = grp_vgpu;
            cons->ngroups = 1;
            dev->consumes = cons;
            dev->nconsumes = 1;
        }
    }
    p->gpus = pp->gpus;
}

static void build_mi300x(dra_gen_ctx_t *c, proto_t *p, const dra_gen_params_t *pp)
{
    uint32_t parts = pp->cpx ? 8 : 1;
    uint32_t n = pp->gpus * parts;
    pslice_t *s = proto_slice(c, p, "gpu.amd.com", n);
    if (!s)
        return;
    ab_t b;
    ab_init(&b, c, "gpu.amd.com");
    char cu[16], simd[16];
    snprintf(cu, sizeof cu, "%u", 304 / parts);
    snprintf(simd, sizeof simd, "%u", 1216 / parts);
    for (uint32_t g = 0; g < pp->gpus; g++) {
        char devid[32], pci[24];
        snprintf(devid, sizeof devid, "%llu", (unsigned long long)(dra_rng_next(&c->rng) >> 4));
        snprintf(pci, sizeof pci, "0003:00:%02x.0", g + 1);
        for (uint32_t k = 0; k < parts; k++) {
            uint32_t card = g * 8 + k;
            ab_i(&b, "cardIndex", card);
            ab_s(&b, "deviceID", devid);
            ab_s(&b, "driverSrcVersion", "7AA72EC2C8F513519BE86FD");
            ab_v(&b, "driverVersion", pp->driver_version);
            ab_s(&b, "family", "AI");
            ab_s(&b, "partitionProfile", pp->cpx ? "cpx_nps4" : "spx_nps1");
            ab_s(&b, "pciAddr", pci);
            ab_s(&b, "productName", pp->product_name);
            ab_i(&b, "renderIndex", 128 + card);
            ab_s(&b, "resource.kubernetes.io/pcieRoot", "pci0003:00");
            ab_s(&b, "type", pp->cpx ? "amdgpu-partition" : "amdgpu");
            ab_q(&b, "computeUnits", cu);
            ab_q(&b, "memory", pp->cpx ? "49148Mi" : pp->memory);
            ab_q(&b, "simdUnits", simd);
            ab_done(&b, &s->devs[g * parts + k], dra_gen__fmt(c, "gpu-%u-%u", card, 128 + card));
        }
    }
    p->gpus = pp->gpus;
}

static void build_sched_perf(dra_gen_ctx_t *c, proto_t *p, const dra_gen_params_t *pp)
{
    for (uint32_t done = 0; done < pp->devices;) {
        uint32_t n = pp->devices - done < 128 ? pp->devices - done : 128;
        pslice_t *s = proto_slice(c, p, "test-driver.cdi.k8s.io", n);
        if (!s)
            return;
        ab_t b;
        ab_init(&b, c, "test-driver.cdi.k8s.io");
        for (uint32_t i = 0; i < n; i++, done++) {
            ab_s(&b, "model", pp->product_name);
            ab_s(&b, "family", "GPU");
            ab_v(&b, "driverVersion", pp->driver_version);
            ab_i(&b, "dra.example.com/numa", done);
            ab_q(&b, "memory", pp->memory);
            ab_done(&b, &s->devs[i], dra_gen__fmt(c, "instance-%u", done));
        }
    }
    p->gpus = pp->devices;
}

static void build_shared_gpu(dra_gen_ctx_t *c, proto_t *p, const dra_gen_params_t *pp)
{
    pslice_t *s = proto_slice(c, p, "gpu.example.com", pp->devices);
    if (!s)
        return;
    dra_request_policy_t *pol = dra_model_array(c->m, 2, sizeof *pol);
    if (!pol) {
        c->err = DRA_ENOMEM;
        return;
    }
    /* compute: default = max = 100, min = step = 1; memory: default = max = <memory>, min = step = 1Gi */
    pol[0].has_default = pol[0].has_valid_range = pol[0].has_max = pol[0].has_step = true;
    pol[1] = pol[0];
    int rc = dra_gen__qty("100", &pol[0].def, c->diag);
    rc = rc ? rc : dra_gen__qty("100", &pol[0].max, c->diag);
    rc = rc ? rc : dra_gen__qty("1", &pol[0].min, c->diag);
    rc = rc ? rc : dra_gen__qty("1", &pol[0].step, c->diag);
    rc = rc ? rc : dra_gen__qty(pp->memory, &pol[1].def, c->diag);
    rc = rc ? rc : dra_gen__qty(pp->memory, &pol[1].max, c->diag);
    rc = rc ? rc : dra_gen__qty("1Gi", &pol[1].min, c->diag);
    rc = rc ? rc : dra_gen__qty("1Gi", &pol[1].step, c->diag);
    if (rc) {
        c->err = rc;
        return;
    }
    ab_t b;
    ab_init(&b, c, "gpu.example.com");
    for (uint32_t i = 0; i < pp->devices; i++) {
        char u[64];
        uuid_str(&c->rng, "gpu-", u, sizeof u);
        ab_v(&b, "driverVersion", pp->driver_version);
        ab_i(&b, "index", i);
        ab_s(&b, "model", pp->product_name);
        ab_s(&b, "uuid", u);
        ab_qp(&b, "compute", "100", &pol[0]);
        ab_qp(&b, "memory", pp->memory, &pol[1]);
        ab_done(&b, &s->devs[i], dra_gen__fmt(c, "gpu-%u", i));
        s->devs[i].allow_multiple_allocations = true;
    }
    p->gpus = pp->devices;
}

/* ---- emission ------------------------------------------------------------------------------- */

static void slice_name_suffix(dra_gen_ctx_t *c, char out[6])
{
    static const char alnum[] = "bcdfghjklmnpqrstvwxz2456789"; /* k8s generateName alphabet */
    uint64_t r = dra_rng_next(&c->rng);
    for (int i = 0; i < 5; i++, r /= 27)
        out[i] = alnum[r % 27];
    out[5] = 0;
}

static int emit_node(dra_gen_ctx_t *c, const proto_t *p, const char *name, dra_gen_profile_t prof)
{
    dra_model_t *m = c->m;
    dra_node_t *n = dra_model_add_node(m);
    if (!n)
        return DRA_ENOMEM;
    n->name = name;
    n->pos.file = dra_gen__file;
    n->labels = dra_model_array(m, p->nlabels + 1, sizeof(dra_label_t));
    if (!n->labels)
        return DRA_ENOMEM;
    n->labels[0].key = dra_gen__intern(m, "kubernetes.io/hostname");
    n->labels[0].value = name;
    memcpy(n->labels + 1, p->labels, p->nlabels * sizeof(dra_label_t));
    n->nlabels = p->nlabels + 1;
    c->st.nodes++;
    c->st.gpus += p->gpus;
    uint32_t count_per_driver[MAX_PSLICES] = {0};
    /* resourceSliceCount per driver pool */
    for (uint32_t i = 0; i < p->ns; i++)
        for (uint32_t j = 0; j <= i; j++)
            if (p->s[j].driver == p->s[i].driver) {
                count_per_driver[j]++;
                break;
            }
    for (uint32_t i = 0; i < p->ns; i++) {
        const pslice_t *ps = &p->s[i];
        dra_slice_t *s = dra_model_add_slice(m);
        if (!s)
            return DRA_ENOMEM;
        char sfx[6];
        slice_name_suffix(c, sfx);
        s->name = dra_gen__fmt(c, "%s-%s-%s", name, ps->driver, sfx);
        s->api_version = dra_gen__intern(m, "resource.k8s.io/v1");
        s->driver = ps->driver;
        s->pool_name = name;
        s->generation = 1;
        for (uint32_t j = 0; j <= i; j++)
            if (p->s[j].driver == ps->driver) {
                s->slice_count = count_per_driver[j];
                break;
            }
        s->node_name = name;
        s->pos.file = dra_gen__file;
        s->counter_sets = ps->cs;
        s->ncounter_sets = ps->ncs;
        if (ps->nd) {
            s->devices = dra_arena_alloc(&m->arena, ps->nd * sizeof(dra_device_t), 64);
            if (!s->devices)
                return DRA_ENOMEM;
            memcpy(s->devices, ps->devs, ps->nd * sizeof(dra_device_t));
            s->ndevices = ps->nd;
        }
        dra_model_slice_done(m, s);
        c->st.slices++;
        c->st.devices += ps->nd;
    }
    (void)prof;
    return c->err;
}

/* A nodeSelector `key In [value]` in the model. */
static const dra_node_selector_t *selector_in(dra_model_t *m, const char *key, const char *value)
{
    dra_node_selector_t *sel = dra_model_array(m, 1, sizeof *sel);
    dra_ns_term_t *t = dra_model_array(m, 1, sizeof *t);
    dra_ns_req_t *r = dra_model_array(m, 1, sizeof *r);
    const char **vals = dra_model_array(m, 1, sizeof *vals);
    if (!sel || !t || !r || !vals)
        return NULL;
    r->key = dra_gen__intern(m, key);
    r->op = DRA_NS_IN;
    r->op_raw = dra_gen__intern(m, "In");
    vals[0] = dra_gen__intern(m, value);
    r->values = vals;
    r->nvalues = 1;
    t->exprs = r;
    t->nexprs = 1;
    sel->terms = t;
    sel->nterms = 1;
    sel->pos.file = dra_gen__file;
    return sel;
}

/* One slice per pool (<= 128 devices per slice) selecting the nodes of sel (NULL: all nodes). */
static int emit_pool(dra_gen_ctx_t *c, const char *pool, const dra_device_t *devs, uint32_t ndev,
                     const dra_node_selector_t *sel)
{
    dra_model_t *m = c->m;
    uint32_t nslices = (ndev + 127) / 128;
    for (uint32_t si = 0; si < nslices; si++) {
        dra_slice_t *s = dra_model_add_slice(m);
        if (!s || !pool)
            return DRA_ENOMEM;
        uint32_t first = si * 128, n = ndev - first < 128 ? ndev - first : 128;
        s->name = dra_gen__fmt(c, "%s-%u", pool, si + 1);
        s->api_version = dra_gen__intern(m, "resource.k8s.io/v1");
        s->driver = dra_gen__intern(m, "gpu.nvidia.com");
        s->pool_name = pool;
        s->generation = 1;
        s->slice_count = nslices;
        if (sel)
            s->node_selector = sel;
        else
            s->all_nodes = true;
        s->pos.file = dra_gen__file;
        s->devices = dra_arena_alloc(&m->arena, n * sizeof(dra_device_t), 64);
        if (!s->devices)
            return DRA_ENOMEM;
        memcpy(s->devices, devs + first, n * sizeof(dra_device_t));
        s->ndevices = n;
        dra_model_slice_done(m, s);
        c->st.slices++;
        c->st.devices += n;
    }
    return c->err;
}

/* scope perValue: `count` pools for every distinct value of the label selector_key among the
 * nodes built so far (in order of first appearance), each selecting that value's nodes. The
 * distinct values: (value, first node) pairs sorted by value, then the survivors by node. */
typedef struct pv_ent {
    const char *v;
    uint32_t node;
} pv_ent_t;

static int pv_by_value(const void *a, const void *b)
{
    const pv_ent_t *x = a, *y = b;
    int c = strcmp(x->v, y->v);
    return c ? c : (x->node > y->node) - (x->node < y->node);
}

static int pv_by_node(const void *a, const void *b)
{
    const pv_ent_t *x = a, *y = b;
    return (x->node > y->node) - (x->node < y->node);
}

static int emit_pools_per_value(dra_gen_ctx_t *c, const dra_gen_group_t *g, const char *prefix,
                                const dra_device_t *devs)
{
    dra_model_t *m = c->m;
    const dra_gen_params_t *pp = &g->params;
    pv_ent_t *e = malloc((m->nnodes ? m->nnodes : 1) * sizeof *e);
    if (!e)
        return DRA_ENOMEM;
    uint32_t n = 0, nvals = 0;
    for (uint32_t i = 0; i < m->nnodes; i++) {
        const char *v = dra_node_label(m->nodes[i], pp->selector_key);
        if (v)
            e[n++] = (pv_ent_t){v, i};
    }
    if (n > 1)
        qsort(e, n, sizeof *e, pv_by_value);
    for (uint32_t i = 0; i < n; i++)
        if (i == 0 || strcmp(e[i].v, e[nvals - 1].v) != 0)
            e[nvals++] = e[i];
    if (nvals > 1)
        qsort(e, nvals, sizeof *e, pv_by_node);
    int rc = DRA_OK;
    for (uint32_t d = 0; d < nvals && rc == DRA_OK; d++) {
        const dra_node_selector_t *sel = selector_in(m, pp->selector_key, e[d].v);
        if (!sel) {
            rc = DRA_ENOMEM;
            break;
        }
        for (uint32_t k = 0; k < g->count && rc == DRA_OK; k++)
            rc = emit_pool(c, dra_gen__fmt(c, "%s-%s-d%u-%u", prefix, c->cluster_uuid, d, k), devs,
                           pp->devices, sel);
    }
    free(e);
    return rc ? rc : c->err;
}

static int emit_net_pools(dra_gen_ctx_t *c, const dra_gen_group_t *g, const char *prefix)
{
    dra_model_t *m = c->m;
    const dra_gen_params_t *pp = &g->params;
    ab_t b;
    ab_init(&b, c, "gpu.nvidia.com");
    dra_device_t *devs = dra_model_array(m, pp->devices, sizeof *devs);
    if (!devs)
        return DRA_ENOMEM;
    for (uint32_t i = 0; i < pp->devices; i++) {
        ab_s(&b, "type", "imex-channel");
        ab_i(&b, "channel", i);
        ab_done(&b, &devs[i], dra_gen__fmt(c, "imex-channel-%u", i));
    }
    if (pp->scope == DRA_GEN_SCOPE_PER_VALUE)
        return emit_pools_per_value(c, g, prefix, devs);
    const dra_node_selector_t *sel = NULL;
    if (pp->scope == DRA_GEN_SCOPE_NODE_SELECTOR &&
        !(sel = selector_in(m, pp->selector_key, pp->selector_value)))
        return DRA_ENOMEM;
    for (uint32_t k = 0; k < g->count; k++) {
        int rc = emit_pool(c, dra_gen__fmt(c, "%s-%s-%u", prefix, c->cluster_uuid, k), devs,
                           pp->devices, sel);
        if (rc)
            return rc;
    }
    return c->err;
}

static const dra_label_t *group_labels(dra_gen_ctx_t *c, const dra_gen_group_t *g, const char *clique_uuid,
                                       uint32_t rack, const char *prefix, uint32_t *n)
{
    dra_model_t *m = c->m;
    const dra_gen_params_t *pp = &g->params;
    uint32_t cap = pp->nlabels + 5;
    dra_label_t *l = dra_model_array(m, cap, sizeof *l);
    if (!l) {
        c->err = DRA_ENOMEM;
        return NULL;
    }
    uint32_t k = 0;
    l[k].key = dra_gen__intern(m, "drabench.dev/profile");
    l[k++].value = dra_gen__intern(m, profiles[g->profile].name);
    if (g->profile == DRA_GEN_SCHED_PERF) {
        l[k].key = dra_gen__intern(m, "node-with-dra");
        l[k++].value = dra_gen__intern(m, "true");
    }
    if (g->profile == DRA_GEN_GB200_NVL72) {
        l[k].key = dra_gen__intern(m, "nvidia.com/gpu.clique");
        l[k++].value = dra_gen__fmt(c, "%s.%u", clique_uuid, rack);
        l[k].key = dra_gen__intern(m, "nvidia.com/gpu.cliqueid");
        l[k++].value = dra_gen__fmt(c, "%u", rack);
        l[k].key = dra_gen__intern(m, "nvidia.com/gpu.clusteruuid");
        l[k++].value = dra_gen__intern(m, clique_uuid);
    }
    if (pp->rack_label) {
        l[k].key = dra_gen__intern(m, pp->rack_label);
        l[k++].value = dra_gen__fmt(c, "%s-rack-%u", prefix, rack);
    }
    for (uint32_t i = 0; i < pp->nlabels; i++) {
        l[k].key = dra_gen__intern(m, pp->labels[i].key);
        l[k++].value = dra_gen__intern(m, pp->labels[i].value);
    }
    *n = k;
    return l;
}

int dra_gen__emit_group(dra_gen_ctx_t *c, const dra_gen_group_t *g, uint32_t gi)
{
    const char *prefix = g->name ? g->name : profiles[g->profile].name;
    if (g->profile == DRA_GEN_NET_POOL)
        return emit_net_pools(c, g, prefix);
    proto_t *p = calloc(1, sizeof *p);
    if (!p)
        return DRA_ENOMEM;
    int rc = DRA_OK;
    const dra_gen_params_t *pp = &g->params;
    uint32_t rack_size = g->profile == DRA_GEN_GB200_NVL72 || pp->rack_label ? pp->rack_size : UINT32_MAX;
    char cuuid[64];
    uuid_str(&c->rng, "", cuuid, sizeof cuuid);
    for (uint32_t i = 0; i < g->count && rc == DRA_OK; i++) {
        if (i == 0 || (rack_size != UINT32_MAX && i % rack_size == 0)) {
            uint32_t rack = rack_size == UINT32_MAX ? 0 : i / rack_size;
            memset(p, 0, sizeof *p);
            p->labels = group_labels(c, g, cuuid, rack, prefix, &p->nlabels);
            switch (g->profile) {
            case DRA_GEN_DGX_H100:
            case DRA_GEN_DGX_H200:
                /* one NVLink (NVSwitch) domain per node; claims are node-local, so the value can be
                 * shared by the group's nodes */
                build_dgx(c, p, g->profile, pp, dra_gen__fmt(c, "%s.%u", cuuid, gi));
                break;
            case DRA_GEN_GB200_NVL72:
                build_dgx(c, p, g->profile, pp, dra_gen__fmt(c, "%s.%u", cuuid, rack));
                break;
            case DRA_GEN_A100_MIG_STATIC:
            case DRA_GEN_H100_MIG_STATIC:
                build_mig_static(c, p, g->profile, pp);
                break;
            case DRA_GEN_A100_MIG_DYNAMIC:
            case DRA_GEN_H100_MIG_DYNAMIC:
            case DRA_GEN_H100_MIG_VGPU:
                build_mig_dynamic(c, p, g->profile, pp);
                break;
            case DRA_GEN_MI300X:
                build_mi300x(c, p, pp);
                break;
            case DRA_GEN_SCHED_PERF:
                build_sched_perf(c, p, pp);
                break;
            case DRA_GEN_SHARED_GPU:
                build_shared_gpu(c, p, pp);
                break;
            default:
                break;
            }
            if (c->err) {
                rc = c->err;
                break;
            }
        }
        const char *name = dra_gen__fmt(c, "%s-%u", prefix, i);
        rc = name ? emit_node(c, p, name, g->profile) : DRA_ENOMEM;
    }
    free(p);
    return rc ? rc : c->err;
}
