/*
 * device.c - the DRA device views the evaluator hands out instead of maps: `device`,
 * `device.attributes` / `device.capacity` (domain -> map) and one domain's map, read lazily from
 * the model; dra_cel_dev_lookup reads one attribute or capacity, dra_cel_materialize turns a view
 * into a real map (equality, printing, generic functions), dra_cel_attr_value converts a model
 * attribute to a CEL value. Values live in the context's arena or point into the model.
 */
#include <string.h>

#include "cel_int.h"

/* ---- device views ---------------------------------------------------------------------------- */

static const char *qname_str(const dra_cel_ctx_t *c, uint32_t q, uint32_t *len)
{
    const dra_intern_t *in = &c->act->model->intern;
    *len = dra_intern_len(in, q);
    return dra_intern_str(in, q);
}

/* Domain part of an interned qualified name (split at the first '/'). */
static void split_q(const char *s, uint32_t len, uint32_t *dlen)
{
    const char *sl = memchr(s, '/', len);
    *dlen = sl ? (uint32_t)(sl - s) : 0;
}

static uint32_t dev_count(const dra_cel_ctx_t *c, bool cap)
{
    return cap ? c->act->dev->ncaps : c->act->dev->nattrs;
}

static uint32_t dev_qname(const dra_cel_ctx_t *c, bool cap, uint32_t i)
{
    return cap ? c->act->dev->caps[i].qname : c->act->dev->attrs[i].qname;
}

dra_cel_val_t dra_cel_attr_value(dra_cel_ctx_t *c, const dra_attr_t *at)
{
    dra_cel_val_t v = {0};
    switch (at->kind) {
    case DRA_ATTR_INT:
        return dra_cel_int(at->v.i);
    case DRA_ATTR_BOOL:
        return dra_cel_bool(at->v.b);
    case DRA_ATTR_STRING:
        return dra_cel_str(at->v.s ? at->v.s : "", at->v.s ? strlen(at->v.s) : 0);
    case DRA_ATTR_VERSION: {
        dra_semver_t *sv = dra_arena_alloc(c->a, sizeof *sv, 8);
        if (!sv) {
            c->oom = true;
            return dra_cel_err(c, "out of memory");
        }
        dra_diag_t d;
        dra_diag_clear(&d);
        const char *s = at->v.s ? at->v.s : "";
        if (dra_semver_parse(s, strlen(s), false, sv, &d) != DRA_OK)
            return dra_cel_err(c, "attribute %s: parse semantic version: %s", at->name, d.msg);
        v.kind = DRA_CEL_SEMVER;
        v.v.sv = sv;
        return v;
    }
    case DRA_ATTR_INTS:
    case DRA_ATTR_BOOLS:
    case DRA_ATTR_STRINGS:
    case DRA_ATTR_VERSIONS: {
        dra_cel_list_t *l = dra_arena_alloc(c->a, sizeof *l, 8);
        dra_cel_val_t *items = dra_arena_alloc(c->a, (at->count ? at->count : 1) * sizeof *items, 8);
        if (!l || !items) {
            c->oom = true;
            return dra_cel_err(c, "out of memory");
        }
        for (uint32_t i = 0; i < at->count; i++) {
            if (at->kind == DRA_ATTR_INTS) {
                items[i] = dra_cel_int(at->v.ints[i]);
            } else if (at->kind == DRA_ATTR_BOOLS) {
                items[i] = dra_cel_bool(at->v.bools[i]);
            } else if (at->kind == DRA_ATTR_STRINGS) {
                const char *s = at->v.strs[i] ? at->v.strs[i] : "";
                items[i] = dra_cel_str(s, strlen(s));
            } else {
                dra_semver_t *sv = dra_arena_alloc(c->a, sizeof *sv, 8);
                if (!sv) {
                    c->oom = true;
                    return dra_cel_err(c, "out of memory");
                }
                dra_diag_t d;
                dra_diag_clear(&d);
                const char *s = at->v.strs[i] ? at->v.strs[i] : "";
                if (dra_semver_parse(s, strlen(s), false, sv, &d) != DRA_OK)
                    return dra_cel_err(c, "attribute %s: parse semantic version: %s", at->name,
                                       d.msg);
                items[i].kind = DRA_CEL_SEMVER;
                items[i].v.sv = sv;
            }
        }
        l->n = at->count;
        l->cap = 0;
        l->items = items;
        v.kind = DRA_CEL_LIST;
        v.v.list = l;
        return v;
    }
    default:
        return dra_cel_err(c, "attribute %s has no value", at->name);
    }
}

