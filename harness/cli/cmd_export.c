/* cmd_export.c - `drabench export --format perfdash|benchfmt|csv RESULT...`: arguments, loading
 * and writing the output; the formats are analyze/export.c's. */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "cli.h"
#include "export.h"
#include "rload.h"

/* ---- the command ------------------------------------------------------------------------------ */

static const char help[] =
    "drabench export - write result files in formats other tools read\n"
    "\n"
    "Usage: drabench export --format perfdash [-o DIR] RESULT...\n"
    "       drabench export --format benchfmt [--label] [-o FILE] RESULT...\n"
    "       drabench export --format csv [-o FILE] RESULT...\n"
    "\n"
    "perfdash: Kubernetes scheduler_perf DataItems JSON "
    "({\"version\":\"v1\",\"dataItems\":[...]})\n"
    "written to DIR/BenchmarkDRAAlloc_<UTC start of the first run>.json, the file name perfdash's\n"
    "local-directory mode looks for (prefix BenchmarkDRAAlloc). Metrics AllocationLatency (ms,\n"
    "per shape and phase), AllocationThroughput (claims/s), SchedulingThroughput (pods/s),\n"
    "CandidatesScanned, CELEvaluations, AllocateOneCalls and ArenaHighWater (MB); every item has\n"
    "the labels Metric, Name (BenchmarkDRAAlloc/<scenario>/<policy>-<release>), shape, phase,\n"
    "release and policy (\"not applicable\" when unused). Results with the same Name are pooled.\n"
    "perfdash's limits: it shows only the jobs and tests its configuration names (a build of\n"
    "kubernetes/perf-tests perfdash whose test descriptions include the output-file prefix\n"
    "BenchmarkDRAAlloc; a stock perfdash does not look for it), reads GCS or S3 buckets or a\n"
    "local directory laid out DIR/<job>/<build number>/, and plots one point per build and\n"
    "label set - Perc50, Perc90, Perc95, Perc99 and Average over the pooled repetitions -\n"
    "with no confidence interval, no samples and no test: a trend to look at, not a verdict\n"
    "(drabench ab or compare give those). Keep scenario, policy and release stable: the\n"
    "labels are the series.\n"
    "benchfmt: Go benchmark text for benchstat (golang.org/x/perf/benchfmt) - configuration\n"
    "lines that describe what was measured and where (cpu, kernel, build, simd, release, policy,\n"
    "seed, scenario-hash, allocator), Unit lines (better=, assume=exact) and one line per\n"
    "repetition: name, claims as iterations, ns/op = timed allocator work per claim (1e9 /\n"
    "throughput.claims_per_s: allocated claims) and every metric. Per-run keys (commit, host,\n"
    "date, digest) are left out so benchstat compares two exports as they are; --label adds\n"
    "them, so several runs can go in one file and benchstat splits by them: `benchstat -col\n"
    "commit -ignore date all.txt` puts each commit in a column (add `,digest` to -ignore when\n"
    "decisions changed between the commits, `,host` only for one host's runs).\n"
    "csv: one row per file, repetition and metric (RFC 4180, CRLF), for spreadsheets.\n"
    "\n"
    "Options:\n"
    "  -f, --format FMT     perfdash, benchfmt or csv (required)\n"
    "  -o, --output PATH    perfdash: directory (default: .); benchfmt, csv: file (default:\n"
    "                       stdout)\n"
    "      --label          benchfmt: also commit, host, date and digest as configuration\n"
    "  -h, --help           show this help\n"
    "\n"
    "Examples:\n"
    "  drabench export --format perfdash -o results/drabench/42 results/runs/*.json\n"
    "  drabench export --format benchfmt old.json > old.txt; benchstat old.txt new.txt\n"
    "  drabench export --format benchfmt --label a1.json a2.json b1.json > all.txt\n"
    "  benchstat -col commit -ignore date all.txt\n"
    "  drabench export --format csv -o runs.csv results/runs/*.json\n"
    "\n"
    "Exit status: 0 ok, 2 usage error or invalid result file, 4 cannot write.\n";

static const struct option lopts[] = {
    {"format", required_argument, NULL, 'f'},
    {"output", required_argument, NULL, 'o'},
    {"label", no_argument, NULL, 'L'},
    {"help", no_argument, NULL, 'h'},
    {NULL, 0, NULL, 0},
};

struct export_args {
    const char *format, *output;
    bool label;
};

static int export_opt(int c, const char *v, void *ctx)
{
    struct export_args *x = ctx;
    if (c == 'L')
        x->label = true;
    else if (c == 'f')
        x->format = v;
    else if (c == 'o')
        x->output = v;
    return DRA_EXIT_OK;
}

int dra_cmd_export(int argc, char **argv)
{
    struct export_args x = {0};
    dra_cli_args_t args;
    int status = dra_cli_parse_args("export", argc, argv, "f:o:h", lopts, help, true, export_opt,
                                    &x, &args);
    const char *format = x.format, *output = x.output;
    bool label = x.label;
    char **files = args.operands;
    size_t nf = args.n;
    if (status != DRA_EXIT_OK || args.help)
        goto out;
    status = DRA_EXIT_USAGE;
    if (!format) {
        dra_cli_usage_error("export", "--format perfdash|benchfmt|csv is required");
        goto out;
    }
    dra_export_format_t fmt = dra_export_format_parse(format);
    if (fmt == DRA_EXPORT_NONE) {
        dra_cli_usage_error("export", "unknown --format '%s' (perfdash, benchfmt, csv)", format);
        goto out;
    }
    if (nf == 0) {
        dra_cli_usage_error("export", "no result files");
        goto out;
    }
    dra_rload_result_t *r = calloc(nf, sizeof *r);
    if (!r) {
        status = DRA_EXIT_ENV;
        goto out;
    }
    status = dra_cli_load_results("export", files, nf, r);
    size_t loaded = status == DRA_EXIT_OK ? nf : 0;
    if (status == DRA_EXIT_OK) {
        char *buf = NULL;
        size_t len = 0;
        FILE *mf = open_memstream(&buf, &len);
        int rc = mf ? DRA_OK : DRA_ENOMEM;
        if (rc == DRA_OK) {
            rc = dra_export_write(fmt, r, nf, label, mf);
            if (fclose(mf) != 0 && rc == DRA_OK)
                rc = DRA_EIO;
        }
        char path[4096];
        dra_diag_t d;
        dra_diag_clear(&d);
        if (rc == DRA_OK && fmt == DRA_EXPORT_PERFDASH) {
            const char *dir = output ? output : ".";
            char fname[128];
            dra_export_perfdash_name(&r[0], fname, sizeof fname);
            mkdir(dir, 0755);
            snprintf(path, sizeof path, "%s/%s", dir, fname);
            rc = dra_io_write_file_atomic(path, buf, len, &d);
            if (rc == DRA_OK)
                dra_cli_print_path(path);
        } else if (rc == DRA_OK) {
            snprintf(path, sizeof path, "%s", output ? output : "-");
            rc = dra_io_write_file_atomic(path, buf, len, &d);
        }
        if (rc != DRA_OK) {
            char m[DRA_DIAG_MSG_MAX + 256];
            fprintf(stderr, "drabench export: %s\n",
                    d.code ? dra_diag_format(&d, m, sizeof m) : dra_strerror(rc));
            status = DRA_EXIT_ENV;
        }
        free(buf);
    }
    for (size_t i = 0; i < loaded; i++)
        dra_rload_fini(&r[i]);
    free(r);
out:
    dra_cli_args_fini(&args);
    return status;
}
