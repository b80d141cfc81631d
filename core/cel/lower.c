/*
 * lower.c - CEL selector -> column predicates over a device table; see lower.h.
 *
 * 1. Compile: a recursive walk over the checked AST. Each lowerable sub-expression becomes a
 *    node of a small tree (TRUE, FALSE, AND, OR, NOT, LEAF). A LEAF is bound to one column of
 *    the table and a constant already translated into the column's domain (a string id, a
 *    version rank, a fixed-point value at the column's scale). Column content decides some
 *    shapes: a leaf whose semantics would depend on per-row kinds we do not model (versions or
 *    lists in an equality column) makes the whole program unsupported.
 *    Attribute and capacity columns are dictionary-encoded (table.h): once the tree is built,
 *    each column leaf is evaluated on every dictionary entry of its column (a few to a few
 *    hundred values) into a bitmap over the codes (`lut`; for leaves whose errors depend on
 *    the value's kind also `elut`). Inexact capacity entries are compared exactly here
 *    (dra_quantity_cmp), so eval needs no per-row fix-ups.
 * 2. Eval: every node yields two bitsets (M = true rows, E = error rows; disjoint). A column
 *    leaf is one gather pass (M = lut[code]) and E = ~present (or a second gather of elut);
 *    other leaves are one kernel pass or a copy. AND / OR / NOT combine with CEL's
 *    three-valued rules, word by word:
 *       AND: M = Ma & Mb, E = (Ea | Eb) & ~(Fa | Fb)      with F = ~M & ~E (false rows)
 *       OR:  M = Ma | Mb, E = (Ea | Eb) & ~M
 *       NOT: M = ~(M | E), E = E
 *    Finally bits >= nrows are cleared and rows with an unparsable version become errors.
 * Scratch: (depth + 1) levels of three bitsets, allocated at compile time; a node at level d
 * uses level d's bitsets for its temporaries and the right child's result.
 */
#include "lower.h"

#include <stdlib.h>
#include <string.h>

#include "base/bitset.h"
#include "base/quantity.h"
#include "base/semver.h"
#include "cel_ast.h"

typedef enum nkind { N_TRUE, N_FALSE, N_AND, N_OR, N_NOT, N_LEAF } nkind_t;

typedef enum lkind {
    L_ALL_ERROR,  /* read of an attribute / capacity no device has */
    L_DRIVER_EQ,  /* driver == sid (neg: !=) */
    L_MULTI,      /* device.allowMultipleAllocations */
    L_HAS_ATTR,   /* has(attr) */
    L_HAS_CAP,    /* has(cap) */
    L_STR_EQ,     /* attr == "s" (neg: !=) */
    L_INT_EQ,     /* attr == v (neg: !=) */
    L_BOOL_EQ,    /* attr == b (neg: !=) */
    L_INT_ORD,    /* attr OP v, int rows only (other present kinds: error) */
    L_BOOL_BARE,  /* attr used as a bool */
    L_STR_IN,     /* attr in [strings] */
    L_INT_IN,     /* attr in [ints] */
    L_CAP_CMP,    /* cap OP Q */
    L_VER_CMP     /* version OP rank */
} lkind_t;

/* Comparison outcome sets of compareTo (bit 0: -1, bit 1: 0, bit 2: +1). */
#define R_LT 1u
#define R_EQ 2u
#define R_GT 4u

typedef struct lnode lnode_t;
struct lnode {
    uint8_t kind, leaf;
    bool neg;
    uint8_t rset; /* L_CAP_CMP / L_VER_CMP: outcome set of cmp(column, constant) */
    dra_kern_cmp_t op;
    const dra_table_attr_t *attr;
    const dra_table_cap_t *cap;
    uint32_t u32;     /* string id, bool value, version rank */
    bool ver_exact;   /* L_VER_CMP: the constant has the precedence of rank u32 */
    int64_t i64;      /* int constant, fixed-point units */
    uint32_t *set;    /* L_STR_IN */
    int64_t *iset;    /* L_INT_IN */
    uint32_t nset;
    dra_quantity_t q; /* L_CAP_CMP: the constant, for inexact dictionary entries */
    /* column leaves (L_STR_EQ .. L_VER_CMP), bound after compilation: the leaf evaluated on
     * every dictionary entry of the column. M = lut[code], E = elut[code] or ~present. */
    const void *code;
    uint8_t width;
    const uint64_t *present;
    uint64_t *lut, *elut;
    lnode_t *a, *b;
};

