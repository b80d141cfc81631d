/* cmd_report.c - `drabench report RESULT... -o DIR`: HTML + Markdown report with gnuplot plots. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "report.h"
#include "rload.h"
#include "report_replay.h"

static const char help[] =
    "drabench report - write an HTML and Markdown report with plots from result files\n"
    "\n"
    "Usage: drabench report [options] -o DIR RESULT...\n"
    "\n"
    "Writes DIR/index.html (self-contained: inline CSS, local SVG images, nothing fetched from\n"
    "the network) and DIR/report.md: the runs with their build, host and seed, key metrics as\n"
    "medians with 95% confidence intervals, the base runs (--base) compared with the others, and\n"
    "gnuplot plots - latency percentile spectrum on HdrHistogram's 1/(1-p) axis, latency\n"
    "histogram overlays, throughput with confidence intervals, fragmentation over time. The .dat\n"
    "data, .gp scripts and .hgrm percentile files stay in DIR. Without gnuplot: tables only.\n"
    "Trace-replay results (drabench replay --result, schema drabench-replay/v1) get their own\n"
    "report: GPU allocation ratio, fragmentation amount and fragmentation ratio against arrived\n"
    "GPU demand, one curve per policy / device choice / mode of every file, in one plot each.\n"
    "\n"
    "Options:\n"
    "  -o, --output DIR     output directory (required; created if missing)\n"
    "  -t, --title TEXT     page title (default: drabench report)\n"
    "  -b, --base N         the first N files are the base of the comparison section (default: 1)\n"
    "      --gnuplot PATH   gnuplot executable (default: $GNUPLOT, else gnuplot)\n"
    "      --no-plots       write data and scripts but do not run gnuplot\n"
    "  -h, --help           show this help\n"
    "\n"
    "Examples:\n"
    "  drabench report -o results/report results/runs/*.json\n"
    "  drabench report -t 'v0.2 vs v0.1' -o /tmp/rep base.json new.json && xdg-open "
    "/tmp/rep/index.html\n"
    "\n"
    "Exit status: 0 ok (also when gnuplot is missing: the page says so), 2 usage error or invalid\n"
    "result file, 4 cannot write DIR.\n";

static bool is_opt(const char *arg, const char *shrt, const char *lng)
{
    size_t n = strlen(lng);
    return (shrt && strcmp(arg, shrt) == 0) ||
           (strncmp(arg, lng, n) == 0 && (arg[n] == '\0' || arg[n] == '='));
}

static int report_replay(char **files, size_t nf, const char *dir, const dra_report_opts_t *opts)
{
    dra_diag_t d;
    dra_diag_clear(&d);
    int plots = 0;
    int rc = dra_report_replay(files, nf, dir, opts->title, opts->gnuplot, &plots, &d);
    if (rc != DRA_OK) {
        char buf[DRA_DIAG_MSG_MAX + 256];
        fprintf(stderr, "drabench report: %s\n", dra_diag_format(&d, buf, sizeof buf));
        return rc == DRA_EPARSE ? DRA_EXIT_USAGE : DRA_EXIT_ENV;
    }
    fprintf(stderr, "drabench report: wrote %s/index.html and %s/report.md with %d plot(s)\n", dir,
            dir, plots);
    printf("%s/index.html\n", dir);
    return DRA_EXIT_OK;
}

int dra_cmd_report(int argc, char **argv)
{
    const char *dir = NULL, *base = NULL;
    dra_report_opts_t opts = {0};
    char **files = calloc((size_t)argc + 1, sizeof *files);
    size_t nf = 0;
    int status = DRA_EXIT_USAGE;
    if (!files)
        return DRA_EXIT_ENV;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        const char **dst = NULL;
        if (is_opt(a, "-h", "--help")) {
            fputs(help, stdout);
            free(files);
            return DRA_EXIT_OK;
        } else if (is_opt(a, NULL, "--no-plots")) {
            opts.gnuplot = "";
            continue;
        } else if (is_opt(a, "-o", "--output")) {
            dst = &dir;
        } else if (is_opt(a, "-t", "--title")) {
            dst = &opts.title;
        } else if (is_opt(a, "-b", "--base")) {
            dst = &base;
        } else if (is_opt(a, NULL, "--gnuplot")) {
            dst = &opts.gnuplot;
        } else if (strcmp(a, "--") == 0) {
            for (i++; i < argc; i++)
                files[nf++] = argv[i];
            break;
        } else if (a[0] == '-' && a[1]) {
            dra_cli_usage_error("report", "unknown option '%s'", a);
            goto out;
        } else {
            files[nf++] = argv[i];
            continue;
        }
        const char *eq = strncmp(a, "--", 2) == 0 ? strchr(a, '=') : NULL;
        if (eq) {
            *dst = eq + 1;
        } else if (i + 1 < argc) {
            *dst = argv[++i];
        } else {
            dra_cli_usage_error("report", "option %s needs a value", a);
            goto out;
        }
    }
    if (!dir) {
        dra_cli_usage_error("report", "-o DIR is required");
        goto out;
    }
    if (base) {
        unsigned long long nb;
        if (!dra_cli_parse_u64(base, &nb) || nb < 1 || nb >= (unsigned long long)nf) {
            dra_cli_usage_error("report", "--base: expected 1..%zu (files before the new ones), "
                                          "got '%s'", nf ? nf - 1 : 0, base);
            goto out;
        }
        opts.nbase = (size_t)nb;
    }
    if (nf == 0) {
        dra_cli_usage_error("report", "no result files");
        goto out;
    }
    if (dra_report_is_replay(files[0])) { /* trace-replay results: report_replay.c */
        status = report_replay(files, nf, dir, &opts);
        goto out;
    }
    dra_rload_result_t *r = calloc(nf, sizeof *r);
    if (!r) {
        status = DRA_EXIT_ENV;
        goto out;
    }
    size_t loaded = 0;
    status = DRA_EXIT_OK;
    for (; loaded < nf; loaded++) {
        dra_diag_t d;
        dra_diag_clear(&d);
        int rc = dra_rload_file(files[loaded], &r[loaded], &d);
        if (rc != DRA_OK) {
            char buf[DRA_DIAG_MSG_MAX + 256];
            if (!d.file)
                d.file = files[loaded];
            fprintf(stderr, "drabench report: %s\n", dra_diag_format(&d, buf, sizeof buf));
            status = rc == DRA_ENOMEM ? DRA_EXIT_ENV : DRA_EXIT_USAGE;
            break;
        }
    }
    if (status == DRA_EXIT_OK) {
        dra_report_info_t info;
        dra_diag_t d;
        dra_diag_clear(&d);
        int rc = dra_report_write(r, nf, dir, &opts, &info, &d);
        if (rc != DRA_OK) {
            char buf[DRA_DIAG_MSG_MAX + 256];
            fprintf(stderr, "drabench report: %s\n",
                    d.code ? dra_diag_format(&d, buf, sizeof buf) : dra_strerror(rc));
            status = DRA_EXIT_ENV;
        } else {
            fprintf(stderr, "drabench report: wrote %s/index.html and %s/report.md", dir, dir);
            if (opts.gnuplot && !*opts.gnuplot)
                fprintf(stderr, " (plots not drawn: --no-plots)\n");
            else if (!info.gnuplot_found)
                fprintf(stderr, " without plots: gnuplot not found (install gnuplot-nox)\n");
            else
                fprintf(stderr, " with %d plot(s)%s\n", info.plots_written,
                        info.plots_failed ? "; some plots failed, see gnuplot.log" : "");
            printf("%s/index.html\n", dir);
        }
    }
    for (size_t i = 0; i < loaded; i++)
        dra_rload_fini(&r[i]);
    free(r);
out:
    free(files);
    return status;
}
