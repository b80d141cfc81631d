/*
 * scenario.h - drabench scenarios (DESIGN §6): load, validate, and build into a model.
 *
 * A scenario is one YAML document:
 *   apiVersion: drabench.dev/v1alpha1
 *   kind: Scenario
 *   metadata: {name: default, description: "..."}
 *   spec:
 *     seed: 1                      # 64-bit; --seed overrides
 *     release: "1.37"              # 1.34 | 1.35 | 1.36 | 1.37 | 1.38-pre (default 1.37)
 *     features: {DRAConsumableCapacity: true}   # upstream feature-gate names
 *     cluster:
 *       nodes:                     # node groups, emitted in order
 *       - profile: dgx-h100        # drabench gen --list shows the profiles
 *         count: 16
 *         name: dgx                # node name prefix (default: the profile name)
 *         params: {gpus: 8, nics: 8, productName: "...", memory: 80Gi, driverVersion: 550.163.1,
 *                  migLayout: all-1g|half-balanced|mixed, counterLayout: "1.34"|"1.35",
 *                  partitions: spx|cpx, devices: 10, rackSize: 18, channels: 1,
 *                  scope: allNodes|nodeSelector, selector: {key: k, value: v}, labels: {k: v}}
 *       manifests: [extra.yaml]    # relative to the scenario file; read by the caller
 *     workload:
 *       mode: fill | steady
 *       count: 5000                # arrivals
 *       stopAfter: 100             # fill: consecutive misfits that end it (0 = never)
 *       rate: 2000                 # steady: arrivals per second
 *       lifetime: {distribution: exponential, mean: 5}  # | constant {value} | uniform {min, max}
 *       mix:
 *       - {shape: gpu-1, weight: 4}
 *       - {shape: gpu-n, count: 8, weight: 1}
 *       - {shape: mig-1g.10gb, weight: 2}
 *       - {shape: shared, share: 4, weight: 1}
 *       - weight: 1
 *         template:                # an inline ResourceClaimTemplate
 *           name: two-close-gpus
 *           requests:
 *           - {name: gpu, deviceClassName: gpu.nvidia.com, count: 2,
 *              selectors: ["device.attributes['gpu.nvidia.com'].productName == 'NVIDIA H100 80GB HBM3'"]}
 *           constraints:
 *           - {matchAttribute: resource.kubernetes.io/pcieRoot, requests: [gpu]}
 *       deviceTaints:              # device health events (optional; see below)
 *         {every: 100, hold: 50, effect: NoSchedule, key: example.com/unhealthy, value: "true"}
 *     placement: first-fit | best-fit | spread | random
 *     run: {warmup: 100, repetitions: 3, invariants: all | sampled | off, sampleRate: 0.01}
 * Shape entry keys: shape, weight, count, migProfile, sameParent, memory, class, constraint,
 * share, name, requests, expect. `expect: unsatisfiable` says the entry fits no node on purpose
 * (unsat-storm): `run` does not warn that every pod of it is unsatisfiable and `validate`
 * checks that it indeed fits no node of the empty cluster. `requests: {cpu: 500m, memory: 2Gi}` (either optional, default none)
 * are each pod's node resources, checked against the nodes' status.allocatable by the placement
 * engine (core/engine/engine.h; `memory` alone is the memory-share shape's device capacity);
 * not with share (a pod joining a shared claim is not placed). A request of an inline template takes name, deviceClassName, count,
 * allocationMode (ExactCount | All), selectors (CEL strings), adminAccess, capacity (name ->
 * quantity); a constraint takes requests and matchAttribute or distinctAttribute.
 * deviceTaints: a driver marking a device unhealthy republishes its ResourceSlice with a taint on
 * it, and republishes it without once the device is healthy again. Every `every` arrivals
 * (1..2^40, required) the runner picks a node that has devices in node-local slices, uniformly,
 * then one of its GPUs (a device whose attribute `type` is gpu or amdgpu; any of its devices when
 * it has none), uniformly, both from their own random stream of the seed, and republishes the
 * slice with the taint {key, value, effect} added to that device; `hold` arrivals later (1..2^40,
 * required) it republishes the slice with the device's taints as they were. key is required (a
 * non-empty name), value optional, effect NoSchedule (default), NoExecute or None. A device
 * already tainted by an earlier event that still holds is not picked again (up to 8 draws, then
 * the event is skipped). Allocations of a tainted device stay (no eviction). Each republication
 * goes through the model, the device table and the placement engine incrementally (runner.h).
 * Unknown fields are errors; every error reads "file:line:col: spec.path: reason".
 *
 * Built-in scenarios are the files corpora/scenarios/<name>.yaml compiled into the binary;
 * dra_scenario_load_named accepts such a name or a path.
 *
 * Ownership: a dra_scenario_t owns an arena with all its strings and parse tree
 * (dra_scenario_fini; on error nothing is kept and fini is optional). Errors: DRA_EPARSE, DRA_EINVAL (bad scenario, diag filled), DRA_EIO,
 * DRA_ENOTFOUND (no such built-in or file), DRA_ENOMEM. Not thread-safe.
 */
