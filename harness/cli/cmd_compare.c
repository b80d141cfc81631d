/* cmd_compare.c - `drabench compare BASE... -- NEW...`: benchstat-style A/B tables and the gate. */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "compare.h"
#include "escape.h"
#include "rload.h"

static const char help[] =
    "drabench compare - compare result files and gate on regressions\n"
    "\n"
    "Usage: drabench compare [options] BASE... -- NEW...\n"
    "       drabench compare [options] BASE NEW\n"
    "\n"
    "Pools the repetitions of the result files of each side (drabench-result/v1) per scenario\n"
    "and prints, per metric and scenario, the median with its 95% confidence interval, the\n"
    "change in percent and the Mann-Whitney U test (`~` when not significant at alpha), plus a\n"
    "geometric-mean row: benchstat's tables, with a gate. A change fails the gate when it is\n"
    "significant, in the metric's bad direction and beyond its threshold. Decision digests that\n"
    "differ for equal inputs (scenario hash, seed, profile) and invariant violations are\n"
    "correctness failures.\n"
    "\n"
    "Options:\n"
    "  -t, --threshold PCT      allowed change of every gated metric (default: 5%; off = none)\n"
    "  -g, --gate FILE          per-metric thresholds from a YAML/JSON gate file (see below)\n"
    "  -a, --alpha A            significance level of the U test (default: 0.05)\n"
    "  -f, --format FMT         text (default, benchstat-like), md (Markdown) or json\n"
    "  -o, --output FILE        write the report to FILE (default: stdout)\n"
    "      --allow-digest-change  report changed decision digests without failing (exit 0/1)\n"
    "      --across DIMS        compare runs whose inputs differ on purpose: release, policy,\n"
    "                           seed, count, allocator (comma-separated); decision changes are\n"
    "                           then reported per shape, and PodGroup outcomes per group\n"
    "                           entry, as information, not failures\n"
    "      --exact-only         compare only exact metrics, digests and invariants (timings\n"
    "                           of another host are left out on purpose)\n"
    "  -q, --quiet              no gate lines on stderr\n"
    "  -h, --help               show this help\n"
    "\n"
    "Gate file (first matching pattern wins; thresholds as 5%, 0% or off):\n"
    "  default: 5%\n"
    "  alpha: 0.05\n"
    "  metrics:\n"
    "    throughput.claims_per_s: 5%\n"
    "    \"latency.pod.*\": 10%\n"
    "    search.cel_evaluations: 0%\n"
    "    table.bytes_per_device: {threshold: 1%, better: lower}\n"
    "\n"
    "Examples:\n"
    "  drabench compare results/baseline/1.35/*.json -- results/nightly/2026-11-22/*.json\n"
    "  drabench compare --threshold 3% --format md old.json new.json > compare.md\n"
    "  drabench compare --gate ci/gate.yaml --format json base.json -- new1.json new2.json\n"
    "\n"
    "What is not gated: a latency change below the noise floor (max(100 ns, the timer's\n"
    "resolution, one step of its readings and 1 ns, one histogram bucket)); a percentile of a shape with too few pods per\n"
    "repetition (p50, p90 100, p99 1000, p999 10000; max never). Interrupted runs are left\n"
    "out. Files whose inputs differ (scenario, --count, seed, release, policy, allocator) are\n"
    "not comparable unless --across names the difference.\n"
    "\n"
    "Exit status: 0 no gated regression, 1 a significant regression beyond its threshold or a\n"
    "base scenario missing from the new set, 2 usage error, an invalid result or gate file, or\n"
    "inputs that are not comparable, 3 an invariant violation or a changed decision digest\n"
    "(same inputs, different allocations; exit 0/1 with --allow-digest-change), 4 environment\n"
    "error, 5 inconclusive: nothing worse was found but the gate could not see (fewer than 4\n"
    "repetitions per side, or timings from different hosts or builds).\n";

/* The text table for a terminal: names come from result files (the loader refuses control
 * characters; this is the second layer), so it passes through dra_esc_term_text. */
