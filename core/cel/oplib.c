/*
 * oplib.c - the operators (!, -, ==, <, +, ...), `in`, the conversions (int, uint, double,
 * string, bytes, bool), size, type, dyn, the comprehension helpers (@append, @mapinsert,
 * @sortByAssociatedKeys) and the optional functions: the op_* implementations of DRA_CEL_FN_MAP.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "libint.h"

/* ---- small builders ------------------------------------------------------------------------- */

static dra_cel_val_t mk_str(dra_cel_ctx_t *c, const char *s, size_t n)
{
    char *p = dra_arena_strndup(c->a, s, n);
    if (!p)
        return dra_cel__oom(c);
    return dra_cel_str(p, n);
}

static dra_cel_val_t mk_opt(dra_cel_ctx_t *c, const dra_cel_val_t *x)
{
    dra_cel_val_t v = {.kind = DRA_CEL_OPTIONAL};
    if (x) {
        dra_cel_val_t *p = dra_arena_alloc(c->a, sizeof *p, 8);
        if (!p)
            return dra_cel__oom(c);
        *p = *x;
        v.v.opt = p;
    }
    return v;
}


/* ---- arithmetic ----------------------------------------------------------------------------- */

dra_cel_val_t dra_cel__arith(dra_cel_ctx_t *c, unsigned fn, const dra_cel_val_t *a,
                             const dra_cel_val_t *b)
{
    if (a->kind != b->kind)
        return dra_cel__no_overload(c, fn, (dra_cel_val_t[]){*a, *b}, 2);
    if (K(*a, INT)) {
        int64_t x = a->v.i, y = b->v.i, r;
        switch (fn) {
        case DRA_CEL_FN_ADD:
            if (__builtin_add_overflow(x, y, &r))
                return dra_cel_err(c, "integer overflow");
            return dra_cel_int(r);
        case DRA_CEL_FN_SUB:
            if (__builtin_sub_overflow(x, y, &r))
                return dra_cel_err(c, "integer overflow");
            return dra_cel_int(r);
        case DRA_CEL_FN_MUL:
            if (__builtin_mul_overflow(x, y, &r))
                return dra_cel_err(c, "integer overflow");
            return dra_cel_int(r);
        case DRA_CEL_FN_DIV:
            if (y == 0)
                return dra_cel_err(c, "division by zero");
            if (x == INT64_MIN && y == -1)
                return dra_cel_err(c, "integer overflow");
            return dra_cel_int(x / y);
        case DRA_CEL_FN_MOD:
            if (y == 0)
                return dra_cel_err(c, "modulus by zero");
            if (x == INT64_MIN && y == -1)
                return dra_cel_err(c, "integer overflow");
            return dra_cel_int(x % y);
        default: break;
        }
    } else if (K(*a, UINT)) {
        uint64_t x = a->v.u, y = b->v.u, r;
        switch (fn) {
        case DRA_CEL_FN_ADD:
            if (__builtin_add_overflow(x, y, &r))
                return dra_cel_err(c, "unsigned integer overflow");
            return dra_cel_uint(r);
        case DRA_CEL_FN_SUB:
            if (__builtin_sub_overflow(x, y, &r))
                return dra_cel_err(c, "unsigned integer overflow");
            return dra_cel_uint(r);
        case DRA_CEL_FN_MUL:
            if (__builtin_mul_overflow(x, y, &r))
                return dra_cel_err(c, "unsigned integer overflow");
            return dra_cel_uint(r);
        case DRA_CEL_FN_DIV:
            if (y == 0)
                return dra_cel_err(c, "division by zero");
            return dra_cel_uint(x / y);
        case DRA_CEL_FN_MOD:
            if (y == 0)
                return dra_cel_err(c, "modulus by zero");
            return dra_cel_uint(x % y);
        default: break;
        }
    } else if (K(*a, DOUBLE)) {
        double x = a->v.d, y = b->v.d;
        switch (fn) {
        case DRA_CEL_FN_ADD: return dra_cel_double(x + y);
        case DRA_CEL_FN_SUB: return dra_cel_double(x - y);
        case DRA_CEL_FN_MUL: return dra_cel_double(x * y);
        case DRA_CEL_FN_DIV: return dra_cel_double(x / y);
        default: break;
        }
    } else if (fn == DRA_CEL_FN_ADD && (K(*a, STRING) || K(*a, BYTES))) {
        size_t n = (size_t)a->len + b->len;
        if (n > UINT32_MAX / 2)
            return dra_cel_err(c, "string too long");
        if (!dra_cel__charge(c, n / 16))
            return dra_cel__cost_err();
        char *p = dra_arena_alloc(c->a, n + 1, 1);
        if (!p)
            return dra_cel__oom(c);
        memcpy(p, a->v.s, a->len);
        memcpy(p + a->len, b->v.s, b->len);
        p[n] = 0;
        dra_cel_val_t r = dra_cel_str(p, n);
        r.kind = a->kind;
        return r;
    } else if (fn == DRA_CEL_FN_ADD && K(*a, LIST)) {
        uint32_t n = a->v.list->n + b->v.list->n;
        if (!dra_cel__charge(c, n / 8))
            return dra_cel__cost_err();
        dra_cel_val_t *it = NULL;
        dra_cel_val_t r = dra_cel__mk_list(c, n, &it);
        if (K(r, ERROR))
            return r;
        memcpy(it, a->v.list->items, a->v.list->n * sizeof *it);
        memcpy(it + a->v.list->n, b->v.list->items, b->v.list->n * sizeof *it);
        return r;
    }
    return dra_cel__no_overload(c, fn, (dra_cel_val_t[]){*a, *b}, 2);
}

