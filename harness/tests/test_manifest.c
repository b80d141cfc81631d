/* test_manifest.c - manifest reader mappings, validator rules, writer round trip, bad input. */
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "check.h"
#include "diag_fx.h"
#include "manifest.h"

static void test_old_versions_map(void)
{
    const char *y = "apiVersion: resource.k8s.io/v1alpha3\n"
                    "kind: ResourceSlice\n"
                    "metadata: {name: s}\n"
                    "spec:\n"
                    "  driver: gpu.example.com\n"
                    "  pool: {name: p, generation: 1, resourceSliceCount: 1}\n"
                    "  nodeName: n1\n"
                    "  devices:\n"
                    "  - name: gpu-0\n"
                    "    basic:\n"
                    "      attributes: {numa: {int: 3}, gpu.example.com/model: {string: A100}}\n"
                    "      capacity: {memory: 80Gi}\n"
                    "---\n"
                    "apiVersion: resource.k8s.io/v1beta1\n"
                    "kind: ResourceClaim\n"
                    "metadata: {name: c}\n"
                    "spec:\n"
                    "  devices:\n"
                    "    requests:\n"
                    "    - {name: r, deviceClassName: gpu, count: 2}\n";
    dra_model_t m;
    dra_diag_list_t e;
    int rc = diag_fx_load(&m, y, &e);
    CHECK_OK(rc);
    if (rc)
        diag_fx_dump(&e);
    CHECK_EQ_I64(m.nslices, 1);
    CHECK_EQ_I64(m.ndevices, 1);
    const dra_device_t *d = &m.slices[0]->devices[0];
    CHECK_EQ_I64(d->nattrs, 2);
    CHECK_EQ_I64(d->ncaps, 1);
    const dra_attr_t *numa = dra_device_attr(d, dra_model_qname(&m, "gpu.example.com", "numa"));
    CHECK(numa && numa->kind == DRA_ATTR_INT && numa->v.i == 3);
    /* "gpu.example.com/model" and "model" name the same attribute */
    CHECK(dra_device_attr(d, dra_model_qname(&m, "gpu.example.com", "model")) != NULL);
    char q[64];
    dra_quantity_format(&d->caps[0].value, q, sizeof q);
    CHECK_STREQ(q, "80Gi");
    CHECK_EQ_I64(m.nclaims, 1);
    const dra_request_t *r = &m.claims[0]->requests[0];
    CHECK(r->exactly != NULL);
    CHECK_STREQ(r->exactly->class_name, "gpu");
    CHECK_EQ_I64(r->exactly->count, 2);
    CHECK_STREQ(m.claims[0]->namespace_, "default");
    diag_fx_done(&m, &e);
}

static void test_errors_all_reported_with_positions(void)
{
    const char *y = "apiVersion: resource.k8s.io/v1\n"
                    "kind: ResourceSlice\n"
                    "metadata: {name: s}\n"
                    "spec:\n"
                    "  driver: d.example.com\n"
                    "  pool: {name: p, generation: one, resourceSliceCount: 0}\n"
                    "  nodeName: n1\n"
                    "  allNodes: true\n"
                    "  devices:\n"
                    "  - name: Bad_Name\n"
                    "    attributes: {a: {int: 1, bool: true}, b: {string: 7}}\n"
                    "    capacity: {m: 4}\n"
                    "  - name: dup\n"
                    "  - name: dup\n"
                    "    bogus: 1\n";
    dra_model_t m;
    dra_diag_list_t e;
    CHECK(diag_fx_load(&m, y, &e) != DRA_OK);
    CHECK(diag_fx_has(&e, "ResourceSlice/s: spec.pool.generation: expected integer, got string \"one\""));
    CHECK(diag_fx_has(&e, "resourceSliceCount: must be greater than zero"));
    CHECK(diag_fx_has(&e, "exactly one of nodeName, nodeSelector, allNodes, perDeviceNodeSelection must be "
                  "set, 2 are"));
    CHECK(diag_fx_has(&e, "spec.devices[0]: name: \"Bad_Name\" is not a DNS label"));
    CHECK(diag_fx_has(&e, "attributes.a: attribute must have exactly one of"));
    CHECK(diag_fx_has(&e, "attributes.b.string: expected a string, got int 7"));
    CHECK(diag_fx_has(&e, "capacity.m: expected a map with \"value\""));
    CHECK(diag_fx_has(&e, "duplicate device name \"dup\""));
    CHECK(diag_fx_has(&e, "spec.devices[2].bogus: unknown field \"bogus\""));
    bool positioned = e.count > 0;
    for (size_t i = 0; i < e.count; i++)
        positioned = positioned && e.items[i].file && e.items[i].line > 0;
    CHECK(positioned);
    /* the generation error points at line 6 */
    bool line6 = false;
    for (size_t i = 0; i < e.count; i++)
        if (strstr(e.items[i].msg, "generation"))
            line6 = e.items[i].line == 6 && e.items[i].column > 1;
    CHECK(line6);
    diag_fx_done(&m, &e);
}

