/*
 * alloc_fuzzer.c - structured fuzzing of the allocators and the placement engine. Input bytes
 * decode into a small cluster and one pod's claims, shaped like the ones the exact per-node fast
 * paths serve:
 *  - 2 to 4 nodes (label zone=a|b), each with a local GPU pool of 0 to 5 devices carrying numa
 *    (int), clique and pcieRoot (strings; clique sometimes absent) and model (int; 0 makes one
 *    class selector fail with a CEL error), taints, binding conditions and multi-allocatable
 *    devices with a capacity and a requestPolicy (default, validRange with a step, validValues);
 *  - per node, a MIG-like partitionable pool: 1 or 2 physical GPUs as counter sets (mem, sm) and
 *    1 to 4 placements each (1g, 2g, full) consuming them; the 1.34 layout (counter sets in the
 *    devices' slice) or the 1.35+ one (a sharedCounters slice and a devices slice), now and then
 *    the other one, or a consumption of an unknown counter set (an invalid pool);
 *  - sometimes a shared (network-attached) GPU pool: allNodes, a zone node selector, or
 *    per-device node selection;
 *  - claims: mostly one claim with one ExactCount request of count 1..4 (class gpu or mig),
 *    with or without a matchAttribute / distinctAttribute (clique, pcieRoot, numa, MIG parent),
 *    tolerations, capacity requests (whole or 500m), adminAccess, a request selector; rarer:
 *    All, firstAvailable, two requests, two claims;
 *  - trailing bytes: the gpu class's extra selector (none, two that match some devices, one
 *    failing on model-0 devices, one failing on every device), up to 4 devices committed before
 *    anything runs (MIG placements of one GPU may overcommit its counters: a negative remainder,
 *    as after a slice shrank; multi-allocatable devices as shares with consumed capacity), the
 *    random policy's start node, whether the engine's fast allocator has a step budget, the
 *    node of the single-node checks and the policies of the fill sequence.
 * A byte that is not there reads as 0, so short inputs are small clusters. Checks, with upstream
 * bugs fixed:
 *  A. on one node (as before, per Allocate call):
 *   - ALLOCATED: the invariant checker finds nothing; commit then release restores the digest;
 *   - UNSATISFIABLE: the brute-force enumerator finds no assignment either;
 *   - the fast allocator (alloc/fast.h) decides identically: with the same step budget (no
 *     pruning) also with the same allocateOne count, without a budget (pruning on) whenever the
 *     reference did not run out of steps; and again after the result is committed and after it
 *     is released (its state mirror follows the commits);
 *   - the fast allocator's first-path scan (stats.path) serves every allocated plain claim (one
 *     ExactCount request, no constraint, no adminAccess, no counters, no consumable capacity, no
 *     CEL error, no per-device node selection, no invalid pool).
 *  B. the placement engine (engine/engine.h) over the device table, with the fast allocator,
 *     against dra_engine_place_reference with a separate reference allocator over the same state,
 *     under first-fit, best-fit, spread and random (decoded start): same outcome kind, same
 *     node, same allocations and messages (dra_alloc_outcome_differs, shareIDs and consumed
 *     capacity included: shareIDs are derived, not drawn), after each placement that
 *     allocated also once committed through dra_engine_commit_pod and once released through
 *     dra_engine_release_pod (best-fit and random: dra_engine_commit_pod_rec and, when it kept
 *     a release record, dra_engine_release_record); dra_engine_check (summaries equal a
 *     recomputation) after every commit and release, and the state digest restored after the
 *     release. Then a fill sequence: the pod placed again and again (decoded policies, up to 4
 *     pods) with every placement committed and compared (every second one with a release
 *     record), then everything released in reverse order.
 *  C. a PodGroup of copies of the pod (group/group.h; trailing bytes, below): with two claims
 *     the first may be the group's claim (allocated by the first member, shared by the others
 *     under its node selector); topology by the nodes' zone label or none; gang or basic,
 *     minCount, the node policy, each member's random draw. The literal cycle (every placement,
 *     member and node, on the engine's exact answers) and the fast cycle (the engine's index,
 *     per-domain summaries from dra_engine_fit_bound, best first) from the same state: the same
 *     decision and state, no domain holding more members than its bound, dra_engine_check and
 *     the state digest after each group's release. Not with a budgeted engine allocator (a
 *     budget hit is Fatal on nodes the fast cycle rightly skips).
 * Any difference abort()s with a message on stderr (that is how libFuzzer reports), and so does
 * a placement call that fails other than out of memory (e.g. DRA_EINTERNAL where a build checks
 * the engine's own answers against its allocator).
 * Budgets: the reference allocators run with a step budget (NODE_STEPS, ENGINE_STEPS) and the
 * brute force with BF_BUDGET assignments, so one input stays within a few ms whatever the search
 * does (under ASan+UBSan+coverage: about 10 ms typically, a few hundred ms at most; the options
 * file's timeout is 5 s). In part A a budget hit is Fatal "filter operation aborted" in the
 * fast allocator with the same budget too; in part B it ends the comparisons of the input (the
 * engine may skip that node by its summaries, and its fast allocator, budgeted or not as a byte
 * says, searches with pruning only when unbudgeted). ALLOC_FUZZER_TRACE=1 prints, per input,
 * the decoded cluster and claims and the decisions with the paths that served them (fast
 * allocator path; engine path 0 index, 1 reject, 2 brute force, and what served the chosen
 * node: direct-shares, search, ...), and on a difference both
 * decisions' devices, shares and consumed capacity.
 *
 * Byte layout: one byte per take(r, n), used as v % n, in this order (a missing byte reads 0;
 * "the shares profile": release 1.36 or later with DRAConsumableCapacity on, decoded so that the
 * engine's direct-shares path often serves the claim):
 *   release (%5: 1.34, 1.35, 1.36, 1.37, 1.38-pre); gates DRAPartitionableDevices,
 *   DRAConsumableCapacity, DRADeviceTaints, DRADeviceBindingConditions (each %3: release
 *   default, on, off; a gate the release locks keeps its value), from 1.37 on also
 *   DRADeviceCompatibilityGroups, DRADerivedAttributes, DRAFractionalCapacityRange (each %3);
 *   nodes (2 + %3); MIG pools
 *   (%2); per node its zone (%2: a, b);
 *   per node: GPU devices ((%6 + 1) % 6), per device [numa %3, pcieRoot %2, model (%8 == 7: 0),
 *   clique (%3: c0, c1, none), taint (%6: 4 NoSchedule, 5 NoExecute), binding conditions
 *   (%8 == 7, not in the shares profile when node-0 is in zone b; then bindsToNode %2),
 *   multi-allocatable (%5 == 4, or 3 too in the shares profile; then capacity 2 + %4 and its
 *   requestPolicy %4 (from 1.37 %5: 4 default 250m with range 250m..capacity step 250m): none,
 *   default 1 with range 1..capacity step 2, default 2 with values 1, 2, 4, default 1)]; with
 *   MIG pools a MIG pool (%4 != 3): GPUs (1 + %2), per GPU mem (4 + %5) and sm (4 + %4), per GPU
 *   placements (1 + %4), per placement [profile %3: 1g, 2g, full; unknown counter set
 *   (%32 == 31); from 1.37 compatibilityGroups %4: none, g0, g1, g0+g1], layout flipped (%8 == 7);
 *   shared pool (%4: none, allNodes (none in the shares profile), zone a, per device),
 *   devices (1 + %4), each a GPU device [per device: %(nodes + 2): that node, allNodes, zone a];
 *   claims (%6 == 5: two), per claim: shape (%8: 0-4 one ExactCount request, 5 All,
 *   6 firstAvailable with two subrequests, 7 two requests), per request (sub)request [class
 *   (%3 == 2: mig, else gpu), count (1 + %4), toleration (%3 == 2), with DRAConsumableCapacity
 *   on a capacity request (%3 == 2, or 1 too in the shares profile; then %4: 500m, 1, 2, 3;
 *   from 1.37 %5, 4: 300500u), from 1.37 a derived attribute (%4 == 3; then expression %4 and
 *   name %2: example.com/d or gpu numa), %16: 15 adminAccess (not in subrequests), 14 a request
 *   selector], constraint (%4: 2 matchAttribute, 3 distinctAttribute, then the attribute %4:
 *   clique, pcieRoot, numa, MIG parent; from 1.37 %5, 4: example.com/d);
 *   gpu class selector (%8: index in class_sel, 5-7 none); devices in use (%5), each a model
 *   row (two bytes, little endian, mod devices) [+ consumed capacity 1 + %2 for a share];
 *   random start (%nodes); engine budget (%4 == 3); node of part A (%nodes); fill policies
 *   (4 x %4: first-fit, best-fit, spread, random); the constraint's scope in a claim of two
 *   requests (%2: both, the first alone: the engine answers such claims request by request);
 *   part C (%4 != 0: a group), then members (1 + %5), gang (%4 != 0), minCount (1 + %members),
 *   zone topology (%2), node policy (%4), group claim (%2, with two claims only), per member its
 *   random draw (%256);
 *   part D (1.37+): DRAOptionalNodeOperations (%4; then its gate, per slice skipNodeOperations
 *   %2, per node the declared feature %2);
 *   part E (1.38-pre): DRASharedConsumableCapacity (%4: none, the fields with the gate off, the
 *   gate on), per MIG counter set counter a requestPolicy (decode_policy), per MIG placement
 *   counter static or valueFrom (%4: static, "bw", "gpu.example.com/bw", "mig.example.com/bw"),
 *   per GPU pool (not per-device) a "link" counter set in a slice of its own (%3 != 0: bw 2 + %6
 *   with a requestPolicy, n 1 + %4, per device %5: none, bw from the request (valueFrom %3), n 1,
 *   both, bw 1), per request with a capacity request its key (%4: bw, the GPU domain's, the MIG
 *   domain's, both bw and the GPU domain's), per device in use its consumedCounters (%4: none,
 *   as published with perAllocation 1 + %3 per valueFrom counter, perDevice one more than
 *   published, {}) and, for a share, a further live share of it (%2; consumed 1 + %2, its own
 *   consumedCounters). The oracles compare the results' consumedCounters too.
 * Seeds: corpora/alloc_fuzzer/seed-* were written from this layout, one value per take(); each
 * file's name says the shape it produces (multi-node first fit, matchAttribute on cliques and
 * PCIe roots, distinctAttribute, MIG counters in the 1.34, 1.35 and 1.36 layouts, overcommitted
 * counters, an unknown counter set, shared pools, taints with and without tolerations, binding
 * conditions, consumable capacity, CEL errors, All, firstAvailable, two requests, two claims,
 * adminAccess, gates off; seed-1.37-*: compatibility groups with the gate on and off, a
 * derived attribute under matchAttribute; seed-1.38-shared-cap-*: request-driven counters on
 * shared GPUs with live shares and snapshots, the gate off, a MIG counter with validValues, a
 * counter exhausted by live shares, an amount the requestPolicy refuses, a request naming a
 * capacity both ways, a snapshot-less live share of a valueFrom device), and
 * ALLOC_FUZZER_TRACE=1 prints the cluster and decisions it produces. Older corpus files (of the one-node decoder) decode into other clusters; they are
 * kept as inputs.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "alloc/alloc.h"
#include "alloc/fast.h"
#include "alloc/invariants.h"
#include "engine/engine.h"
#include "group/group.h"
#include "table/table.h"

typedef struct rd {
    const uint8_t *p;
    size_t n;
} rd_t;

static unsigned take(rd_t *r, unsigned mod)
{
    if (!r->n || !mod)
        return 0;
    unsigned v = *r->p++;
    r->n--;
    return v % mod;
}

static bool budget_hit(dra_outcome_t kind, const char *msg)
{
    return kind == DRA_OUTCOME_FATAL && strncmp(msg, "filter operation aborted", 24) == 0;
}

static bool trace;         /* ALLOC_FUZZER_TRACE set */
static uint32_t last_path; /* stats.path of the last call of the budgeted fast allocator */