/* ---- `x in <constant list>` as cel-go's set lookup -------------------------------------------- */

const char dra_cel_in_set = 1;

/* Is x one of the keys cel-go's maybeOptimizeSetMembership puts in its set for element el? The
 * set holds el itself, for a double el its int / uint conversions when lossless, for an int or
 * uint el its double conversion (lossy) and its uint / int conversion when in range; keys match
 * as Go values (same kind and value; doubles by ==, so NaN never matches). */
static bool in_set_key(const dra_cel_val_t *el, const dra_cel_val_t *x)
{
    if (el->kind == x->kind) {
        switch (x->kind) {
        case DRA_CEL_BOOL: return el->v.b == x->v.b;
        case DRA_CEL_INT: return el->v.i == x->v.i;
        case DRA_CEL_UINT: return el->v.u == x->v.u;
        case DRA_CEL_DOUBLE: return el->v.d == x->v.d;
        case DRA_CEL_STRING: return el->len == x->len && !memcmp(el->v.s, x->v.s, x->len);
        default: return false;
        }
    }
    switch (el->kind * 16 + x->kind) {
    case DRA_CEL_DOUBLE * 16 + DRA_CEL_INT: {
        double d = el->v.d;
        return d > -9223372036854775808.0 && d < 9223372036854775808.0 && d == trunc(d) &&
               (int64_t)d == x->v.i;
    }
    case DRA_CEL_DOUBLE * 16 + DRA_CEL_UINT: {
        double d = el->v.d;
        return d >= 0 && d < 18446744073709551616.0 && d == trunc(d) && (uint64_t)d == x->v.u;
    }
    case DRA_CEL_INT * 16 + DRA_CEL_DOUBLE: return (double)el->v.i == x->v.d;
    case DRA_CEL_INT * 16 + DRA_CEL_UINT: return el->v.i >= 0 && (uint64_t)el->v.i == x->v.u;
    case DRA_CEL_UINT * 16 + DRA_CEL_DOUBLE: return (double)el->v.u == x->v.d;
    case DRA_CEL_UINT * 16 + DRA_CEL_INT:
        return el->v.u <= (uint64_t)INT64_MAX && (int64_t)el->v.u == x->v.i;
    default: return false;
    }
}

