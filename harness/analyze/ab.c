/* ab.c - statistics and report of an interleaved A/B sitting; see ab.h. */
#include "ab.h"

#include <jansson.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "escape.h"
#include "exitcode.h"
#include "rload.h"
#include "stats.h"

const char *dra_ab_verdict_name(dra_ab_verdict_t v)
{
    switch (v) {
    case DRA_AB_NOCHANGE:
        return "no change";
    case DRA_AB_REGRESSION:
        return "regression";
    case DRA_AB_IMPROVED:
        return "improved";
    case DRA_AB_WORSE:
        return "worse";
    case DRA_AB_BETTER:
        return "better";
    case DRA_AB_INCONCLUSIVE:
        return "inconclusive";
    }
    return "?";
}

void dra_ab_init(dra_ab_session_t *s)
{
    memset(s, 0, sizeof *s);
    dra_arena_init(&s->arena, 64 * 1024);
    s->pin = -1;
    s->alpha = DRA_AB_DEFAULT_ALPHA;
    s->confidence = 0.95;
    s->threshold = DRA_AB_DEFAULT_THRESHOLD;
    s->resamples = 2000;
    s->load_start = s->load_end = -1;
    s->a.git = s->b.git = "";
}

void dra_ab_fini(dra_ab_session_t *s)
{
    if (!s)
        return;
    dra_arena_fini(&s->arena);
    memset(s, 0, sizeof *s);
}

char *dra_ab_strdup(dra_ab_session_t *s, const char *str)
{
    return str ? dra_arena_strdup(&s->arena, str) : NULL;
}

