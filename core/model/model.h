/*
 * model.h - the drabench object model: every API field the DRA allocator reads
 * (DRA-SEMANTICS.md §1), one representation for all API versions (v1, v1beta2, v1beta1,
 * v1alpha3 are mapped onto it by the manifest reader), built either by the reader or directly by
 * the generator.
 *
 * Design:
 *  1. A dra_model_t owns one arena and one intern table. Every object, string and array hanging
 *     off the model lives in that arena; nothing is freed individually. dra_model_fini releases all.
 *  2. Objects are reached through arrays of pointers held by the model (stable addresses, so
 *     back-pointers such as device->slice stay valid while objects are added).
 *  3. Strings are NUL-terminated `const char *` owned by the arena; NULL means "field absent",
 *     "" means "present but empty" (the validator needs the difference). Strings that are compared
 *     on hot paths (qualified attribute / capacity names) also carry an interned id (`qname`, from
 *     the model's intern table; 0 = none), so they compare by integer.
 *  4. Optional scalars come with a `has_*` flag; enums keep the raw string when the value is not
 *     one the allocator knows (unknown taint effects are legal and behave like None).
 *  5. Every object records where it came from (dra_srcpos_t), so validation can print
 *     `file:line:col: Kind/name: field.path: reason`. Generated objects have file "<gen>".
 *  6. Attribute and capacity names are stored as written plus `qname`, the interned
 *     fully-qualified name "<domain>/<id>" (an unqualified name takes the slice's driver as domain,
 *     DRA-SEMANTICS §1.2). dra_model_qname() computes it the same way for any caller.
 *
 * Ownership: the model owns everything reachable from it. Functions taking `const char *` copy
 * (intern or strdup into the arena). Errors: DRA_ENOMEM, DRA_ELIMIT. Cost: add/append are O(1)
 * amortised; dra_model_digest is O(size of the model). Not thread-safe; a finished model may be
 * read from many threads.
 */
#ifndef DRA_MODEL_H
#define DRA_MODEL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/arena.h"
#include "base/err.h"
#include "base/intern.h"
#include "base/quantity.h"

/* ---- source positions ----------------------------------------------------------------------- */

typedef struct dra_srcpos {
    const char *file; /* arena-owned; NULL or "<gen>" for generated objects */
    uint32_t line;    /* 1-based, 0 unknown */
    uint32_t column;
} dra_srcpos_t;

/* ---- node selectors (core/v1 NodeSelector) ---------------------------------------------------- */

typedef enum dra_ns_op {
    DRA_NS_IN,
    DRA_NS_NOT_IN,
    DRA_NS_EXISTS,
    DRA_NS_DOES_NOT_EXIST,
    DRA_NS_GT,
    DRA_NS_LT,
    DRA_NS_UNKNOWN /* raw string kept in op_raw; matching treats it as an error (fatal) */
} dra_ns_op_t;

typedef struct dra_ns_req {
    const char *key;
    dra_ns_op_t op;
    const char *op_raw;
    const char **values;
    uint32_t nvalues;
} dra_ns_req_t;

typedef struct dra_ns_term {
    dra_ns_req_t *exprs; /* matchExpressions (labels) */
    uint32_t nexprs;
    dra_ns_req_t *fields; /* matchFields (only metadata.name is meaningful) */
    uint32_t nfields;
} dra_ns_term_t;

typedef struct dra_node_selector {
    dra_ns_term_t *terms; /* ORed */
    uint32_t nterms;
    dra_srcpos_t pos;
} dra_node_selector_t;

/* ---- attributes and capacities ------------------------------------------------------------- */

typedef enum dra_attr_kind {
    DRA_ATTR_NONE = 0,
    DRA_ATTR_INT,
    DRA_ATTR_BOOL,
    DRA_ATTR_STRING,
    DRA_ATTR_VERSION,
    DRA_ATTR_INTS, /* list kinds: DRAListTypeAttributes (1.36 alpha) */
    DRA_ATTR_BOOLS,
    DRA_ATTR_STRINGS,
    DRA_ATTR_VERSIONS
} dra_attr_kind_t;

static inline bool dra_attr_kind_is_list(dra_attr_kind_t k)
{
    return k >= DRA_ATTR_INTS;
}

typedef struct dra_attr {
    const char *name; /* as written: "numa" or "gpu.nvidia.com/numa" */
    uint32_t qname;   /* interned "<domain>/<id>" */
    uint8_t kind;     /* dra_attr_kind_t */
    uint32_t count;   /* number of values: 1 for scalars, list length for list kinds */
    union {
        int64_t i;             /* INT */
        bool b;                /* BOOL */
        const char *s;         /* STRING, VERSION (the version text as written) */
        const int64_t *ints;   /* INTS */
        const bool *bools;     /* BOOLS */
        const char *const *strs; /* STRINGS, VERSIONS */
    } v;
} dra_attr_t;

