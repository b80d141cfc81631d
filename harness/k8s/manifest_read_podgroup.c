/*
 * manifest_read_podgroup.c - PodGroup and Workload (scheduling.k8s.io/v1alpha2, the 1.36 API, and
 * v1beta1, the 1.37 one) (manifest_kinds.h).
 *
 * Both versions share the scheduling part (schedulingPolicy, schedulingConstraints.topology[].key,
 * resourceClaims); they differ in how a PodGroup names its template: v1alpha2
 * spec.podGroupTemplateRef.workload {workloadName, podGroupTemplateName}, v1beta1 spec.workloadRef
 * {workloadName, templateName}. Fields of workload-aware preemption (disruptionMode,
 * priorityClassName, priority, preemptionPolicy) are accepted and ignored (preemption is not
 * modelled); composite pod groups (v1beta1 parentCompositePodGroupName, Workload
 * compositePodGroupTemplates) are refused with a reason. Validation (upstream's rules) is
 * manifest_validate.c's; this file only reads shapes.
 */
#include <string.h>

#include "manifest_kinds.h"

enum { SCHED_V1ALPHA2 = 1, SCHED_V1BETA1 };

static int sched_api(rd_t *rd, const dra_mr_obj_t *o)
{
    const char *v = o->api_version;
    if (!v)
        return SCHED_V1ALPHA2; /* "apiVersion: required field missing" already said */
    if (strcmp(v, "scheduling.k8s.io/v1alpha2") == 0)
        return SCHED_V1ALPHA2;
    if (strcmp(v, "scheduling.k8s.io/v1beta1") == 0)
        return SCHED_V1BETA1;
    const dra_ynode_t *apin = dra_ynode_get(o->doc, "apiVersion");
    if (strcmp(v, "scheduling.k8s.io/v1alpha1") == 0)
        dra_mr_err(rd, apin, "unsupported apiVersion \"%s\" for %s: the 1.35 Workload API (pod "
                             "groups inside the Workload) is not modelled; use "
                             "scheduling.k8s.io/v1alpha2 (1.36) or v1beta1 (1.37)",
                   v, rd->kind);
    else
        dra_mr_err(rd, apin, "unsupported apiVersion \"%s\" for %s (want "
                             "scheduling.k8s.io/v1alpha2 or scheduling.k8s.io/v1beta1)",
                   v, rd->kind);
    return 0;
}

static void rd_policy(rd_t *rd, dra_group_sched_t *s, const dra_ynode_t *v)
{
    static const char *const known[] = {"basic", "gang", NULL};
    static const char *const kgang[] = {"minCount", NULL};
    s->has_policy = true;
    dra_mr_set_pos(rd, &s->policy_pos, v);
    if (!dra_mr_want_map(rd, v))
        return;
    for (uint32_t k = 0; k < v->n; k++) {
        const char *key = v->keys[k]->text;
        const dra_ynode_t *val = v->vals[k];
        size_t sv = pushk(rd, key);
        if (K("basic")) {
            /* an empty struct: {} (null is absent, as for any optional pointer) */
            if (!dra_ynode_is_null(val)) {
                s->basic = true;
                if (dra_mr_want_map(rd, val))
                    for (uint32_t j = 0; j < val->n; j++) {
                        size_t s2 = pushk(rd, val->keys[j]->text);
                        dra_mr_err(rd, val->keys[j], "unknown field \"%.80s\" (basic has no fields)",
                                   val->keys[j]->text);
                        pop(rd, s2);
                    }
            }
        } else if (K("gang")) {
            if (!dra_ynode_is_null(val)) {
                s->gang = true;
                if (dra_mr_want_map(rd, val))
                    for (uint32_t j = 0; j < val->n; j++) {
                        size_t s2 = pushk(rd, val->keys[j]->text);
                        if (strcmp(val->keys[j]->text, "minCount") == 0) {
                            if (!dra_ynode_is_null(val->vals[j]))
                                s->has_min_count = dra_mr_int(rd, val->vals[j], &s->min_count);
                        } else
                            dra_mr_unknown_field(rd, val->keys[j], kgang);
                        pop(rd, s2);
                    }
            }
        } else
            dra_mr_unknown_field(rd, v->keys[k], known);
        pop(rd, sv);
    }
}

