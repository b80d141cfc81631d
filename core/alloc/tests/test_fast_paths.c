/* test_fast_paths.c - the fast allocator's exact per-node paths (fast.h, dra_fast_path_t): for
 * each shape a path serves, the path that decided (stats.path) and the decision, which must be
 * the reference allocator's (same devices, same outcome), also after earlier results were
 * committed (the row mirror and the counter columns follow the state). */
#include <stdio.h>
#include <string.h>

#include "alloc/alloc.h"
#include "alloc/fast.h"
#include "alloc/fast_tests.h"
#include "check.h"

typedef struct fx {
    dra_model_t m;
    dra_alloc_features_t f;
    dra_node_t *node;
    dra_slice_t *slice;
    dra_alloc_state_t *st;
    dra_cel_cache_t *cel;
    dra_allocator_t *ref;
    dra_fast_t *fast;
    dra_arena_t out;
    uint32_t nclaims;
} fx_t;

static void qty(dra_quantity_t *q, uint64_t v)
{
    memset(q, 0, sizeof *q);
    q->lo = v;
}

/* The profile of the next fx_init: 1.36, or 1.37 with DRADeviceCompatibilityGroups on or off
 * and each device's compatibilityGroups from fx_groups ("" none, else one group). */
static dra_release_t fx_release = DRA_RELEASE_1_36;
static bool fx_cg_gate;
static const char *const *fx_groups;

/* One node, one class without selectors, one slice of n devices with numa[i]; with counters, a
 * counter set "set" of mem = total and every device consuming mem = each. */
static void fx_init(fx_t *x, uint32_t n, const int *numa, uint64_t total, uint64_t each)
{
    memset(x, 0, sizeof *x);
    dra_model_init(&x->m);
    dra_alloc_features_init(&x->f, fx_release);
    CHECK_OK(dra_alloc_features_set_gate(&x->f, "DRAPartitionableDevices", true, NULL));
    if (fx_release >= DRA_RELEASE_1_37)
        CHECK_OK(dra_alloc_features_set_gate(&x->f, "DRADeviceCompatibilityGroups", fx_cg_gate,
                                             NULL));
    x->node = dra_model_add_node(&x->m);
    x->node->name = "node-1";
    dra_device_class_t *cls = dra_model_add_class(&x->m);
    cls->name = "class-a";
    dra_slice_t *s = dra_model_add_slice(&x->m);
    s->name = "slice-0";
    s->driver = "driver-a";
    s->pool_name = "pool-a";
    s->generation = 1;
    s->slice_count = 1;
    s->node_name = "node-1";
    if (total) { /* the pool's sharedCounters slice (1.35+) */
        s->slice_count = 2;
        dra_slice_t *cs = dra_model_add_slice(&x->m);
        cs->name = "slice-counters";
        cs->driver = "driver-a";
        cs->pool_name = "pool-a";
        cs->generation = 1;
        cs->slice_count = 2;
        cs->node_name = "node-1";
        cs->counter_sets = dra_model_array(&x->m, 1, sizeof(dra_counter_set_t));
        cs->ncounter_sets = 1;
        cs->counter_sets[0].name = "set";
        cs->counter_sets[0].counters = dra_model_array(&x->m, 1, sizeof(dra_counter_t));
        cs->counter_sets[0].ncounters = 1;
        cs->counter_sets[0].counters[0].name = "mem";
        qty(&cs->counter_sets[0].counters[0].value, total);
        dra_model_slice_done(&x->m, cs);
    }
    s->devices = dra_model_array(&x->m, n, sizeof(dra_device_t));
    s->ndevices = n;
    for (uint32_t d = 0; d < n; d++) {
        dra_device_t *dev = &s->devices[d];
        char nm[16];
        snprintf(nm, sizeof nm, "dev-%u", d);
        dev->name = dra_model_str(&x->m, nm);
        dev->attrs = dra_model_array(&x->m, 1, sizeof(dra_attr_t));
        dev->nattrs = 1;
        dev->attrs[0].name = "numa";
        dev->attrs[0].qname = dra_model_qname(&x->m, "driver-a", "numa");
        dev->attrs[0].kind = DRA_ATTR_INT;
        dev->attrs[0].count = 1;
        dev->attrs[0].v.i = numa ? numa[d] : 0;
        if (total) {
            dev->consumes = dra_model_array(&x->m, 1, sizeof(dra_consumes_t));
            dev->nconsumes = 1;
            dev->consumes[0].counter_set = "set";
            dev->consumes[0].counters = dra_model_array(&x->m, 1, sizeof(dra_counter_t));
            dev->consumes[0].ncounters = 1;
            dev->consumes[0].counters[0].name = "mem";
            qty(&dev->consumes[0].counters[0].value, each);
            if (fx_groups && fx_groups[d][0]) {
                dev->consumes[0].groups = dra_model_array(&x->m, 1, sizeof(const char *));
                dev->consumes[0].groups[0] = fx_groups[d];
                dev->consumes[0].ngroups = 1;
            }
        }
    }
    dra_model_slice_done(&x->m, s);
    x->slice = s;
    dra_arena_init(&x->out, 0);
    CHECK_OK(dra_alloc_state_new(&x->m, &x->f, &x->st));
    CHECK_OK(dra_cel_cache_new(&x->cel));
    dra_alloc_options_t ao = {.share_seed = 1};
    CHECK_OK(dra_alloc_new(&x->m, &x->f, x->st, x->cel, &ao, &x->ref));
    CHECK_OK(dra_fast_new(&x->m, &x->f, x->st, x->cel, &ao, &x->fast));
}

