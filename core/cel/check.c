/*
 * check.c - CEL type checker for the DRA environment (and a standard-CEL mode used by the
 * conformance suite): resolves identifiers to variable slots, resolves function names, infers
 * types and reports cel-go-like compile errors ("undeclared reference to 'x' (in container '')",
 * "found no matching overload for '_>_' applied to '(kubernetes.Semver, kubernetes.Semver)'",
 * "undefined field 'x'", "expected type 'int' but found 'string'"). It also folds constant calls
 * (quantity("40Gi"), constant list literals), precompiles constant regular expressions and
 * rewrites constant device attribute / capacity reads into DEVREF nodes.
 *
 * Overloads (the last column of DRA_CEL_FN_MAP in cel_int.h) are small signature strings: style
 * ('g' global, 'm' member: the first type code is the receiver), argument type codes, '>' and the
 * result code. Codes: b bool, i int, u uint, d double, s string, y bytes, q Quantity, v Semver,
 * P timestamp, D duration, N null, A any, L list(any), M map(any, any), O optional(any), t type;
 * result codes also: 1 the type of the first argument, e element type of the first argument,
 * Z list(string), x dyn.
 */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "cel_int.h"

const dra_cel_type_t dra_cel_t_dyn = {DRA_CEL_T_DYN, NULL, NULL};
const dra_cel_type_t dra_cel_t_null = {DRA_CEL_T_NULL, NULL, NULL};
const dra_cel_type_t dra_cel_t_bool = {DRA_CEL_T_BOOL, NULL, NULL};
const dra_cel_type_t dra_cel_t_int = {DRA_CEL_T_INT, NULL, NULL};
const dra_cel_type_t dra_cel_t_uint = {DRA_CEL_T_UINT, NULL, NULL};
const dra_cel_type_t dra_cel_t_double = {DRA_CEL_T_DOUBLE, NULL, NULL};
const dra_cel_type_t dra_cel_t_string = {DRA_CEL_T_STRING, NULL, NULL};
const dra_cel_type_t dra_cel_t_bytes = {DRA_CEL_T_BYTES, NULL, NULL};
const dra_cel_type_t dra_cel_t_quantity = {DRA_CEL_T_QUANTITY, NULL, NULL};
const dra_cel_type_t dra_cel_t_semver = {DRA_CEL_T_SEMVER, NULL, NULL};
const dra_cel_type_t dra_cel_t_device = {DRA_CEL_T_DEVICE, NULL, NULL};
const dra_cel_type_t dra_cel_t_list_dyn = {DRA_CEL_T_LIST, &dra_cel_t_dyn, NULL};
const dra_cel_type_t dra_cel_t_map_dyn = {DRA_CEL_T_MAP, &dra_cel_t_dyn, &dra_cel_t_dyn};
const dra_cel_type_t dra_cel_t_type = {DRA_CEL_T_TYPE, NULL, NULL};
const dra_cel_type_t dra_cel_t_error = {DRA_CEL_T_ERROR, NULL, NULL};
const dra_cel_type_t dra_cel_t_timestamp = {DRA_CEL_T_TIMESTAMP, NULL, NULL};
const dra_cel_type_t dra_cel_t_duration = {DRA_CEL_T_DURATION, NULL, NULL};
const dra_cel_type_t dra_cel_t_ip = {DRA_CEL_T_IP, NULL, NULL};
const dra_cel_type_t dra_cel_t_cidr = {DRA_CEL_T_CIDR, NULL, NULL};
const dra_cel_type_t dra_cel_t_url = {DRA_CEL_T_URL, NULL, NULL};
static const dra_cel_type_t t_map_query = {DRA_CEL_T_MAP, &dra_cel_t_string, &(const dra_cel_type_t){DRA_CEL_T_LIST, &dra_cel_t_string, NULL}};
static const dra_cel_type_t t_opt_dyn = {DRA_CEL_T_OPTIONAL, &dra_cel_t_dyn, NULL};
static const dra_cel_type_t t_list_string = {DRA_CEL_T_LIST, &dra_cel_t_string, NULL};
static const dra_cel_type_t t_inner_attrs = {DRA_CEL_T_MAP, &dra_cel_t_string, &dra_cel_t_dyn};
static const dra_cel_type_t t_inner_caps = {DRA_CEL_T_MAP, &dra_cel_t_string, &dra_cel_t_quantity};
static const dra_cel_type_t t_attrs = {DRA_CEL_T_MAP, &dra_cel_t_string, &t_inner_attrs};
static const dra_cel_type_t t_caps = {DRA_CEL_T_MAP, &dra_cel_t_string, &t_inner_caps};


/* Signatures per function: the overloads column of DRA_CEL_FN_MAP (s[0] NULL = typed by custom
 * code). */
typedef struct sigs {
    const char *s[16];
} sigs_t;

static const sigs_t sig_table[DRA_CEL_FN_COUNT] = {
#define DRA_CEL_FN_SIGS(id, name, impl, cost, ...) [DRA_CEL_FN_##id] = {{__VA_ARGS__}},
    DRA_CEL_FN_MAP(DRA_CEL_FN_SIGS)
#undef DRA_CEL_FN_SIGS
};

/* ---- type helpers --------------------------------------------------------------------------- */

typedef struct scope_var {
    const char *name;
    int32_t slot;
    const dra_cel_type_t *type;
} scope_var_t;

typedef struct checker {
    dra_cel_prog_t *prog;
    const dra_cel_env_t *env;
    dra_arena_t *a;
    dra_diag_t *diag;
    scope_var_t *scope;
    uint32_t nscope, cap_scope;
    int32_t nslots_live, max_slots;
    bool failed;
    dra_cel_type_t **trail; /* type variables bound, in order (undone when a unification fails) */
    uint32_t ntrail, cap_trail;
    uint32_t dev_maps;  /* device.attributes / device.capacity reads seen */
    uint32_t dev_refs;  /* ... of which were turned into DEVREF nodes */
    uint32_t cap_refs;
    /* The first failing fold of a constant conversion ("program instantiation failed"): cel-go
     * builds the program only after the whole expression checked, so a type error anywhere
     * (and the DRA result-type rule) wins over it; reported at the end of dra_cel_check. */
    bool inst_failed;
    uint32_t inst_off;
    char inst_msg[300];
} checker_t;

static void cerr(checker_t *c, uint32_t off, const char *fmt, ...) DRA_PRINTF(3, 4);
static void cerr(checker_t *c, uint32_t off, const char *fmt, ...)
{
    if (c->failed)
        return;
    c->failed = true;
    char body[400];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(body, sizeof body, fmt, ap);
    va_end(ap);
    dra_cel_compile_error(c->diag, c->prog->src, c->prog->len, off, "%s", body);
}

static const dra_cel_type_t *mk(checker_t *c, uint8_t k, const dra_cel_type_t *p1,
                                const dra_cel_type_t *p2)
{
    dra_cel_type_t *t = dra_arena_alloc(c->a, sizeof *t, _Alignof(dra_cel_type_t));
    if (!t) {
        c->failed = true;
        return &dra_cel_t_dyn;
    }
    t->k = k;
    t->p1 = p1;
    t->p2 = p2;
    return t;
}

