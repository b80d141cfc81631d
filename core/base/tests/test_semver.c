/*
 * test_semver.c - SemVer parsing (blang/semver v4 Parse and Kubernetes' lenient normalise mode)
 * and precedence, per CEL-DRA.md section 6 and 9.8. Cases taken from
 * ../shared/cel/dra-expressions.tsv cite the row's expression; test_quantity.c also evaluates
 * those rows directly from the file.
 */
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/err.h"
#include "base/semver.h"
#include "check.h"

static bool ok(const char *s, bool lenient)
{
    dra_semver_t v;
    return dra_semver_parse(s, strlen(s), lenient, &v, NULL) == DRA_OK;
}

static dra_semver_t V(const char *s)
{
    dra_semver_t v;
    dra_diag_t d;
    int rc = dra_semver_parse(s, strlen(s), false, &v, &d);
    CHECK_MSG(rc == DRA_OK, "%s: %s", s, d.msg);
    return v;
}

static int cmpv(const char *a, const char *b)
{
    dra_semver_t x = V(a), y = V(b);
    return dra_semver_cmp(&x, &y);
}

static void test_strict_valid(void)
{
    static const char *const good[] = {
        "0.0.0",                 /* TSV isSemver("1.0.0-rc-1") && isSemver("1.0.0+001") && ... */
        "1.0.0-rc-1",            /* '-' is an identifier character */
        "1.0.0+001",             /* build identifiers may have leading zeros */
        "1.2.3-beta.1+build.1",  /* TSV isSemver("1.2.3-beta.1+build.1") */
        "1.0.0-0a",              /* TSV: alphanumeric, so leading zero allowed */
        "1.0.0-0",
        "1.0.0-alpha.beta.1",
        "1.0.0+build.-",
        "1.0.0+a-b",
        "18446744073709551615.18446744073709551615.18446744073709551615",
        "1.0.0-18446744073709551615",
        "1.2.3-x.7.z.92",
        "1.0.0-alpha+001",
        "1.0.0+20130313144700",
        "1.0.0-beta+exp.sha.5114f85",
        "1.2.3----RC-SNAPSHOT.12.9.1--.12+788",
    };
    for (size_t i = 0; i < DRA_ARRAY_LEN(good); i++)
        CHECK_MSG(ok(good[i], false), "%s should parse", good[i]);

    dra_semver_t v = V("1.2.3-beta.1+build.1");
    CHECK_EQ_U64(v.major, 1);
    CHECK_EQ_U64(v.minor, 2);
    CHECK_EQ_U64(v.patch, 3);
    CHECK(v.pre_len == 6 && memcmp(v.pre, "beta.1", 6) == 0);
    CHECK_EQ_U64(v.pre_count, 2);
    CHECK(v.build_len == 7 && memcmp(v.build, "build.1", 7) == 0);
    v = V("18446744073709551615.0.7");
    CHECK_EQ_U64(v.major, UINT64_MAX);
    CHECK_EQ_U64(v.patch, 7);
    CHECK(v.pre == NULL && v.pre_len == 0 && v.build == NULL);
    /* the first '+' starts the build part: the '-' after it is not a prerelease */
    v = V("1.0.0+b-1");
    CHECK(v.pre_len == 0);
    CHECK(v.build_len == 3);
    /* prerelease points into the caller's string (documented lifetime) */
    const char *s = "2.0.0-rc.1";
    dra_semver_t w;
    CHECK_OK(dra_semver_parse(s, strlen(s), false, &w, NULL));
    CHECK(w.pre == s + 6);
    /* length-delimited: trailing bytes beyond len are ignored */
    CHECK_OK(dra_semver_parse("1.2.3garbage", 5, false, &w, NULL));
    CHECK_EQ_U64(w.patch, 3);
}

