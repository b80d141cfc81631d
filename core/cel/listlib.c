/*
 * listlib.c - lists: the cel-go lists extension (distinct, flatten, lists.range, reverse,
 * slice, sort, indexOf on lists), Kubernetes lists (isSorted, sum, min, max, indexOf), sets and
 * DRA's includes(); the sort and search helpers the sortBy macro uses.
 * Part of the CEL function library (lib.c dispatches to it); every function checks argument
 * kinds at runtime and the caller reports "no such overload" when none matches.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "libint.h"

static dra_cel_val_t flatten(dra_cel_ctx_t *c, const dra_cel_list_t *l, int64_t depth)
{
    dra_cel__sbuf_t dummy = {0};
    (void)dummy;
    uint32_t cap = l->n + 4, n = 0;
    dra_cel_val_t *items = dra_arena_alloc(c->a, cap * sizeof *items, 8);
    if (!items)
        return dra_cel__oom(c);
    for (uint32_t i = 0; i < l->n; i++) {
        const dra_cel_val_t *x = &l->items[i];
        dra_cel_val_t sub;
        const dra_cel_list_t *src = NULL;
        if (K(*x, LIST) && depth > 0) {
            sub = flatten(c, x->v.list, depth - 1);
            if (K(sub, ERROR))
                return sub;
            src = sub.v.list;
        }
        uint32_t add = src ? src->n : 1;
        if (n + add > cap) {
            uint32_t nc = (n + add) * 2;
            dra_cel_val_t *ni = dra_arena_alloc(c->a, nc * sizeof *ni, 8);
            if (!ni)
                return dra_cel__oom(c);
            memcpy(ni, items, n * sizeof *ni);
            items = ni;
            cap = nc;
        }
        if (src) {
            memcpy(items + n, src->items, src->n * sizeof *items);
            n += src->n;
        } else {
            items[n++] = *x;
        }
        if (!dra_cel__charge(c, add))
            return dra_cel__cost_err();
    }
    dra_cel_val_t *it = NULL;
    dra_cel_val_t r = dra_cel__mk_list(c, n, &it);
    if (!K(r, ERROR))
        memcpy(it, items, n * sizeof *it);
    return r;
}

static dra_cel_val_t includes(dra_cel_ctx_t *c, const dra_cel_val_t *a, const dra_cel_val_t *x)
{
    if (K(*a, LIST)) {
        if (a->v.list->n > 48)
            return dra_cel_err(c, "includes: list has more than 48 elements");
        for (uint32_t i = 0; i < a->v.list->n; i++)
            if (dra_cel_equal(&a->v.list->items[i], x) == 1)
                return dra_cel_bool(true);
        return dra_cel_bool(false);
    }
    return dra_cel_bool(dra_cel_equal(a, x) == 1);
}

/* ---- the functions (rows of DRA_CEL_FN_MAP) ------------------------------------------------ */

/* INDEX_OF, LAST_INDEX_OF */
DRA_CEL_IMPL(dra_cel_list_index_of)
{
    if (n == 2 && K(a[0], LIST))
        return dra_cel_int(dra_cel__list_index_of(a[0].v.list, &a[1], fn == DRA_CEL_FN_LAST_INDEX_OF));
    return dra_cel__no_overload(c, fn, a, n);
}

/* DISTINCT */
DRA_CEL_IMPL(dra_cel_list_distinct)
{
    if (n == 1 && K(a[0], LIST)) {
        const dra_cel_list_t *l = a[0].v.list;
        if (!dra_cel__charge(c, (uint64_t)l->n * l->n / 4))
            return dra_cel__cost_err();
        dra_cel_val_t *it = NULL;
        dra_cel_val_t r = dra_cel__mk_list(c, l->n, &it);
        if (K(r, ERROR))
            return r;
        uint32_t k = 0;
        for (uint32_t i = 0; i < l->n; i++) {
            bool dup = false;
            for (uint32_t j = 0; j < k && !dup; j++)
                dup = dra_cel_equal(&it[j], &l->items[i]) == 1;
            if (!dup)
                it[k++] = l->items[i];
        }
        ((dra_cel_list_t *)r.v.list)->n = k;
        return r;
    }
    return dra_cel__no_overload(c, fn, a, n);
}

