/*
 * files.h - whole files in and out: the output-file layer every writer takes (atomic replacement
 * of regular files, devices and FIFOs written in place), the final check of stdout, reading with a
 * size limit, and the number parsing shared by options and environment variables.
 *
 * Ownership: dra_io_read_file hands back a malloc'd buffer the caller frees; nothing else
 * allocates beyond the call. Errors: DRA_EIO / DRA_ELIMIT / DRA_ENOMEM with the path and the
 * reason in diag. Cost: one pass over the bytes; the atomic write adds an fsync and a rename.
 * No global state.
 */
#ifndef DRA_FILES_H
#define DRA_FILES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "base/err.h"

/* ---- output files: the one path every writer takes ------------------------------------------
 * dra_out_open picks how PATH is written:
 *   "-"                         stdout (flushed, not closed, by commit);
 *   a new or regular file       a temporary file in the same directory (PATH.tmp.XXXXXX), made
 *                               durable (fsync) and renamed over PATH by commit, so readers never
 *                               see half a file; a symlink to a regular file replaces its target;
 *   anything else that exists   written in place, never replaced: character and block
 *   devices (/dev/null, /dev/full), FIFOs, sockets, and a regular file that is this process's
 *   standard output or error (/dev/stdout while stdout goes to a file: appended to).
 * The choice is made by the type of the file the path resolves to, never by the path: a regular
 * file under /dev/shm or /proc is replaced like any other.
 * A directory or an unwritable location fails at open. Every write error (ENOSPC from
 * /dev/full, EIO, EPIPE) surfaces at commit with the reason. abort removes the temporary file.
 * Ownership: dra_out_t owns its FILE and the temporary name until commit or abort; commit
 * releases everything also when it fails, and abort after commit does nothing. Errors: DRA_EIO, DRA_ENOMEM; diag names the
 * path and the reason. */
typedef struct dra_out {
    FILE *f;          /* write here */
    const char *path; /* as given; borrowed */
    char *tmp;        /* temporary file renamed over target at commit; NULL = written in place */
    char *target;     /* the rename target (path, or the file a symlink points to) */
    bool is_stdout;
    int error; /* errno of the first failed write, when the writer records it (else unknown) */
} dra_out_t;

DRA_NODISCARD int dra_out_open(dra_out_t *o, const char *path, dra_diag_t *diag);
DRA_NODISCARD int dra_out_commit(dra_out_t *o, dra_diag_t *diag);
void dra_out_abort(dra_out_t *o);

/* Check, before any work, that dra_out_open(path) can succeed: "-", an existing writable
 * non-directory, or a new name in an existing writable directory. DRA_OK, or DRA_EIO with the
 * reason (missing directory, not a directory, permission). Creates nothing. */
DRA_NODISCARD int dra_io_check_output(const char *path, dra_diag_t *diag);

/* Write buf to path through dra_out_* (atomic for regular files, in place for devices and
 * FIFOs, "-" = stdout). Returns DRA_OK or DRA_EIO/DRA_ENOMEM (diag says why). */
DRA_NODISCARD int dra_io_write_file_atomic(const char *path, const void *buf, size_t len,
                                            dra_diag_t *diag);

/* Flush and close stdout at the end of a command (main calls it once, after the command):
 * 0, or -1 after printing "drabench: cannot write standard output: REASON" to stderr. */
DRA_NODISCARD int dra_io_finish_stdout(void);

/* Exit status for a DRA_E* code from loading inputs: DRA_EIO and DRA_ENOMEM are environment
 * errors (4), everything else (not found, parse, validation, limits) is invalid input (2). */
int dra_io_exit_for(int rc);

/* Read a whole file (or "-" for stdin) into a malloc'd NUL-terminated buffer. max_len bounds
 * it (DRA_ELIMIT beyond). A missing file (or a missing directory on its path) is DRA_ENOTFOUND,
 * a directory DRA_EINVAL (both invalid input); other failures DRA_EIO. The caller frees *out. */
DRA_NODISCARD int dra_io_read_file(const char *path, size_t max_len, char **out, size_t *len,
                                    dra_diag_t *diag);

/* Input files read once, each into memory: a FIFO, a pipe or a process substitution
 * (<(cat r.json)) cannot be read a second time, so a command that looks at a file before it
 * parses it (which schema? a comparison or a run?) works on these bytes. */
typedef struct dra_io_input {
    const char *path; /* as given (borrowed) */
    char *buf;        /* NUL-terminated, owned */
    size_t len;
} dra_io_input_t;

/* Read paths[0..n) with dra_io_read_file (max_len each) into *out (malloc'd array). On the
 * first failure everything read is released and that failure is returned (diag names the
 * file). Release with dra_io_inputs_free. */
DRA_NODISCARD int dra_io_read_inputs(char *const *paths, size_t n, size_t max_len,
                                     dra_io_input_t **out, dra_diag_t *diag);
void dra_io_inputs_free(dra_io_input_t *in, size_t n);

/* mkdir -p: create dir and every missing parent with mode (before umask); an existing directory
 * is fine. 0, or -1 with errno set (ENAMETOOLONG beyond 4095 bytes). */
int dra_io_mkdir_p(const char *dir, unsigned mode);

/* The number parsing of every option value, environment variable and gate-file number: decimal
 * only - no base prefix ("010" is ten, "0x10" is refused), no leading or trailing space, no
 * sign on an unsigned value; out of range is refused, never wrapped. */
/* An unsigned 64-bit decimal: digits only; false on anything else or beyond 2^64-1. */
bool dra_io_parse_u64(const char *s, unsigned long long *out);
/* dra_io_parse_u64 within [min, max]. */
bool dra_io_parse_u64_in(const char *s, unsigned long long min, unsigned long long max,
                         unsigned long long *out);
/* Length of the decimal number that starts s ([+-]digits[.digits][e[+-]digits], at least one
 * digit), 0 when s does not start with one; for a number followed by a unit ("5%", "2us"). */
size_t dra_io_decimal_len(const char *s);
/* A whole string that is one decimal number (dra_io_decimal_len) and finite (no "inf", "nan",
 * hex float, or overflow to infinity). */
bool dra_io_parse_double(const char *s, double *out);

#endif
