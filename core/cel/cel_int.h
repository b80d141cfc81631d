/*
 * cel_int.h - internals shared by the CEL parser, checker and evaluator (not a public header;
 * the tests include it to drive the engine in "standard CEL" mode for the conformance suite).
 */
#ifndef DRA_CEL_INT_H
#define DRA_CEL_INT_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/arena.h"
#include "base/err.h"
#include "base/quantity.h"
#include "base/semver.h"
#include "cel.h"
#include "cel_ast.h"

/* The CEL functions and operators, one row each: FN(id, name, impl, cost, overloads...).
 * - id: DRA_CEL_FN_<id>; name: as cel-go spells it (operators "_+_", member and global functions
 *   by their name);
 * - impl: the evaluator's implementation (a dra_cel_impl_t of libint.h: dra_cel_op_* in oplib.c for the
 *   operators, conversions, optionals and comprehension helpers, dra_cel_str_* in strlib.c,
 *   dra_cel_list_* in listlib.c, dra_cel_q_* in quantitylib.c, dra_cel_sv_* in semverlib.c,
 *   dra_cel_net_call for netlib.c), or NULL for what eval.c evaluates itself (&&, ||, ?:,
 *   indexing, @not_strictly_false);
 * - cost: the static cost rule of cost.c (DRA_CEL_FC_<cost>, below);
 * - overloads: the checker's signature strings (check.c explains the codes), in cel-go's
 *   declaration order (a free type variable is bound by the first one that matches), or NULL
 *   when check.c types the call with its own code. */
#define DRA_CEL_SIG_ORD                                                                            \
    "gbb>b", "gii>b", "gid>b", "giu>b", "guu>b", "gud>b", "gui>b", "gdd>b", "gdi>b", "gdu>b",      \
        "gss>b", "gyy>b", "gPP>b", "gDD>b"
