/*
 * plan.c - compiled claim signatures (match / error bitsets over the device table's rows and
 * their variants: matchAttribute groups, allocationMode All, "excl", capacity) and plans (a
 * pod's claims as requests of alternatives over signatures, or brute force; engine.h).
 *
 * Ownership: signatures and plans live in the engine's arena; claims are borrowed (engine.h).
 * Errors: DRA_ENOMEM; DRA_EINVAL for a claim list the engine cannot plan (dra_engine_plan);
 * a selector that does not compile, a missing class, a request the index cannot bound (derived
 * attributes, a capacity check that may fail the call) are not errors: the plan is brute force.
 * Cost: a signature O(rows) per selector (lowered column predicates) or per row (interpreter),
 * once per (class, selectors); a plan O(requests * alternatives) plus its direct answer's set-up
 * (direct.c), once per claim template; nothing per pod.
 */
#include "engine/engine_impl.h"

#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "cel/lower.h"

/* ---- signatures --------------------------------------------------------------------------- */

bool dra__same_selectors(const dra_exact_request_t *a, const dra_exact_request_t *b)
{
    if (a->nselectors != b->nselectors)
        return false;
    for (uint32_t i = 0; i < a->nselectors; i++)
        if (strcmp(dra__nz(a->selectors[i].cel), dra__nz(b->selectors[i].cel)))
            return false;
    return true;
}

/* AND one selector into match, OR its errors into err. */
static int eval_selector(dra_engine_t *e, const char *src, uint64_t *match, uint64_t *err,
                         uint64_t *tm, uint64_t *te)
{
    const dra_table_t *t = e->t;
    const dra_cel_prog_t *prog = NULL;
    dra_diag_t d;
    dra_diag_clear(&d);
    int rc = dra_cel_cache_get(e->cel, src, &prog, &d);
    if (rc == DRA_ENOMEM)
        return rc;
    if (rc)
        return DRA_EUNSUPPORTED; /* compile error: the plan goes to brute force */
    size_t nw = dra_bitset_words(t->nrows_padded);
    dra_lowered_t *l = NULL;
    rc = dra_lower_compile(prog, t, &e->arena, &l);
    if (rc == DRA_OK && (rc = dra_lower_eval(l, t, tm, te)) == DRA_OK) {
        e->nlowered++;
    } else if (rc == DRA_EUNSUPPORTED) {
        e->ninterpreted++;
        memset(tm, 0, nw * sizeof *tm);
        memset(te, 0, nw * sizeof *te);
        for (uint32_t r = 0; r < t->nrows; r++) {
            if (!dra_bit_get(match, r))
                continue; /* already false or an error: no need to evaluate */
            bool mt = false;
            dra_diag_clear(&d);
            int er = dra_cel_eval_device(prog, e->m, t->dev[r], &e->scratch, &mt, &d);
            dra_arena_reset(&e->scratch);
            if (er == DRA_ENOMEM)
                return er;
            if (er)
                dra_bit_set(te, r);
            else if (mt)
                dra_bit_set(tm, r);
        }
    } else {
        return rc;
    }
    /* selectors run in order and stop at the first false or error: this selector's errors count
     * only on rows where every earlier selector was true */
    for (size_t i = 0; i < nw; i++) {
        err[i] |= te[i] & match[i];
        match[i] &= tm[i];
    }
    return DRA_OK;
}

/* Room for one more signature in e->sigs (its address may change). */
static int sig_reserve(dra_engine_t *e)
{
    if (e->nsigs < e->capsigs)
        return DRA_OK;
    uint32_t nc = e->capsigs ? e->capsigs * 2 : 8;
    sig_t *ns = dra_mem_realloc(e->sigs, nc * sizeof *ns);
    if (!ns)
        return DRA_ENOMEM;
    e->sigs = ns;
    e->capsigs = nc;
    return DRA_OK;
}

/* A signature's per-node arrays (counts, error flags, segment tree); NULL members when out of
 * memory, which the caller checks. */
static void sig_node_arrays(dra_engine_t *e, sig_t *s)
{
    s->cnt = dra_arena_alloc(&e->arena, ((size_t)e->nnodes + 1) * sizeof *s->cnt, 8);
    s->herr = dra_arena_alloc(&e->arena, (size_t)e->nnodes + 1, 8);
    s->tree = dra_arena_alloc(&e->arena, 2 * (size_t)e->P * sizeof *s->tree, 64);
}

/* The signature being built becomes e->sigs[e->nsigs]: its rows get its bit in their mask
 * (signatures 0..31). Returns its index. O(rows / 64 + its matching rows). */
