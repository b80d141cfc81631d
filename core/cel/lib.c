/*
 * lib.c - the CEL function library's entry point: dra_cel_call_fn materialises device views and
 * calls the implementation in the function's row of DRA_CEL_FN_MAP: oplib.c (operators, `in`,
 * conversions, size, type, comprehension helpers, optionals), strlib.c (strings, regex),
 * listlib.c (lists, sets, includes), quantitylib.c, semverlib.c and netlib.c (ip, cidr, url).
 * Every function checks argument kinds at runtime (dynamic dispatch like cel-go) and returns an
 * error value on a mismatch ("no such overload").
 */
#include "libint.h"

/* ---- dispatch ------------------------------------------------------------------------------- */

DRA_CEL_IMPL(dra_cel_net_call)
{
    dra_cel_val_t r;
    if (dra_cel_netlib_call(c, fn, a, n, &r))
        return r;
    return dra_cel__no_overload(c, fn, a, n);
}

static const dra_cel_impl_t fn_impl[DRA_CEL_FN_COUNT] = {
#define DRA_CEL_FN_IMPL(id, name, impl, ...) [DRA_CEL_FN_##id] = impl,
    DRA_CEL_FN_MAP(DRA_CEL_FN_IMPL)
#undef DRA_CEL_FN_IMPL
};

/* A call without an implementation: an unknown function (FN_NONE) or no overload. */
DRA_NOINLINE static dra_cel_val_t call_none(dra_cel_ctx_t *c, const dra_cel_expr_t *e,
                                             unsigned fn, const dra_cel_val_t *a, uint32_t n)
{
    if (fn == DRA_CEL_FN_NONE && e)
        return dra_cel_err(c, "no such overload: %s", e->u.call.name);
    return dra_cel__no_overload(c, fn, a, n);
}

static dra_cel_val_t dispatch(dra_cel_ctx_t *c, const dra_cel_expr_t *e, unsigned fn,
                              const dra_cel_val_t *a, uint32_t n)
{
    /* the library functions: the impl column of DRA_CEL_FN_MAP */
    if (fn < DRA_CEL_FN_COUNT && fn_impl[fn])
        return fn_impl[fn](c, e, fn, a, n);
    return call_none(c, e, fn, a, n);
}

/* Arguments that are device views are materialized first (except for size and in). */
DRA_NOINLINE static dra_cel_val_t call_dev(dra_cel_ctx_t *c, const dra_cel_expr_t *e,
                                            unsigned fn, const dra_cel_val_t *a, uint32_t n)
{
    dra_cel_val_t tmp0, tmp1;
    if (n >= 1 && (a[0].kind >= DRA_CEL_DEVICE) && fn != DRA_CEL_FN_SIZE && fn != DRA_CEL_FN_IN) {
        tmp0 = dra_cel_materialize(c, &a[0]);
        if (K(tmp0, ERROR))
            return tmp0;
        dra_cel_val_t *na = dra_arena_alloc(c->a, n * sizeof *na, 8);
        if (!na)
            return dra_cel__oom(c);
        memcpy(na, a, n * sizeof *na);
        na[0] = tmp0;
        a = na;
    }
    if (n >= 2 && a[1].kind >= DRA_CEL_DEVICE && a[1].kind != DRA_CEL_ERROR && fn != DRA_CEL_FN_IN) {
        tmp1 = dra_cel_materialize(c, &a[1]);
        if (K(tmp1, ERROR))
            return tmp1;
        dra_cel_val_t *na = dra_arena_alloc(c->a, n * sizeof *na, 8);
        if (!na)
            return dra_cel__oom(c);
        memcpy(na, a, n * sizeof *na);
        na[1] = tmp1;
        a = na;
    }
    return dispatch(c, e, fn, a, n);
}

dra_cel_val_t dra_cel_call_fn(dra_cel_ctx_t *c, const dra_cel_expr_t *e, unsigned fn,
                              const dra_cel_val_t *a, uint32_t n, bool member)
{
    (void)member;
    if ((n >= 1 && a[0].kind >= DRA_CEL_DEVICE) || (n >= 2 && a[1].kind >= DRA_CEL_DEVICE))
        return call_dev(c, e, fn, a, n);
    return dispatch(c, e, fn, a, n);
}
