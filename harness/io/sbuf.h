/*
 * sbuf.h - a growable byte buffer (malloc), used by the writers of manifests, result files and
 * reports.
 *
 * Ownership: the caller owns the struct (zero-initialise it) and frees the bytes with
 * dra_sbuf_fini. Errors: the first failed allocation sets err to DRA_ENOMEM and later appends are
 * ignored, so a writer checks err once at the end. The bytes are always NUL-terminated once
 * anything was appended. Cost: amortised O(n) per append (capacity doubles from 4 KiB).
 */
#ifndef DRA_SBUF_H
#define DRA_SBUF_H

#include <stddef.h>

#include "base/err.h"

/* A growable byte buffer (malloc). */
typedef struct dra_sbuf {
    char *p;
    size_t len, cap;
    int err; /* DRA_ENOMEM once an append failed; later appends are ignored */
} dra_sbuf_t;

void dra_sbuf_fini(dra_sbuf_t *b);
void dra_sbuf_put(dra_sbuf_t *b, const char *s, size_t n);
void dra_sbuf_puts(dra_sbuf_t *b, const char *s);
void dra_sbuf_printf(dra_sbuf_t *b, const char *fmt, ...) DRA_PRINTF(2, 3);

#endif
