/*
 * lib.c - the CEL function library: operators, conversions, strings (core and strings extension
 * v2), Kubernetes regex/lists/quantity/semver libraries, cel-go lists extension, sets, optional
 * types and DRA's includes(). Every function checks argument kinds at runtime (dynamic dispatch
 * like cel-go) and returns an error value on a mismatch ("no such overload").
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cel_int.h"

#define K(v, k) ((v).kind == DRA_CEL_##k)

static dra_cel_val_t oom(dra_cel_ctx_t *c)
{
    c->oom = true;
    return dra_cel_err(c, "out of memory");
}

static dra_cel_val_t no_overload(dra_cel_ctx_t *c, unsigned fn, const dra_cel_val_t *a, uint32_t n)
{
    char buf[200];
    size_t o = 0;
    buf[0] = 0;
    for (uint32_t i = 0; i < n && o < sizeof buf - 40; i++)
        o += (size_t)snprintf(buf + o, sizeof buf - o, "%s%s", i ? ", " : "",
                              dra_cel_kind_type_name(&a[i]));
    return dra_cel_err(c, "no such overload: %s(%s)", dra_cel_fn_name(fn), buf);
}

static bool charge(dra_cel_ctx_t *c, uint64_t u)
{
    c->cost += u;
    return c->cost <= c->cost_limit;
}

static dra_cel_val_t cost_err(void)
{
    dra_cel_val_t v = {.kind = DRA_CEL_ERROR, .sub = 1};
    v.v.s = DRA_CEL_COST_ERR_MSG;
    v.len = (uint32_t)strlen(DRA_CEL_COST_ERR_MSG);
    return v;
}

/* ---- small builders ------------------------------------------------------------------------- */

static dra_cel_val_t mk_list(dra_cel_ctx_t *c, uint32_t n, dra_cel_val_t **items)
{
    dra_cel_list_t *l = dra_arena_alloc(c->a, sizeof *l, 8);
    dra_cel_val_t *it = dra_arena_alloc(c->a, (n ? n : 1) * sizeof *it, 8);
    if (!l || !it)
        return oom(c);
    l->n = n;
    l->cap = 0;
    l->items = it;
    *items = it;
    dra_cel_val_t v = {.kind = DRA_CEL_LIST};
    v.v.list = l;
    return v;
}

static dra_cel_val_t mk_str(dra_cel_ctx_t *c, const char *s, size_t n)
{
    char *p = dra_arena_strndup(c->a, s, n);
    if (!p)
        return oom(c);
    return dra_cel_str(p, n);
}

static dra_cel_val_t mk_opt(dra_cel_ctx_t *c, const dra_cel_val_t *x)
{
    dra_cel_val_t v = {.kind = DRA_CEL_OPTIONAL};
    if (x) {
        dra_cel_val_t *p = dra_arena_alloc(c->a, sizeof *p, 8);
        if (!p)
            return oom(c);
        *p = *x;
        v.v.opt = p;
    }
    return v;
}

static dra_cel_val_t mk_q(dra_cel_ctx_t *c, const dra_quantity_t *q)
{
    dra_quantity_t *p = dra_arena_alloc(c->a, sizeof *p, 8);
    if (!p)
        return oom(c);
    *p = *q;
    dra_cel_val_t v = {.kind = DRA_CEL_QUANTITY};
    v.v.q = p;
    return v;
}

/* ---- UTF-8 ---------------------------------------------------------------------------------- */

static size_t u8len(unsigned char c)
{
    return c < 0x80 ? 1 : (c & 0xE0) == 0xC0 ? 2 : (c & 0xF0) == 0xE0 ? 3 : (c & 0xF8) == 0xF0 ? 4 : 1;
}

static int64_t cp_count(const char *s, size_t n)
{
    int64_t k = 0;
    for (size_t i = 0; i < n; i += u8len((unsigned char)s[i]))
        k++;
    return k;
}

/* Byte offset of code point index cp (n if cp == count); -1 if beyond. */
static int64_t cp_off(const char *s, size_t n, int64_t cp)
{
    size_t i = 0;
    for (int64_t k = 0; k < cp; k++) {
        if (i >= n)
            return -1;
        i += u8len((unsigned char)s[i]);
    }
    return i > n ? -1 : (int64_t)i;
}

static bool utf8_valid(const char *s, size_t n)
{
    const unsigned char *u = (const unsigned char *)s;
    for (size_t i = 0; i < n;) {
        unsigned c = u[i];
        size_t need;
        uint32_t cp;
        if (c < 0x80) {
            i++;
            continue;
        } else if ((c & 0xE0) == 0xC0) {
            need = 2;
            cp = c & 0x1F;
        } else if ((c & 0xF0) == 0xE0) {
            need = 3;
            cp = c & 0x0F;
        } else if ((c & 0xF8) == 0xF0) {
            need = 4;
            cp = c & 0x07;
        } else {
            return false;
        }
        if (i + need > n)
            return false;
        for (size_t k = 1; k < need; k++) {
            if ((u[i + k] & 0xC0) != 0x80)
                return false;
            cp = (cp << 6) | (u[i + k] & 0x3F);
        }
        if ((need == 2 && cp < 0x80) || (need == 3 && cp < 0x800) || (need == 4 && cp < 0x10000) ||
            cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF))
            return false;
        i += need;
    }
    return true;
}

static uint32_t decode_cp(const char *s, size_t n, size_t *adv)
{
    const unsigned char *u = (const unsigned char *)s;
    size_t l = u8len(u[0]);
    if (l > n)
        l = 1;
    *adv = l;
    if (l == 1)
        return u[0];
    uint32_t cp = u[0] & (0x7F >> l);
    for (size_t k = 1; k < l; k++)
        cp = (cp << 6) | (u[k] & 0x3F);
    return cp;
}

static bool is_uspace(uint32_t cp)
{
    return cp == ' ' || (cp >= 0x09 && cp <= 0x0D) || cp == 0x85 || cp == 0xA0 || cp == 0x1680 ||
           (cp >= 0x2000 && cp <= 0x200A) || cp == 0x2028 || cp == 0x2029 || cp == 0x202F ||
           cp == 0x205F || cp == 0x3000;
}

/* ---- value printing ------------------------------------------------------------------------- */

const char *dra_cel_kind_type_name(const dra_cel_val_t *v)
{
    switch (v->kind) {
    case DRA_CEL_NULL: return "null_type";
    case DRA_CEL_BOOL: return "bool";
    case DRA_CEL_INT: return "int";
    case DRA_CEL_UINT: return "uint";
    case DRA_CEL_DOUBLE: return "double";
    case DRA_CEL_STRING: return "string";
    case DRA_CEL_BYTES: return "bytes";
    case DRA_CEL_LIST: return "list";
    case DRA_CEL_MAP:
    case DRA_CEL_DOMAINS:
    case DRA_CEL_DOMAIN: return "map";
    case DRA_CEL_TYPE: return "type";
    case DRA_CEL_OPTIONAL: return "optional_type";
    case DRA_CEL_QUANTITY: return "kubernetes.Quantity";
    case DRA_CEL_SEMVER: return "kubernetes.Semver";
    case DRA_CEL_IP: return "net.IP";
    case DRA_CEL_CIDR: return "net.CIDR";
    case DRA_CEL_URL: return "kubernetes.URL";
    case DRA_CEL_DEVICE: return "kubernetes.DRADevice";
    default: return "error";
    }
}

