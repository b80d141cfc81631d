/*
 * semver.c - SemVer 2.0.0 parsing and precedence (see semver.h for the contract).
 *
 * The checks run in blang/semver v4's order so that the first error reported, and its text, are
 * the ones Kubernetes reports.
 */
#include "semver.h"

#include <stdlib.h>
#include <string.h>

#define LENIENT_STACK 256

static bool is_num(char c)
{
    return c >= '0' && c <= '9';
}

static bool is_alnum(char c)
{
    return is_num(c) || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '-';
}

static bool only_nums(const char *s, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (!is_num(s[i]))
            return false;
    return true;
}

static bool only_alnum(const char *s, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (!is_alnum(s[i]))
            return false;
    return true;
}

static int fail(dra_diag_t *diag, const char *msg)
{
    return dra_diag_set(diag, DRA_EPARSE, NULL, 0, 0, "%s", msg);
}

static int failq(dra_diag_t *diag, const char *what, const char *s, size_t n)
{
    /* blang formats the offending part with %q */
    int shown = n > 128 ? 128 : (int)n;
    return dra_diag_set(diag, DRA_EPARSE, NULL, 0, 0, "%s \"%.*s\"", what, shown, s);
}

/* strconv.ParseUint(s, 10, 64) on an all-digit string. */
static int parse_u64(const char *s, size_t n, uint64_t *out, dra_diag_t *diag)
{
    int shown = n > 128 ? 128 : (int)n;
    if (n == 0)
        return dra_diag_set(diag, DRA_EPARSE, NULL, 0, 0,
                            "strconv.ParseUint: parsing \"\": invalid syntax");
    uint64_t v = 0;
    for (size_t i = 0; i < n; i++) {
        unsigned d = (unsigned)(s[i] - '0');
        if (v > (UINT64_MAX - d) / 10)
            return dra_diag_set(diag, DRA_EPARSE, NULL, 0, 0,
                                "strconv.ParseUint: parsing \"%.*s\": value out of range", shown,
                                s);
        v = v * 10 + d;
    }
    *out = v;
    return DRA_OK;
}

static int parse_number(const char *s, size_t n, const char *lower, const char *upper,
                        uint64_t *out, dra_diag_t *diag)
{
    int shown = n > 128 ? 128 : (int)n;
    if (!only_nums(s, n))
        return dra_diag_set(diag, DRA_EPARSE, NULL, 0, 0,
                            "Invalid character(s) found in %s number \"%.*s\"", lower, shown, s);
    if (n > 1 && s[0] == '0')
        return dra_diag_set(diag, DRA_EPARSE, NULL, 0, 0,
                            "%s number must not contain leading zeroes \"%.*s\"", upper, shown, s);
    return parse_u64(s, n, out, diag);
}

static int parse_strict(const char *s, size_t len, dra_semver_t *out, dra_diag_t *diag)
{
    dra_semver_t v;
    memset(&v, 0, sizeof v);
    if (len == 0)
        return fail(diag, "Version string empty");
    const char *end = s + len;
    const char *d1 = memchr(s, '.', len);
    const char *d2 = d1 ? memchr(d1 + 1, '.', (size_t)(end - d1 - 1)) : NULL;
    if (!d2)
        return fail(diag, "No Major.Minor.Patch elements found");
    int rc = parse_number(s, (size_t)(d1 - s), "major", "Major", &v.major, diag);
    if (rc)
        return rc;
    rc = parse_number(d1 + 1, (size_t)(d2 - d1 - 1), "minor", "Minor", &v.minor, diag);
    if (rc)
        return rc;

    const char *patch = d2 + 1, *patch_end = end;
    const char *plus = memchr(patch, '+', (size_t)(end - patch));
    const char *build = NULL, *pre = NULL;
    if (plus) {
        build = plus + 1;
        patch_end = plus;
    }
    const char *minus = memchr(patch, '-', (size_t)(patch_end - patch));
    const char *pre_end = patch_end;
    if (minus) {
        pre = minus + 1;
        patch_end = minus;
    }
    rc = parse_number(patch, (size_t)(patch_end - patch), "patch", "Patch", &v.patch, diag);
    if (rc)
        return rc;

    if (pre) {
        uint32_t count = 0;
        const char *p = pre;
        for (;;) {
            const char *q = memchr(p, '.', (size_t)(pre_end - p));
            const char *id_end = q ? q : pre_end;
            size_t n = (size_t)(id_end - p);
            if (n == 0)
                return fail(diag, "Prerelease is empty");
            if (only_nums(p, n)) {
                if (n > 1 && p[0] == '0')
                    return failq(diag,
                                 "Numeric PreRelease version must not contain leading zeroes", p,
                                 n);
                uint64_t num;
                rc = parse_u64(p, n, &num, diag);
                if (rc)
                    return rc;
            } else if (!only_alnum(p, n)) {
                return failq(diag, "Invalid character(s) found in prerelease", p, n);
            }
            count++;
            if (!q)
                break;
            p = q + 1;
        }
        v.pre = pre;
        v.pre_len = (uint32_t)(pre_end - pre);
        v.pre_count = count;
    }
    if (build) {
        const char *p = build;
        for (;;) {
            const char *q = memchr(p, '.', (size_t)(end - p));
            const char *id_end = q ? q : end;
            size_t n = (size_t)(id_end - p);
            if (n == 0)
                return fail(diag, "Build meta data is empty");
            if (!only_alnum(p, n))
                return failq(diag, "Invalid character(s) found in build meta data", p, n);
            if (!q)
                break;
            p = q + 1;
        }
        v.build = build;
        v.build_len = (uint32_t)(end - build);
    }
    *out = v;
    return DRA_OK;
}

