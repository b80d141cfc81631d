/*
 * test_benchfmt_spec.c - `drabench export --format benchfmt` read back by a parser that follows
 * the Go benchmark data format (golang.org/x/perf/benchfmt, proposal 14313):
 *  - a configuration line is "key: value": the key starts with a lower-case letter and holds no
 *    space and no upper-case letter, one or more spaces or tabs follow the colon, the value is
 *    the rest of the line; it applies to every later benchmark line until the key is set again;
 *  - a benchmark line is "Benchmark" followed by a name whose first character is not a
 *    lower-case letter, an iteration count (decimal), then pairs of value and unit;
 *  - a unit metadata line is "Unit UNIT key=value..." with better=higher|lower and
 *    assume=nothing|exact;
 *  - anything else is ignored by readers, so the export must not contain other lines.
 * Checks: every line is one of those; two runs of one scenario from two commits export the same
 * configuration (benchstat compares them in one table: "vs base"); per-run keys appear only
 * with --label; ns/op is the timed allocator work per claim (1e9 / throughput.claims_per_s);
 * iterations are the claims; every unit used has its metadata as in the metric catalogue.
 * Inputs: the fixtures in corpora/golden/compare/ (run from the project root).
 */
#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "report.h"
#include "rload.h"

#define FIX "corpora/golden/compare/"

enum { MAXK = 32 };

typedef struct {
    char key[MAXK][64], val[MAXK][256];
    int n;
} config_t;

static void config_set(config_t *c, const char *k, const char *v)
{
    for (int i = 0; i < c->n; i++)
        if (strcmp(c->key[i], k) == 0) {
            snprintf(c->val[i], sizeof c->val[i], "%s", v);
            return;
        }
    if (c->n < MAXK) {
        snprintf(c->key[c->n], sizeof c->key[0], "%s", k);
        snprintf(c->val[c->n], sizeof c->val[0], "%s", v);
        c->n++;
    }
}

static const char *config_get(const config_t *c, const char *k)
{
    for (int i = 0; i < c->n; i++)
        if (strcmp(c->key[i], k) == 0)
            return c->val[i];
    return NULL;
}

/* The configuration as one string (keys in first-set order), for equality. */
static void config_str(const config_t *c, char *buf, size_t len)
{
    size_t pos = 0;
    buf[0] = '\0';
    for (int i = 0; i < c->n && pos < len; i++)
        pos += (size_t)snprintf(buf + pos, len - pos, "%s=%s;", c->key[i], c->val[i]);
}

/* A configuration line per the spec: key and value, or false. */
static bool parse_config(const char *line, char *key, size_t klen, const char **val)
{
    const char *colon = strchr(line, ':');
    if (!colon || colon == line || !islower((unsigned char)line[0]))
        return false;
    for (const char *p = line; p < colon; p++)
        if (isspace((unsigned char)*p) || isupper((unsigned char)*p))
            return false;
    if (colon[1] != ' ' && colon[1] != '\t' && colon[1] != '\0')
        return false;
    snprintf(key, klen, "%.*s", (int)(colon - line), line);
    const char *v = colon + 1;
    while (*v == ' ' || *v == '\t')
        v++;
    *val = v;
    return true;
}

typedef struct {
    char unit[64];
    char better[16], assume[16];
} unitmeta_t;

typedef struct {
    size_t nbench, nconfig, nunit, nother;
    char config_at_bench[8][2048]; /* configuration in effect at the first benchmark of each name */
    char names[8][256];
    size_t nnames;
    unitmeta_t units[64];
    size_t nunits;
    bool units_ok;     /* every unit of a benchmark line has metadata */
    bool nsop_ok;      /* ns/op = 1e9 / claims/s on every line */
    bool iters_ok;     /* iterations = claims of the repetition */
    config_t cfg;
} parsed_t;