/* ---- conversions ---------------------------------------------------------------------------- */

/* strconv.ParseX: parsing "<s>": invalid syntax | value out of range (the quoted text is cut
 * at 64 bytes; a NUL or control byte is shown as '?'). */
static dra_cel_val_t conv_err(dra_cel_ctx_t *c, const char *fn, const dra_cel_val_t *a, int rc)
{
    char q[72];
    size_t n = DRA_MIN(a->len, 64u);
    for (size_t i = 0; i < n; i++)
        q[i] = (unsigned char)a->v.s[i] < 0x20 ? '?' : a->v.s[i];
    q[n] = 0;
    return dra_cel_err(c, "strconv.%s: parsing \"%s%s\": %s", fn, q, a->len > 64 ? "..." : "",
                       rc == DRA_CEL_CONV_RANGE ? "value out of range" : "invalid syntax");
}

dra_cel_val_t dra_cel__conv(dra_cel_ctx_t *c, unsigned fn, const dra_cel_val_t *a)
{
    char buf[80];
    switch (fn) {
    case DRA_CEL_FN_INT:
        switch (a->kind) {
        case DRA_CEL_INT: return *a;
        case DRA_CEL_UINT:
            if (a->v.u > (uint64_t)INT64_MAX)
                return dra_cel_err(c, "range error converting %llu to int", (unsigned long long)a->v.u);
            return dra_cel_int((int64_t)a->v.u);
        case DRA_CEL_DOUBLE:
            /* cel-go: d <= MinInt64 || d >= MaxInt64 (as double, 2^63) is a range error */
            if (!(a->v.d > -9223372036854775808.0 && a->v.d < 9223372036854775807.0))
                return dra_cel_err(c, "range error converting %g to int", a->v.d);
            return dra_cel_int((int64_t)a->v.d);
        case DRA_CEL_STRING: {
            int64_t v;
            int rc = dra_cel_go_parse_int(a->v.s, a->len, &v);
            if (rc != DRA_CEL_CONV_OK)
                return conv_err(c, "ParseInt", a, rc);
            return dra_cel_int(v);
        }
        default: break;
        }
        break;
    case DRA_CEL_FN_UINT:
        switch (a->kind) {
        case DRA_CEL_UINT: return *a;
        case DRA_CEL_INT:
            if (a->v.i < 0)
                return dra_cel_err(c, "range error converting %lld to uint", (long long)a->v.i);
            return dra_cel_uint((uint64_t)a->v.i);
        case DRA_CEL_DOUBLE:
            if (!(a->v.d >= 0 && a->v.d < 18446744073709551616.0))
                return dra_cel_err(c, "range error converting %g to uint", a->v.d);
            return dra_cel_uint((uint64_t)a->v.d);
        case DRA_CEL_STRING: {
            uint64_t v;
            int rc = dra_cel_go_parse_uint(a->v.s, a->len, &v);
            if (rc != DRA_CEL_CONV_OK)
                return conv_err(c, "ParseUint", a, rc);
            return dra_cel_uint(v);
        }
        default: break;
        }
        break;
    case DRA_CEL_FN_DOUBLE:
        switch (a->kind) {
        case DRA_CEL_DOUBLE: return *a;
        case DRA_CEL_INT: return dra_cel_double((double)a->v.i);
        case DRA_CEL_UINT: return dra_cel_double((double)a->v.u);
        case DRA_CEL_STRING: {
            double v;
            int rc = dra_cel_go_parse_float(c->a, a->v.s, a->len, &v);
            if (rc == DRA_CEL_CONV_NOMEM)
                return dra_cel__oom(c);
            if (rc != DRA_CEL_CONV_OK)
                return conv_err(c, "ParseFloat", a, rc);
            return dra_cel_double(v);
        }
        default: break;
        }
        break;
    case DRA_CEL_FN_STRING:
        switch (a->kind) {
        case DRA_CEL_STRING: return *a;
        case DRA_CEL_INT:
            snprintf(buf, sizeof buf, "%lld", (long long)a->v.i);
            return mk_str(c, buf, strlen(buf));
        case DRA_CEL_UINT:
            snprintf(buf, sizeof buf, "%llu", (unsigned long long)a->v.u);
            return mk_str(c, buf, strlen(buf));
        case DRA_CEL_DOUBLE:
            dra_cel__fmt_double(a->v.d, buf, sizeof buf);
            if (!strcmp(buf, "+Inf"))
                strcpy(buf, "+Inf");
            return mk_str(c, buf, strlen(buf));
        case DRA_CEL_BOOL: return a->v.b ? dra_cel_str("true", 4) : dra_cel_str("false", 5);
        case DRA_CEL_BYTES:
            if (!dra_cel__utf8_valid(a->v.s, a->len))
                return dra_cel_err(c, "invalid UTF-8 in bytes, cannot convert to string");
            return dra_cel_str(a->v.s, a->len);
        default: break;
        }
        break;
    case DRA_CEL_FN_BYTES:
        if (K(*a, STRING) || K(*a, BYTES)) {
            dra_cel_val_t r = *a;
            r.kind = DRA_CEL_BYTES;
            return r;
        }
        break;
    case DRA_CEL_FN_BOOL:
        if (K(*a, BOOL))
            return *a;
        if (K(*a, STRING)) {
            static const char *const t[] = {"1", "t", "T", "TRUE", "true", "True"};
            static const char *const f[] = {"0", "f", "F", "FALSE", "false", "False"};
            for (size_t i = 0; i < 6; i++) {
                if (strlen(t[i]) == a->len && !memcmp(t[i], a->v.s, a->len))
                    return dra_cel_bool(true);
                if (strlen(f[i]) == a->len && !memcmp(f[i], a->v.s, a->len))
                    return dra_cel_bool(false);
            }
            return dra_cel_err(c, "strconv.ParseBool: parsing \"%.*s\": invalid syntax",
                               (int)DRA_MIN(a->len, 64u), a->v.s);
        }
        break;
    default: break;
    }
    return dra_cel__no_overload(c, fn, a, 1);
}

