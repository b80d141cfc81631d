/*
 * eval.c - tree-walking CEL evaluator: error values, commutative && / || with error absorption,
 * comprehensions, optional selection, DEVREF reads and the runtime cost budget. Library
 * functions are in lib.c, the device views (device, device.attributes, device.attributes["d"])
 * in device.c, error values, equality and ordering in value.c.
 *
 * Values are 16-byte dra_cel_val_t; anything they point to lives in the context's arena (the
 * caller's scratch arena), the program's arena (constants) or the model (attribute strings,
 * capacities). No malloc per evaluation once the arena has warmed up.
 */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cel_int.h"

static dra_cel_val_t cost_err(dra_cel_ctx_t *c)
{
    dra_cel_val_t v = {.kind = DRA_CEL_ERROR, .sub = 1};
    (void)c;
    v.v.s = DRA_CEL_COST_ERR_MSG;
    v.len = (uint32_t)strlen(DRA_CEL_COST_ERR_MSG);
    return v;
}

static inline bool charge(dra_cel_ctx_t *c, uint64_t units)
{
    c->cost += units;
    return c->cost <= c->cost_limit;
}

/* Map-literal keys equal as Go values (cel-go's map[ref.Val]ref.Val): same kind, same value;
 * 1 and 1u are different keys. */
static bool same_key(const dra_cel_val_t *a, const dra_cel_val_t *b)
{
    if (a->kind != b->kind)
        return false;
    switch (a->kind) {
    case DRA_CEL_BOOL: return a->v.b == b->v.b;
    case DRA_CEL_INT: return a->v.i == b->v.i;
    case DRA_CEL_UINT: return a->v.u == b->v.u;
    case DRA_CEL_STRING: return a->len == b->len && !memcmp(a->v.s, b->v.s, a->len);
    default: return false;
    }
}

/* ---- evaluation ----------------------------------------------------------------------------- */

static dra_cel_val_t eval(dra_cel_ctx_t *c, const dra_cel_expr_t *e);

static dra_cel_val_t mk_opt(dra_cel_ctx_t *c, const dra_cel_val_t *x)
{
    dra_cel_val_t v = {.kind = DRA_CEL_OPTIONAL};
    if (x) {
        dra_cel_val_t *p = dra_arena_alloc(c->a, sizeof *p, 8);
        if (!p) {
            c->oom = true;
            return dra_cel_err(c, "out of memory");
        }
        *p = *x;
        v.v.opt = p;
    }
    return v;
}

static dra_cel_val_t no_such_key(dra_cel_ctx_t *c, const char *f, uint32_t flen)
{
    return dra_cel_err(c, "no such key: %.*s", (int)flen, f);
}

/* Field selection / string-key lookup on a value. *found=false means "no such key" (v unset).
 * As cel-go's qualifier (refQualify): a map is a key lookup; a list cannot be indexed by a
 * string (an error even in presence tests); any other value has no keys at all, so `.f` on it is
 * "no such key: f" while has() / `.?f` answer absent. The standard (conformance) environment
 * makes those presence tests the error too, as cel-go's EnableErrorOnBadPresenceTest, which
 * cel-spec's conformance suite expects and Kubernetes does not set. */
