/*
 * direct_multi.c - exact per-node answers for the claim shapes direct.c leaves to the allocator:
 * CLAIMS, a plan whose requests (in claim order, then request order; up to DRA__DIRECT_MAX_REQ
 * of them) are each one ExactCount request answered alone (direct.c's FIRST, or MATCH under a
 * matchAttribute of its own) or one allocationMode All request, when
 *  - the plan has several claims (a pod with its own claim and a group's), or an All request,
 *    or one claim with shares of multi-allocatable devices (consumable capacity) over several
 *    requests or under a matchAttribute (one claim only: a shareID is derived from the claim
 *    and the result's index);
 *  - no row is a candidate of two requests (their signatures' matching and error rows are
 *    disjoint) unless the two have the same candidates (below: groups), at most one request has
 *    devices that consume counters, and each request's rows are ones its kind argues about
 *    (direct.c's static eligibility for ExactCount; All below).
 * The entry points for every kind (compile, answer, refresh after a slice update) are here too,
 * so that plan.c, place.c and update.c call one function whichever kind answers.
 *
 * Why the answer is the exact allocator's (core/alloc/search_impl.h, DRA-SEMANTICS 2.4-2.8).
 * The search goes through the claims in order and, in each, the requests in order; a request's
 * device loop takes the first candidate that passes allocateDevice and goes on to the next
 * level, so when every request's own first solution exists the search's first leaf is their
 * concatenation - provided no request's checks depend on another's picks. They do not here: a
 * device another request took is none of this request's candidates (disjoint rows), only one
 * request consumes counters (the others' devices leave every counter as it was), a
 * multi-allocatable device is a candidate of one request only (its capacity in use within the
 * call is that request's own; direct.c's SHARES argument per request), and the per-claim
 * checks (the 32-result limit: plan.c keeps a claim whose requests could take more with brute
 * force; constraints: only a request's own matchAttribute, none beside All) are per request.
 * When one request has no solution, going back into the requests before it only gives them
 * other devices, which does not change its candidates or their checks: the plan is
 * unsatisfiable on the node. Groups (the same claim template twice in a pod, two requests of one
 * class): plain ExactCount requests (no matchAttribute, no counters, no shares) with the same
 * signature and static eligibility have one candidate list; the search's first leaf gives the
 * first of them its first k devices, the next one the following ones (a device taken in the
 * call is no candidate), and a path through the group needs as many distinct devices of the
 * list as the group asks in all, so fewer fail every path (unsatisfiable). The group is answered
 * as one request of that many devices and its picks handed out in request order; other
 * requests' candidates never meet the group's. A request whose own answer is the allocator's (direct.c's
 * FALLBACK: counters that depend on the picks) leaves the whole answer to the allocator.
 * Shares under a matchAttribute (served "direct-shares" for one request): direct.c's MATCH over
 * the candidates whose capacity fits, each check as in SHARES - a request takes a device once
 * (from 1.36; before, a request of several devices over multi-allocatable ones is never
 * direct: direct.c), the fit bit is what the state's shares left beside the request's own
 * consumption, so no pick changes another candidate's check and MATCH's greedy path and
 * groups argument holds over that candidate set (pick_match_fit).
 * allocationMode All (served "direct-all"):
 *  - the set (validateDeviceRequest, 2.4) is every selectable device of every pool the node
 *    sees, fixed before the search. An incomplete or invalid pool would end the request there
 *    (Fatal up to 1.37, per-node failure in 1.38-pre, PR #141898): plan.c keeps every All plan
 *    with brute force while some node sees a pool an All request may find incomplete (hazard.c,
 *    e->nahz, which also covers a pool whose counters and devices sit in different slices),
 *    and a node with an invalid pool is a hazard node (never direct). A signature with shared
 *    rows is never direct (the node's own range is then not the whole set);
 *  - selectable: the signature's match bit (an error row makes the node a hazard for the plan).
 *    Where membership is less plain the plan is never direct (the allocator answers): a device
 *    with binding conditions (with the gate off it is not selectable, with it on its pool may be
 *    moved last), one of a slice with counter sets (GatherPools offers it or not by release),
 *    one that consumes counters with DRAPartitionableDevices off, a multi-allocatable device
 *    (its shares' capacity in use; without DRAConsumableCapacity the availability bit counts
 *    it free while in use), a capacity with 1.37's fractional range, a capacity check that
 *    would fail the call, and a member outside the engine's certain All set (e->amem: the
 *    index's view of the set must be the same). Under DRAConsumableCapacity a dedicated device
 *    with capacities is in the set when the request's consumption (defaults, policy rounding)
 *    fits them - statically, as the search's recheck finds it again (no shares on it, and one
 *    request takes it);
 *  - every member must then pass allocateDevice with must=true, in set order (the node's row
 *    order, which is the search order: direct.c): in use (the availability bit), its counters
 *    beside the members before it (the availability bit for the first, direct.c's fits_after
 *    for the others; one request only consumes counters), an untolerated taint (static: a
 *    tainted member makes the plan never direct here, so the answer is never a taint's), a
 *    constraint (none: plan.c). Any failure fails the request with no alternative - the search
 *    has no other choice for it - and so the plan on the node; an empty set fails too ("All"
 *    means at least one device since 1.33). Otherwise the results are the set, in order.
 *  - releases: 1.34 to 1.37 and 1.38-pre differ on All only where the allocator decides (an
 *    incomplete pool, capacity in use, fractional ranges: all left to it above); upstream-bug
 *    mode turns direct answers off as for every kind (direct.c).
 * Results: one allocation per claim, in claim order, each built as direct.c builds one (its
 * requests' results in order, the claim's configs, the node's selector); shares as direct.c
 * derives them (one claim). Verification against the allocator: place.c (verify_direct).
 *
 * Ownership: plan data in the engine's arena; answers in the caller's slot while it has room
 * (dra_engine_place_slot), else its arena. Errors: DRA_ENOMEM. Cost: a plan O(rows) per
 * request; an answer O(words of the node's range + candidates looked at) per request, one
 * arena allocation per claim (and one for the list of a plan of several claims) without a
 * slot, none with one; a refresh O(rows of the update) per request of each CLAIMS plan.
 */
