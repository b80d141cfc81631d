/*
 * test_manifest_corpus.c - every file of ../shared/real-manifests through the manifest reader,
 * validator and writer, one line per file.
 *
 * The four files INDEX.md marks UPSTREAM BUG / UPSTREAM ERRORS must fail with errors naming their
 * faults; every other file must read and validate without errors and round-trip: write v1 YAML,
 * read it again, same dra_model_digest (and the same through the JSON writer).
 */
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "check.h"
#include "each_manifest.h"
#include "manifest.h"

typedef struct bad {
    const char *suffix;
    const char *faults[6]; /* substrings that must appear in the errors */
} bad_t;

static const bad_t bad_files[] = {
    {"device-taint-pod-noschedule/4-pod-not-scheduled.yaml", {"apiVersion: required field missing"}},
    {"intel-resource-drivers/gpu/pod-inline-aligned-gpus.yaml",
     {"unknown field \"apiversion\" (did you mean \"apiVersion\"?", "apiVersion: required field missing",
      "unknown field \"resourceclaims\""}},
    {"k8s-website-examples/resourceclaim.yaml",
     {"selectors[0].cel: required value: cel is null, and \"expression\" is a sibling of \"cel\""}},
    {"k8s-enhancements-keps/KEP-4815.tpu-multihost-slices.yaml",
     {"duplicate name \"device-slice\"", "\"tpu-couner-set\" is not defined",
      "\"tpu-pool\" is not defined", "got a bare quantity \"16\"", "unsupported value \"IN\""}},
};

static int nfiles, nbad_seen;

static const bad_t *expected_bad(const char *path)
{
    size_t pl = strlen(path);
    for (size_t i = 0; i < DRA_ARRAY_LEN(bad_files); i++) {
        size_t sl = strlen(bad_files[i].suffix);
        if (pl >= sl && strcmp(path + pl - sl, bad_files[i].suffix) == 0)
            return &bad_files[i];
    }
    return NULL;
}

static bool errs_contain(const dra_diag_list_t *l, const char *needle)
{
    for (size_t i = 0; i < l->count; i++)
        if (strstr(l->items[i].msg, needle))
            return true;
    return false;
}

static void print_errs(const dra_diag_list_t *l)
{
    char buf[1024];
    for (size_t i = 0; i < l->count && i < 20; i++)
        fprintf(stderr, "    %s\n", dra_diag_format(&l->items[i], buf, sizeof buf));
}

static int reread(const dra_sbuf_t *b, const char *name, uint64_t *digest, dra_diag_list_t *errs)
{
    dra_model_t m2;
    dra_model_init(&m2);
    int rc = dra_manifest_read_buffer(&m2, name, b->p ? b->p : "", b->len, errs);
    if (rc == DRA_OK)
        rc = dra_model_imply_nodes(&m2);
    if (rc == DRA_OK)
        rc = dra_manifest_validate(&m2, errs);
    *digest = dra_model_digest(&m2);
    if (rc != DRA_OK)
        print_errs(errs); /* file names point into the model: print before fini */
    dra_model_fini(&m2);
    return rc;
}

static void one_file(const char *path)
{
    nfiles++;
    const bad_t *bad = expected_bad(path);
    dra_model_t m;
    dra_model_init(&m);
    dra_diag_list_t errs;
    dra_diag_list_init(&errs);
    int rrc = dra_manifest_read_file(&m, path, &errs);
    int vrc = dra_manifest_validate(&m, &errs);
    if (bad) {
        nbad_seen++;
        bool ok = rrc != DRA_OK || vrc != DRA_OK;
        CHECK_MSG(ok, "%s: expected to be rejected", path);
        for (int i = 0; i < 6 && bad->faults[i]; i++) {
            bool has = errs_contain(&errs, bad->faults[i]);
            CHECK_MSG(has, "%s: no error mentions '%s'", path, bad->faults[i]);
            ok = ok && has;
        }
        printf("%s  %s (rejected, %zu errors)\n", ok ? "ok  " : "FAIL", path, errs.count);
        if (!ok)
            print_errs(&errs);
    } else {
        bool ok = rrc == DRA_OK && vrc == DRA_OK && errs.count == 0;
        CHECK_MSG(ok, "%s: read %d validate %d", path, rrc, vrc);
        if (!ok)
            print_errs(&errs);
        uint64_t d1 = dra_model_digest(&m), d2 = 0, d3 = 0;
        dra_sbuf_t y = {0}, j = {0};
        CHECK_OK(dra_manifest_write_yaml_buf(&m, &y));
        CHECK_OK(dra_manifest_write_json_buf(&m, &j));
        dra_diag_list_t e2;
        dra_diag_list_init(&e2);
        int r2 = reread(&y, "roundtrip.yaml", &d2, &e2);
        int r3 = reread(&j, "roundtrip.json", &d3, &e2);
        bool rt = r2 == DRA_OK && r3 == DRA_OK && d1 == d2 && d1 == d3;
        CHECK_MSG(rt, "%s: round trip yaml rc %d json rc %d digests %016llx %016llx %016llx", path,
                  r2, r3, (unsigned long long)d1, (unsigned long long)d2, (unsigned long long)d3);
        if (!rt) {
            if (getenv("DRA_TEST_VERBOSE"))
                fprintf(stderr, "%s\n", y.p ? y.p : "");
        }
        printf("%s  %s (%u slices, %llu devices, %u classes, %u claims, %u templates, %u pods, "
               "%u skipped)\n",
               ok && rt ? "ok  " : "FAIL", path, m.nslices, (unsigned long long)m.ndevices,
               m.nclasses, m.nclaims, m.ntemplates, m.npods, m.nskipped);
        dra_diag_list_fini(&e2);
        dra_sbuf_fini(&y);
        dra_sbuf_fini(&j);
    }
    dra_diag_list_fini(&errs);
    dra_model_fini(&m);
}

static void test_corpus(void)
{
    const char *shared = getenv("DRA_SHARED");
    char dir[4096];
    snprintf(dir, sizeof dir, "%s/real-manifests", shared && *shared ? shared : "../shared");
    struct stat st;
    if (stat(dir, &st) != 0) {
        CHECK_SKIP("real-manifests not found");
        return;
    }
    each_manifest(dir, one_file);
    printf("%d files, %d expected-bad files seen\n", nfiles, nbad_seen);
    CHECK(nfiles >= 150);
    CHECK_EQ_I64(nbad_seen, (int)DRA_ARRAY_LEN(bad_files));
}

int main(void)
{
    RUN(test_corpus);
    return check_summary();
}
