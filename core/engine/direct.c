/*
 * direct.c - exact per-node answers from the engine's own columns.
 *
 * Plans of one claim answered on a node without calling the exact allocator:
 *  - FIRST: one request, ExactCount k (or firstAvailable over such subrequests), no constraint;
 *  - MATCH: one ExactCount request under one matchAttribute constraint;
 *  - PAIR: two requests of one device each under one matchAttribute constraint over both
 *    (a GPU and a NIC on one PCIe root);
 *  - MULTI: up to DRA__DIRECT_MAX_REQ ExactCount requests, each answered alone as FIRST or, under
 *    a matchAttribute constraint of its own, as MATCH (four GPUs of one NVLink clique and an IMEX
 *    channel), when no row is a candidate of two of them (their signatures' matching and error
 *    rows are disjoint), at most one has devices that consume counters and none takes shares;
 * each request without admin access, and without capacity requests except in FIRST
 * (DRAConsumableCapacity; SHARES below). The devices are read off the
 * signature's match bitset, the alternative's static eligibility bitset and the engine's
 * availability bitset over the node's range of table rows, a word at a time.
 *
 * Why the answer is the exact allocator's. The fast allocator's scan (core/alloc/fast.c, "exact
 * per-node fast paths") proves that for one request the search returns the greedy path - at
 * every level the first device, in search order, that passes every check given the devices
 * picked before - when that path reaches k devices; when it does not, the call is unsatisfiable
 * if no check depended on the picks, and with matchAttribute only, the answer is the first
 * group of equal scalar values (ordered by its first member) with k eligible members, its
 * first k. firstAvailable tries the subrequests in order and takes the first the node
 * satisfies (each is such a request). Two requests start their device loops over (a request
 * starts at the origin): the search takes the first device of the first request that has a
 * partner of equal value in the second request, the first such partner (PAIR). Requests whose
 * candidates never meet (MULTI) do not change each other's checks: a device one request takes
 * is none of another's candidates, and only one of them consumes counters (the others' devices
 * leave every counter as it was), so each request's first solution is the one it finds alone;
 * the search completes request after request with those, and when one of them has none, going
 * back into the requests before it only gives them other devices, which cannot make it
 * satisfiable: the claim is unsatisfiable on the node. A request whose own answer is left to
 * the allocator (FALLBACK) leaves the claim's. The facts are read here from other columns:
 *  - search order: a node's range of table rows follows the upstream order (pools by (driver,
 *    pool), then slices, then devices; table.h). A node is answered directly only when its slice
 *    order is the profile's (model order unless the profile sorts slices by name), when no
 *    binding-condition pool may be moved last, and when none of the plan's signature rows lie in
 *    the shared range (so the node's own range is every candidate);
 *  - the checks of allocateDevice: the selectors are the signature's match bitset (errors: a node
 *    with an error row of a signature is a hazard for the plan and never answered here);
 *    exclusivity, and a device's own counters, are the engine's availability bit (free, and
 *    every counter the device consumes has that much left; summary.c); the static checks
 *    (binding conditions with their gate off, partitionable devices with theirs off, devices of a
 *    slice with counter sets where GatherPools does not offer them, the static capacity check of
 *    a request without capacity, taints against the request's tolerations)
 *    are the alternative's eligibility bitset, computed once; a later pick over partitionable
 *    devices is re-checked with the consumption of the devices picked before;
 *  - counters: when a greedy path stops short and some candidate was refused only because of
 *    the picks before it, or the first full group's members do not fit together, the search
 *    would backtrack over the picks: the allocator answers (DRA__DIRECT_FALLBACK). Otherwise
 *    fewer than k candidates exist whatever the picks (unsatisfiable), or the group answer
 *    stands (groups with fewer than k candidates fail whatever the counters);
 *  - what would make the allocator leave its scan is excluded up front: multi-allocatable
 *    devices outside SHARES (below; without DRAConsumableCapacity the engine's availability bit
 *    over-counts them) and devices with binding conditions with the gate on make a plan never
 *    direct; a share recorded on a device that is not multi-allocatable, or an exclusive
 *    allocation of a multi-allocatable one (the availability bit counts it free), turns direct
 *    answers off; upstream-bug mode, a step budget, the allocator's shortcuts off or
 *    the reference allocator turn them off; counter consumption is exact only when no counter is
 *    over its capacity (a pool with one is refused by the allocator as a whole: e->nneg), per
 *    pool (release 1.35 and later), and with one entry per counter and device; a matchAttribute
 *    column holding versions is never direct (the table merges versions of equal precedence,
 *    the allocator compares texts).
 * SHARES (served "direct-shares"): FIRST whose rows include multi-allocatable devices under
 * DRAConsumableCapacity (fractional GPU memory: a request for part of a device's capacity).
 * Why the greedy path is still the search's answer, check by check (DRA-SEMANTICS 2.5, 2.6,
 * 2.11):
 *  - order: from the 1.36 profile on (beh.combos) within a request the search resumes after the
 *    device it took, so a request takes a device at most once and the first k candidates are
 *    its first leaf. With permutations (1.34, 1.35) every level starts over, so a request of
 *    several devices may take one multi-allocatable device twice, the second time against the
 *    capacity its first pick holds: never direct; a request of one device has one level, which
 *    starts at the origin in both orders (its first candidate, as from 1.36 on);
 *  - exclusivity: a multi-allocatable device is never taken, only an exclusive allocation
 *    blocks it (step 2); the availability bit counts it free, so an exclusive allocation of one
 *    in the state (not made by the allocators under the gate) turns direct answers off;
 *  - counters: step 4 charges them on the first share only (skipped while the device has
 *    capacity in use), so the check depends on the capacity in use: a multi-allocatable row
 *    that consumes counters makes the plan never direct;
 *  - capacity (2.11): the search checks capacityFits before allocateDevice and again in step 7,
 *    both against the state's aggregated capacity plus what this call is allocating on the
 *    device; a request takes the device once, so what it allocates there is nothing but its
 *    own consumption: the check is the capacity signature's fit bit (summary.c: each capacity of
 *    the row, consumed with defaults and policy rounding, plus what the shares in the state
 *    consume, within the capacity; re-read on every commit and release of the row). The bit
 *    of a dedicated row is its static check (no shares on it: set-up), so the pick does not
 *    change any other candidate's check and a greedy path that stops short is unsatisfiable
 *    (as in FIRST; counter-consuming dedicated rows keep FIRST's fallback). A request without
 *    capacity requests has such a signature too when it matches a multi-allocatable device
 *    with capacities (it consumes the defaults); a row without one is never direct;
 *  - binding conditions, taints, selectors and the rest as in FIRST; MATCH and PAIR over
 *    multi-allocatable rows are never direct (constraints and shares are not argued here);
 *    upstream-bug mode (leaks on rejection, rounding with Quantity.Value) turns direct answers
 *    off as for every path.
 * GROUPS (served "direct-groups"): 1.37's compatibility groups (KEP-5963, DRA-SEMANTICS and
 * RELEASES.md 2; core/alloc/claims.c, dra__acall_cg_place and dra__acall_cg_skip) over devices of
 * counter sets whose consuming devices declare groups, with the rule enforced
 * (DRADeviceCompatibilityGroups, experimental variant) or with the gate off from 1.37 on (the
 * version-skew skip). allocateDevice checks the rule where it checks the counters, before them,
 * per consumesCounters entry, each counter set on its own, against the set's state: the pool's
 * devices in use folded in slice order (the baseline) and the devices picked before in the same
 * call (a rolling intersection, undone on backtrack; the skip judges the baseline alone). Why the
 * answers stay the search's, check by check:
 *  - the baseline: counters.c keeps each grouped set's fold of its devices in use (a kind - none,
 *    without groups, with groups and their intersection - the fold's result whatever its order,
 *    except for a mixed set) and counts a row the baseline refuses as one more failing counter
 *    entry, so the availability bit the scan reads is the check of a claim of one device: such
 *    a row is no candidate, exactly as the allocator skips it, and every check narrows as
 *    devices join, so no pick of the call can make it acceptable again (the summaries, the
 *    All-blocked flags and the fit bounds stay necessary conditions; see counters.c);
 *  - the picks of the call: a candidate is re-judged with the groups of the rows picked before
 *    on its sets folded in (cg_after, beside fits_after; each pick was admitted in turn, so they
 *    are of one kind with the baseline); a refusal there depends on the picks, as a counter that
 *    no longer fits, and is handled as the counters are: the greedy path that still reaches k
 *    devices is the search's first leaf, one that stops short is the search's to answer
 *    (FALLBACK), a matchAttribute group whose first k do not join is the search's, a pair is
 *    judged with the first device's groups folded in;
 *  - a mixed set (its devices in use both have and lack groups: the fold keeps whichever it
 *    meets first, so the answer depends on the slices' order; the allocators never make such a
 *    state, a state given to the engine may hold one): the availability bit refuses nothing on
 *    it, and any candidate on it sends the answer to the allocator (FALLBACK);
 *  - a device whose entries name one grouped set twice (the second entry meets the first's
 *    fold) makes the plan never direct; with the skip a device declaring groups is never
 *    eligible; without the counter columns for groups (more than 64 names, an entry with more
 *    names than the fold keeps: cg_on false) a plan over grouped rows is never direct;
 *  - MULTI: only one request has devices with counters, and groups live on counter entries: the
 *    others' devices never meet its sets.
 * A share's result carries consumedCapacity for every capacity of the device (defaults filled
 * in, policy rounding: dra__cap_consumed, as allocateDevice records it) and its shareID,
 * derived as the allocator derives it (dra__share_id: share_seed, the claim, the result's
 * index, the device, the first attempt from the device's live share count (rs[r].use: no
 * exclusive allocation on it, set-up) that is not a live share of the device in the state);
 * the answer's other results are on other devices, so no attempt is moved by them.
 * The result is built as the allocator builds it (core/alloc/claims.c): one result per device
 * (request name - "req/sub" for a subrequest -, driver, pool, device, its model row, the
 * request's tolerations, the device's binding conditions when the gate is on), the class
 * configs of each request's class once (naming every request of the class), then the claim's
 * configs that name no request, a request or the chosen subrequest, and the node selector of a
 * node-local slice (metadata.name In [node]). Strings are the model's, the device table's (driver
 * and pool) and the engine's (valid while the engine and its table live). What a result names
 * (the device's name, its model row, its pool) comes from the row's 16-byte entry e->rid
 * (set-up, refreshed by slice updates: an update keeps a slice's devices, names and count), so
 * the model device's line is read only for a device with binding conditions.
 * Verification: with DRA_DEBUG >= 3 or opts.verify_direct, every direct answer is compared with
 * the allocator's on the same node (place.c, try_node); a difference is DRA_EINTERNAL.
 *
 * Cost: set-up O(rows); a plan O(rows) per alternative, a bitset of rows each; an answer
 * O(words of the node's range + candidates looked at; PAIR: their product), one arena
 * allocation for the result (SHARES: one more for the shareIDs and consumedCapacity, and per
 * share one XXH3 hash of the names, plus a state lookup per attempt while the device has
 * shares). Placed into a caller's slot (dra_engine_place_slot) with room: no arena allocation,
 * and a slot holding the same plan's template gets only the per-pod fields written.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "engine/engine_impl.h"

#define NONE DRA_ENGINE_NONE

/* ---- set-up ---------------------------------------------------------------------------------- */