static uint32_t sig_commit(dra_engine_t *e)
{
    uint32_t si = e->nsigs++;
    if (si < 32) {
        if (e->sigs[si].attr != NONE)
            e->attrsigs |= 1u << si;
        const uint64_t *mt = e->sigs[si].match;
        for (uint32_t w = 0; w < dra_bitset_words(e->t->nrows); w++)
            for (uint64_t b = mt[w]; b; b &= b - 1)
                e->rs[(w << 6) + (uint32_t)__builtin_ctzll(b)].sigs |= 1u << si;
    }
    return si;
}

/* e->badattr: the rows with an attribute of an unsupported kind (DRA_ATTR_NONE), gathered on
 * the first signature with selectors and again after a slice update, instead of a pass over
 * every device's attributes for each signature. O(devices' attributes) when gathered. */
static int bad_attr_rows(dra_engine_t *e)
{
    if (e->badattr_ok)
        return DRA_OK;
    const dra_table_t *t = e->t;
    uint32_t n = 0, cap = 0, *v = NULL;
    for (uint32_t r = 0; r < t->nrows; r++) {
        const dra_device_t *d = t->dev[r];
        for (uint32_t a = 0; d && a < d->nattrs; a++)
            if (d->attrs[a].kind == DRA_ATTR_NONE) {
                if (n == cap) {
                    cap = cap ? 2 * cap : 16;
                    uint32_t *nv = dra_mem_realloc(v, cap * sizeof *nv);
                    if (!nv) {
                        dra_mem_free(v);
                        return DRA_ENOMEM;
                    }
                    v = nv;
                }
                v[n++] = r;
                break;
            }
    }
    dra_mem_free(e->badattr);
    e->badattr = v;
    e->nbadattr = n;
    e->badattr_ok = true;
    return DRA_OK;
}

/* The signature of (class, body), compiled on first use. *out NONE when it cannot be compiled. */
static int sig_get(dra_engine_t *e, const dra_device_class_t *cls, const dra_exact_request_t *body,
                   uint32_t *out)
{
    *out = NONE;
    for (uint32_t i = 0; i < e->nsigs; i++)
        if (e->sigs[i].cls == cls && e->sigs[i].attr == NONE && !e->sigs[i].all &&
            e->sigs[i].excl == NONE && !e->sigs[i].capbody &&
            dra__same_selectors(e->sigs[i].body, body)) {
            *out = i;
            return DRA_OK;
        }
    for (uint32_t i = 0; i < cls->nselectors; i++)
        if (!cls->selectors[i].cel)
            return DRA_OK;
    for (uint32_t i = 0; i < body->nselectors; i++)
        if (!body->selectors[i].cel)
            return DRA_OK;
    const dra_table_t *t = e->t;
    size_t nw = dra_bitset_words(t->nrows_padded);
    uint64_t *match = dra_arena_alloc(&e->arena, nw * 8, DRA_TABLE_ALIGN);
    uint64_t *err = dra_arena_alloc(&e->arena, nw * 8, DRA_TABLE_ALIGN);
    uint64_t *tm = dra_mem_malloc(nw * 8 + 64), *te = dra_mem_malloc(nw * 8 + 64);
    if (!match || !err || !tm || !te) {
        dra_mem_free(tm);
        dra_mem_free(te);
        return DRA_ENOMEM;
    }
    memset(err, 0, nw * 8);
    memset(match, 0, nw * 8);
    for (uint32_t r = 0; r < t->nrows; r++)
        if (t->dev[r])
            dra_bit_set(match, r);
    int rc = DRA_OK;
    uint32_t nsel = cls->nselectors + body->nselectors;
    for (uint32_t i = 0; i < nsel && rc == DRA_OK; i++) {
        const char *src = i < cls->nselectors ? cls->selectors[i].cel
                                              : body->selectors[i - cls->nselectors].cel;
        rc = eval_selector(e, src, match, err, tm, te);
    }
    dra_mem_free(tm);
    dra_mem_free(te);
    if (rc == DRA_EUNSUPPORTED)
        return DRA_OK;
    if (rc)
        return rc;
    if (nsel) {
        /* an attribute of an unsupported kind fails every selector evaluation */
        if (bad_attr_rows(e))
            return DRA_ENOMEM;
        for (uint32_t i = 0; i < e->nbadattr; i++) {
            dra_bit_set(err, e->badattr[i]);
            dra_bit_clear(match, e->badattr[i]);
        }
    }
    if (sig_reserve(e))
        return DRA_ENOMEM;
    sig_t *s = &e->sigs[e->nsigs];
    memset(s, 0, sizeof *s);
    s->attr = NONE;
    s->excl = NONE;
    s->maxset = -1;
    s->cls = cls;
    s->body = body;
    s->match = match;
    s->err = err;
    sig_node_arrays(e, s);
    if (!s->cnt || !s->herr || !s->tree)
        return DRA_ENOMEM;
    dra__sig_count(e, s);
    dra__tree_build(e, s);
    *out = sig_commit(e);
    /* the exact allocator reads the same compiled answer instead of evaluating CEL per device */
    if (e->alloc && e->alloc->kind == DRA_ALLOC_FAST && e->alloc->fast)
        return dra_fast_seed_selectors(e->alloc->fast, cls, body, e->nord, e->ord_row, match, err);
    return DRA_OK;
}