/* Look up id in domain dom of the device (attributes or capacity). found=false when absent. */
dra_cel_val_t dra_cel_dev_lookup(dra_cel_ctx_t *c, bool cap, const char *dom, uint32_t dlen,
                                 const char *id, uint32_t idlen, bool *found)
{
    *found = false;
    dra_cel_val_t none = {0};
    if (!c->act->dev || memchr(dom, '/', dlen))
        return none;
    char stack[256];
    size_t ql = (size_t)dlen + 1 + idlen;
    char *q = ql <= sizeof stack ? stack : dra_arena_alloc(c->a, ql, 1);
    if (!q) {
        c->oom = true;
        return dra_cel_err(c, "out of memory");
    }
    memcpy(q, dom, dlen);
    q[dlen] = '/';
    memcpy(q + dlen + 1, id, idlen);
    uint32_t qid = dra_intern_find(&c->act->model->intern, q, ql);
    if (!qid)
        return none;
    if (cap) {
        const dra_capacity_t *k = dra_device_capacity(c->act->dev, qid);
        if (!k)
            return none;
        *found = true;
        dra_cel_val_t v = {.kind = DRA_CEL_QUANTITY};
        v.v.q = &k->value;
        return v;
    }
    const dra_attr_t *at = dra_device_attr(c->act->dev, qid);
    if (!at)
        return none;
    *found = true;
    return dra_cel_attr_value(c, at);
}

/* Turn a device view into a real map (for equality, printing and generic functions). */
dra_cel_val_t dra_cel_materialize(dra_cel_ctx_t *c, const dra_cel_val_t *v)
{
    if (v->kind != DRA_CEL_DOMAINS && v->kind != DRA_CEL_DOMAIN && v->kind != DRA_CEL_DEVICE)
        return *v;
    if (!c->act->dev)
        return dra_cel_err(c, "no device");
    dra_cel_map_t *m = dra_arena_alloc(c->a, sizeof *m, 8);
    if (!m) {
        c->oom = true;
        return dra_cel_err(c, "out of memory");
    }
    memset(m, 0, sizeof *m);
    uint32_t cap = 8;
    m->keys = dra_arena_alloc(c->a, cap * sizeof *m->keys, 8);
    m->vals = dra_arena_alloc(c->a, cap * sizeof *m->vals, 8);
    if (!m->keys || !m->vals) {
        c->oom = true;
        return dra_cel_err(c, "out of memory");
    }
#define PUT(K, V)                                                                                  \
    do {                                                                                           \
        if (m->n == cap) {                                                                         \
            dra_cel_val_t *nk = dra_arena_alloc(c->a, cap * 2 * sizeof *nk, 8);                    \
            dra_cel_val_t *nv = dra_arena_alloc(c->a, cap * 2 * sizeof *nv, 8);                    \
            if (!nk || !nv) {                                                                      \
                c->oom = true;                                                                     \
                return dra_cel_err(c, "out of memory");                                            \
            }                                                                                      \
            memcpy(nk, m->keys, m->n * sizeof *nk);                                                \
            memcpy(nv, m->vals, m->n * sizeof *nv);                                                \
            m->keys = nk;                                                                          \
            m->vals = nv;                                                                          \
            cap *= 2;                                                                              \
        }                                                                                          \
        m->keys[m->n] = (K);                                                                       \
        m->vals[m->n] = (V);                                                                       \
        m->n++;                                                                                    \
    } while (0)
    dra_cel_val_t out = {.kind = DRA_CEL_MAP};
    if (v->kind == DRA_CEL_DEVICE) {
        const char *drv = c->act->dev->slice && c->act->dev->slice->driver ? c->act->dev->slice->driver : "";
        dra_cel_val_t a = {.kind = DRA_CEL_DOMAINS, .sub = 0}, k = {.kind = DRA_CEL_DOMAINS, .sub = 1};
        PUT(dra_cel_str("driver", 6), dra_cel_str(drv, strlen(drv)));
        PUT(dra_cel_str("attributes", 10), dra_cel_materialize(c, &a));
        PUT(dra_cel_str("capacity", 8), dra_cel_materialize(c, &k));
        PUT(dra_cel_str("allowMultipleAllocations", 24),
            dra_cel_bool(c->act->dev->allow_multiple_allocations));
        out.v.map = m;
        return out;
    }
    bool capm = v->sub == 1;
    uint32_t n = dev_count(c, capm);
    for (uint32_t i = 0; i < n; i++) {
        uint32_t ql, dl;
        const char *q = qname_str(c, dev_qname(c, capm, i), &ql);
        if (!q)
            continue;
        split_q(q, ql, &dl);
        if (v->kind == DRA_CEL_DOMAINS) {
            bool seen = false;
            for (uint32_t j = 0; j < m->n && !seen; j++)
                seen = m->keys[j].len == dl && !memcmp(m->keys[j].v.s, q, dl);
            if (seen)
                continue;
            dra_cel_val_t d = {.kind = DRA_CEL_DOMAIN, .sub = v->sub, .len = dl};
            d.v.s = q;
            PUT(dra_cel_str(q, dl), dra_cel_materialize(c, &d));
        } else {
            if (dl != v->len || memcmp(q, v->v.s, dl))
                continue;
            dra_cel_val_t val;
            if (capm) {
                val.kind = DRA_CEL_QUANTITY;
                val.v.q = &c->act->dev->caps[i].value;
            } else {
                val = dra_cel_attr_value(c, &c->act->dev->attrs[i]);
                if (val.kind == DRA_CEL_ERROR)
                    return val;
            }
            PUT(dra_cel_str(q + dl + 1, ql - dl - 1), val);
        }
    }
#undef PUT
    out.v.map = m;
    return out;
}

