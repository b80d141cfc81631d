/*
 * quantity.c - Kubernetes resource.Quantity semantics (see quantity.h for the contract).
 *
 * Written from the behaviour of apimachinery's pkg/api/resource (ParseQuantity, int64Amount,
 * infDecAmount, CanonicalizeBytes, AsApproximateFloat64); the control flow of the scanner and of
 * the int-form fast path follows upstream's decisions step by step because the stored form is
 * observable through isInteger().
 */
#include "quantity.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

__extension__ typedef unsigned __int128 u128;

#define U128_MAX (~(u128)0)
#define I64_MIN_MAG ((uint64_t)1 << 63)

#define MSG_FORMAT                                                                                 \
    "quantities must match the regular expression "                                               \
    "'^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'"
#define MSG_SUFFIX "unable to parse quantity's suffix"
#define MSG_NUMERIC "unable to parse numeric part of quantity"

/* ---- 128-bit helpers ------------------------------------------------------------------------ */

static u128 q_mag(const dra_quantity_t *q)
{
    return ((u128)q->hi << 64) | q->lo;
}

static void q_setmag(dra_quantity_t *q, u128 m)
{
    q->lo = (uint64_t)m;
    q->hi = (uint64_t)(m >> 64);
}

static u128 pow10_u128(unsigned k) /* k <= 38 */
{
    u128 r = 1;
    while (k--)
        r *= 10;
    return r;
}

/* m * 10^k without overflow; false when it does not fit 128 bits. */
static bool mul_pow10(u128 m, int64_t k, u128 *out)
{
    if (m == 0 || k == 0) {
        *out = m;
        return true;
    }
    if (k < 0 || k > 38)
        return false;
    u128 p = pow10_u128((unsigned)k);
    if (m > U128_MAX / p)
        return false;
    *out = m * p;
    return true;
}

/* Strip factors of ten: m != 0. */
static void strip_tens(u128 *m, int64_t *e)
{
    if (*m == 0)
        return;
    if ((*m >> 64) == 0) {
        uint64_t v = (uint64_t)*m;
        while (v % 10 == 0) {
            v /= 10;
            (*e)++;
        }
        *m = v;
        return;
    }
    while (*m % 10 == 0) {
        *m /= 10;
        (*e)++;
    }
}

/* Decimal digits of m into buf (no NUL); returns the count (<= 39). */
static size_t u128_digits(u128 m, char *buf)
{
    char rev[40];
    size_t n = 0;
    do {
        rev[n++] = (char)('0' + (int)(m % 10));
        m /= 10;
    } while (m != 0);
    for (size_t i = 0; i < n; i++)
        buf[i] = rev[n - 1 - i];
    return n;
}

/* Compare |a| = ma * 10^ea with |b| = mb * 10^eb, both non-zero. */
static int cmp_mag(u128 ma, int64_t ea, u128 mb, int64_t eb)
{
    u128 t;
    if (ea == eb)
        return ma < mb ? -1 : ma > mb;
    if (ea > eb) {
        if (!mul_pow10(ma, ea - eb, &t))
            return 1;
        return t < mb ? -1 : t > mb;
    }
    if (!mul_pow10(mb, eb - ea, &t))
        return -1;
    return ma < t ? -1 : ma > t;
}

/* ---- int form (upstream int64Amount) ------------------------------------------------------- */

static bool is_dec(const dra_quantity_t *q)
{
    return (q->flags & DRA_QF_DEC) != 0;
}

static int64_t ival(const dra_quantity_t *q)
{
    uint64_t m = q->lo;
    if (!q->neg)
        return (int64_t)m;
    if (m == I64_MIN_MAG)
        return INT64_MIN;
    return -(int64_t)m;
}

static void set_int(dra_quantity_t *q, int64_t v, int32_t scale)
{
    q->hi = 0;
    q->lo = v < 0 ? (uint64_t)0 - (uint64_t)v : (uint64_t)v;
    q->neg = v < 0 ? 1 : 0;
    q->exp = scale;
    q->dscale = 0;
    q->flags = (uint8_t)(q->flags & ~DRA_QF_DEC);
}