static void test_claim_rules(void)
{
    const char *y = "apiVersion: resource.k8s.io/v1\n"
                    "kind: ResourceClaim\n"
                    "metadata: {name: c}\n"
                    "spec:\n"
                    "  devices:\n"
                    "    requests:\n"
                    "    - name: r\n"
                    "      exactly: {deviceClassName: g, count: 0}\n"
                    "      firstAvailable: [{name: s, deviceClassName: g}]\n"
                    "    - name: q\n"
                    "      exactly:\n"
                    "        deviceClassName: g\n"
                    "        allocationMode: Some\n"
                    "        tolerations: [{key: '', operator: Equal}, {key: k, operator: Exists, value: v}]\n"
                    "    constraints:\n"
                    "    - {matchAttribute: a.io/x, distinctAttribute: a.io/y}\n"
                    "    - {matchAttribute: numa, requests: [zz]}\n";
    dra_model_t m;
    dra_diag_list_t e;
    CHECK(diag_fx_load(&m, y, &e) == DRA_EVALIDATE);
    CHECK(diag_fx_has(&e, "exactly one of exactly, firstAvailable must be set, both are"));
    CHECK(diag_fx_has(&e, "count: must be greater than zero"));
    CHECK(diag_fx_has(&e, "allocationMode: unsupported value \"Some\""));
    CHECK(diag_fx_has(&e, "operator: must be Exists when key is empty"));
    CHECK(diag_fx_has(&e, "value: must be empty when operator is Exists"));
    CHECK(diag_fx_has(&e, "exactly one of matchAttribute, distinctAttribute must be set, both are"));
    CHECK(diag_fx_has(&e, "\"numa\" is not a fully qualified name"));
    CHECK(diag_fx_has(&e, "requests[0]: \"zz\" is not a request of this claim"));
    diag_fx_done(&m, &e);
}

static void test_limits_and_release(void)
{
    /* 129 devices: over the limit of 128 */
    dra_sbuf_t b = {0};
    dra_sbuf_puts(&b, "apiVersion: resource.k8s.io/v1\nkind: ResourceSlice\nmetadata: {name: s}\n"
                      "spec:\n  driver: d.io\n  pool: {name: p, generation: 1, resourceSliceCount: 1}\n"
                      "  allNodes: true\n  sharedCounters: [{name: cs, counters: {c: {value: '1'}}}]\n"
                      "  devices:\n");
    for (int i = 0; i < 129; i++)
        dra_sbuf_printf(&b, "  - name: d%d\n", i);
    dra_model_t m;
    dra_diag_list_t e;
    CHECK(diag_fx_load(&m, b.p, &e) == DRA_EVALIDATE);
    CHECK(diag_fx_has(&e, "must have at most 128 devices, has 129"));
    /* devices + sharedCounters: a warning by default, an error for 1.35 */
    dra_diag_list_t w;
    dra_diag_list_init(&w);
    dra_diag_list_t e2;
    dra_diag_list_init(&e2);
    dra_validate_opts_t o = {0, 0};
    CHECK(dra_manifest_validate_ex(&m, &o, &e2, &w) == DRA_EVALIDATE); /* 129 devices */
    CHECK(diag_fx_has(&w, "invalid from Kubernetes 1.35 on"));
    CHECK(!diag_fx_has(&e2, "invalid from Kubernetes 1.35 on"));
    dra_diag_list_fini(&e2);
    dra_diag_list_init(&e2);
    o.release = 135;
    CHECK(dra_manifest_validate_ex(&m, &o, &e2, NULL) == DRA_EVALIDATE);
    CHECK(diag_fx_has(&e2, "invalid from Kubernetes 1.35 on"));
    o.release = 134;
    dra_diag_list_fini(&e2);
    dra_diag_list_init(&e2);
    CHECK(dra_manifest_validate_ex(&m, &o, &e2, NULL) == DRA_EVALIDATE);
    CHECK(!diag_fx_has(&e2, "sharedCounters in one slice"));
    dra_diag_list_fini(&e2);
    dra_diag_list_fini(&w);
    dra_sbuf_fini(&b);
    diag_fx_done(&m, &e);
}