/* Go strconv.FormatFloat(d, 'g', -1, 64). */
static size_t fmt_double(double d, char *buf, size_t len)
{
    if (isnan(d))
        return (size_t)snprintf(buf, len, "NaN");
    if (isinf(d))
        return (size_t)snprintf(buf, len, d > 0 ? "+Inf" : "-Inf");
    if (d == 0)
        return (size_t)snprintf(buf, len, signbit(d) ? "-0" : "0");
    char e[40];
    int p;
    for (p = 1; p <= 17; p++) {
        snprintf(e, sizeof e, "%.*e", p - 1, d);
        if (strtod(e, NULL) == d)
            break;
    }
    /* e = [-]D.DDDDe[+-]XX */
    char digits[40];
    size_t nd = 0;
    const char *q = e;
    bool neg = false;
    if (*q == '-') {
        neg = true;
        q++;
    }
    for (; *q && *q != 'e'; q++)
        if (*q != '.')
            digits[nd++] = *q;
    int exp = atoi(q + 1);
    while (nd > 1 && digits[nd - 1] == '0')
        nd--;
    size_t o = 0;
    char out[64];
    if (neg)
        out[o++] = '-';
    if (exp < -4 || exp >= 6) { /* Go %g, shortest form: exponent form below 1e-4 and from 1e6 */
        out[o++] = digits[0];
        if (nd > 1) {
            out[o++] = '.';
            for (size_t i = 1; i < nd; i++)
                out[o++] = digits[i];
        }
        o += (size_t)snprintf(out + o, sizeof out - o, "e%c%02d", exp < 0 ? '-' : '+', abs(exp));
    } else if (exp < 0) {
        out[o++] = '0';
        out[o++] = '.';
        for (int i = -1; i > exp; i--)
            out[o++] = '0';
        for (size_t i = 0; i < nd; i++)
            out[o++] = digits[i];
    } else {
        for (int i = 0; i <= exp; i++)
            out[o++] = (size_t)i < nd ? digits[i] : '0';
        if ((size_t)exp + 1 < nd) {
            out[o++] = '.';
            for (size_t i = (size_t)exp + 1; i < nd; i++)
                out[o++] = digits[i];
        }
    }
    out[o] = 0;
    return (size_t)snprintf(buf, len, "%s", out);
}

typedef struct sbuf {
    dra_arena_t *a;
    char *p;
    size_t n, cap;
    bool oom;
} sbuf_t;

static void sb_put(sbuf_t *b, const char *s, size_t n)
{
    if (b->oom)
        return;
    if (b->n + n + 1 > b->cap) {
        size_t nc = b->cap ? b->cap * 2 : 64;
        while (nc < b->n + n + 1)
            nc *= 2;
        char *np = dra_arena_alloc(b->a, nc, 1);
        if (!np) {
            b->oom = true;
            return;
        }
        if (b->n)
            memcpy(np, b->p, b->n);
        b->p = np;
        b->cap = nc;
    }
    memcpy(b->p + b->n, s, n);
    b->n += n;
    b->p[b->n] = 0;
}

static void sb_puts(sbuf_t *b, const char *s)
{
    sb_put(b, s, strlen(s));
}

static void quote_str(sbuf_t *b, const char *s, size_t n, char q)
{
    char qq[2] = {q, 0};
    sb_puts(b, qq);
    for (size_t i = 0; i < n; i++) {
        unsigned char ch = (unsigned char)s[i];
        char e[8];
        switch (ch) {
        case '\a': sb_puts(b, "\\a"); break;
        case '\b': sb_puts(b, "\\b"); break;
        case '\f': sb_puts(b, "\\f"); break;
        case '\n': sb_puts(b, "\\n"); break;
        case '\r': sb_puts(b, "\\r"); break;
        case '\t': sb_puts(b, "\\t"); break;
        case '\v': sb_puts(b, "\\v"); break;
        case '\\': sb_puts(b, "\\\\"); break;
        default:
            if (ch == (unsigned char)q) {
                sb_puts(b, "\\");
                sb_put(b, s + i, 1);
            } else if (ch < 0x20 || ch == 0x7F) {
                snprintf(e, sizeof e, "\\x%02x", ch);
                sb_puts(b, e);
            } else {
                sb_put(b, s + i, 1);
            }
        }
    }
    sb_puts(b, qq);
}

static void val_str(sbuf_t *b, const dra_cel_val_t *v, int depth)
{
    char tmp[64];
    if (depth > 50) {
        sb_puts(b, "...");
        return;
    }
    switch (v->kind) {
    case DRA_CEL_NULL: sb_puts(b, "null"); break;
    case DRA_CEL_BOOL: sb_puts(b, v->v.b ? "true" : "false"); break;
    case DRA_CEL_INT:
        snprintf(tmp, sizeof tmp, "%lld", (long long)v->v.i);
        sb_puts(b, tmp);
        break;
    case DRA_CEL_UINT:
        snprintf(tmp, sizeof tmp, "%lluu", (unsigned long long)v->v.u);
        sb_puts(b, tmp);
        break;
    case DRA_CEL_DOUBLE:
        fmt_double(v->v.d, tmp, sizeof tmp);
        sb_puts(b, tmp);
        if (isfinite(v->v.d) && !strpbrk(tmp, ".e"))
            sb_puts(b, ".0");
        break;
    case DRA_CEL_STRING: quote_str(b, v->v.s, v->len, '"'); break;
    case DRA_CEL_BYTES:
        sb_puts(b, "b");
        quote_str(b, v->v.s, v->len, '"');
        break;
    case DRA_CEL_TYPE: sb_put(b, v->v.s, v->len); break;
    case DRA_CEL_ERROR:
        sb_puts(b, "error: ");
        sb_put(b, v->v.s, v->len);
        break;
    case DRA_CEL_LIST:
        sb_puts(b, "[");
        for (uint32_t i = 0; i < v->v.list->n; i++) {
            if (i)
                sb_puts(b, ", ");
            val_str(b, &v->v.list->items[i], depth + 1);
        }
        sb_puts(b, "]");
        break;
    case DRA_CEL_MAP:
        sb_puts(b, "{");
        for (uint32_t i = 0; i < v->v.map->n; i++) {
            if (i)
                sb_puts(b, ", ");
            val_str(b, &v->v.map->keys[i], depth + 1);
            sb_puts(b, ": ");
            val_str(b, &v->v.map->vals[i], depth + 1);
        }
        sb_puts(b, "}");
        break;
    case DRA_CEL_OPTIONAL:
        if (!v->v.opt) {
            sb_puts(b, "optional.none()");
        } else {
            sb_puts(b, "optional.of(");
            val_str(b, v->v.opt, depth + 1);
            sb_puts(b, ")");
        }
        break;
    case DRA_CEL_QUANTITY: {
        char q[DRA_QUANTITY_FMT_MAX];
        dra_quantity_format(v->v.q, q, sizeof q);
        sb_puts(b, "quantity(\"");
        sb_puts(b, q);
        sb_puts(b, "\")");
        break;
    }
    case DRA_CEL_SEMVER:
        snprintf(tmp, sizeof tmp, "semver(\"%llu.%llu.%llu", (unsigned long long)v->v.sv->major,
                 (unsigned long long)v->v.sv->minor, (unsigned long long)v->v.sv->patch);
        sb_puts(b, tmp);
        if (v->v.sv->pre_len) {
            sb_puts(b, "-");
            sb_put(b, v->v.sv->pre, v->v.sv->pre_len);
        }
        sb_puts(b, "\")");
        break;
    default: sb_puts(b, "<device view>"); break;
    }
}

const char *dra_cel_val_str(dra_arena_t *a, const dra_cel_val_t *v)
{
    sbuf_t b = {.a = a};
    val_str(&b, v, 0);
    if (b.oom)
        return NULL;
    return b.p ? b.p : "";
}

/* ---- arithmetic ----------------------------------------------------------------------------- */

static dra_cel_val_t arith(dra_cel_ctx_t *c, unsigned fn, const dra_cel_val_t *a, const dra_cel_val_t *b)
{
    if (a->kind != b->kind)
        return no_overload(c, fn, (dra_cel_val_t[]){*a, *b}, 2);
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
        if (!charge(c, n / 16))
            return cost_err();
        char *p = dra_arena_alloc(c->a, n + 1, 1);
        if (!p)
            return oom(c);
        memcpy(p, a->v.s, a->len);
        memcpy(p + a->len, b->v.s, b->len);
        p[n] = 0;
        dra_cel_val_t r = dra_cel_str(p, n);
        r.kind = a->kind;
        return r;
    } else if (fn == DRA_CEL_FN_ADD && K(*a, LIST)) {
        uint32_t n = a->v.list->n + b->v.list->n;
        if (!charge(c, n / 8))
            return cost_err();
        dra_cel_val_t *it = NULL;
        dra_cel_val_t r = mk_list(c, n, &it);
        if (K(r, ERROR))
            return r;
        memcpy(it, a->v.list->items, a->v.list->n * sizeof *it);
        memcpy(it + a->v.list->n, b->v.list->items, b->v.list->n * sizeof *it);
        return r;
    }
    return no_overload(c, fn, (dra_cel_val_t[]){*a, *b}, 2);
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