size_t dra_cel_type_str(const dra_cel_type_t *t, char *buf, size_t len)
{
    char a[128], b[128];
    while (t && t->k == DRA_CEL_T_VAR && t->p1)
        t = t->p1;
    if (!t)
        return (size_t)snprintf(buf, len, "dyn");
    switch (t->k) {
    case DRA_CEL_T_DYN:
    case DRA_CEL_T_VAR: return (size_t)snprintf(buf, len, "dyn");
    case DRA_CEL_T_NULL: return (size_t)snprintf(buf, len, "null_type");
    case DRA_CEL_T_BOOL: return (size_t)snprintf(buf, len, "bool");
    case DRA_CEL_T_INT: return (size_t)snprintf(buf, len, "int");
    case DRA_CEL_T_UINT: return (size_t)snprintf(buf, len, "uint");
    case DRA_CEL_T_DOUBLE: return (size_t)snprintf(buf, len, "double");
    case DRA_CEL_T_STRING: return (size_t)snprintf(buf, len, "string");
    case DRA_CEL_T_BYTES: return (size_t)snprintf(buf, len, "bytes");
    case DRA_CEL_T_LIST:
        dra_cel_type_str(t->p1, a, sizeof a);
        return (size_t)snprintf(buf, len, "list(%s)", a);
    case DRA_CEL_T_MAP:
        dra_cel_type_str(t->p1, a, sizeof a);
        dra_cel_type_str(t->p2, b, sizeof b);
        return (size_t)snprintf(buf, len, "map(%s, %s)", a, b);
    case DRA_CEL_T_TYPE:
        if (!t->p1)
            return (size_t)snprintf(buf, len, "type");
        dra_cel_type_str(t->p1, a, sizeof a);
        return (size_t)snprintf(buf, len, "type(%s)", a);
    case DRA_CEL_T_OPTIONAL:
        dra_cel_type_str(t->p1, a, sizeof a);
        return (size_t)snprintf(buf, len, "optional_type(%s)", a);
    case DRA_CEL_T_QUANTITY: return (size_t)snprintf(buf, len, "kubernetes.Quantity");
    case DRA_CEL_T_SEMVER: return (size_t)snprintf(buf, len, "kubernetes.Semver");
    case DRA_CEL_T_DEVICE: return (size_t)snprintf(buf, len, "kubernetes.DRADevice");
    case DRA_CEL_T_TIMESTAMP: return (size_t)snprintf(buf, len, "google.protobuf.Timestamp");
    case DRA_CEL_T_DURATION: return (size_t)snprintf(buf, len, "google.protobuf.Duration");
    case DRA_CEL_T_IP: return (size_t)snprintf(buf, len, "net.IP");
    case DRA_CEL_T_CIDR: return (size_t)snprintf(buf, len, "net.CIDR");
    case DRA_CEL_T_URL: return (size_t)snprintf(buf, len, "kubernetes.URL");
    default: return (size_t)snprintf(buf, len, "*error*");
    }
}

/* ---- type variables ---------------------------------------------------------------------------
 * As cel-go, the checker gives `[]`, `{}` and the accumulators of map()/filter() (and the
 * other list/map building macros) fresh type variables: `[[], [1]]` is list(list(int)) and
 * `[0, [][3]]` is list(int), so homogeneous literals accept them. A variable is bound (p1) by
 * unification where cel-go's isAssignable would bind it (equality, conditional branches,
 * aggregate literal elements, `in`, map index, list concatenation, the accumulator step);
 * variables still free at the end become dyn. */

static const dra_cel_type_t *resolve(const dra_cel_type_t *t)
{
    while (t && t->k == DRA_CEL_T_VAR && t->p1)
        t = t->p1;
    return t;
}

static const dra_cel_type_t *new_var(checker_t *c)
{
    return mk(c, DRA_CEL_T_VAR, NULL, NULL);
}

static bool is_dyn(const dra_cel_type_t *t)
{
    t = resolve(t);
    return !t || t->k == DRA_CEL_T_DYN || t->k == DRA_CEL_T_ERROR || t->k == DRA_CEL_T_VAR;
}

static bool occurs(const dra_cel_type_t *v, const dra_cel_type_t *t)
{
    t = resolve(t);
    if (!t)
        return false;
    if (t == v)
        return true;
    return (t->p1 && t->k != DRA_CEL_T_VAR && occurs(v, t->p1)) || (t->p2 && occurs(v, t->p2));
}

static bool bind_var(checker_t *c, const dra_cel_type_t *v, const dra_cel_type_t *t)
{
    if (occurs(v, t))
        return false;
    if (c->ntrail == c->cap_trail) {
        uint32_t nc = c->cap_trail ? c->cap_trail * 2 : 32;
        dra_cel_type_t **nt = dra_arena_alloc(c->a, nc * sizeof *nt, 8);
        if (!nt) {
            c->failed = true;
            return false;
        }
        if (c->ntrail)
            memcpy(nt, c->trail, c->ntrail * sizeof *nt);
        c->trail = nt;
        c->cap_trail = nc;
    }
    dra_cel_type_t *w = (dra_cel_type_t *)(uintptr_t)v; /* variables are checker-allocated */
    w->p1 = t;
    c->trail[c->ntrail++] = w;
    return true;
}

static bool unify_rec(checker_t *c, const dra_cel_type_t *a, const dra_cel_type_t *b)
{
    a = resolve(a);
    b = resolve(b);
    if (a == b)
        return true;
    if (a && a->k == DRA_CEL_T_VAR)
        return bind_var(c, a, b ? b : &dra_cel_t_dyn);
    if (b && b->k == DRA_CEL_T_VAR)
        return bind_var(c, b, a ? a : &dra_cel_t_dyn);
    if (is_dyn(a) || is_dyn(b))
        return true;
    if (a->k == DRA_CEL_T_NULL || b->k == DRA_CEL_T_NULL)
        return a->k == b->k || a->k == DRA_CEL_T_OPTIONAL || b->k == DRA_CEL_T_OPTIONAL ||
               a->k == DRA_CEL_T_TIMESTAMP || b->k == DRA_CEL_T_TIMESTAMP ||
               a->k == DRA_CEL_T_DURATION || b->k == DRA_CEL_T_DURATION;
    if (a->k != b->k)
        return false;
    switch (a->k) {
    case DRA_CEL_T_LIST:
    case DRA_CEL_T_OPTIONAL:
        return unify_rec(c, a->p1, b->p1);
    case DRA_CEL_T_MAP:
        return unify_rec(c, a->p1, b->p1) && unify_rec(c, a->p2, b->p2);
    default:
        return true;
    }
}

/* Can values of type a and b be compared for equality / unified? Binds type variables on
 * success; on failure no binding is left behind. */
static bool unify(checker_t *c, const dra_cel_type_t *a, const dra_cel_type_t *b)
{
    uint32_t mark = c->ntrail;
    if (unify_rec(c, a, b))
        return true;
    while (c->ntrail > mark)
        c->trail[--c->ntrail]->p1 = NULL;
    return false;
}

/* The type with every bound variable replaced by its binding and free ones by dyn. */
static const dra_cel_type_t *subst(checker_t *c, const dra_cel_type_t *t)
{
    t = resolve(t);
    if (!t || t->k == DRA_CEL_T_VAR)
        return &dra_cel_t_dyn;
    if (t->k == DRA_CEL_T_LIST || t->k == DRA_CEL_T_OPTIONAL || t->k == DRA_CEL_T_MAP ||
        t->k == DRA_CEL_T_TYPE) {
        const dra_cel_type_t *p1 = t->p1 ? subst(c, t->p1) : NULL;
        const dra_cel_type_t *p2 = t->p2 ? subst(c, t->p2) : NULL;
        if (p1 != t->p1 || p2 != t->p2)
            return mk(c, t->k, p1, p2);
    }
    return t;
}

static bool type_exact(const dra_cel_type_t *a, const dra_cel_type_t *b)
{
    a = resolve(a);
    b = resolve(b);
    if (!a || !b)
        return a == b;
    if (a->k != b->k)
        return false;
    switch (a->k) {
    case DRA_CEL_T_LIST:
    case DRA_CEL_T_OPTIONAL:
        return type_exact(a->p1, b->p1);
    case DRA_CEL_T_MAP:
        return type_exact(a->p1, b->p1) && type_exact(a->p2, b->p2);
    case DRA_CEL_T_VAR:
        return a == b;
    default:
        return true;
    }
}

/* Equivalent once substituted (free variables as dyn): cel-go's homogeneous-literal validator
 * compares the final element types. */
static bool type_equiv(checker_t *c, const dra_cel_type_t *a, const dra_cel_type_t *b)
{
    return type_exact(subst(c, a), subst(c, b));
}

/* Join of two types for list elements / conditional branches. */
static const dra_cel_type_t *join(const dra_cel_type_t *a, const dra_cel_type_t *b)
{
    if (!a)
        return b;
    if (type_exact(a, b))
        return a;
    const dra_cel_type_t *ra = resolve(a), *rb = resolve(b);
    if (ra->k == DRA_CEL_T_NULL && rb->k != DRA_CEL_T_NULL)
        return b;
    if (rb->k == DRA_CEL_T_NULL)
        return a;
    return &dra_cel_t_dyn;
}

