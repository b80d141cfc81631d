/*
 * test_result_schema.c - the result schema table (harness/resultfile/schema.def): it agrees with
 * results/README.md both ways, and the walker's rules hold for the loader (lenient) and the
 * checker (strict): types, ranges, enums, hex ids, unknown keys, null, the pod of a violation.
 */
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "files.h"
#include "result.h"
#include "rload.h"
#include "schema.h"

/* ---- README ---------------------------------------------------------------------------------- */

static char *readme;

/* The section of results/README.md starting at the line `title`, up to the next heading. */
static const char *section(const char *title, size_t *len)
{
    const char *p = strstr(readme, title);
    if (!p)
        return NULL;
    const char *e = p + strlen(title);
    for (;;) {
        const char *nl = strchr(e, '\n');
        if (!nl) {
            e += strlen(e);
            break;
        }
        e = nl + 1;
        if (strncmp(e, "## ", 3) == 0 || strncmp(e, "### ", 4) == 0)
            break;
    }
    *len = (size_t)(e - p);
    return p;
}

static bool word_char(char c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_';
}

static bool has_word(const char *s, size_t len, const char *w)
{
    size_t n = strlen(w);
    for (size_t i = 0; i + n <= len; i++)
        if (memcmp(s + i, w, n) == 0 && (i == 0 || !word_char(s[i - 1])) &&
            (i + n == len || !word_char(s[i + n])))
            return true;
    return false;
}

/* The README section that documents field f: by its top-level ancestor. */
static const char *section_of(int f)
{
    int top = f;
    while (dra_rfields[top].parent != DRA_RF_ROOT)
        top = dra_rfields[top].parent;
    if (top == f)
        return "## Top level";
    switch (top) {
    case DRA_RF_TOOL:
        return "### `tool`";
    case DRA_RF_HOST:
        return "### `host`";
    case DRA_RF_RUN:
        return "### `run`";
    case DRA_RF_CLUSTER:
        return "### `cluster`";
    case DRA_RF_REPETITIONS:
        return "### `repetitions[i]`";
    case DRA_RF_INVARIANTS:
        return "### `invariants`";
    default: /* metrics, throughput, decisions: described in their top-level row */
        return "## Top level";
    }
}

static void test_readme_documents_every_field(void)
{
    for (int f = 0; f < DRA_RF_COUNT; f++) {
        size_t len = 0;
        const char *s = section(section_of(f), &len);
        char path[128];
        CHECK_MSG(s != NULL, "results/README.md has no section \"%s\"", section_of(f));
        CHECK_MSG(s && has_word(s, len, dra_rfields[f].key),
                  "results/README.md section \"%s\" does not mention `%s` (%s)", section_of(f),
                  dra_rfields[f].key, dra_rf_path((dra_rf_t)f, path, sizeof path));
    }
}

/* Every key in the first column of the README's key tables is a field of that object. */
static void check_table(const char *title, int parent)
{
    size_t len = 0;
    const char *s = section(title, &len);
    CHECK_MSG(s != NULL, "no section %s", title);
    if (!s)
        return;
    int rows = 0;
    for (const char *l = s; l && l < s + len; l = strchr(l, '\n'), l = l ? l + 1 : NULL) {
        if (strncmp(l, "| `", 3) != 0)
            continue;
        const char *end = strchr(l + 1, '|');
        for (const char *k = strchr(l, '`'); k && end && k < end;) {
            const char *ke = strchr(k + 1, '`');
            if (!ke || ke > end)
                break;
            char key[64];
            snprintf(key, sizeof key, "%.*s", (int)(ke - k - 1), k + 1);
            bool found = false;
            for (int f = 0; f < DRA_RF_COUNT && !found; f++)
                found = dra_rfields[f].parent == parent && strcmp(dra_rfields[f].key, key) == 0;
            CHECK_MSG(found, "results/README.md %s documents `%s`, which schema.def does not have",
                      title, key);
            rows++;
            k = strchr(ke + 1, '`');
        }
    }
    CHECK_MSG(rows > 3, "%s: only %d keys found in its table", title, rows);
}