/* v * 10^k in int64 (upstream positiveScaleInt64). */
static bool i64_scale_up(int64_t v, int64_t k, int64_t *out)
{
    if (v == 0 || k == 0) {
        *out = v;
        return true;
    }
    if (k < 0 || k > 18)
        return false;
    int64_t p = 1;
    for (int64_t i = 0; i < k; i++)
        p *= 10;
    return !__builtin_mul_overflow(v, p, out);
}

/* upstream int64Amount.Add: false (a untouched) when the int64 path overflows. */
static bool i64amt_add(int64_t *av, int32_t *as, int64_t bv, int32_t bs)
{
    int64_t c;
    if (bv == 0)
        return true;
    if (*av == 0) {
        *av = bv;
        *as = bs;
        return true;
    }
    if (*as == bs) {
        if (__builtin_add_overflow(*av, bv, &c))
            return false;
        *av = c;
    } else if (*as > bs) {
        if (!i64_scale_up(*av, (int64_t)*as - bs, &c) || __builtin_add_overflow(c, bv, &c))
            return false;
        *as = bs;
        *av = c;
    } else {
        if (!i64_scale_up(bv, (int64_t)bs - *as, &c) || __builtin_add_overflow(*av, c, &c))
            return false;
        *av = c;
    }
    return true;
}

/* ---- dec form (upstream inf.Dec) ------------------------------------------------------------ */

/* The inf.Dec scale upstream would have for q (int form: AsDec gives scale -scale). */
static int64_t go_dscale(const dra_quantity_t *q)
{
    return is_dec(q) ? q->dscale : -(int64_t)q->exp;
}

static int32_t clamp_i32(int64_t v)
{
    return v > INT32_MAX ? INT32_MAX : v < INT32_MIN ? INT32_MIN : (int32_t)v;
}

/* Exact signed sum of a and (negated if negate_b) b into a dec-form r; format/flags set by the
 * caller. DRA_EOVERFLOW when the aligned operands or the result exceed 128 bits. */
static int dec_add(const dra_quantity_t *a, const dra_quantity_t *b, bool negate_b,
                   dra_quantity_t *r)
{
    u128 ma = q_mag(a), mb = q_mag(b);
    int64_t ea = a->exp, eb = b->exp;
    bool na = a->neg != 0, nb = (b->neg != 0) != negate_b;
    strip_tens(&ma, &ea);
    strip_tens(&mb, &eb);
    if (ma == 0) {
        ea = eb;
    } else if (mb == 0) {
        eb = ea;
    }
    int64_t e = ea < eb ? ea : eb;
    if (!mul_pow10(ma, ea - e, &ma) || !mul_pow10(mb, eb - e, &mb))
        return DRA_EOVERFLOW;
    u128 m;
    bool neg;
    if (na == nb) {
        if (ma > U128_MAX - mb)
            return DRA_EOVERFLOW;
        m = ma + mb;
        neg = na;
    } else if (ma >= mb) {
        m = ma - mb;
        neg = na;
    } else {
        m = mb - ma;
        neg = nb;
    }
    if (m == 0) {
        e = 0;
        neg = false;
    } else {
        strip_tens(&m, &e);
    }
    if (e > INT32_MAX || e < INT32_MIN)
        return DRA_EOVERFLOW;
    int64_t ds = go_dscale(a) > go_dscale(b) ? go_dscale(a) : go_dscale(b);
    q_setmag(r, m);
    r->exp = (int32_t)e;
    r->neg = neg ? 1 : 0;
    r->dscale = clamp_i32(ds);
    r->flags = (uint8_t)(r->flags | DRA_QF_DEC);
    return DRA_OK;
}

/* True when q's value, written with its trailing zeros folded into the exponent (as
 * dra_quantity_format does), has a decimal exponent within int32, so that its printed form
 * reads back as the same value. 1000000000e2147483647 is 1e2147483656: it would print as
 * "10e2147483655", and upstream truncates that exponent to int32 on the way back. */
