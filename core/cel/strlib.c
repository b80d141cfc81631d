/*
 * strlib.c - strings: UTF-8 helpers, the core string functions and the strings extension
 * (v2: charAt, indexOf, lowerAscii, replace, split, substring, trim, join, format, strings.quote),
 * Kubernetes regex (find, findAll).
 * Part of the CEL function library (lib.c dispatches to it); every function checks argument
 * kinds at runtime and the caller reports "no such overload" when none matches.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "libint.h"

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
    if (!dra_cel__charge(c, s->len / 8 + 1))
        return dra_cel__cost_err();
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
        return dra_cel__oom(c);
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
                return dra_cel__oom(c);
            memcpy(ni, items, n * sizeof *ni);
            items = ni;
            cap *= 2;
        }
        items[n++] = dra_cel_str(s->v.s + ms, me - ms);
        pos = me > ms ? me : me + (me < s->len ? dra_cel__u8len((unsigned char)s->v.s[me]) : 1);
    }
    dra_cel_val_t *it = NULL;
    dra_cel_val_t l = dra_cel__mk_list(c, n, &it);
    if (K(l, ERROR))
        return l;
    memcpy(it, items, n * sizeof *it);
    return l;
}

static dra_cel_val_t str_index_of(dra_cel_ctx_t *c, const dra_cel_val_t *s, const dra_cel_val_t *t,
                                  const dra_cel_val_t *start, bool last)
{
    int64_t ncp = dra_cel__cp_count(s->v.s, s->len);
    int64_t st = start ? start->v.i : (last ? ncp : 0);
    if (st < 0 || st > ncp)
        return dra_cel_err(c, "index out of range: %lld", (long long)st);
    int64_t tcp = dra_cel__cp_count(t->v.s, t->len);
    if (!last) {
        int64_t off = dra_cel__cp_off(s->v.s, s->len, st);
        for (int64_t cp = st, i = off; i + (int64_t)t->len <= (int64_t)s->len; cp++) {
            if (!memcmp(s->v.s + i, t->v.s, t->len))
                return dra_cel_int(cp);
            i += (int64_t)dra_cel__u8len((unsigned char)s->v.s[i]);
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
        i += (int64_t)dra_cel__u8len((unsigned char)s->v.s[i]);
    }
    (void)tcp;
    return dra_cel_int(best);
}

static dra_cel_val_t str_replace(dra_cel_ctx_t *c, const dra_cel_val_t *s, const dra_cel_val_t *from,
                                 const dra_cel_val_t *to, int64_t n)
{
    dra_cel__sbuf_t b = {.a = c->a};
    size_t i = 0;
    int64_t done = 0;
    dra_cel__sb_put(&b, "", 0);
    while (i <= s->len) {
        if ((n < 0 || done < n) && i + from->len <= s->len &&
            !memcmp(s->v.s + i, from->v.s, from->len)) {
            dra_cel__sb_put(&b, to->v.s, to->len);
            done++;
            if (from->len == 0) {
                if (i < s->len) {
                    size_t l = dra_cel__u8len((unsigned char)s->v.s[i]);
                    dra_cel__sb_put(&b, s->v.s + i, l);
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
        dra_cel__sb_put(&b, s->v.s + i, 1);
        i++;
    }
    if (b.oom)
        return dra_cel__oom(c);
    if (!dra_cel__charge(c, b.n / 16))
        return dra_cel__cost_err();
    return dra_cel_str(b.p, b.n);
}

static dra_cel_val_t str_split(dra_cel_ctx_t *c, const dra_cel_val_t *s, const dra_cel_val_t *sep,
                               int64_t n)
{
    if (n == 0) {
        dra_cel_val_t *it = NULL;
        return dra_cel__mk_list(c, 0, &it);
    }
    uint32_t cap = 8, k = 0;
    dra_cel_val_t *items = dra_arena_alloc(c->a, cap * sizeof *items, 8);
    if (!items)
        return dra_cel__oom(c);
#define PUSH(V)                                                                                    \
    do {                                                                                           \
        if (k == cap) {                                                                            \
            dra_cel_val_t *ni = dra_arena_alloc(c->a, cap * 2 * sizeof *ni, 8);                    \
            if (!ni)                                                                               \
                return dra_cel__oom(c);                                                                     \
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
            size_t l = dra_cel__u8len((unsigned char)s->v.s[i]);
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
    if (!dra_cel__charge(c, k))
        return dra_cel__cost_err();
    dra_cel_val_t *it = NULL;
    dra_cel_val_t l = dra_cel__mk_list(c, k, &it);
    if (K(l, ERROR))
        return l;
    memcpy(it, items, k * sizeof *it);
    return l;
}

/* strings.format (strings extension v2 semantics, approximately). */
static bool fmt_value(dra_cel_ctx_t *c, dra_cel__sbuf_t *b, char verb, int prec, const dra_cel_val_t *v,
                      dra_cel_val_t *err);

