/*
 * pools.c - GatherPools (DRA-SEMANTICS §2.3): which slices of the model form the resource pools
 * usable on a node, with generation handling, completeness, validity and ordering per release.
 *
 * Model slices are scanned in model order (upstream's informer order is arbitrary; ordering only
 * matters through the sorts below). Pools are sorted by (driver, pool) bytewise in every release:
 * upstream <= 1.35 and the stable variant iterate a Go map (random order); a deterministic order
 * is the only reproducible choice (documented in README.md).
 *
 * Cost: linear in the slices and devices looked at. The pool of a slice, the duplicate device and
 * counter-set names of a pool and the slices of a pool's completeness re-check are found through
 * hash sets in the arena (no pairwise comparisons: 400 slices x 128 devices in one pool used to
 * take seconds); every decision and message is the one the pairwise scans gave.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <xxhash.h>

#include "alloc/alloc_impl.h"

static const char *nz(const char *s)
{
    return s ? s : "";
}

/* ---- arena hash sets (open addressing, power-of-two tables, never full) ----------------------- */

static uint64_t hash_str(const char *s)
{
    return XXH3_64bits(s, strlen(s));
}

/* A set of strings (borrowed pointers). */
typedef struct strset {
    const char **slot;
    uint64_t mask;
} strset_t;

static int strset_init(strset_t *t, dra_arena_t *a, uint64_t n)
{
    uint64_t cap = 16;
    while (cap < 2 * n)
        cap *= 2;
    t->slot = dra_arena_calloc(a, (size_t)cap, sizeof *t->slot, 8);
    t->mask = cap - 1;
    return t->slot ? DRA_OK : DRA_ENOMEM;
}

/* Adds k; true when it was already there. The table holds at most half its size (strset_init). */
static bool strset_add(strset_t *t, const char *k)
{
    for (uint64_t i = hash_str(k) & t->mask;; i = (i + 1) & t->mask) {
        if (!t->slot[i]) {
            t->slot[i] = k;
            return false;
        }
        if (strcmp(t->slot[i], k) == 0)
            return true;
    }
}

static bool strset_has(const strset_t *t, const char *k)
{
    for (uint64_t i = hash_str(k) & t->mask;; i = (i + 1) & t->mask) {
        if (!t->slot[i])
            return false;
        if (strcmp(t->slot[i], k) == 0)
            return true;
    }
}

static int push_slice(dra_arena_t *a, const dra_slice_t ***arr, uint32_t *n, uint32_t *cap,
                      const dra_slice_t *s)
{
    if (*n == *cap) {
        uint32_t nc = *cap ? *cap * 2 : 4;
        const dra_slice_t **na = dra_arena_realloc(a, (void *)*arr, *cap * sizeof(void *),
                                                   nc * sizeof(void *), 8);
        if (!na)
            return DRA_ENOMEM;
        *arr = na;
        *cap = nc;
    }
    (*arr)[(*n)++] = s;
    return DRA_OK;
}

typedef struct gp_tmp {
    const char *driver, *name;
    const dra_slice_t **slices;
    uint32_t n, cap;
} gp_tmp_t;

/* (driver, pool) -> index into the gathered pools (gp_tmp_t), 0 = empty slot, else index + 1. */
typedef struct poolmap {
    uint32_t *slot;
    uint64_t mask;
} poolmap_t;

static uint64_t hash_pool(const char *driver, const char *pool)
{
    return hash_str(driver) * 0x9E3779B97F4A7C15ull ^ hash_str(pool);
}

static int cmp_slice_name(const void *a, const void *b)
{
    const dra_slice_t *x = *(const dra_slice_t *const *)a, *y = *(const dra_slice_t *const *)b;
    return strcmp(nz(x->name), nz(y->name));
}

static int cmp_pool(const void *a, const void *b)
{
    const dra__gpool_t *x = a, *y = b;
    int c = strcmp(x->driver, y->driver);
    if (c)
        return c;
    return strcmp(x->name, y->name);
}

/* The gathered pool of (driver, pool), or UINT32_MAX. */
static uint32_t poolmap_find(const poolmap_t *pm, const gp_tmp_t *tmp, const char *driver,
                             const char *pool)
{
    for (uint64_t i = hash_pool(driver, pool) & pm->mask;; i = (i + 1) & pm->mask) {
        uint32_t v = pm->slot[i];
        if (!v)
            return UINT32_MAX;
        if (strcmp(tmp[v - 1].driver, driver) == 0 && strcmp(tmp[v - 1].name, pool) == 0)
            return v - 1;
    }
}

