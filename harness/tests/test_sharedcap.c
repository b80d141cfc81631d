/* test_sharedcap.c - DRASharedConsumableCapacity (KEP-5941, 1.38-pre): the gate, the new fields
 * (valueFrom, a counter's requestPolicy, consumedCounters) as read, validated, written and
 * digested, and what every allocator does with them (core/alloc/sharedcap.c): nothing charged
 * with the gate off, a refusal naming the slice with the gate on, the engine's hazard. */
#include <stdlib.h>
#include <string.h>

#include "alloc/fast.h"
#include "alloc/invariants.h"
#include "check.h"
#include "diag_fx.h"
#include "engine_fx.h"

/* ---- the gate --------------------------------------------------------------------------------- */

static void test_gate(void)
{
    dra_gate_t g;
    CHECK(dra_alloc_gate_lookup("DRASharedConsumableCapacity", &g));
    CHECK_EQ_U64(g, DRA_GATE_SHARED_CONSUMABLE_CAPACITY);
    dra_gate_stage_t st = dra_alloc_gate_stage(DRA_RELEASE_1_38_PRE, g);
    CHECK(st.exists && !st.def && !st.locked);
    CHECK_STREQ(st.stage, "alpha");
    CHECK(!dra_alloc_gate_stage(DRA_RELEASE_1_37, g).exists);
    dra_alloc_features_t f;
    dra_alloc_features_init(&f, DRA_RELEASE_1_38_PRE);
    CHECK(!dra_alloc_gate_on(&f, g));
    CHECK_EQ_U64(dra_alloc_variant(&f), DRA_VARIANT_INCUBATING);
    CHECK_OK(dra_alloc_features_set(&f, "DRASharedConsumableCapacity=true", NULL));
    CHECK(dra_alloc_gate_on(&f, g));
    CHECK_EQ_U64(dra_alloc_variant(&f), DRA_VARIANT_EXPERIMENTAL);
    dra_diag_t d;
    dra_diag_clear(&d);
    dra_alloc_features_init(&f, DRA_RELEASE_1_37);
    CHECK(dra_alloc_features_set(&f, "DRASharedConsumableCapacity=true", &d) == DRA_EINVAL);
    CHECK_MSG(strstr(d.msg, "does not exist in release 1.37") != NULL, "%s", d.msg);
}

/* ---- reading, validation, writing -------------------------------------------------------------- */

#define SLICES_OK                                                                                  \
    "apiVersion: resource.k8s.io/v1\n"                                                             \
    "kind: ResourceSlice\n"                                                                        \
    "metadata: {name: pf}\n"                                                                       \
    "spec:\n"                                                                                      \
    "  driver: d.io\n"                                                                             \
    "  pool: {name: p, generation: 1, resourceSliceCount: 2}\n"                                    \
    "  nodeName: node-1\n"                                                                         \
    "  sharedCounters:\n"                                                                          \
    "  - name: pf-0\n"                                                                             \
    "    counters:\n"                                                                              \
    "      bw:\n"                                                                                  \
    "        value: '10'\n"                                                                        \
    "        requestPolicy: {default: '4', validRange: {min: '1', max: '10', step: '1'}}\n"        \
    "      static: {value: '2'}\n"                                                                 \
    "---\n"                                                                                        \
    "apiVersion: resource.k8s.io/v1\n"                                                             \
    "kind: ResourceSlice\n"                                                                        \
    "metadata: {name: vfs}\n"                                                                      \
    "spec:\n"                                                                                      \
    "  driver: d.io\n"                                                                             \
    "  pool: {name: p, generation: 1, resourceSliceCount: 2}\n"                                    \
    "  nodeName: node-1\n"                                                                         \
    "  devices:\n"                                                                                 \
    "  - name: vf-0\n"                                                                             \
    "    consumesCounters:\n"                                                                      \
    "    - counterSet: pf-0\n"                                                                     \
    "      counters: {bw: {valueFrom: {capacityName: d.io/bw}}, static: {value: '1'}}\n"           \
    "  - name: vf-1\n"                                                                             \
    "    consumesCounters:\n"                                                                      \
    "    - counterSet: pf-0\n"                                                                     \
    "      counters: {bw: {valueFrom: {capacityName: bw}}}\n"                                      \
    "---\n"

