/*
 * report.h - release-review reports and exports of drabench result files.
 *
 * Purpose:
 *  - dra_report_write: `drabench report RESULT... -o DIR` writes DIR/index.html (one
 *    self-contained file: inline CSS, the SVG plots inline as data URIs, nothing from the
 *    network) and DIR/report.md (which links the .svg files), plus the
 *    gnuplot inputs (DIR/NAME.dat with a `#` header line, DIR/NAME.gp scripts) and their SVG output:
 *    latency percentile curves on HdrHistogram's 1/(1-p) log axis, histogram overlays of the
 *    compared runs, throughput per run with its 95% confidence interval, fragmentation over time
 *    when recorded. Without gnuplot the page says so and keeps its tables.
 *  - the exports (perfdash, benchfmt, CSV) are declared in export.h, included here.
 *  - Histogram helpers: rebuild a dra_hist_t from a result's bucket dump, and pool one
 *    histogram name across every repetition of one or more results.
 *
 * Ownership: results are borrowed (const) and never retained. Histograms filled by the helpers
 * are initialised here and owned by the caller (dra_hist_fini). Errors: DRA_OK, DRA_EIO (cannot
 * write DIR), DRA_ENOMEM, DRA_EINVAL; diag names the file. Cost: O(total buckets + samples) plus
 * one gnuplot process per plot. Thread-safety: none needed; no global state.
 */
#ifndef DRA_REPORT_H
#define DRA_REPORT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "base/err.h"
#include "hist.h"
#include "export.h" /* the exports lived here; kept visible to report.h's users */
#include "rload.h"

typedef struct dra_report_opts {
    const char *title;   /* page title; NULL = "drabench report" */
    const char *gnuplot; /* gnuplot executable; NULL = $GNUPLOT or "gnuplot"; "" = do not plot */
    size_t nbase;        /* the first nbase results are the base side of the comparison section
                            (0 = 1); the rest are compared against them */
    /* the comparison section's thresholds, the same source as `drabench compare`: a gate file,
     * or one threshold for every metric (has_threshold), else compare's default (5%) */
    const struct dra_compare_gate *gate;
    bool has_threshold;
    double threshold;
} dra_report_opts_t;

/* What dra_report_write did (for the caller's summary line and tests). */
typedef struct dra_report_info {
    bool gnuplot_found;
    int plots_written; /* SVG files gnuplot produced */
    int plots_failed;
} dra_report_info_t;

DRA_NODISCARD int dra_report_write(const dra_rload_result_t *r, size_t n, const char *dir,
                                   const dra_report_opts_t *opts, dra_report_info_t *info,
                                   dra_diag_t *diag);

/* Pool every repetition's histogram with this shape/phase/outcome over results r[0..n) into h
 * (initialised here, default layout). *count = repetitions that had it. */
DRA_NODISCARD int dra_report_hist_pool(const dra_rload_result_t *r, size_t n, const char *shape,
                                       const char *phase, const char *outcome, dra_hist_t *h,
                                       size_t *count);

/* Short label of a result for legends: "<scenario> <git> #<i>" style, written into buf. */
const char *dra_report_label(const dra_rload_result_t *r, size_t index, char *buf, size_t len);

#endif /* DRA_REPORT_H */
