/*
 * extres.h - a pod's extended resources and node resources as the kube-scheduler handles them:
 * which extended resource names DeviceClasses back (KEP-5004, gate DRAExtendedResource), the
 * special ResourceClaim the DynamicResources plugin builds for such a pod on a node, and the
 * NodeResourcesFit check of the pod's requests against the node's status.allocatable.
 *
 * Sources (kubernetes/kubernetes; the release each follows is named where they differ):
 *  - pkg/scheduler/framework/plugins/dynamicresources/extendeddynamicresources.go:
 *    preFilterExtendedResources, filterExtendedResources, createRequestsAndMappings and
 *    createResourceRequestAndMappings (from 1.35: PR #134882, November 2025; the same in the
 *    newest version read, kubernetes/kubernetes 16913111deb1), and its tests
 *    (extendeddynamicresources_test.go at 08832ffe5423); createDeviceRequests and
 *    createRequestMappings (1.34, alpha, PR #130653);
 *  - staging/src/k8s.io/dynamic-resource-allocation/deviceclass/extendedresourcecache
 *    (ExtendedResourceCache: the published v0.35.0 and v0.36.0 tags, PR #135037; 1.37 the same,
 *    PR #141110 was held back from it; 1.38-pre: master after PR #141110, kubernetes/kubernetes
 *    0e2e62fb0174 - taken to be in v1.38.0-alpha.2, not checked against that tag);
 *    pkg/scheduler/framework/plugins/dynamicresources/extended/util.go DeviceClassMapping (1.34,
 *    the package of v1.34.0-rc.1);
 *  - pkg/scheduler/framework/plugins/noderesources/fit.go fitsRequest and
 *    ShouldDelegateResourceToDRA; component-helpers/resource PodRequests (init containers,
 *    sidecars); pkg/apis/core/v1/helper IsExtendedResourceName, IsNativeResource;
 *    pkg/scheduler/util IsDRAExtendedResourceName.
 *
 * The name map (dra_extres_map_build). With the gate on, every DeviceClass backs its implicit
 * name "deviceclass.resource.kubernetes.io/<class>" and, when it sets spec.extendedResourceName,
 * that name. Several classes may name the same extended resource (while migrating from one class
 * to another): the newer class (metadata.creationTimestamp; a class without one is older than
 * any with one) wins, equal times go to the lexicographically smaller name. Releases up to 1.37
 * have a defect there (issue #141103, fixed by PR #141110 after 1.37): the cache applies the
 * arbitration to the whole class, so a class that loses its explicit name when it is processed
 * (the informer delivers classes in name order) also loses its implicit name; drabench fixes it
 * by default and reproduces it with upstream_bugs in those releases. 1.34 (alpha) maps a class
 * either by its extendedResourceName or, without one, by its implicit name, never both; which
 * of two classes naming one resource wins was unspecified there (the lister's order): drabench
 * uses the arbitration above.
 *
 * The special claim (dra_extres_fit). For the pod's requests (PodRequests: the sum of regular
 * and sidecar containers, at least the largest init container with the sidecars before it,
 * plus spec.overhead, each value rounded up to an integer as the scheduler's Resource does), on
 * one node:
 *  - no requested name with a value > 0 is mapped (or the gate is off): no special claim;
 *  - each requested extended resource that is mapped and that the node does not offer
 *    (status.allocatable absent or 0) goes through DRA; one the node offers (a device plugin)
 *    goes through NodeResourcesFit like any scalar resource; one neither mapped nor offered
 *    makes the node unschedulable ("Insufficient <name>", the NodeResourcesFit reason, which the
 *    scheduler reports before the DynamicResources plugin's "cannot fit resource");
 *  - the claim's requests (1.35+): per resource in name order, per long-lived container
 *    (regular containers and sidecars) one ExactCount request of its whole quantity, named
 *    "container-<i>-request-<j>" (i: the container's index in initContainers + containers; j:
 *    the resource's index among the container's requests sorted by name, cpu and memory
 *    included), class = the mapped class; an init container first uses the requests of the
 *    long-lived containers after it (in index order) and asks only for what they do not cover;
 *    of the init containers' requests only the largest is kept (the first of equal ones), and
 *    the mappings of the others are renamed to it; finally the requests are sorted by name in
 *    byte order ("container-10-..." sorts before "container-2-..."). A quantity that is not an
 *    integer after the API server's canonicalization (AsInt64 fails: "1.5", or "500m" of an
 *    implicit name, which validation allows) or is 0 makes no request. 1.34: one request per
 *    (container, resource) with the container's whole quantity, init containers too, no reuse;
 *    a resource the node offers by device plugin still gets requests when some other resource
 *    needs DRA (a defect of the alpha: reproduced with upstream_bugs only).
 *  - the mappings (pod.status.extendedResourceClaimStatus.requestMappings): per resource, the
 *    long-lived containers' then the init containers' (container, resource, request) entries.
 * The claim carries metadata.generateName "<pod>-extended-resources-" (the pod part cut to 58
 * characters with the suffix, as the API server's name generator does), a name made of that
 * and a 5-character suffix derived from the pod's namespace and name (upstream's is random),
 * the annotation resource.kubernetes.io/extended-resource-claim: "true" and the pod as its
 * controlling owner. It comes after the pod's own claims in the allocate call.
 *
 * NodeResourcesFit (dra_extres_fit, with the usage of pods already on the node): cpu
 * (millicores, rounded up), memory and ephemeral-storage (rounded up) are checked only when the
 * node declares them in status.allocatable (drabench's convention: a node without them is
 * unlimited, as the placement engine treats cpu and memory); "pods" likewise (each pod counts
 * one); every other scalar resource (extended resources, hugepages-*, prefixed native names) a
 * pod requests with a value > 0 must fit allocatable - used (absent = 0), except the ones
 * delegated to DRA above.
 *
 * Ownership: the map borrows the model's classes and owns its array (malloc); the claim, its
 * requests, names and mappings of dra_extres_fit live in the caller's arena. Errors: DRA_ENOMEM.
 * Cost: map O(classes log classes); dra_extres_pod O(containers * resources); dra_extres_fit
 * O(resources * (containers + log classes) + node resources). Thread-safe (no global state).
 */