static void fx_fini(fx_t *x)
{
    dra_fast_free(x->fast);
    dra_alloc_free(x->ref);
    dra_cel_cache_free(x->cel);
    dra_alloc_state_free(x->st);
    dra_arena_fini(&x->out);
    dra_model_fini(&x->m);
}

/* A claim with one ExactCount request of count k, optionally matchAttribute numa. */
static dra_claim_t *claim(fx_t *x, int64_t k, bool match)
{
    dra_claim_t *c = dra_model_add_claim(&x->m);
    char nm[16];
    snprintf(nm, sizeof nm, "claim-%u", x->nclaims++);
    c->name = dra_model_str(&x->m, nm);
    c->namespace_ = "default";
    c->requests = dra_model_array(&x->m, 1, sizeof(dra_request_t));
    c->nrequests = 1;
    c->requests[0].name = "req";
    dra_exact_request_t *b = dra_model_array(&x->m, 1, sizeof(dra_exact_request_t));
    b->name = "req";
    b->class_name = "class-a";
    b->mode = DRA_MODE_EXACT_COUNT;
    b->has_count = true;
    b->count = k;
    c->requests[0].exactly = b;
    if (match) {
        c->constraints = dra_model_array(&x->m, 1, sizeof(dra_constraint_t));
        c->nconstraints = 1;
        c->constraints[0].match_attribute = "driver-a/numa";
    }
    return c;
}

/* Allocate c with both allocators; check the same decision and the fast path taken; the
 * devices picked, as "dev-i,dev-j" (empty when not allocated), must be want_devs; an
 * allocation is committed. */
static void both(fx_t *x, dra_claim_t *c, dra_fast_path_t want_path, dra_outcome_t want,
                 const char *want_devs)
{
    dra_claim_t *cs[1] = {c};
    dra_alloc_outcome_t ro, fo;
    CHECK_OK(dra_alloc_allocate(x->ref, x->node, cs, 1, &x->out, &ro));
    CHECK_OK(dra_fast_allocate(x->fast, x->node, cs, 1, &x->out, &fo));
    char why[1200];
    CHECK_MSG(!dra_alloc_outcome_differs(&ro, &fo, why, sizeof why), "%s: %s", c->name, why);
    CHECK_MSG(fo.stats.path == (uint32_t)want_path, "%s: path %s, expected %s", c->name,
              dra_fast_path_name(fo.stats.path), dra_fast_path_name(want_path));
    CHECK_EQ_I64(fo.kind, want);
    char got[128] = "";
    if (fo.kind == DRA_OUTCOME_ALLOCATED) {
        for (uint32_t i = 0; i < fo.allocations[0]->nresults; i++) {
            size_t l = strlen(got);
            snprintf(got + l, sizeof got - l, "%s%s", i ? "," : "",
                     fo.allocations[0]->results[i].device);
        }
        CHECK_OK(dra_alloc_state_commit(x->st, fo.allocations[0]));
    }
    CHECK_STREQ(got, want_devs);
}

