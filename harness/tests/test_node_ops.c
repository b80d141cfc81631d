/* test_node_ops.c - DRAOptionalNodeOperations (KEP-5945; core/alloc/node_ops.c): the gate in the
 * release profiles, the reader and validator of skipNodeOperations and status.declaredFeatures
 * (file, line, reason), and the allocation rule through the engine, the fast and the reference
 * allocators: a device of a slice with skipNodeOperations only on a node that declares the
 * feature, with the gate on, its result copying the list; with the gate off nowhere; before 1.37
 * the field is ignored. The engine treats the nodes that see such a pool as hazards. */
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "engine_fx.h"

static bool has(const dra_diag_list_t *l, const char *needle, uint32_t line)
{
    for (size_t i = 0; i < l->count; i++)
        if (strstr(l->items[i].msg, needle) && (!line || l->items[i].line == line))
            return true;
    return false;
}

/* ---- the gate ------------------------------------------------------------------------------ */

static void test_gate(void)
{
    dra_alloc_features_t f;
    dra_diag_t d;
    dra_diag_clear(&d);
    /* not in 1.36: naming it on is refused as a gate of another release, not an unknown one */
    dra_alloc_features_init(&f, DRA_RELEASE_1_36);
    CHECK(dra_alloc_features_set(&f, "DRAOptionalNodeOperations=true", &d) == DRA_EINVAL);
    CHECK(strstr(d.msg, "does not exist in release 1.36") != NULL);
    static const dra_release_t rels[] = {DRA_RELEASE_1_37, DRA_RELEASE_1_38_PRE};
    for (size_t i = 0; i < 2; i++) {
        dra_gate_stage_t st = dra_alloc_gate_stage(rels[i], DRA_GATE_OPTIONAL_NODE_OPERATIONS);
        CHECK(st.exists && !st.def && !st.locked);
        CHECK_STREQ(st.stage, "alpha");
        dra_alloc_features_init(&f, rels[i]);
        CHECK(!dra_alloc_gate_on(&f, DRA_GATE_OPTIONAL_NODE_OPERATIONS));
        CHECK_EQ_I64(dra_alloc_variant(&f), DRA_VARIANT_INCUBATING);
        CHECK_OK(dra_alloc_features_set(&f, "DRAOptionalNodeOperations=true", &d));
        CHECK(dra_alloc_gate_on(&f, DRA_GATE_OPTIONAL_NODE_OPERATIONS));
        /* an alpha allocator feature: only experimental supports it */
        CHECK_EQ_I64(dra_alloc_variant(&f), DRA_VARIANT_EXPERIMENTAL);
    }
    dra_gate_t g;
    CHECK(dra_alloc_gate_lookup("DRAOptionalNodeOperations", &g) &&
          g == DRA_GATE_OPTIONAL_NODE_OPERATIONS);
}

/* ---- reader and validator -------------------------------------------------------------------- */

static const char k_bad[] =
    "apiVersion: v1\n"                                         /* 1 */
    "kind: Node\n"                                             /* 2 */
    "metadata: {name: n1}\n"                                   /* 3 */
    "status:\n"                                                /* 4 */
    "  declaredFeatures: [DRAOptionalNodeOperations, Other]\n" /* 5 */
    "---\n"                                                    /* 6 */
    "apiVersion: resource.k8s.io/v1\n"                         /* 7 */
    "kind: ResourceSlice\n"                                    /* 8 */
    "metadata: {name: s1}\n"                                   /* 9 */
    "spec:\n"                                                  /* 10 */
    "  driver: drv\n"                                          /* 11 */
    "  pool: {name: p1, generation: 1, resourceSliceCount: 1}\n"
    "  nodeName: n1\n"                       /* 13 */
    "  skipNodeOperations:\n"                /* 14 */
    "  - NodePrepareResources\n"             /* 15 */
    "  - Prepare\n"                          /* 16 */
    "  - NodePrepareResources\n"             /* 17 */
    "  devices: [{name: d1}]\n";             /* 18 */