static void test_strict_invalid(void)
{
    static const struct {
        const char *in, *msg;
    } bad[] = {
        {"", "Version string empty"},                               /* TSV isSemver("") */
        {"v1.0.0", "Invalid character(s) found in major number \"v1\""}, /* TSV */
        {" 1.0.0", "Invalid character(s) found in major number \" 1\""}, /* TSV */
        {"1. 0.0", "Invalid character(s) found in minor number \" 0\""}, /* TSV */
        {"1.0.0 ", "Invalid character(s) found in patch number \"0 \""}, /* TSV */
        {"01.01.01", "Major number must not contain leading zeroes \"01\""}, /* TSV */
        {"1.01.0", "Minor number must not contain leading zeroes \"01\""},
        {"1.0.01", "Patch number must not contain leading zeroes \"01\""},
        {"1.1", "No Major.Minor.Patch elements found"},  /* TSV isSemver("1.1") */
        {"1", "No Major.Minor.Patch elements found"},
        {"1.0.0-01", "Numeric PreRelease version must not contain leading zeroes \"01\""},
        {"1.0.0-", "Prerelease is empty"},                /* TSV */
        {"1.0.0-alpha..1", "Prerelease is empty"},        /* TSV */
        {"1.0.0-a.", "Prerelease is empty"},
        {"1.0.0+", "Build meta data is empty"},           /* TSV */
        {"1.0.0+a..b", "Build meta data is empty"},
        {"1.0.0-alpha_beta", "Invalid character(s) found in prerelease \"alpha_beta\""}, /* TSV */
        {"1.0.0+a_b", "Invalid character(s) found in build meta data \"a_b\""},
        {"1.2.3.4", "Invalid character(s) found in patch number \"3.4\""}, /* TSV */
        {"99999999999999999999.0.0",
         "strconv.ParseUint: parsing \"99999999999999999999\": value out of range"}, /* TSV */
        {"18446744073709551616.0.0",
         "strconv.ParseUint: parsing \"18446744073709551616\": value out of range"},
        {"1.0.0-18446744073709551616",
         "strconv.ParseUint: parsing \"18446744073709551616\": value out of range"},
        {".1.1", "strconv.ParseUint: parsing \"\": invalid syntax"},
        {"1..1", "strconv.ParseUint: parsing \"\": invalid syntax"},
        {"1.1.", "strconv.ParseUint: parsing \"\": invalid syntax"},
        {"1.1.-rc", "strconv.ParseUint: parsing \"\": invalid syntax"},
        {"1.0.0-rc 1", "Invalid character(s) found in prerelease \"rc 1\""},
        {"1-2.0.0", "Invalid character(s) found in major number \"1-2\""},
        {"v1.0", "No Major.Minor.Patch elements found"}, /* TSV semver("v1.0") is an error */
    };
    for (size_t i = 0; i < DRA_ARRAY_LEN(bad); i++) {
        dra_semver_t v;
        dra_diag_t d;
        int rc = dra_semver_parse(bad[i].in, strlen(bad[i].in), false, &v, &d);
        CHECK_MSG(rc == DRA_EPARSE, "'%s' rc %d", bad[i].in, rc);
        if (rc == DRA_EPARSE)
            CHECK_MSG(strcmp(d.msg, bad[i].msg) == 0, "'%s': got '%s', want '%s'", bad[i].in,
                      d.msg, bad[i].msg);
    }
    dra_semver_t v;
    CHECK(dra_semver_parse("1.0.0", 5, false, NULL, NULL) == DRA_EINVAL);
    CHECK(dra_semver_parse(NULL, 1, false, &v, NULL) == DRA_EINVAL);
}

static void test_lenient(void)
{
    /* TSV: isSemver("v1.0.0", true), isSemver("1.1", true) are true; "", " 1.0.0", "1. 0.0"
     * stay invalid with normalisation */
    static const struct {
        const char *in;
        uint64_t ma, mi, pa;
        const char *pre;
    } good[] = {
        {"v1.0.0", 1, 0, 0, NULL},   {"1.1", 1, 1, 0, NULL},     {"1", 1, 0, 0, NULL},
        {"v2", 2, 0, 0, NULL},       {"01.02.03", 1, 2, 3, NULL}, {"v0001.0.0", 1, 0, 0, NULL},
        {"1.2.00", 1, 2, 0, NULL},   {"1.2.03-rc.1", 1, 2, 3, "rc.1"},
        {"1.2.00-rc", 1, 2, 0, "rc"}, {"1.2.-rc", 1, 2, 0, "rc"}, {"00.0.0", 0, 0, 0, NULL},
        {"1.0.0+001", 1, 0, 0, NULL}, {"1.2.3", 1, 2, 3, NULL},
    };
    for (size_t i = 0; i < DRA_ARRAY_LEN(good); i++) {
        dra_semver_t v;
        dra_diag_t d;
        const char *s = good[i].in;
        int rc = dra_semver_parse(s, strlen(s), true, &v, &d);
        CHECK_MSG(rc == DRA_OK, "%s: %s", s, d.msg);
        if (rc)
            continue;
        CHECK_MSG(v.major == good[i].ma && v.minor == good[i].mi && v.patch == good[i].pa,
                  "%s numbers", s);
        if (good[i].pre) {
            size_t n = strlen(good[i].pre);
            CHECK_MSG(v.pre_len == n && memcmp(v.pre, good[i].pre, n) == 0, "%s pre", s);
            /* points into the caller's string, not into a scratch copy */
            CHECK(v.pre >= s && v.pre + v.pre_len <= s + strlen(s));
        } else {
            CHECK(v.pre_len == 0);
        }
        if (v.build)
            CHECK(v.build >= s && v.build + v.build_len == s + strlen(s));
    }
    static const struct {
        const char *in, *msg;
    } bad[] = {
        {"", "strconv.ParseUint: parsing \"\": invalid syntax"},
        /* a part longer than one character that does not start with a digit gets a "0" */
        {" 1.0.0", "Invalid character(s) found in major number \"0 1\""},
        {"1. 0.0", "Invalid character(s) found in minor number \"0 0\""},
        {"1.0-rc", "short version cannot contain PreRelease/Build meta data"},
        {"1+b", "short version cannot contain PreRelease/Build meta data"},
        {"vv1.0.0", "Invalid character(s) found in major number \"0v1\""},
        {"1.0.0-01", "Numeric PreRelease version must not contain leading zeroes \"01\""},
        {"V1.0.0", "Invalid character(s) found in major number \"0V1\""},
        {"1.0.0 ", "Invalid character(s) found in patch number \"0 \""},
    };
    for (size_t i = 0; i < DRA_ARRAY_LEN(bad); i++) {
        dra_semver_t v;
        dra_diag_t d;
        int rc = dra_semver_parse(bad[i].in, strlen(bad[i].in), true, &v, &d);
        CHECK_MSG(rc == DRA_EPARSE, "'%s' rc %d", bad[i].in, rc);
        if (rc == DRA_EPARSE)
            CHECK_MSG(strcmp(d.msg, bad[i].msg) == 0, "'%s': got '%s', want '%s'", bad[i].in,
                      d.msg, bad[i].msg);
    }
    /* strict mode is unaffected by the lenient rules */
    CHECK(!ok("v1.0.0", false) && !ok("1.1", false) && !ok("01.0.0", false));
    /* long input takes the heap scratch path */
    char big[600];
    memcpy(big, "v1.2.3-", 7);
    memset(big + 7, 'a', 500);
    big[507] = '\0';
    dra_semver_t v;
    CHECK_OK(dra_semver_parse(big, 507, true, &v, NULL));
    CHECK(v.pre == big + 7 && v.pre_len == 500);
}