static dra_cel_val_t conv(dra_cel_ctx_t *c, unsigned fn, const dra_cel_val_t *a)
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
                return oom(c);
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
            fmt_double(a->v.d, buf, sizeof buf);
            if (!strcmp(buf, "+Inf"))
                strcpy(buf, "+Inf");
            return mk_str(c, buf, strlen(buf));
        case DRA_CEL_BOOL: return a->v.b ? dra_cel_str("true", 4) : dra_cel_str("false", 5);
        case DRA_CEL_BYTES:
            if (!utf8_valid(a->v.s, a->len))
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
    return no_overload(c, fn, a, 1);
}

/* ---- strings -------------------------------------------------------------------------------- */

static bool has_sub(const dra_cel_val_t *s, const dra_cel_val_t *t, int mode)
{
    if (t->len > s->len)
        return false;
    if (mode == 1)
        return !memcmp(s->v.s, t->v.s, t->len);
    if (mode == 2)
        return !memcmp(s->v.s + s->len - t->len, t->v.s, t->len);
    if (t->len == 0)
        return true;
    for (size_t i = 0; i + t->len <= s->len; i++)
        if (s->v.s[i] == t->v.s[0] && !memcmp(s->v.s + i, t->v.s, t->len))
            return true;
    return false;
}

static dra_cel_val_t regex_fn(dra_cel_ctx_t *c, const dra_cel_expr_t *e, unsigned fn,
                              const dra_cel_val_t *s, const dra_cel_val_t *pat, int64_t limit)
{
    char eb[256];
    const void *re = e ? e->u.call.aux : NULL;
    if (!charge(c, s->len / 8 + 1))
        return cost_err();
    if (!re) {
        re = dra_cel_regex_compile(c->a, pat->v.s, pat->len, eb, sizeof eb);
        if (!re)
            return dra_cel_err(c, "%s", eb);
    }
    size_t ms, me;
    if (fn == DRA_CEL_FN_MATCHES || fn == DRA_CEL_FN_FIND) {
        int r = dra_cel_regex_search(c->a, re, s->v.s, s->len, 0, &ms, &me, eb, sizeof eb);
        if (r < 0)
            return dra_cel_err(c, "%s", eb);
        if (fn == DRA_CEL_FN_MATCHES)
            return dra_cel_bool(r == 1);
        return r ? dra_cel_str(s->v.s + ms, me - ms) : dra_cel_str("", 0);
    }
    /* findAll */
    uint32_t cap = 8, n = 0;
    dra_cel_val_t *items = dra_arena_alloc(c->a, cap * sizeof *items, 8);
    if (!items)
        return oom(c);
    size_t pos = 0;
    while (pos <= s->len && (limit < 0 || (int64_t)n < limit)) {
        int r = dra_cel_regex_search(c->a, re, s->v.s, s->len, pos, &ms, &me, eb, sizeof eb);
        if (r < 0)
            return dra_cel_err(c, "%s", eb);
        if (r == 0)
            break;
        if (n == cap) {
            dra_cel_val_t *ni = dra_arena_alloc(c->a, cap * 2 * sizeof *ni, 8);
            if (!ni)
                return oom(c);
            memcpy(ni, items, n * sizeof *ni);
            items = ni;
            cap *= 2;
        }
        items[n++] = dra_cel_str(s->v.s + ms, me - ms);
        pos = me > ms ? me : me + (me < s->len ? u8len((unsigned char)s->v.s[me]) : 1);
    }
    dra_cel_val_t *it = NULL;
    dra_cel_val_t l = mk_list(c, n, &it);
    if (K(l, ERROR))
        return l;
    memcpy(it, items, n * sizeof *it);
    return l;
}

static dra_cel_val_t str_index_of(dra_cel_ctx_t *c, const dra_cel_val_t *s, const dra_cel_val_t *t,
                                  const dra_cel_val_t *start, bool last)
{
    int64_t ncp = cp_count(s->v.s, s->len);
    int64_t st = start ? start->v.i : (last ? ncp : 0);
    if (st < 0 || st > ncp)
        return dra_cel_err(c, "index out of range: %lld", (long long)st);
    int64_t tcp = cp_count(t->v.s, t->len);
    if (!last) {
        int64_t off = cp_off(s->v.s, s->len, st);
        for (int64_t cp = st, i = off; i + (int64_t)t->len <= (int64_t)s->len; cp++) {
            if (!memcmp(s->v.s + i, t->v.s, t->len))
                return dra_cel_int(cp);
            i += (int64_t)u8len((unsigned char)s->v.s[i]);
            if (i > (int64_t)s->len)
                break;
        }
        return dra_cel_int(-1);
    }
    int64_t best = -1;
    int64_t i = 0;
    for (int64_t cp = 0; cp <= ncp && cp <= st; cp++) {
        if (i + (int64_t)t->len <= (int64_t)s->len && !memcmp(s->v.s + i, t->v.s, t->len))
            best = cp;
        if (i >= (int64_t)s->len)
            break;
        i += (int64_t)u8len((unsigned char)s->v.s[i]);
    }
    (void)tcp;
    return dra_cel_int(best);
}

static dra_cel_val_t str_replace(dra_cel_ctx_t *c, const dra_cel_val_t *s, const dra_cel_val_t *from,
                                 const dra_cel_val_t *to, int64_t n)
{
    sbuf_t b = {.a = c->a};
    size_t i = 0;
    int64_t done = 0;
    sb_put(&b, "", 0);
    while (i <= s->len) {
        if ((n < 0 || done < n) && i + from->len <= s->len &&
            !memcmp(s->v.s + i, from->v.s, from->len)) {
            sb_put(&b, to->v.s, to->len);
            done++;
            if (from->len == 0) {
                if (i < s->len) {
                    size_t l = u8len((unsigned char)s->v.s[i]);
                    sb_put(&b, s->v.s + i, l);
                    i += l;
                } else {
                    break;
                }
            } else {
                i += from->len;
            }
            continue;
        }
        if (i == s->len)
            break;
        sb_put(&b, s->v.s + i, 1);
        i++;
    }
    if (b.oom)
        return oom(c);
    if (!charge(c, b.n / 16))
        return cost_err();
    return dra_cel_str(b.p, b.n);
}

static dra_cel_val_t str_split(dra_cel_ctx_t *c, const dra_cel_val_t *s, const dra_cel_val_t *sep,
                               int64_t n)
{
    if (n == 0) {
        dra_cel_val_t *it = NULL;
        return mk_list(c, 0, &it);
    }
    uint32_t cap = 8, k = 0;
    dra_cel_val_t *items = dra_arena_alloc(c->a, cap * sizeof *items, 8);
    if (!items)
        return oom(c);
#define PUSH(V)                                                                                    \
    do {                                                                                           \
        if (k == cap) {                                                                            \
            dra_cel_val_t *ni = dra_arena_alloc(c->a, cap * 2 * sizeof *ni, 8);                    \
            if (!ni)                                                                               \
                return oom(c);                                                                     \
            memcpy(ni, items, k * sizeof *ni);                                                     \
            items = ni;                                                                            \
            cap *= 2;                                                                              \
        }                                                                                          \
        items[k++] = (V);                                                                          \
    } while (0)
    if (sep->len == 0) {
        size_t i = 0;
        while (i < s->len) {
            if (n > 0 && (int64_t)k == n - 1) {
                PUSH(dra_cel_str(s->v.s + i, s->len - i));
                i = s->len;
                break;
            }
            size_t l = u8len((unsigned char)s->v.s[i]);
            PUSH(dra_cel_str(s->v.s + i, l));
            i += l;
        }
    } else {
        size_t start = 0, i = 0;
        while (i + sep->len <= s->len) {
            if ((n < 0 || (int64_t)k < n - 1) && !memcmp(s->v.s + i, sep->v.s, sep->len)) {
                PUSH(dra_cel_str(s->v.s + start, i - start));
                i += sep->len;
                start = i;
            } else {
                i++;
            }
        }
        PUSH(dra_cel_str(s->v.s + start, s->len - start));
    }
#undef PUSH
    if (!charge(c, k))
        return cost_err();
    dra_cel_val_t *it = NULL;
    dra_cel_val_t l = mk_list(c, k, &it);
    if (K(l, ERROR))
        return l;
    memcpy(it, items, k * sizeof *it);
    return l;
}

