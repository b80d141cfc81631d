/*
 * replay.h - GPU trace replay (`drabench replay`): the Alibaba openb node and pod lists
 * (../shared/traces/alibaba-gpu-v2023, columns in its README) replayed arrival-only, as the FGD
 * simulator does, through a placement policy of core/policy and, optionally, the exact DRA
 * allocator for the GPUs inside the chosen node.
 *
 *  - Reading: strict CSV (a fixed header, no quoting, decimal integers in range, names that are
 *    DNS subdomains, GPU model names of [A-Za-z0-9._-]); every problem is "file:line: reason".
 *  - Objects: dra_replay_build_model turns the trace into v1 objects: a Node per node with
 *    status.allocatable cpu / memory, a DeviceClass, a ResourceSlice per GPU node whose devices
 *    carry the attribute `model` and a consumable capacity `milli` of 1000 and allow multiple
 *    allocations, and a ResourceClaim per GPU pod (num_gpu devices of the class, each consuming
 *    gpu_milli, or 1000 for whole GPUs and in device-plugin mode; gpu_spec as a CEL selector on
 *    the model).
 *  - Replay (dra_replay_run): pods shuffled and re-sampled with the seed until the submitted GPU
 *    demand reaches tune x capacity; each pod placed by the policy (node resources first, as
 *    NodeResourcesFit); the curve recorded at every 10% of arrived demand. At most
 *    DRA_REPLAY_MAX_SUBMITTED pods are submitted per replay: a trace whose capacity needs more
 *    copies of its pods than that (many GPUs, pods of a few milli) is refused with DRA_ELIMIT
 *    and the figures, before any placement. Surplus pods are removed in O(n log n).
 *
 * Ownership: a dra_replay_trace_t owns its arrays and strings (dra_replay_trace_fini). A
 * dra_replay_dra_t owns its model, CEL cache and features (dra_replay_dra_fini); runs borrow it.
 * Errors: DRA_OK, DRA_EPARSE (bad input; diag names file:line and the reason), DRA_EIO (cannot
 * read), DRA_ENOMEM, DRA_EINVAL (bad options), DRA_EINTERNAL (a placement the node state
 * rejects, or a DRA result naming a device outside the chosen node). A node the summaries admit
 * but the DRA allocator refuses is skipped for that pod and counted (result.dra_refused).
 * Cost: reading O(file); a run O(pods x nodes) plus the DRA allocator's per-call cost on chosen
 * nodes. Deterministic: same trace, options and seed, same curve. Not thread-safe.
 */
#ifndef DRA_REPLAY_H
#define DRA_REPLAY_H

#include <stdbool.h>
#include <stdint.h>

#include "alloc/alloc.h"
#include "base/err.h"
#include "model/model.h"
#include "policy/policy.h"

#define DRA_REPLAY_DRIVER "gpu.openb.drabench.dev"
#define DRA_REPLAY_MAX_POINTS 31 /* tune <= 3.0 */
/* Pods one replay (one policy, seed, device choice and mode) may submit after resampling: 25
 * times the largest openb pod list at tune 3 (about 40,000). */
#define DRA_REPLAY_MAX_SUBMITTED 1000000u

typedef struct dra_replay_node {
    const char *name;
    int64_t cpu_milli, mem_mib;
    uint32_t ngpu;
    uint32_t model; /* index into trace.models (ngpu > 0) */
    uint32_t line;
} dra_replay_node_t;

typedef struct dra_replay_pod {
    const char *name;
    int64_t cpu_milli, mem_mib;
    uint32_t num_gpu, gpu_milli;
    uint64_t models;  /* acceptable models (bits over trace.models); 0 = any */
    const char *spec; /* gpu_spec as written ("" = any) */
    uint32_t line;
} dra_replay_pod_t;

typedef struct dra_replay_trace {
    dra_replay_node_t *nodes;
    uint32_t nnodes;
    dra_replay_pod_t *pods;
    uint32_t npods;
    char *models[DRA_POL_MAX_MODELS];
    uint32_t nmodels;
    char **strs; /* every string the trace owns */
    uint32_t nstrs, cap_strs;
} dra_replay_trace_t;

