/*
 * alloc_fuzzer.c - structured fuzzing of the reference allocator. Input bytes decode into a tiny
 * cluster (one node, up to 8 devices in one or two pools with numa attributes, taints, shared
 * counters, multi-allocatable devices with capacity) and up to two claims (ExactCount / All,
 * firstAvailable, matchAttribute / distinctAttribute, tolerations, capacity requests), then
 * (trailing bytes) a class selector (none, two CEL selectors, one failing on every device) and a
 * device already in use. Checks, with upstream bugs fixed:
 *  - ALLOCATED: the invariant checker finds nothing; commit then release restores the digest;
 *  - UNSATISFIABLE: the brute-force enumerator finds no assignment either;
 *  - the fast allocator (alloc/fast.h) decides identically: with the same step budget (no
 *    pruning) also with the same allocateOne count, without a budget (pruning on) whenever the
 *    reference did not run out of steps; and again after the result is committed and after it
 *    is released (its state mirror follows the commits);
 *  - the fast allocator's first-path scan (stats.path) serves every allocated plain claim (one
 *    ExactCount request, no constraint, no counters, no consumable capacity, no CEL error).
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "alloc/alloc.h"
#include "alloc/fast.h"
#include "alloc/invariants.h"

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

static bool budget_hit(const dra_alloc_outcome_t *o)
{
    return o->kind == DRA_OUTCOME_FATAL && strncmp(o->msg, "filter operation aborted", 24) == 0;
}

static uint32_t last_path; /* stats.path of the last call of the budgeted fast allocator */

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
        fprintf(stderr, "fast allocator differs from the reference: %s (allocateOne %llu vs %llu)\n",
                why, (unsigned long long)fo.stats.allocate_one,
                (unsigned long long)o->stats.allocate_one);
        abort();
    }
    if (fb && !budget_hit(o)) {
        if (dra_fast_allocate(fb, node, claims, n, out, &fo))
            return -1;
        if (dra_alloc_outcome_differs(o, &fo, why, sizeof why)) {
            fprintf(stderr, "fast allocator (pruning) differs from the reference: %s\n", why);
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
 * so that one input stays well inside libFuzzer's 10 s timeout under ASan+UBSan+coverage. */
#define BF_BUDGET 50000

/* A gate the allocator knows: setting it cannot fail. */
static void gate_on(dra_alloc_features_t *f, const char *gate)
{
    if (dra_alloc_features_set_gate(f, gate, true, NULL) != DRA_OK)
        abort();
}

/* One decoded input: the model, its gates and the claims, with what the trailing bytes chose. */
typedef struct input {
    dra_model_t m;
    dra_alloc_features_t f;
    dra_node_t *node;
    dra_device_class_t *cls;
    dra_claim_t *claims[2];
    unsigned nclaims;
    unsigned selk; /* index in class_sel */
    unsigned pre;  /* 1..4: dev-(pre-1) of pool-a in use */
    char pre_dev[16];
    dra_result_t pre_res;
    dra_allocation_t pre_alloc;
} input_t;

/* The allocators and their state for one input. */
typedef struct run {
    dra_alloc_state_t *st;
    dra_cel_cache_t *cel;
    dra_allocator_t *al;
    dra_fast_t *fa, *fb; /* fa: the reference's budget; fb: none (NULL when it ran out) */
    dra_arena_t out;
} run_t;

/* Class selectors (none, two that match some devices, one whose evaluation fails on every
 * device). */
static const char *const class_sel[4] = {NULL, "device.attributes['driver-a'].numa >= 1",
                                          "device.attributes['driver-a'].numa != 1",
                                          "device.attributes['driver-a'].nosuch == 1"};

/* Decodes device d of a slice (counters: the slice has a counter set to consume from). */
static void decode_device(rd_t *r, dra_model_t *m, dra_device_t *dev, unsigned d, bool counters)
{
    char nm[32];
    snprintf(nm, sizeof nm, "dev-%u", d);
    dev->name = dra_model_str(m, nm);
    dev->attrs = dra_model_array(m, 1, sizeof(dra_attr_t));
    dev->nattrs = 1;
    dev->attrs[0].name = "numa";
    dev->attrs[0].qname = dra_model_qname(m, "driver-a", "numa");
    dev->attrs[0].kind = DRA_ATTR_INT;
    dev->attrs[0].count = 1;
    dev->attrs[0].v.i = take(r, 3);
    if (take(r, 4) == 0) {
        dev->taints = dra_model_array(m, 1, sizeof(dra_taint_t));
        dev->ntaints = 1;
        dev->taints[0].key = "t";
        dev->taints[0].effect = DRA_EFFECT_NO_SCHEDULE;
    }
    if (counters && take(r, 2)) {
        dev->consumes = dra_model_array(m, 1, sizeof(dra_consumes_t));
        dev->nconsumes = 1;
        dev->consumes[0].counter_set = "set";
        dev->consumes[0].counters = dra_model_array(m, 1, sizeof(dra_counter_t));
        dev->consumes[0].ncounters = 1;
        dev->consumes[0].counters[0].name = "mem";
        qty(&dev->consumes[0].counters[0].value, 1 + take(r, 4));
    }
    if (take(r, 3) == 0) {
        dev->allow_multiple_allocations = true;
        dev->caps = dra_model_array(m, 1, sizeof(dra_capacity_t));
        dev->ncaps = 1;
        dev->caps[0].name = "bw";
        dev->caps[0].qname = dra_model_qname(m, "driver-a", "bw");
        qty(&dev->caps[0].value, 2 + take(r, 4));
    }
}

/* Decodes the slice of pool p: local or for all nodes, a counter set, 1 to 4 devices. */
static void decode_slice(rd_t *r, dra_model_t *m, unsigned p)
{
    static const char *const pools[2] = {"pool-a", "pool-b"};
    dra_slice_t *s = dra_model_add_slice(m);
    char nm[32];
    snprintf(nm, sizeof nm, "slice-%u", p);
    s->name = dra_model_str(m, nm);
    s->driver = "driver-a";
    s->pool_name = pools[p];
    s->generation = 1;
    s->slice_count = 1;
    s->node_name = take(r, 4) ? "node-1" : NULL;
    s->all_nodes = !s->node_name;
    bool counters = take(r, 2);
    if (counters) {
        s->counter_sets = dra_model_array(m, 1, sizeof(dra_counter_set_t));
        s->ncounter_sets = 1;
        s->counter_sets[0].name = "set";
        s->counter_sets[0].counters = dra_model_array(m, 1, sizeof(dra_counter_t));
        s->counter_sets[0].ncounters = 1;
        s->counter_sets[0].counters[0].name = "mem";
        qty(&s->counter_sets[0].counters[0].value, 2 + take(r, 6));
    }
    unsigned nd = 1 + take(r, 4);
    s->devices = dra_model_array(m, nd, sizeof(dra_device_t));
    s->ndevices = nd;
    for (unsigned d = 0; d < nd; d++)
        decode_device(r, m, &s->devices[d], d, counters);
    dra_model_slice_done(m, s);
}

/* Decodes request q: one body, or two firstAvailable ones, each with a mode, a count,
 * a toleration and a capacity request. */
static void decode_request(rd_t *r, input_t *in, dra_request_t *rq, unsigned q)
{
    dra_model_t *m = &in->m;
    char nm[32];
    snprintf(nm, sizeof nm, "req-%u", q);
    rq->name = dra_model_str(m, nm);
    unsigned nalt = take(r, 3) == 0 ? 2 : 1;
    dra_exact_request_t *bodies = dra_model_array(m, nalt, sizeof(dra_exact_request_t));
    for (unsigned a = 0; a < nalt; a++) {
        dra_exact_request_t *b = &bodies[a];
        snprintf(nm, sizeof nm, nalt > 1 ? "sub-%u" : "req-%u", nalt > 1 ? a : q);
        b->name = dra_model_str(m, nm);
        b->class_name = "class-a";
        b->mode = take(r, 6) == 0 ? DRA_MODE_ALL : DRA_MODE_EXACT_COUNT;
        b->has_count = true;
        b->count = 1 + take(r, 3);
        if (take(r, 3) == 0) {
            b->tolerations = dra_model_array(m, 1, sizeof(dra_toleration_t));
            b->ntolerations = 1;
            b->tolerations[0].key = "t";
            b->tolerations[0].op = DRA_TOL_EXISTS;
            b->tolerations[0].effect = DRA_EFFECT_EMPTY;
        }
        if (dra_alloc_gate_on(&in->f, DRA_GATE_CONSUMABLE_CAPACITY) && take(r, 2)) {
            b->has_capacity = true;
            b->cap_requests = dra_model_array(m, 1, sizeof(dra_cap_request_t));
            b->ncap_requests = 1;
            b->cap_requests[0].name = "bw";
            b->cap_requests[0].qname = dra_model_qname(m, "driver-a", "bw");
            qty(&b->cap_requests[0].value, 1 + take(r, 3));
        }
    }
    if (nalt > 1) {
        rq->first_available = bodies;
        rq->nfirst_available = nalt;
    } else {
        rq->exactly = bodies;
    }
}

/* Decodes claim c: 1 or 2 requests and at most one constraint. */
static dra_claim_t *decode_claim(rd_t *r, input_t *in, unsigned c)
{
    dra_model_t *m = &in->m;
    dra_claim_t *cl = dra_model_add_claim(m);
    char nm[32];
    snprintf(nm, sizeof nm, "claim-%u", c);
    cl->name = dra_model_str(m, nm);
    cl->namespace_ = "default";
    unsigned nreq = 1 + take(r, 2);
    cl->requests = dra_model_array(m, nreq, sizeof(dra_request_t));
    cl->nrequests = nreq;
    for (unsigned q = 0; q < nreq; q++)
        decode_request(r, in, &cl->requests[q], q);
    unsigned ncons = take(r, 3);
    if (ncons) {
        cl->constraints = dra_model_array(m, 1, sizeof(dra_constraint_t));
        cl->nconstraints = 1;
        if (ncons == 1 || !dra_alloc_gate_on(&in->f, DRA_GATE_CONSUMABLE_CAPACITY))
            cl->constraints[0].match_attribute = "driver-a/numa";
        else
            cl->constraints[0].distinct_attribute = "driver-a/numa";
    }
    return cl;
}

/* Decodes the input bytes into in (its model initialized here): gates, the cluster, the claims,
 * then the trailing bytes. */
static void decode(rd_t *r, input_t *in)
{
    dra_model_t *m = &in->m;
    dra_model_init(m);
    dra_alloc_features_init(&in->f, (dra_release_t)(134 + take(r, 3)));
    if (take(r, 2))
        gate_on(&in->f, "DRAPartitionableDevices");
    if (take(r, 2))
        gate_on(&in->f, "DRAConsumableCapacity");
    if (take(r, 2))
        gate_on(&in->f, "DRADeviceTaints");
    in->node = dra_model_add_node(m);
    in->node->name = "node-1";
    in->cls = dra_model_add_class(m);
    in->cls->name = "class-a";
    unsigned npools = 1 + take(r, 2);
    for (unsigned p = 0; p < npools; p++)
        decode_slice(r, m, p);
    in->nclaims = 1 + take(r, 2);
    for (unsigned c = 0; c < in->nclaims; c++)
        in->claims[c] = decode_claim(r, in, c);
    /* Trailing bytes (absent in older corpus files, which decode as before): a class selector
     * and a device of pool-a allocated before the first call. */
    in->selk = take(r, 4);
    if (class_sel[in->selk]) {
        in->cls->selectors = dra_model_array(m, 1, sizeof(dra_selector_t));
        in->cls->selectors[0].cel = class_sel[in->selk];
        in->cls->nselectors = 1;
    }
    in->pre = take(r, 5);
    in->pre_res = (dra_result_t){.request = "pre", .driver = "driver-a", .pool = "pool-a"};
    snprintf(in->pre_dev, sizeof in->pre_dev, "dev-%u", in->pre ? in->pre - 1 : 0);
    in->pre_res.device = in->pre_dev;
    in->pre_alloc = (dra_allocation_t){.results = &in->pre_res, .nresults = 1};
}

/* Sets up the state (with the device in use), the reference and the fast allocators, runs the
 * reference into *o and checks the fast ones against it. -1 when something could not run. */
static int run_first(input_t *in, run_t *x, dra_alloc_outcome_t *o)
{
    dra_model_t *m = &in->m;
    if (dra_alloc_state_new(m, &in->f, &x->st) || dra_cel_cache_new(&x->cel))
        return -1;
    if (in->pre && m->nslices && m->slices[0]->ndevices >= in->pre &&
        dra_alloc_state_commit(x->st, &in->pre_alloc))
        return -1;
    dra_alloc_options_t ao = {.max_steps = 200000, .share_seed = 7};
    if (dra_alloc_new(m, &in->f, x->st, x->cel, &ao, &x->al))
        return -1;
    if (dra_alloc_allocate(x->al, in->node, in->claims, in->nclaims, &x->out, o))
        return -1;
    dra_alloc_options_t ao0 = ao;
    ao0.max_steps = 0;
    if (dra_fast_new(m, &in->f, x->st, x->cel, &ao, &x->fa) ||
        (!budget_hit(o) && dra_fast_new(m, &in->f, x->st, x->cel, &ao0, &x->fb)))
        return -1;
    return same_as_reference(o, x->fa, x->fb, in->node, in->claims, in->nclaims, &x->out);
}

/* The first-path scan serves the plainest shape (one ExactCount request, no constraint, no
 * counters, no consumable capacity, no CEL error) whenever it allocates. */
static void check_plain(const input_t *in, const dra_alloc_outcome_t *o)
{
    const dra_model_t *m = &in->m;
    dra_claim_t *const *claims = in->claims;
    bool plain = in->nclaims == 1 && claims[0]->nrequests == 1 && claims[0]->requests[0].exactly &&
                 claims[0]->requests[0].exactly->mode == DRA_MODE_EXACT_COUNT &&
                 !claims[0]->nconstraints && in->selk != 3 &&
                 !dra_alloc_gate_on(&in->f, DRA_GATE_CONSUMABLE_CAPACITY);
    for (uint32_t i = 0; plain && i < m->nslices; i++)
        for (uint32_t d = 0; plain && d < m->slices[i]->ndevices; d++)
            plain = !m->slices[i]->devices[d].nconsumes;
    if (plain && o->kind == DRA_OUTCOME_ALLOCATED && last_path != DRA_FAST_PATH_FIRST) {
        fprintf(stderr, "plain claim served by the %s path\n", dra_fast_path_name(last_path));
        abort();
    }
}

/* An allocated outcome o: no invariant violated; the allocators agree again against the
 * committed state and after the release, which restores the state's digest. -1 when something
 * could not run. */
static int check_allocated(input_t *in, run_t *x, const dra_alloc_outcome_t *o)
{
    unsigned n = in->nclaims;
    dra_inv_report_t rep;
    if (dra_inv_check(&in->m, &in->f, x->st, x->cel, in->node, in->claims, o->allocations, n,
                      &rep) == DRA_OK &&
        rep.nviolations) {
        fprintf(stderr, "invariant violated: %s\n", rep.first[0]);
        abort();
    }
    uint64_t d0 = dra_alloc_state_digest(x->st);
    for (unsigned c = 0; c < n; c++)
        if (dra_alloc_state_commit(x->st, o->allocations[c]))
            return -1;
    dra_alloc_outcome_t o2; /* the same claims again, against the committed state */
    if (dra_alloc_allocate(x->al, in->node, in->claims, n, &x->out, &o2) ||
        same_as_reference(&o2, x->fa, budget_hit(&o2) ? NULL : x->fb, in->node, in->claims, n,
                          &x->out))
        return -1;
    for (unsigned c = n; c-- > 0;)
        if (dra_alloc_state_release(x->st, o->allocations[c]) != DRA_OK)
            abort();
    if (dra_alloc_state_digest(x->st) != d0)
        abort();
    if (dra_alloc_allocate(x->al, in->node, in->claims, n, &x->out, &o2) ||
        same_as_reference(&o2, x->fa, budget_hit(&o2) ? NULL : x->fb, in->node, in->claims, n,
                          &x->out))
        return -1;
    return 0;
}

/* An unsatisfiable outcome: the brute force finds no assignment either. */
static void check_unsatisfiable(input_t *in, run_t *x)
{
    dra_bf_result_t bf;
    if (dra_alloc_bruteforce(&in->m, &in->f, x->st, x->cel, in->node, in->claims, in->nclaims,
                             BF_BUDGET, &bf) == DRA_OK &&
        bf.verdict == DRA_BF_SATISFIABLE) {
        fprintf(stderr, "reference says unsatisfiable, brute force found an assignment\n");
        abort();
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    rd_t r = {data, size};
    input_t in;
    decode(&r, &in);
    run_t x = {0};
    dra_arena_init(&x.out, 0);
    dra_alloc_outcome_t o;
    if (run_first(&in, &x, &o) == 0) {
        check_plain(&in, &o);
        if (o.kind == DRA_OUTCOME_ALLOCATED)
            (void)check_allocated(&in, &x, &o);
        else if (o.kind == DRA_OUTCOME_UNSATISFIABLE)
            check_unsatisfiable(&in, &x);
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