/* strings.format (strings extension v2 semantics, approximately). */
static bool fmt_value(dra_cel_ctx_t *c, sbuf_t *b, char verb, int prec, const dra_cel_val_t *v,
                      dra_cel_val_t *err);

static bool fmt_s(dra_cel_ctx_t *c, sbuf_t *b, const dra_cel_val_t *v, dra_cel_val_t *err, int depth)
{
    char tmp[64];
    switch (v->kind) {
    case DRA_CEL_STRING: sb_put(b, v->v.s, v->len); return true;
    case DRA_CEL_BYTES: sb_put(b, v->v.s, v->len); return true;
    case DRA_CEL_DOUBLE:
        if (isnan(v->v.d) || isinf(v->v.d)) {
            sb_puts(b, isnan(v->v.d) ? "NaN" : v->v.d > 0 ? "Infinity" : "-Infinity");
            return true;
        }
        DRA_FALLTHROUGH;
    case DRA_CEL_INT:
    case DRA_CEL_UINT:
    case DRA_CEL_BOOL: {
        dra_cel_val_t s = conv(c, DRA_CEL_FN_STRING, v);
        if (K(s, ERROR)) {
            *err = s;
            return false;
        }
        sb_put(b, s.v.s, s.len);
        return true;
    }
    case DRA_CEL_NULL: sb_puts(b, "null"); return true;
    case DRA_CEL_TYPE: sb_put(b, v->v.s, v->len); return true;
    case DRA_CEL_LIST:
        sb_puts(b, "[");
        for (uint32_t i = 0; i < v->v.list->n; i++) {
            if (i)
                sb_puts(b, ", ");
            const dra_cel_val_t *x = &v->v.list->items[i];
            if (!fmt_s(c, b, x, err, depth + 1))
                return false;
        }
        sb_puts(b, "]");
        return true;
    case DRA_CEL_MAP:
        sb_puts(b, "{");
        for (uint32_t i = 0; i < v->v.map->n; i++) {
            if (i)
                sb_puts(b, ", ");
            if (!fmt_s(c, b, &v->v.map->keys[i], err, depth + 1))
                return false;
            sb_puts(b, ": ");
            if (!fmt_s(c, b, &v->v.map->vals[i], err, depth + 1))
                return false;
        }
        sb_puts(b, "}");
        return true;
    default:
        (void)tmp;
        *err = dra_cel_err(c, "error during formatting: unsupported type %s", dra_cel_kind_type_name(v));
        return false;
    }
}

static bool fmt_value(dra_cel_ctx_t *c, sbuf_t *b, char verb, int prec, const dra_cel_val_t *v,
                      dra_cel_val_t *err)
{
    char tmp[128];
    switch (verb) {
    case 's':
        return fmt_s(c, b, v, err, 0);
    case 'd':
        if (K(*v, INT))
            snprintf(tmp, sizeof tmp, "%lld", (long long)v->v.i);
        else if (K(*v, UINT))
            snprintf(tmp, sizeof tmp, "%llu", (unsigned long long)v->v.u);
        else if (K(*v, DOUBLE) && (isnan(v->v.d) || isinf(v->v.d)))
            snprintf(tmp, sizeof tmp, "%s", isnan(v->v.d) ? "NaN" : v->v.d > 0 ? "Infinity" : "-Infinity");
        else {
            *err = dra_cel_err(c, "error during formatting: decimal clause can only be used on integers, was given %s",
                               dra_cel_kind_type_name(v));
            return false;
        }
        sb_puts(b, tmp);
        return true;
    case 'f':
    case 'e': {
        double d;
        if (K(*v, DOUBLE))
            d = v->v.d;
        else if (K(*v, INT))
            d = (double)v->v.i;
        else if (K(*v, UINT))
            d = (double)v->v.u;
        else {
            *err = dra_cel_err(c, "error during formatting: %s clause can only be used on doubles, was given %s",
                               verb == 'f' ? "fixed-point" : "scientific", dra_cel_kind_type_name(v));
            return false;
        }
        if (isnan(d))
            snprintf(tmp, sizeof tmp, "NaN");
        else if (isinf(d))
            snprintf(tmp, sizeof tmp, d > 0 ? "Infinity" : "-Infinity");
        else
            snprintf(tmp, sizeof tmp, verb == 'f' ? "%.*f" : "%.*e", prec < 0 ? 6 : prec, d);
        sb_puts(b, tmp);
        return true;
    }
    case 'x':
    case 'X':
    case 'o':
    case 'b': {
        if (K(*v, STRING) || K(*v, BYTES)) {
            if (verb == 'o' || verb == 'b') {
                *err = dra_cel_err(c, "error during formatting: %s clause can only be used on integers, was given %s",
                                   verb == 'o' ? "octal" : "binary", dra_cel_kind_type_name(v));
                return false;
            }
            for (uint32_t i = 0; i < v->len; i++) {
                snprintf(tmp, sizeof tmp, verb == 'x' ? "%02x" : "%02X", (unsigned char)v->v.s[i]);
                sb_puts(b, tmp);
            }
            return true;
        }
        uint64_t u;
        bool neg = false;
        if (K(*v, INT)) {
            neg = v->v.i < 0;
            u = neg ? (uint64_t)0 - (uint64_t)v->v.i : (uint64_t)v->v.i;
        } else if (K(*v, UINT)) {
            u = v->v.u;
        } else if (K(*v, BOOL) && verb == 'b') {
            u = v->v.b;
        } else {
            *err = dra_cel_err(c, "error during formatting: only integers, byte buffers, and strings can be formatted as hex, was given %s",
                               dra_cel_kind_type_name(v));
            return false;
        }
        if (neg)
            sb_puts(b, "-");
        if (verb == 'b') {
            char bits[65];
            int k = 64;
            bits[k] = 0;
            do {
                bits[--k] = (char)('0' + (u & 1));
                u >>= 1;
            } while (u);
            sb_puts(b, bits + k);
        } else {
            snprintf(tmp, sizeof tmp, verb == 'x' ? "%llx" : verb == 'X' ? "%llX" : "%llo",
                     (unsigned long long)u);
            sb_puts(b, tmp);
        }
        return true;
    }
    default:
        *err = dra_cel_err(c, "could not parse formatting clause: unrecognized formatting clause \"%c\"", verb);
        return false;
    }
}

static dra_cel_val_t str_format(dra_cel_ctx_t *c, const dra_cel_val_t *f, const dra_cel_val_t *args)
{
    sbuf_t b = {.a = c->a};
    sb_put(&b, "", 0);
    uint32_t ai = 0;
    const dra_cel_list_t *l = args->v.list;
    for (uint32_t i = 0; i < f->len; i++) {
        char ch = f->v.s[i];
        if (ch != '%') {
            sb_put(&b, &f->v.s[i], 1);
            continue;
        }
        if (i + 1 >= f->len)
            return dra_cel_err(c, "could not parse formatting clause: unexpected end of string");
        i++;
        if (f->v.s[i] == '%') {
            sb_puts(&b, "%");
            continue;
        }
        int prec = -1;
        if (f->v.s[i] == '.') {
            prec = 0;
            i++;
            while (i < f->len && f->v.s[i] >= '0' && f->v.s[i] <= '9') {
                prec = prec * 10 + (f->v.s[i] - '0');
                if (prec > 1000)
                    return dra_cel_err(c, "could not parse formatting clause: precision too large");
                i++;
            }
            if (i >= f->len)
                return dra_cel_err(c, "could not parse formatting clause: unexpected end of string");
        }
        if (ai >= l->n)
            return dra_cel_err(c, "index %u out of range", ai);
        dra_cel_val_t err;
        if (!fmt_value(c, &b, f->v.s[i], prec, &l->items[ai++], &err))
            return err;
    }
    if (b.oom)
        return oom(c);
    return dra_cel_str(b.p, b.n);
}