/* FLATTEN */
DRA_CEL_IMPL(dra_cel_list_flatten)
{
    if ((n == 1 || n == 2) && K(a[0], LIST) && (n == 1 || K(a[1], INT))) {
        int64_t d = n == 2 ? a[1].v.i : 1;
        if (d < 0)
            return dra_cel_err(c, "level must be non-negative");
        return flatten(c, a[0].v.list, d);
    }
    return dra_cel__no_overload(c, fn, a, n);
}

/* LISTS_RANGE */
DRA_CEL_IMPL(dra_cel_list_lists_range)
{
    if (n == 1 && K(a[0], INT)) {
        int64_t k = a[0].v.i < 0 ? 0 : a[0].v.i;
        if (!dra_cel__charge(c, (uint64_t)k))
            return dra_cel__cost_err();
        dra_cel_val_t *it = NULL;
        dra_cel_val_t r = dra_cel__mk_list(c, (uint32_t)k, &it);
        if (K(r, ERROR))
            return r;
        for (int64_t i = 0; i < k; i++)
            it[i] = dra_cel_int(i);
        return r;
    }
    return dra_cel__no_overload(c, fn, a, n);
}

/* REVERSE */
DRA_CEL_IMPL(dra_cel_list_reverse)
{
    if (n == 1 && K(a[0], LIST)) {
        const dra_cel_list_t *l = a[0].v.list;
        dra_cel_val_t *it = NULL;
        dra_cel_val_t r = dra_cel__mk_list(c, l->n, &it);
        if (K(r, ERROR))
            return r;
        for (uint32_t i = 0; i < l->n; i++)
            it[i] = l->items[l->n - 1 - i];
        return r;
    }
    return dra_cel__no_overload(c, fn, a, n);
}

/* SLICE */
DRA_CEL_IMPL(dra_cel_list_slice)
{
    if (n == 3 && K(a[0], LIST) && K(a[1], INT) && K(a[2], INT)) {
        const dra_cel_list_t *l = a[0].v.list;
        int64_t s = a[1].v.i, t = a[2].v.i;
        if (s < 0 || t < 0)
            return dra_cel_err(c, "cannot slice(%lld, %lld), negative indexes not supported",
                               (long long)s, (long long)t);
        if (s > t)
            return dra_cel_err(c, "cannot slice(%lld, %lld), start index must be less than or equal to end index",
                               (long long)s, (long long)t);
        if (t > (int64_t)l->n)
            return dra_cel_err(c, "cannot slice(%lld, %lld), list is length %u", (long long)s,
                               (long long)t, l->n);
        dra_cel_val_t *it = NULL;
        dra_cel_val_t r = dra_cel__mk_list(c, (uint32_t)(t - s), &it);
        if (!K(r, ERROR))
            memcpy(it, l->items + s, (size_t)(t - s) * sizeof *it);
        return r;
    }
    return dra_cel__no_overload(c, fn, a, n);
}

/* SORT */
DRA_CEL_IMPL(dra_cel_list_sort)
{
    if (n == 1 && K(a[0], LIST)) {
        dra_cel_val_t *it = NULL;
        dra_cel_val_t r = dra_cel__copy_list(c, a[0].v.list, &it);
        if (K(r, ERROR))
            return r;
        if (!dra_cel__sort_vals(c, it, NULL, a[0].v.list->n))
            return c->cost > c->cost_limit ? dra_cel__cost_err() : dra_cel_err(c, "sort: list elements must be comparable");
        return r;
    }
    return dra_cel__no_overload(c, fn, a, n);
}

