/*
 * libint.h - internals shared by the files of the CEL function library (lib.c, oplib.c, strlib.c,
 * listlib.c, quantitylib.c, semverlib.c, libutil.c); not included by the parser, checker or
 * evaluator. Calls go one way: lib.c (dispatch) -> the library files -> oplib.c (conversions,
 * arithmetic) -> libutil.c (helpers).
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

static inline size_t dra_cel__u8len(unsigned char c)
{
    return c < 0x80 ? 1 : (c & 0xE0) == 0xC0 ? 2 : (c & 0xF0) == 0xE0 ? 3 : (c & 0xF8) == 0xF0 ? 4 : 1;
}

/* libutil.c: the out-of-memory error (sets c->oom); a list of n items (*items to fill). */
dra_cel_val_t dra_cel__oom(dra_cel_ctx_t *c);
dra_cel_val_t dra_cel__mk_list(dra_cel_ctx_t *c, uint32_t n, dra_cel_val_t **items);
/* libutil.c: the "no such overload: fn(types)" error. oplib.c: arithmetic (fn is ADD, SUB, MUL,
 * DIV or MOD). */
dra_cel_val_t dra_cel__no_overload(dra_cel_ctx_t *c, unsigned fn, const dra_cel_val_t *a,
                                   uint32_t n);
dra_cel_val_t dra_cel__arith(dra_cel_ctx_t *c, unsigned fn, const dra_cel_val_t *a,
                             const dra_cel_val_t *b);
/* oplib.c: the conversion fn (INT, UINT, DOUBLE, STRING, BYTES or BOOL) of *a. */
dra_cel_val_t dra_cel__conv(dra_cel_ctx_t *c, unsigned fn, const dra_cel_val_t *a);

/* libutil.c: an arena-backed string builder (oom set once an append failed), CEL quoting and Go %g
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

/* libutil.c: UTF-8 code points (invalid bytes count as one code point each). */
int64_t dra_cel__cp_count(const char *s, size_t n);
int64_t dra_cel__cp_off(const char *s, size_t n, int64_t cp); /* byte offset, -1 past the end */
bool dra_cel__utf8_valid(const char *s, size_t n);
uint32_t dra_cel__decode_cp(const char *s, size_t n, size_t *adv);
bool dra_cel__is_uspace(uint32_t cp);

/* libutil.c: index of x in l (first or last), -1 when absent; the sort order of sort() and
 * sortBy (0 equal, 2 incomparable); stable sort of items (with keys, when not NULL, as the sort
 * keys); a copy of a list that can be sorted in place. */
int dra_cel__list_index_of(const dra_cel_list_t *l, const dra_cel_val_t *x, bool last);
int dra_cel__cmp_for_sort(const dra_cel_val_t *a, const dra_cel_val_t *b);
bool dra_cel__sort_vals(dra_cel_ctx_t *c, dra_cel_val_t *items, dra_cel_val_t *keys, uint32_t n);
dra_cel_val_t dra_cel__copy_list(dra_cel_ctx_t *c, const dra_cel_list_t *l, dra_cel_val_t **it);

/* A function's implementation (the impl column of DRA_CEL_FN_MAP): fn applied to a[0..n) (the
 * receiver first for a member call); the result, an error value, or "no such overload" when no
 * overload of fn fits the argument kinds. e is the call node (NULL when called without one).
 * Rows that share a body share an implementation (it tells them apart by fn). */
typedef dra_cel_val_t (*dra_cel_impl_t)(dra_cel_ctx_t *c, const dra_cel_expr_t *e, unsigned fn,
                                        const dra_cel_val_t *a, uint32_t n);
#define DRA_CEL_IMPL(name)                                                                         \
    dra_cel_val_t name(dra_cel_ctx_t *c, const dra_cel_expr_t *e DRA_UNUSED,                      \
                       unsigned fn DRA_UNUSED, const dra_cel_val_t *a, uint32_t n DRA_UNUSED)


