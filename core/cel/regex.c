/*
 * regex.c - CEL matches() / Kubernetes find() and findAll() over PCRE2, approximating RE2.
 *
 * CEL specifies RE2 syntax. PCRE2 is a superset with different corner cases; this file narrows
 * the gap:
 *   - constructs RE2 rejects are rejected here too: backreferences (\1, \k<n>, \g{n}),
 *     lookaround ((?=, (?!, (?<=, (?<!), atomic groups ((?>), possessive quantifiers (a*+, a++,
 *     a?+), recursion ((?R), (?1)), conditionals ((?(...)), \C and callouts ((?C);
 *   - PCRE2_UTF (patterns and subjects are UTF-8, '.' matches a code point), without PCRE2_UCP,
 *     so \d \w \s \b are ASCII-only as in RE2;
 *   - PCRE2_DOLLAR_ENDONLY: '$' matches only at the very end (RE2 without (?m));
 *   - PCRE2_NEVER_BACKSLASH_C; PCRE2_ALT_BSUX is not set, so \x{...} works as in RE2.
 * Remaining differences (documented, not emulated): RE2 is linear-time and PCRE2 backtracks;
 * the match limit below turns pathological backtracking into a CEL runtime error instead of
 * RE2's answer. RE2's \pN / \p{Greek} classes are the Unicode ones in both. RE2 accepts
 * `(?P=name)` nowhere (neither here). Leftmost-first semantics are the same for find().
 *
 * Memory: compiled patterns and match data are allocated from the caller's arena through a
 * PCRE2 general context (free is a no-op), so nothing has to be released individually.
 */
#define PCRE2_CODE_UNIT_WIDTH 8
#include <pcre2.h>
#include <stdio.h>
#include <string.h>

#include "cel_int.h"

#define DRA_CEL_REGEX_MATCH_LIMIT 100000u

static void *re_alloc(PCRE2_SIZE n, void *data)
{
    return dra_arena_alloc((dra_arena_t *)data, n, 16);
}

static void re_free(void *p, void *data)
{
    (void)p;
    (void)data;
}

static const char *re2_unsupported(const char *p, size_t n)
{
    bool in_class = false;
    for (size_t i = 0; i < n; i++) {
        char ch = p[i];
        if (ch == '\\') {
            if (i + 1 >= n)
                return NULL;
            char e = p[i + 1];
            if (!in_class && ((e >= '1' && e <= '9') || e == 'k' || e == 'g'))
                return "backreferences are not supported";
            if (e == 'C')
                return "\\C is not supported";
            i++;
            /* \p{Greek}, \P{L}, \x{e9}: the braces belong to the escape, not a repetition */
            if ((e == 'p' || e == 'P' || e == 'x') && i + 1 < n && p[i + 1] == '{') {
                const char *close = memchr(p + i + 1, '}', n - i - 1);
                if (close)
                    i = (size_t)(close - p);
            }
            continue;
        }
        if (in_class) {
            if (ch == ']')
                in_class = false;
            continue;
        }
        if (ch == '[') {
            in_class = true;
            if (i + 1 < n && p[i + 1] == '^')
                i++;
            if (i + 1 < n && p[i + 1] == ']')
                i++;
            continue;
        }
        if (ch == '(' && i + 1 < n && p[i + 1] == '?') {
            char k = i + 2 < n ? p[i + 2] : 0;
            if (k == '=' || k == '!' || k == '>' || k == 'R' || k == '(' || k == 'C' || k == '|' ||
                (k >= '0' && k <= '9') || k == '+' || k == '&')
                return "unsupported group syntax";
            if (k == '<' && i + 3 < n && (p[i + 3] == '=' || p[i + 3] == '!'))
                return "lookbehind is not supported";
            if (k == 'P' && i + 3 < n && (p[i + 3] == '=' || p[i + 3] == '>'))
                return "unsupported group syntax";
        }
        if ((ch == '*' || ch == '+' || ch == '?' || ch == '}') && i + 1 < n && p[i + 1] == '+')
            return "possessive quantifiers are not supported";
    }
    return NULL;
}

const void *dra_cel_regex_compile(dra_arena_t *a, const char *pat, size_t len, char *errbuf,
                                  size_t errlen)
{
    const char *bad = re2_unsupported(pat, len);
    if (bad) {
        snprintf(errbuf, errlen, "error parsing regexp: %s: `%.*s`", bad, (int)DRA_MIN(len, 100u),
                 pat);
        return NULL;
    }
    pcre2_general_context *gc = pcre2_general_context_create(re_alloc, re_free, a);
    if (!gc) {
        snprintf(errbuf, errlen, "out of memory");
        return NULL;
    }
    pcre2_compile_context *cc = pcre2_compile_context_create(gc);
    if (!cc) {
        snprintf(errbuf, errlen, "out of memory");
        return NULL;
    }
    int ec;
    PCRE2_SIZE eo;
    pcre2_code *re = pcre2_compile((PCRE2_SPTR)pat, len,
                                   PCRE2_UTF | PCRE2_DOLLAR_ENDONLY | PCRE2_NEVER_BACKSLASH_C, &ec,
                                   &eo, cc);
    if (!re) {
        PCRE2_UCHAR msg[200];
        pcre2_get_error_message(ec, msg, sizeof msg);
        snprintf(errbuf, errlen, "error parsing regexp: %s at offset %zu: `%.*s`", (char *)msg,
                 (size_t)eo, (int)DRA_MIN(len, 100u), pat);
        return NULL;
    }
    return re;
}

int dra_cel_regex_search(dra_arena_t *a, const void *rev, const char *s, size_t len, size_t start,
                         size_t *mstart, size_t *mend, char *errbuf, size_t errlen)
{
    const pcre2_code *re = rev;
    pcre2_general_context *gc = pcre2_general_context_create(re_alloc, re_free, a);
    if (!gc) {
        snprintf(errbuf, errlen, "out of memory");
        return -1;
    }
    pcre2_match_data *md = pcre2_match_data_create(1, gc);
    pcre2_match_context *mc = pcre2_match_context_create(gc);
    if (!md || !mc) {
        snprintf(errbuf, errlen, "out of memory");
        return -1;
    }
    pcre2_set_match_limit(mc, DRA_CEL_REGEX_MATCH_LIMIT);
    pcre2_set_depth_limit(mc, 1000);
    int rc = pcre2_match(re, (PCRE2_SPTR)s, len, start, 0, md, mc);
    if (rc == PCRE2_ERROR_NOMATCH)
        return 0;
    if (rc < 0) {
        PCRE2_UCHAR msg[200];
        pcre2_get_error_message(rc, msg, sizeof msg);
        snprintf(errbuf, errlen, "regex match failed: %s", (char *)msg);
        return -1;
    }
    PCRE2_SIZE *ov = pcre2_get_ovector_pointer(md);
    *mstart = ov[0];
    *mend = ov[1];
    return 1;
}
