/*
 * kern_avx512.c - AVX-512 (F/BW/VL/DQ) kernels; the only file of core/kern compiled with those
 * flags; see kern.h.
 *
 * Compares produce mask registers directly: 16 u32 per zmm compare, 8 i64 per compare (two per
 * 16-element block), 16 bytes per xmm byte compare (AVX-512BW/VL). Ordered compares take the
 * predicate as an immediate, so each operator has its own instantiation of the driver loop.
 */
#include <immintrin.h>

#include "kern.h"
#include "kern_impl.h"

static inline __m512i ld512(const void *p)
{
    return _mm512_loadu_si512(p);
}

#define U32_BLK(p, vv, PRED) ((uint32_t)_mm512_cmp_epu32_mask(ld512(p), (vv), (PRED)))
#define I64_BLK(p, vv, PRED)                                                                       \
    ((uint32_t)_mm512_cmp_epi64_mask(ld512(p), (vv), (PRED)) |                                     \
     ((uint32_t)_mm512_cmp_epi64_mask(ld512((p) + 8), (vv), (PRED)) << 8))

#define DEF_U32(fname, PRED)                                                                       \
    static void fname(const uint32_t *a, size_t n, uint32_t v, uint64_t *out)                      \
    {                                                                                              \
        const __m512i vv = _mm512_set1_epi32((int)v);                                              \
        KERN_ELEM_DRIVER(a, n, out, fname##_B);                                                    \
    }
#define eq_u32_B(p) U32_BLK(p, vv, _MM_CMPINT_EQ)
#define ne_u32_B(p) U32_BLK(p, vv, _MM_CMPINT_NE)
#define lt_u32_B(p) U32_BLK(p, vv, _MM_CMPINT_LT)
#define le_u32_B(p) U32_BLK(p, vv, _MM_CMPINT_LE)
#define gt_u32_B(p) U32_BLK(p, vv, _MM_CMPINT_NLE)
#define ge_u32_B(p) U32_BLK(p, vv, _MM_CMPINT_NLT)
DEF_U32(eq_u32, _MM_CMPINT_EQ)
DEF_U32(ne_u32, _MM_CMPINT_NE)
DEF_U32(lt_u32, _MM_CMPINT_LT)
DEF_U32(le_u32, _MM_CMPINT_LE)
DEF_U32(gt_u32, _MM_CMPINT_NLE)
DEF_U32(ge_u32, _MM_CMPINT_NLT)

#define DEF_I64(fname)                                                                             \
    static void fname(const int64_t *a, size_t n, int64_t v, uint64_t *out)                        \
    {                                                                                              \
        const __m512i vv = _mm512_set1_epi64(v);                                                   \
        KERN_ELEM_DRIVER(a, n, out, fname##_B);                                                    \
    }
#define eq_i64_B(p) I64_BLK(p, vv, _MM_CMPINT_EQ)
#define ne_i64_B(p) I64_BLK(p, vv, _MM_CMPINT_NE)
#define lt_i64_B(p) I64_BLK(p, vv, _MM_CMPINT_LT)
#define le_i64_B(p) I64_BLK(p, vv, _MM_CMPINT_LE)
#define gt_i64_B(p) I64_BLK(p, vv, _MM_CMPINT_NLE)
#define ge_i64_B(p) I64_BLK(p, vv, _MM_CMPINT_NLT)
DEF_I64(eq_i64)
DEF_I64(ne_i64)
DEF_I64(lt_i64)
DEF_I64(le_i64)
DEF_I64(gt_i64)
DEF_I64(ge_i64)

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

static inline uint32_t blk_in_set(const uint32_t *p, const __m512i *vs, size_t nset)
{
    __m512i x = ld512(p);
    __mmask16 r = 0;
    for (size_t k = 0; k < nset; k++)
        r = (__mmask16)(r | _mm512_cmpeq_epu32_mask(x, vs[k]));
    return (uint32_t)r;
}

static void in_set_u32(const uint32_t *a, size_t n, const uint32_t *set, size_t nset,
                       uint64_t *out)
{
    size_t nw = (n + 63) / 64;
    for (size_t w = 0; w < nw; w++)
        out[w] = 0;
    for (size_t k0 = 0; k0 < nset; k0 += 16) {
        __m512i vs[16];
        size_t m = nset - k0 < 16 ? nset - k0 : 16;
        for (size_t k = 0; k < m; k++)
            vs[k] = _mm512_set1_epi32((int)set[k0 + k]);
        size_t nfull = n / 64;
        for (size_t w = 0; w < nfull; w++) {
            const uint32_t *p = a + w * 64;
            uint64_t word = (uint64_t)blk_in_set(p, vs, m);
            word |= (uint64_t)blk_in_set(p + 16, vs, m) << 16;
            word |= (uint64_t)blk_in_set(p + 32, vs, m) << 32;
            word |= (uint64_t)blk_in_set(p + 48, vs, m) << 48;
            out[w] |= word;
        }
        size_t rem = n & 63;
        if (rem) {
            uint64_t word = 0;
            for (size_t j = 0; j < rem; j += 16)
                word |= (uint64_t)blk_in_set(a + nfull * 64 + j, vs, m) << j;
            out[nfull] |= word & (((uint64_t)1 << rem) - 1);
        }
    }
}

static void eq_u8(const uint8_t *a, size_t n, uint8_t v, uint64_t *out)
{
    const __m128i vv = _mm_set1_epi8((char)v);
#define B_(p) ((uint32_t)_mm_cmpeq_epi8_mask(_mm_loadu_si128((const __m128i *)(p)), vv))
    KERN_ELEM_DRIVER(a, n, out, B_);
#undef B_
}

static void test_u8(const uint8_t *a, size_t n, uint8_t mask, uint64_t *out)
{
    const __m128i vm = _mm_set1_epi8((char)mask);
#define B_(p) ((uint32_t)_mm_test_epi8_mask(_mm_loadu_si128((const __m128i *)(p)), vm))
    KERN_ELEM_DRIVER(a, n, out, B_);
#undef B_
}

static void and_(uint64_t *dst, const uint64_t *a, const uint64_t *b, size_t nwords)
{
    size_t i = 0;
    for (; i + 8 <= nwords; i += 8)
        _mm512_storeu_si512(dst + i, _mm512_and_si512(ld512(a + i), ld512(b + i)));
    for (; i < nwords; i++)
        dst[i] = a[i] & b[i];
}

static void or_(uint64_t *dst, const uint64_t *a, const uint64_t *b, size_t nwords)
{
    size_t i = 0;
    for (; i + 8 <= nwords; i += 8)
        _mm512_storeu_si512(dst + i, _mm512_or_si512(ld512(a + i), ld512(b + i)));
    for (; i < nwords; i++)
        dst[i] = a[i] | b[i];
}

static void andnot(uint64_t *dst, const uint64_t *a, const uint64_t *b, size_t nwords)
{
    size_t i = 0;
    for (; i + 8 <= nwords; i += 8) /* _mm512_andnot_si512(x, y) = ~x & y */
        _mm512_storeu_si512(dst + i, _mm512_andnot_si512(ld512(b + i), ld512(a + i)));
    for (; i < nwords; i++)
        dst[i] = a[i] & ~b[i];
}

static void not_(uint64_t *dst, const uint64_t *a, size_t nbits)
{
    kern__not(dst, a, nbits);
}

static size_t popcount(const uint64_t *w, size_t nwords)
{
    return kern__popcount(w, nwords);
}

static size_t first_set(const uint64_t *w, size_t nwords)
{
    size_t i = 0;
    for (; i + 8 <= nwords; i += 8)
        if (_mm512_test_epi64_mask(ld512(w + i), ld512(w + i)))
            break;
    for (; i < nwords; i++)
        if (w[i])
            return i * 64 + (size_t)__builtin_ctzll(w[i]);
    return nwords * 64;
}

/* Gathers: the scalar loop (no AVX-512 form yet; the AVX2 byte-shuffle form would apply). */
KERN_GATHER_SCALAR(gather_u8, uint8_t)
KERN_GATHER_SCALAR(gather_u16, uint16_t)
KERN_GATHER_SCALAR(gather_u32, uint32_t)

const dra_kern_t dra_kern__avx512 = {
    .name = "avx512",
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
