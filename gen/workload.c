/* workload.c - fill and steady-state arrival processes; see workload.h. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "gen/workload.h"
#include "gen/workload_tests.h"

double dra_dist_draw(const dra_dist_t *d, dra_rng_t *r)
{
    switch (d->kind) {
    case DRA_DIST_EXP:
        return dra_rng_exp(r, d->a);
    case DRA_DIST_UNIFORM:
        return d->a + (d->b - d->a) * dra_rng_unit(r);
    default:
        return d->a;
    }
}

int dra_workload_init(dra_workload_t *w, const dra_workload_spec_t *spec, uint64_t seed, dra_diag_t *diag)
{
    memset(w, 0, sizeof *w);
    if (!spec->nmix)
        return dra_diag_set(diag, DRA_EINVAL, NULL, 0, 0, "workload: empty mix");
    if (spec->mode == DRA_WL_STEADY) {
        if (!(spec->rate > 0) || !isfinite(spec->rate))
            return dra_diag_set(diag, DRA_EINVAL, NULL, 0, 0, "workload: steady mode needs rate > 0");
        const dra_dist_t *l = &spec->lifetime;
        if (!(l->a > 0) || !isfinite(l->a) || (l->kind == DRA_DIST_UNIFORM && !(l->b >= l->a && isfinite(l->b))))
            return dra_diag_set(diag, DRA_EINVAL, NULL, 0, 0, "workload: lifetime must be positive and finite");
    }
    w->spec = *spec;
    w->mix = malloc(spec->nmix * sizeof *w->mix);
    w->cum = malloc(spec->nmix * sizeof *w->cum);
    w->cur_claim = calloc(spec->nmix, sizeof *w->cur_claim);
    w->cur_fill = calloc(spec->nmix, sizeof *w->cur_fill);
    if (!w->mix || !w->cum || !w->cur_claim || !w->cur_fill) {
        dra_workload_fini(w);
        return DRA_ENOMEM;
    }
    memcpy(w->mix, spec->mix, spec->nmix * sizeof *w->mix);
    w->spec.mix = w->mix;
    for (uint32_t i = 0; i < spec->nmix; i++) {
        if (!(spec->mix[i].weight > 0) || !isfinite(spec->mix[i].weight)) {
            dra_workload_fini(w);
            return dra_diag_set(diag, DRA_EINVAL, NULL, 0, 0, "workload: mix entry %u: weight must be > 0", i);
        }
        w->total += spec->mix[i].weight;
        w->cum[i] = w->total;
        w->cur_fill[i] = UINT32_MAX; /* no current shared claim */
    }
    dra_rng_seed(&w->r_shape, seed, DRA_STREAM_SHAPES);
    dra_rng_seed(&w->r_arrival, seed, DRA_STREAM_ARRIVAL);
    dra_rng_seed(&w->r_life, seed, DRA_STREAM_LIFETIME);
    w->next_arrival = spec->mode == DRA_WL_STEADY ? dra_rng_exp(&w->r_arrival, 1.0 / spec->rate) : 0.0;
    if (spec->mode == DRA_WL_STEADY) {
        /* expected occupancy plus headroom; grows geometrically if exceeded */
        double occ = spec->rate * spec->lifetime.a * (spec->lifetime.kind == DRA_DIST_UNIFORM ? 2 : 1);
        double cap = occ * 2 + 1024;
        if (cap > (double)spec->count + 1)
            cap = (double)spec->count + 1;
        w->cap_heap = (size_t)cap;
        w->heap = malloc(w->cap_heap * sizeof *w->heap);
        if (!w->heap) {
            dra_workload_fini(w);
            return DRA_ENOMEM;
        }
    }
    DRA_ASSERT_EXPENSIVE(dra_workload_check(w));
    return DRA_OK;
}

/* The O(1) part of dra_workload_check. */
static bool shape_ok(const dra_workload_t *w)
{
    return w->mix && w->cum && w->cur_claim && w->cur_fill && w->spec.nmix >= 1 &&
           w->spec.mix == w->mix && w->total > 0 && w->nheap <= w->cap_heap &&
           (w->nheap == 0 || w->heap) && w->arrived <= w->spec.count;
}

static bool dep_less(const dra_wl_dep_t *a, const dra_wl_dep_t *b);

bool dra_workload_check(const dra_workload_t *w)
{
    if (!shape_ok(w))
        return false;
    double prev = 0;
    for (uint32_t i = 0; i < w->spec.nmix; i++) {
        if (!(w->cum[i] > prev))
            return false;
        prev = w->cum[i];
        uint32_t share = w->mix[i].share;
        if (w->cur_fill[i] != UINT32_MAX && (share <= 1 || w->cur_fill[i] > share))
            return false;
    }
    if (prev != w->total)
        return false;
    for (size_t i = 1; i < w->nheap; i++)
        if (dep_less(&w->heap[i], &w->heap[(i - 1) / 2]))
            return false;
    return true;
}

void dra_workload_fini(dra_workload_t *w)
{
    free(w->mix);
    free(w->cum);
    free(w->heap);
    free(w->cur_claim);
    free(w->cur_fill);
    memset(w, 0, sizeof *w);
}

static bool dep_less(const dra_wl_dep_t *a, const dra_wl_dep_t *b)
{
    return dra__wl_dep_less(a, b);
}