typedef struct dra_request_policy {
    bool has_default;
    dra_quantity_t def;
    dra_quantity_t *valid_values; /* ascending; nvalid_values > 0 means "validValues" is set */
    uint32_t nvalid_values;
    bool has_valid_range;
    dra_quantity_t min; /* validRange.min (required when the range is set) */
    bool has_max;
    dra_quantity_t max;
    bool has_step;
    dra_quantity_t step;
} dra_request_policy_t;

typedef struct dra_capacity {
    const char *name;
    uint32_t qname;
    dra_quantity_t value;
    const dra_request_policy_t *policy; /* NULL when the device declares no requestPolicy */
} dra_capacity_t;

typedef struct dra_counter {
    const char *name;
    dra_quantity_t value;
    /* KEP-5941 (DRASharedConsumableCapacity, 1.38-pre alpha). In a device's consumesCounters:
     * valueFrom.capacityName, the capacity request that sets the amount (value then reads 0:
     * what an allocator without the feature charges); NULL = a static value. In a sharedCounters
     * counter set: requestPolicy of the counter; NULL = none. */
    const char *value_from;
    const dra_request_policy_t *policy;
} dra_counter_t;

typedef struct dra_counter_set {
    const char *name;
    dra_counter_t *counters;
    uint32_t ncounters;
} dra_counter_set_t;

typedef struct dra_consumes {
    const char *counter_set;
    dra_counter_t *counters;
    uint32_t ncounters;
    uint32_t ngroups;
    const char **groups; /* compatibilityGroups (1.37, KEP-5963); none = "no groups" */
} dra_consumes_t;

/* ---- taints and tolerations ----------------------------------------------------------------- */

typedef enum dra_taint_effect {
    DRA_EFFECT_NONE = 0,    /* "None" or an unknown value: does not block */
    DRA_EFFECT_NO_SCHEDULE,
    DRA_EFFECT_NO_EXECUTE,
    DRA_EFFECT_EMPTY        /* "" (only in tolerations: matches every effect) */
} dra_taint_effect_t;

typedef struct dra_taint {
    const char *key;
    const char *value; /* may be NULL */
    dra_taint_effect_t effect;
    const char *effect_raw; /* as written */
    const char *time_added; /* RFC 3339 as written, may be NULL */
} dra_taint_t;

typedef enum dra_tol_op { DRA_TOL_EQUAL = 0, DRA_TOL_EXISTS, DRA_TOL_UNKNOWN } dra_tol_op_t;

typedef struct dra_toleration {
    const char *key; /* NULL or "" = all keys (then op must be Exists) */
    dra_tol_op_t op;
    const char *op_raw; /* as written, NULL when defaulted */
    const char *value;
    dra_taint_effect_t effect; /* DRA_EFFECT_EMPTY when "" or absent */
    const char *effect_raw;
    bool has_seconds;
    int64_t seconds;
} dra_toleration_t;

/* ---- devices and slices --------------------------------------------------------------------- */

struct dra_slice;

typedef struct dra_device {
    /* What a placement result reads comes first (name, slice, index, binding conditions): one
     * cache line, since device arrays are 64-byte aligned (dra_model_array) and the struct is
     * 128 bytes (checked below). */
    const char *name;
    const struct dra_slice *slice; /* back-pointer, set when the device is added to a slice */
    const char **binding_conditions;
    const char **binding_failure_conditions;
    uint32_t index; /* position in slice->devices */
    uint32_t nbinding_conditions;
    uint32_t nbinding_failure_conditions;
    uint32_t nattrs;
    dra_attr_t *attrs;
    dra_capacity_t *caps;
    dra_consumes_t *consumes; /* consumesCounters */
    dra_taint_t *taints;
    /* per-device node selection (slice.per_device_node_selection) */
    const char *node_name;
    const dra_node_selector_t *node_selector;
    uint32_t ncaps;
    uint32_t nconsumes;
    uint32_t ntaints;
    bool all_nodes;
    bool binds_to_node;
    bool allow_multiple_allocations;
    dra_srcpos_t pos;
} dra_device_t;
_Static_assert(sizeof(dra_device_t) == 128, "dra_device_t: two cache lines, hot fields first");

