/*
 * export.h - drabench result files in formats other tools read (`drabench export`, STYLE §3.6).
 *
 * Purpose:
 *  - perfdash: Kubernetes scheduler_perf DataItems JSON, the file perfdash's local-directory mode
 *    reads (dra_export_perfdash, named by dra_export_perfdash_name);
 *  - benchfmt: Go benchmark text for benchstat (golang.org/x/perf/benchfmt);
 *  - CSV (RFC 4180) for spreadsheets;
 *  - the names these formats use: a scenario reduced to [A-Za-z0-9._-] (also the file name of a
 *    run or a baseline), a metric's benchfmt unit.
 *
 * Ownership: results are borrowed (const) and never retained; output goes to the caller's FILE
 * (nothing is opened or closed here); name helpers write into the caller's buffer, truncating to
 * len - 1 characters and always terminating it.
 * Errors: DRA_OK, DRA_ENOMEM, DRA_EIO (the stream reported an error); a failed export may have
 * written part of its output, so callers write to a memory stream and publish it atomically
 * (files.h). Every text taken from a result file is escaped for its format (escape.h, CSV quoting
 * and formula guard).
 * Cost: O(total repetitions x metrics); perfdash pools latency histograms per (shape, phase),
 * O(histograms^2) to find distinct pairs plus O(buckets) per pool. No global state; reentrant.
 */
#ifndef DRA_EXPORT_H
#define DRA_EXPORT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "base/err.h"
#include "rload.h"

/* The formats of `drabench export --format`. */
typedef enum dra_export_format {
    DRA_EXPORT_NONE = 0, /* not a format name */
    DRA_EXPORT_PERFDASH,
    DRA_EXPORT_BENCHFMT,
    DRA_EXPORT_CSV,
} dra_export_format_t;

/* "perfdash", "benchfmt" or "csv" -> its format; anything else (or NULL) -> DRA_EXPORT_NONE. */
dra_export_format_t dra_export_format_parse(const char *name);

/* Export results r[0..n) to f in format fmt; label adds benchfmt's per-run keys (ignored by the
 * other formats). DRA_EINVAL for DRA_EXPORT_NONE. */
DRA_NODISCARD int dra_export_write(dra_export_format_t fmt, const dra_rload_result_t *r, size_t n,
                                   bool label, FILE *f);


/* perfdash DataItems: {"version":"v1","dataItems":[...]} for results r[0..n), pooling results with
 * the same Name (BenchmarkDRAAlloc/<scenario>/<policy>-<release>). Labels on every item: Metric,
 * Name, shape, phase, release, policy ("not applicable" when unused). Latency in ms. */
DRA_NODISCARD int dra_export_perfdash(const dra_rload_result_t *r, size_t n, FILE *f);
/* File name perfdash looks for: "BenchmarkDRAAlloc_<2006-01-02T15:04:05Z>.json" from the first
 * result's host.date (current time when absent). */
void dra_export_perfdash_name(const dra_rload_result_t *r, char *buf, size_t len);
/* Go benchmark format: configuration lines, `Unit` metadata lines, then one line per repetition
 * `BenchmarkDRAAlloc/<scenario>/<policy>-<release> <claims> <ns/op> ns/op <v> <unit>...`. */
DRA_NODISCARD int dra_export_benchfmt(const dra_rload_result_t *r, size_t n, FILE *f);
/* benchfmt with per-run keys (commit, host, date, digest) as configuration when label. */
DRA_NODISCARD int dra_export_benchfmt_ex(const dra_rload_result_t *r, size_t n, bool label,
                                         FILE *f);
/* CSV (RFC 4180, CRLF): one row per file, repetition and metric; text fields that a spreadsheet
 * would read as a formula are prefixed with an apostrophe. */
DRA_NODISCARD int dra_export_csv(const dra_rload_result_t *r, size_t n, FILE *f);
/* benchfmt unit of a metric: "claims/s", "pods/s", else the name with '.' -> '-' plus "-<unit>"
 * (latency.pod.p99 -> "pod-p99-ns"). */
const char *dra_export_benchfmt_unit(const char *metric, const char *unit, char *buf, size_t len);
/* Scenario name safe for benchmark and file names (runs, baselines): the basename without a
 * .yaml/.yml/.json extension, [A-Za-z0-9._-] only (others -> '_'), no leading '.', "_" when
 * empty; at most len - 1 characters. */
const char *dra_export_scenario_name(const char *scenario, char *buf, size_t len);

#endif /* DRA_EXPORT_H */
