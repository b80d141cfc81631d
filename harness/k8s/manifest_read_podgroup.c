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
    for (dra_mr_field_t f = dra_mr_fields(rd, v); dra_mr_next_field(rd, &f);) {
        if (KEY_IS(f.key, "basic")) {
            /* an empty struct: {} (null is absent, as for any optional pointer) */
            if (!dra_ynode_is_null(f.val)) {
                s->basic = true;
                for (dra_mr_field_t b = dra_mr_fields(rd, f.val); dra_mr_next_field(rd, &b);)
                    dra_mr_err(rd, b.keyn, "unknown field \"%.80s\" (basic has no fields)", b.key);
            }
        } else if (KEY_IS(f.key, "gang")) {
            if (!dra_ynode_is_null(f.val)) {
                s->gang = true;
                for (dra_mr_field_t g = dra_mr_fields(rd, f.val); dra_mr_next_field(rd, &g);) {
                    if (!KEY_IS(g.key, "minCount"))
                        dra_mr_unknown_field(rd, g.keyn, kgang);
                    else if (!dra_ynode_is_null(g.val))
                        s->has_min_count = dra_mr_int(rd, g.val, &s->min_count);
                }
            }
        } else
            dra_mr_unknown_field(rd, f.keyn, known);
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
    for (dra_mr_field_t f = dra_mr_fields(rd, v); dra_mr_next_field(rd, &f);) {
        if (KEY_IS(f.key, "topology")) {
            s->topology = dra_mr_seq_array(rd, f.val, sizeof *s->topology, &s->ntopology);
            for (dra_mr_item_t e = dra_mr_items(f.val, s->ntopology); dra_mr_next_item(rd, &e);)
                for (dra_mr_field_t t = dra_mr_fields(rd, e.val); dra_mr_next_field(rd, &t);) {
                    if (KEY_IS(t.key, "key"))
                        s->topology[e.i] = dra_mr_str(rd, t.val, false);
                    else
                        dra_mr_unknown_field(rd, t.keyn, ktopo);
                }
        } else
            dra_mr_unknown_field(rd, f.keyn, known);
    }
}