static void test_names(void)
{
    CHECK(dra_name_is_dns_label("gpu-0"));
    CHECK(!dra_name_is_dns_label("-gpu"));
    CHECK(!dra_name_is_dns_label("Gpu"));
    CHECK(dra_name_is_dns_subdomain("gpu.example.com"));
    CHECK(!dra_name_is_dns_subdomain("gpu..example"));
    CHECK(dra_name_is_qualified("numa"));
    CHECK(dra_name_is_qualified("gpu.nvidia.com/productName"));
    CHECK(!dra_name_is_qualified("gpu.nvidia.com/product-name"));
    CHECK(!dra_name_is_qualified("a/b/c"));
    CHECK(!dra_name_is_c_identifier("0abc"));
    CHECK(dra_name_is_label_key("kubernetes.io/hostname"));
    CHECK(!dra_name_is_label_key("bad key"));
}

static void test_roundtrip_and_params(void)
{
    const char *y = "apiVersion: resource.k8s.io/v1\n"
                    "kind: DeviceClass\n"
                    "metadata: {name: k}\n"
                    "spec:\n"
                    "  config:\n"
                    "  - opaque:\n"
                    "      driver: x.io\n"
                    "      parameters: {z: 1, a: {y: [true, null, 0.1, \"t\\\"q\"]}, 'yes': 0x10}\n"
                    "---\n"
                    "apiVersion: apps/v1\n"
                    "kind: Job\n"
                    "metadata: {name: j, namespace: ns}\n"
                    "spec:\n"
                    "  parallelism: 4\n"
                    "  template:\n"
                    "    spec:\n"
                    "      resourceClaims: [{name: g, resourceClaimName: shared}]\n";
    dra_model_t m;
    dra_diag_list_t e;
    CHECK_OK(diag_fx_load(&m, y, &e));
    CHECK_STREQ(m.classes[0]->configs[0].opaque.params_json,
                "{\"a\":{\"y\":[true,null,0.1,\"t\\\"q\"]},\"yes\":16,\"z\":1}");
    CHECK_EQ_I64(m.npods, 1);
    CHECK_EQ_I64(m.pods[0]->kind, DRA_POD_JOB);
    CHECK_EQ_I64(m.pods[0]->replicas, 4);
    dra_sbuf_t out = {0};
    CHECK_OK(dra_manifest_write_yaml_buf(&m, &out));
    dra_model_t m2;
    dra_diag_list_t e2;
    CHECK_OK(diag_fx_load(&m2, out.p, &e2));
    CHECK_EQ_U64(dra_model_digest(&m), dra_model_digest(&m2));
    CHECK_STREQ(m2.classes[0]->configs[0].opaque.params_json,
                m.classes[0]->configs[0].opaque.params_json);
    /* a change is visible in the digest */
    m2.pods[0]->replicas = 5;
    CHECK(dra_model_digest(&m) != dra_model_digest(&m2));
    diag_fx_done(&m2, &e2);
    dra_sbuf_fini(&out);
    diag_fx_done(&m, &e);
}

/* Pods' containers (KEP-5004 extended resources, sidecars, defaulted requests), node filters,
 * statuses; Node taints and allocatable; a class's creation time; the scheduler's claim marks:
 * read, validated, written and read back to the same digest. */
