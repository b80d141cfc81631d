/*
 * cli.h - shared helpers for drabench subcommands: the command registry, usage errors,
 * terminal detection for progress output (file helpers: files.h, exit statuses: exitcode.h).
 *
 * Exit codes (STYLE §3.4, exitcode.h): DRA_EXIT_OK 0, DRA_EXIT_REGRESSION 1, DRA_EXIT_USAGE 2
 * (usage error or invalid input), DRA_EXIT_CORRECTNESS 3 (invariant violated), DRA_EXIT_ENV 4.
 * No global state except the program name. Not thread-safe.
 */
#ifndef DRA_CLI_H
#define DRA_CLI_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "base/err.h"
#include "exitcode.h"
#include "files.h"
#include "rload.h"

#define CMD(name, fn, purpose) int fn(int argc, char **argv);
#include "commands.def"
#undef CMD

/* Every message below is built by dra_msg_vformat (err.h): its %s arguments - paths, names,
 * values from inputs - are shown terminal-safe (control characters and invalid UTF-8 as \xNN),
 * so a file name holding an escape sequence cannot drive the terminal. */
/* Print "drabench <cmd>: <message>" and "Try 'drabench <cmd> --help'." to stderr; returns 2. */
int dra_cli_usage_error(const char *cmd, const char *fmt, ...) DRA_PRINTF(2, 3);
/* Print "drabench: <message>" to stderr. */
void dra_cli_errorf(const char *fmt, ...) DRA_PRINTF(1, 2);
/* Print "<message>\n" to f (a success message: "drabench report: wrote DIR/index.html ..."). */
void dra_cli_notef(FILE *f, const char *fmt, ...) DRA_PRINTF(2, 3);
/* A path on a line of its own on stdout, a command's machine-readable result (report's
 * index.html, export's perfdash file, baseline bless's files): as it is for a pipe or a file,
 * terminal-safe (dra_esc_term) when stdout is a terminal. */
void dra_cli_print_path(const char *path);

/* dra_cli_getopt's results besides an option's val and -1 (the end). */
enum { DRA_CLI_OPERAND = 1, DRA_CLI_SPLIT = -2, DRA_CLI_BAD = -3 };

struct option;
/* One step of getopt_long over argv in order (glibc's "-" mode, so operands keep their place
 * relative to options and "--"). Returns the option's val (*arg = its value, or NULL),
 * DRA_CLI_OPERAND with *arg = the operand, DRA_CLI_SPLIT for a "--" (the caller decides whether
 * options may follow: calling again goes on parsing), -1 at the end, or DRA_CLI_BAD after printing
 * "drabench CMD: unknown option 'X'" or "option X needs a value" (X as typed) and the --help hint.
 * Set optind = 0 before the first call (glibc's full re-initialisation). */
int dra_cli_getopt(const char *cmd, int argc, char **argv, const char *shortopts,
                   const struct option *longopts, const char **arg);

/* The operands of a command parsed by dra_cli_parse_args (owned: dra_cli_args_fini). */
typedef struct dra_cli_args {
    char **operands; /* argv's operands in order (pointers into argv), NULL-terminated */
    size_t n;
    bool help;       /* --help was given: help printed to stdout, the command ends with 0 */
} dra_cli_args_t;

/* Called by dra_cli_parse_args for every option other than -h/--help: opt is its val, val its
 * value (or NULL). Returns DRA_EXIT_OK to go on, or the status to end the command with (after
 * printing its usage error). */
typedef int (*dra_cli_opt_fn)(int opt, const char *val, void *ctx);

/* The option loop of a command that takes options and a list of operands (export, report,
 * baseline): dra_cli_getopt over argv, -h/--help prints help and stops (a->help), every other
 * option goes to fn, operands are collected in a->operands. A "--" ends the options (the rest
 * are operands) when split_ends_options, else it is an unknown option. Returns DRA_EXIT_OK,
 * DRA_EXIT_USAGE after a usage error (printed), DRA_EXIT_ENV without memory, or fn's status;
 * a->operands is allocated in every case but DRA_EXIT_ENV. Cost: O(argc). */
DRA_NODISCARD int dra_cli_parse_args(const char *cmd, int argc, char **argv, const char *shortopts,
                                     const struct option *longopts, const char *help,
                                     bool split_ends_options, dra_cli_opt_fn fn, void *ctx,
                                     dra_cli_args_t *a);
void dra_cli_args_fini(dra_cli_args_t *a);

/* True when progress may be drawn on stderr: a TTY, CI unset or empty, TERM not "dumb". */
bool dra_cli_progress_enabled(void);

/* Load n result files (drabench-result/v1) into out[0..n) for command cmd. On the first file
 * that does not load, prints "drabench CMD: file:line:col: reason", releases the ones already
 * loaded and returns the exit status (2 invalid or missing input, 4 memory); DRA_EXIT_OK when all
 * n loaded (the caller releases them with dra_rload_fini). */
DRA_NODISCARD int dra_cli_load_results(const char *cmd, char *const *paths, size_t n,
                                       dra_rload_result_t *out);

/* Read n input files once each (dra_io_read_inputs, at most the result loader's size limit):
 * DRA_EXIT_OK with *in set (dra_io_inputs_free), else the exit status after printing
 * "drabench CMD: file: reason" (2 missing or invalid, 4 I/O or memory). */
DRA_NODISCARD int dra_cli_read_inputs(const char *cmd, char *const *paths, size_t n,
                                      dra_io_input_t **in);
/* dra_cli_load_results from inputs already read (in[0..n)). */
DRA_NODISCARD int dra_cli_load_inputs(const char *cmd, const dra_io_input_t *in, size_t n,
                                      dra_rload_result_t *out);

#endif
