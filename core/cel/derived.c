/*
 * derived.c - derived attributes (DRADerivedAttributes, KEP-6080, Kubernetes 1.37): an
 * expression of a request evaluated per candidate device whose value is an attribute the
 * claim's matchAttribute / distinctAttribute constraints compare (cel.h).
 *
 * Compilation (cel.c) is the DRA environment with another result rule (check.c: a string, int, bool or
 * semver, or a list of these); evaluation converts the CEL value into the model's attribute
 * representation, the way upstream's EvaluateDerivedAttribute fills a DeviceAttribute (a
 * semver becomes its version text).
 */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "base/semver.h"
#include "cel_int.h"

/* The version text of a semver value (blang/semver's Version.String()). */
static const char *semver_text(dra_arena_t *a, const dra_semver_t *sv)
{
    char buf[160];
    int n = snprintf(buf, sizeof buf, "%" PRIu64 ".%" PRIu64 ".%" PRIu64, sv->major, sv->minor,
                     sv->patch);
    size_t len = n > 0 ? (size_t)n : 0;
    size_t need = len + (sv->pre_len ? sv->pre_len + 1 : 0) + (sv->build_len ? sv->build_len + 1 : 0);
    char *s = dra_arena_alloc(a, need + 1, 1);
    if (!s)
        return NULL;
    memcpy(s, buf, len);
    if (sv->pre_len) {
        s[len++] = '-';
        memcpy(s + len, sv->pre, sv->pre_len);
        len += sv->pre_len;
    }
    if (sv->build_len) {
        s[len++] = '+';
        memcpy(s + len, sv->build, sv->build_len);
        len += sv->build_len;
    }
    s[len] = 0;
    return s;
}

/* The attribute kind of one scalar CEL value; DRA_ATTR_NONE when it is no attribute value. */
static dra_attr_kind_t scalar_kind(const dra_cel_val_t *v)
{
    switch (v->kind) {
    case DRA_CEL_BOOL:
        return DRA_ATTR_BOOL;
    case DRA_CEL_INT:
        return DRA_ATTR_INT;
    case DRA_CEL_STRING:
        return DRA_ATTR_STRING;
    case DRA_CEL_SEMVER:
        return DRA_ATTR_VERSION;
    default:
        return DRA_ATTR_NONE;
    }
}

static const char *scalar_text(dra_arena_t *a, const dra_cel_val_t *v)
{
    if (v->kind == DRA_CEL_STRING)
        return dra_arena_strndup(a, v->v.s ? v->v.s : "", v->len);
    return semver_text(a, v->v.sv);
}

static int not_attr(dra_diag_t *diag, const dra_cel_val_t *v, const char *what)
{
    return dra_diag_set(diag, DRA_ERUNTIME, NULL, 0, 0,
                        "derived attribute %s of type %s: want a string, int, bool or semver, or "
                        "a list of these", what, dra_cel_kind_type_name(v));
}

static int to_attr(const dra_cel_val_t *v, dra_arena_t *a, dra_attr_t *out, dra_diag_t *diag)
{
    dra_attr_kind_t k = scalar_kind(v);
    if (k != DRA_ATTR_NONE) {
        out->kind = (uint8_t)k;
        out->count = 1;
        if (k == DRA_ATTR_BOOL)
            out->v.b = v->v.b;
        else if (k == DRA_ATTR_INT)
            out->v.i = v->v.i;
        else if (!(out->v.s = scalar_text(a, v)))
            return dra_diag_set(diag, DRA_ENOMEM, NULL, 0, 0, "out of memory");
        return DRA_OK;
    }
    if (v->kind != DRA_CEL_LIST)
        return not_attr(diag, v, "value");
    const dra_cel_list_t *l = v->v.list;
    uint32_t n = l ? l->n : 0;
    dra_attr_kind_t ek = n ? scalar_kind(&l->items[0]) : DRA_ATTR_INT;
    if (ek == DRA_ATTR_NONE)
        return not_attr(diag, &l->items[0], "list element");
    for (uint32_t i = 1; i < n; i++)
        if (scalar_kind(&l->items[i]) != ek)
            return dra_diag_set(diag, DRA_ERUNTIME, NULL, 0, 0,
                                "derived attribute list mixes %s and %s elements",
                                dra_cel_kind_type_name(&l->items[0]),
                                dra_cel_kind_type_name(&l->items[i]));
    out->count = n;
    out->kind = (uint8_t)(ek - DRA_ATTR_INT + DRA_ATTR_INTS);
    if (!n)
        return DRA_OK; /* an empty list: no value to compare, every constraint rejects it */
    if (ek == DRA_ATTR_INT) {
        int64_t *x = dra_arena_alloc(a, n * sizeof *x, _Alignof(int64_t));
        if (!x)
            return dra_diag_set(diag, DRA_ENOMEM, NULL, 0, 0, "out of memory");
        for (uint32_t i = 0; i < n; i++)
            x[i] = l->items[i].v.i;
        out->v.ints = x;
    } else if (ek == DRA_ATTR_BOOL) {
        bool *x = dra_arena_alloc(a, n * sizeof *x, _Alignof(bool));
        if (!x)
            return dra_diag_set(diag, DRA_ENOMEM, NULL, 0, 0, "out of memory");
        for (uint32_t i = 0; i < n; i++)
            x[i] = l->items[i].v.b;
        out->v.bools = x;
    } else {
        const char **x = dra_arena_alloc(a, n * sizeof *x, _Alignof(const char *));
        if (!x)
            return dra_diag_set(diag, DRA_ENOMEM, NULL, 0, 0, "out of memory");
        for (uint32_t i = 0; i < n; i++)
            if (!(x[i] = scalar_text(a, &l->items[i])))
                return dra_diag_set(diag, DRA_ENOMEM, NULL, 0, 0, "out of memory");
        out->v.strs = x;
    }
    return DRA_OK;
}

int dra_cel_eval_derived(const dra_cel_prog_t *p, const dra_model_t *m, const dra_device_t *dev,
                         dra_arena_t *out_arena, dra_attr_t *out, dra_diag_t *diag)
{
    if (!p || !m || !dev || !out_arena || !out)
        return dra_diag_set(diag, DRA_EINVAL, NULL, 0, 0, "invalid argument");
    memset(out, 0, sizeof *out);
    if (!(dev->slice && dev->slice->versions_valid)) {
        dra_diag_t why;
        dra_diag_clear(&why);
        const dra_attr_t *bad = dra_device_bad_version(dev, &why);
        if (bad) /* as for selectors: every expression on the device fails (CEL-DRA §3.2) */
            return dra_diag_set(diag, DRA_ERUNTIME, NULL, 0, 0,
                                "attribute %s: parse semantic version: %s", bad->name, why.msg);
    }
    /* the value and its copy both live in out_arena (a per-call scratch arena for the
     * allocators): no allocation of its own per evaluation */
    dra_cel_act_t act = {.model = m, .dev = dev};
    dra_cel_val_t v;
    int rc = dra_cel_eval_value(p, &act, out_arena, &v, diag);
    if (rc == DRA_OK)
        rc = to_attr(&v, out_arena, out, diag);
    return rc;
}
