/*
 * quantitylib.c - the Kubernetes quantity library (quantity, isQuantity, sign, isGreaterThan,
 * isLessThan, compareTo, add, sub, asInteger, isInteger, asApproximateFloat).
 * Part of the CEL function library (lib.c dispatches to it); every function checks argument
 * kinds at runtime and the caller reports "no such overload" when none matches.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "libint.h"

static dra_cel_val_t mk_q(dra_cel_ctx_t *c, const dra_quantity_t *q)
{
    dra_quantity_t *p = dra_arena_alloc(c->a, sizeof *p, 8);
    if (!p)
        return dra_cel__oom(c);
    *p = *q;
    dra_cel_val_t v = {.kind = DRA_CEL_QUANTITY};
    v.v.q = p;
    return v;
}
/* ---- quantity / semver helpers -------------------------------------------------------------- */

static dra_cel_val_t parse_quantity(dra_cel_ctx_t *c, const dra_cel_val_t *s, bool is_check)
{
    dra_quantity_t q;
    dra_diag_t d;
    dra_diag_clear(&d);
    int rc = dra_quantity_parse(s->v.s, s->len, &q, &d);
    if (is_check)
        return dra_cel_bool(rc == DRA_OK);
    if (rc != DRA_OK)
        return dra_cel_err(c, "%s", d.msg[0] ? d.msg : "quantities must match the regular expression");
    return mk_q(c, &q);
}

/* ---- the functions (rows of DRA_CEL_FN_MAP) ------------------------------------------------ */

/* QUANTITY, IS_QUANTITY */
DRA_CEL_IMPL(dra_cel_q_quantity)
{
    if (n == 1 && K(a[0], STRING))
        return parse_quantity(c, &a[0], fn == DRA_CEL_FN_IS_QUANTITY);
    return dra_cel__no_overload(c, fn, a, n);
}

/* SIGN */
DRA_CEL_IMPL(dra_cel_q_sign)
{
    if (n == 1 && K(a[0], QUANTITY))
        return dra_cel_int(dra_quantity_sign(a[0].v.q));
    return dra_cel__no_overload(c, fn, a, n);
}

/* IS_GREATER_THAN, IS_LESS_THAN, COMPARE_TO */
DRA_CEL_IMPL(dra_cel_q_is_greater_than)
{
    if (n == 2 && K(a[0], QUANTITY) && K(a[1], QUANTITY)) {
        int r = dra_cel__cmp3(dra_quantity_cmp(a[0].v.q, a[1].v.q));
        return fn == DRA_CEL_FN_COMPARE_TO ? dra_cel_int(r)
                                           : dra_cel_bool(fn == DRA_CEL_FN_IS_GREATER_THAN ? r > 0 : r < 0);
    }
    return dra_cel_sv_is_greater_than(c, e, fn, a, n); /* the Semver overloads */
}

/* Q_ADD, Q_SUB */
DRA_CEL_IMPL(dra_cel_q_q_add)
{
    if (n == 2 && K(a[0], QUANTITY) && (K(a[1], QUANTITY) || K(a[1], INT))) {
        dra_quantity_t rhs, out;
        if (K(a[1], INT))
            dra_quantity_from_int64_fmt(a[1].v.i, DRA_QFMT_DECIMAL_EXPONENT, &rhs);
        else
            rhs = *a[1].v.q;
        int rc = fn == DRA_CEL_FN_Q_ADD ? dra_quantity_add(a[0].v.q, &rhs, &out)
                                        : dra_quantity_sub(a[0].v.q, &rhs, &out);
        if (rc != DRA_OK)
            return dra_cel_err(c, "quantity arithmetic overflow");
        return mk_q(c, &out);
    }
    return dra_cel__no_overload(c, fn, a, n);
}

/* AS_INTEGER */
DRA_CEL_IMPL(dra_cel_q_as_integer)
{
    if (n == 1 && K(a[0], QUANTITY)) {
        int64_t v;
        if (dra_quantity_as_int64(a[0].v.q, &v) != DRA_OK)
            return dra_cel_err(c, "cannot convert value to integer");
        return dra_cel_int(v);
    }
    return dra_cel__no_overload(c, fn, a, n);
}

/* IS_INTEGER */
DRA_CEL_IMPL(dra_cel_q_is_integer)
{
    if (n == 1 && K(a[0], QUANTITY))
        return dra_cel_bool(dra_quantity_is_integer(a[0].v.q));
    return dra_cel__no_overload(c, fn, a, n);
}

/* AS_APPROX_FLOAT */
DRA_CEL_IMPL(dra_cel_q_as_approx_float)
{
    if (n == 1 && K(a[0], QUANTITY))
        return dra_cel_double(dra_quantity_to_double(a[0].v.q));
    return dra_cel__no_overload(c, fn, a, n);
}