#ifndef DRA_EXTRES_H
#define DRA_EXTRES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "alloc/alloc.h"
#include "alloc/explain.h"
#include "base/arena.h"
#include "base/err.h"
#include "model/model.h"

#define DRA_EXTRES_IMPLICIT_PREFIX "deviceclass.resource.kubernetes.io/"
#define DRA_EXTRES_ANNOTATION      "resource.kubernetes.io/extended-resource-claim"

/* ---- resource names (pkg/apis/core/v1/helper) ---------------------------------------------- */

/* IsQualifiedName: [DNS-subdomain prefix (<= 253) '/'] name ([A-Za-z0-9][-A-Za-z0-9_.]* ending
 * alphanumeric, <= 63). */
bool dra_resource_is_qualified(const char *name);
/* IsNativeResource: no '/' or a "kubernetes.io/" prefix somewhere in the name. */
bool dra_resource_is_native(const char *name);
/* IsExtendedResourceName: not native, not "requests.*", and "requests." + name a qualified
 * name (a DNS-subdomain prefix of at most 253 and a name of at most 63 characters). */
bool dra_resource_is_extended(const char *name);
/* IsDRAExtendedResourceName: extended, or "deviceclass.resource.kubernetes.io/<class>". */
bool dra_resource_is_dra_extended(const char *name);

/* ---- the name -> DeviceClass map ----------------------------------------------------------- */

typedef struct dra_extres_entry {
    const char *name;              /* extended resource name */
    const dra_device_class_t *cls; /* the class backing it */
} dra_extres_entry_t;

typedef struct dra_extres_map {
    dra_extres_entry_t *v; /* sorted by name (strcmp) */
    uint32_t n;
    bool enabled; /* DRAExtendedResource on */
    char *names;  /* owns the implicit names */
} dra_extres_map_t;

/* Build the map of m's classes under features f (empty when the gate is off). DRA_ENOMEM. */
DRA_NODISCARD int dra_extres_map_build(const dra_model_t *m, const dra_alloc_features_t *f,
                                       dra_extres_map_t *out);
void dra_extres_map_free(dra_extres_map_t *map);
/* The class backing an extended resource name, NULL when none. O(log n). */
const dra_device_class_t *dra_extres_map_find(const dra_extres_map_t *map, const char *name);

/* ---- a pod's requests ---------------------------------------------------------------------- */

typedef struct dra_pod_scalar {
    const char *name; /* borrowed from the pod's containers */
    int64_t value;    /* Value(): rounded up, saturated at INT64_MAX */
} dra_pod_scalar_t;

/* PodRequests of a pod as NodeResourcesFit and the DynamicResources plugin see it. */
typedef struct dra_pod_req {
    int64_t cpu_milli, memory, ephemeral; /* rounded up; 0 = none */
    dra_pod_scalar_t *scalar;             /* the other requested names with a value > 0, sorted */
    uint32_t nscalar;
    bool any; /* some request > 0 (cpu, memory, ephemeral-storage or scalar) */
} dra_pod_req_t;

