/*
 * libutil.c - helpers of the CEL function library files (libint.h): the error values every
 * function returns (out of memory, no such overload), list building, value printing (also used by
 * eval.c), UTF-8 code points, list search and sorting. Calls nothing of the library files.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "libint.h"

dra_cel_val_t dra_cel__oom(dra_cel_ctx_t *c)
{
    c->oom = true;
    return dra_cel_err(c, "out of memory");
}

dra_cel_val_t dra_cel__no_overload(dra_cel_ctx_t *c, unsigned fn, const dra_cel_val_t *a,
                                   uint32_t n)
{
    char buf[200];
    size_t o = 0;
    buf[0] = 0;
    for (uint32_t i = 0; i < n && o < sizeof buf - 40; i++)
        o += (size_t)snprintf(buf + o, sizeof buf - o, "%s%s", i ? ", " : "",
                              dra_cel_kind_type_name(&a[i]));
    return dra_cel_err(c, "no such overload: %s(%s)", dra_cel_fn_name(fn), buf);
}

/* ---- small builders ------------------------------------------------------------------------- */

dra_cel_val_t dra_cel__mk_list(dra_cel_ctx_t *c, uint32_t n, dra_cel_val_t **items)
{
    dra_cel_list_t *l = dra_arena_alloc(c->a, sizeof *l, 8);
    dra_cel_val_t *it = dra_arena_alloc(c->a, (n ? n : 1) * sizeof *it, 8);
    if (!l || !it)
        return dra_cel__oom(c);
    l->n = n;
    l->cap = 0;
    l->items = it;
    *items = it;
    dra_cel_val_t v = {.kind = DRA_CEL_LIST};
    v.v.list = l;
    return v;
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
size_t dra_cel__fmt_double(double d, char *buf, size_t len)
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

void dra_cel__sb_put(dra_cel__sbuf_t *b, const char *s, size_t n)
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

void dra_cel__sb_puts(dra_cel__sbuf_t *b, const char *s)
{
    dra_cel__sb_put(b, s, strlen(s));
}

void dra_cel__quote_str(dra_cel__sbuf_t *b, const char *s, size_t n, char q)
{
    char qq[2] = {q, 0};
    dra_cel__sb_puts(b, qq);
    for (size_t i = 0; i < n; i++) {
        unsigned char ch = (unsigned char)s[i];
        char e[8];
        switch (ch) {
        case '\a': dra_cel__sb_puts(b, "\\a"); break;
        case '\b': dra_cel__sb_puts(b, "\\b"); break;
        case '\f': dra_cel__sb_puts(b, "\\f"); break;
        case '\n': dra_cel__sb_puts(b, "\\n"); break;
        case '\r': dra_cel__sb_puts(b, "\\r"); break;
        case '\t': dra_cel__sb_puts(b, "\\t"); break;
        case '\v': dra_cel__sb_puts(b, "\\v"); break;
        case '\\': dra_cel__sb_puts(b, "\\\\"); break;
        default:
            if (ch == (unsigned char)q) {
                dra_cel__sb_puts(b, "\\");
                dra_cel__sb_put(b, s + i, 1);
            } else if (ch < 0x20 || ch == 0x7F) {
                snprintf(e, sizeof e, "\\x%02x", ch);
                dra_cel__sb_puts(b, e);
            } else {
                dra_cel__sb_put(b, s + i, 1);
            }
        }
    }
    dra_cel__sb_puts(b, qq);
}

static void val_str(dra_cel__sbuf_t *b, const dra_cel_val_t *v, int depth)
{
    char tmp[64];
    if (depth > 50) {
        dra_cel__sb_puts(b, "...");
        return;
    }
    switch (v->kind) {
    case DRA_CEL_NULL: dra_cel__sb_puts(b, "null"); break;
    case DRA_CEL_BOOL: dra_cel__sb_puts(b, v->v.b ? "true" : "false"); break;
    case DRA_CEL_INT:
        snprintf(tmp, sizeof tmp, "%lld", (long long)v->v.i);
        dra_cel__sb_puts(b, tmp);
        break;
    case DRA_CEL_UINT:
        snprintf(tmp, sizeof tmp, "%lluu", (unsigned long long)v->v.u);
        dra_cel__sb_puts(b, tmp);
        break;
    case DRA_CEL_DOUBLE:
        dra_cel__fmt_double(v->v.d, tmp, sizeof tmp);
        dra_cel__sb_puts(b, tmp);
        if (isfinite(v->v.d) && !strpbrk(tmp, ".e"))
            dra_cel__sb_puts(b, ".0");
        break;
    case DRA_CEL_STRING: dra_cel__quote_str(b, v->v.s, v->len, '"'); break;
    case DRA_CEL_BYTES:
        dra_cel__sb_puts(b, "b");
        dra_cel__quote_str(b, v->v.s, v->len, '"');
        break;
    case DRA_CEL_TYPE: dra_cel__sb_put(b, v->v.s, v->len); break;
    case DRA_CEL_ERROR:
        dra_cel__sb_puts(b, "error: ");
        dra_cel__sb_put(b, v->v.s, v->len);
        break;
    case DRA_CEL_LIST:
        dra_cel__sb_puts(b, "[");
        for (uint32_t i = 0; i < v->v.list->n; i++) {
            if (i)
                dra_cel__sb_puts(b, ", ");
            val_str(b, &v->v.list->items[i], depth + 1);
        }
        dra_cel__sb_puts(b, "]");
        break;
    case DRA_CEL_MAP:
        dra_cel__sb_puts(b, "{");
        for (uint32_t i = 0; i < v->v.map->n; i++) {
            if (i)
                dra_cel__sb_puts(b, ", ");
            val_str(b, &v->v.map->keys[i], depth + 1);
            dra_cel__sb_puts(b, ": ");
            val_str(b, &v->v.map->vals[i], depth + 1);
        }
        dra_cel__sb_puts(b, "}");
        break;
    case DRA_CEL_OPTIONAL:
        if (!v->v.opt) {
            dra_cel__sb_puts(b, "optional.none()");
        } else {
            dra_cel__sb_puts(b, "optional.of(");
            val_str(b, v->v.opt, depth + 1);
            dra_cel__sb_puts(b, ")");
        }
        break;
    case DRA_CEL_QUANTITY: {
        char q[DRA_QUANTITY_FMT_MAX];
        dra_quantity_format(v->v.q, q, sizeof q);
        dra_cel__sb_puts(b, "quantity(\"");
        dra_cel__sb_puts(b, q);
        dra_cel__sb_puts(b, "\")");
        break;
    }
    case DRA_CEL_SEMVER:
        snprintf(tmp, sizeof tmp, "semver(\"%llu.%llu.%llu", (unsigned long long)v->v.sv->major,
                 (unsigned long long)v->v.sv->minor, (unsigned long long)v->v.sv->patch);
        dra_cel__sb_puts(b, tmp);
        if (v->v.sv->pre_len) {
            dra_cel__sb_puts(b, "-");
            dra_cel__sb_put(b, v->v.sv->pre, v->v.sv->pre_len);
        }
        dra_cel__sb_puts(b, "\")");
        break;
    default: dra_cel__sb_puts(b, "<device view>"); break;
    }
}

const char *dra_cel_val_str(dra_arena_t *a, const dra_cel_val_t *v)
{
    dra_cel__sbuf_t b = {.a = a};
    val_str(&b, v, 0);
    if (b.oom)
        return NULL;
    return b.p ? b.p : "";
}

/* ---- UTF-8 ---------------------------------------------------------------------------------- */

int64_t dra_cel__cp_count(const char *s, size_t n)
{
    int64_t k = 0;
    for (size_t i = 0; i < n; i += dra_cel__u8len((unsigned char)s[i]))
        k++;
    return k;
}

/* Byte offset of code point index cp (n if cp == count); -1 if beyond. */
int64_t dra_cel__cp_off(const char *s, size_t n, int64_t cp)
{
    size_t i = 0;
    for (int64_t k = 0; k < cp; k++) {
        if (i >= n)
            return -1;
        i += dra_cel__u8len((unsigned char)s[i]);
    }
    return i > n ? -1 : (int64_t)i;
}

bool dra_cel__utf8_valid(const char *s, size_t n)
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

uint32_t dra_cel__decode_cp(const char *s, size_t n, size_t *adv)
{
    const unsigned char *u = (const unsigned char *)s;
    size_t l = dra_cel__u8len(u[0]);
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

bool dra_cel__is_uspace(uint32_t cp)
{
    return cp == ' ' || (cp >= 0x09 && cp <= 0x0D) || cp == 0x85 || cp == 0xA0 || cp == 0x1680 ||
           (cp >= 0x2000 && cp <= 0x200A) || cp == 0x2028 || cp == 0x2029 || cp == 0x202F ||
           cp == 0x205F || cp == 0x3000;
}


/* ---- lists ---------------------------------------------------------------------------------- */

int dra_cel__list_index_of(const dra_cel_list_t *l, const dra_cel_val_t *x, bool last)
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

int dra_cel__cmp_for_sort(const dra_cel_val_t *a, const dra_cel_val_t *b)
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
bool dra_cel__sort_vals(dra_cel_ctx_t *c, dra_cel_val_t *items, dra_cel_val_t *keys, uint32_t n)
{
    dra_cel_val_t *k = keys ? keys : items;
    for (uint32_t i = 1; i < n; i++) {
        if (!dra_cel__charge(c, 1))
            return false;
        dra_cel_val_t xi = items[i], xk = k[i];
        uint32_t j = i;
        while (j > 0) {
            int r = dra_cel__cmp_for_sort(&k[j - 1], &xk);
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
        if (dra_cel__cmp_for_sort(&k[i - 1], &k[i]) == 2)
            return false;
    return true;
}

dra_cel_val_t dra_cel__copy_list(dra_cel_ctx_t *c, const dra_cel_list_t *l, dra_cel_val_t **it)
{
    dra_cel_val_t r = dra_cel__mk_list(c, l->n, it);
    if (!K(r, ERROR))
        memcpy(*it, l->items, l->n * sizeof **it);
    return r;
}