/* IS_SORTED */
DRA_CEL_IMPL(dra_cel_list_is_sorted)
{
    if (n == 1 && K(a[0], LIST)) {
        const dra_cel_list_t *l = a[0].v.list;
        for (uint32_t i = 1; i < l->n; i++) {
            int r = dra_cel__cmp_for_sort(&l->items[i - 1], &l->items[i]);
            if (r == 2 || r == 3)
                return dra_cel_err(c, "isSorted: list elements must be comparable");
            if (r > 0)
                return dra_cel_bool(false);
        }
        return dra_cel_bool(true);
    }
    return dra_cel__no_overload(c, fn, a, n);
}

/* SUM */
DRA_CEL_IMPL(dra_cel_list_sum)
{
    if (n == 1 && K(a[0], LIST)) {
        const dra_cel_list_t *l = a[0].v.list;
        if (l->n == 0)
            return dra_cel_int(0);
        dra_cel_val_t acc = l->items[0];
        if (!K(acc, INT) && !K(acc, UINT) && !K(acc, DOUBLE))
            return dra_cel__no_overload(c, fn, &acc, 1);
        for (uint32_t i = 1; i < l->n; i++) {
            acc = dra_cel__arith(c, DRA_CEL_FN_ADD, &acc, &l->items[i]);
            if (K(acc, ERROR))
                return acc;
        }
        return acc;
    }
    return dra_cel__no_overload(c, fn, a, n);
}

/* MIN, MAX */
DRA_CEL_IMPL(dra_cel_list_min)
{
    if (n == 1 && K(a[0], LIST)) {
        const dra_cel_list_t *l = a[0].v.list;
        if (l->n == 0)
            return dra_cel_err(c, "%s called on empty list", fn == DRA_CEL_FN_MIN ? "min" : "max");
        dra_cel_val_t best = l->items[0];
        for (uint32_t i = 1; i < l->n; i++) {
            int r = dra_cel__cmp_for_sort(&l->items[i], &best);
            if (r == 2 || r == 3)
                return dra_cel__no_overload(c, fn, &l->items[i], 1);
            if ((fn == DRA_CEL_FN_MIN && r < 0) || (fn == DRA_CEL_FN_MAX && r > 0))
                best = l->items[i];
        }
        return best;
    }
    return dra_cel__no_overload(c, fn, a, n);
}

/* INCLUDES */
DRA_CEL_IMPL(dra_cel_list_includes)
{
    if (n == 2)
        return includes(c, &a[0], &a[1]);
    return dra_cel__no_overload(c, fn, a, n);
}

/* SETS_CONTAINS, SETS_EQUIVALENT, SETS_INTERSECTS */
DRA_CEL_IMPL(dra_cel_list_sets_contains)
{
    if (n == 2 && K(a[0], LIST) && K(a[1], LIST)) {
        const dra_cel_list_t *x = a[0].v.list, *y = a[1].v.list;
        if (!dra_cel__charge(c, (uint64_t)x->n * y->n / 4))
            return dra_cel__cost_err();
        if (fn == DRA_CEL_FN_SETS_INTERSECTS) {
            for (uint32_t i = 0; i < x->n; i++)
                if (dra_cel__list_index_of(y, &x->items[i], false) >= 0)
                    return dra_cel_bool(true);
            return dra_cel_bool(false);
        }
        for (uint32_t i = 0; i < y->n; i++)
            if (dra_cel__list_index_of(x, &y->items[i], false) < 0)
                return dra_cel_bool(false);
        if (fn == DRA_CEL_FN_SETS_EQUIVALENT)
            for (uint32_t i = 0; i < x->n; i++)
                if (dra_cel__list_index_of(y, &x->items[i], false) < 0)
                    return dra_cel_bool(false);
        return dra_cel_bool(true);
    }
    return dra_cel__no_overload(c, fn, a, n);
}