#define DRA_CEL_FN_MAP(FN)                                                                         \
    FN(NONE, "", NULL, ONE, NULL)                                                                  \
    FN(AND, "_&&_", NULL, OWN, NULL)                                                               \
    FN(OR, "_||_", NULL, OWN, NULL)                                                                \
    FN(NOT, "!_", dra_cel_op_not, ONE, "gb>b")                                                             \
    FN(NEG, "-_", dra_cel_op_neg, ONE, "gd>d", "gi>i")                                                     \
    FN(COND, "_?_:_", NULL, OWN, NULL)                                                             \
    FN(EQ, "_==_", dra_cel_op_eq, OWN, NULL)                                                               \
    FN(NE, "_!=_", dra_cel_op_eq, OWN, NULL)                                                               \
    FN(LT, "_<_", dra_cel_op_lt, OWN, DRA_CEL_SIG_ORD)                                                     \
    FN(LE, "_<=_", dra_cel_op_lt, OWN, DRA_CEL_SIG_ORD)                                                    \
    FN(GT, "_>_", dra_cel_op_lt, OWN, DRA_CEL_SIG_ORD)                                                     \
    FN(GE, "_>=_", dra_cel_op_lt, OWN, DRA_CEL_SIG_ORD)                                                    \
    FN(ADD, "_+_", dra_cel_op_add, OWN, "gyy>y", "gdd>d", "gDD>D", "gDP>P", "gPD>P", "gii>i", "gLL>1",     \
       "gss>s", "guu>u")                                                                           \
    FN(SUB, "_-_", dra_cel_op_add, ONE, "gdd>d", "gDD>D", "gii>i", "gPD>P", "gPP>D", "guu>u")              \
    FN(MUL, "_*_", dra_cel_op_add, ONE, "gdd>d", "gii>i", "guu>u")                                         \
    FN(DIV, "_/_", dra_cel_op_add, ONE, "gdd>d", "gii>i", "guu>u")                                         \
    FN(MOD, "_%_", dra_cel_op_add, ONE, "gii>i", "guu>u")                                                  \
    FN(INDEX, "_[_]", NULL, OWN, NULL)                                                             \
    FN(OPT_INDEX, "_[?_]", NULL, OWN, NULL)                                                        \
    FN(IN, "@in", dra_cel_op_in, OWN, NULL)                                                                \
    FN(NOT_STRICTLY_FALSE, "@not_strictly_false", NULL, OWN, "gb>b")                               \
    FN(LIST_APPEND, "@append", dra_cel_op_list_append, OWN, NULL)                                          \
    FN(MAP_INSERT, "@mapinsert", dra_cel_op_map_insert, OWN, NULL)                                         \
    FN(SORT_BY_KEYS, "@sortByAssociatedKeys", dra_cel_op_sort_by_keys, LIST_PAIR, "gLL>1")                 \
    FN(SIZE, "size", dra_cel_op_size, ONE, "gy>i", "my>i", "gL>i", "mL>i", "gM>i", "mM>i", "gs>i", "ms>i") \
    FN(INT, "int", dra_cel_op_int, ONE, "gi>i", "gu>i", "gd>i", "gs>i", "gP>i", "gD>i")                    \
    FN(UINT, "uint", dra_cel_op_int, ONE, "gi>u", "gu>u", "gd>u", "gs>u")                                  \
    FN(DOUBLE, "double", dra_cel_op_int, ONE, "gi>d", "gu>d", "gd>d", "gs>d")                              \
    FN(STRING, "string", dra_cel_op_int, PASS, "gi>s", "gu>s", "gd>s", "gs>s", "gy>s", "gb>s", "gP>s",     \
       "gD>s", "gp>s", "gc>s")                                                                     \
    FN(BYTES, "bytes", dra_cel_op_int, PASS, "gs>y", "gy>y")                                               \
    FN(BOOL, "bool", dra_cel_op_int, ONE, "gb>b", "gs>b")                                                  \
    FN(DYN, "dyn", dra_cel_op_dyn, PASS, NULL)                                                             \
    FN(TYPE, "type", dra_cel_op_type, ONE, "gA>t")                                                         \
    FN(CONTAINS, "contains", dra_cel_str_contains, STR, "mss>b")                                   \
    FN(STARTS_WITH, "startsWith", dra_cel_str_contains, STR, "mss>b")                              \
    FN(ENDS_WITH, "endsWith", dra_cel_str_contains, STR, "mss>b")                                  \
    FN(MATCHES, "matches", dra_cel_str_matches, STR_REGEX, "gss>b", "mss>b")                       \
    FN(FIND, "find", dra_cel_str_matches, STR_REGEX, "mss>s")                                      \
    FN(FIND_ALL, "findAll", dra_cel_str_find_all, STR_REGEX_LIST, "mss>Z", "mssi>Z")               \
    FN(CHAR_AT, "charAt", dra_cel_str_char_at, STR, "msi>s")                                       \
    FN(INDEX_OF, "indexOf", dra_cel_str_index_of, STR, "mss>i", "mssi>i", "mLA>i")                 \
    FN(LAST_INDEX_OF, "lastIndexOf", dra_cel_str_index_of, STR, "mss>i", "mssi>i", "mLA>i")        \
    FN(LOWER_ASCII, "lowerAscii", dra_cel_str_lower_ascii, STR, "ms>s")                            \
    FN(UPPER_ASCII, "upperAscii", dra_cel_str_lower_ascii, STR, "ms>s")                            \
    FN(REPLACE, "replace", dra_cel_str_replace, STR, "msss>s", "msssi>s")                          \
    FN(SPLIT, "split", dra_cel_str_split, STR_SPLIT, "mss>Z", "mssi>Z")                            \
    FN(SUBSTRING, "substring", dra_cel_str_substring, STR, "msi>s", "msii>s")                      \
    FN(TRIM, "trim", dra_cel_str_trim, STR, "ms>s")                                                \
    FN(JOIN, "join", dra_cel_str_join, STR_JOIN, "mL>s", "mLs>s")                                  \
    FN(FORMAT, "format", dra_cel_str_format, STR, "msL>s")                                         \
    FN(STRINGS_QUOTE, "strings.quote", dra_cel_str_strings_quote, STR, "gs>s")                     \
    FN(DISTINCT, "distinct", dra_cel_list_distinct, LIST_PAIR, "mL>1")                             \
    FN(FLATTEN, "flatten", dra_cel_list_flatten, LIST_FLATTEN, "mL>L", "mLi>L")                    \
    FN(LISTS_RANGE, "lists.range", dra_cel_list_lists_range, OWN, "gi>L")                          \
    FN(REVERSE, "reverse", dra_cel_list_reverse, LIST, "mL>1")                                     \
    FN(SLICE, "slice", dra_cel_list_slice, LIST, "mLii>1")                                         \
    FN(SORT, "sort", dra_cel_list_sort, LIST_PAIR, "mL>1")                                         \
    FN(IS_SORTED, "isSorted", dra_cel_list_is_sorted, LIST, "mL>b")                                \
    FN(SUM, "sum", dra_cel_list_sum, LIST, "mL>e")                                                 \
    FN(MIN, "min", dra_cel_list_min, LIST, "mL>e")                                                 \
    FN(MAX, "max", dra_cel_list_min, LIST, "mL>e")                                                 \
    FN(INCLUDES, "includes", dra_cel_list_includes, OWN, "mAA>b")                                  \
    FN(SETS_CONTAINS, "sets.contains", dra_cel_list_sets_contains, LIST_PAIR, "gLL>b")             \
    FN(SETS_EQUIVALENT, "sets.equivalent", dra_cel_list_sets_contains, LIST_PAIR, "gLL>b")         \
    FN(SETS_INTERSECTS, "sets.intersects", dra_cel_list_sets_contains, LIST_PAIR, "gLL>b")         \
    FN(OPT_OF, "optional.of", dra_cel_op_opt_of, PASS, NULL)                                               \
    FN(OPT_NONE, "optional.none", dra_cel_op_opt_none, ONE, "g>O")                                         \
    FN(OPT_OF_NON_ZERO, "optional.ofNonZeroValue", dra_cel_op_opt_of_non_zero, ONE, NULL)                  \
    FN(HAS_VALUE, "hasValue", dra_cel_op_has_value, ONE, "mO>b")                                           \
    FN(VALUE, "value", dra_cel_op_value, PASS, NULL)                                                       \
    FN(OR_VALUE, "orValue", dra_cel_op_or_value, PASS, NULL)                                               \
    FN(OPT_OR, "or", dra_cel_op_opt_or, ONE, NULL)                                                         \
    FN(QUANTITY, "quantity", dra_cel_q_quantity, ONE, "gs>q")                                      \
    FN(IS_QUANTITY, "isQuantity", dra_cel_q_quantity, ONE, "gs>b")                                 \
    FN(SIGN, "sign", dra_cel_q_sign, ONE, "gq>i")                                                  \
    FN(IS_GREATER_THAN, "isGreaterThan", dra_cel_q_is_greater_than, ONE, "mqq>b", "mvv>b")         \
    FN(IS_LESS_THAN, "isLessThan", dra_cel_q_is_greater_than, ONE, "mqq>b", "mvv>b")               \
    FN(COMPARE_TO, "compareTo", dra_cel_q_is_greater_than, ONE, "mqq>i", "mvv>i")                  \
    FN(Q_ADD, "add", dra_cel_q_q_add, ONE, "mqq>q", "mqi>q")                                       \
    FN(Q_SUB, "sub", dra_cel_q_q_add, ONE, "mqq>q", "mqi>q")                                       \
    FN(AS_INTEGER, "asInteger", dra_cel_q_as_integer, ONE, "mq>i")                                 \
    FN(IS_INTEGER, "isInteger", dra_cel_q_is_integer, ONE, "mq>b")                                 \
    FN(AS_APPROX_FLOAT, "asApproximateFloat", dra_cel_q_as_approx_float, ONE, "mq>d")              \
    FN(SEMVER, "semver", dra_cel_sv_semver, ONE, "gs>v", "gsb>v")                                  \
    FN(IS_SEMVER, "isSemver", dra_cel_sv_semver, ONE, "gs>b", "gsb>b")                             \
    FN(MAJOR, "major", dra_cel_sv_major, ONE, "mv>i")                                              \
    FN(MINOR, "minor", dra_cel_sv_major, ONE, "mv>i")                                              \
    FN(PATCH, "patch", dra_cel_sv_major, ONE, "mv>i")                                              \
    FN(IP, "ip", dra_cel_net_call, ONE, "gs>p", "mc>p")                                            \
    FN(IS_IP, "isIP", dra_cel_net_call, ONE, "gs>b")                                               \
    FN(CIDR, "cidr", dra_cel_net_call, ONE, "gs>c")                                                \
    FN(IS_CIDR, "isCIDR", dra_cel_net_call, ONE, "gs>b")                                           \
    FN(FAMILY, "family", dra_cel_net_call, ONE, "mp>i")                                            \
    FN(IS_UNSPECIFIED, "isUnspecified", dra_cel_net_call, ONE, "mp>b")                             \
    FN(IS_LOOPBACK, "isLoopback", dra_cel_net_call, ONE, "mp>b")                                   \
    FN(IS_LL_MULTICAST, "isLinkLocalMulticast", dra_cel_net_call, ONE, "mp>b")                     \
    FN(IS_LL_UNICAST, "isLinkLocalUnicast", dra_cel_net_call, ONE, "mp>b")                         \
    FN(IS_GLOBAL_UNICAST, "isGlobalUnicast", dra_cel_net_call, ONE, "mp>b")                        \
    FN(CONTAINS_IP, "containsIP", dra_cel_net_call, ONE, "mcp>b", "mcs>b")                         \
    FN(CONTAINS_CIDR, "containsCIDR", dra_cel_net_call, ONE, "mcc>b", "mcs>b")                     \
    FN(MASKED, "masked", dra_cel_net_call, ONE, "mc>c")                                            \
    FN(PREFIX_LENGTH, "prefixLength", dra_cel_net_call, ONE, "mc>i")                               \
    FN(URL, "url", dra_cel_net_call, ONE, "gs>w")                                                  \
    FN(IS_URL, "isURL", dra_cel_net_call, ONE, "gs>b")                                             \
    FN(GET_SCHEME, "getScheme", dra_cel_net_call, ONE, "mw>s")                                     \
    FN(GET_HOST, "getHost", dra_cel_net_call, ONE, "mw>s")                                         \
    FN(GET_HOSTNAME, "getHostname", dra_cel_net_call, ONE, "mw>s")                                 \
    FN(GET_PORT, "getPort", dra_cel_net_call, ONE, "mw>s")                                         \
    FN(GET_ESCAPED_PATH, "getEscapedPath", dra_cel_net_call, ONE, "mw>s")                          \
    FN(GET_QUERY, "getQuery", dra_cel_net_call, ONE, "mw>Q")