static void test_readme_tables_are_fields(void)
{
    check_table("## Top level", DRA_RF_ROOT);
    check_table("### `run`", DRA_RF_RUN);
    check_table("### `repetitions[i]`", DRA_RF_REPETITIONS);
}

static void test_table_shape(void)
{
    char p[128];
    CHECK_STREQ(dra_rf_path(DRA_RF_METHOD_WARMUP, p, sizeof p), "run.method.warmup");
    CHECK_STREQ(dra_rf_path(DRA_RF_HIST_P99, p, sizeof p), "repetitions[].histograms[].p99");
    CHECK_STREQ(dra_rf_path(DRA_RF_METRIC_UNIT, p, sizeof p), "metrics.*.unit");
    for (int f = 0; f < DRA_RF_COUNT; f++) {
        const dra_rfield_t *d = &dra_rfields[f];
        /* a parent stands before its children and is a container */
        CHECK(d->parent < f);
        if (d->parent != DRA_RF_ROOT) {
            const dra_rfield_t *pd = &dra_rfields[d->parent];
            CHECK_MSG(pd->type == DRA_RT_OBJ || pd->elem == DRA_RT_OBJ, "%s", d->key);
        }
        /* no key twice in one object */
        for (int g = 0; g < f; g++)
            CHECK_MSG(dra_rfields[g].parent != d->parent || strcmp(dra_rfields[g].key, d->key) != 0,
                      "%s twice", d->key);
        CHECK((d->type == DRA_RT_ARR || d->type == DRA_RT_MAP) == (d->elem != DRA_RT_NONE));
    }
}

/* ---- loader (lenient) ----------------------------------------------------------------------- */

static int load(const char *json, dra_rload_result_t *r, dra_diag_t *d)
{
    dra_diag_clear(d);
    return dra_rload_buf(json, strlen(json), "t.json", r, d);
}

#define HEAD "{\"schema\": \"drabench-result/v1\", \"run\": {\"scenario\": \"s\"}, "

