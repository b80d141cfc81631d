/*
 * manifest_read_pod.c - Pod, and the pod template of Deployment, ReplicaSet, StatefulSet,
 * DaemonSet and Job (manifest_kinds.h): the claims, the containers' resources (the
 * extended-resource requests of KEP-5004 and NodeResourcesFit), the node filters (nodeSelector,
 * the required node affinity, tolerations) and a note for every scheduling input drabench does
 * not model, so that consumers can say so instead of ignoring it.
 */
#include <stdlib.h>
#include <string.h>

#include "manifest_kinds.h"

/* ---- container resources ------------------------------------------------------------------ */

static int cmp_res(const void *x, const void *y)
{
    const dra_resource_qty_t *a = x, *b = y;
    return strcmp(a->name, b->name);
}

static bool has_request(const dra_container_t *c, const dra_resource_qty_t *r)
{
    return c->nrequests && bsearch(r, c->requests, c->nrequests, sizeof *c->requests, cmp_res);
}

/* requests after SetDefaults_Pod: every limit without a request becomes the request. */
static void default_requests(rd_t *rd, dra_container_t *c)
{
    uint32_t extra = 0;
    for (uint32_t i = 0; i < c->nlimits; i++)
        if (!has_request(c, &c->limits[i]))
            extra++;
    if (!extra)
        return;
    dra_resource_qty_t *r = dra_model_array(rd->m, c->nrequests + extra, sizeof *r);
    if (!r) {
        rd->nerr++;
        return;
    }
    if (c->nrequests)
        memcpy(r, c->requests, c->nrequests * sizeof *r);
    uint32_t n = c->nrequests;
    for (uint32_t i = 0; i < c->nlimits; i++)
        if (!has_request(c, &c->limits[i])) {
            r[n] = c->limits[i];
            r[n].defaulted = true;
            n++;
        }
    qsort(r, n, sizeof *r, cmp_res);
    c->requests = r;
    c->nrequests = n;
}

/* Add a note "field: reason" to the pod's unmodelled inputs (once per text). */
static void note(rd_t *rd, dra_pod_t *p, const char *field, const char *reason)
{
    char buf[320];
    snprintf(buf, sizeof buf, "%s: %s", field, reason);
    for (uint32_t i = 0; i < p->nunmodelled; i++)
        if (strcmp(p->unmodelled[i], buf) == 0)
            return;
    const char **nv = dra_model_array(rd->m, p->nunmodelled + 1, sizeof *nv);
    const char *s = dra_model_str(rd->m, buf);
    if (!nv || !s) {
        rd->nerr++;
        return;
    }
    if (p->nunmodelled)
        memcpy(nv, p->unmodelled, p->nunmodelled * sizeof *nv);
    nv[p->nunmodelled++] = s;
    p->unmodelled = nv;
}

/* One container of spec.containers (init false) or spec.initContainers (init true). */
static void rd_container(rd_t *rd, dra_pod_t *p, dra_container_t *c, const dra_ynode_t *e,
                         bool init, const char *pre)
{
    static const char *const kres[] = {"limits", "requests", "claims", NULL};
    c->kind = init ? DRA_CONTAINER_INIT : DRA_CONTAINER_REGULAR;
    dra_mr_set_pos(rd, &c->pos, e);
    if (!dra_mr_want_map(rd, e))
        return;
    for (uint32_t k = 0; k < e->n; k++) {
        const char *key = e->keys[k]->text;
        const dra_ynode_t *val = e->vals[k];
        size_t s = pushk(rd, key);
        if (K("name")) {
            c->name = dra_mr_str(rd, val, false);
        } else if (K("restartPolicy")) {
            /* an init container with restartPolicy Always is a sidecar (it keeps running) */
            const char *rp = dra_mr_str(rd, val, false);
            if (rp && init && strcmp(rp, "Always") == 0)
                c->kind = DRA_CONTAINER_SIDECAR;
        } else if (K("resources") && !dra_ynode_is_null(val) && dra_mr_want_map(rd, val)) {
            dra_mr_case_check(rd, val, kres);
            for (uint32_t j = 0; j < val->n; j++) {
                const char *k2 = val->keys[j]->text;
                size_t s2 = pushk(rd, k2);
                if (strcmp(k2, "limits") == 0)
                    c->limits = dra_mr_resources(rd, val->vals[j], NULL, &c->nlimits);
                else if (strcmp(k2, "requests") == 0)
                    c->requests = dra_mr_resources(rd, val->vals[j], NULL, &c->nrequests);
                pop(rd, s2);
            }
        } else if (K("ports") && dra_ynode_is_seq(val)) {
            for (uint32_t j = 0; j < val->n; j++)
                if (dra_ynode_get(val->vals[j], "hostPort")) {
                    char f[160];
                    snprintf(f, sizeof f, "%s.%s[].ports[].hostPort", pre,
                             init ? "initContainers" : "containers");
                    note(rd, p, f, "host ports (NodePorts) are not modelled");
                }
        }
        pop(rd, s);
    }
    if (!c->name)
        dra_mr_err(rd, e, "name: required field missing");
    default_requests(rd, c);
}

