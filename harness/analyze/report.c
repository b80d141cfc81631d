/* report.c - HTML/Markdown report with gnuplot plots; histogram helpers. See report.h. */
#include "report.h"

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "compare.h"
#include "escape.h"
#include "files.h"
#include "report_out.h"
#include "stats.h"

/* ---- histograms ----------------------------------------------------------------------------- */

int dra_report_hist_pool(const dra_rload_result_t *r, size_t n, const char *shape,
                         const char *phase, const char *outcome, dra_hist_t *h, size_t *count)
{
    int rc = dra_hist_init(h, DRA_HIST_LOWEST, DRA_HIST_HIGHEST, DRA_HIST_SIGFIGS);
    if (rc != DRA_OK)
        return rc;
    size_t c = 0;
    for (size_t i = 0; i < n; i++)
        for (size_t j = 0; j < r[i].nreps; j++)
            for (size_t k = 0; k < r[i].reps[j].nhists; k++) {
                const dra_rload_hist_t *x = &r[i].reps[j].hists[k];
                if (strcmp(x->shape, shape) != 0 || strcmp(x->phase, phase) != 0 ||
                    strcmp(x->outcome, outcome) != 0)
                    continue;
                /* values are recorded into the default layout; a dump from another layout is
                 * re-bucketed at its representative values */
                for (size_t b = 0; b < x->nbuckets; b++)
                    dra_hist_record_n(h, x->bucket_value[b], x->bucket_count[b]);
                c++;
            }
    if (count)
        *count = c;
    return DRA_OK;
}

const char *dra_report_label(const dra_rload_result_t *r, size_t index, char *buf, size_t len)
{
    const char *s = strrchr(r->scenario, '/');
    s = s ? s + 1 : r->scenario;
    snprintf(buf, len, "#%zu %s %s", index + 1, s, *r->tool_git ? r->tool_git : "?");
    return buf;
}

/* ---- small output helpers ------------------------------------------------------------------- */

static void html_esc(FILE *f, const char *s)
{
    dra_esc_html(f, s);
}

static void md_esc(FILE *f, const char *s)
{
    dra_esc_md(f, s);
}

/* gnuplot string literal of untrusted text (escape.h) */
static void gp_str(FILE *f, const char *s)
{
    dra_esc_gnuplot(f, s);
}

/* ---- per-run summary ------------------------------------------------------------------------ */

typedef struct {
    bool has;
    size_t n;
    double median, lo, hi;
    bool finite;
} stat_t;

static stat_t metric_stat(const dra_rload_result_t *r, const char *metric)
{
    stat_t s = {0};
    double *x = malloc((r->nreps ? r->nreps : 1) * sizeof *x);
    if (!x)
        return s;
    size_t n = 0;
    for (size_t i = 0; i < r->nreps; i++) {
        double v;
        if (dra_rload_value(&r->reps[i], metric, &v) && isfinite(v))
            x[n++] = v;
    }
    dra_stats_ci_t ci;
    if (n && dra_stats_median_ci(x, n, DRA_STATS_CONFIDENCE, &ci) == DRA_OK) {
        s.has = true;
        s.n = n;
        s.median = ci.center;
        s.lo = ci.lo;
        s.hi = ci.hi;
        s.finite = ci.finite;
    }
    free(x);
    return s;
}

static const char *stat_text(const stat_t *s, const char *unit, char *buf, size_t len)
{
    char v[48];
    if (!s->has) {
        snprintf(buf, len, "-");
        return buf;
    }
    dra_compare_fmt_value_unit(s->median, unit, v, sizeof v);
    if (!s->finite)
        snprintf(buf, len, "%s ± ∞", v);
    else
        snprintf(buf, len, "%s ± %.0f%%", v,
                 s->median != 0 ? 100 * fmax(s->hi - s->median, s->median - s->lo) / fabs(s->median)
                                : 0.0);
    return buf;
}

static const struct {
    const char *metric, *title;
} key_metrics[] = {
    {"throughput.claims_per_s", "allocated claims/s"},
    {"throughput.group_claims_per_s", "group-cycle claims/s"},
    {"throughput.pods_per_s", "placed pods/s"},
    {"throughput.rejections_per_s", "rejections/s"},
    {"latency.pod.p50", "placed pod p50"},
    {"latency.pod.p99", "placed pod p99"},
    {"latency.pod.p999", "placed pod p99.9"},
    {"rejection.pod.p50", "rejected pod p50"},
    {"search.cel_evaluations", "CEL evals"},
    {"outcomes.unsatisfiable", "unsat pods"},
};

/* Whether any run has a non-zero value of key metric k (a column of zeros or blanks is left
 * out). */
static bool key_metric_used(const dra_rload_result_t *r, size_t n, size_t k)
{
    for (size_t i = 0; i < n; i++)
        for (size_t j = 0; j < r[i].nreps; j++) {
            double v;
            if (dra_rload_value(&r[i].reps[j], key_metrics[k].metric, &v) && isfinite(v) && v != 0)
                return true;
        }
    return false;
}

static const char *metric_unit(const dra_rload_result_t *r, const char *metric)
{
    const dra_rload_metric_t *m = dra_rload_metric(r, metric);
    if (m)
        return m->unit;
    return strncmp(metric, "latency.", 8) == 0 ? "ns" : "";
}

/* ---- data files and gnuplot scripts --------------------------------------------------------- */