/* The model row of table row r (dra_result_t.row - 1). */
static uint32_t model_row(const dra_engine_t *e, uint32_t r)
{
    const dra_device_t *d = e->t->dev[r];
    uint32_t si = e->slice_index_ok ? d->slice->index : e->t->slice[r];
    return e->slice_row0[si] + d->index;
}

/* What the results of rows [begin, end) name (e->rid): the device, its model row, its pool. */
static void rid_fill(dra_engine_t *e, uint32_t begin, uint32_t end)
{
    const dra_table_t *t = e->t;
    for (uint32_t r = begin; r < end && r < t->nrows; r++) {
        const dra_device_t *d = t->dev[r];
        e->rid[r] = (struct dra__rid){
            .device = d ? d->name : NULL,
            .row1 = d ? e->slice_row0[t->slice[r]] + d->index + 1 : 0,
            .pool = t->pool[r] & 0x7fffffffu,
            .bind = d && (d->binding_conditions || d->nbinding_conditions ||
                          d->binding_failure_conditions || d->nbinding_failure_conditions)};
    }
}

/* A node whose range is in the allocator's search order, with nothing the scan cannot judge. */
static bool node_direct(const dra_engine_t *e, uint32_t n)
{
    const dra_table_t *t = e->t;
    uint32_t tn = e->tnode[n];
    if ((e->nhazard && e->hz[n]) || tn == NONE)
        return false;
    for (uint32_t r = t->nodes[tn].begin; r < t->nodes[tn].end; r++) {
        if (dra__row_node(e, r) != n || !t->dev[r])
            return false;
        if (e->beh.bc_last && (t->flags[r] & DRA_ROW_BINDING))
            return false; /* a pool with binding conditions may be moved last */
        if (r > t->nodes[tn].begin && !e->beh.sort_slices && t->pool[r] == t->pool[r - 1] &&
            t->slice[r] < t->slice[r - 1])
            return false; /* slices in model order, the table has them by name */
    }
    return true;
}

int dra__direct_setup(dra_engine_t *e)
{
    const dra_table_t *t = e->t;
    dra_arena_init(&e->vscratch, 16 * 1024);
    e->ps = &e->pslot;
    e->nrange = dra_mem_calloc((size_t)e->nnodes + 1, sizeof *e->nrange);
    if (!e->nrange)
        return DRA_ENOMEM;
    for (uint32_t n = 0; n < e->nnodes; n++) {
        uint32_t tn = e->tnode[n];
        e->nrange[n].begin = tn == NONE ? 0 : t->nodes[tn].begin;
        e->nrange[n].end = tn == NONE ? 0 : t->nodes[tn].end;
        e->nrange[n].name = e->m->nodes[n]->name;
    }
    for (uint32_t r = 0; r < t->nrows && !e->any_groups; r++)
        e->any_groups = t->dev[r] && dra__device_has_groups(t->dev[r]);
    e->direct_on = e->alloc->kind == DRA_ALLOC_FAST && dra_fast_shortcuts(e->alloc->fast) &&
                   !e->beh.bugs && !e->all_brute;
    if (!e->direct_on)
        return DRA_OK;
    /* the node selector of a result from a node-local slice, per node: metadata.name In [node]
     * (as the allocator builds it, core/alloc/claims.c) */
    e->nsel = dra_mem_calloc((size_t)e->nnodes + 1, sizeof *e->nsel);
    if (!e->nsel)
        return DRA_ENOMEM;
    for (uint32_t n = 0; n < e->nnodes; n++) {
        struct dra__nsel *x = &e->nsel[n];
        x->val = e->nrange[n].name;
        x->req = (dra_ns_req_t){.key = "metadata.name", .op = DRA_NS_IN, .op_raw = "In",
                                .values = &x->val, .nvalues = 1};
        x->term = (dra_ns_term_t){.fields = &x->req, .nfields = 1};
        x->ns = (dra_node_selector_t){.terms = &x->term, .nterms = 1};
    }
    for (uint32_t n = 0; n < e->nnodes; n++)
        e->nrange[n].direct = node_direct(e, n);
    DRA_ASSERT_INTERNAL(t->npools <= 0x7fffffffu); /* rid's pool field */
    e->rid = dra_arena_alloc(&e->arena, ((size_t)t->nrows + 1) * sizeof *e->rid, 64);
    if (!e->rid)
        return DRA_ENOMEM;
    rid_fill(e, 0, t->nrows);
    /* a share or consumed capacity recorded on a device that is not multi-allocatable makes the
     * allocator leave its scan for that device, an exclusive allocation of a multi-allocatable
     * one is in use while the availability bit counts it free: not judged here */
    for (uint32_t r = 0; e->beh.cc && r < t->shared_begin && e->direct_on; r++) {
        const dra_device_t *d = t->dev[r];
        if (!d)
            continue;
        const dra_table_pool_t *pl = &t->pools[t->pool[r]];
        unsigned f = dra_alloc_state_row_flags(e->state, model_row(e, r), pl->driver ? pl->driver : "",
                                               pl->name ? pl->name : "", d->name ? d->name : "");
        if (f & ((t->flags[r] & DRA_ROW_MULTI_ALLOC) ? DRA_STATE_EXCL
                                                     : (DRA_STATE_CAP | DRA_STATE_SHARE)))
            e->direct_on = false;
    }
    if (!dra_arena_alloc(&e->vscratch, 1, 1)) /* warm outside timed regions */
        return DRA_ENOMEM;
    dra_arena_reset(&e->vscratch);
    return DRA_OK;
}

/* ---- plans ----------------------------------------------------------------------------------- */

static bool listed(const char *const *names, uint32_t n, const char *name)
{
    for (uint32_t i = 0; i < n; i++)
        if (strcmp(names[i] ? names[i] : "", name) == 0)
            return true;
    return false;
}

/* A body the allocator's validation accepts, ExactCount 1..32, without admin access, and
 * without capacity requests unless cap_ok (FIRST with DRAConsumableCapacity). */
static bool direct_body(const dra_engine_t *e, const dra_exact_request_t *b, bool cap_ok)
{
    if (!b || b->mode != DRA_MODE_EXACT_COUNT || b->admin_access || b->has_admin_access ||
        ((b->has_capacity || b->ncap_requests > 0) && !(cap_ok && e->beh.cc)) || !b->class_name ||
        !dra_model_find_class(e->m, b->class_name))
        return false;
    int64_t k = b->has_count ? b->count : 1;
    if (k < 1 || k > DRA_ALLOC_MAX_RESULTS)
        return false;
    for (uint32_t i = 0; i < b->nselectors; i++)
        if (!b->selectors[i].cel)
            return false;
    return true;
}

/* The claim's constraints as the direct answers serve them: one matchAttribute over every
 * request (*all its attribute: PAIR), or per request at most one matchAttribute over that request
 * alone (own[ri], NULL for none), distinctAttribute only outside every request. false when the
 * claim has a constraint the direct answers do not serve. */
static bool constraint_scope(const dra_engine_t *e, const dra_claim_t *c, const char **all,
                             const char **own)
{
    *all = NULL;
    for (uint32_t ri = 0; ri < c->nrequests; ri++)
        own[ri] = NULL;
    if (c->nconstraints && e->beh.lists)
        return false;
    for (uint32_t x = 0; x < c->nconstraints; x++) {
        const dra_constraint_t *cn = &c->constraints[x];
        uint32_t in = 0, last = 0;
        for (uint32_t ri = 0; ri < c->nrequests; ri++)
            if (cn->nrequests == 0 ||
                listed(cn->requests, cn->nrequests, c->requests[ri].name ? c->requests[ri].name : "")) {
                in++;
                last = ri;
            }
        if (cn->match_attribute) {
            if (in == 0)
                continue;
            if (in == 1 && c->nrequests > 1) {
                if (own[last])
                    return false;
                own[last] = cn->match_attribute;
            } else if (in == c->nrequests && !*all) {
                *all = cn->match_attribute;
            } else {
                return false; /* two over every request, or one over some of several */
            }
        } else if (cn->distinct_attribute && e->beh.cc) {
            if (in)
                return false;
        } else {
            return false; /* an empty constraint: Fatal, not indexed anyway */
        }
    }
    if (*all)
        for (uint32_t ri = 0; ri < c->nrequests; ri++)
            if (own[ri])
                return false;
    return true;
}