#define CLAIM_SNAP                                                                                 \
    "apiVersion: resource.k8s.io/v1\n"                                                             \
    "kind: ResourceClaim\n"                                                                        \
    "metadata: {name: held}\n"                                                                     \
    "spec: {devices: {requests: [{name: r, exactly: {deviceClassName: c}}]}}\n"                    \
    "status:\n"                                                                                    \
    "  allocation:\n"                                                                              \
    "    devices:\n"                                                                               \
    "      results:\n"                                                                             \
    "      - request: r\n"                                                                         \
    "        driver: d.io\n"                                                                       \
    "        pool: p\n"                                                                            \
    "        device: vf-0\n"                                                                       \
    "        consumedCounters:\n"                                                                  \
    "          perDevice: [{counterSet: pf-0, counters: {static: '1'}}]\n"                         \
    "          perAllocation: [{counterSet: pf-0, counters: {bw: '4'}}]\n"                         \
    "---\n"

static void test_read_validate_write(void)
{
    dra_model_t m;
    dra_diag_list_t e;
    CHECK_OK(diag_fx_load(&m, SLICES_OK CLAIM_SNAP, &e));
    diag_fx_dump(&e);
    const dra_counter_t *bw = &m.slices[0]->counter_sets[0].counters[0];
    CHECK_STREQ(bw->name, "bw");
    CHECK(bw->policy != NULL && bw->policy->has_default && bw->policy->has_valid_range);
    CHECK(bw->value_from == NULL);
    const dra_consumes_t *c0 = &m.slices[1]->devices[0].consumes[0];
    CHECK_EQ_U64(c0->ncounters, 2);
    CHECK_STREQ(c0->counters[0].value_from, "d.io/bw");
    dra_quantity_t zero = {0};
    CHECK(dra_quantity_cmp(&c0->counters[0].value, &zero) == 0); /* charged 0 without the gate */
    CHECK(c0->counters[1].value_from == NULL);
    CHECK_STREQ(m.slices[1]->devices[1].consumes[0].counters[0].value_from, "bw");
    const dra_allocation_t *a = m.claims[0]->allocation;
    CHECK(a && a->counters && a->counters[0]);
    if (a && a->counters && a->counters[0]) {
        const dra_counter_snapshot_t *sn = a->counters[0];
        CHECK_EQ_U64(sn->nper_device, 1);
        CHECK_EQ_U64(sn->nper_allocation, 1);
        CHECK_STREQ(sn->per_allocation[0].counter_set, "pf-0");
        CHECK_STREQ(sn->per_allocation[0].counters[0].name, "bw");
        CHECK_EQ_U64(sn->pos.line, 46); /* the consumedCounters map, in the claim after the slices */
    }

    /* release rules: errors up to 1.37, warnings without a release, nothing for 1.38-pre */
    dra_diag_list_t e2, w;
    dra_diag_list_init(&e2);
    dra_diag_list_init(&w);
    dra_validate_opts_t o = {0, 137};
    CHECK(dra_manifest_validate_ex(&m, &o, &e2, &w) == DRA_EVALIDATE);
    CHECK(diag_fx_has(&e2, "valueFrom: not a field in Kubernetes 1.37 (new in 1.38-pre, feature gate "
                   "DRASharedConsumableCapacity)"));
    CHECK(diag_fx_has(&e2, "spec.sharedCounters[0].counters.bw: requestPolicy: not a field in Kubernetes "
                   "1.37"));
    CHECK(diag_fx_has(&e2, "results[0]: consumedCounters: not a field in Kubernetes 1.37"));
    CHECK_EQ_U64(diag_fx_line_of(&e2, "consumedCounters: not a field"), 46);
    dra_diag_list_fini(&e2);
    dra_diag_list_init(&e2);
    o.release = 0;
    CHECK_OK(dra_manifest_validate_ex(&m, &o, &e2, &w));
    CHECK(diag_fx_has(&w, "valueFrom: new in Kubernetes 1.38-pre"));
    dra_diag_list_fini(&w);
    dra_diag_list_init(&w);
    o.release = 138;
    CHECK_OK(dra_manifest_validate_ex(&m, &o, &e2, &w));
    CHECK_EQ_U64(w.count, 0);
    CHECK_EQ_U64(e2.count, 0);
    dra_diag_list_fini(&e2);
    dra_diag_list_fini(&w);

    /* round trip: the writer keeps every field; each one is in the digest */
    dra_sbuf_t out = {0};
    CHECK_OK(dra_manifest_write_yaml_buf(&m, &out));
    CHECK(out.p && strstr(out.p, "capacityName: d.io/bw") != NULL);
    CHECK(out.p && strstr(out.p, "perAllocation:") != NULL);
    dra_model_t m2;
    dra_diag_list_t e3;
    CHECK_OK(diag_fx_load(&m2, out.p ? out.p : "", &e3));
    CHECK_EQ_U64(dra_model_digest(&m), dra_model_digest(&m2));
    if (m2.nslices == 2 && m2.nclaims == 1) {
        dra_consumes_t *c2 = &m2.slices[1]->devices[0].consumes[0];
        const char *was = c2->counters[0].value_from;
        c2->counters[0].value_from = "d.io/other";
        CHECK(dra_model_digest(&m) != dra_model_digest(&m2));
        c2->counters[0].value_from = was;
        CHECK_EQ_U64(dra_model_digest(&m), dra_model_digest(&m2));
        dra_counter_t *k = &m2.slices[0]->counter_sets[0].counters[0];
        const dra_request_policy_t *pol = k->policy;
        k->policy = NULL;
        CHECK(dra_model_digest(&m) != dra_model_digest(&m2));
        k->policy = pol;
        dra_counter_snapshot_t *sn = (dra_counter_snapshot_t *)m2.claims[0]->allocation->counters[0];
        sn->per_allocation[0].counters[0].value = zero;
        CHECK(dra_model_digest(&m) != dra_model_digest(&m2));
    }
    dra_diag_list_fini(&e3);
    dra_model_fini(&m2);
    dra_sbuf_fini(&out);
    dra_diag_list_fini(&e);
    dra_model_fini(&m);
}