/* the head of every script (report_out.h) and report.c's key style */
static void gp_header(FILE *f, const char *out, const char *title, int w, int h)
{
    dra_report_gp_head(f, out, title, w, h);
    fputs("set key noenhanced\nset border lc rgb '#444444'\n", f);
}

/* The pods the latency plots show: the placed ones (outcome `allocated`) in files of timing
 * version 2, where latency.* count them only; every pod in older files. */
static const char *placed_outcome(const dra_rload_result_t *r)
{
    return r->timing_version >= 2 ? "allocated" : "any";
}

/* Latency percentile spectrum: one .dat per run (value_us percentile count 1/(1-p)). */
static int plot_latency(dra_report_out_t *o, const dra_rload_result_t *r, size_t n, bool *any)
{
    *any = false;
    FILE *gp = NULL;
    int series = 0;
    for (size_t i = 0; i < n && o->rc == DRA_OK; i++) {
        dra_hist_t h;
        size_t cnt;
        int rc = dra_report_hist_pool(&r[i], 1, "all", "pod", placed_outcome(&r[i]), &h, &cnt);
        if (rc != DRA_OK)
            return rc;
        if (dra_hist_count(&h) == 0) {
            dra_hist_fini(&h);
            continue;
        }
        char name[64];
        /* .hgrm for HdrHistogram's plotter, .dat (comments marked) for gnuplot */
        snprintf(name, sizeof name, "latency-%zu.hgrm", i + 1);
        FILE *f = dra_report_out_open(o, name);
        if (f) {
            rc = dra_hist_write_hgrm(&h, f, 1000.0, 5);
            dra_report_out_close(o, f, name);
        }
        char *buf = NULL;
        size_t len = 0;
        FILE *mf = open_memstream(&buf, &len);
        if (mf) {
            rc = dra_hist_write_hgrm(&h, mf, 1000.0, 5);
            fclose(mf);
        }
        dra_hist_fini(&h);
        if (rc != DRA_OK || !buf) {
            free(buf);
            return rc != DRA_OK ? rc : DRA_ENOMEM;
        }
        snprintf(name, sizeof name, "latency-%zu.dat", i + 1);
        f = dra_report_out_open(o, name);
        if (f) {
            fputs("# value_us percentile total_count inverse(1/(1-p)); from the .hgrm\n", f);
            for (char *line = strtok(buf, "\n"); line; line = strtok(NULL, "\n")) {
                const char *p = line;
                while (*p == ' ')
                    p++;
                if (!(*p >= '0' && *p <= '9'))
                    continue; /* header and footer */
                if (strstr(line, "inf"))
                    continue; /* the 100% row: 1/(1-1) */
                fprintf(f, "%s\n", line);
            }
            dra_report_out_close(o, f, name);
        }
        free(buf);
        if (!gp) {
            gp = dra_report_out_open(o, "latency.gp");
            if (!gp)
                return o->rc;
            gp_header(gp, "latency", "Scheduling latency of placed pods by percentile (all shapes)",
                      960, 520);
            fputs("set logscale x\nset logscale y\nset xrange [1:1e5]\n"
                  "set xtics ('0%%' 1, '90%%' 10, '99%%' 100, '99.9%%' 1000, '99.99%%' 10000, "
                  "'99.999%%' 100000)\n"
                  "set xlabel 'percentile (axis: 1/(1-p), as HdrHistogram plots)'\n"
                  "set ylabel 'latency (µs)'\nset key top left\nplot ",
                  gp);
        }
        char label[256], col[8];
        dra_report_label(&r[i], i, label, sizeof label);
        /* past the palette: other dash types and point markers too (report_out.h) */
        if (i < 8)
            fprintf(gp, "%s'%s' using 4:1 with lines lw 2 lc rgb '%s' title ",
                    series ? ", \\\n     " : "", name, dra_report_colour(i, col));
        else
            fprintf(gp,
                    "%s'%s' using 4:1 with linespoints lw 2 dt %d pt %zu pi -12 lc rgb '%s' "
                    "title ",
                    series ? ", \\\n     " : "", name, dra_report_dash(i), 1 + (i / 8) % 13,
                    dra_report_colour(i, col));
        gp_str(gp, label);
        series++;
    }
    if (gp) {
        fputc('\n', gp);
        dra_report_out_close(o, gp, "latency.gp");
        *any = true;
    }
    return o->rc;
}