/* The table column of a matchAttribute constraint's attribute: *col NONE when no row has it
 * (nobody can join). false when the direct answers do not serve the column (versions: equal
 * precedence is one code, the allocator compares texts). */
static bool match_column(const dra_engine_t *e, const char *attr, uint32_t *col)
{
    *col = NONE;
    const dra_table_attr_t *ta = dra_table_attr_by_name(e->t, attr, strlen(attr));
    if (!ta)
        return true;
    if (ta->kinds & (1u << DRA_ATTR_VERSION))
        return false;
    *col = (uint32_t)(ta - e->t->attrs);
    return true;
}

/* The row's counter entries name one counter each (the allocator sums a device's consumption per
 * counter; the engine checks entries one by one). */
static bool entries_distinct(const dra_engine_t *e, uint32_t r)
{
    for (uint32_t i = dra__ent_b(e, r); i < dra__ent_e(e, r); i++)
        for (uint32_t j = dra__ent_b(e, r); j < i; j++)
            if (dra__ent_ctr(e, r, i) == dra__ent_ctr(e, r, j))
                return false;
    return true;
}

/* Two devices whose capacities give a request the same consumedCapacity: the same names,
 * values (and their format) and request policies, in order. */
static bool same_caps(const dra_device_t *a, const dra_device_t *b)
{
    if (a->ncaps != b->ncaps)
        return false;
    for (uint32_t c = 0; c < a->ncaps; c++) {
        const dra_capacity_t *x = &a->caps[c], *y = &b->caps[c];
        if (x->policy != y->policy || x->value.lo != y->value.lo || x->value.hi != y->value.hi ||
            x->value.exp != y->value.exp || x->value.neg != y->value.neg ||
            x->value.format != y->value.format ||
            (x->name != y->name && strcmp(x->name ? x->name : "", y->name ? y->name : "")))
            return false;
    }
    return true;
}

/* The consumedCapacity of a share of dv for body b (as allocateDevice records it: every
 * capacity, defaults filled in, policy rounding) into cs[0..dv->ncaps). */
static void share_consumed(const dra_engine_t *e, const dra_exact_request_t *b,
                           const dra_device_t *dv, dra_consumed_t *cs)
{
    dra__capmode_t m = dra__capmode(&e->beh);
    char err[8];
    for (uint32_t c = 0; c < dv->ncaps; c++) {
        const dra_capacity_t *cap = &dv->caps[c];
        dra__aq_t q = 0;
        cs[c].name = cap->name;
        /* a request the arithmetic cannot represent never gets here (plan.c: brute force) */
        (void)dra__cap_consumed_m(&m, dra__cap_request_for(b, dv, cap->name, m.qualified), cap, &q,
                                  err, sizeof err);
        dra__aq_to(q, &cap->value, &cs[c].value);
    }
}

/* The alternative's cached consumedCapacity for dv, NULL when not cached. */
static const dra_consumed_t *cached_consumed(const dra__dalt_t *al, const dra_device_t *dv)
{
    for (uint32_t i = 0; i < al->ncc; i++)
        if (al->cc[i].rep == dv || same_caps(al->cc[i].rep, dv))
            return al->cc[i].cons;
    return NULL;
}

/* Cache the consumedCapacity of a share of dv (plan time; nothing once DRA__DCONS_MAX lists
 * are cached). DRA_ENOMEM. */
static int cache_consumed(dra_engine_t *e, dra__dalt_t *al, const dra_device_t *dv)
{
    if (!dv->ncaps || al->ncc == DRA__DCONS_MAX || cached_consumed(al, dv))
        return DRA_OK;
    if (!al->cc && !(al->cc = dra_arena_calloc(&e->arena, DRA__DCONS_MAX, sizeof *al->cc, 8)))
        return DRA_ENOMEM;
    dra_consumed_t *cs = dra_arena_calloc(&e->arena, dv->ncaps, sizeof *cs, 8);
    if (!cs)
        return DRA_ENOMEM;
    share_consumed(e, al->body, dv, cs);
    al->cc[al->ncc++] = (struct dra__dcons){.rep = dv, .cons = cs};
    return DRA_OK;
}

/* The device has a capacity with a validRange policy (DRAFractionalCapacityRange's rounding). */
static bool range_policy(const dra_device_t *dv)
{
    for (uint32_t c = 0; c < dv->ncaps; c++)
        if (dv->caps[c].policy && dv->caps[c].policy->has_valid_range)
            return true;
    return false;
}

/* Some device consuming one of the counter sets row r consumes declares compatibilityGroups for
 * it (KEP-5963): the group rule, or with the gate off 1.37's skip, may reject the row. Without
 * counter entries (DRAPartitionableDevices off) the device is never offered. O(set sizes). */
static bool row_grouped(const dra_engine_t *e, uint32_t r)
{
    if (!e->rc_pat)
        return dra__device_has_groups(e->t->dev[r]);
    for (uint32_t i = dra__ent_b(e, r); i < dra__ent_e(e, r); i++) {
        uint32_t st = e->ctr_set[dra__ent_ctr(e, r, i)];
        for (uint32_t j = e->sr_off[st]; j < e->sr_off[st] + e->sr_n[st]; j++)
            if (dra__device_has_groups(e->t->dev[e->srows[j]]))
                return true;
    }
    return dra__device_has_groups(e->t->dev[r]);
}

/* Static eligibility of the signature's node-range rows in [begin, end) for the alternative's
 * body (see the top; shares_ok: multi-allocatable rows may be taken, FIRST): 1, 0 when some
 * row makes the plan never direct, DRA_ENOMEM. */
static int fill_ok_rows(dra_engine_t *e, dra__dalt_t *al, const sig_t *s, bool shares_ok,
                        uint32_t begin, uint32_t end)
{
    const dra_table_t *t = e->t;
    const dra_exact_request_t *b = al->body;
    for (uint32_t r = begin; r < end && r < t->shared_begin; r++) {
        if (dra__row_node(e, r) == NONE || !dra_bit_get(s->match, r) || dra_bit_get(s->err, r))
            continue;
        const dra_device_t *dv = t->dev[r];
        uint8_t fl = t->flags[r];
        bool multi = (fl & DRA_ROW_MULTI_ALLOC) != 0;
        if (multi && (!e->beh.cc || (!e->beh.combos && al->k > 1) || !shares_ok))
            return 0; /* without DRAConsumableCapacity the engine counts the device free
                             while in use (its summaries over-count); with permutations
                             (<= 1.35) a request of several devices may take it twice;
                             shares: FIRST only */
        if (e->beh.binding && (fl & DRA_ROW_BINDING))
            return 0;
        if (!e->beh.binding && dv->nbinding_conditions > 0)
            continue;
        /* GatherPools offers no device of a slice with counter sets without
         * DRAPartitionableDevices, nor from 1.35 on (such a slice is the pool's counter slice) */
        if (dv->slice && dv->slice->ncounter_sets > 0 && (!e->beh.pd || e->beh.pool_counters))
            continue;
        if (dv->nconsumes > 0 && !e->beh.pd)
            continue;
        /* the capacity check of a dedicated device is static (no shares on it: set-up); a
         * multi-allocatable one's reads what its shares left (below). A device the check fails
         * the call on (1.37, 1.38-pre) has its plan with brute force (plan.c); 1.37's
         * fractional ranges (DRAFractionalCapacityRange) are left to the allocator. */
        if (e->beh.cc && e->beh.fractional && range_policy(dv))
            return 0;
        if (e->beh.cc && (!multi || !dv->ncaps)) {
            int fit = dra__eng_cap_fits(e, b, dv, NULL);
            if (dra__cap_is_fatal(e, fit))
                return 0;
            if (fit != 1)
                continue;
        }
        /* compatibility groups (1.37; GROUPS at the top): the baseline's refusal is in the
         * availability bit, the picks of the call are judged per answer; a device declaring
         * groups under the version-skew skip is never allocatable. Without the columns
         * (cg_on false) a plan over such rows is left to the allocator. */
        if (e->any_groups && dv->nconsumes > 0 && (e->beh.cg || e->beh.cg_skip)) {
            if (!e->cg_on) {
                if (row_grouped(e, r))
                    return 0;
            } else if (e->beh.cg_skip && (e->cg_row[r] & DRA__CG_DECL)) {
                continue;
            } else if (e->rcg_off[r] < e->rcg_off[r + 1]) {
                if (e->cg_row[r] & DRA__CG_DUP)
                    return 0; /* the second entry meets the first's fold: not argued here */
                al->cg = true;
            }
        }
        if (e->beh.taints && dra__taint_blocks(dv, b->tolerations, b->ntolerations))
            continue;
        if (multi) {
            if (dv->nconsumes > 0)
                return 0; /* its counters are charged on the first share only (2.6 step 4):
                                 the check depends on the capacity in use */
            if (dv->ncaps && !s->capbody)
                return 0; /* the capacity left is read from a capacity signature's fit
                             bits (every request over such a device has one: plan.c) */
            al->multi = true;
            if (cache_consumed(e, al, dv))
                return DRA_ENOMEM;
        }
        if (dv->nconsumes > 0) {
            if (!e->beh.pool_counters || !e->rc_pat || !entries_distinct(e, r))
                return 0;
            al->cons = true;
        }
        dra_bit_set(al->ok, r);
    }
    return 1;
}