#include <string.h>

#include "alloc/fast.h"
#include "engine/engine_impl.h"

#define NONE DRA_ENGINE_NONE

/* An All request the answer argues about: valid (class, selectors with CEL), without admin
 * access (it takes devices in use) and without capacity requests (its set's capacity check). */
static bool all_body_ok(const dra_engine_t *e, const dra_exact_request_t *b)
{
    if (!b || b->mode != DRA_MODE_ALL || b->admin_access || b->has_admin_access ||
        b->has_capacity || b->ncap_requests > 0 || !b->class_name ||
        !dra_model_find_class(e->m, b->class_name))
        return false;
    for (uint32_t i = 0; i < b->nselectors; i++)
        if (!b->selectors[i].cel)
            return false;
    return true;
}

/* The All request's set among the node-range rows [begin, end) (see the top): 1, 0 when some
 * row makes the plan never direct. */
static int all_fill_range(dra_engine_t *e, dra__dalt_t *al, uint32_t begin, uint32_t end)
{
    const dra_table_t *t = e->t;
    const sig_t *s = &e->sigs[al->sig];
    const dra_exact_request_t *b = al->body;
    for (uint32_t r = begin; r < end && r < t->shared_begin; r++) {
        if (dra__row_node(e, r) == NONE || !dra_bit_get(s->match, r) || dra_bit_get(s->err, r))
            continue;
        const dra_device_t *dv = t->dev[r];
        uint8_t fl = t->flags[r];
        if (!dv || (fl & (DRA_ROW_MULTI_ALLOC | DRA_ROW_BINDING)) || dv->nbinding_conditions > 0 ||
            (dv->slice && dv->slice->ncounter_sets > 0) || (dv->nconsumes > 0 && !e->beh.pd))
            return 0;
        if (e->beh.cc && dv->ncaps > 0) {
            /* the set's capacity check (static, PR #140769) of a dedicated device, which the
             * search's recheck repeats with nothing else on it (no shares: set-up; one request
             * takes it): in the set or not, or the call's failure (the allocator's to say) */
            for (uint32_t c = 0; c < dv->ncaps; c++)
                if (e->beh.fractional && dv->caps[c].policy && dv->caps[c].policy->has_valid_range)
                    return 0; /* 1.37's fractional ranges: left to the allocator */
            int fit = dra__eng_cap_fits(e, b, dv, NULL);
            if (fit < 0 && !(fit == DRA__CAP_MISSING && !e->beh.cap_missing_fatal))
                return 0;
            if (fit != 1)
                continue;
        }
        if (!dra_bit_get(e->amem, r))
            return 0; /* the index's view of the set must be the same */
        if (e->any_groups && dv->nconsumes > 0 && (e->beh.cg || e->beh.cg_skip) &&
            dra__direct_row_grouped(e, r))
            return 0; /* compatibility groups: not in the counter columns */
        if (e->beh.taints && dra__taint_blocks(dv, b->tolerations, b->ntolerations))
            dra_bit_set(al->bad, r); /* in the set, never allocatable: the request fails here */
        if (dv->nconsumes > 0) {
            if (!e->beh.pool_counters || !e->rc_pat || !dra__direct_entries_distinct(e, r))
                return 0;
            al->cons = true;
        }
        dra_bit_set(al->ok, r);
    }
    return 1;
}