static dra_cel_val_t select_field(dra_cel_ctx_t *c, const dra_cel_val_t *o, const char *f,
                                  uint32_t flen, bool *found)
{
    *found = true;
    switch (o->kind) {
    case DRA_CEL_MAP: {
        dra_cel_val_t k = dra_cel_str(f, flen);
        int i = dra_cel_map_find(o->v.map, &k);
        if (i < 0) {
            *found = false;
            return (dra_cel_val_t){0};
        }
        return o->v.map->vals[i];
    }
    case DRA_CEL_DEVICE: {
        const dra_device_t *d = c->act->dev;
        if (flen == 6 && !memcmp(f, "driver", 6)) {
            const char *drv = d->slice && d->slice->driver ? d->slice->driver : "";
            return dra_cel_str(drv, strlen(drv));
        }
        if (flen == 10 && !memcmp(f, "attributes", 10))
            return (dra_cel_val_t){.kind = DRA_CEL_DOMAINS, .sub = 0};
        if (flen == 8 && !memcmp(f, "capacity", 8))
            return (dra_cel_val_t){.kind = DRA_CEL_DOMAINS, .sub = 1};
        if (flen == 24 && !memcmp(f, "allowMultipleAllocations", 24))
            return dra_cel_bool(d->allow_multiple_allocations);
        *found = false;
        return (dra_cel_val_t){0};
    }
    case DRA_CEL_DOMAINS: {
        /* unknown domains read as an empty map (CEL-DRA §3.3) */
        dra_cel_val_t d = {.kind = DRA_CEL_DOMAIN, .sub = o->sub, .len = flen};
        d.v.s = f;
        return d;
    }
    case DRA_CEL_DOMAIN:
        return dra_cel_dev_lookup(c, o->sub == 1, o->v.s, o->len, f, flen, found);
    case DRA_CEL_LIST:
        return dra_cel_err(c, "unsupported index type 'string' in list");
    default:
        if (!c->prog->env->dra)
            return no_such_key(c, f, flen);
        *found = false;
        return (dra_cel_val_t){0};
    }
}

/* "no such key: K" with K as cel-go prints the key (Go's %v: strings unquoted, uint without a
 * suffix). */
static dra_cel_val_t missing_key(dra_cel_ctx_t *c, const dra_cel_val_t *k)
{
    if (k->kind == DRA_CEL_STRING)
        return no_such_key(c, k->v.s, k->len);
    if (k->kind == DRA_CEL_UINT)
        return dra_cel_err(c, "no such key: %llu", (unsigned long long)k->v.u);
    const char *ks = dra_cel_val_str(c->a, k);
    return dra_cel_err(c, "no such key: %s", ks ? ks : "?");
}

/* Index a container by an evaluated key: list[int], map[key], device views. */
static dra_cel_val_t index_val(dra_cel_ctx_t *c, const dra_cel_val_t *o, const dra_cel_val_t *k,
                               bool *found)
{
    *found = true;
    switch (o->kind) {
    case DRA_CEL_LIST: {
        int64_t i;
        if (k->kind == DRA_CEL_INT)
            i = k->v.i;
        else if (k->kind == DRA_CEL_UINT)
            i = k->v.u > (uint64_t)INT64_MAX ? -1 : (int64_t)k->v.u;
        else if (k->kind == DRA_CEL_DOUBLE && k->v.d == floor(k->v.d) && fabs(k->v.d) < 9e18)
            i = (int64_t)k->v.d;
        else
            return dra_cel_err(c, "no such overload: list index of type %s", dra_cel_kind_type_name(k));
        if (i < 0 || (uint64_t)i >= o->v.list->n) {
            *found = false;
            return dra_cel_err(c, "index out of bounds: %lld", (long long)i);
        }
        return o->v.list->items[i];
    }
    case DRA_CEL_MAP: {
        if (k->kind != DRA_CEL_STRING && k->kind != DRA_CEL_INT && k->kind != DRA_CEL_UINT &&
            k->kind != DRA_CEL_BOOL && k->kind != DRA_CEL_DOUBLE)
            return dra_cel_err(c, "unsupported key type: %s", dra_cel_kind_type_name(k));
        int i = dra_cel_map_find(o->v.map, k);
        if (i < 0) {
            *found = false;
            return missing_key(c, k);
        }
        return o->v.map->vals[i];
    }
    case DRA_CEL_DOMAINS:
    case DRA_CEL_DOMAIN:
    case DRA_CEL_DEVICE:
        if (k->kind != DRA_CEL_STRING) {
            *found = false;
            return missing_key(c, k);
        }
        {
            dra_cel_val_t r = select_field(c, o, k->v.s, k->len, found);
            if (!*found)
                return no_such_key(c, k->v.s, k->len);
            return r;
        }
    default: {
        /* no keys (cel-go refQualify): "no such key", absent for [?k] and optional operands
         * (an error in the standard environment, as select_field) */
        *found = !c->prog->env->dra;
        return missing_key(c, k);
    }
    }
}

