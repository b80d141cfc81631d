/* compare.c - comparison tables and the regression gate; see compare.h. */
#include "compare.h"

#include <fnmatch.h>
#include <jansson.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "escape.h"
#include "stats.h"
#include "ydoc.h"

/* ---- thresholds and gate files -------------------------------------------------------------- */

bool dra_compare_parse_threshold(const char *s, double *out)
{
    if (!s || !*s)
        return false;
    if (strcmp(s, "off") == 0 || strcmp(s, "none") == 0) {
        *out = -1;
        return true;
    }
    char *end;
    double v = strtod(s, &end);
    if (end == s || !isfinite(v) || v < 0)
        return false;
    if (*end == '%')
        end++;
    if (*end)
        return false;
    *out = v / 100.0;
    return true;
}

typedef struct {
    dra_gate_t *g;
    dra_diag_t *d;
    int rc;
} gate_ctx_t;

static int gate_err(gate_ctx_t *c, const dra_ynode_t *n, const char *fmt, ...) DRA_PRINTF(3, 4);
static int gate_err(gate_ctx_t *c, const dra_ynode_t *n, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    c->rc = dra_diag_setv(c->d, DRA_EVALIDATE, c->g->path, n ? n->line : 0, n ? n->column : 0,
                          fmt, ap);
    va_end(ap);
    return c->rc;
}

static int gate_threshold(gate_ctx_t *c, const dra_ynode_t *n, const char *what, double *out)
{
    if (dra_ynode_is_scalar(n)) {
        dra_yscalar_kind_t k = dra_ynode_scalar_kind(n);
        if (k == DRA_YSCALAR_BOOL && (strcmp(n->text, "false") == 0 ||
                                      strcmp(n->text, "False") == 0 || strcmp(n->text, "FALSE") == 0)) {
            *out = -1;
            return DRA_OK;
        }
        if (k != DRA_YSCALAR_NULL && dra_compare_parse_threshold(n->text, out))
            return DRA_OK;
    }
    return gate_err(c, n, "%s: expected a threshold such as 5%% or off, got %s", what,
                    n && n->text ? n->text : dra_ynode_kind_name(n));
}

static int gate_doc(const dra_ynode_t *root, void *ud)
{
    gate_ctx_t *c = ud;
    dra_gate_t *g = c->g;
    if (!dra_ynode_is_map(root))
        return gate_err(c, root, "gate file: expected a map with default, alpha, metrics");
    for (uint32_t i = 0; i < root->n; i++) {
        const char *k = root->keys[i]->text;
        const dra_ynode_t *v = root->vals[i];
        if (strcmp(k, "default") == 0) {
            if (gate_threshold(c, v, "default", &g->default_threshold))
                return c->rc;
            g->has_default = true;
        } else if (strcmp(k, "alpha") == 0) {
            if (dra_ynode_double(v, g->path, "alpha", &g->alpha, c->d) != DRA_OK)
                return c->rc = DRA_EVALIDATE;
            if (!(g->alpha > 0 && g->alpha < 1))
                return gate_err(c, v, "alpha: must lie in (0, 1)");
            g->has_alpha = true;
        } else if (strcmp(k, "metrics") == 0) {
            if (dra_ynode_is_null(v))
                continue;
            if (!dra_ynode_is_map(v))
                return gate_err(c, v, "metrics: expected a map metric-pattern -> threshold");
            g->rules = dra_arena_calloc(&g->arena, v->n ? v->n : 1, sizeof *g->rules, 16);
            if (!g->rules)
                return c->rc = DRA_ENOMEM;
            for (uint32_t j = 0; j < v->n; j++) {
                dra_gate_rule_t *r = &g->rules[g->nrules];
                const dra_ynode_t *rv = v->vals[j];
                r->pattern = v->keys[j]->text;
                r->better = DRA_GATE_KEEP_BETTER;
                if (dra_ynode_is_map(rv)) {
                    const dra_ynode_t *t = dra_ynode_get(rv, "threshold");
                    const dra_ynode_t *b = dra_ynode_get(rv, "better");
                    for (uint32_t q = 0; q < rv->n; q++) {
                        const char *rk = rv->keys[q]->text;
                        if (strcmp(rk, "threshold") != 0 && strcmp(rk, "better") != 0)
                            return gate_err(c, rv->keys[q],
                                            "metrics.%s: unknown key '%s' (threshold, better)",
                                            r->pattern, rk);
                    }
                    if (!t)
                        return gate_err(c, rv, "metrics.%s: missing threshold", r->pattern);
                    if (gate_threshold(c, t, r->pattern, &r->threshold))
                        return c->rc;
                    if (b) {
                        const char *bs = b->text ? b->text : "";
                        if (strcmp(bs, "higher") == 0)
                            r->better = DRA_RLOAD_BETTER_HIGHER;
                        else if (strcmp(bs, "lower") == 0)
                            r->better = DRA_RLOAD_BETTER_LOWER;
                        else if (strcmp(bs, "none") == 0)
                            r->better = DRA_RLOAD_BETTER_NONE;
                        else
                            return gate_err(c, b, "metrics.%s.better: expected higher, lower or none",
                                            r->pattern);
                    }
                } else if (gate_threshold(c, rv, r->pattern, &r->threshold)) {
                    return c->rc;
                }
                g->nrules++;
            }
        } else {
            return gate_err(c, root->keys[i],
                            "gate file: unknown key '%s' (expected default, alpha, metrics)", k);
        }
    }
    return DRA_OK;
}

int dra_compare_gate_parse(const char *buf, size_t len, const char *name, dra_gate_t *out,
                           dra_diag_t *diag)
{
    memset(out, 0, sizeof *out);
    dra_arena_init(&out->arena, 16 * 1024);
    out->path = dra_arena_strdup(&out->arena, name);
    if (!out->path) {
        dra_compare_gate_fini(out);
        return DRA_ENOMEM;
    }
    gate_ctx_t c = {.g = out, .d = diag, .rc = DRA_OK};
    dra_diag_list_t errs;
    dra_diag_list_init(&errs);
    int rc = dra_ydoc_parse_auto(buf, len, out->path, &out->arena, 0, gate_doc, &c, &errs);
    if (rc != DRA_OK && errs.count && diag)
        *diag = errs.items[0];
    else if (rc != DRA_OK && c.rc == DRA_OK)
        dra_diag_set(diag, rc, out->path, 0, 0, "cannot parse gate file");
    dra_diag_list_fini(&errs);
    if (rc != DRA_OK) {
        /* the diagnostic outlives the arena: point it at the caller's name */
        if (diag && diag->file == out->path)
            diag->file = name;
        dra_compare_gate_fini(out);
        return rc;
    }
    return DRA_OK;
}

int dra_compare_gate_load(const char *path, dra_gate_t *out, dra_diag_t *diag)
{
    memset(out, 0, sizeof *out);
    char *buf;
    size_t len;
    int rc = dra_cli_read_file(path, (size_t)1 << 20, &buf, &len, diag);
    if (rc != DRA_OK)
        return rc;
    rc = dra_compare_gate_parse(buf, len, path, out, diag);
    free(buf);
    return rc;
}

