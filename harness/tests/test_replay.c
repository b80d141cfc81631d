/* test_replay.c - trace replay: CSV parsing, objects and their manifest round trip, the replay's
 * curve on a hand-computed trace, device choice policy vs dra. */
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "manifest.h"
#include "replay.h"

static const char nodes_csv[] = "sn,cpu_milli,memory_mib,gpu,model\n"
                                "n-0,64000,262144,2,T4\r\n"
                                "n-1,64000,262144,2,T4\n"
                                "cpu-0,32000,65536,0,\n";
static const char pods_csv[] =
    "name,cpu_milli,memory_mib,num_gpu,gpu_milli,gpu_spec,qos,pod_phase,creation_time,"
    "deletion_time,scheduled_time\n"
    "p-0,4000,8192,1,600,,LS,Running,0,10,0\n"
    "p-1,4000,8192,1,600,T4||P100,LS,Running,0,10,0\n"
    "p-2,8000,16384,2,1000,,LS,Running,0,10,0\n"
    "c-0,1000,1024,0,0,,LS,Running,0,10,0";

static void load(dra_replay_trace_t *t)
{
    dra_diag_t d;
    memset(t, 0, sizeof *t);
    CHECK_OK(dra_replay_parse_nodes(t, "nodes.csv", nodes_csv, sizeof nodes_csv - 1, &d));
    CHECK_OK(dra_replay_parse_pods(t, "pods.csv", pods_csv, sizeof pods_csv - 1, &d));
}

static void test_parse(void)
{
    dra_replay_trace_t t;
    load(&t);
    CHECK_EQ_U64(t.nnodes, 3);
    CHECK_EQ_U64(t.npods, 4);
    CHECK_EQ_U64(t.nmodels, 2); /* T4 from the nodes, P100 from a gpu_spec */
    CHECK_STREQ(t.models[0], "T4");
    CHECK_EQ_U64(t.nodes[2].ngpu, 0);
    CHECK_EQ_U64(t.pods[1].models, 3);
    CHECK_EQ_U64(t.pods[0].models, 0);
    CHECK_EQ_U64(t.pods[3].line, 5);
    dra_replay_trace_fini(&t);
    /* an error names file:line */
    dra_replay_trace_t u = {0};
    dra_diag_t d;
    static const char bad[] = "sn,cpu_milli,memory_mib,gpu,model\nn-0,1,1,1,T4\nn-1,-1,1,1,T4\n";
    CHECK(dra_replay_parse_nodes(&u, "bad.csv", bad, sizeof bad - 1, &d) == DRA_EPARSE);
    CHECK_STREQ(d.file, "bad.csv");
    CHECK_EQ_U64(d.line, 3);
    CHECK(strstr(d.msg, "cpu_milli") != NULL);
    dra_replay_trace_fini(&u);
}

