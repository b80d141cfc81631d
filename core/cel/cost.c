/*
 * cost.c - static worst-case cost estimate of a compiled program, modelled on cel-go's cost
 * estimator as Kubernetes configures it (has() is free) and on the size limits DRA declares for
 * the device (CEL-DRA §3.1, §4.1): domain maps hold at most 32 entries, ids map at most 32,
 * strings at most 64 bytes (driver 63), list attributes at most 64 values.
 *
 * Unit costs: identifier, field selection and index 1; literals 0; list literal 10 + elements,
 * map literal 30 + entries; most calls 1; string operations 1 + ceil(0.1 * size); `in` on a list
 * 1 + size; includes() 48; comprehensions range + init + N * (condition + step) + result, N being
 * the largest size of the range. Values whose size cannot be bounded count as
 * DRA_CEL_COST_UNBOUNDED_SIZE elements, so iterating over them exceeds the DRA limit, as with
 * cel-go when no size hint is available. The figure approximates the API server's estimate (it
 * reproduces the compile_test.go examples quoted in CEL-DRA §4.1 for simple selectors); it is
 * not bit-exact.
 */
#include <stdlib.h>
#include <string.h>

#include "cel_int.h"

#define DRA_CEL_COST_UNBOUNDED_SIZE 1000000ULL
#define CAP (UINT64_MAX / 8)

typedef struct est {
    uint64_t cost;
    uint64_t size;  /* max length of the value: string bytes, list / map entries */
    uint64_t esize; /* max size of its elements (values for maps) */
    bool dev;       /* derived from the device (sizes bounded by DRA's limits) */
} est_t;

static uint64_t sadd(uint64_t a, uint64_t b)
{
    return a > CAP - DRA_MIN(b, CAP) ? CAP : a + b;
}

static uint64_t smul(uint64_t a, uint64_t b)
{
    if (a && b > CAP / a)
        return CAP;
    return a * b;
}

static uint64_t tenth(uint64_t s)
{
    return (s + 9) / 10;
}

typedef struct estimator {
    const dra_cel_prog_t *p;
    est_t *slots;
} estimator_t;

static est_t est(estimator_t *x, const dra_cel_expr_t *e);

static est_t unbounded(uint64_t cost)
{
    est_t r = {cost, DRA_CEL_COST_UNBOUNDED_SIZE, DRA_CEL_COST_UNBOUNDED_SIZE, false};
    return r;
}

static est_t const_est(const dra_cel_val_t *v)
{
    est_t r = {0, 0, 0, false};
    switch (v->kind) {
    case DRA_CEL_STRING:
    case DRA_CEL_BYTES:
        r.size = v->len;
        break;
    case DRA_CEL_LIST:
        r.size = v->v.list->n;
        for (uint32_t i = 0; i < v->v.list->n; i++) {
            est_t s = const_est(&v->v.list->items[i]);
            r.esize = DRA_MAX(r.esize, s.size);
        }
        break;
    case DRA_CEL_MAP:
        r.size = v->v.map->n;
        for (uint32_t i = 0; i < v->v.map->n; i++) {
            est_t s = const_est(&v->v.map->vals[i]);
            r.esize = DRA_MAX(r.esize, s.size);
        }
        break;
    default:
        break;
    }
    return r;
}

/* The cost column of DRA_CEL_FN_MAP. */
static const unsigned char cost_rule[DRA_CEL_FN_COUNT] = {
#define DRA_CEL_FN_COST(id, name, impl, cost, ...) [DRA_CEL_FN_##id] = DRA_CEL_FC_##cost,
    DRA_CEL_FN_MAP(DRA_CEL_FN_COST)
#undef DRA_CEL_FN_COST
};

