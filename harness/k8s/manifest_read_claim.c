/*
 * manifest_read_claim.c - ResourceClaim (spec and status.allocation) and
 * ResourceClaimTemplate, v1 requests and the older flat ones (manifest_kinds.h).
 */
#include <string.h>

#include "extres/extres.h"
#include "manifest_kinds.h"

/* ---- ResourceClaim / ResourceClaimTemplate ---------------------------------------------- */

static const char *const k_exact[] = {"deviceClassName", "selectors",   "allocationMode",
                                      "count",           "adminAccess", "tolerations",
                                      "capacity",        "derivedAttributes", NULL};

/* derivedAttributes (1.37, KEP-6080): [{name, expression}]. */
static void rd_derived(rd_t *rd, dra_exact_request_t *r, const dra_ynode_t *v)
{
    static const char *const known[] = {"name", "expression", NULL};
    if (dra_ynode_is_null(v) || !dra_mr_want_seq(rd, v))
        return;
    r->derived = dra_model_array(rd->m, v->n, sizeof *r->derived);
    if (!r->derived && v->n) {
        rd->nerr++;
        return;
    }
    r->nderived = v->n;
    for (dra_mr_item_t e = dra_mr_items(v, v->n); dra_mr_next_item(rd, &e);) {
        dra_derived_attr_t *da = &r->derived[e.i];
        dra_mr_set_pos(rd, &da->pos, e.val);
        for (dra_mr_field_t f = dra_mr_fields(rd, e.val); dra_mr_next_field(rd, &f);) {
            if (KEY_IS(f.key, "name")) {
                da->name = dra_mr_str(rd, f.val, false);
                /* the name as written: constraints name it fully qualified */
                if (da->name && dra_intern_put(&rd->m->intern, da->name, strlen(da->name),
                                               &da->qname) != DRA_OK)
                    rd->nerr++;
            } else if (KEY_IS(f.key, "expression"))
                da->expr = dra_mr_str(rd, f.val, false);
            else
                dra_mr_unknown_field(rd, f.keyn, known);
        }
    }
}

/* One field of an ExactDeviceRequest / DeviceSubRequest. Returns false when key is not one. */
static bool rd_exact_field(rd_t *rd, dra_exact_request_t *r, const dra_ynode_t *keyn,
                           const dra_ynode_t *val, bool allow_admin)
{
    const char *key = keyn->text;
    if (K("deviceClassName"))
        r->class_name = dra_mr_str(rd, val, false);
    else if (K("selectors"))
        r->selectors = dra_mr_selectors(rd, val, &r->nselectors);
    else if (K("allocationMode")) {
        r->mode_raw = dra_mr_str(rd, val, false);
        r->mode = !r->mode_raw                               ? DRA_MODE_EXACT_COUNT
                  : strcmp(r->mode_raw, "ExactCount") == 0 ? DRA_MODE_EXACT_COUNT
                  : strcmp(r->mode_raw, "All") == 0        ? DRA_MODE_ALL
                                                           : DRA_MODE_UNKNOWN;
    } else if (K("count")) {
        if (!dra_ynode_is_null(val))
            r->has_count = dra_mr_int(rd, val, &r->count);
    } else if (K("adminAccess")) {
        if (!allow_admin)
            dra_mr_err(rd, keyn, "unknown field \"adminAccess\" (subrequests have no adminAccess)");
        else if (!dra_ynode_is_null(val))
            r->has_admin_access = dra_mr_bool(rd, val, &r->admin_access);
    } else if (K("tolerations"))
        r->tolerations = dra_mr_tolerations(rd, val, &r->ntolerations);
    else if (K("derivedAttributes"))
        rd_derived(rd, r, val);
    else if (K("capacity")) {
        static const char *const kcap[] = {"requests", NULL};
        if (dra_mr_want_map(rd, val)) {
            r->has_capacity = true;
            for (uint32_t i = 0; i < val->n; i++) {
                size_t s = pushk(rd, val->keys[i]->text);
                const dra_ynode_t *rq = val->vals[i];
                if (strcmp(val->keys[i]->text, "requests") == 0) {
                    if (dra_mr_want_map(rd, rq)) {
                        r->cap_requests = dra_model_array(rd->m, rq->n, sizeof *r->cap_requests);
                        r->ncap_requests = r->cap_requests ? rq->n : 0;
                        for (uint32_t j = 0; j < r->ncap_requests; j++) {
                            size_t s2 = pushk(rd, rq->keys[j]->text);
                            dra_cap_request_t *c = &r->cap_requests[j];
                            c->name = dra_model_strn(rd->m, rq->keys[j]->text, rq->keys[j]->len);
                            dra_mr_qty(rd, rq->vals[j], &c->value);
                            pop(rd, s2);
                        }
                    }
                } else
                    dra_mr_unknown_field(rd, val->keys[i], kcap);
                pop(rd, s);
            }
        } else if (dra_ynode_is_null(val)) {
            r->has_capacity = false;
        }
    } else
        return false;
    return true;
}