void dra_compare_gate_fini(dra_gate_t *g)
{
    if (!g)
        return;
    dra_arena_fini(&g->arena);
    memset(g, 0, sizeof *g);
}

/* ---- formatting helpers --------------------------------------------------------------------- */

const char *dra_compare_display_unit(const char *unit)
{
    if (!unit || !*unit)
        return "";
    if (strcmp(unit, "ns") == 0)
        return "sec";
    return unit;
}

const char *dra_compare_fmt_value(double v, const char *unit, char *buf, size_t len)
{
    if (isnan(v)) {
        snprintf(buf, len, "?");
        return buf;
    }
    if (isinf(v)) {
        snprintf(buf, len, v > 0 ? "∞" : "-∞");
        return buf;
    }
    bool ns = unit && strcmp(unit, "ns") == 0;
    bool bytes = unit && (strcmp(unit, "B") == 0 || strcmp(unit, "bytes") == 0);
    if (ns)
        v /= 1e9;
    if (v == 0) {
        snprintf(buf, len, "0");
        return buf;
    }
    double a = fabs(v);
    const char *pfx = "";
    if (bytes) {
        static const char *const bp[] = {"", "Ki", "Mi", "Gi", "Ti"};
        int i = 0;
        while (a >= 1024 && i < 4) {
            a /= 1024;
            v /= 1024;
            i++;
        }
        pfx = bp[i];
    } else {
        static const char *const up[] = {"n", "µ", "m"};
        static const char *const dn[] = {"k", "M", "G", "T", "P"};
        if (a < 1) {
            int i = 2;
            while (a < 1 && i >= 0) {
                a *= 1000;
                v *= 1000;
                pfx = up[i--];
            }
        } else {
            int i = 0;
            while (a >= 1000 && i < 5) {
                a /= 1000;
                v /= 1000;
                pfx = dn[i++];
            }
        }
    }
    /* 4 significant digits; rounding may carry into the next decade (999.95 -> 1000). */
    int prec = a >= 99.995 ? 1 : a >= 9.9995 ? 2 : 3;
    snprintf(buf, len, "%.*f%s", prec, v, pfx);
    return buf;
}

static int metric_group(const char *m)
{
    if (strncmp(m, "throughput.", 11) == 0)
        return 0;
    if (strncmp(m, "latency.pod.", 12) == 0)
        return 1;
    if (strncmp(m, "latency.", 8) == 0)
        return 2;
    return 3;
}

static int suffix_rank(const char *m)
{
    const char *d = strrchr(m, '.');
    d = d ? d + 1 : m;
    static const char *const order[] = {"p50", "p90", "p95", "p99", "p999", "p9999", "max"};
    for (int i = 0; i < (int)DRA_ARRAY_LEN(order); i++)
        if (strcmp(d, order[i]) == 0)
            return i;
    return -1;
}

int dra_compare_metric_order(const char *a, const char *b)
{
    int ga = metric_group(a), gb = metric_group(b);
    if (ga != gb)
        return ga - gb;
    if (ga == 1 || ga == 2) {
        const char *da = strrchr(a, '.'), *db = strrchr(b, '.');
        size_t pa = (size_t)(da - a), pb = (size_t)(db - b);
        int c = strncmp(a, b, pa < pb ? pa : pb);
        if (c == 0 && pa != pb)
            c = pa < pb ? -1 : 1;
        if (c != 0)
            return c;
        int ra = suffix_rank(a), rb = suffix_rank(b);
        if (ra >= 0 && rb >= 0 && ra != rb)
            return ra - rb;
    }
    return strcmp(a, b);
}

const char *dra_compare_verdict_name(dra_compare_verdict_t v)
{
    switch (v) {
    case DRA_CMP_MISSING:
        return "missing";
    case DRA_CMP_NOCHANGE:
        return "no change";
    case DRA_CMP_IMPROVED:
        return "improved";
    case DRA_CMP_WORSE:
        return "worse";
    case DRA_CMP_REGRESSION:
        return "regression";
    case DRA_CMP_CHANGED:
        return "changed";
    }
    return "?";
}

/* ---- the comparison ------------------------------------------------------------------------- */

void dra_compare_opts_init(dra_compare_opts_t *o)
{
    memset(o, 0, sizeof *o);
    o->alpha = DRA_STATS_ALPHA;
    o->confidence = DRA_STATS_CONFIDENCE;
    o->threshold = DRA_COMPARE_DEFAULT_THRESHOLD;
}

/* Growable arrays in the report arena. */
typedef struct {
    dra_arena_t *a;
    int rc;
} build_t;

static void *grow(build_t *b, void *arr, size_t *cap, size_t n, size_t elem)
{
    if (n < *cap)
        return arr;
    size_t nc = *cap ? *cap * 2 : 16;
    void *p = dra_arena_realloc(b->a, arr, *cap * elem, nc * elem, 16);
    if (!p) {
        b->rc = DRA_ENOMEM;
        return NULL;
    }
    *cap = nc;
    return p;
}