/* Capacity profiles at most that an alternative keeps its consumed lists by (ccp_fill). */
#define DRA__CCP_MAX 4096

/* The alternative's consumed list per capacity profile (al->ccp): cached_consumed of the
 * profile's first row's device, the list every device of the profile gets (its capacities are
 * the same: caps_same, summary.c, implies same_caps, and same_caps of one device and another
 * of its profile agree on every cached representative, so the first match is the same entry).
 * Rebuilt after every fill of the rows (the only time cc grows). DRA_ENOMEM. */
static int ccp_fill(dra_engine_t *e, dra__dalt_t *al)
{
    if (!al->multi || !al->ncc || !e->cxp || !e->ncxp || e->ncxp > DRA__CCP_MAX)
        return DRA_OK;
    if (!al->ccp && !(al->ccp = dra_arena_calloc(&e->arena, e->ncxp, sizeof *al->ccp, 8)))
        return DRA_ENOMEM;
    for (uint32_t p = 0; p < e->ncxp; p++)
        al->ccp[p] = cached_consumed(al, e->t->dev[e->cxp_row[p]]);
    return DRA_OK;
}

/* fill_ok_rows, then the consumed lists by profile (ccp_fill). */
static int fill_ok_range(dra_engine_t *e, dra__dalt_t *al, const sig_t *s, bool shares_ok,
                         uint32_t begin, uint32_t end)
{
    int rc = fill_ok_rows(e, al, s, shares_ok, begin, end);
    if (rc == 1 && ccp_fill(e, al))
        return DRA_ENOMEM;
    return rc;
}

static int fill_ok(dra_engine_t *e, dra__dalt_t *al, const sig_t *s, bool shares_ok)
{
    return fill_ok_range(e, al, s, shares_ok, 0, e->t->shared_begin);
}

static const char *arena_str(dra_engine_t *e, const char *a, const char *b)
{
    size_t la = strlen(a), lb = b ? strlen(b) + 1 : 0;
    char *x = dra_arena_alloc(&e->arena, la + lb + 1, 1);
    if (x) {
        memcpy(x, a, la);
        if (b) {
            x[la] = '/';
            memcpy(x + la + 1, b, lb - 1);
        }
        x[la + lb] = 0;
    }
    return x;
}

/* The allocation's configs in the allocator's order (core/alloc/claims.c): the class configs of
 * each request's class, once per class, naming every request of that class; then the claim's
 * that name no request, a request or (firstAvailable) the chosen subrequest, once each; from
 * 1.37 on, a config naming every request gets requests=nil. */
static int fill_configs(dra_engine_t *e, const dra_claim_t *c, dra__dalt_t *const *chosen,
                        dra_alloc_config_t **out, uint32_t *nout)
{
    uint32_t n = 0, nreq = c->nrequests;
    const dra_device_class_t *cls[DRA__DIRECT_MAX_REQ];
    for (uint32_t ri = 0; ri < nreq; ri++) {
        cls[ri] = dra_model_find_class(e->m, chosen[ri]->body->class_name);
        n += cls[ri]->nconfigs; /* at most: a class seen before adds none */
    }
    n += c->nconfigs;
    dra_alloc_config_t *cfg = dra_arena_calloc(&e->arena, n + 1, sizeof *cfg, 8);
    const char **reqv = dra_arena_alloc(&e->arena, (size_t)nreq * nreq * sizeof *reqv, 8);
    if (!cfg || !reqv)
        return DRA_ENOMEM;
    uint32_t m = 0;
    for (uint32_t ri = 0; ri < nreq; ri++) {
        bool seen = false;
        for (uint32_t rj = 0; rj < ri && !seen; rj++)
            seen = cls[rj] == cls[ri];
        if (seen)
            continue; /* the first request of the class has its configs name this one too */
        const char **names = &reqv[(size_t)nreq * ri];
        uint32_t nn = 0;
        for (uint32_t rj = ri; rj < nreq; rj++)
            if (rj == ri || cls[rj] == cls[ri])
                names[nn++] = chosen[rj]->req;
        for (uint32_t x = 0; x < cls[ri]->nconfigs; x++) {
            dra_alloc_config_t *cf = &cfg[m++];
            cf->source = DRA_CONFIG_FROM_CLASS;
            cf->opaque = cls[ri]->configs[x].opaque;
            cf->requests = names;
            cf->nrequests = nn;
        }
    }
    for (uint32_t x = 0; x < c->nconfigs; x++) {
        const dra_claim_config_t *cc = &c->configs[x];
        bool hit = cc->nrequests == 0;
        for (uint32_t ri = 0; ri < nreq && !hit; ri++) {
            const char *pn = c->requests[ri].name ? c->requests[ri].name : "";
            hit = listed(cc->requests, cc->nrequests, pn) ||
                  (c->requests[ri].nfirst_available &&
                   listed(cc->requests, cc->nrequests, chosen[ri]->req));
        }
        if (!hit)
            continue;
        dra_alloc_config_t *cf = &cfg[m++];
        cf->source = DRA_CONFIG_FROM_CLAIM;
        cf->requests = cc->requests;
        cf->nrequests = cc->nrequests;
        cf->opaque = cc->opaque;
    }
    for (uint32_t k = 0; e->beh.config_all_nil && k < m; k++) { /* 1.37+: "applies to all" */
        bool all = cfg[k].nrequests > 0;
        for (uint32_t ri = 0; ri < nreq && all; ri++)
            all = listed(cfg[k].requests, cfg[k].nrequests,
                         c->requests[ri].name ? c->requests[ri].name : "") ||
                  (c->requests[ri].nfirst_available &&
                   listed(cfg[k].requests, cfg[k].nrequests, chosen[ri]->req));
        if (all) {
            cfg[k].requests = NULL;
            cfg[k].nrequests = 0;
        }
    }
    *out = cfg;
    *nout = m;
    return DRA_OK;
}

/* Alternative al of request r (body, subrequest name or NULL): signature si, static
 * eligibility. 0 not direct, 1 ok, <0 error. */
static int alt_init(dra_engine_t *e, dra__dalt_t *al, uint32_t si, const dra_request_t *r,
                    const dra_exact_request_t *b, const char *sub, bool shares_ok)
{
    memset(al, 0, sizeof *al);
    al->sig = si;
    al->body = b;
    al->k = (uint32_t)(b->has_count ? b->count : 1);
    const sig_t *s = &e->sigs[si];
    if (s->shany)
        return 0;
    size_t nw = dra_bitset_words(e->t->nrows_padded);
    al->ok = dra_arena_alloc(&e->arena, nw * sizeof *al->ok + 8, DRA_TABLE_ALIGN);
    al->req = arena_str(e, r->name ? r->name : "", sub);
    if (!al->ok || !al->req)
        return DRA_ENOMEM;
    memset(al->ok, 0, nw * sizeof *al->ok + 8);
    al->cfit = s->capbody ? s->cfit : NULL;
    return fill_ok(e, al, s, shares_ok);
}

/* Whether plan p may be answered directly at all, before its rows are looked at: the one place
 * that says "never direct" for a claim shape, a request field or a constraint kind the direct
 * answers do not argue about (a new one belongs here). Then dra__direct_plan fits the claim to
 * one of the kinds and each alternative's rows may still make it never direct (fill_ok_range). */
static bool direct_eligible(const dra_engine_t *e, const plan_t *p)
{
    if (!e->direct_on || !p->indexed || p->nclaims != 1 || p->anyall)
        return false;
    const dra_claim_t *c = p->claims[0];
    if (c->nrequests < 1 || c->nrequests > DRA__DIRECT_MAX_REQ || p->nreqs != c->nrequests)
        return false;
    for (uint32_t ri = 0; ri < c->nrequests; ri++) {
        const dra_request_t *r = &c->requests[ri];
        uint32_t nb = r->nfirst_available ? r->nfirst_available : 1;
        if (p->reqs[ri].nalt != nb || (!r->nfirst_available && !r->exactly))
            return false;
        /* capacity requests: FIRST alone (one request) argues about shares */
        for (uint32_t b = 0; b < nb; b++)
            if (!direct_body(e, r->nfirst_available ? &r->first_available[b] : r->exactly,
                             c->nrequests == 1))
                return false;
    }
    return true;
}

/* Whether no row can be a candidate of two parts: their signatures' matching and error rows
 * in the node ranges are disjoint. O(rows / 64) per pair of alternatives. */
static bool parts_disjoint(const dra_engine_t *e, const dra__direct_t *d, uint32_t begin,
                           uint32_t end)
{
    if (begin >= end)
        return true;
    uint32_t w0 = begin >> 6, w1 = ((end - 1) >> 6) + 1;
    for (uint32_t i = 0; i < d->nalt; i++)
        for (uint32_t j = i + 1; j < d->nalt; j++) {
            const sig_t *a = &e->sigs[d->alt[i].sig], *b = &e->sigs[d->alt[j].sig];
            for (uint32_t w = w0; w < w1; w++) {
                uint64_t x = (a->match[w] | a->err[w]) & (b->match[w] | b->err[w]);
                if (w == w0)
                    x &= ~(uint64_t)0 << (begin & 63);
                if (w == w1 - 1 && (end & 63))
                    x &= ((uint64_t)1 << (end & 63)) - 1;
                if (x)
                    return false;
            }
        }
    return true;
}

