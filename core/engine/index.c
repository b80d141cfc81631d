/*
 * index.c - the candidate-node index: per signature a max segment tree over model nodes of
 * the free matching count (hazard nodes hold HAZARD), a plan's admission of a node and the first
 * admitted node from a position (leapfrogging its requests' trees), the score buckets best-fit
 * and spread walk, and per (signature, need, policy) a score tree: a max segment tree over
 * model nodes of the node's key in the policy's order (its score, or the score reversed), -1
 * where the signature's leaf is below the need, so the best admitted node of a plan with a
 * request of one alternative is found in O(log nodes) (engine.h). Reads the summaries, changes
 * only the trees and buckets.
 *
 * Ownership: the trees and buckets are the engine's (score trees malloc'd, built on first
 * use outside timed regions by dra_engine_prepare_policy). Errors: none (a score tree that cannot
 * be allocated is NONE and the buckets are walked). Cost: a leaf change O(log nodes); admission
 * O(requests); a leapfrog step O(requests * log nodes); a bucket walk O(nodes / 64) per bucket.
 */
#include "engine/engine_impl.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- the index ---------------------------------------------------------------------------- */


/* Leaf i of max tree t set to v (dra__max_set), in a call of its own. */
static DRA_NOINLINE void max_set(int32_t *t, uint32_t i, int32_t v)
{
    dra__max_set(t, i, v);
}

static void stree_leaf(dra_engine_t *e, dra__stree_t *st, uint32_t n);
static void stree_leaf_at(dra_engine_t *e, dra__stree_t *st, uint32_t n, int32_t lv);
static int32_t stree_key(const dra_engine_t *e, const dra__stree_t *st, uint32_t n);

void dra__tree_set(dra_engine_t *e, sig_t *s, uint32_t n)
{
#if DRA_DEBUG
    e->work.leaves_set++;
#endif
    int32_t lv = dra__leaf_value(e, s, n);
    max_set(s->tree, e->P + n, lv);
    /* score trees over the signature (best-fit, spread): the first 32 by its mask */
    for (uint32_t m = s->stm; m; m &= m - 1)
        stree_leaf_at(e, &e->st[__builtin_ctz(m)], n, lv);
    for (uint32_t i = 32; i < e->nst; i++)
        if (e->st[i].sig == (uint32_t)(s - e->sigs))
            stree_leaf_at(e, &e->st[i], n, lv);
}

void dra__tree_build(dra_engine_t *e, sig_t *s)
{
    int32_t *t = s->tree;
    for (uint32_t i = 0; i < e->P; i++)
        t[e->P + i] = i < e->nnodes ? dra__leaf_value(e, s, i) : INT32_MIN;
    dra__max_fill(t, e->P);
}

/* First node >= pos whose leaf is >= need, or NONE. In line with req_next in dra__plan_next:
 * a one-request plan's walk is one frame. */
static DRA_ALWAYS_INLINE uint32_t tree_first(const dra_engine_t *e, const sig_t *s, uint32_t pos,
                                             int32_t need)
{
    if (pos >= e->nnodes)
        return NONE;
    const int32_t *t = s->tree;
    uint32_t i = e->P + pos;
    if (t[i] >= need)
        return pos;
    if (pos == 0) { /* first-fit's first look: down from the root, without the climb */
        if (t[1] < need)
            return NONE;
        i = 1;
        while (i < e->P)
            i = t[2 * i] >= need ? 2 * i : 2 * i + 1;
        return i - e->P < e->nnodes ? i - e->P : NONE;
    }
    for (;;) {
        if (i == 1)
            return NONE;
        if ((i & 1) == 0 && t[i + 1] >= need) {
            i++;
            break;
        }
        i >>= 1;
    }
    while (i < e->P) {
        i <<= 1;
        if (t[i] < need)
            i++;
    }
    uint32_t r = i - e->P;
    return r < e->nnodes ? r : NONE;
}

/* The need of an alternative on the node's own range (INT32_MIN: always admitted). */
static int32_t alt_need(const dra_engine_t *e, const alt_t *a)
{
    const sig_t *s = &e->sigs[a->sig];
    if (s->sherr)
        return INT32_MIN;
    if (s->all) /* at least one allocatable device, none blocked (leaf -1) */
        return s->shcnt >= 1 ? 0 : 1;
    return a->k - s->shcnt;
}

/* need at or below every leaf: admitted everywhere without a look at the tree */
static bool need_trivial(const sig_t *s, int32_t need)
{
    return s->all ? need == INT32_MIN : need <= 0;
}

