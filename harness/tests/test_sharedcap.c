/* test_sharedcap.c - DRASharedConsumableCapacity (KEP-5941, 1.38-pre): the gate, the new fields
 * (valueFrom, a counter's requestPolicy, consumedCounters) as read, validated, written and
 * digested, and what every allocator does with them (core/alloc/sharedcap.c): nothing charged
 * with the gate off; with it on request-driven amounts charged per allocation, snapshots written
 * in results and charged for live allocations (committed and released), the live states whose
 * charge cannot be established withholding their counter sets (fail closed), and the engine's
 * hazard - the reference, the fast allocator, the brute force, the invariant checker and the
 * engine agreeing on each; and what the explain mode says of a request-driven amount the
 * requestPolicy refuses, the live snapshots leave no room for, or a withheld counter set. */
#include <stdlib.h>
#include <string.h>

#include "alloc/explain.h"
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
    CLAIM("one", "{requests: [{name: r, exactly: {deviceClassName: vf, count: 1}}]}")
    CLAIM("other", "{requests: [{name: r, exactly: {deviceClassName: plain, count: 1}}]}");

static dra_claim_t *find(fx_t *x, const char *name)
{
    dra_claim_t *c = dra_model_find_claim(&x->m, NULL, name);
    CHECK_MSG(c != NULL, "claim %s", name);
    return c;
}

/* One allocation check: claim `claim` under release rel with up to two "Gate=bool" switches,
 * after the allocations of the claims in `commit` (NULL-ended) went into the state; the expected
 * outcome, a text its message must hold, the engine's exact calls, and (Allocated) the device of
 * the first result and its consumedCounters snapshot as "perDevice|perAllocation" in the form
 * "set.counter=qty,..." ("-" for no snapshot). */
typedef struct run {
    const char *yaml;
    dra_release_t rel;
    const char *gate, *gate2;
    const char *claim;
    const char *commit[4];
    dra_outcome_t want;
    const char *want_msg;
    uint32_t want_exact;
    const char *want_device, *want_snap;
} run_t;

static void snap_text(const dra_counter_set_use_t *u, uint32_t n, char *buf, size_t len)
{
    size_t o = 0;
    buf[0] = 0;
    for (uint32_t i = 0; i < n; i++)
        for (uint32_t k = 0; k < u[i].ncounters && o < len; k++) {
            char q[64];
            dra_quantity_format(&u[i].counters[k].value, q, sizeof q);
            o += (size_t)snprintf(buf + o, len - o, "%s%s.%s=%s", o ? "," : "", u[i].counter_set,
                                  u[i].counters[k].name, q);
        }
}

static void check_snap(const dra_allocation_t *al, const run_t *r, const char *who)
{
    if (!r->want_device || al->nresults == 0)
        return;
    CHECK_STREQ(al->results[0].device, r->want_device);
    char pd[200], pa[200], got[410];
    const dra_counter_snapshot_t *s = al->counters ? al->counters[0] : NULL;
    if (s) {
        snap_text(s->per_device, s->nper_device, pd, sizeof pd);
        snap_text(s->per_allocation, s->nper_allocation, pa, sizeof pa);
        snprintf(got, sizeof got, "%s|%s", pd, pa);
    } else {
        snprintf(got, sizeof got, "-");
    }
    CHECK_MSG(strcmp(got, r->want_snap) == 0, "%s: snapshot %s, want %s", who, got, r->want_snap);
}

/* The reference, the fast allocator, the engine (against the reference placement), the brute
 * force and the invariant checker on one run_t. */
