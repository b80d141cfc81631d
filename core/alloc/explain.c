/*
 * explain.c - the reference allocator's explain mode (explain.h): after an Unsatisfiable call,
 * the call's own state is read back to name the first reason, with the allocator's own checks
 * (isSelectable step by step, allocateDevice's gate, counter, taint and capacity checks, the
 * constraints' attributes) against an empty attempt.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <xxhash.h>

#include "alloc/alloc_impl.h"
#include "alloc/explain.h"

static const char *nz(const char *s)
{
    return s ? s : "";
}

const char *dra_why_kind_name(dra_why_kind_t k)
{
    static const char *const n[DRA_WHY_COUNT] = {
        "fits",         "fatal",      "node-failure",    "no-devices",       "class-selector",
        "selector",     "selectors",  "node-selection",  "gate",             "pool",
        "allocated",    "capacity",   "compatibility-groups", "counters",    "taint",
        "all",          "match-attribute", "distinct-attribute", "together", "search",
        "node-resources", "unexamined", "node-filter",
    };
    return (unsigned)k < DRA_WHY_COUNT ? n[k] : "?";
}

bool dra_why_absent(const dra_why_t *w)
{
    return (w->kind == DRA_WHY_NO_DEVICES || w->kind == DRA_WHY_CLASS_SELECTOR) && w->left == 0;
}

/* ---- renderers ------------------------------------------------------------------------------- */

static void put(dra_why_t *w, const char *fmt, ...) DRA_PRINTF(2, 3);
static void put(dra_why_t *w, const char *fmt, ...)
{
    size_t at = strnlen(w->text, sizeof w->text);
    if (at + 1 >= sizeof w->text)
        return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(w->text + at, sizeof w->text - at, fmt, ap);
    va_end(ap);
}

/* A CEL text for a one-line reason: at most 100 bytes (cut at a UTF-8 boundary, "..."). */
static const char *cel_short(const char *cel, char *buf, size_t len)
{
    size_t n = strlen(nz(cel));
    if (n < len && n <= 100)
        return nz(cel);
    size_t k = len - 4 < 100 ? len - 4 : 100;
    while (k > 0 && ((unsigned char)cel[k] & 0xC0) == 0x80)
        k--;
    memcpy(buf, cel, k);
    memcpy(buf + k, "...", 4);
    return buf;
}

void dra_why_begin(dra_why_t *w, dra_why_kind_t kind, const dra_claim_t *claim, uint32_t ci,
                   uint32_t nclaims, const char *request, const char *class_name, uint32_t need)
{
    dra_outcome_t o = w->outcome;
    uint64_t steps = w->steps;
    memset(w, 0, sizeof *w);
    w->outcome = o;
    w->steps = steps;
    w->kind = kind;
    w->claim = ci;
    w->gate = -1;
    w->class_name = class_name;
    w->need = need;
    snprintf(w->request, sizeof w->request, "%s", nz(request));
    if (claim && nclaims > 1) {
        char cb[300];
        put(w, "claim %s, ", dra__claim_ref(claim, cb, sizeof cb));
    }
    if (request && request[0])
        put(w, "request %s: ", request);
}

static const char *dev_word(uint32_t n)
{
    return n == 1 ? "device" : "devices";
}

void dra_why_selectors(dra_why_t *w, uint32_t selector, const char *cel, uint32_t before,
                       uint32_t left)
{
    char cb[112];
    const char *cls = nz(w->class_name);
    w->selector = selector;
    w->left = left;
    switch (w->kind) {
    case DRA_WHY_CLASS_SELECTOR: /* the class's CEL is the class's business: not quoted */
        (void)cel;
        if (left == 0)
            put(w, "no device of class %s on the node (class selector #%u matches none of the %u "
                   "%s offered)",
                cls, selector, before, dev_word(before));
        else
            put(w, "%u %s of class %s on the node, %u needed", left, dev_word(left), cls,
                w->need);
        break;
    case DRA_WHY_SELECTOR:
        if (left == 0)
            put(w, "no device of class %s matches selector #%u `%s` (%u %s of the class)", cls,
                selector, cel_short(cel, cb, sizeof cb), before, dev_word(before));
        else
            put(w, "%u %s of class %s match selector #%u `%s`, %u needed", left, dev_word(left),
                cls, selector, cel_short(cel, cb, sizeof cb), w->need);
        break;
    default:
        if (left == 0)
            put(w, "no device matches device class %s and the request's selectors", cls);
        else
            put(w, "%u %s match device class %s and the request's selectors, %u needed", left,
                dev_word(left), cls, w->need);
        break;
    }
}

void dra_why_busy(dra_why_t *w, uint32_t matching, uint32_t left)
{
    w->left = left;
    put(w, "%u %s of class %s %s, ", matching, dev_word(matching), nz(w->class_name),
        matching == 1 ? "matches" : "match");
    if (left == 0)
        put(w, "%s", matching == 1 ? "allocated already" : "all allocated already");
    else
        put(w, "%u free", left);
    put(w, ", %u needed", w->need);
}

/* "N free matching devices, none fits the counters left" (or "M fit"): the start of a counters
 * reason, static or request-driven. */
static void counters_fit(dra_why_t *w, uint32_t free_, uint32_t left)
{
    w->left = left;
    put(w, "%u free matching %s, ", free_, dev_word(free_));
    if (left == 0)
        put(w, "none fits the counters left");
    else
        put(w, "%u fit%s the counters left", left, left == 1 ? "s" : "");
}

void dra_why_counters(dra_why_t *w, uint32_t free_, uint32_t left, const char *set,
                      const char *counter)
{
    counters_fit(w, free_, left);
    if (counter && set)
        put(w, " (counter %s of counter set %s exhausted)", counter, set);
    put(w, ", %u needed", w->need);
}

void dra_why_capacity(dra_why_t *w, uint32_t free_, uint32_t left, const char *what)
{
    w->left = left;
    put(w, "%u free matching %s, ", free_, dev_word(free_));
    if (left == 0)
        put(w, "none has the capacity asked for");
    else if (left == 1)
        put(w, "1 has the capacity asked for");
    else
        put(w, "%u have the capacity asked for", left);
    if (what && what[0])
        put(w, " (%s)", what);
    put(w, ", %u needed", w->need);
}

void dra_why_match_group(dra_why_t *w, const char *attr, uint32_t free_, uint32_t with_attr,
                         uint32_t largest)
{
    w->left = largest;
    (void)free_; /* not quoted: nodes differing only in free devices stay one group */
    if (with_attr == 0)
        put(w, "matchAttribute %s: no free matching device has the attribute", nz(attr));
    else
        put(w, "matchAttribute %s: the largest group of free matching devices with one value "
               "has %u of %u",
            nz(attr), largest, w->need);
}

void dra_why_node_resources(dra_why_t *w, bool cpu, bool memory)
{
    put(w, "insufficient %s", cpu && memory ? "cpu and memory" : cpu ? "cpu" : "memory");
}

void dra_why_scheduler(dra_why_t *w, dra_why_kind_t kind, int gate, const char *text)
{
    memset(w, 0, sizeof *w);
    dra_why_begin(w, kind, NULL, UINT32_MAX, 0, "", NULL, 0);
    w->outcome = DRA_OUTCOME_UNSATISFIABLE;
    w->steps = 0;
    w->gate = gate;
    put(w, "%s", nz(text));
}

/* ---- the explainer: a reference allocator and the per-node view of the model ----------------- */

typedef struct nent { /* node name -> pools of the slices naming it */
    const char *name;
    uint32_t first, n; /* into pools_by_node */
} nent_t;

/* isSelectable's answer for a (class, request body) and a device definition: a pure function of
 * the class and request selectors and of what CEL reads of the device (driver, attributes,
 * capacities, allowMultipleAllocations) plus its binding conditions, so devices that share their
 * definition arrays (a generated node group's) share it. Not for per-device node selection. */
typedef struct memo {
    const void *cls, *body, *attrs, *caps, *driver;
    uint32_t nattrs, ncaps, nbind;
    uint8_t multi, ignore_binding, used;
    uint8_t why;
    uint32_t index;
} memo_t;

struct dra_explainer {
    const dra_model_t *m;
    dra_alloc_features_t f;
    dra__beh_t b;
    dra_allocator_t *a;
    dra_alloc_options_t opts;
    dra_arena_t arena;   /* the index */
    dra_arena_t out;     /* allocations of one call */
    dra_arena_t scratch; /* the attribution's own memory, per call */
    bool use_view;       /* the model is large enough for a per-node view to pay */
    uint32_t npools;
    uint32_t *pool_first, *pool_n, *pool_slices; /* per pool: its slices, ascending */
    uint32_t *general;                           /* pools with a slice that names no node */
    uint32_t ngeneral;
    nent_t *names; /* open addressing over node names */
    uint32_t nmask;
    uint32_t *pools_by_node;
    uint32_t *mark; /* per pool: epoch of the last view that took it */
    uint32_t epoch;
    uint32_t *vidx;
    dra_slice_t **vsl;
    dra_model_t view;
    memo_t *memo; /* open addressing, power-of-two size, at most half full */
    uint32_t nmemo, memo_mask;
};

static uint64_t h_str(const char *s)
{
    return XXH3_64bits(s, strlen(s));
}

static nent_t *name_slot(dra_explainer_t *x, const char *name)
{
    for (uint64_t i = h_str(name) & x->nmask;; i = (i + 1) & x->nmask)
        if (!x->names[i].name || strcmp(x->names[i].name, name) == 0)
            return &x->names[i];
}

static int cmp_u32(const void *a, const void *b)
{
    uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
    return x < y ? -1 : x > y;
}

/* Pools of the model (by driver and name), their slices, and per node name the pools of the
 * slices that name it; every pool with a slice that names no node is "general" (any node may
 * see it). O(slices). */