struct dra_lowered {
    const dra_table_t *t; /* the table it was lowered against */
    lnode_t *root;
    uint32_t depth, nleaves;
    size_t nwords;
    uint64_t *scratch; /* (depth + 1) * 3 * nwords */
    uint64_t *bad;     /* rows with an unparsable version, or NULL */
};

typedef struct lctx {
    const dra_table_t *t;
    dra_arena_t *a;
    uint32_t nleaves;
} lctx_t;

/* ---- compile -------------------------------------------------------------------------------- */

static bool is_call(const dra_cel_expr_t *e, const char *name, uint32_t nargs)
{
    return e->kind == DRA_CEL_E_CALL && e->u.call.nargs == nargs && e->u.call.name &&
           strcmp(e->u.call.name, name) == 0;
}

static bool is_const(const dra_cel_expr_t *e, dra_cel_kind_t k)
{
    return e->kind == DRA_CEL_E_CONST && e->u.c.kind == k;
}

static bool is_device(const dra_cel_expr_t *e)
{
    return e->kind == DRA_CEL_E_IDENT && e->u.ident.slot < 0 && e->u.ident.name &&
           strcmp(e->u.ident.name, "device") == 0;
}

static bool is_device_field(const dra_cel_expr_t *e, const char *field)
{
    return e->kind == DRA_CEL_E_SELECT && e->flags == 0 && is_device(e->u.sel.operand) &&
           strcmp(e->u.sel.field, field) == 0;
}

static bool is_attr_get(const dra_cel_expr_t *e)
{
    return e->kind == DRA_CEL_E_DEVREF && e->flags == DRA_CEL_DEV_GET && !e->u.dev.is_capacity;
}

static bool is_cap_get(const dra_cel_expr_t *e)
{
    return e->kind == DRA_CEL_E_DEVREF && e->flags == DRA_CEL_DEV_GET && e->u.dev.is_capacity;
}

static lnode_t *mk(lctx_t *c, nkind_t k)
{
    lnode_t *n = dra_arena_calloc(c->a, 1, sizeof *n, 8);
    if (n)
        n->kind = (uint8_t)k;
    return n;
}

static lnode_t *mk_leaf(lctx_t *c, lkind_t l)
{
    lnode_t *n = mk(c, N_LEAF);
    if (n) {
        n->leaf = (uint8_t)l;
        c->nleaves++;
    }
    return n;
}

/* Compile results: a node, or NULL with *rc set (DRA_EUNSUPPORTED / DRA_ENOMEM). */
#define UNSUP() do { *rc = DRA_EUNSUPPORTED; return NULL; } while (0)
#define CHECK_NODE(n) do { if (!(n)) { *rc = DRA_ENOMEM; return NULL; } } while (0)

static const dra_table_attr_t *attr_col(lctx_t *c, const dra_cel_expr_t *e)
{
    return dra_table_attr_by_name(c->t, e->u.dev.qname, e->u.dev.qlen);
}

static const dra_table_cap_t *cap_col(lctx_t *c, const dra_cel_expr_t *e)
{
    return dra_table_cap_by_name(c->t, e->u.dev.qname, e->u.dev.qlen);
}

/* Scalar-only columns (int / bool / string, any mix): mixed-type equality is plain false. */
static bool scalar_column(const dra_table_attr_t *col)
{
    uint32_t ok = (1u << DRA_ATTR_INT) | (1u << DRA_ATTR_BOOL) | (1u << DRA_ATTR_STRING);
    return (col->kinds & ~ok) == 0;
}

/* Outcome set of (x OP k) for x in {-1, 0, 1}. */
static uint8_t rset_of(dra_kern_cmp_t op, int64_t k)
{
    uint8_t r = 0;
    for (int64_t x = -1; x <= 1; x++) {
        bool v = false;
        switch (op) {
        case DRA_CMP_EQ: v = x == k; break;
        case DRA_CMP_NE: v = x != k; break;
        case DRA_CMP_LT: v = x < k; break;
        case DRA_CMP_LE: v = x <= k; break;
        case DRA_CMP_GT: v = x > k; break;
        case DRA_CMP_GE: v = x >= k; break;
        }
        if (v)
            r |= (uint8_t)(1u << (x + 1));
    }
    return r;
}

static uint8_t rset_flip(uint8_t r)
{
    return (uint8_t)((r & R_EQ) | ((r & R_LT) ? R_GT : 0) | ((r & R_GT) ? R_LT : 0));
}