static void run_all(const run_t *r)
{
    fx_t x;
    if (!fx_open(&x, r->yaml, r->rel, r->gate))
        return;
    if (r->gate2) { /* after the fixture's allocators: they keep their own copy of the features */
        CHECK_OK(dra_alloc_features_set(&x.f, r->gate2, NULL));
        dra_alloc_options_t o = {0, 7};
        dra_anyalloc_free(&x.ref);
        dra_anyalloc_free(&x.fast);
        CHECK_OK(dra_anyalloc_new(DRA_ALLOC_REFERENCE, &x.m, &x.f, x.st, x.cel, &o, &x.ref));
        CHECK_OK(dra_anyalloc_new(DRA_ALLOC_FAST, &x.m, &x.f, x.st, x.cel, &o, &x.fast));
    }
    for (int i = 0; i < 4 && r->commit[i]; i++) {
        dra_claim_t *h = find(&x, r->commit[i]);
        if (h)
            CHECK_OK(dra_alloc_state_commit(x.st, h->allocation));
    }
    dra_claim_t *c = find(&x, r->claim);
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
        CHECK_MSG(o.kind == r->want, "%s %s: %s, want %s (%s)", r->claim, i ? "fast" : "reference",
                  dra_outcome_name(o.kind), dra_outcome_name(r->want), o.msg);
        if (r->want_msg)
            CHECK_MSG(strstr(o.msg, r->want_msg) != NULL, "%s", o.msg);
        if (o.kind == DRA_OUTCOME_ALLOCATED) {
            check_snap(o.allocations[0], r, i ? "fast" : "reference");
            dra_inv_report_t rep;
            CHECK_OK(dra_inv_check(&x.m, &x.f, x.st, x.cel, node, &c, o.allocations, 1, &rep));
            CHECK_MSG(rep.nviolations == 0, "%s", rep.first[0]);
        }
    }
    dra_bf_result_t bf;
    CHECK_OK(dra_alloc_bruteforce(&x.m, &x.f, x.st, x.cel, node, &c, 1, 0, &bf));
    CHECK_MSG(bf.verdict == (r->want == DRA_OUTCOME_ALLOCATED     ? DRA_BF_SATISFIABLE
                             : r->want == DRA_OUTCOME_UNSATISFIABLE ? DRA_BF_UNSATISFIABLE
                                                                    : DRA_BF_ERROR),
              "%s brute force: verdict %d (%s)", r->claim, (int)bf.verdict, bf.msg);
    if (!r->gate2) { /* the engine keeps the features it was built with */
        uint32_t p = fx_plan(&x, r->claim);
        dra_engine_result_t a, b;
        CHECK_OK(dra_engine_place(x.e, p, DRA_ENGINE_FIRST_FIT, 0, &x.out, &a));
        CHECK_OK(dra_engine_place_reference(x.e, &x.ref, p, DRA_ENGINE_FIRST_FIT, 0, &x.out2, &b));
        CHECK_EQ_U64(a.kind, r->want);
        CHECK_EQ_U64(b.kind, r->want);
        CHECK_MSG(a.exact_calls == r->want_exact, "%s engine: %u exact calls, want %u", r->claim,
                  a.exact_calls, r->want_exact);
        if (r->want_msg)
            CHECK_MSG(strstr(a.msg, r->want_msg) != NULL, "%s", a.msg);
    }
    fx_fini(&x);
}

#define ON "DRASharedConsumableCapacity=true"

static void test_alloc_gate_off(void)
{
    /* 1.37 (no such field: value 0) and 1.38-pre with the gate off (dropped): both VFs fit on a
     * counter of 1, answered directly by the engine, and no result carries a snapshot */
    run_t r = {k_alloc, DRA_RELEASE_1_37, NULL, NULL, "two", {NULL}, DRA_OUTCOME_ALLOCATED, NULL,
               0, "vf-0", "-"};
    run_all(&r);
    r.rel = DRA_RELEASE_1_38_PRE;
    run_all(&r);
    r.gate = "DRASharedConsumableCapacity=false";
    run_all(&r);
}

static void test_alloc_gate_on(void)
{
    /* each VF is charged the full counter (1: no request, no requestPolicy): two do not fit */
    run_t r = {k_alloc, DRA_RELEASE_1_38_PRE, ON, NULL, "two", {NULL}, DRA_OUTCOME_UNSATISFIABLE,
               NULL, 1, NULL, NULL};
    run_all(&r);
    /* one does, and its result records the amount */
    r.claim = "one";
    r.want = DRA_OUTCOME_ALLOCATED;
    r.want_device = "vf-0";
    r.want_snap = "|pf-0.bw=1";
    run_all(&r);
    /* a device without counters gets the empty snapshot; every pool goes to the exact path */
    r.claim = "other";
    r.want_device = "dev-0";
    r.want_snap = "|";
    run_all(&r);
    /* without DRAPartitionableDevices the feature is not in effect (upstream names all three):
     * no snapshot is written */
    r.gate2 = "DRAPartitionableDevices=false";
    r.want_snap = "-";
    run_all(&r);
}

