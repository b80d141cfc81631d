/*
 * workload.h - arrival processes: the event stream the runner consumes.
 *
 * Modes:
 *   fill    pods arrive one per time unit and never leave; the stream ends after `count` arrivals
 *           or, when the runner reports outcomes (dra_workload_report), after `stop_after`
 *           consecutive arrivals that did not fit ("submit until nothing more fits").
 *   steady  Poisson arrivals at `rate` per second with lifetimes from a distribution; every
 *           arrival that fitted departs at arrival + lifetime, so occupancy settles at about
 *           rate x mean lifetime pods (Little's law) with continuous churn. Ends after `count`
 *           arrivals and the departures of the pods still running.
 * Each arrival picks a mix entry by weight (stream DRA_STREAM_SHAPES). An entry with share k > 1
 * uses shared ResourceClaims: k consecutive arrivals of that entry reference one claim (the
 * event says which, and whether it is the first pod of it).
 *
 * Determinism: the sequence depends only on (spec, seed) and on the outcomes reported back.
 * Events are ordered by time, then departures before arrivals at equal times, then pod id.
 *
 * Ownership: the workload owns its heap and bitset (malloc at init; the departure heap grows
 * geometrically, so there is no allocation per event in steady state). Errors: DRA_EINVAL,
 * DRA_ENOMEM. Cost: O(log running pods) per event. Not thread-safe.
 */
#ifndef DRA_GEN_WORKLOAD_H
#define DRA_GEN_WORKLOAD_H

#include <stdbool.h>
#include <stdint.h>

#include "base/err.h"
#include "gen/rng.h"

typedef enum dra_wl_mode { DRA_WL_FILL = 0, DRA_WL_STEADY } dra_wl_mode_t;

typedef enum dra_dist_kind {
    DRA_DIST_CONST = 0, /* a */
    DRA_DIST_EXP,       /* mean a */
    DRA_DIST_UNIFORM    /* [a, b) */
} dra_dist_kind_t;

typedef struct dra_dist {
    dra_dist_kind_t kind;
    double a, b; /* seconds */
} dra_dist_t;

typedef struct dra_wl_mix {
    uint32_t shape; /* caller's index (e.g. into the scenario's shapes) */
    double weight;  /* > 0 */
    uint32_t share; /* pods per shared claim; 0 or 1 = one claim per pod from the template */
} dra_wl_mix_t;

typedef struct dra_workload_spec {
    dra_wl_mode_t mode;
    uint64_t count;      /* arrivals */
    uint64_t stop_after; /* fill: consecutive failures that end the stream (0 = never) */
    double rate;         /* steady: arrivals per second */
    dra_dist_t lifetime; /* steady */
    const dra_wl_mix_t *mix;
    uint32_t nmix;
} dra_workload_spec_t;

typedef enum dra_wl_event_kind { DRA_WL_ARRIVE = 1, DRA_WL_DEPART = 2 } dra_wl_event_kind_t;

typedef struct dra_wl_event {
    double time;     /* seconds (fill: arrival index) */
    uint8_t kind;    /* dra_wl_event_kind_t */
    bool new_claim;  /* ARRIVE of a shared claim's first pod */
    uint32_t mix;    /* index into spec.mix */
    uint32_t shape;  /* spec.mix[mix].shape */
    uint64_t pod;    /* 0, 1, 2, ... in arrival order */
    uint64_t claim;  /* shared claim id (per workload, 0, 1, ...), UINT64_MAX for per-pod claims */
} dra_wl_event_t;

typedef struct dra_wl_dep {
    double time;
    uint64_t pod;
    uint64_t claim;
    uint32_t mix;
    uint32_t tag; /* the caller's (dra_workload_tag); 0: none. Not part of the order */
} dra_wl_dep_t;