/* Step budgets: the single-node checks (reference and the budgeted fast allocator), and the
 * allocators of the engine checks (per exact call). */
#define NODE_STEPS   5000
#define ENGINE_STEPS 2000

/* An outcome's results on stderr: request=pool/device, share, consumed capacity. */
static void print_outcome(const char *who, const dra_alloc_outcome_t *o)
{
    fprintf(stderr, "  %s: %s", who, dra_outcome_name(o->kind));
    for (uint32_t i = 0; o->kind == DRA_OUTCOME_ALLOCATED && i < o->n; i++)
        for (uint32_t j = 0; o->allocations[i] && j < o->allocations[i]->nresults; j++) {
            const dra_result_t *x = &o->allocations[i]->results[j];
            fprintf(stderr, " %s=%s/%s", x->request, x->pool, x->device);
            if (x->share_id)
                fprintf(stderr, " (share %s)", x->share_id);
            for (uint32_t k = 0; k < x->nconsumed; k++) {
                char q[DRA_QUANTITY_FMT_MAX];
                dra_quantity_format(&x->consumed[k].value, q, sizeof q);
                fprintf(stderr, " (%s %s)", x->consumed[k].name, q);
            }
            const dra_counter_snapshot_t *sn =
                o->allocations[i]->counters ? o->allocations[i]->counters[j] : NULL;
            for (uint32_t h = 0; sn && h < 2; h++) { /* consumedCounters */
                const dra_counter_set_use_t *u = h ? sn->per_allocation : sn->per_device;
                uint32_t nu = h ? sn->nper_allocation : sn->nper_device;
                for (uint32_t a = 0; a < nu; a++)
                    for (uint32_t k = 0; k < u[a].ncounters; k++) {
                        char q[DRA_QUANTITY_FMT_MAX];
                        dra_quantity_format(&u[a].counters[k].value, q, sizeof q);
                        fprintf(stderr, " [%s %s.%s %s]", h ? "perAllocation" : "perDevice",
                                u[a].counter_set, u[a].counters[k].name, q);
                    }
            }
        }
    fprintf(stderr, "%s%s\n", o->msg[0] ? " " : "", o->msg);
}

/* The fast allocators decide as the reference did (fa: same budget, fb: none, may be NULL). */
static int same_as_reference(const dra_alloc_outcome_t *o, dra_fast_t *fa, dra_fast_t *fb,
                             const dra_node_t *node, dra_claim_t *const *claims, unsigned n,
                             dra_arena_t *out)
{
    dra_alloc_outcome_t fo;
    char why[1200];
    if (dra_fast_allocate(fa, node, claims, n, out, &fo))
        return -1;
    last_path = fo.stats.path;
    if (dra_alloc_outcome_differs(o, &fo, why, sizeof why) ||
        fo.stats.allocate_one != o->stats.allocate_one) {
        fprintf(stderr,
                "fast allocator differs from the reference: %s (allocateOne %llu vs %llu)\n", why,
                (unsigned long long)fo.stats.allocate_one,
                (unsigned long long)o->stats.allocate_one);
        print_outcome("fast", &fo);
        print_outcome("reference", o);
        abort();
    }
    if (fb && !budget_hit(o->kind, o->msg)) {
        if (dra_fast_allocate(fb, node, claims, n, out, &fo))
            return -1;
        if (dra_alloc_outcome_differs(o, &fo, why, sizeof why)) {
            fprintf(stderr, "fast allocator (pruning) differs from the reference: %s\n", why);
            print_outcome("fast", &fo);
            print_outcome("reference", o);
            abort();
        }
    }
    return 0;
}

static void qty(dra_quantity_t *q, uint64_t v)
{
    memset(q, 0, sizeof *q);
    q->lo = v;
}

/* Complete assignments the brute force may examine before it gives up without a verdict: bounded
 * so that one input stays well inside libFuzzer's timeout under ASan+UBSan+coverage. */
#define BF_BUDGET 10000

/* A gate the allocator knows, per one byte: 0 the release's default, 1 on, 2 off (setting it
 * cannot fail). */
static void gate_set(rd_t *r, dra_alloc_features_t *f, const char *gate)
{
    unsigned v = take(r, 3);
    dra_gate_t g;
    if (!dra_alloc_gate_lookup(gate, &g))
        abort();
    dra_gate_stage_t st = dra_alloc_gate_stage((dra_release_t)f->release, g);
    if (v && st.locked)
        return; /* a gate the release locks keeps its value */
    if (v && dra_alloc_features_set_gate(f, gate, v == 1, NULL) != DRA_OK)
        abort();
}

#define GPU_DRV  "gpu.example.com"
#define MIG_DRV  "mig.example.com"
#define MAX_PRE  4
#define MAX_FILL 4
#define MAX_GROUP 5

/* One decoded input: the model, its gates and the claims, with what the trailing bytes chose. */
typedef struct input {
    dra_model_t m;
    dra_alloc_features_t f;
    dra_device_class_t *gpu, *mig;
    dra_claim_t *claims[2];
    unsigned nclaims;
    unsigned selk;   /* index in class_sel */
    bool pdns;       /* a slice with per-device node selection */
    bool bad_pool;   /* a consumption of an unknown counter set */
    unsigned shared; /* 0 none, 1 allNodes, 2 node selector, 3 per-device */
    unsigned npre;
    dra_result_t pre_res[MAX_PRE];
    const dra_device_t *pre_dev[MAX_PRE];
    unsigned dec_fl; /* DEC_* of the GPU devices */
    dra_allocation_t pre_alloc[MAX_PRE];
    unsigned start;          /* the random policy's first node */
    bool engine_budget;      /* the engine's fast allocator has ENGINE_STEPS too */
    unsigned onode;          /* the node of the single-node checks */
    unsigned fill[MAX_FILL]; /* policies of the fill sequence */
    /* part E: DRASharedConsumableCapacity - further shares of devices in use, and the
     * consumedCounters snapshots of every live allocation (NULL: none) */
    unsigned nscc;
    dra_result_t scc_res[MAX_PRE];
    dra_allocation_t scc_alloc[MAX_PRE];
    const dra_counter_snapshot_t *pre_snap[MAX_PRE], *scc_snap[MAX_PRE];
    unsigned scc;    /* 0 no part E, 1 the fields with the gate off, 2 the gate on */
    /* part C: a PodGroup of the pod (gmembers 0: none) */
    unsigned gmembers, gmin, gpolicy;
    bool ggang, gtopo, gclaim;
    uint64_t grnd[MAX_GROUP];
} input_t;

/* The allocators and their state for one input. */
typedef struct run {
    dra_alloc_state_t *st;
    dra_cel_cache_t *cel;
    dra_allocator_t *al;
    dra_fast_t *fa, *fb; /* fa: the reference's budget; fb: none (NULL when it ran out) */
    dra_arena_t out;
} run_t;

/* Extra selectors of the gpu class: none, two that match some devices, one that fails with a
 * CEL error (division by zero) on devices of model 0, one that fails on every device. */
static const char *const class_sel[5] = {NULL, "device.attributes['" GPU_DRV "'].numa >= 1",
                                         "device.attributes['" GPU_DRV "'].numa != 1",
                                         "10 / device.attributes['" GPU_DRV "'].model >= 1",
                                         "device.attributes['" GPU_DRV "'].nosuch == 1"};

/* Attributes a constraint names (the last, a derived attribute's name, from 1.37 on). */
static const char *const cons_attr[5] = {GPU_DRV "/clique", GPU_DRV "/pcieRoot", GPU_DRV "/numa",
                                         MIG_DRV "/parent", "example.com/d"};

static void attr_int(dra_model_t *m, dra_attr_t *a, const char *drv, const char *name, int64_t v)
{
    a->name = name;
    a->qname = dra_model_qname(m, drv, name);
    a->kind = DRA_ATTR_INT;
    a->count = 1;
    a->v.i = v;
}

static void attr_str(dra_model_t *m, dra_attr_t *a, const char *drv, const char *name,
                     const char *v)
{
    a->name = name;
    a->qname = dra_model_qname(m, drv, name);
    a->kind = DRA_ATTR_STRING;
    a->count = 1;
    a->v.s = dra_model_str(m, v);
}

/* A capacity's requestPolicy (%4): none; default 1 and validRange 1..cap step 2; default 2 and
 * validValues 1, 2, 4; default 1 alone. */
static const dra_request_policy_t *decode_policy(rd_t *r, dra_model_t *m, uint64_t cap,
                                                 bool r37)
{
    unsigned k = take(r, r37 ? 5 : 4);
    if (!k)
        return NULL;
    if (k == 4) { /* 1.37+: default 250m, validRange 250m..cap step 250m (fractional ranges) */
        dra_request_policy_t *p = dra_model_array(m, 1, sizeof *p);
        p->has_default = p->has_valid_range = p->has_max = p->has_step = true;
        qty(&p->def, 250);
        p->def.exp = -3;
        p->min = p->step = p->def;
        qty(&p->max, cap);
        return p;
    }
    dra_request_policy_t *p = dra_model_array(m, 1, sizeof *p);
    p->has_default = true;
    qty(&p->def, k == 2 ? 2 : 1);
    if (k == 1) {
        p->has_valid_range = true;
        qty(&p->min, 1);
        p->has_max = true;
        qty(&p->max, cap);
        p->has_step = true;
        qty(&p->step, 2);
    } else if (k == 2) {
        p->valid_values = dra_model_array(m, 3, sizeof(dra_quantity_t));
        p->nvalid_values = 3;
        qty(&p->valid_values[0], 1);
        qty(&p->valid_values[1], 2);
        qty(&p->valid_values[2], 4);
    }
    return p;
}

/* A 1.36+ profile with DRAConsumableCapacity on: devices are multi-allocatable and requests
 * ask for capacity more often (the engine answers such claims directly, direct-shares). */
static bool shares_profile(const input_t *in)
{
    return in->f.release >= DRA_RELEASE_1_36 &&
           dra_alloc_gate_on(&in->f, DRA_GATE_CONSUMABLE_CAPACITY);
}