/* Live allocations: cs.c holds 3. d0 and d1 consume 1 statically, vf draws c from capacity x
 * (requestPolicy default 1, range 1..3); m0 is multi-allocatable with a static 1. Allocated
 * claims: held-d0 (snapshot perDevice 1), legacy-d1 (no snapshot), held-vf (perAllocation 1),
 * the shares m0-a / m0-b (perDevice 1 and 2) and legacy-vf / legacy-gone (no snapshot). */
#define RES(dev, extra)                                                                            \
    "status: {allocation: {devices: {results: [{request: r, driver: d.io, pool: p, device: " dev     \
    extra "}]}}}\n---\n"
#define HELD(name, cls, res)                                                                       \
    "apiVersion: resource.k8s.io/v1\nkind: ResourceClaim\nmetadata: {name: " name "}\n"           \
    "spec: {devices: {requests: [{name: r, exactly: {deviceClassName: " cls "}}]}}\n" res
static const char k_live_objs[] =
    NODE("node-1")
    "apiVersion: resource.k8s.io/v1\nkind: DeviceClass\nmetadata: {name: g}\n"
    "spec: {selectors: [{cel: {expression: 'device.driver == \"d.io\"'}}]}\n---\n"
    "apiVersion: resource.k8s.io/v1\nkind: DeviceClass\nmetadata: {name: vf}\n"
    "spec: {selectors: [{cel: {expression: 'device.attributes[\"d.io\"].kind == \"vf\"'}}]}\n---\n"
    "apiVersion: resource.k8s.io/v1\nkind: DeviceClass\nmetadata: {name: m}\n"
    "spec: {selectors: [{cel: {expression: 'device.allowMultipleAllocations == true'}}]}\n---\n"
    "apiVersion: resource.k8s.io/v1\nkind: ResourceSlice\nmetadata: {name: sets}\n"
    "spec:\n  driver: d.io\n  pool: {name: p, generation: 1, resourceSliceCount: 2}\n"
    "  nodeName: node-1\n"
    "  sharedCounters: [{name: cs, counters: {c: {value: '3', requestPolicy: {default: '1', "
    "validRange: {min: '1', max: '3', step: '1'}}}}}]\n---\n"
    "apiVersion: resource.k8s.io/v1\nkind: ResourceSlice\nmetadata: {name: devs}\n"
    "spec:\n  driver: d.io\n  pool: {name: p, generation: 1, resourceSliceCount: 2}\n"
    "  nodeName: node-1\n  devices:\n"
    "  - {name: d0, attributes: {kind: {string: s}}, consumesCounters: [{counterSet: cs, "
    "counters: {c: {value: '1'}}}]}\n"
    "  - {name: d1, attributes: {kind: {string: s}}, consumesCounters: [{counterSet: cs, "
    "counters: {c: {value: '1'}}}]}\n"
    "  - {name: vf, attributes: {kind: {string: vf}}, consumesCounters: [{counterSet: cs, "
    "counters: {c: {valueFrom: {capacityName: x}}}}]}\n"
    "  - {name: vf-b, attributes: {kind: {string: vf}}, consumesCounters: [{counterSet: cs, "
    "counters: {c: {valueFrom: {capacityName: d.io/x}}}}]}\n"
    "  - {name: m0, allowMultipleAllocations: true, attributes: {kind: {string: m}}, consumesCounters: [{counterSet: cs, "
    "counters: {c: {value: '2'}}}]}\n---\n";
