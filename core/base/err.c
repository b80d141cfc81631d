/* err.c - error table and diagnostics; see err.h. */
#include "err.h"

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const char *dra_strerror(int code)
{
    switch (code) {
#define XX(name, val, msg)                                                                         \
    case val:                                                                                      \
        return msg;
        DRA_ERR_MAP(XX)
#undef XX
    default:
        return "unknown error";
    }
}

const char *dra_err_name(int code)
{
    switch (code) {
#define XX(name, val, msg)                                                                         \
    case val:                                                                                      \
        return #name;
        DRA_ERR_MAP(XX)
#undef XX
    default:
        return "EUNKNOWN";
    }
}

/* ---- message building ------------------------------------------------------------------------ */

/* Length of the valid UTF-8 character at s within n bytes (0 = invalid byte); *cp its value. */
static size_t u8_char(const unsigned char *s, size_t n, unsigned *cp)
{
    unsigned c = s[0], v, min;
    size_t len;
    if (c < 0x80) {
        *cp = c;
        return 1;
    } else if (c >= 0xC2 && c <= 0xDF) {
        len = 2, v = c & 0x1F, min = 0x80;
    } else if (c >= 0xE0 && c <= 0xEF) {
        len = 3, v = c & 0x0F, min = 0x800;
    } else if (c >= 0xF0 && c <= 0xF4) {
        len = 4, v = c & 0x07, min = 0x10000;
    } else {
        return 0;
    }
    if (len > n)
        return 0;
    for (size_t i = 1; i < len; i++) {
        if ((s[i] & 0xC0) != 0x80)
            return 0;
        v = (v << 6) | (s[i] & 0x3F);
    }
    if (v < min || v > 0x10FFFF || (v >= 0xD800 && v <= 0xDFFF))
        return 0;
    *cp = v;
    return len;
}

static bool is_control(unsigned cp)
{
    return cp < 0x20 || cp == 0x7F || (cp >= 0x80 && cp <= 0x9F) || cp == 0x061C ||
           (cp >= 0x200E && cp <= 0x200F) || (cp >= 0x2028 && cp <= 0x202E) ||
           (cp >= 0x2066 && cp <= 0x2069);
}

/* The character at s[i] (within n): its input length *step and its escaped form in out[12]
 * (returned length). */
static size_t esc_char(const unsigned char *s, size_t i, size_t n, size_t *step, char out[12])
{
    unsigned cp;
    size_t len = u8_char(s + i, n - i, &cp);
    if (len == 0) {
        *step = 1;
        snprintf(out, 12, "\\x%02x", s[i]);
        return 4;
    }
    *step = len;
    if (is_control(cp)) {
        if (cp < 0x100) {
            snprintf(out, 12, "\\x%02x", cp);
            return 4;
        }
        snprintf(out, 12, "\\u%04x", cp);
        return 6;
    }
    memcpy(out, s + i, len);
    return len;
}

static size_t esc_len(const unsigned char *s, size_t n)
{
    size_t total = 0, step;
    char tmp[12];
    for (size_t i = 0; i < n; i += step)
        total += esc_char(s, i, n, &step, tmp);
    return total;
}

typedef struct {
    char *buf;
    size_t cap, len; /* len may exceed cap - 1: what was wanted */
} mb_t;

static void mb_put(mb_t *b, const char *p, size_t n)
{
    if (b->len < b->cap) {
        size_t room = b->cap - 1 - b->len;
        memcpy(b->buf + b->len, p, n < room ? n : room);
    }
    b->len += n;
}

/* Escaped s[from, to). */
static void mb_esc(mb_t *b, const unsigned char *s, size_t from, size_t to)
{
    size_t step;
    char tmp[12];
    for (size_t i = from; i < to; i += step) {
        size_t k = esc_char(s, i, to, &step, tmp);
        mb_put(b, tmp, k);
    }
}

