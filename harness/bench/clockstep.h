/*
 * clockstep.h - how finely a clock's readings advance, measured: the step every difference of
 * two readings is a whole number of.
 *
 * clock_getres(CLOCK_MONOTONIC) says 1 ns on Linux whatever the hardware under it does. On AMD
 * Zen processors (and in their virtual machines) the time-stamp counter behind the clock
 * advances in steps: on the 2-vCPU EPYC benchmark machine by 21 ticks at a time, 10 ns at its
 * 2.096 GHz, so every latency the runner records is a multiple of 10 ns give or take the 1 ns
 * of the conversion, medians move by 10 ns or not at all, and a one-step move of a 150 ns
 * median reads as a 6.7% change that is none. The runner records the measured step
 * (run.method.timer_step_ns, and answer_step_ns for the time-stamp counter of the allocate
 * calls); `compare` takes it as a floor under which two medians do not differ.
 *
 * How: pairs of readings with a busy wait between them that grows from pair to pair (0 to 288
 * iterations of a counting loop, so the differences spread over many steps of any step up to
 * tens of ns); differences of 0 or above DRA_CLOCK_STEP_SPAN units (a preemption, or a step so
 * coarse that the differences are few) are dropped. The step is the largest g from 4 to
 * DRA_CLOCK_STEP_MAX units such that every kept difference is within 1 unit of a multiple of
 * g (the 1 absorbs the rounding of a tick count into ns) and the differences reach at least
 * three different multiples of it; 1 when no g passes (the clock advances by its unit, or by
 * 2 or 3 of them: every difference is within 1 of a multiple of 2 or 3, so those steps cannot
 * be told from 1 this way). A step's multiples fail the test whenever the differences spread
 * over more than a few steps (a difference of 30 is 10 from every multiple of 20), which the
 * growing wait makes sure of.
 *
 * Ownership: none (the caller's arrays, read only; dra_clock_step_of sorts nothing). Errors:
 * none; 0 = not enough differences to say. Cost: dra_clock_step_measure reads the clock 4,000
 * times with about 290,000 loop iterations between (a few hundred microseconds), untimed;
 * dra_clock_step_of is O(n * DRA_CLOCK_STEP_MAX).
 */
#ifndef DRA_CLOCKSTEP_H
#define DRA_CLOCKSTEP_H

#include <stddef.h>
#include <stdint.h>

#define DRA_CLOCK_STEP_MAX  100u /* largest step tested, in the clock's units */
#define DRA_CLOCK_STEP_SPAN 400  /* differences above this many units are dropped */
#define DRA_CLOCK_STEP_MIN_N 64u /* differences needed for an answer */

/* The step of the differences d[0..n) (the clock's units; entries <= 0 or above
 * DRA_CLOCK_STEP_SPAN are skipped): the largest g as above, 1 when none passes, 0 when fewer
 * than DRA_CLOCK_STEP_MIN_N differences count. */
uint32_t dra_clock_step_of(const int64_t *d, size_t n);

/* The step of clock (readings in its own units: ns, or ticks), measured as above; 0 when the
 * pairs gave too few differences to say (a clock stepping in units coarser than the span). */
uint32_t dra_clock_step_measure(int64_t (*clock)(void));

#endif
