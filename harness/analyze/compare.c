/* compare.c - comparison tables and the regression gate; see compare.h. */
#include "compare.h"

#include <fnmatch.h>
#include <jansson.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "exitcode.h"
#include "files.h"
#include "hist.h"
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
    size_t n = dra_io_decimal_len(s); /* decimal only: no space, hex or "inf" */
    double v = n ? strtod(s, NULL) : -1;
    if (!n || !isfinite(v) || v < 0)
        return false;
    const char *end = s + n;
    if (*end == '%')
        end++;
    if (*end)
        return false;
    *out = v / 100.0;
    return true;
}

bool dra_compare_parse_across(const char *s, unsigned *mask)
{
    static const struct {
        const char *name;
        unsigned bit;
    } dims[] = {{"release", DRA_ACROSS_RELEASE}, {"policy", DRA_ACROSS_POLICY},
                {"seed", DRA_ACROSS_SEED},       {"count", DRA_ACROSS_COUNT},
                {"allocator", DRA_ACROSS_ALLOCATOR}};
    if (!s || !*s)
        return false;
    while (*s) {
        size_t n = strcspn(s, ",");
        bool found = false;
        for (size_t i = 0; i < DRA_ARRAY_LEN(dims) && !found; i++)
            if (strlen(dims[i].name) == n && strncmp(s, dims[i].name, n) == 0) {
                *mask |= dims[i].bit;
                found = true;
            }
        if (!found)
            return false;
        s += n;
        if (*s == ',')
            s++;
    }
    return true;
}

typedef struct {
    dra_compare_gate_t *g;
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
    dra_compare_gate_t *g = c->g;
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
        } else if (strcmp(k, "noise_floor") == 0) {
            const char *t = dra_ynode_is_scalar(v) && v->text ? v->text : "";
            size_t nd = dra_io_decimal_len(t); /* decimal only */
            const char *end = t + nd;
            double x = nd ? strtod(t, NULL) : 0;
            double mul = 0;
            if (nd) {
                if (strcmp(end, "ns") == 0 || (*end == '\0' && x == 0))
                    mul = 1;
                else if (strcmp(end, "us") == 0 || strcmp(end, "µs") == 0)
                    mul = 1e3;
                else if (strcmp(end, "ms") == 0)
                    mul = 1e6;
            }
            if (!(mul > 0) || !(x >= 0) || !isfinite(x))
                return gate_err(c, v, "noise_floor: expected a duration such as 100ns, 2us or 0");
            /* a floor that overflows (1e306ms is infinite) or exceeds the largest latency the
             * histograms hold would silence every latency change */
            if (!(x * mul <= (double)DRA_HIST_HIGHEST))
                return gate_err(c, v, "noise_floor: at most %.0fms (the histograms' range), "
                                      "got %s", (double)DRA_HIST_HIGHEST / 1e6, t);
            g->noise_floor_ns = x * mul;
            g->has_noise_floor = true;
        } else if (strcmp(k, "metrics") == 0) {
            if (dra_ynode_is_null(v))
                continue;
            if (!dra_ynode_is_map(v))
                return gate_err(c, v, "metrics: expected a map metric-pattern -> threshold");
            g->rules = dra_arena_calloc(&g->arena, v->n ? v->n : 1, sizeof *g->rules, 16);
            if (!g->rules)
                return c->rc = DRA_ENOMEM;
            for (uint32_t j = 0; j < v->n; j++) {
                dra_compare_gate_rule_t *r = &g->rules[g->nrules];
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
                            "gate file: unknown key '%s' (expected default, alpha, noise_floor, metrics)",
                            k);
        }
    }
    return DRA_OK;
}