static bool is_zero_value(const dra_cel_val_t *v)
{
    switch (v->kind) {
    case DRA_CEL_NULL: return true;
    case DRA_CEL_BOOL: return !v->v.b;
    case DRA_CEL_INT: return v->v.i == 0;
    case DRA_CEL_UINT: return v->v.u == 0;
    case DRA_CEL_DOUBLE: return v->v.d == 0;
    case DRA_CEL_STRING:
    case DRA_CEL_BYTES: return v->len == 0;
    case DRA_CEL_LIST: return v->v.list->n == 0;
    case DRA_CEL_MAP: return v->v.map->n == 0;
    default: return false;
    }
}

static dra_cel_val_t type_of(dra_cel_ctx_t *c, const dra_cel_val_t *v)
{
    (void)c;
    return dra_cel_typeval(dra_cel_kind_type_name(v));
}

/* ---- operators, conversions, size / type / dyn, `in`, comprehension helpers, optionals ------- */

/* NOT */
DRA_CEL_IMPL(dra_cel_op_not)
{
    if (n == 1 && K(a[0], BOOL))
        return dra_cel_bool(!a[0].v.b);
    return dra_cel__no_overload(c, fn, a, n);
}

/* NEG */
DRA_CEL_IMPL(dra_cel_op_neg)
{
    if (n == 1 && K(a[0], INT)) {
        if (a[0].v.i == INT64_MIN)
            return dra_cel_err(c, "integer overflow");
        return dra_cel_int(-a[0].v.i);
    }
    if (n == 1 && K(a[0], DOUBLE))
        return dra_cel_double(-a[0].v.d);
    return dra_cel__no_overload(c, fn, a, n);
}

