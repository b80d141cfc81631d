/*
 * libint.h - internals shared by the files of the CEL function library (lib.c, strlib.c,
 * listlib.c, quantitylib.c, semverlib.c); not included by the parser, checker or evaluator.
 * Values built here live in the evaluation arena (c->a); a helper that cannot allocate sets
 * c->oom and returns the "out of memory" error value. The dra_cel__ prefix marks names internal
 * to the library.
 */
#ifndef DRA_CEL_LIBINT_H
#define DRA_CEL_LIBINT_H

#include <string.h>

#include "cel_int.h"

#define K(v, k) ((v).kind == DRA_CEL_##k)

/* Charge u cost units; false once the budget is exceeded (then return dra_cel__cost_err()). */
static inline bool dra_cel__charge(dra_cel_ctx_t *c, uint64_t u)
{
    c->cost += u;
    return c->cost <= c->cost_limit;
}

static inline dra_cel_val_t dra_cel__cost_err(void)
{
    dra_cel_val_t v = {.kind = DRA_CEL_ERROR, .sub = 1};
    v.v.s = DRA_CEL_COST_ERR_MSG;
    v.len = (uint32_t)strlen(DRA_CEL_COST_ERR_MSG);
    return v;
}

static inline int dra_cel__cmp3(int r)
{
    return r < 0 ? -1 : r > 0;
}

/* lib.c: the out-of-memory error (sets c->oom); a list of n items (*items to fill). */
dra_cel_val_t dra_cel__oom(dra_cel_ctx_t *c);
dra_cel_val_t dra_cel__mk_list(dra_cel_ctx_t *c, uint32_t n, dra_cel_val_t **items);
/* lib.c: the "no such overload: fn(types)" error; arithmetic (fn is ADD, SUB, MUL, DIV or MOD). */
dra_cel_val_t dra_cel__no_overload(dra_cel_ctx_t *c, unsigned fn, const dra_cel_val_t *a, uint32_t n);
dra_cel_val_t dra_cel__arith(dra_cel_ctx_t *c, unsigned fn, const dra_cel_val_t *a,
                             const dra_cel_val_t *b);
/* lib.c: the conversion fn (INT, UINT, DOUBLE, STRING, BYTES or BOOL) of *a. */
dra_cel_val_t dra_cel__conv(dra_cel_ctx_t *c, unsigned fn, const dra_cel_val_t *a);

/* lib.c: an arena-backed string builder (oom set once an append failed), CEL quoting and Go %g
 * formatting of a double. */
typedef struct dra_cel__sbuf {
    dra_arena_t *a;
    char *p;
    size_t n, cap;
    bool oom;
} dra_cel__sbuf_t;
void dra_cel__sb_put(dra_cel__sbuf_t *b, const char *s, size_t n);
void dra_cel__sb_puts(dra_cel__sbuf_t *b, const char *s);
void dra_cel__quote_str(dra_cel__sbuf_t *b, const char *s, size_t n, char q);
size_t dra_cel__fmt_double(double d, char *buf, size_t len);

/* strlib.c: UTF-8 code points (invalid bytes count as one code point each). */
int64_t dra_cel__cp_count(const char *s, size_t n);
int64_t dra_cel__cp_off(const char *s, size_t n, int64_t cp); /* byte offset, -1 past the end */
bool dra_cel__utf8_valid(const char *s, size_t n);
uint32_t dra_cel__decode_cp(const char *s, size_t n, size_t *adv);
bool dra_cel__is_uspace(uint32_t cp);

/* listlib.c: index of x in l (first or last), -1 when absent; the sort order of sort() and
 * sortBy (0 equal, 2 incomparable); stable sort of items (with keys, when not NULL, as the sort
 * keys); a copy of a list that can be sorted in place. */
int dra_cel__list_index_of(const dra_cel_list_t *l, const dra_cel_val_t *x, bool last);
int dra_cel__cmp_for_sort(const dra_cel_val_t *a, const dra_cel_val_t *b);
bool dra_cel__sort_vals(dra_cel_ctx_t *c, dra_cel_val_t *items, dra_cel_val_t *keys, uint32_t n);
dra_cel_val_t dra_cel__copy_list(dra_cel_ctx_t *c, const dra_cel_list_t *l, dra_cel_val_t **it);

/* The libraries: fn applied to a[0..n) (the receiver first for a member call); the result, an
 * error value, or "no such overload" when no overload of fn fits the argument kinds. e is the
 * call node (NULL when called without one). indexOf / lastIndexOf on a list go from strlib to
 * listlib, the Semver overloads of isGreaterThan / isLessThan / compareTo from quantitylib to
 * semverlib. */
dra_cel_val_t dra_cel_strlib_call(dra_cel_ctx_t *c, const dra_cel_expr_t *e, unsigned fn,
                                  const dra_cel_val_t *a, uint32_t n);
dra_cel_val_t dra_cel_listlib_call(dra_cel_ctx_t *c, const dra_cel_expr_t *e, unsigned fn,
                                   const dra_cel_val_t *a, uint32_t n);
dra_cel_val_t dra_cel_quantitylib_call(dra_cel_ctx_t *c, const dra_cel_expr_t *e, unsigned fn,
                                       const dra_cel_val_t *a, uint32_t n);
dra_cel_val_t dra_cel_semverlib_call(dra_cel_ctx_t *c, const dra_cel_expr_t *e, unsigned fn,
                                     const dra_cel_val_t *a, uint32_t n);

#endif /* DRA_CEL_LIBINT_H */