typedef struct dra_slice {
    uint32_t index;   /* position in the model's slices (set by dra_model_add_slice) */
    const char *name; /* metadata.name */
    const char *api_version; /* as read, e.g. "resource.k8s.io/v1beta1" */
    const char *driver;
    const char *pool_name;
    int64_t generation;
    int64_t slice_count; /* pool.resourceSliceCount */
    /* node scoping: exactly one of these should be set (validation checks) */
    const char *node_name;
    const dra_node_selector_t *node_selector;
    bool all_nodes;
    bool per_device_node_selection;
    dra_device_t *devices;
    uint32_t ndevices;
    dra_counter_set_t *counter_sets; /* sharedCounters */
    uint32_t ncounter_sets;
    /* spec.skipNodeOperations (1.37, DRAOptionalNodeOperations, KEP-5945): the node-local
     * operations the kubelet skips for this slice's devices ("NodePrepareResources",
     * "NodeUnprepareResources", "*"), as written; copied into each allocation result. A device
     * of a slice with a non-empty list is selectable only with the gate on and on a node whose
     * status.declaredFeatures lists DRAOptionalNodeOperations (core/alloc/node_ops.c). */
    const char **skip_node_ops;
    uint32_t nskip_node_ops;
    dra_srcpos_t skip_node_ops_pos; /* where the list is written (line 0: unknown) */
    dra_srcpos_t pos;
    /* Set by dra_model_slice_done: every version attribute of every device parses as semver
     * (strict), so CEL need not re-check them per evaluation (false: not known, check). */
    bool versions_valid;
    /* Set by dra_model_slice_update: how many times the slice was republished, and what the
     * last republication changed (DRA_SLICE_CHANGED_* of any of its devices; 0: nothing). */
    uint32_t updates;
    uint32_t changed;
} dra_slice_t;

/* ---- classes, claims, templates ------------------------------------------------------------- */

typedef struct dra_selector {
    const char *cel; /* selector.cel.expression; NULL when the selector has no cel */
    dra_srcpos_t pos;
} dra_selector_t;

typedef struct dra_opaque_config {
    const char *driver;
    const char *params_json; /* parameters, as compact canonical JSON text */
} dra_opaque_config_t;

typedef struct dra_class_config {
    dra_opaque_config_t opaque; /* driver NULL when the config has no opaque part */
} dra_class_config_t;

typedef struct dra_device_class {
    const char *name;
    dra_selector_t *selectors;
    uint32_t nselectors;
    dra_class_config_t *configs;
    uint32_t nconfigs;
    const char *extended_resource_name;
    /* metadata.creationTimestamp as written (RFC 3339), NULL when absent: of two classes naming
     * the same extendedResourceName the scheduler picks the newer (core/extres/extres.h). */
    const char *created;
    dra_srcpos_t pos;
} dra_device_class_t;

typedef enum dra_alloc_mode {
    DRA_MODE_EXACT_COUNT = 0,
    DRA_MODE_ALL,
    DRA_MODE_UNKNOWN /* raw string in mode_raw; allocation fails fatally ("unsupported count mode") */
} dra_alloc_mode_t;

typedef struct dra_cap_request {
    const char *name;
    uint32_t qname;
    dra_quantity_t value;
} dra_cap_request_t;

/* A derived attribute of a request (1.37, KEP-6080): `name` (fully qualified, interned as
 * qname) is computed per candidate device by the CEL `expr`, for the claim's constraints. */
typedef struct dra_derived_attr {
    const char *name;
    uint32_t qname;
    const char *expr;
    dra_srcpos_t pos;
} dra_derived_attr_t;

/* The body shared by `exactly` and each `firstAvailable` entry (a subrequest has no adminAccess). */
typedef struct dra_exact_request {
    const char *name; /* subrequest name; for `exactly`, equals the request name */
    const char *class_name;
    dra_selector_t *selectors;
    uint32_t nselectors;
    dra_alloc_mode_t mode;
    const char *mode_raw; /* NULL when defaulted */
    bool has_count;
    int64_t count; /* defaulted to 1 for ExactCount when absent */
    bool has_admin_access; /* field present, even when false (matters when the gate is off) */
    bool admin_access;
    dra_toleration_t *tolerations;
    uint32_t ntolerations;
    dra_cap_request_t *cap_requests; /* capacity.requests */
    uint32_t ncap_requests;
    bool has_capacity; /* `capacity` present (even if empty) */
    dra_derived_attr_t *derived; /* derivedAttributes (1.37) */
    uint32_t nderived;
    dra_srcpos_t pos;
} dra_exact_request_t;

typedef struct dra_request {
    const char *name;
    dra_exact_request_t *exactly; /* exactly one of exactly / first_available (validation) */
    dra_exact_request_t *first_available;
    uint32_t nfirst_available;
    dra_srcpos_t pos;
} dra_request_t;

