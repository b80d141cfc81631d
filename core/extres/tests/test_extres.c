/*
 * test_extres.c - the extended-resource claim of KEP-5004 and the pod filters, computed by hand
 * from upstream's code (extendeddynamicresources.go createRequestsAndMappings, the
 * ExtendedResourceCache, noderesources fitsRequest, PodRequests):
 *  - resource-name classes, rounding, RFC 3339 times;
 *  - the name map: implicit and explicit names, the newer-class / smaller-name arbitration, the
 *    1.34 either-or mapping, the cache defect of releases up to 1.37 (upstream_bugs), the gate;
 *  - PodRequests with init containers and sidecars (the example of issue #134880);
 *  - the claim's requests, counts, names (container and resource index, byte-order sort) and
 *    mappings for regular, init and sidecar containers, 1.34's per-container requests;
 *  - device-plugin nodes, unfit nodes, fractional quantities, node usage, the node filters.
 */
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "extres/extres.h"

static dra_model_t M;

static dra_resource_qty_t *res(const char *const *kv, uint32_t n)
{
    dra_resource_qty_t *r = dra_model_array(&M, n, sizeof *r);
    for (uint32_t i = 0; i < n; i++) {
        r[i].name = dra_model_str(&M, kv[2 * i]);
        CHECK_OK(dra_quantity_parse(kv[2 * i + 1], strlen(kv[2 * i + 1]), &r[i].value, NULL));
    }
    return r;
}

/* A container with limits given as "name", "qty" pairs (sorted by the caller), requests
 * defaulted from them as the reader does. */
static void container(dra_container_t *c, const char *name, dra_container_kind_t kind,
                      const char *const *kv, uint32_t n)
{
    memset(c, 0, sizeof *c);
    c->name = name;
    c->kind = kind;
    c->limits = res(kv, n);
    c->nlimits = n;
    c->requests = res(kv, n);
    c->nrequests = n;
    for (uint32_t i = 0; i < n; i++)
        c->requests[i].defaulted = true;
}

static dra_pod_t *pod_of(dra_container_t *cs, uint32_t n, uint32_t ninit)
{
    dra_pod_t *p = dra_model_add_pod(&M);
    p->kind = DRA_POD_POD;
    p->name = "p";
    p->namespace_ = "ns";
    p->replicas = 1;
    p->containers = cs;
    p->ncontainers = n;
    p->ninit = ninit;
    return p;
}

static dra_device_class_t *add_class(const char *name, const char *ern, const char *created)
{
    dra_device_class_t *c = dra_model_add_class(&M);
    c->name = name;
    c->extended_resource_name = ern;
    c->created = created;
    return c;
}

static void feats(dra_alloc_features_t *f, dra_release_t r, bool gate)
{
    dra_alloc_features_init(f, r);
    CHECK_OK(dra_alloc_features_set_gate(f, "DRAExtendedResource", gate, NULL));
}

static const char *cls_of(const dra_extres_map_t *m, const char *name)
{
    const dra_device_class_t *c = dra_extres_map_find(m, name);
    return c ? c->name : "-";
}

/* The pod on node n under release r (gate as given, upstream bugs as given): its requests, the
 * name map of M's classes and the fit, into *fit (arena M). */
static void fit_once(const dra_pod_t *p, dra_release_t r, bool gate, bool bugs, bool own,
                     const dra_node_t *n, dra_extres_fit_t *fit)
{
    dra_alloc_features_t f;
    feats(&f, r, gate);
    f.upstream_bugs = bugs;
    dra_extres_map_t m;
    dra_pod_req_t rq;
    memset(fit, 0, sizeof *fit);
    CHECK_OK(dra_extres_map_build(&M, &f, &m));
    CHECK_OK(dra_extres_pod(p, &M.arena, &rq));
    CHECK_OK(dra_extres_fit(&m, &f, p, "p", &rq, own, n, NULL, &M.arena, fit));
    dra_extres_map_free(&m);
}