static const char k_live_claims[] =
    HELD("held-d0", "g", RES("d0", ", consumedCounters: {perDevice: [{counterSet: cs, counters: {c: '1'}}]}"))
    HELD("legacy-d1", "g", RES("d1", ""))
    HELD("held-vf", "g", RES("vf", ", consumedCounters: {perAllocation: [{counterSet: cs, counters: {c: '1'}}]}"))
    HELD("m0-a", "m", RES("m0", ", shareID: aaaaaaaa-aaaa-4aaa-8aaa-aaaaaaaaaaaa, consumedCounters: {perDevice: [{counterSet: cs, counters: {c: '1'}}]}"))
    HELD("m0-b", "m", RES("m0", ", shareID: bbbbbbbb-bbbb-4bbb-8bbb-bbbbbbbbbbbb, consumedCounters: {perDevice: [{counterSet: cs, counters: {c: '2'}}]}"))
    HELD("m0-legacy", "m", RES("m0", ", shareID: cccccccc-cccc-4ccc-8ccc-cccccccccccc"))
    HELD("legacy-vf", "g", RES("vf", ""))
    HELD("legacy-gone", "g", RES("gone", ""))
    CLAIM("vf-2", "{requests: [{name: r, exactly: {deviceClassName: vf, capacity: {requests: {x: '2'}}}}]}")
    CLAIM("vf-3", "{requests: [{name: r, exactly: {deviceClassName: vf, capacity: {requests: {d.io/x: '3'}}}}]}")
    CLAIM("share", "{requests: [{name: r, exactly: {deviceClassName: m}}]}")
    CLAIM("all-5", "{requests: [{name: r, exactly: {deviceClassName: vf, allocationMode: All, "
                   "capacity: {requests: {x: '5'}}}}]}")
    CLAIM("vf-5", "{requests: [{name: r, exactly: {deviceClassName: vf, capacity: {requests: {x: '5'}}}}]}")
    CLAIM("vf-any", "{requests: [{name: r, exactly: {deviceClassName: vf}}]}");

/* k_live_objs then k_live_claims (one literal would pass C's 4095-character minimum) */
static char k_live[sizeof k_live_objs + sizeof k_live_claims];

static void live_init(void)
{
    memcpy(k_live, k_live_objs, sizeof k_live_objs - 1);
    memcpy(k_live + sizeof k_live_objs - 1, k_live_claims, sizeof k_live_claims);
}

static void test_alloc_live(void)
{
    /* nothing live: vf takes 3 of 3 */
    run_t r = {k_live, DRA_RELEASE_1_38_PRE, ON, NULL, "vf-3", {NULL}, DRA_OUTCOME_ALLOCATED, NULL,
               1, "vf", "|cs.c=3"};
    run_all(&r);
    /* d0's snapshot (1) is charged: 1 + 3 > 3; 1 + 2 fits */
    r.commit[0] = "held-d0";
    r.want = DRA_OUTCOME_UNSATISFIABLE;
    run_all(&r);
    r.claim = "vf-2";
    r.want = DRA_OUTCOME_ALLOCATED;
    r.want_snap = "|cs.c=2";
    run_all(&r);
    /* a snapshot-less allocation of a static device is charged from the live slice (1): with
     * d0's 1 that leaves 1 */
    r.commit[1] = "legacy-d1";
    r.want = DRA_OUTCOME_UNSATISFIABLE;
    r.want_device = NULL;
    run_all(&r);
    /* a live request-driven amount (held-vf: 1 on vf) is charged: vf-b gets 2 of the 2 left,
     * not 3 */
    run_t v = {k_live, DRA_RELEASE_1_38_PRE, ON, NULL, "vf-3", {"held-vf"},
               DRA_OUTCOME_UNSATISFIABLE, NULL, 1, NULL, NULL};
    run_all(&v);
    v.claim = "vf-2";
    v.want = DRA_OUTCOME_ALLOCATED;
    v.want_device = "vf-b";
    v.want_snap = "|cs.c=2";
    run_all(&v);
}

static void test_alloc_policy(void)
{
    /* x: 5 is above the counter's validRange max (3): not allowed, so allocationMode All, whose
     * set holds both VFs (the set is not filtered by counters), fails in every allocator and in
     * the brute force; 2 is allowed */
    run_t r = {k_live, DRA_RELEASE_1_38_PRE, ON, NULL, "all-5", {NULL}, DRA_OUTCOME_UNSATISFIABLE,
               NULL, 1, NULL, NULL};
    run_all(&r);
}