/* ---- lists ---------------------------------------------------------------------------------- */

static int list_index_of(const dra_cel_list_t *l, const dra_cel_val_t *x, bool last)
{
    int r = -1;
    for (uint32_t i = 0; i < l->n; i++)
        if (dra_cel_equal(&l->items[i], x) == 1) {
            r = (int)i;
            if (!last)
                return r;
        }
    return r;
}

static int cmp_for_sort(const dra_cel_val_t *a, const dra_cel_val_t *b)
{
    if (K(*a, QUANTITY) && K(*b, QUANTITY))
        return dra_quantity_cmp(a->v.q, b->v.q);
    if (K(*a, SEMVER) && K(*b, SEMVER))
        return dra_semver_cmp(a->v.sv, b->v.sv);
    int r = dra_cel_order(a, b);
    return r > 1 ? 2 : r;
}

/* Stable insertion/merge sort of items (with optional parallel keys). Returns false if not
 * comparable. */
static bool sort_vals(dra_cel_ctx_t *c, dra_cel_val_t *items, dra_cel_val_t *keys, uint32_t n)
{
    dra_cel_val_t *k = keys ? keys : items;
    for (uint32_t i = 1; i < n; i++) {
        if (!charge(c, 1))
            return false;
        dra_cel_val_t xi = items[i], xk = k[i];
        uint32_t j = i;
        while (j > 0) {
            int r = cmp_for_sort(&k[j - 1], &xk);
            if (r == 2 || (r != -1 && r != 0 && r != 1))
                return false;
            if (r <= 0)
                break;
            items[j] = items[j - 1];
            if (keys)
                k[j] = k[j - 1];
            j--;
        }
        items[j] = xi;
        if (keys)
            k[j] = xk;
    }
    for (uint32_t i = 1; i < n; i++)
        if (cmp_for_sort(&k[i - 1], &k[i]) == 2)
            return false;
    return true;
}

static dra_cel_val_t copy_list(dra_cel_ctx_t *c, const dra_cel_list_t *l, dra_cel_val_t **it)
{
    dra_cel_val_t r = mk_list(c, l->n, it);
    if (!K(r, ERROR))
        memcpy(*it, l->items, l->n * sizeof **it);
    return r;
}

static dra_cel_val_t flatten(dra_cel_ctx_t *c, const dra_cel_list_t *l, int64_t depth)
{
    sbuf_t dummy = {0};
    (void)dummy;
    uint32_t cap = l->n + 4, n = 0;
    dra_cel_val_t *items = dra_arena_alloc(c->a, cap * sizeof *items, 8);
    if (!items)
        return oom(c);
    for (uint32_t i = 0; i < l->n; i++) {
        const dra_cel_val_t *x = &l->items[i];
        dra_cel_val_t sub;
        const dra_cel_list_t *src = NULL;
        if (K(*x, LIST) && depth > 0) {
            sub = flatten(c, x->v.list, depth - 1);
            if (K(sub, ERROR))
                return sub;
            src = sub.v.list;
        }
        uint32_t add = src ? src->n : 1;
        if (n + add > cap) {
            uint32_t nc = (n + add) * 2;
            dra_cel_val_t *ni = dra_arena_alloc(c->a, nc * sizeof *ni, 8);
            if (!ni)
                return oom(c);
            memcpy(ni, items, n * sizeof *ni);
            items = ni;
            cap = nc;
        }
        if (src) {
            memcpy(items + n, src->items, src->n * sizeof *items);
            n += src->n;
        } else {
            items[n++] = *x;
        }
        if (!charge(c, add))
            return cost_err();
    }
    dra_cel_val_t *it = NULL;
    dra_cel_val_t r = mk_list(c, n, &it);
    if (!K(r, ERROR))
        memcpy(it, items, n * sizeof *it);
    return r;
}