static void rd_exact(rd_t *rd, dra_exact_request_t *r, const dra_ynode_t *v, bool allow_admin,
                     bool with_name)
{
    static const char *const k_sub[] = {"name",   "deviceClassName", "selectors",
                                        "allocationMode", "count", "tolerations",
                                        "capacity", "derivedAttributes", NULL};
    dra_mr_set_pos(rd, &r->pos, v);
    if (!dra_mr_want_map(rd, v))
        return;
    for (uint32_t k = 0; k < v->n; k++) {
        size_t s = pushk(rd, v->keys[k]->text);
        if (with_name && strcmp(v->keys[k]->text, "name") == 0)
            r->name = dra_mr_str(rd, v->vals[k], false);
        else if (!rd_exact_field(rd, r, v->keys[k], v->vals[k], allow_admin))
            dra_mr_unknown_field(rd, v->keys[k], with_name ? k_sub : k_exact);
        pop(rd, s);
    }
}

static void rd_requests(rd_t *rd, dra_claim_t *c, const dra_ynode_t *v)
{
    static const char *const k_req_v1[] = {"name", "exactly", "firstAvailable", NULL};
    static const char *const k_req_old[] = {"name",  "firstAvailable", "deviceClassName",
                                            "selectors", "allocationMode", "count",
                                            "adminAccess", "tolerations", "capacity",
                                            "derivedAttributes", NULL};
    if (!dra_mr_want_seq(rd, v))
        return;
    c->requests = dra_model_array(rd->m, v->n, sizeof *c->requests);
    c->nrequests = c->requests ? v->n : 0;
    bool old = rd->api == API_V1BETA1 || rd->api == API_V1ALPHA3;
    for (uint32_t i = 0; i < c->nrequests; i++) {
        size_t s = pushi(rd, i);
        dra_request_t *r = &c->requests[i];
        const dra_ynode_t *e = v->vals[i];
        dra_mr_set_pos(rd, &r->pos, e);
        if (!dra_mr_want_map(rd, e)) {
            pop(rd, s);
            continue;
        }
        dra_exact_request_t *flat = NULL;
        for (uint32_t k = 0; k < e->n; k++) {
            const char *key = e->keys[k]->text;
            const dra_ynode_t *val = e->vals[k];
            size_t s2 = pushk(rd, key);
            if (K("name"))
                r->name = dra_mr_str(rd, val, false);
            else if (K("exactly") && !old) {
                if (!dra_ynode_is_null(val)) {
                    r->exactly = dra_model_array(rd->m, 1, sizeof *r->exactly);
                    if (r->exactly)
                        rd_exact(rd, r->exactly, val, true, false);
                }
            } else if (K("firstAvailable")) {
                r->first_available =
                    dra_mr_seq_array(rd, val, sizeof *r->first_available, &r->nfirst_available);
                for (dra_mr_item_t a = dra_mr_items(val, r->nfirst_available);
                     dra_mr_next_item(rd, &a);)
                    rd_exact(rd, &r->first_available[a.i], a.val, false, true);
            } else if (old) {
                if (!flat) {
                    flat = dra_model_array(rd->m, 1, sizeof *flat);
                    if (!flat) {
                        rd->nerr++;
                        pop(rd, s2);
                        break;
                    }
                    dra_mr_set_pos(rd, &flat->pos, e);
                }
                if (!rd_exact_field(rd, flat, e->keys[k], val, true))
                    dra_mr_unknown_field(rd, e->keys[k], k_req_old);
            } else
                dra_mr_unknown_field(rd, e->keys[k], k_req_v1);
            pop(rd, s2);
        }
        if (flat) {
            /* v1beta1/v1alpha3 flat request: its fields become `exactly` (when deviceClassName
             * is absent with firstAvailable set, the flat fields are an error the validator
             * reports as "both"). */
            r->exactly = flat;
        }
        if (r->exactly)
            r->exactly->name = r->name;
        pop(rd, s);
    }
}

