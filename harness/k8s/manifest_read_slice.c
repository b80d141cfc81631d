/*
 * manifest_read_slice.c - ResourceSlice: devices (attributes, capacity, counters, taints,
 * node scoping) and shared counter sets, v1 and the older shapes (manifest_kinds.h).
 */
#include <string.h>

#include "manifest_kinds.h"

/* ---- ResourceSlice ----------------------------------------------------------------------- */

static const char *const k_attr[] = {"int", "bool", "string", "version", "ints", "bools",
                                     "strings", "versions", NULL};

static void rd_attr(rd_t *rd, dra_attr_t *a, const dra_ynode_t *v)
{
    if (!dra_mr_want_map(rd, v)) {
        if (dra_ynode_is_null(v))
            dra_mr_err(rd, v, "attribute must have exactly one of int, bool, string, version");
        return;
    }
    int nset = 0;
    for (uint32_t k = 0; k < v->n; k++) {
        const char *key = v->keys[k]->text;
        const dra_ynode_t *val = v->vals[k];
        size_t s = pushk(rd, key);
        int kind = 0;
        for (int j = 0; k_attr[j]; j++)
            if (K(k_attr[j])) {
                kind = j + 1;
                break;
            }
        if (!kind) {
            dra_mr_unknown_field(rd, v->keys[k], k_attr);
        } else if (dra_ynode_is_null(val)) {
            /* null = not set */
        } else {
            nset++;
            a->kind = (uint8_t)kind;
            a->count = 1;
            switch (kind) {
            case DRA_ATTR_INT:
                dra_mr_int(rd, val, &a->v.i);
                break;
            case DRA_ATTR_BOOL:
                dra_mr_bool(rd, val, &a->v.b);
                break;
            case DRA_ATTR_STRING:
            case DRA_ATTR_VERSION:
                a->v.s = dra_mr_str(rd, val, false);
                if (!a->v.s)
                    a->v.s = "";
                break;
            default: {
                if (!dra_mr_want_seq(rd, val)) {
                    a->count = 0;
                    break;
                }
                a->count = val->n;
                if (kind == DRA_ATTR_INTS) {
                    int64_t *x = dra_model_array(rd->m, val->n, sizeof *x);
                    for (uint32_t i = 0; x && i < val->n; i++) {
                        size_t s2 = pushi(rd, i);
                        dra_mr_int(rd, val->vals[i], &x[i]);
                        pop(rd, s2);
                    }
                    a->v.ints = x;
                } else if (kind == DRA_ATTR_BOOLS) {
                    bool *x = dra_model_array(rd->m, val->n, sizeof *x);
                    for (uint32_t i = 0; x && i < val->n; i++) {
                        size_t s2 = pushi(rd, i);
                        dra_mr_bool(rd, val->vals[i], &x[i]);
                        pop(rd, s2);
                    }
                    a->v.bools = x;
                } else {
                    uint32_t cnt;
                    const char **x = dra_mr_strlist(rd, val, &cnt);
                    for (uint32_t i = 0; x && i < cnt; i++)
                        if (!x[i])
                            x[i] = "";
                    a->v.strs = x;
                }
                if (val->n && !a->v.ints)
                    rd->nerr++;
            }
            }
        }
        pop(rd, s);
    }
    if (nset != 1) {
        dra_mr_err(rd, v,
                   "attribute must have exactly one of int, bool, string, version%s (has %d)",
                   " (or a list kind)", nset);
        if (nset == 0)
            a->kind = DRA_ATTR_NONE;
    }
}

