/*
 * quantity_fuzzer.c - property fuzzing of core/base quantity and semver.
 *
 * Input: up to three strings separated by '\n' (or NUL). Each string is parsed as a Kubernetes
 * quantity and as a semantic version (strict and lenient). Properties checked (abort on
 * violation):
 *  quantity
 *   - parse -> format -> parse succeeds and gives an equal value (cmp == 0, equal hash), and
 *     formatting that value again prints the same text; the printed text fits
 *     DRA_QUANTITY_FMT_MAX, a short buffer gets a NUL-terminated prefix and the same length;
 *   - canonicalize keeps the value; asInteger succeeds exactly when isInteger, with an equal
 *     value; a successful fixed-point export at scale 0 or -9 holds the same value;
 *   - cmp is reflexive, antisymmetric and transitive over the three values, and sign(a) agrees
 *     with cmp(a, 0); equal values hash equal;
 *   - add is commutative; (a + b) - b == a and (a - b) + b == a when no step overflows;
 *     a - b == -(b - a); a - a == 0; cmp(a + b, a) == sign(b);
 *  semver
 *   - a strict parse that succeeds also succeeds leniently with equal precedence;
 *   - re-printing MAJOR.MINOR.PATCH[-PRE][+BUILD] parses to the same fields;
 *   - cmp is reflexive, antisymmetric and transitive; it ignores build metadata.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/quantity.h"
#include "base/semver.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define NPIECES 3

static void fail(const char *what, const char *a, const char *b)
{
    fprintf(stderr, "quantity_fuzzer: %s [%s] [%s]\n", what, a ? a : "", b ? b : "");
    abort();
}

static const char *qstr(const dra_quantity_t *q, char *buf)
{
    dra_quantity_format(q, buf, DRA_QUANTITY_FMT_MAX);
    return buf;
}

static dra_quantity_t binary_cap; /* 2^63-1, set once */

/* True when q is binary-SI with a magnitude above 2^63-1 (sums can get there). */
static bool over_binary_cap(const dra_quantity_t *q)
{
    if (q->format != DRA_QFMT_BINARY_SI)
        return false;
    dra_quantity_t a = *q;
    a.neg = 0;
    return dra_quantity_cmp(&a, &binary_cap) > 0;
}