static bool code_match(char code, const dra_cel_type_t *t)
{
    if (is_dyn(t) || code == 'A')
        return true;
    switch (code) {
    case 'b': return t->k == DRA_CEL_T_BOOL;
    case 'i': return t->k == DRA_CEL_T_INT;
    case 'u': return t->k == DRA_CEL_T_UINT;
    case 'd': return t->k == DRA_CEL_T_DOUBLE;
    case 's': return t->k == DRA_CEL_T_STRING;
    case 'y': return t->k == DRA_CEL_T_BYTES;
    case 'q': return t->k == DRA_CEL_T_QUANTITY;
    case 'v': return t->k == DRA_CEL_T_SEMVER;
    case 'P': return t->k == DRA_CEL_T_TIMESTAMP;
    case 'D': return t->k == DRA_CEL_T_DURATION;
    case 'N': return t->k == DRA_CEL_T_NULL;
    case 'L': return t->k == DRA_CEL_T_LIST;
    case 'M': return t->k == DRA_CEL_T_MAP;
    case 'O': return t->k == DRA_CEL_T_OPTIONAL;
    case 't': return t->k == DRA_CEL_T_TYPE;
    case 'p': return t->k == DRA_CEL_T_IP;
    case 'c': return t->k == DRA_CEL_T_CIDR;
    case 'w': return t->k == DRA_CEL_T_URL;
    default: return false;
    }
}

static const dra_cel_type_t *code_type(checker_t *c, char code, const dra_cel_type_t **args)
{
    switch (code) {
    case 'b': return &dra_cel_t_bool;
    case 'i': return &dra_cel_t_int;
    case 'u': return &dra_cel_t_uint;
    case 'd': return &dra_cel_t_double;
    case 's': return &dra_cel_t_string;
    case 'y': return &dra_cel_t_bytes;
    case 'q': return &dra_cel_t_quantity;
    case 'v': return &dra_cel_t_semver;
    case 'P': return &dra_cel_t_timestamp;
    case 'D': return &dra_cel_t_duration;
    case 'N': return &dra_cel_t_null;
    case 'L': return &dra_cel_t_list_dyn;
    case 'M': return &dra_cel_t_map_dyn;
    case 'O': return &t_opt_dyn;
    case 'Z': return &t_list_string;
    case 'p': return &dra_cel_t_ip;
    case 'c': return &dra_cel_t_cidr;
    case 'w': return &dra_cel_t_url;
    case 'Q': return &t_map_query;
    case 't': return mk(c, DRA_CEL_T_TYPE, args ? args[0] : NULL, NULL);
    case '1': return args && args[0] ? args[0] : &dra_cel_t_dyn;
    case 'e': {
        const dra_cel_type_t *a0 = args ? resolve(args[0]) : NULL;
        if (a0 && a0->k == DRA_CEL_T_LIST && a0->p1)
            return a0->p1;
        return &dra_cel_t_dyn;
    }
    default: return &dra_cel_t_dyn;
    }
}

/* Match one argument against a signature code; a free type variable is bound to the code's
 * type, as cel-go binds it while trying the overloads in order (`-[][3]` is an int). */
static bool code_bind(checker_t *c, char code, const dra_cel_type_t *t)
{
    t = resolve(t);
    if (!t || t->k != DRA_CEL_T_VAR)
        return code_match(code, t);
    const dra_cel_type_t *ct;
    switch (code) {
    case 'A':
    case 't': return true;
    case 'L': ct = mk(c, DRA_CEL_T_LIST, new_var(c), NULL); break;
    case 'M': ct = mk(c, DRA_CEL_T_MAP, new_var(c), new_var(c)); break;
    case 'O': ct = mk(c, DRA_CEL_T_OPTIONAL, new_var(c), NULL); break;
    default: ct = code_type(c, code, NULL); break;
    }
    return bind_var(c, t, ct);
}

static void no_overload(checker_t *c, const dra_cel_expr_t *e, const char *name,
                        const dra_cel_type_t **types, uint32_t n, bool member)
{
    char buf[300];
    size_t o = 0;
    buf[0] = 0;
    for (uint32_t i = member ? 1 : 0; i < n && o < sizeof buf - 80; i++) {
        if (i > (member ? 1u : 0u))
            o += (size_t)snprintf(buf + o, sizeof buf - o, ", ");
        o += dra_cel_type_str(types[i], buf + o, sizeof buf - o);
    }
    if (member) {
        char tb[128];
        dra_cel_type_str(types[0], tb, sizeof tb);
        cerr(c, e->offset, "found no matching overload for '%s' applied to '%s.(%s)'", name, tb,
             buf);
    } else {
        cerr(c, e->offset, "found no matching overload for '%s' applied to '(%s)'", name, buf);
    }
}

/* Resolve with the signature table; returns NULL when the function has no table entry. */
static const dra_cel_type_t *resolve_sigs(checker_t *c, const dra_cel_expr_t *e, unsigned fn,
                                          const dra_cel_type_t **types, uint32_t n, bool member,
                                          bool *known)
{
    const sigs_t *sg = fn < DRA_CEL_FN_COUNT && sig_table[fn].s[0] ? &sig_table[fn] : NULL;
    *known = sg != NULL;
    if (!sg)
        return NULL;
    const dra_cel_type_t *res = NULL;
    bool any = false, style_ok = false;
    for (int k = 0; k < 16 && sg->s[k]; k++) {
        const char *s = sg->s[k];
        if ((s[0] == 'm') != member)
            continue;
        style_ok = true;
        const char *gt = strchr(s, '>');
        uint32_t na = (uint32_t)(gt - s - 1);
        if (na != n)
            continue;
        bool ok = true;
        uint32_t mark = c->ntrail;
        for (uint32_t i = 0; i < n && ok; i++)
            ok = code_bind(c, s[1 + i], types[i]);
        if (!ok) {
            while (c->ntrail > mark)
                c->trail[--c->ntrail]->p1 = NULL;
            continue;
        }
        const dra_cel_type_t *r = code_type(c, gt[1], types);
        res = any ? join(res, r) : r;
        if (any && resolve(res)->k != resolve(r)->k)
            res = &dra_cel_t_dyn;
        any = true;
    }
    if (!any) {
        (void)style_ok;
        no_overload(c, e, dra_cel_fn_name(fn), types, n, member);
        return &dra_cel_t_error;
    }
    return res;
}

/* ---- scope ---------------------------------------------------------------------------------- */

static bool push_var(checker_t *c, const char *name, const dra_cel_type_t *t, int32_t *slot)
{
    if (c->nscope == c->cap_scope) {
        uint32_t nc = c->cap_scope ? c->cap_scope * 2 : 16;
        scope_var_t *ns = dra_arena_alloc(c->a, nc * sizeof *ns, 8);
        if (!ns) {
            c->failed = true;
            return false;
        }
        if (c->nscope)
            memcpy(ns, c->scope, c->nscope * sizeof *ns);
        c->scope = ns;
        c->cap_scope = nc;
    }
    *slot = c->nslots_live++;
    if (c->nslots_live > c->max_slots)
        c->max_slots = c->nslots_live;
    c->scope[c->nscope].name = name;
    c->scope[c->nscope].slot = *slot;
    c->scope[c->nscope].type = t;
    c->nscope++;
    return true;
}

static void pop_var(checker_t *c)
{
    c->nscope--;
    c->nslots_live--;
}

static scope_var_t *find_var(checker_t *c, const char *name)
{
    for (uint32_t i = c->nscope; i-- > 0;)
        if (!strcmp(c->scope[i].name, name))
            return &c->scope[i];
    return NULL;
}

static int find_global(checker_t *c, const char *name)
{
    for (uint32_t i = 0; i < c->env->nvars; i++)
        if (!strcmp(c->env->vars[i].name, name))
            return (int)i;
    return -1;
}

/* ---- constant folding ----------------------------------------------------------------------- */

static bool is_const(const dra_cel_expr_t *e)
{
    return e && e->kind == DRA_CEL_E_CONST;
}