/* Decoding flags of the GPU devices (decode): DEC_SHARES the 1.36 profile with
 * DRAConsumableCapacity (shares_profile), DEC_NO_BINDING no binding conditions (with
 * DEC_SHARES when node-0 is in zone b: a device with binding conditions under the gate makes
 * every plan over its class leave the direct answers). */
enum { DEC_SHARES = 1, DEC_NO_BINDING = 2, DEC_R37 = 4 /* 1.37+: more policies */ };

/* A GPU-like device: numa, pcieRoot, model, clique (sometimes absent); a taint, binding
 * conditions, multi-allocatable with a capacity and its requestPolicy (more often with
 * DEC_SHARES, the shape the engine's direct-shares path serves). */
static void decode_gpu(rd_t *r, dra_model_t *m, dra_device_t *dev, const char *name, unsigned fl)
{
    static const char *const cliques[2] = {"c0", "c1"};
    static const char *const roots[2] = {"pci0", "pci1"};
    dev->name = dra_model_str(m, name);
    dev->attrs = dra_model_array(m, 4, sizeof(dra_attr_t));
    unsigned na = 0;
    attr_int(m, &dev->attrs[na++], GPU_DRV, "numa", take(r, 3));
    attr_str(m, &dev->attrs[na++], GPU_DRV, "pcieRoot", roots[take(r, 2)]);
    attr_int(m, &dev->attrs[na++], GPU_DRV, "model", take(r, 8) == 7 ? 0 : 1);
    unsigned c = take(r, 3);
    if (c < 2)
        attr_str(m, &dev->attrs[na++], GPU_DRV, "clique", cliques[c]);
    dev->nattrs = na;
    unsigned t = take(r, 6);
    if (t >= 4) {
        dev->taints = dra_model_array(m, 1, sizeof(dra_taint_t));
        dev->ntaints = 1;
        dev->taints[0].key = "t";
        dev->taints[0].effect = t == 4 ? DRA_EFFECT_NO_SCHEDULE : DRA_EFFECT_NO_EXECUTE;
    }
    if (take(r, 8) == 7 && !(fl & DEC_NO_BINDING)) {
        dev->binding_conditions = dra_model_array(m, 1, sizeof(const char *));
        dev->binding_conditions[0] = "ready";
        dev->nbinding_conditions = 1;
        dev->binds_to_node = take(r, 2);
    }
    unsigned mv = take(r, 5);
    if (mv == 4 || (mv == 3 && (fl & DEC_SHARES))) {
        dev->allow_multiple_allocations = true;
        dev->caps = dra_model_array(m, 1, sizeof(dra_capacity_t));
        dev->ncaps = 1;
        dev->caps[0].name = "bw";
        dev->caps[0].qname = dra_model_qname(m, GPU_DRV, "bw");
        uint64_t cap = 2 + take(r, 4);
        qty(&dev->caps[0].value, cap);
        dev->caps[0].policy = decode_policy(r, m, cap, fl & DEC_R37);
    }
}

/* A slice of driver drv, pool pool, one of `count` slices of the pool, on node node (NULL:
 * the caller sets the node selection). */
static dra_slice_t *new_slice(dra_model_t *m, const char *name, const char *drv, const char *pool,
                              int64_t count, const char *node)
{
    dra_slice_t *s = dra_model_add_slice(m);
    s->name = dra_model_str(m, name);
    s->driver = drv;
    s->pool_name = dra_model_str(m, pool);
    s->generation = 1;
    s->slice_count = count;
    s->node_name = node;
    return s;
}

/* The local GPU pool of node n: 0 to 5 devices (1 when the byte is missing). */
static void decode_gpu_pool(rd_t *r, dra_model_t *m, unsigned n, const char *node, unsigned fl)
{
    char nm[32];
    unsigned nd = (take(r, 6) + 1) % 6;
    snprintf(nm, sizeof nm, "gpu-%u", n);
    dra_slice_t *s = new_slice(m, nm, GPU_DRV, nm, 1, node);
    s->devices = dra_model_array(m, nd ? nd : 1, sizeof(dra_device_t));
    s->ndevices = nd;
    for (unsigned d = 0; d < nd; d++) {
        snprintf(nm, sizeof nm, "gpu-%u", d);
        decode_gpu(r, m, &s->devices[d], nm, fl);
    }
    dra_model_slice_done(m, s);
}

/* The MIG-like pool of node n: 1 or 2 physical GPUs (counter sets gpu-P with mem and sm), each
 * with 1 to 4 placements (1g: 1/1, 2g: 2/2, full: 4/4 of mem/sm); mem is 4..8 and sm 4..7, so
 * a full placement fits an unused GPU. Layout: the 1.34 one (counters in the devices' slice) for
 * release 1.34, the 1.35+ one (a sharedCounters slice and a devices slice) otherwise, the other
 * way round one time in 8. */
static void decode_mig_pool(rd_t *r, input_t *in, unsigned n, const char *node)
{
    static const char *const prof[3] = {"1g", "2g", "full"};
    static const unsigned amount[3] = {1, 2, 4};
    dra_model_t *m = &in->m;
    char nm[48], pool[32];
    unsigned ngpu = 1 + take(r, 2);
    snprintf(pool, sizeof pool, "mig-%u", n);
    dra_counter_set_t *sets = dra_model_array(m, ngpu, sizeof(dra_counter_set_t));
    for (unsigned p = 0; p < ngpu; p++) {
        snprintf(nm, sizeof nm, "gpu-%u", p);
        sets[p].name = dra_model_str(m, nm);
        sets[p].counters = dra_model_array(m, 2, sizeof(dra_counter_t));
        sets[p].ncounters = 2;
        sets[p].counters[0].name = "mem";
        qty(&sets[p].counters[0].value, 4 + take(r, 5));
        sets[p].counters[1].name = "sm";
        qty(&sets[p].counters[1].value, 4 + take(r, 4));
    }
    unsigned nplace[2], total = 0;
    for (unsigned p = 0; p < ngpu; p++)
        total += nplace[p] = 1 + take(r, 4);
    dra_device_t *devs = dra_model_array(m, total, sizeof(dra_device_t));
    unsigned d = 0;
    for (unsigned p = 0; p < ngpu; p++)
        for (unsigned j = 0; j < nplace[p]; j++, d++) {
            unsigned k = take(r, 3);
            dra_device_t *dev = &devs[d];
            snprintf(nm, sizeof nm, "gpu-%u-%s-%u", p, prof[k], j);
            dev->name = dra_model_str(m, nm);
            dev->attrs = dra_model_array(m, 3, sizeof(dra_attr_t));
            dev->nattrs = 3;
            snprintf(nm, sizeof nm, "gpu-%u", p);
            attr_str(m, &dev->attrs[0], MIG_DRV, "parent", nm);
            attr_int(m, &dev->attrs[1], MIG_DRV, "numa", p);
            attr_str(m, &dev->attrs[2], MIG_DRV, "profile", prof[k]);
            dev->consumes = dra_model_array(m, 1, sizeof(dra_consumes_t));
            dev->nconsumes = 1;
            bool unknown = take(r, 32) == 31;
            in->bad_pool |= unknown;
            dev->consumes[0].counter_set = unknown ? "gpu-9" : sets[p].name;
            if (in->f.release >= DRA_RELEASE_1_37) { /* compatibilityGroups %4 */
                static const char *const grp[3][2] = {{"g0"}, {"g1"}, {"g0", "g1"}};
                unsigned g = take(r, 4);
                if (g) {
                    dev->consumes[0].groups = (const char **)grp[g - 1];
                    dev->consumes[0].ngroups = g == 3 ? 2 : 1;
                }
            }
            dev->consumes[0].counters = dra_model_array(m, 2, sizeof(dra_counter_t));
            dev->consumes[0].ncounters = 2;
            dev->consumes[0].counters[0].name = "mem";
            qty(&dev->consumes[0].counters[0].value, amount[k]);
            dev->consumes[0].counters[1].name = "sm";
            qty(&dev->consumes[0].counters[1].value, amount[k]);
        }
    bool split = (in->f.release != DRA_RELEASE_1_34) != (take(r, 8) == 7);
    if (split) {
        snprintf(nm, sizeof nm, "%s-counters", pool);
        dra_slice_t *c = new_slice(m, nm, MIG_DRV, pool, 2, node);
        c->counter_sets = sets;
        c->ncounter_sets = ngpu;
        dra_model_slice_done(m, c);
        snprintf(nm, sizeof nm, "%s-devices", pool);
        dra_slice_t *s = new_slice(m, nm, MIG_DRV, pool, 2, node);
        s->devices = devs;
        s->ndevices = total;
        dra_model_slice_done(m, s);
    } else {
        dra_slice_t *s = new_slice(m, pool, MIG_DRV, pool, 1, node);
        s->counter_sets = sets;
        s->ncounter_sets = ngpu;
        s->devices = devs;
        s->ndevices = total;
        dra_model_slice_done(m, s);
    }
}

/* A node selector zone In [a]. */
static const dra_node_selector_t *zone_selector(dra_model_t *m)
{
    dra_node_selector_t *ns = dra_model_array(m, 1, sizeof *ns);
    ns->terms = dra_model_array(m, 1, sizeof(dra_ns_term_t));
    ns->nterms = 1;
    ns->terms[0].exprs = dra_model_array(m, 1, sizeof(dra_ns_req_t));
    ns->terms[0].nexprs = 1;
    dra_ns_req_t *e = &ns->terms[0].exprs[0];
    e->key = "zone";
    e->op = DRA_NS_IN;
    e->values = dra_model_array(m, 1, sizeof(const char *));
    e->values[0] = "a";
    e->nvalues = 1;
    return ns;
}

/* The shared GPU pool (in->shared: 1 allNodes, 2 zone selector, 3 per-device node selection:
 * a named node, allNodes or the zone selector per device), 1 to 4 devices. */
static void decode_shared_pool(rd_t *r, input_t *in, unsigned nnodes)
{
    dra_model_t *m = &in->m;
    unsigned nd = 1 + take(r, 4);
    dra_slice_t *s = new_slice(m, "shared", GPU_DRV, "shared", 1, NULL);
    if (in->shared == 1)
        s->all_nodes = true;
    else if (in->shared == 2)
        s->node_selector = zone_selector(m);
    else
        s->per_device_node_selection = in->pdns = true;
    s->devices = dra_model_array(m, nd, sizeof(dra_device_t));
    s->ndevices = nd;
    for (unsigned d = 0; d < nd; d++) {
        char nm[32];
        snprintf(nm, sizeof nm, "net-%u", d);
        decode_gpu(r, m, &s->devices[d], nm, in->dec_fl);
        if (in->shared == 3) {
            unsigned w = take(r, nnodes + 2);
            if (w < nnodes)
                s->devices[d].node_name = m->nodes[w]->name;
            else if (w == nnodes)
                s->devices[d].all_nodes = true;
            else
                s->devices[d].node_selector = zone_selector(m);
        }
    }
    dra_model_slice_done(m, s);
}

