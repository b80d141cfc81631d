/*
 * quantity.h - Kubernetes resource.Quantity (apimachinery pkg/api/resource), exact.
 *
 * Purpose: parse, compare, add, subtract and print device capacities and CEL quantity() values
 * with the same results as Kubernetes. A dra_quantity_t is a fixed-size value type (32 bytes, no
 * pointers, a zero-filled struct is the integer 0); copy it freely.
 *
 * Representation. Upstream keeps a value either as a scaled int64 ("int form": value * 10^scale)
 * or, when that is not possible, as an arbitrary-precision decimal ("dec form"). The form is
 * observable: isInteger()/asInteger() accept only the int form with a scale >= 0, so
 * quantity("1.0"), quantity("1000m") and quantity("1.5Gi") report isInteger() == false although
 * their values are integers. This type mirrors both forms:
 *   - int form (flags & DRA_QF_DEC == 0): magnitude in lo (hi == 0, lo <= 2^63), exp == the
 *     upstream scale, neg the sign;
 *   - dec form (DRA_QF_DEC): magnitude in the 128-bit (hi, lo) with trailing zeros stripped,
 *     exp the decimal exponent; dscale is the scale upstream's inf.Dec would carry, kept only to
 *     reproduce asApproximateFloat bit for bit.
 * Parsing rounds up (away from zero) to nano (10^-9) precision and caps binary-SI values at
 * 2^63-1, exactly like ParseQuantity; decimal values are not capped.
 *
 * Limits (this implementation, not upstream): a value must have a mantissa of at most 128 bits
 * after nano rounding and trailing-zero removal (about 38 significant digits; for example
 * "9999999999999999999999999999999999999G" is fine, a 40-digit integer is not), a decimal
 * exponent within int32 (trailing zeros of the mantissa counted in the exponent, so that the
 * printed form reads back: "1000000000e2147483647" is refused), and a literal at most
 * DRA_QUANTITY_MAX_DIGITS significant digits. Such inputs return DRA_ELIMIT with a message
 * saying so (add/sub: DRA_EOVERFLOW); upstream would accept them.
 *
 * Documented decisions (mirroring upstream ParseQuantity, checked against its source):
 *   - digit-less strings whose suffix is valid parse as zero: "Mi", "k", "+", "-", ".", "e5",
 *     "n" (upstream's scanner defaults an empty numerator to "0"); the digit-less strings that
 *     take upstream's slow path (a scale below nano: "e-10", "-.e-12") fail with "unable to
 *     parse numeric part of quantity". The empty string is an error.
 *   - suffixes are case-sensitive ("K", "mi", "i" are errors); "E" alone is exa, "E<int>" an
 *     exponent; an exponent is an int64 truncated to int32 as upstream does.
 * Divergences from upstream (deliberate, value-preserving): add/sub never alias their inputs
 * (upstream's CEL add/sub mutate a shared inf.Dec of the receiver); a parse scale that would
 * wrap int32 is computed exactly; dra_quantity_format prints the canonical form, never the
 * original string upstream caches for some literals ("+1" prints "1"), falls back to "e<n>"
 * when a DecimalSI exponent has no suffix (like recent apimachinery) and uses "Ei" with a larger
 * number for binary values of 1024Ei and more.
 *
 * Errors: parse returns DRA_EPARSE with upstream's message in diag, or DRA_ELIMIT; add/sub return
 * DRA_EOVERFLOW when the exact result does not fit the 128-bit mantissa.
 * Cost: parse is a single pass (plus a small digit buffer for the slow path); compare, add and
 * sub are a few 128-bit operations; format is O(digits). No allocation, no global state;
 * every function is thread-safe.
 */
#ifndef DRA_QUANTITY_H
#define DRA_QUANTITY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "err.h"

/* Serialisation family, remembered from the literal (resource.Format). Zero = DecimalSI. */
typedef enum dra_qformat {
    DRA_QFMT_DECIMAL_SI = 0,       /* 12M, 1500m */
    DRA_QFMT_BINARY_SI = 1,        /* 12Mi */
    DRA_QFMT_DECIMAL_EXPONENT = 2, /* 12e6 */
} dra_qformat_t;

/* flags */
#define DRA_QF_DEC 0x01u /* held in upstream's arbitrary-precision form (not a scaled int64) */

/* Longest significant-digit run a literal may have (DRA_ELIMIT beyond). */
#define DRA_QUANTITY_MAX_DIGITS 1000

/* Buffer size that always suffices for dra_quantity_format (sign, 39 digits, 2 zeros, suffix). */
#define DRA_QUANTITY_FMT_MAX 64

