/*
 * kern.h - SIMD kernels over device-table columns and match bitsets.
 *
 * Purpose: the few vector passes that column predicates (core/cel/lower.h) and the allocator
 * need: compare an id / int column against a constant or a small set, test a flag byte, gather a
 * per-code bitmap over a dictionary-encoded column (core/table), and combine, count and scan
 * match bitsets. Output bitsets are uint64_t words, bit i = element i
 * (word i / 64, bit i % 64).
 *
 * Implementations: one dra_kern_t table of function pointers per instruction set. "scalar" is
 * the reference and is always built and always available; "avx2" (kern_avx2.c) and "avx512"
 * (kern_avx512.c, AVX-512 F/BW/VL/DQ) are the only files compiled with those ISA flags, and are
 * offered only when __builtin_cpu_supports says the CPU has them. The selection is made once:
 * on first use from the environment variable DRA_KERNEL (scalar|avx2|avx512|auto) or, if unset,
 * the best available; dra_kern_select forces one (the CLI's --kernel). The selected name is
 * written into result files (dra_kern_name).
 *
 * Padding contract (the device table guarantees it, DESIGN §4.1): element kernels take any n
 * and may READ elements up to round_up(n, 16) (never write them), so inputs must be readable
 * that far; the values read beyond n do not matter. They write exactly dra_bitset_words(n)
 * output words, and the bits >= n of the last word are written as zero. Input pointers need no
 * particular alignment. Bitset kernels (and/or/andnot/not/popcount/first_set) read and write
 * exactly the words they are given; dst may alias a or b.
 *
 * Errors: none (kernels cannot fail); dra_kern_select returns DRA_EINVAL for an unknown name and
 * DRA_EUNSUPPORTED when the CPU lacks the instruction set.
 * Cost: one pass over the input; no allocation. Thread safety: kernels are pure and reentrant;
 * dra_kern_select should be called before threads start (the pointer is swapped atomically, so a
 * concurrent reader sees either the old or the new table).
 */
#ifndef DRA_KERN_H
#define DRA_KERN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/err.h"

/* Comparison of a column element x against the constant v: x OP v. */
typedef enum dra_kern_cmp {
    DRA_CMP_EQ = 0,
    DRA_CMP_NE,
    DRA_CMP_LT,
    DRA_CMP_LE,
    DRA_CMP_GT,
    DRA_CMP_GE
} dra_kern_cmp_t;

/* Elements read past n: inputs must be readable up to DRA_KERN_PAD(n) elements. */
#define DRA_KERN_PAD(n) (((n) + 15u) & ~(size_t)15u)

typedef struct dra_kern {
    const char *name; /* "scalar", "avx2", "avx512" */
    /* out bit i = (a[i] == v) / (a[i] != v) */
    void (*eq_u32)(const uint32_t *a, size_t n, uint32_t v, uint64_t *out);
    void (*ne_u32)(const uint32_t *a, size_t n, uint32_t v, uint64_t *out);
    /* out bit i = a[i] is one of set[0..nset) (nset may be 0: all zero) */
    void (*in_set_u32)(const uint32_t *a, size_t n, const uint32_t *set, size_t nset,
                       uint64_t *out);
    /* out bit i = (a[i] OP v), unsigned 32-bit order (version ranks) */
    void (*cmp_u32)(const uint32_t *a, size_t n, dra_kern_cmp_t op, uint32_t v, uint64_t *out);
    /* out bit i = (a[i] OP v), signed 64-bit order (ints, fixed-point capacities) */
    void (*cmp_i64)(const int64_t *a, size_t n, dra_kern_cmp_t op, int64_t v, uint64_t *out);
    /* out bit i = (a[i] == v): kind bytes (present / absent / kind masks) */
    void (*eq_u8)(const uint8_t *a, size_t n, uint8_t v, uint64_t *out);
    /* out bit i = (a[i] & mask) != 0: flag bytes, bool columns */
    void (*test_u8)(const uint8_t *a, size_t n, uint8_t mask, uint64_t *out);
    /* out bit i = bit a[i] of lut (lut bit c at word c / 64, bit c % 64): a predicate evaluated
     * once per dictionary entry, spread over the rows of a dictionary-encoded column. lut must
     * be readable for every code read (round_up(n, 16) elements); gather_u8 reads all 256 bits
     * (4 words) of lut whatever the codes. */
    void (*gather_u8)(const uint8_t *a, size_t n, const uint64_t *lut, uint64_t *out);
    void (*gather_u16)(const uint16_t *a, size_t n, const uint64_t *lut, uint64_t *out);
    void (*gather_u32)(const uint32_t *a, size_t n, const uint64_t *lut, uint64_t *out);
    /* bitset combinators over nwords words: dst = a & b, a | b, a & ~b */
    void (*and_)(uint64_t *dst, const uint64_t *a, const uint64_t *b, size_t nwords);
    void (*or_)(uint64_t *dst, const uint64_t *a, const uint64_t *b, size_t nwords);
    void (*andnot)(uint64_t *dst, const uint64_t *a, const uint64_t *b, size_t nwords);
    /* dst = ~a over nbits bits; bits >= nbits of the last word are zero */
    void (*not_)(uint64_t *dst, const uint64_t *a, size_t nbits);
    /* number of set bits in w[0..nwords) */
    size_t (*popcount)(const uint64_t *w, size_t nwords);
    /* index of the first set bit, or nwords * 64 when none */
    size_t (*first_set)(const uint64_t *w, size_t nwords);
} dra_kern_t;

/* The selected kernel table (initialised on first call from DRA_KERNEL or the CPU). */
const dra_kern_t *dra_kern_get(void);
/* Name of the selected kernel ("scalar", "avx2", "avx512"). */
const char *dra_kern_name(void);
/* Force a kernel: "scalar", "avx2", "avx512" or "auto" (best available). DRA_EINVAL for an
 * unknown name, DRA_EUNSUPPORTED when the CPU lacks it (the selection is then unchanged). */
DRA_NODISCARD int dra_kern_select(const char *name);
/* The table of a named kernel if built and supported by this CPU, else NULL ("auto" allowed). */
const dra_kern_t *dra_kern_lookup(const char *name);
/* Names of all kernels this build knows, in preference order (scalar first); NULL-terminated. */
const char *const *dra_kern_names(void);

/* Per-ISA tables (internal to core/kern; exposed for the differential tests). */
extern const dra_kern_t dra_kern__scalar;
extern const dra_kern_t dra_kern__avx2;
extern const dra_kern_t dra_kern__avx512;

#endif /* DRA_KERN_H */