static void rd_constraints(rd_t *rd, dra_group_sched_t *s, const dra_ynode_t *v)
{
    static const char *const known[] = {"topology", NULL};
    static const char *const ktopo[] = {"key", NULL};
    if (dra_ynode_is_null(v))
        return;
    s->has_constraints = true;
    dra_mr_set_pos(rd, &s->constraints_pos, v);
    if (!dra_mr_want_map(rd, v))
        return;
    for (uint32_t k = 0; k < v->n; k++) {
        const char *key = v->keys[k]->text;
        const dra_ynode_t *val = v->vals[k];
        size_t sv = pushk(rd, key);
        if (K("topology")) {
            if (dra_mr_want_seq(rd, val)) {
                s->topology = dra_model_array(rd->m, val->n, sizeof *s->topology);
                s->ntopology = s->topology ? val->n : 0;
                for (uint32_t i = 0; i < s->ntopology; i++) {
                    size_t s2 = pushi(rd, i);
                    const dra_ynode_t *e = val->vals[i];
                    if (dra_mr_want_map(rd, e))
                        for (uint32_t j = 0; j < e->n; j++) {
                            size_t s3 = pushk(rd, e->keys[j]->text);
                            if (strcmp(e->keys[j]->text, "key") == 0)
                                s->topology[i] = dra_mr_str(rd, e->vals[j], false);
                            else
                                dra_mr_unknown_field(rd, e->keys[j], ktopo);
                            pop(rd, s3);
                        }
                    pop(rd, s2);
                }
            }
        } else
            dra_mr_unknown_field(rd, v->keys[k], known);
        pop(rd, sv);
    }
}

static void rd_group_claims(rd_t *rd, dra_group_sched_t *s, const dra_ynode_t *v)
{
    static const char *const known[] = {"name", "resourceClaimName", "resourceClaimTemplateName",
                                        NULL};
    if (dra_ynode_is_null(v))
        return;
    s->has_claims = true;
    if (!dra_mr_want_seq(rd, v))
        return;
    s->claims = dra_model_array(rd->m, v->n, sizeof *s->claims);
    s->nclaims = s->claims ? v->n : 0;
    for (uint32_t i = 0; i < s->nclaims; i++) {
        size_t s2 = pushi(rd, i);
        const dra_ynode_t *e = v->vals[i];
        dra_group_claim_t *c = &s->claims[i];
        dra_mr_set_pos(rd, &c->pos, e);
        if (dra_mr_want_map(rd, e))
            for (uint32_t j = 0; j < e->n; j++) {
                const char *key = e->keys[j]->text;
                size_t s3 = pushk(rd, key);
                if (K("name"))
                    c->name = dra_mr_str(rd, e->vals[j], false);
                else if (K("resourceClaimName"))
                    c->claim_name = dra_mr_str(rd, e->vals[j], false);
                else if (K("resourceClaimTemplateName"))
                    c->template_name = dra_mr_str(rd, e->vals[j], false);
                else
                    dra_mr_unknown_field(rd, e->keys[j], known);
                pop(rd, s3);
            }
        pop(rd, s2);
    }
}

/* One key of the scheduling part; false when key is not one of them. */
static bool rd_sched_field(rd_t *rd, dra_group_sched_t *s, const dra_ynode_t *keyn,
                           const dra_ynode_t *val)
{
    const char *key = keyn->text;
    if (K("schedulingPolicy"))
        rd_policy(rd, s, val);
    else if (K("schedulingConstraints"))
        rd_constraints(rd, s, val);
    else if (K("resourceClaims"))
        rd_group_claims(rd, s, val);
    else if (K("disruptionMode") || K("priorityClassName") || K("priority") ||
             K("preemptionPolicy"))
        ; /* workload-aware preemption: not modelled */
    else
        return false;
    return true;
}

#define SCHED_KEYS                                                                                 \
    "schedulingPolicy", "schedulingConstraints", "resourceClaims", "disruptionMode",             \
        "priorityClassName", "priority", "preemptionPolicy"

