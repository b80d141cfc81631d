/*
 * kern_avx2.c - AVX2 kernels (the only file of core/kern compiled with -mavx2); see kern.h.
 *
 * Each element kernel compares 16 elements per block (two 256-bit vectors of u32, four of i64,
 * one 128-bit vector of bytes) and gathers the lane masks with movemask; 64-element blocks make
 * one output word. Unsigned 32-bit order uses the sign-flip trick (x ^ 0x80000000 compared
 * signed). Expected cost: well under one cycle per element when the column is cache-resident.
 */
#include <immintrin.h>

#include "kern.h"
#include "kern_impl.h"

static inline __m256i ld256(const void *p)
{
    return _mm256_loadu_si256((const __m256i *)p);
}

static inline uint32_t mask8_epi32(__m256i m)
{
    return (uint32_t)_mm256_movemask_ps(_mm256_castsi256_ps(m));
}

static inline uint32_t mask4_epi64(__m256i m)
{
    return (uint32_t)_mm256_movemask_pd(_mm256_castsi256_pd(m));
}

/* ---- u32 ----------------------------------------------------------------------------------- */

#define U32_BLOCK(NAME, EXPR)                                                                      \
    static inline uint32_t NAME(const uint32_t *p, __m256i vv)                                     \
    {                                                                                              \
        __m256i x0 = ld256(p), x1 = ld256(p + 8);                                                  \
        __m256i r0, r1;                                                                            \
        {                                                                                          \
            __m256i x = x0;                                                                        \
            r0 = (EXPR);                                                                           \
        }                                                                                          \
        {                                                                                          \
            __m256i x = x1;                                                                        \
            r1 = (EXPR);                                                                           \
        }                                                                                          \
        return mask8_epi32(r0) | (mask8_epi32(r1) << 8);                                           \
    }

static inline __m256i flip32(__m256i x)
{
    return _mm256_xor_si256(x, _mm256_set1_epi32((int)0x80000000u));
}

/* vv holds v (eq/ne) or v ^ 0x80000000 (ordered compares). */
U32_BLOCK(blk_eq_u32, _mm256_cmpeq_epi32(x, vv))
U32_BLOCK(blk_gt_u32, _mm256_cmpgt_epi32(flip32(x), vv))
U32_BLOCK(blk_lt_u32, _mm256_cmpgt_epi32(vv, flip32(x)))


/* Each kernel names its 16-element block expression as B_ for the shared driver loop. */
static void eq_u32(const uint32_t *a, size_t n, uint32_t v, uint64_t *out)
{
    const __m256i vv = _mm256_set1_epi32((int)v);
#define B_(p) blk_eq_u32((p), vv)
    KERN_ELEM_DRIVER(a, n, out, B_);
#undef B_
}

static void ne_u32(const uint32_t *a, size_t n, uint32_t v, uint64_t *out)
{
    const __m256i vv = _mm256_set1_epi32((int)v);
#define B_(p) (0xffffu ^ blk_eq_u32((p), vv))
    KERN_ELEM_DRIVER(a, n, out, B_);
#undef B_
}

static void gt_u32(const uint32_t *a, size_t n, uint32_t v, uint64_t *out)
{
    const __m256i vv = _mm256_set1_epi32((int)(v ^ 0x80000000u));
#define B_(p) blk_gt_u32((p), vv)
    KERN_ELEM_DRIVER(a, n, out, B_);
#undef B_
}

static void le_u32(const uint32_t *a, size_t n, uint32_t v, uint64_t *out)
{
    const __m256i vv = _mm256_set1_epi32((int)(v ^ 0x80000000u));
#define B_(p) (0xffffu ^ blk_gt_u32((p), vv))
    KERN_ELEM_DRIVER(a, n, out, B_);
#undef B_
}