static dra_request_policy_t *rd_policy(rd_t *rd, const dra_ynode_t *v)
{
    static const char *const known[] = {"default", "validValues", "validRange", NULL};
    static const char *const krange[] = {"min", "max", "step", NULL};
    if (!dra_mr_want_map(rd, v))
        return NULL;
    dra_request_policy_t *p = dra_model_array(rd->m, 1, sizeof *p);
    if (!p)
        return rd->nerr++, NULL;
    for (uint32_t k = 0; k < v->n; k++) {
        const char *key = v->keys[k]->text;
        const dra_ynode_t *val = v->vals[k];
        size_t s = pushk(rd, key);
        if (K("default")) {
            if (!dra_ynode_is_null(val))
                p->has_default = dra_mr_qty(rd, val, &p->def);
        } else if (K("validValues")) {
            if (dra_mr_want_seq(rd, val) && val->n) {
                p->valid_values = dra_model_array(rd->m, val->n, sizeof *p->valid_values);
                p->nvalid_values = p->valid_values ? val->n : 0;
                for (uint32_t i = 0; i < p->nvalid_values; i++) {
                    size_t s2 = pushi(rd, i);
                    dra_mr_qty(rd, val->vals[i], &p->valid_values[i]);
                    pop(rd, s2);
                }
            }
        } else if (K("validRange")) {
            if (dra_mr_want_map(rd, val)) {
                p->has_valid_range = true;
                bool has_min = false;
                for (uint32_t i = 0; i < val->n; i++) {
                    const char *key2 = val->keys[i]->text;
                    const dra_ynode_t *x = val->vals[i];
                    size_t s2 = pushk(rd, key2);
                    if (strcmp(key2, "min") == 0) {
                        if (!dra_ynode_is_null(x))
                            has_min = dra_mr_qty(rd, x, &p->min);
                    } else if (strcmp(key2, "max") == 0) {
                        if (!dra_ynode_is_null(x))
                            p->has_max = dra_mr_qty(rd, x, &p->max);
                    } else if (strcmp(key2, "step") == 0) {
                        if (!dra_ynode_is_null(x))
                            p->has_step = dra_mr_qty(rd, x, &p->step);
                    } else
                        dra_mr_unknown_field(rd, val->keys[i], krange);
                    pop(rd, s2);
                }
                if (!has_min)
                    dra_mr_err(rd, val, "validRange.min: required field missing");
            }
        } else
            dra_mr_unknown_field(rd, v->keys[k], known);
        pop(rd, s);
    }
    return p;
}

static void rd_capacity(rd_t *rd, dra_device_t *d, const dra_ynode_t *v, const char *driver)
{
    static const char *const known[] = {"value", "requestPolicy", NULL};
    if (!dra_mr_want_map(rd, v))
        return;
    d->caps = dra_model_array(rd->m, v->n, sizeof *d->caps);
    if (!d->caps && v->n)
    {
        rd->nerr++;
        return;
    }
    d->ncaps = v->n;
    for (uint32_t k = 0; k < v->n; k++) {
        dra_capacity_t *c = &d->caps[k];
        const dra_ynode_t *val = v->vals[k];
        size_t s = pushk(rd, v->keys[k]->text);
        c->name = dra_model_strn(rd->m, v->keys[k]->text, v->keys[k]->len);
        c->qname = c->name ? dra_model_qname(rd->m, driver ? driver : "", c->name) : 0;
        if (val->type == DRA_YNODE_SCALAR && !dra_ynode_is_null(val)) {
            if (rd->api == API_V1ALPHA3)
                dra_mr_qty(rd, val, &c->value);
            else
                dra_mr_err(rd, val,
                     "expected a map with \"value\" (DeviceCapacity), got a bare quantity "
                     "\"%.40s\" (the v1alpha3 shape)",
                     val->text);
        } else if (dra_mr_want_map(rd, val)) {
            bool has_value = false;
            for (uint32_t i = 0; i < val->n; i++) {
                const char *key = val->keys[i]->text;
                size_t s2 = pushk(rd, key);
                if (K("value"))
                    has_value = dra_mr_qty(rd, val->vals[i], &c->value) || true;
                else if (K("requestPolicy"))
                    c->policy = rd_policy(rd, val->vals[i]);
                else
                    dra_mr_unknown_field(rd, val->keys[i], known);
                pop(rd, s2);
            }
            if (!has_value)
                dra_mr_err(rd, val, "value: required field missing");
        } else {
            dra_mr_err(rd, val, "capacity needs a value");
        }
        pop(rd, s);
    }
}

/* valueFrom of a consumesCounters counter (KEP-5941): {capacityName: NAME}, NAME required. */
static const char *rd_value_from(rd_t *rd, const dra_ynode_t *v)
{
    static const char *const known[] = {"capacityName", NULL};
    const char *name = NULL;
    if (!dra_mr_want_map(rd, v))
        return NULL;
    for (uint32_t i = 0; i < v->n; i++) {
        size_t s = pushk(rd, v->keys[i]->text);
        if (strcmp(v->keys[i]->text, "capacityName") == 0)
            name = dra_mr_str(rd, v->vals[i], false);
        else
            dra_mr_unknown_field(rd, v->keys[i], known);
        pop(rd, s);
    }
    if (!name || !name[0])
        dra_mr_err(rd, v, "capacityName: required field missing");
    return name;
}

