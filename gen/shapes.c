/* shapes.c - claim shapes catalog; see shapes.h. */
#include <stdio.h>
#include <string.h>

#include "gen/cluster.h"
#include "gen/gen_int.h"
#include "gen/shapes.h"

static const dra_shape_info_t infos[DRA_SHAPE_NKINDS] = {
    [DRA_SHAPE_GPU_1] = {"gpu-1", "one full GPU", DRA_GEN_DGX_H100, "class"},
    [DRA_SHAPE_GPU_N] = {"gpu-n", "N GPUs on one node in one NVLink domain (matchAttribute cliqueID)", DRA_GEN_DGX_H100,
                         "count (default 2), class, constraint (\"\" for none)"},
    [DRA_SHAPE_MIG] = {"mig", "MIG device(s) of one profile (mig-<profile>), optionally on one parent GPU",
                       DRA_GEN_H100_MIG_DYNAMIC, "migProfile (default 1g.10gb), count (default 1), sameParent"},
    [DRA_SHAPE_GPU_NIC] = {"gpu-nic-aligned", "one GPU + one RDMA NIC on the same PCIe root", DRA_GEN_DGX_H100, "class"},
    [DRA_SHAPE_PRIORITIZED] = {"prioritized", "firstAvailable: one H100, else two A100s", DRA_GEN_DGX_H100, "class"},
    [DRA_SHAPE_MEMORY_SHARE] = {"memory-share", "consumable memory of a multi-allocatable device", DRA_GEN_SHARED_GPU,
                                "memory (default 16Gi), class"},
    [DRA_SHAPE_ALL_GPUS] = {"all-gpus", "allocationMode All: every GPU of the node", DRA_GEN_DGX_H100, "class"},
    [DRA_SHAPE_ADMIN_MONITOR] = {"admin-monitor", "All + adminAccess (monitoring)", DRA_GEN_DGX_H100, "class"},
    [DRA_SHAPE_SHARED] = {"shared", "one GPU in a ResourceClaim shared by several pods", DRA_GEN_DGX_H100,
                          "share (default 2), class"},
    [DRA_SHAPE_SCHED_PERF] = {"sched-perf", "scheduler_perf claim template: one test-class device", DRA_GEN_SCHED_PERF, "class"},
    [DRA_SHAPE_INLINE] = {"inline", "a ResourceClaimTemplate written in the scenario", DRA_GEN_DGX_H100, NULL},
};

const dra_shape_info_t *dra_shape_info(dra_shape_kind_t k)
{
    return (unsigned)k < DRA_SHAPE_NKINDS ? &infos[k] : NULL;
}

int dra_shape_find(const char *name, dra_shape_kind_t *out, const char **mig_profile_out)
{
    if (mig_profile_out)
        *mig_profile_out = NULL;
    if (!name)
        return DRA_ENOTFOUND;
    if (strncmp(name, "mig-", 4) == 0 && name[4]) {
        *out = DRA_SHAPE_MIG;
        if (mig_profile_out)
            *mig_profile_out = name + 4;
        return DRA_OK;
    }
    for (int i = 0; i < DRA_SHAPE_NKINDS; i++)
        if (strcmp(infos[i].name, name) == 0) {
            *out = (dra_shape_kind_t)i;
            return DRA_OK;
        }
    return DRA_ENOTFOUND;
}

const char *dra_shape_name(const dra_shape_spec_t *s, char *buf, size_t len)
{
    if (s->name) {
        snprintf(buf, len, "%s", s->name);
        return buf;
    }
    switch (s->kind) {
    case DRA_SHAPE_GPU_N:
        snprintf(buf, len, "gpu-n-%u", s->count ? s->count : 2);
        break;
    case DRA_SHAPE_MIG: {
        /* "1g.10gb+me" -> "mig-1g.10gb-me" (a DNS subdomain); count/parent suffixes */
        char prof[40];
        snprintf(prof, sizeof prof, "%s", s->mig_profile ? s->mig_profile : "1g.10gb");
        for (char *p = prof; *p; p++)
            if (*p == '+')
                *p = '-';
        if (s->count > 1)
            snprintf(buf, len, "mig-%s-x%u%s", prof, s->count, s->same_parent ? "-same-parent" : "");
        else
            snprintf(buf, len, "mig-%s", prof);
        break;
    }
    case DRA_SHAPE_MEMORY_SHARE:
        snprintf(buf, len, "memory-share");
        break;
    default:
        snprintf(buf, len, "%s", infos[s->kind < DRA_SHAPE_NKINDS ? s->kind : 0].name);
        break;
    }
    return buf;
}

/* ---- builders ------------------------------------------------------------------------------- */