/* Histogram overlay: fraction of pods per log-spaced latency bin (20 bins per decade). */
static int plot_hist(dra_report_out_t *o, const dra_rload_result_t *r, size_t n, bool *any)
{
    *any = false;
    FILE *gp = NULL;
    int series = 0;
    for (size_t i = 0; i < n && o->rc == DRA_OK; i++) {
        dra_hist_t h;
        size_t cnt;
        int rc = dra_report_hist_pool(&r[i], 1, "all", "pod", placed_outcome(&r[i]), &h, &cnt);
        if (rc != DRA_OK)
            return rc;
        int64_t total = dra_hist_count(&h);
        if (total == 0) {
            dra_hist_fini(&h);
            continue;
        }
        enum { PER_DECADE = 20, NBINS = 13 * PER_DECADE };
        double bins[NBINS] = {0};
        dra_hist_iter_t it;
        dra_hist_iter_init(&it, &h);
        while (dra_hist_iter_next(&it)) {
            double mid = ((double)it.bucket.lo + (double)it.bucket.hi) / 2.0;
            int b = mid >= 1 ? (int)floor(log10(mid) * PER_DECADE) : 0;
            b = b < 0 ? 0 : b >= NBINS ? NBINS - 1 : b;
            bins[b] += (double)it.bucket.count;
        }
        dra_hist_fini(&h);
        char name[64];
        snprintf(name, sizeof name, "hist-%zu.dat", i + 1);
        FILE *f = dra_report_out_open(o, name);
        if (!f)
            return o->rc;
        fputs("# bin_lo_us bin_hi_us fraction_of_pods\n", f);
        int first = -1, last = -1;
        for (int b = 0; b < NBINS; b++)
            if (bins[b] > 0) {
                first = first < 0 ? b : first;
                last = b;
            }
        for (int b = first > 0 ? first - 1 : 0; b <= last + 1 && b < NBINS; b++)
            fprintf(f, "%.6g %.6g %.6g\n", pow(10, (double)b / PER_DECADE) / 1000.0,
                    pow(10, (double)(b + 1) / PER_DECADE) / 1000.0, bins[b] / (double)total);
        dra_report_out_close(o, f, name);
        if (!gp) {
            gp = dra_report_out_open(o, "hist.gp");
            if (!gp)
                return o->rc;
            gp_header(gp, "hist", "Placed pods' latency distribution (overlay, 20 bins per decade)",
                      960, 440);
            fputs("set logscale x\nset xlabel 'latency (µs)'\nset ylabel 'fraction of pods'\n"
                  "set style fill transparent solid 0.25 noborder\nset key top right\nplot ",
                  gp);
        }
        char label[256], cb[8];
        dra_report_label(&r[i], i, label, sizeof label);
        const char *col = dra_report_colour(i, cb);
        fprintf(gp,
                "%s'%s' using 1:3 with fillsteps lc rgb '%s' notitle, \\\n     '%s' using 1:3 with "
                "steps lw 2 dt %d lc rgb '%s' title ",
                series ? ", \\\n     " : "", name, col, name, dra_report_dash(i), col);
        gp_str(gp, label);
        series++;
    }
    if (gp) {
        fputc('\n', gp);
        dra_report_out_close(o, gp, "hist.gp");
        *any = true;
    }
    return o->rc;
}

/* Throughput per run: median claims/s with its 95% CI as error bars. */
static int plot_throughput(dra_report_out_t *o, const dra_rload_result_t *r, size_t n, bool *any)
{
    *any = false;
    FILE *f = dra_report_out_open(o, "throughput.dat");
    if (!f)
        return o->rc;
    fputs("# run median_claims_per_s ci_lo ci_hi n label\n", f);
    int rows = 0;
    double vmin = INFINITY, vmax = 0;
    for (size_t i = 0; i < n; i++) {
        stat_t s = metric_stat(&r[i], "throughput.claims_per_s");
        if (!s.has || !(s.median > 0))
            continue;
        vmin = fmin(vmin, s.median);
        vmax = fmax(vmax, s.median);
        double lo = s.finite ? s.lo : s.median, hi = s.finite ? s.hi : s.median;
        char label[256];
        dra_report_label(&r[i], i, label, sizeof label);
        fprintf(f, "%zu %.6g %.6g %.6g %zu ", i + 1, s.median, lo, hi, s.n);
        dra_esc_gnuplot_data(f, label);
        fputc('\n', f);
        rows++;
    }
    dra_report_out_close(o, f, "throughput.dat");
    if (!rows)
        return o->rc;
    FILE *gp = dra_report_out_open(o, "throughput.gp");
    if (!gp)
        return o->rc;
    gp_header(gp, "throughput",
              "Allocated claims per second of the time spent on them, per run "
              "(median, 95% CI of the median)",
              960, 420);
    /* runs a decade or more apart (unsat-storm beside fleet-5k): a log axis, or the small ones
     * are flat lines */
    if (vmax > 10 * vmin)
        fprintf(gp, "set logscale y\nset yrange [%g:*]\nset ylabel 'claims/s (log scale)'\n",
                vmin / 3);
    else
        fputs("set yrange [0:*]\nset ylabel 'claims/s'\n", gp);
    fprintf(gp,
            "set style fill solid 0.6 border lc rgb '#1f4e79'\nset boxwidth 0.6\n"
            "set xrange [0.3:%d.7]\n"
            "set xtics rotate by -20 noenhanced\nunset key\n"
            "plot 'throughput.dat' using 1:2:xtic(6) with boxes lc rgb '#5b9bd5', \\\n"
            "     '' using 1:2:3:4 with yerrorbars lc rgb '#222222' pt 0 lw 2\n",
            (int)n);
    dra_report_out_close(o, gp, "throughput.gp");
    *any = true;
    return o->rc;
}

