/*
 * strconv.c - string to number conversions with Go's strconv rules, as cel-go applies them to
 * int(string) (strconv.ParseInt(s, 10, 64)), uint(string) (strconv.ParseUint(s, 10, 64)) and
 * double(string) (strconv.ParseFloat(s, 64)). The input is a length-delimited byte string: a NUL
 * byte is an ordinary (invalid) character, never the end. No locale, no leading or trailing
 * whitespace.
 *
 * ParseInt/ParseUint, base 10: optional sign (ParseInt only: '+' or '-'), then one or more ASCII
 * digits; no underscores (Go allows them only with base 0); out of range is a range error.
 * ParseFloat: optional sign; "inf" / "infinity" (any case, signed or not) or "nan" (any case,
 * unsigned); otherwise a Go float literal: decimal digits with an optional '.', optional
 * exponent e[+-]digits, or "0x" hex digits with an optional '.' and a mandatory p[+-]digits
 * exponent; '_' may separate digits (also after a base prefix) as Go's underscoreOK allows.
 * A finite literal whose value overflows the double range is a range error; underflow rounds to
 * zero or a subnormal without error. The value is correctly rounded (strtod on the cleaned text).
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "cel_int.h"

static int lower(int c)
{
    return c | ('x' - 'X');
}

static bool is_digit(int c)
{
    return c >= '0' && c <= '9';
}

static bool is_hex(int c)
{
    return is_digit(c) || (lower(c) >= 'a' && lower(c) <= 'f');
}

int dra_cel_go_parse_uint(const char *s, size_t n, uint64_t *out)
{
    *out = 0;
    if (n == 0)
        return DRA_CEL_CONV_SYNTAX;
    uint64_t v = 0;
    for (size_t i = 0; i < n; i++) {
        if (!is_digit((unsigned char)s[i]))
            return DRA_CEL_CONV_SYNTAX;
        unsigned d = (unsigned)(s[i] - '0');
        if (v > (UINT64_MAX - d) / 10) {
            /* Go reports the range error at the first digit that overflows */
            *out = UINT64_MAX;
            return DRA_CEL_CONV_RANGE;
        }
        v = v * 10 + d;
    }
    *out = v;
    return DRA_CEL_CONV_OK;
}

int dra_cel_go_parse_int(const char *s, size_t n, int64_t *out)
{
    *out = 0;
    if (n == 0)
        return DRA_CEL_CONV_SYNTAX;
    bool neg = false;
    size_t k = 0;
    if (s[0] == '+' || s[0] == '-') {
        neg = s[0] == '-';
        k = 1;
    }
    uint64_t u;
    int rc = dra_cel_go_parse_uint(s + k, n - k, &u);
    if (rc == DRA_CEL_CONV_SYNTAX)
        return rc;
    const uint64_t cutoff = (uint64_t)1 << 63;
    if (rc == DRA_CEL_CONV_RANGE || (!neg && u >= cutoff) || (neg && u > cutoff))
        return DRA_CEL_CONV_RANGE;
    *out = neg ? (int64_t)(0 - u) : (int64_t)u;
    return DRA_CEL_CONV_OK;
}

/* Go's underscoreOK: '_' only between digits, or between a base prefix and a digit. */
static bool underscore_ok(const char *s, size_t n)
{
    char saw = '^';
    size_t i = 0;
    if (n >= 1 && (s[0] == '-' || s[0] == '+')) {
        s++;
        n--;
    }
    bool hex = false;
    if (n >= 2 && s[0] == '0' &&
        (lower((unsigned char)s[1]) == 'b' || lower((unsigned char)s[1]) == 'o' ||
         lower((unsigned char)s[1]) == 'x')) {
        i = 2;
        saw = '0';
        hex = lower((unsigned char)s[1]) == 'x';
    }
    for (; i < n; i++) {
        int c = (unsigned char)s[i];
        if (is_digit(c) || (hex && is_hex(c))) {
            saw = '0';
            continue;
        }
        if (c == '_') {
            if (saw != '0')
                return false;
            saw = '_';
            continue;
        }
        if (saw == '_')
            return false;
        saw = '!';
    }
    return saw != '_';
}

/* "inf", "infinity" (signed) and "nan" (unsigned), any case; the whole string. */
static bool special(const char *s, size_t n, double *out)
{
    size_t k = 0;
    double sign = 1;
    if (n && (s[0] == '+' || s[0] == '-')) {
        sign = s[0] == '-' ? -1 : 1;
        k = 1;
    }
    size_t m = n - k;
    if ((m == 3 || m == 8) && !strncasecmp(s + k, "infinity", m)) {
        *out = sign * INFINITY;
        return true;
    }
    if (k == 0 && n == 3 && !strncasecmp(s, "nan", 3)) {
        *out = NAN;
        return true;
    }
    return false;
}

/* Syntax of Go's readFloat over the whole string. */
static bool float_syntax(const char *s, size_t n, bool *hex_out)
{
    size_t i = 0;
    if (i < n && (s[i] == '+' || s[i] == '-'))
        i++;
    bool hex = false;
    if (i + 1 < n && s[i] == '0' && lower((unsigned char)s[i + 1]) == 'x') {
        hex = true;
        i += 2;
    }
    bool sawdot = false, sawdigits = false, underscores = false;
    for (; i < n; i++) {
        int c = (unsigned char)s[i];
        if (c == '_') {
            underscores = true;
            continue;
        }
        if (c == '.') {
            if (sawdot)
                break;
            sawdot = true;
            continue;
        }
        if (is_digit(c) || (hex && is_hex(c))) {
            sawdigits = true;
            continue;
        }
        break;
    }
    if (!sawdigits)
        return false;
    if (i < n && lower((unsigned char)s[i]) == (hex ? 'p' : 'e')) {
        i++;
        if (i < n && (s[i] == '+' || s[i] == '-'))
            i++;
        if (i >= n || !is_digit((unsigned char)s[i]))
            return false;
        for (; i < n && (is_digit((unsigned char)s[i]) || s[i] == '_'); i++)
            if (s[i] == '_')
                underscores = true;
    } else if (hex) {
        return false; /* a hexadecimal mantissa needs a p exponent */
    }
    if (i != n)
        return false;
    if (underscores && !underscore_ok(s, n))
        return false;
    *hex_out = hex;
    return true;
}

int dra_cel_go_parse_float(dra_arena_t *a, const char *s, size_t n, double *out)
{
    *out = 0;
    if (special(s, n, out))
        return DRA_CEL_CONV_OK;
    bool hex = false;
    if (!float_syntax(s, n, &hex))
        return DRA_CEL_CONV_SYNTAX;
    char stackbuf[128];
    char *buf = stackbuf;
    if (n + 1 > sizeof stackbuf) {
        buf = dra_arena_alloc(a, n + 1, 1);
        if (!buf)
            return DRA_CEL_CONV_NOMEM;
    }
    size_t o = 0;
    for (size_t i = 0; i < n; i++)
        if (s[i] != '_')
            buf[o++] = s[i];
    buf[o] = 0;
    char *end;
    errno = 0;
    double v = strtod(buf, &end);
    if (end != buf + o)
        return DRA_CEL_CONV_SYNTAX;
    if (isinf(v))
        return DRA_CEL_CONV_RANGE; /* only finite literals reach here */
    *out = v;
    return DRA_CEL_CONV_OK;
}
