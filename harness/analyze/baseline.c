/* baseline.c - bless rules, slimming and writing of baseline sets (baseline.h). */
#include "baseline.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <strings.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "escape.h"
#include "export.h"
#include "files.h"

dra_baseline_refusal_t dra_baseline_refusal(const dra_rload_result_t *x)
{
    bool digests_differ = false;
    for (size_t j = 0; j < x->nreps; j++)
        digests_differ |= *x->reps[j].digest && strcmp(x->reps[j].digest, x->digest) != 0;
    if (x->inv_violations)
        return DRA_BASELINE_VIOLATIONS;
    if (strcmp(x->status, "complete") != 0 || x->nreps == 0)
        return DRA_BASELINE_INCOMPLETE;
    if (digests_differ)
        return DRA_BASELINE_DIGESTS_DIFFER;
    return DRA_BASELINE_FIT;
}

bool dra_baseline_release_ok(const char *s)
{
    /* CURRENT is the root's file naming the current set and local/ holds scripts/nightly's
     * per-host sets: a release of either name would shadow them (case-insensitively, for
     * file systems that fold case) */
    if (!*s || strcmp(s, ".") == 0 || strcmp(s, "..") == 0 || strcasecmp(s, "CURRENT") == 0 ||
        strcasecmp(s, "local") == 0)
        return false;
    for (; *s; s++)
        if (!((*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z') || (*s >= '0' && *s <= '9') ||
              *s == '.' || *s == '_' || *s == '-'))
            return false;
    return true;
}

bool dra_baseline_is_compare_file(const char *buf, size_t len)
{
    json_t *root = json_loadb(buf, len, 0, NULL);
    const char *schema = json_string_value(json_object_get(root, "schema"));
    bool yes = schema && strncmp(schema, "drabench-compare/", 17) == 0;
    json_decref(root);
    return yes;
}

/* the all-shapes pod latency histogram: the one a slim baseline keeps */
static bool kept_hist(const json_t *h)
{
    const char *shape = json_string_value(json_object_get(h, "shape"));
    const char *phase = json_string_value(json_object_get(h, "phase"));
    const char *outc = json_string_value(json_object_get(h, "outcome"));
    return shape && phase && outc && strcmp(shape, "all") == 0 && strcmp(phase, "pod") == 0 &&
           strcmp(outc, "any") == 0;
}

int dra_baseline_slim(const char *buf, size_t len, const char *path, bool keep_hists, char **out,
                      size_t *out_len, dra_diag_t *diag)
{
    json_error_t err;
    json_t *root = json_loadb(buf, len, JSON_REJECT_DUPLICATES, &err);
    if (!root)
        return dra_diag_set(diag, DRA_EINVAL, path, (uint32_t)(err.line > 0 ? err.line : 0),
                            (uint32_t)(err.column > 0 ? err.column : 0), "%s", err.text);
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
        for (size_t k = json_array_size(hs); k-- > 0;)
            if (!kept_hist(json_array_get(hs, k)))
                json_array_remove(hs, k);
    }
    char *s = json_dumps(root, JSON_COMPACT | JSON_SORT_KEYS | JSON_REAL_PRECISION(15));
    json_decref(root);
    if (!s)
        return dra_diag_set(diag, DRA_ENOMEM, path, 0, 0, "out of memory");
    size_t n = strlen(s);
    char *o = realloc(s, n + 2);
    if (!o) {
        free(s);
        return dra_diag_set(diag, DRA_ENOMEM, path, 0, 0, "out of memory");
    }
    o[n] = '\n';
    o[n + 1] = '\0';
    *out = o;
    *out_len = n + 1;
    return DRA_OK;
}

/* "key: value" line of MANIFEST; the value on one line (escape.h). */
static void man_kv(FILE *m, const char *key, const char *val)
{
    fprintf(m, "%s: ", key);
    dra_esc_line(m, val);
    fputc('\n', m);
}

static void manifest_header(FILE *m, const dra_baseline_opts_t *o, size_t n)
{
    struct tm tm;
    char ts[32] = "";
    if (gmtime_r(&o->blessed, &tm))
        strftime(ts, sizeof ts, "%Y-%m-%dT%H:%M:%SZ", &tm);
    fprintf(m, "# drabench baseline %s\n# blessed %s by `drabench baseline bless`; compare "
               "with: drabench compare %s/%s/*.json -- NEW.json...\n# Files are the runs' "
               "result files with absolute paths reduced to file names%s.\nrelease: %s\n"
               "blessed: %s\nfiles: %zu\n",
            o->release, ts, o->root, o->release,
            o->keep_hists ? "" : " and only the all-shapes pod latency histogram kept per "
                                 "repetition (--keep-histograms keeps all)",
            o->release, ts, n);
}

/* MANIFEST is line based: every value from a result file is kept on its line */
static void manifest_entry(FILE *m, const char *fname, const dra_rload_result_t *x)
{
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
}

/* Create dir and remove an earlier set's *.json files from it. */
static int prepare_dir(const char *dir, dra_diag_t *diag)
{
    if (dra_io_mkdir_p(dir, 0755) != 0)
        return dra_diag_set(diag, DRA_EIO, NULL, 0, 0, "cannot create %s: %s", dir,
                            strerror(errno));
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
    return DRA_OK;
}

