/*
 * test_kern.c - every kernel against the scalar reference.
 *
 * Random inputs (with values drawn from a small range so that equalities really happen), all
 * lengths 0..67 plus a few long ones, start offsets 0..15 elements (unaligned), garbage beyond n
 * up to the padding bound (it must not influence the result), and a guard word after the output
 * (it must not be written). Usage: test_kern [scalar|avx2|avx512]; without an argument every
 * kernel the CPU has is tested. A named kernel the CPU lacks exits 77 (skip).
 */
#include <stdlib.h>
#include <string.h>

#include "base/bitset.h"
#include "check.h"
#include "kern/kern.h"

static const dra_kern_t *K; /* kernel under test */
static uint64_t rng = 0x9e3779b97f4a7c15ull;

static uint64_t rnd(void)
{
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return rng;
}

#define MAXN 300
#define SLACK 64
#define GUARD 0x5a5a5a5a5a5a5a5aull

static size_t lengths[] = {0,  1,  2,  3,  5,  7,  8,  15, 16, 17, 31, 32, 33, 47, 48, 49, 63, 64,
                           65, 66, 67, 100, 127, 128, 129, 191, 255, 256, 257, 299};

static void for_each_case(void (*fn)(size_t n, size_t off))
{
    for (size_t n = 0; n <= 67; n++)
        for (size_t off = 0; off < 16; off++)
            fn(n, off);
    for (size_t i = 0; i < DRA_ARRAY_LEN(lengths); i++)
        for (size_t off = 0; off < 16; off += 5)
            fn(lengths[i], off);
}

static uint32_t u32buf[MAXN + SLACK];
static int64_t i64buf[MAXN + SLACK];
static uint8_t u8buf[MAXN + SLACK];
static uint64_t out_ref[(MAXN + 63) / 64 + 2], out_k[(MAXN + 63) / 64 + 2];

static uint32_t small_u32(void)
{
    uint64_t r = rnd();
    switch (r % 5) {
    case 0: return 0;
    case 1: return 0xffffffffu - (uint32_t)(r >> 8) % 3;
    case 2: return 0x7fffffffu + (uint32_t)(r >> 8) % 3;
    default: return (uint32_t)(r >> 8) % 8;
    }
}

static int64_t small_i64(void)
{
    uint64_t r = rnd();
    switch (r % 6) {
    case 0: return INT64_MIN + (int64_t)((r >> 8) % 2);
    case 1: return INT64_MAX - (int64_t)((r >> 8) % 2);
    case 2: return -(int64_t)((r >> 8) % 4);
    case 3: return (int64_t)(r >> 1);
    default: return (int64_t)((r >> 8) % 8);
    }
}

static void fill(void)
{
    for (size_t i = 0; i < MAXN + SLACK; i++) {
        u32buf[i] = small_u32();
        i64buf[i] = small_i64();
        u8buf[i] = (uint8_t)(rnd() % 4 == 0 ? rnd() : rnd() % 4);
    }
}

static void reset_out(void)
{
    for (size_t i = 0; i < DRA_ARRAY_LEN(out_ref); i++)
        out_ref[i] = out_k[i] = GUARD;
}

static int compare_out(size_t n, const char *what, size_t off)
{
    size_t nw = dra_bitset_words(n);
    for (size_t i = 0; i < nw; i++) {
        if (out_ref[i] != out_k[i]) {
            CHECK_MSG(out_ref[i] == out_k[i], "%s %s n=%zu off=%zu word %zu: %016llx vs %016llx",
                      K->name, what, n, off, i, (unsigned long long)out_ref[i],
                      (unsigned long long)out_k[i]);
            return 0;
        }
    }
    CHECK_MSG(out_k[nw] == GUARD, "%s %s n=%zu wrote past the output", K->name, what, n);
    if (n & 63)
        CHECK_MSG((out_k[nw - 1] >> (n & 63)) == 0, "%s %s n=%zu bits beyond n set", K->name, what,
                  n);
    return 1;
}

static void case_u32(size_t n, size_t off)
{
    fill();
    const uint32_t *a = u32buf + off;
    uint32_t v = n ? a[rnd() % n] : small_u32();
    if (rnd() % 4 == 0)
        v = small_u32();
    reset_out();
    dra_kern__scalar.eq_u32(a, n, v, out_ref);
    K->eq_u32(a, n, v, out_k);
    compare_out(n, "eq_u32", off);
    reset_out();
    dra_kern__scalar.ne_u32(a, n, v, out_ref);
    K->ne_u32(a, n, v, out_k);
    compare_out(n, "ne_u32", off);
    for (int op = DRA_CMP_EQ; op <= DRA_CMP_GE; op++) {
        reset_out();
        dra_kern__scalar.cmp_u32(a, n, (dra_kern_cmp_t)op, v, out_ref);
        K->cmp_u32(a, n, (dra_kern_cmp_t)op, v, out_k);
        compare_out(n, "cmp_u32", off);
    }
    uint32_t set[40];
    size_t nset = rnd() % 40;
    for (size_t i = 0; i < nset; i++)
        set[i] = small_u32();
    reset_out();
    dra_kern__scalar.in_set_u32(a, n, set, nset, out_ref);
    K->in_set_u32(a, n, set, nset, out_k);
    compare_out(n, "in_set_u32", off);
}