int dra_compare_gate_parse(const char *buf, size_t len, const char *name, dra_compare_gate_t *out,
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

int dra_compare_gate_load(const char *path, dra_compare_gate_t *out, dra_diag_t *diag)
{
    memset(out, 0, sizeof *out);
    char *buf;
    size_t len;
    int rc = dra_io_read_file(path, (size_t)1 << 20, &buf, &len, diag);
    if (rc != DRA_OK)
        return rc;
    rc = dra_compare_gate_parse(buf, len, path, out, diag);
    free(buf);
    return rc;
}

void dra_compare_gate_fini(dra_compare_gate_t *g)
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

const char *dra_compare_fmt_value_unit(double v, const char *unit, char *buf, size_t len)
{
    char num[48];
    dra_compare_fmt_value(v, unit, num, sizeof num);
    if (!isfinite(v)) {
        snprintf(buf, len, "%s", num);
        return buf;
    }
    bool ns = unit && strcmp(unit, "ns") == 0;
    bool bytes = unit && (strcmp(unit, "B") == 0 || strcmp(unit, "bytes") == 0);
    bool bare = !unit || !*unit || strcmp(unit, "count") == 0 || strcmp(unit, "fraction") == 0;
    /* split "12.35µ" into the number and its prefix, then attach the unit to the prefix */
    size_t k = strspn(num, "-+0123456789.");
    if (bare)
        snprintf(buf, len, "%s", num);
    else if (ns)
        snprintf(buf, len, "%.*s %ss", (int)k, num, num + k);
    else if (bytes)
        snprintf(buf, len, "%.*s %sB", (int)k, num, num + k);
    else
        snprintf(buf, len, "%.*s%s %s", (int)k, num, num + k, unit);
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
    if (strncmp(m, "rejection.pod.", 14) == 0)
        return 3;
    if (strncmp(m, "rejection.", 10) == 0)
        return 4;
    return 5;
}

/* A latency percentile of pods: latency.* (placed pods) or rejection.* (rejected ones). */
static bool is_pod_latency(const char *m)
{
    return strncmp(m, "latency.", 8) == 0 || strncmp(m, "rejection.", 10) == 0;
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
    if (ga >= 1 && ga <= 4) {
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
    case DRA_CMP_INCONCLUSIVE:
        return "inconclusive";
    case DRA_CMP_REFUSED:
        return "refused";
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
    o->noise_floor_ns = DRA_COMPARE_NOISE_FLOOR_NS;
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
    dra_msg_vformat(tmp, sizeof tmp, fmt, ap); /* paths and names from inputs: terminal-safe */
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
           strcmp(a->policy, b->policy) == 0 && a->workload_count == b->workload_count;
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
    else if (strcmp(m, "throughput.claims_per_s") == 0 ||
             strcmp(m, "throughput.group_claims_per_s") == 0)
        *unit = "claims/s";
    else if (strcmp(m, "throughput.pods_per_s") == 0)
        *unit = "pods/s";
    else
        *unit = "";
}

static void gate_for(const dra_compare_opts_t *o, const char *metric, double *thr, int *better)
{
    const dra_compare_gate_t *g = o->gate;
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

/* What compare_metric needs to know beyond the samples. */
typedef struct {
    bool hosts_differ;
    bool across; /* the sides differ in inputs on purpose: exact rows are information */
} row_ctx_t;

/* Smallest two-sided p the U test reaches with samples of na and nb values: 2 / C(na+nb, na). */
static double min_p(size_t na, size_t nb)
{
    double c = 1;
    for (size_t i = 1; i <= nb; i++)
        c = c * (double)(na + i) / (double)i;
    return c > 0 ? fmin(1.0, 2.0 / c) : 1.0;
}

/* Width of one HDR histogram bucket at value v (hist.h: 2048 sub-buckets at 3 digits). */
static double bucket_width(double v, int sigfigs)
{
    if (!(v >= 1))
        return 1;
    int mag = (int)ceil(log2(2.0 * pow(10.0, sigfigs)));
    int e = (int)floor(log2(v)) - (mag - 1);
    return e > 0 ? ldexp(1.0, e) : 1.0;
}

/* Quantile of a latency metric's suffix (p50 -> 0.5); -1 for max (one sample: never gated), 0
 * when the name is not a percentile. */
static double metric_quantile(const char *m)
{
    const char *d = strrchr(m, '.');
    if (!d)
        return 0;
    d++;
    if (strcmp(d, "max") == 0)
        return -1;
    if (d[0] != 'p' || !d[1])
        return 0;
    /* p50 = 0.50, p999 = 0.999, p9999 = 0.9999 */
    double q = 0, scale = 0.1;
    for (const char *c = d + 1; *c; c++) {
        if (*c < '0' || *c > '9')
            return 0;
        q += (*c - '0') * scale;
        scale /= 10;
    }
    return q;
}

/* Fewest pods of the metric's shape in one repetition over the files of both sides: the
 * histogram <shape>/pod/<outcome> (shape "all" for *.pod.*) whose pods the metric counts -
 * latency.* the placed pods (`allocated`; every pod, `any`, in files of timing version 1),
 * rejection.* the rejected ones (`unsatisfiable`); -1 when no file records it. */
static long long min_shape_pods(const scen_t *sc, const char *m)
{
    bool rej = strncmp(m, "rejection.", 10) == 0;
    const char *a = m + (rej ? 10 : 8), *d = strrchr(m, '.');
    if (!d || d <= a)
        return -1;
    size_t sl = (size_t)(d - a);
    bool all = sl == 3 && strncmp(a, "pod", 3) == 0;
    long long best = -1;
    for (int side = 0; side < 2; side++) {
        const dra_rload_result_t **fs = side ? sc->cur : sc->base;
        size_t n = side ? sc->ncur : sc->nbase;
        for (size_t i = 0; i < n; i++) {
            const char *oc = rej                          ? "unsatisfiable"
                             : fs[i]->timing_version >= 2 ? "allocated"
                                                          : "any";
            char hname[320];
            snprintf(hname, sizeof hname, "%.*s/pod/%s", all ? 3 : (int)sl, all ? "all" : a, oc);
            for (size_t j = 0; j < fs[i]->nreps; j++)
                for (size_t h = 0; h < fs[i]->reps[j].nhists; h++)
                    if (strcmp(fs[i]->reps[j].hists[h].name, hname) == 0) {
                        long long c = (long long)fs[i]->reps[j].hists[h].count;
                        if (best < 0 || c < best)
                            best = c;
                    }
        }
    }
    return best;
}

static double noise_floor(const scen_t *sc, double floor_ns, double bm, double cm)
{
    double f = floor_ns > 0 ? floor_ns : 0;
    for (int side = 0; side < 2; side++) {
        const dra_rload_result_t **fs = side ? sc->cur : sc->base;
        size_t n = side ? sc->ncur : sc->nbase;
        for (size_t i = 0; i < n; i++) { /* what clock_getres says; one step of the readings
                                          * with the 1 ns of their rounding (clockstep.h) */
            f = fmax(f, (double)fs[i]->timer_resolution_ns);
            if (fs[i]->timer_step_ns > 1)
                f = fmax(f, (double)fs[i]->timer_step_ns + 1);
        }
    }
    return fmax(f, bucket_width(fmax(fabs(bm), fabs(cm)), 3));
}

/* Both confidence intervals of the median finite and overlapping: a timing row whose medians
 * moved beyond the threshold is then "worse", not a regression - the gate fires only when it is
 * confident the two medians differ (many metrics are tested at once; see compare.h). Exact rows
 * and samples too small for a finite interval (n < 6) are decided by the U test alone. */
static bool cis_overlap(const dra_compare_row_t *row)
{
    if (row->exact || !row->base.ci_finite || !row->cur.ci_finite)
        return false;
    return row->base.lo <= row->cur.hi && row->cur.lo <= row->base.hi;
}

static int compare_metric(const dra_compare_opts_t *o, double alpha, const scen_t *sc,
                          const char *m, const char *unit, int better, bool exact,
                          const row_ctx_t *rc_ctx, build_t *bld, dra_compare_row_t *row)
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
    bool is_ns = unit && strcmp(unit, "ns") == 0;
    if (rc_ctx->across && exact)
        row->not_gated = "decisions differ across inputs";
    else if (rc_ctx->across &&
             (strncmp(m, "throughput.", 11) == 0 || strncmp(m, "latency.pod.", 12) == 0 ||
              strncmp(m, "rejection.pod.", 14) == 0))
        /* aggregates over every shape move with the mix of claims that fit, which the crossed
         * inputs change: the per-shape latency rows say whether the allocator got slower */
        row->not_gated = "all shapes together: the mix that fits differs across inputs";
    else if (is_ns && !exact && is_pod_latency(m)) {
        double q = metric_quantile(m);
        if (q < 0) {
            row->not_gated = "one sample per repetition";
        } else if (q > 0 && q < 1) {
            long long need = (long long)ceil(10.0 / (1.0 - q) - 1e-9);
            if (need < DRA_COMPARE_MIN_PODS)
                need = DRA_COMPARE_MIN_PODS;
            long long have = min_shape_pods(sc, m);
            if (have >= 0 && have < need)
                row->not_gated = bprintf(bld, "%lld pods per repetition, need >= %lld for %s", have,
                                         need, strrchr(m, '.') + 1);
        }
    }
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
        bool gated = row->better != DRA_RLOAD_BETTER_NONE && row->threshold >= 0 && !row->not_gated;
        if (exact) {
            row->significant = bm != cm;
        } else {
            rc = dra_stats_mann_whitney(a, na, b, nb, &row->p, NULL);
            row->significant = rc == DRA_OK && row->p < alpha;
            row->few_samples = min_p(na, nb) >= alpha;
            if (is_ns) {
                double fl = o->gate && o->gate->has_noise_floor ? o->gate->noise_floor_ns
                                                                : o->noise_floor_ns;
                row->floor_ns = noise_floor(sc, fl, bm, cm);
                row->below_floor = cm != bm && fabs(cm - bm) < row->floor_ns;
            }
        }
        if (!exact && rc_ctx->hosts_differ) {
            row->verdict = DRA_CMP_REFUSED;
            row->significant = false;
        } else if (row->below_floor) {
            row->verdict = DRA_CMP_NOCHANGE;
            row->significant = false;
        } else if (!exact && gated && row->few_samples) {
            row->verdict = DRA_CMP_INCONCLUSIVE;
        } else if (!row->significant) {
            row->verdict = DRA_CMP_NOCHANGE;
        } else if (row->better == DRA_RLOAD_BETTER_NONE || row->not_gated) {
            row->verdict = DRA_CMP_CHANGED;
        } else {
            bool worse = row->better == DRA_RLOAD_BETTER_HIGHER ? cm < bm : cm > bm;
            if (!worse)
                row->verdict = DRA_CMP_IMPROVED;
            else if (row->threshold < 0)
                row->verdict = DRA_CMP_CHANGED;
            else if (fabs(row->delta) > row->threshold && !cis_overlap(row))
                row->verdict = DRA_CMP_REGRESSION;
            else
                row->verdict = DRA_CMP_WORSE;
        }
    }
    free(a);
    free(b);
    return rc;
}

/* Append a string to a growable array of the report. */
static void push_str(build_t *b, const char ***arr, size_t *n, size_t *cap, const char *s)
{
    const char **p = grow(b, *arr, cap, *n, sizeof **arr);
    if (!p)
        return;
    *arr = p;
    p[(*n)++] = s;
}

typedef struct {
    unsigned bit;
    const char *text;
} idiff_t;

/* The first input of y that differs from x outside `allowed` ("count 500 vs 600"), or NULL;
 * differences inside `allowed` are ORed into *crossed as DRA_ACROSS_* bits and described in
 * *crossed_text (the first one). */
static const char *input_diff(build_t *b, const dra_rload_result_t *x, const dra_rload_result_t *y,
                              unsigned allowed, unsigned *crossed, const char **crossed_text)
{
    if (*x->scenario_hash && *y->scenario_hash && strcmp(x->scenario_hash, y->scenario_hash) != 0)
        return bprintf(b, "scenario hash %s vs %s: the scenario itself changed", x->scenario_hash,
                       y->scenario_hash);
    if (*x->cluster_hash && *y->cluster_hash && strcmp(x->cluster_hash, y->cluster_hash) != 0 &&
        strcmp(x->seed, y->seed) == 0 && strcmp(x->release, y->release) == 0)
        return bprintf(b, "cluster hash %s vs %s: the cluster differs", x->cluster_hash,
                       y->cluster_hash);
    idiff_t d[5];
    size_t nd = 0;
    if (x->workload_count > 0 && y->workload_count > 0 && x->workload_count != y->workload_count)
        d[nd++] = (idiff_t){DRA_ACROSS_COUNT,
                                 bprintf(b, "count %lld vs %lld", (long long)x->workload_count,
                                         (long long)y->workload_count)};
    if (strcmp(x->seed, y->seed) != 0)
        d[nd++] = (idiff_t){DRA_ACROSS_SEED,
                                 bprintf(b, "seed %s vs %s", *x->seed ? x->seed : "?",
                                         *y->seed ? y->seed : "?")};
    if (strcmp(x->release, y->release) != 0)
        d[nd++] = (idiff_t){DRA_ACROSS_RELEASE,
                                 bprintf(b, "release %s vs %s", *x->release ? x->release : "?",
                                         *y->release ? y->release : "?")};
    else if (strcmp(x->features, y->features) != 0)
        d[nd++] = (idiff_t){DRA_ACROSS_RELEASE, "feature gates differ"};
    else if (x->upstream_bugs != y->upstream_bugs)
        d[nd++] = (idiff_t){DRA_ACROSS_RELEASE,
                                 bprintf(b, "upstream bugs %s vs %s", x->upstream_bugs ? "on" : "off",
                                         y->upstream_bugs ? "on" : "off")};
    if (*x->policy && *y->policy && strcmp(x->policy, y->policy) != 0)
        d[nd++] = (idiff_t){DRA_ACROSS_POLICY,
                                 bprintf(b, "policy %s vs %s", x->policy, y->policy)};
    if (*x->allocator && *y->allocator && strcmp(x->allocator, y->allocator) != 0)
        d[nd++] = (idiff_t){DRA_ACROSS_ALLOCATOR,
                                 bprintf(b, "allocator %s vs %s", x->allocator, y->allocator)};
    for (size_t i = 0; i < nd; i++) {
        if (!(allowed & d[i].bit))
            return d[i].text;
        *crossed |= d[i].bit;
        if (!*crossed_text)
            *crossed_text = d[i].text;
    }
    return NULL;
}

static const char *across_name(unsigned bit)
{
    switch (bit) {
    case DRA_ACROSS_RELEASE:
        return "release";
    case DRA_ACROSS_POLICY:
        return "policy";
    case DRA_ACROSS_SEED:
        return "seed";
    case DRA_ACROSS_COUNT:
        return "count";
    default:
        return "allocator";
    }
}

/* The --across name of a difference text such as "count 500 vs 600". */
static const char *across_of(const char *text)
{
    if (strncmp(text, "count ", 6) == 0)
        return across_name(DRA_ACROSS_COUNT);
    if (strncmp(text, "seed ", 5) == 0)
        return across_name(DRA_ACROSS_SEED);
    if (strncmp(text, "policy ", 7) == 0)
        return across_name(DRA_ACROSS_POLICY);
    if (strncmp(text, "allocator ", 10) == 0)
        return across_name(DRA_ACROSS_ALLOCATOR);
    if (strncmp(text, "scenario ", 9) == 0 || strncmp(text, "cluster ", 8) == 0)
        return NULL;
    return across_name(DRA_ACROSS_RELEASE);
}

/* The host and build facts that differ between x and y ("cpu_model 'A' vs 'B'; ..."). */
static const char *host_diff(build_t *b, const dra_rload_result_t *x, const dra_rload_result_t *y)
{
    char buf[1024] = "";
    size_t pos = 0;
#define DIFF_S(label, fx, fy)                                                                      \
    if (strcmp(fx, fy) != 0 && pos < sizeof buf)                                                   \
        pos += (size_t)snprintf(buf + pos, sizeof buf - pos, "%s%s '%s' vs '%s'", pos ? "; " : "", \
                                label, fx, fy);
    DIFF_S("cpu_model", x->cpu_model, y->cpu_model)
    if (x->cpus != y->cpus && pos < sizeof buf)
        pos += (size_t)snprintf(buf + pos, sizeof buf - pos, "%scpus %lld vs %lld", pos ? "; " : "",
                                (long long)x->cpus, (long long)y->cpus);
    DIFF_S("kernel", x->host_kernel, y->host_kernel)
    DIFF_S("compiler", x->compiler, y->compiler)
    DIFF_S("build_type", x->build_type, y->build_type)
    DIFF_S("flags", x->flags, y->flags)
    DIFF_S("sanitize", x->sanitize, y->sanitize)
#undef DIFF_S
    if (x->native != y->native && pos < sizeof buf)
        pos += (size_t)snprintf(buf + pos, sizeof buf - pos, "%snative %s vs %s", pos ? "; " : "",
                                x->native ? "on" : "off", y->native ? "on" : "off");
    (void)pos;
    return bprintf(b, "%s (%s on %s, %s on %s)", buf[0] ? buf : "fingerprints differ", x->path,
                   *x->hostname ? x->hostname : "?", y->path, *y->hostname ? y->hostname : "?");
}

static bool has_values(const dra_rload_result_t *r)
{
    for (size_t j = 0; j < r->nreps; j++)
        if (r->reps[j].nvalues)
            return true;
    return false;
}

static long long hist_count(const dra_rload_rep_t *rep, const char *name)
{
    for (size_t h = 0; h < rep->nhists; h++)
        if (strcmp(rep->hists[h].name, name) == 0)
            return (long long)rep->hists[h].count;
    return 0;
}

/* Per pod, from the files' decision records: pods compared and changed per shape (and "all").
 * Pods are matched by arrival index; when a matched pair has different mix entries the
 * arrivals differ (another seed) and nothing is counted. */
static void per_pod_changes(dra_compare_report_t *out, const char *scenario,
                            const dra_rload_result_t *x, const dra_rload_result_t *y)
{
    if (!x->dec_pods || !y->dec_pods)
        return;
    size_t n = x->dec_pods < y->dec_pods ? x->dec_pods : y->dec_pods;
    for (size_t p = 0; p < n; p++)
        if (strcmp(x->dec_shapes[x->dec_shape[p]], y->dec_shapes[y->dec_shape[p]]) != 0)
            return;
    for (size_t i = 0; i < out->nshape_changes; i++) {
        dra_compare_shape_change_t *c = &out->shape_changes[i];
        if (strcmp(c->scenario, scenario) != 0)
            continue;
        bool all = strcmp(c->shape, "all") == 0;
        c->pods_compared = c->pods_changed = 0;
        for (size_t p = 0; p < n; p++) {
            if (!all && strcmp(x->dec_shapes[x->dec_shape[p]], c->shape) != 0)
                continue;
            c->pods_compared++;
            c->pods_changed += x->dec_hash[p] != y->dec_hash[p];
        }
    }
}

/* Per-shape outcomes of the first repetition of the first file of each side (--across). */
static void shape_changes(build_t *b, dra_compare_report_t *out, size_t *cap, const scen_t *sc)
{
    const dra_rload_result_t *x = sc->base[0], *y = sc->cur[0];
    if (!x->nreps || !y->nreps)
        return;
    const dra_rload_rep_t *rx = &x->reps[0], *ry = &y->reps[0];
    for (int side = 0; side < 2; side++) {
        const dra_rload_rep_t *rr = side ? ry : rx;
        for (size_t h = 0; h < rr->nhists && !b->rc; h++) {
            const dra_rload_hist_t *hh = &rr->hists[h];
            if (strcmp(hh->phase, "pod") != 0 || strcmp(hh->outcome, "any") != 0)
                continue;
            bool seen = false;
            for (size_t q = 0; q < out->nshape_changes && !seen; q++)
                seen = strcmp(out->shape_changes[q].scenario, sc->name) == 0 &&
                       strcmp(out->shape_changes[q].shape, hh->shape) == 0;
            if (seen)
                continue;
            dra_compare_shape_change_t *p =
                grow(b, out->shape_changes, cap, out->nshape_changes, sizeof *p);
            if (!p)
                return;
            out->shape_changes = p;
            dra_compare_shape_change_t *c = &p[out->nshape_changes++];
            const char *sh = hh->shape;
            c->scenario = sc->name;
            c->shape = sh;
            c->base_pods = hist_count(rx, bprintf(b, "%s/pod/any", sh));
            c->base_allocated = hist_count(rx, bprintf(b, "%s/pod/allocated", sh));
            c->base_unsat = hist_count(rx, bprintf(b, "%s/pod/unsatisfiable", sh));
            c->cur_pods = hist_count(ry, bprintf(b, "%s/pod/any", sh));
            c->cur_allocated = hist_count(ry, bprintf(b, "%s/pod/allocated", sh));
            c->cur_unsat = hist_count(ry, bprintf(b, "%s/pod/unsatisfiable", sh));
            c->digest_differs = strcmp(x->digest, y->digest) != 0;
            c->pods_compared = c->pods_changed = -1;
        }
    }
    per_pod_changes(out, sc->name, x, y);
}

/* Per PodGroup mix entry: the group outcomes of the first repetition of each side (--across). */
static void group_changes(build_t *b, dra_compare_report_t *out, size_t *cap, const scen_t *sc)
{
    const dra_rload_result_t *x = sc->base[0], *y = sc->cur[0];
    if (!x->nreps || !y->nreps)
        return;
    for (int side = 0; side < 2; side++) {
        const dra_rload_rep_t *rr = side ? &y->reps[0] : &x->reps[0];
        for (size_t g = 0; g < rr->ngroups && !b->rc; g++) {
            const dra_rload_group_t *e = &rr->groups[g];
            dra_compare_group_change_t *c = NULL;
            for (size_t q = 0; q < out->ngroup_changes && !c; q++)
                if (strcmp(out->group_changes[q].scenario, sc->name) == 0 &&
                    strcmp(out->group_changes[q].shape, e->shape) == 0)
                    c = &out->group_changes[q];
            if (!c) {
                dra_compare_group_change_t *p =
                    grow(b, out->group_changes, cap, out->ngroup_changes, sizeof *p);
                if (!p)
                    return;
                out->group_changes = p;
                c = &p[out->ngroup_changes++];
                memset(c, 0, sizeof *c);
                c->scenario = sc->name;
                c->shape = e->shape;
            }
            if (side) {
                c->has_new = true;
                c->cur = *e;
            } else {
                c->has_base = true;
                c->base = *e;
            }
        }
    }
}

/* The state of one dra_compare_run, passed through its steps. */
typedef struct run {
    dra_compare_report_t *out;
    dra_compare_opts_t o;
    double alpha;
    const dra_rload_result_t *base, *cur;
    size_t nbase, ncur;
    build_t b;
    size_t cap_rows, cap_geo, cap_dig, cap_viol, cap_ob, cap_on, cap_warn, cap_err, cap_miss,
        cap_shape, cap_group;
    bool *usable; /* per file: complete, with repetitions and values */
    scen_t *sc;   /* scenarios in order of first appearance */
    size_t nsc;
    unsigned crossed; /* input differences compared on purpose (--across) */
    bool hosts_differ;
    const char **mnames; /* metric names, sorted */
    size_t nm;
} run_t;

/* every file with its side, and which are usable */
static int run_files(run_t *x)
{
    dra_compare_report_t *out = x->out;
    size_t nbase = x->nbase, ncur = x->ncur;
    const dra_rload_result_t *base = x->base, *cur = x->cur;
    out->files = dra_arena_calloc(&out->arena, nbase + ncur, sizeof *out->files, 16);
    if (!out->files)
        return DRA_ENOMEM;
    for (size_t i = 0; i < nbase + ncur; i++) {
        out->files[i].side = i < nbase ? "base" : "new";
        out->files[i].r = i < nbase ? &base[i] : &cur[i - nbase];
    }
    out->nfiles = nbase + ncur;

    /* usable files: complete, with repetitions and values; interrupted ones are excluded */
    x->usable = dra_arena_calloc(&out->arena, out->nfiles, sizeof *x->usable, 16);
    if (!x->usable)
        return DRA_ENOMEM;
    for (size_t i = 0; i < out->nfiles && !x->b.rc; i++) {
        const dra_rload_result_t *r = out->files[i].r;
        if (strcmp(r->status, "complete") != 0) {
            push_str(&x->b, &out->warn, &out->nwarn, &x->cap_warn,
                     bprintf(&x->b, "%s: status %s with %zu repetition(s): excluded from the gate "
                                 "(its partial digest is not a decision digest)",
                             r->path, r->status, r->nreps));
        } else if (r->nreps == 0) {
            push_str(&x->b, &out->errors, &out->nerrors, &x->cap_err,
                     bprintf(&x->b, "%s: invalid: no repetitions (nothing was measured)", r->path));
        } else if (!has_values(r)) {
            push_str(&x->b, &out->errors, &out->nerrors, &x->cap_err,
                     bprintf(&x->b, "%s: invalid: no metric values in any repetition", r->path));
        } else {
            x->usable[i] = true;
        }
    }
    return x->b.rc;
}

/* the usable files grouped by scenario, in order of first appearance */
static int run_scenarios(run_t *x)
{
    dra_compare_report_t *out = x->out;
    size_t nbase = x->nbase, ncur = x->ncur;
    size_t nsc = 0;
    scen_t *sc = x->sc = dra_arena_calloc(&out->arena, nbase + ncur, sizeof *sc, 16);
    const dra_rload_result_t **lists =
        dra_arena_calloc(&out->arena, 2 * (nbase + ncur) * (nbase + ncur), sizeof *lists, 16);
    if (!sc || !lists)
        return DRA_ENOMEM;
    for (size_t i = 0; i < nbase + ncur; i++) {
        if (!x->usable[i])
            continue;
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
    x->nsc = nsc;
    return DRA_OK;
}

/* comparability of the inputs, per scenario */
static int run_comparable(run_t *x)
{
    dra_compare_report_t *out = x->out;
    scen_t *sc = x->sc;
    size_t nsc = x->nsc;
    for (size_t s = 0; s < nsc && !x->b.rc; s++) {
        const dra_rload_result_t *ref = sc[s].nbase ? sc[s].base[0] : sc[s].cur[0];
        for (int side = 0; side < 2; side++) {
            const dra_rload_result_t **fs = side ? sc[s].cur : sc[s].base;
            size_t n = side ? sc[s].ncur : sc[s].nbase;
            for (size_t i = 0; i < n && !x->b.rc; i++) {
                const char *d = input_diff(&x->b, ref, fs[i], x->o.across, &x->crossed,
                                           &out->across_diff);
                if (!d)
                    continue;
                const char *how = across_of(d);
                push_str(&x->b, &out->errors, &out->nerrors, &x->cap_err,
                         bprintf(&x->b,
                                 "not comparable: inputs of scenario %s differ (%s): %s vs %s%s%s",
                                 sc[s].name, d, ref->path, fs[i]->path,
                                 how ? "; to compare across them on purpose: --across " : "",
                                 how ? how : ""));
                break;
            }
        }
    }
    return x->b.rc;
}

/* hosts: timings compare only like with like; a busy host makes them suspect */
static int run_hosts(run_t *x)
{
    dra_compare_report_t *out = x->out;
    const dra_rload_result_t *first = NULL;
    for (size_t i = 0; i < out->nfiles && !x->b.rc; i++) {
        if (!x->usable[i])
            continue;
        const dra_rload_result_t *r = out->files[i].r;
        if (!first) {
            first = r;
        } else if (strcmp(first->fingerprint ? first->fingerprint : "",
                          r->fingerprint ? r->fingerprint : "") != 0) {
            x->hosts_differ = true;
            out->host_diff = host_diff(&x->b, first, r);
            break;
        }
    }
    /* timings the builds define differently (rload.h, DRA_RESULT_TIMING_VERSION) are not
     * compared either: throughput and latency meant other things before version 2; nor releases
     * timed with the look-ahead in another place (drabench run --release-look-ahead): a
     * release's latency, and the throughput, include it or not */
    for (size_t i = 0; i < out->nfiles && !x->b.rc && !x->hosts_differ; i++) {
        const dra_rload_result_t *r = out->files[i].r;
        if (!x->usable[i] || !first)
            continue;
        if (r->timing_version != first->timing_version) {
            x->hosts_differ = true;
            const dra_rload_result_t *v1 = r->timing_version < first->timing_version ? r : first;
            const dra_rload_result_t *v2 = v1 == r ? first : r;
            out->host_diff = bprintf(
                &x->b,
                "timing definitions differ: %s has timing version %lld, %s %lld (since "
                "version 2 throughput and latency.* count allocated claims and placed pods "
                "only, rejections apart, and the invariant checks run outside the timed "
                "pass; since version 3 the throughput of a scenario with PodGroups counts "
                "the group cycles' claims and time)",
                v1->path, (long long)v1->timing_version, v2->path, (long long)v2->timing_version);
        } else if (strcmp(r->release_look_ahead, first->release_look_ahead) != 0) {
            x->hosts_differ = true;
            out->host_diff = bprintf(&x->b,
                                     "release timings measured differently: %s ran its release "
                                     "look-ahead %s, %s %s (drabench run --release-look-ahead)",
                                     first->path, first->release_look_ahead, r->path,
                                     r->release_look_ahead);
        }
    }
    if (x->hosts_differ)
        push_str(&x->b, &out->warn, &out->nwarn, &x->cap_warn,
                 bprintf(&x->b, "files come from different hosts or builds: %s: %s", out->host_diff,
                         x->o.exact_only ? "timings left out (--exact-only)"
                                      : "timings not compared (bless a baseline on this host, or "
                                        "--exact-only)"));

    /* a host busy with other work when a run started: its timings are suspect */
    for (size_t i = 0; i < out->nfiles && !x->b.rc; i++) {
        const dra_rload_result_t *r = out->files[i].r;
        if (x->usable[i] && r->cpus > 0 && r->load1 >= (double)r->cpus)
            push_str(&x->b, &out->warn, &out->nwarn, &x->cap_warn,
                     bprintf(&x->b,
                             "%s: the host was busy when the run started (load average %.2f on "
                             "%lld CPUs): its timings include other programs' work",
                             r->path, r->load1, (long long)r->cpus));
    }
    /* repetitions the kernel preempted during their measured loop: a median stands on the
     * undisturbed ones only while they are most; from a quarter on, say so */
    for (size_t i = 0; i < out->nfiles && !x->b.rc; i++) {
        if (!x->usable[i])
            continue;
        const dra_rload_result_t *r = out->files[i].r;
        size_t hit = 0;
        long long times = 0;
        for (size_t j = 0; j < r->nreps; j++)
            if (r->reps[j].preemptions > 0) {
                hit++; /* saturating: a file's counts are untrusted */
                times = r->reps[j].preemptions > LLONG_MAX - times
                            ? LLONG_MAX
                            : times + r->reps[j].preemptions;
            }
        if (hit && 4 * hit >= r->nreps)
            push_str(&x->b, &out->warn, &out->nwarn, &x->cap_warn,
                     bprintf(&x->b,
                             "%s: %zu of its %zu repetitions lost the CPU during their measured "
                             "loop (%lld preemptions): their timings may include other programs' "
                             "time; measure again on a quieter host if a verdict rests on them",
                             r->path, hit, r->nreps, times));
    }
    return x->b.rc;
}

/* metric names: union over all repetitions, in report order */
static int run_metric_names(run_t *x)
{
    dra_compare_report_t *out = x->out;
    size_t nm = 0, cap_m = 0;
    const char **mnames = NULL;
    for (size_t i = 0; i < out->nfiles && !x->b.rc; i++) {
        const dra_rload_result_t *r = out->files[i].r;
        if (!x->usable[i])
            continue;
        for (size_t j = 0; j < r->nreps; j++)
            for (size_t k = 0; k < r->reps[j].nvalues; k++) {
                const char *m = r->reps[j].value_names[k];
                bool seen = false;
                for (size_t q = 0; q < nm && !seen; q++)
                    seen = strcmp(mnames[q], m) == 0;
                if (seen)
                    continue;
                mnames = grow(&x->b, mnames, &cap_m, nm, sizeof *mnames);
                if (!mnames)
                    return x->b.rc;
                mnames[nm++] = m;
            }
    }
    if (nm)
        qsort(mnames, nm, sizeof *mnames, cmp_names);
    x->mnames = mnames;
    x->nm = nm;
    return x->b.rc;
}

/* one row per metric and scenario both sides measured, and a geomean per metric */
static int run_rows(run_t *x)
{
    dra_compare_report_t *out = x->out;
    size_t nbase = x->nbase, ncur = x->ncur;
    scen_t *sc = x->sc;
    size_t nsc = x->nsc;
    const dra_rload_result_t *base = x->base, *cur = x->cur;
    const char **mnames = x->mnames;
    size_t nm = x->nm;
    row_ctx_t rctx = {.hosts_differ = x->hosts_differ && !x->o.exact_only,
                        .across = x->crossed != 0};
    for (size_t mi = 0; mi < nm && !x->b.rc; mi++) {
        const char *unit;
        int better;
        bool exact;
        metric_meta(base, nbase, cur, ncur, mnames[mi], &unit, &better, &exact);
        if (x->o.exact_only && !exact)
            continue;
        size_t first_row = out->nrows;
        for (size_t s = 0; s < nsc; s++) {
            if (!sc[s].nbase || !sc[s].ncur)
                continue;
            out->rows = grow(&x->b, out->rows, &x->cap_rows, out->nrows, sizeof *out->rows);
            if (!out->rows)
                return x->b.rc;
            dra_compare_row_t *row = &out->rows[out->nrows];
            int rc = compare_metric(&x->o, x->alpha, &sc[s], mnames[mi], unit, better, exact, &rctx,
                                    &x->b, row);
            if (rc != DRA_OK)
                return rc;
            if (row->base.n == 0 && row->cur.n == 0)
                continue;
            out->nrows++;
            bool gated = row->better != DRA_RLOAD_BETTER_NONE && row->threshold >= 0 &&
                         !row->not_gated;
            if (row->verdict == DRA_CMP_REGRESSION)
                out->nregressions++;
            else if (row->verdict == DRA_CMP_IMPROVED)
                out->nimproved++;
            else if (row->verdict == DRA_CMP_INCONCLUSIVE)
                out->ninconclusive++;
            else if (row->verdict == DRA_CMP_REFUSED && gated)
                out->nrefused++;
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
            out->geo = grow(&x->b, out->geo, &x->cap_geo, out->ngeo, sizeof *out->geo);
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
    return x->b.rc;
}

/* one-sided scenarios: a scenario the base measured and the new side lacks fails the gate */
static int run_one_sided(run_t *x)
{
    dra_compare_report_t *out = x->out;
    scen_t *sc = x->sc;
    size_t nsc = x->nsc;
    for (size_t s = 0; s < nsc && !x->b.rc; s++) {
        if (!sc[s].ncur) {
            out->only_base = grow(&x->b, out->only_base, &x->cap_ob, out->nonly_base,
                                  sizeof(char *));
            if (out->only_base)
                out->only_base[out->nonly_base++] = sc[s].name;
            push_str(&x->b, &out->missing, &out->nmissing, &x->cap_miss, sc[s].name);
        } else if (!sc[s].nbase) {
            out->only_new = grow(&x->b, out->only_new, &x->cap_on, out->nonly_new, sizeof(char *));
            if (out->only_new)
                out->only_new[out->nonly_new++] = sc[s].name;
        } else if (x->crossed) {
            shape_changes(&x->b, out, &x->cap_shape, &sc[s]);
            group_changes(&x->b, out, &x->cap_group, &sc[s]);
        }
    }
    return x->b.rc;
}

/* digests: pairs of complete files with equal inputs, and repetitions within a file */
static int run_digests(run_t *x)
{
    dra_compare_report_t *out = x->out;
    size_t nbase = x->nbase;
    for (size_t i = 0; i < out->nfiles && !x->b.rc; i++) {
        const dra_rload_result_t *ri = out->files[i].r;
        if (!x->usable[i])
            continue;
        for (size_t j = i + 1; j < out->nfiles && !x->b.rc; j++) {
            const dra_rload_result_t *rj = out->files[j].r;
            if (!x->usable[j] || !same_inputs(ri, rj) || !*ri->digest || !*rj->digest ||
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
            out->digest = grow(&x->b, out->digest, &x->cap_dig, out->ndigest, sizeof *out->digest);
            if (!out->digest)
                break;
            out->digest[out->ndigest++] = (dra_compare_digest_change_t){
                ri->scenario, ri->seed, where, ri->path, ri->digest, rj->path, rj->digest};
        }
        for (size_t k = 0; k < ri->nreps && !x->b.rc; k++) {
            const char *d = ri->reps[k].digest;
            if (!*d || !*ri->digest || strcmp(d, ri->digest) == 0)
                continue;
            out->digest = grow(&x->b, out->digest, &x->cap_dig, out->ndigest, sizeof *out->digest);
            if (!out->digest)
                break;
            out->digest[out->ndigest++] = (dra_compare_digest_change_t){
                ri->scenario, ri->seed, "repetition", ri->path, ri->digest,
                bprintf(&x->b, "%s repetition %lld", ri->path, (long long)ri->reps[k].index), d};
        }
    }
    return x->b.rc;
}

/* violations (any file: an interrupted run's violations are still violations) */
static int run_violations(run_t *x)
{
    dra_compare_report_t *out = x->out;
    for (size_t i = 0; i < out->nfiles && !x->b.rc; i++) {
        const dra_rload_result_t *r = out->files[i].r;
        if (r->inv_violations <= 0)
            continue;
        out->viol = grow(&x->b, out->viol, &x->cap_viol, out->nviol, sizeof *out->viol);
        if (!out->viol)
            break;
        out->viol[out->nviol++] = (dra_compare_violation_t){
            out->files[i].side, r->path, r->scenario, (long long)r->inv_violations,
            r->nfirst ? r->first[0] : ""};
    }
    return x->b.rc;
}

int dra_compare_run(const dra_rload_result_t *base, size_t nbase, const dra_rload_result_t *cur,
                    size_t ncur, const dra_compare_opts_t *opts, dra_compare_report_t *out)
{
    memset(out, 0, sizeof *out);
    dra_arena_init(&out->arena, 64 * 1024);
    if (!opts || nbase == 0 || ncur == 0)
        return DRA_EINVAL;
    run_t x = {.out = out, .o = *opts, .base = base, .cur = cur, .nbase = nbase, .ncur = ncur};
    x.b = (build_t){.a = &out->arena, .rc = DRA_OK};
    dra_compare_opts_t o = x.o;
    if (o.confidence <= 0 || o.confidence >= 1)
        x.o.confidence = o.confidence = DRA_STATS_CONFIDENCE;
    double alpha = o.alpha > 0 && o.alpha < 1 ? o.alpha : DRA_STATS_ALPHA;
    if (o.gate && o.gate->has_alpha)
        alpha = o.gate->alpha;
    x.alpha = out->alpha = alpha;
    out->confidence = o.confidence;
    out->allow_digest_change = o.allow_digest_change;
    out->gate_path = o.gate ? o.gate->path : NULL;
    out->threshold = o.gate && o.gate->has_default ? o.gate->default_threshold : o.threshold;
    out->across = o.across;
    out->exact_only = o.exact_only;

    static int (*const steps[])(run_t *) = {run_files,     run_scenarios,    run_comparable,
                                            run_hosts,     run_metric_names, run_rows,
                                            run_one_sided, run_digests,      run_violations};
    for (size_t i = 0; i < DRA_ARRAY_LEN(steps); i++) {
        int rc = steps[i](&x);
        if (rc != DRA_OK)
            return rc;
    }

    if (out->nerrors)
        out->exit_status = DRA_EXIT_USAGE;
    else if (out->nviol || (out->ndigest && !o.allow_digest_change))
        out->exit_status = DRA_EXIT_CORRECTNESS;
    else if (out->nregressions || out->nmissing)
        out->exit_status = DRA_EXIT_REGRESSION;
    else if (out->ninconclusive || out->nrefused)
        out->exit_status = DRA_EXIT_INCONCLUSIVE;
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

/* Half-width of a side's confidence interval of the median, as a fraction of the median; NaN
 * when the interval is not finite. */
static double ci_halfwidth(const dra_compare_side_stat_t *s)
{
    if (!s->ci_finite || s->median == 0)
        return NAN;
    return fmax(s->hi - s->median, s->median - s->lo) / fabs(s->median);
}

/* A significant timing change smaller than the confidence interval of a median around it: the
 * test says the samples differ, the intervals say by how much is not known (footnote ³). */
static bool ci_wider_than_change(const dra_compare_row_t *row)
{
    if (row->exact || !row->significant || !isfinite(row->delta) || row->below_floor)
        return false;
    double w = fmax(ci_halfwidth(&row->base), ci_halfwidth(&row->cur));
    return isfinite(w) && w > fabs(row->delta);
}

bool dra_compare_row_ci_wider(const dra_compare_row_t *row)
{
    return ci_wider_than_change(row);
}

static void fmt_delta(const dra_compare_row_t *row, char *buf, size_t len)
{
    char n[32];
    fmt_n(row, n, sizeof n);
    if (row->base.n == 0 || row->cur.n == 0) {
        snprintf(buf, len, "%s", row->base.n ? "gone" : "new");
        return;
    }
    if (row->verdict == DRA_CMP_REFUSED) {
        snprintf(buf, len, "not compared (other host) %s", n);
        return;
    }
    if (row->below_floor) {
        snprintf(buf, len, "~ (noise: |Δ| < %.0fns %s)", row->floor_ns, n);
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
        snprintf(buf, len, "%+.2f%% (p=%.3f %s)%s", 100 * row->delta, row->p, n,
                 ci_wider_than_change(row) ? " ³" : "");
}

static void fmt_gate(const dra_compare_row_t *row, char *buf, size_t len)
{
    switch (row->verdict) {
    case DRA_CMP_REGRESSION:
        snprintf(buf, len, "REGRESSION (limit %g%%)", 100 * row->threshold);
        break;
    case DRA_CMP_WORSE:
        /* significant and in the bad direction but not gated: say which rule held it back */
        if (row->threshold >= 0 && fabs(row->delta) > row->threshold)
            snprintf(buf, len,
                     "worse, beyond %g%% but not gated: the confidence intervals "
                     "overlap",
                     100 * row->threshold);
        else
            snprintf(buf, len, "worse, within %g%%", 100 * row->threshold);
        break;
    case DRA_CMP_IMPROVED:
        snprintf(buf, len, "improved");
        break;
    case DRA_CMP_CHANGED:
        if (row->not_gated)
            snprintf(buf, len, "changed (not gated: %s)", row->not_gated);
        else
            snprintf(buf, len, "changed (not gated)");
        break;
    case DRA_CMP_INCONCLUSIVE:
        snprintf(buf, len, "INCONCLUSIVE (too few samples)");
        break;
    case DRA_CMP_REFUSED:
        snprintf(buf, len, "refused (hosts differ)");
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

static bool any_wide(const dra_compare_report_t *r)
{
    for (size_t i = 0; i < r->nrows; i++)
        if (ci_wider_than_change(&r->rows[i]))
            return true;
    return false;
}

/* The footnotes of the table (¹ no confidence interval, ² too few samples, ³ an interval wider
 * than the change), each line ended by eol, then a blank line when there was one. */
static void footnotes(FILE *f, const dra_compare_report_t *r, const char *eol)
{
    if (any_ci_infinite(r))
        fprintf(f, "¹ need >= %d samples for confidence interval at level %g%s",
                dra_stats_median_ci_min_samples(r->confidence), r->confidence, eol);
    if (any_few(r))
        fprintf(f, "² need >= 4 samples to detect a difference at alpha level %g%s", r->alpha, eol);
    if (any_wide(r))
        fprintf(f,
                "³ warning: the confidence interval of a median is wider than the change: the "
                "samples differ, by how much is not resolved (more repetitions, or `drabench "
                "ab` for timings)%s",
                eol);
    if (any_ci_infinite(r) || any_few(r) || any_wide(r))
        fputc('\n', f);
}

static const char *short_digest(const char *d)
{
    return d && *d ? d : "(none)";
}

static void gate_line(const dra_compare_report_t *r, const dra_compare_row_t *row, FILE *f)
{
    (void)r;
    char got[64], want[64], basev[64];
    double lim = row->better == DRA_RLOAD_BETTER_HIGHER ? row->base.median * (1 - row->threshold)
                                                        : row->base.median * (1 + row->threshold);
    dra_compare_fmt_value_unit(row->cur.median, row->unit, got, sizeof got);
    dra_compare_fmt_value_unit(lim, row->unit, want, sizeof want);
    dra_compare_fmt_value_unit(row->base.median, row->unit, basev, sizeof basev);
    fprintf(f, "expected %s of %s to be %s: got %s, want %s %s (base %s %s %g%%, %+.2f%%)\n",
            row->metric, row->scenario, row->better == DRA_RLOAD_BETTER_HIGHER ? "higher" : "lower",
            got, row->better == DRA_RLOAD_BETTER_HIGHER ? ">=" : "<=", want, basev,
            row->better == DRA_RLOAD_BETTER_HIGHER ? "-" : "+", 100 * row->threshold,
            100 * row->delta);
}

void dra_compare_write_gate_lines(const dra_compare_report_t *r, FILE *f)
{
    for (size_t i = 0; i < r->nerrors; i++)
        fprintf(f, "%s\n", r->errors[i]);
    for (size_t i = 0; i < r->nrows; i++)
        if (r->rows[i].verdict == DRA_CMP_REGRESSION)
            gate_line(r, &r->rows[i], f);
    for (size_t i = 0; i < r->nmissing; i++)
        fprintf(f, "scenario %s is in the base but has no complete result in the new set\n",
                r->missing[i]);
    for (size_t i = 0; i < r->nrows; i++)
        if (r->rows[i].verdict == DRA_CMP_INCONCLUSIVE)
            fprintf(f,
                    "inconclusive: %s of %s: %zu vs %zu sample(s) cannot show a change at alpha "
                    "%g (the U test needs >= 4 per side at 0.05; run more repetitions)\n",
                    r->rows[i].metric, r->rows[i].scenario, r->rows[i].base.n, r->rows[i].cur.n,
                    r->alpha);
    if (r->nrefused && r->host_diff)
        fprintf(f, "inconclusive: %zu timing row(s) not compared: files come from different hosts "
                   "or builds: %s\n",
                r->nrefused, r->host_diff);
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
    case DRA_EXIT_USAGE:
        return "ERROR: not comparable or invalid input";
    case DRA_EXIT_INCONCLUSIVE:
        return "INCONCLUSIVE";
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
        } else {
            fprintf(f, "%-4s  %s: %s seed=%s reps=%zu commit=%s build=%s%s%s host=%s date=%s",
                    r->files[i].side, x->path, x->scenario, *x->seed ? x->seed : "-", x->nreps,
                    *x->tool_git ? x->tool_git : "-", *x->build_type ? x->build_type : "-",
                    *x->sanitize ? "+" : "", x->sanitize, *x->hostname ? x->hostname : "-",
                    *x->date ? x->date : "-");
            if (x->peak_rss_bytes > 0) { /* the run's peak resident set (memory.peak_rss_bytes) */
                char rss[48];
                fprintf(
                    f, " peak_rss=%s",
                    dra_compare_fmt_value_unit((double)x->peak_rss_bytes, "B", rss, sizeof rss));
            }
            fputc('\n', f);
        }
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

static const dra_compare_row_t *find_row(const dra_compare_report_t *r, const char *scenario,
                                         const char *metric)
{
    for (size_t i = 0; i < r->nrows; i++)
        if (strcmp(r->rows[i].scenario, scenario) == 0 && strcmp(r->rows[i].metric, metric) == 0)
            return &r->rows[i];
    return NULL;
}

/* A row's change in a few words: "-1.20% (~, p=0.410)", "+12.00% (regression)". */
static void speed_cell(const dra_compare_row_t *row, char *buf, size_t len)
{
    if (!row || !row->base.n || !row->cur.n) {
        snprintf(buf, len, "not measured");
        return;
    }
    if (row->verdict == DRA_CMP_REFUSED) {
        snprintf(buf, len, "not compared (other host or timing definitions)");
        return;
    }
    snprintf(buf, len, "%+.2f%% (%s%s%.3f)", 100 * row->delta,
             row->significant ? dra_compare_verdict_name(row->verdict) : "~", ", p=", row->p);
}

/* Per-shape speed of one scenario across inputs: of the shapes placed on both sides, how many
 * have a latency.<shape>.p50 or .p99 row that regressed (or improved). */
static void shape_speed(const dra_compare_report_t *r, const char *scenario, int *n, int *slower,
                        int *faster)
{
    *n = *slower = *faster = 0;
    for (size_t i = 0; i < r->nshape_changes; i++) {
        const dra_compare_shape_change_t *c = &r->shape_changes[i];
        if (strcmp(c->scenario, scenario) != 0 || strcmp(c->shape, "all") == 0 ||
            !c->base_allocated || !c->cur_allocated)
            continue;
        bool worse = false, better = false;
        for (int q = 0; q < 2; q++) {
            char m[300];
            snprintf(m, sizeof m, "latency.%s.%s", c->shape, q ? "p99" : "p50");
            const dra_compare_row_t *row = find_row(r, scenario, m);
            worse |= row && row->verdict == DRA_CMP_REGRESSION;
            better |= row && row->verdict == DRA_CMP_IMPROVED;
        }
        (*n)++;
        *slower += worse;
        *faster += better && !worse;
    }
}

/* With --across: per scenario, what changed in fit (pods placed and rejected, first
 * repetition) apart from what changed in speed. Speed is read per shape - the placed pods' p50
 * and p99 of every shape placed on both sides (timing version 2 counts no rejected claim in
 * them) - because the throughput of allocated claims also moves with their mix when more (or
 * other) claims fit: on default, 1.36 places the MIG claims 1.35 rejects, and allocated
 * claims/s drops 10% while no shape got slower. */
static void write_fit_speed(const dra_compare_report_t *r, FILE *f, bool md)
{
    bool head = false;
    for (size_t i = 0; i < r->nshape_changes; i++) {
        const dra_compare_shape_change_t *c = &r->shape_changes[i];
        if (strcmp(c->shape, "all") != 0)
            continue;
        const dra_compare_row_t *tp = find_row(r, c->scenario, "throughput.claims_per_s");
        char a[96];
        speed_cell(tp, a, sizeof a);
        int n, slower, faster;
        shape_speed(r, c->scenario, &n, &slower, &faster);
        long long dfit = c->cur_allocated - c->base_allocated;
        bool refused = tp && tp->verdict == DRA_CMP_REFUSED;
        char what[200], sp[120];
        snprintf(sp, sizeof sp, "%d of %d shape(s) placed on both sides slower, %d faster", slower,
                 n, faster);
        snprintf(what, sizeof what, "%s; %s",
                 dfit > 0   ? "more claims fit"
                 : dfit < 0 ? "fewer claims fit"
                            : "as many claims fit",
                 refused  ? "speed not compared"
                 : !n     ? "no shape placed on both sides to compare speed"
                 : slower ? "the allocator got slower"
                 : faster ? "the allocator got faster"
                          : "the allocator is not slower");
        if (md) {
            if (!head)
                fputs("| scenario | pods placed | rejected | speed per shape (p50, p99) | "
                      "allocated claims/s (moves with the mix too) | reading |\n"
                      "| --- | ---: | ---: | --- | --- | --- |\n",
                      f);
            fputs("| ", f);
            dra_esc_md(f, c->scenario);
            fprintf(f, " | %lld -> %lld (%+lld) | %lld -> %lld | %s | %s | %s |\n",
                    c->base_allocated, c->cur_allocated, dfit, c->base_unsat, c->cur_unsat, sp, a,
                    what);
        } else {
            if (!head)
                fprintf(f, "fit and speed across inputs (%s):\n",
                        r->across_diff ? r->across_diff : "");
            fprintf(f,
                    "  %s: fit %lld -> %lld pods placed (%+lld), %lld -> %lld rejected; speed: "
                    "%s (placed pods' p50, p99); allocated claims/s %s, which also moves with "
                    "the mix of claims that fit: %s\n",
                    c->scenario, c->base_allocated, c->cur_allocated, dfit, c->base_unsat,
                    c->cur_unsat, sp, a, what);
        }
        head = true;
    }
    if (head)
        fputc('\n', f);
}

/* Per-shape outcome changes (--across), text or Markdown. */
static void write_shape_changes(const dra_compare_report_t *r, FILE *f, bool md)
{
    if (!r->nshape_changes)
        return;
    write_fit_speed(r, f, md);
    if (md)
        fprintf(f, "### Decisions across inputs (%s)\n\nOutcomes of the first repetition per shape; "
                   "decision changes are information here, not failures.\n\n"
                   "| scenario | shape | pods | allocated | unsatisfiable | pods changed | digest |\n"
                   "| --- | --- | ---: | ---: | ---: | ---: | --- |\n",
                r->across_diff ? r->across_diff : "");
    else
        fprintf(f, "decisions across inputs (%s): first repetition per shape, information only\n",
                r->across_diff ? r->across_diff : "");
    for (size_t i = 0; i < r->nshape_changes; i++) {
        const dra_compare_shape_change_t *c = &r->shape_changes[i];
        char changed[96];
        if (c->pods_compared >= 0)
            snprintf(changed, sizeof changed, "%lld of %lld", c->pods_changed, c->pods_compared);
        else
            snprintf(changed, sizeof changed, "?");
        if (md)
            fprintf(f, "| %s | %s | %lld -> %lld | %lld -> %lld (%+lld) | %lld -> %lld (%+lld) | %s | %s |\n",
                    c->scenario, c->shape, c->base_pods, c->cur_pods, c->base_allocated,
                    c->cur_allocated, c->cur_allocated - c->base_allocated, c->base_unsat,
                    c->cur_unsat, c->cur_unsat - c->base_unsat, changed,
                    c->digest_differs ? "differs" : "equal");
        else
            fprintf(f, "  %s %-16s pods %lld -> %lld, allocated %lld -> %lld (%+lld), "
                       "unsatisfiable %lld -> %lld (%+lld), pods with another outcome, node or "
                       "devices: %s%s\n",
                    c->scenario, c->shape, c->base_pods, c->cur_pods, c->base_allocated,
                    c->cur_allocated, c->cur_allocated - c->base_allocated, c->base_unsat,
                    c->cur_unsat, c->cur_unsat - c->base_unsat, changed,
                    c->digest_differs ? ", decision digest differs" : "");
    }
    fputc('\n', f);
}

/* "a -> b (+d)" of one group count; "-" for a side without the entry. */
static void group_cell(char *buf, size_t len, const dra_compare_group_change_t *c, size_t off)
{
    long long a = *(const int64_t *)((const char *)&c->base + off);
    long long b = *(const int64_t *)((const char *)&c->cur + off);
    if (c->has_base && c->has_new)
        snprintf(buf, len, "%lld -> %lld (%+lld)", a, b, b - a);
    else if (c->has_base)
        snprintf(buf, len, "%lld -> -", a);
    else
        snprintf(buf, len, "- -> %lld", b);
}

/* "x -> y" of a wait in seconds, or of the policy with its minCount */
static void group_wait(char *buf, size_t len, const dra_compare_group_change_t *c, bool max)
{
    char a[32] = "-", b[32] = "-";
    if (c->has_base)
        snprintf(a, sizeof a, "%.3f", max ? c->base.wait_s_max : c->base.wait_s_mean);
    if (c->has_new)
        snprintf(b, sizeof b, "%.3f", max ? c->cur.wait_s_max : c->cur.wait_s_mean);
    snprintf(buf, len, "%s -> %s", a, b);
}

static void group_policy(char *buf, size_t len, const dra_compare_group_change_t *c)
{
    char a[96] = "-", b[96] = "-";
    if (c->has_base)
        snprintf(a, sizeof a, "%s (minCount %lld)", c->base.policy, (long long)c->base.min_count);
    if (c->has_new)
        snprintf(b, sizeof b, "%s (minCount %lld)", c->cur.policy, (long long)c->cur.min_count);
    if (strcmp(a, b) == 0)
        snprintf(buf, len, "%s", a);
    else
        snprintf(buf, len, "%s -> %s", a, b);
}

/* Per PodGroup mix entry, the group outcomes across inputs (--across), text or Markdown: the
 * names come from the files (escaped for the target), the rest is this file's own text. */
static void write_group_changes(const dra_compare_report_t *r, FILE *f, bool md)
{
    if (!r->ngroup_changes)
        return;
    if (md) {
        fputs("### PodGroups across inputs (", f);
        md_escape(f, r->across_diff ? r->across_diff : "");
        fputs(")\n\nGroup scheduling cycles of the first repetition per group mix entry (placed: "
              "every member; partial: minCount or more; unschedulable: fewer than minCount fit) "
              "and the queue waits in workload seconds; information here, not failures.\n\n"
              "| scenario | group entry | policy | cycles | placed | partial | unschedulable "
              "| still waiting | waited | wait mean (s) | wait max (s) |\n"
              "| --- | --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |\n",
              f);
    } else {
        fputs("podgroups across inputs (", f);
        dra_esc_term(f, r->across_diff ? r->across_diff : "");
        fputs("): group cycles of the first repetition per group mix entry, information only\n",
              f);
    }
    static const size_t offs[] = {
        offsetof(dra_rload_group_t, cycles),        offsetof(dra_rload_group_t, placed),
        offsetof(dra_rload_group_t, partial),       offsetof(dra_rload_group_t, unschedulable),
        offsetof(dra_rload_group_t, still_waiting), offsetof(dra_rload_group_t, waited)};
    enum { NG = sizeof offs / sizeof offs[0] };
    for (size_t i = 0; i < r->ngroup_changes; i++) {
        const dra_compare_group_change_t *c = &r->group_changes[i];
        char cell[NG][64], pol[200], wm[80], wx[80];
        for (size_t k = 0; k < NG; k++)
            group_cell(cell[k], sizeof cell[k], c, offs[k]);
        group_policy(pol, sizeof pol, c);
        group_wait(wm, sizeof wm, c, false);
        group_wait(wx, sizeof wx, c, true);
        if (md) {
            fputs("| ", f);
            md_escape(f, c->scenario);
            fputs(" | ", f);
            md_escape(f, c->shape);
            /* pol: the policies the loader admits (gang | basic) and numbers */
            fprintf(f, " | %s | %s | %s | %s | %s | %s | %s | %s | %s |\n", pol, cell[0], cell[1],
                    cell[2], cell[3], cell[4], cell[5], wm, wx);
        } else {
            fputs("  ", f);
            dra_esc_term(f, c->scenario);
            fputc(' ', f);
            dra_esc_term(f, c->shape);
            fputs(" policy ", f);
            dra_esc_term(f, pol);
            fprintf(f, ": cycles %s, placed %s, partial %s, unschedulable %s, still waiting %s; "
                       "waited %s, wait mean %s s, max %s s\n",
                    cell[0], cell[1], cell[2], cell[3], cell[4], cell[5], wm, wx);
        }
    }
    fputc('\n', f);
}

int dra_compare_write_text(const dra_compare_report_t *r, FILE *f)
{
    for (size_t i = 0; i < r->nerrors; i++)
        fprintf(f, "error: %s\n", r->errors[i]);
    if (r->nerrors)
        fputc('\n', f);
    write_files_text(r, f, false);
    fputs("values: median of the repetitions ± the 95% confidence interval of the median; "
          "throughput is per second of timed allocator work (the median of the repetitions' "
          "throughput, not the pooled figure of the run summary)\n\n",
          f);
    write_shape_changes(r, f, false);
    write_group_changes(r, f, false);
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
    footnotes(f, r, "\n");

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
        fprintf(f, "only in base: %s (missing from the new set: fails the gate)\n",
                r->only_base[i]);
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
               "%zu file(s) with violations, %zu inconclusive, %zu refused, %zu missing; alpha %g, "
               "threshold %s%s%s%s\n",
            status_text(r), r->exit_status, r->nregressions, r->nimproved, r->ndigest, r->nviol,
            r->ninconclusive, r->nrefused, r->nmissing, r->alpha, thr,
            r->gate_path ? ", gate file " : "", r->gate_path ? r->gate_path : "",
            r->exact_only ? ", exact metrics only" : "");
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
    write_shape_changes(r, f, true);
    write_group_changes(r, f, true);
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
    footnotes(f, r, "  \n"); /* Markdown: two spaces break the line */
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
            files,
            json_pack("{s:s, s:o, s:s, s:s, s:s, s:s, s:s, s:I, s:s, s:o}", "side",
                      r->files[i].side, "path", dra_esc_path_json(x->path), "scenario",
                      x->scenario, "seed", x->seed, "git", x->tool_git, "host", x->hostname,
                      "date", x->date, "repetitions", (json_int_t)x->nreps, "digest", x->digest,
                      "peak_rss_bytes",
                      x->peak_rss_bytes > 0 ? json_integer(x->peak_rss_bytes) : json_null()));
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
        json_t *jr = json_array_get(rows, json_array_size(rows) - 1);
        json_object_set_new(jr, "not_gated", row->not_gated ? json_string(row->not_gated) : json_null());
        json_object_set_new(jr, "below_noise_floor", json_boolean(row->below_floor));
        json_object_set_new(jr, "noise_floor_ns", row->floor_ns > 0 ? json_real(row->floor_ns) : json_null());
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
        json_array_append_new(warn, dra_esc_text_json(r->warn[i]));
    json_object_set_new(root, "schema", json_string(DRA_COMPARE_SCHEMA));
    json_object_set_new(root, "exit_status", json_integer(r->exit_status));
    json_object_set_new(root, "alpha", json_real(r->alpha));
    json_object_set_new(root, "confidence", json_real(r->confidence));
    json_object_set_new(root, "threshold_pct",
                        r->threshold < 0 ? json_null() : json_real(100 * r->threshold));
    json_object_set_new(root, "gate_file", dra_esc_path_json(r->gate_path));
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
    json_t *errs = json_array(), *miss = json_array(), *shapes = json_array();
    for (size_t i = 0; i < r->nerrors; i++)
        json_array_append_new(errs, dra_esc_text_json(r->errors[i]));
    for (size_t i = 0; i < r->nmissing; i++)
        json_array_append_new(miss, json_string(r->missing[i]));
    for (size_t i = 0; i < r->nshape_changes; i++) {
        const dra_compare_shape_change_t *c = &r->shape_changes[i];
        json_array_append_new(
            shapes, json_pack("{s:s, s:s, s:{s:I, s:I, s:I}, s:{s:I, s:I, s:I}, s:b}", "scenario",
                              c->scenario, "shape", c->shape, "base", "pods",
                              (json_int_t)c->base_pods, "allocated", (json_int_t)c->base_allocated,
                              "unsatisfiable", (json_int_t)c->base_unsat, "new", "pods",
                              (json_int_t)c->cur_pods, "allocated", (json_int_t)c->cur_allocated,
                              "unsatisfiable", (json_int_t)c->cur_unsat, "digest_differs",
                              c->digest_differs));
        json_t *jc = json_array_get(shapes, json_array_size(shapes) - 1);
        json_object_set_new(jc, "pods_compared",
                            c->pods_compared >= 0 ? json_integer(c->pods_compared) : json_null());
        json_object_set_new(jc, "pods_changed",
                            c->pods_changed >= 0 ? json_integer(c->pods_changed) : json_null());
    }
    json_object_set_new(root, "errors", errs);
    json_object_set_new(root, "missing", miss);
    json_object_set_new(root, "shape_changes", shapes);
    /* --across: per PodGroup mix entry, each side's group outcomes (null: no such entry) */
    json_t *gcs = json_array();
    for (size_t i = 0; gcs && i < r->ngroup_changes; i++) {
        const dra_compare_group_change_t *c = &r->group_changes[i];
        json_t *o = json_pack("{s:s, s:s}", "scenario", c->scenario, "shape", c->shape);
        for (int side = 0; o && side < 2; side++) {
            const dra_rload_group_t *e = side ? &c->cur : &c->base;
            json_t *j = !(side ? c->has_new : c->has_base)
                            ? json_null()
                            : json_pack("{s:s, s:I, s:I, s:I, s:I, s:I, s:I, s:I, s:I, s:I, s:I, "
                                        "s:I, s:o, s:o}",
                                        "policy", e->policy, "pods", (json_int_t)e->pods,
                                        "min_count", (json_int_t)e->min_count, "cycles",
                                        (json_int_t)e->cycles, "placed", (json_int_t)e->placed,
                                        "partial", (json_int_t)e->partial, "unschedulable",
                                        (json_int_t)e->unschedulable, "waiting",
                                        (json_int_t)e->waiting, "error", (json_int_t)e->error,
                                        "retries", (json_int_t)e->retries, "waited",
                                        (json_int_t)e->waited, "still_waiting",
                                        (json_int_t)e->still_waiting, "wait_s_mean",
                                        jnum(e->wait_s_mean), "wait_s_max", jnum(e->wait_s_max));
            json_object_set_new(o, side ? "new" : "base", j ? j : json_null());
        }
        if (o)
            json_array_append_new(gcs, o);
    }
    json_object_set_new(root, "group_changes", gcs ? gcs : json_array());
    /* --across: fit (pods placed, rejected) apart from speed (write_fit_speed) per scenario */
    json_t *fs = json_array();
    for (size_t i = 0; fs && i < r->nshape_changes; i++) {
        const dra_compare_shape_change_t *c = &r->shape_changes[i];
        if (strcmp(c->shape, "all") != 0)
            continue;
        const dra_compare_row_t *tp = find_row(r, c->scenario, "throughput.claims_per_s");
        json_t *o = json_object();
        json_object_set_new(o, "scenario", json_string(c->scenario));
        json_object_set_new(o, "placed_base", json_integer(c->base_allocated));
        json_object_set_new(o, "placed_new", json_integer(c->cur_allocated));
        json_object_set_new(o, "rejected_base", json_integer(c->base_unsat));
        json_object_set_new(o, "rejected_new", json_integer(c->cur_unsat));
        json_object_set_new(o, "claims_per_s_delta_pct",
                            tp && tp->base.n && tp->cur.n ? jnum(100 * tp->delta) : json_null());
        json_object_set_new(o, "claims_per_s_verdict",
                            tp ? json_string(dra_compare_verdict_name(tp->verdict)) : json_null());
        int n, slower, faster;
        shape_speed(r, c->scenario, &n, &slower, &faster);
        json_object_set_new(o, "shapes_compared", json_integer(n));
        json_object_set_new(o, "shapes_slower", json_integer(slower));
        json_object_set_new(o, "shapes_faster", json_integer(faster));
        json_array_append_new(fs, o);
    }
    json_object_set_new(root, "fit_speed", fs ? fs : json_array());
    json_object_set_new(root, "inconclusive", json_integer((json_int_t)r->ninconclusive));
    json_object_set_new(root, "refused", json_integer((json_int_t)r->nrefused));
    json_object_set_new(root, "host_diff", r->host_diff ? json_string(r->host_diff) : json_null());
    json_object_set_new(root, "across", r->across_diff ? json_string(r->across_diff) : json_null());
    json_object_set_new(root, "exact_only", json_boolean(r->exact_only));
    int rc = json_dumpf(root, f, JSON_INDENT(2) | JSON_SORT_KEYS | JSON_REAL_PRECISION(15));
    fputc('\n', f);
    json_decref(root);
    return rc == 0 && !ferror(f) ? DRA_OK : DRA_EIO;
}