int dra__direct_plan(dra_engine_t *e, plan_t *p)
{
    memset(&p->d, 0, sizeof p->d);
    if (!direct_eligible(e, p))
        return DRA_OK;
    const dra_claim_t *c = p->claims[0];
    const char *all = NULL, *own[DRA__DIRECT_MAX_REQ];
    if (!constraint_scope(e, c, &all, own))
        return DRA_OK;
    dra__direct_t d = {0};
    d.attr = NONE;
    const dra_request_t *r0 = &c->requests[0];
    if (c->nrequests == 2 && all) { /* PAIR: one device each, one matchAttribute over both */
        if (r0->nfirst_available || c->requests[1].nfirst_available)
            return DRA_OK;
        d.kind = DRA__DIRECT_PAIR;
    } else if (c->nrequests == 1) { /* FIRST (over the subrequests) or MATCH */
        if (all && r0->nfirst_available)
            return DRA_OK;
        d.kind = all ? DRA__DIRECT_MATCH : DRA__DIRECT_FIRST;
    } else { /* MULTI: requests of one alternative each, FIRST or MATCH on their own */
        if (all)
            return DRA_OK;
        for (uint32_t ri = 0; ri < c->nrequests; ri++)
            if (c->requests[ri].nfirst_available)
                return DRA_OK;
        d.kind = DRA__DIRECT_MULTI;
    }
    if (all && !match_column(e, all, &d.attr))
        return DRA_OK;
    d.nalt = p->nalts;
    d.alt = dra_arena_calloc(&e->arena, d.nalt, sizeof *d.alt, 8);
    if (!d.alt)
        return DRA_ENOMEM;
    bool shares_ok = d.kind == DRA__DIRECT_FIRST;
    for (uint32_t i = 0; i < d.nalt; i++) {
        const dra_request_t *r = d.kind == DRA__DIRECT_PAIR || d.kind == DRA__DIRECT_MULTI
                                     ? &c->requests[i]
                                     : r0;
        const dra_exact_request_t *b = r->nfirst_available ? &r->first_available[i] : r->exactly;
        if (!shares_ok && (b->has_capacity || b->ncap_requests > 0))
            return DRA_OK; /* capacity requests: FIRST only */
        int rc = alt_init(e, &d.alt[i], p->alts[i].sig, r, b,
                          r->nfirst_available ? (b->name ? b->name : "") : NULL, shares_ok);
        if (rc <= 0)
            return rc < 0 ? rc : DRA_OK;
        d.alt[i].attr = NONE;
        if (d.kind == DRA__DIRECT_MULTI && own[i] && !match_column(e, own[i], &d.alt[i].attr))
            return DRA_OK;
        d.alt[i].match = d.kind == DRA__DIRECT_MULTI && own[i];
        d.ncons += d.alt[i].cons;
        d.cons |= d.alt[i].cons;
        d.multi |= d.alt[i].multi;
        d.cg |= d.alt[i].cg;
        d.fallible |= d.alt[i].cons && d.alt[i].k > 1;
    }
    if (d.kind == DRA__DIRECT_PAIR && (d.alt[0].k != 1 || d.alt[1].k != 1))
        return DRA_OK;
    /* MULTI: the requests' candidates never meet (no row of two requests, at most one request
     * over devices with counters, no shares), so each request's answer is its own */
    if (d.kind == DRA__DIRECT_MULTI &&
        (d.ncons > 1 || d.multi || !parts_disjoint(e, &d, 0, e->t->shared_begin)))
        return DRA_OK;
    if (d.kind == DRA__DIRECT_FIRST) {
        for (uint32_t i = 0; i < d.nalt; i++) { /* the configs of each subrequest chosen */
            dra__dalt_t *chosen[1] = {&d.alt[i]};
            if (fill_configs(e, c, chosen, &d.alt[i].cfg, &d.alt[i].ncfg))
                return DRA_ENOMEM;
        }
    } else { /* every request's one alternative: the claim's configs on alternative 0 */
        dra__dalt_t *chosen[DRA__DIRECT_MAX_REQ];
        for (uint32_t i = 0; i < d.nalt; i++)
            chosen[i] = &d.alt[i];
        if (fill_configs(e, c, chosen, &d.alt[0].cfg, &d.alt[0].ncfg))
            return DRA_ENOMEM;
    }
    if (d.multi) {
        d.share_seed = dra_fast_share_seed(e->alloc->fast);
        d.share_gen = dra__alloc_state_share_gen(e->state);
        dra__share_id_claim(c, d.sid_f, d.sid_n); /* measured once, for every answer */
        d.sid_ok = true;
    }
    p->d = d;
    return DRA_OK;
}

/* ---- answers --------------------------------------------------------------------------------- */

enum { PICKED = 1, FALLBACK = 2 }; /* the pickers' answers besides 0 (unsatisfiable) */

/* The candidate rows of an alternative in the node's range: eligible and available, in row
 * order, a word at a time. */
typedef struct scan {
    const uint64_t *ok, *av;
    uint32_t begin, end, w, wend;
    uint64_t bits;
} scan_t;

static DRA_ALWAYS_INLINE void scan_init(scan_t *sc, const dra_engine_t *e, const dra__dalt_t *al,
                                        uint32_t begin, uint32_t end)
{
    sc->ok = al->ok;
    sc->av = e->avb;
    sc->begin = begin;
    sc->end = end;
    sc->w = begin >> 6;
    sc->wend = end ? ((end - 1) >> 6) + 1 : 0;
    sc->bits = begin < end ? (sc->ok[sc->w] & sc->av[sc->w]) & (~(uint64_t)0 << (begin & 63)) : 0;
    if (begin >= end)
        sc->w = sc->wend;
}

/* The next candidate row, NONE at the end. The scan and the greedy picker are in line in
 * dra__direct_try: the scan's state stays in registers, no call a pick. */
static DRA_ALWAYS_INLINE uint32_t scan_next(scan_t *sc)
{
    while (!sc->bits) {
        if (++sc->w >= sc->wend)
            return NONE;
        sc->bits = sc->ok[sc->w] & sc->av[sc->w];
    }
    uint32_t r = (sc->w << 6) + (uint32_t)__builtin_ctzll(sc->bits);
    sc->bits &= sc->bits - 1;
    return r < sc->end ? r : NONE;
}

/* Row r's consumption fits what is left after the state and the rows picked before. */
static bool fits_after(const dra_engine_t *e, uint32_t r, const uint32_t *pick, uint32_t np)
{
    for (uint32_t i = dra__ent_b(e, r); i < dra__ent_e(e, r); i++) {
        uint32_t c = dra__ent_ctr(e, r, i);
        dra__aq_t used = dra__ent_amt(e, i);
        for (uint32_t j = 0; j < np; j++)
            for (uint32_t x = dra__ent_b(e, pick[j]); x < dra__ent_e(e, pick[j]); x++)
                if (dra__ent_ctr(e, pick[j], x) == c)
                    used += dra__ent_amt(e, x);
        if (used > dra__crem(e, c))
            return false;
    }
    return true;
}

static bool consumes(const dra_engine_t *e, uint32_t r)
{
    return dra__ent_b(e, r) < dra__ent_e(e, r);
}

/* Row r consumes a counter set with compatibility groups (cg_on). */
static bool grouped(const dra_engine_t *e, uint32_t r)
{
    return e->cg_on && e->rcg_off[r] < e->rcg_off[r + 1];
}

/* Some grouped set of row r is mixed (its devices in use both have and lack groups: the
 * allocator's fold depends on which it meets first; the allocator answers). */
static bool cg_mixed(const dra_engine_t *e, uint32_t r)
{
    for (uint32_t i = e->rcg_off[r]; i < e->rcg_off[r + 1]; i++)
        if (e->cg_kind[e->rec_set[i]] == DRA__CG_MIXED)
            return true;
    return false;
}

/* Whether row r (available: the baseline admits it, no set of it mixed) joins the picks under
 * the enforced rule: per grouped set of r, the baseline folded with the picks' entries on that
 * set (each admitted in turn, so of one kind with the baseline) admits r's entry. With the
 * version-skew skip the picks do not count (the allocator judges the baseline alone). */
static bool cg_after(const dra_engine_t *e, uint32_t r, const uint32_t *pick, uint32_t np)
{
    if (!e->beh.cg)
        return true;
    for (uint32_t i = e->rcg_off[r]; i < e->rcg_off[r + 1]; i++) {
        uint32_t s = e->rec_set[i];
        uint8_t kind = e->cg_kind[s];
        uint64_t m = e->cg_m[s];
        for (uint32_t j = 0; j < np; j++)
            for (uint32_t x = e->rcg_off[pick[j]]; x < e->rcg_off[pick[j] + 1]; x++) {
                if (e->rec_set[x] != s)
                    continue;
                if (kind == DRA__CG_EMPTY) {
                    kind = e->rec_grp[x] ? DRA__CG_GRP : DRA__CG_NOGRP;
                    m = e->rec_mask[x];
                } else if (kind == DRA__CG_GRP && e->rec_grp[x]) {
                    m &= e->rec_mask[x];
                }
            }
        if (kind == DRA__CG_NOGRP ? e->rec_grp[i]
                                  : kind == DRA__CG_GRP && (!e->rec_grp[i] || !(e->rec_mask[i] & m)))
            return false;
    }
    return true;
}