static bool exp_fits(const dra_quantity_t *q)
{
    u128 m = q_mag(q);
    int64_t e = q->exp;
    if (m == 0)
        return true;
    strip_tens(&m, &e);
    return e <= INT32_MAX;
}

/* ---- parsing -------------------------------------------------------------------------------- */

static int perr(dra_diag_t *diag, const char *msg)
{
    return dra_diag_set(diag, DRA_EPARSE, NULL, 0, 0, "%s", msg);
}

static bool is_digit(char c)
{
    return c >= '0' && c <= '9';
}

static bool is_suffix_char(char c)
{
    switch (c) {
    case 'e': case 'E': case 'i': case 'n': case 'u': case 'm':
    case 'k': case 'K': case 'M': case 'G': case 'T': case 'P':
        return true;
    default:
        return false;
    }
}

/* upstream suffixer.interpret: base 10 or 2, exponent, format. */
static bool interpret_suffix(const char *s, size_t n, int *base, int32_t *exponent,
                             dra_qformat_t *fmt)
{
    static const struct {
        const char *s;
        int base;
        int32_t exp;
    } tab[] = {
        {"", 10, 0},   {"n", 10, -9},  {"u", 10, -6},  {"m", 10, -3},  {"k", 10, 3},
        {"M", 10, 6},  {"G", 10, 9},   {"T", 10, 12},  {"P", 10, 15},  {"E", 10, 18},
        {"Ki", 2, 10}, {"Mi", 2, 20},  {"Gi", 2, 30},  {"Ti", 2, 40},  {"Pi", 2, 50},
        {"Ei", 2, 60},
    };
    for (size_t i = 0; i < DRA_ARRAY_LEN(tab); i++) {
        if (strlen(tab[i].s) == n && memcmp(tab[i].s, s, n) == 0) {
            *base = tab[i].base;
            *exponent = tab[i].exp;
            *fmt = tab[i].base == 2 ? DRA_QFMT_BINARY_SI : DRA_QFMT_DECIMAL_SI;
            return true;
        }
    }
    if (n > 1 && (s[0] == 'e' || s[0] == 'E')) {
        /* strconv.ParseInt(s[1:], 10, 64), then int32(parsed) (truncating, as upstream) */
        size_t i = 1;
        bool neg = false;
        if (s[i] == '+' || s[i] == '-') {
            neg = s[i] == '-';
            i++;
        }
        if (i == n)
            return false;
        uint64_t v = 0;
        for (; i < n; i++) {
            if (!is_digit(s[i]))
                return false;
            unsigned d = (unsigned)(s[i] - '0');
            if (v > (I64_MIN_MAG - d) / 10)
                return false; /* beyond 2^63 */
            v = v * 10 + d;
        }
        if (!neg && v == I64_MIN_MAG)
            return false;
        uint64_t bits = neg ? (uint64_t)0 - v : v;
        uint32_t low = (uint32_t)bits;
        *exponent = low > (uint32_t)INT32_MAX ? (int32_t)((int64_t)low - ((int64_t)1 << 32))
                                               : (int32_t)low;
        *base = 10;
        *fmt = DRA_QFMT_DECIMAL_EXPONENT;
        return true;
    }
    return false;
}

/* Little-endian decimal digit buffer used by the slow (inf.Dec) path. */
typedef struct digbuf {
    uint8_t d[DRA_QUANTITY_MAX_DIGITS + 48];
    size_t b, n; /* digits d[b .. b+n), d[b] least significant */
} digbuf_t;

static void dig_mul_small(digbuf_t *x, unsigned f)
{
    unsigned carry = 0;
    for (size_t i = 0; i < x->n; i++) {
        unsigned v = x->d[x->b + i] * f + carry;
        x->d[x->b + i] = (uint8_t)(v % 10);
        carry = v / 10;
    }
    while (carry) {
        x->d[x->b + x->n++] = (uint8_t)(carry % 10);
        carry /= 10;
    }
}

