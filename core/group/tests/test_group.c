/* test_group.c - the literal PodGroup cycle on a hand-made host: slots per node, racks as a
 * topology label, a rack-scoped group claim; every outcome, the placement choice and the undo. */
#include <stdio.h>
#include <string.h>

#include "check.h"
#include "group/group.h"

#define MAXN 16

/* A node has `slots` devices; a member asks for want[m] of them on one node. Group claim 0 is a
 * rack-scoped device: its allocation's node selector admits the rack it was allocated in. */
typedef struct fake {
    dra_model_t m;
    uint32_t nn;
    uint32_t slots[MAXN], used[MAXN];
    int64_t alloc_cpu[MAXN], req_cpu[MAXN];
    uint32_t want[64];
    int64_t cpu[64];
    uint32_t fatal_member; /* answers Fatal for this member (UINT32_MAX none) */
    uint32_t answers;
    dra_node_selector_t sel[MAXN];
    dra_ns_term_t term[MAXN];
    dra_ns_req_t req[MAXN];
    const char *rackval[MAXN];
} fake_t;

static void fake_init(fake_t *f, uint32_t nn, const uint32_t *slots, const char *const *racks)
{
    memset(f, 0, sizeof *f);
    dra_model_init(&f->m);
    f->nn = nn;
    f->fatal_member = UINT32_MAX;
    for (uint32_t i = 0; i < nn; i++) {
        dra_node_t *n = dra_model_add_node(&f->m);
        char name[16];
        snprintf(name, sizeof name, "n%u", i);
        n->name = dra_model_str(&f->m, name);
        f->slots[i] = slots[i];
        if (racks && racks[i]) {
            n->labels = dra_model_array(&f->m, 1, sizeof *n->labels);
            n->labels[0].key = "rack";
            n->labels[0].value = racks[i];
            n->nlabels = 1;
            f->rackval[i] = racks[i];
            f->req[i] = (dra_ns_req_t){"rack", DRA_NS_IN, "In", &f->rackval[i], 1};
            f->term[i] = (dra_ns_term_t){&f->req[i], 1, NULL, 0};
            f->sel[i] = (dra_node_selector_t){&f->term[i], 1, {NULL, 0, 0}};
        }
    }
}

static dra_allocation_t *mk_alloc(dra_arena_t *a, uint32_t node, uint32_t first, uint32_t n,
                                  const dra_node_selector_t *sel)
{
    dra_allocation_t *al = dra_arena_calloc(a, 1, sizeof *al, 8);
    al->results = dra_arena_calloc(a, n ? n : 1, sizeof *al->results, 8);
    al->nresults = n;
    for (uint32_t k = 0; k < n; k++) {
        char dev[32];
        snprintf(dev, sizeof dev, "n%u-d%u", node, first + k);
        al->results[k].request = "r";
        al->results[k].driver = "d";
        al->results[k].pool = "p";
        al->results[k].device = dra_arena_strdup(a, dev);
    }
    al->node_selector = sel;
    return al;
}

static int f_answer(void *ctx, uint32_t member, uint32_t need, uint32_t node, dra_arena_t *arena,
                    dra_alloc_outcome_t *out)
{
    fake_t *f = ctx;
    memset(out, 0, sizeof *out);
    f->answers++;
    if (member == f->fatal_member) {
        out->kind = DRA_OUTCOME_FATAL;
        snprintf(out->msg, sizeof out->msg, "class missing");
        return DRA_OK;
    }
    uint32_t want = f->want[member] + (need & 1u);
    if (f->slots[node] - f->used[node] < want) {
        out->kind = DRA_OUTCOME_UNSATISFIABLE;
        return DRA_OK;
    }
    out->kind = DRA_OUTCOME_ALLOCATED;
    out->allocations = dra_arena_calloc(arena, 2, sizeof *out->allocations, 8);
    uint32_t k = 0, d = f->used[node];
    if (need & 1u)
        out->allocations[k++] = mk_alloc(arena, node, d++, 1,
                                         f->rackval[node] ? &f->sel[node] : NULL);
    out->allocations[k++] = mk_alloc(arena, node, d, f->want[member], NULL);
    out->n = k;
    return DRA_OK;
}