static void rd_group_claims(rd_t *rd, dra_group_sched_t *s, const dra_ynode_t *v)
{
    static const char *const known[] = {"name", "resourceClaimName", "resourceClaimTemplateName",
                                        NULL};
    if (dra_ynode_is_null(v))
        return;
    s->has_claims = true;
    s->claims = dra_mr_seq_array(rd, v, sizeof *s->claims, &s->nclaims);
    for (dra_mr_item_t e = dra_mr_items(v, s->nclaims); dra_mr_next_item(rd, &e);) {
        dra_group_claim_t *c = &s->claims[e.i];
        dra_mr_set_pos(rd, &c->pos, e.val);
        for (dra_mr_field_t f = dra_mr_fields(rd, e.val); dra_mr_next_field(rd, &f);) {
            if (KEY_IS(f.key, "name"))
                c->name = dra_mr_str(rd, f.val, false);
            else if (KEY_IS(f.key, "resourceClaimName"))
                c->claim_name = dra_mr_str(rd, f.val, false);
            else if (KEY_IS(f.key, "resourceClaimTemplateName"))
                c->template_name = dra_mr_str(rd, f.val, false);
            else
                dra_mr_unknown_field(rd, f.keyn, known);
        }
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
    for (dra_mr_field_t f = dra_mr_fields(rd, v); dra_mr_next_field(rd, &f);) {
        if (!KEY_IS(f.key, "workload")) {
            dra_mr_unknown_field(rd, f.keyn, known);
            continue;
        }
        for (dra_mr_field_t w = dra_mr_fields(rd, f.val); dra_mr_next_field(rd, &w);) {
            if (KEY_IS(w.key, "workloadName"))
                g->workload_name = dra_mr_str(rd, w.val, false);
            else if (KEY_IS(w.key, "podGroupTemplateName"))
                g->template_name = dra_mr_str(rd, w.val, false);
            else
                dra_mr_unknown_field(rd, w.keyn, kwl);
        }
    }
}

static void rd_workload_ref_v1beta1(rd_t *rd, dra_podgroup_t *g, const dra_ynode_t *v)
{
    static const char *const known[] = {"workloadName", "templateName", NULL};
    if (dra_ynode_is_null(v))
        return;
    g->has_template_ref = true;
    for (dra_mr_field_t f = dra_mr_fields(rd, v); dra_mr_next_field(rd, &f);) {
        if (KEY_IS(f.key, "workloadName"))
            g->workload_name = dra_mr_str(rd, f.val, false);
        else if (KEY_IS(f.key, "templateName"))
            g->template_name = dra_mr_str(rd, f.val, false);
        else
            dra_mr_unknown_field(rd, f.keyn, known);
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
    if (!api)
        return;
    static const char *const k_v1alpha2[] = {"podGroupTemplateRef", SCHED_KEYS, NULL};
    static const char *const k_v1beta1[] = {"workloadRef", "parentCompositePodGroupName",
                                            SCHED_KEYS, NULL};
    const char *const *known = api == SCHED_V1BETA1 ? k_v1beta1 : k_v1alpha2;
    for (dra_mr_field_t f = dra_mr_fields(rd, spec); dra_mr_next_field(rd, &f);) {
        if (rd_sched_field(rd, &g->s, f.keyn, f.val))
            ;
        else if (api == SCHED_V1ALPHA2 && KEY_IS(f.key, "podGroupTemplateRef"))
            rd_template_ref_v1alpha2(rd, g, f.val);
        else if (api == SCHED_V1BETA1 && KEY_IS(f.key, "workloadRef"))
            rd_workload_ref_v1beta1(rd, g, f.val);
        else if (api == SCHED_V1BETA1 && KEY_IS(f.key, "parentCompositePodGroupName")) {
            if (!dra_ynode_is_null(f.val))
                dra_mr_err(rd, f.keyn,
                           "composite pod groups (CompositePodGroup) are not modelled: a PodGroup "
                           "with a parent is scheduled with its CompositePodGroup");
        } else
            dra_mr_unknown_field(rd, f.keyn, known);
    }
}

static void rd_templates(rd_t *rd, dra_workload_obj_t *w, const dra_ynode_t *v)
{
    static const char *const known[] = {"name", SCHED_KEYS, NULL};
    if (dra_ynode_is_null(v))
        return;
    w->has_templates = true;
    w->templates = dra_mr_seq_array(rd, v, sizeof *w->templates, &w->ntemplates);
    for (dra_mr_item_t e = dra_mr_items(v, w->ntemplates); dra_mr_next_item(rd, &e);) {
        dra_pg_template_t *t = &w->templates[e.i];
        dra_mr_set_pos(rd, &t->pos, e.val);
        for (dra_mr_field_t f = dra_mr_fields(rd, e.val); dra_mr_next_field(rd, &f);) {
            if (KEY_IS(f.key, "name"))
                t->name = dra_mr_str(rd, f.val, false);
            else if (!rd_sched_field(rd, &t->s, f.keyn, f.val))
                dra_mr_unknown_field(rd, f.keyn, known);
        }
    }
}

static void rd_controller_ref(rd_t *rd, dra_workload_obj_t *w, const dra_ynode_t *v)
{
    static const char *const known[] = {"apiGroup", "kind", "name", NULL};
    if (dra_ynode_is_null(v))
        return;
    w->has_controller_ref = true;
    for (dra_mr_field_t f = dra_mr_fields(rd, v); dra_mr_next_field(rd, &f);) {
        if (KEY_IS(f.key, "apiGroup"))
            w->ctrl_api_group = dra_mr_str(rd, f.val, false);
        else if (KEY_IS(f.key, "kind"))
            w->ctrl_kind = dra_mr_str(rd, f.val, false);
        else if (KEY_IS(f.key, "name"))
            w->ctrl_name = dra_mr_str(rd, f.val, false);
        else
            dra_mr_unknown_field(rd, f.keyn, known);
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
    if (!api)
        return;
    static const char *const known[] = {"controllerRef", "podGroupTemplates", NULL};
    for (dra_mr_field_t f = dra_mr_fields(rd, spec); dra_mr_next_field(rd, &f);) {
        if (KEY_IS(f.key, "controllerRef"))
            rd_controller_ref(rd, w, f.val);
        else if (KEY_IS(f.key, "podGroupTemplates"))
            rd_templates(rd, w, f.val);
        else if (api == SCHED_V1BETA1 && KEY_IS(f.key, "compositePodGroupTemplates")) {
            if (!dra_ynode_is_null(f.val))
                dra_mr_err(rd, f.keyn,
                           "composite pod group templates (CompositePodGroup) are not modelled");
        } else
            dra_mr_unknown_field(rd, f.keyn, known);
    }
}