static int build_index(dra_explainer_t *x)
{
    const dra_model_t *m = x->m;
    dra_arena_t *ar = &x->arena;
    uint32_t ns = m->nslices;
    uint64_t cap = 16;
    while (cap < 2 * (uint64_t)ns + 2)
        cap *= 2;
    uint32_t *tab = dra_arena_alloc(ar, cap * sizeof *tab, 4); /* (driver, pool) -> pool + 1 */
    uint32_t *pool_of = dra_arena_calloc(ar, ns + 1, sizeof *pool_of, 4);
    x->pool_first = dra_arena_calloc(ar, ns + 1, sizeof(uint32_t), 4);
    x->pool_n = dra_arena_calloc(ar, ns + 1, sizeof(uint32_t), 4);
    x->pool_slices = dra_arena_calloc(ar, ns + 1, sizeof(uint32_t), 4);
    x->general = dra_arena_calloc(ar, ns + 1, sizeof(uint32_t), 4);
    x->mark = dra_arena_calloc(ar, ns + 1, sizeof(uint32_t), 4);
    x->vidx = dra_arena_calloc(ar, ns + 1, sizeof(uint32_t), 4);
    x->vsl = dra_arena_calloc(ar, ns + 1, sizeof(dra_slice_t *), 8);
    x->nmask = (uint32_t)cap - 1;
    x->names = dra_arena_calloc(ar, cap, sizeof *x->names, 8);
    x->pools_by_node = dra_arena_calloc(ar, ns + 1, sizeof(uint32_t), 4);
    if (!tab || !pool_of || !x->pool_first || !x->pool_n || !x->pool_slices || !x->general ||
        !x->mark || !x->vidx || !x->vsl || !x->names || !x->pools_by_node)
        return DRA_ENOMEM;
    memset(tab, 0xff, cap * sizeof *tab);
    const dra_slice_t **rep = dra_arena_calloc(ar, ns + 1, sizeof *rep, 8);
    if (!rep)
        return DRA_ENOMEM;
    for (uint32_t i = 0; i < ns; i++) {
        const dra_slice_t *s = m->slices[i];
        uint64_t h = h_str(nz(s->driver)) * 0x9E3779B97F4A7C15ull ^ h_str(nz(s->pool_name));
        uint64_t j = h & (cap - 1);
        for (; tab[j] != UINT32_MAX; j = (j + 1) & (cap - 1)) {
            const dra_slice_t *r = rep[tab[j]];
            if (strcmp(nz(r->driver), nz(s->driver)) == 0 &&
                strcmp(nz(r->pool_name), nz(s->pool_name)) == 0)
                break;
        }
        if (tab[j] == UINT32_MAX) {
            tab[j] = x->npools;
            rep[x->npools++] = s;
        }
        pool_of[i] = tab[j];
        x->pool_n[tab[j]]++;
    }
    for (uint32_t p = 1; p < x->npools; p++)
        x->pool_first[p] = x->pool_first[p - 1] + x->pool_n[p - 1];
    uint32_t *fill = x->mark; /* zero here; reset below */
    for (uint32_t i = 0; i < ns; i++)
        x->pool_slices[x->pool_first[pool_of[i]] + fill[pool_of[i]]++] = i;
    memset(fill, 0, (ns + 1) * sizeof *fill);
    /* node names: count, then place (a pool once per name) */
    uint32_t total = 0;
    for (uint32_t i = 0; i < ns; i++) {
        const dra_slice_t *s = m->slices[i];
        if (!s->node_name || !s->node_name[0]) {
            if (!x->mark[pool_of[i]]) {
                x->mark[pool_of[i]] = 1;
                x->general[x->ngeneral++] = pool_of[i];
            }
            continue;
        }
        nent_t *e = name_slot(x, s->node_name);
        if (!e->name)
            e->name = s->node_name;
        e->n++;
        total++;
    }
    memset(x->mark, 0, (ns + 1) * sizeof *x->mark);
    uint32_t at = 0;
    for (uint32_t i = 0; i <= x->nmask; i++)
        if (x->names[i].name) {
            x->names[i].first = at;
            at += x->names[i].n;
            x->names[i].n = 0;
        }
    (void)total;
    for (uint32_t i = 0; i < ns; i++) {
        const dra_slice_t *s = m->slices[i];
        if (!s->node_name || !s->node_name[0])
            continue;
        nent_t *e = name_slot(x, s->node_name);
        x->pools_by_node[e->first + e->n++] = pool_of[i];
    }
    return DRA_OK;
}

int dra_explainer_new(const dra_model_t *m, const dra_alloc_features_t *f,
                      const dra_alloc_state_t *state, dra_cel_cache_t *cel,
                      const dra_alloc_options_t *opts, dra_explainer_t **out)
{
    if (!m || !f || !state || !cel || !out)
        return DRA_EINVAL;
    dra_explainer_t *x = calloc(1, sizeof *x);
    if (!x)
        return DRA_ENOMEM;
    x->m = m;
    x->f = *f;
    dra__beh_init(&x->b, f);
    if (opts)
        x->opts = *opts;
    dra_arena_init(&x->arena, 0);
    dra_arena_init(&x->out, 0);
    dra_arena_init(&x->scratch, 0);
    int rc = dra_alloc_new(m, f, state, cel, &x->opts, &x->a);
    x->use_view = m->nslices > 64;
    if (!rc && x->use_view)
        rc = build_index(x);
    if (rc) {
        dra_explainer_free(x);
        return rc;
    }
    *out = x;
    return DRA_OK;
}

void dra_explainer_free(dra_explainer_t *x)
{
    if (!x)
        return;
    dra_alloc_free(x->a);
    free(x->memo);
    dra_arena_fini(&x->arena);
    dra_arena_fini(&x->out);
    dra_arena_fini(&x->scratch);
    free(x);
}

static void take_pool(dra_explainer_t *x, uint32_t p, uint32_t *nv)
{
    if (x->mark[p] == x->epoch)
        return;
    x->mark[p] = x->epoch;
    for (uint32_t k = 0; k < x->pool_n[p]; k++)
        x->vidx[(*nv)++] = x->pool_slices[x->pool_first[p] + k];
}

/* The model restricted to the pools a call on node may gather: the pools of the slices naming
 * the node and of the slices naming no node, every slice of each, in model order. */
static const dra_model_t *node_view(dra_explainer_t *x, const dra_node_t *node)
{
    if (!x->use_view)
        return x->m;
    if (++x->epoch == 0) {
        memset(x->mark, 0, (x->npools + 1) * sizeof *x->mark);
        x->epoch = 1;
    }
    uint32_t nv = 0;
    for (uint32_t i = 0; i < x->ngeneral; i++)
        take_pool(x, x->general[i], &nv);
    if (node->name && node->name[0]) {
        nent_t *e = name_slot(x, node->name);
        for (uint32_t i = 0; e->name && i < e->n; i++)
            take_pool(x, x->pools_by_node[e->first + i], &nv);
    }
    qsort(x->vidx, nv, sizeof *x->vidx, cmp_u32);
    for (uint32_t i = 0; i < nv; i++)
        x->vsl[i] = x->m->slices[x->vidx[i]];
    x->view = *x->m;
    x->view.slices = x->vsl;
    x->view.nslices = nv;
    x->view.cap_slices = nv;
    return &x->view;
}

/* ---- the attribution ------------------------------------------------------------------------- */

/* The checks a device goes through for a request, in the order reasons are given. */
enum {
    ST_SEL = 0, /* a class or request selector: per selector below */
    ST_NODE,    /* per-device node selection */
    ST_NODE_OPS, /* skipNodeOperations on a node not declaring DRAOptionalNodeOperations */
    ST_GATE,    /* withheld by a feature gate that is off */
    ST_POOL,    /* in an incomplete or invalid pool */
    ST_BUSY,
    ST_CAPACITY,
    ST_COMPAT,  /* no compatibility group in common with the counter set's allocated devices */
    ST_POLICY,  /* a request-driven counter's requestPolicy refuses the amount (KEP-5941) */
    ST_COUNTERS,
    ST_TAINT,
    ST_OK,
    ST_N
};

/* Gates that withhold devices when off (table-driven: a new gate is one row). */
typedef struct gate_rule {
    dra_gate_t gate, gate2; /* gate2: a second gate that must be on too (DRA_GATE_COUNT: none) */
    const char *what;       /* which devices it withholds ("the 56 matching devices <what>") */
} gate_rule_t;
enum {
    GR_PD_DEVICE = 0,
    GR_PD_SLICE,
    GR_BINDING,
    GR_CG_DEVICE,
    GR_CG_PEER,
    GR_CG_SLICE,
    GR_ONO,
    GR_N
};
static const gate_rule_t gate_rules[GR_N] = {
    [GR_PD_DEVICE] = {DRA_GATE_PARTITIONABLE_DEVICES, DRA_GATE_COUNT,
                      "consuming shared counters (partitions such as MIG devices)"},
    [GR_PD_SLICE] = {DRA_GATE_PARTITIONABLE_DEVICES, DRA_GATE_COUNT,
                     "of ResourceSlices with shared counters or per-device node selection"},
    [GR_BINDING] = {DRA_GATE_DEVICE_BINDING_CONDITIONS, DRA_GATE_RESOURCE_CLAIM_DEVICE_STATUS,
                    "with binding conditions"},
    /* 1.37's version-skew rule (dra__acall_cg_skip): the field is kept, the allocator skips */
    [GR_CG_DEVICE] = {DRA_GATE_DEVICE_COMPATIBILITY_GROUPS, DRA_GATE_COUNT,
                      "declaring compatibilityGroups"},
    [GR_CG_PEER] = {DRA_GATE_DEVICE_COMPATIBILITY_GROUPS, DRA_GATE_COUNT,
                    "drawing from a counter set an allocated device with compatibilityGroups "
                    "draws from"},
    /* 1.38-pre's (master's) rule: GatherPools leaves such a slice out (b->cg_drop) */
    [GR_CG_SLICE] = {DRA_GATE_DEVICE_COMPATIBILITY_GROUPS, DRA_GATE_COUNT,
                     "of ResourceSlices with a device declaring compatibilityGroups (left out of "
                     "their pools, which are incomplete)"},
    /* node_ops.c: with the gate off no device of such a slice is selectable */
    [GR_ONO] = {DRA_GATE_OPTIONAL_NODE_OPERATIONS, DRA_GATE_COUNT,
                "of ResourceSlices with skipNodeOperations"},
};

#define MAXSEL 32