static void rd_claim_spec(rd_t *rd, dra_claim_t *c, const dra_ynode_t *spec)
{
    static const char *const known[] = {"devices", NULL};
    static const char *const kdev[] = {"requests", "constraints", "config", NULL};
    static const char *const kcons[] = {"requests", "matchAttribute", "distinctAttribute", NULL};
    static const char *const kcfg[] = {"requests", "opaque", NULL};
    for (dra_mr_field_t f = dra_mr_fields(rd, spec); dra_mr_next_field(rd, &f);) {
        if (!KEY_IS(f.key, "devices")) {
            dra_mr_unknown_field(rd, f.keyn, known);
            continue;
        }
        for (dra_mr_field_t d = dra_mr_fields(rd, f.val); dra_mr_next_field(rd, &d);) {
            if (KEY_IS(d.key, "requests"))
                rd_requests(rd, c, d.val);
            else if (KEY_IS(d.key, "constraints")) {
                c->constraints =
                    dra_mr_seq_array(rd, d.val, sizeof *c->constraints, &c->nconstraints);
                for (dra_mr_item_t e = dra_mr_items(d.val, c->nconstraints);
                     dra_mr_next_item(rd, &e);) {
                    dra_constraint_t *co = &c->constraints[e.i];
                    dra_mr_set_pos(rd, &co->pos, e.val);
                    for (dra_mr_field_t x = dra_mr_fields(rd, e.val); dra_mr_next_field(rd, &x);) {
                        if (KEY_IS(x.key, "requests"))
                            co->requests = dra_mr_strlist(rd, x.val, &co->nrequests);
                        else if (KEY_IS(x.key, "matchAttribute"))
                            co->match_attribute = dra_mr_str(rd, x.val, false);
                        else if (KEY_IS(x.key, "distinctAttribute"))
                            co->distinct_attribute = dra_mr_str(rd, x.val, false);
                        else
                            dra_mr_unknown_field(rd, x.keyn, kcons);
                    }
                }
            } else if (KEY_IS(d.key, "config")) {
                c->configs = dra_mr_seq_array(rd, d.val, sizeof *c->configs, &c->nconfigs);
                for (dra_mr_item_t e = dra_mr_items(d.val, c->nconfigs); dra_mr_next_item(rd, &e);) {
                    dra_claim_config_t *cf = &c->configs[e.i];
                    for (dra_mr_field_t x = dra_mr_fields(rd, e.val); dra_mr_next_field(rd, &x);) {
                        if (KEY_IS(x.key, "requests"))
                            cf->requests = dra_mr_strlist(rd, x.val, &cf->nrequests);
                        else if (KEY_IS(x.key, "opaque"))
                            dra_mr_opaque(rd, &cf->opaque, x.val);
                        else
                            dra_mr_unknown_field(rd, x.keyn, kcfg);
                    }
                }
            } else
                dra_mr_unknown_field(rd, d.keyn, kdev);
        }
    }
}

/* A map NAME: quantity (consumedCapacity, a snapshot's counters) into *n entries. */
static dra_consumed_t *rd_qty_map(rd_t *rd, const dra_ynode_t *z, uint32_t *n)
{
    *n = 0;
    if (!dra_mr_want_map(rd, z))
        return NULL;
    dra_consumed_t *out = dra_model_array(rd->m, z->n, sizeof *out);
    *n = out ? z->n : 0;
    for (uint32_t q = 0; q < *n; q++) {
        size_t s5 = pushk(rd, z->keys[q]->text);
        out[q].name = dra_model_strn(rd->m, z->keys[q]->text, z->keys[q]->len);
        dra_mr_qty(rd, z->vals[q], &out[q].value);
        pop(rd, s5);
    }
    return out;
}

