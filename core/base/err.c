/* err.c - error table and diagnostics; see err.h. */
#include "err.h"

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
        vsnprintf(d->msg, sizeof d->msg, fmt, ap);
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

const char *dra_diag_format(const dra_diag_t *d, char *buf, size_t len)
{
    if (!buf || len == 0)
        return buf;
    if (!d) {
        buf[0] = '\0';
        return buf;
    }
    if (d->file && d->line && d->column)
        snprintf(buf, len, "%s:%u:%u: %s", d->file, d->line, d->column, d->msg);
    else if (d->file && d->line)
        snprintf(buf, len, "%s:%u: %s", d->file, d->line, d->msg);
    else if (d->file)
        snprintf(buf, len, "%s: %s", d->file, d->msg);
    else
        snprintf(buf, len, "%s", d->msg);
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
