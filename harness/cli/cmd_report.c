/* cmd_report.c - `drabench report RESULT... -o DIR`: HTML + Markdown report with gnuplot plots. */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "compare.h"
#include "report.h"
#include "rload.h"
#include "report_replay.h"

static const char help[] =
    "drabench report - write an HTML and Markdown report with plots from result files\n"
    "\n"
    "Usage: drabench report [options] -o DIR RESULT...\n"
    "\n"
    "Writes DIR/index.html (self-contained: inline CSS and the plots inline as SVG data, one\n"
    "file to mail or attach, nothing fetched from the network) and DIR/report.md (which links\n"
    "the .svg files beside it): the runs with their build, host and seed, key metrics as\n"
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
    "  -g, --gate FILE      thresholds of the comparison section from a gate file (the same\n"
    "                       file and rules as drabench compare --gate)\n"
    "      --threshold PCT  one threshold for every metric (as drabench compare; default 5%)\n"
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

static const struct option lopts[] = {
    {"output", required_argument, NULL, 'o'},
    {"title", required_argument, NULL, 't'},
    {"base", required_argument, NULL, 'b'},
    {"gnuplot", required_argument, NULL, 'G'},
    {"no-plots", no_argument, NULL, 'P'},
    {"gate", required_argument, NULL, 'g'},
    {"threshold", required_argument, NULL, 'T'},
    {"help", no_argument, NULL, 'h'},
    {NULL, 0, NULL, 0},
};

/* DIR/index.html on stdout (what a script opens next). */
static void print_index(const char *dir)
{
    char path[4200];
    snprintf(path, sizeof path, "%s/index.html", dir);
    dra_cli_print_path(path);
}

static int report_replay(const dra_io_input_t *in, size_t nf, const char *dir,
                         const dra_report_opts_t *opts)
{
    dra_diag_t d;
    dra_diag_clear(&d);
    int plots = 0;
    int rc = dra_report_replay(in, nf, dir, opts->title, opts->gnuplot, &plots, &d);
    if (rc != DRA_OK) {
        char buf[DRA_DIAG_MSG_MAX + 256];
        fprintf(stderr, "drabench report: %s\n", dra_diag_format(&d, buf, sizeof buf));
        return rc == DRA_EPARSE ? DRA_EXIT_USAGE : DRA_EXIT_ENV;
    }
    dra_cli_notef(stderr, "drabench report: wrote %s/index.html and %s/report.md with %d plot(s)",
                  dir, dir, plots);
    print_index(dir);
    return DRA_EXIT_OK;
}

struct report_args {
    const char *dir, *base, *gate_path, *threshold;
    dra_report_opts_t *opts;
};

static int report_opt(int c, const char *v, void *ctx)
{
    struct report_args *x = ctx;
    switch (c) {
    case 'P':
        x->opts->gnuplot = "";
        break;
    case 'o':
        x->dir = v;
        break;
    case 't':
        x->opts->title = v;
        break;
    case 'b':
        x->base = v;
        break;
    case 'G':
        x->opts->gnuplot = v;
        break;
    case 'g':
        x->gate_path = v;
        break;
    case 'T':
        x->threshold = v;
        break;
    }
    return DRA_EXIT_OK;
}

int dra_cmd_report(int argc, char **argv)
{
    dra_report_opts_t opts = {0};
    dra_compare_gate_t gate;
    memset(&gate, 0, sizeof gate);
    struct report_args x = {.opts = &opts};
    dra_cli_args_t args;
    dra_io_input_t *in = NULL;
    int status = dra_cli_parse_args("report", argc, argv, "o:t:b:g:h", lopts, help, true,
                                    report_opt, &x, &args);
    const char *dir = x.dir, *base = x.base, *gate_path = x.gate_path, *threshold = x.threshold;
    char **files = args.operands;
    size_t nf = args.n;
    if (status != DRA_EXIT_OK || args.help)
        goto out;
    status = DRA_EXIT_USAGE;
    if (!dir) {
        dra_cli_usage_error("report", "-o DIR is required");
        goto out;
    }
    if (threshold) {
        if (!dra_compare_parse_threshold(threshold, &opts.threshold)) {
            dra_cli_usage_error("report", "bad --threshold '%s' (want e.g. 5%%, 0%% or off)",
                                threshold);
            goto out;
        }
        opts.has_threshold = true;
    }
    if (gate_path) {
        dra_diag_t gd;
        dra_diag_clear(&gd);
        if (dra_compare_gate_load(gate_path, &gate, &gd) != DRA_OK) {
            char buf[DRA_DIAG_MSG_MAX + 256];
            fprintf(stderr, "drabench report: gate file %s\n", dra_diag_format(&gd, buf, sizeof buf));
            goto out;
        }
        opts.gate = &gate;
    }
    if (base) {
        unsigned long long nb;
        if (!dra_io_parse_u64(base, &nb) || nb < 1 || nb >= (unsigned long long)nf) {
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
    /* every input is read once (a FIFO or <(cat r.json) cannot be read twice) and looked at
     * from memory: which kind of result, then its contents */
    if ((status = dra_cli_read_inputs("report", files, nf, &in)) != DRA_EXIT_OK)
        goto out;
    if (dra_report_is_replay(in[0].buf, in[0].len)) { /* trace-replay results: report_replay.c */
        const char *opt = gate_path ? "--gate" : base ? "--base" : threshold ? "--threshold" : NULL;
        if (opt)
            status = dra_cli_usage_error("report", "%s applies to the comparison of benchmark "
                                                   "results; a trace-replay report (%s) has none",
                                         opt, files[0]);
        else
            status = report_replay(in, nf, dir, &opts);
        goto out;
    }
    dra_rload_result_t *r = calloc(nf, sizeof *r);
    if (!r) {
        status = DRA_EXIT_ENV;
        goto out;
    }
    status = dra_cli_load_inputs("report", in, nf, r);
    size_t loaded = status == DRA_EXIT_OK ? nf : 0;
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
            const char *how = opts.gnuplot && !*opts.gnuplot ? " (plots not drawn: --no-plots)"
                              : !info.gnuplot_found
                                  ? " without plots: gnuplot not found (install gnuplot-nox)"
                                  : NULL;
            if (how)
                dra_cli_notef(stderr, "drabench report: wrote %s/index.html and %s/report.md%s",
                              dir, dir, how);
            else
                dra_cli_notef(stderr, "drabench report: wrote %s/index.html and %s/report.md "
                                      "with %d plot(s)%s",
                              dir, dir, info.plots_written,
                              info.plots_failed ? "; some plots failed, see gnuplot.log" : "");
            print_index(dir);
        }
    }
    for (size_t i = 0; i < loaded; i++)
        dra_rload_fini(&r[i]);
    free(r);
out:
    dra_io_inputs_free(in, in ? nf : 0);
    dra_compare_gate_fini(&gate);
    dra_cli_args_fini(&args);
    return status;
}
