/*
 * manifest_read_class.c - DeviceClass (manifest_kinds.h); its selectors and opaque configuration
 * are read by the context's shared field readers (manifest_rctx.h), as claims read them.
 */
#include <string.h>

#include "manifest_kinds.h"

/* ---- DeviceClass ------------------------------------------------------------------------- */

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
    rd_class(rd, o->spec, c);
}