#ifndef DRA_SCENARIO_H
#define DRA_SCENARIO_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/arena.h"
#include "base/err.h"
#include "gen/cluster.h"
#include "gen/shapes.h"
#include "gen/workload.h"
#include "group/group.h"
#include "model/model.h"

/* The largest count a scenario (and `run --count`, `--warmup`, `--both-prefix`) may give:
 * workload.count, stopAfter, run.warmup, deviceTaints.every / hold. */
#define DRA_SCENARIO_COUNT_MAX (UINT64_C(1) << 40)

typedef enum dra_placement {
    DRA_PLACE_FIRST_FIT = 0,
    DRA_PLACE_BEST_FIT,
    DRA_PLACE_SPREAD,
    DRA_PLACE_RANDOM
} dra_placement_t;

typedef enum dra_inv_mode { DRA_INV_ALL = 0, DRA_INV_SAMPLED, DRA_INV_OFF } dra_inv_mode_t;

typedef struct dra_feature {
    const char *name;
    bool on;
} dra_feature_t;

/* A group claim of a group mix entry (PodGroup spec.resourceClaims). */
typedef struct dra_scenario_gclaim {
    const char *name;         /* the PodGroup's entry name (a DNS label) */
    dra_shape_spec_t shape;   /* kind DRA_SHAPE_INLINE for inline templates */
    const void *inline_node;
} dra_scenario_gclaim_t;

/* mix[].group: every arrival of the entry is a PodGroup of `pods` pods (0: not a group). */
typedef struct dra_scenario_group {
    uint32_t pods;
    bool gang;                /* policy gang (default) or basic */
    uint32_t min_count;       /* gang: 1..pods (default pods); basic: 1 */
    const char *topology_key; /* NULL: no topology constraint */
    dra_scenario_gclaim_t *claims;
    uint32_t nclaims;         /* <= DRA_GROUP_MAX_GCLAIMS */
    uint32_t line, column;    /* of the `group` key, for errors found when the gates are known */
} dra_scenario_group_t;

typedef struct dra_scenario_mix {
    dra_shape_spec_t shape;   /* kind DRA_SHAPE_INLINE for inline templates */
    double weight;
    const void *inline_node;  /* inline template (a dra_ynode_t owned by the scenario) */
    int64_t cpu_milli;        /* requests.cpu of each pod (millicores, rounded up); 0: none */
    int64_t memory_bytes;     /* requests.memory of each pod (bytes, rounded up); 0: none */
    bool expect_unsat;        /* `expect: unsatisfiable`: no node may take it (on purpose) */
    const void *node;         /* the entry's YAML node (a dra_ynode_t owned by the scenario):
                                 positions of its fields for diagnostics */
    dra_scenario_group_t group;
} dra_scenario_mix_t;

/* spec.workload.deviceTaints (every == 0: no health events). */
typedef struct dra_scenario_taints {
    uint64_t every, hold;
    const char *key, *value; /* value NULL when absent */
    int effect;              /* dra_taint_effect_t: NoSchedule, NoExecute or None */
    const char *effect_raw;  /* "NoSchedule", "NoExecute", "None" */
} dra_scenario_taints_t;