static bool op_of(const char *name, dra_kern_cmp_t *op)
{
    static const struct {
        const char *n;
        dra_kern_cmp_t op;
    } ops[] = {{"_==_", DRA_CMP_EQ}, {"_!=_", DRA_CMP_NE}, {"_<_", DRA_CMP_LT},
               {"_<=_", DRA_CMP_LE}, {"_>_", DRA_CMP_GT},  {"_>=_", DRA_CMP_GE}};
    for (size_t i = 0; i < DRA_ARRAY_LEN(ops); i++) {
        if (strcmp(name, ops[i].n) == 0) {
            *op = ops[i].op;
            return true;
        }
    }
    return false;
}

/* x OP y == y OP' x */
static dra_kern_cmp_t op_swap(dra_kern_cmp_t op)
{
    switch (op) {
    case DRA_CMP_LT: return DRA_CMP_GT;
    case DRA_CMP_LE: return DRA_CMP_GE;
    case DRA_CMP_GT: return DRA_CMP_LT;
    case DRA_CMP_GE: return DRA_CMP_LE;
    default: return op;
    }
}

/* A constant semver: folded CONST, or semver("...") not folded. */
static bool const_semver(const dra_cel_expr_t *e, dra_semver_t *out)
{
    if (is_const(e, DRA_CEL_SEMVER)) {
        if (!e->u.c.v.sv)
            return false;
        memcpy(out, (const void *)e->u.c.v.sv, sizeof *out);
        return true;
    }
    if (e->kind == DRA_CEL_E_CALL && e->u.call.name && strcmp(e->u.call.name, "semver") == 0 &&
        !e->u.call.target && (e->u.call.nargs == 1 || e->u.call.nargs == 2) &&
        is_const(e->u.call.args[0], DRA_CEL_STRING)) {
        bool lenient = false;
        if (e->u.call.nargs == 2) {
            if (!is_const(e->u.call.args[1], DRA_CEL_BOOL))
                return false;
            lenient = e->u.call.args[1]->u.c.v.b;
        }
        const dra_cel_val_t *s = &e->u.call.args[0]->u.c;
        return dra_semver_parse(s->v.s, s->len, lenient, out, NULL) == DRA_OK;
    }
    return false;
}

/* cmp(column value, constant) in outcome set rset: capacity or version leaf. */
static lnode_t *cmp_leaf(lctx_t *c, const dra_cel_expr_t *col, const dra_cel_expr_t *k,
                         uint8_t rset, int *rc)
{
    if (is_cap_get(col) && is_const(k, DRA_CEL_QUANTITY)) {
        const dra_table_cap_t *cc = cap_col(c, col);
        if (!cc) {
            lnode_t *n = mk_leaf(c, L_ALL_ERROR);
            CHECK_NODE(n);
            return n;
        }
        int64_t u;
        if (!dra_quantity_to_fixed(k->u.c.v.q, &u, cc->scale))
            UNSUP();
        lnode_t *n = mk_leaf(c, L_CAP_CMP);
        CHECK_NODE(n);
        n->cap = cc;
        n->i64 = u;
        n->q = *k->u.c.v.q;
        n->rset = rset;
        return n;
    }
    dra_semver_t sv;
    if (is_attr_get(col) && const_semver(k, &sv)) {
        const dra_table_attr_t *ac = attr_col(c, col);
        if (!ac) {
            lnode_t *n = mk_leaf(c, L_ALL_ERROR);
            CHECK_NODE(n);
            return n;
        }
        lnode_t *n = mk_leaf(c, L_VER_CMP);
        CHECK_NODE(n);
        n->attr = ac;
        n->rset = rset;
        dra_table_version_locate(c->t, &sv, &n->u32, &n->ver_exact);
        return n;
    }
    UNSUP();
}

/* receiver.compareTo(arg) as a leaf with outcome set rset (for receiver vs arg). */
static lnode_t *compare_call(lctx_t *c, const dra_cel_expr_t *call, uint8_t rset, int *rc)
{
    const dra_cel_expr_t *recv = call->u.call.target, *arg = call->u.call.args[0];
    if (!recv)
        UNSUP();
    if (recv->kind == DRA_CEL_E_DEVREF)
        return cmp_leaf(c, recv, arg, rset, rc);
    if (arg->kind == DRA_CEL_E_DEVREF)
        return cmp_leaf(c, arg, recv, rset_flip(rset), rc);
    UNSUP();
}