static void poolmap_put(poolmap_t *pm, const gp_tmp_t *tmp, uint32_t idx)
{
    uint64_t i = hash_pool(tmp[idx].driver, tmp[idx].name) & pm->mask;
    while (pm->slot[i])
        i = (i + 1) & pm->mask;
    pm->slot[i] = idx + 1;
}

/* A table for n pools (at most half full), filled with tmp[0..n). */
static int poolmap_build(poolmap_t *pm, dra_arena_t *a, const gp_tmp_t *tmp, uint32_t n,
                         uint64_t want)
{
    uint64_t cap = 16;
    while (cap < 2 * want)
        cap *= 2;
    pm->slot = dra_arena_calloc(a, (size_t)cap, sizeof *pm->slot, 8);
    if (!pm->slot)
        return DRA_ENOMEM;
    pm->mask = cap - 1;
    for (uint32_t i = 0; i < n; i++)
        poolmap_put(pm, tmp, i);
    return DRA_OK;
}

const dra_counter_set_t *dra__pool_counter_set(const dra__beh_t *b, const dra__gpool_t *p,
                                              const dra_slice_t *dev_slice, const char *name)
{
    if (b->pool_counters) {
        for (uint32_t i = 0; i < p->ncounter_slices; i++) {
            const dra_slice_t *s = p->counter_slices[i];
            for (uint32_t j = 0; j < s->ncounter_sets; j++)
                if (strcmp(nz(s->counter_sets[j].name), nz(name)) == 0)
                    return &s->counter_sets[j];
        }
        return NULL;
    }
    if (!dev_slice)
        return NULL;
    for (uint32_t j = 0; j < dev_slice->ncounter_sets; j++)
        if (strcmp(nz(dev_slice->counter_sets[j].name), nz(name)) == 0)
            return &dev_slice->counter_sets[j];
    return NULL;
}

static const char *validate_consumption(const dra__beh_t *b, const dra__gpool_t *p,
                                        const dra_slice_t *const *sl, uint32_t n, dra_arena_t *a)
{
    char buf[400];
    for (uint32_t i = 0; i < n; i++) {
        for (uint32_t d = 0; d < sl[i]->ndevices; d++) {
            const dra_device_t *dev = &sl[i]->devices[d];
            for (uint32_t c = 0; c < dev->nconsumes; c++) {
                const dra_consumes_t *cc = &dev->consumes[c];
                const dra_counter_set_t *cs = dra__pool_counter_set(b, p, sl[i], cc->counter_set);
                if (!cs) {
                    snprintf(buf, sizeof buf, "counter set %s not found", nz(cc->counter_set));
                    return dra_arena_strdup(a, buf);
                }
                for (uint32_t k = 0; k < cc->ncounters; k++) {
                    bool found = false;
                    for (uint32_t j = 0; j < cs->ncounters && !found; j++)
                        found = strcmp(nz(cs->counters[j].name), nz(cc->counters[k].name)) == 0;
                    if (!found) {
                        snprintf(buf, sizeof buf, "counter %s not found in counter set %s",
                                 nz(cc->counters[k].name), nz(cs->name));
                        return dra_arena_strdup(a, buf);
                    }
                }
            }
        }
    }
    return NULL;
}

