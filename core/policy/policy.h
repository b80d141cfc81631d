/*
 * policy.h - node scoring and GPU choice for trace replay (drabench replay): the placement
 * policies of the FGD paper's evaluation, over a compact per-node GPU model.
 *
 * Sources. Weng et al., "Beware of Fragmentation: Scheduling GPU-Sharing Workloads with
 * Fragmentation Gradient Descent", USENIX ATC '23, and its simulator
 * hkust-adsl/kubernetes-scheduler-simulator (the pkg/simulator/plugin score plugins,
 * pkg/utils/frag.go, pkg/type/resource.go, pkg/simulator/plugin/open_gpu_share.go). The definitions
 * below follow that code (re-implemented here, see core/policy/README.md for each formula):
 *  - random:          one feasible node drawn uniformly (RandomScore's PreScore); a share goes to
 *                     a GPU drawn uniformly among those it fits on (gpusel random).
 *  - dot-product:     Tetris' alignment score over [cpu, total GPU milli] normalised by the
 *                     largest node spec (128 cores, 8 GPUs): 100 * (1 - (left . req) / 2).
 *  - gpu-clustering:  pods of the same GPU shape (share, 1-GPU, 2-GPU, ...) are kept together:
 *                     quarter bands by the node's affinity set, then by GPU milli in use.
 *  - gpu-packing:     shared GPUs first, then free GPUs on used nodes, then empty nodes.
 *  - best-fit:        the least leftover of cpu and GPU milli (weights 0.5 / 0.5).
 *  - fgd:             the node (and, for a share, the GPU) whose fragmentation grows least;
 *                     score = 100 * sigmoid((frag_before - frag_after) / 1000).
 *  - first-fit, spread: drabench's own (runner.h): the first feasible node in node order; the
 *                     feasible node with the fewest GPUs in use, ties by node order.
 * Scores are the simulator's integers (0..100, truncated); among nodes with the highest score
 * the first in node order wins (the simulator's vendored selectHost keeps the lexicographically
 * smallest node name; the openb lists are sorted by name). best-fit's min-max normalisation is
 * omitted: it never changes which nodes hold the highest score.
 *
 * GPUs inside the chosen node ("device choice policy"): whole-GPU pods take the first free GPUs
 * in device order; a share goes to the GPU the policy names (fgd: best score, first index among
 * equal scores; random: uniform; every other policy: the fitting GPU with the least milli left,
 * first index among equals), as Open-Gpu-Share's Reserve does.
 *
 * Fragmentation (frag.go's NodeGpuShareFragAmount minus Q3): for each typical task class c with
 * frequency f_c, a node strands all its idle GPU milli if c cannot land there (no access to the
 * model, too few fitting GPUs, too little cpu, or c is CPU-only), otherwise the idle milli of its
 * GPUs with less free milli than c's per-GPU request. frag(node) = sum_c f_c * stranded_c. It is
 * kept per node and for the cluster incrementally (recomputed only for the node a pod lands on),
 * memoised per node state (model, cpu left, multiset of free milli), so equal nodes cost one
 * evaluation. Amounts are exact integers in units of (class count x milli); divide by
 * dra_pol_t.class_total for milli.
 *
 * Ownership: dra_pol_t owns its node array, classes and memo table (malloc); dra_pol_fini frees
 * them. Inputs are copied. Errors: DRA_OK, DRA_ENOMEM, DRA_EINVAL (bad spec: more than
 * DRA_POL_MAX_GPUS GPUs, a model id >= DRA_POL_MAX_MODELS, milli outside 1..1000).
 * Cost: dra_pol_pick is O(nodes) for every policy (fgd: plus one memo lookup per distinct free
 * milli value on each new node state); dra_pol_place is O(GPUs of the node x classes) at most.
 * The memo table grows with the number of distinct node states (malloc on growth only).
 * Deterministic: same inputs and seed, same picks. Not thread-safe; no I/O.
 */
#ifndef DRA_POLICY_H
#define DRA_POLICY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/err.h"

#define DRA_POL_MAX_GPUS 16
#define DRA_POL_MAX_MODELS 64
#define DRA_POL_MILLI 1000

typedef enum dra_pol_kind {
    DRA_POL_FIRST_FIT = 0,
    DRA_POL_SPREAD,
    DRA_POL_RANDOM,
    DRA_POL_DOT_PRODUCT,
    DRA_POL_GPU_CLUSTERING,
    DRA_POL_GPU_PACKING,
    DRA_POL_BEST_FIT,
    DRA_POL_FGD,
    DRA_POL_COUNT
} dra_pol_kind_t;

/* "first-fit", "spread", "random", "dot-product", "gpu-clustering", "gpu-packing", "best-fit",
 * "fgd" <-> kind. parse returns DRA_EINVAL for anything else. */
const char *dra_pol_kind_name(dra_pol_kind_t k);
DRA_NODISCARD int dra_pol_kind_parse(const char *s, dra_pol_kind_t *out);

/* What a pod asks for. num_gpu == 0: CPU-only (gpu_milli 0). num_gpu == 1 and gpu_milli < 1000:
 * a share of one GPU. Otherwise num_gpu whole GPUs (gpu_milli 1000). models: bit i set = GPU
 * model i acceptable; 0 = any model. */
