/*
 * value.c - CEL values shared by the evaluator and the library: runtime error values
 * (dra_cel_err), equality with cel-go's heterogeneous numeric rules, ordering, map key lookup.
 * Depends on nothing else in the engine (eval.c, lib.c, device.c and netlib.c call it), so the
 * evaluator and the library do not call each other in a loop.
 */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "cel_int.h"

dra_cel_val_t dra_cel_err(dra_cel_ctx_t *c, const char *fmt, ...)
{
    char buf[512];
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    if (n < 0)
        n = 0;
    if ((size_t)n >= sizeof buf)
        n = sizeof buf - 1;
    dra_cel_val_t v = {.kind = DRA_CEL_ERROR, .len = (uint32_t)n};
    char *s = dra_arena_strndup(c->a, buf, (size_t)n);
    if (!s) {
        c->oom = true;
        v.v.s = "out of memory";
        v.len = 13;
    } else {
        v.v.s = s;
    }
    return v;
}

/* ---- equality and ordering ------------------------------------------------------------------ */

/* int/uint against double compare as doubles (lossy, as cel-go does). */
static int dbl_cmp(double a, double b)
{
    if (isnan(a) || isnan(b))
        return 2;
    return a < b ? -1 : a > b;
}

/* Numeric comparison across int/uint/double: -1, 0, 1, or 2 when unordered (NaN). */
static int num_cmp(const dra_cel_val_t *a, const dra_cel_val_t *b)
{
    switch (a->kind * 16 + b->kind) {
    case DRA_CEL_INT * 16 + DRA_CEL_INT:
        return a->v.i < b->v.i ? -1 : a->v.i > b->v.i;
    case DRA_CEL_UINT * 16 + DRA_CEL_UINT:
        return a->v.u < b->v.u ? -1 : a->v.u > b->v.u;
    case DRA_CEL_DOUBLE * 16 + DRA_CEL_DOUBLE:
        if (isnan(a->v.d) || isnan(b->v.d))
            return 2;
        return a->v.d < b->v.d ? -1 : a->v.d > b->v.d;
    case DRA_CEL_INT * 16 + DRA_CEL_UINT:
        if (a->v.i < 0)
            return -1;
        return (uint64_t)a->v.i < b->v.u ? -1 : (uint64_t)a->v.i > b->v.u;
    case DRA_CEL_UINT * 16 + DRA_CEL_INT:
        if (b->v.i < 0)
            return 1;
        return a->v.u < (uint64_t)b->v.i ? -1 : a->v.u > (uint64_t)b->v.i;
    case DRA_CEL_INT * 16 + DRA_CEL_DOUBLE:
        return dbl_cmp((double)a->v.i, b->v.d);
    case DRA_CEL_DOUBLE * 16 + DRA_CEL_INT:
        return dbl_cmp(a->v.d, (double)b->v.i);
    case DRA_CEL_UINT * 16 + DRA_CEL_DOUBLE:
        return dbl_cmp((double)a->v.u, b->v.d);
    case DRA_CEL_DOUBLE * 16 + DRA_CEL_UINT:
        return dbl_cmp(a->v.d, (double)b->v.u);
    default:
        return 3;
    }
}

static bool is_num(const dra_cel_val_t *v)
{
    return v->kind == DRA_CEL_INT || v->kind == DRA_CEL_UINT || v->kind == DRA_CEL_DOUBLE;
}

static int bytes_cmp(const char *a, uint32_t al, const char *b, uint32_t bl)
{
    int r = memcmp(a, b, DRA_MIN(al, bl));
    if (r)
        return r < 0 ? -1 : 1;
    return al < bl ? -1 : al > bl;
}