static uint32_t count(dra_allocation_t *const *a, uint32_t n)
{
    uint32_t c = 0;
    for (uint32_t i = 0; i < n; i++)
        c += a[i]->nresults;
    return c;
}

static int f_commit(void *ctx, uint32_t member, uint32_t need, uint32_t node,
                    dra_allocation_t *const *a, uint32_t n)
{
    fake_t *f = ctx;
    (void)need;
    f->used[node] += count(a, n);
    f->req_cpu[node] += f->cpu[member] ? f->cpu[member] : DRA_GROUP_NONZERO_CPU_MILLI;
    return DRA_OK;
}

static int f_release(void *ctx, uint32_t member, uint32_t need, uint32_t node,
                     dra_allocation_t *const *a, uint32_t n)
{
    fake_t *f = ctx;
    (void)need;
    f->used[node] -= count(a, n);
    f->req_cpu[node] -= f->cpu[member] ? f->cpu[member] : DRA_GROUP_NONZERO_CPU_MILLI;
    return DRA_OK;
}

static uint32_t f_score(void *ctx, uint32_t node)
{
    return ((fake_t *)ctx)->used[node];
}

static void f_res(void *ctx, uint32_t node, int64_t out[4])
{
    fake_t *f = ctx;
    out[0] = f->alloc_cpu[node] ? f->alloc_cpu[node] : -1;
    out[1] = -1;
    out[2] = f->req_cpu[node];
    out[3] = 0;
}

/* The fast path's index: a node admits a member when it has the devices free (exact here; the
 * engine's summaries only need to be a necessary condition). */
static uint32_t f_next(void *ctx, uint32_t member, uint32_t need, uint32_t from)
{
    fake_t *f = ctx;
    for (uint32_t n = from; n < f->nn; n++)
        if (member == f->fatal_member || f->slots[n] - f->used[n] >= f->want[member] + (need & 1u))
            return n;
    return DRA_GROUP_NONE;
}

static dra_group_host_t host(fake_t *f)
{
    dra_group_host_t h = {f, &f->m, f_answer, f_commit, f_release, f_score, f_res, f_next, NULL};
    return h;
}

typedef struct run {
    fake_t f;
    dra_group_member_t mem[64];
    dra_group_spec_t g;
    dra_group_ctx_t *c;
    dra_arena_t a;
    dra_group_result_t r;
    dra_group_topo_t *topo;
} run_t;

static void run_init(run_t *r, uint32_t nn, const uint32_t *slots, const char *const *racks,
                     uint32_t nmem, uint32_t want)
{
    memset(r, 0, sizeof *r);
    fake_init(&r->f, nn, slots, racks);
    for (uint32_t i = 0; i < nmem; i++) {
        r->mem[i].bound_node = DRA_GROUP_NONE;
        r->f.want[i] = want;
    }
    r->g.policy = DRA_GROUP_GANG;
    r->g.min_count = nmem;
    r->g.gang_gate = true;
    r->g.members = r->mem;
    r->g.nmembers = nmem;
    r->g.node_policy = DRA_ENGINE_FIRST_FIT;
    if (racks) {
        CHECK_OK(dra_group_topo_new(&r->f.m, "rack", &r->topo));
        r->g.topo = r->topo;
        r->g.tas = true;
    }
    CHECK_OK(dra_group_ctx_new(nn, 64, &r->c));
    dra_arena_init(&r->a, 0);
}

static uint64_t fast_rejected, fast_placements, ref_placements;

/* The reference cycle (r->r, and the state it leaves), checked against the fast cycle on the
 * same start: the same decision and the same state after, with per-domain sums when the
 * members are alike. */