DRA_NODISCARD int dra_replay_read_nodes(dra_replay_trace_t *t, const char *path, dra_diag_t *diag);
DRA_NODISCARD int dra_replay_read_pods(dra_replay_trace_t *t, const char *path, dra_diag_t *diag);
/* The same from a buffer (file names the input in diagnostics). */
DRA_NODISCARD int dra_replay_parse_nodes(dra_replay_trace_t *t, const char *file, const char *buf,
                                         size_t len, dra_diag_t *diag);
DRA_NODISCARD int dra_replay_parse_pods(dra_replay_trace_t *t, const char *file, const char *buf,
                                        size_t len, dra_diag_t *diag);
void dra_replay_trace_fini(dra_replay_trace_t *t);

typedef enum dra_replay_choice {
    DRA_REPLAY_CHOICE_POLICY = 0,
    DRA_REPLAY_CHOICE_DRA
} dra_replay_choice_t;
typedef enum dra_replay_mode {
    DRA_REPLAY_MODE_DRA = 0,
    DRA_REPLAY_MODE_DEVICE_PLUGIN
} dra_replay_mode_t;

const char *dra_replay_choice_name(dra_replay_choice_t c);
const char *dra_replay_mode_name(dra_replay_mode_t m);

/* Trace -> model (m initialised by the caller). device_plugin: every GPU request takes 1000. */
DRA_NODISCARD int dra_replay_build_model(const dra_replay_trace_t *t, bool device_plugin,
                                         dra_model_t *m);

/* What --device-choice dra needs: the model of the trace and its claims (claim[i] for pod i,
 * NULL for CPU-only pods). */
typedef struct dra_replay_dra {
    dra_model_t model;
    dra_claim_t **claim;
    dra_alloc_features_t features;
    dra_cel_cache_t *cel;
} dra_replay_dra_t;

DRA_NODISCARD int dra_replay_dra_init(dra_replay_dra_t *d, const dra_replay_trace_t *t,
                                      bool device_plugin);
void dra_replay_dra_fini(dra_replay_dra_t *d);

typedef struct dra_replay_opts {
    dra_pol_kind_t policy;
    dra_replay_choice_t choice;
    dra_replay_mode_t mode;
    double tune; /* 0.1 <= tune <= 3 */
    uint64_t seed;
} dra_replay_opts_t;

typedef enum dra_replay_reason {
    DRA_REPLAY_UNSCHED_CPU_MEMORY = 0, /* GPU and model would fit somewhere; cpu/memory do not */
    DRA_REPLAY_UNSCHED_GPU_MODEL,      /* no node has the model(s) and enough GPUs at all */
    DRA_REPLAY_UNSCHED_GPU_CAPACITY,   /* nodes fit cpu/memory and the model but lack free GPU */
    DRA_REPLAY_UNSCHED_COUNT
} dra_replay_reason_t;

const char *dra_replay_reason_name(dra_replay_reason_t r);

typedef struct dra_replay_point {
    double arrived_pct;     /* the checkpoint: 0, 10, ..., 10 * floor(10 * tune) */
    double alloc_pct;       /* GPU milli allocated / capacity */
    double frag_ratio_pct;  /* fragmented milli / idle milli */
    double frag_amount_pct; /* fragmented milli / capacity */
    double served_pct;      /* GPU milli requested by the scheduled pods / capacity */
} dra_replay_point_t;

typedef struct dra_replay_result {
    uint32_t npoints;
    dra_replay_point_t pt[DRA_REPLAY_MAX_POINTS];
    uint64_t submitted, scheduled;
    uint64_t unsched[DRA_REPLAY_UNSCHED_COUNT];
    uint64_t dra_calls;   /* dra_fast_allocate calls (--device-choice dra) */
    uint64_t dra_refused; /* nodes the summaries admitted but the allocator refused */
    int64_t submitted_milli, capacity_milli;
    uint32_t nclasses;  /* typical classes of the fragmentation measure */
    double seconds;     /* wall time of the replay loop (re-sampling excluded) */
    double cpu_seconds; /* CPU time of this process over the same loop */
} dra_replay_result_t;

/* One replay. dra is required for choice DRA (built with device_plugin == (mode ==
 * DEVICE_PLUGIN)), ignored otherwise. */
DRA_NODISCARD int dra_replay_run(const dra_replay_trace_t *t, const dra_replay_opts_t *o,
                                 dra_replay_dra_t *dra, dra_replay_result_t *out, dra_diag_t *diag);

#endif /* DRA_REPLAY_H */