/* Presence test has(o.f). */
static dra_cel_val_t has_field(dra_cel_ctx_t *c, const dra_cel_val_t *o, const char *f, uint32_t flen)
{
    bool found;
    switch (o->kind) {
    case DRA_CEL_MAP:
    case DRA_CEL_DOMAIN:
        select_field(c, o, f, flen, &found);
        return dra_cel_bool(found);
    case DRA_CEL_DOMAINS:
        return dra_cel_bool(true); /* the empty-map wrapper answers "present" to every key */
    default: {
        dra_cel_val_t r = select_field(c, o, f, flen, &found);
        if (r.kind == DRA_CEL_ERROR)
            return r;
        return dra_cel_bool(found);
    }
    }
}

static dra_cel_val_t eval_select(dra_cel_ctx_t *c, const dra_cel_expr_t *e)
{
    dra_cel_val_t o = eval(c, e->u.sel.operand);
    if (o.kind == DRA_CEL_ERROR)
        return o;
    const char *f = e->u.sel.field;
    uint32_t flen = (uint32_t)strlen(f);
    if (e->flags & DRA_CEL_SEL_TEST_ONLY) {
        if (o.kind == DRA_CEL_OPTIONAL) {
            if (!o.v.opt)
                return dra_cel_bool(false);
            o = *o.v.opt;
        }
        return has_field(c, &o, f, flen);
    }
    if (e->flags & DRA_CEL_SEL_OPTIONAL) {
        if (o.kind == DRA_CEL_OPTIONAL) {
            if (!o.v.opt)
                return o;
            o = *o.v.opt;
        }
        bool found;
        dra_cel_val_t r = select_field(c, &o, f, flen, &found);
        if (r.kind == DRA_CEL_ERROR)
            return r;
        return found ? mk_opt(c, &r) : mk_opt(c, NULL);
    }
    if (o.kind == DRA_CEL_OPTIONAL) { /* selection on an optional propagates optionality */
        if (!o.v.opt)
            return o;
        o = *o.v.opt;
        bool found;
        dra_cel_val_t r = select_field(c, &o, f, flen, &found);
        if (r.kind == DRA_CEL_ERROR)
            return r;
        return found ? mk_opt(c, &r) : mk_opt(c, NULL);
    }
    bool found;
    dra_cel_val_t r = select_field(c, &o, f, flen, &found);
    if (!found)
        return no_such_key(c, f, flen);
    return r;
}

/* Iterable elements of a value, for comprehensions. keys/vals point to arrays of n values. */
static bool iter_items(dra_cel_ctx_t *c, const dra_cel_val_t *r, const dra_cel_val_t **keys,
                       const dra_cel_val_t **vals, uint32_t *n, bool *is_map)
{
    dra_cel_val_t m;
    switch (r->kind) {
    case DRA_CEL_LIST:
        *keys = r->v.list->items;
        *vals = NULL;
        *n = r->v.list->n;
        *is_map = false;
        return true;
    case DRA_CEL_DOMAINS:
    case DRA_CEL_DOMAIN:
        m = dra_cel_materialize(c, r);
        if (m.kind != DRA_CEL_MAP)
            return false;
        r = &m;
        DRA_FALLTHROUGH;
    case DRA_CEL_MAP:
        *keys = r->v.map->keys;
        *vals = r->v.map->vals;
        *n = r->v.map->n;
        *is_map = true;
        return true;
    default:
        return false;
    }
}