typedef struct funnel {
    uint32_t total;              /* devices offered, plus withheld ones that match */
    uint32_t cls_at[MAXSEL + 1]; /* stopped at class selector #i (the last slot: beyond) */
    uint32_t req_at[MAXSEL + 1]; /* stopped at request selector #i */
    uint32_t at[ST_N];
    uint32_t gate_n[GR_N];       /* matching devices each gate rule withheld */
    int gate_rule;               /* first rule that withheld a matching device, -1 */
    const dra__gpool_t *pool;    /* first unusable pool with a matching device */
    const char *cset, *cname;    /* first exhausted counter seen */
    /* DRASharedConsumableCapacity: the first request-driven (valueFrom) counter seen exhausted
     * (cname then names it; its amount for the request, what the counter holds, what is left
     * after the live allocations' snapshots) or refusing the amount (ST_POLICY: pset, pname,
     * the capacity and the amount, or why the amount has none) */
    bool vf;
    char vamount[DRA_QUANTITY_FMT_MAX], vtotal[DRA_QUANTITY_FMT_MAX], vleft[DRA_QUANTITY_FMT_MAX];
    const char *pset, *pname, *pcap;
    char pwhy[160];
    /* DRASharedConsumableCapacity: the first counter set seen withheld from a device (the
     * fail-closed rule of sharedcap.c), its pool, the withholding live device and why */
    const char *wset, *wdev, *wwhy;
    const dra__gpool_t *wpool;
    const char *cgset;           /* first counter set whose allocated devices' groups refused one */
    const dra_taint_t *taint;    /* first untolerated taint seen */
    bool cap_missing;            /* capacityFits said the device lacks a requested capacity */
    bool multi;                  /* an eligible device is multi-allocatable (DRAConsumableCapacity) */
    uint32_t *elig;              /* eligible slots, search order */
    uint32_t nelig;
} funnel_t;

typedef struct xctx {
    dra_explainer_t *x;
    dra__acall_t *c;
    dra_cel_cache_t *cel;
    dra_arena_t *celscratch;
    dra_arena_t *ar;
    funnel_t **fun; /* per rq, computed on first use */
    int rule;       /* the gate rule of device_stage's last ST_GATE */
    const char *cgset; /* the counter set of device_stage's last ST_COMPAT */
    int rc;         /* DRA_ENOMEM when it happened */
} xctx_t;

/* Back to the state before the search's first step: nothing taken, no counters consumed, no
 * capacity allocating, compatibility groups those of the allocated devices, constraints empty
 * (the search undoes its attempts, except where upstream bugs leak; an Allocated call keeps its
 * picks). */
static void reset_attempt(dra__acall_t *c)
{
    for (uint32_t k = 0; k < c->nslots; k++) {
        dra__slot_t *st = &c->slots[k];
        if (st->taken)
            memset(st->taken, 0, (size_t)c->claim_words * 8);
        st->ntaken = 0;
        if (st->allocating)
            memset(st->allocating, 0, (size_t)(st->d->ncaps ? st->d->ncaps : 1) * sizeof(dra__aq_t));
        st->nallocating = 0;
    }
    for (uint32_t s = 0; s < c->nscopes; s++)
        for (uint32_t i = 0; c->scopes[s].ready && i < c->scopes[s].n; i++)
            c->scopes[s].e[i].consumed = 0;
    dra__acall_cg_undo(c, c->ncgu); /* compatibility groups: back to the allocated devices' */
    for (uint32_t ci = 0; ci < c->nclaims; ci++) {
        dra__cl_t *cl = &c->cls[ci];
        cl->nres = 0;
        for (uint32_t i = 0; i < cl->ncons; i++) {
            dra__cons_t *co = &cl->cons[i];
            co->n = 0;
            co->nstk = 0;
            co->nmap = 0;
            co->nisect = 0;
            co->ref = NULL;
        }
    }
}

/* The slice targets the node by its own scoping (nodeName, allNodes, nodeSelector), or, with
 * per-device node selection, some device does. A selector that does not parse: no. */
static bool slice_targets(const dra_node_t *node, const dra_slice_t *s)
{
    bool rel = false;
    char e2[64];
    if ((s->node_name && s->node_name[0]) || s->all_nodes || s->node_selector) {
        if (dra__node_matches(node, s->node_name, s->all_nodes, s->node_selector, &rel, e2,
                             sizeof e2))
            return false;
        return rel;
    }
    for (uint32_t d = 0; s->per_device_node_selection && d < s->ndevices && !rel; d++)
        if (dra__node_matches(node, s->devices[d].node_name, s->devices[d].all_nodes,
                             s->devices[d].node_selector, &rel, e2, sizeof e2))
            return false;
    return rel;
}

/* isSelectable step by step for rq on device d (binding conditions not blocking when
 * ignore_binding: the gate rule is reported apart). A CEL error counts as the selector saying
 * no (the search never reached the device, or the outcome would be Fatal). */
static dra__selwhy_t sel_eval(xctx_t *z, const dra__rq_t *rq, uint32_t ci, const dra_device_t *d,
                              bool ignore_binding, uint32_t *index)
{
    dra__acall_t *c = z->c;
    dra__beh_t b = c->b;
    if (ignore_binding)
        b.binding = true;
    dra__selwhy_t why = DRA__SEL_OK;
    char err[DRA_DIAG_MSG_MAX];
    int rc = dra__device_selectable_why(c->m, &b, z->cel, z->celscratch, c->node, c->cls[ci].c,
                                       rq->cls, rq->body, d, &why, index, NULL, err, sizeof err);
    if (rc == DRA_ENOMEM)
        z->rc = DRA_ENOMEM;
    if (rc && why == DRA__SEL_OK)
        why = DRA__SEL_REQUEST;
    return why;
}

static uint64_t memo_hash(const memo_t *k)
{
    uint64_t v[9] = {(uintptr_t)k->cls,  (uintptr_t)k->body, (uintptr_t)k->attrs,
                     (uintptr_t)k->caps, (uintptr_t)k->driver, k->nattrs,
                     k->ncaps,           k->nbind,            (uint64_t)k->multi << 1 | k->ignore_binding};
    return XXH3_64bits(v, sizeof v);
}

static bool memo_eq(const memo_t *a, const memo_t *b)
{
    return a->cls == b->cls && a->body == b->body && a->attrs == b->attrs && a->caps == b->caps &&
           a->driver == b->driver && a->nattrs == b->nattrs && a->ncaps == b->ncaps &&
           a->nbind == b->nbind && a->multi == b->multi && a->ignore_binding == b->ignore_binding;
}

/* The slot in x's memo for key k (empty: used == 0), the table grown first when half full. NULL:
 * out of memory. */
static memo_t *memo_slot(dra_explainer_t *x, const memo_t *k)
{
    if (2 * (x->nmemo + 1) > x->memo_mask + 1) {
        uint32_t ncap = x->memo_mask ? 2 * (x->memo_mask + 1) : 1024;
        memo_t *nt = calloc(ncap, sizeof *nt);
        if (!nt)
            return NULL;
        for (uint32_t i = 0; x->memo && i <= x->memo_mask; i++) {
            if (!x->memo[i].used)
                continue;
            uint64_t j = memo_hash(&x->memo[i]) & (ncap - 1);
            while (nt[j].used)
                j = (j + 1) & (ncap - 1);
            nt[j] = x->memo[i];
        }
        free(x->memo);
        x->memo = nt;
        x->memo_mask = ncap - 1;
    }
    uint64_t j = memo_hash(k) & x->memo_mask;
    while (x->memo[j].used && !memo_eq(&x->memo[j], k))
        j = (j + 1) & x->memo_mask;
    return &x->memo[j];
}

/* isSelectable step by step for rq on device d (binding conditions not blocking when
 * ignore_binding: the gate rule is reported apart). A CEL error counts as the selector saying
 * no (the search never reached the device, or the outcome would be Fatal). Answers for device
 * definitions seen before (memo_t) come from the memo. */
static dra__selwhy_t sel_why(xctx_t *z, const dra__rq_t *rq, uint32_t ci, const dra_device_t *d,
                             bool ignore_binding, uint32_t *index)
{
    /* node-dependent answers are not memoized (the memo serves every node) */
    if (d->slice && (d->slice->per_device_node_selection || d->slice->nskip_node_ops))
        return sel_eval(z, rq, ci, d, ignore_binding, index);
    memo_t k = {rq->cls, rq->body, d->attrs, d->caps, d->slice ? d->slice->driver : NULL,
                d->nattrs, d->ncaps, d->nbinding_conditions, d->allow_multiple_allocations,
                ignore_binding, 1, 0, 0};
    memo_t *e = memo_slot(z->x, &k);
    if (!e) {
        z->rc = DRA_ENOMEM;
        return DRA__SEL_OK;
    }
    if (e->used) {
        *index = e->index;
        return (dra__selwhy_t)e->why;
    }
    dra__selwhy_t why = sel_eval(z, rq, ci, d, ignore_binding, index);
    if (z->rc)
        return why;
    *e = k;
    e->why = (uint8_t)why;
    e->index = *index;
    z->x->nmemo++;
    return why;
}

static void count_sel(funnel_t *f, dra__selwhy_t why, uint32_t index, bool ono)
{
    if (why == DRA__SEL_NODE_OPS) {
        if (ono) { /* the gate is on: the node does not declare the feature */
            f->at[ST_NODE_OPS]++;
        } else {
            f->at[ST_GATE]++;
            f->gate_n[GR_ONO]++;
            if (f->gate_rule < 0)
                f->gate_rule = GR_ONO;
        }
        return;
    }
    if (why == DRA__SEL_CLASS)
        f->cls_at[index < MAXSEL ? index : MAXSEL]++;
    else if (why == DRA__SEL_REQUEST)
        f->req_at[index < MAXSEL ? index : MAXSEL]++;
    else if (why == DRA__SEL_NODE)
        f->at[ST_NODE]++;
}

/* ST_GATE by gate rule r: noted in z (and as f's first rule). */
static int gate_stage(xctx_t *z, funnel_t *f, int r)
{
    z->rule = r;
    if (f && f->gate_rule < 0)
        f->gate_rule = r;
    return ST_GATE;
}

/* 1.37's compatibility groups for slot st alone, as allocateDevice checks them before the
 * counters: with DRADeviceCompatibilityGroups off a device declaring groups, or one drawing from a
 * counter set an allocated device with groups draws from, is skipped (ST_GATE); with it on, a
 * device with no group in common with the devices allocated from its counter set is refused
 * (ST_COMPAT). ST_OK otherwise (nothing is kept: the attempt stays empty). */