static void rd_template_ref_v1alpha2(rd_t *rd, dra_podgroup_t *g, const dra_ynode_t *v)
{
    static const char *const known[] = {"workload", NULL};
    static const char *const kwl[] = {"workloadName", "podGroupTemplateName", NULL};
    if (dra_ynode_is_null(v))
        return;
    g->has_template_ref = true;
    if (!dra_mr_want_map(rd, v))
        return;
    for (uint32_t k = 0; k < v->n; k++) {
        const char *key = v->keys[k]->text;
        const dra_ynode_t *w = v->vals[k];
        size_t sv = pushk(rd, key);
        if (K("workload")) {
            if (dra_mr_want_map(rd, w))
                for (uint32_t j = 0; j < w->n; j++) {
                    const char *k2 = w->keys[j]->text;
                    size_t s2 = pushk(rd, k2);
                    if (strcmp(k2, "workloadName") == 0)
                        g->workload_name = dra_mr_str(rd, w->vals[j], false);
                    else if (strcmp(k2, "podGroupTemplateName") == 0)
                        g->template_name = dra_mr_str(rd, w->vals[j], false);
                    else
                        dra_mr_unknown_field(rd, w->keys[j], kwl);
                    pop(rd, s2);
                }
        } else
            dra_mr_unknown_field(rd, v->keys[k], known);
        pop(rd, sv);
    }
}

static void rd_workload_ref_v1beta1(rd_t *rd, dra_podgroup_t *g, const dra_ynode_t *v)
{
    static const char *const known[] = {"workloadName", "templateName", NULL};
    if (dra_ynode_is_null(v))
        return;
    g->has_template_ref = true;
    if (!dra_mr_want_map(rd, v))
        return;
    for (uint32_t k = 0; k < v->n; k++) {
        const char *key = v->keys[k]->text;
        size_t sv = pushk(rd, key);
        if (K("workloadName"))
            g->workload_name = dra_mr_str(rd, v->vals[k], false);
        else if (K("templateName"))
            g->template_name = dra_mr_str(rd, v->vals[k], false);
        else
            dra_mr_unknown_field(rd, v->keys[k], known);
        pop(rd, sv);
    }
}

static void check_top(rd_t *rd, const dra_mr_obj_t *o, bool status_ok)
{
    static const char *const k_top[] = {"apiVersion", "kind", "metadata", "spec", "status", NULL};
    const dra_ynode_t *doc = o->doc;
    pop(rd, o->spath); /* at the document: "spec" is pushed again below */
    for (uint32_t i = 0; i < doc->n; i++) {
        const char *key = doc->keys[i]->text;
        if (!K("apiVersion") && !K("kind") && !K("metadata") && !K("spec") &&
            !(K("status") && status_ok)) {
            size_t s = pushk(rd, key);
            dra_mr_unknown_field(rd, doc->keys[i], k_top);
            pop(rd, s);
        }
    }
    if (!o->spec)
        dra_mr_err(rd, doc, "spec: required field missing");
    (void)pushk(rd, "spec");
}

void dra_mr_read_podgroup(rd_t *rd, const dra_mr_obj_t *o)
{
    int api = sched_api(rd, o);
    check_top(rd, o, true);
    dra_podgroup_t *g = dra_model_add_podgroup(rd->m);
    if (!g) {
        rd->nerr++;
        return;
    }
    g->name = o->name;
    g->namespace_ = o->ns ? o->ns : "default";
    g->api_version = o->api_version;
    g->pos = o->pos;
    const dra_ynode_t *spec = o->spec;
    if (!api || !dra_mr_want_map(rd, spec))
        return;
    static const char *const k_v1alpha2[] = {"podGroupTemplateRef", SCHED_KEYS, NULL};
    static const char *const k_v1beta1[] = {"workloadRef", "parentCompositePodGroupName",
                                            SCHED_KEYS, NULL};
    const char *const *known = api == SCHED_V1BETA1 ? k_v1beta1 : k_v1alpha2;
    for (uint32_t k = 0; k < spec->n; k++) {
        const char *key = spec->keys[k]->text;
        const dra_ynode_t *val = spec->vals[k];
        size_t sv = pushk(rd, key);
        if (rd_sched_field(rd, &g->s, spec->keys[k], val))
            ;
        else if (api == SCHED_V1ALPHA2 && K("podGroupTemplateRef"))
            rd_template_ref_v1alpha2(rd, g, val);
        else if (api == SCHED_V1BETA1 && K("workloadRef"))
            rd_workload_ref_v1beta1(rd, g, val);
        else if (api == SCHED_V1BETA1 && K("parentCompositePodGroupName")) {
            if (!dra_ynode_is_null(val))
                dra_mr_err(rd, spec->keys[k],
                           "composite pod groups (CompositePodGroup) are not modelled: a PodGroup "
                           "with a parent is scheduled with its CompositePodGroup");
        } else
            dra_mr_unknown_field(rd, spec->keys[k], known);
        pop(rd, sv);
    }
}