/* Decodes the body of a request or subrequest. */
static void decode_body(rd_t *r, input_t *in, dra_exact_request_t *b, const char *name, bool all,
                        bool sub)
{
    dra_model_t *m = &in->m;
    b->name = dra_model_str(m, name);
    b->class_name = take(r, 3) == 2 ? "mig" : "gpu";
    b->mode = all ? DRA_MODE_ALL : DRA_MODE_EXACT_COUNT;
    b->has_count = !all;
    int64_t count = 1 + take(r, 4);
    b->count = all ? 0 : count;
    if (take(r, 3) == 2) {
        b->tolerations = dra_model_array(m, 1, sizeof(dra_toleration_t));
        b->ntolerations = 1;
        b->tolerations[0].key = "t";
        b->tolerations[0].op = DRA_TOL_EXISTS;
        b->tolerations[0].effect = DRA_EFFECT_EMPTY;
    }
    unsigned cv = dra_alloc_gate_on(&in->f, DRA_GATE_CONSUMABLE_CAPACITY) ? take(r, 3) : 0;
    if (cv == 2 || (cv == 1 && shares_profile(in))) {
        b->has_capacity = true;
        b->cap_requests = dra_model_array(m, 1, sizeof(dra_cap_request_t));
        b->ncap_requests = 1;
        b->cap_requests[0].name = "bw";
        b->cap_requests[0].qname = dra_model_qname(m, GPU_DRV, "bw");
        /* 0: 500m (a fractional share), 1..3, 1.37+ also 4: 300500u (no whole milli value) */
        unsigned v = take(r, in->f.release >= DRA_RELEASE_1_37 ? 5 : 4);
        qty(&b->cap_requests[0].value, v == 4 ? 300500 : v ? v : 500);
        b->cap_requests[0].value.exp = v == 4 ? -6 : v ? 0 : -3;
    }
    if (in->f.release >= DRA_RELEASE_1_37 && take(r, 4) == 3) {
        /* a derived attribute (%4 expression, %2 name: its own or shadowing gpu numa); the
         * first and the last fail at run time on some devices */
        static const char *const dexpr[4] = {
            "device.attributes['" GPU_DRV "'].numa / 2", "'x'",
            "has(device.attributes['" GPU_DRV "'].numa) ? device.attributes['" GPU_DRV
            "'].numa % 2 : device.attributes['" MIG_DRV "'].numa",
            "device.attributes['" GPU_DRV "'].clique"};
        b->derived = dra_model_array(m, 1, sizeof(dra_derived_attr_t));
        b->nderived = 1;
        b->derived[0].expr = dexpr[take(r, 4)];
        b->derived[0].name = take(r, 2) ? GPU_DRV "/numa" : "example.com/d";
        b->derived[0].qname = dra_model_qname(m, NULL, b->derived[0].name);
    }
    unsigned x = take(r, 16);
    if (x == 15 && !sub) {
        b->has_admin_access = b->admin_access = true;
    } else if (x == 14) {
        b->selectors = dra_model_array(m, 1, sizeof(dra_selector_t));
        b->nselectors = 1;
        b->selectors[0].cel = strcmp(b->class_name, "mig") == 0
                                  ? "device.attributes['" MIG_DRV "'].profile != 'full'"
                                  : "device.attributes['" GPU_DRV "'].numa != 2";
    }
}

/* Decodes claim c: its shape (one ExactCount request most often; All, firstAvailable, two
 * requests), then at most one constraint over all its requests. */
static dra_claim_t *decode_claim(rd_t *r, input_t *in, unsigned c)
{
    dra_model_t *m = &in->m;
    dra_claim_t *cl = dra_model_add_claim(m);
    char nm[32];
    snprintf(nm, sizeof nm, "claim-%u", c);
    cl->name = dra_model_str(m, nm);
    cl->namespace_ = "default";
    unsigned shape = take(r, 8); /* 0-4 one ExactCount request, 5 All, 6 firstAvailable, 7 two */
    unsigned nreq = shape == 7 ? 2 : 1;
    cl->requests = dra_model_array(m, nreq, sizeof(dra_request_t));
    cl->nrequests = nreq;
    for (unsigned q = 0; q < nreq; q++) {
        dra_request_t *rq = &cl->requests[q];
        snprintf(nm, sizeof nm, "req-%u", q);
        rq->name = dra_model_str(m, nm);
        if (shape == 6) {
            rq->first_available = dra_model_array(m, 2, sizeof(dra_exact_request_t));
            rq->nfirst_available = 2;
            decode_body(r, in, &rq->first_available[0], "sub-0", false, true);
            decode_body(r, in, &rq->first_available[1], "sub-1", false, true);
        } else {
            rq->exactly = dra_model_array(m, 1, sizeof(dra_exact_request_t));
            decode_body(r, in, rq->exactly, nm, shape == 5, false);
        }
    }
    unsigned k = take(r, 4); /* 0-1 none, 2 matchAttribute, 3 distinctAttribute */
    if (k >= 2) {
        cl->constraints = dra_model_array(m, 1, sizeof(dra_constraint_t));
        cl->nconstraints = 1;
        const char *attr = cons_attr[take(r, in->f.release >= DRA_RELEASE_1_37 ? 5 : 4)];
        if (k == 2)
            cl->constraints[0].match_attribute = attr;
        else
            cl->constraints[0].distinct_attribute = attr;
    }
    return cl;
}

/* The devices committed before anything runs: up to MAX_PRE rows of the model (a row already
 * picked is skipped); a multi-allocatable device under DRAConsumableCapacity as a share with
 * consumed capacity, anything else exclusively (several placements of one physical GPU may
 * overcommit its counter set). */
static void decode_pre(rd_t *r, input_t *in)
{
    dra_model_t *m = &in->m;
    unsigned want = take(r, MAX_PRE + 1);
    uint32_t rows[MAX_PRE];
    for (unsigned i = 0; i < want && m->ndevices; i++) {
        uint32_t lo = take(r, 256);
        uint32_t row = (lo | take(r, 256) << 8) % (uint32_t)m->ndevices;
        bool dup = false;
        for (unsigned j = 0; j < in->npre; j++)
            dup |= rows[j] == row;
        if (dup)
            continue;
        const dra_device_t *d = NULL;
        const dra_slice_t *s = NULL;
        uint32_t base = 0;
        for (uint32_t k = 0; k < m->nslices && !d; k++) {
            if (row < base + m->slices[k]->ndevices) {
                s = m->slices[k];
                d = &s->devices[row - base];
            }
            base += m->slices[k]->ndevices;
        }
        if (!d)
            continue;
        dra_result_t *res = &in->pre_res[in->npre];
        memset(res, 0, sizeof *res);
        res->request = "pre";
        res->driver = s->driver;
        res->pool = s->pool_name;
        res->device = d->name;
        if (d->allow_multiple_allocations &&
            dra_alloc_gate_on(&in->f, DRA_GATE_CONSUMABLE_CAPACITY)) {
            char nm[40];
            snprintf(nm, sizeof nm, "00000000-0000-4000-8000-00000000000%u", in->npre);
            res->share_id = dra_model_str(m, nm);
            res->consumed = dra_model_array(m, 1, sizeof(dra_consumed_t));
            res->nconsumed = 1;
            res->consumed[0].name = d->caps[0].name;
            qty(&res->consumed[0].value, 1 + take(r, 2));
        }
        in->pre_dev[in->npre] = d;
        in->pre_alloc[in->npre] = (dra_allocation_t){.results = res, .nresults = 1};
        rows[in->npre++] = row;
    }
}

/* ---- part E: DRASharedConsumableCapacity (KEP-5941, 1.38-pre; core/alloc/sharedcap.c) ---- */

/* valueFrom.capacityName: without a domain (the slice's driver is its domain), with the GPU
 * driver's, with the MIG driver's. A request key is one of the same three. */
static const char *const scc_name[3] = {"bw", GPU_DRV "/bw", MIG_DRV "/bw"};

/* A consumesCounters counter (%4): as decoded (static), or request-driven from scc_name[v - 1]
 * (value 0, as the reader stores it: what an allocator without the gate charges). */
static void scc_counter(rd_t *r, dra_counter_t *k)
{
    unsigned v = take(r, 4);
    if (!v)
        return;
    k->value_from = scc_name[v - 1];
    qty(&k->value, 0);
}

/* A counter set "link" for the GPU pool of slice s, in a slice of its own (the pool then has
 * two): bw (2 + %6, a requestPolicy as for a device capacity) and n (1 + %4); each of s's
 * devices consumes from it (%5): nothing, bw from a request (valueFrom %3), n 1 (static),
 * both, bw 1 (static). A multi-allocatable device's request-driven amount is charged on every
 * share, its static ones once per device. */
static void scc_link(rd_t *r, input_t *in, dra_slice_t *s)
{
    dra_model_t *m = &in->m;
    char nm[48];
    snprintf(nm, sizeof nm, "%s-link", s->name);
    dra_slice_t *c = new_slice(m, nm, s->driver, s->pool_name, 2, s->node_name);
    c->all_nodes = s->all_nodes;
    c->node_selector = s->node_selector;
    s->slice_count = 2;
    c->counter_sets = dra_model_array(m, 1, sizeof(dra_counter_set_t));
    c->ncounter_sets = 1;
    dra_counter_set_t *cs = &c->counter_sets[0];
    cs->name = "link";
    cs->counters = dra_model_array(m, 2, sizeof(dra_counter_t));
    cs->ncounters = 2;
    cs->counters[0].name = "bw";
    uint64_t bw = 2 + take(r, 6);
    qty(&cs->counters[0].value, bw);
    cs->counters[0].policy = decode_policy(r, m, bw, true);
    cs->counters[1].name = "n";
    qty(&cs->counters[1].value, 1 + take(r, 4));
    dra_model_slice_done(m, c);
    for (uint32_t d = 0; d < s->ndevices; d++) {
        unsigned u = take(r, 5);
        if (!u)
            continue;
        dra_device_t *dev = &s->devices[d];
        dev->consumes = dra_model_array(m, 1, sizeof(dra_consumes_t));
        dev->nconsumes = 1;
        dev->consumes[0].counter_set = "link";
        dev->consumes[0].counters = dra_model_array(m, 2, sizeof(dra_counter_t));
        dra_counter_t *k = dev->consumes[0].counters;
        uint32_t n = 0;
        if (u == 1 || u == 3) {
            k[n].name = "bw";
            k[n++].value_from = scc_name[take(r, 3)];
        }
        if (u == 2 || u == 3 || u == 4) {
            k[n].name = u == 4 ? "bw" : "n";
            qty(&k[n++].value, 1);
        }
        dev->consumes[0].ncounters = n;
    }
}

/* The consumedCounters snapshot of a live result on device d (mode %4): none (allocated before
 * the gate), d's consumption as published (perDevice its static counters, perAllocation 1 + %3
 * of each request-driven one), the same with every perDevice value one more (the slice changed
 * since), or {} (nothing charged). */