static bool foldable_fn(unsigned fn)
{
    switch (fn) {
    case DRA_CEL_FN_NONE:
    case DRA_CEL_FN_LIST_APPEND:
    case DRA_CEL_FN_MAP_INSERT:
    case DRA_CEL_FN_AND:
    case DRA_CEL_FN_OR:
    case DRA_CEL_FN_COND:
        return false;
    default:
        return true;
    }
}

static bool is_conversion(unsigned fn)
{
    return fn == DRA_CEL_FN_INT || fn == DRA_CEL_FN_UINT || fn == DRA_CEL_FN_DOUBLE ||
           fn == DRA_CEL_FN_STRING || fn == DRA_CEL_FN_BYTES || fn == DRA_CEL_FN_BOOL;
}

/* A constant to cel-go's planner (an InterpretableConst): a literal, or a node folded from
 * constants of that kind by a type conversion or as an aggregate literal. Nodes folded from
 * other operations (arithmetic, string functions ...) are drabench's own optimisation and carry
 * DRA_CEL_CONST_FOLDED. An empty list literal is constant too. */
static bool go_const(const dra_cel_expr_t *e)
{
    if (e && e->kind == DRA_CEL_E_LIST && e->u.list.n == 0)
        return true;
    return is_const(e) && !(e->flags & DRA_CEL_CONST_FOLDED);
}

/* Would cel-go's OptOptimize planner turn e into a constant (decOptimize: conversions of
 * constants, list and map literals of constants)? */
static bool go_foldable(const dra_cel_expr_t *e)
{
    switch (e->kind) {
    case DRA_CEL_E_CALL:
        return (is_conversion(e->fn) || e->fn == DRA_CEL_FN_DYN || e->fn == DRA_CEL_FN_TYPE) &&
               !e->u.call.target && e->u.call.nargs == 1 && go_const(e->u.call.args[0]);
    case DRA_CEL_E_LIST:
        for (uint32_t i = 0; i < e->u.list.n; i++)
            if (e->u.list.optional[i] || !go_const(e->u.list.elems[i]))
                return false;
        return true;
    case DRA_CEL_E_MAP:
        for (uint32_t i = 0; i < e->u.map.n; i++)
            if (e->u.map.optional[i] || !go_const(e->u.map.keys[i]) || !go_const(e->u.map.vals[i]))
                return false;
        return true;
    default:
        return false;
    }
}

/* Evaluate a constant node at compile time (values live in the program arena). An error leaves
 * the node to run time, except where cel-go fails when building the program: a conversion of a
 * constant (OptOptimize folds those and reports their error as "program instantiation
 * failed", after every type error: see inst_failed); `true || uint(-(5)) == 1u` is true because
 * -(5) is not a constant to cel-go. */
static bool fold(checker_t *c, dra_cel_expr_t *e)
{
    if (c->env->no_fold)
        return false;
    bool goc = go_foldable(e);
    dra_cel_act_t act = {0};
    dra_cel_ctx_t ctx = {.prog = c->prog, .act = &act, .a = c->a, .cost_limit = DRA_CEL_MAX_COST};
    dra_cel_val_t v = dra_cel_eval_node(&ctx, e);
    if (ctx.oom) {
        c->failed = true;
        return false;
    }
    if (v.kind == DRA_CEL_ERROR) {
        if (c->env->dra && goc && e->kind == DRA_CEL_E_CALL && is_conversion(e->fn) &&
            !c->inst_failed) {
            c->inst_failed = true;
            c->inst_off = e->offset;
            snprintf(c->inst_msg, sizeof c->inst_msg, "program instantiation failed: %.*s",
                     (int)v.len, v.v.s);
        }
        return false;
    }
    const dra_cel_type_t *t = e->type;
    e->kind = DRA_CEL_E_CONST;
    e->flags = (uint8_t)(goc ? 0 : DRA_CEL_CONST_FOLDED);
    e->fn = 0;
    e->u.c = v;
    e->type = t;
    return true;
}

/* ---- checking ------------------------------------------------------------------------------- */

static const dra_cel_type_t *check(checker_t *c, dra_cel_expr_t *e);

static const dra_cel_type_t *const_type(const dra_cel_val_t *v)
{
    switch (v->kind) {
    case DRA_CEL_NULL: return &dra_cel_t_null;
    case DRA_CEL_BOOL: return &dra_cel_t_bool;
    case DRA_CEL_INT: return &dra_cel_t_int;
    case DRA_CEL_UINT: return &dra_cel_t_uint;
    case DRA_CEL_DOUBLE: return &dra_cel_t_double;
    case DRA_CEL_STRING: return &dra_cel_t_string;
    case DRA_CEL_BYTES: return &dra_cel_t_bytes;
    case DRA_CEL_QUANTITY: return &dra_cel_t_quantity;
    case DRA_CEL_SEMVER: return &dra_cel_t_semver;
    case DRA_CEL_LIST: return &dra_cel_t_list_dyn;
    case DRA_CEL_MAP: return &dra_cel_t_map_dyn;
    default: return &dra_cel_t_dyn;
    }
}

static const dra_cel_type_t t_opt_type = {DRA_CEL_T_OPTIONAL, &dra_cel_t_dyn, NULL};
static const char *const type_idents[] = {"int",   "uint", "double", "bool",      "string",
                                          "bytes", "list", "map",    "null_type", "type",
                                          "optional_type"};
static const dra_cel_type_t *const type_ident_types[] = {
    &dra_cel_t_int,    &dra_cel_t_uint,  &dra_cel_t_double,   &dra_cel_t_bool,
    &dra_cel_t_string, &dra_cel_t_bytes, &dra_cel_t_list_dyn, &dra_cel_t_map_dyn,
    &dra_cel_t_null,   &dra_cel_t_type,  &t_opt_type};

/* Is e the node `device.attributes` / `device.capacity`? Returns 1 attrs, 2 caps, 0 no. */
static int dev_map(const dra_cel_expr_t *e)
{
    if (!e || e->kind != DRA_CEL_E_SELECT || (e->flags & (DRA_CEL_SEL_TEST_ONLY | DRA_CEL_SEL_OPTIONAL)))
        return 0;
    const dra_cel_expr_t *o = e->u.sel.operand;
    if (o->kind != DRA_CEL_E_IDENT || o->u.ident.slot != -1 || o->u.ident.global != 0 ||
        !o->type || o->type->k != DRA_CEL_T_DEVICE)
        return 0;
    if (!strcmp(e->u.sel.field, "attributes"))
        return 1;
    if (!strcmp(e->u.sel.field, "capacity"))
        return 2;
    return 0;
}

/* Domain read `device.attributes["d"]` / `device.attributes.d`: sets *dom and returns 1/2. */
static int dev_domain(const dra_cel_expr_t *e, const char **dom, uint32_t *dlen)
{
    if (!e)
        return 0;
    if (e->kind == DRA_CEL_E_CALL && e->fn == DRA_CEL_FN_INDEX && e->u.call.nargs == 2 &&
        is_const(e->u.call.args[1]) && e->u.call.args[1]->u.c.kind == DRA_CEL_STRING) {
        int k = dev_map(e->u.call.args[0]);
        if (k) {
            *dom = e->u.call.args[1]->u.c.v.s;
            *dlen = e->u.call.args[1]->u.c.len;
            return k;
        }
    }
    if (e->kind == DRA_CEL_E_SELECT && !(e->flags & (DRA_CEL_SEL_TEST_ONLY | DRA_CEL_SEL_OPTIONAL))) {
        int k = dev_map(e->u.sel.operand);
        if (k) {
            *dom = e->u.sel.field;
            *dlen = (uint32_t)strlen(e->u.sel.field);
            return k;
        }
    }
    return 0;
}

static uint32_t add_ref(checker_t *c, const char *q, bool cap)
{
    dra_cel_prog_t *p = c->prog;
    for (uint32_t i = 0; i < p->nrefs; i++)
        if (p->refs[i].is_capacity == cap && !strcmp(p->refs[i].qname, q))
            return i;
    dra_cel_ref_t *nr = dra_arena_alloc(c->a, (p->nrefs + 1) * sizeof *nr, 8);
    if (!nr) {
        c->failed = true;
        return 0;
    }
    if (p->nrefs)
        memcpy(nr, p->refs, p->nrefs * sizeof *nr);
    nr[p->nrefs].qname = q;
    nr[p->nrefs].is_capacity = cap;
    p->refs = nr;
    return p->nrefs++;
}