static lnode_t *eq_leaf(lctx_t *c, const dra_cel_expr_t *x, const dra_cel_expr_t *k, bool neg,
                        int *rc)
{
    if (is_device_field(x, "driver") && is_const(k, DRA_CEL_STRING)) {
        lnode_t *n = mk_leaf(c, L_DRIVER_EQ);
        CHECK_NODE(n);
        n->u32 = dra_table_str_find(c->t, k->u.c.v.s, k->u.c.len);
        n->neg = neg;
        return n;
    }
    if (is_cap_get(x) && is_const(k, DRA_CEL_QUANTITY))
        return cmp_leaf(c, x, k, neg ? (R_LT | R_GT) : R_EQ, rc);
    if (!is_attr_get(x))
        UNSUP();
    const dra_table_attr_t *col = attr_col(c, x);
    if (!col) {
        lnode_t *n = mk_leaf(c, L_ALL_ERROR);
        CHECK_NODE(n);
        return n;
    }
    if (!scalar_column(col))
        UNSUP();
    lnode_t *n;
    if (is_const(k, DRA_CEL_STRING)) {
        n = mk_leaf(c, L_STR_EQ);
        CHECK_NODE(n);
        n->u32 = dra_table_str_find(c->t, k->u.c.v.s, k->u.c.len);
    } else if (is_const(k, DRA_CEL_INT)) {
        n = mk_leaf(c, L_INT_EQ);
        CHECK_NODE(n);
        n->i64 = k->u.c.v.i;
    } else if (is_const(k, DRA_CEL_BOOL)) {
        n = mk_leaf(c, L_BOOL_EQ);
        CHECK_NODE(n);
        n->u32 = k->u.c.v.b ? 1u : 0u;
    } else {
        UNSUP();
    }
    n->attr = col;
    n->neg = neg;
    return n;
}

static lnode_t *lower(lctx_t *c, const dra_cel_expr_t *e, uint32_t depth, uint32_t *maxdepth,
                      int *rc);

static lnode_t *lower_binop(lctx_t *c, const dra_cel_expr_t *e, nkind_t k, uint32_t depth,
                            uint32_t *maxdepth, int *rc)
{
    lnode_t *n = mk(c, k);
    CHECK_NODE(n);
    n->a = lower(c, e->u.call.args[0], depth + 1, maxdepth, rc);
    if (!n->a)
        return NULL;
    n->b = lower(c, e->u.call.args[1], depth + 1, maxdepth, rc);
    if (!n->b)
        return NULL;
    return n;
}

static lnode_t *lower_in(lctx_t *c, const dra_cel_expr_t *x, const dra_cel_expr_t *lst, int *rc)
{
    if (!is_attr_get(x))
        UNSUP();
    /* the list: a folded constant list, or a list literal of constants */
    uint32_t n = 0;
    const dra_cel_val_t *vals = NULL;
    const dra_cel_val_t **pv = NULL;
    if (is_const(lst, DRA_CEL_LIST)) {
        if (!lst->u.c.v.list)
            UNSUP();
        n = lst->u.c.v.list->n;
        vals = lst->u.c.v.list->items;
    } else if (lst->kind == DRA_CEL_E_LIST) {
        n = lst->u.list.n;
        pv = dra_arena_calloc(c->a, n + 1, sizeof *pv, 8);
        CHECK_NODE(pv);
        for (uint32_t i = 0; i < n; i++) {
            if (lst->u.list.elems[i]->kind != DRA_CEL_E_CONST ||
                (lst->u.list.optional && lst->u.list.optional[i]))
                UNSUP();
            pv[i] = &lst->u.list.elems[i]->u.c;
        }
    } else {
        UNSUP();
    }
    bool all_str = true, all_int = true;
    for (uint32_t i = 0; i < n; i++) {
        const dra_cel_val_t *v = vals ? &vals[i] : pv[i];
        all_str &= v->kind == DRA_CEL_STRING;
        all_int &= v->kind == DRA_CEL_INT;
    }
    if (!all_str && !all_int)
        UNSUP();
    const dra_table_attr_t *col = attr_col(c, x);
    if (!col) {
        lnode_t *l = mk_leaf(c, L_ALL_ERROR);
        CHECK_NODE(l);
        return l;
    }
    if (!scalar_column(col))
        UNSUP();
    lnode_t *l = mk_leaf(c, all_str ? L_STR_IN : L_INT_IN);
    CHECK_NODE(l);
    l->attr = col;
    if (all_str) {
        l->set = dra_arena_calloc(c->a, n + 1, sizeof *l->set, 8);
        CHECK_NODE(l->set);
    } else {
        l->iset = dra_arena_calloc(c->a, n + 1, sizeof *l->iset, 8);
        CHECK_NODE(l->iset);
    }
    for (uint32_t i = 0; i < n; i++) {
        const dra_cel_val_t *v = vals ? &vals[i] : pv[i];
        if (all_str) {
            uint32_t id = dra_table_str_find(c->t, v->v.s, v->len);
            if (id) /* strings no device has can never match */
                l->set[l->nset++] = id;
        } else {
            l->iset[l->nset++] = v->v.i;
        }
    }
    return l;
}