static const unitmeta_t *unit_of(const parsed_t *p, const char *u)
{
    for (size_t i = 0; i < p->nunits; i++)
        if (strcmp(p->units[i].unit, u) == 0)
            return &p->units[i];
    return NULL;
}

static void parse(char *text, parsed_t *p, long long claims_per_line)
{
    memset(p, 0, sizeof *p);
    p->units_ok = p->nsop_ok = p->iters_ok = true;
    char *save = NULL;
    for (char *line = strtok_r(text, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
        char key[64];
        const char *val;
        if (line[0] == '\0')
            continue;
        if (strncmp(line, "Benchmark", 9) == 0 && !islower((unsigned char)line[9])) {
            p->nbench++;
            char *s2 = NULL;
            char *name = strtok_r(line, " \t", &s2);
            char *iters = strtok_r(NULL, " \t", &s2);
            CHECK(name && iters);
            if (!name || !iters)
                continue;
            char *end;
            long long it = strtoll(iters, &end, 10);
            CHECK_MSG(*end == '\0' && it > 0, "iterations '%s'", iters);
            if (claims_per_line && it != claims_per_line)
                p->iters_ok = false;
            double nsop = NAN, cps = NAN;
            size_t pairs = 0;
            for (char *v = strtok_r(NULL, " \t", &s2); v; v = strtok_r(NULL, " \t", &s2)) {
                char *u = strtok_r(NULL, " \t", &s2);
                CHECK_MSG(u != NULL, "value %s without a unit", v);
                if (!u)
                    break;
                double x = strtod(v, &end);
                CHECK_MSG(*end == '\0', "value '%s'", v);
                pairs++;
                if (strcmp(u, "ns/op") == 0)
                    nsop = x;
                if (strcmp(u, "claims/s") == 0)
                    cps = x;
                if (!unit_of(p, u))
                    p->units_ok = false;
            }
            CHECK(pairs > 0);
            if (!(isfinite(nsop) && isfinite(cps) && fabs(nsop - 1e9 / cps) <= 1e-6 * nsop))
                p->nsop_ok = false;
            size_t k = 0;
            while (k < p->nnames && strcmp(p->names[k], name) != 0)
                k++;
            if (k == p->nnames && k < 8) {
                snprintf(p->names[k], sizeof p->names[k], "%s", name);
                config_str(&p->cfg, p->config_at_bench[k], sizeof p->config_at_bench[k]);
                p->nnames++;
            }
        } else if (strncmp(line, "Unit", 4) == 0 && (line[4] == ' ' || line[4] == '\t')) {
            p->nunit++;
            char *s2 = NULL;
            strtok_r(line, " \t", &s2);
            char *u = strtok_r(NULL, " \t", &s2);
            CHECK(u != NULL);
            if (!u || p->nunits >= 64)
                continue;
            unitmeta_t *m = &p->units[p->nunits++];
            memset(m, 0, sizeof *m);
            snprintf(m->unit, sizeof m->unit, "%s", u);
            size_t nkv = 0;
            for (char *kv = strtok_r(NULL, " \t", &s2); kv; kv = strtok_r(NULL, " \t", &s2)) {
                char *eq = strchr(kv, '=');
                CHECK_MSG(eq && eq != kv, "unit metadata '%s' is not key=value", kv);
                if (!eq)
                    continue;
                *eq = '\0';
                nkv++;
                if (strcmp(kv, "better") == 0) {
                    CHECK(strcmp(eq + 1, "higher") == 0 || strcmp(eq + 1, "lower") == 0);
                    snprintf(m->better, sizeof m->better, "%s", eq + 1);
                } else if (strcmp(kv, "assume") == 0) {
                    CHECK(strcmp(eq + 1, "nothing") == 0 || strcmp(eq + 1, "exact") == 0);
                    snprintf(m->assume, sizeof m->assume, "%s", eq + 1);
                }
            }
            CHECK_MSG(nkv > 0, "Unit line for %s without metadata", u);
        } else if (parse_config(line, key, sizeof key, &val)) {
            p->nconfig++;
            config_set(&p->cfg, key, val);
        } else {
            p->nother++;
            CHECK_MSG(false, "line is neither configuration, benchmark nor unit: %s", line);
        }
    }
}

static char *export_text(const dra_rload_result_t *r, size_t n, bool label)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    if (!f)
        return NULL;
    int rc = dra_export_benchfmt_ex(r, n, label, f);
    fclose(f);
    CHECK_OK(rc);
    return buf;
}