/* Turn e (a SELECT or INDEX on a domain read with a constant id) into a DEVREF. */
static bool try_devref(checker_t *c, dra_cel_expr_t *e)
{
    const char *dom = NULL, *id = NULL;
    uint32_t dlen = 0, idlen = 0;
    int k = 0;
    bool has = false;
    if (e->kind == DRA_CEL_E_SELECT && !(e->flags & DRA_CEL_SEL_OPTIONAL)) {
        k = dev_domain(e->u.sel.operand, &dom, &dlen);
        id = e->u.sel.field;
        idlen = (uint32_t)strlen(id);
        has = e->flags & DRA_CEL_SEL_TEST_ONLY;
    } else if (e->kind == DRA_CEL_E_CALL && e->fn == DRA_CEL_FN_INDEX && is_const(e->u.call.args[1]) &&
               e->u.call.args[1]->u.c.kind == DRA_CEL_STRING) {
        k = dev_domain(e->u.call.args[0], &dom, &dlen);
        id = e->u.call.args[1]->u.c.v.s;
        idlen = e->u.call.args[1]->u.c.len;
    }
    if (!k || memchr(dom, '/', dlen) || memchr(dom, 0, dlen) || memchr(id, 0, idlen))
        return false;
    char *q = dra_arena_alloc(c->a, dlen + idlen + 2, 1);
    if (!q) {
        c->failed = true;
        return false;
    }
    memcpy(q, dom, dlen);
    q[dlen] = '/';
    memcpy(q + dlen + 1, id, idlen);
    q[dlen + 1 + idlen] = 0;
    bool cap = k == 2;
    uint32_t ref = add_ref(c, q, cap);
    c->dev_refs++;
    e->kind = DRA_CEL_E_DEVREF;
    e->flags = has ? DRA_CEL_DEV_HAS : DRA_CEL_DEV_GET;
    e->fn = 0;
    e->u.dev.domain = q;
    e->u.dev.dlen = dlen;
    e->u.dev.id = q + dlen + 1;
    e->u.dev.idlen = idlen;
    e->u.dev.qname = q;
    e->u.dev.qlen = dlen + 1 + idlen;
    e->u.dev.is_capacity = cap;
    e->u.dev.ref = ref;
    e->type = has ? &dra_cel_t_bool : cap ? &dra_cel_t_quantity : &dra_cel_t_dyn;
    return true;
}

/* The type of field selection `.f` on an operand of (resolved, non-optional) type ot, as
 * cel-go's checkSelectField: a map of any key type yields its value type (the field is a string
 * key looked up at run time: `{1: 2}.a` is the runtime error "no such key: a", `has({1: 2}.a)`
 * is false); a free type variable is bound to dyn; dyn and error stay dyn; any other type does
 * not support field selection (NULL after the error). */
static const dra_cel_type_t *select_type(checker_t *c, const dra_cel_expr_t *e,
                                         const dra_cel_type_t *ot)
{
    switch (ot->k) {
    case DRA_CEL_T_MAP: return ot->p2 ? ot->p2 : &dra_cel_t_dyn;
    case DRA_CEL_T_VAR:
        if (!bind_var(c, ot, &dra_cel_t_dyn) && c->failed)
            return NULL;
        return &dra_cel_t_dyn;
    case DRA_CEL_T_DYN:
    case DRA_CEL_T_ERROR: return &dra_cel_t_dyn;
    default: {
        if (c->env->no_check)
            return &dra_cel_t_dyn;
        char tb[128];
        dra_cel_type_str(ot, tb, sizeof tb);
        cerr(c, e->offset, "type '%s' does not support field selection", tb);
        return NULL;
    }
    }
}

static const dra_cel_type_t *check_select(checker_t *c, dra_cel_expr_t *e)
{
    const dra_cel_type_t *ot = resolve(check(c, e->u.sel.operand));
    if (c->failed)
        return ot;
    const char *f = e->u.sel.field;
    const dra_cel_type_t *r = &dra_cel_t_dyn;
    switch (ot->k) {
    case DRA_CEL_T_DEVICE:
        if (!strcmp(f, "driver"))
            r = &dra_cel_t_string;
        else if (!strcmp(f, "attributes"))
            r = &t_attrs;
        else if (!strcmp(f, "capacity"))
            r = &t_caps;
        else if (!strcmp(f, "allowMultipleAllocations"))
            r = &dra_cel_t_bool;
        else {
            cerr(c, e->offset, "undefined field '%s'", f);
            return &dra_cel_t_error;
        }
        break;
    case DRA_CEL_T_OPTIONAL: {
        /* cel-go unwraps the optional, selects on its value type and wraps the result */
        const dra_cel_type_t *in = resolve(ot->p1);
        r = select_type(c, e, in ? in : &dra_cel_t_dyn);
        if (!r)
            return &dra_cel_t_error;
        if (!(e->flags & DRA_CEL_SEL_TEST_ONLY)) {
            e->type = mk(c, DRA_CEL_T_OPTIONAL, r, NULL);
            return e->type;
        }
        break;
    }
    default:
        r = select_type(c, e, ot);
        if (!r)
            return &dra_cel_t_error;
        break;
    }
    if (e->flags & DRA_CEL_SEL_TEST_ONLY)
        r = &dra_cel_t_bool;
    else if (e->flags & DRA_CEL_SEL_OPTIONAL)
        r = mk(c, DRA_CEL_T_OPTIONAL, r, NULL);
    e->type = r;
    if (dev_map(e))
        c->dev_maps++;
    if (c->env->dra)
        try_devref(c, e);
    return e->type;
}

/* Flatten a select chain of identifiers into "a.b.c"; NULL if not such a chain. */
static bool qualified_name(const dra_cel_expr_t *e, char *buf, size_t len)
{
    if (e->kind == DRA_CEL_E_IDENT)
        return (size_t)snprintf(buf, len, "%s", e->u.ident.name) < len;
    if (e->kind == DRA_CEL_E_SELECT && !e->flags) {
        if (!qualified_name(e->u.sel.operand, buf, len))
            return false;
        size_t l = strlen(buf);
        return (size_t)snprintf(buf + l, len - l, ".%s", e->u.sel.field) < len - l;
    }
    return false;
}

/* Precompile the constant pattern of matches() / find() / findAll() into e->u.call.aux; false
 * after reporting an invalid literal pattern (DRA environment). */
static bool precompile_regex(checker_t *c, dra_cel_expr_t *e, unsigned fn, bool member, uint32_t n)
{
    if (fn != DRA_CEL_FN_MATCHES && fn != DRA_CEL_FN_FIND && fn != DRA_CEL_FN_FIND_ALL)
        return true;
    const dra_cel_expr_t *pat = e->u.call.nargs >= 1 ? e->u.call.args[member ? 0 : 1 % n] : NULL;
    if (!member && e->u.call.nargs == 2)
        pat = e->u.call.args[1];
    if (pat && is_const(pat) && pat->u.c.kind == DRA_CEL_STRING) {
        char eb[200];
        const void *re = dra_cel_regex_compile(c->a, pat->u.c.v.s, pat->u.c.len, eb, sizeof eb);
        if (re) {
            e->u.call.aux = re;
        } else if (c->env->dra) {
            cerr(c, pat->offset, "invalid regular expression literal: %s", eb);
            return false;
        }
    }
    return true;
}

/* `x in <constant list>`: cel-go's OptOptimize turns it into a set lookup (decOptimize,
 * maybeOptimizeSetMembership): `x in []` is the constant false (x is not evaluated; e becomes
 * that constant and true is returned), and a list of primitive constants is an exact lookup
 * (see dra_cel_in_set). */
static bool optimize_in(dra_cel_expr_t *e)
{
    const dra_cel_expr_t *l = e->u.call.args[1];
    if (l->kind == DRA_CEL_E_LIST || (l->u.c.kind == DRA_CEL_LIST && l->u.c.v.list->n == 0)) {
        e->kind = DRA_CEL_E_CONST;
        e->flags = 0;
        e->fn = 0;
        e->u.c = dra_cel_bool(false);
        return true;
    }
    if (l->u.c.kind == DRA_CEL_LIST) {
        bool prim = true;
        for (uint32_t i = 0; i < l->u.c.v.list->n && prim; i++) {
            uint8_t ek = l->u.c.v.list->items[i].kind;
            prim = ek == DRA_CEL_BOOL || ek == DRA_CEL_INT || ek == DRA_CEL_UINT ||
                   ek == DRA_CEL_DOUBLE || ek == DRA_CEL_STRING;
        }
        if (prim)
            e->u.call.aux = &dra_cel_in_set;
    }
    return false;
}

