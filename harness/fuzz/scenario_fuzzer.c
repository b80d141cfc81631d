/*
 * scenario_fuzzer.c - libFuzzer target: scenario bytes -> dra_scenario_load; when the scenario
 * loads and its cluster is small (at most 64 nodes in all), dra_scenario_build twice with the
 * scenario's seed. Properties (abort on violation): a load error carries a message; loading the
 * same bytes twice gives the same hash and seed; the two builds give the same model digest and
 * cluster statistics (determinism); a built model passes dra_manifest_validate. Anything else
 * only must not crash, leak or hang.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "manifest.h"
#include "scenario.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void fail(const char *what, const char *detail)
{
    fprintf(stderr, "scenario_fuzzer: %s%s%s\n", what, detail ? ": " : "", detail ? detail : "");
    abort();
}

/* Build s into a fresh model; returns the model digest (0 when the build failed). */
static uint64_t build(const dra_scenario_t *s, dra_gen_cluster_stats_t *st, int *rc_out)
{
    dra_model_t m;
    dra_model_init(&m);
    dra_scenario_built_t b;
    memset(&b, 0, sizeof b);
    dra_diag_t d;
    dra_diag_clear(&d);
    int rc = dra_scenario_build(s, &m, s->seed, &b, &d);
    uint64_t dg = 0;
    if (rc == DRA_OK) {
        dg = dra_model_digest(&m);
        *st = b.cluster;
        dra_diag_list_t errs;
        dra_diag_list_init(&errs);
        if (dra_model_imply_nodes(&m) == DRA_OK && dra_manifest_validate(&m, &errs) != DRA_OK &&
            errs.count) {
            char buf[DRA_DIAG_MSG_MAX + 256];
            fail("a built scenario does not validate",
                 dra_diag_format(&errs.items[0], buf, sizeof buf));
        }
        dra_diag_list_fini(&errs);
    } else if (rc != DRA_ENOMEM && !d.msg[0]) {
        fail("build error without a message", NULL);
    }
    dra_scenario_built_fini(&b);
    dra_model_fini(&m);
    *rc_out = rc;
    return dg;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size > (1u << 16))
        return 0;
    dra_scenario_t s, s2;
    dra_diag_t d;
    dra_diag_clear(&d);
    int rc = dra_scenario_load(&s, (const char *)data, size, "fuzz.yaml", &d);
    if (rc != DRA_OK) {
        if (rc != DRA_ENOMEM && !d.msg[0])
            fail("load error without a message", NULL);
        dra_scenario_fini(&s); /* the arena is the caller's to release, also after an error */
        return 0;
    }
    if (dra_scenario_load(&s2, (const char *)data, size, "fuzz.yaml", &d) != DRA_OK ||
        s2.hash != s.hash || s2.seed != s.seed)
        fail("second load differs", d.msg);
    dra_scenario_fini(&s2);
    uint64_t nodes = 0;
    for (uint32_t i = 0; i < s.ngroups; i++)
        nodes += s.groups[i].count;
    if (nodes <= 64) {
        dra_gen_cluster_stats_t a = {0}, b = {0};
        int r1 = 0, r2 = 0;
        uint64_t d1 = build(&s, &a, &r1), d2 = build(&s, &b, &r2);
        if (r1 != r2 || d1 != d2 || memcmp(&a, &b, sizeof a) != 0)
            fail("two builds with the same seed differ", NULL);
    }
    dra_scenario_fini(&s);
    return 0;
}
