/*
 * test_clockstep.c - the step a clock's readings advance by (harness/bench/clockstep.h): the
 * estimator on differences of known steps (the AMD Zen time-stamp counter's 21 ticks and the
 * 10.019 ns they make at 2.096 GHz, as read on the EPYC benchmark machine; a fine clock; a
 * coarse one), what it drops and when it cannot say, and the measurement over a clock function
 * whose readings are known.
 */
#include <stdlib.h>
#include <time.h>

#include "check.h"
#include "clockstep.h"
#include "textpages.h"

#define N 600

/* differences of k steps of `step` (a real number) from 2 to 2 + kspan - 1 steps, each the
 * difference of two readings rounded down to whole units (as the kernel's conversion does) */
static size_t fill_steps(int64_t *d, double step, int kspan)
{
    size_t n = 0;
    for (int i = 0; i < N; i++) {
        double t0 = 1000.0 + 0.37 * i; /* where between two units the first reading falls */
        int k = 2 + i % kspan;
        d[n++] = (int64_t)(t0 + k * step) - (int64_t)t0;
    }
    return n;
}

static void test_zen(void)
{
    int64_t d[N + 8];
    /* CLOCK_MONOTONIC on the Zen machine: 21 ticks of 2.096 GHz, 10.019 ns, over up to 12
     * steps (the deltas 20, 21, 29, 30, 31, ... it gave) */
    size_t n = fill_steps(d, 21 / 2.096, 11);
    CHECK_EQ_U64(dra_clock_step_of(d, n), 10);
    /* the counter itself: exact multiples of 21 ticks */
    for (size_t i = 0; i < n; i++)
        d[i] = 21 * (1 + (int64_t)(i % 9));
    CHECK_EQ_U64(dra_clock_step_of(d, n), 21);
    /* preemptions, zeros and negative differences are skipped, not counted against it */
    n = fill_steps(d, 21 / 2.096, 11);
    d[n++] = 0;
    d[n++] = -5;
    d[n++] = 123457;
    d[n++] = DRA_CLOCK_STEP_SPAN + 1;
    CHECK_EQ_U64(dra_clock_step_of(d, n), 10);
    /* one difference off the grid and within the span (a 10 ns clock cannot give 37; a 35
     * would fit a step of 5, of which every 10 is a multiple) */
    d[n++] = 37;
    CHECK_EQ_U64(dra_clock_step_of(d, n), 1);
}

static void test_fine_and_coarse(void)
{
    int64_t d[N];
    /* a clock of 1 ns: differences spread over 18..140 */
    for (int i = 0; i < N; i++)
        d[i] = 18 + (i * 7) % 123;
    CHECK_EQ_U64(dra_clock_step_of(d, N), 1);
    /* a step of 50 over 1..7 steps; of 4, the smallest told apart */
    size_t n = fill_steps(d, 50, 6);
    CHECK_EQ_U64(dra_clock_step_of(d, n), 50);
    for (int i = 0; i < N; i++)
        d[i] = 4 * (3 + i % 30);
    CHECK_EQ_U64(dra_clock_step_of(d, N), 4);
    /* a step of 100 (DRA_CLOCK_STEP_MAX) over 1..4 steps */
    for (int i = 0; i < N; i++)
        d[i] = 100 * (1 + i % 4);
    CHECK_EQ_U64(dra_clock_step_of(d, N), 100);
}

static void test_cannot_say(void)
{
    int64_t d[N];
    /* every difference 20 or 21: one multiple of any step, so no step is shown: 1 */
    for (int i = 0; i < N; i++)
        d[i] = 20 + i % 2;
    CHECK_EQ_U64(dra_clock_step_of(d, N), 1);
    /* too few differences count: 0 (the kept ones only: 63 kept among zeros) */
    for (int i = 0; i < N; i++)
        d[i] = i < (int)DRA_CLOCK_STEP_MIN_N - 1 ? 10 * (2 + i % 5) : 0;
    CHECK_EQ_U64(dra_clock_step_of(d, N), 0);
    d[N - 1] = 30; /* the 64th */
    CHECK_EQ_U64(dra_clock_step_of(d, N), 10);
    CHECK_EQ_U64(dra_clock_step_of(NULL, 5), 0);
    CHECK_EQ_U64(dra_clock_step_of(d, 0), 0);
    CHECK_EQ_U64(dra_clock_step_measure(NULL), 0);
}

/* A clock whose readings advance by 25 units a step, by 1 to 11 steps from one reading to the
 * next (whatever the wait between them). */
static int64_t fake_t, fake_n;
static int64_t fake_clock(void)
{
    fake_n++;
    fake_t += 25 * (1 + (fake_n * fake_n) % 11);
    return fake_t;
}

/* A clock of CLOCK_MONOTONIC's readings rounded down to 40 ns: its step is 40 whatever the
 * clock under it does, as long as the pairs' differences stay within the span (not under
 * valgrind, where a reading costs microseconds: checked only outside it). */
static int64_t coarse_clock(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    int64_t t = (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
    return t - t % 40;
}

static void test_measure(void)
{
    CHECK_EQ_U64(dra_clock_step_measure(fake_clock), 25);
    if (!dra_under_valgrind()) {
        uint32_t s = dra_clock_step_measure(coarse_clock);
        CHECK_MSG(s == 40, "coarse clock step %u", s);
    }
}

int main(void)
{
    RUN(test_zen);
    RUN(test_fine_and_coarse);
    RUN(test_cannot_say);
    RUN(test_measure);
    return check_summary();
}