int dra_cel_equal(const dra_cel_val_t *a, const dra_cel_val_t *b)
{
    if (is_num(a) && is_num(b))
        return num_cmp(a, b) == 0;
    if (a->kind == DRA_CEL_QUANTITY) {
        if (b->kind != DRA_CEL_QUANTITY)
            return -1;
        return dra_quantity_cmp(a->v.q, b->v.q) == 0;
    }
    if (a->kind == DRA_CEL_SEMVER) {
        if (b->kind != DRA_CEL_SEMVER)
            return -1;
        return dra_semver_cmp(a->v.sv, b->v.sv) == 0;
    }
    if (a->kind != b->kind)
        return 0;
    switch (a->kind) {
    case DRA_CEL_NULL:
        return 1;
    case DRA_CEL_BOOL:
        return a->v.b == b->v.b;
    case DRA_CEL_STRING:
    case DRA_CEL_BYTES:
    case DRA_CEL_TYPE:
        return a->len == b->len && !memcmp(a->v.s, b->v.s, a->len);
    case DRA_CEL_LIST: {
        if (a->v.list->n != b->v.list->n)
            return 0;
        for (uint32_t i = 0; i < a->v.list->n; i++) {
            int r = dra_cel_equal(&a->v.list->items[i], &b->v.list->items[i]);
            if (r != 1)
                return r < 0 ? -1 : 0;
        }
        return 1;
    }
    case DRA_CEL_MAP: {
        if (a->v.map->n != b->v.map->n)
            return 0;
        for (uint32_t i = 0; i < a->v.map->n; i++) {
            int j = dra_cel_map_find(b->v.map, &a->v.map->keys[i]);
            if (j < 0)
                return 0;
            int r = dra_cel_equal(&a->v.map->vals[i], &b->v.map->vals[j]);
            if (r != 1)
                return r < 0 ? -1 : 0;
        }
        return 1;
    }
    case DRA_CEL_OPTIONAL:
        if (!a->v.opt || !b->v.opt)
            return a->v.opt == b->v.opt;
        return dra_cel_equal(a->v.opt, b->v.opt);
    case DRA_CEL_IP:
        return a->sub == b->sub && !memcmp(a->v.s, b->v.s, 16);
    case DRA_CEL_CIDR:
        return a->sub == b->sub && !memcmp(a->v.s, b->v.s, 17);
    case DRA_CEL_URL:
        return a->len == b->len && !memcmp(a->v.s, b->v.s, a->len);
    default:
        return 0;
    }
}

/* Map lookup with numeric key equivalence; -1 when absent. */
int dra_cel_map_find(const dra_cel_map_t *m, const dra_cel_val_t *k)
{
    for (uint32_t i = 0; i < m->n; i++) {
        const dra_cel_val_t *x = &m->keys[i];
        if (x->kind == k->kind) {
            if (x->kind == DRA_CEL_STRING) {
                if (x->len == k->len && !memcmp(x->v.s, k->v.s, k->len))
                    return (int)i;
                continue;
            }
            if (x->kind == DRA_CEL_INT ? x->v.i == k->v.i
                : x->kind == DRA_CEL_UINT ? x->v.u == k->v.u
                : x->kind == DRA_CEL_BOOL ? x->v.b == k->v.b
                                          : dra_cel_equal(x, k) == 1)
                return (int)i;
        } else if (is_num(x) && is_num(k) && num_cmp(x, k) == 0) {
            return (int)i;
        }
    }
    return -1;
}

/* Ordering for < <= > >=: -1/0/1, 2 unordered (NaN), 3 no such overload. */
int dra_cel_order(const dra_cel_val_t *a, const dra_cel_val_t *b)
{
    if (is_num(a) && is_num(b))
        return num_cmp(a, b);
    if (a->kind != b->kind)
        return 3;
    switch (a->kind) {
    case DRA_CEL_STRING:
    case DRA_CEL_BYTES:
        return bytes_cmp(a->v.s, a->len, b->v.s, b->len);
    case DRA_CEL_BOOL:
        return a->v.b == b->v.b ? 0 : a->v.b ? 1 : -1;
    default:
        return 3;
    }
}