static int run_cycle(run_t *r)
{
    fake_t start = r->f;
    dra_group_host_t h = host(&r->f);
    int rc = dra_group_cycle_reference(r->c, &r->g, &h, &r->a, &r->r);
    if (rc)
        return rc;
    fake_t after = r->f;
    r->f = start;
    h = host(&r->f);
    dra_group_spec_t g = r->g;
    dra_group_sums_t *sums = NULL;
    bool alike = true;
    for (uint32_t i = 1; i < g.nmembers; i++)
        alike &= r->f.want[i] == r->f.want[0];
    if (alike && g.nmembers) {
        const dra_group_topo_t *t = g.tas ? g.topo : NULL;
        CHECK_OK(dra_group_sums_new(t, r->f.nn, &sums));
        for (uint32_t n = 0; n < r->f.nn; n++) {
            uint32_t w = r->f.want[0];
            dra_group_sums_set_bound(sums, n, w ? (r->f.slots[n] - r->f.used[n]) / w
                                                : DRA_GROUP_UNBOUNDED);
            int64_t res[4];
            f_res(&r->f, n, res);
            dra_group_sums_set_res(sums, n, res);
        }
        g.sums = sums;
        g.certain = r->f.fatal_member == UINT32_MAX;
    }
    dra_group_result_t fr;
    rc = dra_group_cycle_fast(r->c, &g, &h, &r->a, &fr);
    dra_group_sums_free(sums);
    if (rc)
        return rc;
    fast_rejected += fr.stats.rejected;
    fast_placements += fr.stats.placements;
    ref_placements += r->r.stats.placements;
    char why[256];
    CHECK_MSG(dra_group_result_equal(&r->r, &fr, g.nmembers, why, sizeof why), "fast: %s", why);
    CHECK_EQ_I64(r->r.short_kind, fr.short_kind);
    CHECK(memcmp(r->f.used, after.used, sizeof after.used) == 0);
    CHECK(memcmp(r->f.req_cpu, after.req_cpu, sizeof after.req_cpu) == 0);
    r->f.answers = after.answers;
    return DRA_OK;
}

static void run_fini(run_t *r)
{
    dra_group_ctx_free(r->c);
    dra_group_topo_free(r->topo);
    dra_arena_fini(&r->a);
    dra_model_fini(&r->f.m);
}

static uint32_t used_total(const fake_t *f)
{
    uint32_t u = 0;
    for (uint32_t i = 0; i < f->nn; i++)
        u += f->used[i];
    return u;
}

/* A gang of 4 one-device pods on 3 nodes of 2: first-fit, all placed, kept. */
static void test_gang_placed(void)
{
    run_t r;
    uint32_t slots[3] = {2, 2, 2};
    run_init(&r, 3, slots, NULL, 4, 1);
    CHECK_OK(run_cycle(&r));
    CHECK_EQ_I64(r.r.outcome, DRA_GROUP_PLACED);
    CHECK_EQ_U64(r.r.placed, 4);
    CHECK_EQ_U64(r.r.members[0].node, 0);
    CHECK_EQ_U64(r.r.members[1].node, 0);
    CHECK_EQ_U64(r.r.members[2].node, 1);
    CHECK_EQ_U64(r.r.members[3].node, 1);
    CHECK_EQ_U64(used_total(&r.f), 4); /* kept */
    CHECK_EQ_U64(r.r.domain, DRA_GROUP_NONE);
    run_fini(&r);
}

/* All or nothing: 5 pods need 5 devices, 4 exist: nothing stays assumed. minCount 3 instead:
 * the 4 that fit are kept, the fifth waits (partial). */
static void test_gang_all_or_nothing(void)
{
    run_t r;
    uint32_t slots[2] = {2, 2};
    run_init(&r, 2, slots, NULL, 5, 1);
    CHECK_OK(run_cycle(&r));
    CHECK_EQ_I64(r.r.outcome, DRA_GROUP_UNSCHEDULABLE);
    CHECK_EQ_I64(r.r.short_kind, DRA_SHORT_CAPACITY);
    CHECK_EQ_U64(r.r.best_count, 4);
    CHECK_EQ_U64(used_total(&r.f), 0);
    CHECK(strstr(r.r.reason, "minCount 5 not reached: 4 pods fit") != NULL);
    CHECK_EQ_U64(r.r.short_member, 4);
    r.g.min_count = 3;
    dra_arena_reset(&r.a);
    CHECK_OK(run_cycle(&r));
    CHECK_EQ_I64(r.r.outcome, DRA_GROUP_PARTIAL);
    CHECK_EQ_U64(r.r.placed, 4);
    CHECK_EQ_U64(r.r.members[4].node, DRA_GROUP_NONE);
    CHECK_EQ_U64(used_total(&r.f), 4);
    run_fini(&r);
}