static const dra_counter_snapshot_t *scc_snapshot(rd_t *r, dra_model_t *m, const dra_device_t *d)
{
    unsigned mode = take(r, 4);
    if (!mode)
        return NULL;
    dra_counter_snapshot_t *sn = dra_model_array(m, 1, sizeof *sn);
    if (mode == 3 || !d->nconsumes)
        return sn;
    sn->per_device = dra_model_array(m, d->nconsumes, sizeof(dra_counter_set_use_t));
    sn->per_allocation = dra_model_array(m, d->nconsumes, sizeof(dra_counter_set_use_t));
    for (uint32_t c = 0; c < d->nconsumes; c++) {
        const dra_consumes_t *cc = &d->consumes[c];
        dra_counter_set_use_t *pd = &sn->per_device[sn->nper_device];
        dra_counter_set_use_t *pa = &sn->per_allocation[sn->nper_allocation];
        uint32_t nk = cc->ncounters ? cc->ncounters : 1;
        pd->counters = dra_model_array(m, nk, sizeof(dra_consumed_t));
        pa->counters = dra_model_array(m, nk, sizeof(dra_consumed_t));
        pd->counter_set = pa->counter_set = cc->counter_set;
        for (uint32_t k = 0; k < cc->ncounters; k++) {
            const dra_counter_t *x = &cc->counters[k];
            dra_consumed_t *o = x->value_from ? &pa->counters[pa->ncounters++]
                                              : &pd->counters[pd->ncounters++];
            o->name = x->name;
            if (x->value_from)
                qty(&o->value, 1 + take(r, 3));
            else {
                o->value = x->value;
                o->value.lo += mode == 2;
            }
        }
        sn->nper_device += pd->ncounters != 0;
        sn->nper_allocation += pa->ncounters != 0;
    }
    return sn;
}

/* Part E (1.38-pre, read after part D: inputs that end before it decode as they did). %4: none;
 * the fields with DRASharedConsumableCapacity off (every valueFrom counter charges 0); with it on
 * (2, 3). Then per MIG counter set counter a requestPolicy (decode_policy), per MIG placement
 * counter scc_counter; per GPU pool (node-local, and the shared one unless per-device) a link
 * counter set (%3 != 0, scc_link); per request with a capacity request its key (%4: bw, GPU
 * domain, MIG domain, both bw and the GPU domain's: "requested both"); per device in use its
 * snapshot (scc_snapshot) and, for a share, a further live share of it (%2) with its own
 * consumed capacity (1 + %2) and snapshot. */
static void decode_scc(rd_t *r, input_t *in)
{
    dra_model_t *m = &in->m;
    in->scc = take(r, 4);
    if (!in->scc)
        return;
    if (in->scc >= 2) {
        in->scc = 2;
        if (dra_alloc_features_set_gate(&in->f, "DRASharedConsumableCapacity", true, NULL))
            abort();
    }
    uint32_t ns = m->nslices;
    for (uint32_t i = 0; i < ns; i++) {
        dra_slice_t *s = m->slices[i];
        if (strcmp(s->driver, MIG_DRV) != 0)
            continue;
        for (uint32_t c = 0; c < s->ncounter_sets; c++)
            for (uint32_t k = 0; k < s->counter_sets[c].ncounters; k++) {
                dra_counter_t *x = &s->counter_sets[c].counters[k];
                x->policy = decode_policy(r, m, x->value.lo, true);
            }
        for (uint32_t d = 0; d < s->ndevices; d++)
            for (uint32_t c = 0; c < s->devices[d].nconsumes; c++)
                for (uint32_t k = 0; k < s->devices[d].consumes[c].ncounters; k++)
                    scc_counter(r, &s->devices[d].consumes[c].counters[k]);
    }
    for (uint32_t i = 0; i < ns; i++) {
        dra_slice_t *s = m->slices[i];
        if (strcmp(s->driver, GPU_DRV) == 0 && s->ndevices && !s->per_device_node_selection &&
            take(r, 3))
            scc_link(r, in, s);
    }
    for (unsigned c = 0; c < in->nclaims; c++)
        for (uint32_t q = 0; q < in->claims[c]->nrequests; q++) {
            dra_request_t *rq = &in->claims[c]->requests[q];
            uint32_t nb = rq->exactly ? 1 : rq->nfirst_available;
            for (uint32_t b = 0; b < nb; b++) {
                dra_exact_request_t *body = rq->exactly ? rq->exactly : &rq->first_available[b];
                if (!body->ncap_requests)
                    continue;
                unsigned k = take(r, 4);
                dra_cap_request_t *cr = body->cap_requests;
                if (k == 3) {
                    cr = dra_model_array(m, 2, sizeof *cr);
                    cr[0] = cr[1] = body->cap_requests[0];
                    body->cap_requests = cr;
                    body->ncap_requests = 2;
                    k = 1;
                    cr++;
                }
                if (k) {
                    cr->name = scc_name[k];
                    cr->qname = dra_model_qname(m, NULL, cr->name);
                }
            }
        }
    unsigned npre = in->npre;
    for (unsigned i = 0; i < npre; i++) {
        in->pre_snap[i] = scc_snapshot(r, m, in->pre_dev[i]);
        if (in->pre_snap[i])
            in->pre_alloc[i].counters = &in->pre_snap[i];
        if (!in->pre_res[i].share_id || !take(r, 2))
            continue;
        unsigned j = in->nscc++;
        dra_result_t *res = &in->scc_res[j];
        *res = in->pre_res[i];
        char nm[40];
        snprintf(nm, sizeof nm, "00000000-0000-4000-8000-00000000001%u", j);
        res->share_id = dra_model_str(m, nm);
        res->consumed = dra_model_array(m, 1, sizeof(dra_consumed_t));
        res->consumed[0] = in->pre_res[i].consumed[0];
        qty(&res->consumed[0].value, 1 + take(r, 2));
        in->scc_alloc[j] = (dra_allocation_t){.results = res, .nresults = 1};
        in->scc_snap[j] = scc_snapshot(r, m, in->pre_dev[i]);
        if (in->scc_snap[j])
            in->scc_alloc[j].counters = &in->scc_snap[j];
    }
}

/* Decodes the input bytes into in (its model initialized here): gates, the nodes and their
 * pools, the shared pool, the claims, then the trailing bytes. */
static void decode(rd_t *r, input_t *in)
{
    static const char *const zones[2] = {"a", "b"};
    dra_model_t *m = &in->m;
    memset(in, 0, sizeof *in);
    dra_model_init(m);
    dra_alloc_features_init(&in->f, dra_alloc_releases[take(r, DRA_RELEASE_COUNT)]);
    gate_set(r, &in->f, "DRAPartitionableDevices");
    gate_set(r, &in->f, "DRAConsumableCapacity");
    gate_set(r, &in->f, "DRADeviceTaints");
    gate_set(r, &in->f, "DRADeviceBindingConditions");
    if (in->f.release >= DRA_RELEASE_1_37) { /* older profiles read no byte more */
        gate_set(r, &in->f, "DRADeviceCompatibilityGroups");
        gate_set(r, &in->f, "DRADerivedAttributes");
        gate_set(r, &in->f, "DRAFractionalCapacityRange");
    }
    unsigned nnodes = 2 + take(r, 3);
    bool mig = take(r, 2);
    for (unsigned n = 0; n < nnodes; n++) {
        char nm[32];
        dra_node_t *node = dra_model_add_node(m);
        snprintf(nm, sizeof nm, "node-%u", n);
        node->name = dra_model_str(m, nm);
        node->labels = dra_model_array(m, 1, sizeof(dra_label_t));
        node->nlabels = 1;
        node->labels[0].key = "zone";
        node->labels[0].value = zones[take(r, 2)];
    }
    if (shares_profile(in))
        in->dec_fl = DEC_SHARES | (m->nodes[0]->labels[0].value == zones[1] ? DEC_NO_BINDING : 0);
    if (in->f.release >= DRA_RELEASE_1_37)
        in->dec_fl |= DEC_R37;
    for (unsigned n = 0; n < nnodes; n++) {
        decode_gpu_pool(r, m, n, m->nodes[n]->name, in->dec_fl);
        if (mig && take(r, 4) != 3)
            decode_mig_pool(r, in, n, m->nodes[n]->name);
    }
    in->shared = take(r, 4);
    if (in->shared == 1 && shares_profile(in))
        in->shared = 0; /* GPUs in the shared range make every plan over them leave the direct
                           answers: in the shares profile an allNodes pool is none */
    if (in->shared)
        decode_shared_pool(r, in, nnodes);
    in->gpu = dra_model_add_class(m);
    in->gpu->name = "gpu";
    in->mig = dra_model_add_class(m);
    in->mig->name = "mig";
    in->nclaims = take(r, 6) == 5 ? 2 : 1;
    for (unsigned c = 0; c < in->nclaims; c++)
        in->claims[c] = decode_claim(r, in, c);
    /* trailing bytes */
    in->selk = take(r, 8);
    if (in->selk >= 5)
        in->selk = 0;
    unsigned ns = class_sel[in->selk] ? 2 : 1;
    in->gpu->selectors = dra_model_array(m, ns, sizeof(dra_selector_t));
    in->gpu->nselectors = ns;
    in->gpu->selectors[0].cel = "device.driver == '" GPU_DRV "'";
    in->gpu->selectors[ns - 1].cel = class_sel[in->selk] ? class_sel[in->selk]
                                                         : in->gpu->selectors[0].cel;
    in->mig->selectors = dra_model_array(m, 1, sizeof(dra_selector_t));
    in->mig->nselectors = 1;
    in->mig->selectors[0].cel = "device.driver == '" MIG_DRV "'";
    decode_pre(r, in);
    in->start = take(r, nnodes);
    in->engine_budget = take(r, 4) == 3;
    in->onode = take(r, nnodes);
    for (unsigned i = 0; i < MAX_FILL; i++)
        in->fill[i] = take(r, 4);
    for (unsigned c = 0, scope = take(r, 2); scope && c < in->nclaims; c++) {
        dra_claim_t *cl = in->claims[c];
        if (cl->nrequests != 2 || !cl->nconstraints)
            continue;
        cl->constraints[0].requests = dra_model_array(m, 1, sizeof(const char *));
        cl->constraints[0].requests[0] = cl->requests[0].name;
        cl->constraints[0].nrequests = 1;
    }
    /* part C: a group of copies of the pod */
    if (take(r, 4) != 0) {
        in->gmembers = 1 + take(r, MAX_GROUP);
        in->ggang = take(r, 4) != 0;
        in->gmin = 1 + take(r, in->gmembers);
        in->gtopo = take(r, 2);
        in->gpolicy = take(r, 4);
        in->gclaim = in->nclaims == 2 && take(r, 2);
        for (unsigned i = 0; i < in->gmembers; i++)
            in->grnd[i] = take(r, 256);
    }
    /* part D (1.37+; read last, so inputs that end before it decode as they did):
     * DRAOptionalNodeOperations - its gate, slices with skipNodeOperations, nodes declaring the
     * feature (core/alloc/node_ops.c) */
    unsigned ono = in->f.release >= DRA_RELEASE_1_37 ? take(r, 4) : 0;
    if (ono) {
        static const char *const ops[3][2] = {{"*", NULL},
                                              {"NodeUnprepareResources", NULL},
                                              {"NodePrepareResources", "NodeUnprepareResources"}};
        gate_set(r, &in->f, "DRAOptionalNodeOperations");
        for (uint32_t i = 0; i < m->nslices; i++)
            if (take(r, 2)) {
                dra_slice_t *sl = m->slices[i];
                sl->skip_node_ops = (const char **)ops[ono - 1];
                sl->nskip_node_ops = ops[ono - 1][1] ? 2 : 1;
            }
        static const char *const feat[1] = {"DRAOptionalNodeOperations"};
        for (uint32_t n = 0; n < m->nnodes; n++)
            if (take(r, 2)) {
                m->nodes[n]->declared_features = (const char **)feat;
                m->nodes[n]->ndeclared_features = 1;
            }
    }
    /* part E (1.38-pre; read last): DRASharedConsumableCapacity */
    if (in->f.release >= DRA_RELEASE_1_38_PRE)
        decode_scc(r, in);
}