static est_t est_call(estimator_t *x, const dra_cel_expr_t *e)
{
    unsigned fn = e->fn;
    est_t a[8];
    uint32_t n = 0;
    uint64_t sum = 0;
    if (e->u.call.target && n < 8)
        a[n++] = est(x, e->u.call.target);
    for (uint32_t i = 0; i < e->u.call.nargs; i++) {
        est_t s = est(x, e->u.call.args[i]);
        if (n < 8)
            a[n++] = s;
        sum = sadd(sum, s.cost);
    }
    if (e->u.call.target)
        sum = sadd(sum, a[0].cost);
    est_t r = {0, 0, 0, false};
    bool dev = false;
    for (uint32_t i = 0; i < n; i++)
        dev |= a[i].dev;
    switch (fn) {
    case DRA_CEL_FN_AND:
    case DRA_CEL_FN_OR:
        r.cost = sum;
        return r;
    case DRA_CEL_FN_COND:
        r.cost = sadd(a[0].cost, DRA_MAX(a[1].cost, a[2].cost));
        r.size = DRA_MAX(a[1].size, a[2].size);
        r.esize = DRA_MAX(a[1].esize, a[2].esize);
        r.dev = a[1].dev && a[2].dev;
        return r;
    case DRA_CEL_FN_NOT_STRICTLY_FALSE:
        r.cost = sum;
        return r;
    case DRA_CEL_FN_EQ:
    case DRA_CEL_FN_NE:
    case DRA_CEL_FN_LT:
    case DRA_CEL_FN_LE:
    case DRA_CEL_FN_GT:
    case DRA_CEL_FN_GE: {
        const dra_cel_type_t *t0 = e->u.call.args[0]->type, *t1 = e->u.call.args[1]->type;
        bool str = (t0 && (t0->k == DRA_CEL_T_STRING || t0->k == DRA_CEL_T_BYTES)) ||
                   (t1 && (t1->k == DRA_CEL_T_STRING || t1->k == DRA_CEL_T_BYTES));
        uint64_t c = 1;
        if (str)
            c = sadd(1, tenth(DRA_MIN(a[0].size, a[1].size)));
        r.cost = sadd(sum, c);
        return r;
    }
    case DRA_CEL_FN_IN:
        r.cost = sadd(sum, sadd(1, a[1].dev ? 0 : a[1].size));
        if (e->u.call.args[1]->type && e->u.call.args[1]->type->k == DRA_CEL_T_LIST)
            r.cost = sadd(sum, sadd(1, a[1].size));
        return r;
    case DRA_CEL_FN_INCLUDES:
        r.cost = sadd(sum, 48);
        return r;
    case DRA_CEL_FN_INDEX:
    case DRA_CEL_FN_OPT_INDEX:
        r.cost = sadd(sum, 1);
        if (a[0].dev) {
            r.dev = true;
            r.size = a[0].esize;
            r.esize = 64;
        } else {
            r.size = a[0].esize ? a[0].esize : DRA_CEL_COST_UNBOUNDED_SIZE;
            r.esize = DRA_CEL_COST_UNBOUNDED_SIZE;
        }
        return r;
    case DRA_CEL_FN_ADD:
        r.cost = sadd(sum, sadd(1, tenth(sadd(a[0].size, a[1].size))));
        r.size = sadd(a[0].size, a[1].size);
        r.esize = DRA_MAX(a[0].esize, a[1].esize);
        r.dev = a[0].dev && a[1].dev;
        return r;
    case DRA_CEL_FN_LIST_APPEND:
        r.cost = sadd(sum, 1);
        r.size = sadd(a[0].size, 1);
        r.esize = DRA_MAX(a[0].esize, a[1].size);
        return r;
    case DRA_CEL_FN_MAP_INSERT:
        r.cost = sadd(sum, 1);
        r.size = sadd(a[0].size, 1);
        return r;
    case DRA_CEL_FN_LISTS_RANGE:
        r.cost = sadd(sum, 1);
        r.size = e->u.call.args[0]->kind == DRA_CEL_E_CONST && e->u.call.args[0]->u.c.kind == DRA_CEL_INT &&
                         e->u.call.args[0]->u.c.v.i >= 0
                     ? (uint64_t)e->u.call.args[0]->u.c.v.i
                     : DRA_CEL_COST_UNBOUNDED_SIZE;
        r.cost = sadd(r.cost, r.size);
        return r;
    default:
        break;
    }
    switch (fn < DRA_CEL_FN_COUNT ? cost_rule[fn] : DRA_CEL_FC_ONE) {
    case DRA_CEL_FC_LIST_PAIR:
        r.cost = sadd(sum, sadd(1, smul(a[0].size, n > 1 ? DRA_MAX(a[1].size, 1) : 1)));
        r.size = a[0].size;
        r.esize = a[0].esize;
        r.dev = a[0].dev;
        return r;
    case DRA_CEL_FC_LIST:
    case DRA_CEL_FC_LIST_FLATTEN:
        r.cost = sadd(sum, sadd(1, a[0].size));
        r.size = cost_rule[fn] == DRA_CEL_FC_LIST_FLATTEN ? smul(a[0].size, DRA_MAX(a[0].esize, 1))
                                                          : a[0].size;
        r.esize = a[0].esize;
        r.dev = a[0].dev;
        return r;
    case DRA_CEL_FC_STR:
    case DRA_CEL_FC_STR_JOIN:
    case DRA_CEL_FC_STR_REGEX:
    case DRA_CEL_FC_STR_REGEX_LIST:
    case DRA_CEL_FC_STR_SPLIT: {
        if (!n)
            break;
        unsigned rule = cost_rule[fn];
        uint64_t s = a[0].size;
        if (rule == DRA_CEL_FC_STR_JOIN)
            s = smul(a[0].size, DRA_MAX(a[0].esize, 1));
        r.cost = sadd(sum, sadd(1, tenth(s)));
        if (rule == DRA_CEL_FC_STR_REGEX || rule == DRA_CEL_FC_STR_REGEX_LIST)
            r.cost = sadd(sum, sadd(1, tenth(smul(s, n > 1 ? DRA_MAX(a[1].size, 1) : 1))));
        r.size = rule == DRA_CEL_FC_STR_SPLIT || rule == DRA_CEL_FC_STR_REGEX_LIST ? sadd(s, 1) : s;
        r.esize = s;
        r.dev = dev;
        return r;
    }
    case DRA_CEL_FC_PASS:
        r.cost = sadd(sum, 1);
        if (n) {
            r.size = a[0].size;
            r.esize = a[0].esize;
            r.dev = a[0].dev;
        }
        return r;
    default:
        break;
    }
    r.cost = sadd(sum, 1);
    return r;
}