static int compat_stage(xctx_t *z, funnel_t *f, dra__slot_t *st)
{
    dra__acall_t *c = z->c;
    const dra_device_t *d = st->d;
    if (c->b.cg_skip) {
        int rc = dra__acall_cg_skip(c, st);
        if (rc < 0) {
            z->rc = DRA_ENOMEM;
            return ST_OK;
        }
        if (rc)
            return gate_stage(z, f, dra__device_has_groups(d) ? GR_CG_DEVICE : GR_CG_PEER);
        return ST_OK;
    }
    if (!c->b.cg)
        return ST_OK;
    uint32_t pushed = 0;
    int rc = dra__acall_cg_place(c, st, &pushed);
    if (rc == R_NOMEM) {
        z->rc = DRA_ENOMEM;
        return ST_OK;
    }
    if (rc == R_OK) {
        dra__acall_cg_undo(c, pushed);
        return ST_OK;
    }
    const char *set = dra__acall_cg_refusing_set(c, st);
    z->cgset = set ? set : "";
    if (f && !f->cgset)
        f->cgset = z->cgset;
    return ST_COMPAT;
}

/* The static counters of slot st's device (compatibility groups first): ST_COMPAT,
 * ST_COUNTERS or ST_OK (nothing left reserved). */
static int static_counters_stage(xctx_t *z, funnel_t *f, dra__slot_t *st)
{
    dra__acall_t *c = z->c;
    int cs = compat_stage(z, f, st);
    if (cs != ST_OK || z->rc)
        return cs;
    int rc = dra__acall_counters_reserve(c, st);
    if (rc < 0) {
        z->rc = DRA_ENOMEM;
        return ST_OK;
    }
    if (rc == 0) {
        if (f && !f->cname) {
            dra__acall_counters_apply(c, st, +1);
            dra__scope_t *sc = &c->scopes[st->scope];
            for (uint32_t i = 0; i < sc->n; i++)
                if (sc->e[i].has_avail && sc->e[i].avail < sc->e[i].consumed) {
                    f->cset = sc->e[i].set;
                    f->cname = sc->e[i].name;
                    break;
                }
            dra__acall_counters_apply(c, st, -1);
        }
        return ST_COUNTERS;
    }
    dra__acall_counters_apply(c, st, -1);
    return ST_OK;
}

/* v as a quantity in the form of like (NULL: a plain number). */
static void aq_text(dra__aq_t v, const dra_quantity_t *like, char *buf, size_t len)
{
    dra_quantity_t q;
    dra__aq_to(v, like, &q);
    dra_quantity_format(&q, buf, len);
}

/* DRASharedConsumableCapacity (sharedcap.c, the fail-closed rule): ST_COUNTERS when slot st's
 * device draws from a counter set withheld because a live allocation's charge on it cannot be
 * established, else ST_OK. */
static int withheld_stage(xctx_t *z, funnel_t *f, dra__slot_t *st)
{
    dra__acall_t *c = z->c;
    if (!st->d->nconsumes)
        return ST_OK;
    int rc;
    const struct wheld *w = dra__acall_scc_withheld(c, st, &rc);
    if (rc) {
        z->rc = DRA_ENOMEM;
        return ST_OK;
    }
    if (!w)
        return ST_OK;
    if (f && !f->wset) {
        f->wset = w->set;
        f->wdev = w->device;
        f->wwhy = w->why;
        f->wpool = &c->gp.pools[st->pool];
    }
    return ST_COUNTERS;
}

/* DRASharedConsumableCapacity (sharedcap.c, rules 1 and 3): the request-driven amounts of slot
 * st's device for rq, as the search resolves them before the static counters. ST_POLICY when a
 * counter's requestPolicy refuses its amount (or the amount cannot be represented: the search
 * would fail the call there); ST_COUNTERS when the device draws from a withheld counter set
 * (withheld_stage, for a device without such amounts too) or the amounts overdraw what the live
 * allocations' snapshots left; else ST_OK with the amounts reserved in *pa (undone by the
 * caller). */
static int scc_stage(xctx_t *z, funnel_t *f, const dra__rq_t *rq, dra__slot_t *st, dra__aq_t *buf,
                     uint32_t nbuf, dra__aq_t **pa)
{
    dra__acall_t *c = z->c;
    const dra_device_t *d = st->d;
    uint32_t npa = dra__scc_nvalue_from(d);
    *pa = NULL;
    if (!npa)
        return withheld_stage(z, f, st);
    dra__aq_t *amt = npa <= nbuf ? buf : dra_arena_alloc(z->ar, npa * sizeof *amt, 16);
    if (!amt) {
        z->rc = DRA_ENOMEM;
        return ST_OK;
    }
    const dra__gpool_t *p = &c->gp.pools[st->pool];
    dra__capmode_t m = dra__capmode(&c->b);
    uint32_t n = 0;
    int fits = 1;
    for (uint32_t i = 0; i < d->nconsumes; i++)
        for (uint32_t k = 0; k < d->consumes[i].ncounters; k++) {
            const dra_counter_t *cc = &d->consumes[i].counters[k];
            if (!cc->value_from)
                continue;
            const dra_counter_t *def = dra__scc_counter_def(&c->b, p, d, &d->consumes[i], cc);
            char why[160];
            int rc = dra__scc_amount(&m, rq->body, d, cc, def, &amt[n], why, sizeof why);
            if (rc <= 0 && fits > 0) {
                fits = 0;
                if (f && !f->pname) {
                    f->pset = d->consumes[i].counter_set;
                    f->pname = cc->name;
                    f->pcap = cc->value_from;
                    if (rc < 0)
                        snprintf(f->pwhy, sizeof f->pwhy, "%s", why);
                    else {
                        char a[DRA_QUANTITY_FMT_MAX];
                        aq_text(amt[n], def ? &def->value : NULL, a, sizeof a);
                        snprintf(f->pwhy, sizeof f->pwhy,
                                 "its requestPolicy does not allow %s", a);
                    }
                }
            }
            n++;
        }
    if (!fits)
        return ST_POLICY;
    int ws = withheld_stage(z, f, st); /* the search's order: after the amounts are resolved */
    if (ws != ST_OK || z->rc)
        return ws;
    int rc = dra__acall_scc_reserve(c, st, amt);
    if (rc < 0) {
        if (rc == R_FATAL)
            return ST_POLICY;
        z->rc = DRA_ENOMEM;
        return ST_OK;
    }
    if (rc == 0) {
        if (f && !f->cname) {
            dra__acall_scc_apply(c, st, amt, +1);
            dra__scope_t *sc = &c->scopes[st->scope];
            for (uint32_t i = 0; i < sc->n && !f->cname; i++) {
                const dra__cent_t *e = &sc->e[i];
                if (!e->has_avail || e->avail >= e->consumed)
                    continue;
                uint32_t j = 0; /* the device's amount of this counter */
                for (uint32_t a = 0; a < d->nconsumes && !f->cname; a++)
                    for (uint32_t k = 0; k < d->consumes[a].ncounters && !f->cname; k++) {
                        const dra_counter_t *cc = &d->consumes[a].counters[k];
                        if (!cc->value_from)
                            continue;
                        if (!strcmp(nz(d->consumes[a].counter_set), e->set) &&
                            !strcmp(nz(cc->name), e->name)) {
                            const dra_counter_t *def =
                                dra__scc_counter_def(&c->b, p, d, &d->consumes[a], cc);
                            const dra_quantity_t *like = def ? &def->value : NULL;
                            f->cset = e->set;
                            f->cname = e->name;
                            f->vf = true;
                            aq_text(amt[j], like, f->vamount, sizeof f->vamount);
                            aq_text(def ? dra__aq_from(&def->value) : 0, like, f->vtotal,
                                    sizeof f->vtotal);
                            aq_text(e->avail, like, f->vleft, sizeof f->vleft);
                        }
                        j++;
                    }
            }
            dra__acall_scc_apply(c, st, amt, -1);
        }
        return ST_COUNTERS;
    }
    *pa = amt;
    return ST_OK;
}

/* The checks after isSelectable for slot st alone (an empty attempt): ST_GATE (counters with
 * DRAPartitionableDevices off; compatibility groups skipped with DRADeviceCompatibilityGroups
 * off), ST_BUSY, ST_CAPACITY, ST_COMPAT, ST_COUNTERS, ST_TAINT or ST_OK. */
static int device_stage(xctx_t *z, funnel_t *f, uint32_t ci, const dra__rq_t *rq, dra__slot_t *st,
                        bool admin)
{
    dra__acall_t *c = z->c;
    const dra_device_t *d = st->d;
    if (!c->b.pd && d->nconsumes > 0)
        return gate_stage(z, f, GR_PD_DEVICE);
    if (c->slot_ready && c->slot_ready(c->self, st)) {
        z->rc = DRA_ENOMEM;
        return ST_OK;
    }
    if (!admin && st->excl)
        return ST_BUSY;
    if (c->b.cc) {
        int fits = dra__acall_capacity_fits(c, ci, rq, st, "checking");
        if (fits == R_NOMEM) {
            z->rc = DRA_ENOMEM;
            return ST_OK;
        }
        if (fits != 1) {
            if (f && fits == R_FATAL) /* a capacity the device lacks, an unrepresentable request */
                f->cap_missing = true;
            return ST_CAPACITY;
        }
    }
    bool multi = c->b.cc && d->allow_multiple_allocations;
    bool cap_in_use = st->persist_cap || (!c->b.bug_persisted_share && st->persist_share);
    /* the request-driven amounts first, held while the static counters are checked (the
     * search's order), charged on a further share of a device in use too */
    dra__aq_t pbuf[16], *pa = NULL;
    if (c->b.scc) {
        int ss = scc_stage(z, f, rq, st, pbuf, sizeof pbuf / sizeof pbuf[0], &pa);
        if (ss != ST_OK || z->rc)
            return ss;
    }
    if (!(multi && cap_in_use) && d->nconsumes > 0) {
        int cs = static_counters_stage(z, f, st);
        if (cs != ST_OK || z->rc) {
            dra__acall_scc_apply(c, st, pa, -1);
            return cs;
        }
    }
    dra__acall_scc_apply(c, st, pa, -1);
    if (c->b.taints) {
        const dra_taint_t *t =
            dra__taint_blocking(d, rq->body->tolerations, rq->body->ntolerations);
        if (t) {
            if (f && !f->taint)
                f->taint = t;
            return ST_TAINT;
        }
    }
    return ST_OK;
}

/* Withheld devices: those of slices a gate that is off keeps out of GatherPools (that target
 * the node with the gate on: DRAPartitionableDevices, and from 1.38-pre
 * DRADeviceCompatibilityGroups for a slice with a grouped device), and of the node's pools that
 * are incomplete or invalid (strict pools), counted when they match the request. */