static void test_read_validate(void)
{
    dra_model_t m;
    dra_model_init(&m);
    dra_diag_list_t e, w;
    dra_diag_list_init(&e);
    dra_diag_list_init(&w);
    CHECK_OK(dra_manifest_read_buffer(&m, "t.yaml", k_bad, strlen(k_bad), &e));
    CHECK_EQ_U64(e.count, 0);
    CHECK_EQ_U64(m.nnodes, 1);
    CHECK_EQ_U64(m.nodes[0]->ndeclared_features, 2);
    CHECK_STREQ(m.nodes[0]->declared_features[0], "DRAOptionalNodeOperations");
    CHECK(dra_alloc_node_declares(m.nodes[0], "DRAOptionalNodeOperations"));
    CHECK(!dra_alloc_node_declares(m.nodes[0], "DraOptionalNodeOperations"));
    CHECK(!dra_alloc_node_declares(NULL, "DRAOptionalNodeOperations"));
    CHECK_EQ_U64(m.slices[0]->nskip_node_ops, 3);
    CHECK_EQ_U64(m.slices[0]->skip_node_ops_pos.line, 15);
    dra_validate_opts_t o = {0, 138};
    CHECK(dra_manifest_validate_ex(&m, &o, &e, &w) == DRA_EVALIDATE);
    CHECK(has(&e, "skipNodeOperations[1]: Unsupported value: \"Prepare\": supported values: "
                  "\"*\", \"NodePrepareResources\", \"NodeUnprepareResources\"",
              15));
    CHECK(has(&e, "skipNodeOperations[2]: Duplicate value: \"NodePrepareResources\"", 15));
    CHECK(has(&e, "skipNodeOperations: Invalid value: \"NodePrepareResources\": may only be "
                  "listed together with \"NodeUnprepareResources\" or \"*\"",
              15));
    CHECK_EQ_U64(e.count, 3);
    for (size_t i = 0; i < e.count; i++)
        CHECK_STREQ(e.items[i].file, "t.yaml");
    /* a release without the field: an error of its own; no release: a warning */
    dra_diag_list_fini(&e);
    dra_diag_list_init(&e);
    o.release = 136;
    CHECK(dra_manifest_validate_ex(&m, &o, &e, &w) == DRA_EVALIDATE);
    CHECK(has(&e, "skipNodeOperations: not a field in Kubernetes 1.36 (new in 1.37, feature gate "
                  "DRAOptionalNodeOperations)",
              15));
    dra_diag_list_fini(&e);
    dra_diag_list_fini(&w);
    dra_diag_list_init(&e);
    dra_diag_list_init(&w);
    o.release = 0;
    CHECK(dra_manifest_validate_ex(&m, &o, &e, &w) == DRA_EVALIDATE);
    CHECK(has(&w, "skipNodeOperations: new in Kubernetes 1.37", 15));
    dra_diag_list_fini(&e);
    dra_diag_list_fini(&w);
    dra_model_fini(&m);

    /* valid sets pass; a list that is no list is a reader error at its line */
    static const char *const ok[] = {"['*']", "[NodeUnprepareResources]",
                                     "[NodePrepareResources, NodeUnprepareResources]",
                                     "[NodePrepareResources, '*']", "[]", "null"};
    for (size_t i = 0; i < sizeof ok / sizeof ok[0]; i++) {
        char buf[512];
        snprintf(buf, sizeof buf,
                 "apiVersion: resource.k8s.io/v1\nkind: ResourceSlice\nmetadata: {name: s1}\n"
                 "spec:\n  driver: drv\n  pool: {name: p1, generation: 1, resourceSliceCount: 1}\n"
                 "  nodeName: n1\n  skipNodeOperations: %s\n  devices: [{name: d1}]\n",
                 ok[i]);
        dra_model_init(&m);
        dra_diag_list_init(&e);
        CHECK_OK(dra_manifest_read_buffer(&m, "t.yaml", buf, strlen(buf), &e));
        o.release = 137;
        CHECK_MSG(dra_manifest_validate_ex(&m, &o, &e, NULL) == DRA_OK, "%s", ok[i]);
        dra_diag_list_fini(&e);
        dra_model_fini(&m);
    }
    static const char k_scalar[] =
        "apiVersion: resource.k8s.io/v1\nkind: ResourceSlice\nmetadata: {name: s1}\n"
        "spec:\n  driver: drv\n  pool: {name: p1, generation: 1, resourceSliceCount: 1}\n"
        "  nodeName: n1\n  skipNodeOperations: '*'\n  devices: [{name: d1}]\n";
    dra_model_init(&m);
    dra_diag_list_init(&e);
    CHECK(dra_manifest_read_buffer(&m, "t.yaml", k_scalar, strlen(k_scalar), &e) != DRA_OK);
    CHECK(e.count > 0 && e.items[0].line == 8 && strstr(e.items[0].msg, "skipNodeOperations"));
    dra_diag_list_fini(&e);
    dra_model_fini(&m);
}