typedef struct dra_constraint {
    const char **requests; /* empty = all requests */
    uint32_t nrequests;
    const char *match_attribute;    /* fully qualified */
    const char *distinct_attribute; /* fully qualified */
    dra_srcpos_t pos;
} dra_constraint_t;

typedef struct dra_claim_config {
    const char **requests;
    uint32_t nrequests;
    dra_opaque_config_t opaque;
} dra_claim_config_t;

typedef enum dra_config_source { DRA_CONFIG_FROM_CLASS = 0, DRA_CONFIG_FROM_CLAIM } dra_config_source_t;

typedef struct dra_consumed {
    const char *name;
    dra_quantity_t value;
} dra_consumed_t;

typedef struct dra_result {
    const char *request; /* "req" or "req/sub" */
    const char *driver;
    const char *pool;
    const char *device;
    bool admin_access; /* written as `adminAccess: true` only when true */
    dra_toleration_t *tolerations;
    uint32_t ntolerations;
    const char **binding_conditions;
    uint32_t nbinding_conditions;
    const char **binding_failure_conditions;
    uint32_t nbinding_failure_conditions;
    const char *share_id; /* NULL unless the device is multi-allocatable */
    dra_consumed_t *consumed; /* consumedCapacity */
    uint32_t nconsumed;
    /* Not part of the claim either (see row): how share_id was derived, when the engine's
     * direct answer derived it (dra__share_id_tag), else 0. The allocation state keeps it with
     * the live share, so a later derivation by the same plan knows which of its attempts are
     * live without hashing them. Whoever sets share_id another way leaves it 0. */
    uint32_t share_tag;
    /* skipNodeOperations (1.37, DRAOptionalNodeOperations): the device's slice's list at
     * allocation time; written only when non-empty */
    const char **skip_node_ops;
    uint32_t nskip_node_ops;
    /* Not part of the claim (never read, written, compared or digested as such): the device's
     * row + 1 in the model it was allocated from, 0 when unknown. A device's row is its
     * position in model order (slices in m->slices order, devices in slice order; see
     * dra_model_device_rows). The allocation state and the engine use it to update their
     * per-device columns in O(1) instead of looking the (driver, pool, device) strings up. They
     * trust it only for the device name that row has (the model's pointer, else the strings
     * compared): a row of another device costs time, not correctness. */
    uint32_t row;
} dra_result_t;

typedef struct dra_alloc_config {
    dra_config_source_t source;
    const char **requests;
    uint32_t nrequests;
    dra_opaque_config_t opaque;
} dra_alloc_config_t;

/* consumedCounters of an allocation result (KEP-5941, DRASharedConsumableCapacity, 1.38-pre):
 * what the allocation charged per counter set, perDevice (a device's static consumption, once
 * per device however many shares it has) and perAllocation (request-driven, per result). */
typedef struct dra_counter_set_use {
    const char *counter_set;
    dra_consumed_t *counters;
    uint32_t ncounters;
} dra_counter_set_use_t;

typedef struct dra_counter_snapshot {
    dra_counter_set_use_t *per_device;
    uint32_t nper_device;
    dra_counter_set_use_t *per_allocation;
    uint32_t nper_allocation;
    dra_srcpos_t pos;
} dra_counter_snapshot_t;

typedef struct dra_allocation {
    dra_result_t *results;
    uint32_t nresults;
    /* per result: its consumedCounters snapshot (sharedcap.c); NULL (array or entry) = none.
     * Kept beside the results, not in dra_result_t, which the engine's result slots copy. */
    const dra_counter_snapshot_t **counters;
    dra_alloc_config_t *configs;
    uint32_t nconfigs;
    const dra_node_selector_t *node_selector; /* NULL = usable on every node */
    const char *allocation_timestamp;
} dra_allocation_t;

typedef struct dra_claim {
    const char *namespace_; /* "default" when absent */
    const char *name;
    bool is_template; /* ResourceClaimTemplate: spec.spec */
    dra_request_t *requests;
    uint32_t nrequests;
    dra_constraint_t *constraints;
    uint32_t nconstraints;
    dra_claim_config_t *configs;
    uint32_t nconfigs;
    dra_allocation_t *allocation; /* status.allocation, NULL when not allocated */
    const char *api_version;
    dra_srcpos_t pos;
    /* The claim the scheduler makes for a pod's extended resources (KEP-5004): annotation
     * resource.kubernetes.io/extended-resource-claim "true"; owner_pod / owner_uid name the Pod
     * of its controlling ownerReference; generate_name is metadata.generateName. false / NULL
     * for every other claim. */
    bool extended;
    const char *owner_pod;
    const char *owner_uid;
    const char *generate_name;
} dra_claim_t;