/* Same kind and value: the same dictionary code (list columns never get here). */
uint32_t dra__group_node(const dra_engine_t *e, sig_t *s, uint32_t tn)
{
    const dra_table_t *t = e->t;
    const dra_table_attr_t *a = &t->attrs[s->attr];
    uint32_t first_row_of_group[64];
    uint32_t here = 0;
    for (uint32_t r = t->nodes[tn].begin; r < t->nodes[tn].end; r++) {
        s->grp[r] = GRP_NONE;
        if (!dra_bit_get(s->match, r) || dra_table_attr_code(a, r) == 0)
            continue;
        uint32_t g = NONE;
        for (uint32_t j = 0; j < here && g == NONE; j++)
            if (dra_table_attr_same(a, first_row_of_group[j], r))
                g = j;
        if (g == NONE) {
            if (here == 64) { /* too many values on one node: one group for the rest */
                g = here - 1;
            } else {
                first_row_of_group[here] = r;
                g = here++;
            }
        }
        s->grp[r] = (uint8_t)g;
    }
    return here;
}

/* The matchAttribute variant of signature base over table attribute column ai; *out NONE when
 * the column holds list values (intersection semantics: not summarized). */
static int sig_get_group(dra_engine_t *e, uint32_t base, uint32_t ai, uint32_t *out)
{
    *out = NONE;
    for (uint32_t i = 0; i < e->nsigs; i++)
        if (e->sigs[i].attr == ai && e->sigs[i].cls == e->sigs[base].cls &&
            e->sigs[i].excl == e->sigs[base].excl && e->sigs[i].capbody == e->sigs[base].capbody &&
            dra__same_selectors(e->sigs[i].body, e->sigs[base].body)) {
            *out = i;
            return DRA_OK;
        }
    const dra_table_t *t = e->t;
    const dra_table_attr_t *a = &t->attrs[ai];
    for (int k = DRA_ATTR_INTS; k <= DRA_ATTR_VERSIONS; k++)
        if (a->kinds & (1u << k))
            return DRA_OK;
    if (sig_reserve(e))
        return DRA_ENOMEM;
    sig_t *s = &e->sigs[e->nsigs];
    *s = e->sigs[base]; /* shares match / err bitsets */
    s->stm = 0; /* the score trees over base are not over it */
    s->attr = ai;
    sig_node_arrays(e, s);
    s->grp = dra_arena_alloc(&e->arena, (size_t)t->nrows + 1, 8);
    s->gfirst = dra_arena_alloc(&e->arena, ((size_t)e->nnodes + 1) * sizeof *s->gfirst, 8);
    if (!s->cnt || !s->herr || !s->tree || !s->grp || !s->gfirst)
        return DRA_ENOMEM;
    if (s->capbody) { /* its own fit bits: dra__cap_share updates each signature's */
        size_t nw = dra_bitset_words(t->nrows_padded);
        uint64_t *cf = dra_arena_alloc(&e->arena, nw * 8, DRA_TABLE_ALIGN);
        if (!cf)
            return DRA_ENOMEM;
        memcpy(cf, s->cfit, nw * 8);
        s->cfit = cf;
        e->ncapsigs++;
    }
    /* groups: per node, one per distinct value among its matching rows (rows in node order) */
    uint32_t ng = 0;
    for (uint32_t r = 0; r < t->nrows; r++)
        s->grp[r] = GRP_NONE;
    for (uint32_t n = 0; n < e->nnodes; n++) {
        s->gfirst[n] = ng;
        uint32_t tn = e->tnode[n];
        if (tn == NONE)
            continue;
        ng += dra__group_node(e, s, tn);
    }
    s->gfirst[e->nnodes] = ng;
    s->gcnt = dra_arena_alloc(&e->arena, ((size_t)ng + 1) * sizeof *s->gcnt, 8);
    if (!s->gcnt)
        return DRA_ENOMEM;
    if (s->capbody)
        dra__cfit_sync(e, e->nsigs, 0, t->nrows);
    dra__sig_count(e, s);
    dra__tree_build(e, s);
    *out = sig_commit(e);
    return DRA_OK;
}

/* Most matching rows (errors aside) one node can see: its range plus the whole shared range, an
 * upper bound on the size of an All request's set on any node. */
