/*
 * runner_tests.h - the runner's test hooks (HdrHistogram's hdr_tests.h idea): not part of the
 * runner's API, included only by runner.c and the tests that watch its timed regions or force
 * an --allocator both difference.
 */
#ifndef DRA_RUNNER_TESTS_H
#define DRA_RUNNER_TESTS_H

#include <stddef.h>
#include <stdint.h>

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

/* --allocator both: when set, called with the pod's number and the reference placement's result
 * after the reference placed the pod and before that result is compared with the engine's; it
 * may change the result (it is only compared, never committed) to force a difference. NULL in
 * production; one predictable branch per compared arrival, outside the timed regions. */
struct dra_engine_result;
extern void (*dra_runner_both_hook)(uint64_t pod, struct dra_engine_result *reference);

/* When set, called at the start of every measured timed pass (untimed, after the warm-up and
 * the data pages) with the repetition's number and a digest of what the pass starts from: the
 * allocation state, the order in which the runner's free slots will be taken (per shape, and
 * the shared list) and, with PodGroups, the groups' bookkeeping (dra_rgroups_digest). A check
 * pass between two timed passes must leave the same (issue 22: checks that do not move the
 * numbers). NULL in production. */
extern void (*dra_runner_pass_hook)(uint32_t rep, uint64_t digest);

/* The planted slowdown's step (DRA_TEST_SLOWDOWN_PCT, runner.c plant): adds f x took (ns, a
 * region's own time, counted at most 1 ms) to *debt and returns the ns the region spins, *debt
 * when it has reached min_ns (one clock reading's cost), else 0; the caller then pays what it
 * spun with dra_runner_plant_paid. Pure; for the tests. */
double dra_runner_plant_due(double *debt, double f, double took, double min_ns);
/* ... and that subtraction: the region spun `spun` ns where `due` was due; pays it off *debt,
 * overshoot included up to 1 us past due (a spin preempted for milliseconds pays only that, so
 * the debt stays near zero and the regions after it plant their own share). Pure. */
void dra_runner_plant_paid(double *debt, double due, double spun);

#endif /* DRA_RUNNER_TESTS_H */