static void dig_inc(digbuf_t *x)
{
    for (size_t i = 0; i < x->n; i++) {
        if (x->d[x->b + i] < 9) {
            x->d[x->b + i]++;
            return;
        }
        x->d[x->b + i] = 0;
    }
    x->d[x->b + x->n++] = 1;
}

static void dig_strip(digbuf_t *x, int64_t *e)
{
    while (x->n > 1 && x->d[x->b] == 0) {
        x->b++;
        x->n--;
        (*e)++;
    }
}

/* The digits as a u128; false when they do not fit. */
static bool dig_to_u128(const digbuf_t *x, u128 *out)
{
    u128 m = 0;
    for (size_t i = x->n; i-- > 0;) {
        unsigned d = x->d[x->b + i];
        if (m > (U128_MAX - d) / 10)
            return false;
        m = m * 10 + d;
    }
    *out = m;
    return true;
}

static int elimit(dra_diag_t *diag, const char *s, size_t len, const char *why)
{
    int shown = len > 64 ? 64 : (int)len;
    return dra_diag_set(diag, DRA_ELIMIT, NULL, 0, 0, "quantity '%.*s%s' %s", shown, s,
                        len > 64 ? "..." : "", why);
}

int dra_quantity_parse(const char *s, size_t len, dra_quantity_t *out, dra_diag_t *diag)
{
    if (!out || (!s && len))
        return dra_diag_set(diag, DRA_EINVAL, NULL, 0, 0, "dra_quantity_parse: NULL argument");
    dra_quantity_t q;
    memset(&q, 0, sizeof q);
    if (len == 0)
        return perr(diag, MSG_FORMAT);
    if (len == 1 && s[0] == '0') {
        *out = q;
        return DRA_OK;
    }

    /* ---- scanner (upstream parseQuantityString) ---- */
    bool positive = true;
    size_t pos = 0, end = len;
    if (s[0] == '-') {
        positive = false;
        pos++;
    } else if (s[0] == '+') {
        pos++;
    }
    size_t zstart = pos;
    while (pos < end && s[pos] == '0')
        pos++;
    size_t nzeros = pos - zstart;
    bool all_zero = pos >= end; /* upstream returns num = value = "0" */
    size_t num_b = pos, num_e = pos, den_b = pos, den_e = pos;
    if (!all_zero) {
        while (pos < end && is_digit(s[pos]))
            pos++;
        num_e = pos;
        den_b = den_e = pos;
        if (pos < end && s[pos] == '.') {
            pos++;
            den_b = pos;
            while (pos < end && is_digit(s[pos]))
                pos++;
            den_e = pos;
        }
    }
    size_t suf_b = pos;
    while (pos < end && is_suffix_char(s[pos]))
        pos++;
    if (pos < end) {
        if (s[pos] == '-' || s[pos] == '+')
            pos++;
        while (pos < end && is_digit(s[pos]))
            pos++;
        if (pos < end)
            return perr(diag, MSG_FORMAT);
    }

    int base;
    int32_t exponent;
    dra_qformat_t fmt;
    if (!interpret_suffix(s + suf_b, end - suf_b, &base, &exponent, &fmt))
        return perr(diag, MSG_SUFFIX);

    size_t nl = num_e - num_b, dl = den_e - den_b;
    int64_t numlen = nl ? (int64_t)nl : 1; /* an empty numerator is "0" upstream */

    /* ---- fast path: scaled int64 ---- */
    int64_t precision, scale, mant = 1;
    if (fmt != DRA_QFMT_BINARY_SI) {
        scale = exponent;
        precision = 18 - (numlen + (int64_t)dl);
    } else {
        scale = 0;
        if (dl == 0) {
            mant = (int64_t)1 << exponent;
            precision = 15 - numlen - exponent * 3 / 10 - 1;
        } else {
            precision = -1;
        }
    }
    if (precision >= 0) {
        scale -= (int64_t)dl;
        if (scale >= -9) {
            int64_t v = 0, r;
            for (size_t i = num_b; i < num_e; i++)
                v = v * 10 + (s[i] - '0');
            for (size_t i = den_b; i < den_e; i++)
                v = v * 10 + (s[i] - '0');
            if (!__builtin_mul_overflow(v, mant, &r)) {
                set_int(&q, positive ? r : -r, (int32_t)scale);
                q.format = (uint8_t)fmt;
                if (!exp_fits(&q))
                    return elimit(diag, s, len, "has a decimal exponent beyond int32");
                *out = q;
                return DRA_OK;
            }
        }
    }

    /* ---- slow path: exact decimal (upstream inf.Dec), rounded up to nano ---- */
    if (!all_zero && nzeros + nl + dl == 0)
        return perr(diag, MSG_NUMERIC); /* inf.Dec SetString needs a digit */
    q.format = (uint8_t)fmt;
    q.flags = DRA_QF_DEC;

    /* Significant span of the digit sequence num ++ den. */
    size_t n = nl + dl, f = n, l = 0;
#define DIGIT_AT(i) ((i) < nl ? s[num_b + (i)] : s[den_b + (i) - nl])
    for (size_t i = 0; i < n; i++) {
        if (DIGIT_AT(i) != '0') {
            if (f == n)
                f = i;
            l = i;
        }
    }
    if (f == n) { /* zero: no rounding; keep upstream's scale for to_double */
        int64_t ds = (int64_t)dl - (base == 10 ? exponent : 0);
        q.dscale = clamp_i32(ds);
        *out = q;
        return DRA_OK;
    }
    size_t L = l - f + 1;
    if (L > DRA_QUANTITY_MAX_DIGITS)
        return elimit(diag, s, len, "has more significant digits than this implementation "
                                    "supports");
    digbuf_t x;
    x.b = 0;
    x.n = L;
    for (size_t i = 0; i < L; i++)
        x.d[i] = (uint8_t)(DIGIT_AT(l - i) - '0');
#undef DIGIT_AT
    int64_t e = -(int64_t)dl + (int64_t)(n - 1 - l) + (base == 10 ? exponent : 0);
    if (base == 2) {
        for (int32_t k = 0; k < exponent / 10; k++)
            dig_mul_small(&x, 1024);
        dig_strip(&x, &e);
    }
    if (e < -9) { /* round up (away from zero) to a multiple of 10^-9 */
        int64_t k = -9 - e;
        if ((int64_t)x.n <= k) {
            x.d[x.b] = 1;
            x.n = 1;
        } else {
            bool rem = false;
            for (int64_t i = 0; i < k; i++)
                rem = rem || x.d[x.b + (size_t)i] != 0;
            x.b += (size_t)k;
            x.n -= (size_t)k;
            if (rem)
                dig_inc(&x);
        }
        e = -9;
    }
    dig_strip(&x, &e);
    q.dscale = 9;

    if (base == 2) {
        /* cap at 2^63-1 */
        const u128 maxv = (u128)INT64_MAX;
        bool over;
        int64_t intdigits = (int64_t)x.n + e;
        if (intdigits > 19) {
            over = true;
        } else {
            u128 m = 0, t = 0;
            (void)dig_to_u128(&x, &m); /* at most 28 digits here */
            if (e >= 0)
                over = !mul_pow10(m, e, &t) || t > maxv;
            else
                over = m > maxv * pow10_u128((unsigned)-e);
        }
        if (over) {
            q_setmag(&q, maxv);
            q.exp = 0;
            q.dscale = 0;
            q.neg = positive ? 0 : 1;
            *out = q;
            return DRA_OK;
        }
        if (intdigits <= 0) /* 0 < |v| < 1 */
            q.format = DRA_QFMT_DECIMAL_SI;
    }
    u128 m = 0;
    if (x.n > 39 || !dig_to_u128(&x, &m))
        return elimit(diag, s, len, "needs more than the 128-bit mantissa this implementation "
                                    "supports");
    if (e > INT32_MAX)
        return elimit(diag, s, len, "has a decimal exponent beyond int32");
    q_setmag(&q, m);
    q.exp = (int32_t)e;
    q.neg = positive ? 0 : 1;
    *out = q;
    return DRA_OK;
}

