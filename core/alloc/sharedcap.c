/*
 * sharedcap.c - DRASharedConsumableCapacity (KEP-5941, master at 0c8a1b073dc3, alpha and off by
 * default in the 1.38-pre profile): request-driven counter consumption.
 *
 * The API (read by harness/k8s/manifest_read_slice.c into dra_counter_t):
 *  - consumesCounters[].counters[X].valueFrom.capacityName: the counter is charged from the
 *    claim's capacity request of that name, not a static value (exactly one of value and
 *    valueFrom);
 *  - sharedCounters[].counters[X].requestPolicy: default, validValues or validRange applied to
 *    that request, as for a device capacity.
 *
 * What drabench models:
 *  - releases before 1.38-pre: the fields are unknown to their API server (validate refuses
 *    them under --release; see manifest_validate.c);
 *  - 1.38-pre with the gate off: the API server drops requestPolicy and valueFrom, and a device
 *    whose counter had only valueFrom consumes nothing from it (the KEP's version-skew and
 *    gate-off rules). The reader stores a valueFrom counter's value as 0, so every allocator
 *    (reference, fast, engine, brute force, invariants) charges 0 and ignores requestPolicy:
 *    one rule, no per-allocator code;
 *  - 1.38-pre with the gate on (experimental variant, with DRAPartitionableDevices and
 *    DRAConsumableCapacity): upstream charges valueFrom counters per allocation from the
 *    request through the counter's requestPolicy, keeps a device's static counters per device,
 *    records both in the result (consumedCounters: perDevice / perAllocation) and charges live
 *    allocations from those snapshots. drabench does not model that accounting yet, so pool
 *    gathering refuses a gathered slice that uses either field (a fatal error naming the
 *    slice and the gate) rather than giving a decision upstream would not; the engine sends the
 *    nodes that see such a pool to the exact allocator (hazard.c), which refuses likewise.
 *    The same holds for a pool named by an allocated result that carries a consumedCounters
 *    snapshot: upstream charges such a result from its snapshot, not from the live slice (the
 *    model's claims are scanned: a claim with status.allocation counts as allocated, as
 *    dra_alloc_state_add_model_claims has it).
 *    Slices without the fields allocate exactly as with the gate off (decisions are equal;
 *    upstream's result then carries an empty consumedCounters snapshot, which drabench does
 *    not record).
 *
 * Cost: with the gate on only: a scan of the slice's counters, and once per pool gathering a
 * scan of the model's claims (then per slice, when some claim has a snapshot).
 */
#include <stdio.h>
#include <string.h>

#include "alloc/alloc_impl.h"

bool dra__counters_shared_cap(const dra_counter_t *c, uint32_t n)
{
    for (uint32_t i = 0; i < n; i++)
        if (c[i].value_from || c[i].policy)
            return true;
    return false;
}

bool dra__slice_uses_shared_cap(const dra_slice_t *s)
{
    for (uint32_t i = 0; i < s->ncounter_sets; i++)
        if (dra__counters_shared_cap(s->counter_sets[i].counters, s->counter_sets[i].ncounters))
            return true;
    for (uint32_t d = 0; d < s->ndevices; d++)
        for (uint32_t c = 0; c < s->devices[d].nconsumes; c++)
            if (dra__counters_shared_cap(s->devices[d].consumes[c].counters,
                                         s->devices[d].consumes[c].ncounters))
                return true;
    return false;
}

/* Some allocated claim of the model has a result in pool (driver, pool) with a consumedCounters
 * snapshot. O(claims * results); called only with the gate on. */
bool dra__pool_has_snapshots(const dra_model_t *m, const char *driver, const char *pool)
{
    for (uint32_t i = 0; i < m->nclaims; i++) {
        const dra_allocation_t *a = m->claims[i]->allocation;
        if (!a || !a->counters)
            continue;
        for (uint32_t r = 0; r < a->nresults; r++)
            if (a->counters[r] && a->results[r].driver && a->results[r].pool &&
                strcmp(a->results[r].driver, driver) == 0 && strcmp(a->results[r].pool, pool) == 0)
                return true;
    }
    return false;
}

static bool model_has_snapshots(const dra_model_t *m)
{
    for (uint32_t i = 0; i < m->nclaims; i++) {
        const dra_allocation_t *a = m->claims[i]->allocation;
        for (uint32_t r = 0; a && a->counters && r < a->nresults; r++)
            if (a->counters[r])
                return true;
    }
    return false;
}

int dra__shared_cap_refuse(const dra__beh_t *b, const dra_model_t *m, const dra_slice_t *s,
                           int *snaps, char *err, size_t errlen)
{
    if (!b->scc)
        return DRA_OK;
    const char *what = NULL;
    if (dra__slice_uses_shared_cap(s)) {
        what = "uses request-driven counters (valueFrom or a counter requestPolicy)";
    } else {
        if (*snaps < 0)
            *snaps = model_has_snapshots(m);
        if (*snaps && dra__pool_has_snapshots(m, s->driver ? s->driver : "",
                                              s->pool_name ? s->pool_name : ""))
            what = "has allocated results with consumedCounters snapshots";
    }
    if (!what)
        return DRA_OK;
    snprintf(err, errlen,
             "gather pool information: slice %s (pool %s/%s) %s with feature gate "
             "DRASharedConsumableCapacity on: that counter accounting is not modelled by drabench "
             "(with the gate off, which is modelled, the API server drops those fields)",
             s->name ? s->name : "", s->driver ? s->driver : "", s->pool_name ? s->pool_name : "",
             what);
    return DRA_EFATAL;
}