static est_t est(estimator_t *x, const dra_cel_expr_t *e)
{
    est_t r = {0, 0, 0, false};
    switch (e->kind) {
    case DRA_CEL_E_CONST:
        return const_est(&e->u.c);
    case DRA_CEL_E_IDENT:
        if (e->u.ident.slot >= 0) {
            r = x->slots[e->u.ident.slot];
            r.cost = 1;
            return r;
        }
        r.cost = 1;
        r.dev = e->type && e->type->k == DRA_CEL_T_DEVICE;
        if (!r.dev) {
            r.size = DRA_CEL_COST_UNBOUNDED_SIZE;
            r.esize = DRA_CEL_COST_UNBOUNDED_SIZE;
        }
        return r;
    case DRA_CEL_E_SELECT: {
        est_t o = est(x, e->u.sel.operand);
        bool has = e->flags & DRA_CEL_SEL_TEST_ONLY;
        r.cost = sadd(o.cost, has ? 0 : 1); /* Kubernetes: has() is free */
        if (o.dev && e->u.sel.operand->type && e->u.sel.operand->type->k == DRA_CEL_T_DEVICE) {
            r.dev = true;
            if (!strcmp(e->u.sel.field, "driver"))
                r.size = 63;
            else if (!strcmp(e->u.sel.field, "attributes") || !strcmp(e->u.sel.field, "capacity")) {
                r.size = 32;
                r.esize = 32;
            }
        } else if (o.dev) {
            r.dev = true;
            r.size = o.esize;
            r.esize = 64;
        } else {
            r.size = o.esize ? o.esize : DRA_CEL_COST_UNBOUNDED_SIZE;
            r.esize = DRA_CEL_COST_UNBOUNDED_SIZE;
        }
        return r;
    }
    case DRA_CEL_E_DEVREF:
        r.cost = (e->flags & DRA_CEL_DEV_HAS) ? 3 : 4;
        r.dev = true;
        r.size = e->u.dev.is_capacity ? 0 : 64;
        r.esize = 64;
        return r;
    case DRA_CEL_E_CALL:
        return est_call(x, e);
    case DRA_CEL_E_LIST:
        r.cost = 10;
        r.dev = true;
        for (uint32_t i = 0; i < e->u.list.n; i++) {
            est_t s = est(x, e->u.list.elems[i]);
            r.cost = sadd(r.cost, s.cost);
            r.esize = DRA_MAX(r.esize, s.size);
            r.dev &= s.dev || e->u.list.elems[i]->kind == DRA_CEL_E_CONST;
        }
        r.size = e->u.list.n;
        return r;
    case DRA_CEL_E_MAP:
        r.cost = 30;
        for (uint32_t i = 0; i < e->u.map.n; i++) {
            est_t k = est(x, e->u.map.keys[i]), v = est(x, e->u.map.vals[i]);
            r.cost = sadd(r.cost, sadd(k.cost, v.cost));
            r.esize = DRA_MAX(r.esize, v.size);
        }
        r.size = e->u.map.n;
        return r;
    case DRA_CEL_E_COMPR: {
        est_t range = est(x, e->u.compr.range);
        est_t init = est(x, e->u.compr.init);
        est_t elem = {0, range.esize, range.dev ? 64 : DRA_CEL_COST_UNBOUNDED_SIZE, range.dev};
        x->slots[e->u.compr.accu_slot] = init;
        x->slots[e->u.compr.iter_slot] = e->u.compr.iter_var2 ? (est_t){0, 0, 0, true} : elem;
        if (e->u.compr.iter2_slot >= 0)
            x->slots[e->u.compr.iter2_slot] = elem;
        est_t cond = est(x, e->u.compr.cond);
        est_t step = est(x, e->u.compr.step);
        uint64_t iters = range.size;
        /* cel.bind: an empty range, the body is the result */
        est_t acc = init;
        if (iters) {
            acc.size = DRA_MAX(init.size, step.size);
            acc.esize = DRA_MAX(init.esize, step.esize);
            if (e->u.compr.step->kind == DRA_CEL_E_CALL &&
                e->u.compr.step->fn == DRA_CEL_FN_LIST_APPEND) {
                acc.size = iters;
                acc.esize = step.esize;
            }
        }
        x->slots[e->u.compr.accu_slot] = acc;
        est_t res = est(x, e->u.compr.result);
        r.cost = sadd(sadd(range.cost, init.cost),
                      sadd(smul(iters, sadd(cond.cost, step.cost)), res.cost));
        r.size = res.size;
        r.esize = res.esize;
        r.dev = res.dev;
        return r;
    }
    default:
        return unbounded(1);
    }
}

int dra_cel_estimate_cost(const dra_cel_prog_t *p, uint64_t *max_cost)
{
    est_t stack[32];
    estimator_t x = {.p = p, .slots = stack};
    est_t *heap = NULL;
    if (p->nslots > 32) {
        heap = calloc(p->nslots, sizeof *heap);
        if (!heap)
            return DRA_ENOMEM;
        x.slots = heap;
    }
    est_t r = est(&x, p->root);
    free(heap);
    *max_cost = r.cost >= CAP ? UINT64_MAX : r.cost;
    return DRA_OK;
}