/* Escaped s[0, n), shortened to at most limit bytes: beginning + "…" + end. */
static void mb_value(mb_t *b, const unsigned char *s, size_t n, size_t full, size_t limit)
{
    if (full <= limit) {
        mb_esc(b, s, 0, n);
        return;
    }
    size_t keep = limit > 3 ? limit - 3 : 0, head = keep * 2 / 3, tail = keep - head;
    size_t i = 0, used = 0, step;
    char tmp[12];
    for (;;) {
        if (i >= n)
            break;
        size_t k = esc_char(s, i, n, &step, tmp);
        if (used + k > head)
            break;
        used += k;
        i += step;
    }
    size_t head_end = i, j = n;
    used = 0;
    while (j > head_end) {
        size_t start = j - 1;
        while (start > head_end && j - start < 4 && (s[start] & 0xC0) == 0x80)
            start--;
        unsigned cp;
        if (u8_char(s + start, j - start, &cp) != j - start)
            start = j - 1; /* not one whole character: the last byte alone */
        size_t k = esc_char(s, start, j, &step, tmp);
        if (used + k > tail)
            break;
        used += k;
        j = start;
    }
    mb_esc(b, s, 0, head_end);
    mb_put(b, "\xE2\x80\xA6", 3);
    mb_esc(b, s, j, n);
}

enum { MSG_MAX_CONV = 32 };

typedef struct {
    size_t fstart, fend; /* the conversion in fmt: [fstart, fend) */
    bool is_str;
    const unsigned char *s;
    size_t n, full;      /* %s: bytes used (precision applied) and escaped length */
    int width;           /* %s: minimum width (bytes, as printf), negative = left-justified */
    char other[96];      /* any other conversion, rendered */
    size_t olen;
} conv_t;

#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wformat-nonliteral"
/* Parse and fetch one conversion starting at fmt[i] == '%'. Returns its end, 0 when unknown. */
static size_t fetch_conv(const char *fmt, size_t i, va_list *ap, conv_t *c)
{
    char spec[48];
    size_t k = 0, j = i + 1;
    spec[k++] = '%';
    int prec = -1, width = 0;
    bool left = false;
    while (fmt[j] && strchr("-+ #0'", fmt[j]) && k < 8) {
        left |= fmt[j] == '-';
        spec[k++] = fmt[j++];
    }
    if (fmt[j] == '*') {
        width = va_arg(*ap, int);
        k += (size_t)snprintf(spec + k, sizeof spec - k, "%d", width);
        j++;
    } else {
        while (fmt[j] >= '0' && fmt[j] <= '9' && k < 20) {
            width = width < 10000 ? width * 10 + (fmt[j] - '0') : width;
            spec[k++] = fmt[j++];
        }
    }
    if (width < 0) {
        left = true;
        width = -width;
    }
    if (fmt[j] == '.') {
        j++;
        if (fmt[j] == '*') {
            prec = va_arg(*ap, int);
            j++;
        } else {
            prec = 0;
            while (fmt[j] >= '0' && fmt[j] <= '9') {
                prec = prec < 100000 ? prec * 10 + (fmt[j] - '0') : prec;
                j++;
            }
        }
        if (prec >= 0)
            k += (size_t)snprintf(spec + k, sizeof spec - k, ".%d", prec);
    }
    char len[3] = "";
    size_t ll = 0;
    while (fmt[j] && strchr("hlzjtL", fmt[j]) && ll < 2)
        len[ll++] = fmt[j++];
    len[ll] = '\0';
    char conv = fmt[j];
    if (!conv)
        return 0;
    memcpy(spec + k, len, ll);
    k += ll;
    spec[k++] = conv;
    spec[k] = '\0';
    c->is_str = false;
    int w = 0;
    switch (conv) {
    case 's': {
        const char *s = va_arg(*ap, const char *);
        if (!s)
            s = "(null)";
        size_t n = prec >= 0 ? strnlen(s, (size_t)prec) : strlen(s);
        c->is_str = true;
        c->s = (const unsigned char *)s;
        c->n = n;
        c->full = esc_len(c->s, n);
        c->width = left ? -width : width;
        return j + 1;
    }
    case 'd':
    case 'i':
        if (strcmp(len, "ll") == 0)
            w = snprintf(c->other, sizeof c->other, spec, va_arg(*ap, long long));
        else if (strcmp(len, "l") == 0)
            w = snprintf(c->other, sizeof c->other, spec, va_arg(*ap, long));
        else if (strcmp(len, "z") == 0 || strcmp(len, "t") == 0)
            w = snprintf(c->other, sizeof c->other, spec, va_arg(*ap, ptrdiff_t));
        else if (strcmp(len, "j") == 0)
            w = snprintf(c->other, sizeof c->other, spec, va_arg(*ap, intmax_t));
        else
            w = snprintf(c->other, sizeof c->other, spec, va_arg(*ap, int));
        break;
    case 'u':
    case 'x':
    case 'X':
    case 'o':
        if (strcmp(len, "ll") == 0)
            w = snprintf(c->other, sizeof c->other, spec, va_arg(*ap, unsigned long long));
        else if (strcmp(len, "l") == 0)
            w = snprintf(c->other, sizeof c->other, spec, va_arg(*ap, unsigned long));
        else if (strcmp(len, "z") == 0 || strcmp(len, "t") == 0)
            w = snprintf(c->other, sizeof c->other, spec, va_arg(*ap, size_t));
        else if (strcmp(len, "j") == 0)
            w = snprintf(c->other, sizeof c->other, spec, va_arg(*ap, uintmax_t));
        else
            w = snprintf(c->other, sizeof c->other, spec, va_arg(*ap, unsigned));
        break;
    case 'c': {
        int ch = va_arg(*ap, int);
        unsigned char one = (unsigned char)ch;
        size_t step;
        w = (int)esc_char(&one, 0, 1, &step, c->other);
        break;
    }
    case 'p':
        w = snprintf(c->other, sizeof c->other, spec, va_arg(*ap, void *));
        break;
    case 'f':
    case 'F':
    case 'e':
    case 'E':
    case 'g':
    case 'G':
    case 'a':
    case 'A':
        if (strcmp(len, "L") == 0)
            w = snprintf(c->other, sizeof c->other, spec, va_arg(*ap, long double));
        else
            w = snprintf(c->other, sizeof c->other, spec, va_arg(*ap, double));
        break;
    default:
        return 0;
    }
    c->olen = w < 0 ? 0 : (size_t)w >= sizeof c->other ? sizeof c->other - 1 : (size_t)w;
    return j + 1;
}
#pragma GCC diagnostic pop

