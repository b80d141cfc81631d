/*
 * profiles.h - node profile catalog of the synthetic cluster generator.
 *
 * Purpose: each profile publishes the ResourceSlices a real DRA driver publishes for one node (or,
 * for the network pool, one pool) with attribute and capacity names, kinds and value shapes taken
 * from the real slices in ../shared/real-manifests/ (the `source` of each profile names the file;
 * dra_gen_profile_extensions lists the few attributes a profile adds on purpose). Slices are split
 * the way the drivers split them: one pool per node, one slice per driver, per GPU for dynamic MIG
 * (1.35+ layout: a counters-only slice plus one devices slice per GPU; 1.34 layout: counters and
 * devices together), at most 128 devices per slice and 64 when devices use taints or counters.
 *
 * Profiles (name: what one instance is):
 *   dgx-h100, dgx-h200   8 GPUs on NVSwitch (one NVLink domain per node, attribute cliqueID), 8
 *                        ConnectX NICs (dra.net) each sharing resource.kubernetes.io/pcieRoot with
 *                        one GPU
 *   gb200-nvl72          a compute tray of 4 GB200 GPUs; racks of rackSize (18) consecutive nodes
 *                        share one NVLink clique id; compute-domain.nvidia.com channel/daemon devices
 *   a100-mig-static, h100-mig-static    fixed MIG layouts (all-1g, half-balanced, mixed)
 *   a100-mig-dynamic, h100-mig-dynamic  partitionable GPUs: shared counters per GPU, every MIG
 *                        placement a device consuming them (H100 also announces the full GPU)
 *   mi300x               8 MI300X as full GPUs (SPX) or 8 CPX partitions each with parent attributes
 *   cpu-only             a Node without DRA devices
 *   net-pool             a network-attached pool (IMEX-channel-like devices) for allNodes, a
 *                        nodeSelector, or per value of a node label (scope perValue: `count`
 *                        pools for every value of the label among the nodes of the groups before
 *                        it, each selecting the nodes of that value, e.g. one per NVLink domain);
 *                        `count` is the number of pools, not of nodes
 *   sched-perf           the upstream scheduler_perf test driver node (test-driver.cdi.k8s.io)
 *   shared-gpu           dra-example-driver GPUs with allowMultipleAllocations and consumable
 *                        capacity (memory, compute)
 *   h100-mig-vgpu        h100-mig-dynamic plus 4 time-sliced vGPU devices per GPU (type vgpu,
 *                        20Gi of the GPU's memory counter each) on the same counter sets, with
 *                        Kubernetes 1.37's compatibilityGroups (KEP-5963): MIG placements in
 *                        group "mig", vGPUs in group "vgpu", so a GPU runs MIG or vGPUs, never
 *                        both (the full GPU declares none and takes the whole set). Needs
 *                        DRADeviceCompatibilityGroups (alpha, off by default in 1.37: with the
 *                        gate off the allocator skips every device that declares groups, and
 *                        under 1.38-pre leaves out the node's whole device slice); the
 *                        vGPU devices are a drabench extension (no real slice publishes them)
 *
 * Value sharing: identifiers that real drivers make unique per device (uuid, MAC) are drawn per
 * (node group, device position) and repeat on every node of the group, so that all nodes of a
 * group share one set of immutable attribute/capacity/counter arrays (50,000 nodes stay small).
 * Device, pool, slice and node names are unique. Allocation never keys on uuid values.
 *
 * Ownership: the catalog is static read-only data. Errors: none. Thread-safety: read-only.
 */
#ifndef DRA_GEN_PROFILES_H
#define DRA_GEN_PROFILES_H

#include <stdbool.h>
#include <stdint.h>

#include "model/model.h"

typedef enum dra_gen_profile {
    DRA_GEN_DGX_H100 = 0,
    DRA_GEN_DGX_H200,
    DRA_GEN_GB200_NVL72,
    DRA_GEN_A100_MIG_STATIC,
    DRA_GEN_H100_MIG_STATIC,
    DRA_GEN_A100_MIG_DYNAMIC,
    DRA_GEN_H100_MIG_DYNAMIC,
    DRA_GEN_MI300X,
    DRA_GEN_CPU_ONLY,
    DRA_GEN_NET_POOL,
    DRA_GEN_SCHED_PERF,
    DRA_GEN_SHARED_GPU,
    DRA_GEN_H100_MIG_VGPU,
    DRA_GEN_NPROFILES
} dra_gen_profile_t;

