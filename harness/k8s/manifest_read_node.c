/*
 * manifest_read_node.c - Node: name, labels, the node filters (spec.taints, spec.unschedulable),
 * status.allocatable (cpu / memory as written, every other entry as a quantity) and
 * status.declaredFeatures (manifest_kinds.h).
 */
#include "manifest_kinds.h"

void dra_mr_read_node(rd_t *rd, const dra_mr_obj_t *o)
{
    dra_model_t *m = rd->m;
    const dra_ynode_t *labels = o->labels;
    dra_node_t *nd = dra_model_add_node(m);
    if (!nd)
        return;
    nd->name = o->name;
    nd->pos = o->pos;
    pop(rd, o->spath); /* the caller pops to spath again */
    pushk(rd, "metadata.labels");
    if (dra_mr_want_map(rd, labels)) {
        nd->labels = dra_model_array(m, labels->n, sizeof *nd->labels);
        nd->nlabels = nd->labels ? labels->n : 0;
        for (uint32_t i = 0; i < nd->nlabels; i++) {
            size_t s2 = pushk(rd, labels->keys[i]->text);
            nd->labels[i].key = dra_model_strn(m, labels->keys[i]->text, labels->keys[i]->len);
            nd->labels[i].value = dra_mr_str(rd, labels->vals[i], true);
            if (!nd->labels[i].value)
                nd->labels[i].value = "";
            pop(rd, s2);
        }
    }
    const dra_ynode_t *spec = dra_ynode_get(o->doc, "spec");
    if (spec && dra_ynode_is_map(spec)) { /* the node filters: taints, unschedulable */
        pop(rd, o->spath);
        pushk(rd, "spec");
        const dra_ynode_t *t = dra_ynode_get(spec, "taints");
        if (t && !dra_ynode_is_null(t)) {
            size_t s2 = pushk(rd, "taints");
            nd->taints = dra_mr_taints(rd, t, &nd->ntaints);
            pop(rd, s2);
        }
        const dra_ynode_t *u = dra_ynode_get(spec, "unschedulable");
        if (u && !dra_ynode_is_null(u)) {
            size_t s2 = pushk(rd, "unschedulable");
            dra_mr_bool(rd, u, &nd->unschedulable);
            pop(rd, s2);
        }
    }
    const dra_ynode_t *feat = dra_ynode_get(dra_ynode_get(o->doc, "status"), "declaredFeatures");
    if (feat && !dra_ynode_is_null(feat)) { /* NodeDeclaredFeatures: a list of names */
        pop(rd, o->spath);
        pushk(rd, "status.declaredFeatures");
        nd->declared_features = dra_mr_strlist(rd, feat, &nd->ndeclared_features);
    }
    const dra_ynode_t *alc = dra_ynode_get(dra_ynode_get(o->doc, "status"), "allocatable");
    if (alc) { /* cpu / memory kept as written (drabench replay --emit writes them) */
        pop(rd, o->spath);
        pushk(rd, "status.allocatable");
        /* the rest (device plugins' extended resources, pods, ...) as quantities */
        static const char *const textual[] = {"cpu", "memory", NULL};
        nd->allocatable = dra_mr_resources(rd, alc, textual, &nd->nallocatable);
        const dra_ynode_t *v = dra_ynode_get(alc, "cpu");
        if (v && v->type == DRA_YNODE_SCALAR) { /* `cpu: 8` or `cpu: "8"`: kept as text */
            size_t s2 = pushk(rd, "cpu");
            nd->alloc_cpu = dra_mr_str(rd, v, true);
            pop(rd, s2);
        }
        v = dra_ynode_get(alc, "memory");
        if (v && v->type == DRA_YNODE_SCALAR) {
            size_t s2 = pushk(rd, "memory");
            nd->alloc_memory = dra_mr_str(rd, v, true);
            pop(rd, s2);
        }
    }
}