static void test_read_errors(void)
{
    const char *y = "apiVersion: resource.k8s.io/v1\n"
                    "kind: ResourceSlice\n"
                    "metadata: {name: s}\n"
                    "spec:\n"
                    "  driver: d.io\n"
                    "  pool: {name: p, generation: 1, resourceSliceCount: 1}\n"
                    "  nodeName: n\n"
                    "  sharedCounters:\n"
                    "  - name: cs\n"
                    "    counters:\n"
                    "      a: {value: '4', requestPolicy: {default: '3', validValues: ['2', '1']}}\n"
                    "      b: {value: '4', valueFrom: {capacityName: x}}\n"
                    "  devices:\n"
                    "  - name: d0\n"
                    "    consumesCounters:\n"
                    "    - counterSet: cs\n"
                    "      counters:\n"
                    "        a: {value: '1', valueFrom: {capacityName: a}}\n"
                    "        b: {requestPolicy: {default: '1'}}\n"
                    "  - name: d1\n"
                    "    consumesCounters:\n"
                    "    - counterSet: cs\n"
                    "      counters:\n"
                    "        a: {valueFrom: {}}\n"
                    "        b: {valueFrom: {capacityName: 'no good', scale: 2}}\n"
                    "---\n"
                    "apiVersion: resource.k8s.io/v1\n"
                    "kind: ResourceClaim\n"
                    "metadata: {name: c}\n"
                    "spec: {devices: {requests: [{name: r, exactly: {deviceClassName: k}}]}}\n"
                    "status:\n"
                    "  allocation:\n"
                    "    devices:\n"
                    "      results:\n"
                    "      - request: r\n"
                    "        driver: d.io\n"
                    "        pool: p\n"
                    "        device: d0\n"
                    "        consumedCounters:\n"
                    "          perDevice: [{counterSet: x}, {counterSet: y}, {counterSet: x}]\n"
                    "          perAllocation: [{counterSet: Bad_Set, counters: {n: '-1'}}]\n"
                    "          total: {}\n";
    dra_model_t m;
    dra_diag_list_t e;
    CHECK(diag_fx_load(&m, y, &e) != DRA_OK);
    diag_fx_dump(&e);
    /* reader: shapes and exactly-one rules, each at its line */
    CHECK_EQ_U64(diag_fx_line_of(&e, "counters.b.valueFrom: unknown field \"valueFrom\""), 12);
    CHECK_EQ_U64(diag_fx_line_of(&e, "value and valueFrom: exactly one of them may be set"), 18);
    CHECK_EQ_U64(diag_fx_line_of(&e, "counters.b.requestPolicy: unknown field \"requestPolicy\""), 19);
    CHECK_EQ_U64(diag_fx_line_of(&e, "value or valueFrom: exactly one is required"), 19);
    CHECK_EQ_U64(diag_fx_line_of(&e, "capacityName: required field missing"), 24);
    CHECK_EQ_U64(diag_fx_line_of(&e, "valueFrom.scale: unknown field \"scale\""), 25);
    CHECK(diag_fx_has(&e, "consumedCounters.total: unknown field \"total\""));
    dra_diag_list_fini(&e);
    dra_model_fini(&m);

    /* validator, on objects that read cleanly */
    const char *v = "apiVersion: resource.k8s.io/v1\n"
                    "kind: ResourceSlice\n"
                    "metadata: {name: s}\n"
                    "spec:\n"
                    "  driver: d.io\n"
                    "  pool: {name: p, generation: 1, resourceSliceCount: 1}\n"
                    "  nodeName: n\n"
                    "  sharedCounters:\n"
                    "  - name: cs\n"
                    "    counters:\n"
                    "      a: {value: '4', requestPolicy: {default: '3', validValues: ['2', '1']}}\n"
                    "  devices:\n"
                    "  - name: d0\n"
                    "    consumesCounters:\n"
                    "    - counterSet: cs\n"
                    "      counters: {a: {valueFrom: {capacityName: 'no good'}}}\n"
                    "---\n"
                    "apiVersion: resource.k8s.io/v1\n"
                    "kind: ResourceClaim\n"
                    "metadata: {name: c}\n"
                    "spec: {devices: {requests: [{name: r, exactly: {deviceClassName: k}}]}}\n"
                    "status:\n"
                    "  allocation:\n"
                    "    devices:\n"
                    "      results:\n"
                    "      - request: r\n"
                    "        driver: d.io\n"
                    "        pool: p\n"
                    "        device: d0\n"
                    "        consumedCounters:\n"
                    "          perDevice: [{counterSet: x}, {counterSet: y}, {counterSet: x}]\n"
                    "          perAllocation: [{counterSet: Bad_Set, counters: {n: '-1'}}]\n";
    CHECK(diag_fx_load(&m, v, &e) == DRA_EVALIDATE);
    diag_fx_dump(&e);
    CHECK(diag_fx_has(&e, "spec.sharedCounters[0].counters.a.requestPolicy: validValues[1]: must be sorted "
                  "ascending without duplicates"));
    CHECK(diag_fx_has(&e, "counters.a.requestPolicy: default: must be one of validValues"));
    CHECK(diag_fx_has(&e, "counters.a: valueFrom.capacityName: \"no good\": invalid qualified name"));
    CHECK(diag_fx_has(&e, "consumedCounters.perDevice: at most 2 counter sets, has 3"));
    CHECK(diag_fx_has(&e, "consumedCounters.perDevice[2]: counterSet \"x\" listed twice"));
    CHECK(diag_fx_has(&e, "consumedCounters.perAllocation[0]: counterSet: \"Bad_Set\" is not a DNS label"));
    CHECK(diag_fx_has(&e, "consumedCounters.perAllocation[0]: counters.n: must not be negative"));
    CHECK_EQ_U64(diag_fx_line_of(&e, "at most 2 counter sets"), 31);
    dra_diag_list_fini(&e);
    dra_model_fini(&m);
}