static void test_pods_and_nodes_roundtrip(void)
{
    const char *y =
        "apiVersion: v1\n"
        "kind: Node\n"
        "metadata: {name: n1, labels: {zone: a}}\n"
        "spec:\n"
        "  unschedulable: true\n"
        "  taints: [{key: k, value: v, effect: NoSchedule}, {key: p, effect: PreferNoSchedule}]\n"
        "status: {allocatable: {cpu: '8', memory: 1Gi, pods: '110', nvidia.com/gpu: '4'}}\n"
        "---\n"
        "apiVersion: resource.k8s.io/v1\n"
        "kind: DeviceClass\n"
        "metadata: {name: g, creationTimestamp: '2026-01-02T03:04:05Z'}\n"
        "spec: {extendedResourceName: example.com/gpu}\n"
        "---\n"
        "apiVersion: resource.k8s.io/v1\n"
        "kind: ResourceClaim\n"
        "metadata:\n"
        "  name: p-extended-resources-bcdfg\n"
        "  generateName: p-extended-resources-\n"
        "  annotations: {resource.kubernetes.io/extended-resource-claim: 'true'}\n"
        "  ownerReferences: [{apiVersion: v1, kind: Pod, name: p, uid: u1, controller: true}]\n"
        "spec: {devices: {requests: [{name: container-1-request-0, exactly: {deviceClassName: "
        "g}}]}}\n"
        "---\n"
        "apiVersion: v1\n"
        "kind: Pod\n"
        "metadata: {name: p, uid: u1}\n"
        "spec:\n"
        "  nodeSelector: {zone: a}\n"
        "  affinity:\n"
        "    nodeAffinity:\n"
        "      requiredDuringSchedulingIgnoredDuringExecution:\n"
        "        nodeSelectorTerms: [{matchExpressions: [{key: zone, operator: In, values: "
        "[a]}]}]\n"
        "  tolerations: [{key: k, operator: Exists}]\n"
        "  overhead: {cpu: 100m}\n"
        "  resourceClaims: [{name: t, resourceClaimTemplateName: tt}]\n"
        "  initContainers:\n"
        "  - {name: side, restartPolicy: Always, resources: {limits: {example.com/gpu: '1'}}}\n"
        "  containers:\n"
        "  - name: main\n"
        "    image: busybox\n"
        "    resources:\n"
        "      limits: {example.com/gpu: '2', memory: 2Gi}\n"
        "      requests: {cpu: 500m, memory: 1Gi}\n"
        "status:\n"
        "  resourceClaimStatuses: [{name: t, resourceClaimName: p-t-xyz}]\n"
        "  extendedResourceClaimStatus:\n"
        "    resourceClaimName: p-extended-resources-bcdfg\n"
        "    requestMappings: [{containerName: side, resourceName: example.com/gpu, requestName: "
        "container-0-request-0}]\n";
    dra_model_t m;
    dra_diag_list_t e;
    int rc = diag_fx_load(&m, y, &e);
    if (rc)
        diag_fx_dump(&e);
    CHECK_OK(rc);
    CHECK_EQ_U64(m.nnodes, 1);
    CHECK(m.nodes[0]->unschedulable && m.nodes[0]->ntaints == 2);
    CHECK_EQ_U64(m.nodes[0]->nallocatable,
                 2); /* nvidia.com/gpu, pods: sorted, cpu / memory apart */
    CHECK_STREQ(m.nodes[0]->allocatable[0].name, "nvidia.com/gpu");
    CHECK_STREQ(m.classes[0]->created, "2026-01-02T03:04:05Z");
    const dra_claim_t *c = m.claims[0];
    CHECK(c->extended);
    CHECK_STREQ(c->owner_pod, "p");
    CHECK_STREQ(c->owner_uid, "u1");
    CHECK_STREQ(c->generate_name, "p-extended-resources-");
    const dra_pod_t *p = m.pods[0];
    CHECK_EQ_U64(p->ncontainers, 2);
    CHECK_EQ_U64(p->ninit, 1);
    CHECK(p->containers[0].kind == DRA_CONTAINER_SIDECAR);
    CHECK(p->containers[1].kind == DRA_CONTAINER_REGULAR);
    /* main: requests cpu, example.com/gpu (defaulted from the limit), memory: sorted */
    CHECK_EQ_U64(p->containers[1].nrequests, 3);
    CHECK_STREQ(p->containers[1].requests[1].name, "example.com/gpu");
    CHECK(p->containers[1].requests[1].defaulted && !p->containers[1].requests[2].defaulted);
    CHECK(p->nnode_labels == 1 && p->node_affinity && p->ntolerations == 1 && p->noverhead == 1);
    CHECK_STREQ(p->claims[0].generated_name, "p-t-xyz");
    CHECK_STREQ(p->ext_claim, "p-extended-resources-bcdfg");
    CHECK_EQ_U64(p->next_mappings, 1);
    CHECK_STREQ(p->uid, "u1");
    dra_sbuf_t out = {0};
    CHECK_OK(dra_manifest_write_yaml_buf(&m, &out));
    dra_model_t m2;
    dra_diag_list_t e2;
    rc = diag_fx_load(&m2, out.p, &e2);
    if (rc) {
        diag_fx_dump(&e2);
        fprintf(stderr, "%s", out.p);
    }
    CHECK_OK(rc);
    CHECK_EQ_U64(dra_model_digest(&m), dra_model_digest(&m2));
    CHECK(strstr(out.p, "requests:\n") != NULL && strstr(out.p, "restartPolicy: Always") != NULL);
    /* a changed limit, taint or creation time is visible in the digest */
    m2.pods[0]->containers[1].limits[0].value.lo++;
    CHECK(dra_model_digest(&m) != dra_model_digest(&m2));
    diag_fx_done(&m2, &e2);
    dra_sbuf_fini(&out);
    diag_fx_done(&m, &e);
}

