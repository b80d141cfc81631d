/*
 * taintrule.c - DeviceTaintRule reader and the tracker's patching of device taints
 * (see taintrule.h).
 */
#include "taintrule.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "manifest.h"
#include "ydoc.h"

void dra_taint_rules_init(dra_taint_rules_t *r)
{
    memset(r, 0, sizeof *r);
}

void dra_taint_rules_fini(dra_taint_rules_t *r)
{
    free(r->items);
    memset(r, 0, sizeof *r);
}

typedef struct rd {
    dra_taint_rules_t *r;
    dra_model_t *m;
    const char *file; /* model-arena copy */
    dra_diag_list_t *errs;
    int rc;
} rd_t;

static void rerr(rd_t *rd, const dra_ynode_t *at, const char *name, const char *fmt, ...)
    DRA_PRINTF(4, 5);
static void rerr(rd_t *rd, const dra_ynode_t *at, const char *name, const char *fmt, ...)
{
    char msg[400];
    va_list ap;
    va_start(ap, fmt);
    dra_msg_vformat(msg, sizeof msg, fmt, ap);
    va_end(ap);
    if (rd->errs &&
        dra_diag_list_add(rd->errs, DRA_EVALIDATE, rd->file, at ? at->line : 0,
                          at ? at->column : 0, "DeviceTaintRule/%s: %s", name ? name : "?",
                          msg) != DRA_OK)
        rd->rc = DRA_ENOMEM;
    if (rd->rc == DRA_OK)
        rd->rc = DRA_EVALIDATE;
}

/* Unknown keys of a map are errors (strict field validation, as the API server). */
static void check_keys(rd_t *rd, const dra_ynode_t *map, const char *name, const char *path,
                       const char *const *known)
{
    for (uint32_t i = 0; i < map->n; i++) {
        bool ok = false;
        for (size_t k = 0; known[k] && !ok; k++)
            ok = strcmp(map->keys[i]->text, known[k]) == 0;
        if (!ok) {
            char buf[300];
            snprintf(buf, sizeof buf, "%s.%s", path, map->keys[i]->text);
            rerr(rd, map->keys[i], name, "%s: unknown field", buf);
        }
    }
}

/* An optional string field: NULL when absent or null. */
static const char *opt_str(rd_t *rd, const dra_ynode_t *parent, const char *key, const char *name,
                           const char *path)
{
    const dra_ynode_t *v = dra_ynode_get(parent, key);
    if (!v || dra_ynode_is_null(v))
        return NULL;
    if (!dra_ynode_is_scalar(v) || dra_ynode_scalar_kind(v) != DRA_YSCALAR_STRING) {
        rerr(rd, v, name, "%s: expected a string", path);
        return NULL;
    }
    const char *s = dra_model_str(rd->m, v->text);
    if (!s)
        rd->rc = DRA_ENOMEM;
    return s;
}

static dra_taint_effect_t effect_of(const char *s)
{
    if (strcmp(s, "NoSchedule") == 0)
        return DRA_EFFECT_NO_SCHEDULE;
    if (strcmp(s, "NoExecute") == 0)
        return DRA_EFFECT_NO_EXECUTE;
    return DRA_EFFECT_NONE; /* "None" or a future effect: does not block */
}

static int push_rule(dra_taint_rules_t *r, const dra_taint_rule_t *t)
{
    if (r->n == r->cap) {
        uint32_t nc = r->cap ? r->cap * 2 : 8;
        dra_taint_rule_t *nv = realloc(r->items, nc * sizeof *nv);
        if (!nv)
            return DRA_ENOMEM;
        r->items = nv;
        r->cap = nc;
    }
    r->items[r->n++] = *t;
    return DRA_OK;
}

