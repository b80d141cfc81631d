/*
 * bitset.h - fixed-size bitsets over 64-bit words, header-only.
 *
 * Used for match bitsets (device i selectable by a selector), free-device sets and small
 * per-search sets. The storage is caller-owned (arena or stack); dra_bitset_words(n) gives the
 * number of words for n bits. Every operation is O(words) or O(1); no allocation, no errors.
 * Bits beyond n in the last word are kept zero by every operation that writes whole words
 * (callers that set them through raw words must clear them with dra_bitset_trim).
 */
#ifndef DRA_BITSET_H
#define DRA_BITSET_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

static inline size_t dra_bitset_words(size_t nbits)
{
    return (nbits + 63) / 64;
}
static inline bool dra_bit_get(const uint64_t *w, size_t i)
{
    return (w[i >> 6] >> (i & 63)) & 1u;
}
static inline void dra_bit_set(uint64_t *w, size_t i)
{
    w[i >> 6] |= (uint64_t)1 << (i & 63);
}
static inline void dra_bit_clear(uint64_t *w, size_t i)
{
    w[i >> 6] &= ~((uint64_t)1 << (i & 63));
}
static inline void dra_bit_assign(uint64_t *w, size_t i, bool v)
{
    if (v)
        dra_bit_set(w, i);
    else
        dra_bit_clear(w, i);
}
static inline void dra_bitset_zero(uint64_t *w, size_t nbits)
{
    memset(w, 0, dra_bitset_words(nbits) * sizeof(uint64_t));
}
static inline void dra_bitset_trim(uint64_t *w, size_t nbits)
{
    if (nbits & 63)
        w[nbits >> 6] &= ((uint64_t)1 << (nbits & 63)) - 1;
}
static inline void dra_bitset_fill(uint64_t *w, size_t nbits)
{
    memset(w, 0xff, dra_bitset_words(nbits) * sizeof(uint64_t));
    dra_bitset_trim(w, nbits);
}
static inline size_t dra_bitset_count(const uint64_t *w, size_t nbits)
{
    size_t c = 0, n = dra_bitset_words(nbits);
    for (size_t i = 0; i < n; i++)
        c += (size_t)__builtin_popcountll(w[i]);
    return c;
}
/* Index of the first set bit at or after `from`, or nbits when none. */
static inline size_t dra_bitset_next(const uint64_t *w, size_t nbits, size_t from)
{
    if (from >= nbits)
        return nbits;
    size_t wi = from >> 6;
    uint64_t cur = w[wi] & (~(uint64_t)0 << (from & 63));
    size_t nw = dra_bitset_words(nbits);
    for (;;) {
        if (cur) {
            size_t r = (wi << 6) + (size_t)__builtin_ctzll(cur);
            return r < nbits ? r : nbits;
        }
        if (++wi >= nw)
            return nbits;
        cur = w[wi];
    }
}
static inline void dra_bitset_and(uint64_t *dst, const uint64_t *a, const uint64_t *b, size_t nbits)
{
    size_t n = dra_bitset_words(nbits);
    for (size_t i = 0; i < n; i++)
        dst[i] = a[i] & b[i];
}
static inline void dra_bitset_or(uint64_t *dst, const uint64_t *a, const uint64_t *b, size_t nbits)
{
    size_t n = dra_bitset_words(nbits);
    for (size_t i = 0; i < n; i++)
        dst[i] = a[i] | b[i];
}
static inline void dra_bitset_andnot(uint64_t *dst, const uint64_t *a, const uint64_t *b,
                                     size_t nbits)
{
    size_t n = dra_bitset_words(nbits);
    for (size_t i = 0; i < n; i++)
        dst[i] = a[i] & ~b[i];
}
static inline bool dra_bitset_any(const uint64_t *w, size_t nbits)
{
    size_t n = dra_bitset_words(nbits);
    for (size_t i = 0; i < n; i++)
        if (w[i])
            return true;
    return false;
}

#endif /* DRA_BITSET_H */
