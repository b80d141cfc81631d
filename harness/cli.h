/*
 * cli.h - shared helpers for drabench subcommands: the command registry, usage errors,
 * terminal detection for progress output, and atomic file writes.
 *
 * Exit codes (STYLE §3.4): DRA_EXIT_OK 0, DRA_EXIT_REGRESSION 1, DRA_EXIT_USAGE 2 (usage error or
 * invalid input), DRA_EXIT_CORRECTNESS 3 (invariant violated), DRA_EXIT_ENV 4 (I/O, memory),
 * DRA_EXIT_INCONCLUSIVE 5 (compare: the gate could not see - too few samples, or timings from
 * different hosts - and found nothing worse).
 * No global state except the program name. Not thread-safe.
 */
#ifndef DRA_CLI_H
#define DRA_CLI_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "base/err.h"

enum {
    DRA_EXIT_OK = 0,
    DRA_EXIT_REGRESSION = 1,
    DRA_EXIT_USAGE = 2,
    DRA_EXIT_CORRECTNESS = 3,
    DRA_EXIT_ENV = 4,
    DRA_EXIT_INCONCLUSIVE = 5,
    DRA_EXIT_SKIP = 77,
};

#define CMD(name, fn, purpose) int fn(int argc, char **argv);
#include "commands.def"
#undef CMD

/* Print "drabench <cmd>: <message>" and "Try 'drabench <cmd> --help'." to stderr; returns 2. */
int dra_cli_usage_error(const char *cmd, const char *fmt, ...) DRA_PRINTF(2, 3);
/* Print "drabench: <message>" to stderr. */
void dra_cli_errorf(const char *fmt, ...) DRA_PRINTF(1, 2);

/* True when progress may be drawn on stderr: a TTY, CI unset or empty, TERM not "dumb". */
bool dra_cli_progress_enabled(void);

/* Write buf to path atomically: a temporary file in the same directory, fsync, rename.
 * path "-" writes to stdout. Returns DRA_OK or DRA_EIO (diag says why). */
int dra_cli_write_file_atomic(const char *path, const void *buf, size_t len, dra_diag_t *diag);

/* Read a whole file (or "-" for stdin) into a malloc'd NUL-terminated buffer. max_len bounds
 * it (DRA_ELIMIT beyond). The caller frees *out. */
int dra_cli_read_file(const char *path, size_t max_len, char **out, size_t *len, dra_diag_t *diag);

/* Parse an unsigned 64-bit decimal (or 0x hex) option value; false on junk or overflow. */
bool dra_cli_parse_u64(const char *s, unsigned long long *out);
bool dra_cli_parse_double(const char *s, double *out);

#endif
