/*
 * files.h - whole files in and out: read with a size limit, write atomically, and the number
 * parsing shared by options and environment variables.
 *
 * Ownership: dra_cli_read_file hands back a malloc'd buffer the caller frees; nothing else
 * allocates beyond the call. Errors: DRA_EIO / DRA_ELIMIT / DRA_ENOMEM with the path and the
 * reason in diag. Cost: one pass over the bytes; the atomic write adds an fsync and a rename.
 * No global state. (The dra_cli_ prefix is historical: these lived in cli.c.)
 */
#ifndef DRA_FILES_H
#define DRA_FILES_H

#include <stdbool.h>
#include <stddef.h>

#include "base/err.h"

/* Write buf to path atomically: a temporary file in the same directory, fsync, rename.
 * path "-" writes to stdout. Returns DRA_OK or DRA_EIO (diag says why). */
DRA_NODISCARD int dra_cli_write_file_atomic(const char *path, const void *buf, size_t len,
                                            dra_diag_t *diag);

/* Read a whole file (or "-" for stdin) into a malloc'd NUL-terminated buffer. max_len bounds
 * it (DRA_ELIMIT beyond). The caller frees *out. */
DRA_NODISCARD int dra_cli_read_file(const char *path, size_t max_len, char **out, size_t *len,
                                    dra_diag_t *diag);

/* Parse an unsigned 64-bit decimal (or 0x hex) option value; false on junk or overflow. */
bool dra_cli_parse_u64(const char *s, unsigned long long *out);
bool dra_cli_parse_double(const char *s, double *out);

#endif