static bool fmt_s(dra_cel_ctx_t *c, dra_cel__sbuf_t *b, const dra_cel_val_t *v, dra_cel_val_t *err, int depth)
{
    char tmp[64];
    switch (v->kind) {
    case DRA_CEL_STRING: dra_cel__sb_put(b, v->v.s, v->len); return true;
    case DRA_CEL_BYTES: dra_cel__sb_put(b, v->v.s, v->len); return true;
    case DRA_CEL_DOUBLE:
        if (isnan(v->v.d) || isinf(v->v.d)) {
            dra_cel__sb_puts(b, isnan(v->v.d) ? "NaN" : v->v.d > 0 ? "Infinity" : "-Infinity");
            return true;
        }
        DRA_FALLTHROUGH;
    case DRA_CEL_INT:
    case DRA_CEL_UINT:
    case DRA_CEL_BOOL: {
        dra_cel_val_t s = dra_cel__conv(c, DRA_CEL_FN_STRING, v);
        if (K(s, ERROR)) {
            *err = s;
            return false;
        }
        dra_cel__sb_put(b, s.v.s, s.len);
        return true;
    }
    case DRA_CEL_NULL: dra_cel__sb_puts(b, "null"); return true;
    case DRA_CEL_TYPE: dra_cel__sb_put(b, v->v.s, v->len); return true;
    case DRA_CEL_LIST:
        dra_cel__sb_puts(b, "[");
        for (uint32_t i = 0; i < v->v.list->n; i++) {
            if (i)
                dra_cel__sb_puts(b, ", ");
            const dra_cel_val_t *x = &v->v.list->items[i];
            if (!fmt_s(c, b, x, err, depth + 1))
                return false;
        }
        dra_cel__sb_puts(b, "]");
        return true;
    case DRA_CEL_MAP:
        dra_cel__sb_puts(b, "{");
        for (uint32_t i = 0; i < v->v.map->n; i++) {
            if (i)
                dra_cel__sb_puts(b, ", ");
            if (!fmt_s(c, b, &v->v.map->keys[i], err, depth + 1))
                return false;
            dra_cel__sb_puts(b, ": ");
            if (!fmt_s(c, b, &v->v.map->vals[i], err, depth + 1))
                return false;
        }
        dra_cel__sb_puts(b, "}");
        return true;
    default:
        (void)tmp;
        *err = dra_cel_err(c, "error during formatting: unsupported type %s", dra_cel_kind_type_name(v));
        return false;
    }
}

