/*
 * update.c - re-encoding one slice's rows after the slice was republished
 * (dra_table_update_slice, table.h).
 *
 * Two passes over the slice's rows: the first computes every row's value in every column and
 * checks that the table can hold it without changing anything (an existing dictionary entry, or
 * a scalar value that can be appended within the column's code width); the second writes the
 * flags and codes, appending entries and strings as needed. A failed first pass leaves the
 * table as it was.
 */
#include <stdlib.h>
#include <string.h>

#include "base/bitset.h"
#include "table/table.h"

#define NONE DRA_TABLE_NONE

static const char *nz(const char *s)
{
    return s ? s : "";
}

static uint32_t width_max(uint8_t w)
{
    return w == 1 ? UINT8_MAX : w == 2 ? UINT16_MAX : UINT32_MAX;
}

/* Copy of n elements of size sz into a new arena array of m >= n elements (zeroed beyond n). */
static void *grow(dra_arena_t *a, const void *old, size_t n, size_t m, size_t sz, size_t align)
{
    void *p = dra_arena_calloc(a, m ? m : 1, sz, align);
    if (p && n)
        memcpy(p, old, n * sz);
    return p;
}

/* String id of s, appending it to the table's string dictionary when add (0: absent or out of
 * memory, *oom set for the latter). */
static uint32_t str_id(dra_table_t *t, dra_arena_t *a, const char *s, bool add, bool *oom)
{
    s = nz(s);
    size_t len = strlen(s);
    uint32_t id = dra_table_str_find(t, s, len);
    if (id || !add)
        return id;
    uint32_t n = t->nstrs + 1;
    const char **strs = grow(a, t->strs, n, (size_t)n + 1, sizeof *strs, 8);
    uint32_t *lens = grow(a, t->str_lens, n, (size_t)n + 1, sizeof *lens, 8);
    char *text = dra_arena_alloc(a, len + 1, 1);
    uint32_t ns = t->nstr_slots;
    while (ns < 2 * ((size_t)n + 1))
        ns *= 2;
    uint32_t *slots = ns != t->nstr_slots ? dra_arena_calloc(a, ns, sizeof *slots, 8)
                                          : t->str_slots;
    if (!strs || !lens || !text || !slots || ns == 0) {
        *oom = true;
        return 0;
    }
    memcpy(text, s, len + 1);
    strs[n] = text;
    lens[n] = (uint32_t)len;
    if (slots != t->str_slots) /* rehash */
        for (uint32_t k = 1; k < n; k++) {
            uint32_t i = (uint32_t)dra_hash64(strs[k], lens[k]) & (ns - 1);
            while (slots[i])
                i = (i + 1) & (ns - 1);
            slots[i] = k;
        }
    uint32_t i = (uint32_t)dra_hash64(text, len) & (ns - 1);
    while (slots[i])
        i = (i + 1) & (ns - 1);
    slots[i] = n;
    t->strs = strs;
    t->str_lens = lens;
    t->str_slots = slots;
    t->nstr_slots = ns;
    t->nstrs = n;
    return n;
}

/* Version rank of text s (*bad: does not parse); false when its precedence is new to the table. */
static bool ver_rank(const dra_table_t *t, const char *s, int64_t *rank, bool *bad)
{
    s = nz(s);
    dra_semver_t v;
    if (dra_semver_parse(s, strlen(s), false, &v, NULL) != DRA_OK) {
        *rank = 0;
        *bad = true;
        return true;
    }
    uint32_t r;
    bool exact;
    dra_table_version_locate(t, &v, &r, &exact);
    *rank = r;
    return exact;
}

/* The dictionary entry of attribute at in column col: its code, 0 when the value is new
 * (scalars: *v is the value to append, *newstr when it is a string the table lacks).
 * DRA_EUNSUPPORTED when it cannot be added (versions, lists). */