/* ---- comparison and arithmetic -------------------------------------------------------------- */

int dra_quantity_sign(const dra_quantity_t *q)
{
    if (q->lo == 0 && q->hi == 0)
        return 0;
    return q->neg ? -1 : 1;
}

int dra_quantity_cmp(const dra_quantity_t *a, const dra_quantity_t *b)
{
    int sa = dra_quantity_sign(a), sb = dra_quantity_sign(b);
    if (sa != sb)
        return sa < sb ? -1 : 1;
    if (sa == 0)
        return 0;
    int c = cmp_mag(q_mag(a), a->exp, q_mag(b), b->exp);
    return sa > 0 ? c : -c;
}

static bool q_is_zero(const dra_quantity_t *q)
{
    return q->lo == 0 && q->hi == 0;
}

int dra_quantity_add(const dra_quantity_t *a, const dra_quantity_t *b, dra_quantity_t *out)
{
    dra_quantity_t r = *a;
    if (!is_dec(a) && !is_dec(b)) {
        if (q_is_zero(a))
            r.format = b->format;
        int64_t av = ival(a);
        int32_t as = a->exp;
        if (i64amt_add(&av, &as, ival(b), b->exp)) {
            set_int(&r, av, as);
            if (!exp_fits(&r))
                return DRA_EOVERFLOW;
            *out = r;
            return DRA_OK;
        }
    } else if (q_is_zero(a)) {
        r.format = b->format;
    }
    int rc = dec_add(a, b, false, &r);
    if (rc == DRA_OK)
        *out = r;
    return rc;
}