/* ---- allocation ------------------------------------------------------------------------------ */

/* pf-0 holds 1 of bw; both VFs draw it from a request (valueFrom). vf-plain on another pool of
 * the node has no counters. */
static const char k_alloc[] =
    NODE("node-1")
    "apiVersion: resource.k8s.io/v1\nkind: DeviceClass\nmetadata: {name: vf}\n"
    "spec: {selectors: [{cel: {expression: 'device.driver == \"d.io\"'}}]}\n---\n"
    "apiVersion: resource.k8s.io/v1\nkind: DeviceClass\nmetadata: {name: plain}\n"
    "spec: {selectors: [{cel: {expression: 'device.driver == \"e.io\"'}}]}\n---\n"
    "apiVersion: resource.k8s.io/v1\nkind: ResourceSlice\nmetadata: {name: pf}\n"
    "spec:\n  driver: d.io\n  pool: {name: p, generation: 1, resourceSliceCount: 2}\n"
    "  nodeName: node-1\n"
    "  sharedCounters: [{name: pf-0, counters: {bw: {value: '1'}}}]\n---\n"
    "apiVersion: resource.k8s.io/v1\nkind: ResourceSlice\nmetadata: {name: vfs}\n"
    "spec:\n  driver: d.io\n  pool: {name: p, generation: 1, resourceSliceCount: 2}\n"
    "  nodeName: node-1\n  devices:\n"
    "  - {name: vf-0, consumesCounters: [{counterSet: pf-0, counters: {bw: {valueFrom: "
    "{capacityName: d.io/bw}}}}]}\n"
    "  - {name: vf-1, consumesCounters: [{counterSet: pf-0, counters: {bw: {valueFrom: "
    "{capacityName: d.io/bw}}}}]}\n---\n"
    "apiVersion: resource.k8s.io/v1\nkind: ResourceSlice\nmetadata: {name: plain}\n"
    "spec:\n  driver: e.io\n  pool: {name: q, generation: 1, resourceSliceCount: 1}\n"
    "  nodeName: node-1\n  devices: [{name: dev-0}]\n---\n"
    CLAIM("two", "{requests: [{name: r, exactly: {deviceClassName: vf, count: 2}}]}")
    CLAIM("other", "{requests: [{name: r, exactly: {deviceClassName: plain, count: 1}}]}");