/* ---- A: the single-node checks ------------------------------------------------------------- */

/* Sets up the reference and the fast allocators, runs the reference on node into *o and checks
 * the fast ones against it. -1 when something could not run. */
static int run_first(input_t *in, run_t *x, const dra_node_t *node, dra_alloc_outcome_t *o)
{
    dra_model_t *m = &in->m;
    dra_alloc_options_t ao = {.max_steps = NODE_STEPS, .share_seed = 7};
    if (dra_alloc_new(m, &in->f, x->st, x->cel, &ao, &x->al))
        return -1;
    if (dra_alloc_allocate(x->al, node, in->claims, in->nclaims, &x->out, o))
        return -1;
    dra_alloc_options_t ao0 = ao;
    ao0.max_steps = 0;
    if (dra_fast_new(m, &in->f, x->st, x->cel, &ao, &x->fa) ||
        dra_fast_new(m, &in->f, x->st, x->cel, &ao0, &x->fb))
        return -1;
    return same_as_reference(o, x->fa, x->fb, node, in->claims, in->nclaims, &x->out);
}

/* The first-path scan serves the plainest shape (one ExactCount request, no constraint, no
 * adminAccess, no counters, no consumable capacity, no CEL error, no per-device node selection,
 * no invalid pool) whenever it allocates. */
static void check_plain(const input_t *in, const dra_alloc_outcome_t *o)
{
    const dra_model_t *m = &in->m;
    dra_claim_t *const *claims = in->claims;
    bool plain = in->nclaims == 1 && claims[0]->nrequests == 1 && claims[0]->requests[0].exactly &&
                 claims[0]->requests[0].exactly->mode == DRA_MODE_EXACT_COUNT &&
                 !claims[0]->requests[0].exactly->nderived &&
                 !claims[0]->requests[0].exactly->admin_access && !claims[0]->nconstraints &&
                 in->selk < 3 && !in->pdns && !in->bad_pool &&
                 !dra_alloc_gate_on(&in->f, DRA_GATE_CONSUMABLE_CAPACITY);
    for (uint32_t i = 0; plain && i < m->nslices; i++)
        for (uint32_t d = 0; plain && d < m->slices[i]->ndevices; d++)
            plain = !m->slices[i]->devices[d].nconsumes;
    if (plain && o->kind == DRA_OUTCOME_ALLOCATED && last_path != DRA_FAST_PATH_FIRST) {
        fprintf(stderr, "plain claim served by the %s path\n", dra_fast_path_name(last_path));
        abort();
    }
}

/* An allocated outcome o on node: no invariant violated; the allocators agree again against the
 * committed state and after the release, which restores the state's digest. -1 when something
 * could not run. */
static int check_allocated(input_t *in, run_t *x, const dra_node_t *node,
                           const dra_alloc_outcome_t *o)
{
    unsigned n = in->nclaims;
    dra_inv_report_t rep;
    if (dra_inv_check(&in->m, &in->f, x->st, x->cel, node, in->claims, o->allocations, n, &rep) ==
            DRA_OK &&
        rep.nviolations) {
        fprintf(stderr, "invariant violated: %s\n", rep.first[0]);
        abort();
    }
    uint64_t d0 = dra_alloc_state_digest(x->st);
    for (unsigned c = 0; c < n; c++)
        if (dra_alloc_state_commit(x->st, o->allocations[c]))
            return -1;
    dra_alloc_outcome_t o2; /* the same claims again, against the committed state */
    if (dra_alloc_allocate(x->al, node, in->claims, n, &x->out, &o2))
        return -1;
    if (same_as_reference(&o2, x->fa, x->fb, node, in->claims, n, &x->out))
        return -1;
    for (unsigned c = n; c-- > 0;)
        if (dra_alloc_state_release(x->st, o->allocations[c]) != DRA_OK)
            abort();
    if (dra_alloc_state_digest(x->st) != d0)
        abort();
    if (dra_alloc_allocate(x->al, node, in->claims, n, &x->out, &o2))
        return -1;
    if (same_as_reference(&o2, x->fa, x->fb, node, in->claims, n, &x->out))
        return -1;
    return 0;
}

/* An unsatisfiable outcome: the brute force finds no assignment either. */
static void check_unsatisfiable(input_t *in, run_t *x, const dra_node_t *node)
{
    dra_bf_result_t bf;
    if (dra_alloc_bruteforce(&in->m, &in->f, x->st, x->cel, node, in->claims, in->nclaims,
                             BF_BUDGET, &bf) == DRA_OK &&
        bf.verdict == DRA_BF_SATISFIABLE) {
        fprintf(stderr, "reference says unsatisfiable, brute force found an assignment\n");
        abort();
    }
}

/* Part A on node in->onode; the state is as it was afterwards. */
static void single_node(input_t *in, run_t *x)
{
    const dra_node_t *node = in->m.nodes[in->onode];
    dra_alloc_outcome_t o;
    if (run_first(in, x, node, &o) == 0) {
        if (trace)
            fprintf(stderr, "  node %s: %s, path %s, allocateOne %llu\n", node->name,
                    dra_outcome_name(o.kind), dra_fast_path_name(last_path),
                    (unsigned long long)o.stats.allocate_one);
        check_plain(in, &o);
        if (o.kind == DRA_OUTCOME_ALLOCATED)
            (void)check_allocated(in, x, node, &o);
        else if (o.kind == DRA_OUTCOME_UNSATISFIABLE)
            check_unsatisfiable(in, x, node);
    }
}

/* ---- B: the placement engine against the reference placement ------------------------------- */

typedef struct eng_run {
    input_t *in;
    dra_alloc_state_t *st;
    dra_table_t *t;
    dra_anyalloc_t fast, ref;
    bool fast_ok, ref_ok;
    dra_engine_t *e;
    uint32_t plan;
    dra_arena_t tarena, scratch, ref_out;
    dra_arena_t keep[MAX_FILL + 1]; /* results that are committed */
    dra_engine_rec_t rec[MAX_FILL + 1]; /* their release records (not held: none) */
    bool stop;                      /* the reference ran out of steps: nothing to compare */
} eng_run_t;

static const char *const policy_name[4] = {"first-fit", "best-fit", "spread", "random"};

static const char *node_of(const eng_run_t *g, uint32_t n)
{
    return n < g->in->m.nnodes ? g->in->m.nodes[n]->name : "-";
}

/* A placement's outcome for dra_alloc_outcome_differs (shareIDs compared exactly: they are
 * derived from the claim, the result's index and the device, whatever allocator drew them). */
static dra_alloc_outcome_t as_outcome(const dra_engine_result_t *r)
{
    dra_alloc_outcome_t o;
    memset(&o, 0, sizeof o);
    o.kind = r->kind;
    o.allocations = r->allocations;
    o.n = r->n;
    memcpy(o.msg, r->msg, sizeof o.msg);
    return o;
}

static void engine_check(const eng_run_t *g, const char *when)
{
    char why[512] = "";
    if (!dra_engine_check(g->e, why, sizeof why)) {
        fprintf(stderr, "engine summaries differ from a recomputation %s: %s\n", when, why);
        abort();
    }
}

static void print_devices(const char *who, const dra_engine_result_t *r)
{
    fprintf(stderr, "  %s:", who);
    for (uint32_t i = 0; r->kind == DRA_OUTCOME_ALLOCATED && i < r->n; i++)
        for (uint32_t j = 0; r->allocations[i] && j < r->allocations[i]->nresults; j++) {
            const dra_result_t *x = &r->allocations[i]->results[j];
            fprintf(stderr, " %s=%s/%s%s", x->request, x->pool, x->device,
                    x->share_id ? " (share)" : "");
        }
    fprintf(stderr, "%s%s\n", r->msg[0] ? " " : "", r->msg);
}

/* A placement call that returned an error: out of memory is no finding (false: nothing to
 * compare); anything else is (the input is valid: an EINVAL, or an EINTERNAL from a build that
 * verifies the engine's direct answers against its allocator, with the difference in msg). */
static bool placement_error(int rc, const char *who, dra_engine_policy_t pol, const char *when,
                            const char *msg)
{
    if (rc == DRA_ENOMEM)
        return false;
    fprintf(stderr, "%s failed (%s, %s): %s: %s\n", who, policy_name[pol], when, dra_strerror(rc),
            msg);
    abort();
}

/* Places the pod with the reference placement and with the engine into out; they must decide
 * the same. false when the comparison cannot be made (the reference ran out of steps: g->stop)
 * or something could not run. */
static bool place_both(eng_run_t *g, dra_engine_policy_t pol, dra_arena_t *out,
                       dra_engine_result_t *res, const char *when)
{
    uint32_t start = pol == DRA_ENGINE_RANDOM ? g->in->start : 0;
    dra_engine_result_t ref;
    dra_arena_reset(&g->ref_out);
    memset(&ref, 0, sizeof ref);
    memset(res, 0, sizeof *res);
    int rc = dra_engine_place_reference(g->e, &g->ref, g->plan, pol, start, &g->ref_out, &ref);
    if (rc)
        return placement_error(rc, "reference placement", pol, when, ref.msg);
    if (budget_hit(ref.kind, ref.msg)) {
        /* nothing to compare: the engine may skip the node where the reference ran out of steps
         * (its summaries prove the node unsatisfiable), and an unbudgeted engine may search on */
        if (trace)
            fprintf(stderr, "  %s %s: the reference ran out of steps\n", policy_name[pol], when);
        g->stop = true;
        return false;
    }
    dra_arena_reset(out);
    rc = dra_engine_place(g->e, g->plan, pol, start, out, res);
    if (rc)
        return placement_error(rc, "engine placement", pol, when, res->msg);
    dra_alloc_outcome_t a = as_outcome(res), b = as_outcome(&ref);
    char why[1200] = "";
    bool differs = res->node != ref.node || dra_alloc_outcome_differs(&a, &b, why, sizeof why);
    if (trace)
        fprintf(stderr,
                "  %s %s: %s on %s, path %d, %u exact calls, %u direct, served %s, allocateOne "
                "%llu\n",
                policy_name[pol], when, dra_outcome_name(res->kind), node_of(g, res->node),
                (int)res->path, res->exact_calls, res->direct_calls,
                dra_engine_served_name(res->served), (unsigned long long)res->stats.allocate_one);
    if (differs) {
        fprintf(stderr,
                "engine placement differs from the reference placement (%s, start %u, %s): "
                "engine %s on %s, reference %s on %s: %s\n",
                policy_name[pol], start, when, dra_outcome_name(res->kind), node_of(g, res->node),
                dra_outcome_name(ref.kind), node_of(g, ref.node), why[0] ? why : "node differs");
        print_devices("engine", res);
        print_devices("reference", &ref);
        abort();
    }
    return true;
}

