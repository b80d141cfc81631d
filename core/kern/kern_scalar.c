/*
 * kern_scalar.c - the reference kernels (plain C, baseline ISA); see kern.h.
 *
 * Every other kernel table is tested bit for bit against this one. Each element kernel builds
 * one output word from up to 64 elements; it reads exactly n elements.
 */
#include <string.h>

#include "kern.h"
#include "kern_impl.h"

#define ELEM_KERNEL(fname, T, V, PRED)                                                             \
    static void fname(const T *a, size_t n, V v, uint64_t *out)                                    \
    {                                                                                              \
        size_t nw = (n + 63) / 64;                                                                 \
        for (size_t w = 0; w < nw; w++) {                                                          \
            size_t base = w * 64, lim = n - base < 64 ? n - base : 64;                             \
            uint64_t word = 0;                                                                     \
            for (size_t j = 0; j < lim; j++) {                                                     \
                T x = a[base + j];                                                                 \
                word |= (uint64_t)(PRED) << j;                                                     \
            }                                                                                      \
            out[w] = word;                                                                         \
        }                                                                                          \
    }

ELEM_KERNEL(eq_u32, uint32_t, uint32_t, x == v)
ELEM_KERNEL(ne_u32, uint32_t, uint32_t, x != v)
ELEM_KERNEL(eq_u8, uint8_t, uint8_t, x == v)
ELEM_KERNEL(test_u8, uint8_t, uint8_t, (x & v) != 0)
ELEM_KERNEL(lt_u32, uint32_t, uint32_t, x < v)
ELEM_KERNEL(le_u32, uint32_t, uint32_t, x <= v)
ELEM_KERNEL(gt_u32, uint32_t, uint32_t, x > v)
ELEM_KERNEL(ge_u32, uint32_t, uint32_t, x >= v)
ELEM_KERNEL(eq_i64, int64_t, int64_t, x == v)
ELEM_KERNEL(ne_i64, int64_t, int64_t, x != v)
ELEM_KERNEL(lt_i64, int64_t, int64_t, x < v)
ELEM_KERNEL(le_i64, int64_t, int64_t, x <= v)
ELEM_KERNEL(gt_i64, int64_t, int64_t, x > v)
ELEM_KERNEL(ge_i64, int64_t, int64_t, x >= v)

KERN_GATHER_SCALAR(gather_u8, uint8_t)
KERN_GATHER_SCALAR(gather_u16, uint16_t)
KERN_GATHER_SCALAR(gather_u32, uint32_t)

static void cmp_u32(const uint32_t *a, size_t n, dra_kern_cmp_t op, uint32_t v, uint64_t *out)
{
    switch (op) {
    case DRA_CMP_EQ: eq_u32(a, n, v, out); return;
    case DRA_CMP_NE: ne_u32(a, n, v, out); return;
    case DRA_CMP_LT: lt_u32(a, n, v, out); return;
    case DRA_CMP_LE: le_u32(a, n, v, out); return;
    case DRA_CMP_GT: gt_u32(a, n, v, out); return;
    case DRA_CMP_GE: ge_u32(a, n, v, out); return;
    }
}

static void cmp_i64(const int64_t *a, size_t n, dra_kern_cmp_t op, int64_t v, uint64_t *out)
{
    switch (op) {
    case DRA_CMP_EQ: eq_i64(a, n, v, out); return;
    case DRA_CMP_NE: ne_i64(a, n, v, out); return;
    case DRA_CMP_LT: lt_i64(a, n, v, out); return;
    case DRA_CMP_LE: le_i64(a, n, v, out); return;
    case DRA_CMP_GT: gt_i64(a, n, v, out); return;
    case DRA_CMP_GE: ge_i64(a, n, v, out); return;
    }
}

static void in_set_u32(const uint32_t *a, size_t n, const uint32_t *set, size_t nset,
                       uint64_t *out)
{
    size_t nw = (n + 63) / 64;
    for (size_t w = 0; w < nw; w++) {
        size_t base = w * 64, lim = n - base < 64 ? n - base : 64;
        uint64_t word = 0;
        for (size_t j = 0; j < lim; j++) {
            uint32_t x = a[base + j];
            for (size_t k = 0; k < nset; k++) {
                if (x == set[k]) {
                    word |= (uint64_t)1 << j;
                    break;
                }
            }
        }
        out[w] = word;
    }
}

static void and_(uint64_t *dst, const uint64_t *a, const uint64_t *b, size_t nwords)
{
    for (size_t i = 0; i < nwords; i++)
        dst[i] = a[i] & b[i];
}

static void or_(uint64_t *dst, const uint64_t *a, const uint64_t *b, size_t nwords)
{
    for (size_t i = 0; i < nwords; i++)
        dst[i] = a[i] | b[i];
}

static void andnot(uint64_t *dst, const uint64_t *a, const uint64_t *b, size_t nwords)
{
    for (size_t i = 0; i < nwords; i++)
        dst[i] = a[i] & ~b[i];
}

static void not_(uint64_t *dst, const uint64_t *a, size_t nbits)
{
    size_t nw = (nbits + 63) / 64;
    for (size_t i = 0; i < nw; i++)
        dst[i] = ~a[i];
    if (nbits & 63)
        dst[nw - 1] &= ((uint64_t)1 << (nbits & 63)) - 1;
}

static size_t popcount(const uint64_t *w, size_t nwords)
{
    size_t c = 0;
    for (size_t i = 0; i < nwords; i++)
        for (uint64_t x = w[i]; x; x &= x - 1)
            c++;
    return c;
}

static size_t first_set(const uint64_t *w, size_t nwords)
{
    for (size_t i = 0; i < nwords; i++) {
        if (w[i]) {
            size_t b = 0;
            while (!((w[i] >> b) & 1))
                b++;
            return i * 64 + b;
        }
    }
    return nwords * 64;
}

const dra_kern_t dra_kern__scalar = {
    .name = "scalar",
    .eq_u32 = eq_u32,
    .ne_u32 = ne_u32,
    .in_set_u32 = in_set_u32,
    .cmp_u32 = cmp_u32,
    .cmp_i64 = cmp_i64,
    .eq_u8 = eq_u8,
    .test_u8 = test_u8,
    .gather_u8 = gather_u8,
    .gather_u16 = gather_u16,
    .gather_u32 = gather_u32,
    .and_ = and_,
    .or_ = or_,
    .andnot = andnot,
    .not_ = not_,
    .popcount = popcount,
    .first_set = first_set,
};