static int write_text_safe(const dra_compare_report_t *rep, FILE *f)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *m = open_memstream(&buf, &len);
    if (!m)
        return DRA_ENOMEM;
    int rc = dra_compare_write_text(rep, m);
    if (fclose(m) != 0 && rc == DRA_OK)
        rc = DRA_ENOMEM;
    if (rc == DRA_OK)
        dra_esc_term_text(f, buf, len);
    free(buf);
    return rc;
}

static const struct option lopts[] = {
    {"threshold", required_argument, NULL, 't'},
    {"gate", required_argument, NULL, 'g'},
    {"alpha", required_argument, NULL, 'a'},
    {"format", required_argument, NULL, 'f'},
    {"output", required_argument, NULL, 'o'},
    {"allow-digest-change", no_argument, NULL, 'D'},
    {"across", required_argument, NULL, 'A'},
    {"exact-only", no_argument, NULL, 'E'},
    {"quiet", no_argument, NULL, 'q'},
    {"help", no_argument, NULL, 'h'},
    {NULL, 0, NULL, 0},
};

/* Write the report in its format to output (through the output-file layer) and, when the verdict
 * is not OK and the text did not go to stdout, the gate lines to stderr: the exit status. */
static int write_report(const dra_compare_report_t *rep, const char *format, const char *output,
                        bool quiet)
{
    int status;
    int rc;
    dra_out_t out;
    dra_diag_t d;
    dra_diag_clear(&d);
    rc = dra_out_open(&out, output, &d);
    if (rc == DRA_OK) {
        FILE *f = out.f;
        int wrc;
        if (strcmp(format, "json") == 0)
            wrc = dra_compare_write_json(rep, f);
        else if (strcmp(format, "md") == 0)
            wrc = dra_compare_write_md(rep, f);
        else
            wrc = write_text_safe(rep, f);
        /* a write error stays on the stream: commit reports it with the reason */
        rc = dra_out_commit(&out, &d);
        if (rc == DRA_OK && wrc != DRA_OK && wrc != DRA_EIO)
            rc = wrc; /* the writer's own failure (memory) */
    }
    if (rc != DRA_OK) {
        char m[DRA_DIAG_MSG_MAX + 256];
        fprintf(stderr, "drabench compare: %s\n",
                d.code ? dra_diag_format(&d, m, sizeof m) : dra_strerror(rc));
        status = DRA_EXIT_ENV;
    } else {
        status = rep->exit_status;
        if (!quiet && rep->exit_status != DRA_EXIT_OK &&
            (strcmp(format, "text") != 0 || strcmp(output, "-") != 0))
            dra_compare_write_gate_lines(rep, stderr);
    }
    return status;
}

/* Load both sides, compare them and write the report: the exit status. */
static int compare_files(char **left, size_t nl, char **right, size_t nr,
                         const dra_compare_opts_t *opts, const char *format, const char *output,
                         bool quiet)
{
    int status;
    dra_rload_result_t *base = calloc(nl, sizeof *base), *cur = calloc(nr, sizeof *cur);
    if (!base || !cur) {
        free(base);
        free(cur);
        return DRA_EXIT_ENV;
    }
    status = dra_cli_load_results("compare", left, nl, base);
    if (status == DRA_EXIT_OK) {
        status = dra_cli_load_results("compare", right, nr, cur);
        if (status != DRA_EXIT_OK)
            for (size_t i = 0; i < nl; i++)
                dra_rload_fini(&base[i]);
    }
    if (status == DRA_EXIT_OK) {
        dra_compare_report_t rep;
        int rc = dra_compare_run(base, nl, cur, nr, opts, &rep);
        if (rc != DRA_OK) {
            dra_cli_errorf("compare: %s", dra_strerror(rc));
            status = DRA_EXIT_ENV;
        } else if (rep.nerrors) {
            for (size_t i = 0; i < rep.nerrors; i++)
                fprintf(stderr, "drabench compare: %s\n", rep.errors[i]);
            status = rep.exit_status;
            dra_compare_fini(&rep);
        } else {
            status = write_report(&rep, format, output, quiet);
            dra_compare_fini(&rep);
        }
        for (size_t i = 0; i < nl; i++)
            dra_rload_fini(&base[i]);
        for (size_t i = 0; i < nr; i++)
            dra_rload_fini(&cur[i]);
    }
    free(base);
    free(cur);
    return status;
}

