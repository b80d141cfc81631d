/* cmd_baseline.c - `drabench baseline bless RESULT... [--release NAME]`: arguments, loading and
 * messages; the rules and the writing of a set are analyze/baseline.c's. */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "baseline.h"
#include "cli.h"
#include "escape.h"
#include "rload.h"

static const char help[] =
    "drabench baseline - manage the committed baselines that nightly runs compare against\n"
    "\n"
    "Usage: drabench baseline bless [options] RESULT...\n"
    "\n"
    "Copies the result files (drabench-result/v1) into DIR/<release>/<scenario>.json (compact,\n"
    "absolute paths reduced to file names, see --keep-histograms), replacing\n"
    "the JSON files of an earlier set of that release, writes DIR/<release>/MANIFEST with the\n"
    "build and host facts of every file, and names the release in DIR/CURRENT (the set\n"
    "scripts/nightly compares with). Refuses interrupted runs, runs with invariant violations\n"
    "and runs whose repetitions disagree on the decision digest, unless --force.\n"
    "\n"
    "Options:\n"
    "  -r, --release NAME   name of the set (default: the drabench version of the first file)\n"
    "  -d, --dir DIR        baseline root (default: results/baseline)\n"
    "      --no-current     do not update DIR/CURRENT\n"
    "      --keep-histograms  keep every histogram (default: only the all-shapes pod latency\n"
    "                       histogram per repetition, which keeps baselines small)\n"
    "  -f, --force          bless files that would otherwise be refused\n"
    "  -h, --help           show this help\n"
    "\n"
    "Examples:\n"
    "  drabench baseline bless --release v0.1 results/nightly/2026-11-22/*.json\n"
    "  git add results/baseline && git commit -m 'baseline: v0.1 on the CI host'\n"
    "\n"
    "Exit status: 0 ok, 2 usage error or invalid/refused result file, 3 a file records invariant\n"
    "violations (without --force), 4 cannot write.\n";

static const struct option lopts[] = {
    {"release", required_argument, NULL, 'r'},
    {"dir", required_argument, NULL, 'd'},
    {"force", no_argument, NULL, 'f'},
    {"no-current", no_argument, NULL, 'C'},
    {"keep-histograms", no_argument, NULL, 'K'},
    {"help", no_argument, NULL, 'h'},
    {NULL, 0, NULL, 0},
};

static void print_path(const char *path, void *ctx)
{
    (void)ctx;
    dra_cli_print_path(path);
}