static void test_names_and_numbers(void)
{
    CHECK(dra_resource_is_extended("nvidia.com/gpu"));
    CHECK(dra_resource_is_extended("nvidia.com/mig-1g.12gb"));
    CHECK(!dra_resource_is_extended("cpu"));
    CHECK(!dra_resource_is_extended("deviceclass.resource.kubernetes.io/gpu.example.com"));
    CHECK(dra_resource_is_native("deviceclass.resource.kubernetes.io/gpu.example.com"));
    CHECK(dra_resource_is_dra_extended("deviceclass.resource.kubernetes.io/gpu.example.com"));
    CHECK(!dra_resource_is_extended("requests.nvidia.com/gpu"));
    CHECK(!dra_resource_is_extended("Nvidia.com/gpu")); /* the prefix is a DNS subdomain */
    CHECK(!dra_resource_is_extended("nvidia.com/gpu/x"));
    CHECK(!dra_resource_is_extended("nvidia.com/-gpu"));
    CHECK(!dra_resource_is_dra_extended("hugepages-2Mi"));
    CHECK(dra_resource_is_qualified("cpu") && dra_resource_is_qualified("a.b/c_d.e"));
    CHECK(!dra_resource_is_qualified("a.b/") && !dra_resource_is_qualified("/x"));
    dra_quantity_t q;
    CHECK_OK(dra_quantity_parse("1500m", 5, &q, NULL));
    CHECK_EQ_I64(dra_extres_ceil(&q, 0), 2);
    CHECK_EQ_I64(dra_extres_ceil(&q, -3), 1500);
    CHECK_OK(dra_quantity_parse("1n", 2, &q, NULL));
    CHECK_EQ_I64(dra_extres_ceil(&q, 0), 1);
    CHECK_EQ_I64(dra_extres_ceil(&q, -3), 1);
    CHECK_OK(dra_quantity_parse("100E", 4, &q, NULL));
    CHECK_EQ_I64(dra_extres_ceil(&q, 0), INT64_MAX);
    CHECK_OK(dra_quantity_parse("2Ki", 3, &q, NULL));
    CHECK_EQ_I64(dra_extres_ceil(&q, 0), 2048);
    int64_t t1, t2, t3;
    CHECK_OK(dra_extres_time_parse("2026-01-02T03:04:05Z", &t1));
    CHECK_OK(dra_extres_time_parse("2026-01-02T04:04:05+01:00", &t2));
    CHECK_OK(dra_extres_time_parse("2026-01-02T03:04:05.5Z", &t3));
    CHECK_EQ_I64(t1, t2);
    CHECK_EQ_I64(t3 - t1, 500000000);
    CHECK_EQ_I64(t1, 1767323045LL * 1000000000LL);
    CHECK(dra_extres_time_parse("2026-02-30T00:00:00Z", &t1) == DRA_EINVAL);
    CHECK(dra_extres_time_parse("2026-01-02 03:04:05Z", &t1) == DRA_EINVAL);
    CHECK(dra_extres_time_parse("2026-01-02T03:04:05", &t1) == DRA_EINVAL);
}