static void case_i64(size_t n, size_t off)
{
    fill();
    const int64_t *a = i64buf + off;
    int64_t v = n && rnd() % 2 ? a[rnd() % n] : small_i64();
    for (int op = DRA_CMP_EQ; op <= DRA_CMP_GE; op++) {
        reset_out();
        dra_kern__scalar.cmp_i64(a, n, (dra_kern_cmp_t)op, v, out_ref);
        K->cmp_i64(a, n, (dra_kern_cmp_t)op, v, out_k);
        compare_out(n, "cmp_i64", off);
    }
}

static void case_u8(size_t n, size_t off)
{
    fill();
    const uint8_t *a = u8buf + off;
    uint8_t v = (uint8_t)(rnd() % 5);
    reset_out();
    dra_kern__scalar.eq_u8(a, n, v, out_ref);
    K->eq_u8(a, n, v, out_k);
    compare_out(n, "eq_u8", off);
    uint8_t m = (uint8_t)rnd();
    reset_out();
    dra_kern__scalar.test_u8(a, n, m, out_ref);
    K->test_u8(a, n, m, out_k);
    compare_out(n, "test_u8", off);
}

/* Gathers: a random lut (runs of zero and all-one words too), codes over the whole u8 range and
 * up to 70,000 for u16 / u32 (the lut covers every code, including the ones past n). */
#define LUT_WORDS 1100 /* 70,400 bits */
static uint64_t lut[LUT_WORDS];
static uint16_t u16buf[MAXN + SLACK];
static uint32_t codebuf[MAXN + SLACK];
static uint8_t bytebuf[MAXN + SLACK];

static void case_gather(size_t n, size_t off)
{
    for (size_t i = 0; i < LUT_WORDS; i++) {
        uint64_t r = rnd() % 4;
        lut[i] = r == 0 ? 0 : r == 1 ? ~(uint64_t)0 : rnd();
    }
    for (size_t i = 0; i < MAXN + SLACK; i++) {
        uint64_t r = rnd();
        bytebuf[i] = (uint8_t)(r % 3 == 0 ? r >> 8 : (r >> 8) % 6);
        u16buf[i] = (uint16_t)(r % 3 == 0 ? r >> 16 : (r >> 16) % 300);
        codebuf[i] = (uint32_t)(r % 3 == 0 ? (r >> 16) % 70400 : (r >> 16) % 300);
    }
    reset_out();
    dra_kern__scalar.gather_u8(bytebuf + off, n, lut, out_ref);
    K->gather_u8(bytebuf + off, n, lut, out_k);
    compare_out(n, "gather_u8", off);
    reset_out();
    dra_kern__scalar.gather_u16(u16buf + off, n, lut, out_ref);
    K->gather_u16(u16buf + off, n, lut, out_k);
    compare_out(n, "gather_u16", off);
    reset_out();
    dra_kern__scalar.gather_u32(codebuf + off, n, lut, out_ref);
    K->gather_u32(codebuf + off, n, lut, out_k);
    compare_out(n, "gather_u32", off);
}

static void case_bits(size_t nbits, size_t off)
{
    static uint64_t a[80], b[80], r1[80], r2[80];
    size_t nw = dra_bitset_words(nbits);
    for (size_t i = 0; i < 80; i++) {
        uint64_t x = rnd();
        a[i] = rnd() % 3 == 0 ? 0 : x;
        b[i] = rnd() & rnd();
    }
    (void)off;
    memcpy(r1, a, sizeof a);
    memcpy(r2, a, sizeof a);
    dra_kern__scalar.and_(r1, a, b, nw);
    K->and_(r2, a, b, nw);
    CHECK(memcmp(r1, r2, sizeof r1) == 0);
    dra_kern__scalar.or_(r1, a, b, nw);
    K->or_(r2, a, b, nw);
    CHECK(memcmp(r1, r2, sizeof r1) == 0);
    dra_kern__scalar.andnot(r1, a, b, nw);
    K->andnot(r2, a, b, nw);
    CHECK(memcmp(r1, r2, sizeof r1) == 0);
    dra_kern__scalar.not_(r1, a, nbits);
    K->not_(r2, a, nbits);
    CHECK(memcmp(r1, r2, sizeof r1) == 0);
    /* in place (dst aliases a) */
    memcpy(r1, a, sizeof a);
    memcpy(r2, a, sizeof a);
    dra_kern__scalar.and_(r1, r1, b, nw);
    K->and_(r2, r2, b, nw);
    CHECK(memcmp(r1, r2, sizeof r1) == 0);
    CHECK_EQ_U64(K->popcount(a, nw), dra_kern__scalar.popcount(a, nw));
    CHECK_EQ_U64(K->popcount(a, nw), dra_bitset_count(a, nw * 64));
    /* first_set on sparse inputs: at most one bit set somewhere */
    memset(r1, 0, sizeof r1);
    if (nw && rnd() % 4) {
        size_t bit = rnd() % (nw * 64);
        dra_bit_set(r1, bit);
        CHECK_EQ_U64(K->first_set(r1, nw), bit);
    }
    CHECK_EQ_U64(K->first_set(r1, nw), dra_kern__scalar.first_set(r1, nw));
    CHECK_EQ_U64(K->first_set(a, nw), dra_kern__scalar.first_set(a, nw));
}