/* Fragmentation over time (first repetition of each run that recorded samples). */
static int plot_frag(dra_report_out_t *o, const dra_rload_result_t *r, size_t n, bool *any)
{
    *any = false;
    FILE *gp = NULL;
    int series = 0;
    for (size_t i = 0; i < n && o->rc == DRA_OK; i++) {
        const dra_rload_rep_t *rep = NULL;
        for (size_t j = 0; j < r[i].nreps && !rep; j++)
            if (r[i].reps[j].nfrag_rows > 1 && r[i].reps[j].nfrag_cols >= 4)
                rep = &r[i].reps[j];
        if (!rep)
            continue;
        char name[64];
        snprintf(name, sizeof name, "frag-%zu.dat", i + 1);
        FILE *f = dra_report_out_open(o, name);
        if (!f)
            return o->rc;
        fputs("# t idle_gpus_unusable stranded_mig_fraction partial_nvlink_domains\n", f);
        for (size_t k = 0; k < rep->nfrag_rows; k++) {
            const double *row = rep->frag + k * rep->nfrag_cols;
            fprintf(f, "%.9g %.9g %.9g %.9g\n", row[0], row[1], row[2], row[3]);
        }
        dra_report_out_close(o, f, name);
        if (!gp) {
            gp = dra_report_out_open(o, "frag.gp");
            if (!gp)
                return o->rc;
            gp_header(gp, "frag", "Fragmentation over the run (first repetition)", 960, 440);
            fputs("set xlabel 'time of sample (as recorded by the runner)'\n"
                  "set ylabel 'GPUs, domains'\n"
                  "set y2label 'MIG fraction'\nset y2tics\nset ytics nomirror\n"
                  "set key outside bottom center horizontal\nplot ",
                  gp);
        }
        char label[256], cb[8];
        dra_report_label(&r[i], i, label, sizeof label);
        const char *col = dra_report_colour(i, cb);
        fprintf(gp, "%s'%s' using 1:2 with steps lw 2 lc rgb '%s' title ",
                series ? ", \\\n     " : "", name, col);
        char t[300];
        snprintf(t, sizeof t, "%s idle GPUs unusable", label);
        gp_str(gp, t);
        fprintf(gp, ", \\\n     '%s' using 1:4 with steps lw 1 dt 2 lc rgb '%s' title ", name, col);
        snprintf(t, sizeof t, "%s partial NVLink domains", label);
        gp_str(gp, t);
        fprintf(gp, ", \\\n     '%s' using 1:3 axes x1y2 with lines lw 1 dt 3 lc rgb '%s' title ",
                name, col);
        snprintf(t, sizeof t, "%s stranded MIG", label);
        gp_str(gp, t);
        series++;
    }
    if (gp) {
        fputc('\n', gp);
        dra_report_out_close(o, gp, "frag.gp");
        *any = true;
    }
    return o->rc;
}

/* Domain occupancy over time (PodGroup scenarios): per topology key of the first repetition with
 * samples, the domains fully used, partly used and idle (left axis) and the GPUs stranded in
 * partly used domains (right axis). */
static int plot_domains(dra_report_out_t *o, const dra_rload_result_t *r, size_t n, bool *any)
{
    *any = false;
    FILE *gp = NULL;
    int series = 0;
    for (size_t i = 0; i < n && o->rc == DRA_OK; i++) {
        const dra_rload_rep_t *rep = NULL;
        for (size_t j = 0; j < r[i].nreps && !rep; j++)
            for (size_t d = 0; d < r[i].reps[j].ndomains && !rep; d++)
                if (r[i].reps[j].domains[d].nrows > 1 && r[i].reps[j].domains[d].ncols >= 5)
                    rep = &r[i].reps[j];
        if (!rep)
            continue;
        for (size_t d = 0; d < rep->ndomains && o->rc == DRA_OK; d++) {
            const dra_rload_domains_t *dm = &rep->domains[d];
            if (dm->nrows < 2 || dm->ncols < 5)
                continue;
            char name[64];
            snprintf(name, sizeof name, "domains-%zu-%zu.dat", i + 1, d + 1);
            FILE *f = dra_report_out_open(o, name);
            if (!f)
                return o->rc;
            fputs("# t full partial idle stranded_gpus\n", f);
            for (size_t k = 0; k < dm->nrows; k++) {
                const double *row = dm->samples + k * dm->ncols;
                fprintf(f, "%.9g %.9g %.9g %.9g %.9g\n", row[0], row[1], row[2], row[3], row[4]);
            }
            dra_report_out_close(o, f, name);
            if (!gp) {
                gp = dra_report_out_open(o, "domains.gp");
                if (!gp)
                    return o->rc;
                gp_header(gp, "domains", "Topology domains over the run (first repetition)", 960,
                          440);
                fputs("set xlabel 'workload time of sample (s)'\nset ylabel 'domains'\n"
                      "set y2label 'GPUs stranded'\nset y2tics\nset ytics nomirror\n"
                      "set key outside bottom center horizontal\nplot ",
                      gp);
            }
            char label[256];
            dra_report_label(&r[i], i, label, sizeof label);
            const char *col =
                dra_report_palette[(size_t)series % DRA_ARRAY_LEN(dra_report_palette)];
            static const char *const what[3] = {"full", "partly used", "idle"};
            static const char *const dash[3] = {"1", "2", "3"};
            for (int c = 0; c < 3; c++) {
                fprintf(gp, "%s'%s' using 1:%d with steps lw 2 dt %s lc rgb '%s' title ",
                        series || c ? ", \\\n     " : "", name, 2 + c, dash[c], col);
                char t[400];
                snprintf(t, sizeof t, "%s %s: %s", label, dm->key, what[c]);
                gp_str(gp, t);
            }
            fprintf(gp, ", \\\n     '%s' using 1:5 axes x1y2 with lines lw 1 lc rgb '%s' title ",
                    name, col);
            char t[400];
            snprintf(t, sizeof t, "%s %s: GPUs stranded", label, dm->key);
            gp_str(gp, t);
            series++;
        }
    }
    if (gp) {
        fputc('\n', gp);
        dra_report_out_close(o, gp, "domains.gp");
        *any = true;
    }
    return o->rc;
}

