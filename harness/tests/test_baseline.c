/*
 * test_baseline.c - analyze/baseline.c and the shared names of analyze/export.c: which result
 * files may be blessed, release names, slimming (paths reduced, one histogram kept, invalid JSON
 * named by line and column), writing a set (files, MANIFEST, CURRENT) and scenario file names.
 * Inputs: the fixtures in corpora/golden/compare/ (run from the project root).
 */
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "baseline.h"
#include "check.h"
#include "export.h"
#include "files.h"
#include "rload.h"

#define FIX "corpora/golden/compare/"

static void test_names(void)
{
    char b[65];
    CHECK_STREQ(dra_export_scenario_name("a/.hidden.yaml", b, sizeof b), "_hidden");
    CHECK_STREQ(dra_export_scenario_name("x/run.json", b, sizeof b), "run");
    CHECK_STREQ(dra_export_scenario_name("x/", b, sizeof b), "_");
    char longname[200];
    memset(longname, 'a', sizeof longname - 1);
    longname[sizeof longname - 1] = '\0';
    CHECK_EQ_U64(strlen(dra_export_scenario_name(longname, b, sizeof b)), 64);
    CHECK(dra_export_format_parse("csv") == DRA_EXPORT_CSV);
    CHECK(dra_export_format_parse("perfdash") == DRA_EXPORT_PERFDASH);
    CHECK(dra_export_format_parse("benchfmt") == DRA_EXPORT_BENCHFMT);
    CHECK(dra_export_format_parse("CSV") == DRA_EXPORT_NONE);
    CHECK(dra_export_format_parse(NULL) == DRA_EXPORT_NONE);
    CHECK(dra_export_write(DRA_EXPORT_NONE, NULL, 0, false, stdout) == DRA_EINVAL);
    CHECK(dra_baseline_release_ok("v0.1-rc_2"));
    CHECK(!dra_baseline_release_ok(""));
    CHECK(!dra_baseline_release_ok(".."));
    CHECK(!dra_baseline_release_ok("a/b"));
    CHECK(!dra_baseline_release_ok("a b"));
    CHECK(!dra_baseline_release_ok("CURRENT"));
    CHECK(!dra_baseline_release_ok("current"));
    CHECK(!dra_baseline_release_ok("local"));
    CHECK(!dra_baseline_release_ok("LOCAL"));
    CHECK(dra_baseline_release_ok("local-1"));
}

static void test_refusal(void)
{
    dra_rload_result_t r;
    dra_diag_t d;
    if (dra_rload_file(FIX "base-default.json", &r, &d) != DRA_OK)
        CHECK_SKIP("fixtures not found");
    CHECK(dra_baseline_refusal(&r) == DRA_BASELINE_FIT);
    dra_rload_fini(&r);
    CHECK_OK(dra_rload_file(FIX "violation-default.json", &r, &d));
    CHECK(dra_baseline_refusal(&r) == DRA_BASELINE_VIOLATIONS);
    dra_rload_fini(&r);
}

static void test_slim(void)
{
    static const char in[] =
        "{\"host\":{\"executable\":\"/opt/x/drabench\"},\"run\":{\"argv\":[\"/opt/x/drabench\","
        "\"run\",\"rel/s.yaml\"]},\"repetitions\":[{\"histograms\":["
        "{\"shape\":\"all\",\"phase\":\"pod\",\"outcome\":\"any\",\"n\":1},"
        "{\"shape\":\"gpu\",\"phase\":\"pod\",\"outcome\":\"any\",\"n\":2}]}]}";
    char *out = NULL;
    size_t len = 0;
    dra_diag_t d;
    dra_diag_clear(&d);
    CHECK_OK(dra_baseline_slim(in, sizeof in - 1, "in.json", false, &out, &len, &d));
    CHECK(out && len > 0 && out[len - 1] == '\n');
    CHECK_STREQ(out, "{\"host\":{\"executable\":\"drabench\"},\"repetitions\":[{\"histograms\":"
                     "[{\"n\":1,\"outcome\":\"any\",\"phase\":\"pod\",\"shape\":\"all\"}]}],"
                     "\"run\":{\"argv\":[\"drabench\",\"run\",\"rel/s.yaml\"]}}\n");
    free(out);
    out = NULL;
    CHECK_OK(dra_baseline_slim(in, sizeof in - 1, "in.json", true, &out, &len, &d));
    CHECK(out && strstr(out, "\"gpu\"") != NULL);
    free(out);
    out = NULL;
    dra_diag_clear(&d);
    CHECK(dra_baseline_slim("{\n  \"a\": ,", 10, "bad.json", false, &out, &len, &d) == DRA_EINVAL);
    CHECK(out == NULL);
    CHECK_STREQ(d.file, "bad.json");
    CHECK_EQ_U64(d.line, 2);
}

static int has_line(const char *path, const char *needle)
{
    char *buf = NULL;
    size_t len = 0;
    dra_diag_t d;
    if (dra_io_read_file(path, 1 << 20, &buf, &len, &d) != DRA_OK)
        return 0;
    int yes = strstr(buf, needle) != NULL;
    free(buf);
    return yes;
}

static void on_file(const char *path, void *ctx)
{
    (void)path;
    (*(int *)ctx)++;
}

static void test_write(void)
{
    dra_rload_result_t r[2];
    char *bufs[2] = {NULL, NULL};
    size_t lens[2];
    dra_diag_t d;
    const char *paths[2] = {FIX "base-default.json", FIX "noise-default.json"};
    for (int i = 0; i < 2; i++) {
        if (dra_io_read_file(paths[i], 1 << 26, &bufs[i], &lens[i], &d) != DRA_OK)
            CHECK_SKIP("fixtures not found");
        CHECK_OK(dra_rload_buf(bufs[i], lens[i], paths[i], &r[i], &d));
    }
    char root[] = "/tmp/drabench-baseline-XXXXXX";
    CHECK(mkdtemp(root) != NULL);
    dra_baseline_file_t in[2] = {{bufs[0], lens[0], &r[0]}, {bufs[1], lens[1], &r[1]}};
    int written = 0;
    dra_baseline_opts_t o = {.root = root, .release = "fx", .current = true, .blessed = 0,
                             .on_file = on_file, .ctx = &written};
    char dir[4096], p[4400];
    CHECK_OK(dra_baseline_write(&o, in, 2, dir, sizeof dir, &d));
    CHECK_EQ_I64(written, 2);
    char sname[128];
    dra_export_scenario_name(r[0].scenario, sname, sizeof sname);
    snprintf(p, sizeof p, "%s/%s.json", dir, sname);
    CHECK_MSG(access(p, F_OK) == 0, "%s missing", p);
    /* both fixtures share a scenario: the second is -2 */
    snprintf(p, sizeof p, "%s/%s-2.json", dir, sname);
    CHECK_MSG(access(p, F_OK) == 0, "%s missing", p);
    snprintf(p, sizeof p, "%s/MANIFEST", dir);
    CHECK(has_line(p, "blessed: 1970-01-01T00:00:00Z\nfiles: 2\n"));
    CHECK(has_line(p, "source: base-default.json\n"));
    snprintf(p, sizeof p, "%s/CURRENT", root);
    CHECK(has_line(p, "fx\n"));
    char cmd[200];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", root);
    CHECK(system(cmd) == 0);
    for (int i = 0; i < 2; i++) {
        dra_rload_fini(&r[i]);
        free(bufs[i]);
    }
}

int main(void)
{
    RUN(test_names);
    RUN(test_refusal);
    RUN(test_slim);
    RUN(test_write);
    return check_summary();
}