typedef struct dra_workload {
    dra_workload_spec_t spec;
    dra_wl_mix_t *mix;
    double *cum; /* cumulative weights */
    double total;
    dra_rng_t r_shape, r_arrival, r_life;
    uint64_t arrived;
    double next_arrival;
    dra_wl_dep_t *heap;
    size_t nheap, cap_heap;
    uint64_t fails_in_row;
    bool stopped;
    uint64_t *cur_claim;  /* per mix entry: current shared claim id */
    uint32_t *cur_fill;   /* per mix entry: pods on it so far */
    uint64_t next_claim;
    dra_wl_dep_t pending; /* the departure of the last arrival, pushed at the next call */
    bool has_pending;
    double last_arrival;  /* time of the last arrival returned */
} dra_workload_t;

DRA_NODISCARD int dra_workload_init(dra_workload_t *w, const dra_workload_spec_t *spec,
                                    uint64_t seed, dra_diag_t *diag);
void dra_workload_fini(dra_workload_t *w);
/* Next event: 1 with *ev filled, 0 at the end of the stream, or DRA_ENOMEM. */
DRA_NODISCARD int dra_workload_next(dra_workload_t *w, dra_wl_event_t *ev);
/* Optional: the runner's outcome for the arrival just returned (ok = it was placed). A pod that
 * did not fit never departs; in fill mode `stop_after` failures in a row end the stream. Must be
 * called before the next dra_workload_next. */
void dra_workload_report(dra_workload_t *w, uint64_t pod, bool ok);
/* Instead of dra_workload_report: the arrival just returned did not fit now but waits in the
 * scheduler's queue (a PodGroup) and may be placed later. It does not depart now; its lifetime
 * (steady mode; 0 in fill mode) is returned for dra_workload_depart_at. In fill mode it counts as
 * a misfit for stop_after. */
double dra_workload_report_wait(dra_workload_t *w, uint64_t pod);
/* A waiting arrival was placed at time t: it departs at t + lifetime (the departure joins the
 * stream; the stream does not end while departures are due). DRA_ENOMEM. */
DRA_NODISCARD int dra_workload_depart_at(dra_workload_t *w, uint64_t pod, uint32_t mix,
                                         double t);
/* Tag the departure of the arrival just returned (before the next dra_workload_next; ignored
 * for another pod or one that does not depart): a number of the caller's (the runner: its
 * result slot + 1) that dra_workload_peek_departures hands back with the pod, so that a
 * look-ahead finds what the pod holds without a lookup by pod. 0 is no tag (as every departure
 * starts, and one dra_workload_depart_at makes). Changes no event: the order is time, then pod.
 * O(1). */
void dra_workload_tag(dra_workload_t *w, uint64_t pod, uint32_t tag);
/* The pods of up to k departures due next (pods[0..return-1]), and when tags is not NULL their
 * tags (dra_workload_tag; 0: none) in tags[0..return-1]: the three earliest in their order (a
 * look-ahead that starts each one's loads a stage per departure needs the order), then other
 * entries of the departure heap's first k, unordered. A departure not yet in the heap (the last
 * arrival's) or one a waiting arrival gets later is not seen: for hints (prefetching) only.
 * O(k). */
static inline uint32_t dra_workload_peek_departures(const dra_workload_t *w, uint64_t *pods,
                                                    uint32_t *tags, uint32_t k);
/* The departure heap's first entries in place, for a look-ahead that reads them where they lie
 * instead of copying them out: *h = the heap (valid until w next changes), the return value
 * min(heap size, DRA_WL_PEEK_HEAP), and ord[0..2] the positions in h[0..return-1] of the three
 * earliest departures in their order (ord[i] = i for a heap of fewer than three: only the first
 * return-many are meaningful). The other entries of h[0..return-1] are the departures
 * dra_workload_peek_departures(.., DRA_WL_PEEK_HEAP) names after those three. As that one: a
 * departure not yet in the heap is not seen; for hints only. O(1). */
#define DRA_WL_PEEK_HEAP 7
static inline uint32_t dra_workload_peek_heap(const dra_workload_t *w, const dra_wl_dep_t **h,
                                              uint32_t ord[3]);