/* The result type of call e (function fn, named name) given its argument types (the target's
 * first when member): the overload that applies, or NULL after reporting that none does (or
 * that the arguments do not unify). Without type checking (no_check) or for an unknown
 * function, a type that never fails. */
static const dra_cel_type_t *call_overload(checker_t *c, dra_cel_expr_t *e, unsigned fn,
                                           const char *name, const dra_cel_type_t **types,
                                           uint32_t n, bool member)
{
    const dra_cel_type_t *r = &dra_cel_t_dyn;
    if (c->env->no_check || !fn) {
        /* still compute a useful type for some nodes, never fail */
        r = &dra_cel_t_dyn;
        if (fn == DRA_CEL_FN_AND || fn == DRA_CEL_FN_OR || fn == DRA_CEL_FN_NOT)
            r = &dra_cel_t_bool;
    } else {
        switch (fn) {
        case DRA_CEL_FN_AND:
        case DRA_CEL_FN_OR:
            if (member || n != 2 || !code_match('b', types[0]) || !code_match('b', types[1])) {
                no_overload(c, e, name, types, n, member);
                return NULL;
            }
            r = &dra_cel_t_bool;
            break;
        case DRA_CEL_FN_COND:
            if (!code_match('b', types[0])) {
                no_overload(c, e, name, types, n, member);
                return NULL;
            }
            if (!unify(c, types[1], types[2])) {
                no_overload(c, e, name, types, n, member);
                return NULL;
            }
            r = join(types[1], types[2]);
            break;
        case DRA_CEL_FN_EQ:
        case DRA_CEL_FN_NE:
            if (member || n != 2 || !unify(c, types[0], types[1])) {
                no_overload(c, e, name, types, n, member);
                return NULL;
            }
            r = &dra_cel_t_bool;
            break;
        case DRA_CEL_FN_INDEX:
        case DRA_CEL_FN_OPT_INDEX: {
            const dra_cel_type_t *ct = types[0], *it = types[1];
            bool opt = fn == DRA_CEL_FN_OPT_INDEX;
            if (ct->k == DRA_CEL_T_OPTIONAL) {
                opt = true;
                ct = ct->p1 ? resolve(ct->p1) : &dra_cel_t_dyn;
            }
            if (ct->k == DRA_CEL_T_VAR) {
                /* cel-go tries index_list (list(A), int) first, then index_map (map(K, V), K) */
                const dra_cel_type_t *nt = code_match('i', it)
                                               ? mk(c, DRA_CEL_T_LIST, new_var(c), NULL)
                                               : mk(c, DRA_CEL_T_MAP, new_var(c), new_var(c));
                if (bind_var(c, ct, nt))
                    ct = nt;
            }
            if (ct->k == DRA_CEL_T_LIST) {
                /* index_list is (list(A), int) only: `[1][0u]` has no matching overload */
                if (!code_match('i', it)) {
                    no_overload(c, e, name, types, n, member);
                    return NULL;
                }
                r = ct->p1 ? ct->p1 : &dra_cel_t_dyn;
            } else if (ct->k == DRA_CEL_T_MAP) {
                if (!unify(c, ct->p1, it)) {
                    no_overload(c, e, name, types, n, member);
                    return NULL;
                }
                r = ct->p2 ? ct->p2 : &dra_cel_t_dyn;
            } else if (!is_dyn(ct)) {
                no_overload(c, e, name, types, n, member);
                return NULL;
            }
            if (opt)
                r = mk(c, DRA_CEL_T_OPTIONAL, r, NULL);
            break;
        }
        case DRA_CEL_FN_IN: {
            const dra_cel_type_t *ct = types[1];
            if (ct->k == DRA_CEL_T_LIST) {
                if (!unify(c, ct->p1, types[0])) {
                    no_overload(c, e, name, types, n, member);
                    return NULL;
                }
            } else if (ct->k == DRA_CEL_T_MAP) {
                if (!unify(c, ct->p1, types[0])) {
                    no_overload(c, e, name, types, n, member);
                    return NULL;
                }
            } else if (!is_dyn(ct)) {
                no_overload(c, e, name, types, n, member);
                return NULL;
            }
            r = &dra_cel_t_bool;
            break;
        }
        case DRA_CEL_FN_DYN:
            if (member || n != 1) {
                no_overload(c, e, name, types, n, member);
                return NULL;
            }
            r = &dra_cel_t_dyn;
            break;
        case DRA_CEL_FN_LIST_APPEND:
            r = mk(c, DRA_CEL_T_LIST, types[1], NULL);
            if (types[0]->k == DRA_CEL_T_LIST && unify(c, types[0], r))
                r = types[0];
            break;
        case DRA_CEL_FN_MAP_INSERT:
            if (n == 3)
                r = mk(c, DRA_CEL_T_MAP, types[1], types[2]);
            else
                r = &dra_cel_t_map_dyn;
            if (types[0]->k == DRA_CEL_T_MAP && unify(c, types[0], r))
                r = types[0];
            break;
        case DRA_CEL_FN_ADD:
            /* list + list: both list(A) (cel-go add_list), which binds an empty list's element */
            if (!member && n == 2 && types[0]->k == DRA_CEL_T_LIST &&
                types[1]->k == DRA_CEL_T_LIST) {
                if (!unify(c, types[0], types[1])) {
                    no_overload(c, e, name, types, n, member);
                    return NULL;
                }
                r = types[0];
                break;
            }
            bool known_add;
            r = resolve_sigs(c, e, fn, types, n, member, &known_add);
            if (c->failed)
                return NULL;
            break;
        case DRA_CEL_FN_OPT_OF:
        case DRA_CEL_FN_OPT_OF_NON_ZERO:
            if (member || n != 1) {
                no_overload(c, e, name, types, n, member);
                return NULL;
            }
            r = mk(c, DRA_CEL_T_OPTIONAL, types[0], NULL);
            break;
        case DRA_CEL_FN_VALUE:
            if (!member || n != 1 || !code_match('O', types[0])) {
                no_overload(c, e, name, types, n, member);
                return NULL;
            }
            r = types[0]->k == DRA_CEL_T_OPTIONAL && types[0]->p1 ? types[0]->p1 : &dra_cel_t_dyn;
            break;
        case DRA_CEL_FN_OR_VALUE:
            if (!member || n != 2 || !code_match('O', types[0])) {
                no_overload(c, e, name, types, n, member);
                return NULL;
            }
            r = types[0]->k == DRA_CEL_T_OPTIONAL ? join(types[0]->p1, types[1]) : &dra_cel_t_dyn;
            break;
        case DRA_CEL_FN_OPT_OR:
            if (!member || n != 2 || !code_match('O', types[0]) || !code_match('O', types[1])) {
                no_overload(c, e, name, types, n, member);
                return NULL;
            }
            r = types[0];
            break;
        default: {
            bool known;
            r = resolve_sigs(c, e, fn, types, n, member, &known);
            if (!known)
                r = &dra_cel_t_dyn;
            if (c->failed)
                return NULL;
            break;
        }
        }
    }
    return r;
}

