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
#include <stdio.h>
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

/* What slice updates reuse (dra_model_slice_update): the staging buffer of device records,
 * strings kept once, taint lists kept once per content (open addressing on a hash of the
 * interned pointers). */
typedef struct tlist {
    uint64_t hash;
    const dra_taint_t *arr; /* model arena */
    uint32_t n;
} tlist_t;

struct dra_model_upd {
    dra_device_t *stage;
    uint32_t stage_cap;
    dra_intern_t strs; /* strings of updated devices (a table of its own: m->intern is the
                          qualified-name space CEL looks attributes up in) */
    tlist_t *tl;
    size_t ntl, captl; /* captl: a power of two (0 before the first list) */
};

static void upd_free(struct dra_model_upd *u)
{
    if (!u)
        return;
    free(u->stage);
    dra_intern_fini(&u->strs);
    free(u->tl);
    free(u);
}

void dra_model_fini(dra_model_t *m)
{
    upd_free(m->upd);
    free(m->slices);
    free(m->classes);
    free(m->claims);
    free(m->templates);
    free(m->pods);
    free(m->nodes);
    free(m->podgroups);
    free(m->workloads);
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
ADD_FN(dra_model_add_podgroup, dra_podgroup_t, podgroups)
ADD_FN(dra_model_add_workload, dra_workload_obj_t, workloads)

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

/* Texts seen to parse (the last 8 addresses): the model's texts do not change, and the
 * generator's devices of a slice share their version texts. */
typedef struct ver_ok {
    const char *p[8];
    uint32_t n;
} ver_ok_t;

/* dra_device_bad_version, skipping the texts at addresses in *ok and adding those that parse. */
static const dra_attr_t *bad_version(const dra_device_t *d, dra_diag_t *why, ver_ok_t *ok)
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
            bool seen = false;
            for (uint32_t x = 0; x < 8 && !seen; x++)
                seen = ok->p[x] == s;
            if (seen)
                continue;
            if (dra_semver_parse(s, strlen(s), false, &sv, why) != DRA_OK)
                return a;
            ok->p[ok->n++ % 8] = s;
        }
    }
    return NULL;
}

const dra_attr_t *dra_device_bad_version(const dra_device_t *d, dra_diag_t *why)
{
    ver_ok_t ok = {{0}, 0};
    return bad_version(d, why, &ok);
}