static void test_map(void)
{
    dra_model_init(&M);
    add_class("b-new", "example.com/gpu", "2026-05-01T00:00:00Z");
    add_class("a-old", "example.com/gpu", "2026-04-01T00:00:00Z");
    add_class("c-tie", "example.com/nic", NULL);
    add_class("d-tie", "example.com/nic", NULL);
    add_class("plain", NULL, NULL);
    dra_alloc_features_t f;
    dra_extres_map_t m;
    feats(&f, DRA_RELEASE_1_36, true);
    CHECK_OK(dra_extres_map_build(&M, &f, &m));
    CHECK_STREQ(cls_of(&m, "example.com/gpu"), "b-new"); /* the newer class */
    CHECK_STREQ(cls_of(&m, "example.com/nic"), "c-tie"); /* same time: smaller name */
    CHECK_STREQ(cls_of(&m, "deviceclass.resource.kubernetes.io/a-old"), "a-old");
    CHECK_STREQ(cls_of(&m, "deviceclass.resource.kubernetes.io/d-tie"), "d-tie");
    CHECK_STREQ(cls_of(&m, "deviceclass.resource.kubernetes.io/plain"), "plain");
    CHECK_STREQ(cls_of(&m, "example.com/other"), "-");
    CHECK_EQ_U64(m.n, 7);
    dra_extres_map_free(&m);
    /* the cache defect (name order a-old, b-new, c-tie, d-tie): a-old holds the name first and
     * loses it to b-new (kept its implicit name); d-tie loses to c-tie when it comes and so
     * never gets its implicit name */
    f.upstream_bugs = true;
    CHECK_OK(dra_extres_map_build(&M, &f, &m));
    CHECK_STREQ(cls_of(&m, "example.com/gpu"), "b-new");
    CHECK_STREQ(cls_of(&m, "deviceclass.resource.kubernetes.io/a-old"), "a-old");
    CHECK_STREQ(cls_of(&m, "deviceclass.resource.kubernetes.io/d-tie"), "-");
    CHECK_STREQ(cls_of(&m, "deviceclass.resource.kubernetes.io/c-tie"), "c-tie");
    dra_extres_map_free(&m);
    /* 1.37 still has the defect; 1.38-pre (master after PR #141110) has the fix, bugs or not */
    feats(&f, DRA_RELEASE_1_37, true);
    f.upstream_bugs = true;
    CHECK_OK(dra_extres_map_build(&M, &f, &m));
    CHECK_STREQ(cls_of(&m, "deviceclass.resource.kubernetes.io/d-tie"), "-");
    dra_extres_map_free(&m);
    feats(&f, DRA_RELEASE_1_38_PRE, true);
    f.upstream_bugs = true;
    CHECK_OK(dra_extres_map_build(&M, &f, &m));
    CHECK_STREQ(cls_of(&m, "deviceclass.resource.kubernetes.io/d-tie"), "d-tie");
    CHECK_STREQ(cls_of(&m, "example.com/nic"), "c-tie");
    dra_extres_map_free(&m);
    /* 1.34 (gate on): an explicit name replaces the implicit one */
    feats(&f, DRA_RELEASE_1_34, true);
    CHECK_OK(dra_extres_map_build(&M, &f, &m));
    CHECK_STREQ(cls_of(&m, "example.com/gpu"), "b-new");
    CHECK_STREQ(cls_of(&m, "deviceclass.resource.kubernetes.io/b-new"), "-");
    CHECK_STREQ(cls_of(&m, "deviceclass.resource.kubernetes.io/plain"), "plain");
    CHECK_EQ_U64(m.n, 3);
    dra_extres_map_free(&m);
    /* gate off (the 1.35 default): nothing is mapped */
    feats(&f, DRA_RELEASE_1_35, false);
    CHECK_OK(dra_extres_map_build(&M, &f, &m));
    CHECK(!m.enabled && m.n == 0);
    CHECK_STREQ(cls_of(&m, "deviceclass.resource.kubernetes.io/plain"), "-");
    dra_extres_map_free(&m);
    dra_model_fini(&M);
}

/* Issue #134880's pod: ic1 (1 GPU), a sidecar (1), ic2 (2), c1 (1): PodRequests is 3. */
static dra_pod_t *sidecar_pod(void)
{
    static const char *const one[] = {"example.com/gpu", "1"};
    static const char *const two[] = {"example.com/gpu", "2"};
    dra_container_t *cs = dra_model_array(&M, 4, sizeof *cs);
    container(&cs[0], "ic1", DRA_CONTAINER_INIT, one, 1);
    container(&cs[1], "sidecar", DRA_CONTAINER_SIDECAR, one, 1);
    container(&cs[2], "ic2", DRA_CONTAINER_INIT, two, 1);
    container(&cs[3], "c1", DRA_CONTAINER_REGULAR, one, 1);
    return pod_of(cs, 4, 3);
}