static bool req_admits(const dra_engine_t *e, const plan_t *p, const creq_t *rq, uint32_t n)
{
    if (!rq->nalt)
        return true;
    for (uint32_t j = 0; j < rq->nalt; j++) {
        const alt_t *a = &p->alts[rq->alt0 + j];
        if (dra__leaf_value(e, &e->sigs[a->sig], n) >= alt_need(e, a))
            return true;
    }
    return false;
}

/* First node of the plan's error nodes at or after pos, NONE when none. O(log). */
static uint32_t errn_next(const plan_t *p, uint32_t pos)
{
    uint32_t lo = 0, hi = p->nerrn;
    while (lo < hi) {
        uint32_t mid = lo + (hi - lo) / 2;
        if (p->errn[mid] < pos)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo < p->nerrn ? p->errn[lo] : NONE;
}

bool dra__plan_admits(const dra_engine_t *e, const plan_t *p, uint32_t n)
{
    if (p->err_all || (p->nerrn && errn_next(p, n) == n))
        return true;
    for (uint32_t i = 0; i < p->nreqs; i++)
        if (!req_admits(e, p, &p->reqs[i], n))
            return false;
    return true;
}

/* First node >= pos admitted by request rq, or NONE. */
static DRA_ALWAYS_INLINE uint32_t req_next(const dra_engine_t *e, const plan_t *p, const creq_t *rq,
                                           uint32_t pos)
{
    if (pos >= e->nnodes)
        return NONE;
    if (!rq->nalt)
        return pos;
    uint32_t best = NONE;
    for (uint32_t j = 0; j < rq->nalt; j++) {
        const alt_t *a = &p->alts[rq->alt0 + j];
        int32_t need = alt_need(e, a);
        const sig_t *s = &e->sigs[a->sig];
        uint32_t x = need_trivial(s, need) ? pos : tree_first(e, s, pos, need);
        if (x < best)
            best = x;
    }
    return best;
}

/* First node >= pos admitted by every request (leapfrog), or NONE. */
static uint32_t plan_next_all(const dra_engine_t *e, const plan_t *p, uint32_t pos)
{
    if (p->nreqs == 1) /* the request's first node is the plan's: no second look to confirm it */
        return req_next(e, p, &p->reqs[0], pos);
    for (;;) {
        if (pos >= e->nnodes)
            return NONE;
        uint32_t hi = pos;
        for (uint32_t i = 0; i < p->nreqs; i++) {
            uint32_t x = req_next(e, p, &p->reqs[i], hi);
            if (x == NONE)
                return NONE;
            hi = x;
        }
        if (hi == pos)
            return pos;
        pos = hi;
    }
}

/* First node >= pos the plan admits: every request does, or it is an error node. */
uint32_t dra__plan_next(const dra_engine_t *e, const plan_t *p, uint32_t pos)
{
    if (p->err_all)
        return pos < e->nnodes ? pos : NONE;
    uint32_t x = plan_next_all(e, p, pos);
    if (p->nerrn) {
        uint32_t y = errn_next(p, pos);
        if (y < x)
            x = y;
    }
    return x;
}

bool dra_engine_admits(const dra_engine_t *e, uint32_t plan, uint32_t node)
{
    if (plan >= e->nplans || node >= e->nnodes)
        return false;
    const plan_t *p = &e->plans[plan];
    return !p->indexed || dra__plan_admits(e, p, node);
}

/* ---- scores and buckets ------------------------------------------------------------------- */

uint32_t dra__bucket_of(const dra_engine_t *e, uint32_t score)
{
    return score < e->nbuckets - 1 ? score : e->nbuckets - 1;
}

static void bucket_add(dra_engine_t *e, uint32_t b, uint32_t n, bool on)
{
    uint64_t *w = e->bbits + (size_t)b * e->W;
    uint64_t *sm = e->bsum + (size_t)b * e->W2;
    uint32_t wi = n >> 6;
    if (on) {
        w[wi] |= (uint64_t)1 << (n & 63);
        sm[wi >> 6] |= (uint64_t)1 << (wi & 63);
        e->bcount[b]++;
    } else {
        w[wi] &= ~((uint64_t)1 << (n & 63));
        if (!w[wi])
            sm[wi >> 6] &= ~((uint64_t)1 << (wi & 63));
        e->bcount[b]--;
    }
}

void dra__score_follow(dra_engine_t *e, uint32_t n, uint32_t was)
{
    uint32_t ob = dra__bucket_of(e, was), nb = dra__bucket_of(e, e->score[n]);
    if (ob != nb && e->buckets_live) {
        bucket_add(e, ob, n, false);
        bucket_add(e, nb, n, true);
    }
    if (e->nhidden) { /* a hidden leaf says nothing of the node's summary */
        for (uint32_t i = 0; i < e->nst; i++)
            stree_leaf(e, &e->st[i], n);
        return;
    }
    /* A score tree's leaf is its node's key exactly when the signature's leaf reaches the tree's
     * need, else -1 (keys are >= 0): every change of a signature's leaf sets the leaves of the
     * score trees over it (dra__tree_set), and both callers set the node's score after the
     * signature leaves their commit or release deferred (dra__tree_flush), with no leaf hidden
     * (a placement unhides its leaves before it returns). So the sign of the leaf is the
     * summary's verdict and only the key moves: no signature's counts are read here. The callers
     * set the new score before that flush, so a leaf the flush set already has its new key and
     * is not set twice (once with the old key, then with the new). */
    uint32_t leaf = e->P + n;
    for (uint32_t i = 0; i < e->nst; i++) {
        dra__stree_t *st = &e->st[i];
        int32_t o = st->t[leaf];
        DRA_ASSERT_INTERNAL((o >= 0) == (dra__leaf_value(e, &e->sigs[st->sig], n) >= st->need));
        if (o < 0)
            continue;
        int32_t k = stree_key(e, st, n);
        if (k != o)
            max_set(st->t, leaf, k);
    }
}

/* Put every node in the bucket of its score and keep them there from now on. O(buckets *
 * nodes / 64 + nodes), once. */
void dra__buckets_sync(dra_engine_t *e)
{
    if (e->buckets_live)
        return;
    memset(e->bbits, 0, (size_t)e->nbuckets * e->W * sizeof *e->bbits);
    memset(e->bsum, 0, (size_t)e->nbuckets * e->W2 * sizeof *e->bsum);
    memset(e->bcount, 0, e->nbuckets * sizeof *e->bcount);
    for (uint32_t i = 0; i < e->nnodes; i++)
        bucket_add(e, dra__bucket_of(e, e->score[i]), i, true);
    e->buckets_live = true;
}

/* ---- score trees (best-fit, spread) -------------------------------------------------------- */

/* The key of node n in a score tree: best-fit walks nodes by score, the most first, spread the
 * fewest first; both by node order within a score. */
static int32_t stree_key(const dra_engine_t *e, const dra__stree_t *st, uint32_t n)
{
    uint32_t sc = e->score[n] < (uint32_t)INT32_MAX ? e->score[n] : (uint32_t)INT32_MAX - 1;
    return st->most ? (int32_t)sc : INT32_MAX - 1 - (int32_t)sc;
}

/* Score tree st's leaf of node n, its signature's leaf being lv. */
static inline void stree_leaf_at(dra_engine_t *e, dra__stree_t *st, uint32_t n, int32_t lv)
{
    int32_t v = lv >= st->need ? stree_key(e, st, n) : -1;
    if (st->t[e->P + n] != v)
        max_set(st->t, e->P + n, v);
}

static void stree_leaf(dra_engine_t *e, dra__stree_t *st, uint32_t n)
{
    stree_leaf_at(e, st, n, dra__leaf_value(e, &e->sigs[st->sig], n));
}

/* The score tree of (signature, need, policy), built on first use. NONE: out of memory. */
static uint32_t stree_get(dra_engine_t *e, uint32_t sig, int32_t need, bool most)
{
    for (uint32_t i = 0; i < e->nst; i++)
        if (e->st[i].sig == sig && e->st[i].need == need && e->st[i].most == most)
            return i;
    if (e->nst == e->capst) {
        uint32_t nc = e->capst ? e->capst * 2 : 4;
        dra__stree_t *ns = dra_mem_realloc(e->st, nc * sizeof *ns);
        if (!ns)
            return NONE;
        e->st = ns;
        e->capst = nc;
    }
    if (!e->hidden && !(e->hidden = dra_mem_malloc(((size_t)e->nnodes + 1) * sizeof *e->hidden)))
        return NONE;
    int32_t *t = dra_mem_malloc(2 * (size_t)e->P * sizeof *t);
    if (!t)
        return NONE;
    dra__stree_t *st = &e->st[e->nst];
    *st = (dra__stree_t){.sig = sig, .need = need, .most = most, .t = t};
    if (e->nst < 32)
        e->sigs[sig].stm |= 1u << e->nst;
    const sig_t *s = &e->sigs[sig];
    for (uint32_t i = 0; i < e->P; i++)
        t[e->P + i] = i < e->nnodes && dra__leaf_value(e, s, i) >= need ? stree_key(e, st, i) : -1;
    dra__max_fill(t, e->P);
    return e->nst++;
}

uint32_t dra__plan_stree(dra_engine_t *e, const plan_t *p, bool most)
{
    if (!p->indexed || p->hazard || p->err_all || p->nerrn)
        return NONE;
    for (uint32_t i = 0; i < p->nreqs; i++) {
        const creq_t *rq = &p->reqs[i];
        if (rq->nalt != 1)
            continue;
        const alt_t *a = &p->alts[rq->alt0];
        const sig_t *s = &e->sigs[a->sig];
        if (s->shany || s->all || a->k < 1)
            continue; /* the need follows the shared range, or All's leaves, or any node */
        return stree_get(e, a->sig, alt_need(e, a), most);
    }
    return NONE;
}

uint32_t dra__stree_best(const dra_engine_t *e, uint32_t st)
{
    const int32_t *t = e->st[st].t;
    if (t[1] < 0)
        return NONE;
    uint32_t i = 1;
    while (i < e->P)
        i = t[2 * i] == t[1] ? 2 * i : 2 * i + 1;
    return i - e->P;
}

void dra__stree_hide(dra_engine_t *e, uint32_t st, uint32_t n)
{
    max_set(e->st[st].t, e->P + n, -1);
    e->hidden[e->nhidden++] = n;
}

void dra__stree_unhide(dra_engine_t *e, uint32_t st)
{
    for (uint32_t i = 0; i < e->nhidden; i++)
        stree_leaf(e, &e->st[st], e->hidden[i]);
    e->nhidden = 0;
}

bool dra__stree_check(const dra_engine_t *e, char *why, size_t len)
{
    for (uint32_t g = 0; g < e->nsigs; g++) { /* each signature names its first 32 trees */
        uint32_t m = 0;
        for (uint32_t i = 0; i < e->nst && i < 32; i++)
            m |= e->st[i].sig == g ? 1u << i : 0;
        if (e->sigs[g].stm != m) {
            snprintf(why, len, "signature %u: score trees %#x, its mask %#x", g, m, e->sigs[g].stm);
            return false;
        }
    }
    for (uint32_t i = 0; i < e->nst; i++) {
        const dra__stree_t *st = &e->st[i];
        const sig_t *s = &e->sigs[st->sig];
        for (uint32_t n = 0; n < e->nnodes; n++) {
            int32_t v = dra__leaf_value(e, s, n) >= st->need ? stree_key(e, st, n) : -1;
            if (st->t[e->P + n] != v) {
                snprintf(why, len, "score tree %u node %u: %d, summary %d", i, n, v,
                         st->t[e->P + n]);
                return false;
            }
        }
        uint32_t k = dra__max_stale(st->t, e->P);
        if (k == 0) {
            snprintf(why, len, "score tree %u: slot 0 is %d, not the rise's stop", i, st->t[0]);
            return false;
        }
        if (k < e->P) {
            snprintf(why, len, "score tree %u: inner node %u stale", i, k);
            return false;
        }
    }
    return true;
}

void dra_engine_prepare_policy(dra_engine_t *e, dra_engine_policy_t policy)
{
    if (!e || (policy != DRA_ENGINE_BEST_FIT && policy != DRA_ENGINE_SPREAD))
        return;
    dra__buckets_sync(e);
    for (uint32_t i = 0; i < e->nplans; i++) /* out of memory: built on the first placement */
        (void)dra__plan_stree(e, &e->plans[i], policy == DRA_ENGINE_BEST_FIT);
}

/* Next node >= from in bucket b, or NONE. */
uint32_t dra__bucket_next(const dra_engine_t *e, uint32_t b, uint32_t from)
{
    if (from >= e->nnodes)
        return NONE;
    const uint64_t *w = e->bbits + (size_t)b * e->W;
    const uint64_t *sm = e->bsum + (size_t)b * e->W2;
    uint32_t wi = from >> 6;
    uint64_t cur = w[wi] & (~(uint64_t)0 << (from & 63));
    if (cur)
        return (wi << 6) + (uint32_t)__builtin_ctzll(cur);
    wi++;
    while (wi < e->W) {
        uint32_t si = wi >> 6;
        uint64_t sc = sm[si] & (~(uint64_t)0 << (wi & 63));
        if (sc) {
            wi = (si << 6) + (uint32_t)__builtin_ctzll(sc);
            return (wi << 6) + (uint32_t)__builtin_ctzll(w[wi]);
        }
        wi = (si + 1) << 6;
    }
    return NONE;
}

uint32_t dra_engine_score(const dra_engine_t *e, uint32_t node)
{
    return e && node < e->nnodes ? e->score[node] : 0;
}