typedef enum dra_cel_fn {
#define DRA_CEL_FN_ENUM(id, name, impl, cost, ...) DRA_CEL_FN_##id,
    DRA_CEL_FN_MAP(DRA_CEL_FN_ENUM)
#undef DRA_CEL_FN_ENUM
        DRA_CEL_FN_COUNT
} dra_cel_fn_t;

/* Static cost rules (cost.c); a, b: the estimates of the first two arguments (target first),
 * sum: the arguments' costs. */
enum {
    DRA_CEL_FC_ONE,            /* sum + 1 */
    DRA_CEL_FC_OWN,            /* a case of its own in cost.c (operators, in, indexing, ...) */
    DRA_CEL_FC_PASS,           /* sum + 1, the size of a (dyn, optional.of, value, string ...) */
    DRA_CEL_FC_STR,            /* sum + 1 + size(a)/10 */
    DRA_CEL_FC_STR_JOIN,       /* as STR with size(a) * element size(a) */
    DRA_CEL_FC_STR_REGEX,      /* sum + 1 + size(a) * size(b) / 10 */
    DRA_CEL_FC_STR_REGEX_LIST, /* as STR_REGEX, a list of up to size(a) + 1 strings */
    DRA_CEL_FC_STR_SPLIT,      /* as STR, a list of up to size(a) + 1 strings */
    DRA_CEL_FC_LIST,           /* sum + 1 + size(a) */
    DRA_CEL_FC_LIST_FLATTEN,   /* as LIST, size(a) * element size(a) elements */
    DRA_CEL_FC_LIST_PAIR,      /* sum + 1 + size(a) * size(b) */
};