static void check_req(const dra_claim_t *c, uint32_t i, const char *name, const char *cls,
                      int64_t count)
{
    CHECK(i < c->nrequests);
    if (i >= c->nrequests)
        return;
    CHECK_STREQ(c->requests[i].name, name);
    CHECK(c->requests[i].exactly != NULL);
    CHECK_STREQ(c->requests[i].exactly->class_name, cls);
    CHECK_EQ_I64(c->requests[i].exactly->count, count);
    CHECK(c->requests[i].exactly->mode == DRA_MODE_EXACT_COUNT);
}

static void check_map(const dra_extres_fit_t *fit, uint32_t i, const char *container,
                      const char *resource, const char *request)
{
    CHECK(i < fit->nmappings);
    if (i >= fit->nmappings)
        return;
    CHECK_STREQ(fit->mappings[i].container, container);
    CHECK_STREQ(fit->mappings[i].resource, resource);
    CHECK_STREQ(fit->mappings[i].request, request);
}

static void test_sidecars_and_init(void)
{
    dra_model_init(&M);
    add_class("gpu-class", "example.com/gpu", NULL);
    dra_pod_t *p = sidecar_pod();
    dra_alloc_features_t f;
    feats(&f, DRA_RELEASE_1_36, true);
    dra_extres_map_t m;
    CHECK_OK(dra_extres_map_build(&M, &f, &m));
    dra_pod_req_t rq;
    CHECK_OK(dra_extres_pod(p, &M.arena, &rq));
    CHECK_EQ_U64(rq.nscalar, 1);
    CHECK_EQ_I64(rq.scalar[0].value, 3);
    CHECK(dra_extres_pod_mapped(&m, &rq));
    dra_node_t n = {.name = "n"};
    dra_extres_fit_t fit;
    CHECK_OK(dra_extres_fit(&m, &f, p, "p", &rq, false, &n, NULL, &M.arena, &fit));
    CHECK(fit.fits && fit.claim != NULL);
    /* long-lived: the sidecar (1) and c1 (1); ic1 is covered by the sidecar's request; ic2
     * uses c1's and asks for 1 more */
    CHECK_EQ_U64(fit.claim->nrequests, 3);
    check_req(fit.claim, 0, "container-1-request-0", "gpu-class", 1);
    check_req(fit.claim, 1, "container-2-request-0", "gpu-class", 1);
    check_req(fit.claim, 2, "container-3-request-0", "gpu-class", 1);
    CHECK_EQ_U64(fit.nmappings, 5);
    check_map(&fit, 0, "sidecar", "example.com/gpu", "container-1-request-0");
    check_map(&fit, 1, "c1", "example.com/gpu", "container-3-request-0");
    check_map(&fit, 2, "ic1", "example.com/gpu", "container-1-request-0");
    check_map(&fit, 3, "ic2", "example.com/gpu", "container-3-request-0");
    check_map(&fit, 4, "ic2", "example.com/gpu", "container-2-request-0");
    CHECK_STREQ(fit.claim->namespace_, "ns");
    CHECK(fit.claim->extended);
    CHECK_STREQ(fit.claim->owner_pod, "p");
    CHECK_STREQ(fit.claim->generate_name, "p-extended-resources-");
    CHECK_EQ_U64(strlen(fit.claim->name), strlen("p-extended-resources-") + 5);
    /* 1.34: one request per container with its whole quantity, no reuse */
    dra_extres_map_free(&m);
    fit_once(p, DRA_RELEASE_1_34, true, false, false, &n, &fit);
    CHECK_EQ_U64(fit.claim->nrequests, 4);
    check_req(fit.claim, 0, "container-0-request-0", "gpu-class", 1);
    check_req(fit.claim, 1, "container-1-request-0", "gpu-class", 1);
    check_req(fit.claim, 2, "container-2-request-0", "gpu-class", 2);
    check_req(fit.claim, 3, "container-3-request-0", "gpu-class", 1);
    CHECK_EQ_U64(fit.nmappings, 4);
    check_map(&fit, 2, "ic2", "example.com/gpu", "container-2-request-0");
    dra_model_fini(&M);
}

