/*
 * cel.c - public entry points of the CEL engine: compile in the DRA environment, evaluate
 * against a model device, the program cache.
 */
#include <stdlib.h>
#include <string.h>

#include "base/intern.h"
#include "cel_int.h"

static const dra_cel_var_t dra_vars[] = {{"device", &dra_cel_t_device}};
static const dra_cel_env_t dra_env = {
    .vars = dra_vars, .nvars = 1, .dra = true, .homogeneous = true};

int dra_cel_compile_env(const char *src, size_t len, const dra_cel_env_t *env, dra_arena_t *arena,
                        dra_cel_prog_t **out, dra_diag_t *diag)
{
    if (!src || !arena || !out)
        return dra_diag_set(diag, DRA_EINVAL, NULL, 0, 0, "invalid argument");
    *out = NULL;
    if (!env)
        env = &dra_env;
    if (diag)
        dra_diag_clear(diag);
    if (env->dra && len > DRA_CEL_MAX_LEN)
        return dra_diag_set(diag, DRA_ELIMIT, NULL, 0, 0,
                            "expression too long: %zu bytes, the limit is %d", len, DRA_CEL_MAX_LEN);
    if (len > UINT32_MAX / 2)
        return dra_diag_set(diag, DRA_ELIMIT, NULL, 0, 0, "expression too long");
    dra_arena_mark_t mark = dra_arena_mark(arena);
    dra_cel_prog_t *p = dra_arena_calloc(arena, 1, sizeof *p, _Alignof(dra_cel_prog_t));
    char *s = dra_arena_strndup(arena, src, len);
    if (!p || !s) {
        dra_arena_reset_to(arena, mark);
        return dra_diag_set(diag, DRA_ENOMEM, NULL, 0, 0, "out of memory");
    }
    p->src = s;
    p->len = (uint32_t)len;
    p->env = env;
    int rc = dra_cel_parse(s, len, env, arena, &p->root, diag);
    if (rc == DRA_OK)
        rc = dra_cel_check(p, arena, diag);
    if (rc != DRA_OK) {
        dra_arena_reset_to(arena, mark);
        return rc;
    }
    *out = p;
    return DRA_OK;
}

/* A derived attribute's expression (derived.c evaluates it): the DRA environment with the
 * derived-attribute result rule (check.c). Here rather than in derived.c so that the cache below
 * compiles without calling back into the evaluating file. */
static const dra_cel_var_t derived_vars[] = {{"device", &dra_cel_t_device}};
static const dra_cel_env_t derived_env = {
    .vars = derived_vars, .nvars = 1, .dra = true, .derived = true, .homogeneous = true};

int dra_cel_compile_derived(const char *src, size_t len, dra_arena_t *arena, dra_cel_prog_t **out,
                            dra_diag_t *diag)
{
    return dra_cel_compile_env(src, len, &derived_env, arena, out, diag);
}

int dra_cel_compile(const char *src, size_t len, dra_arena_t *arena, dra_cel_prog_t **out,
                    dra_diag_t *diag)
{
    return dra_cel_compile_env(src, len, NULL, arena, out, diag);
}

const struct dra_cel_expr *dra_cel_prog_ast(const dra_cel_prog_t *p)
{
    return p->root;
}

void dra_cel_prog_refs(const dra_cel_prog_t *p, const dra_cel_ref_t **refs, uint32_t *n,
                       bool *dynamic)
{
    *refs = p->refs;
    *n = p->nrefs;
    if (dynamic)
        *dynamic = p->dynamic_refs;
}

/* Kubernetes converts every attribute before evaluating: a version that does not parse fails
 * every expression on the device (CEL-DRA §3.2). */
static int check_versions(const dra_device_t *dev, dra_diag_t *diag)
{
    dra_diag_t d;
    dra_diag_clear(&d);
    const dra_attr_t *a = dra_device_bad_version(dev, &d);
    if (a)
        return dra_diag_set(diag, DRA_ERUNTIME, NULL, 0, 0,
                            "attribute %s: parse semantic version: %s", a->name, d.msg);
    return DRA_OK;
}

static bool has_versions(const dra_device_t *dev)
{
    for (uint32_t i = 0; i < dev->nattrs; i++)
        if (dev->attrs[i].kind == DRA_ATTR_VERSION || dev->attrs[i].kind == DRA_ATTR_VERSIONS)
            return true;
    return false;
}

int dra_cel_eval_device(const dra_cel_prog_t *p, const dra_model_t *m, const dra_device_t *dev,
                        dra_arena_t *scratch, bool *match, dra_diag_t *diag)
{
    if (!p || !m || !dev || !scratch || !match)
        return dra_diag_set(diag, DRA_EINVAL, NULL, 0, 0, "invalid argument");
    if (!(dev->slice && dev->slice->versions_valid) && DRA_UNLIKELY(has_versions(dev))) {
        int rc = check_versions(dev, diag);
        if (rc != DRA_OK)
            return rc;
    }
    dra_arena_mark_t mark = dra_arena_mark(scratch);
    dra_cel_act_t act = {.model = m, .dev = dev};
    dra_cel_val_t v;
    int rc = dra_cel_eval_value(p, &act, scratch, &v, diag);
    if (rc == DRA_OK) {
        if (v.kind == DRA_CEL_BOOL) {
            *match = v.v.b;
        } else {
            rc = dra_diag_set(diag, DRA_ERUNTIME, NULL, 0, 0,
                              "CEL result of type %s could not be converted to bool",
                              dra_cel_kind_type_name(&v));
        }
    }
    dra_arena_reset_to(scratch, mark);
    return rc;
}