static dra_cel_val_t eval_compr(dra_cel_ctx_t *c, const dra_cel_expr_t *e)
{
    dra_cel_val_t range = eval(c, e->u.compr.range);
    if (range.kind == DRA_CEL_ERROR)
        return range;
    const dra_cel_val_t *keys = NULL, *vals = NULL;
    uint32_t n = 0;
    bool is_map = false;
    if (!iter_items(c, &range, &keys, &vals, &n, &is_map)) {
        if (range.kind == DRA_CEL_ERROR)
            return range;
        return dra_cel_err(c, "got '%s', expected iterable type", dra_cel_kind_type_name(&range));
    }
    dra_cel_val_t *accu = &c->slots[e->u.compr.accu_slot];
    *accu = eval(c, e->u.compr.init);
    bool two = e->u.compr.iter_var2 != NULL;
    for (uint32_t i = 0; i < n; i++) {
        if (!charge(c, 1))
            return cost_err(c);
        if (two) {
            if (is_map) {
                c->slots[e->u.compr.iter_slot] = keys[i];
                c->slots[e->u.compr.iter2_slot] = vals[i];
            } else {
                c->slots[e->u.compr.iter_slot] = dra_cel_int((int64_t)i);
                c->slots[e->u.compr.iter2_slot] = keys[i];
            }
        } else {
            c->slots[e->u.compr.iter_slot] = keys[i];
        }
        dra_cel_val_t cond = eval(c, e->u.compr.cond);
        if (cond.kind == DRA_CEL_ERROR && cond.sub == 1)
            return cond;
        if (cond.kind == DRA_CEL_BOOL && !cond.v.b)
            break;
        if (cond.kind != DRA_CEL_BOOL)
            return cond.kind == DRA_CEL_ERROR ? cond : dra_cel_err(c, "no such overload");
        dra_cel_val_t s = eval(c, e->u.compr.step);
        if (s.kind == DRA_CEL_ERROR && s.sub == 1)
            return s;
        *accu = s;
        if (c->oom)
            return dra_cel_err(c, "out of memory");
    }
    return eval(c, e->u.compr.result);
}

/* Interned id of reference `ref` in the current model through the program's seqlock cache;
 * false when the cache cannot answer (then the caller looks the name up itself). */
static bool cached_qid(const dra_cel_ctx_t *c, uint32_t ref, uint32_t *qid)
{
    dra_cel_qcache_t *qc = c->prog->qc;
    const dra_model_t *m = c->act->model;
    if (!qc || ref >= c->prog->nrefs)
        return false;
    uint32_t s1 = atomic_load_explicit(&qc->seq, memory_order_acquire);
    if (!(s1 & 1) && atomic_load_explicit(&qc->model_uid, memory_order_relaxed) == m->uid &&
        atomic_load_explicit(&qc->intern_count, memory_order_relaxed) == m->intern.count) {
        *qid = atomic_load_explicit(&qc->ids[ref], memory_order_relaxed);
        atomic_thread_fence(memory_order_acquire);
        if (atomic_load_explicit(&qc->seq, memory_order_relaxed) == s1)
            return true;
        return false;
    }
    /* (re)fill for this model */
    if ((s1 & 1) || !atomic_compare_exchange_strong(&qc->seq, &s1, s1 + 1))
        return false;
    for (uint32_t i = 0; i < c->prog->nrefs; i++) {
        const char *q = c->prog->refs[i].qname;
        atomic_store_explicit(&qc->ids[i], dra_intern_find(&m->intern, q, strlen(q)),
                              memory_order_relaxed);
    }
    atomic_store_explicit(&qc->model_uid, m->uid, memory_order_relaxed);
    atomic_store_explicit(&qc->intern_count, m->intern.count, memory_order_relaxed);
    *qid = atomic_load_explicit(&qc->ids[ref], memory_order_relaxed);
    atomic_store_explicit(&qc->seq, s1 + 2, memory_order_release);
    return true;
}