/* ---- HTML and Markdown ---------------------------------------------------------------------- */

static const char css[] =
    "body{font-family:-apple-system,'Segoe UI',Helvetica,Arial,sans-serif;margin:0;color:#1d232a;"
    "background:#f6f7f9;line-height:1.45}"
    "main{max-width:1200px;margin:0 auto;padding:24px 32px 48px}"
    "h1{font-size:26px;margin:0 0 4px}h2{font-size:19px;margin:32px 0 10px;border-bottom:1px solid "
    "#d8dde3;padding-bottom:4px}"
    ".sub{color:#5a6570;margin:0 0 18px}"
    "table{border-collapse:collapse;background:#fff;font-size:13px;margin:6px 0 14px;"
    "box-shadow:0 1px 2px rgba(0,0,0,.06)}"
    "th,td{border:1px solid #dfe3e8;padding:5px 9px;text-align:left;vertical-align:top}"
    "th{background:#eef1f5;font-weight:600}td.num{text-align:right;font-variant-numeric:"
    "tabular-nums;white-space:nowrap}"
    "code{font-size:12px;background:#eef1f5;padding:1px 4px;border-radius:3px}"
    ".ok{color:#1a7f37;font-weight:600}.bad{color:#b42318;font-weight:600}"
    ".banner{padding:10px 14px;border-radius:6px;margin:12px 0;font-size:14px}"
    ".banner.bad{background:#fdecea;border:1px solid #f5c2bd}"
    ".banner.warn{background:#fff7e0;border:1px solid #f0d890;color:#6b4e00;font-weight:400}"
    "figure{background:#fff;margin:10px 0 18px;padding:10px;border:1px solid #dfe3e8;"
    "border-radius:6px}figure img{max-width:100%;height:auto;display:block;margin:0 auto}"
    "figcaption{font-size:13px;color:#5a6570;margin-top:6px}"
    ".note{font-size:12px;color:#5a6570}";

static void write_runs_html(FILE *f, const dra_rload_result_t *r, size_t n)
{
    fputs("<table><tr><th>run</th><th>file</th><th>scenario</th><th>seed</th><th>release / "
          "policy</th><th>reps</th><th>commit</th><th>build</th><th>host</th><th>date "
          "(UTC)</th><th>status</th><th>invariants</th></tr>\n",
          f);
    for (size_t i = 0; i < n; i++) {
        const dra_rload_result_t *x = &r[i];
        fprintf(f, "<tr><td>#%zu</td><td><code>", i + 1);
        html_esc(f, x->path);
        fputs("</code></td><td>", f);
        html_esc(f, x->scenario);
        fputs("</td><td class=num>", f);
        html_esc(f, *x->seed ? x->seed : "-");
        fputs("</td><td>", f);
        html_esc(f, x->release);
        fputs(" / ", f);
        html_esc(f, x->policy);
        fprintf(f, "</td><td class=num>%zu</td><td><code>", x->nreps);
        html_esc(f, *x->tool_git ? x->tool_git : "-");
        fputs("</code></td><td>", f);
        html_esc(f, x->build_type);
        if (*x->sanitize) {
            fputs(" +", f);
            html_esc(f, x->sanitize);
        }
        if (*x->kernel) {
            fputs(", ", f);
            html_esc(f, x->kernel);
        }
        fputs("</td><td>", f);
        html_esc(f, x->hostname);
        if (*x->cpu_model) {
            fputs("<br><span class=note>", f);
            html_esc(f, x->cpu_model);
            fprintf(f, ", %lld CPUs</span>", (long long)x->cpus);
        }
        fputs("</td><td>", f);
        html_esc(f, x->date);
        fprintf(f, "</td><td>%s</td><td class=\"%s\">%lld checked, %lld violated</td></tr>\n",
                strcmp(x->status, "complete") == 0 ? "complete" : "<span class=bad>interrupted</span>",
                x->inv_violations ? "bad" : "ok", (long long)x->inv_checked,
                (long long)x->inv_violations);
    }
    fputs("</table>\n", f);
}

static void write_metrics_table(FILE *f, const dra_rload_result_t *r, size_t n, bool md)
{
    bool used[DRA_ARRAY_LEN(key_metrics)];
    for (size_t k = 0; k < DRA_ARRAY_LEN(key_metrics); k++)
        used[k] = key_metric_used(r, n, k);
    if (md) {
        fputs("| run | scenario |", f);
        for (size_t k = 0; k < DRA_ARRAY_LEN(key_metrics); k++)
            if (used[k])
                fprintf(f, " %s |", key_metrics[k].title);
        fputs("\n| --- | --- |", f);
        for (size_t k = 0; k < DRA_ARRAY_LEN(key_metrics); k++)
            if (used[k])
                fputs(" ---: |", f);
        fputc('\n', f);
    } else {
        fputs("<table><tr><th>run</th><th>scenario</th>", f);
        for (size_t k = 0; k < DRA_ARRAY_LEN(key_metrics); k++)
            if (used[k])
                fprintf(f, "<th>%s</th>", key_metrics[k].title);
        fputs("</tr>\n", f);
    }
    for (size_t i = 0; i < n; i++) {
        if (md) {
            fprintf(f, "| #%zu | ", i + 1);
            md_esc(f, r[i].scenario);
            fputs(" |", f);
        } else {
            fprintf(f, "<tr><td>#%zu</td><td>", i + 1);
            html_esc(f, r[i].scenario);
            fputs("</td>", f);
        }
        for (size_t k = 0; k < DRA_ARRAY_LEN(key_metrics); k++) {
            if (!used[k])
                continue;
            stat_t s = metric_stat(&r[i], key_metrics[k].metric);
            char buf[96];
            const char *unit = metric_unit(&r[i], key_metrics[k].metric);
            stat_text(&s, unit, buf, sizeof buf);
            if (md)
                fprintf(f, " %s |", buf);
            else
                fprintf(f, "<td class=num>%s</td>", buf);
        }
        fputs(md ? "\n" : "</tr>\n", f);
    }
    if (!md)
        fputs("</table>\n", f);
    else
        fputc('\n', f);
}