static void test_first(void)
{
    fx_t x;
    fx_init(&x, 4, NULL, 0, 0);
    both(&x, claim(&x, 2, false), DRA_FAST_PATH_FIRST, DRA_OUTCOME_ALLOCATED, "dev-0,dev-1");
    both(&x, claim(&x, 1, false), DRA_FAST_PATH_FIRST, DRA_OUTCOME_ALLOCATED, "dev-2");
    /* one device left: two are unsatisfiable, proven without the search */
    both(&x, claim(&x, 2, false), DRA_FAST_PATH_UNSAT, DRA_OUTCOME_UNSATISFIABLE, "");
    both(&x, claim(&x, 1, false), DRA_FAST_PATH_FIRST, DRA_OUTCOME_ALLOCATED, "dev-3");
    both(&x, claim(&x, 1, false), DRA_FAST_PATH_UNSAT, DRA_OUTCOME_UNSATISFIABLE, "");
    /* with the paths off the search decides */
    dra_fast_set_paths(x.fast, false);
    both(&x, claim(&x, 1, false), DRA_FAST_PATH_SEARCH, DRA_OUTCOME_UNSATISFIABLE, "");
    fx_fini(&x);
}

static void test_match(void)
{
    static const int numa[5] = {0, 1, 1, 2, 1};
    fx_t x;
    fx_init(&x, 5, numa, 0, 0);
    /* the greedy path: dev-1 fixes numa 1, dev-2 matches */
    both(&x, claim(&x, 1, true), DRA_FAST_PATH_MATCH, DRA_OUTCOME_ALLOCATED, "dev-0");
    both(&x, claim(&x, 2, true), DRA_FAST_PATH_MATCH, DRA_OUTCOME_ALLOCATED, "dev-1,dev-2");
    fx_fini(&x);
    fx_init(&x, 5, numa, 0, 0);
    /* the greedy path fails (dev-0 is alone on numa 0): the numa 1 group answers */
    both(&x, claim(&x, 3, true), DRA_FAST_PATH_MATCH, DRA_OUTCOME_ALLOCATED, "dev-1,dev-2,dev-4");
    /* no group of two left */
    both(&x, claim(&x, 2, true), DRA_FAST_PATH_UNSAT, DRA_OUTCOME_UNSATISFIABLE, "");
    /* the same without pruning: the search decides (its allocateOne count is the reference's) */
    dra_fast_set_pruning(x.fast, false);
    both(&x, claim(&x, 2, true), DRA_FAST_PATH_SEARCH, DRA_OUTCOME_UNSATISFIABLE, "");
    fx_fini(&x);
}