/* EQ, NE */
DRA_CEL_IMPL(dra_cel_op_eq)
{
    int r = dra_cel_equal(&a[0], &a[1]);
    if (r < 0)
        return dra_cel__no_overload(c, fn, a, 2);
    return dra_cel_bool(fn == DRA_CEL_FN_EQ ? r == 1 : r != 1);
}

/* LT, LE, GT, GE */
DRA_CEL_IMPL(dra_cel_op_lt)
{
    int r = dra_cel_order(&a[0], &a[1]);
    if (r == 3)
        return dra_cel__no_overload(c, fn, a, 2);
    if (r == 2) /* cel-go: Double/Int/Uint Compare with a NaN operand */
        return dra_cel_err(c, "NaN values cannot be ordered");
    bool b = fn == DRA_CEL_FN_LT ? r < 0 : fn == DRA_CEL_FN_LE ? r <= 0 : fn == DRA_CEL_FN_GT ? r > 0 : r >= 0;
    return dra_cel_bool(b);
}

/* ADD, SUB, MUL, DIV, MOD */
DRA_CEL_IMPL(dra_cel_op_add)
{
    if (n == 2)
        return dra_cel__arith(c, fn, &a[0], &a[1]);
    return dra_cel__no_overload(c, fn, a, n);
}

/* IN */
DRA_CEL_IMPL(dra_cel_op_in)
{
    const dra_cel_val_t *x = &a[0], *r = &a[1];
    if (K(*r, LIST) && e && e->u.call.aux == &dra_cel_in_set) {
        if (!dra_cel__charge(c, r->v.list->n / 4))
            return dra_cel__cost_err();
        for (uint32_t i = 0; i < r->v.list->n; i++)
            if (in_set_key(&r->v.list->items[i], x))
                return dra_cel_bool(true);
        return dra_cel_bool(false);
    }
    if (K(*r, LIST)) {
        if (!dra_cel__charge(c, r->v.list->n / 4))
            return dra_cel__cost_err();
        for (uint32_t i = 0; i < r->v.list->n; i++)
            if (dra_cel_equal(x, &r->v.list->items[i]) == 1)
                return dra_cel_bool(true);
        return dra_cel_bool(false);
    }
    if (K(*r, MAP))
        return dra_cel_bool(dra_cel_map_find(r->v.map, x) >= 0);
    if (K(*r, DOMAINS) || K(*r, DOMAIN)) {
        if (!K(*x, STRING))
            return dra_cel_bool(false);
        dra_cel_val_t m = dra_cel_materialize(c, r);
        if (K(m, ERROR))
            return m;
        return dra_cel_bool(dra_cel_map_find(m.v.map, x) >= 0);
    }
    return dra_cel__no_overload(c, fn, a, n);
}

/* LIST_APPEND */
DRA_CEL_IMPL(dra_cel_op_list_append)
{
    /* accumulator append: in place when the accumulator is a builder we own */
    if (!K(a[0], LIST))
        return dra_cel__no_overload(c, fn, a, n);
    dra_cel_list_t *l = (dra_cel_list_t *)a[0].v.list;
    if (l->cap == 0) {
        dra_cel_list_t *nl = dra_arena_alloc(c->a, sizeof *nl, 8);
        uint32_t cap = l->n + 8;
        dra_cel_val_t *it = dra_arena_alloc(c->a, cap * sizeof *it, 8);
        if (!nl || !it)
            return dra_cel__oom(c);
        memcpy(it, l->items, l->n * sizeof *it);
        nl->n = l->n;
        nl->cap = cap;
        nl->items = it;
        l = nl;
    }
    if (l->n == l->cap) {
        uint32_t cap = l->cap * 2;
        dra_cel_val_t *it = dra_arena_alloc(c->a, cap * sizeof *it, 8);
        if (!it)
            return dra_cel__oom(c);
        memcpy(it, l->items, l->n * sizeof *it);
        l->items = it;
        l->cap = cap;
    }
    l->items[l->n++] = a[1];
    dra_cel_val_t r = {.kind = DRA_CEL_LIST};
    r.v.list = l;
    return r;
}