static int build_pool(const dra__beh_t *b, gp_tmp_t *t, const dra_slice_t *const *extra,
                      uint32_t nextra, dra_arena_t *a, dra__gpool_t *p)
{
    memset(p, 0, sizeof *p);
    p->driver = t->driver;
    p->name = t->name;
    p->generation = t->n ? t->slices[0]->generation : 0;
    if (b->sort_slices && t->n > 1)
        qsort((void *)t->slices, t->n, sizeof(void *), cmp_slice_name);
    uint32_t cap_s = 0, cap_o = 0, cap_c = 0;
    for (uint32_t i = 0; i < t->n; i++) {
        const dra_slice_t *s = t->slices[i];
        int rc;
        if (b->pd && b->pool_counters && s->ncounter_sets > 0)
            rc = push_slice(a, &p->counter_slices, &p->ncounter_slices, &cap_c, s);
        else
            rc = push_slice(a, &p->slices, &p->nslices, &cap_s, s);
        if (rc)
            return rc;
    }
    strset_t have = {0}; /* names of the gathered slices (the same slice has the same name) */
    if (nextra) {
        if (strset_init(&have, a, t->n))
            return DRA_ENOMEM;
        for (uint32_t i = 0; i < t->n; i++)
            (void)strset_add(&have, nz(t->slices[i]->name));
    }
    for (uint32_t i = 0; i < nextra; i++) {
        const dra_slice_t *s = extra[i];
        if (strset_has(&have, nz(s->name)))
            continue;
        int rc;
        if (b->pd && b->pool_counters && s->ncounter_sets > 0)
            rc = push_slice(a, &p->counter_slices, &p->ncounter_slices, &cap_c, s);
        else
            rc = push_slice(a, &p->other, &p->nother, &cap_o, s);
        if (rc)
            return rc;
    }
    /* duplicate device names among the targeting device slices: the first device (slice order,
     * then device order) whose name an earlier one had */
    char buf[400];
    uint64_t ndev = 0;
    for (uint32_t i = 0; i < p->nslices; i++)
        ndev += p->slices[i]->ndevices;
    if (ndev > 1) {
        strset_t names;
        if (strset_init(&names, a, ndev))
            return DRA_ENOMEM;
        for (uint32_t i = 0; i < p->nslices && !p->invalid; i++) {
            for (uint32_t d = 0; d < p->slices[i]->ndevices; d++) {
                const char *nm = nz(p->slices[i]->devices[d].name);
                if (strset_add(&names, nm)) {
                    snprintf(buf, sizeof buf, "duplicate device name %s", nm);
                    p->invalid = true;
                    p->invalid_reason = dra_arena_strdup(a, buf);
                    break;
                }
            }
        }
    }
    if (!p->invalid && b->pd) {
        if (b->pool_counters) {
            uint64_t nsets = 0;
            for (uint32_t i = 0; i < p->ncounter_slices; i++)
                nsets += p->counter_slices[i]->ncounter_sets;
            strset_t sets = {0};
            if (nsets > 1 && strset_init(&sets, a, nsets))
                return DRA_ENOMEM;
            for (uint32_t i = 0; nsets > 1 && i < p->ncounter_slices && !p->invalid; i++) {
                const dra_slice_t *s = p->counter_slices[i];
                for (uint32_t k = 0; k < s->ncounter_sets; k++) {
                    if (strset_add(&sets, nz(s->counter_sets[k].name))) {
                        snprintf(buf, sizeof buf, "duplicate counter set name %s",
                                 nz(s->counter_sets[k].name));
                        p->invalid = true;
                        p->invalid_reason = dra_arena_strdup(a, buf);
                        break;
                    }
                }
            }
        }
        if (!p->invalid) {
            const char *r = validate_consumption(b, p, p->slices, p->nslices, a);
            if (!r)
                r = validate_consumption(b, p, p->other, p->nother, a);
            if (r) {
                p->invalid = true;
                p->invalid_reason = r;
            }
        }
    }
    if (p->invalid) {
        /* an invalid pool offers no devices */
        p->nslices = 0;
        p->nother = 0;
        p->ncounter_slices = 0;
        return DRA_OK;
    }
    for (uint32_t i = 0; i < p->nslices && !p->has_binding; i++)
        for (uint32_t d = 0; d < p->slices[i]->ndevices; d++)
            if (p->slices[i]->devices[d].nbinding_conditions > 0)
                p->has_binding = true;
    return DRA_OK;
}

enum { COUNT_OK = 0, COUNT_OBSOLETE = 1 };

/* 1.38-pre (#141118): the slices of the whole pool (every: the pool's model slices, node-relevant
 * or not, without those pool gathering leaves out) at the gathered generation gen must agree on
 * resourceSliceCount and not outnumber it. When they do not, *why is the reason the pool is
 * invalid, or COUNT_OBSOLETE when a newer generation of the pool exists (the driver is replacing
 * this one: the pool is ignored). Fewer slices than declared is left to the completeness rules.
 * Returns COUNT_OK, COUNT_OBSOLETE or DRA_ENOMEM. Cost: one pass over the pool's slices. */
static int count_check(const gp_tmp_t *every, int64_t gen, int64_t want, dra_arena_t *a,
                       const char **why)
{
    *why = NULL;
    uint32_t seen = 0;
    bool newer = false;
    int64_t other = want;
    for (uint32_t i = 0; i < every->n; i++) {
        const dra_slice_t *s = every->slices[i];
        if (s->generation > gen) {
            newer = true;
        } else if (s->generation == gen) {
            seen++;
            if (s->slice_count != want)
                other = s->slice_count;
        }
    }
    char buf[200];
    if (other != want)
        snprintf(buf, sizeof buf,
                 "ResourceSlices of pool generation %lld declare inconsistent resourceSliceCount "
                 "(%lld and %lld)",
                 (long long)gen, (long long)want, (long long)other);
    else if ((int64_t)seen > want)
        snprintf(buf, sizeof buf,
                 "pool generation %lld has %u ResourceSlices, more than its resourceSliceCount "
                 "%lld",
                 (long long)gen, seen, (long long)want);
    else
        return COUNT_OK;
    if (newer)
        return COUNT_OBSOLETE;
    *why = dra_arena_strdup(a, buf);
    return *why ? COUNT_OK : DRA_ENOMEM;
}