const char *dra_cel_fn_name(unsigned fn);
unsigned dra_cel_fn_lookup(const char *name, size_t len);

/* ---- environment ---------------------------------------------------------------------------- */

typedef struct dra_cel_var {
    const char *name;
    const dra_cel_type_t *type;
} dra_cel_var_t;

typedef struct dra_cel_env {
    const dra_cel_var_t *vars; /* global variables; vars[0] is `device` in the DRA environment */
    uint32_t nvars;
    bool dra;          /* DRA environment: device variable, result must be bool or dyn */
    bool derived;      /* with dra: a derived attribute (DRADerivedAttributes): the result is an
                          attribute value, a string, int, bool or semver or a list of these */
    bool homogeneous;  /* homogeneous aggregate literals (Kubernetes) */
    bool no_macros;    /* parse without macro expansion */
    bool no_check;     /* skip type checking (conformance disable_check) */
    bool no_fold;      /* no constant folding */
    uint64_t cost_limit; /* runtime cost budget; 0 = DRA_CEL_MAX_COST (DRA) or 10^9 (standard) */
} dra_cel_env_t;

/* Per-model cache of the interned ids of the program's qualified names (seqlock: readers never
 * block; a writer that loses the race simply does not fill the cache). */
typedef struct dra_cel_qcache {
    _Atomic uint32_t seq;               /* odd while being written */
    _Atomic uint64_t model_uid;         /* dra_model_t.uid the ids belong to (0 = none) */
    _Atomic uint32_t intern_count;      /* its intern table size when resolved */
    _Atomic uint32_t *ids;              /* per reference; 0 = name not interned */
} dra_cel_qcache_t;