/* Several init containers: only the largest request is kept; the others' mappings move to it. */
static void test_largest_init_request(void)
{
    dra_model_init(&M);
    add_class("gpu-class", "example.com/gpu", NULL);
    static const char *const one[] = {"example.com/gpu", "1"};
    static const char *const three[] = {"example.com/gpu", "3"};
    static const char *const three2[] = {"example.com/gpu", "3"};
    dra_container_t *cs = dra_model_array(&M, 4, sizeof *cs);
    container(&cs[0], "a", DRA_CONTAINER_INIT, one, 1);
    container(&cs[1], "b", DRA_CONTAINER_INIT, three, 1);
    container(&cs[2], "c", DRA_CONTAINER_INIT, three2, 1);
    container(&cs[3], "main", DRA_CONTAINER_REGULAR, one, 1);
    dra_pod_t *p = pod_of(cs, 4, 3);
    dra_pod_req_t rq;
    CHECK_OK(dra_extres_pod(p, &M.arena, &rq));
    CHECK_EQ_I64(rq.scalar[0].value, 3); /* max(1, 3, 3) vs sum of regular 1 */
    dra_node_t n = {.name = "n"};
    dra_extres_fit_t fit;
    fit_once(p, DRA_RELEASE_1_36, true, false, false, &n, &fit);
    /* each init container uses main's 1 first: a needs nothing, b and c ask for 2 each; b's
     * (the first of the equal ones) is kept, c's mapping is renamed to it */
    CHECK_EQ_U64(fit.claim->nrequests, 2);
    check_req(fit.claim, 0, "container-1-request-0", "gpu-class", 2);
    check_req(fit.claim, 1, "container-3-request-0", "gpu-class", 1);
    CHECK_EQ_U64(fit.nmappings, 6);
    check_map(&fit, 0, "main", "example.com/gpu", "container-3-request-0");
    check_map(&fit, 1, "a", "example.com/gpu", "container-3-request-0");
    check_map(&fit, 2, "b", "example.com/gpu", "container-3-request-0");
    check_map(&fit, 3, "b", "example.com/gpu", "container-1-request-0");
    check_map(&fit, 4, "c", "example.com/gpu", "container-3-request-0");
    check_map(&fit, 5, "c", "example.com/gpu", "container-1-request-0");
    dra_model_fini(&M);
}

/* Request names index the container (init + regular) and the resource among the container's
 * sorted requests (cpu and memory included); the claim sorts names in byte order. */
static void test_names_and_order(void)
{
    dra_model_init(&M);
    add_class("gpu.example.com", NULL, NULL);
    add_class("nic-class", "example.com/nic", NULL);
    static const char *const kv[] = {"cpu",
                                     "1",
                                     "deviceclass.resource.kubernetes.io/gpu.example.com",
                                     "2",
                                     "example.com/nic",
                                     "1",
                                     "memory",
                                     "1Gi"};
    static const char *const none[] = {"cpu", "1"};
    dra_container_t *cs = dra_model_array(&M, 11, sizeof *cs);
    char *names = dra_model_array(&M, 11, 8);
    for (uint32_t i = 0; i < 11; i++) {
        snprintf(names + 8 * i, 8, "c%u", i);
        if (i == 2 || i == 10)
            container(&cs[i], names + 8 * i, DRA_CONTAINER_REGULAR, kv, 4);
        else
            container(&cs[i], names + 8 * i, DRA_CONTAINER_REGULAR, none, 1);
    }
    dra_pod_t *p = pod_of(cs, 11, 0);
    dra_pod_req_t rq;
    CHECK_OK(dra_extres_pod(p, &M.arena, &rq));
    CHECK_EQ_I64(rq.cpu_milli, 11000);
    CHECK_EQ_I64(rq.memory, 2LL << 30);
    dra_node_t n = {.name = "n"};
    dra_extres_fit_t fit;
    fit_once(p, DRA_RELEASE_1_36, true, false, false, &n, &fit);
    CHECK_EQ_U64(fit.claim->nrequests, 4);
    check_req(fit.claim, 0, "container-10-request-1", "gpu.example.com", 2);
    check_req(fit.claim, 1, "container-10-request-2", "nic-class", 1);
    check_req(fit.claim, 2, "container-2-request-1", "gpu.example.com", 2);
    check_req(fit.claim, 3, "container-2-request-2", "nic-class", 1);
    /* mappings per resource in name order, containers in index order */
    CHECK_EQ_U64(fit.nmappings, 4);
    check_map(&fit, 0, "c2", "deviceclass.resource.kubernetes.io/gpu.example.com",
              "container-2-request-1");
    check_map(&fit, 1, "c10", "deviceclass.resource.kubernetes.io/gpu.example.com",
              "container-10-request-1");
    check_map(&fit, 2, "c2", "example.com/nic", "container-2-request-2");
    dra_model_fini(&M);
}

