/*
 * escape.h - the one escaping layer for text that leaves drabench.
 *
 * Every string that comes from an input (result file, scenario, baseline, manifest, command line)
 * and reaches another interpreter goes through the function for that target:
 *   gnuplot   dra_esc_gnuplot (a quoted string literal in a .gp script) and dra_esc_gnuplot_data
 *             (a quoted label column in a .dat file): a newline would end the gnuplot command and
 *             let the rest run (system(...)), so control characters never pass.
 *   HTML      dra_esc_html: text and attribute values (& < > " ' as entities).
 *   Markdown  dra_esc_md: a table cell or inline text (what could build a link, an image, a
 *             code span or raw HTML, or end the cell - \ ` [ ] ! | - is backslash-escaped,
 *             < > & are entities, line breaks spaces; emphasis characters are left alone);
 *             dra_esc_md_code: a code span (a fence longer than any backtick run inside, | as
 *             \| for GFM tables, line breaks as spaces).
 *   benchfmt  dra_esc_bench_name (one field of a benchmark name or a unit: no white space, no
 *             control characters); a configuration value through dra_esc_line.
 *   line      dra_esc_line: a value of a line-based "key: value" format (benchfmt
 *             configuration, the baseline MANIFEST): control characters become spaces.
 *   terminal  dra_esc_term / dra_esc_term_buf: control characters (C0, DEL, C1), Unicode bidi
 *             controls and invalid UTF-8 are printed as visible \xNN / \u{NNNN}; never raw.
 *   shell     dra_esc_sh: POSIX single quoting (drabench itself runs no shell; kept for callers
 *             that print a command line for the user to paste).
 *   JSON      dra_esc_path / dra_esc_path_json: a path or command-line argument, losslessly
 *             (a file name need not be UTF-8): every JSON document that names a file (result
 *             files' run.argv, scenario_file, cluster_file, host.executable; replay's
 *             nodes_file / pods_file; validate, gen, compare -o json) writes it so;
 *             dra_esc_text_json: a message (never dropped: invalid bytes as \xNN).
 * Invalid UTF-8 is never copied: each bad byte becomes U+FFFD (HTML, Markdown, gnuplot,
 * benchfmt) or \xNN (terminal).
 *
 * Ownership: the FILE variants write to the caller's stream (errors surface through ferror);
 * the _buf variants write into the caller's buffer, always NUL-terminated, truncated at a
 * character boundary. No allocation, no global state. Cost: linear in the input.
 */
#ifndef DRA_ESCAPE_H
#define DRA_ESCAPE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

/* Length of the valid UTF-8 sequence at s (1..4), or 0 when s[0] does not start one. *cp gets
 * the code point. s must be NUL-terminated (a NUL ends any sequence). */
size_t dra_utf8_decode(const char *s, unsigned *cp);
/* True when the code point must not reach a terminal raw: C0, DEL, C1, bidi controls. */
bool dra_esc_is_control(unsigned cp);

void dra_esc_gnuplot(FILE *f, const char *s);
void dra_esc_gnuplot_data(FILE *f, const char *s);
void dra_esc_html(FILE *f, const char *s);
void dra_esc_md(FILE *f, const char *s);
void dra_esc_md_code(FILE *f, const char *s);
void dra_esc_line(FILE *f, const char *s);
const char *dra_esc_bench_name(char *buf, size_t len, const char *s);
void dra_esc_term(FILE *f, const char *s);
const char *dra_esc_term_buf(char *buf, size_t len, const char *s);
/* A whole text report (len bytes, NULs included) for the terminal: line breaks and tabs kept,
 * every other control character and invalid byte shown as \xNN. */
void dra_esc_term_text(FILE *f, const char *text, size_t len);
/* 0, or -1 when the quoted text does not fit in len (buf is then ""). */
int dra_esc_sh(char *buf, size_t len, const char *s);

/* A path (or any command-line argument) as UTF-8 text, losslessly: printable UTF-8 as it is,
 * '\' as "\\", and each byte of a control character (C0, DEL, C1, bidi controls) or of invalid
 * UTF-8 as "\xNN" (lower-case hex). Reading back: "\\" is '\', "\xNN" the byte NN, anything
 * else itself. The text is valid UTF-8 without control characters: JSON writers, result-file
 * readers (STR fields) and terminals all take it. Malloc'd; NULL on out of memory. */
char *dra_esc_path(const char *s);
struct json_t;
/* dra_esc_path(s) as a JSON string (s NULL: JSON null); NULL on out of memory. */
struct json_t *dra_esc_path_json(const char *s);
/* A message (not a path) as a JSON string: as it is when it is valid UTF-8, else each invalid
 * byte as \xNN, so a JSON writer never drops it; NULL on out of memory. */
struct json_t *dra_esc_text_json(const char *s);

#endif /* DRA_ESCAPE_H */