/* perDevice / perAllocation of consumedCounters: [{counterSet, counters: {NAME: QTY}}]. */
static dra_counter_set_use_t *rd_set_uses(rd_t *rd, const dra_ynode_t *v, uint32_t *n)
{
    static const char *const kuse[] = {"counterSet", "counters", NULL};
    *n = 0;
    if (dra_ynode_is_null(v))
        return NULL;
    dra_counter_set_use_t *u = dra_mr_seq_array(rd, v, sizeof *u, n);
    for (dra_mr_item_t e = dra_mr_items(v, *n); dra_mr_next_item(rd, &e);)
        for (dra_mr_field_t f = dra_mr_fields(rd, e.val); dra_mr_next_field(rd, &f);) {
            if (KEY_IS(f.key, "counterSet"))
                u[e.i].counter_set = dra_mr_str(rd, f.val, false);
            else if (KEY_IS(f.key, "counters")) {
                if (!dra_ynode_is_null(f.val))
                    u[e.i].counters = rd_qty_map(rd, f.val, &u[e.i].ncounters);
            } else
                dra_mr_unknown_field(rd, f.keyn, kuse);
        }
    return u;
}

/* consumedCounters of a result (KEP-5941): {perDevice: [...], perAllocation: [...]}; null = none. */
static const dra_counter_snapshot_t *rd_snapshot(rd_t *rd, const dra_ynode_t *v)
{
    static const char *const ksnap[] = {"perDevice", "perAllocation", NULL};
    if (dra_ynode_is_null(v) || !dra_mr_want_map(rd, v))
        return NULL;
    dra_counter_snapshot_t *sn = dra_model_array(rd->m, 1, sizeof *sn);
    if (!sn)
        return rd->nerr++, NULL;
    dra_mr_set_pos(rd, &sn->pos, v);
    for (dra_mr_field_t f = dra_mr_fields(rd, v); dra_mr_next_field(rd, &f);) {
        if (KEY_IS(f.key, "perDevice"))
            sn->per_device = rd_set_uses(rd, f.val, &sn->nper_device);
        else if (KEY_IS(f.key, "perAllocation"))
            sn->per_allocation = rd_set_uses(rd, f.val, &sn->nper_allocation);
        else
            dra_mr_unknown_field(rd, f.keyn, ksnap);
    }
    return sn;
}

/* One status.allocation.devices.results[] entry (a map; reported otherwise). */
static void rd_result(rd_t *rd, dra_allocation_t *a, uint32_t ri, const dra_ynode_t *v)
{
    static const char *const kres[] = {
        "request", "driver", "pool", "device", "adminAccess", "tolerations", "bindingConditions",
        "bindingFailureConditions", "shareID", "consumedCapacity", "skipNodeOperations",
        "consumedCounters", NULL};
    dra_result_t *r = &a->results[ri];
    for (dra_mr_field_t f = dra_mr_fields(rd, v); dra_mr_next_field(rd, &f);) {
        const char *k3 = f.key;
        const dra_ynode_t *z = f.val;
        if (strcmp(k3, "request") == 0)
            r->request = dra_mr_str(rd, z, false);
        else if (strcmp(k3, "driver") == 0)
            r->driver = dra_mr_str(rd, z, false);
        else if (strcmp(k3, "pool") == 0)
            r->pool = dra_mr_str(rd, z, false);
        else if (strcmp(k3, "device") == 0)
            r->device = dra_mr_str(rd, z, false);
        else if (strcmp(k3, "adminAccess") == 0) {
            if (!dra_ynode_is_null(z))
                dra_mr_bool(rd, z, &r->admin_access);
        } else if (strcmp(k3, "tolerations") == 0)
            r->tolerations = dra_mr_tolerations(rd, z, &r->ntolerations);
        else if (strcmp(k3, "bindingConditions") == 0)
            r->binding_conditions = dra_mr_strlist(rd, z, &r->nbinding_conditions);
        else if (strcmp(k3, "bindingFailureConditions") == 0)
            r->binding_failure_conditions = dra_mr_strlist(rd, z, &r->nbinding_failure_conditions);
        else if (strcmp(k3, "shareID") == 0)
            r->share_id = dra_mr_str(rd, z, false);
        else if (strcmp(k3, "skipNodeOperations") == 0) { /* 1.37, DRAOptionalNodeOperations */
            if (!dra_ynode_is_null(z))
                r->skip_node_ops = dra_mr_strlist(rd, z, &r->nskip_node_ops);
        }
        else if (strcmp(k3, "consumedCapacity") == 0) {
            r->consumed = rd_qty_map(rd, z, &r->nconsumed);
        } else if (strcmp(k3, "consumedCounters") == 0) {
            const dra_counter_snapshot_t *sn = rd_snapshot(rd, z);
            if (sn && !a->counters) {
                a->counters = dra_model_array(rd->m, a->nresults, sizeof *a->counters);
                if (!a->counters)
                    rd->nerr++;
            }
            if (sn && a->counters)
                a->counters[ri] = sn;
        } else
            dra_mr_unknown_field(rd, f.keyn, kres);
    }
}

