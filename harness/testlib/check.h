/*
 * check.h - tiny test framework for drabench unit tests (libuv task.h style).
 *
 * Usage: write `static void test_x(void) { CHECK(...); CHECK_EQ_I64(a, b); }`, then in main:
 *   int main(void) { RUN(test_x); RUN(test_y); return check_summary(); }
 * Every failed check prints file:line, the expression and both values; the summary prints
 * "N passed, N failed" on its own line (one test = one RUN) and returns the exit status.
 * A test that cannot run (missing data, ISA) calls CHECK_SKIP("why"): counted as skipped; if
 * every test skipped, the exit status is 77 (CTest SKIP_RETURN_CODE).
 * Header-only; state is file-static, so include it from exactly one translation unit per test.
 */
#ifndef DRA_CHECK_H
#define DRA_CHECK_H

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

static int check__failed_in_test;
static int check__skipped_in_test;
static int check__passed, check__failed, check__skipped;

#define CHECK(cond)                                                                                \
    do {                                                                                           \
        if (!(cond)) {                                                                             \
            fprintf(stderr, "%s:%d: CHECK failed: %s\n", __FILE__, __LINE__, #cond);               \
            check__failed_in_test++;                                                               \
        }                                                                                          \
    } while (0)

#define CHECK_MSG(cond, ...)                                                                       \
    do {                                                                                           \
        if (!(cond)) {                                                                             \
            fprintf(stderr, "%s:%d: CHECK failed: %s: ", __FILE__, __LINE__, #cond);               \
            fprintf(stderr, __VA_ARGS__);                                                          \
            fputc('\n', stderr);                                                                   \
            check__failed_in_test++;                                                               \
        }                                                                                          \
    } while (0)

#define CHECK_EQ_I64(a, b)                                                                         \
    do {                                                                                           \
        long long check__a = (long long)(a), check__b = (long long)(b);                            \
        if (check__a != check__b) {                                                                \
            fprintf(stderr, "%s:%d: CHECK_EQ_I64 failed: %s == %s (%lld vs %lld)\n", __FILE__,     \
                    __LINE__, #a, #b, check__a, check__b);                                         \
            check__failed_in_test++;                                                               \
        }                                                                                          \
    } while (0)

#define CHECK_EQ_U64(a, b)                                                                         \
    do {                                                                                           \
        unsigned long long check__a = (unsigned long long)(a), check__b = (unsigned long long)(b); \
        if (check__a != check__b) {                                                                \
            fprintf(stderr, "%s:%d: CHECK_EQ_U64 failed: %s == %s (%llu vs %llu)\n", __FILE__,     \
                    __LINE__, #a, #b, check__a, check__b);                                         \
            check__failed_in_test++;                                                               \
        }                                                                                          \
    } while (0)

#define CHECK_NEAR(a, b, eps)                                                                      \
    do {                                                                                           \
        double check__a = (double)(a), check__b = (double)(b);                                     \
        double check__d = check__a > check__b ? check__a - check__b : check__b - check__a;          \
        if (!(check__d <= (double)(eps))) {                                                        \
            fprintf(stderr, "%s:%d: CHECK_NEAR failed: %s ~ %s (%.17g vs %.17g, eps %g)\n",        \
                    __FILE__, __LINE__, #a, #b, check__a, check__b, (double)(eps));                 \
            check__failed_in_test++;                                                               \
        }                                                                                          \
    } while (0)

#define CHECK_STREQ(a, b)                                                                          \
    do {                                                                                           \
        const char *check__a = (a), *check__b = (b);                                               \
        if (!check__a || !check__b || strcmp(check__a, check__b) != 0) {                          \
            fprintf(stderr, "%s:%d: CHECK_STREQ failed: %s == %s (\"%s\" vs \"%s\")\n", __FILE__,  \
                    __LINE__, #a, #b, check__a ? check__a : "(null)",                              \
                    check__b ? check__b : "(null)");                                               \
            check__failed_in_test++;                                                               \
        }                                                                                          \
    } while (0)

#define CHECK_OK(expr)                                                                             \
    do {                                                                                           \
        int check__r = (expr);                                                                     \
        if (check__r != 0) {                                                                       \
            fprintf(stderr, "%s:%d: CHECK_OK failed: %s returned %d\n", __FILE__, __LINE__, #expr, \
                    check__r);                                                                     \
            check__failed_in_test++;                                                               \
        }                                                                                          \
    } while (0)

#define CHECK_SKIP(why)                                                                            \
    do {                                                                                           \
        fprintf(stderr, "skip: %s\n", (why));                                                      \
        check__skipped_in_test = 1;                                                                \
        return;                                                                                    \
    } while (0)

#define RUN(fn)                                                                                    \
    do {                                                                                           \
        check__failed_in_test = 0;                                                                 \
        check__skipped_in_test = 0;                                                                \
        fn();                                                                                      \
        if (check__failed_in_test) {                                                               \
            check__failed++;                                                                       \
            fprintf(stderr, "FAIL %s\n", #fn);                                                     \
        } else if (check__skipped_in_test) {                                                       \
            check__skipped++;                                                                      \
            fprintf(stderr, "SKIP %s\n", #fn);                                                     \
        } else {                                                                                   \
            check__passed++;                                                                       \
        }                                                                                          \
    } while (0)

static inline int check_summary(void)
{
    if (check__skipped)
        printf("%d passed, %d failed, %d skipped\n", check__passed, check__failed, check__skipped);
    else
        printf("%d passed, %d failed\n", check__passed, check__failed);
    if (check__failed)
        return 1;
    if (check__passed == 0 && check__skipped > 0)
        return 77;
    return 0;
}

#endif /* DRA_CHECK_H */