static void withheld(xctx_t *z, funnel_t *f, const dra__rq_t *rq, uint32_t ci)
{
    dra__acall_t *c = z->c;
    const dra_model_t *m = c->m;
    for (uint32_t i = 0; (!c->b.pd || c->b.cg_drop) && i < m->nslices; i++) {
        const dra_slice_t *s = m->slices[i];
        int rule = -1;
        if (!c->b.pd && (s->per_device_node_selection || s->ncounter_sets > 0))
            rule = GR_PD_SLICE;
        else if (c->b.cg_drop && dra__slice_has_groups(s))
            rule = GR_CG_SLICE;
        if (rule < 0 || !s->ndevices || !slice_targets(c->node, s))
            continue;
        for (uint32_t d = 0; d < s->ndevices; d++) {
            uint32_t idx;
            if (sel_why(z, rq, ci, &s->devices[d], true, &idx) != DRA__SEL_OK)
                continue;
            f->total++;
            f->at[ST_GATE]++;
            f->gate_n[rule]++;
            if (f->gate_rule < 0)
                f->gate_rule = rule;
        }
    }
    for (uint32_t p = 0; p < c->gp.n; p++) {
        const dra__gpool_t *gp = &c->gp.pools[p];
        bool unusable = gp->invalid || (gp->incomplete && c->b.strict_pools);
        if (!unusable || gp->nslices)
            continue; /* a pool whose slices are gathered offers them (1.34 incomplete) */
        for (uint32_t i = 0; i < m->nslices; i++) {
            const dra_slice_t *s = m->slices[i];
            if (strcmp(nz(s->driver), gp->driver) || strcmp(nz(s->pool_name), gp->name) ||
                s->generation != gp->generation || !slice_targets(c->node, s))
                continue;
            if (!c->b.pd && (s->per_device_node_selection || s->ncounter_sets > 0))
                continue;
            if (c->b.cg_drop && dra__slice_has_groups(s))
                continue; /* counted with the gate above */
            for (uint32_t d = 0; d < s->ndevices; d++) {
                uint32_t idx;
                if (sel_why(z, rq, ci, &s->devices[d], false, &idx) != DRA__SEL_OK)
                    continue;
                f->total++;
                f->at[ST_POOL]++;
                if (!f->pool)
                    f->pool = gp;
            }
        }
    }
}

/* The funnel of request alternative rqi (of claim ci): every device offered to it, by the
 * check that stops it. */
static funnel_t *funnel_of(xctx_t *z, uint32_t ci, uint32_t rqi)
{
    if (z->fun[rqi])
        return z->fun[rqi];
    dra__acall_t *c = z->c;
    const dra__rq_t *rq = &c->rqs[rqi];
    funnel_t *f = dra_arena_calloc(z->ar, 1, sizeof *f, 8);
    uint32_t *el = dra_arena_alloc(z->ar, (size_t)(c->nslots ? c->nslots : 1) * 4, 4);
    if (!f || !el) {
        z->rc = DRA_ENOMEM;
        return NULL;
    }
    f->gate_rule = -1;
    f->elig = el;
    bool admin = rq->body->admin_access && !rq->is_sub;
    for (uint32_t p = 0; p < c->gp.n; p++) {
        const dra__gpool_t *pool = &c->gp.pools[p];
        if ((pool->incomplete && c->b.strict_pools) || pool->invalid)
            continue;
        for (uint32_t s = 0; s < pool->nslices; s++) {
            const dra_slice_t *sl = pool->slices[s];
            for (uint32_t d = 0; d < sl->ndevices; d++) {
                uint32_t slot = c->slice_base[p][s] + d;
                dra__slot_t *st = &c->slots[slot];
                f->total++;
                uint32_t idx = 0;
                bool blocked = dra__slot_binding_blocked(c, st);
                int8_t cached = blocked ? -1 : c->sel[(size_t)slot * c->nrqs + rqi];
                dra__selwhy_t why = cached == 1 ? DRA__SEL_OK
                                                : sel_why(z, rq, ci, st->d, blocked, &idx);
                if (why != DRA__SEL_OK) {
                    count_sel(f, why, idx, c->b.ono);
                    continue;
                }
                if (blocked) {
                    f->at[ST_GATE]++;
                    f->gate_n[GR_BINDING]++;
                    if (f->gate_rule < 0)
                        f->gate_rule = GR_BINDING;
                    continue;
                }
                int stage = device_stage(z, f, ci, rq, st, admin);
                f->at[stage]++;
                if (stage == ST_GATE)
                    f->gate_n[z->rule]++;
                if (stage == ST_OK) {
                    f->elig[f->nelig++] = slot;
                    f->multi |= c->b.cc && st->d->allow_multiple_allocations;
                }
            }
        }
    }
    withheld(z, f, rq, ci);
    z->fun[rqi] = f;
    return f;
}

static const char *rq_class(const dra__rq_t *rq)
{
    return rq->cls ? rq->cls->name : rq->body->class_name;
}

/* The request's capacity requests as "memory: 16Gi, compute: 10" into buf. */
static const char *cap_text(const dra_exact_request_t *body, char *buf, size_t len)
{
    size_t at = 0;
    buf[0] = 0;
    for (uint32_t i = 0; i < body->ncap_requests && at + 1 < len; i++) {
        char q[DRA_QUANTITY_FMT_MAX];
        dra_quantity_format(&body->cap_requests[i].value, q, sizeof q);
        at += (size_t)snprintf(buf + at, len - at, "%s%s: %s", i ? ", " : "",
                               nz(body->cap_requests[i].name), q);
    }
    return buf;
}

/* Whether rq's funnel leaves fewer devices than it needs; when so, w gets the reason. */
static bool short_of(xctx_t *z, uint32_t ci, uint32_t rqi, dra_why_t *w)
{
    dra__acall_t *c = z->c;
    const dra__rq_t *rq = &c->rqs[rqi];
    funnel_t *f = funnel_of(z, ci, rqi);
    if (!f)
        return false;
    const dra_claim_t *claim = c->cls[ci].c;
    uint32_t need = rq->all ? 1 : (uint32_t)rq->num;
    if (!rq->all && !c->b.combos && f->multi)
        return false; /* permutations: one multi-allocatable device may serve the request twice */
    const char *cls = rq_class(rq);
    uint32_t left = f->total;
#define BEGIN(kind) dra_why_begin(w, (kind), claim, ci, c->nclaims, rq->name, cls, need)
    if (left < need && f->total == 0) {
        BEGIN(DRA_WHY_NO_DEVICES);
        w->left = 0;
        put(w, "no ResourceSlice offers devices on this node, %u needed", need);
        return true;
    }
    uint32_t ncls = rq->cls ? rq->cls->nselectors : 0;
    for (uint32_t i = 0; i <= MAXSEL && i <= ncls; i++) {
        uint32_t before = left;
        left -= f->cls_at[i];
        if (f->cls_at[i] && left < need) {
            BEGIN(DRA_WHY_CLASS_SELECTOR);
            dra_why_selectors(w, i, i < ncls ? rq->cls->selectors[i].cel : "", before, left);
            return true;
        }
    }
    for (uint32_t i = 0; i <= MAXSEL && i <= rq->body->nselectors; i++) {
        uint32_t before = left;
        left -= f->req_at[i];
        if (f->req_at[i] && left < need) {
            BEGIN(DRA_WHY_SELECTOR);
            dra_why_selectors(w, i, i < rq->body->nselectors ? rq->body->selectors[i].cel : "",
                              before, left);
            return true;
        }
    }
    uint32_t matching = left;
    for (int s = ST_NODE; s < ST_OK; s++) {
        uint32_t before = left;
        left -= f->at[s];
        if (!f->at[s] || left >= need)
            continue;
        switch (s) {
        case ST_NODE:
            BEGIN(DRA_WHY_NODE_SELECTION);
            w->left = left;
            put(w, "%u matching %s not for this node (per-device node selection), %u left, %u "
                   "needed",
                f->at[s], f->at[s] == 1 ? "device is" : "devices are", left, need);
            return true;
        case ST_NODE_OPS:
            BEGIN(DRA_WHY_NODE_SELECTION);
            w->left = left;
            put(w, "%u matching %s of ResourceSlices with skipNodeOperations and the node does "
                   "not declare %s in status.declaredFeatures, %u left, %u needed",
                f->at[s], f->at[s] == 1 ? "device is" : "devices are", dra__ono_feature, left,
                need);
            return true;
        case ST_GATE: {
            const gate_rule_t *g = &gate_rules[f->gate_rule >= 0 ? f->gate_rule : 0];
            dra_gate_t off = dra_alloc_gate_on(&z->x->f, g->gate) ? g->gate2 : g->gate;
            dra_alloc_features_t def;
            dra_alloc_features_init(&def, (dra_release_t)z->x->f.release);
            char how[48];
            if (dra_alloc_gate_on(&def, off)) /* on by default: an override turned it off */
                snprintf(how, sizeof how, "is turned off");
            else
                snprintf(how, sizeof how, "is off in release %s",
                         dra_alloc_release_name((dra_release_t)z->x->f.release));
            BEGIN(DRA_WHY_GATE);
            w->gate = (int)off;
            w->left = left;
            uint32_t by = f->gate_n[f->gate_rule >= 0 ? f->gate_rule : 0];
            if (!by || by > f->at[s])
                by = f->at[s];
            put(w, "feature gate %s %s, so the %u matching %s %s %s not offered",
                dra_alloc_gate_name(off), how, by, dev_word(by), g->what,
                by == 1 ? "is" : "are");
            if (by < f->at[s]) /* others withheld by another rule of the table */
                put(w, " (%u more by other feature gates)", f->at[s] - by);
            if (left)
                put(w, " (%u left)", left);
            put(w, ", %u needed", need);
            return true;
        }
        case ST_POOL:
            BEGIN(DRA_WHY_POOL);
            w->left = left;
            put(w, "resource pool %s/%s is %s%s%s, so its %u matching %s not offered, %u needed",
                f->pool ? f->pool->driver : "?", f->pool ? f->pool->name : "?",
                f->pool && f->pool->invalid ? "invalid" : "incomplete (being updated)",
                f->pool && f->pool->invalid_reason ? ": " : "",
                f->pool && f->pool->invalid_reason ? f->pool->invalid_reason : "", f->at[s],
                f->at[s] == 1 ? "device is" : "devices are", need);
            return true;
        case ST_BUSY:
            BEGIN(DRA_WHY_BUSY);
            dra_why_busy(w, matching - f->at[ST_NODE] - f->at[ST_NODE_OPS] - f->at[ST_GATE] -
                                f->at[ST_POOL],
                         left);
            return true;
        case ST_CAPACITY: {
            char ct[200];
            BEGIN(DRA_WHY_CAPACITY);
            if (f->cap_missing && left == 0) {
                w->left = 0;
                put(w, "%u free matching %s, none has every capacity the request names (%s), "
                       "%u needed",
                    before, dev_word(before), cap_text(rq->body, ct, sizeof ct), need);
                return true;
            }
            dra_why_capacity(w, before, left, cap_text(rq->body, ct, sizeof ct));
            return true;
        }
        case ST_COMPAT:
            BEGIN(DRA_WHY_COMPAT);
            w->left = left;
            put(w, "%u free matching %s, ", before, dev_word(before));
            if (left == 0)
                put(w, "%s a compatibility group in common with the devices allocated from %s "
                       "counter set",
                    before == 1 ? "without" : "none with", before == 1 ? "its" : "their");
            else
                put(w, "%u of them without a compatibility group in common with the devices "
                       "allocated from their counter set",
                    before - left);
            if (f->cgset && f->cgset[0])
                put(w, " (counter set %s)", f->cgset);
            put(w, ", %u needed", need);
            return true;
        case ST_POLICY:
            BEGIN(DRA_WHY_COUNTERS);
            w->left = left;
            put(w, "%u free matching %s, ", before, dev_word(before));
            if (left == 0)
                put(w, "none can");
            else
                put(w, "%u of them cannot", before - left);
            put(w, " draw what the request asks of counter %s of counter set %s (valueFrom "
                   "capacity %s): %s, %u needed",
                nz(f->pname), nz(f->pset), nz(f->pcap), f->pwhy, need);
            return true;
        case ST_COUNTERS:
            BEGIN(DRA_WHY_COUNTERS);
            if (f->wset) { /* sharedcap.c's fail-closed rule */
                counters_fit(w, before, left);
                put(w, " (counter set %s of pool %s/%s withheld, fail closed: the charge of the "
                       "allocated device %s on it cannot be established, as %s), %u needed",
                    f->wset, nz(f->wpool->driver), nz(f->wpool->name), nz(f->wdev), nz(f->wwhy),
                    need);
                return true;
            }
            if (f->vf) { /* a request-driven counter: the amount and what is left */
                counters_fit(w, before, left);
                put(w, " (counter %s of counter set %s, drawn per allocation from the request: "
                       "%s asked, %s of %s left after the live allocations), %u needed",
                    f->cname, f->cset, f->vamount, f->vleft, f->vtotal, need);
                return true;
            }
            dra_why_counters(w, before, left, f->cset, f->cname);
            return true;
        case ST_TAINT: {
            BEGIN(DRA_WHY_TAINT);
            w->left = left;
            if (left == 0)
                put(w, "%u free matching %s, %s a taint the request does not tolerate", before,
                    dev_word(before), before == 1 ? "with" : "all with");
            else
                put(w, "%u free matching devices, %u of them with a taint the request does not "
                       "tolerate",
                    before, before - left);
            if (f->taint)
                put(w, " (%s%s%s:%s)", nz(f->taint->key), f->taint->value ? "=" : "",
                    nz(f->taint->value), nz(f->taint->effect_raw));
            put(w, ", %u needed", need);
            return true;
        }
        default:
            break;
        }
    }
    if (left < need) { /* fewer devices offered than needed, no check stopped any */
        BEGIN(DRA_WHY_NO_DEVICES);
        w->left = left;
        put(w, "%u %s of class %s on the node, %u needed", left, dev_word(left), cls, need);
        return true;
    }
#undef BEGIN
    return false;
}

