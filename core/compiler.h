/*
 * compiler.h - portability macros shared by every module of drabench.
 *
 * Everything here compiles cleanly at -std=c17 -Wpedantic with gcc >= 12 and clang >= 14.
 * GNU builtins are wrapped so that one place documents what the project relies on.
 */
#ifndef DRA_COMPILER_H
#define DRA_COMPILER_H

#include <assert.h>

#if defined(__GNUC__) || defined(__clang__)
#define DRA_LIKELY(x) __builtin_expect(!!(x), 1)
#define DRA_UNLIKELY(x) __builtin_expect(!!(x), 0)
#define DRA_NODISCARD __attribute__((warn_unused_result))
#define DRA_PRINTF(fmt, args) __attribute__((format(printf, fmt, args)))
#define DRA_UNUSED __attribute__((unused))
#define DRA_NOINLINE __attribute__((noinline))
#define DRA_ALWAYS_INLINE inline __attribute__((always_inline))
/* In a function whose only effects are prefetch hints: keeps the calls to it. gcc 12 at -O2
 * (its ipa-modref analysis) finds such a function free of side effects and deletes every call
 * it did not inline, the hints with them, without a warning; four hint functions of the engine's
 * commit and release look-ahead were lost that way for a long time. An empty volatile asm is a
 * side effect of no instruction. A small hint function is DRA_ALWAYS_INLINE instead. */
#define DRA_HINT_KEEP() __asm__ volatile("")
#define DRA_TARGET_AVX2 __attribute__((target("avx2,bmi2,popcnt")))
#define DRA_TARGET_AVX512 __attribute__((target("avx512f,avx512bw,avx512vl,popcnt")))
#define DRA_FALLTHROUGH __attribute__((fallthrough))
#else
#define DRA_LIKELY(x) (x)
#define DRA_UNLIKELY(x) (x)
#define DRA_NODISCARD
#define DRA_PRINTF(fmt, args)
#define DRA_UNUSED
#define DRA_NOINLINE
#define DRA_ALWAYS_INLINE inline
#define DRA_HINT_KEEP() ((void)0)
#define DRA_TARGET_AVX2
#define DRA_TARGET_AVX512
#define DRA_FALLTHROUGH
#endif

#ifndef DRA_DEBUG
#define DRA_DEBUG 1
#endif

/* Three assertion levels (mimalloc's idea): always-on unless NDEBUG, internal, expensive. */
#define DRA_ASSERT(x) assert(x)
#if DRA_DEBUG >= 2
#define DRA_ASSERT_INTERNAL(x) assert(x)
#else
#define DRA_ASSERT_INTERNAL(x) ((void)0)
#endif
#if DRA_DEBUG >= 3
#define DRA_ASSERT_EXPENSIVE(x) assert(x)
#else
#define DRA_ASSERT_EXPENSIVE(x) ((void)0)
#endif

#define DRA_ARRAY_LEN(a) (sizeof(a) / sizeof((a)[0]))
#define DRA_MIN(a, b) ((a) < (b) ? (a) : (b))
#define DRA_MAX(a, b) ((a) > (b) ? (a) : (b))

/* Address-sanitizer manual poisoning, used by the arena so use-after-reset is caught. */
#if defined(__has_feature)
#if __has_feature(address_sanitizer)
#define DRA_ASAN 1
#endif
#endif
#if defined(__SANITIZE_ADDRESS__)
#define DRA_ASAN 1
#endif
#ifdef DRA_ASAN
#include <sanitizer/asan_interface.h>
#define DRA_POISON(p, n) ASAN_POISON_MEMORY_REGION((p), (n))
#define DRA_UNPOISON(p, n) ASAN_UNPOISON_MEMORY_REGION((p), (n))
#else
#define DRA_POISON(p, n) ((void)(p), (void)(n))
#define DRA_UNPOISON(p, n) ((void)(p), (void)(n))
#endif

#endif /* DRA_COMPILER_H */
