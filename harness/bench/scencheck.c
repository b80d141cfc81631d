/* scencheck.c - a scenario checked against the cluster it builds; see scencheck.h. */
#include "scencheck.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "alloc/explain.h"
#include "base/intern.h"
#include "cel/cel.h"
#include "conformance.h"
#include "escape.h"
#include "gen/workload.h"
#include "ydoc.h"

#define MAX_REPS 256 /* nodes read from manifests explained per entry */

typedef struct rep {
    const dra_node_t *node;
    char label[160]; /* "dgx-h100 nodes (dgx-*)" or "node n1" */
} rep_t;

typedef struct cls_devs {
    const dra_device_class_t *cls;
    const dra_device_t **d; /* distinct device definitions passing the class's selectors */
    uint32_t n;
} cls_devs_t;

typedef struct sc {
    const dra_scenario_t *s;
    dra_model_t *m;
    const dra_scenario_built_t *b;
    dra_diag_list_t *errs, *warns;
    dra_alloc_features_t f;
    dra_cel_cache_t *cel;
    dra_arena_t scratch;
    rep_t *reps;
    uint32_t nreps;
    cls_devs_t *cd;
    uint32_t ncd;
    bool *fits; /* per mix entry: fits some representative node of the empty cluster */
    bool named; /* check_names reported the current entry (its unfit reason would repeat it) */
    int rc;
} sc_t;

static const char *nz(const char *s)
{
    return s ? s : "";
}

static const dra_ynode_t *yget(const void *n, const char *key)
{
    return n ? dra_ynode_get((const dra_ynode_t *)n, key) : NULL;
}

static void add(sc_t *c, dra_diag_list_t *l, uint32_t line, uint32_t col, const char *fmt, ...)
    DRA_PRINTF(5, 6);
static void add(sc_t *c, dra_diag_list_t *l, uint32_t line, uint32_t col, const char *fmt, ...)
{
    char msg[DRA_DIAG_MSG_MAX];
    va_list ap;
    va_start(ap, fmt);
    dra_msg_vformat(msg, sizeof msg, fmt, ap);
    va_end(ap);
    if (dra_diag_list_add(l, DRA_EVALIDATE, c->s->file, line, col, "%s", msg) == DRA_ENOMEM)
        c->rc = DRA_ENOMEM;
}

/* A diagnostic at YAML node n (its parent's when n is NULL: pass a fallback). */
#define AT(n) (n) ? (n)->line : 0, (n) ? (n)->column : 0

/* ---- names the devices of a class have ------------------------------------------------------ */

static bool same_def(const dra_device_t *a, const dra_device_t *b)
{
    return a->attrs == b->attrs && a->nattrs == b->nattrs && a->caps == b->caps &&
           a->ncaps == b->ncaps && a->slice->driver == b->slice->driver &&
           a->allow_multiple_allocations == b->allow_multiple_allocations;
}

/* Does d pass every selector of cls? (A compile or runtime error: no.) */
static bool class_matches(sc_t *c, const dra_device_class_t *cls, const dra_device_t *d)
{
    for (uint32_t i = 0; i < cls->nselectors; i++) {
        const dra_cel_prog_t *p = NULL;
        dra_diag_t dg;
        bool mt = false;
        if (!cls->selectors[i].cel || dra_cel_cache_get(c->cel, cls->selectors[i].cel, &p, &dg) ||
            dra_cel_eval_device(p, c->m, d, &c->scratch, &mt, &dg) || !mt)
            return false;
    }
    return true;
}