static void test_alloc_release(void)
{
    /* commit then release through the state: the ledger follows it */
    fx_t x;
    if (!fx_open(&x, k_live, DRA_RELEASE_1_38_PRE, ON))
        return;
    dra_claim_t *h = find(&x, "held-d0"), *c = find(&x, "vf-3");
    const dra_node_t *node = dra_model_find_node(&x.m, "node-1");
    if (h && c && node) {
        dra_alloc_outcome_t o;
        CHECK_OK(dra_alloc_state_commit(x.st, h->allocation));
        CHECK_OK(dra_anyalloc_allocate(&x.ref, node, &c, 1, &x.out, &o));
        CHECK_EQ_U64(o.kind, DRA_OUTCOME_UNSATISFIABLE);
        CHECK_OK(dra_alloc_state_release(x.st, h->allocation));
        CHECK_OK(dra_anyalloc_allocate(&x.ref, node, &c, 1, &x.out, &o));
        CHECK_EQ_U64(o.kind, DRA_OUTCOME_ALLOCATED);
        /* the allocator's own result, committed, charges its snapshot (3): nothing is left */
        CHECK_OK(dra_alloc_state_commit(x.st, o.allocations[0]));
        dra_claim_t *v2 = find(&x, "vf-2");
        dra_alloc_outcome_t o2;
        if (v2) {
            CHECK_OK(dra_anyalloc_allocate(&x.fast, node, &v2, 1, &x.out2, &o2));
            CHECK_EQ_U64(o2.kind, DRA_OUTCOME_UNSATISFIABLE);
        }
        CHECK_OK(dra_alloc_state_release(x.st, o.allocations[0]));
        if (v2) {
            CHECK_OK(dra_anyalloc_allocate(&x.fast, node, &v2, 1, &x.out2, &o2));
            CHECK_EQ_U64(o2.kind, DRA_OUTCOME_ALLOCATED);
        }
    }
    fx_fini(&x);
}

static void test_alloc_shares(void)
{
    /* a further share of m0 inherits the perDevice of its live share (1), not the live slice's
     * static 2, and is not charged it again */
    run_t r = {k_live, DRA_RELEASE_1_38_PRE, ON, NULL, "share", {"m0-a"}, DRA_OUTCOME_ALLOCATED,
               NULL, 1, "m0", "cs.c=1|"};
    run_all(&r);
    /* no live share: the live slice's 2 */
    r.commit[0] = NULL;
    r.want_snap = "cs.c=2|";
    run_all(&r);
}

/* upstream's shared-consumable-capacity-lifecycle (mixed=true): device-1 is multi-allocatable,
 * consumes counter0 statically (1 of 1) and counter1 from capacity-0 (of 2); device-2 consumes
 * counter0 statically. */
static const char k_life[] =
    NODE("node-1")
    "apiVersion: resource.k8s.io/v1\nkind: DeviceClass\nmetadata: {name: class-a}\n"
    "spec: {selectors: [{cel: {expression: 'device.allowMultipleAllocations == true'}}]}\n---\n"
    "apiVersion: resource.k8s.io/v1\nkind: DeviceClass\nmetadata: {name: class-b}\n"
    "spec: {selectors: [{cel: {expression: 'device.allowMultipleAllocations == false'}}]}\n---\n"
    "apiVersion: resource.k8s.io/v1\nkind: ResourceSlice\nmetadata: {name: slice-2}\n"
    "spec:\n  driver: driver-a\n  pool: {name: pool-1, generation: 1, resourceSliceCount: 2}\n"
    "  nodeName: node-1\n"
    "  sharedCounters: [{name: counter-set-1, counters: {counter0: {value: '1'}, "
    "counter1: {value: '2'}}}]\n---\n"
    "apiVersion: resource.k8s.io/v1\nkind: ResourceSlice\nmetadata: {name: slice-1}\n"
    "spec:\n  driver: driver-a\n  pool: {name: pool-1, generation: 1, resourceSliceCount: 2}\n"
    "  nodeName: node-1\n  devices:\n"
    "  - {name: device-1, allowMultipleAllocations: true, capacity: {capacity-0: {value: '2'}}, "
    "consumesCounters: [{counterSet: counter-set-1, counters: {counter0: {value: '1'}, "
    "counter1: {valueFrom: {capacityName: capacity-0}}}}]}\n"
    "  - {name: device-2, consumesCounters: [{counterSet: counter-set-1, counters: "
    "{counter0: {value: '1'}}}]}\n---\n"
    CLAIM("claim-0", "{requests: [{name: req-0, exactly: {deviceClassName: class-a, "
                     "capacity: {requests: {capacity-0: '1'}}}}]}")
    CLAIM("claim-1", "{requests: [{name: req-0, exactly: {deviceClassName: class-a, "
                     "capacity: {requests: {capacity-0: '1'}}}}]}")
    CLAIM("replacement", "{requests: [{name: req-0, exactly: {deviceClassName: class-a, "
                         "capacity: {requests: {capacity-0: '1'}}}}]}")
    CLAIM("competing", "{requests: [{name: req-0, exactly: {deviceClassName: class-b}}]}");