/* The same for a look-ahead that needs the two earliest only: ord[0..1] as
 * dra_workload_peek_heap gives them, ord[2] left as it was (the third's search, about 20
 * instructions, not made). O(1). */
static inline uint32_t dra_workload_peek_heap2(const dra_workload_t *w, const dra_wl_dep_t **h,
                                               uint32_t ord[2]);
/* True when w holds its invariants: a non-empty mix with strictly increasing cumulative weights
 * ending at the total, the departure heap ordered (earliest time, then pod) within its capacity,
 * shared-claim fill counts within their share, arrivals within count. O(mix + heap); meant for
 * tests and debug builds: DRA_DEBUG >= 3 asserts it at the entry of dra_workload_next, >= 2 the
 * O(1) part. */
bool dra_workload_check(const dra_workload_t *w);

/* The departure order: earlier time, then lower pod. */
static inline bool dra__wl_dep_less(const dra_wl_dep_t *a, const dra_wl_dep_t *b)
{
    return a->time < b->time || (a->time == b->time && a->pod < b->pod);
}

/* Inline: a look-ahead calls them inside a timed release. */
static inline uint32_t dra_workload_peek_heap2(const dra_workload_t *w, const dra_wl_dep_t **h,
                                               uint32_t ord[2])
{
    size_t nh = w->nheap;
    const dra_wl_dep_t *a = w->heap;
    *h = a;
    ord[0] = 0;
    ord[1] = 1;
    if (nh < 3)
        return (uint32_t)nh;
    if (dra__wl_dep_less(&a[2], &a[1])) /* the earlier child of the root */
        ord[1] = 2;
    return nh < DRA_WL_PEEK_HEAP ? (uint32_t)nh : DRA_WL_PEEK_HEAP;
}

static inline uint32_t dra_workload_peek_heap(const dra_workload_t *w, const dra_wl_dep_t **h,
                                              uint32_t ord[3])
{
    uint32_t n = dra_workload_peek_heap2(w, h, ord);
    ord[2] = 2;
    if (n < 3)
        return n;
    /* the second earliest is the earlier child of the root (ord[1]); the third, the root's
     * other child or a child of the second (children 2s + 1 and 2s + 2 <= 6: within the
     * peeked entries) */
    const dra_wl_dep_t *a = *h;
    size_t nh = w->nheap;
    uint32_t s = ord[1], t = 3 - s;
    if (2 * s + 1 < nh && dra__wl_dep_less(&a[2 * s + 1], &a[t]))
        t = 2 * s + 1;
    if (2 * s + 2 < nh && dra__wl_dep_less(&a[2 * s + 2], &a[t]))
        t = 2 * s + 2;
    ord[2] = t;
    return n;
}

static inline uint32_t dra_workload_peek_departures(const dra_workload_t *w, uint64_t *pods,
                                                    uint32_t *tags, uint32_t k)
{
    const dra_wl_dep_t *h;
    uint32_t ord[3];
    (void)dra_workload_peek_heap(w, &h, ord);
    uint32_t n = w->nheap < k ? (uint32_t)w->nheap : k; /* any k: the heap's first k */
    uint32_t first = n < 3 ? n : 3;
    for (uint32_t i = 0; i < first; i++) {
        pods[i] = h[ord[i]].pod;
        if (tags)
            tags[i] = h[ord[i]].tag;
    }
    /* the rest in heap order from entry 1, less the second and third: entries 1..nh-1 hold
     * nh - 3 others and n <= nh, so the walk ends before nh */
    for (uint32_t i = 1, m = 3; m < n; i++) {
        if (i == ord[1] || i == ord[2])
            continue;
        pods[m] = h[i].pod;
        if (tags)
            tags[m] = h[i].tag;
        m++;
    }
    return n;
}

#endif /* DRA_GEN_WORKLOAD_H */