/* ---- allocation --------------------------------------------------------------------------- */

/* n1 declares nothing, n2 declares the feature (its slice skips every operation), n3 has a slice
 * without the field. */
static const char k_nodes[] =
    "apiVersion: v1\nkind: Node\nmetadata: {name: n1}\n---\n"
    "apiVersion: v1\nkind: Node\nmetadata: {name: n2}\n"
    "status: {declaredFeatures: [DRAOptionalNodeOperations]}\n---\n"
    "apiVersion: v1\nkind: Node\nmetadata: {name: n3}\n---\n"
    "apiVersion: resource.k8s.io/v1\nkind: DeviceClass\nmetadata: {name: a}\n"
    "spec: {selectors: [{cel: {expression: 'device.driver == \"drv\"'}}]}\n---\n"
    "apiVersion: resource.k8s.io/v1\nkind: ResourceSlice\nmetadata: {name: s1}\n"
    "spec: {driver: drv, pool: {name: p1, generation: 1, resourceSliceCount: 1}, nodeName: n1,\n"
    "  skipNodeOperations: ['*'], devices: [{name: d1}, {name: d2}]}\n---\n"
    "apiVersion: resource.k8s.io/v1\nkind: ResourceSlice\nmetadata: {name: s2}\n"
    "spec: {driver: drv, pool: {name: p2, generation: 1, resourceSliceCount: 1}, nodeName: n2,\n"
    "  skipNodeOperations: [NodeUnprepareResources], devices: [{name: d1}, {name: d2}]}\n---\n"
    "apiVersion: resource.k8s.io/v1\nkind: ResourceSlice\nmetadata: {name: s3}\n"
    "spec: {driver: drv, pool: {name: p3, generation: 1, resourceSliceCount: 1}, nodeName: n3,\n"
    "  devices: [{name: d1}, {name: d2}]}\n---\n"
    "apiVersion: resource.k8s.io/v1\nkind: ResourceClaim\nmetadata: {name: one}\n"
    "spec: {devices: {requests: [{name: r, exactly: {deviceClassName: a, count: 1}}]}}\n---\n"
    "apiVersion: resource.k8s.io/v1\nkind: ResourceClaim\nmetadata: {name: all}\n"
    "spec: {devices: {requests: [{name: r, exactly: {deviceClassName: a, allocationMode: All}}]}}\n";

/* The engine's and the reference placement's answers agree (outcome, node, devices and their
 * skipNodeOperations); the engine's is returned. */
static dra_engine_result_t place_both(fx_t *x, uint32_t p, dra_engine_policy_t pol)
{
    dra_engine_result_t a, b;
    CHECK_OK(dra_engine_place(x->e, p, pol, 0, &x->out, &a));
    CHECK_OK(dra_engine_place_reference(x->e, &x->ref, p, pol, 0, &x->out2, &b));
    CHECK_MSG(a.kind == b.kind && a.node == b.node, "policy %d: engine %d on %u, reference %d on %u",
              (int)pol, (int)a.kind, a.node, (int)b.kind, b.node);
    if (a.kind == DRA_OUTCOME_ALLOCATED && b.kind == DRA_OUTCOME_ALLOCATED) {
        const dra_allocation_t *p1 = a.allocations[0], *p2 = b.allocations[0];
        CHECK_EQ_U64(p1->nresults, p2->nresults);
        for (uint32_t i = 0; i < p1->nresults && i < p2->nresults; i++) {
            CHECK_STREQ(p1->results[i].device, p2->results[i].device);
            CHECK_EQ_U64(p1->results[i].nskip_node_ops, p2->results[i].nskip_node_ops);
        }
    }
    return a;
}