static int32_t sig_maxset(dra_engine_t *e, uint32_t si)
{
    sig_t *s = &e->sigs[si];
    if (s->maxset >= 0)
        return s->maxset;
    int32_t sh = 0, best = 0;
    for (uint32_t r = e->t->shared_begin; r < e->t->nrows; r++)
        sh += dra_bit_get(s->match, r);
    for (uint32_t n = 0; n < e->nnodes; n++) {
        uint32_t tn = e->tnode[n];
        int32_t c = 0;
        if (tn != NONE)
            for (uint32_t r = e->t->nodes[tn].begin; r < e->t->nodes[tn].end; r++)
                c += dra_bit_get(s->match, r);
        best = c > best ? c : best;
    }
    s->maxset = best + sh;
    return s->maxset;
}

/* A variant of the plain signature base: the All variant (all, noblk) or, excl != NONE, base
 * minus the certain members of the All signature excl's set (see sig_t). Compiled on first use. */
static int sig_variant(dra_engine_t *e, uint32_t base, bool all, bool noblk, uint32_t excl,
                       uint32_t *out)
{
    for (uint32_t i = 0; i < e->nsigs; i++) {
        const sig_t *s = &e->sigs[i], *b = &e->sigs[base];
        if (s->cls == b->cls && s->attr == NONE && s->all == all && s->noblk == noblk &&
            s->excl == excl && !s->capbody && dra__same_selectors(s->body, b->body)) {
            *out = i;
            return DRA_OK;
        }
    }
    if (sig_reserve(e))
        return DRA_ENOMEM;
    sig_t *s = &e->sigs[e->nsigs];
    *s = e->sigs[base]; /* shares match / err unless excl */
    s->stm = 0; /* the score trees over base are not over it */
    s->all = all;
    s->noblk = noblk;
    s->excl = excl;
    s->maxset = -1;
    const dra_table_t *t = e->t;
    if (excl != NONE) {
        const sig_t *x = &e->sigs[excl];
        size_t nw = dra_bitset_words(t->nrows_padded);
        uint64_t *match = dra_arena_alloc(&e->arena, nw * 8, DRA_TABLE_ALIGN);
        uint64_t *err = dra_arena_alloc(&e->arena, nw * 8, DRA_TABLE_ALIGN);
        if (!match || !err)
            return DRA_ENOMEM;
        for (size_t i = 0; i < nw; i++) {
            match[i] = s->match[i];
            err[i] = s->err[i] | x->err[i];
        }
        for (uint32_t r = 0; r < t->shared_begin; r++)
            if (dra_bit_get(x->match, r) && dra_bit_get(e->amem, r) && !dra__row_multi(e, r))
                dra_bit_clear(match, r);
        s->match = match;
        s->err = err;
    }
    sig_node_arrays(e, s);
    s->blk = all ? dra_arena_alloc(&e->arena, ((size_t)e->nnodes + 1) * sizeof *s->blk, 8) : NULL;
    if (!s->cnt || !s->herr || !s->tree || (all && !s->blk))
        return DRA_ENOMEM;
    if (all && !e->nall)
        for (uint32_t r = 0; r < t->nrows; r++)
            dra_bit_assign(e->bk, r, dra__row_blocked(e, r));
    dra__sig_count(e, s);
    dra__tree_build(e, s);
    if (all)
        e->nall++;
    *out = sig_commit(e);
    return DRA_OK;
}

static bool same_caps(const dra_exact_request_t *a, const dra_exact_request_t *b)
{
    if (a == b)
        return true;
    if (a->ncap_requests != b->ncap_requests)
        return false;
    for (uint32_t i = 0; i < a->ncap_requests; i++)
        if (strcmp(dra__nz(a->cap_requests[i].name), dra__nz(b->cap_requests[i].name)) ||
            dra__aq_from(&a->cap_requests[i].value) != dra__aq_from(&b->cap_requests[i].value))
            return false;
    return true;
}

/* The capacity variant of the plain signature base for a request body with capacity requests:
 * rows count only while the body's capacity fits (see sig_t). Compiled on first use. */