static dra_exact_request_t *exact(dra_model_t *m, const char *name, const char *cls, int64_t count,
                                  const char *cel)
{
    dra_exact_request_t *e = dra_model_array(m, 1, sizeof *e);
    if (!e)
        return NULL;
    e->name = dra_model_str(m, name);
    e->class_name = dra_model_str(m, cls);
    e->mode = DRA_MODE_EXACT_COUNT;
    e->has_count = true;
    e->count = count;
    e->pos.file = dra_gen__file;
    if (cel) {
        e->selectors = dra_model_array(m, 1, sizeof *e->selectors);
        if (!e->selectors)
            return NULL;
        e->selectors[0].cel = dra_model_str(m, cel);
        e->selectors[0].pos.file = dra_gen__file;
        e->nselectors = 1;
    }
    return e;
}

static int add_constraint(dra_model_t *m, dra_claim_t *c, const char *attr)
{
    c->constraints = dra_model_array(m, 1, sizeof *c->constraints);
    if (!c->constraints)
        return DRA_ENOMEM;
    c->constraints[0].match_attribute = dra_model_str(m, attr);
    c->constraints[0].pos.file = dra_gen__file;
    c->nconstraints = 1;
    return DRA_OK;
}

static bool mig_profile_known(const char *p)
{
    for (int pr = DRA_GEN_A100_MIG_STATIC; pr <= DRA_GEN_H100_MIG_DYNAMIC; pr++) {
        const char *const *n = dra_gen_profile_mig_names((dra_gen_profile_t)pr);
        for (; n && *n; n++)
            if (strcmp(*n, p) == 0)
                return true;
    }
    return false;
}