static void test_allocation(void)
{
    static const struct {
        dra_release_t rel;
        const char *gate;
        uint32_t node;      /* first-fit node of "one" */
        uint32_t nskip;     /* its result's skipNodeOperations */
        const char *skip0;
        uint32_t hazards;   /* nodes that see a pool with skipNodeOperations */
    } cases[] = {
        /* 1.36: the field is unknown to the release and ignored: n1 first, nothing copied */
        {DRA_RELEASE_1_36, NULL, 0, 0, NULL, 2},
        /* 1.37 / 1.38-pre, gate off (default): such devices are allocatable nowhere: n3 */
        {DRA_RELEASE_1_37, NULL, 2, 0, NULL, 2},
        {DRA_RELEASE_1_38_PRE, NULL, 2, 0, NULL, 2},
        /* gate on: only n2 declares the feature; its result copies the slice's list */
        {DRA_RELEASE_1_37, "DRAOptionalNodeOperations=true", 1, 1, "NodeUnprepareResources", 2},
        {DRA_RELEASE_1_38_PRE, "DRAOptionalNodeOperations=true", 1, 1, "NodeUnprepareResources", 2},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        fx_t x;
        if (!fx_open(&x, k_nodes, cases[i].rel, cases[i].gate))
            return;
        dra_engine_info_t info;
        dra_engine_get_info(x.e, &info);
        CHECK_EQ_U64(info.nhazard, cases[i].hazards);
        uint32_t one = fx_plan(&x, "one"), all = fx_plan(&x, "all");
        for (int pol = 0; pol < 4; pol++)
            place_both(&x, one, (dra_engine_policy_t)pol);
        dra_engine_result_t r = place_both(&x, one, DRA_ENGINE_FIRST_FIT);
        CHECK_EQ_U64(r.kind, DRA_OUTCOME_ALLOCATED);
        CHECK_MSG(r.node == cases[i].node, "case %zu: node %u, expected %u", i, r.node,
                  cases[i].node);
        if (r.kind == DRA_OUTCOME_ALLOCATED) {
            const dra_result_t *res = &r.allocations[0]->results[0];
            CHECK_EQ_U64(res->nskip_node_ops, cases[i].nskip);
            if (cases[i].skip0 && res->nskip_node_ops)
                CHECK_STREQ(res->skip_node_ops[0], cases[i].skip0);
        }
        /* allocationMode All: both devices of the first node whose devices are selectable */
        r = place_both(&x, all, DRA_ENGINE_FIRST_FIT);
        CHECK_EQ_U64(r.kind, DRA_OUTCOME_ALLOCATED);
        CHECK_EQ_U64(r.node, cases[i].node);
        if (r.kind == DRA_OUTCOME_ALLOCATED)
            CHECK_EQ_U64(r.allocations[0]->nresults, 2);
        /* on n1 (no declared feature) nothing fits from 1.37 on, whatever the gate */
        dra_claim_t *c = dra_model_find_claim(&x.m, NULL, "one");
        dra_alloc_outcome_t out;
        for (int k = 0; k < 2; k++) {
            memset(&out, 0, sizeof out);
            CHECK_OK(dra_anyalloc_allocate(k ? &x.ref : &x.fast, x.m.nodes[0], &c, 1, &x.out, &out));
            CHECK_EQ_U64(out.kind, cases[i].rel == DRA_RELEASE_1_36 ? DRA_OUTCOME_ALLOCATED
                                                                     : DRA_OUTCOME_UNSATISFIABLE);
        }
        fx_fini(&x);
    }
}

int main(void)
{
    RUN(test_gate);
    RUN(test_read_validate);
    RUN(test_allocation);
    return check_summary();
}