static void quantity_single(const dra_quantity_t *q)
{
    char buf[DRA_QUANTITY_FMT_MAX], again[DRA_QUANTITY_FMT_MAX];
    size_t n = dra_quantity_format(q, buf, sizeof buf);
    if (n >= sizeof buf || strlen(buf) != n)
        fail("format length", buf, NULL);
    char small[5];
    size_t n2 = dra_quantity_format(q, small, sizeof small);
    if (n2 != n || strlen(small) != (n < sizeof small ? n : sizeof small - 1) ||
        memcmp(small, buf, strlen(small)) != 0)
        fail("format into a short buffer", buf, small);
    if (dra_quantity_format(q, NULL, 0) != n)
        fail("format length with no buffer", buf, NULL);

    dra_quantity_t r;
    dra_diag_t diag = {0};
    if (dra_quantity_parse(buf, n, &r, &diag) != DRA_OK)
        fail("formatted text does not parse", buf, diag.msg);
    bool capped = over_binary_cap(q) && buf[n - 1] == 'i';
    if (capped) {
        /* Documented exception: parsing a binary-SI literal caps it at 2^63-1. */
        dra_quantity_t ar = r;
        ar.neg = 0;
        if (dra_quantity_cmp(&ar, &binary_cap) != 0 || r.neg != q->neg)
            fail("binary-SI value above 2^63-1 not capped on re-parse", buf, qstr(&r, again));
        quantity_single(&r);
    } else {
        if (dra_quantity_cmp(q, &r) != 0)
            fail("format/parse changed the value", buf, qstr(&r, again));
        if (dra_quantity_hash(q) != dra_quantity_hash(&r))
            fail("equal values hash differently", buf, qstr(&r, again));
        dra_quantity_format(&r, again, sizeof again);
        /* A binary-SI integer that is no multiple of 1024 prints as bare digits (upstream
         * CanonicalizeBytes keeps BinarySI with exponent 0), which re-parse as DecimalSI and may
         * then print with a decimal suffix: 1.5Gi - 1536736 -> "1609076000" -> "1609076k". */
        bool family_change = q->format == DRA_QFMT_BINARY_SI && r.format != DRA_QFMT_BINARY_SI;
        if (family_change)
            quantity_single(&r); /* r itself must then be stable */
        else if (strcmp(buf, again) != 0)
            fail("format is not idempotent", buf, again);
    }

    dra_quantity_t c;
    if (dra_quantity_canonicalize(q, &c) != DRA_OK)
        fail("canonicalize failed", buf, NULL);
    if (dra_quantity_cmp(capped ? &r : q, &c) != 0)
        fail("canonicalize changed the value", buf, qstr(&c, again));

    int64_t v = 0;
    int rc = dra_quantity_as_int64(q, &v);
    if ((rc == DRA_OK) != dra_quantity_is_integer(q))
        fail("asInteger disagrees with isInteger", buf, NULL);
    if (rc == DRA_OK) {
        dra_quantity_t iv;
        dra_quantity_from_int64(v, &iv);
        if (dra_quantity_cmp(q, &iv) != 0)
            fail("asInteger value differs", buf, qstr(&iv, again));
    }
    int64_t units = 0;
    if (dra_quantity_to_fixed(q, &units, 0)) {
        dra_quantity_t iv;
        dra_quantity_from_int64(units, &iv);
        if (dra_quantity_cmp(q, &iv) != 0)
            fail("to_fixed(0) value differs", buf, qstr(&iv, again));
    }
    if (dra_quantity_to_fixed(q, &units, -9)) {
        char nb[48];
        int len = snprintf(nb, sizeof nb, "%lldn", (long long)units);
        dra_quantity_t nv;
        if (dra_quantity_parse(nb, (size_t)len, &nv, NULL) != DRA_OK ||
            dra_quantity_cmp(q, &nv) != 0)
            fail("to_fixed(-9) value differs", buf, nb);
    }

    dra_quantity_t zero;
    memset(&zero, 0, sizeof zero);
    if (dra_quantity_cmp(q, &zero) != dra_quantity_sign(q))
        fail("sign disagrees with cmp against 0", buf, NULL);
    if (dra_quantity_cmp(q, q) != 0)
        fail("cmp not reflexive", buf, NULL);
    dra_quantity_t d;
    if (dra_quantity_sub(q, q, &d) != DRA_OK || dra_quantity_sign(&d) != 0)
        fail("a - a != 0", buf, qstr(&d, again));
}