/* oplib.c */
DRA_CEL_IMPL(dra_cel_op_not);
DRA_CEL_IMPL(dra_cel_op_neg);
DRA_CEL_IMPL(dra_cel_op_eq);
DRA_CEL_IMPL(dra_cel_op_lt);
DRA_CEL_IMPL(dra_cel_op_add);
DRA_CEL_IMPL(dra_cel_op_in);
DRA_CEL_IMPL(dra_cel_op_list_append);
DRA_CEL_IMPL(dra_cel_op_map_insert);
DRA_CEL_IMPL(dra_cel_op_sort_by_keys);
DRA_CEL_IMPL(dra_cel_op_size);
DRA_CEL_IMPL(dra_cel_op_int);
DRA_CEL_IMPL(dra_cel_op_dyn);
DRA_CEL_IMPL(dra_cel_op_type);
DRA_CEL_IMPL(dra_cel_op_opt_of);
DRA_CEL_IMPL(dra_cel_op_opt_none);
DRA_CEL_IMPL(dra_cel_op_opt_of_non_zero);
DRA_CEL_IMPL(dra_cel_op_has_value);
DRA_CEL_IMPL(dra_cel_op_value);
DRA_CEL_IMPL(dra_cel_op_or_value);
DRA_CEL_IMPL(dra_cel_op_opt_or);

/* strlib.c (indexOf / lastIndexOf on a list go on to dra_cel_list_index_of) */
DRA_CEL_IMPL(dra_cel_str_contains);
DRA_CEL_IMPL(dra_cel_str_matches);
DRA_CEL_IMPL(dra_cel_str_find_all);
DRA_CEL_IMPL(dra_cel_str_char_at);
DRA_CEL_IMPL(dra_cel_str_index_of);
DRA_CEL_IMPL(dra_cel_str_lower_ascii);
DRA_CEL_IMPL(dra_cel_str_replace);
DRA_CEL_IMPL(dra_cel_str_split);
DRA_CEL_IMPL(dra_cel_str_substring);
DRA_CEL_IMPL(dra_cel_str_trim);
DRA_CEL_IMPL(dra_cel_str_join);
DRA_CEL_IMPL(dra_cel_str_format);
DRA_CEL_IMPL(dra_cel_str_strings_quote);

/* listlib.c */
DRA_CEL_IMPL(dra_cel_list_index_of);
DRA_CEL_IMPL(dra_cel_list_distinct);
DRA_CEL_IMPL(dra_cel_list_flatten);
DRA_CEL_IMPL(dra_cel_list_lists_range);
DRA_CEL_IMPL(dra_cel_list_reverse);
DRA_CEL_IMPL(dra_cel_list_slice);
DRA_CEL_IMPL(dra_cel_list_sort);
DRA_CEL_IMPL(dra_cel_list_is_sorted);
DRA_CEL_IMPL(dra_cel_list_sum);
DRA_CEL_IMPL(dra_cel_list_min);
DRA_CEL_IMPL(dra_cel_list_includes);
DRA_CEL_IMPL(dra_cel_list_sets_contains);

/* quantitylib.c (the Semver overloads of isGreaterThan / isLessThan / compareTo go on to
 * dra_cel_sv_is_greater_than) */
DRA_CEL_IMPL(dra_cel_q_quantity);
DRA_CEL_IMPL(dra_cel_q_sign);
DRA_CEL_IMPL(dra_cel_q_is_greater_than);
DRA_CEL_IMPL(dra_cel_q_q_add);
DRA_CEL_IMPL(dra_cel_q_as_integer);
DRA_CEL_IMPL(dra_cel_q_is_integer);
DRA_CEL_IMPL(dra_cel_q_as_approx_float);

/* semverlib.c */
DRA_CEL_IMPL(dra_cel_sv_semver);
DRA_CEL_IMPL(dra_cel_sv_is_greater_than);
DRA_CEL_IMPL(dra_cel_sv_major);

/* lib.c: the IP / CIDR / URL functions through dra_cel_netlib_call (netlib.c) */
DRA_CEL_IMPL(dra_cel_net_call);

#endif /* DRA_CEL_LIBINT_H */