/* allocationMode All with a non-empty set: every device of the set must be allocatable (each
 * alone). true with w set when one is not. */
static bool all_blocked(xctx_t *z, uint32_t ci, uint32_t rqi, dra_why_t *w)
{
    dra__acall_t *c = z->c;
    const dra__rq_t *rq = &c->rqs[rqi];
    bool admin = rq->body->admin_access && !rq->is_sub;
    uint32_t n[ST_N] = {0};
    const dra_device_t *first[ST_N] = {0};
    int rule = -1;
    for (uint32_t i = 0; i < rq->nall; i++) {
        dra__slot_t *st = &c->slots[rq->all_slots[i]];
        int s = device_stage(z, NULL, ci, rq, st, admin);
        n[s]++;
        if (!first[s]) {
            first[s] = st->d;
            if (s == ST_GATE)
                rule = z->rule;
        }
    }
    static const struct {
        int stage;
        const char *what;
    } order[] = {{ST_GATE, "consume shared counters while feature gate DRAPartitionableDevices is off"},
                 {ST_BUSY, "allocated already"},
                 {ST_CAPACITY, "lack the capacity asked for"},
                 {ST_COMPAT, "have no compatibility group in common with the devices allocated "
                             "from their counter set"},
                 {ST_POLICY, "ask an amount of a request-driven counter its requestPolicy "
                             "does not allow"},
                 {ST_COUNTERS, "do not fit the counters left"},
                 {ST_TAINT, "have a taint the request does not tolerate"}};
    for (size_t k = 0; k < sizeof order / sizeof order[0]; k++) {
        int s = order[k].stage;
        if (!n[s])
            continue;
        dra_why_begin(w, DRA_WHY_ALL, c->cls[ci].c, ci, c->nclaims, rq->name, rq_class(rq),
                      rq->nall);
        w->left = rq->nall - n[s];
        char what[200];
        if (s == ST_GATE && (rule == GR_CG_DEVICE || rule == GR_CG_PEER))
            snprintf(what, sizeof what, "are skipped while feature gate %s is off (%s)",
                     dra_alloc_gate_name(gate_rules[rule].gate),
                     rule == GR_CG_DEVICE ? "the first declares compatibilityGroups"
                                          : "the first shares a counter set with an allocated "
                                            "device that declares them");
        else
            snprintf(what, sizeof what, "%s",
                     n[s] == 1 && s == ST_BUSY ? "is allocated already" : order[k].what);
        put(w, "allocationMode All: %u of the %u %s of the set %s (first: %s)", n[s], rq->nall,
            dev_word(rq->nall), what, nz(first[s]->name));
        return true;
    }
    return false;
}

/* The eligible devices of alternative rqi: its funnel's, or the All set. */
static const uint32_t *elig_of(xctx_t *z, uint32_t ci, uint32_t rqi, uint32_t *n, uint32_t *need)
{
    const dra__rq_t *rq = &z->c->rqs[rqi];
    if (rq->all) {
        *n = rq->nall;
        *need = rq->nall;
        return rq->all_slots;
    }
    funnel_t *f = funnel_of(z, ci, rqi);
    *need = (uint32_t)rq->num;
    *n = f ? f->nelig : 0;
    return f ? f->elig : NULL;
}

/* Each request, alone: the first whose every alternative falls short. */
static bool requests_short(xctx_t *z, dra_why_t *w)
{
    dra__acall_t *c = z->c;
    for (uint32_t ci = 0; ci < c->nclaims; ci++) {
        const dra__cl_t *cl = &c->cls[ci];
        for (uint32_t ri = 0; ri < cl->c->nrequests; ri++) {
            uint32_t nalt = cl->nsub[ri] ? cl->nsub[ri] : 1;
            dra_why_t first;
            memset(&first, 0, sizeof first);
            first.outcome = w->outcome;
            first.steps = w->steps;
            bool all_short = true;
            for (uint32_t a = 0; a < nalt && all_short; a++) {
                uint32_t rqi = cl->rq_first[ri] + a;
                const dra__rq_t *rq = &c->rqs[rqi];
                dra_why_t one;
                memset(&one, 0, sizeof one);
                one.outcome = w->outcome;
                one.steps = w->steps;
                bool s = short_of(z, ci, rqi, &one);
                if (!s && rq->all && rq->nall > 0)
                    s = all_blocked(z, ci, rqi, &one);
                if (z->rc)
                    return false;
                if (!s)
                    all_short = false;
                else if (a == 0)
                    first = one;
            }
            if (all_short) {
                *w = first;
                if (nalt > 1)
                    put(w, " (and %u other subrequest%s: none fits)", nalt - 1, nalt > 2 ? "s" : "");
                return true;
            }
        }
    }
    return false;
}

