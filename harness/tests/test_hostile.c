/* test_hostile.c - hostile result files: the loader rejects control characters and bad names
 * with the field path, and every writer escapes what it lets through (report: gnuplot, HTML,
 * Markdown; export: benchfmt). The escaping is tested on results whose strings are replaced
 * after loading, so it holds even for text the loader would have refused. */
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "check.h"
#include "report.h"
#include "rload.h"

#define FIX "corpora/golden/compare/"

static char *slurp(const char *dir, const char *name)
{
    char path[512];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    char *buf = NULL;
    size_t len = 0;
    FILE *m = open_memstream(&buf, &len);
    char tmp[4096];
    size_t n;
    while ((n = fread(tmp, 1, sizeof tmp, f)) > 0)
        fwrite(tmp, 1, n, m);
    fclose(f);
    fclose(m);
    return buf;
}

static void rm_tree(const char *dir)
{
    static const char *const names[] = {
        "index.html", "report.md",     "latency.gp",     "latency-1.dat", "latency-1.hgrm",
        "hist.gp",    "hist-1.dat",    "throughput.gp",  "throughput.dat", "frag.gp",
        "frag-1.dat", "latency.svg",   "hist.svg",       "throughput.svg", "frag.svg",
        "gnuplot.log", "MARKER"};
    char path[512];
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
        snprintf(path, sizeof path, "%s/%s", dir, names[i]);
        unlink(path);
    }
    rmdir(dir);
}

static int load(const char *json, dra_rload_result_t *r, dra_diag_t *d)
{
    dra_diag_clear(d);
    return dra_rload_buf(json, strlen(json), "evil.json", r, d);
}

static void test_loader_rejects(void)
{
    dra_rload_result_t r;
    dra_diag_t d;
    /* the exploit: a newline in tool.git */
    CHECK_EQ_I64(load("{\"schema\": \"drabench-result/v1\", \"tool\": {\"git\": \"x\\nsystem(\\\"id\\\")\"},"
                      " \"run\": {\"scenario\": \"s\"}, \"repetitions\": []}",
                      &r, &d),
                 DRA_EVALIDATE);
    CHECK_MSG(strstr(d.msg, "tool.git: control character U+000A") != NULL, "%s", d.msg);
    CHECK(d.file && strcmp(d.file, "evil.json") == 0);
    /* the error points at the field's value: line 1, column 50 of this text */
    CHECK_EQ_I64(d.line, 1);
    CHECK_EQ_I64(d.column, 50);
    /* a newline in a metric name (it would break the benchfmt line format) */
    CHECK_EQ_I64(load("{\"schema\": \"drabench-result/v1\", \"run\": {\"scenario\": \"s\"}, "
                      "\"repetitions\": [{\"values\": {\"a\\nBenchmarkX 1 1 ns/op\": 1}}]}",
                      &r, &d),
                 DRA_EVALIDATE);
    CHECK_MSG(strstr(d.msg, "repetitions[0].values") != NULL, "%s", d.msg);
    /* an escape sequence in a free-text field, a bidi override in a scenario name */
    CHECK_EQ_I64(load("{\"schema\": \"drabench-result/v1\", \"host\": {\"hostname\": \"h\\u001b[2J\"},"
                      " \"run\": {\"scenario\": \"s\"}, \"repetitions\": []}",
                      &r, &d),
                 DRA_EVALIDATE);
    CHECK(strstr(d.msg, "host.hostname") != NULL);
    CHECK_EQ_I64(load("{\"schema\": \"drabench-result/v1\", \"run\": {\"scenario\": \"a\\u202eb\"},"
                      " \"repetitions\": []}",
                      &r, &d),
                 DRA_EVALIDATE);
    CHECK(strstr(d.msg, "run.scenario") != NULL);
    /* names: a space in a policy, a path in the date (it becomes an export file name) */
    CHECK_EQ_I64(load("{\"schema\": \"drabench-result/v1\", \"run\": {\"scenario\": \"s\", "
                      "\"policy\": \"first fit\"}, \"repetitions\": []}",
                      &r, &d),
                 DRA_EVALIDATE);
    CHECK(strstr(d.msg, "run.policy") != NULL);
    CHECK_EQ_I64(load("{\"schema\": \"drabench-result/v1\", \"host\": {\"date\": "
                      "\"2026-/../.T/../../x\"}, \"run\": {\"scenario\": \"s\"}, \"repetitions\": []}",
                      &r, &d),
                 DRA_EVALIDATE);
    CHECK(strstr(d.msg, "host.date") != NULL);
    CHECK_EQ_I64(load("{\"schema\": \"drabench-result/v1\", \"status\": \"done<b>\", "
                      "\"run\": {\"scenario\": \"s\"}, \"repetitions\": []}",
                      &r, &d),
                 DRA_EVALIDATE);
    /* histogram counts that would overflow when readers pool them; a layout that is none */
    CHECK_EQ_I64(load("{\"schema\": \"drabench-result/v1\", \"run\": {\"scenario\": \"s\"}, "
                      "\"repetitions\": [{\"values\": {}, \"histograms\": [{\"name\": \"h\", "
                      "\"buckets\": [[5, 9223372036854775807], [6, 8]]}]}]}",
                      &r, &d),
                 DRA_EVALIDATE);
    CHECK_MSG(strstr(d.msg, "repetitions[0].histograms[0].buckets: more than 2^40") != NULL, "%s",
              d.msg);
    CHECK_EQ_I64(load("{\"schema\": \"drabench-result/v1\", \"run\": {\"scenario\": \"s\"}, "
                      "\"repetitions\": [{\"values\": {}, \"histograms\": [{\"name\": \"h\", "
                      "\"sigfigs\": 100, \"lowest\": 9223372036854775807, \"buckets\": []}]}]}",
                      &r, &d),
                 DRA_EVALIDATE);
    CHECK(strstr(d.msg, "is not a histogram") != NULL);
    /* free text may hold markup: the writers escape it */
    CHECK_OK(load("{\"schema\": \"drabench-result/v1\", \"run\": {\"scenario\": "
                  "\"<script>alert(1)</script>\"}, \"repetitions\": []}",
                  &r, &d));
    dra_rload_fini(&r);
}