/* Whether row r, a candidate, joins the np rows picked before in this call: its counters fit
 * after theirs and the compatibility groups admit it beside them (both pick-dependent: a
 * refusal here may be the search's to undo). */
static bool joins(const dra_engine_t *e, const dra__dalt_t *al, uint32_t r, const uint32_t *pick,
                  uint32_t np)
{
    if (!np)
        return true;
    if (al->cons && consumes(e, r) && !fits_after(e, r, pick, np))
        return false;
    return !al->cg || !grouped(e, r) || cg_after(e, r, pick, np);
}

/* No constraint: the first k candidates (the greedy path). PICKED, 0 unsatisfiable, FALLBACK. */
static DRA_ALWAYS_INLINE int pick_first(const dra_engine_t *e, const dra__dalt_t *al, scan_t *sc,
                                        uint32_t *pick, uint32_t *np, uint64_t *looked)
{
    const uint32_t k = al->k;
    bool rejected = false; /* a candidate did not fit beside the picks */
    for (uint32_t r; (r = scan_next(sc)) != NONE;) {
        (*looked)++;
        /* capacity: a multi-allocatable row's left by its shares (the picks are other devices,
         * the check does not depend on them), a dedicated row's static (the same bit) */
        if (al->cfit && !dra_bit_get(al->cfit, r))
            continue;
        if (al->cg && grouped(e, r) && cg_mixed(e, r))
            return FALLBACK;
        if (!joins(e, al, r, pick, *np)) {
            rejected = true;
            continue;
        }
        pick[(*np)++] = r;
        if (*np == k)
            return PICKED;
    }
    /* the greedy path stopped short: for k = 1 the search has one level (unsatisfiable); else
     * unsatisfiable when every candidate was taken (fewer than k exist, whatever the picks),
     * and the search's to find when the picks mattered */
    return rejected ? FALLBACK : 0;
}

/* Code of row r in the constrained column, and whether its value is a scalar. */
static uint32_t attr_code(const dra_table_attr_t *a, uint32_t r, bool *scalar)
{
    uint32_t code = dra_table_attr_code(a, r);
    uint8_t kind = a->dkind[code];
    *scalar = kind >= DRA_ATTR_INT && kind <= DRA_ATTR_VERSION;
    return code;
}

/* matchAttribute: the greedy path (the first candidate with the attribute sets the value, later
 * ones must equal it), else the first group of equal scalar values, by first member, with k
 * candidates: its first k. PICKED, 0 unsatisfiable, FALLBACK. */
static int pick_match(const dra_engine_t *e, const dra__dalt_t *al, uint32_t attr, scan_t *sc,
                      uint32_t *pick, uint32_t *np, uint64_t *looked)
{
    const uint32_t k = al->k;
    if (attr == NONE) /* no device has the attribute: nobody can join */
        return 0;
    const dra_table_attr_t *a = &e->t->attrs[attr];
    uint32_t ref = 0;
    bool ref_scalar = false;
    enum { MAXG = 64 };
    uint32_t gcode[MAXG], gcnt[MAXG], ng = 0;
    bool overflow = false;
    for (uint32_t r; (r = scan_next(sc)) != NONE;) {
        (*looked)++;
        bool scalar;
        uint32_t code = attr_code(a, r, &scalar);
        if (!code)
            continue;
        if (al->cg && grouped(e, r) && cg_mixed(e, r))
            return FALLBACK;
        if (scalar && !overflow) { /* groups, for when the greedy path stops short */
            uint32_t g = 0;
            while (g < ng && gcode[g] != code)
                g++;
            if (g == ng) {
                if (ng == MAXG) {
                    overflow = true;
                } else {
                    gcode[ng] = code;
                    gcnt[ng++] = 0;
                }
            }
            if (g < ng)
                gcnt[g]++;
        }
        if (*np && (!scalar || !ref_scalar || code != ref))
            continue;
        if (!joins(e, al, r, pick, *np))
            continue;
        if (!*np) {
            ref = code;
            ref_scalar = scalar;
        }
        pick[(*np)++] = r;
        if (*np == k)
            return PICKED;
    }
    if (k == 1)
        return 0;
    if (overflow)
        return FALLBACK;
    /* groups with fewer than k candidates fail whatever the counters; the first with k is the
     * answer when its first k fit together (else the search's to find) */
    uint32_t best = 0;
    while (best < ng && gcnt[best] < k)
        best++;
    if (best == ng)
        return 0;
    *np = 0;
    scan_init(sc, e, al, sc->begin, sc->end);
    for (uint32_t r; (r = scan_next(sc)) != NONE;) {
        bool scalar;
        if (attr_code(a, r, &scalar) != gcode[best])
            continue;
        if (!joins(e, al, r, pick, *np))
            return FALLBACK;
        pick[(*np)++] = r;
        if (*np == k)
            return PICKED;
    }
    return FALLBACK; /* not reached: the group has k candidates */
}

/* Two requests of one device each under one matchAttribute: the search tries the first
 * request's candidates in order (each with the attribute sets the value) and, for each, the
 * second request's from the start (a request starts over), skipping the device already taken
 * and judging counters with the first device's consumption reserved; it backtracks over every
 * pair in that order, so the first pair found is the answer, and none is unsatisfiable.
 * PICKED, 0, or FALLBACK (a candidate on a mixed grouped set). */
static int pick_pair(const dra_engine_t *e, const dra__direct_t *d, uint32_t begin, uint32_t end,
                     uint32_t *pick, uint32_t *np, uint64_t *looked)
{
    if (d->attr == NONE)
        return 0;
    const dra_table_attr_t *a = &e->t->attrs[d->attr];
    scan_t s0, s1;
    scan_init(&s0, e, &d->alt[0], begin, end);
    for (uint32_t r0; (r0 = scan_next(&s0)) != NONE;) {
        (*looked)++;
        bool sc0;
        uint32_t c0 = attr_code(a, r0, &sc0);
        if (!c0 || !sc0)
            continue; /* no value, or one no other device can equal */
        if (d->alt[0].cg && grouped(e, r0) && cg_mixed(e, r0))
            return FALLBACK;
        scan_init(&s1, e, &d->alt[1], begin, end);
        for (uint32_t r1; (r1 = scan_next(&s1)) != NONE;) {
            (*looked)++;
            bool sc1;
            if (r1 == r0 || attr_code(a, r1, &sc1) != c0 || !sc1)
                continue;
            if (d->alt[1].cg && grouped(e, r1) && cg_mixed(e, r1))
                return FALLBACK;
            if (!joins(e, &d->alt[1], r1, &r0, 1))
                continue; /* with the first device's consumption (and groups) reserved */
            pick[0] = r0;
            pick[1] = r1;
            *np = 2;
            return PICKED;
        }
    }
    return 0;
}

/* Carve n bytes (16-aligned) from the block. */
static void *carve(char **at, size_t n)
{
    void *x = *at;
    *at += (n + 15) & ~(size_t)15;
    return x;
}

static size_t rnd(size_t n)
{
    return (n + 15) & ~(size_t)15;
}

void *dra__direct_take(const dra_engine_t *e, dra_arena_t *arena, size_t n)
{
    struct dra__pslot *ps = e->ps;
    dra_engine_slot_t *s = ps ? ps->s : NULL;
    n = rnd(n);
    if (s && n <= s->cap && ps->used <= s->cap - n) {
        char *x = (char *)s->mem + ps->used;
        if (!ps->used) /* what the slot's start holds now is no template */
            s->tmpl = 0;
        ps->used += n;
        return x;
    }
    return dra_arena_alloc(arena, n, 16);
}

/* The allocation of the picked rows, as the allocator builds it (see the top): pick[i] was
 * picked for alternative palt[i]; configs are those of alternative calt. In the placement's
 * slot when it has room (dra_engine_place_slot), where a template of the same plan, alternative
 * and count needs only the per-pod fields written. Not inlined: a profile shows the result's
 * cost apart (scripts/profile). */
