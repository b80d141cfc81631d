/*
 * quantity.h - Kubernetes resource.Quantity, exact. (Placeholder contract; the owner of this
 * module fills in the implementation and may refine fields, but dra_quantity_t stays a fixed-size
 * value type of at most 32 bytes without pointers, and a zero-filled struct means 0.)
 */
#ifndef DRA_QUANTITY_H
#define DRA_QUANTITY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "err.h"

typedef struct dra_quantity {
    uint64_t lo, hi; /* unsigned 128-bit mantissa */
    int32_t exp;     /* value = sign * mantissa * 10^exp */
    int8_t neg;
    uint8_t format;  /* dra_qformat_t */
    uint8_t flags;
    uint8_t pad_;
} dra_quantity_t;

/* Canonical Kubernetes serialisation into buf (snprintf-like: returns the full length). */
size_t dra_quantity_format(const dra_quantity_t *q, char *buf, size_t len);
/* Parse every Kubernetes form exactly; DRA_EPARSE with a message like upstream's. */
int dra_quantity_parse(const char *s, size_t len, dra_quantity_t *out, dra_diag_t *diag);
int dra_quantity_cmp(const dra_quantity_t *a, const dra_quantity_t *b);

#endif