static const dra_cel_type_t *check_call(checker_t *c, dra_cel_expr_t *e)
{
    const char *name = e->u.call.name;
    dra_cel_expr_t *target = e->u.call.target;
    unsigned fn = 0;
    /* namespaced global functions: optional.of(x), strings.quote(s), sets.contains(a, b) ... */
    if (target) {
        char qn[128];
        if (qualified_name(target, qn, sizeof qn - 40)) {
            char *dot = strchr(qn, '.');
            size_t rootlen = dot ? (size_t)(dot - qn) : strlen(qn);
            char root[64];
            snprintf(root, sizeof root, "%.*s", (int)DRA_MIN(rootlen, 63u), qn);
            if (!find_var(c, root) && find_global(c, root) < 0) {
                size_t l = strlen(qn);
                snprintf(qn + l, sizeof qn - l, ".%s", name);
                unsigned f = dra_cel_fn_lookup(qn, strlen(qn));
                if (f) {
                    e->u.call.name = dra_arena_strdup(c->a, qn);
                    e->u.call.target = NULL;
                    target = NULL;
                    name = e->u.call.name;
                    fn = f;
                } else if (!c->env->no_check) {
                    cerr(c, e->offset, "undeclared reference to '%s' (in container '')", qn);
                    return &dra_cel_t_error;
                }
            }
        }
    }
    if (!fn)
        fn = dra_cel_fn_lookup(name, strlen(name));
    if (!fn || (name[0] == '@' && fn != DRA_CEL_FN_IN && fn != DRA_CEL_FN_NOT_STRICTLY_FALSE &&
                fn != DRA_CEL_FN_LIST_APPEND && fn != DRA_CEL_FN_MAP_INSERT &&
                fn != DRA_CEL_FN_SORT_BY_KEYS)) {
        if (!c->env->no_check) {
            cerr(c, e->offset, "undeclared reference to '%s' (in container '')", name);
            return &dra_cel_t_error;
        }
        fn = 0;
    }
    e->fn = (uint16_t)fn;
    uint32_t n = e->u.call.nargs + (target ? 1 : 0);
    const dra_cel_type_t *tstack[8];
    const dra_cel_type_t **types = tstack;
    if (n > 8) {
        types = dra_arena_alloc(c->a, n * sizeof *types, 8);
        if (!types) {
            c->failed = true;
            return &dra_cel_t_error;
        }
    }
    uint32_t k = 0;
    if (target)
        types[k++] = resolve(check(c, target));
    for (uint32_t i = 0; i < e->u.call.nargs; i++)
        types[k++] = resolve(check(c, e->u.call.args[i]));
    if (c->failed)
        return &dra_cel_t_error;
    bool member = target != NULL;
    const dra_cel_type_t *r = call_overload(c, e, fn, name, types, n, member);
    if (!r)
        return &dra_cel_t_error;
    e->type = r;
    if (!precompile_regex(c, e, fn, member, n))
        return &dra_cel_t_error;
    if (c->env->dra && fn == DRA_CEL_FN_INDEX && try_devref(c, e))
        return e->type;
    if (c->env->dra && fn == DRA_CEL_FN_IN && !member && e->u.call.nargs == 2 &&
        go_const(e->u.call.args[1]) && optimize_in(e))
        return e->type;
    /* constant folding */
    if (foldable_fn(fn) && (!target || is_const(target))) {
        bool all = true;
        for (uint32_t i = 0; i < e->u.call.nargs && all; i++)
            all = is_const(e->u.call.args[i]);
        if (all)
            fold(c, e);
    }
    return e->type;
}

static const dra_cel_type_t *check_compr(checker_t *c, dra_cel_expr_t *e)
{
    const dra_cel_type_t *rt = resolve(check(c, e->u.compr.range));
    const dra_cel_type_t *it = resolve(check(c, e->u.compr.init));
    if (c->failed)
        return &dra_cel_t_error;
    const dra_cel_type_t *v1 = &dra_cel_t_dyn, *v2 = &dra_cel_t_dyn;
    bool two = e->u.compr.iter_var2 != NULL;
    if (rt->k == DRA_CEL_T_LIST) {
        if (two) {
            v1 = &dra_cel_t_int;
            v2 = rt->p1 ? rt->p1 : &dra_cel_t_dyn;
        } else {
            v1 = rt->p1 ? rt->p1 : &dra_cel_t_dyn;
        }
    } else if (rt->k == DRA_CEL_T_MAP) {
        v1 = rt->p1 ? rt->p1 : &dra_cel_t_dyn;
        v2 = rt->p2 ? rt->p2 : &dra_cel_t_dyn;
    } else if (!is_dyn(rt) && !c->env->no_check) {
        char tb[128];
        dra_cel_type_str(rt, tb, sizeof tb);
        cerr(c, e->u.compr.range->offset,
             "expression of type '%s' cannot be range of a comprehension (must be list, map, or "
             "dynamic)",
             tb);
        return &dra_cel_t_error;
    }
    int32_t slot;
    if (!push_var(c, e->u.compr.accu_var, it, &slot))
        return &dra_cel_t_error;
    e->u.compr.accu_slot = slot;
    uint32_t accu_idx = c->nscope - 1;
    if (!push_var(c, e->u.compr.iter_var, v1, &slot))
        return &dra_cel_t_error;
    e->u.compr.iter_slot = slot;
    e->u.compr.iter2_slot = -1;
    if (two) {
        if (!push_var(c, e->u.compr.iter_var2, v2, &slot))
            return &dra_cel_t_error;
        e->u.compr.iter2_slot = slot;
    }
    check(c, e->u.compr.cond);
    const dra_cel_type_t *st = check(c, e->u.compr.step);
    if (two)
        pop_var(c);
    pop_var(c);
    if (!c->failed && st)
        unify(c, it, st); /* the step is assignable to the accumulator (binds `[]`'s element) */
    if (!c->failed && st && it->k == DRA_CEL_T_LIST && (!it->p1 || is_dyn(it->p1)))
        c->scope[accu_idx].type = st; /* the empty-list accumulator takes the step's type */
    if (!c->failed && st && it->k == DRA_CEL_T_MAP && is_dyn(it->p1))
        c->scope[accu_idx].type = st;
    const dra_cel_type_t *r = check(c, e->u.compr.result);
    pop_var(c);
    e->type = r;
    return r;
}