DRA_NOINLINE static int build_answer(const dra_engine_t *e, const dra__direct_t *d, uint32_t n,
                                     const uint32_t *pick, const uint8_t *palt, uint32_t np,
                                     uint32_t calt, dra_arena_t *arena, dra_engine_result_t *out)
{
    const dra__dalt_t *ca = &d->alt[calt];
    /* only what differs per pod is written: the configs are the plan's, the node selector the
     * node's (both the engine's, valid while it lives) */
    size_t size = rnd(sizeof(dra_allocation_t *)) + rnd(sizeof(dra_allocation_t)) +
                  rnd(np * sizeof(dra_result_t));
    bool same = false;
    char *at;
    struct dra__pslot *ps = e->ps;
    dra_engine_slot_t *sl = ps ? ps->s : NULL;
    if (sl && !ps->used && size <= sl->cap) {
        /* the slot's start (the answer of one claim): its template is the plan's (kbase),
         * the alternative's and the count's; CLAIMS has none (the requests of one count may
         * split differently: two All sets) */
        uint64_t key = ps->kbase && d->kind != DRA__DIRECT_CLAIMS && calt < 256 && np < 256
                           ? ps->kbase | (uint64_t)calt << 8 | np
                           : 0;
        same = key && sl->tmpl == key;
        sl->tmpl = key;
        ps->used = size;
        at = sl->mem;
    } else if (!(at = dra__direct_take(e, arena, size))) {
        return DRA_ENOMEM;
    }
    dra_allocation_t **als = carve(&at, sizeof *als);
    dra_allocation_t *al = carve(&at, sizeof *al);
    dra_result_t *res = carve(&at, np * sizeof *res);
    const dra_table_t *t = e->t;
    if (same) {
        /* the template: request, tolerations, configs and the list are this plan's already;
         * the fields a pod may have set otherwise (binding conditions, a share) are reset */
        for (uint32_t i = 0; i < np; i++) {
            const struct dra__rid *id = &e->rid[pick[i]];
            const dra_table_pool_t *pl = &t->pools[id->pool];
            dra_result_t *o = &res[i];
            o->driver = pl->driver ? pl->driver : "";
            o->pool = pl->name ? pl->name : "";
            o->device = id->device;
            o->row = id->row1;
            if (e->beh.binding) {
                const dra_device_t *dv = id->bind ? t->dev[pick[i]] : NULL;
                o->binding_conditions = dv ? dv->binding_conditions : NULL;
                o->nbinding_conditions = dv ? dv->nbinding_conditions : 0;
                o->binding_failure_conditions = dv ? dv->binding_failure_conditions : NULL;
                o->nbinding_failure_conditions = dv ? dv->nbinding_failure_conditions : 0;
            }
            if (d->multi) {
                o->share_id = NULL;
                o->share_tag = 0;
                o->consumed = NULL;
                o->nconsumed = 0;
            }
        }
        al->node_selector = &e->nsel[n].ns;
        goto done;
    }
    for (uint32_t i = 0; i < np; i++) {
        uint32_t r = pick[i];
        const dra__dalt_t *pa = &d->alt[palt[i]];
        /* the device, its row and its pool from one 16-byte entry (e->rid): the model device's
         * line is read only for binding conditions */
        const struct dra__rid *id = &e->rid[r];
        const dra_table_pool_t *pl = &t->pools[id->pool];
        dra_result_t *o = &res[i];
        *o = (dra_result_t){.request = pa->req, .driver = pl->driver ? pl->driver : "",
                            .pool = pl->name ? pl->name : "", .device = id->device,
                            .row = id->row1, .tolerations = pa->body->tolerations,
                            .ntolerations = pa->body->ntolerations};
        if (e->beh.binding && id->bind) {
            const dra_device_t *dv = t->dev[r];
            o->binding_conditions = dv->binding_conditions;
            o->nbinding_conditions = dv->nbinding_conditions;
            o->binding_failure_conditions = dv->binding_failure_conditions;
            o->nbinding_failure_conditions = dv->nbinding_failure_conditions;
        }
    }
    *al = (dra_allocation_t){.results = res, .nresults = np, .configs = ca->cfg,
                             .nconfigs = ca->ncfg, .node_selector = &e->nsel[n].ns};
    als[0] = al;
done:
    out->kind = DRA_OUTCOME_ALLOCATED;
    out->node = n;
    out->allocations = als;
    out->n = 1;
    out->msg[0] = 0;
    return DRA_OK;
}

/* The shares of an answer (DRAConsumableCapacity): the result of each picked multi-allocatable
 * row gets the consumedCapacity of every device capacity (defaults filled in, policy rounding:
 * dra__cap_consumed, as allocateDevice records it) and its derived shareID (dra__share_id over
 * the claim, the result's index and the device; the attempts skip the device's live shares in
 * the state as dra__acall_share_id does, and no other result of the answer is on the device).
 * *any: some result is a share. One arena allocation when there is one (none in a slot with
 * room). */
/* Capacities of row r's device: its capacity profile's count (e->cxp; every device of a
 * profile has the same list), else the model device's. O(1). */
static inline uint32_t row_ncaps(const dra_engine_t *e, uint32_t r)
{
    uint32_t pf = e->cxp ? e->cxp[r] : NONE;
    return pf != NONE ? e->cxp_off[pf + 1] - e->cxp_off[pf] : e->t->dev[r]->ncaps;
}

static int add_shares(const dra_engine_t *e, const plan_t *p, const uint32_t *pick,
                      const uint8_t *palt, uint32_t np, dra_arena_t *arena, dra_result_t *res,
                      bool *any)
{
    const dra_table_t *t = e->t;
    size_t size = 0;
    *any = false;
    for (uint32_t i = 0; i < np; i++)
        if (t->flags[pick[i]] & DRA_ROW_MULTI_ALLOC) {
            /* the device's live shares (their tags and fingerprints, read below) and
             * capacity sums (the commit's) */
            if (e->rs[pick[i]].use)
                dra__alloc_state_prefetch_shares(e->state, res[i].row);
            size += rnd(37) + rnd(row_ncaps(e, pick[i]) * sizeof(dra_consumed_t));
        }
    if (!size)
        return DRA_OK;
    char *at = dra__direct_take(e, arena, size);
    if (!at)
        return DRA_ENOMEM;
    *any = true;
    dra__alloc_state_prefetch_free_cell(e->state); /* where the commit will keep the text */
    for (uint32_t i = 0; i < np; i++) {
        uint32_t r = pick[i];
        if (!(t->flags[r] & DRA_ROW_MULTI_ALLOC))
            continue;
        /* the device's name and capacities' count from the engine's columns, its consumed
         * list by its capacity profile: the model device is read only without a profile */
        const dra__dalt_t *al = &p->d.alt[palt[i]];
        const char *dev = e->rid[r].device ? e->rid[r].device : "";
        uint32_t pf = e->cxp ? e->cxp[r] : NONE, ncaps = row_ncaps(e, r);
        DRA_ASSERT_INTERNAL(e->rid[r].device == t->dev[r]->name && ncaps == t->dev[r]->ncaps);
        char *id = carve(&at, 37);
        dra__sid_t sid; /* the hash input laid out once, each attempt its last 8 bytes */
        if (p->d.sid_ok) /* the claim's fields measured at plan time */
            dra__share_id_begin_named(&sid, p->d.share_seed, p->d.sid_f, p->d.sid_n, i,
                                      res[i].driver, res[i].pool, dev);
        else
            dra__share_id_begin(&sid, p->d.share_seed, p->claims[0], i, res[i].driver,
                                res[i].pool, dev);
        /* the attempts start at the device's live shares (use); those of this plan's earlier
         * derivations still live on the device are known by their tags (their texts are these
         * attempts' IDs, live: the allocator's check would find each) and are not hashed; any
         * other attempt is hashed and checked against the live texts, as the allocator does */
        uint32_t u = e->rs[r].use, tag0 = dra__share_id_tag(p->d.share_gen, i, u);
        uint64_t known = u && tag0 ? dra__alloc_state_share_tags(e->state, res[i].row - 1,
                                                                 res[i].driver, res[i].pool,
                                                                 dev, tag0)
                                   : 0;
        uint32_t attempt = u;
        for (;; attempt++) {
            if (attempt - u < 64 && (known >> (attempt - u) & 1))
                continue;
            dra__share_id_attempt(&sid, attempt, id);
            if (!u || !dra_alloc_state_row_has_share(e->state, res[i].row - 1, res[i].driver,
                                                     res[i].pool, dev, id))
                break;
        }
        res[i].share_id = id;
        res[i].share_tag = dra__share_id_tag(p->d.share_gen, i, attempt);
        if (!ncaps)
            continue;
        dra_consumed_t *cs = carve(&at, ncaps * sizeof *cs);
        const dra_consumed_t *pre = al->ccp && pf != NONE ? al->ccp[pf] : NULL;
        if (!pre)
            pre = cached_consumed(al, t->dev[r]);
        DRA_ASSERT_INTERNAL(pre == cached_consumed(al, t->dev[r]));
        if (pre)
            memcpy(cs, pre, ncaps * sizeof *cs);
        else
            share_consumed(e, al->body, t->dev[r], cs);
        res[i].consumed = cs;
        res[i].nconsumed = ncaps;
    }
    return DRA_OK;
}

/* Every entry of palt (DRA_ALLOC_MAX_RESULTS) set to v in four word stores: a loop over the
 * picks becomes a call of memset (about 20 instructions for the usual one pick). */
static inline void palt_fill(uint8_t *palt, uint8_t v)
{
    _Static_assert(DRA_ALLOC_MAX_RESULTS == 32, "palt_fill writes 32 entries");
    uint64_t w = v * UINT64_C(0x0101010101010101);
    memcpy(palt, &w, 8);
    memcpy(palt + 8, &w, 8);
    memcpy(palt + 16, &w, 8);
    memcpy(palt + 24, &w, 8);
}

