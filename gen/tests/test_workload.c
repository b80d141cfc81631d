/* test_workload.c - the workload's distributions (workload_tests.h) and arrival streams. */
#include <math.h>
#include <stdint.h>
#include <string.h>

#include "check.h"
#include "gen/rng.h"
#include "gen/workload.h"
#include "gen/workload_tests.h"

static void test_dist_const(void)
{
    dra_rng_t r;
    dra_rng_seed(&r, 1, 0);
    dra_dist_t d = {DRA_DIST_CONST, 2.5, 0};
    for (int i = 0; i < 100; i++)
        CHECK(dra_dist_draw(&d, &r) == 2.5);
}

static void test_dist_uniform(void)
{
    dra_rng_t r;
    dra_rng_seed(&r, 7, 0);
    dra_dist_t d = {DRA_DIST_UNIFORM, 10, 20};
    double sum = 0, lo = INFINITY, hi = -INFINITY;
    const int n = 100000;
    for (int i = 0; i < n; i++) {
        double x = dra_dist_draw(&d, &r);
        sum += x;
        lo = x < lo ? x : lo;
        hi = x > hi ? x : hi;
    }
    CHECK(lo >= 10 && hi < 20);
    CHECK(lo < 10.01 && hi > 19.99);
    CHECK_MSG(fabs(sum / n - 15) < 0.05, "mean %.4f", sum / n);
}

static void test_dist_exp(void)
{
    dra_rng_t r;
    dra_rng_seed(&r, 42, 0);
    dra_dist_t d = {DRA_DIST_EXP, 3, 0};
    double sum = 0;
    const int n = 200000;
    int above = 0;
    for (int i = 0; i < n; i++) {
        double x = dra_dist_draw(&d, &r);
        CHECK(x >= 0 && isfinite(x));
        sum += x;
        above += x > 3;
    }
    CHECK_MSG(fabs(sum / n - 3) < 0.05, "mean %.4f", sum / n);
    /* P(X > mean) = 1/e */
    CHECK_MSG(fabs((double)above / n - exp(-1)) < 0.01, "P(X > mean) %.4f", (double)above / n);
}

static void test_dist_deterministic(void)
{
    dra_rng_t a, b;
    dra_rng_seed(&a, 99, 3);
    dra_rng_seed(&b, 99, 3);
    dra_dist_t d = {DRA_DIST_EXP, 0.5, 0};
    for (int i = 0; i < 1000; i++)
        CHECK(dra_dist_draw(&d, &a) == dra_dist_draw(&d, &b));
}

/* dra_workload_check holds over a steady stream with departures and shared claims, and fails
 * on a broken heap, cumulative weights or fill count. */
static void test_check(void)
{
    dra_wl_mix_t mix[] = {{0, 3, 1}, {1, 1, 4}};
    dra_workload_spec_t spec = {.mode = DRA_WL_STEADY, .count = 5000, .rate = 100,
                                .lifetime = {DRA_DIST_EXP, 2, 0}, .mix = mix, .nmix = 2};
    dra_workload_t w;
    dra_diag_t d;
    CHECK_OK(dra_workload_init(&w, &spec, 5, &d));
    CHECK(dra_workload_check(&w));
    dra_wl_event_t ev;
    int rc, departs = 0, n = 0;
    while ((rc = dra_workload_next(&w, &ev)) == 1) {
        departs += ev.kind == DRA_WL_DEPART;
        if (ev.kind == DRA_WL_ARRIVE)
            dra_workload_report(&w, ev.pod, ev.pod % 5 != 0);
        if (++n % 97 == 0)
            CHECK(dra_workload_check(&w));
        if (n == 3000)
            break;
    }
    CHECK(rc == 1 && departs > 100 && w.nheap > 10);
    CHECK(dra_workload_check(&w));
    dra_wl_dep_t t = w.heap[0];
    w.heap[0] = w.heap[w.nheap - 1];
    w.heap[w.nheap - 1] = t;
    CHECK(!dra_workload_check(&w));
    w.heap[w.nheap - 1] = w.heap[0];
    w.heap[0] = t;
    CHECK(dra_workload_check(&w));
    double c0 = w.cum[0];
    w.cum[0] = w.cum[1];
    CHECK(!dra_workload_check(&w));
    w.cum[0] = c0;
    uint32_t f = w.cur_fill[1];
    w.cur_fill[1] = 5; /* more pods on the shared claim than its share of 4 */
    CHECK(!dra_workload_check(&w));
    w.cur_fill[1] = f;
    CHECK(dra_workload_check(&w));
    dra_workload_fini(&w);
}