/* Objects -> YAML -> objects -> YAML: same bytes, same digest, Node allocatable kept. */
static void test_round_trip(void)
{
    dra_replay_trace_t t;
    load(&t);
    dra_model_t m, m2;
    dra_model_init(&m);
    dra_model_init(&m2);
    CHECK_OK(dra_replay_build_model(&t, false, &m));
    CHECK_EQ_U64(m.nnodes, 3);
    CHECK_EQ_U64(m.nslices, 2);
    CHECK_EQ_U64(m.nclaims, 3);
    dra_diag_list_t errs;
    dra_diag_list_init(&errs);
    CHECK_OK(dra_manifest_validate(&m, &errs));
    dra_sbuf_t a = {0}, b = {0};
    CHECK_OK(dra_manifest_write_yaml_buf(&m, &a));
    CHECK_OK(dra_manifest_read_buffer(&m2, "replay.yaml", a.p, a.len, &errs));
    CHECK_EQ_U64(errs.count, 0);
    CHECK_OK(dra_manifest_write_yaml_buf(&m2, &b));
    CHECK(a.len == b.len && memcmp(a.p, b.p, a.len) == 0);
    CHECK_EQ_U64(dra_model_digest(&m), dra_model_digest(&m2));
    CHECK_STREQ(m2.nodes[0]->alloc_cpu, "64000m");
    CHECK_STREQ(m2.nodes[2]->alloc_memory, "65536Mi");
    /* the share consumes 600 milli; in device-plugin mode 1000 */
    int64_t v = 0;
    CHECK_OK(dra_quantity_as_int64(&m.claims[0]->requests[0].exactly->cap_requests[0].value, &v));
    CHECK_EQ_I64(v, 600);
    dra_model_t m3;
    dra_model_init(&m3);
    CHECK_OK(dra_replay_build_model(&t, true, &m3));
    CHECK_OK(dra_quantity_as_int64(&m3.claims[0]->requests[0].exactly->cap_requests[0].value, &v));
    CHECK_EQ_I64(v, 1000);
    dra_model_fini(&m3);
    dra_sbuf_fini(&a);
    dra_sbuf_fini(&b);
    dra_diag_list_fini(&errs);
    dra_model_fini(&m);
    dra_model_fini(&m2);
    dra_replay_trace_fini(&t);
}

/* The replay: tune 0.8 submits exactly the three GPU pods (and the CPU pod); first-fit ends at
 * 80% allocated, 20% of all GPU fragmented (100% of idle), with either device choice. */
static void test_run(void)
{
    dra_replay_trace_t t;
    load(&t);
    dra_replay_dra_t dra;
    CHECK_OK(dra_replay_dra_init(&dra, &t, false));
    for (int ch = 0; ch < 2; ch++) {
        dra_replay_opts_t o = {DRA_POL_FIRST_FIT, (dra_replay_choice_t)ch, DRA_REPLAY_MODE_DRA, 0.8,
                               42};
        dra_replay_result_t r;
        dra_diag_t d;
        CHECK_OK(dra_replay_run(&t, &o, &dra, &r, &d));
        CHECK_EQ_U64(r.npoints, 9);
        CHECK_EQ_U64(r.submitted, 4);
        CHECK_EQ_U64(r.scheduled, 4);
        CHECK_NEAR(r.pt[8].alloc_pct, 80.0, 1e-9);
        CHECK_NEAR(r.pt[8].frag_amount_pct, 20.0, 1e-9);
        CHECK_NEAR(r.pt[8].frag_ratio_pct, 100.0, 1e-9);
        CHECK_NEAR(r.pt[0].alloc_pct, 0.0, 1e-9);
        CHECK_EQ_U64(r.dra_calls, ch ? 3 : 0);
        CHECK_EQ_U64(r.dra_refused, 0);
    }
    /* spread with policy device choice: the second share goes to the other node and the 2-GPU
     * pod finds no node only when it comes last; whatever the order, every point is within
     * [0, 100] and the capacity is 4000 milli. */
    dra_replay_opts_t o = {DRA_POL_SPREAD, DRA_REPLAY_CHOICE_POLICY, DRA_REPLAY_MODE_DRA, 0.8, 7};
    dra_replay_result_t r;
    dra_diag_t d;
    CHECK_OK(dra_replay_run(&t, &o, NULL, &r, &d));
    CHECK_EQ_I64(r.capacity_milli, 4000);
    CHECK(r.scheduled + r.unsched[DRA_REPLAY_UNSCHED_GPU_CAPACITY] == r.submitted);
    o.choice = DRA_REPLAY_CHOICE_DRA;
    CHECK(dra_replay_run(&t, &o, NULL, &r, &d) == DRA_EINVAL); /* dra choice needs the model */
    dra_replay_dra_fini(&dra);
    dra_replay_trace_fini(&t);
}

int main(void)
{
    RUN(test_parse);
    RUN(test_round_trip);
    RUN(test_run);
    return check_summary();
}