typedef enum dra_gen_mig_layout {
    DRA_GEN_MIG_ALL_1G = 0,     /* 7 smallest instances per GPU */
    DRA_GEN_MIG_HALF_BALANCED,  /* 2x 1g + 1x 2g + 1x 3g per GPU (NVIDIA's quickstart layout) */
    DRA_GEN_MIG_MIXED           /* GPU i: all-1g, half-balanced, 2x 3g, by i mod 3 */
} dra_gen_mig_layout_t;

typedef enum dra_gen_counter_layout {
    DRA_GEN_COUNTERS_SPLIT = 0, /* 1.35+: counters-only slice, then one devices slice per GPU */
    DRA_GEN_COUNTERS_COMBINED   /* 1.34: one slice per GPU with its counter set and devices */
} dra_gen_counter_layout_t;

typedef enum dra_gen_scope {
    DRA_GEN_SCOPE_ALL_NODES = 0,
    DRA_GEN_SCOPE_NODE_SELECTOR,
    DRA_GEN_SCOPE_PER_VALUE /* one set of pools per value of a node label (a rack-scoped fabric) */
} dra_gen_scope_t;

typedef struct dra_gen_profile_info {
    const char *name;    /* "dgx-h100" */
    const char *summary; /* one line */
    const char *source;  /* real slice imitated, relative to ../shared/real-manifests/ (NULL: none) */
    const char *driver;  /* main driver name (NULL for cpu-only) */
    bool per_node;       /* false for net-pool (instances are pools, not nodes) */
} dra_gen_profile_info_t;

/* Parameters of one node group; dra_gen_params_default fills the profile's defaults. Strings are
 * borrowed (must outlive cluster building; the model copies what it keeps). */
typedef struct dra_gen_params {
    uint32_t gpus;      /* GPUs per node (dgx 8, gb200 4, mig 8, mi300x 8) */
    uint32_t nics;      /* NICs per node (dgx 8; must be <= gpus to share PCIe roots) */
    uint32_t devices;   /* sched-perf devices per node (10), net-pool devices per pool (10),
                           shared-gpu GPUs per node (8) */
    uint32_t rack_size; /* gb200: nodes per NVLink clique (18); others: nodes per rack label value
                           when rack_label is set */
    const char *rack_label; /* NULL, or a label key every node gets with its rack's name,
                               "<prefix>-rack-<i / rack_size>" (topology-aware scheduling) */
    uint32_t channels;  /* gb200: compute-domain channel devices per node (1) */
    bool cpx;           /* mi300x: 8 CPX partitions per GPU instead of full GPUs */
    const char *product_name;   /* productName / model attribute */
    const char *memory;         /* per-GPU memory capacity (a Quantity) */
    const char *driver_version; /* driverVersion attribute (semver) */
    dra_gen_mig_layout_t mig_layout;
    dra_gen_counter_layout_t counter_layout;
    dra_gen_scope_t scope;      /* net-pool */
    const char *selector_key;   /* net-pool nodeSelector: key In [value]; perValue: the label key
                                   whose values (over the nodes built before) get pools each */
    const char *selector_value;
    const dra_label_t *labels;  /* extra labels on every node of the group */
    uint32_t nlabels;
} dra_gen_params_t;

/* Catalog access. dra_gen_profile_find returns DRA_ENOTFOUND for unknown names. */
const dra_gen_profile_info_t *dra_gen_profile_info(dra_gen_profile_t p);
DRA_NODISCARD int dra_gen_profile_find(const char *name, dra_gen_profile_t *out);
void dra_gen_params_default(dra_gen_profile_t p, dra_gen_params_t *out);

/* Attribute names (as written in the slice) a profile publishes beyond its source file, NULL-
 * terminated: drabench's deliberate extensions (e.g. the NVLink clique id), for the catalog test. */
const char *const *dra_gen_profile_extensions(dra_gen_profile_t p);

/* MIG profile names ("1g.10gb", ...) of the GPU model behind a MIG profile (A100-40GB for a100-*,
 * H100-80GB for h100-*), NULL-terminated; NULL for other profiles. */
const char *const *dra_gen_profile_mig_names(dra_gen_profile_t p);

#endif /* DRA_GEN_PROFILES_H */