/* One claim by the reference and the fast allocator on the same state: both give want (the
 * reference's allocation returned, memory from out). */
static const dra_allocation_t *life_alloc(fx_t *x, const char *name, dra_outcome_t want,
                                          dra_arena_t *out)
{
    dra_claim_t *c = find(x, name);
    const dra_node_t *node = dra_model_find_node(&x->m, "node-1");
    if (!c || !node)
        return NULL;
    dra_alloc_outcome_t o, f;
    CHECK_OK(dra_anyalloc_allocate(&x->fast, node, &c, 1, &x->out2, &f));
    CHECK_OK(dra_anyalloc_allocate(&x->ref, node, &c, 1, out, &o));
    CHECK_MSG(o.kind == want && f.kind == want, "%s: %s / %s, want %s", name,
              dra_outcome_name(o.kind), dra_outcome_name(f.kind), dra_outcome_name(want));
    return o.kind == DRA_OUTCOME_ALLOCATED ? o.allocations[0] : NULL;
}

static void test_alloc_lifecycle(void)
{
    for (int release_first = 0; release_first < 2; release_first++) {
        fx_t x;
        if (!fx_open(&x, k_life, DRA_RELEASE_1_38_PRE, ON))
            return;
        dra_arena_t keep; /* the committed allocations outlive the per-call arenas */
        dra_arena_init(&keep, 0);
        const dra_allocation_t *a[2];
        const char *names[2] = {"claim-0", "claim-1"};
        for (int i = 0; i < 2; i++) { /* one call each, committed in between */
            a[i] = life_alloc(&x, names[i], DRA_OUTCOME_ALLOCATED, &keep);
            if (!a[i])
                goto out;
            const dra_counter_snapshot_t *s = a[i]->counters ? a[i]->counters[0] : NULL;
            char pd[100], pa[100];
            CHECK(s != NULL);
            if (s) {
                snap_text(s->per_device, s->nper_device, pd, sizeof pd);
                snap_text(s->per_allocation, s->nper_allocation, pa, sizeof pa);
                CHECK_STREQ(pd, "counter-set-1.counter0=1");
                CHECK_STREQ(pa, "counter-set-1.counter1=1");
            }
            CHECK_OK(dra_alloc_state_commit(x.st, a[i]));
        }
        /* the device cost is held: device-2 does not fit */
        life_alloc(&x, "competing", DRA_OUTCOME_UNSATISFIABLE, &x.out);
        const dra_allocation_t *gone = a[release_first ? 0 : 1], *left = a[release_first ? 1 : 0];
        CHECK_OK(dra_alloc_state_release(x.st, gone));
        /* a surviving share keeps the device cost reserved */
        life_alloc(&x, "competing", DRA_OUTCOME_UNSATISFIABLE, &x.out);
        /* releasing a share frees only its allocation cost: a replacement share fits (1 + 1) */
        life_alloc(&x, "replacement", DRA_OUTCOME_ALLOCATED, &x.out);
        /* the last share releases the device cost */
        CHECK_OK(dra_alloc_state_release(x.st, left));
        life_alloc(&x, "competing", DRA_OUTCOME_ALLOCATED, &x.out);
    out:
        dra_arena_fini(&keep);
        fx_fini(&x);
    }
}