/* ---- pods and workloads --------------------------------------------------------------------- */

typedef struct dra_label {
    const char *key;
    const char *value;
} dra_label_t;

/* A resource quantity of a container or node (core/v1 ResourceList entry). */
typedef struct dra_resource_qty {
    const char
        *name; /* "cpu", "memory", "nvidia.com/gpu", "deviceclass.resource.kubernetes.io/x" */
    dra_quantity_t value;
    /* requests only: not written; the API server's defaulting copied it from the limit */
    bool defaulted;
} dra_resource_qty_t;

typedef enum dra_container_kind {
    DRA_CONTAINER_REGULAR = 0, /* spec.containers */
    DRA_CONTAINER_INIT,        /* spec.initContainers, runs to completion before the next */
    DRA_CONTAINER_SIDECAR      /* spec.initContainers with restartPolicy Always (keeps running) */
} dra_container_kind_t;

/* A container's resources as the scheduler sees them. requests holds the defaulted requests
 * (SetDefaults_Pod: a resource with a limit and no request gets the limit as its request;
 * those entries carry `defaulted`), sorted by name in byte order (the order upstream indexes a
 * container's requests by); limits as written, sorted the same way. */
typedef struct dra_container {
    const char *name;
    dra_container_kind_t kind;
    dra_resource_qty_t *requests;
    uint32_t nrequests;
    dra_resource_qty_t *limits;
    uint32_t nlimits;
    dra_srcpos_t pos;
} dra_container_t;

/* One entry of pod.status.extendedResourceClaimStatus.requestMappings (KEP-5004). */
typedef struct dra_request_mapping {
    const char *container; /* container name */
    const char *resource;  /* extended resource name */
    const char *request;   /* the request of the special claim serving it */
} dra_request_mapping_t;

typedef struct dra_pod_claim {
    const char *name;                /* spec.resourceClaims[].name */
    const char *claim_name;          /* resourceClaimName */
    const char *template_name;       /* resourceClaimTemplateName */
    /* status.resourceClaimStatuses[].resourceClaimName of this entry: the claim the control
     * plane generated from the template (NULL: none recorded) */
    const char *generated_name;
} dra_pod_claim_t;

typedef enum dra_pod_kind {
    DRA_POD_POD = 0,
    DRA_POD_DEPLOYMENT,
    DRA_POD_REPLICASET,
    DRA_POD_STATEFULSET,
    DRA_POD_DAEMONSET,
    DRA_POD_JOB
} dra_pod_kind_t;

typedef struct dra_pod {
    dra_pod_kind_t kind; /* a workload's pod template is one dra_pod_t with `replicas` */
    const char *namespace_;
    const char *name;
    int64_t replicas; /* 1 for a Pod; replicas / parallelism for workloads; -1 = per node */
    const char *node_name; /* spec.nodeName when already bound */
    const char *uid;       /* metadata.uid, NULL when absent */
    dra_pod_claim_t *claims;
    uint32_t nclaims;
    /* spec.initContainers (kind INIT or SIDECAR) then spec.containers (REGULAR): the index of a
     * container here is the one upstream names extended-resource requests by */
    dra_container_t *containers;
    uint32_t ncontainers;
    uint32_t ninit;               /* the first ninit are init containers */
    dra_resource_qty_t *overhead; /* spec.overhead (RuntimeClass), sorted by name */
    uint32_t noverhead;
    /* node filters: spec.nodeSelector (labels that must be equal), the required node affinity
     * (spec.affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution) and the
     * tolerations of node taints */
    dra_label_t *node_labels;
    uint32_t nnode_labels;
    const dra_node_selector_t *node_affinity;
    dra_toleration_t *tolerations;
    uint32_t ntolerations;
    /* scheduling inputs the pod has that drabench does not model, as field paths with a short
     * reason ("spec.affinity.podAntiAffinity: not modelled"); consumers warn about them */
    const char **unmodelled;
    uint32_t nunmodelled;
    /* status.extendedResourceClaimStatus: the special claim the scheduler made for the pod's
     * extended resources and which request serves which container's resource (NULL / 0: none) */
    const char *ext_claim;
    dra_request_mapping_t *ext_mappings;
    uint32_t next_mappings;
    dra_srcpos_t pos;
    /* spec.schedulingGroup (GenericWorkload): the PodGroup the pod belongs to. has_group: the
     * field is present (even as `{}`); group: its podGroupName, NULL when absent. */
    bool has_group;
    const char *group;
    dra_srcpos_t group_pos;
    const char *scheduler_name; /* spec.schedulerName, NULL = "default-scheduler" */
    bool has_priority;          /* spec.priority (set by admission from priorityClassName) */
    int64_t priority;
} dra_pod_t;