static lnode_t *lower(lctx_t *c, const dra_cel_expr_t *e, uint32_t depth, uint32_t *maxdepth,
                      int *rc)
{
    if (depth > *maxdepth)
        *maxdepth = depth;
    if (depth > 64)
        UNSUP();
    if (is_const(e, DRA_CEL_BOOL)) {
        lnode_t *n = mk(c, e->u.c.v.b ? N_TRUE : N_FALSE);
        CHECK_NODE(n);
        return n;
    }
    if (e->kind == DRA_CEL_E_DEVREF) {
        if (e->flags == DRA_CEL_DEV_HAS) {
            bool cap = e->u.dev.is_capacity;
            const void *col = cap ? (const void *)cap_col(c, e) : (const void *)attr_col(c, e);
            if (!col) {
                lnode_t *n = mk(c, N_FALSE);
                CHECK_NODE(n);
                return n;
            }
            lnode_t *n = mk_leaf(c, cap ? L_HAS_CAP : L_HAS_ATTR);
            CHECK_NODE(n);
            n->attr = cap ? NULL : col;
            n->cap = cap ? col : NULL;
            return n;
        }
        if (is_attr_get(e)) { /* a bare attribute used as a bool */
            const dra_table_attr_t *col = attr_col(c, e);
            lnode_t *n = mk_leaf(c, col ? L_BOOL_BARE : L_ALL_ERROR);
            CHECK_NODE(n);
            n->attr = col;
            return n;
        }
        UNSUP();
    }
    if (is_device_field(e, "allowMultipleAllocations")) {
        lnode_t *n = mk_leaf(c, L_MULTI);
        CHECK_NODE(n);
        return n;
    }
    if (e->kind != DRA_CEL_E_CALL || !e->u.call.name)
        UNSUP();
    const char *name = e->u.call.name;
    const dra_cel_expr_t *t = e->u.call.target;
    if (!t && is_call(e, "_&&_", 2))
        return lower_binop(c, e, N_AND, depth, maxdepth, rc);
    if (!t && is_call(e, "_||_", 2))
        return lower_binop(c, e, N_OR, depth, maxdepth, rc);
    if (!t && is_call(e, "!_", 1)) {
        lnode_t *n = mk(c, N_NOT);
        CHECK_NODE(n);
        n->a = lower(c, e->u.call.args[0], depth + 1, maxdepth, rc);
        return n->a ? n : NULL;
    }
    if (!t && is_call(e, "@in", 2))
        return lower_in(c, e->u.call.args[0], e->u.call.args[1], rc);
    dra_kern_cmp_t op;
    if (!t && e->u.call.nargs == 2 && op_of(name, &op)) {
        const dra_cel_expr_t *x = e->u.call.args[0], *y = e->u.call.args[1];
        /* compareTo(...) OP k  /  k OP compareTo(...) */
        if (is_call(x, "compareTo", 1) && is_const(y, DRA_CEL_INT))
            return compare_call(c, x, rset_of(op, y->u.c.v.i), rc);
        if (is_call(y, "compareTo", 1) && is_const(x, DRA_CEL_INT))
            return compare_call(c, y, rset_of(op_swap(op), x->u.c.v.i), rc);
        if (op == DRA_CMP_EQ || op == DRA_CMP_NE) {
            bool neg = op == DRA_CMP_NE;
            if (x->kind == DRA_CEL_E_CONST)
                return eq_leaf(c, y, x, neg, rc);
            return eq_leaf(c, x, y, neg, rc);
        }
        /* attr OP int */
        const dra_cel_expr_t *col = x, *k = y;
        if (x->kind == DRA_CEL_E_CONST) {
            col = y;
            k = x;
            op = op_swap(op);
        }
        if (!is_attr_get(col) || !is_const(k, DRA_CEL_INT))
            UNSUP();
        const dra_table_attr_t *ac = attr_col(c, col);
        if (ac && (ac->kinds & ~(1u << DRA_ATTR_INT)) != 0)
            UNSUP(); /* ordering a string / bool against an int is an error we do not model */
        lnode_t *n = mk_leaf(c, ac ? L_INT_ORD : L_ALL_ERROR);
        CHECK_NODE(n);
        n->attr = ac;
        n->op = op;
        n->i64 = k->u.c.v.i;
        return n;
    }
    if (t && e->u.call.nargs == 1 &&
        (strcmp(name, "isGreaterThan") == 0 || strcmp(name, "isLessThan") == 0))
        return compare_call(c, e, name[2] == 'G' ? R_GT : R_LT, rc);
    UNSUP();
}