static int sig_cap(dra_engine_t *e, uint32_t base, const dra_exact_request_t *body, uint32_t *out)
{
    for (uint32_t i = 0; i < e->nsigs; i++) {
        const sig_t *s = &e->sigs[i], *b = &e->sigs[base];
        if (s->cls == b->cls && s->attr == NONE && !s->all && s->excl == NONE && s->capbody &&
            same_caps(s->capbody, body) && dra__same_selectors(s->body, b->body)) {
            *out = i;
            return DRA_OK;
        }
    }
    if (sig_reserve(e))
        return DRA_ENOMEM;
    sig_t *s = &e->sigs[e->nsigs];
    *s = e->sigs[base];
    s->stm = 0; /* the score trees over base are not over it */
    s->capbody = body;
    s->maxset = -1;
    size_t nw = dra_bitset_words(e->t->nrows_padded);
    s->cfit = dra_arena_alloc(&e->arena, nw * 8, DRA_TABLE_ALIGN);
    sig_node_arrays(e, s);
    if (!s->cfit || !s->cnt || !s->herr || !s->tree || dra__cap_limits(e, s))
        return DRA_ENOMEM;
    memset(s->cfit, 0, nw * 8);
    for (uint32_t r = 0; r < e->t->nrows; r++)
        if (dra_bit_get(s->match, r) && dra__cap_fits_row(e, s, r))
            dra_bit_set(s->cfit, r);
    dra__cfit_sync(e, e->nsigs, 0, e->t->nrows);
    dra__sig_count(e, s);
    dra__tree_build(e, s);
    e->ncapsigs++;
    *out = sig_commit(e);
    return DRA_OK;
}

/* ---- plans -------------------------------------------------------------------------------- */

/* Whether some row the signature matches is a multi-allocatable device with capacities (whose
 * shares' capacity cx keeps). O(rows / 64 + matches). */
static bool sig_matches_shared_caps(const dra_engine_t *e, const sig_t *s)
{
    for (uint32_t w = 0; e->cx_off && w < dra_bitset_words(e->t->nrows); w++)
        for (uint64_t b = s->match[w]; b; b &= b - 1)
            if (e->cx_off[(w << 6) + (uint32_t)__builtin_ctzll(b)] != NONE)
                return true;
    return false;
}

/* Whether the allocator's capacity check of body on some device signature s matches fails the
 * call (from 1.37, #140442: an unrepresentable or negative request; no profile fails it on a
 * requested capacity the device lacks, alloc_impl.h cap_missing_fatal):
 * the summaries cannot say whether its search reaches such a device first. O(matches). */
static bool sig_cap_fatal(const dra_engine_t *e, const sig_t *s, const dra_exact_request_t *body)
{
    if (!e->beh.cc || !body->ncap_requests || !(e->beh.cap_missing_fatal || e->beh.cap_unrepr_fatal))
        return false;
    for (uint32_t w = 0; w < dra_bitset_words(e->t->nrows); w++)
        for (uint64_t b = s->match[w]; b; b &= b - 1) {
            const dra_device_t *d = e->t->dev[(w << 6) + (uint32_t)__builtin_ctzll(b)];
            if (d && dra__cap_is_fatal(e, dra__eng_cap_fits(e, body, d, NULL)))
                return true;
        }
    return false;
}

/* Add the alternative (body); false when the plan cannot be indexed. xs: the plain signature of
 * the plan's All request whose set other requests cannot take from (NONE: none). *size: the
 * most devices the alternative can take (k, or the All set's bound). */
static int add_alt(dra_engine_t *e, plan_t *p, const dra_exact_request_t *body, uint32_t xs,
                   bool *ok, int64_t *size)
{
    if (!body || !body->class_name || !body->class_name[0] ||
        (body->mode != DRA_MODE_EXACT_COUNT && body->mode != DRA_MODE_ALL)) {
        *ok = false;
        return DRA_OK;
    }
    bool all = body->mode == DRA_MODE_ALL;
    int64_t k = all ? 1 : body->has_count ? body->count : 1; /* All ignores count */
    /* derived attributes (1.37): per-request values the table's columns do not hold, and a CEL
     * runtime error (or the gate off) fails the call: brute force */
    if (k < 1 || k > DRA_ALLOC_MAX_RESULTS || (body->has_admin_access && !e->beh.admin) ||
        (body->has_capacity && !e->beh.cc) || body->nderived) {
        *ok = false;
        return DRA_OK;
    }
    const dra_device_class_t *cls = dra_model_find_class(e->m, body->class_name);
    if (!cls) {
        *ok = false;
        return DRA_OK;
    }
    uint32_t si;
    int rc = sig_get(e, cls, body, &si);
    if (rc)
        return rc;
    if (si == NONE || sig_cap_fatal(e, &e->sigs[si], body)) {
        *ok = false;
        return DRA_OK;
    }
    *size = k;
    if (all) {
        *size = sig_maxset(e, si);
        /* adminAccess may take allocated devices: the plain signature without a condition */
        if (!body->admin_access &&
            (rc = sig_variant(e, si, true, body->has_capacity || body->ncap_requests > 0, NONE,
                              &si)))
            return rc;
    } else if (xs != NONE && !body->admin_access) {
        if ((rc = sig_variant(e, si, false, false, xs, &si)))
            return rc;
    } else if (e->beh.cc && e->cx_off && !body->admin_access &&
               (body->ncap_requests > 0 || sig_matches_shared_caps(e, &e->sigs[si]))) {
        /* a request without capacity requests consumes the defaults of a shared device */
        if ((rc = sig_cap(e, si, body, &si)))
            return rc;
    }
    alt_t *na = dra_mem_realloc(p->alts, (p->nalts + 1) * sizeof *na);
    if (!na)
        return DRA_ENOMEM;
    p->alts = na;
    /* adminAccess may take allocated devices: count-only summaries say nothing, no condition */
    na[p->nalts].sig = si;
    na[p->nalts].k = body->admin_access ? INT32_MIN / 2 : (int32_t)k;
    if (all)
        p->anyall = true;
    p->nalts++;
    if (e->sigs[si].any_err)
        p->hazard = true;
    return DRA_OK;
}