/* Alternative al for All request r (body b) over signature si: its set's bitset. 0 not direct,
 * 1 ok, DRA_ENOMEM. */
static int all_alt_init(dra_engine_t *e, dra__dalt_t *al, uint32_t si, const dra_request_t *r,
                        const dra_exact_request_t *b)
{
    memset(al, 0, sizeof *al);
    al->sig = si;
    al->body = b;
    al->all = true;
    if (e->sigs[si].shany)
        return 0;
    size_t nw = dra_bitset_words(e->t->nrows_padded);
    al->ok = dra_arena_alloc(&e->arena, nw * sizeof *al->ok + 8, DRA_TABLE_ALIGN);
    al->bad = dra_arena_alloc(&e->arena, nw * sizeof *al->bad + 8, DRA_TABLE_ALIGN);
    al->req = dra__direct_str(e, r->name ? r->name : "", NULL);
    if (!al->ok || !al->bad || !al->req)
        return DRA_ENOMEM;
    memset(al->ok, 0, nw * sizeof *al->ok + 8);
    memset(al->bad, 0, nw * sizeof *al->bad + 8);
    return all_fill_range(e, al, 0, e->t->shared_begin);
}

/* Bits of word w of a bitset within rows [begin, end) (w in its words). */
static uint64_t word_in(const uint64_t *b, uint32_t w, uint32_t begin, uint32_t end)
{
    uint64_t x = b[w];
    if (w == begin >> 6)
        x &= ~(uint64_t)0 << (begin & 63);
    if (w == (end - 1) >> 6 && (end & 63))
        x &= ((uint64_t)1 << (end & 63)) - 1;
    return x;
}

/* Requests i and j (i < j) have the same candidates: the same signature and static
 * eligibility over [begin, end), each a plain ExactCount request (no matchAttribute, no counters,
 * no shares). Their picks are then the first devices of the one candidate list, in request
 * order, and fewer candidates than their devices together fail every path. */
static bool same_candidates(const dra__dalt_t *a, const dra__dalt_t *b, uint32_t begin,
                            uint32_t end)
{
    if (a->sig != b->sig || a->all || b->all || a->match || b->match || a->cons || b->cons ||
        a->multi || b->multi || a->cfit || b->cfit)
        return false;
    for (uint32_t w = begin >> 6; begin < end && w <= (end - 1) >> 6; w++)
        if (word_in(a->ok, w, begin, end) != word_in(b->ok, w, begin, end))
            return false;
    return true;
}

/* No row in [begin, end) is a candidate of two requests of different groups (their signatures'
 * matching and error rows are disjoint). O(rows / 64) per pair. */
static bool groups_disjoint(const dra_engine_t *e, const dra__direct_t *d, uint32_t begin,
                            uint32_t end)
{
    for (uint32_t i = 0; i < d->nalt; i++)
        for (uint32_t j = i + 1; j < d->nalt; j++) {
            if (d->alt[i].grp == d->alt[j].grp)
                continue;
            const sig_t *a = &e->sigs[d->alt[i].sig], *b = &e->sigs[d->alt[j].sig];
            for (uint32_t w = begin >> 6; begin < end && w <= (end - 1) >> 6; w++)
                if (word_in(a->match, w, begin, end) & b->match[w] ||
                    word_in(a->err, w, begin, end) & (b->match[w] | b->err[w]) ||
                    word_in(a->match, w, begin, end) & b->err[w])
                    return false;
        }
    return true;
}

/* Each request's group (the first request before it with the same candidates) and each
 * leader's devices in all; then whether the groups' candidates never meet. */