/* ---- workloads and pod groups (scheduling.k8s.io v1alpha2, v1beta1) ------------------------- *
 *
 * The scheduling part shared by a Workload's PodGroupTemplate and a PodGroup's spec
 * (WORKLOADS.md; upstream types PodGroupTemplate / PodGroupSpec). Absent fields stay NULL / 0 /
 * false so that the validator can tell "missing" from "empty"; the reader checks nothing beyond
 * shapes. */

typedef struct dra_group_claim { /* PodGroupResourceClaim (DRAWorkloadResourceClaims) */
    const char *name;
    const char *claim_name;    /* resourceClaimName */
    const char *template_name; /* resourceClaimTemplateName */
    dra_srcpos_t pos;
} dra_group_claim_t;

typedef struct dra_group_sched {
    bool basic, gang;     /* schedulingPolicy.basic / .gang present (exactly one is valid) */
    bool has_policy;      /* schedulingPolicy present */
    bool has_min_count;   /* gang.minCount present */
    int64_t min_count;
    bool has_constraints; /* schedulingConstraints present (TopologyAwareWorkloadScheduling) */
    const char **topology; /* schedulingConstraints.topology[].key (an entry NULL: key missing) */
    uint32_t ntopology;
    bool has_claims;      /* resourceClaims present */
    dra_group_claim_t *claims;
    uint32_t nclaims;
    dra_srcpos_t policy_pos, constraints_pos;
} dra_group_sched_t;

typedef struct dra_podgroup {
    const char *namespace_; /* "default" when absent */
    const char *name;
    const char *api_version;
    /* the template it was created from: v1alpha2 spec.podGroupTemplateRef.workload
     * {workloadName, podGroupTemplateName}, v1beta1 spec.workloadRef {workloadName,
     * templateName}; NULL when absent */
    bool has_template_ref;
    const char *workload_name, *template_name;
    dra_group_sched_t s;
    dra_srcpos_t pos;
} dra_podgroup_t;

typedef struct dra_pg_template { /* Workload spec.podGroupTemplates[] */
    const char *name;
    dra_group_sched_t s;
    dra_srcpos_t pos;
} dra_pg_template_t;

typedef struct dra_workload_obj { /* kind Workload */
    const char *namespace_;
    const char *name;
    const char *api_version;
    dra_pg_template_t *templates;
    uint32_t ntemplates;
    bool has_templates;
    bool has_controller_ref; /* spec.controllerRef {apiGroup, kind, name} */
    const char *ctrl_api_group, *ctrl_kind, *ctrl_name;
    dra_srcpos_t pos;
} dra_workload_obj_t;
typedef struct dra_node {
    const char *name;
    dra_label_t *labels;
    uint32_t nlabels;
    bool implied; /* not declared as a Node object: implied by a slice's nodeName */
    dra_srcpos_t pos;
    /* status.allocatable cpu / memory as written (quantities); NULL when absent. Kept for the
     * round trip of trace replays (drabench replay --emit); the allocator does not read them. */
    const char *alloc_cpu;
    const char *alloc_memory;
    /* every other status.allocatable entry (extended resources of device plugins, pods,
     * ephemeral-storage, hugepages-*), sorted by name; read by the pod-level resource checks of
     * core/extres/extres.h */
    dra_resource_qty_t *allocatable;
    uint32_t nallocatable;
    /* spec.taints (NoSchedule / NoExecute ones keep pods that do not tolerate them off the
     * node) and spec.unschedulable */
    dra_taint_t *taints;
    uint32_t ntaints;
    bool unschedulable;
    /* status.declaredFeatures (NodeDeclaredFeatures, KEP-5328), as written: the allocator reads
     * "DRAOptionalNodeOperations" there (core/alloc/node_ops.c) */
    const char **declared_features;
    uint32_t ndeclared_features;
} dra_node_t;

/* ---- the model ------------------------------------------------------------------------------ */

#define DRA_MODEL_VEC(T, field)                                                                    \
    T **field;                                                                                     \
    uint32_t n##field;                                                                             \
    uint32_t cap_##field