/* dra_workload_peek_departures names the next departures in their order (right after a
 * departure, when no arrival's departure waits to join the heap): the next one first, the one
 * after it second, and the third third. */
static void test_peek_departures(void)
{
    dra_wl_mix_t mix[] = {{0, 1, 1}};
    dra_workload_spec_t spec = {.mode = DRA_WL_STEADY, .count = 4000, .rate = 100,
                                .lifetime = {DRA_DIST_EXP, 2, 0}, .mix = mix, .nmix = 1};
    dra_workload_t w;
    dra_diag_t d;
    CHECK_OK(dra_workload_init(&w, &spec, 11, &d));
    dra_wl_event_t ev;
    uint64_t pods[3] = {0}, after[3] = {0};
    uint32_t n = 0, nafter = 0;
    int rc, seen = 0, seen2 = 0;
    bool prev_depart = false, prev2_depart = false;
    while ((rc = dra_workload_next(&w, &ev)) == 1) {
        if (ev.kind == DRA_WL_ARRIVE) {
            dra_workload_report(&w, ev.pod, true);
            prev_depart = prev2_depart = false;
            continue;
        }
        if (prev_depart && n) {
            CHECK(ev.pod == pods[0]);
            seen++;
        }
        if (prev2_depart && nafter > 1) { /* the second departure after the peek */
            CHECK(ev.pod == after[1]);
            seen2++;
        }
        memcpy(after, pods, sizeof after);
        nafter = n;
        prev2_depart = prev_depart;
        n = dra_workload_peek_departures(&w, pods, NULL, 3);
        CHECK(n == (w.nheap < 3 ? w.nheap : 3));
        /* the three are the heap's three earliest, in order (by time, then pod) */
        for (uint32_t i = 0; i < n; i++) {
            size_t before = 0, at = SIZE_MAX;
            for (size_t j = 0; j < w.nheap; j++)
                if (w.heap[j].pod == pods[i])
                    at = j;
            CHECK(at != SIZE_MAX);
            for (size_t j = 0; at != SIZE_MAX && j < w.nheap; j++)
                before += w.heap[j].time < w.heap[at].time ||
                          (w.heap[j].time == w.heap[at].time && w.heap[j].pod < w.heap[at].pod);
            CHECK_EQ_U64(before, i);
        }
        CHECK(dra_workload_peek_departures(&w, pods + 2, NULL, 0) == 0);
        /* seven: the same three first, then other entries of the heap's first seven, each once,
         * with their tags (every heap size from 0 up passes here as the stream fills and drains) */
        uint64_t p7[7];
        uint32_t t7[7], n7 = dra_workload_peek_departures(&w, p7, t7, 7);
        CHECK(n7 == (w.nheap < 7 ? w.nheap : 7));
        for (uint32_t i = 0; i < n7; i++) {
            if (i < n)
                CHECK(p7[i] == pods[i]);
            size_t at = SIZE_MAX;
            for (size_t j = 0; j < n7; j++)
                if (w.heap[j].pod == p7[i])
                    at = j;
            CHECK(at != SIZE_MAX && t7[i] == w.heap[at].tag);
            for (uint32_t j = 0; j < i; j++)
                CHECK(p7[j] != p7[i]);
        }
        prev_depart = true;
    }
    CHECK(rc == 0 && seen > 100 && seen2 > 10);
    dra_workload_fini(&w);
}

/* dra_workload_peek_heap: the heap's first min(size, 7) entries in place, and among them the
 * positions of the three earliest departures of the whole heap in their order; the entries it
 * names are the ones dra_workload_peek_departures(.., 7) copies out, in its order;
 * dra_workload_peek_heap2 the first two of those positions. */