static void test_nodes(void)
{
    dra_model_init(&M);
    add_class("gpu-class", "example.com/gpu", NULL);
    static const char *const kv[] = {"example.com/gpu", "2", "example.com/fpga", "1"};
    static const char *const kv2[] = {"example.com/fpga", "1", "example.com/gpu", "2"};
    dra_container_t *cs = dra_model_array(&M, 1, sizeof *cs);
    container(&cs[0], "main", DRA_CONTAINER_REGULAR, kv2, 2);
    (void)kv;
    dra_pod_t *p = pod_of(cs, 1, 0);
    dra_alloc_features_t f;
    feats(&f, DRA_RELEASE_1_36, true);
    dra_extres_map_t m;
    CHECK_OK(dra_extres_map_build(&M, &f, &m));
    dra_pod_req_t rq;
    CHECK_OK(dra_extres_pod(p, &M.arena, &rq));
    dra_extres_fit_t fit;
    /* no fpga anywhere (not mapped, not offered): the node does not fit */
    dra_node_t n0 = {.name = "n0"};
    CHECK_OK(dra_extres_fit(&m, &f, p, "p", &rq, false, &n0, NULL, &M.arena, &fit));
    CHECK(!fit.fits && !fit.claim);
    CHECK_STREQ(fit.reason, "Insufficient example.com/fpga");
    /* a device plugin offers 1 fpga: fits, the gpu goes through DRA */
    static const char *const a1[] = {"example.com/fpga", "1", "pods", "2"};
    dra_node_t n1 = {.name = "n1", .allocatable = res(a1, 2), .nallocatable = 2};
    CHECK_OK(dra_extres_fit(&m, &f, p, "p", &rq, false, &n1, NULL, &M.arena, &fit));
    CHECK(fit.fits && fit.claim && fit.ndra == 1);
    CHECK_EQ_U64(fit.claim->nrequests, 1);
    check_req(fit.claim, 0, "container-0-request-1", "gpu-class", 2);
    /* with one pod of these on it the fpga is used up, and pods allow two */
    dra_node_usage_t u = {0};
    CHECK_OK(dra_node_usage_add(&u, &rq));
    CHECK_OK(dra_extres_fit(&m, &f, p, "p", &rq, false, &n1, &u, &M.arena, &fit));
    CHECK(!fit.fits);
    CHECK_STREQ(fit.reason, "Insufficient example.com/fpga");
    CHECK_OK(dra_node_usage_add(&u, &rq));
    CHECK_OK(dra_extres_fit(&m, &f, p, "p", &rq, false, &n1, &u, &M.arena, &fit));
    CHECK_STREQ(fit.reason, "Insufficient pods, Insufficient example.com/fpga");
    dra_node_usage_fini(&u);
    /* the device plugin also offers the gpu: nothing goes through DRA, no claim */
    static const char *const a2[] = {"example.com/fpga", "1", "example.com/gpu", "4"};
    dra_node_t n2 = {.name = "n2", .allocatable = res(a2, 2), .nallocatable = 2};
    CHECK_OK(dra_extres_fit(&m, &f, p, "p", &rq, false, &n2, NULL, &M.arena, &fit));
    CHECK(fit.fits && !fit.claim && fit.ndra == 0);
    /* ... unless the pod has claims of its own: a claim without requests (PreBind fails) */
    CHECK_OK(dra_extres_fit(&m, &f, p, "p", &rq, true, &n2, NULL, &M.arena, &fit));
    CHECK(fit.fits && fit.claim && fit.claim->nrequests == 0 && fit.nmappings == 0);
    /* 1.34 with upstream bugs: the device-plugin gpu is requested through DRA too, as soon as
     * a claim is built at all */
    dra_extres_map_free(&m);
    feats(&f, DRA_RELEASE_1_34, true);
    f.upstream_bugs = true;
    CHECK_OK(dra_extres_map_build(&M, &f, &m));
    CHECK_OK(dra_extres_fit(&m, &f, p, "p", &rq, true, &n2, NULL, &M.arena, &fit));
    CHECK(fit.fits && fit.claim && fit.claim->nrequests == 1);
    f.upstream_bugs = false;
    CHECK_OK(dra_extres_fit(&m, &f, p, "p", &rq, true, &n2, NULL, &M.arena, &fit));
    CHECK(fit.fits && fit.claim && fit.claim->nrequests == 0);
    /* gate off: the gpu must come from a device plugin */
    dra_extres_map_free(&m);
    feats(&f, DRA_RELEASE_1_35, false);
    CHECK_OK(dra_extres_map_build(&M, &f, &m));
    CHECK_OK(dra_extres_fit(&m, &f, p, "p", &rq, false, &n1, NULL, &M.arena, &fit));
    CHECK(!fit.fits);
    CHECK_STREQ(fit.reason, "Insufficient example.com/gpu");
    CHECK_OK(dra_extres_fit(&m, &f, p, "p", &rq, false, &n2, NULL, &M.arena, &fit));
    CHECK(fit.fits && !fit.claim);
    dra_extres_map_free(&m);
    dra_model_fini(&M);
}

