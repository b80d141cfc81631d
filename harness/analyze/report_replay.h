/*
 * report_replay.h - `drabench report` on trace-replay result files (schema drabench-replay/v1,
 * written by `drabench replay --result`): the GPU allocation ratio and the fragmentation amount
 * against arrived GPU demand for every run (policy x device choice x mode) of every file, in one
 * gnuplot plot each, as the FGD paper's figures draw them, plus a summary table in DIR/index.html
 * and DIR/report.md.
 *
 * Input is untrusted: a file is accepted only when every field the report reads has the right
 * type and range, policy / device choice / mode are names drabench knows, and the curve's
 * values are finite; otherwise DRA_EPARSE with "file: field.path: reason". Labels are built from
 * those known names and the file's base name reduced to [A-Za-z0-9._-], and are escaped for
 * gnuplot, HTML and Markdown anyway.
 *
 * Ownership: nothing retained. Errors: DRA_OK, DRA_EPARSE (bad file), DRA_EIO (cannot read or
 * write), DRA_ENOMEM; diag says which file. Cost: O(points) plus one gnuplot process per plot.
 */
#ifndef DRA_REPORT_REPLAY_H
#define DRA_REPORT_REPLAY_H

#include <stdbool.h>
#include <stddef.h>

#include "base/err.h"
#include "files.h"

/* True when buf[0..len) is a replay result (its "schema" says so); false otherwise, including
 * when it does not parse (the regular loader then reports why). */
bool dra_report_is_replay(const char *buf, size_t len);

/* Write DIR/index.html, DIR/report.md, DIR/replay-*.dat|.gp|.svg for in[0..n).
 * gnuplot: executable, NULL = $GNUPLOT or "gnuplot", "" = no plots. *plots = SVGs written. */
DRA_NODISCARD int dra_report_replay(const dra_io_input_t *in, size_t n, const char *dir,
                                    const char *title, const char *gnuplot, int *plots,
                                    dra_diag_t *diag);

#endif /* DRA_REPORT_REPLAY_H */