/* spec.initContainers and spec.containers into p->containers (init containers first). */
static void rd_containers(rd_t *rd, dra_pod_t *p, const dra_ynode_t *spec, const char *pre)
{
    const dra_ynode_t *ic = dra_ynode_get(spec, "initContainers");
    const dra_ynode_t *cc = dra_ynode_get(spec, "containers");
    uint32_t ni = ic && dra_ynode_is_seq(ic) ? ic->n : 0;
    uint32_t nr = cc && dra_ynode_is_seq(cc) ? cc->n : 0;
    if (ic && !dra_ynode_is_null(ic) && !dra_ynode_is_seq(ic)) {
        size_t s = pushk(rd, "initContainers");
        dra_mr_want_seq(rd, ic);
        pop(rd, s);
    }
    if (cc && !dra_ynode_is_null(cc) && !dra_ynode_is_seq(cc)) {
        size_t s = pushk(rd, "containers");
        dra_mr_want_seq(rd, cc);
        pop(rd, s);
    }
    if (ni + nr == 0)
        return;
    p->containers = dra_model_array(rd->m, ni + nr, sizeof *p->containers);
    if (!p->containers) {
        rd->nerr++;
        return;
    }
    p->ncontainers = ni + nr;
    p->ninit = ni;
    for (uint32_t i = 0; i < ni + nr; i++) {
        bool init = i < ni;
        size_t s = pushk(rd, init ? "initContainers" : "containers");
        size_t s2 = pushi(rd, init ? i : i - ni);
        rd_container(rd, p, &p->containers[i], init ? ic->vals[i] : cc->vals[i - ni], init, pre);
        pop(rd, s2);
        pop(rd, s);
    }
}

/* ---- node filters and the inputs not modelled --------------------------------------------- */

static void rd_affinity(rd_t *rd, dra_pod_t *p, const dra_ynode_t *aff, const char *pre)
{
    if (dra_ynode_is_null(aff) || !dra_mr_want_map(rd, aff))
        return;
    char f[160];
    for (uint32_t k = 0; k < aff->n; k++) {
        const char *key = aff->keys[k]->text;
        const dra_ynode_t *val = aff->vals[k];
        size_t s = pushk(rd, key);
        if (K("nodeAffinity") && !dra_ynode_is_null(val) && dra_mr_want_map(rd, val)) {
            const dra_ynode_t *req = dra_ynode_get(
                val, "requiredDuringSchedulingIgnoredDuringExecution");
            if (req && !dra_ynode_is_null(req)) {
                size_t s2 = pushk(rd, "requiredDuringSchedulingIgnoredDuringExecution");
                p->node_affinity = dra_mr_node_selector(rd, req);
                pop(rd, s2);
            }
        } else if ((K("podAffinity") || K("podAntiAffinity")) && !dra_ynode_is_null(val) &&
                   dra_ynode_get(val, "requiredDuringSchedulingIgnoredDuringExecution")) {
            snprintf(f, sizeof f, "%s.affinity.%s.requiredDuringSchedulingIgnoredDuringExecution",
                     pre, key);
            note(rd, p, f, "inter-pod affinity is not modelled");
        }
        pop(rd, s);
    }
}

static void rd_node_selector_labels(rd_t *rd, dra_pod_t *p, const dra_ynode_t *v)
{
    if (dra_ynode_is_null(v) || !dra_mr_want_map(rd, v))
        return;
    p->node_labels = dra_model_array(rd->m, v->n, sizeof *p->node_labels);
    if (!p->node_labels) {
        rd->nerr++;
        return;
    }
    for (uint32_t i = 0; i < v->n; i++) {
        size_t s = pushk(rd, v->keys[i]->text);
        p->node_labels[i].key = dra_model_strn(rd->m, v->keys[i]->text, v->keys[i]->len);
        p->node_labels[i].value = dra_mr_str(rd, v->vals[i], true);
        if (!p->node_labels[i].value)
            p->node_labels[i].value = "";
        pop(rd, s);
    }
    p->nnode_labels = v->n;
}

/* ---- pods and workloads ------------------------------------------------------------------ */