static dra_cel_val_t eval_devref(dra_cel_ctx_t *c, const dra_cel_expr_t *e)
{
    bool found = false;
    if (!c->act->dev)
        return dra_cel_err(c, "no such attribute: device");
    uint32_t qid;
    dra_cel_val_t v = {0};
    if (cached_qid(c, e->u.dev.ref, &qid)) {
        if (qid) {
            if (e->u.dev.is_capacity) {
                const dra_capacity_t *k = dra_device_capacity(c->act->dev, qid);
                if (k) {
                    found = true;
                    v.kind = DRA_CEL_QUANTITY;
                    v.v.q = &k->value;
                }
            } else {
                const dra_attr_t *at = dra_device_attr(c->act->dev, qid);
                if (at) {
                    found = true;
                    if (e->flags & DRA_CEL_DEV_HAS)
                        return dra_cel_bool(true);
                    v = dra_cel_attr_value(c, at);
                }
            }
        }
    } else {
        v = dra_cel_dev_lookup(c, e->u.dev.is_capacity, e->u.dev.domain, e->u.dev.dlen, e->u.dev.id,
                       e->u.dev.idlen, &found);
    }
    if (e->flags & DRA_CEL_DEV_HAS)
        return dra_cel_bool(found);
    if (!found)
        return no_such_key(c, e->u.dev.id, e->u.dev.idlen);
    return v;
}

static dra_cel_val_t eval_call(dra_cel_ctx_t *c, const dra_cel_expr_t *e)
{
    unsigned fn = e->fn;
    switch (fn) {
    case DRA_CEL_FN_AND:
    case DRA_CEL_FN_OR: {
        bool is_and = fn == DRA_CEL_FN_AND;
        dra_cel_val_t l = eval(c, e->u.call.args[0]);
        if (l.kind == DRA_CEL_BOOL && l.v.b != is_and)
            return l; /* false && _ , true || _ */
        if (l.kind == DRA_CEL_ERROR && l.sub == 1)
            return l;
        dra_cel_val_t r = eval(c, e->u.call.args[1]);
        if (r.kind == DRA_CEL_BOOL && r.v.b != is_and)
            return r;
        if (l.kind == DRA_CEL_BOOL && r.kind == DRA_CEL_BOOL)
            return r;
        if (l.kind == DRA_CEL_ERROR)
            return l;
        if (r.kind == DRA_CEL_ERROR)
            return r;
        return dra_cel_err(c, "no matching overload for '%s'", is_and ? "_&&_" : "_||_");
    }
    case DRA_CEL_FN_COND: {
        dra_cel_val_t cnd = eval(c, e->u.call.args[0]);
        if (cnd.kind == DRA_CEL_ERROR)
            return cnd;
        if (cnd.kind != DRA_CEL_BOOL)
            return dra_cel_err(c, "no matching overload for '_?_:_'");
        return eval(c, e->u.call.args[cnd.v.b ? 1 : 2]);
    }
    case DRA_CEL_FN_NOT_STRICTLY_FALSE: {
        dra_cel_val_t v = eval(c, e->u.call.args[0]);
        if (v.kind == DRA_CEL_ERROR && v.sub == 1)
            return v;
        return dra_cel_bool(!(v.kind == DRA_CEL_BOOL && !v.v.b));
    }
    default:
        break;
    }
    const dra_cel_expr_t *t = e->u.call.target;
    uint32_t n = e->u.call.nargs + (t ? 1 : 0);
    dra_cel_val_t stack[6];
    dra_cel_val_t *args = stack;
    if (n > 6) {
        args = dra_arena_alloc(c->a, n * sizeof *args, 8);
        if (!args) {
            c->oom = true;
            return dra_cel_err(c, "out of memory");
        }
    }
    uint32_t k = 0;
    if (t)
        args[k++] = eval(c, t);
    for (uint32_t i = 0; i < e->u.call.nargs; i++)
        args[k++] = eval(c, e->u.call.args[i]);
    for (uint32_t i = 0; i < n; i++)
        if (args[i].kind == DRA_CEL_ERROR)
            return args[i];
    if (n == 2 && args[0].kind == args[1].kind && args[0].kind <= DRA_CEL_STRING) {
        /* fast paths for scalar comparisons of one kind */
        if (fn == DRA_CEL_FN_EQ || fn == DRA_CEL_FN_NE) {
            int r = dra_cel_equal(&args[0], &args[1]);
            return dra_cel_bool((r == 1) == (fn == DRA_CEL_FN_EQ));
        }
        if (fn >= DRA_CEL_FN_LT && fn <= DRA_CEL_FN_GE && args[0].kind == DRA_CEL_INT) {
            int64_t x = args[0].v.i, y = args[1].v.i;
            return dra_cel_bool(fn == DRA_CEL_FN_LT ? x < y : fn == DRA_CEL_FN_LE ? x <= y
                                : fn == DRA_CEL_FN_GT ? x > y : x >= y);
        }
    }
    if (fn == DRA_CEL_FN_INDEX || fn == DRA_CEL_FN_OPT_INDEX) {
        bool found;
        dra_cel_val_t o = args[0];
        if (fn == DRA_CEL_FN_OPT_INDEX || o.kind == DRA_CEL_OPTIONAL) {
            if (o.kind == DRA_CEL_OPTIONAL) {
                if (!o.v.opt)
                    return o;
                o = *o.v.opt;
            }
            if (o.kind == DRA_CEL_DOMAINS) {
                dra_cel_val_t r = index_val(c, &o, &args[1], &found);
                return r.kind == DRA_CEL_ERROR && found ? r : mk_opt(c, &r);
            }
            dra_cel_val_t r = index_val(c, &o, &args[1], &found);
            if (!found)
                return mk_opt(c, NULL);
            if (r.kind == DRA_CEL_ERROR)
                return r;
            return mk_opt(c, &r);
        }
        return index_val(c, &o, &args[1], &found);
    }
    return dra_cel_call_fn(c, e, fn, args, n, t != NULL);
}