/* MAP_INSERT */
DRA_CEL_IMPL(dra_cel_op_map_insert)
{
    if (!K(a[0], MAP))
        return dra_cel__no_overload(c, fn, a, n);
    dra_cel_val_t k, v;
    if (n == 3) {
        k = a[1];
        v = a[2];
    } else {
        /* transformMapEntry: the expression yields a one-entry map */
        if (!K(a[1], MAP))
            return dra_cel__no_overload(c, fn, a, n);
        if (a[1].v.map->n != 1)
            return dra_cel_err(c, "transformMapEntry: expected a single-entry map");
        k = a[1].v.map->keys[0];
        v = a[1].v.map->vals[0];
    }
    if (!K(k, STRING) && !K(k, INT) && !K(k, UINT) && !K(k, BOOL))
        return dra_cel_err(c, "unsupported key type: %s", dra_cel_kind_type_name(&k));
    dra_cel_map_t *m = (dra_cel_map_t *)a[0].v.map;
    if (dra_cel_map_find(m, &k) >= 0) {
        const char *ks = dra_cel_val_str(c->a, &k);
        return dra_cel_err(c, "insert failed: key %s already exists", ks ? ks : "?");
    }
    if (m->cap == 0) {
        dra_cel_map_t *nm = dra_arena_alloc(c->a, sizeof *nm, 8);
        uint32_t cap = m->n + 8;
        dra_cel_val_t *ks = dra_arena_alloc(c->a, cap * sizeof *ks, 8);
        dra_cel_val_t *vs = dra_arena_alloc(c->a, cap * sizeof *vs, 8);
        if (!nm || !ks || !vs)
            return dra_cel__oom(c);
        memcpy(ks, m->keys, m->n * sizeof *ks);
        memcpy(vs, m->vals, m->n * sizeof *vs);
        nm->n = m->n;
        nm->cap = cap;
        nm->keys = ks;
        nm->vals = vs;
        m = nm;
    }
    if (m->n == m->cap) {
        uint32_t cap = m->cap * 2;
        dra_cel_val_t *ks = dra_arena_alloc(c->a, cap * sizeof *ks, 8);
        dra_cel_val_t *vs = dra_arena_alloc(c->a, cap * sizeof *vs, 8);
        if (!ks || !vs)
            return dra_cel__oom(c);
        memcpy(ks, m->keys, m->n * sizeof *ks);
        memcpy(vs, m->vals, m->n * sizeof *vs);
        m->keys = ks;
        m->vals = vs;
        m->cap = cap;
    }
    m->keys[m->n] = k;
    m->vals[m->n] = v;
    m->n++;
    dra_cel_val_t r = {.kind = DRA_CEL_MAP};
    r.v.map = m;
    return r;
}

/* SORT_BY_KEYS */
DRA_CEL_IMPL(dra_cel_op_sort_by_keys)
{
    if (n != 2 || !K(a[0], LIST) || !K(a[1], LIST) || a[0].v.list->n != a[1].v.list->n)
        return dra_cel__no_overload(c, fn, a, n);
    dra_cel_val_t *it = NULL, *ks = NULL;
    dra_cel_val_t r = dra_cel__copy_list(c, a[0].v.list, &it);
    dra_cel_val_t kr = dra_cel__copy_list(c, a[1].v.list, &ks);
    if (K(r, ERROR))
        return r;
    if (K(kr, ERROR))
        return kr;
    if (!dra_cel__sort_vals(c, it, ks, a[0].v.list->n))
        return c->cost > c->cost_limit ? dra_cel__cost_err()
                                       : dra_cel_err(c, "sortBy: keys are not comparable");
    return r;
}

