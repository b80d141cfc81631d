/*
 * hazard.c - hazard nodes: nodes that see a pool that may be invalid, incomplete or of mixed
 * generations, or whose node-selector evaluation fails (always candidates), and nodes where an
 * allocationMode All request may find a pool incomplete (engine.h).
 *
 * Ownership: e->hz / e->ahz are the engine's. Errors: DRA_ENOMEM. Cost: set-up O(slices log
 * slices + devices), once (slice updates do not recompute hazards: update.c says what they
 * refuse).
 */
#include "engine/engine_impl.h"

#include <stdlib.h>
#include <string.h>

/* ---- hazard nodes ------------------------------------------------------------------------- */

static bool same_scope(const dra_slice_t *a, const dra_slice_t *b)
{
    if (a->all_nodes != b->all_nodes || a->node_selector != b->node_selector ||
        a->per_device_node_selection != b->per_device_node_selection)
        return false;
    return strcmp(dra__nz(a->node_name), dra__nz(b->node_name)) == 0;
}

/* Whether the set defines every counter the device consumes from it. Devices usually list their
 * counters in the set's order: the search for each one starts after the previous match and wraps
 * around, so the common case is one comparison per counter instead of a scan of the set. */
static bool set_has(const dra_counter_set_t *cs, const dra_consumes_t *cc)
{
    uint32_t n = cs->ncounters, j = 0;
    for (uint32_t k = 0; k < cc->ncounters; k++) {
        const char *want = dra__nz(cc->counters[k].name);
        bool found = false;
        for (uint32_t x = 0; x < n && !found; x++, j = j + 1 == n ? 0 : j + 1)
            found = strcmp(dra__nz(cs->counters[j].name), want) == 0;
        if (!found)
            return false;
    }
    return true;
}

static bool slice_defines(const dra_slice_t *s, const dra_consumes_t *cc)
{
    for (uint32_t j = 0; j < s->ncounter_sets; j++)
        if (strcmp(dra__nz(s->counter_sets[j].name), dra__nz(cc->counter_set)) == 0)
            return set_has(&s->counter_sets[j], cc);
    return false;
}