/* A matchAttribute constraint in scope of request r: its devices all have the attribute with one
 * value, so the request needs k free matching devices of one value on the node (plus shared
 * ones that have the attribute). The last alternative added (r's) switches to that variant. */
static int match_group(dra_engine_t *e, plan_t *p, const dra_claim_t *cl, const dra_request_t *r)
{
    for (uint32_t x = 0; x < cl->nconstraints; x++) {
        const dra_constraint_t *cn = &cl->constraints[x];
        if (!cn->match_attribute)
            continue;
        bool in = cn->nrequests == 0;
        for (uint32_t j = 0; j < cn->nrequests && !in; j++)
            in = strcmp(dra__nz(cn->requests[j]), dra__nz(r->name)) == 0;
        if (!in)
            continue;
        const dra_table_attr_t *ta =
            dra_table_attr_by_name(e->t, cn->match_attribute, strlen(cn->match_attribute));
        if (!ta)
            continue;
        alt_t *a = &p->alts[p->nalts - 1];
        uint32_t gs;
        int rc = sig_get_group(e, a->sig, (uint32_t)(ta - e->t->attrs), &gs);
        if (rc)
            return rc;
        if (gs != NONE) {
            a->sig = gs;
            return DRA_OK;
        }
    }
    return DRA_OK;
}

/* Whether some row the signature matches is multi-allocatable. O(rows / 64 + matches). */
static bool sig_matches_multi(const dra_engine_t *e, const sig_t *s)
{
    for (uint32_t w = 0; w < dra_bitset_words(e->t->nrows); w++)
        for (uint64_t b = s->match[w]; b; b &= b - 1)
            if (e->t->flags[(w << 6) + (uint32_t)__builtin_ctzll(b)] & DRA_ROW_MULTI_ALLOC)
                return true;
    return false;
}

