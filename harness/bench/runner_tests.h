/*
 * runner_tests.h - the runner's test hook (HdrHistogram's hdr_tests.h idea): not part of the
 * runner's API, included only by runner.c and the tests that watch its timed regions.
 */
#ifndef DRA_RUNNER_TESTS_H
#define DRA_RUNNER_TESTS_H

/* When set, called with DRA_RUNNER_HOOK_ENTER when a timed region starts and
 * DRA_RUNNER_HOOK_LEAVE when it ends (both outside the measured interval), and with
 * DRA_RUNNER_HOOK_WARMUP / DRA_RUNNER_HOOK_REP when the warm-up / a measured repetition begins.
 * Tests count mallocs between ENTER and LEAVE. NULL in production. */
enum {
    DRA_RUNNER_HOOK_LEAVE = 0,
    DRA_RUNNER_HOOK_ENTER = 1,
    DRA_RUNNER_HOOK_REP = 2,
    DRA_RUNNER_HOOK_WARMUP = 3
};
extern void (*dra_runner_timed_hook)(int event);

#endif /* DRA_RUNNER_TESTS_H */