static void test_alloc_withheld(void)
{
    /* the four live states whose charge cannot be established (sharedcap.c's fail-closed rule):
     * counter set cs, which the device consumes from (for legacy-gone, which p no longer
     * publishes, every counter set of p), is withheld - no VF and no further share of m0 is
     * allocatable, in every allocator, the engine, the brute force; the call does not fail */
    const char *k[][2] = {
        {"m0-a", "m0-b"},      /* (a) perDevice snapshots differ */
        {"m0-a", "m0-legacy"}, /* (b) with and without a snapshot */
        {"legacy-vf", NULL},   /* (c) no snapshot, valueFrom counters */
        {"legacy-gone", NULL}, /* (d) no snapshot, no longer published */
    };
    for (size_t i = 0; i < sizeof k / sizeof k[0]; i++) {
        run_t r = {k_live, DRA_RELEASE_1_38_PRE, ON, NULL, "vf-2", {k[i][0], k[i][1]},
                   DRA_OUTCOME_UNSATISFIABLE, NULL, 1, NULL, NULL};
        run_all(&r);
        r.claim = "share";
        run_all(&r);
    }
    /* a share's snapshot alone is charged, not withheld: its perDevice 1, not m0's live 2,
     * leaves room for vf's 2; a further share of m0 is allocated and copies that snapshot */
    run_t r = {k_live, DRA_RELEASE_1_38_PRE, ON, NULL, "vf-2", {"m0-a"}, DRA_OUTCOME_ALLOCATED,
               NULL, 1, "vf", "|cs.c=2"};
    run_all(&r);
    r.claim = "share";
    r.want_device = "m0";
    r.want_snap = "cs.c=1|";
    run_all(&r);
    /* the invariant checker refuses a result drawing from a withheld set: vf-2's allocation made
     * on an empty state, checked against the state with m0's differing shares */
    fx_t x;
    if (!fx_open(&x, k_live, DRA_RELEASE_1_38_PRE, ON))
        return;
    dra_claim_t *c = find(&x, "vf-2");
    const dra_node_t *node = dra_model_find_node(&x.m, "node-1");
    if (c && node) {
        dra_alloc_outcome_t o;
        CHECK_OK(dra_anyalloc_allocate(&x.ref, node, &c, 1, &x.out, &o));
        CHECK_EQ_U64(o.kind, DRA_OUTCOME_ALLOCATED);
        const char *const held[] = {"m0-a", "m0-b"};
        for (int i = 0; i < 2; i++) {
            dra_claim_t *h = find(&x, held[i]);
            if (h)
                CHECK_OK(dra_alloc_state_commit(x.st, h->allocation));
        }
        if (o.kind == DRA_OUTCOME_ALLOCATED) {
            dra_inv_report_t rep;
            CHECK_OK(dra_inv_check(&x.m, &x.f, x.st, x.cel, node, &c, o.allocations, 1, &rep));
            CHECK(rep.nviolations > 0);
            CHECK_MSG(rep.nviolations > 0 && strstr(rep.first[0], "draws from counter set cs, "
                                                                  "withheld") != NULL,
                      "%s", rep.nviolations ? rep.first[0] : "no violation");
        }
    }
    fx_fini(&x);
}

/* ---- explain --------------------------------------------------------------------------------- */

/* dra_explain of claim on node-1 after the claims of commit (NULL-ended) went into the state:
 * the reason's kind and a text it must hold; dra_explain_verify agrees (the allocator and the
 * brute force). */