/* The distinct device definitions of the cluster that pass the class's selectors (cached). */
static const cls_devs_t *class_devices(sc_t *c, const dra_device_class_t *cls)
{
    for (uint32_t i = 0; i < c->ncd; i++)
        if (c->cd[i].cls == cls)
            return &c->cd[i];
    cls_devs_t *ncd = realloc(c->cd, (c->ncd + 1) * sizeof *ncd);
    if (!ncd) {
        c->rc = DRA_ENOMEM;
        return NULL;
    }
    c->cd = ncd;
    cls_devs_t *e = &c->cd[c->ncd++];
    memset(e, 0, sizeof *e);
    e->cls = cls;
    /* distinct definitions: a hash set over (attrs, caps) pointers */
    uint32_t cap = 1024, mask = cap - 1, nd = 0, capd = 64;
    const dra_device_t **seen = calloc(cap, sizeof *seen);
    e->d = malloc(capd * sizeof *e->d);
    if (!seen || !e->d) {
        free(seen);
        c->rc = DRA_ENOMEM;
        return e;
    }
    uint32_t nseen = 0;
    for (uint32_t si = 0; si < c->m->nslices && !c->rc; si++) {
        const dra_slice_t *sl = c->m->slices[si];
        for (uint32_t di = 0; di < sl->ndevices; di++) {
            const dra_device_t *d = &sl->devices[di];
            uint64_t h = ((uintptr_t)d->attrs * 0x9E3779B97F4A7C15ull) ^ (uintptr_t)d->caps ^
                         ((uintptr_t)sl->driver << 7);
            uint32_t j = (uint32_t)(h ^ (h >> 29)) & mask;
            while (seen[j] && !same_def(seen[j], d))
                j = (j + 1) & mask;
            if (seen[j])
                continue;
            seen[j] = d;
            if (2 * ++nseen > cap) { /* grow the set */
                uint32_t nc = 2 * cap;
                const dra_device_t **ns = calloc(nc, sizeof *ns);
                if (!ns) {
                    c->rc = DRA_ENOMEM;
                    break;
                }
                for (uint32_t k = 0; k < cap; k++) {
                    if (!seen[k])
                        continue;
                    const dra_device_t *x = seen[k];
                    uint64_t hx = ((uintptr_t)x->attrs * 0x9E3779B97F4A7C15ull) ^
                                  (uintptr_t)x->caps ^ ((uintptr_t)x->slice->driver << 7);
                    uint32_t q = (uint32_t)(hx ^ (hx >> 29)) & (nc - 1);
                    while (ns[q])
                        q = (q + 1) & (nc - 1);
                    ns[q] = x;
                }
                free(seen);
                seen = ns;
                cap = nc;
                mask = nc - 1;
            }
            if (!class_matches(c, cls, d))
                continue;
            if (nd == capd) {
                const dra_device_t **n2 = realloc(e->d, 2 * capd * sizeof *n2);
                if (!n2) {
                    c->rc = DRA_ENOMEM;
                    break;
                }
                e->d = n2;
                capd *= 2;
            }
            e->d[nd++] = d;
        }
    }
    free(seen);
    e->n = nd;
    return e;
}