/* Counters of a sharedCounters counter set (in_consumes false: value required, requestPolicy
 * optional) or of a consumesCounters entry (in_consumes: exactly one of value and valueFrom).
 * requestPolicy and valueFrom are KEP-5941's (master at 0c8a1b073dc3, 1.38-pre). */
static dra_counter_t *rd_counters(rd_t *rd, const dra_ynode_t *v, uint32_t *n, bool in_consumes)
{
    static const char *const known_set[] = {"value", "requestPolicy", NULL};
    static const char *const known_use[] = {"value", "valueFrom", NULL};
    *n = 0;
    if (!dra_mr_want_map(rd, v))
        return NULL;
    dra_counter_t *c = dra_model_array(rd->m, v->n, sizeof *c);
    if (!c && v->n)
        return rd->nerr++, NULL;
    for (uint32_t k = 0; k < v->n; k++) {
        size_t s = pushk(rd, v->keys[k]->text);
        c[k].name = dra_model_strn(rd->m, v->keys[k]->text, v->keys[k]->len);
        const dra_ynode_t *val = v->vals[k];
        if (dra_mr_want_map(rd, val)) {
            bool has_value = false, has_from = false;
            for (uint32_t i = 0; i < val->n; i++) {
                const char *key = val->keys[i]->text;
                size_t s2 = pushk(rd, key);
                if (strcmp(key, "value") == 0)
                    has_value = dra_mr_qty(rd, val->vals[i], &c[k].value) || true;
                else if (!in_consumes && strcmp(key, "requestPolicy") == 0) {
                    if (!dra_ynode_is_null(val->vals[i]))
                        c[k].policy = rd_policy(rd, val->vals[i]);
                } else if (in_consumes && strcmp(key, "valueFrom") == 0) {
                    if (!dra_ynode_is_null(val->vals[i])) {
                        has_from = true;
                        c[k].value_from = rd_value_from(rd, val->vals[i]);
                    }
                } else
                    dra_mr_unknown_field(rd, val->keys[i], in_consumes ? known_use : known_set);
                pop(rd, s2);
            }
            if (has_value && has_from) {
                dra_mr_err(rd, val, "value and valueFrom: exactly one of them may be set");
            } else if (has_from) {
                memset(&c[k].value, 0, sizeof c[k].value); /* what an allocator without it charges */
            } else if (!has_value) {
                dra_mr_err(rd, val, in_consumes ? "value or valueFrom: exactly one is required"
                                                : "value: required field missing");
            }
        } else if (dra_ynode_is_null(val)) {
            dra_mr_err(rd, val, "counter needs a value");
        }
        pop(rd, s);
    }
    *n = v->n;
    return c;
}

static void rd_consumes(rd_t *rd, dra_device_t *d, const dra_ynode_t *v)
{
    static const char *const known[] = {"counterSet", "counters", "compatibilityGroups", NULL};
    if (!dra_mr_want_seq(rd, v))
        return;
    d->consumes = dra_model_array(rd->m, v->n, sizeof *d->consumes);
    if (!d->consumes && v->n)
    {
        rd->nerr++;
        return;
    }
    d->nconsumes = v->n;
    for (uint32_t i = 0; i < v->n; i++) {
        size_t s = pushi(rd, i);
        const dra_ynode_t *e = v->vals[i];
        if (dra_mr_want_map(rd, e))
            for (uint32_t k = 0; k < e->n; k++) {
                const char *key = e->keys[k]->text;
                size_t s2 = pushk(rd, key);
                if (K("counterSet"))
                    d->consumes[i].counter_set = dra_mr_str(rd, e->vals[k], false);
                else if (K("counters"))
                    d->consumes[i].counters =
                        rd_counters(rd, e->vals[k], &d->consumes[i].ncounters, true);
                else if (K("compatibilityGroups")) {
                    /* 1.37 (KEP-5963); null and [] both mean "no groups" */
                    if (!dra_ynode_is_null(e->vals[k]))
                        d->consumes[i].groups =
                            dra_mr_strlist(rd, e->vals[k], &d->consumes[i].ngroups);
                } else
                    dra_mr_unknown_field(rd, e->keys[k], known);
                pop(rd, s2);
            }
        pop(rd, s);
    }
}

