/*
 * walk.h - the directory walker: the manifest files named by a list of paths, in a stable order.
 *
 * Each path is handed on as given when it is a file (or "-"); a directory is walked recursively
 * in sorted name order, keeping *.yaml, *.yml and *.json files and skipping names that start with
 * '.'. Ownership: the path passed to the callback lives only for that call. Errors: directories
 * that cannot be opened or nest deeper than 32 levels are added to errs (may be NULL) with the
 * path; the walk goes on and the first non-OK code is returned. Cost: one stat per entry plus a
 * sort of each directory's names. No global state; the callback runs on the caller's thread.
 */
#ifndef DRA_WALK_H
#define DRA_WALK_H

#include "base/err.h"

/* Called per manifest file; a non-OK return is remembered (the walk goes on). */
typedef int (*dra_manifest_file_fn)(const char *path, void *ud);
/* The files dra_manifest_read_paths reads, in its order: each path as given (a file, or "-"),
 * directories walked recursively in sorted order (*.yaml, *.yml, *.json; names starting with '.'
 * skipped). Directory errors go to errs. Returns the first non-OK code. */
DRA_NODISCARD int dra_manifest_each_file(char *const *paths, int n, dra_manifest_file_fn fn,
                                         void *ud, dra_diag_list_t *errs);

#endif