/* ---- binding column leaves to their dictionaries ------------------------------------------- */

static bool cmp_holds(dra_kern_cmp_t op, int64_t x, int64_t v)
{
    switch (op) {
    case DRA_CMP_EQ: return x == v;
    case DRA_CMP_NE: return x != v;
    case DRA_CMP_LT: return x < v;
    case DRA_CMP_LE: return x <= v;
    case DRA_CMP_GT: return x > v;
    case DRA_CMP_GE: return x >= v;
    }
    return false;
}

/* Outcome bit (R_LT / R_EQ / R_GT) of a version rank x against the constant's position. */
static uint8_t ver_outcome(const lnode_t *n, int64_t x)
{
    int64_t r = n->u32;
    if (!n->ver_exact) /* never equal; ranks <= r are below the constant */
        return x <= r ? R_LT : R_GT;
    return x < r ? R_LT : x == r ? R_EQ : R_GT;
}

/* M of an attribute leaf for a present value (kind k, dictionary value v). */
static bool attr_entry_match(const lnode_t *n, uint8_t k, int64_t v)
{
    bool hit = false;
    switch ((lkind_t)n->leaf) {
    case L_STR_EQ: hit = k == DRA_ATTR_STRING && n->u32 != 0 && v == n->u32; break;
    case L_BOOL_EQ: hit = k == DRA_ATTR_BOOL && v == n->u32; break;
    case L_INT_EQ: hit = k == DRA_ATTR_INT && v == n->i64; break;
    case L_INT_ORD: return k == DRA_ATTR_INT && cmp_holds(n->op, v, n->i64);
    case L_BOOL_BARE: return k == DRA_ATTR_BOOL && v == 1;
    case L_STR_IN:
        for (uint32_t i = 0; k == DRA_ATTR_STRING && i < n->nset; i++)
            hit |= v == n->set[i];
        return hit;
    case L_INT_IN:
        for (uint32_t i = 0; k == DRA_ATTR_INT && i < n->nset; i++)
            hit |= v == n->iset[i];
        return hit;
    case L_VER_CMP: return k == DRA_ATTR_VERSION && (n->rset & ver_outcome(n, v)) != 0;
    default: return false;
    }
    return n->neg ? !hit : hit; /* the equality leaves */
}

static bool is_column_leaf(const lnode_t *n)
{
    return n->kind == N_LEAF && n->leaf >= L_STR_EQ && n->leaf <= L_VER_CMP;
}

static uint64_t *lut_alloc(dra_arena_t *a, uint32_t ndict)
{
    size_t nw = dra_bitset_words((size_t)ndict + 1);
    return dra_arena_calloc(a, nw < 4 ? 4 : nw, sizeof(uint64_t), 64); /* gather_u8 reads 4 */
}