static dra_cel_val_t eval(dra_cel_ctx_t *c, const dra_cel_expr_t *e)
{
    if (DRA_UNLIKELY(!charge(c, 1)))
        return cost_err(c);
    switch (e->kind) {
    case DRA_CEL_E_CONST:
        return e->u.c;
    case DRA_CEL_E_IDENT:
        if (e->u.ident.slot >= 0)
            return c->slots[e->u.ident.slot];
        if (e->u.ident.global == 0 && c->prog->env->dra) {
            if (!c->act->dev)
                return dra_cel_err(c, "no such attribute: device");
            return (dra_cel_val_t){.kind = DRA_CEL_DEVICE};
        }
        if (e->u.ident.global >= 0 && c->act->globals)
            return c->act->globals[e->u.ident.global];
        return dra_cel_err(c, "no such attribute: %s", e->u.ident.name);
    case DRA_CEL_E_SELECT:
        return eval_select(c, e);
    case DRA_CEL_E_CALL:
        return eval_call(c, e);
    case DRA_CEL_E_LIST: {
        uint32_t n = e->u.list.n;
        dra_cel_list_t *l = dra_arena_alloc(c->a, sizeof *l, 8);
        dra_cel_val_t *items = dra_arena_alloc(c->a, (n ? n : 1) * sizeof *items, 8);
        if (!l || !items) {
            c->oom = true;
            return dra_cel_err(c, "out of memory");
        }
        uint32_t k = 0;
        for (uint32_t i = 0; i < n; i++) {
            dra_cel_val_t v = eval(c, e->u.list.elems[i]);
            if (v.kind == DRA_CEL_ERROR)
                return v;
            if (e->u.list.optional[i]) {
                if (v.kind != DRA_CEL_OPTIONAL)
                    return dra_cel_err(c, "no such overload: optional list element of type %s",
                                       dra_cel_kind_type_name(&v));
                if (!v.v.opt)
                    continue;
                v = *v.v.opt;
            }
            items[k++] = v;
        }
        l->n = k;
        l->cap = 0;
        l->items = items;
        dra_cel_val_t r = {.kind = DRA_CEL_LIST};
        r.v.list = l;
        return r;
    }
    case DRA_CEL_E_MAP: {
        uint32_t n = e->u.map.n;
        dra_cel_map_t *m = dra_arena_alloc(c->a, sizeof *m, 8);
        dra_cel_val_t *ks = dra_arena_alloc(c->a, (n ? n : 1) * sizeof *ks, 8);
        dra_cel_val_t *vs = dra_arena_alloc(c->a, (n ? n : 1) * sizeof *vs, 8);
        if (!m || !ks || !vs) {
            c->oom = true;
            return dra_cel_err(c, "out of memory");
        }
        m->n = 0;
        m->cap = 0;
        m->keys = ks;
        m->vals = vs;
        for (uint32_t i = 0; i < n; i++) {
            dra_cel_val_t k = eval(c, e->u.map.keys[i]);
            if (k.kind == DRA_CEL_ERROR)
                return k;
            dra_cel_val_t v = eval(c, e->u.map.vals[i]);
            if (v.kind == DRA_CEL_ERROR)
                return v;
            if (k.kind != DRA_CEL_STRING && k.kind != DRA_CEL_INT && k.kind != DRA_CEL_UINT &&
                k.kind != DRA_CEL_BOOL)
                return dra_cel_err(c, "unsupported key type: %s", dra_cel_kind_type_name(&k));
            if (e->u.map.optional[i]) {
                if (v.kind != DRA_CEL_OPTIONAL)
                    return dra_cel_err(c, "no such overload: optional map entry");
                if (!v.v.opt)
                    continue;
                v = *v.v.opt;
            }
            /* A repeated key: cel-spec (standard mode, the conformance suite) makes it an error;
             * cel-go, which the DRA environment follows, keeps the last value (it assigns the
             * entries in order to a Go map: keys equal as Go values, same kind and value). */
            if (!c->prog->env->dra && dra_cel_map_find(m, &k) >= 0) {
                const char *s = dra_cel_val_str(c->a, &k);
                return dra_cel_err(c, "Failed with repeated key: %s", s ? s : "?");
            }
            uint32_t j = 0;
            while (j < m->n && !same_key(&ks[j], &k))
                j++;
            if (j < m->n) {
                vs[j] = v;
                continue;
            }
            ks[m->n] = k;
            vs[m->n] = v;
            m->n++;
        }
        dra_cel_val_t r = {.kind = DRA_CEL_MAP};
        r.v.map = m;
        return r;
    }
    case DRA_CEL_E_COMPR:
        return eval_compr(c, e);
    case DRA_CEL_E_DEVREF:
        return eval_devref(c, e);
    default:
        return dra_cel_err(c, "internal error: bad node");
    }
}

