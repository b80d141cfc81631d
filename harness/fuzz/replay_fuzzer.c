/*
 * replay_fuzzer.c - property fuzzing of the trace replay (harness/bench/replay.h, core/policy).
 *
 * Input: a node list CSV, a NUL byte, a pod list CSV (without a NUL: the whole input is the pod
 * list, replayed on a fixed two-node cluster). Properties (abort on violation):
 *  - a rejected CSV names the file, a line >= 1 and a reason;
 *  - an accepted trace becomes objects that `drabench validate` accepts (dra_manifest_validate
 *    reports no error), whatever the names, models and numbers;
 *  - small accepted traces replay under first-fit, fgd, best-fit, random and spread with both
 *    device choices (dra only for small traces): the DRA allocator never refuses a node the
 *    summaries admit, every submitted pod is scheduled or counted under one reason, allocation
 *    never decreases along the curve (arrival-only) and stays within [0, 100], fragmentation
 *    stays within [0, 100] of all GPU and of idle GPU, served == allocated in DRA mode, and the
 *    same seed gives the same curve.
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "manifest.h"
#include "replay.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static const char default_nodes[] = "sn,cpu_milli,memory_mib,gpu,model\n"
                                    "n-0,16000,65536,2,T4\nn-1,32000,131072,4,V100\n";

static void fail(const char *what)
{
    fprintf(stderr, "replay_fuzzer: %s\n", what);
    abort();
}

static void check_diag(const dra_diag_t *d)
{
    if (!d->file || d->line < 1 || !d->msg[0])
        fail("a rejected CSV without file:line: reason");
}

static void check_run(const dra_replay_result_t *r, dra_replay_mode_t mode)
{
    uint64_t un = 0;
    for (int k = 0; k < DRA_REPLAY_UNSCHED_COUNT; k++)
        un += r->unsched[k];
    if (r->scheduled + un != r->submitted)
        fail("scheduled + unscheduled != submitted");
    if (r->dra_refused)
        fail("the DRA allocator refused a node the summaries admitted");
    for (uint32_t i = 0; i < r->npoints; i++) {
        const dra_replay_point_t *p = &r->pt[i];
        if (!(p->alloc_pct >= 0 && p->alloc_pct <= 100 + 1e-9) ||
            !(p->frag_amount_pct >= 0 && p->frag_amount_pct <= 100 + 1e-9) ||
            !(p->frag_ratio_pct >= 0 && p->frag_ratio_pct <= 100 + 1e-9))
            fail("a percentage outside [0, 100]");
        if (i > 0 && p->alloc_pct + 1e-9 < r->pt[i - 1].alloc_pct)
            fail("allocation decreased in an arrival-only replay");
        if (mode == DRA_REPLAY_MODE_DRA && fabs(p->served_pct - p->alloc_pct) > 1e-9)
            fail("served != allocated without the device plugin");
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size > 8192)
        return 0;
    const char *buf = (const char *)data;
    const char *nul = memchr(buf, '\0', size);
    const char *nodes = nul ? buf : default_nodes;
    size_t nlen = nul ? (size_t)(nul - buf) : sizeof default_nodes - 1;
    const char *pods = nul ? nul + 1 : buf;
    size_t plen = nul ? size - nlen - 1 : size;

    dra_replay_trace_t t = {0};
    dra_diag_t d;
    dra_diag_clear(&d);
    int rc = dra_replay_parse_nodes(&t, "nodes.csv", nodes, nlen, &d);
    if (rc == DRA_OK)
        rc = dra_replay_parse_pods(&t, "pods.csv", pods, plen, &d);
    if (rc != DRA_OK) {
        if (rc == DRA_EPARSE)
            check_diag(&d);
        dra_replay_trace_fini(&t);
        return 0;
    }
    for (int dp = 0; dp < 2; dp++) {
        dra_model_t m;
        dra_model_init(&m);
        dra_diag_list_t errs;
        dra_diag_list_init(&errs);
        if (dra_replay_build_model(&t, dp, &m) == DRA_OK &&
            dra_manifest_validate(&m, &errs) != DRA_OK) {
            char b[DRA_DIAG_MSG_MAX + 64];
            fprintf(stderr, "%s\n", errs.count ? dra_diag_format(&errs.items[0], b, sizeof b) : "");
            fail("an accepted trace gives objects validate rejects");
        }
        dra_diag_list_fini(&errs);
        dra_model_fini(&m);
    }
    uint32_t gpus = 0;
    for (uint32_t i = 0; i < t.nnodes; i++)
        gpus += t.nodes[i].ngpu;
    if (t.nnodes <= 16 && t.npods <= 64 && gpus <= 64) {
        static const dra_pol_kind_t pols[] = {DRA_POL_FIRST_FIT, DRA_POL_FGD, DRA_POL_BEST_FIT,
                                              DRA_POL_RANDOM, DRA_POL_SPREAD};
        for (int mode = 0; mode < 2; mode++) {
            dra_replay_dra_t dra;
            if (dra_replay_dra_init(&dra, &t, mode == DRA_REPLAY_MODE_DEVICE_PLUGIN) != DRA_OK)
                break;
            for (size_t k = 0; k < sizeof pols / sizeof pols[0]; k++)
                for (int ch = 0; ch < 2; ch++) {
                    dra_replay_opts_t o = {pols[k], (dra_replay_choice_t)ch,
                                           (dra_replay_mode_t)mode, 1.0, 42};
                    dra_replay_result_t r1, r2;
                    if (dra_replay_run(&t, &o, &dra, &r1, &d) != DRA_OK)
                        fail("replay failed on an accepted trace");
                    check_run(&r1, o.mode);
                    if (dra_replay_run(&t, &o, &dra, &r2, &d) != DRA_OK ||
                        memcmp(r1.pt, r2.pt, sizeof r1.pt) != 0 || r1.scheduled != r2.scheduled)
                        fail("same seed, different curve");
                }
            dra_replay_dra_fini(&dra);
        }
    }
    dra_replay_trace_fini(&t);
    return 0;
}
