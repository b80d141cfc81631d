/*
 * lower.c - CEL selector -> column predicates over a device table; see lower.h.
 *
 * 1. Compile: a recursive walk over the checked AST. Each lowerable sub-expression becomes a
 *    node of a small tree (TRUE, FALSE, AND, OR, NOT, LEAF). A LEAF is bound to one column of
 *    the table and a constant already translated into the column's domain (a string id, a
 *    version rank, a fixed-point value at the column's scale). Column content decides some
 *    shapes: a leaf whose semantics would depend on per-row kinds we do not model (versions or
 *    lists in an equality column) makes the whole program unsupported.
 * 2. Eval: every node yields two bitsets (M = true rows, E = error rows; disjoint). A leaf is one
 *    or two kernel passes plus O(words) mask arithmetic; AND / OR / NOT combine with CEL's
 *    three-valued rules, word by word:
 *       AND: M = Ma & Mb, E = (Ea | Eb) & ~(Fa | Fb)      with F = ~M & ~E (false rows)
 *       OR:  M = Ma | Mb, E = (Ea | Eb) & ~M
 *       NOT: M = ~(M | E), E = E
 *    Finally bits >= nrows are cleared and rows with an unparsable version become errors.
 * Scratch: (depth + 1) levels of three bitsets, allocated at compile time; a node at level d
 * uses level d's bitsets for its temporaries and the right child's result.
 */
#include "lower.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

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
    dra_quantity_t q; /* L_CAP_CMP: the constant, for inexact rows */
    lnode_t *a, *b;
};