/* A gang stops once minCount is out of reach (PlacementFeasible): pods after that are not
 * tried. Basic: one pod is enough. Gang gate off: the gang is scheduled as basic. */
static void test_early_stop_basic_gate(void)
{
    run_t r;
    uint32_t slots[1] = {0};
    run_init(&r, 1, slots, NULL, 4, 1);
    CHECK_OK(run_cycle(&r));
    CHECK_EQ_I64(r.r.outcome, DRA_GROUP_UNSCHEDULABLE);
    CHECK_EQ_U64(r.f.answers, 1); /* the first failure already makes 4 unreachable */
    run_fini(&r);

    uint32_t s1[1] = {1};
    run_init(&r, 1, s1, NULL, 3, 1);
    r.g.policy = DRA_GROUP_BASIC;
    CHECK_OK(run_cycle(&r));
    CHECK_EQ_I64(r.r.outcome, DRA_GROUP_PARTIAL);
    CHECK_EQ_U64(r.r.placed, 1);
    CHECK_EQ_U64(r.r.min_count, 1);
    run_fini(&r);

    run_init(&r, 1, s1, NULL, 3, 1);
    r.g.gang_gate = false; /* GangScheduling off: minCount not enforced */
    CHECK_OK(run_cycle(&r));
    CHECK_EQ_I64(r.r.outcome, DRA_GROUP_PARTIAL);
    CHECK_EQ_U64(r.r.placed, 1);
    run_fini(&r);
}

/* PreEnqueue: a gang with fewer members than minCount waits without a single answer. */
static void test_waiting(void)
{
    run_t r;
    uint32_t slots[1] = {8};
    run_init(&r, 1, slots, NULL, 3, 1);
    r.g.min_count = 4;
    CHECK_OK(run_cycle(&r));
    CHECK_EQ_I64(r.r.outcome, DRA_GROUP_WAITING);
    CHECK_EQ_I64(r.r.short_kind, DRA_SHORT_MEMBERS);
    CHECK_EQ_U64(r.f.answers, 0);
    CHECK(strstr(r.r.reason, "3 of 4") != NULL);
    run_fini(&r);
}

/* Topology: rack a has 2 devices, rack b 4: a gang of 3 only fits b; of 2 both fit and
 * PodGroupPodsCount ties, so the first value (a) wins; with cpu on the nodes, NodeResourcesFit
 * (MostAllocated) prefers the fuller rack. */
static void test_topology(void)
{
    static const char *const racks[4] = {"a", "a", "b", "b"};
    uint32_t slots[4] = {1, 1, 2, 2};
    run_t r;
    run_init(&r, 4, slots, racks, 3, 1);
    CHECK_EQ_U64(r.topo->ndomains, 2);
    CHECK(r.topo->contiguous);
    CHECK_OK(run_cycle(&r));
    CHECK_EQ_I64(r.r.outcome, DRA_GROUP_PLACED);
    CHECK_EQ_U64(r.r.domain, 1);
    CHECK_EQ_U64(r.r.nplacements, 2);
    CHECK_EQ_U64(r.r.nfeasible, 1);
    CHECK_EQ_I64(r.r.score, -1); /* one feasible placement: not scored */
    CHECK_EQ_U64(r.r.members[0].node, 2);
    CHECK_EQ_U64(r.r.members[2].node, 3);
    run_fini(&r);

    run_init(&r, 4, slots, racks, 2, 1);
    CHECK_OK(run_cycle(&r));
    CHECK_EQ_U64(r.r.domain, 0);
    CHECK_EQ_I64(r.r.score, 100); /* NRF 0 + 2 of 2 pods */
    run_fini(&r);

    run_init(&r, 4, slots, racks, 2, 1);
    for (int i = 0; i < 4; i++)
        r.f.alloc_cpu[i] = 1000;
    r.f.req_cpu[3] = 600; /* rack b busier: after the group, b 800/2000, a 200/2000 */
    CHECK_OK(run_cycle(&r));
    CHECK_EQ_U64(r.r.domain, 1);
    CHECK_EQ_I64(r.r.score, 140); /* MostAllocated 40 + 100 */
    run_fini(&r);

    /* no domain holds the gang: the reason names the key and the best domain */
    run_init(&r, 4, slots, racks, 5, 1);
    CHECK_OK(run_cycle(&r));
    CHECK_EQ_I64(r.r.outcome, DRA_GROUP_UNSCHEDULABLE);
    CHECK_EQ_I64(r.r.short_kind, DRA_SHORT_DOMAIN);
    CHECK_EQ_U64(r.r.best_count, 4);
    CHECK(strstr(r.r.reason, "rack=b") != NULL);
    CHECK_EQ_U64(used_total(&r.f), 0);
    run_fini(&r);

    /* a key no node carries */
    run_init(&r, 4, slots, racks, 2, 1);
    dra_group_topo_t *none;
    CHECK_OK(dra_group_topo_new(&r.f.m, "zone", &none));
    r.g.topo = none;
    CHECK_OK(run_cycle(&r));
    CHECK_EQ_I64(r.r.short_kind, DRA_SHORT_NO_DOMAIN);
    dra_group_topo_free(none);
    run_fini(&r);
}