static void test_elements(void)
{
    for_each_case(case_u32);
    for_each_case(case_i64);
    for_each_case(case_u8);
    for_each_case(case_gather);
    for (size_t n = 0; n <= 67 * 64; n += 37)
        case_bits(n, 0);
    for (size_t n = 0; n <= 64 * 64; n += 64)
        case_bits(n, 0);
}

/* Hand-checked values, so the reference itself cannot drift. */
static void test_scalar_reference(void)
{
    uint32_t a[32] = {5, 1, 5, 0xffffffffu, 7};
    int64_t b[32] = {-3, 0, INT64_MAX, INT64_MIN, 2};
    uint8_t c[32] = {0, 1, 2, 3, 0x80};
    uint64_t w[1];
    K->eq_u32(a, 5, 5, w);
    CHECK_EQ_U64(w[0], 0x5);
    K->cmp_u32(a, 5, DRA_CMP_GT, 5, w);
    CHECK_EQ_U64(w[0], 0x18); /* 0xffffffff and 7 (unsigned order) */
    K->cmp_i64(b, 5, DRA_CMP_LT, 0, w);
    CHECK_EQ_U64(w[0], 0x9);
    K->cmp_i64(b, 5, DRA_CMP_GE, 0, w);
    CHECK_EQ_U64(w[0], 0x16);
    uint32_t set[] = {7, 1};
    K->in_set_u32(a, 5, set, 2, w);
    CHECK_EQ_U64(w[0], 0x12);
    K->eq_u8(c, 5, 0, w);
    CHECK_EQ_U64(w[0], 0x1);
    K->test_u8(c, 5, 0x82, w);
    CHECK_EQ_U64(w[0], 0x1c);
    /* gather: lut bits 0, 2, 64 + 1, 255 */
    uint64_t lt[4] = {0x5, 0x2, 0, (uint64_t)1 << 63};
    uint8_t g8[32] = {0, 1, 2, 65, 255, 254, 64};
    K->gather_u8(g8, 7, lt, w);
    CHECK_EQ_U64(w[0], 0x1d);
    uint16_t g16[32] = {2, 3, 65, 255};
    K->gather_u16(g16, 4, lt, w);
    CHECK_EQ_U64(w[0], 0xd);
    uint32_t g32[32] = {255, 0, 1};
    K->gather_u32(g32, 3, lt, w);
    CHECK_EQ_U64(w[0], 0x3);
    uint64_t z[3] = {0, 0, 0x100};
    CHECK_EQ_U64(K->first_set(z, 3), 136);
    CHECK_EQ_U64(K->first_set(z, 2), 128);
    CHECK_EQ_U64(K->popcount(z, 3), 1);
}

static void test_dispatch(void)
{
    CHECK_EQ_I64(dra_kern_select("nonsense"), DRA_EINVAL);
    CHECK_OK(dra_kern_select("scalar"));
    CHECK_STREQ(dra_kern_name(), "scalar");
    CHECK_OK(dra_kern_select("auto"));
    const dra_kern_t *best = dra_kern_lookup("auto");
    CHECK(best != NULL);
    CHECK_STREQ(dra_kern_name(), best->name);
    for (const char *const *n = dra_kern_names(); *n; n++) {
        const dra_kern_t *k = dra_kern_lookup(*n);
        if (k) {
            CHECK_OK(dra_kern_select(*n));
            CHECK(dra_kern_get() == k);
        } else {
            CHECK_EQ_I64(dra_kern_select(*n), DRA_EUNSUPPORTED);
        }
    }
}

int main(int argc, char **argv)
{
    /* The first dra_kern_get honours DRA_KERNEL (checked before anything selects a kernel). */
    const char *env = getenv("DRA_KERNEL");
    if (env && dra_kern_lookup(env)) {
        if (strcmp(dra_kern_name(), dra_kern_lookup(env)->name) != 0) {
            fprintf(stderr, "DRA_KERNEL=%s not honoured (got %s)\n", env, dra_kern_name());
            return 1;
        }
    }
    if (argc > 1) {
        K = dra_kern_lookup(argv[1]);
        if (!K) {
            printf("kernel %s: not supported by this CPU or build\n", argv[1]);
            return 77;
        }
        printf("kernel %s\n", K->name);
        RUN(test_scalar_reference);
        RUN(test_elements);
    } else {
        for (const char *const *n = dra_kern_names(); *n; n++) {
            K = dra_kern_lookup(*n);
            if (!K) {
                printf("kernel %s: not supported here, skipped\n", *n);
                continue;
            }
            printf("kernel %s\n", K->name);
            RUN(test_scalar_reference);
            RUN(test_elements);
        }
    }
    RUN(test_dispatch);
    return check_summary();
}