static void rd_rule(rd_t *rd, const dra_ynode_t *doc)
{
    static const char *const k_top[] = {"apiVersion", "kind", "metadata", "spec", "status", NULL};
    static const char *const k_spec[] = {"deviceSelector", "taint", NULL};
    static const char *const k_sel[] = {"deviceClassName", "driver", "pool", "device", "selectors",
                                        NULL};
    static const char *const k_taint[] = {"key", "value", "effect", "timeAdded", NULL};
    dra_taint_rule_t t;
    memset(&t, 0, sizeof t);
    t.pos.file = rd->file;
    t.pos.line = doc->line;
    t.pos.column = doc->column;
    const dra_ynode_t *meta = dra_ynode_get(doc, "metadata");
    const dra_ynode_t *nm = dra_ynode_get(meta, "name");
    const char *name = nm && dra_ynode_is_scalar(nm) && !dra_ynode_is_null(nm) ? nm->text : NULL;
    int rc0 = rd->rc;
    rd->rc = DRA_OK;
    check_keys(rd, doc, name, "", k_top);
    const char *apiv = opt_str(rd, doc, "apiVersion", name, "apiVersion");
    if (!apiv || strncmp(apiv, "resource.k8s.io/", 16) != 0)
        rerr(rd, doc, name, "apiVersion: \"%s\" is not resource.k8s.io/*", apiv ? apiv : "");
    if (!name)
        rerr(rd, meta ? meta : doc, name, "%s: required field missing", "metadata.name");
    else if (!(t.name = dra_model_str(rd->m, name)))
        rd->rc = DRA_ENOMEM;
    const dra_ynode_t *spec = dra_ynode_get(doc, "spec");
    if (!dra_ynode_is_map(spec)) {
        rerr(rd, spec ? spec : doc, name, "%s: required map missing", "spec");
        goto out;
    }
    check_keys(rd, spec, name, "spec", k_spec);
    const dra_ynode_t *sel = dra_ynode_get(spec, "deviceSelector");
    if (sel && !dra_ynode_is_null(sel)) {
        t.has_selector = true;
        if (!dra_ynode_is_map(sel)) {
            rerr(rd, sel, name, "%s: expected a map", "spec.deviceSelector");
        } else {
            check_keys(rd, sel, name, "spec.deviceSelector", k_sel);
            t.class_name = opt_str(rd, sel, "deviceClassName", name, "spec.deviceSelector.deviceClassName");
            t.driver = opt_str(rd, sel, "driver", name, "spec.deviceSelector.driver");
            t.pool = opt_str(rd, sel, "pool", name, "spec.deviceSelector.pool");
            t.device = opt_str(rd, sel, "device", name, "spec.deviceSelector.device");
            const dra_ynode_t *ss = dra_ynode_get(sel, "selectors");
            if (ss && !dra_ynode_is_null(ss)) {
                if (!dra_ynode_is_seq(ss)) {
                    rerr(rd, ss, name, "%s: expected a list", "spec.deviceSelector.selectors");
                } else if (ss->n) {
                    t.selectors = dra_model_array(rd->m, ss->n, sizeof *t.selectors);
                    if (!t.selectors) {
                        rd->rc = DRA_ENOMEM;
                        goto out;
                    }
                    for (uint32_t i = 0; i < ss->n; i++) {
                        const dra_ynode_t *cel = dra_ynode_get(ss->vals[i], "cel");
                        const char *e = opt_str(rd, cel, "expression", name,
                                                "spec.deviceSelector.selectors[].cel.expression");
                        if (!e)
                            rerr(rd, ss->vals[i], name, "%s: required field missing",
                                 "spec.deviceSelector.selectors[].cel.expression");
                        else
                            t.selectors[t.nselectors++] = e;
                    }
                }
            }
        }
    }
    const dra_ynode_t *taint = dra_ynode_get(spec, "taint");
    if (!dra_ynode_is_map(taint)) {
        rerr(rd, taint ? taint : spec, name, "%s: required map missing", "spec.taint");
        goto out;
    }
    check_keys(rd, taint, name, "spec.taint", k_taint);
    t.taint.key = opt_str(rd, taint, "key", name, "spec.taint.key");
    t.taint.value = opt_str(rd, taint, "value", name, "spec.taint.value");
    t.taint.effect_raw = opt_str(rd, taint, "effect", name, "spec.taint.effect");
    t.taint.time_added = opt_str(rd, taint, "timeAdded", name, "spec.taint.timeAdded");
    if (!t.taint.key || !*t.taint.key)
        rerr(rd, taint, name, "%s: required field missing", "spec.taint.key");
    else if (!dra_name_is_label_key(t.taint.key))
        rerr(rd, dra_ynode_get(taint, "key"), name, "spec.taint.key: \"%s\" is not a label key",
             t.taint.key);
    if (t.taint.value && !dra_name_is_label_value(t.taint.value))
        rerr(rd, dra_ynode_get(taint, "value"), name,
             "spec.taint.value: \"%s\" is not a label value (at most 63 of [A-Za-z0-9-_.], "
             "beginning and ending with a letter or digit)",
             t.taint.value);
    if (!t.taint.effect_raw || !*t.taint.effect_raw)
        rerr(rd, taint, name, "%s: required field missing", "spec.taint.effect");
    else
        t.taint.effect = effect_of(t.taint.effect_raw);
out:
    if (rd->rc == DRA_OK)
        rd->rc = push_rule(rd->r, &t);
    if (rc0 != DRA_OK && rd->rc != DRA_ENOMEM)
        rd->rc = rc0;
}