static int plan_compile(dra_engine_t *e, plan_t *p)
{
    p->indexed = false;
    if (e->all_brute || !p->nclaims)
        return DRA_OK;
    uint32_t nreq = 0;
    for (uint32_t c = 0; c < p->nclaims; c++)
        nreq += p->claims[c]->nrequests;
    p->reqs = dra_mem_calloc(nreq + 1, sizeof *p->reqs);
    if (!p->reqs)
        return DRA_ENOMEM;
    bool ok = true;
    /* an All request (exactly, no adminAccess, no capacity) takes every device of its set: the
     * devices of the other requests of the pod cannot be among them (a taken device fails the
     * All request, and a device the All request took is taken) */
    uint32_t xs = NONE;
    for (uint32_t c = 0; c < p->nclaims && xs == NONE; c++)
        for (uint32_t ri = 0; ri < p->claims[c]->nrequests && xs == NONE; ri++) {
            const dra_exact_request_t *b = p->claims[c]->requests[ri].exactly;
            if (p->claims[c]->requests[ri].nfirst_available || !b || b->mode != DRA_MODE_ALL ||
                b->admin_access || b->has_admin_access || b->has_capacity ||
                b->ncap_requests > 0 || !b->class_name)
                continue;
            const dra_device_class_t *cls = dra_model_find_class(e->m, b->class_name);
            int rc = cls ? sig_get(e, cls, b, &xs) : DRA_OK;
            if (rc)
                return rc;
        }
    for (uint32_t c = 0; c < p->nclaims && ok; c++) {
        const dra_claim_t *cl = p->claims[c];
        if (!cl->nrequests) {
            ok = false;
            break;
        }
        int64_t total = 0, most = 0;
        bool anyall = false;
        for (uint32_t x = 0; x < cl->nconstraints; x++) {
            const dra_constraint_t *cn = &cl->constraints[x];
            if (!cn->match_attribute && !(cn->distinct_attribute && e->beh.cc))
                ok = false;
        }
        for (uint32_t ri = 0; ri < cl->nrequests && ok; ri++) {
            const dra_request_t *r = &cl->requests[ri];
            creq_t *q = &p->reqs[p->nreqs++];
            q->alt0 = p->nalts;
            int64_t minc = INT64_MAX, maxc = 0, size = 0;
            if (r->nfirst_available) {
                if (!e->beh.prio) {
                    ok = false;
                    break;
                }
                for (uint32_t s = 0; s < r->nfirst_available && ok; s++) {
                    const dra_exact_request_t *b = &r->first_available[s];
                    int rc = add_alt(e, p, b, xs, &ok, &size);
                    if (rc)
                        return rc;
                    anyall |= b->mode == DRA_MODE_ALL;
                    int64_t k = b->mode == DRA_MODE_ALL ? 0 : b->has_count ? b->count : 1;
                    minc = k < minc ? k : minc;
                    maxc = size > maxc ? size : maxc;
                }
            } else if (r->exactly) {
                int rc = add_alt(e, p, r->exactly, xs, &ok, &size);
                if (rc)
                    return rc;
                anyall |= r->exactly->mode == DRA_MODE_ALL;
                if (ok && r->exactly->mode != DRA_MODE_ALL && !r->exactly->admin_access &&
                    (rc = match_group(e, p, cl, r)))
                    return rc;
                minc = r->exactly->mode == DRA_MODE_ALL ? 0
                       : r->exactly->has_count ? r->exactly->count : 1;
                maxc = size;
            } else {
                ok = false;
            }
            q->nalt = p->nalts - q->alt0;
            total += minc == INT64_MAX             ? 0
                     : minc > DRA_ALLOC_MAX_RESULTS ? DRA_ALLOC_MAX_RESULTS + 1 /* no overflow */
                                                    : minc;
            most += maxc;
        }
        if (total > DRA_ALLOC_MAX_RESULTS)
            ok = false;
        /* All: a claim constraint violated by a device of the set is Fatal, and a set that would
         * take the claim past the result limit ends the search: neither depends only on the
         * summaries, so such claims stay with brute force */
        if (anyall && (cl->nconstraints || most > DRA_ALLOC_MAX_RESULTS))
            ok = false;
    }
    /* permutations (1.34, 1.35) may pick one multi-allocatable device several times for one
     * request of several devices: "k available matching devices" is no necessary condition
     * there (a request of one device takes one, as in every profile) */
    for (uint32_t a = 0; ok && e->beh.cc && !e->beh.combos && a < p->nalts; a++)
        ok = (p->alts[a].k == 1 && !e->sigs[p->alts[a].sig].all) ||
             !sig_matches_multi(e, &e->sigs[p->alts[a].sig]);
    if (!ok) {
        p->nreqs = 0;
        p->nalts = 0;
        return DRA_OK;
    }
    /* every All request checks every pool the node sees before the search (NodeFailure or Fatal
     * on one that is incomplete from the node): with such nodes, All plans stay brute force */
    if (p->anyall && e->nahz) {
        p->nreqs = 0;
        p->nalts = 0;
        return DRA_OK;
    }
    for (uint32_t i = 0; i < e->nnodes && !p->hazard; i++)
        p->hazard = e->hz[i];
    /* error nodes: a request with an error row there is admitted (its leaf is HAZARD), but the
     * plan must be too, whatever its other requests count; an error row in the shared range
     * makes every node one */
    for (uint32_t a = 0; a < p->nalts; a++)
        p->err_all |= e->sigs[p->alts[a].sig].sherr;
    for (int pass = 0; pass < 2; pass++) {
        uint32_t k = 0;
        for (uint32_t n = 0; n < e->nnodes; n++) {
            bool err = false;
            for (uint32_t a = 0; a < p->nalts && !err; a++)
                err = e->sigs[p->alts[a].sig].herr[n];
            if (err && pass)
                p->errn[k] = n;
            k += err;
        }
        if (!pass) {
            if (!k)
                break;
            p->errn = dra_mem_malloc(k * sizeof *p->errn);
            if (!p->errn)
                return DRA_ENOMEM;
        }
        p->nerrn = k;
    }
    p->nomulti = true;
    for (uint32_t a = 0; a < p->nalts && p->nomulti; a++)
        p->nomulti = !sig_matches_multi(e, &e->sigs[p->alts[a].sig]);
    p->indexed = true;
    return DRA_OK;
}

int dra_engine_plan(dra_engine_t *e, dra_claim_t *const *claims, uint32_t n, uint32_t *plan)
{
    if (!e || (!claims && n) || !plan)
        return DRA_EINVAL;
    if (e->nplans == e->capplans) {
        uint32_t nc = e->capplans ? e->capplans * 2 : 8;
        plan_t *np = dra_mem_realloc(e->plans, nc * sizeof *np);
        if (!np)
            return DRA_ENOMEM;
        e->plans = np;
        e->capplans = nc;
    }
    plan_t *p = &e->plans[e->nplans];
    memset(p, 0, sizeof *p);
    p->claims = dra_mem_calloc(n + 1, sizeof *p->claims);
    if (!p->claims)
        return DRA_ENOMEM;
    memcpy(p->claims, claims, n * sizeof *claims);
    p->nclaims = n;
    e->nplans++;
    int rc = plan_compile(e, p);
    if (!rc)
        rc = dra__direct_compile(e, p);
    if (rc)
        return rc;
    *plan = e->nplans - 1;
    return DRA_OK;
}

