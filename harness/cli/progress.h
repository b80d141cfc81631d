/*
 * progress.h - progress output on stderr for long commands (STYLE §3.3).
 *
 * Modes: BAR redraws one line with "\r" + erase-to-end-of-line at most 10 times a second and
 * ends it with a newline; LINES prints one plain line per finished step (what CI logs see);
 * NONE prints nothing. dra_progress_mode picks BAR when --progress=always, or when auto and
 * dra_cli_progress_enabled() (a TTY, CI unset, TERM not dumb); LINES in auto mode otherwise;
 * NONE with --progress=never or --quiet.
 *
 * Ownership: plain value; the stream is borrowed. Errors: none (output errors are ignored).
 * Cost: dra_progress_update reads the clock and returns at once unless a redraw is due; never
 * call it inside a timed region. Not thread-safe.
 */
#ifndef DRA_PROGRESS_H
#define DRA_PROGRESS_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

typedef enum dra_progress_mode {
    DRA_PROGRESS_NONE = 0,
    DRA_PROGRESS_LINES,
    DRA_PROGRESS_BAR
} dra_progress_mode_t;

typedef enum dra_progress_when {
    DRA_PROGRESS_AUTO = 0,
    DRA_PROGRESS_ALWAYS,
    DRA_PROGRESS_NEVER
} dra_progress_when_t;

typedef struct dra_progress {
    dra_progress_mode_t mode;
    FILE *out;
    int64_t last_ns;   /* CLOCK_MONOTONIC of the last redraw */
    int64_t start_ns;
    bool drawn;        /* a bar line is on screen (needs a newline before other output) */
    uint64_t redraws;  /* number of redraws (tests check the rate limit) */
    double eta_s;      /* caller's estimate of the seconds left; < 0 = from done/total */
} dra_progress_t;

/* Parse "auto" / "always" / "never"; false otherwise. */
bool dra_progress_parse_when(const char *s, dra_progress_when_t *out);
/* Mode for a --progress value and --quiet. */
dra_progress_mode_t dra_progress_mode(dra_progress_when_t when, bool quiet);

void dra_progress_init(dra_progress_t *p, dra_progress_mode_t mode, FILE *out);
/* BAR: redraw "label  [#####     ]  done/total  elapsed  ETA 12s" if 100 ms passed since the
 * last one (or force). The ETA is the caller's (dra_progress_set_eta) or else elapsed x
 * (total - done) / done; none before the first step is done. Other modes: nothing. */
void dra_progress_update(dra_progress_t *p, const char *label, uint64_t done, uint64_t total,
                         bool force);
/* Set the estimate of the seconds left shown by the bar (negative: back to done/total). */
void dra_progress_set_eta(dra_progress_t *p, double seconds);
/* "ETA 45s", "ETA 3m05s", "ETA 1h02m" into buf; returns buf. */
const char *dra_progress_fmt_eta(double seconds, char *buf, size_t len);
/* A finished step: LINES prints `text` as a line; BAR clears the bar first and prints it too. */
void dra_progress_line(dra_progress_t *p, const char *text);
/* BAR: erase a drawn bar so other output can follow on stderr (the next update redraws it). */
void dra_progress_clear(dra_progress_t *p);
/* End: BAR finishes the line with a newline if one is drawn. */
void dra_progress_finish(dra_progress_t *p);

#endif /* DRA_PROGRESS_H */