size_t dra_msg_vformat(char *buf, size_t cap, const char *fmt, va_list ap)
{
    if (!buf || cap == 0)
        return 0;
    conv_t conv[MSG_MAX_CONV];
    size_t nconv = 0, fixed = 0;
    va_list aq;
    va_copy(aq, ap);
    bool ok = fmt != NULL;
    for (size_t i = 0; ok && fmt[i];) {
        if (fmt[i] != '%') {
            fixed++;
            i++;
        } else if (fmt[i + 1] == '%') {
            fixed++;
            i += 2;
        } else if (nconv == MSG_MAX_CONV) {
            ok = false;
        } else {
            conv_t *c = &conv[nconv];
            c->fstart = i;
            size_t end = fetch_conv(fmt, i, &aq, c);
            if (!end) {
                ok = false;
                break;
            }
            c->fend = end;
            if (!c->is_str)
                fixed += c->olen;
            nconv++;
            i = end;
        }
    }
    va_end(aq);
    if (!ok) {
        /* a format this builder does not know: plain text, made valid below */
        buf[0] = '\0';
        if (fmt)
            vsnprintf(buf, cap, fmt, ap);
        size_t n = strlen(buf), i = 0, step;
        char tmp[12];
        while (i < n) {
            (void)esc_char((const unsigned char *)buf, i, n, &step, tmp);
            unsigned cp;
            if (u8_char((const unsigned char *)buf + i, n - i, &cp) == 0)
                buf[i] = '?';
            i += step;
        }
        return n;
    }
    /* the longest values give way first (water-filling) until everything fits */
    size_t budget = cap - 1 > fixed ? cap - 1 - fixed : 0, limit = SIZE_MAX;
    for (size_t need = 0, c = 0; c <= nconv; c++) {
        if (c == nconv && need > budget)
            limit = DRA_MSG_VALUE_MAX; /* too long: every long value is shortened, then more */
        else if (c < nconv && conv[c].is_str)
            need += conv[c].full;
    }
    for (; limit != SIZE_MAX; limit--) {
        size_t need = 0;
        for (size_t c = 0; c < nconv; c++)
            if (conv[c].is_str)
                need += conv[c].full < limit ? conv[c].full : limit;
        if (need <= budget || limit <= 12)
            break;
    }
    mb_t b = {.buf = buf, .cap = cap, .len = 0};
    size_t i = 0;
    for (size_t c = 0; c <= nconv; c++) {
        size_t stop = c < nconv ? conv[c].fstart : strlen(fmt);
        while (i < stop) {
            if (fmt[i] == '%' && fmt[i + 1] == '%') {
                mb_put(&b, "%", 1);
                i += 2;
            } else {
                mb_put(&b, fmt + i, 1);
                i++;
            }
        }
        if (c == nconv)
            break;
        if (conv[c].is_str) {
            size_t w = (size_t)(conv[c].width < 0 ? -conv[c].width : conv[c].width);
            size_t shown = conv[c].full <= limit ? conv[c].full : limit;
            for (size_t p = shown; conv[c].width > 0 && p < w; p++)
                mb_put(&b, " ", 1);
            mb_value(&b, conv[c].s, conv[c].n, conv[c].full, limit);
            for (size_t p = shown; conv[c].width < 0 && p < w; p++)
                mb_put(&b, " ", 1);
        } else
            mb_put(&b, conv[c].other, conv[c].olen);
        i = conv[c].fend;
    }
    size_t n = b.len < cap - 1 ? b.len : cap - 1;
    if (b.len > cap - 1 && n > 0) {
        /* still too long (many values): drop a character the cut went through */
        size_t j = n - 1;
        while (j > 0 && ((unsigned char)buf[j] & 0xC0) == 0x80)
            j--;
        unsigned char first = (unsigned char)buf[j];
        size_t want = first < 0x80 ? 1 : first >= 0xF0 ? 4 : first >= 0xE0 ? 3 : 2;
        if (j + want > n)
            n = j;
    }
    buf[n] = '\0';
    return n;
}

