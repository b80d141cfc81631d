/*
 * report_out.h - the files of a report directory and its plots, shared by the result report
 * (report.c) and the trace-replay report (report_replay.c): opening and committing report files
 * through the output-file layer, the common head of a gnuplot script, the plot colours, and
 * running gnuplot.
 *
 * Ownership: a dra_report_out_t is caller-owned (zero it, set dir and diag); every FILE it hands
 * out is owned by it until dra_report_out_close (or dra_report_out_abort after an error).
 * Errors: the first failure is kept in o->rc (DRA_EIO, DRA_ENOMEM, DRA_EINTERNAL beyond
 * DRA_REPORT_OUT_MAX files open at once) and o->diag (the directory and file name); later calls
 * after a failure keep the first one. A regular file appears complete or not at all (a
 * temporary file renamed on close). Cost: one atomic write per file; running gnuplot is one
 * fork/exec and waits for it. No global state.
 */
#ifndef DRA_REPORT_OUT_H
#define DRA_REPORT_OUT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "base/err.h"
#include "files.h"

enum { DRA_REPORT_OUT_MAX = 4 };

typedef struct dra_report_out {
    const char *dir;   /* the report directory (borrowed) */
    dra_diag_t *diag;  /* the first error (borrowed, may be NULL) */
    int rc;            /* DRA_OK, or the first error */
    dra_out_t open[DRA_REPORT_OUT_MAX];
} dra_report_out_t;

/* Create the report directory when missing and remove the gnuplot.log an earlier report left
 * there (the log then holds this report's gnuplot runs only). DRA_OK, or DRA_EIO recorded in o
 * (the directory and the reason). */
DRA_NODISCARD int dra_report_out_begin(dra_report_out_t *o);
/* Open dir/name for writing; NULL after an error (recorded in o). */
FILE *dra_report_out_open(dra_report_out_t *o, const char *name);
/* Commit a FILE from dra_report_out_open (NULL is ignored); a failure is recorded in o. */
void dra_report_out_close(dra_report_out_t *o, FILE *f, const char *name);
/* Release whatever is still open (temporary files are removed). */
void dra_report_out_abort(dra_report_out_t *o);

/* The line colours of every plot, in order. */
extern const char *const dra_report_palette[8];
/* Series i's colour ("#rrggbb" into buf, which it returns): the palette for the first 8, then
 * hues spaced by the golden angle (137.5 degrees) at two lightnesses, so any number of series
 * get distinct colours. */
const char *dra_report_colour(size_t i, char buf[8]);
/* Series i's gnuplot dash type: 1 (solid) for the first 8, then 2..5 by groups of 8, so series
 * whose colours are close still differ. */
int dra_report_dash(size_t i);

/* The head of gnuplot script NAME.gp: a comment, SVG terminal w x h, output NAME.svg, UTF-8,
 * the title (escaped for gnuplot, escape.h) and the grid. The caller adds `set key`. */
void dra_report_gp_head(FILE *f, const char *name, const char *title, int w, int h);

/* Write dir/name as a data URI ("data:image/svg+xml;base64,...") to f, so an HTML page that
 * shows it needs no other file; false (nothing written) when it cannot be read. The file is an
 * image to the page: an <img> never runs a script inside an SVG. */
bool dra_report_data_uri_svg(FILE *f, const char *dir, const char *name);

/* True when `gnuplot --version` runs. */
bool dra_report_gnuplot_found(const char *gnuplot);
/* Run `gnuplot NAME.gp` in dir without a shell (stdin and stdout /dev/null, stderr appended to
 * dir/gnuplot.log); true when it exits 0 and NAME.svg is non-empty (an old NAME.svg is removed
 * first). */
bool dra_report_gnuplot_run(const char *gnuplot, const char *dir, const char *name);

#endif /* DRA_REPORT_OUT_H */
