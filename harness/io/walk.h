/*
 * walk.h - the one directory walker of drabench: FILE|DIR arguments to the files they name.
 *
 * Every command that takes "FILE|DIR..." (validate, inspect, cel -f, alloc -f, alloc --test,
 * scenario manifests, the fuzz replay driver) goes through dra_walk: a path that is not a
 * directory ("-" for stdin, a file, or a path that does not exist: the reader reports that) is
 * handed to the callback as given; a directory is walked recursively, entries sorted by name
 * (strcmp), names starting with '.' skipped, subdirectories and regular files whose name ends with
 * one of the wanted suffixes visited in that one sorted order. Symbolic links are followed. An
 * entry with a wanted name that is not a regular file (a FIFO, which would block the reader, a
 * device such as a link to /dev/zero, a socket) is not handed on but named in a diagnostic
 * (DRA_EUNSUPPORTED: "skipped: not a regular file: a FIFO"); a path given as an argument is
 * handed on whatever it is (the caller asked for it: "-", /dev/stdin, a FIFO).
 *
 * Errors, each a diagnostic naming the offending path (file field; no line), the walk going on
 * with the next entry:
 *   - a symbolic-link loop: a directory whose device and inode equal those of a directory on the
 *     current path from the argument down (DRA_ELIMIT);
 *   - directories nested deeper than DRA_WALK_MAX_DEPTH below the argument (DRA_ELIMIT);
 *   - a directory that cannot be opened or read, or a wanted entry that cannot be stat'ed
 *     (a dangling link): DRA_EIO with the system's reason;
 *   - a wanted entry that is not a regular file, skipped (DRA_EUNSUPPORTED).
 * Commands map DRA_EIO to exit 4 and DRA_ELIMIT and DRA_EUNSUPPORTED to exit 2.
 *
 * Ownership: the walker owns every path string it hands to the callback and every path named in
 * a diagnostic it adds; they stay valid until dra_walk_fini, so a caller keeps the walker alive as
 * long as it uses the diagnostics (or copies the names, as dra_manifest_read_paths does into its
 * model). Cost: one opendir/readdir and one stat per entry, a sort per directory, one heap
 * string per visited path; memory O(paths visited). Not thread-safe per walker; no global state.
 */
#ifndef DRA_WALK_H
#define DRA_WALK_H

#include <stddef.h>

#include "base/err.h"

#define DRA_WALK_MAX_DEPTH 32

/* Called per file; a non-OK return is remembered (the walk goes on, except after DRA_ENOMEM). */
typedef int (*dra_walk_fn)(const char *path, void *ud);

typedef struct dra_walk {
    const char *const *suffixes; /* wanted file name endings, NULL-terminated; NULL = every file */
    int flat;                    /* set after init: subdirectories of an argument are skipped */
    char **strs;                 /* owned path strings */
    size_t nstrs, cap;
    size_t nfiles;               /* files handed to the callback so far */
} dra_walk_t;

/* Manifest files: ".yaml", ".yml", ".json". */
extern const char *const dra_walk_manifest_suffixes[];

/* suffixes is borrowed (usually a static array) and must outlive the walker. */
void dra_walk_init(dra_walk_t *w, const char *const *suffixes);
/* Frees every path string; diagnostics that name them must not be used afterwards. */
void dra_walk_fini(dra_walk_t *w);

/* Walk the n paths in order, calling fn for each file. Errors go to errs (may be NULL).
 * Returns DRA_OK or the first non-OK code (of the walk or of fn). */
DRA_NODISCARD int dra_walk_paths(dra_walk_t *w, char *const *paths, int n, dra_walk_fn fn, void *ud,
                   dra_diag_list_t *errs);

#endif /* DRA_WALK_H */