/* SIZE */
DRA_CEL_IMPL(dra_cel_op_size)
{
    if (n == 1) {
        switch (a[0].kind) {
        case DRA_CEL_STRING: return dra_cel_int(dra_cel__cp_count(a[0].v.s, a[0].len));
        case DRA_CEL_BYTES: return dra_cel_int(a[0].len);
        case DRA_CEL_LIST: return dra_cel_int(a[0].v.list->n);
        case DRA_CEL_MAP: return dra_cel_int(a[0].v.map->n);
        case DRA_CEL_DOMAINS:
        case DRA_CEL_DOMAIN: {
            dra_cel_val_t m = dra_cel_materialize(c, &a[0]);
            if (K(m, ERROR))
                return m;
            return dra_cel_int(m.v.map->n);
        }
        default: break;
        }
    }
    return dra_cel__no_overload(c, fn, a, n);
}

/* INT, UINT, DOUBLE, STRING, BYTES, BOOL */
DRA_CEL_IMPL(dra_cel_op_int)
{
    dra_cel_val_t nr;
    if (fn == DRA_CEL_FN_STRING && n == 1 && (K(a[0], IP) || K(a[0], CIDR)) &&
        dra_cel_netlib_call(c, fn, a, n, &nr))
        return nr;
    if (n == 1)
        return dra_cel__conv(c, fn, &a[0]);
    return dra_cel__no_overload(c, fn, a, n);
}

/* DYN */
DRA_CEL_IMPL(dra_cel_op_dyn)
{
    if (n == 1)
        return a[0];
    return dra_cel__no_overload(c, fn, a, n);
}

/* TYPE */
DRA_CEL_IMPL(dra_cel_op_type)
{
    if (n == 1)
        return type_of(c, &a[0]);
    return dra_cel__no_overload(c, fn, a, n);
}

/* OPT_OF */
DRA_CEL_IMPL(dra_cel_op_opt_of)
{
    if (n == 1)
        return mk_opt(c, &a[0]);
    return dra_cel__no_overload(c, fn, a, n);
}

/* OPT_NONE */
DRA_CEL_IMPL(dra_cel_op_opt_none)
{
    if (n == 0)
        return mk_opt(c, NULL);
    return dra_cel__no_overload(c, fn, a, n);
}

/* OPT_OF_NON_ZERO */
DRA_CEL_IMPL(dra_cel_op_opt_of_non_zero)
{
    if (n == 1)
        return mk_opt(c, is_zero_value(&a[0]) ? NULL : &a[0]);
    return dra_cel__no_overload(c, fn, a, n);
}

/* HAS_VALUE */
DRA_CEL_IMPL(dra_cel_op_has_value)
{
    if (n == 1 && K(a[0], OPTIONAL))
        return dra_cel_bool(a[0].v.opt != NULL);
    return dra_cel__no_overload(c, fn, a, n);
}

/* VALUE */
DRA_CEL_IMPL(dra_cel_op_value)
{
    if (n == 1 && K(a[0], OPTIONAL)) {
        if (!a[0].v.opt)
            return dra_cel_err(c, "optional.none() dereference");
        return *a[0].v.opt;
    }
    return dra_cel__no_overload(c, fn, a, n);
}

/* OR_VALUE */
DRA_CEL_IMPL(dra_cel_op_or_value)
{
    if (n == 2 && K(a[0], OPTIONAL))
        return a[0].v.opt ? *a[0].v.opt : a[1];
    return dra_cel__no_overload(c, fn, a, n);
}

/* OPT_OR */
DRA_CEL_IMPL(dra_cel_op_opt_or)
{
    if (n == 2 && K(a[0], OPTIONAL) && K(a[1], OPTIONAL))
        return a[0].v.opt ? a[0] : a[1];
    return dra_cel__no_overload(c, fn, a, n);
}