/* What the API server rejects in container resources and a class's extendedResourceName. */
static void test_resource_rules(void)
{
    const char
        *y = "apiVersion: resource.k8s.io/v1\n"
             "kind: DeviceClass\n"
             "metadata: {name: g, creationTimestamp: yesterday}\n"
             "spec: {extendedResourceName: deviceclass.resource.kubernetes.io/g}\n"
             "---\n"
             "apiVersion: v1\n"
             "kind: Pod\n"
             "metadata: {name: p}\n"
             "spec:\n"
             "  containers:\n"
             "  - name: a\n"
             "    resources:\n"
             "      limits: {example.com/gpu: 1500m, gpu: '1', Example.com/x: '1'}\n"
             "      requests: {example.com/gpu: '1', example.com/fpga: '1', cpu: '-1'}\n"
             "  - name: a\n"
             "    resources: {limits: {cpu: '1', deviceclass.resource.kubernetes.io/g: 500m},\n"
             "                requests: {cpu: '2'}}\n";
    dra_model_t m;
    dra_diag_list_t e;
    CHECK(diag_fx_load(&m, y, &e) != DRA_OK);
    CHECK(diag_fx_has(&e, "metadata.creationTimestamp: \"yesterday\" is not an RFC 3339 time"));
    CHECK(diag_fx_has(&e,
              "spec.extendedResourceName: Invalid value: \"deviceclass.resource.kubernetes.io/g\": "
              "must be a valid extended resource name"));
    CHECK(diag_fx_has(&e, "limits[example.com/gpu]: must be an integer"));
    CHECK(diag_fx_has(&e, "\"gpu\": must be a standard resource for containers"));
    CHECK(diag_fx_has(&e, "\"Example.com/x\": must be a qualified name"));
    CHECK(diag_fx_has(&e, "requests[example.com/gpu]: must be equal to example.com/gpu limit of 1500m"));
    CHECK(diag_fx_has(&e, "Limit must be set for non overcommitable resources"));
    CHECK(diag_fx_has(&e, "requests[cpu]: must be greater than or equal to 0"));
    CHECK(diag_fx_has(&e, "name: Duplicate value: \"a\""));
    CHECK(diag_fx_has(&e, "requests[cpu]: must be less than or equal to cpu limit of 1"));
    /* a fraction of an implicit name is not an error (a prefixed native resource) */
    CHECK(!diag_fx_has(&e, "limits[deviceclass.resource.kubernetes.io/g]"));
    diag_fx_done(&m, &e);
}

/* JSON input may carry characters YAML may not hold raw (C1 controls, U+FFFE/U+FFFF, DEL in
 * opaque parameters): the YAML writer escapes them, and reading its output gives the same model
 * (the second read refused "control characters are not allowed") */
