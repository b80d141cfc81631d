/*
 * baseline.h - committed baseline sets (`drabench baseline bless`): which result files may be
 * blessed, how a result file is slimmed for a commit, and writing a set
 * DIR/<release>/{<scenario>.json..., MANIFEST} plus DIR/CURRENT.
 *
 * Ownership: results and buffers are borrowed and never retained; dra_baseline_slim hands back
 * a malloc'd buffer the caller frees. Errors: DRA_OK; DRA_EINVAL (a result file that is not
 * JSON, diag file:line:column); DRA_EIO (cannot create or write the set, diag names the path);
 * DRA_ENOMEM. A failed write leaves every file written before it (each one replaced atomically,
 * never half-written); MANIFEST and CURRENT are written last, so a set they name is complete.
 * Cost: one JSON parse and dump per file (its size), one atomic write per file. No global state.
 */
#ifndef DRA_BASELINE_H
#define DRA_BASELINE_H

#include <stdbool.h>
#include <stddef.h>
#include <time.h>

#include "base/err.h"
#include "rload.h"

/* Why a result file may not be blessed (without --force). */
typedef enum dra_baseline_refusal {
    DRA_BASELINE_FIT = 0,       /* complete, no violations, one digest */
    DRA_BASELINE_VIOLATIONS,    /* invariant violations recorded */
    DRA_BASELINE_INCOMPLETE,    /* status other than "complete", or no repetitions */
    DRA_BASELINE_DIGESTS_DIFFER /* a repetition's decision digest differs from the file's */
} dra_baseline_refusal_t;

/* The first reason (in the order above) not to bless r, or DRA_BASELINE_FIT. */
dra_baseline_refusal_t dra_baseline_refusal(const dra_rload_result_t *r);

/* A set's name: non-empty, not "." or "..", [A-Za-z0-9._-] only, and not CURRENT or local
 * (in any case: the root's current-set file and scripts/nightly's per-host sets). */
bool dra_baseline_release_ok(const char *release);

/* True for the comparison file scripts/nightly writes beside the runs (schema
 * drabench-compare/...), so blessing every JSON file of a nightly directory takes the runs.
 * buf[0..len) is the file as read (once); false when it does not parse. */
bool dra_baseline_is_compare_file(const char *buf, size_t len);

/* Make the result file buf[0..len) fit for a commit: absolute paths (host.executable, run.argv)
 * reduced to their last component and, unless keep_hists, only the all-shapes pod latency
 * histogram of each repetition kept. *out = compact JSON with sorted keys and 15 significant
 * digits (as the runner writes) and a final newline. path names the file in diag. */
DRA_NODISCARD int dra_baseline_slim(const char *buf, size_t len, const char *path,
                                    bool keep_hists, char **out, size_t *out_len,
                                    dra_diag_t *diag);

/* One file of a set: its bytes as read and the result loaded from them (borrowed). */
typedef struct dra_baseline_file {
    const char *buf;
    size_t len;
    const dra_rload_result_t *result;
} dra_baseline_file_t;

typedef struct dra_baseline_opts {
    const char *root;    /* baseline root directory (created when missing) */
    const char *release; /* set name, dra_baseline_release_ok */
    bool keep_hists;     /* dra_baseline_slim */
    bool current;        /* also write root/CURRENT naming the release */
    time_t blessed;      /* the time recorded in MANIFEST */
    /* called with the path of every result file written (may be NULL) */
    void (*on_file)(const char *path, void *ctx);
    void *ctx;
} dra_baseline_opts_t;

/* Write the set root/<release>/ under an exclusive lock of root (flock; a concurrent bless of
 * the same root waits): remove its earlier *.json files, write every file slimmed as
 * <scenario>.json (dra_export_scenario_name; -2, -3, ... when two share a scenario), then
 * MANIFEST (build and host facts of every file, values kept on their line) and, with current,
 * root/CURRENT. dir receives root/<release>. */
DRA_NODISCARD int dra_baseline_write(const dra_baseline_opts_t *o, const dra_baseline_file_t *files,
                                     size_t n, char *dir, size_t dir_len, dra_diag_t *diag);

#endif /* DRA_BASELINE_H */
