/* report_replay.c - report of trace-replay result files (report_replay.h). */
#include "report_replay.h"

#include "escape.h"
#include "report_out.h"

#include <errno.h>
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "policy/policy.h"

#define MAX_POINTS 64
#define MAX_RUNS 256

typedef struct pt {
    double arrived, alloc, frag_ratio, frag_amount, served;
} pt_t;

typedef struct run {
    char label[160];
    char policy[32], choice[16], mode[16], file[64];
    pt_t pt[MAX_POINTS];
    size_t npt;
    double unsched;
} run_t;

static const char *const choices[] = {"policy", "dra"};
static const char *const modes[] = {"dra", "device-plugin"};

static bool known(const char *s, const char *const *set, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (strcmp(s, set[i]) == 0)
            return true;
    return false;
}

bool dra_report_is_replay(const char *buf, size_t len)
{
    json_error_t e;
    json_t *root = json_loadb(buf, len, JSON_REJECT_DUPLICATES, &e);
    const char *s = json_string_value(json_object_get(root, "schema"));
    bool yes = s && strcmp(s, "drabench-replay/v1") == 0;
    json_decref(root);
    return yes;
}

/* The base name of path reduced to [A-Za-z0-9._-] (anything else becomes '_'), at most 40. */
static void safe_base(const char *path, char *out, size_t len)
{
    const char *b = strrchr(path, '/');
    b = b ? b + 1 : path;
    size_t k = 0;
    for (; *b && k + 1 < len && k < 40; b++) {
        char c = *b;
        bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
                  c == '.' || c == '_' || c == '-';
        out[k++] = ok ? c : '_';
    }
    out[k] = '\0';
}

static int bad(dra_diag_t *diag, const char *file, const char *fmt, ...) DRA_PRINTF(3, 4);
static int bad(dra_diag_t *diag, const char *file, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    dra_diag_setv(diag, DRA_EPARSE, file, 0, 0, fmt, ap);
    va_end(ap);
    return DRA_EPARSE;
}

static bool num(const json_t *o, const char *k, double lo, double hi, double *out)
{
    const json_t *v = json_object_get(o, k);
    if (!json_is_number(v))
        return false;
    double d = json_number_value(v);
    if (!isfinite(d) || d < lo || d > hi)
        return false;
    *out = d;
    return true;
}

static int load(const dra_io_input_t *in, run_t *runs, size_t *nruns, dra_diag_t *diag)
{
    const char *path = in->path;
    json_error_t e;
    json_t *root = json_loadb(in->buf, in->len, JSON_REJECT_DUPLICATES, &e);
    if (!root)
        return dra_diag_set(diag, DRA_EPARSE, path,
                            (uint32_t)(e.line > 0 ? e.line : 0),
                            (uint32_t)(e.column > 0 ? e.column : 0), "%s", e.text);
    int rc = DRA_OK;
    char base[48];
    safe_base(path, base, sizeof base);
    const char *schema = json_string_value(json_object_get(root, "schema"));
    const json_t *rs = json_object_get(root, "runs");
    if (!schema || strcmp(schema, "drabench-replay/v1") != 0) {
        rc = bad(diag, path, "schema: want \"drabench-replay/v1\"");
        goto out;
    }
    if (!json_is_array(rs) || json_array_size(rs) == 0) {
        rc = bad(diag, path, "runs: want a non-empty array");
        goto out;
    }
    for (size_t i = 0; i < json_array_size(rs); i++) {
        const json_t *r = json_array_get(rs, i);
        if (*nruns == MAX_RUNS) {
            rc = bad(diag, path, "more than %d runs in all files", MAX_RUNS);
            goto out;
        }
        run_t *u = &runs[*nruns];
        memset(u, 0, sizeof *u);
        const char *pol = json_string_value(json_object_get(r, "policy"));
        const char *ch = json_string_value(json_object_get(r, "device_choice"));
        const char *mo = json_string_value(json_object_get(r, "mode"));
        dra_pol_kind_t k;
        if (!pol || dra_pol_kind_parse(pol, &k) != DRA_OK) {
            rc = bad(diag, path, "runs[%zu].policy: not a known policy", i);
            goto out;
        }
        if (!ch || !known(ch, choices, 2)) {
            rc = bad(diag, path, "runs[%zu].device_choice: want policy or dra", i);
            goto out;
        }
        if (!mo || !known(mo, modes, 2)) {
            rc = bad(diag, path, "runs[%zu].mode: want dra or device-plugin", i);
            goto out;
        }
        snprintf(u->policy, sizeof u->policy, "%s", dra_pol_kind_name(k));
        snprintf(u->choice, sizeof u->choice, "%s", ch);
        snprintf(u->mode, sizeof u->mode, "%s", mo);
        snprintf(u->file, sizeof u->file, "%s", base);
        const json_t *c = json_object_get(r, "curve");
        if (!json_is_array(c) || json_array_size(c) == 0 || json_array_size(c) > MAX_POINTS) {
            rc = bad(diag, path, "runs[%zu].curve: want an array of 1..%d points", i, MAX_POINTS);
            goto out;
        }
        for (size_t j = 0; j < json_array_size(c); j++) {
            const json_t *p = json_array_get(c, j);
            pt_t *q = &u->pt[j];
            if (!num(p, "arrived_gpu_pct", 0, 1000, &q->arrived) ||
                !num(p, "gpu_alloc_ratio_pct", 0, 1000, &q->alloc) ||
                !num(p, "frag_ratio_pct_of_idle", 0, 1000, &q->frag_ratio) ||
                !num(p, "frag_amount_pct_of_total", 0, 1000, &q->frag_amount)) {
                rc = bad(diag, path,
                         "runs[%zu].curve[%zu]: want numbers 0..1000 for arrived_gpu_pct, "
                         "gpu_alloc_ratio_pct, frag_ratio_pct_of_idle, frag_amount_pct_of_total",
                         i, j);
                goto out;
            }
            if (!num(p, "served_demand_pct", 0, 1000, &q->served))
                q->served = NAN;
            if (j > 0 && q->arrived <= u->pt[j - 1].arrived) {
                rc = bad(diag, path, "runs[%zu].curve[%zu].arrived_gpu_pct: not increasing", i, j);
                goto out;
            }
        }
        u->npt = json_array_size(c);
        const json_t *un = json_object_get(r, "unscheduled_mean");
        const char *key;
        const json_t *v;
        json_object_foreach((json_t *)un, key, v)
        {
            if (json_is_number(v) && isfinite(json_number_value(v)) && json_number_value(v) >= 0)
                u->unsched += json_number_value(v);
        }
        snprintf(u->label, sizeof u->label, "%s, %s choice, %s mode [%s]", u->policy, u->choice,
                 u->mode, u->file);
        (*nruns)++;
    }
out:
    json_decref(root);
    return rc;
}