static const char *bprintf(build_t *b, const char *fmt, ...) DRA_PRINTF(2, 3);
static const char *bprintf(build_t *b, const char *fmt, ...)
{
    char tmp[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(tmp, sizeof tmp, fmt, ap);
    va_end(ap);
    char *s = dra_arena_strdup(b->a, tmp);
    if (!s)
        b->rc = DRA_ENOMEM;
    return s ? s : "";
}

typedef struct {
    const char *name;
    const dra_rload_result_t **base, **cur;
    size_t nbase, ncur;
} scen_t;

static int find_scen(scen_t *s, size_t n, const char *name)
{
    for (size_t i = 0; i < n; i++)
        if (strcmp(s[i].name, name) == 0)
            return (int)i;
    return -1;
}

static bool same_inputs(const dra_rload_result_t *a, const dra_rload_result_t *b)
{
    return *a->scenario_hash && strcmp(a->scenario_hash, b->scenario_hash) == 0 &&
           strcmp(a->seed, b->seed) == 0 && strcmp(a->release, b->release) == 0 &&
           strcmp(a->features, b->features) == 0 && a->upstream_bugs == b->upstream_bugs &&
           strcmp(a->policy, b->policy) == 0;
}

static int cmp_names(const void *a, const void *b)
{
    return dra_compare_metric_order(*(const char *const *)a, *(const char *const *)b);
}

/* Metric facts: the first catalogue (base first) that describes it, else defaults. */
static void metric_meta(const dra_rload_result_t *base, size_t nbase, const dra_rload_result_t *cur,
                        size_t ncur, const char *m, const char **unit, int *better, bool *exact)
{
    for (size_t s = 0; s < 2; s++) {
        const dra_rload_result_t *rs = s ? cur : base;
        size_t n = s ? ncur : nbase;
        for (size_t i = 0; i < n; i++) {
            const dra_rload_metric_t *e = dra_rload_metric(&rs[i], m);
            if (e) {
                *unit = e->unit;
                *better = e->better;
                *exact = e->exact;
                return;
            }
        }
    }
    *better = dra_rload_default_better(m);
    *exact = false;
    if (strncmp(m, "latency.", 8) == 0)
        *unit = "ns";
    else if (strcmp(m, "throughput.claims_per_s") == 0)
        *unit = "claims/s";
    else if (strcmp(m, "throughput.pods_per_s") == 0)
        *unit = "pods/s";
    else
        *unit = "";
}

static void gate_for(const dra_compare_opts_t *o, const char *metric, double *thr, int *better)
{
    const dra_gate_t *g = o->gate;
    *thr = o->threshold;
    if (!g)
        return;
    if (g->has_default)
        *thr = g->default_threshold;
    for (size_t i = 0; i < g->nrules; i++)
        if (fnmatch(g->rules[i].pattern, metric, 0) == 0) {
            *thr = g->rules[i].threshold;
            if (g->rules[i].better != DRA_GATE_KEEP_BETTER)
                *better = g->rules[i].better;
            return;
        }
}

/* Collect samples of metric m from the files of one side. */
static double *samples(const dra_rload_result_t **files, size_t n, const char *m, size_t *out_n)
{
    size_t total = 0;
    for (size_t i = 0; i < n; i++)
        total += files[i]->nreps;
    double *x = malloc((total ? total : 1) * sizeof *x);
    size_t k = 0;
    if (x)
        for (size_t i = 0; i < n; i++)
            for (size_t j = 0; j < files[i]->nreps; j++) {
                double v;
                if (dra_rload_value(&files[i]->reps[j], m, &v) && !isnan(v))
                    x[k++] = v;
            }
    *out_n = k;
    return x;
}

static int side_stat(const double *x, size_t n, double confidence, bool exact,
                     dra_compare_side_stat_t *s)
{
    memset(s, 0, sizeof *s);
    s->n = n;
    s->median = NAN;
    s->lo = -INFINITY;
    s->hi = INFINITY;
    if (n == 0)
        return DRA_OK;
    dra_stats_ci_t ci;
    int rc = dra_stats_median_ci(x, n, confidence, &ci);
    if (rc != DRA_OK)
        return rc;
    s->median = ci.center;
    if (exact) {
        double lo = x[0], hi = x[0];
        for (size_t i = 1; i < n; i++) {
            lo = x[i] < lo ? x[i] : lo;
            hi = x[i] > hi ? x[i] : hi;
        }
        s->lo = lo;
        s->hi = hi;
        s->ci_finite = true;
    } else {
        s->lo = ci.lo;
        s->hi = ci.hi;
        s->ci_finite = ci.finite;
    }
    return DRA_OK;
}

static int compare_metric(const dra_compare_opts_t *o, double alpha, const scen_t *sc,
                          const char *m, const char *unit, int better, bool exact,
                          dra_compare_row_t *row)
{
    memset(row, 0, sizeof *row);
    row->scenario = sc->name;
    row->metric = m;
    row->unit = unit;
    row->better = better;
    row->exact = exact;
    row->p = NAN;
    row->delta = NAN;
    gate_for(o, m, &row->threshold, &row->better);
    size_t na, nb;
    double *a = samples(sc->base, sc->nbase, m, &na);
    double *b = samples(sc->cur, sc->ncur, m, &nb);
    int rc = (!a || !b) ? DRA_ENOMEM : DRA_OK;
    if (rc == DRA_OK)
        rc = side_stat(a, na, o->confidence, exact, &row->base);
    if (rc == DRA_OK)
        rc = side_stat(b, nb, o->confidence, exact, &row->cur);
    if (rc == DRA_OK && na && nb) {
        double bm = row->base.median, cm = row->cur.median;
        if (bm != 0)
            row->delta = cm / bm - 1.0;
        else
            row->delta = cm == 0 ? 0.0 : (cm > 0 ? INFINITY : -INFINITY);
        if (exact) {
            row->significant = bm != cm;
        } else {
            rc = dra_stats_mann_whitney(a, na, b, nb, &row->p, NULL);
            row->significant = rc == DRA_OK && row->p < alpha;
            row->few_samples = na < 4 || nb < 4;
        }
        if (!row->significant) {
            row->verdict = DRA_CMP_NOCHANGE;
        } else if (row->better == DRA_RLOAD_BETTER_NONE) {
            row->verdict = DRA_CMP_CHANGED;
        } else {
            bool worse = row->better == DRA_RLOAD_BETTER_HIGHER ? cm < bm : cm > bm;
            if (!worse)
                row->verdict = DRA_CMP_IMPROVED;
            else if (row->threshold < 0)
                row->verdict = DRA_CMP_CHANGED;
            else if (fabs(row->delta) > row->threshold)
                row->verdict = DRA_CMP_REGRESSION;
            else
                row->verdict = DRA_CMP_WORSE;
        }
    }
    free(a);
    free(b);
    return rc;
}

int dra_compare_run(const dra_rload_result_t *base, size_t nbase, const dra_rload_result_t *cur,
                    size_t ncur, const dra_compare_opts_t *opts, dra_compare_report_t *out)
{
    memset(out, 0, sizeof *out);
    dra_arena_init(&out->arena, 64 * 1024);
    if (!opts || nbase == 0 || ncur == 0)
        return DRA_EINVAL;
    dra_compare_opts_t o = *opts;
    if (o.confidence <= 0 || o.confidence >= 1)
        o.confidence = DRA_STATS_CONFIDENCE;
    double alpha = o.alpha > 0 && o.alpha < 1 ? o.alpha : DRA_STATS_ALPHA;
    if (o.gate && o.gate->has_alpha)
        alpha = o.gate->alpha;
    out->alpha = alpha;
    out->confidence = o.confidence;
    out->allow_digest_change = o.allow_digest_change;
    out->gate_path = o.gate ? o.gate->path : NULL;
    out->threshold = o.gate && o.gate->has_default ? o.gate->default_threshold : o.threshold;

    build_t b = {.a = &out->arena, .rc = DRA_OK};
    size_t cap_rows = 0, cap_geo = 0, cap_dig = 0, cap_viol = 0, cap_ob = 0, cap_on = 0,
           cap_warn = 0;

    /* files */
    out->files = dra_arena_calloc(&out->arena, nbase + ncur, sizeof *out->files, 16);
    if (!out->files)
        return DRA_ENOMEM;
    for (size_t i = 0; i < nbase + ncur; i++) {
        out->files[i].side = i < nbase ? "base" : "new";
        out->files[i].r = i < nbase ? &base[i] : &cur[i - nbase];
    }
    out->nfiles = nbase + ncur;

    /* scenarios, in order of first appearance */
    size_t nsc = 0;
    scen_t *sc = dra_arena_calloc(&out->arena, nbase + ncur, sizeof *sc, 16);
    const dra_rload_result_t **lists =
        dra_arena_calloc(&out->arena, 2 * (nbase + ncur) * (nbase + ncur), sizeof *lists, 16);
    if (!sc || !lists)
        return DRA_ENOMEM;
    for (size_t i = 0; i < nbase + ncur; i++) {
        const dra_rload_result_t *r = out->files[i].r;
        int k = find_scen(sc, nsc, r->scenario);
        if (k < 0) {
            k = (int)nsc++;
            sc[k].name = r->scenario;
            sc[k].base = lists + (size_t)k * 2 * (nbase + ncur);
            sc[k].cur = sc[k].base + (nbase + ncur);
        }
        if (i < nbase)
            sc[k].base[sc[k].nbase++] = r;
        else
            sc[k].cur[sc[k].ncur++] = r;
    }

    /* warnings about the inputs */
    for (size_t i = 0; i < out->nfiles && !b.rc; i++) {
        const dra_rload_result_t *r = out->files[i].r;
        const char **w = NULL;
        if (strcmp(r->status, "complete") != 0 || r->nreps == 0) {
            out->warn = grow(&b, out->warn, &cap_warn, out->nwarn, sizeof *out->warn);
            if (!out->warn)
                break;
            w = &out->warn[out->nwarn++];
            *w = bprintf(&b, "%s: status %s with %zu repetition(s)", r->path, r->status, r->nreps);
        }
    }
    for (size_t i = 1; i < out->nfiles && !b.rc; i++) {
        const dra_rload_result_t *r0 = out->files[0].r, *r = out->files[i].r;
        if (strcmp(r0->hostname, r->hostname) != 0 || strcmp(r0->cpu_model, r->cpu_model) != 0) {
            out->warn = grow(&b, out->warn, &cap_warn, out->nwarn, sizeof *out->warn);
            if (out->warn)
                out->warn[out->nwarn++] =
                    bprintf(&b, "files come from different hosts (%s, %s): timings may not be "
                                "comparable", *r0->hostname ? r0->hostname : "?",
                            *r->hostname ? r->hostname : "?");
            break;
        }
    }
    for (size_t i = 1; i < out->nfiles && !b.rc; i++) {
        const dra_rload_result_t *r0 = out->files[0].r, *r = out->files[i].r;
        if (strcmp(r0->build_type, r->build_type) != 0 || strcmp(r0->sanitize, r->sanitize) != 0) {
            out->warn = grow(&b, out->warn, &cap_warn, out->nwarn, sizeof *out->warn);
            if (out->warn)
                out->warn[out->nwarn++] = bprintf(
                    &b, "files come from different build configurations (%s%s%s, %s%s%s)",
                    r0->build_type, *r0->sanitize ? " +" : "", r0->sanitize, r->build_type,
                    *r->sanitize ? " +" : "", r->sanitize);
            break;
        }
    }

    /* metric names: union over all repetitions, in report order */
    size_t nm = 0, cap_m = 0;
    const char **mnames = NULL;
    for (size_t i = 0; i < out->nfiles && !b.rc; i++) {
        const dra_rload_result_t *r = out->files[i].r;
        for (size_t j = 0; j < r->nreps; j++)
            for (size_t k = 0; k < r->reps[j].nvalues; k++) {
                const char *m = r->reps[j].value_names[k];
                bool seen = false;
                for (size_t q = 0; q < nm && !seen; q++)
                    seen = strcmp(mnames[q], m) == 0;
                if (seen)
                    continue;
                mnames = grow(&b, mnames, &cap_m, nm, sizeof *mnames);
                if (!mnames)
                    return b.rc;
                mnames[nm++] = m;
            }
    }
    if (nm)
        qsort(mnames, nm, sizeof *mnames, cmp_names);

    /* rows and geomeans */
    for (size_t mi = 0; mi < nm && !b.rc; mi++) {
        const char *unit;
        int better;
        bool exact;
        metric_meta(base, nbase, cur, ncur, mnames[mi], &unit, &better, &exact);
        size_t first_row = out->nrows;
        for (size_t s = 0; s < nsc; s++) {
            if (!sc[s].nbase || !sc[s].ncur)
                continue;
            out->rows = grow(&b, out->rows, &cap_rows, out->nrows, sizeof *out->rows);
            if (!out->rows)
                return b.rc;
            dra_compare_row_t *row = &out->rows[out->nrows];
            int rc = compare_metric(&o, alpha, &sc[s], mnames[mi], unit, better, exact, row);
            if (rc != DRA_OK)
                return rc;
            if (row->base.n == 0 && row->cur.n == 0)
                continue;
            out->nrows++;
            if (row->verdict == DRA_CMP_REGRESSION)
                out->nregressions++;
            else if (row->verdict == DRA_CMP_IMPROVED)
                out->nimproved++;
        }
        /* geomean over rows with both medians > 0 */
        size_t n = 0;
        double *gb = malloc((out->nrows - first_row + 1) * sizeof *gb);
        double *gc = malloc((out->nrows - first_row + 1) * sizeof *gc);
        if (!gb || !gc) {
            free(gb);
            free(gc);
            return DRA_ENOMEM;
        }
        for (size_t r = first_row; r < out->nrows; r++) {
            const dra_compare_row_t *row = &out->rows[r];
            if (row->base.n && row->cur.n && row->base.median > 0 && row->cur.median > 0) {
                gb[n] = row->base.median;
                gc[n] = row->cur.median;
                n++;
            }
        }
        if (n) {
            out->geo = grow(&b, out->geo, &cap_geo, out->ngeo, sizeof *out->geo);
            if (out->geo) {
                dra_compare_geomean_t *g = &out->geo[out->ngeo++];
                g->metric = mnames[mi];
                g->unit = unit;
                g->n = n;
                g->base = dra_stats_geomean(gb, n);
                g->cur = dra_stats_geomean(gc, n);
                g->delta = g->cur / g->base - 1.0;
            }
        }
        free(gb);
        free(gc);
    }

    /* one-sided scenarios */
    for (size_t s = 0; s < nsc && !b.rc; s++) {
        if (!sc[s].ncur) {
            out->only_base = grow(&b, out->only_base, &cap_ob, out->nonly_base, sizeof(char *));
            if (out->only_base)
                out->only_base[out->nonly_base++] = sc[s].name;
        } else if (!sc[s].nbase) {
            out->only_new = grow(&b, out->only_new, &cap_on, out->nonly_new, sizeof(char *));
            if (out->only_new)
                out->only_new[out->nonly_new++] = sc[s].name;
        }
    }

    /* digests: pairs of files with equal inputs, and repetitions within a file */
    for (size_t i = 0; i < out->nfiles && !b.rc; i++) {
        const dra_rload_result_t *ri = out->files[i].r;
        for (size_t j = i + 1; j < out->nfiles && !b.rc; j++) {
            const dra_rload_result_t *rj = out->files[j].r;
            if (!same_inputs(ri, rj) || !*ri->digest || !*rj->digest ||
                strcmp(ri->digest, rj->digest) == 0)
                continue;
            const char *where = i < nbase && j >= nbase ? "base->new" : i < nbase ? "base" : "new";
            bool dup = false;
            for (size_t q = 0; q < out->ndigest && !dup; q++)
                dup = strcmp(out->digest[q].where, where) == 0 &&
                      strcmp(out->digest[q].digest_a, ri->digest) == 0 &&
                      strcmp(out->digest[q].digest_b, rj->digest) == 0;
            if (dup)
                continue;
            out->digest = grow(&b, out->digest, &cap_dig, out->ndigest, sizeof *out->digest);
            if (!out->digest)
                break;
            out->digest[out->ndigest++] = (dra_compare_digest_change_t){
                ri->scenario, ri->seed, where, ri->path, ri->digest, rj->path, rj->digest};
        }
        for (size_t k = 0; k < ri->nreps && !b.rc; k++) {
            const char *d = ri->reps[k].digest;
            if (!*d || !*ri->digest || strcmp(d, ri->digest) == 0)
                continue;
            out->digest = grow(&b, out->digest, &cap_dig, out->ndigest, sizeof *out->digest);
            if (!out->digest)
                break;
            out->digest[out->ndigest++] = (dra_compare_digest_change_t){
                ri->scenario, ri->seed, "repetition", ri->path, ri->digest,
                bprintf(&b, "%s repetition %lld", ri->path, (long long)ri->reps[k].index), d};
        }
    }

    /* violations */
    for (size_t i = 0; i < out->nfiles && !b.rc; i++) {
        const dra_rload_result_t *r = out->files[i].r;
        if (r->inv_violations <= 0)
            continue;
        out->viol = grow(&b, out->viol, &cap_viol, out->nviol, sizeof *out->viol);
        if (!out->viol)
            break;
        out->viol[out->nviol++] = (dra_compare_violation_t){
            out->files[i].side, r->path, r->scenario, (long long)r->inv_violations,
            r->nfirst ? r->first[0] : ""};
    }
    if (b.rc)
        return b.rc;

    if (out->nviol || (out->ndigest && !o.allow_digest_change))
        out->exit_status = DRA_EXIT_CORRECTNESS;
    else if (out->nregressions)
        out->exit_status = DRA_EXIT_REGRESSION;
    else
        out->exit_status = DRA_EXIT_OK;
    return DRA_OK;
}

void dra_compare_fini(dra_compare_report_t *r)
{
    if (!r)
        return;
    dra_arena_fini(&r->arena);
    memset(r, 0, sizeof *r);
}

/* ---- cells shared by the text and Markdown writers ------------------------------------------ */

static void fmt_n(const dra_compare_row_t *row, char *buf, size_t len)
{
    if (row->base.n == row->cur.n)
        snprintf(buf, len, "n=%zu", row->base.n);
    else
        snprintf(buf, len, "n=%zu+%zu", row->base.n, row->cur.n);
}

/* "12.35µ ± 2%" (or "12.35µ ± ∞ ¹" when the CI is not finite; exact metrics: value only). */
static void fmt_center(const dra_compare_side_stat_t *s, const char *unit, bool exact, char *buf,
                       size_t len)
{
    char v[48];
    if (s->n == 0) {
        snprintf(buf, len, "-");
        return;
    }
    dra_compare_fmt_value(s->median, unit, v, sizeof v);
    if (exact) {
        snprintf(buf, len, "%s", v);
    } else if (!s->ci_finite) {
        snprintf(buf, len, "%s ± ∞ ¹", v);
    } else {
        double pct = s->median != 0
                         ? 100.0 * fmax(s->hi - s->median, s->median - s->lo) / fabs(s->median)
                         : 0.0;
        snprintf(buf, len, "%s ± %.0f%%", v, pct);
    }
}

static void fmt_delta(const dra_compare_row_t *row, char *buf, size_t len)
{
    char n[32];
    fmt_n(row, n, sizeof n);
    if (row->base.n == 0 || row->cur.n == 0) {
        snprintf(buf, len, "%s", row->base.n ? "gone" : "new");
        return;
    }
    const char *sup = row->few_samples && !row->significant ? " ²" : "";
    if (row->exact) {
        if (!row->significant)
            snprintf(buf, len, "~ (exact %s)", n);
        else if (isinf(row->delta))
            snprintf(buf, len, "%s∞%% (exact %s)", row->delta > 0 ? "+" : "-", n);
        else
            snprintf(buf, len, "%+.2f%% (exact %s)", 100 * row->delta, n);
        return;
    }
    if (!row->significant)
        snprintf(buf, len, "~ (p=%.3f %s)%s", row->p, n, sup);
    else if (isinf(row->delta))
        snprintf(buf, len, "%s∞%% (p=%.3f %s)", row->delta > 0 ? "+" : "-", row->p, n);
    else
        snprintf(buf, len, "%+.2f%% (p=%.3f %s)", 100 * row->delta, row->p, n);
}

static void fmt_gate(const dra_compare_row_t *row, char *buf, size_t len)
{
    switch (row->verdict) {
    case DRA_CMP_REGRESSION:
        snprintf(buf, len, "REGRESSION (limit %g%%)", 100 * row->threshold);
        break;
    case DRA_CMP_WORSE:
        snprintf(buf, len, "worse, within %g%%", 100 * row->threshold);
        break;
    case DRA_CMP_IMPROVED:
        snprintf(buf, len, "improved");
        break;
    case DRA_CMP_CHANGED:
        snprintf(buf, len, "changed (not gated)");
        break;
    case DRA_CMP_NOCHANGE:
    case DRA_CMP_MISSING:
        buf[0] = '\0';
        break;
    }
}

static const char *better_text(int better)
{
    return better == DRA_RLOAD_BETTER_HIGHER  ? "higher is better"
           : better == DRA_RLOAD_BETTER_LOWER ? "lower is better"
                                              : "informational";
}

static size_t dwidth(const char *s)
{
    size_t w = 0;
    for (; *s; s++)
        w += ((unsigned char)*s & 0xC0) != 0x80;
    return w;
}

static void pad(FILE *f, const char *s, size_t w, bool right)
{
    size_t d = dwidth(s);
    if (right)
        for (size_t i = d; i < w; i++)
            fputc(' ', f);
    fputs(s, f);
    if (!right)
        for (size_t i = d; i < w; i++)
            fputc(' ', f);
}

static bool any_ci_infinite(const dra_compare_report_t *r)
{
    for (size_t i = 0; i < r->nrows; i++) {
        const dra_compare_row_t *row = &r->rows[i];
        if (!row->exact && ((row->base.n && !row->base.ci_finite) ||
                            (row->cur.n && !row->cur.ci_finite)))
            return true;
    }
    return false;
}

static bool any_few(const dra_compare_report_t *r)
{
    for (size_t i = 0; i < r->nrows; i++)
        if (r->rows[i].few_samples && !r->rows[i].significant && !r->rows[i].exact)
            return true;
    return false;
}

static const char *short_digest(const char *d)
{
    return d && *d ? d : "(none)";
}

static void gate_line(const dra_compare_report_t *r, const dra_compare_row_t *row, FILE *f)
{
    (void)r;
    char got[48], want[48], basev[48];
    double lim = row->better == DRA_RLOAD_BETTER_HIGHER ? row->base.median * (1 - row->threshold)
                                                        : row->base.median * (1 + row->threshold);
    dra_compare_fmt_value(row->cur.median, row->unit, got, sizeof got);
    dra_compare_fmt_value(lim, row->unit, want, sizeof want);
    dra_compare_fmt_value(row->base.median, row->unit, basev, sizeof basev);
    const char *du = dra_compare_display_unit(row->unit);
    fprintf(f,
            "expected %s of %s to be %s: got %s%s%s, want %s %s%s%s (base %s %s %g%%, %+.2f%%)\n",
            row->metric, row->scenario,
            row->better == DRA_RLOAD_BETTER_HIGHER ? "higher" : "lower", got, *du ? " " : "", du,
            row->better == DRA_RLOAD_BETTER_HIGHER ? ">=" : "<=", want, *du ? " " : "", du, basev,
            row->better == DRA_RLOAD_BETTER_HIGHER ? "-" : "+", 100 * row->threshold,
            100 * row->delta);
}

void dra_compare_write_gate_lines(const dra_compare_report_t *r, FILE *f)
{
    for (size_t i = 0; i < r->nrows; i++)
        if (r->rows[i].verdict == DRA_CMP_REGRESSION)
            gate_line(r, &r->rows[i], f);
    for (size_t i = 0; i < r->ndigest; i++) {
        const dra_compare_digest_change_t *d = &r->digest[i];
        fprintf(f, "decision digest of %s (seed %s) changed%s: %s (%s) vs %s (%s)%s\n",
                d->scenario, *d->seed ? d->seed : "?",
                strcmp(d->where, "base->new") == 0 ? "" : " within one side", d->digest_a,
                d->file_a, d->digest_b, d->file_b,
                r->allow_digest_change ? " [allowed by --allow-digest-change]" : "");
    }
    for (size_t i = 0; i < r->nviol; i++)
        fprintf(f, "invariant violated in %s (%s, %s): %lld violation(s)%s%s\n", r->viol[i].file,
                r->viol[i].side, r->viol[i].scenario, r->viol[i].count,
                *r->viol[i].first ? "; first: " : "", r->viol[i].first);
}

static const char *status_text(const dra_compare_report_t *r)
{
    switch (r->exit_status) {
    case DRA_EXIT_OK:
        return "PASS";
    case DRA_EXIT_REGRESSION:
        return "FAIL: regression";
    default:
        return "FAIL: correctness";
    }
}

static void md_escape(FILE *f, const char *s)
{
    dra_esc_md(f, s);
}

/* One table row: "| a | b | ... |", every cell escaped (escape.h) except those whose bit is set
 * in raw (text this file wrote itself, such as **REGRESSION**); cells whose bit is set in code
 * are code spans. */
static void md_row_code(FILE *f, const char *const *cells, size_t n, unsigned raw, unsigned code)
{
    for (size_t i = 0; i < n; i++) {
        fputs("| ", f);
        if (raw & (1u << i))
            fputs(cells[i], f);
        else if (code & (1u << i))
            dra_esc_md_code(f, cells[i] ? cells[i] : "");
        else
            dra_esc_md(f, cells[i] ? cells[i] : "");
        fputc(' ', f);
    }
    fputs("|\n", f);
}

static void md_row(FILE *f, const char *const *cells, size_t n, unsigned raw)
{
    md_row_code(f, cells, n, raw, 0);
}

/* ---- text ----------------------------------------------------------------------------------- */

static void write_files_text(const dra_compare_report_t *r, FILE *f, bool md)
{
    if (md)
        fputs("| side | file | scenario | seed | reps | commit | build | host | date |\n"
              "| --- | --- | --- | --- | ---: | --- | --- | --- | --- |\n",
              f);
    for (size_t i = 0; i < r->nfiles; i++) {
        const dra_rload_result_t *x = r->files[i].r;
        if (md) {
            char reps[32], build[600];
            snprintf(reps, sizeof reps, "%zu", x->nreps);
            snprintf(build, sizeof build, "%s%s%s", *x->build_type ? x->build_type : "-",
                     *x->sanitize ? " +" : "", x->sanitize);
            const char *cells[] = {r->files[i].side, x->path, x->scenario, *x->seed ? x->seed : "-",
                                   reps, *x->tool_git ? x->tool_git : "-", build,
                                   *x->hostname ? x->hostname : "-", *x->date ? x->date : "-"};
            md_row_code(f, cells, DRA_ARRAY_LEN(cells), 0, 1u << 1);
        } else
            fprintf(f, "%-4s  %s: %s seed=%s reps=%zu commit=%s build=%s%s%s host=%s date=%s\n",
                    r->files[i].side, x->path, x->scenario, *x->seed ? x->seed : "-", x->nreps,
                    *x->tool_git ? x->tool_git : "-", *x->build_type ? x->build_type : "-",
                    *x->sanitize ? "+" : "", x->sanitize, *x->hostname ? x->hostname : "-",
                    *x->date ? x->date : "-");
    }
    fputc('\n', f);
}

static const dra_compare_geomean_t *geo_of(const dra_compare_report_t *r, const char *metric)
{
    for (size_t i = 0; i < r->ngeo; i++)
        if (strcmp(r->geo[i].metric, metric) == 0)
            return &r->geo[i];
    return NULL;
}

enum { NCOL = 5 };

static void row_cells(const dra_compare_row_t *row, char cells[NCOL][96])
{
    snprintf(cells[0], 96, "%s", row->scenario);
    fmt_center(&row->base, row->unit, row->exact, cells[1], 96);
    fmt_center(&row->cur, row->unit, row->exact, cells[2], 96);
    fmt_delta(row, cells[3], 96);
    fmt_gate(row, cells[4], 96);
}

static void geo_cells(const dra_compare_geomean_t *g, char cells[NCOL][96])
{
    snprintf(cells[0], 96, "geomean");
    dra_compare_fmt_value(g->base, g->unit, cells[1], 96);
    dra_compare_fmt_value(g->cur, g->unit, cells[2], 96);
    snprintf(cells[3], 96, "%+.2f%%", 100 * g->delta);
    cells[4][0] = '\0';
}

int dra_compare_write_text(const dra_compare_report_t *r, FILE *f)
{
    write_files_text(r, f, false);
    for (size_t i = 0; i < r->nrows;) {
        size_t j = i;
        while (j < r->nrows && strcmp(r->rows[j].metric, r->rows[i].metric) == 0)
            j++;
        const dra_compare_row_t *h = &r->rows[i];
        const dra_compare_geomean_t *g = geo_of(r, h->metric);
        char cells[NCOL][96];
        size_t w[NCOL] = {0};
        const char *du = dra_compare_display_unit(h->unit);
        const char *hdr[NCOL] = {h->metric, "base", "new", "vs base", ""};
        for (int c = 0; c < NCOL; c++)
            w[c] = dwidth(hdr[c]);
        w[1] = DRA_MAX(w[1], dwidth(du));
        w[2] = DRA_MAX(w[2], dwidth(du));
        for (size_t k = i; k < j + (g ? 1 : 0); k++) {
            if (k < j)
                row_cells(&r->rows[k], cells);
            else
                geo_cells(g, cells);
            for (int c = 0; c < NCOL; c++)
                w[c] = DRA_MAX(w[c], dwidth(cells[c]));
        }
        fprintf(f, "%s (%s%s%s)\n", h->metric, *h->unit ? h->unit : "", *h->unit ? ", " : "",
                better_text(h->better));
        /* header rows */
        pad(f, "", w[0], false);
        fputs(" │ ", f);
        pad(f, "base", w[1], false);
        fputs(" │ ", f);
        pad(f, "new", w[2], false);
        fputs("   ", f);
        pad(f, "", w[3], false);
        fputs(" │\n", f);
        pad(f, "", w[0], false);
        fputs(" │ ", f);
        pad(f, du, w[1], false);
        fputs(" │ ", f);
        pad(f, du, w[2], false);
        fputs("   ", f);
        pad(f, "vs base", w[3], false);
        fputs(" │\n", f);
        for (size_t k = i; k < j + (g ? 1 : 0); k++) {
            if (k < j)
                row_cells(&r->rows[k], cells);
            else
                geo_cells(g, cells);
            pad(f, cells[0], w[0], false);
            fputs("   ", f);
            pad(f, cells[1], w[1], false);
            fputs("   ", f);
            pad(f, cells[2], w[2], false);
            fputs("   ", f);
            if (cells[4][0]) {
                pad(f, cells[3], w[3], false);
                fputs("   ", f);
                fputs(cells[4], f);
            } else {
                fputs(cells[3], f);
            }
            fputc('\n', f);
        }
        fputc('\n', f);
        i = j;
    }
    if (any_ci_infinite(r))
        fprintf(f, "¹ need >= %d samples for confidence interval at level %g\n",
                dra_stats_median_ci_min_samples(r->confidence), r->confidence);
    if (any_few(r))
        fprintf(f, "² need >= 4 samples to detect a difference at alpha level %g\n", r->alpha);
    if (any_ci_infinite(r) || any_few(r))
        fputc('\n', f);

    if (r->ndigest) {
        fprintf(f, "DECISION DIGEST CHANGED (same scenario hash, seed and profile; different "
                   "allocations)%s:\n",
                r->allow_digest_change ? " [allowed]" : "");
        for (size_t i = 0; i < r->ndigest; i++) {
            const dra_compare_digest_change_t *d = &r->digest[i];
            fprintf(f, "  %s seed %s (%s): %s %s -> %s %s\n", d->scenario,
                    *d->seed ? d->seed : "?", d->where, short_digest(d->digest_a), d->file_a,
                    short_digest(d->digest_b), d->file_b);
        }
        fputc('\n', f);
    }
    if (r->nviol) {
        fputs("INVARIANT VIOLATIONS:\n", f);
        for (size_t i = 0; i < r->nviol; i++)
            fprintf(f, "  %s %s (%s): %lld%s%s\n", r->viol[i].side, r->viol[i].file,
                    r->viol[i].scenario, r->viol[i].count, *r->viol[i].first ? "; first: " : "",
                    r->viol[i].first);
        fputc('\n', f);
    }
    for (size_t i = 0; i < r->nonly_base; i++)
        fprintf(f, "only in base: %s\n", r->only_base[i]);
    for (size_t i = 0; i < r->nonly_new; i++)
        fprintf(f, "only in new: %s\n", r->only_new[i]);
    for (size_t i = 0; i < r->nwarn; i++)
        fprintf(f, "warning: %s\n", r->warn[i]);
    if (r->nonly_base || r->nonly_new || r->nwarn)
        fputc('\n', f);
    char thr[32];
    if (r->threshold < 0)
        snprintf(thr, sizeof thr, "off");
    else
        snprintf(thr, sizeof thr, "%g%%", 100 * r->threshold);
    fprintf(f, "gate: %s (exit %d): %zu regression(s), %zu improvement(s), %zu digest change(s), "
               "%zu file(s) with violations; alpha %g, threshold %s%s%s\n",
            status_text(r), r->exit_status, r->nregressions, r->nimproved, r->ndigest, r->nviol,
            r->alpha, thr, r->gate_path ? ", gate file " : "", r->gate_path ? r->gate_path : "");
    dra_compare_write_gate_lines(r, f);
    return ferror(f) ? DRA_EIO : DRA_OK;
}

/* ---- Markdown ------------------------------------------------------------------------------- */

int dra_compare_write_md(const dra_compare_report_t *r, FILE *f)
{
    fprintf(f, "## drabench compare: %s\n\n", status_text(r));
    char thr[32];
    if (r->threshold < 0)
        snprintf(thr, sizeof thr, "off");
    else
        snprintf(thr, sizeof thr, "%g%%", 100 * r->threshold);
    fprintf(f, "Exit status %d: %zu regression(s), %zu improvement(s), %zu decision digest "
               "change(s), %zu file(s) with invariant violations. Mann-Whitney U test at alpha "
               "%g, %g%% confidence intervals of the median, threshold %s.\n\n",
            r->exit_status, r->nregressions, r->nimproved, r->ndigest, r->nviol, r->alpha,
            100 * r->confidence, thr);
    if (r->gate_path) {
        fputs("Gate file: ", f);
        md_escape(f, r->gate_path);
        fputs(".\n\n", f);
    }
    if (r->exit_status != DRA_EXIT_OK) {
        fputs("```\n", f);
        dra_compare_write_gate_lines(r, f);
        fputs("```\n\n", f);
    }
    if (r->ndigest) {
        fprintf(f, "### Decision digest changed%s\n\nSame scenario hash, seed and release "
                   "profile gave different allocations.\n\n"
                   "| scenario | seed | where | digest | file | digest | file |\n"
                   "| --- | --- | --- | --- | --- | --- | --- |\n",
                r->allow_digest_change ? " (allowed)" : "");
        for (size_t i = 0; i < r->ndigest; i++) {
            const dra_compare_digest_change_t *d = &r->digest[i];
            const char *cells[] = {d->scenario, *d->seed ? d->seed : "-", d->where,
                                   short_digest(d->digest_a), d->file_a,
                                   short_digest(d->digest_b), d->file_b};
            md_row_code(f, cells, DRA_ARRAY_LEN(cells), 0, 0x78u);
        }
        fputc('\n', f);
    }
    if (r->nviol) {
        fputs("### Invariant violations\n\n| side | file | scenario | violations | first |\n"
              "| --- | --- | --- | ---: | --- |\n",
              f);
        for (size_t i = 0; i < r->nviol; i++) {
            char cnt[32];
            snprintf(cnt, sizeof cnt, "%lld", r->viol[i].count);
            const char *cells[] = {r->viol[i].side, r->viol[i].file, r->viol[i].scenario, cnt,
                                   r->viol[i].first};
            md_row_code(f, cells, DRA_ARRAY_LEN(cells), 0, 1u << 1);
        }
        fputc('\n', f);
    }
    fputs("### Inputs\n\n", f);
    write_files_text(r, f, true);
    fputs("### Results\n\n", f);
    for (size_t i = 0; i < r->nrows;) {
        size_t j = i;
        while (j < r->nrows && strcmp(r->rows[j].metric, r->rows[i].metric) == 0)
            j++;
        const dra_compare_row_t *h = &r->rows[i];
        const dra_compare_geomean_t *g = geo_of(r, h->metric);
        const char *du = dra_compare_display_unit(h->unit);
        fputs("**", f);
        md_escape(f, h->metric);
        fputs("** (", f);
        md_escape(f, du);
        fprintf(f, "%s%s)\n\n", *du ? ", " : "", better_text(h->better));
        fputs("| scenario | base | new | vs base | gate |\n| --- | ---: | ---: | ---: | --- |\n", f);
        char cells[NCOL][96];
        for (size_t k = i; k < j + (g ? 1 : 0); k++) {
            if (k < j)
                row_cells(&r->rows[k], cells);
            else
                geo_cells(g, cells);
            const char *row[] = {k < j ? cells[0] : "*geomean*", cells[1], cells[2], cells[3],
                                 r->rows[k < j ? k : i].verdict == DRA_CMP_REGRESSION && k < j
                                     ? "**REGRESSION**"
                                     : cells[4]};
            /* the geomean row is in italics (written here, not escaped) */
            md_row(f, row, DRA_ARRAY_LEN(row), (k < j ? 0u : 1u) | (k < j && row[4] != cells[4] ? 16u : 0u));
        }
        fputc('\n', f);
        i = j;
    }
    if (any_ci_infinite(r))
        fprintf(f, "¹ need >= %d samples for confidence interval at level %g  \n",
                dra_stats_median_ci_min_samples(r->confidence), r->confidence);
    if (any_few(r))
        fprintf(f, "² need >= 4 samples to detect a difference at alpha level %g  \n", r->alpha);
    if (any_ci_infinite(r) || any_few(r))
        fputc('\n', f);
    if (r->nonly_base || r->nonly_new) {
        fputs("### Scenarios on one side only\n\n", f);
        for (size_t i = 0; i < r->nonly_base; i++) {
            fputs("- only in base: ", f);
            md_escape(f, r->only_base[i]);
            fputc('\n', f);
        }
        for (size_t i = 0; i < r->nonly_new; i++) {
            fputs("- only in new: ", f);
            md_escape(f, r->only_new[i]);
            fputc('\n', f);
        }
        fputc('\n', f);
    }
    if (r->nwarn) {
        fputs("### Warnings\n\n", f);
        for (size_t i = 0; i < r->nwarn; i++) {
            fputs("- ", f);
            md_escape(f, r->warn[i]);
            fputc('\n', f);
        }
        fputc('\n', f);
    }
    return ferror(f) ? DRA_EIO : DRA_OK;
}

/* ---- JSON ----------------------------------------------------------------------------------- */

static json_t *jnum(double v)
{
    return isfinite(v) ? json_real(v) : json_null();
}

static json_t *jside(const dra_compare_side_stat_t *s)
{
    return json_pack("{s:I, s:o, s:o, s:o}", "n", (json_int_t)s->n, "median", jnum(s->median),
                     "lo", jnum(s->lo), "hi", jnum(s->hi));
}

static const char *better_name(int b)
{
    return b == DRA_RLOAD_BETTER_HIGHER ? "higher" : b == DRA_RLOAD_BETTER_LOWER ? "lower" : "none";
}

int dra_compare_write_json(const dra_compare_report_t *r, FILE *f)
{
    json_t *root = json_object(), *rows = json_array(), *geo = json_array(), *dig = json_array(),
           *viol = json_array(), *files = json_array(), *ob = json_array(), *on = json_array(),
           *warn = json_array();
    if (!root || !rows || !geo || !dig || !viol || !files || !ob || !on || !warn) {
        json_decref(root);
        json_decref(rows);
        json_decref(geo);
        json_decref(dig);
        json_decref(viol);
        json_decref(files);
        json_decref(ob);
        json_decref(on);
        json_decref(warn);
        return DRA_ENOMEM;
    }
    for (size_t i = 0; i < r->nfiles; i++) {
        const dra_rload_result_t *x = r->files[i].r;
        json_array_append_new(
            files, json_pack("{s:s, s:s, s:s, s:s, s:s, s:s, s:s, s:I, s:s}", "side",
                             r->files[i].side, "path", x->path, "scenario", x->scenario, "seed",
                             x->seed, "git", x->tool_git, "host", x->hostname, "date", x->date,
                             "repetitions", (json_int_t)x->nreps, "digest", x->digest));
    }
    for (size_t i = 0; i < r->nrows; i++) {
        const dra_compare_row_t *row = &r->rows[i];
        json_array_append_new(
            rows, json_pack("{s:s, s:s, s:s, s:s, s:b, s:o, s:o, s:o, s:o, s:b, s:o, s:s}",
                            "scenario", row->scenario, "metric", row->metric, "unit", row->unit,
                            "better", better_name(row->better), "exact", row->exact, "base",
                            jside(&row->base), "new", jside(&row->cur), "delta_pct",
                            jnum(100 * row->delta), "p", jnum(row->p), "significant",
                            row->significant, "threshold_pct",
                            row->threshold < 0 ? json_null() : jnum(100 * row->threshold),
                            "verdict", dra_compare_verdict_name(row->verdict)));
    }
    for (size_t i = 0; i < r->ngeo; i++) {
        const dra_compare_geomean_t *g = &r->geo[i];
        json_array_append_new(geo, json_pack("{s:s, s:s, s:I, s:o, s:o, s:o}", "metric", g->metric,
                                             "unit", g->unit, "n", (json_int_t)g->n, "base",
                                             jnum(g->base), "new", jnum(g->cur), "delta_pct",
                                             jnum(100 * g->delta)));
    }
    for (size_t i = 0; i < r->ndigest; i++) {
        const dra_compare_digest_change_t *d = &r->digest[i];
        json_array_append_new(dig, json_pack("{s:s, s:s, s:s, s:s, s:s, s:s, s:s}", "scenario",
                                             d->scenario, "seed", d->seed, "where", d->where,
                                             "file_a", d->file_a, "digest_a", d->digest_a,
                                             "file_b", d->file_b, "digest_b", d->digest_b));
    }
    for (size_t i = 0; i < r->nviol; i++)
        json_array_append_new(viol, json_pack("{s:s, s:s, s:s, s:I, s:s}", "side", r->viol[i].side,
                                              "file", r->viol[i].file, "scenario",
                                              r->viol[i].scenario, "violations",
                                              (json_int_t)r->viol[i].count, "first",
                                              r->viol[i].first));
    for (size_t i = 0; i < r->nonly_base; i++)
        json_array_append_new(ob, json_string(r->only_base[i]));
    for (size_t i = 0; i < r->nonly_new; i++)
        json_array_append_new(on, json_string(r->only_new[i]));
    for (size_t i = 0; i < r->nwarn; i++)
        json_array_append_new(warn, json_string(r->warn[i]));
    json_object_set_new(root, "schema", json_string(DRA_COMPARE_SCHEMA));
    json_object_set_new(root, "exit_status", json_integer(r->exit_status));
    json_object_set_new(root, "alpha", json_real(r->alpha));
    json_object_set_new(root, "confidence", json_real(r->confidence));
    json_object_set_new(root, "threshold_pct",
                        r->threshold < 0 ? json_null() : json_real(100 * r->threshold));
    json_object_set_new(root, "gate_file", r->gate_path ? json_string(r->gate_path) : json_null());
    json_object_set_new(root, "allow_digest_change", json_boolean(r->allow_digest_change));
    json_object_set_new(root, "regressions", json_integer((json_int_t)r->nregressions));
    json_object_set_new(root, "improvements", json_integer((json_int_t)r->nimproved));
    json_object_set_new(root, "files", files);
    json_object_set_new(root, "rows", rows);
    json_object_set_new(root, "geomean", geo);
    json_object_set_new(root, "digest_changes", dig);
    json_object_set_new(root, "violations", viol);
    json_object_set_new(root, "only_base", ob);
    json_object_set_new(root, "only_new", on);
    json_object_set_new(root, "warnings", warn);
    int rc = json_dumpf(root, f, JSON_INDENT(2) | JSON_SORT_KEYS | JSON_REAL_PRECISION(15));
    fputc('\n', f);
    json_decref(root);
    return rc == 0 && !ferror(f) ? DRA_OK : DRA_EIO;
}