/* Compute the pod's requests into out (arrays in arena a). DRA_ENOMEM. */
DRA_NODISCARD int dra_extres_pod(const dra_pod_t *pod, dra_arena_t *a, dra_pod_req_t *out);
/* Whether the pod requests an extended resource the map backs (preFilterExtendedResources):
 * false when the gate is off. */
bool dra_extres_pod_mapped(const dra_extres_map_t *map, const dra_pod_req_t *req);

/* ---- node usage (the requests of the pods on a node) --------------------------------------- */

typedef struct dra_node_usage {
    int64_t cpu_milli, memory, ephemeral, pods;
    dra_pod_scalar_t *scalar; /* malloc-owned, names borrowed from the pods */
    uint32_t nscalar, cap;
} dra_node_usage_t;

/* Add a placed pod's requests (pods += 1). DRA_ENOMEM. */
DRA_NODISCARD int dra_node_usage_add(dra_node_usage_t *u, const dra_pod_req_t *req);
void dra_node_usage_fini(dra_node_usage_t *u);

/* ---- one pod on one node ------------------------------------------------------------------- */

typedef struct dra_extres_fit {
    bool fits;          /* false: NodeResourcesFit or the plugin rejects the node */
    char reason[256];   /* !fits: "Insufficient nvidia.com/gpu", ... (names as written) */
    dra_claim_t *claim; /* fits: the special claim for this node (arena), NULL when none */
    dra_request_mapping_t *mappings; /* claim: the request mappings, in upstream's order */
    uint32_t nmappings;
    uint32_t ndra; /* resources delegated to DRA on this node */
} dra_extres_fit_t;

/* The pod (named podname: a workload replica has its own name; user_claims: it has claims of
 * its own to allocate) on node, whose pods so far use `used` (NULL = nothing):
 * NodeResourcesFit and the special claim, with the claim and mappings in arena a (claim
 * namespace = the pod's, name as above). A claim without requests (user_claims and nothing
 * delegated on this node, or only quantities that make no request) is what upstream builds
 * too: it allocates to nothing, and PreBind then fails with "nil or empty request mappings"
 * (extendeddynamicresources.go patchPodExtendedResourceClaimStatus), so the pod does not bind on
 * that node; callers report that. DRA_ENOMEM. */
DRA_NODISCARD int dra_extres_fit(const dra_extres_map_t *map, const dra_alloc_features_t *f,
                                 const dra_pod_t *pod, const char *podname,
                                 const dra_pod_req_t *req, bool user_claims, const dra_node_t *node,
                                 const dra_node_usage_t *used, dra_arena_t *a,
                                 dra_extres_fit_t *out);

/* ---- node filters -------------------------------------------------------------------------- */

/* The kube-scheduler's node filters for the pod on node, in its plugin order: NodeUnschedulable
 * (spec.unschedulable, unless the pod tolerates node.kubernetes.io/unschedulable:NoSchedule),
 * NodeAffinity (every spec.nodeSelector label equal, and the required node affinity's terms),
 * TaintToleration (every NoSchedule / NoExecute taint tolerated). true when the node passes;
 * else reason gets upstream's text: "node(s) were unschedulable", "node(s) didn't match Pod's
 * node affinity/selector", "node(s) had untolerated taint {key: value}" (or the node affinity's
 * parse error). O(labels + selector + taints * tolerations). */
bool dra_extres_node_filters(const dra_pod_t *pod, const dra_node_t *node, char *reason,
                             size_t len);

/* ---- a pod on one node: the scheduler's checks, and why not --------------------------------- */

/* A pod checked against nodes: what does not depend on the node. */
typedef struct dra_extres_pod {
    const dra_extres_map_t *map;
    const dra_model_t *m; /* the classes: which would back a resource with the gate on (may be
                             NULL: no such hint) */
    const dra_alloc_features_t *f;
    const dra_pod_t *pod;
    const char *podname;      /* a replica's own name (NULL: the pod's) */
    const dra_pod_req_t *req; /* dra_extres_pod of the pod */
    dra_claim_t *const *own;  /* the pod's claims, allocated (their node selector is a filter) or
                                 still to allocate (explained with the special claim), <= 64 */
    uint32_t nown;
    bool user_claims; /* the pod has claims of its own to allocate (dra_extres_fit) */
} dra_extres_pod_t;

