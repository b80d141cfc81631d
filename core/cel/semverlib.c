/*
 * semverlib.c - the Kubernetes semver library (semver, isSemver, major, minor, patch,
 * isGreaterThan, isLessThan, compareTo).
 * Part of the CEL function library (lib.c dispatches to it); every function checks argument
 * kinds at runtime and the caller reports "no such overload" when none matches.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "libint.h"

static dra_cel_val_t parse_semver(dra_cel_ctx_t *c, const dra_cel_val_t *s, bool lenient,
                                  bool is_check)
{
    dra_semver_t *sv = dra_arena_alloc(c->a, sizeof *sv, 8);
    if (!sv)
        return dra_cel__oom(c);
    dra_diag_t d;
    dra_diag_clear(&d);
    int rc = dra_semver_parse(s->v.s, s->len, lenient, sv, &d);
    if (is_check)
        return dra_cel_bool(rc == DRA_OK);
    if (rc != DRA_OK)
        return dra_cel_err(c, "%s", d.msg[0] ? d.msg : "invalid semver");
    dra_cel_val_t v = {.kind = DRA_CEL_SEMVER};
    v.v.sv = sv;
    return v;
}

/* ---- the functions (rows of DRA_CEL_FN_MAP) ------------------------------------------------ */

/* SEMVER, IS_SEMVER */
DRA_CEL_IMPL(dra_cel_sv_semver)
{
    if ((n == 1 || n == 2) && K(a[0], STRING) && (n == 1 || K(a[1], BOOL)))
        return parse_semver(c, &a[0], n == 2 && a[1].v.b, fn == DRA_CEL_FN_IS_SEMVER);
    return dra_cel__no_overload(c, fn, a, n);
}

/* IS_GREATER_THAN, IS_LESS_THAN, COMPARE_TO */
DRA_CEL_IMPL(dra_cel_sv_is_greater_than)
{
    if (n == 2 && K(a[0], SEMVER) && K(a[1], SEMVER)) {
        int r = dra_cel__cmp3(dra_semver_cmp(a[0].v.sv, a[1].v.sv));
        return fn == DRA_CEL_FN_COMPARE_TO ? dra_cel_int(r)
                                           : dra_cel_bool(fn == DRA_CEL_FN_IS_GREATER_THAN ? r > 0 : r < 0);
    }
    return dra_cel__no_overload(c, fn, a, n);
}

/* MAJOR, MINOR, PATCH */
DRA_CEL_IMPL(dra_cel_sv_major)
{
    if (n == 1 && K(a[0], SEMVER)) {
        uint64_t v = fn == DRA_CEL_FN_MAJOR ? a[0].v.sv->major
                     : fn == DRA_CEL_FN_MINOR ? a[0].v.sv->minor : a[0].v.sv->patch;
        return dra_cel_int((int64_t)v);
    }
    return dra_cel__no_overload(c, fn, a, n);
}