static bool group_parts(const dra_engine_t *e, dra__direct_t *d)
{
    uint32_t end = e->t->shared_begin;
    for (uint32_t j = 0; j < d->nalt; j++) {
        dra__dalt_t *b = &d->alt[j];
        b->grp = (uint8_t)j;
        for (uint32_t i = 0; i < j && b->grp == j; i++)
            if (d->alt[i].grp == i && same_candidates(&d->alt[i], b, 0, end))
                b->grp = (uint8_t)i;
        if (b->grp == j)
            b->gk = b->k;
        else
            d->alt[b->grp].gk += b->k;
    }
    return groups_disjoint(e, d, 0, end);
}

/* Whether request alternative al may take shares (direct.c's SHARES, with or without a
 * matchAttribute of its own): ExactCount, in a plan of one claim. */
static bool alt_shares_ok(const plan_t *p, const dra__dalt_t *al)
{
    return p->nclaims == 1 && !al->all;
}

/* The CLAIMS answer of plan p, when direct.c has none (see the top). */
static int claims_plan(dra_engine_t *e, plan_t *p)
{
    memset(&p->d, 0, sizeof p->d);
    if (!e->direct_on || !p->indexed || !p->nclaims)
        return DRA_OK;
    uint32_t nreq = 0;
    for (uint32_t c = 0; c < p->nclaims; c++)
        nreq += p->claims[c]->nrequests;
    if (nreq < 1 || nreq > DRA__DIRECT_MAX_REQ || p->nreqs != nreq || p->nalts != nreq)
        return DRA_OK;
    const char *attr[DRA__DIRECT_MAX_REQ];
    for (uint32_t c = 0, q = 0; c < p->nclaims; c++) {
        const dra_claim_t *cl = p->claims[c];
        const char *all, *own[DRA__DIRECT_MAX_REQ];
        if (!dra__direct_constraints(e, cl, &all, own))
            return DRA_OK;
        if (all && cl->nrequests > 1)
            return DRA_OK; /* one matchAttribute over several requests: direct.c's PAIR only */
        for (uint32_t ri = 0; ri < cl->nrequests; ri++, q++) {
            const dra_request_t *r = &cl->requests[ri];
            const dra_exact_request_t *b = r->exactly;
            if (r->nfirst_available || !b || p->reqs[q].nalt != 1)
                return DRA_OK;
            attr[q] = all ? all : own[ri];
            bool ok = b->mode == DRA_MODE_ALL ? all_body_ok(e, b) && !attr[q]
                                              : dra__direct_body_ok(e, b, p->nclaims == 1);
            if (!ok)
                return DRA_OK;
        }
    }
    if (p->nclaims == 1 && !p->anyall && nreq == 1 && !attr[0])
        return DRA_OK; /* one request without a constraint: direct.c's FIRST (or the allocator) */
    dra__direct_t d = {0};
    d.kind = DRA__DIRECT_CLAIMS;
    d.attr = NONE;
    d.nalt = nreq;
    d.alt = dra_arena_calloc(&e->arena, nreq, sizeof *d.alt, 8);
    if (!d.alt)
        return DRA_ENOMEM;
    for (uint32_t c = 0, q = 0; c < p->nclaims; c++) {
        const dra_claim_t *cl = p->claims[c];
        for (uint32_t ri = 0; ri < cl->nrequests; ri++, q++) {
            const dra_request_t *r = &cl->requests[ri];
            const dra_exact_request_t *b = r->exactly;
            dra__dalt_t *al = &d.alt[q];
            int rc = b->mode == DRA_MODE_ALL
                         ? all_alt_init(e, al, p->alts[q].sig, r, b)
                         : dra__direct_alt_init(e, al, p->alts[q].sig, r, b, p->nclaims == 1);
            if (rc <= 0)
                return rc < 0 ? rc : DRA_OK;
            al->claim = (uint8_t)c;
            al->attr = NONE;
            al->match = attr[q] != NULL;
            if (attr[q] && !dra__direct_match_column(e, attr[q], &al->attr))
                return DRA_OK;
            if (al->match && al->cfit) { /* its candidates' bitset, written per answer */
                size_t nw = dra_bitset_words(e->t->nrows_padded);
                al->okfit = dra_arena_alloc(&e->arena, nw * sizeof *al->okfit + 8, DRA_TABLE_ALIGN);
                if (!al->okfit)
                    return DRA_ENOMEM;
                memset(al->okfit, 0, nw * sizeof *al->okfit + 8);
            }
            d.ncons += al->cons;
            d.cons |= al->cons;
            d.multi |= al->multi;
            d.fallible |= al->cons && al->k > 1;
        }
    }
    if (d.ncons > 1 || !group_parts(e, &d))
        return DRA_OK;
    for (uint32_t c = 0, q = 0; c < p->nclaims; c++) { /* each claim's configs on its first */
        const dra_claim_t *cl = p->claims[c];
        dra__dalt_t *chosen[DRA__DIRECT_MAX_REQ];
        for (uint32_t ri = 0; ri < cl->nrequests; ri++)
            chosen[ri] = &d.alt[q + ri];
        if (dra__direct_configs(e, cl, chosen, &d.alt[q].cfg, &d.alt[q].ncfg))
            return DRA_ENOMEM;
        q += cl->nrequests;
    }
    if (d.multi) {
        d.share_seed = dra_fast_share_seed(e->alloc->fast);
        d.share_gen = dra__alloc_state_share_gen(e->state);
    }
    p->d = d;
    return DRA_OK;
}