/* Commit res; with rec, through a release record (kept when the engine can: release() then
 * releases by it). */
static void commit(eng_run_t *g, const dra_engine_result_t *res, dra_engine_rec_t *rec)
{
    if ((rec ? dra_engine_commit_pod_rec(g->e, g->plan, res->node, res->allocations, res->n, rec)
             : dra_engine_commit_pod(g->e, g->plan, res->node, res->allocations, res->n)) !=
        DRA_OK) {
        fprintf(stderr, "engine commit of an allocated placement failed\n");
        abort();
    }
    engine_check(g, "after a commit");
}

static void release(eng_run_t *g, const dra_engine_result_t *res, dra_engine_rec_t *rec)
{
    if ((dra_engine_rec_held(rec)
             ? dra_engine_release_record(g->e, rec)
             : dra_engine_release_pod(g->e, g->plan, res->node, res->allocations, res->n)) !=
            DRA_OK ||
        dra_engine_rec_held(rec)) {
        fprintf(stderr, "engine release of a committed placement failed\n");
        abort();
    }
    engine_check(g, "after a release");
}

/* Every policy: place; when allocated, commit, place again, release (the digest is restored),
 * place again. Then the fill sequence. */
static void engine_rounds(eng_run_t *g)
{
    uint64_t d0 = dra_alloc_state_digest(g->st);
    dra_engine_result_t res, again;
    for (unsigned p = 0; p < 4 && !g->stop; p++) {
        dra_engine_policy_t pol = (dra_engine_policy_t)p;
        if (!place_both(g, pol, &g->keep[0], &res, "first placement"))
            return;
        if (res.kind != DRA_OUTCOME_ALLOCATED)
            continue;
        dra_engine_rec_t *rec = p & 1 ? &g->rec[0] : NULL;
        commit(g, &res, rec);
        if (!place_both(g, pol, &g->scratch, &again, "placement after the commit"))
            return;
        release(g, &res, rec);
        if (dra_alloc_state_digest(g->st) != d0) {
            fprintf(stderr, "state digest not restored by the engine's release\n");
            abort();
        }
        if (!place_both(g, pol, &g->scratch, &again, "placement after the release"))
            return;
    }
    /* fill: place and commit until nothing allocates (at most MAX_FILL pods), then release */
    dra_engine_result_t pods[MAX_FILL];
    unsigned npods = 0;
    for (unsigned i = 0; i < MAX_FILL && !g->stop; i++) {
        dra_engine_policy_t pol = (dra_engine_policy_t)g->in->fill[i];
        if (!place_both(g, pol, &g->keep[1 + npods], &pods[npods], "fill"))
            break;
        if (pods[npods].kind != DRA_OUTCOME_ALLOCATED)
            break;
        commit(g, &pods[npods], npods & 1 ? &g->rec[1 + npods] : NULL);
        npods++;
    }
    while (npods-- > 0)
        release(g, &pods[npods], npods & 1 ? &g->rec[1 + npods] : NULL);
    if (dra_alloc_state_digest(g->st) != d0) {
        fprintf(stderr, "state digest not restored after the fill sequence\n");
        abort();
    }
}

/* ---- C: a PodGroup of copies of the pod -------------------------------------------------- */

/* The group's host on the engine: plan_full (the group claim, then the pod's other claim) for a
 * member that allocates the group claim, plan_own otherwise; one arena per member (the engine
 * resets the arena it answers into). */
typedef struct ghost {
    eng_run_t *g;
    uint32_t plan_own, plan_full;
    dra_arena_t *marena;
    bool keep; /* a release keeps the member's answers (compared after) */
} ghost_t;

static uint32_t gplan(const ghost_t *h, uint32_t need)
{
    return need ? h->plan_full : h->plan_own;
}

static int g_answer(void *ctx, uint32_t member, uint32_t need, uint32_t node, dra_arena_t *unused,
                    dra_alloc_outcome_t *out)
{
    ghost_t *h = ctx;
    (void)unused;
    dra_engine_result_t r;
    int rc = dra_engine_answer_on(h->g->e, gplan(h, need), node, &h->marena[member], &r);
    *out = as_outcome(&r);
    return rc;
}

static int g_commit(void *ctx, uint32_t member, uint32_t need, uint32_t node,
                    dra_allocation_t *const *a, uint32_t n)
{
    ghost_t *h = ctx;
    (void)member;
    return dra_engine_commit_pod(h->g->e, gplan(h, need), node, a, n);
}

static int g_release(void *ctx, uint32_t member, uint32_t need, uint32_t node,
                     dra_allocation_t *const *a, uint32_t n)
{
    ghost_t *h = ctx;
    int rc = dra_engine_release_pod(h->g->e, gplan(h, need), node, a, n);
    if (!h->keep)
        dra_arena_reset(&h->marena[member]);
    return rc;
}

static uint32_t g_score(void *ctx, uint32_t node)
{
    return dra_engine_score(((ghost_t *)ctx)->g->e, node);
}

static void g_res(void *ctx, uint32_t node, int64_t out[4])
{
    dra_engine_node_resources(((ghost_t *)ctx)->g->e, node, out);
}

static uint32_t g_next(void *ctx, uint32_t member, uint32_t need, uint32_t from)
{
    ghost_t *h = ctx;
    (void)member;
    uint32_t n = dra_engine_next_admitted(h->g->e, gplan(h, need), from);
    return n == DRA_ENGINE_NONE ? DRA_GROUP_NONE : n;
}

static int g_place(void *ctx, uint32_t member, uint32_t need, uint32_t start, dra_arena_t *unused,
                   dra_alloc_outcome_t *out, uint32_t *node)
{
    ghost_t *h = ctx;
    (void)unused;
    dra_engine_result_t r;
    int rc = dra_engine_place(h->g->e, gplan(h, need), (dra_engine_policy_t)h->g->in->gpolicy,
                              start, &h->marena[member], &r);
    *out = as_outcome(&r);
    *node = r.kind == DRA_OUTCOME_ALLOCATED || r.kind == DRA_OUTCOME_FATAL ? r.node
                                                                           : DRA_GROUP_NONE;
    return rc;
}

/* Releases what a kept group result committed, newest first. */
static void group_release(ghost_t *h, const dra_group_result_t *r, unsigned nm)
{
    for (unsigned i = nm; i-- > 0;) {
        const dra_group_member_res_t *mr = &r->members[i];
        if (mr->kind == DRA_OUTCOME_ALLOCATED && mr->node != DRA_GROUP_NONE &&
            g_release(h, i, mr->need, mr->node, mr->allocs, mr->nallocs) != DRA_OK) {
            fprintf(stderr, "group: release of a kept member failed\n");
            abort();
        }
    }
}

/* The literal PodGroup cycle (every placement, every member, every node, on the engine's exact
 * answers) against the fast one (the engine's index, per-domain summaries from its fit bounds),
 * both from the same state: the same decision, the same state after, the summaries' bounds
 * never below what actually fits. Skipped when the engine's allocator has a step budget (a
 * budget hit is Fatal on nodes the fast cycle rightly skips). */
static void group_part(eng_run_t *g)
{
    input_t *in = g->in;
    if (!in->gmembers || in->engine_budget || g->stop)
        return;
    ghost_t h = {g, g->plan, g->plan, NULL, false};
    dra_claim_t *own = in->claims[in->nclaims - 1];
    if (in->gclaim && (dra_engine_plan(g->e, &own, 1, &h.plan_own) != DRA_OK))
        return;
    dra_arena_t marena[2][MAX_GROUP], arena[2];
    for (int k = 0; k < 2; k++) {
        dra_arena_init(&arena[k], 0);
        for (unsigned i = 0; i < MAX_GROUP; i++)
            dra_arena_init(&marena[k][i], 0);
    }
    dra_group_ctx_t *ctx = NULL;
    dra_group_topo_t *topo = NULL;
    dra_group_sums_t *sums = NULL;
    dra_group_member_t mem[MAX_GROUP];
    memset(mem, 0, sizeof mem);
    for (unsigned i = 0; i < in->gmembers; i++) {
        mem[i].gclaims = in->gclaim ? 1u : 0u;
        mem[i].bound_node = DRA_GROUP_NONE;
        mem[i].rnd = in->grnd[i];
    }
    dra_group_spec_t spec;
    memset(&spec, 0, sizeof spec);
    spec.policy = in->ggang ? DRA_GROUP_GANG : DRA_GROUP_BASIC;
    spec.min_count = in->gmin;
    spec.gang_gate = true;
    spec.tas = in->gtopo;
    spec.node_policy = (dra_engine_policy_t)in->gpolicy;
    spec.ngclaims = in->gclaim ? 1 : 0;
    spec.members = mem;
    spec.nmembers = in->gmembers;
    uint32_t nn = in->m.nnodes;
    if (dra_group_ctx_new(nn, MAX_GROUP, &ctx) != DRA_OK ||
        (in->gtopo && dra_group_topo_new(&in->m, "zone", &topo) != DRA_OK) ||
        dra_group_sums_new(topo, nn, &sums) != DRA_OK)
        goto out;
    spec.topo = topo;
    for (uint32_t n = 0; n < nn; n++) {
        int64_t r4[4];
        dra_engine_node_resources(g->e, n, r4);
        dra_group_sums_set_bound(sums, n, dra_engine_fit_bound(g->e, h.plan_own, n));
        dra_group_sums_set_res(sums, n, r4);
    }
    uint64_t d0 = dra_alloc_state_digest(g->st);
    dra_group_result_t rr, fr;
    h.marena = marena[0];
    dra_group_host_t lit = {&h, &in->m, g_answer, g_commit, g_release, g_score, g_res, NULL, NULL};
    if (dra_group_cycle_reference(ctx, &spec, &lit, &arena[0], &rr) != DRA_OK)
        goto out;
    uint64_t d1 = dra_alloc_state_digest(g->st);
    /* the bounds are upper bounds: no domain took more members than its bound */
    for (uint32_t d = 0; d < (topo ? topo->ndomains : 1); d++) {
        uint64_t took = 0;
        for (unsigned i = 0; i < in->gmembers; i++)
            took += rr.members[i].kind == DRA_OUTCOME_ALLOCATED &&
                    rr.members[i].node != DRA_GROUP_NONE &&
                    (!topo || topo->dom[rr.members[i].node] == d);
        if (took > dra_group_sums_bound(sums, d)) {
            fprintf(stderr, "group: domain %u took %llu members, its bound is %llu\n", d,
                    (unsigned long long)took, (unsigned long long)dra_group_sums_bound(sums, d));
            abort();
        }
    }
    h.keep = true;
    group_release(&h, &rr, in->gmembers);
    h.keep = false;
    engine_check(g, "after the literal group cycle");
    if (dra_alloc_state_digest(g->st) != d0) {
        fprintf(stderr, "group: state not restored after the literal cycle's release\n");
        abort();
    }
    spec.sums = sums;
    spec.certain = dra_engine_plan_certain(g->e, h.plan_own) &&
                   dra_engine_plan_certain(g->e, h.plan_full);
    h.marena = marena[1];
    dra_group_host_t fast = {&h, &in->m, g_answer, g_commit, g_release, g_score, g_res,
                             g_next, in->gtopo ? NULL : g_place};
    if (dra_group_cycle_fast(ctx, &spec, &fast, &arena[1], &fr) != DRA_OK)
        goto out;
    char why[256];
    if (trace)
        fprintf(stderr, "  group of %u (%s, minCount %u, %s, %s%s): literal %s, fast %s\n",
                in->gmembers, in->ggang ? "gang" : "basic", in->gmin,
                in->gtopo ? "zones" : "all nodes", policy_name[in->gpolicy],
                in->gclaim ? ", group claim" : "", dra_group_outcome_name(rr.outcome),
                dra_group_outcome_name(fr.outcome));
    if (!dra_group_result_equal(&rr, &fr, in->gmembers, why, sizeof why) ||
        dra_alloc_state_digest(g->st) != d1) {
        fprintf(stderr, "group: the fast cycle decides otherwise than the literal one: %s\n",
                why[0] ? why : "state differs");
        abort();
    }
    group_release(&h, &fr, in->gmembers);
    engine_check(g, "after the fast group cycle");
    if (dra_alloc_state_digest(g->st) != d0) {
        fprintf(stderr, "group: state not restored after the fast cycle's release\n");
        abort();
    }
out:
    dra_group_sums_free(sums);
    dra_group_topo_free(topo);
    dra_group_ctx_free(ctx);
    for (int k = 0; k < 2; k++) {
        dra_arena_fini(&arena[k]);
        for (unsigned i = 0; i < MAX_GROUP; i++)
            dra_arena_fini(&marena[k][i]);
    }
}

