/*
 * cluster.h - build a synthetic cluster (Nodes, ResourceSlices, DeviceClasses) into a model.
 *
 * Purpose: turn a scenario's cluster section (node groups: profile, count, parameters) into model
 * objects directly, deterministically from one 64-bit seed (stream DRA_STREAM_CLUSTER). Groups are
 * emitted in order; node i of group g is named "<name>-<i>" (name defaults to the profile name).
 * The DeviceClasses the profiles need (gpu.nvidia.com, mig.nvidia.com, dranet.net, ...) are added
 * once each, before any slice, with the selectors of the drivers' Helm charts.
 *
 * Memory: nodes of one group share immutable attribute, capacity, counter and consumption arrays
 * (see profiles.h); per node the model holds the Node, its labels array, the slices and one
 * dra_device_t per device. Cost: O(devices); 50,000 mixed nodes build in about a second.
 *
 * Ownership: everything goes into the caller's model (its arena). Errors: DRA_EINVAL (bad
 * parameters, message in diag), DRA_ENOMEM. On error the model holds a partial cluster; discard
 * it. Not thread-safe (one model per thread).
 */
#ifndef DRA_GEN_CLUSTER_H
#define DRA_GEN_CLUSTER_H

#include <stdint.h>

#include "base/err.h"
#include "gen/profiles.h"
#include "model/model.h"

typedef struct dra_gen_group {
    dra_gen_profile_t profile;
    uint32_t count;    /* nodes (pools for net-pool) */
    const char *name;  /* node name prefix; NULL = profile name */
    dra_gen_params_t params;
} dra_gen_group_t;

typedef struct dra_gen_cluster_spec {
    const dra_gen_group_t *groups;
    uint32_t ngroups;
} dra_gen_cluster_spec_t;

typedef struct dra_gen_cluster_stats {
    uint64_t nodes, slices, devices, classes;
    uint64_t gpus; /* physical accelerators (full GPUs or parents of partitions) */
} dra_gen_cluster_stats_t;

/* Add the cluster to m. stats may be NULL. */
DRA_NODISCARD int dra_gen_cluster_build(dra_model_t *m, const dra_gen_cluster_spec_t *spec,
                                        uint64_t seed, dra_gen_cluster_stats_t *stats,
                                        dra_diag_t *diag);

/* Add a DeviceClass with one CEL selector unless a class of that name exists (then DRA_OK).
 * ext_resource may be NULL. */
DRA_NODISCARD int dra_gen_add_class(dra_model_t *m, const char *name, const char *cel,
                                    const char *ext_resource);

/* Add the standard DeviceClass of that name (gpu.nvidia.com, mig.nvidia.com, dranet.net, ...:
 * the table in cluster.c) unless it exists. DRA_ENOTFOUND for other names. */
DRA_NODISCARD int dra_gen_add_std_class(dra_model_t *m, const char *name);

#endif /* DRA_GEN_CLUSTER_H */