int dra__direct_compile(dra_engine_t *e, plan_t *p)
{
    e->dgen++; /* slots' templates of the answers before are stale */
    int rc = dra__direct_plan(e, p);
    if (rc || p->d.kind != DRA__DIRECT_NONE)
        return rc;
    return claims_plan(e, p);
}

/* ---- answers --------------------------------------------------------------------------------- */

/* The All request's set on the node's range [begin, end), every member allocatable in set
 * order (see the top): DRA__PICK_OK with its members in pick, else DRA__PICK_UNSAT; more than a
 * claim's results (plan.c bounds the set, never here): DRA__PICK_FALLBACK. */
static int pick_all(const dra_engine_t *e, const dra__dalt_t *al, uint32_t begin, uint32_t end,
                    uint32_t *pick, uint32_t *np, uint64_t *looked)
{
    if (begin >= end)
        return DRA__PICK_UNSAT;
    uint32_t w0 = begin >> 6, w1 = ((end - 1) >> 6) + 1;
    for (uint32_t w = w0; w < w1; w++) {
        uint64_t bits = al->ok[w];
        if (w == w0)
            bits &= ~(uint64_t)0 << (begin & 63);
        if (w == w1 - 1 && (end & 63))
            bits &= ((uint64_t)1 << (end & 63)) - 1;
        if ((bits & ~e->avb[w]) || (bits & al->bad[w]))
            return DRA__PICK_UNSAT; /* a member in use, short of its own counters, or tainted */
        for (; bits; bits &= bits - 1) {
            uint32_t r = (w << 6) + (uint32_t)__builtin_ctzll(bits);
            (*looked)++;
            if (al->cons && *np && !dra__direct_fits_after(e, r, pick, *np))
                return DRA__PICK_UNSAT; /* its counters beside the members before it */
            if (*np == DRA_ALLOC_MAX_RESULTS)
                return DRA__PICK_FALLBACK;
            pick[(*np)++] = r;
        }
    }
    return *np ? DRA__PICK_OK : DRA__PICK_UNSAT;
}

/* A matchAttribute request over shares: direct.c's MATCH over the candidates whose capacity
 * fits (the fit bit: what the shares in the state left, the request's own consumption; it takes
 * a device once, so no pick changes another candidate's check, as in SHARES), read from the
 * alternative's okfit words of the node's range, written here. */
static int pick_match_fit(const dra_engine_t *e, const dra__dalt_t *al, uint32_t begin,
                          uint32_t end, uint32_t *pick, uint32_t *np, uint64_t *looked)
{
    if (begin >= end)
        return DRA__PICK_UNSAT;
    for (uint32_t w = begin >> 6; w <= (end - 1) >> 6; w++)
        al->okfit[w] = al->ok[w] & al->cfit[w];
    dra__dalt_t fit = *al;
    fit.ok = al->okfit;
    fit.cfit = NULL;
    return dra__direct_pick(e, &fit, begin, end, pick, np, looked);
}