int dra_shape_build(dra_model_t *m, const dra_shape_spec_t *s, dra_claim_t **out, dra_diag_t *diag)
{
    char name[128], cel[256];
    if (out)
        *out = NULL;
    if ((unsigned)s->kind >= DRA_SHAPE_NKINDS)
        return dra_diag_set(diag, DRA_EINVAL, NULL, 0, 0, "unknown shape kind %d", (int)s->kind);
    if (s->kind == DRA_SHAPE_INLINE) {
        if (!s->inline_tmpl)
            return dra_diag_set(diag, DRA_EINVAL, NULL, 0, 0, "inline shape without a template");
        if (out)
            *out = s->inline_tmpl;
        return DRA_OK;
    }
    dra_shape_name(s, name, sizeof name);
    if (dra_model_find_template(m, "default", name))
        return dra_diag_set(diag, DRA_EINVAL, NULL, 0, 0, "shape template %s defined twice", name);
    const char *cls = s->class_name ? s->class_name : "gpu.nvidia.com";
    int rc = DRA_OK;
    dra_claim_t *t = dra_model_add_template(m);
    if (!t)
        return DRA_ENOMEM;
    t->namespace_ = dra_model_str(m, "default");
    t->name = dra_model_str(m, name);
    t->api_version = dra_model_str(m, "resource.k8s.io/v1");
    t->pos.file = dra_gen__file;
    uint32_t nreq = s->kind == DRA_SHAPE_GPU_NIC ? 2 : 1;
    t->requests = dra_model_array(m, nreq, sizeof *t->requests);
    if (!t->namespace_ || !t->name || !t->requests)
        return DRA_ENOMEM;
    t->nrequests = nreq;
    dra_request_t *r = &t->requests[0];
    r->name = dra_model_str(m, "gpu");
    r->pos.file = dra_gen__file;
    switch (s->kind) {
    case DRA_SHAPE_GPU_1:
    case DRA_SHAPE_SHARED:
        r->exactly = exact(m, "gpu", cls, 1, NULL);
        break;
    case DRA_SHAPE_GPU_N: {
        uint32_t n = s->count ? s->count : 2;
        if (n > 32)
            return dra_diag_set(diag, DRA_EINVAL, NULL, 0, 0, "gpu-n: count %u exceeds 32 devices per claim", n);
        r->exactly = exact(m, "gpu", cls, n, NULL);
        const char *ma = s->constraint ? s->constraint : "gpu.nvidia.com/cliqueID";
        if (*ma)
            rc = add_constraint(m, t, ma);
        break;
    }
    case DRA_SHAPE_MIG: {
        const char *p = s->mig_profile ? s->mig_profile : "1g.10gb";
        if (!mig_profile_known(p))
            return dra_diag_set(diag, DRA_EINVAL, NULL, 0, 0, "mig: unknown MIG profile \"%s\"", p);
        uint32_t n = s->count ? s->count : 1;
        if (n > 32)
            return dra_diag_set(diag, DRA_EINVAL, NULL, 0, 0, "mig: count %u exceeds 32", n);
        snprintf(cel, sizeof cel, "device.attributes['gpu.nvidia.com'].profile == '%s'", p);
        r->name = dra_model_str(m, "mig");
        r->exactly = exact(m, "mig", "mig.nvidia.com", n, cel);
        if (s->same_parent)
            rc = add_constraint(m, t, "gpu.nvidia.com/parentUUID");
        break;
    }
    case DRA_SHAPE_GPU_NIC:
        r->exactly = exact(m, "gpu", cls, 1, NULL);
        t->requests[1].name = dra_model_str(m, "nic");
        t->requests[1].pos.file = dra_gen__file;
        t->requests[1].exactly = exact(m, "nic", "dranet.net", 1, "device.attributes['dra.net'].rdma == true");
        if (!t->requests[1].exactly)
            return DRA_ENOMEM;
        rc = add_constraint(m, t, "resource.kubernetes.io/pcieRoot");
        rc = rc ? rc : dra_gen_add_std_class(m, "dranet.net");
        break;
    case DRA_SHAPE_PRIORITIZED: {
        dra_exact_request_t *fa = dra_model_array(m, 2, sizeof *fa);
        dra_exact_request_t *h = exact(m, "h100", cls, 1,
                                       "device.attributes['gpu.nvidia.com'].productName == 'NVIDIA H100 80GB HBM3'");
        dra_exact_request_t *a = exact(m, "a100", cls, 2,
                                       "device.attributes['gpu.nvidia.com'].productName.startsWith('NVIDIA A100')");
        if (!fa || !h || !a)
            return DRA_ENOMEM;
        fa[0] = *h;
        fa[1] = *a;
        r->first_available = fa;
        r->nfirst_available = 2;
        break;
    }
    case DRA_SHAPE_MEMORY_SHARE: {
        r->exactly = exact(m, "gpu", s->class_name ? s->class_name : "gpu.example.com", 1, NULL);
        if (!r->exactly)
            return DRA_ENOMEM;
        dra_cap_request_t *cr = dra_model_array(m, 1, sizeof *cr);
        if (!cr)
            return DRA_ENOMEM;
        cr->name = dra_model_str(m, "memory");
        cr->qname = dra_model_qname(m, "gpu.example.com", "memory");
        const char *mem = s->memory ? s->memory : "16Gi";
        if (dra_gen__qty(mem, &cr->value, NULL) != DRA_OK)
            return dra_diag_set(diag, DRA_EINVAL, NULL, 0, 0, "memory-share: \"%s\" is not a quantity", mem);
        r->exactly->cap_requests = cr;
        r->exactly->ncap_requests = 1;
        r->exactly->has_capacity = true;
        break;
    }
    case DRA_SHAPE_ALL_GPUS:
    case DRA_SHAPE_ADMIN_MONITOR:
        r->exactly = exact(m, "gpu", cls, 0, NULL);
        if (!r->exactly)
            return DRA_ENOMEM;
        r->exactly->mode = DRA_MODE_ALL;
        r->exactly->mode_raw = dra_model_str(m, "All");
        r->exactly->has_count = false;
        if (s->kind == DRA_SHAPE_ADMIN_MONITOR)
            r->exactly->has_admin_access = r->exactly->admin_access = true;
        break;
    case DRA_SHAPE_SCHED_PERF:
        r->name = dra_model_str(m, "req-0");
        r->exactly = exact(m, "req-0", s->class_name ? s->class_name : "test-class", 1, NULL);
        break;
    default:
        break;
    }
    if (rc)
        return rc;
    if (!r->exactly && !r->first_available)
        return DRA_ENOMEM;
    /* classes referenced by the requests */
    for (uint32_t i = 0; i < t->nrequests; i++) {
        const dra_request_t *q = &t->requests[i];
        const dra_exact_request_t *e = q->exactly ? q->exactly : q->first_available;
        uint32_t ne = q->exactly ? 1 : q->nfirst_available;
        for (uint32_t j = 0; j < ne; j++) {
            rc = dra_gen_add_std_class(m, e[j].class_name);
            if (rc == DRA_ENOTFOUND)
                rc = DRA_OK; /* a class of the scenario's extra manifests */
            if (rc)
                return rc;
        }
    }
    if (out)
        *out = t;
    return DRA_OK;
}

int dra_shape_instantiate(dra_model_t *m, const dra_claim_t *t, const char *name, dra_claim_t **out)
{
    dra_claim_t *c = dra_model_add_claim(m);
    if (!c)
        return DRA_ENOMEM;
    *c = *t; /* requests/constraints/configs are immutable and shared with the template */
    c->is_template = false;
    c->allocation = NULL;
    c->name = dra_model_str(m, name);
    if (!c->name)
        return DRA_ENOMEM;
    if (out)
        *out = c;
    return DRA_OK;
}