static void quantity_pair(const dra_quantity_t *a, const dra_quantity_t *b)
{
    char sa[DRA_QUANTITY_FMT_MAX], sb[DRA_QUANTITY_FMT_MAX];
    qstr(a, sa);
    qstr(b, sb);
    int ab = dra_quantity_cmp(a, b), ba = dra_quantity_cmp(b, a);
    if (ab != -ba || ab < -1 || ab > 1)
        fail("cmp not antisymmetric", sa, sb);
    if (ab == 0 && dra_quantity_hash(a) != dra_quantity_hash(b))
        fail("equal values hash differently", sa, sb);

    dra_quantity_t s1, s2, back, d1, d2;
    int r1 = dra_quantity_add(a, b, &s1);
    int r2 = dra_quantity_add(b, a, &s2);
    if (r1 != r2)
        fail("add overflow not symmetric", sa, sb);
    if (r1 == DRA_OK) {
        if (dra_quantity_cmp(&s1, &s2) != 0)
            fail("add not commutative", sa, sb);
        if (dra_quantity_cmp(&s1, a) != dra_quantity_sign(b))
            fail("cmp(a + b, a) != sign(b)", sa, sb);
        if (dra_quantity_sub(&s1, b, &back) == DRA_OK && dra_quantity_cmp(&back, a) != 0)
            fail("(a + b) - b != a", sa, sb);
        quantity_single(&s1);
    } else if (r1 != DRA_EOVERFLOW) {
        fail("add returned an unexpected error", sa, sb);
    }
    r1 = dra_quantity_sub(a, b, &d1);
    r2 = dra_quantity_sub(b, a, &d2);
    if (r1 != r2)
        fail("sub overflow not symmetric", sa, sb);
    if (r1 == DRA_OK) {
        if (dra_quantity_sign(&d1) != -dra_quantity_sign(&d2) ||
            dra_quantity_sign(&d1) != ab)
            fail("sign(a - b) inconsistent", sa, sb);
        dra_quantity_t z;
        if (dra_quantity_add(&d1, &d2, &z) == DRA_OK && dra_quantity_sign(&z) != 0)
            fail("(a - b) + (b - a) != 0", sa, sb);
        if (dra_quantity_add(&d1, b, &back) == DRA_OK && dra_quantity_cmp(&back, a) != 0)
            fail("(a - b) + b != a", sa, sb);
        quantity_single(&d1);
    } else if (r1 != DRA_EOVERFLOW) {
        fail("sub returned an unexpected error", sa, sb);
    }
    /* Aliasing: out == a must give the same result as a separate out. */
    dra_quantity_t al = *a;
    r2 = dra_quantity_add(&al, b, &al);
    if (dra_quantity_add(a, b, &s1) == DRA_OK &&
        (r2 != DRA_OK || memcmp(&al, &s1, sizeof al) != 0))
        fail("aliased add differs", sa, sb);
}

static void quantity_triple(const dra_quantity_t *a, const dra_quantity_t *b,
                            const dra_quantity_t *c)
{
    int ab = dra_quantity_cmp(a, b), bc = dra_quantity_cmp(b, c), ac = dra_quantity_cmp(a, c);
    if (ab <= 0 && bc <= 0 && ac > 0) {
        char sa[DRA_QUANTITY_FMT_MAX], sc[DRA_QUANTITY_FMT_MAX];
        fail("cmp not transitive", qstr(a, sa), qstr(c, sc));
    }
    if (ab >= 0 && bc >= 0 && ac < 0) {
        char sa[DRA_QUANTITY_FMT_MAX], sc[DRA_QUANTITY_FMT_MAX];
        fail("cmp not transitive", qstr(a, sa), qstr(c, sc));
    }
}

static int semver_print(const dra_semver_t *v, bool build, char *buf, size_t len)
{
    int n = snprintf(buf, len, "%llu.%llu.%llu", (unsigned long long)v->major,
                     (unsigned long long)v->minor, (unsigned long long)v->patch);
    if (v->pre_len)
        n += snprintf(buf + n, len - (size_t)n, "-%.*s", (int)v->pre_len, v->pre);
    if (build && v->build_len)
        n += snprintf(buf + n, len - (size_t)n, "+%.*s", (int)v->build_len, v->build);
    return n;
}