/* One allocation per claim (the requests of claim c are contiguous in the picks). */
static int build_claims(const dra_engine_t *e, const plan_t *p, uint32_t n, const uint32_t *pick,
                        const uint8_t *palt, uint32_t np, dra_arena_t *arena,
                        dra_engine_result_t *out)
{
    const dra__direct_t *d = &p->d;
    if (p->nclaims == 1)
        return dra__direct_build(e, d, n, pick, palt, np, 0, arena, out);
    dra_allocation_t **als = dra__direct_take(e, arena, p->nclaims * sizeof *als);
    if (!als)
        return DRA_ENOMEM;
    uint32_t at = 0, q = 0;
    for (uint32_t c = 0; c < p->nclaims; c++) {
        uint32_t from = at;
        while (at < np && d->alt[palt[at]].claim == c)
            at++;
        int rc = dra__direct_build(e, d, n, pick + from, palt + from, at - from, q, arena, out);
        if (rc)
            return rc;
        als[c] = out->allocations[0];
        q += p->claims[c]->nrequests;
    }
    out->allocations = als;
    out->n = p->nclaims;
    return DRA_OK;
}

static int claims_try(dra_engine_t *e, const plan_t *p, uint32_t n, dra_arena_t *arena,
                      dra_engine_result_t *out, bool *decided)
{
    const dra__direct_t *d = &p->d;
    const struct dra__nrange *nd = &e->nrange[n];
    uint32_t pick[DRA__DIRECT_MAX_REQ * DRA_ALLOC_MAX_RESULTS], np = 0;
    uint8_t palt[DRA__DIRECT_MAX_REQ * DRA_ALLOC_MAX_RESULTS];
    uint64_t looked = 0;
    int rc = DRA__PICK_OK;
    *decided = false;
    if (p->anyall && e->nahz)
        return DRA__DIRECT_FALLBACK; /* plan.c keeps such plans with brute force: never here */
    /* each request alone, in order (see the top); a group's leader picks for the whole group
     * (the first gk candidates), each member takes its k of them in request order */
    uint32_t gpick[DRA__DIRECT_MAX_REQ * DRA_ALLOC_MAX_RESULTS], gat[DRA__DIRECT_MAX_REQ], ng = 0;
    for (uint32_t i = 0; i < d->nalt && rc == DRA__PICK_OK; i++) {
        const dra__dalt_t *al = &d->alt[i];
        uint32_t lnp = 0;
        if (al->grp != i) { /* the leader found enough for all of them */
            memcpy(pick + np, gpick + gat[al->grp], al->k * sizeof *pick);
            gat[al->grp] += al->k;
            lnp = al->k;
        } else if (al->gk > al->k) {
            dra__dalt_t whole = *al;
            whole.k = al->gk;
            gat[i] = ng;
            rc = dra__direct_pick(e, &whole, nd->begin, nd->end, gpick + ng, &lnp, &looked);
            ng += lnp;
            lnp = rc == DRA__PICK_OK ? al->k : 0;
            memcpy(pick + np, gpick + gat[i], lnp * sizeof *pick);
            gat[i] += lnp;
        } else if (al->okfit) {
            rc = pick_match_fit(e, al, nd->begin, nd->end, pick + np, &lnp, &looked);
        } else {
            rc = al->all ? pick_all(e, al, nd->begin, nd->end, pick + np, &lnp, &looked)
                         : dra__direct_pick(e, al, nd->begin, nd->end, pick + np, &lnp, &looked);
        }
        for (uint32_t x = 0; x < lnp; x++)
            palt[np + x] = (uint8_t)i;
        np += lnp;
    }
    out->stats.candidates += looked;
    if (rc == DRA__PICK_FALLBACK)
        return DRA__DIRECT_FALLBACK;
    if (rc != DRA__PICK_OK)
        return DRA_OK; /* unsatisfiable on this node */
    for (uint32_t i = 0; i < np; i++) {
        __builtin_prefetch(&e->rid[pick[i]]);
        __builtin_prefetch(&e->t->pools[e->t->pool[pick[i]]]);
    }
    int brc = build_claims(e, p, n, pick, palt, np, arena, out);
    if (brc)
        return brc;
    bool shares = false;
    if (d->multi && (brc = dra__direct_shares(e, p, pick, palt, np, arena,
                                              out->allocations[0]->results, &shares)))
        return brc;
    out->served = p->anyall            ? DRA_SERVED_DIRECT_ALL
                  : p->nclaims > 1    ? DRA_SERVED_DIRECT_CLAIMS
                  : d->nalt > 1       ? DRA_SERVED_DIRECT_REQUESTS
                  : shares            ? DRA_SERVED_DIRECT_SHARES /* matchAttribute over shares */
                                      : DRA_SERVED_DIRECT_MATCH;
    *decided = true;
    return DRA_OK;
}