static void explain_one(const char *yaml, const char *gate, const char *claim,
                        const char *const *commit, dra_why_kind_t want, const char *want_text)
{
    fx_t x;
    if (!fx_open(&x, yaml, DRA_RELEASE_1_38_PRE, gate))
        return;
    for (int i = 0; commit && commit[i]; i++) {
        dra_claim_t *h = find(&x, commit[i]);
        if (h)
            CHECK_OK(dra_alloc_state_commit(x.st, h->allocation));
    }
    dra_claim_t *c = find(&x, claim);
    const dra_node_t *node = dra_model_find_node(&x.m, "node-1");
    dra_explainer_t *ex = NULL;
    dra_alloc_options_t o = {0, 7};
    if (c && node && dra_explainer_new(&x.m, &x.f, x.st, x.cel, &o, &ex) == DRA_OK) {
        dra_why_t w;
        CHECK_OK(dra_explain(ex, node, &c, 1, &w));
        CHECK_MSG(w.kind == want, "%s: reason %s, want %s (%s)", claim, dra_why_kind_name(w.kind),
                  dra_why_kind_name(want), w.text);
        CHECK_MSG(strstr(w.text, want_text) != NULL, "%s: %s\n  want: %s", claim, w.text,
                  want_text);
        dra_why_t u;
        CHECK_OK(dra_explain_unsat(ex, node, &c, 1, &u));
        CHECK_STREQ(u.text, w.text);
        char msg[600] = "";
        CHECK_MSG(dra_explain_verify(ex, node, &c, 1, 100000, NULL, msg, sizeof msg) == DRA_OK,
                  "%s: %s", claim, msg);
    }
    CHECK(ex != NULL);
    dra_explainer_free(ex);
    fx_fini(&x);
}

static void test_explain(void)
{
    /* a request-driven amount the counter's requestPolicy does not allow (validRange max 3) */
    explain_one(k_live, ON, "vf-5", NULL, DRA_WHY_COUNTERS,
                "2 free matching devices, none can draw what the request asks of counter c of "
                "counter set cs (valueFrom capacity x): its requestPolicy does not allow 5, 1 "
                "needed");
    /* allocationMode All: the same refusal, for each device of the set */
    explain_one(k_live, ON, "all-5", NULL, DRA_WHY_COUNTERS,
                "none can draw what the request asks of counter c of counter set cs (valueFrom "
                "capacity x): its requestPolicy does not allow 5");
    /* a counter exhausted by the live allocations' snapshots: d0's perDevice 1 and held-vf's
     * perAllocation 1 leave 1 of 3; vf-2 asks 2 of vf-b (vf itself is allocated) */
    const char *const live[] = {"held-d0", "held-vf", NULL};
    explain_one(k_live, ON, "vf-2", live, DRA_WHY_COUNTERS,
                "1 free matching device, none fits the counters left (counter c of counter set "
                "cs, drawn per allocation from the request: 2 asked, 1 of 3 left after the live "
                "allocations), 1 needed");
    /* the policy's default (1) when the request asks nothing: with m0-a 1 is held, and d0's 1
     * and held-vf's 1 leave 0 */
    const char *const full[] = {"held-d0", "held-vf", "m0-a", NULL};
    explain_one(k_live, ON, "vf-any", full, DRA_WHY_COUNTERS,
                "(counter c of counter set cs, drawn per allocation from the request: 1 asked, 0 "
                "of 3 left after the live allocations)");
    /* sharedcap.c's fail-closed rule: the counter set withheld, the device and why */
    const char *const differ[] = {"m0-a", "m0-b", NULL};
    explain_one(k_live, ON, "vf-2", differ, DRA_WHY_COUNTERS,
                "2 free matching devices, none fits the counters left (counter set cs of pool "
                "d.io/p withheld, fail closed: the charge of the allocated device m0 on it cannot "
                "be established, as its live allocations carry consumedCounters.perDevice "
                "snapshots that differ), 1 needed");
    const char *const gone[] = {"legacy-gone", NULL};
    explain_one(k_live, ON, "vf-2", gone, DRA_WHY_COUNTERS,
                "(counter set cs of pool d.io/p withheld, fail closed: the charge of the allocated "
                "device gone on it cannot be established, as it is allocated without a "
                "consumedCounters snapshot and its pool no longer publishes it)");
    /* the gate off: nothing is drawn from a request, and the capacity vf-5 names is one the
     * devices lack */
    explain_one(k_live, NULL, "vf-5", NULL, DRA_WHY_CAPACITY, "capacity");
}

int main(void)
{
    RUN(test_gate);
    RUN(test_read_validate_write);
    RUN(test_read_errors);
    RUN(test_alloc_gate_off);
    RUN(test_alloc_gate_on);
    live_init();
    RUN(test_alloc_live);
    RUN(test_alloc_policy);
    RUN(test_alloc_release);
    RUN(test_alloc_shares);
    RUN(test_alloc_lifecycle);
    RUN(test_alloc_withheld);
    RUN(test_explain);
    return check_summary();
}