static dra_claim_t *find(fx_t *x, const char *name)
{
    dra_claim_t *c = dra_model_find_claim(&x->m, NULL, name);
    CHECK_MSG(c != NULL, "claim %s", name);
    return c;
}

/* The reference, the fast allocator, the engine (against the reference placement), the brute
 * force and the invariant checker on claim `name` under (rel, gate). */
static void run_all(const char *yaml, dra_release_t rel, const char *gate, const char *name,
                    dra_outcome_t want, const char *want_msg, uint32_t want_exact)
{
    fx_t x;
    if (!fx_open(&x, yaml, rel, gate))
        return;
    dra_claim_t *c = find(&x, name);
    const dra_node_t *node = dra_model_find_node(&x.m, "node-1");
    if (!c || !node) {
        fx_fini(&x);
        return;
    }
    dra_anyalloc_t *als[2] = {&x.ref, &x.fast};
    for (int i = 0; i < 2; i++) {
        dra_alloc_outcome_t o;
        dra_arena_reset(&x.out);
        CHECK_OK(dra_anyalloc_allocate(als[i], node, &c, 1, &x.out, &o));
        CHECK_MSG(o.kind == want, "%s: %s, want %s (%s)", i ? "fast" : "reference",
                  dra_outcome_name(o.kind), dra_outcome_name(want), o.msg);
        if (want_msg)
            CHECK_MSG(strstr(o.msg, want_msg) != NULL, "%s", o.msg);
        if (o.kind == DRA_OUTCOME_ALLOCATED) {
            dra_inv_report_t rep;
            CHECK_OK(dra_inv_check(&x.m, &x.f, x.st, x.cel, node, &c, o.allocations, 1, &rep));
            CHECK_MSG(rep.nviolations == 0, "%s", rep.first[0]);
        }
    }
    dra_bf_result_t bf;
    CHECK_OK(dra_alloc_bruteforce(&x.m, &x.f, x.st, x.cel, node, &c, 1, 0, &bf));
    CHECK_EQ_U64(bf.verdict, want == DRA_OUTCOME_ALLOCATED ? DRA_BF_SATISFIABLE
                             : want == DRA_OUTCOME_UNSATISFIABLE ? DRA_BF_UNSATISFIABLE
                                                                 : DRA_BF_ERROR);
    uint32_t p = fx_plan(&x, name);
    dra_engine_result_t a, b;
    CHECK_OK(dra_engine_place(x.e, p, DRA_ENGINE_FIRST_FIT, 0, &x.out, &a));
    CHECK_OK(dra_engine_place_reference(x.e, &x.ref, p, DRA_ENGINE_FIRST_FIT, 0, &x.out2, &b));
    CHECK_EQ_U64(a.kind, want);
    CHECK_EQ_U64(b.kind, want);
    CHECK_EQ_U64(a.exact_calls, want_exact);
    if (want_msg)
        CHECK_MSG(strstr(a.msg, want_msg) != NULL, "%s", a.msg);
    fx_fini(&x);
}

static void test_alloc_gate_off(void)
{
    /* 1.37 (no such field: value 0) and 1.38-pre with the gate off (dropped): both VFs fit on a
     * counter of 1, answered directly by the engine */
    run_all(k_alloc, DRA_RELEASE_1_37, NULL, "two", DRA_OUTCOME_ALLOCATED, NULL, 0);
    run_all(k_alloc, DRA_RELEASE_1_38_PRE, NULL, "two", DRA_OUTCOME_ALLOCATED, NULL, 0);
    run_all(k_alloc, DRA_RELEASE_1_38_PRE, "DRASharedConsumableCapacity=false", "two",
            DRA_OUTCOME_ALLOCATED, NULL, 0);
}

