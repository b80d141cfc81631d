/*
 * manifest_read_class.c - DeviceClass, and the selectors and opaque configuration that
 * claims read the same way (manifest_read_impl.h).
 */
#include <string.h>

#include "extres/extres.h"
#include "manifest_read_impl.h"

/* ---- DeviceClass ------------------------------------------------------------------------- */

dra_selector_t *dra_mr_selectors(rd_t *rd, const dra_ynode_t *v, uint32_t *n)
{
    static const char *const known[] = {"cel", NULL};
    static const char *const kcel[] = {"expression", NULL};
    *n = 0;
    if (!dra_mr_want_seq(rd, v))
        return NULL;
    dra_selector_t *sel = dra_model_array(rd->m, v->n, sizeof *sel);
    if (!sel && v->n)
        return rd->nerr++, NULL;
    for (uint32_t i = 0; i < v->n; i++) {
        size_t s = pushi(rd, i);
        const dra_ynode_t *e = v->vals[i];
        dra_mr_set_pos(rd, &sel[i].pos, e);
        if (dra_mr_want_map(rd, e)) {
            for (uint32_t k = 0; k < e->n; k++) {
                const char *key = e->keys[k]->text;
                const dra_ynode_t *val = e->vals[k];
                size_t s2 = pushk(rd, key);
                if (K("cel")) {
                    if (dra_ynode_is_null(val)) {
                        const dra_ynode_t *sib = dra_ynode_get(e, "expression");
                        if (sib)
                            dra_mr_err(rd, val,
                                 "required value: cel is null, and \"expression\" is a sibling "
                                 "of \"cel\" (mis-indented: it belongs under cel)");
                        else
                            dra_mr_err(rd, val, "required value: cel must not be null");
                    } else if (dra_mr_want_map(rd, val)) {
                        for (uint32_t j = 0; j < val->n; j++) {
                            size_t s3 = pushk(rd, val->keys[j]->text);
                            if (strcmp(val->keys[j]->text, "expression") == 0) {
                                sel[i].cel = dra_mr_str(rd, val->vals[j], false);
                                dra_mr_set_pos(rd, &sel[i].pos, val->vals[j]);
                            } else
                                dra_mr_unknown_field(rd, val->keys[j], kcel);
                            pop(rd, s3);
                        }
                        if (!sel[i].cel)
                            dra_mr_err(rd, val, "expression: required field missing");
                    }
                } else
                    dra_mr_unknown_field(rd, e->keys[k], known);
                pop(rd, s2);
            }
            if (!dra_ynode_get(e, "cel"))
                dra_mr_err(rd, e, "cel: required field missing");
        }
        pop(rd, s);
    }
    *n = v->n;
    return sel;
}

void dra_mr_opaque(rd_t *rd, dra_opaque_config_t *o, const dra_ynode_t *v)
{
    static const char *const known[] = {"driver", "parameters", NULL};
    if (!dra_mr_want_map(rd, v))
        return;
    for (uint32_t k = 0; k < v->n; k++) {
        const char *key = v->keys[k]->text;
        size_t s = pushk(rd, key);
        if (K("driver"))
            o->driver = dra_mr_str(rd, v->vals[k], false);
        else if (K("parameters"))
            o->params_json = dra_mr_params(rd, v->vals[k]);
        else
            dra_mr_unknown_field(rd, v->keys[k], known);
        pop(rd, s);
    }
    if (!o->driver)
        dra_mr_err(rd, v, "driver: required field missing");
}

static void rd_class(rd_t *rd, const dra_ynode_t *spec, dra_device_class_t *c)
{
    static const char *const known[] = {"selectors", "config", "extendedResourceName", NULL};
    static const char *const kcfg[] = {"opaque", NULL};
    if (!dra_mr_want_map(rd, spec))
        return;
    for (uint32_t k = 0; k < spec->n; k++) {
        const char *key = spec->keys[k]->text;
        const dra_ynode_t *val = spec->vals[k];
        size_t s = pushk(rd, key);
        if (K("selectors"))
            c->selectors = dra_mr_selectors(rd, val, &c->nselectors);
        else if (K("config")) {
            if (dra_mr_want_seq(rd, val)) {
                c->configs = dra_model_array(rd->m, val->n, sizeof *c->configs);
                c->nconfigs = c->configs ? val->n : 0;
                for (uint32_t i = 0; i < c->nconfigs; i++) {
                    size_t s2 = pushi(rd, i);
                    const dra_ynode_t *e = val->vals[i];
                    if (dra_mr_want_map(rd, e))
                        for (uint32_t j = 0; j < e->n; j++) {
                            size_t s3 = pushk(rd, e->keys[j]->text);
                            if (strcmp(e->keys[j]->text, "opaque") == 0)
                                dra_mr_opaque(rd, &c->configs[i].opaque, e->vals[j]);
                            else
                                dra_mr_unknown_field(rd, e->keys[j], kcfg);
                            pop(rd, s3);
                        }
                    pop(rd, s2);
                }
            }
        } else if (K("extendedResourceName"))
            c->extended_resource_name = dra_mr_str(rd, val, false);
        else
            dra_mr_unknown_field(rd, spec->keys[k], known);
        pop(rd, s);
    }
}

void dra_mr_read_class(rd_t *rd, const dra_mr_obj_t *o)
{
    dra_device_class_t *c = dra_model_add_class(rd->m);
    if (!c)
        return;
    c->name = o->name;
    c->pos = o->pos;
    /* metadata.creationTimestamp: which of two classes naming one extended resource wins */
    const dra_ynode_t *ct = dra_ynode_get(dra_ynode_get(o->doc, "metadata"), "creationTimestamp");
    if (ct && !dra_ynode_is_null(ct)) {
        pop(rd, o->spath); /* the caller pops to spath again */
        size_t s = pushk(rd, "metadata.creationTimestamp");
        c->created = dra_mr_str(rd, ct, true);
        int64_t ns;
        if (c->created && dra_extres_time_parse(c->created, &ns) != DRA_OK)
            dra_mr_err(rd, ct, "\"%.40s\" is not an RFC 3339 time (2026-01-02T03:04:05Z)",
                       c->created);
        pop(rd, s);
        pushk(rd, "spec");
    }
    rd_class(rd, o->spec, c);
}