/* cpu, memory: checked only where the node declares them; a fraction of an implicit name
 * (allowed by validation) makes no request. */
static void test_cpu_and_fractions(void)
{
    dra_model_init(&M);
    add_class("gpu.example.com", NULL, NULL);
    static const char *const kv[] = {"cpu", "1500m",
                                     "deviceclass.resource.kubernetes.io/gpu.example.com", "500m"};
    dra_container_t *cs = dra_model_array(&M, 1, sizeof *cs);
    container(&cs[0], "main", DRA_CONTAINER_REGULAR, kv, 2);
    dra_pod_t *p = pod_of(cs, 1, 0);
    dra_alloc_features_t f;
    feats(&f, DRA_RELEASE_1_36, true);
    dra_extres_map_t m;
    CHECK_OK(dra_extres_map_build(&M, &f, &m));
    dra_pod_req_t rq;
    CHECK_OK(dra_extres_pod(p, &M.arena, &rq));
    CHECK_EQ_I64(rq.cpu_milli, 1500);
    CHECK_EQ_I64(rq.scalar[0].value, 1); /* 500m rounds up */
    static const char *const oh[] = {"cpu", "250m", "memory", "64Mi"};
    p->overhead = res(oh, 2);
    p->noverhead = 2;
    dra_pod_req_t rq2;
    CHECK_OK(dra_extres_pod(p, &M.arena, &rq2)); /* PodRequests adds the overhead */
    CHECK_EQ_I64(rq2.cpu_milli, 1750);
    CHECK_EQ_I64(rq2.memory, 64LL << 20);
    p->noverhead = 0;
    dra_node_t n = {.name = "n", .alloc_cpu = "1"};
    dra_extres_fit_t fit;
    CHECK_OK(dra_extres_fit(&m, &f, p, "p", &rq, false, &n, NULL, &M.arena, &fit));
    CHECK(!fit.fits);
    CHECK_STREQ(fit.reason, "Insufficient cpu");
    n.alloc_cpu = NULL; /* undeclared: unlimited */
    CHECK_OK(dra_extres_fit(&m, &f, p, "p", &rq, false, &n, NULL, &M.arena, &fit));
    CHECK(fit.fits && fit.claim && fit.ndra == 1 && fit.claim->nrequests == 0);
    dra_extres_map_free(&m);
    dra_model_fini(&M);
}