static void test_peek_heap(void)
{
    dra_wl_mix_t mix[] = {{0, 1, 1}};
    dra_workload_spec_t spec = {.mode = DRA_WL_STEADY, .count = 4000, .rate = 100,
                                .lifetime = {DRA_DIST_EXP, 2, 0}, .mix = mix, .nmix = 1};
    dra_workload_t w;
    dra_diag_t d;
    CHECK_OK(dra_workload_init(&w, &spec, 23, &d));
    dra_wl_event_t ev;
    int rc, peeked = 0, third_deep = 0;
    while ((rc = dra_workload_next(&w, &ev)) == 1) {
        if (ev.kind == DRA_WL_ARRIVE) {
            dra_workload_report(&w, ev.pod, true);
            dra_workload_tag(&w, ev.pod, (uint32_t)ev.pod + 1);
        }
        const dra_wl_dep_t *h = NULL;
        uint32_t ord[3] = {9, 9, 9};
        uint32_t n = dra_workload_peek_heap(&w, &h, ord);
        CHECK(h == w.heap);
        CHECK_EQ_U64(n, w.nheap < DRA_WL_PEEK_HEAP ? w.nheap : DRA_WL_PEEK_HEAP);
        CHECK(ord[0] == 0);
        for (uint32_t i = 0; i < n && i < 3; i++) {
            CHECK(ord[i] < n);
            for (uint32_t j = 0; j < i; j++)
                CHECK(ord[j] != ord[i]);
            /* the i-th earliest of the whole heap (by time, then pod) */
            size_t before = 0;
            for (size_t j = 0; ord[i] < n && j < w.nheap; j++)
                before += dra__wl_dep_less(&w.heap[j], &h[ord[i]]);
            CHECK_EQ_U64(before, i);
        }
        third_deep += n >= 3 && ord[2] >= 3; /* the third a child of the second */
        /* dra_workload_peek_heap2: the same entries, the same two earliest */
        const dra_wl_dep_t *h2 = NULL;
        uint32_t ord2[2] = {9, 9};
        CHECK(dra_workload_peek_heap2(&w, &h2, ord2) == n && h2 == h);
        for (uint32_t i = 0; i < n && i < 2; i++)
            CHECK(ord2[i] == ord[i]);
        uint64_t p7[DRA_WL_PEEK_HEAP];
        uint32_t t7[DRA_WL_PEEK_HEAP];
        uint32_t n7 = dra_workload_peek_departures(&w, p7, t7, DRA_WL_PEEK_HEAP);
        CHECK(n7 == n);
        for (uint32_t i = 0; i < n7 && i < 3; i++)
            CHECK(p7[i] == h[ord[i]].pod && t7[i] == h[ord[i]].tag);
        for (uint32_t i = 3; i < n7; i++) { /* the rest: the other peeked entries */
            bool found = false;
            for (uint32_t j = 1; j < n; j++)
                found |= j != ord[1] && j != ord[2] && h[j].pod == p7[i];
            CHECK(found);
        }
        peeked++;
    }
    CHECK(rc == 0 && peeked > 1000 && third_deep > 100);
    dra_workload_fini(&w);
}

/* dra_workload_tag: each departure comes back from dra_workload_peek_departures with the tag its
 * arrival was given (0 for an arrival left untagged, a tag for another pod is ignored), and the
 * tags change no event: the stream equals an untagged run's. */
static void test_tags(void)
{
    dra_wl_mix_t mix[] = {{0, 1, 1}};
    dra_workload_spec_t spec = {.mode = DRA_WL_STEADY, .count = 3000, .rate = 100,
                                .lifetime = {DRA_DIST_EXP, 2, 0}, .mix = mix, .nmix = 1};
    dra_workload_t w, u;
    dra_diag_t d;
    CHECK_OK(dra_workload_init(&w, &spec, 5, &d));
    CHECK_OK(dra_workload_init(&u, &spec, 5, &d));
    dra_wl_event_t ev, eu;
    uint64_t pods[7];
    uint32_t tags[7];
    int rc, peeked = 0, untagged = 0;
    while ((rc = dra_workload_next(&w, &ev)) == 1) {
        CHECK(dra_workload_next(&u, &eu) == 1);
        CHECK(ev.kind == eu.kind && ev.pod == eu.pod && ev.time == eu.time);
        if (ev.kind == DRA_WL_ARRIVE) {
            dra_workload_report(&w, ev.pod, true);
            dra_workload_report(&u, eu.pod, true);
            dra_workload_tag(&w, ev.pod + 1, 77); /* another pod: ignored */
            if (ev.pod % 5) /* every fifth untagged */
                dra_workload_tag(&w, ev.pod, (uint32_t)(ev.pod * 3 + 1));
            continue;
        }
        uint32_t n = dra_workload_peek_departures(&w, pods, tags, 7);
        for (uint32_t i = 0; i < n; i++) {
            CHECK_EQ_U64(tags[i], pods[i] % 5 ? pods[i] * 3 + 1 : 0);
            peeked++;
            untagged += tags[i] == 0;
        }
    }
    CHECK(rc == 0 && dra_workload_next(&u, &eu) == 0);
    CHECK(peeked > 1000 && untagged > 100);
    dra_workload_fini(&w);
    dra_workload_fini(&u);
}

int main(void)
{
    RUN(test_check);
    RUN(test_peek_departures);
    RUN(test_peek_heap);
    RUN(test_tags);
    RUN(test_dist_const);
    RUN(test_dist_uniform);
    RUN(test_dist_exp);
    RUN(test_dist_deterministic);
    return check_summary();
}
