/*
 * manifest_read_class.c - DeviceClass (manifest_kinds.h); its selectors and opaque configuration
 * are read by the context's shared field readers (manifest_rctx.h), as claims read them.
 */
#include <string.h>

#include "extres/extres.h"
#include "manifest_kinds.h"

/* ---- DeviceClass ------------------------------------------------------------------------- */

static void rd_class(rd_t *rd, const dra_ynode_t *spec, dra_device_class_t *c)
{
    static const char *const known[] = {"selectors", "config", "extendedResourceName", NULL};
    static const char *const kcfg[] = {"opaque", NULL};
    for (dra_mr_field_t f = dra_mr_fields(rd, spec); dra_mr_next_field(rd, &f);) {
        if (KEY_IS(f.key, "selectors"))
            c->selectors = dra_mr_selectors(rd, f.val, &c->nselectors);
        else if (KEY_IS(f.key, "config")) {
            c->configs = dra_mr_seq_array(rd, f.val, sizeof *c->configs, &c->nconfigs);
            for (dra_mr_item_t e = dra_mr_items(f.val, c->nconfigs); dra_mr_next_item(rd, &e);)
                for (dra_mr_field_t x = dra_mr_fields(rd, e.val); dra_mr_next_field(rd, &x);) {
                    if (KEY_IS(x.key, "opaque"))
                        dra_mr_opaque(rd, &c->configs[e.i].opaque, x.val);
                    else
                        dra_mr_unknown_field(rd, x.keyn, kcfg);
                }
        } else if (KEY_IS(f.key, "extendedResourceName"))
            c->extended_resource_name = dra_mr_str(rd, f.val, false);
        else
            dra_mr_unknown_field(rd, f.keyn, known);
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
