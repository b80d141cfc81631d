/*
 * shapes.h - claim shapes catalog: ResourceClaimTemplates (and the DeviceClasses they use) for
 * the workloads of the generator.
 *
 * Shapes (name: request):
 *   gpu-1            one full GPU (class gpu.nvidia.com unless `class` is set)
 *   gpu-n            N GPUs of one node in one NVLink domain (matchAttribute gpu.nvidia.com/cliqueID)
 *   mig              N (default 1) MIG devices of one profile (class mig.nvidia.com, selector on
 *                    `profile`); with same_parent, matchAttribute gpu.nvidia.com/parentUUID
 *   gpu-nic-aligned  one GPU + one RDMA NIC under the same resource.kubernetes.io/pcieRoot
 *   prioritized      firstAvailable: one H100, else two A100s
 *   memory-share     `memory` (default 16Gi) of one multi-allocatable gpu.example.com device
 *   all-gpus         allocationMode All over the node's GPUs
 *   admin-monitor    allocationMode All with adminAccess (monitoring; ignores other allocations)
 *   shared           one GPU in a ResourceClaim shared by `share` pods (the workload decides)
 *   sched-perf       scheduler_perf's template: one test-class device (request req-0)
 *   inline           a template given in the scenario (built by the caller)
 * Every template lives in namespace "default", is named after the shape (dra_shape_name) and
 * adds the standard classes it references (cluster.h).
 *
 * Ownership: templates are model objects. Errors: DRA_EINVAL (bad parameters, diag says which),
 * DRA_ENOMEM. Cost: O(1) per shape. Not thread-safe.
 */
#ifndef DRA_GEN_SHAPES_H
#define DRA_GEN_SHAPES_H

#include <stdbool.h>
#include <stdint.h>

#include "base/err.h"
#include "gen/profiles.h"
#include "model/model.h"

typedef enum dra_shape_kind {
    DRA_SHAPE_GPU_1 = 0,
    DRA_SHAPE_GPU_N,
    DRA_SHAPE_MIG,
    DRA_SHAPE_GPU_NIC,
    DRA_SHAPE_PRIORITIZED,
    DRA_SHAPE_MEMORY_SHARE,
    DRA_SHAPE_ALL_GPUS,
    DRA_SHAPE_ADMIN_MONITOR,
    DRA_SHAPE_SHARED,
    DRA_SHAPE_SCHED_PERF,
    DRA_SHAPE_INLINE,
    DRA_SHAPE_NKINDS
} dra_shape_kind_t;

typedef struct dra_shape_info {
    const char *name;
    const char *summary;
    dra_gen_profile_t profile; /* an empty node of this profile satisfies the shape */
    const char *params;        /* the mix-entry keys dra_shape_build reads for it ("count, class,
                                  constraint"; NULL: none), beside weight, name, share, requests */
} dra_shape_info_t;

typedef struct dra_shape_spec {
    dra_shape_kind_t kind;
    const char *name;        /* template name; NULL = dra_shape_name() */
    uint32_t count;          /* gpu-n: GPUs (default 2); mig: devices (default 1) */
    const char *mig_profile; /* mig: "1g.10gb", ... (default 1g.10gb) */
    bool same_parent;        /* mig: all devices on one physical GPU */
    const char *memory;      /* memory-share: requested memory (default "16Gi") */
    const char *class_name;  /* gpu-1 / gpu-n / all-gpus / shared: class (default gpu.nvidia.com) */
    const char *constraint;  /* gpu-n: matchAttribute (default "gpu.nvidia.com/cliqueID"; "" none) */
    uint32_t share;          /* pods per claim (shared; default 2) */
    dra_claim_t *inline_tmpl; /* inline: the template (already in the model) */
} dra_shape_spec_t;

const dra_shape_info_t *dra_shape_info(dra_shape_kind_t k);
/* "gpu-1", ..., "mig" matches "mig" and "mig-<profile>" (then *profile_out points into name). */
DRA_NODISCARD int dra_shape_find(const char *name, dra_shape_kind_t *out,
                                 const char **mig_profile_out);

/* Default template name of a spec ("gpu-n-8", "mig-1g.10gb", ...) into buf. */
const char *dra_shape_name(const dra_shape_spec_t *s, char *buf, size_t len);

/* Add the shape's ResourceClaimTemplate (or, for `shared`, the template of its shared claims:
 * the workload instantiates ResourceClaims from it) plus classes. *out may be NULL. */
DRA_NODISCARD int dra_shape_build(dra_model_t *m, const dra_shape_spec_t *s, dra_claim_t **out,
                                  dra_diag_t *diag);

/* Instantiate a ResourceClaim named `name` from template t (same spec, is_template false). */
DRA_NODISCARD int dra_shape_instantiate(dra_model_t *m, const dra_claim_t *t, const char *name,
                                        dra_claim_t **out);

#endif /* DRA_GEN_SHAPES_H */