static void test_roundtrip_unprintable(void)
{
    const char *j = "{\"apiVersion\": \"resource.k8s.io/v1\", \"kind\": \"DeviceClass\","
                    " \"metadata\": {\"name\": \"k\"}, \"spec\": {"
                    "\"selectors\": [{\"cel\": {\"expression\": \"device.driver == 'x\\u0089\\uffff'\"}}],"
                    "\"config\": [{\"opaque\": {\"driver\": \"x.io\", \"parameters\": "
                    "{\"k\\u0085\\u0089\": \"v\\u009f\\ufffe\\u007f\", \"n\": 1}}}]}}";
    dra_model_t m;
    dra_diag_list_t e;
    CHECK_OK(diag_fx_load(&m, j, &e));
    CHECK(strstr(m.classes[0]->configs[0].opaque.params_json, "k\xc2\x85\xc2\x89") != NULL);
    for (int json = 0; json < 2; json++) {
        dra_sbuf_t out = {0};
        CHECK_OK(json ? dra_manifest_write_json_buf(&m, &out) : dra_manifest_write_yaml_buf(&m, &out));
        CHECK(json || strstr(out.p, "\\u0089") != NULL);
        dra_model_t m2;
        dra_diag_list_t e2;
        CHECK_OK(diag_fx_load(&m2, out.p, &e2));
        CHECK_EQ_U64(dra_model_digest(&m), dra_model_digest(&m2));
        CHECK_STREQ(m2.classes[0]->configs[0].opaque.params_json,
                    m.classes[0]->configs[0].opaque.params_json);
        diag_fx_done(&m2, &e2);
        dra_sbuf_fini(&out);
    }
    diag_fx_done(&m, &e);
}

static void test_skipped_and_lists(void)
{
    const char *y = "apiVersion: v1\nkind: Namespace\nmetadata: {name: x}\n---\n"
                    "apiVersion: drabench.dev/v1alpha1\nkind: AllocationTest\nmetadata: {name: t}\n"
                    "---\napiVersion: v1\nkind: NodeList\nitems:\n"
                    "- {apiVersion: v1, kind: Node, metadata: {name: n1, labels: {a: b}}}\n";
    dra_model_t m;
    dra_diag_list_t e;
    CHECK_OK(diag_fx_load(&m, y, &e));
    CHECK_EQ_I64(m.nskipped, 2);
    CHECK_EQ_I64(m.nnodes, 1);
    CHECK_STREQ(m.nodes[0]->labels[0].value, "b");
    diag_fx_done(&m, &e);
}

/* Malformed input: every case gives an error with a position, quickly, and never crashes. */
static void test_malformed(void)
{
    static const char *const cases[] = {
        "apiVersion: resource.k8s.io/v1\nkind: ResourceSlice\nmetadata: {name: s}\nspec:\n  devi",
        "apiVersion: resource.k8s.io/v1\nkind: ResourceSlice\nmetadata: {name: s\n",
        "apiVersion: resource.k8s.io/v1\nkind: ResourceClaim\nmetadata: {name: c}\nspec: [1]\n",
        "apiVersion: resource.k8s.io/v1\nkind: ResourceSlice\nkind: DeviceClass\n",
        "apiVersion: resource.k8s.io/v1\nkind: ResourceSlice\nmetadata: {name: \"\\xff\\xfe\"}\n",
        "\x01\x02\x03\x00\xff binary junk \x7f\x80",
        "{\"apiVersion\": \"v1\", \"kind\": \"List\", \"items\": [1, 2,",
        "apiVersion: resource.k8s.io/v2\nkind: ResourceSlice\nmetadata: {name: s}\nspec: {}\n",
        "- just\n- a list\n",
        "apiVersion: v1\nkind: Pod\nmetadata: {name: p}\nspec: {resourceClaims: {a: b}}\n",
    };
    for (size_t i = 0; i < DRA_ARRAY_LEN(cases); i++) {
        dra_model_t m;
        dra_diag_list_t e;
        dra_model_init(&m);
        dra_diag_list_init(&e);
        size_t len = strlen(cases[i]);
        if (i == 5)
            len = 20; /* the literal is 20 bytes with an embedded NUL */
        int rc = dra_manifest_read_buffer(&m, "bad.yaml", cases[i], len, &e);
        CHECK_MSG(rc != DRA_OK, "case %zu accepted", i);
        CHECK_MSG(e.count >= 1 && e.items[0].line >= 1, "case %zu: no positioned error", i);
        diag_fx_done(&m, &e);
    }
    /* 100,000-deep nesting, a 10 MB string: errors in bounded time */
    size_t n = 100000;
    char *deep = malloc(2 * n + 64);
    size_t off = (size_t)snprintf(deep, 64, "apiVersion: v1\nkind: Pod\nspec: ");
    memset(deep + off, '[', n);
    deep[off + n] = 0;
    clock_t t0 = clock();
    dra_model_t m;
    dra_diag_list_t e;
    dra_model_init(&m);
    dra_diag_list_init(&e);
    CHECK_EQ_I64(dra_manifest_read_buffer(&m, "deep.yaml", deep, off + n, &e), DRA_ELIMIT);
    CHECK(diag_fx_has(&e, "nesting deeper than 64 levels"));
    diag_fx_done(&m, &e);
    free(deep);
    size_t big = 10u << 20;
    char *s = malloc(big + 64);
    off = (size_t)snprintf(s, 64, "apiVersion: v1\nkind: Node\nmetadata:\n  name: ");
    memset(s + off, 'n', big);
    dra_model_init(&m);
    dra_diag_list_init(&e);
    CHECK_EQ_I64(dra_manifest_read_buffer(&m, "big.yaml", s, off + big, &e), DRA_ELIMIT);
    CHECK(diag_fx_has(&e, "exceeds the limit"));
    CHECK_EQ_I64(e.items[0].line, 4);
    diag_fx_done(&m, &e);
    free(s);
    CHECK((double)(clock() - t0) / CLOCKS_PER_SEC < 10.0);
}