typedef struct dra_scenario {
    dra_arena_t arena;
    const char *file;        /* as given ("<builtin>/scenarios/x.yaml" for built-ins) */
    const char *name, *description;
    uint64_t hash;           /* XXH3-64 of the scenario text */
    uint64_t seed;
    int release;             /* dra_release_t: 134 ... 138 (1.38-pre) */
    dra_feature_t *features;
    uint32_t nfeatures;
    dra_gen_group_t *groups;
    uint32_t ngroups;
    const char **manifests;  /* resolved against the scenario file's directory */
    uint32_t nmanifests;
    dra_wl_mode_t mode;
    uint64_t count, stop_after;
    double rate;
    dra_dist_t lifetime;
    dra_scenario_mix_t *mix;
    uint32_t nmix;
    dra_placement_t placement;
    uint64_t warmup;
    uint32_t repetitions;
    dra_inv_mode_t invariants;
    double sample_rate;
    dra_scenario_taints_t taints;
    const void *root;        /* the document's YAML root (a dra_ynode_t owned by the scenario):
                                positions of fields for diagnostics (validate) */
} dra_scenario_t;

/* Parse and validate scenario text. */
DRA_NODISCARD int dra_scenario_load(dra_scenario_t *s, const char *buf, size_t len,
                                    const char *file, dra_diag_t *diag);
/* A built-in name ("default", "fleet-5k") or a file path. */
DRA_NODISCARD int dra_scenario_load_named(dra_scenario_t *s, const char *name_or_path,
                                          dra_diag_t *diag);
void dra_scenario_fini(dra_scenario_t *s);
/* True when s holds what dra_scenario_load guarantees: a release profile, >= 1 node group (or
 * cluster manifests only),
 * 1..256 mix entries with positive finite weights and known shapes (inline ones with their
 * template), a known mode, placement and invariant mode, steady mode with a positive rate and
 * lifetime, >= 1 repetition, sampleRate in (0, 1]. O(groups + mix). Debug builds (DRA_DEBUG >= 2)
 * assert it when load succeeds and at the entry of dra_scenario_build. */
bool dra_scenario_check(const dra_scenario_t *s);

/* Names of the built-in scenarios, in table order; returns how many (up to max). */
size_t dra_scenario_builtins(const char **names, size_t max);

/* What dra_scenario_build produced. */
typedef struct dra_scenario_built {
    dra_gen_cluster_stats_t cluster;
    dra_claim_t **templates;   /* per mix entry (malloc'd, free with dra_scenario_built_fini) */
    /* group claims' templates: gtemplates[mix * DRA_GROUP_MAX_GCLAIMS + k] (NULL beyond a group
     * entry's claims) */
    dra_claim_t **gtemplates;
    dra_wl_mix_t *wmix;        /* per mix entry: shape = mix index, weight, share */
    dra_workload_spec_t workload;
} dra_scenario_built_t;

/* Build the cluster (seed: the scenario's unless override_seed), the shapes' templates and
 * classes into m, and the workload spec. Extra manifests are NOT read here
 * (dra_scenario_read_manifests reads and checks them). */
DRA_NODISCARD int dra_scenario_build(const dra_scenario_t *s, dra_model_t *m, uint64_t seed,
                                     dra_scenario_built_t *out, dra_diag_t *diag);

/* Read the scenario's extra manifests (s->manifests: spec.cluster.manifests, or run --cluster)
 * into m, which holds what dra_scenario_build made, and check the result as `drabench validate
 * --cluster` does: the API server's limits bound what a benchmark holds and does (a 5,000-device
 * slice, a taint value of a kilobyte are refused, not run). Every problem goes to errs.
 * Returns DRA_OK, the reader's error (DRA_EPARSE, DRA_EIO, ...) or DRA_EVALIDATE. O(size of m). */
DRA_NODISCARD int dra_scenario_read_manifests(const dra_scenario_t *s, dra_model_t *m,
                                              dra_diag_list_t *errs);
void dra_scenario_built_fini(dra_scenario_built_t *b);

const char *dra_placement_name(dra_placement_t p);

#endif /* DRA_SCENARIO_H */
