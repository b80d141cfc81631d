/*
 * semver.h - Semantic Versioning 2.0.0 as Kubernetes uses it (blang/semver v4 Parse, plus the
 * lenient "normalize" mode of the Kubernetes CEL semver library, semver(s, true)).
 *
 * Purpose: parse DRA "version" attributes and CEL semver() literals, and order them by SemVer
 * precedence (build metadata ignored).
 *
 * Ownership and lifetime: dra_semver_t is a small value type. Its prerelease and build fields
 * point INTO the string given to dra_semver_parse (also in lenient mode: the normalisation only
 * touches the numeric part, so the prerelease and build text always exist in the input). The
 * caller keeps that string alive and unchanged for as long as the value is used, typically by
 * parsing an interned string (core/base/intern.h) or a string stored in the snapshot arena. A
 * zero-filled dra_semver_t is the version 0.0.0.
 *
 * Errors: DRA_EPARSE with blang/semver's message in diag ("Version string empty",
 * "No Major.Minor.Patch elements found", "Invalid character(s) found in major number \"x\"",
 * "Major number must not contain leading zeroes \"01\"", "strconv.ParseUint: parsing \"...\":
 * value out of range", "Prerelease is empty", "Numeric PreRelease version must not contain
 * leading zeroes \"01\"", "Invalid character(s) found in prerelease \"a_b\"", "Build meta data
 * is empty", ...), or for the lenient short form "short version cannot contain PreRelease/Build
 * meta data". DRA_EINVAL for NULL arguments. DRA_ENOMEM only in lenient mode for inputs longer
 * than 240 bytes (a scratch copy is malloc'd and freed before returning).
 * Cost: O(len) parse, O(shorter prerelease) compare; no allocation otherwise; thread-safe.
 */
#ifndef DRA_SEMVER_H
#define DRA_SEMVER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "err.h"

typedef struct dra_semver {
    uint64_t major, minor, patch;
    const char *pre;    /* prerelease without the '-', e.g. "alpha.1"; NULL when none */
    uint32_t pre_len;   /* 0 = no prerelease */
    uint32_t pre_count; /* number of dot-separated prerelease identifiers */
    const char *build;  /* build metadata without the '+'; NULL when none (ignored by cmp) */
    uint32_t build_len;
    uint32_t pad_;
} dra_semver_t;

/*
 * Parse s[0..len).
 * lenient == false: strict SemVer 2.0.0 exactly as blang/semver v4 Parse: MAJOR.MINOR.PATCH
 *   [-PRERELEASE][+BUILD], no leading 'v', no whitespace, no leading zeros in the numeric parts
 *   or in numeric prerelease identifiers (build identifiers may have them), each number fits
 *   uint64, identifiers non-empty and made of [0-9A-Za-z-]. The first '+' starts the build part
 *   and the first '-' before it starts the prerelease.
 * lenient == true: Kubernetes' normalizeAndParse: strip one leading 'v', strip leading zeros of
 *   each of the (at most three) dot-separated parts, pad "1" / "1.2" with ".0"; a shortened form
 *   containing '-' or '+' is rejected; then the strict parse. Whitespace is still rejected.
 * Strings over UINT32_MAX bytes are rejected with DRA_ELIMIT.
 */
DRA_NODISCARD int dra_semver_parse(const char *s, size_t len, bool lenient, dra_semver_t *out,
                                   dra_diag_t *diag);

/* SemVer precedence: -1, 0 or 1. Major, minor, patch numerically; a version with a prerelease
 * is lower than the same version without; prerelease identifiers left to right (numeric ones
 * numerically and lower than alphanumeric ones, alphanumeric ones by ASCII order); more
 * identifiers win when all compared ones are equal. Build metadata is ignored. */
int dra_semver_cmp(const dra_semver_t *a, const dra_semver_t *b);

#endif /* DRA_SEMVER_H */