static void test_alloc_gate_on(void)
{
    /* the pool's accounting is not modelled: every allocator refuses it; the engine's node sees
     * a hazard pool and asks the exact allocator */
    run_all(k_alloc, DRA_RELEASE_1_38_PRE, "DRASharedConsumableCapacity=true", "two",
            DRA_OUTCOME_FATAL,
            "slice vfs (pool d.io/p) uses request-driven counters (valueFrom or a counter "
            "requestPolicy) with feature gate DRASharedConsumableCapacity on",
            1);
    /* a claim of another driver on the same node also gathers the node's pools: refused too,
     * as upstream would only fail where it met the pool, but drabench gathers every pool */
    run_all(k_alloc, DRA_RELEASE_1_38_PRE, "DRASharedConsumableCapacity=true", "other",
            DRA_OUTCOME_FATAL, "DRASharedConsumableCapacity", 1);
    /* without DRAPartitionableDevices the feature is not in effect (upstream names all three):
     * counter slices are not gathered, the VFs are skipped, the plain device is allocated */
    fx_t x;
    if (fx_open(&x, k_alloc, DRA_RELEASE_1_38_PRE, "DRASharedConsumableCapacity=true")) {
        CHECK_OK(dra_alloc_features_set(&x.f, "DRAPartitionableDevices=false", NULL));
        dra_alloc_options_t o = {0, 7};
        dra_anyalloc_t ref;
        CHECK_OK(dra_anyalloc_new(DRA_ALLOC_REFERENCE, &x.m, &x.f, x.st, x.cel, &o, &ref));
        dra_claim_t *c = find(&x, "other");
        dra_alloc_outcome_t out;
        if (c) {
            CHECK_OK(dra_anyalloc_allocate(&ref, dra_model_find_node(&x.m, "node-1"), &c, 1,
                                           &x.out, &out));
            CHECK_EQ_U64(out.kind, DRA_OUTCOME_ALLOCATED);
        }
        dra_anyalloc_free(&ref);
        fx_fini(&x);
    }
}

/* A pool without the new fields, named by an allocated result with a snapshot. */
static const char k_snap[] =
    NODE("node-1")
    "apiVersion: resource.k8s.io/v1\nkind: DeviceClass\nmetadata: {name: g}\n"
    "spec: {selectors: [{cel: {expression: 'device.driver == \"d.io\"'}}]}\n---\n"
    "apiVersion: resource.k8s.io/v1\nkind: ResourceSlice\nmetadata: {name: gpus}\n"
    "spec:\n  driver: d.io\n  pool: {name: p, generation: 1, resourceSliceCount: 1}\n"
    "  nodeName: node-1\n  devices: [{name: gpu-0}, {name: gpu-1}]\n---\n"
    "apiVersion: resource.k8s.io/v1\nkind: ResourceClaim\nmetadata: {name: held}\n"
    "spec: {devices: {requests: [{name: r, exactly: {deviceClassName: g}}]}}\n"
    "status: {allocation: {devices: {results: [{request: r, driver: d.io, pool: p, device: gpu-0,"
    " consumedCounters: {}}]}}}\n---\n"
    CLAIM("one", "{requests: [{name: r, exactly: {deviceClassName: g, count: 1}}]}");

static void test_alloc_snapshots(void)
{
    /* gate off: the snapshot is not read (the held claim is not committed here: gpu-0 free) */
    run_all(k_snap, DRA_RELEASE_1_38_PRE, NULL, "one", DRA_OUTCOME_ALLOCATED, NULL, 0);
    /* gate on: upstream charges such results from their snapshots: refused */
    run_all(k_snap, DRA_RELEASE_1_38_PRE, "DRASharedConsumableCapacity=true", "one",
            DRA_OUTCOME_FATAL, "has allocated results with consumedCounters snapshots", 1);
}

int main(void)
{
    RUN(test_gate);
    RUN(test_read_validate_write);
    RUN(test_read_errors);
    RUN(test_alloc_gate_off);
    RUN(test_alloc_gate_on);
    RUN(test_alloc_snapshots);
    return check_summary();
}