typedef struct dra_pol_pod {
    int64_t cpu_milli;
    int64_t mem_mib;
    uint32_t num_gpu;
    uint32_t gpu_milli;
    uint64_t models;
} dra_pol_pod_t;

/* A typical task class for fragmentation: a pod shape and how many pods of the workload have it
 * (mem is not part of the class, as in the simulator). */
typedef struct dra_pol_class {
    dra_pol_pod_t pod;
    uint64_t count;
} dra_pol_class_t;

/* A node as given: allocatable cpu / memory, GPUs (all of one model) and their free milli. */
typedef struct dra_pol_node_spec {
    int64_t cpu_milli;
    int64_t mem_mib;
    uint32_t ngpu;
    uint32_t model; /* < DRA_POL_MAX_MODELS; ignored when ngpu == 0 */
} dra_pol_node_spec_t;

typedef struct dra_pol_node {
    int64_t cpu_cap, mem_cap, cpu_left, mem_left;
    uint32_t ngpu, model;
    uint16_t left[DRA_POL_MAX_GPUS];    /* free milli per GPU, device order */
    uint32_t in_use;                    /* GPUs with any milli allocated */
    uint32_t nfree;                     /* GPUs fully free */
    uint16_t max_left;                  /* largest free milli of one GPU */
    uint32_t aff[DRA_POL_MAX_GPUS + 1]; /* pods placed by GPU shape: [0] shares, [k] k-GPU pods */
    uint32_t naff;                      /* shapes with a non-zero count */
    uint32_t state; /* memo entry of the current state (fgd and fragmentation) */
    int64_t frag;   /* stranded amount, class units */
} dra_pol_node_t;

typedef struct dra_pol_memo dra_pol_memo_t;

typedef struct dra_pol {
    dra_pol_kind_t kind;
    dra_pol_node_t *nodes;
    uint32_t nnodes;
    dra_pol_class_t *classes;
    uint32_t nclasses;
    uint64_t class_total; /* sum of the classes' counts (divides class units into milli) */
    uint64_t rng;         /* splitmix64 state */
    dra_pol_memo_t *memo;
    int64_t frag_total;    /* sum of nodes' frag, class units */
    int64_t gpu_milli_cap; /* sum of GPUs x 1000 */
    int64_t gpu_milli_used;
    uint64_t pick_stamp; /* per-pick stamp for the memo's score cache */
} dra_pol_t;

/* Copies nodes and classes. classes may be NULL / 0: fragmentation is then 0 everywhere and fgd
 * scores every node 50 (ties broken at random). */
DRA_NODISCARD int dra_pol_init(dra_pol_t *p, dra_pol_kind_t kind, const dra_pol_node_spec_t *nodes,
                               uint32_t nnodes, const dra_pol_class_t *classes, uint32_t nclasses,
                               uint64_t seed);
void dra_pol_fini(dra_pol_t *p);

/* The simulator's typical classes: distinct shapes of pods[] (cpu, per-GPU milli, GPU count,
 * models) by decreasing count (ties: larger cpu, milli, count, models first), the smallest prefix
 * covering >= 95% of the pods. out must hold n entries; *nout = the number chosen.
 * DRA_OK or DRA_ENOMEM. */
DRA_NODISCARD int dra_pol_typical_classes(const dra_pol_pod_t *pods, uint32_t n,
                                          dra_pol_class_t *out, uint32_t *nout);

/* Pick a node for pod among feasible nodes whose skip[] entry is 0 (skip may be NULL) and the
 * policy's GPUs for it (gpus[0..num_gpu), device indexes). Returns true when a node was found.
 * Advances the random stream (random ties / random policy). */
bool dra_pol_pick(dra_pol_t *p, const dra_pol_pod_t *pod, const uint8_t *skip, uint32_t *node,
                  uint32_t gpus[DRA_POL_MAX_GPUS]);

/* The policy's integer score of node for pod (the node must be feasible): the value dra_pol_pick
 * compares. first-fit and random: 0 (they do not score); spread: minus the GPUs in use. */
int32_t dra_pol_score(dra_pol_t *p, uint32_t node, const dra_pol_pod_t *pod);

/* Apply a placement: cpu, memory, and pod->gpu_milli (1000 for whole GPUs) taken from each GPU of
 * gpus[0..num_gpu) on node; updates affinity, the node's fragmentation and the totals.
 * DRA_EINVAL (nothing changed) when it does not fit. */
DRA_NODISCARD int dra_pol_place(dra_pol_t *p, uint32_t node, const dra_pol_pod_t *pod,
                                const uint32_t *gpus);

/* Fragmentation of one node state computed from scratch (class units); for tests and checks. */
int64_t dra_pol_frag_of(const dra_pol_t *p, const dra_pol_node_t *n);

/* Cluster idle GPU milli (capacity - used). */
static inline int64_t dra_pol_idle_milli(const dra_pol_t *p)
{
    return p->gpu_milli_cap - p->gpu_milli_used;
}

/* Random draw in [0, n) from the policy's stream (n > 0). */
uint32_t dra_pol_rand(dra_pol_t *p, uint32_t n);

#endif /* DRA_POLICY_H */
