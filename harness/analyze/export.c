/* export.c - result files in formats other tools read: perfdash DataItems, Go benchmark text
 * (benchfmt) and CSV, plus the names they use (export.h). */
#include "export.h"

#include <jansson.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "compiler.h"
#include "escape.h"
#include "report.h"
#include "stats.h"

#define NA "not applicable"

const char *dra_export_scenario_name(const char *scenario, char *buf, size_t len)
{
    const char *b = strrchr(scenario, '/');
    b = b ? b + 1 : scenario;
    size_t n = strlen(b);
    const char *dot = strrchr(b, '.');
    if (dot && dot != b && (strcmp(dot, ".yaml") == 0 || strcmp(dot, ".yml") == 0 ||
                            strcmp(dot, ".json") == 0))
        n = (size_t)(dot - b);
    size_t k = 0;
    for (size_t i = 0; i < n && k + 1 < len; i++) {
        char ch = b[i];
        bool ok = (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') || (ch >= '0' && ch <= '9') ||
                  ch == '.' || ch == '_' || ch == '-';
        /* a leading '.' would make a hidden file of a run or baseline file name */
        if (k == 0 && ch == '.')
            ok = false;
        buf[k++] = ok ? ch : '_';
    }
    if (k == 0 && len > 1)
        buf[k++] = '_';
    buf[k] = '\0';
    return buf;
}

static void bench_name(const dra_rload_result_t *r, char *buf, size_t len)
{
    /* one whitespace-free field of the benchfmt line (escape.h) */
    char s[128], p[48], rel[48]; /* 18 + 127 + 1 + 47 + 1 + 47 < 256 */
    dra_export_scenario_name(r->scenario, s, sizeof s);
    dra_esc_bench_name(p, sizeof p, *r->policy ? r->policy : "default");
    dra_esc_bench_name(rel, sizeof rel, *r->release ? r->release : "default");
    snprintf(buf, len, "BenchmarkDRAAlloc/%s/%s-%s", s, p, rel);
}

const char *dra_export_benchfmt_unit(const char *metric, const char *unit, char *buf, size_t len)
{
    if (strcmp(metric, "throughput.claims_per_s") == 0)
        snprintf(buf, len, "claims/s");
    else if (strcmp(metric, "throughput.pods_per_s") == 0)
        snprintf(buf, len, "pods/s");
    else {
        const char *m = strncmp(metric, "latency.", 8) == 0 ? metric + 8 : metric;
        size_t k = 0;
        for (; *m && k + 1 < len; m++)
            buf[k++] = (*m == '.' || *m == ' ') ? '-' : *m;
        buf[k] = '\0';
        if (unit && *unit && strcmp(unit, "count") != 0) {
            size_t used = strlen(buf);
            snprintf(buf + used, len - used, "-%s", unit);
            for (char *p = buf + used; *p; p++)
                if (*p == ' ')
                    *p = '-';
        }
    }
    /* a unit is one field: no white space or control characters from the metric name */
    for (char *p = buf; *p; p++)
        if ((unsigned char)*p <= 0x20 || (unsigned char)*p >= 0x7F)
            *p = '_';
    return buf;
}

void dra_export_perfdash_name(const dra_rload_result_t *r, char *buf, size_t len)
{
    char ts[32] = "";
    const char *d = r ? r->date : "";
    /* host.date is RFC 3339 UTC; keep 2006-01-02T15:04:05 and add Z */
    if (d && strlen(d) >= 19 && d[4] == '-' && d[10] == 'T') {
        memcpy(ts, d, 19);
        ts[19] = 'Z';
        ts[20] = '\0';
    } else {
        time_t now = time(NULL);
        struct tm tm;
        gmtime_r(&now, &tm);
        strftime(ts, sizeof ts, "%Y-%m-%dT%H:%M:%SZ", &tm);
    }
    snprintf(buf, len, "BenchmarkDRAAlloc_%s.json", ts);
}

/* ---- perfdash --------------------------------------------------------------------------------- */

static json_t *labels(const char *metric, const char *name, const char *shape, const char *phase,
                      const dra_rload_result_t *r)
{
    return json_pack("{s:s, s:s, s:s, s:s, s:s, s:s}", "Metric", metric, "Name", name, "shape",
                     shape ? shape : NA, "phase", phase ? phase : NA, "release",
                     *r->release ? r->release : NA, "policy", *r->policy ? r->policy : NA);
}

/* Samples of one metric over the repetitions of results g[0..n). */
static double *values_of(const dra_rload_result_t *const *g, size_t n, const char *metric,
                         size_t *out_n)
{
    size_t total = 0, k = 0;
    for (size_t i = 0; i < n; i++)
        total += g[i]->nreps;
    double *x = malloc((total ? total : 1) * sizeof *x);
    if (!x)
        return NULL;
    for (size_t i = 0; i < n; i++)
        for (size_t j = 0; j < g[i]->nreps; j++) {
            double v;
            if (dra_rload_value(&g[i]->reps[j], metric, &v) && isfinite(v))
                x[k++] = v;
        }
    *out_n = k;
    return x;
}

static json_t *quantile_data(const double *x, size_t n, double scale)
{
    return json_pack("{s:f, s:f, s:f, s:f, s:f}", "Perc50", dra_stats_quantile(x, n, 0.5) * scale,
                     "Perc90", dra_stats_quantile(x, n, 0.9) * scale, "Perc95",
                     dra_stats_quantile(x, n, 0.95) * scale, "Perc99",
                     dra_stats_quantile(x, n, 0.99) * scale, "Average", dra_stats_mean(x, n) * scale);
}

static int perfdash_group(const dra_rload_result_t *const *g, size_t n, json_t *items)
{
    char name[256];
    bench_name(g[0], name, sizeof name);
    const dra_rload_result_t *r0 = g[0];
    /* latency: every histogram with outcome "any", pooled over repetitions and files */
    for (size_t i = 0; i < n; i++)
        for (size_t j = 0; j < g[i]->nreps; j++)
            for (size_t k = 0; k < g[i]->reps[j].nhists; k++) {
                const dra_rload_hist_t *h = &g[i]->reps[j].hists[k];
                if (strcmp(h->outcome, "any") != 0)
                    continue;
                /* only the first occurrence of a (shape, phase) starts an item */
                bool seen = false;
                for (size_t i2 = 0; i2 <= i && !seen; i2++)
                    for (size_t j2 = 0; j2 < g[i2]->nreps && !seen; j2++) {
                        if (i2 == i && j2 >= j)
                            break;
                        for (size_t k2 = 0; k2 < g[i2]->reps[j2].nhists && !seen; k2++) {
                            const dra_rload_hist_t *o = &g[i2]->reps[j2].hists[k2];
                            seen = strcmp(o->outcome, "any") == 0 &&
                                   strcmp(o->shape, h->shape) == 0 && strcmp(o->phase, h->phase) == 0;
                        }
                    }
                for (size_t k2 = 0; k2 < k && !seen; k2++) {
                    const dra_rload_hist_t *o = &g[i]->reps[j].hists[k2];
                    seen = strcmp(o->outcome, "any") == 0 && strcmp(o->shape, h->shape) == 0 &&
                           strcmp(o->phase, h->phase) == 0;
                }
                if (seen)
                    continue;
                dra_hist_t pooled;
                size_t cnt;
                int rc = dra_hist_init(&pooled, DRA_HIST_LOWEST, DRA_HIST_HIGHEST, DRA_HIST_SIGFIGS);
                if (rc != DRA_OK)
                    return rc;
                for (size_t q = 0; q < n && rc == DRA_OK; q++) {
                    dra_hist_t one;
                    rc = dra_report_hist_pool(g[q], 1, h->shape, h->phase, "any", &one, &cnt);
                    if (rc == DRA_OK)
                        rc = dra_hist_merge(&pooled, &one);
                    dra_hist_fini(&one);
                }
                if (rc != DRA_OK) {
                    dra_hist_fini(&pooled);
                    return rc;
                }
                json_t *data = json_pack(
                    "{s:f, s:f, s:f, s:f, s:f}", "Perc50",
                    (double)dra_hist_percentile(&pooled, 50) / 1e6, "Perc90",
                    (double)dra_hist_percentile(&pooled, 90) / 1e6, "Perc95",
                    (double)dra_hist_percentile(&pooled, 95) / 1e6, "Perc99",
                    (double)dra_hist_percentile(&pooled, 99) / 1e6, "Average",
                    dra_hist_mean(&pooled) / 1e6);
                dra_hist_fini(&pooled);
                json_array_append_new(items, json_pack("{s:o, s:s, s:o}", "data", data, "unit", "ms",
                                                       "labels",
                                                       labels("AllocationLatency", name, h->shape,
                                                              h->phase, r0)));
            }
    static const struct {
        const char *metric, *perfdash, *unit;
    } scalar[] = {{"throughput.claims_per_s", "AllocationThroughput", "claims/s"},
                  {"throughput.pods_per_s", "SchedulingThroughput", "pods/s"},
                  {"search.candidates", "CandidatesScanned", "count"},
                  {"search.cel_evaluations", "CELEvaluations", "count"},
                  {"search.allocate_one_calls", "AllocateOneCalls", "count"}};
    for (size_t s = 0; s < DRA_ARRAY_LEN(scalar); s++) {
        size_t nx;
        double *x = values_of(g, n, scalar[s].metric, &nx);
        if (!x)
            return DRA_ENOMEM;
        if (nx)
            json_array_append_new(items, json_pack("{s:o, s:s, s:o}", "data", quantile_data(x, nx, 1),
                                                   "unit", scalar[s].unit, "labels",
                                                   labels(scalar[s].perfdash, name, NULL, NULL, r0)));
        free(x);
    }
    int64_t high = 0;
    for (size_t i = 0; i < n; i++)
        high = g[i]->arena_high_water_bytes > high ? g[i]->arena_high_water_bytes : high;
    if (high > 0)
        json_array_append_new(items, json_pack("{s:{s:f}, s:s, s:o}", "data", "Max",
                                               (double)high / 1e6, "unit", "MB", "labels",
                                               labels("ArenaHighWater", name, NULL, NULL, r0)));
    return DRA_OK;
}

int dra_export_perfdash(const dra_rload_result_t *r, size_t n, FILE *f)
{
    json_t *items = json_array();
    const dra_rload_result_t **g = calloc(n ? n : 1, sizeof *g);
    bool *done = calloc(n ? n : 1, sizeof *done);
    int rc = items && g && done ? DRA_OK : DRA_ENOMEM;
    for (size_t i = 0; i < n && rc == DRA_OK; i++) {
        if (done[i])
            continue;
        char ni[256], nj[256];
        bench_name(&r[i], ni, sizeof ni);
        size_t ng = 0;
        for (size_t j = i; j < n; j++) {
            bench_name(&r[j], nj, sizeof nj);
            if (!done[j] && strcmp(ni, nj) == 0) {
                g[ng++] = &r[j];
                done[j] = true;
            }
        }
        rc = perfdash_group(g, ng, items);
    }
    free(g);
    free(done);
    if (rc != DRA_OK) {
        json_decref(items);
        return rc;
    }
    json_t *root = json_pack("{s:s, s:o}", "version", "v1", "dataItems", items);
    if (!root)
        return DRA_ENOMEM;
    rc = json_dumpf(root, f, JSON_INDENT(2) | JSON_REAL_PRECISION(15)) == 0 ? DRA_OK : DRA_EIO;
    fputc('\n', f);
    json_decref(root);
    return rc == DRA_OK && !ferror(f) ? DRA_OK : DRA_EIO;
}

/* ---- benchfmt --------------------------------------------------------------------------------- */

static void config(FILE *f, const char *key, const char *val, char (*last)[256])
{
    if (!val || !*val || strcmp(*last, val) == 0)
        return;
    /* config values are one line */
    fprintf(f, "%s: ", key);
    dra_esc_line(f, val);
    fputc('\n', f);
    snprintf(*last, sizeof *last, "%s", val);
}

/* Timed allocator work per claim of a repetition: 1e9 / throughput.claims_per_s (throughput is
 * claims per second of busy time, so this is busy_ns / claims); NaN when unknown. */
static double ns_per_claim(const dra_rload_rep_t *rep)
{
    double tp;
    if (dra_rload_value(rep, "throughput.claims_per_s", &tp) && tp > 0)
        return 1e9 / tp;
    return NAN;
}

int dra_export_benchfmt_ex(const dra_rload_result_t *r, size_t n, bool label, FILE *f)
{
    enum { NKEY = 14 };
    char last[NKEY][256];
    memset(last, 0, sizeof last);
    char units_seen[256][96];
    size_t nunits = 0;
    fputs("goos: linux\n", f);
    fputs("Unit ns/op better=lower\n", f);
    for (size_t i = 0; i < n; i++) {
        const dra_rload_result_t *x = &r[i];
        /* configuration: what was measured and where - the same for runs benchstat should
         * compare; per-run keys (commit, date, host, digest) only with --label */
        config(f, "cpu", x->cpu_model, &last[0]);
        char cpus[32];
        snprintf(cpus, sizeof cpus, "%lld", (long long)x->cpus);
        config(f, "cpus", x->cpus > 0 ? cpus : "", &last[1]);
        config(f, "kernel", x->host_kernel, &last[2]);
        config(f, "build", x->build_type, &last[3]);
        config(f, "simd", x->kernel, &last[4]);
        config(f, "release", x->release, &last[5]);
        config(f, "policy", x->policy, &last[6]);
        config(f, "seed", x->seed, &last[7]);
        config(f, "scenario-hash", x->scenario_hash, &last[8]);
        config(f, "allocator", x->allocator, &last[9]);
        if (label) {
            config(f, "commit", x->tool_git, &last[10]);
            config(f, "host", x->hostname, &last[11]);
            config(f, "date", x->date, &last[12]);
            config(f, "digest", x->digest, &last[13]);
        }
        /* unit metadata, once per unit */
        for (size_t m = 0; m < x->nmetrics; m++) {
            char u[96];
            dra_export_benchfmt_unit(x->metrics[m].name, x->metrics[m].unit, u, sizeof u);
            bool seen = false;
            for (size_t q = 0; q < nunits && !seen; q++)
                seen = strcmp(units_seen[q], u) == 0;
            if (seen || nunits >= 256)
                continue;
            snprintf(units_seen[nunits], sizeof units_seen[nunits], "%s", u);
            nunits++;
            const dra_rload_metric_t *e = &x->metrics[m];
            fprintf(f, "Unit %s%s%s\n", u,
                    e->better == DRA_RLOAD_BETTER_HIGHER  ? " better=higher"
                    : e->better == DRA_RLOAD_BETTER_LOWER ? " better=lower"
                                                          : "",
                    e->exact ? " assume=exact" : "");
        }
        char name[256];
        bench_name(x, name, sizeof name);
        for (size_t j = 0; j < x->nreps; j++) {
            const dra_rload_rep_t *rep = &x->reps[j];
            long long iters = rep->claims > 0 ? (long long)rep->claims : 1;
            fprintf(f, "%s %lld", name, iters);
            double nspc = ns_per_claim(rep);
            if (isfinite(nspc))
                fprintf(f, " %.15g ns/op", nspc);
            for (size_t k = 0; k < rep->nvalues; k++) {
                const dra_rload_metric_t *e = dra_rload_metric(x, rep->value_names[k]);
                char u[96];
                dra_export_benchfmt_unit(rep->value_names[k], e ? e->unit : "", u, sizeof u);
                fprintf(f, " %.15g %s", rep->values[k], u);
            }
            fputc('\n', f);
        }
    }
    return ferror(f) ? DRA_EIO : DRA_OK;
}

int dra_export_benchfmt(const dra_rload_result_t *r, size_t n, FILE *f)
{
    return dra_export_benchfmt_ex(r, n, false, f);
}

/* ---- CSV (RFC 4180) ------------------------------------------------------------------------- */

/* One field: quoted when it holds a comma, quote or line break; a text field that a spreadsheet
 * would take for a formula (= + - @, tab, CR) gets a leading apostrophe. */
static void csv_field(FILE *f, const char *s, bool text)
{
    if (!s)
        s = "";
    bool quote = strpbrk(s, ",\"\r\n") != NULL;
    bool formula = text && (*s == '=' || *s == '+' || *s == '-' || *s == '@' || *s == '\t' ||
                            *s == '\r');
    if (quote || formula)
        fputc('"', f);
    if (formula)
        fputc('\'', f);
    for (const char *p = s; *p; p++) {
        if (*p == '"')
            fputc('"', f);
        fputc(*p, f);
    }
    if (quote || formula)
        fputc('"', f);
}

int dra_export_csv(const dra_rload_result_t *r, size_t n, FILE *f)
{
    fputs("file,scenario,seed,release,policy,allocator,commit,host,date,repetition,metric,unit,"
          "better,exact,value\r\n",
          f);
    for (size_t i = 0; i < n; i++) {
        const dra_rload_result_t *x = &r[i];
        for (size_t j = 0; j < x->nreps; j++) {
            const dra_rload_rep_t *rep = &x->reps[j];
            for (size_t k = 0; k < rep->nvalues; k++) {
                const dra_rload_metric_t *e = dra_rload_metric(x, rep->value_names[k]);
                const char *fields[] = {x->path,      x->scenario, x->seed,     x->release,
                                        x->policy,    x->allocator, x->tool_git, x->hostname,
                                        x->date};
                for (size_t q = 0; q < DRA_ARRAY_LEN(fields); q++) {
                    csv_field(f, fields[q], true);
                    fputc(',', f);
                }
                fprintf(f, "%lld,", (long long)rep->index);
                csv_field(f, rep->value_names[k], true);
                fputc(',', f);
                csv_field(f, e ? e->unit : "", true);
                fprintf(f, ",%s,%s,%.15g\r\n",
                        !e || e->better == DRA_RLOAD_BETTER_NONE ? "none"
                        : e->better == DRA_RLOAD_BETTER_HIGHER   ? "higher"
                                                                 : "lower",
                        e && e->exact ? "true" : "false", rep->values[k]);
            }
        }
    }
    return ferror(f) ? DRA_EIO : DRA_OK;
}

/* ---- format dispatch ------------------------------------------------------------------------- */

dra_export_format_t dra_export_format_parse(const char *name)
{
    if (!name)
        return DRA_EXPORT_NONE;
    if (strcmp(name, "perfdash") == 0)
        return DRA_EXPORT_PERFDASH;
    if (strcmp(name, "benchfmt") == 0)
        return DRA_EXPORT_BENCHFMT;
    if (strcmp(name, "csv") == 0)
        return DRA_EXPORT_CSV;
    return DRA_EXPORT_NONE;
}

int dra_export_write(dra_export_format_t fmt, const dra_rload_result_t *r, size_t n, bool label,
                     FILE *f)
{
    switch (fmt) {
    case DRA_EXPORT_PERFDASH:
        return dra_export_perfdash(r, n, f);
    case DRA_EXPORT_BENCHFMT:
        return dra_export_benchfmt_ex(r, n, label, f);
    case DRA_EXPORT_CSV:
        return dra_export_csv(r, n, f);
    case DRA_EXPORT_NONE:
        break;
    }
    return DRA_EINVAL;
}