static void rd_templates(rd_t *rd, dra_workload_obj_t *w, const dra_ynode_t *v)
{
    static const char *const known[] = {"name", SCHED_KEYS, NULL};
    if (dra_ynode_is_null(v))
        return;
    w->has_templates = true;
    if (!dra_mr_want_seq(rd, v))
        return;
    w->templates = dra_model_array(rd->m, v->n, sizeof *w->templates);
    w->ntemplates = w->templates ? v->n : 0;
    for (uint32_t i = 0; i < w->ntemplates; i++) {
        size_t s2 = pushi(rd, i);
        const dra_ynode_t *e = v->vals[i];
        dra_pg_template_t *t = &w->templates[i];
        dra_mr_set_pos(rd, &t->pos, e);
        if (dra_mr_want_map(rd, e))
            for (uint32_t j = 0; j < e->n; j++) {
                const char *key = e->keys[j]->text;
                size_t s3 = pushk(rd, key);
                if (K("name"))
                    t->name = dra_mr_str(rd, e->vals[j], false);
                else if (!rd_sched_field(rd, &t->s, e->keys[j], e->vals[j]))
                    dra_mr_unknown_field(rd, e->keys[j], known);
                pop(rd, s3);
            }
        pop(rd, s2);
    }
}

static void rd_controller_ref(rd_t *rd, dra_workload_obj_t *w, const dra_ynode_t *v)
{
    static const char *const known[] = {"apiGroup", "kind", "name", NULL};
    if (dra_ynode_is_null(v))
        return;
    w->has_controller_ref = true;
    if (!dra_mr_want_map(rd, v))
        return;
    for (uint32_t k = 0; k < v->n; k++) {
        const char *key = v->keys[k]->text;
        size_t sv = pushk(rd, key);
        if (K("apiGroup"))
            w->ctrl_api_group = dra_mr_str(rd, v->vals[k], false);
        else if (K("kind"))
            w->ctrl_kind = dra_mr_str(rd, v->vals[k], false);
        else if (K("name"))
            w->ctrl_name = dra_mr_str(rd, v->vals[k], false);
        else
            dra_mr_unknown_field(rd, v->keys[k], known);
        pop(rd, sv);
    }
}

void dra_mr_read_sched_workload(rd_t *rd, const dra_mr_obj_t *o)
{
    int api = sched_api(rd, o);
    check_top(rd, o, false);
    dra_workload_obj_t *w = dra_model_add_workload(rd->m);
    if (!w) {
        rd->nerr++;
        return;
    }
    w->name = o->name;
    w->namespace_ = o->ns ? o->ns : "default";
    w->api_version = o->api_version;
    w->pos = o->pos;
    const dra_ynode_t *spec = o->spec;
    if (!api || !dra_mr_want_map(rd, spec))
        return;
    static const char *const known[] = {"controllerRef", "podGroupTemplates", NULL};
    for (uint32_t k = 0; k < spec->n; k++) {
        const char *key = spec->keys[k]->text;
        const dra_ynode_t *val = spec->vals[k];
        size_t sv = pushk(rd, key);
        if (K("controllerRef"))
            rd_controller_ref(rd, w, val);
        else if (K("podGroupTemplates"))
            rd_templates(rd, w, val);
        else if (api == SCHED_V1BETA1 && K("compositePodGroupTemplates")) {
            if (!dra_ynode_is_null(val))
                dra_mr_err(rd, spec->keys[k],
                           "composite pod group templates (CompositePodGroup) are not modelled");
        } else
            dra_mr_unknown_field(rd, spec->keys[k], known);
        pop(rd, sv);
    }
}