/* 1.37's fields: compatibilityGroups and derivedAttributes are read, validated (limits, names,
 * references, release), written back and part of the digest. */
static void test_fields_1_37(void)
{
    const char *y = "apiVersion: resource.k8s.io/v1\n"
                    "kind: ResourceSlice\n"
                    "metadata: {name: s0}\n"
                    "spec:\n"
                    "  driver: d.io\n"
                    "  pool: {name: p, generation: 1, resourceSliceCount: 2}\n"
                    "  nodeName: n\n"
                    "  sharedCounters: [{name: cs, counters: {m: {value: '4'}}}]\n"
                    "---\n"
                    "apiVersion: resource.k8s.io/v1\n"
                    "kind: ResourceSlice\n"
                    "metadata: {name: s}\n"
                    "spec:\n"
                    "  driver: d.io\n"
                    "  pool: {name: p, generation: 1, resourceSliceCount: 2}\n"
                    "  nodeName: n\n"
                    "  devices:\n"
                    "  - name: a\n"
                    "    consumesCounters:\n"
                    "    - {counterSet: cs, compatibilityGroups: [x, y], counters: {m: {value: '1'}}}\n"
                    "  - name: b\n"
                    "    consumesCounters:\n"
                    "    - {counterSet: cs, compatibilityGroups: [], counters: {m: {value: '1'}}}\n"
                    "---\n"
                    "apiVersion: resource.k8s.io/v1\n"
                    "kind: ResourceClaim\n"
                    "metadata: {name: c}\n"
                    "spec:\n"
                    "  devices:\n"
                    "    requests:\n"
                    "    - name: r\n"
                    "      exactly:\n"
                    "        deviceClassName: g\n"
                    "        derivedAttributes:\n"
                    "        - {name: d.io/socket, expression: 'device.attributes[\"d.io\"].numa / 2'}\n"
                    "    constraints:\n"
                    "    - {matchAttribute: d.io/socket}\n";
    dra_model_t m;
    dra_diag_list_t e;
    CHECK_OK(diag_fx_load(&m, y, &e));
    diag_fx_dump(&e);
    CHECK_EQ_U64(m.slices[1]->devices[0].consumes[0].ngroups, 2);
    CHECK_STREQ(m.slices[1]->devices[0].consumes[0].groups[1], "y");
    CHECK_EQ_U64(m.slices[1]->devices[1].consumes[0].ngroups, 0);
    const dra_exact_request_t *x = m.claims[0]->requests[0].exactly;
    CHECK_EQ_U64(x->nderived, 1);
    CHECK_STREQ(x->derived[0].name, "d.io/socket");
    CHECK(x->derived[0].qname != 0);
    /* release rules: an error for 1.36, a warning with no release, nothing for 1.37 */
    dra_diag_list_t e2, w;
    dra_diag_list_init(&e2);
    dra_diag_list_init(&w);
    dra_validate_opts_t o = {0, 136};
    CHECK(dra_manifest_validate_ex(&m, &o, &e2, &w) == DRA_EVALIDATE);
    CHECK(diag_fx_has(&e2, "compatibilityGroups: not a field in Kubernetes 1.36"));
    CHECK(diag_fx_has(&e2, "derivedAttributes: not a field in Kubernetes 1.36"));
    dra_diag_list_fini(&e2);
    dra_diag_list_init(&e2);
    o.release = 0;
    CHECK_OK(dra_manifest_validate_ex(&m, &o, &e2, &w));
    CHECK(diag_fx_has(&w, "compatibilityGroups: new in Kubernetes 1.37"));
    dra_diag_list_fini(&w);
    dra_diag_list_init(&w);
    o.release = 137;
    CHECK_OK(dra_manifest_validate_ex(&m, &o, &e2, &w));
    CHECK_EQ_U64(w.count, 0);
    dra_diag_list_fini(&e2);
    dra_diag_list_fini(&w);
    /* round trip: groups and derived attributes survive the writer; both are in the digest */
    dra_sbuf_t out = {0};
    CHECK_OK(dra_manifest_write_yaml_buf(&m, &out));
    dra_model_t m2;
    dra_diag_list_t e3;
    CHECK_OK(diag_fx_load(&m2, out.p, &e3));
    CHECK_EQ_U64(dra_model_digest(&m), dra_model_digest(&m2));
    m2.slices[1]->devices[0].consumes[0].ngroups = 1;
    CHECK(dra_model_digest(&m) != dra_model_digest(&m2));
    m2.slices[1]->devices[0].consumes[0].ngroups = 2;
    m2.claims[0]->requests[0].exactly->derived[0].expr = "1";
    CHECK(dra_model_digest(&m) != dra_model_digest(&m2));
    diag_fx_done(&m2, &e3);
    dra_sbuf_fini(&out);
    diag_fx_done(&m, &e);
    /* limits: three groups, a duplicate, a name that is no DNS label; a derived attribute that
     * is not fully qualified, twice, and one no constraint uses */
    const char *bad = "apiVersion: resource.k8s.io/v1\n"
                      "kind: ResourceSlice\n"
                      "metadata: {name: s}\n"
                      "spec:\n"
                      "  driver: d.io\n"
                      "  pool: {name: p, generation: 1, resourceSliceCount: 1}\n"
                      "  nodeName: n\n"
                      "  sharedCounters: [{name: cs, counters: {m: {value: '4'}}}]\n"
                      "  devices:\n"
                      "  - name: a\n"
                      "    consumesCounters:\n"
                      "    - {counterSet: cs, compatibilityGroups: [x, x, Y_], counters: {m: {value: '1'}}}\n"
                      "---\n"
                      "apiVersion: resource.k8s.io/v1\n"
                      "kind: ResourceClaim\n"
                      "metadata: {name: c}\n"
                      "spec:\n"
                      "  devices:\n"
                      "    requests:\n"
                      "    - name: r\n"
                      "      exactly:\n"
                      "        deviceClassName: g\n"
                      "        derivedAttributes:\n"
                      "        - {name: socket, expression: '1'}\n"
                      "        - {name: d.io/u, expression: '1'}\n"
                      "        - {name: d.io/u, expression: '2'}\n";
    CHECK(diag_fx_load(&m, bad, &e) == DRA_EVALIDATE);
    CHECK(diag_fx_has(&e, "compatibilityGroups: at most 2, has 3"));
    CHECK(diag_fx_has(&e, "compatibilityGroups[1]: duplicate group \"x\""));
    CHECK(diag_fx_has(&e, "compatibilityGroups[2]: \"Y_\" is not a DNS label"));
    CHECK(diag_fx_has(&e, "name: \"socket\" is not a fully qualified name"));
    CHECK(diag_fx_has(&e, "name: duplicate derived attribute \"d.io/u\""));
    dra_diag_list_init(&w);
    dra_diag_list_t e4;
    dra_diag_list_init(&e4);
    dra_validate_opts_t o2 = {0, 0};
    CHECK(dra_manifest_validate_ex(&m, &o2, &e4, &w) == DRA_EVALIDATE);
    CHECK(diag_fx_has(&w, "\"d.io/u\" is not used by a constraint that applies to this request"));
    dra_diag_list_fini(&e4);
    dra_diag_list_fini(&w);
    diag_fx_done(&m, &e);
}

int main(void)
{
    RUN(test_old_versions_map);
    RUN(test_errors_all_reported_with_positions);
    RUN(test_claim_rules);
    RUN(test_limits_and_release);
    RUN(test_names);
    RUN(test_roundtrip_and_params);
    RUN(test_pods_and_nodes_roundtrip);
    RUN(test_resource_rules);
    RUN(test_roundtrip_unprintable);
    RUN(test_skipped_and_lists);
    RUN(test_malformed);
    RUN(test_fields_1_37);
    return check_summary();
}