static void rd_object(rd_t *rd, const dra_ynode_t *doc, int depth)
{
    const dra_ynode_t *k = dra_ynode_get(doc, "kind");
    const char *kind = k && dra_ynode_is_scalar(k) ? k->text : NULL;
    if (!kind)
        return; /* not an object: the manifest reader reports it */
    size_t kl = strlen(kind);
    const dra_ynode_t *items = dra_ynode_get(doc, "items");
    if (items && dra_ynode_is_seq(items) && depth < 2 &&
        (strcmp(kind, "List") == 0 || (kl > 4 && strcmp(kind + kl - 4, "List") == 0))) {
        for (uint32_t i = 0; i < items->n && rd->rc != DRA_ENOMEM; i++)
            if (dra_ynode_is_map(items->vals[i]))
                rd_object(rd, items->vals[i], depth + 1);
        return;
    }
    if (strcmp(kind, "DeviceTaintRule") == 0)
        rd_rule(rd, doc);
}

static int on_doc(const dra_ynode_t *root, void *ud)
{
    rd_t *rd = ud;
    if (dra_ynode_is_map(root))
        rd_object(rd, root, 0);
    return rd->rc == DRA_ENOMEM ? DRA_ENOMEM : DRA_OK;
}

int dra_taint_rules_read_buffer(dra_taint_rules_t *r, dra_model_t *m, const char *file,
                                const char *buf, size_t len, dra_diag_list_t *errs)
{
    rd_t rd = {.r = r, .m = m, .file = dra_model_str(m, file ? file : "-"), .errs = errs};
    if (!rd.file)
        return DRA_ENOMEM;
    dra_arena_t ya;
    dra_arena_init(&ya, 0);
    int rc = dra_ydoc_parse_file_buf(buf, len, rd.file, &ya, DRA_YDOC_RESET_PER_DOC, on_doc, &rd,
                                     errs);
    dra_arena_fini(&ya);
    if (rc != DRA_OK)
        return rc;
    return rd.rc;
}

static int eval_all(const dra_model_t *m, dra_cel_cache_t *cel, dra_arena_t *scratch,
                    const dra_device_t *d, const dra_selector_t *sels, const char *const *exprs,
                    uint32_t n, const char *what, bool *match, dra_diag_t *diag)
{
    *match = true;
    for (uint32_t i = 0; i < n && *match; i++) {
        const char *src = sels ? sels[i].cel : exprs[i];
        if (!src)
            continue; /* a class selector without cel (future selector type) */
        const dra_cel_prog_t *prog = NULL;
        dra_diag_t cd;
        dra_diag_clear(&cd);
        int rc = dra_cel_cache_get(cel, src, &prog, &cd);
        if (rc == DRA_ENOMEM)
            return rc;
        if (rc != DRA_OK)
            return dra_diag_set(diag, DRA_ECOMPILE, NULL, 0, 0,
                                "%s: selector #%u: CEL compile error: %s", what, i, cd.msg);
        bool mt = false;
        rc = dra_cel_eval_device(prog, m, d, scratch, &mt, &cd);
        if (rc == DRA_ENOMEM)
            return rc;
        *match = rc == DRA_OK && mt; /* a runtime error: the rule does not apply */
    }
    return DRA_OK;
}