/* Part B: the table, the engine with the fast allocator, a reference allocator for the
 * reference placement, all over the state st (with the devices in use). */
static void engine_part(input_t *in, dra_alloc_state_t *st, dra_cel_cache_t *cel)
{
    eng_run_t g;
    memset(&g, 0, sizeof g);
    g.in = in;
    g.st = st;
    dra_arena_init(&g.tarena, 0);
    dra_arena_init(&g.scratch, 0);
    dra_arena_init(&g.ref_out, 0);
    for (unsigned i = 0; i <= MAX_FILL; i++)
        dra_arena_init(&g.keep[i], 0);
    dra_diag_t diag;
    dra_diag_clear(&diag);
    dra_alloc_options_t fo = {.max_steps = in->engine_budget ? ENGINE_STEPS : 0, .share_seed = 7};
    dra_alloc_options_t ro = {.max_steps = ENGINE_STEPS, .share_seed = 7};
    if (dra_table_build(&in->m, &g.tarena, &g.t, &diag) != DRA_OK)
        goto out;
    if (dra_anyalloc_new(DRA_ALLOC_FAST, &in->m, &in->f, st, cel, &fo, &g.fast) != DRA_OK)
        goto out;
    g.fast_ok = true;
    if (dra_anyalloc_new(DRA_ALLOC_REFERENCE, &in->m, &in->f, st, cel, &ro, &g.ref) != DRA_OK)
        goto out;
    g.ref_ok = true;
    int rc = dra_engine_new(&in->m, g.t, &in->f, st, cel, &g.fast, NULL, &g.e, &diag);
    if (rc == DRA_ENOMEM)
        goto out;
    if (rc != DRA_OK) {
        fprintf(stderr, "engine set-up failed on a valid cluster: %s\n", diag.msg);
        abort();
    }
    if (dra_engine_plan(g.e, in->claims, in->nclaims, &g.plan) != DRA_OK)
        goto out;
    engine_check(&g, "after set-up");
    if (trace)
        fprintf(stderr, "  engine: plan %s\n",
                dra_engine_plan_indexed(g.e, g.plan) ? "indexed" : "brute force");
    engine_rounds(&g);
    group_part(&g);
out:
    dra_engine_free(g.e);
    if (g.ref_ok)
        dra_anyalloc_free(&g.ref);
    if (g.fast_ok)
        dra_anyalloc_free(&g.fast);
    for (unsigned i = 0; i <= MAX_FILL; i++)
        dra_arena_fini(&g.keep[i]);
    dra_arena_fini(&g.ref_out);
    dra_arena_fini(&g.scratch);
    dra_arena_fini(&g.tarena);
}

static void trace_input(const input_t *in)
{
    const dra_model_t *m = &in->m;
    fprintf(stderr,
            "input: release %s, %u nodes, %u slices, %llu devices, shared %u, "
            "%u in use, class selector %u, gates 0x%x, %u claim(s):",
            dra_alloc_release_name((dra_release_t)in->f.release), m->nnodes, m->nslices,
            (unsigned long long)m->ndevices, in->shared,
            in->npre, in->selk, in->f.gates, in->nclaims);
    for (unsigned c = 0; c < in->nclaims; c++) {
        const dra_claim_t *cl = in->claims[c];
        fprintf(stderr, " [");
        for (unsigned q = 0; q < cl->nrequests; q++) {
            const dra_request_t *r = &cl->requests[q];
            const dra_exact_request_t *b = r->exactly ? r->exactly : r->first_available;
            fprintf(stderr, "%s%s%s %s x%lld%s%s", q ? ", " : "",
                    r->nfirst_available ? "firstAvailable " : "",
                    b->mode == DRA_MODE_ALL ? "All" : "ExactCount", b->class_name,
                    (long long)b->count, b->admin_access ? " admin" : "",
                    b->ncap_requests ? " capacity" : "");
        }
        if (cl->nconstraints)
            fprintf(stderr, "; %s %s%s", cl->constraints[0].match_attribute ? "match" : "distinct",
                    cl->constraints[0].match_attribute ? cl->constraints[0].match_attribute
                                                       : cl->constraints[0].distinct_attribute,
                    cl->constraints[0].nrequests ? " (first request)" : "");
        fprintf(stderr, "]");
    }
    fprintf(stderr, "\n");
    for (uint32_t i = 0; i < m->nslices; i++) {
        const dra_slice_t *s = m->slices[i];
        fprintf(stderr, "  slice %s (pool %s/%s, %s%s, %u counter sets):", s->name, s->driver,
                s->pool_name,
                s->node_name       ? s->node_name
                : s->all_nodes     ? "all nodes"
                : s->node_selector ? "zone a"
                                   : "per device",
                "", s->ncounter_sets);
        for (uint32_t d = 0; d < s->ndevices; d++) {
            const dra_device_t *dv = &s->devices[d];
            fprintf(stderr, " %s", dv->name);
            if (s->per_device_node_selection)
                fprintf(stderr, "@%s",
                        dv->node_name   ? dv->node_name
                        : dv->all_nodes ? "all"
                                        : "zone-a");
            if (dv->ntaints)
                fprintf(stderr, "+taint");
            if (dv->nbinding_conditions)
                fprintf(stderr, "+binding");
            if (dv->allow_multiple_allocations)
                fprintf(stderr, "+multi");
            for (uint32_t c = 0; c < dv->nconsumes; c++) {
                fprintf(stderr, "+on:%s", dv->consumes[c].counter_set ? dv->consumes[c].counter_set
                                                                       : "");
                for (uint32_t k = 0; k < dv->consumes[c].ncounters; k++)
                    if (dv->consumes[c].counters[k].value_from)
                        fprintf(stderr, "+%s<-%s", dv->consumes[c].counters[k].name,
                                dv->consumes[c].counters[k].value_from);
                for (uint32_t g = 0; g < dv->consumes[c].ngroups; g++)
                    fprintf(stderr, "%s%s", g ? "," : "[", dv->consumes[c].groups[g]);
                if (dv->consumes[c].ngroups)
                    fprintf(stderr, "]");
            }
            for (uint32_t a = 0; a < dv->nattrs; a++)
                if (dv->attrs[a].kind == DRA_ATTR_INT && strcmp(dv->attrs[a].name, "model") == 0 &&
                    dv->attrs[a].v.i == 0)
                    fprintf(stderr, "+model0");
        }
        fprintf(stderr, "\n");
    }
    for (unsigned i = 0; i < in->npre; i++)
        fprintf(stderr, "  in use: %s/%s%s%s\n", in->pre_res[i].pool, in->pre_res[i].device,
                in->pre_res[i].share_id ? " (share)" : "",
                in->pre_snap[i] ? " (consumedCounters)" : "");
    for (unsigned i = 0; i < in->nscc; i++)
        fprintf(stderr, "  in use: %s/%s (further share)%s\n", in->scc_res[i].pool,
                in->scc_res[i].device, in->scc_snap[i] ? " (consumedCounters)" : "");
    if (in->scc)
        fprintf(stderr, "  DRASharedConsumableCapacity fields, gate %s\n",
                in->scc == 2 ? "on" : "off");
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static int trace_init;
    if (!trace_init) {
        const char *t = getenv("ALLOC_FUZZER_TRACE");
        trace = t && *t && strcmp(t, "0") != 0;
        trace_init = 1;
    }
    rd_t r = {data, size};
    input_t in;
    decode(&r, &in);
    if (trace)
        trace_input(&in);
    run_t x = {0};
    dra_arena_init(&x.out, 0);
    if (dra_alloc_state_new(&in.m, &in.f, &x.st) == DRA_OK && dra_cel_cache_new(&x.cel) == DRA_OK) {
        bool ok = true;
        for (unsigned i = 0; i < in.npre && ok; i++)
            ok = dra_alloc_state_commit(x.st, &in.pre_alloc[i]) == DRA_OK;
        for (unsigned i = 0; i < in.nscc && ok; i++)
            ok = dra_alloc_state_commit(x.st, &in.scc_alloc[i]) == DRA_OK;
        if (ok) {
            single_node(&in, &x);
            engine_part(&in, x.st, x.cel);
        }
    }
    dra_fast_free(x.fa);
    dra_fast_free(x.fb);
    dra_alloc_free(x.al);
    dra_cel_cache_free(x.cel);
    dra_alloc_state_free(x.st);
    dra_arena_fini(&x.out);
    dra_model_fini(&in.m);
    return 0;
}