int dra_cel_eval_device_text(const dra_cel_prog_t *p, const dra_model_t *m,
                             const dra_device_t *dev, dra_arena_t *out_arena, const char **text,
                             dra_diag_t *diag)
{
    *text = NULL;
    if (dev && !(dev->slice && dev->slice->versions_valid) && has_versions(dev)) {
        int rc = check_versions(dev, diag);
        if (rc != DRA_OK)
            return rc;
    }
    dra_cel_act_t act = {.model = m, .dev = dev};
    dra_cel_val_t v;
    int rc = dra_cel_eval_value(p, &act, out_arena, &v, diag);
    if (rc != DRA_OK)
        return rc;
    *text = dra_cel_val_str(out_arena, &v);
    if (!*text)
        return dra_diag_set(diag, DRA_ENOMEM, NULL, 0, 0, "out of memory");
    return DRA_OK;
}

/* ---- cache ---------------------------------------------------------------------------------- */

typedef struct cache_entry {
    struct cache_entry *next;
    uint64_t hash;
    const char *src;
    size_t len;
    bool derived; /* compiled as a derived attribute (dra_cel_cache_get_derived) */
    dra_cel_prog_t *prog;
    int rc;
    dra_diag_t diag;
} cache_entry_t;

struct dra_cel_cache {
    dra_arena_t arena;
    cache_entry_t **buckets;
    size_t nbuckets, count;
};

int dra_cel_cache_new(dra_cel_cache_t **out)
{
    dra_cel_cache_t *c = calloc(1, sizeof *c);
    if (!c)
        return DRA_ENOMEM;
    c->nbuckets = 64;
    c->buckets = calloc(c->nbuckets, sizeof *c->buckets);
    if (!c->buckets) {
        free(c);
        return DRA_ENOMEM;
    }
    dra_arena_init(&c->arena, 0);
    *out = c;
    return DRA_OK;
}

void dra_cel_cache_free(dra_cel_cache_t *c)
{
    if (!c)
        return;
    dra_arena_fini(&c->arena);
    free(c->buckets);
    free(c);
}

static int cache_grow(dra_cel_cache_t *c)
{
    size_t nb = c->nbuckets * 2;
    cache_entry_t **b = calloc(nb, sizeof *b);
    if (!b)
        return DRA_ENOMEM;
    for (size_t i = 0; i < c->nbuckets; i++) {
        cache_entry_t *e = c->buckets[i];
        while (e) {
            cache_entry_t *nx = e->next;
            e->next = b[e->hash & (nb - 1)];
            b[e->hash & (nb - 1)] = e;
            e = nx;
        }
    }
    free(c->buckets);
    c->buckets = b;
    c->nbuckets = nb;
    return DRA_OK;
}

static int cache_get(dra_cel_cache_t *c, const char *src, bool derived, const dra_cel_prog_t **out,
                     dra_diag_t *diag)
{
    if (!c || !src || !out)
        return dra_diag_set(diag, DRA_EINVAL, NULL, 0, 0, "invalid argument");
    size_t len = strlen(src);
    uint64_t h = dra_hash64(src, len) ^ (derived ? 0x9E3779B97F4A7C15ull : 0);
    for (cache_entry_t *e = c->buckets[h & (c->nbuckets - 1)]; e; e = e->next) {
        if (e->hash == h && e->len == len && e->derived == derived && !memcmp(e->src, src, len)) {
            *out = e->prog;
            if (e->rc != DRA_OK && diag)
                *diag = e->diag;
            return e->rc;
        }
    }
    if (c->count + 1 > c->nbuckets && cache_grow(c) != DRA_OK)
        return dra_diag_set(diag, DRA_ENOMEM, NULL, 0, 0, "out of memory");
    cache_entry_t *e = dra_arena_calloc(&c->arena, 1, sizeof *e, _Alignof(cache_entry_t));
    char *s = dra_arena_strndup(&c->arena, src, len);
    if (!e || !s)
        return dra_diag_set(diag, DRA_ENOMEM, NULL, 0, 0, "out of memory");
    e->hash = h;
    e->src = s;
    e->len = len;
    e->derived = derived;
    e->rc = derived ? dra_cel_compile_derived(src, len, &c->arena, &e->prog, &e->diag)
                    : dra_cel_compile(src, len, &c->arena, &e->prog, &e->diag);
    if (e->rc == DRA_ENOMEM) /* do not cache transient failures */
        return diag ? (*diag = e->diag, e->rc) : e->rc;
    e->next = c->buckets[h & (c->nbuckets - 1)];
    c->buckets[h & (c->nbuckets - 1)] = e;
    c->count++;
    *out = e->prog;
    if (e->rc != DRA_OK && diag)
        *diag = e->diag;
    return e->rc;
}

int dra_cel_cache_get(dra_cel_cache_t *c, const char *src, const dra_cel_prog_t **out,
                      dra_diag_t *diag)
{
    return cache_get(c, src, false, out, diag);
}

int dra_cel_cache_get_derived(dra_cel_cache_t *c, const char *src, const dra_cel_prog_t **out,
                              dra_diag_t *diag)
{
    return cache_get(c, src, true, out, diag);
}