/* dir/<scenario>.json, or <scenario>-2.json, ... when that exists: fname and path */
static void unique_name(const char *dir, const char *scenario, char *fname, size_t flen,
                        char *path, size_t plen)
{
    char sname[128];
    dra_export_scenario_name(scenario, sname, sizeof sname);
    snprintf(fname, flen, "%s.json", sname);
    for (int k = 2; k < 1000; k++) {
        snprintf(path, plen, "%s/%s", dir, fname);
        if (access(path, F_OK) != 0)
            break;
        snprintf(fname, flen, "%s-%d.json", sname, k);
    }
    snprintf(path, plen, "%s/%s", dir, fname);
}

/* The whole write of a set holds an exclusive lock on the root directory (flock, released when
 * the descriptor closes, also when the process dies): two blesses of one root - of one release
 * or of two, both writing CURRENT - run one after the other, so a set and its MANIFEST are one
 * run's files. -1 with a message in diag when the root cannot be created or locked. */
static int lock_root(const char *root, dra_diag_t *diag)
{
    if (dra_io_mkdir_p(root, 0755) != 0) {
        dra_diag_set(diag, DRA_EIO, NULL, 0, 0, "cannot create %s: %s", root, strerror(errno));
        return -1;
    }
    int fd = open(root, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (fd < 0) {
        dra_diag_set(diag, DRA_EIO, NULL, 0, 0, "cannot open %s: %s", root, strerror(errno));
        return -1;
    }
    while (flock(fd, LOCK_EX) != 0) {
        if (errno == EINTR)
            continue;
        dra_diag_set(diag, DRA_EIO, NULL, 0, 0, "cannot lock %s: %s", root, strerror(errno));
        close(fd);
        return -1;
    }
    return fd;
}

static int write_set(const dra_baseline_opts_t *o, const dra_baseline_file_t *files, size_t n,
                     const char *dir, dra_diag_t *diag);

int dra_baseline_write(const dra_baseline_opts_t *o, const dra_baseline_file_t *files, size_t n,
                       char *dir, size_t dir_len, dra_diag_t *diag)
{
    snprintf(dir, dir_len, "%s/%s", o->root, o->release);
    if (!dra_baseline_release_ok(o->release))
        return dra_diag_set(diag, DRA_EINVAL, NULL, 0, 0, "release name '%s' is not allowed",
                            o->release);
    int lock = lock_root(o->root, diag);
    if (lock < 0)
        return DRA_EIO;
    /* ROOT/CURRENT must be the file naming the current set: a directory there (an older
     * drabench made one for --release CURRENT) failed every bless after the set was written */
    char cur[4400];
    struct stat st;
    snprintf(cur, sizeof cur, "%s/CURRENT", o->root);
    if (o->current && stat(cur, &st) == 0 && !S_ISREG(st.st_mode)) {
        close(lock);
        return dra_diag_set(diag, DRA_EINVAL, cur, 0, 0,
                            "not a regular file: CURRENT names the current release (a directory "
                            "there was made by an older bless --release CURRENT; remove it)");
    }
    int rc = write_set(o, files, n, dir, diag);
    close(lock);
    return rc;
}

static int write_set(const dra_baseline_opts_t *o, const dra_baseline_file_t *files, size_t n,
                     const char *dir, dra_diag_t *diag)
{
    int rc = prepare_dir(dir, diag);
    if (rc != DRA_OK)
        return rc;
    char *man = NULL;
    size_t manlen = 0;
    FILE *m = open_memstream(&man, &manlen);
    if (!m)
        return dra_diag_set(diag, DRA_ENOMEM, NULL, 0, 0, "out of memory");
    manifest_header(m, o, n);
    for (size_t i = 0; i < n && rc == DRA_OK; i++) {
        const dra_rload_result_t *x = files[i].result;
        char fname[200], path[4400];
        unique_name(dir, x->scenario, fname, sizeof fname, path, sizeof path);
        char *slimmed = NULL;
        size_t slen = 0;
        rc = dra_baseline_slim(files[i].buf, files[i].len, x->path, o->keep_hists, &slimmed, &slen,
                               diag);
        if (rc != DRA_OK)
            break;
        rc = dra_io_write_file_atomic(path, slimmed, slen, diag);
        free(slimmed);
        if (rc != DRA_OK)
            break;
        manifest_entry(m, fname, x);
        if (o->on_file)
            o->on_file(path, o->ctx);
    }
    bool mfail = fclose(m) != 0;
    if (rc == DRA_OK && mfail)
        rc = dra_diag_set(diag, DRA_ENOMEM, NULL, 0, 0, "out of memory");
    if (rc == DRA_OK) {
        char path[4400];
        snprintf(path, sizeof path, "%s/MANIFEST", dir);
        rc = dra_io_write_file_atomic(path, man, manlen, diag);
    }
    if (rc == DRA_OK && o->current) {
        char path[4400], line[300];
        int ll = snprintf(line, sizeof line, "%s\n", o->release);
        snprintf(path, sizeof path, "%s/CURRENT", o->root);
        if (ll < 0 || (size_t)ll >= sizeof line)
            rc = dra_diag_set(diag, DRA_EINVAL, path, 0, 0, "release name longer than %zu bytes",
                              sizeof line - 2);
        else
            rc = dra_io_write_file_atomic(path, line, (size_t)ll, diag);
    }
    free(man);
    return rc;
}