struct dra_cel_prog {
    const char *src;
    uint32_t len;
    dra_cel_expr_t *root;
    uint32_t nslots; /* local variable slots needed by the evaluator */
    const dra_cel_env_t *env;
    dra_cel_ref_t *refs;
    uint32_t nrefs;
    bool dynamic_refs;
    dra_cel_qcache_t *qc; /* NULL when nrefs == 0 */
};

/* Compile in a given environment (env NULL = the DRA environment). */
int dra_cel_compile_env(const char *src, size_t len, const dra_cel_env_t *env, dra_arena_t *arena,
                        dra_cel_prog_t **out, dra_diag_t *diag);

/* The device that the evaluator sees: either a model device or nothing (standard CEL mode). */
typedef struct dra_cel_act {
    const dra_model_t *model;
    const dra_device_t *dev;
    const dra_cel_val_t *globals; /* values of env->vars[i] (index 0 ignored in DRA mode) */
} dra_cel_act_t;

/* Evaluate to a value (any type). The result and anything it references live in `out`. */
int dra_cel_eval_value(const dra_cel_prog_t *p, const dra_cel_act_t *act, dra_arena_t *out,
                       dra_cel_val_t *result, dra_diag_t *diag);

/* Parsing (parse.c): builds the unchecked AST. */
int dra_cel_parse(const char *src, size_t len, const dra_cel_env_t *env, dra_arena_t *arena,
                  dra_cel_expr_t **out, dra_diag_t *diag);
/* Checking (check.c): resolves names and functions, annotates types, folds constants, rewrites
 * device reads to DEVREF nodes; fills p->nslots and p->refs. */
int dra_cel_check(dra_cel_prog_t *p, dra_arena_t *arena, dra_diag_t *diag);

/* Position helpers. */
void dra_cel_offset_to_linecol(const char *src, size_t len, uint32_t off, uint32_t *line,
                               uint32_t *col);
int dra_cel_compile_error(dra_diag_t *diag, const char *src, size_t len, uint32_t off,
                          const char *fmt, ...) DRA_PRINTF(5, 6);

/* ---- types ---------------------------------------------------------------------------------- */
extern const dra_cel_type_t dra_cel_t_dyn, dra_cel_t_null, dra_cel_t_bool, dra_cel_t_int,
    dra_cel_t_uint, dra_cel_t_double, dra_cel_t_string, dra_cel_t_bytes, dra_cel_t_quantity,
    dra_cel_t_semver, dra_cel_t_device, dra_cel_t_list_dyn, dra_cel_t_map_dyn, dra_cel_t_type,
    dra_cel_t_error, dra_cel_t_timestamp, dra_cel_t_duration, dra_cel_t_ip, dra_cel_t_cidr,
    dra_cel_t_url;
/* Type name as cel-go prints it ("list(int)", "map(string, dyn)", "kubernetes.Quantity"). */
size_t dra_cel_type_str(const dra_cel_type_t *t, char *buf, size_t len);

/* ---- values (eval.c / lib.c) ---------------------------------------------------------------- */

/* Evaluation context. */
typedef struct dra_cel_ctx {
    const dra_cel_prog_t *prog;
    const dra_cel_act_t *act;
    dra_arena_t *a;         /* allocation arena for values */
    dra_cel_val_t *slots;   /* local variables */
    uint64_t cost;
    uint64_t cost_limit;
    bool oom;
} dra_cel_ctx_t;

dra_cel_val_t dra_cel_err(dra_cel_ctx_t *c, const char *fmt, ...) DRA_PRINTF(2, 3);
dra_cel_val_t dra_cel_eval_node(dra_cel_ctx_t *c, const dra_cel_expr_t *e);
/* Call a library function on evaluated arguments (target first for member calls). */
dra_cel_val_t dra_cel_call_fn(dra_cel_ctx_t *c, const dra_cel_expr_t *e, unsigned fn,
                              const dra_cel_val_t *args, uint32_t nargs, bool member);
/* Equality (value.c): 1 true, 0 false, -1 no such overload (Quantity/Semver on the left vs
 * other). */