static dra_cel_val_t includes(dra_cel_ctx_t *c, const dra_cel_val_t *a, const dra_cel_val_t *x)
{
    if (K(*a, LIST)) {
        if (a->v.list->n > 48)
            return dra_cel_err(c, "includes: list has more than 48 elements");
        for (uint32_t i = 0; i < a->v.list->n; i++)
            if (dra_cel_equal(&a->v.list->items[i], x) == 1)
                return dra_cel_bool(true);
        return dra_cel_bool(false);
    }
    return dra_cel_bool(dra_cel_equal(a, x) == 1);
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

/* ---- quantity / semver helpers -------------------------------------------------------------- */

static dra_cel_val_t parse_quantity(dra_cel_ctx_t *c, const dra_cel_val_t *s, bool is_check)
{
    dra_quantity_t q;
    dra_diag_t d;
    dra_diag_clear(&d);
    int rc = dra_quantity_parse(s->v.s, s->len, &q, &d);
    if (is_check)
        return dra_cel_bool(rc == DRA_OK);
    if (rc != DRA_OK)
        return dra_cel_err(c, "%s", d.msg[0] ? d.msg : "quantities must match the regular expression");
    return mk_q(c, &q);
}

static dra_cel_val_t parse_semver(dra_cel_ctx_t *c, const dra_cel_val_t *s, bool lenient,
                                  bool is_check)
{
    dra_semver_t *sv = dra_arena_alloc(c->a, sizeof *sv, 8);
    if (!sv)
        return oom(c);
    dra_diag_t d;
    dra_diag_clear(&d);
    int rc = dra_semver_parse(s->v.s, s->len, lenient, sv, &d);
    if (is_check)
        return dra_cel_bool(rc == DRA_OK);
    if (rc != DRA_OK)
        return dra_cel_err(c, "%s", d.msg[0] ? d.msg : "invalid semver");
    dra_cel_val_t v = {.kind = DRA_CEL_SEMVER};
    v.v.sv = sv;
    return v;
}

static int cmp3(int r)
{
    return r < 0 ? -1 : r > 0;
}

/* ---- dispatch ------------------------------------------------------------------------------- */

dra_cel_val_t dra_cel_call_fn(dra_cel_ctx_t *c, const dra_cel_expr_t *e, unsigned fn,
                              const dra_cel_val_t *a, uint32_t n, bool member)
{
    (void)member;
    dra_cel_val_t tmp0, tmp1;
    /* materialize device views for everything except size/in */
    if (n >= 1 && (a[0].kind >= DRA_CEL_DEVICE) && fn != DRA_CEL_FN_SIZE && fn != DRA_CEL_FN_IN) {
        tmp0 = dra_cel_materialize(c, &a[0]);
        if (K(tmp0, ERROR))
            return tmp0;
        dra_cel_val_t *na = dra_arena_alloc(c->a, n * sizeof *na, 8);
        if (!na)
            return oom(c);
        memcpy(na, a, n * sizeof *na);
        na[0] = tmp0;
        a = na;
    }
    if (n >= 2 && a[1].kind >= DRA_CEL_DEVICE && a[1].kind != DRA_CEL_ERROR && fn != DRA_CEL_FN_IN) {
        tmp1 = dra_cel_materialize(c, &a[1]);
        if (K(tmp1, ERROR))
            return tmp1;
        dra_cel_val_t *na = dra_arena_alloc(c->a, n * sizeof *na, 8);
        if (!na)
            return oom(c);
        memcpy(na, a, n * sizeof *na);
        na[1] = tmp1;
        a = na;
    }
    {
        dra_cel_val_t nr;
        if (fn >= DRA_CEL_FN_IP && dra_cel_netlib_call(c, fn, a, n, &nr))
            return nr;
        if (fn == DRA_CEL_FN_STRING && n == 1 && (K(a[0], IP) || K(a[0], CIDR)) &&
            dra_cel_netlib_call(c, fn, a, n, &nr))
            return nr;
    }
    switch (fn) {
    case DRA_CEL_FN_NOT:
        if (n == 1 && K(a[0], BOOL))
            return dra_cel_bool(!a[0].v.b);
        break;
    case DRA_CEL_FN_NEG:
        if (n == 1 && K(a[0], INT)) {
            if (a[0].v.i == INT64_MIN)
                return dra_cel_err(c, "integer overflow");
            return dra_cel_int(-a[0].v.i);
        }
        if (n == 1 && K(a[0], DOUBLE))
            return dra_cel_double(-a[0].v.d);
        break;
    case DRA_CEL_FN_EQ:
    case DRA_CEL_FN_NE: {
        int r = dra_cel_equal(&a[0], &a[1]);
        if (r < 0)
            return no_overload(c, fn, a, 2);
        return dra_cel_bool(fn == DRA_CEL_FN_EQ ? r == 1 : r != 1);
    }
    case DRA_CEL_FN_LT:
    case DRA_CEL_FN_LE:
    case DRA_CEL_FN_GT:
    case DRA_CEL_FN_GE: {
        int r = dra_cel_order(&a[0], &a[1]);
        if (r == 3)
            return no_overload(c, fn, a, 2);
        if (r == 2) /* cel-go: Double/Int/Uint Compare with a NaN operand */
            return dra_cel_err(c, "NaN values cannot be ordered");
        bool b = fn == DRA_CEL_FN_LT ? r < 0 : fn == DRA_CEL_FN_LE ? r <= 0 : fn == DRA_CEL_FN_GT ? r > 0 : r >= 0;
        return dra_cel_bool(b);
    }
    case DRA_CEL_FN_ADD:
    case DRA_CEL_FN_SUB:
    case DRA_CEL_FN_MUL:
    case DRA_CEL_FN_DIV:
    case DRA_CEL_FN_MOD:
        if (n == 2)
            return arith(c, fn, &a[0], &a[1]);
        break;
    case DRA_CEL_FN_IN: {
        const dra_cel_val_t *x = &a[0], *r = &a[1];
        if (K(*r, LIST) && e && e->u.call.aux == &dra_cel_in_set) {
            if (!charge(c, r->v.list->n / 4))
                return cost_err();
            for (uint32_t i = 0; i < r->v.list->n; i++)
                if (in_set_key(&r->v.list->items[i], x))
                    return dra_cel_bool(true);
            return dra_cel_bool(false);
        }
        if (K(*r, LIST)) {
            if (!charge(c, r->v.list->n / 4))
                return cost_err();
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
        break;
    }
    case DRA_CEL_FN_LIST_APPEND: {
        /* accumulator append: in place when the accumulator is a builder we own */
        if (!K(a[0], LIST))
            break;
        dra_cel_list_t *l = (dra_cel_list_t *)a[0].v.list;
        if (l->cap == 0) {
            dra_cel_list_t *nl = dra_arena_alloc(c->a, sizeof *nl, 8);
            uint32_t cap = l->n + 8;
            dra_cel_val_t *it = dra_arena_alloc(c->a, cap * sizeof *it, 8);
            if (!nl || !it)
                return oom(c);
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
                return oom(c);
            memcpy(it, l->items, l->n * sizeof *it);
            l->items = it;
            l->cap = cap;
        }
        l->items[l->n++] = a[1];
        dra_cel_val_t r = {.kind = DRA_CEL_LIST};
        r.v.list = l;
        return r;
    }
    case DRA_CEL_FN_MAP_INSERT: {
        if (!K(a[0], MAP))
            break;
        dra_cel_val_t k, v;
        if (n == 3) {
            k = a[1];
            v = a[2];
        } else {
            /* transformMapEntry: the expression yields a one-entry map */
            if (!K(a[1], MAP))
                return no_overload(c, fn, a, n);
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
                return oom(c);
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
                return oom(c);
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
    case DRA_CEL_FN_SORT_BY_KEYS: {
        if (n != 2 || !K(a[0], LIST) || !K(a[1], LIST) || a[0].v.list->n != a[1].v.list->n)
            break;
        dra_cel_val_t *it = NULL, *ks = NULL;
        dra_cel_val_t r = copy_list(c, a[0].v.list, &it);
        dra_cel_val_t kr = copy_list(c, a[1].v.list, &ks);
        if (K(r, ERROR))
            return r;
        if (K(kr, ERROR))
            return kr;
        if (!sort_vals(c, it, ks, a[0].v.list->n))
            return c->cost > c->cost_limit ? cost_err() : dra_cel_err(c, "sortBy: keys are not comparable");
        return r;
    }
    case DRA_CEL_FN_SIZE:
        if (n == 1) {
            switch (a[0].kind) {
            case DRA_CEL_STRING: return dra_cel_int(cp_count(a[0].v.s, a[0].len));
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
        break;
    case DRA_CEL_FN_INT:
    case DRA_CEL_FN_UINT:
    case DRA_CEL_FN_DOUBLE:
    case DRA_CEL_FN_STRING:
    case DRA_CEL_FN_BYTES:
    case DRA_CEL_FN_BOOL:
        if (n == 1)
            return conv(c, fn, &a[0]);
        break;
    case DRA_CEL_FN_DYN:
        if (n == 1)
            return a[0];
        break;
    case DRA_CEL_FN_TYPE:
        if (n == 1)
            return type_of(c, &a[0]);
        break;
    case DRA_CEL_FN_CONTAINS:
    case DRA_CEL_FN_STARTS_WITH:
    case DRA_CEL_FN_ENDS_WITH:
        if (n == 2 && K(a[0], STRING) && K(a[1], STRING)) {
            if (!charge(c, a[0].len / 16))
                return cost_err();
            return dra_cel_bool(has_sub(&a[0], &a[1], fn == DRA_CEL_FN_CONTAINS ? 0 : fn == DRA_CEL_FN_STARTS_WITH ? 1 : 2));
        }
        break;
    case DRA_CEL_FN_MATCHES:
    case DRA_CEL_FN_FIND:
        if (n == 2 && K(a[0], STRING) && K(a[1], STRING))
            return regex_fn(c, e, fn, &a[0], &a[1], -1);
        break;
    case DRA_CEL_FN_FIND_ALL:
        if (n >= 2 && n <= 3 && K(a[0], STRING) && K(a[1], STRING) && (n == 2 || K(a[2], INT)))
            return regex_fn(c, e, fn, &a[0], &a[1], n == 3 ? a[2].v.i : -1);
        break;
    case DRA_CEL_FN_CHAR_AT:
        if (n == 2 && K(a[0], STRING) && K(a[1], INT)) {
            int64_t i = a[1].v.i;
            int64_t ncp = cp_count(a[0].v.s, a[0].len);
            if (i < 0 || i > ncp)
                return dra_cel_err(c, "index out of range: %lld", (long long)i);
            if (i == ncp)
                return dra_cel_str("", 0);
            int64_t off = cp_off(a[0].v.s, a[0].len, i);
            return dra_cel_str(a[0].v.s + off, u8len((unsigned char)a[0].v.s[off]));
        }
        break;
    case DRA_CEL_FN_INDEX_OF:
    case DRA_CEL_FN_LAST_INDEX_OF:
        if (n >= 2 && K(a[0], STRING) && K(a[1], STRING) && (n == 2 || (n == 3 && K(a[2], INT))))
            return str_index_of(c, &a[0], &a[1], n == 3 ? &a[2] : NULL, fn == DRA_CEL_FN_LAST_INDEX_OF);
        if (n == 2 && K(a[0], LIST))
            return dra_cel_int(list_index_of(a[0].v.list, &a[1], fn == DRA_CEL_FN_LAST_INDEX_OF));
        break;
    case DRA_CEL_FN_LOWER_ASCII:
    case DRA_CEL_FN_UPPER_ASCII:
        if (n == 1 && K(a[0], STRING)) {
            char *p = dra_arena_alloc(c->a, a[0].len + 1, 1);
            if (!p)
                return oom(c);
            for (uint32_t i = 0; i < a[0].len; i++) {
                char ch = a[0].v.s[i];
                if (fn == DRA_CEL_FN_LOWER_ASCII && ch >= 'A' && ch <= 'Z')
                    ch = (char)(ch + 32);
                else if (fn == DRA_CEL_FN_UPPER_ASCII && ch >= 'a' && ch <= 'z')
                    ch = (char)(ch - 32);
                p[i] = ch;
            }
            p[a[0].len] = 0;
            return dra_cel_str(p, a[0].len);
        }
        break;
    case DRA_CEL_FN_REPLACE:
        if ((n == 3 || n == 4) && K(a[0], STRING) && K(a[1], STRING) && K(a[2], STRING) &&
            (n == 3 || K(a[3], INT)))
            return str_replace(c, &a[0], &a[1], &a[2], n == 4 ? a[3].v.i : -1);
        break;
    case DRA_CEL_FN_SPLIT:
        if ((n == 2 || n == 3) && K(a[0], STRING) && K(a[1], STRING) && (n == 2 || K(a[2], INT)))
            return str_split(c, &a[0], &a[1], n == 3 ? a[2].v.i : -1);
        break;
    case DRA_CEL_FN_SUBSTRING:
        if ((n == 2 || n == 3) && K(a[0], STRING) && K(a[1], INT) && (n == 2 || K(a[2], INT))) {
            int64_t ncp = cp_count(a[0].v.s, a[0].len);
            int64_t s = a[1].v.i, t = n == 3 ? a[2].v.i : ncp;
            if (s < 0 || s > ncp)
                return dra_cel_err(c, "index out of range: %lld", (long long)s);
            if (t < 0 || t > ncp)
                return dra_cel_err(c, "index out of range: %lld", (long long)t);
            if (s > t)
                return dra_cel_err(c, "invalid substring range. start: %lld, end: %lld", (long long)s,
                                   (long long)t);
            int64_t so = cp_off(a[0].v.s, a[0].len, s), eo = cp_off(a[0].v.s, a[0].len, t);
            return dra_cel_str(a[0].v.s + so, (size_t)(eo - so));
        }
        break;
    case DRA_CEL_FN_TRIM:
        if (n == 1 && K(a[0], STRING)) {
            const char *s = a[0].v.s;
            size_t st = 0, en = a[0].len, adv;
            while (st < en && is_uspace(decode_cp(s + st, en - st, &adv)))
                st += adv;
            while (en > st) {
                size_t b = en - 1;
                while (b > st && ((unsigned char)s[b] & 0xC0) == 0x80)
                    b--;
                if (!is_uspace(decode_cp(s + b, en - b, &adv)))
                    break;
                en = b;
            }
            return dra_cel_str(s + st, en - st);
        }
        break;
    case DRA_CEL_FN_JOIN:
        if ((n == 1 || n == 2) && K(a[0], LIST) && (n == 1 || K(a[1], STRING))) {
            sbuf_t b = {.a = c->a};
            sb_put(&b, "", 0);
            for (uint32_t i = 0; i < a[0].v.list->n; i++) {
                const dra_cel_val_t *x = &a[0].v.list->items[i];
                if (!K(*x, STRING))
                    return dra_cel_err(c, "join: list element %u is not a string", i);
                if (i && n == 2)
                    sb_put(&b, a[1].v.s, a[1].len);
                sb_put(&b, x->v.s, x->len);
            }
            if (b.oom)
                return oom(c);
            return dra_cel_str(b.p, b.n);
        }
        break;
    case DRA_CEL_FN_FORMAT:
        if (n == 2 && K(a[0], STRING) && K(a[1], LIST))
            return str_format(c, &a[0], &a[1]);
        break;
    case DRA_CEL_FN_STRINGS_QUOTE:
        if (n == 1 && K(a[0], STRING)) {
            sbuf_t b = {.a = c->a};
            quote_str(&b, a[0].v.s, a[0].len, '"');
            if (b.oom)
                return oom(c);
            return dra_cel_str(b.p, b.n);
        }
        break;
    case DRA_CEL_FN_DISTINCT:
        if (n == 1 && K(a[0], LIST)) {
            const dra_cel_list_t *l = a[0].v.list;
            if (!charge(c, (uint64_t)l->n * l->n / 4))
                return cost_err();
            dra_cel_val_t *it = NULL;
            dra_cel_val_t r = mk_list(c, l->n, &it);
            if (K(r, ERROR))
                return r;
            uint32_t k = 0;
            for (uint32_t i = 0; i < l->n; i++) {
                bool dup = false;
                for (uint32_t j = 0; j < k && !dup; j++)
                    dup = dra_cel_equal(&it[j], &l->items[i]) == 1;
                if (!dup)
                    it[k++] = l->items[i];
            }
            ((dra_cel_list_t *)r.v.list)->n = k;
            return r;
        }
        break;
    case DRA_CEL_FN_FLATTEN:
        if ((n == 1 || n == 2) && K(a[0], LIST) && (n == 1 || K(a[1], INT))) {
            int64_t d = n == 2 ? a[1].v.i : 1;
            if (d < 0)
                return dra_cel_err(c, "level must be non-negative");
            return flatten(c, a[0].v.list, d);
        }
        break;
    case DRA_CEL_FN_LISTS_RANGE:
        if (n == 1 && K(a[0], INT)) {
            int64_t k = a[0].v.i < 0 ? 0 : a[0].v.i;
            if (!charge(c, (uint64_t)k))
                return cost_err();
            dra_cel_val_t *it = NULL;
            dra_cel_val_t r = mk_list(c, (uint32_t)k, &it);
            if (K(r, ERROR))
                return r;
            for (int64_t i = 0; i < k; i++)
                it[i] = dra_cel_int(i);
            return r;
        }
        break;
    case DRA_CEL_FN_REVERSE:
        if (n == 1 && K(a[0], LIST)) {
            const dra_cel_list_t *l = a[0].v.list;
            dra_cel_val_t *it = NULL;
            dra_cel_val_t r = mk_list(c, l->n, &it);
            if (K(r, ERROR))
                return r;
            for (uint32_t i = 0; i < l->n; i++)
                it[i] = l->items[l->n - 1 - i];
            return r;
        }
        break;
    case DRA_CEL_FN_SLICE:
        if (n == 3 && K(a[0], LIST) && K(a[1], INT) && K(a[2], INT)) {
            const dra_cel_list_t *l = a[0].v.list;
            int64_t s = a[1].v.i, t = a[2].v.i;
            if (s < 0 || t < 0)
                return dra_cel_err(c, "cannot slice(%lld, %lld), negative indexes not supported",
                                   (long long)s, (long long)t);
            if (s > t)
                return dra_cel_err(c, "cannot slice(%lld, %lld), start index must be less than or equal to end index",
                                   (long long)s, (long long)t);
            if (t > (int64_t)l->n)
                return dra_cel_err(c, "cannot slice(%lld, %lld), list is length %u", (long long)s,
                                   (long long)t, l->n);
            dra_cel_val_t *it = NULL;
            dra_cel_val_t r = mk_list(c, (uint32_t)(t - s), &it);
            if (!K(r, ERROR))
                memcpy(it, l->items + s, (size_t)(t - s) * sizeof *it);
            return r;
        }
        break;
    case DRA_CEL_FN_SORT:
        if (n == 1 && K(a[0], LIST)) {
            dra_cel_val_t *it = NULL;
            dra_cel_val_t r = copy_list(c, a[0].v.list, &it);
            if (K(r, ERROR))
                return r;
            if (!sort_vals(c, it, NULL, a[0].v.list->n))
                return c->cost > c->cost_limit ? cost_err() : dra_cel_err(c, "sort: list elements must be comparable");
            return r;
        }
        break;
    case DRA_CEL_FN_IS_SORTED:
        if (n == 1 && K(a[0], LIST)) {
            const dra_cel_list_t *l = a[0].v.list;
            for (uint32_t i = 1; i < l->n; i++) {
                int r = cmp_for_sort(&l->items[i - 1], &l->items[i]);
                if (r == 2 || r == 3)
                    return dra_cel_err(c, "isSorted: list elements must be comparable");
                if (r > 0)
                    return dra_cel_bool(false);
            }
            return dra_cel_bool(true);
        }
        break;
    case DRA_CEL_FN_SUM:
        if (n == 1 && K(a[0], LIST)) {
            const dra_cel_list_t *l = a[0].v.list;
            if (l->n == 0)
                return dra_cel_int(0);
            dra_cel_val_t acc = l->items[0];
            if (!K(acc, INT) && !K(acc, UINT) && !K(acc, DOUBLE))
                return no_overload(c, fn, &acc, 1);
            for (uint32_t i = 1; i < l->n; i++) {
                acc = arith(c, DRA_CEL_FN_ADD, &acc, &l->items[i]);
                if (K(acc, ERROR))
                    return acc;
            }
            return acc;
        }
        break;
    case DRA_CEL_FN_MIN:
    case DRA_CEL_FN_MAX:
        if (n == 1 && K(a[0], LIST)) {
            const dra_cel_list_t *l = a[0].v.list;
            if (l->n == 0)
                return dra_cel_err(c, "%s called on empty list", fn == DRA_CEL_FN_MIN ? "min" : "max");
            dra_cel_val_t best = l->items[0];
            for (uint32_t i = 1; i < l->n; i++) {
                int r = cmp_for_sort(&l->items[i], &best);
                if (r == 2 || r == 3)
                    return no_overload(c, fn, &l->items[i], 1);
                if ((fn == DRA_CEL_FN_MIN && r < 0) || (fn == DRA_CEL_FN_MAX && r > 0))
                    best = l->items[i];
            }
            return best;
        }
        break;
    case DRA_CEL_FN_INCLUDES:
        if (n == 2)
            return includes(c, &a[0], &a[1]);
        break;
    case DRA_CEL_FN_SETS_CONTAINS:
    case DRA_CEL_FN_SETS_EQUIVALENT:
    case DRA_CEL_FN_SETS_INTERSECTS:
        if (n == 2 && K(a[0], LIST) && K(a[1], LIST)) {
            const dra_cel_list_t *x = a[0].v.list, *y = a[1].v.list;
            if (!charge(c, (uint64_t)x->n * y->n / 4))
                return cost_err();
            if (fn == DRA_CEL_FN_SETS_INTERSECTS) {
                for (uint32_t i = 0; i < x->n; i++)
                    if (list_index_of(y, &x->items[i], false) >= 0)
                        return dra_cel_bool(true);
                return dra_cel_bool(false);
            }
            for (uint32_t i = 0; i < y->n; i++)
                if (list_index_of(x, &y->items[i], false) < 0)
                    return dra_cel_bool(false);
            if (fn == DRA_CEL_FN_SETS_EQUIVALENT)
                for (uint32_t i = 0; i < x->n; i++)
                    if (list_index_of(y, &x->items[i], false) < 0)
                        return dra_cel_bool(false);
            return dra_cel_bool(true);
        }
        break;
    case DRA_CEL_FN_OPT_OF:
        if (n == 1)
            return mk_opt(c, &a[0]);
        break;
    case DRA_CEL_FN_OPT_NONE:
        if (n == 0)
            return mk_opt(c, NULL);
        break;
    case DRA_CEL_FN_OPT_OF_NON_ZERO:
        if (n == 1)
            return mk_opt(c, is_zero_value(&a[0]) ? NULL : &a[0]);
        break;
    case DRA_CEL_FN_HAS_VALUE:
        if (n == 1 && K(a[0], OPTIONAL))
            return dra_cel_bool(a[0].v.opt != NULL);
        break;
    case DRA_CEL_FN_VALUE:
        if (n == 1 && K(a[0], OPTIONAL)) {
            if (!a[0].v.opt)
                return dra_cel_err(c, "optional.none() dereference");
            return *a[0].v.opt;
        }
        break;
    case DRA_CEL_FN_OR_VALUE:
        if (n == 2 && K(a[0], OPTIONAL))
            return a[0].v.opt ? *a[0].v.opt : a[1];
        break;
    case DRA_CEL_FN_OPT_OR:
        if (n == 2 && K(a[0], OPTIONAL) && K(a[1], OPTIONAL))
            return a[0].v.opt ? a[0] : a[1];
        break;
    case DRA_CEL_FN_QUANTITY:
    case DRA_CEL_FN_IS_QUANTITY:
        if (n == 1 && K(a[0], STRING))
            return parse_quantity(c, &a[0], fn == DRA_CEL_FN_IS_QUANTITY);
        break;
    case DRA_CEL_FN_SIGN:
        if (n == 1 && K(a[0], QUANTITY))
            return dra_cel_int(dra_quantity_sign(a[0].v.q));
        break;
    case DRA_CEL_FN_IS_GREATER_THAN:
    case DRA_CEL_FN_IS_LESS_THAN:
    case DRA_CEL_FN_COMPARE_TO:
        if (n == 2 && K(a[0], QUANTITY) && K(a[1], QUANTITY)) {
            int r = cmp3(dra_quantity_cmp(a[0].v.q, a[1].v.q));
            return fn == DRA_CEL_FN_COMPARE_TO ? dra_cel_int(r)
                                               : dra_cel_bool(fn == DRA_CEL_FN_IS_GREATER_THAN ? r > 0 : r < 0);
        }
        if (n == 2 && K(a[0], SEMVER) && K(a[1], SEMVER)) {
            int r = cmp3(dra_semver_cmp(a[0].v.sv, a[1].v.sv));
            return fn == DRA_CEL_FN_COMPARE_TO ? dra_cel_int(r)
                                               : dra_cel_bool(fn == DRA_CEL_FN_IS_GREATER_THAN ? r > 0 : r < 0);
        }
        break;
    case DRA_CEL_FN_Q_ADD:
    case DRA_CEL_FN_Q_SUB:
        if (n == 2 && K(a[0], QUANTITY) && (K(a[1], QUANTITY) || K(a[1], INT))) {
            dra_quantity_t rhs, out;
            if (K(a[1], INT))
                dra_quantity_from_int64_fmt(a[1].v.i, DRA_QFMT_DECIMAL_EXPONENT, &rhs);
            else
                rhs = *a[1].v.q;
            int rc = fn == DRA_CEL_FN_Q_ADD ? dra_quantity_add(a[0].v.q, &rhs, &out)
                                            : dra_quantity_sub(a[0].v.q, &rhs, &out);
            if (rc != DRA_OK)
                return dra_cel_err(c, "quantity arithmetic overflow");
            return mk_q(c, &out);
        }
        break;
    case DRA_CEL_FN_AS_INTEGER:
        if (n == 1 && K(a[0], QUANTITY)) {
            int64_t v;
            if (dra_quantity_as_int64(a[0].v.q, &v) != DRA_OK)
                return dra_cel_err(c, "cannot convert value to integer");
            return dra_cel_int(v);
        }
        break;
    case DRA_CEL_FN_IS_INTEGER:
        if (n == 1 && K(a[0], QUANTITY))
            return dra_cel_bool(dra_quantity_is_integer(a[0].v.q));
        break;
    case DRA_CEL_FN_AS_APPROX_FLOAT:
        if (n == 1 && K(a[0], QUANTITY))
            return dra_cel_double(dra_quantity_to_double(a[0].v.q));
        break;
    case DRA_CEL_FN_SEMVER:
    case DRA_CEL_FN_IS_SEMVER:
        if ((n == 1 || n == 2) && K(a[0], STRING) && (n == 1 || K(a[1], BOOL)))
            return parse_semver(c, &a[0], n == 2 && a[1].v.b, fn == DRA_CEL_FN_IS_SEMVER);
        break;
    case DRA_CEL_FN_MAJOR:
    case DRA_CEL_FN_MINOR:
    case DRA_CEL_FN_PATCH:
        if (n == 1 && K(a[0], SEMVER)) {
            uint64_t v = fn == DRA_CEL_FN_MAJOR ? a[0].v.sv->major
                         : fn == DRA_CEL_FN_MINOR ? a[0].v.sv->minor : a[0].v.sv->patch;
            return dra_cel_int((int64_t)v);
        }
        break;
    default:
        break;
    }
    if (fn == DRA_CEL_FN_NONE && e)
        return dra_cel_err(c, "no such overload: %s", e->u.call.name);
    return no_overload(c, fn, a, n);
}