static void lt_u32(const uint32_t *a, size_t n, uint32_t v, uint64_t *out)
{
    const __m256i vv = _mm256_set1_epi32((int)(v ^ 0x80000000u));
#define B_(p) blk_lt_u32((p), vv)
    KERN_ELEM_DRIVER(a, n, out, B_);
#undef B_
}

static void ge_u32(const uint32_t *a, size_t n, uint32_t v, uint64_t *out)
{
    const __m256i vv = _mm256_set1_epi32((int)(v ^ 0x80000000u));
#define B_(p) (0xffffu ^ blk_lt_u32((p), vv))
    KERN_ELEM_DRIVER(a, n, out, B_);
#undef B_
}

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

static inline uint32_t blk_in_set(const uint32_t *p, const __m256i *vs, size_t nset)
{
    __m256i x0 = ld256(p), x1 = ld256(p + 8);
    __m256i r0 = _mm256_setzero_si256(), r1 = _mm256_setzero_si256();
    for (size_t k = 0; k < nset; k++) {
        r0 = _mm256_or_si256(r0, _mm256_cmpeq_epi32(x0, vs[k]));
        r1 = _mm256_or_si256(r1, _mm256_cmpeq_epi32(x1, vs[k]));
    }
    return mask8_epi32(r0) | (mask8_epi32(r1) << 8);
}