static void rd_device_fields(rd_t *rd, dra_device_t *d, const dra_ynode_t *v, const char *driver,
                             bool in_basic);

static const char *const k_device[] = {
    "name", "attributes", "capacity", "consumesCounters", "nodeName", "nodeSelector", "allNodes",
    "taints", "bindsToNode", "bindingConditions", "bindingFailureConditions",
    "allowMultipleAllocations", "nodeAllocatableResourceMappings", "basic", NULL};

static void rd_device_fields(rd_t *rd, dra_device_t *d, const dra_ynode_t *v, const char *driver,
                             bool in_basic)
{
    for (uint32_t k = 0; k < v->n; k++) {
        const char *key = v->keys[k]->text;
        const dra_ynode_t *val = v->vals[k];
        size_t s = pushk(rd, key);
        if (K("name") && !in_basic)
            d->name = dra_mr_str(rd, val, false);
        else if (K("basic") && !in_basic) {
            if (rd->api == API_V1 || rd->api == API_V1BETA2)
                dra_mr_err(rd, v->keys[k],
                     "unknown field \"basic\" (the device wrapper exists only in v1beta1 and "
                     "v1alpha3)");
            else if (dra_mr_want_map(rd, val))
                rd_device_fields(rd, d, val, driver, true);
        } else if (K("attributes")) {
            if (dra_mr_want_map(rd, val)) {
                d->attrs = dra_model_array(rd->m, val->n, sizeof *d->attrs);
                d->nattrs = d->attrs ? val->n : 0;
                for (uint32_t i = 0; i < d->nattrs; i++) {
                    size_t s2 = pushk(rd, val->keys[i]->text);
                    dra_attr_t *a = &d->attrs[i];
                    a->name = dra_model_strn(rd->m, val->keys[i]->text, val->keys[i]->len);
                    a->qname = a->name ? dra_model_qname(rd->m, driver ? driver : "", a->name) : 0;
                    rd_attr(rd, a, val->vals[i]);
                    pop(rd, s2);
                }
            }
        } else if (K("capacity"))
            rd_capacity(rd, d, val, driver);
        else if (K("consumesCounters"))
            rd_consumes(rd, d, val);
        else if (K("nodeName"))
            d->node_name = dra_mr_str(rd, val, false);
        else if (K("nodeSelector"))
            d->node_selector = dra_mr_node_selector(rd, val);
        else if (K("allNodes")) {
            if (!dra_ynode_is_null(val))
                dra_mr_bool(rd, val, &d->all_nodes);
        } else if (K("taints"))
            d->taints = dra_mr_taints(rd, val, &d->ntaints);
        else if (K("bindsToNode")) {
            if (!dra_ynode_is_null(val))
                dra_mr_bool(rd, val, &d->binds_to_node);
        } else if (K("bindingConditions"))
            d->binding_conditions = dra_mr_strlist(rd, val, &d->nbinding_conditions);
        else if (K("bindingFailureConditions"))
            d->binding_failure_conditions = dra_mr_strlist(rd, val,
                                                           &d->nbinding_failure_conditions);
        else if (K("allowMultipleAllocations")) {
            if (!dra_ynode_is_null(val))
                dra_mr_bool(rd, val, &d->allow_multiple_allocations);
        } else if (K("nodeAllocatableResourceMappings")) {
            /* 1.36 alpha, not read by the allocator */
        } else
            dra_mr_unknown_field(rd, v->keys[k], k_device);
        pop(rd, s);
    }
}

