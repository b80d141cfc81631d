/* extres.c - extended resources and node resources of pods; see extres.h. */
#include "extres/extres.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define XXH_INLINE_ALL
#include <xxhash.h>

/* ---- resource names ------------------------------------------------------------------------ */

bool dra_resource_is_native(const char *name)
{
    return !strchr(name, '/') || strstr(name, "kubernetes.io/") != NULL;
}

static bool is_alnum(char c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9');
}

/* RFC 1123 subdomain: lower-case labels of [a-z0-9-] joined by '.', at most 253. */
static bool dns_subdomain(const char *s, size_t n)
{
    if (n == 0 || n > 253)
        return false;
    size_t lab = 0;
    for (size_t i = 0; i < n; i++) {
        char c = s[i];
        if (c == '.') {
            if (lab == 0 || s[i - 1] == '-')
                return false;
            lab = 0;
            continue;
        }
        if (!((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-'))
            return false;
        if (lab == 0 && c == '-')
            return false;
        if (++lab > 63)
            return false;
    }
    return s[n - 1] != '-' && s[n - 1] != '.';
}

/* IsQualifiedName's name part: ([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9], at most 63. */
static bool qualified_name_part(const char *s, size_t n)
{
    if (n == 0 || n > 63 || !is_alnum(s[0]) || !is_alnum(s[n - 1]))
        return false;
    for (size_t i = 0; i < n; i++)
        if (!is_alnum(s[i]) && s[i] != '-' && s[i] != '_' && s[i] != '.')
            return false;
    return true;
}

bool dra_resource_is_qualified(const char *name)
{
    const char *sl = strchr(name, '/');
    if (!sl)
        return qualified_name_part(name, strlen(name));
    return !strchr(sl + 1, '/') && dns_subdomain(name, (size_t)(sl - name)) &&
           qualified_name_part(sl + 1, strlen(sl + 1));
}

bool dra_resource_is_extended(const char *name)
{
    if (dra_resource_is_native(name) || strncmp(name, "requests.", 9) == 0)
        return false;
    /* IsQualifiedName("requests." + name): one '/' at most splits prefix and name */
    const char *sl = strchr(name, '/');
    if (!sl || strchr(sl + 1, '/'))
        return false;
    size_t plen = (size_t)(sl - name) + 9; /* "requests." + prefix */
    if (plen > 253)
        return false;
    char pre[256];
    memcpy(pre, "requests.", 9);
    memcpy(pre + 9, name, (size_t)(sl - name));
    return dns_subdomain(pre, plen) && qualified_name_part(sl + 1, strlen(sl + 1));
}

bool dra_resource_is_dra_extended(const char *name)
{
    return dra_resource_is_extended(name) ||
           strncmp(name, DRA_EXTRES_IMPLICIT_PREFIX, sizeof DRA_EXTRES_IMPLICIT_PREFIX - 1) == 0;
}

/* ---- quantities ---------------------------------------------------------------------------- */

/* (hi, lo) /= 10, returning the remainder: long division in 32-bit steps. */
static uint32_t div10(uint64_t *hi, uint64_t *lo)
{
    uint32_t w[4] = {(uint32_t)(*hi >> 32), (uint32_t)*hi, (uint32_t)(*lo >> 32), (uint32_t)*lo};
    uint64_t r = 0;
    for (int i = 0; i < 4; i++) {
        uint64_t cur = (r << 32) | w[i];
        w[i] = (uint32_t)(cur / 10);
        r = cur % 10;
    }
    *hi = ((uint64_t)w[0] << 32) | w[1];
    *lo = ((uint64_t)w[2] << 32) | w[3];
    return (uint32_t)r;
}

int64_t dra_extres_ceil(const dra_quantity_t *q, int32_t scale)
{
    if (dra_quantity_sign(q) <= 0)
        return 0;
    int64_t v;
    if (dra_quantity_to_fixed(q, &v, scale))
        return v;
    /* magnitude * 10^(exp - scale), rounded up, saturated */
    uint64_t hi = q->hi, lo = q->lo;
    int64_t e = (int64_t)q->exp - scale;
    if (e >= 0) {
        if (hi || lo > (uint64_t)INT64_MAX)
            return INT64_MAX;
        for (int64_t i = 0; i < e; i++) {
            if (lo > (uint64_t)INT64_MAX / 10)
                return INT64_MAX;
            lo *= 10;
        }
        return (int64_t)lo;
    }
    if (-e > 40) /* 10^40 > 2^128 > magnitude > 0 */
        return 1;
    bool rest = false;
    for (int64_t i = 0; i < -e; i++)
        rest |= div10(&hi, &lo) != 0;
    if (hi || lo >= (uint64_t)INT64_MAX)
        return INT64_MAX;
    return (int64_t)lo + rest;
}

/* AsInt64 of the quantity the scheduler reads back from the API server (canonical form). */
static bool as_int64(const dra_quantity_t *q, int64_t *out)
{
    dra_quantity_t c;
    if (dra_quantity_canonicalize(q, &c) != DRA_OK)
        return false;
    return dra_quantity_as_int64(&c, out) == DRA_OK;
}

/* ---- the name -> class map ----------------------------------------------------------------- */

static int digits(const char *s, int n, int *out)
{
    int v = 0;
    for (int i = 0; i < n; i++) {
        if (s[i] < '0' || s[i] > '9')
            return -1;
        v = v * 10 + (s[i] - '0');
    }
    *out = v;
    return 0;
}

/* Days since 1970-01-01 of a proleptic Gregorian date (Howard Hinnant's days_from_civil). */
static int64_t days_from_civil(int64_t y, int m, int d)
{
    y -= m <= 2;
    int64_t era = (y >= 0 ? y : y - 399) / 400;
    int64_t yoe = y - era * 400;
    int64_t doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
    int64_t doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    return era * 146097 + doe - 719468;
}

int dra_extres_time_parse(const char *s, int64_t *ns)
{
    static const int mdays[] = {31, 29, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
    int y, mo, d, h, mi, se;
    if (!s || strlen(s) < 20 || digits(s, 4, &y) || s[4] != '-' || digits(s + 5, 2, &mo) ||
        s[7] != '-' || digits(s + 8, 2, &d) || (s[10] != 'T' && s[10] != 't') ||
        digits(s + 11, 2, &h) || s[13] != ':' || digits(s + 14, 2, &mi) || s[16] != ':' ||
        digits(s + 17, 2, &se))
        return DRA_EINVAL;
    if (mo < 1 || mo > 12 || d < 1 || d > mdays[mo - 1] || h > 23 || mi > 59 || se > 60 ||
        y < 1678 || y > 2261)
        return DRA_EINVAL;
    const char *p = s + 19;
    int64_t frac = 0;
    if (*p == '.') {
        int nd = 0;
        for (p++; *p >= '0' && *p <= '9'; p++, nd++)
            if (nd < 9)
                frac = frac * 10 + (*p - '0');
        if (nd == 0)
            return DRA_EINVAL;
        for (; nd < 9; nd++)
            frac *= 10;
    }
    int64_t off = 0;
    if (*p == 'Z' || *p == 'z') {
        p++;
    } else if (*p == '+' || *p == '-') {
        int oh, om;
        if (digits(p + 1, 2, &oh) || p[3] != ':' || digits(p + 4, 2, &om) || oh > 23 || om > 59)
            return DRA_EINVAL;
        off = (int64_t)(oh * 60 + om) * 60 * (*p == '+' ? 1 : -1);
        p += 6;
    } else {
        return DRA_EINVAL;
    }
    if (*p)
        return DRA_EINVAL;
    int64_t secs = days_from_civil(y, mo, d) * 86400 + h * 3600 + mi * 60 + se - off;
    *ns = secs * 1000000000 + frac;
    return DRA_OK;
}

/* Which class is newer: -1, 0, 1 as a is older, equal, newer than b. A class without a (valid)
 * creation time is older than any with one (upstream's zero time). */
static int created_cmp(const dra_device_class_t *a, const dra_device_class_t *b)
{
    int64_t x = 0, y = 0;
    bool hx = a->created && dra_extres_time_parse(a->created, &x) == DRA_OK;
    bool hy = b->created && dra_extres_time_parse(b->created, &y) == DRA_OK;
    if (!hx || !hy)
        return (int)hx - (int)hy;
    return (x > y) - (x < y);
}

/* Whether class a wins an explicit name over class b (the newer; equal times: smaller name). */
static bool better(const dra_device_class_t *a, const dra_device_class_t *b)
{
    int c = created_cmp(a, b);
    if (c)
        return c > 0;
    return strcmp(a->name, b->name) < 0;
}

static int cmp_entry(const void *x, const void *y)
{
    const dra_extres_entry_t *a = x, *b = y;
    return strcmp(a->name, b->name);
}

static int cmp_class_name(const void *x, const void *y)
{
    const dra_device_class_t *a = *(const dra_device_class_t *const *)x;
    const dra_device_class_t *b = *(const dra_device_class_t *const *)y;
    return strcmp(a->name, b->name);
}

typedef struct mbuild {
    dra_extres_entry_t *v; /* room for 2 entries per class */
    uint32_t n;
    char *names; /* the implicit names, one block */
} mbuild_t;

static dra_extres_entry_t *mb_find(mbuild_t *b, const char *name)
{
    for (uint32_t i = 0; i < b->n; i++) /* set-up only: classes are few */
        if (strcmp(b->v[i].name, name) == 0)
            return &b->v[i];
    return NULL;
}

static void mb_set(mbuild_t *b, const char *name, const dra_device_class_t *c)
{
    dra_extres_entry_t *e = mb_find(b, name);
    if (!e) {
        e = &b->v[b->n++];
        e->name = name;
    }
    e->cls = c;
}

int dra_extres_map_build(const dra_model_t *m, const dra_alloc_features_t *f, dra_extres_map_t *out)
{
    memset(out, 0, sizeof *out);
    out->enabled = dra_alloc_gate_on(f, DRA_GATE_EXTENDED_RESOURCE);
    uint32_t nc = m->nclasses;
    if (!out->enabled || nc == 0)
        return DRA_OK;
    mbuild_t b = {0};
    size_t nlen = 0;
    for (uint32_t i = 0; i < nc; i++)
        nlen += sizeof DRA_EXTRES_IMPLICIT_PREFIX +
                (m->classes[i]->name ? strlen(m->classes[i]->name) : 0);
    const dra_device_class_t **sorted = malloc(nc * sizeof *sorted);
    b.v = malloc(2 * (size_t)nc * sizeof *b.v);
    b.names = malloc(nlen);
    if (!sorted || !b.v || !b.names) {
        free(sorted);
        free(b.v);
        free(b.names);
        return DRA_ENOMEM;
    }
    uint32_t ns = 0;
    for (uint32_t i = 0; i < nc; i++)
        if (m->classes[i]->name)
            sorted[ns++] = m->classes[i];
    /* the informer delivers the initial list in name order (the API server lists by key) */
    qsort(sorted, ns, sizeof *sorted, cmp_class_name);
    bool v134 = f->release < DRA_RELEASE_1_35;
    /* the cache defect: every release up to 1.37 (PR #141110 came after the 1.37 cut) */
    bool cache_bug = f->upstream_bugs && f->release <= DRA_RELEASE_1_37;
    char *np = b.names;
    for (uint32_t i = 0; i < ns; i++) {
        const dra_device_class_t *c = sorted[i];
        const char *ern = c->extended_resource_name;
        if (ern) {
            dra_extres_entry_t *cur = mb_find(&b, ern);
            if (cur && !better(c, cur->cls)) {
                if (cache_bug && !v134)
                    continue; /* the whole update returns early: no implicit name either */
            } else {
                mb_set(&b, ern, c);
            }
            if (v134)
                continue; /* 1.34: the explicit name replaces the implicit one */
        }
        size_t l = (size_t)sprintf(np, "%s%s", DRA_EXTRES_IMPLICIT_PREFIX, c->name);
        mb_set(&b, np, c);
        np += l + 1;
    }
    free(sorted);
    qsort(b.v, b.n, sizeof *b.v, cmp_entry);
    out->v = b.v;
    out->n = b.n;
    out->names = b.names;
    return DRA_OK;
}

void dra_extres_map_free(dra_extres_map_t *map)
{
    free(map->names);
    free(map->v);
    memset(map, 0, sizeof *map);
}

const dra_device_class_t *dra_extres_map_find(const dra_extres_map_t *map, const char *name)
{
    uint32_t lo = 0, hi = map->n;
    while (lo < hi) {
        uint32_t mid = lo + (hi - lo) / 2;
        int c = strcmp(map->v[mid].name, name);
        if (c == 0)
            return map->v[mid].cls;
        if (c < 0)
            lo = mid + 1;
        else
            hi = mid;
    }
    return NULL;
}

/* ---- a pod's requests ---------------------------------------------------------------------- */

/* A resource list being summed (exact quantities), names borrowed. */
typedef struct rlist {
    dra_resource_qty_t *v;
    uint32_t n, cap;
} rlist_t;

static dra_resource_qty_t *rl_get(rlist_t *l, const char *name)
{
    for (uint32_t i = 0; i < l->n; i++)
        if (strcmp(l->v[i].name, name) == 0)
            return &l->v[i];
    if (l->n == l->cap) {
        uint32_t nc = l->cap ? l->cap * 2 : 8;
        dra_resource_qty_t *nv = realloc(l->v, nc * sizeof *nv);
        if (!nv)
            return NULL;
        l->v = nv;
        l->cap = nc;
    }
    dra_resource_qty_t *e = &l->v[l->n++];
    memset(e, 0, sizeof *e);
    e->name = name;
    return e;
}

/* l += the resources of r[0..n) (addResourceList). */
static int rl_add(rlist_t *l, const dra_resource_qty_t *r, uint32_t n)
{
    for (uint32_t i = 0; i < n; i++) {
        dra_resource_qty_t *e = rl_get(l, r[i].name);
        if (!e)
            return DRA_ENOMEM;
        dra_quantity_t s;
        if (dra_quantity_add(&e->value, &r[i].value, &s) == DRA_OK)
            e->value = s; /* beyond 128 bits: keeps the larger part (validation bounds it) */
    }
    return DRA_OK;
}

/* l = max(l, r) per resource (maxResourceList). */
static int rl_max(rlist_t *l, const rlist_t *r)
{
    for (uint32_t i = 0; i < r->n; i++) {
        dra_resource_qty_t *e = rl_get(l, r->v[i].name);
        if (!e)
            return DRA_ENOMEM;
        if (dra_quantity_cmp(&r->v[i].value, &e->value) > 0)
            e->value = r->v[i].value;
    }
    return DRA_OK;
}

static int cmp_scalar(const void *x, const void *y)
{
    const dra_pod_scalar_t *a = x, *b = y;
    return strcmp(a->name, b->name);
}

int dra_extres_pod(const dra_pod_t *pod, dra_arena_t *a, dra_pod_req_t *out)
{
    memset(out, 0, sizeof *out);
    rlist_t reqs = {0}, sidecars = {0}, inits = {0}, tmp = {0};
    int rc = DRA_OK;
    /* AggregateContainerRequests: regular containers summed */
    for (uint32_t i = pod->ninit; i < pod->ncontainers && !rc; i++)
        rc = rl_add(&reqs, pod->containers[i].requests, pod->containers[i].nrequests);
    /* init containers in order: a sidecar adds to the sum and to the sidecars so far; a plain
     * init container needs its requests plus the sidecars started before it */
    for (uint32_t i = 0; i < pod->ninit && !rc; i++) {
        const dra_container_t *c = &pod->containers[i];
        if (c->kind == DRA_CONTAINER_SIDECAR) {
            rc = rl_add(&reqs, c->requests, c->nrequests);
            if (!rc)
                rc = rl_add(&sidecars, c->requests, c->nrequests);
            if (!rc)
                rc = rl_max(&inits, &sidecars);
        } else {
            tmp.n = 0;
            rc = rl_add(&tmp, c->requests, c->nrequests);
            if (!rc)
                rc = rl_add(&tmp, sidecars.v, sidecars.n);
            if (!rc)
                rc = rl_max(&inits, &tmp);
        }
    }
    if (!rc)
        rc = rl_max(&reqs, &inits);
    if (!rc) /* PodRequests adds the RuntimeClass overhead */
        rc = rl_add(&reqs, pod->overhead, pod->noverhead);
    uint32_t nsc = 0;
    for (uint32_t i = 0; i < reqs.n && !rc; i++) {
        const dra_resource_qty_t *e = &reqs.v[i];
        if (strcmp(e->name, "cpu") == 0)
            out->cpu_milli = dra_extres_ceil(&e->value, -3);
        else if (strcmp(e->name, "memory") == 0)
            out->memory = dra_extres_ceil(&e->value, 0);
        else if (strcmp(e->name, "ephemeral-storage") == 0)
            out->ephemeral = dra_extres_ceil(&e->value, 0);
        else if (strcmp(e->name, "pods") != 0 && dra_extres_ceil(&e->value, 0) > 0)
            nsc++;
    }
    if (!rc && nsc) {
        out->scalar = dra_arena_calloc(a, nsc, sizeof *out->scalar, 8);
        if (!out->scalar)
            rc = DRA_ENOMEM;
    }
    for (uint32_t i = 0; i < reqs.n && !rc; i++) {
        const dra_resource_qty_t *e = &reqs.v[i];
        int64_t v = dra_extres_ceil(&e->value, 0);
        if (strcmp(e->name, "cpu") == 0 || strcmp(e->name, "memory") == 0 ||
            strcmp(e->name, "ephemeral-storage") == 0 || strcmp(e->name, "pods") == 0 || v <= 0)
            continue;
        out->scalar[out->nscalar].name = e->name;
        out->scalar[out->nscalar].value = v;
        out->nscalar++;
    }
    if (!rc) {
        if (out->nscalar)
            qsort(out->scalar, out->nscalar, sizeof *out->scalar, cmp_scalar);
        out->any = out->cpu_milli > 0 || out->memory > 0 || out->ephemeral > 0 || out->nscalar;
    }
    free(reqs.v);
    free(sidecars.v);
    free(inits.v);
    free(tmp.v);
    return rc;
}

bool dra_extres_pod_mapped(const dra_extres_map_t *map, const dra_pod_req_t *req)
{
    if (!map->enabled)
        return false;
    for (uint32_t i = 0; i < req->nscalar; i++)
        if (dra_resource_is_dra_extended(req->scalar[i].name) &&
            dra_extres_map_find(map, req->scalar[i].name))
            return true;
    return false;
}

/* ---- node usage ---------------------------------------------------------------------------- */

static int64_t sat_add(int64_t a, int64_t b)
{
    return a > INT64_MAX - b ? INT64_MAX : a + b;
}

int dra_node_usage_add(dra_node_usage_t *u, const dra_pod_req_t *req)
{
    u->cpu_milli = sat_add(u->cpu_milli, req->cpu_milli);
    u->memory = sat_add(u->memory, req->memory);
    u->ephemeral = sat_add(u->ephemeral, req->ephemeral);
    u->pods++;
    for (uint32_t i = 0; i < req->nscalar; i++) {
        uint32_t k = 0;
        while (k < u->nscalar && strcmp(u->scalar[k].name, req->scalar[i].name) != 0)
            k++;
        if (k == u->nscalar) {
            if (u->nscalar == u->cap) {
                uint32_t nc = u->cap ? u->cap * 2 : 4;
                dra_pod_scalar_t *nv = realloc(u->scalar, nc * sizeof *nv);
                if (!nv)
                    return DRA_ENOMEM;
                u->scalar = nv;
                u->cap = nc;
            }
            u->scalar[k].name = req->scalar[i].name;
            u->scalar[k].value = 0;
            u->nscalar++;
        }
        u->scalar[k].value = sat_add(u->scalar[k].value, req->scalar[i].value);
    }
    return DRA_OK;
}

void dra_node_usage_fini(dra_node_usage_t *u)
{
    free(u->scalar);
    memset(u, 0, sizeof *u);
}

static int64_t used_scalar(const dra_node_usage_t *u, const char *name)
{
    for (uint32_t k = 0; u && k < u->nscalar; k++)
        if (strcmp(u->scalar[k].name, name) == 0)
            return u->scalar[k].value;
    return 0;
}

/* The node's allocatable of a resource: *present when declared; Value() (MilliValue for cpu). */
static int64_t node_alloc(const dra_node_t *n, const char *name, bool *present)
{
    *present = false;
    uint32_t lo = 0, hi = n ? n->nallocatable : 0;
    while (lo < hi) { /* sorted by the reader */
        uint32_t mid = lo + (hi - lo) / 2;
        int c = strcmp(n->allocatable[mid].name, name);
        if (c == 0) {
            *present = true;
            return dra_extres_ceil(&n->allocatable[mid].value, 0);
        }
        if (c < 0)
            lo = mid + 1;
        else
            hi = mid;
    }
    return 0;
}

/* ---- the claim ----------------------------------------------------------------------------- */

const char *dra_extres_claim_name(const char *ns, const char *podname, char *buf, size_t len)
{
    static const char alpha[] = "bcdfghjklmnpqrstvwxz2456789"; /* utilrand's alphanums */
    char base[80];
    snprintf(base, sizeof base, "%s-extended-resources-", podname ? podname : "");
    if (strlen(base) > 58) /* maxGeneratedNameLength = 63 - 5 */
        base[58] = 0;
    XXH3_state_t st;
    XXH3_64bits_reset(&st);
    XXH3_64bits_update(&st, ns ? ns : "default", strlen(ns ? ns : "default") + 1);
    XXH3_64bits_update(&st, podname ? podname : "", strlen(podname ? podname : ""));
    uint64_t h = XXH3_64bits_digest(&st);
    char suf[6];
    for (int i = 0; i < 5; i++) {
        suf[i] = alpha[h % (sizeof alpha - 1)];
        h /= sizeof alpha - 1;
    }
    suf[5] = 0;
    snprintf(buf, len, "%s%s", base, suf);
    return buf;
}

/* One request being built (the claim's requests are made at the end). */
typedef struct breq {
    uint32_t container;
    uint32_t ridx;
    int64_t count;
    const dra_device_class_t *cls;
    char name[48];
} breq_t;

typedef struct bstate {
    breq_t *reqs; /* every request made, also the init containers' that are dropped */
    uint32_t nreqs, cap;
} bstate_t;

static int push_req(bstate_t *b, uint32_t ci, uint32_t ridx, int64_t count,
                    const dra_device_class_t *cls, uint32_t *idx)
{
    if (b->nreqs == b->cap) {
        uint32_t nc = b->cap ? b->cap * 2 : 8;
        breq_t *nv = realloc(b->reqs, nc * sizeof *nv);
        if (!nv)
            return DRA_ENOMEM;
        b->reqs = nv;
        b->cap = nc;
    }
    breq_t *r = &b->reqs[b->nreqs];
    r->container = ci;
    r->ridx = ridx;
    r->count = count;
    r->cls = cls;
    snprintf(r->name, sizeof r->name, "container-%u-request-%u", ci, ridx);
    *idx = b->nreqs++;
    return DRA_OK;
}

/* A mapping names its request by index into bstate.reqs (that array grows while building); the
 * names are resolved when the claim is made. */
typedef struct bmap {
    const char *container;
    const char *resource;
    uint32_t req; /* index into bstate.reqs */
} bmap_t;

typedef struct bmaps {
    bmap_t *v;
    uint32_t n, cap;
} bmaps_t;

static int push_map(bmaps_t *m, const char *container, const char *resource, uint32_t req)
{
    if (m->n == m->cap) {
        uint32_t nc = m->cap ? m->cap * 2 : 8;
        bmap_t *nv = realloc(m->v, nc * sizeof *nv);
        if (!nv)
            return DRA_ENOMEM;
        m->v = nv;
        m->cap = nc;
    }
    m->v[m->n++] = (bmap_t){container, resource, req};
    return DRA_OK;
}

/* The container's defaulted request of a resource and its index among the container's sorted
 * request names; false when it does not request it. */
static bool container_req(const dra_container_t *c, const char *res, const dra_quantity_t **q,
                          uint32_t *ridx)
{
    for (uint32_t j = 0; j < c->nrequests; j++)
        if (strcmp(c->requests[j].name, res) == 0) {
            *q = &c->requests[j].value;
            *ridx = j;
            return true;
        }
    return false;
}

#define NO_REQ UINT32_MAX

/* createResourceRequestAndMappings: container ci asks for res; reuse[0..nreuse) are request
 * indexes (NO_REQ for none) it may use first. *made = the new request or NO_REQ; its mappings go
 * to maps. */
static int container_request(bstate_t *b, bmaps_t *maps, const dra_pod_t *pod, uint32_t ci,
                             const char *res, const dra_device_class_t *cls, const uint32_t *reuse,
                             uint32_t nreuse, uint32_t *made)
{
    *made = NO_REQ;
    const dra_container_t *c = &pod->containers[ci];
    const dra_quantity_t *q;
    uint32_t ridx;
    int64_t want;
    if (!container_req(c, res, &q, &ridx) || !as_int64(q, &want) || want == 0)
        return DRA_OK;
    int64_t sum = 0;
    for (uint32_t k = 0; k < nreuse; k++) {
        if (reuse[k] == NO_REQ)
            continue;
        sum = sat_add(sum, b->reqs[reuse[k]].count);
        int rc = push_map(maps, c->name, res, reuse[k]);
        if (rc)
            return rc;
        if (sum >= want)
            return DRA_OK;
    }
    int rc = push_req(b, ci, ridx, want - sum, cls, made);
    if (!rc)
        rc = push_map(maps, c->name, res, *made);
    return rc;
}

/* DRA-delegated resources of the pod on this node, sorted (the pod's scalar list is sorted). */
typedef struct dres {
    const char *name;
    const dra_device_class_t *cls;
} dres_t;

/* 1.35+: createRequestsAndMappings. */
static int build_current(bstate_t *b, bmaps_t *out_maps, const dra_pod_t *pod, const dres_t *dr,
                         uint32_t ndr, uint32_t **keep, uint32_t *nkeep)
{
    uint32_t nc = pod->ncontainers;
    uint32_t *lreq = malloc((nc ? nc : 1) * sizeof *lreq);
    uint32_t *kept = malloc(((size_t)ndr * (nc + 1) + 1) * sizeof *kept);
    bmaps_t lmaps = {0}, smaps = {0};
    int rc = (!lreq || !kept) ? DRA_ENOMEM : DRA_OK;
    uint32_t nk = 0;
    for (uint32_t r = 0; r < ndr && !rc; r++) {
        lmaps.n = smaps.n = 0;
        for (uint32_t i = 0; i < nc; i++)
            lreq[i] = NO_REQ;
        /* long-lived: regular containers and sidecars, in index order */
        for (uint32_t i = 0; i < nc && !rc; i++)
            if (pod->containers[i].kind != DRA_CONTAINER_INIT)
                rc = container_request(b, &lmaps, pod, i, dr[r].name, dr[r].cls, NULL, 0, &lreq[i]);
        /* short-lived init containers reuse the long-lived requests after them */
        uint32_t maxs = NO_REQ;
        uint32_t first_short = b->nreqs;
        for (uint32_t i = 0; i < nc && !rc; i++) {
            if (pod->containers[i].kind != DRA_CONTAINER_INIT)
                continue;
            uint32_t made;
            rc = container_request(b, &smaps, pod, i, dr[r].name, dr[r].cls, lreq + i, nc - i,
                                   &made);
            if (!rc && made != NO_REQ &&
                (maxs == NO_REQ || b->reqs[maxs].count < b->reqs[made].count))
                maxs = made;
        }
        if (rc)
            break;
        /* mappings to another short-lived request move to the largest one */
        for (uint32_t k = 0; k < smaps.n; k++)
            if (smaps.v[k].req >= first_short && smaps.v[k].req != maxs)
                smaps.v[k].req = maxs;
        if (maxs != NO_REQ)
            kept[nk++] = maxs;
        for (uint32_t i = 0; i < nc; i++)
            if (lreq[i] != NO_REQ)
                kept[nk++] = lreq[i];
        for (uint32_t k = 0; k < lmaps.n && !rc; k++)
            rc = push_map(out_maps, lmaps.v[k].container, lmaps.v[k].resource, lmaps.v[k].req);
        for (uint32_t k = 0; k < smaps.n && !rc; k++)
            rc = push_map(out_maps, smaps.v[k].container, smaps.v[k].resource, smaps.v[k].req);
    }
    free(lreq);
    free(lmaps.v);
    free(smaps.v);
    if (rc) {
        free(kept);
        return rc;
    }
    *keep = kept;
    *nkeep = nk;
    return DRA_OK;
}

/* 1.34: createDeviceRequests (one request per container and resource, whole quantity) and
 * createRequestMappings (per container, per request name of it). */
static int build_134(bstate_t *b, bmaps_t *out_maps, const dra_pod_t *pod, const dres_t *dr,
                     uint32_t ndr, uint32_t **keep, uint32_t *nkeep)
{
    for (uint32_t r = 0; r < ndr; r++)
        for (uint32_t i = 0; i < pod->ncontainers; i++) {
            const dra_quantity_t *q;
            uint32_t ridx, made;
            int64_t want;
            if (!container_req(&pod->containers[i], dr[r].name, &q, &ridx) || !as_int64(q, &want) ||
                want == 0)
                continue;
            int rc = push_req(b, i, ridx, want, dr[r].cls, &made);
            if (rc)
                return rc;
        }
    uint32_t *kept = malloc((b->nreqs ? b->nreqs : 1) * sizeof *kept);
    if (!kept)
        return DRA_ENOMEM;
    for (uint32_t k = 0; k < b->nreqs; k++)
        kept[k] = k;
    /* mappings: containers in order, each request of the container (by resource index) */
    for (uint32_t i = 0; i < pod->ncontainers; i++)
        for (uint32_t j = 0; j < pod->containers[i].nrequests; j++)
            for (uint32_t k = 0; k < b->nreqs; k++)
                if (b->reqs[k].container == i && b->reqs[k].ridx == j) {
                    int rc = push_map(out_maps, pod->containers[i].name,
                                      pod->containers[i].requests[j].name, k);
                    if (rc) {
                        free(kept);
                        return rc;
                    }
                }
    *keep = kept;
    *nkeep = b->nreqs;
    return DRA_OK;
}

/* sort.Slice by name: an insertion sort with a context (C17 has no qsort_r); names are unique
 * (one per container and resource index), so any sort gives upstream's order. */
static void sort_kept(uint32_t *v, uint32_t n, const breq_t *reqs)
{
    for (uint32_t i = 1; i < n; i++) {
        uint32_t x = v[i], j = i;
        while (j > 0 && strcmp(reqs[v[j - 1]].name, reqs[x].name) > 0) {
            v[j] = v[j - 1];
            j--;
        }
        v[j] = x;
    }
}

/* The claim in arena a from the kept requests (sorted by name) and the mappings. */
static int make_claim(const dra_pod_t *pod, const char *podname, const bstate_t *b,
                      const uint32_t *kept, uint32_t nkept, const bmaps_t *maps, dra_arena_t *a,
                      dra_extres_fit_t *out)
{
    dra_claim_t *c = dra_arena_calloc(a, 1, sizeof *c, 8);
    if (!c)
        return DRA_ENOMEM;
    char nm[128];
    const char *ns = pod->namespace_ ? pod->namespace_ : "default";
    dra_extres_claim_name(ns, podname, nm, sizeof nm);
    c->namespace_ = dra_arena_strdup(a, ns);
    c->name = dra_arena_strdup(a, nm);
    c->generate_name = dra_arena_strndup(a, nm, strlen(nm) - 5);
    c->owner_pod = dra_arena_strdup(a, podname);
    c->owner_uid = pod->uid ? dra_arena_strdup(a, pod->uid) : NULL;
    c->extended = true;
    c->api_version = "resource.k8s.io/v1";
    c->pos = pod->pos;
    if (!c->namespace_ || !c->name || !c->generate_name || !c->owner_pod ||
        (pod->uid && !c->owner_uid))
        return DRA_ENOMEM;
    const char **rnames = dra_arena_calloc(a, b->nreqs ? b->nreqs : 1, sizeof *rnames, 8);
    if (!rnames)
        return DRA_ENOMEM;
    if (nkept) {
        c->requests = dra_arena_calloc(a, nkept, sizeof *c->requests, 8);
        dra_exact_request_t *ex = dra_arena_calloc(a, nkept, sizeof *ex, 8);
        if (!c->requests || !ex)
            return DRA_ENOMEM;
        for (uint32_t k = 0; k < nkept; k++) {
            const breq_t *r = &b->reqs[kept[k]];
            const char *name = dra_arena_strdup(a, r->name);
            if (!name)
                return DRA_ENOMEM;
            rnames[kept[k]] = name;
            ex[k].name = name;
            ex[k].class_name = r->cls->name;
            ex[k].mode = DRA_MODE_EXACT_COUNT;
            ex[k].mode_raw = "ExactCount";
            ex[k].has_count = true;
            ex[k].count = r->count;
            ex[k].pos = pod->pos;
            c->requests[k].name = name;
            c->requests[k].exactly = &ex[k];
            c->requests[k].pos = pod->pos;
        }
        c->nrequests = nkept;
    }
    if (maps->n) {
        out->mappings = dra_arena_calloc(a, maps->n, sizeof *out->mappings, 8);
        if (!out->mappings)
            return DRA_ENOMEM;
        for (uint32_t k = 0; k < maps->n; k++) {
            const bmap_t *mp = &maps->v[k];
            out->mappings[k].container = mp->container;
            out->mappings[k].resource = mp->resource;
            out->mappings[k].request = mp->req == NO_REQ ? NULL : rnames[mp->req];
        }
        out->nmappings = maps->n;
    }
    out->claim = c;
    return DRA_OK;
}

/* Append "Insufficient <name>" to the reason. */
static void insufficient(dra_extres_fit_t *out, const char *name)
{
    size_t l = strlen(out->reason);
    snprintf(out->reason + l, sizeof out->reason - l, "%sInsufficient %s", l ? ", " : "", name);
    out->fits = false;
}

int dra_extres_fit(const dra_extres_map_t *map, const dra_alloc_features_t *f, const dra_pod_t *pod,
                   const char *podname, const dra_pod_req_t *req, bool user_claims,
                   const dra_node_t *node, const dra_node_usage_t *used, dra_arena_t *a,
                   dra_extres_fit_t *out)
{
    memset(out, 0, sizeof *out);
    out->fits = true;
    bool mapped = dra_extres_pod_mapped(map, req);
    bool present;
    int64_t al;
    /* NodeResourcesFit: pods, cpu, memory, ephemeral-storage (checked when declared) */
    al = node_alloc(node, "pods", &present);
    if (present && (used ? used->pods : 0) + 1 > al)
        insufficient(out, "pods");
    if (req->cpu_milli > 0 && node && node->alloc_cpu) {
        dra_quantity_t q;
        int64_t cap = -1;
        if (dra_quantity_parse(node->alloc_cpu, strlen(node->alloc_cpu), &q, NULL) == DRA_OK)
            cap = dra_extres_ceil(&q, -3);
        if (cap >= 0 && req->cpu_milli > cap - (used ? used->cpu_milli : 0))
            insufficient(out, "cpu");
    }
    if (req->memory > 0 && node && node->alloc_memory) {
        dra_quantity_t q;
        int64_t cap = -1;
        if (dra_quantity_parse(node->alloc_memory, strlen(node->alloc_memory), &q, NULL) == DRA_OK)
            cap = dra_extres_ceil(&q, 0);
        if (cap >= 0 && req->memory > cap - (used ? used->memory : 0))
            insufficient(out, "memory");
    }
    al = node_alloc(node, "ephemeral-storage", &present);
    if (req->ephemeral > 0 && present && req->ephemeral > al - (used ? used->ephemeral : 0))
        insufficient(out, "ephemeral-storage");
    /* scalar resources: delegated to DRA, or checked against allocatable - used */
    dres_t *dr = req->nscalar ? malloc(req->nscalar * sizeof *dr) : NULL;
    if (req->nscalar && !dr)
        return DRA_ENOMEM;
    uint32_t ndr = 0;
    bool v134 = f->release < DRA_RELEASE_1_35;
    for (uint32_t i = 0; i < req->nscalar; i++) {
        const char *r = req->scalar[i].name;
        al = node_alloc(node, r, &present);
        const dra_device_class_t *cls = map->enabled ? dra_extres_map_find(map, r) : NULL;
        if (mapped && cls && al == 0) {
            dr[ndr++] = (dres_t){r, cls};
            continue;
        }
        if (mapped && cls && v134 && f->upstream_bugs)
            dr[ndr++] = (dres_t){r, cls}; /* 1.34: requested through DRA as well */
        if (req->scalar[i].value > al - used_scalar(used, r))
            insufficient(out, r);
    }
    int rc = DRA_OK;
    uint32_t ndelegated = 0;
    for (uint32_t i = 0; i < ndr; i++)
        ndelegated += node_alloc(node, dr[i].name, &present) == 0;
    out->ndra = ndelegated;
    /* filterExtendedResources: a claim for the node when some resource goes through DRA, or
     * when the pod has claims of its own (then possibly without requests) */
    if (out->fits && mapped && (ndelegated || user_claims)) {
        bstate_t b = {0};
        bmaps_t maps = {0};
        uint32_t *kept = NULL, nkept = 0;
        rc = v134 ? build_134(&b, &maps, pod, dr, ndr, &kept, &nkept)
                  : build_current(&b, &maps, pod, dr, ndr, &kept, &nkept);
        if (!rc) {
            sort_kept(kept, nkept, b.reqs);
            rc = make_claim(pod, podname, &b, kept, nkept, &maps, a, out);
        }
        free(kept);
        free(b.reqs);
        free(maps.v);
    }
    free(dr);
    return rc;
}

/* ---- node filters -------------------------------------------------------------------------- */

static const char *label_value(const dra_node_t *n, const char *key)
{
    for (uint32_t i = 0; i < n->nlabels; i++)
        if (n->labels[i].key && strcmp(n->labels[i].key, key) == 0)
            return n->labels[i].value ? n->labels[i].value : "";
    return NULL;
}

static bool tolerated(const dra_pod_t *pod, const dra_taint_t *t)
{
    for (uint32_t j = 0; j < pod->ntolerations; j++)
        if (dra_alloc_tolerates(&pod->tolerations[j], t))
            return true;
    return false;
}

bool dra_extres_node_filters(const dra_pod_t *pod, const dra_node_t *node, char *reason, size_t len)
{
    if (node->unschedulable) {
        dra_taint_t t = {.key = "node.kubernetes.io/unschedulable",
                         .effect = DRA_EFFECT_NO_SCHEDULE};
        if (!tolerated(pod, &t)) {
            snprintf(reason, len, "node(s) were unschedulable");
            return false;
        }
    }
    for (uint32_t i = 0; i < pod->nnode_labels; i++) {
        const char *v = label_value(node, pod->node_labels[i].key);
        if (!v || strcmp(v, pod->node_labels[i].value) != 0) {
            snprintf(reason, len, "node(s) didn't match Pod's node affinity/selector");
            return false;
        }
    }
    if (pod->node_affinity) {
        bool match = false;
        char err[256] = "";
        if (dra_alloc_node_selector_matches(node, pod->node_affinity, &match, err, sizeof err) !=
            DRA_OK) {
            snprintf(reason, len, "spec.affinity.nodeAffinity: %s", err);
            return false;
        }
        if (!match) {
            snprintf(reason, len, "node(s) didn't match Pod's node affinity/selector");
            return false;
        }
    }
    for (uint32_t i = 0; i < node->ntaints; i++) {
        const dra_taint_t *t = &node->taints[i];
        if (t->effect != DRA_EFFECT_NO_SCHEDULE && t->effect != DRA_EFFECT_NO_EXECUTE)
            continue;
        if (!tolerated(pod, t)) {
            snprintf(reason, len, "node(s) had untolerated taint {%s: %s}", t->key ? t->key : "",
                     t->value ? t->value : "");
            return false;
        }
    }
    return true;
}

/* ---- a pod on one node: the scheduler's checks, and why not --------------------------------- */

/* A DeviceClass of m that would back extended resource name with DRAExtendedResource on (any
 * of them: which one wins does not matter for the hint), NULL. */
static const dra_device_class_t *backer_if_on(const dra_model_t *m, const char *name)
{
    size_t pl = sizeof DRA_EXTRES_IMPLICIT_PREFIX - 1;
    bool implicit = strncmp(name, DRA_EXTRES_IMPLICIT_PREFIX, pl) == 0;
    for (uint32_t i = 0; m && i < m->nclasses; i++) {
        const dra_device_class_t *c = m->classes[i];
        if ((c->extended_resource_name && strcmp(c->extended_resource_name, name) == 0) ||
            (implicit && c->name && strcmp(c->name, name + pl) == 0))
            return c;
    }
    return NULL;
}

void dra_extres_fit_why(const dra_extres_pod_t *p, const dra_node_t *node, const char *reason,
                        dra_why_t *why)
{
    for (uint32_t i = 0; !p->map->enabled && i < p->req->nscalar; i++) {
        const char *r = p->req->scalar[i].name;
        bool present;
        const dra_device_class_t *c = node_alloc(node, r, &present) == 0 ? backer_if_on(p->m, r)
                                                                         : NULL;
        if (!c)
            continue;
        dra_alloc_features_t def;
        dra_alloc_features_init(&def, (dra_release_t)p->f->release);
        char how[48], text[DRA_WHY_TEXT_MAX];
        if (dra_alloc_gate_on(&def, DRA_GATE_EXTENDED_RESOURCE))
            snprintf(how, sizeof how, "is turned off");
        else
            snprintf(how, sizeof how, "is off in release %s",
                     dra_alloc_release_name((dra_release_t)p->f->release));
        snprintf(text, sizeof text,
                 "%s: feature gate DRAExtendedResource %s (else DeviceClass %s would back %s)",
                 reason, how, c->name ? c->name : "", r);
        dra_why_scheduler(why, DRA_WHY_GATE, DRA_GATE_EXTENDED_RESOURCE, text);
        return;
    }
    dra_why_scheduler(why, DRA_WHY_NODE_RESOURCES, -1, reason);
}

int dra_extres_node_check(const dra_extres_pod_t *p, const dra_node_t *node,
                          const dra_node_usage_t *used, dra_arena_t *a, dra_extres_fit_t *fit,
                          dra_why_t *why)
{
    memset(fit, 0, sizeof *fit);
    if (p->nown > 64)
        return DRA_EINVAL;
    if (!dra_extres_node_filters(p->pod, node, fit->reason, sizeof fit->reason)) {
        dra_why_scheduler(why, DRA_WHY_NODE_FILTER, -1, fit->reason);
        return DRA_OK;
    }
    for (uint32_t k = 0; k < p->nown; k++) {
        const dra_allocation_t *al = p->own[k]->allocation;
        if (!al || !al->node_selector)
            continue;
        bool match = false;
        char err[128];
        if (dra_alloc_node_selector_matches(node, al->node_selector, &match, err, sizeof err) ||
            !match) {
            /* DynamicResources' Filter (the words and kind of explain for a claim's node) */
            snprintf(fit->reason, sizeof fit->reason,
                     "resourceclaim %s/%s not available on the node (its allocation's "
                     "nodeSelector)",
                     p->own[k]->namespace_ ? p->own[k]->namespace_ : "",
                     p->own[k]->name ? p->own[k]->name : "");
            dra_why_scheduler(why, DRA_WHY_NODE_SELECTION, -1, fit->reason);
            return DRA_OK;
        }
    }
    /* DRAOptionalNodeOperations (KEP-5945, "Node Declared Features Integration"): DynamicResources'
     * Filter rejects a node that does not declare the feature for a pod whose allocated claim
     * has a device result with skipNodeOperations (the kubelet there would call the missing
     * node plugin); modelled with the scheduler's gate on, as the allocator's rule */
    bool ops_refused = p->f && dra_alloc_gate_on(p->f, DRA_GATE_OPTIONAL_NODE_OPERATIONS) &&
                       !dra_alloc_node_declares(node, DRA_NODE_FEATURE_OPTIONAL_NODE_OPERATIONS);
    for (uint32_t k = 0; ops_refused && k < p->nown; k++) {
        const dra_allocation_t *al = p->own[k]->allocation;
        for (uint32_t r = 0; al && r < al->nresults; r++)
            if (al->results[r].nskip_node_ops) {
                snprintf(fit->reason, sizeof fit->reason,
                         "resourceclaim %s/%s skips node operations (skipNodeOperations) and the "
                         "node does not declare " DRA_NODE_FEATURE_OPTIONAL_NODE_OPERATIONS,
                         p->own[k]->namespace_ ? p->own[k]->namespace_ : "",
                         p->own[k]->name ? p->own[k]->name : "");
                dra_why_scheduler(why, DRA_WHY_NODE_SELECTION, -1, fit->reason);
                return DRA_OK;
            }
    }
    const char *name = p->podname ? p->podname : p->pod->name ? p->pod->name : "";
    int rc = dra_extres_fit(p->map, p->f, p->pod, name, p->req, p->user_claims, node, used, a, fit);
    if (rc == DRA_OK && !fit->fits)
        dra_extres_fit_why(p, node, fit->reason, why);
    return rc;
}

const char *dra_extres_prebind_msg(const char *node, const char *ns, const char *podname,
                                   char *buf, size_t len)
{
    snprintf(buf, len,
             "PreBind%s%s: nil or empty request mappings, no update of pod %s/%s "
             "ExtendedResourceClaimStatus (the extended resources make no device request%s: the "
             "pod does not bind)",
             node ? " on node " : "", node ? node : "", ns ? ns : "", podname ? podname : "",
             node ? " there" : "");
    return buf;
}

const char *dra_extres_name_request(const dra_request_mapping_t *maps, uint32_t n,
                                    const char *request, char *text, size_t len)
{
    char rn[96];
    snprintf(rn, sizeof rn, "%s", request ? request : "");
    char *sub = strchr(rn, '/');
    if (sub)
        *sub = 0;
    const dra_request_mapping_t *mp = NULL;
    for (uint32_t k = 0; k < n && !mp && rn[0]; k++)
        if (maps[k].request && strcmp(maps[k].request, rn) == 0)
            mp = &maps[k];
    char head[128];
    snprintf(head, sizeof head, "request %s: ", request ? request : "");
    char *at = mp ? strstr(text, head) : NULL;
    if (!at)
        return text;
    char tail[DRA_WHY_TEXT_MAX];
    size_t pre = (size_t)(at - text) + strlen(head) - 2; /* before ": " */
    snprintf(tail, sizeof tail, "%s", text + pre);
    snprintf(text + pre, len - pre, " (%s of container %s)%s", mp->resource ? mp->resource : "",
             mp->container ? mp->container : "", tail);
    return text;
}

int dra_extres_explain(dra_explainer_t *x, const dra_extres_pod_t *p, const dra_node_t *node,
                       const dra_node_usage_t *used, bool known_unsat, dra_arena_t *a,
                       dra_why_t *out)
{
    dra_arena_mark_t mk = dra_arena_mark(a);
    dra_extres_fit_t fit;
    int rc = dra_extres_node_check(p, node, used, a, &fit, out);
    if (rc || !fit.fits) {
        dra_arena_reset_to(a, mk);
        return rc;
    }
    dra_claim_t *batch[65];
    uint32_t nb = 0;
    for (uint32_t k = 0; k < p->nown; k++)
        if (!p->own[k]->allocation)
            batch[nb++] = p->own[k];
    if (fit.claim)
        batch[nb++] = fit.claim;
    if (nb == 0) {
        dra_why_scheduler(out, DRA_WHY_FITS, -1, "the pod passes the node's checks and has no "
                                                 "claim to allocate");
        out->outcome = DRA_OUTCOME_ALLOCATED;
    } else if (known_unsat) {
        rc = dra_explain_unsat(x, node, batch, nb, out);
    } else {
        rc = dra_explain(x, node, batch, nb, out);
    }
    if (rc == DRA_OK && fit.claim && out->claim == nb - 1)
        dra_extres_name_request(fit.mappings, fit.nmappings, out->request, out->text,
                                sizeof out->text);
    if (rc == DRA_OK && out->kind == DRA_WHY_FITS && fit.claim && fit.claim->nrequests == 0) {
        char msg[DRA_WHY_TEXT_MAX];
        dra_extres_prebind_msg(NULL, p->pod->namespace_,
                               p->podname ? p->podname : p->pod->name, msg, sizeof msg);
        uint64_t steps = out->steps;
        dra_why_scheduler(out, DRA_WHY_FATAL, -1, msg);
        out->outcome = DRA_OUTCOME_FATAL;
        out->steps = steps;
    }
    dra_arena_reset_to(a, mk);
    return rc;
}

/* ---- usage of the pods bound already ------------------------------------------------------- */

int dra_extres_usage_build(const dra_model_t *m, dra_arena_t *a, dra_pod_req_t **preq,
                           dra_node_usage_t **usage)
{
    *usage = calloc(m->nnodes ? m->nnodes : 1, sizeof **usage);
    *preq = calloc(m->npods ? m->npods : 1, sizeof **preq);
    if (!*usage || !*preq)
        return DRA_ENOMEM;
    for (uint32_t p = 0; p < m->npods; p++) {
        const dra_pod_t *pod = m->pods[p];
        if (dra_extres_pod(pod, a, &(*preq)[p]))
            return DRA_ENOMEM;
        if (!pod->node_name)
            continue;
        const dra_node_t *n = dra_model_find_node(m, pod->node_name);
        for (uint32_t i = 0; n && i < m->nnodes; i++)
            if (m->nodes[i] == n) {
                int64_t reps = pod->kind == DRA_POD_POD ? 1 : pod->replicas > 0 ? pod->replicas : 0;
                for (int64_t r = 0; r < reps; r++)
                    if (dra_node_usage_add(&(*usage)[i], &(*preq)[p]))
                        return DRA_ENOMEM;
                break;
            }
    }
    return DRA_OK;
}

void dra_extres_usage_free(uint32_t nnodes, dra_pod_req_t *preq, dra_node_usage_t *usage)
{
    for (uint32_t i = 0; usage && i < nnodes; i++)
        dra_node_usage_fini(&usage[i]);
    free(usage);
    free(preq);
}