/* Load and check every file (read once, in[0..nf)), then write the set (baseline.h). */
static int bless(const char *root, const char *release, bool current, bool force, bool keep_hists,
                 const dra_io_input_t *files, size_t nf)
{
    dra_rload_result_t *r = calloc(nf, sizeof *r);
    dra_baseline_file_t *in = calloc(nf, sizeof *in);
    int status = DRA_EXIT_OK;
    size_t loaded = 0;
    if (!r || !in) {
        free(r);
        free(in);
        return DRA_EXIT_ENV;
    }
    for (; loaded < nf && status == DRA_EXIT_OK; loaded++) {
        dra_diag_t d;
        dra_diag_clear(&d);
        char msg[DRA_DIAG_MSG_MAX + 256];
        const dra_io_input_t *f = &files[loaded];
        int rc = dra_rload_buf(f->buf, f->len, f->path, &r[loaded], &d);
        if (rc != DRA_OK) {
            if (!d.file)
                d.file = f->path;
            fprintf(stderr, "drabench baseline: %s\n", dra_diag_format(&d, msg, sizeof msg));
            status = rc == DRA_ENOMEM ? DRA_EXIT_ENV : DRA_EXIT_USAGE;
            loaded++;
            break;
        }
        const dra_rload_result_t *x = &r[loaded];
        in[loaded] = (dra_baseline_file_t){.buf = f->buf, .len = f->len, .result = x};
        /* a committed baseline should name the commit that measured it (README, "Nightly
         * regression gate": bless from a clean tree) */
        size_t gl = strlen(x->tool_git);
        if (!gl || (gl >= 6 && strcmp(x->tool_git + gl - 6, "-dirty") == 0))
            fprintf(stderr,
                    "drabench baseline: warning: %s was measured by a build of %s: "
                    "commit first, so the baseline names the commit it came from\n",
                    x->path, gl ? "a tree with uncommitted changes" : "an unknown commit");
        switch (force ? DRA_BASELINE_FIT : dra_baseline_refusal(x)) {
        case DRA_BASELINE_FIT:
            break;
        case DRA_BASELINE_VIOLATIONS:
            dra_cli_notef(stderr, "drabench baseline: %s: %lld invariant violation(s); refusing to "
                                  "bless (--force overrides)",
                          x->path, (long long)x->inv_violations);
            status = DRA_EXIT_CORRECTNESS;
            break;
        case DRA_BASELINE_INCOMPLETE:
            dra_cli_notef(stderr, "drabench baseline: %s: status %s with %zu repetition(s); "
                                  "refusing to bless (--force overrides)",
                          x->path, x->status, x->nreps);
            status = DRA_EXIT_USAGE;
            break;
        case DRA_BASELINE_DIGESTS_DIFFER:
            dra_cli_notef(stderr, "drabench baseline: %s: repetitions disagree on the decision "
                                  "digest; refusing to bless (--force overrides)",
                          x->path);
            status = DRA_EXIT_CORRECTNESS;
            break;
        }
    }
    if (status == DRA_EXIT_OK && !release)
        release = *r[0].tool_version ? r[0].tool_version : "unnamed";
    if (status == DRA_EXIT_OK && !dra_baseline_release_ok(release)) {
        status = dra_cli_usage_error("baseline", "release name '%s': use [A-Za-z0-9._-] only, "
                                                 "not CURRENT or local (reserved in the root)",
                                     release);
    }
    if (status == DRA_EXIT_OK) {
        dra_baseline_opts_t o = {.root = root,
                                 .release = release,
                                 .keep_hists = keep_hists,
                                 .current = current,
                                 .blessed = time(NULL),
                                 .on_file = print_path};
        char dir[4096], msg[DRA_DIAG_MSG_MAX + 256];
        dra_diag_t d;
        dra_diag_clear(&d);
        int rc = dra_baseline_write(&o, in, nf, dir, sizeof dir, &d);
        if (rc == DRA_OK) {
            dra_cli_notef(stderr, "drabench baseline: blessed %zu file(s) as %s", nf, dir);
        } else {
            fprintf(stderr, "drabench baseline: %s\n", dra_diag_format(&d, msg, sizeof msg));
            status = rc == DRA_EINVAL ? DRA_EXIT_USAGE : DRA_EXIT_ENV;
        }
    }
    for (size_t i = 0; i < loaded; i++)
        dra_rload_fini(&r[i]);
    free(r);
    free(in);
    return status;
}

struct baseline_args {
    const char *release, *root;
    bool current, force, keep_hists;
};

static int baseline_opt(int c, const char *v, void *ctx)
{
    struct baseline_args *x = ctx;
    switch (c) {
    case 'C':
        x->current = false;
        break;
    case 'K':
        x->keep_hists = true;
        break;
    case 'f':
        x->force = true;
        break;
    case 'r':
        x->release = v;
        break;
    case 'd':
        x->root = v;
        break;
    }
    return DRA_EXIT_OK;
}

int dra_cmd_baseline(int argc, char **argv)
{
    struct baseline_args x = {.root = "results/baseline", .current = true};
    if (argc >= 2 && (strcmp(argv[1], "-h") == 0 || strcmp(argv[1], "--help") == 0)) {
        fputs(help, stdout);
        return DRA_EXIT_OK;
    }
    if (argc < 2 || strcmp(argv[1], "bless") != 0)
        return dra_cli_usage_error("baseline", argc < 2 ? "missing subcommand (bless)"
                                                        : "unknown subcommand (want: bless)");
    dra_cli_args_t args;
    dra_io_input_t *in = NULL;
    size_t nf = 0;
    int status = dra_cli_parse_args("baseline", argc - 1, argv + 1, "r:d:fh", lopts, help, false,
                                    baseline_opt, &x, &args);
    if (status != DRA_EXIT_OK || args.help)
        goto out;
    /* every file is read once (a FIFO or <(cat r.json) cannot be read twice); the comparison
     * files of a nightly directory are skipped, the runs taken */
    if ((status = dra_cli_read_inputs("baseline", args.operands, args.n, &in)) != DRA_EXIT_OK)
        goto out;
    for (size_t i = 0; i < args.n; i++) {
        if (dra_baseline_is_compare_file(in[i].buf, in[i].len)) {
            fputs("drabench baseline: skipping ", stderr);
            dra_esc_term(stderr, in[i].path);
            fputs(" (a comparison, not a run)\n", stderr);
            free(in[i].buf);
        } else {
            in[nf++] = in[i];
        }
    }
    if (nf == 0) {
        status = dra_cli_usage_error("baseline", "no result files to bless");
        goto out;
    }
    status = bless(x.root, x.release, x.current, x.force, x.keep_hists, in, nf);
out:
    dra_io_inputs_free(in, in ? nf : 0);
    dra_cli_args_fini(&args);
    return status;
}