typedef struct {
    const char *name, *title, *caption;
    bool data, ok;
} plot_t;

/* The inputs of the page: what the sections write from. */
typedef struct page {
    const dra_rload_result_t *r;
    size_t n;
    const char *title;
    long long viol;                  /* invariant violations over all files */
    const plot_t *plots;             /* REPORT_NPLOTS */
    const dra_report_info_t *info;
    const dra_compare_report_t *cmp; /* the comparison section, or NULL */
    size_t nbase;
    const char *dir; /* the report directory (its SVGs are inlined) */
} page_t;

enum { REPORT_NPLOTS = 5 };

/* The comparison section: the base runs against the others, as `drabench compare` judges. */
static void html_comparison(FILE *f, const dra_compare_report_t *cmp, size_t nbase)
{
    char base_runs[32];
    if (nbase == 1)
        snprintf(base_runs, sizeof base_runs, "Run #1");
    else
        snprintf(base_runs, sizeof base_runs, "Runs #1-#%zu", nbase);
    char thr[64];
    if (cmp->threshold < 0)
        snprintf(thr, sizeof thr, "no default threshold");
    else
        snprintf(thr, sizeof thr, "a %g%% threshold", 100 * cmp->threshold);
    fprintf(f, "<h2>%s against the others</h2>\n<p class=note>Medians per scenario; "
               "Mann-Whitney U test at alpha %g; <code>~</code> = no significant change. "
               "Verdict of <code>drabench compare</code> with %s",
            base_runs, cmp->alpha, thr);
    if (cmp->gate_path) {
        fputs(" and the rules of the gate file <code>", f);
        html_esc(f, cmp->gate_path);
        fputs("</code>", f);
    } else {
        fputs(" on every gated metric (compare's defaults)", f);
    }
    fprintf(f, ": <span class=\"%s\">%s</span> (exit %d).</p>\n"
               "<table><tr><th>metric</th><th>scenario</th><th>base</th><th>new</th>"
               "<th>change</th><th>verdict</th></tr>\n",
            cmp->exit_status ? "bad" : "ok",
            cmp->exit_status == 0   ? "PASS"
            : cmp->exit_status == 5 ? "INCONCLUSIVE"
            : cmp->exit_status == 2 ? "NOT COMPARABLE"
                                   : "FAIL",
            cmp->exit_status);
    for (size_t k = 0; k < cmp->nrows; k++) {
        const dra_compare_row_t *row = &cmp->rows[k];
        char a[64], b[64];
        dra_compare_fmt_value_unit(row->base.median, row->unit, a, sizeof a);
        dra_compare_fmt_value_unit(row->cur.median, row->unit, b, sizeof b);
        fputs("<tr><td>", f);
        html_esc(f, row->metric);
        fputs("</td><td>", f);
        html_esc(f, row->scenario);
        fprintf(f, "</td><td class=num>%s</td><td class=num>%s</td><td class=num>", a, b);
        if (row->significant && isfinite(row->delta))
            fprintf(f, "%+.2f%%", 100 * row->delta);
        else if (row->base.n && row->cur.n)
            fputs("~", f);
        fprintf(f, "</td><td class=\"%s\">%s%s</td></tr>\n",
                row->verdict == DRA_CMP_REGRESSION ? "bad"
                : row->verdict == DRA_CMP_IMPROVED ? "ok"
                                                   : "",
                dra_compare_verdict_name(row->verdict),
                dra_compare_row_ci_wider(row)
                    ? " <span class=note>(warning: a median's confidence interval is wider than "
                      "the change)</span>"
                    : "");
    }
    fputs("</table>\n", f);
}