static bool fmt_value(dra_cel_ctx_t *c, dra_cel__sbuf_t *b, char verb, int prec, const dra_cel_val_t *v,
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
        dra_cel__sb_puts(b, tmp);
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
        dra_cel__sb_puts(b, tmp);
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
                dra_cel__sb_puts(b, tmp);
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
            dra_cel__sb_puts(b, "-");
        if (verb == 'b') {
            char bits[65];
            int k = 64;
            bits[k] = 0;
            do {
                bits[--k] = (char)('0' + (u & 1));
                u >>= 1;
            } while (u);
            dra_cel__sb_puts(b, bits + k);
        } else {
            snprintf(tmp, sizeof tmp, verb == 'x' ? "%llx" : verb == 'X' ? "%llX" : "%llo",
                     (unsigned long long)u);
            dra_cel__sb_puts(b, tmp);
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
    dra_cel__sbuf_t b = {.a = c->a};
    dra_cel__sb_put(&b, "", 0);
    uint32_t ai = 0;
    const dra_cel_list_t *l = args->v.list;
    for (uint32_t i = 0; i < f->len; i++) {
        char ch = f->v.s[i];
        if (ch != '%') {
            dra_cel__sb_put(&b, &f->v.s[i], 1);
            continue;
        }
        if (i + 1 >= f->len)
            return dra_cel_err(c, "could not parse formatting clause: unexpected end of string");
        i++;
        if (f->v.s[i] == '%') {
            dra_cel__sb_puts(&b, "%");
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
        return dra_cel__oom(c);
    return dra_cel_str(b.p, b.n);
}

/* ---- the functions (rows of DRA_CEL_FN_MAP) ------------------------------------------------ */

/* CONTAINS, STARTS_WITH, ENDS_WITH */
DRA_CEL_IMPL(dra_cel_str_contains)
{
    if (n == 2 && K(a[0], STRING) && K(a[1], STRING)) {
        if (!dra_cel__charge(c, a[0].len / 16))
            return dra_cel__cost_err();
        return dra_cel_bool(has_sub(&a[0], &a[1], fn == DRA_CEL_FN_CONTAINS ? 0 : fn == DRA_CEL_FN_STARTS_WITH ? 1 : 2));
    }
    return dra_cel__no_overload(c, fn, a, n);
}

/* MATCHES, FIND */
DRA_CEL_IMPL(dra_cel_str_matches)
{
    if (n == 2 && K(a[0], STRING) && K(a[1], STRING))
        return regex_fn(c, e, fn, &a[0], &a[1], -1);
    return dra_cel__no_overload(c, fn, a, n);
}

/* FIND_ALL */
DRA_CEL_IMPL(dra_cel_str_find_all)
{
    if (n >= 2 && n <= 3 && K(a[0], STRING) && K(a[1], STRING) && (n == 2 || K(a[2], INT)))
        return regex_fn(c, e, fn, &a[0], &a[1], n == 3 ? a[2].v.i : -1);
    return dra_cel__no_overload(c, fn, a, n);
}

/* CHAR_AT */
DRA_CEL_IMPL(dra_cel_str_char_at)
{
    if (n == 2 && K(a[0], STRING) && K(a[1], INT)) {
        int64_t i = a[1].v.i;
        int64_t ncp = dra_cel__cp_count(a[0].v.s, a[0].len);
        if (i < 0 || i > ncp)
            return dra_cel_err(c, "index out of range: %lld", (long long)i);
        if (i == ncp)
            return dra_cel_str("", 0);
        int64_t off = dra_cel__cp_off(a[0].v.s, a[0].len, i);
        return dra_cel_str(a[0].v.s + off, dra_cel__u8len((unsigned char)a[0].v.s[off]));
    }
    return dra_cel__no_overload(c, fn, a, n);
}

/* INDEX_OF, LAST_INDEX_OF */
DRA_CEL_IMPL(dra_cel_str_index_of)
{
    if (n >= 2 && K(a[0], STRING) && K(a[1], STRING) && (n == 2 || (n == 3 && K(a[2], INT))))
        return str_index_of(c, &a[0], &a[1], n == 3 ? &a[2] : NULL, fn == DRA_CEL_FN_LAST_INDEX_OF);
    return dra_cel_list_index_of(c, e, fn, a, n); /* indexOf / lastIndexOf on a list */
}

/* LOWER_ASCII, UPPER_ASCII */
DRA_CEL_IMPL(dra_cel_str_lower_ascii)
{
    if (n == 1 && K(a[0], STRING)) {
        char *p = dra_arena_alloc(c->a, a[0].len + 1, 1);
        if (!p)
            return dra_cel__oom(c);
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
    return dra_cel__no_overload(c, fn, a, n);
}

/* REPLACE */
DRA_CEL_IMPL(dra_cel_str_replace)
{
    if ((n == 3 || n == 4) && K(a[0], STRING) && K(a[1], STRING) && K(a[2], STRING) &&
        (n == 3 || K(a[3], INT)))
        return str_replace(c, &a[0], &a[1], &a[2], n == 4 ? a[3].v.i : -1);
    return dra_cel__no_overload(c, fn, a, n);
}

/* SPLIT */
DRA_CEL_IMPL(dra_cel_str_split)
{
    if ((n == 2 || n == 3) && K(a[0], STRING) && K(a[1], STRING) && (n == 2 || K(a[2], INT)))
        return str_split(c, &a[0], &a[1], n == 3 ? a[2].v.i : -1);
    return dra_cel__no_overload(c, fn, a, n);
}

/* SUBSTRING */
DRA_CEL_IMPL(dra_cel_str_substring)
{
    if ((n == 2 || n == 3) && K(a[0], STRING) && K(a[1], INT) && (n == 2 || K(a[2], INT))) {
        int64_t ncp = dra_cel__cp_count(a[0].v.s, a[0].len);
        int64_t s = a[1].v.i, t = n == 3 ? a[2].v.i : ncp;
        if (s < 0 || s > ncp)
            return dra_cel_err(c, "index out of range: %lld", (long long)s);
        if (t < 0 || t > ncp)
            return dra_cel_err(c, "index out of range: %lld", (long long)t);
        if (s > t)
            return dra_cel_err(c, "invalid substring range. start: %lld, end: %lld", (long long)s,
                               (long long)t);
        int64_t so = dra_cel__cp_off(a[0].v.s, a[0].len, s), eo = dra_cel__cp_off(a[0].v.s, a[0].len, t);
        return dra_cel_str(a[0].v.s + so, (size_t)(eo - so));
    }
    return dra_cel__no_overload(c, fn, a, n);
}

/* TRIM */
DRA_CEL_IMPL(dra_cel_str_trim)
{
    if (n == 1 && K(a[0], STRING)) {
        const char *s = a[0].v.s;
        size_t st = 0, en = a[0].len, adv;
        while (st < en && dra_cel__is_uspace(dra_cel__decode_cp(s + st, en - st, &adv)))
            st += adv;
        while (en > st) {
            size_t b = en - 1;
            while (b > st && ((unsigned char)s[b] & 0xC0) == 0x80)
                b--;
            if (!dra_cel__is_uspace(dra_cel__decode_cp(s + b, en - b, &adv)))
                break;
            en = b;
        }
        return dra_cel_str(s + st, en - st);
    }
    return dra_cel__no_overload(c, fn, a, n);
}

/* JOIN */
DRA_CEL_IMPL(dra_cel_str_join)
{
    if ((n == 1 || n == 2) && K(a[0], LIST) && (n == 1 || K(a[1], STRING))) {
        dra_cel__sbuf_t b = {.a = c->a};
        dra_cel__sb_put(&b, "", 0);
        for (uint32_t i = 0; i < a[0].v.list->n; i++) {
            const dra_cel_val_t *x = &a[0].v.list->items[i];
            if (!K(*x, STRING))
                return dra_cel_err(c, "join: list element %u is not a string", i);
            if (i && n == 2)
                dra_cel__sb_put(&b, a[1].v.s, a[1].len);
            dra_cel__sb_put(&b, x->v.s, x->len);
        }
        if (b.oom)
            return dra_cel__oom(c);
        return dra_cel_str(b.p, b.n);
    }
    return dra_cel__no_overload(c, fn, a, n);
}

/* FORMAT */
DRA_CEL_IMPL(dra_cel_str_format)
{
    if (n == 2 && K(a[0], STRING) && K(a[1], LIST))
        return str_format(c, &a[0], &a[1]);
    return dra_cel__no_overload(c, fn, a, n);
}

/* STRINGS_QUOTE */
DRA_CEL_IMPL(dra_cel_str_strings_quote)
{
    if (n == 1 && K(a[0], STRING)) {
        dra_cel__sbuf_t b = {.a = c->a};
        dra_cel__quote_str(&b, a[0].v.s, a[0].len, '"');
        if (b.oom)
            return dra_cel__oom(c);
        return dra_cel_str(b.p, b.n);
    }
    return dra_cel__no_overload(c, fn, a, n);
}
