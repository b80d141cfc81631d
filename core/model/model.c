/*
 * model.c - object model containers, lookups and the canonical digest; see model.h.
 *
 * The digest walks the model in a fixed order and feeds a streaming XXH3-64 state with tagged
 * fields (a tag byte, then a length-prefixed value), so that no two different models can collide
 * by field concatenation. Map-like collections (attributes, capacities, labels, counters) are
 * hashed in name order because YAML and JSON maps carry no meaningful order.
 */
#include "model.h"

#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#define XXH_INLINE_ALL
#include <xxhash.h>

#include "base/semver.h"

static _Atomic uint64_t model_uids = 0;

void dra_model_init(dra_model_t *m)
{
    memset(m, 0, sizeof *m);
    m->uid = atomic_fetch_add(&model_uids, 1) + 1;
    dra_arena_init(&m->arena, 0);
    dra_intern_init(&m->intern, &m->arena);
}

void dra_model_fini(dra_model_t *m)
{
    free(m->slices);
    free(m->classes);
    free(m->claims);
    free(m->templates);
    free(m->pods);
    free(m->nodes);
    dra_intern_fini(&m->intern);
    dra_arena_fini(&m->arena);
    memset(m, 0, sizeof *m);
}

static void *vec_push(dra_model_t *m, void ***vec, uint32_t *n, uint32_t *cap, size_t objsize)
{
    if (*n == *cap) {
        uint32_t ncap = *cap ? *cap * 2 : 16;
        if (ncap < *cap)
            return NULL;
        void **nv = realloc(*vec, (size_t)ncap * sizeof(void *));
        if (!nv)
            return NULL;
        *vec = nv;
        *cap = ncap;
    }
    void *obj = dra_arena_calloc(&m->arena, 1, objsize, 8);
    if (!obj)
        return NULL;
    (*vec)[(*n)++] = obj;
    return obj;
}