static int attr_entry(dra_table_t *t, dra_arena_t *a, const dra_table_attr_t *col,
                      const dra_attr_t *at, uint32_t cur, bool add, uint32_t *code, int64_t *v,
                      bool *bad, bool *newstr, bool *oom)
{
    *code = 0;
    *v = 0;
    *newstr = false;
    uint8_t k = at->kind;
    switch ((dra_attr_kind_t)k) {
    case DRA_ATTR_NONE: return DRA_OK;
    case DRA_ATTR_INT: *v = at->v.i; break;
    case DRA_ATTR_BOOL: *v = at->v.b ? 1 : 0; break;
    case DRA_ATTR_STRING:
        *v = str_id(t, a, at->v.s, add, oom);
        if (!*v) {
            *newstr = true;
            return DRA_OK; /* a new string: a new entry */
        }
        break;
    case DRA_ATTR_VERSION:
        if (!ver_rank(t, at->v.s, v, bad))
            return DRA_EUNSUPPORTED;
        break;
    default: {
        /* lists: an existing list of the column with the same elements (the row's own first) */
        for (uint32_t i = 0; i <= col->ndict; i++) {
            uint32_t e = i == 0 ? cur : i;
            if (e == 0 || (i > 0 && e == cur) || col->dkind[e] != k)
                continue;
            const dra_table_list_t *l = &col->lists[col->dval[e]];
            bool same = l->len == at->count;
            bool b2 = false;
            for (uint32_t j = 0; same && j < at->count; j++) {
                int64_t x;
                if (k == DRA_ATTR_INTS)
                    x = at->v.ints[j];
                else if (k == DRA_ATTR_BOOLS)
                    x = at->v.bools[j] ? 1 : 0;
                else if (k == DRA_ATTR_STRINGS)
                    x = str_id(t, a, at->v.strs[j], false, oom);
                else if (!ver_rank(t, at->v.strs[j], &x, &b2))
                    return DRA_EUNSUPPORTED;
                same = x == col->lvals[l->off + j] && (k != DRA_ATTR_STRINGS || x != 0);
            }
            if (same) {
                *bad |= b2;
                *code = e;
                return DRA_OK;
            }
        }
        return DRA_EUNSUPPORTED;
    }
    }
    if (cur && col->dkind[cur] == k && col->dval[cur] == *v) { /* unchanged: O(1) */
        *code = cur;
        return DRA_OK;
    }
    for (uint32_t e = 1; e <= col->ndict; e++)
        if (col->dkind[e] == k && col->dval[e] == *v) {
            *code = e;
            return DRA_OK;
        }
    return DRA_OK;
}

/* Appends (kind, v) to col; its code. 0 on out of memory. */
static uint32_t attr_append(dra_arena_t *a, dra_table_attr_t *col, uint8_t kind, int64_t v)
{
    uint32_t n = col->ndict + 1;
    uint8_t *dk = grow(a, col->dkind, n, (size_t)n + 1, 1, 8);
    int64_t *dv = grow(a, col->dval, n, (size_t)n + 1, sizeof *dv, 8);
    if (!dk || !dv)
        return 0;
    dk[n] = kind;
    dv[n] = v;
    col->dkind = dk;
    col->dval = dv;
    col->ndict = n;
    col->kinds |= 1u << kind;
    return n;
}

/* The capacity entry of q in col (0: new). */
static uint32_t cap_entry(const dra_table_cap_t *col, const dra_quantity_t *q, uint32_t cur,
                          int64_t *units, bool *exact)
{
    *exact = dra_quantity_to_fixed(q, units, col->scale);
    for (uint32_t i = 0; i <= col->ndict; i++) { /* the row's own entry first */
        uint32_t e = i == 0 ? cur : i;
        if (e == 0 || (i > 0 && e == cur))
            continue;
        bool ix = dra_bit_get(col->dinexact, e);
        if (*exact && !ix && col->dunits[e] == *units)
            return e;
        if (!*exact && ix) {
            const dra_quantity_t *b = col->dq[e];
            if (q->lo == b->lo && q->hi == b->hi && q->exp == b->exp && q->neg == b->neg)
                return e;
        }
    }
    return 0;
}