static void in_set_u32(const uint32_t *a, size_t n, const uint32_t *set, size_t nset,
                       uint64_t *out)
{
    /* Broadcast the set in groups of 16 constants (kept in registers), OR-ing the words. */
    size_t nw = (n + 63) / 64;
    for (size_t w = 0; w < nw; w++)
        out[w] = 0;
    for (size_t k0 = 0; k0 < nset; k0 += 16) {
        __m256i vs[16];
        size_t m = nset - k0 < 16 ? nset - k0 : 16;
        for (size_t k = 0; k < m; k++)
            vs[k] = _mm256_set1_epi32((int)set[k0 + k]);
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

/* ---- i64 ----------------------------------------------------------------------------------- */

static inline uint32_t blk_eq_i64(const int64_t *p, __m256i vv)
{
    return mask4_epi64(_mm256_cmpeq_epi64(ld256(p), vv)) |
           (mask4_epi64(_mm256_cmpeq_epi64(ld256(p + 4), vv)) << 4) |
           (mask4_epi64(_mm256_cmpeq_epi64(ld256(p + 8), vv)) << 8) |
           (mask4_epi64(_mm256_cmpeq_epi64(ld256(p + 12), vv)) << 12);
}

static inline uint32_t blk_gt_i64(const int64_t *p, __m256i vv)
{
    return mask4_epi64(_mm256_cmpgt_epi64(ld256(p), vv)) |
           (mask4_epi64(_mm256_cmpgt_epi64(ld256(p + 4), vv)) << 4) |
           (mask4_epi64(_mm256_cmpgt_epi64(ld256(p + 8), vv)) << 8) |
           (mask4_epi64(_mm256_cmpgt_epi64(ld256(p + 12), vv)) << 12);
}

static inline uint32_t blk_lt_i64(const int64_t *p, __m256i vv)
{
    return mask4_epi64(_mm256_cmpgt_epi64(vv, ld256(p))) |
           (mask4_epi64(_mm256_cmpgt_epi64(vv, ld256(p + 4))) << 4) |
           (mask4_epi64(_mm256_cmpgt_epi64(vv, ld256(p + 8))) << 8) |
           (mask4_epi64(_mm256_cmpgt_epi64(vv, ld256(p + 12))) << 12);
}

static void cmp_i64(const int64_t *a, size_t n, dra_kern_cmp_t op, int64_t v, uint64_t *out)
{
    const __m256i vv = _mm256_set1_epi64x(v);
    switch (op) {
    case DRA_CMP_EQ:
#define B_(p) blk_eq_i64((p), vv)
        KERN_ELEM_DRIVER(a, n, out, B_);
#undef B_
        return;
    case DRA_CMP_NE:
#define B_(p) (0xffffu ^ blk_eq_i64((p), vv))
        KERN_ELEM_DRIVER(a, n, out, B_);
#undef B_
        return;
    case DRA_CMP_GT:
#define B_(p) blk_gt_i64((p), vv)
        KERN_ELEM_DRIVER(a, n, out, B_);
#undef B_
        return;
    case DRA_CMP_LE:
#define B_(p) (0xffffu ^ blk_gt_i64((p), vv))
        KERN_ELEM_DRIVER(a, n, out, B_);
#undef B_
        return;
    case DRA_CMP_LT:
#define B_(p) blk_lt_i64((p), vv)
        KERN_ELEM_DRIVER(a, n, out, B_);
#undef B_
        return;
    case DRA_CMP_GE:
#define B_(p) (0xffffu ^ blk_lt_i64((p), vv))
        KERN_ELEM_DRIVER(a, n, out, B_);
#undef B_
        return;
    }
}

/* ---- u8 ------------------------------------------------------------------------------------ */

static inline uint32_t blk_eq_u8(const uint8_t *p, __m128i vv)
{
    __m128i x = _mm_loadu_si128((const __m128i *)p);
    return (uint32_t)_mm_movemask_epi8(_mm_cmpeq_epi8(x, vv));
}

static inline uint32_t blk_test_u8(const uint8_t *p, __m128i vm)
{
    __m128i x = _mm_and_si128(_mm_loadu_si128((const __m128i *)p), vm);
    return 0xffffu ^ (uint32_t)_mm_movemask_epi8(_mm_cmpeq_epi8(x, _mm_setzero_si128()));
}

static void eq_u8(const uint8_t *a, size_t n, uint8_t v, uint64_t *out)
{
    const __m128i vv = _mm_set1_epi8((char)v);
#define B_(p) blk_eq_u8((p), vv)
    KERN_ELEM_DRIVER(a, n, out, B_);
#undef B_
}

static void test_u8(const uint8_t *a, size_t n, uint8_t mask, uint64_t *out)
{
    const __m128i vm = _mm_set1_epi8((char)mask);
#define B_(p) blk_test_u8((p), vm)
    KERN_ELEM_DRIVER(a, n, out, B_);
#undef B_
}

/* ---- gathers ------------------------------------------------------------------------------- */

/* u8 codes: the 256-bit lut as 32 bytes; byte c >> 3 is picked with two in-lane byte shuffles
 * (low and high 16 bytes, blended on bit 4 of the byte index), bit c & 7 with a third shuffle
 * of {1, 2, ..., 128}; a lane is set when the picked byte has that bit. */
static inline uint32_t blk16_gather_u8(const uint8_t *p, __m128i lo, __m128i hi)
{
    const __m128i c = _mm_loadu_si128((const __m128i *)(const void *)p);
    const __m128i bi = _mm_and_si128(_mm_srli_epi16(c, 3), _mm_set1_epi8(0x1f));
    const __m128i byte = _mm_blendv_epi8(_mm_shuffle_epi8(lo, bi), _mm_shuffle_epi8(hi, bi),
                                         _mm_slli_epi16(bi, 3));
    const __m128i bits = _mm_setr_epi8(1, 2, 4, 8, 16, 32, 64, -128, 1, 2, 4, 8, 16, 32, 64, -128);
    const __m128i bit = _mm_shuffle_epi8(bits, _mm_and_si128(c, _mm_set1_epi8(7)));
    const __m128i z = _mm_cmpeq_epi8(_mm_and_si128(byte, bit), _mm_setzero_si128());
    return ~(uint32_t)_mm_movemask_epi8(z) & 0xffffu;
}

static inline uint32_t blk32_gather_u8(const uint8_t *p, __m256i lo, __m256i hi)
{
    const __m256i c = ld256(p);
    const __m256i bi = _mm256_and_si256(_mm256_srli_epi16(c, 3), _mm256_set1_epi8(0x1f));
    const __m256i byte = _mm256_blendv_epi8(_mm256_shuffle_epi8(lo, bi),
                                            _mm256_shuffle_epi8(hi, bi), _mm256_slli_epi16(bi, 3));
    const __m256i bits = _mm256_setr_epi8(1, 2, 4, 8, 16, 32, 64, -128, 1, 2, 4, 8, 16, 32, 64,
                                          -128, 1, 2, 4, 8, 16, 32, 64, -128, 1, 2, 4, 8, 16, 32,
                                          64, -128);
    const __m256i bit = _mm256_shuffle_epi8(bits, _mm256_and_si256(c, _mm256_set1_epi8(7)));
    const __m256i z = _mm256_cmpeq_epi8(_mm256_and_si256(byte, bit), _mm256_setzero_si256());
    return ~(uint32_t)_mm256_movemask_epi8(z);
}

static void gather_u8(const uint8_t *a, size_t n, const uint64_t *lut, uint64_t *out)
{
    const __m128i lo = _mm_loadu_si128((const __m128i *)(const void *)lut);
    const __m128i hi = _mm_loadu_si128((const __m128i *)(const void *)(lut + 2));
    const __m256i lo2 = _mm256_broadcastsi128_si256(lo), hi2 = _mm256_broadcastsi128_si256(hi);
    size_t nfull = n / 64;
    for (size_t w = 0; w < nfull; w++) {
        const uint8_t *p = a + w * 64;
        out[w] = (uint64_t)blk32_gather_u8(p, lo2, hi2) |
                 (uint64_t)blk32_gather_u8(p + 32, lo2, hi2) << 32;
    }
    size_t rem = n & 63;
    if (rem) {
        uint64_t word = 0;
        for (size_t j = 0; j < rem; j += 16)
            word |= (uint64_t)blk16_gather_u8(a + nfull * 64 + j, lo, hi) << j;
        out[nfull] = word & (((uint64_t)1 << rem) - 1);
    }
}

/* u16 / u32 codes (dictionaries of more than 255 entries, rare): the scalar loop. */
KERN_GATHER_SCALAR(gather_u16, uint16_t)
KERN_GATHER_SCALAR(gather_u32, uint32_t)

/* ---- bitsets ------------------------------------------------------------------------------- */

static void and_(uint64_t *dst, const uint64_t *a, const uint64_t *b, size_t nwords)
{
    size_t i = 0;
    for (; i + 4 <= nwords; i += 4)
        _mm256_storeu_si256((__m256i *)(dst + i), _mm256_and_si256(ld256(a + i), ld256(b + i)));
    for (; i < nwords; i++)
        dst[i] = a[i] & b[i];
}

static void or_(uint64_t *dst, const uint64_t *a, const uint64_t *b, size_t nwords)
{
    size_t i = 0;
    for (; i + 4 <= nwords; i += 4)
        _mm256_storeu_si256((__m256i *)(dst + i), _mm256_or_si256(ld256(a + i), ld256(b + i)));
    for (; i < nwords; i++)
        dst[i] = a[i] | b[i];
}

static void andnot(uint64_t *dst, const uint64_t *a, const uint64_t *b, size_t nwords)
{
    size_t i = 0;
    for (; i + 4 <= nwords; i += 4) /* _mm256_andnot_si256(x, y) = ~x & y */
        _mm256_storeu_si256((__m256i *)(dst + i), _mm256_andnot_si256(ld256(b + i), ld256(a + i)));
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
    for (; i + 4 <= nwords; i += 4)
        if (!_mm256_testz_si256(ld256(w + i), ld256(w + i)))
            break;
    for (; i < nwords; i++)
        if (w[i])
            return i * 64 + (size_t)__builtin_ctzll(w[i]);
    return nwords * 64;
}

const dra_kern_t dra_kern__avx2 = {
    .name = "avx2",
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
