/* cmd_compare.c - `drabench compare BASE... -- NEW...`: benchstat-style A/B tables and the gate. */
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
    "Exit status: 0 no gated regression, 1 a significant regression beyond its threshold,\n"
    "2 usage error or an invalid result or gate file, 3 an invariant violation or a changed\n"
    "decision digest (same inputs, different allocations; exit 0/1 with --allow-digest-change),\n"
    "4 environment error.\n";

static int load_side(char **paths, size_t n, dra_rload_result_t *out)
{
    for (size_t i = 0; i < n; i++) {
        dra_diag_t d;
        dra_diag_clear(&d);
        int rc = dra_rload_file(paths[i], &out[i], &d);
        if (rc != DRA_OK) {
            char buf[DRA_DIAG_MSG_MAX + 256];
            if (!d.file)
                d.file = paths[i];
            fprintf(stderr, "drabench compare: %s\n", dra_diag_format(&d, buf, sizeof buf));
            for (size_t j = 0; j < i; j++)
                dra_rload_fini(&out[j]);
            return rc == DRA_ENOMEM ? DRA_EXIT_ENV : DRA_EXIT_USAGE;
        }
    }
    return DRA_EXIT_OK;
}

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

/* Value of an option: "--name=value" or the next argument. */
static const char *optval(int argc, char **argv, int *i, const char *arg, const char *name)
{
    const char *eq = strchr(arg, '=');
    if (eq && strncmp(arg, "--", 2) == 0)
        return eq + 1;
    if (*i + 1 >= argc) {
        dra_cli_usage_error("compare", "option %s needs a value", name);
        return NULL;
    }
    return argv[++*i];
}

static bool is_opt(const char *arg, const char *shrt, const char *lng)
{
    size_t n = strlen(lng);
    return (shrt && strcmp(arg, shrt) == 0) ||
           (strncmp(arg, lng, n) == 0 && (arg[n] == '\0' || arg[n] == '='));
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
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i], *v;
        if (strcmp(a, "--") == 0 && !split) {
            split = true;
        } else if (is_opt(a, "-h", "--help")) {
            fputs(help, stdout);
            status = DRA_EXIT_OK;
            goto out;
        } else if (is_opt(a, "-t", "--threshold")) {
            if (!(v = optval(argc, argv, &i, a, "--threshold")))
                goto out;
            if (!dra_compare_parse_threshold(v, &opts.threshold)) {
                dra_cli_usage_error("compare", "bad --threshold '%s' (want e.g. 5%%, 0%% or off)", v);
                goto out;
            }
        } else if (is_opt(a, "-g", "--gate")) {
            if (!(gate_path = optval(argc, argv, &i, a, "--gate")))
                goto out;
        } else if (is_opt(a, "-a", "--alpha")) {
            if (!(v = optval(argc, argv, &i, a, "--alpha")))
                goto out;
            if (!dra_cli_parse_double(v, &opts.alpha) || !(opts.alpha > 0 && opts.alpha < 1)) {
                dra_cli_usage_error("compare", "bad --alpha '%s' (want a number in (0, 1))", v);
                goto out;
            }
        } else if (is_opt(a, "-f", "--format")) {
            if (!(format = optval(argc, argv, &i, a, "--format")))
                goto out;
            if (strcmp(format, "markdown") == 0)
                format = "md";
            if (strcmp(format, "terminal") == 0)
                format = "text";
            if (strcmp(format, "text") != 0 && strcmp(format, "md") != 0 &&
                strcmp(format, "json") != 0) {
                dra_cli_usage_error("compare", "unknown --format '%s' (text, md, json)", format);
                goto out;
            }
        } else if (is_opt(a, "-o", "--output")) {
            if (!(output = optval(argc, argv, &i, a, "--output")))
                goto out;
        } else if (is_opt(a, NULL, "--allow-digest-change")) {
            opts.allow_digest_change = true;
        } else if (is_opt(a, "-q", "--quiet")) {
            quiet = true;
        } else if (a[0] == '-' && a[1] != '\0') {
            dra_cli_usage_error("compare", "unknown option '%s'", a);
            goto out;
        } else if (split) {
            right[nr++] = argv[i];
        } else {
            left[nl++] = argv[i];
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

    dra_gate_t gate;
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

    dra_rload_result_t *base = calloc(nl, sizeof *base), *cur = calloc(nr, sizeof *cur);
    if (!base || !cur) {
        free(base);
        free(cur);
        dra_compare_gate_fini(&gate);
        status = DRA_EXIT_ENV;
        goto out;
    }
    status = load_side(left, nl, base);
    if (status == DRA_EXIT_OK) {
        status = load_side(right, nr, cur);
        if (status != DRA_EXIT_OK)
            for (size_t i = 0; i < nl; i++)
                dra_rload_fini(&base[i]);
    }
    if (status == DRA_EXIT_OK) {
        dra_compare_report_t rep;
        int rc = dra_compare_run(base, nl, cur, nr, &opts, &rep);
        if (rc != DRA_OK) {
            dra_cli_errorf("compare: %s", dra_strerror(rc));
            status = DRA_EXIT_ENV;
        } else {
            dra_out_t out;
            dra_diag_t d;
            dra_diag_clear(&d);
            rc = dra_out_open(&out, output, &d);
            if (rc == DRA_OK) {
                FILE *f = out.f;
                int wrc;
                if (strcmp(format, "json") == 0)
                    wrc = dra_compare_write_json(&rep, f);
                else if (strcmp(format, "md") == 0)
                    wrc = dra_compare_write_md(&rep, f);
                else
                    wrc = write_text_safe(&rep, f);
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
                status = rep.exit_status;
                if (!quiet && rep.exit_status != DRA_EXIT_OK &&
                    (strcmp(format, "text") != 0 || strcmp(output, "-") != 0))
                    dra_compare_write_gate_lines(&rep, stderr);
            }
            dra_compare_fini(&rep);
        }
        for (size_t i = 0; i < nl; i++)
            dra_rload_fini(&base[i]);
        for (size_t i = 0; i < nr; i++)
            dra_rload_fini(&cur[i]);
    }
    free(base);
    free(cur);
    dra_compare_gate_fini(&gate);
out:
    free(left);
    free(right);
    return status;
}