struct dra_lowered {
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
    dra_lowered_t *l = n ? dra_arena_calloc(arena, 1, sizeof *l, 8) : NULL;
    if (n && !l)
        rc = DRA_ENOMEM;
    if (l) {
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

/* M = neg ? present & ~hit : hit */
static void finish_eq(const ectx_t *c, bool neg, const uint64_t *present, uint64_t *M)
{
    if (neg)
        c->k->andnot(M, present, M, c->nw);
}

/* M &= rows of kind `kind` (skipped when the column holds only that kind: absent rows are then
 * excluded by the caller's `present` logic or by construction). */
static void and_kind(const ectx_t *c, const dra_table_attr_t *col, uint8_t kind, uint64_t *M,
                     uint64_t *T)
{
    if ((col->kinds & ~(1u << kind)) == 0) {
        c->k->and_(M, M, col->present, c->nw);
        return;
    }
    c->k->eq_u8(col->kind, c->t->nrows_padded, kind, T);
    c->k->and_(M, M, T, c->nw);
}

static void eval_leaf(const ectx_t *c, const lnode_t *n, uint32_t lv, uint64_t *M, uint64_t *E)
{
    const dra_table_t *t = c->t;
    const dra_kern_t *k = c->k;
    const size_t np = t->nrows_padded, nw = c->nw;
    const dra_table_attr_t *col = n->attr;
    uint64_t *T = tmp(c, lv, 0);
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
        memcpy(M, col->present, nw * sizeof *M);
        fill(E, nw, 0);
        return;
    case L_HAS_CAP:
        memcpy(M, n->cap->present, nw * sizeof *M);
        fill(E, nw, 0);
        return;
    case L_STR_EQ:
    case L_BOOL_EQ:
        if (n->leaf == L_STR_EQ && n->u32 == 0)
            fill(M, nw, 0);
        else
            k->eq_u32(col->id, np, n->u32, M);
        and_kind(c, col, n->leaf == L_STR_EQ ? DRA_ATTR_STRING : DRA_ATTR_BOOL, M, T);
        finish_eq(c, n->neg, col->present, M);
        absent(c, col->present, E);
        return;
    case L_INT_EQ:
        if (!col->i64)
            fill(M, nw, 0);
        else
            k->cmp_i64(col->i64, np, DRA_CMP_EQ, n->i64, M);
        and_kind(c, col, DRA_ATTR_INT, M, T);
        finish_eq(c, n->neg, col->present, M);
        absent(c, col->present, E);
        return;
    case L_INT_ORD: /* column holds ints only (compile-time check) */
        k->cmp_i64(col->i64, np, n->op, n->i64, M);
        k->and_(M, M, col->present, nw);
        absent(c, col->present, E);
        return;
    case L_BOOL_BARE:
        k->eq_u8(col->kind, np, DRA_ATTR_BOOL, T); /* T = bool rows */
        k->eq_u32(col->id, np, 1, M);
        k->and_(M, M, T, nw);
        k->not_(E, T, np);
        return;
    case L_STR_IN:
        k->in_set_u32(col->id, np, n->set, n->nset, M);
        and_kind(c, col, DRA_ATTR_STRING, M, T);
        absent(c, col->present, E);
        return;
    case L_INT_IN:
        fill(M, nw, 0);
        if (col->i64) {
            for (uint32_t i = 0; i < n->nset; i++) {
                k->cmp_i64(col->i64, np, DRA_CMP_EQ, n->iset[i], T);
                k->or_(M, M, T, nw);
            }
        }
        and_kind(c, col, DRA_ATTR_INT, M, T);
        absent(c, col->present, E);
        return;
    case L_CAP_CMP: {
        const dra_table_cap_t *cc = n->cap;
        switch (n->rset) {
        case 0: fill(M, nw, 0); break;
        case R_LT: k->cmp_i64(cc->units, np, DRA_CMP_LT, n->i64, M); break;
        case R_EQ: k->cmp_i64(cc->units, np, DRA_CMP_EQ, n->i64, M); break;
        case R_GT: k->cmp_i64(cc->units, np, DRA_CMP_GT, n->i64, M); break;
        case R_LT | R_EQ: k->cmp_i64(cc->units, np, DRA_CMP_LE, n->i64, M); break;
        case R_GT | R_EQ: k->cmp_i64(cc->units, np, DRA_CMP_GE, n->i64, M); break;
        case R_LT | R_GT: k->cmp_i64(cc->units, np, DRA_CMP_NE, n->i64, M); break;
        default: fill(M, nw, ~(uint64_t)0); break;
        }
        k->and_(M, M, cc->present, nw);
        for (uint32_t i = 0; i < cc->ninexact; i++) { /* exact comparison on the model */
            uint32_t r = cc->inexact_rows[i];
            const dra_capacity_t *cap = dra_device_capacity(t->dev[r], cc->qname);
            int cmp = cap ? dra_quantity_cmp(&cap->value, &n->q) : 0;
            dra_bit_assign(M, r, cap && (n->rset & (1u << (cmp + 1))));
        }
        absent(c, cc->present, E);
        return;
    }
    case L_VER_CMP: {
        /* ranks: row rank x (1..nvers) against constant position u32 (see locate) */
        uint32_t r = n->u32;
        uint8_t s = n->rset;
        bool lt = s & R_LT, eq = s & R_EQ, gt = s & R_GT;
        if (!n->ver_exact) { /* never equal; x <= r means below, x > r above */
            if (lt && gt)
                fill(M, nw, ~(uint64_t)0);
            else if (lt)
                k->cmp_u32(col->id, np, DRA_CMP_LE, r, M);
            else if (gt)
                k->cmp_u32(col->id, np, DRA_CMP_GT, r, M);
            else
                fill(M, nw, 0);
        } else if (lt && eq && gt) {
            fill(M, nw, ~(uint64_t)0);
        } else if (lt && eq) {
            k->cmp_u32(col->id, np, DRA_CMP_LE, r, M);
        } else if (gt && eq) {
            k->cmp_u32(col->id, np, DRA_CMP_GE, r, M);
        } else if (lt && gt) {
            k->cmp_u32(col->id, np, DRA_CMP_NE, r, M);
        } else if (lt) {
            k->cmp_u32(col->id, np, DRA_CMP_LT, r, M);
        } else if (gt) {
            k->cmp_u32(col->id, np, DRA_CMP_GT, r, M);
        } else if (eq) {
            k->cmp_u32(col->id, np, DRA_CMP_EQ, r, M);
        } else {
            fill(M, nw, 0);
        }
        k->eq_u8(col->kind, np, DRA_ATTR_VERSION, T); /* non-version rows: no such overload */
        k->and_(M, M, T, nw);
        k->not_(E, T, np);
        return;
    }
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
        eval_leaf(c, n, lv, M, E);
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

/* ---- benchmark helper ----------------------------------------------------------------------- */

static double now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}

static int cmp_double(const void *x, const void *y)
{
    double a = *(const double *)x, b = *(const double *)y;
    return (a > b) - (a < b);
}

/* ndevices GPUs, 8 per node: a quarter are H100 80GB, the others spread over four products;
 * memory from a fixed cycle; an int index and a driver version on every device. */
static int bench_model(dra_model_t *m, uint32_t ndevices)
{
    static const char *products[] = {"NVIDIA H100 80GB HBM3", "NVIDIA A100-SXM4-40GB",
                                     "NVIDIA A100-SXM4-80GB", "NVIDIA L4", "NVIDIA H200"};
    static const char *mems[] = {"80Gi", "40Gi", "80Gi", "24Gi", "141Gi", "16Gi", "48Gi"};
    static const char *vers[] = {"550.54.15", "535.129.3", "560.28.3"};
    dra_quantity_t q[DRA_ARRAY_LEN(mems)];
    for (size_t i = 0; i < DRA_ARRAY_LEN(mems); i++)
        if (dra_quantity_parse(mems[i], strlen(mems[i]), &q[i], NULL) != DRA_OK)
            return DRA_EINTERNAL;
    uint32_t q_prod = dra_model_qname(m, "gpu.nvidia.com", "productName");
    uint32_t q_idx = dra_model_qname(m, "gpu.nvidia.com", "index");
    uint32_t q_ver = dra_model_qname(m, "gpu.nvidia.com", "driverVersion");
    uint32_t q_mem = dra_model_qname(m, "gpu.nvidia.com", "memory");
    if (!q_prod || !q_idx || !q_ver || !q_mem)
        return DRA_ENOMEM;
    const char *drv = dra_model_str(m, "gpu.nvidia.com");
    uint32_t nnodes = (ndevices + 7) / 8;
    uint64_t seq = 0;
    for (uint32_t nd = 0; nd < nnodes; nd++) {
        char name[32];
        snprintf(name, sizeof name, "node-%u", nd);
        dra_slice_t *s = dra_model_add_slice(m);
        if (!s)
            return DRA_ENOMEM;
        uint32_t ndev = ndevices - nd * 8 < 8 ? ndevices - nd * 8 : 8;
        s->name = dra_model_str(m, name);
        s->driver = drv;
        s->pool_name = s->name;
        s->node_name = s->name;
        s->devices = dra_model_array(m, ndev, sizeof(dra_device_t));
        if (!s->devices)
            return DRA_ENOMEM;
        s->ndevices = ndev;
        for (uint32_t i = 0; i < ndev; i++, seq++) {
            static const char *gpu_names[] = {"gpu-0", "gpu-1", "gpu-2", "gpu-3",
                                              "gpu-4", "gpu-5", "gpu-6", "gpu-7"};
            dra_device_t *d = &s->devices[i];
            d->name = gpu_names[i];
            d->attrs = dra_model_array(m, 3, sizeof(dra_attr_t));
            d->caps = dra_model_array(m, 1, sizeof(dra_capacity_t));
            if (!d->attrs || !d->caps)
                return DRA_ENOMEM;
            uint64_t h = seq * 0x9e3779b97f4a7c15ull;
            d->nattrs = 3;
            d->attrs[0] = (dra_attr_t){.name = "productName", .qname = q_prod,
                                       .kind = DRA_ATTR_STRING, .count = 1};
            d->attrs[0].v.s = products[(h >> 40) % 4 == 0 ? 0 : 1 + (h >> 44) % 4];
            d->attrs[1] = (dra_attr_t){.name = "index", .qname = q_idx, .kind = DRA_ATTR_INT,
                                       .count = 1};
            d->attrs[1].v.i = i;
            d->attrs[2] = (dra_attr_t){.name = "driverVersion", .qname = q_ver,
                                       .kind = DRA_ATTR_VERSION, .count = 1};
            d->attrs[2].v.s = vers[(h >> 50) % 3];
            d->ncaps = 1;
            d->caps[0] = (dra_capacity_t){.name = "memory", .qname = q_mem,
                                          .value = q[(h >> 33) % DRA_ARRAY_LEN(mems)]};
        }
        dra_model_slice_done(m, s);
    }
    return DRA_OK;
}

int dra_lower_bench(const char *src, uint32_t ndevices, const char *kernel, uint32_t reps,
                    uint32_t verify, dra_lower_bench_result_t *res, dra_diag_t *diag)
{
    if (!src || !res || !kernel)
        return DRA_EINVAL;
    memset(res, 0, sizeof *res);
    if (reps == 0)
        reps = 1;
    const dra_kern_t *k = dra_kern_lookup(kernel);
    if (!k) {
        bool known = strcmp(kernel, "auto") == 0;
        for (const char *const *n = dra_kern_names(); *n; n++)
            known |= strcmp(*n, kernel) == 0;
        return dra_diag_set(diag, known ? DRA_EUNSUPPORTED : DRA_EINVAL, NULL, 0, 0,
                            "kernel %s: %s", kernel,
                            known ? "not supported by this CPU" : "unknown kernel");
    }
    res->kernel = k->name;
    dra_model_t m;
    dra_model_init(&m);
    dra_arena_t a, scratch;
    dra_arena_init(&a, 0);
    dra_arena_init(&scratch, 0);
    dra_table_t *t = NULL;
    dra_cel_prog_t *p = NULL;
    dra_lowered_t *l = NULL;
    uint64_t *M = NULL, *E = NULL;
    double *times = NULL;
    int rc = dra_cel_compile(src, strlen(src), &a, &p, diag);
    if (rc != DRA_OK)
        goto out;
    if ((rc = bench_model(&m, ndevices)) != DRA_OK)
        goto out;
    double t0 = now_ns();
    if ((rc = dra_table_build(&m, &a, &t, diag)) != DRA_OK)
        goto out;
    res->build_ms = (now_ns() - t0) / 1e6;
    res->ndevices = t->nrows;
    res->table_bytes = t->bytes;
    t0 = now_ns();
    rc = dra_lower_compile(p, t, &a, &l);
    res->compile_ns = now_ns() - t0;
    if (rc != DRA_OK) {
        dra_diag_set(diag, rc, NULL, 0, 0, "expression does not lower to column predicates");
        goto out;
    }
    res->nleaves = l->nleaves;
    size_t nw = dra_bitset_words(t->nrows_padded);
    M = dra_arena_calloc(&a, nw ? nw : 1, sizeof *M, 64);
    E = dra_arena_calloc(&a, nw ? nw : 1, sizeof *E, 64);
    times = calloc(reps, sizeof *times);
    if (!M || !E || !times) {
        rc = DRA_ENOMEM;
        goto out;
    }
    for (uint32_t i = 0; i < reps; i++) {
        t0 = now_ns();
        dra_lower_eval_with(l, t, k, M, E);
        times[i] = now_ns() - t0;
    }
    qsort(times, reps, sizeof *times, cmp_double);
    res->eval_ns_best = times[0];
    res->eval_ns_median = reps % 2 ? times[reps / 2] : (times[reps / 2 - 1] + times[reps / 2]) / 2;
    res->nmatch = dra_bitset_count(M, t->nrows);
    res->nerror = dra_bitset_count(E, t->nrows);
    for (uint32_t r = 0; r < t->nrows && r < verify; r++) {
        bool match = false;
        int erc = dra_cel_eval_device(p, &m, t->dev[r], &scratch, &match, NULL);
        bool is_err = erc != DRA_OK;
        if (is_err != dra_bit_get(E, r) || (!is_err && match != dra_bit_get(M, r)))
            res->mismatches++;
        res->verified++;
    }
out:
    free(times);
    dra_arena_fini(&scratch);
    dra_arena_fini(&a);
    dra_model_fini(&m);
    return rc;
}
