/*
 * kern_impl.h - helpers shared by the ISA-specific kernel files of core/kern (never included
 * from another module). Only macros and static inline functions, so an ISA-flagged file that
 * includes it cannot leak an AVX copy of a shared function into baseline code (STYLE §2.7).
 *
 * KERN_ELEM_DRIVER expands to the loop every element kernel uses: whole 64-element blocks make
 * one output word from four 16-element blocks; the tail is done in 16-element blocks (reading up
 * to round_up(n, 16), the padding contract of kern.h) and the bits >= n are cleared.
 */
#ifndef DRA_KERN_IMPL_H
#define DRA_KERN_IMPL_H

#include <stddef.h>
#include <stdint.h>

/* BLOCK(p) must evaluate to a uint32_t holding 16 result bits for elements p[0..16). */
#define KERN_ELEM_DRIVER(a, n, out, BLOCK)                                                         \
    do {                                                                                           \
        size_t kd_nfull = (n) / 64;                                                                \
        for (size_t kd_w = 0; kd_w < kd_nfull; kd_w++) {                                           \
            size_t kd_b = kd_w * 64;                                                               \
            uint64_t kd_word = (uint64_t)BLOCK((a) + kd_b);                                        \
            kd_word |= (uint64_t)BLOCK((a) + kd_b + 16) << 16;                                     \
            kd_word |= (uint64_t)BLOCK((a) + kd_b + 32) << 32;                                     \
            kd_word |= (uint64_t)BLOCK((a) + kd_b + 48) << 48;                                     \
            (out)[kd_w] = kd_word;                                                                 \
        }                                                                                          \
        size_t kd_rem = (n) & 63;                                                                  \
        if (kd_rem) {                                                                              \
            size_t kd_b = kd_nfull * 64;                                                           \
            uint64_t kd_word = 0;                                                                  \
            for (size_t kd_j = 0; kd_j < kd_rem; kd_j += 16)                                       \
                kd_word |= (uint64_t)BLOCK((a) + kd_b + kd_j) << kd_j;                             \
            (out)[kd_nfull] = kd_word & (((uint64_t)1 << kd_rem) - 1);                             \
        }                                                                                          \
    } while (0)

/* A scalar gather kernel (see kern.h): reads exactly n codes. Each ISA file that has no vector
 * form for a width instantiates this one. */
#define KERN_GATHER_SCALAR(fname, T)                                                               \
    static void fname(const T *a, size_t n, const uint64_t *lut, uint64_t *out)                    \
    {                                                                                              \
        size_t nw = (n + 63) / 64;                                                                 \
        for (size_t w = 0; w < nw; w++) {                                                          \
            size_t base = w * 64, lim = n - base < 64 ? n - base : 64;                             \
            uint64_t word = 0;                                                                     \
            for (size_t j = 0; j < lim; j++) {                                                     \
                uint32_t c = a[base + j];                                                          \
                word |= ((lut[c >> 6] >> (c & 63)) & 1u) << j;                                     \
            }                                                                                      \
            out[w] = word;                                                                         \
        }                                                                                          \
    }

static inline size_t kern__popcount(const uint64_t *w, size_t nwords)
{
    size_t c0 = 0, c1 = 0, c2 = 0, c3 = 0, i = 0;
    for (; i + 4 <= nwords; i += 4) {
        c0 += (size_t)__builtin_popcountll(w[i]);
        c1 += (size_t)__builtin_popcountll(w[i + 1]);
        c2 += (size_t)__builtin_popcountll(w[i + 2]);
        c3 += (size_t)__builtin_popcountll(w[i + 3]);
    }
    for (; i < nwords; i++)
        c0 += (size_t)__builtin_popcountll(w[i]);
    return c0 + c1 + c2 + c3;
}

static inline void kern__not(uint64_t *dst, const uint64_t *a, size_t nbits)
{
    size_t nw = (nbits + 63) / 64;
    for (size_t i = 0; i < nw; i++)
        dst[i] = ~a[i];
    if (nbits & 63)
        dst[nw - 1] &= ((uint64_t)1 << (nbits & 63)) - 1;
}

#endif /* DRA_KERN_IMPL_H */