static int cmp_str(const void *a, const void *b)
{
    return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* Whether some device of e has qualified name id as an attribute (capacity when cap). */
static bool has_name(const cls_devs_t *e, uint32_t id, bool cap)
{
    for (uint32_t i = 0; id && i < e->n; i++) {
        if (cap ? dra_device_capacity(e->d[i], id) != NULL : dra_device_attr(e->d[i], id) != NULL)
            return true;
    }
    return false;
}

/* Whether some device of e has a capacity written as name (how the allocator matches a capacity
 * request with a device's capacity: capacityFits compares the names as written). */
static bool has_cap_written(const cls_devs_t *e, const char *name)
{
    for (uint32_t i = 0; i < e->n; i++)
        for (uint32_t k = 0; k < e->d[i]->ncaps; k++)
            if (strcmp(nz(e->d[i]->caps[k].name), nz(name)) == 0)
                return true;
    return false;
}

/* Edit distance of a and b, case-insensitive, capped at 9 (short names only). */
static unsigned edits(const char *a, const char *b)
{
    size_t la = strlen(a), lb = strlen(b);
    if (la > 63 || lb > 63)
        return 9;
    unsigned row[64];
    for (size_t j = 0; j <= lb; j++)
        row[j] = (unsigned)j;
    for (size_t i = 1; i <= la; i++) {
        unsigned diag = row[0];
        row[0] = (unsigned)i;
        for (size_t j = 1; j <= lb; j++) {
            unsigned up = row[j];
            unsigned ca = (unsigned char)a[i - 1], cb = (unsigned char)b[j - 1];
            ca = ca >= 'A' && ca <= 'Z' ? ca + 32 : ca;
            cb = cb >= 'A' && cb <= 'Z' ? cb + 32 : cb;
            unsigned best = diag + (ca != cb);
            if (up + 1 < best)
                best = up + 1;
            if (row[j - 1] + 1 < best)
                best = row[j - 1] + 1;
            row[j] = best;
            diag = up;
        }
    }
    return row[lb] > 9 ? 9 : row[lb];
}

/* "; did you mean X?" for the name of sets e[0..n) closest to want (within 3 edits, or the same
 * identifier under another domain), else "". */
static const char *did_you_mean(sc_t *c, const cls_devs_t *const *e, uint32_t n, bool cap,
                                const char *want, char *buf, size_t len)
{
    const char *best = NULL;
    unsigned bd = 4;
    const char *wid = strrchr(want, '/');
    wid = wid ? wid + 1 : want;
    for (uint32_t k = 0; k < n; k++)
        for (uint32_t i = 0; e[k] && i < e[k]->n; i++) {
            const dra_device_t *d = e[k]->d[i];
            uint32_t cnt = cap ? d->ncaps : d->nattrs;
            for (uint32_t a = 0; a < cnt; a++) {
                const char *nm = dra_intern_str(&c->m->intern, cap ? d->caps[a].qname : d->attrs[a].qname);
                const char *id = strrchr(nm, '/');
                unsigned dd = edits(nm, want);
                if (dd > 1 && strcmp(id ? id + 1 : nm, wid) == 0)
                    dd = 1; /* the same identifier under another domain */
                if (dd < bd) {
                    bd = dd;
                    best = nm;
                }
            }
        }
    if (best)
        snprintf(buf, len, "; did you mean %s?", best);
    else
        buf[0] = 0;
    return buf;
}

/* The attribute (or capacity) names of the devices of sets e[0..n), sorted, as "a, b, c" into
 * buf (at most 8, then "and N more"). */
static const char *names_of(sc_t *c, const cls_devs_t *const *e, uint32_t n, bool cap, char *buf,
                            size_t len)
{
    const char *v[256];
    uint32_t nv = 0, more = 0;
    for (uint32_t k = 0; k < n; k++)
        for (uint32_t i = 0; e[k] && i < e[k]->n; i++) {
            const dra_device_t *d = e[k]->d[i];
            uint32_t cnt = cap ? d->ncaps : d->nattrs;
            for (uint32_t a = 0; a < cnt; a++) {
                uint32_t id = cap ? d->caps[a].qname : d->attrs[a].qname;
                const char *nm = dra_intern_str(&c->m->intern, id);
                bool dup = false;
                for (uint32_t x = 0; x < nv && !dup; x++)
                    dup = strcmp(v[x], nm) == 0;
                if (dup)
                    continue;
                if (nv < 256)
                    v[nv++] = nm;
            }
        }
    qsort(v, nv, sizeof *v, cmp_str);
    size_t at = 0;
    buf[0] = 0;
    for (uint32_t i = 0; i < nv; i++) {
        if (i == 8) {
            more = nv - 8;
            break;
        }
        at += (size_t)snprintf(buf + at, at < len ? len - at : 0, "%s%s", i ? ", " : "", v[i]);
    }
    if (more && at < len)
        snprintf(buf + at, len - at, " and %u more", more);
    if (!nv)
        snprintf(buf, len, "none");
    return buf;
}

/* ---- the entry's fields ---------------------------------------------------------------------- */

/* Where a finding about mix entry i's template goes: for a shape its field `key` (else the
 * entry), for an inline template the model position pos. */
static void at_field(const sc_t *c, uint32_t i, const char *key, const dra_srcpos_t *pos,
                     uint32_t *line, uint32_t *col)
{
    const dra_scenario_mix_t *mx = &c->s->mix[i];
    if (mx->shape.kind == DRA_SHAPE_INLINE && pos && pos->line) {
        *line = pos->line;
        *col = pos->column;
        return;
    }
    const dra_ynode_t *n = key ? yget(mx->node, key) : NULL;
    if (!n && key && !strcmp(key, "migProfile"))
        n = yget(mx->node, "shape");
    if (!n)
        n = mx->node;
    *line = n ? n->line : 0;
    *col = n ? n->column : 0;
}

static const char *entry_name(const sc_t *c, uint32_t i)
{
    const dra_claim_t *t = c->b->templates[i];
    return t && t->name ? t->name : "?";
}

/* Selectors, capacity requests and constraints of mix entry i against its classes' devices. */
static void check_names(sc_t *c, uint32_t i)
{
    const dra_claim_t *t = c->b->templates[i];
    char names[1024];
    uint32_t line, col;
    for (uint32_t r = 0; t && r < t->nrequests; r++) {
        const dra_request_t *rq = &t->requests[r];
        uint32_t nb = rq->exactly ? 1 : rq->nfirst_available;
        for (uint32_t a = 0; a < nb; a++) {
            const dra_exact_request_t *body = rq->exactly ? rq->exactly : &rq->first_available[a];
            const dra_device_class_t *cls =
                body->class_name ? dra_model_find_class(c->m, body->class_name) : NULL;
            if (!cls)
                continue; /* validate reports a missing class */
            const cls_devs_t *e = class_devices(c, cls);
            if (!e || !e->n)
                continue; /* a class no device satisfies: reported by validate */
            for (uint32_t k = 0; k < body->nselectors; k++) {
                const dra_cel_prog_t *p = NULL;
                dra_diag_t dg;
                if (!body->selectors[k].cel ||
                    dra_cel_cache_get(c->cel, body->selectors[k].cel, &p, &dg))
                    continue; /* a compile error: reported by validate */
                const dra_cel_ref_t *refs;
                uint32_t nrefs;
                bool dyn;
                dra_cel_prog_refs(p, &refs, &nrefs, &dyn);
                for (uint32_t x = 0; x < nrefs; x++) {
                    uint32_t id = dra_intern_find(&c->m->intern, refs[x].qname,
                                                  strlen(refs[x].qname));
                    if (has_name(e, id, refs[x].is_capacity))
                        continue;
                    char dym[200];
                    at_field(c, i, "migProfile", &body->selectors[k].pos, &line, &col);
                    add(c, c->errs, line, col,
                        "spec.workload.mix[%u] (%s): request %s: selector #%u reads %s %s, which "
                        "no device of class %s has%s (its devices' %s: %s)",
                        i, entry_name(c, i), nz(body->name), k,
                        refs[x].is_capacity ? "capacity" : "attribute", refs[x].qname, cls->name,
                        did_you_mean(c, &e, 1, refs[x].is_capacity, refs[x].qname, dym, sizeof dym),
                        refs[x].is_capacity ? "capacities" : "attributes",
                        names_of(c, &e, 1, refs[x].is_capacity, names, sizeof names));
                }
            }
            for (uint32_t k = 0; k < body->ncap_requests; k++) {
                if (has_cap_written(e, body->cap_requests[k].name))
                    continue;
                at_field(c, i, "memory", &body->pos, &line, &col);
                add(c, c->errs, line, col,
                    "spec.workload.mix[%u] (%s): request %s asks for capacity %s, which no "
                    "device of class %s has (its devices' capacities, qualified: %s)",
                    i, entry_name(c, i), nz(body->name), nz(body->cap_requests[k].name), cls->name,
                    names_of(c, &e, 1, true, names, sizeof names));
            }
        }
    }
    for (uint32_t k = 0; t && k < t->nconstraints; k++) {
        const dra_constraint_t *cn = &t->constraints[k];
        const char *attr = cn->match_attribute ? cn->match_attribute : cn->distinct_attribute;
        if (!attr)
            continue;
        const cls_devs_t *sets[64];
        uint32_t ns = 0;
        bool any = false;
        uint32_t id = dra_intern_find(&c->m->intern, attr, strlen(attr));
        for (uint32_t r = 0; r < t->nrequests && ns < 64; r++) {
            const dra_request_t *rq = &t->requests[r];
            bool scope = cn->nrequests == 0;
            for (uint32_t q = 0; q < cn->nrequests && !scope; q++)
                scope = cn->requests[q] && strcmp(cn->requests[q], nz(rq->name)) == 0;
            if (!scope)
                continue;
            uint32_t nb = rq->exactly ? 1 : rq->nfirst_available;
            for (uint32_t a = 0; a < nb && ns < 64; a++) {
                const dra_exact_request_t *body =
                    rq->exactly ? rq->exactly : &rq->first_available[a];
                const dra_device_class_t *cls =
                    body->class_name ? dra_model_find_class(c->m, body->class_name) : NULL;
                const cls_devs_t *e = cls ? class_devices(c, cls) : NULL;
                if (!e || !e->n)
                    continue;
                sets[ns++] = e;
                any |= has_name(e, id, false);
            }
        }
        if (!ns || any)
            continue;
        char dym[200];
        at_field(c, i, "constraint", &cn->pos, &line, &col);
        add(c, c->errs, line, col,
            "spec.workload.mix[%u] (%s): %s %s: no device of the classes of its requests has this "
            "attribute%s (their attributes: %s)",
            i, entry_name(c, i), cn->match_attribute ? "matchAttribute" : "distinctAttribute",
            attr, did_you_mean(c, sets, ns, false, attr, dym, sizeof dym),
            names_of(c, sets, ns, false, names, sizeof names));
    }
}

/* ---- the entry on the empty cluster ---------------------------------------------------------- */

/* One node of each generated node group and each node read from manifests (up to MAX_REPS). */
static int pick_reps(sc_t *c)
{
    const dra_scenario_t *s = c->s;
    c->reps = calloc(s->ngroups + MAX_REPS + 1, sizeof *c->reps);
    if (!c->reps)
        return DRA_ENOMEM;
    uint32_t generated = 0;
    for (uint32_t g = 0; g < s->ngroups; g++) {
        const dra_gen_group_t *gr = &s->groups[g];
        const dra_gen_profile_info_t *pi = dra_gen_profile_info(gr->profile);
        if (!pi->per_node || !gr->count)
            continue;
        const char *prefix = gr->name ? gr->name : pi->name;
        char nm[128];
        snprintf(nm, sizeof nm, "%s-0", prefix);
        const dra_node_t *n = dra_model_find_node(c->m, nm);
        generated += gr->count;
        if (!n)
            continue;
        rep_t *r = &c->reps[c->nreps++];
        r->node = n;
        snprintf(r->label, sizeof r->label, "%s nodes (%s-*)", pi->name, prefix);
    }
    for (uint32_t i = generated; i < c->m->nnodes && c->nreps < s->ngroups + MAX_REPS; i++) {
        rep_t *r = &c->reps[c->nreps++];
        r->node = c->m->nodes[i];
        snprintf(r->label, sizeof r->label, "node %s", nz(r->node->name));
    }
    return DRA_OK;
}

/* The devices of node n that pass request body's class and selectors, by the values of the
 * attributes its selector #k reads, as "name: v1, v2; name2: ..." into buf. */
static const char *values_on(sc_t *c, const dra_node_t *n, const dra_device_class_t *cls,
                             const dra_exact_request_t *body, uint32_t k, char *buf, size_t len)
{
    buf[0] = 0;
    const dra_cel_prog_t *p = NULL;
    dra_diag_t dg;
    if (k >= body->nselectors || !body->selectors[k].cel ||
        dra_cel_cache_get(c->cel, body->selectors[k].cel, &p, &dg))
        return buf;
    const dra_cel_ref_t *refs;
    uint32_t nrefs;
    bool dyn;
    dra_cel_prog_refs(p, &refs, &nrefs, &dyn);
    size_t at = 0;
    for (uint32_t x = 0; x < nrefs && x < 2; x++) {
        if (refs[x].is_capacity)
            continue;
        uint32_t id = dra_intern_find(&c->m->intern, refs[x].qname, strlen(refs[x].qname));
        const char *vals[32];
        uint32_t nv = 0;
        for (uint32_t si = 0; id && si < c->m->nslices; si++) {
            const dra_slice_t *sl = c->m->slices[si];
            if (!sl->node_name || strcmp(sl->node_name, nz(n->name)) != 0)
                continue;
            for (uint32_t di = 0; di < sl->ndevices; di++) {
                const dra_device_t *d = &sl->devices[di];
                const dra_attr_t *a = dra_device_attr(d, id);
                if (!a || (a->kind != DRA_ATTR_STRING && a->kind != DRA_ATTR_VERSION) ||
                    !class_matches(c, cls, d))
                    continue;
                bool dup = false;
                for (uint32_t q = 0; q < nv && !dup; q++)
                    dup = strcmp(vals[q], nz(a->v.s)) == 0;
                if (!dup && nv < 32)
                    vals[nv++] = nz(a->v.s);
            }
        }
        if (!nv)
            continue;
        qsort(vals, nv, sizeof *vals, cmp_str);
        at += (size_t)snprintf(buf + at, at < len ? len - at : 0, "%s%s ", at ? "; " : "",
                               refs[x].qname);
        for (uint32_t q = 0; q < nv && at < len; q++)
            at += (size_t)snprintf(buf + at, len - at, "%s%s", q ? ", " : "", vals[q]);
    }
    return buf;
}

/* The request of template t named by w (its body, for firstAvailable the named subrequest). */
static const dra_exact_request_t *why_body(const dra_claim_t *t, const dra_why_t *w)
{
    char rn[96];
    snprintf(rn, sizeof rn, "%s", w->request);
    char *sub = strchr(rn, '/');
    if (sub)
        *sub++ = 0;
    for (uint32_t r = 0; r < t->nrequests; r++) {
        const dra_request_t *rq = &t->requests[r];
        if (strcmp(nz(rq->name), rn) != 0)
            continue;
        if (rq->exactly)
            return rq->exactly;
        for (uint32_t a = 0; sub && a < rq->nfirst_available; a++)
            if (!strcmp(nz(rq->first_available[a].name), sub))
                return &rq->first_available[a];
    }
    return NULL;
}

static bool shortfall(const dra_why_t *w)
{
    switch (w->kind) {
    case DRA_WHY_NO_DEVICES:
    case DRA_WHY_CLASS_SELECTOR:
    case DRA_WHY_SELECTOR:
    case DRA_WHY_NODE_SELECTION:
        return w->left > 0 && w->left < w->need;
    case DRA_WHY_MATCH_ATTRIBUTE:
        return w->left > 0 && w->left < w->need;
    default:
        return false;
    }
}

/* Entry i fits no representative: report the most telling reason at its field. */
static void report_unfit(sc_t *c, uint32_t i, const dra_why_t *ws)
{
    const dra_scenario_mix_t *mx = &c->s->mix[i];
    const dra_claim_t *t = c->b->templates[i];
    uint32_t line, col;
    char buf[1024];
    int gate = -1, shortn = -1, sel0 = -1, other = -1;
    for (uint32_t j = 0; j < c->nreps; j++) {
        const dra_why_t *w = &ws[j];
        if (w->kind == DRA_WHY_GATE && gate < 0)
            gate = (int)j;
        else if (shortfall(w) && shortn < 0)
            shortn = (int)j;
        else if (w->kind == DRA_WHY_SELECTOR && w->left == 0 && sel0 < 0)
            sel0 = (int)j;
        else if (!dra_why_absent(w) && other < 0 &&
                 !(w->kind == DRA_WHY_MATCH_ATTRIBUTE && w->left == 0) &&
                 !(w->kind == DRA_WHY_FATAL && (strstr(w->text, "CEL compile error") ||
                                               strstr(w->text, "could not retrieve device class"))))
            other = (int)j; /* (validate reports a selector that does not compile, a missing class) */
    }
    if (gate >= 0) {
        const dra_why_t *w = &ws[gate];
        const char *gn = dra_alloc_gate_name((dra_gate_t)w->gate);
        const dra_ynode_t *spec = yget(c->s->root, "spec");
        const dra_ynode_t *fn = yget(yget(spec, "features"), gn);
        const dra_ynode_t *rn = yget(spec, "release");
        const dra_ynode_t *n = fn ? fn : rn ? rn : spec;
        char rel[16];
        snprintf(rel, sizeof rel, "%s", dra_alloc_release_name((dra_release_t)c->s->release));
        add(c, c->errs, AT(n),
            "%s: feature gate %s is off%s%s, so mix[%u] (%s) gets no device on any node (%s: "
            "%s); %s",
            fn ? "spec.features" : "spec.release", gn, fn ? "" : " in release ", fn ? "" : rel, i,
            entry_name(c, i), c->reps[gate].label, w->text,
            fn ? "remove the override" : "use a release where it is on, or set it in spec.features");
        return;
    }
    if (shortn >= 0) {
        const dra_why_t *w0 = &ws[shortn];
        size_t at = 0;
        buf[0] = 0;
        for (uint32_t j = 0; j < c->nreps && at < sizeof buf; j++)
            if (shortfall(&ws[j]) && ws[j].kind == w0->kind)
                at += (size_t)snprintf(buf + at, sizeof buf - at, "%s%s %u", at ? ", " : "",
                                       c->reps[j].label, ws[j].left);
        const dra_exact_request_t *body = why_body(t, w0);
        at_field(c, i, "count", body ? &body->pos : NULL, &line, &col);
        if (w0->kind == DRA_WHY_MATCH_ATTRIBUTE)
            add(c, c->errs, line, col,
                "spec.workload.mix[%u] (%s): request %s needs %u devices with one value of the "
                "matchAttribute; the largest such group on a node: %s",
                i, entry_name(c, i), w0->request, w0->need, buf);
        else
            add(c, c->errs, line, col,
                "spec.workload.mix[%u] (%s): request %s needs %u devices of class %s, more than "
                "any node holds (matching devices per node: %s)",
                i, entry_name(c, i), w0->request, w0->need, nz(w0->class_name), buf);
        return;
    }
    if (sel0 >= 0) {
        const dra_why_t *w0 = &ws[sel0];
        const dra_exact_request_t *body = why_body(t, w0);
        const dra_device_class_t *cls = w0->class_name ? dra_model_find_class(c->m, w0->class_name) : NULL;
        size_t at = 0;
        buf[0] = 0;
        for (uint32_t j = 0; body && cls && j < c->nreps && at < sizeof buf; j++) {
            char v[512];
            if (ws[j].kind != DRA_WHY_SELECTOR || ws[j].left != 0)
                continue;
            values_on(c, c->reps[j].node, cls, body, w0->selector, v, sizeof v);
            if (v[0])
                at += (size_t)snprintf(buf + at, sizeof buf - at, "%s%s: %s", at ? "; " : "",
                                       c->reps[j].label, v);
        }
        at_field(c, i, mx->shape.kind == DRA_SHAPE_MIG ? "migProfile" : "class",
                 body && w0->selector < body->nselectors ? &body->selectors[w0->selector].pos : NULL,
                 &line, &col);
        add(c, c->errs, line, col,
            "spec.workload.mix[%u] (%s): request %s: selector #%u `%s` matches no device of "
            "class %s on any node%s%s%s",
            i, entry_name(c, i), w0->request, w0->selector,
            body && w0->selector < body->nselectors ? nz(body->selectors[w0->selector].cel) : "",
            nz(w0->class_name), buf[0] ? " (the nodes offer " : "", buf, buf[0] ? ")" : "");
        return;
    }
    if (other >= 0) {
        at_field(c, i, NULL, NULL, &line, &col);
        add(c, c->errs, line, col, "spec.workload.mix[%u] (%s): fits no node of the cluster (%s: %s)",
            i, entry_name(c, i), c->reps[other].label, ws[other].text);
        return;
    }
    /* every node offers nothing of the request's class (a node of another kind everywhere) */
    const dra_why_t *w0 = c->nreps ? &ws[0] : NULL;
    if (!w0 || !dra_why_absent(w0))
        return; /* a missing class, a selector that does not compile: reported by validate */
    const dra_exact_request_t *body = why_body(t, w0);
    at_field(c, i, "class", body ? &body->pos : NULL, &line, &col);
    size_t at = 0;
    buf[0] = 0;
    for (uint32_t k = 0; k < c->m->nclasses && at < sizeof buf; k++) {
        const cls_devs_t *e = class_devices(c, c->m->classes[k]);
        if (e && e->n)
            at += (size_t)snprintf(buf + at, sizeof buf - at, "%s%s", at ? ", " : "",
                                   nz(c->m->classes[k]->name));
    }
    add(c, c->errs, line, col,
        "spec.workload.mix[%u] (%s): request %s: no node of the cluster offers a device of class "
        "%s (%s; classes with devices here: %s)",
        i, entry_name(c, i), w0->request, nz(w0->class_name), w0->text, buf[0] ? buf : "none");
}

static void check_fit(sc_t *c, dra_explainer_t *x, uint32_t i)
{
    const dra_scenario_mix_t *mx = &c->s->mix[i];
    const dra_claim_t *t = c->b->templates[i];
    if (!t || !c->nreps)
        return;
    char nm[300];
    snprintf(nm, sizeof nm, "validate-%u-%s", i, nz(t->name));
    dra_claim_t *claim = dra_model_instantiate(c->m, t, nz(t->namespace_), nm);
    dra_why_t *ws = calloc(c->nreps, sizeof *ws);
    if (!claim || !ws) {
        free(ws);
        c->rc = DRA_ENOMEM;
        return;
    }
    dra_claim_t *claims[1] = {claim};
    int fit = -1;
    for (uint32_t j = 0; j < c->nreps && fit < 0; j++) {
        int rc = dra_explain(x, c->reps[j].node, claims, 1, &ws[j]);
        if (rc) {
            c->rc = rc == DRA_ENOMEM ? rc : c->rc;
            break;
        }
        if (ws[j].kind == DRA_WHY_FITS)
            fit = (int)j;
    }
    c->fits[i] = fit >= 0;
    if (mx->expect_unsat && fit >= 0) {
        const dra_ynode_t *n = yget(mx->node, "expect");
        add(c, c->errs, AT(n),
            "spec.workload.mix[%u].expect: unsatisfiable, but the entry (%s) fits on %s "
            "(node %s) of the empty cluster",
            i, entry_name(c, i), c->reps[fit].label, nz(c->reps[fit].node->name));
    } else if (!mx->expect_unsat && fit < 0 && !c->rc && !c->named) {
        report_unfit(c, i, ws);
    }
    free(ws);
}

/* ---- the workload ---------------------------------------------------------------------------- */

static void check_workload(sc_t *c)
{
    const dra_scenario_t *s = c->s;
    const dra_ynode_t *wl = yget(yget(s->root, "spec"), "workload");
    if (s->mode == DRA_WL_STEADY) {
        const dra_dist_t *l = &s->lifetime;
        double settle = l->kind == DRA_DIST_EXP ? 3 * l->a : l->kind == DRA_DIST_CONST ? l->a : l->b;
        const char *how = l->kind == DRA_DIST_EXP ? "3 mean lifetimes of the exponential lifetime"
                          : l->kind == DRA_DIST_CONST ? "the constant lifetime"
                                                      : "the longest uniform lifetime";
        double span = (double)s->count / s->rate;
        if (span < settle) {
            const dra_ynode_t *n = yget(wl, "count");
            add(c, c->warns, AT(n ? n : wl),
                "spec.workload.count: %llu arrivals at rate %g/s span %.3g s of workload time, "
                "less than the %.3g s occupancy needs to settle (%s) at about rate x mean "
                "lifetime = %.0f pods: the run ends before steady state; use count >= %.0f, a "
                "higher rate or a shorter lifetime",
                (unsigned long long)s->count, s->rate, span, settle, how,
                s->rate * (l->kind == DRA_DIST_UNIFORM ? (l->a + l->b) / 2 : l->a),
                ceil(settle * s->rate));
        }
        if (s->stop_after) {
            const dra_ynode_t *n = yget(wl, "stopAfter");
            add(c, c->warns, AT(n), "spec.workload.stopAfter: applies to mode fill only; ignored "
                                    "in mode steady");
        }
        return;
    }
    if (!s->stop_after || s->stop_after >= s->count)
        return;
    /* the workload's own arrivals, each placed when its entry fits the empty cluster */
    dra_workload_t w;
    dra_diag_t d;
    if (dra_workload_init(&w, &c->b->workload, s->seed, &d) != DRA_OK)
        return;
    dra_wl_event_t ev;
    uint64_t arrivals = 0;
    int rc;
    while ((rc = dra_workload_next(&w, &ev)) == 1) {
        if (ev.kind != DRA_WL_ARRIVE)
            continue;
        arrivals++;
        dra_workload_report(&w, ev.pod, ev.mix < s->nmix && c->fits[ev.mix]);
    }
    dra_workload_fini(&w);
    if (rc == 1 || arrivals >= s->count)
        return;
    char never[512];
    size_t at = 0;
    never[0] = 0;
    for (uint32_t i = 0; i < s->nmix && at < sizeof never; i++)
        if (!c->fits[i])
            at += (size_t)snprintf(never + at, sizeof never - at, "%smix[%u] (%s)", at ? ", " : "",
                                   i, entry_name(c, i));
    const dra_ynode_t *n = yget(wl, "stopAfter");
    add(c, c->warns, AT(n),
        "spec.workload.stopAfter: %llu ends the workload at arrival %llu of %llu: %s fit%s no "
        "node even in the empty cluster and %llu of them arrive in a row; raise stopAfter or "
        "drop those entries",
        (unsigned long long)s->stop_after, (unsigned long long)arrivals,
        (unsigned long long)s->count, never, strchr(never, ',') ? "" : "s",
        (unsigned long long)s->stop_after);
}

/* ---- entry point ----------------------------------------------------------------------------- */

int dra_scenario_selfcheck(const dra_scenario_t *s, dra_model_t *m, const dra_scenario_built_t *b,
                           dra_diag_list_t *errs, dra_diag_list_t *warns)
{
    sc_t c;
    memset(&c, 0, sizeof c);
    c.s = s;
    c.m = m;
    c.b = b;
    c.errs = errs;
    c.warns = warns;
    dra_arena_init(&c.scratch, 16 * 1024);
    dra_alloc_features_init(&c.f, (dra_release_t)s->release);
    for (uint32_t i = 0; i < s->nfeatures; i++) {
        dra_diag_t d;
        if (dra_alloc_features_set_gate(&c.f, s->features[i].name, s->features[i].on, &d)) {
            /* an unknown gate: the scenario is invalid; the error at its key */
            const dra_ynode_t *fs = yget(yget(s->root, "spec"), "features");
            const dra_ynode_t *k = NULL;
            for (uint32_t j = 0; fs && j < fs->n && !k; j++)
                if (!strcmp(fs->keys[j]->text, s->features[i].name))
                    k = fs->keys[j];
            add(&c, errs, AT(k), "spec.features.%s: %s", s->features[i].name, d.msg);
        }
    }
    dra_alloc_state_t *st = NULL;
    dra_explainer_t *x = NULL;
    c.fits = calloc(s->nmix + 1, sizeof *c.fits);
    int rc = c.fits ? dra_cel_cache_new(&c.cel) : DRA_ENOMEM;
    if (!rc)
        rc = dra_alloc_state_new(m, &c.f, &st);
    if (!rc)
        rc = dra_alloc_state_add_model_claims(st);
    if (!rc)
        rc = pick_reps(&c);
    dra_alloc_options_t ao = {0};
    ao.max_steps = 100000; /* an entry whose search explodes is reported by its reason, not run */
    if (!rc)
        rc = dra_explainer_new(m, &c.f, st, c.cel, &ao, &x);
    for (uint32_t i = 0; !rc && i < s->nmix && !c.rc; i++) {
        size_t before = errs->count + errs->dropped;
        check_names(&c, i);
        c.named = errs->count + errs->dropped > before;
        check_fit(&c, x, i);
    }
    if (!rc && !c.rc)
        check_workload(&c);
    dra_explainer_free(x);
    dra_alloc_state_free(st);
    dra_cel_cache_free(c.cel);
    for (uint32_t i = 0; i < c.ncd; i++)
        free(c.cd[i].d);
    free(c.cd);
    free(c.reps);
    free(c.fits);
    dra_arena_fini(&c.scratch);
    return rc ? rc : c.rc;
}