/* matchAttribute / distinctAttribute of each claim against its requests' eligible devices. */
static bool constraints_short(xctx_t *z, dra_why_t *w)
{
    dra__acall_t *c = z->c;
    if (c->b.lists)
        return false; /* set semantics: not analysed */
    for (uint32_t ci = 0; ci < c->nclaims; ci++) {
        const dra__cl_t *cl = &c->cls[ci];
        for (uint32_t x = 0; x < cl->ncons; x++) {
            const dra__cons_t *co = &cl->cons[x];
            const char *attr = co->distinct ? co->c->distinct_attribute : co->c->match_attribute;
            if (co->distinct && c->b.bug_distinct)
                continue; /* BUG(3) accepts more than the rule says */
            /* constrained requests: every alternative in scope */
            uint32_t reqs[DRA_ALLOC_MAX_REQUESTS], nreq = 0;
            for (uint32_t ri = 0; ri < cl->c->nrequests && nreq < DRA_ALLOC_MAX_REQUESTS; ri++) {
                uint32_t nalt = cl->nsub[ri] ? cl->nsub[ri] : 1;
                bool all_in = true;
                for (uint32_t a = 0; a < nalt; a++)
                    all_in &= co->c->nrequests == 0 || c->rqs[cl->rq_first[ri] + a].in_scope[x];
                if (all_in)
                    reqs[nreq++] = ri;
            }
            if (!nreq)
                continue;
            /* a derived attribute (1.37) of a request in scope: per-request values, not the
             * devices' attributes read below; not analysed */
            bool derived = false;
            for (uint32_t k = 0; k < nreq && !derived; k++) {
                uint32_t ri = reqs[k], nalt = cl->nsub[ri] ? cl->nsub[ri] : 1;
                for (uint32_t a = 0; a < nalt && !derived; a++) {
                    const dra_exact_request_t *b = c->rqs[cl->rq_first[ri] + a].body;
                    for (uint32_t d = 0; b && d < b->nderived && !derived; d++)
                        derived = b->derived[d].qname == co->qname;
                }
            }
            if (derived)
                continue;
            /* values: the distinct scalar values of the eligible devices of those requests */
            const dra_attr_t **vals = dra_arena_alloc(z->ar, (size_t)(c->nslots + 1) * sizeof *vals, 8);
            if (!vals) {
                z->rc = DRA_ENOMEM;
                return false;
            }
            uint32_t nvals = 0, nfree = 0, nwith = 0;
            for (uint32_t k = 0; k < nreq; k++) {
                uint32_t ri = reqs[k], nalt = cl->nsub[ri] ? cl->nsub[ri] : 1;
                for (uint32_t a = 0; a < nalt; a++) {
                    uint32_t n, need;
                    const uint32_t *el = elig_of(z, ci, cl->rq_first[ri] + a, &n, &need);
                    if (z->rc)
                        return false;
                    for (uint32_t i = 0; i < n; i++) {
                        nfree++;
                        const dra_attr_t *at = co->qname ? dra_device_attr(c->slots[el[i]].d, co->qname) : NULL;
                        if (!at || !dra__attr_is_scalar(at))
                            continue;
                        nwith++;
                        bool seen = false;
                        for (uint32_t v = 0; v < nvals && !seen; v++)
                            seen = dra__attr_scalar_eq(vals[v], at);
                        if (!seen)
                            vals[nvals++] = at;
                    }
                }
            }
            if (co->distinct) {
                uint64_t need_all = 0;
                for (uint32_t k = 0; k < nreq; k++) {
                    uint32_t ri = reqs[k], nalt = cl->nsub[ri] ? cl->nsub[ri] : 1, mn = UINT32_MAX;
                    for (uint32_t a = 0; a < nalt; a++) {
                        uint32_t n, need;
                        (void)elig_of(z, ci, cl->rq_first[ri] + a, &n, &need);
                        mn = need < mn ? need : mn;
                    }
                    need_all += mn;
                }
                if (need_all <= nvals)
                    continue;
                dra_why_begin(w, DRA_WHY_DISTINCT_ATTRIBUTE, cl->c, ci, c->nclaims,
                              nreq == 1 ? c->rqs[cl->rq_first[reqs[0]]].name : "",
                              nreq == 1 ? rq_class(&c->rqs[cl->rq_first[reqs[0]]]) : NULL,
                              (uint32_t)need_all);
                w->left = nvals;
                put(w, "distinctAttribute %s: the free matching devices have %u distinct %s, %u "
                       "needed",
                    nz(attr), nvals, nvals == 1 ? "value" : "values", (uint32_t)need_all);
                return true;
            }
            /* matchAttribute: some value held by enough devices of every constrained request */
            bool feasible = false;
            uint32_t largest = 0;
            for (uint32_t v = 0; v < nvals && !feasible; v++) {
                bool every = true;
                for (uint32_t k = 0; k < nreq && every; k++) {
                    uint32_t ri = reqs[k], nalt = cl->nsub[ri] ? cl->nsub[ri] : 1;
                    bool some = false;
                    for (uint32_t a = 0; a < nalt && !some; a++) {
                        uint32_t n, need, cnt = 0;
                        const uint32_t *el = elig_of(z, ci, cl->rq_first[ri] + a, &n, &need);
                        for (uint32_t i = 0; i < n; i++) {
                            const dra_attr_t *at = dra_device_attr(c->slots[el[i]].d, co->qname);
                            cnt += at && dra__attr_is_scalar(at) && dra__attr_scalar_eq(at, vals[v]);
                        }
                        if (nreq == 1 && nalt == 1 && cnt > largest)
                            largest = cnt;
                        some = cnt >= need;
                    }
                    every = some;
                }
                feasible = every;
            }
            if (feasible)
                continue;
            const dra__rq_t *r0 = &c->rqs[cl->rq_first[reqs[0]]];
            if (nreq == 1 && !cl->nsub[reqs[0]]) {
                dra_why_begin(w, DRA_WHY_MATCH_ATTRIBUTE, cl->c, ci, c->nclaims, r0->name,
                              rq_class(r0), r0->all ? r0->nall : (uint32_t)r0->num);
                dra_why_match_group(w, attr, nfree, nwith, largest);
                return true;
            }
            dra_why_begin(w, DRA_WHY_MATCH_ATTRIBUTE, cl->c, ci, c->nclaims, "", NULL, 0);
            put(w, "matchAttribute %s: no value of it is held by enough free matching devices of "
                   "every request in scope (",
                nz(attr));
            for (uint32_t k = 0; k < nreq; k++)
                put(w, "%s%s", k ? ", " : "", nz(cl->c->requests[reqs[k]].name));
            put(w, "; %u of %u %s have the attribute)", nwith, nfree, dev_word(nfree));
            return true;
        }
    }
    return false;
}

/* Requests that must take different devices (no adminAccess, no firstAvailable, no
 * multi-allocatable device among theirs): all of them together, then each pair, need no more
 * devices than their eligible sets hold together. */
static bool together_short(xctx_t *z, dra_why_t *w)
{
    dra__acall_t *c = z->c;
    uint32_t rq[64], cl[64], n = 0;
    for (uint32_t ci = 0; ci < c->nclaims; ci++)
        for (uint32_t ri = 0; ri < c->cls[ci].c->nrequests && n < 64; ri++) {
            if (c->cls[ci].nsub[ri])
                continue;
            uint32_t rqi = c->cls[ci].rq_first[ri];
            const dra__rq_t *r = &c->rqs[rqi];
            if (r->body->admin_access)
                continue;
            uint32_t ne, need;
            const uint32_t *el = elig_of(z, ci, rqi, &ne, &need);
            bool multi = false;
            for (uint32_t i = 0; i < ne && !multi; i++)
                multi = c->b.cc && c->slots[el[i]].d->allow_multiple_allocations;
            if (z->rc)
                return false;
            if (!multi) {
                rq[n] = rqi;
                cl[n++] = ci;
            }
        }
    if (n < 2)
        return false;
    uint8_t *in = dra_arena_calloc(z->ar, c->nslots + 1, 1, 8);
    if (!in) {
        z->rc = DRA_ENOMEM;
        return false;
    }
    /* all of them, then each pair */
    for (uint32_t i = 0; i < n; i++)
        for (uint32_t j = i == 0 ? 0 : i + 1; j < n; j++) {
            bool everyone = i == 0 && j == 0;
            if (!everyone && i == j)
                continue;
            memset(in, 0, c->nslots + 1);
            uint64_t need_all = 0, have = 0;
            uint32_t members[64], nm = 0;
            for (uint32_t k = 0; k < n; k++) {
                if (!everyone && k != i && k != j)
                    continue;
                uint32_t ne, need;
                const uint32_t *el = elig_of(z, cl[k], rq[k], &ne, &need);
                need_all += need;
                for (uint32_t e = 0; e < ne; e++)
                    if (!in[el[e]]) {
                        in[el[e]] = 1;
                        have++;
                    }
                members[nm++] = k;
            }
            if (nm < 2 || need_all <= have)
                continue;
            dra_why_begin(w, DRA_WHY_TOGETHER, NULL, UINT32_MAX, c->nclaims, "", NULL,
                          (uint32_t)need_all);
            w->left = (uint32_t)have;
            put(w, "requests ");
            for (uint32_t k = 0; k < nm; k++) {
                char cb[300];
                const dra__rq_t *r = &c->rqs[rq[members[k]]];
                if (c->nclaims > 1)
                    put(w, "%s%s/%s", k ? ", " : "",
                        dra__claim_ref(c->cls[cl[members[k]]].c, cb, sizeof cb), r->name);
                else
                    put(w, "%s%s", k ? ", " : "", r->name);
            }
            put(w, " need %u devices together, %u free matching %s can serve them",
                (uint32_t)need_all, (uint32_t)have, dev_word((uint32_t)have));
            return true;
        }
    return false;
}

/* The reason of an Unsatisfiable call (the call's state is the allocator's last). */
static int attribute(dra_explainer_t *x, dra_why_t *w)
{
    dra__acall_t *c = dra__alloc_acall(x->a);
    dra_arena_reset(&x->scratch);
    xctx_t z = {.x = x, .c = c, .cel = dra__alloc_cel(x->a),
                .celscratch = dra__alloc_celscratch(x->a), .ar = &x->scratch};
    z.fun = dra_arena_calloc(&x->scratch, c->nrqs + 1, sizeof *z.fun, 8);
    if (!z.fun)
        return DRA_ENOMEM;
    reset_attempt(c);
    bool found = requests_short(&z, w);
    if (!found && !z.rc)
        found = constraints_short(&z, w);
    if (!found && !z.rc)
        found = together_short(&z, w);
    if (z.rc)
        return z.rc;
    if (!found) {
        dra_why_begin(w, DRA_WHY_SEARCH, NULL, UINT32_MAX, c->nclaims, "", NULL, 0);
        put(w, "every request has enough free matching devices on its own, but no combination "
               "satisfies %s together",
            c->nclaims > 1 ? "the claims" : "its requests and constraints");
        bool counters = false; /* a fact worth naming: the candidates share counters */
        for (uint32_t r = 0; r < c->nrqs && !counters; r++) {
            funnel_t *f = z.fun[r];
            for (uint32_t i = 0; f && i < f->nelig && !counters; i++)
                counters = c->slots[f->elig[i]].d->nconsumes > 0 && c->b.pd;
        }
        if (counters)
            put(w, "; the candidate devices consume shared counters");
        if (w->steps)
            put(w, " (allocateOne called %llu times)", (unsigned long long)w->steps);
    }
    return DRA_OK;
}

static void fits_text(dra_why_t *w, const dra_alloc_outcome_t *o)
{
    dra_why_begin(w, DRA_WHY_FITS, NULL, UINT32_MAX, 0, "", NULL, 0);
    uint32_t nd = 0;
    for (uint32_t i = 0; i < o->n; i++)
        nd += o->allocations[i] ? o->allocations[i]->nresults : 0;
    put(w, "fits (%u %s)", nd, dev_word(nd));
}

/* The allocator's call on node into o, through the node's view when view (which stays the
 * allocator's model until the next call: the attribution reads the call's state over it). */
static int call(dra_explainer_t *x, const dra_node_t *node, dra_claim_t *const *claims,
                uint32_t n, dra_alloc_outcome_t *o, bool view)
{
    dra_arena_reset(&x->out);
    dra__alloc_set_view(x->a, view ? node_view(x, node) : NULL);
    return dra_alloc_allocate(x->a, node, claims, n, &x->out, o);
}