/* One status.allocation.devices.config[] entry (a map; reported otherwise). */
static void rd_alloc_config(rd_t *rd, dra_alloc_config_t *cf, const dra_ynode_t *v)
{
    static const char *const kcfg[] = {"source", "requests", "opaque", NULL};
    for (dra_mr_field_t f = dra_mr_fields(rd, v); dra_mr_next_field(rd, &f);) {
        if (KEY_IS(f.key, "source")) {
            const char *src = dra_mr_str(rd, f.val, false);
            if (src && strcmp(src, "FromClaim") == 0)
                cf->source = DRA_CONFIG_FROM_CLAIM;
            else if (src && strcmp(src, "FromClass") == 0)
                cf->source = DRA_CONFIG_FROM_CLASS;
            else
                dra_mr_err(rd, f.val, "unsupported value \"%s\": must be FromClass or FromClaim",
                           src ? src : "");
        } else if (KEY_IS(f.key, "requests"))
            cf->requests = dra_mr_strlist(rd, f.val, &cf->nrequests);
        else if (KEY_IS(f.key, "opaque"))
            dra_mr_opaque(rd, &cf->opaque, f.val);
        else
            dra_mr_unknown_field(rd, f.keyn, kcfg);
    }
}

static void rd_allocation(rd_t *rd, dra_claim_t *c, const dra_ynode_t *v)
{
    static const char *const kalloc[] = {"devices", "nodeSelector", "allocationTimestamp",
                                         "controller", NULL};
    static const char *const kdev[] = {"results", "config", NULL};
    if (!dra_mr_want_map(rd, v))
        return;
    dra_allocation_t *a = dra_model_array(rd->m, 1, sizeof *a);
    if (!a)
    {
        rd->nerr++;
        return;
    }
    c->allocation = a;
    for (dra_mr_field_t f = dra_mr_fields(rd, v); dra_mr_next_field(rd, &f);) {
        if (KEY_IS(f.key, "nodeSelector"))
            a->node_selector = dra_mr_node_selector(rd, f.val);
        else if (KEY_IS(f.key, "allocationTimestamp"))
            a->allocation_timestamp = dra_mr_str(rd, f.val, false);
        else if (KEY_IS(f.key, "controller")) {
        } else if (KEY_IS(f.key, "devices")) {
            for (dra_mr_field_t d = dra_mr_fields(rd, f.val); dra_mr_next_field(rd, &d);) {
                if (KEY_IS(d.key, "results")) {
                    a->results = dra_mr_seq_array(rd, d.val, sizeof *a->results, &a->nresults);
                    for (dra_mr_item_t e = dra_mr_items(d.val, a->nresults);
                         dra_mr_next_item(rd, &e);)
                        rd_result(rd, a, e.i, e.val);
                } else if (KEY_IS(d.key, "config")) {
                    a->configs = dra_mr_seq_array(rd, d.val, sizeof *a->configs, &a->nconfigs);
                    for (dra_mr_item_t e = dra_mr_items(d.val, a->nconfigs);
                         dra_mr_next_item(rd, &e);)
                        rd_alloc_config(rd, &a->configs[e.i], e.val);
                } else
                    dra_mr_unknown_field(rd, d.keyn, kdev);
            }
        } else
            dra_mr_unknown_field(rd, f.keyn, kalloc);
    }
}