int dra_quantity_sub(const dra_quantity_t *a, const dra_quantity_t *b, dra_quantity_t *out)
{
    dra_quantity_t r = *a;
    if (q_is_zero(a))
        r.format = b->format;
    if (!is_dec(a) && !is_dec(b)) {
        int64_t bv = ival(b);
        if (bv != INT64_MIN) { /* -INT64_MIN overflows: upstream falls back to inf.Dec */
            int64_t av = ival(a);
            int32_t as = a->exp;
            if (i64amt_add(&av, &as, -bv, b->exp)) {
                set_int(&r, av, as);
                if (!exp_fits(&r))
                    return DRA_EOVERFLOW;
                *out = r;
                return DRA_OK;
            }
        } else if (q_is_zero(a)) {
            /* upstream: q = -y via Neg(), which promotes to inf.Dec at y's scale */
            r = *b;
            r.format = b->format;
            r.neg = 0;
            r.dscale = clamp_i32(-(int64_t)b->exp);
            r.flags = (uint8_t)(r.flags | DRA_QF_DEC);
            u128 m = q_mag(&r);
            int64_t e = r.exp;
            strip_tens(&m, &e);
            q_setmag(&r, m);
            r.exp = (int32_t)e;
            *out = r;
            return DRA_OK;
        }
    }
    int rc = dec_add(a, b, true, &r);
    if (rc == DRA_OK)
        *out = r;
    return rc;
}

void dra_quantity_from_int64_fmt(int64_t v, dra_qformat_t format, dra_quantity_t *out)
{
    memset(out, 0, sizeof *out);
    set_int(out, v, 0);
    out->format = (uint8_t)format;
}

void dra_quantity_from_int64(int64_t v, dra_quantity_t *out)
{
    dra_quantity_from_int64_fmt(v, DRA_QFMT_DECIMAL_SI, out);
}

/* ---- conversions ---------------------------------------------------------------------------- */

bool dra_quantity_is_integer(const dra_quantity_t *q)
{
    int64_t v;
    return dra_quantity_as_int64(q, &v) == DRA_OK;
}

int dra_quantity_as_int64(const dra_quantity_t *q, int64_t *v)
{
    if (is_dec(q) || q->exp < 0)
        return DRA_EOVERFLOW;
    int64_t r;
    if (!i64_scale_up(ival(q), q->exp, &r))
        return DRA_EOVERFLOW;
    *v = r;
    return DRA_OK;
}