int dra__direct_try(dra_engine_t *e, const plan_t *p, uint32_t n, dra_arena_t *arena,
                    dra_engine_result_t *out, bool *decided)
{
    const dra__direct_t *d = &p->d;
    const struct dra__nrange *nd = &e->nrange[n];
    uint32_t pick[DRA_ALLOC_MAX_RESULTS], np = 0, chosen = 0;
    uint8_t palt[DRA_ALLOC_MAX_RESULTS]; /* set for each pick below */
    uint64_t looked = 0;
    int rc = 0;
    uint32_t next = NONE; /* FIRST: the row the same request would get next on this node */
    scan_t sc;
    *decided = false;
    if (d->kind == DRA__DIRECT_PAIR) {
        rc = pick_pair(e, d, nd->begin, nd->end, pick, &np, &looked);
        palt[0] = 0;
        palt[1] = 1;
    } else if (d->kind == DRA__DIRECT_MATCH) {
        scan_init(&sc, e, &d->alt[0], nd->begin, nd->end);
        rc = pick_match(e, &d->alt[0], d->attr, &sc, pick, &np, &looked);
        palt_fill(palt, 0);
    } else if (d->kind == DRA__DIRECT_MULTI) {
        /* each request alone, in order: no row is a candidate of two of them and at most one
         * has counters, so one request's picks never change another's candidates (the search
         * backtracking into an earlier request cannot help a later one that fails) */
        for (uint32_t i = 0; i < d->nalt; i++) {
            const dra__dalt_t *al = &d->alt[i];
            uint32_t lnp = 0;
            scan_init(&sc, e, al, nd->begin, nd->end);
            rc = al->match ? pick_match(e, al, al->attr, &sc, pick + np, &lnp, &looked)
                           : pick_first(e, al, &sc, pick + np, &lnp, &looked);
            for (uint32_t x = 0; x < lnp; x++)
                palt[np + x] = (uint8_t)i;
            np += lnp;
            if (rc != PICKED)
                break;
        }
    } else { /* the subrequests in order: the first the node satisfies */
        /* a scan of its own, whose address no call takes: kept in registers (the others'
         * goes to pickers out of line) */
        scan_t fs;
        for (chosen = 0; chosen < d->nalt; chosen++) {
            np = 0;
            scan_init(&fs, e, &d->alt[chosen], nd->begin, nd->end);
            rc = pick_first(e, &d->alt[chosen], &fs, pick, &np, &looked);
            if (rc)
                break;
        }
        palt_fill(palt, (uint8_t)chosen);
        if (rc == PICKED && fs.bits) {
            uint32_t nx = (fs.w << 6) + (uint32_t)__builtin_ctzll(fs.bits);
            next = nx < fs.end ? nx : NONE;
        }
    }
    out->stats.candidates += looked;
    if (rc == FALLBACK)
        return DRA__DIRECT_FALLBACK;
    if (!rc)
        return DRA_OK; /* unsatisfiable on this node */
    /* what the results name (e->rid) is likely cold: start its loads now, the result's other
     * parts are written meanwhile */
    for (uint32_t i = 0; i < np; i++) {
        __builtin_prefetch(&e->rid[pick[i]]);
        __builtin_prefetch(&e->t->pools[e->t->pool[pick[i]]]);
    }
    int brc = build_answer(e, d, n, pick, palt, np, d->kind == DRA__DIRECT_FIRST ? chosen : 0,
                           arena, out);
    if (brc)
        return brc;
    /* the device the same request would get next on this node (packing policies fill a node
     * device after device): what its result names is never touched before, so start loading it
     * now, while the caller commits this result */
    if (next != NONE)
        __builtin_prefetch(&e->rid[next]);
    bool shares = false;
    if (d->multi && (brc = add_shares(e, p, pick, palt, np, arena, out->allocations[0]->results,
                                      &shares)))
        return brc;
    bool match = d->kind == DRA__DIRECT_MATCH || d->kind == DRA__DIRECT_PAIR;
    for (uint32_t i = 0; d->kind == DRA__DIRECT_MULTI && i < d->nalt; i++)
        match |= d->alt[i].match;
    out->served = match     ? DRA_SERVED_DIRECT_MATCH
                  : shares  ? DRA_SERVED_DIRECT_SHARES
                  : d->cg   ? DRA_SERVED_DIRECT_GROUPS
                  : d->cons ? DRA_SERVED_DIRECT_COUNTERS
                            : DRA_SERVED_DIRECT_FIRST;
    *decided = true;
    return DRA_OK;
}

int dra__direct_verify(dra_engine_t *e, const plan_t *p, uint32_t n, bool decided,
                       dra_engine_result_t *out)
{
    dra_alloc_outcome_t o, mine;
    dra_arena_reset(&e->vscratch);
    int rc = dra_anyalloc_allocate(e->alloc, e->m->nodes[n], p->claims, p->nclaims, &e->vscratch,
                                   &o);
    if (rc)
        return rc;
    memset(&mine, 0, sizeof mine);
    mine.kind = decided ? DRA_OUTCOME_ALLOCATED : DRA_OUTCOME_UNSATISFIABLE;
    if (decided) {
        mine.allocations = out->allocations;
        mine.n = out->n;
    }
    char why[DRA_DIAG_MSG_MAX - 96];
    bool differs = dra_alloc_outcome_differs(&o, &mine, why, sizeof why);
    dra_arena_reset(&e->vscratch);
    if (!differs)
        return DRA_OK;
    snprintf(out->msg, sizeof out->msg, "direct answer on node %s differs from the allocator: %s",
             e->m->nodes[n]->name ? e->m->nodes[n]->name : "", why);
    return DRA_EINTERNAL;
}

/* ---- slice updates ----------------------------------------------------------------------------- */

void dra__direct_update_rows(dra_engine_t *e, uint32_t n, uint32_t begin, uint32_t end)
{
    e->dgen++; /* slots' templates of the answers before are stale */
    if (n != NONE && e->direct_on)
        e->nrange[n].direct = node_direct(e, n);
    if (e->rid) /* the devices are where they were (an update keeps names and count) */
        rid_fill(e, begin, end);
    for (uint32_t pi = 0; pi < e->nplans; pi++) {
        dra__direct_t *d = &e->plans[pi].d;
        if (d->kind == DRA__DIRECT_NONE || d->kind == DRA__DIRECT_CLAIMS)
            continue; /* CLAIMS: compiled again by dra__direct_refresh */
        bool keep = true;
        for (uint32_t i = 0; i < d->nalt && keep; i++) {
            dra__dalt_t *al = &d->alt[i];
            const sig_t *s = &e->sigs[al->sig];
            if (s->shany) { /* shared rows: the node's range is not every candidate */
                keep = false;
                break;
            }
            for (uint32_t r = begin; r < end && r < e->t->shared_begin; r++)
                dra_bit_clear(al->ok, r);
            /* 1 ok, 0 never direct; out of memory: the allocator answers (never a guess) */
            keep = fill_ok_range(e, al, s, d->kind == DRA__DIRECT_FIRST, begin, end) == 1;
            d->cons |= al->cons;
            d->multi |= al->multi;
            d->cg |= al->cg;
            d->fallible |= al->cons && al->k > 1;
        }
        if (keep && d->kind == DRA__DIRECT_MULTI) { /* the requests' candidates still apart */
            d->ncons = 0;
            for (uint32_t i = 0; i < d->nalt; i++)
                d->ncons += d->alt[i].cons;
            keep = d->ncons <= 1 && !d->multi &&
                   parts_disjoint(e, d, begin, end < e->t->shared_begin ? end : e->t->shared_begin);
        }
        if (!keep)
            d->kind = DRA__DIRECT_NONE;
    }
}

/* ---- pieces for direct_multi.c (engine_impl.h) ------------------------------------------------ */

bool dra__direct_body_ok(const dra_engine_t *e, const dra_exact_request_t *b, bool cap_ok)
{
    return direct_body(e, b, cap_ok);
}

bool dra__direct_constraints(const dra_engine_t *e, const dra_claim_t *c, const char **all,
                             const char **own)
{
    return constraint_scope(e, c, all, own);
}

bool dra__direct_match_column(const dra_engine_t *e, const char *attr, uint32_t *col)
{
    return match_column(e, attr, col);
}

int dra__direct_alt_init(dra_engine_t *e, dra__dalt_t *al, uint32_t si, const dra_request_t *r,
                         const dra_exact_request_t *b, bool shares_ok)
{
    return alt_init(e, al, si, r, b, NULL, shares_ok);
}

int dra__direct_configs(dra_engine_t *e, const dra_claim_t *c, dra__dalt_t *const *chosen,
                        dra_alloc_config_t **out, uint32_t *nout)
{
    return fill_configs(e, c, chosen, out, nout);
}

int dra__direct_pick(const dra_engine_t *e, const dra__dalt_t *al, uint32_t begin, uint32_t end,
                     uint32_t *pick, uint32_t *np, uint64_t *looked)
{
    scan_t sc;
    scan_init(&sc, e, al, begin, end);
    int rc = al->match ? pick_match(e, al, al->attr, &sc, pick, np, looked)
                       : pick_first(e, al, &sc, pick, np, looked);
    return rc == PICKED ? DRA__PICK_OK : rc == FALLBACK ? DRA__PICK_FALLBACK : DRA__PICK_UNSAT;
}

int dra__direct_fill_range(dra_engine_t *e, dra__dalt_t *al, bool shares_ok, uint32_t begin,
                           uint32_t end)
{
    return fill_ok_range(e, al, &e->sigs[al->sig], shares_ok, begin, end);
}

bool dra__direct_fits_after(const dra_engine_t *e, uint32_t r, const uint32_t *pick, uint32_t np)
{
    return fits_after(e, r, pick, np);
}

bool dra__direct_row_grouped(const dra_engine_t *e, uint32_t r)
{
    return row_grouped(e, r);
}

bool dra__direct_entries_distinct(const dra_engine_t *e, uint32_t r)
{
    return entries_distinct(e, r);
}

int dra__direct_build(const dra_engine_t *e, const dra__direct_t *d, uint32_t n,
                      const uint32_t *pick, const uint8_t *palt, uint32_t np, uint32_t calt,
                      dra_arena_t *arena, dra_engine_result_t *out)
{
    return build_answer(e, d, n, pick, palt, np, calt, arena, out);
}

int dra__direct_shares(const dra_engine_t *e, const plan_t *p, const uint32_t *pick,
                       const uint8_t *palt, uint32_t np, dra_arena_t *arena, dra_result_t *res,
                       bool *any)
{
    return add_shares(e, p, pick, palt, np, arena, res, any);
}

const char *dra__direct_str(dra_engine_t *e, const char *a, const char *b)
{
    return arena_str(e, a, b);
}