int dra__plan_recompile(dra_engine_t *e, uint32_t plan)
{
    plan_t *p = &e->plans[plan];
    dra_mem_free(p->reqs);
    dra_mem_free(p->alts);
    dra_mem_free(p->errn);
    dra_claim_t **claims = p->claims;
    uint32_t n = p->nclaims;
    int64_t cpu = p->cpu_m, mem = p->mem_b;
    memset(p, 0, sizeof *p);
    p->claims = claims;
    p->nclaims = n;
    p->cpu_m = cpu;
    p->mem_b = mem;
    int rc = plan_compile(e, p);
    return rc ? rc : dra__direct_compile(e, p);
}

bool dra_engine_plan_indexed(const dra_engine_t *e, uint32_t plan)
{
    return plan < e->nplans && e->plans[plan].indexed;
}

/* ---- bounds for groups of pods (core/group) -------------------------------------------------- */

uint32_t dra_engine_next_admitted(const dra_engine_t *e, uint32_t plan, uint32_t from)
{
    if (!e || plan >= e->nplans || from >= e->nnodes)
        return NONE;
    const plan_t *p = &e->plans[plan];
    return p->indexed ? dra__plan_next(e, p, from) : from;
}

bool dra_engine_plan_certain(const dra_engine_t *e, uint32_t plan)
{
    if (!e || plan >= e->nplans)
        return false;
    const plan_t *p = &e->plans[plan];
    return p->indexed && !p->hazard && !p->nerrn && !p->err_all && !e->multiterm;
}

/* Pods of request alternative a on node n one after another: each takes k of the signature's
 * available matching rows of the node (in one value group of a matchAttribute signature), and
 * rows only become unavailable while pods are added. */
static uint32_t alt_bound(const dra_engine_t *e, const alt_t *a, uint32_t n)
{
    const sig_t *s = &e->sigs[a->sig];
    if (s->all || s->capbody || s->shany || a->k <= 0)
        return DRA_ENGINE_UNBOUNDED;
    if (s->attr == NONE)
        return s->cnt[n] > 0 ? (uint32_t)(s->cnt[n] / a->k) : 0;
    uint64_t b = 0;
    for (uint32_t g = s->gfirst[n]; g < s->gfirst[n + 1]; g++)
        b += s->gcnt[g] > 0 ? (uint64_t)(s->gcnt[g] / a->k) : 0;
    return b < DRA_ENGINE_UNBOUNDED ? (uint32_t)b : DRA_ENGINE_UNBOUNDED;
}

uint32_t dra_engine_fit_bound(const dra_engine_t *e, uint32_t plan, uint32_t node)
{
    if (!e || plan >= e->nplans || node >= e->nnodes)
        return DRA_ENGINE_UNBOUNDED;
    const plan_t *p = &e->plans[plan];
    if (!p->indexed || !p->nomulti || e->multiterm || (e->nhazard && e->hz[node]) ||
        p->err_all)
        return DRA_ENGINE_UNBOUNDED;
    for (uint32_t a = 0; a < p->nalts; a++) /* an error node: the search may meet the error */
        if (e->sigs[p->alts[a].sig].any_err && e->sigs[p->alts[a].sig].herr[node])
            return DRA_ENGINE_UNBOUNDED;
    uint32_t b = DRA_ENGINE_UNBOUNDED;
    for (uint32_t i = 0; i < p->nreqs && b; i++) {
        const creq_t *rq = &p->reqs[i];
        if (!rq->nalt)
            continue;
        uint64_t r = 0;
        for (uint32_t j = 0; j < rq->nalt && r < DRA_ENGINE_UNBOUNDED; j++)
            r += alt_bound(e, &p->alts[rq->alt0 + j], node);
        if (r < b)
            b = (uint32_t)r;
    }
    int64_t cap[2] = {e->cpu_cap[node], e->mem_cap[node]};
    int64_t used[2] = {e->cpu_used[node], e->mem_used[node]};
    int64_t req[2] = {p->cpu_m, p->mem_b};
    for (int x = 0; x < 2; x++)
        if (req[x] > 0 && cap[x] >= 0) {
            int64_t left = cap[x] - used[x];
            uint64_t r = left > 0 ? (uint64_t)(left / req[x]) : 0;
            if (r < b)
                b = (uint32_t)r;
        }
    return b;
}