/* A rack-scoped group claim allocated by the first member pins the others to its rack even
 * without a topology constraint. */
static void test_group_claim(void)
{
    static const char *const racks[4] = {"a", "b", "b", "b"};
    uint32_t slots[4] = {2, 1, 1, 1};
    run_t r;
    run_init(&r, 4, slots, racks, 3, 1);
    r.g.tas = false;
    r.g.ngclaims = 1;
    for (int i = 0; i < 3; i++)
        r.mem[i].gclaims = 1;
    CHECK_OK(run_cycle(&r));
    /* member 0 takes the claim + a device on n0 (rack a); n0 is then full and rack a has no
     * other node: members 1, 2 cannot use the claim anywhere else */
    CHECK_EQ_I64(r.r.outcome, DRA_GROUP_UNSCHEDULABLE);
    CHECK_EQ_U64(used_total(&r.f), 0);
    CHECK(r.r.gclaim_alloc[0] == NULL);
    /* with the topology constraint, rack b (3 single-device nodes) cannot take the claim and a
     * device on one node either; give n1 room for both */
    r.f.slots[1] = 2;
    r.g.tas = true;
    dra_arena_reset(&r.a);
    CHECK_OK(run_cycle(&r));
    CHECK_EQ_I64(r.r.outcome, DRA_GROUP_PLACED);
    CHECK_EQ_U64(r.r.domain, 1);
    CHECK(r.r.gclaim_alloc[0] != NULL);
    CHECK_EQ_U64(r.r.members[0].need, 1);
    CHECK_EQ_U64(r.r.members[1].need, 0);
    CHECK_EQ_U64(r.r.members[0].nallocs, 2);
    CHECK_EQ_U64(used_total(&r.f), 4);
    run_fini(&r);
}

/* Bound members count toward minCount and restrict the placements to their domain; bound
 * members in two domains leave no placement. A cycle that schedules no new pod fails even when
 * the bound ones reach minCount. */
static void test_bound(void)
{
    static const char *const racks[4] = {"a", "a", "b", "b"};
    uint32_t slots[4] = {1, 1, 2, 2};
    run_t r;
    run_init(&r, 4, slots, racks, 3, 1);
    r.mem[0].bound_node = 0;
    r.f.used[0] = 1;
    CHECK_OK(run_cycle(&r));
    CHECK_EQ_I64(r.r.outcome, DRA_GROUP_UNSCHEDULABLE); /* only a: 1 free device, 2 pending */
    CHECK_EQ_U64(r.r.nplacements, 1);
    CHECK_EQ_U64(r.r.best_count, 2);
    r.g.min_count = 2;
    dra_arena_reset(&r.a);
    CHECK_OK(run_cycle(&r));
    CHECK_EQ_I64(r.r.outcome, DRA_GROUP_PARTIAL);
    CHECK_EQ_U64(r.r.members[1].node, 1);
    CHECK_EQ_U64(r.r.members[0].node, 0);
    run_fini(&r);

    run_init(&r, 4, slots, racks, 3, 1);
    r.mem[0].bound_node = 0;
    r.mem[1].bound_node = 2;
    CHECK_OK(run_cycle(&r));
    CHECK_EQ_I64(r.r.short_kind, DRA_SHORT_SPLIT);
    run_fini(&r);

    uint32_t s0[1] = {1};
    run_init(&r, 1, s0, NULL, 2, 1);
    r.mem[0].bound_node = 0;
    r.f.used[0] = 1;
    r.g.min_count = 1;
    CHECK_OK(run_cycle(&r));
    CHECK_EQ_I64(r.r.outcome, DRA_GROUP_UNSCHEDULABLE);
    CHECK_EQ_I64(r.r.short_kind, DRA_SHORT_NONE_NEW);
    run_fini(&r);
}