bool dra_quantity_to_fixed(const dra_quantity_t *q, int64_t *units, int32_t scale)
{
    u128 m = q_mag(q), u;
    if (m == 0) {
        *units = 0;
        return true;
    }
    int64_t d = (int64_t)q->exp - scale;
    if (d >= 0) {
        if (!mul_pow10(m, d, &u))
            return false;
    } else {
        if (-d > 38)
            return false;
        u128 p = pow10_u128((unsigned)-d);
        if (m % p != 0)
            return false;
        u = m / p;
    }
    if (q->neg) {
        if (u > (u128)I64_MIN_MAG)
            return false;
        *units = u == (u128)I64_MIN_MAG ? INT64_MIN : -(int64_t)(uint64_t)u;
    } else {
        if (u > (u128)INT64_MAX)
            return false;
        *units = (int64_t)(uint64_t)u;
    }
    return true;
}

/* Go's math.Pow10, table for table, so products round the same way. */
static double go_pow10(int64_t n)
{
    static const double tab[32] = {
        1e0,  1e1,  1e2,  1e3,  1e4,  1e5,  1e6,  1e7,  1e8,  1e9,  1e10,
        1e11, 1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19, 1e20, 1e21,
        1e22, 1e23, 1e24, 1e25, 1e26, 1e27, 1e28, 1e29, 1e30, 1e31,
    };
    static const double pos32[10] = {1e0,   1e32,  1e64,  1e96,  1e128,
                                     1e160, 1e192, 1e224, 1e256, 1e288};
    static const double neg32[11] = {1e-0,   1e-32,  1e-64,  1e-96,  1e-128, 1e-160,
                                     1e-192, 1e-224, 1e-256, 1e-288, 1e-320};
    if (n >= 0 && n <= 308)
        return pos32[n / 32] * tab[n % 32];
    if (n < 0 && n >= -323)
        return neg32[-n / 32] / tab[-n % 32];
    return n > 0 ? INFINITY : 0.0;
}

double dra_quantity_to_double(const dra_quantity_t *q)
{
    double base;
    int64_t exponent;
    if (!is_dec(q)) {
        base = (double)ival(q);
        exponent = q->exp;
    } else {
        /* upstream: big.Float(unscaled).Float64() (correctly rounded) * Pow10(-scale) */
        u128 m = q_mag(q);
        int64_t k = (int64_t)q->exp + q->dscale; /* unscaled = m * 10^k, k >= 0 */
        if (m == 0) {
            base = 0.0;
        } else if (k == 0 && q->hi == 0) {
            base = (double)q->lo;
        } else {
            char buf[64];
            size_t nd = u128_digits(m, buf);
            buf[nd++] = 'e';
            char eb[24];
            size_t ne = 0;
            uint64_t ak = (uint64_t)(k < 0 ? -k : k);
            do {
                eb[ne++] = (char)('0' + (int)(ak % 10));
                ak /= 10;
            } while (ak);
            if (k < 0)
                buf[nd++] = '-';
            while (ne)
                buf[nd++] = eb[--ne];
            buf[nd] = '\0';
            base = strtod(buf, NULL); /* glibc strtod is correctly rounded; HUGE_VAL on overflow */
        }
        if (q->neg)
            base = -base;
        exponent = -(int64_t)q->dscale;
    }
    if (exponent == 0)
        return base;
    return base * go_pow10(exponent);
}

/* ---- formatting ----------------------------------------------------------------------------- */

static size_t put_i64(char *p, int64_t v)
{
    char rev[24];
    size_t n = 0;
    uint64_t a = v < 0 ? (uint64_t)0 - (uint64_t)v : (uint64_t)v;
    do {
        rev[n++] = (char)('0' + (int)(a % 10));
        a /= 10;
    } while (a);
    size_t k = 0;
    if (v < 0)
        p[k++] = '-';
    while (n)
        p[k++] = rev[--n];
    return k;
}