static uint32_t cap_append(dra_arena_t *a, dra_table_cap_t *col, const dra_quantity_t *q,
                           int64_t units, bool exact)
{
    uint32_t n = col->ndict + 1;
    int64_t *du = grow(a, col->dunits, n, (size_t)n + 1, sizeof *du, 8);
    const dra_quantity_t **dq = grow(a, col->dq, n, (size_t)n + 1, sizeof *dq, 8);
    size_t ow = dra_bitset_words(n), nw = dra_bitset_words((size_t)n + 1);
    uint64_t *ix = nw != ow ? grow(a, col->dinexact, ow, nw, sizeof *ix, 8) : col->dinexact;
    if (!du || !dq || !ix)
        return 0;
    du[n] = exact ? units : 0;
    dq[n] = q;
    if (!exact)
        dra_bit_set(ix, n);
    col->dunits = du;
    col->dq = dq;
    col->dinexact = ix;
    col->ndict = n;
    return n;
}

#define UNSUP(...) return dra_diag_set(diag, DRA_EUNSUPPORTED, NULL, 0, 0, __VA_ARGS__)

int dra_table_update_slice(dra_table_t *t, dra_arena_t *arena, uint32_t slice, dra_diag_t *diag)
{
    if (!t || !arena || !t->model || !t->slice_first || slice >= t->model->nslices)
        return dra_diag_set(diag, DRA_EINVAL, NULL, 0, 0, "table update: invalid arguments");
    const dra_model_t *m = t->model;
    const dra_slice_t *s = m->slices[slice];
    uint32_t r0 = t->slice_first[slice], r1 = r0 + s->ndevices;
    if (r1 > t->nrows || (s->ndevices && (t->slice[r0] != slice || t->dev[r0] != &s->devices[0])))
        return dra_diag_set(diag, DRA_EINVAL, NULL, 0, 0,
                            "table update: slice %s does not have the rows the table holds for it "
                            "(device count or order changed: rebuild the table)",
                            nz(s->name));
    bool oom = false;
    const char *sn = nz(s->name);
    /* pass 1: check */
    for (uint32_t r = r0; r < r1; r++) {
        const dra_device_t *d = t->dev[r];
        if (d != &s->devices[r - r0])
            return dra_diag_set(diag, DRA_EINVAL, NULL, 0, 0,
                                "table update: slice %s row %u is not its device %u", sn, r,
                                r - r0);
        for (uint32_t i = 0; i < d->nattrs; i++)
            if (d->attrs[i].kind != DRA_ATTR_NONE && !dra_table_attr(t, d->attrs[i].qname))
                UNSUP("slice %s: device %s: attribute %s is new to the device table (not "
                      "incremental: rebuild the table)",
                      sn, nz(d->name), nz(d->attrs[i].name));
        for (uint32_t i = 0; i < d->ncaps; i++)
            if (!dra_table_cap(t, d->caps[i].qname))
                UNSUP("slice %s: device %s: capacity %s is new to the device table (not "
                      "incremental: rebuild the table)",
                      sn, nz(d->name), nz(d->caps[i].name));
    }
    for (uint32_t c = 0; c < t->nattrs; c++) {
        const dra_table_attr_t *col = &t->attrs[c];
        uint32_t fresh = 0;
        for (uint32_t r = r0; r < r1; r++) {
            const dra_attr_t *at = dra_device_attr(t->dev[r], col->qname);
            if (!at)
                continue;
            uint32_t code;
            int64_t v;
            bool bad = false, ns = false;
            int rc = attr_entry(t, arena, col, at, dra_table_attr_code(col, r), false, &code, &v,
                                &bad, &ns, &oom);
            if (rc == DRA_EUNSUPPORTED)
                UNSUP("slice %s: device %s: the value of attribute %s (a version of new "
                      "precedence or a new list) is not in the device table's dictionary (not "
                      "incremental: rebuild the table)",
                      sn, nz(t->dev[r]->name), col->name);
            fresh += at->kind != DRA_ATTR_NONE && code == 0;
        }
        if ((uint64_t)col->ndict + fresh > width_max(col->width))
            UNSUP("slice %s: attribute %s: %u new values would outgrow the column's %u-byte codes "
                  "(not incremental: rebuild the table)",
                  sn, col->name, fresh, col->width);
    }
    for (uint32_t c = 0; c < t->ncaps; c++) {
        const dra_table_cap_t *col = &t->caps[c];
        uint32_t fresh = 0;
        for (uint32_t r = r0; r < r1; r++) {
            const dra_capacity_t *cp = dra_device_capacity(t->dev[r], col->qname);
            int64_t u;
            bool ex;
            fresh += cp && !cap_entry(col, &cp->value, dra_table_cap_code(col, r), &u, &ex);
        }
        if ((uint64_t)col->ndict + fresh > width_max(col->width))
            UNSUP("slice %s: capacity %s: %u new values would outgrow the column's %u-byte codes "
                  "(not incremental: rebuild the table)",
                  sn, col->name, fresh, col->width);
    }
    /* pass 2: write */
    for (uint32_t r = r0; r < r1; r++) {
        const dra_device_t *d = t->dev[r];
        uint8_t f = t->flags[r] & (DRA_ROW_SHARED | DRA_ROW_PAD);
        if (d->allow_multiple_allocations)
            f |= DRA_ROW_MULTI_ALLOC;
        if (d->ntaints)
            f |= DRA_ROW_TAINTED;
        if (d->nconsumes)
            f |= DRA_ROW_CONSUMES;
        if (d->nbinding_conditions || d->nbinding_failure_conditions || d->binds_to_node)
            f |= DRA_ROW_BINDING;
        bool bad = false;
        for (uint32_t c = 0; c < t->nattrs && !oom; c++) {
            dra_table_attr_t *col = &t->attrs[c];
            const dra_attr_t *at = dra_device_attr(d, col->qname);
            uint32_t code = 0;
            if (at && at->kind != DRA_ATTR_NONE) {
                int64_t v;
                bool ns = false;
                if (attr_entry(t, arena, col, at, dra_table_attr_code(col, r), true, &code, &v,
                               &bad, &ns, &oom) != DRA_OK)
                    return dra_diag_set(diag, DRA_EINTERNAL, NULL, 0, 0,
                                        "table update: attribute %s changed between passes",
                                        col->name);
                if (!code && !oom && !(code = attr_append(arena, col, at->kind, v)))
                    oom = true;
            }
            bool was = dra_bit_get(col->present, r);
            if (was != (code != 0)) {
                col->npresent = code ? col->npresent + 1 : col->npresent - 1;
                dra_bit_assign(col->present, r, code != 0);
            }
            dra_table_code_set(col->code, col->width, r, code);
        }
        for (uint32_t c = 0; c < t->ncaps && !oom; c++) {
            dra_table_cap_t *col = &t->caps[c];
            const dra_capacity_t *cp = dra_device_capacity(d, col->qname);
            uint32_t old = dra_table_cap_code(col, r), code = 0;
            if (old && dra_bit_get(col->dinexact, old))
                col->ninexact--;
            if (cp) {
                int64_t u;
                bool ex;
                code = cap_entry(col, &cp->value, old, &u, &ex);
                if (!code && !(code = cap_append(arena, col, &cp->value, u, ex)))
                    oom = true;
                if (code && dra_bit_get(col->dinexact, code))
                    col->ninexact++;
            }
            if ((old != 0) != (code != 0)) {
                col->npresent = code ? col->npresent + 1 : col->npresent - 1;
                dra_bit_assign(col->present, r, code != 0);
            }
            dra_table_code_set(col->code, col->width, r, code);
        }
        if (bad)
            f |= DRA_ROW_BAD_VERSION;
        if ((t->flags[r] & DRA_ROW_BAD_VERSION) && !bad)
            t->nbad_version_rows--;
        else if (!(t->flags[r] & DRA_ROW_BAD_VERSION) && bad)
            t->nbad_version_rows++;
        t->flags[r] = f;
    }
    if (oom) /* the rows written so far are consistent; the rest keep their old values */
        return dra_diag_set(diag, DRA_ENOMEM, NULL, 0, 0, "table update: out of memory");
    t->nupdates++;
    return DRA_OK;
}
