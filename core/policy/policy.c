/* policy.c - node scoring, GPU choice and incremental fragmentation (policy.h). */
#include "policy/policy.h"

#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* Largest node spec the simulator normalises by (gpushareutils.MaxSpecCpu / MaxSpecGpu). */
#define MAX_SPEC_CPU 128000.0
#define MAX_SPEC_GPU 8000.0
#define MAX_SCORE 100

static const char *const kind_names[DRA_POL_COUNT] = {
    "first-fit",      "spread",      "random",   "dot-product",
    "gpu-clustering", "gpu-packing", "best-fit", "fgd",
};

const char *dra_pol_kind_name(dra_pol_kind_t k)
{
    return (unsigned)k < DRA_POL_COUNT ? kind_names[k] : "unknown";
}

int dra_pol_kind_parse(const char *s, dra_pol_kind_t *out)
{
    for (int i = 0; i < DRA_POL_COUNT; i++)
        if (strcmp(s, kind_names[i]) == 0) {
            *out = (dra_pol_kind_t)i;
            return DRA_OK;
        }
    return DRA_EINVAL;
}

/* ---- random stream ----------------------------------------------------------------------------
 */

static uint64_t next_u64(uint64_t *s)
{
    uint64_t z = (*s += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

uint32_t dra_pol_rand(dra_pol_t *p, uint32_t n)
{
    return (uint32_t)(((next_u64(&p->rng) >> 32) * (uint64_t)n) >> 32);
}

/* ---- node states ------------------------------------------------------------------------------
 */

/* A node state as fragmentation sees it: model, cpu left and the multiset of free milli
 * (sorted descending, so equal multisets compare equal). */
typedef struct skey {
    int64_t cpu;
    uint16_t l[DRA_POL_MAX_GPUS];
    uint8_t n, model;
} skey_t;

static bool skey_eq(const skey_t *a, const skey_t *b)
{
    if (a->cpu != b->cpu || a->n != b->n || a->model != b->model)
        return false;
    for (uint32_t i = 0; i < a->n; i++)
        if (a->l[i] != b->l[i])
            return false;
    return true;
}

static uint64_t skey_hash(const skey_t *k)
{
    uint64_t h = (uint64_t)k->cpu * 0x9e3779b97f4a7c15ull ^ ((uint64_t)k->n << 56) ^
                 ((uint64_t)k->model << 48);
    for (uint32_t i = 0; i < k->n; i++) {
        h ^= k->l[i] + 0x9e3779b97f4a7c15ull + (h << 6) + (h >> 2);
    }
    h ^= h >> 33;
    h *= 0xff51afd7ed558ccdull;
    h ^= h >> 33;
    return h;
}

static void sort_desc(uint16_t *l, uint32_t n)
{
    for (uint32_t i = 1; i < n; i++) {
        uint16_t v = l[i];
        uint32_t j = i;
        while (j > 0 && l[j - 1] < v) {
            l[j] = l[j - 1];
            j--;
        }
        l[j] = v;
    }
}

static void key_of(const dra_pol_node_t *n, skey_t *k)
{
    memset(k, 0, sizeof *k);
    k->cpu = n->cpu_left;
    k->n = (uint8_t)n->ngpu;
    k->model = (uint8_t)n->model;
    memcpy(k->l, n->left, n->ngpu * sizeof k->l[0]);
    sort_desc(k->l, n->ngpu);
}

static bool model_ok(uint64_t models, uint32_t model)
{
    return models == 0 || ((models >> model) & 1u);
}

/* frag.go: NodeGpuShareFragAmount summed over every category but Q3, in class units. */
static int64_t frag_key(const dra_pol_t *p, const skey_t *k)
{
    int64_t idle = 0;
    for (uint32_t i = 0; i < k->n; i++)
        idle += k->l[i];
    if (idle == 0)
        return 0;
    int64_t total = 0;
    for (uint32_t c = 0; c < p->nclasses; c++) {
        const dra_pol_pod_t *cp = &p->classes[c].pod;
        int64_t g = idle; /* CPU-only class (XL/XR), no access, lacks GPU or cpu: all idle */
        if (cp->num_gpu > 0 && model_ok(cp->models, k->model) && k->cpu >= cp->cpu_milli) {
            uint32_t fit = 0;
            int64_t below = 0;
            for (uint32_t i = 0; i < k->n; i++) {
                if (k->l[i] >= cp->gpu_milli)
                    fit++;
                else
                    below += k->l[i];
            }
            if (fit >= cp->num_gpu)
                g = below; /* Q3: only GPUs too small for the class are stranded */
        }
        total += (int64_t)p->classes[c].count * g;
    }
    return total;
}

/* Realized states (interned, ids stable) and a direct-mapped cache of hypothetical ones. */
typedef struct sent {
    skey_t key;
    int64_t frag;
    uint64_t stamp; /* pick_stamp of the cached score */
    int32_t score;
} sent_t;

typedef struct hent {
    skey_t key;
    int64_t frag;
    bool valid;
} hent_t;

#define HCACHE_BITS 16

struct dra_pol_memo {
    sent_t *ent;
    uint32_t n, cap;
    uint32_t *idx;    /* open addressing: entry id + 1, 0 = empty */
    uint32_t idx_cap; /* power of two */
    hent_t *hc;       /* 1 << HCACHE_BITS entries */
};

static int memo_grow_idx(dra_pol_memo_t *m)
{
    uint32_t ncap = m->idx_cap ? m->idx_cap * 2 : 1024;
    uint32_t *ni = calloc(ncap, sizeof *ni);
    if (!ni)
        return DRA_ENOMEM;
    for (uint32_t e = 0; e < m->n; e++) {
        uint32_t h = (uint32_t)skey_hash(&m->ent[e].key) & (ncap - 1);
        while (ni[h])
            h = (h + 1) & (ncap - 1);
        ni[h] = e + 1;
    }
    free(m->idx);
    m->idx = ni;
    m->idx_cap = ncap;
    return DRA_OK;
}

/* The id of state k, interned with its fragmentation on first sight. */
static int memo_intern(dra_pol_t *p, const skey_t *k, uint32_t *id)
{
    dra_pol_memo_t *m = p->memo;
    if ((m->n + 1) * 2 > m->idx_cap && memo_grow_idx(m) != DRA_OK)
        return DRA_ENOMEM;
    uint32_t h = (uint32_t)skey_hash(k) & (m->idx_cap - 1);
    while (m->idx[h]) {
        if (skey_eq(&m->ent[m->idx[h] - 1].key, k)) {
            *id = m->idx[h] - 1;
            return DRA_OK;
        }
        h = (h + 1) & (m->idx_cap - 1);
    }
    if (m->n == m->cap) {
        uint32_t nc = m->cap ? m->cap * 2 : 256;
        sent_t *ne = realloc(m->ent, nc * sizeof *ne);
        if (!ne)
            return DRA_ENOMEM;
        m->ent = ne;
        m->cap = nc;
    }
    sent_t *e = &m->ent[m->n];
    e->key = *k;
    e->frag = frag_key(p, k);
    e->stamp = 0;
    e->score = 0;
    m->idx[h] = m->n + 1;
    *id = m->n++;
    return DRA_OK;
}

static int64_t frag_cached(dra_pol_t *p, const skey_t *k)
{
    hent_t *h = &p->memo->hc[skey_hash(k) & ((1u << HCACHE_BITS) - 1)];
    if (h->valid && skey_eq(&h->key, k))
        return h->frag;
    h->key = *k;
    h->frag = frag_key(p, k);
    h->valid = true;
    return h->frag;
}

int64_t dra_pol_frag_of(const dra_pol_t *p, const dra_pol_node_t *n)
{
    skey_t k;
    key_of(n, &k);
    return frag_key(p, &k);
}

/* ---- set-up -----------------------------------------------------------------------------------
 */

static void node_summary(dra_pol_node_t *n)
{
    n->in_use = 0;
    n->nfree = 0;
    n->max_left = 0;
    for (uint32_t i = 0; i < n->ngpu; i++) {
        if (n->left[i] < DRA_POL_MILLI)
            n->in_use++;
        else
            n->nfree++;
        if (n->left[i] > n->max_left)
            n->max_left = n->left[i];
    }
}

int dra_pol_init(dra_pol_t *p, dra_pol_kind_t kind, const dra_pol_node_spec_t *nodes,
                 uint32_t nnodes, const dra_pol_class_t *classes, uint32_t nclasses, uint64_t seed)
{
    memset(p, 0, sizeof *p);
    if ((unsigned)kind >= DRA_POL_COUNT)
        return DRA_EINVAL;
    for (uint32_t i = 0; i < nnodes; i++)
        if (nodes[i].ngpu > DRA_POL_MAX_GPUS ||
            (nodes[i].ngpu && nodes[i].model >= DRA_POL_MAX_MODELS))
            return DRA_EINVAL;
    for (uint32_t c = 0; c < nclasses; c++)
        if (classes[c].pod.gpu_milli > DRA_POL_MILLI || classes[c].pod.num_gpu > DRA_POL_MAX_GPUS)
            return DRA_EINVAL;
    p->kind = kind;
    p->rng = seed;
    p->nodes = calloc(nnodes ? nnodes : 1, sizeof *p->nodes);
    p->classes = calloc(nclasses ? nclasses : 1, sizeof *p->classes);
    p->memo = calloc(1, sizeof *p->memo);
    if (!p->nodes || !p->classes || !p->memo)
        goto nomem;
    p->memo->hc = calloc((size_t)1 << HCACHE_BITS, sizeof *p->memo->hc);
    if (!p->memo->hc)
        goto nomem;
    if (nclasses)
        memcpy(p->classes, classes, nclasses * sizeof *classes);
    p->nclasses = nclasses;
    for (uint32_t c = 0; c < nclasses; c++)
        p->class_total += classes[c].count;
    p->nnodes = nnodes;
    for (uint32_t i = 0; i < nnodes; i++) {
        dra_pol_node_t *n = &p->nodes[i];
        n->cpu_cap = n->cpu_left = nodes[i].cpu_milli;
        n->mem_cap = n->mem_left = nodes[i].mem_mib;
        n->ngpu = nodes[i].ngpu;
        n->model = nodes[i].ngpu ? nodes[i].model : 0;
        for (uint32_t g = 0; g < n->ngpu; g++)
            n->left[g] = DRA_POL_MILLI;
        node_summary(n);
        skey_t k;
        key_of(n, &k);
        if (memo_intern(p, &k, &n->state) != DRA_OK)
            goto nomem;
        n->frag = p->memo->ent[n->state].frag;
        p->frag_total += n->frag;
        p->gpu_milli_cap += (int64_t)n->ngpu * DRA_POL_MILLI;
    }
    return DRA_OK;
nomem:
    dra_pol_fini(p);
    return DRA_ENOMEM;
}

void dra_pol_fini(dra_pol_t *p)
{
    if (p->memo) {
        free(p->memo->ent);
        free(p->memo->idx);
        free(p->memo->hc);
        free(p->memo);
    }
    free(p->nodes);
    free(p->classes);
    memset(p, 0, sizeof *p);
}

/* ---- typical classes --------------------------------------------------------------------------
 */

static int shape_cmp(const dra_pol_pod_t *a, const dra_pol_pod_t *b)
{
    if (a->cpu_milli != b->cpu_milli)
        return a->cpu_milli < b->cpu_milli ? -1 : 1;
    if (a->gpu_milli != b->gpu_milli)
        return a->gpu_milli < b->gpu_milli ? -1 : 1;
    if (a->num_gpu != b->num_gpu)
        return a->num_gpu < b->num_gpu ? -1 : 1;
    if (a->models != b->models)
        return a->models < b->models ? -1 : 1;
    return 0;
}

static int shape_qcmp(const void *x, const void *y)
{
    return shape_cmp(x, y);
}

/* Decreasing count, then the larger shape first (sort.Reverse of the simulator's Less). */
static int class_qcmp(const void *x, const void *y)
{
    const dra_pol_class_t *a = x, *b = y;
    if (a->count != b->count)
        return a->count > b->count ? -1 : 1;
    return -shape_cmp(&a->pod, &b->pod);
}

int dra_pol_typical_classes(const dra_pol_pod_t *pods, uint32_t n, dra_pol_class_t *out,
                            uint32_t *nout)
{
    *nout = 0;
    if (n == 0)
        return DRA_OK;
    dra_pol_pod_t *tmp = malloc((size_t)n * sizeof *tmp);
    if (!tmp)
        return DRA_ENOMEM;
    for (uint32_t i = 0; i < n; i++) {
        tmp[i] = pods[i];
        tmp[i].mem_mib = 0; /* not part of a class */
    }
    qsort(tmp, n, sizeof *tmp, shape_qcmp);
    uint32_t nc = 0;
    for (uint32_t i = 0; i < n;) {
        uint32_t j = i;
        while (j < n && shape_cmp(&tmp[i], &tmp[j]) == 0)
            j++;
        nc++;
        i = j;
    }
    dra_pol_class_t *cls = malloc(nc * sizeof *cls);
    if (!cls) {
        free(tmp);
        return DRA_ENOMEM;
    }
    nc = 0;
    for (uint32_t i = 0; i < n;) {
        uint32_t j = i;
        while (j < n && shape_cmp(&tmp[i], &tmp[j]) == 0)
            j++;
        cls[nc].pod = tmp[i];
        cls[nc].count = j - i;
        nc++;
        i = j;
    }
    qsort(cls, nc, sizeof *cls, class_qcmp);
    /* GetTypicalPods with podPopularityThreshold 95, podIncreaseStep 1. */
    double expected = 95.0 * (double)n / 100.0, cum = 0;
    uint32_t k = 0;
    while (cum < expected && k < nc) {
        cum += (double)cls[k].count;
        k++;
    }
    memcpy(out, cls, k * sizeof *cls);
    free(cls);
    free(tmp);
    *nout = k;
    return DRA_OK;
}

/* ---- feasibility and scores -------------------------------------------------------------------
 */

static bool is_share(const dra_pol_pod_t *pod)
{
    return pod->num_gpu == 1 && pod->gpu_milli < DRA_POL_MILLI;
}

static inline bool feasible(const dra_pol_node_t *n, const dra_pol_pod_t *pod)
{
    if (n->cpu_left < pod->cpu_milli || n->mem_left < pod->mem_mib)
        return false;
    if (pod->num_gpu == 0)
        return true;
    if (n->ngpu < pod->num_gpu || !model_ok(pod->models, n->model))
        return false;
    if (is_share(pod))
        return n->max_left >= pod->gpu_milli;
    return n->nfree >= pod->num_gpu;
}

static int64_t total_left(const dra_pol_node_t *n)
{
    int64_t t = 0;
    for (uint32_t i = 0; i < n->ngpu; i++)
        t += n->left[i];
    return t;
}

static int64_t pod_milli_total(const dra_pol_pod_t *pod)
{
    return (int64_t)pod->gpu_milli * pod->num_gpu;
}

static int32_t sigmoid_score(const dra_pol_t *p, int64_t before, int64_t after)
{
    if (p->class_total == 0)
        return MAX_SCORE / 2;
    double x = ((double)(before - after) / (double)p->class_total) / 1000.0;
    return (int32_t)(1.0 / (1.0 + exp(-x)) * MAX_SCORE);
}

/* The state after one share of pod lands on a GPU with free milli v (k sorted descending). */
static void key_after_share(const skey_t *k, const dra_pol_pod_t *pod, uint16_t v, skey_t *out)
{
    *out = *k;
    out->cpu -= pod->cpu_milli;
    for (uint32_t i = 0; i < out->n; i++)
        if (out->l[i] == v) {
            out->l[i] = (uint16_t)(v - pod->gpu_milli);
            break;
        }
    sort_desc(out->l, out->n);
}

/* The state after a CPU-only or whole-GPU pod lands (free GPUs taken: zeros at the end). */
static void key_after_whole(const skey_t *k, const dra_pol_pod_t *pod, skey_t *out)
{
    *out = *k;
    out->cpu -= pod->cpu_milli;
    uint32_t need = pod->num_gpu;
    for (uint32_t i = 0; i < out->n && need; i++)
        if (out->l[i] == DRA_POL_MILLI) {
            out->l[i] = 0;
            need--;
        }
    sort_desc(out->l, out->n);
}

/* FGD: calculateGpuShareFragExtendScore, per node state (cached for this pick). */
static int32_t score_fgd(dra_pol_t *p, const dra_pol_node_t *n, const dra_pol_pod_t *pod)
{
    if (pod->cpu_milli == 0 && pod->mem_mib == 0 && pod->num_gpu == 0)
        return MAX_SCORE; /* no requests at all */
    sent_t *e = &p->memo->ent[n->state];
    if (e->stamp == p->pick_stamp)
        return e->score;
    skey_t k2;
    int32_t best = 0;
    if (is_share(pod)) {
        bool any = false;
        for (uint32_t i = 0; i < e->key.n; i++) {
            uint16_t v = e->key.l[i];
            if (v < pod->gpu_milli || (i > 0 && e->key.l[i - 1] == v))
                continue;
            key_after_share(&e->key, pod, v, &k2);
            int32_t sc = sigmoid_score(p, e->frag, frag_cached(p, &k2));
            if (!any || sc > best)
                best = sc;
            any = true;
        }
    } else {
        key_after_whole(&e->key, pod, &k2);
        best = sigmoid_score(p, e->frag, frag_cached(p, &k2));
    }
    e->stamp = p->pick_stamp;
    e->score = best;
    return best;
}

/* DotProductScore with dimExt merge, norm max. */
static int32_t score_dot(const dra_pol_node_t *n, const dra_pol_pod_t *pod)
{
    if (n->cpu_left < pod->cpu_milli)
        return 0;
    double dp =
        ((double)n->cpu_left / MAX_SPEC_CPU) * ((double)pod->cpu_milli / MAX_SPEC_CPU) +
        ((double)total_left(n) / MAX_SPEC_GPU) * ((double)pod_milli_total(pod) / MAX_SPEC_GPU);
    return (int32_t)(MAX_SCORE * (1.0 - dp / 2.0));
}

/* GpuClusteringScore: affinity bands of 25, then GPU milli in use within the band. */
static int32_t score_clustering(const dra_pol_node_t *n, const dra_pol_pod_t *pod)
{
    if (pod->num_gpu == 0)
        return 0;
    uint32_t tag = is_share(pod) ? 0 : pod->num_gpu;
    int64_t base =
        (int64_t)(MAX_SCORE / 4) * ((int64_t)MAX_SPEC_GPU - total_left(n)) / (int64_t)MAX_SPEC_GPU;
    if (n->aff[tag] > 0)
        return (int32_t)(base + (n->naff == 1 ? MAX_SCORE * 3 / 4 : MAX_SCORE * 2 / 4));
    return (int32_t)(base + (n->naff == 0 ? MAX_SCORE / 4 : 0));
}

/* GpuPackingScore: shared GPUs, then free GPUs of used nodes, then empty nodes. */
static int32_t score_packing(const dra_pol_node_t *n, const dra_pol_pod_t *pod)
{
    if (pod->gpu_milli == 0)
        return 0;
    int64_t free_n = n->nfree;
    if (n->nfree == n->ngpu) {
        int64_t s = MAX_SCORE / 3 - free_n;
        return (int32_t)(s > free_n ? s : free_n);
    }
    /* Walk GPUs by ascending free milli (stable by index), taking those the pod fits on. */
    uint32_t order[DRA_POL_MAX_GPUS];
    for (uint32_t i = 0; i < n->ngpu; i++) {
        uint32_t j = i;
        while (j > 0 && n->left[order[j - 1]] > n->left[i]) {
            order[j] = order[j - 1];
            j--;
        }
        order[j] = i;
    }
    uint32_t need = pod->num_gpu, free_use = 0;
    int64_t ratio = 0;
    for (uint32_t k = 0; k < n->ngpu && need; k++) {
        uint16_t l = n->left[order[k]];
        if (pod->gpu_milli <= l) {
            need--;
            if (l == DRA_POL_MILLI)
                free_use++;
            ratio += (int64_t)l * 100 / DRA_POL_MILLI;
        }
    }
    if (need)
        return 0;
    if (free_use > 0) {
        int64_t s = MAX_SCORE / 2 - (int64_t)free_use;
        return (int32_t)(s > MAX_SCORE / 3 ? s : MAX_SCORE / 3);
    }
    int64_t s = MAX_SCORE - ratio / 10;
    return (int32_t)(s > MAX_SCORE / 2 ? s : MAX_SCORE / 2);
}

/* BestFitScore: 100 * (1 - sum_i 0.5 * (free_i - req_i) / maxspec_i) over cpu and GPU milli. */
static int32_t score_best_fit(const dra_pol_node_t *n, const dra_pol_pod_t *pod)
{
    double fc = (double)n->cpu_left, fg = (double)total_left(n);
    double rc = (double)pod->cpu_milli, rg = (double)pod_milli_total(pod);
    if (fc < rc || fg < rg)
        return 0;
    double s = (fc - rc) / MAX_SPEC_CPU * 0.5 + (fg - rg) / MAX_SPEC_GPU * 0.5;
    return (int32_t)((1.0 - s) * MAX_SCORE);
}

static int32_t score_of(dra_pol_t *p, const dra_pol_node_t *n, const dra_pol_pod_t *pod)
{
    switch (p->kind) {
    case DRA_POL_SPREAD:
        return -(int32_t)n->in_use;
    case DRA_POL_DOT_PRODUCT:
        return score_dot(n, pod);
    case DRA_POL_GPU_CLUSTERING:
        return score_clustering(n, pod);
    case DRA_POL_GPU_PACKING:
        return score_packing(n, pod);
    case DRA_POL_BEST_FIT:
        return score_best_fit(n, pod);
    case DRA_POL_FGD:
        return score_fgd(p, n, pod);
    default:
        return 0;
    }
}

/* The policy's GPUs on node for pod (Open-Gpu-Share's Reserve with the policy's gpuSel). */
static void choose_gpus(dra_pol_t *p, const dra_pol_node_t *n, const dra_pol_pod_t *pod,
                        uint32_t *gpus)
{
    if (pod->num_gpu == 0)
        return;
    if (!is_share(pod)) { /* AllocateExclusiveGpuId: the first free GPUs by index */
        uint32_t k = 0;
        for (uint32_t i = 0; i < n->ngpu && k < pod->num_gpu; i++)
            if (n->left[i] == DRA_POL_MILLI)
                gpus[k++] = i;
        return;
    }
    uint32_t best = UINT32_MAX;
    if (p->kind == DRA_POL_RANDOM) {
        uint32_t cnt = 0;
        for (uint32_t i = 0; i < n->ngpu; i++)
            if (n->left[i] >= pod->gpu_milli && dra_pol_rand(p, ++cnt) == 0)
                best = i;
    } else if (p->kind == DRA_POL_FGD) {
        skey_t k, k2;
        key_of(n, &k);
        int64_t before = p->memo->ent[n->state].frag;
        int32_t bs = 0;
        for (uint32_t i = 0; i < n->ngpu; i++) {
            if (n->left[i] < pod->gpu_milli)
                continue;
            key_after_share(&k, pod, n->left[i], &k2);
            int32_t sc = sigmoid_score(p, before, frag_cached(p, &k2));
            if (best == UINT32_MAX || sc > bs) {
                bs = sc;
                best = i;
            }
        }
    } else { /* allocateGpuIdBasedOnBestFit: least free milli that fits, first index */
        for (uint32_t i = 0; i < n->ngpu; i++)
            if (n->left[i] >= pod->gpu_milli && (best == UINT32_MAX || n->left[i] < n->left[best]))
                best = i;
    }
    gpus[0] = best;
}

int32_t dra_pol_score(dra_pol_t *p, uint32_t node, const dra_pol_pod_t *pod)
{
    p->pick_stamp++; /* a fresh score, not one cached for an earlier pod */
    return score_of(p, &p->nodes[node], pod);
}

bool dra_pol_pick(dra_pol_t *p, const dra_pol_pod_t *pod, const uint8_t *skip, uint32_t *node,
                  uint32_t gpus[DRA_POL_MAX_GPUS])
{
    p->pick_stamp++;
    uint32_t chosen = UINT32_MAX, cnt = 0;
    int32_t best = INT32_MIN;
    for (uint32_t i = 0; i < p->nnodes; i++) {
        if ((skip && skip[i]) || !feasible(&p->nodes[i], pod))
            continue;
        if (p->kind == DRA_POL_FIRST_FIT) {
            chosen = i;
            break;
        }
        if (p->kind == DRA_POL_RANDOM) {
            if (dra_pol_rand(p, ++cnt) == 0)
                chosen = i;
            continue;
        }
        /* The simulator's selectHost keeps the smallest node name among equal highest scores
         * (its vendored scheduler, "for reproducibility"): the first in node order here. */
        int32_t s = score_of(p, &p->nodes[i], pod);
        if (s > best) {
            best = s;
            chosen = i;
        }
    }
    if (chosen == UINT32_MAX)
        return false;
    *node = chosen;
    choose_gpus(p, &p->nodes[chosen], pod, gpus);
    return true;
}

int dra_pol_place(dra_pol_t *p, uint32_t node, const dra_pol_pod_t *pod, const uint32_t *gpus)
{
    if (node >= p->nnodes)
        return DRA_EINVAL;
    dra_pol_node_t *n = &p->nodes[node];
    uint32_t milli = pod->num_gpu ? (is_share(pod) ? pod->gpu_milli : DRA_POL_MILLI) : 0;
    if (n->cpu_left < pod->cpu_milli || n->mem_left < pod->mem_mib || pod->num_gpu > n->ngpu)
        return DRA_EINVAL;
    if (pod->num_gpu && !model_ok(pod->models, n->model))
        return DRA_EINVAL;
    for (uint32_t a = 0; a < pod->num_gpu; a++) {
        if (gpus[a] >= n->ngpu || n->left[gpus[a]] < milli)
            return DRA_EINVAL;
        for (uint32_t b = 0; b < a; b++)
            if (gpus[a] == gpus[b])
                return DRA_EINVAL;
    }
    dra_pol_node_t saved = *n;
    n->cpu_left -= pod->cpu_milli;
    n->mem_left -= pod->mem_mib;
    for (uint32_t a = 0; a < pod->num_gpu; a++)
        n->left[gpus[a]] = (uint16_t)(n->left[gpus[a]] - milli);
    if (pod->num_gpu) {
        uint32_t tag = is_share(pod) ? 0 : pod->num_gpu;
        if (n->aff[tag]++ == 0)
            n->naff++;
    }
    node_summary(n);
    skey_t k;
    key_of(n, &k);
    uint32_t id;
    if (memo_intern(p, &k, &id) != DRA_OK) {
        *n = saved;
        return DRA_ENOMEM;
    }
    n->state = id;
    int64_t f = p->memo->ent[id].frag;
    p->frag_total += f - n->frag;
    n->frag = f;
    p->gpu_milli_used += (int64_t)milli * pod->num_gpu;
    return DRA_OK;
}