size_t dra_quantity_format(const dra_quantity_t *q, char *buf, size_t len)
{
    char tmp[DRA_QUANTITY_FMT_MAX];
    size_t n = 0;
    u128 m = q_mag(q);
    if (m == 0) {
        tmp[n++] = '0';
    } else {
        int fmt = q->format <= DRA_QFMT_DECIMAL_EXPONENT ? q->format : DRA_QFMT_DECIMAL_EXPONENT;
        int64_t e = q->exp;
        if (fmt == DRA_QFMT_BINARY_SI) {
            u128 whole = 0;
            if (cmp_mag(m, e, 1024, 0) < 0) {
                fmt = DRA_QFMT_DECIMAL_SI; /* (-1024, 1024) */
            } else if (e >= 0) {
                if (!mul_pow10(m, e, &whole))
                    fmt = DRA_QFMT_DECIMAL_SI; /* beyond 128 bits: print exactly in decimal */
            } else {
                u128 p = pow10_u128((unsigned)(-e > 38 ? 38 : -e));
                if (-e > 38 || m % p != 0)
                    fmt = DRA_QFMT_DECIMAL_SI; /* fractional: no precision loss */
                else
                    whole = m / p;
            }
            if (fmt == DRA_QFMT_BINARY_SI) {
                static const char *const bsuf[] = {"", "Ki", "Mi", "Gi", "Ti", "Pi", "Ei"};
                int k = 0;
                while (k < 6 && whole % 1024 == 0) {
                    whole /= 1024;
                    k++;
                }
                if (q->neg)
                    tmp[n++] = '-';
                n += u128_digits(whole, tmp + n);
                size_t sl = strlen(bsuf[k]);
                memcpy(tmp + n, bsuf[k], sl);
                n += sl;
                goto done;
            }
        }
        strip_tens(&m, &e);
        int64_t r = e % 3;
        int zeros = 0;
        if (r == 1 || r == -2)
            zeros = 1;
        else if (r == 2 || r == -1)
            zeros = 2;
        e -= zeros;
        if (q->neg)
            tmp[n++] = '-';
        n += u128_digits(m, tmp + n);
        while (zeros--)
            tmp[n++] = '0';
        static const char *const dsuf[] = {"n", "u", "m", "", "k", "M", "G", "T", "P", "E"};
        if (fmt == DRA_QFMT_DECIMAL_SI && e >= -9 && e <= 18) {
            const char *sf = dsuf[(e + 9) / 3];
            size_t sl = strlen(sf);
            memcpy(tmp + n, sf, sl);
            n += sl;
        } else if (e != 0) {
            tmp[n++] = 'e';
            n += put_i64(tmp + n, e);
        }
    }
done:
    if (len > 0) {
        size_t c = n < len - 1 ? n : len - 1;
        memcpy(buf, tmp, c);
        buf[c] = '\0';
    }
    return n;
}

int dra_quantity_canonicalize(const dra_quantity_t *q, dra_quantity_t *out)
{
    char buf[DRA_QUANTITY_FMT_MAX];
    size_t n = dra_quantity_format(q, buf, sizeof buf);
    return dra_quantity_parse(buf, n, out, NULL);
}

uint64_t dra_quantity_hash(const dra_quantity_t *q)
{
    u128 m = q_mag(q);
    int64_t e = q->exp;
    bool neg = q->neg != 0;
    if (m == 0) {
        e = 0;
        neg = false;
    } else {
        strip_tens(&m, &e);
    }
    uint64_t h = 0x9e3779b97f4a7c15u ^ (neg ? 0xa5a5a5a5u : 0);
    uint64_t parts[3] = {(uint64_t)m, (uint64_t)(m >> 64), (uint64_t)e};
    for (int i = 0; i < 3; i++) {
        h ^= parts[i] + 0x9e3779b97f4a7c15u + (h << 6) + (h >> 2);
        /* splitmix64 finaliser */
        h ^= h >> 30;
        h *= 0xbf58476d1ce4e5b9u;
        h ^= h >> 27;
        h *= 0x94d049bb133111ebu;
        h ^= h >> 31;
    }
    return h;
}