int dra__direct_answer(dra_engine_t *e, const plan_t *p, uint32_t n, dra_arena_t *arena,
                       dra_engine_result_t *out, bool *decided)
{
    if (p->d.kind == DRA__DIRECT_CLAIMS)
        return claims_try(e, p, n, arena, out, decided);
    return dra__direct_try(e, p, n, arena, out, decided);
}

size_t dra_engine_slot_bytes(const dra_engine_t *e)
{
    if (!e || !e->direct_on)
        return 0;
    const dra_table_t *t = e->t;
    uint32_t caps = 0; /* the most capacities of a multi-allocatable device (a share's) */
    for (uint32_t r = 0; r < t->nrows; r++)
        if ((t->flags[r] & DRA_ROW_MULTI_ALLOC) && t->dev[r] && t->dev[r]->ncaps > caps)
            caps = t->dev[r]->ncaps;
    size_t most = 0;
    for (uint32_t i = 0; i < e->nplans; i++) {
        const plan_t *p = &e->plans[i];
        const dra__direct_t *d = &p->d;
        if (d->kind == DRA__DIRECT_NONE)
            continue;
        /* FIRST: one alternative's devices; the others: every request's (All: a claim's
         * most) */
        size_t np = 0;
        for (uint32_t a = 0; a < d->nalt; a++) {
            size_t k = d->alt[a].all ? DRA_ALLOC_MAX_RESULTS : d->alt[a].k;
            np = d->kind == DRA__DIRECT_FIRST ? (k > np ? k : np) : np + k;
        }
        size_t nc = d->kind == DRA__DIRECT_CLAIMS ? p->nclaims : 1;
        size_t b = ((nc * sizeof(dra_allocation_t *) + 15) & ~(size_t)15) +
                   nc * (16 + ((sizeof(dra_allocation_t) + 15) & ~(size_t)15)) +
                   np * sizeof(dra_result_t) + 16 * nc;
        if (d->multi)
            b += np * (48 + ((caps * sizeof(dra_consumed_t) + 15) & ~(size_t)15));
        if (b > most)
            most = b;
    }
    return most;
}

/* ---- slice updates ----------------------------------------------------------------------------- */

int dra__direct_refresh(dra_engine_t *e, uint32_t n, uint32_t begin, uint32_t end)
{
    dra__direct_update_rows(e, n, begin, end);
    uint32_t lim = end < e->t->shared_begin ? end : e->t->shared_begin;
    for (uint32_t pi = 0; pi < e->nplans; pi++) {
        plan_t *p = &e->plans[pi];
        dra__direct_t *d = &p->d;
        if (d->kind != DRA__DIRECT_CLAIMS)
            continue;
        bool keep = true;
        for (uint32_t i = 0; i < d->nalt && keep; i++) {
            dra__dalt_t *al = &d->alt[i];
            if (e->sigs[al->sig].shany) { /* shared rows: the node's range is not every candidate */
                keep = false;
                break;
            }
            for (uint32_t r = begin; r < lim; r++)
                dra_bit_clear(al->ok, r);
            /* 1 ok, 0 never direct; out of memory: the allocator answers (never a guess) */
            int rc = al->all ? all_fill_range(e, al, begin, end)
                             : dra__direct_fill_range(e, al, alt_shares_ok(p, al), begin, end);
            keep = rc == 1;
            d->cons |= al->cons;
            d->multi |= al->multi;
            d->fallible |= al->cons && al->k > 1;
        }
        if (keep) { /* the requests' candidates still apart */
            d->ncons = 0;
            for (uint32_t i = 0; i < d->nalt; i++)
                d->ncons += d->alt[i].cons;
            keep = d->ncons <= 1 && groups_disjoint(e, d, begin, lim);
            for (uint32_t j = 0; j < d->nalt && keep; j++) /* groups still of one candidate list */
                keep = d->alt[j].grp == j ||
                       same_candidates(&d->alt[d->alt[j].grp], &d->alt[j], begin, lim);
            if (keep && d->multi) {
                d->share_seed = dra_fast_share_seed(e->alloc->fast);
                d->share_gen = dra__alloc_state_share_gen(e->state);
            }
        }
        if (!keep)
            d->kind = DRA__DIRECT_NONE;
    }
    return DRA_OK;
}