static void write_html(FILE *f, const page_t *pg)
{
    const dra_rload_result_t *r = pg->r;
    size_t n = pg->n, nbase = pg->nbase;
    const char *title = pg->title;
    long long viol = pg->viol;
    const plot_t *plots = pg->plots;
    const dra_report_info_t *info = pg->info;
    const dra_compare_report_t *cmp = pg->cmp;
    fputs("<!DOCTYPE html>\n<html lang=en><head><meta charset=utf-8>\n"
          "<meta name=viewport content=\"width=device-width, initial-scale=1\">\n<title>",
          f);
    html_esc(f, title);
    fprintf(f, "</title>\n<style>%s</style></head>\n<body><main>\n<h1>", css);
    html_esc(f, title);
    fprintf(f, "</h1>\n<p class=sub>%zu result file%s, generated by <code>drabench report</code> "
               "(schema drabench-result/v1). Medians over repetitions with 95%% confidence "
               "intervals of the median.</p>\n",
            n, n == 1 ? "" : "s");
    if (viol)
        fprintf(f, "<div class=\"banner bad\">%lld invariant violation(s) recorded: these runs "
                   "produced incorrect allocations.</div>\n",
                viol);
    if (cmp && cmp->ndigest)
        fputs("<div class=\"banner bad\">Decision digests differ for equal inputs (same scenario "
              "hash, seed and profile): the allocations changed.</div>\n",
              f);
    if (!info->gnuplot_found)
        fputs("<div class=\"banner warn\">gnuplot was not found, so this report has tables but no "
              "plots. Install <code>gnuplot-nox</code> and run <code>drabench report</code> again; "
              "the <code>.dat</code> and <code>.gp</code> files are already in this "
              "directory.</div>\n",
              f);
    fputs("<h2>Runs</h2>\n", f);
    write_runs_html(f, r, n);
    fputs("<h2>Key metrics</h2>\n", f);
    write_metrics_table(f, r, n, false);
    if (cmp)
        html_comparison(f, cmp, nbase);
    for (size_t p = 0; p < (size_t)REPORT_NPLOTS; p++) {
        if (!plots[p].data)
            continue;
        fprintf(f, "<h2>%s</h2>\n", plots[p].title);
        char svg[80];
        snprintf(svg, sizeof svg, "%s.svg", plots[p].name);
        if (plots[p].ok) {
            /* inline, so the page is one file (the .svg beside it is the same picture) */
            fputs("<figure><img src=\"", f);
            if (!dra_report_data_uri_svg(f, pg->dir, svg))
                fputs(svg, f);
            fprintf(f, "\" alt=\"%s\"><figcaption>%s</figcaption></figure>\n", plots[p].title,
                    plots[p].caption);
        } else
            fprintf(f, "<p class=note>Plot not drawn%s; data in <code>%s*.dat</code>, script "
                       "<code>%s.gp</code>.</p>\n",
                    info->gnuplot_found ? " (gnuplot failed, see gnuplot.log)" : "", plots[p].name,
                    plots[p].name);
    }
    fputs("<p class=note>This page is self-contained (its plots are inline). Files beside it: "
          "report.md, *.dat (gnuplot data), *.gp (gnuplot scripts), *.svg (the plots), "
          "latency-N.hgrm (HdrHistogram percentile distributions).</p>\n"
          "</main></body></html>\n",
          f);
}

/* report.md: the same sections; DRA_EIO when the comparison could not be written. */
static int write_md(FILE *f, const page_t *pg)
{
    const dra_rload_result_t *r = pg->r;
    size_t n = pg->n, nbase = pg->nbase;
    const char *title = pg->title;
    long long viol = pg->viol;
    const plot_t *plots = pg->plots;
    const dra_report_info_t *info = pg->info;
    const dra_compare_report_t *cmp = pg->cmp;
    int rc = DRA_OK;
    fputs("# ", f);
    md_esc(f, title);
    fprintf(f, "\n\n%zu result file(s); medians over repetitions with 95%% confidence "
               "intervals of the median.\n\n",
            n);
    if (viol)
        fprintf(f, "**%lld invariant violation(s) recorded.**\n\n", viol);
    if (!info->gnuplot_found)
        fputs("> gnuplot was not found: tables only (install gnuplot-nox).\n\n", f);
    fputs("## Runs\n\n| run | file | scenario | seed | reps | commit | host | date |\n"
          "| --- | --- | --- | --- | ---: | --- | --- | --- |\n",
          f);
    for (size_t i = 0; i < n; i++) {
        const char *cells[] = {r[i].path, r[i].scenario, *r[i].seed ? r[i].seed : "-", NULL,
                               *r[i].tool_git ? r[i].tool_git : "-", r[i].hostname,
                               r[i].date};
        fprintf(f, "| #%zu |", i + 1);
        for (size_t c = 0; c < DRA_ARRAY_LEN(cells); c++) {
            fputc(' ', f);
            if (c == 0)
                dra_esc_md_code(f, cells[c]);
            else if (cells[c])
                md_esc(f, cells[c]);
            else
                fprintf(f, "%zu", r[i].nreps);
            fputs(" |", f);
        }
        fputc('\n', f);
    }
    fputs("\n## Key metrics\n\n", f);
    write_metrics_table(f, r, n, true);
    if (cmp) {
        if (nbase == 1)
            fputs("## Run #1 against the others\n\n", f);
        else
            fprintf(f, "## Runs #1-#%zu against the others\n\n", nbase);
        if (dra_compare_write_md(cmp, f) != DRA_OK)
            rc = DRA_EIO;
    }
    for (size_t p = 0; p < (size_t)REPORT_NPLOTS; p++)
        if (plots[p].ok)
            fprintf(f, "## %s\n\n![%s](%s.svg)\n\n%s\n\n", plots[p].title, plots[p].title,
                    plots[p].name, plots[p].caption);
    return rc;
}

