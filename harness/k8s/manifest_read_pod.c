/*
 * manifest_read_pod.c - Pod, and the pod template of Deployment, ReplicaSet,
 * StatefulSet, DaemonSet and Job (manifest_kinds.h).
 */
#include <string.h>

#include "manifest_kinds.h"

/* ---- pods and workloads ------------------------------------------------------------------ */

static void rd_pod_spec(rd_t *rd, dra_pod_t *p, const dra_ynode_t *spec)
{
    static const char *const kspec[] = {"resourceClaims", "nodeName", "containers",
                                        "initContainers", "restartPolicy", "tolerations",
                                        "nodeSelector", "affinity", "schedulingGroup",
                                        "schedulerName", "priority", NULL};
    static const char *const kgroup[] = {"podGroupName", NULL};
    static const char *const kclaim[] = {"name", "resourceClaimName", "resourceClaimTemplateName",
                                         "source", NULL};
    if (!dra_mr_want_map(rd, spec))
        return;
    dra_mr_case_check(rd, spec, kspec);
    for (uint32_t k = 0; k < spec->n; k++) {
        const char *key = spec->keys[k]->text;
        const dra_ynode_t *val = spec->vals[k];
        size_t s = pushk(rd, key);
        if (K("nodeName"))
            p->node_name = dra_mr_str(rd, val, false);
        else if (K("schedulerName"))
            p->scheduler_name = dra_mr_str(rd, val, false);
        else if (K("priority")) {
            if (!dra_ynode_is_null(val))
                p->has_priority = dra_mr_int(rd, val, &p->priority);
        } else if (K("schedulingGroup")) {
            /* PodSchedulingGroup (GenericWorkload): podGroupName, the pod's PodGroup */
            if (!dra_ynode_is_null(val)) {
                p->has_group = true;
                dra_mr_set_pos(rd, &p->group_pos, val);
                if (dra_mr_want_map(rd, val))
                    for (uint32_t j = 0; j < val->n; j++) {
                        size_t s2 = pushk(rd, val->keys[j]->text);
                        if (strcmp(val->keys[j]->text, "podGroupName") == 0)
                            p->group = dra_mr_str(rd, val->vals[j], false);
                        else
                            dra_mr_unknown_field(rd, val->keys[j], kgroup);
                        pop(rd, s2);
                    }
            }
        }
        else if (K("resourceClaims") && dra_mr_want_seq(rd, val)) {
            p->claims = dra_model_array(rd->m, val->n, sizeof *p->claims);
            p->nclaims = p->claims ? val->n : 0;
            for (uint32_t i = 0; i < p->nclaims; i++) {
                size_t s2 = pushi(rd, i);
                const dra_ynode_t *e = val->vals[i];
                dra_pod_claim_t *c = &p->claims[i];
                if (dra_mr_want_map(rd, e))
                    for (uint32_t j = 0; j < e->n; j++) {
                        const char *k2 = e->keys[j]->text;
                        const dra_ynode_t *x = e->vals[j];
                        size_t s3 = pushk(rd, k2);
                        if (strcmp(k2, "name") == 0)
                            c->name = dra_mr_str(rd, x, false);
                        else if (strcmp(k2, "resourceClaimName") == 0)
                            c->claim_name = dra_mr_str(rd, x, false);
                        else if (strcmp(k2, "resourceClaimTemplateName") == 0)
                            c->template_name = dra_mr_str(rd, x, false);
                        else if (strcmp(k2, "source") == 0 && dra_mr_want_map(rd, x)) {
                            /* pre-1.31 PodResourceClaimSource */
                            const dra_ynode_t *cn = dra_ynode_get(x, "resourceClaimName");
                            const dra_ynode_t *tn = dra_ynode_get(x, "resourceClaimTemplateName");
                            if (cn)
                                c->claim_name = dra_mr_str(rd, cn, false);
                            if (tn)
                                c->template_name = dra_mr_str(rd, tn, false);
                        } else if (strcmp(k2, "source") != 0)
                            dra_mr_unknown_field(rd, e->keys[j], kclaim);
                        pop(rd, s3);
                    }
                pop(rd, s2);
            }
        }
        pop(rd, s);
    }
}

void dra_mr_read_pod(rd_t *rd, const dra_mr_obj_t *o)
{
    dra_pod_t *p = dra_model_add_pod(rd->m);
    if (!p)
        return;
    p->kind = DRA_POD_POD;
    p->name = o->name;
    p->namespace_ = o->ns ? o->ns : "default";
    p->replicas = 1;
    p->pos = o->pos;
    rd_pod_spec(rd, p, o->spec);
}

void dra_mr_read_workload(rd_t *rd, const dra_mr_obj_t *o, dra_pod_kind_t kind)
{
    const dra_ynode_t *spec = o->spec;
    dra_pod_t *p = dra_model_add_pod(rd->m);
    if (!p)
        return;
    p->kind = kind;
    p->name = o->name;
    p->namespace_ = o->ns ? o->ns : "default";
    p->pos = o->pos;
    p->replicas = p->kind == DRA_POD_DAEMONSET ? -1 : 1;
    const char *rkey = p->kind == DRA_POD_JOB ? "parallelism" : "replicas";
    const dra_ynode_t *rn = dra_ynode_get(spec, rkey);
    if (rn && !dra_ynode_is_null(rn) && p->kind != DRA_POD_DAEMONSET) {
        size_t s2 = pushk(rd, rkey);
        dra_mr_int(rd, rn, &p->replicas);
        pop(rd, s2);
    }
    const dra_ynode_t *tmpl = dra_ynode_get(spec, "template");
    size_t s2 = pushk(rd, "template.spec");
    if (!tmpl)
        dra_mr_err(rd, spec ? spec : o->doc, "spec.template: required field missing");
    else
        rd_pod_spec(rd, p, dra_ynode_get(tmpl, "spec"));
    pop(rd, s2);
}