static void semver_single(const char *s, size_t len, const dra_semver_t *v, bool lenient)
{
    char buf[600];
    if (v->pre_len + v->build_len > 500)
        return;
    int n = semver_print(v, true, buf, sizeof buf);
    dra_semver_t r;
    dra_diag_t diag = {0};
    if (dra_semver_parse(buf, (size_t)n, false, &r, &diag) != DRA_OK)
        fail("re-printed version does not parse", buf, diag.msg);
    if (r.major != v->major || r.minor != v->minor || r.patch != v->patch ||
        r.pre_len != v->pre_len || r.pre_count != v->pre_count ||
        r.build_len != v->build_len || memcmp(r.pre ? r.pre : "", v->pre ? v->pre : "", r.pre_len) ||
        memcmp(r.build ? r.build : "", v->build ? v->build : "", r.build_len))
        fail("re-printed version differs", buf, NULL);
    if (dra_semver_cmp(v, &r) != 0 || dra_semver_cmp(v, v) != 0)
        fail("semver cmp not reflexive", buf, NULL);
    /* Build metadata is ignored by precedence. */
    n = semver_print(v, false, buf, sizeof buf);
    if (dra_semver_parse(buf, (size_t)n, false, &r, NULL) != DRA_OK || dra_semver_cmp(v, &r))
        fail("semver cmp depends on build metadata", buf, NULL);
    if (!lenient) {
        dra_semver_t l;
        if (dra_semver_parse(s, len, true, &l, &diag) != DRA_OK || dra_semver_cmp(v, &l) != 0)
            fail("strict version rejected or changed by lenient parse", buf, diag.msg);
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size > 4096)
        return 0;
    if (!binary_cap.lo)
        dra_quantity_from_int64(INT64_MAX, &binary_cap);
    /* Split into pieces; each piece is copied so it is exactly sized (ASan sees overreads). */
    char *piece[NPIECES] = {0};
    size_t plen[NPIECES] = {0};
    size_t np = 0, start = 0;
    for (size_t i = 0; i <= size && np < NPIECES; i++) {
        if (i == size || data[i] == '\n' || data[i] == '\0') {
            plen[np] = i - start;
            piece[np] = malloc(plen[np] ? plen[np] : 1);
            if (!piece[np])
                abort();
            if (plen[np])
                memcpy(piece[np], data + start, plen[np]);
            np++;
            start = i + 1;
        }
    }

    dra_quantity_t q[NPIECES];
    bool qok[NPIECES] = {false};
    dra_semver_t sv[2][NPIECES];
    bool sok[2][NPIECES] = {{false}};
    for (size_t i = 0; i < np; i++) {
        dra_diag_t diag = {0};
        int rc = dra_quantity_parse(piece[i], plen[i], &q[i], &diag);
        if (rc != DRA_OK && rc != DRA_EPARSE && rc != DRA_ELIMIT)
            fail("quantity parse returned an unexpected error", NULL, NULL);
        if (rc != DRA_OK && !diag.msg[0])
            fail("quantity parse error without a message", NULL, NULL);
        qok[i] = rc == DRA_OK;
        if (qok[i])
            quantity_single(&q[i]);
        for (int l = 0; l < 2; l++) {
            rc = dra_semver_parse(piece[i], plen[i], l != 0, &sv[l][i], &diag);
            if (rc != DRA_OK && rc != DRA_EPARSE && rc != DRA_ENOMEM && rc != DRA_ELIMIT)
                fail("semver parse returned an unexpected error", NULL, NULL);
            sok[l][i] = rc == DRA_OK;
            if (sok[l][i])
                semver_single(piece[i], plen[i], &sv[l][i], l != 0);
        }
    }
    for (size_t i = 0; i < np; i++)
        for (size_t j = 0; j < np; j++)
            if (qok[i] && qok[j])
                quantity_pair(&q[i], &q[j]);
    if (np == 3 && qok[0] && qok[1] && qok[2]) {
        quantity_triple(&q[0], &q[1], &q[2]);
        quantity_triple(&q[0], &q[2], &q[1]);
        quantity_triple(&q[1], &q[0], &q[2]);
    }
    for (int l = 0; l < 2; l++) {
        for (size_t i = 0; i < np; i++)
            for (size_t j = 0; j < np; j++)
                if (sok[l][i] && sok[l][j] &&
                    dra_semver_cmp(&sv[l][i], &sv[l][j]) != -dra_semver_cmp(&sv[l][j], &sv[l][i]))
                    fail("semver cmp not antisymmetric", NULL, NULL);
        if (np == 3 && sok[l][0] && sok[l][1] && sok[l][2]) {
            for (int k = 0; k < 3; k++) {
                const dra_semver_t *a = &sv[l][k], *b = &sv[l][(k + 1) % 3],
                                   *c = &sv[l][(k + 2) % 3];
                int ab = dra_semver_cmp(a, b), bc = dra_semver_cmp(b, c),
                    ac = dra_semver_cmp(a, c);
                if ((ab <= 0 && bc <= 0 && ac > 0) || (ab >= 0 && bc >= 0 && ac < 0))
                    fail("semver cmp not transitive", NULL, NULL);
            }
        }
    }
    for (size_t i = 0; i < np; i++)
        free(piece[i]);
    return 0;
}