/* Strings from result files reach gnuplot, HTML and Markdown through the one escaping layer
 * (escape.h): dra_esc_gnuplot, dra_esc_html, dra_esc_md. */

static void write_plot(FILE *f, const char *name, const char *title, const char *ylabel, int col,
                       const run_t *runs, size_t n)
{
    dra_report_gp_head(f, name, title, 900, 560);
    fputs("set key below noenhanced\nset xlabel 'arrived GPU demand (% of capacity)'\nset ylabel ",
          f);
    dra_esc_gnuplot(f, ylabel);
    fputs("\nset xrange [0:*]\nset yrange [0:*]\nplot ", f);
    for (size_t i = 0; i < n; i++) {
        char c[8];
        fprintf(f,
                "%s'replay-run-%zu.dat' using 1:%d with linespoints lw 2 pt %zu dt %d lc rgb '%s' "
                "title ",
                i ? ", \\\n     " : "", i, col, i % 13 + 1, dra_report_dash(i),
                dra_report_colour(i, c));
        dra_esc_gnuplot(f, runs[i].label);
    }
    fputc('\n', f);
}

int dra_report_replay(const dra_io_input_t *in, size_t n, const char *dir, const char *title,
                      const char *gnuplot, int *plots, dra_diag_t *diag)
{
    *plots = 0;
    run_t *runs = calloc(MAX_RUNS, sizeof *runs);
    if (!runs)
        return DRA_ENOMEM;
    size_t nr = 0;
    int rc = DRA_OK;
    dra_report_out_t o = {.dir = dir, .diag = diag, .rc = DRA_OK};
    for (size_t i = 0; i < n && rc == DRA_OK; i++)
        rc = load(&in[i], runs, &nr, diag);
    if (rc != DRA_OK)
        goto out;
    if ((rc = dra_report_out_begin(&o)) != DRA_OK)
        goto out;
    if (!title)
        title = "drabench replay report";
    for (size_t i = 0; i < nr && rc == DRA_OK; i++) {
        char name[64];
        snprintf(name, sizeof name, "replay-run-%zu.dat", i);
        FILE *f = dra_report_out_open(&o, name);
        if (!f) {
            rc = o.rc;
            break;
        }
        fputs("# arrived_gpu_pct gpu_alloc_ratio_pct frag_ratio_pct_of_idle "
              "frag_amount_pct_of_total served_demand_pct\n",
              f);
        for (size_t j = 0; j < runs[i].npt; j++) {
            const pt_t *p = &runs[i].pt[j];
            fprintf(f, "%g %.4f %.4f %.4f %.4f\n", p->arrived, p->alloc, p->frag_ratio,
                    p->frag_amount, isnan(p->served) ? p->alloc : p->served);
        }
        dra_report_out_close(&o, f, name);
        rc = o.rc;
    }
    static const struct {
        const char *name, *title, *ylabel;
        int col;
    } pl[] = {
        {"replay-alloc", "GPU allocation ratio", "GPU allocation ratio (%)", 2},
        {"replay-frag", "Fragmentation amount", "fragmented GPU milli (% of all GPU)", 4},
        {"replay-frag-ratio", "Fragmentation ratio of idle GPU", "fragmented / idle GPU milli (%)",
         3},
    };
    bool ok[3] = {false, false, false};
    const char *gp = gnuplot ? gnuplot : getenv("GNUPLOT");
    if (!gp)
        gp = "gnuplot";
    for (size_t p = 0; p < 3 && rc == DRA_OK; p++) {
        char name[64];
        snprintf(name, sizeof name, "%s.gp", pl[p].name);
        FILE *f = dra_report_out_open(&o, name);
        if (!f) {
            rc = o.rc;
            break;
        }
        write_plot(f, pl[p].name, pl[p].title, pl[p].ylabel, pl[p].col, runs, nr);
        dra_report_out_close(&o, f, name);
        rc = o.rc;
        if (rc == DRA_OK && *gp && (ok[p] = dra_report_gnuplot_run(gp, dir, pl[p].name)))
            (*plots)++;
    }
    FILE *h = rc == DRA_OK ? dra_report_out_open(&o, "index.html") : NULL;
    FILE *m = rc == DRA_OK ? dra_report_out_open(&o, "report.md") : NULL;
    if (h && m) {
        fputs("<!doctype html>\n<html><head><meta charset=\"utf-8\"><title>", h);
        dra_esc_html(h, title);
        fputs("</title><style>body{font-family:sans-serif;max-width:1000px;margin:2em auto}"
              "table{border-collapse:collapse}td,th{border:1px solid #ccc;padding:3px 8px;"
              "text-align:right}td:first-child{text-align:left}</style></head><body>\n<h1>",
              h);
        dra_esc_html(h, title);
        fputs("</h1>\n<p>Trace replay results (schema drabench-replay/v1): allocation and "
              "fragmentation against arrived GPU demand, as the FGD paper plots them.</p>\n",
              h);
        fputs("# ", m);
        dra_esc_md(m, title);
        fputs("\n\n", m);
        for (size_t p = 0; p < 3; p++) {
            if (ok[p]) {
                char svg[80];
                snprintf(svg, sizeof svg, "%s.svg", pl[p].name);
                fputs("<p><img src=\"", h); /* inline: the page is one file */
                if (!dra_report_data_uri_svg(h, dir, svg))
                    fputs(svg, h);
                fputs("\" alt=\"", h);
                dra_esc_html(h, pl[p].title);
                fputs("\"></p>\n", h);
                fprintf(m, "![%s](%s.svg)\n", pl[p].title, pl[p].name);
            }
        }
        fputs("\n| run | alloc % @100 | alloc % at end | frag % of all GPU at end | "
              "frag % of idle at end | unscheduled pods |\n|---|---:|---:|---:|---:|---:|\n",
              m);
        if (!ok[0])
            fputs("<p>Plots not drawn (gnuplot missing, disabled or failed); the .gp scripts "
                  "and .dat files are in this directory.</p>\n",
                  h);
        fputs("<table><tr><th>run</th><th>alloc % @100</th><th>alloc % at end</th>"
              "<th>frag % of all GPU at end</th><th>frag % of idle at end</th>"
              "<th>unscheduled pods</th></tr>\n",
              h);
        for (size_t i = 0; i < nr; i++) {
            const run_t *u = &runs[i];
            const pt_t *end = &u->pt[u->npt - 1];
            double a100 = NAN;
            for (size_t j = 0; j < u->npt; j++)
                if (fabs(u->pt[j].arrived - 100) < 1e-9)
                    a100 = u->pt[j].alloc;
            char a[32];
            if (isnan(a100))
                snprintf(a, sizeof a, "-"); /* the run's tune ends below 100% */
            else
                snprintf(a, sizeof a, "%.2f", a100);
            fputs("<tr><td>", h);
            dra_esc_html(h, u->label);
            fprintf(h,
                    "</td><td>%s</td><td>%.2f</td><td>%.2f</td><td>%.2f</td><td>%.1f</td></tr>\n",
                    a, end->alloc, end->frag_amount, end->frag_ratio, u->unsched);
            fputs("| ", m);
            dra_esc_md(m, u->label);
            fprintf(m, " | %s | %.2f | %.2f | %.2f | %.1f |\n", a, end->alloc, end->frag_amount,
                    end->frag_ratio, u->unsched);
        }
        fputs("</table>\n</body></html>\n", h);
    }
    if (h && m) {
        dra_report_out_close(&o, h, "index.html");
        dra_report_out_close(&o, m, "report.md");
    }
    if (rc == DRA_OK)
        rc = o.rc;
    dra_report_out_abort(&o); /* whatever an error left open */
out:
    free(runs);
    return rc;
}