static const dra_cel_type_t *check(checker_t *c, dra_cel_expr_t *e)
{
    if (c->failed || !e)
        return &dra_cel_t_error;
    switch (e->kind) {
    case DRA_CEL_E_CONST:
        e->type = const_type(&e->u.c);
        return e->type;
    case DRA_CEL_E_IDENT: {
        const char *n = e->u.ident.name;
        scope_var_t *v = find_var(c, n);
        e->u.ident.slot = -1;
        e->u.ident.global = -1;
        if (v) {
            e->u.ident.slot = v->slot;
            e->type = v->type;
            return e->type;
        }
        int g = find_global(c, n);
        if (g >= 0) {
            e->u.ident.global = g;
            e->type = c->env->vars[g].type;
            return e->type;
        }
        for (size_t i = 0; i < DRA_ARRAY_LEN(type_idents); i++)
            if (!strcmp(type_idents[i], n)) {
                e->kind = DRA_CEL_E_CONST;
                e->u.c = dra_cel_typeval(type_idents[i]);
                e->type = mk(c, DRA_CEL_T_TYPE, type_ident_types[i], NULL);
                return e->type;
            }
        if (c->env->no_check) {
            e->type = &dra_cel_t_dyn;
            return e->type;
        }
        cerr(c, e->offset, "undeclared reference to '%s' (in container '')", n);
        return &dra_cel_t_error;
    }
    case DRA_CEL_E_SELECT: {
        /* qualified identifiers such as a.b.c bound as one global (conformance) */
        char qn[128];
        if (!(e->flags & DRA_CEL_SEL_OPTIONAL) && qualified_name(e->u.sel.operand, qn, sizeof qn - 40)) {
            char root[64];
            char *dot = strchr(qn, '.');
            snprintf(root, sizeof root, "%.*s", (int)(dot ? (size_t)(dot - qn) : strlen(qn)), qn);
            if (!find_var(c, root) && find_global(c, root) < 0) {
                size_t l = strlen(qn);
                snprintf(qn + l, sizeof qn - l, ".%s", e->u.sel.field);
                int g = find_global(c, qn);
                if (g >= 0 && !(e->flags & DRA_CEL_SEL_TEST_ONLY)) {
                    e->kind = DRA_CEL_E_IDENT;
                    e->u.ident.name = dra_arena_strdup(c->a, qn);
                    e->u.ident.slot = -1;
                    e->u.ident.global = g;
                    e->type = c->env->vars[g].type;
                    return e->type;
                }
            }
        }
        return check_select(c, e);
    }
    case DRA_CEL_E_CALL:
        return check_call(c, e);
    case DRA_CEL_E_LIST: {
        const dra_cel_type_t *et = NULL, *first = NULL;
        bool all_const = true;
        for (uint32_t i = 0; i < e->u.list.n; i++) {
            const dra_cel_type_t *t = resolve(check(c, e->u.list.elems[i]));
            if (c->failed)
                return &dra_cel_t_error;
            if (e->u.list.optional[i]) {
                all_const = false;
                if (t->k == DRA_CEL_T_OPTIONAL)
                    t = t->p1 ? t->p1 : &dra_cel_t_dyn;
                else if (!is_dyn(t) && !c->env->no_check) {
                    char tb[128];
                    dra_cel_type_str(t, tb, sizeof tb);
                    cerr(c, e->u.list.elems[i]->offset,
                         "expected type 'optional_type(T)' but found '%s'", tb);
                    return &dra_cel_t_error;
                }
            }
            if (!is_const(e->u.list.elems[i]))
                all_const = false;
            if (et)
                unify(c, et, t);
            if (c->env->homogeneous && first && !type_equiv(c, first, t) && !c->env->no_check) {
                char a[128], b[128];
                dra_cel_type_str(subst(c, first), a, sizeof a);
                dra_cel_type_str(subst(c, t), b, sizeof b);
                cerr(c, e->u.list.elems[i]->offset, "expected type '%s' but found '%s'", a, b);
                return &dra_cel_t_error;
            }
            if (!first)
                first = t;
            et = join(et, t);
        }
        e->type = mk(c, DRA_CEL_T_LIST, et ? et : new_var(c), NULL);
        if (all_const && e->u.list.n)
            fold(c, e);
        return e->type;
    }
    case DRA_CEL_E_MAP: {
        const dra_cel_type_t *kt = NULL, *vt = NULL, *fk = NULL, *fv = NULL;
        bool all_const = true;
        for (uint32_t i = 0; i < e->u.map.n; i++) {
            const dra_cel_type_t *k = resolve(check(c, e->u.map.keys[i]));
            const dra_cel_type_t *v = resolve(check(c, e->u.map.vals[i]));
            if (c->failed)
                return &dra_cel_t_error;
            if (e->u.map.optional[i]) {
                all_const = false;
                if (v->k == DRA_CEL_T_OPTIONAL)
                    v = v->p1 ? v->p1 : &dra_cel_t_dyn;
            }
            if (!c->env->no_check && !is_dyn(k) && k->k != DRA_CEL_T_INT && k->k != DRA_CEL_T_UINT &&
                k->k != DRA_CEL_T_BOOL && k->k != DRA_CEL_T_STRING) {
                char tb[128];
                dra_cel_type_str(k, tb, sizeof tb);
                cerr(c, e->u.map.keys[i]->offset, "unsupported map key type: %s", tb);
                return &dra_cel_t_error;
            }
            if (!is_const(e->u.map.keys[i]) || !is_const(e->u.map.vals[i]))
                all_const = false;
            if (kt) {
                unify(c, kt, k);
                unify(c, vt, v);
            }
            if (c->env->homogeneous && fk && !c->env->no_check) {
                const dra_cel_type_t *bad1 = !type_equiv(c, fk, k)   ? fk
                                             : !type_equiv(c, fv, v) ? fv
                                                                     : NULL;
                if (bad1) {
                    char a[128], b[128];
                    dra_cel_type_str(subst(c, bad1), a, sizeof a);
                    dra_cel_type_str(subst(c, bad1 == fk ? k : v), b, sizeof b);
                    cerr(c, (bad1 == fk ? e->u.map.keys[i] : e->u.map.vals[i])->offset,
                         "expected type '%s' but found '%s'", a, b);
                    return &dra_cel_t_error;
                }
            }
            if (!fk) {
                fk = k;
                fv = v;
            }
            kt = join(kt, k);
            vt = join(vt, v);
        }
        e->type = mk(c, DRA_CEL_T_MAP, kt ? kt : new_var(c), vt ? vt : new_var(c));
        if (all_const && e->u.map.n)
            fold(c, e);
        return e->type;
    }
    case DRA_CEL_E_COMPR:
        return check_compr(c, e);
    case DRA_CEL_E_DEVREF:
        return e->type;
    default:
        return &dra_cel_t_error;
    }
}

/* Replace every node's type by its substitution (no type variable is left in the program). */
static void subst_all(checker_t *c, dra_cel_expr_t *e)
{
    if (!e || c->failed)
        return;
    e->type = subst(c, e->type);
    switch (e->kind) {
    case DRA_CEL_E_SELECT: subst_all(c, e->u.sel.operand); break;
    case DRA_CEL_E_CALL:
        subst_all(c, e->u.call.target);
        for (uint32_t i = 0; i < e->u.call.nargs; i++)
            subst_all(c, e->u.call.args[i]);
        break;
    case DRA_CEL_E_LIST:
        for (uint32_t i = 0; i < e->u.list.n; i++)
            subst_all(c, e->u.list.elems[i]);
        break;
    case DRA_CEL_E_MAP:
        for (uint32_t i = 0; i < e->u.map.n; i++) {
            subst_all(c, e->u.map.keys[i]);
            subst_all(c, e->u.map.vals[i]);
        }
        break;
    case DRA_CEL_E_COMPR:
        subst_all(c, e->u.compr.range);
        subst_all(c, e->u.compr.init);
        subst_all(c, e->u.compr.cond);
        subst_all(c, e->u.compr.step);
        subst_all(c, e->u.compr.result);
        break;
    default: break;
    }
}

/* A derived attribute's result type (KEP-6080): a scalar attribute value or a list of one. */
static bool attr_scalar_type(const dra_cel_type_t *t)
{
    t = resolve(t);
    return is_dyn(t) || t->k == DRA_CEL_T_BOOL || t->k == DRA_CEL_T_INT ||
           t->k == DRA_CEL_T_STRING || t->k == DRA_CEL_T_SEMVER;
}

static bool attr_value_type(const dra_cel_type_t *t)
{
    t = resolve(t);
    return attr_scalar_type(t) || (t->k == DRA_CEL_T_LIST && attr_scalar_type(t->p1));
}

int dra_cel_check(dra_cel_prog_t *p, dra_arena_t *arena, dra_diag_t *diag)
{
    checker_t c = {.prog = p, .env = p->env, .a = arena, .diag = diag};
    const dra_cel_type_t *t = check(&c, p->root);
    subst_all(&c, p->root);
    t = subst(&c, t);
    if (!c.failed && p->env->dra && !p->env->no_check && !is_dyn(t) &&
        (p->env->derived ? !attr_value_type(t) : t->k != DRA_CEL_T_BOOL)) {
        char tb[128];
        dra_cel_type_str(t, tb, sizeof tb);
        if (p->env->derived)
            cerr(&c, 0, "must evaluate to a string, int, bool or semver, or a list of these, "
                        "not %s", tb);
        else
            cerr(&c, 0, "must evaluate to bool or the unknown type, not %s", tb);
    }
    if (c.inst_failed)
        cerr(&c, c.inst_off, "%s", c.inst_msg);
    if (c.failed) {
        if (diag && diag->code == DRA_OK)
            return dra_diag_set(diag, DRA_ENOMEM, NULL, 0, 0, "out of memory while checking");
        return diag ? diag->code : DRA_ECOMPILE;
    }
    p->nslots = (uint32_t)c.max_slots;
    if (p->nrefs) {
        p->qc = dra_arena_calloc(arena, 1, sizeof *p->qc, _Alignof(dra_cel_qcache_t));
        _Atomic uint32_t *ids = dra_arena_calloc(arena, p->nrefs, sizeof *ids, _Alignof(uint32_t));
        if (!p->qc || !ids)
            return dra_diag_set(diag, DRA_ENOMEM, NULL, 0, 0, "out of memory");
        atomic_init(&p->qc->seq, 0);
        atomic_init(&p->qc->model_uid, 0);
        atomic_init(&p->qc->intern_count, 0);
        for (uint32_t i = 0; i < p->nrefs; i++)
            atomic_init(&ids[i], 0);
        p->qc->ids = ids;
    }
    p->dynamic_refs = c.dev_maps > c.dev_refs;
    return DRA_OK;
}