static int heap_push(dra_workload_t *w, const dra_wl_dep_t *d)
{
    if (w->nheap == w->cap_heap) {
        size_t nc = w->cap_heap ? w->cap_heap * 2 : 1024;
        dra_wl_dep_t *nh = realloc(w->heap, nc * sizeof *nh);
        if (!nh)
            return DRA_ENOMEM;
        w->heap = nh;
        w->cap_heap = nc;
    }
    size_t i = w->nheap++;
    while (i > 0) {
        size_t p = (i - 1) / 2;
        if (!dep_less(d, &w->heap[p]))
            break;
        w->heap[i] = w->heap[p];
        i = p;
    }
    w->heap[i] = *d;
    return DRA_OK;
}

static dra_wl_dep_t heap_pop(dra_workload_t *w)
{
    dra_wl_dep_t top = w->heap[0];
    dra_wl_dep_t last = w->heap[--w->nheap];
    size_t i = 0, n = w->nheap;
    for (;;) {
        size_t l = 2 * i + 1, s = i;
        const dra_wl_dep_t *best = &last;
        if (l < n && dep_less(&w->heap[l], best))
            s = l, best = &w->heap[l];
        if (l + 1 < n && dep_less(&w->heap[l + 1], best))
            s = l + 1;
        if (s == i)
            break;
        w->heap[i] = w->heap[s];
        i = s;
    }
    if (n)
        w->heap[i] = last;
    return top;
}

void dra_workload_report(dra_workload_t *w, uint64_t pod, bool ok)
{
    DRA_ASSERT_INTERNAL(shape_ok(w));
    if (w->has_pending && w->pending.pod == pod && !ok)
        w->has_pending = false; /* never departs */
    if (w->spec.mode == DRA_WL_FILL) {
        w->fails_in_row = ok ? 0 : w->fails_in_row + 1;
        if (w->spec.stop_after && w->fails_in_row >= w->spec.stop_after)
            w->stopped = true;
    }
}

double dra_workload_report_wait(dra_workload_t *w, uint64_t pod)
{
    double life = 0;
    if (w->has_pending && w->pending.pod == pod) {
        life = w->pending.time - w->last_arrival;
        w->has_pending = false;
    }
    dra_workload_report(w, pod, false);
    return life;
}

void dra_workload_tag(dra_workload_t *w, uint64_t pod, uint32_t tag)
{
    if (w->has_pending && w->pending.pod == pod)
        w->pending.tag = tag;
}

int dra_workload_depart_at(dra_workload_t *w, uint64_t pod, uint32_t mix, double t)
{
    if (mix >= w->spec.nmix)
        return DRA_EINVAL;
    dra_wl_dep_t d = {t, pod, UINT64_MAX, mix, 0};
    return heap_push(w, &d);
}

static uint32_t pick_mix(dra_workload_t *w)
{
    if (w->spec.nmix == 1)
        return 0;
    double u = dra_rng_unit(&w->r_shape) * w->total;
    uint32_t lo = 0, hi = w->spec.nmix - 1;
    while (lo < hi) { /* first i with u < cum[i] */
        uint32_t mid = (lo + hi) / 2;
        if (u < w->cum[mid])
            hi = mid;
        else
            lo = mid + 1;
    }
    return lo;
}

int dra_workload_next(dra_workload_t *w, dra_wl_event_t *ev)
{
    DRA_ASSERT_INTERNAL(shape_ok(w));
    DRA_ASSERT_EXPENSIVE(dra_workload_check(w));
    if (w->has_pending) {
        w->has_pending = false;
        if (heap_push(w, &w->pending) != DRA_OK)
            return DRA_ENOMEM;
    }
    bool more = !w->stopped && w->arrived < w->spec.count;
    if (w->nheap && (!more || w->heap[0].time <= w->next_arrival)) {
        dra_wl_dep_t d = heap_pop(w);
        memset(ev, 0, sizeof *ev);
        ev->time = d.time;
        ev->kind = DRA_WL_DEPART;
        ev->pod = d.pod;
        ev->claim = d.claim;
        ev->mix = d.mix;
        ev->shape = w->mix[d.mix].shape;
        return 1;
    }
    if (!more)
        return 0;
    memset(ev, 0, sizeof *ev);
    ev->time = w->next_arrival;
    w->last_arrival = ev->time;
    ev->kind = DRA_WL_ARRIVE;
    ev->pod = w->arrived++;
    ev->mix = pick_mix(w);
    ev->shape = w->mix[ev->mix].shape;
    ev->claim = UINT64_MAX;
    uint32_t share = w->mix[ev->mix].share;
    if (share > 1) {
        if (w->cur_fill[ev->mix] >= share) {
            w->cur_claim[ev->mix] = w->next_claim++;
            w->cur_fill[ev->mix] = 0;
            ev->new_claim = true;
        }
        w->cur_fill[ev->mix]++;
        ev->claim = w->cur_claim[ev->mix];
    }
    if (w->spec.mode == DRA_WL_STEADY) {
        w->pending.time = ev->time + dra_dist_draw(&w->spec.lifetime, &w->r_life);
        w->pending.pod = ev->pod;
        w->pending.claim = ev->claim;
        w->pending.mix = ev->mix;
        w->pending.tag = 0; /* none until the caller's dra_workload_tag */
        w->has_pending = true;
        w->next_arrival += dra_rng_exp(&w->r_arrival, 1.0 / w->spec.rate);
    } else {
        w->next_arrival += 1.0;
    }
    return 1;
}