size_t dra_msg_format(char *buf, size_t cap, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    size_t n = dra_msg_vformat(buf, cap, fmt, ap);
    va_end(ap);
    return n;
}

void dra_diag_clear(dra_diag_t *d)
{
    if (!d)
        return;
    memset(d, 0, sizeof *d);
}

int dra_diag_setv(dra_diag_t *d, int code, const char *file, uint32_t line, uint32_t column,
                  const char *fmt, va_list ap)
{
    if (!d)
        return code;
    d->code = code;
    d->file = file;
    d->line = line;
    d->column = column;
    if (fmt)
        dra_msg_vformat(d->msg, sizeof d->msg, fmt, ap);
    else
        snprintf(d->msg, sizeof d->msg, "%s", dra_strerror(code));
    return code;
}

int dra_diag_set(dra_diag_t *d, int code, const char *file, uint32_t line, uint32_t column,
                 const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int r = dra_diag_setv(d, code, file, line, column, fmt, ap);
    va_end(ap);
    return r;
}

void dra_diag_detach(dra_diag_t *d)
{
    if (!d || !d->file)
        return;
    char buf[DRA_DIAG_MSG_MAX];
    dra_diag_format(d, buf, sizeof buf);
    memcpy(d->msg, buf, sizeof d->msg);
    d->file = NULL;
    d->line = d->column = 0;
}

const char *dra_diag_format(const dra_diag_t *d, char *buf, size_t len)
{
    if (!buf || len == 0)
        return buf;
    if (!d) {
        buf[0] = '\0';
        return buf;
    }
    /* the message was made safe when it was built; the file name is escaped here */
    if (d->file && d->line && d->column)
        dra_msg_format(buf, len, "%s:%u:%u: %s", d->file, d->line, d->column, d->msg);
    else if (d->file && d->line)
        dra_msg_format(buf, len, "%s:%u: %s", d->file, d->line, d->msg);
    else if (d->file)
        dra_msg_format(buf, len, "%s: %s", d->file, d->msg);
    else
        dra_msg_format(buf, len, "%s", d->msg);
    return buf;
}

void dra_diag_list_init(dra_diag_list_t *l)
{
    memset(l, 0, sizeof *l);
}

void dra_diag_list_fini(dra_diag_list_t *l)
{
    free(l->items);
    memset(l, 0, sizeof *l);
}

int dra_diag_list_push(dra_diag_list_t *l, const dra_diag_t *d)
{
    size_t max = l->max_keep ? l->max_keep : 10000;
    if (l->count >= max) {
        l->dropped++;
        return DRA_OK;
    }
    if (l->count == l->cap) {
        size_t ncap = l->cap ? l->cap * 2 : 16;
        dra_diag_t *n = realloc(l->items, ncap * sizeof *n);
        if (!n)
            return DRA_ENOMEM;
        l->items = n;
        l->cap = ncap;
    }
    l->items[l->count++] = *d;
    return DRA_OK;
}

int dra_diag_list_add(dra_diag_list_t *l, int code, const char *file, uint32_t line,
                      uint32_t column, const char *fmt, ...)
{
    dra_diag_t d;
    dra_diag_clear(&d);
    va_list ap;
    va_start(ap, fmt);
    dra_diag_setv(&d, code, file, line, column, fmt, ap);
    va_end(ap);
    return dra_diag_list_push(l, &d);
}