typedef struct dra_model {
    dra_arena_t arena;
    dra_intern_t intern;
    DRA_MODEL_VEC(dra_slice_t, slices);
    DRA_MODEL_VEC(dra_device_class_t, classes);
    DRA_MODEL_VEC(dra_claim_t, claims); /* ResourceClaims */
    DRA_MODEL_VEC(dra_claim_t, templates); /* ResourceClaimTemplates (is_template = true) */
    DRA_MODEL_VEC(dra_pod_t, pods);
    DRA_MODEL_VEC(dra_node_t, nodes);
    DRA_MODEL_VEC(dra_podgroup_t, podgroups);
    DRA_MODEL_VEC(dra_workload_obj_t, workloads);
    uint64_t uid;      /* unique per dra_model_init in this process (never 0): caches keyed by a
                          model use it, since a new model may reuse a freed model's address */
    uint32_t nskipped; /* documents of unknown kinds, skipped by the reader */
    uint64_t ndevices; /* running total over all slices */
    struct dra_model_upd *upd; /* what slice updates reuse (model.c); NULL until the first */
} dra_model_t;

void dra_model_init(dra_model_t *m);
void dra_model_fini(dra_model_t *m);

/* Create zero-filled objects, appended to the model; NULL on out-of-memory. */
dra_slice_t *dra_model_add_slice(dra_model_t *m);
dra_device_class_t *dra_model_add_class(dra_model_t *m);
dra_claim_t *dra_model_add_claim(dra_model_t *m);
/* A claim of m instantiated from template tpl as ns/name (ns NULL = "default"; its requests are
 * the template's, not allocated). NULL: out of memory. */
dra_claim_t *dra_model_instantiate(dra_model_t *m, const dra_claim_t *tpl, const char *ns,
                                   const char *name);
dra_claim_t *dra_model_add_template(dra_model_t *m);
dra_pod_t *dra_model_add_pod(dra_model_t *m);
dra_node_t *dra_model_add_node(dra_model_t *m);
dra_podgroup_t *dra_model_add_podgroup(dra_model_t *m);
dra_workload_obj_t *dra_model_add_workload(dra_model_t *m);

/* Arena helpers: copy a string; allocate a zeroed array of n elements of size sz (64-byte
 * aligned when sz is a multiple of 64, e.g. devices: each then starts a cache line). */
const char *dra_model_str(dra_model_t *m, const char *s);
const char *dra_model_strn(dra_model_t *m, const char *s, size_t len);
void *dra_model_array(dra_model_t *m, size_t n, size_t sz);

/* Fill device->slice and device->index for every device of the slice and add to m->ndevices.
 * Call once after slice->devices is complete. */
void dra_model_slice_done(dra_model_t *m, dra_slice_t *slice);

/* ---- republishing a slice (incremental update) -------------------------------------------- *
 *
 * A driver republishes a ResourceSlice when a device's state changes (a health event marks a
 * device unhealthy with a taint, a firmware update changes an attribute). dra_model_slice_update
 * replaces the definitions of the devices of slice m->slices[slice] in place:
 *  - the slice keeps its identity: pool, slice name, node scoping, counter sets, generation, the
 *    same number of devices with the same names in the same order, each device keeping its
 *    address (device->slice, device->index, pointers to it held by the device table, the
 *    allocation state and the allocators stay valid);
 *  - a device's attributes, capacities (and request policies), counter consumption, taints,
 *    binding conditions (bindsToNode, bindingConditions, bindingFailureConditions) and
 *    allowMultipleAllocations take the values of devs[i]; every string and array is copied into
 *    the model's arena (devs is borrowed for the call only) and qualified names are interned,
 *    except an array that is the device's current one (same pointer and length: the caller
 *    copied the current definition and changed something else), which is kept as it is;
 *  - per-device node selection (nodeName, nodeSelector, allNodes) must not change.
 * A change of the device count or of any device name is not incremental (it moves every row
 * after the slice in the device table and every device ID the state holds): rejected with
 * DRA_EINVAL saying so; rebuild the model instead. Nothing is changed when the call fails.
 * devs[i].name may be NULL (meaning "the same name").
 * Allocations are keyed by device ID (driver, pool, device), so allocations of a republished
 * device stay as they are: a NoSchedule taint added to a device in use keeps it allocated (it
 * only stops new allocations that do not tolerate it; DRA-SEMANTICS 2.6 step 5), and a device
 * whose capacity or counter consumption shrinks keeps what it holds (later allocations see the
 * new values). NoExecute eviction is not modelled.
 * Validation (as the manifest reader checks a device): names of attributes, capacities, counter
 * sets, counters and taint keys non-empty, no attribute or capacity named twice (qualified),
 * attribute kinds known, negative capacities and counter amounts refused, taint effects known
 * (None, NoSchedule, NoExecute; an unknown effect keeps its text and counts as None).
 * Errors: DRA_EINVAL (diag "file:line: ResourceSlice <name>: devices[i].field: reason", the
 * position of devs[i] when known, else the slice's), DRA_ENOMEM. slice->updates is incremented
 * and slice->changed set to what differs from the previous definitions (DRA_SLICE_CHANGED_*).
 * Cost: O(size of the new definitions). Memory: an update reuses what earlier ones made - the
 * device records are staged in one buffer of the model (grown to the largest slice updated),
 * strings are kept once each and a device's taint list once per distinct content (shared by
 * every device and update with that content; never written after it is made) - so republishing
 * the same definitions again and again (a health event's taint added and removed) grows the
 * model by nothing; what an update replaces otherwise stays in the arena until dra_model_fini. */