static void rd_pod_spec(rd_t *rd, dra_pod_t *p, const dra_ynode_t *spec, const char *pre)
{
    static const char *const kspec[] = {"resourceClaims",
                                        "nodeName",
                                        "containers",
                                        "initContainers",
                                        "restartPolicy",
                                        "tolerations",
                                        "nodeSelector",
                                        "affinity",
                                        "overhead",
                                        "schedulerName",
                                        "topologySpreadConstraints",
                                        "resources",
                                        "volumes",
                                        "runtimeClassName",
                                        "schedulingGroup",
                                        "priority",
                                        NULL};
    static const char *const kgroup[] = {"podGroupName", NULL};
    static const char *const kclaim[] = {"name", "resourceClaimName", "resourceClaimTemplateName",
                                         "source", NULL};
    if (!dra_mr_want_map(rd, spec))
        return;
    dra_mr_case_check(rd, spec, kspec);
    char f[160];
    for (uint32_t k = 0; k < spec->n; k++) {
        const char *key = spec->keys[k]->text;
        const dra_ynode_t *val = spec->vals[k];
        size_t s = pushk(rd, key);
        if (K("nodeName"))
            p->node_name = dra_mr_str(rd, val, false);
        else if (K("nodeSelector"))
            rd_node_selector_labels(rd, p, val);
        else if (K("affinity"))
            rd_affinity(rd, p, val, pre);
        else if (K("tolerations") && !dra_ynode_is_null(val))
            p->tolerations = dra_mr_tolerations(rd, val, &p->ntolerations);
        else if (K("overhead"))
            p->overhead = dra_mr_resources(rd, val, NULL, &p->noverhead);
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
        } else if (K("topologySpreadConstraints") && dra_ynode_is_seq(val) && val->n) {
            for (uint32_t j = 0; j < val->n; j++) {
                const dra_ynode_t *wu = dra_ynode_get(val->vals[j], "whenUnsatisfiable");
                if (!wu || !dra_ynode_is_scalar(wu) || strcmp(wu->text, "ScheduleAnyway") != 0) {
                    snprintf(f, sizeof f, "%s.topologySpreadConstraints", pre);
                    note(rd, p, f, "pod topology spread (DoNotSchedule) is not modelled");
                }
            }
        } else if (K("runtimeClassName") && !dra_ynode_is_null(val) &&
                   !dra_ynode_get(spec, "overhead")) {
            snprintf(f, sizeof f, "%s.runtimeClassName", pre);
            note(rd, p, f, "the RuntimeClass's overhead is not read (spec.overhead is)");
        } else if (K("resources") && !dra_ynode_is_null(val)) {
            snprintf(f, sizeof f, "%s.resources", pre);
            note(rd, p, f, "pod-level resources are not modelled (container requests are)");
        } else if (K("volumes") && dra_ynode_is_seq(val)) {
            for (uint32_t j = 0; j < val->n; j++)
                if (dra_ynode_get(val->vals[j], "persistentVolumeClaim") ||
                    dra_ynode_get(val->vals[j], "ephemeral")) {
                    snprintf(f, sizeof f, "%s.volumes", pre);
                    note(rd, p, f, "persistent volume claims (volume binding) are not modelled");
                }
        } else if (K("resourceClaims")) {
            p->claims = dra_mr_seq_array(rd, val, sizeof *p->claims, &p->nclaims);
            for (dra_mr_item_t e = dra_mr_items(val, p->nclaims); dra_mr_next_item(rd, &e);) {
                dra_pod_claim_t *c = &p->claims[e.i];
                for (dra_mr_field_t x = dra_mr_fields(rd, e.val); dra_mr_next_field(rd, &x);) {
                    if (KEY_IS(x.key, "name"))
                        c->name = dra_mr_str(rd, x.val, false);
                    else if (KEY_IS(x.key, "resourceClaimName"))
                        c->claim_name = dra_mr_str(rd, x.val, false);
                    else if (KEY_IS(x.key, "resourceClaimTemplateName"))
                        c->template_name = dra_mr_str(rd, x.val, false);
                    else if (!KEY_IS(x.key, "source"))
                        dra_mr_unknown_field(rd, x.keyn, kclaim);
                    else if (dra_mr_want_map(rd, x.val)) {
                        /* pre-1.31 PodResourceClaimSource */
                        const dra_ynode_t *cn = dra_ynode_get(x.val, "resourceClaimName");
                        const dra_ynode_t *tn = dra_ynode_get(x.val, "resourceClaimTemplateName");
                        if (cn)
                            c->claim_name = dra_mr_str(rd, cn, false);
                        if (tn)
                            c->template_name = dra_mr_str(rd, tn, false);
                    }
                }
            }
        }
        pop(rd, s);
    }
    /* a group member's schedulerName is checked against its PodGroup's (the group cycle);
     * a single pod's names the scheduler that would place it */
    if (!p->has_group && p->scheduler_name && strcmp(p->scheduler_name, "default-scheduler") != 0) {
        snprintf(f, sizeof f, "%s.schedulerName", pre);
        note(rd, p, f, "another scheduler places this pod; drabench models the default kube-scheduler");
    }
    rd_containers(rd, p, spec, pre);
}

