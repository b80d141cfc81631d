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

#endif