static int bind_leaf(lctx_t *c, lnode_t *n)
{
    if (n->leaf == L_CAP_CMP) {
        const dra_table_cap_t *cc = n->cap;
        if (!(n->lut = lut_alloc(c->a, cc->ndict)))
            return DRA_ENOMEM;
        for (uint32_t e = 1; e <= cc->ndict; e++) {
            int cmp = dra_bit_get(cc->dinexact, e)
                          ? dra_quantity_cmp(cc->dq[e], &n->q)
                          : (cc->dunits[e] > n->i64) - (cc->dunits[e] < n->i64);
            if (n->rset & (1u << (cmp + 1)))
                dra_bit_set(n->lut, e);
        }
        n->code = cc->code;
        n->width = cc->width;
        n->present = cc->present;
        return DRA_OK;
    }
    const dra_table_attr_t *col = n->attr;
    if (!(n->lut = lut_alloc(c->a, col->ndict)))
        return DRA_ENOMEM;
    for (uint32_t e = 1; e <= col->ndict; e++)
        if (attr_entry_match(n, col->dkind[e], col->dval[e]))
            dra_bit_set(n->lut, e);
    /* a bare bool / a version comparison: absent rows and rows of another kind are errors */
    if (n->leaf == L_BOOL_BARE || n->leaf == L_VER_CMP) {
        uint8_t want = n->leaf == L_BOOL_BARE ? DRA_ATTR_BOOL : DRA_ATTR_VERSION;
        if (!(n->elut = lut_alloc(c->a, col->ndict)))
            return DRA_ENOMEM;
        for (uint32_t e = 0; e <= col->ndict; e++)
            if (col->dkind[e] != want)
                dra_bit_set(n->elut, e);
    }
    n->code = col->code;
    n->width = col->width;
    n->present = col->present;
    return DRA_OK;
}

static int bind(lctx_t *c, lnode_t *n)
{
    if (!n)
        return DRA_OK;
    if (is_column_leaf(n))
        return bind_leaf(c, n);
    int rc = bind(c, n->a);
    return rc == DRA_OK ? bind(c, n->b) : rc;
}

int dra_lower_compile(const dra_cel_prog_t *p, const dra_table_t *t, dra_arena_t *arena,
                      dra_lowered_t **out)
{
    if (!p || !t || !arena || !out)
        return DRA_EINVAL;
    *out = NULL;
    const dra_cel_expr_t *root = dra_cel_prog_ast(p);
    if (!root)
        return DRA_EUNSUPPORTED;
    dra_arena_mark_t mark = dra_arena_mark(arena);
    lctx_t c = {.t = t, .a = arena};
    uint32_t maxdepth = 0;
    int rc = DRA_OK;
    lnode_t *n = lower(&c, root, 0, &maxdepth, &rc);
    if (n && (rc = bind(&c, n)) != DRA_OK)
        n = NULL;
    dra_lowered_t *l = n ? dra_arena_calloc(arena, 1, sizeof *l, 8) : NULL;
    if (n && !l)
        rc = DRA_ENOMEM;
    if (l) {
        l->t = t;
        l->root = n;
        l->depth = maxdepth;
        l->nleaves = c.nleaves;
        l->nwords = dra_bitset_words(t->nrows_padded);
        l->scratch = dra_arena_calloc(arena, (size_t)(maxdepth + 1) * 3 * (l->nwords ? l->nwords : 1),
                                      sizeof(uint64_t), 64);
        if (!l->scratch)
            rc = DRA_ENOMEM;
        if (rc == DRA_OK && t->nbad_version_rows) {
            l->bad = dra_arena_calloc(arena, l->nwords, sizeof(uint64_t), 64);
            if (!l->bad)
                rc = DRA_ENOMEM;
            for (uint32_t r = 0; l->bad && r < t->nrows; r++)
                if (t->flags[r] & DRA_ROW_BAD_VERSION)
                    dra_bit_set(l->bad, r);
        }
    }
    if (rc != DRA_OK) {
        dra_arena_reset_to(arena, mark);
        return rc == DRA_OK ? DRA_EUNSUPPORTED : rc;
    }
    *out = l;
    return DRA_OK;
}

uint32_t dra_lower_nleaves(const dra_lowered_t *l)
{
    return l->nleaves;
}

/* ---- eval ----------------------------------------------------------------------------------- */

typedef struct ectx {
    const dra_lowered_t *l;
    const dra_table_t *t;
    const dra_kern_t *k;
    size_t nw;
} ectx_t;

static uint64_t *tmp(const ectx_t *c, uint32_t level, int i)
{
    return c->l->scratch + ((size_t)level * 3 + (size_t)i) * c->nw;
}

static void fill(uint64_t *w, size_t nw, uint64_t v)
{
    for (size_t i = 0; i < nw; i++)
        w[i] = v;
}

/* E = ~present (absent rows are errors); returns E. */
static void absent(const ectx_t *c, const uint64_t *present, uint64_t *E)
{
    c->k->not_(E, present, c->nw * 64);
}

/* out = lut[code] over every row (and the padding: codes 0). */
static void gather(const ectx_t *c, const lnode_t *n, const uint64_t *lut, uint64_t *out)
{
    const size_t np = c->t->nrows_padded;
    if (n->width == 1)
        c->k->gather_u8(n->code, np, lut, out);
    else if (n->width == 2)
        c->k->gather_u16(n->code, np, lut, out);
    else
        c->k->gather_u32(n->code, np, lut, out);
}

