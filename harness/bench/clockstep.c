/*
 * clockstep.c - the step a clock's readings advance by (clockstep.h).
 */
#include "clockstep.h"

#include <stdbool.h>

/* Every kept difference within 1 of a multiple of g, and at least three multiples reached. */
static bool step_fits(const int64_t *d, size_t n, int64_t g)
{
    int64_t k0 = -1, k1 = -1, k2 = -1; /* three distinct multiples seen (indices) */
    for (size_t i = 0; i < n; i++) {
        if (d[i] <= 0 || d[i] > DRA_CLOCK_STEP_SPAN)
            continue;
        int64_t k = (d[i] + g / 2) / g; /* the nearest multiple's index */
        int64_t off = d[i] - k * g;
        if (off > 1 || off < -1)
            return false;
        if (k0 < 0 || k == k0)
            k0 = k;
        else if (k1 < 0 || k == k1)
            k1 = k;
        else if (k2 < 0)
            k2 = k;
    }
    return k2 >= 0;
}

uint32_t dra_clock_step_of(const int64_t *d, size_t n)
{
    if (!d)
        return 0;
    size_t kept = 0;
    for (size_t i = 0; i < n; i++)
        kept += d[i] > 0 && d[i] <= DRA_CLOCK_STEP_SPAN;
    if (kept < DRA_CLOCK_STEP_MIN_N)
        return 0;
    for (uint32_t g = DRA_CLOCK_STEP_MAX; g >= 4; g--)
        if (step_fits(d, n, (int64_t)g))
            return g;
    return 1;
}

uint32_t dra_clock_step_measure(int64_t (*clock)(void))
{
    enum { PAIRS = 2000 };
    int64_t d[PAIRS];
    if (!clock)
        return 0;
    for (int i = 0; i < 16; i++) /* the first readings may fault the clock's pages in */
        (void)clock();
    for (int i = 0; i < PAIRS; i++) {
        volatile uint32_t spin = 0;
        uint32_t wait = 3u * ((uint32_t)i % 97u); /* 0 to 288: a few hundred ns at most */
        int64_t t0 = clock();
        for (uint32_t j = 0; j < wait; j++)
            spin = spin + 1;
        int64_t t1 = clock();
        d[i] = t1 - t0;
    }
    return dra_clock_step_of(d, PAIRS);
}