/* out from a decided outcome o (Allocated, Fatal, NodeFailure); false for Unsatisfiable. */
static bool decided(dra_explainer_t *x, const dra_alloc_outcome_t *o, dra_why_t *out)
{
    switch (o->kind) {
    case DRA_OUTCOME_ALLOCATED:
        fits_text(out, o);
        return true;
    case DRA_OUTCOME_FATAL:
        dra_why_begin(out, DRA_WHY_FATAL, NULL, UINT32_MAX, 0, "", NULL, 0);
        put(out, "Fatal: %s", o->msg);
        return true;
    case DRA_OUTCOME_NODE_FAILURE: {
        dra_why_begin(out, DRA_WHY_NODE_FAILURE, NULL, UINT32_MAX, 0, "", NULL, 0);
        put(out, "NodeFailure: %s", o->msg);
        const dra__acall_t *c = dra__alloc_acall(x->a);
        for (uint32_t p = 0; p < c->gp.n; p++)
            if (c->gp.pools[p].invalid) {
                put(out, " (resource pool %s/%s: %s)", c->gp.pools[p].driver,
                    c->gp.pools[p].name, nz(c->gp.pools[p].invalid_reason));
                break;
            }
        return true;
    }
    case DRA_OUTCOME_UNSATISFIABLE:
        break;
    }
    return false;
}

int dra_explain(dra_explainer_t *x, const dra_node_t *node, dra_claim_t *const *claims,
                uint32_t n, dra_why_t *out)
{
    if (!x || !node || (!claims && n) || !out)
        return DRA_EINVAL;
    memset(out, 0, sizeof *out);
    dra_alloc_outcome_t o;
    int rc = call(x, node, claims, n, &o, true);
    if (rc)
        return rc;
    out->outcome = o.kind;
    out->steps = o.stats.allocate_one;
    return decided(x, &o, out) ? DRA_OK : attribute(x, out);
}

int dra_explain_unsat(dra_explainer_t *x, const dra_node_t *node, dra_claim_t *const *claims,
                      uint32_t n, dra_why_t *out)
{
    if (!x || !node || (!claims && n) || !out)
        return DRA_EINVAL;
    memset(out, 0, sizeof *out);
    dra_alloc_outcome_t o;
    dra__alloc_set_view(x->a, node_view(x, node)); /* kept for the attribution */
    int rc = dra__alloc_prepare(x->a, node, claims, n, &o);
    if (rc)
        return rc;
    const dra__acall_t *c = dra__alloc_acall(x->a);
    if (o.kind == DRA_OUTCOME_UNSATISFIABLE && c->gp.any_invalid && c->b.strict_pools) {
        o.kind = DRA_OUTCOME_NODE_FAILURE; /* what a search that finds nothing answers */
        snprintf(o.msg, sizeof o.msg, "invalid resource pools were encountered");
    }
    out->outcome = o.kind;
    return decided(x, &o, out) ? DRA_OK : attribute(x, out);
}

/* ---- verification ---------------------------------------------------------------------------- */

static int disagree(char *msg, size_t len, const char *fmt, ...) DRA_PRINTF(3, 4);
static int disagree(char *msg, size_t len, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, len, fmt, ap);
    va_end(ap);
    return DRA_EINTERNAL;
}

static bool kind_agrees(dra_why_kind_t k, dra_outcome_t o)
{
    switch (o) {
    case DRA_OUTCOME_ALLOCATED:
        return k == DRA_WHY_FITS;
    case DRA_OUTCOME_FATAL:
        return k == DRA_WHY_FATAL;
    case DRA_OUTCOME_NODE_FAILURE:
        return k == DRA_WHY_NODE_FAILURE;
    case DRA_OUTCOME_UNSATISFIABLE:
        return k > DRA_WHY_NODE_FAILURE && k <= DRA_WHY_SEARCH;
    }
    return false;
}

/* The same devices, claim by claim and result by result. */
static bool same_devices(const dra_alloc_outcome_t *a, const dra_alloc_outcome_t *b)
{
    if (a->n != b->n)
        return false;
    for (uint32_t i = 0; i < a->n; i++) {
        const dra_allocation_t *x = a->allocations[i], *y = b->allocations[i];
        if (!x || !y || x->nresults != y->nresults)
            return false;
        for (uint32_t k = 0; k < x->nresults; k++)
            if (strcmp(nz(x->results[k].device), nz(y->results[k].device)) ||
                strcmp(nz(x->results[k].pool), nz(y->results[k].pool)) ||
                strcmp(nz(x->results[k].request), nz(y->results[k].request)))
                return false;
    }
    return true;
}

int dra_explain_verify(dra_explainer_t *x, const dra_node_t *node, dra_claim_t *const *claims,
                       uint32_t n, uint64_t bf_budget, dra_why_t *why, char *msg, size_t len)
{
    dra_why_t w;
    int rc = dra_explain(x, node, claims, n, &w);
    if (rc)
        return rc;
    if (why)
        *why = w;
    if (!kind_agrees(w.kind, w.outcome))
        return disagree(msg, len, "reason %s for outcome %s", dra_why_kind_name(w.kind),
                        dra_outcome_name(w.outcome));
    /* the node's view decides as the whole model does */
    dra_alloc_outcome_t full, viewed;
    dra_arena_t keep;
    dra_arena_init(&keep, 0);
    rc = call(x, node, claims, n, &full, false);
    if (!rc) {
        /* keep the whole model's allocations while the view's call reuses x->out */
        if (full.kind == DRA_OUTCOME_ALLOCATED) {
            dra_allocation_t **copy = dra_arena_calloc(&keep, full.n + 1, sizeof *copy, 8);
            for (uint32_t i = 0; copy && i < full.n; i++) {
                copy[i] = dra_arena_alloc(&keep, sizeof **copy, 8);
                if (!copy[i]) {
                    copy = NULL;
                    break;
                }
                *copy[i] = *full.allocations[i];
                dra_result_t *res = dra_arena_alloc(&keep, (full.allocations[i]->nresults + 1) * sizeof *res, 8);
                if (!res) {
                    copy = NULL;
                    break;
                }
                memcpy(res, full.allocations[i]->results, full.allocations[i]->nresults * sizeof *res);
                for (uint32_t k = 0; k < full.allocations[i]->nresults; k++)
                    res[k].request = dra_arena_strdup(&keep, nz(res[k].request));
                copy[i]->results = res;
            }
            if (!copy)
                rc = DRA_ENOMEM;
            full.allocations = copy;
        }
    }
    if (!rc)
        rc = call(x, node, claims, n, &viewed, true);
    if (rc) {
        dra_arena_fini(&keep);
        return rc;
    }
    int res = DRA_OK;
    if (full.kind != viewed.kind || strcmp(full.msg, viewed.msg) != 0 ||
        (full.kind == DRA_OUTCOME_ALLOCATED && !same_devices(&full, &viewed)))
        res = disagree(msg, len, "the node's view decides %s (%s), the whole model %s (%s)",
                       dra_outcome_name(viewed.kind), viewed.msg, dra_outcome_name(full.kind),
                       full.msg);
    dra_arena_fini(&keep);
    if (res || full.kind != w.outcome)
        return res ? res
                   : disagree(msg, len, "explain saw %s, the allocator decides %s",
                              dra_outcome_name(w.outcome), dra_outcome_name(full.kind));
    dra__acall_t *c = dra__alloc_acall(x->a); /* the view's call, just made */
    if (viewed.kind == DRA_OUTCOME_ALLOCATED) {
        /* every picked device passes every check of its request alone, and no reason holds */
        dra_arena_reset(&x->scratch);
        xctx_t z = {.x = x, .c = c, .cel = dra__alloc_cel(x->a),
                .celscratch = dra__alloc_celscratch(x->a), .ar = &x->scratch};
        uint32_t tot = 0;
        for (uint32_t ci = 0; ci < c->nclaims; ci++)
            tot += c->cls[ci].nres;
        z.fun = dra_arena_calloc(&x->scratch, c->nrqs + 1, sizeof *z.fun, 8);
        uint32_t *pick = dra_arena_alloc(&x->scratch, (size_t)(tot + 1) * 3 * sizeof *pick, 4);
        if (!z.fun || !pick)
            return DRA_ENOMEM;
        uint32_t nr = 0; /* (slot, rq, claim) of every result, read before the attempt is reset */
        for (uint32_t ci = 0; ci < c->nclaims; ci++)
            for (uint32_t i = 0; i < c->cls[ci].nres; i++, nr++) {
                pick[3 * nr] = c->cls[ci].res[i].slot;
                pick[3 * nr + 1] = c->cls[ci].res[i].rq;
                pick[3 * nr + 2] = ci;
            }
        reset_attempt(c);
        for (uint32_t k = 0; k < nr; k++) {
            const dra__rq_t *rq = &c->rqs[pick[3 * k + 1]];
            if (rq->all)
                continue;
            funnel_t *f = funnel_of(&z, pick[3 * k + 2], pick[3 * k + 1]);
            if (!f)
                return z.rc ? z.rc : DRA_ENOMEM;
            bool in = false;
            for (uint32_t e = 0; e < f->nelig && !in; e++)
                in = f->elig[e] == pick[3 * k];
            if (!in)
                return disagree(msg, len, "allocated device %s of request %s fails a check of "
                                "the explain funnel", nz(c->slots[pick[3 * k]].d->name), rq->name);
        }
        dra_why_t r;
        memset(&r, 0, sizeof r);
        if (requests_short(&z, &r) || constraints_short(&z, &r) || together_short(&z, &r))
            return disagree(msg, len, "allocated, yet a reason holds: %s", r.text);
        if (z.rc)
            return z.rc;
        return DRA_OK;
    }
    if (viewed.kind != DRA_OUTCOME_UNSATISFIABLE)
        return DRA_OK;
    /* the reason without the search (runs) is the reason after it */
    dra_why_t u;
    rc = dra_explain_unsat(x, node, claims, n, &u);
    if (rc)
        return rc;
    if (u.kind != w.kind || (w.kind != DRA_WHY_SEARCH && strcmp(u.text, w.text) != 0))
        return disagree(msg, len, "without the search the reason is \"%s\", after it \"%s\"",
                        u.text, w.text);
    if (w.kind == DRA_WHY_SEARCH || !bf_budget || x->f.upstream_bugs)
        return DRA_OK;
    dra_bf_result_t bf;
    rc = dra_alloc_bruteforce(x->m, &x->f, dra__alloc_state(x->a), dra__alloc_cel(x->a), node,
                              claims, n, bf_budget, &bf);
    if (rc)
        return rc;
    if (bf.verdict == DRA_BF_SATISFIABLE)
        return disagree(msg, len, "reason \"%s\", but the brute-force enumerator finds an "
                        "assignment", w.text);
    return DRA_OK;
}
