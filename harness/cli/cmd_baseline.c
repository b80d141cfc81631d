/* cmd_baseline.c - `drabench baseline bless RESULT... [--release NAME]`: record a baseline set. */
#include <getopt.h>
#include <dirent.h>
#include <jansson.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "cli.h"
#include "escape.h"
#include "report.h"
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

static int mkdirs(const char *path)
{
    char tmp[4096];
    snprintf(tmp, sizeof tmp, "%s", path);
    for (char *p = tmp + 1; *p; p++)
        if (*p == '/') {
            *p = '\0';
            if (mkdir(tmp, 0755) != 0 && errno != EEXIST)
                return -1;
            *p = '/';
        }
    return mkdir(tmp, 0755) != 0 && errno != EEXIST ? -1 : 0;
}

/* "key: value" line of MANIFEST; the value on one line (escape.h). */
static void man_kv(FILE *m, const char *key, const char *val)
{
    fprintf(m, "%s: ", key);
    dra_esc_line(m, val);
    fputc('\n', m);
}

static bool name_ok(const char *s)
{
    if (!*s || strcmp(s, ".") == 0 || strcmp(s, "..") == 0)
        return false;
    for (; *s; s++)
        if (!((*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z') || (*s >= '0' && *s <= '9') ||
              *s == '.' || *s == '_' || *s == '-'))
            return false;
    return true;
}

/* Make a result file fit for a commit: absolute paths (host.executable, run.argv) are reduced to
 * their last component, and unless keep_hists only the all-shapes pod latency histogram of each
 * repetition is kept (the others can be tens of MB over 20 repetitions; compare reads `values`,
 * report plots that histogram). The output is compact JSON with sorted keys and 15 significant
 * digits, as the runner writes. */
static int slim(const char *buf, size_t len, const char *path, bool keep_hists, char **out,
                size_t *out_len)
{
    json_error_t err;
    json_t *root = json_loadb(buf, len, JSON_REJECT_DUPLICATES, &err);
    if (!root) {
        fprintf(stderr, "drabench baseline: %s:%d:%d: %s\n", path, err.line, err.column, err.text);
        return DRA_EXIT_USAGE;
    }
    json_t *host = json_object_get(root, "host");
    const char *exe = json_string_value(json_object_get(host, "executable"));
    if (exe && strchr(exe, '/'))
        json_object_set_new(host, "executable", json_string(strrchr(exe, '/') + 1));
    json_t *argv = json_object_get(json_object_get(root, "run"), "argv");
    size_t i;
    json_t *a;
    json_array_foreach(argv, i, a) {
        const char *s = json_string_value(a);
        if (s && s[0] == '/')
            json_array_set_new(argv, i, json_string(strrchr(s, '/') + 1));
    }
    json_t *reps = json_object_get(root, "repetitions");
    json_t *rep;
    json_array_foreach(reps, i, rep) {
        json_t *hs = json_object_get(rep, "histograms");
        if (keep_hists || !json_is_array(hs))
            continue;
        for (size_t k = json_array_size(hs); k-- > 0;) {
            json_t *h = json_array_get(hs, k);
            const char *shape = json_string_value(json_object_get(h, "shape"));
            const char *phase = json_string_value(json_object_get(h, "phase"));
            const char *outc = json_string_value(json_object_get(h, "outcome"));
            if (!(shape && phase && outc && strcmp(shape, "all") == 0 &&
                  strcmp(phase, "pod") == 0 && strcmp(outc, "any") == 0))
                json_array_remove(hs, k);
        }
    }
    char *s = json_dumps(root, JSON_COMPACT | JSON_SORT_KEYS | JSON_REAL_PRECISION(15));
    json_decref(root);
    if (!s)
        return DRA_EXIT_ENV;
    size_t n = strlen(s);
    char *o = realloc(s, n + 2);
    if (!o) {
        free(s);
        return DRA_EXIT_ENV;
    }
    o[n] = '\n';
    o[n + 1] = '\0';
    *out = o;
    *out_len = n + 1;
    return DRA_EXIT_OK;
}

static int bless(const char *root, const char *release, bool current, bool force, bool keep_hists,
                 char **files, size_t nf)
{
    dra_rload_result_t *r = calloc(nf, sizeof *r);
    char **bufs = calloc(nf, sizeof *bufs);
    size_t *lens = calloc(nf, sizeof *lens);
    int status = DRA_EXIT_OK;
    size_t loaded = 0;
    if (!r || !bufs || !lens) {
        free(r);
        free(bufs);
        free(lens);
        return DRA_EXIT_ENV;
    }
    for (; loaded < nf && status == DRA_EXIT_OK; loaded++) {
        dra_diag_t d;
        dra_diag_clear(&d);
        char msg[DRA_DIAG_MSG_MAX + 256];
        int rc = dra_cli_read_file(files[loaded], (size_t)1 << 30, &bufs[loaded], &lens[loaded], &d);
        if (rc == DRA_OK)
            rc = dra_rload_buf(bufs[loaded], lens[loaded], files[loaded], &r[loaded], &d);
        if (rc != DRA_OK) {
            if (!d.file)
                d.file = files[loaded];
            fprintf(stderr, "drabench baseline: %s\n", dra_diag_format(&d, msg, sizeof msg));
            status = rc == DRA_ENOMEM ? DRA_EXIT_ENV : DRA_EXIT_USAGE;
            loaded++;
            break;
        }
        const dra_rload_result_t *x = &r[loaded];
        bool digests_differ = false;
        for (size_t j = 0; j < x->nreps; j++)
            digests_differ |= *x->reps[j].digest && strcmp(x->reps[j].digest, x->digest) != 0;
        if (force)
            continue;
        if (x->inv_violations) {
            fprintf(stderr, "drabench baseline: %s: %lld invariant violation(s); refusing to bless "
                            "(--force overrides)\n",
                    x->path, (long long)x->inv_violations);
            status = DRA_EXIT_CORRECTNESS;
        } else if (strcmp(x->status, "complete") != 0 || x->nreps == 0) {
            fprintf(stderr, "drabench baseline: %s: status %s with %zu repetition(s); refusing to "
                            "bless (--force overrides)\n",
                    x->path, x->status, x->nreps);
            status = DRA_EXIT_USAGE;
        } else if (digests_differ) {
            fprintf(stderr, "drabench baseline: %s: repetitions disagree on the decision digest; "
                            "refusing to bless (--force overrides)\n",
                    x->path);
            status = DRA_EXIT_CORRECTNESS;
        }
    }
    if (status == DRA_EXIT_OK && !release)
        release = *r[0].tool_version ? r[0].tool_version : "unnamed";
    if (status == DRA_EXIT_OK && !name_ok(release)) {
        status = dra_cli_usage_error("baseline", "release name '%s': use [A-Za-z0-9._-] only",
                                     release);
    }
    char dir[4096];
    if (status == DRA_EXIT_OK) {
        snprintf(dir, sizeof dir, "%s/%s", root, release);
        if (mkdirs(dir) != 0) {
            dra_cli_errorf("baseline: cannot create %s: %s", dir, strerror(errno));
            status = DRA_EXIT_ENV;
        }
    }
    if (status == DRA_EXIT_OK) {
        /* replace an earlier set of this release */
        DIR *dh = opendir(dir);
        struct dirent *e;
        while (dh && (e = readdir(dh)) != NULL) {
            size_t l = strlen(e->d_name);
            if (l > 5 && strcmp(e->d_name + l - 5, ".json") == 0) {
                char p[4400];
                snprintf(p, sizeof p, "%s/%s", dir, e->d_name);
                unlink(p);
            }
        }
        if (dh)
            closedir(dh);
        char *man = NULL;
        size_t manlen = 0;
        FILE *m = open_memstream(&man, &manlen);
        time_t now = time(NULL);
        struct tm tm;
        char ts[32];
        gmtime_r(&now, &tm);
        strftime(ts, sizeof ts, "%Y-%m-%dT%H:%M:%SZ", &tm);
        fprintf(m, "# drabench baseline %s\n# blessed %s by `drabench baseline bless`; compare "
                   "with: drabench compare %s/%s/*.json -- NEW.json...\n# Files are the runs' "
                   "result files with absolute paths reduced to file names%s.\nrelease: %s\n"
                   "blessed: %s\nfiles: %zu\n",
                release, ts, root, release,
                keep_hists ? "" : " and only the all-shapes pod latency histogram kept per "
                                  "repetition (--keep-histograms keeps all)",
                release, ts, nf);
        for (size_t i = 0; i < nf && status == DRA_EXIT_OK; i++) {
            const dra_rload_result_t *x = &r[i];
            char sname[128], fname[200], path[4400], dmsg[DRA_DIAG_MSG_MAX + 64];
            dra_export_scenario_name(x->scenario, sname, sizeof sname);
            snprintf(fname, sizeof fname, "%s.json", sname);
            for (int k = 2; k < 1000; k++) {
                snprintf(path, sizeof path, "%s/%s", dir, fname);
                if (access(path, F_OK) != 0)
                    break;
                snprintf(fname, sizeof fname, "%s-%d.json", sname, k);
            }
            snprintf(path, sizeof path, "%s/%s", dir, fname);
            dra_diag_t d;
            dra_diag_clear(&d);
            char *slimmed = NULL;
            size_t slen = 0;
            status = slim(bufs[i], lens[i], x->path, keep_hists, &slimmed, &slen);
            if (status != DRA_EXIT_OK)
                break;
            int wrc = dra_cli_write_file_atomic(path, slimmed, slen, &d);
            free(slimmed);
            if (wrc != DRA_OK) {
                fprintf(stderr, "drabench baseline: %s\n", dra_diag_format(&d, dmsg, sizeof dmsg));
                status = DRA_EXIT_ENV;
                break;
            }
            /* MANIFEST is line based: every value from a result file is kept on its line */
            const char *src = strrchr(x->path, '/') ? strrchr(x->path, '/') + 1 : x->path;
            char num[160];
            fprintf(m, "\n[%s]\n", fname);
            man_kv(m, "source", src);
            man_kv(m, "scenario", x->scenario);
            man_kv(m, "scenario_hash", x->scenario_hash);
            man_kv(m, "seed", x->seed);
            man_kv(m, "release_profile", x->release);
            man_kv(m, "policy", x->policy);
            snprintf(num, sizeof num, "%zu", x->nreps);
            man_kv(m, "repetitions", num);
            man_kv(m, "status", x->status);
            man_kv(m, "digest", x->digest);
            snprintf(num, sizeof num, "%lld checked, %lld violated", (long long)x->inv_checked,
                     (long long)x->inv_violations);
            man_kv(m, "invariants", num);
            fputs("build: drabench ", m);
            dra_esc_line(m, x->tool_version);
            fputs(" (git ", m);
            dra_esc_line(m, x->tool_git);
            fputs("), ", m);
            dra_esc_line(m, x->build_type);
            fputs(", ", m);
            dra_esc_line(m, x->compiler);
            fputs(", flags '", m);
            dra_esc_line(m, x->flags);
            fputs("', sanitize '", m);
            dra_esc_line(m, x->sanitize);
            fputs("', kernel ", m);
            dra_esc_line(m, *x->kernel ? x->kernel : "?");
            fprintf(m, "%s\nhost: ", x->native ? ", native" : "");
            dra_esc_line(m, x->hostname);
            fputs(", ", m);
            dra_esc_line(m, x->cpu_model);
            fprintf(m, ", %lld CPUs, %.0f MHz, governor ", (long long)x->cpus, x->mhz);
            dra_esc_line(m, x->governor);
            fputs(", Linux ", m);
            dra_esc_line(m, x->host_kernel);
            fputc('\n', m);
            man_kv(m, "run_date", x->date);
            printf("%s\n", path);
        }
        fclose(m);
        if (status == DRA_EXIT_OK) {
            char path[4400];
            dra_diag_t d;
            snprintf(path, sizeof path, "%s/MANIFEST", dir);
            char dmsg[DRA_DIAG_MSG_MAX + 256];
            dra_diag_clear(&d);
            if (dra_cli_write_file_atomic(path, man, manlen, &d) != DRA_OK) {
                fprintf(stderr, "drabench baseline: %s\n", dra_diag_format(&d, dmsg, sizeof dmsg));
                status = DRA_EXIT_ENV;
            }
            if (status == DRA_EXIT_OK && current) {
                char line[300];
                int ll = snprintf(line, sizeof line, "%s\n", release);
                snprintf(path, sizeof path, "%s/CURRENT", root);
                dra_diag_clear(&d);
                if (dra_cli_write_file_atomic(path, line, (size_t)ll, &d) != DRA_OK) {
                    fprintf(stderr, "drabench baseline: %s\n",
                            dra_diag_format(&d, dmsg, sizeof dmsg));
                    status = DRA_EXIT_ENV;
                }
            }
            if (status == DRA_EXIT_OK)
                fprintf(stderr, "drabench baseline: blessed %zu file(s) as %s\n", nf, dir);
        }
        free(man);
    }
    for (size_t i = 0; i < nf; i++) {
        if (i < loaded)
            dra_rload_fini(&r[i]);
        free(bufs[i]);
    }
    free(r);
    free(bufs);
    free(lens);
    return status;
}

/* True for the comparison file scripts/nightly writes beside the runs (schema
 * drabench-compare/...), so blessing every JSON file of a nightly directory takes the runs. */
static bool is_compare_file(const char *path)
{
    json_t *root = json_load_file(path, 0, NULL);
    const char *schema = json_string_value(json_object_get(root, "schema"));
    bool yes = schema && strncmp(schema, "drabench-compare/", 17) == 0;
    json_decref(root);
    return yes;
}

int dra_cmd_baseline(int argc, char **argv)
{
    const char *release = NULL, *root = "results/baseline";
    bool current = true, force = false, keep_hists = false;
    if (argc >= 2 && (strcmp(argv[1], "-h") == 0 || strcmp(argv[1], "--help") == 0)) {
        fputs(help, stdout);
        return DRA_EXIT_OK;
    }
    if (argc < 2 || strcmp(argv[1], "bless") != 0)
        return dra_cli_usage_error("baseline", argc < 2 ? "missing subcommand (bless)"
                                                        : "unknown subcommand (want: bless)");
    char **files = calloc((size_t)argc + 1, sizeof *files);
    size_t nf = 0;
    if (!files)
        return DRA_EXIT_ENV;
    int status = DRA_EXIT_USAGE;
    optind = 0;
    for (;;) {
        const char *v;
        int c = dra_cli_getopt("baseline", argc - 1, argv + 1, "r:d:fh", lopts, &v);
        if (c == -1)
            break;
        switch (c) {
        case DRA_CLI_BAD:
            goto out;
        case 'h':
            fputs(help, stdout);
            free(files);
            return DRA_EXIT_OK;
        case 'C':
            current = false;
            break;
        case 'K':
            keep_hists = true;
            break;
        case 'f':
            force = true;
            break;
        case 'r':
            release = v;
            break;
        case 'd':
            root = v;
            break;
        case DRA_CLI_SPLIT:
            dra_cli_usage_error("baseline", "unknown option '%s'", "--");
            goto out;
        case DRA_CLI_OPERAND:
            if (is_compare_file(v))
                fprintf(stderr, "drabench baseline: skipping %s (a comparison, not a run)\n", v);
            else
                files[nf++] = (char *)v;
            break;
        }
    }
    if (nf == 0) {
        dra_cli_usage_error("baseline", "no result files to bless");
        goto out;
    }
    status = bless(root, release, current, force, keep_hists, files, nf);
out:
    free(files);
    return status;
}
