/*
 * test_manifest_sink.c - the streaming writer (dra_manifest_write_*_sink) produces exactly the
 * bytes of the buffer writer, in bounded pieces, and stops on a sink error.
 *
 * The model is a generated 170-node cluster (DGX H100 and dynamic MIG: a few MiB of YAML, many
 * writer chunks) plus the dra-example-driver manifests (classes, claims, templates, pods), so
 * every object kind goes through both paths.
 */
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "gen/cluster.h"
#include "manifest.h"

typedef struct collect {
    dra_sbuf_t all;
    size_t calls, largest;
    size_t fail_after; /* return DRA_EIO on this call (1-based); 0 = never */
} collect_t;

static int collect_sink(void *ud, const char *p, size_t n)
{
    collect_t *c = ud;
    c->calls++;
    if (c->fail_after && c->calls == c->fail_after)
        return DRA_EIO;
    if (n > c->largest)
        c->largest = n;
    dra_sbuf_put(&c->all, p, n);
    return DRA_OK;
}

static int build_model(dra_model_t *m)
{
    dra_gen_group_t g[2];
    memset(g, 0, sizeof g);
    g[0].profile = DRA_GEN_DGX_H100;
    g[0].count = 150;
    dra_gen_params_default(g[0].profile, &g[0].params);
    g[1].profile = DRA_GEN_H100_MIG_DYNAMIC;
    g[1].count = 20;
    dra_gen_params_default(g[1].profile, &g[1].params);
    dra_gen_cluster_spec_t spec = {.groups = g, .ngroups = 2};
    dra_diag_t d;
    int rc = dra_gen_cluster_build(m, &spec, 1, NULL, &d);
    if (rc)
        return rc;
    /* classes, claims, templates, pods and slices of every shape from real manifests */
    char *dir[] = {"../shared/real-manifests/dra-example-driver"};
    rc = dra_manifest_read_paths(m, dir, 1, NULL); /* findings do not matter here */
    if (rc == DRA_ENOMEM || rc == DRA_EIO)
        return rc;
    return m->npods && m->nclaims && m->ntemplates && m->nclasses ? DRA_OK : DRA_EINVAL;
}

static void test_same_bytes(void)
{
    dra_model_t m;
    dra_model_init(&m);
    CHECK_OK(build_model(&m));
    for (int json = 0; json < 2; json++) {
        dra_sbuf_t whole = {0};
        CHECK_OK(json ? dra_manifest_write_json_buf(&m, &whole)
                      : dra_manifest_write_yaml_buf(&m, &whole));
        CHECK(whole.len > (size_t)1 << 20); /* several chunks */
        CHECK_EQ_U64(strlen(whole.p), whole.len); /* NUL-terminated */
        collect_t c = {0};
        CHECK_OK(json ? dra_manifest_write_json_sink(&m, collect_sink, &c)
                      : dra_manifest_write_yaml_sink(&m, collect_sink, &c));
        CHECK_EQ_U64(c.all.len, whole.len);
        CHECK(c.all.len == whole.len && memcmp(c.all.p, whole.p, whole.len) == 0);
        CHECK(c.calls > 2);
        CHECK(c.largest < (size_t)1 << 20); /* bounded pieces, not the whole output */
        dra_sbuf_fini(&c.all);
        dra_sbuf_fini(&whole);
    }
    dra_model_fini(&m);
}

static void test_sink_error_stops(void)
{
    dra_model_t m;
    dra_model_init(&m);
    CHECK_OK(build_model(&m));
    collect_t c = {.fail_after = 2};
    CHECK_EQ_I64(dra_manifest_write_yaml_sink(&m, collect_sink, &c), DRA_EIO);
    CHECK_EQ_U64(c.calls, 2); /* no call after the failing one */
    dra_sbuf_fini(&c.all);
    dra_model_fini(&m);
}

int main(void)
{
    RUN(test_same_bytes);
    RUN(test_sink_error_stops);
    return check_summary();
}