int dra_cel_equal(const dra_cel_val_t *a, const dra_cel_val_t *b);
/* Device views (device.c). */
dra_cel_val_t dra_cel_materialize(dra_cel_ctx_t *c, const dra_cel_val_t *v);
dra_cel_val_t dra_cel_attr_value(dra_cel_ctx_t *c, const dra_attr_t *at);
/* Attribute (cap false) or capacity `dom`/`id` of the device; *found false when absent. */
dra_cel_val_t dra_cel_dev_lookup(dra_cel_ctx_t *c, bool cap, const char *dom, uint32_t dlen,
                                 const char *id, uint32_t idlen, bool *found);
/* Map lookup with numeric key equivalence, -1 when absent (value.c). */
int dra_cel_map_find(const dra_cel_map_t *m, const dra_cel_val_t *k);
/* Ordering: -1/0/1, 2 unordered (NaN), 3 no such overload. */
int dra_cel_order(const dra_cel_val_t *a, const dra_cel_val_t *b);
/* Render a value as CEL-like text into arena (NUL-terminated). */
const char *dra_cel_val_str(dra_arena_t *a, const dra_cel_val_t *v);
const char *dra_cel_kind_type_name(const dra_cel_val_t *v);

/* Value constructors. */
static inline dra_cel_val_t dra_cel_bool(bool b)
{
    dra_cel_val_t v = {.kind = DRA_CEL_BOOL};
    v.v.b = b;
    return v;
}
static inline dra_cel_val_t dra_cel_int(int64_t i)
{
    dra_cel_val_t v = {.kind = DRA_CEL_INT};
    v.v.i = i;
    return v;
}
static inline dra_cel_val_t dra_cel_uint(uint64_t u)
{
    dra_cel_val_t v = {.kind = DRA_CEL_UINT};
    v.v.u = u;
    return v;
}
static inline dra_cel_val_t dra_cel_double(double d)
{
    dra_cel_val_t v = {.kind = DRA_CEL_DOUBLE};
    v.v.d = d;
    return v;
}
static inline dra_cel_val_t dra_cel_str(const char *s, size_t len)
{
    dra_cel_val_t v = {.kind = DRA_CEL_STRING, .len = (uint32_t)len};
    v.v.s = s;
    return v;
}
static inline dra_cel_val_t dra_cel_typeval(const char *name)
{
    dra_cel_val_t v = {.kind = DRA_CEL_TYPE};
    v.v.s = name;
    size_t n = 0;
    while (name[n])
        n++;
    v.len = (uint32_t)n;
    return v;
}

/* Regex (regex.c): compile a pattern with an arena-backed PCRE2 context. NULL + message on error. */
const void *dra_cel_regex_compile(dra_arena_t *a, const char *pat, size_t len, char *errbuf,
                                  size_t errlen);
/* 1 match, 0 no match, -1 error (message in errbuf). Captures: start/end of the whole match. */
int dra_cel_regex_search(dra_arena_t *a, const void *re, const char *s, size_t len, size_t start,
                         size_t *mstart, size_t *mend, char *errbuf, size_t errlen);

/* Kubernetes IP / CIDR / URL libraries (netlib.c). Returns true when fn is one of them (and
 * *out is set). */
bool dra_cel_netlib_call(dra_cel_ctx_t *c, unsigned fn, const dra_cel_val_t *a, uint32_t n,
                         dra_cel_val_t *out);

/* Marker in call.aux of an `@in` call whose list is a constant of primitive values: membership
 * is cel-go's set lookup (values equal as Go values, plus the lossless int/uint forms of an
 * integral double element and the double / int / uint forms of an integer element). */
extern const char dra_cel_in_set;

/* Go strconv conversions for int(string) / uint(string) / double(string) (strconv.c): the
 * input is length-delimited (a NUL byte is an invalid character). Return DRA_CEL_CONV_OK,
 * _SYNTAX, _RANGE or (parse_float only, for a long input copied to the arena) _NOMEM. */
enum { DRA_CEL_CONV_OK = 0, DRA_CEL_CONV_SYNTAX, DRA_CEL_CONV_RANGE, DRA_CEL_CONV_NOMEM };
int dra_cel_go_parse_int(const char *s, size_t n, int64_t *out);
int dra_cel_go_parse_uint(const char *s, size_t n, uint64_t *out);
int dra_cel_go_parse_float(dra_arena_t *a, const char *s, size_t n, double *out);

/* Cost units charged per operation. */
#define DRA_CEL_COST_ERR_MSG "operation cancelled: actual cost limit exceeded"

#endif /* DRA_CEL_INT_H */