/* status.resourceClaimStatuses: the claims generated from templates, by pod claim name. */
static void rd_claim_statuses(rd_t *rd, dra_pod_t *p, const dra_ynode_t *st)
{
    const dra_ynode_t *v = dra_ynode_get(st, "resourceClaimStatuses");
    if (!v || dra_ynode_is_null(v))
        return;
    size_t s = pushk(rd, "resourceClaimStatuses");
    if (dra_mr_want_seq(rd, v))
        for (uint32_t i = 0; i < v->n; i++) {
            size_t s2 = pushi(rd, i);
            const dra_ynode_t *e = v->vals[i];
            const dra_ynode_t *nm = dra_ynode_get(e, "name");
            const dra_ynode_t *rc = dra_ynode_get(e, "resourceClaimName");
            const char *name = nm ? dra_mr_str(rd, nm, false) : NULL;
            const char *gen = rc ? dra_mr_str(rd, rc, false) : NULL;
            bool found = false;
            for (uint32_t k = 0; name && k < p->nclaims; k++)
                if (p->claims[k].name && strcmp(p->claims[k].name, name) == 0) {
                    p->claims[k].generated_name = gen;
                    found = true;
                }
            if (name && !found)
                dra_mr_err(rd, e, "name: \"%s\" is not one of spec.resourceClaims", name);
            pop(rd, s2);
        }
    pop(rd, s);
}

/* status.extendedResourceClaimStatus: {resourceClaimName, requestMappings: [{containerName,
 * resourceName, requestName}]}. */
static void rd_ext_status(rd_t *rd, dra_pod_t *p, const dra_ynode_t *st)
{
    static const char *const kst[] = {"resourceClaimName", "requestMappings", NULL};
    static const char *const kmap[] = {"containerName", "resourceName", "requestName", NULL};
    const dra_ynode_t *v = dra_ynode_get(st, "extendedResourceClaimStatus");
    if (!v || dra_ynode_is_null(v))
        return;
    size_t s = pushk(rd, "extendedResourceClaimStatus");
    for (dra_mr_field_t f = dra_mr_fields(rd, v); dra_mr_next_field(rd, &f);) {
        if (KEY_IS(f.key, "resourceClaimName"))
            p->ext_claim = dra_mr_str(rd, f.val, false);
        else if (!KEY_IS(f.key, "requestMappings"))
            dra_mr_unknown_field(rd, f.keyn, kst);
        else {
            p->ext_mappings = dra_mr_seq_array(rd, f.val, sizeof *p->ext_mappings, &p->next_mappings);
            for (dra_mr_item_t e = dra_mr_items(f.val, p->next_mappings); dra_mr_next_item(rd, &e);) {
                dra_request_mapping_t *mp = &p->ext_mappings[e.i];
                for (dra_mr_field_t x = dra_mr_fields(rd, e.val); dra_mr_next_field(rd, &x);) {
                    if (KEY_IS(x.key, "containerName"))
                        mp->container = dra_mr_str(rd, x.val, false);
                    else if (KEY_IS(x.key, "resourceName"))
                        mp->resource = dra_mr_str(rd, x.val, false);
                    else if (KEY_IS(x.key, "requestName"))
                        mp->request = dra_mr_str(rd, x.val, false);
                    else
                        dra_mr_unknown_field(rd, x.keyn, kmap);
                }
            }
        }
    }
    pop(rd, s);
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
    const dra_ynode_t *uid = dra_ynode_get(dra_ynode_get(o->doc, "metadata"), "uid");
    if (uid && !dra_ynode_is_null(uid))
        p->uid = dra_mr_str(rd, uid, true);
    rd_pod_spec(rd, p, o->spec, "spec");
    const dra_ynode_t *st = dra_ynode_get(o->doc, "status");
    if (st && !dra_ynode_is_null(st)) {
        pop(rd, o->spath); /* the caller pops to spath again */
        pushk(rd, "status");
        rd_claim_statuses(rd, p, st);
        rd_ext_status(rd, p, st);
    }
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
        rd_pod_spec(rd, p, dra_ynode_get(tmpl, "spec"), "spec.template.spec");
    pop(rd, s2);
}