dra_cel_val_t dra_cel_eval_node(dra_cel_ctx_t *c, const dra_cel_expr_t *e)
{
    dra_cel_val_t slots_stack[1];
    if (!c->slots)
        c->slots = slots_stack; /* constant folding: no variables */
    dra_cel_val_t v = eval(c, e);
    if (c->slots == slots_stack)
        c->slots = NULL;
    return v;
}

int dra_cel_eval_value(const dra_cel_prog_t *p, const dra_cel_act_t *act, dra_arena_t *out,
                       dra_cel_val_t *result, dra_diag_t *diag)
{
    dra_cel_val_t slots_stack[16];
    dra_cel_ctx_t c = {.prog = p, .act = act, .a = out,
                       .cost_limit = p->env->cost_limit  ? p->env->cost_limit
                                     : p->env->dra ? DRA_CEL_MAX_COST
                                                   : 1000000000ULL};
    if (p->nslots <= 16) {
        c.slots = slots_stack;
    } else {
        c.slots = dra_arena_alloc(out, p->nslots * sizeof *c.slots, 8);
        if (!c.slots)
            return dra_diag_set(diag, DRA_ENOMEM, NULL, 0, 0, "out of memory");
    }
    dra_cel_val_t v = eval(&c, p->root);
    if (c.oom)
        return dra_diag_set(diag, DRA_ENOMEM, NULL, 0, 0, "out of memory during evaluation");
    if (v.kind == DRA_CEL_ERROR) {
        int code = v.sub == 1 ? DRA_ECOST : DRA_ERUNTIME;
        if (diag) {
            dra_diag_set(diag, code, NULL, 0, 0, "%.*s", (int)v.len, v.v.s);
        }
        *result = v;
        return code;
    }
    if (v.kind == DRA_CEL_DOMAINS || v.kind == DRA_CEL_DOMAIN || v.kind == DRA_CEL_DEVICE)
        v = dra_cel_materialize(&c, &v);
    *result = v;
    return DRA_OK;
}