/* The metadata of a claim the scheduler made for a pod's extended resources (KEP-5004): the
 * annotation resource.kubernetes.io/extended-resource-claim "true", the controlling Pod
 * ownerReference, generateName. Other metadata is not read. */
static void rd_extended_meta(rd_t *rd, dra_claim_t *c, const dra_ynode_t *meta)
{
    const dra_ynode_t *an = dra_ynode_get(dra_ynode_get(meta, "annotations"),
                                          DRA_EXTRES_ANNOTATION);
    c->extended = an && dra_ynode_is_scalar(an) && strcmp(an->text, "true") == 0;
    if (!c->extended)
        return;
    const dra_ynode_t *gn = dra_ynode_get(meta, "generateName");
    if (gn && dra_ynode_is_scalar(gn) && !dra_ynode_is_null(gn))
        c->generate_name = dra_model_strn(rd->m, gn->text, gn->len);
    const dra_ynode_t *ors = dra_ynode_get(meta, "ownerReferences");
    for (uint32_t i = 0; ors && dra_ynode_is_seq(ors) && i < ors->n; i++) {
        const dra_ynode_t *o = ors->vals[i];
        const dra_ynode_t *kind = dra_ynode_get(o, "kind");
        const dra_ynode_t *ctl = dra_ynode_get(o, "controller");
        const dra_ynode_t *nm = dra_ynode_get(o, "name");
        const dra_ynode_t *uid = dra_ynode_get(o, "uid");
        bool controller = false;
        if (!kind || !dra_ynode_is_scalar(kind) || strcmp(kind->text, "Pod") != 0 || !ctl ||
            dra_ynode_bool(ctl, NULL, NULL, &controller, NULL) != DRA_OK || !controller || !nm ||
            !dra_ynode_is_scalar(nm))
            continue;
        c->owner_pod = dra_model_strn(rd->m, nm->text, nm->len);
        if (uid && dra_ynode_is_scalar(uid) && !dra_ynode_is_null(uid))
            c->owner_uid = dra_model_strn(rd->m, uid->text, uid->len);
        break;
    }
}

void dra_mr_read_claim(rd_t *rd, const dra_mr_obj_t *o, bool is_template)
{
    dra_claim_t *c = is_template ? dra_model_add_template(rd->m) : dra_model_add_claim(rd->m);
    if (!c)
        return;
    const dra_ynode_t *spec = o->spec;
    c->name = o->name;
    c->namespace_ = o->ns ? o->ns : "default";
    c->is_template = is_template;
    c->api_version = o->api_version;
    c->pos = o->pos;
    if (is_template) {
        static const char *const kt[] = {"spec", "metadata", NULL};
        if (dra_mr_want_map(rd, spec))
            for (uint32_t i = 0; i < spec->n; i++) {
                size_t s2 = pushk(rd, spec->keys[i]->text);
                if (strcmp(spec->keys[i]->text, "spec") == 0)
                    rd_claim_spec(rd, c, spec->vals[i]);
                else if (strcmp(spec->keys[i]->text, "metadata") != 0)
                    dra_mr_unknown_field(rd, spec->keys[i], kt);
                pop(rd, s2);
            }
    } else {
        rd_claim_spec(rd, c, spec);
        rd_extended_meta(rd, c, dra_ynode_get(o->doc, "metadata"));
        const dra_ynode_t *st = dra_ynode_get(o->doc, "status");
        const dra_ynode_t *al = dra_ynode_get(st, "allocation");
        if (al && !dra_ynode_is_null(al)) {
            pop(rd, o->spath);
            pushk(rd, "status.allocation"); /* the caller pops to spath */
            rd_allocation(rd, c, al);
        }
    }
}