#define DRA_SLICE_CHANGED_ATTRS 0x01u    /* attribute values or names */
#define DRA_SLICE_CHANGED_CAPS 0x02u     /* capacities or request policies */
#define DRA_SLICE_CHANGED_CONSUMES 0x04u /* counter consumption */
#define DRA_SLICE_CHANGED_TAINTS 0x08u
#define DRA_SLICE_CHANGED_BINDING 0x10u  /* bindsToNode or binding (failure) conditions */
#define DRA_SLICE_CHANGED_MULTI 0x20u    /* allowMultipleAllocations */
DRA_NODISCARD int dra_model_slice_update(dra_model_t *m, uint32_t slice, const dra_device_t *devs,
                                         uint32_t ndevs, dra_diag_t *diag);

/* Device rows: first[i] = the row of slices[i]->devices[0] for i < m->nslices (the number of
 * devices of the slices before it, in m->slices order); first must hold m->nslices elements.
 * Returns the number of rows (devices) in all. O(slices). */
uint32_t dra_model_device_rows(const dra_model_t *m, uint32_t *first);

/* Interned fully qualified name for an attribute/capacity name written in a slice of `driver`:
 * "numa" -> "<driver>/numa"; "a.b/numa" -> "a.b/numa". Returns 0 on out-of-memory. */
uint32_t dra_model_qname(dra_model_t *m, const char *driver, const char *name);
/* Split a (possibly qualified) name at the last '/': domain (NULL when unqualified) and id. */
void dra_model_split_name(const char *name, const char **domain, size_t *domain_len,
                          const char **id);

/* Lookups (linear; callers that need speed build their own index). NULL when absent.
 * ns NULL = "default". */
const dra_device_class_t *dra_model_find_class(const dra_model_t *m, const char *name);
dra_claim_t *dra_model_find_claim(const dra_model_t *m, const char *ns, const char *name);
dra_claim_t *dra_model_find_template(const dra_model_t *m, const char *ns, const char *name);
dra_node_t *dra_model_find_node(const dra_model_t *m, const char *name);
dra_podgroup_t *dra_model_find_podgroup(const dra_model_t *m, const char *ns, const char *name);
const dra_workload_obj_t *dra_model_find_workload(const dra_model_t *m, const char *ns,
                                                  const char *name);
/* The value of label `key` of node n, NULL when the node does not carry it. O(labels). */
const char *dra_node_label(const dra_node_t *n, const char *key);
/* Add an implied Node for every slice/device nodeName that has no Node object. */
DRA_NODISCARD int dra_model_imply_nodes(dra_model_t *m);

/* Attribute / capacity lookup on a device by interned qualified name (0 when absent). */
const dra_attr_t *dra_device_attr(const dra_device_t *d, uint32_t qname);
/* The first version attribute of d (VERSION, or any element of VERSIONS) that is not strict
 * semver, with the parser's reason in why (may be NULL); NULL when all parse. O(attributes). */
const dra_attr_t *dra_device_bad_version(const dra_device_t *d, dra_diag_t *why);
const dra_capacity_t *dra_device_capacity(const dra_device_t *d, uint32_t qname);

/* Canonical digest (XXH3-64) of everything the model holds except source positions and the
 * order of map-like collections (attributes, capacities, labels are hashed sorted by name), so a
 * model read from YAML, written back and read again has the same digest. Object order matters
 * (slices, devices, claims and requests keep their order). */
uint64_t dra_model_digest(const dra_model_t *m);

const char *dra_pod_kind_name(dra_pod_kind_t k);
const char *dra_attr_kind_name(dra_attr_kind_t k);
/* The attribute's value as text into buf: 42, true, the string or version as written, a list as
 * [a,b,c] (cut to fit len). Returns buf. */
const char *dra_attr_format(const dra_attr_t *a, char *buf, size_t len);

#endif /* DRA_MODEL_H */