/* Two commits of one scenario: one configuration, so benchstat shows "vs base". */
static void test_same_configuration(void)
{
    dra_rload_result_t a, b;
    dra_diag_t d;
    if (dra_rload_file(FIX "base-default.json", &a, &d) != DRA_OK)
        CHECK_SKIP("fixtures not found");
    CHECK_OK(dra_rload_file(FIX "regress-default.json", &b, &d));
    CHECK(strcmp(a.tool_git, b.tool_git) != 0); /* the fixtures come from two commits */
    char *ta = export_text(&a, 1, false), *tb = export_text(&b, 1, false);
    CHECK(ta && tb);
    parsed_t pa, pb;
    parse(ta, &pa, 0);
    parse(tb, &pb, 0);
    CHECK(pa.nother == 0 && pb.nother == 0);
    CHECK_EQ_U64(pa.nbench, a.nreps);
    CHECK(pa.nnames == 1 && pb.nnames == 1);
    CHECK_STREQ(pa.names[0], pb.names[0]);
    CHECK_MSG(strcmp(pa.config_at_bench[0], pb.config_at_bench[0]) == 0,
              "configurations differ:\n  %s\n  %s", pa.config_at_bench[0], pb.config_at_bench[0]);
    for (const char *const *k = (const char *const[]){"commit", "date", "host", "digest", NULL}; *k;
         k++)
        CHECK_MSG(config_get(&pa.cfg, *k) == NULL, "per-run key %s in the configuration", *k);
    CHECK(config_get(&pa.cfg, "cpu") && config_get(&pa.cfg, "release"));
    CHECK(pa.nsop_ok && pb.nsop_ok);
    CHECK(pa.units_ok && pb.units_ok);
    const unitmeta_t *u = unit_of(&pa, "ns/op");
    CHECK(u && strcmp(u->better, "lower") == 0);
    u = unit_of(&pa, "claims/s");
    CHECK(u && strcmp(u->better, "higher") == 0);
    u = unit_of(&pa, "search-cel_evaluations");
    CHECK(u && strcmp(u->assume, "exact") == 0);
    free(ta);
    free(tb);
    /* --label: per-run keys are configuration, so the two differ */
    ta = export_text(&a, 1, true);
    tb = export_text(&b, 1, true);
    parse(ta, &pa, 0);
    parse(tb, &pb, 0);
    CHECK(config_get(&pa.cfg, "commit") && config_get(&pa.cfg, "date"));
    CHECK(strcmp(pa.config_at_bench[0], pb.config_at_bench[0]) != 0);
    free(ta);
    free(tb);
    dra_rload_fini(&a);
    dra_rload_fini(&b);
}

/* Iterations are the claims of each repetition. */
static void test_iterations(void)
{
    dra_rload_result_t a;
    dra_diag_t d;
    if (dra_rload_file(FIX "base-mig-inference.json", &a, &d) != DRA_OK)
        CHECK_SKIP("fixtures not found");
    long long claims = a.reps[0].claims;
    bool same = true;
    for (size_t j = 0; j < a.nreps; j++)
        same = same && a.reps[j].claims == claims;
    CHECK(same && claims > 0);
    char *t = export_text(&a, 1, false);
    parsed_t p;
    parse(t, &p, claims);
    CHECK(p.iters_ok);
    CHECK(p.nsop_ok);
    free(t);
    dra_rload_fini(&a);
}

int main(void)
{
    RUN(test_same_configuration);
    RUN(test_iterations);
    return check_summary();
}
