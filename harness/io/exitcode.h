/*
 * exitcode.h - the process exit statuses (STYLE §3.4), shared by the commands and by the modules
 * whose verdict becomes one (compare's gate): DRA_EXIT_OK 0, DRA_EXIT_REGRESSION 1,
 * DRA_EXIT_USAGE 2 (usage error or invalid input), DRA_EXIT_CORRECTNESS 3 (invariant violated),
 * DRA_EXIT_ENV 4 (I/O, memory), DRA_EXIT_INCONCLUSIVE 5 (compare: the gate could not see - too few
 * samples, or timings from different hosts - and found nothing worse), DRA_EXIT_SKIP 77 (a test
 * that cannot run here).
 */
#ifndef DRA_EXITCODE_H
#define DRA_EXITCODE_H

enum {
    DRA_EXIT_OK = 0,
    DRA_EXIT_REGRESSION = 1,
    DRA_EXIT_USAGE = 2,
    DRA_EXIT_CORRECTNESS = 3,
    DRA_EXIT_ENV = 4,
    DRA_EXIT_INCONCLUSIVE = 5,
    DRA_EXIT_SKIP = 77,
};

#endif