int dra_taint_rule_matches(const dra_taint_rule_t *t, const dra_model_t *m, dra_cel_cache_t *cel,
                           const dra_alloc_features_t *f, dra_arena_t *scratch,
                           const dra_device_t *d, bool *match, dra_diag_t *diag)
{
    *match = false;
    if (!t->has_selector && f->release >= DRA_RELEASE_1_38_PRE)
        return DRA_OK; /* #141648: a rule without deviceSelector selects nothing */
    const dra_slice_t *s = d->slice;
    if (t->driver && (!s || !s->driver || strcmp(t->driver, s->driver) != 0))
        return DRA_OK;
    if (t->pool && (!s || !s->pool_name || strcmp(t->pool, s->pool_name) != 0))
        return DRA_OK;
    if (t->device && (!d->name || strcmp(t->device, d->name) != 0))
        return DRA_OK;
    bool mt = true;
    char what[300];
    if (t->class_name) {
        const dra_device_class_t *cls = dra_model_find_class(m, t->class_name);
        if (!cls)
            return DRA_OK; /* upstream: the rule does not apply while the class is missing */
        snprintf(what, sizeof what, "DeviceTaintRule %s: class %s", t->name ? t->name : "?",
                 t->class_name);
        int rc = eval_all(m, cel, scratch, d, cls->selectors, NULL, cls->nselectors, what, &mt,
                          diag);
        if (rc || !mt)
            return rc;
    }
    snprintf(what, sizeof what, "DeviceTaintRule %s", t->name ? t->name : "?");
    int rc = eval_all(m, cel, scratch, d, NULL, t->selectors, t->nselectors, what, &mt, diag);
    if (rc)
        return rc;
    *match = mt;
    return DRA_OK;
}

int dra_taint_rules_apply(const dra_taint_rules_t *r, dra_model_t *m, dra_cel_cache_t *cel,
                          const dra_alloc_features_t *f, uint32_t *ntainted, dra_diag_t *diag)
{
    uint32_t hits = 0;
    int rc = DRA_OK;
    dra_arena_t scratch;
    dra_arena_init(&scratch, 0);
    for (uint32_t si = 0; si < m->nslices && rc == DRA_OK; si++) {
        dra_slice_t *s = m->slices[si];
        for (uint32_t di = 0; di < s->ndevices && rc == DRA_OK; di++) {
            dra_device_t *d = &s->devices[di];
            for (uint32_t ri = 0; ri < r->n; ri++) {
                bool mt = false;
                rc = dra_taint_rule_matches(&r->items[ri], m, cel, f, &scratch, d, &mt, diag);
                if (rc != DRA_OK)
                    break;
                if (!mt)
                    continue;
                dra_taint_t *nt = dra_model_array(m, (size_t)d->ntaints + 1, sizeof *nt);
                if (!nt) {
                    rc = DRA_ENOMEM;
                    break;
                }
                if (d->ntaints)
                    memcpy(nt, d->taints, d->ntaints * sizeof *nt);
                nt[d->ntaints] = r->items[ri].taint;
                d->taints = nt;
                d->ntaints++;
                hits++;
            }
        }
    }
    dra_arena_fini(&scratch);
    if (ntainted)
        *ntainted = hits;
    return rc;
}

bool dra_taint_rules_enabled(const dra_alloc_features_t *f)
{
    if (f->release <= DRA_RELEASE_1_34)
        return dra_alloc_gate_on(f, DRA_GATE_DEVICE_TAINTS);
    return dra_alloc_gate_on(f, DRA_GATE_DEVICE_TAINT_RULES);
}