void dra_ab_warn(dra_ab_session_t *s, const char *fmt, ...)
{
    char buf[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    if (s->nwarn == s->cap_warn) {
        size_t nc = s->cap_warn ? 2 * s->cap_warn : 8;
        const char **w = dra_arena_realloc(&s->arena, s->warn, s->cap_warn * sizeof *w,
                                           nc * sizeof *w, 16);
        if (!w)
            return;
        s->warn = w;
        s->cap_warn = nc;
    }
    const char *c = dra_arena_strdup(&s->arena, buf);
    if (c)
        s->warn[s->nwarn++] = c;
}

int dra_ab_add_scenario(dra_ab_session_t *s, const char *name, char *const *args, size_t nargs,
                        const char *const *metrics, size_t nmetrics, size_t *index)
{
    dra_ab_scenario_t *ns = dra_arena_realloc(&s->arena, s->scen, s->nscen * sizeof *ns,
                                              (s->nscen + 1) * sizeof *ns, 16);
    if (!ns)
        return DRA_ENOMEM;
    s->scen = ns;
    dra_ab_scenario_t *x = &ns[s->nscen];
    memset(x, 0, sizeof *x);
    x->name = dra_arena_strdup(&s->arena, name);
    x->args = dra_arena_calloc(&s->arena, nargs + 1, sizeof *x->args, 16);
    x->metrics = dra_arena_calloc(&s->arena, nmetrics + 1, sizeof *x->metrics, 16);
    x->units = dra_arena_calloc(&s->arena, nmetrics + 1, sizeof *x->units, 16);
    x->better = dra_arena_calloc(&s->arena, nmetrics + 1, sizeof *x->better, 16);
    if (!x->name || !x->args || !x->metrics || !x->units || !x->better)
        return DRA_ENOMEM;
    for (size_t i = 0; i < nargs; i++)
        if (!(x->args[i] = dra_arena_strdup(&s->arena, args[i])))
            return DRA_ENOMEM;
    x->nargs = nargs;
    for (size_t i = 0; i < nmetrics; i++) {
        if (!(x->metrics[i] = dra_arena_strdup(&s->arena, metrics[i])))
            return DRA_ENOMEM;
        x->units[i] = "";
        x->better[i] = dra_rload_default_better(metrics[i]);
    }
    x->nmetrics = nmetrics;
    *index = s->nscen++;
    return DRA_OK;
}

int dra_ab_set_metric(dra_ab_session_t *s, size_t sc, size_t m, const char *name, const char *unit,
                      int better)
{
    if (sc >= s->nscen || m >= s->scen[sc].nmetrics)
        return DRA_EINVAL;
    dra_ab_scenario_t *x = &s->scen[sc];
    if (name && strcmp(name, x->metrics[m]) != 0 &&
        !(x->metrics[m] = dra_arena_strdup(&s->arena, name)))
        return DRA_ENOMEM;
    if (unit && !(x->units[m] = dra_arena_strdup(&s->arena, unit)))
        return DRA_ENOMEM;
    x->better[m] = better;
    return DRA_OK;
}

int dra_ab_add_round(dra_ab_session_t *s, size_t sc, bool aa, bool b_first, double load1,
                     const double *a, const double *b)
{
    if (sc >= s->nscen)
        return DRA_EINVAL;
    dra_ab_scenario_t *x = &s->scen[sc];
    if (x->nrounds == x->cap_rounds) {
        size_t nc = x->cap_rounds ? 2 * x->cap_rounds : 32;
        dra_ab_round_t *r = dra_arena_realloc(&s->arena, x->rounds, x->cap_rounds * sizeof *r,
                                              nc * sizeof *r, 16);
        if (!r)
            return DRA_ENOMEM;
        x->rounds = r;
        x->cap_rounds = nc;
    }
    dra_ab_round_t *r = &x->rounds[x->nrounds];
    r->a = dra_arena_alloc(&s->arena, (x->nmetrics + 1) * sizeof *r->a, 16);
    r->b = dra_arena_alloc(&s->arena, (x->nmetrics + 1) * sizeof *r->b, 16);
    if (!r->a || !r->b)
        return DRA_ENOMEM;
    memcpy(r->a, a, x->nmetrics * sizeof *a);
    memcpy(r->b, b, x->nmetrics * sizeof *b);
    r->aa = aa;
    r->extension = false;
    r->b_first = b_first;
    r->load1 = load1;
    size_t total = 0;
    for (size_t i = 0; i < s->nscen; i++)
        total += s->scen[i].nrounds;
    r->index = (uint32_t)total;
    x->nrounds++;
    return DRA_OK;
}

/* ---- budget --------------------------------------------------------------------------------- */

/* total rounds (A/B + A/A) split in the ratio R:Q, with the minimums and the cap */
static void split_rounds(size_t total, size_t R, size_t Q, size_t *nab, size_t *naa)
{
    size_t b = (size_t)floor((double)total * (double)R / (double)(R + Q) + 0.5);
    b = b < DRA_AB_MIN_ROUNDS ? DRA_AB_MIN_ROUNDS : b > 200 ? 200 : b;
    size_t a = total > b ? total - b : 0;
    size_t qmax = (b * Q + R - 1) / (R ? R : 1); /* keep the ratio when capped */
    a = a > qmax ? qmax : a;
    *nab = b;
    *naa = a < DRA_AB_MIN_AA ? DRA_AB_MIN_AA : a;
}

void dra_ab_budget_split(const double *cost, size_t n, double left, size_t R, size_t Q,
                         size_t *nab, size_t *naa, size_t *fit)
{
    const size_t base = DRA_AB_MIN_ROUNDS + DRA_AB_MIN_AA, need = DRA_AB_NEED_ROUNDS;
    double per = 0;
    for (size_t i = 0; i < n; i++)
        per += cost[i] > 0 ? cost[i] : 0;
    if (!(left > 0))
        left = 0;
    /* rounds of every scenario in equal numbers, the first pass's included (what the warning
     * of a budget below the minimum reports) */
    double eq = per > 0 ? floor(left / per) : 1000;
    *fit = 1 + (size_t)(eq < 1000 ? eq : 1000);
    /* 1. the minimum for every scenario (the first pass's round is one of its rounds); without
     *    the time for it, the minimum runs anyway and nothing more */
    double rem = left - (double)(base - 1) * per;
    size_t *tot = nab; /* the totals, before the ratio split */
    for (size_t i = 0; i < n; i++)
        tot[i] = rem > 0 ? base : 1;
    if (rem > 0) {
        /* 2. up to `need`, cheapest scenario first: the most expensive is the one left short
         *    when the budget cannot give every scenario the rounds the bar needs */
        double prev = -1;
        size_t prev_i = SIZE_MAX;
        for (size_t k = 0; k < n; k++) {
            size_t j = SIZE_MAX; /* the next in (cost, index) order after (prev, prev_i) */
            for (size_t i = 0; i < n; i++) {
                double c = cost[i] > 0 ? cost[i] : 0;
                bool after = c > prev || (c == prev && (prev_i == SIZE_MAX || i > prev_i));
                double cj = j == SIZE_MAX ? 0 : cost[j] > 0 ? cost[j] : 0;
                if (after && (j == SIZE_MAX || c < cj))
                    j = i;
            }
            if (j == SIZE_MAX)
                break;
            double c = cost[j] > 0 ? cost[j] : 0;
            prev = c;
            prev_i = j;
            double want = (double)(need > tot[j] ? need - tot[j] : 0);
            double can = c > 0 ? fmin(want, floor(rem / c)) : want;
            tot[j] += (size_t)can;
            rem -= can * c;
        }
        /* 3. the rest: three quarters in equal numbers (passes of the whole suite), the last
         *    quarter in equal time (a cheap scenario gets more rounds) */
        double passes = per > 0 ? fmin(floor(0.75 * rem / per), 1000) : 0;
        double share = n ? 0.25 * rem / (double)n : 0;
        for (size_t i = 0; i < n; i++) {
            double extra = cost[i] > 0 ? fmin(floor(share / cost[i]), 1000) : 0;
            tot[i] += (size_t)passes + (size_t)extra;
        }
    }
    for (size_t i = 0; i < n; i++)
        split_rounds(tot[i], R, Q, &nab[i], &naa[i]);
}

/* ---- analysis ------------------------------------------------------------------------------- */

static bool usable(double a, double b)
{
    return isfinite(a) && isfinite(b) && a > 0 && b > 0;
}

/* exp(median of x) and the bootstrap interval of the median of m draws (0: n); NaN when n == 0. */
static int median_ratio(const dra_ab_session_t *s, const double *x, size_t n, size_t m,
                        uint64_t seed, double *ratio, double *lo, double *hi)
{
    *ratio = *lo = *hi = NAN;
    if (!n)
        return DRA_OK;
    double l, h;
    int rc = dra_stats_bootstrap_median_ci(x, n, m, s->confidence, s->resamples, seed, &l, &h);
    if (rc != DRA_OK)
        return rc;
    *ratio = exp(dra_stats_median(x, n));
    *lo = exp(l);
    *hi = exp(h);
    return DRA_OK;
}

static int analyze_metric(dra_ab_session_t *s, size_t sc, size_t m, dra_ab_stat_t *st)
{
    dra_ab_scenario_t *x = &s->scen[sc];
    memset(st, 0, sizeof *st);
    st->p = st->noise = st->noise_aa_only = NAN;
    st->aa_only_lo = st->aa_only_hi = NAN;
    st->note = "";
    double *d = malloc((x->nrounds + 1) * sizeof *d), *e = malloc((x->nrounds + 1) * sizeof *e);
    if (!d || !e) {
        free(d);
        free(e);
        return DRA_ENOMEM;
    }
    for (size_t i = 0; i < x->nrounds; i++) {
        const dra_ab_round_t *r = &x->rounds[i];
        if (!usable(r->a[m], r->b[m]))
            continue;
        double l = log(r->b[m] / r->a[m]);
        if (r->aa)
            e[st->n_aa++] = l;
        else
            d[st->n++] = l;
    }
    uint64_t seed = s->seed ^ (UINT64_C(0x9E3779B97F4A7C15) * (sc * 64 + m + 1));
    int rc = median_ratio(s, d, st->n, 0, seed, &st->ratio, &st->lo, &st->hi);
    /* the noise floor: how far an A/A comparison of as many rounds as the A/B ones strays in
     * this sitting. Its centre (a bias between the two slots of a round) is the A/A rounds'
     * median; its spread is drawn from every round of the scenario: the A/A log-ratios and the
     * A/B ones re-centred there (d_i - median d + median e; an A/B round is the difference of
     * two processes as an A/A round is). From the A/A rounds alone (3 in a nightly sitting)
     * the bootstrap interval of a median of n draws is about their range: one disturbed A/A
     * process set the floor of a whole sitting (gpu-sharing: one A/A round at -21% gave a
     * floor of 23% beside eight A/B rounds at -12% to -22%). */
    double *pool = NULL;
    if (rc == DRA_OK && st->n_aa) {
        rc = median_ratio(s, e, st->n_aa, st->n, seed ^ 2, &st->aa_ratio, &st->aa_only_lo,
                          &st->aa_only_hi);
        pool = malloc((st->n_aa + st->n + 1) * sizeof *pool);
        if (rc == DRA_OK && !pool)
            rc = DRA_ENOMEM;
    }
    if (rc == DRA_OK && pool) {
        double ce = log(st->aa_ratio), cd = st->n ? dra_stats_median(d, st->n) : 0;
        memcpy(pool, e, st->n_aa * sizeof *pool);
        for (size_t i = 0; i < st->n; i++)
            pool[st->n_aa + i] = d[i] - cd + ce;
        double r;
        rc = median_ratio(s, pool, st->n_aa + st->n, st->n, seed ^ 1, &r, &st->aa_lo,
                          &st->aa_hi);
    }
    free(pool);
    if (rc == DRA_OK && st->n)
        rc = dra_stats_wilcoxon(d, st->n, &st->p, NULL, NULL);
    free(d);
    free(e);
    if (rc != DRA_OK)
        return rc;
    if (st->n_aa) {
        st->noise = fmax(fabs(log(st->aa_lo)), fabs(log(st->aa_hi)));
        st->noise_aa_only = fmax(fabs(log(st->aa_only_lo)), fabs(log(st->aa_only_hi)));
    }
    int dir = x->better[m];
    st->slowdown = dir == DRA_RLOAD_BETTER_HIGHER  ? 1 / st->ratio - 1
                   : dir == DRA_RLOAD_BETTER_LOWER ? st->ratio - 1
                                                   : NAN;

    char note[256];
    note[0] = '\0';
    double lim = log(1 + s->threshold);
    int better = x->better[m];
    if (x->timing_a && x->timing_b && x->timing_a != x->timing_b) {
        st->verdict = DRA_AB_INCONCLUSIVE;
        snprintf(note, sizeof note,
                 "the builds define the timings differently (timing version %lld vs %lld)",
                 (long long)x->timing_a, (long long)x->timing_b);
    } else if (st->n < DRA_AB_MIN_ROUNDS) {
        st->verdict = DRA_AB_INCONCLUSIVE;
        snprintf(note, sizeof note, "%zu A/B round(s) with values, need >= %d", st->n,
                 DRA_AB_MIN_ROUNDS);
    } else if (st->n_aa < DRA_AB_MIN_AA) {
        st->verdict = DRA_AB_INCONCLUSIVE;
        snprintf(note, sizeof note, "%zu A/A round(s) with values, need >= %d for a noise floor",
                 st->n_aa, DRA_AB_MIN_AA);
    } else {
        double lr = log(st->ratio);
        /* the floor decides when it is above the threshold: a significant change between the
         * two is "worse" or "better" because of the floor alone (whatever the change is) */
        st->floor_above = better != DRA_RLOAD_BETTER_NONE && st->noise > lim;
        bool sig = st->p < s->alpha && (st->lo > 1 || st->hi < 1);
        bool worse = better == DRA_RLOAD_BETTER_HIGHER  ? lr < 0
                     : better == DRA_RLOAD_BETTER_LOWER ? lr > 0
                                                        : false;
        bool beyond_thr = fabs(lr) > lim, beyond_floor = fabs(lr) > st->noise;
        if (!sig) {
            st->verdict = DRA_AB_NOCHANGE;
            double half = (log(st->hi) - log(st->lo)) / 2;
            if (half > lim)
                snprintf(note, sizeof note,
                         "the interval (+-%.1f%%) is wider than the %g%% threshold: this sitting "
                         "could not see a change of that size",
                         100 * (exp(half) - 1), 100 * s->threshold);
        } else if (better == DRA_RLOAD_BETTER_NONE) {
            st->verdict = DRA_AB_NOCHANGE;
            snprintf(note, sizeof note, "informational metric: changed, never gated");
        } else if (beyond_thr && beyond_floor) {
            st->verdict = worse ? DRA_AB_REGRESSION : DRA_AB_IMPROVED;
        } else {
            st->verdict = worse ? DRA_AB_WORSE : DRA_AB_BETTER;
            if (!beyond_thr)
                snprintf(note, sizeof note, "within the %g%% threshold", 100 * s->threshold);
            else
                snprintf(note, sizeof note, "below the A/A noise floor of %.1f%%",
                         100 * (exp(st->noise) - 1));
        }
        if (beyond_thr && st->noise > lim && !note[0])
            snprintf(note, sizeof note, "the A/A noise floor (%.1f%%) is above the threshold",
                     100 * (exp(st->noise) - 1));
    }
    st->note = dra_arena_strdup(&s->arena, note);
    return st->note ? DRA_OK : DRA_ENOMEM;
}

int dra_ab_analyze(dra_ab_session_t *s)
{
    s->nregressions = s->ninconclusive = s->nimproved = 0;
    for (size_t sc = 0; sc < s->nscen; sc++) {
        dra_ab_scenario_t *x = &s->scen[sc];
        x->stats = dra_arena_calloc(&s->arena, x->nmetrics + 1, sizeof *x->stats, 16);
        if (!x->stats)
            return DRA_ENOMEM;
        for (size_t m = 0; m < x->nmetrics; m++) {
            int rc = analyze_metric(s, sc, m, &x->stats[m]);
            if (rc != DRA_OK)
                return rc;
            switch (x->stats[m].verdict) {
            case DRA_AB_REGRESSION:
                s->nregressions++;
                break;
            case DRA_AB_INCONCLUSIVE:
                s->ninconclusive++;
                break;
            case DRA_AB_IMPROVED:
                s->nimproved++;
                break;
            default:
                break;
            }
        }
    }
    s->exit_status = s->nregressions    ? DRA_EXIT_REGRESSION
                     : s->ninconclusive ? DRA_EXIT_INCONCLUSIVE
                                        : DRA_EXIT_OK;
    return DRA_OK;
}

/* ---- extension ------------------------------------------------------------------------------ */

size_t dra_ab_extend_trigger(const dra_ab_session_t *s, size_t sc)
{
    if (sc >= s->nscen || !s->scen[sc].stats)
        return SIZE_MAX;
    const dra_ab_scenario_t *x = &s->scen[sc];
    for (size_t m = 0; m < x->nmetrics; m++)
        if (x->stats[m].floor_above)
            return m;
    return SIZE_MAX;
}

void dra_ab_extend_rounds(size_t ab, size_t aa, double factor, double cost, double left,
                          size_t *xab, size_t *xaa, bool *cut)
{
    *xab = *xaa = 0;
    *cut = false;
    if (!(factor > 0) || ab + aa == 0)
        return;
    double want = ceil(factor * (double)(ab + aa) - 1e-9);
    want = want > 100000 ? 100000 : want;
    size_t w = (size_t)want, b = (size_t)floor(want * (double)ab / (double)(ab + aa) + 0.5);
    b = b < 1 ? 1 : b > w ? w : b;
    size_t a = w - b;
    if (aa && !a && w > 1) { /* keep an A/A round in it */
        a = 1;
        b = w - 1;
    }
    if (left >= 0 && cost > 0) {
        double fit = floor(left / cost);
        if (fit < (double)w) {
            *cut = true;
            size_t f = (size_t)(fit > 0 ? fit : 0);
            size_t fb = (size_t)floor((double)f * (double)b / (double)w + 0.5);
            fb = fb > f ? f : fb;
            size_t fa = f - fb;
            if (f && !fb) { /* an A/B round before an A/A one */
                fb = 1;
                fa = f - 1;
            }
            b = fb;
            a = fa;
        }
    }
    *xab = b;
    *xaa = a;
}

/* ---- reports -------------------------------------------------------------------------------- */

static const char *status_text(int status)
{
    switch (status) {
    case DRA_EXIT_OK:
        return "PASS";
    case DRA_EXIT_REGRESSION:
        return "FAIL: regression";
    case DRA_EXIT_CORRECTNESS:
        return "FAIL: correctness";
    case DRA_EXIT_INCONCLUSIVE:
        return "INCONCLUSIVE";
    case DRA_EXIT_USAGE:
        return "ERROR: invalid input";
    default:
        return "ERROR: environment";
    }
}

/* "+3.21%" of a ratio, "?" when unknown. */
static const char *pct(double ratio, char *buf, size_t len)
{
    if (!isfinite(ratio))
        snprintf(buf, len, "?");
    else
        snprintf(buf, len, "%+.2f%%", 100 * (ratio - 1));
    return buf;
}

static const char *verdict_label(const dra_ab_stat_t *st, char *buf, size_t len)
{
    const char *v = st->verdict == DRA_AB_REGRESSION     ? "REGRESSION"
                    : st->verdict == DRA_AB_INCONCLUSIVE ? "INCONCLUSIVE"
                                                         : dra_ab_verdict_name(st->verdict);
    if (st->note && *st->note)
        snprintf(buf, len, "%s (%s)", v, st->note);
    else
        snprintf(buf, len, "%s", v);
    return buf;
}

/* What the extension of scenario x did, in one sentence (without a final stop); NULL when it
 * was not triggered. */
static const char *ext_text(const dra_ab_session_t *s, const dra_ab_scenario_t *x, char *buf,
                            size_t len)
{
    const dra_ab_extension_t *e = &x->ext;
    if (!e->triggered)
        return NULL;
    char fl[32];
    snprintf(fl, sizeof fl, "%.1f%%", 100 * (exp(e->floor) - 1));
    const char *metric = e->metric < x->nmetrics ? x->metrics[e->metric] : "?";
    if (e->ab + e->aa == 0) {
        snprintf(buf, len,
                 "not extended: after %zu + %zu rounds the A/A noise floor of %s (%s) was "
                 "above the %g%% threshold, but the budget left (%.0f s) fit no round of "
                 "it (%.1f s a round)",
                 e->planned_ab, e->planned_aa, metric, fl, 100 * s->threshold, e->left_s,
                 e->cost_s);
        return buf;
    }
    int k = snprintf(buf, len,
                     "extended by %zu + %zu rounds: after %zu + %zu rounds the A/A noise floor "
                     "of %s (%s) was above the %g%% threshold",
                     e->ab, e->aa, e->planned_ab, e->planned_aa, metric, fl,
                     100 * s->threshold);
    if (k > 0 && (size_t)k < len && e->before && e->metric < x->nmetrics) {
        const dra_ab_stat_t *b = &e->before[e->metric];
        char vl[400];
        k += snprintf(buf + k, len - (size_t)k, " (then: B/A %.3f, p %.3f, %s)", b->ratio, b->p,
                      verdict_label(b, vl, sizeof vl));
    }
    if (k > 0 && (size_t)k < len && e->budget_cut)
        snprintf(buf + k, len - (size_t)k,
                 "; the budget left (%.0f s, %.1f s a round) cut it from the %zu + %zu of "
                 "--extend %g",
                 e->left_s, e->cost_s, e->want_ab, e->want_aa, s->extend);
    return buf;
}

/* The method in one paragraph (text and Markdown); indent starts its second line. */
static void write_method(const dra_ab_session_t *s, FILE *f, const char *indent)
{
    if (s->budget_s > 0)
        fprintf(f,
                "a budget of %g s: at least %zu A/B + %zu A/A rounds per scenario planned, more "
                "for the cheap ones (each row gives its own), each process fresh, the order "
                "randomized per round (seed %llu)",
                s->budget_s, s->rounds, s->aa, (unsigned long long)s->seed);
    else
        fprintf(f,
                "%zu A/B + %zu A/A rounds per scenario planned, each process fresh, the order "
                "randomized per round (seed %llu)",
                s->rounds, s->aa, (unsigned long long)s->seed);
    if (s->pin >= 0)
        fprintf(f, "; every process pinned to CPU %d", s->pin);
    fprintf(f, "; ASLR %s", s->no_aslr ? "off" : "on");
    fprintf(f, "; %s", s->in_place ? "executables run in place"
                                   : "each process a fresh copy of its executable");
    if (s->pause_ms)
        fprintf(f, "; %u ms pause between processes", s->pause_ms);
    if (s->max_load > 0)
        fprintf(f, "; each round waits while the load average is >= %g", s->max_load);
    if (s->extend > 0)
        fprintf(f,
                "; a scenario whose A/A noise floor is above the threshold after its rounds "
                "gets up to %g times as many more (--extend)%s",
                s->extend, s->budget_s > 0 ? ", within the budget" : "");
    fprintf(f,
            ".\n%sPer round one sample per side: the process's %s. Wilcoxon signed-rank test "
            "on ln(B/A), %g%% bootstrap interval of the median ratio (%u resamples), noise "
            "floor from the A/A rounds (their median, the spread of every round); alpha %g, "
            "threshold %g%%.\n",
            indent, s->sample_best ? "best repetition" : "median over its repetitions",
            100 * s->confidence, s->resamples, s->alpha, 100 * s->threshold);
}

static void write_side(FILE *f, const char *label, const dra_ab_side_t *x)
{
    fprintf(f, "%s = ", label);
    dra_esc_term(f, x->exe);
    if (x->rev) {
        fputs(" (built from ", f);
        dra_esc_term(f, x->rev);
        fputc(')', f);
    }
    if (*x->git) {
        fputs(", git ", f);
        dra_esc_term(f, x->git);
    }
    for (size_t i = 0; i < x->nenv; i++) {
        fputs(i ? " " : ", environment ", f);
        dra_esc_term(f, x->env[i]);
    }
    for (size_t i = 0; i < x->nargs; i++) {
        fputs(i ? " " : ", run options ", f);
        dra_esc_term(f, x->args[i]);
    }
    fputc('\n', f);
}

int dra_ab_write_text(const dra_ab_session_t *s, FILE *f)
{
    fputs("drabench ab: ", f);
    write_side(f, "A", &s->a);
    fputs("             ", f);
    write_side(f, "B", &s->b);
    fputs("method:      ", f);
    write_method(s, f, "             ");
    fprintf(f, "sitting:     %.0f s on ", s->wall_s);
    dra_esc_term(f, s->hostname ? s->hostname : "?");
    fputs(" (", f);
    dra_esc_term(f, s->cpu_model ? s->cpu_model : "?");
    fprintf(f, ", %d CPUs), load average %.2f at the start, %.2f at the end\n\n", s->cpus,
            s->load_start, s->load_end);
    for (size_t sc = 0; sc < s->nscen; sc++) {
        const dra_ab_scenario_t *x = &s->scen[sc];
        dra_esc_term(f, x->name);
        for (size_t i = 0; i < x->nargs; i++) {
            fputc(' ', f);
            dra_esc_term(f, x->args[i]);
        }
        if (x->digest_a && x->digest_b && strcmp(x->digest_a, x->digest_b) != 0)
            fprintf(f, "  [decisions differ: digest %s vs %s]", x->digest_a, x->digest_b);
        fputc('\n', f);
        if (x->metric_note) {
            fputs("  ", f);
            dra_esc_term(f, x->metric_note);
            fputc('\n', f);
        }
        fprintf(f, "  %-28s %7s %7s  %-17s %9s %6s %9s  %s\n", "metric", "rounds", "B/A",
                "interval", "change", "p", "A/A floor", "verdict");
        for (size_t m = 0; m < x->nmetrics && x->stats; m++) {
            const dra_ab_stat_t *st = &x->stats[m];
            char rounds[32], ci[48], ch[32], pv[16], fl[16], vl[400];
            snprintf(rounds, sizeof rounds, "%zu+%zu", st->n, st->n_aa);
            if (isfinite(st->lo))
                snprintf(ci, sizeof ci, "[%.3f, %.3f]", st->lo, st->hi);
            else
                snprintf(ci, sizeof ci, "-");
            if (isfinite(st->p))
                snprintf(pv, sizeof pv, "%.3f", st->p);
            else
                snprintf(pv, sizeof pv, "-");
            if (isfinite(st->noise))
                snprintf(fl, sizeof fl, "+-%.1f%%", 100 * (exp(st->noise) - 1));
            else
                snprintf(fl, sizeof fl, "-");
            fputs("  ", f);
            dra_esc_term(f, x->metrics[m]);
            size_t w = strlen(x->metrics[m]);
            fprintf(f, "%*s %7s %7.3f  %-17s %9s %6s %9s  %s\n", w < 28 ? (int)(28 - w) : 0, "",
                    rounds, st->ratio, ci, pct(st->ratio, ch, sizeof ch), pv, fl,
                    verdict_label(st, vl, sizeof vl));
        }
        char eb[1200];
        if (ext_text(s, x, eb, sizeof eb)) {
            fputs("  ", f);
            dra_esc_term(f, eb);
            fputc('\n', f);
        }
        fputc('\n', f);
    }
    for (size_t i = 0; i < s->nwarn; i++) {
        fputs("warning: ", f);
        dra_esc_term(f, s->warn[i]);
        fputc('\n', f);
    }
    if (s->nwarn)
        fputc('\n', f);
    fprintf(f,
            "gate: %s (exit %d): %zu regression(s), %zu improvement(s), %zu inconclusive; "
            "threshold %g%%, alpha %g\n",
            status_text(s->exit_status), s->exit_status, s->nregressions, s->nimproved,
            s->ninconclusive, 100 * s->threshold, s->alpha);
    dra_ab_write_gate_lines(s, f);
    return ferror(f) ? DRA_EIO : DRA_OK;
}

void dra_ab_write_gate_lines(const dra_ab_session_t *s, FILE *f)
{
    for (size_t sc = 0; sc < s->nscen; sc++) {
        const dra_ab_scenario_t *x = &s->scen[sc];
        for (size_t m = 0; m < x->nmetrics && x->stats; m++) {
            const dra_ab_stat_t *st = &x->stats[m];
            if (st->verdict != DRA_AB_REGRESSION && st->verdict != DRA_AB_INCONCLUSIVE)
                continue;
            char ch[32];
            fputs(st->verdict == DRA_AB_REGRESSION ? "regression: " : "inconclusive: ", f);
            dra_esc_term(f, x->metrics[m]);
            fputs(" of ", f);
            dra_esc_term(f, x->name);
            if (st->verdict == DRA_AB_REGRESSION)
                fprintf(f,
                        ": B/A %.3f (%s: B takes %.1f%% longer), interval [%.3f, %.3f], "
                        "p=%.3f, %zu rounds; A/A noise floor +-%.1f%%\n",
                        st->ratio, pct(st->ratio, ch, sizeof ch), 100 * st->slowdown, st->lo,
                        st->hi, st->p, st->n, 100 * (exp(st->noise) - 1));
            else
                fprintf(f, ": %s\n", st->note);
        }
    }
}

/* "- A: `exe` built from REV (git), environment `X=1`, run options `--invariants off`" */
static void md_side(FILE *f, const char *label, const dra_ab_side_t *x)
{
    fprintf(f, "- %s: `", label);
    dra_esc_md_code(f, x->exe);
    fputc('`', f);
    if (x->rev) {
        fputs(" built from ", f);
        dra_esc_md(f, x->rev);
    }
    fputs(" (", f);
    dra_esc_md(f, *x->git ? x->git : "?");
    fputc(')', f);
    for (int k = 0; k < 2; k++) {
        char **v = k ? x->args : x->env;
        size_t n = k ? x->nargs : x->nenv;
        for (size_t i = 0; i < n; i++) {
            fputs(i ? " `" : k ? ", run options `" : ", environment `", f);
            dra_esc_md_code(f, v[i]);
            fputc('`', f);
        }
    }
    fputc('\n', f);
}

int dra_ab_write_md(const dra_ab_session_t *s, FILE *f)
{
    fprintf(f, "## drabench ab: %s\n\n", status_text(s->exit_status));
    fprintf(f, "Exit status %d: %zu regression(s), %zu improvement(s), %zu inconclusive.\n\n",
            s->exit_status, s->nregressions, s->nimproved, s->ninconclusive);
    md_side(f, "A", &s->a);
    md_side(f, "B", &s->b);
    fputs("- Method: ", f);
    char *buf = NULL;
    size_t len = 0;
    FILE *m = open_memstream(&buf, &len);
    if (m) {
        write_method(s, m, "");
        fclose(m);
        for (char *p = buf; p && *p; p++)
            if (*p == '\n')
                *p = ' ';
        dra_esc_md(f, buf ? buf : "");
        free(buf);
    }
    fprintf(f, "\n- Sitting: %.0f s, load average %.2f at the start, %.2f at the end, %d CPUs\n\n",
            s->wall_s, s->load_start, s->load_end, s->cpus);
    if (s->exit_status != DRA_EXIT_OK) {
        fputs("```\n", f);
        dra_ab_write_gate_lines(s, f);
        fputs("```\n\n", f);
    }
    fputs("| scenario | metric | rounds (A/B+A/A) | B/A | interval | change | p | A/A noise floor "
          "| verdict |\n| --- | --- | ---: | ---: | --- | ---: | ---: | ---: | --- |\n",
          f);
    for (size_t sc = 0; sc < s->nscen; sc++) {
        const dra_ab_scenario_t *x = &s->scen[sc];
        for (size_t k = 0; k < x->nmetrics && x->stats; k++) {
            const dra_ab_stat_t *st = &x->stats[k];
            char ch[32], vl[400], pv[32] = "-", fl[32] = "-";
            fputs("| ", f);
            dra_esc_md(f, x->name);
            fputs(" | ", f);
            dra_esc_md(f, x->metrics[k]);
            /* no test or no A/A rounds: a dash, as the text table, not "nan" */
            if (isfinite(st->p))
                snprintf(pv, sizeof pv, "%.3f", st->p);
            if (isfinite(st->noise))
                snprintf(fl, sizeof fl, "%.1f%%", 100 * (exp(st->noise) - 1));
            fprintf(f, " | %zu+%zu | %.3f | [%.3f, %.3f] | %s | %s | %s | ", st->n, st->n_aa,
                    st->ratio, st->lo, st->hi, pct(st->ratio, ch, sizeof ch), pv, fl);
            verdict_label(st, vl, sizeof vl);
            if (st->verdict == DRA_AB_REGRESSION)
                fputs("**", f);
            dra_esc_md(f, vl);
            if (st->verdict == DRA_AB_REGRESSION)
                fputs("**", f);
            fputs(" |\n", f);
        }
    }
    fputc('\n', f);
    bool any = false;
    for (size_t sc = 0; sc < s->nscen; sc++) {
        char eb[1200];
        if (!ext_text(s, &s->scen[sc], eb, sizeof eb))
            continue;
        fputs("- ", f);
        dra_esc_md(f, s->scen[sc].name);
        fputs(": ", f);
        dra_esc_md(f, eb);
        fputs("\n", f);
        any = true;
    }
    if (any)
        fputc('\n', f);
    for (size_t i = 0; i < s->nwarn; i++) {
        fputs("- warning: ", f);
        dra_esc_md(f, s->warn[i]);
        fputc('\n', f);
    }
    return ferror(f) ? DRA_EIO : DRA_OK;
}

static json_t *jnum(double v)
{
    return isfinite(v) ? json_real(v) : json_null();
}

static json_t *jside(const dra_ab_side_t *x)
{
    json_t *o = json_object(), *env = json_array(), *args = json_array();
    for (size_t i = 0; i < x->nenv; i++)
        json_array_append_new(env, json_string(x->env[i]));
    for (size_t i = 0; i < x->nargs; i++)
        json_array_append_new(args, json_string(x->args[i]));
    json_object_set_new(o, "run_args", args);
    json_object_set_new(o, "executable", json_string(x->exe ? x->exe : ""));
    json_object_set_new(o, "rev", x->rev ? json_string(x->rev) : json_null());
    json_object_set_new(o, "git", json_string(x->git ? x->git : ""));
    json_object_set_new(o, "environment", env);
    return o;
}

static const char *better_name(int b)
{
    return b == DRA_RLOAD_BETTER_HIGHER ? "higher" : b == DRA_RLOAD_BETTER_LOWER ? "lower" : "none";
}

/* A metric's statistics of the planned rounds, before the extension. */
static json_t *jbefore(const dra_ab_stat_t *st)
{
    json_t *o = json_object();
    json_object_set_new(o, "rounds", json_integer((json_int_t)st->n));
    json_object_set_new(o, "aa_rounds", json_integer((json_int_t)st->n_aa));
    json_object_set_new(o, "ratio", jnum(st->ratio));
    json_object_set_new(o, "interval", json_pack("[o, o]", jnum(st->lo), jnum(st->hi)));
    json_object_set_new(o, "slowdown_pct", jnum(100 * st->slowdown));
    json_object_set_new(o, "p", jnum(st->p));
    json_object_set_new(o, "noise_floor_pct", jnum(100 * (exp(st->noise) - 1)));
    json_object_set_new(o, "floor_above_threshold", json_boolean(st->floor_above));
    json_object_set_new(o, "verdict", json_string(dra_ab_verdict_name(st->verdict)));
    json_object_set_new(o, "note", json_string(st->note ? st->note : ""));
    return o;
}

/* The extension of a scenario, or null when it was not triggered. */
static json_t *jext(const dra_ab_session_t *s, const dra_ab_scenario_t *x)
{
    const dra_ab_extension_t *e = &x->ext;
    if (!e->triggered)
        return json_null();
    char buf[1200];
    json_t *o = json_object();
    json_object_set_new(o, "metric",
                        json_string(e->metric < x->nmetrics ? x->metrics[e->metric] : ""));
    json_object_set_new(o, "noise_floor_pct", jnum(100 * (exp(e->floor) - 1)));
    json_object_set_new(o, "threshold_pct", json_real(100 * s->threshold));
    json_object_set_new(o, "planned_rounds", json_integer((json_int_t)e->planned_ab));
    json_object_set_new(o, "planned_aa_rounds", json_integer((json_int_t)e->planned_aa));
    json_object_set_new(o, "cap_rounds", json_integer((json_int_t)e->want_ab));
    json_object_set_new(o, "cap_aa_rounds", json_integer((json_int_t)e->want_aa));
    json_object_set_new(o, "rounds", json_integer((json_int_t)e->ab));
    json_object_set_new(o, "aa_rounds", json_integer((json_int_t)e->aa));
    json_object_set_new(o, "extended", json_boolean(e->ab + e->aa > 0));
    json_object_set_new(o, "budget_cut", json_boolean(e->budget_cut));
    json_object_set_new(o, "budget_left_s", jnum(e->left_s));
    json_object_set_new(o, "round_cost_s", jnum(e->cost_s));
    json_object_set_new(o, "reason", json_string(ext_text(s, x, buf, sizeof buf)));
    return o;
}

int dra_ab_write_json(const dra_ab_session_t *s, FILE *f)
{
    json_t *root = json_object(), *method = json_object(), *scen = json_array(),
           *warn = json_array(), *host = json_object();
    if (!root || !method || !scen || !warn || !host) {
        json_decref(root);
        json_decref(method);
        json_decref(scen);
        json_decref(warn);
        json_decref(host);
        return DRA_ENOMEM;
    }
    char seed[24];
    snprintf(seed, sizeof seed, "%llu", (unsigned long long)s->seed);
    json_object_set_new(method, "rounds", json_integer((json_int_t)s->rounds));
    json_object_set_new(method, "aa_rounds", json_integer((json_int_t)s->aa));
    json_object_set_new(method, "order", json_string("randomized per round"));
    json_object_set_new(method, "seed", json_string(seed));
    json_object_set_new(method, "pin_cpu", s->pin >= 0 ? json_integer(s->pin) : json_null());
    json_object_set_new(method, "aslr", json_boolean(!s->no_aslr));
    json_object_set_new(method, "executable",
                        json_string(s->in_place ? "in place" : "a fresh copy per process"));
    json_object_set_new(method, "pause_ms", json_integer(s->pause_ms));
    json_object_set_new(method, "max_load", s->max_load > 0 ? json_real(s->max_load) : json_null());
    json_object_set_new(method, "budget_s", s->budget_s > 0 ? json_real(s->budget_s) : json_null());
    json_object_set_new(method, "extend", s->extend > 0 ? json_real(s->extend) : json_null());
    json_object_set_new(method, "sample",
                        json_string(s->sample_best ? "best repetition of the process"
                                                   : "median of the process's repetitions"));
    json_object_set_new(method, "test", json_string("Wilcoxon signed-rank, two-sided, on ln(B/A)"));
    json_object_set_new(method, "interval",
                        json_string("percentile bootstrap of the median of ln(B/A)"));
    json_object_set_new(method, "noise_floor",
                        json_string("bound farthest from 0 of the bootstrap interval of the median of as many "
                                    "draws as A/B rounds from the A/A log-ratios and the A/B "
                                    "ones re-centred at the A/A median"));
    json_object_set_new(method, "alpha", json_real(s->alpha));
    json_object_set_new(method, "confidence", json_real(s->confidence));
    json_object_set_new(method, "threshold_pct", json_real(100 * s->threshold));
    json_object_set_new(method, "resamples", json_integer(s->resamples));
    json_object_set_new(host, "hostname", json_string(s->hostname ? s->hostname : ""));
    json_object_set_new(host, "cpu_model", json_string(s->cpu_model ? s->cpu_model : ""));
    json_object_set_new(host, "cpus", json_integer(s->cpus));
    json_object_set_new(host, "load_start", jnum(s->load_start));
    json_object_set_new(host, "load_end", jnum(s->load_end));
    json_object_set_new(host, "wall_s", json_real(s->wall_s));
    json_object_set_new(host, "busy_rounds", json_integer((json_int_t)s->busy_rounds));
    for (size_t sc = 0; sc < s->nscen; sc++) {
        const dra_ab_scenario_t *x = &s->scen[sc];
        json_t *o = json_object(), *args = json_array(), *rounds = json_array(),
               *metrics = json_array();
        for (size_t i = 0; i < x->nargs; i++)
            json_array_append_new(args, json_string(x->args[i]));
        for (size_t i = 0; i < x->nrounds; i++) {
            const dra_ab_round_t *r = &x->rounds[i];
            json_t *ro = json_object(), *a = json_object(), *b = json_object();
            for (size_t m = 0; m < x->nmetrics; m++) {
                json_object_set_new(a, x->metrics[m], jnum(r->a[m]));
                json_object_set_new(b, x->metrics[m], jnum(r->b[m]));
            }
            json_object_set_new(ro, "index", json_integer(r->index));
            json_object_set_new(ro, "kind", json_string(r->aa ? "aa" : "ab"));
            json_object_set_new(ro, "extension", json_boolean(r->extension));
            json_object_set_new(ro, "order", json_string(r->b_first ? "BA" : "AB"));
            json_object_set_new(ro, "load1", r->load1 >= 0 ? json_real(r->load1) : json_null());
            json_object_set_new(ro, "a", a);
            json_object_set_new(ro, "b", b);
            json_array_append_new(rounds, ro);
        }
        for (size_t m = 0; m < x->nmetrics && x->stats; m++) {
            const dra_ab_stat_t *st = &x->stats[m];
            json_t *mo = json_object();
            json_object_set_new(mo, "metric", json_string(x->metrics[m]));
            json_object_set_new(mo, "unit", json_string(x->units[m]));
            json_object_set_new(mo, "better", json_string(better_name(x->better[m])));
            json_object_set_new(mo, "rounds", json_integer((json_int_t)st->n));
            json_object_set_new(mo, "aa_rounds", json_integer((json_int_t)st->n_aa));
            json_object_set_new(mo, "ratio", jnum(st->ratio));
            json_object_set_new(mo, "interval", json_pack("[o, o]", jnum(st->lo), jnum(st->hi)));
            json_object_set_new(mo, "change_pct", jnum(100 * (st->ratio - 1)));
            json_object_set_new(mo, "slowdown_pct", jnum(100 * st->slowdown));
            json_object_set_new(mo, "p", jnum(st->p));
            json_object_set_new(mo, "aa_ratio", jnum(st->aa_ratio));
            json_object_set_new(mo, "aa_interval",
                                json_pack("[o, o]", jnum(st->aa_lo), jnum(st->aa_hi)));
            json_object_set_new(mo, "noise_floor_pct", jnum(100 * (exp(st->noise) - 1)));
            json_object_set_new(mo, "aa_only_interval",
                                json_pack("[o, o]", jnum(st->aa_only_lo), jnum(st->aa_only_hi)));
            json_object_set_new(mo, "noise_floor_aa_only_pct",
                                jnum(100 * (exp(st->noise_aa_only) - 1)));
            json_object_set_new(mo, "verdict", json_string(dra_ab_verdict_name(st->verdict)));
            json_object_set_new(mo, "note", json_string(st->note ? st->note : ""));
            json_object_set_new(mo, "floor_above_threshold", json_boolean(st->floor_above));
            json_object_set_new(mo, "before_extension",
                                x->ext.before ? jbefore(&x->ext.before[m]) : json_null());
            json_array_append_new(metrics, mo);
        }
        json_object_set_new(o, "scenario", json_string(x->name));
        json_object_set_new(o, "args", args);
        json_object_set_new(o, "digest_a", x->digest_a ? json_string(x->digest_a) : json_null());
        json_object_set_new(o, "digest_b", x->digest_b ? json_string(x->digest_b) : json_null());
        json_object_set_new(
            o, "decisions_equal",
            json_boolean(x->digest_a && x->digest_b && strcmp(x->digest_a, x->digest_b) == 0));
        json_object_set_new(o, "metric_note",
                            x->metric_note ? json_string(x->metric_note) : json_null());
        json_object_set_new(o, "rounds", rounds);
        json_object_set_new(o, "metrics", metrics);
        json_object_set_new(o, "extension", jext(s, x));
        json_array_append_new(scen, o);
    }
    for (size_t i = 0; i < s->nwarn; i++)
        json_array_append_new(warn, json_string(s->warn[i]));
    json_object_set_new(root, "schema", json_string(DRA_AB_SCHEMA));
    json_object_set_new(root, "exit_status", json_integer(s->exit_status));
    json_object_set_new(root, "verdict", json_string(status_text(s->exit_status)));
    json_object_set_new(root, "regressions", json_integer((json_int_t)s->nregressions));
    json_object_set_new(root, "improvements", json_integer((json_int_t)s->nimproved));
    json_object_set_new(root, "inconclusive", json_integer((json_int_t)s->ninconclusive));
    json_object_set_new(root, "a", jside(&s->a));
    json_object_set_new(root, "b", jside(&s->b));
    json_object_set_new(root, "method", method);
    json_object_set_new(root, "host", host);
    json_object_set_new(root, "scenarios", scen);
    json_object_set_new(root, "warnings", warn);
    int rc = json_dumpf(root, f, JSON_INDENT(2) | JSON_SORT_KEYS | JSON_REAL_PRECISION(15));
    fputc('\n', f);
    json_decref(root);
    return rc == 0 && !ferror(f) ? DRA_OK : DRA_EIO;
}