/* Fatal stops the cycle, priority orders the members, best-fit / spread / random pick nodes
 * as the engine's policies do. */
static void test_fatal_order_policies(void)
{
    uint32_t slots[3] = {4, 4, 4};
    run_t r;
    run_init(&r, 3, slots, NULL, 3, 1);
    r.f.fatal_member = 1;
    CHECK_OK(run_cycle(&r));
    CHECK_EQ_I64(r.r.outcome, DRA_GROUP_ERROR);
    CHECK_EQ_I64(r.r.members[1].kind, DRA_OUTCOME_FATAL);
    CHECK(strstr(r.r.reason, "class missing") != NULL);
    CHECK_EQ_U64(used_total(&r.f), 0);
    run_fini(&r);

    /* priority: member 2 first; it wants 3 of n0's 4, so member 0 (1) fits n0, member 1 (2)
     * goes to n1 */
    run_init(&r, 3, slots, NULL, 3, 1);
    r.f.want[2] = 3;
    r.f.want[1] = 2;
    r.mem[2].priority = 10;
    CHECK_OK(run_cycle(&r));
    CHECK_EQ_U64(r.r.members[2].node, 0);
    CHECK_EQ_U64(r.r.members[0].node, 0);
    CHECK_EQ_U64(r.r.members[1].node, 1);
    run_fini(&r);

    /* best-fit: the node with the most devices in use; spread: the fewest; ties by node */
    run_init(&r, 3, slots, NULL, 2, 1);
    r.f.used[1] = 2;
    r.g.node_policy = DRA_ENGINE_BEST_FIT;
    CHECK_OK(run_cycle(&r));
    CHECK_EQ_U64(r.r.members[0].node, 1);
    CHECK_EQ_U64(r.r.members[1].node, 1);
    run_fini(&r);
    run_init(&r, 3, slots, NULL, 2, 1);
    r.f.used[0] = 1;
    r.g.node_policy = DRA_ENGINE_SPREAD;
    CHECK_OK(run_cycle(&r));
    CHECK_EQ_U64(r.r.members[0].node, 1);
    CHECK_EQ_U64(r.r.members[1].node, 2);
    run_fini(&r);
    /* random: cyclic from rnd mod placement size */
    run_init(&r, 3, slots, NULL, 2, 1);
    r.g.node_policy = DRA_ENGINE_RANDOM;
    r.mem[0].rnd = 5; /* 5 mod 3 = 2 */
    r.mem[1].rnd = 7; /* 1 */
    CHECK_OK(run_cycle(&r));
    CHECK_EQ_U64(r.r.members[0].node, 2);
    CHECK_EQ_U64(r.r.members[1].node, 1);
    run_fini(&r);
}

static void test_most_allocated(void)
{
    CHECK_EQ_I64(dra_group_most_allocated(0, 0), 0);
    CHECK_EQ_I64(dra_group_most_allocated(50, 100), 50);
    CHECK_EQ_I64(dra_group_most_allocated(150, 100), 100);
    CHECK_EQ_I64(dra_group_most_allocated(1, 3), 33);
    CHECK_EQ_I64(dra_group_most_allocated(INT64_MAX / 2, INT64_MAX), 49);
    CHECK_EQ_U64(dra_group_start(5, 3), 2);
    CHECK_EQ_U64(dra_group_start(5, 0), 0);
}