static void test_counters(void)
{
    fx_t x;
    /* mem 5, every device consumes 2: two fit at a time */
    fx_init(&x, 4, NULL, 5, 2);
    both(&x, claim(&x, 1, false), DRA_FAST_PATH_COUNTERS, DRA_OUTCOME_ALLOCATED, "dev-0");
    both(&x, claim(&x, 1, false), DRA_FAST_PATH_COUNTERS, DRA_OUTCOME_ALLOCATED, "dev-1");
    both(&x, claim(&x, 1, false), DRA_FAST_PATH_UNSAT, DRA_OUTCOME_UNSATISFIABLE, "");
    fx_fini(&x);
    fx_init(&x, 4, NULL, 5, 2);
    both(&x, claim(&x, 2, false), DRA_FAST_PATH_COUNTERS, DRA_OUTCOME_ALLOCATED, "dev-0,dev-1");
    fx_fini(&x);
    /* a release gives the counters back: the columns follow */
    fx_init(&x, 3, NULL, 2, 2);
    dra_claim_t *c0 = claim(&x, 1, false);
    dra_claim_t *cs[1] = {c0};
    dra_alloc_outcome_t o;
    CHECK_OK(dra_fast_allocate(x.fast, x.node, cs, 1, &x.out, &o));
    CHECK_EQ_I64(o.kind, DRA_OUTCOME_ALLOCATED);
    if (o.kind != DRA_OUTCOME_ALLOCATED) {
        fx_fini(&x);
        return;
    }
    CHECK_OK(dra_alloc_state_commit(x.st, o.allocations[0]));
    both(&x, claim(&x, 1, false), DRA_FAST_PATH_UNSAT, DRA_OUTCOME_UNSATISFIABLE, "");
    CHECK_OK(dra_alloc_state_release(x.st, o.allocations[0]));
    both(&x, claim(&x, 1, false), DRA_FAST_PATH_COUNTERS, DRA_OUTCOME_ALLOCATED, "dev-0");
    fx_fini(&x);
}

/* Counter amounts that differ per device (the columns keep a dictionary of distinct amounts,
 * each item an index into it), and a node whose items do not fit the packed word (the search
 * decides). */
static void test_counter_amounts(void)
{
    static const uint64_t amt[4] = {3, 2, 1, 1};
    fx_t x;
    fx_init(&x, 4, NULL, 4, 1);
    for (uint32_t d = 0; d < 4; d++)
        qty(&x.slice->devices[d].consumes[0].counters[0].value, amt[d]);
    /* 3, then 2 does not fit in what is left (1), then 1 does */
    both(&x, claim(&x, 2, false), DRA_FAST_PATH_COUNTERS, DRA_OUTCOME_ALLOCATED, "dev-0,dev-2");
    both(&x, claim(&x, 1, false), DRA_FAST_PATH_UNSAT, DRA_OUTCOME_UNSATISFIABLE, "");
    fx_fini(&x);
    fx_init(&x, 4, NULL, 4, 1);
    for (uint32_t d = 0; d < 4; d++)
        qty(&x.slice->devices[d].consumes[0].counters[0].value, amt[d]);
    /* one entry (1 bit) and three distinct amounts (2 bits) do not fit in 2 bits */
    dra_fast_set_counter_word_bits(x.fast, 2);
    both(&x, claim(&x, 2, false), DRA_FAST_PATH_SEARCH, DRA_OUTCOME_ALLOCATED, "dev-0,dev-2");
    both(&x, claim(&x, 1, false), DRA_FAST_PATH_SEARCH, DRA_OUTCOME_UNSATISFIABLE, "");
    fx_fini(&x);
    fx_init(&x, 4, NULL, 4, 1);
    for (uint32_t d = 0; d < 4; d++)
        qty(&x.slice->devices[d].consumes[0].counters[0].value, amt[d]);
    dra_fast_set_counter_word_bits(x.fast, 3); /* they fit in 3 */
    both(&x, claim(&x, 2, false), DRA_FAST_PATH_COUNTERS, DRA_OUTCOME_ALLOCATED, "dev-0,dev-2");
    fx_fini(&x);
}

/* Two counter sets of the pool (set-a, set-b: mem 2 each), the devices alternating between them
 * (dev-0, dev-2 on set-a; dev-1, dev-3 on set-b), each consuming all of its set: one consumption
 * profile shared by the four devices, each with its own counter set (the profile's entry offset
 * per device). */