static void test_node_filters(void)
{
    dra_model_init(&M);
    dra_label_t labels[1] = {{"zone", "a"}};
    dra_taint_t taints[1] = {{.key = "gpu", .value = "true", .effect = DRA_EFFECT_NO_SCHEDULE}};
    dra_node_t n = {.name = "n", .labels = labels, .nlabels = 1};
    dra_pod_t *p = pod_of(NULL, 0, 0);
    char why[200];
    CHECK(dra_extres_node_filters(p, &n, why, sizeof why));
    dra_label_t want[1] = {{"zone", "b"}};
    p->node_labels = want;
    p->nnode_labels = 1;
    CHECK(!dra_extres_node_filters(p, &n, why, sizeof why));
    CHECK_STREQ(why, "node(s) didn't match Pod's node affinity/selector");
    want[0].value = "a";
    CHECK(dra_extres_node_filters(p, &n, why, sizeof why));
    dra_ns_req_t rq = {
        .key = "zone", .op = DRA_NS_NOT_IN, .values = (const char *[]){"a"}, .nvalues = 1};
    dra_ns_term_t term = {.exprs = &rq, .nexprs = 1};
    dra_node_selector_t aff = {.terms = &term, .nterms = 1};
    p->node_affinity = &aff;
    CHECK(!dra_extres_node_filters(p, &n, why, sizeof why));
    p->node_affinity = NULL;
    n.taints = taints;
    n.ntaints = 1;
    CHECK(!dra_extres_node_filters(p, &n, why, sizeof why));
    CHECK_STREQ(why, "node(s) had untolerated taint {gpu: true}");
    dra_toleration_t tol = {.key = "gpu", .op = DRA_TOL_EXISTS, .effect = DRA_EFFECT_EMPTY};
    p->tolerations = &tol;
    p->ntolerations = 1;
    CHECK(dra_extres_node_filters(p, &n, why, sizeof why));
    taints[0].effect = DRA_EFFECT_NONE; /* PreferNoSchedule: not a filter */
    p->ntolerations = 0;
    CHECK(dra_extres_node_filters(p, &n, why, sizeof why));
    n.unschedulable = true;
    CHECK(!dra_extres_node_filters(p, &n, why, sizeof why));
    CHECK_STREQ(why, "node(s) were unschedulable");
    dra_toleration_t all = {.op = DRA_TOL_EXISTS, .effect = DRA_EFFECT_EMPTY};
    p->tolerations = &all;
    p->ntolerations = 1;
    CHECK(dra_extres_node_filters(p, &n, why, sizeof why));
    dra_model_fini(&M);
}

static void test_claim_name(void)
{
    char a[128], b[128], c[128];
    dra_extres_claim_name("ns", "pod0", a, sizeof a);
    dra_extres_claim_name("ns", "pod0", b, sizeof b);
    dra_extres_claim_name("other", "pod0", c, sizeof c);
    CHECK_STREQ(a, b);
    CHECK(strcmp(a, c) != 0);
    CHECK(strncmp(a, "pod0-extended-resources-", 24) == 0 && strlen(a) == 29);
    for (size_t i = 24; i < 29; i++)
        CHECK(strchr("bcdfghjklmnpqrstvwxz2456789", a[i]) != NULL);
    /* the generated prefix is cut to 58 characters, the name stays a DNS label */
    dra_extres_claim_name("ns", "a-very-long-pod-name-that-goes-on-and-on-and-on-x", a, sizeof a);
    CHECK_EQ_U64(strlen(a), 63);
}

int main(void)
{
    RUN(test_names_and_numbers);
    RUN(test_map);
    RUN(test_sidecars_and_init);
    RUN(test_largest_init_request);
    RUN(test_names_and_order);
    RUN(test_nodes);
    RUN(test_cpu_and_fractions);
    RUN(test_node_filters);
    RUN(test_claim_name);
    return check_summary();
}