static void test_precedence(void)
{
    /* semver.org section 11 chain */
    static const char *const chain[] = {
        "1.0.0-alpha",  "1.0.0-alpha.1", "1.0.0-alpha.beta", "1.0.0-beta",  "1.0.0-beta.2",
        "1.0.0-beta.11", "1.0.0-rc.1",   "1.0.0-rc.1.1",     "1.0.0",       "1.0.1-0",
        "1.0.1",         "1.9.0",        "1.10.0",           "2.0.0-0.3.7", "2.0.0-x.7.z.92",
        "2.0.0",         "18446744073709551615.0.0",
    };
    for (size_t i = 0; i < DRA_ARRAY_LEN(chain); i++) {
        for (size_t j = 0; j < DRA_ARRAY_LEN(chain); j++) {
            int want = i < j ? -1 : i > j;
            CHECK_MSG(cmpv(chain[i], chain[j]) == want, "%s vs %s", chain[i], chain[j]);
        }
    }
    /* TSV rows */
    CHECK_EQ_I64(cmpv("1.0.0-Alpha", "1.0.0-alpha"), -1); /* ASCII order */
    CHECK_EQ_I64(cmpv("1.0.0-beta.2", "1.0.0-beta.11"), -1);
    CHECK_EQ_I64(cmpv("1.0.0-rc.1", "1.0.0-rc.1.1"), -1);
    CHECK_EQ_I64(cmpv("1.0.0-alpha.1", "1.0.0-alpha.beta"), -1);
    CHECK_EQ_I64(cmpv("1.0.0+build.1", "1.0.0+build.2"), 0); /* build ignored */
    CHECK_EQ_I64(cmpv("1.0.0+build.1", "1.0.0"), 0);
    CHECK_EQ_I64(cmpv("1.2.3", "1.0.0"), 1);
    CHECK_EQ_I64(cmpv("1.0.0", "1.2.3"), -1);
    CHECK_EQ_I64(cmpv("1.2.3", "1.2.3"), 0);
    CHECK_EQ_I64(cmpv("550.54.15", "550.0.0"), 1);
    /* numeric identifiers compare as numbers, even past 2^63 */
    CHECK_EQ_I64(cmpv("1.0.0-18446744073709551615", "1.0.0-9223372036854775808"), 1);
    CHECK_EQ_I64(cmpv("1.0.0-9", "1.0.0-10"), -1);
    /* numeric < alphanumeric, even when the alphanumeric one starts with digits */
    CHECK_EQ_I64(cmpv("1.0.0-999", "1.0.0-0a"), -1);
    CHECK_EQ_I64(cmpv("1.0.0-a", "1.0.0-aa"), -1);
    CHECK_EQ_I64(cmpv("1.0.0-a-b", "1.0.0-a"), 1);
    /* a zero-filled value is 0.0.0 */
    dra_semver_t z, zero = V("0.0.0");
    memset(&z, 0, sizeof z);
    CHECK_EQ_I64(dra_semver_cmp(&z, &zero), 0);
    /* lenient and strict forms of the same version are equal */
    dra_semver_t a, b;
    CHECK_OK(dra_semver_parse("v01.2.03-rc.1", 13, true, &a, NULL));
    b = V("1.2.3-rc.1");
    CHECK_EQ_I64(dra_semver_cmp(&a, &b), 0);
}

int main(void)
{
    RUN(test_strict_valid);
    RUN(test_strict_invalid);
    RUN(test_lenient);
    RUN(test_precedence);
    return check_summary();
}