void dra_model_slice_done(dra_model_t *m, dra_slice_t *slice)
{
    for (uint32_t i = 0; i < slice->ndevices; i++) {
        slice->devices[i].slice = slice;
        slice->devices[i].index = i;
    }
    /* each version text parsed once a slice (bad_version's memo across its devices) */
    ver_ok_t ok = {{0}, 0};
    bool valid = true;
    for (uint32_t i = 0; i < slice->ndevices && valid; i++)
        valid = !bad_version(&slice->devices[i], NULL, &ok);
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

dra_claim_t *dra_model_instantiate(dra_model_t *m, const dra_claim_t *tpl, const char *ns,
                                   const char *name)
{
    dra_claim_t *c = dra_model_add_claim(m);
    if (!c)
        return NULL;
    *c = *tpl;
    c->is_template = false;
    c->allocation = NULL;
    c->namespace_ = dra_model_str(m, ns ? ns : "default");
    c->name = dra_model_str(m, name);
    return c;
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

static const char *ns_or_default(const char *ns)
{
    return ns ? ns : "default";
}

dra_podgroup_t *dra_model_find_podgroup(const dra_model_t *m, const char *ns, const char *name)
{
    for (uint32_t i = 0; i < m->npodgroups; i++)
        if (streq0(m->podgroups[i]->name, name) &&
            streq0(ns_or_default(m->podgroups[i]->namespace_), ns_or_default(ns)))
            return m->podgroups[i];
    return NULL;
}

const dra_workload_obj_t *dra_model_find_workload(const dra_model_t *m, const char *ns,
                                                  const char *name)
{
    for (uint32_t i = 0; i < m->nworkloads; i++)
        if (streq0(m->workloads[i]->name, name) &&
            streq0(ns_or_default(m->workloads[i]->namespace_), ns_or_default(ns)))
            return m->workloads[i];
    return NULL;
}

const char *dra_node_label(const dra_node_t *n, const char *key)
{
    if (!n || !key)
        return NULL;
    for (uint32_t i = 0; i < n->nlabels; i++)
        if (n->labels[i].key && strcmp(n->labels[i].key, key) == 0)
            return n->labels[i].value ? n->labels[i].value : "";
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

const char *dra_attr_format(const dra_attr_t *a, char *buf, size_t len)
{
    size_t off = 0;
    if (!len)
        return buf;
    buf[0] = 0;
    switch ((dra_attr_kind_t)a->kind) {
    case DRA_ATTR_INT:
        snprintf(buf, len, "%lld", (long long)a->v.i);
        return buf;
    case DRA_ATTR_BOOL:
        snprintf(buf, len, "%s", a->v.b ? "true" : "false");
        return buf;
    case DRA_ATTR_STRING:
    case DRA_ATTR_VERSION:
        snprintf(buf, len, "%s", a->v.s ? a->v.s : "");
        return buf;
    case DRA_ATTR_NONE:
        return buf;
    default:
        off += (size_t)snprintf(buf, len, "[");
        for (uint32_t i = 0; i < a->count && off < len; i++) {
            if (a->kind == DRA_ATTR_INTS)
                off += (size_t)snprintf(buf + off, len - off, "%s%lld", i ? "," : "",
                                        (long long)a->v.ints[i]);
            else if (a->kind == DRA_ATTR_BOOLS)
                off += (size_t)snprintf(buf + off, len - off, "%s%s", i ? "," : "",
                                        a->v.bools[i] ? "true" : "false");
            else
                off += (size_t)snprintf(buf + off, len - off, "%s%s", i ? "," : "", a->v.strs[i]);
        }
        if (off < len)
            snprintf(buf + off, len - off, "]");
    }
    return buf;
}

/* ---- digest --------------------------------------------------------------------------------- */

/* Fields are staged in a buffer and fed to XXH3 in large blocks: a model has tens of millions
 * of tiny fields and a streaming update per field would dominate the cost. */
#define HBUF 65536

/* The hashes of recent quantities by value (dra_quantity_hash depends on the magnitude, the
 * exponent and the sign only): devices of one kind repeat their capacities and counters, and the
 * hash strips tens and mixes three words. Direct-mapped, power of two. */
#define QMEMO 256
typedef struct qmemo_ent {
    uint64_t lo, hi, h;
    int32_t exp;
    int8_t neg;
    uint8_t valid;
} qmemo_ent_t;

/* The entry hashes of recent attributes by identity: the model does not change while it is
 * hashed, so an attribute with the same name pointer, kind, count and value (a number, or the
 * pointer of its text or list) hashes as an earlier one did; the generator shares its strings
 * and lists between devices. Direct-mapped, power of two. */
#define AMEMO 1024
typedef struct amemo_ent {
    const char *name;
    uint64_t val, h;
    uint32_t count;
    uint8_t kind, valid;
} amemo_ent_t;

/* The entry hashes of recent counters and capacities (a name, a quantity, and a valueFrom or a
 * policy) by the identity of their name and policy pointers and the quantity's value, as
 * amemo_ent_t does for attributes. */
#define QEMEMO 1024
typedef struct qememo_ent {
    const char *name;
    const void *p1, *p2;
    uint64_t lo, hi, h;
    int32_t exp;
    int8_t neg;
    uint8_t what, valid; /* what: 1 counter, 2 capacity */
} qememo_ent_t;

typedef struct hasher {
    XXH3_state_t *st;
    struct hasher *sub; /* per-entry hasher for map-like collections (NULL inside an entry) */
    qmemo_ent_t *qm;    /* QMEMO entries shared by a hasher and its sub-hasher */
    amemo_ent_t *am;    /* AMEMO entries, likewise */
    qememo_ent_t *qe;   /* QEMEMO entries, likewise */
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

/* A field: its tag, its length (8 bytes) and its bytes. When the field fits the buffer it is
 * written in place with fixed-size copies (the common case: no call per piece); the bytes fed
 * to XXH3 are the same either way. */
static void h_bytes(hasher_t *h, uint8_t tag, const void *p, size_t len)
{
    uint64_t l = len;
    if (len <= HBUF - 9 && h->n + 9 + len <= HBUF) {
        unsigned char *o = h->buf + h->n;
        o[0] = tag;
        memcpy(o + 1, &l, sizeof l);
        if (len == sizeof(uint64_t))
            memcpy(o + 9, p, sizeof(uint64_t));
        else if (len)
            memcpy(o + 9, p, len);
        h->n += 9 + len;
        return;
    }
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
    uint64_t k = (q->lo * 0x9e3779b97f4a7c15ULL) ^ (q->hi * 0xff51afd7ed558ccdULL) ^
                 ((uint64_t)(uint32_t)q->exp << 1) ^ (uint64_t)(uint8_t)q->neg;
    qmemo_ent_t *e = &h->qm[(k >> 40) & (QMEMO - 1)];
    if (!e->valid || e->lo != q->lo || e->hi != q->hi || e->exp != q->exp || e->neg != q->neg) {
        e->lo = q->lo;
        e->hi = q->hi;
        e->exp = q->exp;
        e->neg = q->neg;
        e->valid = 1;
        e->h = dra_quantity_hash(q);
    }
    h_u64(h, tag, e->h);
}

/* A resource list: kept sorted by name by the reader and the generator, so hashed in order;
 * a defaulted request hashes like a written one (the writer writes the limit only). */
static void h_resources(hasher_t *h, uint8_t tag, const dra_resource_qty_t *v, uint32_t n)
{
    h_u64(h, tag, n);
    for (uint32_t i = 0; i < n; i++) {
        h_str(h, 'n', v[i].name);
        h_q(h, 'v', &v[i].value);
    }
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

/* Labels (a map: order-free), their count and the sum of the entries' hashes under tag. */
static void h_labels(hasher_t *hp, uint8_t tag, const dra_label_t *l, uint32_t n)
{
    uint64_t sum = 0;
    for (uint32_t k = 0; k < n; k++) {
        hasher_t *e = entry_begin(hp);
        h_str(e, 'k', l[k].key);
        h_str(e, 'v', l[k].value);
        sum += entry_end(hp);
    }
    h_u64(hp, tag, n);
    h_u64(hp, tag, sum);
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

/* consumedCounters (KEP-5941): counter sets in order, counters as a map */
static void h_set_uses(hasher_t *h, uint8_t tag, const dra_counter_set_use_t *u, uint32_t n)
{
    h_u64(h, tag, n);
    for (uint32_t i = 0; i < n; i++) {
        h_str(h, tag, u[i].counter_set);
        uint64_t sum = 0;
        for (uint32_t k = 0; k < u[i].ncounters; k++) {
            hasher_t *e = entry_begin(h);
            h_str(e, 'c', u[i].counters[k].name);
            h_q(e, 'c', &u[i].counters[k].value);
            sum += entry_end(h);
        }
        h_u64(h, 'c', u[i].ncounters);
        h_u64(h, 'c', sum);
    }
}

static void h_snapshot(hasher_t *h, const dra_counter_snapshot_t *sn)
{
    h_u64(h, 'K', 1);
    h_set_uses(h, 'D', sn->per_device, sn->nper_device);
    h_set_uses(h, 'L', sn->per_allocation, sn->nper_allocation);
}

/* The memo entry of (what, name, q, p1, p2) in h->qe; *hit when it holds that key (else it is
 * set to it, and the caller stores the hash). */
static qememo_ent_t *qe_slot(hasher_t *h, uint8_t what, const char *name, const dra_quantity_t *q,
                             const void *p1, const void *p2, bool *hit)
{
    uint64_t k = ((uint64_t)(uintptr_t)name * 0x9e3779b97f4a7c15ULL) ^
                 (q->lo * 0xff51afd7ed558ccdULL) ^ q->hi ^ ((uint64_t)(uint32_t)q->exp << 7) ^
                 ((uint64_t)(uintptr_t)p1 * 0xc4ceb9fe1a85ec53ULL) ^ (uint64_t)(uintptr_t)p2 ^ what;
    k ^= k >> 31;
    qememo_ent_t *e = &h->qe[(k * 0x94d049bb133111ebULL) >> 54 & (QEMEMO - 1)];
    *hit = e->valid && e->what == what && e->name == name && e->p1 == p1 && e->p2 == p2 &&
           e->lo == q->lo && e->hi == q->hi && e->exp == q->exp && e->neg == q->neg;
    if (!*hit) {
        e->what = what;
        e->name = name;
        e->p1 = p1;
        e->p2 = p2;
        e->lo = q->lo;
        e->hi = q->hi;
        e->exp = q->exp;
        e->neg = q->neg;
        e->valid = 1;
    }
    return e;
}

static void h_counters(hasher_t *h, const dra_counter_t *c, uint32_t n)
{
    uint64_t sum = 0;
    for (uint32_t i = 0; i < n; i++) {
        bool hit;
        qememo_ent_t *m = qe_slot(h, 1, c[i].name, &c[i].value, c[i].value_from, c[i].policy, &hit);
        if (!hit) {
            hasher_t *e = entry_begin(h);
            h_str(e, 'c', c[i].name);
            h_q(e, 'c', &c[i].value);
            if (c[i].value_from) /* KEP-5941 fields: hashed only when present (digests unchanged) */
                h_str(e, 'f', c[i].value_from);
            if (c[i].policy)
                h_policy(e, c[i].policy);
            m->h = entry_end(h);
        }
        sum += m->h;
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

/* The entry hash of attribute a (h_attr in the sub-hasher), through h->am. */
static uint64_t attr_entry(hasher_t *h, const dra_attr_t *a)
{
    uint64_t val = 0;
    switch ((dra_attr_kind_t)a->kind) {
    case DRA_ATTR_INT: val = (uint64_t)a->v.i; break;
    case DRA_ATTR_BOOL: val = a->v.b; break;
    case DRA_ATTR_STRING:
    case DRA_ATTR_VERSION: val = (uint64_t)(uintptr_t)a->v.s; break;
    case DRA_ATTR_INTS: val = (uint64_t)(uintptr_t)a->v.ints; break;
    case DRA_ATTR_BOOLS: val = (uint64_t)(uintptr_t)a->v.bools; break;
    case DRA_ATTR_STRINGS:
    case DRA_ATTR_VERSIONS: val = (uint64_t)(uintptr_t)a->v.strs; break;
    case DRA_ATTR_NONE: break;
    }
    uint64_t k = ((uint64_t)(uintptr_t)a->name * 0x9e3779b97f4a7c15ULL) ^
                 (val * 0xff51afd7ed558ccdULL) ^ ((uint64_t)a->kind << 32) ^ a->count;
    k ^= k >> 29;
    amemo_ent_t *e = &h->am[(k * 0x94d049bb133111ebULL) >> 54 & (AMEMO - 1)];
    if (e->valid && e->name == a->name && e->val == val && e->kind == a->kind &&
        e->count == a->count)
        return e->h;
    h_attr(entry_begin(h), a);
    e->h = entry_end(h);
    e->name = a->name;
    e->val = val;
    e->kind = a->kind;
    e->count = a->count;
    e->valid = 1;
    return e->h;
}

static void h_device(hasher_t *h, const dra_device_t *d)
{
    h_str(h, 'D', d->name);
    uint64_t sum = 0;
    for (uint32_t i = 0; i < d->nattrs; i++)
        sum += attr_entry(h, &d->attrs[i]);
    h_u64(h, 'A', d->nattrs);
    h_u64(h, 'A', sum);
    sum = 0;
    for (uint32_t i = 0; i < d->ncaps; i++) {
        const dra_capacity_t *c = &d->caps[i];
        bool hit;
        qememo_ent_t *m = qe_slot(h, 2, c->name, &c->value, c->policy, NULL, &hit);
        if (!hit) {
            hasher_t *e = entry_begin(h);
            h_str(e, 'c', c->name);
            h_q(e, 'q', &c->value);
            h_policy(e, c->policy);
            m->h = entry_end(h);
        }
        sum += m->h;
    }
    h_u64(h, 'C', d->ncaps);
    h_u64(h, 'C', sum);
    h_u64(h, 'U', d->nconsumes);
    for (uint32_t i = 0; i < d->nconsumes; i++) {
        h_str(h, 'u', d->consumes[i].counter_set);
        h_counters(h, d->consumes[i].counters, d->consumes[i].ncounters);
        if (d->consumes[i].ngroups) /* absent from digests of models without groups */
            h_strs(h, 'g', d->consumes[i].groups, d->consumes[i].ngroups);
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
    if (r->nderived) { /* absent from digests of models without derived attributes */
        h_u64(h, 'D', r->nderived);
        for (uint32_t i = 0; i < r->nderived; i++) {
            h_str(h, 'n', r->derived[i].name);
            h_str(h, 'e', r->derived[i].expr);
        }
    }
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
    if (c->extended || c->owner_pod || c->owner_uid || c->generate_name) {
        h_u64(h, 'E', c->extended);
        h_str(h, 'o', c->owner_pod);
        h_str(h, 'u', c->owner_uid);
        h_str(h, 'g', c->generate_name);
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
        if (r->nskip_node_ops) /* only when present: digests without the field stay as they were */
            h_strs(h, 'k', r->skip_node_ops, r->nskip_node_ops);
        if (a->counters && a->counters[i]) /* KEP-5941: only when present (digests unchanged) */
            h_snapshot(h, a->counters[i]);
    }
    h_u64(h, 'g', a->nconfigs);
    for (uint32_t i = 0; i < a->nconfigs; i++) {
        h_u64(h, 's', (uint64_t)a->configs[i].source);
        h_strs(h, 'r', a->configs[i].requests, a->configs[i].nrequests);
        h_opaque(h, &a->configs[i].opaque);
    }
    h_selector(h, a->node_selector);
}

static void h_group_sched(hasher_t *h, const dra_group_sched_t *s)
{
    h_u64(h, 'P', (uint64_t)s->has_policy | (uint64_t)s->basic << 1 | (uint64_t)s->gang << 2);
    h_u64(h, 'm', s->has_min_count ? (uint64_t)s->min_count : UINT64_MAX);
    h_u64(h, 'C', s->has_constraints);
    h_strs(h, 't', s->topology, s->ntopology);
    h_u64(h, 'R', s->has_claims);
    h_u64(h, 'R', s->nclaims);
    for (uint32_t i = 0; i < s->nclaims; i++) {
        h_str(h, 'n', s->claims[i].name);
        h_str(h, 'c', s->claims[i].claim_name);
        h_str(h, 't', s->claims[i].template_name);
    }
}

uint64_t dra_model_digest(const dra_model_t *m)
{
    hasher_t *hp = malloc(2 * sizeof *hp);
    qmemo_ent_t *qm = calloc(QMEMO, sizeof *qm);
    amemo_ent_t *am = calloc(AMEMO, sizeof *am);
    qememo_ent_t *qe = calloc(QEMEMO, sizeof *qe);
    XXH3_state_t *st = XXH3_createState(), *st2 = XXH3_createState();
    if (!st || !st2 || !hp || !qm || !am || !qe) {
        free(hp);
        free(qm);
        free(am);
        free(qe);
        XXH3_freeState(st);
        XXH3_freeState(st2);
        return 0;
    }
    hp[0].st = st;
    hp[0].sub = &hp[1];
    hp[0].qm = hp[1].qm = qm;
    hp[0].am = hp[1].am = am;
    hp[0].qe = hp[1].qe = qe;
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
        if (s->nskip_node_ops) /* only when present, as below */
            h_strs(hp, 'k', s->skip_node_ops, s->nskip_node_ops);
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
        if (c->created) /* optional sections are hashed only when present: digests of models
                           without them stay as they were */
            h_str(hp, 'z', c->created);
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
        for (uint32_t k = 0; k < p->nclaims; k++)
            if (p->claims[k].generated_name) {
                h_u64(hp, 'g', k);
                h_str(hp, 'g', p->claims[k].generated_name);
            }
        if (p->uid)
            h_str(hp, 'u', p->uid);
        if (p->noverhead)
            h_resources(hp, 'V', p->overhead, p->noverhead);
        if (p->nnode_labels)
            h_labels(hp, 'L', p->node_labels, p->nnode_labels);
        if (p->node_affinity)
            h_selector(hp, p->node_affinity);
        if (p->ntolerations)
            h_tols(hp, p->tolerations, p->ntolerations);
        if (p->ext_claim || p->next_mappings) {
            h_str(hp, 'X', p->ext_claim);
            h_u64(hp, 'X', p->next_mappings);
            for (uint32_t k = 0; k < p->next_mappings; k++) {
                h_str(hp, 'c', p->ext_mappings[k].container);
                h_str(hp, 'r', p->ext_mappings[k].resource);
                h_str(hp, 'q', p->ext_mappings[k].request);
            }
        }
        if (p->ncontainers) {
            h_u64(hp, 'C', p->ncontainers);
            h_u64(hp, 'i', p->ninit);
            for (uint32_t k = 0; k < p->ncontainers; k++) {
                const dra_container_t *c = &p->containers[k];
                h_str(hp, 'n', c->name);
                h_u64(hp, 'k', (uint64_t)c->kind);
                h_resources(hp, 'R', c->requests, c->nrequests);
                h_resources(hp, 'L', c->limits, c->nlimits);
            }
        }
        /* workload fields only when set: digests of models without them stay as they were */
        if (p->has_group || p->scheduler_name || p->has_priority) {
            h_u64(hp, 'W', p->has_group);
            h_str(hp, 'g', p->group);
            h_str(hp, 's', p->scheduler_name);
            h_u64(hp, 'p', p->has_priority ? (uint64_t)p->priority : UINT64_MAX);
        }
    }
    if (m->npodgroups || m->nworkloads) {
        h_u64(hp, 'G', m->npodgroups);
        for (uint32_t i = 0; i < m->npodgroups; i++) {
            const dra_podgroup_t *g = m->podgroups[i];
            h_str(hp, 'N', g->namespace_ ? g->namespace_ : "default");
            h_str(hp, 'n', g->name);
            h_u64(hp, 'r', g->has_template_ref);
            h_str(hp, 'w', g->workload_name);
            h_str(hp, 't', g->template_name);
            h_group_sched(hp, &g->s);
        }
        h_u64(hp, 'W', m->nworkloads);
        for (uint32_t i = 0; i < m->nworkloads; i++) {
            const dra_workload_obj_t *w = m->workloads[i];
            h_str(hp, 'N', w->namespace_ ? w->namespace_ : "default");
            h_str(hp, 'n', w->name);
            h_u64(hp, 'c', w->has_controller_ref);
            h_str(hp, 'a', w->ctrl_api_group);
            h_str(hp, 'k', w->ctrl_kind);
            h_str(hp, 'c', w->ctrl_name);
            h_u64(hp, 'T', w->has_templates);
            h_u64(hp, 'T', w->ntemplates);
            for (uint32_t k = 0; k < w->ntemplates; k++) {
                h_str(hp, 'n', w->templates[k].name);
                h_group_sched(hp, &w->templates[k].s);
            }
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
        h_labels(hp, 'l', n->labels, n->nlabels);
        if (n->nallocatable)
            h_resources(hp, 'A', n->allocatable, n->nallocatable);
        if (n->ntaints)
            h_taints(hp, n->taints, n->ntaints);
        if (n->unschedulable)
            h_u64(hp, 'U', 1);
        if (n->ndeclared_features)
            h_strs(hp, 'F', n->declared_features, n->ndeclared_features);
    }
    uint64_t r = h_finish(hp);
    XXH3_freeState(st);
    XXH3_freeState(st2);
    free(hp);
    free(qm);
    free(am);
    free(qe);
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

/* ---- republishing a slice ------------------------------------------------------------------- */

static bool str_same(const char *a, const char *b)
{
    return (!a && !b) || (a && b && strcmp(a, b) == 0);
}

static bool strs_same(const char *const *a, uint32_t na, const char *const *b, uint32_t nb)
{
    if (na != nb)
        return false;
    for (uint32_t i = 0; i < na; i++)
        if (!str_same(a[i], b[i]))
            return false;
    return true;
}

static bool attr_same(const dra_attr_t *a, const dra_attr_t *b)
{
    if (a->qname != b->qname || a->kind != b->kind || a->count != b->count)
        return false;
    switch ((dra_attr_kind_t)a->kind) {
    case DRA_ATTR_INT: return a->v.i == b->v.i;
    case DRA_ATTR_BOOL: return a->v.b == b->v.b;
    case DRA_ATTR_STRING:
    case DRA_ATTR_VERSION: return str_same(a->v.s, b->v.s);
    case DRA_ATTR_INTS:
        return a->count == 0 || !memcmp(a->v.ints, b->v.ints, a->count * sizeof *a->v.ints);
    case DRA_ATTR_BOOLS:
        for (uint32_t i = 0; i < a->count; i++)
            if (a->v.bools[i] != b->v.bools[i])
                return false;
        return true;
    case DRA_ATTR_STRINGS:
    case DRA_ATTR_VERSIONS: return strs_same(a->v.strs, a->count, b->v.strs, b->count);
    case DRA_ATTR_NONE: return true;
    }
    return false;
}


static bool policy_same(const dra_request_policy_t *a, const dra_request_policy_t *b)
{
    if (!a || !b)
        return a == b;
    if (a->has_default != b->has_default || a->nvalid_values != b->nvalid_values ||
        a->has_valid_range != b->has_valid_range || a->has_max != b->has_max ||
        a->has_step != b->has_step)
        return false;
    if ((a->has_default && dra_quantity_cmp(&a->def, &b->def)) ||
        (a->has_valid_range && dra_quantity_cmp(&a->min, &b->min)) ||
        (a->has_max && dra_quantity_cmp(&a->max, &b->max)) ||
        (a->has_step && dra_quantity_cmp(&a->step, &b->step)))
        return false;
    for (uint32_t i = 0; i < a->nvalid_values; i++)
        if (dra_quantity_cmp(&a->valid_values[i], &b->valid_values[i]))
            return false;
    return true;
}

static bool counters_same(const dra_counter_t *a, uint32_t na, const dra_counter_t *b, uint32_t nb)
{
    if (na != nb)
        return false;
    for (uint32_t i = 0; i < na; i++)
        if (!str_same(a[i].name, b[i].name) || dra_quantity_cmp(&a[i].value, &b[i].value) != 0 ||
            a[i].value.exp != b[i].value.exp || !str_same(a[i].value_from, b[i].value_from) ||
            !policy_same(a[i].policy, b[i].policy))
            return false;
    return true;
}

/* What differs between the old definition o and the new one n (both with interned qnames). */
static uint32_t device_changes(const dra_device_t *o, const dra_device_t *n)
{
    uint32_t ch = 0;
    bool same = o->nattrs == n->nattrs;
    for (uint32_t i = 0; same && i < o->nattrs; i++)
        same = str_same(o->attrs[i].name, n->attrs[i].name) && attr_same(&o->attrs[i], &n->attrs[i]);
    ch |= same ? 0 : DRA_SLICE_CHANGED_ATTRS;
    same = o->ncaps == n->ncaps;
    for (uint32_t i = 0; same && i < o->ncaps; i++)
        same = str_same(o->caps[i].name, n->caps[i].name) && o->caps[i].qname == n->caps[i].qname &&
               dra_quantity_cmp(&o->caps[i].value, &n->caps[i].value) == 0 &&
               o->caps[i].value.exp == n->caps[i].value.exp &&
               policy_same(o->caps[i].policy, n->caps[i].policy);
    ch |= same ? 0 : DRA_SLICE_CHANGED_CAPS;
    same = o->nconsumes == n->nconsumes;
    for (uint32_t i = 0; same && i < o->nconsumes; i++)
        same = str_same(o->consumes[i].counter_set, n->consumes[i].counter_set) &&
               counters_same(o->consumes[i].counters, o->consumes[i].ncounters,
                             n->consumes[i].counters, n->consumes[i].ncounters) &&
               strs_same(o->consumes[i].groups, o->consumes[i].ngroups, n->consumes[i].groups,
                         n->consumes[i].ngroups);
    ch |= same ? 0 : DRA_SLICE_CHANGED_CONSUMES;
    same = o->ntaints == n->ntaints;
    for (uint32_t i = 0; same && i < o->ntaints; i++)
        same = str_same(o->taints[i].key, n->taints[i].key) &&
               str_same(o->taints[i].value, n->taints[i].value) &&
               o->taints[i].effect == n->taints[i].effect &&
               str_same(o->taints[i].effect_raw, n->taints[i].effect_raw) &&
               str_same(o->taints[i].time_added, n->taints[i].time_added);
    ch |= same ? 0 : DRA_SLICE_CHANGED_TAINTS;
    if (o->binds_to_node != n->binds_to_node ||
        !strs_same(o->binding_conditions, o->nbinding_conditions, n->binding_conditions,
                   n->nbinding_conditions) ||
        !strs_same(o->binding_failure_conditions, o->nbinding_failure_conditions,
                   n->binding_failure_conditions, n->nbinding_failure_conditions))
        ch |= DRA_SLICE_CHANGED_BINDING;
    if (o->allow_multiple_allocations != n->allow_multiple_allocations)
        ch |= DRA_SLICE_CHANGED_MULTI;
    return ch;
}

#define UPD_FAIL(pos, ...)                                                                         \
    return dra_diag_set(diag, DRA_EINVAL, (pos)->file, (pos)->line, (pos)->column, __VA_ARGS__)

static bool empty(const char *s)
{
    return !s || !*s;
}

/* The checks a loaded device passes (model.h, "republishing a slice"), devs[i] against the old
 * definition od. */
static int update_check(const dra_slice_t *s, uint32_t i, const dra_device_t *d,
                        const dra_device_t *od, dra_diag_t *diag)
{
    const dra_srcpos_t *pos = d->pos.file ? &d->pos : &s->pos;
    const char *sn = s->name ? s->name : "";
    if (d->name && strcmp(d->name, od->name ? od->name : "") != 0)
        UPD_FAIL(pos,
                 "ResourceSlice %s: devices[%u].name: \"%s\" replaces \"%s\": a republished slice "
                 "must keep its device names in order (not incremental: rebuild the model)",
                 sn, i, d->name, od->name ? od->name : "");
    if (!str_same(d->node_name, od->node_name) || d->node_selector != od->node_selector ||
        d->all_nodes != od->all_nodes)
        UPD_FAIL(pos,
                 "ResourceSlice %s: devices[%u]: per-device node selection changed (not "
                 "incremental: rebuild the model)",
                 sn, i);
    for (uint32_t a = 0; a < d->nattrs; a++) {
        const dra_attr_t *at = &d->attrs[a];
        if (empty(at->name))
            UPD_FAIL(pos, "ResourceSlice %s: devices[%u].attributes[%u]: empty name", sn, i, a);
        if (at->kind > DRA_ATTR_VERSIONS)
            UPD_FAIL(pos, "ResourceSlice %s: devices[%u].attributes.%s: unknown kind %u", sn, i,
                     at->name, at->kind);
        if (dra_attr_kind_is_list((dra_attr_kind_t)at->kind) && at->count && !at->v.ints)
            UPD_FAIL(pos, "ResourceSlice %s: devices[%u].attributes.%s: list without values", sn,
                     i, at->name);
    }
    for (uint32_t c = 0; c < d->ncaps; c++) {
        const dra_capacity_t *cp = &d->caps[c];
        if (empty(cp->name))
            UPD_FAIL(pos, "ResourceSlice %s: devices[%u].capacity[%u]: empty name", sn, i, c);
        if (cp->value.neg)
            UPD_FAIL(pos, "ResourceSlice %s: devices[%u].capacity.%s: negative value", sn, i,
                     cp->name);
    }
    for (uint32_t c = 0; c < d->nconsumes; c++) {
        const dra_consumes_t *cc = &d->consumes[c];
        if (empty(cc->counter_set))
            UPD_FAIL(pos, "ResourceSlice %s: devices[%u].consumesCounters[%u].counterSet: empty",
                     sn, i, c);
        for (uint32_t k = 0; k < cc->ncounters; k++)
            if (empty(cc->counters[k].name) || cc->counters[k].value.neg)
                UPD_FAIL(pos,
                         "ResourceSlice %s: devices[%u].consumesCounters[%u].counters[%u]: empty "
                         "name or negative value",
                         sn, i, c, k);
    }
    for (uint32_t t = 0; t < d->ntaints; t++) {
        const dra_taint_t *tt = &d->taints[t];
        if (empty(tt->key))
            UPD_FAIL(pos, "ResourceSlice %s: devices[%u].taints[%u].key: empty", sn, i, t);
        if (tt->effect == DRA_EFFECT_EMPTY || tt->effect > DRA_EFFECT_EMPTY)
            UPD_FAIL(pos, "ResourceSlice %s: devices[%u].taints[%u].effect: not a taint effect",
                     sn, i, t);
    }
    for (uint32_t b = 0; b < d->nbinding_conditions + d->nbinding_failure_conditions; b++) {
        const char *bc = b < d->nbinding_conditions
                             ? d->binding_conditions[b]
                             : d->binding_failure_conditions[b - d->nbinding_conditions];
        if (empty(bc))
            UPD_FAIL(pos, "ResourceSlice %s: devices[%u]: empty binding condition", sn, i);
    }
    return DRA_OK;
}

static const char *cstr(dra_model_t *m, const char *s, bool *oom);

static const char **copy_strs(dra_model_t *m, const char *const *v, uint32_t n, bool *oom)
{
    if (!n)
        return NULL;
    const char **out = dra_model_array(m, n, sizeof *out);
    if (!out) {
        *oom = true;
        return NULL;
    }
    for (uint32_t i = 0; i < n; i++)
        out[i] = cstr(m, v[i], oom);
    return out;
}

/* s kept once in the model (the update table of strings): updates that repeat a string do not
 * grow the arena. */
static const char *cstr(dra_model_t *m, const char *s, bool *oom)
{
    if (!s)
        return NULL;
    uint32_t id;
    if (dra_intern_put(&m->upd->strs, s, strlen(s), &id) != DRA_OK) {
        *oom = true;
        return NULL;
    }
    return dra_intern_str(&m->upd->strs, id);
}

/* The taint list with the content of x[0..n) (strings already kept by cstr, so equal content
 * is equal pointers), made once in the arena and shared: NULL on out-of-memory. */
static dra_taint_t *taint_list(dra_model_t *m, const dra_taint_t *x, uint32_t n)
{
    struct dra_model_upd *u = m->upd;
    uint64_t h = XXH3_64bits(x, (size_t)n * sizeof *x) ^ n;
    if (u->ntl * 2 >= u->captl) {
        size_t nc = u->captl ? u->captl * 2 : 64;
        tlist_t *nt = calloc(nc, sizeof *nt);
        if (!nt)
            return NULL;
        for (size_t i = 0; i < u->captl; i++)
            if (u->tl[i].arr) {
                size_t j = u->tl[i].hash & (nc - 1);
                while (nt[j].arr)
                    j = (j + 1) & (nc - 1);
                nt[j] = u->tl[i];
            }
        free(u->tl);
        u->tl = nt;
        u->captl = nc;
    }
    size_t j = h & (u->captl - 1);
    for (; u->tl[j].arr; j = (j + 1) & (u->captl - 1))
        if (u->tl[j].hash == h && u->tl[j].n == n &&
            memcmp(u->tl[j].arr, x, (size_t)n * sizeof *x) == 0)
            return (dra_taint_t *)(uintptr_t)u->tl[j].arr;
    dra_taint_t *arr = dra_model_array(m, n, sizeof *arr);
    if (!arr)
        return NULL;
    memcpy(arr, x, (size_t)n * sizeof *x);
    u->tl[j] = (tlist_t){h, arr, n};
    u->ntl++;
    return arr;
}

/* Deep copy of d into out (arena-owned), keeping od's name, node selection, slice and index. */
static void copy_device(dra_model_t *m, const dra_slice_t *s, const dra_device_t *d,
                        const dra_device_t *od, dra_device_t *out, bool *oom)
{
    *out = *od;
    /* an array the model already holds for this device (the caller copied the current
     * definition and changed something else) is kept as it is: no copy */
    bool same_attrs = d->attrs == od->attrs && d->nattrs == od->nattrs;
    out->attrs = same_attrs ? od->attrs
                 : d->nattrs ? dra_model_array(m, d->nattrs, sizeof *out->attrs)
                             : NULL;
    out->nattrs = d->nattrs;
    for (uint32_t a = 0; !same_attrs && out->attrs && a < d->nattrs; a++) {
        const dra_attr_t *x = &d->attrs[a];
        dra_attr_t *y = &out->attrs[a];
        *y = *x;
        y->name = cstr(m, x->name, oom);
        y->qname = dra_model_qname(m, s->driver, x->name);
        switch ((dra_attr_kind_t)x->kind) {
        case DRA_ATTR_STRING:
        case DRA_ATTR_VERSION: y->v.s = cstr(m, x->v.s, oom); break;
        case DRA_ATTR_INTS: {
            int64_t *v = x->count ? dra_model_array(m, x->count, sizeof *v) : NULL;
            if (x->count && !v)
                *oom = true;
            else if (v)
                memcpy(v, x->v.ints, x->count * sizeof *v);
            y->v.ints = v;
            break;
        }
        case DRA_ATTR_BOOLS: {
            bool *v = x->count ? dra_model_array(m, x->count, sizeof *v) : NULL;
            if (x->count && !v)
                *oom = true;
            else if (v)
                memcpy(v, x->v.bools, x->count * sizeof *v);
            y->v.bools = v;
            break;
        }
        case DRA_ATTR_STRINGS:
        case DRA_ATTR_VERSIONS: y->v.strs = copy_strs(m, x->v.strs, x->count, oom); break;
        default: break;
        }
    }
    bool same_caps = d->caps == od->caps && d->ncaps == od->ncaps;
    out->caps = same_caps ? od->caps
                : d->ncaps ? dra_model_array(m, d->ncaps, sizeof *out->caps)
                           : NULL;
    out->ncaps = d->ncaps;
    for (uint32_t c = 0; !same_caps && out->caps && c < d->ncaps; c++) {
        const dra_capacity_t *x = &d->caps[c];
        dra_capacity_t *y = &out->caps[c];
        *y = *x;
        y->name = cstr(m, x->name, oom);
        y->qname = dra_model_qname(m, s->driver, x->name);
        if (x->policy) {
            dra_request_policy_t *p = dra_model_array(m, 1, sizeof *p);
            if (!p) {
                *oom = true;
                continue;
            }
            *p = *x->policy;
            if (p->nvalid_values) {
                dra_quantity_t *vv = dra_model_array(m, p->nvalid_values, sizeof *vv);
                if (!vv)
                    *oom = true;
                else
                    memcpy(vv, x->policy->valid_values, p->nvalid_values * sizeof *vv);
                p->valid_values = vv;
            }
            y->policy = p;
        }
    }
    bool same_cons = d->consumes == od->consumes && d->nconsumes == od->nconsumes;
    out->consumes = same_cons ? od->consumes
                    : d->nconsumes ? dra_model_array(m, d->nconsumes, sizeof *out->consumes)
                                   : NULL;
    out->nconsumes = d->nconsumes;
    for (uint32_t c = 0; !same_cons && out->consumes && c < d->nconsumes; c++) {
        const dra_consumes_t *x = &d->consumes[c];
        dra_consumes_t *y = &out->consumes[c];
        y->counter_set = cstr(m, x->counter_set, oom);
        y->ncounters = x->ncounters;
        y->counters = x->ncounters ? dra_model_array(m, x->ncounters, sizeof *y->counters) : NULL;
        for (uint32_t k = 0; y->counters && k < x->ncounters; k++) {
            y->counters[k].name = cstr(m, x->counters[k].name, oom);
            y->counters[k].value = x->counters[k].value;
            y->counters[k].value_from =
                x->counters[k].value_from ? cstr(m, x->counters[k].value_from, oom) : NULL;
        }
        if (x->ncounters && !y->counters)
            *oom = true;
        y->ngroups = x->ngroups;
        y->groups = x->ngroups ? dra_model_array(m, x->ngroups, sizeof *y->groups) : NULL;
        for (uint32_t k = 0; y->groups && k < x->ngroups; k++)
            y->groups[k] = cstr(m, x->groups[k], oom);
        if (x->ngroups && !y->groups)
            *oom = true;
    }
    bool same_taints = d->taints == od->taints && d->ntaints == od->ntaints;
    out->taints = same_taints ? od->taints : NULL;
    out->ntaints = d->ntaints;
    if (!same_taints && d->ntaints) {
        /* built with kept strings in a small buffer, then found or made once (taint_list) */
        dra_taint_t local[16], *tmp = d->ntaints <= 16 ? local : calloc(d->ntaints, sizeof *tmp);
        if (!tmp) {
            *oom = true;
        } else {
            memset(tmp, 0, (size_t)d->ntaints * sizeof *tmp); /* padding too: it is hashed */
            for (uint32_t t = 0; t < d->ntaints; t++) {
                const dra_taint_t *x = &d->taints[t];
                tmp[t].key = cstr(m, x->key, oom);
                tmp[t].value = cstr(m, x->value, oom);
                tmp[t].effect = x->effect;
                tmp[t].effect_raw = cstr(m, x->effect_raw, oom);
                tmp[t].time_added = cstr(m, x->time_added, oom);
            }
            if (!*oom && !(out->taints = taint_list(m, tmp, d->ntaints)))
                *oom = true;
            if (tmp != local)
                free(tmp);
        }
    }
    out->binds_to_node = d->binds_to_node;
    out->binding_conditions =
        d->binding_conditions == od->binding_conditions &&
                d->nbinding_conditions == od->nbinding_conditions
            ? od->binding_conditions
            : copy_strs(m, d->binding_conditions, d->nbinding_conditions, oom);
    out->nbinding_conditions = d->nbinding_conditions;
    out->binding_failure_conditions =
        d->binding_failure_conditions == od->binding_failure_conditions &&
                d->nbinding_failure_conditions == od->nbinding_failure_conditions
            ? od->binding_failure_conditions
            : copy_strs(m, d->binding_failure_conditions, d->nbinding_failure_conditions, oom);
    out->nbinding_failure_conditions = d->nbinding_failure_conditions;
    out->allow_multiple_allocations = d->allow_multiple_allocations;
    if ((d->nattrs && !out->attrs) || (d->ncaps && !out->caps) ||
        (d->nconsumes && !out->consumes) || (d->ntaints && !out->taints))
        *oom = true;
    if (d->pos.file)
        out->pos = d->pos;
}

int dra_model_slice_update(dra_model_t *m, uint32_t slice, const dra_device_t *devs,
                           uint32_t ndevs, dra_diag_t *diag)
{
    if (!m || slice >= m->nslices || (ndevs && !devs))
        return dra_diag_set(diag, DRA_EINVAL, NULL, 0, 0, "slice update: invalid arguments");
    dra_slice_t *s = m->slices[slice];
    if (ndevs != s->ndevices)
        return dra_diag_set(diag, DRA_EINVAL, s->pos.file, s->pos.line, s->pos.column,
                            "ResourceSlice %s: %u devices replace %u: a republished slice must "
                            "keep its device count (not incremental: rebuild the model)",
                            s->name ? s->name : "", ndevs, s->ndevices);
    for (uint32_t i = 0; i < ndevs; i++) {
        int rc = update_check(s, i, &devs[i], &s->devices[i], diag);
        if (rc)
            return rc;
    }
    /* the new records are staged in one buffer the model keeps (they are copied into the
     * devices below), not in a fresh arena array per update */
    if (!m->upd) {
        if (!(m->upd = calloc(1, sizeof *m->upd)))
            return dra_diag_set(diag, DRA_ENOMEM, NULL, 0, 0, "slice update: out of memory");
        dra_intern_init(&m->upd->strs, &m->arena);
    }
    if (ndevs > m->upd->stage_cap) {
        dra_device_t *ns = realloc(m->upd->stage, (size_t)ndevs * sizeof *ns);
        if (!ns)
            return dra_diag_set(diag, DRA_ENOMEM, NULL, 0, 0, "slice update: out of memory");
        m->upd->stage = ns;
        m->upd->stage_cap = ndevs;
    }
    dra_device_t *nd = m->upd->stage;
    bool oom = false;
    uint32_t changed = 0;
    for (uint32_t i = 0; i < ndevs && !oom; i++) {
        copy_device(m, s, &devs[i], &s->devices[i], &nd[i], &oom);
        changed |= oom ? 0 : device_changes(&s->devices[i], &nd[i]);
    }
    if (oom)
        return dra_diag_set(diag, DRA_ENOMEM, NULL, 0, 0, "slice update: out of memory");
    /* names twice (qualified), on the copies' interned names */
    for (uint32_t i = 0; i < ndevs; i++) {
        const dra_device_t *d = &nd[i];
        const dra_srcpos_t *pos = devs[i].pos.file ? &devs[i].pos : &s->pos;
        for (uint32_t a = 0; a < d->nattrs; a++) {
            if (!d->attrs[a].qname)
                return dra_diag_set(diag, DRA_ENOMEM, NULL, 0, 0, "slice update: out of memory");
            for (uint32_t b = 0; b < a; b++)
                if (d->attrs[b].qname == d->attrs[a].qname)
                    UPD_FAIL(pos, "ResourceSlice %s: devices[%u].attributes.%s: duplicate name",
                             s->name ? s->name : "", i, d->attrs[a].name);
        }
        for (uint32_t c = 0; c < d->ncaps; c++) {
            if (!d->caps[c].qname)
                return dra_diag_set(diag, DRA_ENOMEM, NULL, 0, 0, "slice update: out of memory");
            for (uint32_t b = 0; b < c; b++)
                if (d->caps[b].qname == d->caps[c].qname)
                    UPD_FAIL(pos, "ResourceSlice %s: devices[%u].capacity.%s: duplicate name",
                             s->name ? s->name : "", i, d->caps[c].name);
        }
    }
    /* in place: the devices keep their addresses */
    bool valid = true;
    for (uint32_t i = 0; i < ndevs; i++) {
        s->devices[i] = nd[i];
        valid = valid && !dra_device_bad_version(&s->devices[i], NULL);
    }
    s->versions_valid = valid;
    s->updates++;
    s->changed = changed;
    return DRA_OK;
}
