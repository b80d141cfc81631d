/*
 * manifest_read_node.c - Node: name, labels, the node filters (spec.taints, spec.unschedulable)
 * and status.allocatable: cpu / memory as written, every other entry as a quantity
 * (manifest_kinds.h).
 */
#include <stdlib.h>
#include <string.h>

#include "manifest_kinds.h"

static int cmp_res(const void *x, const void *y)
{
    const dra_resource_qty_t *a = x, *b = y;
    return strcmp(a->name, b->name);
}

/* spec.taints: key, value, effect (NoSchedule and NoExecute filter; PreferNoSchedule and
 * unknown effects count as None), timeAdded; other keys ignored (a Node is read leniently). */
static dra_taint_t *rd_node_taints(rd_t *rd, const dra_ynode_t *v, uint32_t *n)
{
    *n = 0;
    if (!dra_mr_want_seq(rd, v))
        return NULL;
    dra_taint_t *t = dra_model_array(rd->m, v->n, sizeof *t);
    if (!t)
        return rd->nerr++, NULL;
    for (uint32_t i = 0; i < v->n; i++) {
        size_t s = pushi(rd, i);
        const dra_ynode_t *e = v->vals[i];
        if (dra_mr_want_map(rd, e))
            for (uint32_t k = 0; k < e->n; k++) {
                const char *key = e->keys[k]->text;
                size_t s2 = pushk(rd, key);
                if (K("key"))
                    t[i].key = dra_mr_str(rd, e->vals[k], false);
                else if (K("value"))
                    t[i].value = dra_mr_str(rd, e->vals[k], true);
                else if (K("effect")) {
                    t[i].effect_raw = dra_mr_str(rd, e->vals[k], false);
                    t[i].effect = dra_mr_effect_of(t[i].effect_raw);
                    if (t[i].effect == DRA_EFFECT_EMPTY)
                        t[i].effect = DRA_EFFECT_NONE;
                } else if (K("timeAdded"))
                    t[i].time_added = dra_mr_str(rd, e->vals[k], true);
                pop(rd, s2);
            }
        if (!t[i].key)
            dra_mr_err(rd, e, "key: required field missing");
        pop(rd, s);
    }
    *n = v->n;
    return t;
}

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
            nd->taints = rd_node_taints(rd, t, &nd->ntaints);
            pop(rd, s2);
        }
        const dra_ynode_t *u = dra_ynode_get(spec, "unschedulable");
        if (u && !dra_ynode_is_null(u)) {
            size_t s2 = pushk(rd, "unschedulable");
            dra_mr_bool(rd, u, &nd->unschedulable);
            pop(rd, s2);
        }
    }
    const dra_ynode_t *alc = dra_ynode_get(dra_ynode_get(o->doc, "status"), "allocatable");
    if (alc) { /* cpu / memory kept as written (drabench replay --emit writes them) */
        pop(rd, o->spath);
        pushk(rd, "status.allocatable");
        if (dra_mr_want_map(rd, alc)) { /* the rest: device plugins' extended resources, ... */
            uint32_t n = 0;
            for (uint32_t i = 0; i < alc->n; i++)
                n += strcmp(alc->keys[i]->text, "cpu") != 0 &&
                     strcmp(alc->keys[i]->text, "memory") != 0;
            nd->allocatable = n ? dra_model_array(m, n, sizeof *nd->allocatable) : NULL;
            if (n && !nd->allocatable)
                rd->nerr++;
            for (uint32_t i = 0; i < alc->n && nd->allocatable; i++) {
                const char *k = alc->keys[i]->text;
                if (strcmp(k, "cpu") == 0 || strcmp(k, "memory") == 0)
                    continue;
                size_t s2 = pushk(rd, k);
                dra_resource_qty_t *r = &nd->allocatable[nd->nallocatable];
                r->name = dra_model_strn(m, k, alc->keys[i]->len);
                if (!r->name)
                    rd->nerr++;
                else if (dra_mr_qty(rd, alc->vals[i], &r->value))
                    nd->nallocatable++;
                pop(rd, s2);
            }
            if (nd->nallocatable)
                qsort(nd->allocatable, nd->nallocatable, sizeof *nd->allocatable, cmp_res);
        }
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