static uint64_t rng_next(uint64_t *x)
{
    *x ^= *x << 13;
    *x ^= *x >> 7;
    *x ^= *x << 17;
    return *x;
}

/* Random groups on random racks: every policy, gang and basic, minCount, bound members, a
 * rack-scoped group claim, node cpu: the fast cycle decides as the reference (run_cycle). */
static void test_random_differential(void)
{
    static const char *const rv[4] = {"a", "b", "c", NULL};
    uint64_t x = 0x9e3779b97f4a7c15ull;
    uint32_t outcomes[DRA_GROUP_OUTCOMES] = {0};
    for (int it = 0; it < 3000; it++) {
        uint32_t nn = 1 + (uint32_t)(rng_next(&x) % 10), nmem = 1 + (uint32_t)(rng_next(&x) % 7);
        uint32_t slots[MAXN];
        const char *racks[MAXN];
        bool sorted = rng_next(&x) % 2;
        for (uint32_t i = 0; i < nn; i++) {
            slots[i] = (uint32_t)(rng_next(&x) % 5);
            racks[i] = sorted ? rv[i * 3 / nn] : rv[rng_next(&x) % 4];
        }
        bool topo = rng_next(&x) % 3 != 0;
        run_t r;
        run_init(&r, nn, slots, topo ? racks : NULL, nmem, 1 + (uint32_t)(rng_next(&x) % 2));
        if (rng_next(&x) % 3 == 0)
            for (uint32_t i = 0; i < nmem; i++)
                r.f.want[i] = 1 + (uint32_t)(rng_next(&x) % 2);
        r.g.node_policy = (dra_engine_policy_t)(rng_next(&x) % 4);
        r.g.policy = rng_next(&x) % 4 ? DRA_GROUP_GANG : DRA_GROUP_BASIC;
        r.g.min_count = 1 + (uint32_t)(rng_next(&x) % nmem);
        if (rng_next(&x) % 2)
            r.g.min_count = nmem;
        for (uint32_t i = 0; i < nmem; i++) {
            r.mem[i].rnd = rng_next(&x);
            r.mem[i].priority = (int64_t)(rng_next(&x) % 2);
            r.f.cpu[i] = (int64_t)(rng_next(&x) % 3) * 100;
        }
        for (uint32_t i = 0; i < nn; i++) {
            r.f.alloc_cpu[i] = (int64_t)(rng_next(&x) % 3) * 1000;
            r.f.used[i] = slots[i] ? (uint32_t)(rng_next(&x) % (slots[i] + 1)) : 0;
        }
        if (rng_next(&x) % 4 == 0) { /* a bound member */
            uint32_t n = (uint32_t)(rng_next(&x) % nn);
            r.mem[nmem - 1].bound_node = n;
        }
        if (topo && rng_next(&x) % 3 == 0) {
            r.g.ngclaims = 1;
            for (uint32_t i = 0; i < nmem; i++)
                r.mem[i].gclaims = (uint32_t)(rng_next(&x) % 4 != 0);
        }
        if (rng_next(&x) % 50 == 0)
            r.f.fatal_member = (uint32_t)(rng_next(&x) % nmem);
        CHECK_OK(run_cycle(&r));
        outcomes[r.r.outcome]++;
        run_fini(&r);
    }
    /* the mix covers every outcome the cycle can reach here, and the fast path's shortcuts */
    printf("fast: %llu placements evaluated (reference %llu), %llu rejected by summaries\n",
           (unsigned long long)fast_placements, (unsigned long long)ref_placements,
           (unsigned long long)fast_rejected);
    CHECK(fast_rejected > 100);
    CHECK(fast_placements * 4 < ref_placements * 3);
    CHECK(outcomes[DRA_GROUP_PLACED] > 100);
    CHECK(outcomes[DRA_GROUP_PARTIAL] > 50);
    CHECK(outcomes[DRA_GROUP_UNSCHEDULABLE] > 100);
    CHECK(outcomes[DRA_GROUP_ERROR] > 5);
}