int dra_cmd_compare(int argc, char **argv)
{
    dra_compare_opts_t opts;
    dra_compare_opts_init(&opts);
    const char *gate_path = NULL, *format = "text", *output = "-";
    bool quiet = false, split = false;
    char **left = calloc((size_t)argc + 1, sizeof *left);
    char **right = calloc((size_t)argc + 1, sizeof *right);
    size_t nl = 0, nr = 0;
    int status = DRA_EXIT_USAGE;
    if (!left || !right) {
        free(left);
        free(right);
        return DRA_EXIT_ENV;
    }
    optind = 0;
    for (;;) {
        const char *v;
        int c = dra_cli_getopt("compare", argc, argv, "t:g:a:f:o:qh", lopts, &v);
        if (c == -1)
            break;
        switch (c) {
        case DRA_CLI_BAD:
            goto out;
        case DRA_CLI_SPLIT:
            if (split) {
                dra_cli_usage_error("compare", "unknown option '%s'", "--");
                goto out;
            }
            split = true;
            break;
        case DRA_CLI_OPERAND:
            if (split)
                right[nr++] = (char *)v;
            else
                left[nl++] = (char *)v;
            break;
        case 'h':
            fputs(help, stdout);
            status = DRA_EXIT_OK;
            goto out;
        case 't':
            if (!dra_compare_parse_threshold(v, &opts.threshold)) {
                dra_cli_usage_error("compare", "bad --threshold '%s' (want e.g. 5%%, 0%% or off)", v);
                goto out;
            }
            break;
        case 'g':
            gate_path = v;
            break;
        case 'a':
            if (!dra_io_parse_double(v, &opts.alpha) || !(opts.alpha > 0 && opts.alpha < 1)) {
                dra_cli_usage_error("compare", "bad --alpha '%s' (want a number in (0, 1))", v);
                goto out;
            }
            break;
        case 'f':
            format = v;
            if (strcmp(format, "markdown") == 0)
                format = "md";
            if (strcmp(format, "terminal") == 0)
                format = "text";
            if (strcmp(format, "text") != 0 && strcmp(format, "md") != 0 &&
                strcmp(format, "json") != 0) {
                dra_cli_usage_error("compare", "unknown --format '%s' (text, md, json)", format);
                goto out;
            }
            break;
        case 'o':
            output = v;
            break;
        case 'D':
            opts.allow_digest_change = true;
            break;
        case 'A':
            if (!dra_compare_parse_across(v, &opts.across)) {
                dra_cli_usage_error("compare",
                                    "bad --across '%s' (release, policy, seed, count, allocator)", v);
                goto out;
            }
            break;
        case 'E':
            opts.exact_only = true;
            break;
        case 'q':
            quiet = true;
            break;
        }
    }
    if (!split) {
        if (nl != 2) {
            dra_cli_usage_error("compare", nl < 2 ? "need a base and a new result file"
                                                  : "several files: separate BASE... and NEW... "
                                                    "with --");
            goto out;
        }
        right[nr++] = left[--nl];
    }
    if (nl == 0 || nr == 0) {
        dra_cli_usage_error("compare", "need at least one result file on each side of --");
        goto out;
    }

    dra_compare_gate_t gate;
    memset(&gate, 0, sizeof gate);
    if (gate_path) {
        dra_diag_t d;
        dra_diag_clear(&d);
        int rc = dra_compare_gate_load(gate_path, &gate, &d);
        if (rc != DRA_OK) {
            char buf[DRA_DIAG_MSG_MAX + 256];
            fprintf(stderr, "drabench compare: gate file %s\n", dra_diag_format(&d, buf, sizeof buf));
            status = rc == DRA_ENOMEM ? DRA_EXIT_ENV : DRA_EXIT_USAGE;
            goto out;
        }
        opts.gate = &gate;
    }

    status = compare_files(left, nl, right, nr, &opts, format, output, quiet);
    dra_compare_gate_fini(&gate);
out:
    free(left);
    free(right);
    return status;
}