/* The kube-scheduler's checks of the pod on node before its claims are allocated, in its
 * plugin order: the node filters (dra_extres_node_filters), the node selector of each claim of
 * the pod allocated already (DynamicResources' Filter: "resourceclaim NS/NAME not available on
 * the node (its allocation's nodeSelector)", kind NODE_SELECTION), then NodeResourcesFit and the special claim (dra_extres_fit with the usage `used`,
 * claim and mappings in arena a). fit->fits: the node passes, fit->claim is the special claim
 * (or NULL). Else fit->reason and why hold the reason in upstream's words, why->kind
 * NODE_FILTER, NODE_SELECTION or NODE_RESOURCES - or GATE (gate DRAExtendedResource) when the gate is off and a
 * class of p->m would back a resource the node lacks: the text then says so after upstream's
 * "Insufficient <name>". One reason for alloc, explain, conformance cases, runs and scenario
 * checks. DRA_ENOMEM, DRA_EINVAL (more than 64 claims). */
DRA_NODISCARD int dra_extres_node_check(const dra_extres_pod_t *p, const dra_node_t *node,
                                        const dra_node_usage_t *used, dra_arena_t *a,
                                        dra_extres_fit_t *fit, dra_why_t *why);

/* The reason of a node dra_extres_fit rejected (its reason text) as dra_extres_node_check gives
 * it: NODE_RESOURCES, or GATE when the gate is off and a class of p->m would back a resource
 * the node lacks (for callers that check NodeResourcesFit without the node filters). */
void dra_extres_fit_why(const dra_extres_pod_t *p, const dra_node_t *node, const char *reason,
                        dra_why_t *why);

/* The pod on node, explained (core/alloc/explain.h): dra_extres_node_check, then the pod's
 * claims still to allocate and its special claim together in the explainer x (an explainer over
 * the same model and state; with known_unsat, the caller knows they fit on no node: the reason
 * without the search, dra_explain_unsat), then PreBind: a special claim without requests that
 * allocates is FATAL (dra_extres_prebind_msg). A pod with nothing to allocate that passes the
 * checks FITS. The special claim lives in arena a during the call only. DRA_ENOMEM, DRA_EINVAL,
 * the explainer's errors. */
DRA_NODISCARD int dra_extres_explain(dra_explainer_t *x, const dra_extres_pod_t *p,
                                     const dra_node_t *node, const dra_node_usage_t *used,
                                     bool known_unsat, dra_arena_t *a, dra_why_t *out);

/* A reason text about request `request` ("container-0-request-0", or ".../subrequest") of a
 * special claim whose mappings are maps[0..n) names what it serves, in place: "request
 * container-0-request-0 (nvidia.com/gpu of container main): ..." (the first mapping of the
 * request). Unchanged when the text does not name the request. Returns text. */
const char *dra_extres_name_request(const dra_request_mapping_t *maps, uint32_t n,
                                    const char *request, char *text, size_t len);

/* PreBind's failure for a special claim without requests that allocated (upstream's
 * patchPodExtendedResourceClaimStatus: "nil or empty request mappings") into buf, naming the
 * node when given. Returns buf. */
const char *dra_extres_prebind_msg(const char *node, const char *ns, const char *podname,
                                   char *buf, size_t len);

/* ---- usage of the pods bound already ------------------------------------------------------ */

/* Per model pod its requests (*preq, arrays in arena a) and per model node the usage of the
 * pods bound to it by spec.nodeName (*usage; a workload's replicas each, a DaemonSet none),
 * both malloc'd: free with dra_extres_usage_free. DRA_ENOMEM. */
DRA_NODISCARD int dra_extres_usage_build(const dra_model_t *m, dra_arena_t *a,
                                         dra_pod_req_t **preq, dra_node_usage_t **usage);
void dra_extres_usage_free(uint32_t nnodes, dra_pod_req_t *preq, dra_node_usage_t *usage);

/* The special claim's name for podname into buf: generateName plus 5 characters from
 * upstream's alphabet, derived from (namespace, podname). Returns buf. */
const char *dra_extres_claim_name(const char *ns, const char *podname, char *buf, size_t len);

/* RFC 3339 time ("2026-01-02T03:04:05Z", optional fraction, "Z" or "+hh:mm" / "-hh:mm")
 * as Unix nanoseconds (years 1678..2261). DRA_EINVAL when it does not parse. */
DRA_NODISCARD int dra_extres_time_parse(const char *s, int64_t *ns);

/* Quantity q rounded up to units of 10^scale (-3: MilliValue, 0: Value), saturated at
 * INT64_MAX (negative values give 0). */
int64_t dra_extres_ceil(const dra_quantity_t *q, int32_t scale);

#endif /* DRA_EXTRES_H */