#define ADD_FN(fname, T, field)                                                                    \
    T *fname(dra_model_t *m)                                                                       \
    {                                                                                              \
        return vec_push(m, (void ***)&m->field, &m->n##field, &m->cap_##field, sizeof(T));         \
    }

dra_slice_t *dra_model_add_slice(dra_model_t *m)
{
    uint32_t i = m->nslices;
    dra_slice_t *s = vec_push(m, (void ***)&m->slices, &m->nslices, &m->cap_slices, sizeof *s);
    if (s)
        s->index = i;
    return s;
}
ADD_FN(dra_model_add_class, dra_device_class_t, classes)
ADD_FN(dra_model_add_claim, dra_claim_t, claims)
ADD_FN(dra_model_add_pod, dra_pod_t, pods)
ADD_FN(dra_model_add_node, dra_node_t, nodes)

dra_claim_t *dra_model_add_template(dra_model_t *m)
{
    dra_claim_t *c = vec_push(m, (void ***)&m->templates, &m->ntemplates, &m->cap_templates,
                              sizeof(dra_claim_t));
    if (c)
        c->is_template = true;
    return c;
}

const char *dra_model_str(dra_model_t *m, const char *s)
{
    return s ? dra_arena_strdup(&m->arena, s) : NULL;
}

const char *dra_model_strn(dra_model_t *m, const char *s, size_t len)
{
    return dra_arena_strndup(&m->arena, s, len);
}

void *dra_model_array(dra_model_t *m, size_t n, size_t sz)
{
    return dra_arena_calloc(&m->arena, n ? n : 1, sz, sz % 64 == 0 ? 64 : 8);
}

const dra_attr_t *dra_device_bad_version(const dra_device_t *d, dra_diag_t *why)
{
    for (uint32_t i = 0; i < d->nattrs; i++) {
        const dra_attr_t *a = &d->attrs[i];
        if (a->kind != DRA_ATTR_VERSION && a->kind != DRA_ATTR_VERSIONS)
            continue;
        uint32_t n = a->kind == DRA_ATTR_VERSION ? 1 : a->count;
        for (uint32_t k = 0; k < n; k++) {
            const char *s = a->kind == DRA_ATTR_VERSION ? a->v.s : a->v.strs[k];
            dra_semver_t sv;
            if (!s)
                s = "";
            if (dra_semver_parse(s, strlen(s), false, &sv, why) != DRA_OK)
                return a;
        }
    }
    return NULL;
}

void dra_model_slice_done(dra_model_t *m, dra_slice_t *slice)
{
    bool valid = true;
    for (uint32_t i = 0; i < slice->ndevices; i++) {
        slice->devices[i].slice = slice;
        slice->devices[i].index = i;
        valid = valid && !dra_device_bad_version(&slice->devices[i], NULL);
    }
    slice->versions_valid = valid;
    m->ndevices += slice->ndevices;
}

void dra_model_split_name(const char *name, const char **domain, size_t *domain_len,
                          const char **id)
{
    const char *slash = strrchr(name, '/');
    if (!slash) {
        *domain = NULL;
        *domain_len = 0;
        *id = name;
        return;
    }
    *domain = name;
    *domain_len = (size_t)(slash - name);
    *id = slash + 1;
}

uint32_t dra_model_qname(dra_model_t *m, const char *driver, const char *name)
{
    if (!name)
        return 0;
    uint32_t id = 0;
    if (strchr(name, '/')) {
        if (dra_intern_put(&m->intern, name, strlen(name), &id) != DRA_OK)
            return 0;
        return id;
    }
    size_t dl = driver ? strlen(driver) : 0, nl = strlen(name);
    char stackbuf[512];
    char *buf = dl + nl + 2 <= sizeof stackbuf ? stackbuf : malloc(dl + nl + 2);
    if (!buf)
        return 0;
    if (dl)
        memcpy(buf, driver, dl);
    buf[dl] = '/';
    memcpy(buf + dl + 1, name, nl);
    if (dra_intern_put(&m->intern, buf, dl + 1 + nl, &id) != DRA_OK)
        id = 0;
    if (buf != stackbuf)
        free(buf);
    return id;
}

static bool streq0(const char *a, const char *b)
{
    return a && b && strcmp(a, b) == 0;
}

const dra_device_class_t *dra_model_find_class(const dra_model_t *m, const char *name)
{
    for (uint32_t i = 0; i < m->nclasses; i++)
        if (streq0(m->classes[i]->name, name))
            return m->classes[i];
    return NULL;
}

static dra_claim_t *find_claim_in(dra_claim_t **v, uint32_t n, const char *ns, const char *name)
{
    if (!ns)
        ns = "default";
    for (uint32_t i = 0; i < n; i++) {
        const char *cns = v[i]->namespace_ ? v[i]->namespace_ : "default";
        if (streq0(v[i]->name, name) && strcmp(cns, ns) == 0)
            return v[i];
    }
    return NULL;
}

dra_claim_t *dra_model_find_claim(const dra_model_t *m, const char *ns, const char *name)
{
    return find_claim_in(m->claims, m->nclaims, ns, name);
}

dra_claim_t *dra_model_find_template(const dra_model_t *m, const char *ns, const char *name)
{
    return find_claim_in(m->templates, m->ntemplates, ns, name);
}

dra_node_t *dra_model_find_node(const dra_model_t *m, const char *name)
{
    for (uint32_t i = 0; i < m->nnodes; i++)
        if (streq0(m->nodes[i]->name, name))
            return m->nodes[i];
    return NULL;
}

/* Implying nodes must stay linear in the number of slices (50,000-node clusters): known names
 * go into a temporary open-addressing set of hashes. */
typedef struct {
    uint64_t *h; /* 0 = empty */
    const char **names;
    size_t cap, n;
} nameset_t;

static bool nameset_has_add(nameset_t *ns, const char *name, bool add)
{
    uint64_t h = dra_hash64(name, strlen(name)) | 1;
    size_t mask = ns->cap - 1;
    for (size_t i = (size_t)h & mask;; i = (i + 1) & mask) {
        if (!ns->h[i]) {
            if (add) {
                ns->h[i] = h;
                ns->names[i] = name;
                ns->n++;
            }
            return false;
        }
        if (ns->h[i] == h && strcmp(ns->names[i], name) == 0)
            return true;
    }
}

static int nameset_init(nameset_t *ns, size_t expect)
{
    ns->cap = 64;
    while (ns->cap < expect * 2 + 2)
        ns->cap *= 2;
    ns->n = 0;
    ns->h = calloc(ns->cap, sizeof *ns->h);
    ns->names = calloc(ns->cap, sizeof *ns->names);
    if (!ns->h || !ns->names) {
        free(ns->h);
        free(ns->names);
        return DRA_ENOMEM;
    }
    return DRA_OK;
}

static int imply(dra_model_t *m, nameset_t *ns, const char *name, dra_srcpos_t pos)
{
    if (!name || !*name)
        return DRA_OK;
    if (nameset_has_add(ns, name, true))
        return DRA_OK;
    dra_node_t *n = dra_model_add_node(m);
    if (!n)
        return DRA_ENOMEM;
    n->name = name;
    n->implied = true;
    n->pos = pos;
    return DRA_OK;
}

int dra_model_imply_nodes(dra_model_t *m)
{
    nameset_t ns;
    int r = nameset_init(&ns, (size_t)m->nnodes + m->nslices);
    if (r)
        return r;
    for (uint32_t i = 0; i < m->nnodes; i++)
        if (m->nodes[i]->name)
            nameset_has_add(&ns, m->nodes[i]->name, true);
    for (uint32_t i = 0; i < m->nslices && !r; i++) {
        const dra_slice_t *s = m->slices[i];
        r = imply(m, &ns, s->node_name, s->pos);
        for (uint32_t d = 0; d < s->ndevices && !r; d++)
            r = imply(m, &ns, s->devices[d].node_name, s->devices[d].pos);
    }
    free(ns.h);
    free(ns.names);
    return r;
}

const dra_attr_t *dra_device_attr(const dra_device_t *d, uint32_t qname)
{
    if (!qname)
        return NULL;
    for (uint32_t i = 0; i < d->nattrs; i++)
        if (d->attrs[i].qname == qname)
            return &d->attrs[i];
    return NULL;
}

const dra_capacity_t *dra_device_capacity(const dra_device_t *d, uint32_t qname)
{
    if (!qname)
        return NULL;
    for (uint32_t i = 0; i < d->ncaps; i++)
        if (d->caps[i].qname == qname)
            return &d->caps[i];
    return NULL;
}

const char *dra_pod_kind_name(dra_pod_kind_t k)
{
    static const char *names[] = {"Pod", "Deployment", "ReplicaSet", "StatefulSet", "DaemonSet",
                                  "Job"};
    return (unsigned)k < DRA_ARRAY_LEN(names) ? names[k] : "Unknown";
}

const char *dra_attr_kind_name(dra_attr_kind_t k)
{
    static const char *names[] = {"none", "int",  "bool",   "string", "version",
                                  "ints", "bools", "strings", "versions"};
    return (unsigned)k < DRA_ARRAY_LEN(names) ? names[k] : "unknown";
}

/* ---- digest --------------------------------------------------------------------------------- */

/* Fields are staged in a buffer and fed to XXH3 in large blocks: a model has tens of millions
 * of tiny fields and a streaming update per field would dominate the cost. */
#define HBUF 65536
typedef struct hasher {
    XXH3_state_t *st;
    struct hasher *sub; /* per-entry hasher for map-like collections (NULL inside an entry) */
    size_t n;
    bool streaming; /* st holds a prefix (the buffer overflowed at least once) */
    unsigned char buf[HBUF];
} hasher_t;

static void h_raw(hasher_t *h, const void *p, size_t len)
{
    if (h->n + len > HBUF) {
        if (!h->streaming) {
            XXH3_64bits_reset(h->st);
            h->streaming = true;
        }
        XXH3_64bits_update(h->st, h->buf, h->n);
        h->n = 0;
        if (len > HBUF) {
            XXH3_64bits_update(h->st, p, len);
            return;
        }
    }
    memcpy(h->buf + h->n, p, len);
    h->n += len;
}

static uint64_t h_finish(hasher_t *h)
{
    if (!h->streaming)
        return XXH3_64bits(h->buf, h->n);
    XXH3_64bits_update(h->st, h->buf, h->n);
    return XXH3_64bits_digest(h->st);
}

static void h_bytes(hasher_t *h, uint8_t tag, const void *p, size_t len)
{
    uint64_t l = len;
    h_raw(h, &tag, 1);
    h_raw(h, &l, sizeof l);
    if (len)
        h_raw(h, p, len);
}

static void h_str(hasher_t *h, uint8_t tag, const char *s)
{
    if (!s) {
        uint8_t t = (uint8_t)(tag | 0x80);
        h_raw(h, &t, 1);
        return;
    }
    h_bytes(h, tag, s, strlen(s));
}

static void h_u64(hasher_t *h, uint8_t tag, uint64_t v)
{
    h_bytes(h, tag, &v, sizeof v);
}

static void h_q(hasher_t *h, uint8_t tag, const dra_quantity_t *q)
{
    /* by value: equal quantities hash equal whatever their written form */
    h_u64(h, tag, dra_quantity_hash(q));
}

static void h_strs(hasher_t *h, uint8_t tag, const char *const *v, uint32_t n)
{
    h_u64(h, tag, n);
    for (uint32_t i = 0; i < n; i++)
        h_str(h, tag, v[i]);
}

static void h_selector(hasher_t *h, const dra_node_selector_t *ns)
{
    if (!ns) {
        h_u64(h, 'N', UINT64_MAX);
        return;
    }
    h_u64(h, 'N', ns->nterms);
    for (uint32_t t = 0; t < ns->nterms; t++) {
        const dra_ns_term_t *term = &ns->terms[t];
        for (int pass = 0; pass < 2; pass++) {
            const dra_ns_req_t *r = pass ? term->fields : term->exprs;
            uint32_t n = pass ? term->nfields : term->nexprs;
            h_u64(h, 'n', n);
            for (uint32_t i = 0; i < n; i++) {
                h_str(h, 'k', r[i].key);
                h_u64(h, 'o', (uint64_t)r[i].op);
                h_str(h, 'O', r[i].op == DRA_NS_UNKNOWN ? r[i].op_raw : NULL);
                h_strs(h, 'v', r[i].values, r[i].nvalues);
            }
        }
    }
}

/* Map-like collections (attributes, capacities, counters, labels) have no order in YAML or JSON:
 * each entry is hashed on its own by the sub-hasher and the entry hashes are summed, which is
 * order-independent but still sensitive to duplicates and to every field. */
static hasher_t *entry_begin(hasher_t *h)
{
    hasher_t *e = h->sub;
    e->n = 0;
    e->streaming = false;
    return e;
}

static uint64_t entry_end(hasher_t *h)
{
    return h_finish(h->sub);
}

static void h_attr(hasher_t *h, const dra_attr_t *a)
{
    h_str(h, 'a', a->name);
    h_u64(h, 'K', a->kind);
    switch ((dra_attr_kind_t)a->kind) {
    case DRA_ATTR_INT:
        h_u64(h, 'i', (uint64_t)a->v.i);
        break;
    case DRA_ATTR_BOOL:
        h_u64(h, 'b', a->v.b);
        break;
    case DRA_ATTR_STRING:
    case DRA_ATTR_VERSION:
        h_str(h, 's', a->v.s);
        break;
    case DRA_ATTR_INTS:
        h_u64(h, 'l', a->count);
        for (uint32_t i = 0; i < a->count; i++)
            h_u64(h, 'i', (uint64_t)a->v.ints[i]);
        break;
    case DRA_ATTR_BOOLS:
        h_u64(h, 'l', a->count);
        for (uint32_t i = 0; i < a->count; i++)
            h_u64(h, 'b', a->v.bools[i]);
        break;
    case DRA_ATTR_STRINGS:
    case DRA_ATTR_VERSIONS:
        h_strs(h, 's', a->v.strs, a->count);
        break;
    case DRA_ATTR_NONE:
        break;
    }
}

static void h_policy(hasher_t *h, const dra_request_policy_t *p)
{
    if (!p) {
        h_u64(h, 'P', 0);
        return;
    }
    h_u64(h, 'P', 1);
    h_u64(h, 'd', p->has_default);
    if (p->has_default)
        h_q(h, 'd', &p->def);
    h_u64(h, 'V', p->nvalid_values);
    for (uint32_t i = 0; i < p->nvalid_values; i++)
        h_q(h, 'V', &p->valid_values[i]);
    h_u64(h, 'R', p->has_valid_range);
    if (p->has_valid_range) {
        h_q(h, 'm', &p->min);
        h_u64(h, 'M', p->has_max);
        if (p->has_max)
            h_q(h, 'M', &p->max);
        h_u64(h, 'S', p->has_step);
        if (p->has_step)
            h_q(h, 'S', &p->step);
    }
}

static void h_counters(hasher_t *h, const dra_counter_t *c, uint32_t n)
{
    uint64_t sum = 0;
    for (uint32_t i = 0; i < n; i++) {
        hasher_t *e = entry_begin(h);
        h_str(e, 'c', c[i].name);
        h_q(e, 'c', &c[i].value);
        sum += entry_end(h);
    }
    h_u64(h, 'c', n);
    h_u64(h, 'c', sum);
}

static void h_taints(hasher_t *h, const dra_taint_t *t, uint32_t n)
{
    h_u64(h, 'T', n);
    for (uint32_t i = 0; i < n; i++) {
        h_str(h, 'k', t[i].key);
        h_str(h, 'v', t[i].value);
        /* the effect as the API would print it: raw text only for values the enum cannot name */
        static const char *const effects[] = {"None", "NoSchedule", "NoExecute", ""};
        const char *eff = t[i].effect_raw;
        if (!eff || t[i].effect != DRA_EFFECT_NONE)
            eff = effects[t[i].effect <= DRA_EFFECT_EMPTY ? t[i].effect : 0];
        h_str(h, 'e', eff);
        h_str(h, 't', t[i].time_added);
    }
}

static void h_tols(hasher_t *h, const dra_toleration_t *t, uint32_t n)
{
    h_u64(h, 'L', n);
    for (uint32_t i = 0; i < n; i++) {
        h_str(h, 'k', t[i].key);
        h_u64(h, 'o', (uint64_t)t[i].op);
        h_str(h, 'v', t[i].value);
        h_u64(h, 'e', (uint64_t)t[i].effect);
        h_u64(h, 's', t[i].has_seconds ? (uint64_t)t[i].seconds : UINT64_MAX);
    }
}

static void h_device(hasher_t *h, const dra_device_t *d)
{
    h_str(h, 'D', d->name);
    uint64_t sum = 0;
    for (uint32_t i = 0; i < d->nattrs; i++) {
        h_attr(entry_begin(h), &d->attrs[i]);
        sum += entry_end(h);
    }
    h_u64(h, 'A', d->nattrs);
    h_u64(h, 'A', sum);
    sum = 0;
    for (uint32_t i = 0; i < d->ncaps; i++) {
        const dra_capacity_t *c = &d->caps[i];
        hasher_t *e = entry_begin(h);
        h_str(e, 'c', c->name);
        h_q(e, 'q', &c->value);
        h_policy(e, c->policy);
        sum += entry_end(h);
    }
    h_u64(h, 'C', d->ncaps);
    h_u64(h, 'C', sum);
    h_u64(h, 'U', d->nconsumes);
    for (uint32_t i = 0; i < d->nconsumes; i++) {
        h_str(h, 'u', d->consumes[i].counter_set);
        h_counters(h, d->consumes[i].counters, d->consumes[i].ncounters);
    }
    h_str(h, 'n', d->node_name);
    h_selector(h, d->node_selector);
    h_u64(h, 'a', d->all_nodes);
    h_taints(h, d->taints, d->ntaints);
    h_u64(h, 'B', d->binds_to_node);
    h_strs(h, 'b', d->binding_conditions, d->nbinding_conditions);
    h_strs(h, 'f', d->binding_failure_conditions, d->nbinding_failure_conditions);
    h_u64(h, 'M', d->allow_multiple_allocations);
}

static void h_opaque(hasher_t *h, const dra_opaque_config_t *o)
{
    h_str(h, 'd', o->driver);
    h_str(h, 'p', o->params_json);
}

static void h_exact(hasher_t *h, const dra_exact_request_t *r)
{
    h_str(h, 'n', r->name);
    h_str(h, 'c', r->class_name);
    h_u64(h, 'S', r->nselectors);
    for (uint32_t i = 0; i < r->nselectors; i++)
        h_str(h, 's', r->selectors[i].cel);
    h_u64(h, 'm', (uint64_t)r->mode);
    h_str(h, 'M', r->mode == DRA_MODE_UNKNOWN ? r->mode_raw : NULL);
    h_u64(h, 'k', r->mode == DRA_MODE_EXACT_COUNT ? (uint64_t)(r->has_count ? r->count : 1) : 0);
    h_u64(h, 'a', r->has_admin_access ? (uint64_t)r->admin_access : 2);
    h_tols(h, r->tolerations, r->ntolerations);
    h_u64(h, 'Q', r->has_capacity);
    uint64_t sum = 0;
    for (uint32_t i = 0; i < r->ncap_requests; i++) {
        hasher_t *e = entry_begin(h);
        h_str(e, 'q', r->cap_requests[i].name);
        h_q(e, 'q', &r->cap_requests[i].value);
        sum += entry_end(h);
    }
    h_u64(h, 'q', r->ncap_requests);
    h_u64(h, 'q', sum);
}

static void h_claim(hasher_t *h, const dra_claim_t *c)
{
    h_str(h, 'N', c->namespace_ ? c->namespace_ : "default");
    h_str(h, 'n', c->name);
    h_u64(h, 'T', c->is_template);
    h_u64(h, 'R', c->nrequests);
    for (uint32_t i = 0; i < c->nrequests; i++) {
        const dra_request_t *r = &c->requests[i];
        h_str(h, 'r', r->name);
        h_u64(h, 'x', r->exactly != NULL);
        if (r->exactly)
            h_exact(h, r->exactly);
        h_u64(h, 'F', r->nfirst_available);
        for (uint32_t k = 0; k < r->nfirst_available; k++)
            h_exact(h, &r->first_available[k]);
    }
    h_u64(h, 'C', c->nconstraints);
    for (uint32_t i = 0; i < c->nconstraints; i++) {
        h_strs(h, 'r', c->constraints[i].requests, c->constraints[i].nrequests);
        h_str(h, 'm', c->constraints[i].match_attribute);
        h_str(h, 'd', c->constraints[i].distinct_attribute);
    }
    h_u64(h, 'G', c->nconfigs);
    for (uint32_t i = 0; i < c->nconfigs; i++) {
        h_strs(h, 'r', c->configs[i].requests, c->configs[i].nrequests);
        h_opaque(h, &c->configs[i].opaque);
    }
    const dra_allocation_t *a = c->allocation;
    h_u64(h, 'A', a != NULL);
    if (!a)
        return;
    h_u64(h, 'r', a->nresults);
    for (uint32_t i = 0; i < a->nresults; i++) {
        const dra_result_t *r = &a->results[i];
        h_str(h, 'q', r->request);
        h_str(h, 'd', r->driver);
        h_str(h, 'p', r->pool);
        h_str(h, 'v', r->device);
        h_u64(h, 'a', r->admin_access);
        h_tols(h, r->tolerations, r->ntolerations);
        h_strs(h, 'b', r->binding_conditions, r->nbinding_conditions);
        h_strs(h, 'f', r->binding_failure_conditions, r->nbinding_failure_conditions);
        h_str(h, 's', r->share_id);
        uint64_t sum = 0;
        for (uint32_t k = 0; k < r->nconsumed; k++) {
            hasher_t *e = entry_begin(h);
            h_str(e, 'c', r->consumed[k].name);
            h_q(e, 'c', &r->consumed[k].value);
            sum += entry_end(h);
        }
        h_u64(h, 'c', r->nconsumed);
        h_u64(h, 'c', sum);
    }
    h_u64(h, 'g', a->nconfigs);
    for (uint32_t i = 0; i < a->nconfigs; i++) {
        h_u64(h, 's', (uint64_t)a->configs[i].source);
        h_strs(h, 'r', a->configs[i].requests, a->configs[i].nrequests);
        h_opaque(h, &a->configs[i].opaque);
    }
    h_selector(h, a->node_selector);
}

uint64_t dra_model_digest(const dra_model_t *m)
{
    hasher_t *hp = malloc(2 * sizeof *hp);
    XXH3_state_t *st = XXH3_createState(), *st2 = XXH3_createState();
    if (!st || !st2 || !hp) {
        free(hp);
        XXH3_freeState(st);
        XXH3_freeState(st2);
        return 0;
    }
    hp[0].st = st;
    hp[0].sub = &hp[1];
    hp[0].n = 0;
    hp[0].streaming = false;
    hp[1].st = st2;
    hp[1].sub = NULL;
    h_u64(hp, 'S', m->nslices);
    for (uint32_t i = 0; i < m->nslices; i++) {
        const dra_slice_t *s = m->slices[i];
        h_str(hp, 'n', s->name);
        h_str(hp, 'd', s->driver);
        h_str(hp, 'p', s->pool_name);
        h_u64(hp, 'g', (uint64_t)s->generation);
        h_u64(hp, 'c', (uint64_t)s->slice_count);
        h_str(hp, 'N', s->node_name);
        h_selector(hp, s->node_selector);
        h_u64(hp, 'a', s->all_nodes);
        h_u64(hp, 'P', s->per_device_node_selection);
        h_u64(hp, 'D', s->ndevices);
        for (uint32_t d = 0; d < s->ndevices; d++)
            h_device(hp, &s->devices[d]);
        h_u64(hp, 'C', s->ncounter_sets);
        for (uint32_t c = 0; c < s->ncounter_sets; c++) {
            h_str(hp, 'c', s->counter_sets[c].name);
            h_counters(hp, s->counter_sets[c].counters, s->counter_sets[c].ncounters);
        }
    }
    h_u64(hp, 'K', m->nclasses);
    for (uint32_t i = 0; i < m->nclasses; i++) {
        const dra_device_class_t *c = m->classes[i];
        h_str(hp, 'n', c->name);
        h_u64(hp, 's', c->nselectors);
        for (uint32_t k = 0; k < c->nselectors; k++)
            h_str(hp, 's', c->selectors[k].cel);
        h_u64(hp, 'g', c->nconfigs);
        for (uint32_t k = 0; k < c->nconfigs; k++)
            h_opaque(hp, &c->configs[k].opaque);
        h_str(hp, 'e', c->extended_resource_name);
    }
    h_u64(hp, 'Q', m->nclaims);
    for (uint32_t i = 0; i < m->nclaims; i++)
        h_claim(hp, m->claims[i]);
    h_u64(hp, 'T', m->ntemplates);
    for (uint32_t i = 0; i < m->ntemplates; i++)
        h_claim(hp, m->templates[i]);
    h_u64(hp, 'P', m->npods);
    for (uint32_t i = 0; i < m->npods; i++) {
        const dra_pod_t *p = m->pods[i];
        h_u64(hp, 'k', (uint64_t)p->kind);
        h_str(hp, 'N', p->namespace_ ? p->namespace_ : "default");
        h_str(hp, 'n', p->name);
        h_u64(hp, 'r', (uint64_t)p->replicas);
        h_str(hp, 'o', p->node_name);
        h_u64(hp, 'c', p->nclaims);
        for (uint32_t k = 0; k < p->nclaims; k++) {
            h_str(hp, 'n', p->claims[k].name);
            h_str(hp, 'c', p->claims[k].claim_name);
            h_str(hp, 't', p->claims[k].template_name);
        }
    }
    /* Declared nodes only: implied ones are derived from the slices. */
    uint32_t declared = 0;
    for (uint32_t i = 0; i < m->nnodes; i++)
        declared += !m->nodes[i]->implied;
    h_u64(hp, 'O', declared);
    for (uint32_t i = 0; i < m->nnodes; i++) {
        const dra_node_t *n = m->nodes[i];
        if (n->implied)
            continue;
        h_str(hp, 'n', n->name);
        uint64_t sum = 0;
        for (uint32_t k = 0; k < n->nlabels; k++) {
            hasher_t *e = entry_begin(hp);
            h_str(e, 'k', n->labels[k].key);
            h_str(e, 'v', n->labels[k].value);
            sum += entry_end(hp);
        }
        h_u64(hp, 'l', n->nlabels);
        h_u64(hp, 'l', sum);
    }
    uint64_t r = h_finish(hp);
    XXH3_freeState(st);
    XXH3_freeState(st2);
    free(hp);
    return r;
}

uint32_t dra_model_device_rows(const dra_model_t *m, uint32_t *first)
{
    uint32_t rows = 0;
    for (uint32_t i = 0; i < m->nslices; i++) {
        if (first)
            first[i] = rows;
        rows += m->slices[i]->ndevices;
    }
    return rows;
}