typedef struct dra_quantity {
    uint64_t lo, hi; /* unsigned 128-bit magnitude */
    int32_t exp;     /* value = (neg ? -1 : 1) * magnitude * 10^exp */
    int32_t dscale;  /* dec form: upstream inf.Dec scale (for to_double only); else 0 */
    int8_t neg;      /* 1 when negative; never set for zero */
    uint8_t format;  /* dra_qformat_t */
    uint8_t flags;   /* DRA_QF_* */
    uint8_t pad_;
} dra_quantity_t;

/* Parse s[0..len) (not NUL-terminated necessarily) like resource.ParseQuantity.
 * Returns DRA_OK, DRA_EPARSE (diag->msg is upstream's text: "quantities must match the regular
 * expression '...'", "unable to parse quantity's suffix" or "unable to parse numeric part of
 * quantity"), DRA_ELIMIT (see Limits above) or DRA_EINVAL (NULL out). */
DRA_NODISCARD int dra_quantity_parse(const char *s, size_t len, dra_quantity_t *out,
                                     dra_diag_t *diag);

/* Exact numeric comparison whatever the forms and formats: -1, 0 or 1. */
int dra_quantity_cmp(const dra_quantity_t *a, const dra_quantity_t *b);

/* out = a + b / a - b, exactly, with upstream's form and format rules (int form stays int form
 * while the scaled int64 does not overflow, then the exact decimal form; a zero receiver takes
 * b's format). out may alias a or b. DRA_EOVERFLOW (out untouched) when the result, or an
 * operand aligned to the other's exponent, exceeds the 128-bit mantissa (e.g. 2^128-1 + 1, or
 * 9999999999999999999999999999999999999G + 1n); upstream would not fail there. */
DRA_NODISCARD int dra_quantity_add(const dra_quantity_t *a, const dra_quantity_t *b,
                                   dra_quantity_t *out);
DRA_NODISCARD int dra_quantity_sub(const dra_quantity_t *a, const dra_quantity_t *b,
                                   dra_quantity_t *out);

/* v as an int-form quantity with scale 0 in DecimalSI (resource.NewQuantity(v, DecimalSI)).
 * CEL's add(int)/sub(int) use DecimalExponent: call dra_quantity_from_int64_fmt. */
void dra_quantity_from_int64(int64_t v, dra_quantity_t *out);
void dra_quantity_from_int64_fmt(int64_t v, dra_qformat_t format, dra_quantity_t *out);

/* CEL isInteger(): true iff upstream AsInt64 succeeds, i.e. int form, scale >= 0 and
 * value * 10^scale fits int64. Depends on the stored form, not only on the value. */
bool dra_quantity_is_integer(const dra_quantity_t *q);
/* CEL asInteger(): DRA_OK and *v, or DRA_EOVERFLOW ("cannot convert value to integer") when
 * dra_quantity_is_integer is false. */
DRA_NODISCARD int dra_quantity_as_int64(const dra_quantity_t *q, int64_t *v);

/* CEL asApproximateFloat() (AsApproximateFloat64): mantissa * 10^scale in doubles, computed the
 * way upstream does; +-Inf when out of range (and NaN for upstream's 0 * Inf cases). */
double dra_quantity_to_double(const dra_quantity_t *q);

/* -1, 0 or 1. */
int dra_quantity_sign(const dra_quantity_t *q);

/* Canonical Kubernetes serialisation (Quantity.String()): largest suffix without precision
 * loss in the quantity's format family; binary values in (-1024, 1024) or with a fraction print
 * in DecimalSI. Writes at most len bytes including a NUL (if len > 0) and returns the full
 * length like snprintf. DRA_QUANTITY_FMT_MAX bytes always suffice. */
size_t dra_quantity_format(const dra_quantity_t *q, char *buf, size_t len);

/* What the API server stores: parse(format(q)). Same value (except binary-SI values above
 * 2^63-1, which the re-parse caps as the API server would); the form becomes the one a capacity
 * read from the API has (e.g. "1.0" -> "1" int form, "1.5Gi" -> "1536Mi", both isInteger()).
 * out may alias q. */
DRA_NODISCARD int dra_quantity_canonicalize(const dra_quantity_t *q, dra_quantity_t *out);

/* Hash of the numeric value: equal values (cmp == 0) hash equal whatever form and format. */
uint64_t dra_quantity_hash(const dra_quantity_t *q);

/* Fixed-point export for kernels and the device table: true iff q == *units * 10^scale exactly
 * and *units fits int64 (so 1.5Gi at scale 0 -> 1610612736, 100m at scale -3 -> 100, 1n at
 * scale 0 -> false). *units is written only on success. */
bool dra_quantity_to_fixed(const dra_quantity_t *q, int64_t *units, int32_t scale);

#endif /* DRA_QUANTITY_H */