static int cmp_str(const void *a, const void *b)
{
    return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* A pool (its slices sl[0..n)) that pool gathering might find invalid or incomplete on some node
 * (a superset of the conditions of core/alloc/pools.c). */
static bool pool_suspect(const dra_engine_t *e, const dra_slice_t *const *sl, uint32_t n)
{
    /* 1.38-pre with DRADeviceCompatibilityGroups off: pool gathering drops a slice with a
     * grouped device, so its pool is incomplete (or gone) wherever it is seen */
    for (uint32_t i = 0; e->beh.cg_drop && i < n; i++)
        if (dra__slice_has_groups(sl[i]))
            return true;
    /* skipNodeOperations (core/alloc/node_ops.c): whether its devices are selectable depends on
     * the node's declared features and the gate, and their results carry the list, which the
     * summaries and direct answers do not model: the nodes that see the pool go to the exact
     * allocator */
    for (uint32_t i = 0; i < n; i++)
        if (sl[i]->nskip_node_ops)
            return true;
    /* DRASharedConsumableCapacity on (core/alloc/sharedcap.c): every result carries a
     * consumedCounters snapshot and live allocations are charged from theirs, which the
     * summaries and direct answers do not model: every pool goes to the exact allocator */
    if (e->beh.scc)
        return true;
    for (uint32_t i = 0; i < n; i++)
        if (sl[i]->generation != sl[0]->generation || sl[i]->slice_count != (int64_t)n)
            return true;
    /* duplicate device names: sort the names, compare neighbours (O(d log d) per pool) */
    size_t nd = 0;
    for (uint32_t i = 0; i < n; i++)
        nd += sl[i]->ndevices;
    const char **names = dra_mem_malloc((nd + 1) * sizeof *names);
    if (!names)
        return true; /* cannot check: treat as a hazard (conservative) */
    nd = 0;
    for (uint32_t i = 0; i < n; i++)
        for (uint32_t d = 0; d < sl[i]->ndevices; d++)
            names[nd++] = dra__nz(sl[i]->devices[d].name);
    qsort((void *)names, nd, sizeof *names, cmp_str);
    bool dup = false;
    for (size_t i = 1; i < nd && !dup; i++)
        dup = strcmp(names[i - 1], names[i]) == 0;
    dra_mem_free(names);
    if (dup)
        return true;
    /* from 1.37 (#140442): a negative amount a device's capacity charges fails the call where
     * the search meets the device, whatever the request (consumable_capacity.go) */
    for (uint32_t i = 0; e->beh.cc && e->beh.cap_unrepr_fatal && i < n; i++)
        for (uint32_t d = 0; d < sl[i]->ndevices; d++)
            for (uint32_t c = 0; c < sl[i]->devices[d].ncaps; c++) {
                const dra_capacity_t *cap = &sl[i]->devices[d].caps[c];
                if (cap->value.neg || (cap->policy && cap->policy->has_default && cap->policy->def.neg))
                    return true;
            }
    if (!e->beh.pd) /* counter sets are validated (and gathered) only with the feature on */
        return false;
    for (uint32_t i = 0; i < n; i++)
        for (uint32_t k = 0; k < sl[i]->ncounter_sets; k++)
            for (uint32_t j = 0; j <= i; j++) {
                uint32_t lim = j == i ? k : sl[j]->ncounter_sets;
                for (uint32_t x = 0; x < lim; x++)
                    if (strcmp(dra__nz(sl[i]->counter_sets[k].name),
                               dra__nz(sl[j]->counter_sets[x].name)) == 0)
                        return true;
            }
    for (uint32_t i = 0; i < n; i++)
        for (uint32_t d = 0; d < sl[i]->ndevices; d++) {
            const dra_device_t *dev = &sl[i]->devices[d];
            for (uint32_t c = 0; c < dev->nconsumes; c++) {
                const dra_consumes_t *cc = &dev->consumes[c];
                bool found = false;
                if (e->beh.pool_counters) {
                    for (uint32_t j = 0; j < n && !found; j++)
                        found = (j == i || same_scope(sl[i], sl[j])) && slice_defines(sl[j], cc);
                } else {
                    found = slice_defines(sl[i], cc);
                }
                if (!found)
                    return true;
            }
        }
    return false;
}

/* Whether GatherPools gathers slice s wherever a node sees it at all (DRA-SEMANTICS 2.3,
 * core/alloc/pools.c): without DRAPartitionableDevices a slice with counter sets or with
 * per-device node selection is skipped on every node, whatever it names. */
static bool slice_gathered(const dra_engine_t *e, const dra_slice_t *s)
{
    return e->beh.pd || (!s->per_device_node_selection && s->ncounter_sets == 0);
}

/* Whether every node that gathers some slice of the pool (its slices sl[0..n), not suspect)
 * gathers all of them, so that an allocationMode All request never finds it incomplete there
 * (DRA-SEMANTICS 2.4 step 3: NodeFailure, Fatal in the snapshot). Certain only when every slice
 * names one node, or every one is for all nodes, and GatherPools skips none of them by itself:
 * in 1.34 (no completeness re-check) a pool whose counter-set slice is skipped with
 * DRAPartitionableDevices off is incomplete on its node while its devices' slice is gathered.
 * From 1.35 on the re-check counts every model slice of the generation, so a pool that is not
 * suspect (one generation, its slice count) is complete wherever it is gathered; the shape
 * condition is kept there too (conservative: it only keeps All plans with brute force). */
static bool pool_whole_everywhere(const dra_engine_t *e, const dra_slice_t *const *sl, uint32_t n)
{
    bool one_node = true, all_nodes = true, gathered = true;
    for (uint32_t k = 0; k < n; k++) {
        const dra_slice_t *a = sl[k];
        bool named = a->node_name && a->node_name[0];
        one_node &= named && strcmp(a->node_name, dra__nz(sl[0]->node_name)) == 0;
        all_nodes &= !named && a->all_nodes && !a->node_selector && !a->per_device_node_selection;
        gathered &= slice_gathered(e, a);
    }
    return (one_node || all_nodes) && (gathered || e->beh.strict_pools);
}

static int cmp_slice_pool(const void *a, const void *b)
{
    const dra_slice_t *x = *(const dra_slice_t *const *)a, *y = *(const dra_slice_t *const *)b;
    int c = strcmp(dra__nz(x->driver), dra__nz(y->driver));
    return c ? c : strcmp(dra__nz(x->pool_name), dra__nz(y->pool_name));
}

static void mark_node_name(dra_engine_t *e, const char *name)
{
    for (uint32_t i = 0; i < e->nnodes; i++)
        if (!e->hz[i] && strcmp(dra__nz(e->m->nodes[i]->name), dra__nz(name)) == 0) {
            e->hz[i] = 1;
            e->nhazard++;
        }
}

static void mark_all(dra_engine_t *e)
{
    for (uint32_t i = 0; i < e->nnodes; i++)
        if (!e->hz[i]) {
            e->hz[i] = 1;
            e->nhazard++;
        }
}

static void selector_check(dra_engine_t *e, const char *node_name, bool all_nodes,
                           const dra_node_selector_t *sel, const dra_node_selector_t **seen,
                           uint32_t *nseen)
{
    if (!sel)
        return;
    /* slices of one pool share their selector: evaluate each distinct one once */
    for (uint32_t i = 0; i < *nseen; i++)
        if (seen[i] == sel)
            return;
    if (*nseen < 1024)
        seen[(*nseen)++] = sel;
    if (sel->nterms > 1)
        e->multiterm = true;
    char err[256];
    for (uint32_t i = 0; i < e->nnodes; i++) {
        bool mt;
        if (!e->hz[i] &&
            dra__node_matches(e->m->nodes[i], node_name, all_nodes, sel, &mt, err, sizeof err)) {
            e->hz[i] = 1;
            e->nhazard++;
        }
    }
}

int dra__hazards(dra_engine_t *e)
{
    const dra_model_t *m = e->m;
    const dra_slice_t **sl = dra_mem_malloc((m->nslices + 1) * sizeof *sl);
    if (!sl)
        return DRA_ENOMEM;
    for (uint32_t i = 0; i < m->nslices; i++)
        sl[i] = m->slices[i];
    qsort((void *)sl, m->nslices, sizeof *sl, cmp_slice_pool);
    for (uint32_t i = 0; i < m->nslices;) {
        uint32_t j = i + 1;
        while (j < m->nslices && cmp_slice_pool(&sl[i], &sl[j]) == 0)
            j++;
        bool suspect = pool_suspect(e, sl + i, j - i);
        if (suspect || !pool_whole_everywhere(e, sl + i, j - i)) {
            bool named = true;
            for (uint32_t k = i; k < j && named; k++)
                named = sl[k]->node_name && sl[k]->node_name[0];
            for (uint32_t k = i; k < j; k++)
                for (uint32_t n = 0; n < e->nnodes; n++)
                    if (!e->ahz[n] &&
                        (!named || strcmp(dra__nz(e->m->nodes[n]->name), sl[k]->node_name) == 0)) {
                        e->ahz[n] = 1;
                        e->nahz++;
                    }
        }
        if (suspect) {
            bool node_scoped = true;
            for (uint32_t k = i; k < j; k++)
                if (!sl[k]->node_name || !sl[k]->node_name[0] || sl[k]->ncounter_sets)
                    node_scoped = false;
            if (node_scoped) {
                for (uint32_t k = i; k < j; k++)
                    mark_node_name(e, sl[k]->node_name);
            } else {
                mark_all(e);
            }
        }
        i = j;
    }
    dra_mem_free(sl);
    const dra_node_selector_t **seen = dra_mem_malloc(1024 * sizeof *seen);
    uint32_t nseen = 0;
    if (!seen)
        return DRA_ENOMEM;
    for (uint32_t i = 0; i < m->nslices && e->nhazard < e->nnodes; i++) {
        const dra_slice_t *s = m->slices[i];
        if (s->node_selector && !(s->node_name && s->node_name[0]))
            selector_check(e, s->node_name, s->all_nodes, s->node_selector, seen, &nseen);
        if (s->per_device_node_selection)
            for (uint32_t d = 0; d < s->ndevices; d++)
                selector_check(e, s->devices[d].node_name, s->devices[d].all_nodes,
                               s->devices[d].node_selector, seen, &nseen);
    }
    dra_mem_free(seen);
    /* multi-term selectors also matter when every node is already a hazard (best-fit / spread) */
    for (uint32_t i = 0; i < m->nslices && !e->multiterm; i++) {
        const dra_slice_t *s = m->slices[i];
        if (s->node_selector && s->node_selector->nterms > 1)
            e->multiterm = true;
        for (uint32_t d = 0; d < s->ndevices; d++)
            if (s->devices[d].node_selector && s->devices[d].node_selector->nterms > 1)
                e->multiterm = true;
    }
    return DRA_OK;
}