static void test_loader_rules(void)
{
    dra_rload_result_t r;
    dra_diag_t d;
    /* the writer writes the pod of a violation as an integer (-1: none); older files a name */
    CHECK_OK(load(HEAD "\"repetitions\": [], \"invariants\": {\"violations\": 2, \"first\": ["
                       "{\"repetition\": 1, \"pod\": 7, \"claim\": \"c\", \"node\": \"n\", "
                       "\"message\": \"m\"}, {\"repetition\": 0, \"pod\": -1, \"message\": \"x\"}, "
                       "{\"repetition\": 0, \"pod\": \"pod-3\", \"message\": \"y\"}]}}",
                  &r, &d));
    CHECK_EQ_U64(r.nfirst, 3);
    if (r.nfirst == 3) {
        CHECK_STREQ(r.first[0], "repetition 1 pod 7 claim c node n: m");
        CHECK_STREQ(r.first[1], "repetition 0: x");
        CHECK_STREQ(r.first[2], "repetition 0 pod pod-3: y");
    }
    CHECK_EQ_I64(r.inv_violations, 2);
    dra_rload_fini(&r);
    CHECK_EQ_I64(
        load(HEAD "\"repetitions\": [], \"invariants\": {\"first\": [{\"pod\": -2}]}}", &r, &d),
        DRA_EVALIDATE);
    CHECK_MSG(strstr(d.msg, "invariants.first[0].pod: -2 is out of range") != NULL, "%s", d.msg);
    /* ranges: a negative count */
    CHECK_EQ_I64(load(HEAD "\"repetitions\": [{\"values\": {}, \"pods\": -1}]}", &r, &d),
                 DRA_EVALIDATE);
    CHECK_MSG(strstr(d.msg, "repetitions[0].pods: -1 is out of range (at least 0)") != NULL, "%s",
              d.msg);
    /* hex identifiers */
    CHECK_EQ_I64(load(HEAD "\"repetitions\": [], \"digest\": \"ABCDEF0123456789\"}", &r, &d),
                 DRA_EVALIDATE);
    CHECK_MSG(strstr(d.msg, "digest: \"ABCDEF0123456789\" is not 16 lower-case hex digits") != NULL,
              "%s", d.msg);
    /* enums */
    CHECK_EQ_I64(load(HEAD "\"repetitions\": [{\"values\": {}, \"histograms\": [{\"phase\": "
                           "\"sleep\"}]}]}",
                      &r, &d),
                 DRA_EVALIDATE);
    CHECK_MSG(strstr(d.msg,
                     "repetitions[0].histograms[0].phase: \"sleep\" (expected "
                     "\"node_search\", \"allocate\", \"commit\", \"release\", \"pod\", \"update\" or \"cycle\")") != NULL,
              "%s", d.msg);
    CHECK_EQ_I64(load(HEAD "\"repetitions\": [], \"status\": \"done\"}", &r, &d), DRA_EVALIDATE);
    CHECK_MSG(strstr(d.msg, "status: \"done\" (expected \"complete\" or \"interrupted\")") != NULL,
              "%s", d.msg);
    /* missing required fields */
    CHECK_EQ_I64(load(HEAD "\"repetitions\": [{}]}", &r, &d), DRA_EVALIDATE);
    CHECK_MSG(strstr(d.msg, "repetitions[0].values: missing") != NULL, "%s", d.msg);
    CHECK_EQ_I64(load("{\"schema\": \"drabench-result/v1\", \"run\": {\"scenario\": \"\"}, "
                      "\"repetitions\": []}",
                      &r, &d),
                 DRA_EVALIDATE);
    CHECK_MSG(strstr(d.msg, "run.scenario: missing or empty") != NULL, "%s", d.msg);
    /* lenient: unknown keys ignored, null as absent, an integer written as a real */
    CHECK_OK(load(HEAD "\"repetitions\": [{\"values\": {}, \"pods\": 12.0, \"future\": 1}], "
                       "\"host\": {\"hostname\": null, \"cpus\": 4}, \"news\": {}}",
                  &r, &d));
    CHECK_EQ_I64(r.reps[0].pods, 12);
    CHECK_STREQ(r.hostname, "");
    CHECK_EQ_I64(r.cpus, 4);
    CHECK_STREQ(r.status, "complete");
    CHECK_STREQ(r.tool_version, ""); /* an absent object's strings read as "" */
    CHECK_EQ_I64(r.reps[0].index, 0);
    dra_rload_fini(&r);
    /* a wrong type is an error even where the field is optional */
    CHECK_EQ_I64(load(HEAD "\"repetitions\": [], \"cluster\": {\"nodes\": \"many\"}}", &r, &d),
                 DRA_EVALIDATE);
    CHECK_MSG(strstr(d.msg, "cluster.nodes: expected a number, got string") != NULL, "%s", d.msg);
    /* sanitize: a string or a list of names */
    CHECK_OK(load(HEAD
                  "\"repetitions\": [], \"tool\": {\"sanitize\": [\"address\", \"undefined\"]}}",
                  &r, &d));
    CHECK_STREQ(r.sanitize, "address,undefined");
    dra_rload_fini(&r);
}

/* ---- checker (strict) ----------------------------------------------------------------------- */

static void test_strict_rules(void)
{
    /* the loader's own minimal file is far from what the writer must write */
    json_error_t je;
    json_t *doc = json_loads(HEAD "\"repetitions\": []}", 0, &je);
    CHECK(doc != NULL);
    dra_diag_t d;
    dra_diag_clear(&d);
    CHECK_EQ_I64(dra_result_check(doc, &d), DRA_EVALIDATE);
    CHECK_MSG(strstr(d.msg, ": missing") != NULL, "%s", d.msg);
    json_decref(doc);
    CHECK_EQ_I64(dra_result_check(NULL, &d), DRA_EVALIDATE);
}

int main(void)
{
    char *buf = NULL;
    size_t len = 0;
    dra_diag_t d;
    dra_diag_clear(&d);
    if (dra_io_read_file("results/README.md", 1 << 20, &buf, &len, &d) != DRA_OK)
        fprintf(stderr, "results/README.md: %s\n", d.msg);
    readme = buf ? buf : calloc(1, 1);
    RUN(test_table_shape);
    RUN(test_readme_documents_every_field);
    RUN(test_readme_tables_are_fields);
    RUN(test_loader_rules);
    RUN(test_strict_rules);
    free(readme);
    return check_summary();
}