/* Kubernetes' normalizeAndParse: builds the normalised text into buf (capacity len + 8). */
static int normalize(const char *s, size_t len, char *buf, size_t *outlen, dra_diag_t *diag)
{
    if (len > 0 && s[0] == 'v') {
        s++;
        len--;
    }
    const char *end = s + len;
    const char *parts[3];
    size_t plen[3];
    size_t np = 0;
    const char *p = s;
    while (np < 2) {
        const char *dot = memchr(p, '.', (size_t)(end - p));
        if (!dot)
            break;
        parts[np] = p;
        plen[np++] = (size_t)(dot - p);
        p = dot + 1;
    }
    parts[np] = p;
    plen[np++] = (size_t)(end - p);

    size_t n = 0;
    for (size_t i = 0; i < np; i++) {
        const char *q = parts[i];
        size_t ql = plen[i];
        if (i)
            buf[n++] = '.';
        if (ql > 1) {
            while (ql > 0 && q[0] == '0') {
                q++;
                ql--;
            }
            if (ql == 0 || !is_num(q[0]))
                buf[n++] = '0';
        }
        memcpy(buf + n, q, ql);
        n += ql;
    }
    if (np < 3) {
        const char *last = parts[np - 1];
        for (size_t i = 0; i < plen[np - 1]; i++)
            if (last[i] == '+' || last[i] == '-')
                return fail(diag, "short version cannot contain PreRelease/Build meta data");
        for (; np < 3; np++) {
            buf[n++] = '.';
            buf[n++] = '0';
        }
    }
    *outlen = n;
    return DRA_OK;
}

int dra_semver_parse(const char *s, size_t len, bool lenient, dra_semver_t *out,
                     dra_diag_t *diag)
{
    if (!out || (!s && len))
        return dra_diag_set(diag, DRA_EINVAL, NULL, 0, 0, "dra_semver_parse: NULL argument");
    if (len > UINT32_MAX - 16)
        return dra_diag_set(diag, DRA_ELIMIT, NULL, 0, 0, "version string too long");
    if (!lenient)
        return parse_strict(s, len, out, diag);

    char stack[LENIENT_STACK];
    char *buf = len + 8 <= sizeof stack ? stack : malloc(len + 8);
    if (!buf)
        return dra_diag_set(diag, DRA_ENOMEM, NULL, 0, 0, "out of memory");
    size_t n = 0;
    dra_semver_t v;
    int rc = normalize(s, len, buf, &n, diag);
    if (rc == DRA_OK)
        rc = parse_strict(buf, n, &v, diag);
    if (rc == DRA_OK) {
        /* prerelease and build lie in the untouched tail: point them into s instead */
        if (v.pre)
            v.pre = s + len - (size_t)(buf + n - v.pre);
        if (v.build)
            v.build = s + len - (size_t)(buf + n - v.build);
        *out = v;
    }
    if (buf != stack)
        free(buf);
    return rc;
}

/* ---- precedence ----------------------------------------------------------------------------- */

static int cmp_u64(uint64_t a, uint64_t b)
{
    return a < b ? -1 : a > b;
}

static int cmp_ident(const char *a, size_t an, const char *b, size_t bn)
{
    bool anum = only_nums(a, an), bnum = only_nums(b, bn);
    if (anum && bnum) { /* no leading zeros: longer is larger, else lexicographic */
        if (an != bn)
            return an < bn ? -1 : 1;
        int c = memcmp(a, b, an);
        return c < 0 ? -1 : c > 0;
    }
    if (anum)
        return -1;
    if (bnum)
        return 1;
    int c = memcmp(a, b, an < bn ? an : bn);
    if (c)
        return c < 0 ? -1 : 1;
    return an < bn ? -1 : an > bn;
}

int dra_semver_cmp(const dra_semver_t *a, const dra_semver_t *b)
{
    int c = cmp_u64(a->major, b->major);
    if (!c)
        c = cmp_u64(a->minor, b->minor);
    if (!c)
        c = cmp_u64(a->patch, b->patch);
    if (c)
        return c;
    if (a->pre_len == 0 || b->pre_len == 0)
        return a->pre_len == 0 ? (b->pre_len == 0 ? 0 : 1) : -1;
    const char *pa = a->pre, *ea = a->pre + a->pre_len;
    const char *pb = b->pre, *eb = b->pre + b->pre_len;
    for (;;) {
        const char *qa = memchr(pa, '.', (size_t)(ea - pa));
        const char *qb = memchr(pb, '.', (size_t)(eb - pb));
        const char *ia = qa ? qa : ea, *ib = qb ? qb : eb;
        c = cmp_ident(pa, (size_t)(ia - pa), pb, (size_t)(ib - pb));
        if (c)
            return c;
        if (!qa || !qb)
            return qa ? 1 : qb ? -1 : 0;
        pa = qa + 1;
        pb = qb + 1;
    }
}