static void fx_two_sets(fx_t *x)
{
    fx_init(x, 4, NULL, 2, 2);
    dra_slice_t *cs = x->m.slices[1];
    CHECK_STREQ(cs->name, "slice-counters");
    dra_counter_set_t *sets = dra_model_array(&x->m, 2, sizeof(dra_counter_set_t));
    for (uint32_t i = 0; i < 2; i++) {
        sets[i].name = i ? "set-b" : "set-a";
        sets[i].counters = dra_model_array(&x->m, 1, sizeof(dra_counter_t));
        sets[i].ncounters = 1;
        sets[i].counters[0].name = "mem";
        qty(&sets[i].counters[0].value, 2);
    }
    cs->counter_sets = sets;
    cs->ncounter_sets = 2;
    for (uint32_t d = 0; d < 4; d++)
        x->slice->devices[d].consumes[0].counter_set = d % 2 ? "set-b" : "set-a";
}

static void test_counter_profiles(void)
{
    fx_t x;
    fx_two_sets(&x);
    both(&x, claim(&x, 1, false), DRA_FAST_PATH_COUNTERS, DRA_OUTCOME_ALLOCATED, "dev-0");
    /* set-a is used up, set-b is not */
    both(&x, claim(&x, 1, false), DRA_FAST_PATH_COUNTERS, DRA_OUTCOME_ALLOCATED, "dev-1");
    both(&x, claim(&x, 1, false), DRA_FAST_PATH_UNSAT, DRA_OUTCOME_UNSATISFIABLE, "");
    fx_fini(&x);
    fx_two_sets(&x);
    both(&x, claim(&x, 2, false), DRA_FAST_PATH_COUNTERS, DRA_OUTCOME_ALLOCATED, "dev-0,dev-1");
    fx_fini(&x);
}

/* 1.37's compatibility groups on the counters path, for a claim of one device: with the gate on
 * a device whose groups the devices in use on its counter set do not admit is passed over, with
 * it off a device declaring groups is skipped; a claim of two devices goes to the search (its
 * picks meet each other's groups). dev-0 and dev-2 in group a, dev-1 in b, dev-3 none. */
static void test_compatibility_groups(void)
{
    static const char *const groups[4] = {"a", "b", "a", ""};
    fx_t x;
    fx_release = DRA_RELEASE_1_37;
    fx_groups = groups;
    fx_cg_gate = true;
    fx_init(&x, 4, NULL, 8, 1);
    both(&x, claim(&x, 1, false), DRA_FAST_PATH_COUNTERS, DRA_OUTCOME_ALLOCATED, "dev-0");
    both(&x, claim(&x, 1, false), DRA_FAST_PATH_COUNTERS, DRA_OUTCOME_ALLOCATED, "dev-2");
    /* dev-1 (b) and dev-3 (no groups) do not go with dev-0 and dev-2 (a) */
    both(&x, claim(&x, 1, false), DRA_FAST_PATH_UNSAT, DRA_OUTCOME_UNSATISFIABLE, "");
    both(&x, claim(&x, 2, false), DRA_FAST_PATH_SEARCH, DRA_OUTCOME_UNSATISFIABLE, "");
    fx_fini(&x);
    fx_init(&x, 4, NULL, 8, 1);
    both(&x, claim(&x, 2, false), DRA_FAST_PATH_SEARCH, DRA_OUTCOME_ALLOCATED, "dev-0,dev-2");
    fx_fini(&x);
    /* the gate off (1.37's default): only dev-3, which declares no groups */
    fx_cg_gate = false;
    fx_init(&x, 4, NULL, 8, 1);
    both(&x, claim(&x, 1, false), DRA_FAST_PATH_COUNTERS, DRA_OUTCOME_ALLOCATED, "dev-3");
    both(&x, claim(&x, 1, false), DRA_FAST_PATH_UNSAT, DRA_OUTCOME_UNSATISFIABLE, "");
    fx_fini(&x);
    fx_release = DRA_RELEASE_1_36;
    fx_groups = NULL;
}

int main(void)
{
    RUN(test_first);
    RUN(test_match);
    RUN(test_counters);
    RUN(test_counter_amounts);
    RUN(test_counter_profiles);
    RUN(test_compatibility_groups);
    return check_summary();
}