static void eval_leaf(const ectx_t *c, const lnode_t *n, uint64_t *M, uint64_t *E)
{
    const dra_table_t *t = c->t;
    const dra_kern_t *k = c->k;
    const size_t np = t->nrows_padded, nw = c->nw;
    switch ((lkind_t)n->leaf) {
    case L_ALL_ERROR:
        fill(M, nw, 0);
        fill(E, nw, ~(uint64_t)0);
        return;
    case L_DRIVER_EQ:
        k->eq_u32(t->driver, np, n->u32, M);
        if (n->neg)
            k->not_(M, M, np);
        fill(E, nw, 0);
        return;
    case L_MULTI:
        k->test_u8(t->flags, np, DRA_ROW_MULTI_ALLOC, M);
        fill(E, nw, 0);
        return;
    case L_HAS_ATTR:
        memcpy(M, n->attr->present, nw * sizeof *M);
        fill(E, nw, 0);
        return;
    case L_HAS_CAP:
        memcpy(M, n->cap->present, nw * sizeof *M);
        fill(E, nw, 0);
        return;
    case L_STR_EQ:
    case L_INT_EQ:
    case L_BOOL_EQ:
    case L_INT_ORD:
    case L_BOOL_BARE:
    case L_STR_IN:
    case L_INT_IN:
    case L_CAP_CMP:
    case L_VER_CMP:
        gather(c, n, n->lut, M);
        if (n->elut)
            gather(c, n, n->elut, E);
        else
            absent(c, n->present, E);
        return;
    }
}

static void eval_node(const ectx_t *c, const lnode_t *n, uint32_t lv, uint64_t *M, uint64_t *E)
{
    const size_t nw = c->nw;
    switch ((nkind_t)n->kind) {
    case N_TRUE:
        fill(M, nw, ~(uint64_t)0);
        fill(E, nw, 0);
        return;
    case N_FALSE:
        fill(M, nw, 0);
        fill(E, nw, 0);
        return;
    case N_LEAF:
        eval_leaf(c, n, M, E);
        return;
    case N_NOT:
        eval_node(c, n->a, lv + 1, M, E);
        for (size_t i = 0; i < nw; i++)
            M[i] = ~(M[i] | E[i]);
        return;
    case N_AND:
    case N_OR: {
        uint64_t *Mb = tmp(c, lv, 0), *Eb = tmp(c, lv, 1);
        eval_node(c, n->a, lv + 1, M, E);
        eval_node(c, n->b, lv + 1, Mb, Eb);
        if (n->kind == N_AND) {
            for (size_t i = 0; i < nw; i++) {
                uint64_t fa = ~M[i] & ~E[i], fb = ~Mb[i] & ~Eb[i];
                E[i] = (E[i] | Eb[i]) & ~(fa | fb);
                M[i] &= Mb[i];
            }
        } else {
            for (size_t i = 0; i < nw; i++) {
                M[i] |= Mb[i];
                E[i] = (E[i] | Eb[i]) & ~M[i];
            }
        }
        return;
    }
    }
}

int dra_lower_eval_with(const dra_lowered_t *l, const dra_table_t *t, const dra_kern_t *k,
                        uint64_t *match, uint64_t *error)
{
    if (!l || !t || !k || !match || !error)
        return DRA_EINVAL;
    DRA_ASSERT_INTERNAL(l->t == t && l->nwords == dra_bitset_words(t->nrows_padded));
    ectx_t c = {.l = l, .t = t, .k = k, .nw = l->nwords};
    if (c.nw == 0)
        return DRA_OK;
    eval_node(&c, l->root, 0, match, error);
    if (l->bad) {
        k->or_(error, error, l->bad, c.nw);
        k->andnot(match, match, l->bad, c.nw);
    }
    /* clear padding rows and whole words past them */
    dra_bitset_trim(match, t->nrows);
    dra_bitset_trim(error, t->nrows);
    for (size_t i = dra_bitset_words(t->nrows); i < c.nw; i++)
        match[i] = error[i] = 0;
    return DRA_OK;
}

int dra_lower_eval(const dra_lowered_t *l, const dra_table_t *t, uint64_t *match, uint64_t *error)
{
    return dra_lower_eval_with(l, t, dra_kern_get(), match, error);
}