static void test_report_escapes(void)
{
    dra_rload_result_t r;
    dra_diag_t d;
    if (dra_rload_file(FIX "base-default.json", &r, &d) != DRA_OK)
        CHECK_SKIP("fixtures not found (run from the project root)");
    /* bypass the loader: the writers must hold on their own */
    r.tool_git = "x\nsystem(\"touch MARKER\")\nprint \"y";
    r.scenario = "<script>alert(1)</script>|`x`\n# h";
    r.hostname = "h\x1b[2J";
    char dir[] = "/tmp/drabench-hostile-XXXXXX";
    CHECK(mkdtemp(dir) != NULL);
    dra_report_opts_t o = {.title = "<b>t</b>"}; /* gnuplot from $GNUPLOT or PATH, if any */
    dra_report_info_t info;
    CHECK_OK(dra_report_write(&r, 1, dir, &o, &info, &d));
    char marker[512];
    snprintf(marker, sizeof marker, "%s/MARKER", dir);
    CHECK_MSG(access(marker, F_OK) != 0, "gnuplot ran a command from a result file");
    CHECK_MSG(access("MARKER", F_OK) != 0, "gnuplot ran a command from a result file");
    static const char *const gps[] = {"latency.gp", "hist.gp", "frag.gp", "throughput.dat"};
    for (size_t i = 0; i < 4; i++) {
        char *gp = slurp(dir, gps[i]);
        if (!gp)
            continue;
        CHECK_MSG(strstr(gp, "\nsystem(") == NULL, "%s", gps[i]);
        CHECK(strstr(gp, "x\\x0asystem(") != NULL);
        free(gp);
    }
    char *html = slurp(dir, "index.html");
    CHECK(html && strstr(html, "<script>") == NULL && strstr(html, "<b>t</b>") == NULL);
    CHECK(html && strstr(html, "&lt;script&gt;alert(1)&lt;/script&gt;") != NULL);
    CHECK(html && strchr(html, '\x1b') == NULL);
    free(html);
    char *md = slurp(dir, "report.md");
    CHECK(md && strstr(md, "<script>") == NULL && strchr(md, '\x1b') == NULL);
    CHECK(md && strstr(md, "&lt;script&gt;alert(1)&lt;/script&gt;\\|\\`x\\` # h") != NULL);
    CHECK(md && strstr(md, "\n# h") == NULL);
    free(md);
    if (info.gnuplot_found)
        CHECK_EQ_I64(info.plots_failed, 0);
    rm_tree(dir);
    dra_rload_fini(&r);
}

static void test_benchfmt_lines(void)
{
    dra_rload_result_t r;
    dra_diag_t d;
    if (dra_rload_file(FIX "base-default.json", &r, &d) != DRA_OK)
        CHECK_SKIP("fixtures not found (run from the project root)");
    CHECK(r.nreps > 0 && r.reps[0].nvalues > 0);
    r.reps[0].value_names[0] = "evil\nBenchmarkFake 1 1 ns/op";
    r.policy = "first fit\nBenchmarkFake2 1 1 ns/op";
    r.hostname = "h\nUnit x better=higher";
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    CHECK_OK(dra_export_benchfmt(&r, 1, f));
    fclose(f);
    /* every line is a configuration line, a Unit line or a benchmark result line */
    size_t nbench = 0;
    for (char *line = strtok(buf, "\n"); line; line = strtok(NULL, "\n")) {
        bool config = line[0] >= 'a' && line[0] <= 'z' && strstr(line, ": ") != NULL;
        bool unit = strncmp(line, "Unit ", 5) == 0 && strchr(line, ':') == NULL;
        bool bench = strncmp(line, "BenchmarkDRAAlloc/", 18) == 0;
        CHECK_MSG(config || unit || bench, "stray line: %s", line);
        CHECK_MSG(strncmp(line, "BenchmarkFake", 13) != 0, "injected: %s", line);
        nbench += bench;
    }
    CHECK_EQ_I64(nbench, r.nreps);
    free(buf);
    dra_rload_fini(&r);
}

int main(void)
{
    RUN(test_loader_rejects);
    RUN(test_report_escapes);
    RUN(test_benchfmt_lines);
    return check_summary();
}