/* The workload gates per release profile, as WORKLOADS.md section 1 and RELEASES.md section 1
 * give them (kube_features.go of each release): GenericWorkload alpha 1.35-1.36, beta 1.37 (and
 * master), off; GangScheduling alpha 1.35-1.36, merged into GenericWorkload in 1.37 (gone, the
 * gang policy follows GenericWorkload); TopologyAwareWorkloadScheduling alpha from 1.36, off;
 * DRAWorkloadResourceClaims alpha 1.36, beta 1.37, off. Before 1.36 (the v1alpha1 Workload API,
 * not modelled) turning them on is refused. */
static void test_workload_gates(void)
{
    static const struct {
        dra_release_t rel;
        const char *generic, *gang, *tas, *claims; /* stage, or "-": the gate does not exist */
    } rows[] = {
        {DRA_RELEASE_1_34, "-", "-", "-", "-"},
        {DRA_RELEASE_1_35, "alpha", "alpha", "-", "-"},
        {DRA_RELEASE_1_36, "alpha", "alpha", "alpha", "alpha"},
        {DRA_RELEASE_1_37, "beta", "-", "alpha", "beta"},
        {DRA_RELEASE_1_38_PRE, "beta", "-", "alpha", "beta"},
    };
    static const dra_gate_t gates[4] = {DRA_GATE_GENERIC_WORKLOAD, DRA_GATE_GANG_SCHEDULING,
                                        DRA_GATE_TOPOLOGY_AWARE_WORKLOAD,
                                        DRA_GATE_WORKLOAD_RESOURCE_CLAIMS};
    for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
        const char *want[4] = {rows[i].generic, rows[i].gang, rows[i].tas, rows[i].claims};
        dra_alloc_features_t f;
        dra_alloc_features_init(&f, rows[i].rel);
        for (int g = 0; g < 4; g++) {
            dra_gate_stage_t st = dra_alloc_gate_stage(rows[i].rel, gates[g]);
            bool exists = strcmp(want[g], "-") != 0;
            CHECK_MSG(st.exists == exists && (!exists || strcmp(st.stage, want[g]) == 0),
                      "release %s gate %s: %s, want %s", dra_alloc_release_name(rows[i].rel),
                      dra_alloc_gate_name(gates[g]), st.exists ? st.stage : "-", want[g]);
            CHECK(!st.def && !st.locked);
            CHECK(!dra_alloc_gate_on(&f, gates[g])); /* off by default everywhere */
            dra_diag_t d;
            int rc = dra_alloc_features_set_gate(&f, dra_alloc_gate_name(gates[g]), true, &d);
            /* on: accepted where the gate exists from 1.36; the 1.35 workload gates refused */
            bool ok = exists && (rows[i].rel >= DRA_RELEASE_1_36 ||
                                 gates[g] == DRA_GATE_WORKLOAD_RESOURCE_CLAIMS);
            CHECK_MSG((rc == DRA_OK) == ok, "release %s gate %s on: %d",
                      dra_alloc_release_name(rows[i].rel), dra_alloc_gate_name(gates[g]), rc);
        }
        /* the gang policy: GangScheduling before 1.37, GenericWorkload from 1.37 */
        dra_alloc_features_init(&f, rows[i].rel);
        if (rows[i].rel < DRA_RELEASE_1_36)
            continue;
        CHECK_OK(dra_alloc_features_set_gate(&f, "GenericWorkload", true, NULL));
        CHECK(dra_alloc_gang_on(&f) == (rows[i].rel >= DRA_RELEASE_1_37));
        if (rows[i].rel < DRA_RELEASE_1_37) {
            CHECK_OK(dra_alloc_features_set_gate(&f, "GangScheduling", true, NULL));
            CHECK(dra_alloc_gang_on(&f));
        } else {
            CHECK_EQ_I64(dra_alloc_features_set_gate(&f, "GangScheduling", true, NULL), DRA_EINVAL);
        }
    }
}

int main(void)
{
    RUN(test_workload_gates);
    RUN(test_gang_placed);
    RUN(test_gang_all_or_nothing);
    RUN(test_early_stop_basic_gate);
    RUN(test_waiting);
    RUN(test_topology);
    RUN(test_group_claim);
    RUN(test_bound);
    RUN(test_fatal_order_policies);
    RUN(test_most_allocated);
    RUN(test_random_differential);
    return check_summary();
}