static void rd_slice(rd_t *rd, const dra_ynode_t *spec, dra_slice_t *sl)
{
    static const char *const known[] = {"driver", "pool", "nodeName", "nodeSelector", "allNodes",
                                        "perDeviceNodeSelection", "devices", "sharedCounters",
                                        "partitionTypeAttribute", "skipNodeOperations", NULL};
    static const char *const kpool[] = {"name", "generation", "resourceSliceCount", NULL};
    static const char *const kset[] = {"name", "counters", NULL};
    if (!dra_mr_want_map(rd, spec))
        return;
    /* driver first: it qualifies attribute names */
    const dra_ynode_t *drv = dra_ynode_get(spec, "driver");
    if (drv) {
        size_t s = pushk(rd, "driver");
        sl->driver = dra_mr_str(rd, drv, false);
        pop(rd, s);
    }
    for (uint32_t k = 0; k < spec->n; k++) {
        const char *key = spec->keys[k]->text;
        const dra_ynode_t *val = spec->vals[k];
        size_t s = pushk(rd, key);
        if (K("driver")) {
        } else if (K("pool")) {
            for (dra_mr_field_t f = dra_mr_fields(rd, val); dra_mr_next_field(rd, &f);) {
                if (KEY_IS(f.key, "name"))
                    sl->pool_name = dra_mr_str(rd, f.val, false);
                else if (KEY_IS(f.key, "generation"))
                    dra_mr_int(rd, f.val, &sl->generation);
                else if (KEY_IS(f.key, "resourceSliceCount"))
                    dra_mr_int(rd, f.val, &sl->slice_count);
                else
                    dra_mr_unknown_field(rd, f.keyn, kpool);
            }
        } else if (K("nodeName"))
            sl->node_name = dra_mr_str(rd, val, false);
        else if (K("nodeSelector"))
            sl->node_selector = dra_mr_node_selector(rd, val);
        else if (K("allNodes")) {
            if (!dra_ynode_is_null(val))
                dra_mr_bool(rd, val, &sl->all_nodes);
        } else if (K("perDeviceNodeSelection")) {
            if (!dra_ynode_is_null(val))
                dra_mr_bool(rd, val, &sl->per_device_node_selection);
        } else if (K("devices")) {
            if (dra_mr_want_seq(rd, val)) {
                sl->devices = dra_model_array(rd->m, val->n, sizeof *sl->devices);
                sl->ndevices = sl->devices ? val->n : 0;
                if (!sl->devices && val->n)
                    rd->nerr++;
                for (uint32_t i = 0; i < sl->ndevices; i++) {
                    size_t s2 = pushi(rd, i);
                    dra_device_t *d = &sl->devices[i];
                    dra_mr_set_pos(rd, &d->pos, val->vals[i]);
                    if (dra_mr_want_map(rd, val->vals[i]))
                        rd_device_fields(rd, d, val->vals[i], sl->driver, false);
                    pop(rd, s2);
                }
            }
        } else if (K("sharedCounters")) {
            sl->counter_sets =
                dra_mr_seq_array(rd, val, sizeof *sl->counter_sets, &sl->ncounter_sets);
            for (dra_mr_item_t e = dra_mr_items(val, sl->ncounter_sets); dra_mr_next_item(rd, &e);) {
                dra_counter_set_t *cs = &sl->counter_sets[e.i];
                for (dra_mr_field_t f = dra_mr_fields(rd, e.val); dra_mr_next_field(rd, &f);) {
                    if (KEY_IS(f.key, "name"))
                        cs->name = dra_mr_str(rd, f.val, false);
                    else if (KEY_IS(f.key, "counters"))
                        cs->counters = rd_counters(rd, f.val, &cs->ncounters, false);
                    else
                        dra_mr_unknown_field(rd, f.keyn, kset);
                }
            }
        } else if (K("skipNodeOperations")) {
            /* 1.37 alpha (DRAOptionalNodeOperations); null and [] both mean "none" */
            dra_mr_set_pos(rd, &sl->skip_node_ops_pos, val);
            if (!dra_ynode_is_null(val))
                sl->skip_node_ops = dra_mr_strlist(rd, val, &sl->nskip_node_ops);
        } else if (K("partitionTypeAttribute")) {
            /* 1.37 alpha, not used by the allocator */
        } else
            dra_mr_unknown_field(rd, spec->keys[k], known);
        pop(rd, s);
    }
}

void dra_mr_read_slice(rd_t *rd, const dra_mr_obj_t *o)
{
    dra_slice_t *sl = dra_model_add_slice(rd->m);
    if (!sl)
        return;
    sl->name = o->name;
    sl->api_version = o->api_version;
    sl->pos = o->pos;
    if (!o->spec)
        dra_mr_err(rd, o->doc, "spec: required field missing");
    rd_slice(rd, o->spec, sl);
    dra_model_slice_done(rd->m, sl);
}