/* Write the data and scripts of every plot, then draw those with data when gnuplot runs. */
static int write_plots(dra_report_out_t *o, const dra_rload_result_t *r, size_t n,
                       const char *gnuplot, plot_t *plots, dra_report_info_t *info)
{
    int rc = plot_latency(o, r, n, &plots[0].data);
    if (rc == DRA_OK)
        rc = plot_hist(o, r, n, &plots[1].data);
    if (rc == DRA_OK)
        rc = plot_throughput(o, r, n, &plots[2].data);
    if (rc == DRA_OK)
        rc = plot_frag(o, r, n, &plots[3].data);
    if (rc == DRA_OK)
        rc = plot_domains(o, r, n, &plots[4].data);
    if (rc != DRA_OK)
        return rc;
    info->gnuplot_found = *gnuplot && dra_report_gnuplot_found(gnuplot);
    for (size_t p = 0; p < REPORT_NPLOTS; p++) {
        if (!plots[p].data || !info->gnuplot_found)
            continue;
        plots[p].ok = dra_report_gnuplot_run(gnuplot, o->dir, plots[p].name);
        if (plots[p].ok)
            info->plots_written++;
        else
            info->plots_failed++;
    }
    return DRA_OK;
}

/* The first nbase runs against the others, when they share scenarios: true with *cmp filled
 * (the caller releases it), false with nothing to release. */
static bool compare_runs(const dra_rload_result_t *r, size_t n, size_t nbase,
                         const dra_report_opts_t *opts, dra_compare_report_t *cmp)
{
    if (n <= nbase)
        return false;
    dra_compare_opts_t co;
    dra_compare_opts_init(&co);
    co.allow_digest_change = false;
    if (opts && opts->has_threshold)
        co.threshold = opts->threshold;
    if (opts)
        co.gate = opts->gate;
    bool have = dra_compare_run(r, nbase, r + nbase, n - nbase, &co, cmp) == DRA_OK &&
                cmp->nrows > 0;
    if (!have)
        dra_compare_fini(cmp);
    return have;
}

int dra_report_write(const dra_rload_result_t *r, size_t n, const char *dir,
                     const dra_report_opts_t *opts, dra_report_info_t *info, dra_diag_t *diag)
{
    dra_report_info_t dummy;
    if (!info)
        info = &dummy;
    memset(info, 0, sizeof *info);
    if (n == 0)
        return dra_diag_set(diag, DRA_EINVAL, NULL, 0, 0, "no result files");
    dra_report_out_t o = {.dir = dir, .diag = diag, .rc = DRA_OK};
    if (dra_report_out_begin(&o) != DRA_OK)
        return o.rc;
    const char *title = opts && opts->title ? opts->title : "drabench report";
    const char *gnuplot = opts && opts->gnuplot ? opts->gnuplot : getenv("GNUPLOT");
    if (!gnuplot)
        gnuplot = "gnuplot";

    plot_t plots[REPORT_NPLOTS] = {
        {"latency", "Latency percentile spectrum",
         "Scheduling latency of the placed pods (all shapes, pooled over repetitions; rejected "
         "pods are apart, rejection.* in the tables) against percentile on HdrHistogram's "
         "1/(1-p) axis: the right edge is the tail. Data: latency-N.dat; the .hgrm files load "
         "into HdrHistogram's plotter.",
         false, false},
        {"hist", "Latency distribution",
         "Fraction of pods per latency bin, one outline per run, so shifts and new modes stand "
         "out.",
         false, false},
        {"throughput", "Throughput",
         "Median over the repetitions of each run of the allocated claims per second of the "
         "time spent on them; error bars are the 95% confidence interval of the median "
         "(infinite below 6 repetitions, then drawn at the median); a log axis when the runs "
         "are a decade or more apart.",
         false, false},
        {"frag", "Fragmentation over time",
         "GPUs that are idle but cannot take a whole-GPU claim, partially used NVLink domains "
         "(left axis) and the stranded MIG fraction (right axis), as sampled during the first "
         "repetition.",
         false, false},
        {"domains", "Topology domains over time",
         "Runs with PodGroups: for each topology key, the domains (values of the key) whose GPUs "
         "are all allocated, partly allocated or all free (left axis, steps) and the free GPUs "
         "stranded in partly used domains (right axis), as sampled during the first repetition "
         "(results/README.md, groups.domains).",
         false, false},
    };
    int rc = write_plots(&o, r, n, gnuplot, plots, info);
    if (rc != DRA_OK) {
        dra_report_out_abort(&o);
        return rc;
    }
    dra_compare_report_t cmp;
    size_t nbase = opts && opts->nbase ? opts->nbase : 1;
    bool have_cmp = compare_runs(r, n, nbase, opts, &cmp);
    page_t pg = {.r = r,
                 .n = n,
                 .title = title,
                 .plots = plots,
                 .info = info,
                 .cmp = have_cmp ? &cmp : NULL,
                 .nbase = nbase,
                 .dir = dir};
    for (size_t i = 0; i < n; i++)
        pg.viol += r[i].inv_violations;

    FILE *f = dra_report_out_open(&o, "index.html");
    if (f) {
        write_html(f, &pg);
        dra_report_out_close(&o, f, "index.html");
        f = dra_report_out_open(&o, "report.md");
    }
    if (f) {
        if (write_md(f, &pg) != DRA_OK && o.rc == DRA_OK)
            o.rc = DRA_EIO;
        dra_report_out_close(&o, f, "report.md");
    }
    if (have_cmp)
        dra_compare_fini(&cmp);
    dra_report_out_abort(&o);
    return o.rc;
}