bool dra__slice_has_groups(const dra_slice_t *s)
{
    for (uint32_t d = 0; d < s->ndevices; d++)
        if (dra__device_has_groups(&s->devices[d]))
            return true;
    return false;
}

int dra__gather_pools(const dra_model_t *m, const dra__beh_t *b, const dra_node_t *node,
                     dra_arena_t *a, dra__gpools_t *out, char *err, size_t errlen)
{
    memset(out, 0, sizeof *out);
    gp_tmp_t *tmp = NULL;
    uint32_t ntmp = 0, captmp = 0;
    poolmap_t pm = {0};
    char e2[300];
    for (uint32_t i = 0; i < m->nslices; i++) {
        const dra_slice_t *s = m->slices[i];
        if (!b->pd && (s->per_device_node_selection || s->ncounter_sets > 0))
            continue;
        /* 1.38-pre, groups not enforced: the slice is left out before anything else looks at
         * it (its node selector is not evaluated), as if it were not in the cluster */
        if (b->cg_drop && dra__slice_has_groups(s))
            continue;
        bool relevant = false;
        if (b->pd && b->counter_slices_always && s->ncounter_sets > 0) {
            relevant = true;
        } else if ((s->node_name && s->node_name[0]) || s->all_nodes || s->node_selector) {
            if (dra__node_matches(node, s->node_name, s->all_nodes, s->node_selector, &relevant, e2,
                                 sizeof e2)) {
                snprintf(err, errlen,
                         "gather pool information: failed to perform node selection for slice %s: "
                         "failed to parse node selector: %s",
                         nz(s->name), e2);
                return DRA_EFATAL;
            }
        } else if (s->per_device_node_selection) {
            for (uint32_t d = 0; d < s->ndevices && !relevant; d++) {
                const dra_device_t *dev = &s->devices[d];
                if (dra__node_matches(node, dev->node_name, dev->all_nodes, dev->node_selector,
                                     &relevant, e2, sizeof e2)) {
                    snprintf(err, errlen,
                             "gather pool information: failed to perform node selection for device "
                             "%s in slice %s: failed to parse node selector: %s",
                             nz(dev->name), nz(s->name), e2);
                    return DRA_EFATAL;
                }
            }
        } else {
            continue;
        }
        if (!relevant)
            continue;
        gp_tmp_t *t = NULL;
        uint32_t ti = ntmp ? poolmap_find(&pm, tmp, nz(s->driver), nz(s->pool_name)) : UINT32_MAX;
        if (ti != UINT32_MAX)
            t = &tmp[ti];
        if (!t) {
            if (ntmp == captmp) {
                uint32_t nc = captmp ? captmp * 2 : 8;
                gp_tmp_t *nt = dra_arena_realloc(a, tmp, captmp * sizeof *tmp, nc * sizeof *tmp, 8);
                if (!nt)
                    return DRA_ENOMEM;
                tmp = nt;
                captmp = nc;
                if (poolmap_build(&pm, a, tmp, ntmp, nc)) /* room for nc pools */
                    return DRA_ENOMEM;
            }
            t = &tmp[ntmp++];
            memset(t, 0, sizeof *t);
            t->driver = nz(s->driver);
            t->name = nz(s->pool_name);
            poolmap_put(&pm, tmp, ntmp - 1);
        }
        if (t->n > 0) {
            if (s->generation < t->slices[0]->generation)
                continue;
            if (s->generation > t->slices[0]->generation)
                t->n = 0;
        }
        if (push_slice(a, &t->slices, &t->n, &t->cap, s))
            return DRA_ENOMEM;
    }

    out->pools = dra_arena_calloc(a, ntmp ? ntmp : 1, sizeof(dra__gpool_t), 8);
    if (!out->pools)
        return DRA_ENOMEM;
    /* the completeness re-check needs every model slice of an incomplete pool: bucket the model's
     * slices by gathered pool in one pass (model order kept), only when some pool needs it */
    gp_tmp_t *every = NULL; /* per gathered pool: all its model slices (slices, n used) */
    for (uint32_t j = 0; j < ntmp && !every; j++)
        if (b->count_strict ||
            ((int64_t)tmp[j].n != tmp[j].slices[0]->slice_count && b->strict_pools)) {
            every = dra_arena_calloc(a, ntmp, sizeof *every, 8);
            if (!every)
                return DRA_ENOMEM;
            for (uint32_t i = 0; i < m->nslices; i++) {
                const dra_slice_t *s = m->slices[i];
                if (b->cg_drop && dra__slice_has_groups(s))
                    continue; /* not in the cluster for the re-check either */
                uint32_t k = poolmap_find(&pm, tmp, nz(s->driver), nz(s->pool_name));
                if (k != UINT32_MAX && push_slice(a, &every[k].slices, &every[k].n, &every[k].cap, s))
                    return DRA_ENOMEM;
            }
        }
    for (uint32_t j = 0; j < ntmp; j++) {
        gp_tmp_t *t = &tmp[j];
        dra__gpool_t *p = &out->pools[out->n];
        int64_t want = t->slices[0]->slice_count;
        const char *why = NULL;
        if (b->count_strict) {
            int r = count_check(&every[j], t->slices[0]->generation, want, a, &why);
            if (r == DRA_ENOMEM)
                return DRA_ENOMEM;
            if (r == COUNT_OBSOLETE)
                continue;
        }
        if (why) {
            memset(p, 0, sizeof *p);
            p->driver = t->driver;
            p->name = t->name;
            p->generation = t->slices[0]->generation;
            p->invalid = true;
            p->invalid_reason = why;
        } else if ((int64_t)t->n == want || !b->strict_pools) {
            if (build_pool(b, t, NULL, 0, a, p))
                return DRA_ENOMEM;
            if ((int64_t)t->n != want)
                p->incomplete = true; /* 1.34: devices stay usable for ExactCount */
        } else {
            /* completeness re-check against every slice of the pool */
            bool obsolete = false;
            const dra_slice_t **all = NULL;
            uint32_t nall = 0, capall = 0;
            int64_t gen = t->slices[0]->generation;
            for (uint32_t i = 0; i < every[j].n && !obsolete; i++) {
                const dra_slice_t *s = every[j].slices[i];
                if (s->generation == gen) {
                    if (push_slice(a, &all, &nall, &capall, s))
                        return DRA_ENOMEM;
                } else if (s->generation > gen) {
                    obsolete = true;
                }
            }
            if (obsolete)
                continue;
            if ((int64_t)nall != want) {
                memset(p, 0, sizeof *p);
                p->driver = t->driver;
                p->name = t->name;
                p->generation = gen;
                p->incomplete = true;
            } else if (build_pool(b, t, all, nall, a, p)) {
                return DRA_ENOMEM;
            }
        }
        if (p->invalid)
            out->any_invalid = true;
        /* 1.37: whether compatibility groups can matter on this node at all (the checks cost
         * a pass over the pool's allocated devices; without a grouped device they admit all) */
        for (uint32_t k = 0; (b->cg || b->cg_skip) && !out->any_groups && k < p->nslices + p->nother;
             k++) {
            const dra_slice_t *sl = k < p->nslices ? p->slices[k] : p->other[k - p->nslices];
            for (uint32_t d = 0; d < sl->ndevices && !out->any_groups; d++)
                out->any_groups = dra__device_has_groups(&sl->devices[d]);
        }
        out->n++;
    }
    /* order: (driver, pool); 1.36+: pools with binding-condition devices last */
    if (out->n > 1) {
        if (b->bc_last) {
            dra__gpool_t *tmpp = dra_arena_calloc(a, out->n, sizeof *tmpp, 8);
            if (!tmpp)
                return DRA_ENOMEM;
            uint32_t k = 0;
            for (uint32_t i = 0; i < out->n; i++)
                if (!out->pools[i].has_binding)
                    tmpp[k++] = out->pools[i];
            uint32_t nfirst = k;
            for (uint32_t i = 0; i < out->n; i++)
                if (out->pools[i].has_binding)
                    tmpp[k++] = out->pools[i];
            qsort(tmpp, nfirst, sizeof *tmpp, cmp_pool);
            qsort(tmpp + nfirst, out->n - nfirst, sizeof *tmpp, cmp_pool);
            memcpy(out->pools, tmpp, out->n * sizeof *tmpp);
        } else {
            qsort(out->pools, out->n, sizeof *out->pools, cmp_pool);
        }
    }
    return DRA_OK;
}
